//===- RocFft.h - the parts of rocFFT's C API our cuFFT calls --------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Our own declarations of rocFFT's ABI (rocFFT 1.0, ROCm 5 and 6:
/// `librocfft.so.0`): plans over a plan description's data layout, execution
/// infos with a stream and a work buffer. Loaded at run time (or
/// ZLUDA_ROCFFT_LIBRARY) so that our libcufft loads on machines without
/// ROCm; Debian 12 has no rocFFT. Lengths, strides and offsets are given
/// fastest dimension first. Enum values, as rocfft.h numbers them: status
/// success 0; transform types complex forward 0, complex inverse 1, real
/// forward 2, real inverse 3; precision single 0, double 1; placement in
/// place 0, not in place 1; array types complex interleaved 0, real 2,
/// hermitian interleaved 3.
#pragma once

#include <cstddef>

namespace zluda::rocfft {

using Status = int; ///< 0: success
constexpr int ComplexForward = 0, ComplexInverse = 1, RealForward = 2, RealInverse = 3;
constexpr int Single = 0, Double = 1;
constexpr int InPlace = 0, NotInPlace = 1;
constexpr int ComplexInterleaved = 0, Real = 2, HermitianInterleaved = 3;

struct Api {
  Status (*Setup)();
  /// (plan, placement, transform type, precision, dimensions, lengths, transforms, description)
  Status (*PlanCreate)(void **, int, int, int, size_t, const size_t *, size_t, void *);
  Status (*PlanDestroy)(void *);
  Status (*PlanWorkBufferSize)(void *, size_t *);
  Status (*DescriptionCreate)(void **);
  Status (*DescriptionDestroy)(void *);
  /// (description, in type, out type, in offsets, out offsets, in strides size, in strides, in distance,
  /// out strides size, out strides, out distance)
  Status (*DescriptionSetDataLayout)(void *, int, int, const size_t *, const size_t *, size_t, const size_t *, size_t,
                                     size_t, const size_t *, size_t);
  Status (*InfoCreate)(void **);
  Status (*InfoDestroy)(void *);
  Status (*InfoSetWorkBuffer)(void *, void *, size_t);
  Status (*InfoSetStream)(void *, void *);
  /// (plan, in buffers, out buffers (null in place), execution info)
  Status (*Execute)(void *, void **, void **, void *);
};

/// rocFFT, loaded and set up at the first call on the HIP backend (null when it cannot be).
const Api *api();

} // namespace zluda::rocfft
