//===- Harness.h - run PTX kernels on the CPU device in tests ---------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#ifndef ZLUDA_TESTS_CPU_HARNESS_H
#define ZLUDA_TESTS_CPU_HARNESS_H

#include "cpu/Jit.h"
#ifdef ZLUDA_TEST_AMDGPU
#include "amdgpu/CodeObject.h"
#endif

#include <cstdlib>
#include <cstring>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace zluda::test {

/// One kernel argument: its bytes as the kernel's .param sees them.
struct Arg {
  std::vector<uint8_t> Bytes;
  template <typename T> static Arg of(T V) {
    Arg A;
    A.Bytes.resize(sizeof(T));
    std::memcpy(A.Bytes.data(), &V, sizeof(T));
    return A;
  }
  static Arg ptr(const void *P) { return of(reinterpret_cast<uint64_t>(P)); }
};

struct Launch {
  cpu::Dim3 Grid, Block;
  uint32_t DynShared = 0;
  bool Cooperative = false;
  const char *Strategy = nullptr; ///< prefer this block strategy (Executor.h)
};

#ifdef ZLUDA_TEST_AMDGPU
/// With ZLUDA_TEST_AMDGPU=1 (ctest's cpu_device_tests.amdgpu), every kernel
/// of the execution suite must also compile to code objects for a 64-lane
/// and two 32-lane processors, with the same kernels.
inline void alsoForAmdgpu(const std::string &Ptx, size_t Kernels) {
  const char *E = std::getenv("ZLUDA_TEST_AMDGPU");
  if (!E || std::string(E) != "1")
    return;
  for (const char *P : {"gfx90a", "gfx1030", "gfx1100"}) {
    amdgpu::Target T;
    std::string Err;
    ASSERT_TRUE(amdgpu::Target::parse(P, T, Err)) << Err;
    amdgpu::CompileOptions O;
    O.UseCache = false;
    amdgpu::CodeObject R = amdgpu::compilePtx(Ptx, T, O);
    if (Ptx.find(".address_size 32") != std::string::npos) { // CPU device only, refused by name
      EXPECT_NE(R.Error.find(".address_size 32"), std::string::npos) << P << ": " << R.Error;
      continue;
    }
    EXPECT_FALSE(R.Elf.empty()) << P << ": " << R.Error;
    EXPECT_EQ(R.Kernels.size(), Kernels) << P;
  }
}
#endif

/// The optimization level compile() uses (2; 0 for the tiered first tier's code).
inline unsigned &testOptLevel() {
  static unsigned L = 2;
  return L;
}
struct ScopedOptLevel {
  unsigned Old;
  explicit ScopedOptLevel(unsigned L) : Old(testOptLevel()) { testOptLevel() = L; }
  ~ScopedOptLevel() { testOptLevel() = Old; }
};

/// Compiles \p Ptx (fails the test on a compile error) and keeps the module.
inline std::unique_ptr<cpu::CpuModule> compile(const std::string &Ptx) {
  cpu::CompileOptions O;
  O.OptLevel = testOptLevel();
  cpu::CompileResult R = cpu::compilePtx(Ptx, O);
#ifdef ZLUDA_TEST_AMDGPU
  if (R.Mod)
    alsoForAmdgpu(Ptx, R.Mod->kernels().size());
#endif
  EXPECT_TRUE(R.Mod) << R.Error;
  if (R.Mod)
    for (const std::string &F : R.Mod->failures())
      ADD_FAILURE() << "function failed to compile: " << F;
  return std::move(R.Mod);
}

/// What compiling \p Ptx refuses: the module's error and each function's failure, as one string.
inline std::string refusals(const std::string &Ptx) {
  cpu::CompileResult R = cpu::compilePtx(Ptx);
  std::string Why = R.Error;
  if (R.Mod)
    for (const std::string &F : R.Mod->failures())
      Why += F;
  return Why;
}

/// The block strategy the last run() used.
inline std::string &LastStrategy() {
  static std::string S;
  return S;
}

inline cpu::LaunchResult run(const cpu::CpuModule &M, const std::string &Kernel, const Launch &L,
                             const std::vector<Arg> &Args) {
  const cpu::CpuKernel *K = M.kernel(Kernel);
  if (!K) {
    ADD_FAILURE() << "no kernel " << Kernel;
    return {cpu::LaunchError::IllegalInstruction, "no kernel"};
  }
  std::vector<uint8_t> Buf(std::max<uint32_t>(K->Info.ParamBufferSize, 8));
  EXPECT_EQ(Args.size(), K->Info.Params.size());
  for (size_t I = 0; I < Args.size() && I < K->Info.Params.size(); ++I) {
    EXPECT_EQ(Args[I].Bytes.size(), K->Info.Params[I].Size) << "argument " << I;
    std::memcpy(Buf.data() + K->Info.Params[I].Offset, Args[I].Bytes.data(),
                std::min<size_t>(Args[I].Bytes.size(), K->Info.Params[I].Size));
  }
  cpu::LaunchParams P;
  if (std::string E = M.code(*K, P.Fn, P.BlockFn, &P.Regions); !E.empty()) {
    ADD_FAILURE() << "kernel " << Kernel << " does not compile: " << E;
    return {cpu::LaunchError::IllegalInstruction, E};
  }
  P.NeedsSwitching = K->Info.NeedsThreadSwitching;
  P.Grid = L.Grid;
  P.Block = L.Block;
  P.StaticShared = K->Info.StaticSharedBytes;
  P.DynShared = L.DynShared;
  P.Params = Buf.data();
  P.Cooperative = L.Cooperative;
  P.Strategy = L.Strategy;
  P.LowMemory = M.addressSize32();
  LastStrategy() = cpu::Executor::get().strategyName(P);
  return cpu::Executor::get().launch(P);
}

/// Compiles and runs in one go, expecting success.
inline void runOk(const std::string &Ptx, const std::string &Kernel, const Launch &L, const std::vector<Arg> &Args) {
  auto M = compile(Ptx);
  if (!M)
    return;
  cpu::LaunchResult R = run(*M, Kernel, L, Args);
  EXPECT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
}

} // namespace zluda::test

#endif
