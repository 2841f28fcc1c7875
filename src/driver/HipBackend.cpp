//===- HipBackend.cpp - AMD GPUs through HIP as the driver's backend --------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Device memory is HIP's (hipMalloc, hipHostMalloc, hipMallocManaged);
/// addresses are unified, so copies go through hipMemcpy[Async] with
/// hipMemcpyDefault. A module's PTX is compiled by our compiler into an
/// AMDGPU code object for the device's gcnArchName (src/amdgpu, through the
/// compile cache) and loaded with hipModuleLoadData; a launch hands HIP the
/// CUDA parameter buffer as the kernarg segment (our code objects' layout)
/// and the module's static shared memory plus the launch's dynamic part.
/// Streams and events are HIP's; a kernel's fault is reported by HIP at the
/// next synchronization, where the driver makes it the context's sticky error.
///
/// Not supported on this backend (CUDA_ERROR_NOT_SUPPORTED, logged):
/// cooperative launches, texture objects; kernels the AMDGPU target cannot
/// compile (printf, malloc, textures, mma) are refused at launch by the driver.
#include "driver/HipBackend.h"
#include "driver/Internal.h"

#include "amdgpu/CodeObject.h"
#include "common/Env.h"

#include <cstring>
#include <algorithm>
#include <fstream>
#include <mutex>
#include <sys/stat.h>
#include <unordered_map>

namespace zluda::driver {
namespace {

hipStream_t native(Stream *S) { return S ? static_cast<hipStream_t>(S->Native) : nullptr; }

class HipModuleCode final : public ModuleCode {
public:
  HipModuleCode(const hip::Calls &C, hipModule_t M, amdgpu::CodeObject CO, std::vector<amdgpu::KernelMetadata> Md,
                bool Slow)
      : C(C), Mod(M), Code(std::move(CO)), Slow(Slow) {
    for (amdgpu::KernelMetadata &K : Md)
      Meta.emplace(K.Name, std::move(K));
    // CU_FUNC_ATTRIBUTE_NUM_REGS: the code object's vector registers per work-item.
    for (ptx::KernelInfo &K : Code.Kernels)
      if (auto It = Meta.find(K.Name); It != Meta.end() && It->second.VgprCount)
        K.Registers = It->second.VgprCount;
  }
  ~HipModuleCode() override {
    for (void *P : Fallback)
      C.free(P);
    C.moduleUnload(Mod);
  }

  /// The module's variables: each as the code object defines it. A variable
  /// no kernel uses is not in the code object (codegen internalizes and drops
  /// it); it gets memory of its own, so the program can still copy to it.
  CUresult resolveVariables() {
    for (const ptx::GlobalInfo &G : Code.Globals) {
      if (G.Space != ptx::StateSpace::Global && G.Space != ptx::StateSpace::Const)
        continue;
      hipDeviceptr_t P = nullptr;
      size_t N = 0;
      if (C.getGlobal(&P, &N, Mod, G.Name.c_str()) != CUDA_SUCCESS || !P) {
        void *Own = nullptr;
        if (CUresult R = C.malloc(&Own, std::max<uint64_t>(G.Size, 1)))
          return R;
        Fallback.push_back(Own);
        P = Own;
        N = G.Size;
      }
      Vars.push_back({G.Name, reinterpret_cast<uintptr_t>(P), N, G.IsTexref});
    }
    return CUDA_SUCCESS;
  }

  const ptx::KernelInfo *kernel(std::string_view Name) const override {
    for (const ptx::KernelInfo &K : Code.Kernels)
      if (K.Name == Name)
        return &K;
    return nullptr;
  }
  const std::vector<Variable> &variables() const override { return Vars; }

