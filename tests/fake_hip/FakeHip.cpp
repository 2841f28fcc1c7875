//===- FakeHip.cpp - a HIP runtime for tests without an AMD GPU ------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file See FakeHip.h. One fake GPU (FAKE_HIP_DEVICES=0 makes none), whose
/// gcnArchName is FAKE_HIP_ARCH (default "gfx90a:sramecc+:xnack-"). Built
/// twice: as a ROCm 5 runtime (hipGetDeviceProperties) and, with
/// FAKE_HIP_ROCM6=1, as one with only ROCm 6's hipGetDevicePropertiesR0600.
#include "FakeHip.h"
#include "hip_bridge/DevicePropR0600.h"

#include <hip/hip_runtime_api.h>

#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#ifndef FAKE_HIP_ROCM6
#define FAKE_HIP_ROCM6 0
#endif

// The opaque HIP handles, as this runtime makes them.
struct ihipStream_t {
  int Id;
};
struct ihipEvent_t {
  std::chrono::steady_clock::time_point When;
  bool Recorded;
};
struct ihipModuleSymbol_t {
  std::string Name;
};
struct ihipModule_t {
  std::string Image;
  std::map<std::string, std::unique_ptr<ihipModuleSymbol_t>> Functions;
  std::map<std::string, std::pair<void *, size_t>> Globals;
};

namespace {

struct Record {
  std::mutex Mu;
  std::map<std::string, int> Calls;
  std::vector<FakeHipLaunch> Launches;
  std::vector<FakeHipCodeObject> Modules;
  std::map<void *, size_t> Live;
  hipError_t FailNext = hipSuccess;
  int NextStream = 1;
};

Record &rec() {
  static Record *R = new Record;
  return *R;
}

void called(const char *Name) {
  std::lock_guard<std::mutex> G(rec().Mu);
  ++rec().Calls[Name];
}

/// A synchronization point: reports the injected fault once.
hipError_t syncPoint() {
  std::lock_guard<std::mutex> G(rec().Mu);
  hipError_t E = rec().FailNext;
  rec().FailNext = hipSuccess;
  return E;
}

int deviceCount() {
  const char *N = std::getenv("FAKE_HIP_DEVICES");
  return N ? std::atoi(N) : 1;
}

std::string arch() {
  const char *A = std::getenv("FAKE_HIP_ARCH");
  return A ? A : "gfx90a:sramecc+:xnack-";
}

void *allocate(size_t N) {
  void *P = std::aligned_alloc(256, (std::max<size_t>(N, 1) + 255) / 256 * 256);
  if (P) {
    std::memset(P, 0xcd, N); // fresh device memory is not zero
    std::lock_guard<std::mutex> G(rec().Mu);
    rec().Live[P] = N;
  }
  return P;
}

hipError_t release(void *P) {
  if (!P)
    return hipSuccess;
  {
    std::lock_guard<std::mutex> G(rec().Mu);
    if (!rec().Live.erase(P))
      return hipErrorInvalidValue;
  }
  std::free(P);
  return hipSuccess;
}

/// A symbol of an ELF64 image: its value, size and type, and the bytes its
/// section holds for it (empty for .bss-like sections).
struct Symbol {
  uint64_t Value = 0, Size = 0;
  unsigned Type = 0;
  std::string Bytes;
};

bool findSymbol(const std::string &Image, const std::string &Name, Symbol &Out) {
  if (Image.size() < sizeof(Elf64_Ehdr))
    return false;
  const char *B = Image.data();
  Elf64_Ehdr H;
  std::memcpy(&H, B, sizeof H);
  if (H.e_shoff == 0 || H.e_shoff + uint64_t(H.e_shnum) * sizeof(Elf64_Shdr) > Image.size())
    return false;
  std::vector<Elf64_Shdr> Sec(H.e_shnum);
  std::memcpy(Sec.data(), B + H.e_shoff, Sec.size() * sizeof(Elf64_Shdr));
  for (const Elf64_Shdr &S : Sec) {
    if ((S.sh_type != SHT_SYMTAB && S.sh_type != SHT_DYNSYM) || S.sh_link >= Sec.size())
      continue;
    const Elf64_Shdr &Str = Sec[S.sh_link];
    for (uint64_t Off = 0; Off + sizeof(Elf64_Sym) <= S.sh_size; Off += sizeof(Elf64_Sym)) {
      Elf64_Sym Sym;
      std::memcpy(&Sym, B + S.sh_offset + Off, sizeof Sym);
      if (Sym.st_name >= Str.sh_size || Name != B + Str.sh_offset + Sym.st_name || Sym.st_shndx == SHN_UNDEF)
        continue;
      Out.Value = Sym.st_value;
      Out.Size = Sym.st_size;
      Out.Type = ELF64_ST_TYPE(Sym.st_info);
      if (Sym.st_shndx < Sec.size()) {
        const Elf64_Shdr &In = Sec[Sym.st_shndx];
        if (In.sh_type != SHT_NOBITS && Sym.st_value >= In.sh_addr &&
            Sym.st_value - In.sh_addr + Sym.st_size <= In.sh_size)
          Out.Bytes.assign(B + In.sh_offset + (Sym.st_value - In.sh_addr), Sym.st_size);
      }
      return true;
    }
  }
  return false;
}

} // namespace

