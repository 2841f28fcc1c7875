//===- DeviceRuntime.cpp - the AMDGPU device runtime (compiled to bitcode) --===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Implements ptx/codegen/DeviceRuntime.def for amdgcn. Built twice with
/// clang at build time, for 32-lane waves (RDNA) and for 64-lane waves (CDNA,
/// ZLUDA_WAVE64=1), and linked into every module before optimization, so
/// everything inlines. The thread context argument is unused: the hardware
/// knows where a work-item is.
///
/// 32-lane warps on 64-lane waves: a wave holds two warps, lanes 0-31 and
/// 32-63 (work-items are packed into waves in linear order, so a warp is
/// exactly 32 consecutive linear ids as in CUDA). Lane ids, ballots, masks
/// and shuffles are taken within the lane's half of the wave.
///
/// ZLUDA_WAVE64_SLOW_MODE (built a third time, ZLUDA_WAVE64_SLOW=1): one warp
/// a wave, lanes 32-63 idle, so two warps never share a wave's program
/// counter. The launch is a 1-D workgroup of 64 work-items per warp and
/// passes the CUDA block's shape, through which %tid and %ntid are computed.
///
/// printf and __assertfail's message go through the HIP runtime's hostcall
/// printf service (the device libraries' __ockl_printf_*), as HIP's printf
/// does. Not on this target yet (they trap, and the compiler marks the
/// kernels that reach them as unsupported): malloc/free, texture fetches.
/// mma, wmma and ldmatrix are computed in software through lane shuffles.
#include <stdint.h>

#include "ptx/codegen/PrintfFormat.h"
#include "ptx/codegen/TextureSampling.h"
#include "ptx/codegen/WarpSemantics.h"

#define RT extern "C" __attribute__((always_inline))
typedef void Ctx;
#define AS3 __attribute__((address_space(3)))
#define AS4 __attribute__((address_space(4)))

// --- lanes and warps ---------------------------------------------------------------
static inline uint32_t physLane() {
#if ZLUDA_WAVE64
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
#else
  return __builtin_amdgcn_mbcnt_lo(~0u, 0u);
#endif
}
/// First physical lane of this lane's warp.
static inline uint32_t warpBase() { return physLane() & 32; }
/// The warp's lanes whose \p P is true (llvm.amdgcn.icmp: one bit a lane).
static inline uint32_t ballot(bool P) {
  uint64_t B = __builtin_amdgcn_uicmp((uint32_t)P, 0u, 33 /* ICMP_NE */);
#if ZLUDA_WAVE64
  return (uint32_t)(B >> warpBase());
#else
  return (uint32_t)B;
#endif
}
/// The value of \p V in lane \p Lane (0..31) of this warp (0 if that lane is
/// not active).
static inline uint32_t fromLane(uint32_t V, uint32_t Lane) {
  return (uint32_t)__builtin_amdgcn_ds_bpermute((int)((warpBase() + (Lane & 31)) << 2), (int)V);
}

