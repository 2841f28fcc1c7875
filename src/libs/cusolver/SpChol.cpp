//===- SpChol.cpp - cusolverSp: the low-level Cholesky ----------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The preview API's csrchol* (host and device forms).
#include "libs/cusolver/SpInternal.h"

using namespace zluda;
using namespace zluda::cusolver;
using namespace zluda::cusolver::sp;

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