// --- what tests read -----------------------------------------------------------------

extern "C" {
int fakeHipLaunchCount() {
  std::lock_guard<std::mutex> G(rec().Mu);
  return static_cast<int>(rec().Launches.size());
}
const FakeHipLaunch *fakeHipLaunch(int I) {
  std::lock_guard<std::mutex> G(rec().Mu);
  return I >= 0 && I < static_cast<int>(rec().Launches.size()) ? &rec().Launches[I] : nullptr;
}
int fakeHipModuleCount() {
  std::lock_guard<std::mutex> G(rec().Mu);
  return static_cast<int>(rec().Modules.size());
}
const FakeHipCodeObject *fakeHipModule(int I) {
  std::lock_guard<std::mutex> G(rec().Mu);
  return I >= 0 && I < static_cast<int>(rec().Modules.size()) ? &rec().Modules[I] : nullptr;
}
int fakeHipCalls(const char *Name) {
  std::lock_guard<std::mutex> G(rec().Mu);
  auto It = rec().Calls.find(Name);
  return It == rec().Calls.end() ? 0 : It->second;
}
size_t fakeHipLiveBytes() {
  std::lock_guard<std::mutex> G(rec().Mu);
  size_t N = 0;
  for (auto &[P, S] : rec().Live)
    N += S;
  return N;
}
void fakeHipFailNextSync(int E) {
  std::lock_guard<std::mutex> G(rec().Mu);
  rec().FailNext = static_cast<hipError_t>(E);
}
const char *fakeHipDeviceName() {
  return FAKE_HIP_ROCM6 ? "Fake AMD Radeon PRO W7900 (ROCm 6)" : "Fake AMD Instinct MI210";
}
int fakeHipComputeUnits() { return FAKE_HIP_ROCM6 ? 96 : 104; }
int fakeHipPciBus() { return FAKE_HIP_ROCM6 ? 0x03 : 0x63; }
void fakeHipReset() {
  std::lock_guard<std::mutex> G(rec().Mu);
  rec().Calls.clear();
  rec().Launches.clear();
  rec().Modules.clear();
  rec().FailNext = hipSuccess;
}
} // extern "C"

// --- the HIP functions -----------------------------------------------------------------

#define FAKE(Name) called(#Name)

