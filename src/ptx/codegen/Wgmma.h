//===- Wgmma.h - what Hopper's wgmma.mma_async computes ---------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Freestanding (stdint.h and WarpSemantics.h): the shapes, the shared
/// memory matrix descriptors and the fragment layouts of
/// wgmma.mma_async.sync.aligned.m64nNk*, for every target's runtime.
///
/// A warpgroup (four consecutive warps) computes D (64 x N) = A (64 x K) *
/// B (K x N) + D; warp w of the group holds rows 16w..16w+15 of D and (when A
/// comes from registers) of A, so each warp's part depends on its own rows of
/// A and on B only: the runtimes compute it warp by warp.
///
/// Matrix descriptors (64 bits): start address >> 4 (bits 0-13), leading
/// dimension byte offset >> 4 (16-29), stride dimension byte offset >> 4
/// (32-45), base offset (49-51), layout (62-63: 0 interleaved, 1 128-byte
/// swizzle, 2 64-byte, 3 32-byte). The canonical layouts, for a row r of the
/// M (or N) dimension and a byte kb along K (K-major, the default) or the
/// reverse (MN-major, .trans of 16-bit types):
///   K-major, interleaved: 8x16-byte core matrices; r%8 at 16 bytes, r/8 at
///     SBO; kb%16 contiguous, kb/16 at LBO.
///   K-major, W-byte swizzle: r%8 at W bytes, r/8 at SBO; kb contiguous (one
///     instruction's K is 32 bytes, within a row).
///   MN-major, interleaved: mn%8 elements contiguous (16 bytes), mn/8 at SBO;
///     k%8 at 16 bytes, k/8 at LBO.
///   MN-major, W-byte swizzle: W bytes of mn contiguous, the next W at LBO;
///     k%8 at W bytes, k/8 at SBO.
/// The swizzles exchange the 16-byte chunks of an address (bits 4..) with
/// its bits 7.. as TMA writes them (TensorMap.h), on the shared address.
#ifndef ZLUDA_PTX_CODEGEN_WGMMA_H
#define ZLUDA_PTX_CODEGEN_WGMMA_H

#include "ptx/codegen/TensorMap.h"
#include "ptx/codegen/WarpSemantics.h"

#include <stdint.h>

namespace zluda::ptx {

/// A wgmma's shape, types and immediate operands, packed into 32 bits for the runtime call.
struct WgmmaDesc {
  uint32_t A = ME_F16, B = ME_F16, D = MA_F32, N = 8;
  bool ARegs = false, NegA = false, NegB = false, TransA = false, TransB = false, Satfinite = false;
  uint32_t pack() const {
    return A | (B << 4) | (D << 8) | ((N / 8) << 10) | (uint32_t(ARegs) << 16) | (uint32_t(NegA) << 17) |
           (uint32_t(NegB) << 18) | (uint32_t(TransA) << 19) | (uint32_t(TransB) << 20) | (uint32_t(Satfinite) << 21);
  }
  static WgmmaDesc unpack(uint32_t V) {
    WgmmaDesc W;
    W.A = V & 15;
    W.B = (V >> 4) & 15;
    W.D = (V >> 8) & 3;
    W.N = ((V >> 10) & 63) * 8;
    W.ARegs = (V >> 16) & 1;
    W.NegA = (V >> 17) & 1;
    W.NegB = (V >> 18) & 1;
    W.TransA = (V >> 19) & 1;
    W.TransB = (V >> 20) & 1;
    W.Satfinite = (V >> 21) & 1;
    return W;
  }
  /// K of one instruction: 32 bytes of A's elements.
  uint32_t k() const { return 256 / MmaDesc::bits(A); }
  /// D registers of a thread: N/2 (f32, s32) or N/4 (f16x2).
  uint32_t dRegs() const { return D == MA_F16 ? N / 4 : N / 2; }
  /// The same shape as mma.sync's m16n8k* for A's register fragment of one warp.
  MmaDesc mma() const {
    MmaDesc M;
    M.A = A;
    M.B = B;
    M.C = D;
    M.D = D;
    M.M = 16;
    M.K = k();
    M.Satfinite = Satfinite;
    return M;
  }
};

/// The shared-window offset of element (R, Kk) of a matrix whose descriptor
/// is \p Desc: R along M (A) or N (B), Kk along K; \p Bits per element;
/// \p MnMajor for the transposed layouts. Sub-byte elements (b1): the byte
/// holding the element (its bit is Kk * Bits % 8).
inline uint64_t wgmmaElemOffset(uint64_t Desc, uint32_t R, uint32_t Kk, uint32_t Bits, bool MnMajor) {
  uint64_t Start = (Desc & 0x3FFF) << 4, Lbo = ((Desc >> 16) & 0x3FFF) << 4, Sbo = ((Desc >> 32) & 0x3FFF) << 4;
  uint32_t Layout = uint32_t(Desc >> 62);
  uint32_t W = Layout == 1 ? 128 : Layout == 2 ? 64 : Layout == 3 ? 32 : 0; // swizzle width
  uint64_t Off;
  if (!MnMajor) {
    uint64_t Kb = uint64_t(Kk) * Bits / 8;
    Off = W ? (R / 8) * Sbo + (R % 8) * W + Kb : (R / 8) * Sbo + (R % 8) * 16 + (Kb / 16) * Lbo + Kb % 16;
  } else {
    uint64_t Mb = uint64_t(R) * Bits / 8;
    Off = W ? (Mb / W) * Lbo + Mb % W + (Kk % 8) * W + (Kk / 8) * Sbo
            : (Mb / 16) * Sbo + Mb % 16 + (Kk % 8) * 16 + (Kk / 8) * Lbo;
  }
  Off += Start;
  return W ? tensorMapSwizzle(Off, Layout == 1 ? 3 : Layout == 2 ? 2 : 1) : Off;
}

/// D element \p I of a lane (its f32/s32 register I, or half I%2 of f16x2
/// register I/2): row (within the warp's 16) and column, as mma's C fragment
/// repeated for each 8 columns.
inline void wgmmaDElem(uint32_t Lane, uint32_t I, uint32_t &Row, uint32_t &Col) {
  uint32_t J = I / 4, E = I % 4;
  Row = (Lane >> 2) + (E >= 2 ? 8 : 0);
  Col = 8 * J + (Lane & 3) * 2 + (E & 1);
}

} // namespace zluda::ptx

#endif // ZLUDA_PTX_CODEGEN_WGMMA_H
