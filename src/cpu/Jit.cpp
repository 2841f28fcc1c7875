//===- Jit.cpp - PTX to host code through LLVM ORC -------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The CPU device's compiler pipeline, in order:
///   parse -> lower (target neutral) -> verify -> link device runtime bitcode
///   -> internalize (everything but kernels and globals) -> O2 -> object file
///   -> ORC links it. Linking comes before optimization so that the runtime
/// inlines. The object file and what the driver needs to know of the kernels
/// go to the compile cache (src/cache); a cache hit skips straight to linking.
#include "cpu/Jit.h"

#include "common/Log.h"
#include "cache/CompileCache.h"
#include "cpu/CompilerStamp.h"
#include "cpu/DeviceAbi.h"
#include "ptx/Parser.h"

#include <cstddef>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/MCContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>
#include <optional>
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

namespace {

/// What a compiled module needs besides its machine code; stored beside the
/// object file in the compile cache.
struct ModuleMeta {
  std::vector<ptx::KernelInfo> Kernels;
  std::vector<bool> HasBlockLoop;
  std::vector<ptx::GlobalInfo> Globals;
  std::vector<std::string> Failures;
};

constexpr char CacheMagic[8] = {'Z', 'L', 'C', 'P', 'U', 'O', 'B', '1'};

class Writer {
public:
  cache::Blob Out;
  void bytes(const void *P, size_t N) {
    auto *B = static_cast<const uint8_t *>(P);
    Out.insert(Out.end(), B, B + N);
  }
  void u8(uint8_t V) { bytes(&V, 1); }
  void u32(uint32_t V) { bytes(&V, 4); }
  void u64(uint64_t V) { bytes(&V, 8); }
  void str(const std::string &S) {
    u32(uint32_t(S.size()));
    bytes(S.data(), S.size());
  }
};

/// Bounds-checked reads; any overrun marks the whole entry bad.
class Reader {
public:
  Reader(const cache::Blob &B) : B(B) {}
  bool Bad = false;
  bool bytes(void *P, size_t N) {
    if (Bad || B.size() - Pos < N) {
      Bad = true;
      return false;
    }
    std::memcpy(P, B.data() + Pos, N);
    Pos += N;
    return true;
  }
  uint8_t u8() { uint8_t V = 0; bytes(&V, 1); return V; }
  uint32_t u32() { uint32_t V = 0; bytes(&V, 4); return V; }
  uint64_t u64() { uint64_t V = 0; bytes(&V, 8); return V; }
  /// A count of items of at least \p MinSize bytes each that must still fit.
  uint32_t count(size_t MinSize) {
    uint32_t N = u32();
    if (!Bad && uint64_t(N) * MinSize > B.size() - Pos)
      Bad = true;
    return Bad ? 0 : N;
  }
  std::string str() {
    uint32_t N = count(1);
    std::string S(N, '\0');
    bytes(S.data(), N);
    return S;
  }
  const uint8_t *take(size_t N) {
    if (Bad || B.size() - Pos < N) {
      Bad = true;
      return nullptr;
    }
    const uint8_t *P = B.data() + Pos;
    Pos += N;
    return P;
  }
  bool atEnd() const { return !Bad && Pos == B.size(); }

private:
  const cache::Blob &B;
  size_t Pos = 0;
};

cache::Blob serialize(const ModuleMeta &M, StringRef Obj) {
  Writer W;
  W.bytes(CacheMagic, sizeof(CacheMagic));
  W.u32(uint32_t(M.Kernels.size()));
  for (size_t I = 0; I < M.Kernels.size(); ++I) {
    const ptx::KernelInfo &K = M.Kernels[I];
    W.str(K.Name);
    W.u32(uint32_t(K.Params.size()));
    for (const ptx::ParamLayout &P : K.Params) {
      W.u32(P.Offset);
      W.u32(P.Size);
      W.u32(P.Align);
    }
    for (uint32_t V : {K.ParamBufferSize, K.StaticSharedBytes, K.LocalBytes, K.MaxThreadsPerBlock, K.ReqNTid[0],
                       K.ReqNTid[1], K.ReqNTid[2], K.MinCtasPerSm})
      W.u32(V);
    W.u8(K.NeedsThreadSwitching);
    W.u8(K.UsesSpecialRegs);
    W.u8(M.HasBlockLoop[I]);
    W.str(K.Unsupported);
  }
  W.u32(uint32_t(M.Globals.size()));
  for (const ptx::GlobalInfo &G : M.Globals) {
    W.str(G.Name);
    W.u64(G.Size);
    W.u8(uint8_t(G.Space));
    W.u8(G.IsTexref);
  }
  W.u32(uint32_t(M.Failures.size()));
  for (const std::string &F : M.Failures)
    W.str(F);
  W.u64(Obj.size());
  W.bytes(Obj.data(), Obj.size());
  return std::move(W.Out);
}

/// False when the entry is not one of ours or is cut short.
bool deserialize(const cache::Blob &B, ModuleMeta &M, StringRef &Obj) {
  Reader R(B);
  char Magic[sizeof(CacheMagic)];
  if (!R.bytes(Magic, sizeof(Magic)) || std::memcmp(Magic, CacheMagic, sizeof(Magic)))
    return false;
  uint32_t NK = R.count(4);
  for (uint32_t I = 0; I < NK && !R.Bad; ++I) {
    ptx::KernelInfo K;
    K.Name = R.str();
    uint32_t NP = R.count(12);
    for (uint32_t J = 0; J < NP && !R.Bad; ++J) {
      ptx::ParamLayout P;
      P.Offset = R.u32();
      P.Size = R.u32();
      P.Align = R.u32();
      K.Params.push_back(P);
    }
    for (uint32_t *V : {&K.ParamBufferSize, &K.StaticSharedBytes, &K.LocalBytes, &K.MaxThreadsPerBlock,
                        &K.ReqNTid[0], &K.ReqNTid[1], &K.ReqNTid[2], &K.MinCtasPerSm})
      *V = R.u32();
    K.NeedsThreadSwitching = R.u8();
    K.UsesSpecialRegs = R.u8();
    M.HasBlockLoop.push_back(R.u8());
    K.Unsupported = R.str();
    M.Kernels.push_back(std::move(K));
  }
  uint32_t NG = R.count(4);
  for (uint32_t I = 0; I < NG && !R.Bad; ++I) {
    ptx::GlobalInfo G;
    G.Name = R.str();
    G.Size = R.u64();
    G.Space = ptx::StateSpace(R.u8());
    G.IsTexref = R.u8();
    M.Globals.push_back(std::move(G));
  }
  uint32_t NF = R.count(4);
  for (uint32_t I = 0; I < NF && !R.Bad; ++I)
    M.Failures.push_back(R.str());
  uint64_t N = R.u64();
  const uint8_t *P = R.take(N);
  if (!P || !R.atEnd())
    return false;
  Obj = StringRef(reinterpret_cast<const char *>(P), N);
  return true;
}

/// Everything that decides the compiler's output, hashed.
std::string cacheKey(std::string_view Ptx, const orc::JITTargetMachineBuilder &JTMB, const CompileOptions &Opts) {
  std::string K = "cpu;";
  K += cache::sha256Hex(Ptx);
  K += ';' + JTMB.getTargetTriple().str();
  K += ';' + JTMB.getCPU();
  K += ';' + JTMB.getFeatures().getString();
  K += ";O" + std::to_string(Opts.OptLevel);
  K += ";llvm " LLVM_VERSION_STRING;
  K += ";compiler " ZLUDA_COMPILER_STAMP;
  return cache::sha256Hex(K);
}

} // namespace