// --- special registers ---------------------------------------------------------------
static inline const AS4 uint16_t *dispatch16() { return (const AS4 uint16_t *)__builtin_amdgcn_dispatch_ptr(); }
static inline const AS4 uint32_t *dispatch32() { return (const AS4 uint32_t *)__builtin_amdgcn_dispatch_ptr(); }
/// hsa_kernel_dispatch_packet: workgroup_size_x/y/z are u16 at bytes 4/6/8,
/// grid_size_x/y/z u32 at 12/16/20, group_segment_size u32 at 28.
static inline uint32_t physNtid(uint32_t D) { return dispatch16()[2 + (D > 2 ? 2 : D)]; }
#if ZLUDA_WAVE64_SLOW
// ZLUDA_WAVE64_SLOW_MODE: the workgroup is 1-D, one wave per warp, and only
// lanes 0-31 of each wave are CUDA threads (the kernel entry point returns at
// once in the others). The context pointer is the block's x, y, z that the
// launch appended to the kernarg segment.
static inline uint32_t linearTid() { return (__builtin_amdgcn_workitem_id_x() >> 6) * 32 + (physLane() & 31); }
RT uint32_t __zluda_ptx_sreg_ntid(Ctx *C, uint32_t D) { return ((const uint32_t *)C)[D > 2 ? 2 : D]; }
RT uint32_t __zluda_ptx_sreg_tid(Ctx *C, uint32_t D) {
  uint32_t L = linearTid(), X = __zluda_ptx_sreg_ntid(C, 0), Y = __zluda_ptx_sreg_ntid(C, 1);
  return D == 0 ? L % X : D == 1 ? (L / X) % Y : L / (X * Y);
}
static inline uint32_t blockThreads(Ctx *C) {
  return __zluda_ptx_sreg_ntid(C, 0) * __zluda_ptx_sreg_ntid(C, 1) * __zluda_ptx_sreg_ntid(C, 2);
}
/// Whether this work-item is a CUDA thread (called by the kernel entry point).
RT uint32_t __zluda_amdgpu_slow_active(Ctx *C) { return physLane() < 32 && linearTid() < blockThreads(C); }
#else
RT uint32_t __zluda_ptx_sreg_tid(Ctx *, uint32_t D) {
  return D == 0 ? __builtin_amdgcn_workitem_id_x() : D == 1 ? __builtin_amdgcn_workitem_id_y()
                                                           : __builtin_amdgcn_workitem_id_z();
}
RT uint32_t __zluda_ptx_sreg_ntid(Ctx *, uint32_t D) { return physNtid(D); }
static inline uint32_t linearTid() {
  return __zluda_ptx_sreg_tid(0, 0) +
         __zluda_ptx_sreg_ntid(0, 0) * (__zluda_ptx_sreg_tid(0, 1) + __zluda_ptx_sreg_ntid(0, 1) * __zluda_ptx_sreg_tid(0, 2));
}
static inline uint32_t blockThreads(Ctx *) { return physNtid(0) * physNtid(1) * physNtid(2); }
#endif
RT uint32_t __zluda_ptx_sreg_ctaid(Ctx *, uint32_t D) {
  return D == 0 ? __builtin_amdgcn_workgroup_id_x() : D == 1 ? __builtin_amdgcn_workgroup_id_y()
                                                            : __builtin_amdgcn_workgroup_id_z();
}
RT uint32_t __zluda_ptx_sreg_nctaid(Ctx *, uint32_t D) {
  uint32_t G = dispatch32()[3 + (D > 2 ? 2 : D)], N = physNtid(D);
  return (G + N - 1) / N;
}
RT uint32_t __zluda_ptx_sreg_laneid(Ctx *) { return physLane() & 31; }
RT uint32_t __zluda_ptx_sreg_warpid(Ctx *) { return linearTid() >> 5; }
RT uint32_t __zluda_ptx_sreg_nwarpid(Ctx *C) { return (blockThreads(C) + 31) >> 5; }
RT uint32_t __zluda_ptx_sreg_smid(Ctx *) { return 0; }
RT uint32_t __zluda_ptx_sreg_nsmid(Ctx *) { return 1; }
RT uint64_t __zluda_ptx_sreg_gridid(Ctx *) { return 1; }
RT uint64_t __zluda_ptx_sreg_clock64(Ctx *) { return __builtin_readcyclecounter(); }
RT uint64_t __zluda_ptx_sreg_globaltimer(Ctx *) { return __builtin_readcyclecounter(); }
RT uint32_t __zluda_ptx_sreg_envreg(Ctx *, uint32_t) { return 0; }

// --- shared and local memory ---------------------------------------------------------------
/// All of a block's shared memory (static and dynamic) is the dynamic LDS
/// allocation: the launch asks for the module's static size plus the
/// launch's dynamic size. (The compiler replaces dyn_shared_offset with the
/// module's static size before this runtime is linked.)
extern AS3 char __zluda_lds[];
RT char *__zluda_ptx_shared_base(Ctx *) { return (char *)(AS3 char *)__zluda_lds; }
RT uint32_t __zluda_ptx_sreg_total_smem_size(Ctx *) { return dispatch32()[7]; }
RT uint64_t __zluda_ptx_dyn_shared_offset(Ctx *);
RT uint32_t __zluda_ptx_sreg_dynamic_smem_size(Ctx *C) {
  return dispatch32()[7] - (uint32_t)__zluda_ptx_dyn_shared_offset(C);
}
typedef const __attribute__((address_space(0))) void *Flat;
RT bool __zluda_ptx_is_shared(Ctx *, char *P) { return __builtin_amdgcn_is_shared((Flat)P); }
RT bool __zluda_ptx_is_local(Ctx *, char *P) { return __builtin_amdgcn_is_private((Flat)P); }

// --- barriers ---------------------------------------------------------------------------------
static inline void blockBarrier() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
static AS3 uint32_t BarrierCount [[clang::loader_uninitialized]];

