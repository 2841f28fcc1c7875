//===- DeviceRuntime.cpp - the CPU device runtime (compiled to bitcode) ----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Implements the inlinable part of ptx/codegen/DeviceRuntime.def for
/// the CPU device. Built with clang -emit-llvm at build time and linked into
/// every JIT module, so special registers and conversions inline into the
/// kernels. Functions that need the executor (barriers, warp collectives,
/// printf, traps) are only declared here and bound to host code by the JIT.
/// Freestanding: no headers beyond the ABI, no libc++.
#include "cpu/DeviceAbi.h"

#define RT extern "C" __attribute__((always_inline))
typedef ZludaThreadCtx Ctx;

RT uint32_t __zluda_ptx_sreg_tid(Ctx *C, uint32_t D) { return C->Tid[D]; }
RT uint32_t __zluda_ptx_sreg_ntid(Ctx *C, uint32_t D) { return C->NTid[D]; }
RT uint32_t __zluda_ptx_sreg_ctaid(Ctx *C, uint32_t D) { return C->CtaId[D]; }
RT uint32_t __zluda_ptx_sreg_nctaid(Ctx *C, uint32_t D) { return C->NCtaId[D]; }
RT uint32_t __zluda_ptx_sreg_laneid(Ctx *C) { return C->LaneId; }
RT uint32_t __zluda_ptx_sreg_warpid(Ctx *C) { return C->WarpId; }
RT uint32_t __zluda_ptx_sreg_nwarpid(Ctx *C) { return C->NWarpId; }
RT uint32_t __zluda_ptx_sreg_smid(Ctx *C) { return C->SmId; }
RT uint32_t __zluda_ptx_sreg_dynamic_smem_size(Ctx *C) { return C->DynSharedBytes; }
RT uint32_t __zluda_ptx_sreg_total_smem_size(Ctx *C) { return (uint32_t)C->SharedBytes; }
RT uint32_t __zluda_ptx_sreg_envreg(Ctx *C, uint32_t I) { return I < 32 ? C->EnvRegs[I] : 0; }
RT uint64_t __zluda_ptx_sreg_gridid(Ctx *) { return 1; }
RT char *__zluda_ptx_shared_base(Ctx *C) { return C->SharedBase; }
RT uint64_t __zluda_ptx_dyn_shared_offset(Ctx *C) { return C->DynSharedOffset; }
RT bool __zluda_ptx_is_shared(Ctx *C, char *P) {
  return P >= C->SharedBase && P < C->SharedBase + C->SharedBytes;
}
RT bool __zluda_ptx_is_local(Ctx *C, char *P) { return P >= C->StackLo && P < C->StackHi; }
RT uint64_t __zluda_ptx_sreg_clock64(Ctx *) { return __builtin_readcyclecounter(); }

// --- 16-bit float conversions (IEEE binary16 and bfloat16) -------------------

static inline float floatOf(uint32_t B) { return __builtin_bit_cast(float, B); }
static inline uint64_t bitsOfD(double F) { return __builtin_bit_cast(uint64_t, F); }

/// Rounds the magnitude Mant (with Extra dropped bits, Half = 1<<(Extra-1))
/// according to Mode (0 rn, 1 rz, 2 rm, 3 rp) for a value of sign Neg.
static inline uint64_t roundBits(uint64_t Mant, unsigned Extra, bool Neg, int Mode) {
  if (Extra == 0)
    return Mant;
  if (Extra >= 64)
    return (Mant && ((Mode == 2 && Neg) || (Mode == 3 && !Neg))) ? 1 : 0;
  uint64_t Kept = Mant >> Extra, Rem = Mant & ((1ull << Extra) - 1), Half = 1ull << (Extra - 1);
  switch (Mode) {
  case 0:
    return Kept + (Rem > Half || (Rem == Half && (Kept & 1)));
  case 1:
    return Kept;
  case 2:
    return Kept + (Neg && Rem);
  default:
    return Kept + (!Neg && Rem);
  }
}

