//===- FlushedRegisters.cpp - registers that only hold flushed values -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file FlushedRegisters (Passes.h).
#include "cpu/passes/Passes.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/Local.h>

using namespace llvm;

namespace zluda::cpu::passes {

PreservedAnalyses FlushedRegisters::run(Function &F, FunctionAnalysisManager &) {
  if (F.isDeclaration())
    return PreservedAnalyses::all();
  DenseMap<AllocaInst *, SmallVector<StoreInst *, 4>> Stores;
  SmallPtrSet<AllocaInst *, 32> Regs;
  for (Instruction &I : F.getEntryBlock()) {
    auto *A = dyn_cast<AllocaInst>(&I);
    if (!A || !A->getAllocatedType()->isFloatTy() || A->isArrayAllocation())
      continue;
    bool Plain = true;
    SmallVector<StoreInst *, 4> S;
    for (User *U : A->users()) {
      if (auto *L = dyn_cast<LoadInst>(U); L && L->getType()->isFloatTy() && !L->isVolatile())
        continue;
      if (auto *St = dyn_cast<StoreInst>(U);
          St && St->getPointerOperand() == A && St->getValueOperand()->getType()->isFloatTy() && !St->isVolatile()) {
        S.push_back(St);
        continue;
      }
      Plain = false;
      break;
    }
    if (Plain) {
      Regs.insert(A);
      Stores[A] = std::move(S);
    }
  }
  if (Regs.empty())
    return PreservedAnalyses::all();
  unsigned Rounds = 0;
  // Each round re-checks every register; a long chain of copies from an
  // unflushed value would take a round per link: past 16 rounds nothing is
  // assumed (no flush removed), which is always sound.
  for (bool Changed = true; Changed;) {
    Changed = false;
    if (++Rounds > 16) {
      Regs.clear();
      break;
    }
    for (auto &[A, S] : Stores) {
      if (!Regs.count(A))
        continue;
      for (StoreInst *St : S)
        if (!RedundantFlushes::flushed(St->getValueOperand(), MinNormalF32, 0, &Regs)) {
          Regs.erase(A);
          Changed = true;
          break;
        }
    }
  }
  bool Removed = false;
  SmallVector<Instruction *, 64> Dead;
  for (Instruction &I : instructions(F)) {
    Value *X;
    double Min;
    auto *L = RedundantFlushes::flushOf(&I, X, Min) ? dyn_cast<LoadInst>(X) : nullptr;
    auto *A = L ? dyn_cast<AllocaInst>(L->getPointerOperand()) : nullptr;
    if (!A || !Regs.count(A) || Min > MinNormalF32)
      continue;
    I.replaceAllUsesWith(X);
    Dead.push_back(&I);
    Removed = true;
  }
  for (Instruction *I : Dead)
    RecursivelyDeleteTriviallyDeadInstructions(I);
  return Removed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace zluda::cpu::passes
