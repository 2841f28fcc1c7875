//===- DnSymmetric.cpp - cuSOLVER: symmetric and batched routines -----------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file sytrf/sytri, potri, batched Cholesky, the generalized eigenproblems.
#include "libs/cusolver/DnInternal.h"

using namespace zluda;
using namespace zluda::cusolver;
using namespace zluda::cusolver::dn;

//===----------------------------------------------------------------------===//
// Symmetric indefinite (sytrf, sytri), Cholesky inverse (potri), batched
// Cholesky (potrfBatched, potrsBatched), the generalized eigenproblems
// (sygvd/hegvd, sygvdx/hegvdx, sygvj/hegvj) and the partial spectrum
// (syevdx/heevdx): LAPACK's routines of the same meaning (sytrf, sytri,
// potri, potrf/potrs, sygvd/hegvd, syevx/heevx, sygvx/hegvx) with cuSOLVER's
// argument order; `info` as LAPACK reports it (cuSOLVER's convention);
// `meig` in host memory (those calls block). The complex sytrf/sytri are
// the complex symmetric (not Hermitian) ones, as cuSOLVER's.
//===----------------------------------------------------------------------===//

/// Workspace queries: LAPACK works on its own, one element asked for.
#define SYM_FORMS(p, T, R, sy, he)                                                                                     \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sytrf_bufferSize(cusolverDnHandle_t H, int N, T *, int Lda, int *Lw) {  \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return N < 0 || Lda < std::max(1, N) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);                                \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sytrf(cusolverDnHandle_t H, cublasFillMode_t U, int N, T *A, int Lda,   \
                                                     int *Ipiv, T *, int, int *Info) {                                 \
    return sytrf<T>(H, U, N, A, Lda, Ipiv, Info);                                                                      \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sytri_bufferSize(cusolverDnHandle_t H, cublasFillMode_t U, int N, T *,  \
                                                                int Lda, const int *, int *Lw) {                       \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return !validFill(U) || N < 0 || Lda < std::max(1, N) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);               \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sytri(cusolverDnHandle_t H, cublasFillMode_t U, int N, T *A, int Lda,   \
                                                     const int *Ipiv, T *, int, int *Info) {                           \
    return sytri<T>(H, U, N, A, Lda, Ipiv, Info);                                                                      \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##potri_bufferSize(cusolverDnHandle_t H, cublasFillMode_t U, int N, T *,  \
                                                                int Lda, int *Lw) {                                    \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return !validFill(U) || N < 0 || Lda < std::max(1, N) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);               \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##potri(cusolverDnHandle_t H, cublasFillMode_t U, int N, T *A, int Lda,   \
                                                     T *, int, int *Info) {                                            \
    return potri<T>(H, U, N, A, Lda, Info);                                                                            \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##potrfBatched(cusolverDnHandle_t H, cublasFillMode_t U, int N,           \
                                                            T *A[], int Lda, int *Info, int Batch) {                   \
    return potrBatched<T>(H, false, U, N, 0, A, Lda, nullptr, 0, Info, Batch);                                         \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##potrsBatched(cusolverDnHandle_t H, cublasFillMode_t U, int N, int Nrhs, \
                                                            T *A[], int Lda, T *B[], int Ldb, int *Info, int Batch) {  \
    return potrBatched<T>(H, true, U, N, Nrhs, A, Lda, B, Ldb, Info, Batch);                                           \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##gvd_bufferSize(                                                     \
      cusolverDnHandle_t H, cusolverEigType_t, cusolverEigMode_t, cublasFillMode_t, int N, const T *, int Lda,         \
      const T *, int Ldb, const R *, int *Lw) {                                                                        \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return N < 0 || Lda < std::max(1, N) || Ldb < std::max(1, N) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);        \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##gvd(cusolverDnHandle_t H, cusolverEigType_t It, cusolverEigMode_t J, \
                                                       cublasFillMode_t U, int N, T *A, int Lda, T *B, int Ldb, R *W,  \
                                                       T *, int, int *Info) {                                          \
    return eigen<T>(H, int(It), J, 0, U, N, A, Lda, B, Ldb, 0, 0, 0, 0, nullptr, W, Info);                             \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##gvdx_bufferSize(                                                    \
      cusolverDnHandle_t H, cusolverEigType_t, cusolverEigMode_t, cusolverEigRange_t, cublasFillMode_t, int N,         \
      const T *, int Lda, const T *, int Ldb, R, R, int, int, int *, const R *, int *Lw) {                             \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return N < 0 || Lda < std::max(1, N) || Ldb < std::max(1, N) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);        \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##gvdx(                                                               \
      cusolverDnHandle_t H, cusolverEigType_t It, cusolverEigMode_t J, cusolverEigRange_t Rg, cublasFillMode_t U,      \
      int N, T *A, int Lda, T *B, int Ldb, R Vl, R Vu, int Il, int Iu, int *Meig, R *W, T *, int, int *Info) {         \
    return eigen<T>(H, int(It), J, int(Rg), U, N, A, Lda, B, Ldb, Vl, Vu, Il, Iu, Meig, W, Info);                      \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##he##evdx_bufferSize(                                                    \
      cusolverDnHandle_t H, cusolverEigMode_t, cusolverEigRange_t, cublasFillMode_t, int N, const T *, int Lda, R, R,  \
      int, int, int *, const R *, int *Lw) {                                                                           \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return N < 0 || Lda < std::max(1, N) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);                                \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##he##evdx(cusolverDnHandle_t H, cusolverEigMode_t J,                     \
                                                        cusolverEigRange_t Rg, cublasFillMode_t U, int N, T *A,        \
                                                        int Lda, R Vl, R Vu, int Il, int Iu, int *Meig, R *W, T *,     \
                                                        int, int *Info) {                                              \
    return eigen<T>(H, 0, J, int(Rg), U, N, A, Lda, nullptr, 0, Vl, Vu, Il, Iu, Meig, W, Info);                        \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##gvj_bufferSize(cusolverDnHandle_t H, cusolverEigType_t,             \
                                                                  cusolverEigMode_t, cublasFillMode_t, int N,          \
                                                                  const T *, int Lda, const T *, int Ldb, const R *,   \
                                                                  int *Lw, syevjInfo_t) {                              \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return N < 0 || Lda < std::max(1, N) || Ldb < std::max(1, N) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);        \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##gvj(cusolverDnHandle_t H, cusolverEigType_t It, cusolverEigMode_t J, \
                                                       cublasFillMode_t U, int N, T *A, int Lda, T *B, int Ldb, R *W,  \
                                                       T *, int, int *Info, syevjInfo_t P) {                           \
    JacobiParams *Jp = jacobiOf(P);                                                                                    \
    if (Jp)                                                                                                            \
      Jp->Batched = false;                                                                                             \
    return eigen<T>(H, int(It), J, 0, U, N, A, Lda, B, Ldb, 0, 0, 0, 0, nullptr, W, Info, Jp);                         \
  }
SYM_FORMS(S, float, float, sy, sy)
SYM_FORMS(D, double, double, sy, sy)
SYM_FORMS(C, C32, float, he, he)
SYM_FORMS(Z, C64, double, he, he)
#undef SYM_FORMS
