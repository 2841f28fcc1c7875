//===- HostRuntime.cpp - device runtime calls of CPU kernels --------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file printf, assert, malloc/free, device-side launches, memcheck, directed
/// rounding, textures and surfaces for the CPU device, and the table of host
/// functions compiled kernels call by name (hostSymbols()).
#include "cpu/ExecutorImpl.h"
#include "cpu/Memcheck.h"
#include "ptx/codegen/Lowering.h"
#include "ptx/codegen/PrintfFormat.h"
#include "ptx/codegen/TextureSampling.h"

#include "common/Log.h"

#include <cfenv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace zluda::cpu::exec {

TextureResolver &textureResolver() {
  static TextureResolver R;
  return R;
}
std::mutex TexMu;
std::atomic<uint64_t> TextureGeneration{1};

extern "C" {

std::mutex PrintMu;
/// A string from device memory as printf and assert print it: read up to its
/// NUL or 64 KiB, never further; \p IfNull for a null pointer.
static std::string deviceString(const char *S, const char *IfNull) {
  constexpr size_t MaxDeviceString = 1 << 16;
  return S ? std::string(S, strnlen(S, MaxDeviceString)) : std::string(IfNull);
}

int32_t hostVprintf(ZludaThreadCtx *Thread, const char *DevFmt, const char *Args) {
  namespace pf = ptx::printf;
  if (!DevFmt)
    return -1;
  const std::string FmtText = deviceString(DevFmt, "");
  const char *Fmt = FmtText.c_str();
  // The argument buffer is read for at most pf::MaxArgs arguments, and never past the
  // end of the thread's stack (where local memory is) or of the block's
  // shared memory when it lies there: a format asking for more arguments than
  // were passed prints those conversions as text instead.
  size_t Limit = pf::MaxArgs * 8;
  auto within = [&](const char *Lo, const char *Hi) {
    if (Args && Lo && Args >= Lo && Args < Hi)
      Limit = std::min<size_t>(Limit, size_t(Hi - Args));
  };
  within(Thread->StackLo, Thread->StackHi);
  within(Thread->SharedBase, Thread->SharedBase + Thread->SharedBytes);
  std::string Out;
  unsigned Pos = 0, Done = 0, Off = 0, ArgsRead = 0;
  auto read = [&](unsigned Bytes, void *To) {
    unsigned At = pf::take(Off, Bytes);
    if (ArgsRead >= pf::MaxArgs || At + Bytes > Limit)
      return false;
    ++ArgsRead;
    std::memcpy(To, Args + At, Bytes);
    return true;
  };
  pf::Conversion C;
  while (pf::next(Fmt, Pos, C)) {
    Out.append(Fmt + Done, C.Start - Done);
    Done = C.End;
    if (C.Conv == '%') {
      Out += '%';
      continue;
    }
    // The spec without its length modifier; 8-byte integers get "ll".
    std::string Spec(Fmt + C.Start, C.LengthStart - C.Start);
    if (C.Kind == pf::Arg::None || !Args) {
      Out.append(Fmt + C.Start, C.End - C.Start);
      continue;
    }
    int Star[2] = {0, 0};
    bool Have = true;
    for (unsigned I = 0; I < C.Stars && I < 2; ++I)
      Have &= read(4, &Star[I]);
    // One conversion's text, whatever its length (a long %s, a wide field).
    std::string Buf;
    auto format = [&](auto V) {
      auto print = [&](char *To, size_t N) {
        if (C.Stars == 2)
          return std::snprintf(To, N, Spec.c_str(), Star[0], Star[1], V);
        if (C.Stars == 1)
          return std::snprintf(To, N, Spec.c_str(), Star[0], V);
        return std::snprintf(To, N, Spec.c_str(), V);
      };
      int Len = print(nullptr, 0);
      if (Len <= 0 || Len > (1 << 24)) { // an absurd width: print nothing rather than allocate it
        Buf.clear();
        return;
      }
      Buf.assign(size_t(Len) + 1, '\0');
      print(Buf.data(), Buf.size());
      Buf.resize(size_t(Len));
    };
    switch (C.Kind) {
    case pf::Arg::Int32: {
      int V;
      if (!(Have &= read(4, &V)))
        break;
      Spec += C.Conv;
      format(V);
      break;
    }
    case pf::Arg::Int64: {
      long long V;
      if (!(Have &= read(8, &V)))
        break;
      Spec += "ll";
      Spec += C.Conv;
      format(V);
      break;
    }
    case pf::Arg::Double: {
      double V;
      if (!(Have &= read(8, &V)))
        break;
      Spec += C.Conv;
      format(V);
      break;
    }
    case pf::Arg::String: {
      const char *V;
      if (!(Have &= read(8, &V)))
        break;
      Spec += 's';
      format(deviceString(V, "(null)").c_str());
      break;
    }
    default: {
      void *V;
      if (!(Have &= read(8, &V)))
        break;
      Spec += 'p';
      format(V);
      break;
    }
    }
    if (Have)
      Out += Buf;
    else // past the arguments that were passed
      Out.append(Fmt + C.Start, C.End - C.Start);
  }
  Out += Fmt + Done;
  std::lock_guard<std::mutex> G(PrintMu);
  std::fwrite(Out.data(), 1, Out.size(), stdout);
  std::fflush(stdout);
  return static_cast<int32_t>(Out.size());
}

void hostAssertfail(ZludaThreadCtx *C, const char *Msg, const char *File, uint32_t Line, const char *Func,
                    uint64_t) {
  {
    std::lock_guard<std::mutex> G(PrintMu);
    std::fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n",
                 deviceString(File, "?").c_str(), Line, deviceString(Func, "?").c_str(), C->CtaId[0], C->CtaId[1],
                 C->CtaId[2], C->Tid[0], C->Tid[1], C->Tid[2], deviceString(Msg, "?").c_str());
  }
  unwindKernel(JmpAssert);
}

