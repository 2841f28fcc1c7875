//===- IntegerOpsTest.cpp - integer, logic and bit instructions ------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Each check() is one kernel; references follow the PTX ISA text.
#include "ExecSupport.h"

using namespace zluda::test;
using S32 = int32_t;
using U32 = uint32_t;
using S64 = int64_t;
using U64 = uint64_t;

namespace {

template <typename T> struct Pairs {
  std::vector<T> A, B;
  explicit Pairs(const std::vector<T> &E) { cross(E, E, A, B); }
};

TEST(PtxInteger, AddSubMul) {
  Pairs<S32> P(edgesS32());
  Pairs<U32> Pu(edgesU32());
  Pairs<S64> P64(edgesS64());
  Pairs<U64> Pu64(edgesU64());
  check<S32, S32, S32>("add.s32 d, a, b;", P.A, P.B, {}, [](S32 A, S32 B, U32) { return S32(U32(A) + U32(B)); });
  check<U32, U32, U32>("add.u32 d, a, b;", Pu.A, Pu.B, {}, [](U32 A, U32 B, U32) { return A + B; });
  check<S64, S64, S64>("add.s64 d, a, b;", P64.A, P64.B, {}, [](S64 A, S64 B, U32) { return S64(U64(A) + U64(B)); });
  check<S32, S32, S32>("add.sat.s32 d, a, b;", P.A, P.B, {}, [](S32 A, S32 B, U32) {
    int64_t R = int64_t(A) + B;
    return S32(std::clamp<int64_t>(R, INT32_MIN, INT32_MAX));
  });
  check<S32, S32, S32>("sub.s32 d, a, b;", P.A, P.B, {}, [](S32 A, S32 B, U32) { return S32(U32(A) - U32(B)); });
  check<U64, U64, U64>("sub.u64 d, a, b;", Pu64.A, Pu64.B, {}, [](U64 A, U64 B, U32) { return A - B; });
  check<S32, S32, S32>("sub.sat.s32 d, a, b;", P.A, P.B, {}, [](S32 A, S32 B, U32) {
    return S32(std::clamp<int64_t>(int64_t(A) - B, INT32_MIN, INT32_MAX));
  });
  check<S32, S32, S32>("mul.lo.s32 d, a, b;", P.A, P.B, {}, [](S32 A, S32 B, U32) { return S32(U32(A) * U32(B)); });
  check<U64, U64, U64>("mul.lo.u64 d, a, b;", Pu64.A, Pu64.B, {}, [](U64 A, U64 B, U32) { return A * B; });
  check<S32, S32, S32>("mul.hi.s32 d, a, b;", P.A, P.B, {}, [](S32 A, S32 B, U32) { return S32((int64_t(A) * B) >> 32); });
  check<U32, U32, U32>("mul.hi.u32 d, a, b;", Pu.A, Pu.B, {}, [](U32 A, U32 B, U32) { return U32((uint64_t(A) * B) >> 32); });
  check<S64, S64, S64>("mul.hi.s64 d, a, b;", P64.A, P64.B, {}, [](S64 A, S64 B, U32) { return S64((__int128(A) * B) >> 64); });
  check<U64, U64, U64>("mul.hi.u64 d, a, b;", Pu64.A, Pu64.B, {}, [](U64 A, U64 B, U32) {
    return U64((static_cast<unsigned __int128>(A) * B) >> 64);
  });
  check<S64, S32, S32>("mul.wide.s32 d, a, b;", P.A, P.B, {}, [](S32 A, S32 B, U32) { return int64_t(A) * B; });
  check<U64, U32, U32>("mul.wide.u32 d, a, b;", Pu.A, Pu.B, {}, [](U32 A, U32 B, U32) { return uint64_t(A) * B; });
  std::vector<int16_t> H16 = {0, 1, -1, 32767, -32768, 1234, -999, 255};
  std::vector<int16_t> Ha, Hb;
  cross(H16, H16, Ha, Hb);
  check<S32, int16_t, int16_t>("mul.wide.s16 d, a, b;", Ha, Hb, {}, [](int16_t A, int16_t B, U32) { return S32(A) * S32(B); });
  check<int16_t, int16_t, int16_t>("add.s16 d, a, b;", Ha, Hb, {}, [](int16_t A, int16_t B, U32) { return int16_t(uint16_t(A) + uint16_t(B)); });
  check<int16_t, int16_t, int16_t>("mul.lo.s16 d, a, b;", Ha, Hb, {}, [](int16_t A, int16_t B, U32) { return int16_t(uint16_t(A) * uint16_t(B)); });
}

TEST(PtxInteger, PackedSixteenBitHalves) {
  // add/sub/min/max{.relu}.{s16x2,u16x2} (PTX 8.0; CuPy 14's CUB module uses min.s16x2): each half alone.
  std::vector<U32> E = {0u, 1u, 0xffffffffu, 0x7fff8000u, 0x80007fffu, 0x00010002u, 0xfffe0003u, 0x12345678u, 0x8000ffffu};
  std::vector<U32> A, B;
  cross(E, E, A, B);
  auto lanes = [](U32 X, U32 Y, auto Op) {
    return U32(uint16_t(Op(uint16_t(X), uint16_t(Y)))) | (U32(uint16_t(Op(uint16_t(X >> 16), uint16_t(Y >> 16)))) << 16);
  };
  auto sgn = [](uint16_t V) { return int16_t(V); };
  check<U32, U32, U32>("add.s16x2 d, a, b;", A, B, {}, [&](U32 X, U32 Y, U32) {
    return lanes(X, Y, [](uint16_t P, uint16_t Q) { return uint16_t(P + Q); });
  });
  check<U32, U32, U32>("sub.u16x2 d, a, b;", A, B, {}, [&](U32 X, U32 Y, U32) {
    return lanes(X, Y, [](uint16_t P, uint16_t Q) { return uint16_t(P - Q); });
  });
  check<U32, U32, U32>("min.s16x2 d, a, b;", A, B, {}, [&](U32 X, U32 Y, U32) {
    return lanes(X, Y, [&](uint16_t P, uint16_t Q) { return uint16_t(std::min(sgn(P), sgn(Q))); });
  });
  check<U32, U32, U32>("max.u16x2 d, a, b;", A, B, {}, [&](U32 X, U32 Y, U32) {
    return lanes(X, Y, [](uint16_t P, uint16_t Q) { return std::max(P, Q); });
  });
  check<U32, U32, U32>("max.relu.s16x2 d, a, b;", A, B, {}, [&](U32 X, U32 Y, U32) {
    return lanes(X, Y, [&](uint16_t P, uint16_t Q) { return uint16_t(std::max<int16_t>(0, std::max(sgn(P), sgn(Q)))); });
  });
  check<U32, U32, U32>("min.relu.s16x2 d, a, b;", A, B, {}, [&](U32 X, U32 Y, U32) {
    return lanes(X, Y, [&](uint16_t P, uint16_t Q) { return uint16_t(std::max<int16_t>(0, std::min(sgn(P), sgn(Q)))); });
  });
}

TEST(PtxInteger, MadAnd24Bit) {
  std::vector<S32> A, B, C;
  for (S32 X : edgesS32())
    for (S32 Y : {S32(3), S32(-7), S32(0x10000), INT32_MIN})
      for (S32 Z : {S32(0), S32(-1), S32(5)}) {
        A.push_back(X);
        B.push_back(Y);
        C.push_back(Z);
      }
  check<S32, S32, S32, S32>("mad.lo.s32 d, a, b, c;", A, B, C, [](S32 A, S32 B, S32 C) { return S32(U32(A) * U32(B) + U32(C)); });
  check<S32, S32, S32, S32>("mad.hi.s32 d, a, b, c;", A, B, C, [](S32 A, S32 B, S32 C) { return S32(U32((int64_t(A) * B) >> 32) + U32(C)); });
  check<S64, S32, S32, S64>("mad.wide.s32 d, a, b, c;", A, B, std::vector<S64>(C.begin(), C.end()),
                            [](S32 A, S32 B, S64 C) { return S64(U64(int64_t(A) * B) + U64(C)); });
  check<S32, S32, S32>("mul24.lo.s32 d, a, b;", A, B, {}, [](S32 A, S32 B, U32) {
    int64_t X = (int64_t(U32(A) << 8) << 32) >> 40, Y = (int64_t(U32(B) << 8) << 32) >> 40;
    return S32(U32(uint64_t(X * Y)));
  });
  std::vector<U32> Au(A.begin(), A.end()), Bu(B.begin(), B.end()), Cu(C.begin(), C.end());
  check<U32, U32, U32>("mul24.hi.u32 d, a, b;", Au, Bu, {}, [](U32 A, U32 B, U32) {
    return U32((uint64_t(A & 0xffffff) * (B & 0xffffff)) >> 16);
  });
  check<U32, U32, U32, U32>("mad24.lo.u32 d, a, b, c;", Au, Bu, Cu, [](U32 A, U32 B, U32 C) {
    return U32(uint64_t(A & 0xffffff) * (B & 0xffffff)) + C;
  });
  check<U32, U32, U32, U32>("sad.u32 d, a, b, c;", Au, Bu, Cu, [](U32 A, U32 B, U32 C) { return C + (A > B ? A - B : B - A); });
  check<S32, S32, S32, S32>("sad.s32 d, a, b, c;", A, B, C, [](S32 A, S32 B, S32 C) {
    return S32(U32(C) + (A > B ? U32(A) - U32(B) : U32(B) - U32(A)));
  });
}

TEST(PtxInteger, DivRemAbsNegMinMax) {
  Pairs<S32> P(edgesS32());
  Pairs<U32> Pu(edgesU32());
  Pairs<S64> P64(edgesS64());
  Pairs<U64> Pu64(edgesU64());
  // Division by zero is undefined in PTX; we define it as the GPU does
  // (all ones for div, the dividend for rem) and INT_MIN / -1 as INT_MIN.
  auto sdiv = [](auto A, auto B) -> decltype(A) {
    using T = decltype(A);
    if (B == 0)
      return T(-1);
    if (A == std::numeric_limits<T>::min() && B == T(-1))
      return A;
    return A / B;
  };
  auto srem = [](auto A, auto B) -> decltype(A) {
    using T = decltype(A);
    if (B == 0)
      return A;
    if (A == std::numeric_limits<T>::min() && B == T(-1))
      return 0;
    return A % B;
  };
  check<S32, S32, S32>("div.s32 d, a, b;", P.A, P.B, {}, [&](S32 A, S32 B, U32) { return sdiv(A, B); });
  check<U32, U32, U32>("div.u32 d, a, b;", Pu.A, Pu.B, {}, [](U32 A, U32 B, U32) { return B ? A / B : ~0u; });
  check<S64, S64, S64>("div.s64 d, a, b;", P64.A, P64.B, {}, [&](S64 A, S64 B, U32) { return sdiv(A, B); });
  check<U64, U64, U64>("div.u64 d, a, b;", Pu64.A, Pu64.B, {}, [](U64 A, U64 B, U32) { return B ? A / B : ~0ull; });
  check<S32, S32, S32>("rem.s32 d, a, b;", P.A, P.B, {}, [&](S32 A, S32 B, U32) { return srem(A, B); });
  check<U32, U32, U32>("rem.u32 d, a, b;", Pu.A, Pu.B, {}, [](U32 A, U32 B, U32) { return B ? A % B : A; });
  check<S64, S64, S64>("rem.s64 d, a, b;", P64.A, P64.B, {}, [&](S64 A, S64 B, U32) { return srem(A, B); });
  std::vector<S32> E = edgesS32();
  check<S32, S32>("abs.s32 d, a;", E, {}, {}, [](S32 A, U32, U32) { return A < 0 ? S32(0u - U32(A)) : A; });
  check<S64, S64>("abs.s64 d, a;", edgesS64(), {}, {}, [](S64 A, U32, U32) { return A < 0 ? S64(0ull - U64(A)) : A; });
  check<S32, S32>("neg.s32 d, a;", E, {}, {}, [](S32 A, U32, U32) { return S32(0u - U32(A)); });
  check<S64, S64>("neg.s64 d, a;", edgesS64(), {}, {}, [](S64 A, U32, U32) { return S64(0ull - U64(A)); });
  check<S32, S32, S32>("min.s32 d, a, b;", P.A, P.B, {}, [](S32 A, S32 B, U32) { return std::min(A, B); });
  check<U32, U32, U32>("min.u32 d, a, b;", Pu.A, Pu.B, {}, [](U32 A, U32 B, U32) { return std::min(A, B); });
  check<S32, S32, S32>("max.s32 d, a, b;", P.A, P.B, {}, [](S32 A, S32 B, U32) { return std::max(A, B); });
  check<U32, U32, U32>("max.u32 d, a, b;", Pu.A, Pu.B, {}, [](U32 A, U32 B, U32) { return std::max(A, B); });
  check<S64, S64, S64>("min.s64 d, a, b;", P64.A, P64.B, {}, [](S64 A, S64 B, U32) { return std::min(A, B); });
  check<U64, U64, U64>("max.u64 d, a, b;", Pu64.A, Pu64.B, {}, [](U64 A, U64 B, U32) { return std::max(A, B); });
  check<S32, S32, S32>("max.relu.s32 d, a, b;", P.A, P.B, {}, [](S32 A, S32 B, U32) { return std::max(std::max(A, B), 0); });
}

TEST(PtxInteger, CountsAndBitFields) {
  std::vector<U32> E = edgesU32();
  std::vector<U64> E64 = edgesU64();
  auto popc = [](U64 V) { U32 N = 0; for (; V; V &= V - 1) ++N; return N; };
  auto clz = [](U64 V, unsigned W) { U32 N = 0; for (int I = W - 1; I >= 0 && !((V >> I) & 1); --I) ++N; return N; };
  check<U32, U32>("popc.b32 d, a;", E, {}, {}, [&](U32 A, U32, U32) { return popc(A); });
  check<U32, U64>("popc.b64 d, a;", E64, {}, {}, [&](U64 A, U32, U32) { return popc(A); });
  check<U32, U32>("clz.b32 d, a;", E, {}, {}, [&](U32 A, U32, U32) { return clz(A, 32); });
  check<U32, U64>("clz.b64 d, a;", E64, {}, {}, [&](U64 A, U32, U32) { return clz(A, 64); });
  check<U32, U32>("bfind.u32 d, a;", E, {}, {}, [&](U32 A, U32, U32) { return A ? 31 - clz(A, 32) : ~0u; });
  check<U32, U32>("bfind.shiftamt.u32 d, a;", E, {}, {}, [&](U32 A, U32, U32) { return A ? clz(A, 32) : ~0u; });
  check<U32, S32>("bfind.s32 d, a;", edgesS32(), {}, {}, [&](S32 A, U32, U32) {
    U32 V = A < 0 ? ~U32(A) : U32(A);
    return V ? 31 - clz(V, 32) : ~0u;
  });
  check<U32, U64>("bfind.u64 d, a;", E64, {}, {}, [&](U64 A, U32, U32) { return A ? 63 - clz(A, 64) : ~0u; });
  auto brev = [](U64 V, unsigned W) { U64 R = 0; for (unsigned I = 0; I < W; ++I) if ((V >> I) & 1) R |= 1ull << (W - 1 - I); return R; };
  check<U32, U32>("brev.b32 d, a;", E, {}, {}, [&](U32 A, U32, U32) { return U32(brev(A, 32)); });
  check<U64, U64>("brev.b64 d, a;", E64, {}, {}, [&](U64 A, U32, U32) { return brev(A, 64); });

  // bfe/bfi: positions and lengths including >= width.
  std::vector<U32> Va, Vb, Vc;
  for (U32 V : {0x12345678u, 0x80000001u, 0xffffffffu, 0x0f0f0f0fu})
    for (U32 Pos : {0u, 1u, 4u, 16u, 31u, 32u, 40u, 0x107u})
      for (U32 Len : {0u, 1u, 8u, 16u, 31u, 32u, 33u, 0x201u}) {
        Va.push_back(V);
        Vb.push_back(Pos);
        Vc.push_back(Len);
      }
  // The low byte of position and length for 32-bit forms; 64-bit forms
  // saturate them at 255 (NVIDIA's hardware, tests/golden).
  auto field = [](U32 V, unsigned W) { return W == 64 ? std::min<U32>(V, 255) : V & 0xff; };
  auto bfeRef = [&](U64 A, U32 B, U32 C, unsigned W, bool Signed) {
    unsigned Pos = field(B, W), Len = field(C, W);
    unsigned Msb = W - 1;
    bool SBit = false;
    if (Signed && Len)
      SBit = (A >> std::min(Pos + Len - 1, Msb)) & 1;
    U64 R = 0;
    for (unsigned I = 0; I < W; ++I) {
      bool Bit = (I < Len && Pos + I <= Msb) ? (A >> (Pos + I)) & 1 : (Signed ? SBit : 0);
      if (Bit)
        R |= 1ull << I;
    }
    return R;
  };
  check<U32, U32, U32, U32>("bfe.u32 d, a, b, c;", Va, Vb, Vc, [&](U32 A, U32 B, U32 C) { return U32(bfeRef(A, B, C, 32, false)); });
  check<S32, S32, U32, U32>("bfe.s32 d, a, b, c;", std::vector<S32>(Va.begin(), Va.end()), Vb, Vc,
                            [&](S32 A, U32 B, U32 C) { return S32(U32(bfeRef(U32(A), B, C, 32, true))); });
  std::vector<U64> Va64;
  for (U32 V : Va)
    Va64.push_back((U64(V) << 32) | (V ^ 0xa5a5a5a5u));
  check<U64, U64, U32, U32>("bfe.u64 d, a, b, c;", Va64, Vb, Vc, [&](U64 A, U32 B, U32 C) { return bfeRef(A, B, C, 64, false); });
  check<S64, S64, U32, U32>("bfe.s64 d, a, b, c;", std::vector<S64>(Va64.begin(), Va64.end()), Vb, Vc,
                            [&](S64 A, U32 B, U32 C) { return S64(bfeRef(U64(A), B, C, 64, true)); });
  auto bfiRef = [&](U64 A, U64 B, U32 Pos, U32 Len, unsigned W) {
    Pos = field(Pos, W);
    Len = field(Len, W);
    U64 F = B;
    for (unsigned I = 0; I < Len && Pos + I <= W - 1; ++I)
      F = (F & ~(1ull << (Pos + I))) | (((A >> I) & 1) << (Pos + I));
    return F;
  };
  // bfi f, a, b, c, d: the kernel's "c" is the position and b2 the length.
  check<U32, U32, U32, U32>("mov.u32 t0, 0xdeadbeef;\n  and.b32 t1, c, 0x3f;\n  bfi.b32 d, a, t0, b, t1;", Va, Vb, Vc,
                            [&](U32 A, U32 B, U32 C) { return U32(bfiRef(A, 0xdeadbeef, B, C & 0x3f, 32)); });
  check<U64, U64, U32, U32>("mov.u64 w0, 0x0123456789abcdef;\n  bfi.b64 d, a, w0, b, c;", Va64, Vb, Vc,
                            [&](U64 A, U32 B, U32 C) { return bfiRef(A, 0x0123456789abcdefull, B, C, 64); });
}

TEST(PtxInteger, LogicAndShifts) {
  Pairs<U32> P(edgesU32());
  check<U32, U32, U32>("and.b32 d, a, b;", P.A, P.B, {}, [](U32 A, U32 B, U32) { return A & B; });
  check<U32, U32, U32>("or.b32 d, a, b;", P.A, P.B, {}, [](U32 A, U32 B, U32) { return A | B; });
  check<U32, U32, U32>("xor.b32 d, a, b;", P.A, P.B, {}, [](U32 A, U32 B, U32) { return A ^ B; });
  check<U32, U32>("not.b32 d, a;", edgesU32(), {}, {}, [](U32 A, U32, U32) { return ~A; });
  check<U32, U32>("cnot.b32 d, a;", edgesU32(), {}, {}, [](U32 A, U32, U32) { return U32(A == 0); });
  check<U64, U64>("not.b64 d, a;", edgesU64(), {}, {}, [](U64 A, U32, U32) { return ~A; });
  check<U32, U32, U32>("setp.ne.u32 p, a, 0;\n  setp.ne.u32 q, b, 0;\n  and.pred p, p, !q;\n  selp.u32 d, 1, 0, p;", P.A, P.B, {},
                       [](U32 A, U32 B, U32) { return U32(A != 0 && B == 0); });
  check<U32, U32, U32>("setp.ne.u32 p, a, 0;\n  setp.ne.u32 q, b, 0;\n  xor.pred p, p, q;\n  not.pred q, p;\n  selp.u32 d, 1, 0, q;", P.A, P.B, {},
                       [](U32 A, U32 B, U32) { return U32(!((A != 0) != (B != 0))); });
  std::vector<U32> V, S;
  for (U32 X : {0x80000001u, 0x12345678u, 0xffffffffu, 1u})
    for (U32 Sh : {0u, 1u, 7u, 31u, 32u, 33u, 64u, 0xffffffffu}) {
      V.push_back(X);
      S.push_back(Sh);
    }
  check<U32, U32, U32>("shl.b32 d, a, b;", V, S, {}, [](U32 A, U32 B, U32) { return B >= 32 ? 0u : A << B; });
  check<U32, U32, U32>("shr.u32 d, a, b;", V, S, {}, [](U32 A, U32 B, U32) { return B >= 32 ? 0u : A >> B; });
  check<S32, S32, U32>("shr.s32 d, a, b;", std::vector<S32>(V.begin(), V.end()), S, {},
                       [](S32 A, U32 B, U32) { return B >= 32 ? (A < 0 ? -1 : 0) : A >> B; });
  std::vector<U64> V64;
  for (U32 X : V)
    V64.push_back((U64(X) << 32) | 0x9abcdef0u);
  std::vector<U32> S64v;
  for (U32 Sh : S)
    S64v.push_back(Sh == 33 ? 63 : Sh == 32 ? 40 : Sh);
  check<U64, U64, U32>("shl.b64 d, a, b;", V64, S64v, {}, [](U64 A, U32 B, U32) { return B >= 64 ? 0ull : A << B; });
  check<U64, U64, U32>("shr.u64 d, a, b;", V64, S64v, {}, [](U64 A, U32 B, U32) { return B >= 64 ? 0ull : A >> B; });
  check<S64, S64, U32>("shr.s64 d, a, b;", std::vector<S64>(V64.begin(), V64.end()), S64v, {},
                       [](S64 A, U32 B, U32) { return B >= 64 ? (A < 0 ? -1ll : 0ll) : A >> B; });
  std::vector<int16_t> V16;
  for (U32 X : V)
    V16.push_back(int16_t(X));
  check<int16_t, int16_t, U32>("shr.s16 d, a, b;", V16, S, {}, [](int16_t A, U32 B, U32) { return int16_t(B >= 16 ? (A < 0 ? -1 : 0) : A >> B); });
  check<uint16_t, uint16_t, U32>("shl.b16 d, a, b;", std::vector<uint16_t>(V16.begin(), V16.end()), S, {},
                                 [](uint16_t A, U32 B, U32) { return uint16_t(B >= 16 ? 0 : A << B); });
  // Funnel shifts: d = (b:a) shifted, a the low word.
  std::vector<U32> Fa, Fb, Fc;
  for (U32 N : {0u, 1u, 8u, 31u, 32u, 33u, 63u})
    for (U32 X : {0x01234567u, 0xfedcba98u}) {
      Fa.push_back(X);
      Fb.push_back(~X ^ 0x5a5a5a5au);
      Fc.push_back(N);
    }
  auto fsh = [](U32 Lo, U32 Hi, U32 N, bool Left) {
    U64 W = (U64(Hi) << 32) | Lo;
    return Left ? U32((W << N) >> 32) : U32(W >> N);
  };
  check<U32, U32, U32, U32>("shf.l.wrap.b32 d, a, b, c;", Fa, Fb, Fc, [&](U32 A, U32 B, U32 C) { return fsh(A, B, C & 31, true); });
  check<U32, U32, U32, U32>("shf.r.wrap.b32 d, a, b, c;", Fa, Fb, Fc, [&](U32 A, U32 B, U32 C) { return fsh(A, B, C & 31, false); });
  check<U32, U32, U32, U32>("shf.l.clamp.b32 d, a, b, c;", Fa, Fb, Fc, [&](U32 A, U32 B, U32 C) { return fsh(A, B, std::min(C, 32u), true); });
  check<U32, U32, U32, U32>("shf.r.clamp.b32 d, a, b, c;", Fa, Fb, Fc, [&](U32 A, U32 B, U32 C) { return fsh(A, B, std::min(C, 32u), false); });
}

TEST(PtxInteger, PermuteLop3DotProducts) {
  std::vector<U32> A, B, C;
  for (U32 Sel : {0x3210u, 0x7654u, 0x0123u, 0x4567u, 0x8888u, 0xf0e1u, 0x1111u, 0x5a3cu, 0u, 1u, 2u, 3u})
    for (U32 X : {0x80ff7f01u, 0x12345678u}) {
      A.push_back(X);
      B.push_back(0x9abcdef0u ^ X);
      C.push_back(Sel);
    }
  auto byteOf = [](U32 A, U32 B, unsigned I) { U64 W = (U64(B) << 32) | A; return U32((W >> (8 * (I & 7))) & 0xff); };
  check<U32, U32, U32, U32>("prmt.b32 d, a, b, c;", A, B, C, [&](U32 A, U32 B, U32 C) {
    U32 R = 0;
    for (unsigned I = 0; I < 4; ++I) {
      U32 N = (C >> (4 * I)) & 0xf;
      U32 Byte = byteOf(A, B, N);
      if (N & 8)
        Byte = (Byte & 0x80) ? 0xff : 0;
      R |= Byte << (8 * I);
    }
    return R;
  });
  // The mode forms take only c[1:0]; byte selections from the PTX ISA table.
  struct ModeCase { const char *Mode; unsigned Sel[4][4]; };
  const ModeCase Modes[] = {
      {"f4e", {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}}},
      {"b4e", {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}}},
      {"rc8", {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}},
      {"ecl", {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}}},
      {"ecr", {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}}},
      {"rc16", {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}},
  };
  for (const ModeCase &M : Modes)
    check<U32, U32, U32, U32>(std::string("prmt.b32.") + M.Mode + " d, a, b, c;", A, B, C, [&](U32 A, U32 B, U32 C) {
      U32 R = 0;
      for (unsigned I = 0; I < 4; ++I)
        R |= byteOf(A, B, M.Sel[C & 3][I]) << (8 * I);
      return R;
    });
  Pairs<U32> P(edgesU32());
  std::vector<U32> Third;
  for (size_t I = 0; I < P.A.size(); ++I)
    Third.push_back(P.A[I] * 2654435761u + P.B[I]);
  for (U32 Lut : {0x96u, 0xe8u, 0xcau, 0x3cu, 0x80u, 0xfeu, 0x01u}) {
    check<U32, U32, U32, U32>("lop3.b32 d, a, b, c, " + std::to_string(Lut) + ";", P.A, P.B, Third, [&](U32 A, U32 B, U32 C) {
      U32 R = 0;
      for (unsigned Bit = 0; Bit < 32; ++Bit) {
        unsigned Idx = (((A >> Bit) & 1) << 2) | (((B >> Bit) & 1) << 1) | ((C >> Bit) & 1);
        R |= ((Lut >> Idx) & 1) << Bit;
      }
      return R;
    });
  }
  auto dp4 = [](U32 A, U32 B, U32 C, bool SA, bool SB) {
    int64_t Acc = int32_t(C);
    for (unsigned I = 0; I < 4; ++I) {
      int64_t X = SA ? int8_t(A >> (8 * I)) : uint8_t(A >> (8 * I));
      int64_t Y = SB ? int8_t(B >> (8 * I)) : uint8_t(B >> (8 * I));
      Acc += X * Y;
    }
    return U32(uint64_t(Acc));
  };
  check<U32, U32, U32, U32>("dp4a.u32.u32 d, a, b, c;", P.A, P.B, Third, [&](U32 A, U32 B, U32 C) { return dp4(A, B, C, false, false); });
  check<U32, U32, U32, U32>("dp4a.s32.s32 d, a, b, c;", P.A, P.B, Third, [&](U32 A, U32 B, U32 C) { return dp4(A, B, C, true, true); });
  check<U32, U32, U32, U32>("dp4a.s32.u32 d, a, b, c;", P.A, P.B, Third, [&](U32 A, U32 B, U32 C) { return dp4(A, B, C, true, false); });
  auto dp2 = [](U32 A, U32 B, U32 C, bool Hi) {
    int64_t Acc = int32_t(C);
    for (unsigned I = 0; I < 2; ++I)
      Acc += int64_t(int16_t(A >> (16 * I))) * int64_t(int8_t(B >> (8 * ((Hi ? 2 : 0) + I))));
    return U32(uint64_t(Acc));
  };
  check<U32, U32, U32, U32>("dp2a.lo.s32.s32 d, a, b, c;", P.A, P.B, Third, [&](U32 A, U32 B, U32 C) { return dp2(A, B, C, false); });
  check<U32, U32, U32, U32>("dp2a.hi.s32.s32 d, a, b, c;", P.A, P.B, Third, [&](U32 A, U32 B, U32 C) { return dp2(A, B, C, true); });
  std::vector<U32> Ma, Mb;
  for (U32 X : {0u, 1u, 5u, 31u, 32u, 40u})
    for (U32 Y : {0u, 1u, 3u, 31u, 32u, 50u}) {
      Ma.push_back(X);
      Mb.push_back(Y);
    }
  check<U32, U32, U32>("bmsk.clamp.b32 d, a, b;", Ma, Mb, {}, [](U32 A, U32 B, U32) {
    U64 Aa = std::min(A, 32u), Bb = std::min(B, 32u);
    return U32((((1ull << Bb) - 1) << Aa) & 0xffffffffu);
  });
  check<U32, U32, U32>("bmsk.wrap.b32 d, a, b;", Ma, Mb, {}, [](U32 A, U32 B, U32) {
    U64 Aa = A & 31, Bb = B & 31;
    return U32((((1ull << Bb) - 1) << Aa) & 0xffffffffu);
  });
  std::vector<U32> Za;
  for (size_t I = 0; I < Ma.size(); ++I)
    Za.push_back(0x8765f3c1u >> (I % 3));
  check<S32, U32, U32>("szext.clamp.s32 d, a, b;", Za, Mb, {}, [](U32 A, U32 B, U32) {
    U32 N = std::min(B, 32u);
    if (N == 0) return 0;
    if (N == 32) return S32(A);
    return S32(int64_t(U64(A) << (64 - N)) >> (64 - N));
  });
  check<U32, U32, U32>("szext.wrap.u32 d, a, b;", Za, Mb, {}, [](U32 A, U32 B, U32) {
    U32 N = B & 31;
    return N == 0 ? 0u : A & U32((1ull << N) - 1);
  });
}

