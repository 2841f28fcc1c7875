//===- Split.cpp - cutting a lowered module into compile units -------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "ptx/codegen/Split.h"

#include <llvm/ADT/DenseSet.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <set>

namespace zluda::ptx {

using namespace llvm;

std::string UnitSpec::id() const {
  std::string S = WithGlobals ? "globals" : "";
  for (const std::string &K : Kernels)
    S += "," + K;
  return S;
}

namespace {

/// The global values \p C refers to, through constant expressions and
/// aggregates.
void collectRefs(const Constant *C, std::vector<const GlobalValue *> &Out, DenseSet<const Constant *> &Seen) {
  if (auto *GV = dyn_cast<GlobalValue>(C)) {
    Out.push_back(GV);
    return;
  }
  // Numbers and other data refer to nothing: most operands, not worth a set
  // insertion each.
  if (C->getNumOperands() == 0 || !Seen.insert(C).second)
    return;
  for (const Use &U : C->operands())
    if (auto *Op = dyn_cast<Constant>(U.get()))
      collectRefs(Op, Out, Seen);
}

} // namespace

std::unique_ptr<Module> extractUnit(const Module &M, const UnitSpec &U) {
  std::set<std::string> Mine(U.Kernels.begin(), U.Kernels.end());
  std::set<const GlobalValue *> Kernels;
  for (const Function &F : M)
    if (F.hasFnAttribute("zluda-kernel"))
      Kernels.insert(&F);
  // Which definitions this unit carries.
  auto defines = [&](const GlobalValue *GV) {
    if (GV->isDeclaration())
      return false;
    if (auto *F = dyn_cast<Function>(GV))
      return Kernels.count(F) ? Mine.count(F->getName().str()) != 0 : true;
    if (GV->hasLocalLinkage())
      return true; // private constants: every unit that uses them has a copy
    return U.WithGlobals;
  };
  // Everything reachable from the roots.
  std::vector<const GlobalValue *> Work;
  for (const std::string &K : U.Kernels)
    if (const Function *F = M.getFunction(K))
      Work.push_back(F);
  if (U.WithGlobals)
    for (const GlobalVariable &G : M.globals())
      Work.push_back(&G);
  std::vector<const GlobalValue *> Order;
  std::set<const GlobalValue *> Reached;
  DenseSet<const Constant *> SeenConst;
  while (!Work.empty()) {
    const GlobalValue *GV = Work.back();
    Work.pop_back();
    if (!Reached.insert(GV).second)
      continue;
    Order.push_back(GV);
    if (!defines(GV))
      continue;
    std::vector<const GlobalValue *> Refs;
    if (auto *F = dyn_cast<Function>(GV)) {
      for (const BasicBlock &BB : *F)
        for (const Instruction &I : BB)
          for (const Use &Op : I.operands())
            if (auto *C = dyn_cast<Constant>(Op.get()))
              collectRefs(C, Refs, SeenConst);
    } else if (auto *G = dyn_cast<GlobalVariable>(GV); G && G->hasInitializer()) {
      collectRefs(G->getInitializer(), Refs, SeenConst);
    }
    for (const GlobalValue *R : Refs)
      if (!Reached.count(R))
        Work.push_back(R);
  }

  auto Out = std::make_unique<Module>(M.getName(), M.getContext());
  Out->setDataLayout(M.getDataLayout());
  Out->setTargetTriple(M.getTargetTriple());
  // Module flags (the debug-info version of -lineinfo modules, ...).
  SmallVector<Module::ModuleFlagEntry, 8> Flags;
  M.getModuleFlagsMetadata(Flags);
  for (const Module::ModuleFlagEntry &F : Flags)
    Out->addModuleFlag(F.Behavior, F.Key->getString(), F.Val);
  ValueToValueMapTy VMap;
  // Declarations first, so that bodies and initializers can refer to anything.
  for (const GlobalValue *GV : Order) {
    if (auto *F = dyn_cast<Function>(GV)) {
      Function *NF = Function::Create(F->getFunctionType(), GlobalValue::ExternalLinkage, F->getName(), *Out);
      NF->copyAttributesFrom(F);
      VMap[F] = NF;
    } else if (auto *G = dyn_cast<GlobalVariable>(GV)) {
      auto *NG = new GlobalVariable(*Out, G->getValueType(), G->isConstant(), GlobalValue::ExternalLinkage, nullptr,
                                    G->getName(), nullptr, G->getThreadLocalMode(), G->getAddressSpace());
      NG->copyAttributesFrom(G);
      VMap[G] = NG;
    }
  }
  for (const GlobalValue *GV : Order) {
    if (!defines(GV))
      continue;
    if (auto *F = dyn_cast<Function>(GV)) {
      auto *NF = cast<Function>(VMap[F]);
      auto NA = NF->arg_begin();
      for (const Argument &A : F->args()) {
        NA->setName(A.getName());
        VMap[&A] = &*NA++;
      }
      SmallVector<ReturnInst *, 4> Returns;
      CloneFunctionInto(NF, F, VMap, CloneFunctionChangeType::DifferentModule, Returns);
      NF->setLinkage(Kernels.count(F) ? GlobalValue::ExternalLinkage : GlobalValue::InternalLinkage);
      // The function's own values are not referred to again: out of the map,
      // which otherwise grows to every instruction of the unit (each of its
      // entries a value handle, moved at every rehash: 2.9 s for the 1.4
      // million instructions of Blender's largest kernel).
      for (const Argument &A : F->args())
        VMap.erase(&A);
      for (const BasicBlock &BB : *F) {
        for (const Instruction &I : BB)
          VMap.erase(&I);
        VMap.erase(&BB);
      }
    } else if (auto *G = dyn_cast<GlobalVariable>(GV)) {
      auto *NG = cast<GlobalVariable>(VMap[G]);
      if (G->hasInitializer())
        NG->setInitializer(MapValue(G->getInitializer(), VMap));
      NG->setLinkage(G->getLinkage());
    }
  }
  // Cloning across modules leaves an empty list of compile units behind,
  // which readers of the bitcode take for broken debug info.
  if (NamedMDNode *CUs = Out->getNamedMetadata("llvm.dbg.cu"); CUs && CUs->getNumOperands() == 0)
    Out->eraseNamedMetadata(CUs);
  return Out;
}

std::vector<UnitSpec> groupKernels(const Module &M, const std::vector<std::string> &Kernels, size_t Budget) {
  std::vector<UnitSpec> Units(1);
  Units[0].WithGlobals = true;
  size_t Size = 0;
  for (const std::string &K : Kernels) {
    size_t N = 1;
    if (const Function *F = M.getFunction(K))
      N += F->getInstructionCount();
    if (!Units.back().Kernels.empty() && Size + N > Budget) {
      Units.emplace_back();
      Size = 0;
    }
    Units.back().Kernels.push_back(K);
    Size += N;
  }
  return Units;
}

} // namespace zluda::ptx
