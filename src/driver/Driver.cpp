//===- Driver.cpp - init, devices, contexts, errors, export tables ---------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Device 0 is the backend's device: the CPU device, or the first AMD
/// GPU HIP sees. Its attributes are CUDA's for compute capability 8.6 where
/// devices agree (warps of 32, 1024 threads per block) and the backend's
/// (DeviceProps) where they differ; the CPU device has one multiprocessor
/// per hardware thread.
#include "driver/HipBackend.h"
#include "driver/Integrity.h"
#include "driver/Internal.h"
#include "hip_bridge/Hip.h"

#include "common/Env.h"

#include <cstdarg>
#include <cstring>
#include <ctime>
#include <pthread.h>
#include <set>
#include <thread>
#include <unistd.h>

namespace zluda::driver {

State &state() {
  static State *S = new State; // never destroyed: cudart calls in from exit handlers
  return *S;
}

bool isLive(const void *P, Kind K) {
  if (!P)
    return false;
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  auto It = S.Live.find(const_cast<void *>(P));
  return It != S.Live.end() && It->second == K;
}
void addLive(void *P, Kind K) {
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  S.Live[P] = K;
}
void removeLive(void *P) {
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  S.Live.erase(P);
}

CUresult notSupported(const char *Name) {
  static std::mutex Mu;
  static std::set<std::string> Seen;
  // The trace shows every call; the warning comes once per entry point.
  ZLUDA_LOG_TRACE("{}(...) -> {} (not supported)", Name, static_cast<int>(CUDA_ERROR_NOT_SUPPORTED));
  std::lock_guard<std::mutex> G(Mu);
  if (Seen.insert(Name).second)
    ZLUDA_LOG_WARN("{} is not supported by ZLUDA yet (returns CUDA_ERROR_NOT_SUPPORTED)", Name);
  return CUDA_ERROR_NOT_SUPPORTED;
}

namespace {

thread_local std::vector<Context *> CtxStack;

} // namespace

Context *currentContext() { return CtxStack.empty() ? nullptr : CtxStack.back(); }

std::vector<Context *> &contextStackRef() { return CtxStack; }

void setCurrentContext(Context *C) {
  if (CtxStack.empty())
    CtxStack.push_back(C);
  else
    CtxStack.back() = C;
}

Context *primaryContext() {
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  if (!S.PrimaryCtx) {
    S.PrimaryCtx = new Context;
    S.PrimaryCtx->Primary = true;
    S.Live[S.PrimaryCtx] = Kind::Context;
  }
  return S.PrimaryCtx;
}

namespace {

/// Set in a child forked after cuInit: as with NVIDIA's driver, the device
/// belongs to the parent and every call of the child fails with
/// CUDA_ERROR_NOT_INITIALIZED (cuInit included).
std::atomic<bool> ForkedChild{false};

void onForkChild() {
  // The child has one thread: the state lock may have been held by another
  // thread of the parent, so it is not taken here.
  if (state().Initialized)
    ForkedChild = true;
}

[[maybe_unused]] const bool ForkHandler = [] {
  pthread_atfork(nullptr, nullptr, onForkChild);
  return true;
}();

} // namespace

CUresult requireInit() {
  if (ForkedChild.load(std::memory_order_relaxed))
    return CUDA_ERROR_NOT_INITIALIZED;
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  return S.Initialized ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult requireContext(Context *&Out) {
  if (CUresult R = requireInit())
    return R;
  Out = currentContext();
  if (!Out || !isLive(Out, Kind::Context))
    return CUDA_ERROR_INVALID_CONTEXT;
  return Out->Sticky.load();
}

void deviceUuid(CUuuid &Out) {
  // Stable per machine: derived from the host name and CPU model.
  char Host[256] = {};
  gethostname(Host, sizeof Host - 1);
  const DeviceProps &P = backend().props();
  std::string Seed = std::string(Host) + "|" + P.Name + "|" + P.Arch + "|" + std::to_string(P.PciBus);
  auto H = md2(reinterpret_cast<const uint8_t *>(Seed.data()), Seed.size());
  std::memcpy(Out.bytes, H.data(), 16);
}

CUresult deviceAttribute(int Attr, CUdevice Dev, int &V) {
  if (Dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  const DeviceProps &P = backend().props();
  int Sm = P.Multiprocessors;
  switch (Attr) {
  case 1: V = 1024; break;                 // max threads per block
  case 2: V = 1024; break;                 // max block dim x
  case 3: V = 1024; break;
  case 4: V = 64; break;
  case 5: V = 2147483647; break;           // max grid dim x
  case 6: V = 65535; break;
  case 7: V = 65535; break;
  case 8: V = P.SharedPerBlock; break;     // shared memory per block
  case 9: V = 64 * 1024; break;            // constant memory
  case 10: V = 32; break;                  // warp size
  case 11: V = 2147483647; break;          // max pitch
  case 12: V = 65536; break;               // registers per block
  case 13: V = P.ClockKhz; break;          // clock rate (kHz)
  case 14: V = 512; break;                 // texture alignment
  case 15: V = 1; break;                   // gpu overlap
  case 16: V = Sm; break;                  // multiprocessors
  case 17: V = 0; break;                   // kernel exec timeout
  case 18: V = P.Integrated; break;        // integrated: device memory is host memory
  case 19: V = 1; break;                   // can map host memory
  case 20: V = 0; break;                   // compute mode default
  case 21: V = 131072; break;
  case 22: case 23: V = 65536; break;
  case 24: case 25: case 26: V = 16384; break;
  case 27: case 28: V = 32768; break;
  case 29: V = 2048; break;
  case 30: V = 512; break;                 // surface alignment
  case 31: V = 1; break;                   // concurrent kernels
  case 32: V = 0; break;                   // ECC
  case 33: V = P.PciBus; break;            // PCI bus
  case 34: V = P.PciDevice; break;         // PCI device
  case 35: V = 0; break;                   // TCC
  case 36: V = P.MemoryClockKhz; break;    // memory clock (kHz)
  case 37: V = P.MemoryBusWidth; break;    // bus width
  case 38: V = P.L2Bytes; break;           // L2 size
  case 39: V = P.ThreadsPerMultiprocessor; break; // threads per multiprocessor
  case 40: V = 2; break;                   // async engines
  case 41: V = 1; break;                   // unified addressing
  case 42: V = 32768; break;
  case 43: V = 2048; break;
  case 44: V = 0; break;
  case 45: case 46: V = 32768; break;
  case 47: case 48: V = 8192; break;
  case 49: V = 32768; break;
  case 50: V = P.PciDomain; break;         // PCI domain
  case 51: V = 32; break;                  // texture pitch alignment
  case 75: V = ComputeMajor; break;
  case 76: V = ComputeMinor; break;
  case 78: V = 1; break;                   // stream priorities
  case 79: case 80: V = 1; break;
  case 81: V = P.SharedPerMultiprocessor; break; // shared memory per multiprocessor
  case 82: V = 65536; break;
  case 83: V = 1; break;                   // managed memory
  case 84: V = 0; break;
  case 85: V = 0; break;
  case 86: V = P.Integrated; break;        // host native atomics
  case 87: V = 2; break;
  case 88: V = P.PageableMemoryAccess; break; // pageable memory access
  case 89: V = P.ConcurrentManagedAccess; break; // concurrent managed access
  case 90: V = 0; break;
  case 91: V = 1; break;
  case 95: V = P.Cooperative; break;       // cooperative launch
  case 96: V = 0; break;
  case 97: V = P.SharedOptIn; break;       // opt-in shared memory per block
  case 99: V = 1; break;                   // host register supported
  case 100: V = 1; break;
  case 101: V = 1; break;
  case 102: V = backend().vmmGranularity() != 0; break; // virtual memory management
  case 103: V = backend().vmmGranularity() != 0; break; // POSIX file descriptors for cuMemExportToShareableHandle
  case 106: V = 32; break;                 // blocks per multiprocessor
  case 108: V = maxPersistingL2Bytes(P.L2Bytes); break; // max persisting L2: a hint the device takes
  case 109: V = MaxAccessPolicyWindowBytes; break;          // max access policy window
  case 111: V = 0; break;                  // reserved shared memory per block
  case 115: V = 1; break;                  // memory pools
  case 124: V = 0; break;
  case 125: V = 1; break;                  // IPC events
  default:
    if (Attr <= 0 || Attr > 160)
      return CUDA_ERROR_INVALID_VALUE;
    V = 0; // features the CPU device does not have
    break;
  }
  return CUDA_SUCCESS;
}

// --- export tables (cuGetExportTable) --------------------------------------------

namespace {

CUresult CUDAAPI_ok() { return CUDA_SUCCESS; }
void logSink(const char *, int, const char *Fmt, va_list Args) {
  char Buf[1024];
  std::vsnprintf(Buf, sizeof Buf, Fmt, Args);
  ZLUDA_LOG_DEBUG("cudart: {}", Buf);
}
CUresult rtModuleFromFatbin(CUmodule *Out, const void *Wrapper);
CUresult rtModuleFromFatbinEx1(CUmodule *Out, const void *Wrapper, void *, void *, size_t) {
  return rtModuleFromFatbin(Out, Wrapper);
}
CUresult rtModuleFromFatbinEx2(const void *Fatbin, CUmodule *Out, void *, void *, unsigned) {
  return rtModuleFromFatbin(Out, Fatbin);
}
CUresult rtPrimaryContext(CUcontext *Out, CUdevice Dev) {
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  if (Dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *Out = reinterpret_cast<CUcontext>(primaryContext());
  return CUDA_SUCCESS;
}

uint64_t ToolsBuf1[128];
uint32_t ToolsBuf2[64];
void toolsBuffer1(void **Ptr, size_t *Size) {
  *Ptr = ToolsBuf1;
  *Size = sizeof ToolsBuf1;
}
void toolsBuffer2(void **Ptr, size_t *Size) {
  *Ptr = ToolsBuf2;
  *Size = sizeof ToolsBuf2;
}

Context *ctxOrCurrent(CUcontext C) {
  Context *X = C ? handle<Context>(C, Kind::Context) : currentContext();
  return X;
}
CUresult clsPut(CUcontext C, void *Key, void *Value, void (*Dtor)(CUcontext, void *, void *)) {
  Context *X = ctxOrCurrent(C);
  if (!X)
    return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard<std::mutex> G(X->Mu);
  X->Storage[Key] = Context::Slot{Value, Dtor};
  return CUDA_SUCCESS;
}
CUresult clsDelete(CUcontext C, void *Key) {
  Context *X = ctxOrCurrent(C);
  if (!X)
    return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard<std::mutex> G(X->Mu);
  X->Storage.erase(Key);
  return CUDA_SUCCESS;
}
CUresult clsGet(void **Value, CUcontext C, void *Key) {
  if (!Value)
    return CUDA_ERROR_INVALID_VALUE;
  Context *X = ctxOrCurrent(C);
  if (!X)
    return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard<std::mutex> G(X->Mu);
  auto It = X->Storage.find(Key);
  if (It == X->Storage.end())
    return CUDA_ERROR_INVALID_HANDLE;
  *Value = It->second.Value;
  return CUDA_SUCCESS;
}
CUresult ctxUnwrap(CUcontext, unsigned *Wrapped, CUcontext *) {
  if (Wrapped)
    *Wrapped = 0;
  return CUDA_SUCCESS;
}
CUresult integrityCheck(uint32_t Rt, uint64_t Time, uint8_t *Out);

struct Tables {
  void *Log[2];
  void *Rt[13];
  void *Tools[7];
  void *ToolsTls[4];
  void *Cls[4];
  void *CtxWrap[4];
  void *Integrity[3];
};

Tables &tables() {
  static Tables T = [] {
    Tables X{};
    X.Log[0] = reinterpret_cast<void *>(sizeof X.Log);
    X.Log[1] = reinterpret_cast<void *>(&logSink);
    X.Rt[0] = reinterpret_cast<void *>(sizeof X.Rt);
    for (int I = 1; I < 13; ++I)
      X.Rt[I] = reinterpret_cast<void *>(&CUDAAPI_ok);
    X.Rt[1] = reinterpret_cast<void *>(&rtModuleFromFatbin);
    X.Rt[2] = reinterpret_cast<void *>(&rtPrimaryContext);
    X.Rt[6] = reinterpret_cast<void *>(&rtModuleFromFatbinEx1);
    X.Rt[8] = reinterpret_cast<void *>(&rtModuleFromFatbinEx2);
    X.Tools[0] = reinterpret_cast<void *>(sizeof X.Tools);
    for (int I = 1; I < 7; ++I)
      X.Tools[I] = reinterpret_cast<void *>(&CUDAAPI_ok);
    X.Tools[2] = reinterpret_cast<void *>(&toolsBuffer1);
    X.Tools[6] = reinterpret_cast<void *>(&toolsBuffer2);
    // Only the size slot is read at start; cudaMallocAsync later calls slot
    // [2] (a tools callback): every slot is a no-op that reports success.
    X.ToolsTls[0] = reinterpret_cast<void *>(sizeof X.ToolsTls);
    for (int I = 1; I < 4; ++I)
      X.ToolsTls[I] = reinterpret_cast<void *>(&CUDAAPI_ok);
    X.Cls[0] = reinterpret_cast<void *>(&clsPut);
    X.Cls[1] = reinterpret_cast<void *>(&clsDelete);
    X.Cls[2] = reinterpret_cast<void *>(&clsGet);
    X.Cls[3] = nullptr;
    X.CtxWrap[0] = reinterpret_cast<void *>(sizeof X.CtxWrap);
    X.CtxWrap[1] = reinterpret_cast<void *>(&CUDAAPI_ok);
    X.CtxWrap[2] = reinterpret_cast<void *>(&ctxUnwrap);
    X.CtxWrap[3] = reinterpret_cast<void *>(&CUDAAPI_ok);
    X.Integrity[0] = reinterpret_cast<void *>(sizeof X.Integrity);
    X.Integrity[1] = reinterpret_cast<void *>(&integrityCheck);
    X.Integrity[2] = reinterpret_cast<void *>(&CUDAAPI_ok);
    return X;
  }();
  return T;
}

CUresult integrityCheck(uint32_t Rt, uint64_t Time, uint8_t *Out) {
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  IntegrityInput In;
  In.DriverVersion = DriverVersion;
  In.RuntimeVersion = Rt;
  In.Pid = static_cast<uint32_t>(getpid());
  In.ThreadId = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(reinterpret_cast<void *>(pthread_self())));
  In.Table6bd5 = reinterpret_cast<uint64_t>(tables().Rt);
  In.TableD408 = reinterpret_cast<uint64_t>(tables().Integrity);
  In.CheckFn = reinterpret_cast<uint64_t>(&integrityCheck);
  In.UnixTime = Time;
  // Per device: its UUID and PCI location, as cuDeviceGetUuid and
  // attributes 50, 33 and 34 report them.
  IntegrityDevice D{};
  CUuuid U;
  deviceUuid(U);
  std::memcpy(D.Uuid, U.bytes, 16);
  const DeviceProps &P = backend().props();
  D.PciDomain = static_cast<uint32_t>(P.PciDomain);
  D.PciBus = static_cast<uint32_t>(P.PciBus);
  D.PciDevice = static_cast<uint32_t>(P.PciDevice);
  In.Devices.push_back(D);
  auto R = integrityResult(In);
  std::memcpy(Out, R.data(), 16);
  return CUDA_SUCCESS;
}

struct TableId {
  uint8_t Uuid[16];
  void **Table;
};

} // namespace

CUresult moduleFromFatbinForRuntime(CUmodule *Out, const void *Wrapper);
namespace {
CUresult rtModuleFromFatbin(CUmodule *Out, const void *Wrapper) { return moduleFromFatbinForRuntime(Out, Wrapper); }
} // namespace

CUresult getExportTable(const void **Out, const CUuuid *Id) {
  if (!Out || !Id)
    return CUDA_ERROR_INVALID_VALUE;
  Tables &T = tables();
  const TableId Known[] = {
      {{0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e, 0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d, 0xd9}, T.Log},
      {{0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9}, T.Rt},
      {{0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66}, T.Tools},
      {{0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc}, T.ToolsTls},
      {{0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93}, T.Cls},
      {{0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e}, T.CtxWrap},
      {{0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2}, T.Integrity},
  };
  for (const TableId &K : Known)
    if (std::memcmp(K.Uuid, Id->bytes, 16) == 0) {
      *Out = K.Table;
      return CUDA_SUCCESS;
    }
  char Hex[33];
  for (int I = 0; I < 16; ++I)
    std::snprintf(Hex + 2 * I, 3, "%02x", static_cast<uint8_t>(Id->bytes[I]));
  ZLUDA_LOG_INFO("cuGetExportTable: unknown table {}", Hex);
  *Out = nullptr;
  return CUDA_ERROR_NOT_SUPPORTED;
}

} // namespace zluda::driver

using namespace zluda::driver;

// --- exports: errors, init, version, devices, contexts ---------------------------

ZLUDA_API(cuGetErrorName, (CUresult E, const char **Str), (E, Str)) {
  if (!Str)
    return CUDA_ERROR_INVALID_VALUE;
  switch (E) {
#define CU_ERROR(Name, Value, Description)                                                                             \
  case Name:                                                                                                           \
    *Str = #Name;                                                                                                      \
    return CUDA_SUCCESS;
#include "zluda/api/errors.def"
  }
  *Str = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

ZLUDA_API(cuGetErrorString, (CUresult E, const char **Str), (E, Str)) {
  if (!Str)
    return CUDA_ERROR_INVALID_VALUE;
  switch (E) {
#define CU_ERROR(Name, Value, Description)                                                                             \
  case Name:                                                                                                           \
    *Str = Description;                                                                                                \
    return CUDA_SUCCESS;
#include "zluda/api/errors.def"
  }
  *Str = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

namespace {
std::mutex BackendMu;
// The backends live until the process ends, never destroyed by exit
// handlers: a stream's runner thread may still run work the program queued
// without waiting for it (a cudaFreeAsync before returning from main), and
// it calls into the backend (a freed backend there corrupted the heap).
std::unique_ptr<Backend> &Installed = *new std::unique_ptr<Backend>;
std::vector<std::unique_ptr<Backend>> &Retired = *new std::vector<std::unique_ptr<Backend>>;
std::atomic<Backend *> Current{nullptr};

/// ZLUDA_BACKEND: cpu, hip or auto (the default). `hip` and `auto` run on the
/// first AMD GPU HIP sees when there is one; without one `auto` uses the CPU
/// device (saying why at info level) and `hip` fails cuInit with
/// CUDA_ERROR_NO_DEVICE.
CUresult chooseBackend(std::unique_ptr<Backend> &Out) {
  std::string B = zluda::env::get("ZLUDA_BACKEND");
  if (B == "cpu") {
    Out = makeCpuBackend();
    return CUDA_SUCCESS;
  }
  if (B != "hip" && B != "auto") {
    ZLUDA_LOG_ERROR("ZLUDA_BACKEND={}: expected cpu, hip or auto", B);
    return CUDA_ERROR_INVALID_VALUE;
  }
  std::vector<zluda::hip::DeviceInfo> Gpus;
  std::string Why;
  // Without the amdgpu kernel driver's /dev/kfd no HIP runtime finds a GPU:
  // saying so takes a stat() where loading and initializing libamdhip64
  // takes ~75 ms of every program's start. A runtime named explicitly
  // (ZLUDA_HIP_LIBRARY) is always asked.
  CUresult R = CUDA_ERROR_NO_DEVICE;
  if (access("/dev/kfd", F_OK) != 0 && zluda::env::get("ZLUDA_HIP_LIBRARY").empty())
    Why = "no /dev/kfd: the amdgpu kernel driver is not loaded";
  else
    R = zluda::hip::enumerateDevices(zluda::hip::Library::get(), Gpus, Why);
  if (R == CUDA_SUCCESS) {
    std::string List;
    for (const zluda::hip::DeviceInfo &D : Gpus)
      List += (List.empty() ? "" : ", ") + D.Name + " (" + D.GcnArchName + ")";
    Out = makeHipBackend(zluda::hip::Library::get(), Gpus.front(), Why);
    if (Out) {
      ZLUDA_LOG_INFO("AMD GPUs: {}; running on the first{}", List,
                     Gpus.size() > 1 ? " (choose another with HIP_VISIBLE_DEVICES)" : "");
      return CUDA_SUCCESS;
    }
    Why = Gpus.front().Name + " cannot be used: " + Why;
    R = CUDA_ERROR_NO_DEVICE;
  }
  if (B == "hip") {
    ZLUDA_LOG_ERROR("ZLUDA_BACKEND=hip: no AMD GPU ({})", Why);
    return R;
  }
  ZLUDA_LOG_INFO("no AMD GPU ({}): using the CPU device", Why);
  Out = makeCpuBackend();
  return CUDA_SUCCESS;
}
} // namespace

Backend &zluda::driver::backend() {
  // Every copy and launch asks: no lock once cuInit has installed one.
  if (Backend *B = Current.load(std::memory_order_acquire))
    return *B;
  std::lock_guard<std::mutex> G(BackendMu);
  if (!Installed) // only before cuInit (nothing allocated yet): the CPU device
    Installed = makeCpuBackend();
  return *Installed;
}

/// The backend's name ("cpu", "hip") for the math libraries, which do not
/// include Backend.h (it brings the compiler's LLVM headers).
__attribute__((visibility("default"))) const char *zludaBackendName() { return zluda::driver::backend().name(); }
/// The backend's own stream under \p S (a hipStream_t on the HIP backend;
/// null for the null stream), for libraries that hand work to ROCm's.
__attribute__((visibility("default"))) void *zludaNativeStream(CUstream S) {
  zluda::driver::Stream *St = zluda::driver::streamOf(S);
  return St ? St->Native : nullptr;
}

void zluda::driver::setBackend(std::unique_ptr<Backend> B) {
  std::lock_guard<std::mutex> G(BackendMu);
  // The pre-cuInit CPU device, if one was made, stays alive: a caller may
  // still hold it.
  if (Installed)
    Retired.push_back(std::move(Installed));
  Installed = std::move(B);
  Current.store(Installed.get(), std::memory_order_release);
}

CUresult zluda::driver::initialize() {
  if (ForkedChild.load())
    return CUDA_ERROR_NOT_INITIALIZED;
  ZLUDA_GUARD({
    State &S = state();
    std::lock_guard<std::mutex> G(S.Mu);
    if (!S.Initialized) {
      std::unique_ptr<Backend> B;
      if (CUresult R = chooseBackend(B))
        return R;
      setBackend(std::move(B));
      const DeviceProps &P = backend().props();
      S.Initialized = true;
      ZLUDA_LOG_INFO("cuInit: {} with {} multiprocessors ({} backend)", P.Name, P.Multiprocessors, backend().name());
    }
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuInit, (unsigned Flags), (Flags)) {
  if (Flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  return initialize();
}


ZLUDA_API(cuDriverGetVersion, (int *V), (V)) {
  if (!V)
    return CUDA_ERROR_INVALID_VALUE;
  *V = DriverVersion;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuGetExportTable, (const void **Out, const CUuuid *Id), (Out, Id)) {
  ZLUDA_GUARD({ return getExportTable(Out, Id); });
}

ZLUDA_API(cuDeviceGetCount, (int *Count), (Count)) {
  if (!Count)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = requireInit())
    return R;
  *Count = 1;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuDeviceGet, (CUdevice *Dev, int Ordinal), (Dev, Ordinal)) {
  if (!Dev)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = requireInit())
    return R;
  if (Ordinal != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *Dev = 0;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuDeviceGetName, (char *Name, int Len, CUdevice Dev), (Name, Len, Dev)) {
  if (!Name || Len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = requireInit())
    return R;
  if (Dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(Name, Len, "%s", backend().props().Name.c_str());
  return CUDA_SUCCESS;
}

ZLUDA_API(cuDeviceTotalMem_v2, (size_t *Bytes, CUdevice Dev), (Bytes, Dev)) {
  if (!Bytes)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = requireInit())
    return R;
  if (Dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *Bytes = backend().props().TotalMem;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuDeviceGetAttribute, (int *V, int Attr, CUdevice Dev), (V, Attr, Dev)) {
  if (!V)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = requireInit())
    return R;
  return deviceAttribute(Attr, Dev, *V);
}

ZLUDA_API(cuDeviceGetUuid, (CUuuid *U, CUdevice Dev), (U, Dev)) {
  if (!U)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = requireInit())
    return R;
  if (Dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  deviceUuid(*U);
  return CUDA_SUCCESS;
}

ZLUDA_API(cuDeviceGetUuid_v2, (CUuuid *U, CUdevice Dev), (U, Dev)) { return cuDeviceGetUuid(U, Dev); }

ZLUDA_API(cuDeviceGetLuid, (char *Luid, unsigned *Mask, CUdevice Dev), (Luid, Mask, Dev)) { return notSupported("cuDeviceGetLuid"); }

ZLUDA_API(cuDeviceGetPCIBusId, (char *Out, int Len, CUdevice Dev), (Out, Len, Dev)) {
  if (!Out || Len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (Dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  const DeviceProps &P = backend().props();
  std::snprintf(Out, Len, "%04x:%02x:%02x.0", P.PciDomain, P.PciBus, P.PciDevice);
  return CUDA_SUCCESS;
}

ZLUDA_API(cuDeviceGetByPCIBusId, (CUdevice *Dev, const char *Id), (Dev, Id)) {
  if (!Dev || !Id)
    return CUDA_ERROR_INVALID_VALUE;
  const DeviceProps &P = backend().props();
  unsigned Domain = 0, Bus = 0, Device = 0, Fn = 0;
  // "domain:bus:device.function" or "bus:device.function", in hex.
  bool Ok = std::sscanf(Id, "%x:%x:%x.%x", &Domain, &Bus, &Device, &Fn) == 4;
  if (!Ok) {
    Domain = 0;
    Ok = std::sscanf(Id, "%x:%x.%x", &Bus, &Device, &Fn) == 3;
  }
  if (!Ok || int(Domain) != P.PciDomain || int(Bus) != P.PciBus || int(Device) != P.PciDevice)
    return CUDA_ERROR_INVALID_DEVICE;
  *Dev = 0;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuDeviceComputeCapability, (int *Major, int *Minor, CUdevice Dev), (Major, Minor, Dev)) {
  if (!Major || !Minor)
    return CUDA_ERROR_INVALID_VALUE;
  if (Dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *Major = ComputeMajor;
  *Minor = ComputeMinor;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuDeviceGetP2PAttribute, (int *V, int Arg1, CUdevice Src, CUdevice Dst), (V, Arg1, Src, Dst)) {
  if (!V)
    return CUDA_ERROR_INVALID_VALUE;
  if (Src != 0 || Dst != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *V = 0;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuDeviceCanAccessPeer, (int *Can, CUdevice Dev, CUdevice Peer), (Can, Dev, Peer)) {
  if (!Can)
    return CUDA_ERROR_INVALID_VALUE;
  if (Dev != 0 || Peer != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *Can = 0;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuDevicePrimaryCtxRetain, (CUcontext *Out, CUdevice Dev), (Out, Dev)) {
  ZLUDA_GUARD({
    if (!Out)
      return CUDA_ERROR_INVALID_VALUE;
    if (CUresult R = requireInit())
      return R;
    if (Dev != 0)
      return CUDA_ERROR_INVALID_DEVICE;
    Context *C = primaryContext();
    {
      std::lock_guard<std::mutex> G(state().Mu);
      state().PrimaryRefs++;
    }
    *Out = reinterpret_cast<CUcontext>(C);
    return CUDA_SUCCESS;
  });
}

ZLUDA_API(cuDevicePrimaryCtxRelease_v2, (CUdevice Dev), (Dev)) {
  if (Dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard<std::mutex> G(state().Mu);
  if (state().PrimaryRefs > 0)
    state().PrimaryRefs--;
  return CUDA_SUCCESS;
}
ZLUDA_API(cuDevicePrimaryCtxRelease, (CUdevice Dev), (Dev)) { return cuDevicePrimaryCtxRelease_v2(Dev); }

ZLUDA_API(cuDevicePrimaryCtxGetState, (CUdevice Dev, unsigned *Flags, int *Active), (Dev, Flags, Active)) {
  if (!Flags || !Active)
    return CUDA_ERROR_INVALID_VALUE;
  if (Dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard<std::mutex> G(state().Mu);
  *Flags = state().PrimaryFlags;
  *Active = state().PrimaryRefs > 0;
  return CUDA_SUCCESS;
}

unsigned zluda::driver::contextFlags(Context *C) {
  if (!C)
    return 0;
  return C->Primary ? state().PrimaryFlags.load() : C->Flags;
}

ZLUDA_API(cuDevicePrimaryCtxSetFlags_v2, (CUdevice Dev, unsigned Flags), (Dev, Flags)) {
  if (Dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard<std::mutex> G(state().Mu);
  state().PrimaryFlags = Flags;
  return CUDA_SUCCESS;
}
ZLUDA_API(cuDevicePrimaryCtxSetFlags, (CUdevice Dev, unsigned Flags), (Dev, Flags)) {
  return cuDevicePrimaryCtxSetFlags_v2(Dev, Flags);
}

ZLUDA_API(cuDevicePrimaryCtxReset_v2, (CUdevice Dev), (Dev)) {
  ZLUDA_GUARD({
    if (Dev != 0)
      return CUDA_ERROR_INVALID_DEVICE;
    Context *C = primaryContext();
    std::map<void *, Context::Slot> Storage;
    {
      std::lock_guard<std::mutex> G(C->Mu);
      Storage.swap(C->Storage);
    }
    // The runtime's context-local data is torn down on reset.
    for (auto &[Key, Slot] : Storage)
      if (Slot.Dtor)
        Slot.Dtor(reinterpret_cast<CUcontext>(C), Key, Slot.Value);
    releaseContextObjects(C);
    C->Sticky = CUDA_SUCCESS;
    std::lock_guard<std::mutex> G(state().Mu);
    state().PrimaryRefs = 0;
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuDevicePrimaryCtxReset, (CUdevice Dev), (Dev)) { return cuDevicePrimaryCtxReset_v2(Dev); }

ZLUDA_API(cuCtxGetCurrent, (CUcontext *Out), (Out)) {
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = requireInit())
    return R;
  *Out = reinterpret_cast<CUcontext>(currentContext());
  return CUDA_SUCCESS;
}

ZLUDA_API(cuCtxSetCurrent, (CUcontext C), (C)) {
  if (CUresult R = requireInit())
    return R;
  if (C && !isLive(C, Kind::Context))
    return CUDA_ERROR_INVALID_CONTEXT;
  setCurrentContext(reinterpret_cast<Context *>(C));
  return CUDA_SUCCESS;
}

ZLUDA_API(cuCtxPushCurrent_v2, (CUcontext C), (C)) {
  if (CUresult R = requireInit())
    return R;
  if (!isLive(C, Kind::Context))
    return CUDA_ERROR_INVALID_CONTEXT;
  contextStackRef().push_back(reinterpret_cast<Context *>(C));
  return CUDA_SUCCESS;
}

ZLUDA_API(cuCtxPopCurrent_v2, (CUcontext *Out), (Out)) {
  if (CUresult R = requireInit())
    return R;
  auto &S = contextStackRef();
  if (S.empty() || !S.back())
    return CUDA_ERROR_INVALID_CONTEXT;
  if (Out)
    *Out = reinterpret_cast<CUcontext>(S.back());
  S.pop_back();
  return CUDA_SUCCESS;
}

ZLUDA_API(cuCtxCreate_v2, (CUcontext *Out, unsigned Flags, CUdevice Dev), (Out, Flags, Dev)) {
  ZLUDA_GUARD({
    if (!Out)
      return CUDA_ERROR_INVALID_VALUE;
    if (CUresult R = requireInit())
      return R;
    if (Dev != 0)
      return CUDA_ERROR_INVALID_DEVICE;
    auto *C = new Context;
    C->Flags = Flags;
    addLive(C, Kind::Context);
      contextStackRef().push_back(C);
    *Out = reinterpret_cast<CUcontext>(C);
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuCtxCreate_v4, (CUcontext *Out, void *Params, unsigned Flags, CUdevice Dev), (Out, Params, Flags, Dev)) {
  return cuCtxCreate_v2(Out, Flags, Dev);
}

ZLUDA_API(cuCtxDestroy_v2, (CUcontext C), (C)) {
  ZLUDA_GUARD({
    Context *X = handle<Context>(C, Kind::Context);
    if (!X || X->Primary)
      return CUDA_ERROR_INVALID_CONTEXT;
    releaseContextObjects(X);
    removeLive(X);
      auto &S = contextStackRef();
    for (auto &E : S)
      if (E == X)
        E = nullptr;
    while (!S.empty() && !S.back())
      S.pop_back();
    // Kept allocated (other threads may still have it current; a stale
    // handle must stay detectable), in a list so that it is not a leak.
    X->Destroyed = true;
    {
      static std::mutex Mu;
      static auto *Graveyard = new std::vector<Context *>;
      std::lock_guard<std::mutex> G(Mu);
      Graveyard->push_back(X);
    }
    return CUDA_SUCCESS;
  });
}

ZLUDA_API(cuCtxGetDevice, (CUdevice *Dev), (Dev)) {
  if (!Dev)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C;
  CUresult R = requireContext(C);
  if (R == CUDA_ERROR_INVALID_CONTEXT || R == CUDA_ERROR_NOT_INITIALIZED)
    return R;
  *Dev = C->Device;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuCtxGetDevice_v2, (CUdevice *Dev, CUcontext Ctx), (Dev, Ctx)) {
  if (!Dev)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = requireInit())
    return R;
  Context *C = Ctx ? handle<Context>(Ctx, Kind::Context) : currentContext();
  if (!C)
    return CUDA_ERROR_INVALID_CONTEXT;
  *Dev = C->Device;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuCtxGetFlags, (unsigned *Flags), (Flags)) {
  if (!Flags)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C = currentContext();
  if (!C)
    return CUDA_ERROR_INVALID_CONTEXT;
  *Flags = C->Primary ? state().PrimaryFlags.load() : C->Flags;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuCtxGetApiVersion, (CUcontext Ctx, unsigned *V), (Ctx, V)) {
  if (!V)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C = Ctx ? handle<Context>(Ctx, Kind::Context) : currentContext();
  if (!C)
    return CUDA_ERROR_INVALID_CONTEXT;
  *V = 3020;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuCtxGetId, (CUcontext Ctx, unsigned long long *Id), (Ctx, Id)) {
  if (!Id)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C = Ctx ? handle<Context>(Ctx, Kind::Context) : currentContext();
  if (!C)
    return CUDA_ERROR_INVALID_CONTEXT;
  *Id = reinterpret_cast<uintptr_t>(C);
  return CUDA_SUCCESS;
}

ZLUDA_API(cuCtxSynchronize, (), ()) {
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  return synchronize(C);
}

ZLUDA_API(cuCtxSynchronize_v2, (CUcontext Ctx), (Ctx)) {
  if (CUresult R = requireInit())
    return R;
  Context *C = Ctx ? handle<Context>(Ctx, Kind::Context) : currentContext();
  if (!C)
    return CUDA_ERROR_INVALID_CONTEXT;
  return synchronize(C);
}

ZLUDA_API(cuCtxGetLimit, (size_t *V, CUlimit L), (V, L)) {
  if (!V || L < 0 || L > 6)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C = currentContext();
  if (!C)
    return CUDA_ERROR_INVALID_CONTEXT;
  *V = C->Limits[L];
  return CUDA_SUCCESS;
}

ZLUDA_API(cuCtxSetLimit, (CUlimit L, size_t V), (L, V)) {
  if (L < 0 || L > 6)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C = currentContext();
  if (!C)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (L == CU_LIMIT_PERSISTING_L2_CACHE_SIZE) // at most the device's persisting maximum, as NVIDIA's rounds
    V = std::min<size_t>(V, maxPersistingL2Bytes(backend().props().L2Bytes));
  C->Limits[L] = V;
  return CUDA_SUCCESS;
}

/// Persisting lines are a hint the device takes (the CPU device's caches and
/// AMD's have no persisting set-aside): nothing to reset.
ZLUDA_API(cuCtxResetPersistingL2Cache, (), ()) {
  Context *C;
  return requireContext(C);
}

ZLUDA_API(cuCtxGetStreamPriorityRange, (int *Least, int *Greatest), (Least, Greatest)) {
  if (Least)
    *Least = 0;
  if (Greatest)
    *Greatest = -5;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuCtxGetCacheConfig, (int *Cfg), (Cfg)) {
  if (!Cfg)
    return CUDA_ERROR_INVALID_VALUE;
  *Cfg = 0;
  return CUDA_SUCCESS;
}
ZLUDA_API(cuCtxSetCacheConfig, (int Arg0), (Arg0)) { return CUDA_SUCCESS; }
ZLUDA_API(cuCtxGetSharedMemConfig, (int *Cfg), (Cfg)) {
  if (!Cfg)
    return CUDA_ERROR_INVALID_VALUE;
  *Cfg = 1;
  return CUDA_SUCCESS;
}
ZLUDA_API(cuCtxSetSharedMemConfig, (int Arg0), (Arg0)) { return CUDA_SUCCESS; }

ZLUDA_API(cuModuleGetLoadingMode, (CUmoduleLoadingMode *Mode), (Mode)) {
  if (!Mode)
    return CUDA_ERROR_INVALID_VALUE;
  *Mode = zluda::env::get("CUDA_MODULE_LOADING") == "EAGER" ? CU_MODULE_EAGER_LOADING : CU_MODULE_LAZY_LOADING;
  return CUDA_SUCCESS;
}

ZLUDA_API(cuFlushGPUDirectRDMAWrites, (int Arg0, int Arg1), (Arg0, Arg1)) { return CUDA_SUCCESS; }

// --- cuGetProcAddress -------------------------------------------------------------

namespace zluda::driver {
void *lookupProc(const char *Name, int Version, unsigned long long Flags, bool &VersionTooLow);
}

ZLUDA_API(cuGetProcAddress_v2, (const char *Symbol, void **Fn, int Version, unsigned long long Flags, int *Status), (Symbol, Fn, Version, Flags, Status)) {
  if (!Symbol || !Fn)
    return CUDA_ERROR_INVALID_VALUE;
  bool TooLow;
  void *P = lookupProc(Symbol, Version, Flags, TooLow);
  *Fn = P;
  if (Status)
    *Status = P ? 0 : TooLow ? 2 : 1; // SUCCESS, VERSION_NOT_SUFFICIENT, SYMBOL_NOT_FOUND
  if (!P)
    ZLUDA_LOG_DEBUG("cuGetProcAddress({}, {}, {}): not found", Symbol, Version, Flags);
  return P ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

ZLUDA_API(cuGetProcAddress, (const char *Symbol, void **Fn, int Version, unsigned long long Flags), (Symbol, Fn, Version, Flags)) {
  return cuGetProcAddress_v2(Symbol, Fn, Version, Flags, nullptr);
}

// --- profiler control: there is no profiler to start; the calls succeed ---------

ZLUDA_API(cuProfilerInitialize, (const char *Config, const char *Output, int Mode), (Config, Output, Mode)) {
  if (CUresult R = requireInit())
    return R;
  ZLUDA_LOG_INFO("cuProfilerInitialize: no profiler under ZLUDA (config {}, output {}, mode {})",
                 Config ? Config : "-", Output ? Output : "-", Mode);
  return CUDA_SUCCESS;
}
ZLUDA_API(cuProfilerStart, (), ()) {
  if (CUresult R = requireInit())
    return R;
  ZLUDA_LOG_INFO("cuProfilerStart: no profiler under ZLUDA");
  return CUDA_SUCCESS;
}
ZLUDA_API(cuProfilerStop, (), ()) {
  if (CUresult R = requireInit())
    return R;
  ZLUDA_LOG_INFO("cuProfilerStop: no profiler under ZLUDA");
  return CUDA_SUCCESS;
}
