//===- HipBlasLt.cpp - loading hipBLASLt at run time ------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "libs/cublasLt/HipBlasLt.h"

#include "common/Log.h"
#include "libs/common/RuntimeLibrary.h"

namespace zluda::hipblaslt {
namespace {

const Api *load() {
  static libs::RuntimeLibrary L("ZLUDA_HIPBLASLT_LIBRARY",
                                {"libhipblaslt.so.1", "libhipblaslt.so.0", "libhipblaslt.so"});
  static Api A{};
  auto sym = [&](auto &Fn, const char *S) { L.sym(Fn, S); };
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
  if (!L.ok()) {
    if (L.found())
      ZLUDA_LOG_WARN("cuBLASLt on AMD GPUs: hipBLASLt {}: not used", L.why());
    return nullptr;
  }
  ZLUDA_LOG_INFO("cuBLASLt on AMD GPUs: hipBLASLt loaded");
  return &A;
}

} // namespace

const Api *api() {
  static const Api *A = load();
  return A;
}

} // namespace zluda::hipblaslt
