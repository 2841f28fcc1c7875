//===- Vmm.cpp - virtual memory management and interprocess handles -------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file cuMemAddressReserve/Free, cuMemCreate/Release, cuMemMap/Unmap,
/// cuMemSetAccess/GetAccess, shareable handles (POSIX file descriptors), and
/// cuIpc* for memory and events. The driver keeps the reservations, the
/// physical allocations behind their handles and the mappings, and checks
/// what the Driver API reference asks; the backend makes address space,
/// memory and mappings (the CPU device: mmap over memfds, CpuShared.h).
/// Mappings and opened IPC memory are in the allocation table, so pointer
/// attributes, copies and cuMemGetAddressRange see them.
#include "driver/Internal.h"

#include <array>
#include <cstring>
#include <unordered_set>

namespace zluda::driver {
namespace {

struct Physical {
  std::unique_ptr<PhysicalMemory> Mem;
  CUmemAllocationProp Prop{};
  unsigned Refs = 1; ///< handles (create, import, retain) not released, plus mappings
};

struct Mapping {
  size_t Size = 0;
  Physical *Phys = nullptr;
};

struct Opened {
  uintptr_t Base = 0;
  size_t Size = 0;
  unsigned Refs = 0;
  bool InTable = false; ///< the allocation table's entry is ours (a backend may return memory it knows)
};

struct VmmState {
  std::mutex Mu; // taken before State::Mu
  std::map<uintptr_t, size_t> Reserved;
  std::map<uintptr_t, Mapping> Mapped;
  std::unordered_set<Physical *> Handles;
  std::map<std::array<unsigned char, 64>, Opened> Ipc; ///< opened memory handles by their bytes
};

VmmState &vmm() {
  static VmmState *V = new VmmState; // kept for exit: mappings outlive static destructors
  return *V;
}

Physical *physical(CUmemGenericAllocationHandle H) {
  auto *P = reinterpret_cast<Physical *>(static_cast<uintptr_t>(H));
  return vmm().Handles.count(P) ? P : nullptr;
}

void unref(Physical *P) {
  if (--P->Refs == 0) {
    vmm().Handles.erase(P);
    delete P;
  }
}

size_t granularity() { return backend().vmmGranularity(); }

/// The mappings that exactly cover [P, P + Size), in address order; empty when they do not.
std::vector<std::map<uintptr_t, Mapping>::iterator> wholeMappings(uintptr_t P, size_t Size) {
  std::vector<std::map<uintptr_t, Mapping>::iterator> Out;
  auto &M = vmm().Mapped;
  uintptr_t At = P;
  for (auto It = M.find(P); It != M.end() && It->first == At && At < P + Size; ++It) {
    Out.push_back(It);
    At += It->second.Size;
  }
  if (At != P + Size)
    Out.clear();
  return Out;
}

/// Whether a device location names our device.
CUresult checkLocation(const CUmemLocation &L) {
  if (L.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return L.type == CU_MEM_LOCATION_TYPE_INVALID ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_SUPPORTED;
  return L.id == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

void forgetAllocation(uintptr_t Base) {
  std::lock_guard<std::mutex> G(state().Mu);
  state().Allocs.erase(Base);
}

} // namespace
} // namespace zluda::driver

using namespace zluda::driver;

ZLUDA_API(cuMemGetAllocationGranularity,
          (size_t *Granularity, const CUmemAllocationProp *Prop, CUmemAllocationGranularity_flags Option),
          (Granularity, Prop, Option)) {
  if (CUresult R = requireInit())
    return R;
  if (!Granularity || !Prop || (Option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && Option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = checkLocation(Prop->location))
    return R;
  if (!granularity())
    return notSupported("virtual memory management on this device");
  *Granularity = granularity();
  return CUDA_SUCCESS;
}

ZLUDA_API(cuMemAddressReserve, (CUdeviceptr * Ptr, size_t Size, size_t Alignment, CUdeviceptr Addr, unsigned long long Flags),
          (Ptr, Size, Alignment, Addr, Flags)) {
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  if (!granularity())
    return notSupported("virtual memory management on this device");
  size_t G = granularity();
  if (!Ptr || Size == 0 || Size % G || Flags || (Alignment & (Alignment - 1)))
    return CUDA_ERROR_INVALID_VALUE;
  uintptr_t Out;
  if (CUresult R = backend().addressReserve(Size, std::max(Alignment, G), static_cast<uintptr_t>(Addr), Out))
    return R;
  std::lock_guard<std::mutex> L(vmm().Mu);
  vmm().Reserved[Out] = Size;
  *Ptr = Out;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuMemAddressFree, (CUdeviceptr Ptr, size_t Size), (Ptr, Size)) {
  if (CUresult R = requireInit())
    return R;
  std::lock_guard<std::mutex> L(vmm().Mu);
  auto It = vmm().Reserved.find(Ptr);
  if (It == vmm().Reserved.end() || It->second != Size)
    return CUDA_ERROR_INVALID_VALUE;
  // Mappings still inside go with it (their physical memory is released when nothing else holds it).
  auto &M = vmm().Mapped;
  for (auto Mi = M.lower_bound(Ptr); Mi != M.end() && Mi->first < Ptr + Size;) {
    backend().unmap(Mi->first, Mi->second.Size);
    forgetAllocation(Mi->first);
    unref(Mi->second.Phys);
    Mi = M.erase(Mi);
  }
  vmm().Reserved.erase(It);
  return backend().addressFree(Ptr, Size);
}

ZLUDA_API(cuMemCreate,
          (CUmemGenericAllocationHandle * Handle, size_t Size, const CUmemAllocationProp *Prop, unsigned long long Flags),
          (Handle, Size, Prop, Flags)) {
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  if (!Handle || !Prop || Flags || Size == 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (Prop->type != CU_MEM_ALLOCATION_TYPE_PINNED)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = checkLocation(Prop->location))
    return R;
  if (!granularity())
    return notSupported("virtual memory management on this device");
  if (Size % granularity())
    return CUDA_ERROR_INVALID_VALUE;
  if (Prop->requestedHandleTypes & ~unsigned(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
    return notSupported("cuMemCreate: shareable handles other than POSIX file descriptors");
  auto P = std::make_unique<Physical>();
  if (CUresult R = backend().physicalCreate(Size, Prop->requestedHandleTypes != 0, P->Mem))
    return R;
  P->Prop = *Prop;
  std::lock_guard<std::mutex> L(vmm().Mu);
  *Handle = reinterpret_cast<uintptr_t>(P.get());
  vmm().Handles.insert(P.release());
  return CUDA_SUCCESS;
}

ZLUDA_API(cuMemRelease, (CUmemGenericAllocationHandle Handle), (Handle)) {
  if (CUresult R = requireInit())
    return R;
  std::lock_guard<std::mutex> L(vmm().Mu);
  Physical *P = physical(Handle);
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  unref(P);
  return CUDA_SUCCESS;
}

ZLUDA_API(cuMemMap,
          (CUdeviceptr Ptr, size_t Size, size_t Offset, CUmemGenericAllocationHandle Handle, unsigned long long Flags),
          (Ptr, Size, Offset, Handle, Flags)) {
  if (CUresult R = requireInit())
    return R;
  std::lock_guard<std::mutex> L(vmm().Mu);
  Physical *P = physical(Handle);
  if (!P)
    return CUDA_ERROR_INVALID_HANDLE;
  size_t G = granularity();
  if (Flags || Size == 0 || !G || Ptr % G || Size % G || Offset % G || Offset > P->Mem->Size ||
      Size > P->Mem->Size - Offset)
    return CUDA_ERROR_INVALID_VALUE;
  // Inside one reservation, over nothing mapped.
  auto &Res = vmm().Reserved;
  auto R = Res.upper_bound(Ptr);
  if (R == Res.begin() || Ptr + Size > std::prev(R)->first + std::prev(R)->second)
    return CUDA_ERROR_INVALID_VALUE;
  auto &M = vmm().Mapped;
  auto Next = M.lower_bound(Ptr);
  if (Next != M.end() && Next->first < Ptr + Size)
    return CUDA_ERROR_INVALID_VALUE;
  if (Next != M.begin() && std::prev(Next)->first + std::prev(Next)->second.Size > Ptr)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult Rr = backend().map(Ptr, Size, Offset, *P->Mem))
    return Rr;
  ++P->Refs;
  M[Ptr] = Mapping{Size, P};
  Allocation A;
  A.Base = Ptr;
  A.Size = Size;
  A.Type = CU_MEMORYTYPE_DEVICE;
  A.Registered = true;
  A.Via = Allocation::ViaMap;
  A.Access = CU_MEM_ACCESS_FLAGS_PROT_NONE;
  A.HandleTypes = P->Prop.requestedHandleTypes;
  std::lock_guard<std::mutex> G2(state().Mu);
  state().Allocs[Ptr] = A;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuMemUnmap, (CUdeviceptr Ptr, size_t Size), (Ptr, Size)) {
  if (CUresult R = requireInit())
    return R;
  std::lock_guard<std::mutex> L(vmm().Mu);
  auto Whole = wholeMappings(Ptr, Size);
  if (Whole.empty())
    return CUDA_ERROR_INVALID_VALUE;
  for (auto It : Whole) {
    backend().unmap(It->first, It->second.Size);
    forgetAllocation(It->first);
    unref(It->second.Phys);
    vmm().Mapped.erase(It);
  }
  return CUDA_SUCCESS;
}

ZLUDA_API(cuMemSetAccess, (CUdeviceptr Ptr, size_t Size, const CUmemAccessDesc *Desc, size_t Count),
          (Ptr, Size, Desc, Count)) {
  if (CUresult R = requireInit())
    return R;
  if (!Desc || Count == 0)
    return CUDA_ERROR_INVALID_VALUE;
  unsigned Flags = 0;
  for (size_t I = 0; I < Count; ++I) {
    if (CUresult R = checkLocation(Desc[I].location))
      return R;
    if (Desc[I].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && Desc[I].flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
        Desc[I].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
      return CUDA_ERROR_INVALID_VALUE;
    Flags = Desc[I].flags; // one device: the last entry for it holds
  }
  std::lock_guard<std::mutex> L(vmm().Mu);
  auto Whole = wholeMappings(Ptr, Size);
  if (Whole.empty())
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = backend().setAccess(Ptr, Size, Flags & 1, Flags & 2))
    return R;
  std::lock_guard<std::mutex> G(state().Mu);
  for (auto It : Whole)
    if (auto A = state().Allocs.find(It->first); A != state().Allocs.end())
      A->second.Access = Flags;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuMemGetAccess, (unsigned long long *Flags, const CUmemLocation *Location, CUdeviceptr Ptr),
          (Flags, Location, Ptr)) {
  if (CUresult R = requireInit())
    return R;
  if (!Flags || !Location)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = checkLocation(*Location))
    return R;
  const Allocation *A = findAllocation(Ptr);
  if (!A || A->Via != Allocation::ViaMap)
    return CUDA_ERROR_INVALID_VALUE;
  *Flags = A->Access;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuMemRetainAllocationHandle, (CUmemGenericAllocationHandle * Handle, void *Addr), (Handle, Addr)) {
  if (CUresult R = requireInit())
    return R;
  if (!Handle)
    return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> L(vmm().Mu);
  auto &M = vmm().Mapped;
  uintptr_t P = reinterpret_cast<uintptr_t>(Addr);
  auto It = M.upper_bound(P);
  if (It == M.begin() || P >= std::prev(It)->first + std::prev(It)->second.Size)
    return CUDA_ERROR_INVALID_VALUE;
  Physical *Ph = std::prev(It)->second.Phys;
  ++Ph->Refs;
  *Handle = reinterpret_cast<uintptr_t>(Ph);
  return CUDA_SUCCESS;
}

ZLUDA_API(cuMemGetAllocationPropertiesFromHandle, (CUmemAllocationProp * Prop, CUmemGenericAllocationHandle Handle),
          (Prop, Handle)) {
  if (CUresult R = requireInit())
    return R;
  if (!Prop)
    return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> L(vmm().Mu);
  Physical *P = physical(Handle);
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  *Prop = P->Prop;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuMemExportToShareableHandle,
          (void *Shareable, CUmemGenericAllocationHandle Handle, CUmemAllocationHandleType Type, unsigned long long Flags),
          (Shareable, Handle, Type, Flags)) {
  if (CUresult R = requireInit())
    return R;
  if (!Shareable || Flags)
    return CUDA_ERROR_INVALID_VALUE;
  if (Type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return notSupported("cuMemExportToShareableHandle: handle types other than POSIX file descriptors");
  std::lock_guard<std::mutex> L(vmm().Mu);
  Physical *P = physical(Handle);
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  if (!(P->Prop.requestedHandleTypes & Type))
    return CUDA_ERROR_INVALID_VALUE; // not asked for at cuMemCreate
  int Fd;
  if (CUresult R = backend().physicalExport(*P->Mem, Fd))
    return R;
  *static_cast<int *>(Shareable) = Fd;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuMemImportFromShareableHandle,
          (CUmemGenericAllocationHandle * Handle, void *OsHandle, CUmemAllocationHandleType Type),
          (Handle, OsHandle, Type)) {
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  if (!Handle)
    return CUDA_ERROR_INVALID_VALUE;
  if (Type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return notSupported("cuMemImportFromShareableHandle: handle types other than POSIX file descriptors");
  // The descriptor is passed as the pointer's value, as NVIDIA documents.
  int Fd = static_cast<int>(reinterpret_cast<intptr_t>(OsHandle));
  if (Fd < 0)
    return CUDA_ERROR_INVALID_VALUE;
  auto P = std::make_unique<Physical>();
  if (CUresult R = backend().physicalImport(Fd, P->Mem))
    return R;
  P->Prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  P->Prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  P->Prop.location = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
  std::lock_guard<std::mutex> L(vmm().Mu);
  *Handle = reinterpret_cast<uintptr_t>(P.get());
  vmm().Handles.insert(P.release());
  return CUDA_SUCCESS;
}

// --- interprocess handles -----------------------------------------------------------

CUresult zluda::driver::ipcGetMemHandle(CUipcMemHandle *Handle, CUdeviceptr Ptr) {
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  if (!Handle)
    return CUDA_ERROR_INVALID_VALUE;
  const Allocation *A = findAllocation(Ptr);
  // The base of memory of cuMemAlloc (not managed, host, mapped or opened memory).
  if (!A || A->Base != Ptr || A->Type != CU_MEMORYTYPE_DEVICE || A->Managed || A->Registered)
    return CUDA_ERROR_INVALID_VALUE;
  IpcBytes B;
  if (CUresult R = backend().ipcMemExport(reinterpret_cast<void *>(A->Base), A->Size, B))
    return R;
  std::memcpy(Handle->reserved, B, sizeof B);
  return CUDA_SUCCESS;
}

ZLUDA_API(cuIpcGetMemHandle, (CUipcMemHandle * Handle, CUdeviceptr Ptr), (Handle, Ptr)) {
  return ipcGetMemHandle(Handle, Ptr);
}

CUresult zluda::driver::ipcOpenMemHandle(CUdeviceptr *Out, const CUipcMemHandle &Handle, unsigned Flags) {
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  if (!Out || (Flags & ~unsigned(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)))
    return CUDA_ERROR_INVALID_VALUE;
  std::array<unsigned char, 64> Key;
  std::memcpy(Key.data(), Handle.reserved, 64);
  std::lock_guard<std::mutex> L(vmm().Mu);
  Opened &O = vmm().Ipc[Key];
  if (O.Refs) { // opened already in this process: the same address, one more reference
    ++O.Refs;
    *Out = O.Base;
    return CUDA_SUCCESS;
  }
  IpcBytes B;
  std::memcpy(B, Key.data(), 64);
  void *P;
  size_t Size;
  if (CUresult R = backend().ipcMemOpen(B, P, Size)) {
    vmm().Ipc.erase(Key);
    return R;
  }
  O = Opened{reinterpret_cast<uintptr_t>(P), Size, 1, false};
  Allocation A;
  A.Base = O.Base;
  A.Size = Size;
  A.Type = CU_MEMORYTYPE_DEVICE;
  A.Registered = true;
  A.Via = Allocation::ViaIpc;
  {
    std::lock_guard<std::mutex> G(state().Mu);
    O.InTable = state().Allocs.emplace(A.Base, A).second;
  }
  *Out = O.Base;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuIpcOpenMemHandle, (CUdeviceptr * Out, CUipcMemHandle Handle, unsigned Flags), (Out, Handle, Flags)) {
  return ipcOpenMemHandle(Out, Handle, Flags);
}
ZLUDA_API(cuIpcOpenMemHandle_v2, (CUdeviceptr * Out, CUipcMemHandle Handle, unsigned Flags), (Out, Handle, Flags)) {
  return ipcOpenMemHandle(Out, Handle, Flags);
}

CUresult zluda::driver::ipcCloseMemHandle(CUdeviceptr Ptr) {
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  std::lock_guard<std::mutex> L(vmm().Mu);
  for (auto It = vmm().Ipc.begin(); It != vmm().Ipc.end(); ++It) {
    if (It->second.Base != Ptr)
      continue;
    if (--It->second.Refs == 0) {
      if (It->second.InTable)
        forgetAllocation(Ptr);
      backend().ipcMemClose(reinterpret_cast<void *>(Ptr), It->second.Size);
      vmm().Ipc.erase(It);
    }
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

ZLUDA_API(cuIpcCloseMemHandle, (CUdeviceptr Ptr), (Ptr)) { return ipcCloseMemHandle(Ptr); }

CUresult zluda::driver::ipcGetEventHandle(CUipcEventHandle *Handle, CUevent H) {
  if (CUresult R = requireInit())
    return R;
  if (!Handle)
    return CUDA_ERROR_INVALID_VALUE;
  Event *E = handle<Event>(H, Kind::Event);
  if (!E)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!(E->Flags & CU_EVENT_INTERPROCESS))
    return CUDA_ERROR_INVALID_VALUE;
  IpcBytes B;
  if (CUresult R = backend().ipcEventExport(*E, B))
    return R;
  std::memcpy(Handle->reserved, B, sizeof B);
  return CUDA_SUCCESS;
}

ZLUDA_API(cuIpcGetEventHandle, (CUipcEventHandle * Handle, CUevent H), (Handle, H)) {
  return ipcGetEventHandle(Handle, H);
}

CUresult zluda::driver::ipcOpenEventHandle(CUevent *Out, const CUipcEventHandle &Handle) {
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  auto E = std::make_unique<Event>();
  E->Ctx = C;
  E->Flags = CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING;
  IpcBytes B;
  std::memcpy(B, Handle.reserved, sizeof B);
  if (CUresult R = backend().ipcEventOpen(B, *E))
    return R;
  addLive(E.get(), Kind::Event);
  *Out = reinterpret_cast<CUevent>(E.release());
  return CUDA_SUCCESS;
}
ZLUDA_API(cuIpcOpenEventHandle, (CUevent * Out, CUipcEventHandle Handle), (Out, Handle)) {
  return ipcOpenEventHandle(Out, Handle);
}
