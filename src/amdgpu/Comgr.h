//===- Comgr.h - AMD COMGR, loaded at run time -----------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file COMGR (libamd_comgr) builds AMDGPU code objects from our bitcode. It is
/// loaded with dlopen the first time a code object is built or read, never
/// linked: libcuda.so.1 loads and runs the CPU device on machines without
/// ROCm. ZLUDA_COMGR_LIBRARY names the library; by default libamd_comgr.so.2,
/// then libamd_comgr.so. Its functions come from one table (ComgrApi.def).
#ifndef ZLUDA_AMDGPU_COMGR_H
#define ZLUDA_AMDGPU_COMGR_H

#include <amd_comgr.h>

#include <string>

namespace zluda::amdgpu {

struct ComgrLibrary {
#define COMGR_FN(Name) decltype(&::Name) Name = nullptr;
#include "amdgpu/ComgrApi.def"
  void *Handle = nullptr;
  std::string Path;  ///< the name it was loaded by
  std::string Error; ///< why no COMGR is usable (empty when one is)
  bool ok() const { return Error.empty(); }

  /// The process's COMGR, loaded on first use. Thread-safe; never unloaded.
  static const ComgrLibrary &get();
  /// Loads \p Path and resolves every function of the table.
  static ComgrLibrary load(const std::string &Path);
};

/// Shorthand for the loaded table; check ComgrLibrary::get().ok() first.
inline const ComgrLibrary &comgr() { return ComgrLibrary::get(); }

} // namespace zluda::amdgpu

#endif // ZLUDA_AMDGPU_COMGR_H
