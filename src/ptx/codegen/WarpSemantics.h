//===- WarpSemantics.h - PTX's warp-collective rules, for every runtime ----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Freestanding (no headers): the CPU executor and the AMDGPU device
/// runtime both include it, so that the two targets cannot disagree on what
/// the PTX ISA defines.
#ifndef ZLUDA_PTX_CODEGEN_WARPSEMANTICS_H
#define ZLUDA_PTX_CODEGEN_WARPSEMANTICS_H


namespace zluda::ptx {

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
  uint32_t pack() const {
    return A | (B << 4) | (C << 8) | (D << 10) | ((M == 16 ? 1u : 0u) << 12) | (K << 13) | (uint32_t(Satfinite) << 22) |
           (uint32_t(XorPopc) << 23);
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
  /// Fragment registers of one lane: A and B (32-bit, or 64-bit for f64), C and D.
  uint32_t aRegs() const { return M == 16 ? K * bits(A) / 64 : (A == ME_F64 ? 1 : K * bits(A) / 128); }
  uint32_t bRegs() const { return M == 16 ? aRegs() / 2 : aRegs(); }
  uint32_t cRegs(uint32_t Acc) const { return (M == 16 ? 4 : 2) / (Acc == MA_F16 ? 2 : 1); }
};

} // namespace zluda::ptx

#endif // ZLUDA_PTX_CODEGEN_WARPSEMANTICS_H
