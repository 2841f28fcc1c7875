//===- CoreTest.cpp - integrity check, MD2/HMAC, fat binary parsing --------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "driver/Fatbin.h"
#include "driver/Integrity.h"

#include <cstring>
#include <gtest/gtest.h>
#include <lz4.h>
#include <random>
#include <zstd.h>

using namespace zluda::driver;

namespace {

std::string hex(const std::array<uint8_t, 16> &A) {
  static const char *D = "0123456789abcdef";
  std::string S;
  for (uint8_t B : A) {
    S += D[B >> 4];
    S += D[B & 15];
  }
  return S;
}

TEST(Md2, Rfc1319TestSuite) {
  // RFC 1319 appendix A.5.
  auto h = [](const char *S) { return hex(md2(reinterpret_cast<const uint8_t *>(S), std::strlen(S))); };
  EXPECT_EQ(h(""), "8350e5a3e24c153df2275c9f80692773");
  EXPECT_EQ(h("a"), "32ec01ec4a6dac72c0ab96fb34c0b5d1");
  EXPECT_EQ(h("abc"), "da853b0d3f88d99b30283a69e6ded6bb");
  EXPECT_EQ(h("message digest"), "ab4f496bfb2a530b219ff33031fe06b0");
  EXPECT_EQ(h("abcdefghijklmnopqrstuvwxyz"), "4e8ddff3650292ab5a4108c3aa47940b");
  EXPECT_EQ(h("12345678901234567890123456789012345678901234567890123456789012345678901234567890"),
            "d5976f79d83d3a0dc9806c3c66f3efd8");
}

TEST(Integrity, InteropTestVector) {
  // From shared/docs/CUDART-INTEROP.md.
  IntegrityInput In;
  In.DriverVersion = 12020;
  In.RuntimeVersion = 0x2B4A;
  In.Pid = 0x4D08;
  In.ThreadId = 0x2B78;
  In.Table6bd5 = 0x00007FF8C80717F0ull;
  In.TableD408 = 0x00007FF8C825E4B0ull;
  In.CheckFn = 0x00007FF8C7DD0AD0ull;
  In.UnixTime = 0x64A365EE;
  IntegrityDevice D{};
  const uint8_t Uuid[16] = {0x67, 0x22, 0xCB, 0xCF, 0xC6, 0x61, 0xF2, 0x92,
                            0x74, 0xD6, 0xED, 0x23, 0x2A, 0x32, 0x13, 0x1C};
  std::memcpy(D.Uuid, Uuid, 16);
  D.PciDomain = 0;
  D.PciBus = 4;
  D.PciDevice = 0;
  In.Devices.push_back(D);
  auto Out = integrityResult(In);
  std::array<uint8_t, 16> Reversed;
  for (int I = 0; I < 16; ++I)
    Reversed[I] = Out[15 - I];
  EXPECT_EQ(hex(Reversed), "eaf1313342bfcd84a7c34628f214707a");
}

TEST(Integrity, FixedAnswersForOldRuntimes) {
  IntegrityInput In{};
  In.RuntimeVersion = 13000;
  auto A = integrityResult(In);
  EXPECT_EQ(A[0], 0x5C);
  EXPECT_EQ(A[15], 0x8E);
  EXPECT_EQ(A[7], 0x33);
  In.RuntimeVersion = 13001;
  EXPECT_EQ(integrityResult(In)[7], 24);
}

/// Builds a container holding the given entries (kind, arch, flags, payload).
struct Entry {
  uint16_t Kind;
  uint32_t Arch;
  uint64_t Flags;
  std::string Data;
};

std::vector<uint8_t> makeFatbin(const std::vector<Entry> &Es) {
  std::vector<uint8_t> Body;
  for (const Entry &E : Es) {
    std::string Stored = E.Data;
    if (E.Flags & 0x8000) {
      Stored.resize(ZSTD_compressBound(E.Data.size()));
      Stored.resize(ZSTD_compress(Stored.data(), Stored.size(), E.Data.data(), E.Data.size(), 3));
    } else if (E.Flags & 0x2000) {
      Stored.resize(LZ4_compressBound(static_cast<int>(E.Data.size())));
      Stored.resize(LZ4_compress_default(E.Data.data(), Stored.data(), static_cast<int>(E.Data.size()),
                                         static_cast<int>(Stored.size())));
    }
    uint32_t Padded = static_cast<uint32_t>((Stored.size() + 7) / 8 * 8);
    uint8_t H[64] = {};
    auto put = [&](size_t Off, auto V) { std::memcpy(H + Off, &V, sizeof V); };
    put(0, E.Kind);
    put(2, uint16_t(0x0101));
    put(4, uint32_t(64));
    put(8, Padded);
    put(16, uint32_t(Stored.size()));
    put(24, uint32_t(0x00090000));
    put(28, E.Arch);
    put(40, E.Flags | 0x11);
    put(56, uint64_t(E.Data.size()));
    Body.insert(Body.end(), H, H + 64);
    Body.insert(Body.end(), Stored.begin(), Stored.end());
    Body.resize(Body.size() + (Padded - Stored.size()), 0);
  }
  std::vector<uint8_t> Out(16);
  uint32_t Magic = FatbinMagic;
  uint16_t Ver = 1, Hs = 16;
  uint64_t Size = Body.size();
  std::memcpy(Out.data(), &Magic, 4);
  std::memcpy(Out.data() + 4, &Ver, 2);
  std::memcpy(Out.data() + 6, &Hs, 2);
  std::memcpy(Out.data() + 8, &Size, 8);
  Out.insert(Out.end(), Body.begin(), Body.end());
  return Out;
}

TEST(Fatbin, PlainZstdAndLz4EntriesAndPtxChoice) {
  std::string Ptx75 = ".version 9.0\n.target sm_75\n" + std::string(3000, ' ') + "// seventy-five";
  std::string Ptx90 = ".version 9.0\n.target sm_90\n// ninety";
  std::string Ptx80 = ".version 9.0\n.target sm_80\n" + std::string(5000, 'x');
  auto F = makeFatbin({{2, 75, 0, std::string("\x7f" "ELF....", 8)},
                       {1, 75, 0x8000, Ptx75 + std::string(1, '\0')},
                       {1, 90, 0, Ptx90},
                       {1, 80, 0x2000, Ptx80}});
  FatbinResult R = parseFatbin(F.data(), F.size());
  ASSERT_TRUE(R.ok()) << R.Error;
  ASSERT_EQ(R.Entries.size(), 4u);
  EXPECT_EQ(R.Entries[1].Payload, Ptx75); // decompressed, trailing NUL dropped
  EXPECT_EQ(R.Entries[3].Payload, Ptx80);
  EXPECT_EQ(fatbinContainerSize(F.data()), F.size());
  EXPECT_EQ(choosePtx(R, 86)->SmArch, 80u);
  EXPECT_EQ(choosePtx(R, 75)->SmArch, 75u);
  EXPECT_EQ(choosePtx(R, 70)->SmArch, 75u); // nothing below: the lowest above
  // nvcc -arch=compute_90a embeds compute_90 PTX beside compute_90a's: the
  // architecture-specific one (a superset) is taken, in either order.
  std::string Ptx90a = ".version 8.3\n.target sm_90a\n// ninety-a";
  for (bool First : {true, false}) {
    auto Pair = First ? makeFatbin({{1, 90, 0, Ptx90a}, {1, 90, 0, Ptx90}}) : makeFatbin({{1, 90, 0, Ptx90}, {1, 90, 0, Ptx90a}});
    FatbinResult P = parseFatbin(Pair.data(), Pair.size());
    ASSERT_TRUE(P.ok());
    EXPECT_EQ(choosePtx(P, 90)->Payload, Ptx90a);
    EXPECT_EQ(choosePtx(P, 86)->Payload, Ptx90a); // the lowest above, too
  }
  auto SassOnly = makeFatbin({{2, 75, 0, "ELF"}});
  FatbinResult S = parseFatbin(SassOnly.data(), SassOnly.size());
  ASSERT_TRUE(S.ok());
  EXPECT_EQ(choosePtx(S, 86), nullptr);
}

TEST(Fatbin, MalformedInputFailsCleanly) {
  auto F = makeFatbin({{1, 75, 0x8000, std::string(2000, 'p')}, {1, 80, 0x2000, std::string(999, 'q')}});
  // Every truncation, and random corruption, is an error or a parse: never a crash.
  for (size_t N = 0; N < F.size(); N += 7)
    (void)parseFatbin(F.data(), N);
  std::mt19937 Rng(7);
  for (int Round = 0; Round < 2000; ++Round) {
    auto G = F;
    for (int K = 0; K < 4; ++K)
      G[Rng() % G.size()] ^= static_cast<uint8_t>(1 + Rng() % 255);
    (void)parseFatbin(G.data(), G.size());
  }
  EXPECT_FALSE(parseFatbin(F.data(), 10).ok());
  auto Bad = F;
  Bad[0] ^= 1;
  EXPECT_NE(parseFatbin(Bad.data(), Bad.size()).Error.find("bad magic"), std::string::npos);
  auto Huge = F;
  uint64_t Size = ~0ull;
  std::memcpy(Huge.data() + 8, &Size, 8);
  EXPECT_FALSE(parseFatbin(Huge.data(), Huge.size()).ok());
}

} // namespace
