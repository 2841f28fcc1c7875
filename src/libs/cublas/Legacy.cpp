//===- Legacy.cpp - the legacy cuBLAS API (cublas.h) ------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The API before handles: cublasInit/Shutdown, cublasAlloc/Free,
/// cublasSetKernelStream, cublasGetError, and BLAS calls that take their
/// operations as characters ('N', 'T', 'C'...), scalars by value and return
/// results by value. They run on one library handle (made by cublasInit, or
/// at the first call) over the v2 entry points; each records its status for
/// cublasGetError, as the legacy API has no return status.
#include "libs/cublas/Cublas.h"

#include <atomic>
#include <mutex>

extern "C" {
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
// The v2 entry points the legacy ones go through.
cublasStatus_t cublasCreate_v2(cublasHandle_t *);
cublasStatus_t cublasDestroy_v2(cublasHandle_t);
cublasStatus_t cublasSetStream_v2(cublasHandle_t, CUstream);
}

namespace {

std::mutex Mu;
cublasHandle_t Global = nullptr;
std::atomic<int> LastError{CUBLAS_STATUS_SUCCESS};

cublasHandle_t global() {
  std::lock_guard<std::mutex> G(Mu);
  if (!Global)
    if (cublasCreate_v2(&Global) != CUBLAS_STATUS_SUCCESS)
      Global = nullptr;
  return Global;
}
void note(cublasStatus_t S) {
  if (S != CUBLAS_STATUS_SUCCESS)
    LastError = S;
}
/// 'N'/'n', 'T'/'t', 'C'/'c' (anything else: an invalid value, -1).
int opOf(char C) {
  switch (C) {
  case 'N': case 'n': return CUBLAS_OP_N;
  case 'T': case 't': return CUBLAS_OP_T;
  case 'C': case 'c': return CUBLAS_OP_C;
  default: return -1;
  }
}
int fillOf(char C) { return C == 'U' || C == 'u' ? CUBLAS_FILL_MODE_UPPER : C == 'L' || C == 'l' ? CUBLAS_FILL_MODE_LOWER : -1; }
int sideOf(char C) { return C == 'L' || C == 'l' ? CUBLAS_SIDE_LEFT : C == 'R' || C == 'r' ? CUBLAS_SIDE_RIGHT : -1; }
int diagOf(char C) { return C == 'U' || C == 'u' ? CUBLAS_DIAG_UNIT : C == 'N' || C == 'n' ? CUBLAS_DIAG_NON_UNIT : -1; }

} // namespace


CUBLAS_API cublasStatus_t cublasInit() {
  CUcontext C;
  if (zluda::libs::ensureContext(C))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  return global() ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}
CUBLAS_API cublasStatus_t cublasShutdown() {
  std::lock_guard<std::mutex> G(Mu);
  if (!Global)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  cublasDestroy_v2(Global);
  Global = nullptr;
  return CUBLAS_STATUS_SUCCESS;
}
CUBLAS_API cublasStatus_t cublasGetError() { return static_cast<cublasStatus_t>(LastError.exchange(CUBLAS_STATUS_SUCCESS)); }
CUBLAS_API cublasStatus_t cublasSetKernelStream(CUstream S) {
  cublasHandle_t H = global();
  return H ? cublasSetStream_v2(H, S) : CUBLAS_STATUS_NOT_INITIALIZED;
}
CUBLAS_API cublasStatus_t cublasAlloc(int N, int Elem, void **Out) {
  if (!Out || N <= 0 || Elem <= 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  CUcontext C;
  if (zluda::libs::ensureContext(C))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  CUdeviceptr P;
  if (cuMemAlloc_v2(&P, size_t(N) * size_t(Elem)))
    return CUBLAS_STATUS_ALLOC_FAILED;
  *Out = reinterpret_cast<void *>(P);
  return CUBLAS_STATUS_SUCCESS;
}
CUBLAS_API cublasStatus_t cublasFree(void *P) {
  return cuMemFree_v2(reinterpret_cast<CUdeviceptr>(P)) ? CUBLAS_STATUS_INTERNAL_ERROR : CUBLAS_STATUS_SUCCESS;
}

// The v2 functions the legacy forms call (declared here: Blas*.cpp define them).
#define DECLARE_TYPED(P, T, R)                                                                                         \
  extern "C" cublasStatus_t cublas##P##gemm_v2(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,    \
                                               const T *, const T *, int, const T *, int, const T *, T *, int);       \
  extern "C" cublasStatus_t cublas##P##gemv_v2(cublasHandle_t, cublasOperation_t, int, int, const T *, const T *, int, \
                                               const T *, int, const T *, T *, int);                                   \
  extern "C" cublasStatus_t cublas##P##axpy_v2(cublasHandle_t, int, const T *, const T *, int, T *, int);              \
  extern "C" cublasStatus_t cublas##P##scal_v2(cublasHandle_t, int, const T *, T *, int);                              \
  extern "C" cublasStatus_t cublas##P##copy_v2(cublasHandle_t, int, const T *, int, T *, int);                         \
  extern "C" cublasStatus_t cublas##P##swap_v2(cublasHandle_t, int, T *, int, T *, int);                               \
  extern "C" cublasStatus_t cublas##P##trsm_v2(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t,  \
                                               cublasDiagType_t, int, int, const T *, const T *, int, T *, int);      \
  extern "C" cublasStatus_t cublas##P##syrk_v2(cublasHandle_t, cublasFillMode_t, cublasOperation_t, int, int,          \
                                               const T *, const T *, int, const T *, T *, int);
