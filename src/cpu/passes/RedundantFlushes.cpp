//===- RedundantFlushes.cpp - drop flushes of flushed values --------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file RedundantFlushes (Passes.h).
#include "cpu/passes/Passes.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

using namespace llvm;

namespace zluda::cpu::passes {

bool RedundantFlushes::flushOf(Value *V, Value *&X, double &Min) {
  auto *S = dyn_cast<SelectInst>(V);
  if (!S || !S->getType()->isFloatingPointTy())
    return false;
  auto *Cmp = dyn_cast<FCmpInst>(S->getCondition());
  auto *Abs = Cmp ? dyn_cast<IntrinsicInst>(Cmp->getOperand(0)) : nullptr;
  auto *C = Cmp ? dyn_cast<ConstantFP>(Cmp->getOperand(1)) : nullptr;
  Value *Raw = S->getFalseValue();
  if (!Cmp || Cmp->getPredicate() != FCmpInst::FCMP_OLT || !Abs || Abs->getIntrinsicID() != Intrinsic::fabs ||
      !C)
    return false;
  // fabs(Raw) < min ? copysign(0, Raw) : Raw; InstCombine makes a flush of
  // fabs(y) `fabs(y) < min ? +0 : fabs(y)`.
  auto *Zero = dyn_cast<IntrinsicInst>(S->getTrueValue());
  auto *RawAbs = dyn_cast<IntrinsicInst>(Raw);
  if (Zero && Zero->getIntrinsicID() == Intrinsic::copysign && Zero->getArgOperand(1) == Raw &&
      Abs->getArgOperand(0) == Raw) {
    auto *Z = dyn_cast<ConstantFP>(Zero->getArgOperand(0));
    if (!Z || !Z->isZero())
      return false;
  } else if (auto *Z = dyn_cast<ConstantFP>(S->getTrueValue());
             Z && Z->isZero() && !Z->isNegative() && RawAbs && RawAbs->getIntrinsicID() == Intrinsic::fabs &&
             (Abs == RawAbs || Abs->getArgOperand(0) == Raw)) {
  } else {
    return false;
  }
  X = Raw;
  Min = C->getValueAPF().convertToDouble();
  return true;
}

bool RedundantFlushes::flushed(Value *V, double Min, unsigned Depth, const SmallPtrSetImpl<AllocaInst *> *Regs) {
  if (auto *C = dyn_cast<ConstantFP>(V)) {
    const APFloat &F = C->getValueAPF();
    return F.isZero() || F.isNaN() || F.isInfinity() || std::fabs(F.convertToDouble()) >= Min;
  }
  if (Depth > 8)
    return false;
  Value *X;
  double M;
  if (flushOf(V, X, M))
    return M >= Min;
  auto *I = dyn_cast<Instruction>(V);
  if (!I)
    return false;
  if (auto *L = dyn_cast<LoadInst>(I); L && Regs && L->getType()->isFloatTy())
    if (auto *A = dyn_cast<AllocaInst>(L->getPointerOperand()))
      return Regs->count(A) && Min <= MinNormalF32;
  switch (I->getOpcode()) {
  case Instruction::SIToFP:
  case Instruction::UIToFP: // zero or at least 1 in magnitude
    return true;
  case Instruction::FNeg:
    return flushed(I->getOperand(0), Min, Depth + 1, Regs);
  case Instruction::Select:
    return flushed(I->getOperand(1), Min, Depth + 1, Regs) && flushed(I->getOperand(2), Min, Depth + 1, Regs);
  default:
    break;
  }
  if (auto *II = dyn_cast<IntrinsicInst>(I))
    switch (II->getIntrinsicID()) {
    case Intrinsic::fabs:
    case Intrinsic::copysign: // the magnitude of the first operand
      return flushed(II->getArgOperand(0), Min, Depth + 1, Regs);
    case Intrinsic::minnum:
    case Intrinsic::maxnum:
    case Intrinsic::minimum:
    case Intrinsic::maximum:
      return flushed(II->getArgOperand(0), Min, Depth + 1, Regs) && flushed(II->getArgOperand(1), Min, Depth + 1, Regs);
    default:
      break;
    }
  return false;
}

PreservedAnalyses RedundantFlushes::run(Function &F, FunctionAnalysisManager &) {
  bool Changed = false;
  for (BasicBlock &BB : F)
    for (Instruction &I : make_early_inc_range(BB)) {
      Value *X;
      double Min;
      if (!flushOf(&I, X, Min) || !flushed(X, Min, 0))
        continue;
      I.replaceAllUsesWith(X); // its compare and copysign are left to the dead-code passes
      I.eraseFromParent();
      Changed = true;
    }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace zluda::cpu::passes
