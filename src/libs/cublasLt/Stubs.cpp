//===- Stubs.cpp - every libcublasLt export without an implementation ------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A weak definition for every row of cublasLt.def: it logs once and
/// returns CUBLAS_STATUS_NOT_SUPPORTED.
#include "libs/common/LibSupport.h"
#include "zluda/cublas_abi.h"

#define LIB_EXPORT(Name)                                                                                               \
  extern "C" __attribute__((weak, visibility("default"))) cublasStatus_t Name() {                                      \
    zluda::libs::notSupported("cuBLASLt", #Name);                                                                      \
    return CUBLAS_STATUS_NOT_SUPPORTED;                                                                                \
  }
#include "zluda/api/cublasLt.def"