hipError_t hipInit(unsigned int) {
  FAKE(hipInit);
  return deviceCount() > 0 ? hipSuccess : hipErrorNoDevice;
}
hipError_t hipDriverGetVersion(int *V) {
  *V = 50300000; // HIP 5.3 (its hipMemAllocationProp has CUDA's layout)
  return hipSuccess;
}
hipError_t hipRuntimeGetVersion(int *V) {
  *V = 50300000;
  return hipSuccess;
}
hipError_t hipGetDeviceCount(int *N) {
  FAKE(hipGetDeviceCount);
  *N = deviceCount();
  return *N > 0 ? hipSuccess : hipErrorNoDevice;
}
hipError_t hipDeviceGet(hipDevice_t *D, int Ordinal) {
  if (Ordinal < 0 || Ordinal >= deviceCount())
    return hipErrorInvalidDevice;
  *D = Ordinal;
  return hipSuccess;
}
hipError_t hipDeviceGetName(char *Name, int Len, hipDevice_t) {
  std::snprintf(Name, Len, "%s", fakeHipDeviceName());
  return hipSuccess;
}
hipError_t hipDeviceGetAttribute(int *V, hipDeviceAttribute_t, int) {
  *V = 0;
  return hipSuccess;
}
hipError_t hipDeviceTotalMem(size_t *Bytes, hipDevice_t) {
  *Bytes = size_t(64) << 30;
  return hipSuccess;
}
/// The fake GPU's properties, in either layout of hipDeviceProp_t.
template <typename P> void describe(P *Prop) {
  std::snprintf(Prop->name, sizeof Prop->name, "%s", fakeHipDeviceName());
  std::snprintf(Prop->gcnArchName, sizeof Prop->gcnArchName, "%s", arch().c_str());
  Prop->totalGlobalMem = size_t(64) << 30;
  Prop->sharedMemPerBlock = 64 * 1024;
  Prop->warpSize = arch().rfind("gfx1", 0) == 0 ? 32 : 64;
  Prop->maxThreadsPerBlock = 1024;
  Prop->clockRate = 1700000;
  Prop->memoryClockRate = 1600000;
  Prop->memoryBusWidth = 4096;
  Prop->multiProcessorCount = fakeHipComputeUnits();
  Prop->l2CacheSize = 8 * 1024 * 1024;
  Prop->maxThreadsPerMultiProcessor = 2048;
  Prop->maxSharedMemoryPerMultiProcessor = 64 * 1024;
  Prop->pciDomainID = 0;
  Prop->pciBusID = fakeHipPciBus();
  Prop->pciDeviceID = 0;
  Prop->integrated = 0;
  Prop->cooperativeLaunch = 1;
  Prop->concurrentManagedAccess = 0;
  Prop->pageableMemoryAccess = 0;
}

#if FAKE_HIP_ROCM6
// ROCm 6 names only: no hipGetDeviceProperties with the ROCm 5 layout.
extern "C" hipError_t hipGetDevicePropertiesR0600(void *P, int D) {
  FAKE(hipGetDevicePropertiesR0600);
  if (D < 0 || D >= deviceCount())
    return hipErrorInvalidDevice;
  auto *Prop = static_cast<zluda::hip::DevicePropR0600 *>(P);
  std::memset(Prop, 0, sizeof *Prop);
  describe(Prop);
  return hipSuccess;
}
#else
hipError_t hipGetDeviceProperties(hipDeviceProp_t *P, int D) {
  FAKE(hipGetDeviceProperties);
  if (D < 0 || D >= deviceCount())
    return hipErrorInvalidDevice;
  std::memset(P, 0, sizeof *P);
  describe(P);
  return hipSuccess;
}
#endif
hipError_t hipSetDevice(int D) {
  FAKE(hipSetDevice);
  return D >= 0 && D < deviceCount() ? hipSuccess : hipErrorInvalidDevice;
}
hipError_t hipDeviceSynchronize() {
  FAKE(hipDeviceSynchronize);
  return syncPoint();
}
const char *hipGetErrorName(hipError_t E) { return E == hipSuccess ? "hipSuccess" : "hipErrorFake"; }
const char *hipGetErrorString(hipError_t E) { return E == hipSuccess ? "no error" : "fake error"; }

