//===- RuntimeAbiTest.cpp - runtime declarations against driver_types.h ----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include <cstddef>
#include <stddef.h>
#include <stdint.h> // before the namespace: their guards keep them out of it

namespace ours {
#include "zluda/cuda_runtime_abi.h"
}
#undef CU_STREAM_LEGACY
#undef CU_STREAM_PER_THREAD
#undef CU_LAUNCH_PARAM_END
#undef CU_LAUNCH_PARAM_BUFFER_POINTER
#undef CU_LAUNCH_PARAM_BUFFER_SIZE
#undef CU_IPC_HANDLE_SIZE

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

namespace {

#define CUDART_ERROR(Name, Value, Description)                                                                         \
  static_assert(static_cast<int>(ours::Name) == static_cast<int>(::Name), #Name);
#include "zluda/api/runtime_errors.def"

#define SIZE(T) static_assert(sizeof(ours::T) == sizeof(::T), "sizeof " #T)
#define LAYOUT(T, F) static_assert(offsetof(ours::T, F) == offsetof(::T, F), #T "." #F)
SIZE(cudaIpcMemHandle_t);
SIZE(cudaIpcEventHandle_t);
SIZE(dim3);
SIZE(cudaDeviceProp);
LAYOUT(cudaDeviceProp, uuid);
LAYOUT(cudaDeviceProp, totalGlobalMem);
LAYOUT(cudaDeviceProp, warpSize);
LAYOUT(cudaDeviceProp, maxThreadsDim);
LAYOUT(cudaDeviceProp, major);
LAYOUT(cudaDeviceProp, multiProcessorCount);
LAYOUT(cudaDeviceProp, maxTexture2DLinear);
LAYOUT(cudaDeviceProp, maxSurfaceCubemapLayered);
LAYOUT(cudaDeviceProp, surfaceAlignment);
LAYOUT(cudaDeviceProp, l2CacheSize);
LAYOUT(cudaDeviceProp, sharedMemPerMultiprocessor);
LAYOUT(cudaDeviceProp, sharedMemPerBlockOptin);
LAYOUT(cudaDeviceProp, reservedSharedMemPerBlock);
LAYOUT(cudaDeviceProp, memoryPoolSupportedHandleTypes);
LAYOUT(cudaDeviceProp, hostNumaMultinodeIpcSupported);
LAYOUT(cudaDeviceProp, reserved);
SIZE(cudaFuncAttributes);
LAYOUT(cudaFuncAttributes, maxThreadsPerBlock);
LAYOUT(cudaFuncAttributes, ptxVersion);
LAYOUT(cudaFuncAttributes, maxDynamicSharedSizeBytes);
LAYOUT(cudaFuncAttributes, nonPortableClusterSizeAllowed);
SIZE(cudaPointerAttributes);
LAYOUT(cudaPointerAttributes, devicePointer);
LAYOUT(cudaPointerAttributes, hostPointer);
SIZE(cudaExtent);
SIZE(cudaPitchedPtr);
SIZE(cudaMemcpy3DParms);
LAYOUT(cudaMemcpy3DParms, dstPtr);
LAYOUT(cudaMemcpy3DParms, extent);
LAYOUT(cudaMemcpy3DParms, kind);
SIZE(cudaChannelFormatDesc);
SIZE(cudaResourceDesc);
LAYOUT(cudaResourceDesc, res.linear.desc);
LAYOUT(cudaResourceDesc, res.linear.sizeInBytes);
LAYOUT(cudaResourceDesc, res.pitch2D.pitchInBytes);
LAYOUT(cudaResourceDesc, flags);
SIZE(cudaTextureDesc);
LAYOUT(cudaTextureDesc, readMode);
LAYOUT(cudaTextureDesc, normalizedCoords);
LAYOUT(cudaTextureDesc, seamlessCubemap);
SIZE(cudaLaunchConfig_t);
LAYOUT(cudaLaunchConfig_t, dynamicSmemBytes);
LAYOUT(cudaLaunchConfig_t, stream);
LAYOUT(cudaLaunchConfig_t, attrs);
LAYOUT(cudaLaunchConfig_t, numAttrs);
SIZE(cudaLaunchAttribute);
LAYOUT(cudaLaunchAttribute, val);
SIZE(cudaMemLocation);
SIZE(cudaKernelNodeParams);
LAYOUT(cudaKernelNodeParams, sharedMemBytes);
LAYOUT(cudaKernelNodeParams, kernelParams);
SIZE(cudaMemsetParams);
LAYOUT(cudaMemsetParams, elementSize);
LAYOUT(cudaMemsetParams, height);
SIZE(cudaHostNodeParams);
static_assert(static_cast<int>(ours::cudaMemcpyDefault) == static_cast<int>(::cudaMemcpyDefault));
static_assert(static_cast<int>(ours::cudaMemoryTypeManaged) == static_cast<int>(::cudaMemoryTypeManaged));
static_assert(static_cast<int>(ours::cudaResourceTypePitch2D) == static_cast<int>(::cudaResourceTypePitch2D));
static_assert(static_cast<int>(ours::cudaChannelFormatKindFloat) == static_cast<int>(::cudaChannelFormatKindFloat));
static_assert(static_cast<int>(ours::cudaChannelFormatKindNV12) == static_cast<int>(::cudaChannelFormatKindNV12));
static_assert(static_cast<int>(ours::cudaChannelFormatKindUnsignedNormalized8X1) ==
              static_cast<int>(::cudaChannelFormatKindUnsignedNormalized8X1));
static_assert(static_cast<int>(ours::cudaChannelFormatKindSignedNormalized16X4) ==
              static_cast<int>(::cudaChannelFormatKindSignedNormalized16X4));
static_assert(static_cast<int>(ours::cudaChannelFormatKindUnsignedBlockCompressed1) ==
              static_cast<int>(::cudaChannelFormatKindUnsignedBlockCompressed1));
static_assert(static_cast<int>(ours::cudaChannelFormatKindUnsignedBlockCompressed7SRGB) ==
              static_cast<int>(::cudaChannelFormatKindUnsignedBlockCompressed7SRGB));
static_assert(static_cast<int>(ours::cudaChannelFormatKindUnsignedNormalized1010102) ==
              static_cast<int>(::cudaChannelFormatKindUnsignedNormalized1010102));

TEST(RuntimeAbi, DeclarationsMatchTheToolkit) { EXPECT_EQ(sizeof(ours::cudaDeviceProp), sizeof(::cudaDeviceProp)); }

} // namespace