DECLARE_TYPED(S, float, float)
DECLARE_TYPED(D, double, double)
DECLARE_TYPED(C, cuComplex, float)
DECLARE_TYPED(Z, cuDoubleComplex, double)

// One expression per legacy call: the handle, the status noted.
#define LEGACY(Expr)                                                                                                   \
  do {                                                                                                                 \
    cublasHandle_t H_ = global();                                                                                      \
    note(H_ ? (Expr) : CUBLAS_STATUS_NOT_INITIALIZED);                                                                 \
  } while (0)
#define OP(C) static_cast<cublasOperation_t>(opOf(C))

#define LEGACY_TYPED(P, T)                                                                                             \
  CUBLAS_API void cublas##P##gemm(char Ta, char Tb, int M, int N, int K, T Alpha, const T *A, int Lda, const T *B,     \
                                  int Ldb, T Beta, T *C, int Ldc) {                                                    \
    LEGACY(cublas##P##gemm_v2(H_, OP(Ta), OP(Tb), M, N, K, &Alpha, A, Lda, B, Ldb, &Beta, C, Ldc));                    \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##gemv(char Tr, int M, int N, T Alpha, const T *A, int Lda, const T *X, int Ix, T Beta,     \
                                  T *Y, int Iy) {                                                                      \
    LEGACY(cublas##P##gemv_v2(H_, OP(Tr), M, N, &Alpha, A, Lda, X, Ix, &Beta, Y, Iy));                                 \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##axpy(int N, T Alpha, const T *X, int Ix, T *Y, int Iy) {                                  \
    LEGACY(cublas##P##axpy_v2(H_, N, &Alpha, X, Ix, Y, Iy));                                                           \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##scal(int N, T Alpha, T *X, int Ix) { LEGACY(cublas##P##scal_v2(H_, N, &Alpha, X, Ix)); }  \
  CUBLAS_API void cublas##P##copy(int N, const T *X, int Ix, T *Y, int Iy) {                                           \
    LEGACY(cublas##P##copy_v2(H_, N, X, Ix, Y, Iy));                                                                   \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##swap(int N, T *X, int Ix, T *Y, int Iy) { LEGACY(cublas##P##swap_v2(H_, N, X, Ix, Y, Iy)); } \
  CUBLAS_API void cublas##P##trsm(char Side, char Uplo, char Ta, char Diag, int M, int N, T Alpha, const T *A,         \
                                  int Lda, T *B, int Ldb) {                                                            \
    LEGACY(cublas##P##trsm_v2(H_, static_cast<cublasSideMode_t>(sideOf(Side)),                                        \
                              static_cast<cublasFillMode_t>(fillOf(Uplo)), OP(Ta),                                     \
                              static_cast<cublasDiagType_t>(diagOf(Diag)), M, N, &Alpha, A, Lda, B, Ldb));             \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##syrk(char Uplo, char Tr, int N, int K, T Alpha, const T *A, int Lda, T Beta, T *C,        \
                                  int Ldc) {                                                                           \
    LEGACY(cublas##P##syrk_v2(H_, static_cast<cublasFillMode_t>(fillOf(Uplo)), OP(Tr), N, K, &Alpha, A, Lda, &Beta, C, \
                              Ldc));                                                                                   \
  }
LEGACY_TYPED(S, float)
LEGACY_TYPED(D, double)
LEGACY_TYPED(C, cuComplex)
LEGACY_TYPED(Z, cuDoubleComplex)

// Reductions return their result (0 after an error).
extern "C" {
cublasStatus_t cublasSdot_v2(cublasHandle_t, int, const float *, int, const float *, int, float *);
cublasStatus_t cublasDdot_v2(cublasHandle_t, int, const double *, int, const double *, int, double *);
cublasStatus_t cublasCdotu_v2(cublasHandle_t, int, const cuComplex *, int, const cuComplex *, int, cuComplex *);
cublasStatus_t cublasCdotc_v2(cublasHandle_t, int, const cuComplex *, int, const cuComplex *, int, cuComplex *);
cublasStatus_t cublasZdotu_v2(cublasHandle_t, int, const cuDoubleComplex *, int, const cuDoubleComplex *, int,
                              cuDoubleComplex *);
cublasStatus_t cublasZdotc_v2(cublasHandle_t, int, const cuDoubleComplex *, int, const cuDoubleComplex *, int,
                              cuDoubleComplex *);
cublasStatus_t cublasSger_v2(cublasHandle_t, int, int, const float *, const float *, int, const float *, int, float *,
                             int);
cublasStatus_t cublasDger_v2(cublasHandle_t, int, int, const double *, const double *, int, const double *, int,
                             double *, int);
cublasStatus_t cublasCsscal_v2(cublasHandle_t, int, const float *, cuComplex *, int);
cublasStatus_t cublasZdscal_v2(cublasHandle_t, int, const double *, cuDoubleComplex *, int);
}
#define RESULT_CALL(Ret, Expr)                                                                                         \
  Ret R_{};                                                                                                            \
  LEGACY(Expr);                                                                                                        \
  return R_;

extern "C" {
cublasStatus_t cublasSnrm2_v2(cublasHandle_t, int, const float *, int, float *);
cublasStatus_t cublasDnrm2_v2(cublasHandle_t, int, const double *, int, double *);
cublasStatus_t cublasScnrm2_v2(cublasHandle_t, int, const cuComplex *, int, float *);
cublasStatus_t cublasDznrm2_v2(cublasHandle_t, int, const cuDoubleComplex *, int, double *);
cublasStatus_t cublasSasum_v2(cublasHandle_t, int, const float *, int, float *);
cublasStatus_t cublasDasum_v2(cublasHandle_t, int, const double *, int, double *);
cublasStatus_t cublasScasum_v2(cublasHandle_t, int, const cuComplex *, int, float *);
cublasStatus_t cublasDzasum_v2(cublasHandle_t, int, const cuDoubleComplex *, int, double *);
cublasStatus_t cublasIsamax_v2(cublasHandle_t, int, const float *, int, int *);
cublasStatus_t cublasIdamax_v2(cublasHandle_t, int, const double *, int, int *);
cublasStatus_t cublasIcamax_v2(cublasHandle_t, int, const cuComplex *, int, int *);
cublasStatus_t cublasIzamax_v2(cublasHandle_t, int, const cuDoubleComplex *, int, int *);
cublasStatus_t cublasIsamin_v2(cublasHandle_t, int, const float *, int, int *);
cublasStatus_t cublasIdamin_v2(cublasHandle_t, int, const double *, int, int *);
cublasStatus_t cublasIcamin_v2(cublasHandle_t, int, const cuComplex *, int, int *);
cublasStatus_t cublasIzamin_v2(cublasHandle_t, int, const cuDoubleComplex *, int, int *);
}

CUBLAS_API float cublasSdot(int N, const float *X, int Ix, const float *Y, int Iy) { RESULT_CALL(float, cublasSdot_v2(H_, N, X, Ix, Y, Iy, &R_)) }
CUBLAS_API double cublasDdot(int N, const double *X, int Ix, const double *Y, int Iy) { RESULT_CALL(double, cublasDdot_v2(H_, N, X, Ix, Y, Iy, &R_)) }
CUBLAS_API cuComplex cublasCdotu(int N, const cuComplex *X, int Ix, const cuComplex *Y, int Iy) { RESULT_CALL(cuComplex, cublasCdotu_v2(H_, N, X, Ix, Y, Iy, &R_)) }
CUBLAS_API cuComplex cublasCdotc(int N, const cuComplex *X, int Ix, const cuComplex *Y, int Iy) { RESULT_CALL(cuComplex, cublasCdotc_v2(H_, N, X, Ix, Y, Iy, &R_)) }
CUBLAS_API cuDoubleComplex cublasZdotu(int N, const cuDoubleComplex *X, int Ix, const cuDoubleComplex *Y, int Iy) { RESULT_CALL(cuDoubleComplex, cublasZdotu_v2(H_, N, X, Ix, Y, Iy, &R_)) }
CUBLAS_API cuDoubleComplex cublasZdotc(int N, const cuDoubleComplex *X, int Ix, const cuDoubleComplex *Y, int Iy) { RESULT_CALL(cuDoubleComplex, cublasZdotc_v2(H_, N, X, Ix, Y, Iy, &R_)) }
CUBLAS_API float cublasSnrm2(int N, const float *X, int Ix) { RESULT_CALL(float, cublasSnrm2_v2(H_, N, X, Ix, &R_)) }
CUBLAS_API double cublasDnrm2(int N, const double *X, int Ix) { RESULT_CALL(double, cublasDnrm2_v2(H_, N, X, Ix, &R_)) }
CUBLAS_API float cublasScnrm2(int N, const cuComplex *X, int Ix) { RESULT_CALL(float, cublasScnrm2_v2(H_, N, X, Ix, &R_)) }
CUBLAS_API double cublasDznrm2(int N, const cuDoubleComplex *X, int Ix) { RESULT_CALL(double, cublasDznrm2_v2(H_, N, X, Ix, &R_)) }
CUBLAS_API float cublasSasum(int N, const float *X, int Ix) { RESULT_CALL(float, cublasSasum_v2(H_, N, X, Ix, &R_)) }
CUBLAS_API double cublasDasum(int N, const double *X, int Ix) { RESULT_CALL(double, cublasDasum_v2(H_, N, X, Ix, &R_)) }
CUBLAS_API float cublasScasum(int N, const cuComplex *X, int Ix) { RESULT_CALL(float, cublasScasum_v2(H_, N, X, Ix, &R_)) }
CUBLAS_API double cublasDzasum(int N, const cuDoubleComplex *X, int Ix) { RESULT_CALL(double, cublasDzasum_v2(H_, N, X, Ix, &R_)) }
CUBLAS_API int cublasIsamax(int N, const float *X, int Ix) { RESULT_CALL(int, cublasIsamax_v2(H_, N, X, Ix, &R_)) }
CUBLAS_API int cublasIdamax(int N, const double *X, int Ix) { RESULT_CALL(int, cublasIdamax_v2(H_, N, X, Ix, &R_)) }
CUBLAS_API int cublasIcamax(int N, const cuComplex *X, int Ix) { RESULT_CALL(int, cublasIcamax_v2(H_, N, X, Ix, &R_)) }
CUBLAS_API int cublasIzamax(int N, const cuDoubleComplex *X, int Ix) { RESULT_CALL(int, cublasIzamax_v2(H_, N, X, Ix, &R_)) }
CUBLAS_API int cublasIsamin(int N, const float *X, int Ix) { RESULT_CALL(int, cublasIsamin_v2(H_, N, X, Ix, &R_)) }
CUBLAS_API int cublasIdamin(int N, const double *X, int Ix) { RESULT_CALL(int, cublasIdamin_v2(H_, N, X, Ix, &R_)) }
CUBLAS_API int cublasIcamin(int N, const cuComplex *X, int Ix) { RESULT_CALL(int, cublasIcamin_v2(H_, N, X, Ix, &R_)) }
CUBLAS_API int cublasIzamin(int N, const cuDoubleComplex *X, int Ix) { RESULT_CALL(int, cublasIzamin_v2(H_, N, X, Ix, &R_)) }
CUBLAS_API void cublasSger(int M, int N, float Alpha, const float *X, int Ix, const float *Y, int Iy, float *A, int Lda) {
  LEGACY(cublasSger_v2(H_, M, N, &Alpha, X, Ix, Y, Iy, A, Lda));
}
CUBLAS_API void cublasDger(int M, int N, double Alpha, const double *X, int Ix, const double *Y, int Iy, double *A,
                           int Lda) {
  LEGACY(cublasDger_v2(H_, M, N, &Alpha, X, Ix, Y, Iy, A, Lda));
}
CUBLAS_API void cublasCsscal(int N, float Alpha, cuComplex *X, int Ix) { LEGACY(cublasCsscal_v2(H_, N, &Alpha, X, Ix)); }
CUBLAS_API void cublasZdscal(int N, double Alpha, cuDoubleComplex *X, int Ix) {
  LEGACY(cublasZdscal_v2(H_, N, &Alpha, X, Ix));
}

// --- the rest of cublas.h: rotations, level 2 and level 3 over their v2 forms ---------------------

#define FILL(C) static_cast<cublasFillMode_t>(fillOf(C))
#define SIDE(C) static_cast<cublasSideMode_t>(sideOf(C))
#define DIAG(C) static_cast<cublasDiagType_t>(diagOf(C))

// The v2 forms (P: the type's letter, T: the element type).
#define DECLARE_LEVEL2(P, T)                                                                                           \
  extern "C" cublasStatus_t cublas##P##gbmv_v2(cublasHandle_t, cublasOperation_t, int, int, int, int, const T *,       \
                                               const T *, int, const T *, int, const T *, T *, int);                  \
  extern "C" cublasStatus_t cublas##P##trmv_v2(cublasHandle_t, cublasFillMode_t, cublasOperation_t, cublasDiagType_t,  \
                                               int, const T *, int, T *, int);                                         \
  extern "C" cublasStatus_t cublas##P##trsv_v2(cublasHandle_t, cublasFillMode_t, cublasOperation_t, cublasDiagType_t,  \
                                               int, const T *, int, T *, int);                                         \
  extern "C" cublasStatus_t cublas##P##tbmv_v2(cublasHandle_t, cublasFillMode_t, cublasOperation_t, cublasDiagType_t,  \
                                               int, int, const T *, int, T *, int);                                    \
  extern "C" cublasStatus_t cublas##P##tbsv_v2(cublasHandle_t, cublasFillMode_t, cublasOperation_t, cublasDiagType_t,  \
                                               int, int, const T *, int, T *, int);                                    \
  extern "C" cublasStatus_t cublas##P##tpmv_v2(cublasHandle_t, cublasFillMode_t, cublasOperation_t, cublasDiagType_t,  \
                                               int, const T *, T *, int);                                              \
  extern "C" cublasStatus_t cublas##P##tpsv_v2(cublasHandle_t, cublasFillMode_t, cublasOperation_t, cublasDiagType_t,  \
                                               int, const T *, T *, int);                                              \
  extern "C" cublasStatus_t cublas##P##trmm_v2(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t,  \
                                               cublasDiagType_t, int, int, const T *, const T *, int, const T *, int,  \
                                               T *, int);                                                              \
  extern "C" cublasStatus_t cublas##P##syr2k_v2(cublasHandle_t, cublasFillMode_t, cublasOperation_t, int, int,         \
                                                const T *, const T *, int, const T *, int, const T *, T *, int);       \
  extern "C" cublasStatus_t cublas##P##symm_v2(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, int, int,           \
                                               const T *, const T *, int, const T *, int, const T *, T *, int);
