//===- Jit.h - PTX to host code through LLVM ORC ---------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Compiles a PTX module for the CPU device: parse, lower to LLVM IR,
/// link the CPU device runtime (bitcode), optimize at -O2 and JIT with ORC
/// LLJIT, through the persistent compile cache. The result owns the machine
/// code for as long as it lives.
#ifndef ZLUDA_CPU_JIT_H
#define ZLUDA_CPU_JIT_H

#include "cpu/Executor.h"
#include "ptx/codegen/Lowering.h"

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace zluda::cpu {

struct CpuKernel {
  ptx::KernelInfo Info;
  KernelFn Fn = nullptr;
  /// For kernels whose threads never wait for each other: runs every thread
  /// of one block in a loop inside compiled code (the kernel inlined), so
  /// there is no call per thread. Takes the block's context with Tid unset.
  KernelFn BlockFn = nullptr;
  /// For kernels whose threads wait for each other: work-item loops between
  /// the waits (Regions.h), or null when the kernel runs as fibers.
  std::unique_ptr<RegionCode> Regions;
};

struct CpuGlobal {
  ptx::GlobalInfo Info;
  void *Addr = nullptr;
};

class CpuModule {
public:
  ~CpuModule();
  /// A kernel's description; its code (Fn, BlockFn) is null until code()
  /// was called when the module was loaded lazily.
  const CpuKernel *kernel(std::string_view Name) const;
  /// The entry points of \p K, compiled on first use in a lazily loaded
  /// module (or taken from the compile cache). Thread-safe. Returns the
  /// compiler's message on failure.
  std::string code(const CpuKernel &K, KernelFn &Fn, KernelFn &BlockFn, const RegionCode **Regions = nullptr) const;
  bool lazy() const { return Lazy; }
  /// `.address_size 32`: its kernels must run with LaunchParams::LowMemory.
  bool addressSize32() const { return Addr32; }
  const CpuGlobal *global(std::string_view Name) const;
  const std::vector<CpuKernel> &kernels() const { return Kernels; }
  const std::vector<CpuGlobal> &globals() const { return Globals; }
  /// Functions that could not be compiled, with the reason (they trap if run).
  const std::vector<std::string> &failures() const { return Failures; }
  /// `zluda precompile`: compiles every kernel of a lazily loaded module that
  /// the compile cache lacks, on \p Threads threads, into the cache only
  /// (what code() would compile on first use; nothing is linked here).
  /// \p Compiled counts them. Returns "" or the compiler's message.
  std::string precompile(unsigned Threads, size_t &Compiled) const;
  /// Tiered compilation: whether \p K runs its optimized code (true when the
  /// module is not tiered); waitForTierUps() returns once no kernel is queued
  /// for or in its optimized compile.
  bool optimized(const CpuKernel &K) const;
  void waitForTierUps() const;

  struct State; ///< the JIT and lazy/tiered compilation state (Jit.cpp)

private:
  friend struct CpuCompiler;
  std::unique_ptr<State> S;
  bool Lazy = false;
  bool Addr32 = false;
  std::vector<CpuKernel> Kernels;
  std::vector<CpuGlobal> Globals;
  std::vector<std::string> Failures;
};

struct CompileOptions {
  unsigned OptLevel = 2;
  std::string DumpLLVM; ///< if set, write the optimized IR there (the cache is bypassed)
  bool UseCache = true;  ///< look up and store the result in the process's compile cache
  std::string *ObjectOut = nullptr; ///< if set, receives the module's object file (ELF)
  /// A compile that takes longer writes a progress line to stderr.
  unsigned ProgressAfterMs = 1000;
  /// Compile each kernel when code() first asks for it (CUDA_MODULE_LOADING=
  /// LAZY); module variables are ready at once. Ignored with DumpLLVM or
  /// ObjectOut, which need the whole module.
  bool Lazy = false;
  /// Threads that compile the units of an eager load (0: one per core).
  unsigned Jobs = 0;
  /// Tiered compilation of a lazy load at OptLevel 2: a kernel the compile
  /// cache does not hold optimized first runs code compiled at -O0; once
  /// launched TierUpLaunches times it is compiled at OptLevel in the
  /// background and the optimized code replaces it between launches (and
  /// goes to the cache). At exit a compile under way finishes, the queue is dropped.
  bool Tiered = false;
  unsigned TierUpLaunches = 1;
  /// With Tiered: only kernels whose unit (lowered, before optimization) has
  /// at least this many bytes of bitcode start at the first tier; the others
  /// are compiled at OptLevel on first use, as without Tiered. 0: every kernel.
  size_t TierAboveBytes = 0;
};

struct CompileResult {
  std::unique_ptr<CpuModule> Mod;
  std::string Error; ///< "ptx:line:col: error: ..." or a compiler message
  bool FromCache = false; ///< the machine code came from the compile cache
};

/// Thread-safe; compiles are independent.
CompileResult compilePtx(std::string_view Ptx, const CompileOptions &Opts = {});

/// The LLVM IR (after lowering, before optimization) of a PTX module, for
/// tools and tests.
std::string lowerPtxToText(std::string_view Ptx, std::string &Error);

} // namespace zluda::cpu

#endif // ZLUDA_CPU_JIT_H
