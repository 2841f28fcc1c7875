//===- LowerConvert.cpp - PTX conversions and bit operations in LLVM IR -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file cvt (every type pair, the narrow floats through the device runtime), cvta, isspacep, and the bit
/// manipulation and logic instructions.
#include "ptx/codegen/LowerImpl.h"

#include <cmath>
#include <limits>

namespace zluda::ptx {

using namespace llvm;

static bool hasIntRounding(const Instruction &In) {
  return In.has(".rni") || In.has(".rzi") || In.has(".rmi") || In.has(".rpi");
}

// --- cvt / cvta / isspacep ------------------------------------------------------------

void FnLowering::lowerCvt(const Instruction &In) {
  if (In.Op == Opcode::Cvta) {
    ScalarType T = In.type();
    bool To = In.has(".to");
    StateSpace S = In.space();
    Value *A = convertBits(get(In.Ops[1], T), B.getInt64Ty(), false);
    Value *R = A;
    if (S == StateSpace::Shared || S == StateSpace::SharedCta || S == StateSpace::SharedCluster) {
      Value *Base = B.CreatePtrToInt(sharedBase(), B.getInt64Ty());
      R = To ? B.CreateSub(A, Base) : B.CreateAdd(A, Base);
    }
    set(In.Ops[0], T, R);
    return;
  }
  if (In.Op == Opcode::Isspacep) {
    Value *P = B.CreateIntToPtr(convertBits(get(In.Ops[1], ScalarType::U64), B.getInt64Ty(), false), B.getPtrTy());
    StateSpace S = In.space();
    Value *R;
    if (S == StateSpace::Shared || S == StateSpace::SharedCta || S == StateSpace::SharedCluster)
      R = B.CreateCall(L.rt(RtFn::is_shared), {Ctx, P});
    else if (S == StateSpace::Local)
      R = B.CreateCall(L.rt(RtFn::is_local), {Ctx, P});
    else if (S == StateSpace::Global)
      R = B.CreateNot(B.CreateOr(B.CreateCall(L.rt(RtFn::is_shared), {Ctx, P}),
                                 B.CreateCall(L.rt(RtFn::is_local), {Ctx, P})));
    else
      R = B.getFalse();
    set(In.Ops[0], ScalarType::Pred, R);
    return;
  }
  auto Ts = In.types();
  if (In.has(".pack") && Ts.size() >= 2) {
    // cvt.pack.sat.{u16,s16}.s32 d, a, b: d = sat(a) << 16 | sat(b);
    // cvt.pack.sat.{u8,s8}.s32.b32 d, a, b, c: d = c << 16 | sat(a) << 8 | sat(b).
    ScalarType PT = Ts[0];
    unsigned W = bitWidth(PT);
    auto sat = [&](const Operand &O) {
      Value *V = B.CreateSExt(convertBits(get(O, ScalarType::S32), B.getInt32Ty(), true), B.getInt64Ty());
      int64_t Lo = isSignedType(PT) ? -(int64_t(1) << (W - 1)) : 0;
      int64_t Hi = isSignedType(PT) ? (int64_t(1) << (W - 1)) - 1 : (int64_t(1) << W) - 1;
      V = B.CreateSelect(B.CreateICmpSLT(V, B.getInt64(Lo)), B.getInt64(Lo), V);
      V = B.CreateSelect(B.CreateICmpSGT(V, B.getInt64(Hi)), B.getInt64(Hi), V);
      return B.CreateAnd(B.CreateTrunc(V, B.getInt32Ty()), B.getInt32((1u << W) - 1));
    };
    Value *R = B.CreateOr(B.CreateShl(sat(In.Ops[1]), W), sat(In.Ops[2]));
    if (W == 8) {
      if (In.Ops.size() < 4)
        fail("cvt.pack to 8-bit values needs a third source");
      Value *Cv = convertBits(get(In.Ops[3], ScalarType::B32), B.getInt32Ty(), false);
      R = B.CreateOr(B.CreateShl(Cv, 16), R);
    }
    set(In.Ops[0], ScalarType::B32, R);
    return;
  }
  if (Ts.size() != 2)
    fail("cvt needs a destination and a source type");
  ScalarType DT = Ts[0], ST = Ts[1];
  int RM = roundingOf(In);
  unsigned Mode = RM < 0 ? 0 : static_cast<unsigned>(RM);
  bool Ftz = In.has(".ftz"), Sat = In.has(".sat"), Relu = In.has(".relu");
  bool DF = isFloatType(DT), SF = isFloatType(ST);
  const Operand &D = In.Ops[0];

  // cvt.rna.tf32.f32: 10 mantissa bits, ties away from zero, in a b32
  // (subnormals round the same way; NaN is canonical: the hardware's answers).
  if (DT == ScalarType::TF32) {
    Value *Bits = convertBits(get(In.Ops[1], ScalarType::B32), B.getInt32Ty(), false);
    Value *Rounded = B.CreateAnd(B.CreateAdd(Bits, B.getInt32(0x1000)), B.getInt32(~0x1FFFu));
    Value *IsNaN = B.CreateICmpUGT(B.CreateAnd(Bits, 0x7FFFFFFF), B.getInt32(0x7F800000));
    Value *IsInf = B.CreateICmpEQ(B.CreateAnd(Bits, 0x7FFFFFFF), B.getInt32(0x7F800000));
    Value *R = B.CreateSelect(IsInf, Bits, Rounded);
    R = B.CreateSelect(IsNaN, B.CreateAnd(Bits, B.getInt32(~0x1FFFu)), R); // a NaN is truncated
    set(D, ScalarType::B32, R);
    return;
  }

  // 4- and 6-bit floats, two to a .b8 (e2m1x2) or a .b16 (e2m3x2, e3m2x2), and the 8-bit exponent scales
  // (ue8m0x2): the runtime's conversions (DeviceFloat.inc).
  auto narrowKind = [](ScalarType X) { return X == ScalarType::E2M1x2 ? 0 : X == ScalarType::E2M3x2 ? 1 : 2; };
  bool DNarrow = DT == ScalarType::E2M1x2 || DT == ScalarType::E2M3x2 || DT == ScalarType::E3M2x2;
  bool SNarrow = ST == ScalarType::E2M1x2 || ST == ScalarType::E2M3x2 || ST == ScalarType::E3M2x2;
  if (DNarrow && ST == ScalarType::F32 && In.Ops.size() >= 3) {
    Value *R = B.CreateCall(L.rt(RtFn::f32x2_to_narrowx2), {Ctx, get(In.Ops[1], ScalarType::F32), get(In.Ops[2], ScalarType::F32),
                                                            B.getInt32(narrowKind(DT) | (Relu ? 4 : 0))});
    set(D, DT == ScalarType::E2M1x2 ? ScalarType::B8 : ScalarType::B16, R);
    return;
  }
  if (SNarrow && DT == ScalarType::F16x2) {
    Value *V = convertBits(get(In.Ops[1], ST == ScalarType::E2M1x2 ? ScalarType::B8 : ScalarType::B16), B.getInt32Ty(), false);
    set(D, ScalarType::B32, B.CreateCall(L.rt(RtFn::narrowx2_to_f16x2), {Ctx, V, B.getInt32(narrowKind(ST) | (Relu ? 4 : 0))}));
    return;
  }
  if (DT == ScalarType::UE8M0x2 && (ST == ScalarType::F32 || ST == ScalarType::BF16x2) && (RM == 1 || RM == 3)) {
    uint32_t Kind = (RM == 3 ? 1 : 0) | (In.has(".satfinite") ? 2 : 0);
    Value *R = ST == ScalarType::F32
                   ? B.CreateCall(L.rt(RtFn::f32x2_to_ue8m0x2),
                                  {Ctx, get(In.Ops[1], ScalarType::F32), get(In.Ops.at(2), ScalarType::F32), B.getInt32(Kind)})
                   : B.CreateCall(L.rt(RtFn::bf16x2_to_ue8m0x2),
                                  {Ctx, convertBits(get(In.Ops[1], ScalarType::B32), B.getInt32Ty(), false), B.getInt32(Kind)});
    set(D, ScalarType::B16, R);
    return;
  }
  if (ST == ScalarType::UE8M0x2 && DT == ScalarType::BF16x2) {
    Value *V = convertBits(get(In.Ops[1], ScalarType::B16), B.getInt16Ty(), false);
    set(D, ScalarType::B32, B.CreateCall(L.rt(RtFn::ue8m0x2_to_bf16x2), {Ctx, V}));
    return;
  }
  for (ScalarType X : {DT, ST})
    if (X == ScalarType::E2M1 || DNarrow || SNarrow || X == ScalarType::UE8M0x2)
      invalid("cvt between " + std::string(spelling(DT)) + " and " + std::string(spelling(ST)) +
              " is not a form the PTX ISA defines (the 4/6-bit floats convert from .f32 pairs and to .f16x2, the "
              "scales from .f32 pairs or .bf16x2 with .rz or .rp and to .bf16x2)");

  // 8-bit floats, two to a 16-bit register (sm_89+).
  bool DFp8 = DT == ScalarType::E4M3x2 || DT == ScalarType::E5M2x2;
  bool SFp8 = ST == ScalarType::E4M3x2 || ST == ScalarType::E5M2x2;
  if (DFp8 || SFp8) {
    uint32_t Kind = ((DFp8 ? DT : ST) == ScalarType::E5M2x2 ? 1 : 0) | (Relu ? 2 : 0);
    if (DFp8 && (ST == ScalarType::F32) && In.Ops.size() >= 3) {
      // cvt.rn.satfinite.e4m3x2.f32 d, a, b: a to the high byte, b to the low.
      Value *A = get(In.Ops[1], ScalarType::F32), *Bv = get(In.Ops[2], ScalarType::F32);
      set(D, ScalarType::B16, B.CreateCall(L.rt(RtFn::f32x2_to_fp8x2), {Ctx, A, Bv, B.getInt32(Kind)}));
      return;
    }
    if (DFp8 && ST == ScalarType::F16x2) {
      // Each binary16 half is exact in f32: one rounding, to the 8-bit format.
      Value *V = convertBits(get(In.Ops[1], ScalarType::B32), B.getInt32Ty(), false);
      Value *Lo = toFloat(B.CreateTrunc(V, B.getInt16Ty()), ScalarType::F16);
      Value *Hi = toFloat(B.CreateTrunc(B.CreateLShr(V, 16), B.getInt16Ty()), ScalarType::F16);
      set(D, ScalarType::B16, B.CreateCall(L.rt(RtFn::f32x2_to_fp8x2), {Ctx, Hi, Lo, B.getInt32(Kind)}));
      return;
    }
    if (SFp8 && DT == ScalarType::F16x2) {
      Value *V = convertBits(get(In.Ops[1], ScalarType::B16), B.getInt16Ty(), false);
      set(D, ScalarType::B32, B.CreateCall(L.rt(RtFn::fp8x2_to_f16x2), {Ctx, V, B.getInt32(Kind)}));
      return;
    }
    fail("cvt between " + std::string(spelling(DT)) + " and " + std::string(spelling(ST)) + " is not supported");
  }

  if (DT == ScalarType::F16x2 || DT == ScalarType::BF16x2) {
    // cvt.rn.f16x2.f32 d, a, b: d.hi = cvt(a), d.lo = cvt(b).
    ScalarType ET = DT == ScalarType::F16x2 ? ScalarType::F16 : ScalarType::BF16;
    auto half = [&](const Operand &O) {
      Value *V = get(O, ST);
      if (Relu)
        V = reluFloat(V);
      if (Sat)
        V = saturateFloat(V);
      return B.CreateZExt(canonicalNaN(fromFloat(V, ET, Mode), ET), B.getInt32Ty());
    };
    Value *Hi = half(In.Ops[1]), *Lo = half(In.Ops[2]);
    set(D, ScalarType::B32, B.CreateOr(B.CreateShl(Hi, 16), Lo));
    return;
  }

  if (!DF && !SF) {
    // Integer to integer, with optional saturation to the destination range.
    Value *V = get(In.Ops[1], ST);
    unsigned DW = std::max(8u, bitWidth(DT));
    if (Sat) {
      Value *W = isSignedType(ST) ? B.CreateSExt(V, B.getIntNTy(128)) : B.CreateZExt(V, B.getIntNTy(128));
      APInt Lo = isSignedType(DT) ? APInt::getSignedMinValue(DW).sext(128) : APInt(128, 0);
      APInt Hi = isSignedType(DT) ? APInt::getSignedMaxValue(DW).sext(128) : APInt::getMaxValue(DW).zext(128);
      Value *LoV = B.getInt(Lo), *HiV = B.getInt(Hi);
      W = B.CreateSelect(B.CreateICmpSLT(W, LoV), LoV, W);
      W = B.CreateSelect(B.CreateICmpSGT(W, HiV), HiV, W);
      set(D, DT, B.CreateTrunc(W, B.getIntNTy(DW)));
      return;
    }
    unsigned SW = V->getType()->getIntegerBitWidth();
    Value *R = SW == DW  ? V
               : SW > DW ? B.CreateTrunc(V, B.getIntNTy(DW))
                         : (isSignedType(ST) ? B.CreateSExt(V, B.getIntNTy(DW)) : B.CreateZExt(V, B.getIntNTy(DW)));
    set(D, DT, R);
    return;
  }

  if (SF && DF) {
    Value *V = toFloat(get(In.Ops[1], ST), ST);
    if (Ftz && V->getType()->isFloatTy())
      V = ftz(V);
    unsigned SB = bitWidth(ST), DB = bitWidth(DT);
    Value *R;
    if (hasIntRounding(In)) {
      Intrinsic::ID Id = RM == 0 ? Intrinsic::roundeven : RM == 1 ? Intrinsic::trunc : RM == 2 ? Intrinsic::floor : Intrinsic::ceil;
      R = intrinsic(Id, {V});
      if (DB > SB && DT == ScalarType::F64)
        R = B.CreateFPExt(R, B.getDoubleTy());
    } else if (DT == ScalarType::F64) {
      R = V->getType()->isDoubleTy() ? V : B.CreateFPExt(V, B.getDoubleTy());
    } else if (DT == ScalarType::F32) {
      if (V->getType()->isDoubleTy())
        R = Mode == 0 ? B.CreateFPTrunc(V, B.getFloatTy())
                      : B.CreateCall(L.rt(RtFn::f64_to_f32), {Ctx, V, B.getInt32(Mode)});
      else
        R = V;
    } else {
      R = V; // to a 16-bit format: fromFloat rounds
    }
    if (Relu)
      R = reluFloat(R);
    if (Ftz && R->getType()->isFloatTy())
      R = ftz(R);
    if (Sat)
      R = saturateFloat(R);
    Value *Out = fromFloat(R, DT, Mode);
    if (ST == ScalarType::F64 && DT != ScalarType::F64) {
      // From f64 a NaN keeps its payload's top bits, quieted.
      Value *Bits = B.CreateBitCast(V, B.getInt64Ty());
      unsigned Man = DT == ScalarType::F32 ? 23 : DT == ScalarType::F16 ? 10 : 7;
      unsigned W = bitWidth(DT);
      Value *Sign = B.CreateTrunc(B.CreateLShr(Bits, 63 - (W - 1)), B.getIntNTy(W));
      Sign = B.CreateAnd(Sign, B.getInt(APInt::getSignMask(W)));
      Value *Payload = B.CreateTrunc(B.CreateLShr(B.CreateAnd(Bits, B.getInt64(0x000FFFFFFFFFFFFFULL)), 52 - Man),
                                     B.getIntNTy(W));
      APInt ExpQuiet = APInt::getBitsSet(W, Man - 1, W - 1);
      Value *NaNBits = B.CreateOr(B.CreateOr(Sign, B.getInt(ExpQuiet)), Payload);
      Value *OutBits = Out->getType()->isIntegerTy() ? Out : B.CreateBitCast(Out, B.getIntNTy(W));
      OutBits = B.CreateSelect(B.CreateFCmpUNO(V, V), NaNBits, OutBits);
      Out = Out->getType()->isIntegerTy() ? OutBits : B.CreateBitCast(OutBits, Out->getType());
    } else if (!(ST == ScalarType::BF16 && (DT == ScalarType::F32 || DT == ScalarType::F64))) {
      // (bf16 widens to f32 exactly, payload and all)
      Out = canonicalNaN(Out, DT);
    }
    set(D, DT, Out);
    return;
  }

  if (SF && !DF) {
    // Float to integer: round as asked, then saturate (PTX saturates float
    // to int conversions, NaN gives 0).
    Value *V = toFloat(get(In.Ops[1], ST), ST);
    if (Ftz && V->getType()->isFloatTy())
      V = ftz(V);
    Intrinsic::ID Id = RM == 0 ? Intrinsic::roundeven : RM == 2 ? Intrinsic::floor : RM == 3 ? Intrinsic::ceil : Intrinsic::trunc;
    V = intrinsic(Id, {V});
    unsigned DW = std::max(8u, bitWidth(DT));
    llvm::Function *Conv = Intrinsic::getDeclaration(F->getParent(), isSignedType(DT) ? Intrinsic::fptosi_sat : Intrinsic::fptoui_sat,
                                               {B.getIntNTy(DW), V->getType()});
    // A NaN gives 0 from f16/bf16/f32 to at most 32 bits; from f64, or to 64
    // bits, the destination's top bit alone (0x80, 0x8000...), signed or not
    // (what the hardware gives, golden cases).
    bool TopBit = ST == ScalarType::F64 || DW == 64;
    Value *R = B.CreateSelect(B.CreateFCmpUNO(V, V), B.getInt(TopBit ? APInt::getSignMask(DW) : APInt(DW, 0)),
                              B.CreateCall(Conv, {V}));
    set(D, DT, R);
    return;
  }

  // Integer to float.
  Value *V = get(In.Ops[1], ST);
  bool S = isSignedType(ST);
  Value *R;
  if (DT == ScalarType::F32 || DT == ScalarType::F64) {
    Type *FT = valueType(DT);
    if (Mode == 0)
      R = S ? B.CreateSIToFP(V, FT) : B.CreateUIToFP(V, FT);
    else {
      Value *W = S ? B.CreateSExt(V, B.getInt64Ty()) : B.CreateZExt(V, B.getInt64Ty());
      if (V->getType()->getIntegerBitWidth() == 64)
        W = V;
      R = B.CreateCall(L.rt(DT == ScalarType::F32 ? RtFn::i64_to_f32 : RtFn::i64_to_f64),
                       {Ctx, W, B.getInt32(S), B.getInt32(Mode)});
    }
  } else if (V->getType()->getIntegerBitWidth() == 64) {
    // To a 16-bit format from 64 bits: through f64 rounded to odd (toward zero,
    // then the last bit set when inexact), so the second rounding is exact.
    R = B.CreateCall(L.rt(RtFn::i64_to_f64), {Ctx, V, B.getInt32(S), B.getInt32(1)});
    Value *Back = S ? B.CreateFPToSI(R, B.getInt64Ty()) : B.CreateFPToUI(R, B.getInt64Ty());
    Value *Bits = B.CreateBitCast(R, B.getInt64Ty());
    Bits = B.CreateSelect(B.CreateICmpNE(Back, V), B.CreateOr(Bits, B.getInt64(1)), Bits);
    R = B.CreateBitCast(Bits, B.getDoubleTy());
  } else {
    R = S ? B.CreateSIToFP(V, B.getDoubleTy()) : B.CreateUIToFP(V, B.getDoubleTy());
  }
  if (Sat)
    R = saturateFloat(R);
  set(D, DT, fromFloat(R, DT, Mode));
}

// --- bit manipulation and logic ----------------------------------------------------------

void FnLowering::lowerBits(const Instruction &In) {
  ScalarType T = typeOf(In);
  const Operand &D = In.Ops[0];
  if (T == ScalarType::Pred) {
    auto p = [&](size_t I) { return convertBits(get(In.Ops[I], T), B.getInt1Ty(), false); };
    switch (In.Op) {
    case Opcode::And:
      set(D, T, B.CreateAnd(p(1), p(2)));
      return;
    case Opcode::Or:
      set(D, T, B.CreateOr(p(1), p(2)));
      return;
    case Opcode::Xor:
      set(D, T, B.CreateXor(p(1), p(2)));
      return;
    case Opcode::Not:
      set(D, T, B.CreateNot(p(1)));
      return;
    default:
      fail("instruction '" + std::string(spelling(In.Op)) + "' does not take .pred");
    }
  }
  unsigned W = std::max(8u, bitWidth(T));
  Type *IT = B.getIntNTy(W);
  auto src = [&](size_t I, ScalarType ST) { return get(In.Ops[I], ST); };
  auto s = [&](size_t I) { return convertBits(src(I, T), IT, isSignedType(T)); };
  auto u32 = [&](size_t I) { return convertBits(src(I, ScalarType::U32), B.getInt32Ty(), false); };
  auto cst = [&](uint64_t V) { return ConstantInt::get(IT, V); };
  switch (In.Op) {
  case Opcode::And:
    set(D, T, B.CreateAnd(s(1), s(2)));
    return;
  case Opcode::Or:
    set(D, T, B.CreateOr(s(1), s(2)));
    return;
  case Opcode::Xor:
    set(D, T, B.CreateXor(s(1), s(2)));
    return;
  case Opcode::Not:
    set(D, T, B.CreateNot(s(1)));
    return;
  case Opcode::Cnot:
    set(D, T, B.CreateZExt(B.CreateICmpEQ(s(1), cst(0)), IT));
    return;
  case Opcode::Shl:
  case Opcode::Shr: {
    // Shift amounts >= the width clamp: 0, or all sign bits for shr.s.
    Value *A = s(1), *N = u32(2);
    Value *Big = B.CreateICmpUGE(N, B.getInt32(W));
    Value *SafeN = B.CreateZExtOrTrunc(B.CreateSelect(Big, B.getInt32(0), N), IT);
    Value *R;
    if (In.Op == Opcode::Shl)
      R = B.CreateSelect(Big, cst(0), B.CreateShl(A, SafeN));
    else if (isSignedType(T))
      R = B.CreateAShr(A, B.CreateSelect(Big, cst(W - 1), SafeN));
    else
      R = B.CreateSelect(Big, cst(0), B.CreateLShr(A, SafeN));
    set(D, T, R);
    return;
  }
  case Opcode::Shf: {
    Value *A = convertBits(src(1, ScalarType::B32), B.getInt32Ty(), false);
    Value *Bv = convertBits(src(2, ScalarType::B32), B.getInt32Ty(), false);
    Value *N = u32(3);
    bool Left = In.has(".l"), Clamp = In.has(".clamp");
    Intrinsic::ID Id = Left ? Intrinsic::fshl : Intrinsic::fshr;
    llvm::Function *Fn = Intrinsic::getDeclaration(F->getParent(), Id, {B.getInt32Ty()});
    Value *R = B.CreateCall(Fn, {Bv, A, N});
    if (Clamp) {
      Value *Over = B.CreateICmpUGE(N, B.getInt32(32));
      R = B.CreateSelect(Over, Left ? A : Bv, R);
    }
    set(D, T, R);
    return;
  }
  case Opcode::Popc:
    set(D, ScalarType::U32, B.CreateTrunc(intrinsic(Intrinsic::ctpop, {s(1)}), B.getInt32Ty()));
    return;
  case Opcode::Clz: {
    llvm::Function *Fn = Intrinsic::getDeclaration(F->getParent(), Intrinsic::ctlz, {IT});
    set(D, ScalarType::U32, B.CreateTrunc(B.CreateCall(Fn, {s(1), B.getFalse()}), B.getInt32Ty()));
    return;
  }
  case Opcode::Brev:
    set(D, T, intrinsic(Intrinsic::bitreverse, {s(1)}));
    return;
  case Opcode::Bfind: {
    Value *A = s(1);
    if (isSignedType(T))
      A = B.CreateSelect(B.CreateICmpSLT(A, cst(0)), B.CreateNot(A), A);
    llvm::Function *Fn = Intrinsic::getDeclaration(F->getParent(), Intrinsic::ctlz, {IT});
    Value *Lz = B.CreateTrunc(B.CreateCall(Fn, {A, B.getFalse()}), B.getInt32Ty());
    Value *None = B.CreateICmpEQ(A, cst(0));
    Value *Pos = In.has(".shiftamt") ? Lz : B.CreateSub(B.getInt32(W - 1), Lz);
    set(D, ScalarType::U32, B.CreateSelect(None, B.getInt32(0xffffffffu), Pos));
    return;
  }
  case Opcode::Bfe: {
    Value *A = s(1);
    Value *Pos = byteField(u32(2), W), *Len = byteField(u32(3), W);
    Value *PosW = B.CreateZExtOrTrunc(Pos, IT), *LenW = B.CreateZExtOrTrunc(Len, IT);
    Value *PosBig = B.CreateICmpUGE(Pos, B.getInt32(W));
    Value *LenZero = B.CreateICmpEQ(Len, B.getInt32(0));
    Value *R;
    if (isSignedType(T)) {
      Value *Shifted = B.CreateAShr(A, B.CreateSelect(PosBig, cst(W - 1), PosW));
      Value *LenBig = B.CreateICmpUGE(Len, B.getInt32(W));
      Value *Sh = B.CreateSub(cst(W), B.CreateSelect(LenBig, cst(W), LenW));
      Value *SafeSh = B.CreateSelect(LenBig, cst(0), Sh);
      R = B.CreateAShr(B.CreateShl(Shifted, SafeSh), SafeSh);
    } else {
      Value *Shifted = B.CreateSelect(PosBig, cst(0), B.CreateLShr(A, B.CreateSelect(PosBig, cst(0), PosW)));
      Value *LenBig = B.CreateICmpUGE(Len, B.getInt32(W));
      Value *Mask = B.CreateSelect(LenBig, cst(~0ull), B.CreateSub(B.CreateShl(cst(1), B.CreateSelect(LenBig, cst(0), LenW)), cst(1)));
      R = B.CreateAnd(Shifted, Mask);
    }
    set(D, T, B.CreateSelect(LenZero, cst(0), R));
    return;
  }
  case Opcode::Bfi: {
    Value *A = s(1), *Bv = s(2);
    Value *Pos = byteField(u32(3), W), *Len = byteField(u32(4), W);
    Value *PosW = B.CreateZExtOrTrunc(Pos, IT), *LenW = B.CreateZExtOrTrunc(Len, IT);
    Value *PosBig = B.CreateICmpUGE(Pos, B.getInt32(W));
    Value *LenBig = B.CreateICmpUGE(Len, B.getInt32(W));
    Value *Bits = B.CreateSelect(LenBig, cst(~0ull), B.CreateSub(B.CreateShl(cst(1), B.CreateSelect(LenBig, cst(0), LenW)), cst(1)));
    Value *SafePos = B.CreateSelect(PosBig, cst(0), PosW);
    Value *Mask = B.CreateSelect(PosBig, cst(0), B.CreateShl(Bits, SafePos));
    Value *R = B.CreateOr(B.CreateAnd(Bv, B.CreateNot(Mask)), B.CreateAnd(B.CreateShl(A, SafePos), Mask));
    set(D, T, R);
    return;
  }
  case Opcode::Prmt: {
    Value *A = convertBits(src(1, ScalarType::B32), B.getInt32Ty(), false);
    Value *Bv = convertBits(src(2, ScalarType::B32), B.getInt32Ty(), false);
    Value *Sel = u32(3);
    Value *Both = B.CreateOr(B.CreateZExt(A, B.getInt64Ty()), B.CreateShl(B.CreateZExt(Bv, B.getInt64Ty()), 32));
    std::string Mode;
    for (const char *M : {".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"})
      if (In.has(M))
        Mode = M;
    Value *R = B.getInt32(0);
    for (unsigned I = 0; I < 4; ++I) {
      Value *Nib; // selector for byte I
      bool SignMode = Mode.empty();
      Value *S2 = B.CreateAnd(Sel, 3);
      if (Mode.empty())
        Nib = B.CreateAnd(B.CreateLShr(Sel, 4 * I), 0xf);
      else if (Mode == ".f4e")
        Nib = B.CreateAnd(B.CreateAdd(S2, B.getInt32(I)), 7);
      else if (Mode == ".b4e")
        Nib = B.CreateAnd(B.CreateSub(S2, B.getInt32(I)), 7);
      else if (Mode == ".rc8")
        Nib = S2;
      else if (Mode == ".ecl")
        Nib = B.CreateSelect(B.CreateICmpULT(B.getInt32(I), S2), S2, B.getInt32(I)); // max(i, sel)
      else if (Mode == ".ecr")
        Nib = B.CreateSelect(B.CreateICmpUGT(B.getInt32(I), S2), S2, B.getInt32(I)); // min(i, sel)
      else // .rc16
        Nib = B.CreateOr(B.CreateShl(B.CreateAnd(Sel, 1), 1), B.getInt32(I & 1));
      Value *Idx = B.CreateAnd(Nib, 7);
      Value *Byte = B.CreateTrunc(B.CreateLShr(Both, B.CreateZExt(B.CreateMul(Idx, B.getInt32(8)), B.getInt64Ty())), B.getInt32Ty());
      Byte = B.CreateAnd(Byte, 0xff);
      if (SignMode) {
        Value *Msb = B.CreateICmpNE(B.CreateAnd(Byte, 0x80), B.getInt32(0));
        Value *UseSign = B.CreateICmpNE(B.CreateAnd(Nib, 8), B.getInt32(0));
        Byte = B.CreateSelect(UseSign, B.CreateSelect(Msb, B.getInt32(0xff), B.getInt32(0)), Byte);
      }
      R = B.CreateOr(R, B.CreateShl(Byte, 8 * I));
    }
    set(D, T, R);
    return;
  }
  case Opcode::Lop3: {
    Value *A = s(1), *Bv = s(2), *Cv = s(3);
    const Operand &Lut = In.Ops[4];
    if (Lut.Kind != Operand::OK_Int)
      fail("lop3 needs an immediate lookup table");
    Value *R = cst(0);
    for (unsigned I = 0; I < 8; ++I) {
      if (!((Lut.Int >> I) & 1))
        continue;
      Value *Ta = (I & 4) ? A : B.CreateNot(A);
      Value *Tb = (I & 2) ? Bv : B.CreateNot(Bv);
      Value *Tc = (I & 1) ? Cv : B.CreateNot(Cv);
      R = B.CreateOr(R, B.CreateAnd(Ta, B.CreateAnd(Tb, Tc)));
    }
    set(D, T, R);
    return;
  }
  case Opcode::Bmsk: {
    bool Wrap = In.has(".wrap");
    Value *A = u32(1), *Bv = u32(2);
    auto lim = [&](Value *V) {
      return Wrap ? B.CreateAnd(V, 31) : B.CreateSelect(B.CreateICmpUGT(V, B.getInt32(32)), B.getInt32(32), V);
    };
    Value *A64 = B.CreateZExt(lim(A), B.getInt64Ty()), *B64 = B.CreateZExt(lim(Bv), B.getInt64Ty());
    Value *M = B.CreateShl(B.CreateSub(B.CreateShl(B.getInt64(1), B64), B.getInt64(1)), A64);
    set(D, T, B.CreateTrunc(M, B.getInt32Ty()));
    return;
  }
  case Opcode::Szext: {
    bool Wrap = In.has(".wrap");
    Value *A = convertBits(src(1, ScalarType::B32), B.getInt32Ty(), false), *N = u32(2);
    N = Wrap ? B.CreateAnd(N, 31) : B.CreateSelect(B.CreateICmpUGT(N, B.getInt32(32)), B.getInt32(32), N);
    Value *Sh = B.CreateSub(B.getInt32(32), N);
    Value *SafeSh = B.CreateSelect(B.CreateICmpEQ(N, B.getInt32(0)), B.getInt32(0), Sh);
    Value *Up = B.CreateShl(A, SafeSh);
    Value *R = isSignedType(T) ? B.CreateAShr(Up, SafeSh) : B.CreateLShr(Up, SafeSh);
    set(D, T, B.CreateSelect(B.CreateICmpEQ(N, B.getInt32(0)), B.getInt32(0), R));
    return;
  }
  case Opcode::Dp4a:
  case Opcode::Dp2a: {
    auto Ts = In.types();
    bool SA = Ts.size() > 0 && isSignedType(Ts[0]), SB = Ts.size() > 1 && isSignedType(Ts[1]);
    Value *A = convertBits(src(1, ScalarType::B32), B.getInt32Ty(), false);
    Value *Bv = convertBits(src(2, ScalarType::B32), B.getInt32Ty(), false);
    Value *Acc = convertBits(src(3, SA || SB ? ScalarType::S32 : ScalarType::U32), B.getInt32Ty(), false);
    auto part = [&](Value *V, unsigned Bit, unsigned Bits, bool Sg) {
      Value *X = B.CreateShl(V, 32 - Bit - Bits);
      return Sg ? B.CreateAShr(X, 32 - Bits) : B.CreateLShr(X, 32 - Bits);
    };
    if (In.Op == Opcode::Dp4a) {
      for (unsigned I = 0; I < 4; ++I)
        Acc = B.CreateAdd(Acc, B.CreateMul(part(A, 8 * I, 8, SA), part(Bv, 8 * I, 8, SB)));
    } else {
      unsigned Base = In.has(".hi") ? 2 : 0;
      for (unsigned I = 0; I < 2; ++I)
        Acc = B.CreateAdd(Acc, B.CreateMul(part(A, 16 * I, 16, SA), part(Bv, 8 * (Base + I), 8, SB)));
    }
    set(D, ScalarType::B32, Acc);
    return;
  }
  default:
    fail("internal: not a bit instruction");
  }
}

} // namespace zluda::ptx
