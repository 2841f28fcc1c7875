//===- RocSolver.cpp - loading rocSOLVER at run time -----------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "libs/cusolver/RocSolver.h"

#include "common/Log.h"
#include "libs/common/RuntimeLibrary.h"

#include <string>

namespace zluda::rocsolver {
namespace {

const Api *load() {
  static libs::RuntimeLibrary L("ZLUDA_ROCSOLVER_LIBRARY", {"librocsolver.so.0", "librocsolver.so"});
  static Api A{};
  L.sym(A.CreateHandle, "rocblas_create_handle");
  L.sym(A.DestroyHandle, "rocblas_destroy_handle");
  L.sym(A.SetStream, "rocblas_set_stream");
  static const char Prefix[4] = {'s', 'd', 'c', 'z'};
  for (int K = 0; K < 4; ++K) {
    const std::string P = std::string("rocsolver_") + Prefix[K];
    const bool Cx = K >= 2;
    L.sym(A.Getrf[K], P + "getrf");
    L.sym(A.GetrfNpvt[K], P + "getrf_npvt");
    L.sym(A.Getrs[K], P + "getrs");
    L.sym(A.Potrf[K], P + "potrf");
    L.sym(A.Potrs[K], P + "potrs");
    L.sym(A.Geqrf[K], P + "geqrf");
    L.sym(A.Ormqr[K], P + (Cx ? "unmqr" : "ormqr"));
    L.sym(A.Orgqr[K], P + (Cx ? "ungqr" : "orgqr"));
    L.sym(A.Gesvd[K], P + "gesvd");
    L.sym(A.Syevd[K], P + (Cx ? "heevd" : "syevd"));
    L.sym(A.PotrfBatched[K], P + "potrf_batched");
    L.sym(A.PotrsBatched[K], P + "potrs_batched");
  }
  if (!L.ok()) {
    if (L.found())
      ZLUDA_LOG_WARN("cuSOLVER on AMD GPUs: rocSOLVER {}: not used", L.why());
    return nullptr;
  }
  ZLUDA_LOG_INFO("cuSOLVER on AMD GPUs: rocSOLVER loaded");
  return &A;
}

} // namespace

const Api *api() {
  static const Api *A = load();
  return A;
}

} // namespace zluda::rocsolver
