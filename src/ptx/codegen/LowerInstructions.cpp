//===- LowerInstructions.cpp - PTX instruction semantics in LLVM IR --------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file One lowering per instruction family, following PTX ISA 9.0 chapter 9
/// (https://docs.nvidia.com/cuda/parallel-thread-execution/#instructions).
/// 16-bit floats are computed in f32 (f64 for fma): for +, -, *, /, sqrt
/// the wider format has >= 2p+2 bits, so the double rounding is exact.
#include "ptx/codegen/LowerImpl.h"
#include "ptx/codegen/TextureSampling.h"
#include "ptx/codegen/WarpSemantics.h"

#include <cmath>
#include <limits>

namespace zluda::ptx {

using namespace llvm;

int roundingOf(const Instruction &In) {
  for (const Modifier &M : In.Mods) {
    if (M.Kind != Modifier::MK_Other)
      continue;
    const std::string &T = M.Text;
    if (T == ".rn" || T == ".rni" || T == ".rna")
      return 0;
    if (T == ".rz" || T == ".rzi")
      return 1;
    if (T == ".rm" || T == ".rmi")
      return 2;
    if (T == ".rp" || T == ".rpi")
      return 3;
  }
  return -1;
}

static bool hasIntRounding(const Instruction &In) {
  return In.has(".rni") || In.has(".rzi") || In.has(".rmi") || In.has(".rpi");
}

Value *FnLowering::intrinsic(Intrinsic::ID Id, ArrayRef<Value *> Args) {
  llvm::Function *Decl = Intrinsic::getDeclaration(F->getParent(), Id, {Args[0]->getType()});
  return B.CreateCall(Decl, Args);
}

Value *FnLowering::toFloat(Value *V, ScalarType T) {
  if (T == ScalarType::F16)
    return B.CreateCall(L.rt(RtFn::f16_to_f32), {Ctx, V});
  if (T == ScalarType::BF16)
    return B.CreateCall(L.rt(RtFn::bf16_to_f32), {Ctx, V});
  return V;
}

Value *FnLowering::fromFloat(Value *V, ScalarType T, unsigned Rounding) {
  if (T == ScalarType::F16 || T == ScalarType::BF16) {
    bool IsD = V->getType()->isDoubleTy();
    RtFn Fn = T == ScalarType::F16 ? (IsD ? RtFn::f64_to_f16 : RtFn::f32_to_f16)
                                   : (IsD ? RtFn::f64_to_bf16 : RtFn::f32_to_bf16);
    return B.CreateCall(L.rt(Fn), {Ctx, V, B.getInt32(Rounding)});
  }
  return V;
}

Value *FnLowering::ftz(Value *V, double MinNormal) {
  Type *T = V->getType();
  if (MinNormal == 0)
    MinNormal = T->isDoubleTy() ? std::numeric_limits<double>::min() : std::numeric_limits<float>::min();
  Value *Abs = intrinsic(Intrinsic::fabs, {V});
  Value *Tiny = B.CreateFCmpOLT(Abs, ConstantFP::get(T, MinNormal));
  Value *Zero = intrinsic(Intrinsic::copysign, {ConstantFP::get(T, 0.0), V});
  return B.CreateSelect(Tiny, Zero, V);
}

Value *FnLowering::saturateFloat(Value *V) {
  Type *T = V->getType();
  Value *Lo = B.CreateSelect(B.CreateFCmpOLE(V, ConstantFP::get(T, 0.0)), ConstantFP::get(T, 0.0), V); // -0 too
  Value *Hi = B.CreateSelect(B.CreateFCmpOGT(Lo, ConstantFP::get(T, 1.0)), ConstantFP::get(T, 1.0), Lo);
  return B.CreateSelect(B.CreateFCmpUNO(V, V), ConstantFP::get(T, 0.0), Hi);
}

// NVIDIA's NaN results (measured on an H200, tests/golden): f32, f16 and
// bf16 arithmetic gives the canonical NaN (all ones but the sign: 0x7FFFFFFF,
// 0x7FFF), f64 arithmetic keeps the first NaN operand's payload, quieted.
// \p V is a result as fromFloat gives it (float, double or 16-bit bits).
Value *FnLowering::canonicalNaN(Value *V, ScalarType T) {
  if (T == ScalarType::F32 && V->getType()->isFloatTy())
    return B.CreateSelect(B.CreateFCmpUNO(V, V), B.CreateBitCast(B.getInt32(0x7FFFFFFF), B.getFloatTy()), V);
  if ((T == ScalarType::F16 || T == ScalarType::BF16) && V->getType()->isIntegerTy(16)) {
    Value *Mag = B.CreateAnd(V, B.getInt16(0x7FFF));
    Value *IsNaN = B.CreateICmpUGT(Mag, B.getInt16(T == ScalarType::F16 ? 0x7C00 : 0x7F80));
    return B.CreateSelect(IsNaN, B.getInt16(0x7FFF), V);
  }
  return V;
}

// bfe/bfi's position and length operands: the low byte for 32-bit forms;
// 64-bit forms saturate them at 255 instead (as the hardware does).
Value *FnLowering::byteField(Value *V, unsigned W) {
  if (W == 64)
    return B.CreateSelect(B.CreateICmpUGT(V, B.getInt32(255)), B.getInt32(255), V);
  return B.CreateAnd(V, 0xff);
}

Value *FnLowering::fminmax(Value *A, Value *Bv, bool IsMax, bool NaNProp) {
  // PTX: a NaN operand yields the other operand (unless .NaN); -0 < +0.
  Type *T = A->getType();
  Value *Lt = IsMax ? B.CreateFCmpOGT(A, Bv) : B.CreateFCmpOLT(A, Bv);
  Value *R = B.CreateSelect(Lt, A, Bv);
  // Equal values: pick by sign so that min(-0,+0) = -0 and max(-0,+0) = +0.
  unsigned Bits = T->getPrimitiveSizeInBits();
  Value *AI = B.CreateBitCast(A, B.getIntNTy(Bits)), *BI = B.CreateBitCast(Bv, B.getIntNTy(Bits));
  Value *Merged = B.CreateBitCast(IsMax ? B.CreateAnd(AI, BI) : B.CreateOr(AI, BI), T);
  R = B.CreateSelect(B.CreateFCmpOEQ(A, Bv), Merged, R);
  Value *ANan = B.CreateFCmpUNO(A, A), *BNan = B.CreateFCmpUNO(Bv, Bv);
  if (NaNProp) {
    Value *QNaN = ConstantFP::getQNaN(T);
    return B.CreateSelect(B.CreateOr(ANan, BNan), QNaN, R);
  }
  R = B.CreateSelect(ANan, Bv, R);
  R = B.CreateSelect(BNan, A, R);
  return R;
}

Value *FnLowering::roundingOp(unsigned Op, unsigned Mode, ScalarType T, Value *A, Value *Bv,
                              Value *Cv) {
  Type *FT = A->getType();
  if (Mode == 0) {
    switch (Op) {
    case 0:
      return B.CreateFAdd(A, Bv);
    case 1:
      return B.CreateFSub(A, Bv);
    case 2:
      return B.CreateFMul(A, Bv);
    case 3:
      return B.CreateFDiv(A, Bv);
    case 4:
      return intrinsic(Intrinsic::fma, {A, Bv, Cv});
    case 5:
      return intrinsic(Intrinsic::sqrt, {A});
    case 6:
      return B.CreateFDiv(ConstantFP::get(FT, 1.0), A);
    }
  }
  Value *Zero = ConstantFP::get(FT, 0.0);
  RtFn Fn = FT->isDoubleTy() ? RtFn::fop_f64 : RtFn::fop_f32;
  return B.CreateCall(L.rt(Fn), {Ctx, B.getInt32(Op), B.getInt32(Mode), A, Bv ? Bv : Zero,
                                 Cv ? Cv : Zero});
}

Value *FnLowering::carry() {
  if (!CarryFlag) {
    CarryFlag = AllocaB.CreateAlloca(B.getInt1Ty(), nullptr, "cc.cf");
    AllocaB.CreateStore(B.getFalse(), CarryFlag);
  }
  return CarryFlag;
}

ScalarType FnLowering::typeOf(const Instruction &In) {
  ScalarType T = In.type();
  if (T == ScalarType::None)
    invalid("'" + std::string(spelling(In.Op)) + "' needs a type (.u32, .f32 ...)");
  return T;
}

// --- mov -----------------------------------------------------------------------

void FnLowering::lowerMov(const Instruction &In) {
  ScalarType T = typeOf(In);
  const Operand &D = In.Ops[0], &S = In.Ops[1];
  if (unsigned N = In.vectorWidth(); N > 1) {
    // mov.v2/.v4: element by element between lists or vector-typed registers,
    // every source read before any destination is written.
    Operand Dv = vectorElems(D, N), Sv = vectorElems(S, N);
    std::vector<Value *> Vals;
    for (unsigned I = 0; I < N; ++I)
      Vals.push_back(get(Sv.Elems[I], T));
    for (unsigned I = 0; I < N; ++I)
      set(Dv.Elems[I], T, Vals[I]);
    return;
  }
  unsigned Total = bitWidth(T);
  if (D.Kind == Operand::OK_Vector && S.Kind != Operand::OK_Vector) {
    // mov.b64 {lo, hi}, %rd: split into equal parts, element 0 lowest.
    Value *V = get(S, T);
    V = convertBits(V, B.getIntNTy(Total), false);
    unsigned N = D.Elems.size(), EB = Total / N;
    for (unsigned I = 0; I < N; ++I) {
      Value *Part = B.CreateTrunc(B.CreateLShr(V, I * EB), B.getIntNTy(EB));
      set(D.Elems[I], ScalarType::B32, Part);
    }
    return;
  }
  if (S.Kind == Operand::OK_Vector && D.Kind != Operand::OK_Vector) {
    unsigned N = S.Elems.size(), EB = Total / N;
    Value *Acc = B.getIntN(Total, 0);
    ScalarType ET = EB == 8 ? ScalarType::B8 : EB == 16 ? ScalarType::B16 : EB == 32 ? ScalarType::B32 : ScalarType::B64;
    for (unsigned I = 0; I < N; ++I) {
      Value *E = convertBits(get(S.Elems[I], ET), B.getIntNTy(EB), false);
      Acc = B.CreateOr(Acc, B.CreateShl(B.CreateZExt(E, B.getIntNTy(Total)), I * EB));
    }
    set(D, T, Acc);
    return;
  }
  if (S.Kind == Operand::OK_Vector && D.Kind == Operand::OK_Vector) {
    // Every source is read before any destination is written: the two lists
    // may share registers (a swap or a rotation).
    std::vector<Value *> Vals;
    for (size_t I = 0; I < D.Elems.size() && I < S.Elems.size(); ++I)
      Vals.push_back(get(S.Elems[I], T));
    for (size_t I = 0; I < Vals.size(); ++I)
      set(D.Elems[I], T, Vals[I]);
    return;
  }
  set(D, T, get(S, T));
}

// --- ld / st -----------------------------------------------------------------------

static Type *memType(LLVMContext &C, ScalarType T) {
  switch (T) {
  case ScalarType::F32:
    return Type::getFloatTy(C);
  case ScalarType::F64:
    return Type::getDoubleTy(C);
  default:
    return Type::getIntNTy(C, std::max(8u, bitWidth(T)));
  }
}

/// The elements of a vector operand: a {a, b, ...} list as written, or a
/// vector-typed register (.reg .v4 .u32 %v) as its components %v.x ...
Operand FnLowering::vectorElems(const Operand &O, unsigned N) {
  if (O.Kind == Operand::OK_Vector) {
    if (O.Elems.size() != N)
      invalid("a vector of " + std::to_string(N) + " elements is needed, " + std::to_string(O.Elems.size()) +
              " given");
    return O;
  }
  if (O.Kind != Operand::OK_Name || O.Component)
    invalid("a vector of " + std::to_string(N) + " elements is needed, found '" + print(O) + "'");
  Operand V;
  V.Kind = Operand::OK_Vector;
  V.Loc = O.Loc;
  for (unsigned I = 0; I < N; ++I) {
    Operand E = O;
    E.Component = "xyzw"[I % 4];
    V.Elems.push_back(E);
  }
  return V;
}

AllocaInst *FnLowering::scratch(Type *T, unsigned Slot) {
  AllocaInst *&A = Scratch[{T, Slot}];
  if (!A)
    A = AllocaB.CreateAlloca(T);
  return A;
}

void FnLowering::lowerLoad(const Instruction &In) {
  ScalarType T = typeOf(In);
  Type *MT = memType(C, T);
  unsigned N = std::max(1u, In.vectorWidth());
  uint64_t Size = std::max(1u, bitWidth(T) / 8);
  Value *Ptr = address(In.Ops[1], In.space());
  memcheck(In.Ops[1], Ptr, Size * N, In.space(), MemcheckRead);
  bool Volatile = In.has(".volatile") || In.has(".relaxed") || In.has(".acquire");
  const Operand D = N > 1 ? vectorElems(In.Ops[0], N) : In.Ops[0];
  for (unsigned I = 0; I < N; ++I) {
    Value *P = I ? B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Ptr, I * Size) : Ptr;
    LoadInst *LI = B.CreateAlignedLoad(MT, P, Align(Size), Volatile);
    const Operand &Dst = N > 1 ? D.Elems[I] : D;
    set(Dst, T, LI);
  }
  if (In.has(".acquire"))
    B.CreateFence(AtomicOrdering::Acquire);
}