  CUresult launch(const ptx::KernelInfo &K, const LaunchConfig &L, CUresult &Fault, std::string &) override {
    Fault = CUDA_SUCCESS;
    if (L.Cooperative)
      return notSupported("cooperative launches on AMD GPUs");
    if (L.Cluster.count() > 1)
      return notSupported("thread-block clusters on AMD GPUs");
    auto Md = Meta.find(K.Name);
    if (Md == Meta.end()) {
      ZLUDA_LOG_ERROR("kernel {} is not in its code object's metadata", K.Name);
      return CUDA_ERROR_NOT_FOUND;
    }
    hipFunction_t F;
    if (CUresult R = function(K.Name, F))
      return R;
    const unsigned Grid[3] = {L.Grid.X, L.Grid.Y, L.Grid.Z};
    // The code object addresses every kernel's static .shared inside the
    // dynamic LDS allocation, ahead of the launch's dynamic part; the
    // runtime's own LDS (barrier counters) is the fixed part.
    unsigned Shared = Code.StaticShared + L.DynShared;
    if (uint64_t(Md->second.GroupSegmentFixed) + Shared > 64 * 1024)
      return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
    if (!Slow) {
      const unsigned Block[3] = {L.Block.X, L.Block.Y, L.Block.Z};
      return launchWith(F, Md->second, Grid, Block, Shared, L, static_cast<const uint8_t *>(L.Params), L.ParamBytes);
    }
    // ZLUDA_WAVE64_SLOW_MODE: a 1-D workgroup of one wave per warp, the
    // block's shape after the parameters (amdgpu/CodeObject.h).
    uint64_t Threads = L.Block.count();
    if (Threads > amdgpu::SlowModeMaxThreads) {
      ZLUDA_LOG_ERROR("kernel {}: ZLUDA_WAVE64_SLOW_MODE runs blocks of at most {} threads, not {}", K.Name,
                      amdgpu::SlowModeMaxThreads, Threads);
      return CUDA_ERROR_INVALID_VALUE;
    }
    unsigned At = amdgpu::slowModeGeometryOffset(static_cast<unsigned>(L.ParamBytes));
    std::vector<uint8_t> Args(At + 12, 0);
    if (L.ParamBytes)
      std::memcpy(Args.data(), L.Params, L.ParamBytes);
    const uint32_t Shape[3] = {L.Block.X, L.Block.Y, L.Block.Z};
    std::memcpy(Args.data() + At, Shape, sizeof Shape);
    const unsigned Block[3] = {amdgpu::slowModeWorkItems(static_cast<unsigned>(Threads)), 1, 1};
    return launchWith(F, Md->second, Grid, Block, Shared, L, Args.data(), Args.size());
  }

private:
  /// The launch as the code object's metadata lays it out: its explicit
  /// arguments are our buffer (zero-padded to their size); the hidden ones
  /// (hostcall buffer ...) are HIP's to fill.
  CUresult launchWith(hipFunction_t F, const amdgpu::KernelMetadata &Md, const unsigned Grid[3],
                      const unsigned Block[3], unsigned Shared, const LaunchConfig &L, const uint8_t *Bytes,
                      size_t Size) {
    if (Size > Md.ExplicitBytes) {
      ZLUDA_LOG_ERROR("kernel {}: {} bytes of arguments where the code object takes {}", Md.Name, Size,
                      Md.ExplicitBytes);
      return CUDA_ERROR_INVALID_IMAGE;
    }
    if (uint64_t(Block[0]) * Block[1] * Block[2] > Md.MaxFlatWorkgroup)
      return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
    void *Buf = const_cast<uint8_t *>(Bytes);
    std::vector<uint8_t> Padded;
    if (Size < Md.ExplicitBytes) { // the usual case needs no copy: our buffer is the layout
      Padded.assign(Md.ExplicitBytes, 0);
      if (Size)
        std::memcpy(Padded.data(), Bytes, Size);
      Buf = Padded.data();
    }
    return C.launch(F, Grid, Block, Shared, native(L.S), Md.ExplicitBytes ? Buf : nullptr, Md.ExplicitBytes);
  }

  CUresult function(const std::string &Name, hipFunction_t &Out) {
    std::lock_guard<std::mutex> G(Mu);
    auto It = Functions.find(Name);
    if (It == Functions.end()) {
      hipFunction_t F = nullptr;
      if (CUresult R = C.getFunction(&F, Mod, Name.c_str()))
        return R;
      It = Functions.emplace(Name, F).first;
    }
    Out = It->second;
    return CUDA_SUCCESS;
  }

