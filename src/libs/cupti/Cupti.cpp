//===- Cupti.cpp - our CUPTI: activity records of our driver's work -------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file libcupti.so.13's activity API over the driver's reports
/// (zluda/activity.h): kernel (`KERNEL`, `CONCURRENT_KERNEL`), copy (`MEMCPY`)
/// and memset (`MEMSET`) records with the device's start and end, API records
/// of the calls that issued them (`RUNTIME`, `DRIVER`: a kernel is issued by
/// cudaLaunchKernel/cuLaunchKernel, a copy by cudaMemcpy[Async]/cuMemcpy[Async],
/// a memset by cudaMemset[Async]/cuMemsetD8[Async]: the names a profiler shows)
/// and `EXTERNAL_CORRELATION` records from the calling thread's pushed ids, in
/// the buffers the client's callbacks give, in CUDA 13's record layouts
/// (zluda/cupti_abi.h). Timestamps are CLOCK_REALTIME nanoseconds, as CUPTI's
/// on Linux, or the client's (cuptiActivityRegisterTimestampCallback). This is
/// what torch.profiler (Kineto) reads. The callback API (cuptiSubscribe), event,
/// metric, PC sampling and profiler APIs return CUPTI_ERROR_NOT_SUPPORTED.
#include "libs/common/LibSupport.h"
#include "common/Log.h"
#include "zluda/activity.h"
#include "zluda/cuda_abi.h"
#include "zluda/cupti_abi.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#define CUPTI_API extern "C" __attribute__((visibility("default")))

extern "C" {
CUresult cuCtxGetCurrent(CUcontext *);
CUresult cuCtxPushCurrent_v2(CUcontext);
CUresult cuCtxPopCurrent_v2(CUcontext *);
CUresult cuCtxGetDevice(CUdevice *);
CUresult cuStreamGetCtx(CUstream, CUcontext *);
}

