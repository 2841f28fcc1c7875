//===- LowerToLLVM.cpp - PTX IR to LLVM IR ---------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Module- and function-level lowering: symbols, scopes, registers,
/// parameters, shared-memory layout, operands, control flow and calls. The
/// semantics of individual instructions are in LowerInstructions.cpp.
///
/// Conventions of the generated code:
///  - every PTX function gets a leading `ptr %ctx` (the thread context, opaque
///    here, interpreted by the target's device runtime);
///  - a kernel is `void @name(ptr %ctx, ptr %params)`, the parameters laid out
///    as CUDA lays out kernel arguments (KernelInfo::Params);
///  - a .func is `void @name(ptr %ctx, ptr %ret0.., ptr %arg0..)`: every
///    return value and argument is passed by reference to its storage;
///  - registers are allocas in the entry block (mem2reg makes them SSA);
///  - .shared addresses are offsets from the block's shared window
///    (__zluda_ptx_shared_base); every other space is addressed with host
///    pointers, so cvta is the identity except for .shared.
#include "ptx/codegen/LowerImpl.h"
#include "ptx/codegen/WarpSemantics.h"
#include "ptx/Link.h"

#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <cctype>
#include <cstdio>

namespace zluda::ptx {

using namespace llvm;

namespace {
uint64_t alignTo(uint64_t V, uint64_t A) { return A ? (V + A - 1) / A * A : V; }

/// The value of a float literal (0d... bits, or 0f.../decimal f32 bits).
double floatLiteral(uint64_t Bits, bool IsDouble) {
  if (IsDouble) {
    double D;
    std::memcpy(&D, &Bits, 8);
    return D;
  }
  float F;
  uint32_t B = static_cast<uint32_t>(Bits);
  std::memcpy(&F, &B, 4);
  return F;
}
} // namespace

// --- types -------------------------------------------------------------------

Type *LowerCtx::storageType(ScalarType T) {
  unsigned Bits = bitWidth(T);
  switch (T) {
  case ScalarType::Pred:
    return Type::getInt1Ty(C);
  case ScalarType::F32:
    return Type::getFloatTy(C);
  case ScalarType::F64:
    return Type::getDoubleTy(C);
  case ScalarType::Texref:
  case ScalarType::Samplerref:
  case ScalarType::Surfref:
    return Type::getInt64Ty(C);
  default:
    return Type::getIntNTy(C, Bits < 8 ? 8 : Bits);
  }
}

Type *LowerCtx::declType(const VarDecl &V) {
  Type *T = storageType(V.Type);
  if (V.VectorWidth)
    T = ArrayType::get(T, V.VectorWidth);
  for (auto It = V.Dims.rbegin(); It != V.Dims.rend(); ++It)
    T = ArrayType::get(T, *It ? *It : 0);
  return T;
}

uint64_t LowerCtx::declSize(const VarDecl &V) {
  uint64_t N = V.elementSize();
  for (uint64_t D : V.Dims)
    N *= D;
  return N;
}

uint64_t LowerCtx::declAlign(const VarDecl &V) {
  return V.Align ? V.Align : std::max<uint64_t>(1, V.elementSize());
}

// --- runtime functions ---------------------------------------------------------

FunctionCallee LowerCtx::rt(RtFn Fn) {
  auto &Slot = RtCache[static_cast<size_t>(Fn)];
  if (Slot.getCallee())
    return Slot;
  Type *V = Type::getVoidTy(C), *I1 = Type::getInt1Ty(C), *I8 = Type::getInt8Ty(C),
       *I16 = Type::getInt16Ty(C), *I32 = Type::getInt32Ty(C), *I64 = Type::getInt64Ty(C),
       *F32 = Type::getFloatTy(C), *F64 = Type::getDoubleTy(C), *P = PointerType::get(C, 0);
  (void)V, (void)I1, (void)I8, (void)I16, (void)I32, (void)I64, (void)F32, (void)F64, (void)P;
  FunctionType *FT = nullptr;
  const char *Name = nullptr;
  switch (Fn) {
#define PTX_RT(N, Ret, ...)                                                                        \
  case RtFn::N:                                                                                    \
    FT = FunctionType::get(Ret, {__VA_ARGS__}, false);                                             \
    Name = "__zluda_ptx_" #N;                                                                      \
    break;
#include "ptx/codegen/DeviceRuntime.def"
  case RtFn::NumRt:
    break;
  }
  Slot = M.getOrInsertFunction(Name, FT);
  if (auto *F = dyn_cast<llvm::Function>(Slot.getCallee()))
    F->setDoesNotThrow();
  return Slot;
}

// --- module ------------------------------------------------------------------

namespace {
/// Every name an instruction refers to (operands, address bases, nested lists).
void namesOf(const Operand &O, std::vector<std::string> &Out) {
  if ((O.Kind == Operand::OK_Name || O.Kind == Operand::OK_Address) && !O.Name.empty())
    Out.push_back(O.Name);
  for (const Operand &E : O.Elems)
    namesOf(E, Out);
}

/// Whether a warp's lanes meet in the instruction (barriers, warp collectives,
/// the matrix instructions that gather across lanes): the CPU device stops
/// each lane there until the others come.
bool lanesMeetIn(Opcode Op) {
  switch (Op) {
  case Opcode::Bar:
  case Opcode::Barrier:
  case Opcode::Shfl:
  case Opcode::Vote:
  case Opcode::Match:
  case Opcode::Redux:
  case Opcode::Activemask:
  case Opcode::Elect:
  case Opcode::Wmma: // mma is a warp collective
  case Opcode::Mma:
  case Opcode::Wgmma: // per warp, a collective as mma
  case Opcode::Ldmatrix:
  case Opcode::Stmatrix: // through shuffles
  case Opcode::Movmatrix:
    return true;
  default:
    return false;
  }
}

/// LowerCtx::LanesApart: one instruction's step through a straight-line
/// stretch, \p Stored saying whether a shared store came since the lanes last
/// met. True when the lanes must meet before the instruction (a shared load
/// after shared stores).
bool sharedMeetingStep(const Instruction &In, bool &Stored) {
  if (lanesMeetIn(In.Op)) {
    Stored = false; // the lanes meet in it (an unguarded one: all that reach it)
    return false;
  }
  bool Shared = In.space() == StateSpace::Shared;
  if ((In.Op == Opcode::St || In.Op == Opcode::Atom || In.Op == Opcode::Red) && Shared)
    Stored = true;
  if (In.Op != Opcode::Ld || !Shared || !Stored)
    return false;
  Stored = false;
  return true;
}
} // namespace

// Shared memory is laid out per kernel: a block runs one kernel, so variables
// that no kernel uses together may overlap. Each variable gets one offset for
// the whole module (callees shared by several kernels address it the same
// way), chosen greedily so that the variables a kernel can reach (its own and
// its callees', transitively) never overlap. Dynamic (`extern .shared x[]`)
// arrays start after each kernel's static part, an offset known at run time.
void LowerCtx::collectShared() {
  std::unordered_map<std::string, std::vector<const VarDecl *>> Uses;
  std::unordered_map<std::string, std::vector<std::string>> Callees;
  std::vector<const Function *> Bodies;
  for (const TopLevel &T : PM.Items) {
    if (T.Kind == TopLevel::TK_Var && (T.Var.Space == StateSpace::Shared || T.Var.Space == StateSpace::SharedCta)) {
      ModuleShared[T.Var.Name] = &T.Var;
      if (T.Var.Link == Linkage::Extern && !T.Var.Dims.empty() && T.Var.Dims[0] == 0)
        DynamicShared.push_back(&T.Var);
    }
  }
  for (const TopLevel &T : PM.Items) {
    if (T.Kind != TopLevel::TK_Function || !T.Func.HasBody)
      continue;
    Bodies.push_back(&T.Func);
    auto &U = Uses[T.Func.Name];
    std::vector<std::string> Names;
    for (const Statement &S : T.Func.Body) {
      if (S.Kind == Statement::SK_Decl && (S.Decl.Space == StateSpace::Shared || S.Decl.Space == StateSpace::SharedCta)) {
        if (S.Decl.Link == Linkage::Extern && !S.Decl.Dims.empty() && S.Decl.Dims[0] == 0)
          DynamicShared.push_back(&S.Decl);
        else
          U.push_back(&S.Decl);
      }
      if (S.Kind == Statement::SK_Instruction) {
        Names.clear();
        for (const Operand &O : S.Inst.Ops)
          namesOf(O, Names);
        for (const std::string &N : Names) {
          if (auto It = ModuleShared.find(N); It != ModuleShared.end())
            U.push_back(It->second);
          if (S.Inst.Op == Opcode::Call)
            Callees[T.Func.Name].push_back(N);
        }
      }
    }
  }
  auto isDynamic = [&](const VarDecl *V) {
    return std::find(DynamicShared.begin(), DynamicShared.end(), V) != DynamicShared.end();
  };
  // Per kernel: the static shared variables it can reach.
  std::vector<std::pair<const Function *, std::vector<const VarDecl *>>> Sets;
  for (const Function *F : Bodies) {
    std::vector<const VarDecl *> Vars;
    std::set<std::string> Seen{F->Name};
    std::vector<std::string> Work{F->Name};
    while (!Work.empty()) {
      std::string Fn = Work.back();
      Work.pop_back();
      for (const VarDecl *V : Uses[Fn])
        if (!isDynamic(V) && std::find(Vars.begin(), Vars.end(), V) == Vars.end())
          Vars.push_back(V);
      for (const std::string &C : Callees[Fn])
        if (Uses.count(C) && Seen.insert(C).second)
          Work.push_back(C);
    }
    Sets.push_back({F, std::move(Vars)});
  }
  // Greedy placement: lowest aligned offset free of every placed variable
  // that shares a kernel with this one.
  for (auto &[F, Vars] : Sets)
    for (const VarDecl *V : Vars) {
      if (SharedOffsets.count(V))
        continue;
      std::vector<std::pair<uint64_t, uint64_t>> Busy;
      for (auto &[F2, Vars2] : Sets)
        if (std::find(Vars2.begin(), Vars2.end(), V) != Vars2.end())
          for (const VarDecl *W : Vars2)
            if (auto It = SharedOffsets.find(W); It != SharedOffsets.end())
              Busy.push_back({It->second, It->second + declSize(*W)});
      std::sort(Busy.begin(), Busy.end());
      uint64_t Off = 0, Size = declSize(*V), A = declAlign(*V);
      for (auto [Lo, Hi] : Busy) {
        Off = alignTo(Off, A);
        if (Off + Size <= Lo)
          break;
        Off = std::max(Off, Hi);
      }
      SharedOffsets[V] = alignTo(Off, A);
    }
  for (auto &[F, Vars] : Sets) {
    uint64_t End = 0;
    for (const VarDecl *V : Vars)
      End = std::max(End, SharedOffsets[V] + declSize(*V));
    KernelShared[F->Name] = alignTo(End, 16);
  }
}

Constant *LowerCtx::initializer(const Initializer &In, Type *Ty, ScalarType ElemPT) {
  if (In.Kind == Initializer::IK_List) {
    auto *AT = dyn_cast<ArrayType>(Ty);
    if (!AT)
      throw LowerFail{0, "initializer list for a scalar"};
    std::vector<Constant *> Elems;
    for (uint64_t I = 0; I < AT->getNumElements(); ++I)
      Elems.push_back(I < In.Elems.size() ? initializer(In.Elems[I], AT->getElementType(), ElemPT)
                                          : Constant::getNullValue(AT->getElementType()));
    return ConstantArray::get(AT, Elems);
  }
  if (auto *AT = dyn_cast<ArrayType>(Ty)) {
    // A scalar initializing an array fills its first element (PTX zero-fills the rest).
    std::vector<Constant *> Elems(AT->getNumElements(), Constant::getNullValue(AT->getElementType()));
    if (!Elems.empty())
      Elems[0] = initializer(In, AT->getElementType(), ElemPT);
    return ConstantArray::get(AT, Elems);
  }
  switch (In.Kind) {
  case Initializer::IK_Int:
    if (Ty->isFloatingPointTy())
      return ConstantFP::get(Ty, static_cast<double>(In.Int));
    return ConstantInt::get(Ty, static_cast<uint64_t>(In.Int), true);
  case Initializer::IK_Float: {
    double D = floatLiteral(In.FloatBits, In.IsDouble);
    if (Ty->isFloatingPointTy())
      return ConstantFP::get(Ty, D);
    // A float initializing a bit-typed variable: its bits.
    if (Ty->getIntegerBitWidth() == 32) {
      float F = static_cast<float>(D);
      uint32_t B;
      std::memcpy(&B, &F, 4);
      return ConstantInt::get(Ty, B);
    }
    uint64_t B;
    std::memcpy(&B, &D, 8);
    return ConstantInt::get(Ty, B);
  }
  case Initializer::IK_Symbol:
  case Initializer::IK_Generic: {
    Constant *Target = nullptr;
    if (auto It = GlobalVars.find(In.Symbol); It != GlobalVars.end())
      Target = It->second;
    else if (auto Ft = Funcs.find(In.Symbol); Ft != Funcs.end())
      Target = Ft->second;
    if (!Target)
      throw LowerFail{0, "initializer refers to unknown symbol '" + In.Symbol + "'"};
    Constant *Addr = ConstantExpr::getPtrToInt(Target, Type::getInt64Ty(C));
    if (In.Int)
      Addr = ConstantExpr::getAdd(Addr, ConstantInt::get(Type::getInt64Ty(C), In.Int));
    if (Ty->isIntegerTy(64))
      return Addr;
    if (Ty->isIntegerTy())
      return ConstantExpr::getTrunc(Addr, Ty);
    throw LowerFail{0, "symbol address initializing a non-integer"};
  }
  case Initializer::IK_List:
    break;
  }
  return Constant::getNullValue(Ty);
}

void LowerCtx::declareGlobals() {
  for (const TopLevel &T : PM.Items) {
    if (T.Kind != TopLevel::TK_Var)
      continue;
    const VarDecl &V = T.Var;
    if (V.Space == StateSpace::Shared || V.Space == StateSpace::SharedCta)
      continue;
    if (V.Space != StateSpace::Global && V.Space != StateSpace::Const &&
        V.Space != StateSpace::Tex)
      throw LowerFail{V.Loc.Line, "module-scope variables in " + std::string(spelling(V.Space)) +
                                      " are not supported"};
    Type *Ty = declType(V);
    bool IsExternDecl = V.Link == Linkage::Extern;
    auto *G = new GlobalVariable(M, Ty, /*isConstant=*/false,
                                 IsExternDecl ? GlobalValue::ExternalLinkage
                                 : V.Link == Linkage::Weak || V.Link == Linkage::Common
                                     ? GlobalValue::WeakAnyLinkage
                                     : GlobalValue::ExternalLinkage,
                                 nullptr, V.Name);
    G->setAlignment(Align(std::max<uint64_t>(declAlign(V), 8)));
    GlobalVars[V.Name] = G;
    bool IsTex = V.Type == ScalarType::Texref || V.Type == ScalarType::Surfref ||
                 V.Type == ScalarType::Samplerref;
    GlobalInfo GI{V.Name, declSize(V), V.Space, IsTex};
    if (IsTex)
      GI.Size = 8;
    Info.Globals.push_back(GI);
    if (!IsExternDecl)
      G->setInitializer(Constant::getNullValue(Ty));
  }
  // Initializers may take the address of any global or function: set them
  // once everything is declared.
  for (const TopLevel &T : PM.Items)
    if (T.Kind == TopLevel::TK_Var && T.Var.Init) {
      auto It = GlobalVars.find(T.Var.Name);
      if (It == GlobalVars.end() || !It->second) // e.g. .shared: its memory is per block, never initialized
        throw LowerFail{T.Var.Loc.Line, "'" + T.Var.Name + "' cannot have an initializer (" +
                                            std::string(spelling(T.Var.Space)) + " variable)", true, T.Var.Loc.Col};
      auto *G = It->second;
      try {
        G->setInitializer(initializer(*T.Var.Init, G->getValueType(), T.Var.Type));
      } catch (LowerFail &F) {
        F.Line = T.Var.Loc.Line;
        throw;
      }
    }
}

bool LowerCtx::isBuiltinExtern(const std::string &Name) { return ptx::isBuiltinExtern(Name); }

llvm::Constant *LowerCtx::kernelRef(llvm::StringRef Name) {
  std::string GName = ("__zluda_kernel_ref." + Name).str();
  if (GlobalVariable *G = M.getNamedGlobal(GName))
    return G;
  Constant *Str = ConstantDataArray::getString(C, Name, true);
  auto *G = new GlobalVariable(M, Str->getType(), true, GlobalValue::PrivateLinkage, Str, GName);
  G->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  return G;
}

void LowerCtx::declareFunctions() {
  Type *P = PointerType::get(C, 0);
  for (const TopLevel &T : PM.Items) {
    if (T.Kind != TopLevel::TK_Function)
      continue;
    const Function &PF = T.Func;
    if (Funcs.count(PF.Name)) {
      if (PF.HasBody) {
        auto It = FuncDefs.find(PF.Name);
        if (It != FuncDefs.end() && It->second->Link != Linkage::Weak && PF.Link != Linkage::Weak)
          throw LowerFail{PF.Loc.Line, "'" + PF.Name + "' is defined twice (first at line " +
                                           std::to_string(It->second->Loc.Line) + ")", true, PF.Loc.Col};
        if (It == FuncDefs.end())
          FuncDefs[PF.Name] = &PF;
      }
      continue;
    }
    std::vector<Type *> Params{P};
    if (PF.IsEntry)
      Params.push_back(P);
    else
      Params.insert(Params.end(), PF.Returns.size() + PF.Params.size(), P);
    auto *FT = FunctionType::get(Type::getVoidTy(C), Params, false);
    auto *F = llvm::Function::Create(FT, GlobalValue::ExternalLinkage, PF.Name, M);
    F->setDoesNotThrow();
    if (PF.IsEntry)
      F->addFnAttr("zluda-kernel"); // how later stages (Split.cpp) tell kernels from functions
    Funcs[PF.Name] = F;
    FuncDecls[PF.Name] = &PF;
    if (PF.HasBody)
      FuncDefs[PF.Name] = &PF;
  }
}

// Builtin .extern functions of the CUDA ABI, given bodies that forward to the
// device runtime (the PTX passes their arguments as .param storage).
void LowerCtx::defineBuiltin(llvm::Function *F, const std::string &Name) {
  // The declaration must have the CUDA ABI's shape (bytes of each return and
  // parameter): the bodies below read exactly that much .param storage.
  // Never destroyed: a background compile may run while static destructors do.
  static const auto &Shapes = *new std::unordered_map<std::string, std::pair<std::vector<int>, std::vector<int>>>{
      {"vprintf", {{4}, {8, 8}}},
      {"__assertfail", {{}, {8, 8, 4, 8, 8}}},
      {"malloc", {{8}, {8}}},
      {"free", {{}, {8}}},
      {"__cudaCDP2GetParameterBufferV2", {{8}, {8, 12, 12, 4}}},
      {"cudaGetParameterBufferV2", {{8}, {8, 12, 12, 4}}},
      {"cudaGetParameterBuffer", {{8}, {8, 8}}},
      {"__cudaCDP2LaunchDeviceV2", {{4}, {8, 8}}},
      {"cudaLaunchDeviceV2", {{4}, {8, 8}}},
      {"cudaLaunchDevice", {{4}, {8, 8, 12, 12, 4, 8}}},
      {"cudaCGGetIntrinsicHandle", {{8}, {4}}},
      {"cudaCGSynchronize", {{4}, {8, 4}}},
      {"cudaCGSynchronizeGrid", {{4}, {8, 4}}},
      {"cudaCGGetSize", {{4}, {8, 8, 8}}},
      {"cudaCGGetRank", {{4}, {8, 8, 8}}},
      {"cudaGetDevice", {{4}, {8}}},
      {"__cudaCDP2GetDevice", {{4}, {8}}},
      {"cudaStreamCreateWithFlags", {{4}, {8, 4}}},
      {"__cudaCDP2StreamCreateWithFlags", {{4}, {8, 4}}},
      {"cudaStreamDestroy", {{4}, {8}}},
      {"__cudaCDP2StreamDestroy", {{4}, {8}}},
      {"cudaGetLastError", {{4}, {}}},
      {"__cudaCDP2GetLastError", {{4}, {}}},
      {"cudaPeekAtLastError", {{4}, {}}},
      {"__cudaCDP2PeekAtLastError", {{4}, {}}},
      {"cudaGraphSetConditional", {{}, {8, 4}}},
  };
  if (auto It = Shapes.find(Name); It != Shapes.end()) {
    const Function *PF = FuncDecls.at(Name);
    auto sizes = [](const std::vector<VarDecl> &Vs) {
      std::vector<int> R;
      for (const VarDecl &V : Vs) {
        uint64_t N = V.elementSize();
        for (uint64_t D : V.Dims)
          N *= D;
        R.push_back(static_cast<int>(N));
      }
      return R;
    };
    if (sizes(PF->Returns) != It->second.first || sizes(PF->Params) != It->second.second)
      throw LowerFail{PF->Loc.Line, "'" + Name + "' is declared with another signature than CUDA's", true, PF->Loc.Col};
  }
  IRBuilder<> B(BasicBlock::Create(C, "entry", F));
  Value *Ctx = F->getArg(0);
  Type *P = PointerType::get(C, 0), *I32 = Type::getInt32Ty(C), *I64 = Type::getInt64Ty(C);
  auto ptrArg = [&](unsigned I) {
    return B.CreateIntToPtr(B.CreateLoad(I64, F->getArg(I)), P);
  };
  if (Name == "vprintf") {
    // (.param .b32 ret) vprintf(.param .b64 fmt, .param .b64 args)
    Value *R = B.CreateCall(rt(RtFn::vprintf), {Ctx, ptrArg(2), ptrArg(3)});
    B.CreateStore(R, F->getArg(1));
  } else if (Name == "cudaGraphSetConditional") {
    // (.b64 handle, .b32 value): the driver's handle is the address of the
    // node's 32-bit condition (src/driver/Graph.cpp).
    B.CreateStore(B.CreateLoad(I32, F->getArg(2)), ptrArg(1), /*isVolatile=*/true);
  } else if (Name == "__assertfail") {
    // __assertfail(msg, file, line, function, charSize)
    B.CreateCall(rt(RtFn::assertfail), {Ctx, ptrArg(1), ptrArg(2), B.CreateLoad(I32, F->getArg(3)),
                                        ptrArg(4), B.CreateLoad(I64, F->getArg(5))});
  } else if (Name == "malloc") {
    Value *R = B.CreateCall(rt(RtFn::malloc), {Ctx, B.CreateLoad(I64, F->getArg(2))});
    B.CreateStore(B.CreatePtrToInt(R, I64), F->getArg(1));
  } else if (Name == "free") {
    B.CreateCall(rt(RtFn::free), {Ctx, ptrArg(1)});
  } else if (Name == "__cudaCDP2GetParameterBufferV2" || Name == "cudaGetParameterBufferV2") {
    // (.b64 buffer) (.b64 kernel, .b8 grid[12], .b8 block[12], .b32 shared)
    Value *R = B.CreateCall(rt(RtFn::cdp_buffer), {Ctx, B.CreateLoad(I64, F->getArg(2)), F->getArg(3), F->getArg(4),
                                                   B.CreateLoad(I32, F->getArg(5)), B.getInt64(0)});
    B.CreateStore(B.CreatePtrToInt(R, I64), F->getArg(1));
  } else if (Name == "cudaGetParameterBuffer") {
    // (.b64 buffer) (.b64 alignment, .b64 size)
    Value *Null = ConstantPointerNull::get(cast<PointerType>(P));
    Value *R = B.CreateCall(rt(RtFn::cdp_buffer),
                            {Ctx, B.getInt64(0), Null, Null, B.getInt32(0), B.CreateLoad(I64, F->getArg(3))});
    B.CreateStore(B.CreatePtrToInt(R, I64), F->getArg(1));
  } else if (Name == "__cudaCDP2LaunchDeviceV2" || Name == "cudaLaunchDeviceV2") {
    // (.b32 error) (.b64 buffer, .b64 stream)
    Value *Null = ConstantPointerNull::get(cast<PointerType>(P));
    Value *R = B.CreateCall(rt(RtFn::cdp_launch), {Ctx, ptrArg(2), B.CreateLoad(I64, F->getArg(3)), B.getInt64(0),
                                                   Null, Null, B.getInt32(0)});
    B.CreateStore(R, F->getArg(1));
  } else if (Name == "cudaLaunchDevice") {
    // (.b32 error) (.b64 kernel, .b64 buffer, .b8 grid[12], .b8 block[12], .b32 shared, .b64 stream)
    Value *R = B.CreateCall(rt(RtFn::cdp_launch),
                            {Ctx, ptrArg(3), B.CreateLoad(I64, F->getArg(7)), B.CreateLoad(I64, F->getArg(2)),
                             F->getArg(4), F->getArg(5), B.CreateLoad(I32, F->getArg(6))});
    B.CreateStore(R, F->getArg(1));
  } else if (Name == "cudaCGGetIntrinsicHandle") {
    // (.b64 handle) (.b32 scope): the grid workspace of a cooperative launch
    Value *Hi = B.CreateZExt(B.CreateCall(rt(RtFn::sreg_envreg), {Ctx, B.getInt32(1)}), I64);
    Value *Lo = B.CreateZExt(B.CreateCall(rt(RtFn::sreg_envreg), {Ctx, B.getInt32(2)}), I64);
    B.CreateStore(B.CreateOr(B.CreateShl(Hi, 32), Lo), F->getArg(1));
  } else if (Name == "cudaCGSynchronize" || Name == "cudaCGSynchronizeGrid") {
    // (.b32 error) (.b64 handle, .b32 flags)
    B.CreateCall(rt(RtFn::grid_sync), {Ctx});
    B.CreateStore(B.getInt32(0), F->getArg(1));
  } else if (Name == "cudaCGGetSize" || Name == "cudaCGGetRank") {
    // (.b32 error) (.b64 u32 *threads_or_rank, .b64 u32 *grids_or_grid_rank, .b64 handle)
    auto dims = [&](RtFn Fn) {
      Value *X = B.CreateCall(rt(Fn), {Ctx, B.getInt32(0)});
      Value *Y = B.CreateCall(rt(Fn), {Ctx, B.getInt32(1)});
      Value *Z = B.CreateCall(rt(Fn), {Ctx, B.getInt32(2)});
      return std::array<Value *, 3>{X, Y, Z};
    };
    auto NT = dims(RtFn::sreg_ntid);
    Value *BlockThreads = B.CreateMul(B.CreateMul(NT[0], NT[1]), NT[2]);
    Value *First;
    if (Name == "cudaCGGetSize") {
      auto NC = dims(RtFn::sreg_nctaid);
      First = B.CreateMul(BlockThreads, B.CreateMul(B.CreateMul(NC[0], NC[1]), NC[2]));
    } else {
      auto NC = dims(RtFn::sreg_nctaid), CI = dims(RtFn::sreg_ctaid), T = dims(RtFn::sreg_tid);
      Value *Block = B.CreateAdd(CI[0], B.CreateMul(NC[0], B.CreateAdd(CI[1], B.CreateMul(NC[1], CI[2]))));
      Value *Thread = B.CreateAdd(T[0], B.CreateMul(NT[0], B.CreateAdd(T[1], B.CreateMul(NT[1], T[2]))));
      First = B.CreateAdd(B.CreateMul(Block, BlockThreads), Thread);
    }
    Value *Second = B.getInt32(Name == "cudaCGGetSize" ? 1 : 0);
    for (auto [Arg, V] : {std::pair<unsigned, Value *>{2, First}, {3, Second}}) {
      Value *Addr = B.CreateLoad(I64, F->getArg(Arg));
      BasicBlock *Store = BasicBlock::Create(C, "store", F), *Next = BasicBlock::Create(C, "next", F);
      B.CreateCondBr(B.CreateICmpNE(Addr, B.getInt64(0)), Store, Next);
      B.SetInsertPoint(Store);
      B.CreateStore(V, B.CreateIntToPtr(Addr, P));
      B.CreateBr(Next);
      B.SetInsertPoint(Next);
    }
    B.CreateStore(B.getInt32(0), F->getArg(1));
  } else if (Name == "cudaGetDevice" || Name == "__cudaCDP2GetDevice") {
    // (.b32 error) (.b64 int *device): the device the grid runs on is device 0
    B.CreateStore(B.getInt32(0), ptrArg(2));
    B.CreateStore(B.getInt32(0), F->getArg(1));
  } else if (Name == "cudaStreamCreateWithFlags" || Name == "__cudaCDP2StreamCreateWithFlags") {
    // (.b32 error) (.b64 cudaStream_t *stream, .b32 flags): device-side streams
    // only order launches, and children already run in launch order.
    B.CreateStore(B.getInt64(0x100), ptrArg(2));
    B.CreateStore(B.getInt32(0), F->getArg(1));
  } else if (Name == "cudaStreamDestroy" || Name == "__cudaCDP2StreamDestroy" || Name == "cudaGetLastError" ||
             Name == "__cudaCDP2GetLastError" || Name == "cudaPeekAtLastError" ||
             Name == "__cudaCDP2PeekAtLastError") {
    // (.b32 error) (...): device-side launch errors are returned by the launch itself
    B.CreateStore(B.getInt32(0), F->getArg(1));
  }
  B.CreateRetVoid();
  F->setLinkage(GlobalValue::InternalLinkage);
  F->addFnAttr(Attribute::AlwaysInline);
}

void LowerCtx::run() {
  // .address_size 32: addresses live in 32-bit registers and are widened
  // where memory is accessed; the target keeps what they reach below 4 GiB.
  collectShared();
  declareFunctions();
  declareGlobals();
  analyzeSync();
  for (auto &[Name, F] : Funcs) {
    if (FuncDefs.count(Name))
      continue;
    if (isBuiltinExtern(Name))
      defineBuiltin(F, Name);
    // Other bodiless functions stay declarations: resolved at link time or an
    // "undefined symbol" error when the module is JIT-linked.
  }
  for (const TopLevel &T : PM.Items) {
    if (T.Kind != TopLevel::TK_Function || !T.Func.HasBody)
      continue;
    lowerFunction(T.Func);
  }
}

// --- functions ---------------------------------------------------------------

void LowerCtx::lowerFunction(const Function &PF) {
  llvm::Function *F = Funcs[PF.Name];
  if (!F->empty()) // a second definition (weak): keep the first
    return;
  KernelInfo KI;
  KI.Name = PF.Name;
  try {
    FnLowering FL(*this, PF, F, KI);
    try {
      FL.run();
    } catch (const std::exception &E) {
      // A case the lowering did not foresee: reported at its PTX line, never
      // as a library's internal message.
      (void)E;
      throw LowerFail{FL.currentLine(), "this instruction cannot be compiled yet (unexpected operand form)", false,
                      FL.currentCol()};
    }
  } catch (LowerFail &Fail) {
    if (Fail.Invalid)
      throw; // not PTX: the module is refused
    // The function cannot be compiled: its body becomes a trap, the failure is
    // recorded, and launching it reports the reason. Other kernels stay usable.
    F->deleteBody();
    IRBuilder<> B(BasicBlock::Create(C, "unsupported", F));
    B.CreateCall(rt(RtFn::trap), {F->getArg(0)});
    B.CreateRetVoid();
    std::string Msg = "line " + std::to_string(Fail.Line) + ": " + Fail.Message;
    Info.Failures.push_back(PF.Name + ": " + Msg);
    KI.Unsupported = Msg;
  }
  if (PF.IsEntry) {
    KI.StaticSharedBytes = static_cast<uint32_t>(KernelShared[PF.Name]);
    for (const PerfDirective &P : PF.Perf) {
      uint64_t Prod = 1;
      for (uint64_t V : P.Values)
        Prod *= V;
      if (P.Name == ".maxntid" || P.Name == ".reqntid")
        KI.MaxThreadsPerBlock = static_cast<uint32_t>(std::min<uint64_t>(Prod, 1024));
      if (P.Name == ".reqntid")
        for (size_t I = 0; I < 3; ++I)
          KI.ReqNTid[I] = I < P.Values.size() ? static_cast<uint32_t>(P.Values[I]) : 1;
      if (P.Name == ".reqnctapercluster")
        for (size_t I = 0; I < 3; ++I)
          KI.ReqCluster[I] = I < P.Values.size() ? static_cast<uint32_t>(P.Values[I]) : 1;
      if (P.Name == ".minnctapersm" && !P.Values.empty())
        KI.MinCtasPerSm = static_cast<uint32_t>(P.Values[0]);
    }
    // Registers: the 32-bit registers the kernel's PTX declares (predicates
    // aside), at most 255 or its .maxnreg. A target with real register
    // allocation (AMDGPU) replaces this with its own count.
    uint64_t Regs = 0;
    for (const Statement &S : PF.Body)
      if (S.Kind == Statement::SK_Decl && S.Decl.Space == StateSpace::Reg && S.Decl.Type != ScalarType::Pred)
        Regs += uint64_t(S.Decl.RangeCount ? *S.Decl.RangeCount : 1) *
                ((bitWidth(S.Decl.Type) * std::max<uint32_t>(1, S.Decl.VectorWidth) + 31) / 32);
    Regs = std::clamp<uint64_t>(Regs, 1, 255);
    for (const PerfDirective &P : PF.Perf)
      if (P.Name == ".maxnreg" && !P.Values.empty() && P.Values[0])
        Regs = std::min<uint64_t>(Regs, P.Values[0]);
    KI.Registers = static_cast<uint32_t>(Regs);
    Info.Kernels.push_back(std::move(KI));
  }
}

// A function needs thread switching if it (or anything it may call) waits
// for other threads: barriers, warp collectives, nanosleep. Indirect calls are
// assumed to. Computed on the PTX IR before lowering, as a fixed point over
// the call graph.
void LowerCtx::analyzeSync() {
  std::unordered_map<std::string, std::vector<std::string>> Calls;
  for (const TopLevel &T : PM.Items) {
    if (T.Kind != TopLevel::TK_Function || !T.Func.HasBody)
      continue;
    bool Sync = false, Stored = false;
    for (const Statement &S : T.Func.Body) {
      if (S.Kind == Statement::SK_Label)
        Stored = false;
      if (S.Kind != Statement::SK_Instruction)
        continue;
      // The lanes meet where LanesApart places a meeting too (FnLowering::meetLanesForShared).
      if (lanesMeetIn(S.Inst.Op) || S.Inst.Op == Opcode::Nanosleep || (LanesApart && sharedMeetingStep(S.Inst, Stored))) {
        Sync = true;
        continue;
      }
      switch (S.Inst.Op) {
      case Opcode::Exit: // exit from a callee unwinds the thread: needs its own stack
        Sync |= !T.Func.IsEntry;
        break;
      case Opcode::Call: {
        const Operand *Callee = nullptr;
        for (const Operand &O : S.Inst.Ops)
          if (O.Kind != Operand::OK_Paren) {
            Callee = &O;
            break;
          }
        if (Callee && Callee->Kind == Operand::OK_Name && Funcs.count(Callee->Name) &&
            lookupSpace(Callee->Name) == std::nullopt)
          Calls[T.Func.Name].push_back(Callee->Name);
        if (Callee && Callee->Kind == Operand::OK_Name && !Funcs.count(Callee->Name))
          Sync = true; // indirect call through a register
        break;
      }
      default:
        break;
      }
    }
    if (Sync)
      Switching.insert(T.Func.Name);
  }
  // The device runtime's grid barrier waits for every thread of the block.
  Switching.insert("cudaCGSynchronize");
  Switching.insert("cudaCGSynchronizeGrid");
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto &[Caller, Callees] : Calls)
      if (!Switching.count(Caller))
        for (const std::string &Callee : Callees)
          if (Switching.count(Callee)) {
            Switching.insert(Caller);
            Changed = true;
            break;
          }
  }
}

