//===- Stubs.cpp - every libnvidia-ml export without an implementation -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A weak definition for every row of nvml.def: it logs once and
/// returns NVML_ERROR_NOT_SUPPORTED.
#include "libs/common/LibSupport.h"
#include "zluda/nvml_abi.h"

#define LIB_EXPORT(Name)                                                                                               \
  extern "C" __attribute__((weak, visibility("default"))) nvmlReturn_t Name() {                                        \
    zluda::libs::notSupported("NVML", #Name);                                                                          \
    return NVML_ERROR_NOT_SUPPORTED;                                                                                   \
  }
#include "zluda/api/nvml.def"
