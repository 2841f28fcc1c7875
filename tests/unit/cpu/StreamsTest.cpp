//===- StreamsTest.cpp - the CPU device's stream queues ---------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The ordering rules of cpu/Streams.h, checked with operations that
/// block on gates the test opens: order inside a queue, the legacy default
/// stream against blocking and non-blocking streams, waits on points of
/// other queues, queries, destroy after the work, and a waiting thread that
/// runs a queue's work itself.
#include "cpu/Streams.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

using namespace zluda::cpu;

namespace {

/// Something an operation waits for until the test opens it.
class Gate {
public:
  void open() { P.set_value(); }
  void pass() { F.wait(); }

private:
  std::promise<void> P;
  std::shared_future<void> F{P.get_future().share()};
};

void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(30)); }

TEST(Streams, OperationsOfAQueueRunInOrder) {
  Streams &S = Streams::get();
  StreamQueue *Q = S.create(false, 0);
  std::vector<int> Seen;
  std::mutex Mu;
  for (int I = 0; I < 200; ++I)
    S.enqueue(Q, [&, I] {
      std::lock_guard<std::mutex> G(Mu);
      Seen.push_back(I);
    });
  S.wait(S.tail(Q), WaitMode::Auto);
  ASSERT_EQ(Seen.size(), 200u);
  for (int I = 0; I < 200; ++I)
    EXPECT_EQ(Seen[I], I);
  S.destroy(Q);
}

TEST(Streams, LegacyStreamOrdersBlockingStreamsOnly) {
  Streams &S = Streams::get();
  StreamQueue *Blocking = S.create(true, 0), *NonBlocking = S.create(false, 0);
  Gate G;
  StreamPoint Legacy = S.enqueue(S.legacy(), [&] { G.pass(); });
  std::atomic<bool> RanBlocking{false}, RanNonBlocking{false};
  StreamPoint B = S.enqueue(Blocking, [&] { RanBlocking = true; });
  StreamPoint N = S.enqueue(NonBlocking, [&] { RanNonBlocking = true; });
  S.wait(N, WaitMode::Block); // not held back by the legacy stream
  EXPECT_TRUE(RanNonBlocking);
  settle();
  EXPECT_FALSE(RanBlocking) << "a blocking stream ran before the legacy stream's earlier work";
  EXPECT_FALSE(S.done(B));
  EXPECT_FALSE(S.done(Legacy));
  G.open();
  S.wait(B, WaitMode::Auto);
  EXPECT_TRUE(RanBlocking);
  EXPECT_TRUE(S.done(Legacy));
  // And the other way: the legacy stream waits for a blocking stream.
  Gate H;
  S.enqueue(Blocking, [&] { H.pass(); });
  std::atomic<bool> RanLegacy{false};
  StreamPoint L = S.enqueue(S.legacy(), [&] { RanLegacy = true; });
  settle();
  EXPECT_FALSE(RanLegacy);
  H.open();
  S.wait(L, WaitMode::Yield);
  EXPECT_TRUE(RanLegacy);
  S.destroy(Blocking);
  S.destroy(NonBlocking);
}

TEST(Streams, WaitOnAnotherQueuesPoint) {
  Streams &S = Streams::get();
  StreamQueue *A = S.create(false, 0), *B = S.create(false, 0);
  Gate G;
  StreamPoint InA = S.enqueue(A, [&] { G.pass(); });
  std::atomic<bool> After{false};
  StreamPoint InB = S.enqueue(B, [&] { After = true; }, {InA});
  settle();
  EXPECT_FALSE(After);
  EXPECT_FALSE(S.done(InB));
  G.open();
  S.wait(InB, WaitMode::Spin);
  EXPECT_TRUE(After);
  S.destroy(A);
  S.destroy(B);
}

TEST(Streams, DestroyWaitsForTheWorkAndPointsOutliveTheQueue) {
  Streams &S = Streams::get();
  StreamQueue *Q = S.create(false, 0);
  std::atomic<int> Ran{0};
  for (int I = 0; I < 20; ++I)
    S.enqueue(Q, [&] {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      ++Ran;
    });
  StreamPoint Last = S.tail(Q);
  S.destroy(Q);
  EXPECT_EQ(Ran.load(), 20);
  EXPECT_TRUE(S.done(Last)); // as an event recorded on a destroyed stream
}

TEST(Streams, QueuesRunConcurrently) {
  // Two operations that each wait for the other: only runners of their own
  // (or a waiting thread) let both finish.
  Streams &S = Streams::get();
  StreamQueue *A = S.create(false, 0), *B = S.create(false, 0);
  std::atomic<int> FlagA{0}, FlagB{0};
  StreamPoint PA = S.enqueue(A, [&] {
    FlagA = 1;
    while (!FlagB) {
    }
  });
  StreamPoint PB = S.enqueue(B, [&] {
    FlagB = 1;
    while (!FlagA) {
    }
  });
  S.wait(PA, WaitMode::Block);
  S.wait(PB, WaitMode::Block);
  S.destroy(A);
  S.destroy(B);
}

TEST(Streams, AWaitingThreadMayRunTheWorkButOneOperationAtATime) {
  Streams &S = Streams::get();
  StreamQueue *Q = S.create(false, 0);
  std::atomic<int> Running{0}, Overlaps{0}, Ran{0};
  for (int Round = 0; Round < 50; ++Round) {
    for (int I = 0; I < 10; ++I)
      S.enqueue(Q, [&] {
        if (Running.fetch_add(1) != 0)
          ++Overlaps;
        ++Ran;
        Running.fetch_sub(1);
      });
    S.wait(S.tail(Q), Round % 2 ? WaitMode::Auto : WaitMode::Block);
  }
  EXPECT_EQ(Ran.load(), 500);
  EXPECT_EQ(Overlaps.load(), 0);
  EXPECT_TRUE(S.done(S.tail(Q)));
  S.destroy(Q);
}

TEST(Streams, WaitAllCoversEveryQueue) {
  Streams &S = Streams::get();
  std::vector<StreamQueue *> Qs;
  std::atomic<int> Ran{0};
  for (int I = 0; I < 8; ++I) {
    Qs.push_back(S.create(I % 2, 0));
    for (int K = 0; K < 5; ++K)
      S.enqueue(Qs.back(), [&] {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        ++Ran;
      });
  }
  S.waitAll(WaitMode::Auto);
  EXPECT_EQ(Ran.load(), 40);
  for (StreamQueue *Q : Qs)
    S.destroy(Q);
}

} // namespace
