//===- Vectors.cpp - cuSPARSE: sparse vectors, SpSM, SDDMM ------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Sparse vectors (SpVV, Axpby, Gather, Scatter, Rot), SpSM and SDDMM.
#include "libs/cusparse/Internal.h"

using namespace zluda;
using namespace zluda::cusparse;

//===----------------------------------------------------------------------===//
// Sparse vectors (SpVV, Axpby, Gather, Scatter, Rot), SpSM, SDDMM
//===----------------------------------------------------------------------===//
namespace zluda::cusparse {
namespace {
struct SpSM {
  int Unused = 0;
};
} // namespace
} // namespace zluda::cusparse

CUSPARSE_API cusparseStatus_t cusparseCreateSpVec(cusparseSpVecDescr_t *Out, int64_t Size, int64_t Nnz, void *Ind,
                                                  void *Val, cusparseIndexType_t IT, cusparseIndexBase_t B,
                                                  cudaDataType VT) {
  if (!Out || Size < 0 || Nnz < 0 || Nnz > Size || !validIndex(IT) || !storable(VT) ||
      (B != CUSPARSE_INDEX_BASE_ZERO && B != CUSPARSE_INDEX_BASE_ONE))
    return CUSPARSE_STATUS_INVALID_VALUE;
  auto *V = new SpVec{Size, Nnz, Ind, Val, IT, B, VT};
  *Out = reinterpret_cast<cusparseSpVecDescr_t>(track(V));
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCreateConstSpVec(cusparseSpVecDescr_t *Out, int64_t Size, int64_t Nnz,
                                                       const void *Ind, const void *Val, cusparseIndexType_t IT,
                                                       cusparseIndexBase_t B, cudaDataType VT) {
  return cusparseCreateSpVec(Out, Size, Nnz, const_cast<void *>(Ind), const_cast<void *>(Val), IT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseDestroySpVec(const void *D) {
  return drop(lookup<SpVec>(D)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}
CUSPARSE_API cusparseStatus_t cusparseSpVecGet(cusparseSpVecDescr_t D, int64_t *Size, int64_t *Nnz, void **Ind,
                                               void **Val, cusparseIndexType_t *IT, cusparseIndexBase_t *B,
                                               cudaDataType *VT) {
  auto *V = lookup<SpVec>(D);
  if (!V || !Size || !Nnz || !Ind || !Val || !IT || !B || !VT)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Size = V->Size, *Nnz = V->Nnz, *Ind = V->Ind, *Val = V->Val, *IT = V->IndType, *B = V->Base, *VT = V->VT;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpVecGetIndexBase(const void *D, cusparseIndexBase_t *B) {
  auto *V = lookup<SpVec>(D);
  if (!V || !B)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *B = V->Base;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpVecGetValues(cusparseSpVecDescr_t D, void **Val) {
  auto *V = lookup<SpVec>(D);
  if (!V || !Val)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Val = V->Val;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpVecSetValues(cusparseSpVecDescr_t D, void *Val) {
  auto *V = lookup<SpVec>(D);
  if (!V)
    return CUSPARSE_STATUS_INVALID_VALUE;
  V->Val = Val;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseConstSpVecGet(const void *D, int64_t *Size, int64_t *Nnz, const void **Ind,
                                                    const void **Val, cusparseIndexType_t *IT, cusparseIndexBase_t *B,
                                                    cudaDataType *VT) {
  return cusparseSpVecGet(reinterpret_cast<cusparseSpVecDescr_t>(const_cast<void *>(D)), Size, Nnz,
                          const_cast<void **>(Ind), const_cast<void **>(Val), IT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseConstSpVecGetValues(const void *D, const void **Val) {
  return cusparseSpVecGetValues(reinterpret_cast<cusparseSpVecDescr_t>(const_cast<void *>(D)),
                                const_cast<void **>(Val));
}

namespace {
/// SpVV's mixed precisions (cuSPARSE's table): X and Y of one type, the compute (and result) type wider.
bool spvvMixed(cudaDataType V, cudaDataType C) {
  return (V == CUDA_R_8I && (C == CUDA_R_32I || C == CUDA_R_32F)) ||
         ((V == CUDA_R_16F || V == CUDA_R_16BF) && C == CUDA_R_32F) ||
         ((V == CUDA_C_16F || V == CUDA_C_16BF) && C == CUDA_C_32F);
}
} // namespace

CUSPARSE_API cusparseStatus_t cusparseSpVV_bufferSize(cusparseHandle_t Hd, cusparseOperation_t Op, const void *X,
                                                      const void *Y, const void *Result, cudaDataType Compute,
                                                      size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  auto *Xv = lookup<SpVec>(X);
  auto *Yv = lookup<DnVec>(Y);
  if (!Xv || !Yv || !Result || Xv->Size != Yv->Size ||
      (Op != CUSPARSE_OPERATION_NON_TRANSPOSE && Op != CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Xv->VT != Yv->VT || !(Xv->VT == Compute ? validValue(Compute) : spvvMixed(Xv->VT, Compute)))
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  return setOut(Size, 0);
}
/// result = op(x) . y; the result is in host or device memory by the pointer mode. On a GPU: after the stream,
/// on host copies of x and y.
CUSPARSE_API cusparseStatus_t cusparseSpVV(cusparseHandle_t Hd, cusparseOperation_t Op, const void *X,
                                           const void *Y, void *Result, cudaDataType Compute, void *) {
  size_t Unused;
  if (auto S = cusparseSpVV_bufferSize(Hd, Op, X, Y, Result, Compute, &Unused))
    return S;
  Handle *H = handle(Hd);
  SpVec Xc = *lookup<SpVec>(X);
  DnVec Yc = *lookup<DnVec>(Y);
  auto Run = [=](const SpVec &Xc, const DnVec &Yc, void *Result) {
    if (Xc.VT != Compute) { // mixed: the narrow values widened, summed in double, rounded once to the result's type
      Cd Sum = 0;
      for (int64_t K = 0; K < Xc.Nnz; ++K) {
        const Cd V = loadValue(Xc.VT, Xc.Val, K);
        Sum += (Op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE ? std::conj(V) : V) *
               loadValue(Yc.VT, Yc.Val, getIx(Xc.Ind, Xc.IndType, K) - Xc.Base);
      }
      storeValue(Compute, Result, 0, Sum);
      return;
    }
    dispatch(Compute, [&](auto Tag) {
      using T = decltype(Tag);
      const T *V = static_cast<const T *>(Xc.Val), *Yd = static_cast<const T *>(Yc.Val);
      T Sum = T(0);
      for (int64_t K = 0; K < Xc.Nnz; ++K)
        Sum += conjIf(V[K], Op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE) * Yd[getIx(Xc.Ind, Xc.IndType, K) - Xc.Base];
      std::memcpy(Result, &Sum, sizeof Sum);
    });
  };
  const bool HostResult = H->PointerMode == CUSPARSE_POINTER_MODE_HOST;
  auto Stage = [=](Staged &S) {
    return [Run, X = S.spv(Xc), Y = S.vec(Yc), R = HostResult ? Result : S.fresh(Result, valueBytes(Compute))] {
      Run(X, Y, R);
    };
  };
  return HostResult ? atReturn(H, Stage) : onHost(H, Stage); // a host result is the caller's at return
}
CUSPARSE_API cusparseStatus_t cusparseAxpby(cusparseHandle_t Hd, const void *Alpha, const void *X, const void *Beta,
                                            void *Y) {
  HANDLE_OR_FAIL(Hd)
  auto *Xv = lookup<SpVec>(X);
  auto *Yv = lookup<DnVec>(Y);
  if (!Xv || !Yv || !Alpha || !Beta || Xv->Size != Yv->Size)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Xv->VT != Yv->VT || !validValue(Xv->VT))
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  Scalar Al0(*H, Alpha, Yv->VT), Be0(*H, Beta, Yv->VT);
  return onHost(H, [X0 = *Xv, Y0 = *Yv, Al0, Be0](Staged &S) {
    return [Xc = S.spv(X0), Yc = S.vec(Y0, true), Al = S.scalar(Al0, Y0.VT), Be = S.scalar(Be0, Y0.VT)] {
    dispatch(Yc.VT, [&](auto Tag) {
      using T = decltype(Tag);
      T *Yd = static_cast<T *>(Yc.Val);
      const T *V = static_cast<const T *>(Xc.Val);
      const T A = Al.get<T>(), B = Be.get<T>();
      for (int64_t I = 0; I < Yc.Size; ++I)
        Yd[I] = B == T(0) ? T(0) : B * Yd[I];
      for (int64_t K = 0; K < Xc.Nnz; ++K)
        Yd[getIx(Xc.Ind, Xc.IndType, K) - Xc.Base] += A * V[K];
    });
    };
  });
}
CUSPARSE_API cusparseStatus_t cusparseGather(cusparseHandle_t Hd, const void *Y, void *X) {
  HANDLE_OR_FAIL(Hd)
  auto *Xv = lookup<SpVec>(X);
  auto *Yv = lookup<DnVec>(Y);
  if (!Xv || !Yv || Xv->Size != Yv->Size || Xv->VT != Yv->VT)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return onHost(H, [X0 = *Xv, Y0 = *Yv](Staged &S) {
    return [Xc = S.spv(X0, true), Yc = S.vec(Y0)] {
      const size_t Sz = valueBytes(Xc.VT);
      for (int64_t K = 0; K < Xc.Nnz; ++K)
        std::memcpy(static_cast<char *>(Xc.Val) + K * Sz,
                    static_cast<const char *>(Yc.Val) + (getIx(Xc.Ind, Xc.IndType, K) - Xc.Base) * Sz, Sz);
    };
  });
}
CUSPARSE_API cusparseStatus_t cusparseScatter(cusparseHandle_t Hd, const void *X, void *Y) {
  HANDLE_OR_FAIL(Hd)
  auto *Xv = lookup<SpVec>(X);
  auto *Yv = lookup<DnVec>(Y);
  if (!Xv || !Yv || Xv->Size != Yv->Size || Xv->VT != Yv->VT)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return onHost(H, [X0 = *Xv, Y0 = *Yv](Staged &S) {
    return [Xc = S.spv(X0), Yc = S.vec(Y0, true)] {
      const size_t Sz = valueBytes(Xc.VT);
      for (int64_t K = 0; K < Xc.Nnz; ++K)
        std::memcpy(static_cast<char *>(Yc.Val) + (getIx(Xc.Ind, Xc.IndType, K) - Xc.Base) * Sz,
                    static_cast<const char *>(Xc.Val) + K * Sz, Sz);
    };
  });
}
/// Givens rotation of x (sparse) and y at x's entries: x' = c x + s y, y' = c y - s x.
CUSPARSE_API cusparseStatus_t cusparseRot(cusparseHandle_t Hd, const void *C, const void *S, void *X, void *Y) {
  HANDLE_OR_FAIL(Hd)
  auto *Xv = lookup<SpVec>(X);
  auto *Yv = lookup<DnVec>(Y);
  if (!Xv || !Yv || !C || !S || Xv->Size != Yv->Size || Xv->VT != Yv->VT || !validValue(Xv->VT))
    return CUSPARSE_STATUS_INVALID_VALUE;
  Scalar Cs0(*H, C, Xv->VT), Ss0(*H, S, Xv->VT);
  return onHost(H, [X0 = *Xv, Y0 = *Yv, Cs0, Ss0](Staged &St) {
    return [Xc = St.spv(X0, true), Yc = St.vec(Y0, true), Cs = St.scalar(Cs0, X0.VT), Ss = St.scalar(Ss0, X0.VT)] {
    dispatch(Xc.VT, [&](auto Tag) {
      using T = decltype(Tag);
      T *V = static_cast<T *>(Xc.Val), *Yd = static_cast<T *>(Yc.Val);
      const T Cv = Cs.get<T>(), Sv = Ss.get<T>();
      for (int64_t K = 0; K < Xc.Nnz; ++K) {
        T &Yk = Yd[getIx(Xc.Ind, Xc.IndType, K) - Xc.Base];
        T Xk = V[K];
        V[K] = Cv * Xk + Sv * Yk;
        Yk = Cv * Yk - Sv * Xk;
      }
    });
    };
  });
}

// SpSM: op(A) C = alpha op(B), column by column through SpSV's solver.
CUSPARSE_API cusparseStatus_t cusparseSpSM_createDescr(cusparseSpSMDescr_t *Out) {
  if (!Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Out = reinterpret_cast<cusparseSpSMDescr_t>(track(new SpSM));
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpSM_destroyDescr(cusparseSpSMDescr_t D) {
  return drop(lookup<SpSM>(D)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}
static cusparseStatus_t checkSpsm(cusparseOperation_t OpA, cusparseOperation_t OpB, const void *Alpha, const void *A,
                                  const void *B, const void *C, cudaDataType Compute, const void *D) {
  auto *Am = lookup<SpMat>(A);
  auto *Bm = lookup<DnMat>(B);
  auto *Cm = lookup<DnMat>(C);
  if (!Am || !Bm || !Cm || !Alpha || !lookup<SpSM>(D) || !validOp(OpA) || !validOp(OpB))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!validValue(Compute) || Am->Fmt == CUSPARSE_FORMAT_CSC || Am->VT != Compute || Bm->VT != Compute ||
      Cm->VT != Compute)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  const int64_t Nb = opSwaps(OpB) ? Bm->Rows : Bm->Cols, Mb = opSwaps(OpB) ? Bm->Cols : Bm->Rows;
  if (Am->Rows != Am->Cols || Mb != Am->Rows || Cm->Rows != Am->Rows || Cm->Cols != Nb)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpSM_bufferSize(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                      cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                      const void *B, void *C, cudaDataType Compute, int,
                                                      cusparseSpSMDescr_t D, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  if (auto S = checkSpsm(OpA, OpB, Alpha, A, B, C, Compute, D))
    return S;
  return setOut(Size, 0);
}
CUSPARSE_API cusparseStatus_t cusparseSpSM_analysis(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                    cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                    const void *B, void *C, cudaDataType Compute, int,
                                                    cusparseSpSMDescr_t D, void *) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  return checkSpsm(OpA, OpB, Alpha, A, B, C, Compute, D);
}
CUSPARSE_API cusparseStatus_t cusparseSpSM_solve(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                 cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                 const void *B, void *C, cudaDataType Compute, int,
                                                 cusparseSpSMDescr_t D) {
  HANDLE_OR_FAIL(Hd)
  if (auto S = checkSpsm(OpA, OpB, Alpha, A, B, C, Compute, D))
    return S;
  SpMat M = *lookup<SpMat>(A);
  DnMat Bc = *lookup<DnMat>(B), Cc = *lookup<DnMat>(C);
  Scalar Al(*H, Alpha, Compute);
  auto Run = [=](const SpMat &M, const DnMat &Bc, const DnMat &Cc, const Scalar &Al) {
    dispatch(Compute, [&](auto Tag) {
      using T = decltype(Tag);
      const int64_t N = M.Rows;
      std::vector<T> X(static_cast<size_t>(N)), Y(static_cast<size_t>(N));
      for (int64_t J = 0; J < Cc.Cols; ++J) {
        for (int64_t I = 0; I < N; ++I)
          X[static_cast<size_t>(I)] = OpB == CUSPARSE_OPERATION_NON_TRANSPOSE
                                          ? at<T>(Bc, I, J)
                                          : conjIf(at<T>(Bc, J, I), OpB == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE);
        spsv<T>(M, OpA, Al.get<T>(), X.data(), Y.data());
        for (int64_t I = 0; I < N; ++I)
          at<T>(Cc, I, J) = Y[static_cast<size_t>(I)];
      }
    });
  };
  return onHost(H, [=](Staged &S) {
    return [Run, M = S.sp(M), B = S.mat(Bc), C = S.mat(Cc, true), A = S.scalar(Al, Compute)] { Run(M, B, C, A); };
  });
}
CUSPARSE_API cusparseStatus_t cusparseSpSM_updateMatrix(cusparseHandle_t Hd, cusparseSpSMDescr_t D, void *, int) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  return lookup<SpSM>(D) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}

// SDDMM: C = alpha (op(A) op(B)) at C's sparsity pattern + beta C (CSR or COO C).
static cusparseStatus_t checkSddmm(cusparseOperation_t OpA, cusparseOperation_t OpB, const void *Alpha,
                                   const void *A, const void *B, const void *Beta, const void *C,
                                   cudaDataType Compute) {
  auto *Am = lookup<DnMat>(A);
  auto *Bm = lookup<DnMat>(B);
  auto *Cm = lookup<SpMat>(C);
  if (!Am || !Bm || !Cm || !Alpha || !Beta || !validOp(OpA) || !validOp(OpB))
    return CUSPARSE_STATUS_INVALID_VALUE;
  // As NVIDIA's (every combination tried on an H100, tests/golden/libs/cusparse_types_ops.golden): one type, or
  // f16 dense matrices into an f16 or f32 sparse C computed in f32.
  const bool Uniform = validValue(Compute) && Am->VT == Compute && Bm->VT == Compute && Cm->VT == Compute;
  const bool Half = Compute == CUDA_R_32F && Am->VT == CUDA_R_16F && Bm->VT == CUDA_R_16F &&
                    (Cm->VT == CUDA_R_16F || Cm->VT == CUDA_R_32F);
  if (!(Uniform || Half) || Cm->Fmt == CUSPARSE_FORMAT_CSC)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  const int64_t M = opSwaps(OpA) ? Am->Cols : Am->Rows, K = opSwaps(OpA) ? Am->Rows : Am->Cols;
  const int64_t Kb = opSwaps(OpB) ? Bm->Cols : Bm->Rows, N = opSwaps(OpB) ? Bm->Rows : Bm->Cols;
  if (K != Kb || Cm->Rows != M || Cm->Cols != N)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSDDMM_bufferSize(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                       cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                       const void *B, const void *Beta, void *C,
                                                       cudaDataType Compute, int, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  if (auto S = checkSddmm(OpA, OpB, Alpha, A, B, Beta, C, Compute))
    return S;
  return setOut(Size, 0);
}
CUSPARSE_API cusparseStatus_t cusparseSDDMM_preprocess(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                       cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                       const void *B, const void *Beta, void *C,
                                                       cudaDataType Compute, int, void *) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  return checkSddmm(OpA, OpB, Alpha, A, B, Beta, C, Compute);
}
CUSPARSE_API cusparseStatus_t cusparseSDDMM(cusparseHandle_t Hd, cusparseOperation_t OpA, cusparseOperation_t OpB,
                                            const void *Alpha, const void *A, const void *B, const void *Beta, void *C,
                                            cudaDataType Compute, int, void *) {
  HANDLE_OR_FAIL(Hd)
  if (auto S = checkSddmm(OpA, OpB, Alpha, A, B, Beta, C, Compute))
    return S;
  DnMat Ac = *lookup<DnMat>(A), Bc = *lookup<DnMat>(B);
  SpMat Cm = *lookup<SpMat>(C);
  Scalar Al(*H, Alpha, Compute), Be(*H, Beta, Compute);
  auto Run = [=](const DnMat &Ac0, const DnMat &Bc0, const SpMat &Cm0, const Scalar &Al, const Scalar &Be) {
    // f16 operands: widened to f32, C's values rounded once back to its type.
    DnMat Ac = Ac0, Bc = Bc0;
    SpMat Cm = Cm0;
    std::vector<float> Aw, Bw, Cw;
    if (Ac.VT != Compute) {
      Aw = widen<float>(Ac.VT, Ac.Val, denseSpan(Ac)), Bw = widen<float>(Bc.VT, Bc.Val, denseSpan(Bc));
      Ac = withValues(Ac, Aw.data(), Compute), Bc = withValues(Bc, Bw.data(), Compute);
    }
    if (Cm.VT != Compute) {
      Cw = widen<float>(Cm.VT, Cm.Val, Cm.Nnz);
      Cm = withValues(Cm, Cw.data(), Compute);
    }
    dispatch(Compute, [&](auto Tag) {
      using T = decltype(Tag);
      const int64_t K = opSwaps(OpA) ? Ac.Rows : Ac.Cols;
      const T A1 = Al.get<T>(), B1 = Be.get<T>();
      T *V = static_cast<T *>(Cm.Val);
      forEach(Cm, [&](int64_t R, int64_t Cc, int64_t P) {
        T Sum = T(0);
        for (int64_t L = 0; L < K; ++L) {
          T Av = OpA == CUSPARSE_OPERATION_NON_TRANSPOSE
                     ? at<T>(Ac, R, L)
                     : conjIf(at<T>(Ac, L, R), OpA == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE);
          T Bv = OpB == CUSPARSE_OPERATION_NON_TRANSPOSE
                     ? at<T>(Bc, L, Cc)
                     : conjIf(at<T>(Bc, Cc, L), OpB == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE);
          Sum += Av * Bv;
        }
        V[P] = A1 * Sum + (B1 == T(0) ? T(0) : B1 * V[P]);
      });
    });
    if (Cm0.VT != Compute)
      narrow(Cm0.VT, Cm0.Val, Cw);
  };
  return onHost(H, [=](Staged &S) {
    return [Run, A = S.mat(Ac), B = S.mat(Bc), C = S.sp(Cm, true), Al = S.scalar(Al, Compute),
            Be = S.scalar(Be, Compute)] { Run(A, B, C, Al, Be); };
  });
}
