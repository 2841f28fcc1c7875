//===- Regions.cpp - work-item loops between barriers ----------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Builds a kernel's resumable form (Regions.h) from its optimized IR:
///  1. the kernel is cloned into `<K>.rgnbody(ctx, params, frames, n, t,
///     resume) -> i32`; every wait (a call of the device runtime's barrier,
///     collective, activemask or nanosleep) stores its operands into the
///     thread's request slots and returns its resume point; the code after it
///     becomes that point's entry, which first reads the executor's result;
///     `exit` and `ret` return 0;
///  2. a dispatch block switches on `resume`; values whose definition no
///     longer dominates a use (they lived across a wait) are demoted to
///     memory, and every alloca becomes a slot of the per-thread frame;
///  3. `<K>.rgn.<k>` loops over a row of threads calling the body with the
///     constant k (after inlining, only the code reachable from point k), its
///     memory accesses in one access group marked parallel: threads between
///     two waits are independent, as CUDA's memory model makes them, so the
///     loop vectorizes across threads.
#include "cpu/Regions.h"
#include "common/Log.h"

#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/Analysis/CFG.h>
#include <llvm/Analysis/DivergenceAnalysis.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/SyncDependenceAnalysis.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/Local.h>
#include <llvm/Transforms/Utils/PromoteMemToReg.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <set>

using namespace llvm;

namespace zluda::cpu::regions {
namespace {

/// The device runtime's waits (the calls that become resume points).
int opOf(StringRef Callee) {
  // Never destroyed: a background compile may run while static destructors do.
  static const auto &Ops = *new std::map<std::string, int, std::less<>>{
      {"__zluda_ptx_barrier", Barrier}, {"__zluda_ptx_warp_sync", WarpSync},
      {"__zluda_ptx_activemask", Activemask}, {"__zluda_ptx_shfl", Shfl},
      {"__zluda_ptx_vote", Vote}, {"__zluda_ptx_match", Match},
      {"__zluda_ptx_redux", Redux}, {"__zluda_ptx_nanosleep", Yield},
      {"__zluda_ptx_exit", -1}};
  auto It = Ops.find(Callee);
  return It == Ops.end() ? 0 : It->second;
}

/// Device runtime calls that wait in ways a resume point cannot express
/// (every lane's fragments at once, the whole grid): such kernels run as fibers.
bool fiberOnly(StringRef Callee) {
  return Callee == "__zluda_ptx_wmma" || Callee == "__zluda_ptx_mma_m16n8k16" ||
         Callee == "__zluda_ptx_mma_generic" || Callee == "__zluda_ptx_ldmatrix" || Callee == "__zluda_ptx_wgmma" ||
         Callee == "__zluda_ptx_grid_sync" || Callee == "__zluda_ptx_cluster_barrier";
}

/// Defined functions of \p M that wait, directly or through their callees.
std::set<const Function *> waitingFunctions(Module &M) {
  std::set<const Function *> W;
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (Function &F : M) {
      if (F.isDeclaration() || W.count(&F))
        continue;
      for (Instruction &I : instructions(F)) {
        auto *CB = dyn_cast<CallBase>(&I);
        if (!CB)
          continue;
        const Function *Callee = CB->getCalledFunction();
        if (!Callee || opOf(Callee->getName()) || fiberOnly(Callee->getName()) || W.count(Callee)) {
          W.insert(&F);
          Changed = true;
          break;
        }
      }
    }
  }
  return W;
}

/// Whether a load of \p Size bytes at \p Off of the thread context reads a
/// field that is the same for every thread of a block.
bool uniformCtxField(int64_t Off, uint64_t Size) {
  struct Range {
    size_t Begin, End;
  };
  static constexpr Range Uniform[] = {
      {offsetof(ZludaThreadCtx, NTid), offsetof(ZludaThreadCtx, LaneId)},      // NTid, CtaId, NCtaId
      {offsetof(ZludaThreadCtx, NWarpId), offsetof(ZludaThreadCtx, LinearTid)},
      {offsetof(ZludaThreadCtx, SharedBase), offsetof(ZludaThreadCtx, StackLo)}, // shared window, SmId
      {offsetof(ZludaThreadCtx, EnvRegs), offsetof(ZludaThreadCtx, Block)},
  };
  for (const Range &R : Uniform)
    if (Off >= 0 && uint64_t(Off) >= R.Begin && uint64_t(Off) + Size <= R.End)
      return true;
  return false;
}

/// The instructions of kernel \p K whose value is the same in every thread
/// of a block that computes it (in the same iteration) and at every use: LLVM's
/// divergence analysis seeded with what differs between threads (thread ids,
/// loads of memory other threads may write, calls, atomics, allocas). Empty for
/// irreducible control flow, which the analysis does not handle.
std::set<const Instruction *> uniformInstructions(Function &K) {
  std::set<const Instruction *> Out;
  DominatorTree DT(K);
  PostDominatorTree PDT(K);
  LoopInfo LI(DT);
  ReversePostOrderTraversal<Function *> RPOT(&K);
  if (containsIrreducibleCFG<const BasicBlock *>(RPOT, LI))
    return Out;
  const DataLayout &DL = K.getParent()->getDataLayout();
  Value *Ctx = K.getArg(0), *Params = K.getArg(1);
  SyncDependenceAnalysis SDA(DT, PDT, LI);
  DivergenceAnalysisImpl DA(K, nullptr, DT, LI, SDA, false);
  for (Instruction &I : instructions(K)) {
    bool Divergent = false;
    if (auto *L = dyn_cast<LoadInst>(&I)) {
      int64_t Off = 0;
      const Value *Base = GetPointerBaseWithConstantOffset(L->getPointerOperand(), Off, DL);
      const auto *GV = dyn_cast<GlobalVariable>(getUnderlyingObject(L->getPointerOperand()));
      Divergent = !L->isSimple() ||
                  !(Base == Params || (Base == Ctx && uniformCtxField(Off, DL.getTypeStoreSize(L->getType()))) ||
                    (GV && GV->isConstant()));
    } else if (auto *CB = dyn_cast<CallBase>(&I)) {
      const Function *F = CB->getCalledFunction();
      Divergent = !CB->getType()->isVoidTy() && (!F || !F->isIntrinsic() || CB->mayReadOrWriteMemory());
    } else {
      Divergent = isa<AtomicRMWInst>(&I) || isa<AtomicCmpXchgInst>(&I) || isa<AllocaInst>(&I) ||
                  isa<VAArgInst>(&I) || isa<LandingPadInst>(&I);
    }
    if (Divergent)
      DA.markDivergent(I);
  }
  DA.compute();
  for (Instruction &I : instructions(K)) {
    if (I.getType()->isVoidTy() || DA.isDivergent(I))
      continue;
    bool Ok = true;
    for (const Use &U : I.uses())
      Ok &= !DA.isDivergentUse(U);
    if (Ok)
      Out.insert(&I);
  }
  return Out;
}

} // namespace

