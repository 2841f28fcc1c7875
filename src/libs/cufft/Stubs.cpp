//===- Stubs.cpp - every libcufft export without an implementation --------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A weak definition for every row of cufft.def: it logs once and
/// returns CUFFT_NOT_SUPPORTED.
#include "libs/common/LibSupport.h"
#include "zluda/cufft_abi.h"

#define LIB_EXPORT(Name)                                                                                               \
  extern "C" __attribute__((weak, visibility("default"))) cufftResult Name() {                                         \
    zluda::libs::notSupported("cuFFT", #Name);                                                                         \
    return CUFFT_NOT_SUPPORTED;                                                                                        \
  }
#include "zluda/api/cufft.def"
