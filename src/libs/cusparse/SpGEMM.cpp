//===- SpGEMM.cpp - cuSPARSE: SpGEMM ----------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The generic sparse x sparse product (CSR x CSR): work estimation, compute, copy.
#include "libs/cusparse/Internal.h"

using namespace zluda;
using namespace zluda::cusparse;

//===----------------------------------------------------------------------===//
// SpGEMM (CSR x CSR)
//===----------------------------------------------------------------------===//
CUSPARSE_API cusparseStatus_t cusparseSpGEMM_createDescr(cusparseSpGEMMDescr_t *Out) {
  if (!Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Out = reinterpret_cast<cusparseSpGEMMDescr_t>(track(new SpGEMM));
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpGEMM_destroyDescr(cusparseSpGEMMDescr_t D) {
  return drop(lookup<SpGEMM>(D)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}
namespace zluda::cusparse {
namespace {
/// The number of intermediate products of A B (each entry of A times B's row), kept for getNumProducts: counted
/// in stream order (the arrays as the stream's work leaves them; CPU device), read when asked for.
cusparseStatus_t countProducts(Handle *H, const SpMat &A, const SpMat &B, SpGEMM &G) {
  G.Stream = H->Stream;
  auto Out = G.Products;
  return onHost(H, [A, B, Out](Staged &S) { return [A = S.sp(A), B = S.sp(B), Out] {
    std::vector<int64_t> RowNnz(size_t(B.Rows), 0);
    forEach(B, [&](int64_t R, int64_t, int64_t) {
      if (R >= 0 && R < B.Rows)
        ++RowNnz[size_t(R)];
    });
    int64_t N = 0;
    forEach(A, [&](int64_t, int64_t C, int64_t) {
      if (C >= 0 && C < B.Rows)
        N += RowNnz[size_t(C)];
    });
    *Out = N;
  }; });
}
} // namespace
} // namespace zluda::cusparse

static cusparseStatus_t checkSpgemm(cusparseOperation_t OpA, cusparseOperation_t OpB, const void *Alpha,
                                    const void *A, const void *B, const void *C, cudaDataType Compute, const void *D,
                                    SpMat *&Am, SpMat *&Bm, SpMat *&Cm, SpGEMM *&G) {
  Am = lookup<SpMat>(A), Bm = lookup<SpMat>(B), Cm = lookup<SpMat>(C), G = lookup<SpGEMM>(D);
  if (!Am || !Bm || !Cm || !G || !Alpha)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (OpA != CUSPARSE_OPERATION_NON_TRANSPOSE || OpB != CUSPARSE_OPERATION_NON_TRANSPOSE ||
      Am->Fmt != CUSPARSE_FORMAT_CSR || Bm->Fmt != CUSPARSE_FORMAT_CSR || Cm->Fmt != CUSPARSE_FORMAT_CSR)
    return CUSPARSE_STATUS_NOT_SUPPORTED; // as NVIDIA's: non-transposed CSR only
  // As NVIDIA's (every combination tried on an H100, tests/golden/libs/cusparse_types_ops.golden): A, C and the
  // compute type one type, f16, bf16 and their complex forms too; B's type is not checked there (its values are
  // read as A's type), ours converts B's values from their own type.
  if (!(validValue(workOf(Compute)) && storable(Compute)) || Am->VT != Compute || Cm->VT != Compute ||
      !storable(Bm->VT))
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  if (Am->Cols != Bm->Rows || Cm->Rows != Am->Rows || Cm->Cols != Bm->Cols)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpGEMM_workEstimation(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                            cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                            const void *B, const void *, cusparseSpMatDescr_t C,
                                                            cudaDataType Compute, int, cusparseSpGEMMDescr_t D,
                                                            size_t *Size1, void *) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  SpMat *Am, *Bm, *Cm;
  SpGEMM *G;
  if (auto S = checkSpgemm(OpA, OpB, Alpha, A, B, C, Compute, D, Am, Bm, Cm, G))
    return S;
  if (!Size1)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (*Size1 == 0)
    *Size1 = 16; // a token size: the product is computed in compute()
  return countProducts(H, *Am, *Bm, *G);
}
CUSPARSE_API cusparseStatus_t cusparseSpGEMM_compute(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                     cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                     const void *B, const void *, cusparseSpMatDescr_t C,
                                                     cudaDataType Compute, int, cusparseSpGEMMDescr_t D, size_t *Size2,
                                                     void *Buffer2) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am, *Bm, *Cm;
  SpGEMM *G;
  if (auto S = checkSpgemm(OpA, OpB, Alpha, A, B, C, Compute, D, Am, Bm, Cm, G))
    return S;
  if (!Size2)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!Buffer2) { // the size query
    if (*Size2 == 0)
      *Size2 = 16;
    return CUSPARSE_STATUS_SUCCESS;
  }
  // C's size is the caller's at return: the product is formed now, after the
  // work queued before it.
  Scalar Al(*H, Alpha, Compute);
  if (auto S = atReturn(H, [Ac = *Am, Bc = *Bm, Al, G, Compute](Staged &S) {
        return [A = S.sp(Ac), B = S.sp(Bc), Al = S.scalar(Al, Compute), G, Compute] {
          if (B.VT == Compute && validValue(Compute))
            return dispatch(Compute, [&](auto Tag) {
              using T = decltype(Tag);
              spgemm<T>(A, B, Al.get<T>(), *G);
            });
          // Narrow or mixed types: A's and B's values widened to the work type, C's rounded once to its type.
          const cudaDataType Wt = workOf(Compute);
          dispatch(Wt, [&](auto Tag) {
            using W = decltype(Tag);
            std::vector<W> Aw = widen<W>(A.VT, A.Val, A.Nnz), Bw = widen<W>(B.VT, B.Val, B.Nnz);
            spgemm<W>(withValues(A, Aw.data(), Wt), withValues(B, Bw.data(), Wt), asWork<W>(scalarValue(Al, Compute)),
                      *G);
            std::vector<W> V(G->Val.size() / sizeof(W));
            if (!V.empty())
              std::memcpy(V.data(), G->Val.data(), G->Val.size());
            G->Val.resize(V.size() * valueBytes(Compute));
            narrow(Compute, G->Val.data(), V);
          });
        };
      }))
    return S;
  Cm->Nnz = int64_t(G->Ind.size());
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpGEMM_copy(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                  cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                  const void *B, const void *, cusparseSpMatDescr_t C,
                                                  cudaDataType Compute, int, cusparseSpGEMMDescr_t D) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am, *Bm, *Cm;
  SpGEMM *G;
  if (auto S = checkSpgemm(OpA, OpB, Alpha, A, B, C, Compute, D, Am, Bm, Cm, G))
    return S;
  if (G->Off.size() != size_t(Cm->Rows + 1) || !Cm->Off || (Cm->Nnz && (!Cm->Ind || !Cm->Val)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  auto Prod = std::make_shared<SpGEMM>(*G);
  return onHost(H, [C = *Cm, Prod](Staged &S) {
    return [Out = S.filled(C), Prod] {
      const int64_t B = Out.Base;
      for (size_t I = 0; I < Prod->Off.size(); ++I)
        setIx(Out.Off, Out.OffType, int64_t(I), Prod->Off[I] + B);
      for (size_t K = 0; K < Prod->Ind.size(); ++K)
        setIx(Out.Ind, Out.IndType, int64_t(K), Prod->Ind[K] + B);
      if (!Prod->Val.empty())
        std::memcpy(Out.Val, Prod->Val.data(), Prod->Val.size());
    };
  });
}

CUSPARSE_API cusparseStatus_t cusparseSpGEMM_getNumProducts(cusparseSpGEMMDescr_t D, int64_t *N) {
  auto *G = lookup<SpGEMM>(D);
  if (!G || !N)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (libs::cpuDevice() && libs::wait(G->Stream)) // the count queued by the work estimation
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  *N = *G->Products;
  return CUSPARSE_STATUS_SUCCESS;
}
/// CUSPARSE_SPGEMM_ALG3's memory estimate: our product needs no external buffers (token sizes).
CUSPARSE_API cusparseStatus_t cusparseSpGEMM_estimateMemory(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                           cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                           const void *B, const void *, cusparseSpMatDescr_t C,
                                                           cudaDataType Compute, int, cusparseSpGEMMDescr_t D,
                                                           float Chunk, size_t *Size3, void *, size_t *Size2) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  SpMat *Am, *Bm, *Cm;
  SpGEMM *G;
  if (auto S = checkSpgemm(OpA, OpB, Alpha, A, B, C, Compute, D, Am, Bm, Cm, G))
    return S;
  if (!Size3 || !(Chunk > 0 && Chunk <= 1))
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Size3 = 16;
  if (Size2)
    *Size2 = 16;
  return CUSPARSE_STATUS_SUCCESS;
}

// SpGEMM with structure reuse: C's pattern from A's and B's (nnz), copied into C's arrays (copy), then its values
// computed as often as A's and B's values change (compute: C = alpha op(A) op(B) + beta C on that pattern).
namespace zluda::cusparse {
namespace {
cusparseStatus_t checkReuse(cusparseOperation_t OpA, cusparseOperation_t OpB, const void *A, const void *B,
                            const void *C, const void *D, SpMat *&Am, SpMat *&Bm, SpMat *&Cm, SpGEMM *&G) {
  Am = lookup<SpMat>(A), Bm = lookup<SpMat>(B), Cm = lookup<SpMat>(C), G = lookup<SpGEMM>(D);
  if (!Am || !Bm || !Cm || !G)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (OpA != CUSPARSE_OPERATION_NON_TRANSPOSE || OpB != CUSPARSE_OPERATION_NON_TRANSPOSE ||
      Am->Fmt != CUSPARSE_FORMAT_CSR || Bm->Fmt != CUSPARSE_FORMAT_CSR || Cm->Fmt != CUSPARSE_FORMAT_CSR)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  if (Am->Cols != Bm->Rows || Cm->Rows != Am->Rows || Cm->Cols != Bm->Cols)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}
/// A buffer-size query (null buffer) sets a token size; true when the call is a query.
bool sizeQuery(size_t *Size, const void *Buffer) {
  if (Buffer)
    return false;
  if (Size && *Size == 0)
    *Size = 16;
  return true;
}
} // namespace
} // namespace zluda::cusparse

CUSPARSE_API cusparseStatus_t cusparseSpGEMMreuse_workEstimation(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                                cusparseOperation_t OpB, const void *A, const void *B,
                                                                cusparseSpMatDescr_t C, int, cusparseSpGEMMDescr_t D,
                                                                size_t *Size1, void *Buffer1) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am, *Bm, *Cm;
  SpGEMM *G;
  if (auto S = checkReuse(OpA, OpB, A, B, C, D, Am, Bm, Cm, G))
    return S;
  if (!Size1)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (sizeQuery(Size1, Buffer1))
    return CUSPARSE_STATUS_SUCCESS;
  return countProducts(H, *Am, *Bm, *G);
}
CUSPARSE_API cusparseStatus_t cusparseSpGEMMreuse_nnz(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                     cusparseOperation_t OpB, const void *A, const void *B,
                                                     cusparseSpMatDescr_t C, int, cusparseSpGEMMDescr_t D,
                                                     size_t *Size2, void *Buffer2, size_t *Size3, void *Buffer3,
                                                     size_t *Size4, void *Buffer4) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am, *Bm, *Cm;
  SpGEMM *G;
  if (auto S = checkReuse(OpA, OpB, A, B, C, D, Am, Bm, Cm, G))
    return S;
  if (!Size2 || !Size3 || !Size4)
    return CUSPARSE_STATUS_INVALID_VALUE;
  bool Q2 = sizeQuery(Size2, Buffer2), Q3 = sizeQuery(Size3, Buffer3), Q4 = sizeQuery(Size4, Buffer4);
  if (Q2 || Q3 || Q4)
    return CUSPARSE_STATUS_SUCCESS;
  // C's size is the caller's at return: the pattern is formed now, after the work queued before it.
  if (auto S = atReturn(H, [Ac = *Am, Bc = *Bm, G](Staged &S) {
        return [A = S.sp(Ac), B = S.sp(Bc), G] {
          auto Ar = rowsOf(A), Br = rowsOf(B);
          std::vector<int64_t> Mark(size_t(B.Cols), -1), Cols;
          G->Off.assign(1, 0);
          G->Ind.clear();
          G->Val.clear();
          for (int64_t I = 0; I < A.Rows; ++I) {
            Cols.clear();
            for (auto [K, Ka] : Ar[size_t(I)])
              if (K >= 0 && K < B.Rows)
                for (auto [J, Kb] : Br[size_t(K)])
                  if (J >= 0 && J < B.Cols && Mark[size_t(J)] != I) {
                    Mark[size_t(J)] = I;
                    Cols.push_back(J);
                  }
            std::sort(Cols.begin(), Cols.end());
            G->Ind.insert(G->Ind.end(), Cols.begin(), Cols.end());
            G->Off.push_back(int64_t(G->Ind.size()));
          }
        };
      }))
    return S;
  Cm->Nnz = int64_t(G->Ind.size());
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpGEMMreuse_copy(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                      cusparseOperation_t OpB, const void *A, const void *B,
                                                      cusparseSpMatDescr_t C, int, cusparseSpGEMMDescr_t D,
                                                      size_t *Size5, void *Buffer5) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am, *Bm, *Cm;
  SpGEMM *G;
  if (auto S = checkReuse(OpA, OpB, A, B, C, D, Am, Bm, Cm, G))
    return S;
  if (!Size5)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (sizeQuery(Size5, Buffer5))
    return CUSPARSE_STATUS_SUCCESS;
  if (G->Off.size() != size_t(Cm->Rows + 1) || !Cm->Off || (Cm->Nnz && !Cm->Ind))
    return CUSPARSE_STATUS_INVALID_VALUE; // cusparseSpGEMMreuse_nnz first, and C's arrays set
  auto Pattern = std::make_shared<SpGEMM>(*G);
  return onHost(H, [C = *Cm, Pattern](Staged &S) {
    SpMat Out = C;
    const int64_t Outer = C.Rows;
    Out.Off = S.fresh(C.Off, size_t(Outer + 1) * indexBytes(C.OffType));
    Out.Ind = S.fresh(C.Ind, size_t(C.Nnz) * indexBytes(C.IndType));
    return [Out, Pattern] {
      const int64_t B = Out.Base;
      for (size_t I = 0; I < Pattern->Off.size(); ++I)
        setIx(Out.Off, Out.OffType, int64_t(I), Pattern->Off[I] + B);
      for (size_t K = 0; K < Pattern->Ind.size(); ++K)
        setIx(Out.Ind, Out.IndType, int64_t(K), Pattern->Ind[K] + B);
    };
  });
}
CUSPARSE_API cusparseStatus_t cusparseSpGEMMreuse_compute(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                         cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                         const void *B, const void *Beta, cusparseSpMatDescr_t C,
                                                         cudaDataType Compute, int, cusparseSpGEMMDescr_t D) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am, *Bm, *Cm;
  SpGEMM *G;
  if (auto S = checkReuse(OpA, OpB, A, B, C, D, Am, Bm, Cm, G))
    return S;
  if (!Alpha || !Beta)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!validValue(Compute) || Am->VT != Compute || Bm->VT != Compute || Cm->VT != Compute)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  if (!Cm->Off || (Cm->Nnz && (!Cm->Ind || !Cm->Val)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  Scalar Al0(*H, Alpha, Compute), Be0(*H, Beta, Compute);
  return onHost(H, [A0 = *Am, B0 = *Bm, C0 = *Cm, Al0, Be0, Compute](Staged &S) {
    return [Ac = S.sp(A0), Bc = S.sp(B0), Cc = S.sp(C0, true), Al = S.scalar(Al0, Compute), Be = S.scalar(Be0, Compute),
            Compute] {
    dispatch(Compute, [&](auto Tag) {
      using T = decltype(Tag);
      const T Alv = Al.get<T>(), Bev = Be.get<T>();
      const T *Av = static_cast<const T *>(Ac.Val), *Bv = static_cast<const T *>(Bc.Val);
      T *Cv = static_cast<T *>(Cc.Val);
      auto Ar = rowsOf(Ac), Br = rowsOf(Bc);
      std::vector<T> Acc(size_t(Bc.Cols), T(0));
      std::vector<int64_t> Touched;
      for (int64_t I = 0; I < Ac.Rows; ++I) {
        Touched.clear();
        for (auto [K, Ka] : Ar[size_t(I)])
          if (K >= 0 && K < Bc.Rows)
            for (auto [J, Kb] : Br[size_t(K)])
              if (J >= 0 && J < Bc.Cols) {
                Acc[size_t(J)] += Av[Ka] * Bv[Kb];
                Touched.push_back(J);
              }
        const int64_t Base = Cc.Base;
        for (int64_t P = getIx(Cc.Off, Cc.OffType, I) - Base; P < getIx(Cc.Off, Cc.OffType, I + 1) - Base; ++P) {
          const int64_t J = getIx(Cc.Ind, Cc.IndType, P) - Base;
          Cv[P] = Alv * Acc[size_t(J)] + (Bev == T(0) ? T(0) : Bev * Cv[P]);
        }
        for (int64_t J : Touched)
          Acc[size_t(J)] = T(0);
      }
    });
    };
  });
}
