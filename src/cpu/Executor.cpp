//===- Executor.cpp - runs a grid of CPU kernel threads --------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Blocks are taken in increasing order by a pool of workers (so a block
/// that waits on an earlier one, as decoupled look-back scans do, always makes
/// progress). Inside a block, threads run either one after another (kernels
/// that never wait for each other) or as fibers on one OS thread, switched
/// only at barriers, warp collectives and nanosleep. Kernel faults (SIGSEGV,
/// SIGBUS, SIGFPE, SIGILL) are caught on the worker and reported as a launch
/// error; trap and assert unwind the same way.
#include "cpu/Executor.h"
#include "cpu/ExecutorImpl.h"
#include "cpu/LowMemory.h"
#include "cpu/Memcheck.h"
#include "cpu/Racecheck.h"
#include "ptx/codegen/WarpSemantics.h"

#include "common/Env.h"
#include "common/Log.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <csetjmp>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <pthread.h>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

// Sanitizer builds (ZLUDA_SANITIZE): ASan and TSan must be told when the stack
// changes under them, or they report false errors on fiber stacks.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) && !defined(__SANITIZE_ADDRESS__)
#define __SANITIZE_ADDRESS__ 1
#endif
#if __has_feature(thread_sanitizer) && !defined(__SANITIZE_THREAD__)
#define __SANITIZE_THREAD__ 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

// --- fibers: a minimal x86-64 System V context switch -------------------------


asm(R"(
  .text
  .globl zluda_fiber_switch
  .hidden zluda_fiber_switch
  .type zluda_fiber_switch,@function
zluda_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size zluda_fiber_switch, .-zluda_fiber_switch

  .globl zluda_fiber_trampoline
  .hidden zluda_fiber_trampoline
  .type zluda_fiber_trampoline,@function
zluda_fiber_trampoline:
  movq %r12, %rdi
  callq *%r13
  ud2
  .size zluda_fiber_trampoline, .-zluda_fiber_trampoline
)");

namespace zluda::cpu {

using namespace exec;

namespace {


size_t stackSize() {
  static size_t S = [] {
    std::string V = env::get("ZLUDA_CPU_STACK_SIZE");
    size_t KB = V.empty() ? 256 : std::strtoull(V.c_str(), nullptr, 10);
    return std::max<size_t>(KB, 32) * 1024;
  }();
  return S;
}


/// \p Low: below 4 GiB (LowMemory.h), for 32-bit kernels.
Stack allocStack(bool Low = false) {
  Stack S;
  S.Size = stackSize() + 4096;
  void *P = Low ? LowMemory::get().allocate(S.Size, 4096) : nullptr;
  if (!Low)
    P = mmap(nullptr, S.Size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (!P || P == MAP_FAILED)
    return Stack{};
  S.Base = static_cast<char *>(P);
  mprotect(S.Base, 4096, PROT_NONE);
#if defined(__SANITIZE_THREAD__)
  S.TsanFiber = __tsan_create_fiber(0); // reused by every block (creating one per thread per block is slow)
#endif
  return S;
}


/// The cluster the blocks this OS thread runs belong to, and its shared
/// window (set by the cluster runner; null outside cluster launches).
thread_local ZludaCluster *CurrentCluster = nullptr;
thread_local char *CurrentClusterShared = nullptr;

// --- per-worker state and fault recovery -------------------------------------------

} // namespace

thread_local WorkerState *exec::TheWorker = nullptr;

namespace {

struct sigaction OldActions[32];
std::once_flag HandlersOnce;


void leaveFiberForUnwind(WorkerState &W);

void faultHandler(int Sig, siginfo_t *Info, void *UCtx) {
  WorkerState *W = TheWorker;
  if (W && W->InKernel) {
    W->InKernel = 0;
    leaveFiberForUnwind(*W);
    siglongjmp(W->Recovery, Sig);
  }
  // Not ours: behave as the previous handler would.
  struct sigaction &Old = OldActions[Sig];
  if (Old.sa_flags & SA_SIGINFO) {
    if (Old.sa_sigaction) {
      Old.sa_sigaction(Sig, Info, UCtx);
      return;
    }
  } else if (Old.sa_handler != SIG_DFL && Old.sa_handler != SIG_IGN) {
    Old.sa_handler(Sig);
    return;
  }
  signal(Sig, SIG_DFL);
  raise(Sig);
}

void installHandlers() {
  std::call_once(HandlersOnce, [] {
    struct sigaction SA;
    std::memset(&SA, 0, sizeof SA);
    SA.sa_sigaction = faultHandler;
    SA.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&SA.sa_mask);
    for (int Sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL})
      sigaction(Sig, &SA, &OldActions[Sig]);
  });
}

/// Frees a thread's WorkerState when the thread ends: threads of cooperative
/// launches and the program's own threads come and go (pool and stream
/// runner threads stay for the process).
struct WorkerOwner {
  ~WorkerOwner() {
    WorkerState *W = TheWorker;
    if (!W)
      return;
    TheWorker = nullptr;
    if (!W->AltStack.empty()) {
      stack_t SS{};
      SS.ss_flags = SS_DISABLE;
      sigaltstack(&SS, nullptr);
    }
    for (Stack &S : W->Stacks)
      munmap(S.Base, S.Size);
    for (Stack &S : W->LowStacks)
      LowMemory::get().release(S.Base);
#if defined(__SANITIZE_THREAD__)
    for (std::vector<Stack> *V : {&W->Stacks, &W->LowStacks})
      for (Stack &S : *V)
        __tsan_destroy_fiber(S.TsanFiber);
#endif
    if (W->LowShared)
      LowMemory::get().release(W->LowShared);
    delete W;
  }
};
thread_local WorkerOwner TheWorkerOwner;

} // namespace

WorkerState &exec::worker() {
  if (!TheWorker) {
    (void)&TheWorkerOwner; // constructed in this thread: frees the state at its end
    TheWorker = new WorkerState;
    // Fault handlers run on an alternate stack (a kernel's stack may be the
    // one that overflowed). A thread that has one already (the program's,
    // or a sanitizer's, which frees it at thread exit) keeps it.
    stack_t Old;
    if (sigaltstack(nullptr, &Old) != 0 || (Old.ss_flags & SS_DISABLE) || Old.ss_size < 16 * 1024) {
      TheWorker->AltStack.resize(64 * 1024);
      stack_t SS;
      SS.ss_sp = TheWorker->AltStack.data();
      SS.ss_size = TheWorker->AltStack.size();
      SS.ss_flags = 0;
      sigaltstack(&SS, nullptr);
    }
    pthread_attr_t A;
    if (pthread_getattr_np(pthread_self(), &A) == 0) {
      void *Addr;
      size_t Size;
      pthread_attr_getstack(&A, &Addr, &Size);
      TheWorker->StackLo = static_cast<char *>(Addr);
      TheWorker->StackHi = static_cast<char *>(Addr) + Size;
      pthread_attr_destroy(&A);
    }
  }
  return *TheWorker;
}

