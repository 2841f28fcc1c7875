//===- Factor.cpp - cuSPARSE: csrilu02 / csric02 ----------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The incomplete LU and Cholesky factorizations with zero pivots and boosts.
#include "libs/cusparse/Internal.h"

using namespace zluda;
using namespace zluda::cusparse;

//===----------------------------------------------------------------------===//
// csrilu02 / csric02
//===----------------------------------------------------------------------===//
CUSPARSE_API cusparseStatus_t cusparseCreateCsrilu02Info(csrilu02Info_t *Out) {
  if (!Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Out = reinterpret_cast<csrilu02Info_t>(track(new FactorInfo));
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseDestroyCsrilu02Info(csrilu02Info_t I) {
  return drop(lookup<FactorInfo>(I)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}
CUSPARSE_API cusparseStatus_t cusparseCreateCsric02Info(csric02Info_t *Out) {
  if (!Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Out = reinterpret_cast<csric02Info_t>(track(new FactorInfo));
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseDestroyCsric02Info(csric02Info_t I) {
  return drop(lookup<FactorInfo>(I)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}

static cusparseStatus_t zeroPivot(cusparseHandle_t Hd, const void *Info, int *Position) {
  HANDLE_OR_FAIL(Hd)
  auto *I = lookup<FactorInfo>(Info);
  if (!I || !Position)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (libs::wait(H->Stream)) // the factorization's result
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  const int Z = int(I->ZeroPivot);
  if (H->PointerMode == CUSPARSE_POINTER_MODE_DEVICE && !libs::cpuDevice()) { // GPU memory
    if (libs::toDevice(Position, &Z, sizeof Z))
      return CUSPARSE_STATUS_EXECUTION_FAILED;
  } else { // host memory, or device memory that is the host's (the CPU device)
    *Position = Z;
  }
  return I->ZeroPivot >= 0 ? CUSPARSE_STATUS_ZERO_PIVOT : CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseXcsrilu02_zeroPivot(cusparseHandle_t H, csrilu02Info_t I, int *P) {
  return zeroPivot(H, I, P);
}
CUSPARSE_API cusparseStatus_t cusparseXcsric02_zeroPivot(cusparseHandle_t H, csric02Info_t I, int *P) {
  return zeroPivot(H, I, P);
}

template <typename T, bool Ilu>
static cusparseStatus_t factor(cusparseHandle_t Hd, int M, int Nnz, cusparseMatDescr_t Descr, T *Val,
                               const int *RowPtr, const int *ColInd, void *Info) {
  HANDLE_OR_FAIL(Hd)
  auto *D = lookup<MatDescr>(Descr);
  auto *I = lookup<FactorInfo>(Info);
  if (!D || !I || M < 0 || Nnz < 0 || (Nnz && (!Val || !RowPtr || !ColInd)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (D->Type != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  const int Base = D->Base;
  return staged(
      H,
      [=](const int *RowPtr, const int *ColInd, T *Val) {
        I->ZeroPivot = M ? (Ilu ? ilu0<T>(M, RowPtr, ColInd, Val, Base, I->Boost, I->Tol, I->template boostValue<T>())
                                : ic0<T>(M, RowPtr, ColInd, Val, Base))
                         : -1;
      },
      libs::in(RowPtr, size_t(M) + 1), libs::in(ColInd, size_t(Nnz)), libs::inout(Val, size_t(Nnz)));
}
template <bool Ilu>
static cusparseStatus_t factorCheck(cusparseHandle_t Hd, int M, int Nnz, cusparseMatDescr_t Descr, const void *Info) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  auto *D = lookup<MatDescr>(Descr);
  if (!D || !lookup<FactorInfo>(Info) || M < 0 || Nnz < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return D->Type == CUSPARSE_MATRIX_TYPE_GENERAL ? CUSPARSE_STATUS_SUCCESS
                                                 : CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
}

#define FACTORS(p, T)                                                                                                  \
  CUSPARSE_API cusparseStatus_t cusparse##p##csrilu02_bufferSize(cusparseHandle_t H, int M, int Nnz,                  \
                                                                  cusparseMatDescr_t D, T *, const int *, const int *, \
                                                                  csrilu02Info_t I, int *Size) {                       \
    if (auto S = factorCheck<true>(H, M, Nnz, D, I))                                                                   \
      return S;                                                                                                        \
    if (!Size)                                                                                                         \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    *Size = 4;                                                                                                         \
    return CUSPARSE_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csrilu02_analysis(cusparseHandle_t H, int M, int Nnz,                    \
                                                                cusparseMatDescr_t D, const T *, const int *,          \
                                                                const int *, csrilu02Info_t I, int, void *) {          \
    return factorCheck<true>(H, M, Nnz, D, I);                                                                         \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csrilu02(cusparseHandle_t H, int M, int Nnz, cusparseMatDescr_t D,       \
                                                       T *V, const int *R, const int *C, csrilu02Info_t I, int,        \
                                                       void *) {                                                       \
    return factor<T, true>(H, M, Nnz, D, V, R, C, I);                                                                  \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csric02_bufferSize(cusparseHandle_t H, int M, int Nnz,                   \
                                                                 cusparseMatDescr_t D, T *, const int *, const int *,  \
                                                                 csric02Info_t I, int *Size) {                         \
    if (auto S = factorCheck<false>(H, M, Nnz, D, I))                                                                  \
      return S;                                                                                                        \
    if (!Size)                                                                                                         \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    *Size = 4;                                                                                                         \
    return CUSPARSE_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csric02_analysis(cusparseHandle_t H, int M, int Nnz,                     \
                                                               cusparseMatDescr_t D, const T *, const int *,           \
                                                               const int *, csric02Info_t I, int, void *) {            \
    return factorCheck<false>(H, M, Nnz, D, I);                                                                        \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csric02(cusparseHandle_t H, int M, int Nnz, cusparseMatDescr_t D, T *V,  \
                                                      const int *R, const int *C, csric02Info_t I, int, void *) {      \
    return factor<T, false>(H, M, Nnz, D, V, R, C, I);                                                                 \
  }
FACTORS(S, float)
FACTORS(D, double)
FACTORS(C, std::complex<float>)
FACTORS(Z, std::complex<double>)
#undef FACTORS
