//===- ModuleLoadBench.cpp - cold, warm, lazy and parallel module loads -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Usage: module_load_bench [--kernels N] [FILE.ptx ...]
/// For each PTX module (default: the largest modules of the nvcc corpus and a
/// generated module of N kernels, 2000 by default) times, for the CPU device:
///  - eager load, cold (cache bypassed), on 1 thread and on all cores;
///  - eager load, warm (every unit from the compile cache);
///  - lazy load, cold: the load itself, then the first launch's compile of
///    one kernel;
///  - lazy load + first kernel, warm.
/// Each figure is the median of 3 runs (1 run for modules of more than 500
/// kernels). The cache lives in a temporary directory removed afterwards.
#include "common/Files.h"
#include "cache/CompileCache.h"
#include "cpu/Jit.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace zluda;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

/// A module of many small, different kernels that share a device function,
/// a constant table and a module variable, as template-heavy libraries make.
std::string generated(int N) {
  std::string S = ".version 7.5\n.target sm_75\n.address_size 64\n"
                  ".visible .global .align 4 .u32 counter;\n"
                  ".const .align 4 .b32 table[4] = {3, 5, 7, 11};\n"
                  ".func (.param .b32 ret) mix(.param .b32 a)\n{\n  .reg .b32 %r<4>;\n"
                  "  ld.param.b32 %r1, [a];\n  shl.b32 %r2, %r1, 5;\n  xor.b32 %r3, %r2, %r1;\n"
                  "  st.param.b32 [ret], %r3;\n  ret;\n}\n";
  for (int I = 0; I < N; ++I) {
    std::string K = std::to_string(I);
    S += ".visible .entry gen_kernel_" + K +
         "(.param .u64 out, .param .u32 n)\n{\n  .reg .pred %p<2>;\n  .reg .b32 %r<12>;\n  .reg .b64 %rd<5>;\n"
         "  mov.u32 %r1, %ctaid.x;\n  mov.u32 %r2, %ntid.x;\n  mov.u32 %r3, %tid.x;\n"
         "  mad.lo.s32 %r4, %r1, %r2, %r3;\n  ld.param.u32 %r5, [n];\n  setp.ge.u32 %p1, %r4, %r5;\n"
         "  @%p1 bra $done;\n  and.b32 %r6, %r4, 3;\n  mul.wide.u32 %rd1, %r6, 4;\n  mov.u64 %rd2, table;\n"
         "  add.s64 %rd3, %rd2, %rd1;\n  ld.const.u32 %r7, [%rd3];\n  mad.lo.s32 %r8, %r4, " + std::to_string(I % 97 + 1) +
         ", %r7;\n  {\n  .param .b32 p;\n  .param .b32 q;\n  st.param.b32 [p], %r8;\n  call.uni (q), mix, (p);\n"
         "  ld.param.b32 %r9, [q];\n  }\n  ld.param.u64 %rd4, [out];\n  cvta.to.global.u64 %rd4, %rd4;\n"
         "  mul.wide.u32 %rd1, %r4, 4;\n  add.s64 %rd4, %rd4, %rd1;\n  st.global.u32 [%rd4], %r9;\n"
         "  atom.global.add.u32 %r10, [counter], 1;\n$done:\n  ret;\n}\n";
  }
  return S;
}

std::unique_ptr<cpu::CpuModule> load(const std::string &Ptx, const cpu::CompileOptions &O, bool *FromCache = nullptr) {
  cpu::CompileResult R = cpu::compilePtx(Ptx, O);
  if (!R.Mod) {
    std::fprintf(stderr, "compile failed: %s\n", R.Error.c_str());
    std::exit(1);
  }
  if (FromCache)
    *FromCache = R.FromCache;
  return std::move(R.Mod);
}

void firstKernel(const cpu::CpuModule &M) {
  cpu::KernelFn Fn = nullptr, Block = nullptr;
  if (M.kernels().empty())
    return;
  if (std::string E = M.code(M.kernels().front(), Fn, Block); !E.empty()) {
    std::fprintf(stderr, "kernel compile failed: %s\n", E.c_str());
    std::exit(1);
  }
}