FnLowering::FnLowering(LowerCtx &L, const Function &PF, llvm::Function *F, KernelInfo &KI)
    : L(L), C(L.C), PF(PF), F(F), KI(KI), B(L.C), AllocaB(L.C) {}

void FnLowering::run() {
  BasicBlock *Entry = BasicBlock::Create(C, "entry", F);
  AllocaB.SetInsertPoint(Entry);
  BasicBlock *Body = BasicBlock::Create(C, "body", F);
  B.SetInsertPoint(Body);
  Ctx = F->getArg(0);
  Ctx->setName("ctx");
  Scopes.emplace_back();
  Ranges.emplace_back();
  KI.NeedsThreadSwitching = L.needsSwitching(PF.Name);

  // Parameters.
  if (PF.IsEntry) {
    Value *Buf = F->getArg(1);
    Buf->setName("params");
    uint64_t Off = 0;
    for (const VarDecl &P : PF.Params) {
      uint64_t A = L.declAlign(P), Sz = L.declSize(P);
      Off = alignTo(Off, A);
      KI.Params.push_back(ParamLayout{static_cast<uint32_t>(Off), static_cast<uint32_t>(Sz),
                                      static_cast<uint32_t>(A)});
      Sym S;
      S.Kind = Sym::SK_Mem;
      S.Ptr = B.CreateConstInBoundsGEP1_64(Type::getInt8Ty(C), Buf, Off, P.Name);
      S.PT = P.Type;
      S.Space = StateSpace::Param;
      S.Decl = &P;
      Scopes.back()[P.Name] = S;
      Off += Sz;
    }
    KI.ParamBufferSize = static_cast<uint32_t>(alignTo(Off, 8));
  } else {
    unsigned Arg = 1;
    for (const VarDecl &R : PF.Returns)
      bindFuncParam(R, F->getArg(Arg++), /*IsReturn=*/true);
    for (const VarDecl &P : PF.Params)
      bindFuncParam(P, F->getArg(Arg++), /*IsReturn=*/false);
  }

  // Labels are function-scoped: create their blocks up front so forward
  // branches resolve.
  for (const Statement &S : PF.Body)
    if (S.Kind == Statement::SK_Label) {
      if (Labels.count(S.Label)) {
        CurLine = S.Loc.Line;
        CurCol = S.Loc.Col;
        invalid("label '" + S.Label + "' is defined twice");
      }
      Labels[S.Label] = BasicBlock::Create(C, S.Label, F);
    }

  for (const Statement &S : PF.Body) {
    CurLine = S.Loc.Line;
    CurCol = S.Loc.Col;
    switch (S.Kind) {
    case Statement::SK_BlockBegin:
      Scopes.emplace_back();
      Ranges.emplace_back();
      break;
    case Statement::SK_BlockEnd:
      if (Scopes.size() > 1) {
        Scopes.pop_back();
        Ranges.pop_back();
      }
      break;
    case Statement::SK_Decl:
      declare(S.Decl);
      break;
    case Statement::SK_Label: {
      BasicBlock *BB = Labels[S.Label];
      if (!B.GetInsertBlock()->getTerminator())
        B.CreateBr(BB);
      B.SetInsertPoint(BB);
      SharedStored = false; // lanes may come here from anywhere: only straight-line stretches are tracked
      break;
    }
    case Statement::SK_Instruction:
      if (L.LanesApart)
        meetLanesForShared(S.Inst);
      lowerGuarded(S.Inst);
      break;
    case Statement::SK_Prototype:
      Prototypes[S.Label] = &S;
      break;
    case Statement::SK_BranchTargets:
      BranchTargets[S.Label] = &S.Targets;
      break;
    case Statement::SK_Loc:
      if (L.Memcheck) { // ".loc file line col[, ...]": where memcheck's reports point
        unsigned File = 0, Line = 0;
        if (std::sscanf(S.Text.c_str(), "%u %u", &File, &Line) == 2) {
          SourceLine.clear();
          for (const TopLevel &T : L.PM.Items)
            if (T.Kind == TopLevel::TK_File && T.FileIndex == File) {
              std::string_view Path = T.Text;
              if (Path.size() >= 2 && Path.front() == '"' && Path.back() == '"')
                Path = Path.substr(1, Path.size() - 2);
              SourceLine = std::string(Path) + ":" + std::to_string(Line);
            }
        }
      }
      break;
    case Statement::SK_CallTargets:
    case Statement::SK_Pragma:
      break;
    }
  }
  if (!B.GetInsertBlock()->getTerminator())
    emitReturn();
  AllocaB.CreateBr(Body);
}

