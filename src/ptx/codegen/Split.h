//===- Split.h - cutting a lowered module into compile units ---------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A lowered module is compiled as one or more units so that kernels
/// can be compiled only when launched (lazy loading) and on several cores at
/// once. A unit holds some kernels, a private copy of every device function
/// they reach, and either the definitions of the module variables or
/// declarations of them (exactly one unit of a module defines them; the
/// linker resolves the others to it).
#ifndef ZLUDA_PTX_CODEGEN_SPLIT_H
#define ZLUDA_PTX_CODEGEN_SPLIT_H

#include <llvm/IR/Module.h>

#include <memory>
#include <string>
#include <vector>

namespace zluda::ptx {

struct UnitSpec {
  std::vector<std::string> Kernels;
  bool WithGlobals = false; ///< this unit defines the module variables
  /// Identifies the unit within its module (part of its cache key).
  std::string id() const;
};

/// A new module in \p M's context with what unit \p U needs. Kernels of \p M
/// outside the unit are declared if referenced; functions with bodies are
/// copied with internal linkage.
std::unique_ptr<llvm::Module> extractUnit(const llvm::Module &M, const UnitSpec &U);

/// Deterministic grouping of kernels (in module order) into units of about
/// \p Budget LLVM instructions; the first unit defines the globals.
std::vector<UnitSpec> groupKernels(const llvm::Module &M, const std::vector<std::string> &Kernels, size_t Budget);

} // namespace zluda::ptx

#endif // ZLUDA_PTX_CODEGEN_SPLIT_H
