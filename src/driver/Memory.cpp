//===- Memory.cpp - allocations, copies, memsets, pointer attributes -------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The allocation table is the driver's; the memory and the copies are
/// the backend's (on the CPU device, host memory and memmove; on AMD GPUs,
/// HIP's). Every address space is unified, so a copy needs no direction.
/// Device pointers are validated against the table where the API says they
/// must be device memory.
#include "driver/Internal.h"

#include <cstring>

namespace zluda::driver {

const Allocation *findAllocation(uintptr_t P, size_t Size) {
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  auto It = S.Allocs.upper_bound(P);
  if (It == S.Allocs.begin())
    return nullptr;
  --It;
  const Allocation &A = It->second;
  if (P < A.Base || P - A.Base >= std::max<size_t>(A.Size, 1) || Size > A.Size - (P - A.Base))
    return nullptr;
  return &A;
}

bool graphMemUse(State &S, Allocation &A, bool InUse) {
  if (A.GraphInUse == InUse)
    return !InUse ? false : true; // freed twice is an error; allocated again while in use is the same memory
  A.GraphInUse = InUse;
  if (InUse && !A.GraphBacked) {
    A.GraphBacked = true;
    S.GraphUsed += A.Size;
    S.GraphUsedHigh = std::max(S.GraphUsedHigh, S.GraphUsed);
  }
  return true;
}

void graphMemRelease(State &S, Allocation &A) {
  if (!A.GraphBacked)
    return;
  A.GraphBacked = false;
  S.GraphUsed -= A.Size;
}

CUresult memAlloc(CUdeviceptr *Out, size_t Size, CUmemorytype Type, bool Managed, unsigned Flags) {
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  if (Size == 0) {
    *Out = 0;
    return CUDA_ERROR_INVALID_VALUE;
  }
  void *P = nullptr;
  if (CUresult R = backend().alloc(Size, Type, Managed, Flags, P))
    return R;
  Allocation A;
  A.Base = reinterpret_cast<uintptr_t>(P);
  A.Size = Size;
  A.Type = Type;
  A.Managed = Managed;
  A.Flags = Flags;
  A.Ctx = C;
  {
    State &S = state();
    std::lock_guard<std::mutex> G(S.Mu);
    S.Allocs[A.Base] = A;
  }
  *Out = A.Base;
  return CUDA_SUCCESS;
}

CUresult memFree(uintptr_t Ptr, CUmemorytype Expected, bool Ordered, Stream *S) {
  if (CUresult R = requireInit())
    return R;
  if (Ptr == 0)
    return CUDA_SUCCESS;
  Allocation A;
  {
    State &S = state();
    std::lock_guard<std::mutex> G(S.Mu);
    auto It = S.Allocs.find(Ptr);
    if (It == S.Allocs.end() || It->second.Registered || It->second.Type != Expected)
      return CUDA_ERROR_INVALID_VALUE;
    if (It->second.GraphOwned) // a graph's memory: no longer in use; the graph keeps it for its next launch
      return graphMemUse(S, It->second, false) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    poolDetach(S, It->second);
    A = It->second;
    S.Allocs.erase(It);
  }
  // Freed outside the table's lock: the backend may wait for the device.
  if (Ordered)
    backend().freeAsync(reinterpret_cast<void *>(Ptr), A.Type, A.Managed, S);
  else
    backend().free(reinterpret_cast<void *>(Ptr), A.Type, A.Managed);
  return CUDA_SUCCESS;
}

CUresult hostRegister(void *P, size_t Size, unsigned Flags) {
  if (!P || !Size)
    return CUDA_ERROR_INVALID_VALUE;
  if (findAllocation(reinterpret_cast<uintptr_t>(P)))
    return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  if (CUresult R = backend().hostRegister(P, Size, Flags))
    return R;
  Allocation A;
  A.Base = reinterpret_cast<uintptr_t>(P);
  A.Size = Size;
  A.Type = CU_MEMORYTYPE_HOST;
  A.Registered = true;
  A.Flags = Flags;
  std::lock_guard<std::mutex> G(state().Mu);
  state().Allocs[A.Base] = A;
  return CUDA_SUCCESS;
}

CUresult hostUnregister(void *P) {
  std::lock_guard<std::mutex> G(state().Mu);
  auto It = state().Allocs.find(reinterpret_cast<uintptr_t>(P));
  if (It == state().Allocs.end() || !It->second.Registered || It->second.Type != CU_MEMORYTYPE_HOST)
    return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
  state().Allocs.erase(It);
  return backend().hostUnregister(P);
}

CUresult hostFlags(const void *P, unsigned &Flags) {
  const Allocation *A = findAllocation(reinterpret_cast<uintptr_t>(P));
  if (!A || A->Type != CU_MEMORYTYPE_HOST)
    return CUDA_ERROR_INVALID_VALUE;
  Flags = A->Flags;
  return CUDA_SUCCESS;
}

CUresult memInfo(size_t &Free, size_t &Total) { return backend().memInfo(Free, Total); }

void freeAllAllocations() {
  // Queued kernels finish first, and not under the lock: a running kernel
  // looks textures up in the same state.
  backend().synchronize();
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  for (auto It = S.Allocs.begin(); It != S.Allocs.end();) {
    if (It->second.Registered) { // the program's or a module's memory
      ++It;
      continue;
    }
    backend().free(reinterpret_cast<void *>(It->first), It->second.Type, It->second.Managed);
    It = S.Allocs.erase(It);
  }
}

CUresult memcpyChecked(void *Dst, const void *Src, size_t Size, CUstream S, bool Async) {
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  if (Size == 0)
    return CUDA_SUCCESS;
  if (!Dst || !Src)
    return CUDA_ERROR_INVALID_VALUE;
  // A synchronous copy waits for the device's work: a fault found there is
  // the context's sticky error.
  activity::Op *A = activity::begin(ZLUDA_ACTIVITY_MEMCPY, S);
  if (A)
    activity::copy(A, Size, Async, activity::memoryKind(Src), activity::memoryKind(Dst));
  CUresult R = backend().copy(Dst, Src, Size, streamOf(S), Async);
  if (A)
    activity::end(A, R);
  return Async ? noteFault(C, R) : afterWait(C, R);
}

CUresult memset(uintptr_t Dst, uint32_t Value, unsigned ElemSize, size_t Count, size_t Pitch, size_t Width,
                size_t Height, CUstream St, bool Async) {
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  size_t RowElems = Pitch ? Width : Count;
  size_t Rows = Pitch ? Height : 1;
  // cuMemsetD16/D32 (and their 2D forms) need addresses and pitches aligned
  // to the element.
  if (Dst % ElemSize || (Rows > 1 && Pitch % ElemSize))
    return CUDA_ERROR_INVALID_VALUE;
  if (RowElems == 0 || Rows == 0)
    return CUDA_SUCCESS;
  size_t Span = Pitch ? Pitch * (Rows - 1) + RowElems * ElemSize : RowElems * ElemSize;
  if (!findAllocation(Dst, Span))
    return CUDA_ERROR_INVALID_VALUE;
  Backend &B = backend();
  activity::Op *A = activity::begin(ZLUDA_ACTIVITY_MEMSET, St);
  if (A) {
    A->R.bytes = RowElems * ElemSize * Rows;
    A->R.value = Value;
    A->R.async = Async;
    A->R.dst_mem = activity::memoryKind(reinterpret_cast<void *>(Dst));
  }
  CUresult R = CUDA_SUCCESS;
  for (size_t Row = 0; Row < Rows && R == CUDA_SUCCESS; ++Row)
    R = B.fill(reinterpret_cast<void *>(Dst + Row * Pitch), Value, ElemSize, RowElems, streamOf(St), Async);
  if (A)
    activity::end(A, R);
  if (R)
    return noteFault(C, R);
  return Async ? CUDA_SUCCESS : afterWait(C, CUDA_SUCCESS);
}

CUresult copy2D(const CUDA_MEMCPY2D *P, CUstream St, bool Async) {
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  CUDA_MEMCPY3D C = {};
  C.srcXInBytes = P->srcXInBytes;
  C.srcY = P->srcY;
  C.srcMemoryType = P->srcMemoryType;
  C.srcHost = P->srcHost;
  C.srcDevice = P->srcDevice;
  C.srcArray = P->srcArray;
  C.srcPitch = P->srcPitch;
  C.dstXInBytes = P->dstXInBytes;
  C.dstY = P->dstY;
  C.dstMemoryType = P->dstMemoryType;
  C.dstHost = P->dstHost;
  C.dstDevice = P->dstDevice;
  C.dstArray = P->dstArray;
  C.dstPitch = P->dstPitch;
  C.WidthInBytes = P->WidthInBytes;
  C.Height = P->Height;
  C.Depth = 1;
  return copy3D(&C, St, Async);
}

namespace {
/// One side of a 2D/3D copy: base address, pitch and rows a slice. A CUDA
/// array brings its own (and the copy must stay inside it).
struct Endpoint {
  char *Base = nullptr;
  size_t Pitch = 0, Height = 0;
};
CUresult endpoint(CUmemorytype T, const void *Host, CUdeviceptr Dev, CUarray Arr, size_t Pitch, size_t Height,
                  size_t X, size_t Y, size_t Z, const CUDA_MEMCPY3D &P, Endpoint &E) {
  if (T == CU_MEMORYTYPE_ARRAY) {
    const Array *A = arrayOf(Arr);
    if (!A || !A->Planes.empty()) // a planar array is copied plane by plane
      return CUDA_ERROR_INVALID_VALUE;
    // Block-compressed arrays: rows of whole 4x4 blocks.
    if (A->BlockBytes && (X % A->BlockBytes || P.WidthInBytes % A->BlockBytes))
      return CUDA_ERROR_INVALID_VALUE;
    if (X + P.WidthInBytes > A->Pitch || Y + P.Height > A->rows() || Z + P.Depth > A->slices())
      return CUDA_ERROR_INVALID_VALUE;
    E.Base = static_cast<char *>(A->Data);
    E.Pitch = A->Pitch;
    E.Height = A->rows();
    return CUDA_SUCCESS;
  }
  if (T != CU_MEMORYTYPE_HOST && T != CU_MEMORYTYPE_DEVICE && T != CU_MEMORYTYPE_UNIFIED)
    return CUDA_ERROR_INVALID_VALUE;
  E.Base = T == CU_MEMORYTYPE_HOST ? static_cast<char *>(const_cast<void *>(Host)) : reinterpret_cast<char *>(Dev);
  E.Pitch = Pitch ? Pitch : P.WidthInBytes;
  E.Height = Height ? Height : P.Height;
  if (E.Pitch < P.WidthInBytes)
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}
} // namespace

CUresult copy3D(const CUDA_MEMCPY3D *P, CUstream St, bool Async) {
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  if (P->WidthInBytes == 0 || P->Height == 0 || P->Depth == 0)
    return CUDA_SUCCESS;
  Endpoint S, D;
  if (CUresult R = endpoint(P->srcMemoryType, P->srcHost, P->srcDevice, P->srcArray, P->srcPitch, P->srcHeight,
                            P->srcXInBytes, P->srcY, P->srcZ, *P, S))
    return R;
  if (CUresult R = endpoint(P->dstMemoryType, P->dstHost, P->dstDevice, P->dstArray, P->dstPitch, P->dstHeight,
                            P->dstXInBytes, P->dstY, P->dstZ, *P, D))
    return R;
  if (!S.Base || !D.Base)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  Backend &B = backend();
  activity::Op *A = activity::begin(ZLUDA_ACTIVITY_MEMCPY, St);
  if (A)
    activity::copy(A, P->WidthInBytes * P->Height * P->Depth, Async,
                   P->srcMemoryType == CU_MEMORYTYPE_ARRAY ? uint8_t(ZLUDA_MEM_ARRAY) : activity::memoryKind(S.Base),
                   P->dstMemoryType == CU_MEMORYTYPE_ARRAY ? uint8_t(ZLUDA_MEM_ARRAY) : activity::memoryKind(D.Base));
  // Whole slices at once where both sides are packed alike.
  bool Contiguous = S.Pitch == P->WidthInBytes && D.Pitch == P->WidthInBytes && P->srcXInBytes == 0 &&
                    P->dstXInBytes == 0 && S.Height == P->Height && D.Height == P->Height && P->srcY == 0 &&
                    P->dstY == 0;
  CUresult R = CUDA_SUCCESS;
  if (Contiguous) {
    R = B.copy(D.Base + P->dstZ * D.Height * D.Pitch, S.Base + P->srcZ * S.Height * S.Pitch,
               P->WidthInBytes * P->Height * P->Depth, streamOf(St), Async);
  } else {
    for (size_t Z = 0; Z < P->Depth && R == CUDA_SUCCESS; ++Z)
      for (size_t Row = 0; Row < P->Height && R == CUDA_SUCCESS; ++Row)
        R = B.copy(D.Base + ((P->dstZ + Z) * D.Height + P->dstY + Row) * D.Pitch + P->dstXInBytes,
                   S.Base + ((P->srcZ + Z) * S.Height + P->srcY + Row) * S.Pitch + P->srcXInBytes, P->WidthInBytes,
                   streamOf(St), Async);
  }
  if (A)
    activity::end(A, R);
  return R ? noteFault(C, R) : CUDA_SUCCESS;
}

namespace {

CUresult checkedDevice(CUdeviceptr P, size_t Size) {
  if (Size && !findAllocation(P, Size))
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

} // namespace
} // namespace zluda::driver

using namespace zluda::driver;

ZLUDA_API(cuMemAlloc_v2, (CUdeviceptr *P, size_t Size), (P, Size)) {
  ZLUDA_GUARD({ return memAlloc(P, Size, CU_MEMORYTYPE_DEVICE, false, 0); });
}
ZLUDA_API(cuMemAllocManaged, (CUdeviceptr *P, size_t Size, unsigned Flags), (P, Size, Flags)) {
  ZLUDA_GUARD({
    if (Flags != CU_MEM_ATTACH_GLOBAL && Flags != CU_MEM_ATTACH_HOST)
      return CUDA_ERROR_INVALID_VALUE;
    return memAlloc(P, Size, CU_MEMORYTYPE_DEVICE, true, Flags);
  });
}
ZLUDA_API(cuMemAllocPitch_v2, (CUdeviceptr *P, size_t *Pitch, size_t Width, size_t Height, unsigned Elem), (P, Pitch, Width, Height, Elem)) {
  ZLUDA_GUARD({
    if (!Pitch || (Elem != 4 && Elem != 8 && Elem != 16))
      return CUDA_ERROR_INVALID_VALUE;
    *Pitch = (Width + 255) / 256 * 256;
    return memAlloc(P, *Pitch * Height, CU_MEMORYTYPE_DEVICE, false, 0);
  });
}
ZLUDA_API(cuMemFree_v2, (CUdeviceptr P), (P)) { ZLUDA_GUARD({ return memFree(P, CU_MEMORYTYPE_DEVICE); }); }
ZLUDA_API(cuMemAllocHost_v2, (void **P, size_t Size), (P, Size)) {
  ZLUDA_GUARD({
    if (!P)
      return CUDA_ERROR_INVALID_VALUE;
    CUdeviceptr D;
    CUresult R = memAlloc(&D, Size, CU_MEMORYTYPE_HOST, false, 0);
    *P = reinterpret_cast<void *>(D);
    return R;
  });
}
ZLUDA_API(cuMemHostAlloc, (void **P, size_t Size, unsigned Flags), (P, Size, Flags)) {
  ZLUDA_GUARD({
    if (!P || (Flags & ~7u))
      return CUDA_ERROR_INVALID_VALUE;
    CUdeviceptr D;
    CUresult R = memAlloc(&D, Size, CU_MEMORYTYPE_HOST, false, Flags);
    *P = reinterpret_cast<void *>(D);
    return R;
  });
}
ZLUDA_API(cuMemFreeHost, (void *P), (P)) {
  ZLUDA_GUARD({ return memFree(reinterpret_cast<uintptr_t>(P), CU_MEMORYTYPE_HOST); });
}
ZLUDA_API(cuMemHostGetDevicePointer_v2, (CUdeviceptr *D, void *P, unsigned Flags), (D, P, Flags)) {
  if (!D || Flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  unsigned F;
  if (CUresult R = hostFlags(P, F))
    return R;
  *D = reinterpret_cast<CUdeviceptr>(P); // host memory is device memory here
  return CUDA_SUCCESS;
}
ZLUDA_API(cuMemHostGetFlags, (unsigned *Flags, void *P), (Flags, P)) {
  if (!Flags)
    return CUDA_ERROR_INVALID_VALUE;
  return hostFlags(P, *Flags);
}
ZLUDA_API(cuMemHostRegister_v2, (void *P, size_t Size, unsigned Flags), (P, Size, Flags)) {
  ZLUDA_GUARD({ return hostRegister(P, Size, Flags); });
}
ZLUDA_API(cuMemHostUnregister, (void *P), (P)) { ZLUDA_GUARD({ return hostUnregister(P); }); }

ZLUDA_API(cuMemGetInfo_v2, (size_t *Free, size_t *Total), (Free, Total)) {
  if (!Free || !Total)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  return memInfo(*Free, *Total);
}

ZLUDA_API(cuMemGetAddressRange_v2, (CUdeviceptr *Base, size_t *Size, CUdeviceptr P), (Base, Size, P)) {
  const Allocation *A = findAllocation(P);
  if (!A)
    return CUDA_ERROR_NOT_FOUND;
  if (Base)
    *Base = A->Base;
  if (Size)
    *Size = A->Size;
  return CUDA_SUCCESS;
}

// Copies: unified addressing makes every direction one memmove; device
// arguments are checked against the allocation table.
ZLUDA_API(cuMemcpy, (CUdeviceptr D, CUdeviceptr S, size_t N), (D, S, N)) {
  ZLUDA_GUARD({ return memcpyChecked(reinterpret_cast<void *>(D), reinterpret_cast<const void *>(S), N); });
}
ZLUDA_API(cuMemcpy_ptds, (CUdeviceptr D, CUdeviceptr S, size_t N), (D, S, N)) { return cuMemcpy(D, S, N); }
ZLUDA_API(cuMemcpyAsync, (CUdeviceptr D, CUdeviceptr S, size_t N, CUstream St), (D, S, N, St)) {
  if (CUresult R = streamCheck(St))
    return R;
  if (captureNode(St, [&] { return copyNode(reinterpret_cast<void *>(D), reinterpret_cast<const void *>(S), N); }))
    return CUDA_SUCCESS;
  ZLUDA_GUARD({ return memcpyChecked(reinterpret_cast<void *>(D), reinterpret_cast<const void *>(S), N, St, true); });
}
ZLUDA_API(cuMemcpyAsync_ptsz, (CUdeviceptr D, CUdeviceptr S, size_t N, CUstream St), (D, S, N, St)) {
  return cuMemcpyAsync(D, S, N, ptsz(St));
}
ZLUDA_API(cuMemcpyHtoD_v2, (CUdeviceptr D, const void *S, size_t N), (D, S, N)) {
  ZLUDA_GUARD({
    if (CUresult R = checkedDevice(D, N))
      return R;
    return memcpyChecked(reinterpret_cast<void *>(D), S, N);
  });
}
ZLUDA_API(cuMemcpyHtoD_v2_ptds, (CUdeviceptr D, const void *S, size_t N), (D, S, N)) { return cuMemcpyHtoD_v2(D, S, N); }
ZLUDA_API(cuMemcpyDtoH_v2, (void *D, CUdeviceptr S, size_t N), (D, S, N)) {
  ZLUDA_GUARD({
    if (CUresult R = checkedDevice(S, N))
      return R;
    return memcpyChecked(D, reinterpret_cast<const void *>(S), N);
  });
}
ZLUDA_API(cuMemcpyDtoH_v2_ptds, (void *D, CUdeviceptr S, size_t N), (D, S, N)) { return cuMemcpyDtoH_v2(D, S, N); }
ZLUDA_API(cuMemcpyDtoD_v2, (CUdeviceptr D, CUdeviceptr S, size_t N), (D, S, N)) {
  ZLUDA_GUARD({
    if (CUresult R = checkedDevice(D, N))
      return R;
    if (CUresult R = checkedDevice(S, N))
      return R;
    return memcpyChecked(reinterpret_cast<void *>(D), reinterpret_cast<const void *>(S), N);
  });
}
ZLUDA_API(cuMemcpyDtoD_v2_ptds, (CUdeviceptr D, CUdeviceptr S, size_t N), (D, S, N)) { return cuMemcpyDtoD_v2(D, S, N); }
ZLUDA_API(cuMemcpyHtoDAsync_v2, (CUdeviceptr D, const void *S, size_t N, CUstream St), (D, S, N, St)) {
  if (CUresult R = streamCheck(St))
    return R;
  if (captureNode(St, [&] { return copyNode(reinterpret_cast<void *>(D), S, N); }))
    return CUDA_SUCCESS;
  ZLUDA_GUARD({
    if (CUresult R = checkedDevice(D, N))
      return R;
    return memcpyChecked(reinterpret_cast<void *>(D), S, N, St, true);
  });
}
ZLUDA_API(cuMemcpyHtoDAsync_v2_ptsz, (CUdeviceptr D, const void *S, size_t N, CUstream St), (D, S, N, St)) {
  return cuMemcpyHtoDAsync_v2(D, S, N, ptsz(St));
}
ZLUDA_API(cuMemcpyDtoHAsync_v2, (void *D, CUdeviceptr S, size_t N, CUstream St), (D, S, N, St)) {
  if (CUresult R = streamCheck(St))
    return R;
  if (captureNode(St, [&] { return copyNode(D, reinterpret_cast<const void *>(S), N); }))
    return CUDA_SUCCESS;
  ZLUDA_GUARD({
    if (CUresult R = checkedDevice(S, N))
      return R;
    return memcpyChecked(D, reinterpret_cast<const void *>(S), N, St, true);
  });
}
ZLUDA_API(cuMemcpyDtoHAsync_v2_ptsz, (void *D, CUdeviceptr S, size_t N, CUstream St), (D, S, N, St)) {
  return cuMemcpyDtoHAsync_v2(D, S, N, ptsz(St));
}
ZLUDA_API(cuMemcpyDtoDAsync_v2, (CUdeviceptr D, CUdeviceptr S, size_t N, CUstream St), (D, S, N, St)) {
  if (CUresult R = streamCheck(St))
    return R;
  if (captureNode(St, [&] { return copyNode(reinterpret_cast<void *>(D), reinterpret_cast<const void *>(S), N); }))
    return CUDA_SUCCESS;
  ZLUDA_GUARD({
    if (CUresult R = checkedDevice(D, N))
      return R;
    if (CUresult R = checkedDevice(S, N))
      return R;
    return memcpyChecked(reinterpret_cast<void *>(D), reinterpret_cast<const void *>(S), N, St, true);
  });
}
ZLUDA_API(cuMemcpyDtoDAsync_v2_ptsz, (CUdeviceptr D, CUdeviceptr S, size_t N, CUstream St), (D, S, N, St)) {
  return cuMemcpyDtoDAsync_v2(D, S, N, ptsz(St));
}
ZLUDA_API(cuMemcpyPeer, (CUdeviceptr D, CUcontext Arg1, CUdeviceptr S, CUcontext Arg3, size_t N), (D, Arg1, S, Arg3, N)) {
  return cuMemcpy(D, S, N);
}
ZLUDA_API(cuMemcpyPeerAsync, (CUdeviceptr D, CUcontext Arg1, CUdeviceptr S, CUcontext Arg3, size_t N, CUstream St), (D, Arg1, S, Arg3, N, St)) {
  return cuMemcpyAsync(D, S, N, St);
}
ZLUDA_API(cuMemcpy2D_v2, (const CUDA_MEMCPY2D *P), (P)) { ZLUDA_GUARD({ return copy2D(P); }); }
ZLUDA_API(cuMemcpy2D_v2_ptds, (const CUDA_MEMCPY2D *P), (P)) { return cuMemcpy2D_v2(P); }
ZLUDA_API(cuMemcpy2DUnaligned_v2, (const CUDA_MEMCPY2D *P), (P)) { return cuMemcpy2D_v2(P); }
ZLUDA_API(cuMemcpy2DAsync_v2, (const CUDA_MEMCPY2D *P, CUstream St), (P, St)) {
  if (CUresult R = streamCheck(St))
    return R;
  ZLUDA_GUARD({ return copy2D(P, St, true); });
}
ZLUDA_API(cuMemcpy2DAsync_v2_ptsz, (const CUDA_MEMCPY2D *P, CUstream St), (P, St)) { return cuMemcpy2DAsync_v2(P, ptsz(St)); }
ZLUDA_API(cuMemcpy3D_v2, (const CUDA_MEMCPY3D *P), (P)) { ZLUDA_GUARD({ return copy3D(P); }); }
ZLUDA_API(cuMemcpy3D_v2_ptds, (const CUDA_MEMCPY3D *P), (P)) { return cuMemcpy3D_v2(P); }
ZLUDA_API(cuMemcpy3DAsync_v2, (const CUDA_MEMCPY3D *P, CUstream St), (P, St)) {
  if (CUresult R = streamCheck(St))
    return R;
  ZLUDA_GUARD({ return copy3D(P, St, true); });
}
ZLUDA_API(cuMemcpy3DAsync_v2_ptsz, (const CUDA_MEMCPY3D *P, CUstream St), (P, St)) { return cuMemcpy3DAsync_v2(P, ptsz(St)); }

#define ZLUDA_MEMSET(Name, T, Size)                                                                                    \
  ZLUDA_API(Name, (CUdeviceptr D, T V, size_t N), (D, V, N)) { ZLUDA_GUARD({ return memset(D, V, Size, N); }); }     \
  ZLUDA_EXPORT CUresult Name##_ptds(CUdeviceptr D, T V, size_t N) { return Name(D, V, N); }                       \
  ZLUDA_EXPORT CUresult Name##Async(CUdeviceptr D, T V, size_t N, CUstream St) {                                   \
    if (CUresult R = streamCheck(St))                                                                              \
      return R;                                                                                                    \
    if (captureNode(St, [&] { return memsetNode(D, V, Size, N, 1, 0); }))                                          \
      return CUDA_SUCCESS;                                                                                         \
    ZLUDA_GUARD({ return memset(D, V, Size, N, 0, 0, 1, St, true); });                                             \
  }
ZLUDA_MEMSET(cuMemsetD8_v2, unsigned char, 1)
ZLUDA_MEMSET(cuMemsetD16_v2, unsigned short, 2)
ZLUDA_MEMSET(cuMemsetD32_v2, unsigned int, 4)
ZLUDA_API(cuMemsetD8Async_ptsz, (CUdeviceptr D, unsigned char V, size_t N, CUstream St), (D, V, N, St)) {
  return cuMemsetD8_v2Async(D, V, N, ptsz(St));
}
ZLUDA_API(cuMemsetD8Async, (CUdeviceptr D, unsigned char V, size_t N, CUstream St), (D, V, N, St)) {
  return cuMemsetD8_v2Async(D, V, N, St);
}
ZLUDA_API(cuMemsetD16Async, (CUdeviceptr D, unsigned short V, size_t N, CUstream St), (D, V, N, St)) {
  return cuMemsetD16_v2Async(D, V, N, St);
}
ZLUDA_API(cuMemsetD16Async_ptsz, (CUdeviceptr D, unsigned short V, size_t N, CUstream St), (D, V, N, St)) {
  return cuMemsetD16_v2Async(D, V, N, ptsz(St));
}
ZLUDA_API(cuMemsetD32Async, (CUdeviceptr D, unsigned int V, size_t N, CUstream St), (D, V, N, St)) {
  return cuMemsetD32_v2Async(D, V, N, St);
}
ZLUDA_API(cuMemsetD32Async_ptsz, (CUdeviceptr D, unsigned int V, size_t N, CUstream St), (D, V, N, St)) {
  return cuMemsetD32_v2Async(D, V, N, ptsz(St));
}
ZLUDA_API(cuMemsetD2D8_v2, (CUdeviceptr D, size_t Pitch, unsigned char V, size_t W, size_t H), (D, Pitch, V, W, H)) {
  ZLUDA_GUARD({ return memset(D, V, 1, 0, Pitch, W, H); });
}
ZLUDA_API(cuMemsetD2D16_v2, (CUdeviceptr D, size_t Pitch, unsigned short V, size_t W, size_t H), (D, Pitch, V, W, H)) {
  ZLUDA_GUARD({ return memset(D, V, 2, 0, Pitch, W, H); });
}
ZLUDA_API(cuMemsetD2D32_v2, (CUdeviceptr D, size_t Pitch, unsigned int V, size_t W, size_t H), (D, Pitch, V, W, H)) {
  ZLUDA_GUARD({ return memset(D, V, 4, 0, Pitch, W, H); });
}

// Stream-ordered allocation: with streams executing in order, an ordinary
// allocation at the call is already correctly ordered.
ZLUDA_API(cuMemAllocAsync, (CUdeviceptr *P, size_t Size, CUstream St), (P, Size, St)) {
  if (CUresult R = streamCheck(St))
    return R;
  ZLUDA_GUARD({
    CUresult R = CUDA_SUCCESS;
    if (!P || Size == 0)
      return CUDA_ERROR_INVALID_VALUE;
    if (captureAlloc(St, Size, *P, R)) // a memory allocation node of the capture's graph
      return R;
    if ((R = cuMemAlloc_v2(P, Size)))
      return R;
    return poolAttach(*P, nullptr); // the device's current pool
  });
}
ZLUDA_API(cuMemAllocAsync_ptsz, (CUdeviceptr *P, size_t Size, CUstream St), (P, Size, St)) { return cuMemAllocAsync(P, Size, ptsz(St)); }
ZLUDA_API(cuMemAllocFromPoolAsync, (CUdeviceptr *P, size_t Size, CUmemoryPool Pool, CUstream St), (P, Size, Pool, St)) {
  if (CUresult R = streamCheck(St))
    return R;
  ZLUDA_GUARD({
    if (!P || Size == 0 || !isLive(Pool, Kind::MemPool))
      return CUDA_ERROR_INVALID_VALUE;
    CUresult R = CUDA_SUCCESS;
    if (captureAlloc(St, Size, *P, R))
      return R;
    if ((R = cuMemAlloc_v2(P, Size)))
      return R;
    return poolAttach(*P, reinterpret_cast<MemPool *>(Pool));
  });
}
ZLUDA_API(cuMemAllocFromPoolAsync_ptsz, (CUdeviceptr *P, size_t Size, CUmemoryPool Pool, CUstream St), (P, Size, Pool, St)) {
  return cuMemAllocFromPoolAsync(P, Size, Pool, ptsz(St));
}
ZLUDA_API(cuMemFreeAsync, (CUdeviceptr P, CUstream St), (P, St)) {
  if (CUresult R = streamCheck(St))
    return R;
  ZLUDA_GUARD({
    if (captureFree(St, P))
      return CUDA_SUCCESS;
    return memFree(P, CU_MEMORYTYPE_DEVICE, true, streamOf(St));
  });
}
ZLUDA_API(cuMemFreeAsync_ptsz, (CUdeviceptr P, CUstream St), (P, St)) { return cuMemFreeAsync(P, ptsz(St)); }
ZLUDA_API(cuMemPrefetchAsync, (CUdeviceptr Arg0, size_t Arg1, CUdevice Arg2, CUstream St), (Arg0, Arg1, Arg2, St)) { return streamCheck(St); }
ZLUDA_API(cuMemPrefetchAsync_ptsz, (CUdeviceptr P, size_t N, CUdevice D, CUstream St), (P, N, D, St)) {
  return cuMemPrefetchAsync(P, N, D, ptsz(St));
}
ZLUDA_API(cuMemAdvise, (CUdeviceptr Arg0, size_t Arg1, int Arg2, CUdevice Arg3), (Arg0, Arg1, Arg2, Arg3)) { return CUDA_SUCCESS; }

CUresult zluda::driver::pointerAttribute(void *Data, int Attr, CUdeviceptr P) {
  ZLUDA_GUARD({
    if (!Data)
      return CUDA_ERROR_INVALID_VALUE;
    const Allocation *A = findAllocation(P);
    if (!A)
      return CUDA_ERROR_INVALID_VALUE;
    switch (Attr) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
      *static_cast<CUcontext *>(Data) = reinterpret_cast<CUcontext>(primaryContext());
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      *static_cast<unsigned *>(Data) = A->Managed ? CU_MEMORYTYPE_DEVICE : A->Type;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
      *static_cast<CUdeviceptr *>(Data) = P;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
      if (A->Type != CU_MEMORYTYPE_HOST && !A->Managed)
        return CUDA_ERROR_INVALID_VALUE;
      *static_cast<void **>(Data) = reinterpret_cast<void *>(P);
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
      *static_cast<int *>(Data) = A->Managed;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      *static_cast<int *>(Data) = 0;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
      *static_cast<CUdeviceptr *>(Data) = A->Base;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
      *static_cast<size_t *>(Data) = A->Size;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPED:
      *static_cast<int *>(Data) = A->Type == CU_MEMORYTYPE_HOST || backend().props().Integrated;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
      *static_cast<int *>(Data) = 1;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
      *static_cast<unsigned long long *>(Data) = A->Base;
      return CUDA_SUCCESS;
    default:
      return CUDA_ERROR_INVALID_VALUE;
    }
  });
}
ZLUDA_API(cuPointerGetAttribute, (void *Data, CUpointer_attribute Attr, CUdeviceptr P), (Data, Attr, P)) {
  return pointerAttribute(Data, Attr, P);
}


