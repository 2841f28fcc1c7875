//===- AddressesAsGeps.cpp - PTX addresses as GEPs for the vectorizer -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file AddressesAsGeps (Passes.h).
#include "cpu/passes/Passes.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

using namespace llvm;

namespace zluda::cpu::passes {

namespace {

bool indexLike(Value *V) {
  if (isa<Constant>(V))
    return true;
  auto *I = dyn_cast<Instruction>(V);
  return I && (I->getOpcode() == Instruction::Shl || I->getOpcode() == Instruction::Mul ||
               I->getOpcode() == Instruction::SExt || I->getOpcode() == Instruction::ZExt);
}

} // namespace

PreservedAnalyses AddressesAsGeps::run(Function &F, FunctionAnalysisManager &) {
  bool Changed = false;
  std::vector<IntToPtrInst *> Work;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *P = dyn_cast<IntToPtrInst>(&I))
        Work.push_back(P);
  while (!Work.empty()) {
    IntToPtrInst *P = Work.back();
    Work.pop_back();
    auto *Add = dyn_cast<BinaryOperator>(P->getOperand(0));
    if (!Add || Add->getOpcode() != Instruction::Add)
      continue;
    Value *Base = Add->getOperand(0), *Off = Add->getOperand(1);
    if (indexLike(Base) && !indexLike(Off))
      std::swap(Base, Off);
    if (indexLike(Base))
      continue;
    Instruction *At;
    if (auto *BI = dyn_cast<Instruction>(Base))
      At = isa<PHINode>(BI) ? &*BI->getParent()->getFirstInsertionPt() : BI->getNextNode();
    else
      At = &*F.getEntryBlock().getFirstInsertionPt();
    if (!At || (isa<Instruction>(Base) && cast<Instruction>(Base)->isTerminator()))
      continue;
    auto *BaseP = new IntToPtrInst(Base, P->getType(), "", At);
    auto *G = GetElementPtrInst::Create(Type::getInt8Ty(F.getContext()), BaseP, {Off}, "", P);
    P->replaceAllUsesWith(G);
    P->eraseFromParent();
    Work.push_back(BaseP); // the base may itself be base + offset
    Changed = true;
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace zluda::cpu::passes