hipError_t hipMalloc(void **P, size_t N) {
  FAKE(hipMalloc);
  *P = allocate(N);
  return *P ? hipSuccess : hipErrorOutOfMemory;
}
hipError_t hipFree(void *P) {
  FAKE(hipFree);
  return release(P);
}
hipError_t hipHostMalloc(void **P, size_t N, unsigned int) {
  FAKE(hipHostMalloc);
  *P = allocate(N);
  return *P ? hipSuccess : hipErrorOutOfMemory;
}
hipError_t hipHostFree(void *P) {
  FAKE(hipHostFree);
  return release(P);
}
hipError_t hipHostRegister(void *, size_t, unsigned int) {
  FAKE(hipHostRegister);
  return hipSuccess;
}
hipError_t hipHostUnregister(void *) {
  FAKE(hipHostUnregister);
  return hipSuccess;
}
hipError_t hipMallocManaged(void **P, size_t N, unsigned int) {
  FAKE(hipMallocManaged);
  *P = allocate(N);
  return *P ? hipSuccess : hipErrorOutOfMemory;
}
hipError_t hipMemGetInfo(size_t *Free, size_t *Total) {
  *Total = size_t(64) << 30;
  *Free = *Total - fakeHipLiveBytes();
  return hipSuccess;
}
hipError_t hipMemcpy(void *D, const void *S, size_t N, hipMemcpyKind) {
  FAKE(hipMemcpy);
  if (hipError_t E = syncPoint())
    return E;
  std::memmove(D, S, N);
  return hipSuccess;
}
hipError_t hipMemcpyAsync(void *D, const void *S, size_t N, hipMemcpyKind, hipStream_t) {
  FAKE(hipMemcpyAsync);
  std::memmove(D, S, N);
  return hipSuccess;
}
template <typename T> void fill(hipDeviceptr_t D, T V, size_t N) {
  for (size_t I = 0; I < N; ++I)
    std::memcpy(static_cast<char *>(D) + I * sizeof(T), &V, sizeof(T));
}
hipError_t hipMemsetD8(hipDeviceptr_t D, unsigned char V, size_t N) {
  FAKE(hipMemsetD8);
  fill(D, V, N);
  return hipSuccess;
}
hipError_t hipMemsetD16(hipDeviceptr_t D, unsigned short V, size_t N) {
  FAKE(hipMemsetD16);
  fill(D, V, N);
  return hipSuccess;
}
hipError_t hipMemsetD32(hipDeviceptr_t D, int V, size_t N) {
  FAKE(hipMemsetD32);
  fill(D, V, N);
  return hipSuccess;
}
hipError_t hipMemsetD8Async(hipDeviceptr_t D, unsigned char V, size_t N, hipStream_t) {
  FAKE(hipMemsetD8Async);
  fill(D, V, N);
  return hipSuccess;
}
hipError_t hipMemsetD16Async(hipDeviceptr_t D, unsigned short V, size_t N, hipStream_t) {
  FAKE(hipMemsetD16Async);
  fill(D, V, N);
  return hipSuccess;
}
hipError_t hipMemsetD32Async(hipDeviceptr_t D, int V, size_t N, hipStream_t) {
  FAKE(hipMemsetD32Async);
  fill(D, V, N);
  return hipSuccess;
}