/// Writes one line to stderr when a module takes more than a second to
/// compile, and its time when it is done, so that a slow first run does not
/// look like a hang.
class ProgressLine {
public:
  ProgressLine(size_t Bytes, unsigned AfterMs, bool Cached) : Start(std::chrono::steady_clock::now()), Cached(Cached) {
    Watcher = std::thread([this, Bytes, AfterMs] {
      std::unique_lock<std::mutex> L(Mu);
      if (!Cv.wait_for(L, std::chrono::milliseconds(AfterMs), [this] { return Finished; })) {
        Shown = true;
        std::fprintf(stderr, "zluda: compiling a PTX module (%zu KiB) for the CPU device...\n", Bytes / 1024);
      }
    });
  }
  void done() {
    {
      std::lock_guard<std::mutex> L(Mu);
      Finished = true;
    }
    Cv.notify_all();
    Watcher.join();
    if (Shown)
      std::fprintf(stderr, "zluda: compiled in %.1f s%s\n",
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count(),
                   Cached ? " (kept in the compile cache for later runs)" : "");
  }
  ~ProgressLine() {
    if (Watcher.joinable())
      done();
  }

private:
  std::chrono::steady_clock::time_point Start;
  bool Cached;
  std::mutex Mu;
  std::condition_variable Cv;
  bool Finished = false, Shown = false;
  std::thread Watcher;
};

