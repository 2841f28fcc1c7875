//===- HipBlasLt.h - the parts of hipBLASLt's C API our cuBLASLt calls -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Our own declarations of hipBLASLt's ABI (facts from its public
/// reference: attribute and enum values, the heuristic result's layout),
/// loaded at run time like libamdhip64 so that our libcublasLt loads on
/// machines without ROCm. ZLUDA_HIPBLASLT_LIBRARY names another file.
/// Where hipBLASLt's values equal cuBLASLt's (data types, epilogues, pointer
/// modes, orders) they pass through unchanged; operations (111-113), compute
/// types (0-10) and statuses differ and are mapped by the caller.
#pragma once

#include <cstddef>
#include <cstdint>

namespace zluda::hipblaslt {

using Status = int; ///< hipblasStatus_t: 0 success, 1 not initialized, 2 alloc failed, 3 invalid value,
                    ///< 4 mapping error, 5 execution failed, 6 internal error, 7 not supported, 8 arch mismatch

/// hipblasLtMatmulHeuristicResult_t (on AMD): the algorithm is 16 bytes and a size_t.
struct HeuristicResult {
  uint8_t Algo[16];
  size_t AlgoMaxWorkspace;
  size_t WorkspaceSize;
  Status State;
  float WavesCount;
  int Reserved[4];
};
static_assert(sizeof(HeuristicResult) == 56, "hipblasLtMatmulHeuristicResult_t's size");

struct Api {
  Status (*Create)(void **);
  Status (*Destroy)(void *);
  Status (*LayoutCreate)(void **, int Type, uint64_t Rows, uint64_t Cols, int64_t Ld);
  Status (*LayoutDestroy)(void *);
  Status (*LayoutSet)(void *, int Attr, const void *, size_t);
  Status (*DescCreate)(void **, int Compute, int Scale);
  Status (*DescDestroy)(void *);
  Status (*DescSet)(void *, int Attr, const void *, size_t);
  Status (*PrefCreate)(void **);
  Status (*PrefDestroy)(void *);
  Status (*PrefSet)(void *, int Attr, const void *, size_t);
  Status (*Heuristic)(void *Handle, void *Desc, void *A, void *B, void *C, void *D, void *Pref, int Requested,
                      HeuristicResult *Results, int *Returned);
  Status (*Matmul)(void *Handle, void *Desc, const void *Alpha, const void *A, void *Ad, const void *B, void *Bd,
                   const void *Beta, const void *C, void *Cd, void *D, void *Dd, const void *Algo, void *Workspace,
                   size_t WorkspaceBytes, void *Stream);
};

/// hipBLASLt, loaded at the first call (null when it cannot be).
const Api *api();

// hipblasLtMatmulDescAttributes_t
constexpr int DescTransA = 0, DescTransB = 1, DescEpilogue = 2, DescBiasPointer = 3, DescBiasType = 4,
              DescAuxPointer = 10, DescAuxLd = 11, DescAuxBatchStride = 12, DescPointerMode = 13;
// hipblasLtMatrixLayoutAttribute_t
constexpr int LayoutBatchCount = 0, LayoutBatchStride = 1, LayoutOrder = 3;
// hipblasLtMatmulPreferenceAttributes_t
constexpr int PrefMaxWorkspace = 1;

} // namespace zluda::hipblaslt
