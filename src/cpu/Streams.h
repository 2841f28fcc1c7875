//===- Streams.h - CUDA streams of the CPU device ---------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Each stream is an ordered queue of operations (kernel launches,
/// copies, fills, host functions, event records, waits). Enqueueing returns
/// at once; a queue with work is served by one runner thread at a time,
/// taken from a pool that grows so that every queue with work has one (a
/// kernel spinning on a flag that another stream's kernel or the host sets
/// never starves the other). Operations of one queue run in order; across
/// queues they run concurrently, except for CUDA's rules:
///  - the legacy default stream waits for all earlier work of the blocking
///    streams, and blocking streams wait for its earlier work
///    (CU_STREAM_NON_BLOCKING streams take part in neither);
///  - an operation may also wait for points of other queues (cuStreamWaitEvent).
/// Dependencies only ever name work enqueued earlier, so they cannot form a
/// cycle. Waits (synchronize, query) follow the context's scheduling flag.
#ifndef ZLUDA_CPU_STREAMS_H
#define ZLUDA_CPU_STREAMS_H

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace zluda::cpu {

class StreamQueue;

/// A point in a queue: done once its first \p Seq operations have run. It
/// keeps the queue's record alive (an event may outlive its stream).
struct StreamPoint {
  std::shared_ptr<StreamQueue> Q;
  uint64_t Seq = 0;
};

/// How a host thread waits for the device (CU_CTX_SCHED_*).
enum class WaitMode { Auto, Spin, Yield, Block };

class Streams {
public:
  static Streams &get();

  /// The legacy default stream.
  StreamQueue *legacy();
  /// \p Blocking: takes part in the legacy stream's synchronization.
  StreamQueue *create(bool Blocking, int Priority);
  /// Waits for the queue's work, then frees it.
  void destroy(StreamQueue *Q);

  /// Runs \p Fn after the queue's earlier work, the legacy-stream rules and
  /// \p After; returns the point it completes. \p Fn must not throw.
  StreamPoint enqueue(StreamQueue *Q, std::function<void()> Fn, std::vector<StreamPoint> After = {});
  /// The point after everything enqueued on \p Q so far.
  StreamPoint tail(StreamQueue *Q);
  bool done(StreamPoint P);
  void wait(StreamPoint P, WaitMode M);
  /// Waits for everything enqueued on any queue so far.
  void waitAll(WaitMode M);
  /// Whether the calling thread is one of the runners (a host function or
  /// callback runs there; it must never wait for its own queue).
  static bool onRunner();

private:
  Streams() = default;
};

} // namespace zluda::cpu

#endif // ZLUDA_CPU_STREAMS_H