void FnLowering::bindFuncParam(const VarDecl &P, Value *Arg, bool IsReturn) {
  Arg->setName(P.Name);
  if (P.Space == StateSpace::Param) {
    Sym S;
    S.Kind = Sym::SK_Mem;
    S.Ptr = Arg;
    S.PT = P.Type;
    S.Space = StateSpace::Param;
    S.Decl = &P;
    Scopes.back()[P.Name] = S;
    return;
  }
  // .reg parameter: a register initialised from (or, for a return, copied
  // back to) the caller's storage.
  declare(P);
  Sym &R = Scopes.back()[P.Name];
  if (IsReturn)
    RegReturns.push_back({Arg, &R});
  else
    B.CreateStore(B.CreateLoad(R.Ty, Arg), R.Ptr);
}

void FnLowering::emitReturn() {
  for (auto &[Ptr, R] : RegReturns)
    B.CreateStore(B.CreateLoad(R->Ty, R->Ptr), Ptr);
  B.CreateRetVoid();
}

void FnLowering::declare(const VarDecl &V) {
  switch (V.Space) {
  case StateSpace::Reg: {
    if (V.RangeCount) {
      Ranges.back().push_back(&V);
      return;
    }
    Sym S = makeReg(V, V.Name);
    Scopes.back()[V.Name] = S;
    return;
  }
  case StateSpace::Local:
  case StateSpace::Param: {
    Sym S;
    S.Kind = Sym::SK_Mem;
    Type *Ty = L.declType(V);
    auto *A = AllocaB.CreateAlloca(Ty, nullptr, V.Name);
    A->setAlignment(Align(std::max<uint64_t>(L.declAlign(V), 8)));
    S.Ptr = A;
    S.PT = V.Type;
    S.Space = V.Space;
    S.Decl = &V;
    if (V.Space == StateSpace::Local)
      KI.LocalBytes += static_cast<uint32_t>(L.declSize(V));
    if (V.Init)
      B.CreateStore(L.initializer(*V.Init, Ty, V.Type), A);
    Scopes.back()[V.Name] = S;
    return;
  }
  case StateSpace::Shared:
  case StateSpace::SharedCta: {
    Sym S;
    S.Kind = Sym::SK_Shared;
    S.Dynamic = std::find(L.DynamicShared.begin(), L.DynamicShared.end(), &V) != L.DynamicShared.end();
    S.Offset = S.Dynamic ? 0 : L.SharedOffsets[&V];
    S.PT = V.Type;
    S.Space = StateSpace::Shared;
    S.Decl = &V;
    Scopes.back()[V.Name] = S;
    return;
  }
  default:
    fail("declarations in " + std::string(spelling(V.Space)) + " inside a function are not supported");
  }
}

