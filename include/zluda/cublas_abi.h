/*===- cublas_abi.h - the cuBLAS API types our libcublas implements -------===*/
/* Part of ZLUDA for C++. Licensed under the Apache License v2.0. */
/** \file Our own declarations of the cuBLAS ABI (enum values and types from
 * the cuBLAS and CUDA Library Types references), checked against NVIDIA's
 * cublas_api.h and library_types.h by tests/abi/CublasAbiTest.cpp. */
#ifndef ZLUDA_CUBLAS_ABI_H
#define ZLUDA_CUBLAS_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_ARCH_MISMATCH = 8,
  CUBLAS_STATUS_MAPPING_ERROR = 11,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_INTERNAL_ERROR = 14,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
  CUBLAS_STATUS_LICENSE_ERROR = 16
} cublasStatus_t;

typedef enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1, CUBLAS_FILL_MODE_FULL = 2 } cublasFillMode_t;
typedef enum { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 } cublasDiagType_t;
typedef enum { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 } cublasSideMode_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2, CUBLAS_OP_CONJG = 3 } cublasOperation_t;
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;
typedef enum { CUBLAS_ATOMICS_NOT_ALLOWED = 0, CUBLAS_ATOMICS_ALLOWED = 1 } cublasAtomicsMode_t;
typedef enum {
  CUBLAS_DEFAULT_MATH = 0,
  CUBLAS_TENSOR_OP_MATH = 1,
  CUBLAS_PEDANTIC_MATH = 2,
  CUBLAS_TF32_TENSOR_OP_MATH = 3,
  CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16
} cublasMath_t;
typedef enum {
  CUBLAS_COMPUTE_16F = 64,
  CUBLAS_COMPUTE_16F_PEDANTIC = 65,
  CUBLAS_COMPUTE_32F = 68,
  CUBLAS_COMPUTE_32F_PEDANTIC = 69,
  CUBLAS_COMPUTE_32F_FAST_16F = 74,
  CUBLAS_COMPUTE_32F_FAST_16BF = 75,
  CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
  CUBLAS_COMPUTE_64F = 70,
  CUBLAS_COMPUTE_64F_PEDANTIC = 71,
  CUBLAS_COMPUTE_32I = 72,
  CUBLAS_COMPUTE_32I_PEDANTIC = 73
} cublasComputeType_t;
/* cudaDataType (library_types.h): the element types used here. */
typedef enum {
  CUDA_R_32F = 0,
  CUDA_R_64F = 1,
  CUDA_R_16F = 2,
  CUDA_R_8I = 3,
  CUDA_C_32F = 4,
  CUDA_C_64F = 5,
  CUDA_C_16F = 6,
  CUDA_C_8I = 7,
  CUDA_R_8U = 8,
  CUDA_R_32I = 10,
  CUDA_R_16BF = 14,
  CUDA_C_16BF = 15
} cudaDataType;
typedef enum { MAJOR_VERSION = 0, MINOR_VERSION = 1, PATCH_LEVEL = 2 } libraryPropertyType;

#define ZLUDA_CUBLAS_VERSION_MAJOR 13
#define ZLUDA_CUBLAS_VERSION_MINOR 1
#define ZLUDA_CUBLAS_VERSION_PATCH 0

typedef struct cublasContext *cublasHandle_t;
typedef void (*cublasLogCallback)(const char *msg);
typedef struct {
  float x, y;
} cuComplex;
typedef struct {
  double x, y;
} cuDoubleComplex;

#ifdef __cplusplus
}
#endif

#endif /* ZLUDA_CUBLAS_ABI_H */
