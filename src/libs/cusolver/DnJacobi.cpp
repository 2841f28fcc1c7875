//===- DnJacobi.cpp - cuSOLVER: Jacobi eigen- and singular values -----------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file syevj, gesvdj, their batched forms and gesvdaStridedBatched.
#include "libs/cusolver/DnInternal.h"

using namespace zluda;
using namespace zluda::cusolver;
using namespace zluda::cusolver::dn;

//===----------------------------------------------------------------------===//
// The Jacobi eigen- and singular-value solvers (syevj, gesvdj, their batched
// forms) and gesvdaStridedBatched. cuSOLVER computes them by Jacobi
// rotations to a tolerance; here LAPACK's direct solvers (syevd, gesvd) give
// the same decompositions to working accuracy whatever tolerance is asked
// for, with the ordering the parameters ask for (sorted, as cuSOLVER's
// default, or left as LAPACK leaves them, which is sorted too). The
// parameter object reports, after a non-batched call, the residual of the
// result (syevj: ||V^H A V - W||_F; gesvdj: ||U^H A V - S||_F, the norm of
// what a Jacobi sweep would still rotate away) and one sweep (a direct
// solve). Batched gesvdj takes matrices of at most 32 rows and columns, as cuSOLVER's (its
// workspace query does not check that, the call does); batched syevj any order.
//===----------------------------------------------------------------------===//

#define JACOBI_PARAMS(Kind, kind, InfoT)                                                                                      \
  CUSOLVER_API cusolverStatus_t cusolverDnCreate##Kind##Info(InfoT *Out) {                                              \
    if (!Out)                                                                                                          \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    *Out = reinterpret_cast<InfoT>(libs::Live<JacobiParams>::add(new JacobiParams));                                    \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDnDestroy##Kind##Info(InfoT P) {                                                \
    return libs::Live<JacobiParams>::destroy(P) ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_INVALID_VALUE;             \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDnX##kind##SetTolerance(InfoT P, double Tol) {                                  \
    JacobiParams *J = jacobiOf(P);                                                                                     \
    if (!J)                                                                                                            \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    J->Tolerance = Tol;                                                                                                \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDnX##kind##SetMaxSweeps(InfoT P, int Sweeps) {                                  \
    JacobiParams *J = jacobiOf(P);                                                                                     \
    if (!J)                                                                                                            \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    J->MaxSweeps = Sweeps;                                                                                             \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDnX##kind##SetSortEig(InfoT P, int Sort) {                                      \
    JacobiParams *J = jacobiOf(P);                                                                                     \
    if (!J)                                                                                                            \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    J->Sort = Sort;                                                                                                    \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDnX##kind##GetResidual(cusolverDnHandle_t H, InfoT P, double *Out) {           \
    JacobiParams *J = jacobiOf(P);                                                                                     \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (!J || !Out)                                                                                                    \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    if (J->Batched)                                                                                                    \
      return CUSOLVER_STATUS_NOT_SUPPORTED; /* as cuSOLVER: none after a batched call */                              \
    *Out = J->Residual;                                                                                                \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDnX##kind##GetSweeps(cusolverDnHandle_t H, InfoT P, int *Out) {                 \
    JacobiParams *J = jacobiOf(P);                                                                                     \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (!J || !Out)                                                                                                    \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    if (J->Batched)                                                                                                    \
      return CUSOLVER_STATUS_NOT_SUPPORTED;                                                                            \
    *Out = J->Sweeps;                                                                                                  \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }
JACOBI_PARAMS(Syevj, syevj, syevjInfo_t)
JACOBI_PARAMS(Gesvdj, gesvdj, gesvdjInfo_t)

