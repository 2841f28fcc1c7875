//===- Backend.h - the device the driver runs programs on ------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The driver keeps CUDA's objects (handles, contexts, the allocation
/// table, graphs) itself and asks a Backend for what a device does: memory,
/// copies, compiled modules, launches, streams and events. Two implement it:
/// the CPU device (CpuBackend.cpp: kernels JIT-compiled for the host and run
/// by the executor, work enqueued on the streams of cpu/Streams.h) and AMD
/// GPUs through HIP (HipBackend.cpp: AMDGPU code objects from our compiler,
/// work enqueued on HIP streams). cuInit chooses one (ZLUDA_BACKEND).
///
/// Threading: every method may be called from any thread.
#ifndef ZLUDA_DRIVER_BACKEND_H
#define ZLUDA_DRIVER_BACKEND_H

#include "common/Dim3.h"
#include "ptx/codegen/Lowering.h"
#include "zluda/cuda_abi.h"

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace zluda::driver {

struct Stream;
struct Event;

/// What the device says of itself: cuDeviceGetName, cuDeviceTotalMem and the
/// attributes that differ between devices (the rest are CUDA's for compute
/// capability 8.6, which PTX targets; see deviceAttribute).
struct DeviceProps {
  std::string Name;
  std::string Arch; ///< "host" or the gcnArchName ("gfx90a:sramecc+:xnack-")
  size_t TotalMem = 0;
  int Multiprocessors = 1;
  int ClockKhz = 2000000, MemoryClockKhz = 3200000, MemoryBusWidth = 128;
  int L2Bytes = 4 * 1024 * 1024;
  int SharedPerBlock = 48 * 1024;
  int SharedPerMultiprocessor = 100 * 1024;
  int SharedOptIn = 99 * 1024; ///< the most a kernel may ask for (cuFuncSetAttribute)
  int ThreadsPerMultiprocessor = 2048;
  int PciDomain = 0, PciBus = 0, PciDevice = 0;
  bool Integrated = true; ///< device memory is host memory
  bool ConcurrentManagedAccess = true;
  bool PageableMemoryAccess = true;
  bool Cooperative = true; ///< cuLaunchCooperativeKernel works
  bool Textures = true;    ///< texture objects can be created
  /// A texture handle is the device address of its ptx::TextureDesc (AMDGPU:
  /// the device runtime reads it); otherwise a key of the driver's table.
  bool TexturesInDeviceMemory = false;
};

/// One launch as the backend receives it: the geometry checked, the
/// parameter buffer laid out (CUDA's layout, which both targets use).
struct LaunchConfig {
  Dim3 Grid, Block;
  unsigned DynShared = 0;
  Stream *S = nullptr; ///< null: the default stream
  void *Params = nullptr;
  size_t ParamBytes = 0;
  bool Cooperative = false;
  /// Thread-block cluster dimensions (1, 1, 1: none); Explicit when the
  /// launch or the kernel asked for a cluster.
  Dim3 Cluster;
  bool ClusterExplicit = false;
  /// The context's sticky error: a backend that runs the kernel after the
  /// call returns (the CPU device's streams) records its fault there.
  std::atomic<CUresult> *Sticky = nullptr;
};

/// Physical memory of cuMemCreate or cuMemImportFromShareableHandle, made
/// by the backend; destroyed when its handle is released and nothing maps it.
struct PhysicalMemory {
  virtual ~PhysicalMemory() = default;
  size_t Size = 0;
};

/// The bytes of a CUipcMemHandle / CUipcEventHandle.
using IpcBytes = unsigned char[64];

/// A module compiled for the backend's device.
class ModuleCode {
public:
  virtual ~ModuleCode() = default;
  /// A kernel's description, or null when the module has none of that name.
  virtual const ptx::KernelInfo *kernel(std::string_view Name) const = 0;
  struct Variable {
    std::string Name;
    uintptr_t Addr = 0; ///< a device address
    size_t Size = 0;
    bool Texref = false; ///< a .texref/.surfref (holds an object handle)
  };
  virtual const std::vector<Variable> &variables() const = 0;
  /// Enqueues a launch of \p K on its stream. A failure to launch is
  /// returned; a fault of the kernel found during the call goes to \p Fault
  /// with \p Message, one found later to LaunchConfig::Sticky.
  virtual CUresult launch(const ptx::KernelInfo &K, const LaunchConfig &L, CUresult &Fault,
                          std::string &Message) = 0;
};

class Backend {
public:
  virtual ~Backend() = default;
  virtual const char *name() const = 0; ///< "cpu" or "hip"
  virtual const DeviceProps &props() const = 0;

  // Memory. Allocations are recorded by the driver; the backend makes them.
  virtual CUresult alloc(size_t Size, CUmemorytype Type, bool Managed, unsigned Flags, void *&Out) = 0;
  virtual void free(void *P, CUmemorytype Type, bool Managed) = 0;
  /// Frees \p P once \p S's earlier work is done (cuMemFreeAsync); by
  /// default after the device's work.
  virtual void freeAsync(void *P, CUmemorytype Type, bool Managed, Stream *) { free(P, Type, Managed); }
  virtual CUresult hostRegister(void *P, size_t Size, unsigned Flags) = 0;
  virtual CUresult hostUnregister(void *P) = 0;
  virtual CUresult memInfo(size_t &Free, size_t &Total) = 0;
  /// A copy between any two addresses (unified addressing). \p Async enqueues
  /// it on \p S; otherwise it is complete when the call returns.
  virtual CUresult copy(void *Dst, const void *Src, size_t N, Stream *S, bool Async) = 0;
  /// \p Count elements of \p ElemSize (1, 2, 4) bytes set to \p Value.
  virtual CUresult fill(void *Dst, uint32_t Value, unsigned ElemSize, size_t Count, Stream *S, bool Async) = 0;

  // Virtual memory management (cuMemAddressReserve, cuMemCreate, cuMemMap...).
  // The driver keeps reservations, handles and mappings and checks arguments;
  // a backend without these returns CUDA_ERROR_NOT_SUPPORTED.
  /// The mapping granularity; 0 when the backend has no virtual memory management.
  virtual size_t vmmGranularity() const { return 0; }
  /// \p Size bytes of address space (inaccessible until mapped) aligned to \p Align, at \p Hint if free.
  virtual CUresult addressReserve(size_t, size_t, uintptr_t, uintptr_t &) { return CUDA_ERROR_NOT_SUPPORTED; }
  virtual CUresult addressFree(uintptr_t, size_t) { return CUDA_ERROR_NOT_SUPPORTED; }
  /// \p Exportable: cuMemExportToShareableHandle may give it a POSIX file descriptor.
  virtual CUresult physicalCreate(size_t, bool /*Exportable*/, std::unique_ptr<PhysicalMemory> &) {
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  /// A new file descriptor for \p M, which the caller owns.
  virtual CUresult physicalExport(PhysicalMemory &, int &) { return CUDA_ERROR_NOT_SUPPORTED; }
  /// Physical memory from a file descriptor of physicalExport (of this or another process); \p Fd stays the caller's.
  virtual CUresult physicalImport(int, std::unique_ptr<PhysicalMemory> &) { return CUDA_ERROR_NOT_SUPPORTED; }
  /// Maps \p Size bytes of \p M from \p Offset at \p Ptr (reserved, unmapped), inaccessible until setAccess.
  virtual CUresult map(uintptr_t, size_t, size_t, PhysicalMemory &) { return CUDA_ERROR_NOT_SUPPORTED; }
  /// Gives a mapped range back to its reservation.
  virtual CUresult unmap(uintptr_t, size_t) { return CUDA_ERROR_NOT_SUPPORTED; }
  virtual CUresult setAccess(uintptr_t, size_t, bool /*Read*/, bool /*Write*/) { return CUDA_ERROR_NOT_SUPPORTED; }

  // Interprocess sharing (cuIpc*). A memory handle names an allocation of
  // alloc() (\p Base, \p Size as allocated); the opening process maps it.
  virtual CUresult ipcMemExport(void *, size_t, IpcBytes &) { return CUDA_ERROR_NOT_SUPPORTED; }
  virtual CUresult ipcMemOpen(const IpcBytes &, void *&, size_t &) { return CUDA_ERROR_NOT_SUPPORTED; }
  virtual CUresult ipcMemClose(void *, size_t) { return CUDA_ERROR_NOT_SUPPORTED; }
  /// Events created with CU_EVENT_INTERPROCESS (Event::Flags, seen by eventCreate).
  virtual CUresult ipcEventExport(Event &, IpcBytes &) { return CUDA_ERROR_NOT_SUPPORTED; }
  /// Fills \p E (its Flags set by the driver) from another process's handle.
  virtual CUresult ipcEventOpen(const IpcBytes &, Event &) { return CUDA_ERROR_NOT_SUPPORTED; }

  // Modules.
  /// Compiles a module's PTX. \p DumpBase, when set (ZLUDA_DUMP_DIR), is
  /// where the backend writes what it made of it (DumpBase + ".ll").
  /// \p OptLevel is CU_JIT_OPTIMIZATION_LEVEL (0-4; 4 is the default).
  virtual CUresult compile(const std::string &Ptx, const std::string &DumpBase, std::unique_ptr<ModuleCode> &Out,
                           std::string &Error, int OptLevel) = 0;

  // Streams and events: the driver's objects carry the backend's handles.
  virtual CUresult streamCreate(Stream &S) = 0;
  virtual CUresult streamDestroy(Stream &S) = 0;
  virtual CUresult streamSynchronize(Stream *S) = 0;
  virtual CUresult streamQuery(Stream *S) = 0;
  virtual CUresult streamWaitEvent(Stream *S, Event &E) = 0;
  /// \p Fn runs after the stream's earlier work (and before its later work).
  virtual CUresult hostFunc(Stream *S, void (*Fn)(void *), void *User) = 0;
  virtual CUresult eventCreate(Event &E) = 0;
  virtual CUresult eventDestroy(Event &E) = 0;
  virtual CUresult eventRecord(Event &E, Stream *S) = 0;
  virtual CUresult eventSynchronize(Event &E) = 0;
  virtual CUresult eventQuery(Event &E) = 0;
  /// Between two recorded events (the driver checks that they were).
  virtual CUresult eventElapsed(float &Ms, Event &Start, Event &End) = 0;
  /// Waits for all work of the device.
  virtual CUresult synchronize() = 0;
  /// Before a texture or surface object goes away: kernels enqueued before
  /// the destroy call may still sample it (NVIDIA's driver lets them; CUDA
  /// samples destroy their textures right after the launch). A GPU's runtime
  /// keeps the descriptor alive itself; the CPU device waits for its queues.
  virtual void retireDescriptor() {}
  /// After a texture or surface object went away: the CPU device's workers
  /// drop the descriptions they keep.
  virtual void descriptorRetired() {}
};

/// The backend cuInit chose (the CPU device before cuInit). Exported from
/// libcuda for our libcudart, like the driver's internal interface.
__attribute__((visibility("default"))) Backend &backend();
/// Installs \p B for the process (cuInit, once).
void setBackend(std::unique_ptr<Backend> B);

std::unique_ptr<Backend> makeCpuBackend();

} // namespace zluda::driver

#endif // ZLUDA_DRIVER_BACKEND_H
