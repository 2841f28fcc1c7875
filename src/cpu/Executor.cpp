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
#include "cpu/LowMemory.h"
#include "cpu/Memcheck.h"
#include "cpu/Racecheck.h"
#include "ptx/codegen/Lowering.h"
#include "ptx/codegen/PrintfFormat.h"
#include "ptx/codegen/TextureSampling.h"
#include "ptx/codegen/WarpSemantics.h"
#include "ptx/codegen/Wgmma.h"

#include "common/Env.h"
#include "common/Log.h"

#include <algorithm>
#include <atomic>
#include <cfenv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
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

extern "C" void zluda_fiber_switch(void **SaveSp, void *NewSp);
extern "C" void zluda_fiber_trampoline();

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
namespace {

constexpr unsigned MaxBarriers = 16;

size_t stackSize() {
  static size_t S = [] {
    std::string V = env::get("ZLUDA_CPU_STACK_SIZE");
    size_t KB = V.empty() ? 256 : std::strtoull(V.c_str(), nullptr, 10);
    return std::max<size_t>(KB, 32) * 1024;
  }();
  return S;
}

/// A fiber stack with a guard page below it; overflow faults instead of
/// silently corrupting the neighbour.
struct Stack {
  char *Base = nullptr; // guard page
  size_t Size = 0;
  void *TsanFiber = nullptr; ///< TSan builds: the fiber that runs on this stack, made once
  char *lo() const { return Base + 4096; }
  char *hi() const { return Base + Size; }
};

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

/// The cluster the blocks this OS thread runs belong to, and its shared
/// window (set by the cluster runner; null outside cluster launches).
thread_local ZludaCluster *CurrentCluster = nullptr;
thread_local char *CurrentClusterShared = nullptr;

// --- per-worker state and fault recovery -------------------------------------------

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
thread_local WorkerState *TheWorker = nullptr;

struct sigaction OldActions[32];
std::once_flag HandlersOnce;

// Codes passed through siglongjmp (signal numbers are positive and small).
constexpr int JmpTrap = 1000, JmpAssert = 1001, JmpDeadlock = 1002, JmpMisaligned = 1003, JmpMemcheck = 1004,
              JmpMemcheckMisaligned = 1005;

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

WorkerState &worker() {
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

[[noreturn]] void unwindKernel(int Code) {
  WorkerState &W = worker();
  W.InKernel = 0;
  leaveFiberForUnwind(W);
  siglongjmp(W.Recovery, Code);
}

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

void yieldFiber(BlockState &B) { leaveFiber(B, *B.Current, false); }

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

uint32_t shflResult(const uint64_t *Values, uint32_t Lane, uint32_t Mode, uint32_t Bv, uint32_t Cv, uint32_t &Pred);
uint32_t voteResult(const uint32_t *Preds, uint32_t Eff, uint32_t Mode);
/// vote's result from the ballot of the lanes \p Eff (a subset of them).
uint32_t ballotVote(uint32_t Ballot, uint32_t Eff, uint32_t Mode);
uint32_t matchResult(const uint64_t *Values, uint32_t Eff, uint32_t Lane, uint32_t Mode, uint32_t &Pred);
uint32_t reduxResult(const uint64_t *Values, uint32_t Eff, uint32_t Op);

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

TextureResolver &textureResolver() {
  static TextureResolver R;
  return R;
}
std::mutex TexMu;
std::atomic<uint64_t> TextureGeneration{1};

// --- host side of the device runtime ------------------------------------------------

BlockState &blockOf(ZludaThreadCtx *C) { return *static_cast<BlockState *>(C->Block); }

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

static float halfToFloat(uint16_t H) { return zluda::ptx::halfBitsToFloat(H); }

/// wmma.mma of any shape (layout: lowerWmma, arithmetic: wmmaLane). The
/// first lane to read gathers every lane's A and B registers while the warp
/// is blocked in the collective and writes each lane's D.
void hostWmma(ZludaThreadCtx *C, uint32_t Packed, uint32_t Shape, const uint64_t *A, const uint64_t *Bm,
              const uint64_t *Cf, uint64_t *D) {
  using namespace zluda::ptx;
  struct Frags {
    const uint64_t *A, *B, *C;
    uint64_t *D;
  };
  Frags Mine{A, Bm, Cf, D};
  MmaDesc Desc = MmaDesc::unpack(Packed);
  WmmaShape S = WmmaShape::unpack(Shape);
  warpCollective(C, 0xffffffffu, reinterpret_cast<uint64_t>(&Mine), 0, [&](WarpState &WS, uint32_t G) {
    if (WS.Read & G)
      return 0; // already computed by an earlier reader
    uint32_t NA = S.aRegs(Desc), NB = S.bRegs(Desc);
    uint64_t AllA[32 * 8] = {}, AllB[32 * 8] = {};
    for (uint32_t L = 0; L < 32; ++L) {
      if (!((G >> L) & 1))
        continue;
      const Frags *F = reinterpret_cast<const Frags *>(WS.Values[L]);
      std::copy(F->A, F->A + NA, AllA + L * NA);
      std::copy(F->B, F->B + NB, AllB + L * NB);
    }
    uint32_t EA = S.M * S.K / 32, EB = S.K * S.N / 32;
    auto elemA = [&](uint32_t Row, uint32_t Kk) {
      MmaPos P = wmmaElem(Row * S.K + Kk, EA, Desc.A);
      return mmaElemValue(AllA[P.Lane * NA + P.Reg], Desc.A, P.Index);
    };
    auto elemB = [&](uint32_t Kk, uint32_t Col) {
      MmaPos P = wmmaElem(Kk * S.N + Col, EB, Desc.B);
      return mmaElemValue(AllB[P.Lane * NB + P.Reg], Desc.B, P.Index);
    };
    for (uint32_t L = 0; L < 32; ++L)
      if ((G >> L) & 1) {
        const Frags *F = reinterpret_cast<const Frags *>(WS.Values[L]);
        wmmaLane(Desc, S, F->C, L, F->D, elemA, elemB);
      }
    return 0;
  });
}

/// mma.sync of the m16n8k* and m8n8k* shapes with the common fragment layout
/// (WarpSemantics.h: mmaAElem/mmaBElem/mmaCElem). The first lane to read
/// gathers the warp's fragments into whole matrices and writes each lane's
/// part of D; products are summed in double (f16/bf16/tf32/fp8 products are
/// exact there) in K order, as the AMDGPU runtime does.
void hostMmaGeneric(ZludaThreadCtx *C, uint32_t Packed, const uint64_t *A, const uint64_t *Bm, const uint64_t *Cf,
                    uint64_t *D) {
  using namespace zluda::ptx;
  struct Frags {
    const uint64_t *A, *B, *C;
    uint64_t *D;
  };
  Frags Mine{A, Bm, Cf, D};
  MmaDesc Desc = MmaDesc::unpack(Packed);
  warpCollective(C, 0xffffffffu, reinterpret_cast<uint64_t>(&Mine), 0, [&](WarpState &WS, uint32_t G) {
    if (WS.Read & G)
      return 0;
    if (Desc.QuadPair) { // four 8x8x4 products, one per quad-pair
      for (uint32_t L = 0; L < 32; ++L) {
        if (!((G >> L) & 1))
          continue;
        const Frags *F = reinterpret_cast<const Frags *>(WS.Values[L]);
        uint32_t Q = mmaQuadPairOf(L);
        auto frag = [&](uint32_t Src) -> const Frags * {
          return ((G >> Src) & 1) ? reinterpret_cast<const Frags *>(WS.Values[Src]) : nullptr;
        };
        uint64_t Out[8];
        for (uint32_t I = 0; I < 8; ++I) {
          uint32_t Row, Col, CLane, CI;
          mmaQuadPairAccElem(Desc.D, L, I, Row, Col);
          mmaQuadPairAccSlot(Desc.C, Q, Row, Col, CLane, CI);
          const Frags *FC = frag(CLane);
          double Acc = FC ? mmaCValue(Desc, FC->C, CI) : 0;
          const Frags *FA = frag(mmaQuadPairLane(Q, Row)), *FB = frag(mmaQuadPairLane(Q, Col));
          for (uint32_t Kk = 0; FA && FB && Kk < 4; ++Kk)
            Acc += mmaElemValue(FA->A[Kk / 2], ME_F16, Kk % 2) * mmaElemValue(FB->B[Kk / 2], ME_F16, Kk % 2);
          Out[I] = mmaFloatResult(Desc, Acc);
        }
        mmaStoreD(Desc, Out, 8, F->D);
      }
      return 0;
    }
    const unsigned M = Desc.M, N = 8, K = Desc.K;
    unsigned EA = MmaDesc::perReg(Desc.A), EB = MmaDesc::perReg(Desc.B);
    std::vector<double> Am(M * K, 0), Bv(K * N, 0), Cv(M * N, 0);
    unsigned NA = Desc.aRegs(), NB = Desc.bRegs(), CElems = M == 16 ? 4 : 2;
    for (unsigned L = 0; L < 32; ++L) {
      if (!((G >> L) & 1))
        continue;
      const Frags *F = reinterpret_cast<const Frags *>(WS.Values[L]);
      for (unsigned R = 0; R < NA; ++R)
        for (unsigned I = 0; I < EA; ++I) {
          uint32_t Row, Col;
          mmaAElem(Desc, L, R, I, Row, Col);
          if (Row < M && Col < K)
            Am[Row * K + Col] = mmaElemValue(F->A[R], Desc.A, I);
        }
      for (unsigned R = 0; R < NB; ++R)
        for (unsigned I = 0; I < EB; ++I) {
          uint32_t Kk, Col;
          mmaBElem(Desc, L, R, I, Kk, Col);
          if (Kk < K)
            Bv[Kk * N + Col] = mmaElemValue(F->B[R], Desc.B, I);
        }
      for (unsigned I = 0; I < CElems; ++I) {
        uint32_t Row, Col;
        mmaCElem(Desc, L, I, Row, Col);
        Cv[Row * N + Col] = mmaCValue(Desc, F->C, I);
      }
    }
    for (unsigned L = 0; L < 32; ++L) {
      if (!((G >> L) & 1))
        continue;
      const Frags *F = reinterpret_cast<const Frags *>(WS.Values[L]);
      uint64_t Out[4] = {0, 0, 0, 0};
      for (unsigned I = 0; I < CElems; ++I) {
        uint32_t Row, Col;
        mmaCElem(Desc, L, I, Row, Col);
        if (Desc.D == MA_S32) {
          int64_t Acc = int64_t(Cv[Row * N + Col]);
          for (unsigned Kk = 0; Kk < K; ++Kk)
            Acc += mmaIntTerm(Desc, Am[Row * K + Kk], Bv[Kk * N + Col]);
          Out[I] = mmaIntResult(Desc, Acc);
        } else {
          double Acc = Cv[Row * N + Col];
          for (unsigned Kk = 0; Kk < K; ++Kk)
            Acc += Am[Row * K + Kk] * Bv[Kk * N + Col];
          Out[I] = mmaFloatResult(Desc, Acc);
        }
      }
      mmaStoreD(Desc, Out, CElems, F->D);
    }
    return 0;
  });
}

/// wgmma.mma_async (ptx/codegen/Wgmma.h): each warp computes its 16 rows of
/// the warpgroup's D. The first lane to read gathers the warp's A fragments
/// (A in registers) and D registers, reads A and B from shared memory
/// through their descriptors, and writes every lane's D; products are summed
/// in double in K order from the accumulator, as mma.sync's are.
void hostWgmma(ZludaThreadCtx *C, uint32_t Packed, uint64_t ADesc, const uint64_t *ARegs, uint64_t BDesc, uint64_t *D,
               uint32_t ScaleD) {
  using namespace zluda::ptx;
  struct Frags {
    const uint64_t *A;
    uint64_t *D;
  };
  Frags Mine{ARegs, D};
  WgmmaDesc W = WgmmaDesc::unpack(Packed);
  MmaDesc Md = W.mma();
  const uint32_t N = W.N, K = W.k(), Rows = 16, WarpInGroup = C->WarpId % 4;
  const char *Shared = C->SharedBase;
  const uint64_t SharedBytes = C->SharedBytes;
  bool Bad = false;
  warpCollective(C, 0xffffffffu, reinterpret_cast<uint64_t>(&Mine), 0, [&](WarpState &WS, uint32_t G) {
    if (WS.Read & G)
      return 0;
    // One element of a shared-memory operand: row R (M or N), column Kk.
    auto smem = [&](uint64_t Desc, uint32_t E, uint32_t R, uint32_t Kk, bool MnMajor) -> double {
      uint32_t Bits = MmaDesc::bits(E);
      uint64_t Off = wgmmaElemOffset(Desc, R, Kk, Bits, MnMajor);
      uint32_t Bytes = Bits >= 8 ? Bits / 8 : 1;
      if (Off + Bytes > SharedBytes) {
        Bad = true;
        return 0;
      }
      uint64_t Raw = 0;
      std::memcpy(&Raw, Shared + Off, Bytes);
      if (Bits < 8)
        return double((Raw >> (uint64_t(Kk) * Bits % 8)) & 1);
      return mmaElemValue(Raw, E, 0);
    };
    std::vector<double> Am(Rows * K, 0), Bm(K * N, 0);
    if (!W.ARegs) {
      for (uint32_t R = 0; R < Rows; ++R)
        for (uint32_t Kk = 0; Kk < K; ++Kk)
          Am[R * K + Kk] = smem(ADesc, W.A, 16 * WarpInGroup + R, Kk, W.TransA);
    } else {
      for (uint32_t L = 0; L < 32; ++L) {
        if (!((G >> L) & 1))
          continue;
        const Frags *F = reinterpret_cast<const Frags *>(WS.Values[L]);
        for (uint32_t R = 0; R < Md.aRegs(); ++R)
          for (uint32_t I = 0; I < MmaDesc::perReg(W.A); ++I) {
            uint32_t Row, Col;
            mmaAElem(Md, L, R, I, Row, Col);
            if (Row < Rows && Col < K)
              Am[Row * K + Col] = mmaElemValue(F->A[R], W.A, I);
          }
      }
    }
    for (uint32_t Col = 0; Col < N; ++Col)
      for (uint32_t Kk = 0; Kk < K; ++Kk)
        Bm[Kk * N + Col] = smem(BDesc, W.B, Col, Kk, W.TransB);
    if (Bad)
      return 0;
    double SA = W.NegA ? -1 : 1, SB = W.NegB ? -1 : 1;
    const uint32_t Elems = N / 2;
    std::vector<uint64_t> Out(Elems);
    for (uint32_t L = 0; L < 32; ++L) {
      if (!((G >> L) & 1))
        continue;
      const Frags *F = reinterpret_cast<const Frags *>(WS.Values[L]);
      for (uint32_t I = 0; I < Elems; ++I) {
        uint32_t Row, Col;
        wgmmaDElem(L, I, Row, Col);
        if (W.D == MA_S32) {
          int64_t Acc = ScaleD ? int64_t(int32_t(uint32_t(F->D[I]))) : 0;
          for (uint32_t Kk = 0; Kk < K; ++Kk)
            Acc += mmaIntTerm(Md, Am[Row * K + Kk], Bm[Kk * N + Col]);
          Out[I] = mmaIntResult(Md, Acc);
        } else {
          double Acc = 0;
          if (ScaleD) // f32 registers, or f16 pairs packed as mma's C
            Acc = mmaCValue(Md, F->D, I);
          for (uint32_t Kk = 0; Kk < K; ++Kk)
            Acc += SA * Am[Row * K + Kk] * SB * Bm[Kk * N + Col];
          Out[I] = mmaFloatResult(Md, Acc);
        }
      }
      mmaStoreD(Md, Out.data(), Elems, F->D);
    }
    return 0;
  });
  if (Bad) {
    ZLUDA_LOG_ERROR("wgmma: a matrix descriptor reaches past the block's {} bytes of shared memory", SharedBytes);
    unwindKernel(SIGSEGV);
  }
}

void hostMmaM16n8k16(ZludaThreadCtx *C, const uint16_t *A, const uint16_t *Bm, const float *Cf, float *D,
                     uint32_t Bf16) {
  struct Frags {
    const uint16_t *A, *B;
    const float *C;
    float *D;
  };
  Frags Mine{A, Bm, Cf, D};
  auto toF = [Bf16](uint16_t H) {
    if (!Bf16)
      return halfToFloat(H);
    uint32_t Bits = uint32_t(H) << 16;
    float F;
    std::memcpy(&F, &Bits, 4);
    return F;
  };
  warpCollective(C, 0xffffffffu, reinterpret_cast<uint64_t>(&Mine), 0, [&](WarpState &WS, uint32_t G) {
    if (WS.Read & G)
      return 0; // already computed by an earlier reader
    float Am[16][16] = {}, Bv[16][8] = {}, Cv[16][8] = {};
    for (unsigned L = 0; L < 32; ++L) {
      if (!((G >> L) & 1))
        continue;
      const Frags *F = reinterpret_cast<const Frags *>(WS.Values[L]);
      unsigned Gr = L >> 2, T = L & 3;
      for (unsigned I = 0; I < 8; ++I)
        Am[Gr + ((I & 2) ? 8 : 0)][2 * T + (I & 1) + (I >= 4 ? 8 : 0)] = toF(F->A[I]);
      for (unsigned I = 0; I < 4; ++I) {
        Bv[2 * T + (I & 1) + (I >= 2 ? 8 : 0)][Gr] = toF(F->B[I]);
        Cv[Gr + (I >= 2 ? 8 : 0)][2 * T + (I & 1)] = F->C[I];
      }
    }
    for (unsigned L = 0; L < 32; ++L) {
      if (!((G >> L) & 1))
        continue;
      const Frags *F = reinterpret_cast<const Frags *>(WS.Values[L]);
      unsigned Gr = L >> 2, T = L & 3;
      for (unsigned I = 0; I < 4; ++I) {
        unsigned Row = Gr + (I >= 2 ? 8 : 0), Col = 2 * T + (I & 1);
        float Acc = Cv[Row][Col];
        for (unsigned K = 0; K < 16; ++K)
          Acc = std::fma(Am[Row][K], Bv[K][Col], Acc);
        F->D[I] = Acc;
      }
    }
    return 0;
  });
}

/// ldmatrix.m8n8.b16 (layout: lowerLdmatrix). The first lane to resume reads
/// every lane's fragments, before any lane runs on: a lane that read its own
/// part alone and went on could store into the rows the others had still to
/// read (ggml's mma tiles reuse one shared buffer for A and B: rows 16-17 of
/// every 32-row block came out wrong).
void hostLdmatrix(ZludaThreadCtx *C, uint64_t Addr, uint32_t N, uint32_t Trans, uint32_t *Out) {
  struct Req {
    uint64_t Addr;
    uint32_t *Out;
  };
  Req Mine{Addr, Out};
  warpCollective(C, 0xffffffffu, reinterpret_cast<uint64_t>(&Mine), 0, [&](WarpState &WS, uint32_t G) {
    if (WS.Read & G)
      return 0; // an earlier reader filled every lane's fragments
    for (unsigned L = 0; L < 32; ++L) {
      if (!((G >> L) & 1))
        continue;
      uint32_t *O = reinterpret_cast<const Req *>(WS.Values[L])->Out;
      unsigned Row = L >> 2, Pair = L & 3;
      for (unsigned M = 0; M < N; ++M) {
        uint16_t H[2];
        for (unsigned J = 0; J < 2; ++J) {
          unsigned R = Trans ? 2 * Pair + J : Row, Col = Trans ? Row : 2 * Pair + J;
          unsigned Src = 8 * M + R;
          if (!((G >> Src) & 1))
            unwindKernel(SIGILL); // a lane that must give an address did not take part
          const uint8_t *RowAddr = reinterpret_cast<const uint8_t *>(reinterpret_cast<const Req *>(WS.Values[Src])->Addr);
          std::memcpy(&H[J], RowAddr + 2 * Col, 2);
        }
        O[M] = uint32_t(H[0]) | (uint32_t(H[1]) << 16);
      }
    }
    return 0;
  });
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

std::mutex PrintMu;
/// A string from device memory as printf and assert print it: read up to its
/// NUL or 64 KiB, never further; \p IfNull for a null pointer.
static std::string deviceString(const char *S, const char *IfNull) {
  constexpr size_t MaxDeviceString = 1 << 16;
  return S ? std::string(S, strnlen(S, MaxDeviceString)) : std::string(IfNull);
}

int32_t hostVprintf(ZludaThreadCtx *Thread, const char *DevFmt, const char *Args) {
  namespace pf = ptx::printf;
  if (!DevFmt)
    return -1;
  const std::string FmtText = deviceString(DevFmt, "");
  const char *Fmt = FmtText.c_str();
  // The argument buffer is read for at most pf::MaxArgs arguments, and never past the
  // end of the thread's stack (where local memory is) or of the block's
  // shared memory when it lies there: a format asking for more arguments than
  // were passed prints those conversions as text instead.
  size_t Limit = pf::MaxArgs * 8;
  auto within = [&](const char *Lo, const char *Hi) {
    if (Args && Lo && Args >= Lo && Args < Hi)
      Limit = std::min<size_t>(Limit, size_t(Hi - Args));
  };
  within(Thread->StackLo, Thread->StackHi);
  within(Thread->SharedBase, Thread->SharedBase + Thread->SharedBytes);
  std::string Out;
  unsigned Pos = 0, Done = 0, Off = 0, ArgsRead = 0;
  auto read = [&](unsigned Bytes, void *To) {
    unsigned At = pf::take(Off, Bytes);
    if (ArgsRead >= pf::MaxArgs || At + Bytes > Limit)
      return false;
    ++ArgsRead;
    std::memcpy(To, Args + At, Bytes);
    return true;
  };
  pf::Conversion C;
  while (pf::next(Fmt, Pos, C)) {
    Out.append(Fmt + Done, C.Start - Done);
    Done = C.End;
    if (C.Conv == '%') {
      Out += '%';
      continue;
    }
    // The spec without its length modifier; 8-byte integers get "ll".
    std::string Spec(Fmt + C.Start, C.LengthStart - C.Start);
    if (C.Kind == pf::Arg::None || !Args) {
      Out.append(Fmt + C.Start, C.End - C.Start);
      continue;
    }
    int Star[2] = {0, 0};
    bool Have = true;
    for (unsigned I = 0; I < C.Stars && I < 2; ++I)
      Have &= read(4, &Star[I]);
    // One conversion's text, whatever its length (a long %s, a wide field).
    std::string Buf;
    auto format = [&](auto V) {
      auto print = [&](char *To, size_t N) {
        if (C.Stars == 2)
          return std::snprintf(To, N, Spec.c_str(), Star[0], Star[1], V);
        if (C.Stars == 1)
          return std::snprintf(To, N, Spec.c_str(), Star[0], V);
        return std::snprintf(To, N, Spec.c_str(), V);
      };
      int Len = print(nullptr, 0);
      if (Len <= 0 || Len > (1 << 24)) { // an absurd width: print nothing rather than allocate it
        Buf.clear();
        return;
      }
      Buf.assign(size_t(Len) + 1, '\0');
      print(Buf.data(), Buf.size());
      Buf.resize(size_t(Len));
    };
    switch (C.Kind) {
    case pf::Arg::Int32: {
      int V;
      if (!(Have &= read(4, &V)))
        break;
      Spec += C.Conv;
      format(V);
      break;
    }
    case pf::Arg::Int64: {
      long long V;
      if (!(Have &= read(8, &V)))
        break;
      Spec += "ll";
      Spec += C.Conv;
      format(V);
      break;
    }
    case pf::Arg::Double: {
      double V;
      if (!(Have &= read(8, &V)))
        break;
      Spec += C.Conv;
      format(V);
      break;
    }
    case pf::Arg::String: {
      const char *V;
      if (!(Have &= read(8, &V)))
        break;
      Spec += 's';
      format(deviceString(V, "(null)").c_str());
      break;
    }
    default: {
      void *V;
      if (!(Have &= read(8, &V)))
        break;
      Spec += 'p';
      format(V);
      break;
    }
    }
    if (Have)
      Out += Buf;
    else // past the arguments that were passed
      Out.append(Fmt + C.Start, C.End - C.Start);
  }
  Out += Fmt + Done;
  std::lock_guard<std::mutex> G(PrintMu);
  std::fwrite(Out.data(), 1, Out.size(), stdout);
  std::fflush(stdout);
  return static_cast<int32_t>(Out.size());
}

void hostAssertfail(ZludaThreadCtx *C, const char *Msg, const char *File, uint32_t Line, const char *Func,
                    uint64_t) {
  {
    std::lock_guard<std::mutex> G(PrintMu);
    std::fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n",
                 deviceString(File, "?").c_str(), Line, deviceString(Func, "?").c_str(), C->CtaId[0], C->CtaId[1],
                 C->CtaId[2], C->Tid[0], C->Tid[1], C->Tid[2], deviceString(Msg, "?").c_str());
  }
  unwindKernel(JmpAssert);
}

void *hostMalloc(ZludaThreadCtx *, uint64_t Size) {
  void *P = std::malloc(Size ? Size : 1);
  memcheck::track(P, Size, "device-side malloc");
  return P;
}

// --- dynamic parallelism (cudaGetParameterBuffer[V2] / cudaLaunchDevice[V2]) ---

constexpr int32_t CudaErrorInvalidValue = 1, CudaErrorInvalidConfiguration = 9,
                  CudaErrorLaunchMaxDepthExceeded = 65, CudaErrorInvalidDeviceFunction = 98,
                  CudaErrorNotSupported = 801;
constexpr unsigned MaxLaunchDepth = 24; // CUDA's nesting limit

void readDim(const uint32_t *P, Dim3 &D) {
  if (P) {
    D.X = P[0];
    D.Y = P[1];
    D.Z = P[2];
  }
}

/// \p KernelRef points to the kernel's NUL-terminated name (how the compiler
/// spells a kernel's address); 0 when the launch names it later.
void *hostCdpBuffer(ZludaThreadCtx *C, uint64_t KernelRef, const uint32_t *Grid, const uint32_t *Block,
                    uint32_t Shared, uint64_t Size) {
  auto *Q = static_cast<DeviceLaunchQueue *>(C->DeviceLaunches);
  if (!Q)
    return nullptr;
  auto R = std::make_unique<DeviceLaunch>();
  if (KernelRef) {
    R->Kernel = reinterpret_cast<const char *>(KernelRef);
    long Bytes = Q->ParamBytes(R->Kernel);
    if (Bytes < 0)
      return nullptr;
    Size = std::max<uint64_t>(Size, static_cast<uint64_t>(Bytes));
  }
  readDim(Grid, R->Grid);
  readDim(Block, R->Block);
  R->Shared = Shared;
  R->ParamBytes = std::max<uint64_t>(Size, 8);
  R->Params.reset(new uint64_t[(R->ParamBytes + 7) / 8]());
  void *Buf = R->Params.get();
  memcheck::track(Buf, R->ParamBytes, "device-side launch's parameter buffer");
  std::lock_guard<std::mutex> G(Q->Mu);
  Q->Records.push_back(std::move(R));
  return Buf;
}

int32_t hostCdpLaunch(ZludaThreadCtx *C, void *Buf, uint64_t Stream, uint64_t KernelRef, const uint32_t *Grid,
                      const uint32_t *Block, uint32_t Shared) {
  auto *Q = static_cast<DeviceLaunchQueue *>(C->DeviceLaunches);
  if (!Q)
    return CudaErrorNotSupported;
  if (Q->Depth + 1 >= MaxLaunchDepth)
    return CudaErrorLaunchMaxDepthExceeded;
  std::lock_guard<std::mutex> G(Q->Mu);
  DeviceLaunch *R = nullptr;
  for (auto &X : Q->Records)
    if (X->Params.get() == Buf && !X->Launched)
      R = X.get();
  if (!R)
    return CudaErrorInvalidValue;
  if (KernelRef) {
    R->Kernel = reinterpret_cast<const char *>(KernelRef);
    if (Q->ParamBytes(R->Kernel) < 0)
      return CudaErrorInvalidDeviceFunction;
  }
  if (Grid) {
    readDim(Grid, R->Grid);
    readDim(Block, R->Block);
    R->Shared = Shared;
  }
  if (R->Kernel.empty())
    return CudaErrorInvalidDeviceFunction;
  if (R->Grid.count() == 0 || R->Block.count() == 0 || R->Block.count() > 1024 || R->Block.Z > 64)
    return CudaErrorInvalidConfiguration;
  R->Stream = Stream;
  R->Launched = true;
  (Stream == 3 ? Q->Tail : Q->Order).push_back(R); // 3: cudaStreamTailLaunch
  return 0;
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
void hostFree(ZludaThreadCtx *, void *P) {
  memcheck::untrack(P);
  std::free(P);
}

void hostMemcheck(ZludaThreadCtx *C, const char *P, uint64_t Bytes, uint32_t Access, uint32_t Line, const char *Fn) {
  if ((Access & ptx::MemcheckKindMask) == ptx::MemcheckSync) { // an mbarrier phase this thread waited for
    if (Bytes && C->Fiber)
      static_cast<Fiber *>(C->Fiber)->Race.Block++;
    return;
  }
  if (int E = memcheck::check(C, P, Bytes, Access, Line, Fn))
    unwindKernel(E == 2 ? JmpMemcheckMisaligned : JmpMemcheck);
  // Shared memory (through a .shared or a generic address): racecheck's record.
  uint64_t Off = static_cast<uint64_t>(P - C->SharedBase);
  if (racecheck::enabled() && P >= C->SharedBase && Off < C->SharedBytes &&
      (Access & ptx::MemcheckKindMask) != ptx::MemcheckAtomic) {
    static const racecheck::Epochs None; // threads run one after another: nothing orders them
    const racecheck::Epochs &E = C->Fiber ? static_cast<Fiber *>(C->Fiber)->Race : None;
    worker().Race.access(C, E, Off, Bytes, (Access & ptx::MemcheckKindMask) == ptx::MemcheckWrite, Line, Fn);
  }
}

uint64_t hostGlobaltimer(ZludaThreadCtx *) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

// Directed rounding: switch the FPU mode around one operation. The volatile
// keeps the compiler from folding or moving the operation across fesetround.
static int fenvMode(uint32_t Mode) {
  return Mode == 1 ? FE_TOWARDZERO : Mode == 2 ? FE_DOWNWARD : Mode == 3 ? FE_UPWARD : FE_TONEAREST;
}

} // extern "C"

template <typename T> static T fop(uint32_t Op, uint32_t Mode, T A, T B, T Cc) {
  int Old = std::fegetround();
  std::fesetround(fenvMode(Mode));
  volatile T VA = A, VB = B, VC = Cc;
  volatile T R;
  switch (Op) {
  case 0: R = VA + VB; break;
  case 1: R = VA - VB; break;
  case 2: R = VA * VB; break;
  case 3: R = VA / VB; break;
  case 4: R = std::fma(static_cast<T>(VA), static_cast<T>(VB), static_cast<T>(VC)); break;
  case 5: R = std::sqrt(static_cast<T>(VA)); break;
  default: R = T(1) / VA; break;
  }
  T Out = R;
  std::fesetround(Old);
  return Out;
}

extern "C" {

float __zluda_host_fop_f32(uint32_t Op, uint32_t Mode, float A, float B, float C) { return fop<float>(Op, Mode, A, B, C); }
double __zluda_host_fop_f64(uint32_t Op, uint32_t Mode, double A, double B, double C) {
  return fop<double>(Op, Mode, A, B, C);
}
float __zluda_host_i64_to_f32(uint64_t V, uint32_t Signed, uint32_t Mode) {
  int Old = std::fegetround();
  std::fesetround(fenvMode(Mode));
  volatile float R = Signed ? static_cast<float>(static_cast<int64_t>(V)) : static_cast<float>(V);
  float Out = R;
  std::fesetround(Old);
  return Out;
}
double __zluda_host_i64_to_f64(uint64_t V, uint32_t Signed, uint32_t Mode) {
  int Old = std::fegetround();
  std::fesetround(fenvMode(Mode));
  volatile double R = Signed ? static_cast<double>(static_cast<int64_t>(V)) : static_cast<double>(V);
  double Out = R;
  std::fesetround(Old);
  return Out;
}

/// The description behind a texture or surface handle; a handle the driver
/// does not know ends the kernel with an illegal address.
/// Each worker keeps the last few descriptions it resolved (a kernel samples
/// one texture millions of times; the driver's table is behind two locks),
/// dropped whenever a handle goes away (texturesChanged()).
static const TextureDesc &describe(uint64_t Handle) {
  struct Cache {
    uint64_t Generation = 0;
    uint64_t Handles[4] = {};
    TextureDesc Descs[4];
    unsigned Next = 0;
  };
  thread_local Cache TC;
  const uint64_t Gen = TextureGeneration.load(std::memory_order_acquire);
  if (TC.Generation != Gen) {
    TC = Cache();
    TC.Generation = Gen;
  }
  for (unsigned I = 0; I < 4; ++I)
    if (TC.Handles[I] == Handle && Handle)
      return TC.Descs[I];
  TextureDesc T;
  bool Ok;
  {
    std::lock_guard<std::mutex> G(TexMu);
    Ok = textureResolver() && textureResolver()(Handle, T);
  }
  if (!Ok || !T.Data)
    unwindKernel(SIGSEGV);
  unsigned Slot = TC.Next++ % 4;
  TC.Handles[Slot] = Handle;
  TC.Descs[Slot] = T;
  return TC.Descs[Slot];
}

// Textures: the driver's table gives the descriptor; sampling is shared with
// the AMDGPU runtime (ptx/codegen/TextureSampling.h).
void hostTexFetch(ZludaThreadCtx *, uint64_t Handle, uint32_t Geom, uint32_t C0, uint32_t C1, uint32_t C2,
                  uint32_t C3, uint32_t IntCoords, uint32_t *Out, uint32_t) {
  const uint32_t Raw[4] = {C0, C1, C2, C3};
  zluda::ptx::textureFetch(describe(Handle), Geom, Raw, IntCoords != 0, Out);
}

void hostTexSample(ZludaThreadCtx *, uint64_t Handle, uint32_t Geom, const uint32_t *Raw, uint32_t IntCoords,
                   uint32_t *Out, uint32_t Mode, const float *Extra) {
  zluda::ptx::textureSample(describe(Handle), Geom, Raw, IntCoords != 0, Mode, Extra, Out);
}

int32_t hostTexQuery(ZludaThreadCtx *, uint64_t Handle, uint32_t Query, uint32_t Level) {
  return zluda::ptx::textureQuery(describe(Handle), Query, Level);
}

void hostSurfLoad(ZludaThreadCtx *, uint64_t Handle, uint32_t Geom, const uint32_t *Raw, uint32_t Bytes, uint32_t Vec,
                  uint32_t Flags, unsigned char *Buf) {
  if (int E = zluda::ptx::surfaceLoad(describe(Handle), Geom, Raw, Bytes, Vec, Flags, Buf))
    unwindKernel(E == zluda::ptx::SurfaceMisaligned ? JmpMisaligned : SIGSEGV); // or .trap outside
}

void hostSurfStore(ZludaThreadCtx *, uint64_t Handle, uint32_t Geom, const uint32_t *Raw, uint32_t Bytes, uint32_t Vec,
                   uint32_t Flags, const unsigned char *Buf) {
  if (int E = zluda::ptx::surfaceStore(describe(Handle), Geom, Raw, Bytes, Vec, Flags, Buf))
    unwindKernel(E == zluda::ptx::SurfaceMisaligned ? JmpMisaligned : SIGSEGV);
}

} // extern "C"

const HostSymbol Symbols[] = {
    {"__zluda_ptx_barrier", reinterpret_cast<void *>(&hostBarrier)},
    {"__zluda_ptx_warp_sync", reinterpret_cast<void *>(&hostWarpSync)},
    {"__zluda_ptx_activemask", reinterpret_cast<void *>(&hostActivemask)},
    {"__zluda_ptx_shfl", reinterpret_cast<void *>(&hostShfl)},
    {"__zluda_ptx_vote", reinterpret_cast<void *>(&hostVote)},
    {"__zluda_ptx_match", reinterpret_cast<void *>(&hostMatch)},
    {"__zluda_ptx_redux", reinterpret_cast<void *>(&hostRedux)},
    {"__zluda_ptx_exit", reinterpret_cast<void *>(&hostExit)},
    {"__zluda_ptx_wmma", reinterpret_cast<void *>(&hostWmma)},
    {"__zluda_ptx_mma_m16n8k16", reinterpret_cast<void *>(&hostMmaM16n8k16)},
    {"__zluda_ptx_mma_generic", reinterpret_cast<void *>(&hostMmaGeneric)},
    {"__zluda_ptx_wgmma", reinterpret_cast<void *>(&hostWgmma)},
    {"__zluda_ptx_ldmatrix", reinterpret_cast<void *>(&hostLdmatrix)},
    {"__zluda_ptx_trap", reinterpret_cast<void *>(&hostTrap)},
    {"__zluda_ptx_nanosleep", reinterpret_cast<void *>(&hostNanosleep)},
    {"__zluda_ptx_vprintf", reinterpret_cast<void *>(&hostVprintf)},
    {"__zluda_ptx_assertfail", reinterpret_cast<void *>(&hostAssertfail)},
    {"__zluda_ptx_malloc", reinterpret_cast<void *>(&hostMalloc)},
    {"__zluda_ptx_free", reinterpret_cast<void *>(&hostFree)},
    {"__zluda_memcheck", reinterpret_cast<void *>(&hostMemcheck)},
    {"__zluda_ptx_cdp_buffer", reinterpret_cast<void *>(&hostCdpBuffer)},
    {"__zluda_ptx_cdp_launch", reinterpret_cast<void *>(&hostCdpLaunch)},
    {"__zluda_ptx_grid_sync", reinterpret_cast<void *>(&hostGridSync)},
    {"__zluda_ptx_cluster_barrier", reinterpret_cast<void *>(&hostClusterBarrier)},
    {"__zluda_ptx_tex_fetch", reinterpret_cast<void *>(&hostTexFetch)},
    {"__zluda_ptx_tex_sample", reinterpret_cast<void *>(&hostTexSample)},
    {"__zluda_ptx_tex_query", reinterpret_cast<void *>(&hostTexQuery)},
    {"__zluda_ptx_surf_load", reinterpret_cast<void *>(&hostSurfLoad)},
    {"__zluda_ptx_surf_store", reinterpret_cast<void *>(&hostSurfStore)},
    {"__zluda_ptx_sreg_globaltimer", reinterpret_cast<void *>(&hostGlobaltimer)},
    {"__zluda_host_fop_f32", reinterpret_cast<void *>(&__zluda_host_fop_f32)},
    {"__zluda_host_fop_f64", reinterpret_cast<void *>(&__zluda_host_fop_f64)},
    {"__zluda_host_i64_to_f32", reinterpret_cast<void *>(&__zluda_host_i64_to_f32)},
    {"__zluda_host_i64_to_f64", reinterpret_cast<void *>(&__zluda_host_i64_to_f64)},
};

} // namespace

DeviceLaunch::~DeviceLaunch() { memcheck::untrack(Params.get()); }

void texturesChanged() { TextureGeneration.fetch_add(1, std::memory_order_release); }

const HostSymbol *hostSymbols(size_t &Count) {
  Count = std::size(Symbols);
  return Symbols;
}

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

void Executor::setTextureResolver(TextureResolver R) {
  std::lock_guard<std::mutex> G(TexMu);
  textureResolver() = std::move(R);
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