  hip::Calls C;
  hipModule_t Mod;
  amdgpu::CodeObject Code;
  bool Slow;
  std::unordered_map<std::string, amdgpu::KernelMetadata> Meta;
  std::vector<Variable> Vars;
  std::vector<void *> Fallback;
  std::mutex Mu;
  std::unordered_map<std::string, hipFunction_t> Functions;
};

class HipBackend final : public Backend {
public:
  HipBackend(const hip::Library &L, const hip::DeviceInfo &D, amdgpu::Target T)
      : C{L}, L(L), T(std::move(T)), Ordinal(D.Ordinal) {
    P.Name = D.Name;
    P.Arch = D.GcnArchName;
    P.TotalMem = D.TotalMem;
    P.Multiprocessors = std::max(1, D.ComputeUnits);
    if (D.ClockKhz > 0)
      P.ClockKhz = D.ClockKhz;
    if (D.MemoryClockKhz > 0)
      P.MemoryClockKhz = D.MemoryClockKhz;
    if (D.MemoryBusWidth > 0)
      P.MemoryBusWidth = D.MemoryBusWidth;
    if (D.L2Bytes > 0)
      P.L2Bytes = D.L2Bytes;
    if (D.SharedPerBlock > 0)
      P.SharedPerBlock = std::min(D.SharedPerBlock, 48 * 1024);
    if (D.SharedPerCu > 0)
      P.SharedPerMultiprocessor = D.SharedPerCu;
    // One workgroup may use the whole LDS (64 KiB on CDNA and RDNA).
    P.SharedOptIn = std::max(P.SharedPerBlock, std::min(P.SharedPerMultiprocessor, 64 * 1024));
    if (D.ThreadsPerCu > 0)
      P.ThreadsPerMultiprocessor = D.ThreadsPerCu;
    P.PciDomain = D.PciDomain;
    P.PciBus = D.PciBus;
    P.PciDevice = D.PciDevice;
    P.Integrated = D.Integrated;
    P.ConcurrentManagedAccess = D.ConcurrentManagedAccess;
    P.PageableMemoryAccess = D.PageableMemoryAccess;
    P.Cooperative = false;
    P.TexturesInDeviceMemory = true;
    Slow = this->T.Wave64 && env::get("ZLUDA_WAVE64_SLOW_MODE") == "1";
    if (Slow)
      ZLUDA_LOG_INFO("ZLUDA_WAVE64_SLOW_MODE: one 32-lane warp per 64-lane wave, blocks of at most {} threads",
                     amdgpu::SlowModeMaxThreads);
  }
  const char *name() const override { return "hip"; }
  const DeviceProps &props() const override { return P; }

  CUresult alloc(size_t Size, CUmemorytype Type, bool Managed, unsigned Flags, void *&Out) override {
    // CUDA's flag values are HIP's: CU_MEMHOSTALLOC_PORTABLE/DEVICEMAP/
    // WRITECOMBINED = hipHostMallocPortable/Mapped/WriteCombined, and
    // CU_MEM_ATTACH_GLOBAL/HOST = hipMemAttachGlobal/Host.
    if (Type == CU_MEMORYTYPE_HOST)
      return C.hostMalloc(&Out, Size, Flags);
    if (Managed)
      return C.mallocManaged(&Out, Size, Flags);
    return C.malloc(&Out, Size);
  }
  void free(void *Ptr, CUmemorytype Type, bool) override {
    CUresult R = Type == CU_MEMORYTYPE_HOST ? C.hostFree(Ptr) : C.free(Ptr);
    if (R != CUDA_SUCCESS)
      ZLUDA_LOG_WARN("freeing {} failed: {}", Ptr, static_cast<int>(R));
  }
  CUresult hostRegister(void *Ptr, size_t Size, unsigned Flags) override { return C.hostRegister(Ptr, Size, Flags); }
  CUresult hostUnregister(void *Ptr) override { return C.hostUnregister(Ptr); }
  CUresult memInfo(size_t &Free, size_t &Total) override { return C.memGetInfo(&Free, &Total); }
  CUresult copy(void *Dst, const void *Src, size_t N, Stream *S, bool Async) override {
    return Async ? C.memcpyAsync(Dst, Src, N, native(S)) : C.memcpy(Dst, Src, N);
  }
  CUresult fill(void *Dst, uint32_t Value, unsigned ElemSize, size_t Count, Stream *S, bool Async) override {
    hipStream_t St = native(S);
    switch (ElemSize) {
    case 1:
      return Async ? C.memsetD8Async(Dst, static_cast<unsigned char>(Value), Count, St)
                   : C.memsetD8(Dst, static_cast<unsigned char>(Value), Count);
    case 2:
      return Async ? C.memsetD16Async(Dst, static_cast<unsigned short>(Value), Count, St)
                   : C.memsetD16(Dst, static_cast<unsigned short>(Value), Count);
    default:
      return Async ? C.memsetD32Async(Dst, static_cast<int>(Value), Count, St)
                   : C.memsetD32(Dst, static_cast<int>(Value), Count);
    }
  }