void FnLowering::lowerStore(const Instruction &In) {
  ScalarType T = typeOf(In);
  Type *MT = memType(C, T);
  unsigned N = std::max(1u, In.vectorWidth());
  uint64_t Size = std::max(1u, bitWidth(T) / 8);
  Value *Ptr = address(In.Ops[0], In.space());
  memcheck(In.Ops[0], Ptr, Size * N, In.space(), MemcheckWrite);
  bool Volatile = In.has(".volatile") || In.has(".relaxed") || In.has(".release");
  if (In.has(".release"))
    B.CreateFence(AtomicOrdering::Release);
  const Operand S = N > 1 ? vectorElems(In.Ops[1], N) : In.Ops[1];
  for (unsigned I = 0; I < N; ++I) {
    Value *P = I ? B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Ptr, I * Size) : Ptr;
    const Operand &Src = N > 1 ? S.Elems[I] : S;
    if (Src.Kind == Operand::OK_Sink)
      continue;
    Value *V = convertBits(get(Src, T), MT, false);
    B.CreateAlignedStore(V, P, Align(Size), Volatile);
  }
}

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
        R = B.CreateSelect(B.CreateFCmpOLT(R, ConstantFP::get(R->getType(), 0.0)), ConstantFP::get(R->getType(), 0.0), R);
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
    R = B.CreateSelect(B.CreateFCmpOLT(R, ConstantFP::get(R->getType(), 0.0)), ConstantFP::get(R->getType(), 0.0), R);
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
        V = B.CreateSelect(B.CreateFCmpOLE(V, ConstantFP::get(V->getType(), 0.0)), ConstantFP::get(V->getType(), 0.0), V);
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
      R = B.CreateSelect(B.CreateFCmpOLE(R, ConstantFP::get(R->getType(), 0.0)), ConstantFP::get(R->getType(), 0.0), R);
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

// --- atomics ------------------------------------------------------------------------

void FnLowering::lowerAtomic(const Instruction &In) {
  bool IsRed = In.Op == Opcode::Red;
  size_t AddrIdx = IsRed ? 0 : 1;
  ScalarType T = typeOf(In);
  if (unsigned N = In.vectorWidth()) {
    // atom/red .v2/.v4/.v8 (PTX 8.1: f32 add; f16, bf16 and their packed pairs add, min, max): each element
    // its own atomic at consecutive addresses, as the PTX ISA defines them (the vector is not one atomic).
    const Operand &A = In.Ops[AddrIdx], &Vals = In.Ops[AddrIdx + 1];
    if (A.Kind != Operand::OK_Address || Vals.Kind != Operand::OK_Vector || Vals.Elems.size() != N ||
        (!IsRed && (In.Ops[0].Kind != Operand::OK_Vector || In.Ops[0].Elems.size() != N)) || !isFloatType(T) ||
        In.has(".cas") || In.has(".exch"))
      invalid("a vector atomic takes a float type, an address and {..} lists of its " + std::to_string(N) +
              " elements");
    for (unsigned I = 0; I < N; ++I) {
      Instruction E = In;
      E.Mods.erase(std::remove_if(E.Mods.begin(), E.Mods.end(),
                                  [](const Modifier &M) { return M.Kind == Modifier::MK_Vector; }),
                   E.Mods.end());
      E.Ops[AddrIdx].Int += static_cast<int64_t>(I * std::max(1u, bitWidth(T) / 8));
      E.Ops[AddrIdx + 1] = Vals.Elems[I];
      if (!IsRed)
        E.Ops[0] = In.Ops[0].Elems[I];
      lowerAtomic(E);
    }
    return;
  }
  Value *Ptr = address(In.Ops[AddrIdx], In.space());
  memcheck(In.Ops[AddrIdx], Ptr, std::max(1u, bitWidth(T) / 8), In.space(), MemcheckAtomic);
  Value *Bv = get(In.Ops[AddrIdx + 1], T);
  std::string Op;
  for (const char *O : {".add", ".min", ".max", ".inc", ".dec", ".and", ".or", ".xor", ".exch", ".cas"})
    if (In.has(O))
      Op = O;
  if (Op.empty())
    fail("atomic operation missing");
  // The PTX ISA's type rules that a float would break in the lowering: bit
  // operations take .b32/.b64, inc/dec .u32 (ptxas refuses the rest).
  if ((Op == ".and" || Op == ".or" || Op == ".xor") && isFloatType(T))
    invalid(std::string(IsRed ? "red" : "atom") + Op + " needs a .b32 or .b64 type, not " + std::string(spelling(T)));
  if (isFloatType(T) && !isArithmeticFloat(T))
    invalid(std::string(IsRed ? "red" : "atom") + Op + " takes .f16, .bf16, .f32 or .f64 among the float types, not " +
            std::string(spelling(T)));
  if ((Op == ".inc" || Op == ".dec") && isFloatType(T))
    invalid(std::string(IsRed ? "red" : "atom") + Op + " needs the .u32 type");
  AtomicOrdering Ord = AtomicOrdering::SequentiallyConsistent;
  Type *VT = Bv->getType();
  Value *Old = nullptr;
  // Atomics on .shared reach memory only the block's threads see; a target
  // that runs a block on one OS thread may make them plain (the CPU device).
  StateSpace Sp = In.space();
  bool BlockOnly = Sp == StateSpace::Shared || Sp == StateSpace::SharedCta || Sp == StateSpace::SharedCluster;
  auto tag = [&](llvm::Instruction *I) {
    if (BlockOnly)
      I->setMetadata("zluda.block.atomic", MDNode::get(C, {}));
    return I;
  };
  if (Op == ".cas") {
    Value *Cv = get(In.Ops[AddrIdx + 2], T);
    Value *Cmp = Bv, *New = Cv;
    if (VT->isFloatingPointTy()) {
      Cmp = B.CreateBitCast(Cmp, B.getIntNTy(VT->getPrimitiveSizeInBits()));
      New = B.CreateBitCast(New, Cmp->getType());
    }
    auto *X = B.CreateAtomicCmpXchg(Ptr, Cmp, New, MaybeAlign(), Ord, AtomicOrdering::SequentiallyConsistent);
    tag(X);
    Old = B.CreateExtractValue(X, 0);
  } else {
    bool Float = isFloatType(T);
    bool Signed = isSignedType(T);
    std::optional<AtomicRMWInst::BinOp> Native;
    if (Op == ".add")
      // Float adds take the compare-exchange loop below (x86 has no float
      // atomic add either): f32 flushes subnormals (operands and sum) and f64
      // passes a NaN operand through unquieted, as the hardware's atomic units do.
      Native = Float ? std::nullopt : std::optional(AtomicRMWInst::Add);
    else if (Op == ".min" && !Float)
      Native = Signed ? AtomicRMWInst::Min : AtomicRMWInst::UMin;
    else if (Op == ".max" && !Float)
      Native = Signed ? AtomicRMWInst::Max : AtomicRMWInst::UMax;
    else if (Op == ".and")
      Native = AtomicRMWInst::And;
    else if (Op == ".or")
      Native = AtomicRMWInst::Or;
    else if (Op == ".xor")
      Native = AtomicRMWInst::Xor;
    else if (Op == ".exch")
      Native = AtomicRMWInst::Xchg;
    if (Native) {
      Old = tag(B.CreateAtomicRMW(*Native, Ptr, Bv, MaybeAlign(), Ord));
    } else {
      // Compare-exchange loop: inc/dec, 16-bit and packed float add, float min/max.
      unsigned Bits = std::max(8u, bitWidth(T));
      Type *IT = B.getIntNTy(Bits);
      BasicBlock *Pre = B.GetInsertBlock();
      BasicBlock *Loop = BasicBlock::Create(C, "atom.loop", F), *Done = BasicBlock::Create(C, "atom.done", F);
      Value *Init = B.CreateAlignedLoad(IT, Ptr, Align(Bits / 8), /*isVolatile=*/true);
      B.CreateBr(Loop);
      B.SetInsertPoint(Loop);
      PHINode *Cur = B.CreatePHI(IT, 2);
      Cur->addIncoming(Init, Pre);
      Value *New;
      if (Op == ".inc") {
        Value *Bi = convertBits(Bv, IT, false);
        New = B.CreateSelect(B.CreateICmpUGE(Cur, Bi), ConstantInt::get(IT, 0), B.CreateAdd(Cur, ConstantInt::get(IT, 1)));
      } else if (Op == ".dec") {
        Value *Bi = convertBits(Bv, IT, false);
        Value *Wrap = B.CreateOr(B.CreateICmpEQ(Cur, ConstantInt::get(IT, 0)), B.CreateICmpUGT(Cur, Bi));
        New = B.CreateSelect(Wrap, Bi, B.CreateSub(Cur, ConstantInt::get(IT, 1)));
      } else if (T == ScalarType::F16x2 || T == ScalarType::BF16x2) {
        ScalarType ET = T == ScalarType::F16x2 ? ScalarType::F16 : ScalarType::BF16;
        Value *Bi = convertBits(Bv, IT, false);
        New = ConstantInt::get(IT, 0);
        for (unsigned Lane = 0; Lane < 2; ++Lane) {
          Value *X = toFloat(B.CreateTrunc(B.CreateLShr(Cur, 16 * Lane), B.getInt16Ty()), ET);
          Value *Y = toFloat(B.CreateTrunc(B.CreateLShr(Bi, 16 * Lane), B.getInt16Ty()), ET);
          Value *H = canonicalNaN(fromFloat(B.CreateFAdd(X, Y), ET, 0), ET);
          New = B.CreateOr(New, B.CreateShl(B.CreateZExt(H, IT), 16 * Lane));
        }
      } else if (Float) {
        Value *X = toFloat(convertBits(Cur, valueType(T), false), T);
        Value *Y = toFloat(Bv, T);
        bool Flush = T == ScalarType::F32 && Op == ".add";
        if (Flush) {
          X = ftz(X);
          Y = ftz(Y);
        }
        Value *R = Op == ".add" ? B.CreateFAdd(X, Y) : fminmax(X, Y, Op == ".max", false);
        if (Flush)
          R = ftz(R);
        if (T == ScalarType::F64 && Op == ".add") {
          // On the bits: LLVM may otherwise fold the choice into the add.
          auto nanBits = [&](Value *V) {
            Value *I = B.CreateBitCast(V, B.getInt64Ty());
            return std::pair(I, B.CreateICmpUGT(B.CreateAnd(I, B.getInt64(0x7FFFFFFFFFFFFFFFULL)),
                                                B.getInt64(0x7FF0000000000000ULL)));
          };
          auto [XI, XN] = nanBits(X);
          auto [YI, YN] = nanBits(Y);
          Value *RI = B.CreateSelect(XN, XI, B.CreateSelect(YN, YI, B.CreateBitCast(R, B.getInt64Ty())));
          R = B.CreateBitCast(RI, B.getDoubleTy());
        }
        New = convertBits(canonicalNaN(fromFloat(R, T, 0), T), IT, false);
      } else {
        fail("atomic " + Op + " is not supported for " + std::string(spelling(T)));
      }
      auto *X = B.CreateAtomicCmpXchg(Ptr, Cur, New, MaybeAlign(), Ord, AtomicOrdering::SequentiallyConsistent);
      tag(X);
      Value *Seen = B.CreateExtractValue(X, 0);
      Cur->addIncoming(Seen, B.GetInsertBlock());
      B.CreateCondBr(B.CreateExtractValue(X, 1), Done, Loop);
      B.SetInsertPoint(Done);
      Old = Seen;
    }
  }
  if (!IsRed)
    set(In.Ops[0], T, convertBits(Old, valueType(T), false));
}

// --- barriers and warp collectives -------------------------------------------------------

void FnLowering::lowerBarrier(const Instruction &In) {
  if (In.has(".warp")) { // bar.warp.sync membermask
    B.CreateCall(L.rt(RtFn::warp_sync), {Ctx, get(In.Ops.at(0), ScalarType::U32)});
    return;
  }
  if (In.has(".cluster")) // a cluster is one block here: its barrier is empty
    return;
  int Kind = 0;
  size_t First = 0;
  Value *Pred = B.getInt32(0);
  if (In.has(".red")) {
    Kind = In.has(".popc") ? 2 : In.has(".and") ? 3 : 4;
    First = 1;
    const Operand &P = In.Ops.back();
    Pred = B.CreateZExt(convertBits(get(P, ScalarType::Pred), B.getInt1Ty(), false), B.getInt32Ty());
  } else if (In.has(".arrive")) {
    Kind = 1;
  }
  size_t NumIds = In.Ops.size() - First - (Kind >= 2 ? 1 : 0);
  Value *Id = NumIds >= 1 ? get(In.Ops[First], ScalarType::U32) : B.getInt32(0);
  Value *Count = NumIds >= 2 ? get(In.Ops[First + 1], ScalarType::U32) : B.getInt32(0);
  Value *R = B.CreateCall(L.rt(RtFn::barrier), {Ctx, Id, Count, B.getInt32(Kind), Pred});
  if (Kind >= 2)
    set(In.Ops[0], Kind == 2 ? ScalarType::U32 : ScalarType::Pred, Kind == 2 ? R : B.CreateICmpNE(R, B.getInt32(0)));
}

