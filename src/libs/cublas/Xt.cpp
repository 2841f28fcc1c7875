//===- Xt.cpp - cublasXt: the host-memory level-3 API ------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file cublasXt takes matrices in host (or device) memory with size_t
/// dimensions, host scalars, and returns when the result is in place. On the
/// CPU device host memory is the device's, so each call is the v2 routine's
/// _64 form on a library handle of the Xt handle's own, followed by a wait;
/// the block size, pinning mode, CPU ratio and CPU routines are kept or
/// accepted (every block already runs on the host). On AMD GPUs the calls
/// return CUBLAS_STATUS_NOT_SUPPORTED (staging host tiles through device
/// memory is not written). Rules from an H200's cuBLAS: nothing runs before
/// cublasXtDeviceSelect (NOT_INITIALIZED), devices are selected once, the
/// block dimension is at least 1, the pinning mode 0 or 1.
#include "libs/cublas/Cublas.h"

#include <climits>
#include <mutex>
#include <set>
#include <vector>

using namespace zluda::cublas;
namespace libs = zluda::libs;

extern "C" {
CUresult cuDeviceGetCount(int *);
cublasStatus_t cublasCreate_v2(cublasHandle_t *);
cublasStatus_t cublasDestroy_v2(cublasHandle_t);
}

namespace {

struct XtContext {
  cublasHandle_t Blas = nullptr;
  bool Selected = false;
  int BlockDim = 1024;
  int Pinning = 0;
};
using XtHandle = XtContext *;

std::mutex Mu;
std::set<XtContext *> &live() {
  static std::set<XtContext *> L;
  return L;
}

/// The Xt handle's library handle, ready for a call: NOT_INITIALIZED for an unknown handle or before the devices
/// are selected, NOT_SUPPORTED on AMD GPUs.
cublasStatus_t ready(XtHandle X, cublasHandle_t &Out) {
  std::lock_guard<std::mutex> G(Mu);
  if (!live().count(X) || !X->Selected)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!libs::cpuDevice()) {
    libs::notSupported("cuBLAS", "cublasXt on an AMD GPU");
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  Out = X->Blas;
  return CUBLAS_STATUS_SUCCESS;
}

/// size_t arguments as the _64 forms' int64_t (beyond INT64_MAX: INVALID_VALUE, as a negative size would be).
template <typename... S> bool fit(S... V) { return ((V <= static_cast<size_t>(INT64_MAX)) && ...); }

/// Runs \p Call on the Xt handle's library handle and waits for it.
template <typename F> cublasStatus_t run(XtHandle X, bool Fits, F Call) {
  cublasHandle_t B;
  if (cublasStatus_t S = ready(X, B))
    return S;
  if (!Fits)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (cublasStatus_t S = Call(B))
    return S;
  Handle *H = handleOf(B);
  return H && libs::wait(H->Stream) ? CUBLAS_STATUS_EXECUTION_FAILED : CUBLAS_STATUS_SUCCESS;
}

} // namespace