  CUresult compile(const std::string &Ptx, const std::string &DumpBase, std::unique_ptr<ModuleCode> &Out,
                   std::string &Error, int OptLevel) override {
    amdgpu::CompileOptions Opts;
    // CU_JIT_OPTIMIZATION_LEVEL 0-4: COMGR's -O0 ... -O3 (4, the default: -O3).
    Opts.OptLevel = static_cast<unsigned>(std::clamp(OptLevel, 0, 3));
    Opts.Aggressive = env::get("ZLUDA_AGGRESSIVE_OPTIMIZATIONS") == "1";
    Opts.Wave64Slow = Slow;
    std::string IR;
    if (!DumpBase.empty())
      Opts.LLVMOut = &IR;
    amdgpu::CodeObject CO = amdgpu::compilePtx(Ptx, T, Opts);
    if (!DumpBase.empty())
      std::ofstream(DumpBase + ".ll", std::ios::binary) << IR;
    if (CO.Elf.empty()) {
      Error = CO.Error;
      return CUDA_ERROR_INVALID_PTX;
    }
    for (const std::string &F : CO.Failures)
      ZLUDA_LOG_WARN("{}: {}", T.name(), F);
    std::vector<amdgpu::KernelMetadata> Md;
    if (!amdgpu::readMetadata(CO.Elf, Md, Error))
      return CUDA_ERROR_INVALID_IMAGE;
    hipModule_t M = nullptr;
    if (CUresult R = C.moduleLoad(&M, CO.Elf)) {
      Error = "hipModuleLoadData refused the code object for " + T.name();
      return R;
    }
    auto Code = std::make_unique<HipModuleCode>(C, M, std::move(CO), std::move(Md), Slow);
    if (CUresult R = Code->resolveVariables()) {
      Error = "cannot place the module's variables";
      return R;
    }
    Out = std::move(Code);
    return CUDA_SUCCESS;
  }

  CUresult streamCreate(Stream &S) override {
    hipStream_t H = nullptr;
    // CU_STREAM_NON_BLOCKING is hipStreamNonBlocking. CUDA's priorities run
    // from 0 (least) to -5; HIP's devices have two levels.
    if (CUresult R = C.streamCreate(&H, S.Flags, S.Priority < 0 ? -1 : 0))
      return R;
    S.Native = H;
    return CUDA_SUCCESS;
  }
  CUresult streamDestroy(Stream &S) override { return C.streamDestroy(native(&S)); }
  CUresult streamSynchronize(Stream *S) override { return C.streamSynchronize(native(S)); }
  CUresult streamQuery(Stream *S) override { return C.streamQuery(native(S)); }
  CUresult streamWaitEvent(Stream *S, Event &E) override {
    return C.streamWaitEvent(native(S), static_cast<hipEvent_t>(E.Native));
  }
  CUresult hostFunc(Stream *S, void (*Fn)(void *), void *User) override { return C.hostFunc(native(S), Fn, User); }
  CUresult eventCreate(Event &E) override {
    hipEvent_t H = nullptr;
    // CU_EVENT_BLOCKING_SYNC/DISABLE_TIMING/INTERPROCESS are HIP's numbers.
    if (CUresult R = C.eventCreate(&H, E.Flags))
      return R;
    E.Native = H;
    return CUDA_SUCCESS;
  }
  CUresult eventDestroy(Event &E) override { return C.eventDestroy(static_cast<hipEvent_t>(E.Native)); }
  CUresult eventRecord(Event &E, Stream *S) override {
    return C.eventRecord(static_cast<hipEvent_t>(E.Native), native(S));
  }
  CUresult eventSynchronize(Event &E) override { return C.eventSynchronize(static_cast<hipEvent_t>(E.Native)); }
  CUresult eventQuery(Event &E) override { return C.eventQuery(static_cast<hipEvent_t>(E.Native)); }
  CUresult eventElapsed(float &Ms, Event &A, Event &B) override {
    return C.eventElapsed(&Ms, static_cast<hipEvent_t>(A.Native), static_cast<hipEvent_t>(B.Native));
  }
  CUresult synchronize() override { return C.deviceSynchronize(); }

