//===- NvmlAbiTest.cpp - our NVML declarations against nvml.h ---------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Built where nvml.h exists (NVIDIA's driver development files, not
/// the toolkit: it was run on the H200 machine, 2026-12-04): values and
/// layouts of include/zluda/nvml_abi.h must be NVML's. Compile-time checks.
#include <cstddef>
#include <gtest/gtest.h>
#include <stdint.h>
namespace ours {
#include "zluda/nvml_abi.h"
}
#undef ZLUDA_NVML_ABI_H
#undef NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE
#undef NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE
#undef NVML_DEVICE_NAME_V2_BUFFER_SIZE
#undef NVML_DEVICE_UUID_V2_BUFFER_SIZE
#undef NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
#include <nvml.h>
#define SAME(X) static_assert((long long)ours::X == (long long)::X, #X)
#define SIZE(T) static_assert(sizeof(ours::T) == sizeof(::T), #T)
#define OFF(T, F) static_assert(offsetof(ours::T, F) == offsetof(::T, F), #T "." #F)
SAME(NVML_SUCCESS); SAME(NVML_ERROR_UNINITIALIZED); SAME(NVML_ERROR_INVALID_ARGUMENT); SAME(NVML_ERROR_NOT_SUPPORTED);
SAME(NVML_ERROR_NO_PERMISSION); SAME(NVML_ERROR_NOT_FOUND); SAME(NVML_ERROR_INSUFFICIENT_SIZE); SAME(NVML_ERROR_DRIVER_NOT_LOADED);
SAME(NVML_ERROR_FUNCTION_NOT_FOUND); SAME(NVML_ERROR_GPU_IS_LOST); SAME(NVML_ERROR_ARGUMENT_VERSION_MISMATCH); SAME(NVML_ERROR_UNKNOWN);
SAME(NVML_FEATURE_ENABLED); SAME(NVML_TEMPERATURE_GPU); SAME(NVML_CLOCK_SM); SAME(NVML_CLOCK_MEM); SAME(NVML_CLOCK_VIDEO);
SAME(NVML_COMPUTEMODE_PROHIBITED); SAME(NVML_COMPUTEMODE_EXCLUSIVE_PROCESS); SAME(NVML_PSTATE_0); SAME(NVML_PSTATE_UNKNOWN); SAME(NVML_BRAND_UNKNOWN);
SIZE(nvmlPciInfo_t); OFF(nvmlPciInfo_t, domain); OFF(nvmlPciInfo_t, pciSubSystemId); OFF(nvmlPciInfo_t, busId);
SIZE(nvmlUtilization_t); SIZE(nvmlMemory_t); OFF(nvmlMemory_t, used); SIZE(nvmlMemory_v2_t); OFF(nvmlMemory_v2_t, total); OFF(nvmlMemory_v2_t, used);
SIZE(nvmlProcessInfo_t); OFF(nvmlProcessInfo_t, usedGpuMemory); OFF(nvmlProcessInfo_t, computeInstanceId);
static_assert(nvmlMemory_v2 == (unsigned)(sizeof(ours::nvmlMemory_v2_t) | (2u << 24)), "version");
static_assert(NVML_API_VERSION == 13, "api");

TEST(NvmlAbi, DeclarationsMatchNvmlH) { SUCCEED(); }
