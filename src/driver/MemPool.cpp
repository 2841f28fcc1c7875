//===- MemPool.cpp - stream-ordered allocation pools ------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file cuMemPoolCreate/Destroy, the device's default and current pools,
/// pool attributes and access. Allocations of cuMemAllocAsync (the current
/// pool) and cuMemAllocFromPoolAsync (a given pool) are made at the call, as
/// every stream-ordered allocation here (Memory.cpp), and counted in their
/// pool; a free gives the memory back to the device at once, so no pool
/// keeps memory beyond its allocations: the release threshold is kept and
/// returned but there is never anything above it to release, and reserved
/// memory equals used memory. IPC of pools (export/import of pools and
/// pointers) is not implemented: those calls return CUDA_ERROR_NOT_SUPPORTED.
#include "driver/Internal.h"

#include <cstring>

namespace zluda::driver {

struct MemPool {
  bool Default = false;
  bool Destroyed = false; ///< cuMemPoolDestroy with allocations outstanding: goes with the last
  unsigned char Props[88] = {}; ///< CUmemPoolProps as given
  uint64_t ReleaseThreshold = 0;
  int FollowEventDependencies = 1, AllowOpportunistic = 1, AllowInternalDependencies = 1;
  uint64_t Used = 0, UsedHigh = 0, ReservedHigh = 0;
  unsigned Access = 3; ///< CU_MEM_ACCESS_FLAGS_PROT_READWRITE for device 0
};

namespace {

// Everything here runs with State::Mu held (the allocation table's lock,
// which also guards the live-handle table): handles are looked up in
// S.Live directly.

/// The device's default pool, made on first use (S.Mu held).
MemPool &defaultPool(State &S) {
  static MemPool *P = nullptr;
  if (!P) {
    P = new MemPool; // lives for the process: handles to it stay valid
    P->Default = true;
    const int Pinned = 1, Device = 1;
    std::memcpy(P->Props, &Pinned, 4);
    std::memcpy(P->Props + 8, &Device, 4);
    S.Live[P] = Kind::MemPool;
  }
  return *P;
}

MemPool *&currentPool() {
  static MemPool *Current = nullptr;
  return Current;
}

/// The pool behind \p H, or null (S.Mu held).
MemPool *poolOf(State &S, CUmemoryPool H) {
  auto It = S.Live.find(reinterpret_cast<void *>(H));
  return It != S.Live.end() && It->second == Kind::MemPool ? reinterpret_cast<MemPool *>(H) : nullptr;
}

enum : int {
  AttrReuseFollowEventDependencies = 1,
  AttrReuseAllowOpportunistic = 2,
  AttrReuseAllowInternalDependencies = 3,
  AttrReleaseThreshold = 4,
  AttrReservedMemCurrent = 5,
  AttrReservedMemHigh = 6,
  AttrUsedMemCurrent = 7,
  AttrUsedMemHigh = 8,
};

} // namespace

CUresult poolAttach(CUdeviceptr P, MemPool *Pool) {
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  if (!Pool)
    Pool = currentPool() ? currentPool() : &defaultPool(S);
  auto It = S.Allocs.find(P);
  if (It == S.Allocs.end())
    return CUDA_ERROR_INVALID_VALUE;
  It->second.Pool = Pool;
  Pool->Used += It->second.Size;
  Pool->UsedHigh = std::max(Pool->UsedHigh, Pool->Used);
  Pool->ReservedHigh = std::max(Pool->ReservedHigh, Pool->Used);
  return CUDA_SUCCESS;
}

void poolDetach(State &S, Allocation &A) {
  MemPool *Pool = A.Pool;
  if (!Pool)
    return;
  A.Pool = nullptr;
  Pool->Used -= std::min(Pool->Used, static_cast<uint64_t>(A.Size));
  if (Pool->Destroyed && Pool->Used == 0) {
    S.Live.erase(Pool);
    delete Pool;
  }
}

} // namespace zluda::driver

using namespace zluda::driver;

