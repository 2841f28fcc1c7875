//===- SpLu.cpp - cusolverSp: the low-level host LU -------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The preview API's csrlu*Host.
#include "libs/cusolver/SpInternal.h"

using namespace zluda;
using namespace zluda::cusolver;
using namespace zluda::cusolver::sp;

//===----------------------------------------------------------------------===//
// The low-level LU on the host (cusolverSp_LOWLEVEL_PREVIEW.h, csrlu*Host: the
// CUDA samples' first factorization before cusolverRf): SparseLu with the
// columns in reverse Cuthill-McKee order of A^T A, threshold partial pivoting;
// P A Q^T = L U extracted with L's unit diagonal stored.
//===----------------------------------------------------------------------===//

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
