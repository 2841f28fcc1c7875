//===- ModuleLoadBench.cpp - cold and warm module compiles -----------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Usage: module_load_bench [FILE.ptx ...]
/// For each PTX module (default: the largest modules of the nvcc corpus),
/// times a cold compile for the CPU device (cache bypassed), a compile that
/// misses and stores into an empty cache, and a warm compile that hits it.
/// Each figure is the median of 3 runs. The cache lives in a temporary
/// directory that is removed afterwards.
#include "cache/CompileCache.h"
#include "cpu/Jit.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <vector>

using namespace zluda;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

std::string readFile(const std::string &P) {
  std::ifstream F(P, std::ios::binary);
  std::stringstream SS;
  SS << F.rdbuf();
  return SS.str();
}

double secondsOf(const std::string &Ptx, const cpu::CompileOptions &O, bool &FromCache) {
  auto A = Clock::now();
  cpu::CompileResult R = cpu::compilePtx(Ptx, O);
  double T = std::chrono::duration<double>(Clock::now() - A).count();
  if (!R.Mod) {
    std::fprintf(stderr, "compile failed: %s\n", R.Error.c_str());
    std::exit(1);
  }
  FromCache = R.FromCache;
  return T;
}

} // namespace

int main(int argc, char **argv) {
  fs::path Dir = fs::temp_directory_path() / ("zluda-load-bench-" + std::to_string(getpid()));
  setenv("ZLUDA_CACHE_DIR", Dir.c_str(), 1);
  setenv("ZLUDA_CACHE_SIZE_LIMIT", "0", 1);
  std::vector<std::string> Files;
  for (int I = 1; I < argc; ++I)
    Files.push_back(argv[I]);
  if (Files.empty())
    for (const char *N : {"thrust_cub.compute_75.ptx", "thrust_cub.lineinfo.ptx", "reduction.compute_80.ptx",
                          "vector_add.compute_75.ptx"})
      if (fs::exists(fs::path(ZLUDA_PTX_CORPUS_DIR) / N))
        Files.push_back((fs::path(ZLUDA_PTX_CORPUS_DIR) / N).string());
  std::printf("%-32s %9s %8s %10s %10s %10s %8s\n", "module", "PTX KiB", "kernels", "cold s", "store s", "warm s",
              "speedup");
  for (const std::string &F : Files) {
    std::string Ptx = readFile(F);
    size_t Kernels = 0;
    for (size_t P = Ptx.find(".entry"); P != std::string::npos; P = Ptx.find(".entry", P + 1))
      ++Kernels;
    cpu::CompileOptions NoCache;
    NoCache.UseCache = false;
    bool Hit = false;
    std::vector<double> Cold, Store, Warm;
    for (int I = 0; I < 3; ++I) {
      Cold.push_back(secondsOf(Ptx, NoCache, Hit));
      // A distinct text each round, so that this compile misses.
      std::string Fresh = Ptx + "\n// round " + std::to_string(I) + "\n";
      Store.push_back(secondsOf(Fresh, {}, Hit));
      if (Hit)
        return std::fprintf(stderr, "expected a miss\n"), 1;
      Warm.push_back(secondsOf(Fresh, {}, Hit));
      if (!Hit)
        return std::fprintf(stderr, "expected a hit (is the cache working?)\n"), 1;
    }
    for (auto *V : {&Cold, &Store, &Warm})
      std::sort(V->begin(), V->end());
    std::printf("%-32s %9.0f %8zu %10.3f %10.3f %10.4f %7.0fx\n", fs::path(F).filename().c_str(), Ptx.size() / 1024.0,
                Kernels, Cold[1], Store[1], Warm[1], Cold[1] / Warm[1]);
  }
  if (cache::Store *S = cache::processStore())
    std::printf("\ncache: %llu entries, %.1f MiB in %s\n", (unsigned long long)S->usage().Entries,
                S->usage().Bytes / 1048576.0, S->path().c_str());
  std::error_code EC;
  fs::remove_all(Dir, EC);
  return 0;
}