namespace {

using zluda::libs::notSupported;

// --- what the client enabled ------------------------------------------------------------

/// Kinds that produce records here; the others are refused (CUPTI_ERROR_NOT_SUPPORTED).
bool supported(CUpti_ActivityKind K) {
  switch (K) {
  case CUPTI_ACTIVITY_KIND_MEMCPY:
  case CUPTI_ACTIVITY_KIND_MEMSET:
  case CUPTI_ACTIVITY_KIND_KERNEL:
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
  case CUPTI_ACTIVITY_KIND_DRIVER:
  case CUPTI_ACTIVITY_KIND_RUNTIME:
  case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
    return true;
  default:
    return false;
  }
}

std::atomic<uint64_t> Enabled{0}; ///< bit per CUpti_ActivityKind (all supported ones are below 64)
bool on(CUpti_ActivityKind K) { return Enabled.load(std::memory_order_relaxed) >> K & 1; }

std::atomic<CUpti_TimestampCallbackFunc> UserClock{nullptr};
std::atomic<int> ThreadIdType{CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT};
std::atomic<bool> LatencyTimestamps{false};

uint64_t now() {
  if (CUpti_TimestampCallbackFunc F = UserClock.load(std::memory_order_relaxed))
    return F();
  timespec T;
  clock_gettime(CLOCK_REALTIME, &T);
  return uint64_t(T.tv_sec) * 1000000000u + uint64_t(T.tv_nsec);
}

// --- ids: CUPTI numbers contexts and streams from small integers --------------------------

std::mutex IdMu;
uint32_t idOf(std::map<uint64_t, uint32_t> &Ids, uint64_t Key) {
  std::lock_guard<std::mutex> G(IdMu);
  auto [It, New] = Ids.try_emplace(Key, static_cast<uint32_t>(Ids.size() + 1));
  return It->second;
}
std::map<uint64_t, uint32_t> &contextIds() {
  static auto *M = new std::map<uint64_t, uint32_t>; // never freed: records may come during exit
  return *M;
}
std::map<uint64_t, uint32_t> &streamIds() {
  static auto *M = new std::map<uint64_t, uint32_t>;
  return *M;
}
/// The stream's key: its handle, with the default stream (0 or CU_STREAM_LEGACY) one key per context.
uint64_t streamKey(uint64_t Ctx, uint64_t Stream) {
  if (Stream == 0 || Stream == reinterpret_cast<uintptr_t>(CU_STREAM_LEGACY))
    return Ctx ^ 0x8000000000000000ull;
  return Stream;
}

// --- buffers ------------------------------------------------------------------------------

struct Buffers {
  std::mutex Mu; ///< held while writing a record and while asking the client for a buffer
  CUpti_BuffersCallbackRequestFunc Request = nullptr;
  CUpti_BuffersCallbackCompleteFunc Complete = nullptr;
  uint8_t *Buf = nullptr;
  size_t Size = 0, Used = 0;
  size_t Dropped = 0;
};
Buffers &buffers() {
  static auto *B = new Buffers; // never freed: the driver may report during exit
  return *B;
}

void complete(CUpti_BuffersCallbackCompleteFunc Fn, uint8_t *Buf, size_t Size, size_t Valid) {
  if (Fn && Buf)
    Fn(nullptr, 0, Buf, Size, Valid);
}

/// Copies \p Rec (\p Bytes, a multiple of 8) into the current buffer, asking
/// the client for a new one when it is full (the full one is completed).
void write(const void *Rec, size_t Bytes) {
  Buffers &B = buffers();
  uint8_t *Full = nullptr;
  size_t FullSize = 0, FullUsed = 0;
  CUpti_BuffersCallbackCompleteFunc Done = nullptr;
  {
    std::lock_guard<std::mutex> G(B.Mu);
    if (B.Buf && B.Size - B.Used < Bytes) {
      Full = B.Buf, FullSize = B.Size, FullUsed = B.Used, Done = B.Complete;
      B.Buf = nullptr;
    }
    if (!B.Buf && B.Request) {
      uint8_t *N = nullptr;
      size_t Size = 0, MaxRecords = 0;
      B.Request(&N, &Size, &MaxRecords);
      // A buffer must be 8-byte aligned (CUPTI's rule); a misaligned one is used from its first aligned byte.
      size_t Skip = N ? (8 - reinterpret_cast<uintptr_t>(N) % 8) % 8 : 0;
      if (N && Size >= Skip + Bytes) {
        B.Buf = N, B.Size = Size, B.Used = Skip;
      } else if (N) {
        ZLUDA_LOG_WARN("CUPTI: the client's activity buffer ({} bytes) holds no record", Size);
      }
    }
    if (B.Buf) {
      std::memcpy(B.Buf + B.Used, Rec, Bytes);
      B.Used += Bytes;
    } else {
      ++B.Dropped;
    }
  }
  complete(Done, Full, FullSize, FullUsed);
}

template <typename T> void put(const T &Rec) {
  static_assert(sizeof(T) % 8 == 0, "records are 8-byte aligned");
  write(&Rec, sizeof(T));
}

size_t recordSize(CUpti_ActivityKind K) {
  switch (K) {
  case CUPTI_ACTIVITY_KIND_MEMCPY:
    return sizeof(CUpti_ActivityMemcpy6);
  case CUPTI_ACTIVITY_KIND_MEMSET:
    return sizeof(CUpti_ActivityMemset4);
  case CUPTI_ACTIVITY_KIND_KERNEL:
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    return sizeof(CUpti_ActivityKernel10);
  case CUPTI_ACTIVITY_KIND_DRIVER:
  case CUPTI_ACTIVITY_KIND_RUNTIME:
    return sizeof(CUpti_ActivityAPI);
  case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
    return sizeof(CUpti_ActivityExternalCorrelation);
  default:
    return 0;
  }
}

// --- external correlation: a stack per kind and thread ------------------------------------

thread_local std::vector<uint64_t> External[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE];

// --- the driver's reports -----------------------------------------------------------------

uint32_t threadId() {
  if (ThreadIdType.load(std::memory_order_relaxed) == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)
    return static_cast<uint32_t>(syscall(SYS_gettid));
  return static_cast<uint32_t>(pthread_self()); // CUPTI's default: the pthread id, truncated
}

struct ApiFilter {
  std::mutex Mu;
  std::set<CUpti_CallbackId> OffRuntime, OffDriver;
};
ApiFilter &filter() {
  static auto *F = new ApiFilter;
  return *F;
}

void issued(const zluda_activity &A) {
  if (on(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION))
    for (int K = CUPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN; K < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE; ++K)
      if (!External[K].empty()) {
        CUpti_ActivityExternalCorrelation R{};
        R.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
        R.externalKind = static_cast<CUpti_ExternalCorrelationKind>(K);
        R.externalId = External[K].back();
        R.correlationId = A.correlation;
        put(R);
      }
  CUpti_CallbackId Runtime = 0, Driver = 0;
  switch (A.op) {
  case ZLUDA_ACTIVITY_KERNEL:
    Runtime = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, Driver = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
    break;
  case ZLUDA_ACTIVITY_MEMCPY:
    Runtime = A.async ? CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020 : CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020;
    Driver = A.async ? CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync : CUPTI_DRIVER_TRACE_CBID_cuMemcpy;
    break;
  default:
    Runtime = A.async ? CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020 : CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020;
    Driver = A.async ? CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async : CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2;
    break;
  }
  for (CUpti_ActivityKind K : {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER}) {
    if (!on(K))
      continue;
    CUpti_CallbackId Id = K == CUPTI_ACTIVITY_KIND_RUNTIME ? Runtime : Driver;
    {
      ApiFilter &F = filter();
      std::lock_guard<std::mutex> G(F.Mu);
      if ((K == CUPTI_ACTIVITY_KIND_RUNTIME ? F.OffRuntime : F.OffDriver).count(Id))
        continue;
    }
    CUpti_ActivityAPI R{};
    R.kind = K;
    R.cbid = Id;
    R.start = A.api_start;
    R.end = A.api_end;
    R.processId = static_cast<uint32_t>(getpid());
    R.threadId = threadId();
    R.correlationId = A.correlation;
    R.returnValue = static_cast<uint32_t>(A.result);
    put(R);
  }
}

/// CUPTI's direction of a copy between memories of kinds \p Src and \p Dst (zluda_activity_memory).
uint8_t copyKind(uint8_t Src, uint8_t Dst) {
  auto side = [](uint8_t M) { // 0 host, 1 device, 2 array
    return M == ZLUDA_MEM_ARRAY ? 2 : M == ZLUDA_MEM_DEVICE || M == ZLUDA_MEM_MANAGED ? 1 : 0;
  };
  static const uint8_t Kinds[3][3] = {
      {CUPTI_ACTIVITY_MEMCPY_KIND_HTOH, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMCPY_KIND_HTOA},
      {CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, CUPTI_ACTIVITY_MEMCPY_KIND_DTOA},
      {CUPTI_ACTIVITY_MEMCPY_KIND_ATOH, CUPTI_ACTIVITY_MEMCPY_KIND_ATOD, CUPTI_ACTIVITY_MEMCPY_KIND_ATOA}};
  return Kinds[side(Src)][side(Dst)];
}

/// The fields every device record has, from \p A.
template <typename Record> void stamp(Record &R, const zluda_activity &A, uint32_t Ctx, uint32_t Stream) {
  R.start = A.start;
  R.end = A.end;
  R.deviceId = A.device;
  R.contextId = Ctx;
  R.streamId = Stream;
  R.correlationId = A.correlation;
}

void completed(const zluda_activity &A) {
  uint32_t Ctx = idOf(contextIds(), A.context);
  uint32_t Stream = idOf(streamIds(), streamKey(A.context, A.stream));
  if (A.op == ZLUDA_ACTIVITY_KERNEL) {
    for (CUpti_ActivityKind K : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_KERNEL}) {
      if (!on(K))
        continue;
      static std::atomic<int64_t> GridIds{1};
      CUpti_ActivityKernel10 R{};
      R.kind = K;
      R.registersPerThread = static_cast<uint16_t>(A.registers);
      stamp(R, A, Ctx, Stream);
      R.completed = A.end;
      R.gridX = int32_t(A.grid[0]), R.gridY = int32_t(A.grid[1]), R.gridZ = int32_t(A.grid[2]);
      R.blockX = int32_t(A.block[0]), R.blockY = int32_t(A.block[1]), R.blockZ = int32_t(A.block[2]);
      R.staticSharedMemory = int32_t(A.static_shared);
      R.dynamicSharedMemory = int32_t(A.dynamic_shared);
      R.localMemoryPerThread = A.local_per_thread;
      uint64_t Threads = uint64_t(A.grid[0]) * A.grid[1] * A.grid[2] * A.block[0] * A.block[1] * A.block[2];
      R.localMemoryTotal_v2 = Threads * A.local_per_thread;
      R.localMemoryTotal = static_cast<uint32_t>(std::min<uint64_t>(R.localMemoryTotal_v2, UINT32_MAX));
      R.gridId = GridIds.fetch_add(1, std::memory_order_relaxed);
      R.name = A.name;
      if (LatencyTimestamps.load(std::memory_order_relaxed)) {
        R.queued = A.api_end;
        R.submitted = A.start;
      }
      R.launchType = A.cooperative ? CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE
                                   : CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
      R.sharedMemoryExecuted = A.static_shared + A.dynamic_shared;
      R.clusterX = A.cluster[0], R.clusterY = A.cluster[1], R.clusterZ = A.cluster[2];
      put(R);
      break; // one record per kernel: CONCURRENT_KERNEL's when both are enabled
    }
  } else if (A.op == ZLUDA_ACTIVITY_MEMCPY && on(CUPTI_ACTIVITY_KIND_MEMCPY)) {
    CUpti_ActivityMemcpy6 R{};
    R.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    R.copyKind = copyKind(A.src_mem, A.dst_mem);
    R.srcKind = A.src_mem;
    R.dstKind = A.dst_mem;
    R.flags = A.async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : 0;
    R.bytes = A.bytes;
    stamp(R, A, Ctx, Stream);
    R.copyCount = 1;
    put(R);
  } else if (A.op == ZLUDA_ACTIVITY_MEMSET && on(CUPTI_ACTIVITY_KIND_MEMSET)) {
    CUpti_ActivityMemset4 R{};
    R.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    R.value = A.value;
    R.bytes = A.bytes;
    stamp(R, A, Ctx, Stream);
    R.flags = A.async ? CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC : 0;
    R.memoryKind = A.dst_mem;
    put(R);
  }
}

