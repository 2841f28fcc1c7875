//===- LiftOps.cpp - the SASS lifter's instruction families ----------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file FunctionLifter's longer liftings (LiftImpl.h): tensor cores and
/// matrix loads, textures and surfaces, asynchronous copies, half precision,
/// comparisons, IADD3/IMAD/LEA/SHF, conversions, addresses, memory and atomics.
#include "sass/LiftImpl.h"

namespace zluda::sass::lift {

/// \p Count consecutive registers from \p Reg as a PTX vector operand; RZ
/// reads as zeros and, for a destination, writes nowhere.
std::string FunctionLifter::fragment(uint32_t Reg, uint32_t Count, bool Dest) {
  std::string S;
  if (Reg != RZ && Reg + Count - 1 >= RZ)
    fail("register group R" + std::to_string(Reg) + " of " + std::to_string(Count) + " runs past R254");
  for (uint32_t K = 0; K < Count; ++K) {
    std::string X;
    if (Reg != RZ) {
      X = r(Reg + K);
    } else {
      X = t32();
      if (!Dest)
        emit("mov.b32 " + X + ", 0");
    }
    S += (K ? ", " : "") + X;
  }
  return "{" + S + "}";
}

/// The same for doubles: register pairs through 64-bit temporaries (read
/// before the instruction, written back after it with \p Writeback).
std::string FunctionLifter::fragment64(uint32_t Reg, uint32_t Pairs, bool Dest, std::string *Writeback) {
  if (Reg != RZ && (Reg % 2 || Reg + 2 * Pairs - 1 >= RZ))
    fail("register pairs from R" + std::to_string(Reg) + " are misaligned or run past R254");
  std::string S;
  for (uint32_t K = 0; K < Pairs; ++K) {
    std::string D = t64();
    if (!Dest)
      emit(Reg == RZ ? "mov.b64 " + D + ", 0" : "mov.b64 " + D + ", {" + r(Reg + 2 * K) + ", " + r(Reg + 2 * K + 1) + "}");
    else if (Reg != RZ)
      *Writeback += "mov.b64 {" + r(Reg + 2 * K) + ", " + r(Reg + 2 * K + 1) + "}, " + D + ";\n";
    S += (K ? ", " : "") + D;
  }
  return "{" + S + "}";
}

/// HMMA, IMMA, BMMA, DMMA as PTX's mma.sync (the same fragment layouts:
/// the hardware's). Each shape from the modifier bits (Opcodes.def); any
/// bit outside the forms seen is refused.
void FunctionLifter::tensorCore(const Inst &I) {
  auto bit = [&](unsigned Pos) { return ((I.Sub >> (Pos - 72)) & 1) != 0; };
  auto only = [&](std::initializer_list<unsigned> Allowed) {
    uint32_t Mask = 0;
    for (unsigned B : Allowed)
      Mask |= 1u << (B - 72);
    if (I.Sub & ~Mask)
      fail("tensor-core modifier bits " + hexs(I.Sub << 8) + " (from bit 64) not seen in ptxas's forms");
  };
  unsigned M = 16, K = 8, EBits = 16;
  std::string Types, Tail;
  bool Double = false;
  switch (I.O) {
  case Op::HMMA: {
    only({75, 76, 78, 82, 83});
    unsigned In = (I.Sub >> 10) & 3; // bits 82-83
    bool F32 = bit(76);
    K = bit(75) ? 16 : bit(78) ? 4 : 8;
    static const char *InTy[] = {"f16", "bf16", "tf32"};
    if (In == 3 || (In != 0 && !F32) || (In == 2 ? K == 16 : K == 4))
      fail("an HMMA shape and type not seen in ptxas's forms");
    EBits = In == 2 ? 32 : 16;
    std::string Acc = F32 ? "f32" : "f16", T = InTy[In];
    Types = "." + Acc + "." + T + "." + T + "." + Acc;
    M = 16;
    break;
  }
  case Op::IMMA: {
    only({74, 75, 76, 78, 82, 83, 84, 85, 86});
    uint32_t Shape = I.Sub & ~((1u << 4) | (1u << 6) | (1u << 10)); // less the signs and .SAT
    struct Row { uint32_t Bits; unsigned M, K, E; };
    auto at = [](std::initializer_list<unsigned> Bs) {
      uint32_t V = 0;
      for (unsigned B : Bs)
        V |= 1u << (B - 72);
      return V;
    };
    const Row Rows[] = {{at({74}), 8, 16, 8},         {at({74, 86}), 16, 16, 8},
                        {at({74, 75, 86}), 16, 32, 8}, {at({74, 83, 84, 85}), 8, 32, 4},
                        {at({74, 75, 83, 84, 86}), 16, 32, 4}, {at({74, 83, 84, 85, 86}), 16, 64, 4}};
    const Row *Found = nullptr;
    for (const Row &R : Rows)
      if (R.Bits == Shape)
        Found = &R;
    if (!Found)
      fail("an IMMA shape not seen in ptxas's forms");
    M = Found->M;
    K = Found->K;
    EBits = Found->E;
    std::string E = std::to_string(EBits);
    Types = std::string(".s32.") + (bit(76) ? "s" : "u") + E + "." + (bit(78) ? "s" : "u") + E + ".s32";
    if (bit(82))
      Types = ".satfinite" + Types;
    break;
  }
  case Op::BMMA:
    only({74, 75, 76, 78, 80});
    if (!bit(80) || !bit(74) || (bit(75) && bit(76)))
      fail("a BMMA form not seen in ptxas's forms");
    M = bit(75) || bit(76) ? 16 : 8;
    K = bit(76) ? 256 : 128;
    EBits = 1;
    Types = ".s32.b1.b1.s32";
    Tail = bit(78) ? ".and.popc" : ".xor.popc";
    break;
  case Op::DMMA: {
    only({76, 77});
    unsigned Shape = (I.Sub >> 4) & 3;
    if (Shape && Cu.Sm < 90)
      fail("DMMA's sm_90 shapes before sm_90");
    M = Shape ? 16 : 8;
    K = Shape ? 4u << (Shape - 1) : 4;
    EBits = 64;
    Types = ".f64.f64.f64.f64";
    Double = true;
    break;
  }
  default:
    fail("not a tensor-core instruction");
  }
  unsigned ARegs = M * K * EBits / 1024, BRegs = 8 * K * EBits / 1024;
  unsigned CRegs = M * 8 * (I.O == Op::HMMA && !bit(76) ? 16 : Double ? 64 : 32) / 1024;
  std::string Shape = ".m" + std::to_string(M) + "n8k" + std::to_string(K);
  std::string D, A, Bf, C, Writeback;
  if (Double) {
    A = fragment64(I.A.Reg, ARegs / 2, false, nullptr);
    Bf = fragment64(I.B.Reg, BRegs / 2, false, nullptr);
    C = fragment64(I.C.Reg, CRegs / 2, false, nullptr);
    D = fragment64(I.Rd, CRegs / 2, true, &Writeback);
  } else {
    A = fragment(I.A.Reg, ARegs, false);
    Bf = fragment(I.B.Reg, BRegs, false);
    C = fragment(I.C.Reg, CRegs, false);
    D = fragment(I.Rd, CRegs, true);
  }
  emit("mma.sync.aligned" + Shape + ".row.col" + Types + Tail + " " + D + ", " + A + ", " + Bf + ", " + C);
  Body += Writeback;
}

/// LDGSTS as cp.async (synchronous here): the bytes copied where the
/// predicate holds, zeros where not. .ZFILL reads its fill from the
/// address: its low bits (below the copy's size) count the bytes to fill
/// with zeros, the rest are copied from the aligned address below it
/// (ptxas adds 16 - src-size to the address; the predicate is src-size != 0).
/// A texture or surface instruction's handle: the 64-bit bank word pair,
/// or the one 32-bit uniform register of the _U forms (ptxas loads only
/// the low word there: the CPU device's handles are small numbers).
std::string FunctionLifter::handle(const Inst &I) {
  if (I.Handle.K != Src::KUReg)
    return val64(I.Handle);
  std::string T = t64();
  emit("cvt.u64.u32 " + T + ", " + inReg(val(I.Handle)));
  return T;
}

/// sm_90's F2FP to and from pairs of 8-bit floats (bits 72-90 as seen in
/// nvdisasm's listings of cvt's forms; others are refused): f32 pairs (A
/// to the high byte, as PACK_AB) or an f16x2 to e4m3x2/e5m2x2 (.SATFINITE,
/// .RELU), and an e4m3x2/e5m2x2 (B's low half, or with bit 88 its high
/// half) to f16x2.
void FunctionLifter::eightBitFloats(const Inst &I) {
  struct Form {
    uint32_t Bits;
    const char *Cvt;
    int Kind; // 0: two f32, 1: an f16x2, 2: to f16x2 (3: from B's high half, bit 88)
  };
  static const Form Forms[] = {
      {0x48070, "cvt.rn.satfinite.e4m3x2.f32", 0},      {0x48060, "cvt.rn.satfinite.e5m2x2.f32", 0},
      {0x48078, "cvt.rn.satfinite.relu.e4m3x2.f32", 0}, {0x48068, "cvt.rn.satfinite.relu.e5m2x2.f32", 0},
      {0x48032, "cvt.rn.satfinite.e4m3x2.f16x2", 1},    {0x48022, "cvt.rn.satfinite.e5m2x2.f16x2", 1},
      {0x20006, "cvt.rn.f16x2.e4m3x2", 2},              {0x20004, "cvt.rn.f16x2.e5m2x2", 2},
      {0x30006, "cvt.rn.f16x2.e4m3x2", 3},              {0x30004, "cvt.rn.f16x2.e5m2x2", 3},
  };
  uint32_t Bits = I.Sub2 >> 2;
  for (const Form &F : Forms) {
    if (F.Bits != Bits)
      continue;
    std::string H = th();
    if (F.Kind >= 2) {
      std::string Hi = th();
      emit("mov.b32 {" + H + ", " + Hi + "}, " + inReg(val(I.B)));
      emit(std::string(F.Cvt) + " " + r(I.Rd) + ", " + (F.Kind == 3 ? Hi : H));
      return;
    }
    if (F.Kind == 0)
      emit(std::string(F.Cvt) + " " + H + ", " + fval(I.A) + ", " + fval(I.B));
    else
      emit(std::string(F.Cvt) + " " + H + ", " + inReg(val(I.B)));
    convResult(I, 2, H);
    return;
  }
  fail("F2FP form " + hexs(Bits) + " (bits 72-90) not seen yet");
}

/// TEX, TLD, TLD4, TXD, TXQ on a bindless handle (Opcodes.def): PTX's
/// tex/tld4/txq, whose results our textures give by the texture's format
/// (the PTX result type only names the registers' width).
void FunctionLifter::texture(const Inst &I) {
  static const char *Geoms[] = {"1d", "2d", "3d", "cube", "", "a2d", "", ""};
  static const unsigned Coords[] = {1, 2, 3, 3, 0, 3, 0, 0};
  std::string Handle = handle(I), G = Geoms[I.TexGeom];
  // The coordinates, then the extras (the level): with bit 60 (.SCR, split)
  // the first ceil(n/2) of all values in Ra's registers and the rest in
  // Rb's; without, the coordinates in Ra's and the extras in Rb's.
  auto values = [&](unsigned NCoords, unsigned NExtra) {
    unsigned N = NCoords + NExtra, InA = I.Hi ? (N + 1) / 2 : NCoords;
    std::vector<std::string> V;
    for (unsigned K = 0; K < N; ++K) {
      Src S = K < InA ? I.A : I.B;
      uint32_t Base = S.Reg, At = K < InA ? K : K - InA;
      if (Base != RZ && Base + At >= RZ)
        fail("texture operands from R" + std::to_string(Base) + " run past R254");
      S.Reg = Base == RZ ? RZ : Base + At;
      V.push_back(inReg(val(S)));
    }
    return V;
  };
  auto vec = [](const std::vector<std::string> &V, size_t N) { // N values, the last repeated (PTX ignores a 3-D 4th)
    std::string S = "{";
    for (size_t K = 0; K < N; ++K)
      S += (K ? ", " : "") + V[std::min(K, V.size() - 1)];
    return S + "}";
  };
  // The enabled components go to Rd, Rd+1, Rd2, Rd2+1 in order.
  auto results = [&](const std::vector<std::string> &Out) {
    unsigned J = 0;
    for (unsigned K = 0; K < 4; ++K) {
      if (!(I.Sub >> K & 1))
        continue;
      uint32_t Reg = J < 2 ? (I.Rd == RZ ? RZ : I.Rd + J) : (I.Rd2 == RZ ? RZ : I.Rd2 + J - 2);
      ++J;
      if (Reg != RZ) {
        if (Reg >= RZ)
          fail("texture results run past R254");
        emit("mov.b32 " + r(Reg) + ", " + Out[K]);
      }
    }
  };
  if (I.O == Op::TXQ) {
    static const char *Query[] = {"width", "height", "depth"};
    if (I.Sub & 8)
      fail("TXQ of a fourth dimension component");
    std::string Level = inReg(val(I.A));
    std::vector<std::string> Out(4);
    for (unsigned K = 0; K < 3; ++K)
      if (I.Sub >> K & 1) {
        Out[K] = t32();
        emit(std::string("txq.level.") + Query[K] + ".b32 " + Out[K] + ", [" + Handle + "], " + Level);
      }
    results(Out);
    return;
  }
  std::vector<std::string> Out = {t32(), t32(), t32(), t32()};
  std::string Dst = "{" + Out[0] + ", " + Out[1] + ", " + Out[2] + ", " + Out[3] + "}";
  unsigned N = Coords[I.TexGeom];
  // Only the forms seen in nvdisasm's listings.
  if (I.O == Op::TEX && I.TexMode == 3 && N) { // .LL: an explicit level after the coordinates
    std::vector<std::string> V = values(N, 1);
    emit("tex.level." + G + ".v4.u32.f32 " + Dst + ", [" + Handle + ", " + vec(V, N == 3 ? 4 : N) + "], " +
         V[N]);
  } else if (I.O == Op::TLD && I.TexMode == 1 && (I.TexGeom == 0 || I.TexGeom == 1)) { // .LZ: level zero
    std::vector<std::string> V = values(N, 0);
    emit("tex." + G + ".v4.u32.s32 " + Dst + ", [" + Handle + ", " + vec(V, N) + "]");
  } else if (I.O == Op::TLD4 && I.TexGeom == 1) {
    static const char *Comp[] = {"r", "g", "b", "a"};
    if (I.TexMode > 3)
      fail("TLD4 component " + std::to_string(I.TexMode));
    std::vector<std::string> V = values(2, 0);
    emit(std::string("tld4.") + Comp[I.TexMode] + ".2d.v4.u32.f32 " + Dst + ", [" + Handle + ", " + vec(V, 2) +
         "]");
  } else if (I.O == Op::TXD && I.TexGeom == 1 && I.TexMode == 0) {
    if (I.Hi)
      fail("TXD with split coordinates");
    std::vector<std::string> V = values(2, 0), D;
    for (unsigned K = 0; K < 4; ++K) { // Rb: dx.x, dy.x, dx.y, dy.y
      Src S = I.B;
      if (S.Reg != RZ)
        S.Reg += K;
      D.push_back(inReg(val(S)));
    }
    emit("tex.grad.2d.v4.u32.f32 " + Dst + ", [" + Handle + ", " + vec(V, 2) + "], {" + D[0] + ", " + D[2] +
         "}, {" + D[1] + ", " + D[3] + "}");
  } else {
    fail("a texture instruction form not seen yet (geometry " + std::to_string(I.TexGeom) + ", mode " +
         std::to_string(I.TexMode) + ")");
  }
  results(Out);
}

/// SULD.D.BA / SUST.D.BA (Opcodes.def): PTX's suld.b / sust.b.
void FunctionLifter::surface(const Inst &I) {
  static const char *Geoms[] = {"1d", "", "", "2d", "a2d", "3d", "", ""};
  static const unsigned Coords[] = {1, 0, 0, 2, 3, 3, 0, 0};
  static const char *Clamp[] = {".zero", ".trap", ".clamp"};
  unsigned N = Coords[I.TexGeom];
  if (!N)
    fail("surface geometry " + std::to_string(I.TexGeom));
  if (I.Sub < 2 || I.Sub > 6 || I.Sub == 3)
    fail("surface access of size code " + std::to_string(I.Sub));
  std::string Handle = handle(I);
  // Ra's registers: x (bytes), y, z, or x, y, layer; PTX puts an array's layer first.
  std::vector<std::string> C;
  for (unsigned K = 0; K < N; ++K) {
    Src S = I.A;
    if (S.Reg != RZ && S.Reg + K >= RZ)
      fail("surface coordinates run past R254");
    if (S.Reg != RZ)
      S.Reg += K;
    C.push_back(inReg(val(S)));
  }
  if (I.TexGeom == 4)
    C = {C[2], C[0], C[1], C[1]};
  else if (N == 3)
    C.push_back(C[2]);
  std::string Co = "{";
  for (size_t K = 0; K < C.size(); ++K)
    Co += (K ? ", " : "") + C[K];
  Co += "}";
  std::string Op = std::string(Geoms[I.TexGeom]);
  std::string Addr = "[" + Handle + ", " + Co + "]";
  bool Store = I.O == Op::SUST;
  uint32_t Data = Store ? I.B.Reg : I.Rd;
  if (I.Sub == 2) { // 16 bits, zero-extended into the register
    std::string H = th();
    if (Store) {
      std::string Hi = th();
      emit("mov.b32 {" + H + ", " + Hi + "}, " + inReg(val(I.B)));
      emit("sust.b." + Op + ".b16" + Clamp[I.TexMode] + " " + Addr + ", {" + H + "}");
    } else {
      emit("suld.b." + Op + ".b16" + Clamp[I.TexMode] + " {" + H + "}, " + Addr);
      convResult(I, 2, H);
    }
    return;
  }
  unsigned Words = I.Sub == 4 ? 1 : I.Sub == 5 ? 2 : 4;
  std::string Vec = Words == 1 ? "" : Words == 2 ? ".v2" : ".v4";
  if (Store) {
    emit("sust.b." + Op + Vec + ".b32" + Clamp[I.TexMode] + " " + Addr + ", " + fragment(Data, Words, false));
  } else {
    emit("suld.b." + Op + Vec + ".b32" + Clamp[I.TexMode] + " " + fragment(Data, Words, true) + ", " + Addr);
  }
}

void FunctionLifter::copyAsync(const Inst &I) {
  static const unsigned Bytes[] = {4, 8, 16};
  unsigned N = Bytes[I.Sub];
  Inst S = I; // the shared address: [Rs + imm]
  S.A = I.B;
  S.MemOffset = static_cast<int32_t>(static_cast<int64_t>(I.Target));
  S.AddrUReg = URZ;
  S.Scale = 0;
  std::string Dst = address(S, true);
  Inst G = I;
  G.AddrUReg = URZ;
  std::string Src = address(G, false);
  std::string Size;
  if (I.Sub2) {
    std::string Fill = t64(), Count = t32(), Aligned = t64();
    emit("and.b64 " + Fill + ", " + Src + ", " + std::to_string(N - 1));
    emit("sub.u64 " + Aligned + ", " + Src + ", " + Fill);
    emit("cvt.u32.u64 " + Count + ", " + Fill);
    emit("sub.u32 " + Count + ", " + std::to_string(N) + ", " + Count);
    if (!I.PSrc0.isTrue())
      emit("selp.u32 " + Count + ", " + Count + ", 0, " + predSrc(I.PSrc0));
    Src = Aligned;
    Size = ", " + Count;
  } else if (!I.PSrc0.isTrue()) {
    std::string T = t32();
    emit("selp.u32 " + T + ", " + std::to_string(N) + ", 0, " + predSrc(I.PSrc0));
    Size = ", " + T;
  }
  emit("cp.async.ca.shared.global [" + Dst + "], [" + Src + "], " + std::to_string(N) + Size);
}

/// A half-precision source as two halves in a b32 (lane 0 low), after its
/// swizzle, absolute value and negation (bitwise, per half).
std::string FunctionLifter::hval(const Src &S, uint8_t Swz) {
  std::string V = inReg(val(S));
  if (Swz == 1) { // .F32: an f32, rounded toward zero to a half (as sm_75 does), in both lanes
    std::string H = th(), T = t32();
    emit("cvt.rz.f16.f32 " + H + ", " + V);
    emit("mov.b32 " + T + ", {" + H + ", " + H + "}");
    V = T;
  }
  if (Swz >= 2) {
    std::string T = t32();
    emit("prmt.b32 " + T + ", " + V + ", 0, " + (Swz == 2 ? "0x1010" : "0x3232"));
    V = T;
  }
  return signBits(V, S, "0x7fff7fff", "0x80008000");
}

/// Lane 0 of a pair of halves as an f32 (exact: f16 through cvt, bf16 by its bits).
std::string FunctionLifter::laneF32(const std::string &V, bool Bf16) {
  std::string T = t32();
  if (Bf16) {
    emit("shl.b32 " + T + ", " + V + ", 16");
    return T;
  }
  std::string H = th();
  emit("cvt.u16.u32 " + H + ", " + V);
  emit("cvt.f32.f16 " + T + ", " + H);
  return T;
}

/// HADD2/HMUL2/HFMA2: both lanes in f16x2 or bf16x2; .F32: lane 0 in f32.
void FunctionLifter::halfArith(const Inst &I) {
  std::string A = hval(I.A, I.SwzA), B = hval(I.B, I.SwzB);
  bool Fma = I.O == Op::HFMA2 || I.O == Op::HFMA2_MMA;
  std::string C = Fma ? hval(I.C, I.SwzC) : "";
  if (I.F32Out) {
    if (I.Relu)
      fail("a .F32 result with .RELU");
    std::string Mods = std::string(".rn") + (I.Ftz ? ".ftz" : "") + (I.Sat ? ".sat" : "") + ".f32 ";
    std::string X = laneF32(A, I.Bf16), Y = laneF32(B, I.Bf16);
    if (Fma)
      emit("fma" + Mods + r(I.Rd) + ", " + X + ", " + Y + ", " + laneF32(C, I.Bf16));
    else
      emit((I.O == Op::HADD2 ? "add" : "mul") + Mods + r(I.Rd) + ", " + X + ", " + Y);
    return;
  }
  if (I.Bf16 && (I.Ftz || I.Sat))
    fail("bf16 with .FTZ or .SAT");
  if (I.Relu && !Fma)
    fail(".RELU outside HFMA2");
  if (I.Relu && I.Sat)
    fail(".RELU with .SAT");
  std::string Ty = I.Bf16 ? ".bf16x2 " : ".f16x2 ";
  std::string Mods = std::string(".rn") + (I.Ftz ? ".ftz" : "") + (I.Sat ? ".sat" : "") + (I.Relu ? ".relu" : "") + Ty;
  if (Fma) {
    emit("fma" + Mods + r(I.Rd) + ", " + A + ", " + B + ", " + C);
  } else if (I.Bf16) {
    // a + b as a * 1 + b, a * b as a * b + (-0): one rounding, the same result.
    if (I.O == Op::HADD2)
      emit("fma" + Mods + r(I.Rd) + ", " + A + ", 0x3f803f80, " + B);
    else
      emit("fma" + Mods + r(I.Rd) + ", " + A + ", " + B + ", 0x80008000");
  } else {
    emit((I.O == Op::HADD2 ? "add" : "mul") + Mods + r(I.Rd) + ", " + A + ", " + B);
  }
}

/// HSETP2 (one predicate per lane) and HSET2 (0xffff, or 1.0 under .BF, per lane).
void FunctionLifter::halfCompare(const Inst &I) {
  if (I.Sub2 > 2)
    fail("unknown boolean combination");
  if (I.O == Op::HSETP2 && I.Hi)
    fail("HSETP2.H_AND");
  if (I.F32Out)
    fail("a half comparison with a .F32 form");
  std::string A = hval(I.A, I.SwzA), B = hval(I.B, I.SwzB), Acc = predSrc(I.PSrc0);
  std::string Ah[2] = {th(), th()}, Bh[2] = {th(), th()};
  emit("mov.b32 {" + Ah[0] + ", " + Ah[1] + "}, " + A);
  emit("mov.b32 {" + Bh[0] + ", " + Bh[1] + "}, " + B);
  std::string Res[2];
  for (int L = 0; L < 2; ++L) {
    std::string Q = tp();
    const char *Cmp = FloatCmp[I.Sub & 15];
    if (!*Cmp)
      emit(std::string(I.Sub ? "setp.eq.u32 " : "setp.ne.u32 ") + Q + ", %rz, 0");
    else
      emit(std::string("setp.") + Cmp + (I.Ftz ? ".ftz" : "") + (I.Bf16 ? ".bf16 " : ".f16 ") + Q + ", " + Ah[L] +
           ", " + Bh[L]);
    Res[L] = tp();
    emit(std::string(BoolOp[I.Sub2]) + ".pred " + Res[L] + ", " + Q + ", " + Acc);
  }
  if (I.O == Op::HSETP2) {
    if (I.PDst0 != PT)
      emit("mov.pred " + p(I.PDst0) + ", " + Res[0]);
    if (I.PDst1 != PT)
      emit("mov.pred " + p(I.PDst1) + ", " + Res[1]);
    return;
  }
  std::string One = !I.Hi ? "0xffff" : I.Bf16 ? "0x3f80" : "0x3c00", H[2] = {th(), th()};
  for (int L = 0; L < 2; ++L)
    emit("selp.b16 " + H[L] + ", " + One + ", 0, " + Res[L]);
  emit("mov.b32 " + r(I.Rd) + ", {" + H[0] + ", " + H[1] + "}");
}

/// I2I (one s32 saturated to 8 or 16 bits, extended back) and I2IP (two,
/// packed, with C's low half under the bytes).
void FunctionLifter::narrow(const Inst &I) {
  static const char *Ty[] = {"u8", "s8", "u16", "s16"};
  if (I.Signed || I.Sat || I.Wrap)
    fail("integer narrowing from a source other than s32");
  if (I.O == Op::I2I) {
    static const int Lo[] = {0, -128, 0, -32768}, Hi[] = {255, 127, 65535, 32767};
    std::string T = t32();
    emit("max.s32 " + T + ", " + val(I.B) + ", " + std::to_string(Lo[I.Sub]));
    emit("min.s32 " + r(I.Rd) + ", " + T + ", " + std::to_string(Hi[I.Sub]));
    return;
  }
  if (I.Sub >= 2)
    emit(std::string("cvt.pack.sat.") + Ty[I.Sub] + ".s32 " + r(I.Rd) + ", " + inReg(val(I.A)) + ", " +
         inReg(val(I.B)));
  else
    emit(std::string("cvt.pack.sat.") + Ty[I.Sub] + ".s32.b32 " + r(I.Rd) + ", " + inReg(val(I.A)) + ", " +
         inReg(val(I.B)) + ", " + inReg(val(I.C)));
}

/// LDC/ULDC of 8 or 16 bits (U8 S8 U16 S16: a bool, char or short
/// parameter): the bytes of their word, extended, into \p D.
std::string FunctionLifter::subWordConst(const Inst &I, const std::string &D) {
  uint32_t Bytes = I.Sub < 2 ? 1 : 2, Shift = I.A.Offset % 4;
  if (Shift + Bytes > 4)
    fail("a constant straddling two words");
  std::string W = constWord(I.A.Bank, I.A.Offset - Shift);
  return std::string(I.Sub % 2 ? "bfe.s32 " : "bfe.u32 ") + D + ", " + inReg(W) + ", " + std::to_string(Shift * 8) +
         ", " + std::to_string(Bytes * 8);
}

/// IMNMX/FMNMX: the minimum where the predicate holds, else the maximum.
void FunctionLifter::minMax(const Inst &I, const std::string &Ty, const std::string &A, const std::string &B) {
  minMaxInto(I, Ty, A, B, r(I.Rd), 32);
}

/// The minimum (PSrc0 true) or maximum of \p A and \p B into \p D, \p Bits wide.
void FunctionLifter::minMaxInto(const Inst &I, const std::string &Ty, const std::string &A, const std::string &B,
                                const std::string &D, unsigned Bits) {
  if (I.PSrc0.isTrue() || I.PSrc0.isFalse()) {
    emit((I.PSrc0.isTrue() ? "min" : "max") + Ty + D + ", " + A + ", " + B);
    return;
  }
  std::string Mn = Bits == 16 ? th() : t32(), Mx = Bits == 16 ? th() : t32();
  emit("min" + Ty + Mn + ", " + A + ", " + B);
  emit("max" + Ty + Mx + ", " + A + ", " + B);
  emit("selp.b" + std::to_string(Bits) + " " + D + ", " + Mn + ", " + Mx + ", " + predSrc(I.PSrc0));
}

/// ISETP/FSETP/DSETP; \p Into (when given) receives the first result instead of PDst0.
void FunctionLifter::setp(const Inst &I, const std::string &Into) {
  bool Float = I.O == Op::FSETP || I.O == Op::DSETP;
  static const char *ICmp[] = {"", "lt", "eq", "le", "gt", "ne", "ge", ""};
  if (I.Sub2 > 2)
    fail("unknown boolean combination");
  if (I.O == Op::DSETP && (I.Sub == 0 || I.Sub == 15)) {
    // DSETP.MIN/.MAX P, Q, A, B: P selects A as min.f64/max.f64 would
    // (A a number, and B a NaN or the result A's bits), Q that both are
    // NaNs (ptxas then quiets B's).
    if (!I.PSrc0.isTrue() || I.Sub2 != 0)
      fail("DSETP.MIN/MAX with an accumulated predicate");
    std::string A = t64(), B = t64(), M = t64(), NA = tp(), NB = tp(), Same = tp();
    emit("mov.b64 " + A + ", " + dval(I.A));
    emit("mov.b64 " + B + ", " + dval(I.B));
    emit(std::string(I.Sub == 0 ? "min" : "max") + ".f64 " + M + ", " + A + ", " + B);
    emit("setp.nan.f64 " + NA + ", " + A + ", " + A);
    emit("setp.nan.f64 " + NB + ", " + B + ", " + B);
    emit("setp.eq.b64 " + Same + ", " + M + ", " + A);
    emit("or.pred " + Same + ", " + Same + ", " + NB);
    if (I.PDst0 != PT) {
      emit("not.pred " + p(I.PDst0) + ", " + NA);
      emit("and.pred " + p(I.PDst0) + ", " + p(I.PDst0) + ", " + Same);
    }
    if (I.PDst1 != PT)
      emit("and.pred " + p(I.PDst1) + ", " + NA + ", " + NB);
    return;
  }
  const char *Cmp = Float ? FloatCmp[I.Sub & 15] : ICmp[I.Sub & 7];
  std::string Acc = predSrc(I.PSrc0);
  std::string R = tp();
  if (!*Cmp) { // always false (0) or always true (7 / 15)
    bool V = I.Sub != 0;
    emit(std::string(V ? "setp.eq.u32 " : "setp.ne.u32 ") + R + ", %rz, 0");
  } else if (I.O == Op::DSETP) {
    emit(std::string("setp.") + Cmp + ".f64 " + R + ", " + dval(I.A) + ", " + dval(I.B));
  } else if (Float) {
    emit(std::string("setp.") + Cmp + (I.Ftz ? ".ftz" : "") + ".f32 " + R + ", " + fval(I.A) + ", " + fval(I.B));
  } else if (!I.X) {
    emit(std::string("setp.") + Cmp + (I.Signed ? ".s32 " : ".u32 ") + R + ", " + val(I.A) + ", " + val(I.B));
  } else {
    // .EX: the high words compared, the low words' result (an input predicate) deciding ties.
    std::string A = val(I.A), B = val(I.B), Low = predSrc(I.PSrc1), Eq = tp();
    std::string Ty = I.Signed ? ".s32 " : ".u32 ";
    emit("setp.eq" + Ty + Eq + ", " + A + ", " + B);
    std::string Sub = Cmp;
    if (Sub == "eq") {
      emit("and.pred " + R + ", " + Eq + ", " + Low);
    } else if (Sub == "ne") {
      emit("setp.ne" + Ty + R + ", " + A + ", " + B);
      emit("or.pred " + R + ", " + R + ", " + Low);
    } else {
      std::string Strict = (Sub == "gt" || Sub == "ge") ? "gt" : "lt", Tie = tp();
      emit("setp." + Strict + Ty + R + ", " + A + ", " + B);
      emit("and.pred " + Tie + ", " + Eq + ", " + Low);
      emit("or.pred " + R + ", " + R + ", " + Tie);
    }
  }
  if (!Into.empty())
    emit(std::string(BoolOp[I.Sub2]) + ".pred " + Into + ", " + R + ", " + Acc);
  else if (I.PDst0 != PT)
    emit(std::string(BoolOp[I.Sub2]) + ".pred " + p(I.PDst0) + ", " + R + ", " + Acc);
  if (I.PDst1 != PT) {
    std::string NR = tp();
    emit("not.pred " + NR + ", " + R);
    emit(std::string(BoolOp[I.Sub2]) + ".pred " + p(I.PDst1) + ", " + NR + ", " + Acc);
  }
}

void FunctionLifter::iadd3(const Inst &I) {
  bool NeedCarry = I.PDst0 != PT || I.PDst1 != PT;
  if (!I.X && !NeedCarry) {
    std::string A = ival(I.A, false), B = ival(I.B, false), C = ival(I.C, false), T = t32();
    emit("add.u32 " + T + ", " + A + ", " + B);
    emit("add.u32 " + r(I.Rd) + ", " + T + ", " + C);
    return;
  }
  // Two 33-bit steps, each with its carry: A + B (+ the first carry-in
  // under .X) gives the first carry, its low word + C (+ the second
  // carry-in) the second; IADD3.X adds both back in. Negated sources are
  // ~x + 1 (~x under .X, whose carry-ins add the ones).
  auto wide = [&](const Src &X) {
    std::string V = val(X), W = t64();
    if (X.Neg) {
      std::string N = t32();
      emit("not.b32 " + N + ", " + V);
      V = N;
    }
    emit("cvt.u64.u32 " + W + ", " + V);
    if (X.Neg && !I.X)
      emit("add.u64 " + W + ", " + W + ", 1");
    return W;
  };
  auto carryIn = [&](const std::string &S, const PredSrc &Cin) {
    if (!I.X || Cin.isFalse())
      return;
    std::string W = t64();
    emit("selp.u64 " + W + ", 1, 0, " + predSrc(Cin));
    emit("add.u64 " + S + ", " + S + ", " + W);
  };
  auto carryOut = [&](const std::string &S, uint32_t Pd) {
    if (Pd == PT)
      return;
    std::string W = t64();
    emit("shr.u64 " + W + ", " + S + ", 32");
    emit("setp.ne.u64 " + p(Pd) + ", " + W + ", 0");
  };
  std::string S1 = t64(), S2 = t64(), A = wide(I.A), B = wide(I.B);
  emit("add.u64 " + S1 + ", " + A + ", " + B);
  carryIn(S1, I.PSrc0);
  carryOut(S1, I.PDst0);
  emit("and.b64 " + S2 + ", " + S1 + ", 0xffffffff");
  emit("add.u64 " + S2 + ", " + S2 + ", " + wide(I.C));
  carryIn(S2, I.PSrc1);
  carryOut(S2, I.PDst1);
  emit("cvt.u32.u64 " + r(I.Rd) + ", " + S2);
}

void FunctionLifter::imad(const Inst &I) {
  bool CarryOut = I.PDst0 != PT;
  if (CarryOut && (((I.O == Op::IMAD_HI || I.O == Op::IMAD_WIDE) && (I.Signed || I.X)) || I.A.Neg || I.B.Neg ||
                   I.C.Neg))
    fail("IMAD with a carry-out predicate in this form");
  std::string Ty = I.Signed ? "s32 " : "u32 ";
  if (I.O == Op::IMAD && CarryOut) {
    // The low word of A * B plus C (plus the carry-in under .X), the carry
    // out of that 32-bit sum into the predicate.
    std::string Lo = t32(), S = t64(), W = t64();
    emit("mul.lo.u32 " + Lo + ", " + val(I.A) + ", " + val(I.B));
    emit("cvt.u64.u32 " + S + ", " + Lo);
    emit("cvt.u64.u32 " + W + ", " + inReg(val(I.C)));
    emit("add.u64 " + S + ", " + S + ", " + W);
    if (I.X && !I.PSrc0.isFalse()) {
      emit("selp.u64 " + W + ", 1, 0, " + predSrc(I.PSrc0));
      emit("add.u64 " + S + ", " + S + ", " + W);
    }
    emit("shr.u64 " + W + ", " + S + ", 32");
    emit("setp.ne.u64 " + p(I.PDst0) + ", " + W + ", 0");
    emit("cvt.u32.u64 " + r(I.Rd) + ", " + S);
    return;
  }
  if (I.O == Op::IMAD) {
    // Negated sources: two's complement (the product's factors and the
    // addend), bitwise NOT for the addend under .X (the carry-in adds the one).
    std::string T = t32();
    emit("mad.lo.u32 " + T + ", " + ival(I.A, false) + ", " + ival(I.B, false) + ", " + ival(I.C, I.X));
    if (I.X && !I.PSrc0.isFalse()) {
      std::string Cin = t32();
      emit("selp.u32 " + Cin + ", 1, 0, " + predSrc(I.PSrc0));
      emit("add.u32 " + T + ", " + T + ", " + Cin);
    }
    emit("mov.b32 " + r(I.Rd) + ", " + T);
    return;
  }
  if (I.A.Neg || I.B.Neg)
    fail("negated factors of a wide or high product");
  std::string Prod = t64(), C = val64(I.C);
  if (I.C.Neg) {
    std::string N = t64();
    emit("neg.s64 " + N + ", " + C);
    C = N;
  }
  emit("mul.wide." + Ty + Prod + ", " + val(I.A) + ", " + val(I.B));
  // .X: the predicate's carry in joins the 64-bit sum (a 128-bit product's
  // upper half: mul.hi.u64); never with a carry out (refused above).
  std::string Cin;
  if (I.X && !I.PSrc0.isFalse()) {
    Cin = t64();
    emit("selp.u64 " + Cin + ", 1, 0, " + predSrc(I.PSrc0));
  }
  if (CarryOut) { // IMAD.WIDE.U32 and IMAD.HI.U32: the carry out of the 64-bit sum
    std::string Sum = t64();
    emit("add.u64 " + Sum + ", " + Prod + ", " + C);
    emit("setp.lt.u64 " + p(I.PDst0) + ", " + Sum + ", " + Prod);
    if (I.O == Op::IMAD_WIDE) {
      setPair(I.Rd, Sum);
    } else {
      std::string H = t64();
      emit("shr.u64 " + H + ", " + Sum + ", 32");
      emit("cvt.u32.u64 " + r(I.Rd) + ", " + H);
    }
    return;
  }
  emit("add.u64 " + Prod + ", " + Prod + ", " + C);
  if (!Cin.empty())
    emit("add.u64 " + Prod + ", " + Prod + ", " + Cin);
  if (I.O == Op::IMAD_WIDE) {
    setPair(I.Rd, Prod);
  } else {
    std::string H = t64();
    emit("shr.u64 " + H + ", " + Prod + ", 32");
    emit("cvt.u32.u64 " + r(I.Rd) + ", " + H);
  }
}

/// A source of \p Bytes for a conversion: a 32-bit value, a half (the
/// selected 16 bits of a register) or a register pair.
std::string FunctionLifter::convSource(const Inst &I, unsigned Bytes) {
  bool IntSrc = I.O == Op::I2F || I.O == Op::I2F64;
  if (IntSrc && (I.B.Neg || I.B.Abs))
    fail("a negated or absolute integer conversion source");
  // A float source's absolute value and negation apply before the conversion.
  if (Bytes == 8)
    return I.B.K == Src::KImm || !IntSrc ? dval(I.B) : val64(I.B);
  std::string V = inReg(Bytes == 4 && !IntSrc ? fval(I.B) : val(I.B));
  if (Bytes == 2) // either half may be the selected one
    V = signBits(V, I.B, "0x7fff7fff", "0x80008000");
  if (Bytes == 4)
    return V;
  if (Bytes == 2) {
    std::string H = th(), W = t32();
    emit(std::string(I.MemOffset == 1 ? "shr.u32 " : "mov.b32 ") + W + ", " + V + (I.MemOffset == 1 ? ", 16" : ""));
    emit("cvt.u16.u32 " + H + ", " + W);
    return H;
  }
  fail("conversion of a " + std::to_string(Bytes) + "-byte source");
}

/// Writes a conversion's result of \p Bytes (a half zero-extended into Rd).
void FunctionLifter::convResult(const Inst &I, unsigned Bytes, const std::string &V) {
  if (Bytes == 8)
    setPair(I.Rd, V);
  else if (Bytes == 4)
    emit("mov.b32 " + r(I.Rd) + ", " + V);
  else
    emit("cvt.u32.u16 " + r(I.Rd) + ", " + V);
}

void FunctionLifter::convert(const Inst &I) {
  unsigned Dst = 1u << (I.Sub & 3), Src = 1u << (I.Sub >> 4 & 3);
  bool Ftz = I.Ftz;
  bool IntDst = I.O == Op::F2I || I.O == Op::F2I64, IntSrc = I.O == Op::I2F || I.O == Op::I2F64;
  // A float destination's code 0 with bit 77: bfloat16 (F2F; sm_90's I2F
  // too); sm_90's float source code 0 with bit 86: bfloat16.
  bool DstBf16 = !IntDst && (I.O != Op::FRND && I.O != Op::FRND64) && (I.Sub & 3) == 0 && I.Sat;
  bool SrcBf16 = !IntSrc && I.Bf16;
  if (DstBf16)
    Dst = 2;
  if (SrcBf16)
    Src = 2;
  if ((Dst == 1 && !IntDst) || (Src == 1 && !IntSrc))
    fail("conversion of 8-bit floats");
  auto ftype = [&](unsigned B, bool IsDst) {
    return B == 8 ? std::string(".f64") : B == 4 ? ".f32" : (IsDst ? DstBf16 : SrcBf16) ? ".bf16" : ".f16";
  };
  auto itype = [&](unsigned B, bool S) { return std::string(S ? ".s" : ".u") + std::to_string(B * 8); };
  if (IntSrc && Src < 4) {
    // An 8- or 16-bit integer: the byte or half that bits 60-61 select,
    // extended (exactly representable, so converting the s32 rounds the same).
    std::string W = t32(), Out = Dst == 8 ? t64() : Dst == 4 ? t32() : th();
    emit(std::string(I.Signed ? "bfe.s32 " : "bfe.u32 ") + W + ", " + inReg(val(I.B)) + ", " +
         std::to_string(I.MemOffset * Src * 8) + ", " + std::to_string(Src * 8));
    emit("cvt" + rnd(I.Sub2) + ftype(Dst, true) + (I.Signed ? ".s32 " : ".u32 ") + Out + ", " + W);
    convResult(I, Dst, Out);
    return;
  }
  std::string In = convSource(I, Src);
  std::string Out = Dst == 8 ? t64() : Dst == 4 ? t32() : th();
  switch (I.O) {
  case Op::F2I:
  case Op::F2I64: {
    // .NTZ (bit 77): a NaN gives 0, as PTX's conversion does. An 8- or
    // 16-bit result is saturated to its type and extended.
    if (Dst < 4) {
      std::string H = th(), W = t32();
      emit("cvt" + std::string(IntRound[I.Sub2]) + (Ftz ? ".ftz" : "") + itype(Dst, I.Signed) + ftype(Src, false) + " " + H +
           ", " + In);
      emit("cvt" + itype(4, I.Signed) + itype(Dst, I.Signed) + " " + W + ", " + H);
      emit("mov.b32 " + r(I.Rd) + ", " + W);
      return;
    }
    emit("cvt" + std::string(IntRound[I.Sub2]) + (Ftz ? ".ftz" : "") + itype(Dst, I.Signed) + ftype(Src, false) + " " + Out +
         ", " + In);
    break;
  }
  case Op::I2F:
  case Op::I2F64:
    if (I.MemOffset)
      fail("I2F of a selected part of a 32-bit integer");
    if (Src == 8)
      In = val64(I.B);
    emit("cvt" + rnd(I.Sub2) + ftype(Dst, true) + itype(Src, I.Signed) + " " + Out + ", " + In);
    break;
  case Op::F2F:
  case Op::F2F64:
    if (Dst == Src && DstBf16 == SrcBf16)
      fail("F2F between equal sizes");
    // Widening is exact: no rounding modifier (PTX refuses one there);
    // between the two 16-bit formats there is rounding.
    emit("cvt" + (Dst <= Src ? rnd(I.Sub2) : std::string()) + (Ftz ? ".ftz" : "") + ftype(Dst, true) + ftype(Src, false) + " " +
         Out + ", " + In);
    break;
  default: // FRND
    if (Dst != Src || Src == 2)
      fail("FRND between sizes or of a half");
    emit("cvt" + std::string(IntRound[I.Sub2]) + (Ftz ? ".ftz" : "") + ftype(Dst, true) + ftype(Src, false) + " " + Out + ", " + In);
    break;
  }
  convResult(I, Dst, Out);
}

/// LEA: (A << s) + B; .HI: the high word of ({C:A} << s), + B; the shifted
/// value negated (two's complement, bitwise NOT under .X); .X adds a carry-in.
void FunctionLifter::lea(const Inst &I) {
  std::string Sh = t32();
  if (!I.Hi) {
    emit("shl.b32 " + Sh + ", " + val(I.A) + ", " + std::to_string(I.Sub));
  } else {
    std::string V = t64();
    std::string High = inReg(val(I.C));
    if (I.Signed) { // .SX32
      High = t32();
      emit("shr.s32 " + High + ", " + inReg(val(I.A)) + ", 31");
    }
    emit("mov.b64 " + V + ", {" + inReg(val(I.A)) + ", " + High + "}");
    emit("shl.b64 " + V + ", " + V + ", " + std::to_string(I.Sub));
    emit("shr.u64 " + V + ", " + V + ", 32");
    emit("cvt.u32.u64 " + Sh + ", " + V);
  }
  // A negated operand: its bitwise NOT, plus one outside .X, in 64 bits, so
  // that the carry out is the hardware's where the operand is 0 (~0 + 1
  // carries: subtracting zero borrows nothing). CUB's 64-bit tile
  // arithmetic (num_items - (tile << 30)) lost its high word's carry.
  if (I.A.Neg)
    emit("not.b32 " + Sh + ", " + Sh);
  std::string S = t64(), W = t64();
  emit("cvt.u64.u32 " + S + ", " + Sh);
  emit("cvt.u64.u32 " + W + ", " + ival(I.B, true));
  emit("add.u64 " + S + ", " + S + ", " + W);
  if (!I.X)
    for (bool Neg : {I.A.Neg, I.B.Neg})
      if (Neg)
        emit("add.u64 " + S + ", " + S + ", 1");
  if (I.X && !I.PSrc0.isFalse()) {
    emit("selp.u64 " + W + ", 1, 0, " + predSrc(I.PSrc0));
    emit("add.u64 " + S + ", " + S + ", " + W);
  }
  emit("cvt.u32.u64 " + r(I.Rd) + ", " + S);
  if (I.PDst0 != PT) {
    emit("shr.u64 " + W + ", " + S + ", 32");
    emit("setp.ne.u64 " + p(I.PDst0) + ", " + W + ", 0");
  }
}

void FunctionLifter::shf(const Inst &I) {
  bool Is64 = I.Sub < 2, Signed = I.Sub == 0 || I.Sub == 2;
  uint32_t Max = Is64 ? 64 : 32;
  std::string Lo = val(I.A), Hi = val(I.C), V = t64(), S = t32();
  emit("mov.b64 " + V + ", {" + inReg(Lo) + ", " + inReg(Hi) + "}");
  if (I.Wrap)
    emit("and.b32 " + S + ", " + val(I.B) + ", " + std::to_string(Max - 1));
  else
    emit("min.u32 " + S + ", " + val(I.B) + ", " + std::to_string(Max));
  if (!I.Right)
    emit("shl.b64 " + V + ", " + V + ", " + S);
  else
    emit(std::string(Signed ? "shr.s64 " : "shr.u64 ") + V + ", " + V + ", " + S);
  if (I.Hi)
    emit("shr.u64 " + V + ", " + V + ", 32");
  emit("cvt.u32.u64 " + r(I.Rd) + ", " + V);
}

/// The address of a global (64-bit, .E) or shared (32-bit, in __smem) access.
std::string FunctionLifter::address(const Inst &I, bool Shared) {
  if (Shared) {
    if (I.AddrURegUnknown)
      fail("a shared address with a uniform register not located yet");
    std::string Addr = t32(), Index = val(I.A);
    if (I.Scale) {
      std::string T = t32();
      emit("shl.b32 " + T + ", " + Index + ", " + std::to_string(I.Scale + 1));
      Index = T;
    }
    emit("mov.u32 " + Addr + ", __smem");
    emit("add.u32 " + Addr + ", " + Addr + ", " + Index);
    if (I.AddrUReg != URZ)
      emit("add.u32 " + Addr + ", " + Addr + ", %ur" + std::to_string(I.AddrUReg));
    // sm_90's shared addresses start at 0x400 in the CTA's window (the
    // first KiB is the system's), its CTA rank in the cluster at bit 24
    // (always 0 here: SR_CgaCtaId reads 0).
    emit("add.u32 " + Addr + ", " + Addr + ", " + std::to_string(I.MemOffset - (Cu.Sm >= 90 ? 0x400 : 0)));
    return Addr;
  }
  if (!I.Wide)
    fail("a 32-bit global address");
  if (I.AddrURegUnknown)
    fail("sm_75 global access with a uniform register address");
  std::string Addr = t64();
  if (I.OffsetRa32) {
    emit("cvt.u64.u32 " + Addr + ", " + val(I.A));
    emit("add.u64 " + Addr + ", " + Addr + ", " + std::to_string(I.MemOffset));
  } else {
    emit("add.u64 " + Addr + ", " + val64(I.A) + ", " + std::to_string(I.MemOffset));
  }
  if (I.AddrUReg != URZ) {
    Src U;
    U.K = Src::KUReg;
    U.Reg = I.AddrUReg;
    emit("add.u64 " + Addr + ", " + Addr + ", " + val64(U));
  }
  return Addr;
}

void FunctionLifter::atomic(const Inst &I) {
  bool Shared = I.O == Op::ATOMS || I.O == Op::ATOMS_CAS, Cas = I.O == Op::ATOMG_CAS || I.O == Op::ATOMS_CAS;
  static const char *Types[] = {"u32", "s32", "u64", "f32", "f16x2", "s64", "f64", "", "bf16x2"};
  static const char *Ops[] = {"add", "min", "max", "inc", "dec", "and", "or", "xor", "exch"};
  if (!*Types[I.Sub])
    fail("atomic of type code " + std::to_string(I.Sub));
  if (!Cas && I.Sub2 > 8)
    fail("atomic operation " + std::to_string(I.Sub2));
  // The generic form's predicate: performed (here always: any address takes an atomic).
  if (I.PDst0 != PT && !I.Generic)
    fail("atomic with a predicate result");
  bool Packed = I.Sub == 4 || I.Sub == 8;
  if (Packed && (I.Sub2 != 0 || Cas))
    fail("a packed half atomic other than ADD");
  bool Is64 = I.Sub == 2 || I.Sub == 5 || I.Sub == 6;
  std::string Op = Cas ? "cas" : Ops[I.Sub2], Ty = Types[I.Sub];
  if (Cas || Op == "and" || Op == "or" || Op == "xor" || Op == "exch")
    Ty = Is64 ? "b64" : "b32";
  if ((Op == "inc" || Op == "dec") && Ty != "u32")
    fail("atomic inc/dec of type ." + Ty);
  std::string Addr = address(I, Shared);
  auto operand = [&](const Src &X) {
    if (!Is64)
      return inReg(val(X));
    std::string V = val64(X);
    if (V[0] != '%') {
      std::string T = t64();
      emit("mov.b64 " + T + ", " + V);
      V = T;
    }
    return V;
  };
  std::string Space = Shared ? ".shared." : I.Generic ? "." : ".global.";
  if (Packed)
    Op = "add.noftz";
  if (I.O == Op::RED) {
    emit("red" + Space + Op + "." + Ty + " [" + Addr + "], " + operand(I.B));
    return;
  }
  std::string D = Is64 ? t64() : t32();
  if (Cas)
    emit("atom" + Space + "cas." + Ty + " " + D + ", [" + Addr + "], " + operand(I.B) + ", " + operand(I.C));
  else
    emit("atom" + Space + Op + "." + Ty + " " + D + ", [" + Addr + "], " + operand(I.B));
  if (Is64)
    setPair(I.Rd, D);
  else
    emit("mov.b32 " + r(I.Rd) + ", " + D);
  if (I.PDst0 != PT)
    emit("setp.eq.u32 " + p(I.PDst0) + ", 0, 0");
}

void FunctionLifter::memory(const Inst &I) {
  static const char *Ty[] = {".u8", ".s8", ".u16", ".s16", ".b32", ".b64", ".b128", ""};
  uint32_t Size = I.Sub;
  if (Size > 6)
    fail("memory access of size code " + std::to_string(Size));
  bool Load = I.O == Op::LDG || I.O == Op::LDS || I.O == Op::LDL || I.O == Op::LD;
  std::string Space, Addr;
  if (I.O == Op::LDG || I.O == Op::STG) {
    Space = ".global";
    Addr = address(I, false);
  } else if (I.O == Op::LD || I.O == Op::ST) {
    Addr = address(I, false);
  } else if (I.O == Op::LDS || I.O == Op::STS) {
    Space = ".shared";
    Addr = address(I, true);
  } else {
    Space = ".local";
    std::string Off = t32(), Off64 = t64();
    Addr = t64();
    if (I.AddrURegUnknown)
      fail("a local address with a uniform register not located yet");
    emit("add.u32 " + Off + ", " + val(I.A) + ", " + std::to_string(I.MemOffset));
    if (I.AddrUReg != URZ)
      emit("add.u32 " + Off + ", " + Off + ", %ur" + std::to_string(I.AddrUReg));
    emit("cvt.u64.u32 " + Off64 + ", " + Off);
    emit("mov.u64 " + Addr + ", __stack");
    emit("add.u64 " + Addr + ", " + Addr + ", " + Off64);
  }
  uint32_t Regs = Size == 5 ? 2 : Size == 6 ? 4 : 1;
  uint32_t Data = Load ? I.Rd : I.B.Reg;
  if (Data != RZ && Data + Regs - 1 >= RZ)
    fail("register group R" + std::to_string(Data) + " runs past R254");
  std::string List;
  for (uint32_t K = 0; K < Regs; ++K) {
    std::string X = Data == RZ ? (Load ? "%rsink" : "0") : r(Data + K);
    if (!Load && Data == RZ) {
      std::string T = t32();
      emit("mov.b32 " + T + ", 0");
      X = T;
    }
    List += (K ? ", " : "") + X;
  }
  std::string Vec = Regs == 1 ? "" : Regs == 2 ? ".v2" : ".v4";
  std::string T = Regs == 1 ? Ty[Size] : ".b32";
  std::string Ops = Regs == 1 ? List : "{" + List + "}";
  // A strong access (volatile, relaxed: a flag another thread or the host
  // sets) is one the compiler may not hoist out of a spin loop or merge.
  static const char *Order[] = {"", ".relaxed.cta", ".relaxed.gpu", ".relaxed.sys"};
  std::string Sem = I.Strong && Regs == 1 ? Order[I.Strong & 3] : I.Strong ? ".volatile" : "";
  if (Load)
    emit("ld" + Sem + Space + Vec + T + " " + Ops + ", [" + Addr + "]");
  else
    emit("st" + Sem + Space + Vec + T + " [" + Addr + "], " + Ops);
}

} // namespace zluda::sass::lift