void FnLowering::lowerWarp(const Instruction &In) {
  const Operand &D = In.Ops.at(0);
  bool Sync = In.has(".sync");
  auto mask = [&](size_t I) { return Sync && I < In.Ops.size() ? get(In.Ops[I], ScalarType::U32) : B.getInt32(-1); };
  auto setPair = [&](Value *PredPtr) {
    if (D.Pair.empty())
      return;
    Operand Q = D;
    Q.Name = D.Pair;
    Q.Pair.clear();
    set(Q, ScalarType::Pred, B.CreateICmpNE(B.CreateLoad(B.getInt32Ty(), PredPtr), B.getInt32(0)));
  };
  switch (In.Op) {
  case Opcode::Shfl: {
    unsigned Mode = In.has(".up") ? 0 : In.has(".down") ? 1 : In.has(".bfly") ? 2 : 3;
    Value *PredPtr = scratch(B.getInt32Ty());
    Value *V = convertBits(get(In.Ops[1], ScalarType::B32), B.getInt32Ty(), false);
    Value *R = B.CreateCall(L.rt(RtFn::shfl), {Ctx, B.getInt32(Mode), V, get(In.Ops[2], ScalarType::U32),
                                               get(In.Ops[3], ScalarType::U32), mask(4), PredPtr});
    Operand D0 = D;
    D0.Pair.clear();
    set(D0, ScalarType::B32, R);
    setPair(PredPtr);
    return;
  }
  case Opcode::Vote: {
    unsigned Mode = In.has(".all") ? 0 : In.has(".any") ? 1 : In.has(".uni") ? 2 : 3;
    Value *P = B.CreateZExt(convertBits(get(In.Ops[1], ScalarType::Pred), B.getInt1Ty(), false), B.getInt32Ty());
    Value *R = B.CreateCall(L.rt(RtFn::vote), {Ctx, B.getInt32(Mode), P, mask(2)});
    if (Mode == 3)
      set(D, ScalarType::B32, R);
    else
      set(D, ScalarType::Pred, B.CreateICmpNE(R, B.getInt32(0)));
    return;
  }
  case Opcode::Match: {
    unsigned Mode = In.has(".all") ? 1 : 0;
    Value *PredPtr = scratch(B.getInt32Ty());
    Value *V = convertBits(get(In.Ops[1], In.type()), B.getInt64Ty(), false);
    Value *R = B.CreateCall(L.rt(RtFn::match), {Ctx, B.getInt32(Mode), V, mask(2), PredPtr});
    Operand D0 = D;
    D0.Pair.clear();
    set(D0, ScalarType::B32, R);
    setPair(PredPtr);
    return;
  }
  case Opcode::Redux: {
    ScalarType T = In.type();
    bool S = isSignedType(T);
    unsigned Op = In.has(".add") ? 0 : In.has(".min") ? (S ? 3 : 1) : In.has(".max") ? (S ? 4 : 2)
                  : In.has(".and") ? 5 : In.has(".or") ? 6 : 7;
    Value *V = convertBits(get(In.Ops[1], T), B.getInt32Ty(), false);
    set(D, T, B.CreateCall(L.rt(RtFn::redux), {Ctx, B.getInt32(Op), V, mask(2)}));
    return;
  }
  case Opcode::Activemask: {
    // The instruction's place in the PTX identifies it: lanes are active
    // together when they execute the same activemask.
    uint32_t Site = (In.Loc.Line << 12) ^ In.Loc.Col;
    set(D, ScalarType::B32, B.CreateCall(L.rt(RtFn::activemask), {Ctx, B.getInt32(Site)}));
    return;
  }
  case Opcode::Elect: {
    // elect.sync d|p, membermask: the lowest lane of the mask is elected.
    Value *M = get(In.Ops[1], ScalarType::U32);
    llvm::Function *Cttz = Intrinsic::getDeclaration(F->getParent(), Intrinsic::cttz, {B.getInt32Ty()});
    Value *Leader = B.CreateCall(Cttz, {M, B.getTrue()});
    B.CreateCall(L.rt(RtFn::warp_sync), {Ctx, M});
    Operand D0 = D;
    D0.Pair.clear();
    if (D0.Name != "_")
      set(D0, ScalarType::U32, Leader);
    if (!D.Pair.empty()) {
      Operand Q = D;
      Q.Name = D.Pair;
      Q.Pair.clear();
      set(Q, ScalarType::Pred, B.CreateICmpEQ(B.CreateCall(L.rt(RtFn::sreg_laneid), {Ctx}), Leader));
    }
    return;
  }
  default:
    fail("internal: not a warp instruction");
  }
}

// --- textures -------------------------------------------------------------------------

namespace {
/// The geometry code of the runtime calls (TextureSampling.h): 1-3, 4 cube, +16 arrays; 0 unknown.
unsigned geometryOf(const Instruction &In) {
  if (In.has(".1d"))
    return 1;
  if (In.has(".2d"))
    return 2;
  if (In.has(".3d"))
    return 3;
  if (In.has(".cube"))
    return ptx::GeomCube;
  if (In.has(".a1d"))
    return ptx::GeomArray | 1;
  if (In.has(".a2d"))
    return ptx::GeomArray | 2;
  if (In.has(".acube"))
    return ptx::GeomArray | ptx::GeomCube;
  return 0;
}
} // namespace

/// The handle of a texture or surface operand: a .texref/.surfref variable
/// (the driver stores the handle there) or a 64-bit register or parameter.
Value *FnLowering::textureHandle(const Operand &Op) {
  Sym *TS = Op.Kind == Operand::OK_Name ? lookup(Op.Name) : nullptr;
  if (TS && TS->Kind == Sym::SK_Mem && TS->Space == StateSpace::Global)
    return B.CreateLoad(B.getInt64Ty(), TS->Ptr);
  return convertBits(get(Op, ScalarType::U64), B.getInt64Ty(), false);
}

/// Coordinates of a texture or surface access as four 32-bit lanes in a stack
/// array (array geometries put the integer layer first; cube coordinates
/// are three floats).
Value *FnLowering::coordinateLanes(const Operand &Coords, unsigned Geom, ScalarType CT) {
  Value *Cs = scratch(ArrayType::get(B.getInt32Ty(), 4), 7); // beside the result's lanes (slot 0)
  for (unsigned I = 0; I < 4; ++I)
    B.CreateStore(B.getInt32(0), B.CreateConstInBoundsGEP1_32(B.getInt32Ty(), Cs, I));
  auto put = [&](unsigned I, const Operand &E) {
    ScalarType T = ((Geom & ptx::GeomArray) && I == 0) ? ScalarType::U32 : CT;
    if (E.Kind == Operand::OK_Name && E.Name == "_")
      return;
    B.CreateStore(convertBits(get(E, T), B.getInt32Ty(), false), B.CreateConstInBoundsGEP1_32(B.getInt32Ty(), Cs, I));
  };
  if (Coords.Kind == Operand::OK_Vector) {
    for (size_t I = 0; I < Coords.Elems.size() && I < 4; ++I)
      put(static_cast<unsigned>(I), Coords.Elems[I]);
  } else {
    put(0, Coords);
  }
  return Cs;
}

/// Writes a 4-lane result of a texture or surface call to the destination
/// (a vector, or a scalar for the first lane) as \p T.
void FnLowering::storeLanes(const Operand &D, ScalarType T, Value *Out, unsigned LaneBytes) {
  Type *LaneTy = B.getIntNTy(LaneBytes * 8);
  for (unsigned I = 0; I < 4; ++I) {
    const Operand *E = D.Kind == Operand::OK_Vector ? (I < D.Elems.size() ? &D.Elems[I] : nullptr) : (I == 0 ? &D : nullptr);
    if (!E || (E->Kind == Operand::OK_Name && E->Name == "_"))
      continue;
    Value *V = B.CreateLoad(LaneTy, B.CreateConstInBoundsGEP1_32(LaneTy, Out, I));
    set(*E, T, convertBits(V, valueType(T), false));
  }
}

void FnLowering::lowerTex(const Instruction &In) {
  auto Ts = In.types();
  if (Ts.size() != 2)
    fail("tex needs a result and a coordinate type");
  unsigned Geom = geometryOf(In);
  if (!Geom)
    fail("texture geometry not supported (1d, 2d, 3d, a1d, a2d, cube, acube; multisample ones are not)");
  const Operand &Br = In.Ops.at(1);
  if (Br.Kind != Operand::OK_Bracket || Br.Elems.size() < 2)
    fail("tex needs [texture, {coordinates}]");
  bool Level = In.has(".level"), Grad = In.has(".grad"), Base = In.has(".base");
  size_t Extra = Level ? 1 : Grad ? 2 : 0;
  if (In.Ops.size() > 2 + Extra)
    fail("tex with texel offsets or depth comparison is not supported");
  if (In.Ops[0].Kind == Operand::OK_Name && !In.Ops[0].Pair.empty())
    fail("tex with a predicate destination (sparse textures) is not supported");
  Value *Handle = textureHandle(Br.Elems[0]);
  bool IntCoords = Ts[1] != ScalarType::F32;
  unsigned RType = Ts[0] == ScalarType::F32 ? 0 : isSignedType(Ts[0]) ? 1 : 2;
  Value *Out = scratch(ArrayType::get(B.getInt32Ty(), 4));
  if (!Level && !Grad && !(Geom & ptx::GeomCube)) { // the common fetch: scalar arguments
    std::vector<Value *> Cs(4, B.getInt32(0));
    const Operand &Coords = Br.Elems.back();
    if (Coords.Kind == Operand::OK_Vector) {
      for (size_t I = 0; I < Coords.Elems.size() && I < 4; ++I) {
        ScalarType CT = ((Geom & ptx::GeomArray) && I == 0) ? ScalarType::U32 : Ts[1];
        Cs[I] = convertBits(get(Coords.Elems[I], CT), B.getInt32Ty(), false);
      }
    } else {
      Cs[0] = convertBits(get(Coords, Ts[1]), B.getInt32Ty(), false);
    }
    B.CreateCall(L.rt(RtFn::tex_fetch), {Ctx, Handle, B.getInt32(Geom), Cs[0], Cs[1], Cs[2], Cs[3],
                                         B.getInt32(IntCoords), Out, B.getInt32(RType)});
    (void)Base; // tex.base reads level 0, as a plain fetch does
  } else {
    Value *Cs = coordinateLanes(Br.Elems.back(), Geom, Ts[1]);
    Value *Ex = scratch(ArrayType::get(B.getFloatTy(), 8));
    unsigned Mode = 0;
    if (Level) {
      Mode = 1;
      B.CreateStore(get(In.Ops[2], ScalarType::F32), B.CreateConstInBoundsGEP1_32(B.getFloatTy(), Ex, 0));
    } else if (Grad) {
      Mode = 2;
      for (unsigned G = 0; G < 2; ++G) {
        const Operand &V = In.Ops[2 + G];
        for (unsigned I = 0; I < 4; ++I) {
          const Operand *E = V.Kind == Operand::OK_Vector ? (I < V.Elems.size() ? &V.Elems[I] : nullptr) : (I == 0 ? &V : nullptr);
          Value *F = E && !(E->Kind == Operand::OK_Name && E->Name == "_") ? get(*E, ScalarType::F32)
                                                                             : ConstantFP::get(B.getFloatTy(), 0.0);
          B.CreateStore(F, B.CreateConstInBoundsGEP1_32(B.getFloatTy(), Ex, G * 4 + I));
        }
      }
    }
    B.CreateCall(L.rt(RtFn::tex_sample),
                 {Ctx, Handle, B.getInt32(Geom), Cs, B.getInt32(IntCoords), Out, B.getInt32(Mode), Ex});
  }
  storeLanes(In.Ops[0], Ts[0], Out, 4);
}

/// tld4.{r,g,b,a}.geom.v4.dtype.f32: the 2x2 footprint of one channel.
void FnLowering::lowerTld4(const Instruction &In) {
  auto Ts = In.types();
  if (Ts.size() != 2)
    fail("tld4 needs a result and a coordinate type");
  unsigned Geom = geometryOf(In);
  if (Geom != 2 && Geom != (ptx::GeomArray | 2) && Geom != ptx::GeomCube && Geom != (ptx::GeomArray | ptx::GeomCube))
    fail("tld4 geometry must be 2d, a2d, cube or acube");
  unsigned Comp = In.has(".r") ? 0 : In.has(".g") ? 1 : In.has(".b") ? 2 : In.has(".a") ? 3 : 4;
  if (Comp == 4)
    fail("tld4 needs a component (.r, .g, .b or .a)");
  const Operand &Br = In.Ops.at(1);
  if (Br.Kind != Operand::OK_Bracket || Br.Elems.size() < 2)
    fail("tld4 needs [texture, {coordinates}]");
  if (In.Ops.size() > 2)
    fail("tld4 with texel offsets or depth comparison is not supported");
  Value *Cs = coordinateLanes(Br.Elems.back(), Geom, Ts[1]);
  Value *Out = scratch(ArrayType::get(B.getInt32Ty(), 4));
  Value *Ex = scratch(ArrayType::get(B.getFloatTy(), 8));
  B.CreateCall(L.rt(RtFn::tex_sample), {Ctx, textureHandle(Br.Elems[0]), B.getInt32(Geom), Cs, B.getInt32(0), Out,
                                        B.getInt32(4 + Comp), Ex});
  storeLanes(In.Ops[0], Ts[0], Out, 4);
}

