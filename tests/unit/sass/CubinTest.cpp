//===- CubinTest.cpp - the SASS front end's cubin reader --------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// Cubins made by this machine's ptxas from PTX whose parameters, launch
/// bounds and memory sizes are known, read back; malformed cubins refused.
#include "sass/Cubin.h"

#include "SassTestUtil.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

using namespace zluda;

namespace {

const char *Ptx = R"(.version 8.5
.target sm_XX
.address_size 64
.visible .entry k1(.param .u64 a, .param .u32 b, .param .u8 c, .param .align 16 .b8 d[24]) .reqntid 64, 2, 1
{
  ret;
}
.visible .entry k2(.param .u32 x) .maxntid 128, 1, 1
{
  .shared .align 4 .b32 s[10];
  .local .align 4 .b32 l[40];
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u32 %r0, [x];
  mov.u64 %rd0, l;
  cvta.local.u64 %rd0, %rd0;
  st.u32 [%rd0], %r0;
  st.shared.u32 [s+36], %r0;
  ld.volatile.u32 %r1, [%rd0+4];
  st.shared.u32 [s], %r1;
  ret;
}
)";

/// ptxas's cubin of Ptx for sm_<Arch>, or "" (skips) without ptxas.
std::string cubinFor(const std::string &Arch) { return test::ptxasCubin(Ptx, Arch); }

class CubinArch : public ::testing::TestWithParam<const char *> {};

TEST_P(CubinArch, ReadsWhatPtxSaid) {
  std::string C = cubinFor(GetParam());
  if (C.empty())
    GTEST_SKIP() << "no ptxas";
  ASSERT_TRUE(sass::isCubin(C));
  sass::Cubin Cu;
  std::string Err;
  ASSERT_TRUE(sass::parseCubin(C, Cu, Err)) << Err;
  EXPECT_EQ(Cu.Sm, static_cast<uint32_t>(std::atoi(GetParam())));
  const sass::Function *K1 = Cu.find("k1"), *K2 = Cu.find("k2");
  ASSERT_TRUE(K1 && K2);
  EXPECT_TRUE(K1->Entry);
  // Parameters: u64 at 0, u32 at 8, u8 at 12, 24 bytes aligned to 16 at 16.
  ASSERT_EQ(K1->Params.size(), 4u);
  const uint32_t Off[] = {0, 8, 12, 16}, Size[] = {8, 4, 1, 24};
  for (unsigned I = 0; I < 4; ++I) {
    EXPECT_EQ(K1->Params[I].Ordinal, I);
    EXPECT_EQ(K1->Params[I].Offset, Off[I]) << I;
    EXPECT_EQ(K1->Params[I].Size, Size[I]) << I;
  }
  EXPECT_EQ(K1->ParamBytes, 40u);
  // Bank 0 holds the parameters after the driver's own constants.
  EXPECT_EQ(K1->ParamBase, std::atoi(GetParam()) >= 90 ? 0x210u : 0x160u);
  EXPECT_EQ(K1->ReqNtid[0], 64u);
  EXPECT_EQ(K1->ReqNtid[1], 2u);
  EXPECT_EQ(K1->ReqNtid[2], 1u);
  EXPECT_EQ(K2->MaxNtid[0], 128u);
  // Hopper's shared window starts with 1 KiB the system reserves.
  EXPECT_EQ(K2->SharedBytes, std::atoi(GetParam()) >= 90 ? 40u + 1024u : 40u);
  EXPECT_GE(K2->FrameSize, 160u);
  EXPECT_GT(K2->Registers, 0u);
  EXPECT_FALSE(K2->Code.empty());
  EXPECT_EQ(K2->Code.size() % 16, 0u);
  EXPECT_FALSE(K2->ExitOffsets.empty());
  for (uint32_t E : K2->ExitOffsets)
    EXPECT_LT(E, K2->Code.size());
  EXPECT_GE(K2->Bank0.size(), K2->ParamBase + K2->ParamBytes);
}

INSTANTIATE_TEST_SUITE_P(Sass, CubinArch, ::testing::Values("75", "80", "86", "89", "90"));

TEST(Cubin, RefusesWhatIsNotACubin) {
  sass::Cubin Cu;
  std::string Err;
  EXPECT_FALSE(sass::parseCubin("", Cu, Err));
  EXPECT_FALSE(sass::parseCubin(".version 8.5\n.target sm_86\n", Cu, Err));
  EXPECT_NE(Err.find("not a cubin"), std::string::npos) << Err;
  std::string HostElf(64, '\0');
  HostElf.replace(0, 4, "\x7f" "ELF");
  HostElf[18] = 62; // x86-64
  EXPECT_FALSE(sass::isCubin(HostElf));
}

TEST(Cubin, MalformedCubinsGiveErrorsNotCrashes) {
  std::string C = cubinFor("86");
  if (C.empty())
    GTEST_SKIP() << "no ptxas";
  sass::Cubin Cu;
  std::string Err;
  // Cut short anywhere: an error (or, past the last section, still a cubin).
  for (size_t Len : {size_t(64), size_t(200), C.size() / 2, C.size() - 1}) {
    Err.clear();
    bool Ok = sass::parseCubin(std::string_view(C).substr(0, Len), Cu, Err);
    EXPECT_TRUE(Ok || !Err.empty()) << Len;
  }
  // Section headers pointed past the end.
  std::string Bad = C;
  uint64_t Far = C.size() + 4096;
  std::memcpy(Bad.data() + 0x28, &Far, 8);
  EXPECT_FALSE(sass::parseCubin(Bad, Cu, Err));
  EXPECT_NE(Err.find("section headers"), std::string::npos) << Err;
  // Random byte flips: never a crash (ASan runs catch reads out of bounds).
  std::mt19937 Rng(7);
  for (int I = 0; I < 2000; ++I) {
    std::string M = C;
    for (int K = 0; K < 8; ++K)
      M[Rng() % M.size()] = static_cast<char>(Rng());
    Err.clear();
    sass::parseCubin(M, Cu, Err);
  }
}

} // namespace
