//===- Jit.cpp - PTX to host code through LLVM ORC -------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The CPU device's compiler pipeline, in order:
///   parse -> lower (target neutral) -> verify -> link device runtime bitcode
///   -> internalize (everything but kernels and globals) -> O2 -> ORC JIT.
/// Linking comes before optimization so that the runtime inlines.
#include "cpu/Jit.h"

#include "common/Log.h"
#include "cpu/DeviceAbi.h"
#include "ptx/Parser.h"

#include <cstddef>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <mutex>
#include <set>

extern "C" const unsigned char zluda_cpu_runtime_bc[];
extern "C" const unsigned long zluda_cpu_runtime_bc_size;

namespace zluda::cpu {

using namespace llvm;

struct CpuModule::JitHolder {
  std::unique_ptr<orc::LLJIT> J;
};

CpuModule::~CpuModule() = default;

const CpuKernel *CpuModule::kernel(std::string_view Name) const {
  for (const CpuKernel &K : Kernels)
    if (K.Info.Name == Name)
      return &K;
  return nullptr;
}

const CpuGlobal *CpuModule::global(std::string_view Name) const {
  for (const CpuGlobal &G : Globals)
    if (G.Info.Name == Name)
      return &G;
  return nullptr;
}

namespace {

void initLLVM() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
  });
}

std::string errorText(Error E) {
  std::string S;
  raw_string_ostream OS(S);
  OS << E;
  return OS.str();
}

Expected<std::unique_ptr<Module>> loadRuntime(LLVMContext &C) {
  StringRef Data(reinterpret_cast<const char *>(zluda_cpu_runtime_bc), zluda_cpu_runtime_bc_size);
  auto Buf = MemoryBuffer::getMemBuffer(Data, "zluda-cpu-runtime.bc", false);
  return parseBitcodeFile(Buf->getMemBufferRef(), C);
}

void optimize(Module &M, TargetMachine *TM, unsigned Level) {
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PassBuilder PB(TM);
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  OptimizationLevel OL = Level >= 3 ? OptimizationLevel::O3 : Level == 2 ? OptimizationLevel::O2
                         : Level == 1 ? OptimizationLevel::O1 : OptimizationLevel::O0;
  ModulePassManager MPM = Level == 0 ? PB.buildO0DefaultPipeline(OL) : PB.buildPerModuleDefaultPipeline(OL);
  MPM.run(M, MAM);
}

} // namespace