ZLUDA_API(cuMemPoolCreate, (CUmemoryPool *Out, const void *Props), (Out, Props)) {
  ZLUDA_GUARD({
    if (!Out || !Props)
      return CUDA_ERROR_INVALID_VALUE;
    Context *C;
    if (CUresult R = requireContext(C))
      return R;
    int AllocType, HandleTypes, LocType, LocId;
    const auto *B = static_cast<const unsigned char *>(Props);
    std::memcpy(&AllocType, B, 4);
    std::memcpy(&HandleTypes, B + 4, 4);
    std::memcpy(&LocType, B + 8, 4);
    std::memcpy(&LocId, B + 12, 4);
    if (AllocType != 1) // CU_MEM_ALLOCATION_TYPE_PINNED, the only type
      return CUDA_ERROR_INVALID_VALUE;
    if (LocType != 1) // host pools (CU_MEM_LOCATION_TYPE_HOST, _HOST_NUMA): not yet
      return notSupported("cuMemPoolCreate of a pool in host memory");
    if (LocId != 0)
      return CUDA_ERROR_INVALID_DEVICE;
    if (HandleTypes & ~0xf)
      return CUDA_ERROR_INVALID_VALUE;
    auto *P = new MemPool;
    std::memcpy(P->Props, Props, sizeof P->Props);
    {
      State &S = state();
      std::lock_guard<std::mutex> G(S.Mu);
      S.Live[P] = Kind::MemPool;
    }
    *Out = reinterpret_cast<CUmemoryPool>(P);
    return CUDA_SUCCESS;
  });
}

/// A pool with allocations outstanding goes when the last of them is freed
/// (CUDA's rule); the device's current pool becomes the default one again.
ZLUDA_API(cuMemPoolDestroy, (CUmemoryPool H), (H)) {
  ZLUDA_GUARD({
    State &S = state();
    std::lock_guard<std::mutex> G(S.Mu);
    MemPool *P = poolOf(S, H);
    if (!P || P->Default || P->Destroyed)
      return CUDA_ERROR_INVALID_VALUE;
    if (currentPool() == P)
      currentPool() = nullptr;
    P->Destroyed = true;
    if (P->Used == 0) {
      S.Live.erase(P);
      delete P;
    }
    return CUDA_SUCCESS;
  });
}

namespace {
/// cuDeviceGetDefaultMemPool and cuDeviceGetMemPool: the default pool, or the current one.
CUresult devicePool(CUmemoryPool *Pool, CUdevice Dev, bool Current) {
  if (!Pool)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = requireInit())
    return R;
  if (Dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  MemPool *P = Current && currentPool() ? currentPool() : &defaultPool(S);
  *Pool = reinterpret_cast<CUmemoryPool>(P);
  return CUDA_SUCCESS;
}
} // namespace

