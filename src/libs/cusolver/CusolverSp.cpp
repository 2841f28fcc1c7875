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
#include "libs/common/LibSupport.h"
#include "libs/cusolver/Lapack.h"
#include "zluda/cusolver_abi.h"
#include "zluda/cusparse_abi.h"

#include <cmath>
#include <mutex>
#include <set>
#include <vector>

#define CUSOLVER_API extern "C" __attribute__((visibility("default")))

extern "C" {
// From our libcusparse: the descriptor's fields.
cusparseIndexBase_t cusparseGetMatIndexBase(const cusparseMatDescr_t);
cusparseMatrixType_t cusparseGetMatType(const cusparseMatDescr_t);
}

namespace zluda::cusolver {
namespace {

struct SpHandle {
  CUstream Stream = nullptr;
};
SpHandle *spFind(void *H) { return libs::Live<SpHandle>::find(H); }

enum class Method { Lu, Qr, Chol };

/// Solves A x = b for the CSR matrix A (n x n) on host memory.
template <typename T>
cusolverStatus_t solve(void *Hd, Method Mth, int N, int Nnz, cusparseMatDescr_t Descr, const T *Val, const int *Row,
                       const int *Col, const T *B, double Tol, T *X, int *Singularity, bool Device) {
  SpHandle *H = spFind(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (N < 0 || Nnz < 0 || !Descr || !Singularity || (N && (!Row || !B || !X)) || (Nnz && (!Val || !Col)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (cusparseGetMatType(Descr) != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  if (Device && libs::wait(H->Stream)) // the inputs the stream's work produces
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  if (Device && !libs::cpuDevice()) { // a GPU: the arrays through the host
    std::vector<T> HVal(static_cast<size_t>(Nnz)), HB(static_cast<size_t>(N)), HX(static_cast<size_t>(N));
    std::vector<int> HRow(static_cast<size_t>(N) + 1), HCol(static_cast<size_t>(Nnz));
    if ((Nnz && (libs::toHost(HVal.data(), Val, HVal.size() * sizeof(T)) ||
                 libs::toHost(HCol.data(), Col, HCol.size() * sizeof(int)))) ||
        (N && (libs::toHost(HRow.data(), Row, HRow.size() * sizeof(int)) ||
               libs::toHost(HB.data(), B, HB.size() * sizeof(T)))))
      return CUSOLVER_STATUS_EXECUTION_FAILED;
    cusolverStatus_t St = solve<T>(Hd, Mth, N, Nnz, Descr, HVal.data(), HRow.data(), HCol.data(), HB.data(), Tol,
                                   HX.data(), Singularity, false);
    if (St == CUSOLVER_STATUS_SUCCESS && *Singularity < 0 && N && libs::toDevice(X, HX.data(), HX.size() * sizeof(T)))
      return CUSOLVER_STATUS_EXECUTION_FAILED;
    return St;
  }
  const int Base = cusparseGetMatIndexBase(Descr);
  std::vector<T> A(static_cast<size_t>(N) * N, T(0));
  for (int I = 0; I < N; ++I)
    for (int K = Row[I] - Base; K < Row[I + 1] - Base; ++K)
      A[I + static_cast<size_t>(Col[K] - Base) * N] += Val[K];
  std::vector<T> Sol(B, B + N);
  *Singularity = -1;
  if (!N)
    return CUSOLVER_STATUS_SUCCESS;
  int Info = 0, One = 1;
  auto Tiny = [&](T D) { return std::abs(D) <= Tol; };
  if (Mth == Method::Lu) {
    std::vector<int> Piv(static_cast<size_t>(N));
    La<T>::getrf(&N, &N, A.data(), &N, Piv.data(), &Info);
    for (int J = 0; J < N; ++J)
      if (Tiny(A[J + static_cast<size_t>(J) * N])) {
        *Singularity = J;
        return CUSOLVER_STATUS_SUCCESS;
      }
    char Tr = 'N';
    La<T>::getrs(&Tr, &N, &One, A.data(), &N, Piv.data(), Sol.data(), &N, &Info);
  } else if (Mth == Method::Chol) {
    // The lower triangle is used, as cuSOLVER's csrlsvchol.
    char L = 'L';
    La<T>::potrf(&L, &N, A.data(), &N, &Info);
    if (Info > 0) {
      *Singularity = Info - 1;
      return CUSOLVER_STATUS_SUCCESS;
    }
    for (int J = 0; J < N; ++J)
      if (Tiny(A[J + static_cast<size_t>(J) * N])) {
        *Singularity = J;
        return CUSOLVER_STATUS_SUCCESS;
      }
    La<T>::potrs(&L, &N, &One, A.data(), &N, Sol.data(), &N, &Info);
  } else {
    std::vector<T> Tau(static_cast<size_t>(N));
    T Wq{};
    int Lw = -1;
    La<T>::geqrf(&N, &N, A.data(), &N, Tau.data(), &Wq, &Lw, &Info);
    Lw = lworkOf(Wq);
    std::vector<T> W(static_cast<size_t>(Lw));
    La<T>::geqrf(&N, &N, A.data(), &N, Tau.data(), W.data(), &Lw, &Info);
    for (int J = 0; J < N; ++J)
      if (Tiny(A[J + static_cast<size_t>(J) * N])) {
        *Singularity = J;
        return CUSOLVER_STATUS_SUCCESS;
      }
    // x = R^-1 Q^H b
    char S = 'L', Tr = IsComplex<T> ? 'C' : 'T';
    int Lw2 = -1;
    La<T>::ormqr(&S, &Tr, &N, &One, &N, A.data(), &N, Tau.data(), Sol.data(), &N, &Wq, &Lw2, &Info);
    Lw2 = lworkOf(Wq);
    W.resize(static_cast<size_t>(std::max(Lw, Lw2)));
    La<T>::ormqr(&S, &Tr, &N, &One, &N, A.data(), &N, Tau.data(), Sol.data(), &N, W.data(), &Lw2, &Info);
    for (int I = N - 1; I >= 0; --I) {
      T Sum = Sol[static_cast<size_t>(I)];
      for (int J = I + 1; J < N; ++J)
        Sum -= A[I + static_cast<size_t>(J) * N] * Sol[static_cast<size_t>(J)];
      Sol[static_cast<size_t>(I)] = Sum / A[I + static_cast<size_t>(I) * N];
    }
  }
  std::copy(Sol.begin(), Sol.end(), X);
  return CUSOLVER_STATUS_SUCCESS;
}

} // namespace
} // namespace zluda::cusolver

using namespace zluda;
using namespace zluda::cusolver;

CUSOLVER_API cusolverStatus_t cusolverSpCreate(void **Out) {
  if (!Out)
    return CUSOLVER_STATUS_INVALID_VALUE;
  CUcontext Ctx;
  if (libs::ensureContext(Ctx))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  *Out = libs::Live<SpHandle>::add(new SpHandle);
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverSpDestroy(void *Hd) {
  return libs::Live<SpHandle>::destroy(Hd) ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_NOT_INITIALIZED;
}
CUSOLVER_API cusolverStatus_t cusolverSpSetStream(void *Hd, CUstream S) {
  SpHandle *H = spFind(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  H->Stream = S;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverSpGetStream(void *Hd, CUstream *S) {
  SpHandle *H = spFind(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!S)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *S = H->Stream;
  return CUSOLVER_STATUS_SUCCESS;
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