Sym FnLowering::makeReg(const VarDecl &V, const std::string &Name) {
  Sym S;
  S.Kind = Sym::SK_Reg;
  S.PT = V.Type;
  S.Ty = L.storageType(V.Type);
  if (V.VectorWidth) {
    S.Ty = ArrayType::get(S.Ty, V.VectorWidth);
    HasVectorRegs = true;
  }
  S.Ptr = AllocaB.CreateAlloca(S.Ty, nullptr, Name);
  S.Decl = &V;
  // Registers start as zero: PTX leaves them undefined, and a defined value
  // keeps the generated code deterministic.
  AllocaB.CreateStore(Constant::getNullValue(S.Ty), S.Ptr);
  return S;
}

Sym *FnLowering::lookup(const std::string &Name) {
  for (size_t I = Scopes.size(); I-- > 0;) {
    auto It = Scopes[I].find(Name);
    if (It != Scopes[I].end())
      return &It->second;
    // %r<100> declares %r0 .. %r99; their allocas are made on first use.
    for (const VarDecl *V : Ranges[I]) {
      if (Name.size() <= V->Name.size() || Name.compare(0, V->Name.size(), V->Name) != 0)
        continue;
      std::string_view Rest(Name.data() + V->Name.size(), Name.size() - V->Name.size());
      if (Rest.size() > 9 || (Rest.size() > 1 && Rest[0] == '0') ||
          !std::all_of(Rest.begin(), Rest.end(), [](char Ch) { return std::isdigit(Ch); }))
        continue;
      uint32_t Idx = static_cast<uint32_t>(std::stoul(std::string(Rest)));
      if (Idx >= *V->RangeCount)
        continue;
      Scopes[I][Name] = makeReg(*V, Name);
      return &Scopes[I][Name];
    }
  }
  if (auto Sh = L.ModuleShared.find(Name); Sh != L.ModuleShared.end()) {
    Sym &S = GlobalSyms[Name];
    S.Kind = Sym::SK_Shared;
    S.Dynamic = std::find(L.DynamicShared.begin(), L.DynamicShared.end(), Sh->second) != L.DynamicShared.end();
    S.Offset = S.Dynamic ? 0 : L.SharedOffsets[Sh->second];
    S.PT = Sh->second->Type;
    S.Space = StateSpace::Shared;
    S.Decl = Sh->second;
    return &S;
  }
  auto G = L.GlobalVars.find(Name);
  if (G != L.GlobalVars.end()) {
    Sym &S = GlobalSyms[Name];
    S.Kind = Sym::SK_Mem;
    S.Ptr = G->second;
    S.Space = StateSpace::Global;
    return &S;
  }
  auto Fn = L.Funcs.find(Name);
  if (Fn != L.Funcs.end()) {
    Sym &S = GlobalSyms[Name];
    S.Kind = Sym::SK_Func;
    S.F = Fn->second;
    return &S;
  }
  return nullptr;
}

