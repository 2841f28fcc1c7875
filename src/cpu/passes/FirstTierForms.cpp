//===- FirstTierForms.cpp - the first tier's quick-to-generate forms ------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file FirstTierForms (Passes.h).
#include "cpu/passes/Passes.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/Local.h>

using namespace llvm;

namespace zluda::cpu::passes {

namespace {

enum Helper { Ftz, Canon, FtzCanon };

Function *helper(Module &M, Helper H) {
  static const char *Names[] = {"__zluda_o0_ftz_f32", "__zluda_o0_canon_f32", "__zluda_o0_ftz_canon_f32"};
  if (Function *F = M.getFunction(Names[H]))
    return F;
  LLVMContext &C = M.getContext();
  Type *Fl = Type::getFloatTy(C), *I32 = Type::getInt32Ty(C);
  Function *F = Function::Create(FunctionType::get(Fl, {Fl}, false), GlobalValue::InternalLinkage, Names[H], M);
  F->addFnAttr(Attribute::NoUnwind);
  F->addFnAttr(Attribute::ReadNone);
  IRBuilder<> B(BasicBlock::Create(C, "entry", F));
  Value *X = F->getArg(0);
  if (H != Canon) {
    Value *Bits = B.CreateBitCast(X, I32);
    Value *Small = B.CreateICmpULT(B.CreateAnd(Bits, 0x7FFFFFFF), B.getInt32(0x00800000));
    X = B.CreateBitCast(B.CreateSelect(Small, B.CreateAnd(Bits, 0x80000000), Bits), Fl);
  }
  if (H != Ftz)
    X = B.CreateSelect(B.CreateFCmpUNO(X, X), B.CreateBitCast(B.getInt32(0x7FFFFFFF), Fl), X);
  B.CreateRet(X);
  return F;
}

/// \p V is a flush of an f32 value below the smallest normal f32.
bool f32Flush(Value *V, Value *&X) {
  double Min;
  return V->getType()->isFloatTy() && RedundantFlushes::flushOf(V, X, Min) && Min == MinNormalF32;
}

} // namespace

PreservedAnalyses FirstTierForms::run(Function &F, FunctionAnalysisManager &) {
  if (F.getName().startswith("__zluda_o0_"))
    return PreservedAnalyses::all();
  Module &M = *F.getParent();
  bool Changed = false;
  SmallVector<Instruction *, 64> Dead;
  auto replace = [&](Instruction *I, Helper H, Value *X) {
    I->replaceAllUsesWith(CallInst::Create(helper(M, H), {X}, "", I));
    Dead.push_back(I);
    Changed = true;
  };
  // Canonicalizations first, so that one of a flush becomes one call.
  for (Instruction &I : instructions(F)) {
    Value *Raw, *X;
    if (!InnerNaNCanonicalization::canonicalOf(&I, Raw))
      continue;
    if (f32Flush(Raw, X))
      replace(&I, FtzCanon, X);
    else
      replace(&I, Canon, Raw);
  }
  for (Instruction *I : Dead)
    RecursivelyDeleteTriviallyDeadInstructions(I);
  Dead.clear();
  for (Instruction &I : instructions(F))
    if (Value *X; f32Flush(&I, X))
      replace(&I, Ftz, X);
  for (Instruction *I : Dead)
    RecursivelyDeleteTriviallyDeadInstructions(I);
  SmallVector<IntrinsicInst *, 64> Work;
  for (Instruction &I : instructions(F))
    if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
      Type *T = II->getType();
      if (!T->isFloatTy() && !T->isDoubleTy())
        continue;
      Intrinsic::ID Id = II->getIntrinsicID();
      if (Id == Intrinsic::fabs || Id == Intrinsic::copysign || Id == Intrinsic::fma)
        Work.push_back(II);
    }
  for (IntrinsicInst *II : Work) {
    IRBuilder<> B(II);
    Type *T = II->getType();
    Value *R;
    if (II->getIntrinsicID() == Intrinsic::fma) {
      FunctionCallee Fma = M.getOrInsertFunction(T->isFloatTy() ? "fmaf" : "fma", T, T, T, T);
      R = B.CreateCall(Fma, {II->getArgOperand(0), II->getArgOperand(1), II->getArgOperand(2)});
    } else {
      unsigned Bits = T->getPrimitiveSizeInBits();
      Type *IT = B.getIntNTy(Bits);
      APInt Sign = APInt::getSignMask(Bits);
      Value *Mag = B.CreateAnd(B.CreateBitCast(II->getArgOperand(0), IT), ConstantInt::get(IT, ~Sign));
      if (II->getIntrinsicID() == Intrinsic::copysign) {
        Value *S = B.CreateAnd(B.CreateBitCast(II->getArgOperand(1), IT), ConstantInt::get(IT, Sign));
        Mag = B.CreateOr(S, Mag);
      }
      R = B.CreateBitCast(Mag, T);
    }
    II->replaceAllUsesWith(R);
    II->eraseFromParent();
    Changed = true;
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace zluda::cpu::passes