hipError_t hipModuleLoadData(hipModule_t *M, const void *Image) {
  FAKE(hipModuleLoadData);
  Elf64_Ehdr H;
  std::memcpy(&H, Image, sizeof H);
  if (std::memcmp(H.e_ident, ELFMAG, SELFMAG) != 0 || H.e_ident[EI_CLASS] != ELFCLASS64 || H.e_machine != EM_AMDGPU)
    return hipErrorInvalidImage;
  // The image's extent: its section headers come last in our code objects.
  size_t Size = std::max<size_t>(H.e_shoff + uint64_t(H.e_shnum) * H.e_shentsize, sizeof H);
  auto *Mod = new ihipModule_t;
  Mod->Image.assign(static_cast<const char *>(Image), Size);
  FakeHipCodeObject CO{H.e_machine, H.e_ident[EI_OSABI], H.e_ident[EI_ABIVERSION], H.e_flags, Size};
  {
    std::lock_guard<std::mutex> G(rec().Mu);
    rec().Modules.push_back(CO);
  }
  *M = Mod;
  return hipSuccess;
}
hipError_t hipModuleUnload(hipModule_t M) {
  FAKE(hipModuleUnload);
  for (auto &[N, G] : M->Globals)
    release(G.first);
  delete M;
  return hipSuccess;
}
hipError_t hipModuleGetFunction(hipFunction_t *F, hipModule_t M, const char *Name) {
  FAKE(hipModuleGetFunction);
  Symbol S, Kd;
  // A kernel is a function symbol beside its kernel descriptor (Name.kd).
  if (!findSymbol(M->Image, Name, S) || S.Type != STT_FUNC || !findSymbol(M->Image, std::string(Name) + ".kd", Kd))
    return hipErrorNotFound;
  auto &Slot = M->Functions[Name];
  if (!Slot)
    Slot.reset(new ihipModuleSymbol_t{Name});
  *F = Slot.get();
  return hipSuccess;
}
hipError_t hipModuleGetGlobal(hipDeviceptr_t *P, size_t *Bytes, hipModule_t M, const char *Name) {
  FAKE(hipModuleGetGlobal);
  auto It = M->Globals.find(Name);
  if (It == M->Globals.end()) {
    Symbol S;
    if (!findSymbol(M->Image, Name, S) || S.Type != STT_OBJECT)
      return hipErrorNotFound;
    void *Mem = allocate(S.Size);
    if (S.Bytes.size() == S.Size)
      std::memcpy(Mem, S.Bytes.data(), S.Size);
    else
      std::memset(Mem, 0, S.Size);
    It = M->Globals.emplace(Name, std::make_pair(Mem, size_t(S.Size))).first;
  }
  *P = It->second.first;
  *Bytes = It->second.second;
  return hipSuccess;
}
hipError_t hipModuleLaunchKernel(hipFunction_t F, unsigned int GX, unsigned int GY, unsigned int GZ, unsigned int BX,
                                 unsigned int BY, unsigned int BZ, unsigned int Shared, hipStream_t St, void **Params,
                                 void **Extra) {
  FAKE(hipModuleLaunchKernel);
  if (!F || Params)
    return hipErrorInvalidValue; // the bridge always passes one kernarg buffer
  FakeHipLaunch L{};
  std::snprintf(L.Kernel, sizeof L.Kernel, "%s", F->Name.c_str());
  L.Grid[0] = GX, L.Grid[1] = GY, L.Grid[2] = GZ;
  L.Block[0] = BX, L.Block[1] = BY, L.Block[2] = BZ;
  L.Shared = Shared;
  L.Stream = St;
  if (Extra) {
    const void *Buf = nullptr;
    size_t Size = 0;
    for (int I = 0; Extra[I] != HIP_LAUNCH_PARAM_END; I += 2) {
      if (Extra[I] == HIP_LAUNCH_PARAM_BUFFER_POINTER)
        Buf = Extra[I + 1];
      else if (Extra[I] == HIP_LAUNCH_PARAM_BUFFER_SIZE)
        Size = *static_cast<size_t *>(Extra[I + 1]);
      else
        return hipErrorInvalidValue;
    }
    if (!Buf || Size > sizeof L.Kernarg)
      return hipErrorInvalidValue;
    std::memcpy(L.Kernarg, Buf, Size);
    L.KernargSize = Size;
  }
  std::lock_guard<std::mutex> G(rec().Mu);
  if (rec().Launches.size() < 64)
    rec().Launches.push_back(L);
  return hipSuccess;
}
hipError_t hipFuncGetAttribute(int *V, hipFunction_attribute, hipFunction_t) {
  *V = 0;
  return hipSuccess;
}