/// txq and suq: one attribute of a texture, sampler or surface (txq.level: of a mipmap level).
void FnLowering::lowerTexQuery(const Instruction &In) {
  static const std::pair<const char *, unsigned> Queries[] = {
      {".width", ptx::TqWidth},
      {".height", ptx::TqHeight},
      {".depth", ptx::TqDepth},
      {".channel_data_type", ptx::TqChannelDataType},
      {".channel_order", ptx::TqChannelOrder},
      {".normalized_coords", ptx::TqNormalizedCoords},
      {".filter_mode", ptx::TqFilterMode},
      {".addr_mode_0", ptx::TqAddrMode0},
      {".addr_mode_1", ptx::TqAddrMode1},
      {".addr_mode_2", ptx::TqAddrMode2},
      {".array_size", ptx::TqArraySize},
      {".num_mipmap_levels", ptx::TqNumMipmapLevels},
      {".num_samples", ptx::TqNumSamples},
      {".memory_layout", ptx::TqMemoryLayout},
  };
  int Query = -1;
  for (auto &[Name, Q] : Queries)
    if (In.has(Name))
      Query = static_cast<int>(Q);
  if (Query < 0)
    fail(std::string(spelling(In.Op)) + ": unknown attribute");
  // [handle]: a bracket of one, or an address operand (its base names the handle).
  const Operand &Br = In.Ops.at(1);
  Operand H = Br.Kind == Operand::OK_Bracket && !Br.Elems.empty() ? Br.Elems[0] : Br;
  if (H.Kind == Operand::OK_Address) {
    if (H.Name.empty() || H.Int != 0)
      invalid(std::string(spelling(In.Op)) + " needs [texture] or [surface]");
    H.Kind = Operand::OK_Name;
  }
  Value *Level = B.getInt32(0);
  if (In.has(".level")) {
    if (In.Ops.size() < 3)
      invalid("txq.level needs a level operand");
    Level = convertBits(get(In.Ops[2], ScalarType::U32), B.getInt32Ty(), false);
  }
  Value *R = B.CreateCall(L.rt(RtFn::tex_query), {Ctx, textureHandle(H), B.getInt32(Query), Level});
  set(In.Ops[0], ScalarType::B32, R);
}

/// suld.b / sust.b / sust.p: unformatted (or formatted) surface access of
/// up to four components with the clamp mode (.trap, .clamp, .zero).
void FnLowering::lowerSurface(const Instruction &In) {
  bool Store = In.Op == Opcode::Sust;
  unsigned Geom = geometryOf(In);
  if (!Geom || (Geom & ptx::GeomCube))
    fail("surface geometry must be 1d, 2d, 3d, a1d or a2d");
  bool Formatted = In.has(".p");
  if (!Formatted && !In.has(".b"))
    fail(std::string(spelling(In.Op)) + " needs .b or .p");
  if (Formatted && !Store)
    fail("suld.p is not an instruction");
  auto Ts = In.types();
  if (Ts.size() != 1)
    fail(std::string(spelling(In.Op)) + " needs one component type");
  unsigned Bytes = bitWidth(Ts[0]) / 8;
  if (Bytes != 1 && Bytes != 2 && Bytes != 4 && Bytes != 8)
    fail(std::string(spelling(In.Op)) + ": components of 8, 16, 32 or 64 bits");
  // Components: as many as the data operand has (.v2/.v4 are not kept as modifiers).
  const Operand &Data = In.Ops.at(Store ? 1 : 0);
  unsigned Vec = Data.Kind == Operand::OK_Vector ? static_cast<unsigned>(std::min<size_t>(Data.Elems.size(), 4)) : 1;
  unsigned Clamp = In.has(".clamp") ? 1 : In.has(".zero") ? 2 : 0;
  const Operand &Br = In.Ops.at(Store ? 0 : 1);
  if (Br.Kind != Operand::OK_Bracket || Br.Elems.size() < 2)
    fail(std::string(spelling(In.Op)) + " needs [surface, {coordinates}]");
  Value *Cs = coordinateLanes(Br.Elems.back(), Geom, ScalarType::S32);
  Value *Buf = scratch(ArrayType::get(B.getInt64Ty(), 4));
  Type *LaneTy = B.getIntNTy(Bytes * 8);
  unsigned Flags = Clamp | (Formatted ? 4 : 0);
  if (Store) {
    const Operand &V = In.Ops.at(1);
    for (unsigned I = 0; I < Vec; ++I) {
      const Operand *E = V.Kind == Operand::OK_Vector ? (I < V.Elems.size() ? &V.Elems[I] : nullptr) : (I == 0 ? &V : nullptr);
      if (!E)
        invalid("sust needs " + std::to_string(Vec) + " source components");
      B.CreateStore(convertBits(get(*E, Ts[0]), LaneTy, false), B.CreateConstInBoundsGEP1_32(LaneTy, Buf, I));
    }
    B.CreateCall(L.rt(RtFn::surf_store), {Ctx, textureHandle(Br.Elems[0]), B.getInt32(Geom), Cs, B.getInt32(Bytes),
                                          B.getInt32(Vec), B.getInt32(Flags), Buf});
    return;
  }
  B.CreateCall(L.rt(RtFn::surf_load), {Ctx, textureHandle(Br.Elems[0]), B.getInt32(Geom), Cs, B.getInt32(Bytes),
                                       B.getInt32(Vec), B.getInt32(Flags), Buf});
  storeLanes(In.Ops[0], Ts[0], Buf, Bytes);
}

/// mbarrier objects: every operation is one call of the device runtime's
/// mbarrier function (its layout and rules are in DeviceFloat.inc). A wait
/// that finds its phase incomplete yields (as nanosleep does), so that a loop
/// around test_wait/try_wait lets the threads it waits for run.
void FnLowering::lowerMbarrier(const Instruction &In) {
  if (In.has(".pending_count")) {
    if (In.Ops.size() != 2)
      invalid("mbarrier.pending_count needs a destination and a state");
    Value *State = get(In.Ops[1], ScalarType::B64);
    set(In.Ops[0], ScalarType::U32, B.CreateAnd(B.CreateTrunc(State, B.getInt32Ty()), B.getInt32(0xFFFFF)));
    return;
  }
  bool Waits = In.has(".test_wait") || In.has(".try_wait");
  bool Arrives = In.has(".arrive") || In.has(".arrive_drop");
  bool HasDest = Waits || Arrives;
  // Operands each form needs (the parser only bounds mbarrier's count as a whole).
  size_t Need = Waits ? 3 : HasDest ? 2 : (In.has(".inval") ? 1 : 2);
  if (In.Ops.size() < Need)
    invalid("mbarrier" + std::string(Waits ? " wait" : Arrives ? " arrive" : "") + " needs " + std::to_string(Need) +
            " operands, found " + std::to_string(In.Ops.size()));
  StateSpace S = In.space();
  if (S == StateSpace::SharedCta || S == StateSpace::SharedCluster)
    S = StateSpace::Shared;
  Value *Obj = address(In.Ops.at(HasDest ? 1 : 0), S);
  memcheck(In.Ops.at(HasDest ? 1 : 0), Obj, 8, S, MemcheckAtomic);
  auto call = [&](unsigned Op, Value *A, Value *Bv) {
    return B.CreateCall(L.rt(RtFn::mbarrier), {Ctx, Obj, B.getInt32(Op), A, Bv});
  };
  auto operand = [&](size_t I, uint64_t Default) -> Value * {
    if (I >= In.Ops.size())
      return B.getInt64(Default);
    return B.CreateZExt(get(In.Ops[I], ScalarType::U32), B.getInt64Ty());
  };
  if (In.has(".init"))
    call(MbarInit, operand(1, 1), B.getInt32(0));
  else if (In.has(".inval"))
    call(MbarInval, B.getInt64(0), B.getInt32(0));
  else if (In.has(".expect_tx") && !Arrives)
    call(MbarExpectTx, operand(1, 0), B.getInt32(0));
  else if (In.has(".complete_tx"))
    call(MbarCompleteTx, operand(1, 0), B.getInt32(0));
  else if (Arrives) {
    bool Drop_ = In.has(".arrive_drop"), NoComplete = In.has(".noComplete");
    Value *R;
    if (In.has(".expect_tx"))
      R = call(MbarArriveExpectTx, operand(2, 0), B.getInt32(1));
    else
      R = call(Drop_ ? (NoComplete ? MbarDropNoComplete : MbarDrop) : (NoComplete ? MbarArriveNoComplete : MbarArrive),
               operand(2, 1),
               B.getInt32(0));
    set(In.Ops[0], ScalarType::B64, R);
  } else if (Waits) {
    bool Parity = In.has(".parity");
    Value *A = Parity ? operand(2, 0) : get(In.Ops.at(2), ScalarType::B64);
    Value *Done = B.CreateICmpNE(call(Parity ? MbarTestParity : MbarTestState, A, B.getInt32(0)), B.getInt64(0));
    memcheck(In.Ops[1], Obj, B.CreateZExt(Done, B.getInt64Ty()), S, MemcheckSync); // racecheck: ordered after the phase
    BasicBlock *Yield = BasicBlock::Create(C, "mbarrier.yield", F), *Cont = BasicBlock::Create(C, "mbarrier.cont", F);
    B.CreateCondBr(Done, Cont, Yield);
    B.SetInsertPoint(Yield);
    B.CreateCall(L.rt(RtFn::nanosleep), {Ctx, B.getInt32(0)});
    B.CreateBr(Cont);
    B.SetInsertPoint(Cont);
    set(In.Ops[0], ScalarType::Pred, Done);
  } else {
    fail("this form of mbarrier is not supported");
  }
}

void FnLowering::lowerCpAsync(const Instruction &In) {
  // cp.async copies synchronously here, so commit/wait have nothing to wait for.
  if (In.has(".commit_group") || In.has(".wait_group") || In.has(".wait_all"))
    return;
  if (In.has(".async") && In.has(".mbarrier") && In.has(".arrive")) {
    // The copies before it are complete: the arrival happens now. Without
    // .noinc the pending count is raised by one first, so nothing changes.
    if (In.has(".noinc")) {
      Value *Obj = address(In.Ops.at(0), In.space() == StateSpace::None ? StateSpace::None : StateSpace::Shared);
      B.CreateCall(L.rt(RtFn::mbarrier), {Ctx, Obj, B.getInt32(MbarArrive), B.getInt64(1), B.getInt32(0)});
    }
    return;
  }
  if (In.has(".bulk") && In.has(".prefetch")) // cp.async.bulk.prefetch{.tensor}.L2: a cache hint, nothing to copy
    return;
  if (!In.has(".async") || In.has(".bulk") || In.has(".mbarrier"))
    fail("this form of cp is not supported");
  Value *Dst = address(In.Ops.at(0), StateSpace::Shared);
  Value *Src = address(In.Ops.at(1), StateSpace::Global);
  if (In.Ops.at(2).Kind != Operand::OK_Int)
    fail("cp.async needs an immediate copy size");
  uint64_t Size = static_cast<uint64_t>(In.Ops[2].Int);
  Value *SrcSize = In.Ops.size() > 3 ? get(In.Ops[3], ScalarType::U32) : B.getInt32(Size);
  Value *N = B.CreateZExt(B.CreateSelect(B.CreateICmpULT(SrcSize, B.getInt32(Size)), SrcSize, B.getInt32(Size)), B.getInt64Ty());
  memcheck(In.Ops[0], Dst, Size, StateSpace::Shared, MemcheckWrite);
  memcheck(In.Ops[1], Src, N, StateSpace::Global, MemcheckRead);
  B.CreateMemSet(Dst, B.getInt8(0), Size, MaybeAlign(1));
  B.CreateMemCpy(Dst, MaybeAlign(1), Src, MaybeAlign(1), N);
}

// --- warp matrix operations (wmma) ----------------------------------------------------

