//===- Internal.h - the driver layer's internal C++ interface --------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Objects behind the CUDA handles, the process-wide driver state, and
/// the operations the exports (and libcudart) are built from. Exports are
/// thin: they validate, call in here and convert the result.
///
/// Locking: State::Mu guards the object registry, allocations and textures;
/// each Context has its own mutex for its local storage. No lock is held
/// while a kernel runs.
#ifndef ZLUDA_DRIVER_INTERNAL_H
#define ZLUDA_DRIVER_INTERNAL_H

#include "common/Log.h"
#include "driver/Backend.h"
#include "driver/Exports.h"
#include "ptx/codegen/TextureSampling.h"
#include "zluda/activity.h"
#include "zluda/cuda_abi.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#define ZLUDA_EXPORT extern "C" __attribute__((visibility("default")))
/// The driver's internal C++ interface, exported from libcuda.so.1 for our
/// libcudart (C++ names in namespace zluda::driver; not part of the CUDA API).
#define ZLUDA_INTERNAL __attribute__((visibility("default")))

namespace zluda::driver {

constexpr int DriverVersion = 13000;
constexpr int ComputeMajor = 8, ComputeMinor = 6;
/// CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE: what NVIDIA's A100 and H100 report.
constexpr int MaxAccessPolicyWindowBytes = 134213632;
/// CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE (and the bound of the
/// persisting-L2 limit): 3/4 of the device's L2, a hint the device takes.
inline int maxPersistingL2Bytes(int L2Bytes) { return L2Bytes / 4 * 3; }

enum class Kind : uint8_t {
  Context,
  Module,
  Function,
  Library,
  Stream,
  Event,
  Graph,
  GraphExec,
  GraphNode,
  Link,
  Array,
  MipmappedArray,
  TexRef,
  UserObject,
  MemPool
};

struct Context {
  CUdevice Device = 0;
  unsigned Flags = 0;
  bool Primary = false;
  bool Destroyed = false;
  std::atomic<CUresult> Sticky{CUDA_SUCCESS};
  std::mutex Mu;
  struct Slot {
    void *Value;
    void (*Dtor)(CUcontext, void *, void *);
  };
  std::map<void *, Slot> Storage; ///< context-local storage (export table c693336e)
  size_t Limits[8] = {1024, 1 << 20, 8 << 20, 2, 2048, 0, 0, 0};
};

struct Function;

struct Module {
  Context *Ctx = nullptr;
  std::string Ptx;
  std::unique_ptr<ModuleCode> Code; ///< null until compiled (by the backend)
  std::string CompileError;
  std::mutex CompileMu; ///< one compile of this module at a time; other modules compile in parallel
  std::vector<std::unique_ptr<Function>> Functions;
  uint32_t PtxVersion = 0; ///< virtual architecture of the chosen PTX (75 for compute_75)
  unsigned MaxRegisters = 0; ///< CU_JIT_MAX_REGISTERS of cuModuleLoadDataEx (0: none)
  int OptLevel = 4;          ///< CU_JIT_OPTIMIZATION_LEVEL of cuModuleLoadDataEx / cuLibraryLoadData
  bool InLibrary = false;    ///< owned by a CUlibrary (context-independent), not by Ctx
  std::vector<std::unique_ptr<struct TexRef>> TexRefs; ///< cuModuleGetTexRef/GetSurfRef handles
  /// Kernels of a cubin the SASS front end could not lift, with why: their
  /// launches are refused (CUDA_ERROR_NO_BINARY_FOR_GPU), the rest run.
  std::vector<std::pair<std::string, std::string>> Refused;
  /// A lifted cubin's named variables: \p Offset bytes into the module
  /// variable \p Storage (cuModuleGetGlobal finds them by name).
  struct Alias {
    std::string Name, Storage;
    uint64_t Offset = 0, Size = 0;
  };
  std::vector<Alias> Aliases;
};

/// A texture or surface reference (a module's .texref/.surfref variable):
/// its binding and sampling state. Each change that leaves it bound makes a
/// texture (surface) object and stores the object's handle in the variable,
/// which is what the compiled kernels read (LowerInstructions' textureHandle).
/// Objects are kept until the module goes: launches queued earlier still use them.
struct TexRef {
  Module *Mod = nullptr;
  std::string Name;
  bool Surface = false;
  bool Bound = false;
  CUDA_RESOURCE_DESC Res{};
  CUDA_TEXTURE_DESC Tex{};
  CUarray_format Format = CU_AD_FORMAT_FLOAT;
  unsigned Channels = 1;
  std::vector<uint64_t> Objects; ///< every object made for it, the current one last
};

struct Function {
  Module *Mod = nullptr;
  const ptx::KernelInfo *Info = nullptr; ///< owned by Mod->Code
  std::string Name;
  int MaxDynamicShared = 48 * 1024;
  std::string Refused; ///< why the SASS front end could not lift it (empty: it runs)
};

struct Library {
  std::unique_ptr<Module> Mod;
};

struct Stream {
  Context *Ctx = nullptr;
  unsigned Flags = 0;
  int Priority = 0;
  void *Native = nullptr; ///< the backend's stream (hipStream_t)
  /// cuStreamSetAttribute's values (access policy window, synchronization
  /// policy, memory sync domains): kept and returned; hints to the device.
  std::map<int, CUlaunchAttributeValue> Attrs;
};

struct Event {
  Context *Ctx = nullptr;
  unsigned Flags = 0;
  bool Recorded = false;
  void *Native = nullptr; ///< the backend's event (hipEvent_t, or the CPU device's record state)
  struct Graph *CapturedIn = nullptr; ///< last recorded by a capturing stream into this graph
};

/// A recorded operation; Run replays it on a stream.
struct GraphNode {
  enum TypeT {
    NT_Kernel = 0,
    NT_Memcpy = 1,
    NT_Memset = 2,
    NT_Host = 3,
    NT_Graph = 4,
    NT_Empty = 5,
    NT_WaitEvent = 6,
    NT_EventRecord = 7,
    NT_MemAlloc = 10,
    NT_MemFree = 11,
    NT_Conditional = 13
  } Type = NT_Empty;
  std::function<CUresult(CUstream)> Run;
  std::vector<GraphNode *> Deps; ///< nodes of the same graph this one depends on
  std::string Label;             ///< what cuGraphDebugDotPrint shows
  std::shared_ptr<struct Graph> Child; ///< a child graph node's graph (a copy, as CUDA makes)
  CUevent Event = nullptr;       ///< event record and wait nodes
  uintptr_t Ptr = 0;             ///< memory allocation and free nodes: the address
  size_t Bytes = 0;              ///< memory allocation nodes: the size
  const GraphNode *Origin = nullptr; ///< in an executable graph: the graph's node it was made from
  /// Conditional nodes: the handle, CUgraphConditionalNodeType, the body graphs (owned by the node).
  std::shared_ptr<struct CondHandle> Cond;
  int CondType = 0;
  std::vector<std::shared_ptr<struct Graph>> Bodies;
  std::vector<struct Graph *> BodyHandles; ///< the array CUDA_CONDITIONAL_NODE_PARAMS.phGraph_out points to
  /// What the node was made from, for the node getters: kernel nodes' function,
  /// geometry and argument copies (ArgPtrs point into Args, one per parameter);
  /// memset nodes' dst, pitch, value, element size, width, height; host nodes'
  /// function and data; memcpy nodes' copy.
  struct Function *Fn = nullptr;
  Dim3 Grid{}, Block{};
  unsigned Shared = 0;
  std::shared_ptr<std::vector<uint8_t>> Args;
  std::vector<void *> ArgPtrs;
  uint64_t Spec[6] = {0, 0, 0, 0, 0, 0};
  CUDA_MEMCPY3D Copy{};
};
/// A conditional node's handle (cuGraphConditionalHandleCreate): the handle
/// is the device address of a 32-bit slot that kernels set with
/// cudaGraphSetConditional (a plain store, see LowerToLLVM's builtins).
struct CondHandle {
  std::shared_ptr<void> Mem; ///< the slot's device allocation
  CUdeviceptr Slot = 0;
  unsigned Default = 0;
  bool AssignDefault = false; ///< CU_GRAPH_COND_ASSIGN_DEFAULT: reset at each execution of the graph
};
/// A user object (cuUserObjectCreate): a reference count and the destructor
/// run (on a thread of its own, as CUDA runs it asynchronously) when it reaches 0.
struct UserObject {
  void *Ptr = nullptr;
  void (*Destroy)(void *) = nullptr;
  std::atomic<long> Refs{0};
};
ZLUDA_INTERNAL void userObjectRelease(UserObject *U, unsigned Count);
/// The references a graph or executable graph holds to user objects: a copy
/// (a clone, a child graph, an instantiation) takes its own, destruction
/// releases them.
struct UserRefs {
  std::map<UserObject *, unsigned> Refs;
  UserRefs() = default;
  UserRefs(const UserRefs &O) : Refs(O.Refs) {
    for (auto &[U, N] : Refs)
      U->Refs += N;
  }
  UserRefs &operator=(const UserRefs &O) {
    UserRefs T(O);
    std::swap(Refs, T.Refs);
    return *this;
  }
  ~UserRefs() {
    for (auto &[U, N] : Refs)
      userObjectRelease(U, N);
  }
};

struct Graph {
  Context *Ctx = nullptr; ///< current when it was made: destroyed with that context
  UserRefs Users;         ///< cuGraphRetainUserObject
  std::vector<std::unique_ptr<GraphNode>> Nodes;
  std::vector<std::shared_ptr<CondHandle>> Handles; ///< conditional handles created for this graph
  bool OwnedByNode = false; ///< a child or conditional body graph: freed with its node, not by handle
  /// Executable graphs made from this one that exist (a graph with
  /// conditional nodes has at most one at a time, as on NVIDIA's driver).
  std::shared_ptr<int> Execs = std::make_shared<int>(0);
};
struct GraphExec {
  Context *Ctx = nullptr;
  UserRefs Users; ///< the graph's, when it was instantiated
  std::vector<GraphNode> Nodes;
  std::vector<std::shared_ptr<CondHandle>> Handles;
  std::shared_ptr<int> OriginExecs; ///< the graph's count of executable graphs
  ~GraphExec() {
    if (OriginExecs)
      --*OriginExecs;
  }
};

struct Allocation {
  uintptr_t Base = 0;
  size_t Size = 0;
  CUmemorytype Type = CU_MEMORYTYPE_DEVICE;
  bool Managed = false;
  bool Registered = false; ///< cuMemHostRegister: memory owned by the program (or a module, a mapping)
  /// How the range came to be: cuMemAlloc-family, a cuMemMap mapping, an opened IPC handle
  /// (the last two are Registered: cuMemFree refuses them).
  enum ViaT : uint8_t { ViaAlloc, ViaMap, ViaIpc } Via = ViaAlloc;
  unsigned Access = 3;      ///< CU_MEM_ACCESS_FLAGS_PROT_* (mappings)
  unsigned HandleTypes = 0; ///< CUmemAllocationHandleType the physical allocation allows (mappings)
  unsigned Flags = 0;
  /// A graph's allocation node owns it: it lives with the graph (one address
  /// for every launch) and is in use between the node's run and a free
  /// (a free node, cudaFree or cudaFreeAsync, in any graph or stream).
  bool GraphOwned = false;
  bool GraphInUse = false;
  /// Counted in the graphs' used memory: from the node's first run until a
  /// trim finds it free or its graph goes (as NVIDIA's driver keeps a freed
  /// graph allocation's memory associated with graphs).
  bool GraphBacked = false;
  struct MemPool *Pool = nullptr; ///< the pool a stream-ordered allocation came from (MemPool.cpp)
  Context *Ctx = nullptr; ///< the context that allocated it (freed with it)
};

struct MipmappedArray;

/// A CUDA array (cuArrayCreate, cuArray3DCreate, a level of a mipmapped
/// array): packed rows of Width elements, Height rows a slice, slices for
/// depth or for layers (cubemap faces). Device memory of the backend.
struct Array {
  CUDA_ARRAY3D_DESCRIPTOR Desc{}; ///< as created (Height 0 for 1D, Depth 0 for 2D)
  unsigned ElemBytes = 0;         ///< bytes of a texel (of a 4x4 block in block-compressed formats)
  unsigned BlockBytes = 0;        ///< block-compressed formats: bytes of a 4x4 block (copies move whole blocks)
  size_t Width = 0, Height = 1, Depth = 1, Layers = 0; ///< texels; Layers: 0 unless layered or a cubemap
  size_t Pitch = 0;               ///< bytes of a row in memory (of texels, or of blocks)
  void *Data = nullptr;
  size_t Bytes = 0;
  Context *Ctx = nullptr;
  MipmappedArray *Parent = nullptr; ///< a level of it: freed with it
  Array *PlaneOf = nullptr;         ///< a plane of a planar YUV array: freed with it
  std::vector<std::shared_ptr<Array>> Planes; ///< planar YUV formats: Y, then UV (or U and V)
  /// Rows in memory of a slice (rows of blocks in block-compressed formats).
  size_t rows() const { return BlockBytes ? (Height + 3) / 4 : Height; }
  /// Slices of rows() rows (depth or layers).
  size_t slices() const { return Layers ? Layers : Depth; }
};

struct MipmappedArray {
  CUDA_ARRAY3D_DESCRIPTOR Desc{};
  unsigned Levels = 0;
  void *Data = nullptr; ///< the levels one after another
  size_t Bytes = 0;
  Context *Ctx = nullptr;
  std::vector<std::unique_ptr<Array>> LevelArrays;
};

struct Texture {
  ptx::TextureDesc Desc;
  void *Device = nullptr; ///< the copy of Desc in device memory the handle is (DeviceProps::TexturesInDeviceMemory)
};

struct State {
  std::mutex Mu;
  bool Initialized = false;
  std::unordered_map<void *, Kind> Live; ///< every live handle and its kind
  std::map<uintptr_t, Allocation> Allocs;
  /// Graph memory (cuDeviceGetGraphMemAttribute): bytes in use and reserved, and their high watermarks.
  uint64_t GraphUsed = 0, GraphUsedHigh = 0, GraphReserved = 0, GraphReservedHigh = 0;
  std::unordered_map<uint64_t, Texture> Textures;
  uint64_t NextTexture = 1;
  Context *PrimaryCtx = nullptr;
  int PrimaryRefs = 0;
  std::atomic<unsigned> PrimaryFlags{0}; ///< read without Mu (waits read it while Mu may be held)
};

ZLUDA_INTERNAL State &state();

/// True when \p P is a live handle of kind \p K.
ZLUDA_INTERNAL bool isLive(const void *P, Kind K);
ZLUDA_INTERNAL void addLive(void *P, Kind K);
ZLUDA_INTERNAL void removeLive(void *P);

template <typename T> T *handle(const void *P, Kind K) {
  return isLive(P, K) ? static_cast<T *>(const_cast<void *>(P)) : nullptr;
}

// --- contexts -------------------------------------------------------------------
ZLUDA_INTERNAL Context *currentContext();
/// This thread's context stack (cuCtxPushCurrent / PopCurrent), top at the back.
std::vector<Context *> &contextStackRef();
ZLUDA_INTERNAL void setCurrentContext(Context *C);
/// The primary context, created (not retained) on first use.
ZLUDA_INTERNAL Context *primaryContext();
/// CUDA_ERROR_NOT_INITIALIZED until cuInit; else the current context's sticky
/// error, or CUDA_ERROR_INVALID_CONTEXT when none is current and one is needed.
ZLUDA_INTERNAL CUresult requireContext(Context *&Out);
ZLUDA_INTERNAL CUresult requireInit();

// --- memory -----------------------------------------------------------------------
ZLUDA_INTERNAL CUresult memAlloc(CUdeviceptr *Out, size_t Size, CUmemorytype Type, bool Managed, unsigned Flags);
/// \p Ordered: after the earlier work of stream \p S (cuMemFreeAsync).
ZLUDA_INTERNAL CUresult memFree(uintptr_t Ptr, CUmemorytype Expected, bool Ordered = false, Stream *S = nullptr);
/// The allocation containing [P, P+Size), or null.
ZLUDA_INTERNAL const Allocation *findAllocation(uintptr_t P, size_t Size = 1);
/// Stream-ordered allocation pools (MemPool.cpp): \p Pool (null: the device's
/// current pool) accounts for the allocation at \p P; a free returns it
/// (with S.Mu held). Memory is returned to the device at once, so a pool's
/// reserved memory is its memory in use.
ZLUDA_INTERNAL CUresult poolAttach(CUdeviceptr P, struct MemPool *Pool);
void poolDetach(State &S, Allocation &A);
/// A graph allocation (Allocation::GraphOwned) starts or stops being in use,
/// with S.Mu held; false when a free finds it not in use (freed twice).
bool graphMemUse(State &S, Allocation &A, bool InUse);
/// With S.Mu held: a graph allocation's memory leaves the graphs' used memory
/// (trimmed while free, or its graph destroyed).
void graphMemRelease(State &S, Allocation &A);
ZLUDA_INTERNAL CUresult hostRegister(void *P, size_t Size, unsigned Flags);
ZLUDA_INTERNAL CUresult hostUnregister(void *P);
/// Flags of pinned host memory (cuMemHostAlloc / registration), or an error.
ZLUDA_INTERNAL CUresult hostFlags(const void *P, unsigned &Flags);
ZLUDA_INTERNAL CUresult memInfo(size_t &Free, size_t &Total);
/// Frees every allocation the program made (cudaDeviceReset).
ZLUDA_INTERNAL void freeAllAllocations();
/// A copy between any two addresses; \p Async enqueues it on \p S.
ZLUDA_INTERNAL CUresult memcpyChecked(void *Dst, const void *Src, size_t Size, CUstream S = nullptr,
                                      bool Async = false);
ZLUDA_INTERNAL CUresult memset(uintptr_t Dst, uint32_t Value, unsigned ElemSize, size_t Count, size_t Pitch = 0,
                size_t Width = 0, size_t Height = 1, CUstream S = nullptr, bool Async = false);

// --- modules and launches ----------------------------------------------------------
/// Reads an image (PTX, fat binary, wrapper); \p Why receives the reason it is refused.
ZLUDA_INTERNAL CUresult loadModule(Context *Ctx, const void *Image, std::unique_ptr<Module> &Out,
                                   std::string *Why = nullptr);
ZLUDA_INTERNAL CUresult ensureCompiled(Module &M);
/// Forgets the module's variables (before the module is deleted).
ZLUDA_INTERNAL void releaseModule(Module &M);
/// Address and size of a module variable (the module is compiled if needed).
ZLUDA_INTERNAL CUresult moduleGlobal(Module *M, CUdeviceptr *Ptr, size_t *Size, const char *Name);
ZLUDA_INTERNAL CUresult getFunction(Module &M, const char *Name, Function *&Out);
/// \p Cluster: the launch's thread-block cluster dimensions (null: none given;
/// the kernel's .reqnctapercluster, if any, applies).
ZLUDA_INTERNAL CUresult launch(Function *F, Dim3 Grid, Dim3 Block, unsigned Shared, CUstream Stream, void **Params,
                void **Extra, bool Cooperative, const Dim3 *Cluster = nullptr);
ZLUDA_INTERNAL CUresult streamCheck(CUstream S);

// --- activity reports for our libcupti (Activity.cpp, zluda/activity.h) -----------------
namespace activity {
/// One operation being reported: issued by the caller, completed on its stream.
struct Op {
  zluda_activity R{};
  zluda_activity_sink Fn = nullptr;
  zluda_activity_clock Clock = nullptr;
  CUstream S = nullptr;
};
/// Null (nothing to do) unless a sink wants \p Kind (zluda_activity_op) and \p S is not capturing;
/// else stamps the call's start and puts the device's start mark on \p S.
ZLUDA_INTERNAL Op *begin(uint32_t Kind, CUstream S);
ZLUDA_INTERNAL void kernel(Op *A, const std::string &Name, const ptx::KernelInfo &K, Dim3 Grid,
                           Dim3 Block, Dim3 Cluster, unsigned Shared, bool Cooperative);
/// A copy's bytes, whether the call was asynchronous, and its sides' zluda_activity_memory.
ZLUDA_INTERNAL void copy(Op *A, uint64_t Bytes, bool Async, uint8_t SrcMem, uint8_t DstMem);
/// zluda_activity_memory of an address: device, managed, pinned (host memory the driver knows) or pageable.
ZLUDA_INTERNAL uint8_t memoryKind(const void *P);
/// Reports the call as issued (with \p R, its result) and puts the device's end mark on the stream,
/// which reports the operation completed (when R succeeded) and frees \p A.
ZLUDA_INTERNAL void end(Op *A, CUresult R);
} // namespace activity

/// The driver's stream behind a handle: null for the default streams
/// (CU_STREAM_LEGACY, CU_STREAM_PER_THREAD, 0). Call after streamCheck.
ZLUDA_INTERNAL Stream *streamOf(CUstream S);
/// The stream a `_ptsz` entry point means: 0 is the per-thread default stream.
ZLUDA_INTERNAL CUstream ptsz(CUstream S);
/// Waits for the context's work; returns its sticky error or what the wait reported.
ZLUDA_INTERNAL CUresult synchronize(Context *C);
/// A result of waiting for device work: faults of kernels (illegal address,
/// trap, assert ...) become \p C's sticky error, as on a GPU. Returns \p R.
ZLUDA_INTERNAL CUresult noteFault(Context *C, CUresult R);
/// The result of a call that waited for the device: \p R, or the context's
/// sticky error when the work it waited for faulted.
ZLUDA_INTERNAL CUresult afterWait(Context *C, CUresult R);
/// CU_CTX_* flags of \p C (a primary context's are the device's primary flags).
ZLUDA_INTERNAL unsigned contextFlags(Context *C);

/// The JIT options of cuLinkCreate, cuLinkAddData, cuModuleLoadDataEx and
/// cuLibraryLoadData (Linker.cpp): parse() validates and records them (the
/// arrays must outlive the operation), finish() writes the outputs: the error
/// and info logs (NUL-terminated, their size options set to the bytes
/// written) and CU_JIT_WALL_TIME (milliseconds since parse(), as a float).
struct JitOptions {
  unsigned N = 0;
  CUjit_option *Options = nullptr;
  void **Values = nullptr;
  char *InfoLog = nullptr, *ErrorLog = nullptr;
  size_t InfoSize = 0, ErrorSize = 0;
  bool Verbose = false, LineInfo = false;
  int OptLevel = 4;
  unsigned MaxRegisters = 0, Target = 0;
  std::chrono::steady_clock::time_point Start = std::chrono::steady_clock::now();
  ZLUDA_INTERNAL CUresult parse(unsigned Count, CUjit_option *Opts, void **Vals);
  ZLUDA_INTERNAL void finish(const std::string &Error, const std::string &Info) const;
  /// The options as the info log states them.
  std::string describe() const;
};

/// True when the fat-binary container at \p Image (readable-checked) holds PTX.
ZLUDA_INTERNAL bool fatbinHasPtx(const void *Image);
/// Links the PTX of an -rdc program's relocatable fat binaries (\p List: the
/// null-terminated __cudaPrelinkedFatbins array of a version-2 wrapper).
ZLUDA_INTERNAL CUresult linkPrelinked(const void *List, std::string &Ptx, std::string &Error);

/// Frees everything \p C owns: modules, allocations, streams, events, graphs
/// (cuCtxDestroy, cuDevicePrimaryCtxReset). Libraries are not the context's.
ZLUDA_INTERNAL void releaseContextObjects(Context *C);

// --- textures ---------------------------------------------------------------------
ZLUDA_INTERNAL bool resolveTexture(uint64_t Handle, ptx::TextureDesc &Out);

// --- device -----------------------------------------------------------------------
ZLUDA_INTERNAL CUresult deviceAttribute(int Attr, CUdevice Dev, int &Out);
ZLUDA_INTERNAL void deviceUuid(CUuuid &Out);

// --- operations shared by the driver exports and libcudart --------------------
ZLUDA_INTERNAL CUresult initialize();
ZLUDA_INTERNAL CUresult streamCreate(CUstream *Out, unsigned Flags, int Priority);
ZLUDA_INTERNAL CUresult streamDestroy(CUstream S);
ZLUDA_INTERNAL CUresult streamSynchronize(CUstream S);
ZLUDA_INTERNAL CUresult streamQuery(CUstream S);
ZLUDA_INTERNAL CUresult streamWaitEvent(CUstream S, CUevent E);
/// \p Fn runs in stream order (not captured: callers check capture first).
ZLUDA_INTERNAL CUresult launchHostFunc(CUstream S, void (*Fn)(void *), void *User);
/// \p Fn runs in stream order, told the context's error state then.
ZLUDA_INTERNAL CUresult streamAddCallback(CUstream S, CUstreamCallback Fn, void *User);
ZLUDA_INTERNAL CUresult eventCreate(CUevent *Out, unsigned Flags);
ZLUDA_INTERNAL CUresult eventQuery(CUevent E);
ZLUDA_INTERNAL CUresult eventSynchronize(CUevent E);
ZLUDA_INTERNAL CUresult eventDestroy(CUevent E);
ZLUDA_INTERNAL CUresult eventRecord(CUevent E, CUstream S);
ZLUDA_INTERNAL CUresult eventElapsed(float *Ms, CUevent A, CUevent B);
ZLUDA_INTERNAL CUresult texObjectCreate(CUtexObject *Out, const CUDA_RESOURCE_DESC *Res, const CUDA_TEXTURE_DESC *Tex);
ZLUDA_INTERNAL CUresult texObjectDestroy(CUtexObject T);
/// CUDA arrays (Arrays.cpp).
ZLUDA_INTERNAL CUresult arrayCreate(Array *&Out, const CUDA_ARRAY3D_DESCRIPTOR &D);
ZLUDA_INTERNAL CUresult arrayDestroy(Array *A);
ZLUDA_INTERNAL CUresult mipmappedArrayCreate(MipmappedArray *&Out, const CUDA_ARRAY3D_DESCRIPTOR &D, unsigned Levels);
ZLUDA_INTERNAL CUresult mipmappedArrayDestroy(MipmappedArray *M);
/// Bytes per element and channel layout of a format: false for formats we do not have.
/// A format's channel size and kind (0 signed, 1 unsigned, 2 float, 3 half);
/// the normalized-integer formats also give their channel count (else 0).
ZLUDA_INTERNAL bool formatInfo(CUarray_format F, unsigned &Bits, int &Kind, unsigned *FixedChannels = nullptr);
/// The YUV formats (planar, semi-planar and packed) of CUDA_ARRAY3D_VIDEO_ENCODE_DECODE arrays.
ZLUDA_INTERNAL bool videoFormat(CUarray_format F);
/// A texture or surface description of the resource \p Res (arrays, mipmapped arrays, linear, pitched memory).
ZLUDA_INTERNAL CUresult resourceDesc(const CUDA_RESOURCE_DESC &Res, ptx::TextureDesc &D);
ZLUDA_INTERNAL CUresult surfObjectCreate(CUsurfObject *Out, const CUDA_RESOURCE_DESC *Res);
ZLUDA_INTERNAL CUresult surfObjectDestroy(CUsurfObject S);
/// Frees a module's texture and surface references (module unload).
ZLUDA_INTERNAL void releaseTexRefs(Module &M);
/// The live array \p H names, or null.
ZLUDA_INTERNAL const Array *arrayOf(CUarray H);
ZLUDA_INTERNAL CUresult ipcGetMemHandle(CUipcMemHandle *Handle, CUdeviceptr Ptr);
ZLUDA_INTERNAL CUresult ipcOpenMemHandle(CUdeviceptr *Out, const CUipcMemHandle &Handle, unsigned Flags);
ZLUDA_INTERNAL CUresult ipcCloseMemHandle(CUdeviceptr Ptr);
ZLUDA_INTERNAL CUresult ipcGetEventHandle(CUipcEventHandle *Handle, CUevent E);
ZLUDA_INTERNAL CUresult ipcOpenEventHandle(CUevent *Out, const CUipcEventHandle &Handle);
ZLUDA_INTERNAL CUresult pointerAttribute(void *Data, int Attr, CUdeviceptr P);
ZLUDA_INTERNAL CUresult funcAttribute(int *V, int Attr, Function *F);
ZLUDA_INTERNAL CUresult funcSetAttribute(Function *F, int Attr, int V);
ZLUDA_INTERNAL int occupancy(Function *F, int BlockSize, size_t DynShared);
ZLUDA_INTERNAL CUresult copy2D(const CUDA_MEMCPY2D *P, CUstream S = nullptr, bool Async = false);
ZLUDA_INTERNAL CUresult copy3D(const CUDA_MEMCPY3D *P, CUstream S = nullptr, bool Async = false);

// --- graphs and stream capture (Graph.cpp) -------------------------------------
/// Records \p Make's node when \p S is capturing; false (nothing done) otherwise.
ZLUDA_INTERNAL bool captureNode(CUstream S, const std::function<GraphNode()> &Make);
ZLUDA_INTERNAL GraphNode kernelNode(Function *F, Dim3 Grid, Dim3 Block, unsigned Shared, void **Params,
                                    void **Extra);
ZLUDA_INTERNAL GraphNode copyNode(void *Dst, const void *Src, size_t N);
ZLUDA_INTERNAL GraphNode memsetNode(uintptr_t Dst, uint32_t Value, unsigned ElemSize, size_t Width, size_t Height,
                                    size_t Pitch);
ZLUDA_INTERNAL GraphNode hostNode(void (*Fn)(void *), void *User);
ZLUDA_INTERNAL CUresult graphCreate(Graph *&Out);
ZLUDA_INTERNAL CUresult graphDestroy(Graph *G);
ZLUDA_INTERNAL CUresult graphAddNode(Graph *G, GraphNode *const *Deps, size_t NumDeps, GraphNode N, GraphNode *&Out);
/// A deep copy of \p G (nodes, dependencies, child graphs).
ZLUDA_INTERNAL std::unique_ptr<Graph> graphCopy(const Graph &G);
ZLUDA_INTERNAL GraphNode childNode(const Graph &Child);
/// A graph owned by a node (child graph, conditional body): freed with the node.
ZLUDA_INTERNAL std::shared_ptr<Graph> ownedGraph(std::unique_ptr<Graph> G);
/// Runs \p G's nodes on \p S after resetting its conditional handles.
ZLUDA_INTERNAL CUresult runGraph(const Graph &G, CUstream S);
/// Sets the handles created with CU_GRAPH_COND_ASSIGN_DEFAULT to their defaults, in stream order.
ZLUDA_INTERNAL CUresult resetHandles(const std::vector<std::shared_ptr<CondHandle>> &Handles, CUstream S);
/// A conditional node (CUgraphConditionalNodeType \p Type) over \p Bodies.
ZLUDA_INTERNAL GraphNode conditionalNode(std::shared_ptr<CondHandle> H, int Type,
                                         std::vector<std::shared_ptr<Graph>> Bodies);
/// A copy of \p N for another graph (conditional bodies deep-copied).
ZLUDA_INTERNAL GraphNode nodeCopy(const GraphNode &N);
/// cuGraphConditionalHandleCreate.
ZLUDA_INTERNAL CUresult condHandleCreate(Graph *G, unsigned Default, unsigned Flags, uint64_t &Out);
/// Adds a conditional node; \p BodiesOut is set to the node's array of body graphs.
ZLUDA_INTERNAL CUresult addConditional(Graph *G, GraphNode *const *Deps, size_t NumDeps, uint64_t Handle, int Type,
                                       unsigned Size, Graph **&BodiesOut, GraphNode *&Out);
/// cuStreamBeginCaptureToGraph: capture into an existing graph.
ZLUDA_INTERNAL CUresult beginCaptureToGraph(CUstream S, Graph *G);
ZLUDA_INTERNAL GraphNode eventNode(CUevent E, bool Wait);
ZLUDA_INTERNAL CUresult graphMemAlloc(Graph *G, size_t Bytes, GraphNode &Out);
ZLUDA_INTERNAL GraphNode memFreeNode(uintptr_t Ptr);
/// Replaces the work of \p E's copy of \p Node with \p N's (cuGraphExec*SetParams).
ZLUDA_INTERNAL CUresult graphExecSetNode(GraphExec *E, const GraphNode *Node, GraphNode N);
/// Replaces the parameters of a graph's node (its type must stay; its dependencies do).
ZLUDA_INTERNAL CUresult graphNodeSet(GraphNode *Node, GraphNode New);
/// cuGraphExecUpdate: \p E takes \p G's work when both have the same nodes (types, order).
ZLUDA_INTERNAL CUresult graphExecUpdate(GraphExec *E, Graph *G);
ZLUDA_INTERNAL CUresult graphDot(const Graph *G, const char *Path);
/// The graph \p S is capturing into (null when it is not capturing).
ZLUDA_INTERNAL Graph *capturingGraph(CUstream S);
/// Stream capture of stream-ordered allocation, events: true when \p S is
/// capturing and the operation became part of its graph.
ZLUDA_INTERNAL bool captureAlloc(CUstream S, size_t Bytes, CUdeviceptr &Out, CUresult &R);
ZLUDA_INTERNAL bool captureFree(CUstream S, CUdeviceptr P);
ZLUDA_INTERNAL bool captureEventRecord(CUstream S, Event *E);
/// A stream that waits for an event recorded in a capture joins that capture (CUDA's fork/join).
ZLUDA_INTERNAL bool captureWaitEvent(CUstream S, Event *E);
ZLUDA_INTERNAL CUresult graphInstantiate(Graph *G, GraphExec *&Out);
ZLUDA_INTERNAL CUresult graphLaunch(GraphExec *E, CUstream S);
ZLUDA_INTERNAL CUresult graphExecDestroy(GraphExec *E);
ZLUDA_INTERNAL CUresult beginCapture(CUstream S);
ZLUDA_INTERNAL CUresult endCapture(CUstream S, Graph *&Out);
ZLUDA_INTERNAL bool isCapturing(CUstream S);

/// Logs "Name is not supported" once per name and returns CUDA_ERROR_NOT_SUPPORTED.
ZLUDA_INTERNAL CUresult notSupported(const char *Name);

/// Runs \p F, turning any exception into CUDA_ERROR_UNKNOWN (nothing throws
/// across extern "C").
template <typename F> CUresult guard(const char *Name, F &&Fn) noexcept {
  try {
    return Fn();
  } catch (const std::bad_alloc &) {
    return CUDA_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception &E) {
    // Bodies of ZLUDA_API exports are named Name_impl.
    std::string_view N = Name;
    if (N.size() > 5 && N.substr(N.size() - 5) == "_impl")
      N.remove_suffix(5);
    ZLUDA_LOG_ERROR("{}: internal error: {}", N, E.what());
    return CUDA_ERROR_UNKNOWN;
  } catch (...) {
    return CUDA_ERROR_UNKNOWN;
  }
}

#define ZLUDA_GUARD(...) return ::zluda::driver::guard(__func__, [&]() -> CUresult { __VA_ARGS__ })

// --- call tracing (ZLUDA_LOG=trace, `zluda trace`) ---------------------------------
namespace trace {
/// One argument as the trace shows it: strings quoted, pointers and device
/// addresses (CUdeviceptr is unsigned long long) in hex, numbers in decimal.
template <typename T> void formatArg(std::string &O, const T &V) {
  if constexpr (std::is_same_v<T, const char *>) { // (char * is an output buffer: shown after the call)
    if (!V) {
      O += "NULL";
    } else {
      O += '"';
      size_t N = 0;
      for (const char *C = V; *C && N < 64; ++C, ++N)
        O += (*C >= 0x20 && *C < 0x7f) ? *C : '?'; // a log line stays one printable line
      O += N == 64 ? "...\"" : "\"";
    }
  } else if constexpr (std::is_pointer_v<T> || std::is_member_pointer_v<T>) {
    if (!V)
      O += "NULL";
    else
      O += fmt::format("{:#x}", reinterpret_cast<uintptr_t>(V));
  } else if constexpr (std::is_same_v<T, unsigned long long>) {
    O += fmt::format("{:#x}", V);
  } else if constexpr (std::is_enum_v<T>) {
    O += std::to_string(static_cast<long long>(V));
  } else if constexpr (std::is_same_v<T, bool>) {
    O += V ? "true" : "false";
  } else if constexpr (std::is_integral_v<T>) {
    O += std::to_string(V);
  } else if constexpr (std::is_floating_point_v<T>) {
    O += fmt::format("{}", V);
  } else {
    O += fmt::format("{{{}-byte value}}", sizeof(T));
  }
}

/// After a successful call, what an output pointer (T* to a number, handle
/// or pointer; char* buffers) received.
template <typename T> void formatOut(std::string &O, std::string_view Name, const T &V) {
  if constexpr (std::is_pointer_v<T> && !std::is_const_v<std::remove_pointer_t<T>>) {
    using P = std::remove_pointer_t<T>;
    if constexpr (std::is_same_v<P, char>) {
      if (V) {
        O += fmt::format(" {}=", Name);
        formatArg(O, static_cast<const char *>(V));
      }
    } else if constexpr (std::is_arithmetic_v<P> || std::is_enum_v<P> || std::is_pointer_v<P>) {
      if (V) {
        O += fmt::format(" *{}=", Name);
        formatArg(O, *V);
      }
    }
  }
}

/// The next name of "A, B, C", advancing \p Names.
inline std::string_view nextName(std::string_view &Names) {
  size_t Comma = Names.find(',');
  std::string_view N = Names.substr(0, Comma);
  Names = Comma == std::string_view::npos ? std::string_view() : Names.substr(Comma + 1);
  while (!N.empty() && N.front() == ' ')
    N.remove_prefix(1);
  return N;
}

template <typename... A> std::string formatArgs(std::string_view Names, const A &...Args) {
  std::string O;
  bool First = true;
  ((O += First ? "" : ", ", First = false, O += nextName(Names), O += '=', formatArg(O, Args)), ...);
  return O;
}

template <typename... A> std::string formatOuts(std::string_view Names, const A &...Args) {
  std::string O;
  (formatOut(O, nextName(Names), Args), ...);
  return O;
}
} // namespace trace

/// With ZLUDA_LOG=trace, logs the call \p Fn makes: its arguments, what its
/// output pointers received (when it returns 0), its result and its time.
/// Otherwise just calls it.
template <typename R, typename F, typename... A>
R tracedAs(const char *Name, std::string_view Names, F &&Fn, const A &...Args) {
  if (!::zluda::log().should_log(spdlog::level::trace))
    return Fn();
  std::string_view List = Names.substr(1, Names.size() - 2); // "(A, B)"
  std::string In;
  try {
    In = trace::formatArgs(List, Args...);
  } catch (...) {
  }
  auto T0 = std::chrono::steady_clock::now();
  R Res = Fn();
  double Us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - T0).count();
  try {
    std::string Out = static_cast<int>(Res) == 0 ? trace::formatOuts(List, Args...) : "";
    ZLUDA_LOG_TRACE("{}({}) -> {}{} ({:.1f} us)", Name, In, static_cast<int>(Res), Out, Us);
  } catch (...) {
  }
  return Res;
}

