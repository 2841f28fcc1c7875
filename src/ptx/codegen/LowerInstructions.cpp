//===- LowerInstructions.cpp - PTX instruction semantics in LLVM IR --------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file One lowering per instruction family, following PTX ISA 9.0 chapter 9
/// (https://docs.nvidia.com/cuda/parallel-thread-execution/#instructions):
/// here the float helpers, mov, ld/st and the dispatch (lowerInstruction);
/// LowerArith.cpp (integer, float, comparisons), LowerConvert.cpp (cvt, bit
/// operations), LowerMemoryOps.cpp (atomics, barriers, warps, textures,
/// mbarrier, cp.async), LowerMatrix.cpp (wmma, ldmatrix, mma, movmatrix) and
/// LowerVideo.cpp the families.
#include "ptx/codegen/LowerImpl.h"
#include "ptx/codegen/TextureSampling.h"
#include "ptx/codegen/WarpSemantics.h"

#include <algorithm>
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

// cvt's and fma's .relu alike (the H100 gives +0 for -0: tests/sass/difffuzz).
Value *FnLowering::reluFloat(Value *V) {
  Type *T = V->getType();
  return B.CreateSelect(B.CreateFCmpOLE(V, ConstantFP::get(T, 0.0)), ConstantFP::get(T, 0.0), V);
}

Value *FnLowering::saturateFloat(Value *V) {
  Type *T = V->getType();
  Value *Lo = reluFloat(V); // -0 too
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

/// Whether a vector ld/st of \p N elements of \p Size bytes is made as one
/// access: the vectors PTX allows (2 or 4 elements, 8 of 32 bits), whose
/// address PTX requires aligned to their whole size.
static bool wholeVectorAccess(unsigned N, uint64_t Size) {
  return N > 1 && (N & (N - 1)) == 0 && Size * N <= 32;
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
  if (Volatile && wholeVectorAccess(N, Size)) {
    // One access for the whole vector, as the hardware makes it: CUB's
    // decoupled look-back publishes a tile's status and value in one 16-byte
    // st.relaxed.v2.u64, and a reader of the two halves apart could see the
    // new status with the old value.
    LoadInst *LI = B.CreateAlignedLoad(FixedVectorType::get(MT, N), Ptr, Align(Size * N), true);
    for (unsigned I = 0; I < N; ++I)
      set(D.Elems[I], T, B.CreateExtractElement(LI, I));
  } else {
    for (unsigned I = 0; I < N; ++I) {
      Value *P = I ? B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Ptr, I * Size) : Ptr;
      LoadInst *LI = B.CreateAlignedLoad(MT, P, Align(Size), Volatile);
      const Operand &Dst = N > 1 ? D.Elems[I] : D;
      set(Dst, T, LI);
    }
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
  auto valueOf = [&](const Operand &Src) -> Value * {
    const Sym *R = Src.Kind == Operand::OK_Name && !Src.Component ? lookup(Src.Name) : nullptr;
    if (T == ScalarType::F32 && R && R->Kind == Sym::SK_Reg && R->Ty->isIntegerTy(64))
      // An .f32 store of a 64-bit integer register stores its value converted
      // (cvt.rn.f32.u64), not its low bits: recorded on an H200 (implicit.golden).
      return B.CreateUIToFP(get(Src, ScalarType::U64), B.getFloatTy());
    return convertBits(get(Src, T), MT, false);
  };
  bool Sinks = N > 1 && std::any_of(S.Elems.begin(), S.Elems.end(),
                                    [](const Operand &E) { return E.Kind == Operand::OK_Sink; });
  if (Volatile && !Sinks && wholeVectorAccess(N, Size)) {
    // One access for the whole vector (see lowerLoad).
    Value *Vec = PoisonValue::get(FixedVectorType::get(MT, N));
    for (unsigned I = 0; I < N; ++I)
      Vec = B.CreateInsertElement(Vec, valueOf(S.Elems[I]), I);
    B.CreateAlignedStore(Vec, Ptr, Align(Size * N), true);
    return;
  }
  for (unsigned I = 0; I < N; ++I) {
    Value *P = I ? B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Ptr, I * Size) : Ptr;
    const Operand &Src = N > 1 ? S.Elems[I] : S;
    if (Src.Kind == Operand::OK_Sink)
      continue;
    B.CreateAlignedStore(valueOf(Src), P, Align(Size), Volatile);
  }
}

// --- dispatch -----------------------------------------------------------------------

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
    return In.has(".async") ? lowerAsyncStore(In) : lowerStore(In);
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
    return In.has(".async") ? lowerAsyncStore(In) : lowerAtomic(In);
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
  case Opcode::Istypep:
    return lowerIstypep(In);
  case Opcode::Suld:
  case Opcode::Sust:
    return lowerSurface(In);
  case Opcode::Cp:
    return lowerCpAsync(In);
  case Opcode::Mbarrier:
    return lowerMbarrier(In);
  case Opcode::Tensormap:
    return lowerTensormap(In);
  case Opcode::Wgmma:
    return lowerWgmma(In);
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
  case Opcode::Getctarank: {
    // .shared::cluster addresses carry rank + 1 in bits 24-31 once mapa made
    // them (0: this block's own); generic ones are found among the windows.
    if (In.space() == StateSpace::SharedCluster) {
      Value *A = B.CreateZExtOrTrunc(get(In.Ops.at(1), ScalarType::B32), B.getInt32Ty());
      Value *R = B.CreateAnd(B.CreateLShr(A, 24), B.getInt32(0xff));
      Value *Own = B.CreateCall(L.rt(RtFn::sreg_cluster), {Ctx, B.getInt32(CrCtaRank)});
      set(In.Ops[0], ScalarType::U32, B.CreateSelect(B.CreateICmpEQ(R, B.getInt32(0)), Own, B.CreateSub(R, B.getInt32(1))));
    } else {
      Value *P = B.CreateIntToPtr(get(In.Ops.at(1), ScalarType::U64), B.getPtrTy());
      set(In.Ops[0], ScalarType::U32, B.CreateCall(L.rt(RtFn::cluster_rank_of), {Ctx, P}));
    }
    return;
  }
  case Opcode::Mapa: {
    Value *Rank = get(In.Ops.at(2), ScalarType::U32);
    if (In.space() == StateSpace::SharedCluster) {
      Value *A = B.CreateZExtOrTrunc(get(In.Ops.at(1), ScalarType::B32), B.getInt32Ty());
      Value *R = B.CreateOr(B.CreateAnd(A, B.getInt32(0xffffff)), B.CreateShl(B.CreateAdd(Rank, B.getInt32(1)), 24));
      set(In.Ops[0], T, convertBits(R, valueType(T), false));
    } else {
      Value *P = B.CreateIntToPtr(get(In.Ops.at(1), ScalarType::U64), B.getPtrTy());
      Value *Q = B.CreateCall(L.rt(RtFn::cluster_map), {Ctx, P, Rank});
      set(In.Ops[0], T, convertBits(B.CreatePtrToInt(Q, B.getInt64Ty()), valueType(T), false));
    }
    return;
  }
  default:
    fail("instruction '" + std::string(spelling(In.Op)) + "' is not supported by the ZLUDA compiler yet");
  }
}

} // namespace zluda::ptx
