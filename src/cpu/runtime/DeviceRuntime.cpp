//===- DeviceRuntime.cpp - the CPU device runtime (compiled to bitcode) ----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Implements the inlinable part of ptx/codegen/DeviceRuntime.def for
/// the CPU device. Built with clang -emit-llvm at build time and linked into
/// every JIT module, so special registers and conversions inline into the
/// kernels. Functions that need the executor (barriers, warp collectives,
/// printf, traps) are only declared here and bound to host code by the JIT.
/// Freestanding: no headers beyond the ABI, no libc++.
#include "cpu/DeviceAbi.h"

#define RT extern "C" __attribute__((always_inline))
typedef ZludaThreadCtx Ctx;

RT uint32_t __zluda_ptx_sreg_tid(Ctx *C, uint32_t D) { return C->Tid[D]; }
RT uint32_t __zluda_ptx_sreg_ntid(Ctx *C, uint32_t D) { return C->NTid[D]; }
RT uint32_t __zluda_ptx_sreg_ctaid(Ctx *C, uint32_t D) { return C->CtaId[D]; }
RT uint32_t __zluda_ptx_sreg_nctaid(Ctx *C, uint32_t D) { return C->NCtaId[D]; }
RT uint32_t __zluda_ptx_sreg_laneid(Ctx *C) { return C->LaneId; }
RT uint32_t __zluda_ptx_sreg_warpid(Ctx *C) { return C->WarpId; }
RT uint32_t __zluda_ptx_sreg_nwarpid(Ctx *C) { return C->NWarpId; }
RT uint32_t __zluda_ptx_sreg_smid(Ctx *C) { return C->SmId; }
RT uint32_t __zluda_ptx_sreg_dynamic_smem_size(Ctx *C) { return C->DynSharedBytes; }
RT uint32_t __zluda_ptx_sreg_total_smem_size(Ctx *C) { return (uint32_t)C->SharedBytes; }
RT uint32_t __zluda_ptx_sreg_envreg(Ctx *C, uint32_t I) { return I < 32 ? C->EnvRegs[I] : 0; }
RT uint64_t __zluda_ptx_sreg_gridid(Ctx *) { return 1; }
RT char *__zluda_ptx_shared_base(Ctx *C) { return C->SharedBase; }
RT uint64_t __zluda_ptx_dyn_shared_offset(Ctx *C) { return C->DynSharedOffset; }
RT bool __zluda_ptx_is_shared(Ctx *C, char *P) {
  return P >= C->SharedBase && P < C->SharedBase + C->SharedBytes;
}
RT bool __zluda_ptx_is_local(Ctx *C, char *P) { return P >= C->StackLo && P < C->StackHi; }
RT uint64_t __zluda_ptx_sreg_clock64(Ctx *) { return __builtin_readcyclecounter(); }

#include "ptx/codegen/WarpSemantics.h" // MbarOp, for DeviceFloat.inc; ClusterReg

// --- thread-block clusters -------------------------------------------------------

static inline uint32_t clusterDim(Ctx *C, uint32_t D) { return C->ClusterDim[D] ? C->ClusterDim[D] : 1; }
static inline uint32_t clusterRank(Ctx *C) {
  uint32_t X = C->CtaId[0] % clusterDim(C, 0), Y = C->CtaId[1] % clusterDim(C, 1), Z = C->CtaId[2] % clusterDim(C, 2);
  return X + clusterDim(C, 0) * (Y + clusterDim(C, 1) * Z);
}
RT uint32_t __zluda_ptx_sreg_cluster(Ctx *C, uint32_t W) {
  using namespace zluda::ptx;
  if (W < CrNCtaId)
    return C->CtaId[W] % clusterDim(C, W);
  if (W < CrClusterId)
    return clusterDim(C, W - CrNCtaId);
  if (W < CrNClusterId)
    return C->CtaId[W - CrClusterId] / clusterDim(C, W - CrClusterId);
  if (W < CrCtaRank)
    return C->NCtaId[W - CrNClusterId] / clusterDim(C, W - CrNClusterId);
  if (W == CrCtaRank)
    return clusterRank(C);
  if (W == CrNCtaRank)
    return clusterDim(C, 0) * clusterDim(C, 1) * clusterDim(C, 2);
  return C->ClusterExplicit;
}
/// The shared window of block \p Rank of the cluster (null: no such block).
static inline char *clusterWindow(Ctx *C, uint32_t Rank) {
  if (!C->Cluster)
    return Rank == 0 ? C->SharedBase : nullptr;
  return Rank < C->Cluster->Size ? C->Cluster->SharedBase[Rank] : nullptr;
}
RT char *__zluda_ptx_cluster_shared(Ctx *C, uint64_t A) {
  uint32_t R = (uint32_t)(A >> 24) & 0xff;
  char *Base = R ? clusterWindow(C, R - 1) : C->SharedBase;
  return Base ? Base + (A & 0xffffff) : (char *)(A & 0xffffff); // no such block: an address that faults
}
RT char *__zluda_ptx_cluster_map(Ctx *C, char *P, uint32_t Rank) {
  char *Base = clusterWindow(C, Rank);
  if (!Base || P < C->SharedBase || P >= C->SharedBase + C->SharedBytes)
    return (char *)0;
  return Base + (P - C->SharedBase);
}
RT uint32_t __zluda_ptx_cluster_rank_of(Ctx *C, char *P) {
  uint32_t N = C->Cluster ? C->Cluster->Size : 1;
  for (uint32_t R = 0; R < N; ++R) {
    char *Base = clusterWindow(C, R);
    if (Base && P >= Base && P < Base + C->SharedBytes)
      return R;
  }
  return clusterRank(C);
}
#include "ptx/codegen/DeviceFloat.inc"
#include "ptx/codegen/DeviceBulk.inc"

// --- directed rounding: the host switches the FPU rounding mode ---------------

extern "C" float __zluda_host_fop_f32(uint32_t Op, uint32_t Mode, float A, float B, float C);
extern "C" double __zluda_host_fop_f64(uint32_t Op, uint32_t Mode, double A, double B, double C);
extern "C" float __zluda_host_i64_to_f32(uint64_t V, uint32_t Signed, uint32_t Mode);
extern "C" double __zluda_host_i64_to_f64(uint64_t V, uint32_t Signed, uint32_t Mode);

RT float __zluda_ptx_fop_f32(Ctx *, uint32_t Op, uint32_t Mode, float A, float B, float C) {
  return __zluda_host_fop_f32(Op, Mode, A, B, C);
}
RT double __zluda_ptx_fop_f64(Ctx *, uint32_t Op, uint32_t Mode, double A, double B, double C) {
  return __zluda_host_fop_f64(Op, Mode, A, B, C);
}
RT float __zluda_ptx_i64_to_f32(Ctx *, uint64_t V, uint32_t Signed, uint32_t Mode) {
  return __zluda_host_i64_to_f32(V, Signed, Mode);
}
RT double __zluda_ptx_i64_to_f64(Ctx *, uint64_t V, uint32_t Signed, uint32_t Mode) {
  return __zluda_host_i64_to_f64(V, Signed, Mode);
}
