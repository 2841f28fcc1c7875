//===- CuptiAbiTest.cpp - our CUPTI declarations against NVIDIA's ---------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Every value zluda/cupti_abi.h declares must be CUPTI's, and every
/// record our libcupti writes must have the size and field offsets of CUDA
/// 13's cupti_activity.h (a profiler reads them through NVIDIA's header).
#include <cstddef>
#include <stddef.h>
#include <stdint.h>

namespace ours {
#include "zluda/cupti_abi.h"
constexpr long long ApiVersion = CUPTI_API_VERSION;
} // namespace ours
#undef CUPTI_API_VERSION

#include <cupti.h>
#include <gtest/gtest.h>

#include <iterator>
#include <set>
#include <string>

namespace {

#define SAME(X) static_assert(static_cast<long long>(ours::X) == static_cast<long long>(::X), #X)
SAME(CUPTI_SUCCESS);
SAME(CUPTI_ERROR_INVALID_PARAMETER);
SAME(CUPTI_ERROR_INVALID_DEVICE);
SAME(CUPTI_ERROR_INVALID_CONTEXT);
SAME(CUPTI_ERROR_INVALID_OPERATION);
SAME(CUPTI_ERROR_OUT_OF_MEMORY);
SAME(CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT);
SAME(CUPTI_ERROR_API_NOT_IMPLEMENTED);
SAME(CUPTI_ERROR_MAX_LIMIT_REACHED);
SAME(CUPTI_ERROR_NOT_READY);
SAME(CUPTI_ERROR_NOT_COMPATIBLE);
SAME(CUPTI_ERROR_NOT_INITIALIZED);
SAME(CUPTI_ERROR_QUEUE_EMPTY);
SAME(CUPTI_ERROR_INVALID_HANDLE);
SAME(CUPTI_ERROR_INVALID_STREAM);
SAME(CUPTI_ERROR_INVALID_KIND);
SAME(CUPTI_ERROR_NOT_SUPPORTED);
SAME(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
SAME(CUPTI_ERROR_UNKNOWN);
SAME(CUPTI_ACTIVITY_KIND_INVALID);
SAME(CUPTI_ACTIVITY_KIND_MEMCPY);
SAME(CUPTI_ACTIVITY_KIND_MEMSET);
SAME(CUPTI_ACTIVITY_KIND_KERNEL);
SAME(CUPTI_ACTIVITY_KIND_DRIVER);
SAME(CUPTI_ACTIVITY_KIND_RUNTIME);
SAME(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
SAME(CUPTI_ACTIVITY_KIND_OVERHEAD);
SAME(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
SAME(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
SAME(CUPTI_ACTIVITY_KIND_MEM_DECOMPRESS);
SAME(CUPTI_ACTIVITY_FLAG_NONE);
SAME(CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC);
SAME(CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC);
SAME(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_HTOA);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_ATOH);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_ATOA);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_ATOD);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_DTOA);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_HTOH);
SAME(CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN);
SAME(CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);
SAME(CUPTI_ACTIVITY_MEMORY_KIND_PINNED);
SAME(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
SAME(CUPTI_ACTIVITY_MEMORY_KIND_ARRAY);
SAME(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED);
SAME(CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR);
SAME(CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE);
SAME(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE);
SAME(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE_CDP);
SAME(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT);
SAME(CUPTI_ACTIVITY_ATTR_PROFILING_SEMAPHORE_POOL_SIZE);
SAME(CUPTI_ACTIVITY_ATTR_PROFILING_SEMAPHORE_POOL_LIMIT);
SAME(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER);
SAME(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE);
SAME(CUPTI_ACTIVITY_ATTR_PROFILING_SEMAPHORE_PRE_ALLOCATE_VALUE);
SAME(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED);
SAME(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER);
SAME(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE_DEVICE_GRAPHS);
SAME(CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT);
SAME(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
SAME(CUPTI_ACTIVITY_THREAD_ID_TYPE_SIZE);
SAME(CUPTI_EXTERNAL_CORRELATION_KIND_INVALID);
SAME(CUPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN);
SAME(CUPTI_EXTERNAL_CORRELATION_KIND_OPENACC);
SAME(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0);
SAME(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1);
SAME(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2);
SAME(CUPTI_EXTERNAL_CORRELATION_KIND_SIZE);
SAME(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020);
SAME(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020);
SAME(CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020);
SAME(CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020);
SAME(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
SAME(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async);
SAME(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2);
SAME(CUPTI_DRIVER_TRACE_CBID_cuMemcpy);
SAME(CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync);
SAME(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
static_assert(ours::ApiVersion == CUPTI_API_VERSION, "CUPTI_API_VERSION");
#undef SAME

#define LAYOUT(T, F) static_assert(offsetof(ours::T, F) == offsetof(::T, F), #T "." #F)
#define SIZE(T)                                                                                                        \
  static_assert(sizeof(ours::T) == sizeof(::T), #T);                                                                   \
  static_assert(alignof(ours::T) == alignof(::T), #T)
SIZE(CUpti_Activity);
SIZE(CUpti_ActivityMemcpy6);
LAYOUT(CUpti_ActivityMemcpy6, copyKind);
LAYOUT(CUpti_ActivityMemcpy6, srcKind);
LAYOUT(CUpti_ActivityMemcpy6, dstKind);
LAYOUT(CUpti_ActivityMemcpy6, flags);
LAYOUT(CUpti_ActivityMemcpy6, bytes);
LAYOUT(CUpti_ActivityMemcpy6, start);
LAYOUT(CUpti_ActivityMemcpy6, end);
LAYOUT(CUpti_ActivityMemcpy6, deviceId);
LAYOUT(CUpti_ActivityMemcpy6, contextId);
LAYOUT(CUpti_ActivityMemcpy6, streamId);
LAYOUT(CUpti_ActivityMemcpy6, correlationId);
LAYOUT(CUpti_ActivityMemcpy6, runtimeCorrelationId);
LAYOUT(CUpti_ActivityMemcpy6, reserved0);
LAYOUT(CUpti_ActivityMemcpy6, graphNodeId);
LAYOUT(CUpti_ActivityMemcpy6, graphId);
LAYOUT(CUpti_ActivityMemcpy6, channelID);
LAYOUT(CUpti_ActivityMemcpy6, channelType);
LAYOUT(CUpti_ActivityMemcpy6, isDeviceLaunched);
LAYOUT(CUpti_ActivityMemcpy6, copyCount);
SIZE(CUpti_ActivityMemset4);
LAYOUT(CUpti_ActivityMemset4, value);
LAYOUT(CUpti_ActivityMemset4, bytes);
LAYOUT(CUpti_ActivityMemset4, start);
LAYOUT(CUpti_ActivityMemset4, end);
LAYOUT(CUpti_ActivityMemset4, deviceId);
LAYOUT(CUpti_ActivityMemset4, contextId);
LAYOUT(CUpti_ActivityMemset4, streamId);
LAYOUT(CUpti_ActivityMemset4, correlationId);
LAYOUT(CUpti_ActivityMemset4, flags);
LAYOUT(CUpti_ActivityMemset4, memoryKind);
LAYOUT(CUpti_ActivityMemset4, reserved0);
LAYOUT(CUpti_ActivityMemset4, graphNodeId);
LAYOUT(CUpti_ActivityMemset4, graphId);
LAYOUT(CUpti_ActivityMemset4, channelID);
LAYOUT(CUpti_ActivityMemset4, channelType);
LAYOUT(CUpti_ActivityMemset4, isDeviceLaunched);
SIZE(CUpti_ActivityKernel10);
LAYOUT(CUpti_ActivityKernel10, cacheConfig);
LAYOUT(CUpti_ActivityKernel10, sharedMemoryConfig);
LAYOUT(CUpti_ActivityKernel10, registersPerThread);
LAYOUT(CUpti_ActivityKernel10, partitionedGlobalCacheRequested);
LAYOUT(CUpti_ActivityKernel10, partitionedGlobalCacheExecuted);
LAYOUT(CUpti_ActivityKernel10, start);
LAYOUT(CUpti_ActivityKernel10, end);
LAYOUT(CUpti_ActivityKernel10, completed);
LAYOUT(CUpti_ActivityKernel10, deviceId);
LAYOUT(CUpti_ActivityKernel10, contextId);
LAYOUT(CUpti_ActivityKernel10, streamId);
LAYOUT(CUpti_ActivityKernel10, gridX);
LAYOUT(CUpti_ActivityKernel10, gridY);
LAYOUT(CUpti_ActivityKernel10, gridZ);
LAYOUT(CUpti_ActivityKernel10, blockX);
LAYOUT(CUpti_ActivityKernel10, blockY);
LAYOUT(CUpti_ActivityKernel10, blockZ);
LAYOUT(CUpti_ActivityKernel10, staticSharedMemory);
LAYOUT(CUpti_ActivityKernel10, dynamicSharedMemory);
LAYOUT(CUpti_ActivityKernel10, localMemoryPerThread);
LAYOUT(CUpti_ActivityKernel10, localMemoryTotal);
LAYOUT(CUpti_ActivityKernel10, correlationId);
LAYOUT(CUpti_ActivityKernel10, gridId);
LAYOUT(CUpti_ActivityKernel10, name);
LAYOUT(CUpti_ActivityKernel10, reserved0);
LAYOUT(CUpti_ActivityKernel10, queued);
LAYOUT(CUpti_ActivityKernel10, submitted);
LAYOUT(CUpti_ActivityKernel10, launchType);
LAYOUT(CUpti_ActivityKernel10, isSharedMemoryCarveoutRequested);
LAYOUT(CUpti_ActivityKernel10, sharedMemoryCarveoutRequested);
LAYOUT(CUpti_ActivityKernel10, sharedMemoryExecuted);
LAYOUT(CUpti_ActivityKernel10, graphNodeId);
LAYOUT(CUpti_ActivityKernel10, shmemLimitConfig);
LAYOUT(CUpti_ActivityKernel10, graphId);
LAYOUT(CUpti_ActivityKernel10, pAccessPolicyWindow);
LAYOUT(CUpti_ActivityKernel10, channelID);
LAYOUT(CUpti_ActivityKernel10, channelType);
LAYOUT(CUpti_ActivityKernel10, clusterX);
LAYOUT(CUpti_ActivityKernel10, clusterY);
LAYOUT(CUpti_ActivityKernel10, clusterZ);
LAYOUT(CUpti_ActivityKernel10, clusterSchedulingPolicy);
LAYOUT(CUpti_ActivityKernel10, localMemoryTotal_v2);
LAYOUT(CUpti_ActivityKernel10, maxPotentialClusterSize);
LAYOUT(CUpti_ActivityKernel10, maxActiveClusters);
LAYOUT(CUpti_ActivityKernel10, isDeviceLaunched);
SIZE(CUpti_ActivityAPI);
LAYOUT(CUpti_ActivityAPI, cbid);
LAYOUT(CUpti_ActivityAPI, start);
LAYOUT(CUpti_ActivityAPI, end);
LAYOUT(CUpti_ActivityAPI, processId);
LAYOUT(CUpti_ActivityAPI, threadId);
LAYOUT(CUpti_ActivityAPI, correlationId);
LAYOUT(CUpti_ActivityAPI, returnValue);
SIZE(CUpti_ActivityExternalCorrelation);
LAYOUT(CUpti_ActivityExternalCorrelation, externalKind);
LAYOUT(CUpti_ActivityExternalCorrelation, externalId);
LAYOUT(CUpti_ActivityExternalCorrelation, correlationId);
#undef LAYOUT
#undef SIZE

const char *const Exports[] = {
#define LIB_EXPORT(Name) #Name,
#include "zluda/api/cupti.def"
};

TEST(CuptiAbi, ExportTableHoldsTheActivityApi) {
  std::set<std::string> Rows(std::begin(Exports), std::end(Exports));
  for (const char *N : {"cuptiActivityEnable", "cuptiActivityDisable", "cuptiActivityRegisterCallbacks",
                        "cuptiActivityFlushAll", "cuptiActivityGetNextRecord", "cuptiActivityPushExternalCorrelationId",
                        "cuptiActivityPopExternalCorrelationId", "cuptiActivityRegisterTimestampCallback",
                        "cuptiGetTimestamp", "cuptiSubscribe", "cuptiFinalize", "cuptiGetStreamIdEx"})
    EXPECT_TRUE(Rows.count(N)) << N;
  EXPECT_EQ(Rows.size(), 197u); // libcupti.so.13's exports (CUDA 13.0)
}

} // namespace
