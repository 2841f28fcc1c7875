//===- Activity.cpp - reports of kernels, copies and memsets for CUPTI ----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file While libcupti has installed a sink (zluda/activity.h), each launch,
/// copy and memset is bracketed by two host functions on its stream: the
/// first stamps the device's start, the second its end and reports the
/// operation. They run in stream order on either backend, so the times are
/// those of the stream's work (on the CPU device exactly; through HIP, as
/// host functions see it). Without a sink, one atomic load per operation.
#include "driver/Internal.h"
#include "zluda/activity.h"

#include <atomic>
#include <mutex>
#include <set>
#include <string>

namespace zluda::driver::activity {
namespace {

struct Sink {
  zluda_activity_sink Fn = nullptr;
  zluda_activity_clock Clock = nullptr;
  uint32_t Ops = 0;
};
std::atomic<const Sink *> Current{nullptr};
std::atomic<uint32_t> NextCorrelation{1};

/// Kernel names outlive their modules in records a profiler reads late.
const char *intern(const std::string &Name) {
  static std::mutex Mu;
  static auto *Names = new std::set<std::string>; // never freed: records may be read during exit
  std::lock_guard<std::mutex> G(Mu);
  return Names->insert(Name).first->c_str();
}

void stampStart(void *P) {
  Op *A = static_cast<Op *>(P);
  A->R.start = A->Clock();
}
void stampEnd(void *P) {
  Op *A = static_cast<Op *>(P);
  A->R.end = A->Clock();
  if (A->R.result == CUDA_SUCCESS)
    A->Fn(ZLUDA_ACTIVITY_COMPLETED, &A->R);
  delete A;
}
} // namespace

Op *begin(uint32_t Kind, CUstream S) {
  const Sink *K = Current.load(std::memory_order_acquire);
  if (!K || !(K->Ops & (1u << Kind)) || isCapturing(S))
    return nullptr;
  Context *C = currentContext();
  auto *A = new Op;
  A->Fn = K->Fn;
  A->Clock = K->Clock;
  A->S = S;
  A->R.op = Kind;
  A->R.correlation = NextCorrelation.fetch_add(1, std::memory_order_relaxed);
  A->R.api_start = K->Clock();
  A->R.stream = reinterpret_cast<uintptr_t>(S);
  A->R.context = reinterpret_cast<uintptr_t>(C);
  A->R.device = C ? static_cast<uint32_t>(C->Device) : 0;
  if (backend().hostFunc(streamOf(S), stampStart, A) != CUDA_SUCCESS) {
    delete A;
    return nullptr;
  }
  return A;
}

void kernel(Op *A, const std::string &Name, const ptx::KernelInfo &K, Dim3 Grid, Dim3 Block,
            Dim3 Cluster, unsigned Shared, bool Cooperative) {
  zluda_activity &R = A->R;
  R.name = intern(Name);
  R.grid[0] = Grid.X, R.grid[1] = Grid.Y, R.grid[2] = Grid.Z;
  R.block[0] = Block.X, R.block[1] = Block.Y, R.block[2] = Block.Z;
  R.cluster[0] = Cluster.X, R.cluster[1] = Cluster.Y, R.cluster[2] = Cluster.Z;
  R.static_shared = K.StaticSharedBytes;
  R.dynamic_shared = Shared;
  R.local_per_thread = K.LocalBytes;
  R.registers = K.Registers;
  R.cooperative = Cooperative;
}

void copy(Op *A, uint64_t Bytes, bool Async, uint8_t SrcMem, uint8_t DstMem) {
  A->R.bytes = Bytes;
  A->R.async = Async;
  A->R.src_mem = SrcMem;
  A->R.dst_mem = DstMem;
}

uint8_t memoryKind(const void *P) {
  const Allocation *A = findAllocation(reinterpret_cast<uintptr_t>(P));
  if (!A)
    return ZLUDA_MEM_PAGEABLE;
  if (A->Managed)
    return ZLUDA_MEM_MANAGED;
  return A->Type == CU_MEMORYTYPE_DEVICE ? ZLUDA_MEM_DEVICE : ZLUDA_MEM_PINNED;
}

void end(Op *A, CUresult Result) {
  A->R.api_end = A->Clock();
  A->R.result = Result;
  // Issued on this thread (CUPTI's external correlation reads the caller's stack).
  A->Fn(ZLUDA_ACTIVITY_ISSUED, &A->R);
  if (backend().hostFunc(streamOf(A->S), stampEnd, A) != CUDA_SUCCESS) {
    A->R.start = A->R.start ? A->R.start : A->R.api_start;
    stampEnd(A);
  }
}

} // namespace zluda::driver::activity

extern "C" __attribute__((visibility("default"))) void zludaActivitySubscribe(zluda_activity_sink Fn,
                                                                              zluda_activity_clock Clock,
                                                                              uint32_t Ops) {
  using namespace zluda::driver::activity;
  // A sink, once published, is never freed: a report may be on its way through it.
  const Sink *New = Fn && Clock && Ops ? new Sink{Fn, Clock, Ops} : nullptr;
  Current.store(New, std::memory_order_release);
}