TEST(PtxInteger, ExtendedPrecisionCarries) {
  // 64-bit add/sub/mad from 32-bit halves with the carry flag.
  Pairs<U64> P(edgesU64());
  check<U64, U64, U64>("mov.b64 {t0, t1}, a;\n  mov.b64 {t2, t3}, b;\n  add.cc.u32 t0, t0, t2;\n  addc.u32 t1, t1, t3;\n  mov.b64 d, {t0, t1};",
                       P.A, P.B, {}, [](U64 A, U64 B, U32) { return A + B; });
  check<U64, U64, U64>("mov.b64 {t0, t1}, a;\n  mov.b64 {t2, t3}, b;\n  sub.cc.u32 t0, t0, t2;\n  subc.u32 t1, t1, t3;\n  mov.b64 d, {t0, t1};",
                       P.A, P.B, {}, [](U64 A, U64 B, U32) { return A - B; });
  check<U64, U64, U64>("mov.b64 {t0, t1}, a;\n  mov.b64 {t2, t3}, b;\n  add.cc.u32 t0, t0, t2;\n  addc.cc.u32 t1, t1, t3;\n  addc.u32 t2, 0, 0;\n  mov.b64 d, {t1, t2};",
                       P.A, P.B, {}, [](U64 A, U64 B, U32) {
                         unsigned __int128 S = static_cast<unsigned __int128>(A) + B;
                         return U64(S >> 32);
                       });
  // mad.lo.cc / madc.hi: a 32x32 -> 64 product accumulated into 64 bits.
  std::vector<U32> A32, B32;
  cross(edgesU32(), edgesU32(), A32, B32);
  check<U64, U32, U32>("mov.u32 t0, 0xffffffff;\n  mov.u32 t1, 7;\n  mad.lo.cc.u32 t2, a, b, t0;\n  madc.hi.u32 t3, a, b, t1;\n  mov.b64 d, {t2, t3};",
                       A32, B32, {}, [](U32 A, U32 B, U32) { return uint64_t(A) * B + 0xffffffffull + (7ull << 32); });
}

