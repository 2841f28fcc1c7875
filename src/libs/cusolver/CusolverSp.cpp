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
#include "libs/common/HostCopy.h"
#include "zluda/cusolver_abi.h"
#include "zluda/cusparse_abi.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <set>
#include <functional>
#include <memory>
#include <variant>
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

/// Above this order the solves use a sparse LU (SparseLu) instead of LAPACK on a dense copy.
constexpr int SparseFrom = 1024;
template <typename T>
cusolverStatus_t sparseSolve(Method Mth, int N, int Base, const T *Val, const int *Row, const int *Col, const T *B,
                             double Tol, T *X, int *Singularity);

/// The CSR matrix (m x n, host arrays) as a dense column-major one; duplicates add up.
template <typename T>
std::vector<T> expand(int M, int N, int Base, const T *Val, const int *Row, const int *Col) {
  std::vector<T> A(static_cast<size_t>(M) * N, T(0));
  for (int I = 0; I < M; ++I)
    for (int K = Row[I] - Base; K < Row[I + 1] - Base; ++K)
      A[I + static_cast<size_t>(Col[K] - Base) * M] += Val[K];
  return A;
}

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
  if (N > SparseFrom)
    return sparseSolve(Mth, N, Base, Val, Row, Col, B, Tol, X, Singularity);
  std::vector<T> A = expand(N, N, Base, Val, Row, Col);
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

//===----------------------------------------------------------------------===//
// The rest of cusolverSp's documented API: least squares, eigenvalues,
// orderings, permutation, zero-free diagonal and the batched QR solve.
//===----------------------------------------------------------------------===//