void exec::unwindKernel(int Code) {
  WorkerState &W = worker();
  W.InKernel = 0;
  leaveFiberForUnwind(W);
  siglongjmp(W.Recovery, Code);
}

namespace {

// --- thread pool ----------------------------------------------------------------------

class Pool {
public:
  explicit Pool(unsigned N) {
    for (unsigned I = 0; I < N; ++I)
      Threads.emplace_back([this] { loop(); });
  }
  /// Jobs run by \p Priority (CUDA's: lower is more urgent), then in order.
  void post(std::function<void()> F, int Priority = 0) {
    {
      std::lock_guard<std::mutex> G(Mu);
      Jobs.emplace(Priority, std::move(F));
    }
    Cv.notify_one();
  }

private:
  void loop() {
    while (true) {
      std::function<void()> F;
      {
        std::unique_lock<std::mutex> G(Mu);
        Cv.wait(G, [&] { return !Jobs.empty(); });
        F = std::move(Jobs.begin()->second);
        Jobs.erase(Jobs.begin());
      }
      F();
    }
  }
  std::mutex Mu;
  std::condition_variable Cv;
  std::multimap<int, std::function<void()>> Jobs; ///< equal keys keep insertion order
  std::vector<std::thread> Threads;
};

Pool &pool(unsigned N) {
  static Pool *P = new Pool(N); // never destroyed: workers may be mid-launch at exit
  return *P;
}

// --- block execution ------------------------------------------------------------------

/// A block's shared window: the static variables (16-byte aligned), then the dynamic part.
uint64_t sharedWindowBytes(const LaunchParams &P) { return uint64_t(P.StaticShared + 15) / 16 * 16 + P.DynShared; }

void initCtx(ZludaThreadCtx &C, const LaunchParams &P, uint64_t BlockIdx, uint32_t T, char *Shared,
             uint64_t SharedBytes) {
  C.NTid[0] = P.Block.X;
  C.NTid[1] = P.Block.Y;
  C.NTid[2] = P.Block.Z;
  C.NCtaId[0] = P.Grid.X;
  C.NCtaId[1] = P.Grid.Y;
  C.NCtaId[2] = P.Grid.Z;
  C.CtaId[0] = static_cast<uint32_t>(BlockIdx % P.Grid.X);
  C.CtaId[1] = static_cast<uint32_t>((BlockIdx / P.Grid.X) % P.Grid.Y);
  C.CtaId[2] = static_cast<uint32_t>(BlockIdx / (uint64_t(P.Grid.X) * P.Grid.Y));
  C.Tid[0] = T % P.Block.X;
  C.Tid[1] = (T / P.Block.X) % P.Block.Y;
  C.Tid[2] = T / (P.Block.X * P.Block.Y);
  C.LinearTid = T;
  C.LaneId = T % 32;
  C.WarpId = T / 32;
  C.NWarpId = static_cast<uint32_t>((P.Block.count() + 31) / 32);
  C.SharedBase = Shared;
  C.SharedBytes = SharedBytes;
  C.DynSharedBytes = P.DynShared;
  C.DynSharedOffset = (P.StaticShared + 15) / 16 * 16;
  C.EnvRegs = P.EnvRegs;
  C.DeviceLaunches = P.DeviceLaunches;
  C.ClusterDim[0] = P.Cluster.X;
  C.ClusterDim[1] = P.Cluster.Y;
  C.ClusterDim[2] = P.Cluster.Z;
  C.ClusterExplicit = P.ClusterExplicit;
  C.ClusterGen = 0;
  C.Cluster = CurrentCluster;
}

// Every switch between the scheduler and a fiber goes through these three,
// which are plain context switches except in sanitizer builds.

/// Scheduler -> fiber \p F, returning when it yields or finishes.
void enterFiber(BlockState &B, Fiber &F) {
  B.Current = &F;
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(&B.SchedAsanFakeStack, F.Ctx.StackLo,
                                 static_cast<char *>(F.Ctx.StackHi) - static_cast<char *>(F.Ctx.StackLo));
#endif
#if defined(__SANITIZE_THREAD__)
  __tsan_switch_to_fiber(F.TsanFiber, 0);
#endif
  zluda_fiber_switch(&B.SchedSp, F.Sp);
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(B.SchedAsanFakeStack, nullptr, nullptr);
#endif
  B.Current = nullptr;
}

/// On fiber \p F, just switched to.
void fiberEntered(BlockState &B, Fiber &F) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(F.AsanFakeStack, &B.SchedStackBottom, &B.SchedStackSize);
#endif
}

/// Fiber \p F -> scheduler; \p Finished: it never runs again.
void leaveFiber(BlockState &B, Fiber &F, bool Finished) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(Finished ? nullptr : &F.AsanFakeStack, B.SchedStackBottom, B.SchedStackSize);
#endif
#if defined(__SANITIZE_THREAD__)
  __tsan_switch_to_fiber(B.TsanSched, 0);
#endif
  zluda_fiber_switch(&F.Sp, B.SchedSp);
  fiberEntered(B, F);
}

/// Before a kernel unwinds (siglongjmp) from a fiber to the scheduler's
/// recovery point: the sanitizers must see the stack change as a switch.
void leaveFiberForUnwind(WorkerState &W) {
  BlockState *B = W.FiberBlock;
  if (!B || !B->Current)
    return;
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(nullptr, B->SchedStackBottom, B->SchedStackSize);
#endif
#if defined(__SANITIZE_THREAD__)
  __tsan_switch_to_fiber(B->TsanSched, 0);
#endif
  B->Current = nullptr;
  B->UnwoundFromFiber = true;
}

} // namespace

void exec::yieldFiber(BlockState &B) { leaveFiber(B, *B.Current, false); }