TEST(PtxInteger, CompareAndSelect) {
  Pairs<S32> P(edgesS32());
  Pairs<U32> Pu(edgesU32());
  struct C { const char *Op; std::function<bool(S32, S32)> F; };
  for (const C &Cs : {C{"eq", [](S32 A, S32 B) { return A == B; }}, C{"ne", [](S32 A, S32 B) { return A != B; }},
                      C{"lt", [](S32 A, S32 B) { return A < B; }}, C{"le", [](S32 A, S32 B) { return A <= B; }},
                      C{"gt", [](S32 A, S32 B) { return A > B; }}, C{"ge", [](S32 A, S32 B) { return A >= B; }}})
    check<U32, S32, S32>(std::string("setp.") + Cs.Op + ".s32 p, a, b;\n  selp.u32 d, 1, 0, p;", P.A, P.B, {},
                         [&](S32 A, S32 B, U32) { return U32(Cs.F(A, B)); });
  struct CU { const char *Op; std::function<bool(U32, U32)> F; };
  for (const CU &Cs : {CU{"lo", [](U32 A, U32 B) { return A < B; }}, CU{"ls", [](U32 A, U32 B) { return A <= B; }},
                       CU{"hi", [](U32 A, U32 B) { return A > B; }}, CU{"hs", [](U32 A, U32 B) { return A >= B; }},
                       CU{"lt", [](U32 A, U32 B) { return A < B; }}})
    check<U32, U32, U32>(std::string("setp.") + Cs.Op + ".u32 p, a, b;\n  selp.u32 d, 1, 0, p;", Pu.A, Pu.B, {},
                         [&](U32 A, U32 B, U32) { return U32(Cs.F(A, B)); });
  Pairs<S64> P64(edgesS64());
  check<U32, S64, S64>("setp.lt.s64 p, a, b;\n  selp.u32 d, 1, 0, p;", P64.A, P64.B, {}, [](S64 A, S64 B, U32) { return U32(A < B); });
  check<U32, U64, U64>("setp.lt.u64 p, a, b;\n  selp.u32 d, 1, 0, p;", std::vector<U64>(P64.A.begin(), P64.A.end()),
                       std::vector<U64>(P64.B.begin(), P64.B.end()), {}, [](U64 A, U64 B, U32) { return U32(A < B); });
  std::vector<U32> Cc(P.A.size());
  for (size_t I = 0; I < Cc.size(); ++I)
    Cc[I] = (I / 3) % 2;
  // Combined forms: p = (a < b) op c, q = !(a < b) op c.
  for (const char *Op : {"and", "or", "xor"})
    check<U32, S32, S32, U32>(std::string("setp.ne.u32 q, c, 0;\n  setp.lt.") + Op + ".s32 p|q, a, b, q;\n  selp.u32 t0, 1, 0, p;\n  selp.u32 t1, 2, 0, q;\n  or.b32 d, t0, t1;",
                              P.A, P.B, Cc, [&](S32 A, S32 B, U32 C) {
                                bool R = A < B, Cb = C != 0;
                                auto f = [&](bool X) { return std::string(Op) == "and" ? X && Cb : std::string(Op) == "or" ? X || Cb : X != Cb; };
                                return U32(f(R)) | (U32(f(!R)) << 1);
                              });
  check<U32, S32, S32>("set.lt.u32.s32 d, a, b;", P.A, P.B, {}, [](S32 A, S32 B, U32) { return A < B ? 0xffffffffu : 0u; });
  check<S32, S32, S32, S32>("slct.s32.s32 d, a, b, c;", P.A, P.B, std::vector<S32>(P.B.rbegin(), P.B.rend()),
                            [](S32 A, S32 B, S32 C) { return C >= 0 ? A : B; });
  check<S64, S64, S64, U32>("setp.ne.u32 p, c, 0;\n  selp.b64 d, a, b, p;", P64.A, P64.B, std::vector<U32>(P64.A.size(), 1),
                            [](S64 A, S64, U32) { return A; });
}