CUBLAS_API cublasStatus_t cublasXtCreate(XtHandle *Out) {
  if (!Out)
    return CUBLAS_STATUS_INVALID_VALUE;
  auto *X = new XtContext;
  if (cublasStatus_t S = cublasCreate_v2(&X->Blas)) {
    delete X;
    return S;
  }
  std::lock_guard<std::mutex> G(Mu);
  live().insert(X);
  *Out = X;
  return CUBLAS_STATUS_SUCCESS;
}
CUBLAS_API cublasStatus_t cublasXtDestroy(XtHandle X) {
  {
    std::lock_guard<std::mutex> G(Mu);
    if (!live().erase(X))
      return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  cublasDestroy_v2(X->Blas);
  delete X;
  return CUBLAS_STATUS_SUCCESS;
}
/// Each of our devices is a board of its own.
CUBLAS_API cublasStatus_t cublasXtGetNumBoards(int NbDevices, int DeviceId[], int *NbBoards) {
  if (NbDevices < 0 || (NbDevices && !DeviceId) || !NbBoards)
    return CUBLAS_STATUS_INVALID_VALUE;
  *NbBoards = static_cast<int>(std::set<int>(DeviceId, DeviceId + NbDevices).size());
  return CUBLAS_STATUS_SUCCESS;
}
/// The value an H200's cuBLAS reports.
CUBLAS_API cublasStatus_t cublasXtMaxBoards(int *NbGpuBoards) {
  if (!NbGpuBoards)
    return CUBLAS_STATUS_INVALID_VALUE;
  *NbGpuBoards = 1024;
  return CUBLAS_STATUS_SUCCESS;
}
CUBLAS_API cublasStatus_t cublasXtDeviceSelect(XtHandle X, int NbDevices, int DeviceId[]) {
  int Count = 0;
  CUcontext C;
  if (libs::ensureContext(C) || cuDeviceGetCount(&Count))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  std::lock_guard<std::mutex> G(Mu);
  if (!live().count(X))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (X->Selected || NbDevices <= 0 || !DeviceId)
    return CUBLAS_STATUS_INVALID_VALUE;
  for (int I = 0; I < NbDevices; ++I)
    if (DeviceId[I] < 0 || DeviceId[I] >= Count)
      return CUBLAS_STATUS_INVALID_VALUE;
  X->Selected = true; // the work runs on the current context's device (one CPU device)
  return CUBLAS_STATUS_SUCCESS;
}
CUBLAS_API cublasStatus_t cublasXtSetBlockDim(XtHandle X, int BlockDim) {
  std::lock_guard<std::mutex> G(Mu);
  if (!live().count(X))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (BlockDim < 1)
    return CUBLAS_STATUS_INVALID_VALUE;
  X->BlockDim = BlockDim;
  return CUBLAS_STATUS_SUCCESS;
}
CUBLAS_API cublasStatus_t cublasXtGetBlockDim(XtHandle X, int *BlockDim) {
  std::lock_guard<std::mutex> G(Mu);
  if (!live().count(X))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!BlockDim)
    return CUBLAS_STATUS_INVALID_VALUE;
  *BlockDim = X->BlockDim;
  return CUBLAS_STATUS_SUCCESS;
}
CUBLAS_API cublasStatus_t cublasXtSetPinningMemMode(XtHandle X, int Mode) {
  std::lock_guard<std::mutex> G(Mu);
  if (!live().count(X))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (Mode != 0 && Mode != 1)
    return CUBLAS_STATUS_INVALID_VALUE;
  X->Pinning = Mode;
  return CUBLAS_STATUS_SUCCESS;
}
CUBLAS_API cublasStatus_t cublasXtGetPinningMemMode(XtHandle X, int *Mode) {
  std::lock_guard<std::mutex> G(Mu);
  if (!live().count(X))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!Mode)
    return CUBLAS_STATUS_INVALID_VALUE;
  *Mode = X->Pinning;
  return CUBLAS_STATUS_SUCCESS;
}
/// A CPU share of the work and a CPU routine for it: accepted (on the CPU device all of it runs on the host).
CUBLAS_API cublasStatus_t cublasXtSetCpuRatio(XtHandle X, int Op, int Type, float Ratio) {
  std::lock_guard<std::mutex> G(Mu);
  if (!live().count(X))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (Op < 0 || Op >= 12 || Type < 0 || Type > 3 || !(Ratio >= 0.f && Ratio <= 1.f))
    return CUBLAS_STATUS_INVALID_VALUE;
  return CUBLAS_STATUS_SUCCESS;
}
CUBLAS_API cublasStatus_t cublasXtSetCpuRoutine(XtHandle X, int Op, int Type, void * /*BlasFunctor*/) {
  std::lock_guard<std::mutex> G(Mu);
  if (!live().count(X))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (Op < 0 || Op >= 12 || Type < 0 || Type > 3)
    return CUBLAS_STATUS_INVALID_VALUE;
  return CUBLAS_STATUS_SUCCESS;
}

