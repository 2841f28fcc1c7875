//===- CblasEnums.h - cuBLAS's enums as CBLAS's -----------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file For the CPU-device code over OpenBLAS's CBLAS (column-major throughout).
#pragma once

#include "zluda/cublas_abi.h"

#include <cblas.h>

namespace zluda::cublas {

/// CUBLAS_OP_C is a conjugate transpose for complex data, a plain one for real data.
inline CBLAS_TRANSPOSE cblasTrans(cublasOperation_t Op, bool Complex) {
  return Op == CUBLAS_OP_N ? CblasNoTrans : (Op == CUBLAS_OP_C && Complex) ? CblasConjTrans : CblasTrans;
}
inline CBLAS_UPLO cblasUplo(cublasFillMode_t U) { return U == CUBLAS_FILL_MODE_LOWER ? CblasLower : CblasUpper; }
inline CBLAS_DIAG cblasDiag(cublasDiagType_t D) { return D == CUBLAS_DIAG_UNIT ? CblasUnit : CblasNonUnit; }
inline CBLAS_SIDE cblasSide(cublasSideMode_t S) { return S == CUBLAS_SIDE_LEFT ? CblasLeft : CblasRight; }

} // namespace zluda::cublas
