//===- TensorMap.h - what our CUtensorMap's 128 bytes hold ------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A tensor map (TMA descriptor) is opaque to CUDA programs: the driver
/// writes it (cuTensorMapEncodeTiled/Im2col, cuTensorMapReplaceAddress) and
/// kernels hand it to cp.async.bulk.tensor and tensormap.replace, which the
/// device runtimes (DeviceBulk.inc) read. Freestanding: the device runtimes
/// include it too.
#ifndef ZLUDA_PTX_CODEGEN_TENSORMAP_H
#define ZLUDA_PTX_CODEGEN_TENSORMAP_H

#include <stdint.h>

namespace zluda::ptx {

struct TensorMapDesc {
  static constexpr uint32_t MagicValue = 0x414d545au; // "ZTMA"
  uint32_t Magic;
  uint8_t Rank;          ///< 1..5
  uint8_t DataType;      ///< CUtensorMapDataType
  uint8_t Interleave;    ///< CUtensorMapInterleave
  uint8_t Swizzle;       ///< CUtensorMapSwizzle
  uint8_t OobFill;       ///< CUtensorMapFloatOOBfill
  uint8_t Mode;          ///< TensorMapMode
  uint8_t ElemStrides[5];
  uint8_t Pad0;
  uint16_t Box[5];       ///< tile: elements per dimension; im2col: Box[0] channels, Box[1] pixels
  uint16_t Pad1;
  uint32_t DimMinus1[5]; ///< globalDim - 1 (a dimension may be 2^32)
  uint64_t Strides[4];   ///< bytes between consecutive indices of dimensions 1..4
  uint64_t Address;      ///< the tensor's global address
  int16_t Lower[3];      ///< im2col: the bounding box's lower corner (W, H, D)
  int16_t Upper[3];      ///< im2col: its upper corner
};
static_assert(sizeof(TensorMapDesc) <= 128, "a tensor map is 128 bytes");

enum TensorMapMode : uint8_t { TensorMapTile = 0, TensorMapIm2col = 1 };

/// Bytes per element of a CUtensorMapDataType (0: a packed sub-byte type).
static inline uint32_t tensorMapElementBytes(uint32_t DataType) {
  switch (DataType) {
  case 0:
    return 1;
  case 1:
  case 6:
  case 9:
    return 2;
  case 2:
  case 3:
  case 7:
  case 10:
  case 11:
  case 12:
    return 4;
  case 4:
  case 5:
  case 8:
    return 8;
  default:
    return 0;
  }
}

/// Whether a CUtensorMapDataType holds floats (a NaN fill applies).
static inline bool tensorMapIsFloat(uint32_t DataType) { return DataType >= 6 && DataType <= 12; }

/// The shared memory byte a swizzled tile puts at byte \p Offset of the shared
/// window: swizzle modes 1-3 (32B, 64B, 128B) exchange 16-byte chunks within
/// each 32/64/128-byte row by XOR with the row's index within 256/512/1024
/// bytes (address bits 4.. ^= bits 7..), the pattern of Hopper's TMA.
static inline uint64_t tensorMapSwizzle(uint64_t Offset, uint32_t Swizzle) {
  if (Swizzle < 1 || Swizzle > 3)
    return Offset;
  uint64_t Mask = (1u << Swizzle) - 1; // 1, 2 or 3 bits
  return Offset ^ (((Offset >> 7) & Mask) << 4);
}

// tensormap.replace's fields (the lowering's codes; DeviceRuntime.def).
enum TensorMapField : uint32_t {
  TmGlobalAddress = 0,
  TmRank,
  TmBoxDim,
  TmGlobalDim,
  TmGlobalStride,
  TmElementStride,
  TmElemType,
  TmInterleave,
  TmSwizzleMode,
  TmSwizzleAtomicity,
  TmFillMode,
};

// Flags of tensor_copy (DeviceRuntime.def).
enum TensorCopyFlags : uint32_t {
  TcRankMask = 7,     ///< dimensions of the coordinates
  TcStore = 8,        ///< shared -> global (else global -> shared)
  TcIm2col = 16,      ///< the load is in im2col mode
  TcRedShift = 8,     ///< bits 8-15: the reduction (BulkRedOp), 0 for a plain copy
};

// Reductions of cp.reduce.async.bulk{.tensor}: op << 4 | type.
enum BulkRedOp : uint32_t { BrNone = 0, BrAdd, BrMin, BrMax, BrInc, BrDec, BrAnd, BrOr, BrXor };
enum BulkRedType : uint32_t { BtU32 = 0, BtS32, BtU64, BtS64, BtF32, BtF64, BtF16, BtBF16, BtFromMap = 15 };

/// The reduction type of a tensor map's elements (CUtensorMapDataType), or BtFromMap where none applies.
static inline uint32_t tensorMapRedType(uint32_t DataType) {
  switch (DataType) {
  case 2:
    return BtU32;
  case 3:
    return BtS32;
  case 4:
    return BtU64;
  case 5:
    return BtS64;
  case 6:
    return BtF16;
  case 7:
  case 10:
    return BtF32;
  case 8:
    return BtF64;
  case 9:
    return BtBF16;
  default:
    return BtFromMap;
  }
}

} // namespace zluda::ptx

#endif // ZLUDA_PTX_CODEGEN_TENSORMAP_H
