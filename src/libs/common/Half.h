//===- Half.h - half and bfloat16 conversions of the math libraries ------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file IEEE binary16 and bfloat16 to and from f32, rounding to nearest even
/// (NaNs stay NaNs, overflow goes to infinity, subnormals are kept).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace zluda::libs {
inline float halfToFloat(uint16_t H) {
  uint32_t Sign = (H & 0x8000u) << 16, Exp = (H >> 10) & 0x1f, Man = H & 0x3ff, Bits;
  if (Exp == 0x1f) {
    Bits = Sign | 0x7f800000u | (Man << 13);
  } else if (Exp == 0) {
    if (Man == 0) {
      Bits = Sign;
    } else { // subnormal: normalize
      int E = -1;
      do {
        ++E;
        Man <<= 1;
      } while (!(Man & 0x400));
      Bits = Sign | ((127 - 15 - E) << 23) | ((Man & 0x3ff) << 13);
    }
  } else {
    Bits = Sign | ((Exp + 127 - 15) << 23) | (Man << 13);
  }
  float F;
  std::memcpy(&F, &Bits, 4);
  return F;
}

inline uint16_t floatToHalf(float F) { // round to nearest even
  uint32_t X;
  std::memcpy(&X, &F, 4);
  uint32_t Sign = (X >> 16) & 0x8000u, Abs = X & 0x7fffffffu;
  if (Abs >= 0x7f800000u) // inf or NaN
    return static_cast<uint16_t>(Sign | 0x7c00u | (Abs > 0x7f800000u ? 0x200u | ((Abs >> 13) & 0x3ff) : 0));
  if (Abs >= 0x477ff000u) // rounds to >= 65520: infinity
    return static_cast<uint16_t>(Sign | 0x7c00u);
  if (Abs < 0x38800000u) { // below the smallest normal half: a subnormal (or 0)
    float A;
    std::memcpy(&A, &Abs, 4);
    // Units of 2^-24, rounded to nearest even by the FPU's default mode.
    uint32_t M = static_cast<uint32_t>(std::nearbyint(A * 16777216.0f));
    return static_cast<uint16_t>(Sign | M);
  }
  uint32_t Mant = Abs & 0x7fffffu, Exp = (Abs >> 23) - 127 + 15;
  uint32_t H = (Exp << 10) | (Mant >> 13), Rest = Mant & 0x1fffu;
  if (Rest > 0x1000u || (Rest == 0x1000u && (H & 1)))
    ++H; // may carry into the exponent: correct
  return static_cast<uint16_t>(Sign | H);
}

inline float bf16ToFloat(uint16_t B) {
  uint32_t Bits = static_cast<uint32_t>(B) << 16;
  float F;
  std::memcpy(&F, &Bits, 4);
  return F;
}

inline uint16_t floatToBf16(float F) {
  uint32_t X;
  std::memcpy(&X, &F, 4);
  if ((X & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((X >> 16) | 0x40); // quiet NaN
  X += 0x7fffu + ((X >> 16) & 1);
  return static_cast<uint16_t>(X >> 16);
}

/// Whole arrays: \p N halves to floats and back (rounding to nearest even),
/// with the CPU's F16C conversions where it has them (LibSupport.cpp).
void halvesToFloats(const uint16_t *In, float *Out, size_t N);
void floatsToHalves(const float *In, uint16_t *Out, size_t N);

} // namespace zluda::libs
