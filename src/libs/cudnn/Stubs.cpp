//===- Stubs.cpp - every libcudnn export without an implementation --------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A weak definition for every row of cudnn.def: it logs once and
/// returns CUDNN_STATUS_NOT_SUPPORTED (RNNs, CTC loss, attention's legacy
/// API, fused-ops plans, dropout, divisive normalization, tensor
/// transforms and reductions, among others; docs/STATUS.md lists them).
#include "libs/common/LibSupport.h"
#include "zluda/cudnn_abi.h"

#define LIB_EXPORT(Name)                                                                                               \
  extern "C" __attribute__((weak, visibility("default"))) cudnnStatus_t Name() {                                       \
    zluda::libs::notSupported("cuDNN", #Name);                                                                         \
    return CUDNN_STATUS_NOT_SUPPORTED;                                                                                 \
  }
#include "zluda/api/cudnn.def"
