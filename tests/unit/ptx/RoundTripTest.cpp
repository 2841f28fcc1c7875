//===- RoundTripTest.cpp - parse -> print -> parse on hand-written PTX -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "TestUtil.h"
#include "ptx/Parser.h"
#include "ptx/Printer.h"

#include <gtest/gtest.h>

using namespace zluda::ptx;
namespace fs = std::filesystem;

namespace {

std::string archOf(const Module &M) {
  for (const std::string &T : M.Targets)
    if (T.rfind("sm_", 0) == 0)
      return T;
  return "sm_75";
}

/// Parses, prints, reparses; the IRs must be equal and ptxas must accept the
/// printed text (when the toolkit is installed).
void checkRoundTrip(const std::string &Name, const std::string &Text, bool RunPtxas) {
  ParseResult R = parse(Text);
  ASSERT_TRUE(R.ok()) << R.Error.format(Name);
  std::string Printed = print(*R.Mod);
  ParseResult R2 = parse(Printed);
  ASSERT_TRUE(R2.ok()) << R2.Error.format(Name + " (printed)") << "\n" << Printed;
  EXPECT_TRUE(*R.Mod == *R2.Mod) << Name << ": reparsed IR differs";
  // Printing is a fixed point after one round.
  EXPECT_EQ(print(*R2.Mod), Printed) << Name;
  if (RunPtxas && !zluda::test::ptxasPath().empty()) {
    std::string Err = zluda::test::runPtxas(Printed, archOf(*R.Mod));
    EXPECT_EQ(Err, "") << Name << ": ptxas rejected the printed PTX";
  }
}

TEST(RoundTrip, HandWrittenFiles) {
  fs::path Dir = fs::path(ZLUDA_SOURCE_DIR) / "tests/ptx/parser";
  size_t N = 0;
  for (const auto &E : fs::directory_iterator(Dir)) {
    if (E.path().extension() != ".ptx")
      continue;
    ++N;
    checkRoundTrip(E.path().filename(), zluda::test::readFile(E.path()), /*RunPtxas=*/true);
  }
  EXPECT_GE(N, 1u);
}

TEST(RoundTrip, OriginalHandWrittenFilesAreValidPtx) {
  // Guards the test data itself: if ptxas rejects an input, a round-trip
  // "pass" would mean nothing.
  if (zluda::test::ptxasPath().empty())
    GTEST_SKIP() << "ptxas not installed";
  fs::path Dir = fs::path(ZLUDA_SOURCE_DIR) / "tests/ptx/parser";
  for (const auto &E : fs::directory_iterator(Dir)) {
    if (E.path().extension() != ".ptx")
      continue;
    std::string Text = zluda::test::readFile(E.path());
    ParseResult R = parse(Text);
    ASSERT_TRUE(R.ok());
    EXPECT_EQ(zluda::test::runPtxas(Text, archOf(*R.Mod)), "") << E.path();
  }
}

TEST(RoundTrip, EveryInstructionSpellingPrintsBack) {
  for (size_t I = 0; I < static_cast<size_t>(Opcode::NumOpcodes); ++I) {
    auto Op = static_cast<Opcode>(I);
    auto Back = lookupOpcode(spelling(Op));
    ASSERT_TRUE(Back.has_value()) << spelling(Op);
    EXPECT_EQ(*Back, Op);
  }
}

} // namespace
