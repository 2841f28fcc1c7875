//===- Streams.cpp - CUDA streams of the CPU device -------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file See Streams.h. One mutex guards every queue's list and the runner
/// pool; each queue's completed count is also an atomic, so that waits and
/// queries spin on it without the lock. A runner that finds its queue empty
/// spins a little before it gives the queue up. A thread that waits for a
/// queue runs its ready operations itself when no one else is running one
/// (one operation at a time per queue, whoever runs it), so a launch
/// followed at once by a synchronize costs no thread hand-off.
#include "cpu/Streams.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <sched.h>
#include <thread>

namespace zluda::cpu {

namespace {

struct Op {
  std::function<void()> Fn;
  std::vector<StreamPoint> After;
  uint64_t Seq = 0;
};

struct Runner;

} // namespace

class StreamQueue : public std::enable_shared_from_this<StreamQueue> {
public:
  bool Blocking = true;
  bool Legacy = false;
  int Priority = 0;
  std::deque<Op> Ops;                 ///< not yet started (guarded by State::Mu)
  uint64_t Submitted = 0;             ///< guarded by State::Mu
  std::atomic<uint64_t> Posted{0};    ///< Submitted, for runners spinning without the lock
  std::atomic<uint64_t> Completed{0}; ///< operations finished
  Runner *Served = nullptr;           ///< the runner serving it, if any
  std::atomic<bool> Busy{false};      ///< an operation is running (written under State::Mu)
};

namespace {

struct Runner {
  std::condition_variable Cv;
  StreamQueue *Q = nullptr; ///< assigned queue (guarded by State::Mu)
};

thread_local bool OnRunner = false;

struct State {
  std::mutex Mu;
  std::condition_variable Progress; ///< some operation completed
  std::vector<std::shared_ptr<StreamQueue>> Queues; ///< every live queue
  std::vector<Runner *> Idle;
  StreamQueue *Legacy = nullptr;
  State() {
    auto L = std::make_shared<StreamQueue>();
    L->Legacy = true;
    Legacy = L.get();
    Queues.push_back(std::move(L));
  }
};

State &state() {
  static State *S = new State; // never destroyed: runners may be mid-operation at exit
  return *S;
}

bool reached(const StreamPoint &P) { return !P.Q || P.Q->Completed.load(std::memory_order_acquire) >= P.Seq; }

/// Spin for up to \p Us microseconds until \p Ready; false if it never was.
template <typename F> bool spinFor(unsigned Us, F Ready) {
  auto End = std::chrono::steady_clock::now() + std::chrono::microseconds(Us);
  unsigned I = 0;
  while (!Ready()) {
    if ((++I & 63) == 0) {
      if (std::chrono::steady_clock::now() > End)
        return false;
      sched_yield();
    }
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
  }
  return true;
}

void runnerLoop(Runner *R, StreamQueue *First);

/// Gives \p Q a runner (State::Mu held).
void assign(State &S, StreamQueue *Q) {
  if (!S.Idle.empty()) {
    Runner *R = S.Idle.back();
    S.Idle.pop_back();
    R->Q = Q;
    Q->Served = R;
    R->Cv.notify_one();
    return;
  }
  auto *R = new Runner; // runners live as long as the process
  R->Q = Q;
  Q->Served = R;
  std::thread([R, Q] { runnerLoop(R, Q); }).detach();
}

/// Runs \p Q's first operation on the calling thread (State::Mu held by \p G
/// on entry and on return; released while the operation runs).
void runFront(State &S, StreamQueue *Q, std::unique_lock<std::mutex> &G) {
  Op O = std::move(Q->Ops.front());
  Q->Ops.pop_front();
  Q->Busy = true;
  G.unlock();
  for (const StreamPoint &P : O.After)
    if (!reached(P) && !spinFor(20, [&] { return reached(P); })) {
      std::unique_lock<std::mutex> W(S.Mu);
      S.Progress.wait(W, [&] { return reached(P); });
    }
  bool WasRunner = OnRunner;
  OnRunner = true;
  O.Fn();
  OnRunner = WasRunner;
  O.Fn = nullptr; // what it captured goes before completion is seen
  Q->Completed.store(O.Seq, std::memory_order_release);
  G.lock();
  Q->Busy = false;
  S.Progress.notify_all();
}

void runnerLoop(Runner *R, StreamQueue *Q) {
  OnRunner = true;
  State &S = state();
  std::unique_lock<std::mutex> G(S.Mu);
  while (true) {
    while (Q && (!Q->Ops.empty() || Q->Busy)) {
      if (Q->Busy) {
        // A thread waiting for this queue runs an operation itself (Streams::wait).
        G.unlock();
        if (!spinFor(50, [&] { return !Q->Busy.load(std::memory_order_acquire); })) {
          std::unique_lock<std::mutex> W(S.Mu);
          S.Progress.wait(W, [&] { return !Q->Busy.load(); });
        }
        G.lock();
        continue;
      }
      runFront(S, Q, G);
      if (Q->Ops.empty()) {
        // More work is often on its way (launch, then copy, then sync).
        uint64_t Seen = Q->Posted.load(std::memory_order_acquire);
        G.unlock();
        spinFor(50, [&] { return Q->Posted.load(std::memory_order_acquire) != Seen; });
        G.lock();
      }
    }
    if (Q) {
      Q->Served = nullptr;
      R->Q = Q = nullptr;
      S.Idle.push_back(R);
      S.Progress.notify_all(); // a destroy may wait for the queue to be let go
    }
    R->Cv.wait(G, [&] { return R->Q != nullptr; });
    Q = R->Q;
  }
}

} // namespace

Streams &Streams::get() {
  static Streams S;
  return S;
}

StreamQueue *Streams::legacy() { return state().Legacy; }

StreamQueue *Streams::create(bool Blocking, int Priority) {
  auto Q = std::make_shared<StreamQueue>();
  Q->Blocking = Blocking;
  Q->Priority = Priority;
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  S.Queues.push_back(Q);
  return Q.get();
}

void Streams::destroy(StreamQueue *Q) {
  if (!Q || Q->Legacy)
    return;
  State &S = state();
  std::unique_lock<std::mutex> G(S.Mu);
  uint64_t Last = Q->Submitted;
  S.Progress.wait(G, [&] { return Q->Completed.load() >= Last && !Q->Served; });
  std::erase_if(S.Queues, [&](const std::shared_ptr<StreamQueue> &X) { return X.get() == Q; });
}

StreamPoint Streams::enqueue(StreamQueue *Q, std::function<void()> Fn, std::vector<StreamPoint> After) {
  if (!Q)
    Q = legacy();
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  // CUDA's legacy default stream: it waits for the blocking streams, and
  // they wait for it.
  auto pending = [](StreamQueue *X) { return X->Submitted > X->Completed.load(std::memory_order_acquire); };
  if (Q->Legacy) {
    for (const std::shared_ptr<StreamQueue> &X : S.Queues)
      if (X.get() != Q && X->Blocking && pending(X.get()))
        After.push_back({X, X->Submitted});
  } else if (Q->Blocking && pending(S.Legacy)) {
    After.push_back({S.Legacy->shared_from_this(), S.Legacy->Submitted});
  }
  Op O;
  O.Fn = std::move(Fn);
  O.After = std::move(After);
  O.Seq = ++Q->Submitted;
  Q->Posted.store(O.Seq, std::memory_order_release);
  StreamPoint P{Q->shared_from_this(), O.Seq};
  Q->Ops.push_back(std::move(O));
  if (!Q->Served)
    assign(S, Q);
  return P;
}

StreamPoint Streams::tail(StreamQueue *Q) {
  if (!Q)
    Q = legacy();
  return {Q->shared_from_this(), Q->Posted.load(std::memory_order_acquire)};
}

bool Streams::done(StreamPoint P) { return reached(P); }

void Streams::wait(StreamPoint P, WaitMode M) {
  if (reached(P))
    return;
  {
    // The waiting thread runs the queue's ready operations itself while no
    // one else runs one: a launch followed by a synchronize costs no thread
    // hand-off, even on a machine whose cores are all busy.
    State &S = state();
    std::unique_lock<std::mutex> G(S.Mu);
    StreamQueue *Q = P.Q.get();
    while (!reached(P) && !Q->Busy && !Q->Ops.empty() &&
           std::all_of(Q->Ops.front().After.begin(), Q->Ops.front().After.end(), reached))
      runFront(S, Q, G);
  }
  if (reached(P))
    return;
  switch (M) {
  case WaitMode::Spin:
    while (!reached(P))
#if defined(__x86_64__)
      __builtin_ia32_pause();
#else
      ;
#endif
    return;
  case WaitMode::Yield:
    while (!reached(P))
      sched_yield();
    return;
  case WaitMode::Auto:
    if (spinFor(100, [&] { return reached(P); }))
      return;
    break;
  case WaitMode::Block:
    break;
  }
  State &S = state();
  std::unique_lock<std::mutex> G(S.Mu);
  S.Progress.wait(G, [&] { return reached(P); });
}

void Streams::waitAll(WaitMode M) {
  std::vector<StreamPoint> Points;
  {
    State &S = state();
    std::lock_guard<std::mutex> G(S.Mu);
    for (const std::shared_ptr<StreamQueue> &Q : S.Queues)
      Points.push_back({Q, Q->Submitted});
  }
  for (const StreamPoint &P : Points)
    wait(P, M);
}

bool Streams::onRunner() { return OnRunner; }

} // namespace zluda::cpu