/// Fragments are opaque to programs (they go through wmma.load/store), so the
/// CPU device picks its own layout: lane L holds elements 8L..8L+7 of the
/// 16x16 matrix in row-major logical order. f16 fragments pack two elements
/// per register (registers 4..7 of an A/B fragment are unused); f32
/// accumulators hold one per register.
void FnLowering::lowerWmma(const Instruction &In) {
  if (!In.has(".m16n16k16"))
    fail("wmma: only the m16n16k16 shape is supported");
  bool ColMajor = In.has(".col");
  Value *Lane = B.CreateCall(L.rt(RtFn::sreg_laneid), {Ctx});
  auto regs = [&](const Operand &O) -> const std::vector<Operand> & {
    if (O.Kind != Operand::OK_Vector)
      fail("wmma: fragment must be a vector of registers");
    return O.Elems;
  };
  if (In.has(".load") || In.has(".store")) {
    bool Load = In.has(".load");
    ScalarType T = In.type();
    if (T != ScalarType::F16 && T != ScalarType::F32 && T != ScalarType::S8 && T != ScalarType::U8 &&
        T != ScalarType::S32)
      fail("wmma load/store: only .f16, .f32, .s8, .u8 and .s32 fragments are supported");
    bool Half = T == ScalarType::F16, Byte = T == ScalarType::S8 || T == ScalarType::U8, Int = T == ScalarType::S32;
    if (Byte && !Load)
      invalid("wmma.store takes accumulator fragments (.f16, .f32, .s32)");
    const Operand &Frag = Load ? In.Ops[0] : In.Ops[1];
    Value *Base = address(Load ? In.Ops[1] : In.Ops[0], In.space());
    Value *Stride = In.Ops.size() > 2 ? convertBits(get(In.Ops[2], ScalarType::U32), B.getInt64Ty(), false) : B.getInt64(16);
    unsigned ElemBytes = Byte ? 1 : Half ? 2 : 4;
    Type *ET = Byte ? static_cast<Type *>(B.getInt8Ty())
               : Half ? static_cast<Type *>(B.getInt16Ty())
               : Int  ? static_cast<Type *>(B.getInt32Ty())
                      : B.getFloatTy();
    const auto &R = regs(Frag);
    std::vector<Value *> Elems(8);
    if (!Load) {
      for (unsigned K = 0; K < 8; ++K) {
        if (Int) {
          Elems[K] = convertBits(get(R.at(K), ScalarType::B32), B.getInt32Ty(), false);
        } else if (Half) {
          Value *Pair = convertBits(get(R.at(K / 2), ScalarType::B32), B.getInt32Ty(), false);
          Elems[K] = B.CreateTrunc(B.CreateLShr(Pair, 16 * (K % 2)), B.getInt16Ty());
        } else {
          Elems[K] = get(R.at(K), ScalarType::F32);
        }
      }
    }
    for (unsigned K = 0; K < 8; ++K) {
      Value *E = B.CreateAdd(B.CreateMul(Lane, B.getInt32(8)), B.getInt32(K));
      Value *Row = B.CreateZExt(B.CreateLShr(E, 4), B.getInt64Ty()), *Col = B.CreateZExt(B.CreateAnd(E, 15), B.getInt64Ty());
      Value *Index = ColMajor ? B.CreateAdd(B.CreateMul(Col, Stride), Row) : B.CreateAdd(B.CreateMul(Row, Stride), Col);
      Value *P = B.CreateGEP(B.getInt8Ty(), Base, B.CreateMul(Index, B.getInt64(ElemBytes)));
      memcheck(Load ? In.Ops[1] : In.Ops[0], P, ElemBytes, In.space(), Load ? MemcheckRead : MemcheckWrite);
      if (Load)
        Elems[K] = B.CreateAlignedLoad(ET, P, Align(ElemBytes));
      else
        B.CreateAlignedStore(Elems[K], P, Align(ElemBytes));
    }
    if (Load) {
      if (Byte) { // two registers of four bytes, the rest (if any) zero
        for (unsigned J = 0; J < R.size(); ++J) {
          Value *V = B.getInt32(0);
          for (unsigned K = 0; J < 2 && K < 4; ++K)
            V = B.CreateOr(V, B.CreateShl(B.CreateZExt(Elems[4 * J + K], B.getInt32Ty()), 8 * K));
          set(R[J], ScalarType::B32, V);
        }
      } else if (Int) {
        for (unsigned J = 0; J < R.size() && J < 8; ++J)
          set(R[J], ScalarType::B32, Elems[J]);
      } else if (Half) {
        for (unsigned J = 0; J < R.size(); ++J) {
          Value *V = B.getInt32(0);
          if (J < 4)
            V = B.CreateOr(B.CreateZExt(Elems[2 * J], B.getInt32Ty()),
                           B.CreateShl(B.CreateZExt(Elems[2 * J + 1], B.getInt32Ty()), 16));
          set(R[J], ScalarType::B32, V);
        }
      } else {
        for (unsigned J = 0; J < R.size() && J < 8; ++J)
          set(R[J], ScalarType::F32, Elems[J]);
      }
    }
    return;
  }
  if (!In.has(".mma"))
    fail("wmma: unsupported form");
  auto Ts = In.types(); // .dtype.ctype, or .dtype.atype.btype.ctype (integers)
  if (Ts.size() != 2 && Ts.size() != 4)
    fail("wmma.mma needs accumulator types");
  const auto &D = regs(In.Ops[0]), &A = regs(In.Ops[1]), &Bm = regs(In.Ops[2]), &Cf = regs(In.Ops[3]);
  auto *Arr16 = ArrayType::get(B.getInt16Ty(), 8), *ArrF = ArrayType::get(B.getFloatTy(), 8);
  Value *APtr = scratch(Arr16, 0), *BPtr = scratch(Arr16, 1);
  Value *CPtr = scratch(ArrF, 0), *DPtr = scratch(ArrF, 1);
  if (Ts.size() == 4 && (Ts[1] == ScalarType::S8 || Ts[1] == ScalarType::U8)) {
    // .s32.{s8,u8}.{s8,u8}.s32: the bytes are exact as halves and every
    // partial sum of 16 products (at most 16 * 255 * 255) is exact in f32, so
    // the f16 collective computes A x B exactly; C is added in integers
    // (wrapping, or saturating with .satfinite).
    for (unsigned K = 0; K < 8; ++K) {
      for (auto [Src, Dst, Signed] : {std::tuple(&A, APtr, Ts[1] == ScalarType::S8),
                                      std::tuple(&Bm, BPtr, Ts[2] == ScalarType::S8)}) {
        Value *Word = convertBits(get(Src->at(K / 4), ScalarType::B32), B.getInt32Ty(), false);
        Value *Byte = B.CreateTrunc(B.CreateLShr(Word, 8 * (K % 4)), B.getInt8Ty());
        Value *F = Signed ? B.CreateSIToFP(Byte, B.getFloatTy()) : B.CreateUIToFP(Byte, B.getFloatTy());
        B.CreateStore(fromFloat(F, ScalarType::F16, 0), B.CreateConstInBoundsGEP1_32(B.getInt16Ty(), Dst, K));
      }
      B.CreateStore(ConstantFP::get(B.getFloatTy(), 0.0), B.CreateConstInBoundsGEP1_32(B.getFloatTy(), CPtr, K));
    }
    B.CreateCall(L.rt(RtFn::wmma_mma), {Ctx, APtr, BPtr, CPtr, DPtr});
    for (unsigned K = 0; K < 8; ++K) {
      Value *P = B.CreateFPToSI(B.CreateLoad(B.getFloatTy(), B.CreateConstInBoundsGEP1_32(B.getFloatTy(), DPtr, K)),
                                B.getInt64Ty());
      Value *C = B.CreateSExt(convertBits(get(Cf.at(K), ScalarType::B32), B.getInt32Ty(), false), B.getInt64Ty());
      Value *Sum = B.CreateAdd(P, C);
      if (In.has(".satfinite")) {
        Sum = B.CreateSelect(B.CreateICmpSGT(Sum, B.getInt64(INT32_MAX)), B.getInt64(INT32_MAX), Sum);
        Sum = B.CreateSelect(B.CreateICmpSLT(Sum, B.getInt64(INT32_MIN)), B.getInt64(INT32_MIN), Sum);
      }
      set(D.at(K), ScalarType::B32, B.CreateTrunc(Sum, B.getInt32Ty()));
    }
    return;
  }
  for (unsigned K = 0; K < 8; ++K) {
    for (auto [Src, Dst] : {std::pair(&A, APtr), std::pair(&Bm, BPtr)}) {
      Value *Pair = convertBits(get(Src->at(K / 2), ScalarType::B32), B.getInt32Ty(), false);
      B.CreateStore(B.CreateTrunc(B.CreateLShr(Pair, 16 * (K % 2)), B.getInt16Ty()),
                    B.CreateConstInBoundsGEP1_32(B.getInt16Ty(), Dst, K));
    }
    Value *C;
    if (Ts[1] == ScalarType::F16) {
      Value *Pair = convertBits(get(Cf.at(K / 2), ScalarType::B32), B.getInt32Ty(), false);
      C = toFloat(B.CreateTrunc(B.CreateLShr(Pair, 16 * (K % 2)), B.getInt16Ty()), ScalarType::F16);
    } else {
      C = get(Cf.at(K), ScalarType::F32);
    }
    B.CreateStore(C, B.CreateConstInBoundsGEP1_32(B.getFloatTy(), CPtr, K));
  }
  B.CreateCall(L.rt(RtFn::wmma_mma), {Ctx, APtr, BPtr, CPtr, DPtr});
  for (unsigned K = 0; K < 8; ++K) {
    Value *V = B.CreateLoad(B.getFloatTy(), B.CreateConstInBoundsGEP1_32(B.getFloatTy(), DPtr, K));
    if (Ts[0] == ScalarType::F16) {
      if (K % 2 == 1)
        continue;
      Value *V1 = B.CreateLoad(B.getFloatTy(), B.CreateConstInBoundsGEP1_32(B.getFloatTy(), DPtr, K + 1));
      Value *H0 = B.CreateZExt(fromFloat(V, ScalarType::F16, 0), B.getInt32Ty());
      Value *H1 = B.CreateZExt(fromFloat(V1, ScalarType::F16, 0), B.getInt32Ty());
      set(D.at(K / 2), ScalarType::B32, B.CreateOr(H0, B.CreateShl(H1, 16)));
    } else {
      set(D.at(K), ScalarType::F32, V);
    }
  }
}

/// mma.sync.aligned.m16n8k16.row.col with .f16 or .bf16 inputs and .f16 or
/// .f32 accumulators. Unlike wmma, the fragment layout is architectural
/// (PTX ISA, "Matrix Fragments for mma.m16n8k16"), with g = laneid >> 2 and
/// t = laneid % 4:
///   A (16x16, 4 regs of 2 elements a0..a7): row g (+8 for a2,a3,a6,a7),
///     column 2t + (i & 1) (+8 for a4..a7);
///   B (16x8, 2 regs, b0..b3): row 2t + (i & 1) (+8 for b2,b3), column g;
///   C, D (16x8, c0..c3): row g (+8 for c2,c3), column 2t + (i & 1).
/// Each lane passes its elements in that order; the runtime gathers the warp.
/// ldmatrix.sync.aligned.m8n8{.x1,.x2,.x4}{.trans}.shared.b16: lanes 8i..8i+7
/// give the row addresses of matrix i; every lane receives, per matrix, the
/// pair at row laneid/4, columns 2*(laneid%4)+{0,1} (of the transpose with
/// .trans). A warp collective: the runtime reads the other lanes' addresses.
void FnLowering::lowerLdmatrix(const Instruction &In) {
  if (!In.has(".m8n8") || In.type() != ScalarType::B16)
    fail("ldmatrix: only .m8n8 with .b16 is supported");
  unsigned N = In.has(".x4") ? 4 : In.has(".x2") ? 2 : 1;
  std::vector<Operand> Dst = In.Ops[0].Kind == Operand::OK_Vector ? In.Ops[0].Elems : std::vector<Operand>{In.Ops[0]};
  if (Dst.size() != N)
    fail("ldmatrix: .x" + std::to_string(N) + " needs " + std::to_string(N) + " destination registers");
  Value *RowPtr = address(In.Ops[1], In.space());
  memcheck(In.Ops[1], RowPtr, 16, In.space(), MemcheckRead); // this lane's row of 8 b16
  Value *Addr = B.CreatePtrToInt(RowPtr, B.getInt64Ty());
  Value *Out = scratch(ArrayType::get(B.getInt32Ty(), 4));
  B.CreateCall(L.rt(RtFn::ldmatrix), {Ctx, Addr, B.getInt32(N), B.getInt32(In.has(".trans")), Out});
  for (unsigned K = 0; K < N; ++K)
    set(Dst[K], ScalarType::B32,
        B.CreateLoad(B.getInt32Ty(), B.CreateConstInBoundsGEP1_32(B.getInt32Ty(), Out, K)));
}