[[noreturn]] void FnLowering::fail(const std::string &Msg) { throw LowerFail{CurLine, Msg, false, CurCol}; }
[[noreturn]] void FnLowering::invalid(const std::string &Msg) { throw LowerFail{CurLine, Msg, true, CurCol}; }

// --- guards and control flow ---------------------------------------------------

/// \p In with every vector register named whole (.reg .v4 .f32 %v as `%v`) replaced by the list of its
/// components {%v.x, %v.y, ...}: PTX lets a vector register stand wherever an instruction takes a vector operand
/// (ldmatrix's and tex's destinations, mma's fragments, mov.b64's pack and unpack...). Nullopt when none is.
std::optional<Instruction> FnLowering::expandVectorRegisters(const Instruction &In) {
  if (!HasVectorRegs)
    return std::nullopt;
  std::optional<Instruction> R;
  for (size_t K = 0; K < In.Ops.size(); ++K) {
    const Operand &O = In.Ops[K];
    if (O.Kind != Operand::OK_Name || O.Component || O.Name.empty())
      continue;
    Sym *S = lookup(O.Name);
    if (!S || S->Kind != Sym::SK_Reg || !S->Ty->isArrayTy())
      continue;
    if (!R)
      R = In;
    R->Ops[K] = vectorElems(O, static_cast<unsigned>(cast<ArrayType>(S->Ty)->getNumElements()));
  }
  return R;
}