TEST(PtxInteger, ConversionsBetweenIntegers) {
  std::vector<S64> E = edgesS64();
  for (S64 X : {S64(127), S64(128), S64(-128), S64(-129), S64(255), S64(256), S64(32767), S64(-32769), S64(65535), S64(65536)})
    E.push_back(X);
  std::vector<U64> Eu(E.begin(), E.end());
  std::vector<S32> E32;
  for (S64 V : E)
    E32.push_back(S32(V));
  std::vector<U32> E32u(E32.begin(), E32.end());
  auto sat = [](__int128 V, __int128 Lo, __int128 Hi) { return V < Lo ? Lo : V > Hi ? Hi : V; };
  check<S64, S32>("cvt.s64.s32 d, a;", E32, {}, {}, [](S32 A, U32, U32) { return S64(A); });
  check<U64, U32>("cvt.u64.u32 d, a;", E32u, {}, {}, [](U32 A, U32, U32) { return U64(A); });
  check<S64, U32>("cvt.s64.u32 d, a;", E32u, {}, {}, [](U32 A, U32, U32) { return S64(A); });
  check<U32, U64>("cvt.u32.u64 d, a;", Eu, {}, {}, [](U64 A, U32, U32) { return U32(A); });
  check<S32, int8_t>("cvt.s32.s8 d, a;", std::vector<int8_t>(E.begin(), E.end()), {}, {}, [](int8_t A, U32, U32) { return S32(A); });
  check<U32, uint8_t>("cvt.u32.u8 d, a;", std::vector<uint8_t>(E.begin(), E.end()), {}, {}, [](uint8_t A, U32, U32) { return U32(A); });
  check<S32, int16_t>("cvt.s32.s16 d, a;", std::vector<int16_t>(E.begin(), E.end()), {}, {}, [](int16_t A, U32, U32) { return S32(A); });
  check<uint16_t, U32>("cvt.u16.u32 d, a;", E32u, {}, {}, [](U32 A, U32, U32) { return uint16_t(A); });
  check<S32, S32>("cvt.s8.s32 t0, a;\n  cvt.s32.s8 d, t0;", E32, {}, {}, [](S32 A, U32, U32) { return S32(int8_t(A)); });
  check<S32, S32>("cvt.sat.s8.s32 t0, a;\n  cvt.s32.s8 d, t0;", E32, {}, {}, [&](S32 A, U32, U32) { return S32(sat(A, -128, 127)); });
  check<U32, S32>("cvt.sat.u8.s32 t0, a;\n  cvt.u32.u8 d, t0;", E32, {}, {}, [&](S32 A, U32, U32) { return U32(sat(A, 0, 255)); });
  check<U32, U32>("cvt.sat.u16.u32 t0, a;\n  cvt.u32.u16 d, t0;", E32u, {}, {}, [&](U32 A, U32, U32) { return U32(sat(A, 0, 65535)); });
  check<S32, U32>("cvt.sat.s32.u32 d, a;", E32u, {}, {}, [&](U32 A, U32, U32) { return S32(sat(A, INT32_MIN, INT32_MAX)); });
  check<U32, S32>("cvt.sat.u32.s32 d, a;", E32, {}, {}, [&](S32 A, U32, U32) { return U32(sat(A, 0, UINT32_MAX)); });
  check<S32, S64>("cvt.sat.s32.s64 d, a;", E, {}, {}, [&](S64 A, U32, U32) { return S32(sat(A, INT32_MIN, INT32_MAX)); });
  check<U32, U64>("cvt.sat.u32.u64 d, a;", Eu, {}, {}, [&](U64 A, U32, U32) { return U32(sat(A, 0, UINT32_MAX)); });
  check<S64, U64>("cvt.sat.s64.u64 d, a;", Eu, {}, {}, [&](U64 A, U32, U32) { return S64(sat(A, INT64_MIN, INT64_MAX)); });
  check<U64, S64>("cvt.sat.u64.s64 d, a;", E, {}, {}, [&](S64 A, U32, U32) { return U64(sat(A, 0, UINT64_MAX)); });
}

} // namespace

TEST(PtxInteger, IstypepTestsTheHandlesTagBits) {
  // What ptxas makes of istypep for sm_86 and sm_90 (read from its machine
  // code: a mask and compare of the handle's upper word): .texref is bit 61
  // of the handle, .samplerref bit 62, .surfref bit 63.
  std::vector<U64> H = {0, 1, 0x12345, uint64_t(1) << 61, uint64_t(1) << 62, uint64_t(1) << 63,
                        ~uint64_t(0), 0x5fffffffffffffffull, 0xa000000000000001ull};
  for (auto [Type, Bit] : {std::pair("texref", 61), std::pair("samplerref", 62), std::pair("surfref", 63)})
    check<U32, U64>(std::string("istypep.") + Type + " p, a; selp.u32 d, 1, 0, p;", H, {}, {},
                    [Bit = Bit](U64 X, U32, U32) { return U32((X >> Bit) & 1); });
}
