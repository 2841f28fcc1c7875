//===- SpMV.cpp - cuSPARSE: SpMV, SpMM, SpSV --------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The generic products and triangular solves (on AMD GPUs SpMV and SpMM of
/// CSR, CSC and COO matrices through rocSPARSE where it loads).
#include "libs/cusparse/Internal.h"

using namespace zluda;
using namespace zluda::cusparse;

//===----------------------------------------------------------------------===//
// SpMV, SpMM, SpSV
//===----------------------------------------------------------------------===//
//===----------------------------------------------------------------------===//
// AMD GPUs: SpMV and SpMM of CSR, CSC and COO matrices through rocSPARSE
// where it loads (RocSparse.h), on the HIP stream under the handle's stream
// with the handle's pointer mode; the caller's buffer is rocSPARSE's (the
// buffer-size queries report its size). Without rocSPARSE, or for the other
// formats, the staged host path runs (Staged).
//===----------------------------------------------------------------------===//
void *zludaNativeStream(CUstream S); // src/driver/Driver.cpp

namespace {
namespace roc = zluda::rocsparse;

const roc::Api *rocSparse() { return libs::cpuDevice() ? nullptr : roc::api(); }
bool rocFormat(const SpMat &A) {
  return A.Fmt == CUSPARSE_FORMAT_CSR || A.Fmt == CUSPARSE_FORMAT_CSC || A.Fmt == CUSPARSE_FORMAT_COO;
}
int rocType(cudaDataType T) { return T == CUDA_R_32F ? 151 : T == CUDA_R_64F ? 152 : T == CUDA_C_32F ? 154 : 155; }
int rocIndex(cusparseIndexType_t T) { return T == CUSPARSE_INDEX_64I ? 3 : 2; }
int rocOp(cusparseOperation_t O) { return 111 + int(O); }
cusparseStatus_t fromRoc(roc::Status S) {
  return S == 0 ? CUSPARSE_STATUS_SUCCESS : S == 2 ? CUSPARSE_STATUS_NOT_SUPPORTED : CUSPARSE_STATUS_EXECUTION_FAILED;
}

/// rocSPARSE's descriptors of one call, destroyed with it.
struct RocCall {
  const roc::Api *Api;
  void *Handle = nullptr, *Mat = nullptr, *X = nullptr, *Y = nullptr;
  bool Dense = false; ///< X and Y are dense matrices
  explicit RocCall(const roc::Api *A) : Api(A) {}
  ~RocCall() {
    if (Mat)
      Api->DestroySpMat(Mat);
    for (void *D : {X, Y})
      if (D)
        Dense ? Api->DestroyDnMat(D) : Api->DestroyDnVec(D);
  }
  roc::Status begin(zluda::cusparse::Handle &H, const SpMat &A) {
    if (!H.Roc)
      if (roc::Status S = Api->CreateHandle(&H.Roc))
        return S;
    Handle = H.Roc;
    if (roc::Status S = Api->SetStream(Handle, zludaNativeStream(H.Stream)) |
                        Api->SetPointerMode(Handle, H.PointerMode == CUSPARSE_POINTER_MODE_DEVICE ? 1 : 0))
      return S;
    switch (A.Fmt) {
    case CUSPARSE_FORMAT_CSR:
      return Api->CreateCsr(&Mat, A.Rows, A.Cols, A.Nnz, A.Off, A.Ind, A.Val, rocIndex(A.OffType), rocIndex(A.IndType),
                            A.Base, rocType(A.VT));
    case CUSPARSE_FORMAT_CSC:
      return Api->CreateCsc(&Mat, A.Rows, A.Cols, A.Nnz, A.Off, A.Ind, A.Val, rocIndex(A.OffType), rocIndex(A.IndType),
                            A.Base, rocType(A.VT));
    default:
      return Api->CreateCoo(&Mat, A.Rows, A.Cols, A.Nnz, A.RowInd, A.Ind, A.Val, rocIndex(A.IndType), A.Base,
                            rocType(A.VT));
    }
  }
  roc::Status vectors(const DnVec &Xv, const DnVec &Yv) {
    return Api->CreateDnVec(&X, Xv.Size, Xv.Val, rocType(Xv.VT)) | Api->CreateDnVec(&Y, Yv.Size, Yv.Val, rocType(Yv.VT));
  }
  roc::Status matrices(const DnMat &Bm, const DnMat &Cm) {
    Dense = true;
    auto order = [](cusparseOrder_t O) { return O == CUSPARSE_ORDER_ROW ? 0 : 1; };
    return Api->CreateDnMat(&X, Bm.Rows, Bm.Cols, Bm.Ld, Bm.Val, rocType(Bm.VT), order(Bm.Order)) |
           Api->CreateDnMat(&Y, Cm.Rows, Cm.Cols, Cm.Ld, Cm.Val, rocType(Cm.VT), order(Cm.Order));
  }
};

/// SpMV through rocSPARSE: the buffer size (Buffer null) or the product.
cusparseStatus_t rocSpmv(zluda::cusparse::Handle &H, cusparseOperation_t Op, const void *Alpha, const SpMat &A,
                         const DnVec &X, const void *Beta, const DnVec &Y, cudaDataType Compute, size_t *Size,
                         void *Buffer) {
  RocCall C(rocSparse());
  if (roc::Status S = C.begin(H, A) | C.vectors(X, Y))
    return fromRoc(S);
  size_t Need = 0;
  if (roc::Status S = C.Api->SpMV(C.Handle, rocOp(Op), Alpha, C.Mat, C.X, Beta, C.Y, rocType(Compute), 0, &Need,
                                  nullptr))
    return fromRoc(S);
  if (!Buffer) {
    *Size = std::max<size_t>(Need, 16);
    return CUSPARSE_STATUS_SUCCESS;
  }
  return fromRoc(C.Api->SpMV(C.Handle, rocOp(Op), Alpha, C.Mat, C.X, Beta, C.Y, rocType(Compute), 0, &Need, Buffer));
}

/// SpMM through rocSPARSE: the buffer size (Buffer null) or preprocessing and the product.
cusparseStatus_t rocSpmm(zluda::cusparse::Handle &H, cusparseOperation_t OpA, cusparseOperation_t OpB,
                         const void *Alpha, const SpMat &A, const DnMat &B, const void *Beta, const DnMat &Cm,
                         cudaDataType Compute, size_t *Size, void *Buffer) {
  RocCall C(rocSparse());
  if (roc::Status S = C.begin(H, A) | C.matrices(B, Cm))
    return fromRoc(S);
  size_t Need = 0;
  auto call = [&](int Stage, void *Buf) {
    return C.Api->SpMM(C.Handle, rocOp(OpA), rocOp(OpB), Alpha, C.Mat, C.X, Beta, C.Y, rocType(Compute), 0, Stage,
                       &Need, Buf);
  };
  if (roc::Status S = call(roc::SpmmStageBufferSize, nullptr))
    return fromRoc(S);
  if (!Buffer) {
    *Size = std::max<size_t>(Need, 16);
    return CUSPARSE_STATUS_SUCCESS;
  }
  if (roc::Status S = call(roc::SpmmStagePreprocess, Buffer))
    return fromRoc(S);
  return fromRoc(call(roc::SpmmStageCompute, Buffer));
}
} // namespace

