//===- ModuleLoadBench.cpp - cold, warm, lazy and parallel module loads -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Usage: module_load_bench [--kernels N] [FILE.ptx ...]
/// For each PTX module (default: the largest modules of the nvcc corpus and a
/// generated module of N kernels, 2000 by default, and a generated kernel of
/// --huge N fast-math instructions, 40000 by default; 0 leaves either out)
/// times, for the CPU device:
///  - eager load, cold (cache bypassed), on 1 thread and on all cores;
///  - eager load, warm (every unit from the compile cache);
///  - lazy load, cold: the load itself, then the first launch's compile of
///    one kernel;
///  - lazy load + first kernel, warm.
/// Each figure is the median of 3 runs (1 run for modules of more than 500
/// kernels). The cache lives in a temporary directory removed afterwards.
/// --per-kernel: instead, for each module: its lazy load and every kernel's
/// cold compile at its first launch, one after another on one thread (the
/// slowest listed), and ptxas on the same file when the toolkit has one;
/// --tiers: each also at the tiered first tier; --only: the kernels whose
/// name contains TEXT.
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

/// One kernel of \p N fast-math instructions in straight-line blocks (a load,
/// a chain of .ftz arithmetic over many registers, a select, a store), as a
/// large generated or heavily inlined kernel makes.
std::string generatedHuge(int N) {
  std::string S = ".version 7.5\n.target sm_75\n.address_size 64\n"
                  ".visible .entry huge_kernel(.param .u64 data, .param .u32 n)\n{\n"
                  "  .reg .pred %p<4>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n  .reg .f32 %f<" +
                  std::to_string(N + 8) + ">;\n"
                  "  mov.u32 %r1, %ctaid.x;\n  mov.u32 %r2, %ntid.x;\n  mov.u32 %r3, %tid.x;\n"
                  "  mad.lo.s32 %r4, %r1, %r2, %r3;\n  ld.param.u32 %r5, [n];\n  setp.ge.u32 %p1, %r4, %r5;\n"
                  "  @%p1 bra $done;\n  ld.param.u64 %rd1, [data];\n  cvta.to.global.u64 %rd1, %rd1;\n"
                  "  mul.wide.u32 %rd2, %r4, 4;\n  add.s64 %rd3, %rd1, %rd2;\n  ld.global.f32 %f0, [%rd3];\n"
                  "  mov.f32 %f1, 0f3F800000;\n";
  const char *Ops[] = {"fma.rn.ftz.f32 %f{d}, %f{a}, %f{b}, 0f3E800000;", "mul.ftz.f32 %f{d}, %f{a}, %f{b};",
                       "add.ftz.f32 %f{d}, %f{a}, %f{b};", "sub.ftz.f32 %f{d}, %f{a}, 0f3F000000;",
                       "neg.ftz.f32 %f{d}, %f{a};", "abs.ftz.f32 %f{d}, %f{b};"};
  for (int I = 2; I < N + 2; ++I) {
    std::string Op = Ops[I % 6];
    auto put = [&](const std::string &Key, int V) {
      for (size_t P; (P = Op.find(Key)) != std::string::npos;)
        Op.replace(P, Key.size(), std::to_string(V));
    };
    put("{d}", I);
    put("{a}", I - 1);
    put("{b}", I / 2);
    S += "  " + Op + "\n";
    if (I % 64 == 0) // a data-dependent select every so often, and a store
      S += "  setp.gt.ftz.f32 %p2, %f" + std::to_string(I) + ", %f0;\n  selp.f32 %f" + std::to_string(I) + ", %f" +
           std::to_string(I) + ", %f0, %p2;\n  st.global.f32 [%rd3], %f" + std::to_string(I) + ";\n";
  }
  S += "  st.global.f32 [%rd3], %f" + std::to_string(N + 1) + ";\n$done:\n  ret;\n}\n";
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

std::string fmt(double S) {
  char B[32];
  std::snprintf(B, sizeof B, "%.3f", S);
  return B;
}

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return V[V.size() / 2];
}