DECLARE_LEVEL2(S, float)
DECLARE_LEVEL2(D, double)
DECLARE_LEVEL2(C, cuComplex)
DECLARE_LEVEL2(Z, cuDoubleComplex)

// The same shapes for every type: band, triangular, packed triangular, trmm (in place, as the legacy API has it),
// syr2k and symm.
#define LEGACY_LEVEL2(P, T)                                                                                            \
  CUBLAS_API void cublas##P##gbmv(char Tr, int M, int N, int Kl, int Ku, T Alpha, const T *A, int Lda, const T *X,    \
                                  int Ix, T Beta, T *Y, int Iy) {                                                      \
    LEGACY(cublas##P##gbmv_v2(H_, OP(Tr), M, N, Kl, Ku, &Alpha, A, Lda, X, Ix, &Beta, Y, Iy));                         \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##trmv(char U, char Tr, char D, int N, const T *A, int Lda, T *X, int Ix) {                 \
    LEGACY(cublas##P##trmv_v2(H_, FILL(U), OP(Tr), DIAG(D), N, A, Lda, X, Ix));                                        \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##trsv(char U, char Tr, char D, int N, const T *A, int Lda, T *X, int Ix) {                 \
    LEGACY(cublas##P##trsv_v2(H_, FILL(U), OP(Tr), DIAG(D), N, A, Lda, X, Ix));                                        \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##tbmv(char U, char Tr, char D, int N, int K, const T *A, int Lda, T *X, int Ix) {          \
    LEGACY(cublas##P##tbmv_v2(H_, FILL(U), OP(Tr), DIAG(D), N, K, A, Lda, X, Ix));                                     \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##tbsv(char U, char Tr, char D, int N, int K, const T *A, int Lda, T *X, int Ix) {          \
    LEGACY(cublas##P##tbsv_v2(H_, FILL(U), OP(Tr), DIAG(D), N, K, A, Lda, X, Ix));                                     \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##tpmv(char U, char Tr, char D, int N, const T *Ap, T *X, int Ix) {                         \
    LEGACY(cublas##P##tpmv_v2(H_, FILL(U), OP(Tr), DIAG(D), N, Ap, X, Ix));                                            \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##tpsv(char U, char Tr, char D, int N, const T *Ap, T *X, int Ix) {                         \
    LEGACY(cublas##P##tpsv_v2(H_, FILL(U), OP(Tr), DIAG(D), N, Ap, X, Ix));                                            \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##trmm(char Sd, char U, char Ta, char D, int M, int N, T Alpha, const T *A, int Lda, T *B,  \
                                  int Ldb) {                                                                           \
    LEGACY(cublas##P##trmm_v2(H_, SIDE(Sd), FILL(U), OP(Ta), DIAG(D), M, N, &Alpha, A, Lda, B, Ldb, B, Ldb));          \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##syr2k(char U, char Tr, int N, int K, T Alpha, const T *A, int Lda, const T *B, int Ldb,   \
                                   T Beta, T *C, int Ldc) {                                                            \
    LEGACY(cublas##P##syr2k_v2(H_, FILL(U), OP(Tr), N, K, &Alpha, A, Lda, B, Ldb, &Beta, C, Ldc));                     \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##symm(char Sd, char U, int M, int N, T Alpha, const T *A, int Lda, const T *B, int Ldb,    \
                                  T Beta, T *C, int Ldc) {                                                             \
    LEGACY(cublas##P##symm_v2(H_, SIDE(Sd), FILL(U), M, N, &Alpha, A, Lda, B, Ldb, &Beta, C, Ldc));                    \
  }
LEGACY_LEVEL2(S, float)
LEGACY_LEVEL2(D, double)
LEGACY_LEVEL2(C, cuComplex)
LEGACY_LEVEL2(Z, cuDoubleComplex)

// Real only: rotations, symmetric and packed symmetric matrix-vector products and updates.
#define LEGACY_REAL(P, T)                                                                                              \
  extern "C" cublasStatus_t cublas##P##rot_v2(cublasHandle_t, int, T *, int, T *, int, const T *, const T *);          \
  extern "C" cublasStatus_t cublas##P##rotg_v2(cublasHandle_t, T *, T *, T *, T *);                                    \
  extern "C" cublasStatus_t cublas##P##rotm_v2(cublasHandle_t, int, T *, int, T *, int, const T *);                    \
  extern "C" cublasStatus_t cublas##P##rotmg_v2(cublasHandle_t, T *, T *, T *, const T *, T *);                        \
  extern "C" cublasStatus_t cublas##P##symv_v2(cublasHandle_t, cublasFillMode_t, int, const T *, const T *, int,       \
                                               const T *, int, const T *, T *, int);                                   \
  extern "C" cublasStatus_t cublas##P##sbmv_v2(cublasHandle_t, cublasFillMode_t, int, int, const T *, const T *, int,  \
                                               const T *, int, const T *, T *, int);                                   \
  extern "C" cublasStatus_t cublas##P##spmv_v2(cublasHandle_t, cublasFillMode_t, int, const T *, const T *, const T *, \
                                               int, const T *, T *, int);                                              \
  extern "C" cublasStatus_t cublas##P##syr_v2(cublasHandle_t, cublasFillMode_t, int, const T *, const T *, int, T *,   \
                                              int);                                                                    \
  extern "C" cublasStatus_t cublas##P##spr_v2(cublasHandle_t, cublasFillMode_t, int, const T *, const T *, int, T *);  \
  extern "C" cublasStatus_t cublas##P##syr2_v2(cublasHandle_t, cublasFillMode_t, int, const T *, const T *, int,       \
                                               const T *, int, T *, int);                                              \
  extern "C" cublasStatus_t cublas##P##spr2_v2(cublasHandle_t, cublasFillMode_t, int, const T *, const T *, int,       \
                                               const T *, int, T *);                                                   \
  CUBLAS_API void cublas##P##rot(int N, T *X, int Ix, T *Y, int Iy, T C, T S) {                                        \
    LEGACY(cublas##P##rot_v2(H_, N, X, Ix, Y, Iy, &C, &S));                                                            \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##rotg(T *A, T *B, T *C, T *S) { LEGACY(cublas##P##rotg_v2(H_, A, B, C, S)); }              \
  CUBLAS_API void cublas##P##rotm(int N, T *X, int Ix, T *Y, int Iy, const T *Param) {                                 \
    LEGACY(cublas##P##rotm_v2(H_, N, X, Ix, Y, Iy, Param));                                                            \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##rotmg(T *D1, T *D2, T *X1, const T *Y1, T *Param) {                                       \
    LEGACY(cublas##P##rotmg_v2(H_, D1, D2, X1, Y1, Param));                                                            \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##symv(char U, int N, T Alpha, const T *A, int Lda, const T *X, int Ix, T Beta, T *Y,       \
                                  int Iy) {                                                                            \
    LEGACY(cublas##P##symv_v2(H_, FILL(U), N, &Alpha, A, Lda, X, Ix, &Beta, Y, Iy));                                   \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##sbmv(char U, int N, int K, T Alpha, const T *A, int Lda, const T *X, int Ix, T Beta,      \
                                  T *Y, int Iy) {                                                                      \
    LEGACY(cublas##P##sbmv_v2(H_, FILL(U), N, K, &Alpha, A, Lda, X, Ix, &Beta, Y, Iy));                                \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##spmv(char U, int N, T Alpha, const T *Ap, const T *X, int Ix, T Beta, T *Y, int Iy) {     \
    LEGACY(cublas##P##spmv_v2(H_, FILL(U), N, &Alpha, Ap, X, Ix, &Beta, Y, Iy));                                       \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##syr(char U, int N, T Alpha, const T *X, int Ix, T *A, int Lda) {                          \
    LEGACY(cublas##P##syr_v2(H_, FILL(U), N, &Alpha, X, Ix, A, Lda));                                                  \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##spr(char U, int N, T Alpha, const T *X, int Ix, T *Ap) {                                  \
    LEGACY(cublas##P##spr_v2(H_, FILL(U), N, &Alpha, X, Ix, Ap));                                                      \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##syr2(char U, int N, T Alpha, const T *X, int Ix, const T *Y, int Iy, T *A, int Lda) {     \
    LEGACY(cublas##P##syr2_v2(H_, FILL(U), N, &Alpha, X, Ix, Y, Iy, A, Lda));                                          \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##spr2(char U, int N, T Alpha, const T *X, int Ix, const T *Y, int Iy, T *Ap) {             \
    LEGACY(cublas##P##spr2_v2(H_, FILL(U), N, &Alpha, X, Ix, Y, Iy, Ap));                                              \
  }
LEGACY_REAL(S, float)
LEGACY_REAL(D, double)

// Complex only: rotations (complex or real sine), Hermitian products and updates, geru/gerc, herk, her2k, hemm.
#define LEGACY_COMPLEX(P, PR, T, R)                                                                                    \
  extern "C" cublasStatus_t cublas##P##rot_v2(cublasHandle_t, int, T *, int, T *, int, const R *, const T *);          \
  extern "C" cublasStatus_t cublas##PR##rot_v2(cublasHandle_t, int, T *, int, T *, int, const R *, const R *);         \
  extern "C" cublasStatus_t cublas##P##rotg_v2(cublasHandle_t, T *, T *, R *, T *);                                    \
  extern "C" cublasStatus_t cublas##P##hemv_v2(cublasHandle_t, cublasFillMode_t, int, const T *, const T *, int,       \
                                               const T *, int, const T *, T *, int);                                   \
  extern "C" cublasStatus_t cublas##P##hbmv_v2(cublasHandle_t, cublasFillMode_t, int, int, const T *, const T *, int,  \
                                               const T *, int, const T *, T *, int);                                   \
  extern "C" cublasStatus_t cublas##P##hpmv_v2(cublasHandle_t, cublasFillMode_t, int, const T *, const T *, const T *, \
                                               int, const T *, T *, int);                                              \
  extern "C" cublasStatus_t cublas##P##geru_v2(cublasHandle_t, int, int, const T *, const T *, int, const T *, int,    \
                                               T *, int);                                                              \
  extern "C" cublasStatus_t cublas##P##gerc_v2(cublasHandle_t, int, int, const T *, const T *, int, const T *, int,    \
                                               T *, int);                                                              \
  extern "C" cublasStatus_t cublas##P##her_v2(cublasHandle_t, cublasFillMode_t, int, const R *, const T *, int, T *,   \
                                              int);                                                                    \
  extern "C" cublasStatus_t cublas##P##hpr_v2(cublasHandle_t, cublasFillMode_t, int, const R *, const T *, int, T *);  \
  extern "C" cublasStatus_t cublas##P##her2_v2(cublasHandle_t, cublasFillMode_t, int, const T *, const T *, int,       \
                                               const T *, int, T *, int);                                              \
  extern "C" cublasStatus_t cublas##P##hpr2_v2(cublasHandle_t, cublasFillMode_t, int, const T *, const T *, int,       \
                                               const T *, int, T *);                                                   \
  extern "C" cublasStatus_t cublas##P##herk_v2(cublasHandle_t, cublasFillMode_t, cublasOperation_t, int, int,          \
                                               const R *, const T *, int, const R *, T *, int);                        \
  extern "C" cublasStatus_t cublas##P##her2k_v2(cublasHandle_t, cublasFillMode_t, cublasOperation_t, int, int,         \
                                                const T *, const T *, int, const T *, int, const R *, T *, int);       \
  extern "C" cublasStatus_t cublas##P##hemm_v2(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, int, int,           \
                                               const T *, const T *, int, const T *, int, const T *, T *, int);        \
  CUBLAS_API void cublas##P##rot(int N, T *X, int Ix, T *Y, int Iy, R C, T S) {                                        \
    LEGACY(cublas##P##rot_v2(H_, N, X, Ix, Y, Iy, &C, &S));                                                            \
  }                                                                                                                    \
  CUBLAS_API void cublas##PR##rot(int N, T *X, int Ix, T *Y, int Iy, R C, R S) {                                       \
    LEGACY(cublas##PR##rot_v2(H_, N, X, Ix, Y, Iy, &C, &S));                                                           \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##rotg(T *A, T B, R *C, T *S) { LEGACY(cublas##P##rotg_v2(H_, A, &B, C, S)); }              \
  CUBLAS_API void cublas##P##hemv(char U, int N, T Alpha, const T *A, int Lda, const T *X, int Ix, T Beta, T *Y,       \
                                  int Iy) {                                                                            \
    LEGACY(cublas##P##hemv_v2(H_, FILL(U), N, &Alpha, A, Lda, X, Ix, &Beta, Y, Iy));                                   \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##hbmv(char U, int N, int K, T Alpha, const T *A, int Lda, const T *X, int Ix, T Beta,      \
                                  T *Y, int Iy) {                                                                      \
    LEGACY(cublas##P##hbmv_v2(H_, FILL(U), N, K, &Alpha, A, Lda, X, Ix, &Beta, Y, Iy));                                \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##hpmv(char U, int N, T Alpha, const T *Ap, const T *X, int Ix, T Beta, T *Y, int Iy) {     \
    LEGACY(cublas##P##hpmv_v2(H_, FILL(U), N, &Alpha, Ap, X, Ix, &Beta, Y, Iy));                                       \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##geru(int M, int N, T Alpha, const T *X, int Ix, const T *Y, int Iy, T *A, int Lda) {      \
    LEGACY(cublas##P##geru_v2(H_, M, N, &Alpha, X, Ix, Y, Iy, A, Lda));                                                \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##gerc(int M, int N, T Alpha, const T *X, int Ix, const T *Y, int Iy, T *A, int Lda) {      \
    LEGACY(cublas##P##gerc_v2(H_, M, N, &Alpha, X, Ix, Y, Iy, A, Lda));                                                \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##her(char U, int N, R Alpha, const T *X, int Ix, T *A, int Lda) {                          \
    LEGACY(cublas##P##her_v2(H_, FILL(U), N, &Alpha, X, Ix, A, Lda));                                                  \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##hpr(char U, int N, R Alpha, const T *X, int Ix, T *Ap) {                                  \
    LEGACY(cublas##P##hpr_v2(H_, FILL(U), N, &Alpha, X, Ix, Ap));                                                      \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##her2(char U, int N, T Alpha, const T *X, int Ix, const T *Y, int Iy, T *A, int Lda) {     \
    LEGACY(cublas##P##her2_v2(H_, FILL(U), N, &Alpha, X, Ix, Y, Iy, A, Lda));                                          \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##hpr2(char U, int N, T Alpha, const T *X, int Ix, const T *Y, int Iy, T *Ap) {             \
    LEGACY(cublas##P##hpr2_v2(H_, FILL(U), N, &Alpha, X, Ix, Y, Iy, Ap));                                              \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##herk(char U, char Tr, int N, int K, R Alpha, const T *A, int Lda, R Beta, T *C,           \
                                  int Ldc) {                                                                           \
    LEGACY(cublas##P##herk_v2(H_, FILL(U), OP(Tr), N, K, &Alpha, A, Lda, &Beta, C, Ldc));                              \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##her2k(char U, char Tr, int N, int K, T Alpha, const T *A, int Lda, const T *B, int Ldb,   \
                                   R Beta, T *C, int Ldc) {                                                            \
    LEGACY(cublas##P##her2k_v2(H_, FILL(U), OP(Tr), N, K, &Alpha, A, Lda, B, Ldb, &Beta, C, Ldc));                     \
  }                                                                                                                    \
  CUBLAS_API void cublas##P##hemm(char Sd, char U, int M, int N, T Alpha, const T *A, int Lda, const T *B, int Ldb,    \
                                  T Beta, T *C, int Ldc) {                                                             \
    LEGACY(cublas##P##hemm_v2(H_, SIDE(Sd), FILL(U), M, N, &Alpha, A, Lda, B, Ldb, &Beta, C, Ldc));                    \
  }
LEGACY_COMPLEX(C, Cs, cuComplex, float)
LEGACY_COMPLEX(Z, Zd, cuDoubleComplex, double)