zluda::cusparse::Handle::~Handle() {
  if (Roc)
    roc::api()->DestroyHandle(Roc);
}


static cusparseStatus_t checkSpmv(Handle *H, cusparseOperation_t Op, const void *Alpha, const void *A, const void *X,
                                  const void *Beta, const void *Y, cudaDataType Compute, SpMat *&Am, DnVec *&Xv,
                                  DnVec *&Yv) {
  Am = lookup<SpMat>(A), Xv = lookup<DnVec>(X), Yv = lookup<DnVec>(Y);
  if (!Am || !Xv || !Yv || !Alpha || !Beta || !validOp(Op))
    return CUSPARSE_STATUS_INVALID_VALUE;
  // As NVIDIA's: the conjugate transpose of a real matrix is refused.
  if (Op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE && (Compute == CUDA_R_32F || Compute == CUDA_R_64F))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (auto S = checkTypes(*Am, Xv->VT, Yv->VT, Compute, true))
    return S;
  // As NVIDIA's (observed on the H200): "opA != OPERATION_NON_TRANSPOSE is unsupported with CUSPARSE_SPMV_BSR_ALG1";
  // and no SpMV of a Blocked-ELL matrix (observed on an H100; Blocked-ELL is SpMM's format).
  if ((Am->Fmt == CUSPARSE_FORMAT_BSR && Op != CUSPARSE_OPERATION_NON_TRANSPOSE) ||
      Am->Fmt == CUSPARSE_FORMAT_BLOCKED_ELL)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  int64_t In = opSwaps(Op) ? Am->Rows : Am->Cols, Out = opSwaps(Op) ? Am->Cols : Am->Rows;
  if (Xv->Size != In || Yv->Size != Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  (void)H;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpMV_bufferSize(cusparseHandle_t Hd, cusparseOperation_t Op, const void *Alpha,
                                                      const void *A, const void *X, const void *Beta, void *Y,
                                                      cudaDataType Compute, int, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am;
  DnVec *Xv, *Yv;
  if (auto S = checkSpmv(H, Op, Alpha, A, X, Beta, Y, Compute, Am, Xv, Yv))
    return S;
  if (rocSparse() && rocFormat(*Am) && Size && Am->VT == Compute && Xv->VT == Compute && Yv->VT == Compute)
    return rocSpmv(*H, Op, Alpha, *Am, *Xv, Beta, *Yv, Compute, Size, nullptr);
  return setOut(Size, 16); // not used; non-zero as NVIDIA's, whose SpMV refuses a null buffer
}
CUSPARSE_API cusparseStatus_t cusparseSpMV_preprocess(cusparseHandle_t Hd, cusparseOperation_t Op, const void *Alpha,
                                                      const void *A, const void *X, const void *Beta, void *Y,
                                                      cudaDataType Compute, int, void *) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am;
  DnVec *Xv, *Yv;
  return checkSpmv(H, Op, Alpha, A, X, Beta, Y, Compute, Am, Xv, Yv);
}
CUSPARSE_API cusparseStatus_t cusparseSpMV(cusparseHandle_t Hd, cusparseOperation_t Op, const void *Alpha,
                                           const void *A, const void *X, const void *Beta, void *Y,
                                           cudaDataType Compute, int, void *Buffer) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am;
  DnVec *Xv, *Yv;
  if (auto S = checkSpmv(H, Op, Alpha, A, X, Beta, Y, Compute, Am, Xv, Yv))
    return S;
  if (!Buffer) // NVIDIA's: "parameter number 10 (externalBuffer) had an illegal value: NULL pointer"
    return CUSPARSE_STATUS_INVALID_VALUE;
  const bool Mixed = Am->VT != Compute || Xv->VT != Compute || Yv->VT != Compute;
  if (rocSparse() && rocFormat(*Am) && !Mixed)
    return rocSpmv(*H, Op, Alpha, *Am, *Xv, Beta, *Yv, Compute, nullptr, Buffer);
  SpMat M = *Am;
  DnVec Xc = *Xv, Yc = *Yv;
  Scalar Al(*H, Alpha, Compute), Be(*H, Beta, Compute);
  auto Run = [=](const SpMat &M, const DnVec &Xc, const DnVec &Yc, const Scalar &Al, const Scalar &Be) {
    if (Mixed) { // the values widened to the compute type, the result rounded once to Y's
      withWork(Compute, Al, Be, [&](auto Tag, auto A, auto B) {
        using W = decltype(Tag);
        auto Av = widen<W>(M.VT, M.Val, M.Nnz), Xw = widen<W>(Xc.VT, Xc.Val, Xc.Size);
        auto Yw = widen<W>(Yc.VT, Yc.Val, Yc.Size);
        spmv<W>(withValues(M, Av.data(), workType<W>()), Op, W(A), Xw.data(), W(B), Yw.data(), Yc.Size);
        narrow(Yc.VT, Yc.Val, Yw);
      });
      return;
    }
    dispatch(Compute, [&](auto Tag) {
      using T = decltype(Tag);
      spmv<T>(M, Op, Al.get<T>(), static_cast<const T *>(Xc.Val), Be.get<T>(), static_cast<T *>(Yc.Val), Yc.Size);
    });
  };
  return onHost(H, [=](Staged &S) {
    return [Run, M = S.sp(M), X = S.vec(Xc), Y = S.vec(Yc, true), A = S.scalar(Al, Compute),
            B = S.scalar(Be, Compute)] { Run(M, X, Y, A, B); };
  });
}