struct CpuCompiler {
  static CompileResult run(std::string_view Ptx, const CompileOptions &Opts);
  static CompileResult compile(std::string_view Ptx, const CompileOptions &Opts, orc::JITTargetMachineBuilder JTMB,
                               cache::Blob *Entry);
  static CompileResult load(orc::JITTargetMachineBuilder JTMB, const ModuleMeta &Meta, StringRef Obj);
};

CompileResult CpuCompiler::run(std::string_view Ptx, const CompileOptions &Opts) {
  initLLVM();
  auto JTMB = orc::JITTargetMachineBuilder::detectHost();
  if (!JTMB) {
    CompileResult R;
    R.Error = "cannot target the host: " + errorText(JTMB.takeError());
    return R;
  }
  JTMB->setCodeGenOptLevel(Opts.OptLevel >= 2 ? CodeGenOpt::Default : CodeGenOpt::None);
  cache::Store *Cache = Opts.UseCache && Opts.DumpLLVM.empty() ? cache::processStore() : nullptr;
  std::string Key;
  if (Cache) {
    Key = cacheKey(Ptx, *JTMB, Opts);
    if (std::optional<cache::Blob> B = Cache->get(Key)) {
      ModuleMeta Meta;
      StringRef Obj;
      if (deserialize(*B, Meta, Obj)) {
        CompileResult R = load(*JTMB, Meta, Obj);
        if (R.Mod) {
          ZLUDA_LOG_DEBUG("cpu compiler: module {} from the compile cache", Key.substr(0, 16));
          for (const std::string &F : Meta.Failures)
            ZLUDA_LOG_WARN("cpu compiler: {} (the function traps if launched)", F);
          if (Opts.ObjectOut)
            *Opts.ObjectOut = Obj.str();
          R.FromCache = true;
          return R;
        }
        ZLUDA_LOG_WARN("compile cache: entry {} does not load ({}); compiling again", Key.substr(0, 16), R.Error);
      } else {
        ZLUDA_LOG_WARN("compile cache: entry {} is not a CPU module; compiling again", Key.substr(0, 16));
      }
    }
  }
  cache::Blob Entry;
  ProgressLine Progress(Ptx.size(), Opts.ProgressAfterMs, Cache != nullptr);
  CompileResult R = compile(Ptx, Opts, *JTMB, Cache ? &Entry : nullptr);
  Progress.done();
  if (R.Mod && Cache && !Entry.empty())
    Cache->put(Key, Entry);
  return R;
}