void FnLowering::lowerMma(const Instruction &In) {
  if (!In.has(".row") || !In.has(".col"))
    fail("mma needs .row.col");
  auto Ts = In.types(); // .dtype.atype.btype.ctype
  if (Ts.size() == 4 && Ts[1] == ScalarType::F16 && Ts[0] != Ts[3] && (In.has(".m16n8k8") || In.has(".m16n8k16")))
    invalid("mma with .f16 inputs and shape .m16n8k8/.m16n8k16 needs .dtype equal to .ctype");
  bool Classic = In.has(".m16n8k16") && Ts.size() == 4 && Ts[1] == Ts[2] &&
                 (Ts[1] == ScalarType::F16 || Ts[1] == ScalarType::BF16) &&
                 (Ts[0] == ScalarType::F16 || Ts[0] == ScalarType::F32) &&
                 (Ts[3] == ScalarType::F16 || Ts[3] == ScalarType::F32);
  if (!Classic)
    return lowerMmaGeneric(In);
  auto regs = [&](const Operand &O, size_t N) -> const std::vector<Operand> & {
    if (O.Kind != Operand::OK_Vector || O.Elems.size() != N)
      fail("mma: fragment must be a vector of " + std::to_string(N) + " registers");
    return O.Elems;
  };
  bool DHalf = Ts[0] == ScalarType::F16, CHalf = Ts[3] == ScalarType::F16;
  const auto &D = regs(In.Ops[0], DHalf ? 2 : 4), &A = regs(In.Ops[1], 4), &Bm = regs(In.Ops[2], 2),
             &Cf = regs(In.Ops[3], CHalf ? 2 : 4);
  Value *APtr = scratch(ArrayType::get(B.getInt16Ty(), 8));
  Value *BPtr = scratch(ArrayType::get(B.getInt16Ty(), 4));
  Value *CPtr = scratch(ArrayType::get(B.getFloatTy(), 4), 0);
  Value *DPtr = scratch(ArrayType::get(B.getFloatTy(), 4), 1);
  auto half = [&](const std::vector<Operand> &R, unsigned K) {
    Value *Pair = convertBits(get(R.at(K / 2), ScalarType::B32), B.getInt32Ty(), false);
    return B.CreateTrunc(B.CreateLShr(Pair, 16 * (K % 2)), B.getInt16Ty());
  };
  for (unsigned K = 0; K < 8; ++K)
    B.CreateStore(half(A, K), B.CreateConstInBoundsGEP1_32(B.getInt16Ty(), APtr, K));
  for (unsigned K = 0; K < 4; ++K) {
    B.CreateStore(half(Bm, K), B.CreateConstInBoundsGEP1_32(B.getInt16Ty(), BPtr, K));
    Value *C = CHalf ? toFloat(half(Cf, K), ScalarType::F16) : get(Cf.at(K), ScalarType::F32);
    B.CreateStore(C, B.CreateConstInBoundsGEP1_32(B.getFloatTy(), CPtr, K));
  }
  B.CreateCall(L.rt(RtFn::mma_m16n8k16),
               {Ctx, APtr, BPtr, CPtr, DPtr, B.getInt32(Ts[1] == ScalarType::BF16 ? 1 : 0)});
  auto out = [&](unsigned K) {
    return B.CreateLoad(B.getFloatTy(), B.CreateConstInBoundsGEP1_32(B.getFloatTy(), DPtr, K));
  };
  if (DHalf) {
    for (unsigned J = 0; J < 2; ++J) {
      Value *H0 = B.CreateZExt(fromFloat(out(2 * J), ScalarType::F16, 0), B.getInt32Ty());
      Value *H1 = B.CreateZExt(fromFloat(out(2 * J + 1), ScalarType::F16, 0), B.getInt32Ty());
      set(D[J], ScalarType::B32, B.CreateOr(H0, B.CreateShl(H1, 16)));
    }
  } else {
    for (unsigned K = 0; K < 4; ++K)
      set(D[K], ScalarType::F32, out(K));
  }
}

/// The other mma.sync shapes (m16n8k4/8/16/32/64/128/256, m8n8k4 f64,
/// m8n8k16/32/128): fragments go to the runtime as 64-bit words.
void FnLowering::lowerMmaGeneric(const Instruction &In) {
  // The four types in order; .b1 (single-bit inputs) is not a register type
  // and stays an ordinary modifier: it stands as None here.
  std::vector<ScalarType> Ts;
  for (const Modifier &Md : In.Mods) {
    if (Md.Kind == Modifier::MK_Type)
      Ts.push_back(Md.Type);
    else if (Md.Kind == Modifier::MK_Other && Md.Text == ".b1")
      Ts.push_back(ScalarType::None);
  }
  if (Ts.size() != 4)
    fail("mma needs .dtype.atype.btype.ctype");
  unsigned M = 0, N = 0, K = 0;
  for (const Modifier &Md : In.Mods)
    if (Md.Kind == Modifier::MK_Other && std::sscanf(Md.Text.c_str(), ".m%un%uk%u", &M, &N, &K) == 3)
      break;
  auto elem = [&](ScalarType T) -> int {
    switch (T) {
    case ScalarType::F16: return ME_F16;
    case ScalarType::BF16: return ME_BF16;
    case ScalarType::TF32: return ME_TF32;
    case ScalarType::F64: return ME_F64;
    case ScalarType::S8: return ME_S8;
    case ScalarType::U8: return ME_U8;
    case ScalarType::S4: return ME_S4;
    case ScalarType::U4: return ME_U4;
    case ScalarType::None: return ME_B1;
    case ScalarType::E4M3: return ME_E4M3;
    case ScalarType::E5M2: return ME_E5M2;
    default: return -1;
    }
  };
  auto acc = [&](ScalarType T) -> int {
    switch (T) {
    case ScalarType::F32: return MA_F32;
    case ScalarType::F16: return MA_F16;
    case ScalarType::S32: return MA_S32;
    case ScalarType::F64: return MA_F64;
    default: return -1;
    }
  };
  int EA = elem(Ts[1]), EB = elem(Ts[2]), AC = acc(Ts[3]), AD = acc(Ts[0]);
  // The m8n8k4 f16 shape (sm_70) uses quad-pair fragments; ptxas refuses f16 results from f32 accumulators.
  bool QuadPair = M == 8 && N == 8 && K == 4 && EA == ME_F16 && EB == ME_F16;
  if (QuadPair && AC == MA_F32 && AD == MA_F16)
    invalid("mma.m8n8k4: .dtype must be .f32 when .ctype is .f32");
  if (QuadPair && (AC != MA_F32 && AC != MA_F16))
    QuadPair = false;
  bool Layout = N == 8 && (M == 16 || QuadPair || (M == 8 && EA != ME_F16 && EA != ME_BF16));
  if (EA < 0 || EB < 0 || AC < 0 || AD < 0 || !Layout || !K || K > 256)
    fail("mma." + std::string("m") + std::to_string(M) + "n" + std::to_string(N) + "k" + std::to_string(K) +
         " with these types is not supported yet");
  MmaDesc Desc;
  Desc.A = uint32_t(EA);
  Desc.B = uint32_t(EB);
  Desc.C = uint32_t(AC);
  Desc.D = uint32_t(AD);
  Desc.M = M;
  Desc.K = K;
  Desc.Satfinite = In.has(".satfinite");
  Desc.XorPopc = In.has(".xor");
  Desc.QuadPair = QuadPair;
  auto regs = [&](const Operand &O, size_t Count) -> const std::vector<Operand> & {
    if (O.Kind != Operand::OK_Vector || O.Elems.size() != Count)
      invalid("mma: fragment must be a vector of " + std::to_string(Count) + " registers");
    return O.Elems;
  };
  const auto &D = regs(In.Ops[0], Desc.cRegs(Desc.D)), &A = regs(In.Ops[1], Desc.aRegs()),
             &Bm = regs(In.Ops[2], Desc.bRegs()), &Cf = regs(In.Ops[3], Desc.cRegs(Desc.C));
  unsigned Slot = 0;
  auto words = [&](const std::vector<Operand> &R, ScalarType T) {
    Value *Arr = scratch(ArrayType::get(B.getInt64Ty(), std::max<size_t>(R.size(), 1)), Slot++);
    for (size_t I = 0; I < R.size(); ++I) {
      ScalarType RT = T == ScalarType::F64 ? ScalarType::B64 : ScalarType::B32;
      Value *V = convertBits(get(R[I], RT), RT == ScalarType::B64 ? B.getInt64Ty() : B.getInt32Ty(), false);
      B.CreateStore(B.CreateZExt(V, B.getInt64Ty()), B.CreateConstInBoundsGEP1_32(B.getInt64Ty(), Arr, I));
    }
    return Arr;
  };
  Value *AP = words(A, Ts[1]), *BP = words(Bm, Ts[2]), *CP = words(Cf, Ts[3]);
  Value *DP = scratch(ArrayType::get(B.getInt64Ty(), 8), 3);
  B.CreateCall(L.rt(RtFn::mma_generic), {Ctx, B.getInt32(Desc.pack()), AP, BP, CP, DP});
  for (size_t I = 0; I < D.size(); ++I) {
    Value *W = B.CreateLoad(B.getInt64Ty(), B.CreateConstInBoundsGEP1_32(B.getInt64Ty(), DP, I));
    if (Ts[0] == ScalarType::F64)
      set(D[I], ScalarType::B64, W);
    else
      set(D[I], ScalarType::B32, B.CreateTrunc(W, B.getInt32Ty()));
  }
}

// --- dispatch -----------------------------------------------------------------------

/// The SIMD video instructions' element selector (vadd2's .hxy, vadd4's
/// .bxyzw): source element of each result element, from the 64-bit {b, a};
/// empty when \p Sel is not a selector of that width.
static std::vector<unsigned> simdSelect(const std::string &Sel, unsigned N, const char *Default) {
  std::string S = Sel.empty() ? Default : Sel;
  if (S.size() != N + 1 || S[0] != (N == 2 ? 'h' : 'b'))
    return {};
  std::vector<unsigned> Src(N);
  for (unsigned I = 0; I < N; ++I) {
    unsigned V = unsigned(S[N - I] - '0'); // the last digit picks element 0
    if (V >= 2 * N)
      return {};
    Src[I] = V;
  }
  return Src;
}

