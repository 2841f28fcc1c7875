//===- Harness.h - run PTX kernels on the CPU device in tests ---------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#ifndef ZLUDA_TESTS_CPU_HARNESS_H
#define ZLUDA_TESTS_CPU_HARNESS_H

#include "cpu/Jit.h"

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
};

/// Compiles \p Ptx (fails the test on a compile error) and keeps the module.
inline std::unique_ptr<cpu::CpuModule> compile(const std::string &Ptx) {
  cpu::CompileResult R = cpu::compilePtx(Ptx);
  EXPECT_TRUE(R.Mod) << R.Error;
  if (R.Mod)
    for (const std::string &F : R.Mod->failures())
      ADD_FAILURE() << "function failed to compile: " << F;
  return std::move(R.Mod);
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
  if (std::string E = M.code(*K, P.Fn, P.BlockFn); !E.empty()) {
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
