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

#endif // ZLUDA_PTX_CODEGEN_WARPSEMANTICS_H
