//===- Dim3.h - grid, block and cluster dimensions -------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The three dimensions of a grid, block or cluster, shared by the
/// driver's backend interface and the CPU executor (neither includes the other
/// for it).
#ifndef ZLUDA_COMMON_DIM3_H
#define ZLUDA_COMMON_DIM3_H

#include <cstdint>

namespace zluda {

struct Dim3 {
  uint32_t X = 1, Y = 1, Z = 1;
  uint64_t count() const { return uint64_t(X) * Y * Z; }
};

} // namespace zluda

#endif // ZLUDA_COMMON_DIM3_H
