//===- ListingTest.cpp - the decoder against nvdisasm's listings ----------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// nvdisasm's listings of the golden kernels and of tests/cuda's programs
/// (recorded on the device machine by tests/probes/sass-record.sh, checked in
/// as tests/sass/data/*.tar.xz) are the oracle for the decoder: every
/// instruction whose opcode the decoder knows must carry the same name there
/// (an opcode read as another instruction would be lifted with the wrong
/// meaning), and the share of instructions it knows is reported.
#include "sass/Decode.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace zluda;

namespace {

/// Our opcode's name as nvdisasm spells the instruction's base mnemonic.
std::string baseName(const sass::Inst &I, uint32_t Sm) {
  std::string N = sass::opName(I.O);
  if (N == "RED" && Sm >= 90)
    return "REDG"; // Hopper's name for the same global reduction
  if (I.Generic)
    return "ATOM"; // ATOMG.CAS's fields on a generic address
  if (N == "IMNMX" && I.W.bits(0, 9) == 0x048)
    return "VIMNMX"; // Hopper's IMNMX
  if (size_t U = N.find('_'); U != std::string::npos)
    N = N.substr(0, U); // IMAD_WIDE, ATOMG_CAS, SHFL_IC, HFMA2_MMA, BMOV_R ...
  for (const char *Wide : {"F2F64", "F2I64", "I2F64", "FRND64"})
    if (N == Wide)
      N = N.substr(0, N.size() - 2);
  return (I.Uniform ? "U" : "") + N;
}

/// The listings of one archive, unpacked into a fresh folder.
fs::path unpack(const std::string &Archive) {
  fs::path Dir = fs::temp_directory_path() / ("zluda-listings-" + std::to_string(getpid()) + "-" +
                                              fs::path(Archive).stem().stem().string());
  fs::create_directories(Dir);
  std::string Cmd = "tar -C '" + Dir.string() + "' -xJf '" + Archive + "'";
  if (std::system(Cmd.c_str()) != 0)
    return {};
  return Dir;
}

void checkArchive(const std::string &Archive, size_t MinInstructions) {
  fs::path Dir = unpack(Archive);
  if (Dir.empty())
    GTEST_SKIP() << "cannot unpack " << Archive << " (tar with xz)";
  // "/*0040*/  @!P0 ISETP.GE.AND P0, ... ;  /* 0x<lo> */" then "/* 0x<hi> */" on the next line.
  std::regex First(
      R"(/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P[T0-9]\s+)?([A-Z0-9_]+)([^ ;]*)\s*([^ ,;]*)[^;]*;\s*/\* 0x([0-9a-f]{16}) \*/)");
  std::regex Dest(R"(^(U?)R([0-9]+|Z)$)");
  std::regex Second(R"(^\s*/\* 0x([0-9a-f]{16}) \*/)");
  std::regex Arch(R"(\.sm_([0-9]+)a?\.sass$)");
  size_t Total = 0, Known = 0, Wrong = 0, Dests = 0, Orders = 0;
  std::map<std::string, size_t> Mismatches;
  for (const auto &E : fs::directory_iterator(Dir)) {
    std::smatch AM;
    std::string Name = E.path().filename().string();
    if (!std::regex_search(Name, AM, Arch))
      continue;
    uint32_t Sm = static_cast<uint32_t>(std::stoul(AM[1]));
    std::ifstream In(E.path());
    std::string Line, Next;
    while (std::getline(In, Line)) {
      std::smatch M;
      if (!std::regex_search(Line, M, First))
        continue;
      std::string Mnemonic = M[2], FirstOperand = M[4], LoHex = M[5];
      if (!std::getline(In, Next))
        break;
      std::smatch H;
      if (!std::regex_search(Next, H, Second))
        continue;
      uint64_t Lo = std::stoull(LoHex, nullptr, 16), Hi = std::stoull(H[1].str(), nullptr, 16);
      std::string Code(16, '\0');
      std::memcpy(Code.data(), &Lo, 8);
      std::memcpy(Code.data() + 8, &Hi, 8);
      sass::Inst I = sass::decode(Sm, Code, 0);
      ++Total;
      if (I.O == sass::Op::Unknown)
        continue;
      ++Known;
      std::string Ours = baseName(I, Sm);
      if (Ours != Mnemonic) {
        ++Wrong;
        ++Mismatches["sm_" + std::to_string(Sm) + " " + Ours + " listed as " + Mnemonic];
        continue;
      }
      // BRA.DIV and BRA.CONV: taken when the warp is diverged, converged.
      if (Mnemonic == "BRA") {
        const std::string Mods = M[3];
        bool Div = Mods.find(".DIV") != std::string::npos, Conv = Mods.find(".CONV") != std::string::npos;
        if (I.Div != (Div || Conv) || I.Conv != Conv) {
          ++Wrong;
          ++Mismatches["sm_" + std::to_string(Sm) + " BRA" + Mods + ": read as " +
                       (I.Conv ? "CONV" : I.Div ? "DIV" : "plain")];
        }
      }
      // The memory order of global and generic loads and stores: a strong
      // access lifted as a plain one may be hoisted out of a spin loop.
      if (Mnemonic == "LDG" || Mnemonic == "STG" || Mnemonic == "LD" || Mnemonic == "ST") {
        const std::string Mods = M[3];
        auto Has = [&](const char *X) { return Mods.find(X) != std::string::npos; };
        uint8_t Want = Has(".STRONG.SYS") ? 3 : Has(".STRONG.GPU") ? 2 : Has(".STRONG.") ? 1 : 0;
        ++Orders;
        if (I.Strong != Want) {
          ++Wrong;
          ++Mismatches["sm_" + std::to_string(Sm) + " " + Mnemonic + Mods + ": memory order " +
                       std::to_string(I.Strong) + ", listed as " + std::to_string(Want)];
        }
      }
      // The destination register, where the listing's first operand is one
      // and the instruction writes it (stores and barriers name no result).
      std::smatch D;
      static const char *NoResult[] = {"STG", "STS", "STL", "ST", "RED", "REDG", "BAR", "MEMBAR", "CCTL", "BREAK",
                                       "BSSY", "BSYNC", "BRA", "CALL", "RET", "EXIT", "WARPSYNC", "NANOSLEEP",
                                       "BPT", "YIELD", "NOP", "BRX", "BRXU"};
      bool Writes = std::find(std::begin(NoResult), std::end(NoResult), Mnemonic) == std::end(NoResult);
      if (Writes && std::regex_match(FirstOperand, D, Dest)) {
        bool UniformReg = !D[1].str().empty();
        uint32_t Want = D[2] == "Z" ? (UniformReg ? sass::URZ : sass::RZ) : static_cast<uint32_t>(std::stoul(D[2]));
        ++Dests;
        // Texture instructions list their second destination (bits 64-71) first.
        static const char *Tex[] = {"TEX", "TLD", "TLD4", "TXD", "TXQ"};
        bool Second = std::find(std::begin(Tex), std::end(Tex), Mnemonic) != std::end(Tex);
        uint32_t Got = Second ? I.Rd2 : I.Rd;
        if (Got != Want) {
          ++Wrong;
          ++Mismatches["sm_" + std::to_string(Sm) + " " + Ours + ": destination " + std::to_string(Got) +
                       ", listed as " + FirstOperand];
        }
      }
    }
  }
  fs::remove_all(Dir);
  for (const auto &[What, N] : Mismatches)
    ADD_FAILURE() << What << " (" << N << " times)";
  EXPECT_EQ(Wrong, 0u);
  EXPECT_GE(Total, MinInstructions);
  std::printf("%s: %zu instructions, %zu (%.1f%%) with an opcode the decoder knows, %zu destinations and "
              "%zu memory orders compared, %zu differ\n",
              fs::path(Archive).filename().c_str(), Total, Known, Total ? 100.0 * Known / Total : 0.0, Dests, Orders,
              Wrong);
}

TEST(Listings, GoldenKernelsDecodeToNvdisasmsOpcodes) {
  checkArchive(std::string(ZLUDA_SASS_DATA_DIR) + "/golden-listings.tar.xz", 50000);
}

TEST(Listings, CorpusProgramsDecodeToNvdisasmsOpcodes) {
  checkArchive(std::string(ZLUDA_SASS_DATA_DIR) + "/programs-listings.tar.xz", 20000);
}

// tests/cuda's Hopper programs (clusters, TMA, wgmma) as sm_90a machine code,
// recorded on an H100: the forms the front end does not lift yet (HGMMA,
// UTMALDG, SYNCS, WARPGROUP, UCGABAR...) are to be learned from these.
TEST(Listings, HopperProgramsDecodeToNvdisasmsOpcodes) {
  checkArchive(std::string(ZLUDA_SASS_DATA_DIR) + "/hopper-listings.tar.xz", 1000);
}

} // namespace
