//===- CorpusTest.cpp - every PTX nvcc emits for our CUDA programs ---------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The corpus is built by tests/cuda/CMakeLists.txt (nvcc -ptx for
/// compute_75/80/90, -lineinfo and -G variants). Each file must parse, round
/// trip to an equal IR, and the printed text must satisfy ptxas.
#include "TestUtil.h"
#include "ptx/Parser.h"
#include "ptx/Printer.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>

using namespace zluda::ptx;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> corpusFiles() {
  std::vector<fs::path> R;
  fs::path Dir = ZLUDA_PTX_CORPUS_DIR;
  if (!fs::is_directory(Dir))
    return R;
  for (const auto &E : fs::directory_iterator(Dir))
    if (E.path().extension() == ".ptx")
      R.push_back(E.path());
  std::sort(R.begin(), R.end());
  return R;
}

TEST(Corpus, NvccPtxParsesRoundTripsAndSatisfiesPtxas) {
  auto Files = corpusFiles();
  if (Files.empty())
    GTEST_SKIP() << "no nvcc corpus in " << ZLUDA_PTX_CORPUS_DIR << " (nvcc not installed?)";
  bool HavePtxas = !zluda::test::ptxasPath().empty();
  std::set<std::string> Archs;
  size_t Instructions = 0;
  for (const fs::path &P : Files) {
    SCOPED_TRACE(P.filename().string());
    std::string Text = zluda::test::readFile(P);
    ParseResult R = parse(Text);
    ASSERT_TRUE(R.ok()) << R.Error.format(P.string());
    for (const TopLevel &T : R.Mod->Items)
      if (T.Kind == TopLevel::TK_Function)
        for (const Statement &S : T.Func.Body)
          Instructions += S.Kind == Statement::SK_Instruction;
    std::string Printed = print(*R.Mod);
    ParseResult R2 = parse(Printed);
    ASSERT_TRUE(R2.ok()) << R2.Error.format(P.string() + " (printed)");
    EXPECT_TRUE(*R.Mod == *R2.Mod) << "round trip changed the IR";
    std::string Arch = R.Mod->Targets.empty() ? "sm_75" : R.Mod->Targets[0];
    Archs.insert(Arch);
    if (HavePtxas) {
      // rdc_* programs are relocatable device code (nvcc -rdc=true).
      bool Relocatable = P.filename().string().rfind("rdc_", 0) == 0;
      EXPECT_EQ(zluda::test::runPtxas(Printed, Arch, Relocatable), "");
    }
  }
  // The corpus must really cover the three virtual architectures.
  EXPECT_TRUE(Archs.count("sm_75") && Archs.count("sm_80") && Archs.count("sm_90"));
  EXPECT_GT(Instructions, 10000u);
}

} // namespace
