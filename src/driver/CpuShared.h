//===- CpuShared.h - memory and events the CPU device shares ---------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file On the CPU device, memory another process can map is a memfd:
/// cuMemCreate makes one per physical allocation, cuIpcGetMemHandle moves an
/// allocation's pages into one (in place: the address stays), and an
/// interprocess event keeps its counters in a page of one. Another process
/// of the same user opens the descriptor through /proc/<pid>/fd/<fd>; the
/// memfd's name carries a random id that the opener checks, so a handle
/// whose process has gone (or whose descriptor was reused) is refused.
#ifndef ZLUDA_DRIVER_CPUSHARED_H
#define ZLUDA_DRIVER_CPUSHARED_H

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace zluda::driver::shared {

/// What a CUipcMemHandle / CUipcEventHandle holds on the CPU device.
struct Handle {
  char Magic[8];     ///< "ZLUDAIPC"
  uint32_t Kind;     ///< 1 memory, 2 event
  int32_t Pid;       ///< the exporting process
  int32_t Fd;        ///< its descriptor of the memfd
  uint32_t Reserved;
  uint64_t Id;       ///< the random id in the memfd's name
  uint64_t Size;     ///< bytes to map
  uint8_t Pad[24];
};
static_assert(sizeof(Handle) == 64, "a CUDA IPC handle is 64 bytes");
enum : uint32_t { MemoryHandle = 1, EventHandle = 2 };

/// A new memfd of \p Size bytes named zluda-<Tag>-<Id> (Id random); -1 with
/// errno when the system refuses.
int create(const char *Tag, size_t Size, uint64_t &Id);
/// A handle for descriptor \p Fd (made by create) of this process.
Handle makeHandle(uint32_t Kind, int Fd, uint64_t Id, size_t Size);
/// Whether \p H is a well-formed handle of \p Kind.
bool valid(const Handle &H, uint32_t Kind);
/// A descriptor of this process for the memfd \p H names, opened read-write;
/// -1 when the process or its memfd is gone or is not the one named.
int open(const Handle &H);
/// Size of the file behind \p Fd; 0 when unknown.
size_t fileSize(int Fd);

/// An interprocess event's state, in a page of a memfd both processes map:
/// a record takes the next sequence number; the stream that reaches the
/// record raises Completed to it.
struct EventState {
  std::atomic<uint64_t> Recorded{0};
  std::atomic<uint64_t> Completed{0};
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "event counters are shared between processes");

} // namespace zluda::driver::shared

#endif // ZLUDA_DRIVER_CPUSHARED_H
