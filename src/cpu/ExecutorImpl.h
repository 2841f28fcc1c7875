//===- ExecutorImpl.h - the CPU executor's block and warp state -*- C++ -*-===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file What the executor (Executor.cpp: workers, fibers, block strategies)
/// shares with the host side of the device runtime that compiled kernels call
/// (HostSync.cpp: barriers and warp collectives; HostMatrix.cpp: mma, wmma,
/// wgmma, ldmatrix; HostRuntime.cpp: printf, malloc, device-side launches,
/// textures, and the table of these functions). Private to src/cpu.
#ifndef ZLUDA_CPU_EXECUTORIMPL_H
#define ZLUDA_CPU_EXECUTORIMPL_H

#include "cpu/Executor.h"
#include "cpu/Racecheck.h"

#include <atomic>
#include <csetjmp>
#include <csignal>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

extern "C" void zluda_fiber_switch(void **SaveSp, void *NewSp);
extern "C" void zluda_fiber_trampoline();

namespace zluda::cpu::exec {

constexpr unsigned MaxBarriers = 16;

/// A fiber stack with a guard page below it; overflow faults instead of
/// silently corrupting the neighbour.
struct Stack {
  char *Base = nullptr; // guard page
  size_t Size = 0;
  void *TsanFiber = nullptr; ///< TSan builds: the fiber that runs on this stack, made once
  char *lo() const { return Base + 4096; }
  char *hi() const { return Base + Size; }
};

struct BlockState;

struct Fiber {
  void *Sp = nullptr;
  ZludaThreadCtx Ctx{};
  enum StateT : uint8_t { Ready, Done } State = Ready;
  bool Sleeping = false; ///< yielded from nanosleep (not a block-internal wait)
  BlockState *Block = nullptr;
  void *AsanFakeStack = nullptr; ///< sanitizer builds only
  void *TsanFiber = nullptr;
  racecheck::Epochs Race; ///< the barriers and warp collectives this thread passed (racecheck)
};

struct Barrier {
  uint32_t Arrived = 0;
  uint32_t Generation = 0;
  uint32_t Expected = 0; ///< 0: every live thread of the block
  uint32_t Popc = 0;
  bool All = true, Any = false;
  uint32_t LastPopc = 0;
  bool LastAll = true, LastAny = false;
  /// A thread arrives (\p Count: bar.sync's thread count, 0 for all).
  void arrive(uint32_t Count, bool Pred) {
    Expected = Count;
    Arrived++;
    Popc += Pred;
    All = All && Pred;
    Any = Any || Pred;
  }
  /// Whether the arrivals complete the barrier (\p Live: the block's live
  /// threads); if so, keeps the reductions' results and opens the next generation.
  bool complete(uint32_t Live) {
    if (Arrived == 0 || Arrived < (Expected ? Expected : Live))
      return false;
    LastPopc = Popc;
    LastAll = All;
    LastAny = Any;
    Arrived = 0;
    Popc = 0;
    All = true;
    Any = false;
    Generation++;
    return true;
  }
  /// What bar.red of \p Kind (2 popc, 3 and, 4 or; else 0) returns after completion.
  uint32_t result(uint32_t Kind) const { return Kind == 2 ? LastPopc : Kind == 3 ? LastAll : Kind == 4 ? LastAny : 0; }
};

struct WarpState {
  uint32_t Arrived = 0; ///< lanes that deposited a value for the current collective
  uint32_t Read = 0;    ///< lanes that took their result
  uint64_t Values[32] = {};
  uint32_t Preds[32] = {};
  uint32_t Masks[32] = {}; ///< each arrived lane's member mask (with itself)
  /// Lanes of the completed collective each lane belongs to (0 while it is
  /// still gathering). Fixed at completion, so lanes that exit after
  /// reading do not change what the later readers see.
  uint32_t Group[32] = {};
  /// Lanes waiting in a collective, a barrier or activemask: parked until
  /// others move. activemask groups the lanes at one site once every live
  /// lane of the warp is parked (the others are on other paths).
  uint32_t Parked = 0;
  uint32_t AmArrived = 0, AmRead = 0;
  uint32_t AmSite[32] = {};
  uint32_t AmGroup[32] = {};
  /// The block barrier each lane waits at (its id + 1; 0: none), so that the
  /// barrier's completion unparks every lane it releases at once.
  uint8_t AtBarrier[32] = {};
};

struct LaunchState {
  const LaunchParams *P = nullptr;
  const BlockStrategy *Strategy = nullptr;
  std::atomic<uint64_t> NextBlock{0};
  unsigned Workers = 1; ///< OS threads that may take blocks
  std::atomic<int> Error{0};
  std::mutex ErrMu;
  LaunchResult Result;
  void fail(LaunchError E, std::string Msg) {
    std::lock_guard<std::mutex> G(ErrMu);
    if (Result.Err == LaunchError::None) {
      Result.Err = E;
      Result.Message = std::move(Msg);
    }
    Error.store(1);
  }
};

struct BlockState {
  LaunchState *Launch = nullptr;
  uint32_t Threads = 0;
  uint32_t Live = 0;
  uint32_t Warps = 0;
  std::vector<Fiber> Fibers;
  std::vector<WarpState> WarpStates;
  std::vector<uint32_t> WarpLive; ///< live-lane mask of each warp
  Barrier Bars[MaxBarriers];
  void *SchedSp = nullptr;
  uint64_t Progress = 0;
  Fiber *Current = nullptr; ///< the fiber running, null while the scheduler runs
  // Sanitizer builds only: the scheduler's stack and fiber as ASan/TSan see them.
  const void *SchedStackBottom = nullptr;
  size_t SchedStackSize = 0;
  void *SchedAsanFakeStack = nullptr;
  void *TsanSched = nullptr;
  bool UnwoundFromFiber = false;
  /// barrier.cluster's counter when the block is a cluster of its own.
  ZludaCluster SelfCluster{};
};

struct WorkerState {
  sigjmp_buf Recovery;
  volatile sig_atomic_t InKernel = 0;
  std::vector<Stack> Stacks;
  std::vector<char> Shared;
  // For 32-bit kernels: stacks and shared memory below 4 GiB.
  std::vector<Stack> LowStacks;
  char *LowShared = nullptr;
  size_t LowSharedBytes = 0;
  std::vector<char> AltStack;
  char *StackLo = nullptr, *StackHi = nullptr;
  BlockState *FiberBlock = nullptr; ///< the block the fiber strategy is running
  racecheck::Shadow Race;           ///< the block's shared-memory accesses (racecheck)
  // The region strategy's per-block state (kept to spare allocations).
  std::vector<char> Frames;
  std::vector<char> UniformArea; ///< region kernels: two uniform areas and two of scratch (Regions.h)
  std::vector<uint32_t> Status, Resume, WaitGen, Stopped;
  std::vector<uint8_t> TState;
};
/// This OS thread's state (worker() makes it).
extern thread_local WorkerState *TheWorker;

// Codes passed through siglongjmp (signal numbers are positive and small).
constexpr int JmpTrap = 1000, JmpAssert = 1001, JmpDeadlock = 1002, JmpMisaligned = 1003, JmpMemcheck = 1004,
              JmpMemcheckMisaligned = 1005;

/// This OS thread's worker state, made on first use.
WorkerState &worker();
/// Leaves the kernel running on this worker for its recovery point with
/// \p Code (a signal number or one of the Jmp codes).
[[noreturn]] void unwindKernel(int Code);
/// The running fiber of \p B gives way to the block's scheduler.
void yieldFiber(BlockState &B);

/// The block a thread of the fiber strategy runs in.
inline BlockState &blockOf(ZludaThreadCtx *C) { return *static_cast<BlockState *>(C->Block); }

/// Waits until every lane of \p Mask (restricted to live lanes) has deposited
/// a value, then lets each lane read; \p Compute runs once per lane when all
/// arrived. The next collective of a lane waits until all lanes read this one.
template <typename ComputeT>
auto warpCollective(ZludaThreadCtx *C, uint32_t Mask, uint64_t Value, uint32_t Pred, ComputeT Compute) {
  BlockState &B = blockOf(C);
  WarpState &WS = B.WarpStates[C->WarpId];
  uint32_t Bit = 1u << C->LaneId;
  // Parked only once arrived: a lane still waiting for its previous group to
  // be read is not yet here, and an activemask elsewhere must not count it
  // as waiting (it would form a group without it).
  while (WS.Read & Bit) // the previous collective of this lane is still being read
    yieldFiber(B);
  WS.Parked |= Bit;
  WS.Values[C->LaneId] = Value;
  WS.Preds[C->LaneId] = Pred;
  WS.Masks[C->LaneId] = Mask | Bit;
  WS.Arrived |= Bit;
  B.Progress++; // an arrival changes state: not a deadlock round
  while (!WS.Group[C->LaneId]) {
    uint32_t Live = B.WarpLive[C->WarpId], Eff = (Mask | Bit) & Live;
    // Each lane of the group waits in a collective of the same mask (PTX's
    // rule): a lane in another collective, of other lanes, is not there yet.
    bool Same = (WS.Arrived & Eff) == Eff;
    for (unsigned L = 0; L < 32 && Same; ++L)
      Same = !((Eff >> L) & 1) || (WS.Masks[L] & Live) == Eff;
    if (Same) {
      for (unsigned L = 0; L < 32; ++L)
        if ((Eff >> L) & 1)
          WS.Group[L] = Eff;
      WS.Parked &= ~Eff; // every lane of the group may run now (see barrierComplete)
      break;
    }
    yieldFiber(B);
  }
  WS.Parked &= ~Bit;
  uint32_t G = WS.Group[C->LaneId];
  if (C->Fiber)
    static_cast<Fiber *>(C->Fiber)->Race.Warp++;
  auto R = Compute(WS, G);
  WS.Read |= Bit;
  if ((WS.Read & G) == G) {
    WS.Arrived &= ~G;
    WS.Read &= ~G;
    for (unsigned L = 0; L < 32; ++L)
      if ((G >> L) & 1)
        WS.Group[L] = 0;
    B.Progress++;
  }
  return R;
}

// What each lane of a completed collective gets (HostSync.cpp), from the
// values or predicates every lane of its group \p Eff deposited. Shared by
// the fiber strategy and the region strategy.
uint32_t shflResult(const uint64_t *Values, uint32_t Lane, uint32_t Mode, uint32_t Bv, uint32_t Cv, uint32_t &Pred);
uint32_t voteResult(const uint32_t *Preds, uint32_t Eff, uint32_t Mode);
/// vote's result from the ballot of the lanes \p Eff (a subset of them).
uint32_t ballotVote(uint32_t Ballot, uint32_t Eff, uint32_t Mode);
uint32_t matchResult(const uint64_t *Values, uint32_t Eff, uint32_t Lane, uint32_t Mode, uint32_t &Pred);
uint32_t reduxResult(const uint64_t *Values, uint32_t Eff, uint32_t Op);

/// The driver's texture and surface descriptions (Executor::setTextureResolver).
TextureResolver &textureResolver();
extern std::mutex TexMu;
/// Bumped whenever a handle goes away (texturesChanged()).
extern std::atomic<uint64_t> TextureGeneration;

// The host functions compiled kernels call, by the names in hostSymbols().
extern "C" {
// HostSync.cpp
int32_t hostBarrier(ZludaThreadCtx *C, uint32_t Id, uint32_t Count, uint32_t Kind, uint32_t Pred);
void hostWarpSync(ZludaThreadCtx *C, uint32_t Mask);
uint32_t hostActivemask(ZludaThreadCtx *C, uint32_t Site);
int32_t hostShfl(ZludaThreadCtx *C, uint32_t Mode, uint32_t Value, uint32_t Bv, uint32_t Cv, uint32_t Mask,
                 uint32_t *PredOut);
uint32_t hostVote(ZludaThreadCtx *C, uint32_t Mode, uint32_t Pred, uint32_t Mask);
uint32_t hostMatch(ZludaThreadCtx *C, uint32_t Mode, uint64_t Value, uint32_t Mask, uint32_t *PredOut);
uint32_t hostRedux(ZludaThreadCtx *C, uint32_t Op, uint32_t Value, uint32_t Mask);
void hostExit(ZludaThreadCtx *C);
void hostTrap(ZludaThreadCtx *C);
void hostNanosleep(ZludaThreadCtx *C, uint32_t Ns);
void hostClusterBarrier(ZludaThreadCtx *C, uint32_t Op);
void hostGridSync(ZludaThreadCtx *C);
// HostMatrix.cpp
void hostWmma(ZludaThreadCtx *C, uint32_t Packed, uint32_t Shape, const uint64_t *A, const uint64_t *Bm,
              const uint64_t *Cf, uint64_t *D);
void hostMmaGeneric(ZludaThreadCtx *C, uint32_t Packed, const uint64_t *A, const uint64_t *Bm, const uint64_t *Cf,
                    uint64_t *D);
void hostWgmma(ZludaThreadCtx *C, uint32_t Packed, uint64_t ADesc, const uint64_t *ARegs, uint64_t BDesc, uint64_t *D,
               uint32_t ScaleD);
void hostMmaM16n8k16(ZludaThreadCtx *C, const uint16_t *A, const uint16_t *Bm, const float *Cf, float *D,
                     uint32_t Bf16);
void hostLdmatrix(ZludaThreadCtx *C, uint64_t Addr, uint32_t N, uint32_t Trans, uint32_t *Out);
} // extern "C"

} // namespace zluda::cpu::exec

#endif // ZLUDA_CPU_EXECUTORIMPL_H