ZLUDA_API(cuDeviceGetDefaultMemPool, (CUmemoryPool *Pool, CUdevice Dev), (Pool, Dev)) {
  return devicePool(Pool, Dev, false);
}
ZLUDA_API(cuDeviceGetMemPool, (CUmemoryPool *Pool, CUdevice Dev), (Pool, Dev)) { return devicePool(Pool, Dev, true); }
ZLUDA_API(cuDeviceSetMemPool, (CUdevice Dev, CUmemoryPool H), (Dev, H)) {
  if (CUresult R = requireInit())
    return R;
  if (Dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  MemPool *P = poolOf(S, H);
  if (!P || P->Destroyed)
    return CUDA_ERROR_INVALID_VALUE;
  currentPool() = P->Default ? nullptr : P;
  return CUDA_SUCCESS;
}

/// Nothing is kept beyond the pool's allocations: there is nothing to trim.
ZLUDA_API(cuMemPoolTrimTo, (CUmemoryPool H, size_t Keep), (H, Keep)) {
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  return poolOf(S, H) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

ZLUDA_API(cuMemPoolSetAttribute, (CUmemoryPool H, int Attr, void *V), (H, Attr, V)) {
  if (!V)
    return CUDA_ERROR_INVALID_VALUE;
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  MemPool *P = poolOf(S, H);
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  int I;
  uint64_t U;
  std::memcpy(&I, V, sizeof I);
  std::memcpy(&U, V, sizeof U);
  switch (Attr) {
  case AttrReuseFollowEventDependencies:
    P->FollowEventDependencies = I != 0;
    return CUDA_SUCCESS;
  case AttrReuseAllowOpportunistic:
    P->AllowOpportunistic = I != 0;
    return CUDA_SUCCESS;
  case AttrReuseAllowInternalDependencies:
    P->AllowInternalDependencies = I != 0;
    return CUDA_SUCCESS;
  case AttrReleaseThreshold:
    P->ReleaseThreshold = U;
    return CUDA_SUCCESS;
  case AttrReservedMemHigh: // only a reset to 0
    if (U != 0)
      return CUDA_ERROR_INVALID_VALUE;
    P->ReservedHigh = 0;
    return CUDA_SUCCESS;
  case AttrUsedMemHigh:
    if (U != 0)
      return CUDA_ERROR_INVALID_VALUE;
    P->UsedHigh = 0;
    return CUDA_SUCCESS;
  default: // the current figures are read-only
    return CUDA_ERROR_INVALID_VALUE;
  }
}

ZLUDA_API(cuMemPoolGetAttribute, (CUmemoryPool H, int Attr, void *V), (H, Attr, V)) {
  if (!V)
    return CUDA_ERROR_INVALID_VALUE;
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  MemPool *P = poolOf(S, H);
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  auto putInt = [&](int X) { std::memcpy(V, &X, sizeof X); };
  auto putU64 = [&](uint64_t X) { std::memcpy(V, &X, sizeof X); };
  switch (Attr) {
  case AttrReuseFollowEventDependencies:
    putInt(P->FollowEventDependencies);
    return CUDA_SUCCESS;
  case AttrReuseAllowOpportunistic:
    putInt(P->AllowOpportunistic);
    return CUDA_SUCCESS;
  case AttrReuseAllowInternalDependencies:
    putInt(P->AllowInternalDependencies);
    return CUDA_SUCCESS;
  case AttrReleaseThreshold:
    putU64(P->ReleaseThreshold);
    return CUDA_SUCCESS;
  case AttrReservedMemCurrent:
  case AttrUsedMemCurrent:
    putU64(P->Used);
    return CUDA_SUCCESS;
  case AttrReservedMemHigh:
    putU64(P->ReservedHigh);
    return CUDA_SUCCESS;
  case AttrUsedMemHigh:
    putU64(P->UsedHigh);
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}

/// CUmemAccessDesc: {CUmemLocation {type, id}, flags}; device 0 only.
ZLUDA_API(cuMemPoolSetAccess, (CUmemoryPool H, const void *Map, size_t Count), (H, Map, Count)) {
  if (!Map && Count)
    return CUDA_ERROR_INVALID_VALUE;
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  MemPool *P = poolOf(S, H);
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  for (size_t I = 0; I < Count; ++I) {
    int D[3];
    std::memcpy(D, static_cast<const char *>(Map) + 12 * I, 12);
    if (D[0] != 1 || D[1] != 0 || (D[2] != 0 && D[2] != 1 && D[2] != 3))
      return CUDA_ERROR_INVALID_DEVICE;
    if (D[2] != 3) // the owning device keeps read-write access, as on NVIDIA's
      return CUDA_ERROR_INVALID_DEVICE;
    P->Access = static_cast<unsigned>(D[2]);
  }
  return CUDA_SUCCESS;
}
ZLUDA_API(cuMemPoolGetAccess, (int *Flags, CUmemoryPool H, const void *Location), (Flags, H, Location)) {
  if (!Flags || !Location)
    return CUDA_ERROR_INVALID_VALUE;
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  MemPool *P = poolOf(S, H);
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  int L[2];
  std::memcpy(L, Location, 8);
  if (L[0] != 1 || L[1] != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *Flags = static_cast<int>(P->Access);
  return CUDA_SUCCESS;
}