void FnLowering::meetLanesForShared(const Instruction &In) {
  if (!sharedMeetingStep(In, SharedStored))
    return;
  // Every lane that comes here meets the others of its warp that do
  // (whatever the load's guard: in lockstep they all pass this point),
  // after their stores. The site is the load's place, as activemask's.
  // activemask is the meeting: it returns once every live lane of the warp
  // waits somewhere, releasing the lanes at this site together, so a
  // bar.warp.sync of its mask after it would only wait a second time.
  uint32_t Site = ((CurLine << 12) ^ CurCol) ^ 0x800;
  B.CreateCall(L.rt(RtFn::activemask), {Ctx, B.getInt32(Site)});
}

void FnLowering::lowerGuarded(const Instruction &Written) {
  std::optional<Instruction> Expanded = expandVectorRegisters(Written);
  const Instruction &In = Expanded ? *Expanded : Written;
  if (B.GetInsertBlock()->getTerminator()) {
    // Code after an unconditional branch without a label: unreachable.
    B.SetInsertPoint(BasicBlock::Create(C, "dead", F));
  }
  if (!In.Pred) {
    lowerInstruction(In);
    return;
  }
  Value *Cond = predValue(In.Pred->Pred);
  if (In.Pred->Negated)
    Cond = B.CreateNot(Cond);
  if (In.Op == Opcode::Bra && In.Ops.size() == 1 && In.Ops[0].Kind == Operand::OK_Name) {
    BasicBlock *Target = label(In.Ops[0].Name);
    BasicBlock *Cont = BasicBlock::Create(C, "cont", F);
    B.CreateCondBr(Cond, Target, Cont);
    B.SetInsertPoint(Cont);
    return;
  }
  BasicBlock *Then = BasicBlock::Create(C, "pred", F);
  BasicBlock *Cont = BasicBlock::Create(C, "cont", F);
  B.CreateCondBr(Cond, Then, Cont);
  B.SetInsertPoint(Then);
  lowerInstruction(In);
  if (!B.GetInsertBlock()->getTerminator())
    B.CreateBr(Cont);
  B.SetInsertPoint(Cont);
}

Value *FnLowering::predValue(const std::string &Name) {
  Sym *S = lookup(Name);
  if (!S || S->Kind != Sym::SK_Reg)
    invalid("undeclared predicate '" + Name + "'");
  if (!S->Ty->isIntegerTy(1))
    invalid("guard '" + Name + "' is not a .pred register");
  return B.CreateLoad(S->Ty, S->Ptr);
}

BasicBlock *FnLowering::label(const std::string &Name) {
  auto It = Labels.find(Name);
  if (It == Labels.end())
    invalid("undeclared label '" + Name + "'");
  return It->second;
}

// --- operands ------------------------------------------------------------------

Type *FnLowering::valueType(ScalarType T) { return L.storageType(T); }

bool isSignedType(ScalarType T) { return kindOf(T) == TypeKind::Signed; }
bool isFloatType(ScalarType T) { return kindOf(T) == TypeKind::Float; }
bool isArithmeticFloat(ScalarType T) {
  switch (T) {
  case ScalarType::F16:
  case ScalarType::F16x2:
  case ScalarType::BF16:
  case ScalarType::BF16x2:
  case ScalarType::F32:
  case ScalarType::F64:
    return true;
  default:
    return false;
  }
}

Value *FnLowering::convertBits(Value *V, Type *To, bool Signed) {
  Type *From = V->getType();
  if (From == To)
    return V;
  unsigned FB = From->getPrimitiveSizeInBits(), TB = To->getPrimitiveSizeInBits();
  if (From->isIntegerTy(1)) {
    if (To->isIntegerTy())
      return B.CreateZExt(V, To);
    return B.CreateBitCast(B.CreateZExt(V, B.getIntNTy(TB)), To);
  }
  if (To->isIntegerTy(1))
    return B.CreateICmpNE(convertBits(V, B.getIntNTy(FB), false), B.getIntN(FB, 0));
  if (FB == TB)
    return B.CreateBitCast(V, To);
  Value *I = From->isIntegerTy() ? V : B.CreateBitCast(V, B.getIntNTy(FB));
  I = FB > TB ? B.CreateTrunc(I, B.getIntNTy(TB))
              : (Signed ? B.CreateSExt(I, B.getIntNTy(TB)) : B.CreateZExt(I, B.getIntNTy(TB)));
  return To->isIntegerTy() ? I : B.CreateBitCast(I, To);
}