  // --- interprocess handles: HIP's (hipIpcMemHandle_t and hipIpcEventHandle_t are 64 bytes too) ---
  CUresult ipcMemExport(void *Base, size_t, IpcBytes &Out) override {
    if (!L.hipIpcGetMemHandle)
      return notSupported("cuIpcGetMemHandle (this HIP runtime has no hipIpcGetMemHandle)");
    hipIpcMemHandle_t H;
    if (CUresult R = hip::toCuda(L.hipIpcGetMemHandle(&H, Base)))
      return R;
    std::memcpy(Out, &H, sizeof Out);
    return CUDA_SUCCESS;
  }
  CUresult ipcMemOpen(const IpcBytes &In, void *&Base, size_t &Size) override {
    if (!L.hipIpcOpenMemHandle)
      return notSupported("cuIpcOpenMemHandle (this HIP runtime has no hipIpcOpenMemHandle)");
    hipIpcMemHandle_t H;
    std::memcpy(&H, In, sizeof In);
    if (CUresult R = hip::toCuda(L.hipIpcOpenMemHandle(&Base, H, hipIpcMemLazyEnablePeerAccess)))
      return R;
    Size = 1; // HIP does not say; the allocation table's range is the first byte
    return CUDA_SUCCESS;
  }
  CUresult ipcMemClose(void *Base, size_t) override {
    return L.hipIpcCloseMemHandle ? hip::toCuda(L.hipIpcCloseMemHandle(Base)) : CUDA_ERROR_NOT_SUPPORTED;
  }
  CUresult ipcEventExport(Event &E, IpcBytes &Out) override {
    if (!L.hipIpcGetEventHandle)
      return notSupported("cuIpcGetEventHandle (this HIP runtime has no hipIpcGetEventHandle)");
    hipIpcEventHandle_t H;
    if (CUresult R = hip::toCuda(L.hipIpcGetEventHandle(&H, static_cast<hipEvent_t>(E.Native))))
      return R;
    std::memcpy(Out, &H, sizeof Out);
    return CUDA_SUCCESS;
  }
  CUresult ipcEventOpen(const IpcBytes &In, Event &E) override {
    if (!L.hipIpcOpenEventHandle)
      return notSupported("cuIpcOpenEventHandle (this HIP runtime has no hipIpcOpenEventHandle)");
    hipIpcEventHandle_t H;
    std::memcpy(&H, In, sizeof In);
    hipEvent_t Ev = nullptr;
    if (CUresult R = hip::toCuda(L.hipIpcOpenEventHandle(&Ev, H)))
      return R;
    E.Native = Ev;
    return CUDA_SUCCESS;
  }