void sink(uint32_t Phase, const zluda_activity *A) {
  if (Phase == ZLUDA_ACTIVITY_ISSUED)
    issued(*A);
  else
    completed(*A);
}

/// Tells the driver which operations to report: those some enabled kind records.
void resubscribe() {
  uint32_t Ops = 0;
  if (on(CUPTI_ACTIVITY_KIND_KERNEL) || on(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL))
    Ops |= 1u << ZLUDA_ACTIVITY_KERNEL;
  if (on(CUPTI_ACTIVITY_KIND_MEMCPY))
    Ops |= 1u << ZLUDA_ACTIVITY_MEMCPY;
  if (on(CUPTI_ACTIVITY_KIND_MEMSET))
    Ops |= 1u << ZLUDA_ACTIVITY_MEMSET;
  // API and correlation records come with the operations' reports.
  if (on(CUPTI_ACTIVITY_KIND_RUNTIME) || on(CUPTI_ACTIVITY_KIND_DRIVER) ||
      on(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION))
    Ops |= 1u << ZLUDA_ACTIVITY_KERNEL | 1u << ZLUDA_ACTIVITY_MEMCPY | 1u << ZLUDA_ACTIVITY_MEMSET;
  zludaActivitySubscribe(Ops ? sink : nullptr, now, Ops);
}

