/*===- cupti_abi.h - the CUPTI types our libcupti implements ---------------===*/
/* Part of ZLUDA for C++. Licensed under the Apache License v2.0. */
/** \file Our declarations of the part of CUPTI's ABI that libcupti.so.13
 * implements: the activity API's result codes, kinds and the record layouts
 * of CUDA 13's CUPTI (API version 13.0.1) for kernels, copies, memsets, API
 * calls and external correlations, with the values and layouts the CUPTI API
 * reference gives. tests/abi/CuptiAbiTest.cpp checks every value, size and
 * offset here against the toolkit's cupti_activity.h. */
#ifndef ZLUDA_CUPTI_ABI_H
#define ZLUDA_CUPTI_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CUPTI_SUCCESS = 0,
  CUPTI_ERROR_INVALID_PARAMETER = 1,
  CUPTI_ERROR_INVALID_DEVICE = 2,
  CUPTI_ERROR_INVALID_CONTEXT = 3,
  CUPTI_ERROR_INVALID_OPERATION = 7,
  CUPTI_ERROR_OUT_OF_MEMORY = 8,
  CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT = 10,
  CUPTI_ERROR_API_NOT_IMPLEMENTED = 11,
  CUPTI_ERROR_MAX_LIMIT_REACHED = 12,
  CUPTI_ERROR_NOT_READY = 13,
  CUPTI_ERROR_NOT_COMPATIBLE = 14,
  CUPTI_ERROR_NOT_INITIALIZED = 15,
  CUPTI_ERROR_QUEUE_EMPTY = 18,
  CUPTI_ERROR_INVALID_HANDLE = 19,
  CUPTI_ERROR_INVALID_STREAM = 20,
  CUPTI_ERROR_INVALID_KIND = 21,
  CUPTI_ERROR_NOT_SUPPORTED = 27,
  CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED = 39,
  CUPTI_ERROR_UNKNOWN = 999,
  CUPTI_ERROR_FORCE_INT = 0x7fffffff
} CUptiResult;

typedef enum {
  CUPTI_ACTIVITY_KIND_INVALID = 0,
  CUPTI_ACTIVITY_KIND_MEMCPY = 1,
  CUPTI_ACTIVITY_KIND_MEMSET = 2,
  CUPTI_ACTIVITY_KIND_KERNEL = 3,
  CUPTI_ACTIVITY_KIND_DRIVER = 4,
  CUPTI_ACTIVITY_KIND_RUNTIME = 5,
  CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL = 10,
  CUPTI_ACTIVITY_KIND_OVERHEAD = 17,
  CUPTI_ACTIVITY_KIND_SYNCHRONIZATION = 38,
  CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION = 39,
  CUPTI_ACTIVITY_KIND_MEM_DECOMPRESS = 54,
  CUPTI_ACTIVITY_KIND_FORCE_INT = 0x7fffffff
} CUpti_ActivityKind;

typedef enum {
  CUPTI_ACTIVITY_FLAG_NONE = 0,
  CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC = 1 << 0,
  CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC = 1 << 0,
  CUPTI_ACTIVITY_FLAG_FLUSH_FORCED = 1 << 0,
  CUPTI_ACTIVITY_FLAG_FORCE_INT = 0x7fffffff
} CUpti_ActivityFlag;

typedef enum {
  CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN = 0,
  CUPTI_ACTIVITY_MEMCPY_KIND_HTOD = 1,
  CUPTI_ACTIVITY_MEMCPY_KIND_DTOH = 2,
  CUPTI_ACTIVITY_MEMCPY_KIND_HTOA = 3,
  CUPTI_ACTIVITY_MEMCPY_KIND_ATOH = 4,
  CUPTI_ACTIVITY_MEMCPY_KIND_ATOA = 5,
  CUPTI_ACTIVITY_MEMCPY_KIND_ATOD = 6,
  CUPTI_ACTIVITY_MEMCPY_KIND_DTOA = 7,
  CUPTI_ACTIVITY_MEMCPY_KIND_DTOD = 8,
  CUPTI_ACTIVITY_MEMCPY_KIND_HTOH = 9,
  CUPTI_ACTIVITY_MEMCPY_KIND_FORCE_INT = 0x7fffffff
} CUpti_ActivityMemcpyKind;

