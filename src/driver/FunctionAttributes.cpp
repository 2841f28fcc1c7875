//===- FunctionAttributes.cpp - function attributes and occupancy ----------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file cuFuncGet/SetAttribute and their cuKernel twins, the cache and shared
/// memory configurations (accepted, nothing to configure), cuFuncGetModule,
/// cuFuncIsLoaded/Load, and the occupancy calculator.
#include "driver/Internal.h"

using namespace zluda::driver;

CUresult zluda::driver::funcAttribute(int *V, int Attr, Function *F) {
  if (!V)
    return CUDA_ERROR_INVALID_VALUE;
  if (!F)
    return CUDA_ERROR_INVALID_HANDLE;
  const zluda::ptx::KernelInfo &KI = *F->Info;
  switch (Attr) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *V = static_cast<int>(KI.MaxThreadsPerBlock); break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *V = static_cast<int>(KI.StaticSharedBytes); break;
  case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *V = 0; break;
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *V = static_cast<int>(KI.LocalBytes); break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS: {
    unsigned Regs = KI.Registers ? KI.Registers : 32;
    if (F->Mod->MaxRegisters)
      Regs = std::min(Regs, F->Mod->MaxRegisters);
    *V = static_cast<int>(Regs);
    break;
  }
  case CU_FUNC_ATTRIBUTE_PTX_VERSION: *V = static_cast<int>(F->Mod->PtxVersion ? F->Mod->PtxVersion : ComputeMajor * 10 + ComputeMinor); break;
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *V = ComputeMajor * 10 + ComputeMinor; break;
  case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *V = 0; break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *V = F->MaxDynamicShared; break;
  case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *V = -1; break;
  default:
    if (Attr < 0 || Attr >= static_cast<int>(CU_FUNC_ATTRIBUTE_MAX))
      return CUDA_ERROR_INVALID_VALUE;
    *V = 0;
  }
  return CUDA_SUCCESS;
}

