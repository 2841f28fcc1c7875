//===- RuntimeMemory.cpp - memory, symbols, streams, events, functions -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The rest of the runtime API our libcudart implements, each a thin
/// layer over the driver's internal interface.
#include "driver/Internal.h"
#include "ptx/codegen/BlockCompression.h"
#include "zluda/cuda_runtime_abi.h"

#include <cstring>

#define CUDART_EXPORT extern "C" __attribute__((visibility("default")))

using namespace zluda::driver;

namespace zluda::runtime {
// Defined in Runtime.cpp.
cudaError_t runtimeCall(const std::function<cudaError_t()> &F);
cudaError_t fromDriver(CUresult R);
cudaError_t symbolAddress(const void *Symbol, void *&Addr, size_t &Size);
cudaError_t kernelFunction(const void *Stub, Function *&Out);
/// A copy checked against its direction; \p Async enqueues it on \p St.
cudaError_t copyKind(void *Dst, const void *Src, size_t N, cudaMemcpyKind Kind, cudaStream_t St = nullptr,
                     bool Async = false);
// Graphs.cpp: record instead of run when the stream is capturing.
bool captureCopy(cudaStream_t S, void *Dst, const void *Src, size_t N, cudaMemcpyKind K);
bool captureMemset(cudaStream_t S, void *Dst, int V, size_t N);
bool captureHost(cudaStream_t S, cudaHostFn_t Fn, void *User);
} // namespace zluda::runtime

using namespace zluda::runtime;
#define API(...) return runtimeCall([&]() -> cudaError_t { __VA_ARGS__ })

// --- allocation --------------------------------------------------------------------

