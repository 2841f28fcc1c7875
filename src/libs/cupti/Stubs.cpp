//===- Stubs.cpp - every libcupti export without an implementation --------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A weak definition for every row of cupti.def: it logs once and
/// returns CUPTI_ERROR_NOT_SUPPORTED (the event, metric, PC sampling, PM
/// sampling, SASS metrics and profiler APIs; Cupti.cpp has the activity API).
#include "libs/common/LibSupport.h"
#include "zluda/cupti_abi.h"

#define LIB_EXPORT(Name)                                                                                               \
  extern "C" __attribute__((weak, visibility("default"))) CUptiResult Name() {                                         \
    zluda::libs::notSupported("CUPTI", #Name);                                                                         \
    return CUPTI_ERROR_NOT_SUPPORTED;                                                                                  \
  }
#include "zluda/api/cupti.def"