static cusparseStatus_t checkSpmm(cusparseOperation_t OpA, cusparseOperation_t OpB, const void *Alpha, const void *A,
                                  const void *B, const void *Beta, const void *C, cudaDataType Compute, SpMat *&Am,
                                  DnMat *&Bm, DnMat *&Cm) {
  Am = lookup<SpMat>(A), Bm = lookup<DnMat>(B), Cm = lookup<DnMat>(C);
  if (!Am || !Bm || !Cm || !Alpha || !Beta || !validOp(OpA) || !validOp(OpB))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (auto S = checkTypes(*Am, Bm->VT, Cm->VT, Compute, false))
    return S;
  // As NVIDIA's (observed on an H100): BSR with column-major blocks and Sliced-ELL are refused.
  if ((Am->Fmt == CUSPARSE_FORMAT_BSR && Am->BlockOrder == CUSPARSE_ORDER_COL) || Am->Fmt == CUSPARSE_FORMAT_SLICED_ELLPACK)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  int64_t M = opSwaps(OpA) ? Am->Cols : Am->Rows, K = opSwaps(OpA) ? Am->Rows : Am->Cols;
  int64_t Kb = opSwaps(OpB) ? Bm->Cols : Bm->Rows, N = opSwaps(OpB) ? Bm->Rows : Bm->Cols;
  if (K != Kb || Cm->Rows != M || Cm->Cols != N)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                      cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                      const void *B, const void *Beta, void *C, cudaDataType Compute,
                                                      int, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am;
  DnMat *Bm, *Cm;
  if (auto S = checkSpmm(OpA, OpB, Alpha, A, B, Beta, C, Compute, Am, Bm, Cm))
    return S;
  if (rocSparse() && rocFormat(*Am) && Size && Am->VT == Compute && Bm->VT == Compute && Cm->VT == Compute && Cm->BatchCount == 1)
    return rocSpmm(*H, OpA, OpB, Alpha, *Am, *Bm, Beta, *Cm, Compute, Size, nullptr);
  return setOut(Size, 0);
}
CUSPARSE_API cusparseStatus_t cusparseSpMM_preprocess(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                      cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                      const void *B, const void *Beta, void *C, cudaDataType Compute,
                                                      int, void *) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am;
  DnMat *Bm, *Cm;
  return checkSpmm(OpA, OpB, Alpha, A, B, Beta, C, Compute, Am, Bm, Cm);
}
CUSPARSE_API cusparseStatus_t cusparseSpMM(cusparseHandle_t Hd, cusparseOperation_t OpA, cusparseOperation_t OpB,
                                           const void *Alpha, const void *A, const void *B, const void *Beta, void *C,
                                           cudaDataType Compute, int, void *Buffer) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am;
  DnMat *Bm, *Cm;
  if (auto S = checkSpmm(OpA, OpB, Alpha, A, B, Beta, C, Compute, Am, Bm, Cm))
    return S;
  // Strided batches: C_i = op(A_i) op(B_i), A or B alone may be one matrix for all (cuSPARSE's three forms).
  const int Batch = Cm->BatchCount;
  const bool Mixed = Am->VT != Compute || Bm->VT != Compute || Cm->VT != Compute;
  if (rocSparse() && rocFormat(*Am) && !Mixed && Batch == 1) {
    if (!Buffer) // rocSPARSE works in the buffer its size query asked for
      return CUSPARSE_STATUS_INVALID_VALUE;
    return rocSpmm(*H, OpA, OpB, Alpha, *Am, *Bm, Beta, *Cm, Compute, nullptr, Buffer);
  }
  SpMat M = *Am;
  DnMat Bc = *Bm, Cc = *Cm;
  Scalar Al(*H, Alpha, Compute), Be(*H, Beta, Compute);
  if ((Am->BatchCount != 1 && Am->BatchCount != Batch) || (Bm->BatchCount != 1 && Bm->BatchCount != Batch))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Batch > 1 && Am->Fmt != CUSPARSE_FORMAT_CSR && Am->Fmt != CUSPARSE_FORMAT_COO) {
    libs::notSupported("cuSPARSE", "cusparseSpMM batches of other formats than CSR and COO");
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  auto Run = [=](const SpMat &M, const DnMat &Bc, const DnMat &Cc, const Scalar &Al, const Scalar &Be) {
    if (Mixed) { // the values widened to the compute type, the result rounded once to C's
      withWork(Compute, Al, Be, [&](auto Tag, auto A, auto B) {
        using W = decltype(Tag);
        for (int I = 0; I < Batch; ++I) {
          SpMat Mi = batchOf(M, I);
          DnMat Bi = batchOf(Bc, I), Ci = batchOf(Cc, I);
          auto Av = widen<W>(Mi.VT, Mi.Val, Mi.Nnz), Bw = widen<W>(Bi.VT, Bi.Val, denseSpan(Bi));
          auto Cw = widen<W>(Ci.VT, Ci.Val, denseSpan(Ci));
          spmm<W>(withValues(Mi, Av.data(), workType<W>()), OpA, OpB, W(A), withValues(Bi, Bw.data(), workType<W>()),
                  W(B), withValues(Ci, Cw.data(), workType<W>()));
          narrow(Ci.VT, Ci.Val, Cw);
        }
      });
      return;
    }
    dispatch(Compute, [&](auto Tag) {
      using T = decltype(Tag);
      for (int I = 0; I < Batch; ++I)
        spmm<T>(batchOf(M, I), OpA, OpB, Al.get<T>(), batchOf(Bc, I), Be.get<T>(), batchOf(Cc, I));
    });
  };
  return onHost(H, [=](Staged &S) {
    return [Run, M = S.sp(M), B = S.mat(Bc), C = S.mat(Cc, true), A = S.scalar(Al, Compute),
            Bt = S.scalar(Be, Compute)] { Run(M, B, C, A, Bt); };
  });
}