void *hostMalloc(ZludaThreadCtx *, uint64_t Size) {
  void *P = std::malloc(Size ? Size : 1);
  memcheck::track(P, Size, "device-side malloc");
  return P;
}

// --- dynamic parallelism (cudaGetParameterBuffer[V2] / cudaLaunchDevice[V2]) ---

constexpr int32_t CudaErrorInvalidValue = 1, CudaErrorInvalidConfiguration = 9,
                  CudaErrorLaunchMaxDepthExceeded = 65, CudaErrorInvalidDeviceFunction = 98,
                  CudaErrorNotSupported = 801;
constexpr unsigned MaxLaunchDepth = 24; // CUDA's nesting limit

void readDim(const uint32_t *P, Dim3 &D) {
  if (P) {
    D.X = P[0];
    D.Y = P[1];
    D.Z = P[2];
  }
}

/// \p KernelRef points to the kernel's NUL-terminated name (how the compiler
/// spells a kernel's address); 0 when the launch names it later.
void *hostCdpBuffer(ZludaThreadCtx *C, uint64_t KernelRef, const uint32_t *Grid, const uint32_t *Block,
                    uint32_t Shared, uint64_t Size) {
  auto *Q = static_cast<DeviceLaunchQueue *>(C->DeviceLaunches);
  if (!Q)
    return nullptr;
  auto R = std::make_unique<DeviceLaunch>();
  if (KernelRef) {
    R->Kernel = reinterpret_cast<const char *>(KernelRef);
    long Bytes = Q->ParamBytes(R->Kernel);
    if (Bytes < 0)
      return nullptr;
    Size = std::max<uint64_t>(Size, static_cast<uint64_t>(Bytes));
  }
  readDim(Grid, R->Grid);
  readDim(Block, R->Block);
  R->Shared = Shared;
  R->ParamBytes = std::max<uint64_t>(Size, 8);
  R->Params.reset(new uint64_t[(R->ParamBytes + 7) / 8]());
  void *Buf = R->Params.get();
  memcheck::track(Buf, R->ParamBytes, "device-side launch's parameter buffer");
  std::lock_guard<std::mutex> G(Q->Mu);
  Q->Records.push_back(std::move(R));
  return Buf;
}