uint64_t paramBytesRead(Function &K) {
  const DataLayout &DL = K.getParent()->getDataLayout();
  Argument *Params = K.getArg(1);
  uint64_t End = 0;
  for (Instruction &I : instructions(K)) {
    auto *LI = dyn_cast<LoadInst>(&I);
    if (!LI || getUnderlyingObject(LI->getPointerOperand()) != Params)
      continue;
    int64_t Off = 0;
    const Value *Base = GetPointerBaseWithConstantOffset(LI->getPointerOperand(), Off, DL);
    if (Base != Params || Off < 0)
      return 0;
    End = std::max<uint64_t>(End, uint64_t(Off) + DL.getTypeStoreSize(LI->getType()));
  }
  return End;
}

void markParallel(Function &F, MDNode *Group) {
  for (Instruction &I : instructions(F)) {
    // Not calls: inlining one would put everything of the callee in the
    // group, also what must stay out (atomics made plain later).
    if (!I.mayReadOrWriteMemory() || isa<CallBase>(&I) || isa<AtomicRMWInst>(&I) || isa<AtomicCmpXchgInst>(&I) ||
        isa<FenceInst>(&I))
      continue;
    if (auto *LI = dyn_cast<LoadInst>(&I); LI && !LI->isSimple())
      continue;
    if (auto *SI = dyn_cast<StoreInst>(&I); SI && !SI->isSimple())
      continue;
    I.setMetadata(LLVMContext::MD_access_group, Group);
  }
}

MDNode *notUnrolled(LLVMContext &C) {
  MDNode *NoUnroll = MDNode::get(C, {MDString::get(C, "llvm.loop.unroll.disable")});
  MDNode *LoopID = MDNode::getDistinct(C, {nullptr, NoUnroll});
  LoopID->replaceOperandWith(0, LoopID);
  return LoopID;
}

MDNode *parallelLoop(LLVMContext &C, MDNode *Group) {
  MDNode *Parallel = MDNode::get(C, {MDString::get(C, "llvm.loop.parallel_accesses"), Group});
  // Not unrolled after vectorization: a block's row is a few vector
  // iterations, and unrolled copies multiply the code of every region loop.
  MDNode *NoUnroll = MDNode::get(C, {MDString::get(C, "llvm.loop.unroll.disable")});
  MDNode *LoopID = MDNode::getDistinct(C, {nullptr, Parallel, NoUnroll});
  LoopID->replaceOperandWith(0, LoopID);
  return LoopID;
}

namespace {
/// Instructions a loop over threads budgets for its points' code (Regions.h
/// MaxLoops caps the count as well).
constexpr uint64_t LoopBudget = 6000;

/// For each resume point of \p Body (0: its entry, k: the dispatch's case k)
/// the instructions reachable from it without going back through the
/// dispatch: the code a loop from that point inlines (before clean-up).
std::vector<uint64_t> pointSizes(Function &Body, BasicBlock *Dispatch, unsigned NPoints) {
  std::vector<BasicBlock *> Start(NPoints, nullptr);
  if (auto *Sw = dyn_cast<SwitchInst>(Dispatch->getTerminator())) {
    Start[0] = Sw->getDefaultDest();
    for (auto &Case : Sw->cases())
      if (uint64_t V = Case.getCaseValue()->getZExtValue(); V < NPoints)
        Start[V] = Case.getCaseSuccessor();
  } else if (auto *Br = dyn_cast<BranchInst>(Dispatch->getTerminator()); Br && Br->isUnconditional()) {
    Start[0] = Br->getSuccessor(0);
  }
  std::vector<uint64_t> Sizes(NPoints, 0);
  for (unsigned P = 0; P < NPoints; ++P) {
    if (!Start[P])
      continue;
    SmallPtrSet<BasicBlock *, 32> Seen{Dispatch};
    SmallVector<BasicBlock *, 32> Work{Start[P]};
    Seen.insert(Start[P]);
    while (!Work.empty()) {
      BasicBlock *BB = Work.pop_back_val();
      Sizes[P] += BB->size();
      for (BasicBlock *S : successors(BB))
        if (Seen.insert(S).second)
          Work.push_back(S);
    }
  }
  return Sizes;
}
} // namespace

