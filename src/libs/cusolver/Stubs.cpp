//===- Stubs.cpp - every libcusolver export without an implementation -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A weak definition for every row of cusolver.def: it logs once and
/// returns CUSOLVER_STATUS_NOT_SUPPORTED.
#include "libs/common/LibSupport.h"
#include "zluda/cusolver_abi.h"

#define LIB_EXPORT(Name)                                                                                               \
  extern "C" __attribute__((weak, visibility("default"))) cusolverStatus_t Name() {                                    \
    zluda::libs::notSupported("cuSOLVER", #Name);                                                                      \
    return CUSOLVER_STATUS_NOT_SUPPORTED;                                                                              \
  }
#include "zluda/api/cusolver.def"
