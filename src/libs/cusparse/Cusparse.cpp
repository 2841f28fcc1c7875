//===- Cusparse.cpp - our libcusparse: handles and descriptors --------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Handles, streams, pointer modes, versions, error strings, and the matrix, vector
/// and dense descriptors of the generic API (create, destroy, get/set).
#include "libs/cusparse/Internal.h"

using namespace zluda;
using namespace zluda::cusparse;

//===----------------------------------------------------------------------===//
// Handles and descriptors
//===----------------------------------------------------------------------===//
CUSPARSE_API cusparseStatus_t cusparseCreate(cusparseHandle_t *Out) {
  return libs::createHandle<Handle>(Out, HandleStatuses);
}
CUSPARSE_API cusparseStatus_t cusparseDestroy(cusparseHandle_t Hd) {
  Handle *H = handle(Hd);
  if (!H)
    return CUSPARSE_STATUS_NOT_INITIALIZED;
  libs::wait(H->Stream);
  drop(H);
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSetStream(cusparseHandle_t Hd, CUstream S) {
  return libs::setHandleStream<Handle>(Hd, S, HandleStatuses);
}
CUSPARSE_API cusparseStatus_t cusparseGetStream(cusparseHandle_t Hd, CUstream *S) {
  return libs::getHandleStream<Handle>(Hd, S, HandleStatuses);
}
CUSPARSE_API cusparseStatus_t cusparseSetPointerMode(cusparseHandle_t Hd, cusparsePointerMode_t M) {
  return libs::setHandleField(Hd, &Handle::PointerMode, M, HandleStatuses, [](auto M) {
    return M == CUSPARSE_POINTER_MODE_HOST || M == CUSPARSE_POINTER_MODE_DEVICE;
  });
}
CUSPARSE_API cusparseStatus_t cusparseGetPointerMode(cusparseHandle_t Hd, cusparsePointerMode_t *M) {
  return libs::getHandleField(Hd, &Handle::PointerMode, M, HandleStatuses);
}
CUSPARSE_API cusparseStatus_t cusparseGetVersion(cusparseHandle_t, int *V) {
  if (!V)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *V = 12600; // cuSPARSE 12.6 of CUDA 13.0
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseGetProperty(libraryPropertyType T, int *V) {
  if (!V)
    return CUSPARSE_STATUS_INVALID_VALUE;
  switch (T) {
  case MAJOR_VERSION:
    *V = 12;
    return CUSPARSE_STATUS_SUCCESS;
  case MINOR_VERSION:
    *V = 6;
    return CUSPARSE_STATUS_SUCCESS;
  case PATCH_LEVEL:
    *V = 0;
    return CUSPARSE_STATUS_SUCCESS;
  }
  return CUSPARSE_STATUS_INVALID_VALUE;
}
CUSPARSE_API const char *cusparseGetErrorName(cusparseStatus_t S) {
  switch (S) {
#define N(X)                                                                                                           \
  case X:                                                                                                              \
    return #X;
    N(CUSPARSE_STATUS_SUCCESS)
    N(CUSPARSE_STATUS_NOT_INITIALIZED)
    N(CUSPARSE_STATUS_ALLOC_FAILED)
    N(CUSPARSE_STATUS_INVALID_VALUE)
    N(CUSPARSE_STATUS_ARCH_MISMATCH)
    N(CUSPARSE_STATUS_MAPPING_ERROR)
    N(CUSPARSE_STATUS_EXECUTION_FAILED)
    N(CUSPARSE_STATUS_INTERNAL_ERROR)
    N(CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED)
    N(CUSPARSE_STATUS_ZERO_PIVOT)
    N(CUSPARSE_STATUS_NOT_SUPPORTED)
    N(CUSPARSE_STATUS_INSUFFICIENT_RESOURCES)
#undef N
  }
  return "CUSPARSE_STATUS_UNKNOWN";
}
CUSPARSE_API const char *cusparseGetErrorString(cusparseStatus_t S) {
  switch (S) {
  case CUSPARSE_STATUS_SUCCESS:
    return "success";
  case CUSPARSE_STATUS_NOT_INITIALIZED:
    return "initialization error";
  case CUSPARSE_STATUS_INVALID_VALUE:
    return "invalid value";
  case CUSPARSE_STATUS_ZERO_PIVOT:
    return "zero pivot";
  case CUSPARSE_STATUS_NOT_SUPPORTED:
    return "operation not supported";
  default:
    return cusparseGetErrorName(S);
  }
}

CUSPARSE_API cusparseStatus_t cusparseCreateMatDescr(cusparseMatDescr_t *Out) {
  if (!Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Out = reinterpret_cast<cusparseMatDescr_t>(track(new MatDescr));
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseDestroyMatDescr(cusparseMatDescr_t D) {
  return drop(lookup<MatDescr>(D)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}
#define MAT_FIELD(Set, Get, Field, Type)                                                                               \
  CUSPARSE_API cusparseStatus_t Set(cusparseMatDescr_t D, Type V) {                                                   \
    auto *M = lookup<MatDescr>(D);                                                                                     \
    if (!M)                                                                                                            \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    M->Field = V;                                                                                                      \
    return CUSPARSE_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSPARSE_API Type Get(const cusparseMatDescr_t D) {                                                                 \
    auto *M = lookup<MatDescr>(D);                                                                                     \
    return M ? M->Field : Type(0);                                                                                     \
  }
MAT_FIELD(cusparseSetMatType, cusparseGetMatType, Type, cusparseMatrixType_t)
MAT_FIELD(cusparseSetMatFillMode, cusparseGetMatFillMode, Fill, cusparseFillMode_t)
MAT_FIELD(cusparseSetMatDiagType, cusparseGetMatDiagType, Diag, cusparseDiagType_t)
MAT_FIELD(cusparseSetMatIndexBase, cusparseGetMatIndexBase, Base, cusparseIndexBase_t)
#undef MAT_FIELD

CUSPARSE_API cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t *Out, int64_t R, int64_t C, int64_t Nnz,
                                                void *Off, void *Ind, void *Val, cusparseIndexType_t OffT,
                                                cusparseIndexType_t IndT, cusparseIndexBase_t B, cudaDataType VT) {
  return makeSp(Out, CUSPARSE_FORMAT_CSR, R, C, Nnz, Off, Ind, nullptr, Val, OffT, IndT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseCreateConstCsr(cusparseSpMatDescr_t *Out, int64_t R, int64_t C, int64_t Nnz,
                                                     const void *Off, const void *Ind, const void *Val,
                                                     cusparseIndexType_t OffT, cusparseIndexType_t IndT,
                                                     cusparseIndexBase_t B, cudaDataType VT) {
  return makeSp(Out, CUSPARSE_FORMAT_CSR, R, C, Nnz, const_cast<void *>(Off), const_cast<void *>(Ind), nullptr,
                const_cast<void *>(Val), OffT, IndT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseCreateCsc(cusparseSpMatDescr_t *Out, int64_t R, int64_t C, int64_t Nnz,
                                                void *Off, void *Ind, void *Val, cusparseIndexType_t OffT,
                                                cusparseIndexType_t IndT, cusparseIndexBase_t B, cudaDataType VT) {
  return makeSp(Out, CUSPARSE_FORMAT_CSC, R, C, Nnz, Off, Ind, nullptr, Val, OffT, IndT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseCreateConstCsc(cusparseSpMatDescr_t *Out, int64_t R, int64_t C, int64_t Nnz,
                                                     const void *Off, const void *Ind, const void *Val,
                                                     cusparseIndexType_t OffT, cusparseIndexType_t IndT,
                                                     cusparseIndexBase_t B, cudaDataType VT) {
  return makeSp(Out, CUSPARSE_FORMAT_CSC, R, C, Nnz, const_cast<void *>(Off), const_cast<void *>(Ind), nullptr,
                const_cast<void *>(Val), OffT, IndT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseCreateCoo(cusparseSpMatDescr_t *Out, int64_t R, int64_t C, int64_t Nnz,
                                                void *Rows, void *Cols, void *Val, cusparseIndexType_t IT,
                                                cusparseIndexBase_t B, cudaDataType VT) {
  return makeSp(Out, CUSPARSE_FORMAT_COO, R, C, Nnz, nullptr, Cols, Rows, Val, IT, IT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseCreateConstCoo(cusparseSpMatDescr_t *Out, int64_t R, int64_t C, int64_t Nnz,
                                                     const void *Rows, const void *Cols, const void *Val,
                                                     cusparseIndexType_t IT, cusparseIndexBase_t B, cudaDataType VT) {
  return makeSp(Out, CUSPARSE_FORMAT_COO, R, C, Nnz, nullptr, const_cast<void *>(Cols), const_cast<void *>(Rows),
                const_cast<void *>(Val), IT, IT, B, VT);
}
// The blocked formats (see SpMat): BSR, Blocked-ELL, Sliced-ELL, with their Const forms and getters.
CUSPARSE_API cusparseStatus_t cusparseCreateBsr(cusparseSpMatDescr_t *Out, int64_t Brows, int64_t Bcols, int64_t Bnnz,
                                                int64_t Rb, int64_t Cb, void *Off, void *Ind, void *Val,
                                                cusparseIndexType_t OffT, cusparseIndexType_t IndT,
                                                cusparseIndexBase_t B, cudaDataType VT, cusparseOrder_t Order) {
  if (Brows < 0 || Bcols < 0 || Bnnz < 0 || Rb < 1 || Cb < 1 ||
      (Order != CUSPARSE_ORDER_ROW && Order != CUSPARSE_ORDER_COL))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (cusparseStatus_t S = makeSp(Out, CUSPARSE_FORMAT_BSR, Brows * Rb, Bcols * Cb, Bnnz, Off, Ind, nullptr, Val, OffT,
                                  IndT, B, VT))
    return S;
  auto *M = lookup<SpMat>(*Out);
  M->BlockRows = Brows, M->RowBlock = Rb, M->ColBlock = Cb, M->BlockOrder = Order, M->Stored = Bnnz * Rb * Cb;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCreateConstBsr(cusparseSpMatDescr_t *Out, int64_t Brows, int64_t Bcols,
                                                     int64_t Bnnz, int64_t Rb, int64_t Cb, const void *Off,
                                                     const void *Ind, const void *Val, cusparseIndexType_t OffT,
                                                     cusparseIndexType_t IndT, cusparseIndexBase_t B, cudaDataType VT,
                                                     cusparseOrder_t Order) {
  return cusparseCreateBsr(Out, Brows, Bcols, Bnnz, Rb, Cb, const_cast<void *>(Off), const_cast<void *>(Ind),
                           const_cast<void *>(Val), OffT, IndT, B, VT, Order);
}
CUSPARSE_API cusparseStatus_t cusparseCreateBlockedEll(cusparseSpMatDescr_t *Out, int64_t R, int64_t C, int64_t Eb,
                                                       int64_t EllCols, void *Ind, void *Val, cusparseIndexType_t IT,
                                                       cusparseIndexBase_t B, cudaDataType VT) {
  // Whole blocks only: rows, columns and ELL columns multiples of the block size.
  if (Eb < 1 || R < 0 || C < 0 || EllCols < 0 || R % Eb || C % Eb || EllCols % Eb || EllCols > C)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (cusparseStatus_t S = makeSp(Out, CUSPARSE_FORMAT_BLOCKED_ELL, R, C, R * EllCols, nullptr, Ind, nullptr, Val, IT,
                                  IT, B, VT))
    return S;
  auto *M = lookup<SpMat>(*Out);
  M->EllBlock = Eb, M->EllCols = EllCols, M->Stored = R * EllCols;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCreateConstBlockedEll(cusparseSpMatDescr_t *Out, int64_t R, int64_t C,
                                                            int64_t Eb, int64_t EllCols, const void *Ind,
                                                            const void *Val, cusparseIndexType_t IT,
                                                            cusparseIndexBase_t B, cudaDataType VT) {
  return cusparseCreateBlockedEll(Out, R, C, Eb, EllCols, const_cast<void *>(Ind), const_cast<void *>(Val), IT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseBlockedEllGet(cusparseSpMatDescr_t D, int64_t *R, int64_t *C, int64_t *Eb,
                                                    int64_t *EllCols, void **Ind, void **Val, cusparseIndexType_t *IT,
                                                    cusparseIndexBase_t *B, cudaDataType *VT) {
  auto *M = lookup<SpMat>(D);
  if (!M || M->Fmt != CUSPARSE_FORMAT_BLOCKED_ELL || !R || !C || !Eb || !EllCols || !Ind || !Val || !IT || !B || !VT)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *R = M->Rows, *C = M->Cols, *Eb = M->EllBlock, *EllCols = M->EllCols, *Ind = M->Ind, *Val = M->Val;
  *IT = M->IndType, *B = M->Base, *VT = M->VT;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseConstBlockedEllGet(const void *D, int64_t *R, int64_t *C, int64_t *Eb,
                                                         int64_t *EllCols, const void **Ind, const void **Val,
                                                         cusparseIndexType_t *IT, cusparseIndexBase_t *B,
                                                         cudaDataType *VT) {
  return cusparseBlockedEllGet(reinterpret_cast<cusparseSpMatDescr_t>(const_cast<void *>(D)), R, C, Eb, EllCols,
                               const_cast<void **>(Ind), const_cast<void **>(Val), IT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseCreateSlicedEll(cusparseSpMatDescr_t *Out, int64_t R, int64_t C, int64_t Nnz,
                                                      int64_t ValuesSize, int64_t SliceSize, void *Off, void *Ind,
                                                      void *Val, cusparseIndexType_t OffT, cusparseIndexType_t IndT,
                                                      cusparseIndexBase_t B, cudaDataType VT) {
  if (SliceSize < 1 || ValuesSize < Nnz || ValuesSize < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (cusparseStatus_t S = makeSp(Out, CUSPARSE_FORMAT_SLICED_ELLPACK, R, C, Nnz, Off, Ind, nullptr, Val, OffT, IndT,
                                  B, VT))
    return S;
  auto *M = lookup<SpMat>(*Out);
  M->SliceSize = SliceSize, M->Stored = ValuesSize;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCreateConstSlicedEll(cusparseSpMatDescr_t *Out, int64_t R, int64_t C,
                                                           int64_t Nnz, int64_t ValuesSize, int64_t SliceSize,
                                                           const void *Off, const void *Ind, const void *Val,
                                                           cusparseIndexType_t OffT, cusparseIndexType_t IndT,
                                                           cusparseIndexBase_t B, cudaDataType VT) {
  return cusparseCreateSlicedEll(Out, R, C, Nnz, ValuesSize, SliceSize, const_cast<void *>(Off),
                                 const_cast<void *>(Ind), const_cast<void *>(Val), OffT, IndT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseDestroySpMat(const void *D) {
  return drop(lookup<SpMat>(D)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}
/// CsrGet and CscGet: the fields of a matrix of format \p F.
static cusparseStatus_t compressedGet(const void *D, cusparseFormat_t F, int64_t *R, int64_t *C, int64_t *Nnz,
                                      void **Off, void **Ind, void **Val, cusparseIndexType_t *OffT,
                                      cusparseIndexType_t *IndT, cusparseIndexBase_t *B, cudaDataType *VT) {
  auto *M = lookup<SpMat>(D);
  if (!M || M->Fmt != F || !R || !C || !Nnz || !Off || !Ind || !Val || !OffT || !IndT || !B || !VT)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *R = M->Rows, *C = M->Cols, *Nnz = M->Nnz, *Off = M->Off, *Ind = M->Ind, *Val = M->Val;
  *OffT = M->OffType, *IndT = M->IndType, *B = M->Base, *VT = M->VT;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCsrGet(cusparseSpMatDescr_t D, int64_t *R, int64_t *C, int64_t *Nnz,
                                             void **Off, void **Ind, void **Val, cusparseIndexType_t *OffT,
                                             cusparseIndexType_t *IndT, cusparseIndexBase_t *B, cudaDataType *VT) {
  return compressedGet(D, CUSPARSE_FORMAT_CSR, R, C, Nnz, Off, Ind, Val, OffT, IndT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseConstCsrGet(const void *D, int64_t *R, int64_t *C, int64_t *Nnz,
                                                  const void **Off, const void **Ind, const void **Val,
                                                  cusparseIndexType_t *OffT, cusparseIndexType_t *IndT,
                                                  cusparseIndexBase_t *B, cudaDataType *VT) {
  return cusparseCsrGet(reinterpret_cast<cusparseSpMatDescr_t>(const_cast<void *>(D)), R, C, Nnz,
                        const_cast<void **>(Off), const_cast<void **>(Ind), const_cast<void **>(Val), OffT, IndT, B,
                        VT);
}
CUSPARSE_API cusparseStatus_t cusparseCooGet(cusparseSpMatDescr_t D, int64_t *R, int64_t *C, int64_t *Nnz,
                                             void **Rows, void **Cols, void **Val, cusparseIndexType_t *IT,
                                             cusparseIndexBase_t *B, cudaDataType *VT) {
  auto *M = lookup<SpMat>(D);
  if (!M || M->Fmt != CUSPARSE_FORMAT_COO || !R || !C || !Nnz || !Rows || !Cols || !Val || !IT || !B || !VT)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *R = M->Rows, *C = M->Cols, *Nnz = M->Nnz, *Rows = M->RowInd, *Cols = M->Ind, *Val = M->Val;
  *IT = M->IndType, *B = M->Base, *VT = M->VT;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCsrSetPointers(cusparseSpMatDescr_t D, void *Off, void *Ind, void *Val) {
  auto *M = lookup<SpMat>(D);
  if (!M || M->Fmt != CUSPARSE_FORMAT_CSR)
    return CUSPARSE_STATUS_INVALID_VALUE;
  M->Off = Off, M->Ind = Ind, M->Val = Val;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCscSetPointers(cusparseSpMatDescr_t D, void *Off, void *Ind, void *Val) {
  auto *M = lookup<SpMat>(D);
  if (!M || M->Fmt != CUSPARSE_FORMAT_CSC)
    return CUSPARSE_STATUS_INVALID_VALUE;
  M->Off = Off, M->Ind = Ind, M->Val = Val;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCooSetPointers(cusparseSpMatDescr_t D, void *Rows, void *Cols, void *Val) {
  auto *M = lookup<SpMat>(D);
  if (!M || M->Fmt != CUSPARSE_FORMAT_COO)
    return CUSPARSE_STATUS_INVALID_VALUE;
  M->RowInd = Rows, M->Ind = Cols, M->Val = Val;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpMatGetSize(const void *D, int64_t *R, int64_t *C, int64_t *Nnz) {
  auto *M = lookup<SpMat>(D);
  if (!M || !R || !C || !Nnz)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *R = M->Rows, *C = M->Cols, *Nnz = M->Nnz;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpMatGetFormat(const void *D, cusparseFormat_t *F) {
  auto *M = lookup<SpMat>(D);
  if (!M || !F)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *F = M->Fmt;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpMatGetIndexBase(const void *D, cusparseIndexBase_t *B) {
  auto *M = lookup<SpMat>(D);
  if (!M || !B)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *B = M->Base;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpMatGetValues(cusparseSpMatDescr_t D, void **V) {
  auto *M = lookup<SpMat>(D);
  if (!M || !V)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *V = M->Val;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseConstSpMatGetValues(const void *D, const void **V) {
  return cusparseSpMatGetValues(reinterpret_cast<cusparseSpMatDescr_t>(const_cast<void *>(D)),
                                const_cast<void **>(V));
}
CUSPARSE_API cusparseStatus_t cusparseSpMatSetValues(cusparseSpMatDescr_t D, void *V) {
  auto *M = lookup<SpMat>(D);
  if (!M)
    return CUSPARSE_STATUS_INVALID_VALUE;
  M->Val = V;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpMatSetAttribute(cusparseSpMatDescr_t D, cusparseSpMatAttribute_t A, void *Data,
                                                        size_t Size) {
  auto *M = lookup<SpMat>(D);
  if (!M || !Data || Size != sizeof(int))
    return CUSPARSE_STATUS_INVALID_VALUE;
  int V;
  std::memcpy(&V, Data, sizeof V);
  if (A == CUSPARSE_SPMAT_FILL_MODE && (V == 0 || V == 1))
    M->Fill = cusparseFillMode_t(V);
  else if (A == CUSPARSE_SPMAT_DIAG_TYPE && (V == 0 || V == 1))
    M->Diag = cusparseDiagType_t(V);
  else
    return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpMatGetAttribute(const void *D, cusparseSpMatAttribute_t A, void *Data,
                                                        size_t Size) {
  auto *M = lookup<SpMat>(D);
  if (!M || !Data || Size != sizeof(int))
    return CUSPARSE_STATUS_INVALID_VALUE;
  int V = A == CUSPARSE_SPMAT_FILL_MODE ? int(M->Fill) : A == CUSPARSE_SPMAT_DIAG_TYPE ? int(M->Diag) : -1;
  if (V < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  std::memcpy(Data, &V, sizeof V);
  return CUSPARSE_STATUS_SUCCESS;
}

CUSPARSE_API cusparseStatus_t cusparseCreateDnVec(cusparseDnVecDescr_t *Out, int64_t N, void *V, cudaDataType T) {
  if (!Out || N < 0 || !storable(T))
    return CUSPARSE_STATUS_INVALID_VALUE;
  auto *D = new DnVec{N, V, T};
  *Out = reinterpret_cast<cusparseDnVecDescr_t>(track(D));
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCreateConstDnVec(cusparseDnVecDescr_t *Out, int64_t N, const void *V,
                                                       cudaDataType T) {
  return cusparseCreateDnVec(Out, N, const_cast<void *>(V), T);
}
CUSPARSE_API cusparseStatus_t cusparseDestroyDnVec(const void *D) {
  return drop(lookup<DnVec>(D)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}
CUSPARSE_API cusparseStatus_t cusparseDnVecGet(cusparseDnVecDescr_t D, int64_t *N, void **V, cudaDataType *T) {
  auto *Dv = lookup<DnVec>(D);
  if (!Dv || !N || !V || !T)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *N = Dv->Size, *V = Dv->Val, *T = Dv->VT;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseDnVecGetValues(cusparseDnVecDescr_t D, void **V) {
  auto *Dv = lookup<DnVec>(D);
  if (!Dv || !V)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *V = Dv->Val;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseConstDnVecGetValues(const void *D, const void **V) {
  return cusparseDnVecGetValues(reinterpret_cast<cusparseDnVecDescr_t>(const_cast<void *>(D)),
                                const_cast<void **>(V));
}
CUSPARSE_API cusparseStatus_t cusparseDnVecSetValues(cusparseDnVecDescr_t D, void *V) {
  auto *Dv = lookup<DnVec>(D);
  if (!Dv)
    return CUSPARSE_STATUS_INVALID_VALUE;
  Dv->Val = V;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t *Out, int64_t R, int64_t C, int64_t Ld,
                                                  void *V, cudaDataType T, cusparseOrder_t O) {
  if (!Out || R < 0 || C < 0 || !storable(T) || (O != CUSPARSE_ORDER_COL && O != CUSPARSE_ORDER_ROW) ||
      Ld < (O == CUSPARSE_ORDER_COL ? std::max<int64_t>(1, R) : std::max<int64_t>(1, C)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  auto *D = new DnMat{R, C, Ld, V, T, O};
  *Out = reinterpret_cast<cusparseDnMatDescr_t>(track(D));
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCreateConstDnMat(cusparseDnMatDescr_t *Out, int64_t R, int64_t C, int64_t Ld,
                                                       const void *V, cudaDataType T, cusparseOrder_t O) {
  return cusparseCreateDnMat(Out, R, C, Ld, const_cast<void *>(V), T, O);
}
CUSPARSE_API cusparseStatus_t cusparseDestroyDnMat(const void *D) {
  return drop(lookup<DnMat>(D)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}
CUSPARSE_API cusparseStatus_t cusparseDnMatGet(cusparseDnMatDescr_t D, int64_t *R, int64_t *C, int64_t *Ld, void **V,
                                               cudaDataType *T, cusparseOrder_t *O) {
  auto *M = lookup<DnMat>(D);
  if (!M || !R || !C || !Ld || !V || !T || !O)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *R = M->Rows, *C = M->Cols, *Ld = M->Ld, *V = M->Val, *T = M->VT, *O = M->Order;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseDnMatGetValues(cusparseDnMatDescr_t D, void **V) {
  auto *M = lookup<DnMat>(D);
  if (!M || !V)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *V = M->Val;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseDnMatSetValues(cusparseDnMatDescr_t D, void *V) {
  auto *M = lookup<DnMat>(D);
  if (!M)
    return CUSPARSE_STATUS_INVALID_VALUE;
  M->Val = V;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseConstDnMatGet(const void *D, int64_t *R, int64_t *C, int64_t *Ld,
                                                    const void **V, cudaDataType *T, cusparseOrder_t *O) {
  return cusparseDnMatGet(reinterpret_cast<cusparseDnMatDescr_t>(const_cast<void *>(D)), R, C, Ld,
                          const_cast<void **>(V), T, O);
}
CUSPARSE_API cusparseStatus_t cusparseConstDnMatGetValues(const void *D, const void **V) {
  return cusparseDnMatGetValues(reinterpret_cast<cusparseDnMatDescr_t>(const_cast<void *>(D)),
                                const_cast<void **>(V));
}
CUSPARSE_API cusparseStatus_t cusparseConstDnVecGet(const void *D, int64_t *N, const void **V, cudaDataType *T) {
  return cusparseDnVecGet(reinterpret_cast<cusparseDnVecDescr_t>(const_cast<void *>(D)), N, const_cast<void **>(V), T);
}
CUSPARSE_API cusparseStatus_t cusparseCscGet(cusparseSpMatDescr_t D, int64_t *R, int64_t *C, int64_t *Nnz,
                                             void **Off, void **Ind, void **Val, cusparseIndexType_t *OffT,
                                             cusparseIndexType_t *IndT, cusparseIndexBase_t *B, cudaDataType *VT) {
  return compressedGet(D, CUSPARSE_FORMAT_CSC, R, C, Nnz, Off, Ind, Val, OffT, IndT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseConstCscGet(const void *D, int64_t *R, int64_t *C, int64_t *Nnz,
                                                  const void **Off, const void **Ind, const void **Val,
                                                  cusparseIndexType_t *OffT, cusparseIndexType_t *IndT,
                                                  cusparseIndexBase_t *B, cudaDataType *VT) {
  return cusparseCscGet(reinterpret_cast<cusparseSpMatDescr_t>(const_cast<void *>(D)), R, C, Nnz,
                        const_cast<void **>(Off), const_cast<void **>(Ind), const_cast<void **>(Val), OffT, IndT, B,
                        VT);
}
CUSPARSE_API cusparseStatus_t cusparseConstCooGet(const void *D, int64_t *R, int64_t *C, int64_t *Nnz,
                                                  const void **Rows, const void **Cols, const void **Val,
                                                  cusparseIndexType_t *IT, cusparseIndexBase_t *B, cudaDataType *VT) {
  return cusparseCooGet(reinterpret_cast<cusparseSpMatDescr_t>(const_cast<void *>(D)), R, C, Nnz,
                        const_cast<void **>(Rows), const_cast<void **>(Cols), const_cast<void **>(Val), IT, B, VT);
}

// Strided batches (cuSPARSE's rules: a count of at least 1; strides not negative).
CUSPARSE_API cusparseStatus_t cusparseCsrSetStridedBatch(cusparseSpMatDescr_t D, int Count, int64_t OffStride,
                                                         int64_t IndValStride) {
  auto *M = lookup<SpMat>(D);
  if (!M || M->Fmt != CUSPARSE_FORMAT_CSR || Count < 1 || OffStride < 0 || IndValStride < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  M->BatchCount = Count, M->OffStride = OffStride, M->IndStride = IndValStride, M->ValStride = IndValStride;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCooSetStridedBatch(cusparseSpMatDescr_t D, int Count, int64_t Stride) {
  auto *M = lookup<SpMat>(D);
  if (!M || M->Fmt != CUSPARSE_FORMAT_COO || Count < 1 || Stride < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  M->BatchCount = Count, M->OffStride = 0, M->IndStride = Stride, M->ValStride = Stride;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseBsrSetStridedBatch(cusparseSpMatDescr_t D, int Count, int64_t OffStride,
                                                         int64_t ColStride, int64_t ValStride) {
  auto *M = lookup<SpMat>(D);
  if (!M || M->Fmt != CUSPARSE_FORMAT_BSR || Count < 1 || OffStride < 0 || ColStride < 0 || ValStride < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  M->BatchCount = Count, M->OffStride = OffStride, M->IndStride = ColStride, M->ValStride = ValStride;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpMatGetStridedBatch(const void *D, int *Count) {
  auto *M = lookup<SpMat>(D);
  if (!M || !Count)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Count = M->BatchCount;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseDnMatSetStridedBatch(cusparseDnMatDescr_t D, int Count, int64_t Stride) {
  auto *M = lookup<DnMat>(D);
  if (!M || Count < 1 || Stride < 0 ||
      (Count > 1 && Stride < M->Ld * (M->Order == CUSPARSE_ORDER_COL ? M->Cols : M->Rows)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  M->BatchCount = Count, M->BatchStride = Stride;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseDnMatGetStridedBatch(const void *D, int *Count, int64_t *Stride) {
  auto *M = lookup<DnMat>(D);
  if (!M || !Count || !Stride)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Count = M->BatchCount, *Stride = M->BatchStride;
  return CUSPARSE_STATUS_SUCCESS;
}

// The logger: its settings are kept and checked; this library emits no log messages through it (ZLUDA_LOG
// carries ours).
namespace zluda::cusparse {
namespace {
struct LoggerState {
  std::mutex Mu;
  void *Callback = nullptr;
  FILE *File = nullptr;
  bool Owned = false, Disabled = false;
  int Level = 0, Mask = 0;
};
LoggerState &logger() {
  static auto *L = new LoggerState; // never freed: calls may come during exit
  return *L;
}
} // namespace
} // namespace zluda::cusparse
CUSPARSE_API cusparseStatus_t cusparseLoggerSetCallback(void *Callback) {
  std::lock_guard<std::mutex> G(logger().Mu);
  logger().Callback = Callback;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseLoggerSetFile(FILE *F) {
  std::lock_guard<std::mutex> G(logger().Mu);
  if (logger().Owned && logger().File)
    std::fclose(logger().File);
  logger().File = F, logger().Owned = false;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseLoggerOpenFile(const char *Path) {
  if (!Path)
    return CUSPARSE_STATUS_INVALID_VALUE;
  FILE *F = std::fopen(Path, "w");
  if (!F)
    return CUSPARSE_STATUS_INTERNAL_ERROR;
  std::lock_guard<std::mutex> G(logger().Mu);
  if (logger().Owned && logger().File)
    std::fclose(logger().File);
  logger().File = F, logger().Owned = true;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseLoggerSetLevel(int Level) {
  if (Level < 0 || Level > 5)
    return CUSPARSE_STATUS_INVALID_VALUE;
  std::lock_guard<std::mutex> G(logger().Mu);
  logger().Level = Level;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseLoggerSetMask(int Mask) {
  if (Mask < 0 || Mask > 0x1f)
    return CUSPARSE_STATUS_INVALID_VALUE;
  std::lock_guard<std::mutex> G(logger().Mu);
  logger().Mask = Mask;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseLoggerForceDisable() {
  std::lock_guard<std::mutex> G(logger().Mu);
  logger().Disabled = true;
  return CUSPARSE_STATUS_SUCCESS;
}