std::atomic<CUptiResult> LastError{CUPTI_SUCCESS};
CUptiResult fail(CUptiResult R) {
  LastError.store(R, std::memory_order_relaxed);
  return R;
}

const char *resultString(CUptiResult R) {
  switch (R) {
  case CUPTI_SUCCESS:
    return "CUPTI_SUCCESS";
  case CUPTI_ERROR_INVALID_PARAMETER:
    return "CUPTI_ERROR_INVALID_PARAMETER";
  case CUPTI_ERROR_INVALID_DEVICE:
    return "CUPTI_ERROR_INVALID_DEVICE";
  case CUPTI_ERROR_INVALID_CONTEXT:
    return "CUPTI_ERROR_INVALID_CONTEXT";
  case CUPTI_ERROR_INVALID_OPERATION:
    return "CUPTI_ERROR_INVALID_OPERATION";
  case CUPTI_ERROR_OUT_OF_MEMORY:
    return "CUPTI_ERROR_OUT_OF_MEMORY";
  case CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT:
    return "CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT";
  case CUPTI_ERROR_API_NOT_IMPLEMENTED:
    return "CUPTI_ERROR_API_NOT_IMPLEMENTED";
  case CUPTI_ERROR_MAX_LIMIT_REACHED:
    return "CUPTI_ERROR_MAX_LIMIT_REACHED";
  case CUPTI_ERROR_NOT_READY:
    return "CUPTI_ERROR_NOT_READY";
  case CUPTI_ERROR_NOT_COMPATIBLE:
    return "CUPTI_ERROR_NOT_COMPATIBLE";
  case CUPTI_ERROR_NOT_INITIALIZED:
    return "CUPTI_ERROR_NOT_INITIALIZED";
  case CUPTI_ERROR_QUEUE_EMPTY:
    return "CUPTI_ERROR_QUEUE_EMPTY";
  case CUPTI_ERROR_INVALID_HANDLE:
    return "CUPTI_ERROR_INVALID_HANDLE";
  case CUPTI_ERROR_INVALID_STREAM:
    return "CUPTI_ERROR_INVALID_STREAM";
  case CUPTI_ERROR_INVALID_KIND:
    return "CUPTI_ERROR_INVALID_KIND";
  case CUPTI_ERROR_NOT_SUPPORTED:
    return "CUPTI_ERROR_NOT_SUPPORTED";
  case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    return "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
  case CUPTI_ERROR_UNKNOWN:
    return "CUPTI_ERROR_UNKNOWN";
  default:
    return nullptr;
  }
}

