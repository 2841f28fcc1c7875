//===- HipBlasLt.cpp - loading hipBLASLt at run time ------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "libs/cublasLt/HipBlasLt.h"

#include "common/Log.h"

#include <dlfcn.h>

#include <cstdlib>
#include <type_traits>

namespace zluda::hipblaslt {
namespace {

const Api *load() {
  const char *Env = std::getenv("ZLUDA_HIPBLASLT_LIBRARY");
  void *L = nullptr;
  for (const char *Name : {Env, "libhipblaslt.so.1", "libhipblaslt.so.0", "libhipblaslt.so"})
    if (Name && *Name && (L = dlopen(Name, RTLD_NOW | RTLD_LOCAL)))
      break;
    else if (Name == Env && Env && *Env)
      break; // the file asked for, and nothing else
  if (!L)
    return nullptr;
  static Api A{};
  bool Ok = true;
  auto sym = [&](auto &Fn, const char *Name) {
    Fn = reinterpret_cast<std::remove_reference_t<decltype(Fn)>>(dlsym(L, Name));
    if (!Fn) {
      Ok = false;
      ZLUDA_LOG_WARN("cuBLASLt on AMD GPUs: hipBLASLt lacks {}: not used", Name);
    }
  };
  sym(A.Create, "hipblasLtCreate");
  sym(A.Destroy, "hipblasLtDestroy");
  sym(A.LayoutCreate, "hipblasLtMatrixLayoutCreate");
  sym(A.LayoutDestroy, "hipblasLtMatrixLayoutDestroy");
  sym(A.LayoutSet, "hipblasLtMatrixLayoutSetAttribute");
  sym(A.DescCreate, "hipblasLtMatmulDescCreate");
  sym(A.DescDestroy, "hipblasLtMatmulDescDestroy");
  sym(A.DescSet, "hipblasLtMatmulDescSetAttribute");
  sym(A.PrefCreate, "hipblasLtMatmulPreferenceCreate");
  sym(A.PrefDestroy, "hipblasLtMatmulPreferenceDestroy");
  sym(A.PrefSet, "hipblasLtMatmulPreferenceSetAttribute");
  sym(A.Heuristic, "hipblasLtMatmulAlgoGetHeuristic");
  sym(A.Matmul, "hipblasLtMatmul");
  if (!Ok)
    return nullptr;
  ZLUDA_LOG_INFO("cuBLASLt on AMD GPUs: hipBLASLt loaded");
  return &A;
}

} // namespace

const Api *api() {
  static const Api *A = load();
  return A;
}

} // namespace zluda::hipblaslt
