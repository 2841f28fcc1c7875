//===- Stubs.cpp - every export without an implementation ------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A weak definition for every row of cuda_exports.def: it logs once and
/// returns CUDA_ERROR_NOT_SUPPORTED. Real implementations elsewhere in the
/// library are strong definitions and take their place at link time.
#include "zluda/cuda_abi.h"

namespace zluda::driver {
CUresult notSupported(const char *Name);
}

#define CU_EXPORT(Name)                                                                                                \
  extern "C" __attribute__((weak, visibility("default"))) CUresult Name() {                                            \
    return zluda::driver::notSupported(#Name);                                                                         \
  }
#include "zluda/api/cuda_exports.def"