/// The context a CUPTI call names (null: the current one).
CUptiResult contextOr(CUcontext &C) {
  if (!C && (cuCtxGetCurrent(&C) != CUDA_SUCCESS || !C))
    return CUPTI_ERROR_INVALID_CONTEXT;
  return CUPTI_SUCCESS;
}

} // namespace

// --- the activity API ---------------------------------------------------------------------

CUPTI_API CUptiResult cuptiGetVersion(uint32_t *Version) {
  if (!Version)
    return fail(CUPTI_ERROR_INVALID_PARAMETER);
  *Version = CUPTI_API_VERSION;
  return CUPTI_SUCCESS;
}

CUPTI_API CUptiResult cuptiGetResultString(CUptiResult R, const char **Str) {
  if (!Str)
    return fail(CUPTI_ERROR_INVALID_PARAMETER);
  const char *S = resultString(R);
  if (!S)
    return fail(CUPTI_ERROR_INVALID_PARAMETER);
  *Str = S;
  return CUPTI_SUCCESS;
}

CUPTI_API CUptiResult cuptiGetErrorMessage(CUptiResult R, const char **Str) { return cuptiGetResultString(R, Str); }

CUPTI_API CUptiResult cuptiGetLastError() { return LastError.exchange(CUPTI_SUCCESS, std::memory_order_relaxed); }

CUPTI_API CUptiResult cuptiGetTimestamp(uint64_t *Ts) {
  if (!Ts)
    return fail(CUPTI_ERROR_INVALID_PARAMETER);
  *Ts = now();
  return CUPTI_SUCCESS;
}

CUPTI_API CUptiResult cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc Fn) {
  if (!Fn)
    return fail(CUPTI_ERROR_INVALID_PARAMETER);
  UserClock.store(Fn, std::memory_order_relaxed);
  return CUPTI_SUCCESS;
}

CUPTI_API CUptiResult cuptiActivityEnable(CUpti_ActivityKind Kind) {
  if (!supported(Kind)) {
    if (Kind <= CUPTI_ACTIVITY_KIND_INVALID || Kind > CUPTI_ACTIVITY_KIND_MEM_DECOMPRESS)
      return fail(CUPTI_ERROR_INVALID_KIND);
    ZLUDA_LOG_INFO("CUPTI: activity kind {} is not recorded by ZLUDA", static_cast<int>(Kind));
    return fail(CUPTI_ERROR_NOT_SUPPORTED);
  }
  Enabled.fetch_or(uint64_t(1) << Kind);
  resubscribe();
  return CUPTI_SUCCESS;
}

