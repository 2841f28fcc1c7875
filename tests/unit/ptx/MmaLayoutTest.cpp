//===- MmaLayoutTest.cpp - the mma fragment layout, both ways ---------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The CPU device gathers mma fragments with the forward mapping of
/// WarpSemantics.h (lane, register, index -> row, column) and the AMDGPU
/// runtime fetches them with the inverse one (row, column -> lane, register,
/// index). For every shape the golden data covers (and the sm_90 f64
/// shapes), the forward mapping must cover each matrix element exactly once
/// and the inverse must undo it; otherwise the two targets would disagree.
#include "ptx/codegen/WarpSemantics.h"

#include <gtest/gtest.h>

#include <vector>

using namespace zluda::ptx;

namespace {

struct Shape {
  uint32_t Elem, M, K;
};

const Shape Shapes[] = {
    {ME_F16, 16, 8},   {ME_F16, 16, 16},  {ME_BF16, 16, 8},  {ME_BF16, 16, 16}, {ME_TF32, 16, 4},
    {ME_TF32, 16, 8},  {ME_F64, 8, 4},    {ME_F64, 16, 4},   {ME_F64, 16, 8},   {ME_F64, 16, 16},
    {ME_S8, 8, 16},    {ME_S8, 16, 16},   {ME_S8, 16, 32},   {ME_U8, 16, 32},   {ME_S4, 8, 32},
    {ME_U4, 16, 32},   {ME_U4, 16, 64},   {ME_B1, 8, 128},   {ME_B1, 16, 128},  {ME_B1, 16, 256},
    {ME_E4M3, 16, 32}, {ME_E5M2, 16, 32},
};

TEST(MmaLayout, ForwardCoversEveryElementOnceAndInverseUndoesIt) {
  for (const Shape &S : Shapes) {
    MmaDesc D;
    D.A = D.B = S.Elem;
    D.M = S.M;
    D.K = S.K;
    SCOPED_TRACE("elem " + std::to_string(S.Elem) + " m" + std::to_string(S.M) + "k" + std::to_string(S.K));
    uint32_t EA = MmaDesc::perReg(S.Elem);
    // Each lane holds M*K/32 elements of A and K*8/32 of B.
    EXPECT_EQ(D.aRegs() * EA, S.M * S.K / 32);
    EXPECT_EQ(D.bRegs() * EA, S.K * 8 / 32);
    std::vector<int> SeenA(S.M * S.K, 0), SeenB(S.K * 8, 0);
    for (uint32_t L = 0; L < 32; ++L) {
      for (uint32_t R = 0; R < D.aRegs(); ++R)
        for (uint32_t I = 0; I < EA; ++I) {
          uint32_t Row, Col;
          mmaAElem(D, L, R, I, Row, Col);
          ASSERT_LT(Row, S.M);
          ASSERT_LT(Col, S.K);
          ++SeenA[Row * S.K + Col];
          MmaPos P = mmaASlot(D, Row, Col);
          EXPECT_EQ(P.Lane, L);
          EXPECT_EQ(P.Reg, R);
          EXPECT_EQ(P.Index, I);
        }
      for (uint32_t R = 0; R < D.bRegs(); ++R)
        for (uint32_t I = 0; I < EA; ++I) {
          uint32_t Kk, Col;
          mmaBElem(D, L, R, I, Kk, Col);
          ASSERT_LT(Kk, S.K);
          ASSERT_LT(Col, 8u);
          ++SeenB[Kk * 8 + Col];
          MmaPos P = mmaBSlot(D, Kk, Col);
          EXPECT_EQ(P.Lane, L);
          EXPECT_EQ(P.Reg, R);
          EXPECT_EQ(P.Index, I);
        }
    }
    for (int N : SeenA)
      EXPECT_EQ(N, 1);
    for (int N : SeenB)
      EXPECT_EQ(N, 1);
    std::vector<int> SeenC(S.M * 8, 0);
    for (uint32_t L = 0; L < 32; ++L)
      for (uint32_t I = 0; I < (S.M == 16 ? 4u : 2u); ++I) {
        uint32_t Row, Col;
        mmaCElem(D, L, I, Row, Col);
        ++SeenC[Row * 8 + Col];
      }
    for (int N : SeenC)
      EXPECT_EQ(N, 1);
  }
}

TEST(MmaLayout, QuadPairsCoverTheirProductsOnce) {
  // sm_70's m8n8k4: each quad-pair's 8 lanes hold its 8x8 accumulator once,
  // and the lanes named for rows of A / columns of B are in the quad-pair.
  for (uint32_t Q = 0; Q < 4; ++Q) {
    std::vector<int> Seen(64, 0);
    for (uint32_t L = 0; L < 32; ++L) {
      if (mmaQuadPairOf(L) != Q)
        continue;
      for (uint32_t I = 0; I < 8; ++I) {
        uint32_t Row, Col;
        mmaQuadPairCElem(L, I, Row, Col);
        ASSERT_LT(Row, 8u);
        ASSERT_LT(Col, 8u);
        ++Seen[Row * 8 + Col];
      }
    }
    for (int N : Seen)
      EXPECT_EQ(N, 1);
    for (uint32_t R = 0; R < 8; ++R)
      EXPECT_EQ(mmaQuadPairOf(mmaQuadPairLane(Q, R)), Q);
  }
}

TEST(MmaLayout, HalfConversionsAreExact) {
  // Every binary16 value goes to float and back unchanged (NaNs become the canonical one).
  for (uint32_t H = 0; H < 0x10000; ++H) {
    float F = halfBitsToFloat(uint16_t(H));
    bool NaN = (H & 0x7c00) == 0x7c00 && (H & 0x3ff);
    EXPECT_EQ(floatToHalfBits(F), NaN ? 0x7fff : H) << std::hex << H;
  }
}

} // namespace
