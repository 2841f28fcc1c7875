//===- CpuBackend.cpp - the CPU device as the driver's backend --------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Device memory is host memory (256-byte aligned) and every address
/// space is unified, so copies in any direction are memmove. Kernels are
/// JIT-compiled for the host (cpu/Jit) and run by the executor. Every
/// operation goes through the stream queues of cpu/Streams.h: launches,
/// copies, fills, host functions and event records are enqueued and return;
/// synchronous calls enqueue on their stream and wait. Copies to or from
/// pageable memory (memory the driver did not allocate or register) follow
/// CUDA's rules: small host-to-device copies are staged and return at once,
/// the others wait for the stream and are done when the call returns.
#include "driver/Backend.h"
#include "driver/CpuShared.h"
#include "driver/Internal.h"

#include "common/Env.h"
#include "cpu/Jit.h"
#include "cpu/LowMemory.h"
#include "cpu/Memcheck.h"
#include "cpu/Streams.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>

namespace zluda::driver {
namespace {

CUresult fromLaunchError(cpu::LaunchError E) {
  switch (E) {
  case cpu::LaunchError::None:
    return CUDA_SUCCESS;
  case cpu::LaunchError::IllegalAddress:
    return CUDA_ERROR_ILLEGAL_ADDRESS;
  case cpu::LaunchError::Trap:
  case cpu::LaunchError::Deadlock:
    return CUDA_ERROR_LAUNCH_FAILED;
  case cpu::LaunchError::Assert:
    return CUDA_ERROR_ASSERT;
  case cpu::LaunchError::OutOfResources:
    return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  case cpu::LaunchError::IllegalInstruction:
    return CUDA_ERROR_ILLEGAL_INSTRUCTION;
  case cpu::LaunchError::MisalignedAddress:
    return CUDA_ERROR_MISALIGNED_ADDRESS;
  }
  return CUDA_ERROR_UNKNOWN;
}

/// How this thread waits for the device: the current context's CU_CTX_SCHED_* flag.
cpu::WaitMode waitMode() {
  switch (contextFlags(currentContext()) & CU_CTX_SCHED_MASK) {
  case CU_CTX_SCHED_SPIN:
    return cpu::WaitMode::Spin;
  case CU_CTX_SCHED_YIELD:
    return cpu::WaitMode::Yield;
  case CU_CTX_SCHED_BLOCKING_SYNC:
    return cpu::WaitMode::Block;
  default:
    return cpu::WaitMode::Auto;
  }
}

cpu::StreamQueue *queueOf(Stream *S) {
  return S && S->Native ? static_cast<cpu::StreamQueue *>(S->Native) : cpu::Streams::get().legacy();
}

/// An event's last record: where in which queue, and when it was reached.
struct CpuEvent {
  std::mutex Mu;
  cpu::StreamPoint At;
  uint64_t Generation = 0;
  std::chrono::steady_clock::time_point When;
  /// CU_EVENT_INTERPROCESS: the counters every process with the event shares
  /// (a page of memfd SharedFd); null otherwise.
  shared::EventState *Shared = nullptr;
  int SharedFd = -1;
  uint64_t SharedId = 0;
  ~CpuEvent() {
    if (Shared)
      munmap(Shared, 4096);
    if (SharedFd >= 0)
      close(SharedFd);
  }
  /// Whether the shared counters say the last record (at the time of the call) is complete.
  bool sharedDone() const { return Shared->Completed.load() >= Shared->Recorded.load(); }
};
/// Waits until \p S's counters reach \p Target (records of another process complete there).
void waitShared(const shared::EventState *S, uint64_t Target) {
  for (unsigned Spins = 0; S->Completed.load() < Target; ++Spins) {
    if (Spins < 64)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(Spins < 1024 ? 20 : 200));
  }
}
std::shared_ptr<CpuEvent> &eventOf(Event &E) { return *static_cast<std::shared_ptr<CpuEvent> *>(E.Native); }

std::string cpuModel() {
  std::ifstream In("/proc/cpuinfo");
  std::string Line;
  while (std::getline(In, Line))
    if (Line.rfind("model name", 0) == 0) {
      auto P = Line.find(':');
      if (P != std::string::npos)
        return Line.substr(P + 2);
    }
  return "host CPU";
}

/// What the host can give this process: physical memory, bounded by the
/// cgroup's limit and the address-space limit.
size_t hostMemory() {
  struct sysinfo Info;
  size_t Limit = sysinfo(&Info) == 0 ? size_t(Info.totalram) * Info.mem_unit : size_t(8) << 30;
  for (const char *Path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream In(Path);
    std::string V;
    if (In >> V && !V.empty() && std::isdigit(static_cast<unsigned char>(V[0])))
      Limit = std::min<size_t>(Limit, std::strtoull(V.c_str(), nullptr, 10));
  }
  struct rlimit R;
  if (getrlimit(RLIMIT_AS, &R) == 0 && R.rlim_cur != RLIM_INFINITY)
    Limit = std::min<size_t>(Limit, R.rlim_cur);
  return Limit;
}

/// The CPU device's memory: device memory is host memory that the program's
/// own host data shares, so the device offers half of what the host can give
/// (a program that mirrors all of it on the host still fits), or
/// ZLUDA_CPU_MEMORY_LIMIT (bytes, or with a K, M, G suffix), at most all.
size_t deviceMemory() {
  size_t Host = hostMemory();
  std::string V = env::get("ZLUDA_CPU_MEMORY_LIMIT");
  if (V.empty())
    return Host / 2;
  char *End = nullptr;
  double N = std::strtod(V.c_str(), &End);
  size_t Scale = 1;
  if (End && *End) {
    switch (std::toupper(static_cast<unsigned char>(*End))) {
    case 'K': Scale = size_t(1) << 10; break;
    case 'M': Scale = size_t(1) << 20; break;
    case 'G': Scale = size_t(1) << 30; break;
    case 'T': Scale = size_t(1) << 40; break;
    default: Scale = 0; break;
    }
  }
  if (!(N > 0) || !Scale) {
    ZLUDA_LOG_WARN("ZLUDA_CPU_MEMORY_LIMIT={} is not a size (e.g. 4G): ignored", V);
    return Host / 2;
  }
  return std::min<size_t>(Host, static_cast<size_t>(N * double(Scale)));
}

class CpuModuleCode final : public ModuleCode {
public:
  explicit CpuModuleCode(std::unique_ptr<cpu::CpuModule> M) : Mod(std::move(M)) {
    for (const cpu::CpuGlobal &G : Mod->globals()) {
      Vars.push_back({G.Info.Name, reinterpret_cast<uintptr_t>(G.Addr), G.Info.Size, G.Info.IsTexref});
      if (!G.Info.IsTexref)
        cpu::memcheck::track(G.Addr, G.Info.Size, "module variable '" + G.Info.Name + "'");
    }
  }
  ~CpuModuleCode() override {
    for (const cpu::CpuGlobal &G : Mod->globals())
      if (!G.Info.IsTexref)
        cpu::memcheck::untrack(G.Addr);
  }

