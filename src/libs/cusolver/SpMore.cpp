//===- SpMore.cpp - cusolverSp: least squares, eigenvalues ------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The rest of cusolverSp's documented API: least squares, eigenvalues and the
/// batched QR.
#include "libs/cusolver/SpInternal.h"

using namespace zluda;
using namespace zluda::cusolver;
using namespace zluda::cusolver::sp;

//===----------------------------------------------------------------------===//
// The rest of cusolverSp's documented API: least squares, eigenvalues,
// orderings, permutation, zero-free diagonal and the batched QR solve.
//===----------------------------------------------------------------------===//


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