namespace {

void fiberMain(Fiber *F) {
  BlockState &B = *F->Block;
  fiberEntered(B, *F);
  B.Launch->P->Fn(&F->Ctx, B.Launch->P->Params);
  F->State = Fiber::Done;
  B.Live--;
  B.WarpLive[F->Ctx.WarpId] &= ~(1u << F->Ctx.LaneId);
  B.Progress++;
  leaveFiber(B, *F, true);
  __builtin_unreachable();
}

void prepareFiber(Fiber &F, Stack &S) {
#if defined(__SANITIZE_ADDRESS__)
  // A fiber of an earlier block that faulted left its frames' redzones behind.
  ASAN_UNPOISON_MEMORY_REGION(S.lo(), S.hi() - S.lo());
#endif
  // Initial frame as zluda_fiber_switch pops it: mxcsr/fpu cw, r15..rbp, ret.
  uint64_t *Top = reinterpret_cast<uint64_t *>(reinterpret_cast<uintptr_t>(S.hi()) & ~uintptr_t(15));
  uint64_t *SpInit = Top - 8;
  SpInit[0] = 0x1F80ull | (0x037Full << 32); // mxcsr | x87 control word
  SpInit[1] = 0;                              // r15
  SpInit[2] = 0;                              // r14
  SpInit[3] = reinterpret_cast<uint64_t>(&fiberMain); // r13: entry
  SpInit[4] = reinterpret_cast<uint64_t>(&F);         // r12: argument
  SpInit[5] = 0;                              // rbx
  SpInit[6] = 0;                              // rbp
  SpInit[7] = reinterpret_cast<uint64_t>(&zluda_fiber_trampoline);
  F.Sp = SpInit;
  F.Ctx.StackLo = S.lo();
  F.Ctx.StackHi = S.hi();
#if defined(__SANITIZE_THREAD__)
  F.TsanFiber = S.TsanFiber;
#endif
}

/// What a strategy runs one block with: its launch, its worker, and the
/// block's shared memory (zeroed).
struct BlockEnv {
  LaunchState &L;
  WorkerState &W;
  uint64_t BlockIdx;
  char *Shared;
  uint64_t SharedBytes;
  uint32_t Threads;
};

/// A kernel's way out of a block (siglongjmp code) as the launch's error.
void failFromJump(LaunchState &L, int Code) {
  if (Code == JmpTrap)
    L.fail(LaunchError::Trap, "kernel executed trap");
  else if (Code == JmpAssert)
    L.fail(LaunchError::Assert, "device-side assertion failed");
  else if (Code == JmpMisaligned)
    L.fail(LaunchError::MisalignedAddress, "misaligned surface access");
  else if (Code == JmpMemcheck)
    L.fail(LaunchError::IllegalAddress, "memcheck: invalid memory access (reported above)");
  else if (Code == JmpMemcheckMisaligned)
    L.fail(LaunchError::MisalignedAddress, "memcheck: misaligned memory access (reported above)");
  else if (Code == JmpDeadlock)
    L.fail(LaunchError::Deadlock,
           "threads of a block wait on each other forever (barrier or warp collective never completes)");
  else
    L.fail(Code == SIGILL ? LaunchError::IllegalInstruction : LaunchError::IllegalAddress,
           std::string("kernel fault (") + strsignal(Code) + ")");
}

} // namespace

/// How the threads of one block run (Executor.h). Each strategy's run()
/// catches the block's faults itself: the recovery point must be in a frame
/// that is live while the kernel runs.
class BlockStrategy {
public:
  virtual ~BlockStrategy() = default;
  virtual const char *name() const = 0;
  /// Whether this strategy can run every block of \p P correctly.
  virtual bool accepts(const LaunchParams &P) const = 0;
  virtual void run(BlockEnv &E) const = 0;
  /// Optionally runs blocks Start .. Start+Count-1 at once (cheaper per
  /// block than run()); false: the caller runs them one by one.
  virtual bool runRange(LaunchState &, WorkerState &, uint64_t, uint64_t) const { return false; }
};

namespace {

/// Kernels whose threads never wait for each other run on the worker's own
/// stack: "loop" calls the compiled per-block entry point once (the block's
/// thread loop is inside compiled code), "sequential" calls the kernel once
/// per thread. (32-bit kernels need stacks below 4 GiB: fibers have them.)
class WorkerStackStrategy final : public BlockStrategy {
public:
  explicit WorkerStackStrategy(bool Loop) : Loop(Loop) {}
  const char *name() const override { return Loop ? "loop" : "sequential"; }
  bool accepts(const LaunchParams &P) const override {
    return !P.NeedsSwitching && !P.LowMemory && (!Loop || P.BlockFn);
  }
  void run(BlockEnv &E) const override {
    const LaunchParams &P = *E.L.P;
    ZludaThreadCtx C{};
    C.StackLo = E.W.StackLo;
    C.StackHi = E.W.StackHi;
    if (int Code = sigsetjmp(E.W.Recovery, 0)) {
      E.W.InKernel = 0;
      failFromJump(E.L, Code);
      return;
    }
    E.W.InKernel = 1;
    if (Loop) {
      initCtx(C, P, E.BlockIdx, 0, E.Shared, E.SharedBytes);
      P.BlockFn(&C, P.Params);
    } else {
      for (uint32_t T = 0; T < E.Threads; ++T) {
        initCtx(C, P, E.BlockIdx, T, E.Shared, E.SharedBytes);
        P.Fn(&C, P.Params);
      }
    }
    E.W.InKernel = 0;
  }