  // --- virtual memory management: HIP's, where the runtime has it (HIP 5.3+) ---
  struct HipPhysical : PhysicalMemory {
    const hip::Library *L = nullptr;
    hipMemGenericAllocationHandle_t Handle = nullptr;
    ~HipPhysical() override {
      if (Handle)
        (void)L->hipMemRelease(Handle);
    }
  };
  /// HIP 5.3+ (CUDA's hipMemAllocationProp layout) with every call present.
  bool hasVmm() const {
    int Version = 0;
    if (L.hipRuntimeGetVersion(&Version) != hipSuccess || Version < 50300000)
      return false;
    return L.hipMemGetAllocationGranularity && L.hipMemAddressReserve && L.hipMemAddressFree && L.hipMemCreate &&
           L.hipMemRelease && L.hipMemMap && L.hipMemUnmap && L.hipMemSetAccess;
  }
  /// HIP 5.3+'s hipMemAllocationProp is CUDA's struct, field for field and value for value.
  static const hipMemAllocationProp *hipProp(const CUmemAllocationProp &P) {
    return reinterpret_cast<const hipMemAllocationProp *>(&P);
  }
  /// The properties of device memory of ours.
  static CUmemAllocationProp deviceProp(int Ordinal, bool Exportable) {
    CUmemAllocationProp Prop{};
    Prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    Prop.location = {CU_MEM_LOCATION_TYPE_DEVICE, Ordinal};
    Prop.requestedHandleTypes = Exportable ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR : CU_MEM_HANDLE_TYPE_NONE;
    return Prop;
  }
  size_t vmmGranularity() const override {
    if (!hasVmm())
      return 0;
    CUmemAllocationProp Prop = deviceProp(Ordinal, false);
    size_t G = 0;
    return L.hipMemGetAllocationGranularity(&G, hipProp(Prop), hipMemAllocationGranularityMinimum) == hipSuccess ? G
                                                                                                                 : 0;
  }
  CUresult addressReserve(size_t Size, size_t Align, uintptr_t Hint, uintptr_t &Out) override {
    void *P = nullptr;
    if (CUresult R = hip::toCuda(L.hipMemAddressReserve(&P, Size, Align, reinterpret_cast<void *>(Hint), 0)))
      return R;
    Out = reinterpret_cast<uintptr_t>(P);
    return CUDA_SUCCESS;
  }
  CUresult addressFree(uintptr_t P, size_t Size) override {
    return hip::toCuda(L.hipMemAddressFree(reinterpret_cast<void *>(P), Size));
  }
  CUresult physicalCreate(size_t Size, bool Exportable, std::unique_ptr<PhysicalMemory> &Out) override {
    CUmemAllocationProp Prop = deviceProp(Ordinal, Exportable);
    auto M = std::make_unique<HipPhysical>();
    M->L = &L;
    M->Size = Size;
    if (CUresult R = hip::toCuda(L.hipMemCreate(&M->Handle, Size, hipProp(Prop), 0)))
      return R;
    Out = std::move(M);
    return CUDA_SUCCESS;
  }
  CUresult physicalExport(PhysicalMemory &M, int &Fd) override {
    if (!L.hipMemExportToShareableHandle)
      return notSupported("cuMemExportToShareableHandle (this HIP runtime has no hipMemExportToShareableHandle)");
    return hip::toCuda(L.hipMemExportToShareableHandle(&Fd, static_cast<HipPhysical &>(M).Handle,
                                                       hipMemHandleTypePosixFileDescriptor, 0));
  }
  CUresult physicalImport(int Fd, std::unique_ptr<PhysicalMemory> &Out) override {
    if (!L.hipMemImportFromShareableHandle)
      return notSupported("cuMemImportFromShareableHandle (this HIP runtime has no hipMemImportFromShareableHandle)");
    auto M = std::make_unique<HipPhysical>();
    M->L = &L;
    if (CUresult R = hip::toCuda(L.hipMemImportFromShareableHandle(
            &M->Handle, reinterpret_cast<void *>(static_cast<intptr_t>(Fd)), hipMemHandleTypePosixFileDescriptor)))
      return R;
    struct stat St;
    M->Size = fstat(Fd, &St) == 0 ? static_cast<size_t>(St.st_size) : ~size_t(0); // HIP does not say
    Out = std::move(M);
    return CUDA_SUCCESS;
  }
  CUresult map(uintptr_t Ptr, size_t Size, size_t Offset, PhysicalMemory &M) override {
    return hip::toCuda(L.hipMemMap(reinterpret_cast<void *>(Ptr), Size, Offset, static_cast<HipPhysical &>(M).Handle, 0));
  }
  CUresult unmap(uintptr_t Ptr, size_t Size) override {
    return hip::toCuda(L.hipMemUnmap(reinterpret_cast<void *>(Ptr), Size));
  }
  CUresult setAccess(uintptr_t Ptr, size_t Size, bool Read, bool Write) override {
    CUmemAccessDesc D{};
    D.location = {CU_MEM_LOCATION_TYPE_DEVICE, Ordinal};
    D.flags = Write ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE
                    : (Read ? CU_MEM_ACCESS_FLAGS_PROT_READ : CU_MEM_ACCESS_FLAGS_PROT_NONE);
    // CUmemAccessDesc and hipMemAccessDesc have one layout and the same values.
    return hip::toCuda(L.hipMemSetAccess(reinterpret_cast<void *>(Ptr), Size, reinterpret_cast<hipMemAccessDesc *>(&D), 1));
  }

private:
  hip::Calls C;
  const hip::Library &L;
  amdgpu::Target T;
  int Ordinal = 0;
  DeviceProps P;
  bool Slow = false;
};

} // namespace

std::unique_ptr<Backend> makeHipBackend(const hip::Library &L, const hip::DeviceInfo &D, std::string &Error) {
  amdgpu::Target T;
  if (!amdgpu::Target::parse(D.GcnArchName, T, Error))
    return nullptr;
  hip::Calls C{L};
  if (CUresult R = C.setDevice(D.Ordinal)) {
    Error = "hipSetDevice(" + std::to_string(D.Ordinal) + ") failed: " + std::to_string(static_cast<int>(R));
    return nullptr;
  }
  return std::make_unique<HipBackend>(L, D, std::move(T));
}

} // namespace zluda::driver