// --- the routines: each over its v2 _64 form -----------------------------------------------------

using Op = cublasOperation_t;
using Fill = cublasFillMode_t;
using Side = cublasSideMode_t;
using Diag = cublasDiagType_t;
#define I64(V) static_cast<int64_t>(V)

#define XT_TYPED(P, T, R)                                                                                              \
  extern "C" cublasStatus_t cublas##P##gemm_v2_64(cublasHandle_t, Op, Op, int64_t, int64_t, int64_t, const T *,        \
                                                  const T *, int64_t, const T *, int64_t, const T *, T *, int64_t);    \
  extern "C" cublasStatus_t cublas##P##syrk_v2_64(cublasHandle_t, Fill, Op, int64_t, int64_t, const T *, const T *,    \
                                                  int64_t, const T *, T *, int64_t);                                   \
  extern "C" cublasStatus_t cublas##P##syr2k_v2_64(cublasHandle_t, Fill, Op, int64_t, int64_t, const T *, const T *,   \
                                                   int64_t, const T *, int64_t, const T *, T *, int64_t);              \
  extern "C" cublasStatus_t cublas##P##syrkx_64(cublasHandle_t, Fill, Op, int64_t, int64_t, const T *, const T *,      \
                                                int64_t, const T *, int64_t, const T *, T *, int64_t);                 \
  extern "C" cublasStatus_t cublas##P##trsm_v2_64(cublasHandle_t, Side, Fill, Op, Diag, int64_t, int64_t, const T *,   \
                                                  const T *, int64_t, T *, int64_t);                                   \
  extern "C" cublasStatus_t cublas##P##trmm_v2_64(cublasHandle_t, Side, Fill, Op, Diag, int64_t, int64_t, const T *,   \
                                                  const T *, int64_t, const T *, int64_t, T *, int64_t);               \
  extern "C" cublasStatus_t cublas##P##symm_v2_64(cublasHandle_t, Side, Fill, int64_t, int64_t, const T *, const T *,  \
                                                  int64_t, const T *, int64_t, const T *, T *, int64_t);               \
  CUBLAS_API cublasStatus_t cublasXt##P##gemm(XtHandle X, Op Ta, Op Tb, size_t M, size_t N, size_t K, const T *Al,     \
                                              const T *A, size_t Lda, const T *B, size_t Ldb, const T *Be, T *C,       \
                                              size_t Ldc) {                                                            \
    return run(X, fit(M, N, K, Lda, Ldb, Ldc), [&](cublasHandle_t H) {                                                 \
      return cublas##P##gemm_v2_64(H, Ta, Tb, I64(M), I64(N), I64(K), Al, A, I64(Lda), B, I64(Ldb), Be, C, I64(Ldc));  \
    });                                                                                                                \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasXt##P##syrk(XtHandle X, Fill U, Op Tr, size_t N, size_t K, const T *Al, const T *A,  \
                                              size_t Lda, const T *Be, T *C, size_t Ldc) {                             \
    return run(X, fit(N, K, Lda, Ldc), [&](cublasHandle_t H) {                                                         \
      return cublas##P##syrk_v2_64(H, U, Tr, I64(N), I64(K), Al, A, I64(Lda), Be, C, I64(Ldc));                        \
    });                                                                                                                \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasXt##P##syr2k(XtHandle X, Fill U, Op Tr, size_t N, size_t K, const T *Al,             \
                                               const T *A, size_t Lda, const T *B, size_t Ldb, const T *Be, T *C,      \
                                               size_t Ldc) {                                                           \
    return run(X, fit(N, K, Lda, Ldb, Ldc), [&](cublasHandle_t H) {                                                    \
      return cublas##P##syr2k_v2_64(H, U, Tr, I64(N), I64(K), Al, A, I64(Lda), B, I64(Ldb), Be, C, I64(Ldc));          \
    });                                                                                                                \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasXt##P##syrkx(XtHandle X, Fill U, Op Tr, size_t N, size_t K, const T *Al,             \
                                               const T *A, size_t Lda, const T *B, size_t Ldb, const T *Be, T *C,      \
                                               size_t Ldc) {                                                           \
    return run(X, fit(N, K, Lda, Ldb, Ldc), [&](cublasHandle_t H) {                                                    \
      return cublas##P##syrkx_64(H, U, Tr, I64(N), I64(K), Al, A, I64(Lda), B, I64(Ldb), Be, C, I64(Ldc));             \
    });                                                                                                                \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasXt##P##trsm(XtHandle X, Side S, Fill U, Op Tr, Diag D, size_t M, size_t N,           \
                                              const T *Al, const T *A, size_t Lda, T *B, size_t Ldb) {                 \
    return run(X, fit(M, N, Lda, Ldb), [&](cublasHandle_t H) {                                                         \
      return cublas##P##trsm_v2_64(H, S, U, Tr, D, I64(M), I64(N), Al, A, I64(Lda), B, I64(Ldb));                      \
    });                                                                                                                \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasXt##P##trmm(XtHandle X, Side S, Fill U, Op Tr, Diag D, size_t M, size_t N,           \
                                              const T *Al, const T *A, size_t Lda, const T *B, size_t Ldb, T *C,       \
                                              size_t Ldc) {                                                            \
    return run(X, fit(M, N, Lda, Ldb, Ldc), [&](cublasHandle_t H) {                                                    \
      return cublas##P##trmm_v2_64(H, S, U, Tr, D, I64(M), I64(N), Al, A, I64(Lda), B, I64(Ldb), C, I64(Ldc));         \
    });                                                                                                                \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasXt##P##symm(XtHandle X, Side S, Fill U, size_t M, size_t N, const T *Al, const T *A, \
                                              size_t Lda, const T *B, size_t Ldb, const T *Be, T *C, size_t Ldc) {     \
    return run(X, fit(M, N, Lda, Ldb, Ldc), [&](cublasHandle_t H) {                                                    \
      return cublas##P##symm_v2_64(H, S, U, I64(M), I64(N), Al, A, I64(Lda), B, I64(Ldb), Be, C, I64(Ldc));            \
    });                                                                                                                \
  }                                                                                                                    \
  /* spmm: A symmetric in packed storage (its order m or n by the side); unpacked into the stored triangle of a    */  \
  /* full matrix, then symm. */                                                                                        \
  CUBLAS_API cublasStatus_t cublasXt##P##spmm(XtHandle X, Side S, Fill U, size_t M, size_t N, const T *Al,             \
                                              const T *Ap, const T *B, size_t Ldb, const T *Be, T *C, size_t Ldc) {    \
    if (!validSide(S) || !validFill(U))                                                                                \
      return run(X, false, [](cublasHandle_t) { return CUBLAS_STATUS_SUCCESS; });                                      \
    size_t Ka = S == CUBLAS_SIDE_LEFT ? M : N;                                                                         \
    return run(X, fit(M, N, Ldb, Ldc), [&](cublasHandle_t H) {                                       \
      if (!Ap && Ka)                                                                                                   \
        return CUBLAS_STATUS_INVALID_VALUE;                                                                            \
      std::vector<T> Full;                                                                                             \
      try {                                                                                                            \
        Full.resize(Ka * Ka);                                                                                          \
      } catch (const std::exception &) {                                                                               \
        return CUBLAS_STATUS_ALLOC_FAILED;                                                                             \
      }                                                                                                                \
      size_t Idx = 0;                                                                                                  \
      bool Lo = U == CUBLAS_FILL_MODE_LOWER;                                                                           \
      for (size_t J = 0; J < Ka; ++J)                                                                                  \
        for (size_t I = Lo ? J : 0; I < (Lo ? Ka : J + 1); ++I)                                                        \
          Full[J * Ka + I] = Ap[Idx++];                                                                                \
      cublasStatus_t St = cublas##P##symm_v2_64(H, S, U, I64(M), I64(N), Al, Full.data(), I64(Ka ? Ka : 1), B,          \
                                                I64(Ldb), Be, C, I64(Ldc));                                            \
      Handle *Hh = handleOf(H);                                                                                        \
      if (!St && Hh && libs::wait(Hh->Stream)) /* Full must outlive the work */                                        \
        St = CUBLAS_STATUS_EXECUTION_FAILED;                                                                           \
      return St;                                                                                                       \
    });                                                                                                                \
  }
