//===- HipTestContext.h - the context of the libraries' HIP-backend tests --===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file What every unit test of a math library on the test HIP runtime sets
/// up first: device 0's primary context, current on the calling thread.
#pragma once

#include "zluda/cuda_abi.h"

#include <gtest/gtest.h>

extern "C" {
CUresult cuInit(unsigned);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuCtxSetCurrent(CUcontext);
}

/// Initializes the driver and makes device 0's primary context current (call under ASSERT_NO_FATAL_FAILURE).
inline void usePrimaryContext() {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUcontext C;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&C, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(C), CUDA_SUCCESS);
}