/// Video instructions (PTX ISA 9.7.16): scalar vadd/vsub/vabsdiff/vmin/vmax/
/// vshl/vshr/vmad/vset and the SIMD vop2/vop4 forms. Sources are selected
/// (byte, half or word) and sign- or zero-extended by their type, computed
/// exactly (i128 here), optionally clamped to the destination's range, then
/// combined with c (a secondary op, a merge into a part of c, or a sum).
void FnLowering::lowerVideo(const Instruction &In) {
  const std::string Name(spelling(In.Op));
  std::vector<ScalarType> Ts = In.types();
  for (ScalarType T : Ts)
    if (T != ScalarType::U32 && T != ScalarType::S32)
      invalid("'" + Name + "' takes only .u32 and .s32 types");
  Type *W = B.getIntNTy(128);
  auto raw = [&](const Operand &O) {
    Operand Plain = O;
    Plain.Sel.clear();
    Plain.Neg = false;
    return convertBits(get(Plain, ScalarType::U32), B.getInt32Ty(), false);
  };
  auto ext = [&](Value *V, bool Signed) { return Signed ? B.CreateSExt(V, W) : B.CreateZExt(V, W); };
  auto cst = [&](int64_t V) { return ConstantInt::get(W, static_cast<uint64_t>(V), true); };
  auto clampTo = [&](Value *V, bool Signed, unsigned Bits) {
    int64_t Lo = Signed ? -(int64_t(1) << (Bits - 1)) : 0;
    int64_t Hi = Signed ? (int64_t(1) << (Bits - 1)) - 1 : int64_t((uint64_t(1) << Bits) - 1);
    V = B.CreateSelect(B.CreateICmpSLT(V, cst(Lo)), cst(Lo), V);
    return B.CreateSelect(B.CreateICmpSGT(V, cst(Hi)), cst(Hi), V);
  };
  auto smin = [&](Value *A, Value *Bv) { return B.CreateSelect(B.CreateICmpSLT(A, Bv), A, Bv); };
  auto smax = [&](Value *A, Value *Bv) { return B.CreateSelect(B.CreateICmpSGT(A, Bv), A, Bv); };
  auto cmpOp = [&](Value *A, Value *Bv) -> Value * {
    static const std::pair<const char *, CmpInst::Predicate> Cmps[] = {
        {".eq", CmpInst::ICMP_EQ}, {".ne", CmpInst::ICMP_NE}, {".lt", CmpInst::ICMP_SLT},
        {".le", CmpInst::ICMP_SLE}, {".gt", CmpInst::ICMP_SGT}, {".ge", CmpInst::ICMP_SGE}};
    for (auto [Text, P] : Cmps)
      if (In.has(Text))
        return B.CreateZExt(B.CreateICmp(P, A, Bv), W);
    invalid("'" + Name + "' needs a comparison (.eq, .ne, .lt, .le, .gt, .ge)");
  };
  // The primary operation on extended values (the SIMD ops include vavrg).
  auto primary = [&](Opcode Op, Value *A, Value *Bv) -> Value * {
    switch (Op) {
    case Opcode::Vadd: case Opcode::Vadd2: case Opcode::Vadd4:
      return B.CreateAdd(A, Bv);
    case Opcode::Vsub: case Opcode::Vsub2: case Opcode::Vsub4:
      return B.CreateSub(A, Bv);
    case Opcode::Vabsdiff: case Opcode::Vabsdiff2: case Opcode::Vabsdiff4: {
      Value *D = B.CreateSub(A, Bv);
      return B.CreateSelect(B.CreateICmpSLT(D, cst(0)), B.CreateNeg(D), D);
    }
    case Opcode::Vmin: case Opcode::Vmin2: case Opcode::Vmin4:
      return smin(A, Bv);
    case Opcode::Vmax: case Opcode::Vmax2: case Opcode::Vmax4:
      return smax(A, Bv);
    case Opcode::Vavrg2: case Opcode::Vavrg4: {
      Value *S = B.CreateAdd(A, Bv);
      Value *Up = B.CreateSelect(B.CreateICmpSGE(S, cst(0)), cst(1), cst(0));
      return B.CreateAShr(B.CreateAdd(S, Up), 1);
    }
    default:
      return cmpOp(A, Bv); // vset2/vset4
    }
  };
  const Operand &D = In.Ops[0];
  Operand DOut = D; // the register written; D.Sel is the merge selector or mask
  DOut.Sel.clear();
  bool Sat = In.has(".sat");
  // vset* has no destination type: .atype.btype; the others .dtype.atype.btype.
  bool IsSet = In.Op == Opcode::Vset || In.Op == Opcode::Vset2 || In.Op == Opcode::Vset4;
  size_t NT = IsSet ? 2 : 3;
  if (Ts.size() != NT)
    invalid("'" + Name + "' needs " + (IsSet ? "two types (.atype.btype)" : "three types (.dtype.atype.btype)"));
  bool DSigned = !IsSet && isSignedType(Ts[0]);

  bool Simd2 = In.Op >= Opcode::Vadd2 && In.Op <= Opcode::Vset2;
  bool Simd4 = In.Op >= Opcode::Vadd4 && In.Op <= Opcode::Vset4;
  if (Simd2 || Simd4) {
    if (In.Ops.size() != 4)
      invalid("'" + Name + "' takes four operands: d, a, b, c");
    bool ASigned = isSignedType(Ts[NT - 2]), BSigned = isSignedType(Ts[NT - 1]);
    unsigned N = Simd2 ? 2 : 4, EW = 32 / N;
    bool Acc = In.has(".add");
    if (Acc && Sat)
      invalid("'" + Name + "': .sat cannot be used with the .add accumulate");
    std::vector<unsigned> ASel = simdSelect(In.Ops[1].Sel, N, Simd2 ? "h10" : "b3210");
    std::vector<unsigned> BSel = simdSelect(In.Ops[2].Sel, N, Simd2 ? "h32" : "b7654");
    if (ASel.empty() || BSel.empty())
      invalid("'" + Name + "': bad source selector (" + (Simd2 ? ".hxy, x and y in 0-3" : ".bxyzw, each in 0-7") + ")");
    // The mask: which result elements are written (or summed); default all.
    unsigned Mask = 0;
    if (D.Sel.empty()) {
      Mask = (1u << N) - 1;
    } else {
      if (D.Sel[0] != (Simd2 ? 'h' : 'b'))
        invalid("'" + Name + "': bad destination mask ." + D.Sel);
      for (char Ch : D.Sel.substr(1)) {
        unsigned E = unsigned(Ch - '0');
        if (E >= N || (Mask >> E) & 1)
          invalid("'" + Name + "': bad destination mask ." + D.Sel);
        Mask |= 1u << E;
      }
    }
    Value *Pair = B.CreateOr(B.CreateZExt(raw(In.Ops[1]), B.getInt64Ty()),
                             B.CreateShl(B.CreateZExt(raw(In.Ops[2]), B.getInt64Ty()), 32));
    auto element = [&](unsigned Index, bool Signed) { // element Index of {b, a}
      return ext(B.CreateTrunc(B.CreateLShr(Pair, EW * Index), B.getIntNTy(EW)), Signed);
    };
    Value *Cv = raw(In.Ops[3]);
    Value *Out = B.CreateZExt(Cv, W);
    Value *Sum = ext(Cv, false);
    unsigned EMask = (1u << EW) - 1;
    for (unsigned I = 0; I < N; ++I) {
      Value *Va = element(ASel[I], ASigned), *Vb = element(BSel[I], BSigned);
      Value *T = primary(In.Op, Va, Vb);
      if (Sat)
        T = clampTo(T, DSigned, EW);
      if (!((Mask >> I) & 1))
        continue;
      if (Acc) {
        Sum = B.CreateAdd(Sum, T);
      } else {
        Value *Field = B.CreateShl(B.CreateAnd(T, cst(EMask)), EW * I);
        Out = B.CreateOr(B.CreateAnd(Out, cst(~(int64_t(EMask) << (EW * I)))), Field);
      }
    }
    set(DOut, ScalarType::U32, B.CreateTrunc(Acc ? Sum : Out, B.getInt32Ty()));
    return;
  }

  // Scalar forms: a byte (.b0-.b3), a half (.h0, .h1) or the whole word of
  // each source, and of d where c is merged.
  auto part = [&](const std::string &S, unsigned &Bits, unsigned &Pos) {
    Bits = 32;
    Pos = 0;
    if (S.empty())
      return;
    unsigned Max = S[0] == 'b' ? 3 : 1;
    if (S.size() != 2 || unsigned(S[1] - '0') > Max)
      invalid("'" + Name + "': bad selector ." + S + " (.b0-.b3, .h0, .h1)");
    Bits = S[0] == 'b' ? 8 : 16;
    Pos = Bits * unsigned(S[1] - '0');
  };
  auto select = [&](const Operand &O, bool Signed) -> Value * {
    unsigned Bits, Pos;
    part(O.Sel, Bits, Pos);
    return ext(B.CreateTrunc(B.CreateLShr(raw(O), Pos), B.getIntNTy(Bits)), Signed);
  };
  if (In.Op == Opcode::Vmad) {
    if (In.Ops.size() != 4 || !D.Sel.empty() || !In.Ops[3].Sel.empty() || D.Neg)
      invalid("'vmad' takes d, {-}a{.asel}, {-}b{.bsel}, {-}c");
    bool NegA = In.Ops[1].Neg, NegB = In.Ops[2].Neg, NegC = In.Ops[3].Neg, Po = In.has(".po");
    if (Po && (NegA || NegB || NegC))
      invalid("'vmad.po' does not take negated operands");
    if ((NegA || NegB) && NegC)
      invalid("'vmad': negate either the product (a or b) or c, not both");
    bool NegP = NegA != NegB;
    bool SignedFinal = isSignedType(Ts[1]) || isSignedType(Ts[2]) || NegP || NegC;
    // As NVIDIA's hardware does it (tests/golden/data/video.golden): a whole
    // 32-bit a or b is taken as signed whatever its type, and when both are
    // whole, so is c; selected bytes and halves follow their types.
    bool WholeA = In.Ops[1].Sel.empty(), WholeB = In.Ops[2].Sel.empty();
    Value *Ta = select(In.Ops[1], WholeA || isSignedType(Ts[1]));
    Value *Tb = select(In.Ops[2], WholeB || isSignedType(Ts[2]));
    Value *Tmp = B.CreateMul(Ta, Tb);
    Value *C32 = raw(In.Ops[3]);
    int64_t Lsb = 0;
    if (Po) {
      Lsb = 1;
    } else if (NegP) {
      Tmp = B.CreateNot(Tmp);
      Lsb = 1;
    } else if (NegC) {
      C32 = B.CreateNot(C32);
      Lsb = 1;
    }
    Tmp = B.CreateAdd(B.CreateAdd(Tmp, ext(C32, SignedFinal || (WholeA && WholeB))), cst(Lsb));
    if (!SignedFinal) // an unsigned 64-bit intermediate
      Tmp = B.CreateZExt(B.CreateTrunc(Tmp, B.getInt64Ty()), W);
    if (In.has(".shr7"))
      Tmp = B.CreateAShr(Tmp, 7);
    else if (In.has(".shr15"))
      Tmp = B.CreateAShr(Tmp, 15);
    Tmp = B.CreateSExt(B.CreateTrunc(Tmp, B.getInt64Ty()), W); // the 64-bit result, clamped as signed
    if (Sat)
      Tmp = clampTo(Tmp, SignedFinal, 32);
    set(DOut, ScalarType::U32, B.CreateTrunc(Tmp, B.getInt32Ty()));
    return;
  }
  bool IsShift = In.Op == Opcode::Vshl || In.Op == Opcode::Vshr;
  if (IsShift && Ts[2] != ScalarType::U32)
    invalid("'" + Name + "': the shift amount's type must be .u32");
  if (IsSet && Sat)
    invalid("'vset' does not take .sat");
  Value *Ta = select(In.Ops[1], isSignedType(Ts[NT - 2])), *Tb = select(In.Ops[2], isSignedType(Ts[NT - 1]));
  Value *Tmp;
  if (IsShift) {
    bool Clamp = In.has(".clamp"), Wrap = In.has(".wrap");
    if (Clamp == Wrap)
      invalid("'" + Name + "' needs one of .clamp and .wrap");
    Tb = Wrap ? B.CreateAnd(Tb, cst(31)) : B.CreateSelect(B.CreateICmpUGT(Tb, cst(32)), cst(32), Tb);
    Tmp = In.Op == Opcode::Vshl ? B.CreateShl(Ta, Tb) : B.CreateAShr(Ta, Tb);
  } else if (IsSet) {
    Tmp = cmpOp(Ta, Tb);
  } else {
    Tmp = primary(In.Op, Ta, Tb);
  }
  const std::string &DSel = D.Sel;
  unsigned DBits, DPos;
  part(DSel, DBits, DPos);
  // Saturation and the secondary operation as NVIDIA's hardware does them
  // (tests/golden/data/video.golden), which is not the ISA's pseudocode:
  // shifts keep a 34-bit intermediate and clamp it to the destination type's
  // whole range even when a part of d is written; the other operations clamp
  // a merged part as an unsigned 64-bit value (negative values give the
  // part's maximum), and a whole u32 result only from below.
  if (Sat) {
    if (IsShift) {
      Tmp = B.CreateSExt(B.CreateTrunc(Tmp, B.getIntNTy(34)), W);
      Tmp = clampTo(Tmp, DSigned, 32);
    } else if (!DSel.empty()) {
      Value *U = B.CreateZExt(B.CreateTrunc(Tmp, B.getInt64Ty()), W);
      Value *Max = cst(DSigned ? (int64_t(1) << (DBits - 1)) - 1 : (int64_t(1) << DBits) - 1);
      Tmp = B.CreateSelect(B.CreateICmpUGT(U, Max), Max, U);
    } else if (DSigned) {
      Tmp = clampTo(Tmp, true, 32);
    } else {
      Tmp = smax(Tmp, cst(0));
    }
  }
  const char *Op2 = In.has(".add") ? ".add" : In.has(".min") ? ".min" : In.has(".max") ? ".max" : nullptr;
  if (Op2 && !DSel.empty())
    invalid("'" + Name + "': a secondary operation and a destination selector cannot be combined");
  if ((Op2 || !DSel.empty()) != (In.Ops.size() == 4))
    invalid("'" + Name + "' takes a c operand exactly when it has a secondary operation or a destination selector");
  Value *Res = Tmp;
  if (Op2) {
    // min/max compare the exact result with c (signed for an s32 result;
    // vset: c has a's type). vadd/vsub first wrap theirs to a signed 32-bit
    // value; with a u32 result that is compared unsigned as a 64-bit value
    // (so a sum with bit 31 set is above every c).
    bool CSigned = IsSet ? isSignedType(Ts[0]) : DSigned;
    Value *Cv = ext(raw(In.Ops[3]), CSigned);
    Value *A = Tmp;
    bool Wrapped = !IsSet && (In.Op == Opcode::Vadd || In.Op == Opcode::Vsub);
    if (Wrapped)
      A = B.CreateSExt(B.CreateTrunc(Tmp, B.getInt32Ty()), W);
    bool IsMin = Op2[2] == 'i';
    if (Op2[1] == 'a')
      Res = B.CreateAdd(Tmp, Cv);
    else if (Wrapped && !DSigned)
      Res = B.CreateSelect(IsMin ? B.CreateICmpULT(A, Cv) : B.CreateICmpUGT(A, Cv), A, Cv);
    else
      Res = IsMin ? smin(A, Cv) : smax(A, Cv);
  } else if (!DSel.empty()) {
    int64_t FieldMask = ((int64_t(1) << DBits) - 1) << DPos;
    Value *Cv = B.CreateZExt(raw(In.Ops[3]), W);
    // .h1 takes the upper half of the result in place (not its lower half shifted up).
    Value *Field = DSel == "h1" ? Tmp : B.CreateShl(Tmp, DPos);
    Res = B.CreateOr(B.CreateAnd(Cv, cst(~FieldMask)), B.CreateAnd(Field, cst(FieldMask)));
  }
  set(DOut, ScalarType::U32, B.CreateTrunc(Res, B.getInt32Ty()));
}

