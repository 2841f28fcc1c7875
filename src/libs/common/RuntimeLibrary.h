//===- RuntimeLibrary.h - an AMD library loaded at run time -----------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file What the math libraries' AMD backends share to load rocBLAS,
/// hipBLASLt, rocSPARSE and rocFFT with dlopen: the library named by an
/// environment variable (that file and nothing else) or the first of the
/// usual names that opens, then its entry points by name. A missing entry
/// point makes the library unusable; why is kept for the log.
#pragma once

#include <initializer_list>
#include <string>

namespace zluda::libs {

class RuntimeLibrary {
public:
  /// Opens \p Env's file when that variable is set, else the first of \p Names that opens.
  RuntimeLibrary(const char *Env, std::initializer_list<const char *> Names);
  /// Fn = the entry point \p Name (null, and the library unusable, where it lacks it).
  template <typename F> void sym(F &Fn, const std::string &Name) {
    Fn = reinterpret_cast<F>(symbol(Name));
  }
  /// Whether the library opened.
  bool found() const { return Handle != nullptr; }
  /// Whether the library opened and had every entry point asked for.
  bool ok() const { return Handle && Why.empty(); }
  /// Why not: the library was not found, or the first entry point it lacks.
  const std::string &why() const { return Why; }

private:
  void *symbol(const std::string &Name);
  void *Handle = nullptr;
  std::string Why;
};

} // namespace zluda::libs
