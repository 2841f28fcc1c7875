//===- AmdgpuBench.cpp - AMDGPU code objects: compile time and registers ----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Usage: amdgpu_bench
/// 1. Cold compile time (cache bypassed; parse, lower, retarget, link the
///    device runtime, COMGR: device libraries, link, codegen -O3, link) of a
///    one-kernel module, of bench/kernels.cu's module (4 kernels) and of the
///    largest module of the nvcc corpus (Thrust/CUB), per processor: median
///    of 3, and per kernel.
/// 2. For each kernel of bench/kernels.cu: SGPRs, VGPRs and instructions of
///    our code object beside clang's HIP compile of the same source
///    (bench/hip_prelude.h), from llvm-readelf --notes and llvm-objdump -d.
///    Debian's HIP 5.2 device libraries stop at gfx1036: no clang figures
///    for gfx1100 (-1).
#include "common/Files.h"
#include "amdgpu/CodeObject.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

using namespace zluda;
namespace fs = std::filesystem;

namespace {


struct Regs {
  int Sgpr = -1, Vgpr = -1, Insts = -1;
};

/// Per kernel name: register counts from the AMDHSA notes, instruction
/// counts from the disassembly.
std::map<std::string, Regs> inspect(const fs::path &Elf) {
  std::map<std::string, Regs> Out;
  std::istringstream Notes(commandOutput(std::string(ZLUDA_LLVM_READELF) + " --notes " + Elf.string()));
  std::string Line;
  Regs Cur;
  auto value = [](const std::string &L) { return std::atoi(L.substr(L.find(':') + 1).c_str()); };
  std::vector<std::pair<std::string, Regs>> Seen;
  int S = -1, V = -1;
  std::string Name;
  while (std::getline(Notes, Line)) {
    if (Line.rfind("  - ", 0) == 0 && !Name.empty()) {
      Out[Name] = Regs{S, V, -1};
      Name.clear();
    }
    if (Line.find("    .name:") == 0)
      Name = Line.substr(Line.find_first_not_of(' ', Line.find(':') + 1));
    else if (Line.find(".sgpr_count:") != std::string::npos)
      S = value(Line);
    else if (Line.find(".vgpr_count:") != std::string::npos)
      V = value(Line);
  }
  if (!Name.empty())
    Out[Name] = Regs{S, V, -1};
  std::istringstream Dis(commandOutput(std::string(ZLUDA_LLVM_OBJDUMP) + " -d --no-show-raw-insn " + Elf.string()));
  std::string Fn;
  while (std::getline(Dis, Line)) {
    size_t Lt = Line.find(" <"), Gt = Line.find(">:");
    if (Lt != std::string::npos && Gt != std::string::npos && Line[0] != '\t' && Line[0] != ' ') {
      Fn = Line.substr(Lt + 2, Gt - Lt - 2);
      if (Out.count(Fn))
        Out[Fn].Insts = 0;
      continue;
    }
    if (!Fn.empty() && Out.count(Fn) && Line.size() > 1 && (Line[0] == '\t' || Line[0] == ' ') &&
        Line.find("s_code_end") == std::string::npos)
      ++Out[Fn].Insts;
  }
  return Out;
}

double coldSeconds(const std::string &Ptx, const amdgpu::Target &T, size_t &Kernels) {
  std::vector<double> Times;
  amdgpu::CompileOptions O;
  O.UseCache = false;
  for (int I = 0; I < 3; ++I) {
    auto A = std::chrono::steady_clock::now();
    amdgpu::CodeObject R = amdgpu::compilePtx(Ptx, T, O);
    Times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - A).count());
    if (R.Elf.empty()) {
      std::fprintf(stderr, "compile failed: %s\n", R.Error.c_str());
      std::exit(1);
    }
    Kernels = R.Kernels.size();
  }
  std::sort(Times.begin(), Times.end());
  return Times[1];
}

} // namespace

int main() {
  fs::path Tmp = fs::temp_directory_path() / ("zluda-amdgpu-bench-" + std::to_string(getpid()));
  fs::create_directories(Tmp);
  const char *Procs[] = {"gfx90a", "gfx1030", "gfx1100"};
  std::vector<std::pair<std::string, std::string>> Modules = {
      {"vector_add (1 kernel)", readFile(fs::path(ZLUDA_PTX_CORPUS_DIR) / "vector_add.compute_75.ptx")},
      {"bench/kernels.cu", readFile(ZLUDA_BENCH_PTX)},
      {"thrust_cub (Thrust/CUB)", readFile(fs::path(ZLUDA_PTX_CORPUS_DIR) / "thrust_cub.compute_75.ptx")}};
  std::printf("Cold compile, median of 3 (s; per kernel in brackets)\n\n%-26s", "module");
  for (const char *P : Procs)
    std::printf(" %18s", P);
  std::printf("\n");
  for (auto &[Name, Ptx] : Modules) {
    std::printf("%-26s", Name.c_str());
    for (const char *P : Procs) {
      amdgpu::Target T;
      std::string Err;
      amdgpu::Target::parse(P, T, Err);
      size_t K = 0;
      double S = coldSeconds(Ptx, T, K);
      std::printf("  %7.3f [%7.4f]", S, S / std::max<size_t>(K, 1));
    }
    std::printf("\n");
    std::fflush(stdout);
  }

  std::printf("\nRegisters and instructions, ours (PTX from nvcc) vs clang's HIP compile of the same source\n\n");
  std::printf("%-8s %-10s | %5s %5s %6s | %5s %5s %6s\n", "target", "kernel", "SGPR", "VGPR", "insts", "SGPR", "VGPR",
              "insts");
  for (const char *P : Procs) {
    amdgpu::Target T;
    std::string Err;
    amdgpu::Target::parse(P, T, Err);
    amdgpu::CompileOptions O;
    O.UseCache = false;
    amdgpu::CodeObject R = amdgpu::compilePtx(readFile(ZLUDA_BENCH_PTX), T, O);
    fs::path Ours = Tmp / (std::string("ours-") + P);
    std::ofstream(Ours, std::ios::binary) << R.Elf;
    fs::path Theirs = Tmp / (std::string("clang-") + P);
    std::string Cmd = std::string(ZLUDA_HIP_CLANG) + " -x hip --cuda-device-only --no-gpu-bundle-output --offload-arch=" +
                      P + " -O3 -nogpuinc -D__HIP_PLATFORM_AMD__ -I" ZLUDA_HIP_INCLUDE_DIR
                      " --rocm-device-lib-path=" ZLUDA_DEVICE_LIB_DIR " -include " ZLUDA_HIP_PRELUDE " " ZLUDA_BENCH_CU
                      " -o " + Theirs.string() + " 2>&1";
    std::string Log = commandOutput(Cmd);
    std::map<std::string, Regs> A = inspect(Ours), B = fs::exists(Theirs) ? inspect(Theirs) : std::map<std::string, Regs>{};
    if (B.empty())
      std::fprintf(stderr, "(clang HIP compile for %s failed: %s)\n", P, Log.substr(0, Log.find('\n')).c_str());
    for (const char *K : {"vecAdd", "saxpy", "sgemm", "reduceSum"}) {
      Regs X = A.count(K) ? A[K] : Regs{}, Y = B.count(K) ? B[K] : Regs{};
      std::printf("%-8s %-10s | %5d %5d %6d | %5d %5d %6d\n", P, K, X.Sgpr, X.Vgpr, X.Insts, Y.Sgpr, Y.Vgpr, Y.Insts);
    }
  }
  std::error_code EC;
  fs::remove_all(Tmp, EC);
  return 0;
}