  const ptx::KernelInfo *kernel(std::string_view Name) const override {
    const cpu::CpuKernel *K = Mod->kernel(Name);
    return K ? &K->Info : nullptr;
  }
  const std::vector<Variable> &variables() const override { return Vars; }

  /// Compiles the kernel now if needed (a compile error is the launch's
  /// error), then enqueues the grid with a copy of its parameters.
  CUresult launch(const ptx::KernelInfo &KI, const LaunchConfig &L, CUresult &, std::string &) override {
    const cpu::CpuKernel *K = Mod->kernel(KI.Name);
    if (!K)
      return CUDA_ERROR_INVALID_HANDLE;
    cpu::KernelFn Fn, BlockFn;
    if (std::string E = Mod->code(*K, Fn, BlockFn); !E.empty()) {
      ZLUDA_LOG_ERROR("kernel {} cannot be compiled: {}", KI.Name, E);
      return CUDA_ERROR_INVALID_PTX;
    }
    auto Params = std::make_shared<std::vector<uint8_t>>(std::max<size_t>(L.ParamBytes, 8), 0);
    if (L.Params && L.ParamBytes)
      std::memcpy(Params->data(), L.Params, L.ParamBytes);
    LaunchConfig Cfg = L;
    Cfg.Params = Params->data();
    cpu::Streams::get().enqueue(queueOf(L.S), [this, &KI, Cfg, Params] {
      // A context with a fault runs nothing more, as a GPU's.
      if (Cfg.Sticky && Cfg.Sticky->load() != CUDA_SUCCESS)
        return;
      CUresult Fault = CUDA_SUCCESS;
      std::string Message;
      CUresult R = launchAt(KI, Cfg, 0, Fault, Message);
      if (R != CUDA_SUCCESS && Fault == CUDA_SUCCESS) {
        Fault = CUDA_ERROR_LAUNCH_FAILED;
        Message = "the kernel could not be launched";
      }
      if (Fault != CUDA_SUCCESS) {
        ZLUDA_LOG_ERROR("kernel {} failed: {}", KI.Name, Message);
        CUresult Expected = CUDA_SUCCESS;
        if (Cfg.Sticky)
          Cfg.Sticky->compare_exchange_strong(Expected, Fault);
      }
    });
    return CUDA_SUCCESS;
  }

private:
  /// Runs a grid, then the grids its threads launched (dynamic parallelism),
  /// depth first: a grid is complete when its children are.
  CUresult launchAt(const ptx::KernelInfo &KI, const LaunchConfig &L, unsigned Depth, CUresult &Fault,
                    std::string &Message) {
    const cpu::CpuKernel *K = Mod->kernel(KI.Name);
    if (!K)
      return CUDA_ERROR_INVALID_HANDLE;
    cpu::LaunchParams LP;
    // A lazily loaded module compiles the kernel now, on its first launch.
    if (std::string E = Mod->code(*K, LP.Fn, LP.BlockFn, &LP.Regions); !E.empty()) {
      ZLUDA_LOG_ERROR("kernel {} cannot be compiled: {}", KI.Name, E);
      return CUDA_ERROR_INVALID_PTX;
    }
    LP.NeedsSwitching = KI.NeedsThreadSwitching;
    LP.Grid = L.Grid;
    LP.Block = L.Block;
    LP.StaticShared = KI.StaticSharedBytes;
    LP.DynShared = L.DynShared;
    LP.Params = L.Params;
    LP.Cooperative = L.Cooperative;
    LP.Cluster = L.Cluster;
    if (L.Cluster.count() > 1 && Mod->addressSize32())
      return notSupported("thread-block clusters in .address_size 32 modules");
    LP.ClusterExplicit = L.ClusterExplicit;
    LP.LowMemory = Mod->addressSize32();
    LP.Priority = L.S ? L.S->Priority : 0;
    std::vector<uint32_t> Workspace;
    if (L.Cooperative) {
      // Grid-wide barriers of cooperative groups find their counter through
      // %envreg1:%envreg2.
      Workspace.assign(16, 0);
      uint64_t W = reinterpret_cast<uint64_t>(Workspace.data());
      LP.EnvRegs[1] = static_cast<uint32_t>(W >> 32);
      LP.EnvRegs[2] = static_cast<uint32_t>(W);
      cpu::memcheck::track(Workspace.data(), Workspace.size() * sizeof(uint32_t), "grid workspace");
    }
    cpu::DeviceLaunchQueue Children;
    Children.Depth = Depth;
    Children.ParamBytes = [this](const std::string &Name) -> long {
      const cpu::CpuKernel *C = Mod->kernel(Name);
      return C ? static_cast<long>(C->Info.ParamBufferSize) : -1;
    };
    LP.DeviceLaunches = &Children;
    cpu::LaunchResult R = cpu::Executor::get().launch(LP);
    if (L.Cooperative)
      cpu::memcheck::untrack(Workspace.data());
    Fault = fromLaunchError(R.Err);
    Message = R.Message;
    if (Fault != CUDA_SUCCESS)
      return CUDA_SUCCESS;
    for (std::vector<cpu::DeviceLaunch *> *List : {&Children.Order, &Children.Tail})
      for (cpu::DeviceLaunch *D : *List) {
        const cpu::CpuKernel *C = Mod->kernel(D->Kernel);
        LaunchConfig CL;
        CL.Grid = D->Grid;
        CL.Block = D->Block;
        CL.DynShared = D->Shared;
        CL.Params = D->Params.get();
        CL.ParamBytes = D->ParamBytes;
        if (CUresult E = launchAt(C->Info, CL, Depth + 1, Fault, Message)) {
          ZLUDA_LOG_ERROR("device-side launch of {} failed: {}", D->Kernel, static_cast<int>(E));
          Fault = CUDA_ERROR_LAUNCH_FAILED;
          Message = "a device-side launch of " + D->Kernel + " could not run";
        }
        if (Fault != CUDA_SUCCESS)
          return CUDA_SUCCESS;
      }
    return CUDA_SUCCESS;
  }

