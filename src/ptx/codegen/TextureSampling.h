//===- TextureSampling.h - textures and surfaces, for every runtime -------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Freestanding (stdint.h only): what a texture or surface object
/// describes and how `tex`, `tld4`, `txq`, `suld`, `sust` and `suq` use it.
/// The CPU executor looks a handle up in the driver's table; on AMDGPU a
/// handle is the device address of a TextureDesc the driver copied there
/// (cuTexObjectCreate, cuSurfObjectCreate), and the device runtime reads it.
/// Both use the functions below, so the two targets cannot disagree; the
/// rules NVIDIA's hardware follows at the edges are from the golden cases
/// (tests/golden/data/texture.golden, surface.golden).
#ifndef ZLUDA_PTX_CODEGEN_TEXTURESAMPLING_H
#define ZLUDA_PTX_CODEGEN_TEXTURESAMPLING_H

#include <stdint.h>

#include "ptx/codegen/BlockCompression.h"

namespace zluda::ptx {

/// A texture or surface object over linear memory, pitched memory or a CUDA
/// array (the same bytes on every target: the driver copies it to device
/// memory for AMDGPU). A CUDA array's texels are packed rows, its layers (or
/// cubemap faces, 6 per layer) one after another, and a mipmapped array's
/// levels one after another, each level halving every extent (at least 1).
struct TextureDesc {
  uint64_t Data = 0;          ///< the texels' device address (level 0)
  uint64_t Pitch = 0;         ///< bytes per row of level 0 (2D/3D); 0: packed
  uint32_t Width = 0, Height = 1, Depth = 1, Layers = 0; ///< Layers: 0 unless layered (cubemaps: 6 faces a layer)
  uint32_t Channels = 1;      ///< 1, 2 or 4
  uint32_t ChannelBits = 32;  ///< 8, 16 or 32
  int32_t ChannelKind = 2;    ///< 0 signed, 1 unsigned, 2 float, 3 half
  int32_t AddressMode[3] = {1, 1, 1}; ///< 0 wrap, 1 clamp, 2 mirror, 3 border
  uint8_t LinearFilter = 0;
  uint8_t NormalizedCoords = 0;
  uint8_t ReadNormalizedFloat = 0; ///< cudaReadModeNormalizedFloat
  uint8_t Srgb = 0;                ///< 8-bit unsigned channels read as sRGB (r, g, b; not a)
  uint8_t MipLinear = 0;           ///< linear filtering between mipmap levels
  uint8_t Cubemap = 0;
  uint8_t Dims = 0;                ///< declared dimensions (txq: absent extents read 0); 0: from the extents
  uint8_t Pad0 = 0;
  float BorderColor[4] = {0, 0, 0, 0};
  uint32_t NumLevels = 1;          ///< mipmap levels (1: none)
  float LevelBias = 0, MinLevel = 0, MaxLevel = 0;
  uint32_t Format = 0;             ///< the CUarray_format (txq/suq)
  uint32_t Pad[7] = {0, 0, 0, 0, 0, 0, 0};
};
static_assert(sizeof(TextureDesc) == 128, "TextureDesc is copied byte for byte to AMDGPU device memory");

/// Geometry codes of the runtime calls: dimensions 1-3, 4 for cubemaps, +16 for arrays (layer first).
enum : uint32_t { GeomCube = 4, GeomArray = 16 };

inline uint32_t elemBytes(const TextureDesc &T) { return T.Channels * T.ChannelBits / 8; }

/// Packed bytes of a row of \p W texels (of blocks, in block-compressed formats).
inline uint64_t rowBytes(const TextureDesc &T, uint32_t W) {
  if (bc::isBlockCompressed(T.Format))
    return uint64_t((W + 3) / 4) * bc::blockBytes(T.Format);
  return uint64_t(elemBytes(T)) * W;
}
/// Rows of memory of \p H rows of texels (4 a row of blocks).
inline uint64_t memoryRows(const TextureDesc &T, uint32_t H) { return bc::isBlockCompressed(T.Format) ? (H + 3) / 4 : H; }

/// The description of mipmap level \p L (its own extents, address and packed pitch).
inline TextureDesc levelOf(const TextureDesc &T, uint32_t L) {
  TextureDesc R = T;
  uint64_t Slices = T.Layers ? T.Layers : 1;
  uint64_t Pitch = T.Pitch ? T.Pitch : rowBytes(T, T.Width);
  for (uint32_t K = 0; K < L && K + 1 < T.NumLevels; ++K) {
    R.Data += Pitch * memoryRows(T, R.Height) * R.Depth * Slices;
    R.Width = R.Width > 1 ? R.Width / 2 : 1;
    R.Height = R.Height > 1 ? R.Height / 2 : 1;
    R.Depth = R.Depth > 1 ? R.Depth / 2 : 1;
    Pitch = rowBytes(T, R.Width);
  }
  R.Pitch = Pitch;
  R.NumLevels = 1;
  return R;
}

/// The texel a float coordinate falls in: NaN reads texel 0, infinities the
/// far ends (as NVIDIA's hardware does).
inline int64_t texelIndex(float C) {
  if (__builtin_isnan(C))
    return 0;
  float F = __builtin_floorf(C);
  if (F >= 0x1p40f)
    return int64_t(1) << 40;
  if (F <= -0x1p40f)
    return -(int64_t(1) << 40);
  return static_cast<int64_t>(F);
}

inline float halfToFloat(uint16_t H) {
  uint32_t S = uint32_t(H >> 15) << 31, E = (H >> 10) & 31, M = H & 1023, Bits;
  if (E == 0) { // zero and subnormals: M * 2^-24, exact
    float F = static_cast<float>(M) * 0x1p-24f;
    return S ? -F : F;
  }
  Bits = E == 31 ? (S | 0x7f800000u | (M << 13)) : (S | ((E + 112) << 23) | (M << 13));
  float F;
  __builtin_memcpy(&F, &Bits, 4);
  return F;
}

/// f32 to f16 bits, rounding to nearest with ties away from zero (what the
/// H200 returns for filtered half texels); finite values past the range saturate to infinity.
inline uint16_t floatToHalfAway(float F) {
  uint32_t X;
  __builtin_memcpy(&X, &F, 4);
  uint32_t S = (X >> 16) & 0x8000, E = (X >> 23) & 0xff, M = X & 0x7fffff;
  if (E == 0xff)
    return static_cast<uint16_t>(S | 0x7c00 | (M ? 0x200 | (M >> 13) : 0));
  int32_t Ex = static_cast<int32_t>(E) - 127 + 15;
  if (Ex >= 31)
    return static_cast<uint16_t>(S | 0x7c00);
  if (Ex <= 0) {
    if (Ex < -10)
      return static_cast<uint16_t>(S);
    M |= 0x800000;
    uint32_t Shift = static_cast<uint32_t>(14 - Ex);
    return static_cast<uint16_t>(S | ((M + (1u << (Shift - 1))) >> Shift));
  }
  uint32_t H = (static_cast<uint32_t>(Ex) << 10) | (M >> 13);
  return static_cast<uint16_t>(S | (H + ((M >> 12) & 1)));
}

/// sRGB to linear for 8-bit channels: NVIDIA's hardware reads a table whose
/// entries are IEC 61966-2-1's curve at reduced precision (the H200's values
/// for every byte, tests/golden/data/texarray.golden t_tex_2d_arr2d_u8_srgb_all).
inline float srgbToLinear(uint8_t V) {
  static const uint32_t Table[256] = {
    0x00000000, 0x39a00000, 0x3a200000, 0x3a700000, 0x3aa00000, 0x3ac80000, 0x3af00000, 0x3b0c0000,
    0x3b200000, 0x3b340000, 0x3b480000, 0x3b5c0000, 0x3b700000, 0x3b840000, 0x3b900000, 0x3b9c0000,
    0x3baa0000, 0x3bb80000, 0x3bc60000, 0x3bd60000, 0x3be60000, 0x3bf60000, 0x3c030000, 0x3c0c0000,
    0x3c160000, 0x3c1f0000, 0x3c290000, 0x3c340000, 0x3c3e0000, 0x3c490000, 0x3c550000, 0x3c600000,
    0x3c6c0000, 0x3c7a0000, 0x3c830000, 0x3c8a0000, 0x3c910000, 0x3c980000, 0x3c9f0000, 0x3ca60000,
    0x3cae0000, 0x3cb60000, 0x3cbe0000, 0x3cc60000, 0x3cce0000, 0x3cd70000, 0x3ce00000, 0x3ce90000,
    0x3cf20000, 0x3cfc0000, 0x3d030000, 0x3d080000, 0x3d0d0000, 0x3d120000, 0x3d170000, 0x3d1c0000,
    0x3d220000, 0x3d280000, 0x3d2d0000, 0x3d330000, 0x3d390000, 0x3d3f0000, 0x3d450000, 0x3d4c0000,
    0x3d520000, 0x3d580000, 0x3d600000, 0x3d660000, 0x3d6c0000, 0x3d740000, 0x3d7a0000, 0x3d810000,
    0x3d850000, 0x3d880000, 0x3d8c0000, 0x3d900000, 0x3d940000, 0x3d980000, 0x3d9c0000, 0x3da00000,
    0x3da40000, 0x3da90000, 0x3dad0000, 0x3db10000, 0x3db60000, 0x3dba0000, 0x3dbf0000, 0x3dc30000,
    0x3dc80000, 0x3dcd0000, 0x3dd10000, 0x3dd60000, 0x3ddb0000, 0x3de00000, 0x3de50000, 0x3dea0000,
    0x3df00000, 0x3df40000, 0x3dfa0000, 0x3e000000, 0x3e020000, 0x3e050000, 0x3e080000, 0x3e0b0000,
    0x3e0e0000, 0x3e110000, 0x3e140000, 0x3e170000, 0x3e1a0000, 0x3e1d0000, 0x3e200000, 0x3e230000,
    0x3e260000, 0x3e290000, 0x3e2c0000, 0x3e300000, 0x3e330000, 0x3e360000, 0x3e3a0000, 0x3e3d0000,
    0x3e400000, 0x3e440000, 0x3e470000, 0x3e4b0000, 0x3e4e0000, 0x3e520000, 0x3e560000, 0x3e590000,
    0x3e5d0000, 0x3e610000, 0x3e650000, 0x3e680000, 0x3e6c0000, 0x3e700000, 0x3e740000, 0x3e780000,
    0x3e7c0000, 0x3e800000, 0x3e820000, 0x3e840000, 0x3e860000, 0x3e880000, 0x3e8a0000, 0x3e8d0000,
    0x3e8f0000, 0x3e910000, 0x3e930000, 0x3e950000, 0x3e980000, 0x3e9a0000, 0x3e9c0000, 0x3e9e0000,
    0x3ea10000, 0x3ea30000, 0x3ea50000, 0x3ea80000, 0x3eaa0000, 0x3ead0000, 0x3eaf0000, 0x3eb20000,
    0x3eb40000, 0x3eb60000, 0x3eb90000, 0x3ebc0000, 0x3ebe0000, 0x3ec10000, 0x3ec30000, 0x3ec60000,
    0x3ec80000, 0x3ecb0000, 0x3ece0000, 0x3ed10000, 0x3ed30000, 0x3ed60000, 0x3ed90000, 0x3edb0000,
    0x3ede0000, 0x3ee10000, 0x3ee40000, 0x3ee70000, 0x3eea0000, 0x3eed0000, 0x3ef00000, 0x3ef20000,
    0x3ef60000, 0x3ef80000, 0x3efc0000, 0x3efe0000, 0x3f010000, 0x3f020000, 0x3f040000, 0x3f050000,
    0x3f070000, 0x3f090000, 0x3f0a0000, 0x3f0c0000, 0x3f0d0000, 0x3f0f0000, 0x3f110000, 0x3f120000,
    0x3f140000, 0x3f160000, 0x3f170000, 0x3f190000, 0x3f1b0000, 0x3f1c0000, 0x3f1e0000, 0x3f200000,
    0x3f210000, 0x3f230000, 0x3f250000, 0x3f270000, 0x3f290000, 0x3f2a0000, 0x3f2c0000, 0x3f2e0000,
    0x3f300000, 0x3f320000, 0x3f330000, 0x3f350000, 0x3f370000, 0x3f390000, 0x3f3b0000, 0x3f3d0000,
    0x3f3f0000, 0x3f410000, 0x3f430000, 0x3f450000, 0x3f470000, 0x3f490000, 0x3f4b0000, 0x3f4d0000,
    0x3f4f0000, 0x3f510000, 0x3f530000, 0x3f550000, 0x3f570000, 0x3f590000, 0x3f5b0000, 0x3f5d0000,
    0x3f5f0000, 0x3f610000, 0x3f630000, 0x3f650000, 0x3f680000, 0x3f6a0000, 0x3f6c0000, 0x3f6e0000,
    0x3f700000, 0x3f720000, 0x3f740000, 0x3f760000, 0x3f7a0000, 0x3f7c0000, 0x3f7e0000, 0x3f800000,
  };
  float F;
  __builtin_memcpy(&F, &Table[V], 4);
  return F;
}

/// Folds \p V into [0, N) by address mode \p Mode; \p Border is set when
/// border addressing left the texture.
inline int64_t addressTexel(int64_t V, int64_t N, int Mode, bool &Border) {
  if (V >= 0 && V < N)
    return V;
  switch (Mode) {
  case 0:
    return ((V % N) + N) % N;
  case 2: {
    int64_t P = ((V % (2 * N)) + 2 * N) % (2 * N);
    return P < N ? P : 2 * N - 1 - P;
  }
  case 3:
    Border = true;
    return 0;
  default:
    return V < 0 ? 0 : N - 1;
  }
}

/// Folds texel (X, Y, Z, Layer) into the texture by the address modes (a
/// layer index clamps as an unsigned number: -1 is the last layer); false,
/// with \p Border set, when border addressing left the texture.
/// Wrap and mirror need normalized coordinates; with unnormalized ones the
/// texture unit clamps (the CUDA programming guide's rule; NVIDIA's
/// convolutionTexture sample, wrap over unnormalized coordinates, matches
/// its clamping CPU reference on the GPU).
inline int addressMode(const TextureDesc &T, int Dim) {
  int M = T.AddressMode[Dim];
  return !T.NormalizedCoords && (M == 0 || M == 2) ? 1 : M;
}

inline bool foldTexel(const TextureDesc &T, int64_t &X, int64_t &Y, int64_t &Z, int64_t &Layer, bool &Border) {
  X = addressTexel(X, T.Width, addressMode(T, 0), Border);
  Y = addressTexel(Y, T.Height, addressMode(T, 1), Border);
  Z = addressTexel(Z, T.Depth, addressMode(T, 2), Border);
  if (Border)
    return false;
  if (T.Layers && static_cast<uint64_t>(Layer) >= T.Layers)
    Layer = T.Layers - 1;
  return true;
}

/// Where folded texel (X, Y, Z, Layer) lies: its element, or in
/// block-compressed formats its 4x4 block.
inline const char *foldedAddress(const TextureDesc &T, int64_t X, int64_t Y, int64_t Z, int64_t Layer) {
  bool Block = bc::isBlockCompressed(T.Format);
  uint64_t Pitch = T.Pitch ? T.Pitch : rowBytes(T, T.Width);
  uint64_t Row = (uint64_t(Layer) * T.Depth + uint64_t(Z)) * memoryRows(T, T.Height) + uint64_t(Block ? Y / 4 : Y);
  uint64_t Column = Block ? uint64_t(X / 4) * bc::blockBytes(T.Format) : uint64_t(X) * elemBytes(T);
  return reinterpret_cast<const char *>(T.Data) + Row * Pitch + Column;
}

/// Where channel \p Ch of texel (X, Y, Z, Layer) lies after the address
/// modes; null with \p Border set when border addressing left the texture.
inline const char *texelAddress(const TextureDesc &T, int64_t X, int64_t Y, int64_t Z, int64_t Layer, unsigned Ch,
                                bool &Border) {
  if (!foldTexel(T, X, Y, Z, Layer, Border))
    return nullptr;
  return foldedAddress(T, X, Y, Z, Layer) + Ch * (T.ChannelBits / 8);
}

/// Channel \p Ch of texel (X, Y, Z, Layer) of a block-compressed texture
/// (BlockCompression.h): its block decoded. Channels the format lacks read 0
/// (alpha 1), as NVIDIA's hardware returns them.
inline float blockTexel(const TextureDesc &T, int64_t X, int64_t Y, int64_t Z, int64_t Layer, unsigned Ch,
                        bool &Border) {
  if (!foldTexel(T, X, Y, Z, Layer, Border))
    return T.BorderColor[Ch & 3];
  uint32_t F = T.Format;
  const uint8_t *P = reinterpret_cast<const uint8_t *>(foldedAddress(T, X, Y, Z, Layer));
  unsigned I = static_cast<unsigned>(Y % 4) * 4 + static_cast<unsigned>(X % 4);
  switch (F) {
  case bc::Bc4U:
  case bc::Bc4S:
    return Ch == 0 ? bc::channelBlock(P, I, F == bc::Bc4S) : Ch == 3 ? 1.0f : 0.0f;
  case bc::Bc5U:
  case bc::Bc5S:
    return Ch < 2 ? bc::channelBlock(P + 8 * Ch, I, F == bc::Bc5S) : Ch == 3 ? 1.0f : 0.0f;
  case bc::Bc6hU:
  case bc::Bc6hS: {
    if (Ch == 3)
      return 1.0f;
    uint16_t H[3];
    bc::bc6h(P, I, F == bc::Bc6hS, H);
    return halfToFloat(H[Ch]);
  }
  default: {
    uint8_t C[4];
    if (F == bc::Bc7 || F == bc::Bc7Srgb) {
      bc::bc7(P, I, C);
    } else {
      bool Bc1 = F == bc::Bc1 || F == bc::Bc1Srgb;
      bc::colourBlock(Bc1 ? P : P + 8, I, Bc1, C);
      if (F == bc::Bc2 || F == bc::Bc2Srgb)
        C[3] = bc::explicitAlpha(P, I);
      else if (F == bc::Bc3 || F == bc::Bc3Srgb)
        return Ch == 3 ? bc::channelBlock(P, I, false, true) : T.Srgb ? srgbToLinear(C[Ch]) : C[Ch] / 255.0f;
    }
    return T.Srgb && Ch < 3 ? srgbToLinear(C[Ch]) : C[Ch] / 255.0f;
  }
  }
}

/// Channel \p Ch of texel (X, Y, Z, Layer) as a float, after the address
/// mode; border addressing that leaves the texture reads the border color
/// and sets \p Border.
inline float texel(const TextureDesc &T, int64_t X, int64_t Y, int64_t Z, int64_t Layer, unsigned Ch, bool &Border) {
  if (T.Width == 0 || T.Height == 0 || T.Depth == 0) { // an empty texture reads as the border
    Border = true;
    return T.BorderColor[Ch & 3];
  }
  if (bc::isBlockCompressed(T.Format))
    return blockTexel(T, X, Y, Z, Layer, Ch, Border);
  if (T.Format == 0x50) { // CU_AD_FORMAT_UNORM_INT_101010_2: r, g, b, a from the low bits up
    const char *P = texelAddress(T, X, Y, Z, Layer, 0, Border);
    if (Border)
      return T.BorderColor[Ch & 3];
    uint32_t V;
    __builtin_memcpy(&V, P, 4);
    return Ch == 3 ? static_cast<float>(V >> 30) / 3.0f : static_cast<float>((V >> (10 * Ch)) & 1023) / 1023.0f;
  }
  const char *P = texelAddress(T, X, Y, Z, Layer, Ch, Border);
  if (Border)
    return T.BorderColor[Ch & 3];
  auto norm = [](float V, float Max, bool Signed) { return Signed && V / Max < -1.f ? -1.f : V / Max; };
  switch (T.ChannelBits) {
  case 8:
    if (T.ChannelKind == 0) {
      int8_t V;
      __builtin_memcpy(&V, P, 1);
      return T.ReadNormalizedFloat ? norm(V, 127.f, true) : V;
    } else {
      uint8_t V;
      __builtin_memcpy(&V, P, 1);
      if (!T.ReadNormalizedFloat)
        return V;
      return T.Srgb && Ch < 3 ? srgbToLinear(V) : norm(V, 255.f, false);
    }
  case 16:
    if (T.ChannelKind == 3) {
      uint16_t V;
      __builtin_memcpy(&V, P, 2);
      return halfToFloat(V);
    }
    if (T.ChannelKind == 0) {
      int16_t V;
      __builtin_memcpy(&V, P, 2);
      return T.ReadNormalizedFloat ? norm(V, 32767.f, true) : V;
    } else {
      uint16_t V;
      __builtin_memcpy(&V, P, 2);
      return T.ReadNormalizedFloat ? norm(V, 65535.f, false) : V;
    }
  default:
    if (T.ChannelKind == 2) {
      float V;
      __builtin_memcpy(&V, P, 4);
      return V;
    }
    if (T.ChannelKind == 0) {
      int32_t V;
      __builtin_memcpy(&V, P, 4);
      return static_cast<float>(V);
    }
    uint32_t V;
    __builtin_memcpy(&V, P, 4);
    return static_cast<float>(V);
  }
}

/// Whether `tex` returns floats (float and half texels, normalized reads).
inline bool readsFloat(const TextureDesc &T) { return T.ChannelKind >= 2 || T.ReadNormalizedFloat; }

/// The 32 bits `tex` writes for a channel value: float bits for float reads, the integer otherwise.
inline uint32_t channelBits(const TextureDesc &T, float F, unsigned Ch, int64_t X, int64_t Y, int64_t Z,
                            int64_t Layer) {
  if (readsFloat(T)) {
    uint32_t B;
    __builtin_memcpy(&B, &F, 4);
    return B;
  }
  // 32-bit integers read exactly (a float holds only 24 bits of them).
  if (T.ChannelBits == 32 && T.Width && T.Height && T.Depth) {
    bool Border = false;
    if (const char *P = texelAddress(T, X, Y, Z, Layer, Ch, Border)) {
      uint32_t V;
      __builtin_memcpy(&V, P, 4);
      return V;
    }
  }
  return static_cast<uint32_t>(static_cast<int32_t>(F));
}

inline uint32_t texelBits(const TextureDesc &T, int64_t X, int64_t Y, int64_t Z, int64_t Layer, unsigned Ch) {
  bool Border = false;
  float F = texel(T, X, Y, Z, Layer, Ch, Border);
  return channelBits(T, F, Ch, X, Y, Z, Layer);
}

/// A linear-filtering weight as NVIDIA's hardware keeps it: 9-bit fixed
/// point with 8 fractional bits (CUDA Programming Guide, "Linear Filtering").
inline float filterWeight(float Fr) { return __builtin_floorf(Fr * 256.0f + 0.5f) * (1.0f / 256.0f); }

/// Linear filtering's footprint along one axis: the texel coordinate minus
/// one half, rounded to 1/256 of a texel first (NVIDIA's hardware: so the
/// lower texel and the weight both come from the fixed-point value).
inline void filterAxis(float C, int64_t &Base, float &Weight) {
  float X = C - 0.5f;
  if (!__builtin_isfinite(X)) {
    Base = texelIndex(X);
    Weight = 0;
    return;
  }
  float Q = __builtin_floorf(X * 256.0f + 0.5f) * (1.0f / 256.0f);
  Base = texelIndex(Q);
  Weight = Q - __builtin_floorf(Q);
}

/// Samples one level: coordinates \p Cf already scaled to texels (or
/// integer ones in \p I with \p IntCoords), \p Dims of them.
inline void sampleLevel(const TextureDesc &T, unsigned Dims, int64_t Layer, const float Cf[3], const int64_t I[3],
                        bool IntCoords, bool Outside, uint32_t Out[4]) {
  for (unsigned Ch = 0; Ch < 4; ++Ch) {
    if (Ch >= T.Channels || (IntCoords && Outside)) {
      Out[Ch] = 0;
      continue;
    }
    if (IntCoords || !T.LinearFilter) {
      Out[Ch] = texelBits(T, I[0], I[1], I[2], Layer, Ch);
      continue;
    }
    float Acc, Fr[3] = {0, 0, 0};
    int64_t Base[3] = {0, 0, 0};
    for (unsigned D = 0; D < Dims && D < 3; ++D)
      filterAxis(Cf[D], Base[D], Fr[D]);
    if ((bc::isBlockCompressed(T.Format) || T.Format == 0x50) && Dims == 2) {
      // Compressed and 10:10:10:2 texels (the H200's filtered texels, within
      // one 16-bit step; BC6H within one half step): the corner weight wx * wy
      // rounded to 1/256, the others from it (wx - w11, wy - w11, the rest);
      // 16-bit results (halves for BC6H).
      float W[4];
      W[3] = filterWeight(Fr[0] * Fr[1]);
      W[1] = Fr[0] - W[3];
      W[2] = Fr[1] - W[3];
      W[0] = 1 - W[1] - W[2] - W[3];
      Acc = 0;
      for (unsigned K = 0; K < 4; ++K) {
        bool B = false;
        Acc += W[K] * texel(T, Base[0] + (K & 1), Base[1] + (K >> 1), 0, Layer, Ch, B);
      }
      if (T.ChannelKind == 3)
        Acc = halfToFloat(floatToHalfAway(Acc));
      else if (T.ChannelKind == 0)
        Acc = __builtin_floorf(Acc * 32767.0f + 0.5f) / 32767.0f;
      else
        Acc = __builtin_floorf(Acc * 65535.0f + 0.5f) / 65535.0f;
      __builtin_memcpy(&Out[Ch], &Acc, 4);
      continue;
    }
    // Interpolated axis by axis, x first ((1 - a) * t0 + a * t1 in f32: the
    // H200's results for float texels, bit for bit).
    float Line[4];
    unsigned Lines = 1u << (Dims - 1);
    for (unsigned K = 0; K < Lines; ++K) {
      int64_t Pos[3] = {Base[0], Base[1], Base[2]};
      for (unsigned D = 1; D < Dims; ++D)
        Pos[D] += (K >> (D - 1)) & 1;
      bool B0 = false, B1 = false;
      float T0 = texel(T, Pos[0], Pos[1], Pos[2], Layer, Ch, B0);
      float T1 = texel(T, Pos[0] + 1, Pos[1], Pos[2], Layer, Ch, B1);
      Line[K] = (1 - Fr[0]) * T0 + Fr[0] * T1;
    }
    for (unsigned D = 1; D < Dims; ++D) { // then y (pairs K, K+1), then z (K, K+2)
      unsigned Stride = 1u << (D - 1);
      for (unsigned K = 0; K < Lines; K += 2 * Stride)
        Line[K] = (1 - Fr[D]) * Line[K] + Fr[D] * Line[K + Stride];
    }
    Acc = Line[0];
    // Filtered 8- and 16-bit normalized texels come out as 16-bit fixed point,
    // half texels as halves (NVIDIA's hardware; see the golden notes).
    if (T.ReadNormalizedFloat && T.ChannelBits == 8 && !T.Srgb)
      Acc = __builtin_floorf(Acc * 65535.0f + 0.5f) / 65535.0f;
    else if (T.ChannelKind == 3)
      Acc = halfToFloat(floatToHalfAway(Acc));
    __builtin_memcpy(&Out[Ch], &Acc, 4);
  }
}

/// Cubemap face selection (CUDA Programming Guide, "Cubemap Textures"):
/// direction (X, Y, Z) -> face and normalized (U, V) on it.
inline void cubeFace(float X, float Y, float Z, uint32_t &Face, float &U, float &V) {
  float Ax = __builtin_fabsf(X), Ay = __builtin_fabsf(Y), Az = __builtin_fabsf(Z), Ma, S, Tt;
  if (__builtin_isinf(Ax) || __builtin_isinf(Ay) || __builtin_isinf(Az)) { // the H200: +z, its centre
    Face = 4;
    U = V = 0.5f;
    return;
  }
  // Ties go to z, then y (the H200's choice); NaN never wins a comparison.
  if (Ax > Ay && Ax > Az) {
    Face = X >= 0 ? 0 : 1;
    Ma = Ax;
    S = X >= 0 ? -Z : Z;
    Tt = -Y;
  } else if (Ay > Az) {
    Face = Y >= 0 ? 2 : 3;
    Ma = Ay;
    S = X;
    Tt = Y >= 0 ? Z : -Z;
  } else {
    Face = Z >= 0 || __builtin_isnan(Z) ? 4 : 5;
    Ma = Az;
    S = Z >= 0 ? X : -X;
    Tt = -Y;
  }
  U = Ma > 0 ? (S / Ma + 1) * 0.5f : 0.5f;
  V = Ma > 0 ? (Tt / Ma + 1) * 0.5f : 0.5f;
  if (__builtin_isnan(U)) // a NaN coordinate reads the face's centre
    U = 0.5f;
  if (__builtin_isnan(V))
    V = 0.5f;
}

/// Texel coordinates of a fetch: decodes the geometry and coordinates (f32
/// bits, or s32 with \p IntCoords) for level \p Lv.
struct FetchCoords {
  unsigned Dims = 1;
  int64_t Layer = 0;
  float Cf[3] = {0, 0, 0};
  int64_t I[3] = {0, 0, 0};
  bool Outside = false;
};
inline FetchCoords fetchCoords(const TextureDesc &Lv, uint32_t Geom, const uint32_t Raw[4], bool IntCoords) {
  FetchCoords F;
  bool Array = Geom & GeomArray;
  unsigned G = Geom & 15;
  unsigned First = Array ? 1 : 0;
  F.Layer = Array ? static_cast<int32_t>(Raw[0]) : 0;
  if (G == GeomCube) {
    float C[3];
    for (unsigned D = 0; D < 3; ++D)
      __builtin_memcpy(&C[D], &Raw[First + D], 4);
    uint32_t Face;
    float U, V;
    cubeFace(C[0], C[1], C[2], Face, U, V);
    F.Layer = F.Layer * 6 + Face;
    F.Dims = 2;
    F.Cf[0] = U * static_cast<float>(Lv.Width);
    F.Cf[1] = V * static_cast<float>(Lv.Height);
    F.I[0] = texelIndex(F.Cf[0]);
    F.I[1] = texelIndex(F.Cf[1]);
    return F;
  }
  F.Dims = G;
  uint32_t Sizes[3] = {Lv.Width, Lv.Height, Lv.Depth};
  for (unsigned D = 0; D < G && D < 3; ++D) {
    uint32_t R = Raw[First + D];
    if (IntCoords) {
      F.I[D] = static_cast<int32_t>(R);
      F.Outside |= F.I[D] < 0 || F.I[D] >= Sizes[D];
    } else {
      __builtin_memcpy(&F.Cf[D], &R, 4);
      if (Lv.NormalizedCoords)
        F.Cf[D] *= static_cast<float>(Sizes[D]);
      F.I[D] = texelIndex(F.Cf[D]);
    }
  }
  return F;
}

/// The level of detail a fetch uses: \p Lod (tex.level, or computed from
/// gradients) plus the bias, clamped to the texture's range.
inline float clampLod(const TextureDesc &T, float Lod) {
  Lod += T.LevelBias;
  float Max = T.MaxLevel < float(T.NumLevels - 1) ? T.MaxLevel : float(T.NumLevels - 1);
  if (!(Lod >= T.MinLevel)) // NaN too
    Lod = T.MinLevel;
  if (Lod > Max)
    Lod = Max;
  return Lod < 0 ? 0 : Lod;
}

/// One `tex` fetch at level of detail \p Lod: geometry \p Geom, coordinates
/// \p Raw (f32 bits, or s32 with \p IntCoords), four channels to \p Out.
/// Integer coordinates (tld-style fetches) outside the texture read 0 in
/// every address mode.
inline void textureFetchLod(const TextureDesc &T, uint32_t Geom, const uint32_t Raw[4], bool IntCoords, float Lod,
                            uint32_t Out[4]) {
  if (T.NumLevels <= 1) {
    FetchCoords F = fetchCoords(T, Geom, Raw, IntCoords);
    sampleLevel(T, F.Dims, F.Layer, F.Cf, F.I, IntCoords, F.Outside, Out);
    return;
  }
  Lod = IntCoords ? (Lod < 0 ? 0 : Lod) : clampLod(T, Lod);
  uint32_t L0 = static_cast<uint32_t>(Lod);
  if (L0 >= T.NumLevels)
    L0 = T.NumLevels - 1;
  // The level of detail is fixed point with 8 fractional bits (truncated).
  float Frac = __builtin_floorf((Lod - static_cast<float>(L0)) * 256.0f) * (1.0f / 256.0f);
  if (IntCoords || !T.MipLinear || !readsFloat(T) || L0 + 1 >= T.NumLevels || Frac == 0) {
    uint32_t L = IntCoords || T.MipLinear ? L0 : static_cast<uint32_t>(Lod + 0.5f); // point: the nearest level
    if (L >= T.NumLevels)
      L = T.NumLevels - 1;
    TextureDesc Lv = levelOf(T, L);
    FetchCoords F = fetchCoords(Lv, Geom, Raw, IntCoords);
    sampleLevel(Lv, F.Dims, F.Layer, F.Cf, F.I, IntCoords, F.Outside, Out);
    return;
  }
  uint32_t A[4], B[4];
  TextureDesc La = levelOf(T, L0), Lb = levelOf(T, L0 + 1);
  FetchCoords Fa = fetchCoords(La, Geom, Raw, false), Fb = fetchCoords(Lb, Geom, Raw, false);
  sampleLevel(La, Fa.Dims, Fa.Layer, Fa.Cf, Fa.I, false, false, A);
  sampleLevel(Lb, Fb.Dims, Fb.Layer, Fb.Cf, Fb.I, false, false, B);
  float W = Frac;
  for (unsigned Ch = 0; Ch < 4; ++Ch) {
    float X, Y;
    __builtin_memcpy(&X, &A[Ch], 4);
    __builtin_memcpy(&Y, &B[Ch], 4);
    float R = (1 - W) * X + W * Y;
    __builtin_memcpy(&Out[Ch], &R, 4);
  }
}

inline void textureFetch(const TextureDesc &T, uint32_t Geom, const uint32_t Raw[4], bool IntCoords, uint32_t Out[4]) {
  textureFetchLod(T, Geom, Raw, IntCoords, 0, Out);
}

/// tex.grad: the level of detail from the gradients: log2 of the larger
/// singular value of the texel-space Jacobian [dP/dx dP/dy] (the major axis
/// of the footprint's ellipse; the H200's levels follow it within 0.08).
inline float gradientLod(const TextureDesc &T, uint32_t Geom, const float Dx[4], const float Dy[4]) {
  unsigned Dims = (Geom & 15) == GeomCube ? 2 : (Geom & 15);
  float Scale[3] = {float(T.Width), float(T.Height), float(T.Depth)};
  float A = 0, C = 0, Bc = 0;
  for (unsigned D = 0; D < Dims && D < 3; ++D) {
    float S = T.NormalizedCoords || (Geom & 15) == GeomCube ? Scale[D] : 1.0f;
    float X = Dx[D] * S, Y = Dy[D] * S;
    A += X * X;
    C += Y * Y;
    Bc += X * Y;
  }
  float H = (A - C) * 0.5f;
  float Largest = (A + C) * 0.5f + __builtin_sqrtf(H * H + Bc * Bc);
  return Largest > 0 ? 0.5f * __builtin_log2f(Largest) : -128.0f;
}

/// tld4: channel \p Comp of the 2x2 texels bilinear filtering would use, in
/// the order (u0, v1), (u1, v1), (u1, v0), (u0, v0).
inline void textureGather(const TextureDesc &T, uint32_t Geom, const uint32_t Raw[4], unsigned Comp, uint32_t Out[4]) {
  FetchCoords F = fetchCoords(T, Geom, Raw, false);
  int64_t U0, V0;
  float Wu, Wv;
  filterAxis(F.Cf[0], U0, Wu);
  filterAxis(F.Cf[1], V0, Wv);
  const int64_t Us[4] = {U0, U0 + 1, U0 + 1, U0}, Vs[4] = {V0 + 1, V0 + 1, V0, V0};
  for (unsigned K = 0; K < 4; ++K)
    Out[K] = Comp < T.Channels ? texelBits(T, Us[K], Vs[K], 0, F.Layer, Comp) : 0;
}

/// txq / suq: \p Query is the attribute (TexQuery), \p Level the mipmap level (width/height/depth).
enum TexQuery : uint32_t {
  TqWidth,
  TqHeight,
  TqDepth,
  TqChannelDataType,
  TqChannelOrder,
  TqNormalizedCoords,
  TqFilterMode,
  TqAddrMode0,
  TqAddrMode1,
  TqAddrMode2,
  TqArraySize,
  TqNumMipmapLevels,
  TqNumSamples,
  TqMemoryLayout,
};
inline int32_t textureQuery(const TextureDesc &T, uint32_t Query, uint32_t Level) {
  TextureDesc Lv = Level ? levelOf(T, Level) : T;
  switch (Query) {
  case TqWidth:
    return static_cast<int32_t>(Lv.Width);
  case TqHeight: // extents a texture does not have read 0 (the H200: depth of a 2D texture)
    return T.Dims && T.Dims < 2 ? 0 : static_cast<int32_t>(Lv.Height);
  case TqDepth: // a layered texture's depth is its layer count (the H200)
    if (T.Layers && !T.Cubemap)
      return static_cast<int32_t>(T.Layers);
    return T.Dims && T.Dims < 3 ? 0 : static_cast<int32_t>(Lv.Depth);
  case TqChannelDataType:
    return static_cast<int32_t>(T.Format);
  case TqChannelOrder:
    return static_cast<int32_t>(T.Channels);
  case TqNormalizedCoords:
    return T.NormalizedCoords;
  case TqFilterMode:
    return T.LinearFilter;
  case TqAddrMode0:
  case TqAddrMode1:
  case TqAddrMode2:
    return T.AddressMode[Query - TqAddrMode0];
  case TqArraySize:
    return static_cast<int32_t>(T.Cubemap ? T.Layers / 6 : T.Layers);
  case TqNumMipmapLevels:
    return static_cast<int32_t>(T.NumLevels);
  case TqNumSamples:
    return 0;
  case TqMemoryLayout:
    return T.Pitch && !T.Layers && T.NumLevels <= 1 ? 1 : 0;
  }
  return 0;
}

/// Where a surface access lands: the byte address of element (X in bytes
/// for .b accesses, in elements for .p; Y, Z, Layer) after the clamp mode
/// (0 trap, 1 clamp, 2 zero), or 0 when it reads zero / stores nothing;
/// \p Trap is set for an access .trap refuses.
inline uint64_t surfaceAddress(const TextureDesc &T, uint32_t Geom, const uint32_t Raw[4], uint32_t Bytes,
                               bool XInElements, uint32_t Clamp, bool &Trap) {
  bool Array = Geom & GeomArray;
  unsigned Dims = Geom & 15;
  unsigned First = Array ? 1 : 0;
  int64_t Layer = Array ? static_cast<int32_t>(Raw[0]) : 0;
  int64_t C[3] = {0, 0, 0};
  for (unsigned D = 0; D < Dims && D < 3; ++D)
    C[D] = static_cast<int32_t>(Raw[First + D]);
  int64_t RowBytes = int64_t(elemBytes(T)) * T.Width;
  int64_t Xb = XInElements ? C[0] * elemBytes(T) : C[0];
  int64_t Ext[3] = {RowBytes, T.Height, T.Depth};
  C[0] = Xb;
  bool Out = T.Layers ? static_cast<uint64_t>(Layer) >= T.Layers : false;
  for (unsigned D = 0; D < 3; ++D)
    Out |= C[D] < 0 || (D == 0 ? C[D] + Bytes > Ext[0] : C[D] >= Ext[D]);
  if (Out) {
    if (Clamp == 0) {
      Trap = true;
      return 0;
    }
    if (Clamp == 2)
      return 0;
    if (C[0] < 0)
      C[0] = 0;
    if (C[0] + Bytes > Ext[0])
      C[0] = Ext[0] >= Bytes ? (Ext[0] - Bytes) / Bytes * Bytes : 0;
    for (unsigned D = 1; D < 3; ++D)
      C[D] = C[D] < 0 ? 0 : (C[D] >= Ext[D] ? Ext[D] - 1 : C[D]);
    if (T.Layers && static_cast<uint64_t>(Layer) >= T.Layers)
      Layer = T.Layers - 1; // as unsigned numbers: -1 is the last layer (the H200)
  }
  uint64_t Pitch = T.Pitch ? T.Pitch : uint64_t(RowBytes);
  return T.Data + (uint64_t(Layer) * T.Depth * T.Height + uint64_t(C[2]) * T.Height + uint64_t(C[1])) * Pitch +
         uint64_t(C[0]);
}

/// What tex_sample does (the runtime call behind tex.level, tex.grad, cube
/// geometries and tld4): \p Mode 0 plain, 1 level (Extra[0]), 2 gradients
/// (Extra[0..3] dP/dx, Extra[4..7] dP/dy), 4 + c: tld4 of channel c.
inline void textureSample(const TextureDesc &T, uint32_t Geom, const uint32_t Raw[4], bool IntCoords, uint32_t Mode,
                          const float Extra[8], uint32_t Out[4]) {
  if (Mode >= 4) {
    textureGather(T, Geom, Raw, Mode - 4, Out);
    return;
  }
  float Lod = Mode == 1 ? Extra[0] : Mode == 2 ? gradientLod(T, Geom, Extra, Extra + 4) : 0.0f;
  textureFetchLod(T, Geom, Raw, IntCoords, Lod, Out);
}

/// f32 to f16 bits as sust.p stores them (the H200): rounding toward zero,
/// finite values past the range saturate to the largest half, NaN is 0x7e00.
inline uint16_t floatToHalfStore(float F) {
  uint32_t X;
  __builtin_memcpy(&X, &F, 4);
  uint32_t S = (X >> 16) & 0x8000, E = (X >> 23) & 0xff, M = X & 0x7fffff;
  if (E == 0xff)
    return static_cast<uint16_t>(M ? 0x7e00 : (S | 0x7c00));
  int32_t Ex = static_cast<int32_t>(E) - 127 + 15;
  if (Ex >= 31)
    return static_cast<uint16_t>(S | 0x7bff);
  if (Ex <= 0) {
    if (Ex < -10)
      return static_cast<uint16_t>(S);
    return static_cast<uint16_t>(S | ((M | 0x800000) >> (14 - Ex)));
  }
  return static_cast<uint16_t>(S | (static_cast<uint32_t>(Ex) << 10) | (M >> 13));
}

/// How a surface access ends: done, refused by .trap outside the surface
/// (CUDA_ERROR_ILLEGAL_ADDRESS on NVIDIA's), or misaligned: an unformatted
/// access whose x is not a multiple of its size, in every clamp mode
/// (CUDA_ERROR_MISALIGNED_ADDRESS, the H200's answer).
enum SurfaceResult : int { SurfaceDone = 0, SurfaceTrap = 1, SurfaceMisaligned = 2 };

inline bool surfaceMisaligned(uint32_t Geom, const uint32_t Raw[4], uint32_t Size) {
  uint32_t X = Raw[(Geom & GeomArray) ? 1 : 0];
  return Size && (X % Size) != 0;
}

/// suld: \p Vec components of \p Bytes each into \p Buf (packed).
inline int surfaceLoad(const TextureDesc &T, uint32_t Geom, const uint32_t Raw[4], uint32_t Bytes, uint32_t Vec,
                       uint32_t Flags, unsigned char *Buf) {
  if (surfaceMisaligned(Geom, Raw, Bytes * Vec))
    return SurfaceMisaligned;
  bool Trap = false;
  uint64_t A = surfaceAddress(T, Geom, Raw, Bytes * Vec, false, Flags & 3, Trap);
  if (Trap)
    return SurfaceTrap;
  for (uint32_t I = 0; I < Bytes * Vec; ++I)
    Buf[I] = A ? reinterpret_cast<const unsigned char *>(A)[I] : 0;
  return SurfaceDone;
}

/// sust.b (bytes as given) or sust.p (Flags & 4: 32-bit components converted
/// to the surface's channels, x in elements).
inline int surfaceStore(const TextureDesc &T, uint32_t Geom, const uint32_t Raw[4], uint32_t Bytes, uint32_t Vec,
                        uint32_t Flags, const unsigned char *Buf) {
  bool Trap = false;
  bool Formatted = Flags & 4;
  if (!Formatted && surfaceMisaligned(Geom, Raw, Bytes * Vec))
    return SurfaceMisaligned;
  uint32_t ChBytes = T.ChannelBits / 8;
  uint32_t Span = Formatted ? elemBytes(T) : Bytes * Vec;
  uint64_t A = surfaceAddress(T, Geom, Raw, Span, Formatted, Flags & 3, Trap);
  if (Trap)
    return SurfaceTrap;
  if (!A)
    return SurfaceDone; // .zero: an access outside stores nothing
  unsigned char *P = reinterpret_cast<unsigned char *>(A);
  if (!Formatted) {
    for (uint32_t I = 0; I < Bytes * Vec; ++I)
      P[I] = Buf[I];
    return SurfaceDone;
  }
  for (uint32_t Ch = 0; Ch < T.Channels && Ch < Vec; ++Ch) {
    uint32_t V;
    __builtin_memcpy(&V, Buf + Ch * 4, 4);
    if (T.ChannelKind == 3) {
      float F;
      __builtin_memcpy(&F, &V, 4);
      uint16_t H = floatToHalfStore(F);
      __builtin_memcpy(P + Ch * 2, &H, 2);
    } else {
      __builtin_memcpy(P + Ch * ChBytes, &V, ChBytes); // little-endian: the low bytes
    }
  }
  return SurfaceDone;
}

} // namespace zluda::ptx

#endif // ZLUDA_PTX_CODEGEN_TEXTURESAMPLING_H