CUSPARSE_API cusparseStatus_t cusparseSpSV_createDescr(cusparseSpSVDescr_t *Out) {
  if (!Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Out = reinterpret_cast<cusparseSpSVDescr_t>(track(new SpSV));
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpSV_destroyDescr(cusparseSpSVDescr_t D) {
  return drop(lookup<SpSV>(D)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}
static cusparseStatus_t checkSpsv(cusparseOperation_t Op, const void *Alpha, const void *A, const void *X,
                                  const void *Y, cudaDataType Compute, const void *D, SpMat *&Am, DnVec *&Xv,
                                  DnVec *&Yv) {
  Am = lookup<SpMat>(A), Xv = lookup<DnVec>(X), Yv = lookup<DnVec>(Y);
  if (!Am || !Xv || !Yv || !Alpha || !validOp(Op) || !lookup<SpSV>(D))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Am->Fmt == CUSPARSE_FORMAT_CSC) {
    libs::notSupported("cuSPARSE", "cusparseSpSV on CSC matrices");
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  if (!validValue(Compute) || Am->VT != Compute || Xv->VT != Compute || Yv->VT != Compute)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  if (Am->Rows != Am->Cols || Xv->Size != Am->Rows || Yv->Size != Am->Rows)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpSV_bufferSize(cusparseHandle_t Hd, cusparseOperation_t Op, const void *Alpha,
                                                      const void *A, const void *X, void *Y, cudaDataType Compute,
                                                      int, cusparseSpSVDescr_t D, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am;
  DnVec *Xv, *Yv;
  if (auto S = checkSpsv(Op, Alpha, A, X, Y, Compute, D, Am, Xv, Yv))
    return S;
  return setOut(Size, 0);
}
CUSPARSE_API cusparseStatus_t cusparseSpSV_analysis(cusparseHandle_t Hd, cusparseOperation_t Op, const void *Alpha,
                                                    const void *A, const void *X, void *Y, cudaDataType Compute, int,
                                                    cusparseSpSVDescr_t D, void *) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am;
  DnVec *Xv, *Yv;
  return checkSpsv(Op, Alpha, A, X, Y, Compute, D, Am, Xv, Yv);
}
CUSPARSE_API cusparseStatus_t cusparseSpSV_solve(cusparseHandle_t Hd, cusparseOperation_t Op, const void *Alpha,
                                                 const void *A, const void *X, void *Y, cudaDataType Compute, int,
                                                 cusparseSpSVDescr_t D) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am;
  DnVec *Xv, *Yv;
  if (auto S = checkSpsv(Op, Alpha, A, X, Y, Compute, D, Am, Xv, Yv))
    return S;
  SpMat M = *Am;
  DnVec Xc = *Xv, Yc = *Yv;
  Scalar Al(*H, Alpha, Compute);
  auto Run = [=](const SpMat &M, const DnVec &Xc, const DnVec &Yc, const Scalar &Al) {
    dispatch(Compute, [&](auto Tag) {
      using T = decltype(Tag);
      spsv<T>(M, Op, Al.get<T>(), static_cast<const T *>(Xc.Val), static_cast<T *>(Yc.Val));
    });
  };
  return onHost(H, [=](Staged &S) {
    return [Run, M = S.sp(M), X = S.vec(Xc), Y = S.vec(Yc, true), A = S.scalar(Al, Compute)] { Run(M, X, Y, A); };
  });
}
CUSPARSE_API cusparseStatus_t cusparseSpSV_updateMatrix(cusparseHandle_t Hd, cusparseSpSVDescr_t D, void *, int) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  return lookup<SpSV>(D) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE; // values are read at solve
}
