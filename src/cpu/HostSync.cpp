//===- HostSync.cpp - barriers and warp collectives of CPU kernels --------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The host side of block barriers, warp collectives (shfl, vote, match,
/// redux, activemask, warp sync), exit, nanosleep, cluster and grid barriers,
/// as the fiber strategy runs them: each waits by yielding its fiber.
#include "cpu/ExecutorImpl.h"
#include "ptx/codegen/WarpSemantics.h"

#include <algorithm>
#include <atomic>
#include <thread>

namespace zluda::cpu::exec {

namespace {

bool barrierComplete(BlockState &B, Barrier &Bar) {
  if (!Bar.complete(B.Live))
    return false;
  B.Progress++;
  // The lanes this barrier released may run again: they no longer count as
  // parked, or a lane going on to an activemask before they resume would
  // find its warp "all parked" and see itself alone (PyTorch's attention
  // read its warp index from a lane that had not written it).
  uint8_t Id = static_cast<uint8_t>(&Bar - B.Bars + 1);
  for (WarpState &WS : B.WarpStates)
    for (unsigned L = 0; L < 32; ++L)
      if (WS.AtBarrier[L] == Id) {
        WS.AtBarrier[L] = 0;
        WS.Parked &= ~(1u << L);
      }
  return true;
}

} // namespace

// What each lane of a completed collective gets, from the values (or
// predicates) every lane of its group \p Eff deposited. Shared by the fiber
// strategy (the host functions below) and the region strategy.

uint32_t shflResult(const uint64_t *Values, uint32_t Lane, uint32_t Mode, uint32_t Bv, uint32_t Cv, uint32_t &Pred) {
  bool PVal;
  int J = ptx::shflSourceLane(Mode, static_cast<int>(Lane), Bv, Cv, PVal);
  Pred = PVal;
  return static_cast<uint32_t>(Values[J & 31]);
}

uint32_t voteResult(const uint32_t *Preds, uint32_t Eff, uint32_t Mode) {
  uint32_t Ballot = 0;
  for (unsigned I = 0; I < 32; ++I)
    if ((Eff >> I) & 1 && Preds[I])
      Ballot |= 1u << I;
  return ballotVote(Ballot, Eff, Mode);
}
uint32_t ballotVote(uint32_t Ballot, uint32_t Eff, uint32_t Mode) {
  switch (Mode) {
  case 0:
    return uint32_t(Ballot == Eff);
  case 1:
    return uint32_t(Ballot != 0);
  case 2:
    return uint32_t(Ballot == 0 || Ballot == Eff);
  default:
    return Ballot;
  }
}

uint32_t matchResult(const uint64_t *Values, uint32_t Eff, uint32_t Lane, uint32_t Mode, uint32_t &Pred) {
  uint32_t Same = 0;
  for (unsigned I = 0; I < 32; ++I)
    if ((Eff >> I) & 1 && Values[I] == Values[Lane])
      Same |= 1u << I;
  if (Mode == 0)
    return Same;
  Pred = Same == Eff;
  return Same == Eff ? Eff : 0u;
}

uint32_t reduxResult(const uint64_t *Values, uint32_t Eff, uint32_t Op) {
  uint32_t Acc = Op == 5 ? ~0u : Op == 1 || Op == 3 ? (Op == 1 ? ~0u : 0x7fffffffu) : Op == 4 ? 0x80000000u : 0;
  for (unsigned I = 0; I < 32; ++I) {
    if (!((Eff >> I) & 1))
      continue;
    uint32_t V = static_cast<uint32_t>(Values[I]);
    switch (Op) {
    case 0: Acc += V; break;
    case 1: Acc = std::min(Acc, V); break;
    case 2: Acc = std::max(Acc, V); break;
    case 3: Acc = static_cast<uint32_t>(std::min(static_cast<int32_t>(Acc), static_cast<int32_t>(V))); break;
    case 4: Acc = static_cast<uint32_t>(std::max(static_cast<int32_t>(Acc), static_cast<int32_t>(V))); break;
    case 5: Acc &= V; break;
    case 6: Acc |= V; break;
    default: Acc ^= V; break;
    }
  }
  return Acc;
}

extern "C" {

int32_t hostBarrier(ZludaThreadCtx *C, uint32_t Id, uint32_t Count, uint32_t Kind, uint32_t Pred) {
  BlockState &B = blockOf(C);
  if (Id >= MaxBarriers)
    unwindKernel(SIGILL);
  Barrier &Bar = B.Bars[Id];
  Bar.arrive(Count, Pred != 0);
  B.Progress++;
  uint32_t Gen = Bar.Generation;
  racecheck::Epochs Unused, &Race = C->Fiber ? static_cast<Fiber *>(C->Fiber)->Race : Unused;
  bool Complete = barrierComplete(B, Bar);
  if (Kind == 1) // bar.arrive: the thread goes on, unordered with the others
    return Bar.result(Kind);
  if (Complete) {
    Race.Block++;
    return Bar.result(Kind);
  }
  WarpState &WS = B.WarpStates[C->WarpId];
  WS.Parked |= 1u << C->LaneId;
  WS.AtBarrier[C->LaneId] = static_cast<uint8_t>(Id + 1);
  while (Bar.Generation == Gen) {
    yieldFiber(B);
    // A thread that exited may have been the last one this barrier waited for.
    if (Bar.Generation == Gen && !Bar.Expected)
      barrierComplete(B, Bar);
  }
  WS.Parked &= ~(1u << C->LaneId);
  WS.AtBarrier[C->LaneId] = 0;
  Race.Block++;
  return Bar.result(Kind);
}

void hostWarpSync(ZludaThreadCtx *C, uint32_t Mask) {
  warpCollective(C, Mask, 0, 0, [](WarpState &, uint32_t) { return 0; });
}

/// The lanes executing this activemask (\p Site) together: a lane waits
/// until every live lane of its warp is parked (here, in a collective or at
/// a barrier); the lanes then at this site are the active ones. Lanes on
/// another path of a divergent branch are not, as on NVIDIA's GPUs.
uint32_t hostActivemask(ZludaThreadCtx *C, uint32_t Site) {
  BlockState &B = blockOf(C);
  if (!C->Fiber) // threads run one after another: no lane runs beside another
    return B.WarpLive[C->WarpId];
  WarpState &WS = B.WarpStates[C->WarpId];
  uint32_t Lane = C->LaneId, Bit = 1u << Lane;
  // Parked only once arrived (see warpCollective): a lane still waiting for
  // its previous group to be read would otherwise let the lanes here form a
  // group without it (CUB's warp scans from machine code, where an activemask
  // at a convergence point comes right before the scan's).
  while (WS.AmRead & Bit) // this lane's previous group is still being read
    yieldFiber(B);
  WS.Parked |= Bit;
  WS.AmSite[Lane] = Site;
  WS.AmArrived |= Bit;
  B.Progress++;
  while (!WS.AmGroup[Lane]) {
    uint32_t Live = B.WarpLive[C->WarpId];
    if ((Live & ~WS.Parked) == 0) {
      uint32_t G = 0;
      for (unsigned L = 0; L < 32; ++L)
        if (((WS.AmArrived & ~WS.AmRead) >> L & 1) && !WS.AmGroup[L] && WS.AmSite[L] == Site)
          G |= 1u << L;
      for (unsigned L = 0; L < 32; ++L)
        if ((G >> L) & 1)
          WS.AmGroup[L] = G;
      WS.Parked &= ~G; // the group runs on (see barrierComplete)
      B.Progress++;
      break;
    }
    yieldFiber(B);
  }
  WS.Parked &= ~Bit;
  uint32_t G = WS.AmGroup[Lane];
  WS.AmRead |= Bit;
  if ((WS.AmRead & G) == G) {
    WS.AmArrived &= ~G;
    WS.AmRead &= ~G;
    for (unsigned L = 0; L < 32; ++L)
      if ((G >> L) & 1)
        WS.AmGroup[L] = 0;
  }
  return G;
}

int32_t hostShfl(ZludaThreadCtx *C, uint32_t Mode, uint32_t Value, uint32_t Bv, uint32_t Cv, uint32_t Mask,
                 uint32_t *PredOut) {
  uint32_t Lane = C->LaneId;
  return warpCollective(C, Mask, Value, 0, [&](WarpState &WS, uint32_t) {
    return static_cast<int32_t>(shflResult(WS.Values, Lane, Mode, Bv, Cv, *PredOut));
  });
}

uint32_t hostVote(ZludaThreadCtx *C, uint32_t Mode, uint32_t Pred, uint32_t Mask) {
  return warpCollective(C, Mask, 0, Pred, [&](WarpState &WS, uint32_t Eff) { return voteResult(WS.Preds, Eff, Mode); });
}

uint32_t hostMatch(ZludaThreadCtx *C, uint32_t Mode, uint64_t Value, uint32_t Mask, uint32_t *PredOut) {
  uint32_t Lane = C->LaneId;
  return warpCollective(C, Mask, Value, 0,
                        [&](WarpState &WS, uint32_t Eff) { return matchResult(WS.Values, Eff, Lane, Mode, *PredOut); });
}

uint32_t hostRedux(ZludaThreadCtx *C, uint32_t Op, uint32_t Value, uint32_t Mask) {
  return warpCollective(C, Mask, Value, 0, [&](WarpState &WS, uint32_t Eff) { return reduxResult(WS.Values, Eff, Op); });
}

void hostExit(ZludaThreadCtx *C) {
  if (!C->Fiber)
    unwindKernel(SIGILL); // cannot happen: exit in a callee forces fibers
  Fiber *F = static_cast<Fiber *>(C->Fiber);
  BlockState &B = *F->Block;
  F->State = Fiber::Done;
  B.Live--;
  B.WarpLive[C->WarpId] &= ~(1u << C->LaneId);
  B.Progress++;
  zluda_fiber_switch(&F->Sp, B.SchedSp);
  __builtin_unreachable();
}

void hostTrap(ZludaThreadCtx *) { unwindKernel(JmpTrap); }

void hostNanosleep(ZludaThreadCtx *C, uint32_t Ns) {
  if (C->Fiber) {
    static_cast<Fiber *>(C->Fiber)->Sleeping = true;
    yieldFiber(blockOf(C));
  } else {
    std::this_thread::yield();
  }
}

// --- cooperative groups' grid barrier (cudaCGSynchronize) ------------------------

/// Every thread of a cooperative grid calls this; thread 0 of each block
/// meets the other blocks at a counter in the launch's grid workspace
/// (%envreg1:%envreg2), the rest wait at the block barrier around it.
/// barrier.cluster: arrive (Op 0) counts this thread in the phase; wait (Op 1)
/// yields until the phase it arrived in has completed, every thread of every
/// block of the cluster having arrived (a cluster of one block: the block's own).
void hostClusterBarrier(ZludaThreadCtx *C, uint32_t Op) {
  BlockState &B = blockOf(C);
  ZludaCluster *Cl = C->Cluster;
  if (!Cl) {
    Cl = &B.SelfCluster; // fresh with each block
    Cl->Size = 1;
    Cl->Threads = B.Threads;
  }
  if (Op == 0) {
    C->ClusterGen = __atomic_load_n(&Cl->Gen, __ATOMIC_ACQUIRE);
    if (__atomic_add_fetch(&Cl->Arrived, 1, __ATOMIC_ACQ_REL) == Cl->Threads) {
      __atomic_store_n(&Cl->Arrived, 0, __ATOMIC_RELAXED);
      __atomic_add_fetch(&Cl->Gen, 1, __ATOMIC_RELEASE);
    }
    B.Progress++;
    return;
  }
  while (__atomic_load_n(&Cl->Gen, __ATOMIC_ACQUIRE) == C->ClusterGen) {
    if (C->Cluster && B.Launch && B.Launch->Error.load(std::memory_order_relaxed))
      unwindKernel(JmpTrap); // another block of the cluster failed: it will never arrive (its error stands)
    if (C->Fiber) {
      static_cast<Fiber *>(C->Fiber)->Sleeping = true;
      yieldFiber(B);
    } else {
      std::this_thread::yield();
    }
  }
}

void hostGridSync(ZludaThreadCtx *C) {
  uint64_t W = (uint64_t(C->EnvRegs[1]) << 32) | C->EnvRegs[2];
  if (!W) // not a cooperative launch: the grid cannot synchronize
    unwindKernel(SIGILL);
  hostBarrier(C, 0, 0, 0, 0);
  if (C->LinearTid == 0) {
    auto *Count = reinterpret_cast<std::atomic<uint32_t> *>(W + 32);
    auto *Gen = reinterpret_cast<std::atomic<uint32_t> *>(W + 36);
    uint32_t Blocks = C->NCtaId[0] * C->NCtaId[1] * C->NCtaId[2];
    uint32_t G = Gen->load(std::memory_order_acquire);
    if (Count->fetch_add(1, std::memory_order_acq_rel) + 1 == Blocks) {
      Count->store(0, std::memory_order_relaxed);
      Gen->fetch_add(1, std::memory_order_release);
    } else {
      while (Gen->load(std::memory_order_acquire) == G)
        std::this_thread::yield();
    }
  }
  hostBarrier(C, 0, 0, 0, 0);
}

} // extern "C"

} // namespace zluda::cpu::exec
