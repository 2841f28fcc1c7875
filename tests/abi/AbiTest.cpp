//===- AbiTest.cpp - our ABI declarations against the toolkit's cuda.h -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Built only where the CUDA toolkit's cuda.h exists. Our declarations
/// live in namespace ours; every error code, the enum values we use and the
/// layout of every struct we declare must match NVIDIA's.
#include <cstddef>
#include <stddef.h>
#include <stdint.h> // before the namespace: their guards keep them out of it

namespace ours {
#include "zluda/cuda_abi.h"
}
#undef CU_STREAM_LEGACY
#undef CU_STREAM_PER_THREAD
#undef CU_LAUNCH_PARAM_END
#undef CU_LAUNCH_PARAM_BUFFER_POINTER
#undef CU_LAUNCH_PARAM_BUFFER_SIZE
#undef CU_IPC_HANDLE_SIZE
#undef ZLUDA_CUDA_ABI_H
// Values cuda.h spells as macros: taken before it is included.
constexpr long long OursTrsfInteger = ours::CU_TRSF_READ_AS_INTEGER;
constexpr long long OursTrsfNormalized = ours::CU_TRSF_NORMALIZED_COORDINATES;
constexpr long long OursHostAllocDeviceMap = ours::CU_MEMHOSTALLOC_DEVICEMAP;
constexpr long long OursTrsfSrgb = ours::CU_TRSF_SRGB;
constexpr long long OursTrsfSeamless = ours::CU_TRSF_SEAMLESS_CUBEMAP;
constexpr long long OursArrayLayered = ours::CUDA_ARRAY3D_LAYERED;
constexpr long long OursArraySurface = ours::CUDA_ARRAY3D_SURFACE_LDST;
constexpr long long OursArrayCubemap = ours::CUDA_ARRAY3D_CUBEMAP;
constexpr long long OursArrayGather = ours::CUDA_ARRAY3D_TEXTURE_GATHER;
constexpr long long OursCondAssignDefault = ours::CU_GRAPH_COND_ASSIGN_DEFAULT;

#include <cuda.h>
#include <gtest/gtest.h>