  /// The loop strategy runs a range of blocks under one recovery point,
  /// stepping the block index instead of rebuilding the context.
  bool runRange(LaunchState &L, WorkerState &W, uint64_t Start, uint64_t Count) const override {
    const LaunchParams &P = *L.P;
    if (!Loop || P.LowMemory)
      return false;
    uint64_t SharedBytes = sharedWindowBytes(P);
    if (W.Shared.size() < SharedBytes + 16)
      W.Shared.resize(SharedBytes + 16);
    char *Shared = reinterpret_cast<char *>((reinterpret_cast<uintptr_t>(W.Shared.data()) + 15) & ~uintptr_t(15));
    ZludaThreadCtx C{};
    initCtx(C, P, Start, 0, Shared, SharedBytes);
    C.StackLo = W.StackLo;
    C.StackHi = W.StackHi;
    if (int Code = sigsetjmp(W.Recovery, 0)) {
      W.InKernel = 0;
      failFromJump(L, Code);
      return true;
    }
    W.InKernel = 1;
    for (uint64_t I = 0; I < Count && !L.Error.load(std::memory_order_relaxed); ++I) {
      if (SharedBytes)
        std::memset(Shared, 0, SharedBytes); // every block starts with zeroed shared memory
      if (racecheck::enabled())
        W.Race.reset(SharedBytes);
      P.BlockFn(&C, P.Params);
      if (++C.CtaId[0] == P.Grid.X) {
        C.CtaId[0] = 0;
        if (++C.CtaId[1] == P.Grid.Y) {
          C.CtaId[1] = 0;
          ++C.CtaId[2];
        }
      }
    }
    W.InKernel = 0;
    return true;
  }

private:
  bool Loop;
};

/// Any kernel: a fiber per thread on one OS thread, switched only at
/// barriers, warp collectives and nanosleep; a round in which no thread makes
/// progress is a deadlock.
class FiberStrategy final : public BlockStrategy {
public:
  const char *name() const override { return "fibers"; }
  bool accepts(const LaunchParams &) const override { return true; }
  void run(BlockEnv &E) const override {
    const LaunchParams &P = *E.L.P;
    LaunchState &L = E.L;
    WorkerState &W = E.W;
    uint32_t Threads = E.Threads;
    BlockState B;
    B.Launch = &L;
    B.Threads = Threads;
    B.Live = Threads;
    B.Warps = (Threads + 31) / 32;
    B.WarpStates.assign(B.Warps, WarpState{});
    B.WarpLive.assign(B.Warps, 0);
    for (uint32_t T = 0; T < Threads; ++T)
      B.WarpLive[T / 32] |= 1u << (T % 32);
    B.Fibers.resize(Threads);
    std::vector<Stack> &Stacks = P.LowMemory ? W.LowStacks : W.Stacks;
    while (Stacks.size() < Threads) {
      Stack S = allocStack(P.LowMemory);
      if (!S.Base) {
        L.fail(LaunchError::OutOfResources, P.LowMemory ? "cannot allocate fiber stacks below 4 GiB"
                                                        : "cannot allocate fiber stacks");
        return;
      }
      Stacks.push_back(S);
    }
    for (uint32_t T = 0; T < Threads; ++T) {
      Fiber &F = B.Fibers[T];
      F.Block = &B;
      initCtx(F.Ctx, P, E.BlockIdx, T, E.Shared, E.SharedBytes);
      F.Ctx.Block = &B;
      F.Ctx.Fiber = &F;
      prepareFiber(F, Stacks[T]);
    }
    W.FiberBlock = &B;
#if defined(__SANITIZE_THREAD__)
    B.TsanSched = __tsan_get_current_fiber();
#endif
    struct Cleanup {
      WorkerState &W;
      ~Cleanup() { W.FiberBlock = nullptr; }
    } Done{W};
    if (int Code = sigsetjmp(W.Recovery, 0)) {
#if defined(__SANITIZE_ADDRESS__)
      if (B.UnwoundFromFiber) // leaveFiberForUnwind started a switch
        __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
#endif
      W.InKernel = 0;
      failFromJump(L, Code);
      return;
    }
    W.InKernel = 1;
    while (true) {
      bool AnyLive = false, AnySleeping = false;
      uint64_t Epoch = B.Progress;
      for (Fiber &F : B.Fibers) {
        if (F.State == Fiber::Done)
          continue;
        AnyLive = true;
        F.Sleeping = false;
        enterFiber(B, F);
        AnySleeping |= F.Sleeping;
      }
      if (!AnyLive)
        break;
      if (B.Progress == Epoch && !AnySleeping && B.Live > 0) {
        // A whole round in which every live thread only re-checked a wait:
        // nothing can ever change (all waits here are block-internal).
        bool Stuck = true;
        for (Fiber &F : B.Fibers)
          Stuck &= F.State == Fiber::Done || !F.Sleeping;
        if (Stuck) {
          if (spdlog::should_log(spdlog::level::debug)) // where each warp's lanes wait
            for (uint32_t Wp = 0; Wp < B.Warps; ++Wp) {
              const WarpState &WS = B.WarpStates[Wp];
              std::string Sites;
              for (uint32_t L = 0; L < 32; ++L)
                if (WS.AmArrived >> L & 1)
                  Sites += " " + std::to_string(L) + "@" + std::to_string(WS.AmSite[L]);
              ZLUDA_LOG_DEBUG("deadlock: warp {}: live {:08x} parked {:08x} in a collective {:08x}; at activemask:{}",
                              Wp, B.WarpLive[Wp], WS.Parked, WS.Arrived, Sites);
            }
          unwindKernel(JmpDeadlock);
        }
      }
    }
    W.InKernel = 0;
  }
};

/// Whether the \p N words at \p A are all equal (vectorized: the region
/// scheduler asks after every loop over a block's threads).
bool allEqual(const uint32_t *A, uint32_t N) {
  using V4 = uint32_t __attribute__((vector_size(16)));
  const uint32_t X = A[0];
  const V4 Ref = {X, X, X, X};
  V4 Diff = {0, 0, 0, 0};
  uint32_t I = 0;
  for (; I + 4 <= N; I += 4) {
    V4 V;
    std::memcpy(&V, A + I, sizeof V);
    Diff |= V ^ Ref;
  }
  uint32_t D = Diff[0] | Diff[1] | Diff[2] | Diff[3];
  for (; I < N; ++I)
    D |= A[I] ^ X;
  return D == 0;
}

/// Kernels cut at their waits (Regions.h): rows of threads run through
/// compiled loops from one resume point to the next; between loops the
/// scheduler completes barriers and warp collectives with CUDA's rules (the
/// fiber strategy's, without a stack per thread). Threads at the same point
/// run together, in thread order.
class RegionStrategy final : public BlockStrategy {
public:
  const char *name() const override { return "regions"; }
  // Under memcheck a region's locals may live in the worker's frames,
  // outside the thread's stack: the kernel runs as fibers instead.
  bool accepts(const LaunchParams &P) const override { return P.Regions && !P.LowMemory && !memcheck::enabled(); }
  void run(BlockEnv &E) const override {
    const LaunchParams &P = *E.L.P;
    const RegionCode &R = *P.Regions;
    WorkerState &W = E.W;
    const uint32_t N = E.Threads;
    size_t Bytes = R.Info.FrameBytes * N + 64;
    if (W.Frames.size() < Bytes)
      W.Frames.resize(Bytes);
    char *Frames = reinterpret_cast<char *>((reinterpret_cast<uintptr_t>(W.Frames.data()) + 63) & ~uintptr_t(63));
    const uint64_t UB = R.Info.UniformBytes;
    char *URd = nullptr, *UWr = nullptr, *UScratch = nullptr;
    if (UB) {
      if (W.UniformArea.size() < 4 * UB + 64)
        W.UniformArea.resize(4 * UB + 64);
      URd = reinterpret_cast<char *>((reinterpret_cast<uintptr_t>(W.UniformArea.data()) + 63) & ~uintptr_t(63));
      UWr = URd + UB;
      UScratch = UWr + UB;
    }
    W.Status.assign(N, 0);
    W.Resume.assign(N, 0);
    W.WaitGen.assign(N, 0);
    enum : uint8_t { Ready, Waiting, Done };
    W.TState.assign(N, Ready);
    uint32_t *Status = W.Status.data(), *Resume = W.Resume.data(), *WaitGen = W.WaitGen.data();
    uint8_t *St = W.TState.data();
    auto *Op = reinterpret_cast<uint32_t *>(Frames + size_t(regions::OffOp) * N);
    uint32_t *Arg[regions::MaxArgs];
    for (unsigned I = 0; I < regions::MaxArgs; ++I)
      Arg[I] = reinterpret_cast<uint32_t *>(Frames + size_t(regions::OffArgs + 4 * I) * N);
    auto *V = reinterpret_cast<uint64_t *>(Frames + size_t(regions::OffV) * N);
    auto *Res = reinterpret_cast<uint64_t *>(Frames + size_t(regions::OffRes) * N);
    auto *ResPred = reinterpret_cast<uint32_t *>(Frames + size_t(regions::OffResPred) * N);

    ZludaThreadCtx C{};
    initCtx(C, P, E.BlockIdx, 0, E.Shared, E.SharedBytes);
    C.StackLo = W.StackLo;
    C.StackHi = W.StackHi;
    uint32_t Live = N, Warps = (N + 31) / 32;
    uint32_t WarpLive[32]; // blocks have at most 1024 threads
    for (uint32_t Wp = 0; Wp < Warps; ++Wp)
      WarpLive[Wp] = Wp + 1 < Warps || N % 32 == 0 ? ~0u : (1u << (N % 32)) - 1;
    Barrier Bars[MaxBarriers];
    if (int Code = sigsetjmp(W.Recovery, 0)) {
      W.InKernel = 0;
      failFromJump(E.L, Code);
      return;
    }
    W.InKernel = 1;
    auto release = [&](uint32_t Id, uint32_t Gen) {
      Barrier &Bar = Bars[Id];
      for (uint32_t T = 0; T < N; ++T)
        if (St[T] == Waiting && Op[T] == regions::Barrier && Arg[0][T] == Id && WaitGen[T] == Gen) {
          Res[T] = Bar.result(Arg[2][T]);
          St[T] = Ready;
        }
    };
    auto tryComplete = [&](uint32_t Id) {
      uint32_t Gen = Bars[Id].Generation;
      if (Bars[Id].complete(Live))
        release(Id, Gen);
    };
    // The request slot that holds a collective's member mask.
    auto maskOf = [&](uint32_t O) -> const uint32_t * {
      return O == regions::WarpSync ? Arg[0] : O == regions::Shfl ? Arg[4] : O == regions::Match ? Arg[1] : Arg[2];
    };
    // Completes the collective of lanes \p Eff of the warp whose first thread
    // is \p Base: every lane's result from the operands all of them deposited.
    // What every lane of the group shares (the ballot, a reduction, the
    // lanes of equal value for match) is computed once per group.
    auto completeCollective = [&](uint32_t Base, uint32_t Eff) {
      uint64_t Vals[32] = {};
      uint32_t Ballot = 0;
      for (uint32_t M = 0; M < 32; ++M)
        if ((Eff >> M) & 1) {
          uint32_t U = Base + M;
          Vals[M] = Op[U] == regions::Match ? V[U] : Arg[1][U];
          Ballot |= uint32_t(Arg[1][U] != 0) << M;
        }
      uint32_t ReduxOp = ~0u, ReduxVal = 0, Matched = 0;
      for (uint32_t M = 0; M < 32; ++M) {
        if (!((Eff >> M) & 1))
          continue;
        uint32_t U = Base + M, Pred = 0;
        switch (Op[U]) {
        case regions::WarpSync: Res[U] = 0; break;
        case regions::Shfl: Res[U] = shflResult(Vals, M, Arg[0][U], Arg[2][U], Arg[3][U], Pred); break;
        case regions::Vote: Res[U] = ballotVote(Ballot & Eff, Eff, Arg[0][U]); break;
        case regions::Match:
          if ((Matched >> M) & 1)
            continue; // done with an earlier lane of the same value
          {
            // Every lane of equal value gets its result from this one.
            uint32_t Same = matchResult(Vals, Eff, M, 0, Pred); // match.any's answer
            Matched |= Same;
            for (uint32_t L = 0; L < 32; ++L)
              if ((Same >> L) & 1) {
                uint32_t W = Base + L;
                bool All = Arg[0][W] != 0; // match.all: every lane or none
                Res[W] = !All ? Same : Same == Eff ? Eff : 0u;
                ResPred[W] = All && Same == Eff;
              }
          }
          continue;
        default:
          if (Arg[0][U] != ReduxOp) {
            ReduxOp = Arg[0][U];
            ReduxVal = reduxResult(Vals, Eff, ReduxOp);
          }
          Res[U] = ReduxVal;
          break;
        }
        ResPred[U] = Pred;
      }
    };
    std::vector<uint32_t> &Stopped = W.Stopped;
    auto same = [N](const uint32_t *A) { return allEqual(A, N); };
    // A wait whose request is constant left it in the table, not in the
    // thread's slots: the general bookkeeping below reads the slots.
    auto fillRequest = [&](uint32_t T, uint32_t K) {
      const regions::Request &Rq = R.Requests[K];
      if (!Rq.Known)
        return;
      Op[T] = Rq.Op;
      for (unsigned I = 0; I < regions::MaxArgs; ++I)
        Arg[I][T] = Rq.Args[I];
    };
    // While every thread of the block is at the same resume point (the
    // usual case: barriers and collectives reached by all), one call runs
    // them all and the wait completes without per-thread bookkeeping.
    bool Uniform = true;
    uint32_t UniformPt = 0;
    while (Live > 0) {
      if (Uniform) {
        if (UB) // what this step does not write stays as the last step left it
          std::memcpy(UWr, URd, UB);
        if (UniformPt < R.Loops.size())
          R.Loops[UniformPt](&C, P.Params, Frames, N, Status, 0, N, URd, UWr);
        else
          R.AnyLoop(&C, P.Params, Frames, N, Status, 0, N, URd, UWr, UniformPt, 1);
        std::swap(URd, UWr);
        if (same(Status)) {
          uint32_t K = Status[0];
          if (K == 0)
            break; // every thread finished
          // A request of constants is in the table; any other in the
          // threads' slots (one resume point: one kind of wait, its operands
          // may differ).
          const regions::Request &Rq = R.Requests[K];
          uint32_t O = Rq.Known ? Rq.Op : Op[0];
          if (O == regions::Yield) {
            UniformPt = K;
            continue;
          }
          if (O == regions::Activemask && (Rq.Known || same(Arg[0]))) {
            // Every thread at one activemask (every thread is live in this
            // mode): each warp's active lanes are all of its lanes. The lane
            // meetings of the SASS front end and of LanesApart (an
            // activemask each) run so without leaving this path.
            for (uint32_t T = 0; T < N; ++T)
              Res[T] = WarpLive[T / 32];
            UniformPt = K;
            continue;
          }
          if (O == regions::Barrier && (Rq.Known || (same(Arg[0]) && same(Arg[1]) && same(Arg[2])))) {
            uint32_t Id = Rq.Known ? Rq.Args[0] : Arg[0][0], Count = Rq.Known ? Rq.Args[1] : Arg[1][0],
                     Kind = Rq.Known ? Rq.Args[2] : Arg[2][0];
            if (Id < MaxBarriers && (Count == 0 || Count == N) && Kind != 1 && Bars[Id].Arrived == 0) {
              // Every thread at the same block-wide barrier: it completes at once.
              if (Kind >= 2) {
                uint32_t Popc = 0;
                if (Rq.Known)
                  Popc = Rq.Args[3] != 0 ? N : 0;
                else
                  for (uint32_t T = 0; T < N; ++T)
                    Popc += Arg[3][T] != 0;
                uint64_t Rv = Kind == 2 ? Popc : Kind == 3 ? Popc == N : Popc != 0;
                for (uint32_t T = 0; T < N; ++T)
                  Res[T] = Rv;
              }
              Bars[Id].Generation++;
              UniformPt = K;
              continue;
            }
          }
          if (Rq.Known)
            for (uint32_t T = 0; T < N; ++T)
              fillRequest(T, K);
          if (O != regions::Barrier && O != regions::Activemask && N % 32 == 0) {
            // The same collective in every lane: complete each warp whose
            // lanes all name the whole warp (else the general path below).
            const uint32_t *MaskOf = maskOf(O);
            uint32_t AllFull = ~0u;
            for (uint32_t T = 0; T < N; ++T)
              AllFull &= MaskOf[T];
            if (AllFull == ~0u && O == regions::Shfl && same(Arg[0]) && same(Arg[2]) && same(Arg[3])) {
              // One shuffle pattern for every warp: source lanes worked out once.
              uint32_t Src[32], SrcPred[32];
              for (uint32_t M = 0; M < 32; ++M) {
                bool PVal;
                Src[M] = static_cast<uint32_t>(
                             ptx::shflSourceLane(Arg[0][0], static_cast<int>(M), Arg[2][0], Arg[3][0], PVal)) &
                         31;
                SrcPred[M] = PVal;
              }
              for (uint32_t T = 0; T < N; ++T) {
                Res[T] = Arg[1][(T & ~31u) + Src[T & 31]];
                ResPred[T] = SrcPred[T & 31];
              }
              UniformPt = K;
              continue;
            }
            if (AllFull == ~0u && O == regions::WarpSync) { // every warp whole: nothing to wait for
              for (uint32_t T = 0; T < N; ++T)
                Res[T] = 0;
              UniformPt = K;
              continue;
            }
            if (AllFull == ~0u) {
              for (uint32_t Base = 0; Base < N; Base += 32)
                completeCollective(Base, ~0u);
              UniformPt = K;
              continue;
            }
          }
        }
        // Not one of the cases above: every thread goes through the
        // general bookkeeping from here on.
        Uniform = false;
        Stopped.clear();
        for (uint32_t T = 0; T < N; ++T) {
          St[T] = Waiting;
          Stopped.push_back(T);
        }
      } else {
        // Run every ready thread to its next wait: each run of consecutive
        // threads at the same resume point in one call.
        Stopped.clear();
        for (uint32_t T = 0; T < N;) {
          if (St[T] != Ready) {
            ++T;
            continue;
          }
          uint32_t Pt = Resume[T], U = T + 1;
          while (U < N && St[U] == Ready && Resume[U] == Pt)
            ++U;
          // With a uniform area, threads out of step run from their own
          // copies of the uniform values (what they write goes to scratch).
          if (Pt < R.Loops.size() && !UB)
            R.Loops[Pt](&C, P.Params, Frames, N, Status, T, U - T, nullptr, nullptr);
          else
            R.AnyLoop(&C, P.Params, Frames, N, Status, T, U - T, UScratch, UScratch + UB, Pt, 0);
          for (uint32_t I = T; I < U; ++I)
            Stopped.push_back(I);
          T = U;
        }
      }
      if (Stopped.empty()) { // nothing can move again
        W.InKernel = 0;
        failFromJump(E.L, JmpDeadlock);
        return;
      }
      // Where each stopped, in thread order (as arrivals would be ordered).
      for (uint32_t T : Stopped) {
        uint32_t S = Status[T];
        if (S == 0) {
          St[T] = Done;
          --Live;
          WarpLive[T / 32] &= ~(1u << (T % 32));
          continue;
        }
        fillRequest(T, S);
        Resume[T] = S;
        St[T] = Waiting;
        if (Op[T] == regions::Yield) {
          St[T] = Ready;
        } else if (Op[T] == regions::Barrier) {
          uint32_t Id = Arg[0][T];
          if (Id >= MaxBarriers) {
            W.InKernel = 0;
            failFromJump(E.L, SIGILL);
            return;
          }
          Barrier &Bar = Bars[Id];
          Bar.arrive(Arg[1][T], Arg[3][T] != 0);
          WaitGen[T] = Bar.Generation;
          if (Arg[2][T] == 1) { // bar.arrive: does not wait
            Res[T] = 0;
            St[T] = Ready;
          }
          tryComplete(Id);
        }
      }
      // Barriers waiting for every live thread complete when threads exit.
      for (uint32_t Id = 0; Id < MaxBarriers; ++Id)
        if (!Bars[Id].Expected)
          tryComplete(Id);
      // Warp collectives and activemask, warp by warp.
      bool AnyReady = false;
      for (uint32_t Wp = 0; Wp < Warps; ++Wp) {
        uint32_t Base = Wp * 32, Lanes = std::min<uint32_t>(32, N - Base);
        uint32_t Coll = 0, Am = 0, ReadyMask = 0;
        for (uint32_t L = 0; L < Lanes; ++L) {
          uint32_t T = Base + L;
          if (St[T] == Ready)
            ReadyMask |= 1u << L;
          else if (St[T] == Waiting && Op[T] == regions::Activemask)
            Am |= 1u << L;
          else if (St[T] == Waiting && Op[T] != regions::Barrier)
            Coll |= 1u << L;
        }
        // activemask: once every live lane of the warp waits somewhere, the
        // lanes at the same activemask are the active ones.
        if (Am && !(ReadyMask & WarpLive[Wp])) {
          for (uint32_t L = 0; L < Lanes; ++L) {
            if (!((Am >> L) & 1))
              continue;
            uint32_t G = 0;
            for (uint32_t M = L; M < Lanes; ++M)
              if ((Am >> M) & 1 && Arg[0][Base + M] == Arg[0][Base + L])
                G |= 1u << M;
            for (uint32_t M = L; M < Lanes; ++M)
              if ((G >> M) & 1) {
                Res[Base + M] = G;
                St[Base + M] = Ready;
              }
            Am &= ~G;
          }
        }
        for (uint32_t L = 0; L < Lanes && Coll; ++L) {
          if (!((Coll >> L) & 1))
            continue;
          uint32_t Eff = (maskOf(Op[Base + L])[Base + L] | (1u << L)) & WarpLive[Wp];
          if ((Coll & Eff) != Eff)
            continue; // some lane of the group is not there yet
          // Each lane of the group waits in a collective of the same mask (PTX's
          // rule): a lane in another collective, of other lanes, is not there yet.
          bool Same = true;
          for (uint32_t M = 0; M < Lanes && Same; ++M)
            Same = !((Eff >> M) & 1) || ((maskOf(Op[Base + M])[Base + M] | (1u << M)) & WarpLive[Wp]) == Eff;
          if (!Same)
            continue;
          completeCollective(Base, Eff);
          for (uint32_t M = 0; M < Lanes; ++M)
            if ((Eff >> M) & 1)
              St[Base + M] = Ready;
          Coll &= ~Eff;
        }
      }
      for (uint32_t T = 0; T < N && !AnyReady; ++T)
        AnyReady = St[T] == Ready;
      if (Live > 0 && !AnyReady) {
        if (spdlog::should_log(spdlog::level::debug)) // where each warp's lanes wait
          for (uint32_t Wp = 0; Wp < Warps; ++Wp) {
            std::string Line;
            for (uint32_t L = 0; L < 32 && Wp * 32 + L < N; ++L) {
              uint32_t T = Wp * 32 + L;
              Line += St[T] == Done ? " -" : " " + std::to_string(Op[T]) + ":" + std::to_string(Resume[T]) + "/" +
                                                 std::to_string(Arg[0][T]);
            }
            ZLUDA_LOG_DEBUG("deadlock: warp {} (op:resume point/argument){}", Wp, Line);
          }
        W.InKernel = 0;
        failFromJump(E.L, JmpDeadlock);
        return;
      }
      if (Live == N) { // back together (e.g. after a divergent collective)?
        bool All = true;
        for (uint32_t T = 0; T < N && All; ++T)
          All = St[T] == Ready && Resume[T] == Resume[0];
        // With a uniform area: only when every thread's copy of every
        // uniform value agrees (they may not: warps out of step can be in
        // different iterations of a loop), and then the area takes them.
        for (uint32_t I = 0; All && I < R.Info.Uniforms; ++I) {
          const regions::UniformSlot &S = R.Uniforms[I];
          const char *Own = Frames + size_t(S.Frame) * N;
          for (uint32_t T = 1; T < N && All; ++T)
            All = std::memcmp(Own + size_t(T) * S.Size, Own, S.Size) == 0;
        }
        if (All)
          for (uint32_t I = 0; I < R.Info.Uniforms; ++I)
            std::memcpy(URd + R.Uniforms[I].Area, Frames + size_t(R.Uniforms[I].Frame) * N, R.Uniforms[I].Size);
        if (All) {
          Uniform = true;
          UniformPt = Resume[0];
        }
      }
    }
    W.InKernel = 0;
  }
};

/// The strategies, most specific first.
const std::vector<std::unique_ptr<BlockStrategy>> &strategies() {
  static const std::vector<std::unique_ptr<BlockStrategy>> S = [] {
    std::vector<std::unique_ptr<BlockStrategy>> V;
    V.push_back(std::make_unique<WorkerStackStrategy>(true));
    V.push_back(std::make_unique<WorkerStackStrategy>(false));
    V.push_back(std::make_unique<RegionStrategy>());
    V.push_back(std::make_unique<FiberStrategy>());
    return V;
  }();
  return S;
}

/// Runs one block with \p S. Returns normally; errors are recorded in the launch.
void runBlock(LaunchState &L, uint64_t BlockIdx) {
  const LaunchParams &P = *L.P;
  WorkerState &W = worker();
  uint64_t SharedBytes = sharedWindowBytes(P);
  char *Shared;
  if (CurrentClusterShared) {
    // The cluster runner's window, which the cluster's other blocks reach
    // (only after a barrier.cluster that this block, zeroing first, is part of).
    Shared = CurrentClusterShared;
  } else if (P.LowMemory) {
    if (W.LowSharedBytes < SharedBytes + 16) {
      if (W.LowShared)
        LowMemory::get().release(W.LowShared);
      W.LowShared = static_cast<char *>(LowMemory::get().allocate(SharedBytes + 16, 256));
      W.LowSharedBytes = W.LowShared ? SharedBytes + 16 : 0;
      if (!W.LowShared) {
        L.fail(LaunchError::OutOfResources, "cannot allocate shared memory below 4 GiB");
        return;
      }
    }
    Shared = W.LowShared;
  } else {
    if (W.Shared.size() < SharedBytes + 16)
      W.Shared.resize(SharedBytes + 16);
    Shared = reinterpret_cast<char *>((reinterpret_cast<uintptr_t>(W.Shared.data()) + 15) & ~uintptr_t(15));
  }
  // Shared memory starts zeroed in every block so results never depend on
  // what a previous block left behind.
  std::memset(Shared, 0, SharedBytes);
  if (racecheck::enabled())
    W.Race.reset(SharedBytes);
  BlockEnv E{L, W, BlockIdx, Shared, SharedBytes, static_cast<uint32_t>(P.Block.count())};
  L.Strategy->run(E);
}

/// Takes blocks in increasing order, a range at a time: a share of what is
/// left (guided scheduling: big ranges first, single blocks at the end, so the
/// workers finish together), at most 1024 blocks. Ranges in increasing order,
/// each run in order, never deadlock a block that spins on an earlier
/// block's flag (decoupled look-back): the lowest unfinished block is always
/// running. Long ranges stream memory best (16-block ranges: vector add at
/// 0.7x of 1024-block ranges on this machine).
void runBlocks(LaunchState &L) {
  const uint64_t N = L.P->Grid.count();
  const uint64_t Share = 4 * uint64_t(std::max(1u, L.Workers));
  while (!L.Error.load(std::memory_order_relaxed)) {
    uint64_t Start = L.NextBlock.load(std::memory_order_relaxed), Count;
    do {
      if (Start >= N)
        return;
      Count = std::clamp<uint64_t>((N - Start) / Share, 1, 1024);
    } while (!L.NextBlock.compare_exchange_weak(Start, Start + Count, std::memory_order_relaxed));
    if (L.Strategy->runRange(L, worker(), Start, Count))
      continue;
    for (uint64_t I = Start; I < Start + Count && !L.Error.load(std::memory_order_relaxed); ++I)
      runBlock(L, I);
  }
}


} // namespace

