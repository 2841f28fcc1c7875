//===- Stubs.cpp - every runtime export without an implementation ----------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A weak definition for every row of cuda_runtime.def: it logs once and
/// returns cudaErrorNotSupported (801). Real implementations are strong
/// definitions and take their place at link time.
namespace zluda::driver {
int notSupportedRuntime(const char *Name);
}

#define CUDART_EXPORT(Name)                                                                                            \
  extern "C" __attribute__((weak, visibility("default"))) int Name() { return zluda::driver::notSupportedRuntime(#Name); }
#include "zluda/api/cuda_runtime.def"