CUPTI_API CUptiResult cuptiActivityDisable(CUpti_ActivityKind Kind) {
  if (Kind <= CUPTI_ACTIVITY_KIND_INVALID || Kind > CUPTI_ACTIVITY_KIND_MEM_DECOMPRESS)
    return fail(CUPTI_ERROR_INVALID_KIND);
  if (!supported(Kind))
    return fail(CUPTI_ERROR_NOT_SUPPORTED);
  Enabled.fetch_and(~(uint64_t(1) << Kind));
  resubscribe();
  return CUPTI_SUCCESS;
}

CUPTI_API CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc Request,
                                                     CUpti_BuffersCallbackCompleteFunc Complete) {
  if (!Request || !Complete)
    return fail(CUPTI_ERROR_INVALID_PARAMETER);
  Buffers &B = buffers();
  std::lock_guard<std::mutex> G(B.Mu);
  B.Request = Request;
  B.Complete = Complete;
  return CUPTI_SUCCESS;
}

/// Completes the current buffer (its records so far; every record here is
/// complete when written, so forced and unforced flushes are the same).
CUPTI_API CUptiResult cuptiActivityFlushAll(uint32_t) {
  Buffers &B = buffers();
  uint8_t *Buf;
  size_t Size, Used;
  CUpti_BuffersCallbackCompleteFunc Done;
  {
    std::lock_guard<std::mutex> G(B.Mu);
    if (!B.Buf || B.Used == 0)
      return CUPTI_SUCCESS;
    Buf = B.Buf, Size = B.Size, Used = B.Used, Done = B.Complete;
    B.Buf = nullptr;
  }
  complete(Done, Buf, Size, Used);
  return CUPTI_SUCCESS;
}

CUPTI_API CUptiResult cuptiActivityFlush(CUcontext, uint32_t, uint32_t Flag) { return cuptiActivityFlushAll(Flag); }

CUPTI_API CUptiResult cuptiActivityGetNextRecord(uint8_t *Buffer, size_t ValidSize, CUpti_Activity **Record) {
  if (!Buffer || !Record)
    return fail(CUPTI_ERROR_INVALID_PARAMETER);
  size_t Pos;
  if (!*Record) {
    Pos = (8 - reinterpret_cast<uintptr_t>(Buffer) % 8) % 8;
  } else {
    auto *R = reinterpret_cast<uint8_t *>(*Record);
    size_t Size = recordSize((*Record)->kind);
    if (R < Buffer || R >= Buffer + ValidSize || !Size)
      return fail(CUPTI_ERROR_INVALID_KIND);
    Pos = static_cast<size_t>(R - Buffer) + Size;
  }
  if (Pos + sizeof(CUpti_Activity) > ValidSize)
    return CUPTI_ERROR_MAX_LIMIT_REACHED; // the end of the buffer (not an error to remember)
  auto *Next = reinterpret_cast<CUpti_Activity *>(Buffer + Pos);
  size_t Size = recordSize(Next->kind);
  if (!Size || Pos + Size > ValidSize)
    return fail(CUPTI_ERROR_INVALID_KIND);
  *Record = Next;
  return CUPTI_SUCCESS;
}

CUPTI_API CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t *Dropped) {
  if (!Dropped)
    return fail(CUPTI_ERROR_INVALID_PARAMETER);
  Buffers &B = buffers();
  std::lock_guard<std::mutex> G(B.Mu);
  *Dropped = B.Dropped;
  B.Dropped = 0;
  return CUPTI_SUCCESS;
}

CUPTI_API CUptiResult cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind Kind, uint64_t Id) {
  if (Kind <= CUPTI_EXTERNAL_CORRELATION_KIND_INVALID || Kind >= CUPTI_EXTERNAL_CORRELATION_KIND_SIZE)
    return fail(CUPTI_ERROR_INVALID_PARAMETER);
  External[Kind].push_back(Id);
  return CUPTI_SUCCESS;
}

CUPTI_API CUptiResult cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind Kind, uint64_t *LastId) {
  if (Kind <= CUPTI_EXTERNAL_CORRELATION_KIND_INVALID || Kind >= CUPTI_EXTERNAL_CORRELATION_KIND_SIZE)
    return fail(CUPTI_ERROR_INVALID_PARAMETER);
  if (External[Kind].empty())
    return fail(CUPTI_ERROR_QUEUE_EMPTY);
  if (LastId)
    *LastId = External[Kind].back();
  External[Kind].pop_back();
  return CUPTI_SUCCESS;
}

