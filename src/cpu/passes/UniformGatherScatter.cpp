//===- UniformGatherScatter.cpp - uniform gathers and scatters as scalars -===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file UniformGatherScatter (Passes.h).
#include "cpu/passes/Passes.h"

#include "common/Env.h"

#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

using namespace llvm;

namespace zluda::cpu::passes {

PreservedAnalyses UniformGatherScatter::run(Function &F, FunctionAnalysisManager &) {
  std::vector<IntrinsicInst *> Work;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
        Intrinsic::ID Id = II->getIntrinsicID();
        if ((Id == Intrinsic::masked_gather && getSplatValue(II->getArgOperand(0))) ||
            (Id == Intrinsic::masked_scatter && getSplatValue(II->getArgOperand(1))))
          Work.push_back(II);
      }
  for (IntrinsicInst *II : Work) {
    bool Gather = II->getIntrinsicID() == Intrinsic::masked_gather;
    Value *Ptr = getSplatValue(II->getArgOperand(Gather ? 0 : 1));
    Align A = MaybeAlign(cast<ConstantInt>(II->getArgOperand(Gather ? 1 : 2))->getZExtValue()).valueOrOne();
    Value *Mask = II->getArgOperand(Gather ? 2 : 3);
    unsigned N = cast<FixedVectorType>(Mask->getType())->getNumElements();
    BasicBlock *Head = II->getParent();
    IRBuilder<> B(II);
    Value *Bits = B.CreateBitCast(Mask, B.getIntNTy(N));
    Value *Any = B.CreateICmpNE(Bits, ConstantInt::get(Bits->getType(), 0));
    Instruction *Then = SplitBlockAndInsertIfThen(Any, II, false);
    IRBuilder<> T(Then);
    if (Gather) {
      Value *Pass = II->getArgOperand(3);
      Value *X = T.CreateAlignedLoad(cast<VectorType>(II->getType())->getElementType(), Ptr, A);
      Value *Sel = T.CreateSelect(Mask, T.CreateVectorSplat(N, X), Pass);
      B.SetInsertPoint(II);
      PHINode *Phi = B.CreatePHI(II->getType(), 2);
      Phi->addIncoming(Sel, Then->getParent());
      Phi->addIncoming(Pass, Head);
      II->replaceAllUsesWith(Phi);
    } else {
      // Lanes writing one address: the highest active lane's store is the
      // one that remains (LLVM's scatter semantics; CUDA leaves it open).
      Value *Lz = T.CreateBinaryIntrinsic(Intrinsic::ctlz, Bits, T.getTrue());
      Value *Lane = T.CreateSub(ConstantInt::get(Bits->getType(), N - 1), Lz);
      T.CreateAlignedStore(T.CreateExtractElement(II->getArgOperand(0), Lane), Ptr, A);
    }
    II->eraseFromParent();
  }
  return Work.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
}

} // namespace zluda::cpu::passes