int32_t hostCdpLaunch(ZludaThreadCtx *C, void *Buf, uint64_t Stream, uint64_t KernelRef, const uint32_t *Grid,
                      const uint32_t *Block, uint32_t Shared) {
  auto *Q = static_cast<DeviceLaunchQueue *>(C->DeviceLaunches);
  if (!Q)
    return CudaErrorNotSupported;
  if (Q->Depth + 1 >= MaxLaunchDepth)
    return CudaErrorLaunchMaxDepthExceeded;
  std::lock_guard<std::mutex> G(Q->Mu);
  DeviceLaunch *R = nullptr;
  for (auto &X : Q->Records)
    if (X->Params.get() == Buf && !X->Launched)
      R = X.get();
  if (!R)
    return CudaErrorInvalidValue;
  if (KernelRef) {
    R->Kernel = reinterpret_cast<const char *>(KernelRef);
    if (Q->ParamBytes(R->Kernel) < 0)
      return CudaErrorInvalidDeviceFunction;
  }
  if (Grid) {
    readDim(Grid, R->Grid);
    readDim(Block, R->Block);
    R->Shared = Shared;
  }
  if (R->Kernel.empty())
    return CudaErrorInvalidDeviceFunction;
  if (R->Grid.count() == 0 || R->Block.count() == 0 || R->Block.count() > 1024 || R->Block.Z > 64)
    return CudaErrorInvalidConfiguration;
  R->Stream = Stream;
  R->Launched = true;
  (Stream == 3 ? Q->Tail : Q->Order).push_back(R); // 3: cudaStreamTailLaunch
  return 0;
}

void hostFree(ZludaThreadCtx *, void *P) {
  memcheck::untrack(P);
  std::free(P);
}

void hostMemcheck(ZludaThreadCtx *C, const char *P, uint64_t Bytes, uint32_t Access, uint32_t Line, const char *Fn) {
  if ((Access & ptx::MemcheckKindMask) == ptx::MemcheckSync) { // an mbarrier phase this thread waited for
    if (Bytes && C->Fiber)
      static_cast<Fiber *>(C->Fiber)->Race.Block++;
    return;
  }
  if (int E = memcheck::check(C, P, Bytes, Access, Line, Fn))
    unwindKernel(E == 2 ? JmpMemcheckMisaligned : JmpMemcheck);
  // Shared memory (through a .shared or a generic address): racecheck's record.
  uint64_t Off = static_cast<uint64_t>(P - C->SharedBase);
  if (racecheck::enabled() && P >= C->SharedBase && Off < C->SharedBytes &&
      (Access & ptx::MemcheckKindMask) != ptx::MemcheckAtomic) {
    static const racecheck::Epochs None; // threads run one after another: nothing orders them
    const racecheck::Epochs &E = C->Fiber ? static_cast<Fiber *>(C->Fiber)->Race : None;
    worker().Race.access(C, E, Off, Bytes, (Access & ptx::MemcheckKindMask) == ptx::MemcheckWrite, Line, Fn);
  }
}

uint64_t hostGlobaltimer(ZludaThreadCtx *) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

// Directed rounding: switch the FPU mode around one operation. The volatile
// keeps the compiler from folding or moving the operation across fesetround.
static int fenvMode(uint32_t Mode) {
  return Mode == 1 ? FE_TOWARDZERO : Mode == 2 ? FE_DOWNWARD : Mode == 3 ? FE_UPWARD : FE_TONEAREST;
}

} // extern "C"

template <typename T> static T fop(uint32_t Op, uint32_t Mode, T A, T B, T Cc) {
  int Old = std::fegetround();
  std::fesetround(fenvMode(Mode));
  volatile T VA = A, VB = B, VC = Cc;
  volatile T R;
  switch (Op) {
  case 0: R = VA + VB; break;
  case 1: R = VA - VB; break;
  case 2: R = VA * VB; break;
  case 3: R = VA / VB; break;
  case 4: R = std::fma(static_cast<T>(VA), static_cast<T>(VB), static_cast<T>(VC)); break;
  case 5: R = std::sqrt(static_cast<T>(VA)); break;
  default: R = T(1) / VA; break;
  }
  T Out = R;
  std::fesetround(Old);
  return Out;
}