// Named barriers: `bar.sync 0` without a thread count (__syncthreads) is the
// hardware barrier; any other id, a thread count, and bar.arrive use a
// software barrier per id in LDS: arrivals are counted per warp (32 threads,
// as PTX counts them), the arrival that completes the count starts the next
// generation, and waiting warps spin (one lane each) until it changes. Warps
// sharing a 64-lane wave advance together, so warps that wait on each other
// through these need ZLUDA_WAVE64_SLOW_MODE on wave64 GPUs.
[[clang::loader_uninitialized]] static AS3 uint32_t NamedArrived[16];
[[clang::loader_uninitialized]] static AS3 uint32_t NamedGeneration[16];
/// Called by the entry point of every kernel that can reach a barrier.
RT void __zluda_amdgpu_init_barriers(Ctx *) {
  uint32_t T = linearTid();
  if (T < 16) {
    NamedArrived[T] = 0;
    NamedGeneration[T] = 0;
  }
  blockBarrier();
}
static inline void namedBarrier(uint32_t Id, uint32_t Count, bool Wait) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  if ((physLane() & 31) == (uint32_t)__builtin_ctz(ballot(true))) {
    uint32_t Gen = __atomic_load_n(&NamedGeneration[Id], __ATOMIC_ACQUIRE);
    uint32_t Now = __atomic_add_fetch(&NamedArrived[Id], 32u, __ATOMIC_ACQ_REL);
    if (Now >= Count) {
      // Arrivals for the next generation that came early are kept.
      __atomic_fetch_sub(&NamedArrived[Id], Count, __ATOMIC_RELAXED);
      __atomic_fetch_add(&NamedGeneration[Id], 1u, __ATOMIC_RELEASE);
    } else if (Wait) {
      while (__atomic_load_n(&NamedGeneration[Id], __ATOMIC_ACQUIRE) == Gen)
        __builtin_amdgcn_s_sleep(1);
    }
  }
  // The warp's other lanes reconverge with its leader here.
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

/// Kinds: 0 sync, 1 arrive, 2 red.popc, 3 red.and, 4 red.or.
RT uint32_t __zluda_ptx_barrier(Ctx *C, uint32_t Id, uint32_t Count, uint32_t Kind, uint32_t Pred) {
  if (Kind < 2 && (Id != 0 || Count != 0 || Kind == 1)) {
    uint32_t All = (blockThreads(C) + 31) / 32 * 32;
    namedBarrier(Id & 15, Count ? (Count + 31) / 32 * 32 : All, Kind == 0);
    return 0;
  }
  blockBarrier();
  if (Kind < 2)
    return 0;
  if (linearTid() == 0)
    BarrierCount = 0;
  blockBarrier();
  if (Pred)
    __atomic_fetch_add(&BarrierCount, 1u, __ATOMIC_RELAXED);
  blockBarrier();
  uint32_t N = BarrierCount;
  blockBarrier();
  uint32_t All = Count ? Count : blockThreads(C);
  return Kind == 2 ? N : Kind == 3 ? (uint32_t)(N == All) : (uint32_t)(N != 0);
}

// --- warp collectives -----------------------------------------------------------------------
RT void __zluda_ptx_warp_sync(Ctx *, uint32_t) {
  __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "wavefront");
  __builtin_amdgcn_wave_barrier();
}
RT uint32_t __zluda_ptx_activemask(Ctx *, uint32_t) { return ballot(true); }
RT int32_t __zluda_ptx_shfl(Ctx *, uint32_t Mode, uint32_t Value, uint32_t Bv, uint32_t Cv, uint32_t,
                            uint32_t *PredOut) {
  bool PVal;
  int J = zluda::ptx::shflSourceLane(Mode, (int)(physLane() & 31), Bv, Cv, PVal);
  *PredOut = PVal;
  return (int32_t)fromLane(Value, (uint32_t)J);
}
RT uint32_t __zluda_ptx_vote(Ctx *, uint32_t Mode, uint32_t Pred, uint32_t Mask) {
  uint32_t Eff = Mask & ballot(true), B = ballot(Pred != 0) & Eff;
  switch (Mode) {
  case 0:
    return B == Eff;
  case 1:
    return B != 0;
  case 2:
    return B == 0 || B == Eff;
  default:
    return B;
  }
}
RT uint32_t __zluda_ptx_match(Ctx *, uint32_t Mode, uint64_t Value, uint32_t Mask, uint32_t *PredOut) {
  uint32_t Eff = Mask & ballot(true), Same = 0;
  uint32_t Lo = (uint32_t)Value, Hi = (uint32_t)(Value >> 32);
  // Every lane runs all 32 steps, so that each read finds its lane active.
  for (uint32_t I = 0; I < 32; ++I) {
    uint32_t L = fromLane(Lo, I), H = fromLane(Hi, I);
    if (((Eff >> I) & 1) && L == Lo && H == Hi)
      Same |= 1u << I;
  }
  if (Mode == 0)
    return Same;
  uint32_t All = ballot(Same == Eff) & Eff;
  *PredOut = All == Eff;
  return All == Eff ? Eff : 0u;
}
RT uint32_t __zluda_ptx_redux(Ctx *, uint32_t Op, uint32_t Value, uint32_t Mask) {
  uint32_t Eff = Mask & ballot(true);
  uint32_t Acc = Op == 5 ? ~0u : Op == 1 ? ~0u : Op == 3 ? 0x7fffffffu : Op == 4 ? 0x80000000u : 0;
  for (uint32_t I = 0; I < 32; ++I) {
    uint32_t V = fromLane(Value, I);
    if (!((Eff >> I) & 1))
      continue;
    switch (Op) {
    case 0: Acc += V; break;
    case 1: Acc = V < Acc ? V : Acc; break;
    case 2: Acc = V > Acc ? V : Acc; break;
    case 3: Acc = (int32_t)V < (int32_t)Acc ? V : Acc; break;
    case 4: Acc = (int32_t)V > (int32_t)Acc ? V : Acc; break;
    case 5: Acc &= V; break;
    case 6: Acc |= V; break;
    default: Acc ^= V; break;
    }
  }
  return Acc;
}

