//===- Module.cpp - modules, libraries, launches, streams, events ----------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Images are PTX text, fat binaries or fat-binary wrappers; the best
/// PTX is chosen and compiled by the backend (Backend.h) when the first
/// function or variable is asked for (on the CPU device, with lazy loading,
/// the default, a kernel's code is compiled at its first launch). Launches
/// are checked and their parameter buffer laid out here; streams and events
/// are the driver's objects around the backend's.
#include "driver/Fatbin.h"
#include "driver/Internal.h"
#include "sass/Lift.h"

#include "cache/CompileCache.h"
#include "common/Env.h"
#include "common/Files.h"
#include "common/PrivateDir.h"

#include <filesystem>
#include <fstream>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>

namespace zluda::driver {
namespace {

/// Reads a NUL-terminated PTX image of unknown length.
bool looksLikePtx(const char *P) {
  for (int I = 0; I < 4096 && P[I]; ++I)
    if (std::strncmp(P + I, ".version", 8) == 0)
      return true;
  return false;
}

/// The NN of PTX text's `.target sm_NN` (0 when there is none).
uint32_t targetArch(const std::string &Ptx) {
  auto T = Ptx.find(".target sm_");
  return T == std::string::npos ? 0 : static_cast<uint32_t>(std::strtoul(Ptx.c_str() + T + 11, nullptr, 10));
}

/// ZLUDA_SASS: fallback (machine code only where there is no PTX), prefer
/// (machine code first), off.
std::string sassMode() {
  std::string M = env::get("ZLUDA_SASS");
  return M == "prefer" || M == "off" ? M : "fallback";
}

/// A readable copy of the cubin at \p P (an ELF image of unknown length: its
/// extent is the furthest of its section headers and sections).
bool copyCubin(const uint8_t *P, std::string &Out, std::string &Error) {
  uint8_t H[64];
  if (copyReadable(P, H, sizeof H) < sizeof H || H[4] != 2) {
    Error = "not a readable 64-bit ELF image";
    return false;
  }
  uint64_t ShOff;
  uint16_t ShEntSize, ShNum;
  std::memcpy(&ShOff, H + 0x28, 8);
  std::memcpy(&ShEntSize, H + 0x3a, 2);
  std::memcpy(&ShNum, H + 0x3c, 2);
  constexpr uint64_t Limit = uint64_t(1) << 31;
  if (ShEntSize < 64 || ShOff > Limit || uint64_t(ShNum) * ShEntSize > Limit) {
    Error = "the ELF header's section table is not possible";
    return false;
  }
  uint64_t End = ShOff + uint64_t(ShNum) * ShEntSize;
  std::string Table(uint64_t(ShNum) * ShEntSize, '\0');
  if (copyReadable(P + ShOff, Table.data(), Table.size()) < Table.size()) {
    Error = "the section table is not readable";
    return false;
  }
  for (uint16_t I = 0; I < ShNum; ++I) {
    uint32_t Type;
    uint64_t Off, Size;
    std::memcpy(&Type, Table.data() + I * ShEntSize + 4, 4);
    std::memcpy(&Off, Table.data() + I * ShEntSize + 24, 8);
    std::memcpy(&Size, Table.data() + I * ShEntSize + 32, 8);
    if (Type == 8) // NOBITS
      continue;
    if (Off > Limit || Size > Limit) {
      Error = "a section lies outside any possible image";
      return false;
    }
    End = std::max(End, Off + Size);
  }
  Out.resize(End);
  if (copyReadable(P, Out.data(), End) < End) {
    Error = "the image is not readable to its end";
    return false;
  }
  return true;
}

/// The SASS front end's module for the cubin \p Data: its PTX, the kernels
/// it refused (\p AllOrNothing: any refusal fails the whole) and its named
/// variables.
bool liftInto(Module &M, std::string_view Data, bool AllOrNothing, std::string &Error) {
  sass::LiftedModule L;
  if (!sass::liftCubin(Data, L, Error))
    return false;
  if (AllOrNothing && !L.Refused.empty()) {
    Error = L.Refused.front().second;
    return false;
  }
  for (const auto &[Kernel, Why] : L.Refused)
    ZLUDA_LOG_WARN("SASS front end: kernel {} will not run: {}", Kernel, Why);
  // ZLUDA_DUMP_REFUSED: the machine code of a module with refused kernels (module-<hash of its PTX>.cubin), so
  // the refusal can be studied away from where the program ran.
  if (std::string Dump = env::get("ZLUDA_DUMP_REFUSED");
      !L.Refused.empty() && !Dump.empty() && ensurePrivateDir(Dump, "ZLUDA_DUMP_REFUSED folder").empty()) {
    std::string Base = Dump + "/module-" + cache::sha256Hex(L.Ptx).substr(0, 16);
    std::ofstream(Base + ".cubin", std::ios::binary).write(Data.data(), static_cast<std::streamsize>(Data.size()));
    ZLUDA_LOG_WARN("SASS front end: the cubin of the kernels above is {}.cubin", Base);
  }
  M.Ptx = std::move(L.Ptx);
  M.Refused = std::move(L.Refused);
  for (const sass::LiftedSymbol &S : L.Symbols)
    M.Aliases.push_back({S.Name, S.Storage, S.Offset, S.Size});
  return true;
}

} // namespace

CUresult loadModule(Context *Ctx, const void *Image, std::unique_ptr<Module> &Out, std::string *Why) {
  std::string Ignored;
  std::string &Error = Why ? *Why : Ignored;
  if (!Image) {
    Error = "no image";
    return CUDA_ERROR_INVALID_VALUE;
  }
  // Images come from the program: nothing is read before it is known to be
  // readable, and every size a header claims is checked against that.
  const uint8_t *P = static_cast<const uint8_t *>(Image);
  uint8_t Head[16] = {};
  if (copyReadable(P, Head, sizeof Head) < 8) {
    Error = "the image is not readable memory";
    return CUDA_ERROR_INVALID_IMAGE;
  }
  uint32_t Magic;
  std::memcpy(&Magic, Head, 4);
  auto M = std::make_unique<Module>();
  M->Ctx = Ctx;
  if (Magic == FatbinWrapperMagic) {
    const void *Inner;
    std::memcpy(&Inner, Head + 8, sizeof Inner);
    uint32_t Version;
    std::memcpy(&Version, Head + 4, 4);
    const void *Prelinked = nullptr; // the wrapper's fourth field (offset 16)
    if (Version == 2 && copyReadable(P + 16, &Prelinked, sizeof Prelinked) < sizeof Prelinked)
      Prelinked = nullptr;
    if (Version == 2 && Prelinked && !Inner) {
      Error = "the fat-binary wrapper does not point to readable memory";
      return CUDA_ERROR_INVALID_IMAGE;
    }
    // nvcc -rdc: a version-2 wrapper holds the device-linked image (SASS
    // only) and the list of the objects' relocatable fat binaries, whose
    // PTX is linked here when the image has none.
    if (Version == 2 && Prelinked && !fatbinHasPtx(Inner)) {
      if (CUresult R = linkPrelinked(Prelinked, M->Ptx, Error)) {
        ZLUDA_LOG_ERROR("cannot link the program's relocatable device code: {}", Error);
        return R;
      }
      M->PtxVersion = targetArch(M->Ptx);
      Out = std::move(M);
      return CUDA_SUCCESS;
    }
    P = static_cast<const uint8_t *>(Inner);
    if (!Inner || copyReadable(P, Head, sizeof Head) < sizeof Head) {
      Error = "the fat-binary wrapper does not point to readable memory";
      return CUDA_ERROR_INVALID_IMAGE;
    }
    std::memcpy(&Magic, Head, 4);
  }
  if (Magic == FatbinMagic) {
    // The container's own header says how far it extends: that much must be
    // readable (a corrupt size is refused, not followed).
    std::string Copy;
    if (!copyContainer(P, Copy, Error)) {
      ZLUDA_LOG_ERROR("cannot load fat binary: {}", Error);
      return CUDA_ERROR_INVALID_IMAGE;
    }
    FatbinResult F = parseFatbin(reinterpret_cast<const uint8_t *>(Copy.data()), Copy.size());
    if (!F.ok()) {
      Error = F.Error;
      ZLUDA_LOG_ERROR("cannot load fat binary: {}", F.Error);
      return CUDA_ERROR_INVALID_IMAGE;
    }
    const uint32_t Sm = ComputeMajor * 10 + ComputeMinor;
    const FatbinEntry *E = choosePtx(F, Sm);
    const std::string Mode = sassMode();
    const FatbinEntry *S = Mode == "off" ? nullptr : chooseSass(F, Sm);
    std::string LiftError;
    if (S && (!E || Mode == "prefer")) {
      // With PTX beside it, the machine code is used only when every kernel lifts.
      if (liftInto(*M, S->Payload, /*AllOrNothing=*/E != nullptr, LiftError)) {
        ZLUDA_LOG_INFO("module: machine code for sm_{} lifted by the SASS front end", S->SmArch);
        M->PtxVersion = S->SmArch;
        Out = std::move(M);
        return CUDA_SUCCESS;
      }
      ZLUDA_LOG_WARN("SASS front end: sm_{}: {}{}", S->SmArch, LiftError, E ? "; compiling the PTX instead" : "");
    }
    if (!E) {
      std::string Archs;
      for (const FatbinEntry &X : F.Entries)
        Archs += " sm_" + std::to_string(X.SmArch);
      Error = "the fat binary has no PTX, only machine code for" + Archs +
              (LiftError.empty() ? (Mode == "off" ? std::string(" (ZLUDA_SASS=off)")
                                                  : std::string(" (none of sm_75..sm_90, which the SASS front end reads)"))
                                 : ", which the SASS front end cannot run (" + LiftError + ")") +
              ". Rebuilding the program with a PTX target (nvcc -gencode arch=compute_75,code=compute_75) avoids this";
      ZLUDA_LOG_ERROR("{}", Error);
      return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    M->Ptx = E->Payload;
    M->PtxVersion = E->SmArch; // cudaFuncAttributes::ptxVersion is the virtual architecture
  } else if (Magic == 0x464c457f) { // ELF: a cubin
    std::string Copy;
    if (!copyCubin(P, Copy, Error) || sassMode() == "off" || !liftInto(*M, Copy, false, Error)) {
      if (sassMode() == "off")
        Error = "the image is a cubin (machine code) and ZLUDA_SASS=off";
      else
        Error = "the image is a cubin (machine code) the SASS front end cannot run: " + Error;
      ZLUDA_LOG_ERROR("cuModuleLoadData: {}", Error);
      return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    M->PtxVersion = targetArch(M->Ptx);
  } else if (looksLikePtx(reinterpret_cast<const char *>(P))) {
    M->Ptx = reinterpret_cast<const char *>(P);
    M->PtxVersion = targetArch(M->Ptx);
  } else {
    Error = "the image is neither PTX nor a fat binary";
    return CUDA_ERROR_INVALID_IMAGE;
  }
  Out = std::move(M);
  return CUDA_SUCCESS;
}

CUresult ensureCompiled(Module &M) {
  std::lock_guard<std::mutex> G(M.CompileMu);
  if (M.Code)
    return CUDA_SUCCESS;
  if (!M.CompileError.empty())
    return CUDA_ERROR_INVALID_PTX;
  // ZLUDA_DUMP_DIR: every module's PTX (and the LLVM IR the backend made of it).
  std::string DumpBase;
  if (std::string Dump = env::get("ZLUDA_DUMP_DIR"); !Dump.empty()) {
    // Dumps are read back by people and tools: only into a folder no other
    // user can write (a new one is made 0700).
    if (std::string Why = ensurePrivateDir(Dump, "ZLUDA_DUMP_DIR folder"); !Why.empty()) {
      static std::once_flag Once;
      std::call_once(Once, [&] { ZLUDA_LOG_WARN("{}; modules are not dumped", Why); });
    } else {
      DumpBase = Dump + "/module-" + cache::sha256Hex(M.Ptx).substr(0, 16);
      std::ofstream(DumpBase + ".ptx", std::ios::binary) << M.Ptx;
      ZLUDA_LOG_INFO("module dumped to {}.ptx and {}.ll", DumpBase, DumpBase);
    }
  }
  std::string Error;
  if (CUresult R = backend().compile(M.Ptx, DumpBase, M.Code, Error, M.OptLevel)) {
    M.CompileError = Error.empty() ? "compilation failed" : Error;
    ZLUDA_LOG_ERROR("PTX compilation failed: {}", M.CompileError);
    return R;
  }
  // Module variables are device memory: copies to them are validated like
  // any allocation.
  State &S = state();
  std::lock_guard<std::mutex> SG(S.Mu);
  for (const ModuleCode::Variable &V : M.Code->variables()) {
    Allocation A;
    A.Base = V.Addr;
    A.Size = std::max<uint64_t>(V.Size, 1);
    A.Registered = true; // owned by the module: cuMemFree refuses it
    S.Allocs[A.Base] = A;
  }
  return CUDA_SUCCESS;
}

void releaseModule(Module &M) {
  releaseTexRefs(M);
  if (!M.Code)
    return;
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  for (const ModuleCode::Variable &V : M.Code->variables())
    S.Allocs.erase(V.Addr);
}

CUresult getFunction(Module &M, const char *Name, Function *&Out) {
  if (!Name)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = ensureCompiled(M))
    return R;
  for (auto &F : M.Functions)
    if (F->Name == Name) {
      Out = F.get();
      return CUDA_SUCCESS;
    }
  const ptx::KernelInfo *K = M.Code->kernel(Name);
  if (!K)
    return CUDA_ERROR_NOT_FOUND;
  auto F = std::make_unique<Function>();
  F->Mod = &M;
  F->Info = K;
  F->Name = Name;
  for (const auto &[Kernel, Why] : M.Refused)
    if (Kernel == Name)
      F->Refused = Why;
  Out = F.get();
  addLive(Out, Kind::Function);
  M.Functions.push_back(std::move(F));
  return CUDA_SUCCESS;
}

CUresult streamCheck(CUstream S) {
  if (S == nullptr || S == CU_STREAM_LEGACY || S == CU_STREAM_PER_THREAD)
    return CUDA_SUCCESS;
  return isLive(S, Kind::Stream) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

namespace {
/// This thread's per-thread default stream: a blocking stream made on first
/// use (it synchronizes with the legacy stream, as CUDA documents) and
/// destroyed, after its work, when the thread exits.
Stream *perThreadStream() {
  struct Holder {
    Stream S;
    bool Made = false;
    ~Holder() {
      if (Made)
        backend().streamDestroy(S);
    }
  };
  thread_local Holder H;
  if (!H.Made) {
    H.S.Ctx = currentContext();
    if (backend().streamCreate(H.S) != CUDA_SUCCESS)
      return nullptr; // the legacy stream then
    H.Made = true;
  }
  return &H.S;
}
} // namespace

Stream *streamOf(CUstream S) {
  if (S == CU_STREAM_PER_THREAD)
    return perThreadStream();
  if (S == nullptr || S == CU_STREAM_LEGACY)
    return nullptr;
  return handle<Stream>(S, Kind::Stream);
}

CUstream ptsz(CUstream S) { return S ? S : CU_STREAM_PER_THREAD; }

CUresult noteFault(Context *C, CUresult R) {
  switch (R) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ECC_UNCORRECTABLE: {
    CUresult Expected = CUDA_SUCCESS;
    if (C)
      C->Sticky.compare_exchange_strong(Expected, R);
    break;
  }
  default:
    break;
  }
  return R;
}

CUresult afterWait(Context *C, CUresult R) {
  noteFault(C, R);
  if (R == CUDA_SUCCESS && C)
    R = C->Sticky.load();
  return R;
}

CUresult synchronize(Context *C) {
  if (CUresult R = C->Sticky.load())
    return R;
  return afterWait(C, backend().synchronize());
}

namespace {
/// ZLUDA_DUMP_LAUNCH (with ZLUDA_DUMP_DIR): each launch of a kernel whose
/// name contains it leaves launch-<n>.txt (the kernel, grid, block, dynamic
/// shared bytes) and launch-<n>.bin (its parameter buffer) in the dump
/// folder, to replay the launch elsewhere.
void dumpLaunch(const std::string &Name, Dim3 Grid, Dim3 Block, unsigned Shared,
                const std::vector<uint8_t> &Buf) {
  static const std::string Want = env::get("ZLUDA_DUMP_LAUNCH"), Dir = env::get("ZLUDA_DUMP_DIR");
  if (Want.empty() || Dir.empty() || Name.find(Want) == std::string::npos)
    return;
  if (std::string Why = ensurePrivateDir(Dir, "ZLUDA_DUMP_DIR folder"); !Why.empty()) {
    ZLUDA_LOG_WARN("{}; launch not dumped", Why);
    return;
  }
  static std::atomic<unsigned> Count{0};
  std::string Base = Dir + "/launch-" + std::to_string(Count++);
  std::ofstream(Base + ".txt") << Name << "\n" << Grid.X << " " << Grid.Y << " " << Grid.Z << "\n" << Block.X << " "
                               << Block.Y << " " << Block.Z << "\n" << Shared << "\n";
  std::ofstream(Base + ".bin", std::ios::binary).write(reinterpret_cast<const char *>(Buf.data()), Buf.size());
  ZLUDA_LOG_INFO("launch of {} dumped to {}.bin", Name, Base);
}
} // namespace

CUresult launch(Function *F, Dim3 Grid, Dim3 Block, unsigned Shared, CUstream Stream, void **Params,
                void **Extra, bool Cooperative, const Dim3 *Cluster) {
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  if (!F || !isLive(F, Kind::Function))
    return CUDA_ERROR_INVALID_HANDLE;
  if (CUresult R = streamCheck(Stream))
    return R;
  const ptx::KernelInfo &KI = *F->Info;
  if (!KI.Unsupported.empty()) {
    ZLUDA_LOG_ERROR("kernel {} cannot run: {}", F->Name, KI.Unsupported);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (!F->Refused.empty()) {
    // As NVIDIA's driver does for a kernel without an image for this device.
    ZLUDA_LOG_ERROR("kernel {} has machine code only, which the SASS front end {}", F->Name, F->Refused);
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
  }
  uint64_t Threads = Block.count();
  // As NVIDIA's driver: a block over 1024 threads, dynamic shared memory over
  // the kernel's limit, or parameters given both ways are invalid values.
  if (Grid.count() == 0 || Threads == 0 || Threads > 1024 || Block.X > 1024 || Block.Y > 1024 || Block.Z > 64 ||
      Grid.Y > 65535 || Grid.Z > 65535 || (Params && Extra))
    return CUDA_ERROR_INVALID_VALUE;
  if (Shared > static_cast<unsigned>(std::max(F->MaxDynamicShared, 48 * 1024)) ||
      uint64_t(Shared) + KI.StaticSharedBytes > uint64_t(backend().props().SharedOptIn))
    return CUDA_ERROR_INVALID_VALUE;
  if (Threads > KI.MaxThreadsPerBlock)
    return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  if (Cooperative && Grid.count() > uint64_t(backend().props().Multiprocessors) * 32)
    return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
  // Thread-block clusters: the launch's dimensions, else the kernel's .reqnctapercluster.
  Dim3 Cl;
  bool ClusterExplicit = Cluster || KI.ReqCluster[0];
  if (Cluster)
    Cl = *Cluster;
  else if (KI.ReqCluster[0])
    Cl = {KI.ReqCluster[0], std::max(KI.ReqCluster[1], 1u), std::max(KI.ReqCluster[2], 1u)};
  if (Cl.X == 0 || Cl.Y == 0 || Cl.Z == 0 || Grid.X % Cl.X || Grid.Y % Cl.Y || Grid.Z % Cl.Z || Cl.count() > 16)
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  if (Cl.count() > 1 && Cooperative)
    return notSupported("cooperative launches of thread-block clusters");
  if (Cl.count() > 1 && isCapturing(Stream)) // a kernel node keeps no cluster: refused rather than run now
    return notSupported("capturing launches of thread-block clusters into graphs");
  if (!Cooperative && Cl.count() == 1 && captureNode(Stream, [&] { return kernelNode(F, Grid, Block, Shared, Params, Extra); }))
    return CUDA_SUCCESS;
  std::vector<uint8_t> Buf(std::max<uint32_t>(KI.ParamBufferSize, 8), 0);
  if (Params) {
    for (size_t I = 0; I < KI.Params.size(); ++I) {
      if (!Params[I])
        return CUDA_ERROR_INVALID_VALUE;
      std::memcpy(Buf.data() + KI.Params[I].Offset, Params[I], KI.Params[I].Size);
    }
  } else if (Extra) {
    const void *Data = nullptr;
    size_t Size = 0;
    for (size_t I = 0; Extra[I] != CU_LAUNCH_PARAM_END; I += 2) {
      if (Extra[I] == CU_LAUNCH_PARAM_BUFFER_POINTER)
        Data = Extra[I + 1];
      else if (Extra[I] == CU_LAUNCH_PARAM_BUFFER_SIZE)
        Size = *static_cast<size_t *>(Extra[I + 1]);
      else
        return CUDA_ERROR_INVALID_VALUE;
    }
    // The buffer must hold every parameter; its tail padding may be left out.
    size_t Needed = 0;
    for (const auto &P : KI.Params)
      Needed = std::max<size_t>(Needed, P.Offset + P.Size);
    if (!Data || Size < Needed)
      return CUDA_ERROR_INVALID_VALUE;
    std::memcpy(Buf.data(), Data, std::min<size_t>(Size, KI.ParamBufferSize));
  } else if (!KI.Params.empty()) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  dumpLaunch(F->Name, Grid, Block, Shared, Buf);
  LaunchConfig L;
  L.Grid = Grid;
  L.Block = Block;
  L.DynShared = Shared;
  L.S = streamOf(Stream);
  L.Params = Buf.data();
  L.ParamBytes = KI.ParamBufferSize;
  L.Cooperative = Cooperative;
  L.Cluster = Cl;
  L.ClusterExplicit = ClusterExplicit;
  L.Sticky = &C->Sticky;
  CUresult Fault = CUDA_SUCCESS;
  std::string Message;
  activity::Op *A = activity::begin(ZLUDA_ACTIVITY_KERNEL, Stream);
  if (A)
    activity::kernel(A, F->Name, KI, Grid, Block, Cl, Shared, Cooperative);
  CUresult R = F->Mod->Code->launch(KI, L, Fault, Message);
  if (A)
    activity::end(A, R);
  if (R)
    return R;
  if (Fault != CUDA_SUCCESS) {
    ZLUDA_LOG_ERROR("kernel {} failed: {}", F->Name, Message);
    // Faults poison the context, as on a GPU: later calls report them.
    noteFault(C, Fault);
  }
  return CUDA_SUCCESS;
}

CUresult moduleFromFatbinForRuntime(CUmodule *Out, const void *Wrapper) {
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C = currentContext() ? currentContext() : primaryContext();
  std::unique_ptr<Module> M;
  if (CUresult R = loadModule(C, Wrapper, M))
    return R;
  Module *Raw = M.release();
  addLive(Raw, Kind::Module);
  *Out = reinterpret_cast<CUmodule>(Raw);
  return CUDA_SUCCESS;
}

bool resolveTexture(uint64_t Handle, ptx::TextureDesc &Out) {
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  auto It = S.Textures.find(Handle);
  if (It == S.Textures.end())
    return false;
  Out = It->second.Desc;
  return true;
}

} // namespace zluda::driver

using namespace zluda::driver;

// --- modules ------------------------------------------------------------------------

namespace {

/// cuModuleLoadData[Ex]: the image is loaded and compiled now (errors surface
/// here), and what went wrong reaches the JIT error log.
CUresult moduleLoad(CUmodule *Out, const void *Image, unsigned N, CUjit_option *Opts, void **Vals) {
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  JitOptions J;
  if (CUresult R = J.parse(N, Opts, Vals))
    return R;
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  std::unique_ptr<Module> M;
  std::string Why;
  if (CUresult R = loadModule(C, Image, M, &Why)) {
    J.finish("error   : " + Why + "\n", "");
    return R;
  }
  M->MaxRegisters = J.MaxRegisters;
  M->OptLevel = J.OptLevel;
  if (CUresult R = ensureCompiled(*M)) {
    J.finish("error   : " + M->CompileError + "\n", "");
    return R;
  }
  J.finish("", J.Verbose ? J.describe() : "");
  Module *Raw = M.release();
  addLive(Raw, Kind::Module);
  *Out = reinterpret_cast<CUmodule>(Raw);
  return CUDA_SUCCESS;
}

} // namespace

ZLUDA_API(cuModuleLoadData, (CUmodule *Out, const void *Image), (Out, Image)) {
  ZLUDA_GUARD({ return moduleLoad(Out, Image, 0, nullptr, nullptr); });
}
ZLUDA_API(cuModuleLoadDataEx, (CUmodule *Out, const void *Image, unsigned N, CUjit_option *Opts, void **Vals),
          (Out, Image, N, Opts, Vals)) {
  ZLUDA_GUARD({ return moduleLoad(Out, Image, N, Opts, Vals); });
}
ZLUDA_API(cuModuleLoadFatBinary, (CUmodule *Out, const void *Image), (Out, Image)) { return cuModuleLoadData(Out, Image); }
ZLUDA_API(cuModuleLoad, (CUmodule *Out, const char *Path), (Out, Path)) {
  ZLUDA_GUARD({
    if (!Out || !Path)
      return CUDA_ERROR_INVALID_VALUE;
    std::string Data;
    if (!zluda::readFile(Path, Data))
      return CUDA_ERROR_FILE_NOT_FOUND;
    Data.push_back('\0'); // PTX text ends there
    return cuModuleLoadData(Out, Data.data());
  });
}

namespace {

void unloadModule(Module *M) {
  backend().synchronize(); // kernels of the module may still be queued
  for (auto &F : M->Functions)
    removeLive(F.get());
  removeLive(M);
  releaseModule(*M);
  delete M;
}

} // namespace

void zluda::driver::releaseContextObjects(Context *C) {
  // Collected first: destroying an object takes the state lock itself.
  std::vector<std::pair<void *, Kind>> Owned;
  {
    State &S = state();
    std::lock_guard<std::mutex> G(S.Mu);
    for (auto &[P, K] : S.Live) {
      bool Mine = false;
      switch (K) {
      case Kind::Module:
        Mine = static_cast<Module *>(P)->Ctx == C && !static_cast<Module *>(P)->InLibrary;
        break;
      case Kind::Stream:
        Mine = static_cast<Stream *>(P)->Ctx == C;
        break;
      case Kind::Event:
        Mine = static_cast<Event *>(P)->Ctx == C;
        break;
      case Kind::Graph:
        Mine = static_cast<Graph *>(P)->Ctx == C;
        break;
      case Kind::GraphExec:
        Mine = static_cast<GraphExec *>(P)->Ctx == C;
        break;
      default:
        break;
      }
      if (Mine)
        Owned.emplace_back(P, K);
    }
  }
  // Work still queued finishes before anything it uses goes away.
  backend().synchronize();
  for (auto &[P, K] : Owned) {
    switch (K) {
    case Kind::Stream:
      streamDestroy(reinterpret_cast<CUstream>(P));
      break;
    case Kind::Event:
      eventDestroy(reinterpret_cast<CUevent>(P));
      break;
    case Kind::GraphExec:
      graphExecDestroy(static_cast<GraphExec *>(P));
      break;
    case Kind::Graph:
      graphDestroy(static_cast<Graph *>(P));
      break;
    default:
      break;
    }
  }
  for (auto &[P, K] : Owned)
    if (K == Kind::Module)
      unloadModule(static_cast<Module *>(P));
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  for (auto It = S.Allocs.begin(); It != S.Allocs.end();) {
    if (It->second.Ctx != C || It->second.Registered) {
      ++It;
      continue;
    }
    backend().free(reinterpret_cast<void *>(It->first), It->second.Type, It->second.Managed);
    It = S.Allocs.erase(It);
  }
}

ZLUDA_API(cuModuleUnload, (CUmodule H), (H)) {
  ZLUDA_GUARD({
    Module *M = handle<Module>(H, Kind::Module);
    if (!M)
      return CUDA_ERROR_INVALID_HANDLE;
    unloadModule(M);
    return CUDA_SUCCESS;
  });
}

ZLUDA_API(cuModuleGetFunction, (CUfunction *Out, CUmodule H, const char *Name), (Out, H, Name)) {
  ZLUDA_GUARD({
    if (!Out || !Name)
      return CUDA_ERROR_INVALID_VALUE;
    Module *M = handle<Module>(H, Kind::Module);
    if (!M)
      return CUDA_ERROR_INVALID_HANDLE;
    Function *F;
    if (CUresult R = getFunction(*M, Name, F))
      return R;
    *Out = reinterpret_cast<CUfunction>(F);
    return CUDA_SUCCESS;
  });
}

CUresult zluda::driver::moduleGlobal(Module *M, CUdeviceptr *Ptr, size_t *Size, const char *Name) {
  if (!Name)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = ensureCompiled(*M))
    return R;
  for (const ModuleCode::Variable &V : M->Code->variables())
    if (V.Name == Name) {
      if (Ptr)
        *Ptr = V.Addr;
      if (Size)
        *Size = V.Size;
      return CUDA_SUCCESS;
    }
  // A lifted cubin's variable: a place inside one of the module's data variables.
  for (const Module::Alias &A : M->Aliases)
    if (A.Name == Name)
      for (const ModuleCode::Variable &V : M->Code->variables())
        if (V.Name == A.Storage) {
          if (Ptr)
            *Ptr = V.Addr + A.Offset;
          if (Size)
            *Size = A.Size;
          return CUDA_SUCCESS;
        }
  return CUDA_ERROR_NOT_FOUND;
}

ZLUDA_API(cuModuleGetGlobal_v2, (CUdeviceptr *Ptr, size_t *Size, CUmodule H, const char *Name), (Ptr, Size, H, Name)) {
  ZLUDA_GUARD({
    Module *M = handle<Module>(H, Kind::Module);
    if (!M)
      return CUDA_ERROR_INVALID_HANDLE;
    return moduleGlobal(M, Ptr, Size, Name);
  });
}

// --- libraries (the CUDA 12+ context-independent loading that cudart uses) --------

ZLUDA_API(cuLibraryLoadData, (CUlibrary *Out, const void *Code, CUjit_option *JitOpts, void **JitVals, unsigned NJit, CUlibraryOption *LibOpts, void **LibVals, unsigned NLib), (Out, Code, JitOpts, JitVals, NJit, LibOpts, LibVals, NLib)) {
  ZLUDA_GUARD({
    if (!Out || !Code || (NLib && (!LibOpts || !LibVals)))
      return CUDA_ERROR_INVALID_VALUE;
    if (CUresult R = requireInit())
      return R;
    JitOptions J;
    if (CUresult R = J.parse(NJit, JitOpts, JitVals))
      return R;
    auto L = std::make_unique<Library>();
    std::string Why;
    if (CUresult R = loadModule(primaryContext(), Code, L->Mod, &Why)) {
      J.finish("error   : " + Why + "\n", "");
      return R;
    }
    L->Mod->InLibrary = true;
    L->Mod->OptLevel = J.OptLevel;
    // With JIT options the caller wants the compile's outcome now.
    if (NJit) {
      if (CUresult R = ensureCompiled(*L->Mod)) {
        J.finish("error   : " + L->Mod->CompileError + "\n", "");
        return R;
      }
      J.finish("", J.Verbose ? J.describe() : "");
    }
    Library *Raw = L.release();
    addLive(Raw, Kind::Library);
    *Out = reinterpret_cast<CUlibrary>(Raw);
    return CUDA_SUCCESS;
  });
}

ZLUDA_API(cuLibraryLoadFromFile, (CUlibrary *Out, const char *Path, CUjit_option * Arg2, void ** Arg3, unsigned Arg4, CUlibraryOption * Arg5, void ** Arg6, unsigned Arg7), (Out, Path, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7)) {
  ZLUDA_GUARD({
    if (!Out || !Path)
      return CUDA_ERROR_INVALID_VALUE;
    std::string Data;
    if (!zluda::readFile(Path, Data))
      return CUDA_ERROR_FILE_NOT_FOUND;
    Data.push_back('\0'); // PTX text ends there
    // The image is copied into the module (PTX text), so the buffer may go.
    return cuLibraryLoadData_impl(Out, Data.data(), Arg2, Arg3, Arg4, Arg5, Arg6, Arg7);
  });
}

ZLUDA_API(cuLibraryUnload, (CUlibrary H), (H)) {
  ZLUDA_GUARD({
    Library *L = handle<Library>(H, Kind::Library);
    if (!L)
      return CUDA_ERROR_INVALID_HANDLE;
    for (auto &F : L->Mod->Functions)
      removeLive(F.get());
    removeLive(L);
    removeLive(L->Mod.get());
    releaseModule(*L->Mod);
    delete L;
    return CUDA_SUCCESS;
  });
}

ZLUDA_API(cuLibraryGetKernel, (CUkernel *Out, CUlibrary H, const char *Name), (Out, H, Name)) {
  ZLUDA_GUARD({
    if (!Out || !Name)
      return CUDA_ERROR_INVALID_VALUE;
    Library *L = handle<Library>(H, Kind::Library);
    if (!L)
      return CUDA_ERROR_INVALID_HANDLE;
    Function *F;
    if (CUresult R = getFunction(*L->Mod, Name, F))
      return R;
    *Out = reinterpret_cast<CUkernel>(F); // a CUkernel is usable as a CUfunction
    return CUDA_SUCCESS;
  });
}

ZLUDA_API(cuLibraryGetModule, (CUmodule *Out, CUlibrary H), (Out, H)) {
  ZLUDA_GUARD({
    if (!Out)
      return CUDA_ERROR_INVALID_VALUE;
    Library *L = handle<Library>(H, Kind::Library);
    if (!L)
      return CUDA_ERROR_INVALID_HANDLE;
    if (CUresult R = ensureCompiled(*L->Mod))
      return R;
    if (!isLive(L->Mod.get(), Kind::Module))
      addLive(L->Mod.get(), Kind::Module);
    *Out = reinterpret_cast<CUmodule>(L->Mod.get());
    return CUDA_SUCCESS;
  });
}

ZLUDA_API(cuLibraryGetGlobal, (CUdeviceptr *Ptr, size_t *Size, CUlibrary H, const char *Name), (Ptr, Size, H, Name)) {
  ZLUDA_GUARD({
    Library *L = handle<Library>(H, Kind::Library);
    if (!L)
      return CUDA_ERROR_INVALID_HANDLE;
    return moduleGlobal(L->Mod.get(), Ptr, Size, Name);
  });
}
ZLUDA_API(cuLibraryGetManaged, (CUdeviceptr *Ptr, size_t *Size, CUlibrary H, const char *Name), (Ptr, Size, H, Name)) {
  return cuLibraryGetGlobal(Ptr, Size, H, Name);
}

ZLUDA_API(cuKernelGetFunction, (CUfunction *Out, CUkernel K), (Out, K)) {
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  if (!isLive(K, Kind::Function))
    return CUDA_ERROR_INVALID_HANDLE;
  *Out = reinterpret_cast<CUfunction>(K);
  return CUDA_SUCCESS;
}

ZLUDA_API(cuKernelGetName, (const char **Name, CUkernel K), (Name, K)) {
  Function *F = handle<Function>(K, Kind::Function);
  if (!Name)
    return CUDA_ERROR_INVALID_VALUE;
  if (!F)
    return CUDA_ERROR_INVALID_HANDLE;
  *Name = F->Name.c_str();
  return CUDA_SUCCESS;
}
ZLUDA_API(cuFuncGetName, (const char **Name, CUfunction Fn), (Name, Fn)) {
  return cuKernelGetName(Name, reinterpret_cast<CUkernel>(Fn));
}

// --- launches ---------------------------------------------------------------------

ZLUDA_API(cuLaunchKernel, (CUfunction Fn, unsigned GX, unsigned GY, unsigned GZ, unsigned BX, unsigned BY, unsigned BZ, unsigned Shared, CUstream S, void **Params, void **Extra), (Fn, GX, GY, GZ, BX, BY, BZ, Shared, S, Params, Extra)) {
  ZLUDA_GUARD({
    return launch(reinterpret_cast<Function *>(Fn), {GX, GY, GZ}, {BX, BY, BZ}, Shared, S, Params, Extra, false);
  });
}
ZLUDA_API(cuLaunchKernel_ptsz, (CUfunction Fn, unsigned GX, unsigned GY, unsigned GZ, unsigned BX, unsigned BY, unsigned BZ, unsigned Shared, CUstream S, void **Params, void **Extra), (Fn, GX, GY, GZ, BX, BY, BZ, Shared, S, Params, Extra)) {
  return cuLaunchKernel(Fn, GX, GY, GZ, BX, BY, BZ, Shared, ptsz(S), Params, Extra);
}
ZLUDA_API(cuLaunchCooperativeKernel, (CUfunction Fn, unsigned GX, unsigned GY, unsigned GZ, unsigned BX, unsigned BY, unsigned BZ, unsigned Shared, CUstream S, void **Params), (Fn, GX, GY, GZ, BX, BY, BZ, Shared, S, Params)) {
  ZLUDA_GUARD({
    return launch(reinterpret_cast<Function *>(Fn), {GX, GY, GZ}, {BX, BY, BZ}, Shared, S, Params, nullptr, true);
  });
}
ZLUDA_API(cuLaunchCooperativeKernel_ptsz, (CUfunction Fn, unsigned GX, unsigned GY, unsigned GZ, unsigned BX, unsigned BY, unsigned BZ, unsigned Shared, CUstream S, void **Params), (Fn, GX, GY, GZ, BX, BY, BZ, Shared, S, Params)) {
  return cuLaunchCooperativeKernel(Fn, GX, GY, GZ, BX, BY, BZ, Shared, ptsz(S), Params);
}
namespace {
CUresult checkStreamAttribute(int Attr, const CUlaunchAttributeValue &V); // stream attributes, below
}
ZLUDA_API(cuLaunchKernelEx, (const CUlaunchConfig *Cfg, CUfunction Fn, void **Params, void **Extra), (Cfg, Fn, Params, Extra)) {
  ZLUDA_GUARD({
    if (!Cfg)
      return CUDA_ERROR_INVALID_VALUE;
    bool Coop = false;
    zluda::Dim3 Cluster;
    bool HasCluster = false;
    for (unsigned I = 0; I < Cfg->numAttrs; ++I) {
      const CUlaunchAttribute &A = Cfg->attrs[I];
      if (A.id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE)
        Coop = A.value.cooperative != 0;
      else if (A.id == CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW) { // a hint, checked
        if (CUresult R = checkStreamAttribute(A.id, A.value))
          return R;
      } else if (A.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
        Cluster = {A.value.clusterDim.x, A.value.clusterDim.y, A.value.clusterDim.z};
        HasCluster = true;
      }
    }
    return launch(reinterpret_cast<Function *>(Fn), {Cfg->gridDimX, Cfg->gridDimY, Cfg->gridDimZ},
                  {Cfg->blockDimX, Cfg->blockDimY, Cfg->blockDimZ}, Cfg->sharedMemBytes, Cfg->hStream, Params, Extra,
                  Coop, HasCluster ? &Cluster : nullptr);
  });
}
ZLUDA_API(cuLaunchKernelEx_ptsz, (const CUlaunchConfig *Cfg, CUfunction Fn, void **Params, void **Extra), (Cfg, Fn, Params, Extra)) {
  if (!Cfg)
    return cuLaunchKernelEx(Cfg, Fn, Params, Extra);
  CUlaunchConfig C = *Cfg;
  C.hStream = ptsz(C.hStream);
  return cuLaunchKernelEx(&C, Fn, Params, Extra);
}

// --- streams ----------------------------------------------------------------------

CUresult zluda::driver::streamCreate(CUstream *Out, unsigned Flags, int Priority) {
  ZLUDA_GUARD({
    if (!Out || (Flags & ~1u))
      return CUDA_ERROR_INVALID_VALUE;
    Context *C;
    if (CUresult R = requireContext(C))
      return R;
    auto *S = new Stream;
    S->Ctx = C;
    S->Flags = Flags;
    S->Priority = std::clamp(Priority, -5, 0);
    if (CUresult R = backend().streamCreate(*S)) {
      delete S;
      return R;
    }
    addLive(S, Kind::Stream);
    *Out = reinterpret_cast<CUstream>(S);
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuStreamCreateWithPriority, (CUstream *Out, unsigned Flags, int Priority), (Out, Flags, Priority)) {
  return streamCreate(Out, Flags, Priority);
}

ZLUDA_API(cuStreamCreate, (CUstream *Out, unsigned Flags), (Out, Flags)) { return cuStreamCreateWithPriority(Out, Flags, 0); }
CUresult zluda::driver::streamDestroy(CUstream H) {
  ZLUDA_GUARD({
    Stream *S = handle<Stream>(H, Kind::Stream);
    if (!S)
      return CUDA_ERROR_INVALID_HANDLE;
    removeLive(S);
    // Work still queued completes first (CUDA's cuStreamDestroy returns at
    // once and finishes the work; HIP's waits for it).
    CUresult R = backend().streamDestroy(*S);
    delete S;
    return R;
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuStreamDestroy_v2, (CUstream H), (H)) { return streamDestroy(H); }

CUresult zluda::driver::streamSynchronize(CUstream H) {
  if (CUresult R = streamCheck(H))
    return R;
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  return afterWait(C, backend().streamSynchronize(streamOf(H)));
}
ZLUDA_API(cuStreamSynchronize, (CUstream H), (H)) { return streamSynchronize(H); }
ZLUDA_API(cuStreamSynchronize_ptsz, (CUstream H), (H)) { return cuStreamSynchronize(ptsz(H)); }
CUresult zluda::driver::streamQuery(CUstream H) {
  if (CUresult R = streamCheck(H))
    return R;
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  return afterWait(C, backend().streamQuery(streamOf(H)));
}
ZLUDA_API(cuStreamQuery, (CUstream H), (H)) { return streamQuery(H); }
ZLUDA_API(cuStreamQuery_ptsz, (CUstream H), (H)) { return cuStreamQuery(ptsz(H)); }
ZLUDA_API(cuStreamGetPriority, (CUstream H, int *P), (H, P)) {
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = streamCheck(H))
    return R;
  Stream *S = handle<Stream>(H, Kind::Stream);
  *P = S ? S->Priority : 0;
  return CUDA_SUCCESS;
}
ZLUDA_API(cuStreamGetPriority_ptsz, (CUstream H, int *P), (H, P)) { return cuStreamGetPriority(ptsz(H), P); }
// --- stream attributes ----------------------------------------------------------------

namespace {
/// The legacy and per-thread default streams have no Stream object: their
/// attributes are the context's.
std::map<int, CUlaunchAttributeValue> &attributesOf(CUstream H, Context *C) {
  static std::map<Context *, std::map<int, CUlaunchAttributeValue>> DefaultStreams;
  if (Stream *S = handle<Stream>(H, Kind::Stream))
    return S->Attrs;
  return DefaultStreams[C];
}
std::mutex StreamAttrsMu;

/// The attributes a stream takes (cudaStreamSetAttribute): the access policy
/// window (checked as NVIDIA's driver checks it, then a hint: the CPU device
/// and AMD GPUs have no persisting L2 set-aside), synchronization policy,
/// priority and the memory synchronization domains.
CUresult checkStreamAttribute(int Attr, const CUlaunchAttributeValue &V) {
  switch (Attr) {
  case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW: {
    const CUaccessPolicyWindow &W = V.accessPolicyWindow;
    if (W.num_bytes > static_cast<size_t>(MaxAccessPolicyWindowBytes) || !(W.hitRatio >= 0.0f && W.hitRatio <= 1.0f) ||
        W.hitProp < 0 || W.hitProp > CU_ACCESS_PROPERTY_PERSISTING || W.missProp < 0 ||
        W.missProp > CU_ACCESS_PROPERTY_STREAMING)
      return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
  }
  case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY: { // CUsynchronizationPolicy: 1 auto .. 4 blocking sync
    int P;
    std::memcpy(&P, &V, sizeof P);
    return P >= 1 && P <= 4 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  }
  case CU_LAUNCH_ATTRIBUTE_PRIORITY:
  case 9:  // CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP
  case 10: // CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}
} // namespace

ZLUDA_API(cuStreamSetAttribute, (CUstream H, int Attr, const CUlaunchAttributeValue *V), (H, Attr, V)) {
  ZLUDA_GUARD({
    if (!V)
      return CUDA_ERROR_INVALID_VALUE;
    if (CUresult R = streamCheck(H))
      return R;
    Context *C;
    if (CUresult R = requireContext(C))
      return R;
    if (CUresult R = checkStreamAttribute(Attr, *V))
      return R;
    if (Attr == CU_LAUNCH_ATTRIBUTE_PRIORITY) {
      if (Stream *S = handle<Stream>(H, Kind::Stream)) {
        int P;
        std::memcpy(&P, V, sizeof P);
        S->Priority = std::clamp(P, -5, 0);
      }
      return CUDA_SUCCESS;
    }
    std::lock_guard<std::mutex> G(StreamAttrsMu);
    attributesOf(H, C)[Attr] = *V;
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuStreamSetAttribute_ptsz, (CUstream H, int Attr, const CUlaunchAttributeValue *V), (H, Attr, V)) {
  return cuStreamSetAttribute(ptsz(H), Attr, V);
}

/// An attribute never set reads as NVIDIA's default: an empty window, the
/// automatic synchronization policy, the stream's priority, domain 0.
ZLUDA_API(cuStreamGetAttribute, (CUstream H, int Attr, CUlaunchAttributeValue *V), (H, Attr, V)) {
  ZLUDA_GUARD({
    if (!V)
      return CUDA_ERROR_INVALID_VALUE;
    if (CUresult R = streamCheck(H))
      return R;
    Context *C;
    if (CUresult R = requireContext(C))
      return R;
    CUlaunchAttributeValue Out;
    std::memset(&Out, 0, sizeof Out);
    if (Attr == CU_LAUNCH_ATTRIBUTE_PRIORITY) {
      Stream *S = handle<Stream>(H, Kind::Stream);
      int P = S ? S->Priority : 0;
      std::memcpy(&Out, &P, sizeof P);
    } else {
      if (Attr != CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW && Attr != CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY &&
          Attr != 9 && Attr != 10)
        return CUDA_ERROR_INVALID_VALUE;
      if (Attr == CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY) {
        int Auto = 1;
        std::memcpy(&Out, &Auto, sizeof Auto);
      }
      std::lock_guard<std::mutex> G(StreamAttrsMu);
      auto &A = attributesOf(H, C);
      if (auto It = A.find(Attr); It != A.end())
        Out = It->second;
    }
    std::memcpy(V, &Out, sizeof Out);
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuStreamGetAttribute_ptsz, (CUstream H, int Attr, CUlaunchAttributeValue *V), (H, Attr, V)) {
  return cuStreamGetAttribute(ptsz(H), Attr, V);
}

ZLUDA_API(cuStreamCopyAttributes, (CUstream Dst, CUstream Src), (Dst, Src)) {
  ZLUDA_GUARD({
    if (CUresult R = streamCheck(Dst))
      return R;
    if (CUresult R = streamCheck(Src))
      return R;
    Context *C;
    if (CUresult R = requireContext(C))
      return R;
    std::lock_guard<std::mutex> G(StreamAttrsMu);
    attributesOf(Dst, C) = attributesOf(Src, C);
    Stream *D = handle<Stream>(Dst, Kind::Stream), *S = handle<Stream>(Src, Kind::Stream);
    if (D)
      D->Priority = S ? S->Priority : 0;
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuStreamCopyAttributes_ptsz, (CUstream Dst, CUstream Src), (Dst, Src)) {
  return cuStreamCopyAttributes(ptsz(Dst), ptsz(Src));
}

/// Managed memory is always accessible to the CPU device and the host at
/// once (every address space is unified; on AMD GPUs HIP's managed memory
/// is coherent): attaching it to a stream, the host or globally changes no
/// access. The call is checked as NVIDIA's checks it and ordered on the stream.
ZLUDA_API(cuStreamAttachMemAsync, (CUstream H, CUdeviceptr P, size_t Length, unsigned Flags), (H, P, Length, Flags)) {
  ZLUDA_GUARD({
    if (CUresult R = streamCheck(H))
      return R;
    Context *C;
    if (CUresult R = requireContext(C))
      return R;
    // CU_MEM_ATTACH_GLOBAL 1, HOST 2, SINGLE 4: exactly one.
    if (Flags != 1 && Flags != 2 && Flags != 4)
      return CUDA_ERROR_INVALID_VALUE;
    if (Flags == 4 && !H)
      return CUDA_ERROR_INVALID_VALUE; // a single stream needs a stream
    const Allocation *A = findAllocation(P);
    if (!A || !A->Managed || (Length && Length != A->Size) || P != A->Base)
      return CUDA_ERROR_INVALID_VALUE; // the whole of a managed allocation (length 0: all of it)
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuStreamAttachMemAsync_ptsz, (CUstream H, CUdeviceptr P, size_t Length, unsigned Flags), (H, P, Length, Flags)) {
  return cuStreamAttachMemAsync(ptsz(H), P, Length, Flags);
}

ZLUDA_API(cuStreamGetFlags, (CUstream H, unsigned *F), (H, F)) {
  if (!F)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = streamCheck(H))
    return R;
  Stream *S = handle<Stream>(H, Kind::Stream);
  *F = S ? S->Flags : 0;
  return CUDA_SUCCESS;
}
ZLUDA_API(cuStreamGetFlags_ptsz, (CUstream H, unsigned *F), (H, F)) { return cuStreamGetFlags(ptsz(H), F); }
ZLUDA_API(cuStreamGetCtx, (CUstream H, CUcontext *Out), (H, Out)) {
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = streamCheck(H))
    return R;
  Stream *S = handle<Stream>(H, Kind::Stream);
  *Out = reinterpret_cast<CUcontext>(S ? S->Ctx : currentContext());
  return CUDA_SUCCESS;
}
ZLUDA_API(cuStreamGetCtx_ptsz, (CUstream H, CUcontext *Out), (H, Out)) { return cuStreamGetCtx(ptsz(H), Out); }
ZLUDA_API(cuStreamGetId, (CUstream H, unsigned long long *Id), (H, Id)) {
  if (!Id)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = streamCheck(H))
    return R;
  *Id = reinterpret_cast<uintptr_t>(H);
  return CUDA_SUCCESS;
}
ZLUDA_API(cuStreamGetId_ptsz, (CUstream H, unsigned long long *Id), (H, Id)) { return cuStreamGetId(ptsz(H), Id); }
CUresult zluda::driver::streamWaitEvent(CUstream H, CUevent E) {
  if (CUresult R = streamCheck(H))
    return R;
  Event *Ev = handle<Event>(E, Kind::Event);
  if (!Ev)
    return CUDA_ERROR_INVALID_HANDLE;
  if (captureWaitEvent(H, Ev))
    return CUDA_SUCCESS;
  if (!Ev->Recorded && !(Ev->Flags & CU_EVENT_INTERPROCESS))
    return CUDA_SUCCESS; // nothing to wait for
  return backend().streamWaitEvent(streamOf(H), *Ev);
}
ZLUDA_API(cuStreamWaitEvent, (CUstream H, CUevent E, unsigned Arg2), (H, E, Arg2)) { return streamWaitEvent(H, E); }
ZLUDA_API(cuStreamWaitEvent_ptsz, (CUstream H, CUevent E, unsigned F), (H, E, F)) { return cuStreamWaitEvent(ptsz(H), E, F); }
ZLUDA_API(cuLaunchHostFunc, (CUstream H, CUhostFn Fn, void *User), (H, Fn, User)) {
  if (!Fn)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = streamCheck(H))
    return R;
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  if (captureNode(H, [&] { return hostNode(Fn, User); }))
    return CUDA_SUCCESS;
  return launchHostFunc(H, Fn, User);
}
ZLUDA_API(cuLaunchHostFunc_ptsz, (CUstream H, CUhostFn Fn, void *User), (H, Fn, User)) { return cuLaunchHostFunc(ptsz(H), Fn, User); }
CUresult zluda::driver::launchHostFunc(CUstream H, void (*Fn)(void *), void *User) {
  return backend().hostFunc(streamOf(H), Fn, User);
}
CUresult zluda::driver::streamAddCallback(CUstream H, CUstreamCallback Fn, void *User) {
  // The callback runs in stream order, told the context's error state then.
  struct Call {
    CUstreamCallback Fn;
    CUstream H;
    void *User;
    Context *C;
  };
  auto *Pending = new Call{Fn, H, User, currentContext()};
  CUresult R = backend().hostFunc(
      streamOf(H),
      [](void *P) {
        std::unique_ptr<Call> X(static_cast<Call *>(P));
        X->Fn(X->H, X->C ? X->C->Sticky.load() : CUDA_SUCCESS, X->User);
      },
      Pending);
  if (R != CUDA_SUCCESS)
    delete Pending;
  return R;
}
ZLUDA_API(cuStreamAddCallback, (CUstream H, CUstreamCallback Fn, void *User, unsigned Flags), (H, Fn, User, Flags)) {
  if (!Fn || Flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = streamCheck(H))
    return R;
  return streamAddCallback(H, Fn, User);
}
ZLUDA_API(cuStreamAddCallback_ptsz, (CUstream H, CUstreamCallback Fn, void *User, unsigned Flags), (H, Fn, User, Flags)) {
  return cuStreamAddCallback(ptsz(H), Fn, User, Flags);
}
ZLUDA_API(cuStreamIsCapturing, (CUstream H, int *Status), (H, Status)) {
  if (!Status)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = streamCheck(H))
    return R;
  *Status = isCapturing(H) ? 1 : 0; // ACTIVE / NONE
  return CUDA_SUCCESS;
}
ZLUDA_API(cuStreamIsCapturing_ptsz, (CUstream H, int *Status), (H, Status)) { return cuStreamIsCapturing(ptsz(H), Status); }

// --- events -----------------------------------------------------------------------

CUresult zluda::driver::eventCreate(CUevent *Out, unsigned Flags) {
  ZLUDA_GUARD({
    if (!Out || (Flags & ~7u))
      return CUDA_ERROR_INVALID_VALUE;
    // An interprocess event cannot time (CUDA's rule).
    if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING))
      return CUDA_ERROR_INVALID_VALUE;
    Context *C;
    if (CUresult R = requireContext(C))
      return R;
    auto *E = new Event;
    E->Ctx = C;
    E->Flags = Flags;
    if (CUresult R = backend().eventCreate(*E)) {
      delete E;
      return R;
    }
    addLive(E, Kind::Event);
    *Out = reinterpret_cast<CUevent>(E);
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuEventCreate, (CUevent *Out, unsigned Flags), (Out, Flags)) { return eventCreate(Out, Flags); }

CUresult zluda::driver::eventDestroy(CUevent H) {
  ZLUDA_GUARD({
    Event *E = handle<Event>(H, Kind::Event);
    if (!E)
      return CUDA_ERROR_INVALID_HANDLE;
    removeLive(E);
    CUresult R = backend().eventDestroy(*E);
    delete E;
    return R;
  });
}
ZLUDA_API(cuEventDestroy_v2, (CUevent H), (H)) { return eventDestroy(H); }

CUresult zluda::driver::eventRecord(CUevent H, CUstream S) {
  Event *E = handle<Event>(H, Kind::Event);
  if (!E)
    return CUDA_ERROR_INVALID_HANDLE;
  if (CUresult R = streamCheck(S))
    return R;
  if (captureEventRecord(S, E))
    return CUDA_SUCCESS;
  E->CapturedIn = nullptr;
  if (CUresult R = backend().eventRecord(*E, streamOf(S)))
    return R;
  E->Recorded = true;
  return CUDA_SUCCESS;
}
ZLUDA_API(cuEventRecord, (CUevent H, CUstream S), (H, S)) { return eventRecord(H, S); }

ZLUDA_API(cuEventRecord_ptsz, (CUevent H, CUstream S), (H, S)) { return cuEventRecord(H, ptsz(S)); }
ZLUDA_API(cuEventRecordWithFlags, (CUevent H, CUstream S, unsigned Arg2), (H, S, Arg2)) { return cuEventRecord(H, S); }
ZLUDA_API(cuEventRecordWithFlags_ptsz, (CUevent H, CUstream S, unsigned F), (H, S, F)) {
  return cuEventRecordWithFlags(H, ptsz(S), F);
}
CUresult zluda::driver::eventQuery(CUevent H) {
  Event *E = handle<Event>(H, Kind::Event);
  if (!E)
    return CUDA_ERROR_INVALID_HANDLE;
  // An event never recorded has no work to wait for (an interprocess event
  // may have been recorded by another process: its counters say).
  if (!E->Recorded && !(E->Flags & CU_EVENT_INTERPROCESS))
    return CUDA_SUCCESS;
  return afterWait(E->Ctx, backend().eventQuery(*E));
}
ZLUDA_API(cuEventQuery, (CUevent H), (H)) { return eventQuery(H); }
CUresult zluda::driver::eventSynchronize(CUevent H) {
  Event *E = handle<Event>(H, Kind::Event);
  if (!E)
    return CUDA_ERROR_INVALID_HANDLE;
  if (CUresult R = E->Ctx->Sticky.load())
    return R;
  if (!E->Recorded && !(E->Flags & CU_EVENT_INTERPROCESS))
    return CUDA_SUCCESS;
  return afterWait(E->Ctx, backend().eventSynchronize(*E));
}
ZLUDA_API(cuEventSynchronize, (CUevent H), (H)) { return eventSynchronize(H); }
CUresult zluda::driver::eventElapsed(float *Ms, CUevent A, CUevent B) {
  if (!Ms)
    return CUDA_ERROR_INVALID_VALUE;
  Event *X = handle<Event>(A, Kind::Event), *Y = handle<Event>(B, Kind::Event);
  if (!X || !Y)
    return CUDA_ERROR_INVALID_HANDLE;
  if ((X->Flags | Y->Flags) & CU_EVENT_DISABLE_TIMING)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!X->Recorded || !Y->Recorded)
    return CUDA_ERROR_INVALID_HANDLE;
  return backend().eventElapsed(*Ms, *X, *Y);
}
ZLUDA_API(cuEventElapsedTime, (float *Ms, CUevent A, CUevent B), (Ms, A, B)) { return eventElapsed(Ms, A, B); }

ZLUDA_API(cuEventElapsedTime_v2, (float *Ms, CUevent A, CUevent B), (Ms, A, B)) { return cuEventElapsedTime(Ms, A, B); }

// --- texture objects --------------------------------------------------------------------

ZLUDA_API(cuTexObjectCreate, (CUtexObject *Out, const CUDA_RESOURCE_DESC *Res, const CUDA_TEXTURE_DESC *Tex, const void * Arg3), (Out, Res, Tex, Arg3)) {
  return texObjectCreate(Out, Res, Tex);
}

CUresult zluda::driver::texObjectDestroy(CUtexObject H) {
  State &S = state();
  void *Device;
  {
    std::lock_guard<std::mutex> G(S.Mu);
    if (!S.Textures.count(H))
      return CUDA_ERROR_INVALID_VALUE;
  }
  backend().retireDescriptor(); // launches enqueued before this call still sample it
  {
    std::lock_guard<std::mutex> G(S.Mu);
    auto It = S.Textures.find(H);
    if (It == S.Textures.end())
      return CUDA_ERROR_INVALID_VALUE;
    Device = It->second.Device;
    S.Textures.erase(It);
  }
  backend().descriptorRetired();
  if (Device)
    backend().free(Device, CU_MEMORYTYPE_DEVICE, false);
  return CUDA_SUCCESS;
}
ZLUDA_API(cuTexObjectDestroy, (CUtexObject H), (H)) { return texObjectDestroy(H); }