/// Builds `void <K>.block(ptr ctx, ptr params)`: loops over the block's
/// threads, writing Tid/LinearTid/LaneId/WarpId into a private copy of the
/// context and calling the kernel, which the optimizer then inlines. The copy
/// is a local that does not escape (after inlining the runtime's accessors),
/// so the special registers become loop induction values.
Function *buildBlockLoop(Module &M, Function *K) {
  LLVMContext &C = M.getContext();
  Type *I32 = Type::getInt32Ty(C), *P = PointerType::get(C, 0);
  auto *FT = FunctionType::get(Type::getVoidTy(C), {P, P}, false);
  auto *F = Function::Create(FT, GlobalValue::ExternalLinkage, K->getName() + ".block", M);
  // Kernel parameters are read-only (PTX forbids st.param to them) and never
  // alias the memory the kernel writes: loads of them leave the loops.
  for (Function *X : {F, K}) {
    X->addParamAttr(1, Attribute::NoAlias);
    X->addParamAttr(1, Attribute::ReadOnly);
    X->addParamAttr(1, Attribute::NoCapture);
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
  B.CreateCall(K, {Local, Params});
  // Latches, innermost first.
  auto latch = [&](PHINode *Iv, Value *N, BasicBlock *Header, const char *Name) {
    Value *Next = B.CreateAdd(Iv, B.getInt32(1));
    BasicBlock *Exit = BasicBlock::Create(C, std::string(Name) + ".end", F);
    Iv->addIncoming(Next, B.GetInsertBlock());
    B.CreateCondBr(B.CreateICmpULT(Next, N), Header, Exit);
    B.SetInsertPoint(Exit);
  };
  latch(X, NX, HX, "x");
  latch(Y, NY, HY, "y");
  latch(Z, NZ, HZ, "z");
  B.CreateRetVoid();
  K->addFnAttr(Attribute::AlwaysInline);
  return F;
}

struct CpuCompiler {
  static CompileResult run(std::string_view Ptx, const CompileOptions &Opts);
};

CompileResult CpuCompiler::run(std::string_view Ptx, const CompileOptions &Opts) {
  CompileResult R;
  initLLVM();
  ptx::ParseResult PR = ptx::parse(Ptx);
  if (!PR.ok()) {
    R.Error = PR.Error.format("ptx");
    return R;
  }
  auto JTMB = orc::JITTargetMachineBuilder::detectHost();
  if (!JTMB) {
    R.Error = "cannot target the host: " + errorText(JTMB.takeError());
    return R;
  }
  JTMB->setCodeGenOptLevel(Opts.OptLevel >= 2 ? CodeGenOpt::Default : CodeGenOpt::None);
  auto TM = JTMB->createTargetMachine();
  if (!TM) {
    R.Error = errorText(TM.takeError());
    return R;
  }
  ptx::LoweringOptions LO;
  LO.TargetTriple = JTMB->getTargetTriple().str();
  LO.DataLayout = (*TM)->createDataLayout().getStringRepresentation();
  auto Lowered = ptx::lowerToLLVM(*PR.Mod, LO);
  if (!Lowered) {
    R.Error = errorText(Lowered.takeError());
    return R;
  }
  if (Error E = ptx::verifyModule(*Lowered->Mod)) {
    R.Error = "internal compiler error: " + errorText(std::move(E));
    return R;
  }
  Module &M = *Lowered->Mod;
  auto RT = loadRuntime(*Lowered->Context);
  if (!RT) {
    R.Error = "cannot load the CPU device runtime: " + errorText(RT.takeError());
    return R;
  }
  (*RT)->setDataLayout(M.getDataLayout());
  (*RT)->setTargetTriple(M.getTargetTriple());
  if (Linker::linkModules(M, std::move(*RT), Linker::Flags::LinkOnlyNeeded)) {
    R.Error = "cannot link the CPU device runtime";
    return R;
  }
  // Only kernels and module variables are looked up from outside.
  std::set<std::string> Keep;
  std::set<std::string> BlockLoops;
  for (const ptx::KernelInfo &K : Lowered->Kernels) {
    Keep.insert(K.Name);
    if (!K.NeedsThreadSwitching && K.Unsupported.empty())
      if (Function *KF = M.getFunction(K.Name)) {
        Keep.insert(buildBlockLoop(M, KF)->getName().str());
        BlockLoops.insert(K.Name);
      }
  }
  for (Function &F : M)
    if (!F.isDeclaration() && !Keep.count(F.getName().str()))
      F.setLinkage(GlobalValue::InternalLinkage);
  optimize(M, TM->get(), Opts.OptLevel);
  if (!Opts.DumpLLVM.empty()) {
    std::error_code EC;
    raw_fd_ostream OS(Opts.DumpLLVM, EC, sys::fs::OF_Text);
    if (!EC)
      M.print(OS, nullptr);
  }
  auto J = orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*JTMB)).create();
  if (!J) {
    R.Error = errorText(J.takeError());
    return R;
  }
  auto &JD = (*J)->getMainJITDylib();
  orc::SymbolMap Syms;
  size_t N;
  const HostSymbol *HS = hostSymbols(N);
  for (size_t I = 0; I < N; ++I)
    Syms[(*J)->mangleAndIntern(HS[I].Name)] =
        JITEvaluatedSymbol(pointerToJITTargetAddress(HS[I].Addr), JITSymbolFlags::Exported);
  if (Error E = JD.define(orc::absoluteSymbols(std::move(Syms)))) {
    R.Error = errorText(std::move(E));
    return R;
  }
  // libm and libc (sinf, tanhf, memcpy ...) come from the process.
  auto Gen = orc::DynamicLibrarySearchGenerator::GetForCurrentProcess((*J)->getDataLayout().getGlobalPrefix());
  if (!Gen) {
    R.Error = errorText(Gen.takeError());
    return R;
  }
  JD.addGenerator(std::move(*Gen));
  auto Out = std::make_unique<CpuModule>();
  Out->Failures = Lowered->Failures;
  if (Error E = (*J)->addIRModule(orc::ThreadSafeModule(std::move(Lowered->Mod), std::move(Lowered->Context)))) {
    R.Error = errorText(std::move(E));
    return R;
  }
  for (const ptx::KernelInfo &K : Lowered->Kernels) {
    auto Sym = (*J)->lookup(K.Name);
    if (!Sym) {
      R.Error = "cannot compile kernel " + K.Name + ": " + errorText(Sym.takeError());
      return R;
    }
    CpuKernel CK{K, Sym->toPtr<KernelFn>(), nullptr};
    if (BlockLoops.count(K.Name)) {
      auto BSym = (*J)->lookup(K.Name + ".block");
      if (!BSym) {
        R.Error = "cannot compile kernel " + K.Name + ": " + errorText(BSym.takeError());
        return R;
      }
      CK.BlockFn = BSym->toPtr<KernelFn>();
    }
    Out->Kernels.push_back(CK);
  }
  for (const ptx::GlobalInfo &G : Lowered->Globals) {
    auto Sym = (*J)->lookup(G.Name);
    if (!Sym) {
      R.Error = "cannot resolve global " + G.Name + ": " + errorText(Sym.takeError());
      return R;
    }
    Out->Globals.push_back(CpuGlobal{G, Sym->toPtr<void *>()});
  }
  for (const std::string &F : Out->Failures)
    ZLUDA_LOG_WARN("cpu compiler: {} (the function traps if launched)", F);
  Out->Jit = std::make_unique<CpuModule::JitHolder>();
  Out->Jit->J = std::move(*J);
  R.Mod = std::move(Out);
  return R;
}

CompileResult compilePtx(std::string_view Ptx, const CompileOptions &Opts) {
  try {
    return CpuCompiler::run(Ptx, Opts);
  } catch (const std::exception &E) {
    CompileResult R;
    R.Error = std::string("internal compiler error: ") + E.what();
    return R;
  }
}

std::string lowerPtxToText(std::string_view Ptx, std::string &Err) {
  ptx::ParseResult PR = ptx::parse(Ptx);
  if (!PR.ok()) {
    Err = PR.Error.format("ptx");
    return {};
  }
  auto Lowered = ptx::lowerToLLVM(*PR.Mod, {});
  if (!Lowered) {
    Err = errorText(Lowered.takeError());
    return {};
  }
  std::string S;
  raw_string_ostream OS(S);
  Lowered->Mod->print(OS, nullptr);
  return OS.str();
}

} // namespace zluda::cpu