// --- control and services ---------------------------------------------------------------------
/// `exit` in a device function: ends the whole wave (correct when the wave's
/// lanes exit together, which is what nvcc emits).
RT void __zluda_ptx_exit(Ctx *) { __builtin_amdgcn_endpgm(); }
RT void __zluda_ptx_trap(Ctx *) { __builtin_trap(); }
RT void __zluda_ptx_nanosleep(Ctx *, uint32_t Ns) {
  uint64_t End = __builtin_readcyclecounter() + Ns;
  while (__builtin_readcyclecounter() < End)
    __builtin_amdgcn_s_sleep(1);
}

// --- printf through the HIP runtime's hostcall service ----------------------------------------
// The device libraries' ockl functions, as clang's HIP printf uses them: a
// message is the format string, then each argument as 64 bits (doubles as
// their bits, 32-bit integers zero-extended, pointers as addresses) or as a
// string; the last piece says so. The HIP runtime formats it on the host.
extern "C" uint64_t __ockl_printf_begin(uint64_t);
extern "C" uint64_t __ockl_fprintf_stderr_begin();
extern "C" uint64_t __ockl_printf_append_args(uint64_t, uint32_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                                              uint64_t, uint64_t, uint32_t);
extern "C" uint64_t __ockl_printf_append_string_n(uint64_t, const char *, uint64_t, uint32_t);

/// Bytes of device string \p S with its NUL, read up to 64 KiB as on the CPU
/// device (a longer one is cut there).
static inline uint64_t stringBytes(const char *S) {
  // Reads at most S[0..65535]. (Testing the bound first costs gfx8 kernels
  // with printf four SGPRs over their limit.)
  const char *P = S, *End = S + (1u << 16) - 1;
  while (*P && P != End)
    ++P;
  return uint64_t(P - S) + 1;
}
static inline uint64_t appendString(uint64_t D, const char *S, bool Last) {
  if (!S)
    S = "(null)";
  return __ockl_printf_append_string_n(D, S, stringBytes(S), Last);
}
static inline uint64_t appendValue(uint64_t D, uint64_t V, bool Last) {
  return __ockl_printf_append_args(D, 1, V, 0, 0, 0, 0, 0, 0, Last);
}
template <typename T> static inline T readArg(const char *Args, unsigned &Off) {
  T V;
  __builtin_memcpy(&V, Args + zluda::ptx::printf::take(Off, sizeof(T)), sizeof(T));
  return V;
}

/// Sends \p Fmt and CUDA's packed arguments \p Args (ptx/codegen/PrintfFormat.h)
/// as one message started with \p D. Not inlined: a call site stays small
/// (the format is walked at run time, as the host's printf would).
__attribute__((noinline)) static uint64_t sendPrintf(uint64_t D, const char *Fmt, const char *Args) {
  namespace pf = zluda::ptx::printf;
  // The HIP runtime formats on the host, and would act on %n or read values
  // that were not sent: a format with a conversion the CPU device prints as
  // text (%n, past CUDA's 32 arguments, any without an argument buffer) is
  // sent as plain text, unformatted. (Rewriting it here would need a stack
  // buffer, whose scratch setup costs gfx8 kernels the SGPRs they lack.)
  // One walk counts the 64-bit pieces that follow the format (the last one
  // carries the flag) and finds such conversions.
  unsigned Pos = 0, Pieces = 0, Used = 0, Limit = Args ? pf::MaxArgs : 0;
  bool Text = false;
  pf::Conversion C;
  while (pf::next(Fmt, Pos, C)) {
    Text |= pf::printsAsText(C, Used, Limit);
    Pieces += C.Stars + (C.Kind != pf::Arg::None);
  }
  if (Text) {
    D = appendString(D, "%s", false);
    return appendString(D, Fmt, true);
  }
  D = appendString(D, Fmt, Pieces == 0);
  unsigned Off = 0, Sent = 0;
  Pos = 0;
  while (Pieces && pf::next(Fmt, Pos, C)) {
    if (C.Kind == pf::Arg::None)
      continue;
    for (unsigned I = 0; I < C.Stars; ++I)
      D = appendValue(D, (uint32_t)readArg<int32_t>(Args, Off), ++Sent == Pieces);
    switch (C.Kind) {
    case pf::Arg::Int32:
      D = appendValue(D, readArg<uint32_t>(Args, Off), ++Sent == Pieces);
      break;
    case pf::Arg::String:
      D = appendString(D, readArg<const char *>(Args, Off), ++Sent == Pieces);
      break;
    default: // Int64, Double (its bits), Pointer
      D = appendValue(D, readArg<uint64_t>(Args, Off), ++Sent == Pieces);
      break;
    }
  }
  return D;
}