/// Converts a finite or special double to a binary format with MBits mantissa
/// bits and EBits exponent bits, rounding per Mode. Returns the raw bits.
static inline uint32_t toSmallFloat(double D, unsigned EBits, unsigned MBits, int Mode) {
  uint64_t B = bitsOfD(D);
  bool Neg = B >> 63;
  uint32_t Sign = (uint32_t)Neg << (EBits + MBits);
  int Exp = (int)((B >> 52) & 0x7ff);
  uint64_t Mant = B & ((1ull << 52) - 1);
  uint32_t ExpMax = (1u << EBits) - 1;
  if (Exp == 0x7ff) // inf or NaN
    return Sign | (ExpMax << MBits) | (Mant ? (1u << (MBits - 1)) : 0);
  if (Exp == 0 && Mant == 0)
    return Sign;
  int Bias = (1 << (EBits - 1)) - 1;
  // Value = 1.Mant * 2^(Exp-1023) (doubles subnormal here only as tiny values)
  int E = Exp == 0 ? -1022 : Exp - 1023;
  uint64_t Full = Exp == 0 ? Mant : (Mant | (1ull << 52)); // 53-bit significand
  int TargetE = E + Bias;
  uint64_t R;
  if (TargetE >= 1) {
    R = roundBits(Full, 52 - MBits, Neg, Mode); // includes the implicit bit
    if (R >> (MBits + 1)) { // rounding carried into a new binade
      R >>= 1;
      ++TargetE;
    }
    if (TargetE >= (int)ExpMax) { // overflow
      bool ToInf = Mode == 0 || (Mode == 2 && Neg) || (Mode == 3 && !Neg);
      return ToInf ? (Sign | (ExpMax << MBits)) : (Sign | ((ExpMax - 1) << MBits) | ((1u << MBits) - 1));
    }
    return Sign | ((uint32_t)TargetE << MBits) | (uint32_t)(R & ((1ull << MBits) - 1));
  }
  // Subnormal result: shift further right.
  unsigned Shift = (unsigned)(52 - MBits + (1 - TargetE));
  R = roundBits(Full, Shift, Neg, Mode);
  return Sign | (uint32_t)R; // a carry into the exponent field gives the smallest normal
}

RT uint16_t __zluda_ptx_f64_to_f16(Ctx *, double D, uint32_t Mode) {
  return (uint16_t)toSmallFloat(D, 5, 10, (int)Mode);
}
RT uint16_t __zluda_ptx_f32_to_f16(Ctx *C, float F, uint32_t Mode) {
  return __zluda_ptx_f64_to_f16(C, (double)F, Mode);
}
RT uint16_t __zluda_ptx_f64_to_bf16(Ctx *, double D, uint32_t Mode) {
  return (uint16_t)toSmallFloat(D, 8, 7, (int)Mode);
}
RT uint16_t __zluda_ptx_f32_to_bf16(Ctx *C, float F, uint32_t Mode) {
  return __zluda_ptx_f64_to_bf16(C, (double)F, Mode);
}
RT float __zluda_ptx_bf16_to_f32(Ctx *, uint16_t H) { return floatOf((uint32_t)H << 16); }
RT float __zluda_ptx_f16_to_f32(Ctx *, uint16_t H) {
  uint32_t Sign = (uint32_t)(H >> 15) << 31, Exp = (H >> 10) & 0x1f, Mant = H & 0x3ff;
  if (Exp == 0x1f)
    return floatOf(Sign | 0x7f800000u | (Mant << 13));
  if (Exp == 0) {
    if (Mant == 0)
      return floatOf(Sign);
    // subnormal: value = Mant * 2^-24
    float V = (float)Mant * floatOf(0x33800000u); // 2^-24
    return Sign ? -V : V;
  }
  return floatOf(Sign | ((Exp + 112) << 23) | (Mant << 13));
}
RT float __zluda_ptx_f64_to_f32(Ctx *, double D, uint32_t Mode) {
  uint32_t B = toSmallFloat(D, 8, 23, (int)Mode);
  return floatOf(B);
}

// --- directed rounding: the host switches the FPU rounding mode ---------------

extern "C" float __zluda_host_fop_f32(uint32_t Op, uint32_t Mode, float A, float B, float C);
extern "C" double __zluda_host_fop_f64(uint32_t Op, uint32_t Mode, double A, double B, double C);
extern "C" float __zluda_host_i64_to_f32(uint64_t V, uint32_t Signed, uint32_t Mode);
extern "C" double __zluda_host_i64_to_f64(uint64_t V, uint32_t Signed, uint32_t Mode);

RT float __zluda_ptx_fop_f32(Ctx *, uint32_t Op, uint32_t Mode, float A, float B, float C) {
  return __zluda_host_fop_f32(Op, Mode, A, B, C);
}
RT double __zluda_ptx_fop_f64(Ctx *, uint32_t Op, uint32_t Mode, double A, double B, double C) {
  return __zluda_host_fop_f64(Op, Mode, A, B, C);
}
RT float __zluda_ptx_i64_to_f32(Ctx *, uint64_t V, uint32_t Signed, uint32_t Mode) {
  return __zluda_host_i64_to_f32(V, Signed, Mode);
}
RT double __zluda_ptx_i64_to_f64(Ctx *, uint64_t V, uint32_t Signed, uint32_t Mode) {
  return __zluda_host_i64_to_f64(V, Signed, Mode);
}