extern "C" {

float __zluda_host_fop_f32(uint32_t Op, uint32_t Mode, float A, float B, float C) { return fop<float>(Op, Mode, A, B, C); }
double __zluda_host_fop_f64(uint32_t Op, uint32_t Mode, double A, double B, double C) {
  return fop<double>(Op, Mode, A, B, C);
}
float __zluda_host_i64_to_f32(uint64_t V, uint32_t Signed, uint32_t Mode) {
  int Old = std::fegetround();
  std::fesetround(fenvMode(Mode));
  volatile float R = Signed ? static_cast<float>(static_cast<int64_t>(V)) : static_cast<float>(V);
  float Out = R;
  std::fesetround(Old);
  return Out;
}
double __zluda_host_i64_to_f64(uint64_t V, uint32_t Signed, uint32_t Mode) {
  int Old = std::fegetround();
  std::fesetround(fenvMode(Mode));
  volatile double R = Signed ? static_cast<double>(static_cast<int64_t>(V)) : static_cast<double>(V);
  double Out = R;
  std::fesetround(Old);
  return Out;
}

/// The description behind a texture or surface handle; a handle the driver
/// does not know ends the kernel with an illegal address.
/// Each worker keeps the last few descriptions it resolved (a kernel samples
/// one texture millions of times; the driver's table is behind two locks),
/// dropped whenever a handle goes away (texturesChanged()).
static const TextureDesc &describe(uint64_t Handle) {
  struct Cache {
    uint64_t Generation = 0;
    uint64_t Handles[4] = {};
    TextureDesc Descs[4];
    unsigned Next = 0;
  };
  thread_local Cache TC;
  const uint64_t Gen = TextureGeneration.load(std::memory_order_acquire);
  if (TC.Generation != Gen) {
    TC = Cache();
    TC.Generation = Gen;
  }
  for (unsigned I = 0; I < 4; ++I)
    if (TC.Handles[I] == Handle && Handle)
      return TC.Descs[I];
  TextureDesc T;
  bool Ok;
  {
    std::lock_guard<std::mutex> G(TexMu);
    Ok = textureResolver() && textureResolver()(Handle, T);
  }
  if (!Ok || !T.Data)
    unwindKernel(SIGSEGV);
  unsigned Slot = TC.Next++ % 4;
  TC.Handles[Slot] = Handle;
  TC.Descs[Slot] = T;
  return TC.Descs[Slot];
}

// Textures: the driver's table gives the descriptor; sampling is shared with
// the AMDGPU runtime (ptx/codegen/TextureSampling.h).
void hostTexFetch(ZludaThreadCtx *, uint64_t Handle, uint32_t Geom, uint32_t C0, uint32_t C1, uint32_t C2,
                  uint32_t C3, uint32_t IntCoords, uint32_t *Out, uint32_t) {
  const uint32_t Raw[4] = {C0, C1, C2, C3};
  zluda::ptx::textureFetch(describe(Handle), Geom, Raw, IntCoords != 0, Out);
}

void hostTexSample(ZludaThreadCtx *, uint64_t Handle, uint32_t Geom, const uint32_t *Raw, uint32_t IntCoords,
                   uint32_t *Out, uint32_t Mode, const float *Extra) {
  zluda::ptx::textureSample(describe(Handle), Geom, Raw, IntCoords != 0, Mode, Extra, Out);
}

int32_t hostTexQuery(ZludaThreadCtx *, uint64_t Handle, uint32_t Query, uint32_t Level) {
  return zluda::ptx::textureQuery(describe(Handle), Query, Level);
}

void hostSurfLoad(ZludaThreadCtx *, uint64_t Handle, uint32_t Geom, const uint32_t *Raw, uint32_t Bytes, uint32_t Vec,
                  uint32_t Flags, unsigned char *Buf) {
  if (int E = zluda::ptx::surfaceLoad(describe(Handle), Geom, Raw, Bytes, Vec, Flags, Buf))
    unwindKernel(E == zluda::ptx::SurfaceMisaligned ? JmpMisaligned : SIGSEGV); // or .trap outside
}

void hostSurfStore(ZludaThreadCtx *, uint64_t Handle, uint32_t Geom, const uint32_t *Raw, uint32_t Bytes, uint32_t Vec,
                   uint32_t Flags, const unsigned char *Buf) {
  if (int E = zluda::ptx::surfaceStore(describe(Handle), Geom, Raw, Bytes, Vec, Flags, Buf))
    unwindKernel(E == zluda::ptx::SurfaceMisaligned ? JmpMisaligned : SIGSEGV);
}

} // extern "C"

