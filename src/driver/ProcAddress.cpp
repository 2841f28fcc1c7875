//===- ProcAddress.cpp - cuGetProcAddress resolution ------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Name -> address of every export (from cuda_exports.def) and the
/// versioned resolution rows of ProcTable.def. This file sees the exports
/// only as addresses, never through their prototypes.
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#define CU_EXPORT(Name) extern "C" void Name();
#include "zluda/api/cuda_exports.def"

namespace zluda::driver {
namespace {

struct ProcRow {
  const char *Name;
  int Since;
  int Flags;
  void *Addr;
};

const ProcRow Rows[] = {
#define CU_PROC(Name, Since, Flags, Symbol) {#Name, Since, Flags, reinterpret_cast<void *>(&Symbol)},
#include "driver/ProcTable.def"
};

const std::unordered_map<std::string, void *> &exportsByName() {
  static const std::unordered_map<std::string, void *> M = [] {
    std::unordered_map<std::string, void *> X;
#define CU_EXPORT(Name) X.emplace(#Name, reinterpret_cast<void *>(&Name));
#include "zluda/api/cuda_exports.def"
    return X;
  }();
  return M;
}

} // namespace

/// Resolves (Name, Version, Flags) as NVIDIA's driver does. Returns null when
/// unknown; sets VersionTooLow when the name exists only in newer versions.
__attribute__((visibility("default"))) // used by libcudart (cudaGetDriverEntryPoint)
void *lookupProc(const char *Name, int Version, unsigned long long Flags, bool &VersionTooLow) {
  VersionTooLow = false;
  if (!Name || !*Name)
    return nullptr;
  bool PerThread = Flags & 2;
  for (int Pass = PerThread ? 0 : 1; Pass < 2; ++Pass) {
    int WantFlags = Pass == 0 ? 2 : 0;
    const ProcRow *Best = nullptr;
    bool AnyRow = false;
    for (const ProcRow &R : Rows) {
      if (R.Flags != WantFlags || std::strcmp(R.Name, Name) != 0)
        continue;
      AnyRow = true;
      if (R.Since <= Version && (!Best || R.Since > Best->Since))
        Best = &R;
    }
    if (Best)
      return Best->Addr;
    if (AnyRow && Pass == 1) {
      VersionTooLow = true;
      return nullptr;
    }
  }
  // Not a name cudart asks for: an export of exactly that name.
  auto It = exportsByName().find(Name);
  return It == exportsByName().end() ? nullptr : It->second;
}

size_t exportCount() { return exportsByName().size(); }

} // namespace zluda::driver