namespace zluda::cusolver {
namespace {


/// True when the CSR pattern is well formed for an m x n matrix.
bool validPattern(int M, int N, int Nnz, int Base, const int *Row, const int *Col) {
  if (Row[0] != Base || Row[M] - Base != Nnz)
    return false;
  for (int I = 0; I < M; ++I)
    if (Row[I + 1] < Row[I])
      return false;
  for (int K = 0; K < Nnz; ++K)
    if (Col[K] - Base < 0 || Col[K] - Base >= N)
      return false;
  return true;
}

void geqp3(int M, int N, float *A, int *P, float *Tau, float *W, int Lw, float *, int *I) {
  sgeqp3_(&M, &N, A, &M, P, Tau, W, &Lw, I);
}
void geqp3(int M, int N, double *A, int *P, double *Tau, double *W, int Lw, double *, int *I) {
  dgeqp3_(&M, &N, A, &M, P, Tau, W, &Lw, I);
}
void geqp3(int M, int N, C32 *A, int *P, C32 *Tau, C32 *W, int Lw, float *Rw, int *I) {
  cgeqp3_(&M, &N, A, &M, P, Tau, W, &Lw, Rw, I);
}
void geqp3(int M, int N, C64 *A, int *P, C64 *Tau, C64 *W, int Lw, double *Rw, int *I) {
  zgeqp3_(&M, &N, A, &M, P, Tau, W, &Lw, Rw, I);
}

/// min ||A x - b|| by QR with column pivoting (A P = Q R): the numerical rank r counts the
/// diagonal entries of R above \p Tol in magnitude and x = P [R11^-1 (Q^H b)(1:r); 0] (the basic
/// solution when A is rank deficient).
template <typename T>
cusolverStatus_t leastSquares(void *Hd, int M, int N, int Nnz, cusparseMatDescr_t Descr, const T *Val, const int *Row,
                              const int *Col, const T *B, double Tol, int *Rank, T *X, int *Perm,
                              typename Real<T>::Type *MinNorm) {
  using R = typename Real<T>::Type;
  if (!spFind(Hd))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (M < 0 || N < 0 || M < N || Nnz < 0 || !Descr || !Rank || !MinNorm || !Row || (M && !B) ||
      (N && (!X || !Perm)) || (Nnz && (!Val || !Col)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (cusparseGetMatType(Descr) != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  const int Base = cusparseGetMatIndexBase(Descr);
  if (!validPattern(M, N, Nnz, Base, Row, Col))
    return CUSOLVER_STATUS_INVALID_VALUE;
  std::vector<T> A = expand(M, N, Base, Val, Row, Col), Sol(B, B + M);
  *Rank = 0;
  *MinNorm = 0;
  if (!N) {
    for (int I = 0; I < M; ++I)
      *MinNorm += std::norm(Sol[I]);
    *MinNorm = std::sqrt(*MinNorm);
    return CUSOLVER_STATUS_SUCCESS;
  }
  std::vector<int> Jpvt(static_cast<size_t>(N), 0);
  std::vector<T> Tau(static_cast<size_t>(N));
  std::vector<R> Rw(2 * static_cast<size_t>(N));
  T Wq{};
  int Info = 0;
  geqp3(M, N, A.data(), Jpvt.data(), Tau.data(), &Wq, -1, Rw.data(), &Info);
  std::vector<T> W(static_cast<size_t>(lworkOf(Wq)));
  geqp3(M, N, A.data(), Jpvt.data(), Tau.data(), W.data(), int(W.size()), Rw.data(), &Info);
  if (Info)
    return CUSOLVER_STATUS_INTERNAL_ERROR;
  int Rk = 0;
  while (Rk < N && std::abs(A[Rk + static_cast<size_t>(Rk) * M]) > Tol)
    ++Rk;
  char S = 'L', Tr = IsComplex<T> ? 'C' : 'T';
  int One = 1, Lw = -1;
  La<T>::ormqr(&S, &Tr, &M, &One, &N, A.data(), &M, Tau.data(), Sol.data(), &M, &Wq, &Lw, &Info);
  Lw = lworkOf(Wq);
  W.resize(static_cast<size_t>(std::max<int>(Lw, int(W.size()))));
  La<T>::ormqr(&S, &Tr, &M, &One, &N, A.data(), &M, Tau.data(), Sol.data(), &M, W.data(), &Lw, &Info);
  // The residual's norm is the part of Q^H b outside the range of R11.
  R Res = 0;
  for (int I = Rk; I < M; ++I)
    Res += std::norm(Sol[static_cast<size_t>(I)]);
  std::vector<T> Y(static_cast<size_t>(N), T(0));
  for (int I = Rk - 1; I >= 0; --I) {
    T Sum = Sol[static_cast<size_t>(I)];
    for (int J = I + 1; J < Rk; ++J)
      Sum -= A[I + static_cast<size_t>(J) * M] * Y[static_cast<size_t>(J)];
    Y[static_cast<size_t>(I)] = Sum / A[I + static_cast<size_t>(I) * M];
  }
  for (int J = 0; J < N; ++J) {
    X[Jpvt[static_cast<size_t>(J)] - 1] = Y[static_cast<size_t>(J)];
    Perm[J] = Jpvt[static_cast<size_t>(J)] - 1;
  }
  *Rank = Rk;
  *MinNorm = std::sqrt(Res);
  return CUSOLVER_STATUS_SUCCESS;
}

/// The shift-inverse power method: x_{k+1} = (A - mu0 I)^-1 x_k normalized, mu = x^H A x, until
/// ||A x - mu x|| <= tol |mu| or maxite steps; (A - mu0 I) is factored once.
template <typename T>
cusolverStatus_t shiftInverse(void *Hd, int M, int Nnz, cusparseMatDescr_t Descr, const T *Val, const int *Row,
                              const int *Col, T Mu0, const T *X0, int MaxIte, double Tol, T *Mu, T *X, bool Device) {
  SpHandle *H = spFind(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (M < 0 || Nnz < 0 || !Descr || MaxIte < 0 || !Mu || (M && (!Row || !X0 || !X)) || (Nnz && (!Val || !Col)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (cusparseGetMatType(Descr) != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  if (Device && libs::wait(H->Stream))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  std::vector<T> HVal, HX;
  std::vector<int> HRow, HCol;
  if (!libs::fetch(HRow, Row, static_cast<size_t>(M) + 1, Device))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  const int Base = cusparseGetMatIndexBase(Descr);
  if (!libs::fetch(HVal, Val, static_cast<size_t>(Nnz), Device) || !libs::fetch(HCol, Col, static_cast<size_t>(Nnz), Device) ||
      !libs::fetch(HX, X0, static_cast<size_t>(M), Device))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  if (!validPattern(M, M, Nnz, Base, HRow.data(), HCol.data()))
    return CUSOLVER_STATUS_INVALID_VALUE;
  std::vector<T> A = expand(M, M, Base, HVal.data(), HRow.data(), HCol.data()), S = A;
  for (int I = 0; I < M; ++I)
    S[I + static_cast<size_t>(I) * M] -= Mu0;
  std::vector<int> Piv(static_cast<size_t>(M));
  int Info = 0, One = 1;
  if (M)
    La<T>::getrf(&M, &M, S.data(), &M, Piv.data(), &Info);
  auto Normalize = [&](std::vector<T> &V) {
    typename Real<T>::Type Nrm = 0;
    for (T E : V)
      Nrm += std::norm(E);
    Nrm = std::sqrt(Nrm);
    if (Nrm > 0)
      for (T &E : V)
        E /= Nrm;
  };
  Normalize(HX);
  T Lambda = Mu0;
  std::vector<T> Ax(static_cast<size_t>(M));
  for (int It = 0; It < MaxIte && M; ++It) {
    if (Info > 0) // mu0 is an eigenvalue: (A - mu0 I) x = 0 has the solution x0 does not give
      break;
    char Tr = 'N';
    La<T>::getrs(&Tr, &M, &One, S.data(), &M, Piv.data(), HX.data(), &M, &Info);
    Normalize(HX);
    T Num = 0;
    for (int I = 0; I < M; ++I) {
      T Sum = 0;
      for (int J = 0; J < M; ++J)
        Sum += A[I + static_cast<size_t>(J) * M] * HX[static_cast<size_t>(J)];
      Ax[static_cast<size_t>(I)] = Sum;
      if constexpr (IsComplex<T>)
        Num += std::conj(HX[static_cast<size_t>(I)]) * Sum;
      else
        Num += HX[static_cast<size_t>(I)] * Sum;
    }
    Lambda = Num;
    double Res = 0;
    for (int I = 0; I < M; ++I)
      Res += std::norm(Ax[static_cast<size_t>(I)] - Lambda * HX[static_cast<size_t>(I)]);
    if (std::sqrt(Res) <= Tol * std::abs(Lambda))
      break;
  }
  std::vector<T> MuV{Lambda};
  if (!libs::store(X, HX, Device) || !libs::store(Mu, MuV, Device))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  return CUSOLVER_STATUS_SUCCESS;
}

/// The number of eigenvalues in the closed box [lb.re, ru.re] x [lb.im, ru.im] (all of A's, by LAPACK's geev in double).
template <typename T>
cusolverStatus_t countEigenvalues(void *Hd, int M, int Nnz, cusparseMatDescr_t Descr, const T *Val, const int *Row,
                                  const int *Col, C64 Lb, C64 Ru, int *Num) {
  if (!spFind(Hd))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (M < 0 || Nnz < 0 || !Descr || !Num || (M && !Row) || (Nnz && (!Val || !Col)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (cusparseGetMatType(Descr) != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  const int Base = cusparseGetMatIndexBase(Descr);
  if (!validPattern(M, M, Nnz, Base, Row, Col))
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Num = 0;
  if (!M)
    return CUSOLVER_STATUS_SUCCESS;
  std::vector<T> At = expand(M, M, Base, Val, Row, Col);
  std::vector<C64> A(At.begin(), At.end()), W(static_cast<size_t>(M)), Work(1);
  std::vector<double> Rw(2 * static_cast<size_t>(M));
  C64 Dummy;
  int One = 1, Lw = -1, Info = 0;
  zgeev_("N", "N", &M, A.data(), &M, W.data(), &Dummy, &One, &Dummy, &One, Work.data(), &Lw, Rw.data(), &Info);
  Lw = lworkOf(Work[0]);
  Work.resize(static_cast<size_t>(Lw));
  zgeev_("N", "N", &M, A.data(), &M, W.data(), &Dummy, &One, &Dummy, &One, Work.data(), &Lw, Rw.data(), &Info);
  if (Info)
    return CUSOLVER_STATUS_INTERNAL_ERROR;
  for (C64 L : W)
    if (L.real() >= Lb.real() && L.real() <= Ru.real() && L.imag() >= Lb.imag() && L.imag() <= Ru.imag())
      ++*Num;
  return CUSOLVER_STATUS_SUCCESS;
}

/// Each adjacency list sorted, without repeats.
void dedupe(std::vector<std::vector<int>> &G) {
  for (auto &Adj : G) {
    std::sort(Adj.begin(), Adj.end());
    Adj.erase(std::unique(Adj.begin(), Adj.end()), Adj.end());
  }
}

/// The adjacency of the symmetrized pattern A + A^T without the diagonal (0-based, sorted).
std::vector<std::vector<int>> symmetricGraph(int N, int Base, const int *Row, const int *Col) {
  std::vector<std::vector<int>> G(static_cast<size_t>(N));
  for (int I = 0; I < N; ++I)
    for (int K = Row[I] - Base; K < Row[I + 1] - Base; ++K) {
      int J = Col[K] - Base;
      if (J != I && J >= 0 && J < N) {
        G[static_cast<size_t>(I)].push_back(J);
        G[static_cast<size_t>(J)].push_back(I);
      }
    }
  dedupe(G);
  return G;
}

/// The column graph of an n x n CSR pattern, the pattern of A^T A: columns sharing a row are neighbours (sorted).
std::vector<std::vector<int>> columnGraph(int N, int Base, const int *Row, const int *Col) {
  std::vector<std::vector<int>> G(static_cast<size_t>(N));
  for (int R = 0; R < N; ++R)
    for (int K = Row[R] - Base; K < Row[R + 1] - Base; ++K)
      for (int K2 = Row[R] - Base; K2 < Row[R + 1] - Base; ++K2)
        if (Col[K] != Col[K2])
          G[size_t(Col[K] - Base)].push_back(Col[K2] - Base);
  dedupe(G);
  return G;
}

/// Breadth-first level structure of the nodes \p In (a component) from \p Start.
std::vector<std::vector<int>> levels(const std::vector<std::vector<int>> &G, int Start, const std::vector<char> &In,
                                     std::vector<int> &Mark, int Stamp) {
  std::vector<std::vector<int>> L{{Start}};
  Mark[static_cast<size_t>(Start)] = Stamp;
  while (true) {
    std::vector<int> Next;
    for (int V : L.back())
      for (int U : G[static_cast<size_t>(V)])
        if (In[static_cast<size_t>(U)] && Mark[static_cast<size_t>(U)] != Stamp) {
          Mark[static_cast<size_t>(U)] = Stamp;
          Next.push_back(U);
        }
    if (Next.empty())
      return L;
    L.push_back(std::move(Next));
  }
}

/// A pseudo-peripheral node of \p Start's component (George and Liu: restart from a node of least degree in the
/// last level while the eccentricity grows).
int peripheral(const std::vector<std::vector<int>> &G, int Start, const std::vector<char> &In, std::vector<int> &Mark,
               int &Stamp) {
  size_t Depth = levels(G, Start, In, Mark, ++Stamp).size();
  for (int Round = 0; Round < 8; ++Round) {
    auto L = levels(G, Start, In, Mark, ++Stamp);
    int Best = L.back()[0];
    for (int V : L.back())
      if (G[static_cast<size_t>(V)].size() < G[static_cast<size_t>(Best)].size())
        Best = V;
    size_t D = levels(G, Best, In, Mark, ++Stamp).size();
    if (D <= Depth)
      break;
    Depth = D;
    Start = Best;
  }
  return Start;
}

/// Reverse Cuthill-McKee: p[new] = old.
std::vector<int> reverseCuthillMcKee(const std::vector<std::vector<int>> &G) {
  const int N = int(G.size());
  std::vector<char> In(static_cast<size_t>(N), 1), Done(static_cast<size_t>(N), 0);
  std::vector<int> Mark(static_cast<size_t>(N), 0), Order;
  int Stamp = 0;
  for (int S = 0; S < N; ++S) {
    if (Done[static_cast<size_t>(S)])
      continue;
    int Root = peripheral(G, S, In, Mark, Stamp);
    size_t Head = Order.size();
    Order.push_back(Root);
    Done[static_cast<size_t>(Root)] = 1;
    while (Head < Order.size()) {
      int V = Order[Head++];
      std::vector<int> Nb;
      for (int U : G[static_cast<size_t>(V)])
        if (!Done[static_cast<size_t>(U)]) {
          Done[static_cast<size_t>(U)] = 1;
          Nb.push_back(U);
        }
      std::stable_sort(Nb.begin(), Nb.end(),
                       [&](int A, int B) { return G[static_cast<size_t>(A)].size() < G[static_cast<size_t>(B)].size(); });
      Order.insert(Order.end(), Nb.begin(), Nb.end());
    }
  }
  std::reverse(Order.begin(), Order.end());
  return Order;
}

/// Minimum degree on the elimination graph (exact external degrees; ties to the lower index): p[new] = old.
std::vector<int> minimumDegree(const std::vector<std::vector<int>> &G0) {
  const int N = int(G0.size());
  std::vector<std::set<int>> G(static_cast<size_t>(N));
  std::set<std::pair<size_t, int>> Queue;
  for (int V = 0; V < N; ++V) {
    G[static_cast<size_t>(V)].insert(G0[static_cast<size_t>(V)].begin(), G0[static_cast<size_t>(V)].end());
    Queue.insert({G[static_cast<size_t>(V)].size(), V});
  }
  std::vector<int> Order;
  Order.reserve(static_cast<size_t>(N));
  while (!Queue.empty()) {
    int V = Queue.begin()->second;
    Queue.erase(Queue.begin());
    Order.push_back(V);
    std::vector<int> Nb(G[static_cast<size_t>(V)].begin(), G[static_cast<size_t>(V)].end());
    for (int U : Nb) {
      auto &Adj = G[static_cast<size_t>(U)];
      Queue.erase({Adj.size(), U});
      Adj.erase(V);
      for (int W : Nb)
        if (W != U)
          Adj.insert(W); // eliminating V makes its neighbours a clique
      Queue.insert({Adj.size(), U});
    }
    G[static_cast<size_t>(V)].clear();
  }
  return Order;
}

/// Appends the nodes \p Nodes in the minimum-degree order of the subgraph they induce.
void minimumDegreeOf(const std::vector<std::vector<int>> &G, const std::vector<int> &Nodes, std::vector<int> &Order) {
  std::vector<int> Local(G.size(), -1);
  for (size_t I = 0; I < Nodes.size(); ++I)
    Local[static_cast<size_t>(Nodes[I])] = int(I);
  std::vector<std::vector<int>> Sub(Nodes.size());
  for (size_t I = 0; I < Nodes.size(); ++I)
    for (int U : G[static_cast<size_t>(Nodes[I])])
      if (Local[static_cast<size_t>(U)] >= 0)
        Sub[I].push_back(Local[static_cast<size_t>(U)]);
  for (int V : minimumDegree(Sub))
    Order.push_back(Nodes[static_cast<size_t>(V)]);
}

/// Nested dissection: each component is split by the middle level of a breadth-first level structure from a
/// pseudo-peripheral node; the halves are ordered first (recursively), the separator last. Parts of at most 32
/// nodes are ordered by minimum degree.
void dissect(const std::vector<std::vector<int>> &G, const std::vector<int> &Nodes, std::vector<char> &In,
             std::vector<int> &Mark, int &Stamp, std::vector<int> &Order) {
  if (Nodes.size() <= 32) {
    minimumDegreeOf(G, Nodes, Order);
    return;
  }
  for (int V : Nodes)
    In[static_cast<size_t>(V)] = 1;
  std::vector<std::vector<int>> Parts;
  std::vector<int> Separator;
  std::vector<char> Seen(G.size(), 0);
  for (int S : Nodes) {
    if (Seen[static_cast<size_t>(S)])
      continue;
    int Root = peripheral(G, S, In, Mark, Stamp);
    auto L = levels(G, Root, In, Mark, ++Stamp);
    std::vector<int> Comp;
    for (auto &Lv : L)
      for (int V : Lv) {
        Seen[static_cast<size_t>(V)] = 1;
        Comp.push_back(V);
      }
    if (L.size() < 3 || Comp.size() <= 32) {
      Parts.push_back(std::move(Comp));
      continue;
    }
    size_t Mid = L.size() / 2;
    std::vector<int> Lo, Hi;
    for (size_t I = 0; I < L.size(); ++I)
      for (int V : L[I])
        (I < Mid ? Lo : I > Mid ? Hi : Separator).push_back(V);
    Parts.push_back(std::move(Lo));
    Parts.push_back(std::move(Hi));
  }
  for (int V : Nodes)
    In[static_cast<size_t>(V)] = 0;
  for (auto &P : Parts)
    if (P.size() == Nodes.size()) { // a component that does not split (a clique, a star): minimum degree
      minimumDegreeOf(G, P, Order);
    } else if (!P.empty()) {
      dissect(G, P, In, Mark, Stamp, Order);
    }
  Order.insert(Order.end(), Separator.begin(), Separator.end());
}

std::vector<int> nestedDissection(const std::vector<std::vector<int>> &G) {
  std::vector<int> All(G.size()), Order, Mark(G.size(), 0);
  for (size_t I = 0; I < G.size(); ++I)
    All[I] = int(I);
  std::vector<char> In(G.size(), 0);
  int Stamp = 0;
  if (!All.empty())
    dissect(G, All, In, Mark, Stamp, Order);
  return Order;
}

enum class Ordering { Rcm, MinDegree, Dissection };

cusolverStatus_t reorder(void *Hd, int N, int Nnz, cusparseMatDescr_t Descr, const int *Row, const int *Col, int *P,
                         Ordering Kind) {
  if (!spFind(Hd))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (N < 0 || Nnz < 0 || !Descr || (N && (!Row || !P)) || (Nnz && !Col))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (cusparseGetMatType(Descr) != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  if (!N)
    return CUSOLVER_STATUS_SUCCESS;
  const int Base = cusparseGetMatIndexBase(Descr);
  if (!validPattern(N, N, Nnz, Base, Row, Col))
    return CUSOLVER_STATUS_INVALID_VALUE;
  auto G = symmetricGraph(N, Base, Row, Col);
  std::vector<int> Order = Kind == Ordering::Rcm         ? reverseCuthillMcKee(G)
                           : Kind == Ordering::MinDegree ? minimumDegree(G)
                                                         : nestedDissection(G);
  std::copy(Order.begin(), Order.end(), P);
  return CUSOLVER_STATUS_SUCCESS;
}

/// A row permutation P with A(P,:) free of zeros on the diagonal where one exists: a maximum matching of
/// columns to rows over the entries whose value is nonzero (augmenting paths, depth first).
template <typename T>
cusolverStatus_t zeroFreeDiagonal(void *Hd, int N, int Nnz, cusparseMatDescr_t Descr, const T *Val, const int *Row,
                                  const int *Col, int *P, int *NumNz) {
  if (!spFind(Hd))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (N < 0 || Nnz < 0 || !Descr || !NumNz || (N && (!Row || !P)) || (Nnz && (!Col || !Val)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (cusparseGetMatType(Descr) != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  *NumNz = 0;
  if (!N)
    return CUSOLVER_STATUS_SUCCESS;
  const int Base = cusparseGetMatIndexBase(Descr);
  if (!validPattern(N, N, Nnz, Base, Row, Col))
    return CUSOLVER_STATUS_INVALID_VALUE;
  // Columns' rows with a nonzero entry.
  std::vector<std::vector<int>> ColRows(static_cast<size_t>(N));
  for (int I = 0; I < N; ++I)
    for (int K = Row[I] - Base; K < Row[I + 1] - Base; ++K)
      if (Val[K] != T(0))
        ColRows[static_cast<size_t>(Col[K] - Base)].push_back(I);
  std::vector<int> RowOf(static_cast<size_t>(N), -1), ColOf(static_cast<size_t>(N), -1), Visit(static_cast<size_t>(N), -1);
  for (int C = 0; C < N; ++C) {
    // Iterative depth-first search for an augmenting path from column C.
    std::vector<std::pair<int, size_t>> Stack{{C, 0}};
    std::vector<int> Via; // the row taken at each level
    bool Found = false;
    while (!Stack.empty() && !Found) {
      auto &[Cc, Next] = Stack.back();
      const auto &Rows = ColRows[static_cast<size_t>(Cc)];
      if (Next == Rows.size()) {
        Stack.pop_back();
        if (!Via.empty())
          Via.pop_back();
        continue;
      }
      int R = Rows[Next++];
      if (Visit[static_cast<size_t>(R)] == C)
        continue;
      Visit[static_cast<size_t>(R)] = C;
      Via.push_back(R);
      if (ColOf[static_cast<size_t>(R)] < 0) {
        Found = true;
        break;
      }
      Stack.push_back({ColOf[static_cast<size_t>(R)], 0});
    }
    if (!Found)
      continue;
    // Flip the path: Stack[k]'s column takes Via[k].
    for (size_t K = 0; K < Via.size(); ++K) {
      int Cc = Stack[K].first, R = Via[K];
      RowOf[static_cast<size_t>(Cc)] = R;
      ColOf[static_cast<size_t>(R)] = Cc;
    }
    ++*NumNz;
  }
  // Structurally singular: the unmatched rows go to the unmatched columns in order.
  int Free = 0;
  for (int C = 0; C < N; ++C) {
    if (RowOf[static_cast<size_t>(C)] < 0) {
      while (ColOf[static_cast<size_t>(Free)] >= 0)
        ++Free;
      RowOf[static_cast<size_t>(C)] = Free;
      ColOf[static_cast<size_t>(Free)] = C;
    }
    P[C] = RowOf[static_cast<size_t>(C)];
  }
  return CUSOLVER_STATUS_SUCCESS;
}

/// A sparse LU factorization P B = L U of a matrix B given by columns (left-looking, Gilbert and Peierls: each
/// column's pattern is the reach of its entries in the graph of L, then partial pivoting among the rows not yet
/// pivotal; without \p Pivot the diagonal is the pivot). L has a unit diagonal, not stored.
template <typename T> struct SparseLu {
  int N = 0;
  std::vector<int> Lp{0}, Li, Up{0}, Ui, PivRow, Pinv;
  std::vector<T> Lx, Ux, Ud;

  /// Returns -1, or the first column whose pivot is at most \p Tol in magnitude (not positive in real part when
  /// \p Positive).
  /// With \p Diag, column k's pivot is row Diag[k] where its magnitude is at least \p Threshold times the largest
  /// (threshold partial pivoting, cusolverSp's pivot_threshold).
  int factor(int Order, const std::vector<int> &Ap, const std::vector<int> &Ai, const std::vector<T> &Ax, double Tol,
             bool Pivot, bool Positive, const std::vector<int> *Diag = nullptr, double Threshold = 1) {
    N = Order;
    Pinv.assign(size_t(N), -1);
    PivRow.assign(size_t(N), -1);
    std::vector<T> X(size_t(N), T(0));
    std::vector<int> Mark(size_t(N), -1), Pattern, Reach, Stack, Next;
    for (int K = 0; K < N; ++K) {
      // The columns of L the column depends on, in topological order (depth first, reversed postorder).
      Reach.clear();
      for (int P = Ap[size_t(K)]; P < Ap[size_t(K) + 1]; ++P) {
        const int J0 = Pinv[size_t(Ai[size_t(P)])];
        if (J0 < 0 || Mark[size_t(J0)] == K)
          continue;
        Stack.assign(1, J0);
        Next.assign(1, Lp[size_t(J0)]);
        Mark[size_t(J0)] = K;
        while (!Stack.empty()) {
          const int J = Stack.back();
          int &At = Next.back();
          bool Down = false;
          while (At < Lp[size_t(J) + 1]) {
            const int C = Pinv[size_t(Li[size_t(At++)])];
            if (C >= 0 && Mark[size_t(C)] != K) {
              Mark[size_t(C)] = K;
              Stack.push_back(C);
              Next.push_back(Lp[size_t(C)]);
              Down = true;
              break;
            }
          }
          if (!Down) {
            Reach.push_back(J);
            Stack.pop_back();
            Next.pop_back();
          }
        }
      }
      std::reverse(Reach.begin(), Reach.end());
      // x = L \ B(:, k) on that pattern.
      Pattern.clear();
      for (int P = Ap[size_t(K)]; P < Ap[size_t(K) + 1]; ++P) {
        const int R = Ai[size_t(P)];
        if (X[size_t(R)] == T(0))
          Pattern.push_back(R);
        X[size_t(R)] += Ax[size_t(P)];
      }
      for (int J : Reach) {
        const T Xj = X[size_t(PivRow[size_t(J)])];
        Ui.push_back(J);
        Ux.push_back(Xj);
        for (int P = Lp[size_t(J)]; P < Lp[size_t(J) + 1]; ++P) {
          const int R = Li[size_t(P)];
          if (X[size_t(R)] == T(0))
            Pattern.push_back(R);
          X[size_t(R)] -= Lx[size_t(P)] * Xj;
        }
      }
      int Piv = -1;
      for (int R : Pattern)
        if (Pinv[size_t(R)] < 0 &&
            (Pivot ? (Piv < 0 || std::abs(X[size_t(R)]) > std::abs(X[size_t(Piv)])) : R == K))
          Piv = R;
      if (Pivot && Diag && Piv >= 0) {
        const int Dr = (*Diag)[size_t(K)];
        if (Dr != Piv && Pinv[size_t(Dr)] < 0 && X[size_t(Dr)] != T(0) &&
            std::abs(X[size_t(Dr)]) >= Threshold * std::abs(X[size_t(Piv)]))
          Piv = Dr;
      }
      const T D = Piv < 0 ? T(0) : X[size_t(Piv)];
      if (std::abs(D) <= Tol || (Positive && !(std::real(D) > 0))) {
        for (int R : Pattern)
          X[size_t(R)] = T(0);
        return K;
      }
      Pinv[size_t(Piv)] = K;
      PivRow[size_t(K)] = Piv;
      Ud.push_back(D);
      Up.push_back(int(Ui.size()));
      for (int R : Pattern) {
        if (Pinv[size_t(R)] < 0 && X[size_t(R)] != T(0)) {
          Li.push_back(R);
          Lx.push_back(X[size_t(R)] / D);
        }
        X[size_t(R)] = T(0);
      }
      Lp.push_back(int(Li.size()));
    }
    return -1;
  }

  /// B x = b: the solution by columns of B.
  std::vector<T> solve(std::vector<T> Y) const {
    std::vector<T> Z(static_cast<size_t>(N));
    for (int K = 0; K < N; ++K) {
      const T V = Y[size_t(PivRow[size_t(K)])];
      Z[size_t(K)] = V;
      for (int P = Lp[size_t(K)]; P < Lp[size_t(K) + 1]; ++P)
        Y[size_t(Li[size_t(P)])] -= Lx[size_t(P)] * V;
    }
    for (int K = N - 1; K >= 0; --K) {
      Z[size_t(K)] /= Ud[size_t(K)];
      for (int P = Up[size_t(K)]; P < Up[size_t(K) + 1]; ++P)
        Z[size_t(Ui[size_t(P)])] -= Ux[size_t(P)] * Z[size_t(K)];
    }
    return Z;
  }
};

template <typename T> T conjOf(T V) {
  if constexpr (IsComplex<T>)
    return std::conj(V);
  else
    return V;
}

/// A CSR matrix (host arrays) by columns; \p Hermitian: the matrix its lower triangle defines (the upper one the
/// conjugate transpose), as the Cholesky solvers read it.
template <typename T>
std::vector<std::vector<std::pair<int, T>>> columnsOf(int N, int Base, const T *Val, const int *Row, const int *Col,
                                                      bool Hermitian) {
  std::vector<std::vector<std::pair<int, T>>> Cols(static_cast<size_t>(N));
  for (int I = 0; I < N; ++I)
    for (int K = Row[I] - Base; K < Row[I + 1] - Base; ++K) {
      const int J = Col[K] - Base;
      if (!Hermitian) {
        Cols[size_t(J)].push_back({I, Val[K]});
      } else if (J <= I) {
        Cols[size_t(J)].push_back({I, Val[K]});
        if (J != I)
          Cols[size_t(I)].push_back({J, conjOf(Val[K])});
      }
    }
  return Cols;
}
/// The adjacency (without the diagonal) of a matrix given by columns.
template <typename T> std::vector<std::vector<int>> patternOf(const std::vector<std::vector<std::pair<int, T>>> &Cols) {
  std::vector<std::vector<int>> G(Cols.size());
  for (size_t J = 0; J < Cols.size(); ++J)
    for (auto &E : Cols[J])
      if (size_t(E.first) != J)
        G[J].push_back(E.first);
  return G;
}
/// Compressed columns of the matrix with its columns in order \p P and, with \p RowInv, its rows too.
template <typename T>
void permuted(const std::vector<std::vector<std::pair<int, T>>> &Cols, const std::vector<int> &P,
              const std::vector<int> *RowInv, std::vector<int> &Ap, std::vector<int> &Ai, std::vector<T> &Ax) {
  Ap.assign(1, 0);
  Ai.clear();
  Ax.clear();
  for (int J : P) {
    for (auto &E : Cols[size_t(J)]) {
      Ai.push_back(RowInv ? (*RowInv)[size_t(E.first)] : E.first);
      Ax.push_back(E.second);
    }
    Ap.push_back(int(Ai.size()));
  }
}

/// The sparse path of csrlsvlu/qr/chol (order above SparseFrom, where a dense copy would not fit): a reverse
/// Cuthill-McKee ordering keeps the fill near a band, then a sparse LU with partial pivoting of A with its columns
/// so ordered (LU, QR: the same solution; the singularity is the first pivot at most tol) or, for Cholesky, of the
/// Hermitian matrix A's lower triangle defines, ordered symmetrically, without pivoting (pivots must be positive,
/// their square roots above tol). The singularity index is the original column of the failing pivot.
template <typename T>
cusolverStatus_t sparseSolve(Method Mth, int N, int Base, const T *Val, const int *Row, const int *Col, const T *B,
                             double Tol, T *X, int *Singularity) {
  if (!validPattern(N, N, Row[N] - Base, Base, Row, Col))
    return CUSOLVER_STATUS_INVALID_VALUE;
  auto Cols = columnsOf(N, Base, Val, Row, Col, Mth == Method::Chol);
  const bool Chol = Mth == Method::Chol;
  // The ordering: Cholesky's is symmetric, from the pattern of A (then Hermitian); LU's permutes the columns only
  // (partial pivoting picks the rows), from the pattern of A^T A: columns sharing a row are neighbours.
  std::vector<std::vector<int>> G = Chol ? patternOf(Cols) : columnGraph(N, Base, Row, Col);
  if (Chol)
    dedupe(G);
  const std::vector<int> P = reverseCuthillMcKee(G); // P[new] = old
  std::vector<int> Inv(static_cast<size_t>(N));
  for (int I = 0; I < N; ++I)
    Inv[size_t(P[size_t(I)])] = I;
  // B = A(P, P) (Cholesky) or A(:, P) (LU) by columns.
  std::vector<int> Ap, Ai;
  std::vector<T> Ax;
  permuted(Cols, P, Chol ? &Inv : nullptr, Ap, Ai, Ax);
  SparseLu<T> F;
  // Cholesky's pivots are the squares of L's diagonal: compare against tol^2.
  const int Bad = F.factor(N, Ap, Ai, Ax, Chol ? Tol * Tol : Tol, !Chol, Chol);
  if (Bad >= 0) {
    *Singularity = P[size_t(Bad)];
    return CUSOLVER_STATUS_SUCCESS;
  }
  std::vector<T> Pb(B, B + N);
  if (Chol)
    for (int I = 0; I < N; ++I)
      Pb[size_t(I)] = B[P[size_t(I)]];
  std::vector<T> Z = F.solve(std::move(Pb));
  for (int I = 0; I < N; ++I)
    X[P[size_t(I)]] = Z[size_t(I)];
  *Singularity = -1;
  return CUSOLVER_STATUS_SUCCESS;
}

/// csrqrInfo_t: the batched QR's sizes (XcsrqrAnalysisBatched) and the low-level QR's state (csrqr*, host and
/// device forms): the pattern from the analysis, the shifted values from the setup, the factors' solve.
struct CsrqrInfo {
  int M = -1, N = -1, Nnz = -1;
  bool Host = false; ///< made by cusolverSpCreateCsrqrInfoHost
  int Base = 0;
  std::vector<int> Row, Col;
  std::shared_ptr<void> Values;                          ///< A - mu I on the pattern (std::vector<T>)
  std::function<bool(const void *, void *)> Solve;       ///< min ||(A - mu I) x - b||, host arrays
  std::function<int(double)> ZeroPivot;                  ///< the first diagonal of R (U) at most tol, or -1
};

/// Batched least squares (m >= n) of matrices sharing one pattern: each by LAPACK's gels on its dense form.
template <typename T>
cusolverStatus_t qrBatched(void *Hd, int M, int N, int Nnz, cusparseMatDescr_t Descr, const T *Val, const int *Row,
                           const int *Col, const T *B, T *X, int Batch, void *InfoP) {
  SpHandle *H = spFind(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  CsrqrInfo *Info = libs::Live<CsrqrInfo>::find(InfoP);
  if (M < 0 || N < 0 || M < N || Nnz < 0 || Batch < 0 || !Descr || !Info || (M && (!Row || !B)) || (N && !X) ||
      (Nnz && (!Val || !Col)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (cusparseGetMatType(Descr) != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  if (Info->M != M || Info->N != N || Info->Nnz != Nnz)
    return CUSOLVER_STATUS_INVALID_VALUE; // cusolverSpXcsrqrAnalysisBatched first, with these sizes
  if (libs::wait(H->Stream))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  std::vector<int> HRow, HCol;
  std::vector<T> HVal, HB;
  if (!libs::fetch(HRow, Row, static_cast<size_t>(M) + 1, true) || !libs::fetch(HCol, Col, static_cast<size_t>(Nnz), true) ||
      !libs::fetch(HVal, Val, static_cast<size_t>(Nnz) * Batch, true) || !libs::fetch(HB, B, static_cast<size_t>(M) * Batch, true))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  const int Base = cusparseGetMatIndexBase(Descr);
  if (!validPattern(M, N, Nnz, Base, HRow.data(), HCol.data()))
    return CUSOLVER_STATUS_INVALID_VALUE;
  std::vector<T> HX(static_cast<size_t>(N) * Batch);
  bool Failed = false;
  std::mutex Mu;
  libs::parallelFor(Batch, [&](int64_t J) {
    std::vector<T> A = expand(M, N, Base, HVal.data() + static_cast<size_t>(J) * Nnz, HRow.data(), HCol.data());
    std::vector<T> Rhs(HB.begin() + J * M, HB.begin() + (J + 1) * M);
    int One = 1, Lw = -1, In = 0, Ld = std::max(M, 1);
    T Wq{};
    La<T>::gels(&M, &N, &One, A.data(), &Ld, Rhs.data(), &Ld, &Wq, &Lw, &In);
    std::vector<T> W(static_cast<size_t>(lworkOf(Wq)));
    Lw = int(W.size());
    La<T>::gels(&M, &N, &One, A.data(), &Ld, Rhs.data(), &Ld, W.data(), &Lw, &In);
    if (In) {
      std::lock_guard<std::mutex> G(Mu);
      Failed = true; // a zero diagonal entry of R: A is rank deficient
    }
    std::copy(Rhs.begin(), Rhs.begin() + N, HX.begin() + J * N);
  });
  if (!libs::store(X, HX, true))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  return Failed ? CUSOLVER_STATUS_INTERNAL_ERROR : CUSOLVER_STATUS_SUCCESS;
}

} // namespace
} // namespace zluda::cusolver

CUSOLVER_API cusolverStatus_t cusolverSpXcsrsymrcmHost(void *H, int N, int Nnz, cusparseMatDescr_t D, const int *Row,
                                                       const int *Col, int *P) {
  return reorder(H, N, Nnz, D, Row, Col, P, Ordering::Rcm);
}
CUSOLVER_API cusolverStatus_t cusolverSpXcsrsymmdqHost(void *H, int N, int Nnz, cusparseMatDescr_t D, const int *Row,
                                                       const int *Col, int *P) {
  return reorder(H, N, Nnz, D, Row, Col, P, Ordering::MinDegree);
}
CUSOLVER_API cusolverStatus_t cusolverSpXcsrsymamdHost(void *H, int N, int Nnz, cusparseMatDescr_t D, const int *Row,
                                                       const int *Col, int *P) {
  return reorder(H, N, Nnz, D, Row, Col, P, Ordering::MinDegree);
}
CUSOLVER_API cusolverStatus_t cusolverSpXcsrmetisndHost(void *H, int N, int Nnz, cusparseMatDescr_t D, const int *Row,
                                                        const int *Col, const int64_t *, int *P) {
  return reorder(H, N, Nnz, D, Row, Col, P, Ordering::Dissection);
}

CUSOLVER_API cusolverStatus_t cusolverSpXcsrperm_bufferSizeHost(void *Hd, int M, int N, int Nnz,
                                                                cusparseMatDescr_t D, const int *Row, const int *Col,
                                                                const int *P, const int *Q, size_t *Bytes) {
  if (!spFind(Hd))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (M < 0 || N < 0 || Nnz < 0 || !D || !Bytes || (M && (!Row || !P)) || (N && !Q) || (Nnz && !Col))
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Bytes = sizeof(int) * (static_cast<size_t>(M) + N + 1 + 2 * static_cast<size_t>(Nnz)); // our copies' size
  return CUSOLVER_STATUS_SUCCESS;
}

/// B = P A Q^T in place: B(i, j) = A(p[i], q[j]); each row's columns ascending; map permuted along with the entries.
CUSOLVER_API cusolverStatus_t cusolverSpXcsrpermHost(void *Hd, int M, int N, int Nnz, cusparseMatDescr_t D, int *Row,
                                                     int *Col, const int *P, const int *Q, int *Map, void *) {
  if (!spFind(Hd))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (M < 0 || N < 0 || Nnz < 0 || !D || (M && (!Row || !P)) || (N && !Q) || (Nnz && (!Col || !Map)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (cusparseGetMatType(D) != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  const int Base = cusparseGetMatIndexBase(D);
  if (!validPattern(M, N, Nnz, Base, Row, Col))
    return CUSOLVER_STATUS_INVALID_VALUE;
  std::vector<int> Qinv(static_cast<size_t>(N), -1);
  for (int J = 0; J < N; ++J) {
    if (Q[J] < 0 || Q[J] >= N || Qinv[static_cast<size_t>(Q[J])] >= 0)
      return CUSOLVER_STATUS_INVALID_VALUE; // not a permutation
    Qinv[static_cast<size_t>(Q[J])] = J;
  }
  std::vector<char> Used(static_cast<size_t>(M), 0);
  for (int I = 0; I < M; ++I) {
    if (P[I] < 0 || P[I] >= M || Used[static_cast<size_t>(P[I])])
      return CUSOLVER_STATUS_INVALID_VALUE;
    Used[static_cast<size_t>(P[I])] = 1;
  }
  std::vector<int> NewRow(static_cast<size_t>(M) + 1), NewCol, NewMap;
  NewCol.reserve(static_cast<size_t>(Nnz));
  NewMap.reserve(static_cast<size_t>(Nnz));
  NewRow[0] = Base;
  std::vector<std::pair<int, int>> Entries;
  for (int I = 0; I < M; ++I) {
    int Src = P[I];
    Entries.clear();
    for (int K = Row[Src] - Base; K < Row[Src + 1] - Base; ++K)
      Entries.push_back({Qinv[static_cast<size_t>(Col[K] - Base)], Map[K]});
    std::stable_sort(Entries.begin(), Entries.end(), [](auto A, auto B) { return A.first < B.first; });
    for (auto [C, Mp] : Entries) {
      NewCol.push_back(C + Base);
      NewMap.push_back(Mp);
    }
    NewRow[static_cast<size_t>(I) + 1] = int(NewCol.size()) + Base;
  }
  std::copy(NewRow.begin(), NewRow.end(), Row);
  std::copy(NewCol.begin(), NewCol.end(), Col);
  std::copy(NewMap.begin(), NewMap.end(), Map);
  return CUSOLVER_STATUS_SUCCESS;
}

CUSOLVER_API cusolverStatus_t cusolverSpCreateCsrqrInfo(void **Out) {
  if (!Out)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Out = libs::Live<CsrqrInfo>::add(new CsrqrInfo);
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverSpDestroyCsrqrInfo(void *Info) {
  return libs::Live<CsrqrInfo>::destroy(Info) ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_INVALID_VALUE;
}
CUSOLVER_API cusolverStatus_t cusolverSpXcsrqrAnalysisBatched(void *Hd, int M, int N, int Nnz, cusparseMatDescr_t D,
                                                              const int *Row, const int *Col, void *InfoP) {
  if (!spFind(Hd))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  CsrqrInfo *Info = libs::Live<CsrqrInfo>::find(InfoP);
  if (M < 0 || N < 0 || M < N || Nnz < 0 || !D || !Info || (M && !Row) || (Nnz && !Col))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (cusparseGetMatType(D) != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  Info->M = M;
  Info->N = N;
  Info->Nnz = Nnz;
  return CUSOLVER_STATUS_SUCCESS;
}

#define SP_MORE(p, T, R, Cx)                                                                                           \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrlsqvqrHost(void *H, int M, int N, int Nnz, cusparseMatDescr_t D,    \
                                                              const T *V, const int *Ro, const int *C, const T *B,     \
                                                              R Tol, int *Rank, T *X, int *P, R *MinNorm) {            \
    return leastSquares<T>(H, M, N, Nnz, D, V, Ro, C, B, Tol, Rank, X, P, MinNorm);                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csreigvsiHost(void *H, int M, int Nnz, cusparseMatDescr_t D,           \
                                                              const T *V, const int *Ro, const int *C, T Mu0,          \
                                                              const T *X0, int MaxIte, R Tol, T *Mu, T *X) {           \
    return shiftInverse<T>(H, M, Nnz, D, V, Ro, C, Mu0, X0, MaxIte, Tol, Mu, X, false);                                \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csreigvsi(void *H, int M, int Nnz, cusparseMatDescr_t D, const T *V,   \
                                                          const int *Ro, const int *C, T Mu0, const T *X0, int MaxIte, \
                                                          R Tol, T *Mu, T *X) {                                        \
    return shiftInverse<T>(H, M, Nnz, D, V, Ro, C, Mu0, X0, MaxIte, Tol, Mu, X, true);                                 \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csreigsHost(void *H, int M, int Nnz, cusparseMatDescr_t D, const T *V, \
                                                            const int *Ro, const int *C, Cx Lb, Cx Ru, int *Num) {     \
    return countEigenvalues<T>(H, M, Nnz, D, V, Ro, C, C64(Lb), C64(Ru), Num);                                        \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrzfdHost(void *H, int N, int Nnz, cusparseMatDescr_t D, const T *V,  \
                                                           const int *Ro, const int *C, int *P, int *NumNz) {          \
    return zeroFreeDiagonal<T>(H, N, Nnz, D, V, Ro, C, P, NumNz);                                                      \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrqrBufferInfoBatched(                                                 \
      void *Hd, int M, int N, int Nnz, cusparseMatDescr_t D, const T *, const int *, const int *, int Batch,          \
      void *InfoP, size_t *Internal, size_t *Work) {                                                                   \
    if (!spFind(Hd))                                                                                                   \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (M < 0 || N < 0 || Nnz < 0 || Batch < 0 || !D || !Internal || !Work ||                                          \
        !libs::Live<CsrqrInfo>::find(InfoP))                                                                           \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    /* Host copies only: no device memory is needed. */                                                                \
    *Internal = 0;                                                                                                     \
    *Work = 0;                                                                                                         \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrqrsvBatched(void *H, int M, int N, int Nnz, cusparseMatDescr_t D,   \
                                                               const T *V, const int *Ro, const int *C, const T *B,    \
                                                               T *X, int Batch, void *Info, void *) {                  \
    return qrBatched<T>(H, M, N, Nnz, D, V, Ro, C, B, X, Batch, Info);                                                 \
  }
SP_MORE(S, float, float, C32)
SP_MORE(D, double, double, C64)
SP_MORE(C, C32, float, C32)
SP_MORE(Z, C64, double, C64)
#undef SP_MORE

//===----------------------------------------------------------------------===//
// The low-level LU on the host (cusolverSp_LOWLEVEL_PREVIEW.h, csrlu*Host: the
// CUDA samples' first factorization before cusolverRf): SparseLu with the
// columns in reverse Cuthill-McKee order of A^T A, threshold partial pivoting;
// P A Q^T = L U extracted with L's unit diagonal stored.
//===----------------------------------------------------------------------===//
namespace zluda::cusolver {
namespace {
struct CsrluInfo {
  int N = -1, Nnz = -1;
  std::vector<int> Q; ///< column order: column j of A Q^T is A's column Q[j]
  std::variant<std::monostate, SparseLu<float>, SparseLu<double>, SparseLu<C32>, SparseLu<C64>> F;
  int Failed = -1; ///< a column whose pivot was exactly zero (the factorization stopped there)
};

template <typename T>
cusolverStatus_t luFactor(void *Hd, int N, int Nnz, cusparseMatDescr_t Descr, const T *Val, const int *Row,
                          const int *Col, void *InfoP, double Threshold) {
  if (!spFind(Hd))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  auto *I = libs::Live<CsrluInfo>::find(InfoP);
  if (!I || !Descr || N < 0 || Nnz < 0 || (N && !Row) || (Nnz && (!Val || !Col)) || !(Threshold >= 0 && Threshold <= 1))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (I->N != N || I->Nnz != Nnz)
    return CUSOLVER_STATUS_INVALID_VALUE; // cusolverSpXcsrluAnalysisHost first, with these sizes
  const int Base = cusparseGetMatIndexBase(Descr);
  if (!validPattern(N, N, Nnz, Base, Row, Col))
    return CUSOLVER_STATUS_INVALID_VALUE;
  std::vector<int> Ap, Ai;
  std::vector<T> Ax;
  permuted(columnsOf(N, Base, Val, Row, Col, false), I->Q, nullptr, Ap, Ai, Ax);
  SparseLu<T> F;
  I->Failed = F.factor(N, Ap, Ai, Ax, 0, true, false, &I->Q, Threshold);
  I->F = std::move(F);
  return CUSOLVER_STATUS_SUCCESS;
}

template <typename T> SparseLu<T> *luOf(void *Hd, void *InfoP, CsrluInfo *&I) {
  I = spFind(Hd) ? libs::Live<CsrluInfo>::find(InfoP) : nullptr;
  return I ? std::get_if<SparseLu<T>>(&I->F) : nullptr;
}

template <typename T>
cusolverStatus_t luZeroPivot(void *Hd, void *InfoP, double Tol, int *Position) {
  if (!spFind(Hd))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  CsrluInfo *I;
  SparseLu<T> *F = luOf<T>(Hd, InfoP, I);
  if (!F || !Position)
    return CUSOLVER_STATUS_INVALID_VALUE; // no factorization of this type yet
  *Position = I->Failed;
  if (*Position < 0)
    for (int K = 0; K < F->N; ++K)
      if (std::abs(F->Ud[size_t(K)]) <= Tol) {
        *Position = K;
        break;
      }
  return CUSOLVER_STATUS_SUCCESS;
}

template <typename T> cusolverStatus_t luSolve(void *Hd, int N, const T *B, T *X, void *InfoP) {
  if (!spFind(Hd))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  CsrluInfo *I;
  SparseLu<T> *F = luOf<T>(Hd, InfoP, I);
  if (!F || N != I->N || (N && (!B || !X)) || I->Failed >= 0)
    return CUSOLVER_STATUS_INVALID_VALUE;
  std::vector<T> Z = F->solve(std::vector<T>(B, B + N));
  for (int J = 0; J < N; ++J)
    X[I->Q[size_t(J)]] = Z[size_t(J)];
  return CUSOLVER_STATUS_SUCCESS;
}

/// Rows of a factor given by columns as CSR with base \p Base (columns ascending).
template <typename T>
void toCsr(int N, const std::vector<std::vector<std::pair<int, T>>> &ByRow, int Base, T *Val, int *Row, int *Col) {
  int K = 0;
  Row[0] = Base;
  for (int R = 0; R < N; ++R) {
    auto Entries = ByRow[size_t(R)];
    std::sort(Entries.begin(), Entries.end(), [](auto &A, auto &B) { return A.first < B.first; });
    for (auto &[C, V] : Entries) {
      Col[K] = C + Base;
      Val[K++] = V;
    }
    Row[R + 1] = K + Base;
  }
}

template <typename T>
cusolverStatus_t luExtract(void *Hd, int *P, int *Q, cusparseMatDescr_t DL, T *Lv, int *Lr, int *Lc,
                           cusparseMatDescr_t DU, T *Uv, int *Ur, int *Uc, void *InfoP) {
  if (!spFind(Hd))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  CsrluInfo *I;
  SparseLu<T> *F = luOf<T>(Hd, InfoP, I);
  const int N = I ? I->N : 0;
  if (!F || !DL || !DU || I->Failed >= 0 || (N && (!P || !Q || !Lv || !Lr || !Lc || !Uv || !Ur || !Uc)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  std::vector<std::vector<std::pair<int, T>>> L(static_cast<size_t>(N)), U(static_cast<size_t>(N));
  for (int K = 0; K < N; ++K) {
    L[size_t(K)].push_back({K, T(1)}); // the unit diagonal, stored
    for (int Pp = F->Lp[size_t(K)]; Pp < F->Lp[size_t(K) + 1]; ++Pp)
      L[size_t(F->Pinv[size_t(F->Li[size_t(Pp)])])].push_back({K, F->Lx[size_t(Pp)]});
    for (int Pp = F->Up[size_t(K)]; Pp < F->Up[size_t(K) + 1]; ++Pp)
      U[size_t(F->Ui[size_t(Pp)])].push_back({K, F->Ux[size_t(Pp)]});
    U[size_t(K)].push_back({K, F->Ud[size_t(K)]});
  }
  toCsr(N, L, cusparseGetMatIndexBase(DL), Lv, Lr, Lc);
  toCsr(N, U, cusparseGetMatIndexBase(DU), Uv, Ur, Uc);
  std::copy(F->PivRow.begin(), F->PivRow.end(), P);
  std::copy(I->Q.begin(), I->Q.end(), Q);
  return CUSOLVER_STATUS_SUCCESS;
}
} // namespace
} // namespace zluda::cusolver

CUSOLVER_API cusolverStatus_t cusolverSpCreateCsrluInfoHost(void **Out) {
  if (!Out)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Out = libs::Live<CsrluInfo>::add(new CsrluInfo);
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverSpDestroyCsrluInfoHost(void *I) {
  return libs::Live<CsrluInfo>::destroy(I) ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_INVALID_VALUE;
}
/// The column order from A's pattern (reverse Cuthill-McKee of A^T A).
CUSOLVER_API cusolverStatus_t cusolverSpXcsrluAnalysisHost(void *Hd, int N, int Nnz, cusparseMatDescr_t Descr,
                                                           const int *Row, const int *Col, void *InfoP) {
  if (!spFind(Hd))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  auto *I = libs::Live<CsrluInfo>::find(InfoP);
  if (!I || !Descr || N < 0 || Nnz < 0 || (N && !Row) || (Nnz && !Col))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (cusparseGetMatType(Descr) != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  const int Base = cusparseGetMatIndexBase(Descr);
  if (!validPattern(N, N, Nnz, Base, Row, Col))
    return CUSOLVER_STATUS_INVALID_VALUE;
  I->N = N;
  I->Nnz = Nnz;
  I->Q = reverseCuthillMcKee(columnGraph(N, Base, Row, Col));
  I->F = std::monostate{};
  I->Failed = -1;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverSpXcsrluNnzHost(void *Hd, int *NnzL, int *NnzU, void *InfoP) {
  if (!spFind(Hd))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  auto *I = libs::Live<CsrluInfo>::find(InfoP);
  if (!I || !NnzL || !NnzU || I->F.index() == 0 || I->Failed >= 0)
    return CUSOLVER_STATUS_INVALID_VALUE;
  std::visit(
      [&](auto &F) {
        if constexpr (!std::is_same_v<std::decay_t<decltype(F)>, std::monostate>) {
          *NnzL = int(F.Li.size()) + F.N; // the unit diagonal is stored
          *NnzU = int(F.Ui.size()) + F.N;
        }
      },
      I->F);
  return CUSOLVER_STATUS_SUCCESS;
}

#define LU_HOST(p, T, R)                                                                                               \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrluBufferInfoHost(void *Hd, int N, int Nnz, cusparseMatDescr_t D,     \
                                                                  const T *, const int *, const int *, void *InfoP,   \
                                                                  size_t *Internal, size_t *Work) {                    \
    if (!spFind(Hd))                                                                                                   \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (!D || N < 0 || Nnz < 0 || !Internal || !Work || !libs::Live<CsrluInfo>::find(InfoP))                           \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    *Internal = sizeof(T) * (size_t(Nnz) + size_t(N)); /* the factors live in the info object */                      \
    *Work = 64;                                                                                                        \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrluFactorHost(void *H, int N, int Nnz, cusparseMatDescr_t D,         \
                                                              const T *V, const int *Ro, const int *C, void *I,       \
                                                              R Threshold, void *) {                                   \
    return luFactor<T>(H, N, Nnz, D, V, Ro, C, I, Threshold);                                                          \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrluZeroPivotHost(void *H, void *I, R Tol, int *Position) {           \
    return luZeroPivot<T>(H, I, Tol, Position);                                                                        \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrluSolveHost(void *H, int N, const T *B, T *X, void *I, void *) {    \
    return luSolve<T>(H, N, B, X, I);                                                                                  \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrluExtractHost(void *H, int *P, int *Q, cusparseMatDescr_t DL,       \
                                                               T *Lv, int *Lr, int *Lc, cusparseMatDescr_t DU, T *Uv, \
                                                               int *Ur, int *Uc, void *I, void *) {                    \
    return luExtract<T>(H, P, Q, DL, Lv, Lr, Lc, DU, Uv, Ur, Uc, I);                                                   \
  }
LU_HOST(S, float, float)
LU_HOST(D, double, double)
LU_HOST(C, C32, float)
LU_HOST(Z, C64, double)
#undef LU_HOST

//===----------------------------------------------------------------------===//
// The low-level Cholesky of the preview API (csrchol*, host and device forms):
// A(P,P) = L L^H for the Hermitian matrix A's lower triangle defines, P a
// reverse Cuthill-McKee order of its pattern; computed by SparseLu without
// pivoting (L's diagonal the square roots of its pivots).
//===----------------------------------------------------------------------===//
namespace zluda::cusolver {
namespace {
struct CsrcholInfo {
  bool Device = false; ///< made by cusolverSpCreateCsrcholInfo (arrays in device memory)
  int N = -1, Nnz = -1;
  std::vector<int> P, Inv;
  std::variant<std::monostate, SparseLu<float>, SparseLu<double>, SparseLu<C32>, SparseLu<C64>> F;
  int Failed = -1; ///< the first pivot that was not positive (in the order P)
};
CsrcholInfo *cholInfo(void *Hd, void *InfoP, bool Device) {
  CsrcholInfo *I = spFind(Hd) ? libs::Live<CsrcholInfo>::find(InfoP) : nullptr;
  return I && I->Device == Device ? I : nullptr;
}

cusolverStatus_t cholAnalysis(void *Hd, int N, int Nnz, cusparseMatDescr_t Descr, const int *Row, const int *Col,
                              void *InfoP, bool Device) {
  SpHandle *H = spFind(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  CsrcholInfo *I = cholInfo(Hd, InfoP, Device);
  if (!I || !Descr || N < 0 || Nnz < 0 || (N && !Row) || (Nnz && !Col))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (cusparseGetMatType(Descr) != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  if (Device && libs::wait(H->Stream))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  std::vector<int> HRow, HCol;
  if (!libs::fetch(HRow, Row, static_cast<size_t>(N) + 1, Device) ||
      !libs::fetch(HCol, Col, static_cast<size_t>(Nnz), Device))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  const int Base = cusparseGetMatIndexBase(Descr);
  if (!validPattern(N, N, Nnz, Base, HRow.data(), HCol.data()))
    return CUSOLVER_STATUS_INVALID_VALUE;
  std::vector<char> Ones(static_cast<size_t>(Nnz), 1);
  auto G = patternOf(columnsOf(N, Base, Ones.data(), HRow.data(), HCol.data(), true));
  dedupe(G);
  I->N = N;
  I->Nnz = Nnz;
  I->P = reverseCuthillMcKee(G);
  I->Inv.assign(static_cast<size_t>(N), 0);
  for (int K = 0; K < N; ++K)
    I->Inv[size_t(I->P[size_t(K)])] = K;
  I->F = std::monostate{};
  I->Failed = -1;
  return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
cusolverStatus_t cholFactor(void *Hd, int N, int Nnz, cusparseMatDescr_t Descr, const T *Val, const int *Row,
                            const int *Col, void *InfoP, bool Device) {
  SpHandle *H = spFind(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  CsrcholInfo *I = cholInfo(Hd, InfoP, Device);
  if (!I || !Descr || N < 0 || Nnz < 0 || (N && !Row) || (Nnz && (!Val || !Col)) || I->N != N || I->Nnz != Nnz)
    return CUSOLVER_STATUS_INVALID_VALUE; // the analysis first, with these sizes
  if (Device && libs::wait(H->Stream))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  std::vector<int> HRow, HCol;
  std::vector<T> HVal;
  if (!libs::fetch(HRow, Row, static_cast<size_t>(N) + 1, Device) ||
      !libs::fetch(HCol, Col, static_cast<size_t>(Nnz), Device) ||
      !libs::fetch(HVal, Val, static_cast<size_t>(Nnz), Device))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  const int Base = cusparseGetMatIndexBase(Descr);
  if (!validPattern(N, N, Nnz, Base, HRow.data(), HCol.data()))
    return CUSOLVER_STATUS_INVALID_VALUE;
  std::vector<int> Ap, Ai;
  std::vector<T> Ax;
  permuted(columnsOf(N, Base, HVal.data(), HRow.data(), HCol.data(), true), I->P, &I->Inv, Ap, Ai, Ax);
  SparseLu<T> F;
  I->Failed = F.factor(N, Ap, Ai, Ax, 0, false, true);
  I->F = std::move(F);
  return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
cusolverStatus_t cholZeroPivot(void *Hd, void *InfoP, double Tol, int *Position, bool Device) {
  if (!spFind(Hd))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  CsrcholInfo *I = cholInfo(Hd, InfoP, Device);
  SparseLu<T> *F = I ? std::get_if<SparseLu<T>>(&I->F) : nullptr;
  if (!F || !Position)
    return CUSOLVER_STATUS_INVALID_VALUE;
  int K = I->Failed;
  if (K < 0)
    for (int J = 0; J < F->N && K < 0; ++J)
      if (std::sqrt(std::real(F->Ud[size_t(J)])) <= Tol)
        K = J;
  *Position = K < 0 ? -1 : I->P[size_t(K)]; // host memory (the samples' use)
  return CUSOLVER_STATUS_SUCCESS;
}

template <typename T> cusolverStatus_t cholSolve(void *Hd, int N, const T *B, T *X, void *InfoP, bool Device) {
  SpHandle *H = spFind(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  CsrcholInfo *I = cholInfo(Hd, InfoP, Device);
  SparseLu<T> *F = I ? std::get_if<SparseLu<T>>(&I->F) : nullptr;
  if (!F || N != I->N || I->Failed >= 0 || (N && (!B || !X)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (Device && libs::wait(H->Stream))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  std::vector<T> HB;
  if (!libs::fetch(HB, B, static_cast<size_t>(N), Device))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  std::vector<T> Pb(static_cast<size_t>(N)), HX(static_cast<size_t>(N));
  for (int K = 0; K < N; ++K)
    Pb[size_t(K)] = HB[size_t(I->P[size_t(K)])];
  std::vector<T> Z = F->solve(std::move(Pb));
  for (int K = 0; K < N; ++K)
    HX[size_t(I->P[size_t(K)])] = Z[size_t(K)];
  return libs::store(X, HX, Device) ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_EXECUTION_FAILED;
}

/// diag(L) of A(P,P) = L L^H (its product squared is det(A)), device memory.
template <typename T> cusolverStatus_t cholDiag(void *Hd, void *InfoP, typename Real<T>::Type *Diag) {
  SpHandle *H = spFind(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  CsrcholInfo *I = cholInfo(Hd, InfoP, true);
  SparseLu<T> *F = I ? std::get_if<SparseLu<T>>(&I->F) : nullptr;
  if (!F || I->Failed >= 0 || (F->N && !Diag))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (libs::wait(H->Stream))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  std::vector<typename Real<T>::Type> D(static_cast<size_t>(F->N));
  for (int K = 0; K < F->N; ++K)
    D[size_t(K)] = std::sqrt(std::real(F->Ud[size_t(K)]));
  return libs::store(Diag, D, true) ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_EXECUTION_FAILED;
}
} // namespace
} // namespace zluda::cusolver

CUSOLVER_API cusolverStatus_t cusolverSpCreateCsrcholInfoHost(void **Out) {
  if (!Out)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Out = libs::Live<CsrcholInfo>::add(new CsrcholInfo);
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverSpCreateCsrcholInfo(void **Out) {
  if (!Out)
    return CUSOLVER_STATUS_INVALID_VALUE;
  auto *I = new CsrcholInfo;
  I->Device = true;
  *Out = libs::Live<CsrcholInfo>::add(I);
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverSpDestroyCsrcholInfoHost(void *I) {
  return libs::Live<CsrcholInfo>::destroy(I) ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_INVALID_VALUE;
}
CUSOLVER_API cusolverStatus_t cusolverSpDestroyCsrcholInfo(void *I) {
  return libs::Live<CsrcholInfo>::destroy(I) ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_INVALID_VALUE;
}
CUSOLVER_API cusolverStatus_t cusolverSpXcsrcholAnalysisHost(void *H, int N, int Nnz, cusparseMatDescr_t D,
                                                             const int *Row, const int *Col, void *I) {
  return cholAnalysis(H, N, Nnz, D, Row, Col, I, false);
}
CUSOLVER_API cusolverStatus_t cusolverSpXcsrcholAnalysis(void *H, int N, int Nnz, cusparseMatDescr_t D,
                                                         const int *Row, const int *Col, void *I) {
  return cholAnalysis(H, N, Nnz, D, Row, Col, I, true);
}

#define CHOL_FORMS(p, T, R, Suffix, Dev)                                                                               \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrcholBufferInfo##Suffix(                                              \
      void *Hd, int N, int Nnz, cusparseMatDescr_t D, const T *, const int *, const int *, void *InfoP,               \
      size_t *Internal, size_t *Work) {                                                                                \
    if (!spFind(Hd))                                                                                                   \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (!D || N < 0 || Nnz < 0 || !Internal || !Work || !cholInfo(Hd, InfoP, Dev))                                     \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    *Internal = sizeof(T) * (size_t(Nnz) + size_t(N)); /* the factor lives in the info object */                      \
    *Work = 64;                                                                                                        \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrcholFactor##Suffix(void *H, int N, int Nnz, cusparseMatDescr_t D,   \
                                                                     const T *V, const int *Ro, const int *C, void *I, \
                                                                     void *) {                                         \
    return cholFactor<T>(H, N, Nnz, D, V, Ro, C, I, Dev);                                                              \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrcholZeroPivot##Suffix(void *H, void *I, R Tol, int *Position) {     \
    return cholZeroPivot<T>(H, I, Tol, Position, Dev);                                                                 \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrcholSolve##Suffix(void *H, int N, const T *B, T *X, void *I,        \
                                                                    void *) {                                          \
    return cholSolve<T>(H, N, B, X, I, Dev);                                                                           \
  }
CHOL_FORMS(S, float, float, Host, false)
CHOL_FORMS(D, double, double, Host, false)
CHOL_FORMS(C, C32, float, Host, false)
CHOL_FORMS(Z, C64, double, Host, false)
CHOL_FORMS(S, float, float, , true)
CHOL_FORMS(D, double, double, , true)
CHOL_FORMS(C, C32, float, , true)
CHOL_FORMS(Z, C64, double, , true)
#undef CHOL_FORMS
CUSOLVER_API cusolverStatus_t cusolverSpScsrcholDiag(void *H, void *I, float *D) { return cholDiag<float>(H, I, D); }
CUSOLVER_API cusolverStatus_t cusolverSpDcsrcholDiag(void *H, void *I, double *D) { return cholDiag<double>(H, I, D); }
CUSOLVER_API cusolverStatus_t cusolverSpCcsrcholDiag(void *H, void *I, float *D) { return cholDiag<C32>(H, I, D); }
CUSOLVER_API cusolverStatus_t cusolverSpZcsrcholDiag(void *H, void *I, double *D) { return cholDiag<C64>(H, I, D); }

//===----------------------------------------------------------------------===//
// The low-level QR of the preview API (csrqr*, host and device forms): the
// analysis keeps the pattern, the setup the values of A - mu I, the factor
// factors it (and solves when given b and x): square systems by the sparse LU
// (the least-squares solution of a square regular system is its solution;
// the zero pivot is the LU's), overdetermined ones by LAPACK's QR of a dense
// copy (up to 2^26 elements).
//===----------------------------------------------------------------------===//
namespace zluda::cusolver {
namespace {
CsrqrInfo *qrInfo(void *Hd, void *InfoP, bool Host) {
  CsrqrInfo *I = spFind(Hd) ? libs::Live<CsrqrInfo>::find(InfoP) : nullptr;
  return I && I->Host == Host ? I : nullptr;
}

cusolverStatus_t qrAnalysis(void *Hd, int M, int N, int Nnz, cusparseMatDescr_t Descr, const int *Row,
                            const int *Col, void *InfoP, bool Host) {
  SpHandle *H = spFind(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  CsrqrInfo *I = qrInfo(Hd, InfoP, Host);
  if (!I || !Descr || M < 0 || N < 0 || M < N || Nnz < 0 || (M && !Row) || (Nnz && !Col))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (cusparseGetMatType(Descr) != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  if (!Host && libs::wait(H->Stream))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  if (!libs::fetch(I->Row, Row, static_cast<size_t>(M) + 1, !Host) ||
      !libs::fetch(I->Col, Col, static_cast<size_t>(Nnz), !Host))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  I->Base = cusparseGetMatIndexBase(Descr);
  if (!validPattern(M, N, Nnz, I->Base, I->Row.data(), I->Col.data()))
    return CUSOLVER_STATUS_INVALID_VALUE;
  I->M = M, I->N = N, I->Nnz = Nnz;
  I->Values.reset();
  I->Solve = nullptr;
  I->ZeroPivot = nullptr;
  return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
cusolverStatus_t qrSetup(void *Hd, int M, int N, int Nnz, cusparseMatDescr_t Descr, const T *Val, T Mu, void *InfoP,
                         bool Host) {
  SpHandle *H = spFind(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  CsrqrInfo *I = qrInfo(Hd, InfoP, Host);
  if (!I || !Descr || I->M != M || I->N != N || I->Nnz != Nnz || (Nnz && !Val))
    return CUSOLVER_STATUS_INVALID_VALUE; // the analysis first, with these sizes
  if (!Host && libs::wait(H->Stream))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  auto V = std::make_shared<std::vector<T>>();
  if (!libs::fetch(*V, Val, static_cast<size_t>(Nnz), !Host))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  // A - mu I: the shift on the diagonal entries the pattern holds (a missing one is added).
  std::vector<int> Row{0}, Col;
  std::vector<T> Shifted;
  for (int R = 0; R < M; ++R) {
    bool Diag = false;
    for (int K = I->Row[size_t(R)] - I->Base; K < I->Row[size_t(R) + 1] - I->Base; ++K) {
      const int C = I->Col[size_t(K)] - I->Base;
      Col.push_back(C);
      Shifted.push_back(C == R ? (*V)[size_t(K)] - Mu : (*V)[size_t(K)]);
      Diag |= C == R;
    }
    if (!Diag && R < N && Mu != T(0)) {
      Col.push_back(R);
      Shifted.push_back(-Mu);
    }
    Row.push_back(int(Col.size()));
  }
  I->Row = std::move(Row), I->Col = std::move(Col), I->Base = 0;
  I->Values = std::make_shared<std::vector<T>>(std::move(Shifted));
  I->Solve = nullptr;
  I->ZeroPivot = nullptr;
  return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
cusolverStatus_t qrSolve(void *Hd, int M, int N, const T *B, T *X, CsrqrInfo *I, bool Host) {
  SpHandle *H = spFind(Hd);
  if (!I->Solve || M != I->M || N != I->N || (M && !B) || (N && !X))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (!Host && libs::wait(H->Stream))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  std::vector<T> HB, HX(static_cast<size_t>(N));
  if (!libs::fetch(HB, B, static_cast<size_t>(M), !Host))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  if (!I->Solve(HB.data(), HX.data()))
    return CUSOLVER_STATUS_INVALID_VALUE; // a zero pivot: no solution
  return libs::store(X, HX, !Host) ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_EXECUTION_FAILED;
}

template <typename T>
cusolverStatus_t qrFactor(void *Hd, int M, int N, int Nnz, const T *B, T *X, void *InfoP, bool Host) {
  if (!spFind(Hd))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  CsrqrInfo *I = qrInfo(Hd, InfoP, Host);
  if (!I || I->M != M || I->N != N || I->Nnz != Nnz || !I->Values)
    return CUSOLVER_STATUS_INVALID_VALUE; // analysis and setup first
  const auto &V = *static_cast<std::vector<T> *>(I->Values.get());
  if (M == N) {
    auto Cols = columnsOf(N, 0, V.data(), I->Row.data(), I->Col.data(), false);
    auto Q = std::make_shared<std::vector<int>>(reverseCuthillMcKee(columnGraph(N, 0, I->Row.data(), I->Col.data())));
    std::vector<int> Ap, Ai;
    std::vector<T> Ax;
    permuted(Cols, *Q, nullptr, Ap, Ai, Ax);
    auto F = std::make_shared<SparseLu<T>>();
    const int Failed = F->factor(N, Ap, Ai, Ax, 0, true, false);
    I->ZeroPivot = [F, Q, Failed](double Tol) {
      if (Failed >= 0)
        return (*Q)[size_t(Failed)];
      for (int K = 0; K < F->N; ++K)
        if (std::abs(F->Ud[size_t(K)]) <= Tol)
          return (*Q)[size_t(K)];
      return -1;
    };
    I->Solve = [F, Q, Failed, N](const void *Bp, void *Xp) {
      if (Failed >= 0)
        return false;
      const T *Bv = static_cast<const T *>(Bp);
      std::vector<T> Z = F->solve(std::vector<T>(Bv, Bv + N));
      for (int J = 0; J < N; ++J)
        static_cast<T *>(Xp)[(*Q)[size_t(J)]] = Z[size_t(J)];
      return true;
    };
  } else {
    if (double(M) * N > double(1 << 26)) {
      libs::notSupported("cuSOLVER", "cusolverSpXcsrqrFactor of large overdetermined systems");
      return CUSOLVER_STATUS_NOT_SUPPORTED;
    }
    auto A = std::make_shared<std::vector<T>>(expand(M, N, 0, V.data(), I->Row.data(), I->Col.data()));
    auto Tau = std::make_shared<std::vector<T>>(static_cast<size_t>(N));
    T Wq{};
    int Lw = -1, Info = 0;
    La<T>::geqrf(&M, &N, A->data(), &M, Tau->data(), &Wq, &Lw, &Info);
    std::vector<T> W(static_cast<size_t>(lworkOf(Wq)));
    Lw = int(W.size());
    La<T>::geqrf(&M, &N, A->data(), &M, Tau->data(), W.data(), &Lw, &Info);
    I->ZeroPivot = [A, M, N](double Tol) {
      for (int K = 0; K < N; ++K)
        if (std::abs((*A)[size_t(K) + size_t(K) * M]) <= Tol)
          return K;
      return -1;
    };
    I->Solve = [A, Tau, M, N](const void *Bp, void *Xp) {
      std::vector<T> Sol(static_cast<const T *>(Bp), static_cast<const T *>(Bp) + M);
      char S = 'L', Tr = IsComplex<T> ? 'C' : 'T';
      int One = 1, Lw2 = -1, In = 0, Mm = M, Nn = N;
      T Wq2{};
      La<T>::ormqr(&S, &Tr, &Mm, &One, &Nn, A->data(), &Mm, Tau->data(), Sol.data(), &Mm, &Wq2, &Lw2, &In);
      std::vector<T> W2(static_cast<size_t>(lworkOf(Wq2)));
      Lw2 = int(W2.size());
      La<T>::ormqr(&S, &Tr, &Mm, &One, &Nn, A->data(), &Mm, Tau->data(), Sol.data(), &Mm, W2.data(), &Lw2, &In);
      T *Xv = static_cast<T *>(Xp);
      for (int R = N - 1; R >= 0; --R) {
        T Sum = Sol[size_t(R)];
        for (int C = R + 1; C < N; ++C)
          Sum -= (*A)[size_t(R) + size_t(C) * M] * Xv[C];
        if ((*A)[size_t(R) + size_t(R) * M] == T(0))
          return false;
        Xv[R] = Sum / (*A)[size_t(R) + size_t(R) * M];
      }
      return true;
    };
  }
  if (B && X) // with b and x, the factorization solves too
    return qrSolve(Hd, M, N, B, X, I, Host);
  return CUSOLVER_STATUS_SUCCESS;
}

template <typename T> cusolverStatus_t qrZeroPivot(void *Hd, void *InfoP, double Tol, int *Position, bool Host) {
  if (!spFind(Hd))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  CsrqrInfo *I = qrInfo(Hd, InfoP, Host);
  if (!I || !I->ZeroPivot || !Position)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Position = I->ZeroPivot(Tol);
  return CUSOLVER_STATUS_SUCCESS;
}
} // namespace
} // namespace zluda::cusolver

CUSOLVER_API cusolverStatus_t cusolverSpCreateCsrqrInfoHost(void **Out) {
  if (!Out)
    return CUSOLVER_STATUS_INVALID_VALUE;
  auto *I = new CsrqrInfo;
  I->Host = true;
  *Out = libs::Live<CsrqrInfo>::add(I);
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverSpDestroyCsrqrInfoHost(void *I) {
  return libs::Live<CsrqrInfo>::destroy(I) ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_INVALID_VALUE;
}
CUSOLVER_API cusolverStatus_t cusolverSpXcsrqrAnalysisHost(void *H, int M, int N, int Nnz, cusparseMatDescr_t D,
                                                           const int *Row, const int *Col, void *I) {
  return qrAnalysis(H, M, N, Nnz, D, Row, Col, I, true);
}
CUSOLVER_API cusolverStatus_t cusolverSpXcsrqrAnalysis(void *H, int M, int N, int Nnz, cusparseMatDescr_t D,
                                                       const int *Row, const int *Col, void *I) {
  return qrAnalysis(H, M, N, Nnz, D, Row, Col, I, false);
}

#define QR_FORMS(p, T, R, Suffix, Host)                                                                                \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrqrBufferInfo##Suffix(void *Hd, int M, int N, int Nnz,                \
                                                                       cusparseMatDescr_t D, const T *, const int *,   \
                                                                       const int *, void *InfoP, size_t *Internal,     \
                                                                       size_t *Work) {                                 \
    if (!spFind(Hd))                                                                                                   \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (!D || M < 0 || N < 0 || Nnz < 0 || !Internal || !Work || !qrInfo(Hd, InfoP, Host))                             \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    *Internal = sizeof(T) * (size_t(Nnz) + size_t(M)); /* the factors live in the info object */                      \
    *Work = 64;                                                                                                        \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrqrSetup##Suffix(void *H, int M, int N, int Nnz,                      \
                                                                  cusparseMatDescr_t D, const T *V, const int *,       \
                                                                  const int *, T Mu, void *I) {                        \
    return qrSetup<T>(H, M, N, Nnz, D, V, Mu, I, Host);                                                                \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrqrFactor##Suffix(void *H, int M, int N, int Nnz, T *B, T *X,        \
                                                                   void *I, void *) {                                  \
    return qrFactor<T>(H, M, N, Nnz, B, X, I, Host);                                                                   \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrqrZeroPivot##Suffix(void *H, void *I, R Tol, int *Position) {       \
    return qrZeroPivot<T>(H, I, Tol, Position, Host);                                                                  \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverSp##p##csrqrSolve##Suffix(void *H, int M, int N, T *B, T *X, void *I,         \
                                                                  void *) {                                            \
    CsrqrInfo *Info = qrInfo(H, I, Host);                                                                              \
    if (!spFind(H))                                                                                                    \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return Info ? qrSolve<T>(H, M, N, B, X, Info, Host) : CUSOLVER_STATUS_INVALID_VALUE;                              \
  }
QR_FORMS(S, float, float, Host, true)
QR_FORMS(D, double, double, Host, true)
QR_FORMS(C, C32, float, Host, true)
QR_FORMS(Z, C64, double, Host, true)
QR_FORMS(S, float, float, , false)
QR_FORMS(D, double, double, , false)
QR_FORMS(C, C32, float, , false)
QR_FORMS(Z, C64, double, , false)
#undef QR_FORMS
