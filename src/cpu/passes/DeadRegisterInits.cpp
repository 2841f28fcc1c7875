//===- DeadRegisterInits.cpp - dead register initializations --------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file dropDeadRegisterInits() (Passes.h).
#include "cpu/passes/Passes.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

using namespace llvm;

namespace zluda::cpu::passes {

/// The lowering zero-initializes every register (an alloca) in the entry
/// block. Where a register is only used in one other block and written
/// there before any read, that store is dead; removing it lets SROA promote
/// the register as a single-block value. Otherwise promotion checks, for
/// each register, where in each block it is read and written, which is
/// quadratic in a large straight-line kernel (a 5000-instruction kernel's
/// SROA: 1.96 s; without the dead stores 0.26 s for the whole compile).
void dropDeadRegisterInits(Function &F) {
  if (F.isDeclaration())
    return;
  BasicBlock &Entry = F.getEntryBlock();
  struct Use1 {
    StoreInst *Init = nullptr;
    BasicBlock *Only = nullptr; // the one block besides the entry that uses it
    bool Many = false;          // used in two blocks, or read first there
    bool Seen = false;          // accessed already in Only
  };
  DenseMap<AllocaInst *, Use1> Regs;
  for (Instruction &I : Entry)
    if (auto *SI = dyn_cast<StoreInst>(&I))
      if (auto *AI = dyn_cast<AllocaInst>(SI->getPointerOperand());
          AI && AI->getParent() == &Entry && isa<Constant>(SI->getValueOperand()) &&
          cast<Constant>(SI->getValueOperand())->isNullValue() && !Regs.count(AI))
        Regs[AI].Init = SI;
  if (Regs.empty())
    return;
  for (BasicBlock &BB : F) {
    if (&BB == &Entry)
      continue;
    for (Instruction &I : BB) {
      AllocaInst *AI = nullptr;
      bool Store = false;
      if (auto *LI = dyn_cast<LoadInst>(&I))
        AI = dyn_cast<AllocaInst>(LI->getPointerOperand());
      else if (auto *SI = dyn_cast<StoreInst>(&I)) {
        AI = dyn_cast<AllocaInst>(SI->getPointerOperand());
        Store = SI->getValueOperand() != AI;
      }
      if (!AI)
        continue;
      auto It = Regs.find(AI);
      if (It == Regs.end() || It->second.Many)
        continue;
      Use1 &U = It->second;
      if (U.Only && U.Only != &BB)
        U.Many = true;
      else if (!U.Seen && !Store)
        U.Many = true; // read before written: the zero is what it reads
      U.Only = &BB;
      U.Seen = true;
    }
  }
  // Any other use (a GEP, a call, the entry block itself) keeps the store.
  for (auto &[AI, U] : Regs) {
    if (U.Many || !U.Only)
      continue;
    bool Plain = true;
    for (User *Us : AI->users()) {
      auto *I = dyn_cast<Instruction>(Us);
      if (!I || (!isa<LoadInst>(I) && !isa<StoreInst>(I)) || (I->getParent() == &Entry && I != U.Init) ||
          (isa<StoreInst>(I) && cast<StoreInst>(I)->getPointerOperand() != AI) ||
          (isa<LoadInst>(I) && !cast<LoadInst>(I)->isSimple()) ||
          (isa<StoreInst>(I) && !cast<StoreInst>(I)->isSimple())) {
        Plain = false;
        break;
      }
    }
    if (Plain)
      U.Init->eraseFromParent();
  }
}

} // namespace zluda::cpu::passes