hipError_t hipStreamCreateWithFlags(hipStream_t *S, unsigned int) {
  FAKE(hipStreamCreateWithFlags);
  std::lock_guard<std::mutex> G(rec().Mu);
  *S = new ihipStream_t{rec().NextStream++};
  return hipSuccess;
}
hipError_t hipStreamCreateWithPriority(hipStream_t *S, unsigned int, int) {
  FAKE(hipStreamCreateWithPriority);
  std::lock_guard<std::mutex> G(rec().Mu);
  *S = new ihipStream_t{rec().NextStream++};
  return hipSuccess;
}
hipError_t hipStreamDestroy(hipStream_t S) {
  FAKE(hipStreamDestroy);
  delete S;
  return hipSuccess;
}
hipError_t hipStreamSynchronize(hipStream_t) {
  FAKE(hipStreamSynchronize);
  return syncPoint();
}
hipError_t hipStreamQuery(hipStream_t) {
  FAKE(hipStreamQuery);
  return hipSuccess;
}
hipError_t hipStreamWaitEvent(hipStream_t, hipEvent_t, unsigned int) {
  FAKE(hipStreamWaitEvent);
  return hipSuccess;
}
hipError_t hipStreamAddCallback(hipStream_t S, hipStreamCallback_t Fn, void *User, unsigned int) {
  FAKE(hipStreamAddCallback);
  Fn(S, hipSuccess, User); // stream work is complete at once here
  return hipSuccess;
}
extern "C" hipError_t hipLaunchHostFunc(hipStream_t, void (*Fn)(void *), void *User) {
  FAKE(hipLaunchHostFunc);
  Fn(User);
  return hipSuccess;
}
hipError_t hipEventCreateWithFlags(hipEvent_t *E, unsigned) {
  FAKE(hipEventCreateWithFlags);
  *E = new ihipEvent_t{{}, false};
  return hipSuccess;
}
hipError_t hipEventRecord(hipEvent_t E, hipStream_t) {
  FAKE(hipEventRecord);
  E->When = std::chrono::steady_clock::now();
  E->Recorded = true;
  return hipSuccess;
}
hipError_t hipEventSynchronize(hipEvent_t) {
  FAKE(hipEventSynchronize);
  return syncPoint();
}
hipError_t hipEventQuery(hipEvent_t) {
  FAKE(hipEventQuery);
  return hipSuccess;
}
hipError_t hipEventElapsedTime(float *Ms, hipEvent_t A, hipEvent_t B) {
  FAKE(hipEventElapsedTime);
  if (!A->Recorded || !B->Recorded)
    return hipErrorInvalidHandle;
  *Ms = std::chrono::duration<float, std::milli>(B->When - A->When).count();
  return hipSuccess;
}
hipError_t hipEventDestroy(hipEvent_t E) {
  FAKE(hipEventDestroy);
  delete E;
  return hipSuccess;
}

// --- interprocess handles: one fake GPU, one address space; a handle holds the pointer ---
hipError_t hipIpcGetMemHandle(hipIpcMemHandle_t *H, void *P) {
  FAKE(hipIpcGetMemHandle);
  std::memset(H, 0, sizeof *H);
  std::memcpy(H->reserved, &P, sizeof P);
  return hipSuccess;
}
hipError_t hipIpcOpenMemHandle(void **P, hipIpcMemHandle_t H, unsigned int) {
  FAKE(hipIpcOpenMemHandle);
  std::memcpy(P, H.reserved, sizeof *P);
  return *P ? hipSuccess : hipErrorInvalidValue;
}
hipError_t hipIpcCloseMemHandle(void *) {
  FAKE(hipIpcCloseMemHandle);
  return hipSuccess;
}
hipError_t hipIpcGetEventHandle(hipIpcEventHandle_t *H, hipEvent_t E) {
  FAKE(hipIpcGetEventHandle);
  std::memset(H, 0, sizeof *H);
  std::memcpy(H->reserved, &E, sizeof E);
  return hipSuccess;
}
hipError_t hipIpcOpenEventHandle(hipEvent_t *E, hipIpcEventHandle_t) {
  FAKE(hipIpcOpenEventHandle);
  *E = new ihipEvent_t{{}, false}; // another process's event, as this process sees it
  return hipSuccess;
}