namespace {

const HostSymbol Symbols[] = {
    {"__zluda_ptx_barrier", reinterpret_cast<void *>(&hostBarrier)},
    {"__zluda_ptx_warp_sync", reinterpret_cast<void *>(&hostWarpSync)},
    {"__zluda_ptx_activemask", reinterpret_cast<void *>(&hostActivemask)},
    {"__zluda_ptx_shfl", reinterpret_cast<void *>(&hostShfl)},
    {"__zluda_ptx_vote", reinterpret_cast<void *>(&hostVote)},
    {"__zluda_ptx_match", reinterpret_cast<void *>(&hostMatch)},
    {"__zluda_ptx_redux", reinterpret_cast<void *>(&hostRedux)},
    {"__zluda_ptx_exit", reinterpret_cast<void *>(&hostExit)},
    {"__zluda_ptx_wmma", reinterpret_cast<void *>(&hostWmma)},
    {"__zluda_ptx_mma_m16n8k16", reinterpret_cast<void *>(&hostMmaM16n8k16)},
    {"__zluda_ptx_mma_generic", reinterpret_cast<void *>(&hostMmaGeneric)},
    {"__zluda_ptx_wgmma", reinterpret_cast<void *>(&hostWgmma)},
    {"__zluda_ptx_ldmatrix", reinterpret_cast<void *>(&hostLdmatrix)},
    {"__zluda_ptx_trap", reinterpret_cast<void *>(&hostTrap)},
    {"__zluda_ptx_nanosleep", reinterpret_cast<void *>(&hostNanosleep)},
    {"__zluda_ptx_vprintf", reinterpret_cast<void *>(&hostVprintf)},
    {"__zluda_ptx_assertfail", reinterpret_cast<void *>(&hostAssertfail)},
    {"__zluda_ptx_malloc", reinterpret_cast<void *>(&hostMalloc)},
    {"__zluda_ptx_free", reinterpret_cast<void *>(&hostFree)},
    {"__zluda_memcheck", reinterpret_cast<void *>(&hostMemcheck)},
    {"__zluda_ptx_cdp_buffer", reinterpret_cast<void *>(&hostCdpBuffer)},
    {"__zluda_ptx_cdp_launch", reinterpret_cast<void *>(&hostCdpLaunch)},
    {"__zluda_ptx_grid_sync", reinterpret_cast<void *>(&hostGridSync)},
    {"__zluda_ptx_cluster_barrier", reinterpret_cast<void *>(&hostClusterBarrier)},
    {"__zluda_ptx_tex_fetch", reinterpret_cast<void *>(&hostTexFetch)},
    {"__zluda_ptx_tex_sample", reinterpret_cast<void *>(&hostTexSample)},
    {"__zluda_ptx_tex_query", reinterpret_cast<void *>(&hostTexQuery)},
    {"__zluda_ptx_surf_load", reinterpret_cast<void *>(&hostSurfLoad)},
    {"__zluda_ptx_surf_store", reinterpret_cast<void *>(&hostSurfStore)},
    {"__zluda_ptx_sreg_globaltimer", reinterpret_cast<void *>(&hostGlobaltimer)},
    {"__zluda_host_fop_f32", reinterpret_cast<void *>(&__zluda_host_fop_f32)},
    {"__zluda_host_fop_f64", reinterpret_cast<void *>(&__zluda_host_fop_f64)},
    {"__zluda_host_i64_to_f32", reinterpret_cast<void *>(&__zluda_host_i64_to_f32)},
    {"__zluda_host_i64_to_f64", reinterpret_cast<void *>(&__zluda_host_i64_to_f64)},
};

} // namespace

} // namespace zluda::cpu::exec

namespace zluda::cpu {

using namespace exec;

void texturesChanged() { TextureGeneration.fetch_add(1, std::memory_order_release); }

const HostSymbol *hostSymbols(size_t &Count) {
  Count = std::size(Symbols);
  return Symbols;
}

void Executor::setTextureResolver(TextureResolver R) {
  std::lock_guard<std::mutex> G(TexMu);
  textureResolver() = std::move(R);
}

} // namespace zluda::cpu