bool build(Module &M, Function *K, std::string &WhyNot) {
  LLVMContext &C = M.getContext();
  const DataLayout &DL = M.getDataLayout();
  std::set<const Function *> Waiting = waitingFunctions(M);
  bool HasWait = false;
  for (Instruction &I : instructions(*K)) {
    if (auto *AI = dyn_cast<AllocaInst>(&I); AI && !isa<ConstantInt>(AI->getArraySize())) {
      WhyNot = "a dynamically sized alloca";
      return false;
    }
    auto *CB = dyn_cast<CallBase>(&I);
    if (!CB)
      continue;
    const Function *Callee = CB->getCalledFunction();
    if (!Callee) {
      if (CB->isInlineAsm())
        continue;
      if (!Waiting.empty()) {
        WhyNot = "an indirect call in a module whose functions wait";
        return false;
      }
      continue;
    }
    if (fiberOnly(Callee->getName())) {
      WhyNot = "it calls " + Callee->getName().str();
      return false;
    }
    if (Callee->getIntrinsicID() == Intrinsic::stacksave || Callee->getIntrinsicID() == Intrinsic::stackrestore) {
      WhyNot = "stacksave/stackrestore (a thread's stack pointer does not survive a resume point)";
      return false;
    }
    if (!Callee->isDeclaration() && Waiting.count(Callee)) {
      WhyNot = "a barrier or warp collective inside " + Callee->getName().str() + ", which was not inlined";
      return false;
    }
    HasWait |= opOf(Callee->getName()) != 0;
    if (!isa<CallInst>(CB)) {
      WhyNot = "an invoke";
      return false;
    }
  }
  if (!HasWait) {
    WhyNot = "no barrier or collective left after optimization";
    return false;
  }

  const std::set<const Instruction *> UniformK = uniformInstructions(*K);
  Type *I32 = Type::getInt32Ty(C), *I64 = Type::getInt64Ty(C), *P = PointerType::get(C, 0);
  // 1. The body: the kernel with (frames, n, t, resume, urd, uwr, byrow)
  // added, returning where it stopped.
  auto *BodyTy = FunctionType::get(I32, {P, P, P, I32, I32, I32, P, P, I32}, false);
  Function *Body = Function::Create(BodyTy, GlobalValue::InternalLinkage, K->getName() + ".rgnbody", M);
  ValueToValueMapTy VMap;
  VMap[K->getArg(0)] = Body->getArg(0);
  VMap[K->getArg(1)] = Body->getArg(1);
  SmallVector<ReturnInst *, 8> Returns;
  CloneFunctionInto(Body, K, VMap, CloneFunctionChangeType::LocalChangesOnly, Returns);
  Body->setLinkage(GlobalValue::InternalLinkage);
  Body->addFnAttr(Attribute::AlwaysInline);
  Body->removeFnAttr(Attribute::NoInline);
  Body->removeFnAttr(Attribute::OptimizeNone);
  // No noalias on the body's parameters: inlining would add scope
  // declarations to the loops, which count as memory accesses outside the
  // parallel group (the loops' own parameters say it instead).
  for (unsigned A = 0; A < Body->arg_size(); ++A)
    Body->removeParamAttr(A, Attribute::NoAlias);
  Argument *Frames = Body->getArg(2), *N = Body->getArg(3), *T = Body->getArg(4), *Resume = Body->getArg(5);
  Argument *URd = Body->getArg(6), *ByRow = Body->getArg(8); // arg 7 (uwr): written by the loops
  std::set<const Value *> UniformBody;
  for (const Instruction *I : UniformK)
    if (Value *V = VMap.lookup(I))
      UniformBody.insert(V);
  for (ReturnInst *R : Returns) {
    ReturnInst::Create(C, ConstantInt::get(I32, 0), R);
    R->eraseFromParent();
  }

  BasicBlock *OrigEntry = &Body->getEntryBlock();
  BasicBlock *Dispatch = BasicBlock::Create(C, "dispatch", Body, OrigEntry);
  IRBuilder<> DB(Dispatch);
  Value *N64 = DB.CreateZExt(N, I64, "n64"), *T64 = DB.CreateZExt(T, I64, "t64");
  // The address of this thread's element of the slot at per-thread offset Off.
  auto slotAddr = [&](IRBuilder<> &B, uint64_t Off, uint64_t Size) -> Value * {
    Value *Idx = B.CreateAdd(B.CreateMul(N64, B.getInt64(Off)), B.CreateMul(T64, B.getInt64(Size)));
    return B.CreateInBoundsGEP(B.getInt8Ty(), Frames, Idx);
  };

  std::vector<CallInst *> Waits;
  for (Instruction &I : instructions(*Body))
    if (auto *CI = dyn_cast<CallInst>(&I))
      if (const Function *F = CI->getCalledFunction(); F && opOf(F->getName()))
        Waits.push_back(CI);

  std::vector<BasicBlock *> Points; // resume point k -> its block (index k-1)
  std::vector<Request> Requests{Request{}}; // by resume point
  uint64_t UniformBytes = 0;                // the block's uniform area (Regions.h)
  std::vector<AllocaInst *> OwnCopies;      // each uniform value's per-thread copy
  std::vector<UniformSlot> UniformSlots;
  for (CallInst *CI : Waits) {
    int Op = opOf(CI->getCalledFunction()->getName());
    BasicBlock *BB = CI->getParent();
    if (Op < 0) { // exit: this thread is done
      BasicBlock *Rest = BB->splitBasicBlock(CI, "after.exit");
      BB->getTerminator()->eraseFromParent();
      ReturnInst::Create(C, ConstantInt::get(I32, 0), BB);
      (void)Rest; // unreachable now, removed below
      continue;
    }
    unsigned K1 = static_cast<unsigned>(Points.size()) + 1;
    IRBuilder<> B(CI);
    // A request of constants (a plain __syncthreads) goes to the table
    // instead of every thread's request slots.
    Request Rq{1, static_cast<uint32_t>(Op), {}};
    unsigned NArgs = 0;
    for (unsigned A = 1; A < CI->arg_size(); ++A) {
      Value *V = CI->getArgOperand(A);
      if (V->getType()->isPointerTy())
        continue;
      auto *CV = dyn_cast<ConstantInt>(V);
      if (!CV || V->getType()->isIntegerTy(64) || NArgs >= MaxArgs)
        Rq.Known = 0;
      else
        Rq.Args[NArgs++] = static_cast<uint32_t>(CV->getZExtValue());
    }
    if (!Rq.Known)
      Rq = Request{};
    Requests.push_back(Rq);
    if (!Rq.Known)
      B.CreateStore(B.getInt32(static_cast<uint32_t>(Op)), slotAddr(B, OffOp, 4));
    unsigned NextArg = 0;
    Value *PredOut = nullptr;
    for (unsigned A = 1; A < CI->arg_size(); ++A) {
      Value *V = CI->getArgOperand(A);
      if (V->getType()->isPointerTy()) {
        PredOut = V;
      } else if (Rq.Known) {
        continue;
      } else if (V->getType()->isIntegerTy(64)) {
        B.CreateStore(V, slotAddr(B, OffV, 8));
      } else {
        if (NextArg >= MaxArgs) {
          WhyNot = "internal: too many operands for a wait";
          Body->eraseFromParent();
          return false;
        }
        B.CreateStore(B.CreateZExtOrTrunc(V, I32), slotAddr(B, OffArgs + 4 * NextArg++, 4));
      }
    }
    BasicBlock *Cont = BB->splitBasicBlock(CI, "resume." + std::to_string(K1));
    BB->getTerminator()->eraseFromParent();
    ReturnInst::Create(C, ConstantInt::get(I32, K1), BB);
    IRBuilder<> RB(CI);
    if (PredOut)
      RB.CreateStore(RB.CreateLoad(I32, slotAddr(RB, OffResPred, 4)), PredOut);
    if (!CI->getType()->isVoidTy()) {
      Value *R = RB.CreateLoad(I64, slotAddr(RB, OffRes, 8));
      CI->replaceAllUsesWith(RB.CreateTrunc(R, CI->getType()));
    }
    CI->eraseFromParent();
    Points.push_back(Cont);
  }

  // 2. Dispatch on the resume point.
  SwitchInst *Sw = DB.CreateSwitch(Resume, OrigEntry, static_cast<unsigned>(Points.size()));
  for (size_t I = 0; I < Points.size(); ++I)
    Sw->addCase(DB.getInt32(static_cast<uint32_t>(I + 1)), Points[I]);
  removeUnreachableBlocks(*Body); // may rewrite the switch
  Instruction *DispatchEnd = Dispatch->getTerminator();

  // Values used where their definition no longer dominates lived across a
  // wait. Those computed from the thread's context and the kernel's
  // parameters alone (thread ids, shared-memory addresses, parameters) are
  // recomputed where they are used; the others are kept in the frame.
  {
    DominatorTree DT(*Body);
    Value *Ctx = Body->getArg(0), *Params = Body->getArg(1);
    std::map<const Value *, bool> Remat;
    std::function<bool(Value *, unsigned &)> canRemat = [&](Value *V, unsigned &Budget) -> bool {
      if (isa<Argument>(V) || isa<Constant>(V) || isa<AllocaInst>(V))
        return true;
      auto *I = dyn_cast<Instruction>(V);
      if (!I || I->getParent() == Dispatch)
        return I != nullptr;
      if (auto It = Remat.find(I); It != Remat.end())
        return It->second;
      bool Ok = Budget > 0 && (isa<GetElementPtrInst>(I) || isa<CastInst>(I) || isa<BinaryOperator>(I) ||
                               isa<CmpInst>(I) || isa<SelectInst>(I) || isa<FreezeInst>(I));
      if (auto *LI = dyn_cast<LoadInst>(I)) {
        const Value *Obj = getUnderlyingObject(LI->getPointerOperand());
        Ok = Budget > 0 && LI->isSimple() && (Obj == Ctx || Obj == Params);
      }
      if (Ok) {
        --Budget;
        for (Value *Op : I->operands())
          if (!(Ok = canRemat(Op, Budget)))
            break;
      }
      Remat[I] = Ok;
      return Ok;
    };
    std::function<Value *(Value *, Instruction *, std::map<Value *, Value *> &)> materialize =
        [&](Value *V, Instruction *At, std::map<Value *, Value *> &Memo) -> Value * {
      auto *I = dyn_cast<Instruction>(V);
      if (!I || isa<AllocaInst>(I) || DT.dominates(I, At))
        return V;
      if (auto It = Memo.find(I); It != Memo.end())
        return It->second;
      Instruction *Cl = I->clone();
      for (unsigned Op = 0; Op < I->getNumOperands(); ++Op)
        Cl->setOperand(Op, materialize(I->getOperand(Op), At, Memo));
      Cl->insertBefore(At);
      Memo[I] = Cl;
      return Cl;
    };
    std::vector<Instruction *> Crossing;
    for (Instruction &I : instructions(*Body)) {
      if (isa<AllocaInst>(&I) || I.getParent() == Dispatch)
        continue;
      for (Use &U : I.uses())
        if (!DT.dominates(&I, U)) {
          Crossing.push_back(&I);
          break;
        }
    }
    std::vector<Instruction *> Demote, DemoteUniform;
    for (Instruction *I : Crossing) {
      unsigned Budget = 24;
      if (!canRemat(I, Budget)) {
        (UniformBody.count(I) ? DemoteUniform : Demote).push_back(I);
        continue;
      }
      for (Use &U : make_early_inc_range(I->uses())) {
        if (DT.dominates(I, U))
          continue;
        auto *User = cast<Instruction>(U.getUser());
        Instruction *At = User;
        if (auto *Phi = dyn_cast<PHINode>(User))
          At = Phi->getIncomingBlock(U)->getTerminator();
        std::map<Value *, Value *> Memo;
        U.set(materialize(I, At, Memo));
      }
    }
    // A pointer into the context is only valid during one call, also where
    // a phi or select chooses it (a lifted grid barrier's two reads of
    // %envreg merged the context's environment pointer in a phi).
    auto intoCtx = [&](Instruction *I) {
      if (!I->getType()->isPointerTy())
        return false;
      SmallVector<const Value *, 4> Objects;
      getUnderlyingObjects(I, Objects, nullptr, 0);
      return std::find(Objects.begin(), Objects.end(), Ctx) != Objects.end();
    };
    for (const std::vector<Instruction *> *Kept : {&Demote, &DemoteUniform})
      for (Instruction *I : *Kept)
        if (intoCtx(I)) {
          WhyNot = "internal: a pointer into the thread context lives across a wait";
          Body->eraseFromParent();
          return false;
        }
    for (Instruction *I : Demote)
      DemoteRegToStack(*I, false, DispatchEnd);
    // Values the same in every thread: a row loop reads them from the
    // block's uniform area (`urd`, written in the previous step through
    // `uwr`: Regions.h) as one scalar, which keeps the loop's addresses
    // consecutive; each thread's frame keeps a copy too, for `.rgnany` with
    // byrow 0 (threads out of step with each other read their own).
    std::vector<AllocaInst *> Promote;
    for (Instruction *I : DemoteUniform) {
      Type *Ty = I->getType();
      UniformBytes = alignTo(UniformBytes, DL.getABITypeAlign(Ty));
      uint64_t Off = UniformBytes;
      UniformBytes += DL.getTypeAllocSize(Ty);
      AllocaInst *Tmp = DemoteRegToStack(*I, false, DispatchEnd);
      IRBuilder<> AB(DispatchEnd);
      AllocaInst *Mine = AB.CreateAlloca(Ty);
      std::vector<StoreInst *> Defs;
      for (User *U : Tmp->users())
        if (auto *SI = dyn_cast<StoreInst>(U))
          Defs.push_back(SI);
      for (StoreInst *SI : Defs)
        IRBuilder<>(SI->getNextNode()).CreateStore(SI->getValueOperand(), Mine);
      for (BasicBlock *Pt : Points) {
        IRBuilder<> B(&*Pt->getFirstInsertionPt());
        Value *Shared = B.CreateLoad(Ty, B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), URd, Off));
        Value *Own = B.CreateLoad(Ty, Mine);
        B.CreateStore(B.CreateSelect(B.CreateICmpNE(ByRow, B.getInt32(0)), Shared, Own), Tmp);
      }
      Promote.push_back(Tmp);
      UniformSlots.push_back(UniformSlot{static_cast<uint32_t>(Off), 0,
                                         static_cast<uint32_t>(DL.getTypeAllocSize(Ty))});
      OwnCopies.push_back(Mine);
    }
    // The new values reach `uwr` after the row loop, from the last thread's
    // own copy (see the loops below): a store in the body, or a value
    // live out of the thread loop, kept the loop from vectorizing.
    if (!Promote.empty()) {
      DominatorTree DT2(*Body);
      PromoteMemToReg(Promote, DT2);
    }
  }

  // Every alloca becomes a frame slot (a thread's locals outlive each call).
  std::vector<AllocaInst *> Allocas;
  for (Instruction &I : instructions(*Body))
    if (auto *AI = dyn_cast<AllocaInst>(&I))
      Allocas.push_back(AI);
  // A predicate kept in the frame is a byte: stores and loads of i1 do not
  // vectorize as consecutive accesses (a vector of i1 is packed in bits),
  // and the loop vectorizer's cost model gave up thread loops for them.
  for (AllocaInst *AI : Allocas) {
    if (!AI->getAllocatedType()->isIntegerTy(1) || !AI->isStaticAlloca())
      continue;
    bool Plain = true;
    for (User *U : AI->users())
      Plain = Plain && (isa<LoadInst>(U) ? U->getType()->isIntegerTy(1)
                        : isa<StoreInst>(U) && cast<StoreInst>(U)->getPointerOperand() == AI &&
                              cast<StoreInst>(U)->getValueOperand()->getType()->isIntegerTy(1));
    if (!Plain)
      continue;
    AI->setAllocatedType(Type::getInt8Ty(C));
    for (User *U : make_early_inc_range(AI->users())) {
      IRBuilder<> B(cast<Instruction>(U));
      if (auto *SI = dyn_cast<StoreInst>(U)) {
        SI->setOperand(0, B.CreateZExt(SI->getValueOperand(), B.getInt8Ty()));
      } else {
        auto *LI = cast<LoadInst>(U);
        LoadInst *Byte = B.CreateLoad(B.getInt8Ty(), AI);
        Byte->copyMetadata(*LI);
        Value *Bit = B.CreateTrunc(Byte, B.getInt1Ty());
        LI->replaceAllUsesWith(Bit);
        LI->eraseFromParent();
      }
    }
  }
  std::stable_sort(Allocas.begin(), Allocas.end(),
                   [](AllocaInst *A, AllocaInst *B) { return A->getAlign() > B->getAlign(); });
  uint64_t Off = HeadBytes;
  for (AllocaInst *AI : Allocas) {
    uint64_t Count = cast<ConstantInt>(AI->getArraySize())->getZExtValue();
    uint64_t Align = std::max<uint64_t>(AI->getAlign().value(), 1);
    uint64_t Size = DL.getTypeAllocSize(AI->getAllocatedType()) * std::max<uint64_t>(Count, 1);
    Size = (Size + Align - 1) / Align * Align;
    Off = (Off + Align - 1) / Align * Align;
    // Lifetime markers would let the optimizer treat the slot as dead between calls.
    for (User *U : make_early_inc_range(AI->users()))
      if (auto *II = dyn_cast<IntrinsicInst>(U); II && II->isLifetimeStartOrEnd())
        II->eraseFromParent();
    // The address is computed where it is used: computed once in the
    // dispatch block, every slot's address would be live in every region
    // (a call running one thread would compute all of them).
    for (Use &U : make_early_inc_range(AI->uses())) {
      auto *User = cast<Instruction>(U.getUser());
      Instruction *At = User;
      if (auto *Phi = dyn_cast<PHINode>(User))
        At = Phi->getIncomingBlock(U)->getTerminator();
      IRBuilder<> B(At);
      U.set(slotAddr(B, Off, Size));
    }
    if (auto It = std::find(OwnCopies.begin(), OwnCopies.end(), AI); It != OwnCopies.end())
      UniformSlots[It - OwnCopies.begin()].Frame = static_cast<uint32_t>(Off);
    AI->eraseFromParent();
    Off += Size;
  }
  uint64_t FrameBytes = (Off + 63) / 64 * 64;

  // Threads between waits are independent: their memory accesses form one
  // access group that the loops below declare parallel.
  MDNode *Group = MDNode::getDistinct(C, {});
  markParallel(*Body, Group);

  // 3. Entry points.
  unsigned NPoints = static_cast<unsigned>(Points.size()) + 1;
  unsigned NLoops = std::min(NPoints, MaxLoops);
  // Each loop inlines the code its point reaches before the next wait: the
  // first points (in program order) get loops while their code fits in a
  // budget; the rest run through `.rgnany`, one copy of the body. Hot code
  // (a kernel's main loop) usually starts at the entry or the first waits,
  // and every loop costs compile time in proportion to its code.
  std::vector<uint64_t> Reach = pointSizes(*Body, Dispatch, NPoints);
  uint64_t Budget = std::max<uint64_t>(LoopBudget, Reach[0]), Used = 0;
  unsigned Fit = 0;
  while (Fit < NLoops && Used + Reach[Fit] <= Budget)
    Used += Reach[Fit++];
  NLoops = std::max(1u, Fit);
  ZLUDA_LOG_DEBUG("cpu compiler: kernel {}: {} instructions, body {}, {} resume points, {} loops over {} instructions",
                  K->getName().str(), K->getInstructionCount(), Body->getInstructionCount(), NPoints, NLoops, Used);
  auto copyTarget = [&](Function *F) {
    for (const char *A : {"target-cpu", "target-features", "tune-cpu"})
      if (K->hasFnAttribute(A))
        F->addFnAttr(K->getFnAttribute(A));
  };
  auto *InfoTy = StructType::get(C, {I64, I32, I32, I64, I32, I32});
  auto *InfoInit = ConstantStruct::get(
      InfoTy, {ConstantInt::get(I64, FrameBytes), ConstantInt::get(I32, NPoints), ConstantInt::get(I32, NLoops),
               ConstantInt::get(I64, alignTo(UniformBytes, 64)),
               ConstantInt::get(I32, static_cast<uint32_t>(UniformSlots.size())), ConstantInt::get(I32, 0)});
  new GlobalVariable(M, InfoTy, true, GlobalValue::ExternalLinkage, InfoInit, K->getName() + ".regions");
  {
    auto *ReqTy = ArrayType::get(I32, 2 + MaxArgs);
    std::vector<Constant *> Rows;
    for (const Request &Rq : Requests) {
      std::vector<Constant *> Words{ConstantInt::get(I32, Rq.Known), ConstantInt::get(I32, Rq.Op)};
      for (uint32_t A : Rq.Args)
        Words.push_back(ConstantInt::get(I32, A));
      Rows.push_back(ConstantArray::get(ReqTy, Words));
    }
    auto *TableTy = ArrayType::get(ReqTy, Rows.size());
    new GlobalVariable(M, TableTy, true, GlobalValue::ExternalLinkage, ConstantArray::get(TableTy, Rows),
                       K->getName() + ".requests");
  }
  if (!UniformSlots.empty()) {
    auto *SlotTy = ArrayType::get(I32, 3);
    std::vector<Constant *> Rows;
    for (const UniformSlot &U : UniformSlots)
      Rows.push_back(ConstantArray::get(
          SlotTy, {ConstantInt::get(I32, U.Area), ConstantInt::get(I32, U.Frame), ConstantInt::get(I32, U.Size)}));
    auto *TableTy = ArrayType::get(SlotTy, Rows.size());
    new GlobalVariable(M, TableTy, true, GlobalValue::ExternalLinkage, ConstantArray::get(TableTy, Rows),
                       K->getName() + ".uniforms");
  }

  auto *CtxTy = ArrayType::get(Type::getInt8Ty(C), sizeof(ZludaThreadCtx));
  auto field = [&](IRBuilder<> &B, Value *Local, size_t O) {
    return B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Local, O);
  };
  // A private copy of the block's context (the optimizer keeps its fields in
  // registers once the body is inlined).
  auto localCtx = [&](IRBuilder<> &B, Value *Tmpl) -> Value * {
    auto *A = B.CreateAlloca(CtxTy);
    A->setAlignment(Align(alignof(ZludaThreadCtx)));
    B.CreateMemCpy(A, Align(8), Tmpl, Align(8), sizeof(ZludaThreadCtx));
    return A;
  };
  auto setRow = [&](IRBuilder<> &B, Value *Local, Value *Row, Value *NY) {
    B.CreateStore(B.CreateURem(Row, NY), field(B, Local, offsetof(ZludaThreadCtx, Tid) + 4));
    B.CreateStore(B.CreateUDiv(Row, NY), field(B, Local, offsetof(ZludaThreadCtx, Tid) + 8));
  };
  auto setThread = [&](IRBuilder<> &B, Value *Local, Value *Tx, Value *Tl) {
    B.CreateStore(Tx, field(B, Local, offsetof(ZludaThreadCtx, Tid)));
    B.CreateStore(Tl, field(B, Local, offsetof(ZludaThreadCtx, LinearTid)));
    B.CreateStore(B.CreateAnd(Tl, 31), field(B, Local, offsetof(ZludaThreadCtx, LaneId)));
    B.CreateStore(B.CreateLShr(Tl, 5), field(B, Local, offsetof(ZludaThreadCtx, WarpId)));
  };

  // Loops: rows of the block (Tid.y/z) outside, the threads of a row inside
  // (Tid.x, consecutive threads: the loop that vectorizes).
  uint64_t ParamBytes = paramBytesRead(*K);
  auto *LoopTy = FunctionType::get(Type::getVoidTy(C), {P, P, P, I32, P, I32, I32, P, P}, false);
  // `.rgnany` takes the resume point (and whether uniform values come
  // from the block's area) as arguments: one copy of the body, not
  // vectorized, for the points without a loop of their own and for threads
  // out of step.
  auto *AnyTy = FunctionType::get(Type::getVoidTy(C), {P, P, P, I32, P, I32, I32, P, P, I32, I32}, false);
  for (unsigned Pt = 0; Pt <= NLoops; ++Pt) {
    const bool Any = Pt == NLoops;
    Function *F = Function::Create(Any ? AnyTy : LoopTy, GlobalValue::ExternalLinkage,
                                   K->getName() + (Any ? std::string(".rgnany") : ".rgn." + std::to_string(Pt)), M);
    copyTarget(F);
    F->addParamAttr(1, Attribute::NoAlias);
    F->addParamAttr(1, Attribute::ReadOnly);
    F->addParamAttr(2, Attribute::NoAlias);
    F->addParamAttr(4, Attribute::NoAlias);
    F->addParamAttr(7, Attribute::NoAlias);
    F->addParamAttr(8, Attribute::NoAlias);
    if (UniformBytes) // the uniform area's loads may leave the thread loop
      for (unsigned A : {7u, 8u}) {
        F->addDereferenceableParamAttr(A, UniformBytes);
        F->addParamAttr(A, Attribute::getWithAlignment(C, Align(64)));
      }
    if (ParamBytes) { // parameter loads may then leave conditional code and loops
      F->addDereferenceableParamAttr(1, ParamBytes);
      F->addParamAttr(1, Attribute::getWithAlignment(C, Align(8)));
    }
    BasicBlock *Entry = BasicBlock::Create(C, "entry", F);
    BasicBlock *Rows = BasicBlock::Create(C, "rows", F);
    BasicBlock *Threads = BasicBlock::Create(C, "threads", F);
    BasicBlock *RowEnd = BasicBlock::Create(C, "row.end", F);
    BasicBlock *Exit = BasicBlock::Create(C, "done", F);
    IRBuilder<> B(Entry);
    Value *T0 = F->getArg(5), *Count = F->getArg(6);
    Value *Local = localCtx(B, F->getArg(0));
    Value *NX = B.CreateLoad(I32, field(B, Local, offsetof(ZludaThreadCtx, NTid)));
    Value *NY = B.CreateLoad(I32, field(B, Local, offsetof(ZludaThreadCtx, NTid) + 4));
    Value *End = B.CreateAdd(T0, Count);
    Value *Tx0 = B.CreateURem(T0, NX), *Row0 = B.CreateUDiv(T0, NX);
    B.CreateCondBr(B.CreateICmpEQ(Count, B.getInt32(0)), Exit, Rows);

    B.SetInsertPoint(Rows);
    PHINode *Row = B.CreatePHI(I32, 2, "row"), *RowT = B.CreatePHI(I32, 2, "row.t"), *RowTx = B.CreatePHI(I32, 2, "row.tx");
    Row->addIncoming(Row0, Entry);
    RowT->addIncoming(T0, Entry);
    RowTx->addIncoming(Tx0, Entry);
    setRow(B, Local, Row, NY);
    Value *InRow = B.CreateBinaryIntrinsic(Intrinsic::umin, B.CreateSub(NX, RowTx), B.CreateSub(End, RowT));
    B.CreateBr(Threads);

    B.SetInsertPoint(Threads);
    PHINode *Iv = B.CreatePHI(I32, 2, "i");
    Iv->addIncoming(B.getInt32(0), Rows);
    Value *Tl = B.CreateAdd(RowT, Iv);
    setThread(B, Local, B.CreateAdd(RowTx, Iv), Tl);
    Value *From = Any ? static_cast<Value *>(F->getArg(9)) : B.getInt32(Pt);
    Value *FromRow = Any ? static_cast<Value *>(F->getArg(10)) : B.getInt32(1);
    CallInst *S = B.CreateCall(Body, {Local, F->getArg(1), F->getArg(2), F->getArg(3), Tl, From, F->getArg(7),
                                      F->getArg(8), FromRow});
    StoreInst *St = B.CreateStore(S, B.CreateInBoundsGEP(I32, F->getArg(4), B.CreateZExt(Tl, I64)));
    St->setMetadata(LLVMContext::MD_access_group, Group);
    Value *Next = B.CreateAdd(Iv, B.getInt32(1));
    Iv->addIncoming(Next, Threads);
    BranchInst *Latch = B.CreateCondBr(B.CreateICmpULT(Next, InRow), Threads, RowEnd);
    Latch->setMetadata(LLVMContext::MD_loop, parallelLoop(C, Group));

    B.SetInsertPoint(RowEnd);
    Value *NextT = B.CreateAdd(RowT, InRow);
    Row->addIncoming(B.CreateAdd(Row, B.getInt32(1)), RowEnd);
    RowT->addIncoming(NextT, RowEnd);
    RowTx->addIncoming(B.getInt32(0), RowEnd);
    BasicBlock *After = Exit;
    if (!UniformSlots.empty())
      After = BasicBlock::Create(C, "uniforms", F, Exit);
    B.CreateCondBr(B.CreateICmpULT(NextT, End), Rows, After)->setMetadata(LLVMContext::MD_loop, notUnrolled(C));
    if (After != Exit) {
      // The step's uniform values, from the last thread's own copies (a
      // value is defined by every thread or by none: its own copy then
      // still holds the earlier definition, which the area held too).
      B.SetInsertPoint(After);
      Value *N64 = B.CreateZExt(F->getArg(3), I64);
      Value *Last64 = B.CreateZExt(B.CreateSub(End, B.getInt32(1)), I64);
      for (const UniformSlot &U : UniformSlots) {
        Value *Src = B.CreateInBoundsGEP(
            B.getInt8Ty(), F->getArg(2),
            B.CreateAdd(B.CreateMul(N64, B.getInt64(U.Frame)), B.CreateMul(Last64, B.getInt64(U.Size))));
        B.CreateMemCpy(B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), F->getArg(8), U.Area), Align(1), Src, Align(1),
                       U.Size);
      }
      B.CreateBr(Exit);
    }
    B.SetInsertPoint(Exit);
    B.CreateRetVoid();
  }

  return true;
}

} // namespace zluda::cpu::regions
