//===- Legacy.cpp - cuSPARSE: legacy routines -------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Tridiagonal solvers, sorting, bsrmv and csrgeam2 of the legacy API.
#include "libs/cusparse/Internal.h"

using namespace zluda;
using namespace zluda::cusparse;

//===----------------------------------------------------------------------===//
// Legacy routines samples still call: tridiagonal solvers (gtsv2 with
// partial pivoting, gtsv2_nopivot and gtsv2StridedBatch without), sorting
// (Xcsrsort, XcoosortByRow/ByColumn with their permutations,
// CreateIdentityPermutation), bsrmv (y = alpha A x + beta y of a BSR
// matrix, non-transposed as cuSPARSE takes it) and csrgeam2 (C = alpha A +
// beta B, with Xcsrgeam2Nnz). CPU device: in stream order on device memory.
// GPUs: on host copies after the stream (staged).
//===----------------------------------------------------------------------===//

#define GTSV_FORMS(p, T)                                                                                               \
  CUSPARSE_API cusparseStatus_t cusparse##p##gtsv2_bufferSizeExt(cusparseHandle_t Hd, int M, int N, const T *,         \
                                                                 const T *, const T *, const T *, int Ldb,             \
                                                                 size_t *Size) {                                       \
    return gtsv2BufferSize(Hd, M, N, Ldb, Size);                                                                       \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gtsv2_nopivot_bufferSizeExt(cusparseHandle_t Hd, int M, int N, const T *, \
                                                                         const T *, const T *, const T *, int Ldb,     \
                                                                         size_t *Size) {                               \
    return gtsv2BufferSize(Hd, M, N, Ldb, Size);                                                                       \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gtsv2(cusparseHandle_t Hd, int M, int N, const T *Dl, const T *D,         \
                                                   const T *Du, T *B, int Ldb, void *Buf) {                            \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    if (M < 3 || N < 0 || Ldb < std::max(1, M) || !Dl || !D || !Du || !B || !Buf)                                      \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    return staged(                                                                                                     \
        H, [=](const T *Dl, const T *D, const T *Du, T *B) { tridiagonal(M, N, Dl, D, Du, B, Ldb, true); },            \
        libs::in(Dl, size_t(M)), libs::in(D, size_t(M)), libs::in(Du, size_t(M)),                                      \
        libs::inout(B, N ? size_t(Ldb) * size_t(N - 1) + size_t(M) : 0));                                              \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gtsv2_nopivot(cusparseHandle_t Hd, int M, int N, const T *Dl,             \
                                                           const T *D, const T *Du, T *B, int Ldb, void *Buf) {        \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    if (M < 3 || N < 0 || Ldb < std::max(1, M) || !Dl || !D || !Du || !B || !Buf)                                      \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    return staged(                                                                                                     \
        H, [=](const T *Dl, const T *D, const T *Du, T *B) { tridiagonal(M, N, Dl, D, Du, B, Ldb, false); },            \
        libs::in(Dl, size_t(M)), libs::in(D, size_t(M)), libs::in(Du, size_t(M)),                                      \
        libs::inout(B, N ? size_t(Ldb) * size_t(N - 1) + size_t(M) : 0));                                              \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gtsv2StridedBatch_bufferSizeExt(                                          \
      cusparseHandle_t Hd, int M, const T *, const T *, const T *, const T *, int Count, int Stride, size_t *Size) {  \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    return M < 3 || Count < 0 || Stride < M ? CUSPARSE_STATUS_INVALID_VALUE : setOut(Size, 64);                        \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gtsv2StridedBatch(cusparseHandle_t Hd, int M, const T *Dl, const T *D,    \
                                                               const T *Du, T *X, int Count, int Stride, void *Buf) {  \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    if (M < 3 || Count < 0 || Stride < M || !Dl || !D || !Du || !X || !Buf)                                            \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    const size_t Len = Count ? size_t(Count - 1) * size_t(Stride) + size_t(M) : 0;                                     \
    return staged(                                                                                                     \
        H,                                                                                                             \
        [=](const T *Dl, const T *D, const T *Du, T *X) {                                                              \
          for (int K = 0; K < Count; ++K) {                                                                            \
            size_t O = size_t(K) * Stride;                                                                             \
            tridiagonal(M, 1, Dl + O, D + O, Du + O, X + O, M, false);                                                 \
          }                                                                                                            \
        },                                                                                                             \
        libs::in(Dl, Len), libs::in(D, Len), libs::in(Du, Len), libs::inout(X, Len));                                  \
  }
GTSV_FORMS(S, float)
GTSV_FORMS(D, double)
GTSV_FORMS(C, std::complex<float>)
GTSV_FORMS(Z, std::complex<double>)
#undef GTSV_FORMS

CUSPARSE_API cusparseStatus_t cusparseXcsrsort_bufferSizeExt(cusparseHandle_t Hd, int M, int N, int Nnz, const int *,
                                                             const int *, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  return M < 0 || N < 0 || Nnz < 0 ? CUSPARSE_STATUS_INVALID_VALUE : setOut(Size, 64);
}
CUSPARSE_API cusparseStatus_t cusparseXcsrsort(cusparseHandle_t Hd, int M, int N, int Nnz, cusparseMatDescr_t Descr,
                                               const int *RowPtr, int *ColInd, int *P, void *Buf) {
  HANDLE_OR_FAIL(Hd)
  auto *D = lookup<MatDescr>(Descr);
  if (!D || M < 0 || N < 0 || Nnz < 0 || (M && !RowPtr) || (Nnz && (!ColInd || !Buf)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int Base = D->Base;
  return staged(
      H,
      [=](const int *RowPtr, int *ColInd, int *P) {
        for (int I = 0; I < M; ++I)
          sortPairs(ColInd, nullptr, P, RowPtr[I] - Base, RowPtr[I + 1] - Base);
      },
      libs::in(M ? RowPtr : nullptr, M ? size_t(M) + 1 : 0), libs::inout(ColInd, size_t(Nnz)),
      libs::inout(P, P ? size_t(Nnz) : 0));
}
CUSPARSE_API cusparseStatus_t cusparseXcoosort_bufferSizeExt(cusparseHandle_t Hd, int M, int N, int Nnz, const int *,
                                                             const int *, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  return M < 0 || N < 0 || Nnz < 0 ? CUSPARSE_STATUS_INVALID_VALUE : setOut(Size, 64);
}
CUSPARSE_API cusparseStatus_t cusparseXcoosortByRow(cusparseHandle_t Hd, int M, int N, int Nnz, int *Rows, int *Cols,
                                                    int *P, void *Buf) {
  HANDLE_OR_FAIL(Hd)
  if (M < 0 || N < 0 || Nnz < 0 || (Nnz && (!Rows || !Cols || !Buf)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return staged(
      H, [=](int *Rows, int *Cols, int *P) { sortPairs(Rows, Cols, P, 0, Nnz); }, libs::inout(Rows, size_t(Nnz)),
      libs::inout(Cols, size_t(Nnz)), libs::inout(P, P ? size_t(Nnz) : 0));
}
CUSPARSE_API cusparseStatus_t cusparseXcoosortByColumn(cusparseHandle_t Hd, int M, int N, int Nnz, int *Rows,
                                                       int *Cols, int *P, void *Buf) {
  HANDLE_OR_FAIL(Hd)
  if (M < 0 || N < 0 || Nnz < 0 || (Nnz && (!Rows || !Cols || !Buf)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return staged(
      H, [=](int *Rows, int *Cols, int *P) { sortPairs(Cols, Rows, P, 0, Nnz); }, libs::inout(Rows, size_t(Nnz)),
      libs::inout(Cols, size_t(Nnz)), libs::inout(P, P ? size_t(Nnz) : 0));
}
CUSPARSE_API cusparseStatus_t cusparseCreateIdentityPermutation(cusparseHandle_t Hd, int N, int *P) {
  HANDLE_OR_FAIL(Hd)
  if (N < 0 || (N && !P))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return staged(
      H,
      [=](int *P) {
        for (int I = 0; I < N; ++I)
          P[I] = I;
      },
      libs::out(P, size_t(N)));
}

namespace {
/// C (mb*bd x n, column-major) = alpha A op(B) + beta C for a BSR matrix A (blocks row- or column-major); op(B)
/// is B (k*bd x n, ldb) or, transposed, B given as n x k*bd. bsrmv is the case n = 1.
template <typename V>
void bsrProduct(cusparseDirection_t Dir, int Mb, int N, const V *Val, const int *RowPtr, const int *ColInd, int Base,
                int Bd, const V *B, int Ldb, bool Bt, V Alpha, V Beta, V *C, int Ldc) {
  for (int J = 0; J < N; ++J)
    for (int Br = 0; Br < Mb; ++Br)
      for (int I = 0; I < Bd; ++I) {
        V S = V(0);
        for (int K = RowPtr[Br] - Base; K < RowPtr[Br + 1] - Base; ++K) {
          const int Bc = ColInd[K] - Base;
          for (int L = 0; L < Bd; ++L) {
            const int Row = Bc * Bd + L;
            S += Val[size_t(K) * Bd * Bd + (Dir == CUSPARSE_DIRECTION_ROW ? I * Bd + L : L * Bd + I)] *
                 (Bt ? B[size_t(Row) * Ldb + J] : B[size_t(J) * Ldb + Row]);
          }
        }
        V &Out = C[size_t(J) * Ldc + Br * Bd + I];
        Out = Alpha * S + (Beta == V(0) ? V(0) : Beta * Out);
      }
}

/// The checks bsrmv and bsrmm share, then the product in stream order (cuSPARSE's rules: A not transposed,
/// op(B) B or B^T, a general matrix).
template <typename V>
cusparseStatus_t bsr(cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t OpA, cusparseOperation_t OpB,
                     int Mb, int N, int Kb, int Nnzb, const void *Alpha, cusparseMatDescr_t Descr, const V *Val,
                     const int *RowPtr, const int *ColInd, int Bd, const V *B, int Ldb, const void *Beta, V *C,
                     int Ldc, cudaDataType Dt) {
  HANDLE_OR_FAIL(Hd)
  auto *D = lookup<MatDescr>(Descr);
  const bool Bt = OpB != CUSPARSE_OPERATION_NON_TRANSPOSE;
  if (!D || Mb < 0 || N < 0 || Kb < 0 || Nnzb < 0 || Bd < 1 || !Alpha || !Beta ||
      (Dir != CUSPARSE_DIRECTION_ROW && Dir != CUSPARSE_DIRECTION_COLUMN) || !validOp(OpB) ||
      Ldb < std::max(1, Bt ? N : Kb * Bd) || Ldc < std::max(1, Mb * Bd))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (OpA != CUSPARSE_OPERATION_NON_TRANSPOSE || OpB == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  if (D->Type != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  Scalar Al(*H, Alpha, Dt), Be(*H, Beta, Dt);
  if (!Al.fetch(H->Stream) || !Be.fetch(H->Stream))
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  const int Base = D->Base;
  const int64_t K = int64_t(Kb) * Bd, Rows = int64_t(Mb) * Bd;
  return staged(
      H,
      [=](const V *Val, const int *RowPtr, const int *ColInd, const V *B, V *C) {
        bsrProduct<V>(Dir, Mb, N, Val, RowPtr, ColInd, Base, Bd, B, Ldb, Bt, Al.get<V>(), Be.get<V>(), C, Ldc);
      },
      libs::in(Val, size_t(Nnzb) * Bd * Bd), libs::in(RowPtr, size_t(Mb) + 1), libs::in(ColInd, size_t(Nnzb)),
      libs::in(B, Bt ? span(Ldb, K, N) : span(Ldb, N, K)), libs::inout(C, span(Ldc, N, Rows)));
}
} // namespace

#define BSR_FORMS(p, T, Cx, Dt)                                                                                        \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrmv(cusparseHandle_t Hd, cusparseDirection_t Dir,                       \
                                                   cusparseOperation_t Op, int Mb, int Nb, int Nnzb, const T *Alpha,   \
                                                   cusparseMatDescr_t Descr, const T *Val, const int *RowPtr,          \
                                                   const int *ColInd, int Bd, const T *X, const T *Beta, T *Y) {       \
    return bsr<Cx>(Hd, Dir, Op, CUSPARSE_OPERATION_NON_TRANSPOSE, Mb, 1, Nb, Nnzb, Alpha, Descr,                       \
                   reinterpret_cast<const Cx *>(Val), RowPtr, ColInd, Bd, reinterpret_cast<const Cx *>(X),             \
                   std::max(1, Nb * Bd), Beta, reinterpret_cast<Cx *>(Y), std::max(1, Mb * Bd), Dt);                  \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrmm(                                                                    \
      cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t OpA, cusparseOperation_t OpB, int Mb, int N,   \
      int Kb, int Nnzb, const T *Alpha, cusparseMatDescr_t Descr, const T *Val, const int *RowPtr, const int *ColInd,  \
      const int Bd, const T *B, const int Ldb, const T *Beta, T *C, int Ldc) {                                         \
    return bsr<Cx>(Hd, Dir, OpA, OpB, Mb, N, Kb, Nnzb, Alpha, Descr, reinterpret_cast<const Cx *>(Val), RowPtr,        \
                   ColInd, Bd, reinterpret_cast<const Cx *>(B), Ldb, Beta, reinterpret_cast<Cx *>(C), Ldc, Dt);        \
  }
BSR_FORMS(S, float, float, CUDA_R_32F)
BSR_FORMS(D, double, double, CUDA_R_64F)
BSR_FORMS(C, cuComplex, std::complex<float>, CUDA_C_32F)
BSR_FORMS(Z, cuDoubleComplex, std::complex<double>, CUDA_C_64F)
#undef BSR_FORMS

/// csrgeam2: C's row pointers and nnz (Xcsrgeam2Nnz), then its columns and values (sorted, the union of A's and
/// B's patterns per row).
namespace {
void geamRow(const int *Ra, const int *Ca, int BaseA, const int *Rb, const int *Cb, int BaseB, int Row,
             std::vector<int> &Cols) {
  Cols.clear();
  for (int K = Ra[Row] - BaseA; K < Ra[Row + 1] - BaseA; ++K)
    Cols.push_back(Ca[K] - BaseA);
  for (int K = Rb[Row] - BaseB; K < Rb[Row + 1] - BaseB; ++K)
    Cols.push_back(Cb[K] - BaseB);
  std::sort(Cols.begin(), Cols.end());
  Cols.erase(std::unique(Cols.begin(), Cols.end()), Cols.end());
}
} // namespace
CUSPARSE_API cusparseStatus_t cusparseXcsrgeam2Nnz(cusparseHandle_t Hd, int M, int N, cusparseMatDescr_t Da, int NnzA,
                                                   const int *Ra, const int *Ca, cusparseMatDescr_t Db, int NnzB,
                                                   const int *Rb, const int *Cb, cusparseMatDescr_t Dc, int *Rc,
                                                   int *NnzTotal, void *) {
  HANDLE_OR_FAIL(Hd)
  auto *A = lookup<MatDescr>(Da), *B = lookup<MatDescr>(Db), *C = lookup<MatDescr>(Dc);
  if (!A || !B || !C || M < 0 || N < 0 || NnzA < 0 || NnzB < 0 || !Rc || !NnzTotal || (M && (!Ra || !Rb)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int BaseA = A->Base, BaseB = B->Base, BaseC = C->Base;
  return withTotal(
      H, NnzTotal,
      [=](const int *Ra, const int *Ca, const int *Rb, const int *Cb, int *Rc) {
        std::vector<int> Cols;
        Rc[0] = BaseC;
        for (int I = 0; I < M; ++I) {
          geamRow(Ra, Ca, BaseA, Rb, Cb, BaseB, I, Cols);
          Rc[I + 1] = Rc[I] + int(Cols.size());
        }
        return Rc[M] - BaseC;
      },
      libs::in(M ? Ra : nullptr, size_t(M) + 1), libs::in(Ca, size_t(NnzA)), libs::in(M ? Rb : nullptr, size_t(M) + 1),
      libs::in(Cb, size_t(NnzB)), libs::out(Rc, size_t(M) + 1));
}
#define GEAM2_FORMS(p, T, Cx, Dt)                                                                                      \
  CUSPARSE_API cusparseStatus_t cusparse##p##csrgeam2_bufferSizeExt(                                                   \
      cusparseHandle_t Hd, int M, int N, const T *, cusparseMatDescr_t, int, const T *, const int *, const int *,      \
      const T *, cusparseMatDescr_t, int, const T *, const int *, const int *, cusparseMatDescr_t, const T *,          \
      const int *, const int *, size_t *Size) {                                                                        \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    return M < 0 || N < 0 ? CUSPARSE_STATUS_INVALID_VALUE : setOut(Size, 64);                                          \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csrgeam2(                                                                 \
      cusparseHandle_t Hd, int M, int N, const T *Alpha, cusparseMatDescr_t Da, int NnzA, const T *Va, const int *Ra,  \
      const int *Ca, const T *Beta, cusparseMatDescr_t Db, int NnzB, const T *Vb, const int *Rb, const int *Cb,        \
      cusparseMatDescr_t Dc, T *Vc, int *Rc, int *Cc, void *) {                                                        \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    auto *A = lookup<MatDescr>(Da), *B = lookup<MatDescr>(Db), *C = lookup<MatDescr>(Dc);                              \
    if (!A || !B || !C || M < 0 || N < 0 || NnzA < 0 || NnzB < 0 || !Alpha || !Beta || !Rc || (M && (!Ra || !Rb)))   \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    Scalar Al(*H, Alpha, Dt), Be(*H, Beta, Dt);                                                                        \
    if (!Al.fetch(H->Stream) || !Be.fetch(H->Stream))                                                                  \
      return CUSPARSE_STATUS_EXECUTION_FAILED;                                                                         \
    const int BaseA = A->Base, BaseB = B->Base, BaseC = C->Base;                                                       \
    const int64_t NnzC = entries(H, Rc, M, BaseC);                                                                     \
    if (NnzC < 0)                                                                                                      \
      return CUSPARSE_STATUS_EXECUTION_FAILED;                                                                         \
    using V = Cx;                                                                                                      \
    return staged(                                                                                                     \
        H,                                                                                                             \
        [=](const int *Ra, const int *Ca, const V *VA, const int *Rb, const int *Cb, const V *VB, const int *Rc,      \
            int *Cc, V *VC) {                                                                                          \
      V Af = Al.get<V>(), Bf = Be.get<V>();                                                                            \
      std::vector<int> Cols;                                                                                           \
      std::vector<V> Row(size_t(N), V(0));                                                                             \
      for (int I = 0; I < M; ++I) {                                                                                    \
        geamRow(Ra, Ca, BaseA, Rb, Cb, BaseB, I, Cols);                                                                \
        for (int K = Ra[I] - BaseA; K < Ra[I + 1] - BaseA; ++K)                                                        \
          Row[size_t(Ca[K] - BaseA)] += Af * VA[K];                                                                    \
        for (int K = Rb[I] - BaseB; K < Rb[I + 1] - BaseB; ++K)                                                        \
          Row[size_t(Cb[K] - BaseB)] += Bf * VB[K];                                                                    \
        int Out = Rc[I] - BaseC;                                                                                       \
        for (int Col : Cols) {                                                                                         \
          Cc[Out] = Col + BaseC;                                                                                       \
          VC[Out++] = Row[size_t(Col)];                                                                                \
          Row[size_t(Col)] = V(0);                                                                                     \
        }                                                                                                              \
      }                                                                                                                \
        },                                                                                                             \
        libs::in(M ? Ra : nullptr, size_t(M) + 1), libs::in(Ca, size_t(NnzA)),                                        \
        libs::in(reinterpret_cast<const V *>(Va), size_t(NnzA)), libs::in(M ? Rb : nullptr, size_t(M) + 1),           \
        libs::in(Cb, size_t(NnzB)), libs::in(reinterpret_cast<const V *>(Vb), size_t(NnzB)),                         \
        libs::in(Rc, size_t(M) + 1), libs::out(Cc, size_t(NnzC)), libs::out(reinterpret_cast<V *>(Vc), size_t(NnzC))); \
  }
GEAM2_FORMS(S, float, float, CUDA_R_32F)
GEAM2_FORMS(D, double, double, CUDA_R_64F)
GEAM2_FORMS(C, cuComplex, std::complex<float>, CUDA_C_32F)
GEAM2_FORMS(Z, cuDoubleComplex, std::complex<double>, CUDA_C_64F)
#undef GEAM2_FORMS