typedef enum {
  CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN = 0,
  CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE = 1,
  CUPTI_ACTIVITY_MEMORY_KIND_PINNED = 2,
  CUPTI_ACTIVITY_MEMORY_KIND_DEVICE = 3,
  CUPTI_ACTIVITY_MEMORY_KIND_ARRAY = 4,
  CUPTI_ACTIVITY_MEMORY_KIND_MANAGED = 5,
  CUPTI_ACTIVITY_MEMORY_KIND_FORCE_INT = 0x7fffffff
} CUpti_ActivityMemoryKind;

typedef enum {
  CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR = 0,
  CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE = 1
} CUpti_ActivityLaunchType;

typedef enum {
  CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE = 0,
  CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE_CDP = 1,
  CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT = 2,
  CUPTI_ACTIVITY_ATTR_PROFILING_SEMAPHORE_POOL_SIZE = 3,
  CUPTI_ACTIVITY_ATTR_PROFILING_SEMAPHORE_POOL_LIMIT = 4,
  CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER = 5,
  CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE = 6,
  CUPTI_ACTIVITY_ATTR_PROFILING_SEMAPHORE_PRE_ALLOCATE_VALUE = 7,
  CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED = 8,
  CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER = 9,
  CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE_DEVICE_GRAPHS = 10,
  CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_FORCE_INT = 0x7fffffff
} CUpti_ActivityAttribute;

typedef enum {
  CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT = 0,
  CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM = 1,
  CUPTI_ACTIVITY_THREAD_ID_TYPE_SIZE = 2,
  CUPTI_ACTIVITY_THREAD_ID_TYPE_FORCE_INT = 0x7fffffff
} CUpti_ActivityThreadIdType;

typedef enum {
  CUPTI_EXTERNAL_CORRELATION_KIND_INVALID = 0,
  CUPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN = 1,
  CUPTI_EXTERNAL_CORRELATION_KIND_OPENACC = 2,
  CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 = 3,
  CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1 = 4,
  CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2 = 5,
  CUPTI_EXTERNAL_CORRELATION_KIND_SIZE,
  CUPTI_EXTERNAL_CORRELATION_KIND_FORCE_INT = 0x7fffffff
} CUpti_ExternalCorrelationKind;

/* The callback ids of the API records we write (cupti_runtime_cbid.h's and
 * cupti_driver_cbid.h's numbers). */
typedef uint32_t CUpti_CallbackId;
enum {
  CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020 = 31,
  CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020 = 41,
  CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020 = 49,
  CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020 = 51,
  CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 = 211,
  CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async = 216,
  CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2 = 249,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpy = 305,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync = 306,
  CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel = 307
};

typedef int CUpti_CallbackDomain;
typedef struct CUpti_Subscriber_st *CUpti_SubscriberHandle;
typedef void (*CUpti_CallbackFunc)(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *);

struct CUctx_st;
typedef void (*CUpti_BuffersCallbackRequestFunc)(uint8_t **buffer, size_t *size, size_t *maxNumRecords);
typedef void (*CUpti_BuffersCallbackCompleteFunc)(struct CUctx_st *context, uint32_t streamId, uint8_t *buffer,
                                                  size_t size, size_t validSize);
typedef uint64_t (*CUpti_TimestampCallbackFunc)(void);

/* Records: 8-byte aligned, fields packed as CUPTI lays them out. */
#define ZLUDA_CUPTI_RECORD __attribute__((__packed__)) __attribute__((aligned(8)))

typedef struct ZLUDA_CUPTI_RECORD {
  CUpti_ActivityKind kind;
} CUpti_Activity;