CompileResult CpuCompiler::compile(std::string_view Ptx, const CompileOptions &Opts,
                                   orc::JITTargetMachineBuilder JTMB, cache::Blob *Entry) {
  CompileResult R;
  ptx::ParseResult PR = ptx::parse(Ptx);
  if (!PR.ok()) {
    R.Error = PR.Error.format("ptx");
    return R;
  }
  auto TM = JTMB.createTargetMachine();
  if (!TM) {
    R.Error = errorText(TM.takeError());
    return R;
  }
  ptx::LoweringOptions LO;
  LO.TargetTriple = JTMB.getTargetTriple().str();
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
  ModuleMeta Meta;
  Meta.Kernels = Lowered->Kernels;
  Meta.Globals = Lowered->Globals;
  Meta.Failures = Lowered->Failures;
  std::set<std::string> Keep;
  for (const ptx::KernelInfo &K : Lowered->Kernels) {
    Keep.insert(K.Name);
    bool Loop = false;
    if (!K.NeedsThreadSwitching && K.Unsupported.empty())
      if (Function *KF = M.getFunction(K.Name)) {
        Keep.insert(buildBlockLoop(M, KF)->getName().str());
        Loop = true;
      }
    Meta.HasBlockLoop.push_back(Loop);
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
  // Machine code is made here rather than inside ORC so that the object file
  // can go to the compile cache; ORC then only links it.
  SmallVector<char, 0> ObjBuf;
  {
    raw_svector_ostream OS(ObjBuf);
    legacy::PassManager PM;
    MCContext *Ctx = nullptr;
    if ((*TM)->addPassesToEmitMC(PM, Ctx, OS)) {
      R.Error = "the host target cannot emit machine code";
      return R;
    }
    PM.run(M);
  }
  StringRef Obj(ObjBuf.data(), ObjBuf.size());
  R = load(JTMB, Meta, Obj);
  if (R.Mod) {
    for (const std::string &F : Meta.Failures)
      ZLUDA_LOG_WARN("cpu compiler: {} (the function traps if launched)", F);
    if (Entry)
      *Entry = serialize(Meta, Obj);
    if (Opts.ObjectOut)
      *Opts.ObjectOut = Obj.str();
  }
  return R;
}

CompileResult CpuCompiler::load(orc::JITTargetMachineBuilder JTMB, const ModuleMeta &Meta, StringRef Obj) {
  CompileResult R;
  auto J = orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(JTMB)).create();
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
  if (Error E = (*J)->addObjectFile(MemoryBuffer::getMemBufferCopy(Obj, "zluda-cpu-module"))) {
    R.Error = errorText(std::move(E));
    return R;
  }
  auto Out = std::make_unique<CpuModule>();
  Out->Failures = Meta.Failures;
  for (size_t I = 0; I < Meta.Kernels.size(); ++I) {
    const ptx::KernelInfo &K = Meta.Kernels[I];
    auto Sym = (*J)->lookup(K.Name);
    if (!Sym) {
      R.Error = "cannot link kernel " + K.Name + ": " + errorText(Sym.takeError());
      return R;
    }
    CpuKernel CK{K, Sym->toPtr<KernelFn>(), nullptr};
    if (Meta.HasBlockLoop[I]) {
      auto BSym = (*J)->lookup(K.Name + ".block");
      if (!BSym) {
        R.Error = "cannot link kernel " + K.Name + ": " + errorText(BSym.takeError());
        return R;
      }
      CK.BlockFn = BSym->toPtr<KernelFn>();
    }
    Out->Kernels.push_back(CK);
  }
  for (const ptx::GlobalInfo &G : Meta.Globals) {
    auto Sym = (*J)->lookup(G.Name);
    if (!Sym) {
      R.Error = "cannot resolve global " + G.Name + ": " + errorText(Sym.takeError());
      return R;
    }
    Out->Globals.push_back(CpuGlobal{G, Sym->toPtr<void *>()});
  }
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
