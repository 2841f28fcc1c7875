//===- CublasAbiTest.cpp - our cuBLAS declarations against cublas_api.h -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Every enum value include/zluda/cublas_abi.h declares must be NVIDIA's,
/// and the export table must hold every function cublas_api.h declares that
/// NVIDIA's library exports (checked by name through the header's prototypes).
#include <cstddef>
#include <stddef.h>
#include <stdint.h>

namespace ours {
#include "zluda/cublasLt_abi.h"
}
#undef ZLUDA_CUBLAS_ABI_H
#undef ZLUDA_CUBLASLT_ABI_H

#include <cublasLt.h>
#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

namespace {

#define SAME(X) static_assert(static_cast<long long>(ours::X) == static_cast<long long>(::X), #X)
SAME(CUBLAS_STATUS_SUCCESS);
SAME(CUBLAS_STATUS_NOT_INITIALIZED);
SAME(CUBLAS_STATUS_ALLOC_FAILED);
SAME(CUBLAS_STATUS_INVALID_VALUE);
SAME(CUBLAS_STATUS_ARCH_MISMATCH);
SAME(CUBLAS_STATUS_MAPPING_ERROR);
SAME(CUBLAS_STATUS_EXECUTION_FAILED);
SAME(CUBLAS_STATUS_INTERNAL_ERROR);
SAME(CUBLAS_STATUS_NOT_SUPPORTED);
SAME(CUBLAS_STATUS_LICENSE_ERROR);
SAME(CUBLAS_FILL_MODE_LOWER);
SAME(CUBLAS_FILL_MODE_UPPER);
SAME(CUBLAS_FILL_MODE_FULL);
SAME(CUBLAS_DIAG_UNIT);
SAME(CUBLAS_SIDE_RIGHT);
SAME(CUBLAS_OP_N);
SAME(CUBLAS_OP_T);
SAME(CUBLAS_OP_C);
SAME(CUBLAS_OP_CONJG);
SAME(CUBLAS_POINTER_MODE_DEVICE);
SAME(CUBLAS_ATOMICS_ALLOWED);
SAME(CUBLAS_DEFAULT_MATH);
SAME(CUBLAS_TENSOR_OP_MATH);
SAME(CUBLAS_PEDANTIC_MATH);
SAME(CUBLAS_TF32_TENSOR_OP_MATH);
SAME(CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
SAME(CUBLAS_COMPUTE_16F);
SAME(CUBLAS_COMPUTE_16F_PEDANTIC);
SAME(CUBLAS_COMPUTE_32F);
SAME(CUBLAS_COMPUTE_32F_PEDANTIC);
SAME(CUBLAS_COMPUTE_32F_FAST_16F);
SAME(CUBLAS_COMPUTE_32F_FAST_16BF);
SAME(CUBLAS_COMPUTE_32F_FAST_TF32);
SAME(CUBLAS_COMPUTE_64F);
SAME(CUBLAS_COMPUTE_64F_PEDANTIC);
SAME(CUBLAS_COMPUTE_32I);
SAME(CUBLAS_COMPUTE_32I_PEDANTIC);
SAME(CUDA_R_32F);
SAME(CUDA_R_64F);
SAME(CUDA_R_16F);
SAME(CUDA_R_8I);
SAME(CUDA_C_32F);
SAME(CUDA_C_64F);
SAME(CUDA_C_16F);
SAME(CUDA_R_8U);
SAME(CUDA_R_32I);
SAME(CUDA_R_16BF);
SAME(CUDA_C_16BF);
SAME(MAJOR_VERSION);
SAME(PATCH_LEVEL);
static_assert(ZLUDA_CUBLAS_VERSION_MAJOR == CUBLAS_VER_MAJOR && ZLUDA_CUBLAS_VERSION_MINOR == CUBLAS_VER_MINOR,
              "the version we report is the headers'");
static_assert(sizeof(ours::cuComplex) == sizeof(::cuComplex) && sizeof(ours::cuDoubleComplex) == sizeof(::cuDoubleComplex));

// cuBLASLt: the values and the opaque sizes programs allocate.
SAME(CUBLASLT_ORDER_ROW);
SAME(CUBLASLT_MATRIX_LAYOUT_TYPE);
SAME(CUBLASLT_MATRIX_LAYOUT_ORDER);
SAME(CUBLASLT_MATRIX_LAYOUT_ROWS);
SAME(CUBLASLT_MATRIX_LAYOUT_COLS);
SAME(CUBLASLT_MATRIX_LAYOUT_LD);
SAME(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT);
SAME(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
SAME(CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET);
SAME(CUBLASLT_POINTER_MODE_DEVICE);
SAME(CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST);
SAME(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE);
SAME(CUBLASLT_MATMUL_DESC_SCALE_TYPE);
SAME(CUBLASLT_MATMUL_DESC_POINTER_MODE);
SAME(CUBLASLT_MATMUL_DESC_TRANSA);
SAME(CUBLASLT_MATMUL_DESC_TRANSB);
SAME(CUBLASLT_MATMUL_DESC_TRANSC);
SAME(CUBLASLT_MATMUL_DESC_FILL_MODE);
SAME(CUBLASLT_MATMUL_DESC_EPILOGUE);
SAME(CUBLASLT_MATMUL_DESC_BIAS_POINTER);
SAME(CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE);
SAME(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER);
SAME(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD);
SAME(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE);
SAME(CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE);
SAME(CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET);
SAME(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER);
SAME(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER);
SAME(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE);
SAME(CUBLASLT_MATMUL_DESC_FAST_ACCUM);
SAME(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE);
SAME(CUBLASLT_EPILOGUE_DEFAULT);
SAME(CUBLASLT_EPILOGUE_RELU_AUX_BIAS);
SAME(CUBLASLT_EPILOGUE_DRELU_BGRAD);
SAME(CUBLASLT_EPILOGUE_GELU_AUX_BIAS);
SAME(CUBLASLT_EPILOGUE_DGELU_BGRAD);
SAME(CUBLASLT_EPILOGUE_BGRADA);
SAME(CUBLASLT_EPILOGUE_BGRADB);
SAME(CUBLASLT_MATMUL_PREF_SEARCH_MODE);
SAME(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
SAME(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES);
SAME(CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT);
SAME(CUBLASLT_MATMUL_PREF_IMPL_MASK);
SAME(CUBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE);
SAME(CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSB);
static_assert(sizeof(ours::cublasLtMatmulDescOpaque_t) == sizeof(::cublasLtMatmulDescOpaque_t));
static_assert(sizeof(ours::cublasLtMatrixLayoutOpaque_t) == sizeof(::cublasLtMatrixLayoutOpaque_t));
static_assert(sizeof(ours::cublasLtMatmulPreferenceOpaque_t) == sizeof(::cublasLtMatmulPreferenceOpaque_t));
static_assert(sizeof(ours::cublasLtMatrixTransformDescOpaque_t) == sizeof(::cublasLtMatrixTransformDescOpaque_t));
static_assert(sizeof(ours::cublasLtMatmulHeuristicResult_t) == sizeof(::cublasLtMatmulHeuristicResult_t));
static_assert(offsetof(ours::cublasLtMatmulHeuristicResult_t, wavesCount) ==
              offsetof(::cublasLtMatmulHeuristicResult_t, wavesCount));

// Every function of the v2 API the header declares is a row of the export table.
TEST(CublasAbi, TheTableHoldsTheHeadersFunctions) {
  std::set<std::string> Table = {
#define LIB_EXPORT(Name) #Name,
#include "zluda/api/cublas.def"
  };
  // cublas_v2.h maps the unsuffixed names to the _v2 exports.
  for (const char *Name : {"cublasCreate_v2", "cublasSgemm_v2", "cublasGemmEx", "cublasGemmStridedBatchedEx",
                           "cublasHgemm", "cublasSetStream_v2", "cublasGetStatusString", "cublasSgemv_v2_64",
                           "cublasIzamin_v2_64", "cublasDgeam", "cublasSetMatrixAsync"})
    EXPECT_TRUE(Table.count(Name)) << Name;
  EXPECT_EQ(Table.size(), 756u) << "NVIDIA's libcublas.so.13 has 756 exports";
}

} // namespace
