//===- WarpSemantics.h - PTX's warp-collective rules, for every runtime ----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Freestanding (stdint.h only): the CPU executor and the AMDGPU device
/// runtime both include it, so that the two targets cannot disagree on what
/// the PTX ISA defines.
#ifndef ZLUDA_PTX_CODEGEN_WARPSEMANTICS_H
#define ZLUDA_PTX_CODEGEN_WARPSEMANTICS_H

#include <stdint.h>


namespace zluda::ptx {

/// The cluster special registers sreg_cluster reads.
enum ClusterReg : uint32_t {
  CrCtaId = 0,    ///< %cluster_ctaid.x/y/z: 0-2
  CrNCtaId = 3,   ///< %cluster_nctaid: 3-5
  CrClusterId = 6, ///< %clusterid: 6-8
  CrNClusterId = 9, ///< %nclusterid: 9-11
  CrCtaRank = 12, ///< %cluster_ctarank
  CrNCtaRank = 13, ///< %cluster_nctarank
  CrExplicit = 14, ///< %is_explicit_cluster
};

/// mbarrier operations: the code the lowering passes to the device runtime's
/// mbarrier function (DeviceFloat.inc), which implements them.
enum MbarOp : uint32_t {
  MbarInit, MbarInval, MbarArrive, MbarArriveNoComplete, MbarDrop, MbarDropNoComplete, MbarExpectTx,
  MbarCompleteTx, MbarArriveExpectTx, MbarTestState, MbarTestParity
};

/// shfl.sync: the lane \p Lane reads from, per the PTX ISA's pseudocode.
/// \p Mode 0 up, 1 down, 2 bfly, 3 idx; \p B the lane operand, \p C the
/// clamp (bits 4:0) and segment mask (bits 12:8). \p Valid is the p result;
/// an invalid source reads the lane's own value.
inline int shflSourceLane(unsigned Mode, int Lane, unsigned B, unsigned C, bool &Valid) {
  int B5 = static_cast<int>(B & 31), C5 = static_cast<int>(C & 31), SegMask = static_cast<int>((C >> 8) & 31);
  int MaxLane = (Lane & SegMask) | (C5 & ~SegMask), MinLane = Lane & SegMask, J;
  switch (Mode) {
  case 0:
    J = Lane - B5;
    Valid = J >= MaxLane;
    break;
  case 1:
    J = Lane + B5;
    Valid = J <= MaxLane;
    break;
  case 2:
    J = Lane ^ B5;
    Valid = J <= MaxLane;
    break;
  default:
    J = MinLane | (B5 & ~SegMask);
    Valid = J <= MaxLane;
    break;
  }
  return Valid ? J : Lane;
}

} // namespace zluda::ptx


