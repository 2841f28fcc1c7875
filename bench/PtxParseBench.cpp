//===- PtxParseBench.cpp - PTX parse throughput beside ptxas ---------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Usage: ptx_parse_bench [FILE.ptx...]
/// Default input: the largest files of the nvcc corpus (thrust_cub). For each
/// file prints lex+parse MB/s, print MB/s (median of repeated runs over at
/// least 1 s) and the wall time of `ptxas -arch=<target>` on the same file.
#include "ptx/Parser.h"
#include "ptx/Printer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

using namespace zluda::ptx;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

static double medianSeconds(const std::function<void()> &F) {
  std::vector<double> T;
  auto Start = Clock::now();
  while (T.size() < 5 || std::chrono::duration<double>(Clock::now() - Start).count() < 1.0) {
    auto A = Clock::now();
    F();
    T.push_back(std::chrono::duration<double>(Clock::now() - A).count());
  }
  std::sort(T.begin(), T.end());
  return T[T.size() / 2];
}

int main(int Argc, char **Argv) {
  std::vector<std::string> Files(Argv + 1, Argv + Argc);
  if (Files.empty()) {
    std::string Dir = ZLUDA_PTX_CORPUS_DIR;
    for (const char *N : {"thrust_cub.compute_80.ptx", "thrust_cub.compute_90.ptx"})
      if (fs::exists(Dir + "/" + N))
        Files.push_back(Dir + "/" + N);
  }
  if (Files.empty()) {
    std::fputs("ptx_parse_bench: no input (build the nvcc corpus or pass files)\n", stderr);
    return 2;
  }
  std::printf("| file | size (KB) | instructions | parse (ms) | parse MB/s | print MB/s | ptxas (ms) | ptxas / parse |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const std::string &F : Files) {
    std::ifstream In(F, std::ios::binary);
    std::stringstream SS;
    SS << In.rdbuf();
    std::string Text = SS.str();
    ParseResult R = parse(Text);
    if (!R.ok()) {
      std::fprintf(stderr, "%s\n", R.Error.format(F).c_str());
      return 1;
    }
    size_t Insts = 0;
    for (const TopLevel &T : R.Mod->Items)
      for (const Statement &S : T.Func.Body)
        Insts += S.Kind == Statement::SK_Instruction;
    double Parse = medianSeconds([&] {
      ParseResult X = parse(Text);
      if (!X.ok())
        std::abort();
    });
    size_t PrintedBytes = 0;
    double Print = medianSeconds([&] { PrintedBytes = print(*R.Mod).size(); });
    double Ptxas = -1;
    std::string Ptxas_ = ZLUDA_PTXAS;
    if (!Ptxas_.empty() && fs::exists(Ptxas_)) {
      std::string Arch = R.Mod->Targets.empty() ? "sm_80" : R.Mod->Targets[0];
      std::string Cmd = Ptxas_ + " -arch=" + Arch + " " + F + " -o /dev/null";
      auto A = Clock::now();
      if (std::system(Cmd.c_str()) == 0)
        Ptxas = std::chrono::duration<double>(Clock::now() - A).count();
    }
    double MB = Text.size() / 1e6;
    std::printf("| %s | %.0f | %zu | %.2f | %.1f | %.1f | %.0f | %.0fx |\n",
                fs::path(F).filename().c_str(), Text.size() / 1024.0, Insts, Parse * 1e3, MB / Parse,
                PrintedBytes / 1e6 / Print, Ptxas * 1e3, Ptxas > 0 ? Ptxas / Parse : 0.0);
  }
  return 0;
}