/// Every driver export's body runs through here: exceptions are caught
/// (guard), failures are logged at debug, and calls traced (tracedAs).
template <typename F, typename... A>
CUresult traced(const char *Name, std::string_view Names, F &&Fn, const A &...Args) noexcept {
  return tracedAs<CUresult>(
      Name, Names,
      [&]() -> CUresult {
        CUresult R = guard(Name, Fn);
        if (R != CUDA_SUCCESS && !::zluda::log().should_log(spdlog::level::trace))
          ZLUDA_LOG_DEBUG("{} -> {}", Name, static_cast<int>(R));
        return R;
      },
      Args...);
}

#define ZLUDA_TRACE_ARGS(...) __VA_OPT__(, ) __VA_ARGS__
/// Defines an export: `ZLUDA_API(cuFoo, (int A, void *B), (A, B)) { body }`.
/// The body becomes cuFoo_impl; the export calls it through traced().
#define ZLUDA_API(Name, Params, Args)                                                                                  \
  static CUresult Name##_impl Params;                                                                                  \
  ZLUDA_EXPORT CUresult Name Params {                                                                                  \
    return ::zluda::driver::traced(#Name, #Args, [&]() -> CUresult { return Name##_impl Args; }                        \
                                       ZLUDA_TRACE_ARGS Args);                                                         \
  }                                                                                                                    \
  static CUresult Name##_impl Params

/// The same for exports that are not driver calls (libcudart's): the body
/// becomes Name_impl, the export traces the call (no guard: the body handles
/// its own errors).
#define ZLUDA_TRACED_EXPORT(Ret, Name, Params, Args)                                                                   \
  static Ret Name##_impl Params;                                                                                       \
  ZLUDA_EXPORT Ret Name Params {                                                                                       \
    return ::zluda::driver::tracedAs<Ret>(#Name, #Args, [&]() -> Ret { return Name##_impl Args; }                      \
                                              ZLUDA_TRACE_ARGS Args);                                                  \
  }                                                                                                                    \
  static Ret Name##_impl Params

} // namespace zluda::driver

#endif // ZLUDA_DRIVER_INTERNAL_H
