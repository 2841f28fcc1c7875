//===- CusolverDn.cpp - our libcusolver: dense factorizations over LAPACK --===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file cusolverDn handles and the typed dense routines (getrf/getrs, potrf/potrs,
/// geqrf/ormqr/unmqr/orgqr/ungqr, gesvd, syevd/heevd for S, D, C, Z), each a
/// host function of the handle's stream that runs LAPACK (OpenBLAS's) on
/// device memory, which is host memory on the CPU device; `info` is written
/// to device memory as cuSOLVER does. The workspace sizes are LAPACK's
/// optimal ones; LAPACK runs on its own workspace, so a caller's workspace is
/// only checked for presence. On an AMD GPU the routines above run on
/// rocSOLVER where it loads (RocSolver.h; not in Debian 12), in the handle's
/// stream order; without it, and for the other routines, the call waits for
/// the stream and runs LAPACK on host copies of its arrays (libs::runStaged):
#include "libs/cusolver/DnInternal.h"

using namespace zluda;
using namespace zluda::cusolver;
using namespace zluda::cusolver::dn;


CUSOLVER_API cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *Out) {
  return libs::createHandle<Handle>(Out, HandleStatuses);
}
CUSOLVER_API cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t Hd) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  libs::wait(H->Stream);
  if (H->Roc)
    roc::api()->DestroyHandle(H->Roc);
  if (H->Scratch)
    cuMemFree_v2(H->Scratch);
  libs::Live<Handle>::destroy(H);
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t Hd, CUstream S) {
  return libs::setHandleStream<Handle>(Hd, S, HandleStatuses);
}
CUSOLVER_API cusolverStatus_t cusolverDnGetStream(cusolverDnHandle_t Hd, CUstream *S) {
  return libs::getHandleStream<Handle>(Hd, S, HandleStatuses);
}
CUSOLVER_API cusolverStatus_t cusolverGetVersion(int *V) { return size(V, 12000); } // cuSOLVER 12.0.x of CUDA 13.0
CUSOLVER_API cusolverStatus_t cusolverGetProperty(libraryPropertyType T, int *V) {
  if (!V)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *V = T == MAJOR_VERSION ? 12 : 0;
  return T == MAJOR_VERSION || T == MINOR_VERSION || T == PATCH_LEVEL ? CUSOLVER_STATUS_SUCCESS
                                                                     : CUSOLVER_STATUS_INVALID_VALUE;
}