ZLUDA_API(cuFuncGetAttribute, (int *V, int Attr, CUfunction Fn), (V, Attr, Fn)) {
  ZLUDA_GUARD({ return funcAttribute(V, Attr, handle<Function>(Fn, Kind::Function)); });
}
ZLUDA_API(cuKernelGetAttribute, (int *V, int Attr, CUkernel K, CUdevice Dev), (V, Attr, K, Dev)) {
  if (Dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  ZLUDA_GUARD({ return funcAttribute(V, Attr, handle<Function>(K, Kind::Function)); });
}
CUresult zluda::driver::funcSetAttribute(Function *F, int Attr, int V) {
  if (!F)
    return CUDA_ERROR_INVALID_HANDLE;
  if (Attr == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    if (V < 0 || V > backend().props().SharedOptIn)
      return CUDA_ERROR_INVALID_VALUE;
    F->MaxDynamicShared = V;
    return CUDA_SUCCESS;
  }
  if (Attr == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT || Attr == CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE ||
      Attr == CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED)
    return CUDA_SUCCESS;
  return CUDA_ERROR_INVALID_VALUE;
}
ZLUDA_API(cuFuncSetAttribute, (CUfunction Fn, int Attr, int V), (Fn, Attr, V)) {
  ZLUDA_GUARD({ return funcSetAttribute(handle<Function>(Fn, Kind::Function), Attr, V); });
}
ZLUDA_API(cuKernelSetAttribute, (int Attr, int V, CUkernel K, CUdevice Arg3), (Attr, V, K, Arg3)) {
  ZLUDA_GUARD({ return funcSetAttribute(handle<Function>(K, Kind::Function), Attr, V); });
}
ZLUDA_API(cuFuncSetCacheConfig, (CUfunction Fn, int Arg1), (Fn, Arg1)) {
  return isLive(Fn, Kind::Function) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
ZLUDA_API(cuKernelSetCacheConfig, (CUkernel K, int Arg1, CUdevice Arg2), (K, Arg1, Arg2)) {
  return isLive(K, Kind::Function) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
ZLUDA_API(cuFuncSetSharedMemConfig, (CUfunction Fn, int Arg1), (Fn, Arg1)) {
  return isLive(Fn, Kind::Function) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
ZLUDA_API(cuFuncGetModule, (CUmodule *Out, CUfunction Fn), (Out, Fn)) {
  Function *F = handle<Function>(Fn, Kind::Function);
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  if (!F)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!isLive(F->Mod, Kind::Module))
    addLive(F->Mod, Kind::Module);
  *Out = reinterpret_cast<CUmodule>(F->Mod);
  return CUDA_SUCCESS;
}
ZLUDA_API(cuFuncIsLoaded, (int *State, CUfunction Fn), (State, Fn)) {
  if (!State)
    return CUDA_ERROR_INVALID_VALUE;
  *State = isLive(Fn, Kind::Function) ? 1 : 0;
  return CUDA_SUCCESS;
}
ZLUDA_API(cuFuncLoad, (CUfunction Fn), (Fn)) { return isLive(Fn, Kind::Function) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE; }

/// Blocks per multiprocessor: threads and shared memory per multiprocessor
/// are the limits (the CPU device has no register file; 2048 threads and
/// 100 KiB).
int zluda::driver::occupancy(Function *F, int BlockSize, size_t DynShared) {
  if (BlockSize <= 0)
    return 0;
  const DeviceProps &P = backend().props();
  int ByThreads = P.ThreadsPerMultiprocessor / BlockSize;
  size_t Shared = F->Info->StaticSharedBytes + DynShared;
  int ByShared = Shared ? static_cast<int>(size_t(P.SharedPerMultiprocessor) / Shared) : 32;
  return std::max(0, std::min({ByThreads, ByShared, 32}));
}

ZLUDA_API(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, (int *N, CUfunction Fn, int BlockSize, size_t Shared, unsigned Arg4), (N, Fn, BlockSize, Shared, Arg4)) {
  ZLUDA_GUARD({
    if (!N)
      return CUDA_ERROR_INVALID_VALUE;
    Function *F = handle<Function>(Fn, Kind::Function);
    if (!F)
      return CUDA_ERROR_INVALID_HANDLE;
    *N = occupancy(F, BlockSize, Shared);
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuOccupancyMaxActiveBlocksPerMultiprocessor, (int *N, CUfunction Fn, int BlockSize, size_t Shared), (N, Fn, BlockSize, Shared)) {
  return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(N, Fn, BlockSize, Shared, 0);
}
ZLUDA_API(cuOccupancyMaxPotentialBlockSizeWithFlags, (int *MinGrid, int *BlockSize, CUfunction Fn, size_t (*SharedFor)(int), size_t Shared, int Limit, unsigned Arg6), (MinGrid, BlockSize, Fn, SharedFor, Shared, Limit, Arg6)) {
  ZLUDA_GUARD({
    if (!MinGrid || !BlockSize)
      return CUDA_ERROR_INVALID_VALUE;
    Function *F = handle<Function>(Fn, Kind::Function);
    if (!F)
      return CUDA_ERROR_INVALID_HANDLE;
    int Max = static_cast<int>(F->Info->MaxThreadsPerBlock);
    if (Limit > 0)
      Max = std::min(Max, Limit);
    int Best = 32, BestOcc = 0;
    for (int B = 32; B <= Max; B += 32) {
      int Occ = occupancy(F, B, SharedFor ? SharedFor(B) : Shared) * B;
      if (Occ >= BestOcc) {
        BestOcc = Occ;
        Best = B;
      }
    }
    *BlockSize = Best;
    *MinGrid = occupancy(F, Best, SharedFor ? SharedFor(Best) : Shared) * backend().props().Multiprocessors;
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuOccupancyMaxPotentialBlockSize, (int *MinGrid, int *BlockSize, CUfunction Fn, size_t (*SharedFor)(int), size_t Shared, int Limit), (MinGrid, BlockSize, Fn, SharedFor, Shared, Limit)) {
  return cuOccupancyMaxPotentialBlockSizeWithFlags(MinGrid, BlockSize, Fn, SharedFor, Shared, Limit, 0);
}
ZLUDA_API(cuOccupancyAvailableDynamicSMemPerBlock, (size_t *Out, CUfunction Fn, int NumBlocks, int BlockSize), (Out, Fn, NumBlocks, BlockSize)) {
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  Function *F = handle<Function>(Fn, Kind::Function);
  if (!F)
    return CUDA_ERROR_INVALID_HANDLE;
  size_t PerBlock = NumBlocks > 0 ? size_t(backend().props().SharedPerMultiprocessor) / NumBlocks : 0;
  *Out = PerBlock > F->Info->StaticSharedBytes ? PerBlock - F->Info->StaticSharedBytes : 0;
  return CUDA_SUCCESS;
}
