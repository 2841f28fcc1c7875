//===- TextureSampling.h - texture fetches, for every runtime --------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Freestanding (stdint.h only): what a texture object describes and how
/// `tex` reads it. The CPU executor looks a handle up in the driver's table;
/// on AMDGPU a handle is the device address of a TextureDesc the driver
/// copied there (cuTexObjectCreate), and the device runtime reads it. Both
/// sample with textureFetch below, so the two targets cannot disagree; the
/// rules NVIDIA's hardware follows at the edges are from the golden cases
/// (tests/golden/data/texture.golden).
#ifndef ZLUDA_PTX_CODEGEN_TEXTURESAMPLING_H
#define ZLUDA_PTX_CODEGEN_TEXTURESAMPLING_H

#include <stdint.h>

namespace zluda::ptx {

/// A texture object over linear or pitched memory (the same bytes on every
/// target: the driver copies it to device memory for AMDGPU).
struct TextureDesc {
  uint64_t Data = 0;          ///< the texels' device address
  uint64_t Pitch = 0;         ///< bytes per row (2D/3D); 0: packed
  uint32_t Width = 0, Height = 1, Depth = 1, Layers = 0;
  uint32_t Channels = 1;      ///< 1, 2 or 4
  uint32_t ChannelBits = 32;  ///< 8, 16 or 32
  int32_t ChannelKind = 2;    ///< 0 signed, 1 unsigned, 2 float
  int32_t AddressMode[3] = {1, 1, 1}; ///< 0 wrap, 1 clamp, 2 mirror, 3 border
  uint8_t LinearFilter = 0;
  uint8_t NormalizedCoords = 0;
  uint8_t ReadNormalizedFloat = 0; ///< cudaReadModeNormalizedFloat
  uint8_t Pad[5] = {0, 0, 0, 0, 0};
};
static_assert(sizeof(TextureDesc) == 64, "TextureDesc is copied byte for byte to AMDGPU device memory");

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

/// Channel \p Ch of texel (X, Y, Z, Layer) as a float, after the address
/// mode; \p Border is set when border addressing left the texture.
inline float texel(const TextureDesc &T, int64_t X, int64_t Y, int64_t Z, int64_t Layer, unsigned Ch, bool &Border) {
  auto addr = [&](int64_t V, int64_t N, int Mode) -> int64_t {
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
  };
  if (T.Width == 0 || T.Height == 0 || T.Depth == 0) { // an empty texture reads as the border
    Border = true;
    return 0;
  }
  X = addr(X, T.Width, T.AddressMode[0]);
  Y = addr(Y, T.Height, T.AddressMode[1]);
  Z = addr(Z, T.Depth, T.AddressMode[2]);
  if (Border)
    return 0;
  uint64_t ElemBytes = uint64_t(T.Channels) * T.ChannelBits / 8;
  uint64_t Pitch = T.Pitch ? T.Pitch : ElemBytes * T.Width;
  const char *P = reinterpret_cast<const char *>(T.Data) +
                  (uint64_t(Layer) * T.Depth * T.Height + uint64_t(Z) * T.Height + uint64_t(Y)) * Pitch +
                  uint64_t(X) * ElemBytes + Ch * (T.ChannelBits / 8);
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
      return T.ReadNormalizedFloat ? norm(V, 255.f, false) : V;
    }
  case 16:
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

/// texel() as the 32 bits `tex` writes: float bits for float and normalized
/// reads, the integer otherwise.
inline uint32_t texelBits(const TextureDesc &T, int64_t X, int64_t Y, int64_t Z, int64_t Layer, unsigned Ch) {
  bool Border = false;
  float F = texel(T, X, Y, Z, Layer, Ch, Border);
  if (Border)
    return 0;
  if (T.ChannelKind == 2 || T.ReadNormalizedFloat) {
    uint32_t B;
    __builtin_memcpy(&B, &F, 4);
    return B;
  }
  return static_cast<uint32_t>(static_cast<int32_t>(F));
}

/// One `tex` fetch: geometry \p Geom (1-3, +16 for arrays, whose layer is
/// Raw[0]), coordinates \p Raw (f32 bits, or s32 with \p IntCoords), four
/// channels to \p Out. Integer coordinates (tld-style fetches) outside the
/// texture read 0 in every address mode. Linear filtering uses full-precision
/// weights (NVIDIA's hardware: 8-bit fixed point).
inline void textureFetch(const TextureDesc &T, uint32_t Geom, const uint32_t Raw[4], bool IntCoords, uint32_t Out[4]) {
  bool Array = Geom > 16;
  unsigned Dims = Array ? Geom - 16 : Geom;
  int64_t Layer = Array ? Raw[0] : 0;
  unsigned First = Array ? 1 : 0;
  uint32_t Sizes[3] = {T.Width, T.Height, T.Depth};
  float Cf[3] = {0, 0, 0};
  int64_t I[3] = {0, 0, 0};
  bool Outside = false;
  for (unsigned D = 0; D < Dims && D < 3; ++D) {
    uint32_t R = Raw[First + D];
    if (IntCoords) {
      I[D] = static_cast<int32_t>(R);
      Outside |= I[D] < 0 || I[D] >= Sizes[D];
    } else {
      __builtin_memcpy(&Cf[D], &R, 4);
      if (T.NormalizedCoords)
        Cf[D] *= static_cast<float>(Sizes[D]);
      I[D] = texelIndex(Cf[D]);
    }
  }
  for (unsigned Ch = 0; Ch < 4; ++Ch) {
    if (Ch >= T.Channels || (IntCoords && Outside)) {
      Out[Ch] = 0;
      continue;
    }
    if (IntCoords || !T.LinearFilter) {
      Out[Ch] = texelBits(T, I[0], I[1], I[2], Layer, Ch);
      continue;
    }
    float Acc = 0, Fr[3] = {0, 0, 0};
    int64_t Base[3] = {0, 0, 0};
    for (unsigned D = 0; D < Dims && D < 3; ++D) {
      float X = Cf[D] - 0.5f;
      Base[D] = texelIndex(X);
      Fr[D] = __builtin_isfinite(X) ? X - __builtin_floorf(X) : 0;
    }
    for (unsigned K = 0; K < (1u << Dims); ++K) {
      float Wt = 1;
      int64_t Pos[3] = {Base[0], Base[1], Base[2]};
      for (unsigned D = 0; D < Dims; ++D) {
        bool Hi = (K >> D) & 1;
        Pos[D] += Hi;
        Wt *= Hi ? Fr[D] : 1 - Fr[D];
      }
      bool Border = false;
      Acc += Wt * texel(T, Pos[0], Pos[1], Pos[2], Layer, Ch, Border);
    }
    __builtin_memcpy(&Out[Ch], &Acc, 4);
  }
}

} // namespace zluda::ptx

#endif // ZLUDA_PTX_CODEGEN_TEXTURESAMPLING_H
