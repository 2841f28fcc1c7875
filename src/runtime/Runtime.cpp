//===- Runtime.cpp - libcudart.so.13: the CUDA Runtime API ------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Our own CUDA runtime, built on the driver layer's internal C++
/// interface (src/driver/Internal.h), never on its cu* exports, and sharing
/// the driver's primary context with programs that also use the driver API.
///
/// Registration: nvcc's host code registers each fat binary, its kernels and
/// variables at start-up; modules are loaded lazily at the first use of
/// anything they contain. Error state follows CUDA's rules: every call sets
/// the thread's last error; cudaGetLastError returns and clears it, except
/// for sticky (context-poisoning) errors, which persist.
#include "driver/Internal.h"
#include "zluda/cuda_runtime_abi.h"

#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#define CUDART_EXPORT extern "C" __attribute__((visibility("default")))

using namespace zluda::driver;

namespace zluda::runtime {
namespace {

cudaError_t toRuntime(CUresult R) {
  switch (R) {
#define CU_TO_RT(Driver, Runtime)                                                                                      \
  case Driver:                                                                                                         \
    return Runtime;
#include "runtime/ErrorMap.def"
  }
  ZLUDA_LOG_WARN("libcudart: driver error {} has no runtime equivalent", static_cast<int>(R));
  return cudaErrorUnknown;
}

} // namespace
thread_local cudaError_t LastError = cudaSuccess;
namespace {

bool isSticky(cudaError_t E) {
  return E == cudaErrorIllegalAddress || E == cudaErrorLaunchFailure || E == cudaErrorAssert ||
         E == cudaErrorIllegalInstruction || E == cudaErrorMisalignedAddress || E == cudaErrorHardwareStackError ||
         E == cudaErrorInvalidAddressSpace || E == cudaErrorInvalidPc || E == cudaErrorLaunchTimeout;
}

} // namespace
cudaError_t record(cudaError_t E) {
  if (E != cudaSuccess)
    LastError = E;
  return E;
}
namespace {

struct FatbinRecord;

struct KernelRecord {
  FatbinRecord *Bin;
  std::string Name;
  Function *Fn = nullptr;
};

struct VarRecord {
  FatbinRecord *Bin;
  std::string Name;
  size_t Size;
  void **ManagedHostPtr = nullptr; ///< __managed__: the host-side pointer to redirect
};

struct FatbinRecord {
  const void *Wrapper = nullptr;
  std::unique_ptr<Module> Mod;
  bool Loaded = false;
  CUresult LoadError = CUDA_SUCCESS;
};

struct Registry {
  std::recursive_mutex Mu;
  std::vector<std::unique_ptr<FatbinRecord>> Bins;
  std::map<const void *, KernelRecord> Kernels; ///< host stub -> kernel
  std::map<const void *, VarRecord> Vars;       ///< host shadow -> variable
  std::vector<VarRecord *> Managed;
};

Registry &registry() {
  static Registry *R = new Registry; // lives past static destructors: atexit unregisters run late
  return *R;
}

struct CallConfig {
  dim3 Grid, Block;
  size_t Shared;
  cudaStream_t Stream;
};
thread_local std::vector<CallConfig> ConfigStack;

/// Initializes the driver and makes the primary context current (once per thread).
cudaError_t lazyInit() {
  static std::once_flag Banner;
  std::call_once(Banner, [] { ZLUDA_LOG_INFO("ZLUDA runtime (libcudart.so.13) over the ZLUDA driver"); });
  if (CUresult R = initialize())
    return toRuntime(R);
  if (!currentContext())
    setCurrentContext(primaryContext());
  return cudaSuccess;
}

cudaError_t loadBinary(FatbinRecord &B) {
  if (B.Loaded)
    return toRuntime(B.LoadError);
  B.Loaded = true;
  B.LoadError = loadModule(primaryContext(), B.Wrapper, B.Mod);
  if (B.LoadError == CUDA_SUCCESS)
    B.LoadError = ensureCompiled(*B.Mod);
  if (B.LoadError != CUDA_SUCCESS)
    return toRuntime(B.LoadError);
  addLive(B.Mod.get(), Kind::Module);
  // __managed__ variables: the host code reads them through a pointer that
  // must now point at the module's variable.
  Registry &R = registry();
  for (VarRecord *V : R.Managed)
    if (V->Bin == &B && V->ManagedHostPtr) {
      CUdeviceptr Addr;
      if (moduleGlobal(B.Mod.get(), &Addr, nullptr, V->Name.c_str()) == CUDA_SUCCESS)
        *V->ManagedHostPtr = reinterpret_cast<void *>(Addr);
    }
  return cudaSuccess;
}

/// The kernel registered for host stub \p Stub (the kernel is compiled on first use).
cudaError_t kernelOf(const void *Stub, Function *&Out) {
  if (cudaError_t E = lazyInit())
    return E;
  Registry &R = registry();
  std::lock_guard<std::recursive_mutex> G(R.Mu);
  auto It = R.Kernels.find(Stub);
  if (It == R.Kernels.end()) {
    // A CUkernel / CUfunction handle is accepted too (cudaLaunchKernel with a cudaKernel_t).
    if (isLive(Stub, Kind::Function)) {
      Out = static_cast<Function *>(const_cast<void *>(Stub));
      return cudaSuccess;
    }
    return cudaErrorInvalidDeviceFunction;
  }
  KernelRecord &K = It->second;
  if (!K.Fn) {
    if (cudaError_t E = loadBinary(*K.Bin))
      return E;
    if (CUresult Rr = getFunction(*K.Bin->Mod, K.Name.c_str(), K.Fn))
      return Rr == CUDA_ERROR_NOT_FOUND ? cudaErrorInvalidDeviceFunction : toRuntime(Rr);
  }
  Out = K.Fn;
  return cudaSuccess;
}

cudaError_t symbolOf(const void *Symbol, void *&Addr, size_t &Size) {
  if (cudaError_t E = lazyInit())
    return E;
  Registry &R = registry();
  std::lock_guard<std::recursive_mutex> G(R.Mu);
  auto It = R.Vars.find(Symbol);
  if (It == R.Vars.end())
    return cudaErrorInvalidSymbol;
  VarRecord &V = It->second;
  if (cudaError_t E = loadBinary(*V.Bin))
    return E;
  CUdeviceptr P;
  if (moduleGlobal(V.Bin->Mod.get(), &P, &Size, V.Name.c_str()) != CUDA_SUCCESS)
    return cudaErrorInvalidSymbol;
  Addr = reinterpret_cast<void *>(P);
  return cudaSuccess;
}

cudaError_t launchKernel(const void *Stub, dim3 Grid, dim3 Block, void **Args, size_t Shared, cudaStream_t Stream,
                         bool Coop, const Dim3 *Cluster = nullptr) {
  Function *F;
  if (cudaError_t E = kernelOf(Stub, F))
    return record(E);
  uint64_t Threads = uint64_t(Block.x) * Block.y * Block.z;
  if (Threads == 0 || Threads > 1024 || Block.x > 1024 || Block.y > 1024 || Block.z > 64 || Grid.x == 0 ||
      Grid.y == 0 || Grid.z == 0 || Grid.y > 65535 || Grid.z > 65535)
    return record(cudaErrorInvalidConfiguration);
  CUresult R = launch(F, {Grid.x, Grid.y, Grid.z}, {Block.x, Block.y, Block.z}, static_cast<unsigned>(Shared), Stream,
                      Args, nullptr, Coop, Cluster);
  return record(toRuntime(R));
}

cudaError_t memcpyKind(void *Dst, const void *Src, size_t N, cudaMemcpyKind Kind, cudaStream_t St, bool Async) {
  if (Kind < cudaMemcpyHostToHost || Kind > cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  if (N == 0)
    return cudaSuccess;
  if (!Dst || !Src)
    return cudaErrorInvalidValue;
  auto device = [](const void *P, size_t Size) { return findAllocation(reinterpret_cast<uintptr_t>(P), Size) != nullptr; };
  if ((Kind == cudaMemcpyHostToDevice || Kind == cudaMemcpyDeviceToDevice) && !device(Dst, N))
    return cudaErrorInvalidValue;
  if ((Kind == cudaMemcpyDeviceToHost || Kind == cudaMemcpyDeviceToDevice) && !device(Src, N))
    return cudaErrorInvalidValue;
  return toRuntime(memcpyChecked(Dst, Src, N, St, Async));
}

template <typename Fn> cudaError_t api(Fn &&F) noexcept {
  try {
    if (cudaError_t E = lazyInit())
      return record(E);
    return record(F());
  } catch (const std::bad_alloc &) {
    return record(cudaErrorMemoryAllocation);
  } catch (...) {
    return record(cudaErrorUnknown);
  }
}

} // namespace

// Shared with RuntimeMemory.cpp.
cudaError_t runtimeCall(const std::function<cudaError_t()> &F) { return api(F); }
cudaError_t fromDriver(CUresult R) { return toRuntime(R); }
cudaError_t symbolAddress(const void *Symbol, void *&Addr, size_t &Size) { return symbolOf(Symbol, Addr, Size); }
cudaError_t kernelFunction(const void *Stub, Function *&Out) { return kernelOf(Stub, Out); }
const void *kernelStub(Function *F) {
  Registry &R = registry();
  std::lock_guard<std::recursive_mutex> G(R.Mu);
  for (auto &[Stub, K] : R.Kernels)
    if (K.Fn == F)
      return Stub;
  return F; // a driver handle (cudaKernel_t)
}
cudaError_t copyKind(void *Dst, const void *Src, size_t N, cudaMemcpyKind Kind, cudaStream_t St, bool Async) {
  return memcpyKind(Dst, Src, N, Kind, St, Async);
}

} // namespace zluda::runtime

using namespace zluda::runtime;
#define API(...) return api([&]() -> cudaError_t { __VA_ARGS__ })

// --- registration (what nvcc's host code calls) ------------------------------------

CUDART_EXPORT void **__cudaRegisterFatBinary(void *FatCubin) {
  auto B = std::make_unique<FatbinRecord>();
  B->Wrapper = FatCubin;
  Registry &R = registry();
  std::lock_guard<std::recursive_mutex> G(R.Mu);
  R.Bins.push_back(std::move(B));
  return reinterpret_cast<void **>(R.Bins.back().get());
}

CUDART_EXPORT void __cudaRegisterFatBinaryEnd(void **) {}

CUDART_EXPORT void __cudaUnregisterFatBinary(void **Handle) {
  Registry &R = registry();
  std::lock_guard<std::recursive_mutex> G(R.Mu);
  auto *B = reinterpret_cast<FatbinRecord *>(Handle);
  for (auto It = R.Kernels.begin(); It != R.Kernels.end();)
    It = It->second.Bin == B ? R.Kernels.erase(It) : std::next(It);
  for (auto It = R.Vars.begin(); It != R.Vars.end();)
    It = It->second.Bin == B ? R.Vars.erase(It) : std::next(It);
  // The module itself stays: kernels may still be running in other threads at exit.
}

CUDART_EXPORT void __cudaRegisterFunction(void **Handle, const char *HostFun, char *, const char *DeviceName, int,
                                          uint3 *, uint3 *, dim3 *, dim3 *, int *) {
  Registry &R = registry();
  std::lock_guard<std::recursive_mutex> G(R.Mu);
  R.Kernels[HostFun] = KernelRecord{reinterpret_cast<FatbinRecord *>(Handle), DeviceName, nullptr};
}

CUDART_EXPORT void __cudaRegisterVar(void **Handle, char *HostVar, char *, const char *DeviceName, int, size_t Size,
                                     int, int) {
  Registry &R = registry();
  std::lock_guard<std::recursive_mutex> G(R.Mu);
  R.Vars[HostVar] = VarRecord{reinterpret_cast<FatbinRecord *>(Handle), DeviceName, Size, nullptr};
}

CUDART_EXPORT void __cudaRegisterManagedVar(void **Handle, void **HostVarPtrAddress, char *, const char *DeviceName,
                                            int, size_t Size, int, int) {
  Registry &R = registry();
  std::lock_guard<std::recursive_mutex> G(R.Mu);
  auto &V = R.Vars[HostVarPtrAddress];
  V = VarRecord{reinterpret_cast<FatbinRecord *>(Handle), DeviceName, Size, HostVarPtrAddress};
  R.Managed.push_back(&V);
}

CUDART_EXPORT char __cudaInitModule(void **Handle) {
  if (lazyInit() != cudaSuccess)
    return 0;
  Registry &R = registry();
  std::lock_guard<std::recursive_mutex> G(R.Mu);
  return loadBinary(*reinterpret_cast<FatbinRecord *>(Handle)) == cudaSuccess ? 1 : 0;
}

CUDART_EXPORT unsigned __cudaPushCallConfiguration(dim3 Grid, dim3 Block, size_t Shared, void *Stream) {
  ConfigStack.push_back(CallConfig{Grid, Block, Shared, static_cast<cudaStream_t>(Stream)});
  return 0;
}

ZLUDA_TRACED_EXPORT(cudaError_t, __cudaPopCallConfiguration, (dim3 *Grid, dim3 *Block, size_t *Shared, void *Stream), (Grid, Block, Shared, Stream)) {
  if (ConfigStack.empty())
    return cudaErrorMissingConfiguration;
  CallConfig C = ConfigStack.back();
  ConfigStack.pop_back();
  *Grid = C.Grid;
  *Block = C.Block;
  *Shared = C.Shared;
  *static_cast<cudaStream_t *>(Stream) = C.Stream;
  return cudaSuccess;
}

ZLUDA_TRACED_EXPORT(cudaError_t, __cudaGetKernel, (cudaKernel_t *Out, const void *Stub), (Out, Stub)) {
  API({
    Function *F;
    if (cudaError_t E = kernelOf(Stub, F))
      return E;
    *Out = reinterpret_cast<cudaKernel_t>(F);
    return cudaSuccess;
  });
}

ZLUDA_TRACED_EXPORT(cudaError_t, __cudaLaunchKernel, (cudaKernel_t K, dim3 Grid, dim3 Block, void **Args, size_t Shared, cudaStream_t Stream), (K, Grid, Block, Args, Shared, Stream)) {
  API({ return launchKernel(K, Grid, Block, Args, Shared, Stream, false); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, __cudaLaunchKernel_ptsz, (cudaKernel_t K, dim3 Grid, dim3 Block, void **Args, size_t Shared, cudaStream_t Stream), (K, Grid, Block, Args, Shared, Stream)) {
  return __cudaLaunchKernel(K, Grid, Block, Args, Shared, Stream ? Stream : CU_STREAM_PER_THREAD);
}

ZLUDA_TRACED_EXPORT(cudaError_t, cudaLaunchKernel, (const void *Func, dim3 Grid, dim3 Block, void **Args, size_t Shared, cudaStream_t Stream), (Func, Grid, Block, Args, Shared, Stream)) {
  API({ return launchKernel(Func, Grid, Block, Args, Shared, Stream, false); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaLaunchKernel_ptsz, (const void *Func, dim3 Grid, dim3 Block, void **Args, size_t Shared, cudaStream_t Stream), (Func, Grid, Block, Args, Shared, Stream)) {
  return cudaLaunchKernel(Func, Grid, Block, Args, Shared, Stream);
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaLaunchCooperativeKernel, (const void *Func, dim3 Grid, dim3 Block, void **Args, size_t Shared, cudaStream_t Stream), (Func, Grid, Block, Args, Shared, Stream)) {
  API({ return launchKernel(Func, Grid, Block, Args, Shared, Stream, true); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaLaunchCooperativeKernel_ptsz, (const void *Func, dim3 Grid, dim3 Block, void **Args, size_t Shared, cudaStream_t Stream), (Func, Grid, Block, Args, Shared, Stream)) {
  return cudaLaunchCooperativeKernel(Func, Grid, Block, Args, Shared, Stream);
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaLaunchKernelExC, (const cudaLaunchConfig_t *Cfg, const void *Func, void **Args), (Cfg, Func, Args)) {
  API({
    if (!Cfg)
      return cudaErrorInvalidValue;
    bool Coop = false, HasCluster = false;
    zluda::Dim3 Cluster;
    for (unsigned I = 0; I < Cfg->numAttrs; ++I) {
      if (Cfg->attrs[I].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE)
        Coop = Cfg->attrs[I].val.cooperative != 0;
      if (Cfg->attrs[I].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
        const auto &D = Cfg->attrs[I].val.clusterDim;
        Cluster = {D.x, D.y, D.z};
        HasCluster = true;
      }
    }
    return launchKernel(Func, Cfg->gridDim, Cfg->blockDim, Args, Cfg->dynamicSmemBytes, Cfg->stream, Coop,
                        HasCluster ? &Cluster : nullptr);
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaLaunchKernelExC_ptsz, (const cudaLaunchConfig_t *Cfg, const void *Func, void **Args), (Cfg, Func, Args)) {
  return cudaLaunchKernelExC(Cfg, Func, Args);
}

// --- errors and versions ---------------------------------------------------------------

ZLUDA_TRACED_EXPORT(cudaError_t, cudaGetLastError, (), ()) {
  cudaError_t E = LastError;
  if (!isSticky(E))
    LastError = cudaSuccess;
  return E;
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaPeekAtLastError, (), ()) { return LastError; }

CUDART_EXPORT const char *cudaGetErrorName(cudaError_t E) {
  switch (E) {
#define CUDART_ERROR(Name, Value, Description)                                                                         \
  case Name:                                                                                                           \
    return #Name;
#include "zluda/api/runtime_errors.def"
  }
  return "cudaErrorUnknown";
}
CUDART_EXPORT const char *cudaGetErrorString(cudaError_t E) {
  switch (E) {
#define CUDART_ERROR(Name, Value, Description)                                                                         \
  case Name:                                                                                                           \
    return Description;
#include "zluda/api/runtime_errors.def"
  }
  return "unrecognized error code";
}

ZLUDA_TRACED_EXPORT(cudaError_t, cudaDriverGetVersion, (int *V), (V)) {
  if (!V)
    return record(cudaErrorInvalidValue);
  *V = DriverVersion;
  return cudaSuccess;
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaRuntimeGetVersion, (int *V), (V)) {
  if (!V)
    return record(cudaErrorInvalidValue);
  *V = 13000;
  return cudaSuccess;
}

// --- devices ---------------------------------------------------------------------------

ZLUDA_TRACED_EXPORT(cudaError_t, cudaGetDeviceCount, (int *N), (N)) {
  API({
    if (!N)
      return cudaErrorInvalidValue;
    *N = 1;
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGetDevice, (int *D), (D)) {
  API({
    if (!D)
      return cudaErrorInvalidValue;
    *D = 0;
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaSetDevice, (int D), (D)) {
  API({
    if (D != 0)
      return cudaErrorInvalidDevice;
    setCurrentContext(primaryContext());
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaInitDevice, (int D, unsigned Arg1, unsigned Arg2), (D, Arg1, Arg2)) { return cudaSetDevice(D); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaSetDeviceFlags, (unsigned Flags), (Flags)) {
  API({
    std::lock_guard<std::mutex> G(state().Mu);
    state().PrimaryFlags = Flags;
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGetDeviceFlags, (unsigned *Flags), (Flags)) {
  API({
    if (!Flags)
      return cudaErrorInvalidValue;
    std::lock_guard<std::mutex> G(state().Mu);
    *Flags = state().PrimaryFlags;
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaChooseDevice, (int *D, const cudaDeviceProp * Arg1), (D, Arg1)) {
  API({
    if (!D)
      return cudaErrorInvalidValue;
    *D = 0;
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaDeviceGetAttribute, (int *V, int Attr, int D), (V, Attr, D)) {
  API({
    if (!V)
      return cudaErrorInvalidValue;
    return toRuntime(deviceAttribute(Attr, D, *V));
  });
}

ZLUDA_TRACED_EXPORT(cudaError_t, cudaGetDeviceProperties, (cudaDeviceProp *P, int D), (P, D)) {
  API({
    if (!P)
      return cudaErrorInvalidValue;
    if (D != 0)
      return cudaErrorInvalidDevice;
    std::memset(P, 0, sizeof *P);
    auto a = [&](int Attr) {
      int V = 0;
      deviceAttribute(Attr, 0, V);
      return V;
    };
    std::snprintf(P->name, sizeof P->name, "%s", backend().props().Name.c_str());
    CUuuid U;
    deviceUuid(U);
    std::memcpy(&P->uuid, &U, sizeof U);
    P->totalGlobalMem = backend().props().TotalMem;
    P->sharedMemPerBlock = a(8);
    P->regsPerBlock = a(12);
    P->warpSize = a(10);
    P->memPitch = a(11);
    P->maxThreadsPerBlock = a(1);
    for (int I = 0; I < 3; ++I) {
      P->maxThreadsDim[I] = a(2 + I);
      P->maxGridSize[I] = a(5 + I);
    }
    P->totalConstMem = a(9);
    P->major = a(75);
    P->minor = a(76);
    P->textureAlignment = a(14);
    P->texturePitchAlignment = a(51);
    P->multiProcessorCount = a(16);
    P->integrated = a(18);
    P->canMapHostMemory = a(19);
    P->maxTexture1D = a(21);
    P->maxTexture2D[0] = a(22);
    P->maxTexture2D[1] = a(23);
    P->maxTexture3D[0] = a(24);
    P->maxTexture3D[1] = a(25);
    P->maxTexture3D[2] = a(26);
    P->surfaceAlignment = a(30);
    P->concurrentKernels = a(31);
    P->ECCEnabled = a(32);
    P->pciBusID = a(33);
    P->pciDeviceID = a(34);
    P->pciDomainID = a(50);
    P->asyncEngineCount = a(40);
    P->unifiedAddressing = a(41);
    P->memoryBusWidth = a(37);
    P->l2CacheSize = a(38);
    P->maxThreadsPerMultiProcessor = a(39);
    P->streamPrioritiesSupported = a(78);
    P->globalL1CacheSupported = a(79);
    P->localL1CacheSupported = a(80);
    P->sharedMemPerMultiprocessor = a(81);
    P->regsPerMultiprocessor = a(82);
    P->managedMemory = a(83);
    P->hostNativeAtomicSupported = a(86);
    P->pageableMemoryAccess = a(88);
    P->concurrentManagedAccess = a(89);
    P->canUseHostPointerForRegisteredMem = a(91);
    P->cooperativeLaunch = a(95);
    P->sharedMemPerBlockOptin = a(97);
    P->pageableMemoryAccessUsesHostPageTables = a(100);
    P->directManagedMemAccessFromHost = a(101);
    P->maxBlocksPerMultiProcessor = a(106);
    P->hostRegisterSupported = a(99);
    P->memoryPoolsSupported = a(115);
    // The remaining limits, each from its device attribute.
    P->maxTexture1DMipmap = a(77);
    P->maxTexture2DMipmap[0] = a(73);
    P->maxTexture2DMipmap[1] = a(74);
    P->maxTexture2DLinear[0] = a(70);
    P->maxTexture2DLinear[1] = a(71);
    P->maxTexture2DLinear[2] = a(72);
    P->maxTexture2DGather[0] = a(45);
    P->maxTexture2DGather[1] = a(46);
    P->maxTexture3DAlt[0] = a(47);
    P->maxTexture3DAlt[1] = a(48);
    P->maxTexture3DAlt[2] = a(49);
    P->maxTextureCubemap = a(52);
    P->maxTexture1DLayered[0] = a(42);
    P->maxTexture1DLayered[1] = a(43);
    P->maxTexture2DLayered[0] = a(27);
    P->maxTexture2DLayered[1] = a(28);
    P->maxTexture2DLayered[2] = a(29);
    P->maxTextureCubemapLayered[0] = a(53);
    P->maxTextureCubemapLayered[1] = a(54);
    P->maxSurface1D = a(55);
    P->maxSurface2D[0] = a(56);
    P->maxSurface2D[1] = a(57);
    P->maxSurface3D[0] = a(58);
    P->maxSurface3D[1] = a(59);
    P->maxSurface3D[2] = a(60);
    P->maxSurface1DLayered[0] = a(61);
    P->maxSurface1DLayered[1] = a(62);
    P->maxSurface2DLayered[0] = a(63);
    P->maxSurface2DLayered[1] = a(64);
    P->maxSurface2DLayered[2] = a(65);
    P->maxSurfaceCubemap = a(66);
    P->maxSurfaceCubemapLayered[0] = a(67);
    P->maxSurfaceCubemapLayered[1] = a(68);
    P->tccDriver = a(35);
    P->persistingL2CacheMaxSize = a(108);
    P->isMultiGpuBoard = a(84);
    P->multiGpuBoardGroupID = a(85);
    P->computePreemptionSupported = a(90);
    P->accessPolicyMaxWindowSize = a(109);
    P->reservedSharedMemPerBlock = static_cast<size_t>(a(111));
    P->sparseCudaArraySupported = a(112);
    P->hostRegisterReadOnlySupported = a(113);
    P->timelineSemaphoreInteropSupported = a(114);
    P->gpuDirectRDMASupported = a(116);
    P->gpuDirectRDMAFlushWritesOptions = static_cast<unsigned>(a(117));
    P->gpuDirectRDMAWritesOrdering = a(118);
    P->memoryPoolSupportedHandleTypes = static_cast<unsigned>(a(119));
    P->deferredMappingCudaArraySupported = a(121);
    P->ipcEventSupported = a(125);
    P->clusterLaunch = a(120);
    P->unifiedFunctionPointers = a(129);
    P->deviceNumaConfig = a(130);
    P->deviceNumaId = -1;
    P->mpsEnabled = 0;
    P->hostNumaId = -1;
    return cudaSuccess;
  });
}

ZLUDA_TRACED_EXPORT(cudaError_t, cudaDeviceGetPCIBusId, (char *Out, int Len, int D), (Out, Len, D)) {
  API({
    if (!Out || Len <= 0)
      return cudaErrorInvalidValue;
    if (D != 0)
      return cudaErrorInvalidDevice;
    std::snprintf(Out, Len, "0000:00:00.0");
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaDeviceGetByPCIBusId, (int *D, const char *Id), (D, Id)) {
  API({
    if (!D || !Id)
      return cudaErrorInvalidValue;
    if (std::strcmp(Id, "0000:00:00.0") != 0 && std::strcmp(Id, "00:00.0") != 0)
      return cudaErrorInvalidDevice;
    *D = 0;
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaDeviceGetStreamPriorityRange, (int *Least, int *Greatest), (Least, Greatest)) {
  API({
    if (Least)
      *Least = 0;
    if (Greatest)
      *Greatest = -5;
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaDeviceSynchronize, (), ()) { API({ return toRuntime(synchronize(primaryContext())); }); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaDeviceReset, (), ()) {
  API({
    // Every allocation the program made goes, as does a poisoned state.
    // Registered kernels and variables stay registered and load again lazily.
    freeAllAllocations();
    primaryContext()->Sticky = CUDA_SUCCESS;
    LastError = cudaSuccess;
    return cudaSuccess;
  });
}

namespace zluda::driver {
void *lookupProc(const char *Name, int Version, unsigned long long Flags, bool &VersionTooLow);
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGetDriverEntryPointByVersion, (const char *Symbol, void **Fn, unsigned Version, unsigned long long Flags, int *Status), (Symbol, Fn, Version, Flags, Status)) {
  API({
    if (!Symbol || !Fn)
      return cudaErrorInvalidValue;
    bool TooLow;
    *Fn = lookupProc(Symbol, static_cast<int>(Version), Flags, TooLow);
    if (Status)
      *Status = *Fn ? 0 : TooLow ? 2 : 1;
    return cudaSuccess; // as CUDA: a missing symbol is reported through Status
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGetDriverEntryPoint, (const char *Symbol, void **Fn, unsigned long long Flags, int *Status), (Symbol, Fn, Flags, Status)) {
  return cudaGetDriverEntryPointByVersion(Symbol, Fn, 13000, Flags, Status);
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGetFuncBySymbol, (void **Out, const void *Stub), (Out, Stub)) {
  API({
    if (!Out)
      return cudaErrorInvalidValue;
    Function *F;
    if (cudaError_t E = kernelOf(Stub, F))
      return E;
    *Out = F;
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaProfilerStart, (), ()) { return cudaSuccess; }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaProfilerStop, (), ()) { return cudaSuccess; }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaThreadExchangeStreamCaptureMode, (int *Mode), (Mode)) { return Mode ? cudaSuccess : cudaErrorInvalidValue; }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaDeviceSetCacheConfig, (int Arg0), (Arg0)) { API({ return cudaSuccess; }); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaDeviceGetCacheConfig, (int *C), (C)) {
  API({
    if (!C)
      return cudaErrorInvalidValue;
    *C = 0;
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaDeviceSetLimit, (int L, size_t V), (L, V)) {
  API({
    if (L < 0 || L > 6)
      return cudaErrorUnsupportedLimit;
    if (L == CU_LIMIT_PERSISTING_L2_CACHE_SIZE) // at most the device's persisting maximum (a hint)
      V = std::min<size_t>(V, maxPersistingL2Bytes(backend().props().L2Bytes));
    primaryContext()->Limits[L] = V;
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaDeviceGetLimit, (size_t *V, int L), (V, L)) {
  API({
    if (!V)
      return cudaErrorInvalidValue;
    if (L < 0 || L > 6)
      return cudaErrorUnsupportedLimit;
    *V = primaryContext()->Limits[L];
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaDeviceCanAccessPeer, (int *Can, int D, int Peer), (Can, D, Peer)) {
  API({
    if (!Can)
      return cudaErrorInvalidValue;
    if (D != 0 || Peer != 0)
      return cudaErrorInvalidDevice;
    *Can = 0;
    return cudaSuccess;
  });
}

namespace zluda::driver {
int notSupportedRuntime(const char *Name) {
  notSupported(Name);
  return zluda::runtime::record(cudaErrorNotSupported);
}
} // namespace zluda::driver