// --- virtual memory management: memfds mapped with mmap ---
struct FakePhysical {
  int Fd;
  size_t Size;
};
hipError_t hipMemGetAllocationGranularity(size_t *G, const hipMemAllocationProp *, hipMemAllocationGranularity_flags) {
  FAKE(hipMemGetAllocationGranularity);
  *G = 64 << 10; // not NVIDIA's 2 MiB: the driver must ask
  return hipSuccess;
}
hipError_t hipMemAddressReserve(void **P, size_t Size, size_t Align, void *, unsigned long long) {
  FAKE(hipMemAddressReserve);
  Align = std::max<size_t>(Align, 4096);
  void *Big = mmap(nullptr, Size + Align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (Big == MAP_FAILED)
    return hipErrorOutOfMemory;
  uintptr_t A = (reinterpret_cast<uintptr_t>(Big) + Align - 1) & ~uintptr_t(Align - 1);
  *P = reinterpret_cast<void *>(A); // the slack around it stays reserved (a test runtime)
  return hipSuccess;
}
hipError_t hipMemAddressFree(void *P, size_t Size) {
  FAKE(hipMemAddressFree);
  return munmap(P, Size) == 0 ? hipSuccess : hipErrorInvalidValue;
}
hipError_t hipMemCreate(hipMemGenericAllocationHandle_t *H, size_t Size, const hipMemAllocationProp *, unsigned long long) {
  FAKE(hipMemCreate);
  int Fd = memfd_create("fake-hip-vmm", MFD_CLOEXEC);
  if (Fd < 0 || ftruncate(Fd, static_cast<off_t>(Size)) != 0)
    return hipErrorOutOfMemory;
  *H = reinterpret_cast<hipMemGenericAllocationHandle_t>(new FakePhysical{Fd, Size});
  return hipSuccess;
}
hipError_t hipMemRelease(hipMemGenericAllocationHandle_t H) {
  FAKE(hipMemRelease);
  close(reinterpret_cast<FakePhysical *>(H)->Fd);
  delete reinterpret_cast<FakePhysical *>(H);
  return hipSuccess;
}
hipError_t hipMemMap(void *P, size_t Size, size_t Offset, hipMemGenericAllocationHandle_t H, unsigned long long) {
  FAKE(hipMemMap);
  void *R = mmap(P, Size, PROT_NONE, MAP_SHARED | MAP_FIXED, reinterpret_cast<FakePhysical *>(H)->Fd,
                 static_cast<off_t>(Offset));
  return R == MAP_FAILED ? hipErrorInvalidValue : hipSuccess;
}
hipError_t hipMemUnmap(void *P, size_t Size) {
  FAKE(hipMemUnmap);
  void *R = mmap(P, Size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  return R == MAP_FAILED ? hipErrorInvalidValue : hipSuccess;
}
hipError_t hipMemSetAccess(void *P, size_t Size, const hipMemAccessDesc *Desc, size_t Count) {
  FAKE(hipMemSetAccess);
  int Flags = 0;
  for (size_t I = 0; I < Count; ++I)
    Flags = Desc[I].flags;
  int Prot = (Flags & 1 ? PROT_READ : 0) | (Flags & 2 ? PROT_WRITE : 0);
  return mprotect(P, Size, Prot) == 0 ? hipSuccess : hipErrorInvalidValue;
}
hipError_t hipMemExportToShareableHandle(void *Out, hipMemGenericAllocationHandle_t H, hipMemAllocationHandleType,
                                         unsigned long long) {
  FAKE(hipMemExportToShareableHandle);
  *static_cast<int *>(Out) = dup(reinterpret_cast<FakePhysical *>(H)->Fd);
  return hipSuccess;
}
hipError_t hipMemImportFromShareableHandle(hipMemGenericAllocationHandle_t *H, void *Os, hipMemAllocationHandleType) {
  FAKE(hipMemImportFromShareableHandle);
  int Fd = dup(static_cast<int>(reinterpret_cast<intptr_t>(Os)));
  off_t Size = lseek(Fd, 0, SEEK_END);
  *H = reinterpret_cast<hipMemGenericAllocationHandle_t>(new FakePhysical{Fd, static_cast<size_t>(Size)});
  return hipSuccess;
}
