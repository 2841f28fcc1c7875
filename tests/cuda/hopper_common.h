// Shared by the Hopper test programs (hopper_*.cu): shared-window addresses
// for inline PTX and cuTensorMapEncodeTiled found as PyTorch and Triton find
// it, through the runtime's driver entry points.
#pragma once
#include "common.h"

#include <cuda.h>

__device__ __forceinline__ unsigned smemAddr(const void *P) {
  return static_cast<unsigned>(__cvta_generic_to_shared(P));
}

typedef CUresult (*EncodeTiledFn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                  const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                  CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/// cuTensorMapEncodeTiled through cudaGetDriverEntryPointByVersion; exits with FAIL when it is missing.
inline EncodeTiledFn tensorMapEncoder() {
  EncodeTiledFn Encode = nullptr;
  cudaDriverEntryPointQueryResult Q;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void **>(&Encode), 12000,
                                         cudaEnableDefault, &Q));
  if (Q != cudaDriverEntryPointSuccess || !Encode) {
    std::printf("FAIL cuTensorMapEncodeTiled not found\n");
    std::exit(1);
  }
  return Encode;
}
