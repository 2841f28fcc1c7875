//===- DeviceAbi.h - data shared by CPU kernels and the CPU executor -------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The thread context every generated CPU kernel receives as its first
/// argument. Included by the device runtime (compiled to bitcode with clang)
/// and by the executor (compiled with the host compiler): plain C layout only.
#ifndef ZLUDA_CPU_DEVICEABI_H
#define ZLUDA_CPU_DEVICEABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ZludaThreadCtx {
  uint32_t Tid[3];
  uint32_t NTid[3];
  uint32_t CtaId[3];
  uint32_t NCtaId[3];
  uint32_t LaneId;
  uint32_t WarpId;
  uint32_t NWarpId;
  uint32_t LinearTid;
  char *SharedBase;       ///< this block's shared window (static, then dynamic)
  uint64_t SharedBytes;   ///< size of the window
  uint32_t DynSharedBytes;
  uint32_t DynSharedOffset; ///< where extern .shared arrays start in the window
  uint32_t SmId;
  char *StackLo, *StackHi; ///< this thread's stack (local memory lives there)
  const uint32_t *EnvRegs; ///< %envreg0..31 of this launch
  void *Block;            ///< executor's BlockState
  void *Fiber;            ///< executor's Fiber, or null when threads run in sequence
  void *DeviceLaunches;   ///< the launch's DeviceLaunchQueue (dynamic parallelism), or null
  uint32_t ClusterDim[3]; ///< the launch's thread-block cluster (1, 1, 1 without one)
  uint32_t ClusterExplicit; ///< %is_explicit_cluster
  uint32_t ClusterGen;    ///< the phase of this thread's last barrier.cluster.arrive
  struct ZludaCluster *Cluster; ///< the running cluster, or null: a cluster of this block alone
} ZludaThreadCtx;

/// The blocks of one thread-block cluster while they run (each on its own OS
/// thread): their shared windows (rank order) and barrier.cluster's counter.
typedef struct ZludaCluster {
  char *SharedBase[16];
  uint32_t Size;    ///< blocks
  uint32_t Threads; ///< threads of all its blocks: barrier.cluster's arrivals per phase
  uint32_t Arrived; ///< arrivals of the current phase
  uint32_t Gen;     ///< the phase
} ZludaCluster;

#ifdef __cplusplus
}
#endif

#endif // ZLUDA_CPU_DEVICEABI_H
