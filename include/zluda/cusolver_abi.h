/*===- cusolver_abi.h - the cuSOLVER API types our libcusolver implements --===*/
/* Part of ZLUDA for C++. Licensed under the Apache License v2.0. */
/** \file Our own declarations of the cuSOLVER ABI (values from the cuSOLVER
 * reference), checked against NVIDIA's headers by tests/abi/MathLibsAbiTest.cpp. */
#ifndef ZLUDA_CUSOLVER_ABI_H
#define ZLUDA_CUSOLVER_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CUSOLVER_STATUS_SUCCESS = 0,
  CUSOLVER_STATUS_NOT_INITIALIZED = 1,
  CUSOLVER_STATUS_ALLOC_FAILED = 2,
  CUSOLVER_STATUS_INVALID_VALUE = 3,
  CUSOLVER_STATUS_ARCH_MISMATCH = 4,
  CUSOLVER_STATUS_MAPPING_ERROR = 5,
  CUSOLVER_STATUS_EXECUTION_FAILED = 6,
  CUSOLVER_STATUS_INTERNAL_ERROR = 7,
  CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED = 8,
  CUSOLVER_STATUS_NOT_SUPPORTED = 9,
  CUSOLVER_STATUS_ZERO_PIVOT = 10,
  CUSOLVER_STATUS_INVALID_LICENSE = 11,
  CUSOLVER_STATUS_INVALID_WORKSPACE = 31
} cusolverStatus_t;

typedef enum { CUSOLVER_EIG_MODE_NOVECTOR = 0, CUSOLVER_EIG_MODE_VECTOR = 1 } cusolverEigMode_t;
typedef enum { CUSOLVER_EIG_TYPE_1 = 1, CUSOLVER_EIG_TYPE_2 = 2, CUSOLVER_EIG_TYPE_3 = 3 } cusolverEigType_t;
typedef enum {
  CUSOLVER_EIG_RANGE_ALL = 1001,
  CUSOLVER_EIG_RANGE_I = 1002,
  CUSOLVER_EIG_RANGE_V = 1003
} cusolverEigRange_t;

typedef struct cusolverDnContext *cusolverDnHandle_t;
typedef struct syevjInfo *syevjInfo_t;   /* the Jacobi solvers' parameters and results */
typedef struct gesvdjInfo *gesvdjInfo_t;

#ifdef __cplusplus
}
#endif
#endif
