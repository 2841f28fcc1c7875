//===- Jit.cpp - PTX to host code through LLVM ORC -------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The CPU device's compiler pipeline, in order:
///   parse -> lower (target neutral) -> verify -> link device runtime bitcode
///   -> internalize (everything but kernels and globals) -> O2 -> ORC JIT.
/// Linking comes before optimization so that the runtime inlines.
#include "cpu/Jit.h"

#include "common/Log.h"
#include "ptx/Parser.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
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
  for (const ptx::KernelInfo &K : Lowered->Kernels)
    Keep.insert(K.Name);
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
    Out->Kernels.push_back(CpuKernel{K, Sym->toPtr<KernelFn>()});
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
