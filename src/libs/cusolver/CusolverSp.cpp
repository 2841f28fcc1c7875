//===- CusolverSp.cpp - cusolverSp: sparse linear solves ------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The cusolverSp solvers the CUDA samples use: csrlsvlu, csrlsvqr and
/// csrlsvchol (host and device forms) and csrissym, for S/D/C/Z. The CSR
/// matrix is expanded to a dense one and factored by LAPACK (O(n^2) memory:
/// the sizes these samples use; a sparse direct solver is future work), with
/// cuSOLVER's contract: `singularity` is -1 for a solvable system, else the
/// first index whose pivot is at most `tol` in magnitude (x is then not
/// defined); `reorder` is accepted and ignored. The device forms wait for the
/// handle's stream (singularity is host memory at return); on a GPU their
/// arrays are copied to the host and the solution back.
#include "libs/cusolver/SpInternal.h"

using namespace zluda;
using namespace zluda::cusolver;
using namespace zluda::cusolver::sp;


using namespace zluda;
using namespace zluda::cusolver;

CUSOLVER_API cusolverStatus_t cusolverSpCreate(void **Out) { return libs::createHandle<SpHandle>(Out, HandleStatuses); }
CUSOLVER_API cusolverStatus_t cusolverSpDestroy(void *Hd) {
  return libs::destroyObject<SpHandle>(Hd, CUSOLVER_STATUS_SUCCESS, CUSOLVER_STATUS_NOT_INITIALIZED);
}
CUSOLVER_API cusolverStatus_t cusolverSpSetStream(void *Hd, CUstream S) {
  return libs::setHandleStream<SpHandle>(Hd, S, HandleStatuses);
}
CUSOLVER_API cusolverStatus_t cusolverSpGetStream(void *Hd, CUstream *S) {
  return libs::getHandleStream<SpHandle>(Hd, S, HandleStatuses);
}
CUSOLVER_API cusolverStatus_t cusolverSpXcsrissymHost(void *Hd, int M, int Nnz, cusparseMatDescr_t Descr,
                                                      const int *Row, const int *End, const int *Col, int *IsSym) {
  if (!spFind(Hd))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (M < 0 || Nnz < 0 || !Descr || !IsSym || (M && (!Row || !End)) || (Nnz && !Col))
    return CUSOLVER_STATUS_INVALID_VALUE;
  const int Base = cusparseGetMatIndexBase(Descr);
  std::set<std::pair<int, int>> Entries;
  for (int I = 0; I < M; ++I)
    for (int K = Row[I] - Base; K < End[I] - Base; ++K)
      Entries.insert({I, Col[K] - Base});
  *IsSym = 1;
  for (auto [I, J] : Entries)
    if (!Entries.count({J, I})) {
      *IsSym = 0;
      break;
    }
  return CUSOLVER_STATUS_SUCCESS;
}

#define SP_ALL(p, T, R)                                                                                                \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrlsvluHost(void *H, int N, int Nnz, cusparseMatDescr_t D,            \
                                                             const T *V, const int *Ro, const int *C, const T *B,      \
                                                             R Tol, int, T *X, int *S) {                               \
    return solve<T>(H, Method::Lu, N, Nnz, D, V, Ro, C, B, Tol, X, S, false);                                          \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrlsvqrHost(void *H, int N, int Nnz, cusparseMatDescr_t D,            \
                                                             const T *V, const int *Ro, const int *C, const T *B,      \
                                                             R Tol, int, T *X, int *S) {                               \
    return solve<T>(H, Method::Qr, N, Nnz, D, V, Ro, C, B, Tol, X, S, false);                                          \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrlsvqr(void *H, int N, int Nnz, cusparseMatDescr_t D, const T *V,    \
                                                         const int *Ro, const int *C, const T *B, R Tol, int, T *X,    \
                                                         int *S) {                                                     \
    return solve<T>(H, Method::Qr, N, Nnz, D, V, Ro, C, B, Tol, X, S, true);                                           \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrlsvcholHost(void *H, int N, int Nnz, cusparseMatDescr_t D,          \
                                                               const T *V, const int *Ro, const int *C, const T *B,    \
                                                               R Tol, int, T *X, int *S) {                             \
    return solve<T>(H, Method::Chol, N, Nnz, D, V, Ro, C, B, Tol, X, S, false);                                        \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrlsvchol(void *H, int N, int Nnz, cusparseMatDescr_t D, const T *V,  \
                                                           const int *Ro, const int *C, const T *B, R Tol, int, T *X,  \
                                                           int *S) {                                                   \
    return solve<T>(H, Method::Chol, N, Nnz, D, V, Ro, C, B, Tol, X, S, true);                                         \
  }
SP_ALL(S, float, float)
SP_ALL(D, double, double)
SP_ALL(C, C32, float)
SP_ALL(Z, C64, double)
#undef SP_ALL