/// Workspace sizes: LAPACK runs on its own, so one element is enough (a caller's buffer is only checked for).
#define JACOBI_FORMS(p, T, R, sy)                                                                                      \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##j_bufferSize(cusolverDnHandle_t H, cusolverEigMode_t, cublasFillMode_t, \
                                                                int N, const T *, int Lda, const R *, int *Lw,         \
                                                                syevjInfo_t) {                                         \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return N < 0 || Lda < std::max(1, N) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);                                \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##j(cusolverDnHandle_t H, cusolverEigMode_t J, cublasFillMode_t U,    \
                                                     int N, T *A, int Lda, R *W, T *, int, int *Info, syevjInfo_t P) { \
    return syevj<T>(H, J, U, N, A, Lda, W, Info, jacobiOf(P), 0);                                                      \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##jBatched_bufferSize(cusolverDnHandle_t H, cusolverEigMode_t,        \
                                                                       cublasFillMode_t, int N, const T *, int Lda,    \
                                                                       const R *, int *Lw, syevjInfo_t, int Batch) {   \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return N < 0 || Lda < std::max(1, N) || Batch < 1 ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);                   \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##jBatched(cusolverDnHandle_t H, cusolverEigMode_t J,                 \
                                                            cublasFillMode_t U, int N, T *A, int Lda, R *W, T *, int,  \
                                                            int *Info, syevjInfo_t P, int Batch) {                     \
    if (Batch < 1)                                                                                                     \
      return find(H) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;                                \
    return syevj<T>(H, J, U, N, A, Lda, W, Info, jacobiOf(P), Batch);                                                  \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##gesvdj_bufferSize(cusolverDnHandle_t H, cusolverEigMode_t, int, int M,  \
                                                                 int N, const T *, int Lda, const R *, const T *, int, \
                                                                 const T *, int, int *Lw, gesvdjInfo_t) {             \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return M < 0 || N < 0 || Lda < std::max(1, M) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);                       \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##gesvdj(cusolverDnHandle_t H, cusolverEigMode_t J, int Econ, int M,      \
                                                      int N, T *A, int Lda, R *S, T *U, int Ldu, T *V, int Ldv, T *,   \
                                                      int, int *Info, gesvdjInfo_t P) {                                \
    return gesvdj<T>(H, J, Econ, M, N, A, Lda, S, U, Ldu, V, Ldv, Info, jacobiOf(P), 0);                               \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##gesvdjBatched_bufferSize(                                               \
      cusolverDnHandle_t H, cusolverEigMode_t, int M, int N, const T *, int Lda, const R *, const T *, int,            \
      const T *, int, int *Lw, gesvdjInfo_t, int Batch) {                                                              \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    /* as NVIDIA's: sizes above 32 are refused by the call, not here */                                               \
    return M < 0 || N < 0 || Lda < std::max(1, M) || Batch < 1 ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);          \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##gesvdjBatched(cusolverDnHandle_t H, cusolverEigMode_t J, int M, int N,  \
                                                             T *A, int Lda, R *S, T *U, int Ldu, T *V, int Ldv, T *,   \
                                                             int, int *Info, gesvdjInfo_t P, int Batch) {              \
    if (Batch < 1)                                                                                                     \
      return find(H) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;                                \
    return gesvdj<T>(H, J, 0, M, N, A, Lda, S, U, Ldu, V, Ldv, Info, jacobiOf(P), Batch);                              \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##gesvdaStridedBatched_bufferSize(                                        \
      cusolverDnHandle_t H, cusolverEigMode_t, int Rank, int M, int N, const T *, int Lda, long long, const R *,       \
      long long, const T *, int, long long, const T *, int, long long, int *Lw, int Batch) {                           \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return M < N || N < 1 || Rank < 1 || Rank > N || Lda < M || Batch < 1 ? CUSOLVER_STATUS_INVALID_VALUE             \
                                                                          : size(Lw, 1);                               \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##gesvdaStridedBatched(                                                   \
      cusolverDnHandle_t H, cusolverEigMode_t J, int Rank, int M, int N, const T *A, int Lda, long long Sa, R *S,      \
      long long Ss, T *U, int Ldu, long long Su, T *V, int Ldv, long long Sv, T *, int, int *Info, double *RNrmF,      \
      int Batch) {                                                                                                     \
    return gesvda<T>(H, J, Rank, M, N, A, Lda, Sa, S, Ss, U, Ldu, Su, V, Ldv, Sv, Info, RNrmF, Batch);                 \
  }
JACOBI_FORMS(S, float, float, syev)
JACOBI_FORMS(D, double, double, syev)
JACOBI_FORMS(C, C32, float, heev)
JACOBI_FORMS(Z, C64, double, heev)
#undef JACOBI_FORMS
