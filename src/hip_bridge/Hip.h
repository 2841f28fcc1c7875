//===- Hip.h - libamdhip64, loaded at run time -----------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The bridge to the HIP runtime. libamdhip64 is dlopen()ed on first use
/// (so our libraries load on machines without ROCm), its functions resolved
/// from one table (HipApi.def), and every hipError_t mapped to a CUresult by
/// another (HipErrors.def). HipDevices is what the driver asks of the AMD GPUs.
#ifndef ZLUDA_HIP_BRIDGE_HIP_H
#define ZLUDA_HIP_BRIDGE_HIP_H

#include "zluda/cuda_abi.h"

#include <hip/hip_runtime_api.h>

#include <string>
#include <type_traits>
#include <vector>

namespace zluda::hip {

class Library {
public:
  /// The process's library: the first of ZLUDA_HIP_LIBRARY (if set),
  /// libamdhip64.so.6, libamdhip64.so.5, libamdhip64.so that loads and has
  /// every required function. Thread-safe; never unloaded.
  static const Library &get();
  /// Loads \p Path (a name for dlopen or a path) on its own, for tests.
  static Library load(const std::string &Path);

  bool ok() const { return Error.empty(); }
  const std::string &error() const { return Error; } ///< why it is unusable
  const std::string &path() const { return Path; }
  bool isRocm6() const { return Rocm6; }

#define HIP_FN(Name, Required) decltype(&::Name) Name = nullptr;
#define HIP_FN_T(Name, Required, Type) std::type_identity_t<Type> Name = nullptr;
#include "hip_bridge/HipApi.def"
  /// Optional, HIP 5.3+ (not declared by HIP 5.2's headers).
  hipError_t (*hipLaunchHostFunc)(hipStream_t, void (*)(void *), void *) = nullptr;
  /// ROCm 6: fills DevicePropR0600 (DevicePropR0600.h); preferred when present.
  hipError_t (*hipGetDevicePropertiesR0600)(void *, int) = nullptr;

private:
  std::string Path, Error;
  void *Handle = nullptr;
  bool Rocm6 = false;
};

/// CUDA's code for a HIP error (HipErrors.def); codes the table does not
/// know are CUDA_ERROR_UNKNOWN.
CUresult toCuda(hipError_t E);
/// The table's HIP names, for logs and tests.
const char *hipErrorName(hipError_t E);

/// One AMD GPU as HIP reports it.
struct DeviceInfo {
  int Ordinal = 0;
  std::string Name;
  std::string GcnArchName; ///< "gfx90a:sramecc+:xnack-": the compiler's target
  size_t TotalMem = 0;
  int ComputeUnits = 0, WarpSize = 0, MaxThreadsPerBlock = 0, SharedPerBlock = 0, ClockKhz = 0;
  int MemoryClockKhz = 0, MemoryBusWidth = 0, L2Bytes = 0, ThreadsPerCu = 0, SharedPerCu = 0;
  int PciDomain = 0, PciBus = 0, PciDevice = 0;
  bool Integrated = false, ConcurrentManagedAccess = false, PageableMemoryAccess = false, Cooperative = false;
};

/// One device's properties through hipGetDeviceProperties (the ROCm 5
/// layout) or hipGetDevicePropertiesR0600 (ROCm 6's); false when the runtime
/// lacks the function or it fails. enumerateDevices prefers R0600.
bool propertiesR0000(const Library &L, int Ordinal, DeviceInfo &Out);
bool propertiesR0600(const Library &L, int Ordinal, DeviceInfo &Out);

/// The AMD GPUs HIP sees (after ROCR_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES,
/// which the HIP runtime applies itself). Returns CUDA_ERROR_NO_DEVICE when
/// there are none, with \p Why saying so in words.
CUresult enumerateDevices(const Library &L, std::vector<DeviceInfo> &Out, std::string &Why);

/// Thin, error-mapped wrappers over the HIP calls the driver's HIP backend
/// makes. Each returns the mapped CUresult.
struct Calls {
  const Library &L;
  CUresult setDevice(int D) const { return toCuda(L.hipSetDevice(D)); }
  CUresult malloc(void **P, size_t N) const { return toCuda(L.hipMalloc(P, N)); }
  CUresult free(void *P) const { return toCuda(L.hipFree(P)); }
  CUresult hostMalloc(void **P, size_t N, unsigned Flags) const { return toCuda(L.hipHostMalloc(P, N, Flags)); }
  CUresult hostFree(void *P) const { return toCuda(L.hipHostFree(P)); }
  CUresult hostRegister(void *P, size_t N, unsigned Flags) const { return toCuda(L.hipHostRegister(P, N, Flags)); }
  CUresult hostUnregister(void *P) const { return toCuda(L.hipHostUnregister(P)); }
  CUresult mallocManaged(void **P, size_t N, unsigned Flags) const { return toCuda(L.hipMallocManaged(P, N, Flags)); }
  CUresult memGetInfo(size_t *Free, size_t *Total) const { return toCuda(L.hipMemGetInfo(Free, Total)); }
  CUresult memcpy(void *D, const void *S, size_t N) const { return toCuda(L.hipMemcpy(D, S, N, hipMemcpyDefault)); }
  CUresult memcpyAsync(void *D, const void *S, size_t N, hipStream_t St) const {
    return toCuda(L.hipMemcpyAsync(D, S, N, hipMemcpyDefault, St));
  }
  CUresult memsetD8(void *D, unsigned char V, size_t N) const {
    return toCuda(L.hipMemsetD8(reinterpret_cast<hipDeviceptr_t>(D), V, N));
  }
  CUresult memsetD16(void *D, unsigned short V, size_t N) const {
    return toCuda(L.hipMemsetD16(reinterpret_cast<hipDeviceptr_t>(D), V, N));
  }
  CUresult memsetD32(void *D, int V, size_t N) const {
    return toCuda(L.hipMemsetD32(reinterpret_cast<hipDeviceptr_t>(D), V, N));
  }
  CUresult memsetD8Async(void *D, unsigned char V, size_t N, hipStream_t St) const {
    return toCuda(L.hipMemsetD8Async(reinterpret_cast<hipDeviceptr_t>(D), V, N, St));
  }
  CUresult memsetD16Async(void *D, unsigned short V, size_t N, hipStream_t St) const {
    return toCuda(L.hipMemsetD16Async(reinterpret_cast<hipDeviceptr_t>(D), V, N, St));
  }
  CUresult memsetD32Async(void *D, int V, size_t N, hipStream_t St) const {
    return toCuda(L.hipMemsetD32Async(reinterpret_cast<hipDeviceptr_t>(D), V, N, St));
  }
  CUresult moduleLoad(hipModule_t *M, const std::string &CodeObject) const {
    return toCuda(L.hipModuleLoadData(M, CodeObject.data()));
  }
  CUresult moduleUnload(hipModule_t M) const { return toCuda(L.hipModuleUnload(M)); }
  CUresult getFunction(hipFunction_t *F, hipModule_t M, const char *Name) const {
    return toCuda(L.hipModuleGetFunction(F, M, Name));
  }
  CUresult getGlobal(hipDeviceptr_t *P, size_t *N, hipModule_t M, const char *Name) const {
    return toCuda(L.hipModuleGetGlobal(P, N, M, Name));
  }
  /// A launch of one of our kernels: \p Params is CUDA's parameter buffer,
  /// which is the kernarg layout of our code objects; \p Shared covers the
  /// module's static shared memory and the launch's dynamic part.
  CUresult launch(hipFunction_t F, const unsigned Grid[3], const unsigned Block[3], unsigned Shared, hipStream_t St,
                  void *Params, size_t ParamBytes) const;
  CUresult streamCreate(hipStream_t *S, unsigned Flags, int Priority) const {
    return toCuda(L.hipStreamCreateWithPriority(S, Flags, Priority));
  }
  CUresult streamDestroy(hipStream_t S) const { return toCuda(L.hipStreamDestroy(S)); }
  CUresult streamSynchronize(hipStream_t S) const { return toCuda(L.hipStreamSynchronize(S)); }
  CUresult streamQuery(hipStream_t S) const { return toCuda(L.hipStreamQuery(S)); }
  CUresult streamWaitEvent(hipStream_t S, hipEvent_t E) const { return toCuda(L.hipStreamWaitEvent(S, E, 0)); }
  /// A host function in stream order: hipLaunchHostFunc where the runtime
  /// has it (HIP 5.3+), else a stream callback.
  CUresult hostFunc(hipStream_t S, void (*Fn)(void *), void *User) const;
  CUresult eventCreate(hipEvent_t *E, unsigned Flags) const { return toCuda(L.hipEventCreateWithFlags(E, Flags)); }
  CUresult eventRecord(hipEvent_t E, hipStream_t S) const { return toCuda(L.hipEventRecord(E, S)); }
  CUresult eventSynchronize(hipEvent_t E) const { return toCuda(L.hipEventSynchronize(E)); }
  CUresult eventQuery(hipEvent_t E) const { return toCuda(L.hipEventQuery(E)); }
  CUresult eventElapsed(float *Ms, hipEvent_t A, hipEvent_t B) const { return toCuda(L.hipEventElapsedTime(Ms, A, B)); }
  CUresult eventDestroy(hipEvent_t E) const { return toCuda(L.hipEventDestroy(E)); }
  CUresult deviceSynchronize() const { return toCuda(L.hipDeviceSynchronize()); }
};

} // namespace zluda::hip

#endif // ZLUDA_HIP_BRIDGE_HIP_H