ZLUDA_TRACED_EXPORT(cudaError_t, cudaMalloc, (void **P, size_t Size), (P, Size)) {
  API({
    if (!P)
      return cudaErrorInvalidValue;
    if (Size == 0) {
      *P = nullptr;
      return cudaSuccess;
    }
    CUdeviceptr D;
    CUresult R = memAlloc(&D, Size, CU_MEMORYTYPE_DEVICE, false, 0);
    *P = reinterpret_cast<void *>(D);
    return fromDriver(R);
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaFree, (void *P), (P)) {
  API({ return fromDriver(memFree(reinterpret_cast<uintptr_t>(P), CU_MEMORYTYPE_DEVICE)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMallocManaged, (void **P, size_t Size, unsigned Flags), (P, Size, Flags)) {
  API({
    if (!P || (Flags != CU_MEM_ATTACH_GLOBAL && Flags != CU_MEM_ATTACH_HOST))
      return cudaErrorInvalidValue;
    CUdeviceptr D;
    CUresult R = memAlloc(&D, Size, CU_MEMORYTYPE_DEVICE, true, Flags);
    *P = reinterpret_cast<void *>(D);
    return fromDriver(R);
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMallocHost, (void **P, size_t Size), (P, Size)) {
  API({
    if (!P)
      return cudaErrorInvalidValue;
    CUdeviceptr D;
    CUresult R = memAlloc(&D, Size, CU_MEMORYTYPE_HOST, false, 0);
    *P = reinterpret_cast<void *>(D);
    return fromDriver(R);
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaHostAlloc, (void **P, size_t Size, unsigned Flags), (P, Size, Flags)) {
  API({
    if (!P || (Flags & ~7u))
      return cudaErrorInvalidValue;
    CUdeviceptr D;
    CUresult R = memAlloc(&D, Size, CU_MEMORYTYPE_HOST, false, Flags);
    *P = reinterpret_cast<void *>(D);
    return fromDriver(R);
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaFreeHost, (void *P), (P)) {
  API({ return fromDriver(memFree(reinterpret_cast<uintptr_t>(P), CU_MEMORYTYPE_HOST)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaHostGetDevicePointer, (void **D, void *P, unsigned Flags), (D, P, Flags)) {
  API({
    if (!D || Flags != 0)
      return cudaErrorInvalidValue;
    unsigned F;
    if (CUresult R = hostFlags(P, F))
      return fromDriver(R);
    *D = P; // host memory is device memory here
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaHostGetFlags, (unsigned *Flags, void *P), (Flags, P)) {
  API({
    if (!Flags)
      return cudaErrorInvalidValue;
    return fromDriver(hostFlags(P, *Flags));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaHostRegister, (void *P, size_t Size, unsigned Flags), (P, Size, Flags)) {
  API({ return fromDriver(hostRegister(P, Size, Flags)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaHostUnregister, (void *P), (P)) { API({ return fromDriver(hostUnregister(P)); }); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMallocPitch, (void **P, size_t *Pitch, size_t Width, size_t Height), (P, Pitch, Width, Height)) {
  API({
    if (!P || !Pitch)
      return cudaErrorInvalidValue;
    *Pitch = (Width + 255) / 256 * 256;
    if (*Pitch * Height == 0) {
      *P = nullptr;
      return cudaSuccess;
    }
    CUdeviceptr D;
    CUresult R = memAlloc(&D, *Pitch * Height, CU_MEMORYTYPE_DEVICE, false, 0);
    *P = reinterpret_cast<void *>(D);
    return fromDriver(R);
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMalloc3D, (cudaPitchedPtr *P, cudaExtent E), (P, E)) {
  API({
    if (!P)
      return cudaErrorInvalidValue;
    size_t Pitch = (E.width + 255) / 256 * 256;
    size_t Bytes = Pitch * E.height * E.depth;
    P->pitch = Pitch;
    P->xsize = E.width;
    P->ysize = E.height;
    P->ptr = nullptr;
    if (!Bytes)
      return cudaSuccess;
    CUdeviceptr D;
    CUresult R = memAlloc(&D, Bytes, CU_MEMORYTYPE_DEVICE, false, 0);
    P->ptr = reinterpret_cast<void *>(D);
    return fromDriver(R);
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMallocAsync, (void **P, size_t Size, cudaStream_t S), (P, Size, S)) {
  API({
    if (CUresult R = streamCheck(S))
      return fromDriver(R);
    if (!P)
      return cudaErrorInvalidValue;
    CUdeviceptr D = 0;
    CUresult R = CUDA_SUCCESS;
    if (!captureAlloc(S, Size, D, R)) { // captured: a memory allocation node
      R = memAlloc(&D, Size, CU_MEMORYTYPE_DEVICE, false, 0);
      if (!R)
        R = poolAttach(D, nullptr); // the device's current pool
    }
    *P = reinterpret_cast<void *>(D);
    return fromDriver(R);
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMallocFromPoolAsync, (void **P, size_t Size, cudaMemPool_t Pool, cudaStream_t S), (P, Size, Pool, S)) {
  API({
    if (!P)
      return cudaErrorInvalidValue;
    CUdeviceptr D = 0;
    CUresult R = cuMemAllocFromPoolAsync(&D, Size, reinterpret_cast<CUmemoryPool>(Pool), S);
    *P = reinterpret_cast<void *>(D);
    return fromDriver(R);
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaFreeAsync, (void *P, cudaStream_t S), (P, S)) {
  API({
    if (CUresult R = streamCheck(S))
      return fromDriver(R);
    if (captureFree(S, reinterpret_cast<CUdeviceptr>(P)))
      return cudaSuccess;
    return fromDriver(memFree(reinterpret_cast<uintptr_t>(P), CU_MEMORYTYPE_DEVICE));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemGetInfo, (size_t *Free, size_t *Total), (Free, Total)) {
  API({
    if (!Free || !Total)
      return cudaErrorInvalidValue;
    return fromDriver(memInfo(*Free, *Total));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemPrefetchAsync, (const void * Arg0, size_t Arg1, cudaMemLocation Arg2, unsigned Arg3, cudaStream_t S), (Arg0, Arg1, Arg2, Arg3, S)) {
  API({ return fromDriver(streamCheck(S)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemAdvise, (const void * Arg0, size_t Arg1, int Arg2, cudaMemLocation Arg3), (Arg0, Arg1, Arg2, Arg3)) { API({ return cudaSuccess; }); }

ZLUDA_TRACED_EXPORT(cudaError_t, cudaPointerGetAttributes, (cudaPointerAttributes *A, const void *P), (A, P)) {
  API({
    if (!A)
      return cudaErrorInvalidValue;
    std::memset(A, 0, sizeof *A);
    const Allocation *X = findAllocation(reinterpret_cast<uintptr_t>(P));
    A->device = 0;
    if (!X) {
      A->type = cudaMemoryTypeUnregistered;
      A->hostPointer = const_cast<void *>(P);
      return cudaSuccess;
    }
    A->type = X->Managed ? cudaMemoryTypeManaged : X->Type == CU_MEMORYTYPE_HOST ? cudaMemoryTypeHost : cudaMemoryTypeDevice;
    A->devicePointer = const_cast<void *>(P);
    A->hostPointer = A->type == cudaMemoryTypeDevice ? nullptr : const_cast<void *>(P);
    return cudaSuccess;
  });
}

// --- copies and memsets (async forms are enqueued on their stream; on the CPU device
// every stream runs in order at the call, so they complete on return) ----

ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpy, (void *D, const void *S, size_t N, cudaMemcpyKind K), (D, S, N, K)) {
  API({ return copyKind(D, S, N, K); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpy_ptds, (void *D, const void *S, size_t N, cudaMemcpyKind K), (D, S, N, K)) { return cudaMemcpy(D, S, N, K); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpyAsync, (void *D, const void *S, size_t N, cudaMemcpyKind K, cudaStream_t St), (D, S, N, K, St)) {
  API({
    if (CUresult R = streamCheck(St))
      return fromDriver(R);
    if (captureCopy(St, D, S, N, K))
      return cudaSuccess;
    return copyKind(D, S, N, K, St, true);
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpyAsync_ptsz, (void *D, const void *S, size_t N, cudaMemcpyKind K, cudaStream_t St), (D, S, N, K, St)) {
  return cudaMemcpyAsync(D, S, N, K, St);
}
namespace {
cudaError_t memcpy2D(void *D, size_t DP, const void *S, size_t SP, size_t W, size_t H, cudaMemcpyKind K,
                     cudaStream_t St, bool Async) {
  return runtimeCall([&]() -> cudaError_t {
    if (K < cudaMemcpyHostToHost || K > cudaMemcpyDefault)
      return cudaErrorInvalidMemcpyDirection;
    if (W > DP || W > SP)
      return cudaErrorInvalidPitchValue;
    CUDA_MEMCPY2D P = {};
    P.srcMemoryType = CU_MEMORYTYPE_HOST;
    P.srcHost = S;
    P.srcPitch = SP;
    P.dstMemoryType = CU_MEMORYTYPE_HOST;
    P.dstHost = D;
    P.dstPitch = DP;
    P.WidthInBytes = W;
    P.Height = H;
    return fromDriver(copy2D(&P, St, Async));
  });
}
cudaError_t memcpy3D(const cudaMemcpy3DParms *P, cudaStream_t St, bool Async) {
  return runtimeCall([&]() -> cudaError_t {
    if (!P)
      return cudaErrorInvalidValue;
    // Positions are in each side's elements (bytes for pointers); the extent
    // is in elements of the array when one takes part, else in bytes.
    const Array *SA = P->srcArray ? arrayOf(reinterpret_cast<CUarray>(P->srcArray)) : nullptr;
    const Array *DA = P->dstArray ? arrayOf(reinterpret_cast<CUarray>(P->dstArray)) : nullptr;
    if ((P->srcArray && !SA) || (P->dstArray && !DA))
      return cudaErrorInvalidResourceHandle;
    if (SA && DA && SA->ElemBytes != DA->ElemBytes)
      return cudaErrorInvalidValue;
    size_t Elem = SA ? SA->ElemBytes : DA ? DA->ElemBytes : 1;
    CUDA_MEMCPY3D C = {};
    // One side: an array (x in its elements) or a pitched pointer (x in bytes).
    auto side = [](const Array *A, cudaArray_t Arr, const cudaPitchedPtr &Ptr, const cudaPos &Pos, CUmemorytype &Type,
                   const void *&Host, CUarray &CArr, size_t &X, size_t &Y, size_t &Z, size_t &Pitch, size_t &Height) {
      Type = A ? CU_MEMORYTYPE_ARRAY : CU_MEMORYTYPE_HOST;
      CArr = A ? reinterpret_cast<CUarray>(Arr) : nullptr;
      Host = A ? nullptr : Ptr.ptr;
      X = A ? Pos.x * A->ElemBytes : Pos.x;
      Pitch = A ? 0 : Ptr.pitch;
      Height = A ? 0 : Ptr.ysize;
      Y = Pos.y;
      Z = Pos.z;
    };
    side(SA, P->srcArray, P->srcPtr, P->srcPos, C.srcMemoryType, C.srcHost, C.srcArray, C.srcXInBytes, C.srcY, C.srcZ,
         C.srcPitch, C.srcHeight);
    const void *DstHost = nullptr;
    side(DA, P->dstArray, P->dstPtr, P->dstPos, C.dstMemoryType, DstHost, C.dstArray, C.dstXInBytes, C.dstY, C.dstZ,
         C.dstPitch, C.dstHeight);
    C.dstHost = const_cast<void *>(DstHost);
    C.WidthInBytes = P->extent.width * Elem;
    C.Height = P->extent.height ? P->extent.height : 1;
    C.Depth = P->extent.depth ? P->extent.depth : 1;
    if (P->extent.width == 0)
      return cudaSuccess;
    return fromDriver(copy3D(&C, St, Async));
  });
}
} // namespace

namespace zluda::runtime {
/// cudaMemcpy3D(Async) for the runtime's graph nodes.
cudaError_t memcpy3DParms(const cudaMemcpy3DParms *P, cudaStream_t St, bool Async) { return memcpy3D(P, St, Async); }
} // namespace zluda::runtime

ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpy2D, (void *D, size_t DP, const void *S, size_t SP, size_t W, size_t H, cudaMemcpyKind K), (D, DP, S, SP, W, H, K)) {
  return memcpy2D(D, DP, S, SP, W, H, K, nullptr, false);
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpy2DAsync, (void *D, size_t DP, const void *S, size_t SP, size_t W, size_t H, cudaMemcpyKind K, cudaStream_t St), (D, DP, S, SP, W, H, K, St)) {
  if (CUresult R = streamCheck(St))
    return fromDriver(R);
  return memcpy2D(D, DP, S, SP, W, H, K, St, true);
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpy3D, (const cudaMemcpy3DParms *P), (P)) { return memcpy3D(P, nullptr, false); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpy3DAsync, (const cudaMemcpy3DParms *P, cudaStream_t St), (P, St)) {
  if (CUresult R = streamCheck(St))
    return fromDriver(R);
  return memcpy3D(P, St, true);
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemset, (void *D, int V, size_t N), (D, V, N)) {
  API({ return fromDriver(zluda::driver::memset(reinterpret_cast<uintptr_t>(D), static_cast<uint8_t>(V), 1, N)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemset_ptds, (void *D, int V, size_t N), (D, V, N)) { return cudaMemset(D, V, N); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemsetAsync, (void *D, int V, size_t N, cudaStream_t St), (D, V, N, St)) {
  if (CUresult R = streamCheck(St))
    return fromDriver(R);
  if (captureMemset(St, D, V, N))
    return cudaSuccess;
  API({
    return fromDriver(zluda::driver::memset(reinterpret_cast<uintptr_t>(D), static_cast<uint8_t>(V), 1, N, 0, 0, 1, St,
                                            true));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemsetAsync_ptsz, (void *D, int V, size_t N, cudaStream_t St), (D, V, N, St)) { return cudaMemsetAsync(D, V, N, St); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemset2D, (void *D, size_t Pitch, int V, size_t W, size_t H), (D, Pitch, V, W, H)) {
  API({
    return fromDriver(zluda::driver::memset(reinterpret_cast<uintptr_t>(D), static_cast<uint8_t>(V), 1, 0, Pitch, W, H));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemset2DAsync, (void *D, size_t Pitch, int V, size_t W, size_t H, cudaStream_t St), (D, Pitch, V, W, H, St)) {
  if (CUresult R = streamCheck(St))
    return fromDriver(R);
  API({
    return fromDriver(
        zluda::driver::memset(reinterpret_cast<uintptr_t>(D), static_cast<uint8_t>(V), 1, 0, Pitch, W, H, St, true));
  });
}

// --- symbols -----------------------------------------------------------------------

ZLUDA_TRACED_EXPORT(cudaError_t, cudaGetSymbolAddress, (void **Out, const void *Symbol), (Out, Symbol)) {
  API({
    if (!Out)
      return cudaErrorInvalidValue;
    size_t Size;
    return symbolAddress(Symbol, *Out, Size);
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGetSymbolSize, (size_t *Out, const void *Symbol), (Out, Symbol)) {
  API({
    if (!Out)
      return cudaErrorInvalidValue;
    void *Addr;
    return symbolAddress(Symbol, Addr, *Out);
  });
}
/// The device address of bytes [Off, Off + N) of a registered variable.
static cudaError_t symbolRange(const void *Symbol, size_t N, size_t Off, char *&At) {
  void *Addr;
  size_t Size;
  if (cudaError_t E = symbolAddress(Symbol, Addr, Size))
    return E;
  if (Off > Size || N > Size - Off)
    return cudaErrorInvalidValue;
  At = static_cast<char *>(Addr) + Off;
  return cudaSuccess;
}
namespace {
/// cudaMemcpyToSymbol[Async] / FromSymbol[Async]: the symbol's range checked,
/// the direction checked, then an ordinary copy (\p Async: on \p St).
cudaError_t symbolCopy(bool ToSymbol, void *Host, const void *Symbol, size_t N, size_t Off, cudaMemcpyKind K,
                       cudaStream_t St, bool Async) {
  return runtimeCall([&]() -> cudaError_t {
    char *At;
    if (cudaError_t E = symbolRange(Symbol, N, Off, At))
      return E;
    cudaMemcpyKind Allowed = ToSymbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    if (K != Allowed && K != cudaMemcpyDeviceToDevice && K != cudaMemcpyDefault)
      return cudaErrorInvalidMemcpyDirection;
    return ToSymbol ? copyKind(At, Host, N, cudaMemcpyDefault, St, Async)
                    : copyKind(Host, At, N, cudaMemcpyDefault, St, Async);
  });
}
} // namespace

ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpyToSymbol, (const void *Symbol, const void *Src, size_t N, size_t Off, cudaMemcpyKind K), (Symbol, Src, N, Off, K)) {
  return symbolCopy(true, const_cast<void *>(Src), Symbol, N, Off, K, nullptr, false);
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpyFromSymbol, (void *Dst, const void *Symbol, size_t N, size_t Off, cudaMemcpyKind K), (Dst, Symbol, N, Off, K)) {
  return symbolCopy(false, Dst, Symbol, N, Off, K, nullptr, false);
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpyToSymbolAsync, (const void *Symbol, const void *Src, size_t N, size_t Off, cudaMemcpyKind K, cudaStream_t St), (Symbol, Src, N, Off, K, St)) {
  if (CUresult R = streamCheck(St))
    return fromDriver(R);
  return symbolCopy(true, const_cast<void *>(Src), Symbol, N, Off, K, St, true);
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpyFromSymbolAsync, (void *Dst, const void *Symbol, size_t N, size_t Off, cudaMemcpyKind K, cudaStream_t St), (Dst, Symbol, N, Off, K, St)) {
  if (CUresult R = streamCheck(St))
    return fromDriver(R);
  return symbolCopy(false, Dst, Symbol, N, Off, K, St, true);
}

// --- streams, events, host functions ---------------------------------------------------

ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamCreate, (cudaStream_t *S), (S)) { API({ return fromDriver(streamCreate(S, 0, 0)); }); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamCreateWithFlags, (cudaStream_t *S, unsigned F), (S, F)) {
  API({ return fromDriver(streamCreate(S, F, 0)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamCreateWithPriority, (cudaStream_t *S, unsigned F, int P), (S, F, P)) {
  API({ return fromDriver(streamCreate(S, F, P)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamDestroy, (cudaStream_t S), (S)) { API({ return fromDriver(streamDestroy(S)); }); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamSynchronize, (cudaStream_t S), (S)) {
  API({ return fromDriver(streamSynchronize(S)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamQuery, (cudaStream_t S), (S)) { API({ return fromDriver(streamQuery(S)); }); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamGetPriority, (cudaStream_t S, int *P), (S, P)) {
  API({
    if (!P)
      return cudaErrorInvalidValue;
    if (CUresult R = streamCheck(S))
      return fromDriver(R);
    Stream *X = handle<Stream>(S, Kind::Stream);
    *P = X ? X->Priority : 0;
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamGetFlags, (cudaStream_t S, unsigned *F), (S, F)) {
  API({
    if (!F)
      return cudaErrorInvalidValue;
    if (CUresult R = streamCheck(S))
      return fromDriver(R);
    Stream *X = handle<Stream>(S, Kind::Stream);
    *F = X ? X->Flags : 0;
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamWaitEvent, (cudaStream_t S, cudaEvent_t E, unsigned Arg2), (S, E, Arg2)) {
  API({
    if (CUresult R = streamCheck(S))
      return fromDriver(R);
    if (!isLive(E, Kind::Event))
      return cudaErrorInvalidResourceHandle;
    return fromDriver(streamWaitEvent(S, E));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaLaunchHostFunc, (cudaStream_t S, cudaHostFn_t Fn, void *User), (S, Fn, User)) {
  API({
    if (!Fn)
      return cudaErrorInvalidValue;
    if (CUresult R = streamCheck(S))
      return fromDriver(R);
    if (captureHost(S, Fn, User))
      return cudaSuccess;
    return fromDriver(launchHostFunc(S, Fn, User));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamAddCallback, (cudaStream_t S, cudaStreamCallback_t Fn, void *User, unsigned Flags), (S, Fn, User, Flags)) {
  API({
    if (!Fn || Flags)
      return cudaErrorInvalidValue;
    if (CUresult R = streamCheck(S))
      return fromDriver(R);
    // cudaStreamCallback_t differs from CUstreamCallback only in its status
    // type; the driver tells it the runtime's code.
    struct Call {
      cudaStreamCallback_t Fn;
      void *User;
    };
    auto *Pending = new Call{Fn, User};
    CUresult R = streamAddCallback(
        S,
        [](CUstream H, CUresult Status, void *P) {
          std::unique_ptr<Call> X(static_cast<Call *>(P));
          X->Fn(H, fromDriver(Status), X->User);
        },
        Pending);
    if (R != CUDA_SUCCESS)
      delete Pending;
    return fromDriver(R);
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaEventCreate, (cudaEvent_t *E), (E)) { API({ return fromDriver(eventCreate(E, 0)); }); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaEventCreateWithFlags, (cudaEvent_t *E, unsigned F), (E, F)) {
  API({ return fromDriver(eventCreate(E, F)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaEventDestroy, (cudaEvent_t E), (E)) { API({ return fromDriver(eventDestroy(E)); }); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaEventRecord, (cudaEvent_t E, cudaStream_t S), (E, S)) { API({ return fromDriver(eventRecord(E, S)); }); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaEventRecordWithFlags, (cudaEvent_t E, cudaStream_t S, unsigned Arg2), (E, S, Arg2)) { return cudaEventRecord(E, S); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaEventQuery, (cudaEvent_t E), (E)) {
  API({
    if (!isLive(E, Kind::Event))
      return cudaErrorInvalidResourceHandle;
    return fromDriver(eventQuery(E));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaEventSynchronize, (cudaEvent_t E), (E)) {
  API({
    if (!isLive(E, Kind::Event))
      return cudaErrorInvalidResourceHandle;
    return fromDriver(eventSynchronize(E));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaEventElapsedTime, (float *Ms, cudaEvent_t A, cudaEvent_t B), (Ms, A, B)) {
  API({ return fromDriver(eventElapsed(Ms, A, B)); });
}

// --- functions and occupancy ----------------------------------------------------------

ZLUDA_TRACED_EXPORT(cudaError_t, cudaFuncGetAttributes, (cudaFuncAttributes *A, const void *Func), (A, Func)) {
  API({
    if (!A)
      return cudaErrorInvalidValue;
    Function *F;
    if (cudaError_t E = kernelFunction(Func, F))
      return E;
    std::memset(A, 0, sizeof *A);
    int V = 0;
    auto get = [&](int Attr) {
      funcAttribute(&V, Attr, F);
      return V;
    };
    A->maxThreadsPerBlock = get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    A->sharedSizeBytes = static_cast<size_t>(get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
    A->constSizeBytes = static_cast<size_t>(get(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES));
    A->localSizeBytes = static_cast<size_t>(get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES));
    A->numRegs = get(CU_FUNC_ATTRIBUTE_NUM_REGS);
    A->ptxVersion = get(CU_FUNC_ATTRIBUTE_PTX_VERSION);
    A->binaryVersion = get(CU_FUNC_ATTRIBUTE_BINARY_VERSION);
    A->maxDynamicSharedSizeBytes = get(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
    A->preferredShmemCarveout = get(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaFuncSetAttribute, (const void *Func, int Attr, int V), (Func, Attr, V)) {
  API({
    Function *F;
    if (cudaError_t E = kernelFunction(Func, F))
      return E;
    // cudaFuncAttribute values: 8 max dynamic shared, 9 carveout, then cluster ones.
    int DriverAttr = Attr == 8 ? CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
                     : Attr == 9 ? CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
                                 : Attr;
    return fromDriver(funcSetAttribute(F, DriverAttr, V));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaFuncSetCacheConfig, (const void *Func, int Arg1), (Func, Arg1)) {
  API({
    Function *F;
    return kernelFunction(Func, F);
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, (int *N, const void *Func, int Block, size_t Shared, unsigned Arg4), (N, Func, Block, Shared, Arg4)) {
  API({
    if (!N)
      return cudaErrorInvalidValue;
    Function *F;
    if (cudaError_t E = kernelFunction(Func, F))
      return E;
    *N = occupancy(F, Block, Shared);
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaOccupancyMaxActiveBlocksPerMultiprocessor, (int *N, const void *Func, int Block, size_t Shared), (N, Func, Block, Shared)) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(N, Func, Block, Shared, 0);
}

// --- texture objects ---------------------------------------------------------------------

CUDART_EXPORT cudaChannelFormatDesc cudaCreateChannelDesc(int X, int Y, int Z, int W, cudaChannelFormatKind F) {
  return cudaChannelFormatDesc{X, Y, Z, W, F};
}

namespace {
/// The driver's format and channel count for a channel description (all
/// channels the size of x; half floats are float channels of 16 bits).
cudaError_t formatOf(const cudaChannelFormatDesc &D, CUarray_format &Fmt, unsigned &Channels) {
  int Bits = D.x;
  // The kinds that name one driver format (channels as the format has them).
  if (D.f >= cudaChannelFormatKindUnsignedBlockCompressed1 && D.f <= cudaChannelFormatKindUnsignedBlockCompressed7SRGB) {
    Fmt = static_cast<CUarray_format>(CU_AD_FORMAT_BC1_UNORM + (D.f - cudaChannelFormatKindUnsignedBlockCompressed1));
    Channels = zluda::ptx::bc::blockChannels(Fmt);
    return cudaSuccess;
  }
  if (D.f == cudaChannelFormatKindUnsignedNormalized1010102 || D.f == cudaChannelFormatKindNV12) {
    Fmt = D.f == cudaChannelFormatKindNV12 ? CU_AD_FORMAT_NV12 : CU_AD_FORMAT_UNORM_INT_101010_2;
    Channels = D.f == cudaChannelFormatKindNV12 ? 3 : 4;
    return cudaSuccess;
  }
  Channels = (D.x > 0) + (D.y > 0) + (D.z > 0) + (D.w > 0);
  if (Channels == 3 || Channels == 0 || (D.y && D.y != Bits) || (D.z && D.z != Bits) || (D.w && D.w != Bits))
    return cudaErrorInvalidChannelDescriptor;
  if (D.f == cudaChannelFormatKindFloat && (Bits == 32 || Bits == 16))
    Fmt = Bits == 32 ? CU_AD_FORMAT_FLOAT : CU_AD_FORMAT_HALF;
  else if (D.f == cudaChannelFormatKindSigned && (Bits == 8 || Bits == 16 || Bits == 32))
    Fmt = Bits == 8 ? CU_AD_FORMAT_SIGNED_INT8 : Bits == 16 ? CU_AD_FORMAT_SIGNED_INT16 : CU_AD_FORMAT_SIGNED_INT32;
  else if (D.f == cudaChannelFormatKindUnsigned && (Bits == 8 || Bits == 16 || Bits == 32))
    Fmt = Bits == 8 ? CU_AD_FORMAT_UNSIGNED_INT8 : Bits == 16 ? CU_AD_FORMAT_UNSIGNED_INT16 : CU_AD_FORMAT_UNSIGNED_INT32;
  else if (D.f >= cudaChannelFormatKindUnsignedNormalized8X1 && D.f <= cudaChannelFormatKindSignedNormalized16X4) {
    // Kinds 5..16 name the driver's formats 0xc0..0xcb in the same order.
    Fmt = static_cast<CUarray_format>(CU_AD_FORMAT_UNORM_INT8X1 + (D.f - cudaChannelFormatKindUnsignedNormalized8X1));
    unsigned B, Fixed;
    int K;
    formatInfo(Fmt, B, K, &Fixed);
    if (static_cast<unsigned>(Bits) != B || Channels != Fixed)
      return cudaErrorInvalidChannelDescriptor;
  } else
    return cudaErrorInvalidChannelDescriptor;
  return cudaSuccess;
}
cudaChannelFormatDesc channelDescOf(CUarray_format Fmt, unsigned Channels) {
  // What the H200's runtime reports for the formats of their own kinds.
  if (zluda::ptx::bc::isBlockCompressed(Fmt)) {
    int B = Fmt == CU_AD_FORMAT_BC6H_UF16 || Fmt == CU_AD_FORMAT_BC6H_SF16 ? 16 : 8;
    return cudaChannelFormatDesc{B, Channels > 1 ? B : 0, Channels > 2 ? B : 0, Channels > 3 ? B : 0,
                                 static_cast<cudaChannelFormatKind>(cudaChannelFormatKindUnsignedBlockCompressed1 +
                                                                    (Fmt - CU_AD_FORMAT_BC1_UNORM))};
  }
  if (Fmt == CU_AD_FORMAT_UNORM_INT_101010_2)
    return cudaChannelFormatDesc{10, 10, 10, 2, cudaChannelFormatKindUnsignedNormalized1010102};
  if (Fmt == CU_AD_FORMAT_NV12)
    return cudaChannelFormatDesc{8, 8, 8, 0, cudaChannelFormatKindNV12};
  if (videoFormat(Fmt)) // no runtime kind of its own
    return cudaChannelFormatDesc{0, 0, 0, 0, cudaChannelFormatKindNone};
  unsigned Bits = 32, Fixed = 0;
  int Kind = 2;
  formatInfo(Fmt, Bits, Kind, &Fixed);
  int B = static_cast<int>(Bits);
  cudaChannelFormatKind F = Fixed     ? static_cast<cudaChannelFormatKind>(cudaChannelFormatKindUnsignedNormalized8X1 +
                                                                       (Fmt - CU_AD_FORMAT_UNORM_INT8X1))
                            : Kind == 0 ? cudaChannelFormatKindSigned
                            : Kind == 1 ? cudaChannelFormatKindUnsigned
                                        : cudaChannelFormatKindFloat;
  return cudaChannelFormatDesc{B, Channels > 1 ? B : 0, Channels > 2 ? B : 0, Channels > 3 ? B : 0, F};
}
cudaError_t arrayDescriptor(const cudaChannelFormatDesc &D, cudaExtent E, unsigned Flags, CUDA_ARRAY3D_DESCRIPTOR &A) {
  A = {};
  A.Width = E.width;
  A.Height = E.height;
  A.Depth = E.depth;
  A.Flags = Flags;
  return formatOf(D, A.Format, A.NumChannels);
}
/// The format of \p R's data (0 when the handle is not live).
CUarray_format resourceFormat(const CUDA_RESOURCE_DESC &R) {
  CUarray_format F;
  if (R.resType == CU_RESOURCE_TYPE_ARRAY && isLive(R.res.array.hArray, Kind::Array))
    F = reinterpret_cast<const Array *>(R.res.array.hArray)->Desc.Format;
  else if (R.resType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY && isLive(R.res.mipmap.hMipmappedArray, Kind::MipmappedArray))
    F = reinterpret_cast<const MipmappedArray *>(R.res.mipmap.hMipmappedArray)->Desc.Format;
  else if (R.resType == CU_RESOURCE_TYPE_LINEAR)
    F = R.res.linear.format;
  else if (R.resType == CU_RESOURCE_TYPE_PITCH2D)
    F = R.res.pitch2D.format;
  else
    F = static_cast<CUarray_format>(0);
  return F;
}
/// The read modes the H200's runtime refuses (cudaErrorInvalidNormSetting):
/// element type for normalized-integer and integer block-compressed formats,
/// normalized floats for BC6H's halves and the packed 10:10:10:2 format.
bool badReadMode(CUarray_format F, int ReadMode) {
  if (F == CU_AD_FORMAT_UNORM_INT_101010_2 || F == CU_AD_FORMAT_BC6H_UF16 || F == CU_AD_FORMAT_BC6H_SF16)
    return ReadMode != 0;
  unsigned Bits, Fixed;
  int K;
  return ReadMode == 0 && formatInfo(F, Bits, K, &Fixed) && Fixed && !videoFormat(F);
}
cudaError_t resourceOf(const cudaResourceDesc *Res, CUDA_RESOURCE_DESC &R) {
  R = {};
  if (Res->resType == cudaResourceTypeArray) {
    R.resType = CU_RESOURCE_TYPE_ARRAY;
    R.res.array.hArray = reinterpret_cast<CUarray>(Res->res.array.array);
    return cudaSuccess;
  }
  if (Res->resType == cudaResourceTypeMipmappedArray) {
    R.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
    R.res.mipmap.hMipmappedArray = reinterpret_cast<CUmipmappedArray>(Res->res.mipmap.mipmap);
    return cudaSuccess;
  }
  const cudaChannelFormatDesc &D = Res->resType == cudaResourceTypeLinear ? Res->res.linear.desc : Res->res.pitch2D.desc;
  CUarray_format Fmt;
  unsigned Channels;
  if (cudaError_t E = formatOf(D, Fmt, Channels))
    return E;
  if (Res->resType == cudaResourceTypeLinear) {
    R.resType = CU_RESOURCE_TYPE_LINEAR;
    R.res.linear.devPtr = reinterpret_cast<CUdeviceptr>(Res->res.linear.devPtr);
    R.res.linear.format = Fmt;
    R.res.linear.numChannels = Channels;
    R.res.linear.sizeInBytes = Res->res.linear.sizeInBytes;
  } else if (Res->resType == cudaResourceTypePitch2D) {
    R.resType = CU_RESOURCE_TYPE_PITCH2D;
    R.res.pitch2D.devPtr = reinterpret_cast<CUdeviceptr>(Res->res.pitch2D.devPtr);
    R.res.pitch2D.format = Fmt;
    R.res.pitch2D.numChannels = Channels;
    R.res.pitch2D.width = Res->res.pitch2D.width;
    R.res.pitch2D.height = Res->res.pitch2D.height;
    R.res.pitch2D.pitchInBytes = Res->res.pitch2D.pitchInBytes;
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}
} // namespace

ZLUDA_TRACED_EXPORT(cudaError_t, cudaCreateTextureObject, (cudaTextureObject_t *Out, const cudaResourceDesc *Res, const cudaTextureDesc *Tex, const void * Arg3), (Out, Res, Tex, Arg3)) {
  API({
    if (!Out || !Res || !Tex)
      return cudaErrorInvalidValue;
    CUDA_RESOURCE_DESC R;
    if (cudaError_t E = resourceOf(Res, R))
      return E;
    // The normalized-integer formats must be read as normalized floats (an
    // H200's runtime refuses cudaReadModeElementType for them; the driver accepts it).
    if (badReadMode(resourceFormat(R), Tex->readMode))
      return cudaErrorInvalidNormSetting;
    CUDA_TEXTURE_DESC T = {};
    for (int I = 0; I < 3; ++I)
      T.addressMode[I] = Tex->addressMode[I];
    T.filterMode = Tex->filterMode;
    T.flags = (Tex->readMode == 0 ? CU_TRSF_READ_AS_INTEGER : 0) |
              (Tex->normalizedCoords ? CU_TRSF_NORMALIZED_COORDINATES : 0) | (Tex->sRGB ? CU_TRSF_SRGB : 0) |
              (Tex->seamlessCubemap ? CU_TRSF_SEAMLESS_CUBEMAP : 0);
    for (int I = 0; I < 4; ++I)
      T.borderColor[I] = Tex->borderColor[I];
    T.maxAnisotropy = Tex->maxAnisotropy;
    T.mipmapFilterMode = Tex->mipmapFilterMode;
    T.mipmapLevelBias = Tex->mipmapLevelBias;
    T.minMipmapLevelClamp = Tex->minMipmapLevelClamp;
    T.maxMipmapLevelClamp = Tex->maxMipmapLevelClamp;
    return fromDriver(texObjectCreate(Out, &R, &T));
  });
}

// --- CUDA arrays and surfaces (over the driver's) -----------------------------------------
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMalloc3DArray,
                    (cudaArray_t * Out, const cudaChannelFormatDesc *D, cudaExtent E, unsigned Flags), (Out, D, E, Flags)) {
  API({
    if (!Out || !D)
      return cudaErrorInvalidValue;
    CUDA_ARRAY3D_DESCRIPTOR A;
    if (cudaError_t Err = arrayDescriptor(*D, E, Flags, A))
      return Err;
    Array *Arr;
    if (CUresult R = arrayCreate(Arr, A))
      return fromDriver(R);
    *Out = reinterpret_cast<cudaArray_t>(Arr);
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMallocArray,
                    (cudaArray_t * Out, const cudaChannelFormatDesc *D, size_t W, size_t H, unsigned Flags),
                    (Out, D, W, H, Flags)) {
  return cudaMalloc3DArray(Out, D, cudaExtent{W, H, 0}, Flags);
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaFreeArray, (cudaArray_t A), (A)) {
  API({
    if (!A)
      return cudaSuccess;
    return fromDriver(arrayDestroy(reinterpret_cast<Array *>(A)));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMallocMipmappedArray,
                    (cudaMipmappedArray_t * Out, const cudaChannelFormatDesc *D, cudaExtent E, unsigned Levels, unsigned Flags),
                    (Out, D, E, Levels, Flags)) {
  API({
    if (!Out || !D)
      return cudaErrorInvalidValue;
    CUDA_ARRAY3D_DESCRIPTOR A;
    if (cudaError_t Err = arrayDescriptor(*D, E, Flags, A))
      return Err;
    MipmappedArray *M;
    if (CUresult R = mipmappedArrayCreate(M, A, Levels))
      return fromDriver(R);
    *Out = reinterpret_cast<cudaMipmappedArray_t>(M);
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaFreeMipmappedArray, (cudaMipmappedArray_t M), (M)) {
  API({
    if (!M)
      return cudaSuccess;
    return fromDriver(mipmappedArrayDestroy(reinterpret_cast<MipmappedArray *>(M)));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGetMipmappedArrayLevel,
                    (cudaArray_t * Out, cudaMipmappedArray_const_t M, unsigned Level), (Out, M, Level)) {
  API({
    if (!Out)
      return cudaErrorInvalidValue;
    if (!isLive(M, Kind::MipmappedArray))
      return cudaErrorInvalidResourceHandle;
    auto *Mm = reinterpret_cast<const MipmappedArray *>(M);
    if (Level >= Mm->Levels)
      return cudaErrorInvalidValue;
    *Out = reinterpret_cast<cudaArray_t>(Mm->LevelArrays[Level].get());
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaArrayGetInfo,
                    (cudaChannelFormatDesc * D, cudaExtent *E, unsigned *Flags, cudaArray_t A), (D, E, Flags, A)) {
  API({
    const Array *Arr = arrayOf(reinterpret_cast<CUarray>(A));
    if (!Arr)
      return cudaErrorInvalidResourceHandle;
    if (D)
      *D = channelDescOf(Arr->Desc.Format, Arr->Desc.NumChannels);
    if (E)
      *E = cudaExtent{Arr->Desc.Width, Arr->Desc.Height, Arr->Desc.Depth};
    if (Flags)
      *Flags = Arr->Desc.Flags;
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaArrayGetPlane, (cudaArray_t * Out, cudaArray_t A, unsigned Plane), (Out, A, Plane)) {
  API({
    const Array *Arr = arrayOf(reinterpret_cast<CUarray>(A));
    if (!Arr)
      return cudaErrorInvalidResourceHandle;
    if (!Out || Plane >= Arr->Planes.size())
      return cudaErrorInvalidValue;
    *Out = reinterpret_cast<cudaArray_t>(Arr->Planes[Plane].get());
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGetChannelDesc, (cudaChannelFormatDesc * D, cudaArray_const_t A), (D, A)) {
  API({
    const Array *Arr = arrayOf(reinterpret_cast<CUarray>(const_cast<cudaArray *>(A)));
    if (!Arr)
      return cudaErrorInvalidResourceHandle;
    if (!D)
      return cudaErrorInvalidValue;
    *D = channelDescOf(Arr->Desc.Format, Arr->Desc.NumChannels);
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaCreateSurfaceObject, (cudaSurfaceObject_t * Out, const cudaResourceDesc *Res), (Out, Res)) {
  API({
    if (!Out || !Res)
      return cudaErrorInvalidValue;
    CUDA_RESOURCE_DESC R;
    if (cudaError_t E = resourceOf(Res, R))
      return E;
    return fromDriver(surfObjectCreate(Out, &R));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaDestroySurfaceObject, (cudaSurfaceObject_t S), (S)) {
  API({ return fromDriver(surfObjectDestroy(S)); });
}

namespace {
/// A 2D copy with CUDA arrays on either side (\p SrcArr / \p DstArr, offsets
/// in bytes for x and rows for y) through the driver's cuMemcpy2D.
cudaError_t arrayCopy2D(cudaArray_const_t DstArr, void *Dst, size_t DP, size_t DX, size_t DY, cudaArray_const_t SrcArr,
                        const void *Src, size_t SP, size_t SX, size_t SY, size_t W, size_t H, cudaMemcpyKind K,
                        cudaStream_t St, bool Async) {
  if (K < cudaMemcpyHostToHost || K > cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  CUDA_MEMCPY2D P = {};
  if (SrcArr) {
    P.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    P.srcArray = reinterpret_cast<CUarray>(const_cast<cudaArray *>(SrcArr));
  } else {
    P.srcMemoryType = CU_MEMORYTYPE_HOST;
    P.srcHost = Src;
    P.srcPitch = SP;
  }
  if (DstArr) {
    P.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    P.dstArray = reinterpret_cast<CUarray>(const_cast<cudaArray *>(DstArr));
  } else {
    P.dstMemoryType = CU_MEMORYTYPE_HOST;
    P.dstHost = Dst;
    P.dstPitch = DP;
  }
  P.srcXInBytes = SX;
  P.srcY = SY;
  P.dstXInBytes = DX;
  P.dstY = DY;
  P.WidthInBytes = W;
  P.Height = H;
  if ((SrcArr && !arrayOf(P.srcArray)) || (DstArr && !arrayOf(P.dstArray)))
    return cudaErrorInvalidResourceHandle;
  if ((!SrcArr && SP < W) || (!DstArr && DP < W))
    return cudaErrorInvalidPitchValue;
  return fromDriver(copy2D(&P, St, Async));
}
/// Rows of an array a linear count of bytes from (x, y) covers: the deprecated
/// cudaMemcpyToArray family copies row by row through the array's width.
cudaError_t arrayCopyLinear(cudaArray_const_t DstArr, void *Dst, size_t DX, size_t DY, cudaArray_const_t SrcArr,
                            const void *Src, size_t SX, size_t SY, size_t Count, cudaMemcpyKind K, cudaStream_t St,
                            bool Async) {
  const Array *A = arrayOf(reinterpret_cast<CUarray>(const_cast<cudaArray *>(DstArr ? DstArr : SrcArr)));
  if (!A)
    return cudaErrorInvalidResourceHandle;
  size_t X = DstArr ? DX : SX, Y = DstArr ? DY : SY;
  if (X + Count <= A->Pitch) // within one row
    return arrayCopy2D(DstArr, Dst, Count, DX, DY, SrcArr, Src, Count, SX, SY, Count, 1, K, St, Async);
  if (X != 0 || Count % A->Pitch)
    return cudaErrorInvalidValue;
  (void)Y;
  return arrayCopy2D(DstArr, Dst, A->Pitch, DX, DY, SrcArr, Src, A->Pitch, SX, SY, A->Pitch, Count / A->Pitch, K, St,
                     Async);
}
} // namespace

ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpy2DToArray,
                    (cudaArray_t D, size_t WO, size_t HO, const void *S, size_t SP, size_t W, size_t H, cudaMemcpyKind K),
                    (D, WO, HO, S, SP, W, H, K)) {
  API({ return arrayCopy2D(D, nullptr, 0, WO, HO, nullptr, S, SP, 0, 0, W, H, K, nullptr, false); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpy2DToArrayAsync,
                    (cudaArray_t D, size_t WO, size_t HO, const void *S, size_t SP, size_t W, size_t H, cudaMemcpyKind K,
                     cudaStream_t St),
                    (D, WO, HO, S, SP, W, H, K, St)) {
  API({
    if (CUresult R = streamCheck(St))
      return fromDriver(R);
    return arrayCopy2D(D, nullptr, 0, WO, HO, nullptr, S, SP, 0, 0, W, H, K, St, true);
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpy2DFromArray,
                    (void *D, size_t DP, cudaArray_const_t S, size_t WO, size_t HO, size_t W, size_t H, cudaMemcpyKind K),
                    (D, DP, S, WO, HO, W, H, K)) {
  API({ return arrayCopy2D(nullptr, D, DP, 0, 0, S, nullptr, 0, WO, HO, W, H, K, nullptr, false); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpy2DFromArrayAsync,
                    (void *D, size_t DP, cudaArray_const_t S, size_t WO, size_t HO, size_t W, size_t H, cudaMemcpyKind K,
                     cudaStream_t St),
                    (D, DP, S, WO, HO, W, H, K, St)) {
  API({
    if (CUresult R = streamCheck(St))
      return fromDriver(R);
    return arrayCopy2D(nullptr, D, DP, 0, 0, S, nullptr, 0, WO, HO, W, H, K, St, true);
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpy2DArrayToArray,
                    (cudaArray_t D, size_t DWO, size_t DHO, cudaArray_const_t S, size_t SWO, size_t SHO, size_t W, size_t H,
                     cudaMemcpyKind K),
                    (D, DWO, DHO, S, SWO, SHO, W, H, K)) {
  API({ return arrayCopy2D(D, nullptr, 0, DWO, DHO, S, nullptr, 0, SWO, SHO, W, H, K, nullptr, false); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpyToArray,
                    (cudaArray_t D, size_t WO, size_t HO, const void *S, size_t N, cudaMemcpyKind K), (D, WO, HO, S, N, K)) {
  API({ return arrayCopyLinear(D, nullptr, WO, HO, nullptr, S, 0, 0, N, K, nullptr, false); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpyToArrayAsync,
                    (cudaArray_t D, size_t WO, size_t HO, const void *S, size_t N, cudaMemcpyKind K, cudaStream_t St),
                    (D, WO, HO, S, N, K, St)) {
  API({ return arrayCopyLinear(D, nullptr, WO, HO, nullptr, S, 0, 0, N, K, St, true); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpyFromArray,
                    (void *D, cudaArray_const_t S, size_t WO, size_t HO, size_t N, cudaMemcpyKind K), (D, S, WO, HO, N, K)) {
  API({ return arrayCopyLinear(nullptr, D, 0, 0, S, nullptr, WO, HO, N, K, nullptr, false); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpyFromArrayAsync,
                    (void *D, cudaArray_const_t S, size_t WO, size_t HO, size_t N, cudaMemcpyKind K, cudaStream_t St),
                    (D, S, WO, HO, N, K, St)) {
  API({ return arrayCopyLinear(nullptr, D, 0, 0, S, nullptr, WO, HO, N, K, St, true); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpyArrayToArray,
                    (cudaArray_t D, size_t DWO, size_t DHO, cudaArray_const_t S, size_t SWO, size_t SHO, size_t N,
                     cudaMemcpyKind K),
                    (D, DWO, DHO, S, SWO, SHO, N, K)) {
  API({ return arrayCopyLinear(D, nullptr, DWO, DHO, S, nullptr, SWO, SHO, N, K, nullptr, false); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaDestroyTextureObject, (cudaTextureObject_t T), (T)) {
  API({ return fromDriver(texObjectDestroy(T)); });
}

// --- per-thread default stream forms (--default-stream per-thread) ------------------
// Every stream runs in order on the calling thread, so the per-thread default
// stream needs nothing of its own: these forward to the plain entry points.
#define PTSZ(Name, Params, Args)                                                                                       \
  CUDART_EXPORT cudaError_t Name##_ptsz Params { return Name Args; }
#define PTDS(Name, Params, Args)                                                                                       \
  CUDART_EXPORT cudaError_t Name##_ptds Params { return Name Args; }
PTSZ(cudaStreamSynchronize, (cudaStream_t S), (S))
PTSZ(cudaStreamQuery, (cudaStream_t S), (S))
PTSZ(cudaStreamGetPriority, (cudaStream_t S, int *P), (S, P))
PTSZ(cudaStreamGetFlags, (cudaStream_t S, unsigned *F), (S, F))
PTSZ(cudaStreamWaitEvent, (cudaStream_t S, cudaEvent_t E, unsigned F), (S, E, F))
PTSZ(cudaStreamAddCallback, (cudaStream_t S, cudaStreamCallback_t Fn, void *U, unsigned F), (S, Fn, U, F))
PTSZ(cudaLaunchHostFunc, (cudaStream_t S, cudaHostFn_t Fn, void *U), (S, Fn, U))
PTSZ(cudaEventRecord, (cudaEvent_t E, cudaStream_t S), (E, S))
PTSZ(cudaEventRecordWithFlags, (cudaEvent_t E, cudaStream_t S, unsigned F), (E, S, F))
PTSZ(cudaMallocAsync, (void **P, size_t N, cudaStream_t S), (P, N, S))
PTSZ(cudaMallocFromPoolAsync, (void **P, size_t N, cudaMemPool_t Pool, cudaStream_t S), (P, N, Pool, S))
PTSZ(cudaFreeAsync, (void *P, cudaStream_t S), (P, S))
PTSZ(cudaMemPrefetchAsync, (const void *P, size_t N, cudaMemLocation L, unsigned F, cudaStream_t S), (P, N, L, F, S))
PTSZ(cudaMemcpy2DAsync, (void *D, size_t DP, const void *Sr, size_t SP, size_t W, size_t H, cudaMemcpyKind K, cudaStream_t S),
     (D, DP, Sr, SP, W, H, K, S))
PTSZ(cudaMemcpy3DAsync, (const cudaMemcpy3DParms *P, cudaStream_t S), (P, S))
PTSZ(cudaMemset2DAsync, (void *D, size_t P, int V, size_t W, size_t H, cudaStream_t S), (D, P, V, W, H, S))
PTSZ(cudaMemcpyToSymbolAsync, (const void *Sym, const void *Sr, size_t N, size_t O, cudaMemcpyKind K, cudaStream_t S),
     (Sym, Sr, N, O, K, S))
PTSZ(cudaMemcpyFromSymbolAsync, (void *D, const void *Sym, size_t N, size_t O, cudaMemcpyKind K, cudaStream_t S),
     (D, Sym, N, O, K, S))
PTDS(cudaMemcpy2D, (void *D, size_t DP, const void *S, size_t SP, size_t W, size_t H, cudaMemcpyKind K), (D, DP, S, SP, W, H, K))
PTDS(cudaMemcpy3D, (const cudaMemcpy3DParms *P), (P))
PTSZ(cudaMemcpy2DToArrayAsync,
     (cudaArray_t D, size_t WO, size_t HO, const void *Sr, size_t SP, size_t W, size_t H, cudaMemcpyKind K, cudaStream_t S),
     (D, WO, HO, Sr, SP, W, H, K, S))
PTSZ(cudaMemcpy2DFromArrayAsync,
     (void *D, size_t DP, cudaArray_const_t Sr, size_t WO, size_t HO, size_t W, size_t H, cudaMemcpyKind K, cudaStream_t S),
     (D, DP, Sr, WO, HO, W, H, K, S))
PTSZ(cudaMemcpyToArrayAsync, (cudaArray_t D, size_t WO, size_t HO, const void *Sr, size_t N, cudaMemcpyKind K, cudaStream_t S),
     (D, WO, HO, Sr, N, K, S))
PTSZ(cudaMemcpyFromArrayAsync, (void *D, cudaArray_const_t Sr, size_t WO, size_t HO, size_t N, cudaMemcpyKind K, cudaStream_t S),
     (D, Sr, WO, HO, N, K, S))
PTDS(cudaMemcpy2DToArray, (cudaArray_t D, size_t WO, size_t HO, const void *S, size_t SP, size_t W, size_t H, cudaMemcpyKind K),
     (D, WO, HO, S, SP, W, H, K))
PTDS(cudaMemcpy2DFromArray, (void *D, size_t DP, cudaArray_const_t S, size_t WO, size_t HO, size_t W, size_t H, cudaMemcpyKind K),
     (D, DP, S, WO, HO, W, H, K))
PTDS(cudaMemcpy2DArrayToArray,
     (cudaArray_t D, size_t DWO, size_t DHO, cudaArray_const_t S, size_t SWO, size_t SHO, size_t W, size_t H, cudaMemcpyKind K),
     (D, DWO, DHO, S, SWO, SHO, W, H, K))
PTDS(cudaMemcpyToArray, (cudaArray_t D, size_t WO, size_t HO, const void *S, size_t N, cudaMemcpyKind K), (D, WO, HO, S, N, K))
PTDS(cudaMemcpyFromArray, (void *D, cudaArray_const_t S, size_t WO, size_t HO, size_t N, cudaMemcpyKind K), (D, S, WO, HO, N, K))
PTDS(cudaMemcpyArrayToArray,
     (cudaArray_t D, size_t DWO, size_t DHO, cudaArray_const_t S, size_t SWO, size_t SHO, size_t N, cudaMemcpyKind K),
     (D, DWO, DHO, S, SWO, SHO, N, K))
PTDS(cudaMemset2D, (void *D, size_t P, int V, size_t W, size_t H), (D, P, V, W, H))
PTDS(cudaMemcpyToSymbol, (const void *Sym, const void *S, size_t N, size_t O, cudaMemcpyKind K), (Sym, S, N, O, K))
PTDS(cudaMemcpyFromSymbol, (void *D, const void *Sym, size_t N, size_t O, cudaMemcpyKind K), (D, Sym, N, O, K))

ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpyPeer, (void *D, int DD, const void *S, int SD, size_t N), (D, DD, S, SD, N)) {
  API({
    if (DD != 0 || SD != 0)
      return cudaErrorInvalidDevice;
    return copyKind(D, S, N, cudaMemcpyDeviceToDevice);
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemcpyPeerAsync, (void *D, int DD, const void *S, int SD, size_t N, cudaStream_t St), (D, DD, S, SD, N, St)) {
  if (CUresult R = streamCheck(St))
    return fromDriver(R);
  API({
    if (DD != 0 || SD != 0)
      return cudaErrorInvalidDevice;
    return copyKind(D, S, N, cudaMemcpyDeviceToDevice, St, true);
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemset3D, (cudaPitchedPtr P, int V, cudaExtent E), (P, V, E)) {
  API({
    for (size_t Z = 0; Z < E.depth; ++Z) {
      char *Slice = static_cast<char *>(P.ptr) + Z * P.pitch * P.ysize;
      if (CUresult R = zluda::driver::memset(reinterpret_cast<uintptr_t>(Slice), static_cast<uint8_t>(V), 1, 0,
                                             P.pitch, E.width, E.height))
        return fromDriver(R);
    }
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemset3DAsync, (cudaPitchedPtr P, int V, cudaExtent E, cudaStream_t St), (P, V, E, St)) {
  if (CUresult R = streamCheck(St))
    return fromDriver(R);
  // Done as a synchronous memset once the stream's earlier work is complete.
  if (CUresult R = streamSynchronize(St))
    return fromDriver(R);
  return cudaMemset3D(P, V, E);
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemset3D_ptds, (cudaPitchedPtr P, int V, cudaExtent E), (P, V, E)) { return cudaMemset3D(P, V, E); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemset3DAsync_ptsz, (cudaPitchedPtr P, int V, cudaExtent E, cudaStream_t St), (P, V, E, St)) {
  return cudaMemset3DAsync(P, V, E, St);
}
// --- stream-ordered allocation pools (the driver's, src/driver/MemPool.cpp) --------------
#define POOL(H) reinterpret_cast<CUmemoryPool>(H)
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemPoolCreate, (cudaMemPool_t *P, const void *Props), (P, Props)) {
  API({ return fromDriver(cuMemPoolCreate(reinterpret_cast<CUmemoryPool *>(P), Props)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemPoolDestroy, (cudaMemPool_t P), (P)) { API({ return fromDriver(cuMemPoolDestroy(POOL(P))); }); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaDeviceGetDefaultMemPool, (cudaMemPool_t *P, int D), (P, D)) {
  API({
    if (D < 0 || D >= 1) // the runtime checks the ordinal first
      return cudaErrorInvalidDevice;
    return fromDriver(cuDeviceGetDefaultMemPool(reinterpret_cast<CUmemoryPool *>(P), D));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaDeviceGetMemPool, (cudaMemPool_t *P, int D), (P, D)) {
  API({
    if (D < 0 || D >= 1)
      return cudaErrorInvalidDevice;
    return fromDriver(cuDeviceGetMemPool(reinterpret_cast<CUmemoryPool *>(P), D));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaDeviceSetMemPool, (int D, cudaMemPool_t P), (D, P)) {
  API({
    if (D < 0 || D >= 1)
      return cudaErrorInvalidDevice;
    return fromDriver(cuDeviceSetMemPool(D, POOL(P)));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemPoolTrimTo, (cudaMemPool_t P, size_t Keep), (P, Keep)) {
  API({ return fromDriver(cuMemPoolTrimTo(POOL(P), Keep)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemPoolSetAttribute, (cudaMemPool_t P, int A, void *V), (P, A, V)) {
  API({ return fromDriver(cuMemPoolSetAttribute(POOL(P), A, V)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemPoolGetAttribute, (cudaMemPool_t P, int A, void *V), (P, A, V)) {
  API({ return fromDriver(cuMemPoolGetAttribute(POOL(P), A, V)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemPoolSetAccess, (cudaMemPool_t P, const void *Map, size_t N), (P, Map, N)) {
  API({ return fromDriver(cuMemPoolSetAccess(POOL(P), Map, N)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaMemPoolGetAccess, (int *F, cudaMemPool_t P, const void *Loc), (F, P, Loc)) {
  API({ return fromDriver(cuMemPoolGetAccess(F, POOL(P), Loc)); });
}
#undef POOL

// --- interprocess handles (over the driver's; memory of cudaMalloc, events with cudaEventInterprocess) ---
ZLUDA_TRACED_EXPORT(cudaError_t, cudaIpcGetMemHandle, (cudaIpcMemHandle_t * H, void *P), (H, P)) {
  API({ return fromDriver(ipcGetMemHandle(H, reinterpret_cast<CUdeviceptr>(P))); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaIpcOpenMemHandle, (void **P, cudaIpcMemHandle_t H, unsigned Flags), (P, H, Flags)) {
  API({
    if (!P)
      return cudaErrorInvalidValue;
    CUdeviceptr D = 0;
    cudaError_t R = fromDriver(ipcOpenMemHandle(&D, H, Flags));
    if (R == cudaSuccess)
      *P = reinterpret_cast<void *>(D);
    return R;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaIpcCloseMemHandle, (void *P), (P)) {
  API({ return fromDriver(ipcCloseMemHandle(reinterpret_cast<CUdeviceptr>(P))); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaIpcGetEventHandle, (cudaIpcEventHandle_t * H, cudaEvent_t E), (H, E)) {
  API({
    if (!isLive(E, Kind::Event))
      return cudaErrorInvalidResourceHandle;
    return fromDriver(ipcGetEventHandle(H, E));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaIpcOpenEventHandle, (cudaEvent_t * E, cudaIpcEventHandle_t H), (E, H)) {
  API({ return fromDriver(ipcOpenEventHandle(E, H)); });
}
