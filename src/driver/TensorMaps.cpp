//===- TensorMaps.cpp - cuTensorMapEncode*, the descriptors of Hopper's TMA ===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The driver checks a tensor map's parameters as the Driver API
/// reference states them (CUDA_ERROR_INVALID_VALUE otherwise) and writes our
/// own layout (ptx/codegen/TensorMap.h) into the 128 opaque bytes; the device
/// runtimes read it in cp.async.bulk.tensor. Forms this device does not copy
/// yet (interleaved layouts, the 128-byte swizzle atoms and the packed 4/6-bit
/// types of Blackwell, im2col's wide mode) return CUDA_ERROR_NOT_SUPPORTED.
#include "driver/Internal.h"
#include "ptx/codegen/TensorMap.h"

#include <cstring>

namespace zluda::driver {
namespace {
using ptx::TensorMapDesc;

CUresult refuse(const char *Api, const char *What) {
  ZLUDA_LOG_WARN("{}: {} is not supported by ZLUDA yet (CUDA_ERROR_NOT_SUPPORTED)", Api, What);
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult invalidValue(const char *Api, const char *What) {
  ZLUDA_LOG_DEBUG("{}: {} (CUDA_ERROR_INVALID_VALUE)", Api, What);
  return CUDA_ERROR_INVALID_VALUE;
}

/// The checks and fields tiled and im2col maps share. Box and element
/// strides are the caller's to fill in afterwards.
CUresult encodeCommon(const char *Api, TensorMapDesc &M, CUtensorMap *Map, CUtensorMapDataType Type, uint32_t Rank,
                      void *Address, const cuuint64_t *Dims, const cuuint64_t *Strides, CUtensorMapInterleave Interleave,
                      CUtensorMapSwizzle Swizzle, CUtensorMapL2promotion L2, CUtensorMapFloatOOBfill Fill) {
  // A map at any address is encoded (an H100's driver does; a kernel's
  // copy of it is what must be 64-byte aligned, as __grid_constant__ is).
  if (!Map)
    return invalidValue(Api, "no tensor map");
  if (static_cast<uint32_t>(Type) > CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B)
    return invalidValue(Api, "unknown data type");
  uint32_t E = ptx::tensorMapElementBytes(Type);
  if (!E)
    return refuse(Api, "a packed 4- or 6-bit data type");
  if (Rank < 1 || Rank > 5)
    return invalidValue(Api, "the rank must be 1 to 5");
  if (static_cast<uint32_t>(Interleave) > CU_TENSOR_MAP_INTERLEAVE_32B ||
      static_cast<uint32_t>(Swizzle) > CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B ||
      static_cast<uint32_t>(L2) > CU_TENSOR_MAP_L2_PROMOTION_L2_256B ||
      static_cast<uint32_t>(Fill) > CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA)
    return invalidValue(Api, "unknown interleave, swizzle, L2 promotion or fill");
  if (Interleave != CU_TENSOR_MAP_INTERLEAVE_NONE && Rank < 3)
    return invalidValue(Api, "an interleaved layout needs rank 3 or more");
  if (Interleave == CU_TENSOR_MAP_INTERLEAVE_32B && Swizzle != CU_TENSOR_MAP_SWIZZLE_32B)
    return invalidValue(Api, "the 32-byte interleave needs the 32-byte swizzle");
  uintptr_t A = reinterpret_cast<uintptr_t>(Address);
  if (A % (Interleave == CU_TENSOR_MAP_INTERLEAVE_32B ? 32 : 16))
    return invalidValue(Api, "the global address must be 16-byte aligned (32 with the 32-byte interleave)");
  if (!Dims || (Rank > 1 && !Strides))
    return invalidValue(Api, "null dimensions or strides");
  for (uint32_t D = 0; D < Rank; ++D)
    if (Dims[D] == 0 || Dims[D] > (1ull << 32))
      return invalidValue(Api, "a dimension must be 1 to 2^32");
  for (uint32_t D = 0; D + 1 < Rank; ++D)
    if (Strides[D] % (Interleave == CU_TENSOR_MAP_INTERLEAVE_32B ? 32 : 16) || Strides[D] >= (1ull << 40))
      return invalidValue(Api, "a stride must be a multiple of 16 bytes (32 with the 32-byte interleave) below 2^40");
  if (Fill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA && !ptx::tensorMapIsFloat(Type))
    return invalidValue(Api, "the NaN fill needs a floating-point type");
  if (Interleave != CU_TENSOR_MAP_INTERLEAVE_NONE)
    return refuse(Api, "an interleaved layout");
  if (Swizzle > CU_TENSOR_MAP_SWIZZLE_128B)
    return refuse(Api, "a 128-byte swizzle with 32- or 64-byte atoms");
  std::memset(&M, 0, sizeof M);
  M.Magic = TensorMapDesc::MagicValue;
  M.Rank = static_cast<uint8_t>(Rank);
  M.DataType = static_cast<uint8_t>(Type);
  M.Interleave = static_cast<uint8_t>(Interleave);
  M.Swizzle = static_cast<uint8_t>(Swizzle);
  M.OobFill = static_cast<uint8_t>(Fill);
  M.Address = A;
  for (uint32_t D = 0; D < Rank; ++D)
    M.DimMinus1[D] = static_cast<uint32_t>(Dims[D] - 1);
  for (uint32_t D = 0; D + 1 < Rank; ++D)
    M.Strides[D] = Strides[D];
  return CUDA_SUCCESS;
}

CUresult checkElementStrides(const char *Api, TensorMapDesc &M, const cuuint32_t *ElementStrides) {
  if (!ElementStrides)
    return invalidValue(Api, "null element strides");
  for (uint32_t D = 0; D < M.Rank; ++D) {
    if (ElementStrides[D] < 1 || ElementStrides[D] > 8)
      return invalidValue(Api, "an element stride must be 1 to 8");
    M.ElemStrides[D] = static_cast<uint8_t>(D == 0 ? 1 : ElementStrides[D]); // dimension 0 has no stride
  }
  return CUDA_SUCCESS;
}

/// The inner dimension of a swizzled box fits its span.
CUresult checkSwizzleSpan(const char *Api, const TensorMapDesc &M, uint64_t InnerBytes) {
  static const uint64_t Span[] = {0, 32, 64, 128};
  if (M.Swizzle && InnerBytes > Span[M.Swizzle])
    return invalidValue(Api, "the box's inner dimension is wider than the swizzle span");
  return CUDA_SUCCESS;
}
} // namespace
} // namespace zluda::driver

using namespace zluda::driver;

ZLUDA_API(cuTensorMapEncodeTiled,
          (CUtensorMap * Map, CUtensorMapDataType Type, cuuint32_t Rank, void *Address, const cuuint64_t *Dims,
           const cuuint64_t *Strides, const cuuint32_t *Box, const cuuint32_t *ElementStrides,
           CUtensorMapInterleave Interleave, CUtensorMapSwizzle Swizzle, CUtensorMapL2promotion L2,
           CUtensorMapFloatOOBfill Fill),
          (Map, Type, Rank, Address, Dims, Strides, Box, ElementStrides, Interleave, Swizzle, L2, Fill)) {
  ZLUDA_GUARD({
    const char *Api = "cuTensorMapEncodeTiled";
    zluda::ptx::TensorMapDesc M;
    if (CUresult R = encodeCommon(Api, M, Map, Type, Rank, Address, Dims, Strides, Interleave, Swizzle, L2, Fill))
      return R;
    if (!Box)
      return invalidValue(Api, "null box dimensions");
    for (uint32_t D = 0; D < Rank; ++D) {
      if (Box[D] < 1 || Box[D] > 256)
        return invalidValue(Api, "a box dimension must be 1 to 256");
      M.Box[D] = static_cast<uint16_t>(Box[D]);
    }
    uint64_t Inner = uint64_t(Box[0]) * zluda::ptx::tensorMapElementBytes(Type);
    if (Inner % 16)
      return invalidValue(Api, "the box's inner dimension must be a multiple of 16 bytes");
    if (CUresult R = checkSwizzleSpan(Api, M, Inner))
      return R;
    if (CUresult R = checkElementStrides(Api, M, ElementStrides))
      return R;
    M.Mode = zluda::ptx::TensorMapTile;
    std::memset(Map, 0, sizeof *Map);
    std::memcpy(Map, &M, sizeof M);
    return CUDA_SUCCESS;
  });
}

ZLUDA_API(cuTensorMapEncodeIm2col,
          (CUtensorMap * Map, CUtensorMapDataType Type, cuuint32_t Rank, void *Address, const cuuint64_t *Dims,
           const cuuint64_t *Strides, const int *Lower, const int *Upper, cuuint32_t Channels, cuuint32_t Pixels,
           const cuuint32_t *ElementStrides, CUtensorMapInterleave Interleave, CUtensorMapSwizzle Swizzle,
           CUtensorMapL2promotion L2, CUtensorMapFloatOOBfill Fill),
          (Map, Type, Rank, Address, Dims, Strides, Lower, Upper, Channels, Pixels, ElementStrides, Interleave, Swizzle,
           L2, Fill)) {
  ZLUDA_GUARD({
    const char *Api = "cuTensorMapEncodeIm2col";
    zluda::ptx::TensorMapDesc M;
    if (CUresult R = encodeCommon(Api, M, Map, Type, Rank, Address, Dims, Strides, Interleave, Swizzle, L2, Fill))
      return R;
    if (Rank < 3)
      return invalidValue(Api, "im2col needs rank 3 to 5");
    if (!Lower || !Upper)
      return invalidValue(Api, "null bounding box corners");
    // The corners' range shrinks with the spatial dimensions: 16 bits for 1, 8 for 2, 5 for 3.
    uint32_t Spatial = Rank - 2;
    int Bits = Spatial == 1 ? 16 : Spatial == 2 ? 8 : 5, Lo = -(1 << (Bits - 1)), Hi = (1 << (Bits - 1)) - 1;
    for (uint32_t D = 0; D < Spatial; ++D) {
      if (Lower[D] < Lo || Lower[D] > Hi || Upper[D] < Lo || Upper[D] > Hi)
        return invalidValue(Api, "a bounding box corner is out of its range");
      M.Lower[D] = static_cast<int16_t>(Lower[D]);
      M.Upper[D] = static_cast<int16_t>(Upper[D]);
    }
    if (Channels < 1 || Channels > 256 || Pixels < 1 || Pixels > 1024)
      return invalidValue(Api, "channels per pixel must be 1 to 256 and pixels per column 1 to 1024");
    uint64_t Inner = uint64_t(Channels) * zluda::ptx::tensorMapElementBytes(Type);
    if (Inner % 16)
      return invalidValue(Api, "the channels of a pixel must fill a multiple of 16 bytes");
    if (CUresult R = checkSwizzleSpan(Api, M, Inner))
      return R;
    if (CUresult R = checkElementStrides(Api, M, ElementStrides))
      return R;
    M.Box[0] = static_cast<uint16_t>(Channels);
    M.Box[1] = static_cast<uint16_t>(Pixels);
    M.Mode = zluda::ptx::TensorMapIm2col;
    std::memset(Map, 0, sizeof *Map);
    std::memcpy(Map, &M, sizeof M);
    return CUDA_SUCCESS;
  });
}

ZLUDA_API(cuTensorMapReplaceAddress, (CUtensorMap * Map, void *Address), (Map, Address)) {
  ZLUDA_GUARD({
    zluda::ptx::TensorMapDesc M;
    if (!Map || reinterpret_cast<uintptr_t>(Map) % 64)
      return CUDA_ERROR_INVALID_VALUE;
    std::memcpy(&M, Map, sizeof M);
    if (M.Magic != zluda::ptx::TensorMapDesc::MagicValue)
      return CUDA_ERROR_INVALID_VALUE; // not a map this driver wrote
    uintptr_t A = reinterpret_cast<uintptr_t>(Address);
    if (A % (M.Interleave == CU_TENSOR_MAP_INTERLEAVE_32B ? 32 : 16))
      return CUDA_ERROR_INVALID_VALUE;
    M.Address = A;
    std::memcpy(Map, &M, sizeof M);
    return CUDA_SUCCESS;
  });
}
