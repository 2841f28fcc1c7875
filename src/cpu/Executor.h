//===- Executor.h - runs a grid of CPU kernel threads -----------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The CPU device's executor: a pool of worker threads takes blocks in
/// order; how a block's threads run is a BlockStrategy (below): one after
/// another when the kernel never waits for other threads, else as fibers
/// switched at barriers and warp collectives (cooperative, one OS thread).
/// Faults inside a kernel become a launch error instead of killing the
/// process.
///
/// Threading: launch() may be called from any number of threads at once.
#ifndef ZLUDA_CPU_EXECUTOR_H
#define ZLUDA_CPU_EXECUTOR_H

#include "common/Dim3.h"
#include "cpu/DeviceAbi.h"
#include "cpu/Regions.h"
#include "ptx/codegen/TextureSampling.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace zluda::cpu {

using KernelFn = void (*)(ZludaThreadCtx *, void *Params);

using Dim3 = ::zluda::Dim3; // common/Dim3.h

/// A grid launched from device code (dynamic parallelism): what
/// cudaGetParameterBuffer[V2] prepared and cudaLaunchDevice[V2] launched.
struct DeviceLaunch {
  std::string Kernel;
  Dim3 Grid, Block;
  uint32_t Shared = 0;
  uint64_t Stream = 0;
  bool Launched = false;
  std::unique_ptr<uint64_t[]> Params; ///< 8-byte aligned parameter buffer
  size_t ParamBytes = 0;
  ~DeviceLaunch(); ///< the buffer leaves memcheck's allocations (Memcheck.h)
};

/// The device-side launches of one grid. Children run after their parent
/// grid has finished (CDP2: a parent cannot wait for them; tail launches run
/// after the other children), in the order they were launched.
struct DeviceLaunchQueue {
  /// A kernel's parameter-buffer size, or -1 when the module has no such kernel.
  std::function<long(const std::string &Kernel)> ParamBytes;
  unsigned Depth = 0; ///< nesting depth of the grid owning this queue (0: launched by the host)
  std::mutex Mu;
  std::vector<std::unique_ptr<DeviceLaunch>> Records; ///< in order of cudaGetParameterBuffer
  std::vector<DeviceLaunch *> Order, Tail;              ///< launched, in launch order
};

/// A kernel's work-item loops between waits (Regions.h), when it has them.
struct RegionCode {
  regions::Info Info{};
  std::vector<regions::LoopFn> Loops; ///< by resume point, for points < Info.Loops
  regions::AnyLoopFn AnyLoop = nullptr; ///< any point, threads in step or not
  const regions::Request *Requests = nullptr; ///< by resume point (Info.Points entries)
  const regions::UniformSlot *Uniforms = nullptr; ///< Info.Uniforms entries
};

struct LaunchParams {
  KernelFn Fn = nullptr;
  /// Optional: runs a whole block (threads in a compiled loop); used when
  /// the kernel's threads never wait for each other.
  KernelFn BlockFn = nullptr;
  bool NeedsSwitching = true;
  /// For kernels whose threads wait for each other: the same kernel cut at
  /// its waits (run by the "regions" strategy; null: fibers).
  const RegionCode *Regions = nullptr;
  Dim3 Grid, Block;
  uint32_t StaticShared = 0, DynShared = 0;
  void *Params = nullptr;
  /// All blocks run at once (one OS thread each), as cooperative launches and
  /// grid-wide barriers require.
  bool Cooperative = false;
  uint32_t EnvRegs[32] = {};
  /// Prefer this BlockStrategy by name where it can run the kernel (tests and
  /// benches; overrides ZLUDA_CPU_STRATEGY).
  const char *Strategy = nullptr;
  /// The kernel holds addresses in 32 bits (`.address_size 32`): its shared
  /// memory and thread stacks come from LowMemory (it runs as fibers).
  bool LowMemory = false;
  /// Where device-side launches of this grid are queued (null: they fail).
  DeviceLaunchQueue *DeviceLaunches = nullptr;
  /// The stream's priority (lower is more urgent): orders the worker pool's
  /// help between grids that run at once.
  int Priority = 0;
  /// Thread-block clusters: the blocks of a cluster run at once, one OS
  /// thread each (barrier.cluster, distributed shared memory).
  Dim3 Cluster;
  bool ClusterExplicit = false;
};

enum class LaunchError { None, IllegalAddress, Trap, Assert, Deadlock, OutOfResources, IllegalInstruction, MisalignedAddress };

struct LaunchResult {
  LaunchError Err = LaunchError::None;
  std::string Message;
};

/// A texture as the executor samples it (filled in by the driver; the same
/// description the AMDGPU runtime reads).
using TextureDesc = ptx::TextureDesc;

using TextureResolver = std::function<bool(uint64_t Handle, TextureDesc &Out)>;

/// A texture or surface handle went away: workers drop the descriptions
/// they keep (the resolver is asked again). Cheap; needs no executor.
void texturesChanged();

/// How the threads of one block run: the executor's replaceable part
/// (Executor.cpp). Strategies are tried most specific first and the first
/// that accepts a launch runs all its blocks: "loop" (no thread waits for
/// another, and the kernel has a compiled per-block loop), "sequential"
/// (no thread waits for another: one after the other), "regions" (threads
/// wait for each other: work-item loops between the waits, Regions.h),
/// "fibers" (any kernel: a fiber per thread, switched at barriers and
/// collectives).
class BlockStrategy;

class Executor {
public:
  static Executor &get();
  /// Runs the whole grid and returns when every block has finished.
  LaunchResult launch(const LaunchParams &P);
  /// The strategy a launch of \p P runs with (ZLUDA_CPU_STRATEGY prefers one
  /// by name where it can run the kernel).
  const BlockStrategy &strategyFor(const LaunchParams &P) const;
  const char *strategyName(const LaunchParams &P) const;
  unsigned workers() const { return NumWorkers; }
  void setTextureResolver(TextureResolver R);

private:
  Executor();
  unsigned NumWorkers;
};

/// Symbols the JIT binds in generated code: name -> host address.
struct HostSymbol {
  const char *Name;
  void *Addr;
};
const HostSymbol *hostSymbols(size_t &Count);

} // namespace zluda::cpu

#endif // ZLUDA_CPU_EXECUTOR_H