DeviceLaunch::~DeviceLaunch() { memcheck::untrack(Params.get()); }


Executor::Executor() {
  std::string V = env::get("ZLUDA_CPU_THREADS");
  unsigned N = V.empty() ? std::thread::hardware_concurrency() : static_cast<unsigned>(std::strtoul(V.c_str(), nullptr, 10));
  NumWorkers = std::max(1u, N);
  installHandlers();
}

Executor &Executor::get() {
  static Executor *E = new Executor();
  return *E;
}


const BlockStrategy &Executor::strategyFor(const LaunchParams &P) const {
  // ZLUDA_CPU_STRATEGY names one to prefer (tests run kernels under each).
  static const std::string FromEnv = env::get("ZLUDA_CPU_STRATEGY");
  std::string Forced = P.Strategy ? P.Strategy : FromEnv;
  if (!Forced.empty() && Forced != "auto") {
    for (const auto &S : strategies())
      if (Forced == S->name() && S->accepts(P))
        return *S;
  }
  for (const auto &S : strategies())
    if (S->accepts(P))
      return *S;
  return *strategies().back();
}

const char *Executor::strategyName(const LaunchParams &P) const { return strategyFor(P).name(); }

LaunchResult Executor::launch(const LaunchParams &P) {
  LaunchState L;
  L.P = &P;
  L.Strategy = &strategyFor(P);
  uint64_t Blocks = P.Grid.count();
  if (Blocks == 0 || P.Block.count() == 0)
    return {};
  if (P.Cluster.count() > 1 && !P.LowMemory) {
    // One cluster at a time, each of its blocks on its own OS thread (they
    // wait for each other at barrier.cluster and read each other's shared
    // memory); the windows live until every block of the cluster is done.
    const Dim3 Cl = P.Cluster;
    const uint32_t Size = static_cast<uint32_t>(Cl.count());
    const uint64_t SharedBytes = sharedWindowBytes(P);
    std::vector<std::vector<char>> Windows(Size, std::vector<char>(SharedBytes + 16));
    for (uint32_t CZ = 0; CZ < P.Grid.Z / Cl.Z && !L.Error.load(); ++CZ)
      for (uint32_t CY = 0; CY < P.Grid.Y / Cl.Y && !L.Error.load(); ++CY)
        for (uint32_t CX = 0; CX < P.Grid.X / Cl.X && !L.Error.load(); ++CX) {
          ZludaCluster State{};
          State.Size = Size;
          State.Threads = static_cast<uint32_t>(Size * P.Block.count());
          for (uint32_t R = 0; R < Size; ++R) // runBlock zeroes each
            State.SharedBase[R] =
                reinterpret_cast<char *>((reinterpret_cast<uintptr_t>(Windows[R].data()) + 15) & ~uintptr_t(15));
          std::vector<std::thread> Ts;
          for (uint32_t R = 0; R < Size; ++R) {
            uint32_t X = CX * Cl.X + R % Cl.X, Y = CY * Cl.Y + (R / Cl.X) % Cl.Y, Z = CZ * Cl.Z + R / (Cl.X * Cl.Y);
            uint64_t Idx = X + uint64_t(P.Grid.X) * (Y + uint64_t(P.Grid.Y) * Z);
            Ts.emplace_back([&L, &State, R, Idx] {
              CurrentCluster = &State;
              CurrentClusterShared = State.SharedBase[R];
              runBlock(L, Idx);
              CurrentCluster = nullptr;
              CurrentClusterShared = nullptr;
            });
          }
          for (auto &T : Ts)
            T.join();
        }
    return L.Result;
  }
  if (P.Cooperative) {
    // Every block on its own OS thread, all at once: grid-wide barriers spin
    // on memory written by other blocks.
    std::vector<std::thread> Ts;
    for (uint64_t I = 0; I < Blocks; ++I)
      Ts.emplace_back([&L, I] { runBlock(L, I); });
    for (auto &T : Ts)
      T.join();
    return L.Result;
  }
  unsigned Helpers = static_cast<unsigned>(std::min<uint64_t>(NumWorkers, Blocks)) - 1;
  L.Workers = Helpers + 1;
  if (Helpers == 0) {
    runBlocks(L);
    return L.Result;
  }
  // Helpers that have not started by the time the launching thread runs out
  // of blocks are not waited for: kernels of other streams may hold the
  // pool's workers (one may spin on a flag this kernel sets), so they might
  // never start. A helper that starts late finds the launch closed.
  struct Helping {
    std::mutex Mu;
    std::condition_variable Cv;
    unsigned Running = 0;
    bool Closed = false;
  };
  auto H = std::make_shared<Helping>();
  for (unsigned I = 0; I < Helpers; ++I)
    pool(NumWorkers).post(
        [H, &L] {
          {
            std::lock_guard<std::mutex> G(H->Mu);
            if (H->Closed)
              return;
            ++H->Running;
          }
          runBlocks(L);
          std::lock_guard<std::mutex> G(H->Mu);
          if (--H->Running == 0)
            H->Cv.notify_all();
        },
        P.Priority);
  runBlocks(L); // the launching thread works too, and alone can finish the grid
  std::unique_lock<std::mutex> G(H->Mu);
  H->Closed = true;
  H->Cv.wait(G, [&] { return H->Running == 0; });
  return L.Result;
}

} // namespace zluda::cpu
