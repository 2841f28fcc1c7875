//===- PrintfFormatTest.cpp - what printf conversions print as text ---------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Both targets print %n and conversions past CUDA's 32 arguments as
/// text: the CPU executor itself, the AMDGPU runtime by escaping them before
/// the HIP runtime's host-side printf sees the format. The escaped format,
/// given to the host's own snprintf, must print the same text.
#include "ptx/codegen/PrintfFormat.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace pf = zluda::ptx::printf;

namespace {

std::string escaped(const char *Fmt, unsigned Size = 512, unsigned Limit = pf::MaxArgs) {
  char Out[512];
  if (!pf::escapeTextConversions(Fmt, Out, Size, Limit))
    return "<too long>";
  return Out;
}

TEST(PrintfFormat, PercentNIsEscapedAndNothingElse) {
  EXPECT_FALSE(pf::hasTextConversions("plain %d %s %5.2f %% %lld %*d"));
  EXPECT_TRUE(pf::hasTextConversions("count %n"));
  EXPECT_EQ(escaped("a %d b %n c %5n %% %s"), "a %d b %%n c %%5n %% %s");
  char Buf[64];
  std::snprintf(Buf, sizeof Buf, escaped("x %d %n %s").c_str(), 7, "y");
  EXPECT_STREQ(Buf, "x 7 %n y");
}

TEST(PrintfFormat, ConversionsPastThirtyTwoArgumentsAreText) {
  std::string Fmt;
  for (int I = 0; I < 34; ++I)
    Fmt += " %d";
  ASSERT_TRUE(pf::hasTextConversions(Fmt.c_str()));
  std::string Want;
  for (int I = 0; I < 32; ++I)
    Want += " %d";
  EXPECT_EQ(escaped(Fmt.c_str()), Want + " %%d %%d");
  // A star counts as an argument: 31 values, then "%*d" needs two.
  std::string Star;
  for (int I = 0; I < 31; ++I)
    Star += "%d";
  EXPECT_EQ(escaped((Star + "%*d%d").c_str()), Star + "%%*d%%d");
}

TEST(PrintfFormat, NoArgumentBufferEscapesEveryConversion) {
  EXPECT_TRUE(pf::hasTextConversions("%d", 0));
  EXPECT_FALSE(pf::hasTextConversions("100%% text", 0));
  EXPECT_EQ(escaped("%d and %s, 100%%", 512, 0), "%%d and %%s, 100%%");
}

TEST(PrintfFormat, TooSmallABufferIsRefusedNotOverrun) {
  char Out[8];
  std::memset(Out, 'Z', sizeof Out);
  EXPECT_FALSE(pf::escapeTextConversions("%n%n%n%n", Out, 8));
  EXPECT_TRUE(pf::escapeTextConversions("%n%n", Out, 7));
  EXPECT_STREQ(Out, "%%n%%n");
  EXPECT_EQ(Out[7], 'Z');
  EXPECT_FALSE(pf::escapeTextConversions("x", Out, 0));
}

} // namespace