Value *FnLowering::specialRegister(const Operand &O, Type *Want) {
  const std::string &N = O.Name;
  int Dim = O.Component == 'y' ? 1 : O.Component == 'z' ? 2 : 0;
  Value *V = nullptr;
  auto dimCall = [&](RtFn Fn) { return B.CreateCall(L.rt(Fn), {Ctx, B.getInt32(Dim)}); };
  if (N == "%tid")
    V = dimCall(RtFn::sreg_tid);
  else if (N == "%ntid")
    V = dimCall(RtFn::sreg_ntid);
  else if (N == "%ctaid")
    V = dimCall(RtFn::sreg_ctaid);
  else if (N == "%nctaid")
    V = dimCall(RtFn::sreg_nctaid);
  else if (N == "%laneid")
    V = B.CreateCall(L.rt(RtFn::sreg_laneid), {Ctx});
  else if (N == "%warpid")
    V = B.CreateCall(L.rt(RtFn::sreg_warpid), {Ctx});
  else if (N == "%nwarpid")
    V = B.CreateCall(L.rt(RtFn::sreg_nwarpid), {Ctx});
  else if (N == "%smid")
    V = B.CreateCall(L.rt(RtFn::sreg_smid), {Ctx});
  else if (N == "%nsmid")
    V = B.CreateCall(L.rt(RtFn::sreg_nsmid), {Ctx});
  else if (N == "%gridid")
    V = B.CreateCall(L.rt(RtFn::sreg_gridid), {Ctx});
  else if (N == "%clock")
    V = B.CreateTrunc(B.CreateCall(L.rt(RtFn::sreg_clock64), {Ctx}), B.getInt32Ty());
  else if (N == "%clock64")
    V = B.CreateCall(L.rt(RtFn::sreg_clock64), {Ctx});
  else if (N == "%clock_hi")
    V = B.CreateTrunc(B.CreateLShr(B.CreateCall(L.rt(RtFn::sreg_clock64), {Ctx}), 32), B.getInt32Ty());
  else if (N == "%globaltimer")
    V = B.CreateCall(L.rt(RtFn::sreg_globaltimer), {Ctx});
  else if (N == "%globaltimer_lo")
    V = B.CreateTrunc(B.CreateCall(L.rt(RtFn::sreg_globaltimer), {Ctx}), B.getInt32Ty());
  else if (N == "%globaltimer_hi")
    V = B.CreateTrunc(B.CreateLShr(B.CreateCall(L.rt(RtFn::sreg_globaltimer), {Ctx}), 32),
                      B.getInt32Ty());
  else if (N == "%dynamic_smem_size")
    V = B.CreateCall(L.rt(RtFn::sreg_dynamic_smem_size), {Ctx});
  else if (N == "%total_smem_size" || N == "%aggr_smem_size") // no reserved shared memory here (attribute 111 is 0)
    V = B.CreateCall(L.rt(RtFn::sreg_total_smem_size), {Ctx});
  else if (N == "%reserved_smem_offset_begin" || N == "%reserved_smem_offset_end" || N == "%reserved_smem_offset_cap")
    V = B.getInt32(0); // the reserved window is empty
  else if (N == "%current_graph_exec") // kernels do not run as part of a device graph here
    V = B.getInt64(0);
  else if (N.rfind("%envreg", 0) == 0 && N.size() > 7 && std::isdigit(N[7]))
    V = B.CreateCall(L.rt(RtFn::sreg_envreg), {Ctx, B.getInt32(std::stoi(N.substr(7)))});
  else if (N.rfind("%lanemask_", 0) == 0) {
    Value *Lane = B.CreateCall(L.rt(RtFn::sreg_laneid), {Ctx});
    Value *Bit = B.CreateShl(B.getInt32(1), Lane);
    std::string K = N.substr(10);
    if (K == "eq")
      V = Bit;
    else if (K == "lt")
      V = B.CreateSub(Bit, B.getInt32(1));
    else if (K == "le")
      V = B.CreateOr(Bit, B.CreateSub(Bit, B.getInt32(1)));
    else if (K == "gt")
      V = B.CreateNot(B.CreateOr(Bit, B.CreateSub(Bit, B.getInt32(1))));
    else if (K == "ge")
      V = B.CreateNot(B.CreateSub(Bit, B.getInt32(1)));
  } else if (N == "%cluster_ctarank" || N == "%cluster_nctarank" || N == "%is_explicit_cluster") {
    uint32_t W = N == "%cluster_ctarank" ? CrCtaRank : N == "%cluster_nctarank" ? CrNCtaRank : CrExplicit;
    V = B.CreateCall(L.rt(RtFn::sreg_cluster), {Ctx, B.getInt32(W)});
  } else if (N == "%cluster_ctaid" || N == "%clusterid" || N == "%cluster_nctaid" || N == "%nclusterid") {
    uint32_t Base = N == "%cluster_ctaid" ? CrCtaId : N == "%clusterid" ? CrClusterId
                    : N == "%cluster_nctaid" ? CrNCtaId : CrNClusterId;
    uint32_t D = O.Component == 'y' ? 1 : O.Component == 'z' ? 2 : 0;
    V = B.CreateCall(L.rt(RtFn::sreg_cluster), {Ctx, B.getInt32(Base + D)});
  }
  if (!V)
    return nullptr;
  KI.UsesSpecialRegs = true;
  return convertBits(V, Want, false);
}

/// The address of component .x/.y/.z/.w (or .r/.g/.b/.a) of vector register \p S.
Value *FnLowering::componentPtr(const Operand &O, const Sym &S) {
  auto *AT = dyn_cast<ArrayType>(S.Ty);
  if (!AT)
    fail("component of a scalar register '" + O.Name + "'");
  size_t Idx = std::string_view("xyzw").find(O.Component);
  if (Idx == std::string_view::npos) // .r .g .b .a name the same components
    Idx = std::string_view("rgba").find(O.Component);
  if (Idx >= AT->getNumElements())
    invalid("'" + O.Name + "' has no component ." + std::string(1, O.Component));
  return B.CreateConstInBoundsGEP2_32(AT, S.Ptr, 0, Idx);
}

Value *FnLowering::get(const Operand &O, ScalarType T) {
  Type *Want = valueType(T);
  if (!O.Sel.empty() || O.Neg)
    invalid("'" + print(O) + "': selectors and '-' on a register are for video instructions only");
  switch (O.Kind) {
  case Operand::OK_Name: {
    Sym *S = lookup(O.Name);
    if (!S && O.Name == "WARP_SZ") // the predefined identifier: warps are 32 threads on every target
      return convertBits(B.getInt32(32), Want, false);
    if (!S) {
      if (O.Name[0] == '%')
        if (Value *V = specialRegister(O, Want))
          return V;
      invalid("undeclared identifier '" + O.Name + "'");
    }
    Value *V = nullptr;
    switch (S->Kind) {
    case Sym::SK_Reg: {
      if (O.Component) {
        V = B.CreateLoad(cast<ArrayType>(S->Ty)->getElementType(), componentPtr(O, *S));
      } else {
        if (S->Ty->isArrayTy())
          invalid("'" + O.Name + "' is a vector register: read its components (.x, .y ...)");
        V = B.CreateLoad(S->Ty, S->Ptr);
      }
      if (O.Not && !V->getType()->isIntegerTy(1))
        invalid("'!" + O.Name + "': '!' negates only .pred registers");
      if (O.Not)
        V = B.CreateNot(V);
      if (O.Int && V->getType()->isIntegerTy()) // reg+imm as a value operand (ptxas accepts it)
        V = B.CreateAdd(V, ConstantInt::get(V->getType(), static_cast<uint64_t>(O.Int), true));
      return convertBits(V, Want, isSignedType(T));
    }
    case Sym::SK_Mem:
      // In a 64-bit module .local variables live in the thread's host stack
      // frame: a 32-bit address of one (mov.u32 d, var) cannot reach it
      // again. Refused at load rather than faulting when it is dereferenced.
      // (A 32-bit module's locals are placed below 4 GiB: cpu/LowMemory.h.)
      if (L.PM.AddressSize == 64 && Want->isIntegerTy() && Want->getIntegerBitWidth() < 64 &&
          isa<AllocaInst>(S->Ptr))
        invalid("the address of .local '" + O.Name + "' taken as a " + std::to_string(Want->getIntegerBitWidth()) +
                "-bit value: only 64-bit .local addresses are supported");
      V = B.CreatePtrToInt(S->Ptr, B.getInt64Ty());
      break;
    case Sym::SK_Shared:
      V = sharedOffset(*S);
      break;
    case Sym::SK_Func:
      // A kernel's address (what device-side launches pass) is the address
      // of its name: the runtime finds the kernel by name in the module, so
      // no unit has to contain another kernel's code.
      V = B.CreatePtrToInt(S->F->hasFnAttribute("zluda-kernel") ? L.kernelRef(S->F->getName()) : S->F,
                           B.getInt64Ty());
      break;
    }
    if (O.Int)
      V = B.CreateAdd(V, B.getInt64(O.Int));
    return convertBits(V, Want, false);
  }
  case Operand::OK_Int:
    if (Want->isFloatingPointTy())
      return ConstantFP::get(Want, static_cast<double>(O.Int));
    return ConstantInt::get(Want, static_cast<uint64_t>(O.Int), true);
  case Operand::OK_Float: {
    double D = floatLiteral(O.FloatBits, O.IsDouble);
    if (Want->isFloatingPointTy())
      return ConstantFP::get(Want, D);
    if (T == ScalarType::F16 || T == ScalarType::BF16) {
      // A float literal for a 16-bit float operand: convert at compile time.
      return B.CreateCall(L.rt(T == ScalarType::F16 ? RtFn::f64_to_f16 : RtFn::f64_to_bf16),
                          {Ctx, ConstantFP::get(B.getDoubleTy(), D), B.getInt32(0)});
    }
    // Bits of the literal for a bit-typed operand.
    uint64_t Bits = O.FloatBits;
    if (!O.IsDouble && Want->getIntegerBitWidth() == 64) {
      std::memcpy(&Bits, &D, 8);
    }
    return ConstantInt::get(Want, Bits);
  }
  case Operand::OK_Sink:
    return UndefValue::get(Want);
  default:
    fail("unexpected operand '" + print(O) + "'");
  }
}