RT int32_t __zluda_ptx_vprintf(Ctx *, char *Fmt, char *Args) {
  if (!Fmt)
    return -1;
  return (int32_t)sendPrintf(__ockl_printf_begin(0), Fmt, Args);
}

/// CUDA's message for a failed device assertion, on stderr, then a trap (the
/// HIP runtime reports the kernel's abort at the next synchronization).
RT void __zluda_ptx_assertfail(Ctx *, char *Msg, char *File, uint32_t Line, char *Func, uint64_t) {
  const char *Fields[3] = {File ? File : "?", Func ? Func : "?", Msg ? Msg : "?"};
  // The arguments as nvcc would pack them: %s %u %s %u %u %u %u %u %u %s.
  uint64_t Buffer[16];
  char *Args = (char *)Buffer;
  unsigned Off = 0;
  auto putPtr = [&](const char *P) { __builtin_memcpy(Args + zluda::ptx::printf::take(Off, 8), &P, 8); };
  auto putU32 = [&](uint32_t V) { __builtin_memcpy(Args + zluda::ptx::printf::take(Off, 4), &V, 4); };
  putPtr(Fields[0]);
  putU32(Line);
  putPtr(Fields[1]);
  putU32(__builtin_amdgcn_workgroup_id_x());
  putU32(__builtin_amdgcn_workgroup_id_y());
  putU32(__builtin_amdgcn_workgroup_id_z());
  putU32(__builtin_amdgcn_workitem_id_x());
  putU32(__builtin_amdgcn_workitem_id_y());
  putU32(__builtin_amdgcn_workitem_id_z());
  putPtr(Fields[2]);
  sendPrintf(__ockl_fprintf_stderr_begin(),
             "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", Args);
  __builtin_trap();
}
/// tex: the handle is the device address of the texture's description, which
/// the driver copied there (cuTexObjectCreate); sampling as on the CPU device.
RT void __zluda_ptx_tex_fetch(Ctx *, uint64_t Handle, uint32_t Geom, uint32_t C0, uint32_t C1, uint32_t C2,
                              uint32_t C3, uint32_t IntCoords, uint32_t *Out, uint32_t) {
  if (!Handle)
    __builtin_trap();
  const uint32_t Raw[4] = {C0, C1, C2, C3};
  zluda::ptx::textureFetch(*reinterpret_cast<const zluda::ptx::TextureDesc *>(Handle), Geom, Raw, IntCoords != 0, Out);
}
RT void __zluda_ptx_tex_sample(Ctx *, uint64_t Handle, uint32_t Geom, const uint32_t *Raw, uint32_t IntCoords,
                               uint32_t *Out, uint32_t Mode, const float *Extra) {
  if (!Handle)
    __builtin_trap();
  zluda::ptx::textureSample(*reinterpret_cast<const zluda::ptx::TextureDesc *>(Handle), Geom, Raw, IntCoords != 0, Mode,
                            Extra, Out);
}
RT int32_t __zluda_ptx_tex_query(Ctx *, uint64_t Handle, uint32_t Query, uint32_t Level) {
  if (!Handle)
    __builtin_trap();
  return zluda::ptx::textureQuery(*reinterpret_cast<const zluda::ptx::TextureDesc *>(Handle), Query, Level);
}
RT void __zluda_ptx_surf_load(Ctx *, uint64_t Handle, uint32_t Geom, const uint32_t *Raw, uint32_t Bytes, uint32_t Vec,
                              uint32_t Flags, unsigned char *Buf) {
  if (!Handle || zluda::ptx::surfaceLoad(*reinterpret_cast<const zluda::ptx::TextureDesc *>(Handle), Geom, Raw, Bytes,
                                         Vec, Flags, Buf))
    __builtin_trap();
}
RT void __zluda_ptx_surf_store(Ctx *, uint64_t Handle, uint32_t Geom, const uint32_t *Raw, uint32_t Bytes, uint32_t Vec,
                               uint32_t Flags, const unsigned char *Buf) {
  if (!Handle || zluda::ptx::surfaceStore(*reinterpret_cast<const zluda::ptx::TextureDesc *>(Handle), Geom, Raw, Bytes,
                                          Vec, Flags, Buf))
    __builtin_trap();
}
// Unsupported on this target (see the file comment): they trap.
RT char *__zluda_ptx_malloc(Ctx *, uint64_t) { __builtin_trap(); }
RT void __zluda_ptx_free(Ctx *, char *) { __builtin_trap(); }
RT void *__zluda_ptx_cdp_buffer(Ctx *, uint64_t, uint32_t *, uint32_t *, uint32_t, uint64_t) { __builtin_trap(); }
RT uint32_t __zluda_ptx_cdp_launch(Ctx *, void *, uint64_t, uint64_t, uint32_t *, uint32_t *, uint32_t) {
  __builtin_trap();
}
RT void __zluda_ptx_grid_sync(Ctx *) { __builtin_trap(); }
// Thread-block clusters: the driver launches none here (a cluster is the block itself).
RT uint32_t __zluda_ptx_sreg_cluster(Ctx *C, uint32_t W) {
  using namespace zluda::ptx;
  if (W >= CrClusterId && W < CrNClusterId)
    return __zluda_ptx_sreg_ctaid(C, W - CrClusterId);
  if (W >= CrNClusterId && W < CrCtaRank)
    return __zluda_ptx_sreg_nctaid(C, W - CrNClusterId);
  return (W >= CrNCtaId && W < CrClusterId) || W == CrNCtaRank ? 1 : 0;
}
RT void __zluda_ptx_cluster_barrier(Ctx *C, uint32_t Op) {
  if (Op == 1) // wait: every thread of the block (the cluster) has arrived
    __zluda_ptx_barrier(C, 0, 0, 0, 0);
}
RT char *__zluda_ptx_cluster_shared(Ctx *C, uint64_t A) {
  if ((A >> 24) > 1)
    __builtin_trap();
  return __zluda_ptx_shared_base(C) + (A & 0xffffff);
}
RT char *__zluda_ptx_cluster_map(Ctx *, char *P, uint32_t Rank) {
  if (Rank != 0)
    __builtin_trap();
  return P;
}
RT uint32_t __zluda_ptx_cluster_rank_of(Ctx *, char *) { return 0; }
RT void __zluda_ptx_wgmma(Ctx *, uint32_t, uint64_t, const uint64_t *, uint64_t, uint64_t *, uint32_t) {
  __builtin_trap();
}