#define DN_ALL(p, T, R, orm, org, sy)                                                                                  \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##getrf_bufferSize(cusolverDnHandle_t H, int M, int N, T *, int Lda,     \
                                                                 int *Lw) {                                            \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (M < 0 || N < 0 || Lda < std::max(1, M))                                                                        \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    return size(Lw, 1);                                                                                                \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##getrf(cusolverDnHandle_t H, int M, int N, T *A, int Lda, T *,          \
                                                      int *Ipiv, int *Info) {                                          \
    return getrf<T>(H, M, N, A, Lda, Ipiv, Info);                                                                      \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##getrs(cusolverDnHandle_t H, cublasOperation_t Op, int N, int Nrhs,     \
                                                      const T *A, int Lda, const int *Ipiv, T *B, int Ldb,             \
                                                      int *Info) {                                                     \
    return getrs<T>(H, Op, N, Nrhs, A, Lda, Ipiv, B, Ldb, Info);                                                       \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##potrf_bufferSize(cusolverDnHandle_t H, cublasFillMode_t U, int N, T *, \
                                                                 int Lda, int *Lw) {                                   \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (!validFill(U) || N < 0 || Lda < std::max(1, N))                                                                \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    return size(Lw, 1);                                                                                                \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##potrf(cusolverDnHandle_t H, cublasFillMode_t U, int N, T *A, int Lda,  \
                                                      T *, int, int *Info) {                                           \
    return potrf<T>(H, U, N, A, Lda, Info);                                                                            \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##potrs(cusolverDnHandle_t H, cublasFillMode_t U, int N, int Nrhs,       \
                                                      const T *A, int Lda, T *B, int Ldb, int *Info) {                 \
    return potrs<T>(H, U, N, Nrhs, A, Lda, B, Ldb, Info);                                                              \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##geqrf_bufferSize(cusolverDnHandle_t H, int M, int N, T *, int Lda,     \
                                                                 int *Lw) {                                            \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (M < 0 || N < 0 || Lda < std::max(1, M))                                                                        \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    return size(Lw, geqrfWork<T>(M, N, Lda));                                                                          \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##geqrf(cusolverDnHandle_t H, int M, int N, T *A, int Lda, T *Tau, T *,  \
                                                      int, int *Info) {                                                \
    return geqrf<T>(H, M, N, A, Lda, Tau, Info);                                                                       \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##orm##_bufferSize(                                                      \
      cusolverDnHandle_t H, cublasSideMode_t S, cublasOperation_t Op, int M, int N, int K, const T *, int Lda,        \
      const T *, const T *, int Ldc, int *Lw) {                                                                        \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (M < 0 || N < 0 || K < 0 || !validOp(Op))                                                                       \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    return size(Lw, ormqrWork<T>(S, Op, M, N, K, std::max(Lda, 1), std::max(Ldc, 1)));                                 \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##orm(cusolverDnHandle_t H, cublasSideMode_t S, cublasOperation_t Op,    \
                                                    int M, int N, int K, const T *A, int Lda, const T *Tau, T *C,      \
                                                    int Ldc, T *, int, int *Info) {                                    \
    return ormqr<T>(H, S, Op, M, N, K, A, Lda, Tau, C, Ldc, Info);                                                     \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##org##_bufferSize(cusolverDnHandle_t H, int M, int N, int K, const T *, \
                                                                 int Lda, const T *, int *Lw) {                        \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (M < 0 || N < 0 || N > M || K < 0 || K > N)                                                                     \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    return size(Lw, orgqrWork<T>(M, N, K, std::max(Lda, 1)));                                                          \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##org(cusolverDnHandle_t H, int M, int N, int K, T *A, int Lda,          \
                                                    const T *Tau, T *, int, int *Info) {                               \
    return orgqr<T>(H, M, N, K, A, Lda, Tau, Info);                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##gesvd_bufferSize(cusolverDnHandle_t H, int M, int N, int *Lw) {        \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (M < N || N < 0)                                                                                                \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    return size(Lw, gesvdWork<T>(M, N));                                                                               \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##gesvd(cusolverDnHandle_t H, signed char Ju, signed char Jv, int M,     \
                                                      int N, T *A, int Lda, R *S, T *U, int Ldu, T *Vt, int Ldvt, T *, \
                                                      int, R *, int *Info) {                                           \
    return gesvd<T>(H, Ju, Jv, M, N, A, Lda, S, U, Ldu, Vt, Ldvt, Info);                                               \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##_bufferSize(cusolverDnHandle_t H, cusolverEigMode_t J,             \
                                                                cublasFillMode_t U, int N, const T *, int Lda,          \
                                                                const R *, int *Lw) {                                  \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (N < 0 || !validFill(U) || Lda < std::max(1, N))                                                                \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    return size(Lw, syevdWork<T>(J, U, N, Lda));                                                                       \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy(cusolverDnHandle_t H, cusolverEigMode_t J, cublasFillMode_t U,      \
                                                   int N, T *A, int Lda, R *W, T *, int, int *Info) {                  \
    return syevd<T>(H, J, U, N, A, Lda, W, Info);                                                                      \
  }
DN_ALL(S, float, float, ormqr, orgqr, syevd)
DN_ALL(D, double, double, ormqr, orgqr, syevd)
DN_ALL(C, C32, float, unmqr, ungqr, heevd)
DN_ALL(Z, C64, double, unmqr, ungqr, heevd)
#undef DN_ALL
