//===- Stubs.cpp - every libcusparse export without an implementation -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A weak definition for every row of cusparse.def: it logs once and
/// returns CUSPARSE_STATUS_NOT_SUPPORTED.
#include "libs/common/LibSupport.h"
#include "zluda/cusparse_abi.h"

#define LIB_EXPORT(Name)                                                                                               \
  extern "C" __attribute__((weak, visibility("default"))) cusparseStatus_t Name() {                                    \
    zluda::libs::notSupported("cuSPARSE", #Name);                                                                      \
    return CUSPARSE_STATUS_NOT_SUPPORTED;                                                                              \
  }
#include "zluda/api/cusparse.def"