/// movmatrix.sync.aligned.m8n8.trans.b16 and stmatrix.sync.aligned.m8n8: the
/// 8x8 b16 fragment of ldmatrix (lane L holds row L/4, columns 2(L%4) and
/// 2(L%4)+1), moved between lanes with shfl.sync.idx, so every target that
/// has shuffles has these.
void FnLowering::lowerMatrixMove(const Instruction &In) {
  const char *Name = In.Op == Opcode::Movmatrix ? "movmatrix" : "stmatrix";
  if (!In.has(".m8n8") || In.type() != ScalarType::B16)
    invalid(std::string(Name) + ": only .m8n8 with .b16 exists");
  Value *PredPtr = scratch(B.getInt32Ty());
  Value *Lane = B.CreateCall(L.rt(RtFn::sreg_laneid), {Ctx});
  auto shflIdx = [&](Value *V, Value *Src) {
    return B.CreateCall(L.rt(RtFn::shfl),
                        {Ctx, B.getInt32(3), V, Src, B.getInt32(0x1f), B.getInt32(-1), PredPtr});
  };
  // Half \p Which (0 or 1, a value) of a 32-bit register.
  auto half = [&](Value *V, Value *Which) {
    return B.CreateAnd(B.CreateLShr(V, B.CreateShl(Which, 4)), B.getInt32(0xffff));
  };
  Value *R = B.CreateLShr(Lane, 2), *C0 = B.CreateShl(B.CreateAnd(Lane, 3), 1);
  if (In.Op == Opcode::Movmatrix) {
    if (!In.has(".trans"))
      invalid("movmatrix: only .trans exists");
    Value *A = convertBits(get(In.Ops[1], ScalarType::B32), B.getInt32Ty(), false);
    // d holds T[r][c0], T[r][c0+1] = M[c0][r], M[c0+1][r]; M[i][j] is in lane 4i + j/2, half j%2.
    Value *Col = B.CreateLShr(R, 1), *Which = B.CreateAnd(R, 1);
    Value *Lo = half(shflIdx(A, B.CreateAdd(B.CreateShl(C0, 2), Col)), Which);
    Value *Hi = half(shflIdx(A, B.CreateAdd(B.CreateShl(B.CreateAdd(C0, B.getInt32(1)), 2), Col)), Which);
    set(In.Ops[0], ScalarType::B32, B.CreateOr(Lo, B.CreateShl(Hi, 16)));
    return;
  }
  unsigned N = In.has(".x4") ? 4 : In.has(".x2") ? 2 : 1;
  std::vector<Operand> Src = In.Ops[1].Kind == Operand::OK_Vector ? In.Ops[1].Elems : std::vector<Operand>{In.Ops[1]};
  if (Src.size() != N)
    invalid("stmatrix: .x" + std::to_string(N) + " needs " + std::to_string(N) + " source registers");
  bool Trans = In.has(".trans");
  // Lane L gives the address of row L%8 of matrix L/8 and stores that row's 16 bytes.
  Value *Row = B.CreateAnd(Lane, 7), *Mine = B.CreateLShr(Lane, 3);
  Value *Words[4] = {B.getInt32(0), B.getInt32(0), B.getInt32(0), B.getInt32(0)};
  for (unsigned M = 0; M < N; ++M) {
    Value *V = convertBits(get(Src[M], ScalarType::B32), B.getInt32Ty(), false);
    Value *IsMine = B.CreateICmpEQ(Mine, B.getInt32(M));
    for (unsigned J = 0; J < 4; ++J) {
      Value *W;
      if (!Trans) { // row r of M: lanes 4r..4r+3
        W = shflIdx(V, B.CreateAdd(B.CreateShl(Row, 2), B.getInt32(J)));
      } else { // row r of the transpose: M[2j][r], M[2j+1][r]
        Value *Col = B.CreateLShr(Row, 1), *Which = B.CreateAnd(Row, 1);
        Value *Lo = half(shflIdx(V, B.CreateAdd(B.getInt32(8 * J), Col)), Which);
        Value *Hi = half(shflIdx(V, B.CreateAdd(B.getInt32(8 * J + 4), Col)), Which);
        W = B.CreateOr(Lo, B.CreateShl(Hi, 16));
      }
      Words[J] = B.CreateSelect(IsMine, W, Words[J]);
    }
  }
  Value *Ptr = address(In.Ops[0], In.space());
  BasicBlock *Store = BasicBlock::Create(C, "stmatrix.store", F), *Done = BasicBlock::Create(C, "stmatrix.done", F);
  B.CreateCondBr(B.CreateICmpULT(Mine, B.getInt32(N)), Store, Done);
  B.SetInsertPoint(Store);
  memcheck(In.Ops[0], Ptr, 16, In.space(), MemcheckWrite);
  for (unsigned J = 0; J < 4; ++J)
    B.CreateAlignedStore(Words[J], B.CreateGEP(B.getInt8Ty(), Ptr, B.getInt64(4 * J)), Align(4));
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
}

void FnLowering::lowerInstruction(const Instruction &In) {
  ScalarType T = In.type();
  bool Float = isFloatType(T) || T == ScalarType::F16x2 || T == ScalarType::BF16x2;
  switch (In.Op) {
  case Opcode::Mov:
    return lowerMov(In);
  case Opcode::Ld:
  case Opcode::Ldu:
    return lowerLoad(In);
  case Opcode::St:
    return lowerStore(In);
  case Opcode::Add:
  case Opcode::Sub:
  case Opcode::Mul:
  case Opcode::Mad:
  case Opcode::Min:
  case Opcode::Max:
  case Opcode::Abs:
  case Opcode::Neg:
  case Opcode::Div:
    return Float ? lowerFloatArith(In) : lowerIntArith(In);
  case Opcode::Addc:
  case Opcode::Subc:
  case Opcode::Madc:
  case Opcode::Mul24:
  case Opcode::Mad24:
  case Opcode::Rem:
  case Opcode::Sad:
    return lowerIntArith(In);
  case Opcode::Fma:
  case Opcode::Rcp:
  case Opcode::Sqrt:
  case Opcode::Rsqrt:
  case Opcode::Sin:
  case Opcode::Cos:
  case Opcode::Lg2:
  case Opcode::Ex2:
  case Opcode::Tanh:
  case Opcode::Copysign:
  case Opcode::Testp:
    return lowerFloatArith(In);
  case Opcode::Setp:
  case Opcode::Set:
  case Opcode::Selp:
  case Opcode::Slct:
    return lowerCompare(In);
  case Opcode::Cvt:
  case Opcode::Cvta:
  case Opcode::Isspacep:
    return lowerCvt(In);
  case Opcode::And:
  case Opcode::Or:
  case Opcode::Xor:
  case Opcode::Not:
  case Opcode::Cnot:
  case Opcode::Shl:
  case Opcode::Shr:
  case Opcode::Shf:
  case Opcode::Popc:
  case Opcode::Clz:
  case Opcode::Brev:
  case Opcode::Bfind:
  case Opcode::Bfe:
  case Opcode::Bfi:
  case Opcode::Prmt:
  case Opcode::Lop3:
  case Opcode::Bmsk:
  case Opcode::Szext:
  case Opcode::Dp4a:
  case Opcode::Dp2a:
    return lowerBits(In);
  case Opcode::Atom:
  case Opcode::Red:
    return lowerAtomic(In);
  case Opcode::Bar:
  case Opcode::Barrier:
    return lowerBarrier(In);
  case Opcode::Shfl:
  case Opcode::Vote:
  case Opcode::Match:
  case Opcode::Redux:
  case Opcode::Activemask:
  case Opcode::Elect:
    return lowerWarp(In);
  case Opcode::Tex:
    return lowerTex(In);
  case Opcode::Tld4:
    return lowerTld4(In);
  case Opcode::Txq:
  case Opcode::Suq:
    return lowerTexQuery(In);
  case Opcode::Suld:
  case Opcode::Sust:
    return lowerSurface(In);
  case Opcode::Cp:
    return lowerCpAsync(In);
  case Opcode::Mbarrier:
    return lowerMbarrier(In);
  case Opcode::Fns:
    set(In.Ops[0], ScalarType::U32,
        B.CreateCall(L.rt(RtFn::fns), {Ctx, get(In.Ops.at(1), ScalarType::B32), get(In.Ops.at(2), ScalarType::B32),
                                       get(In.Ops.at(3), ScalarType::B32)}));
    return;
  case Opcode::Alloca: {
    // alloca.{u32,u64} ptr, size{, align}: local memory until the function
    // returns or a stackrestore; local addresses are flat ones here.
    ScalarType T = typeOf(In);
    Value *Size = convertBits(get(In.Ops.at(1), T), B.getInt64Ty(), false);
    uint64_t AlignBytes = 8;
    if (In.Ops.size() > 2) {
      if (In.Ops[2].Kind != Operand::OK_Int || In.Ops[2].Int <= 0 || (In.Ops[2].Int & (In.Ops[2].Int - 1)))
        invalid("alloca's alignment must be an immediate power of two");
      AlignBytes = std::max<uint64_t>(8, static_cast<uint64_t>(In.Ops[2].Int));
    }
    AllocaInst *A = B.CreateAlloca(B.getInt8Ty(), Size);
    A->setAlignment(Align(AlignBytes));
    set(In.Ops[0], T, convertBits(B.CreatePtrToInt(A, B.getInt64Ty()), valueType(T), false));
    return;
  }
  case Opcode::Stacksave: {
    ScalarType T = typeOf(In);
    Value *P = B.CreateCall(Intrinsic::getDeclaration(F->getParent(), Intrinsic::stacksave));
    set(In.Ops.at(0), T, convertBits(B.CreatePtrToInt(P, B.getInt64Ty()), valueType(T), false));
    return;
  }
  case Opcode::Stackrestore: {
    Value *V = convertBits(get(In.Ops.at(0), typeOf(In)), B.getInt64Ty(), false);
    B.CreateCall(Intrinsic::getDeclaration(F->getParent(), Intrinsic::stackrestore), {B.CreateIntToPtr(V, B.getPtrTy())});
    return;
  }
  case Opcode::Wmma:
    return lowerWmma(In);
  case Opcode::Mma:
    return lowerMma(In);
  case Opcode::Ldmatrix:
    return lowerLdmatrix(In);
  case Opcode::Movmatrix:
  case Opcode::Stmatrix:
    return lowerMatrixMove(In);
  case Opcode::Vadd: case Opcode::Vsub: case Opcode::Vabsdiff: case Opcode::Vmin: case Opcode::Vmax:
  case Opcode::Vshl: case Opcode::Vshr: case Opcode::Vmad: case Opcode::Vset:
  case Opcode::Vadd2: case Opcode::Vsub2: case Opcode::Vavrg2: case Opcode::Vabsdiff2: case Opcode::Vmin2:
  case Opcode::Vmax2: case Opcode::Vset2:
  case Opcode::Vadd4: case Opcode::Vsub4: case Opcode::Vavrg4: case Opcode::Vabsdiff4: case Opcode::Vmin4:
  case Opcode::Vmax4: case Opcode::Vset4:
    return lowerVideo(In);
  case Opcode::Bra: {
    const Operand &Target = In.Ops[0];
    if (Target.Kind != Operand::OK_Name)
      fail("bra needs a label");
    B.CreateBr(label(Target.Name));
    return;
  }
  case Opcode::Brx: {
    auto It = BranchTargets.find(In.Ops[1].Name);
    if (It == BranchTargets.end())
      fail("brx.idx needs a .branchtargets list");
    Value *Idx = convertBits(get(In.Ops[0], ScalarType::U32), B.getInt32Ty(), false);
    BasicBlock *Default = BasicBlock::Create(C, "brx.oob", F);
    auto *Sw = B.CreateSwitch(Idx, Default, It->second->size());
    for (size_t I = 0; I < It->second->size(); ++I)
      Sw->addCase(B.getInt32(I), label((*It->second)[I]));
    B.SetInsertPoint(Default);
    B.CreateCall(L.rt(RtFn::trap), {Ctx});
    B.CreateUnreachable();
    return;
  }
  case Opcode::Call:
    return lowerCall(In);
  case Opcode::Ret:
    emitReturn();
    return;
  case Opcode::Exit:
    if (PF.IsEntry) {
      B.CreateRetVoid();
    } else {
      B.CreateCall(L.rt(RtFn::exit), {Ctx});
      B.CreateUnreachable();
    }
    return;
  case Opcode::Trap:
    B.CreateCall(L.rt(RtFn::trap), {Ctx});
    B.CreateUnreachable();
    return;
  case Opcode::Membar:
  case Opcode::Fence:
    if (!In.has(".proxy") && !In.has(".proxy::async"))
      B.CreateFence(AtomicOrdering::SequentiallyConsistent);
    return;
  case Opcode::Nanosleep:
    B.CreateCall(L.rt(RtFn::nanosleep), {Ctx, get(In.Ops[0], ScalarType::U32)});
    return;
  case Opcode::Brkpt:
  case Opcode::Pmevent:
  case Opcode::Prefetch:
  case Opcode::Prefetchu:
  case Opcode::Applypriority:
  case Opcode::Discard:
  case Opcode::Griddepcontrol:
  case Opcode::Setmaxnreg:
    return;
  case Opcode::Createpolicy:
    set(In.Ops[0], ScalarType::B64, B.getInt64(0));
    return;
  case Opcode::Getctarank:
    set(In.Ops[0], ScalarType::U32, B.getInt32(0));
    return;
  case Opcode::Mapa:
    set(In.Ops[0], T, get(In.Ops[1], T));
    return;
  default:
    fail("instruction '" + std::string(spelling(In.Op)) + "' is not supported by the ZLUDA compiler yet");
  }
}

} // namespace zluda::ptx