typedef struct ZLUDA_CUPTI_RECORD {
  CUpti_ActivityKind kind;
  uint8_t copyKind;
  uint8_t srcKind;
  uint8_t dstKind;
  uint8_t flags;
  uint64_t bytes;
  uint64_t start;
  uint64_t end;
  uint32_t deviceId;
  uint32_t contextId;
  uint32_t streamId;
  uint32_t correlationId;
  uint32_t runtimeCorrelationId;
  uint32_t pad;
  void *reserved0;
  uint64_t graphNodeId;
  uint32_t graphId;
  uint32_t channelID;
  int32_t channelType;
  uint8_t isDeviceLaunched;
  uint8_t pad2[3];
  uint64_t copyCount;
} CUpti_ActivityMemcpy6;

typedef struct ZLUDA_CUPTI_RECORD {
  CUpti_ActivityKind kind;
  uint32_t value;
  uint64_t bytes;
  uint64_t start;
  uint64_t end;
  uint32_t deviceId;
  uint32_t contextId;
  uint32_t streamId;
  uint32_t correlationId;
  uint16_t flags;
  uint16_t memoryKind;
  uint32_t pad;
  void *reserved0;
  uint64_t graphNodeId;
  uint32_t graphId;
  uint32_t channelID;
  int32_t channelType;
  uint8_t isDeviceLaunched;
  uint8_t pad2[3];
} CUpti_ActivityMemset4;

typedef struct ZLUDA_CUPTI_RECORD {
  CUpti_ActivityKind kind;
  uint8_t cacheConfig;
  uint8_t sharedMemoryConfig;
  uint16_t registersPerThread;
  int32_t partitionedGlobalCacheRequested;
  int32_t partitionedGlobalCacheExecuted;
  uint64_t start;
  uint64_t end;
  uint64_t completed;
  uint32_t deviceId;
  uint32_t contextId;
  uint32_t streamId;
  int32_t gridX;
  int32_t gridY;
  int32_t gridZ;
  int32_t blockX;
  int32_t blockY;
  int32_t blockZ;
  int32_t staticSharedMemory;
  int32_t dynamicSharedMemory;
  uint32_t localMemoryPerThread;
  uint32_t localMemoryTotal;
  uint32_t correlationId;
  int64_t gridId;
  const char *name;
  void *reserved0;
  uint64_t queued;
  uint64_t submitted;
  uint8_t launchType;
  uint8_t isSharedMemoryCarveoutRequested;
  uint8_t sharedMemoryCarveoutRequested;
  uint8_t padding;
  uint32_t sharedMemoryExecuted;
  uint64_t graphNodeId;
  int32_t shmemLimitConfig;
  uint32_t graphId;
  void *pAccessPolicyWindow;
  uint32_t channelID;
  int32_t channelType;
  uint32_t clusterX;
  uint32_t clusterY;
  uint32_t clusterZ;
  uint32_t clusterSchedulingPolicy;
  uint64_t localMemoryTotal_v2;
  uint32_t maxPotentialClusterSize;
  uint32_t maxActiveClusters;
  uint8_t isDeviceLaunched;
  uint8_t padding3[7];
} CUpti_ActivityKernel10;

typedef struct ZLUDA_CUPTI_RECORD {
  CUpti_ActivityKind kind;
  CUpti_CallbackId cbid;
  uint64_t start;
  uint64_t end;
  uint32_t processId;
  uint32_t threadId;
  uint32_t correlationId;
  uint32_t returnValue;
} CUpti_ActivityAPI;

typedef struct ZLUDA_CUPTI_RECORD {
  CUpti_ActivityKind kind;
  CUpti_ExternalCorrelationKind externalKind;
  uint64_t externalId;
  uint32_t correlationId;
  uint32_t reserved;
} CUpti_ActivityExternalCorrelation;

#define CUPTI_API_VERSION 130001

#ifdef __cplusplus
}
#endif

#endif /* ZLUDA_CUPTI_ABI_H */