// --- warp matrix operations in software ----------------------------------------------------
// mma/wmma/ldmatrix through the lanes' registers: each lane reads the fragment
// registers it needs from other lanes with ds_bpermute (fromLane) and computes
// its own part of D, in the same order and precision as the CPU device
// (Executor.cpp), so both targets give the same bits. No LDS is used. Slower
// than the matrix cores (v_mfma/v_wmma), which the fragment layouts of PTX do
// not map onto directly; correct on every processor.
/// \p N 32-bit words from 2N halves (element 2j in the low half of word j).
static inline void halfPairs(const uint16_t *H, uint32_t *W, unsigned N) {
  for (unsigned J = 0; J < N; ++J)
    W[J] = (uint32_t)H[2 * J] | ((uint32_t)H[2 * J + 1] << 16);
}
static inline uint64_t fromLane64(uint64_t V, uint32_t Lane) {
  return (uint64_t)fromLane((uint32_t)V, Lane) | ((uint64_t)fromLane((uint32_t)(V >> 32), Lane) << 32);
}

RT void __zluda_ptx_mma_generic(Ctx *, uint32_t Packed, uint64_t *A, uint64_t *Bm, uint64_t *C, uint64_t *D) {
#pragma clang fp contract(off) // a product then a sum, as on the CPU device
  using namespace zluda::ptx;
  MmaDesc Desc = MmaDesc::unpack(Packed);
  uint32_t Lane = physLane() & 31, EA = MmaDesc::perReg(Desc.A); // A and B have elements of one width
  bool Wide = Desc.A == ME_F64;
  if (Desc.QuadPair) { // sm_70's m8n8k4 f16: four 8x8x4 products, one per quad-pair
    uint32_t Q = mmaQuadPairOf(Lane), NC = Desc.cRegs(Desc.C);
    uint64_t Out[8];
    for (uint32_t I = 0; I < 8; ++I) {
      uint32_t Row, Col, CLane, CI;
      mmaQuadPairAccElem(Desc.D, Lane, I, Row, Col);
      mmaQuadPairAccSlot(Desc.C, Q, Row, Col, CLane, CI);
      // C's element (Row, Col) is in a register whose index differs by lane: read them all from its lane.
      uint64_t CW[8];
      for (uint32_t R = 0; R < NC; ++R)
        CW[R] = fromLane((uint32_t)C[R], CLane);
      double Acc = mmaCValue(Desc, CW, CI);
      for (uint32_t R = 0; R < 2; ++R) {
        uint32_t AW = fromLane((uint32_t)A[R], mmaQuadPairLane(Q, Row));
        uint32_t BW = fromLane((uint32_t)Bm[R], mmaQuadPairLane(Q, Col));
        for (uint32_t J = 0; J < 2; ++J)
          Acc += mmaElemValue(AW, ME_F16, J) * mmaElemValue(BW, ME_F16, J);
      }
      Out[I] = mmaFloatResult(Desc, Acc);
    }
    mmaStoreD(Desc, Out, 8, D);
    return;
  }
  unsigned CElems = Desc.M == 16 ? 4 : 2;
  uint64_t Out[4] = {0, 0, 0, 0};
  for (unsigned I = 0; I < CElems; ++I) {
    uint32_t Row, Col;
    mmaCElem(Desc, Lane, I, Row, Col);
    double FAcc = mmaCValue(Desc, C, I);
    int64_t IAcc = (int64_t)FAcc;
    // A's element (Row, Kk) and B's (Kk, Col): the register index is the same
    // in every lane (it depends on I and Kk only); the source lane is not.
    for (uint32_t Kk = 0; Kk < Desc.K; Kk += EA) {
      MmaPos PA = mmaASlot(Desc, Row, Kk);
      uint64_t RA = Wide ? fromLane64(A[PA.Reg], PA.Lane) : fromLane((uint32_t)A[PA.Reg], PA.Lane);
      uint64_t RB = 0;
      uint32_t BReg = ~0u;
      for (uint32_t J = 0; J < EA; ++J) {
        MmaPos PB = mmaBSlot(Desc, Kk + J, Col);
        if (PB.Reg != BReg) {
          RB = Wide ? fromLane64(Bm[PB.Reg], PB.Lane) : fromLane((uint32_t)Bm[PB.Reg], PB.Lane);
          BReg = PB.Reg;
        }
        mmaAccumulate(Desc, mmaElemValue(RA, Desc.A, PA.Index + J), mmaElemValue(RB, Desc.B, PB.Index), IAcc, FAcc);
      }
    }
    Out[I] = Desc.D == MA_S32 ? mmaIntResult(Desc, IAcc) : mmaFloatResult(Desc, FAcc);
  }
  mmaStoreD(Desc, Out, CElems, D);
}

