//===- SpQr.cpp - cusolverSp: the low-level QR ------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The preview API's csrqr* (host and device forms).
#include "libs/cusolver/SpInternal.h"

using namespace zluda;
using namespace zluda::cusolver;
using namespace zluda::cusolver::sp;

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
