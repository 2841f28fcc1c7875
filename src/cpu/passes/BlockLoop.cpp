//===- BlockLoop.cpp - a block's thread loop in compiled code -------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file lowerBlockAtomics() and buildBlockLoop() (Passes.h).
#include "cpu/passes/Passes.h"
#include "cpu/DeviceAbi.h"
#include "cpu/Regions.h"

#include <llvm/Transforms/Utils/LowerAtomic.h>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

#include <cstddef>

using namespace llvm;

namespace zluda::cpu::passes {

/// Turns the atomics the lowering tagged as reaching only the block's
/// shared memory into loads and stores: one OS thread runs a block, so no
/// other thread comes between them. They are volatile: a work-item loop with
/// plain ones was vectorized into a gather and a scatter, and lanes naming
/// the same word lost each other's updates (a shared atomicAdd per
/// threadIdx.x % 4 summed wrong). Volatile accesses keep the loop scalar,
/// one thread's read-modify-write after another's.
void lowerBlockAtomics(Module &M) {
  for (Function &F : M)
    for (BasicBlock &BB : F)
      for (Instruction &I : make_early_inc_range(BB)) {
        if (!I.getMetadata("zluda.block.atomic"))
          continue;
        IRBuilder<> B(&I);
        if (auto *R = dyn_cast<AtomicRMWInst>(&I)) {
          Value *Ptr = R->getPointerOperand();
          LoadInst *Old = B.CreateAlignedLoad(R->getValOperand()->getType(), Ptr, R->getAlign(), /*isVolatile=*/true);
          Value *New = buildAtomicRMWValue(R->getOperation(), B, Old, R->getValOperand());
          B.CreateAlignedStore(New, Ptr, R->getAlign(), /*isVolatile=*/true);
          R->replaceAllUsesWith(Old);
          R->eraseFromParent();
        } else if (auto *X = dyn_cast<AtomicCmpXchgInst>(&I)) {
          Value *Ptr = X->getPointerOperand();
          LoadInst *Old = B.CreateAlignedLoad(X->getNewValOperand()->getType(), Ptr, X->getAlign(), /*isVolatile=*/true);
          Value *Eq = B.CreateICmpEQ(Old, X->getCompareOperand());
          B.CreateAlignedStore(B.CreateSelect(Eq, X->getNewValOperand(), Old), Ptr, X->getAlign(), /*isVolatile=*/true);
          Value *Res = B.CreateInsertValue(PoisonValue::get(X->getType()), Old, 0);
          Res = B.CreateInsertValue(Res, Eq, 1);
          X->replaceAllUsesWith(Res);
          X->eraseFromParent();
        }
      }
}

/// Builds `void <K>.block(ptr ctx, ptr params)`: loops over the block's
/// threads, writing Tid/LinearTid/LaneId/WarpId into a private copy of the
/// context and calling the kernel, which the optimizer then inlines. The copy
/// is a local that does not escape (after inlining the runtime's accessors),
/// so the special registers become loop induction values. The x loop is
/// declared parallel over \p Group, which the caller gives every access of
/// the unit's functions (what the loop inlines).
Function *buildBlockLoop(Module &M, Function *K, MDNode *Group) {
  LLVMContext &C = M.getContext();
  Type *I32 = Type::getInt32Ty(C), *P = PointerType::get(C, 0);
  auto *FT = FunctionType::get(Type::getVoidTy(C), {P, P}, false);
  auto *F = Function::Create(FT, GlobalValue::ExternalLinkage, K->getName() + ".block", M);
  // Kernel parameters are read-only (PTX forbids st.param to them) and never
  // alias the memory the kernel writes: loads of them leave the loops. (Not
  // noalias on the kernel itself: inlining it would put a scope declaration
  // in the loop, which then no longer counts as parallel.)
  F->addParamAttr(1, Attribute::NoAlias);
  for (Function *X : {F, K}) {
    X->addParamAttr(1, Attribute::ReadOnly);
    X->addParamAttr(1, Attribute::NoCapture);
  }
  if (uint64_t Bytes = regions::paramBytesRead(*K)) {
    F->addDereferenceableParamAttr(1, Bytes);
    F->addParamAttr(1, Attribute::getWithAlignment(C, Align(8)));
  }
  IRBuilder<> B(BasicBlock::Create(C, "entry", F));
  Value *Src = F->getArg(0), *Params = F->getArg(1);
  auto *CtxTy = ArrayType::get(Type::getInt8Ty(C), sizeof(ZludaThreadCtx));
  AllocaInst *Local = B.CreateAlloca(CtxTy);
  Local->setAlignment(Align(alignof(ZludaThreadCtx)));
  B.CreateMemCpy(Local, Align(8), Src, Align(8), sizeof(ZludaThreadCtx));
  auto field = [&](size_t Off) { return B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Local, Off); };
  auto load32 = [&](size_t Off) { return B.CreateLoad(I32, field(Off)); };
  Value *NX = load32(offsetof(ZludaThreadCtx, NTid)), *NY = load32(offsetof(ZludaThreadCtx, NTid) + 4),
        *NZ = load32(offsetof(ZludaThreadCtx, NTid) + 8);
  BasicBlock *Pre = B.GetInsertBlock();
  // for z, for y, for x (x innermost: consecutive threads, the vectorizable loop)
  auto loop = [&](Value *N, const char *Name, BasicBlock *&Header, PHINode *&Iv, BasicBlock *From) {
    Header = BasicBlock::Create(C, Name, F);
    B.CreateBr(Header);
    B.SetInsertPoint(Header);
    Iv = B.CreatePHI(I32, 2, Name);
    Iv->addIncoming(B.getInt32(0), From);
    (void)N;
  };
  BasicBlock *HZ, *HY, *HX;
  PHINode *Z, *Y, *X;
  loop(NZ, "z", HZ, Z, Pre);
  loop(NY, "y", HY, Y, HZ);
  loop(NX, "x", HX, X, HY);
  Value *Linear = B.CreateAdd(B.CreateMul(B.CreateAdd(B.CreateMul(Z, NY), Y), NX), X);
  B.CreateStore(X, field(offsetof(ZludaThreadCtx, Tid)));
  B.CreateStore(Y, field(offsetof(ZludaThreadCtx, Tid) + 4));
  B.CreateStore(Z, field(offsetof(ZludaThreadCtx, Tid) + 8));
  B.CreateStore(Linear, field(offsetof(ZludaThreadCtx, LinearTid)));
  B.CreateStore(B.CreateAnd(Linear, 31), field(offsetof(ZludaThreadCtx, LaneId)));
  B.CreateStore(B.CreateLShr(Linear, 5), field(offsetof(ZludaThreadCtx, WarpId)));
  // The x loop is declared parallel: it vectorizes despite the pointers it
  // cannot prove apart.
  B.CreateCall(K, {Local, Params});
  // Latches, innermost first.
  auto latch = [&](PHINode *Iv, Value *N, BasicBlock *Header, const char *Name) {
    Value *Next = B.CreateAdd(Iv, B.getInt32(1));
    BasicBlock *Exit = BasicBlock::Create(C, std::string(Name) + ".end", F);
    Iv->addIncoming(Next, B.GetInsertBlock());
    BranchInst *Br = B.CreateCondBr(B.CreateICmpULT(Next, N), Header, Exit);
    Br->setMetadata(LLVMContext::MD_loop, Iv == X ? regions::parallelLoop(C, Group) : regions::notUnrolled(C));
    B.SetInsertPoint(Exit);
  };
  latch(X, NX, HX, "x");
  latch(Y, NY, HY, "y");
  latch(Z, NZ, HZ, "z");
  B.CreateRetVoid();
  K->addFnAttr(Attribute::AlwaysInline);
  return F;
}

} // namespace zluda::cpu::passes