namespace {
/// cuptiActivityGet/SetAttribute's values: device buffer sizes and pools mean
/// nothing here (records are written by the host) and are kept as given.
struct Attributes {
  std::mutex Mu;
  std::map<int, uint64_t> Values{{CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, 8u << 20},
                                 {CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE_CDP, 8u << 20},
                                 {CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT, 250},
                                 {CUPTI_ACTIVITY_ATTR_PROFILING_SEMAPHORE_POOL_SIZE, 65536},
                                 {CUPTI_ACTIVITY_ATTR_PROFILING_SEMAPHORE_POOL_LIMIT, 65536},
                                 {CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, 0},
                                 {CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE, 0},
                                 {CUPTI_ACTIVITY_ATTR_PROFILING_SEMAPHORE_PRE_ALLOCATE_VALUE, 0},
                                 {CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, 0},
                                 {CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, 0},
                                 {CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE_DEVICE_GRAPHS, 8u << 20}};
};
Attributes &attributes() {
  static auto *A = new Attributes;
  return *A;
}
/// The attributes whose value is a uint8_t; the others are size_t.
bool byteAttribute(int A) {
  return A == CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER || A == CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED ||
         A == CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER;
}
} // namespace

namespace {
/// The stored value of \p Attr and its size in bytes, for a caller's buffer of \p *ValueSize bytes.
CUptiResult findAttribute(CUpti_ActivityAttribute Attr, size_t *ValueSize, void *Value, uint64_t *&Slot,
                          size_t &Bytes) {
  if (!ValueSize || !Value)
    return CUPTI_ERROR_INVALID_PARAMETER;
  auto It = attributes().Values.find(Attr);
  if (It == attributes().Values.end())
    return CUPTI_ERROR_INVALID_PARAMETER;
  Bytes = byteAttribute(Attr) ? sizeof(uint8_t) : sizeof(size_t);
  if (*ValueSize < Bytes)
    return CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT;
  Slot = &It->second;
  return CUPTI_SUCCESS;
}
} // namespace

CUPTI_API CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute Attr, size_t *ValueSize, void *Value) {
  std::lock_guard<std::mutex> G(attributes().Mu);
  uint64_t *Slot;
  size_t Bytes;
  if (CUptiResult R = findAttribute(Attr, ValueSize, Value, Slot, Bytes))
    return fail(R);
  *Slot = 0;
  std::memcpy(Slot, Value, Bytes);
  return CUPTI_SUCCESS;
}

CUPTI_API CUptiResult cuptiActivityGetAttribute(CUpti_ActivityAttribute Attr, size_t *ValueSize, void *Value) {
  std::lock_guard<std::mutex> G(attributes().Mu);
  uint64_t *Slot;
  size_t Bytes;
  if (CUptiResult R = findAttribute(Attr, ValueSize, Value, Slot, Bytes))
    return fail(R);
  std::memcpy(Value, Slot, Bytes);
  *ValueSize = Bytes;
  return CUPTI_SUCCESS;
}

CUPTI_API CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId Cbid, uint8_t Enable) {
  ApiFilter &F = filter();
  std::lock_guard<std::mutex> G(F.Mu);
  Enable ? (void)F.OffRuntime.erase(Cbid) : (void)F.OffRuntime.insert(Cbid);
  return CUPTI_SUCCESS;
}

CUPTI_API CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId Cbid, uint8_t Enable) {
  ApiFilter &F = filter();
  std::lock_guard<std::mutex> G(F.Mu);
  Enable ? (void)F.OffDriver.erase(Cbid) : (void)F.OffDriver.insert(Cbid);
  return CUPTI_SUCCESS;
}

CUPTI_API CUptiResult cuptiActivityEnableLatencyTimestamps(uint8_t Enable) {
  LatencyTimestamps.store(Enable != 0, std::memory_order_relaxed);
  return CUPTI_SUCCESS;
}

/// Launch attributes (the kernel record's cache and shared-memory
/// configuration fields) are always filled as far as we know them.
CUPTI_API CUptiResult cuptiActivityEnableLaunchAttributes(uint8_t) { return CUPTI_SUCCESS; }

