//===- Hip.cpp - libamdhip64, loaded at run time ---------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "hip_bridge/Hip.h"
#include "hip_bridge/DevicePropR0600.h"

#include "common/Env.h"
#include "common/Log.h"

#include <dlfcn.h>

#include <cstring>

#include <mutex>

namespace zluda::hip {

Library Library::load(const std::string &Path) {
  Library L;
  L.Path = Path;
  L.Handle = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!L.Handle) {
    const char *E = dlerror();
    L.Error = "cannot load " + Path + ": " + (E ? E : "unknown error");
    return L;
  }
  std::string Missing;
#define HIP_FN(Name, Required)                                                                                         \
  L.Name = reinterpret_cast<decltype(L.Name)>(dlsym(L.Handle, #Name));                                                 \
  if (!L.Name && Required && Missing.empty())                                                                          \
    Missing = #Name;
#include "hip_bridge/HipApi.def"
#define HIP_FN_NAME_ONLY(Name) L.Rocm6 = L.Rocm6 || dlsym(L.Handle, #Name) != nullptr;
#include "hip_bridge/HipApi.def"
  L.hipLaunchHostFunc = reinterpret_cast<decltype(L.hipLaunchHostFunc)>(dlsym(L.Handle, "hipLaunchHostFunc"));
  L.hipGetDevicePropertiesR0600 =
      reinterpret_cast<decltype(L.hipGetDevicePropertiesR0600)>(dlsym(L.Handle, "hipGetDevicePropertiesR0600"));
  if (!L.hipGetDeviceProperties && !L.hipGetDevicePropertiesR0600 && Missing.empty())
    Missing = "hipGetDeviceProperties";
  if (!Missing.empty()) {
    L.Error = Path + " lacks " + Missing + ": not a HIP runtime ZLUDA can use";
    // The handle stays open: the library may have run constructors.
  }
  return L;
}

const Library &Library::get() {
  static Library L;
  static std::once_flag Once;
  std::call_once(Once, [] {
    std::vector<std::string> Names;
    if (std::string P = env::get("ZLUDA_HIP_LIBRARY"); !P.empty())
      Names.push_back(P);
    for (const char *N : {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"})
      Names.push_back(N);
    std::string Errors;
    for (const std::string &N : Names) {
      Library C = load(N);
      if (C.ok()) {
        L = C;
        ZLUDA_LOG_DEBUG("HIP runtime: {}{}", N, L.Rocm6 ? " (ROCm 6 names present)" : "");
        return;
      }
      Errors += (Errors.empty() ? "" : "; ") + C.Error;
    }
    L.Error = Errors;
  });
  return L;
}

CUresult toCuda(hipError_t E) {
  switch (E) {
#define HIP_ERR(Hip, Cuda)                                                                                             \
  case Hip:                                                                                                            \
    return Cuda;
#include "hip_bridge/HipErrors.def"
  default:
    ZLUDA_LOG_WARN("HIP error {} has no CUDA equivalent in the table: CUDA_ERROR_UNKNOWN", static_cast<int>(E));
    return CUDA_ERROR_UNKNOWN;
  }
}

const char *hipErrorName(hipError_t E) {
  switch (E) {
#define HIP_ERR(Hip, Cuda)                                                                                             \
  case Hip:                                                                                                            \
    return #Hip;
#include "hip_bridge/HipErrors.def"
  default:
    return "(unknown HIP error)";
  }
}

CUresult enumerateDevices(const Library &L, std::vector<DeviceInfo> &Out, std::string &Why) {
  Out.clear();
  if (!L.ok()) {
    Why = L.error();
    return CUDA_ERROR_NO_DEVICE;
  }
  if (hipError_t E = L.hipInit(0); E != hipSuccess) {
    Why = std::string("hipInit: ") + hipErrorName(E);
    CUresult R = toCuda(E);
    // No GPU reads as "invalid device" or "no device" depending on the version.
    return R == CUDA_ERROR_INVALID_DEVICE ? CUDA_ERROR_NO_DEVICE : R;
  }
  int N = 0;
  if (hipError_t E = L.hipGetDeviceCount(&N); E != hipSuccess || N <= 0) {
    Why = std::string("hipGetDeviceCount: ") + (E != hipSuccess ? hipErrorName(E) : "0 devices");
    return CUDA_ERROR_NO_DEVICE;
  }
  for (int I = 0; I < N; ++I) {
    DeviceInfo D;
    if (!(L.hipGetDevicePropertiesR0600 ? propertiesR0600(L, I, D) : propertiesR0000(L, I, D)))
      continue;
    Out.push_back(D);
  }
  if (Out.empty()) {
    Why = "hipGetDeviceProperties failed for every device";
    return CUDA_ERROR_NO_DEVICE;
  }
  return CUDA_SUCCESS;
}

namespace {
/// The fields DeviceInfo takes, from either layout of hipDeviceProp_t.
template <typename P> void fill(DeviceInfo &D, const P &Prop) {
  D.Name.assign(Prop.name, strnlen(Prop.name, sizeof Prop.name));
  D.GcnArchName.assign(Prop.gcnArchName, strnlen(Prop.gcnArchName, sizeof Prop.gcnArchName));
  D.TotalMem = Prop.totalGlobalMem;
  D.ComputeUnits = Prop.multiProcessorCount;
  D.WarpSize = Prop.warpSize;
  D.MaxThreadsPerBlock = Prop.maxThreadsPerBlock;
  D.SharedPerBlock = static_cast<int>(Prop.sharedMemPerBlock);
  D.ClockKhz = Prop.clockRate;
  D.MemoryClockKhz = Prop.memoryClockRate;
  D.MemoryBusWidth = Prop.memoryBusWidth;
  D.L2Bytes = Prop.l2CacheSize;
  D.ThreadsPerCu = Prop.maxThreadsPerMultiProcessor;
  D.SharedPerCu = static_cast<int>(Prop.maxSharedMemoryPerMultiProcessor);
  D.PciDomain = Prop.pciDomainID;
  D.PciBus = Prop.pciBusID;
  D.PciDevice = Prop.pciDeviceID;
  D.Integrated = Prop.integrated != 0;
  D.ConcurrentManagedAccess = Prop.concurrentManagedAccess != 0;
  D.PageableMemoryAccess = Prop.pageableMemoryAccess != 0;
  D.Cooperative = Prop.cooperativeLaunch != 0;
}
} // namespace

bool propertiesR0000(const Library &L, int Ordinal, DeviceInfo &D) {
  hipDeviceProp_t P{};
  if (!L.hipGetDeviceProperties || L.hipGetDeviceProperties(&P, Ordinal) != hipSuccess)
    return false;
  D.Ordinal = Ordinal;
  fill(D, P);
  return true;
}

bool propertiesR0600(const Library &L, int Ordinal, DeviceInfo &D) {
  // Room for a longer struct than the one declared (see DevicePropR0600.h).
  alignas(16) static thread_local unsigned char Buf[8192];
  std::memset(Buf, 0, sizeof Buf);
  if (!L.hipGetDevicePropertiesR0600 || L.hipGetDevicePropertiesR0600(Buf, Ordinal) != hipSuccess)
    return false;
  DevicePropR0600 P;
  std::memcpy(&P, Buf, sizeof P);
  D.Ordinal = Ordinal;
  fill(D, P);
  return true;
}

CUresult Calls::launch(hipFunction_t F, const unsigned Grid[3], const unsigned Block[3], unsigned Shared,
                       hipStream_t St, void *Params, size_t ParamBytes) const {
  void *Config[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, Params, HIP_LAUNCH_PARAM_BUFFER_SIZE, &ParamBytes,
                    HIP_LAUNCH_PARAM_END};
  return toCuda(L.hipModuleLaunchKernel(F, Grid[0], Grid[1], Grid[2], Block[0], Block[1], Block[2], Shared, St,
                                        nullptr, ParamBytes ? Config : nullptr));
}

namespace {
struct HostCall {
  void (*Fn)(void *);
  void *User;
};
void runHostCall(hipStream_t, hipError_t, void *P) {
  HostCall *C = static_cast<HostCall *>(P);
  C->Fn(C->User);
  delete C;
}
} // namespace

CUresult Calls::hostFunc(hipStream_t S, void (*Fn)(void *), void *User) const {
  if (L.hipLaunchHostFunc)
    return toCuda(L.hipLaunchHostFunc(S, Fn, User));
  auto *C = new HostCall{Fn, User};
  CUresult R = toCuda(L.hipStreamAddCallback(S, runHostCall, C, 0));
  if (R != CUDA_SUCCESS)
    delete C;
  return R;
}

} // namespace zluda::hip
