//===- Conversions.cpp - cuSPARSE: format conversions -----------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Conversions between CSR, CSC, COO and dense of the generic API and the legacy
/// csr2csc family.
#include "libs/cusparse/Internal.h"

using namespace zluda;
using namespace zluda::cusparse;

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//
/// The formats NVIDIA's SparseToDense takes (observed on an H200 and an H100): not BSR, Blocked-ELL, Sliced-ELL.
static bool denseExpandable(const SpMat &A) {
  return A.Fmt == CUSPARSE_FORMAT_CSR || A.Fmt == CUSPARSE_FORMAT_CSC || A.Fmt == CUSPARSE_FORMAT_COO;
}
CUSPARSE_API cusparseStatus_t cusparseSparseToDense_bufferSize(cusparseHandle_t Hd, const void *A, void *B, int,
                                                               size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  auto *Am = lookup<SpMat>(A);
  if (!Am || !lookup<DnMat>(B))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!denseExpandable(*Am)) // as NVIDIA's (observed on an H200 and an H100)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  return setOut(Size, 0);
}
CUSPARSE_API cusparseStatus_t cusparseSparseToDense(cusparseHandle_t Hd, const void *A, void *B, int, void *) {
  HANDLE_OR_FAIL(Hd)
  auto *Am = lookup<SpMat>(A);
  auto *Bm = lookup<DnMat>(B);
  if (!Am || !Bm || Am->Rows != Bm->Rows || Am->Cols != Bm->Cols)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Am->VT != Bm->VT || !validValue(Am->VT) || !denseExpandable(*Am))
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  return onHost(H, [M0 = *Am, D0 = *Bm](Staged &S) {
    return [M = S.sp(M0), D = S.mat(D0, true)] {
      dispatch(M.VT, [&](auto Tag) {
        using T = decltype(Tag);
        for (int64_t I = 0; I < D.Rows; ++I)
          for (int64_t J = 0; J < D.Cols; ++J)
            at<T>(D, I, J) = T(0);
        const T *V = static_cast<const T *>(M.Val);
        forEach(M, [&](int64_t R, int64_t C, int64_t K) { at<T>(D, R, C) += V[K]; });
      });
    };
  });
}
CUSPARSE_API cusparseStatus_t cusparseDenseToSparse_bufferSize(cusparseHandle_t Hd, const void *A, void *B, int,
                                                               size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  if (!lookup<DnMat>(A) || !lookup<SpMat>(B))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return setOut(Size, 0);
}
CUSPARSE_API cusparseStatus_t cusparseDenseToSparse_analysis(cusparseHandle_t Hd, const void *A, void *B, int,
                                                             void *) {
  HANDLE_OR_FAIL(Hd)
  auto *Dm = lookup<DnMat>(A);
  auto *Sm = lookup<SpMat>(B);
  if (!Dm || !Sm || Dm->Rows != Sm->Rows || Dm->Cols != Sm->Cols)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Sm->Fmt == CUSPARSE_FORMAT_COO || Dm->VT != Sm->VT || !validValue(Dm->VT))
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  // The count is the caller's at return (then the arrays are allocated); the offsets are written too.
  auto Nnz = std::make_shared<int64_t>(0);
  const bool Csr = Sm->Fmt == CUSPARSE_FORMAT_CSR;
  const int64_t Outer = Csr ? Dm->Rows : Dm->Cols, Inner = Csr ? Dm->Cols : Dm->Rows;
  if (auto St = atReturn(H, [D0 = *Dm, Sp0 = *Sm, Nnz, Csr, Outer, Inner](Staged &S) {
        SpMat Sp = Sp0;
        Sp.Off = S.fresh(Sp0.Off, size_t(Outer + 1) * indexBytes(Sp0.OffType));
        return [D = S.mat(D0), Sp, Nnz, Csr, Outer, Inner] {
          dispatch(D.VT, [&](auto Tag) {
            using T = decltype(Tag);
            int64_t N = 0;
            for (int64_t O = 0; O < Outer; ++O) {
              if (Sp.Off)
                setIx(Sp.Off, Sp.OffType, O, N + Sp.Base);
              for (int64_t I = 0; I < Inner; ++I)
                N += (Csr ? at<T>(D, O, I) : at<T>(D, I, O)) != T(0);
            }
            if (Sp.Off)
              setIx(Sp.Off, Sp.OffType, Outer, N + Sp.Base);
            *Nnz = N;
          });
        };
      }))
    return St;
  Sm->Nnz = *Nnz;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseDenseToSparse_convert(cusparseHandle_t Hd, const void *A, void *B, int,
                                                            void *) {
  HANDLE_OR_FAIL(Hd)
  auto *Dm = lookup<DnMat>(A);
  auto *Sm = lookup<SpMat>(B);
  if (!Dm || !Sm || !Sm->Off || (Sm->Nnz && (!Sm->Ind || !Sm->Val)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Sm->Fmt == CUSPARSE_FORMAT_COO || Dm->VT != Sm->VT || !validValue(Dm->VT))
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  return onHost(H, [D0 = *Dm, S0 = *Sm](Staged &St) {
    return [D = St.mat(D0), S = St.filled(S0)] {
    dispatch(D.VT, [&](auto Tag) {
      using T = decltype(Tag);
      const bool Csr = S.Fmt == CUSPARSE_FORMAT_CSR;
      const int64_t Outer = Csr ? D.Rows : D.Cols, Inner = Csr ? D.Cols : D.Rows;
      int64_t K = 0;
      T *V = static_cast<T *>(S.Val);
      for (int64_t O = 0; O < Outer; ++O) {
        setIx(S.Off, S.OffType, O, K + S.Base);
        for (int64_t I = 0; I < Inner; ++I) {
          T X = Csr ? at<T>(D, O, I) : at<T>(D, I, O);
          if (X != T(0)) {
            setIx(S.Ind, S.IndType, K, I + S.Base);
            V[K++] = X;
          }
        }
      }
      setIx(S.Off, S.OffType, Outer, K + S.Base);
    });
    };
  });
}
CUSPARSE_API cusparseStatus_t cusparseCsr2cscEx2_bufferSize(cusparseHandle_t Hd, int M, int N, int Nnz, const void *,
                                                            const int *, const int *, void *, int *, int *,
                                                            cudaDataType VT, cusparseAction_t, cusparseIndexBase_t,
                                                            int, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  if (M < 0 || N < 0 || Nnz < 0 || !validValue(VT))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return setOut(Size, 0);
}
CUSPARSE_API cusparseStatus_t cusparseCsr2cscEx2(cusparseHandle_t Hd, int M, int N, int Nnz, const void *CsrVal,
                                                 const int *RowPtr, const int *ColInd, void *CscVal, int *ColPtr,
                                                 int *RowInd, cudaDataType VT, cusparseAction_t Act,
                                                 cusparseIndexBase_t Base, int, void *) {
  HANDLE_OR_FAIL(Hd)
  if (M < 0 || N < 0 || Nnz < 0 || !validValue(VT) || (Nnz && (!RowPtr || !ColInd || !ColPtr || !RowInd)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const size_t Sz = valueBytes(VT);
  const bool Numeric = Act == CUSPARSE_ACTION_NUMERIC && CsrVal && CscVal;
  // In stream order (on a GPU: after the stream, on host copies of the arrays, the outputs copied back).
  return staged(
      H,
      [=](const int *RowPtr, const int *ColInd, const char *CsrVal, int *ColPtr, int *RowInd, char *CscVal) {
        const int B = Base;
        std::vector<int> Count(size_t(N) + 1, 0);
        for (int K = 0; K < Nnz; ++K)
          ++Count[size_t(ColInd[K] - B + 1)];
        for (int J = 0; J < N; ++J)
          Count[size_t(J + 1)] += Count[size_t(J)];
        for (int J = 0; J <= N; ++J)
          ColPtr[J] = Count[size_t(J)] + B;
        for (int I = 0; I < M; ++I)
          for (int K = RowPtr[I] - B; K < RowPtr[I + 1] - B; ++K) {
            int Dst = Count[size_t(ColInd[K] - B)]++;
            RowInd[Dst] = I + B;
            if (Numeric)
              std::memcpy(CscVal + Dst * Sz, CsrVal + K * Sz, Sz);
          }
      },
      libs::in(RowPtr, size_t(M) + 1), libs::in(ColInd, size_t(Nnz)),
      libs::in(static_cast<const char *>(Numeric ? CsrVal : nullptr), Numeric ? size_t(Nnz) * Sz : 0),
      libs::out(ColPtr, size_t(N) + 1), libs::out(RowInd, size_t(Nnz)),
      libs::out(static_cast<char *>(Numeric ? CscVal : nullptr), Numeric ? size_t(Nnz) * Sz : 0));
}
CUSPARSE_API cusparseStatus_t cusparseXcsr2coo(cusparseHandle_t Hd, const int *RowPtr, int Nnz, int M, int *CooRows,
                                               cusparseIndexBase_t Base) {
  HANDLE_OR_FAIL(Hd)
  if (M < 0 || Nnz < 0 || (M && !RowPtr) || (Nnz && !CooRows))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return staged(
      H,
      [=](const int *RowPtr, int *CooRows) {
        for (int I = 0; I < M; ++I)
          for (int K = RowPtr[I] - Base; K < RowPtr[I + 1] - Base; ++K)
            CooRows[K] = I + Base;
      },
      libs::in(M ? RowPtr : nullptr, M ? size_t(M) + 1 : 0), libs::out(CooRows, size_t(Nnz)));
}
CUSPARSE_API cusparseStatus_t cusparseXcoo2csr(cusparseHandle_t Hd, const int *CooRows, int Nnz, int M, int *RowPtr,
                                               cusparseIndexBase_t Base) {
  HANDLE_OR_FAIL(Hd)
  if (M < 0 || Nnz < 0 || !RowPtr || (Nnz && !CooRows))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return staged(
      H,
      [=](const int *CooRows, int *RowPtr) {
        std::vector<int> Count(size_t(M) + 1, 0);
        for (int K = 0; K < Nnz; ++K)
          ++Count[size_t(CooRows[K] - Base + 1)];
        for (int I = 0; I < M; ++I)
          Count[size_t(I + 1)] += Count[size_t(I)];
        for (int I = 0; I <= M; ++I)
          RowPtr[I] = Count[size_t(I)] + Base;
      },
      libs::in(CooRows, size_t(Nnz)), libs::out(RowPtr, size_t(M) + 1));
}
