//===- Stubs.cpp - every libcurand export without an implementation -------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A weak definition for every row of curand.def: it logs once and
/// returns CURAND_STATUS_ARCH_MISMATCH (cuRAND has no NOT_SUPPORTED status;
/// this one is its "the device does not support the requested feature").
#include "libs/common/LibSupport.h"
#include "zluda/curand_abi.h"

#define LIB_EXPORT(Name)                                                                                               \
  extern "C" __attribute__((weak, visibility("default"))) curandStatus_t Name() {                                      \
    zluda::libs::notSupported("cuRAND", #Name);                                                                        \
    return CURAND_STATUS_ARCH_MISMATCH;                                                                                \
  }
#include "zluda/api/curand.def"