  std::unique_ptr<cpu::CpuModule> Mod;
  std::vector<Variable> Vars;
};

class CpuBackend final : public Backend {
public:
  CpuBackend() {
    P.Name = "ZLUDA CPU device (" + cpuModel() + ")";
    P.Arch = "host";
    P.TotalMem = deviceMemory();
    P.Multiprocessors = static_cast<int>(std::max(1u, cpu::Executor::get().workers()));
    cpu::Executor::get().setTextureResolver(resolveTexture);
  }
  const char *name() const override { return "cpu"; }
  const DeviceProps &props() const override { return P; }

  /// Below 4 GiB while the region lasts, so `.address_size 32` kernels can
  /// be given any allocation (cpu/LowMemory.h); then the host heap. Device
  /// and managed memory count against the device's total: past it the
  /// allocation fails as on a GPU (instead of the host's OOM killer acting).
  CUresult alloc(size_t Size, CUmemorytype Type, bool Managed, unsigned, void *&Out) override {
    bool Counted = Type == CU_MEMORYTYPE_DEVICE || Managed;
    size_t Rounded = (Size + 255) / 256 * 256;
    // Device memory takes whole pages (cuIpcGetMemHandle may move them into a memfd in place).
    size_t Align = 256;
    if (Type == CU_MEMORYTYPE_DEVICE && !Managed) {
      Align = Page;
      Rounded = (Size + Page - 1) / Page * Page;
    }
    if (Counted && !reserve(Rounded, Size))
      return CUDA_ERROR_OUT_OF_MEMORY;
    Out = cpu::LowMemory::get().allocate(Rounded, Align);
    if (!Out)
      Out = std::aligned_alloc(Align, Rounded);
    if (!Out) {
      if (Counted)
        Used -= Rounded;
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
    std::lock_guard<std::mutex> G(SizesMu);
    if (Counted)
      Sizes[Out] = Rounded;
    Ranges[reinterpret_cast<uintptr_t>(Out)] = Size;
    cpu::memcheck::track(Out, Size, Managed                          ? "managed allocation"
                                    : Type == CU_MEMORYTYPE_DEVICE ? "device allocation"
                                                                   : "host allocation");
    return CUDA_SUCCESS;
  }
  /// As cudaFree: waits for the device's work first (a kernel still queued
  /// may use the memory).
  void free(void *Ptr, CUmemorytype, bool) override {
    if (!cpu::Streams::onRunner())
      cpu::Streams::get().waitAll(waitMode());
    {
      std::lock_guard<std::mutex> G(SizesMu);
      if (auto It = Sizes.find(Ptr); It != Sizes.end()) {
        Used -= It->second;
        Sizes.erase(It);
      }
      Ranges.erase(reinterpret_cast<uintptr_t>(Ptr));
      cpu::memcheck::untrack(Ptr);
      if (auto It = Exported.find(Ptr); It != Exported.end()) {
        // Private pages again before the allocator has them back; the other
        // processes keep their own mappings of the memfd.
        mmap(Ptr, It->second.Size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        close(It->second.Fd);
        Exported.erase(It);
      }
    }
    if (cpu::LowMemory::get().owns(Ptr))
      cpu::LowMemory::get().release(Ptr);
    else
      std::free(Ptr);
  }
  void freeAsync(void *Ptr, CUmemorytype Type, bool Managed, Stream *S) override {
    cpu::Streams::get().enqueue(queueOf(S), [this, Ptr, Type, Managed] { free(Ptr, Type, Managed); });
  }
  CUresult hostRegister(void *Ptr, size_t Size, unsigned) override {
    std::lock_guard<std::mutex> G(SizesMu);
    Ranges[reinterpret_cast<uintptr_t>(Ptr)] = Size;
    cpu::memcheck::track(Ptr, Size, "registered host range");
    return CUDA_SUCCESS;
  }
  CUresult hostUnregister(void *Ptr) override {
    std::lock_guard<std::mutex> G(SizesMu);
    Ranges.erase(reinterpret_cast<uintptr_t>(Ptr));
    cpu::memcheck::untrack(Ptr);
    return CUDA_SUCCESS;
  }
  // --- interprocess memory ---------------------------------------------------------
  CUresult ipcMemExport(void *Base, size_t Size, IpcBytes &Out) override {
    size_t Len = (Size + Page - 1) / Page * Page;
    if (reinterpret_cast<uintptr_t>(Base) % Page)
      return CUDA_ERROR_INVALID_VALUE; // not device memory of alloc()
    std::unique_lock<std::mutex> L(SizesMu);
    auto It = Exported.find(Base);
    if (It == Exported.end()) {
      L.unlock();
      // The pages move into a memfd at the same address: the device's work
      // on them completes first.
      synchronize();
      uint64_t Id;
      int Fd = shared::create("ipc", Len, Id);
      void *Tmp = Fd < 0 ? MAP_FAILED : mmap(nullptr, Len, PROT_READ | PROT_WRITE, MAP_SHARED, Fd, 0);
      if (Tmp == MAP_FAILED) {
        if (Fd >= 0)
          close(Fd);
        ZLUDA_LOG_WARN("cuIpcGetMemHandle: no shared memory ({})", std::strerror(errno));
        return CUDA_ERROR_OUT_OF_MEMORY;
      }
      std::memcpy(Tmp, Base, Len);
      munmap(Tmp, Len);
      if (mmap(Base, Len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, Fd, 0) == MAP_FAILED) {
        close(Fd);
        return CUDA_ERROR_MAP_FAILED;
      }
      L.lock();
      It = Exported.emplace(Base, SharedRange{Fd, Id, Len}).first;
    }
    shared::Handle H = shared::makeHandle(shared::MemoryHandle, It->second.Fd, It->second.Id, Len);
    std::memcpy(Out, &H, sizeof H);
    return CUDA_SUCCESS;
  }
  CUresult ipcMemOpen(const IpcBytes &In, void *&Base, size_t &Size) override {
    shared::Handle H;
    std::memcpy(&H, In, sizeof H);
    if (!shared::valid(H, shared::MemoryHandle) || H.Size == 0)
      return CUDA_ERROR_INVALID_VALUE;
    if (H.Pid == getpid())
      return CUDA_ERROR_INVALID_CONTEXT; // NVIDIA's driver: a handle is opened in other processes only
    int Fd = shared::open(H);
    if (Fd < 0)
      return CUDA_ERROR_INVALID_HANDLE; // the exporting process or its allocation is gone
    void *P = shared::fileSize(Fd) < H.Size ? MAP_FAILED
                                             : mmap(nullptr, H.Size, PROT_READ | PROT_WRITE, MAP_SHARED, Fd, 0);
    close(Fd); // the mapping keeps the memory
    if (P == MAP_FAILED)
      return CUDA_ERROR_MAP_FAILED;
    Base = P;
    Size = H.Size;
    std::lock_guard<std::mutex> G(SizesMu);
    Ranges[reinterpret_cast<uintptr_t>(P)] = Size;
    cpu::memcheck::track(P, Size, "interprocess mapping");
    return CUDA_SUCCESS;
  }
  CUresult ipcMemClose(void *Base, size_t Size) override {
    synchronize(); // kernels queued in this process may still use it
    {
      std::lock_guard<std::mutex> G(SizesMu);
      Ranges.erase(reinterpret_cast<uintptr_t>(Base));
      cpu::memcheck::untrack(Base);
    }
    munmap(Base, Size);
    return CUDA_SUCCESS;
  }

  // --- virtual memory management ----------------------------------------------------
  /// A cuMemCreate allocation: a memfd (its pages appear when touched).
  struct CpuPhysical : PhysicalMemory {
    int Fd = -1;
    uint64_t Id = 0;
    std::atomic<size_t> *Used = nullptr; ///< the device's count, when this allocation is in it
    ~CpuPhysical() override {
      if (Fd >= 0)
        close(Fd);
      if (Used)
        *Used -= Size;
    }
  };
  size_t vmmGranularity() const override { return size_t(2) << 20; } // NVIDIA's: 2 MiB
  CUresult addressReserve(size_t Size, size_t Align, uintptr_t Hint, uintptr_t &Out) override {
    Align = std::max<size_t>(Align, Page);
    void *P = MAP_FAILED;
    if (Hint) // at the hint when it is free and aligned, else anywhere
      P = mmap(reinterpret_cast<void *>(Hint), Size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (P != MAP_FAILED && (reinterpret_cast<uintptr_t>(P) != Hint || Hint % Align)) {
      munmap(P, Size);
      P = MAP_FAILED;
    }
    if (P == MAP_FAILED) {
      void *Big = mmap(nullptr, Size + Align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (Big == MAP_FAILED)
        return CUDA_ERROR_OUT_OF_MEMORY;
      uintptr_t B = reinterpret_cast<uintptr_t>(Big), A = (B + Align - 1) & ~uintptr_t(Align - 1);
      if (A > B)
        munmap(Big, A - B);
      if (B + Size + Align > A + Size)
        munmap(reinterpret_cast<void *>(A + Size), B + Size + Align - (A + Size));
      P = reinterpret_cast<void *>(A);
    }
    Out = reinterpret_cast<uintptr_t>(P);
    return CUDA_SUCCESS;
  }
  CUresult addressFree(uintptr_t P, size_t Size) override {
    return munmap(reinterpret_cast<void *>(P), Size) == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  }
  CUresult physicalCreate(size_t Size, bool, std::unique_ptr<PhysicalMemory> &Out) override {
    if (!reserve(Size, Size))
      return CUDA_ERROR_OUT_OF_MEMORY;
    auto M = std::make_unique<CpuPhysical>();
    M->Size = Size;
    M->Used = &Used;
    M->Fd = shared::create("vmm", Size, M->Id);
    if (M->Fd < 0) {
      ZLUDA_LOG_WARN("cuMemCreate: no memory file ({})", std::strerror(errno));
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
    Out = std::move(M);
    return CUDA_SUCCESS;
  }
  CUresult physicalExport(PhysicalMemory &M, int &Fd) override {
    Fd = fcntl(static_cast<CpuPhysical &>(M).Fd, F_DUPFD_CLOEXEC, 0);
    return Fd < 0 ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
  }
  CUresult physicalImport(int Fd, std::unique_ptr<PhysicalMemory> &Out) override {
    size_t Size = shared::fileSize(Fd);
    if (Size == 0)
      return CUDA_ERROR_INVALID_VALUE; // not a file of physicalExport
    auto M = std::make_unique<CpuPhysical>();
    M->Fd = fcntl(Fd, F_DUPFD_CLOEXEC, 0);
    if (M->Fd < 0)
      return CUDA_ERROR_INVALID_VALUE;
    M->Size = Size; // memory of the exporting process: not counted again here
    Out = std::move(M);
    return CUDA_SUCCESS;
  }
  CUresult map(uintptr_t Ptr, size_t Size, size_t Offset, PhysicalMemory &M) override {
    void *R = mmap(reinterpret_cast<void *>(Ptr), Size, PROT_NONE, MAP_SHARED | MAP_FIXED,
                   static_cast<CpuPhysical &>(M).Fd, static_cast<off_t>(Offset));
    if (R == MAP_FAILED)
      return CUDA_ERROR_OUT_OF_MEMORY;
    std::lock_guard<std::mutex> G(SizesMu);
    Ranges[Ptr] = Size;
    cpu::memcheck::track(reinterpret_cast<void *>(Ptr), Size, "mapped range (cuMemMap)");
    return CUDA_SUCCESS;
  }
  CUresult unmap(uintptr_t Ptr, size_t Size) override {
    synchronize(); // queued kernels may still use the range
    {
      std::lock_guard<std::mutex> G(SizesMu);
      Ranges.erase(Ptr);
      cpu::memcheck::untrack(reinterpret_cast<void *>(Ptr));
    }
    void *R = mmap(reinterpret_cast<void *>(Ptr), Size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
                   -1, 0);
    return R == MAP_FAILED ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
  }
  CUresult setAccess(uintptr_t Ptr, size_t Size, bool Read, bool Write) override {
    int Prot = (Read ? PROT_READ : 0) | (Write ? PROT_WRITE : 0);
    return mprotect(reinterpret_cast<void *>(Ptr), Size, Prot) == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  }

  CUresult memInfo(size_t &Free, size_t &Total) override {
    Total = P.TotalMem;
    Free = Total - std::min(Used.load(), Total);
    return CUDA_SUCCESS;
  }

  /// Copies follow CUDA's "API synchronization behavior": an asynchronous
  /// copy between memory the driver knows (device, pinned, managed,
  /// registered) is enqueued; from small pageable memory it is staged and
  /// enqueued; any other copy waits for its stream and is done at return.
  CUresult copy(void *Dst, const void *Src, size_t N, Stream *S, bool Async) override {
    cpu::Streams &Q = cpu::Streams::get();
    bool SrcKnown = known(Src), DstKnown = known(Dst);
    if (Async && SrcKnown && DstKnown) {
      Q.enqueue(queueOf(S), [Dst, Src, N] { std::memmove(Dst, Src, N); });
      return CUDA_SUCCESS;
    }
    if (Async && !SrcKnown && DstKnown && N <= StageLimit) {
      auto Staged = std::make_shared<std::vector<char>>(static_cast<const char *>(Src),
                                                        static_cast<const char *>(Src) + N);
      Q.enqueue(queueOf(S), [Dst, Staged] { std::memcpy(Dst, Staged->data(), Staged->size()); });
      return CUDA_SUCCESS;
    }
    return runAndWait(S, [Dst, Src, N] { std::memmove(Dst, Src, N); });
  }
  CUresult fill(void *Dst, uint32_t Value, unsigned ElemSize, size_t Count, Stream *S, bool Async) override {
    auto Fill = [Dst, Value, ElemSize, Count] {
      char *D = static_cast<char *>(Dst);
      if (ElemSize == 1) {
        std::memset(D, static_cast<int>(Value & 0xff), Count);
      } else if (ElemSize == 2) {
        uint16_t V = static_cast<uint16_t>(Value);
        for (size_t I = 0; I < Count; ++I)
          std::memcpy(D + 2 * I, &V, 2);
      } else {
        for (size_t I = 0; I < Count; ++I)
          std::memcpy(D + 4 * I, &Value, 4);
      }
    };
    if (Async && known(Dst)) {
      cpu::Streams::get().enqueue(queueOf(S), Fill);
      return CUDA_SUCCESS;
    }
    return runAndWait(S, Fill);
  }

  CUresult compile(const std::string &Ptx, const std::string &DumpBase, std::unique_ptr<ModuleCode> &Out,
                   std::string &Error, int OptLevel) override {
    cpu::CompileOptions Opts;
    // CU_JIT_OPTIMIZATION_LEVEL: 0 compiles without optimization (fast, as
    // ptxas -O0), 1 lightly, 2-4 fully; part of the compile cache's key.
    Opts.OptLevel = static_cast<unsigned>(std::clamp(OptLevel, 0, 2));
    // CUDA_MODULE_LOADING=LAZY (the default, as in CUDA 12.2+): each kernel is
    // compiled when first launched; EAGER compiles the module on all cores.
    Opts.Lazy = env::get("CUDA_MODULE_LOADING") != "EAGER";
    Opts.Jobs = static_cast<unsigned>(std::strtoul(env::get("ZLUDA_COMPILE_THREADS").c_str(), nullptr, 10));
    // Tiered compilation (docs/ENVIRONMENT.md): by default (ZLUDA_TIERED=auto)
    // kernels whose unit has at least ZLUDA_TIER_ABOVE_KIB (1024) KiB of
    // bitcode, whose -O2 compile takes seconds, first run -O0 code and are
    // optimized in the background after ZLUDA_TIER_UP_LAUNCHES launches (1);
    // 1: every kernel; 0: off.
    std::string Tiered = env::get("ZLUDA_TIERED");
    Opts.Tiered = Tiered != "0";
    if (Tiered != "1") {
      Opts.TierAboveBytes = 1024u * 1024u;
      if (std::string K = env::get("ZLUDA_TIER_ABOVE_KIB"); !K.empty())
        Opts.TierAboveBytes = static_cast<size_t>(std::strtoull(K.c_str(), nullptr, 10)) * 1024u;
    }
    if (std::string N = env::get("ZLUDA_TIER_UP_LAUNCHES"); !N.empty())
      Opts.TierUpLaunches = static_cast<unsigned>(std::max(1ul, std::strtoul(N.c_str(), nullptr, 10)));
    if (!DumpBase.empty())
      Opts.DumpLLVM = DumpBase + ".ll";
    cpu::CompileResult R = cpu::compilePtx(Ptx, Opts);
    if (!R.Mod) {
      Error = R.Error;
      return CUDA_ERROR_INVALID_PTX;
    }
    Out = std::make_unique<CpuModuleCode>(std::move(R.Mod));
    return CUDA_SUCCESS;
  }

  CUresult streamCreate(Stream &S) override {
    S.Native = cpu::Streams::get().create(!(S.Flags & CU_STREAM_NON_BLOCKING), S.Priority);
    return CUDA_SUCCESS;
  }
  CUresult streamDestroy(Stream &S) override {
    cpu::Streams::get().destroy(static_cast<cpu::StreamQueue *>(S.Native));
    S.Native = nullptr;
    return CUDA_SUCCESS;
  }
  CUresult streamSynchronize(Stream *S) override {
    cpu::Streams &Q = cpu::Streams::get();
    Q.wait(Q.tail(queueOf(S)), waitMode());
    return CUDA_SUCCESS;
  }
  CUresult streamQuery(Stream *S) override {
    cpu::Streams &Q = cpu::Streams::get();
    return Q.done(Q.tail(queueOf(S))) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
  }
  CUresult streamWaitEvent(Stream *S, Event &E) override {
    std::shared_ptr<CpuEvent> Ev = eventOf(E);
    if (Ev->Shared) { // the record may be another process's: the stream waits for the counters
      uint64_t Target = Ev->Shared->Recorded.load();
      cpu::Streams::get().enqueue(queueOf(S), [Ev, Target] { waitShared(Ev->Shared, Target); });
      return CUDA_SUCCESS;
    }
    cpu::Streams::get().enqueue(queueOf(S), [] {}, {pointOf(E)});
    return CUDA_SUCCESS;
  }
  CUresult hostFunc(Stream *S, void (*Fn)(void *), void *User) override {
    cpu::Streams::get().enqueue(queueOf(S), [Fn, User] { Fn(User); });
    return CUDA_SUCCESS;
  }
  CUresult eventCreate(Event &E) override {
    auto Ev = std::make_shared<CpuEvent>();
    if (E.Flags & CU_EVENT_INTERPROCESS) {
      Ev->SharedFd = shared::create("event", 4096, Ev->SharedId);
      void *P = Ev->SharedFd < 0 ? MAP_FAILED : mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, Ev->SharedFd, 0);
      if (P == MAP_FAILED) {
        ZLUDA_LOG_WARN("interprocess event: no shared memory ({})", std::strerror(errno));
        return CUDA_ERROR_OUT_OF_MEMORY;
      }
      Ev->Shared = new (P) shared::EventState;
    }
    E.Native = new std::shared_ptr<CpuEvent>(std::move(Ev));
    return CUDA_SUCCESS;
  }
  CUresult ipcEventExport(Event &E, IpcBytes &Out) override {
    std::shared_ptr<CpuEvent> &Ev = eventOf(E);
    if (!Ev->Shared)
      return CUDA_ERROR_INVALID_HANDLE;
    shared::Handle H = shared::makeHandle(shared::EventHandle, Ev->SharedFd, Ev->SharedId, 4096);
    std::memcpy(Out, &H, sizeof H);
    return CUDA_SUCCESS;
  }
  CUresult ipcEventOpen(const IpcBytes &In, Event &E) override {
    shared::Handle H;
    std::memcpy(&H, In, sizeof H);
    if (!shared::valid(H, shared::EventHandle))
      return CUDA_ERROR_INVALID_VALUE;
    if (H.Pid == getpid())
      return CUDA_ERROR_INVALID_CONTEXT; // as NVIDIA's driver: a handle is for other processes
    auto Ev = std::make_shared<CpuEvent>();
    Ev->SharedFd = shared::open(H);
    void *P = Ev->SharedFd < 0 ? MAP_FAILED : mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, Ev->SharedFd, 0);
    if (P == MAP_FAILED)
      return CUDA_ERROR_MAP_FAILED;
    Ev->Shared = static_cast<shared::EventState *>(P);
    Ev->SharedId = H.Id;
    E.Native = new std::shared_ptr<CpuEvent>(std::move(Ev));
    return CUDA_SUCCESS;
  }
  CUresult eventDestroy(Event &E) override {
    delete static_cast<std::shared_ptr<CpuEvent> *>(E.Native); // a pending record keeps its own reference
    E.Native = nullptr;
    return CUDA_SUCCESS;
  }
  CUresult eventRecord(Event &E, Stream *S) override {
    std::shared_ptr<CpuEvent> Ev = eventOf(E);
    std::lock_guard<std::mutex> G(Ev->Mu);
    uint64_t Gen = ++Ev->Generation;
    uint64_t Seq = Ev->Shared ? Ev->Shared->Recorded.fetch_add(1) + 1 : 0;
    // The time is taken when the stream reaches the record.
    Ev->At = cpu::Streams::get().enqueue(queueOf(S), [Ev, Gen, Seq] {
      auto Now = std::chrono::steady_clock::now();
      if (Seq) {
        uint64_t C = Ev->Shared->Completed.load();
        while (C < Seq && !Ev->Shared->Completed.compare_exchange_weak(C, Seq)) {
        }
      }
      std::lock_guard<std::mutex> G(Ev->Mu);
      if (Ev->Generation == Gen)
        Ev->When = Now;
    });
    return CUDA_SUCCESS;
  }
  CUresult eventSynchronize(Event &E) override {
    if (shared::EventState *Sh = eventOf(E)->Shared) {
      waitShared(Sh, Sh->Recorded.load());
      return CUDA_SUCCESS;
    }
    cpu::StreamPoint At = pointOf(E);
    cpu::Streams::get().wait(At, waitMode());
    return CUDA_SUCCESS;
  }
  CUresult eventQuery(Event &E) override {
    if (eventOf(E)->Shared)
      return eventOf(E)->sharedDone() ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
    return cpu::Streams::get().done(pointOf(E)) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
  }
  CUresult eventElapsed(float &Ms, Event &A, Event &B) override {
    cpu::Streams &Q = cpu::Streams::get();
    if (!Q.done(pointOf(A)) || !Q.done(pointOf(B)))
      return CUDA_ERROR_NOT_READY;
    std::shared_ptr<CpuEvent> &X = eventOf(A), &Y = eventOf(B);
    if (X == Y) {
      Ms = 0;
      return CUDA_SUCCESS;
    }
    std::scoped_lock G(X->Mu, Y->Mu);
    Ms = std::chrono::duration<float, std::milli>(Y->When - X->When).count();
    return CUDA_SUCCESS;
  }
  CUresult synchronize() override {
    cpu::Streams::get().waitAll(waitMode());
    return CUDA_SUCCESS;
  }
  void retireDescriptor() override {
    if (!cpu::Streams::onRunner()) // a host function of a stream cannot wait for its own stream
      cpu::Streams::get().waitAll(waitMode());
  }
  void descriptorRetired() override { cpu::texturesChanged(); }

private:
  /// Pageable host-to-device copies up to this size are staged (copied at
  /// the call) so that they can be asynchronous.
  static constexpr size_t StageLimit = 1 << 20;

  /// Counts \p Bytes (\p Asked by the program) against the device's memory;
  /// false, logged, when they do not fit (allocations fail as on a GPU).
  bool reserve(size_t Bytes, size_t Asked) {
    size_t Now = Used.load();
    do {
      if (Bytes > P.TotalMem - std::min(Now, P.TotalMem)) {
        ZLUDA_LOG_WARN("out of device memory: {} bytes asked, {} of {} in use (ZLUDA_CPU_MEMORY_LIMIT)", Asked, Now,
                       P.TotalMem);
        return false;
      }
    } while (!Used.compare_exchange_weak(Now, Now + Bytes));
    return true;
  }

  /// Whether \p Ptr is in memory the driver allocated or registered.
  bool known(const void *Ptr) {
    uintptr_t A = reinterpret_cast<uintptr_t>(Ptr);
    std::lock_guard<std::mutex> G(SizesMu);
    auto It = Ranges.upper_bound(A);
    if (It == Ranges.begin())
      return false;
    --It;
    return A < It->first + std::max<size_t>(It->second, 1);
  }
  /// Enqueues \p Fn on \p S and waits for it: a synchronous operation.
  CUresult runAndWait(Stream *S, std::function<void()> Fn) {
    cpu::Streams &Q = cpu::Streams::get();
    if (cpu::Streams::onRunner()) { // from a host function: its stream is busy running it
      Fn();
      return CUDA_SUCCESS;
    }
    Q.wait(Q.enqueue(queueOf(S), std::move(Fn)), waitMode());
    return CUDA_SUCCESS;
  }
  static cpu::StreamPoint pointOf(Event &E) {
    std::shared_ptr<CpuEvent> &Ev = eventOf(E);
    std::lock_guard<std::mutex> G(Ev->Mu);
    return Ev->At;
  }

  DeviceProps P;
  std::atomic<size_t> Used{0}; ///< device and managed bytes allocated
  std::mutex SizesMu;
  std::unordered_map<void *, size_t> Sizes;
  std::map<uintptr_t, size_t> Ranges; ///< every allocation, registration and mapping: base -> size
  struct SharedRange {
    int Fd;
    uint64_t Id;
    size_t Size;
  };
  std::unordered_map<void *, SharedRange> Exported; ///< allocations cuIpcGetMemHandle moved into a memfd
  static constexpr size_t Page = 4096;
};

} // namespace

std::unique_ptr<Backend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

} // namespace zluda::driver
