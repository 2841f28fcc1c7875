//===- RocSparse.h - the parts of rocSPARSE's C API our cuSPARSE calls -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Our own declarations of rocSPARSE's ABI as Debian 12's
/// librocsparse0 (rocSPARSE 2.3, ROCm 5.2) has it: the generic SpMV (no
/// stage argument in this version) and SpMM, and the descriptors they take.
/// Loaded at run time (`librocsparse.so.0`, or ZLUDA_ROCSPARSE_LIBRARY) so
/// that our libcusparse loads on machines without ROCm. Enum values differ
/// from cuSPARSE's and are mapped by the caller: operations 111-113, index
/// types i32 = 2 / i64 = 3, data types f32 151, f64 152, c32 154, c64 155,
/// orders row 0 / column 1, pointer modes host 0 / device 1.
#pragma once

#include <cstddef>
#include <cstdint>

namespace zluda::rocsparse {

using Status = int; ///< 0: success
struct Api {
  Status (*CreateHandle)(void **);
  Status (*DestroyHandle)(void *);
  Status (*SetStream)(void *, void *);
  Status (*SetPointerMode)(void *, int);
  Status (*CreateCsr)(void **, int64_t, int64_t, int64_t, void *, void *, void *, int, int, int, int);
  Status (*CreateCsc)(void **, int64_t, int64_t, int64_t, void *, void *, void *, int, int, int, int);
  Status (*CreateCoo)(void **, int64_t, int64_t, int64_t, void *, void *, void *, int, int, int);
  Status (*DestroySpMat)(void *);
  Status (*CreateDnVec)(void **, int64_t, void *, int);
  Status (*DestroyDnVec)(void *);
  Status (*CreateDnMat)(void **, int64_t, int64_t, int64_t, void *, int, int);
  Status (*DestroyDnMat)(void *);
  /// (handle, trans, alpha, A, x, beta, y, compute type, alg, buffer size, buffer: null for the size)
  Status (*SpMV)(void *, int, const void *, void *, void *, const void *, void *, int, int, size_t *, void *);
  /// (handle, transA, transB, alpha, A, B, beta, C, compute type, alg, stage, buffer size, buffer)
  Status (*SpMM)(void *, int, int, const void *, void *, void *, const void *, void *, int, int, int, size_t *, void *);
};

/// rocSPARSE, loaded at the first call on the HIP backend (null when it cannot be).
const Api *api();

constexpr int SpmmStageBufferSize = 1, SpmmStagePreprocess = 2, SpmmStageCompute = 3;

} // namespace zluda::rocsparse