namespace zluda::ptx {

/// mma.sync shapes and types for the generic runtime entry (mma_generic):
/// an element type of A/B, the accumulator type, M (8 or 16), K, and flags,
/// packed into 32 bits so the lowering passes it as a constant.
enum MmaElem : uint32_t { ME_F16, ME_BF16, ME_TF32, ME_F64, ME_S8, ME_U8, ME_S4, ME_U4, ME_B1, ME_E4M3, ME_E5M2 };
enum MmaAcc : uint32_t { MA_F32, MA_F16, MA_S32, MA_F64 };
struct MmaDesc {
  uint32_t A = 0, B = 0, C = 0, D = 0, M = 16, K = 16;
  bool Satfinite = false, XorPopc = false;
  /// sm_70's mma.m8n8k4 with f16 inputs: four independent 8x8x4 products,
  /// one per quad-pair of lanes (mmaQuadPair* below), f32 or f16 accumulators.
  bool QuadPair = false;
  uint32_t pack() const {
    return A | (B << 4) | (C << 8) | (D << 10) | ((M == 16 ? 1u : 0u) << 12) | (K << 13) | (uint32_t(Satfinite) << 22) |
           (uint32_t(XorPopc) << 23) | (uint32_t(QuadPair) << 24);
  }
  static MmaDesc unpack(uint32_t V) {
    MmaDesc D;
    D.A = V & 15;
    D.B = (V >> 4) & 15;
    D.C = (V >> 8) & 3;
    D.D = (V >> 10) & 3;
    D.M = (V >> 12) & 1 ? 16 : 8;
    D.K = (V >> 13) & 511;
    D.Satfinite = (V >> 22) & 1;
    D.XorPopc = (V >> 23) & 1;
    D.QuadPair = (V >> 24) & 1;
    return D;
  }
  static uint32_t bits(uint32_t E) {
    switch (E) {
    case ME_F16: case ME_BF16: return 16;
    case ME_TF32: return 32;
    case ME_F64: return 64;
    case ME_S8: case ME_U8: case ME_E4M3: case ME_E5M2: return 8;
    case ME_S4: case ME_U4: return 4;
    default: return 1;
    }
  }
  /// Elements in one fragment register of A or B (1 for tf32 and f64).
  static uint32_t perReg(uint32_t E) { return bits(E) >= 32 ? 1 : 32 / bits(E); }
  /// Fragment registers of one lane: A and B (32-bit, or 64-bit for f64), C and D.
  /// A lane holds M*K/32 elements of A and K/4 of B.
  uint32_t aRegs() const { return QuadPair ? 2 : M == 16 ? K / (2 * perReg(A)) : K / (4 * perReg(A)); }
  uint32_t bRegs() const { return QuadPair ? 2 : K / (4 * perReg(B)); }
  uint32_t cRegs(uint32_t Acc) const { return (QuadPair ? 8 : M == 16 ? 4 : 2) / (Acc == MA_F16 ? 2 : 1); }
};

/// Where an element of an mma fragment lives: lane, register, index in the register.
struct MmaPos {
  uint32_t Lane, Reg, Index;
};

// The fragment layout of the m16n8k* and m8n8k* shapes (PTX ISA "Matrix
// fragments for mma.m16n8k*"), both ways. With g = lane / 4, t = lane % 4 and
// E elements a register: A's registers alternate rows g and g + 8 (M = 16),
// each holding E consecutive columns t*E.., in groups of 4E columns; B's
// register r holds rows r*4E + t*E.. of column g; C's element i is row g (+8
// for i >= 2), column 2t + i % 2.
inline void mmaAElem(const MmaDesc &D, uint32_t Lane, uint32_t Reg, uint32_t Index, uint32_t &Row, uint32_t &Col) {
  uint32_t E = MmaDesc::perReg(D.A), G = D.M == 16 ? Reg >> 1 : Reg;
  Row = (Lane >> 2) + (D.M == 16 ? 8 * (Reg & 1) : 0);
  Col = G * 4 * E + (Lane & 3) * E + Index;
}
inline MmaPos mmaASlot(const MmaDesc &D, uint32_t Row, uint32_t Col) {
  uint32_t E = MmaDesc::perReg(D.A), G = Col / (4 * E), C = Col % (4 * E);
  return {(Row & 7) * 4 + C / E, D.M == 16 ? ((Row >> 3) | (G << 1)) : G, C % E};
}
inline void mmaBElem(const MmaDesc &D, uint32_t Lane, uint32_t Reg, uint32_t Index, uint32_t &Kk, uint32_t &Col) {
  uint32_t E = MmaDesc::perReg(D.B);
  Kk = Reg * 4 * E + (Lane & 3) * E + Index;
  Col = Lane >> 2;
}
inline MmaPos mmaBSlot(const MmaDesc &D, uint32_t Kk, uint32_t Col) {
  uint32_t E = MmaDesc::perReg(D.B), C = Kk % (4 * E);
  return {Col * 4 + C / E, Kk / (4 * E), C % E};
}
inline void mmaCElem(const MmaDesc &D, uint32_t Lane, uint32_t I, uint32_t &Row, uint32_t &Col) {
  Row = (Lane >> 2) + (D.M == 16 && I >= 2 ? 8 : 0);
  Col = (Lane & 3) * 2 + (I & 1);
}

// mma.m8n8k4 with f16 inputs (sm_70): quad-pair q is lanes 4q..4q+3 and
// 4q+16..4q+19 and computes its own D = A * B + C (8x8x4). With t = lane % 4
// and h = lane / 16: A (.row) row t + 4h holds columns 2r, 2r + 1 in register
// r; B (.col) column t + 4h holds rows 2r, 2r + 1; the f32 accumulator
// element i is row (t % 2) + 2 ((i / 2) % 2) + 4h, column (i % 2) + 2 (t / 2)
// + 4 (i / 4). (Recorded on the H200: tests/golden/data/mma.golden.)
inline uint32_t mmaQuadPairOf(uint32_t Lane) { return (Lane >> 2) & 3; }
inline void mmaQuadPairCElem(uint32_t Lane, uint32_t I, uint32_t &Row, uint32_t &Col) {
  Row = (Lane & 1) + 2 * ((I >> 1) & 1) + 4 * (Lane >> 4);
  Col = (I & 1) + 2 * ((Lane >> 1) & 1) + 4 * (I >> 2);
}
/// The lane of quad-pair \p Q that holds row \p Row of A (or column \p Row of B).
inline uint32_t mmaQuadPairLane(uint32_t Q, uint32_t Row) { return 4 * Q + (Row & 3) + 16 * (Row >> 2); }
/// Accumulator element \p I of \p Lane for accumulator type \p Acc: the f32
/// layout above, or for f16 (four f16x2 registers) row t + 4h, column i.
inline void mmaQuadPairAccElem(uint32_t Acc, uint32_t Lane, uint32_t I, uint32_t &Row, uint32_t &Col) {
  if (Acc != MA_F16)
    return mmaQuadPairCElem(Lane, I, Row, Col);
  Row = (Lane & 3) + 4 * (Lane >> 4);
  Col = I;
}
/// The inverse: the lane of quad-pair \p Q and its element holding (Row, Col).
inline void mmaQuadPairAccSlot(uint32_t Acc, uint32_t Q, uint32_t Row, uint32_t Col, uint32_t &Lane, uint32_t &I) {
  if (Acc == MA_F16) {
    Lane = mmaQuadPairLane(Q, Row);
    I = Col;
    return;
  }
  Lane = 4 * Q + (Row & 1) + 2 * ((Col >> 1) & 1) + 16 * (Row >> 2);
  I = (Col & 1) + 2 * ((Row >> 1) & 1) + 4 * (Col >> 2);
}

/// 2^E as a double (E in [-1022, 1023]).
inline double pow2(int E) {
  uint64_t Bits = uint64_t(E + 1023) << 52;
  double V;
  __builtin_memcpy(&V, &Bits, 8);
  return V;
}

/// binary16 bits to float, exactly.
inline float halfBitsToFloat(uint16_t H) {
  uint32_t Sign = uint32_t(H >> 15) << 31, Exp = (H >> 10) & 0x1f, Mant = H & 0x3ff;
  uint32_t B;
  if (Exp == 0x1f) {
    B = Sign | 0x7f800000u | (Mant << 13);
  } else if (Exp == 0) {
    float F = float(Mant) * float(pow2(-24));
    return Sign ? -F : F;
  } else {
    B = Sign | ((Exp + 112) << 23) | (Mant << 13);
  }
  float F;
  __builtin_memcpy(&F, &B, 4);
  return F;
}

/// f32 -> binary16, round to nearest even (NaN canonical, as the hardware's).
inline uint16_t floatToHalfBits(float F) {
  uint32_t U;
  __builtin_memcpy(&U, &F, 4);
  uint32_t Sign = (U >> 16) & 0x8000;
  int Exp = int((U >> 23) & 0xFF) - 127 + 15;
  uint32_t Man = U & 0x7FFFFF;
  if (((U >> 23) & 0xFF) == 0xFF)
    return Man ? 0x7FFF : uint16_t(Sign | 0x7C00);
  if (Exp >= 31)
    return uint16_t(Sign | 0x7C00);
  uint32_t Sig = Man | 0x800000;
  unsigned Shift = Exp >= 1 ? 13 : unsigned(13 + 1 - Exp);
  if (Shift > 24)
    return uint16_t(Sign);
  uint32_t Q = Sig >> Shift, Rem = Sig & ((1u << Shift) - 1), Half = 1u << (Shift - 1);
  Q += Rem > Half || (Rem == Half && (Q & 1));
  if (Exp >= 1) // Q is 1.m in 11 bits; a carry out of it moves to the next binade
    return uint16_t(Sign | ((uint32_t(Exp) << 10) + Q - 0x400));
  return uint16_t(Sign | Q); // subnormal (a carry gives the smallest normal)
}

/// One A/B element of an mma fragment, by type, from its register's bits.
inline double mmaElemValue(uint64_t Reg, uint32_t E, uint32_t Index) {
  uint32_t W = MmaDesc::bits(E);
  uint64_t Bits = W == 64 ? Reg : (Reg >> (W * Index)) & ((uint64_t(1) << W) - 1);
  switch (E) {
  case ME_F16:
    return halfBitsToFloat(uint16_t(Bits));
  case ME_BF16: case ME_TF32: {
    uint32_t F = E == ME_BF16 ? uint32_t(Bits) << 16 : uint32_t(Bits) & ~0x1FFFu; // tf32 keeps 10 mantissa bits
    float V;
    __builtin_memcpy(&V, &F, 4);
    return V;
  }
  case ME_F64: {
    double V;
    __builtin_memcpy(&V, &Bits, 8);
    return V;
  }
  case ME_S8:
    return double(int8_t(Bits));
  case ME_S4:
    return double(int32_t(uint32_t(Bits) << 28) >> 28);
  case ME_U8: case ME_U4:
    return double(Bits);
  case ME_E4M3: case ME_E5M2: {
    bool E5 = E == ME_E5M2;
    uint32_t ExpBits = E5 ? 5 : 4, ManBits = E5 ? 2 : 3;
    int Bias = E5 ? 15 : 7;
    uint32_t Sign = (Bits >> 7) & 1, Exp = (Bits >> ManBits) & ((1u << ExpBits) - 1), Man = Bits & ((1u << ManBits) - 1);
    double V = Exp ? (1.0 + Man * pow2(-int(ManBits))) * pow2(int(Exp) - Bias) : Man * pow2(-int(ManBits)) * pow2(1 - Bias);
    return Sign ? -V : V;
  }
  default:
    return double(Bits & 1);
  }
}

/// Accumulator element \p I (0-3) of a C fragment, as a double.
inline double mmaCValue(const MmaDesc &D, const uint64_t *C, uint32_t I) {
  if (D.C == MA_F16)
    return halfBitsToFloat(uint16_t(C[I / 2] >> (16 * (I & 1))));
  if (D.C == MA_F64) {
    double V;
    __builtin_memcpy(&V, &C[I], 8);
    return V;
  }
  if (D.C == MA_S32)
    return double(int32_t(uint32_t(C[I])));
  float F;
  uint32_t B32 = uint32_t(C[I]);
  __builtin_memcpy(&F, &B32, 4);
  return F;
}

/// Result element bits (D of f32, f16 or f64; the s32 path is mmaIntResult).
inline uint64_t mmaFloatResult(const MmaDesc &D, double Acc) {
  if (D.D == MA_F64) {
    uint64_t B;
    __builtin_memcpy(&B, &Acc, 8);
    return B;
  }
  float F = float(Acc);
  if (D.D == MA_F16)
    return floatToHalfBits(F);
  uint32_t B32;
  __builtin_memcpy(&B32, &F, 4);
  return B32;
}
inline uint64_t mmaIntResult(const MmaDesc &D, int64_t Acc) {
  if (D.Satfinite)
    Acc = Acc < -2147483648ll ? -2147483648ll : Acc > 2147483647ll ? 2147483647ll : Acc;
  return uint32_t(uint64_t(Acc));
}
/// A lane's D registers from its result elements (\p N of them): f16 results
/// are packed two to a register, element 0 in the low half.
inline void mmaStoreD(const MmaDesc &D, const uint64_t *Elems, uint32_t N, uint64_t *Regs) {
  if (D.D == MA_F16) {
    for (uint32_t R = 0; R < N / 2; ++R)
      Regs[R] = Elems[2 * R] | (Elems[2 * R + 1] << 16);
  } else {
    for (uint32_t I = 0; I < N; ++I)
      Regs[I] = Elems[I];
  }
}

/// One product term of the integer path (b1: AND or XOR of the bits, counted).
inline int64_t mmaIntTerm(const MmaDesc &D, double A, double B) {
  if (D.A == ME_B1)
    return D.XorPopc ? (int64_t(A) ^ int64_t(B)) : (int64_t(A) & int64_t(B));
  return int64_t(A) * int64_t(B);
}
/// One product term into the integer or the float accumulator: the product,
/// then the sum, never fused into one rounding (clang's default would fuse
/// them on the AMDGPU runtime, and the CPU device does not).
inline void mmaAccumulate(const MmaDesc &D, double A, double B, int64_t &IAcc, double &FAcc) {
#ifdef __clang__
#pragma clang fp contract(off)
#endif
  if (D.D == MA_S32)
    IAcc += mmaIntTerm(D, A, B);
  else
    FAcc += A * B;
}

/// wmma's shape, packed for the runtime entry (M | N << 8 | K << 16). Its
/// fragments (lowerWmma): lane L holds elements L*E..L*E+E-1 of the
/// fragment's matrix in row-major order (E = rows * cols / 32), MmaDesc's
/// perReg elements to a register (64-bit for f64).
struct WmmaShape {
  uint32_t M = 16, N = 16, K = 16;
  uint32_t pack() const { return M | (N << 8) | (K << 16); }
  static WmmaShape unpack(uint32_t V) { return {V & 255, (V >> 8) & 255, (V >> 16) & 255}; }
  static uint32_t regs(uint32_t Elems, uint32_t E) { return (Elems + MmaDesc::perReg(E) - 1) / MmaDesc::perReg(E); }
  uint32_t aRegs(const MmaDesc &D) const { return regs(M * K / 32, D.A); }
  uint32_t bRegs(const MmaDesc &D) const { return regs(K * N / 32, D.B); }
};

/// One lane's D registers of a wmma.mma from the lane's own C registers;
/// \p ElemA(Row, Kk) and \p ElemB(Kk, Col) read any lane's A and B elements
/// (wmmaElem below). Sums as mma.sync does: in double (s32: exactly) in K
/// order from the accumulator.
template <typename GetA, typename GetB>
inline void wmmaLane(const MmaDesc &D, const WmmaShape &S, const uint64_t *C, uint32_t Lane, uint64_t *Out, GetA ElemA,
                     GetB ElemB) {
  uint32_t EC = S.M * S.N / 32;
  uint64_t Res[8];
  for (uint32_t I = 0; I < EC && I < 8; ++I) {
    uint32_t E = Lane * EC + I, Row = E / S.N, Col = E % S.N;
    double CV = mmaCValue(D, C, I), FAcc = CV;
    int64_t IAcc = int64_t(CV);
    for (uint32_t Kk = 0; Kk < S.K; ++Kk)
      mmaAccumulate(D, ElemA(Row, Kk), ElemB(Kk, Col), IAcc, FAcc);
    Res[I] = D.D == MA_S32 ? mmaIntResult(D, IAcc) : mmaFloatResult(D, FAcc);
  }
  mmaStoreD(D, Res, EC, Out);
}
/// Where element \p E (row-major) of a wmma fragment of \p Elems elements a
/// lane and element type \p T lives. For A (E = Row * K + Kk) the register
/// is Kk's alone, the same in every lane: K is a multiple of Elems.
inline MmaPos wmmaElem(uint32_t E, uint32_t Elems, uint32_t T) {
  uint32_t I = E % Elems;
  return {E / Elems, I / MmaDesc::perReg(T), I % MmaDesc::perReg(T)};
}

} // namespace zluda::ptx

#endif // ZLUDA_PTX_CODEGEN_WARPSEMANTICS_H