ZLUDA_API(cuPointerGetAttributes, (unsigned N, CUpointer_attribute *Attrs, void **Data, CUdeviceptr P), (N, Attrs, Data, P)) {
  if (!Attrs || !Data)
    return CUDA_ERROR_INVALID_VALUE;
  for (unsigned I = 0; I < N; ++I) {
    CUresult R = cuPointerGetAttribute(Data[I], Attrs[I], P);
    if (R == CUDA_ERROR_INVALID_VALUE && Data[I]) {
      // Unregistered host memory: CUDA reports it as host memory, not an error.
      if (Attrs[I] == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
        *static_cast<unsigned *>(Data[I]) = 0;
      else
        std::memset(Data[I], 0, Attrs[I] == CU_POINTER_ATTRIBUTE_CONTEXT ? sizeof(void *) : sizeof(int));
    } else if (R != CUDA_SUCCESS) {
      return R;
    }
  }
  return CUDA_SUCCESS;
}
// Prefetch and advice are hints; the CPU device has one memory.
ZLUDA_API(cuMemPrefetchAsync_v2, (CUdeviceptr Arg0, size_t Arg1, uint64_t /*CUmemLocation*/ Arg2, unsigned Arg3, CUstream St), (Arg0, Arg1, Arg2, Arg3, St)) {
  return streamCheck(St);
}
ZLUDA_API(cuMemPrefetchAsync_v2_ptsz, (CUdeviceptr P, size_t N, uint64_t L, unsigned F, CUstream St), (P, N, L, F, St)) {
  return cuMemPrefetchAsync_v2(P, N, L, F, ptsz(St));
}
ZLUDA_API(cuMemAdvise_v2, (CUdeviceptr Arg0, size_t Arg1, int Arg2, uint64_t /*CUmemLocation*/ Arg3), (Arg0, Arg1, Arg2, Arg3)) { return CUDA_SUCCESS; }