void FnLowering::set(const Operand &O, ScalarType T, Value *V) {
  if (O.Kind == Operand::OK_Sink)
    return;
  if (O.Kind != Operand::OK_Name)
    fail("destination must be a register, found '" + print(O) + "'");
  if (!O.Sel.empty() || O.Neg)
    invalid("'" + print(O) + "': selectors and '-' on a register are for video instructions only");
  Sym *S = lookup(O.Name);
  if (!S || S->Kind != Sym::SK_Reg)
    fail("destination '" + O.Name + "' is not a register");
  if (O.Component) {
    Value *P = componentPtr(O, *S);
    B.CreateStore(convertBits(V, cast<ArrayType>(S->Ty)->getElementType(), isSignedType(T)), P);
    return;
  }
  if (S->Ty->isArrayTy() && V->getType() != S->Ty)
    invalid("'" + O.Name + "' is a vector register: write its components (.x, .y ...)");
  B.CreateStore(convertBits(V, S->Ty, isSignedType(T)), S->Ptr);
}

Value *FnLowering::sharedBase() {
  if (!SharedBaseCache || SharedBaseBlock != B.GetInsertBlock()) {
    // Cheap to recompute; cached per block to keep the IR small.
    SharedBaseCache = B.CreateCall(L.rt(RtFn::shared_base), {Ctx});
    SharedBaseBlock = B.GetInsertBlock();
  }
  return SharedBaseCache;
}

Value *FnLowering::sharedOffset(const Sym &S) {
  if (!S.Dynamic)
    return B.getInt64(S.Offset);
  return B.CreateCall(L.rt(RtFn::dyn_shared_offset), {Ctx});
}

Value *FnLowering::address(const Operand &O, StateSpace Space) {
  bool Shared = Space == StateSpace::Shared || Space == StateSpace::SharedCta ||
                Space == StateSpace::SharedCluster;
  if (O.Kind != Operand::OK_Address)
    fail("expected an address operand, found '" + print(O) + "'");
  Type *I8 = B.getInt8Ty();
  if (O.Name.empty()) {
    if (Space == StateSpace::SharedCluster) // maybe another block's (mapa.shared::cluster)
      return B.CreateCall(L.rt(RtFn::cluster_shared), {Ctx, B.getInt64(O.Int)});
    if (Shared)
      return B.CreateGEP(I8, sharedBase(), B.getInt64(O.Int));
    return B.CreateIntToPtr(B.getInt64(O.Int), B.getPtrTy());
  }
  Sym *S = lookup(O.Name);
  if (!S)
    invalid("undeclared identifier '" + O.Name + "' in address");
  switch (S->Kind) {
  case Sym::SK_Reg: {
    Value *V = B.CreateLoad(S->Ty, S->Ptr);
    V = convertBits(V, B.getInt64Ty(), false);
    if (O.Int)
      V = B.CreateAdd(V, B.getInt64(O.Int));
    if (Space == StateSpace::SharedCluster) // maybe another block's (mapa.shared::cluster)
      return B.CreateCall(L.rt(RtFn::cluster_shared), {Ctx, V});
    if (Shared)
      return B.CreateGEP(I8, sharedBase(), V);
    return B.CreateIntToPtr(V, B.getPtrTy());
  }
  case Sym::SK_Mem:
    return O.Int ? B.CreateGEP(I8, S->Ptr, B.getInt64(O.Int)) : S->Ptr;
  case Sym::SK_Shared:
    return B.CreateGEP(I8, sharedBase(), B.CreateAdd(sharedOffset(*S), B.getInt64(O.Int)));
  case Sym::SK_Func:
    return B.CreateIntToPtr(B.CreatePtrToInt(S->F, B.getInt64Ty()), B.getPtrTy());
  }
  fail("bad address");
}

void FnLowering::memcheck(const Operand &O, Value *Ptr, Value *Bytes, StateSpace Space, MemcheckAccess Kind) {
  if (!L.Memcheck)
    return;
  if (!O.Name.empty() && Kind != MemcheckSync)
    if (const Sym *S = lookup(O.Name); S && (S->Kind == Sym::SK_Mem || S->Kind == Sym::SK_Func))
      return; // a named variable of this function (its own bounds) or a parameter
  uint32_t SpaceCode;
  switch (Space) {
  case StateSpace::None:
    SpaceCode = 0;
    break;
  case StateSpace::Global:
    SpaceCode = 1;
    break;
  case StateSpace::Shared:
  case StateSpace::SharedCta:
  case StateSpace::SharedCluster:
    SpaceCode = 2;
    break;
  case StateSpace::Local:
    SpaceCode = 3;
    break;
  case StateSpace::Const:
    SpaceCode = 4;
    break;
  default:
    return; // .param: the launch's own buffer
  }
  std::string Where = F->getName().str();
  if (!SourceLine.empty())
    Where += " in " + SourceLine;
  Value *&Name = MemcheckNames[Where];
  if (!Name)
    Name = B.CreateGlobalStringPtr(Where, "__zluda_memcheck_at");
  FunctionCallee Check = L.M.getOrInsertFunction(
      "__zluda_memcheck", FunctionType::get(B.getVoidTy(),
                                            {B.getPtrTy(), B.getPtrTy(), B.getInt64Ty(), B.getInt32Ty(),
                                             B.getInt32Ty(), B.getPtrTy()},
                                            false));
  B.CreateCall(Check, {Ctx, Ptr, Bytes, B.getInt32(Kind | SpaceCode << MemcheckSpaceShift),
                       B.getInt32(CurLine), Name});
}

// --- entry point -----------------------------------------------------------------

llvm::Error verifyModule(const llvm::Module &M) {
  std::string Msg;
  raw_string_ostream OS(Msg);
  if (llvm::verifyModule(M, &OS))
    return createStringError(inconvertibleErrorCode(), "LLVM IR verification failed: %s",
                             OS.str().c_str());
  return Error::success();
}

llvm::Expected<LoweredModule> lowerToLLVM(const Module &PM, const LoweringOptions &Opts) {
  LoweredModule Out;
  Out.Context = std::make_unique<LLVMContext>();
  Out.Mod = std::make_unique<llvm::Module>("ptx", *Out.Context);
  if (!Opts.TargetTriple.empty())
    Out.Mod->setTargetTriple(Opts.TargetTriple);
  if (!Opts.DataLayout.empty())
    Out.Mod->setDataLayout(Opts.DataLayout);
  try {
    LowerCtx L(PM, *Out.Context, *Out.Mod, Out);
    L.Memcheck = Opts.Memcheck;
    L.LanesApart = Opts.LanesApart;
    L.run();
  } catch (const LowerFail &F) {
    if (F.Col)
      return createStringError(inconvertibleErrorCode(), "ptx:%u:%u: error: %s", F.Line, F.Col, F.Message.c_str());
    return createStringError(inconvertibleErrorCode(), "line %u: %s", F.Line, F.Message.c_str());
  } catch (const std::exception &E) {
    return createStringError(inconvertibleErrorCode(), "internal compiler error: %s", E.what());
  }
#ifndef NDEBUG
  if (Error E = verifyModule(*Out.Mod))
    return std::move(E);
#endif
  return std::move(Out);
}

} // namespace zluda::ptx