/// ptxas on \p File (its .target), wall seconds; negative when there is none.
double ptxasSeconds(const std::string &File, const std::string &Ptx) {
  const char *Root = std::getenv("CUDA_ROOT");
  fs::path Ptxas = fs::path(Root ? Root : "/usr/local/cuda") / "bin" / "ptxas";
  if (!fs::exists(Ptxas))
    return -1;
  std::string Arch = "sm_75";
  if (size_t P = Ptx.find(".target sm_"); P != std::string::npos) {
    size_t E = Ptx.find_first_not_of("0123456789", P + 11);
    Arch = Ptx.substr(P + 8, E - (P + 8));
  }
  std::string Cmd = Ptxas.string() + " -arch=" + Arch + " '" + File + "' -o /dev/null";
  double T = 0;
  int Rc = 0;
  T = timed([&] { Rc = std::system(Cmd.c_str()); });
  return Rc == 0 ? T : -1;
}

/// --per-kernel: every kernel's cold first-launch compile, at -O2 and with
/// --tiers also at the tiered first tier (-O0); --first-tier: only there.
/// --no-ptxas leaves ptxas out (Cycles: 211 s).
int perKernel(const std::vector<std::string> &Files, bool Tiers, bool FirstOnly, bool NoPtxas,
              const std::string &Only) {
  for (const std::string &File : Files) {
    std::string Ptx = readFile(File);
    std::printf("%s: %.0f KiB of PTX\n", fs::path(File).filename().c_str(), Ptx.size() / 1024.0);
    std::fflush(stdout);
    double Ptxas = NoPtxas ? -1 : ptxasSeconds(File, Ptx);
    cpu::CompileOptions Lazy;
    Lazy.UseCache = false;
    Lazy.Lazy = true;
    Lazy.ProgressAfterMs = 1u << 30;
    struct Row {
      std::string Name;
      double O2 = 0, First = 0;
    };
    std::vector<Row> Rows;
    std::unique_ptr<cpu::CpuModule> M;
    double Load = timed([&] { M = load(Ptx, Lazy); });
    std::unique_ptr<cpu::CpuModule> M0;
    double Load0 = 0;
    if (Tiers) {
      cpu::CompileOptions L0 = Lazy;
      L0.OptLevel = 0;
      Load0 = timed([&] { M0 = load(Ptx, L0); });
    }
    for (size_t I = 0; I < M->kernels().size(); ++I) {
      Row R;
      R.Name = M->kernels()[I].Info.Name;
      if (R.Name.find(Only) == std::string::npos)
        continue;
      auto compile = [&](const cpu::CpuModule &Mod) {
        cpu::KernelFn Fn = nullptr, Block = nullptr;
        if (std::string E = Mod.code(Mod.kernels()[I], Fn, Block); !E.empty()) {
          std::fprintf(stderr, "kernel %s: %s\n", R.Name.c_str(), E.c_str());
          std::exit(1);
        }
      };
      if (!FirstOnly)
        R.O2 = timed([&] { compile(*M); });
      if (M0)
        R.First = timed([&] { compile(*M0); });
      Rows.push_back(R);
      std::fprintf(stderr, "  %zu/%zu %.3f s %.3f s %s\n", I + 1, M->kernels().size(), R.O2, R.First,
                   R.Name.substr(0, 60).c_str());
    }
    double Sum = 0, Sum0 = 0;
    for (const Row &R : Rows)
      Sum += R.O2, Sum0 += R.First;
    std::sort(Rows.begin(), Rows.end(), [](const Row &A, const Row &B) { return A.O2 + A.First > B.O2 + B.First; });
    std::printf("| | s |\n|---|---|\n");
    std::printf("| ptxas (whole module, one thread) | %s |\n", Ptxas < 0 ? "-" : fmt(Ptxas).c_str());
    std::printf("| lazy load (parse, lower) | %.3f |\n", Load);
    std::printf("| every kernel's first launch, -O2, one after another | %.3f |\n", Sum);
    if (Tiers)
      std::printf("| the same at the tiered first tier (-O0), load included | %.3f |\n", Load0 + Sum0);
    std::printf("| slowest kernel, -O2 | %.3f |\n", Rows.empty() ? 0.0 : Rows[0].O2);
    std::printf("\nslowest kernels (of %zu):\n\n| kernel | -O2 s |%s\n|---|---|%s\n", Rows.size(),
                Tiers ? " first tier s |" : "", Tiers ? "---|" : "");
    for (size_t I = 0; I < Rows.size() && I < 10; ++I) {
      std::string N = Rows[I].Name.size() > 60 ? Rows[I].Name.substr(0, 57) + "..." : Rows[I].Name;
      std::printf("| %s | %.3f |", N.c_str(), Rows[I].O2);
      if (Tiers)
        std::printf(" %.3f |", Rows[I].First);
      std::printf("\n");
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  fs::path Dir = fs::temp_directory_path() / ("zluda-load-bench-" + std::to_string(getpid()));
  setenv("ZLUDA_CACHE_DIR", Dir.c_str(), 1);
  setenv("ZLUDA_CACHE_SIZE_LIMIT", "0", 1);
  std::vector<std::pair<std::string, std::string>> Modules; // name, text
  int Generated = 2000, Huge = 40000;
  std::vector<std::string> Files;
  bool PerKernel = false, Tiers = false, FirstOnly = false, NoPtxas = false;
  std::string Only;
  for (int I = 1; I < argc; ++I) {
    if (std::string(argv[I]) == "--kernels" && I + 1 < argc)
      Generated = std::atoi(argv[++I]);
    else if (std::string(argv[I]) == "--huge" && I + 1 < argc)
      Huge = std::atoi(argv[++I]);
    else if (std::string(argv[I]) == "--per-kernel")
      PerKernel = true;
    else if (std::string(argv[I]) == "--tiers")
      Tiers = true;
    else if (std::string(argv[I]) == "--first-tier")
      Tiers = FirstOnly = true;
    else if (std::string(argv[I]) == "--no-ptxas")
      NoPtxas = true;
    else if (std::string(argv[I]) == "--only" && I + 1 < argc)
      Only = argv[++I];
    else
      Files.push_back(argv[I]);
  }
  if (PerKernel) {
    if (Files.empty())
      return std::fprintf(stderr, "--per-kernel: name the PTX files\n"), 2;
    int Rc = perKernel(Files, Tiers, FirstOnly, NoPtxas, Only);
    std::error_code EC;
    fs::remove_all(Dir, EC);
    return Rc;
  }
  if (Files.empty())
    for (const char *N : {"thrust_cub.compute_75.ptx", "reduction.compute_80.ptx", "vector_add.compute_75.ptx"})
      if (fs::exists(fs::path(ZLUDA_PTX_CORPUS_DIR) / N))
        Files.push_back((fs::path(ZLUDA_PTX_CORPUS_DIR) / N).string());
  for (const std::string &F : Files)
    Modules.emplace_back(fs::path(F).filename().string(), readFile(F));
  if (Generated > 0)
    Modules.emplace_back("generated-" + std::to_string(Generated) + "-kernels", generated(Generated));
  if (Huge > 0)
    Modules.emplace_back("generated-huge-kernel-" + std::to_string(Huge / 1000) + "k", generatedHuge(Huge));
  unsigned Cores = std::max(1u, std::thread::hardware_concurrency());
  std::printf("eager: whole module at load; lazy: load, then one kernel at its first launch; %u cores\n\n", Cores);
  std::printf("%-30s %7s %7s | %9s %9s %9s | %9s %9s %9s | %9s\n", "module", "PTX KiB", "kernels", "eager 1T",
              "eager all", "eager hit", "lazy load", "+1 kernel", "lazy hit", "ptxas");
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
    // ptxas on the same text, one run (the module written to the bench's directory).
    fs::create_directories(Dir);
    std::string File = (Dir / (Name + ".ptx")).string();
    std::ofstream(File) << Ptx;
    double Ptxas = ptxasSeconds(File, Ptx);
    std::printf("%-30s %7.0f %7zu | %9.3f %9.3f %9.4f | %9.3f %9.3f %9.4f | %9s\n", Name.c_str(), Ptx.size() / 1024.0,
                Kernels, median(E1), median(EAll), median(EHit), median(LLoad), median(LFirst), median(LHit),
                Ptxas < 0 ? "-" : fmt(Ptxas).c_str());
    std::fflush(stdout);
  }
  if (cache::Store *S = cache::processStore())
    std::printf("\ncache: %llu entries, %.1f MiB in %s\n", (unsigned long long)S->usage().Entries,
                S->usage().Bytes / 1048576.0, S->path().c_str());
  std::error_code EC;
  fs::remove_all(Dir, EC);
  return 0;
}
