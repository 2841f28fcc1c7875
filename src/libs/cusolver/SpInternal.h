//===- SpInternal.h - cusolverSp: what its files share ---------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The handle, the CSR views and the dense LAPACK glue of cusolverSp's files: CusolverSp.cpp
/// (handles, csrlsv*, csrissym), SpMore.cpp (least squares, eigenvalues, the rest of the documented
/// API), SpLu.cpp, SpChol.cpp and SpQr.cpp (the low-level preview API).
#ifndef ZLUDA_LIBS_CUSOLVER_SPINTERNAL_H
#define ZLUDA_LIBS_CUSOLVER_SPINTERNAL_H

#include "libs/common/LibSupport.h"
#include "libs/cusolver/Handles.h"
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


namespace zluda::cusolver::sp {


struct SpHandle {
  CUstream Stream = nullptr;
};
inline SpHandle *spFind(void *H) { return libs::Live<SpHandle>::find(H); }

enum class Method { Lu, Qr, Chol };

/// Above this order the solves use a sparse LU (SparseLu) instead of LAPACK on a dense copy.
constexpr int SparseFrom = 1024;
template <typename T>
inline cusolverStatus_t sparseSolve(Method Mth, int N, int Base, const T *Val, const int *Row, const int *Col, const T *B,
                             double Tol, T *X, int *Singularity);

/// The CSR matrix (m x n, host arrays) as a dense column-major one; duplicates add up.
template <typename T>
inline std::vector<T> expand(int M, int N, int Base, const T *Val, const int *Row, const int *Col) {
  std::vector<T> A(static_cast<size_t>(M) * N, T(0));
  for (int I = 0; I < M; ++I)
    for (int K = Row[I] - Base; K < Row[I + 1] - Base; ++K)
      A[I + static_cast<size_t>(Col[K] - Base) * M] += Val[K];
  return A;
}

/// Solves A x = b for the CSR matrix A (n x n) on host memory.
template <typename T>
inline cusolverStatus_t solve(void *Hd, Method Mth, int N, int Nnz, cusparseMatDescr_t Descr, const T *Val, const int *Row,
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




/// True when the CSR pattern is well formed for an m x n matrix.
inline bool validPattern(int M, int N, int Nnz, int Base, const int *Row, const int *Col) {
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

inline void geqp3(int M, int N, float *A, int *P, float *Tau, float *W, int Lw, float *, int *I) {
  sgeqp3_(&M, &N, A, &M, P, Tau, W, &Lw, I);
}
inline void geqp3(int M, int N, double *A, int *P, double *Tau, double *W, int Lw, double *, int *I) {
  dgeqp3_(&M, &N, A, &M, P, Tau, W, &Lw, I);
}
inline void geqp3(int M, int N, C32 *A, int *P, C32 *Tau, C32 *W, int Lw, float *Rw, int *I) {
  cgeqp3_(&M, &N, A, &M, P, Tau, W, &Lw, Rw, I);
}
inline void geqp3(int M, int N, C64 *A, int *P, C64 *Tau, C64 *W, int Lw, double *Rw, int *I) {
  zgeqp3_(&M, &N, A, &M, P, Tau, W, &Lw, Rw, I);
}

/// min ||A x - b|| by QR with column pivoting (A P = Q R): the numerical rank r counts the
/// diagonal entries of R above \p Tol in magnitude and x = P [R11^-1 (Q^H b)(1:r); 0] (the basic
/// solution when A is rank deficient).
template <typename T>
inline cusolverStatus_t leastSquares(void *Hd, int M, int N, int Nnz, cusparseMatDescr_t Descr, const T *Val, const int *Row,
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
inline cusolverStatus_t shiftInverse(void *Hd, int M, int Nnz, cusparseMatDescr_t Descr, const T *Val, const int *Row,
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
inline cusolverStatus_t countEigenvalues(void *Hd, int M, int Nnz, cusparseMatDescr_t Descr, const T *Val, const int *Row,
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
inline void dedupe(std::vector<std::vector<int>> &G) {
  for (auto &Adj : G) {
    std::sort(Adj.begin(), Adj.end());
    Adj.erase(std::unique(Adj.begin(), Adj.end()), Adj.end());
  }
}

/// The adjacency of the symmetrized pattern A + A^T without the diagonal (0-based, sorted).
inline std::vector<std::vector<int>> symmetricGraph(int N, int Base, const int *Row, const int *Col) {
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
inline std::vector<std::vector<int>> columnGraph(int N, int Base, const int *Row, const int *Col) {
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
inline std::vector<std::vector<int>> levels(const std::vector<std::vector<int>> &G, int Start, const std::vector<char> &In,
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
inline int peripheral(const std::vector<std::vector<int>> &G, int Start, const std::vector<char> &In, std::vector<int> &Mark,
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
inline std::vector<int> reverseCuthillMcKee(const std::vector<std::vector<int>> &G) {
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
inline std::vector<int> minimumDegree(const std::vector<std::vector<int>> &G0) {
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
inline void minimumDegreeOf(const std::vector<std::vector<int>> &G, const std::vector<int> &Nodes, std::vector<int> &Order) {
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
inline void dissect(const std::vector<std::vector<int>> &G, const std::vector<int> &Nodes, std::vector<char> &In,
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

inline std::vector<int> nestedDissection(const std::vector<std::vector<int>> &G) {
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

inline cusolverStatus_t reorder(void *Hd, int N, int Nnz, cusparseMatDescr_t Descr, const int *Row, const int *Col, int *P,
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
inline cusolverStatus_t zeroFreeDiagonal(void *Hd, int N, int Nnz, cusparseMatDescr_t Descr, const T *Val, const int *Row,
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
inline std::vector<std::vector<std::pair<int, T>>> columnsOf(int N, int Base, const T *Val, const int *Row, const int *Col,
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
inline void permuted(const std::vector<std::vector<std::pair<int, T>>> &Cols, const std::vector<int> &P,
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
inline cusolverStatus_t sparseSolve(Method Mth, int N, int Base, const T *Val, const int *Row, const int *Col, const T *B,
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
inline cusolverStatus_t qrBatched(void *Hd, int M, int N, int Nnz, cusparseMatDescr_t Descr, const T *Val, const int *Row,
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


struct CsrluInfo {
  int N = -1, Nnz = -1;
  std::vector<int> Q; ///< column order: column j of A Q^T is A's column Q[j]
  std::variant<std::monostate, SparseLu<float>, SparseLu<double>, SparseLu<C32>, SparseLu<C64>> F;
  int Failed = -1; ///< a column whose pivot was exactly zero (the factorization stopped there)
};

template <typename T>
inline cusolverStatus_t luFactor(void *Hd, int N, int Nnz, cusparseMatDescr_t Descr, const T *Val, const int *Row,
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
inline cusolverStatus_t luZeroPivot(void *Hd, void *InfoP, double Tol, int *Position) {
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
inline void toCsr(int N, const std::vector<std::vector<std::pair<int, T>>> &ByRow, int Base, T *Val, int *Row, int *Col) {
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
inline cusolverStatus_t luExtract(void *Hd, int *P, int *Q, cusparseMatDescr_t DL, T *Lv, int *Lr, int *Lc,
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

} // namespace zluda::cusolver::sp

#endif // ZLUDA_LIBS_CUSOLVER_SPINTERNAL_H