XT_TYPED(S, float, float)
XT_TYPED(D, double, double)
XT_TYPED(C, cuComplex, float)
XT_TYPED(Z, cuDoubleComplex, double)

#define XT_COMPLEX(P, T, R)                                                                                            \
  extern "C" cublasStatus_t cublas##P##herk_v2_64(cublasHandle_t, Fill, Op, int64_t, int64_t, const R *, const T *,    \
                                                  int64_t, const R *, T *, int64_t);                                   \
  extern "C" cublasStatus_t cublas##P##her2k_v2_64(cublasHandle_t, Fill, Op, int64_t, int64_t, const T *, const T *,   \
                                                   int64_t, const T *, int64_t, const R *, T *, int64_t);              \
  extern "C" cublasStatus_t cublas##P##herkx_64(cublasHandle_t, Fill, Op, int64_t, int64_t, const T *, const T *,      \
                                                int64_t, const T *, int64_t, const R *, T *, int64_t);                 \
  extern "C" cublasStatus_t cublas##P##hemm_v2_64(cublasHandle_t, Side, Fill, int64_t, int64_t, const T *, const T *,  \
                                                  int64_t, const T *, int64_t, const T *, T *, int64_t);               \
  CUBLAS_API cublasStatus_t cublasXt##P##herk(XtHandle X, Fill U, Op Tr, size_t N, size_t K, const R *Al, const T *A,  \
                                              size_t Lda, const R *Be, T *C, size_t Ldc) {                             \
    return run(X, fit(N, K, Lda, Ldc), [&](cublasHandle_t H) {                                                         \
      return cublas##P##herk_v2_64(H, U, Tr, I64(N), I64(K), Al, A, I64(Lda), Be, C, I64(Ldc));                        \
    });                                                                                                                \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasXt##P##her2k(XtHandle X, Fill U, Op Tr, size_t N, size_t K, const T *Al,             \
                                               const T *A, size_t Lda, const T *B, size_t Ldb, const R *Be, T *C,      \
                                               size_t Ldc) {                                                           \
    return run(X, fit(N, K, Lda, Ldb, Ldc), [&](cublasHandle_t H) {                                                    \
      return cublas##P##her2k_v2_64(H, U, Tr, I64(N), I64(K), Al, A, I64(Lda), B, I64(Ldb), Be, C, I64(Ldc));          \
    });                                                                                                                \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasXt##P##herkx(XtHandle X, Fill U, Op Tr, size_t N, size_t K, const T *Al,             \
                                               const T *A, size_t Lda, const T *B, size_t Ldb, const R *Be, T *C,      \
                                               size_t Ldc) {                                                           \
    return run(X, fit(N, K, Lda, Ldb, Ldc), [&](cublasHandle_t H) {                                                    \
      return cublas##P##herkx_64(H, U, Tr, I64(N), I64(K), Al, A, I64(Lda), B, I64(Ldb), Be, C, I64(Ldc));             \
    });                                                                                                                \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasXt##P##hemm(XtHandle X, Side S, Fill U, size_t M, size_t N, const T *Al, const T *A, \
                                              size_t Lda, const T *B, size_t Ldb, const T *Be, T *C, size_t Ldc) {     \
    return run(X, fit(M, N, Lda, Ldb, Ldc), [&](cublasHandle_t H) {                                                    \
      return cublas##P##hemm_v2_64(H, S, U, I64(M), I64(N), Al, A, I64(Lda), B, I64(Ldb), Be, C, I64(Ldc));            \
    });                                                                                                                \
  }
XT_COMPLEX(C, cuComplex, float)
XT_COMPLEX(Z, cuDoubleComplex, double)
