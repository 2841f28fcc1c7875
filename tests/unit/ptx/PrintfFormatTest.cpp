//===- PrintfFormatTest.cpp - what printf conversions print as text ---------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Which conversions print as text (%n, those past CUDA's 32 arguments,
/// any without an argument buffer): the CPU executor prints them as written,
/// the AMDGPU runtime sends such a format to the HIP runtime as plain text.
#include "ptx/codegen/PrintfFormat.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace pf = zluda::ptx::printf;

namespace {

/// The conversions of \p Fmt that print as text, by their text.
std::string textConversions(const char *Fmt, unsigned Limit = pf::MaxArgs) {
  std::string Out;
  unsigned Pos = 0, Used = 0;
  pf::Conversion C;
  while (pf::next(Fmt, Pos, C))
    if (pf::printsAsText(C, Used, Limit))
      Out += std::string(Fmt + C.Start, C.End - C.Start) + "|";
  EXPECT_EQ(pf::hasTextConversions(Fmt, Limit), !Out.empty()) << Fmt;
  return Out;
}

TEST(PrintfFormat, PercentNPrintsAsTextAndNothingElse) {
  EXPECT_EQ(textConversions("plain %d %s %5.2f %% %lld %*d"), "");
  EXPECT_EQ(textConversions("a %d b %n c %5n %% %s"), "%n|%5n|");
}

TEST(PrintfFormat, ConversionsPastThirtyTwoArgumentsAreText) {
  std::string Fmt;
  for (int I = 0; I < 34; ++I)
    Fmt += " %d";
  EXPECT_EQ(textConversions(Fmt.c_str()), "%d|%d|");
  // A star counts as an argument: 31 values, then "%*d" needs two.
  std::string Star;
  for (int I = 0; I < 31; ++I)
    Star += "%d";
  EXPECT_EQ(textConversions((Star + "%*d%d").c_str()), "%*d|%d|");
}

TEST(PrintfFormat, NoArgumentBufferMakesEveryConversionText) {
  EXPECT_EQ(textConversions("%d and %s, 100%%", 0), "%d|%s|");
  EXPECT_EQ(textConversions("100%% text", 0), "");
}

} // namespace
