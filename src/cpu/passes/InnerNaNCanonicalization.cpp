//===- InnerNaNCanonicalization.cpp - drop NaN canonicalizations inside expressions ===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file InnerNaNCanonicalization (Passes.h).
#include "cpu/passes/Passes.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

using namespace llvm;

namespace zluda::cpu::passes {

namespace {

/// Every use of \p I is its canonicalization.
bool canonicalizedOnly(Instruction *I) {
  for (User *U : I->users()) {
    Value *Raw;
    if (auto *Cmp = dyn_cast<FCmpInst>(U); Cmp && Cmp->getPredicate() == FCmpInst::FCMP_UNO &&
                                            Cmp->getOperand(0) == I && Cmp->hasOneUse() &&
                                            InnerNaNCanonicalization::canonicalOf(Cmp->user_back(), Raw) && Raw == I)
      continue;
    if (InnerNaNCanonicalization::canonicalOf(U, Raw) && Raw == I)
      continue;
    return false;
  }
  return !I->use_empty();
}

bool payloadFree(Instruction *U) {
  if (isa<FCmpInst>(U))
    return true;
  if (auto *BO = dyn_cast<BinaryOperator>(U))
    return (BO->getOpcode() == Instruction::FAdd || BO->getOpcode() == Instruction::FSub ||
            BO->getOpcode() == Instruction::FMul || BO->getOpcode() == Instruction::FDiv) &&
           canonicalizedOnly(BO);
  if (auto *UO = dyn_cast<UnaryOperator>(U))
    return UO->getOpcode() == Instruction::FNeg && canonicalizedOnly(UO);
  if (auto *II = dyn_cast<IntrinsicInst>(U))
    return (II->getIntrinsicID() == Intrinsic::fma || II->getIntrinsicID() == Intrinsic::fmuladd) &&
           canonicalizedOnly(II);
  return false;
}

} // namespace

bool InnerNaNCanonicalization::canonicalOf(Value *V, Value *&Raw) {
  auto *S = dyn_cast<SelectInst>(V);
  if (!S || !S->getType()->isFloatTy())
    return false;
  auto *Cmp = dyn_cast<FCmpInst>(S->getCondition());
  auto *C = dyn_cast<ConstantFP>(S->getTrueValue());
  Value *R = S->getFalseValue();
  if (!Cmp || Cmp->getPredicate() != FCmpInst::FCMP_UNO || !C || Cmp->getOperand(0) != R)
    return false;
  auto *Other = dyn_cast<ConstantFP>(Cmp->getOperand(1));
  if (Cmp->getOperand(1) != R && !(Other && !Other->isNaN()))
    return false;
  if (C->getValueAPF().bitcastToAPInt().getZExtValue() != 0x7FFFFFFF)
    return false;
  Raw = R;
  return true;
}

PreservedAnalyses InnerNaNCanonicalization::run(Function &F, FunctionAnalysisManager &) {
  bool Changed = false;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      Value *Raw;
      if (!canonicalOf(&I, Raw))
        continue;
      for (Use &U : make_early_inc_range(I.uses()))
        if (auto *UI = dyn_cast<Instruction>(U.getUser()); UI && payloadFree(UI)) {
          U.set(Raw);
          Changed = true;
        }
    }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace zluda::cpu::passes
