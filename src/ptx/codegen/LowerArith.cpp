//===- LowerArith.cpp - PTX arithmetic and comparisons in LLVM IR -----------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Integer and floating-point arithmetic (packed halves and f32 pairs too), setp/set/selp/slct.
/// 16-bit floats are computed in f32 (f64 for fma): for +, -, *, /, sqrt the wider format has
/// >= 2p+2 bits, so the double rounding is exact.
#include "ptx/codegen/LowerImpl.h"

#include <cmath>
#include <limits>

namespace zluda::ptx {

using namespace llvm;

// --- integer arithmetic ----------------------------------------------------------------

void FnLowering::lowerIntArith(const Instruction &In) {
  ScalarType T = typeOf(In);
  // Packed 16-bit integers (add/sub/min/max{.relu}.{s16x2,u16x2}): the scalar operation on each half.
  if (T == ScalarType::S16x2 || T == ScalarType::U16x2) {
    bool S = T == ScalarType::S16x2;
    if (In.Ops.size() != 3)
      invalid("'" + std::string(spelling(In.Op)) + "." + std::string(spelling(T)).substr(1) + "' takes d, a, b");
    Value *A = convertBits(get(In.Ops[1], ScalarType::B32), B.getInt32Ty(), false);
    Value *Bv = convertBits(get(In.Ops[2], ScalarType::B32), B.getInt32Ty(), false);
    Value *Result = B.getInt32(0);
    for (unsigned Lane = 0; Lane < 2; ++Lane) {
      Value *X = B.CreateTrunc(B.CreateLShr(A, Lane * 16), B.getInt16Ty());
      Value *Y = B.CreateTrunc(B.CreateLShr(Bv, Lane * 16), B.getInt16Ty());
      Value *R = nullptr;
      switch (In.Op) {
      case Opcode::Add:
        R = B.CreateAdd(X, Y);
        break;
      case Opcode::Sub:
        R = B.CreateSub(X, Y);
        break;
      case Opcode::Min:
        R = B.CreateSelect(S ? B.CreateICmpSLT(X, Y) : B.CreateICmpULT(X, Y), X, Y);
        break;
      case Opcode::Max:
        R = B.CreateSelect(S ? B.CreateICmpSGT(X, Y) : B.CreateICmpUGT(X, Y), X, Y);
        break;
      default:
        invalid("'" + std::string(spelling(In.Op)) + "' does not take packed 16-bit integers (add, sub, min, max do)");
      }
      if (In.has(".relu")) {
        if (!S)
          invalid("'.relu' needs .s16x2");
        R = B.CreateSelect(B.CreateICmpSLT(R, B.getInt16(0)), B.getInt16(0), R);
      }
      Result = B.CreateOr(Result, B.CreateShl(B.CreateZExt(R, B.getInt32Ty()), Lane * 16));
    }
    set(In.Ops[0], ScalarType::B32, Result);
    return;
  }
  bool Signed = isSignedType(T);
  unsigned W = std::max(8u, bitWidth(T));
  Type *IT = B.getIntNTy(W);
  auto src = [&](size_t I) { return convertBits(get(In.Ops[I], T), IT, Signed); };
  auto ext = [&](Value *V, unsigned To) {
    return Signed ? B.CreateSExt(V, B.getIntNTy(To)) : B.CreateZExt(V, B.getIntNTy(To));
  };
  const Operand &D = In.Ops[0];
  bool Hi = In.has(".hi"), Wide = In.has(".wide");
  ScalarType WideT = T;
  if (Wide) {
    static const std::pair<ScalarType, ScalarType> Widen[] = {
        {ScalarType::U16, ScalarType::U32}, {ScalarType::S16, ScalarType::S32},
        {ScalarType::U32, ScalarType::U64}, {ScalarType::S32, ScalarType::S64}};
    for (auto [From, To] : Widen)
      if (From == T)
        WideT = To;
  }
  auto mulPart = [&](Value *A, Value *Bv) -> Value * {
    if (Wide)
      return B.CreateMul(ext(A, 2 * W), ext(Bv, 2 * W));
    if (Hi) {
      Value *P = B.CreateMul(ext(A, 2 * W), ext(Bv, 2 * W));
      return B.CreateTrunc(B.CreateLShr(P, W), IT);
    }
    return B.CreateMul(A, Bv);
  };
  switch (In.Op) {
  case Opcode::Add:
  case Opcode::Sub:
  case Opcode::Addc:
  case Opcode::Subc: {
    bool IsSub = In.Op == Opcode::Sub || In.Op == Opcode::Subc;
    Value *A = src(1), *Bv = src(2);
    if (In.has(".sat") && Signed) {
      set(D, T, intrinsic(IsSub ? Intrinsic::ssub_sat : Intrinsic::sadd_sat, {A, Bv}));
      return;
    }
    bool CarryIn = In.Op == Opcode::Addc || In.Op == Opcode::Subc;
    bool CarryOut = In.has(".cc");
    if (!CarryIn && !CarryOut) {
      set(D, T, IsSub ? B.CreateSub(A, Bv) : B.CreateAdd(A, Bv));
      return;
    }
    // One carry flag for both directions, as the hardware keeps it (golden
    // cases): a - b is a + ~b + 1, subc adds ~b and the flag, so sub.cc leaves
    // CF = 1 when nothing was borrowed and addc/subc may follow either.
    if (IsSub)
      Bv = B.CreateNot(Bv);
    Value *Cin = CarryIn ? B.CreateZExt(B.CreateLoad(B.getInt1Ty(), carry()), IT)
                         : ConstantInt::get(IT, IsSub ? 1 : 0);
    Value *R1 = intrinsic(Intrinsic::uadd_with_overflow, {A, Bv});
    Value *Res = B.CreateExtractValue(R1, 0), *Flag = B.CreateExtractValue(R1, 1);
    Value *R2 = intrinsic(Intrinsic::uadd_with_overflow, {Res, Cin});
    Res = B.CreateExtractValue(R2, 0);
    Flag = B.CreateOr(Flag, B.CreateExtractValue(R2, 1));
    if (CarryOut)
      B.CreateStore(Flag, carry());
    set(D, T, Res);
    return;
  }
  case Opcode::Mul:
    set(D, Wide ? WideT : T, mulPart(src(1), src(2)));
    return;
  case Opcode::Mad:
  case Opcode::Madc: {
    Value *P = mulPart(src(1), src(2));
    Value *Cv = Wide ? convertBits(get(In.Ops[3], WideT), B.getIntNTy(2 * W), Signed) : src(3);
    bool CarryIn = In.Op == Opcode::Madc, CarryOut = In.has(".cc");
    if (!CarryIn && !CarryOut) {
      Value *R = B.CreateAdd(P, Cv);
      if (In.has(".sat") && Hi && Signed)
        R = intrinsic(Intrinsic::sadd_sat, {P, Cv});
      set(D, Wide ? WideT : T, R);
      return;
    }
    Value *R1 = intrinsic(Intrinsic::uadd_with_overflow, {P, Cv});
    Value *Res = B.CreateExtractValue(R1, 0), *Flag = B.CreateExtractValue(R1, 1);
    if (CarryIn) {
      Value *Cin = B.CreateZExt(B.CreateLoad(B.getInt1Ty(), carry()), Res->getType());
      Value *R2 = intrinsic(Intrinsic::uadd_with_overflow, {Res, Cin});
      Res = B.CreateExtractValue(R2, 0);
      Flag = B.CreateOr(Flag, B.CreateExtractValue(R2, 1));
    }
    if (CarryOut)
      B.CreateStore(Flag, carry());
    set(D, Wide ? WideT : T, Res);
    return;
  }
  case Opcode::Mul24:
  case Opcode::Mad24: {
    auto low24 = [&](Value *V) {
      Value *S = B.CreateShl(V, 8);
      Value *R = Signed ? B.CreateAShr(S, 8) : B.CreateLShr(S, 8);
      return ext(R, 64);
    };
    Value *P = B.CreateMul(low24(src(1)), low24(src(2)));
    Value *R = Hi ? B.CreateTrunc(B.CreateLShr(P, 16), IT) : B.CreateTrunc(P, IT);
    if (In.Op == Opcode::Mad24)
      R = B.CreateAdd(R, src(3));
    set(D, T, R);
    return;
  }
  case Opcode::Div:
  case Opcode::Rem: {
    Value *A = src(1), *Bv = src(2);
    Value *Zero = ConstantInt::get(IT, 0);
    Value *IsZero = B.CreateICmpEQ(Bv, Zero);
    // Division by zero is undefined in PTX and a trap on x86: give the GPU's
    // answer (all ones for div, the dividend for rem) instead.
    Value *SafeB = B.CreateSelect(IsZero, ConstantInt::get(IT, 1), Bv);
    Value *R;
    if (Signed) {
      Value *Overflow = B.CreateAnd(B.CreateICmpEQ(A, ConstantInt::get(IT, APInt::getSignedMinValue(W))),
                                    B.CreateICmpEQ(Bv, ConstantInt::get(IT, -1, true)));
      SafeB = B.CreateSelect(Overflow, ConstantInt::get(IT, 1), SafeB);
      R = In.Op == Opcode::Div ? B.CreateSDiv(A, SafeB) : B.CreateSRem(A, SafeB);
      R = B.CreateSelect(Overflow, In.Op == Opcode::Div ? A : Zero, R);
    } else {
      R = In.Op == Opcode::Div ? B.CreateUDiv(A, SafeB) : B.CreateURem(A, SafeB);
    }
    R = B.CreateSelect(IsZero, In.Op == Opcode::Div ? ConstantInt::get(IT, -1, true) : A, R);
    set(D, T, R);
    return;
  }
  case Opcode::Abs: {
    Value *A = src(1);
    set(D, T, B.CreateSelect(B.CreateICmpSLT(A, ConstantInt::get(IT, 0)), B.CreateNeg(A), A));
    return;
  }
  case Opcode::Neg:
    set(D, T, B.CreateNeg(src(1)));
    return;
  case Opcode::Min:
  case Opcode::Max: {
    Value *A = src(1), *Bv = src(2);
    bool IsMax = In.Op == Opcode::Max;
    Value *Cmp = Signed ? (IsMax ? B.CreateICmpSGT(A, Bv) : B.CreateICmpSLT(A, Bv))
                        : (IsMax ? B.CreateICmpUGT(A, Bv) : B.CreateICmpULT(A, Bv));
    Value *R = B.CreateSelect(Cmp, A, Bv);
    if (In.has(".relu"))
      R = B.CreateSelect(B.CreateICmpSLT(R, ConstantInt::get(IT, 0)), ConstantInt::get(IT, 0), R);
    set(D, T, R);
    return;
  }
  case Opcode::Sad: {
    Value *A = src(1), *Bv = src(2);
    Value *Gt = Signed ? B.CreateICmpSGT(A, Bv) : B.CreateICmpUGT(A, Bv);
    Value *Diff = B.CreateSelect(Gt, B.CreateSub(A, Bv), B.CreateSub(Bv, A));
    set(D, T, B.CreateAdd(src(3), Diff));
    return;
  }
  default:
    fail("internal: not an integer instruction");
  }
}

// --- floating point -------------------------------------------------------------------

void FnLowering::lowerFloatArith(const Instruction &In) {
  ScalarType T = typeOf(In);
  if (T == ScalarType::F32x2) {
    // add/sub/mul/fma{.rnd}{.ftz}{.sat}.f32x2 (PTX 8.6): two f32 in a .b64 register, lane 0 the low half, each
    // computed as the .f32 instruction computes it.
    int Kind = In.Op == Opcode::Add ? 0 : In.Op == Opcode::Sub ? 1 : In.Op == Opcode::Mul ? 2
               : In.Op == Opcode::Fma || In.Op == Opcode::Mad ? 4 : -1;
    if (Kind < 0)
      invalid("'.f32x2' is a type of add, sub, mul and fma only");
    int RM = roundingOf(In);
    unsigned Mode = RM < 0 ? 0 : static_cast<unsigned>(RM);
    bool Ftz = In.has(".ftz"), Sat = In.has(".sat");
    std::vector<Value *> Srcs;
    for (size_t I = 1; I < In.Ops.size(); ++I)
      Srcs.push_back(convertBits(get(In.Ops[I], ScalarType::B64), B.getInt64Ty(), false));
    Value *Result = B.getInt64(0);
    for (unsigned Lane = 0; Lane < 2; ++Lane) {
      auto lane = [&](size_t I) -> Value * {
        if (I >= Srcs.size())
          return nullptr;
        Value *V = B.CreateBitCast(B.CreateTrunc(B.CreateLShr(Srcs[I], 32 * Lane), B.getInt32Ty()), B.getFloatTy());
        return Ftz ? ftz(V, 0) : V;
      };
      Value *R = roundingOp(Kind, Mode, ScalarType::F32, lane(0), lane(1), Kind == 4 ? lane(2) : nullptr);
      if (Ftz)
        R = ftz(R, 0);
      if (Sat)
        R = saturateFloat(R);
      Value *Bits = convertBits(canonicalNaN(fromFloat(R, ScalarType::F32, Mode), ScalarType::F32), B.getInt32Ty(), false);
      Result = B.CreateOr(Result, B.CreateShl(B.CreateZExt(Bits, B.getInt64Ty()), 32 * Lane));
    }
    set(In.Ops[0], ScalarType::B64, Result);
    return;
  }
  if (!isArithmeticFloat(T))
    invalid("'" + std::string(spelling(In.Op)) + "' takes a floating-point type (.f32, .f64, .f16 ...), not " +
            std::string(spelling(T)));
  int RM = roundingOf(In);
  unsigned Mode = RM < 0 ? 0 : static_cast<unsigned>(RM);
  bool Ftz = In.has(".ftz"), Sat = In.has(".sat");
  const Operand &D = In.Ops[0];
  if (In.Op == Opcode::Testp) {
    Value *A = toFloat(get(In.Ops[1], T), T);
    Type *FT = A->getType();
    Value *Abs = intrinsic(Intrinsic::fabs, {A});
    Value *Inf = ConstantFP::getInfinity(FT);
    double MinN = FT->isDoubleTy() ? std::numeric_limits<double>::min() : std::numeric_limits<float>::min();
    Value *R = nullptr;
    if (In.has(".finite"))
      R = B.CreateFCmpOLT(Abs, Inf);
    else if (In.has(".infinite"))
      R = B.CreateFCmpOEQ(Abs, Inf);
    else if (In.has(".number"))
      R = B.CreateFCmpORD(A, A);
    else if (In.has(".notanumber"))
      R = B.CreateFCmpUNO(A, A);
    else if (In.has(".normal")) // NVIDIA's hardware counts zero as normal (tests/golden)
      R = B.CreateAnd(B.CreateOr(B.CreateFCmpOGE(Abs, ConstantFP::get(FT, MinN)), B.CreateFCmpOEQ(Abs, ConstantFP::get(FT, 0.0))),
                      B.CreateFCmpOLT(Abs, Inf));
    else if (In.has(".subnormal"))
      R = B.CreateAnd(B.CreateFCmpOLT(Abs, ConstantFP::get(FT, MinN)), B.CreateFCmpONE(Abs, ConstantFP::get(FT, 0.0)));
    else
      fail("testp needs .finite, .infinite, .number, .notanumber, .normal or .subnormal");
    set(D, ScalarType::Pred, R);
    return;
  }
  // Packed halves: apply the scalar operation to each 16-bit lane.
  if (T == ScalarType::F16x2 || T == ScalarType::BF16x2) {
    ScalarType ET = T == ScalarType::F16x2 ? ScalarType::F16 : ScalarType::BF16;
    std::vector<Value *> Srcs;
    for (size_t I = 1; I < In.Ops.size(); ++I)
      Srcs.push_back(convertBits(get(In.Ops[I], ScalarType::B32), B.getInt32Ty(), false));
    Value *Result = B.getInt32(0);
    for (unsigned Lane = 0; Lane < 2; ++Lane) {
      std::vector<Value *> Args;
      for (Value *S : Srcs)
        Args.push_back(B.CreateTrunc(B.CreateLShr(S, Lane * 16), B.getInt16Ty()));
      auto lane = [&](size_t I) {
        Value *V = toFloat(Args[I], ET);
        return Ftz && ET == ScalarType::F16 ? ftz(V, 6.103515625e-05) : V;
      };
      Value *R = nullptr;
      switch (In.Op) {
      case Opcode::Add:
        R = B.CreateFAdd(lane(0), lane(1));
        break;
      case Opcode::Sub:
        R = B.CreateFSub(lane(0), lane(1));
        break;
      case Opcode::Mul:
        R = B.CreateFMul(lane(0), lane(1));
        break;
      case Opcode::Fma:
      case Opcode::Mad:
        R = B.CreateFPTrunc(intrinsic(Intrinsic::fma, {B.CreateFPExt(lane(0), B.getDoubleTy()),
                                                       B.CreateFPExt(lane(1), B.getDoubleTy()),
                                                       B.CreateFPExt(lane(2), B.getDoubleTy())}),
                            B.getDoubleTy());
        break;
      case Opcode::Neg:
        R = B.CreateFNeg(lane(0));
        break;
      case Opcode::Abs:
        R = intrinsic(Intrinsic::fabs, {lane(0)});
        break;
      case Opcode::Min:
      case Opcode::Max:
        if (In.has(".xorsign"))
          fail("min/max.xorsign.abs of halves is not supported yet");
        R = fminmax(lane(0), lane(1), In.Op == Opcode::Max, In.has(".NaN"));
        break;
      case Opcode::Ex2:
        R = intrinsic(Intrinsic::exp2, {lane(0)});
        break;
      case Opcode::Tanh: { // tanh.approx.{f16x2,bf16x2}: each lane through f32, rounded once
        Value *A = lane(0);
        R = B.CreateCall(F->getParent()->getOrInsertFunction("tanhf", A->getType(), A->getType()), {A});
        break;
      }
      default:
        fail("instruction '" + std::string(spelling(In.Op)) + "' is not supported for packed halves");
      }
      if (Ftz && ET == ScalarType::F16 && R->getType()->isFloatTy())
        R = ftz(R, 6.103515625e-05);
      if (Sat)
        R = saturateFloat(R);
      if (In.has(".relu"))
        R = reluFloat(R);
      Value *H = canonicalNaN(fromFloat(R, ET, Mode), ET);
      // .ftz flushes a subnormal result as rounded (fma's comes from f64).
      if (Ftz && ET == ScalarType::F16)
        H = B.CreateSelect(B.CreateICmpEQ(B.CreateAnd(H, B.getInt16(0x7c00)), B.getInt16(0)),
                           B.CreateAnd(H, B.getInt16(0x8000)), H);
      Result = B.CreateOr(Result, B.CreateShl(B.CreateZExt(H, B.getInt32Ty()), Lane * 16));
    }
    set(D, ScalarType::B32, Result);
    return;
  }
  bool Half = T == ScalarType::F16 || T == ScalarType::BF16;
  // .ftz flushes subnormals of the instruction's own type (2^-14 for f16).
  double FtzMin = T == ScalarType::F16 ? 6.103515625e-05 : 0;
  auto src = [&](size_t I) {
    Value *V = toFloat(get(In.Ops[I], T), T);
    return Ftz && V->getType()->isFloatTy() ? ftz(V, FtzMin) : V;
  };
  Value *R = nullptr;
  switch (In.Op) {
  case Opcode::Add:
    R = roundingOp(0, Mode, T, src(1), src(2), nullptr);
    break;
  case Opcode::Sub:
    R = roundingOp(1, Mode, T, src(1), src(2), nullptr);
    break;
  case Opcode::Mul:
    R = roundingOp(2, Mode, T, src(1), src(2), nullptr);
    break;
  case Opcode::Fma:
  case Opcode::Mad:
    if (Half) {
      Value *Dd = intrinsic(Intrinsic::fma, {B.CreateFPExt(src(1), B.getDoubleTy()),
                                             B.CreateFPExt(src(2), B.getDoubleTy()),
                                             B.CreateFPExt(src(3), B.getDoubleTy())});
      R = Dd; // rounded to 16 bits below, straight from f64
    } else {
      R = roundingOp(4, Mode, T, src(1), src(2), src(3));
    }
    break;
  case Opcode::Div:
    R = roundingOp(3, In.has(".approx") || In.has(".full") ? 0 : Mode, T, src(1), src(2), nullptr);
    break;
  case Opcode::Rcp:
    R = roundingOp(6, In.has(".approx") ? 0 : Mode, T,
                   T == ScalarType::F64 && In.has(".approx") && Ftz ? ftz(src(1)) : src(1), nullptr, nullptr);
    if (T == ScalarType::F64 && In.has(".approx")) {
      // rcp.approx.ftz.f64 works on the high word: a NaN whose payload lies
      // only in the low word is taken for an infinity (result +-0), any
      // other NaN gives 0x7FFFFFFF00000000 (what the hardware answers).
      Value *A = B.CreateBitCast(src(1), B.getInt64Ty());
      Value *Hi = B.CreateAnd(B.CreateLShr(A, 32), B.getInt64(0x7FFFFFFF));
      Value *Zero = B.CreateBitCast(B.CreateAnd(A, B.getInt64(0x8000000000000000ULL)), B.getDoubleTy());
      R = B.CreateSelect(B.CreateICmpEQ(Hi, B.getInt64(0x7FF00000)), Zero, R);
      R = B.CreateSelect(B.CreateICmpUGT(Hi, B.getInt64(0x7FF00000)),
                         B.CreateBitCast(B.getInt64(0x7FFFFFFF00000000ULL), B.getDoubleTy()), R);
    }
    break;
  case Opcode::Sqrt:
    R = roundingOp(5, In.has(".approx") ? 0 : Mode, T, src(1), nullptr, nullptr);
    break;
  case Opcode::Rsqrt: {
    Value *A = src(1);
    R = B.CreateFDiv(ConstantFP::get(A->getType(), 1.0), intrinsic(Intrinsic::sqrt, {A}));
    break;
  }
  case Opcode::Sin:
    R = intrinsic(Intrinsic::sin, {src(1)});
    break;
  case Opcode::Cos:
    R = intrinsic(Intrinsic::cos, {src(1)});
    break;
  case Opcode::Lg2:
    R = intrinsic(Intrinsic::log2, {src(1)});
    break;
  case Opcode::Ex2:
    R = intrinsic(Intrinsic::exp2, {src(1)});
    break;
  case Opcode::Tanh: {
    Value *A = src(1);
    FunctionCallee Tanh = F->getParent()->getOrInsertFunction(
        A->getType()->isDoubleTy() ? "tanh" : "tanhf", A->getType(), A->getType());
    R = B.CreateCall(Tanh, {A});
    break;
  }
  case Opcode::Abs:
    R = intrinsic(Intrinsic::fabs, {src(1)});
    break;
  case Opcode::Neg:
    R = B.CreateFNeg(src(1));
    break;
  case Opcode::Min:
  case Opcode::Max:
    if (In.has(".xorsign")) {
      // min/max.xorsign.abs: the minimum (maximum) of |a| and |b|, whose
      // sign bit becomes sign(a) XOR sign(b) unless it is NaN.
      if (!In.has(".abs") || T != ScalarType::F32 || In.Ops.size() != 3)
        fail("min/max.xorsign needs .abs and two .f32 sources");
      Value *A = src(1), *Bv = src(2);
      Value *Sign = B.CreateAnd(B.CreateXor(B.CreateBitCast(A, B.getInt32Ty()), B.CreateBitCast(Bv, B.getInt32Ty())),
                                B.getInt32(0x80000000u));
      R = fminmax(intrinsic(Intrinsic::fabs, {A}), intrinsic(Intrinsic::fabs, {Bv}), In.Op == Opcode::Max,
                  In.has(".NaN"));
      Value *Signed = B.CreateBitCast(
          B.CreateOr(B.CreateAnd(B.CreateBitCast(R, B.getInt32Ty()), B.getInt32(0x7fffffffu)), Sign), B.getFloatTy());
      R = B.CreateSelect(B.CreateFCmpUNO(R, R), R, Signed);
      break;
    }
    R = fminmax(src(1), src(2), In.Op == Opcode::Max, In.has(".NaN"));
    if (In.Ops.size() == 4) // three-input min/max
      R = fminmax(R, src(3), In.Op == Opcode::Max, In.has(".NaN"));
    break;
  case Opcode::Copysign:
    R = intrinsic(Intrinsic::copysign, {src(2), src(1)});
    break;
  default:
    fail("internal: not a float instruction");
  }
  if (Ftz && R->getType()->isFloatTy())
    R = ftz(R, FtzMin);
  if (Sat)
    R = saturateFloat(R);
  if (In.has(".relu"))
    R = reluFloat(R);
  if (T == ScalarType::F64 && In.Op != Opcode::Copysign) {
    // f64: abs and neg leave a NaN as it is; min and max quiet it.
    Value *A = src(1);
    Value *ANan = B.CreateFCmpUNO(A, A);
    if (In.Op == Opcode::Abs || In.Op == Opcode::Neg) {
      Value *Quiet = B.CreateOr(B.CreateBitCast(A, B.getInt64Ty()), B.getInt64(0x0008000000000000ULL));
      R = B.CreateSelect(ANan, B.CreateBitCast(Quiet, B.getDoubleTy()), R);
    } else if (In.Op == Opcode::Min || In.Op == Opcode::Max) {
      Value *Bits = B.CreateOr(B.CreateBitCast(R, B.getInt64Ty()), B.getInt64(0x0008000000000000ULL));
      R = B.CreateSelect(B.CreateFCmpUNO(R, R), B.CreateBitCast(Bits, B.getDoubleTy()), R);
    }
  }
  Value *Out = fromFloat(R, T, Mode);
  if (In.Op != Opcode::Copysign)
    Out = canonicalNaN(Out, T);
  set(D, T, Out);
}

// --- comparisons ----------------------------------------------------------------------

namespace {
struct CmpInfo {
  std::string Op;
  std::string BoolOp;
};
CmpInfo cmpOf(const Instruction &In) {
  static const char *Ops[] = {".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".lo", ".ls", ".hi", ".hs",
                              ".equ", ".neu", ".ltu", ".leu", ".gtu", ".geu", ".num", ".nan"};
  CmpInfo R;
  for (const Modifier &M : In.Mods) {
    if (M.Kind != Modifier::MK_Other)
      continue;
    for (const char *O : Ops)
      if (M.Text == O && R.Op.empty())
        R.Op = O;
    if (M.Text == ".and" || M.Text == ".or" || M.Text == ".xor")
      R.BoolOp = M.Text;
  }
  return R;
}
} // namespace

void FnLowering::lowerCompare(const Instruction &In) {
  if (In.Op == Opcode::Selp) {
    ScalarType T = In.type();
    Value *Cv = convertBits(get(In.Ops[3], ScalarType::Pred), B.getInt1Ty(), false);
    set(In.Ops[0], T, B.CreateSelect(Cv, get(In.Ops[1], T), get(In.Ops[2], T)));
    return;
  }
  if (In.Op == Opcode::Slct) {
    auto Ts = In.types();
    ScalarType DT = Ts[0], CT = Ts.size() > 1 ? Ts[1] : ScalarType::S32;
    Value *Cv = get(In.Ops[3], CT);
    Value *Ge = CT == ScalarType::F32
                    ? B.CreateFCmpOGE(In.has(".ftz") ? ftz(Cv) : Cv, ConstantFP::get(Cv->getType(), 0.0))
                    : B.CreateICmpSGE(Cv, ConstantInt::get(Cv->getType(), 0));
    set(In.Ops[0], DT, B.CreateSelect(Ge, get(In.Ops[1], DT), get(In.Ops[2], DT)));
    return;
  }
  auto Ts = In.types();
  if (Ts.empty())
    fail("comparison without a type");
  ScalarType ST = Ts.back(); // setp.cmp.T / set.cmp.dtype.stype
  if (isFloatType(ST) && !isArithmeticFloat(ST))
    invalid("comparisons take .f16, .bf16, .f32 or .f64 among the float types, not " + std::string(spelling(ST)));
  CmpInfo CI = cmpOf(In);
  if (CI.Op.empty())
    fail("comparison operator missing");
  bool Ftz = In.has(".ftz");
  auto compare = [&](Value *A, Value *Bv, bool Float) -> Value * {
    const std::string &O = CI.Op;
    if (Float) {
      if (Ftz && A->getType()->isFloatTy()) {
        A = ftz(A);
        Bv = ftz(Bv);
      }
      CmpInst::Predicate P = O == ".eq"    ? CmpInst::FCMP_OEQ
                             : O == ".ne"  ? CmpInst::FCMP_ONE
                             : O == ".lt"  ? CmpInst::FCMP_OLT
                             : O == ".le"  ? CmpInst::FCMP_OLE
                             : O == ".gt"  ? CmpInst::FCMP_OGT
                             : O == ".ge"  ? CmpInst::FCMP_OGE
                             : O == ".equ" ? CmpInst::FCMP_UEQ
                             : O == ".neu" ? CmpInst::FCMP_UNE
                             : O == ".ltu" ? CmpInst::FCMP_ULT
                             : O == ".leu" ? CmpInst::FCMP_ULE
                             : O == ".gtu" ? CmpInst::FCMP_UGT
                             : O == ".geu" ? CmpInst::FCMP_UGE
                             : O == ".num" ? CmpInst::FCMP_ORD
                             : O == ".nan" ? CmpInst::FCMP_UNO
                                           : CmpInst::BAD_FCMP_PREDICATE;
      if (P == CmpInst::BAD_FCMP_PREDICATE)
        fail("comparison " + O + " is not valid for floating point");
      return B.CreateFCmp(P, A, Bv);
    }
    bool S = isSignedType(ST);
    CmpInst::Predicate P = O == ".eq"   ? CmpInst::ICMP_EQ
                           : O == ".ne" ? CmpInst::ICMP_NE
                           : O == ".lt" ? (S ? CmpInst::ICMP_SLT : CmpInst::ICMP_ULT)
                           : O == ".le" ? (S ? CmpInst::ICMP_SLE : CmpInst::ICMP_ULE)
                           : O == ".gt" ? (S ? CmpInst::ICMP_SGT : CmpInst::ICMP_UGT)
                           : O == ".ge" ? (S ? CmpInst::ICMP_SGE : CmpInst::ICMP_UGE)
                           : O == ".lo" ? CmpInst::ICMP_ULT
                           : O == ".ls" ? CmpInst::ICMP_ULE
                           : O == ".hi" ? CmpInst::ICMP_UGT
                           : O == ".hs" ? CmpInst::ICMP_UGE
                                        : CmpInst::BAD_ICMP_PREDICATE;
    if (P == CmpInst::BAD_ICMP_PREDICATE)
      fail("comparison " + O + " is not valid for integers");
    return B.CreateICmp(P, A, Bv);
  };
  auto combine = [&](Value *R, Value *Cv) -> Value * {
    if (CI.BoolOp.empty())
      return R;
    if (CI.BoolOp == ".and")
      return B.CreateAnd(R, Cv);
    if (CI.BoolOp == ".or")
      return B.CreateOr(R, Cv);
    return B.CreateXor(R, Cv);
  };
  size_t NOps = In.Ops.size();
  Value *Cv = nullptr;
  if (!CI.BoolOp.empty()) {
    if (NOps < 4)
      fail("boolean comparison needs a predicate operand");
    Cv = convertBits(get(In.Ops[3], ScalarType::Pred), B.getInt1Ty(), false);
  }
  std::vector<Value *> Results; // one per lane
  if (ST == ScalarType::F16x2 || ST == ScalarType::BF16x2) {
    ScalarType ET = ST == ScalarType::F16x2 ? ScalarType::F16 : ScalarType::BF16;
    Value *A = convertBits(get(In.Ops[1], ScalarType::B32), B.getInt32Ty(), false);
    Value *Bv = convertBits(get(In.Ops[2], ScalarType::B32), B.getInt32Ty(), false);
    for (unsigned Lane = 0; Lane < 2; ++Lane) {
      Value *AL = toFloat(B.CreateTrunc(B.CreateLShr(A, Lane * 16), B.getInt16Ty()), ET);
      Value *BL = toFloat(B.CreateTrunc(B.CreateLShr(Bv, Lane * 16), B.getInt16Ty()), ET);
      Results.push_back(compare(AL, BL, true));
    }
  } else {
    bool Float = isFloatType(ST);
    Value *A = toFloat(get(In.Ops[1], ST), ST), *Bv = toFloat(get(In.Ops[2], ST), ST);
    Results.push_back(compare(A, Bv, Float));
  }
  const Operand &D = In.Ops[0];
  if (In.Op == Opcode::Setp) {
    if (Results.size() == 2) {
      // setp.f16x2 p|q: p from the low half, q from the high half.
      set(D, ScalarType::Pred, combine(Results[0], Cv));
      if (!D.Pair.empty()) {
        Operand Q = D;
        Q.Name = D.Pair;
        Q.Pair.clear();
        set(Q, ScalarType::Pred, combine(Results[1], Cv));
      }
      return;
    }
    set(D, ScalarType::Pred, combine(Results[0], Cv));
    if (!D.Pair.empty()) {
      Operand Q = D;
      Q.Name = D.Pair;
      Q.Pair.clear();
      set(Q, ScalarType::Pred, combine(B.CreateNot(Results[0]), Cv));
    }
    return;
  }
  // set.cmp.dtype.stype: 1.0f / all ones for true, 0 for false.
  ScalarType DT = Ts[0];
  if (Results.size() == 2) {
    // Packed sources: a result per 16-bit half (0xFFFF or 1.0 in the
    // destination's packed format, 0 for false).
    uint32_t One = DT == ScalarType::F16x2 ? 0x3C00 : DT == ScalarType::BF16x2 ? 0x3F80 : 0xFFFF;
    Value *Packed = B.getInt32(0);
    for (unsigned Lane = 0; Lane < 2; ++Lane) {
      Value *H = B.CreateSelect(combine(Results[Lane], Cv), B.getInt32(One), B.getInt32(0));
      Packed = B.CreateOr(Packed, B.CreateShl(H, Lane * 16));
    }
    set(D, ScalarType::B32, Packed);
    return;
  }
  Value *R = combine(Results[0], Cv);
  Type *DTy = valueType(DT);
  Value *V = DTy->isFloatingPointTy()
                 ? B.CreateSelect(R, ConstantFP::get(DTy, 1.0), ConstantFP::get(DTy, 0.0))
                 : B.CreateSelect(R, ConstantInt::get(DTy, -1, true), ConstantInt::get(DTy, 0));
  set(D, DT, V);
}

} // namespace zluda::ptx