/// mma.m16n8k16.row.col with f16/bf16 inputs (layout: lowerMma), float fma
/// in K order as on the CPU device.
RT void __zluda_ptx_mma_m16n8k16(Ctx *, uint16_t *A, uint16_t *Bm, float *C, float *D, uint32_t Bf16) {
  uint32_t Lane = physLane() & 31, Gr = Lane >> 2, T = Lane & 3;
  auto toF = [Bf16](uint32_t H) {
    if (!Bf16)
      return zluda::ptx::halfBitsToFloat((uint16_t)H);
    uint32_t Bits = H << 16;
    float F;
    __builtin_memcpy(&F, &Bits, 4);
    return F;
  };
  uint32_t AW[4], BW[2];
  halfPairs(A, AW, 4);
  halfPairs(Bm, BW, 2);
  for (unsigned I = 0; I < 4; ++I) {
    uint32_t Row = Gr + (I >= 2 ? 8 : 0), Col = 2 * T + (I & 1);
    float Acc = C[I];
    for (uint32_t K = 0; K < 16; ++K) {
      // A element (Row, K): lane (Row % 8) * 4 + (K % 8) / 2, half K % 2 of
      // word (Row >= 8) | (K >= 8) << 1; B element (K, Col): lane Col * 4 +
      // (K % 8) / 2, half K % 2 of word K >= 8.
      uint32_t AWord = fromLane(AW[(I >= 2 ? 1 : 0) | (K >= 8 ? 2 : 0)], (Row & 7) * 4 + (K & 7) / 2);
      uint32_t BWord = fromLane(BW[K >= 8 ? 1 : 0], Col * 4 + (K & 7) / 2);
      Acc = __builtin_fmaf(toF((AWord >> (16 * (K & 1))) & 0xffff), toF((BWord >> (16 * (K & 1))) & 0xffff), Acc);
    }
    D[I] = Acc;
  }
}

/// wmma.mma of any shape (layout: lowerWmma, arithmetic: wmmaLane, as on
/// the CPU device). A's register is the same in every lane (wmmaElem), so one
/// ds_bpermute reads it; B's may differ by lane, so each lane takes its own
/// from a read of every B register (no private array is indexed by lane).
RT void __zluda_ptx_wmma(Ctx *, uint32_t Packed, uint32_t Shape, uint64_t *A, uint64_t *Bm, uint64_t *C, uint64_t *D) {
#pragma clang fp contract(off) // a product then a sum, as on the CPU device
  using namespace zluda::ptx;
  MmaDesc Desc = MmaDesc::unpack(Packed);
  WmmaShape S = WmmaShape::unpack(Shape);
  uint32_t EA = S.M * S.K / 32, EB = S.K * S.N / 32, NB = S.bRegs(Desc);
  bool Wide = Desc.A == ME_F64;
  auto read = [Wide](uint64_t V, uint32_t Lane) { return Wide ? fromLane64(V, Lane) : fromLane((uint32_t)V, Lane); };
  auto elemA = [&](uint32_t Row, uint32_t Kk) {
    MmaPos P = wmmaElem(Row * S.K + Kk, EA, Desc.A);
    return mmaElemValue(read(A[P.Reg], P.Lane), Desc.A, P.Index);
  };
  auto elemB = [&](uint32_t Kk, uint32_t Col) {
    MmaPos P = wmmaElem(Kk * S.N + Col, EB, Desc.B);
    uint64_t W = 0;
    for (uint32_t R = 0; R < NB; ++R) {
      uint64_t V = read(Bm[R], P.Lane);
      W = R == P.Reg ? V : W;
    }
    return mmaElemValue(W, Desc.B, P.Index);
  };
  wmmaLane(Desc, S, C, physLane() & 31, D, elemA, elemB);
}

