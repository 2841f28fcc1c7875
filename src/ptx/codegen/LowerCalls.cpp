//===- LowerCalls.cpp - PTX calls in LLVM IR --------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file FnLowering::lowerCall: direct calls, calls through a pointer (with
/// their prototype or list of targets), and the parameters and results
/// passed through .param space.
#include "ptx/codegen/LowerImpl.h"

namespace zluda::ptx {

using namespace llvm;

void FnLowering::lowerCall(const Instruction &In) {
  // call{.uni} [(rets),] fn [, (args)] [, proto | targets];
  size_t I = 0;
  const Operand *Rets = nullptr, *Args = nullptr, *Callee = nullptr;
  if (I < In.Ops.size() && In.Ops[I].Kind == Operand::OK_Paren)
    Rets = &In.Ops[I++];
  if (I >= In.Ops.size())
    fail("call without a callee");
  Callee = &In.Ops[I++];
  if (I < In.Ops.size() && In.Ops[I].Kind == Operand::OK_Paren)
    Args = &In.Ops[I++];
  std::vector<Value *> CallArgs{Ctx};
  std::vector<std::pair<const Operand *, Value *>> RegCopies;
  auto passByRef = [&](const Operand &O, bool IsRet) {
    if (O.Kind == Operand::OK_Name) {
      Sym *S = lookup(O.Name);
      if (S && S->Kind == Sym::SK_Mem) {
        CallArgs.push_back(S->Ptr);
        return;
      }
      if (S && S->Kind == Sym::SK_Reg) {
        auto *Tmp = AllocaB.CreateAlloca(S->Ty);
        if (!IsRet)
          B.CreateStore(B.CreateLoad(S->Ty, S->Ptr), Tmp);
        else
          RegCopies.push_back({&O, Tmp});
        CallArgs.push_back(Tmp);
        return;
      }
    }
    if (!IsRet && (O.Kind == Operand::OK_Int || O.Kind == Operand::OK_Float)) {
      auto *Tmp = AllocaB.CreateAlloca(B.getInt64Ty());
      B.CreateStore(get(O, O.Kind == Operand::OK_Int ? ScalarType::B64 : ScalarType::F64), Tmp);
      CallArgs.push_back(Tmp);
      return;
    }
    fail("unsupported call argument '" + print(O) + "'");
  };
  if (Rets)
    for (const Operand &O : Rets->Elems)
      passByRef(O, true);
  if (Args)
    for (const Operand &O : Args->Elems)
      passByRef(O, false);
  Sym *S = Callee->Kind == Operand::OK_Name ? lookup(Callee->Name) : nullptr;
  if (S && S->Kind == Sym::SK_Func) {
    llvm::Function *Target = S->F;
    if (Target->arg_size() != CallArgs.size())
      fail("call to '" + Callee->Name + "' passes " + std::to_string(CallArgs.size() - 1) +
           " arguments, the function takes " + std::to_string(Target->arg_size() - 1));
    B.CreateCall(Target, CallArgs);
  } else {
    // Indirect call through a register holding a function address.
    Value *Addr = get(*Callee, ScalarType::U64);
    std::vector<Type *> Tys(CallArgs.size(), B.getPtrTy());
    auto *FT = FunctionType::get(B.getVoidTy(), Tys, false);
    B.CreateCall(FT, B.CreateIntToPtr(Addr, B.getPtrTy()), CallArgs);
  }
  for (auto &[O, Tmp] : RegCopies) {
    Sym *R = lookup(O->Name);
    B.CreateStore(B.CreateLoad(R->Ty, Tmp), R->Ptr);
  }
}

} // namespace zluda::ptx