double timed(const std::function<void()> &F) {
  auto A = Clock::now();
  F();
  return std::chrono::duration<double>(Clock::now() - A).count();
}

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return V[V.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  fs::path Dir = fs::temp_directory_path() / ("zluda-load-bench-" + std::to_string(getpid()));
  setenv("ZLUDA_CACHE_DIR", Dir.c_str(), 1);
  setenv("ZLUDA_CACHE_SIZE_LIMIT", "0", 1);
  std::vector<std::pair<std::string, std::string>> Modules; // name, text
  int Generated = 2000;
  std::vector<std::string> Files;
  for (int I = 1; I < argc; ++I) {
    if (std::string(argv[I]) == "--kernels" && I + 1 < argc)
      Generated = std::atoi(argv[++I]);
    else
      Files.push_back(argv[I]);
  }
  if (Files.empty())
    for (const char *N : {"thrust_cub.compute_75.ptx", "reduction.compute_80.ptx", "vector_add.compute_75.ptx"})
      if (fs::exists(fs::path(ZLUDA_PTX_CORPUS_DIR) / N))
        Files.push_back((fs::path(ZLUDA_PTX_CORPUS_DIR) / N).string());
  for (const std::string &F : Files)
    Modules.emplace_back(fs::path(F).filename().string(), readFile(F));
  if (Generated > 0)
    Modules.emplace_back("generated-" + std::to_string(Generated) + "-kernels", generated(Generated));
  unsigned Cores = std::max(1u, std::thread::hardware_concurrency());
  std::printf("eager: whole module at load; lazy: load, then one kernel at its first launch; %u cores\n\n", Cores);
  std::printf("%-30s %7s %7s | %9s %9s %9s | %9s %9s %9s\n", "module", "PTX KiB", "kernels", "eager 1T", "eager all",
              "eager hit", "lazy load", "+1 kernel", "lazy hit");
  for (auto &[Name, Ptx] : Modules) {
    size_t Kernels = 0;
    for (size_t P = Ptx.find(".entry"); P != std::string::npos; P = Ptx.find(".entry", P + 1))
      ++Kernels;
    int Runs = Kernels > 500 ? 1 : 3;
    std::vector<double> E1, EAll, EHit, LLoad, LFirst, LHit;
    for (int I = 0; I < Runs; ++I) {
      cpu::CompileOptions Cold;
      Cold.UseCache = false;
      Cold.ProgressAfterMs = 1u << 30;
      cpu::CompileOptions One = Cold;
      One.Jobs = 1;
      E1.push_back(timed([&] { load(Ptx, One); }));
      EAll.push_back(timed([&] { load(Ptx, Cold); }));
      cpu::CompileOptions Lazy = Cold;
      Lazy.Lazy = true;
      std::unique_ptr<cpu::CpuModule> M;
      LLoad.push_back(timed([&] { M = load(Ptx, Lazy); }));
      LFirst.push_back(timed([&] { firstKernel(*M); }));
      // Warm figures: a distinct text each round, stored once, then loaded.
      std::string Fresh = Ptx + "\n// round " + std::to_string(I) + "\n";
      cpu::CompileOptions Cached;
      Cached.ProgressAfterMs = 1u << 30;
      load(Fresh, Cached);
      bool Hit = false;
      EHit.push_back(timed([&] { load(Fresh, Cached, &Hit); }));
      if (!Hit)
        return std::fprintf(stderr, "expected a hit (is the cache working?)\n"), 1;
      cpu::CompileOptions CachedLazy = Cached;
      CachedLazy.Lazy = true;
      firstKernel(*load(Fresh, CachedLazy)); // stores the first kernel's unit
      LHit.push_back(timed([&] { firstKernel(*load(Fresh, CachedLazy)); }));
    }
    std::printf("%-30s %7.0f %7zu | %9.3f %9.3f %9.4f | %9.3f %9.3f %9.4f\n", Name.c_str(), Ptx.size() / 1024.0,
                Kernels, median(E1), median(EAll), median(EHit), median(LLoad), median(LFirst), median(LHit));
    std::fflush(stdout);
  }
  if (cache::Store *S = cache::processStore())
    std::printf("\ncache: %llu entries, %.1f MiB in %s\n", (unsigned long long)S->usage().Entries,
                S->usage().Bytes / 1048576.0, S->path().c_str());
  std::error_code EC;
  fs::remove_all(Dir, EC);
  return 0;
}