/// ldmatrix.m8n8.b16 (layout: lowerLdmatrix): the row addresses come from
/// lanes 8m..8m+7 of matrix m.
RT void __zluda_ptx_ldmatrix(Ctx *, uint64_t Addr, uint32_t N, uint32_t Trans, uint32_t *Out) {
  uint32_t Lane = physLane() & 31, Row = Lane >> 2, Pair = Lane & 3;
  for (uint32_t M = 0; M < N && M < 4; ++M) {
    uint32_t H[2];
    for (uint32_t J = 0; J < 2; ++J) {
      uint32_t R = Trans ? 2 * Pair + J : Row, Col = Trans ? Row : 2 * Pair + J;
      const uint16_t *P = (const uint16_t *)fromLane64(Addr, 8 * M + R);
      H[J] = P[Col];
    }
    Out[M] = H[0] | (H[1] << 16);
  }
}

// --- floating point with explicit rounding ------------------------------------------------------
#include "ptx/codegen/DeviceFloat.inc"
#include "ptx/codegen/DeviceBulk.inc"

/// PTX rounding modes (0 rn, 1 rz, 2 rm, 3 rp) as the MODE register's
/// FP_ROUND field encodes them (0 nearest, 1 +inf, 2 -inf, 3 zero), for
/// single [1:0] and double/half [3:2] precision.
static inline uint32_t amdRound(uint32_t M) {
  uint32_t R = M == 1 ? 3 : M == 2 ? 2 : M == 3 ? 1 : 0;
  return R | (R << 2);
}
// hwreg(HW_REG_MODE, 0, 4): id 1, offset 0, size 4.
#define MODE_ROUND_BITS (1 | (0 << 6) | (3 << 11))

/// The empty volatile asm statements pin the operation between the two
/// writes of the MODE register: its inputs come out of the first, its result
/// goes into the second (and the backend's FP instructions read MODE).
template <typename T> static inline T fop(uint32_t Op, uint32_t Mode, T A, T B, T C) {
  __builtin_amdgcn_s_setreg(MODE_ROUND_BITS, amdRound(Mode));
  __asm__ volatile("" : "+v"(A), "+v"(B), "+v"(C));
  T R;
  switch (Op) {
  case 0: R = A + B; break;
  case 1: R = A - B; break;
  case 2: R = A * B; break;
  case 3: R = A / B; break;
  case 4: R = __builtin_fma(A, B, C); break;
  case 5: R = __builtin_sqrt(A); break;
  default: R = (T)1 / A; break;
  }
  __asm__ volatile("" : "+v"(R));
  __builtin_amdgcn_s_setreg(MODE_ROUND_BITS, 0);
  return R;
}
RT float __zluda_ptx_fop_f32(Ctx *, uint32_t Op, uint32_t Mode, float A, float B, float C) {
  return fop<float>(Op, Mode, A, B, C);
}
RT double __zluda_ptx_fop_f64(Ctx *, uint32_t Op, uint32_t Mode, double A, double B, double C) {
  return fop<double>(Op, Mode, A, B, C);
}

/// An integer's value in a binary format with MBits mantissa bits, rounded
/// per Mode, as raw bits (exact integer arithmetic).
static inline uint64_t intToFloatBits(uint64_t V, bool Signed, unsigned EBits, unsigned MBits, int Mode) {
  bool Neg = Signed && (int64_t)V < 0;
  uint64_t M = Neg ? (uint64_t)0 - V : V;
  uint64_t Sign = (uint64_t)Neg << (EBits + MBits);
  if (M == 0)
    return 0;
  int E = 63 - __builtin_clzll(M);
  uint64_t Bias = (1u << (EBits - 1)) - 1, R;
  if (E <= (int)MBits) {
    R = M << (MBits - E);
  } else {
    R = roundBits(M, (unsigned)(E - (int)MBits), Neg, Mode);
    if (R >> (MBits + 1)) {
      R >>= 1;
      ++E;
    }
  }
  return Sign | ((uint64_t)(E + Bias) << MBits) | (R & ((1ull << MBits) - 1));
}
RT float __zluda_ptx_i64_to_f32(Ctx *, uint64_t V, uint32_t Signed, uint32_t Mode) {
  return floatOf((uint32_t)intToFloatBits(V, Signed, 8, 23, (int)Mode));
}
RT double __zluda_ptx_i64_to_f64(Ctx *, uint64_t V, uint32_t Signed, uint32_t Mode) {
  return __builtin_bit_cast(double, intToFloatBits(V, Signed, 11, 52, (int)Mode));
}