CUPTI_API CUptiResult cuptiGetThreadIdType(CUpti_ActivityThreadIdType *Type) {
  if (!Type)
    return fail(CUPTI_ERROR_INVALID_PARAMETER);
  *Type = static_cast<CUpti_ActivityThreadIdType>(ThreadIdType.load(std::memory_order_relaxed));
  return CUPTI_SUCCESS;
}

CUPTI_API CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType Type) {
  if (Type != CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT && Type != CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)
    return fail(CUPTI_ERROR_INVALID_PARAMETER);
  ThreadIdType.store(Type, std::memory_order_relaxed);
  return CUPTI_SUCCESS;
}

CUPTI_API CUptiResult cuptiGetContextId(CUcontext Ctx, uint32_t *Id) {
  if (!Id)
    return fail(CUPTI_ERROR_INVALID_PARAMETER);
  if (CUptiResult R = contextOr(Ctx))
    return fail(R);
  *Id = idOf(contextIds(), reinterpret_cast<uintptr_t>(Ctx));
  return CUPTI_SUCCESS;
}

CUPTI_API CUptiResult cuptiGetStreamIdEx(CUcontext Ctx, CUstream Stream, uint8_t PerThreadStream, uint32_t *Id) {
  if (!Id)
    return fail(CUPTI_ERROR_INVALID_PARAMETER);
  if (Stream && !Ctx && cuStreamGetCtx(Stream, &Ctx) != CUDA_SUCCESS)
    return fail(CUPTI_ERROR_INVALID_STREAM);
  if (CUptiResult R = contextOr(Ctx))
    return fail(R);
  // The per-thread default stream is a stream of its own (as the driver reports its work).
  uint64_t S = PerThreadStream && !Stream ? reinterpret_cast<uintptr_t>(CU_STREAM_PER_THREAD)
                                          : reinterpret_cast<uintptr_t>(Stream);
  *Id = idOf(streamIds(), streamKey(reinterpret_cast<uintptr_t>(Ctx), S));
  return CUPTI_SUCCESS;
}

CUPTI_API CUptiResult cuptiGetStreamId(CUcontext Ctx, CUstream Stream, uint32_t *Id) {
  return cuptiGetStreamIdEx(Ctx, Stream, 0, Id);
}

CUPTI_API CUptiResult cuptiGetDeviceId(CUcontext Ctx, uint32_t *Id) {
  if (!Id)
    return fail(CUPTI_ERROR_INVALID_PARAMETER);
  if (CUptiResult R = contextOr(Ctx))
    return fail(R);
  CUdevice D = 0;
  CUcontext Popped = nullptr;
  if (cuCtxPushCurrent_v2(Ctx) != CUDA_SUCCESS)
    return fail(CUPTI_ERROR_INVALID_CONTEXT);
  CUresult R = cuCtxGetDevice(&D);
  cuCtxPopCurrent_v2(&Popped);
  if (R != CUDA_SUCCESS)
    return fail(CUPTI_ERROR_INVALID_CONTEXT);
  *Id = static_cast<uint32_t>(D);
  return CUPTI_SUCCESS;
}

/// Stops every report and completes the current buffer; the library may be used again after.
CUPTI_API CUptiResult cuptiFinalize() {
  Enabled.store(0);
  resubscribe();
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  return CUPTI_SUCCESS;
}

// --- refused with a reason ----------------------------------------------------------------

/// The callback API would call the client around every driver and runtime
/// call; our driver has no such hooks yet. Refused, so clients (Kineto) go on
/// without it.
CUPTI_API CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *Subscriber, CUpti_CallbackFunc, void *) {
  if (!Subscriber)
    return fail(CUPTI_ERROR_INVALID_PARAMETER);
  notSupported("CUPTI", "cuptiSubscribe (the callback API)");
  return fail(CUPTI_ERROR_NOT_SUPPORTED);
}

/// NVTX's injection entry points: 0 tells NVTX that no tool took them.
CUPTI_API int InitializeInjectionNvtx(void *) { return 0; }
CUPTI_API int InitializeInjectionNvtx2(void *) { return 0; }
CUPTI_API int InitializeInjectionNvtxExtension(void *) { return 0; }