namespace {

#define CU_ERROR(Name, Value, Description) static_assert(static_cast<int>(ours::Name) == static_cast<int>(::Name), #Name);
#include "zluda/api/errors.def"

#define SAME(X) static_assert(static_cast<long long>(ours::X) == static_cast<long long>(::X), #X)
SAME(CU_MEMORYTYPE_HOST);
SAME(CU_MEMORYTYPE_DEVICE);
SAME(CU_MEMORYTYPE_ARRAY);
SAME(CU_MEMORYTYPE_UNIFIED);
SAME(CU_POINTER_ATTRIBUTE_CONTEXT);
SAME(CU_POINTER_ATTRIBUTE_MEMORY_TYPE);
SAME(CU_POINTER_ATTRIBUTE_DEVICE_POINTER);
SAME(CU_POINTER_ATTRIBUTE_HOST_POINTER);
SAME(CU_POINTER_ATTRIBUTE_IS_MANAGED);
SAME(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL);
SAME(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR);
SAME(CU_POINTER_ATTRIBUTE_RANGE_SIZE);
SAME(CU_POINTER_ATTRIBUTE_MAPPED);
SAME(CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE);
SAME(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
SAME(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
SAME(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
SAME(CU_FUNC_ATTRIBUTE_NUM_REGS);
SAME(CU_FUNC_ATTRIBUTE_PTX_VERSION);
SAME(CU_FUNC_ATTRIBUTE_BINARY_VERSION);
SAME(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
SAME(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
SAME(CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE);
SAME(CU_LIMIT_STACK_SIZE);
SAME(CU_LIMIT_PRINTF_FIFO_SIZE);
SAME(CU_LIMIT_MALLOC_HEAP_SIZE);
SAME(CU_LIMIT_PERSISTING_L2_CACHE_SIZE);
SAME(CU_MODULE_EAGER_LOADING);
SAME(CU_MODULE_LAZY_LOADING);
SAME(CU_LIBRARY_BINARY_IS_PRESERVED);
SAME(CU_LAUNCH_ATTRIBUTE_COOPERATIVE);
SAME(CU_JIT_MAX_REGISTERS);
SAME(CU_JIT_WALL_TIME);
SAME(CU_JIT_INFO_LOG_BUFFER);
SAME(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
SAME(CU_JIT_ERROR_LOG_BUFFER);
SAME(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
SAME(CU_JIT_OPTIMIZATION_LEVEL);
SAME(CU_JIT_TARGET);
SAME(CU_JIT_LOG_VERBOSE);
SAME(CU_JIT_GENERATE_LINE_INFO);
SAME(CU_JIT_SPLIT_COMPILE);
SAME(CU_JIT_NUM_OPTIONS);
SAME(CU_JIT_INPUT_CUBIN);
SAME(CU_JIT_INPUT_PTX);
SAME(CU_JIT_INPUT_FATBINARY);
SAME(CU_JIT_INPUT_OBJECT);
SAME(CU_JIT_INPUT_LIBRARY);
SAME(CU_JIT_INPUT_NVVM);
SAME(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
SAME(CU_RESOURCE_TYPE_LINEAR);
SAME(CU_RESOURCE_TYPE_PITCH2D);
SAME(CU_AD_FORMAT_UNSIGNED_INT8);
SAME(CU_AD_FORMAT_SIGNED_INT32);
SAME(CU_AD_FORMAT_HALF);
SAME(CU_AD_FORMAT_FLOAT);
static_assert(OursTrsfInteger == CU_TRSF_READ_AS_INTEGER);
static_assert(OursTrsfNormalized == CU_TRSF_NORMALIZED_COORDINATES);
SAME(CU_STREAM_NON_BLOCKING);
SAME(CU_CTX_SCHED_AUTO);
SAME(CU_CTX_SCHED_SPIN);
SAME(CU_CTX_SCHED_YIELD);
SAME(CU_CTX_SCHED_BLOCKING_SYNC);
SAME(CU_CTX_SCHED_MASK);
SAME(CU_EVENT_DISABLE_TIMING);
static_assert(OursHostAllocDeviceMap == CU_MEMHOSTALLOC_DEVICEMAP);
SAME(CU_MEM_ATTACH_GLOBAL);

#define LAYOUT(T, F) static_assert(offsetof(ours::T, F) == offsetof(::T, F), #T "." #F)
#define SIZE(T) static_assert(sizeof(ours::T) == sizeof(::T), "sizeof " #T)
SIZE(CUuuid);
SIZE(CUDA_MEMCPY2D);
LAYOUT(CUDA_MEMCPY2D, srcMemoryType);
LAYOUT(CUDA_MEMCPY2D, srcDevice);
LAYOUT(CUDA_MEMCPY2D, srcPitch);
LAYOUT(CUDA_MEMCPY2D, dstMemoryType);
LAYOUT(CUDA_MEMCPY2D, dstHost);
LAYOUT(CUDA_MEMCPY2D, dstPitch);
LAYOUT(CUDA_MEMCPY2D, WidthInBytes);
LAYOUT(CUDA_MEMCPY2D, Height);
SIZE(CUDA_MEMCPY3D);
LAYOUT(CUDA_MEMCPY3D, srcZ);
LAYOUT(CUDA_MEMCPY3D, srcMemoryType);
LAYOUT(CUDA_MEMCPY3D, srcHeight);
LAYOUT(CUDA_MEMCPY3D, dstZ);
LAYOUT(CUDA_MEMCPY3D, dstDevice);
LAYOUT(CUDA_MEMCPY3D, dstHeight);
LAYOUT(CUDA_MEMCPY3D, Depth);
SIZE(CUlaunchConfig);
LAYOUT(CUlaunchConfig, sharedMemBytes);
LAYOUT(CUlaunchConfig, hStream);
LAYOUT(CUlaunchConfig, attrs);
LAYOUT(CUlaunchConfig, numAttrs);
SIZE(CUlaunchAttribute);
LAYOUT(CUlaunchAttribute, value);
SIZE(CUlaunchAttributeValue);
SIZE(CUDA_RESOURCE_DESC);
LAYOUT(CUDA_RESOURCE_DESC, res.linear.devPtr);
LAYOUT(CUDA_RESOURCE_DESC, res.linear.numChannels);
LAYOUT(CUDA_RESOURCE_DESC, res.linear.sizeInBytes);
LAYOUT(CUDA_RESOURCE_DESC, res.pitch2D.pitchInBytes);
LAYOUT(CUDA_RESOURCE_DESC, flags);
SIZE(CUDA_TEXTURE_DESC);
LAYOUT(CUDA_TEXTURE_DESC, filterMode);
LAYOUT(CUDA_TEXTURE_DESC, flags);
LAYOUT(CUDA_TEXTURE_DESC, borderColor);
SAME(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
SAME(CU_MEM_HANDLE_TYPE_FABRIC);
SAME(CU_MEM_ACCESS_FLAGS_PROT_READ);
SAME(CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
SAME(CU_MEM_LOCATION_TYPE_DEVICE);
SAME(CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT);
SAME(CU_MEM_ALLOCATION_TYPE_PINNED);
SAME(CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
SAME(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
static_assert(OursTrsfSrgb == CU_TRSF_SRGB && OursTrsfSeamless == CU_TRSF_SEAMLESS_CUBEMAP);
static_assert(OursArrayLayered == CUDA_ARRAY3D_LAYERED && OursArraySurface == CUDA_ARRAY3D_SURFACE_LDST);
static_assert(OursArrayCubemap == CUDA_ARRAY3D_CUBEMAP && OursArrayGather == CUDA_ARRAY3D_TEXTURE_GATHER);
SIZE(CUDA_ARRAY_DESCRIPTOR);
LAYOUT(CUDA_ARRAY_DESCRIPTOR, Format);
LAYOUT(CUDA_ARRAY_DESCRIPTOR, NumChannels);
SIZE(CUDA_ARRAY3D_DESCRIPTOR);
LAYOUT(CUDA_ARRAY3D_DESCRIPTOR, Depth);
LAYOUT(CUDA_ARRAY3D_DESCRIPTOR, NumChannels);
LAYOUT(CUDA_ARRAY3D_DESCRIPTOR, Flags);
LAYOUT(CUDA_RESOURCE_DESC, res.mipmap.hMipmappedArray);
SAME(CU_AD_FORMAT_HALF);
SIZE(CUmemLocation);
SIZE(CUmemAllocationProp);
LAYOUT(CUmemAllocationProp, requestedHandleTypes);
LAYOUT(CUmemAllocationProp, location);
LAYOUT(CUmemAllocationProp, win32HandleMetaData);
LAYOUT(CUmemAllocationProp, allocFlags);
LAYOUT(CUmemAllocationProp, allocFlags.usage);
SIZE(CUmemAccessDesc);
LAYOUT(CUmemAccessDesc, flags);
SIZE(CUipcMemHandle);
SIZE(CUipcEventHandle);
static_assert(sizeof(ours::CUmemGenericAllocationHandle) == sizeof(::CUmemGenericAllocationHandle));
static_assert(OursCondAssignDefault == CU_GRAPH_COND_ASSIGN_DEFAULT);
static_assert(sizeof(ours::CUgraphConditionalHandle) == sizeof(::CUgraphConditionalHandle));
SAME(CU_AD_FORMAT_UNORM_INT8X1);
SAME(CU_AD_FORMAT_UNORM_INT16X4);
SAME(CU_AD_FORMAT_SNORM_INT8X1);
SAME(CU_AD_FORMAT_SNORM_INT16X4);
SAME(CU_GRAPH_COND_TYPE_IF);
SAME(CU_GRAPH_COND_TYPE_WHILE);
SAME(CU_GRAPH_COND_TYPE_SWITCH);
SIZE(CUDA_CONDITIONAL_NODE_PARAMS);
LAYOUT(CUDA_CONDITIONAL_NODE_PARAMS, type);
LAYOUT(CUDA_CONDITIONAL_NODE_PARAMS, size);
LAYOUT(CUDA_CONDITIONAL_NODE_PARAMS, phGraph_out);
LAYOUT(CUDA_CONDITIONAL_NODE_PARAMS, ctx);
SIZE(CUgraphNodeParams);
LAYOUT(CUgraphNodeParams, conditional);
LAYOUT(CUgraphNodeParams, reserved2);

TEST(Abi, DeclarationsMatchTheToolkit) {
  // Everything above is checked at compile time; this records that it ran.
  EXPECT_EQ(sizeof(ours::CUdeviceptr), sizeof(::CUdeviceptr));
  EXPECT_EQ(reinterpret_cast<void *>(CU_STREAM_LEGACY), reinterpret_cast<void *>(0x1));
}

} // namespace
