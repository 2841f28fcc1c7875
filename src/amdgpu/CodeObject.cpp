//===- CodeObject.cpp - PTX to AMDGPU code objects through COMGR -----------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The pipeline, in order:
///   parse -> lower (target neutral) -> promote registers to SSA -> retarget
///   (allocas to the private address space, module variables to the global
///   one, amdgpu_kernel entry points over CUDA's parameter buffer, the
///   module's static shared size folded in) -> link the AMDGPU device runtime
///   (wave32 or wave64 bitcode) -> internalize -> COMGR: add device libraries
///   -> link -> codegen (-O3, internalized symbols) -> link to an executable.
/// COMGR resets LLVM's command-line options, and is not known to be
/// reentrant: its calls are serialized.
#include "amdgpu/CodeObject.h"
#include "amdgpu/Comgr.h"

#include "amdgpu/CompilerStamp.h"
#include "cache/CompileCache.h"
#include "ptx/codegen/InfoIO.h"
#include "common/Log.h"
#include "ptx/Parser.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Utils/Mem2Reg.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

extern "C" const unsigned char zluda_amdgpu_runtime_w32_bc[];
extern "C" const unsigned long zluda_amdgpu_runtime_w32_bc_size;
extern "C" const unsigned char zluda_amdgpu_runtime_w64_bc[];
extern "C" const unsigned long zluda_amdgpu_runtime_w64_bc_size;
extern "C" const unsigned char zluda_amdgpu_runtime_w64s_bc[];
extern "C" const unsigned long zluda_amdgpu_runtime_w64s_bc_size;

namespace zluda::amdgpu {

using namespace llvm;

namespace {

constexpr unsigned PrivateAS = 5, GlobalAS = 1, ConstantAS = 4;

std::string errorText(Error E) {
  std::string S;
  raw_string_ostream OS(S);
  OS << E;
  return OS.str();
}

/// Processors reached through another ISA name with -mcpu (COMGR 2.4 does not
/// list them; its LLVM 15 code generator knows them).
const std::map<std::string, std::string> &isaAliases() {
  static const std::map<std::string, std::string> M = {
      {"gfx1100", "gfx1030"}, {"gfx1101", "gfx1030"}, {"gfx1102", "gfx1030"}, {"gfx1103", "gfx1030"},
      {"gfx940", "gfx90a"}};
  return M;
}

/// Runtime functions this target does not implement yet: a kernel that
/// reaches one is marked unsupported.
const std::map<std::string, const char *> &unsupportedRuntime() {
  static const std::map<std::string, const char *> M = {
      {"__zluda_ptx_malloc", "malloc"},
      {"__zluda_ptx_free", "free"},
      {"__zluda_ptx_cdp_buffer", "dynamic parallelism (device-side launches)"},
      {"__zluda_ptx_cdp_launch", "dynamic parallelism (device-side launches)"},
      {"__zluda_ptx_grid_sync", "cooperative groups' cudaCGSynchronize"},
      {"__zluda_ptx_wgmma", "wgmma.mma_async (Hopper's warpgroup matrix multiply)"}};
  return M;
}

std::mutex &comgrMutex() {
  static std::mutex M;
  return M;
}

/// One COMGR action's objects, released on every path.
struct Comgr {
  std::vector<amd_comgr_data_set_t> Sets;
  std::vector<amd_comgr_data_t> Datas;
  amd_comgr_action_info_t Info{};
  bool HaveInfo = false;
  std::string Error;
  ~Comgr() {
    for (amd_comgr_data_t D : Datas)
      comgr().amd_comgr_release_data(D);
    for (amd_comgr_data_set_t S : Sets)
      comgr().amd_comgr_destroy_data_set(S);
    if (HaveInfo)
      comgr().amd_comgr_destroy_action_info(Info);
  }
  bool check(amd_comgr_status_t S, const char *What) {
    if (S == AMD_COMGR_STATUS_SUCCESS)
      return true;
    const char *Msg = nullptr;
    comgr().amd_comgr_status_string(S, &Msg);
    if (Error.empty())
      Error = std::string("COMGR: ") + What + ": " + (Msg ? Msg : "error");
    return false;
  }
  amd_comgr_data_set_t newSet() {
    amd_comgr_data_set_t S{};
    if (check(comgr().amd_comgr_create_data_set(&S), "create data set"))
      Sets.push_back(S);
    return S;
  }
  /// The first item of \p Kind in \p S, as bytes.
  std::string get(amd_comgr_data_set_t S, amd_comgr_data_kind_t Kind) {
    amd_comgr_data_t D{};
    if (!check(comgr().amd_comgr_action_data_get_data(S, Kind, 0, &D), "get data"))
      return {};
    Datas.push_back(D);
    size_t N = 0;
    if (!check(comgr().amd_comgr_get_data(D, &N, nullptr), "data size"))
      return {};
    std::string Out(N, '\0');
    check(comgr().amd_comgr_get_data(D, &N, Out.data()), "data");
    return Out;
  }
  /// The action's log, for error messages.
  std::string log(amd_comgr_data_set_t S) {
    size_t Count = 0;
    if (comgr().amd_comgr_action_data_count(S, AMD_COMGR_DATA_KIND_LOG, &Count) != AMD_COMGR_STATUS_SUCCESS || !Count)
      return {};
    std::string E = Error;
    std::string L = get(S, AMD_COMGR_DATA_KIND_LOG);
    Error = E;
    return L;
  }
  bool action(amd_comgr_action_kind_t Kind, const char *What, const std::vector<const char *> &Options,
              amd_comgr_data_set_t In, amd_comgr_data_set_t Out) {
    if (!check(comgr().amd_comgr_action_info_set_option_list(Info, const_cast<const char **>(Options.data()), Options.size()),
               "options"))
      return false;
    if (check(comgr().amd_comgr_do_action(Kind, Info, In, Out), What))
      return true;
    std::string L = log(Out);
    if (!L.empty())
      Error += "\n" + L;
    return false;
  }
};

/// Registers of the lowering are allocas; promote them while they are still
/// in the generic address space (mem2reg does not look through the casts the
/// retargeting adds).
void promote(Module &M) {
  FunctionAnalysisManager FAM;
  PassBuilder PB;
  PB.registerFunctionAnalyses(FAM);
  FunctionPassManager FPM;
  FPM.addPass(SROAPass());
  FPM.addPass(PromotePass());
  for (Function &F : M)
    if (!F.isDeclaration())
      FPM.run(F, FAM);
}

/// Functions reachable from \p Root through calls and references.
std::set<const Function *> reachable(const Function *Root) {
  std::set<const Function *> Seen{Root};
  std::vector<const Function *> Work{Root};
  while (!Work.empty()) {
    const Function *F = Work.back();
    Work.pop_back();
    for (const BasicBlock &BB : *F)
      for (const Instruction &I : BB)
        for (const Use &Op : I.operands())
          if (auto *G = dyn_cast<Function>(Op.get()->stripPointerCasts()))
            if (Seen.insert(G).second)
              Work.push_back(G);
  }
  return Seen;
}

/// Dynamic shared memory starts after the module's static shared memory:
/// calls of dyn_shared_offset (from the lowering, and from the runtime's
/// %dynamic_smem_size once it is linked) become that constant.
void foldDynSharedOffset(Module &M, uint32_t StaticShared) {
  Function *F = M.getFunction("__zluda_ptx_dyn_shared_offset");
  if (!F)
    return;
  std::vector<CallInst *> Calls;
  for (User *U : F->users())
    if (auto *CI = dyn_cast<CallInst>(U))
      Calls.push_back(CI);
  for (CallInst *CI : Calls) {
    CI->replaceAllUsesWith(ConstantInt::get(CI->getType(), StaticShared));
    CI->eraseFromParent();
  }
  if (F->use_empty())
    F->eraseFromParent();
}

/// PTX alloca draws on the thread's stack (1 KiB by default on NVIDIA's
/// driver, CU_LIMIT_STACK_SIZE). LLVM 15's AMDGPU back end selects neither
/// dynamically sized allocas nor stacksave/stackrestore, so a function with
/// either gets an arena of that size in private memory and a bump offset:
/// an allocation takes the next aligned bytes (and traps past the arena),
/// stacksave reads the offset as an address, stackrestore sets it back.
constexpr uint64_t DynamicStackBytes = 1024;

void lowerDynamicStack(Function &F) {
  std::vector<AllocaInst *> Dynamic;
  std::vector<IntrinsicInst *> SaveRestore;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      if (auto *A = dyn_cast<AllocaInst>(&I); A && !A->isStaticAlloca())
        Dynamic.push_back(A);
      if (auto *II = dyn_cast<IntrinsicInst>(&I);
          II && (II->getIntrinsicID() == Intrinsic::stacksave || II->getIntrinsicID() == Intrinsic::stackrestore))
        SaveRestore.push_back(II);
    }
  if (Dynamic.empty() && SaveRestore.empty())
    return;
  LLVMContext &C = F.getContext();
  const DataLayout &DL = F.getParent()->getDataLayout();
  IRBuilder<> B(&*F.getEntryBlock().getFirstInsertionPt());
  uint64_t MaxAlign = 16;
  for (AllocaInst *A : Dynamic)
    MaxAlign = std::max<uint64_t>(MaxAlign, A->getAlign().value());
  AllocaInst *Arena = B.CreateAlloca(ArrayType::get(B.getInt8Ty(), DynamicStackBytes), nullptr, "dynstack");
  Arena->setAlignment(Align(MaxAlign));
  AllocaInst *Top = B.CreateAlloca(B.getInt64Ty(), nullptr, "dynstack.top");
  B.CreateStore(B.getInt64(0), Top);
  Type *I8 = B.getInt8Ty();
  for (AllocaInst *A : Dynamic) {
    B.SetInsertPoint(A);
    uint64_t AlignBytes = A->getAlign().value();
    Value *Count = B.CreateZExtOrTrunc(A->getArraySize(), B.getInt64Ty());
    Value *Size = B.CreateMul(Count, B.getInt64(DL.getTypeAllocSize(A->getAllocatedType())));
    Value *Off = B.CreateAnd(B.CreateAdd(B.CreateLoad(B.getInt64Ty(), Top), B.getInt64(AlignBytes - 1)),
                             B.getInt64(~(AlignBytes - 1)));
    Value *End = B.CreateAdd(Off, Size);
    // Past the arena (or a size that wrapped): trap, as a stack overflow would end the kernel.
    Value *Over = B.CreateOr(B.CreateICmpUGT(End, B.getInt64(DynamicStackBytes)), B.CreateICmpULT(End, Off));
    BasicBlock *Head = A->getParent();
    BasicBlock *Rest = Head->splitBasicBlock(A, "dynstack.ok");
    BasicBlock *Trap = BasicBlock::Create(C, "dynstack.overflow", &F, Rest);
    Head->getTerminator()->eraseFromParent();
    IRBuilder<>(Head).CreateCondBr(Over, Trap, Rest);
    IRBuilder<> TB(Trap);
    TB.CreateCall(Intrinsic::getDeclaration(F.getParent(), Intrinsic::trap));
    TB.CreateUnreachable();
    B.SetInsertPoint(A);
    B.CreateStore(End, Top);
    Value *P = B.CreateGEP(I8, Arena, Off, A->getName() + ".dyn");
    A->replaceAllUsesWith(P);
    A->eraseFromParent();
  }
  for (IntrinsicInst *II : SaveRestore) {
    B.SetInsertPoint(II);
    if (II->getIntrinsicID() == Intrinsic::stacksave) {
      II->replaceAllUsesWith(B.CreateGEP(I8, Arena, B.CreateLoad(B.getInt64Ty(), Top)));
    } else {
      Value *P = II->getArgOperand(0);
      B.CreateStore(B.CreateSub(B.CreatePtrToInt(P, B.getInt64Ty()), B.CreatePtrToInt(Arena, B.getInt64Ty())), Top);
    }
    II->eraseFromParent();
  }
}

/// The target fix-ups of the file comment. \p Kernels gain their
/// unsupported-feature notes.
void retarget(Module &M, const Module &Runtime, std::vector<ptx::KernelInfo> &Kernels,
              std::vector<std::string> &Failures, uint32_t StaticShared, bool Slow) {
  LLVMContext &C = M.getContext();
  M.setTargetTriple(Runtime.getTargetTriple());
  M.setDataLayout(Runtime.getDataLayout());
  for (Function &F : M)
    if (!F.isDeclaration())
      lowerDynamicStack(F);
  // Private memory: every alloca, seen through a cast to a flat pointer.
  std::vector<AllocaInst *> Allocas;
  for (Function &F : M)
    for (BasicBlock &BB : F)
      for (Instruction &I : BB)
        if (auto *A = dyn_cast<AllocaInst>(&I); A && A->getAddressSpace() != PrivateAS)
          Allocas.push_back(A);
  for (AllocaInst *A : Allocas) {
    auto *N = new AllocaInst(A->getAllocatedType(), PrivateAS, A->getArraySize(), A->getAlign(), "", A);
    N->takeName(A);
    auto *Cast = new AddrSpaceCastInst(N, A->getType(), N->getName() + ".flat", A);
    A->replaceAllUsesWith(Cast);
    A->eraseFromParent();
  }
  // Module variables live in the global address space; code reaches them
  // through flat pointers.
  std::vector<GlobalVariable *> Vars;
  for (GlobalVariable &G : M.globals())
    if (G.getAddressSpace() == 0 && !G.getName().startswith("llvm."))
      Vars.push_back(&G);
  for (GlobalVariable *G : Vars) {
    auto *N = new GlobalVariable(M, G->getValueType(), G->isConstant(), G->getLinkage(),
                                 G->hasInitializer() ? G->getInitializer() : nullptr, "", G,
                                 GlobalValue::NotThreadLocal, GlobalAS);
    N->takeName(G);
    // nvcc names the strings of __PRETTY_FUNCTION__ "__unnamed_N", which is
    // also how LLVM's mangler names anonymous globals (the device libraries
    // have some): two symbols of one name. No program asks for these by name.
    if (N->getName().startswith("__unnamed_"))
      N->setName("__zluda_ptx" + N->getName());
    N->setAlignment(G->getAlign());
    N->setVisibility(GlobalValue::ProtectedVisibility);
    G->replaceAllUsesWith(ConstantExpr::getAddrSpaceCast(N, G->getType()));
    G->eraseFromParent();
  }
  foldDynSharedOffset(M, StaticShared);
  // llvm.roundeven has no AMDGPU lowering in LLVM 15 (a fatal "unsupported
  // libcall"); llvm.rint rounds the same way under the MODE register's
  // default round-to-nearest-even (v_rndne).
  std::vector<Function *> RoundEven;
  for (Function &F : M)
    if (F.getIntrinsicID() == Intrinsic::roundeven)
      RoundEven.push_back(&F);
  for (Function *F : RoundEven) {
    Function *Rint = Intrinsic::getDeclaration(&M, Intrinsic::rint, {F->getReturnType()});
    F->replaceAllUsesWith(Rint);
    F->eraseFromParent();
  }
  // libm functions the lowering calls: the device libraries' versions.
  for (auto [From, To] : {std::pair<const char *, const char *>{"tanhf", "__ocml_tanh_f32"}, {"tanh", "__ocml_tanh_f64"}})
    if (Function *F = M.getFunction(From))
      F->setName(To);
  // Kernels: amdgpu_kernel entry points whose one explicit argument is the
  // parameter buffer, passed in the kernarg segment (byref), so the
  // code object's kernarg layout is CUDA's.
  Type *Flat = PointerType::get(C, 0), *KernArg = PointerType::get(C, ConstantAS);
  // 128-bit atomics (atom.b128): AMDGPU has none and LLVM cannot legalize
  // them; each becomes a trap and the kernels that reach one are marked.
  std::set<const Function *> WideAtomics;
  {
    std::vector<Instruction *> Wide;
    for (Function &F : M)
      for (Instruction &I : instructions(F)) {
        Type *T = nullptr;
        if (auto *X = dyn_cast<AtomicCmpXchgInst>(&I))
          T = X->getCompareOperand()->getType();
        else if (auto *R = dyn_cast<AtomicRMWInst>(&I))
          T = R->getValOperand()->getType();
        if (T && T->isIntegerTy() && T->getIntegerBitWidth() > 64) {
          Wide.push_back(&I);
          WideAtomics.insert(&F);
        }
      }
    for (Instruction *I : Wide) {
      IRBuilder<> TB(I);
      TB.CreateIntrinsic(Intrinsic::trap, {}, {});
      I->replaceAllUsesWith(UndefValue::get(I->getType()));
      I->eraseFromParent();
    }
  }
  for (ptx::KernelInfo &K : Kernels) {
    Function *Body = M.getFunction(K.Name);
    if (!Body)
      continue;
    std::set<const Function *> Reach = reachable(Body);
    for (const Function *F : Reach)
      if (WideAtomics.count(F) && K.Unsupported.empty()) {
        K.Unsupported = "128-bit atomics (atom.b128) are not supported on AMDGPU yet";
        Failures.push_back(K.Name + ": " + K.Unsupported + " (the kernel traps if launched)");
      }
    for (const Function *F : Reach)
      if (auto It = unsupportedRuntime().find(F->getName().str()); It != unsupportedRuntime().end() &&
                                                                  K.Unsupported.empty()) {
        K.Unsupported = std::string(It->second) + " is not supported on AMDGPU yet";
        Failures.push_back(K.Name + ": " + K.Unsupported + " (the kernel traps if launched)");
      }
    Body->setName(K.Name + ".body");
    Body->setLinkage(GlobalValue::InternalLinkage);
    Body->removeFnAttr("zluda-kernel");
    Body->addFnAttr(Attribute::AlwaysInline);
    uint32_t Align = 4;
    for (const ptx::ParamLayout &P : K.Params)
      Align = std::max(Align, P.Align);
    // Slow mode: the block's x, y, z follow the parameter buffer.
    uint32_t KernargBytes = Slow ? slowModeGeometryOffset(K.ParamBufferSize) + 12 : K.ParamBufferSize;
    std::vector<Type *> Params;
    if (KernargBytes)
      Params.push_back(KernArg);
    auto *KF = Function::Create(FunctionType::get(Type::getVoidTy(C), Params, false), GlobalValue::ExternalLinkage,
                                K.Name, M);
    KF->setCallingConv(CallingConv::AMDGPU_KERNEL);
    KF->setVisibility(GlobalValue::ProtectedVisibility);
    uint32_t MaxThreads = K.ReqNTid[0] ? K.ReqNTid[0] * std::max(1u, K.ReqNTid[1]) * std::max(1u, K.ReqNTid[2])
                                       : K.MaxThreadsPerBlock;
    if (Slow)
      MaxThreads = slowModeWorkItems(std::min(std::max(1u, MaxThreads), SlowModeMaxThreads));
    KF->addFnAttr("amdgpu-flat-work-group-size", "1," + std::to_string(std::max(1u, MaxThreads)));
    IRBuilder<> B(BasicBlock::Create(C, "entry", KF));
    Value *Buf = ConstantPointerNull::get(cast<PointerType>(Flat));
    Value *Ctx = ConstantPointerNull::get(cast<PointerType>(Flat));
    if (KernargBytes) {
      Argument *A = KF->getArg(0);
      A->setName("params");
      KF->addParamAttr(0, Attribute::getWithByRefType(C, ArrayType::get(Type::getInt8Ty(C), KernargBytes)));
      KF->addParamAttr(0, Attribute::getWithAlignment(C, llvm::Align(Align)));
      KF->addParamAttr(0, Attribute::NoAlias);
      KF->addParamAttr(0, Attribute::ReadOnly);
      Buf = B.CreateAddrSpaceCast(A, Flat);
      if (Slow) {
        // The runtime finds the block's shape through the context pointer;
        // work-items that are no CUDA thread leave at once.
        Ctx = B.CreateAddrSpaceCast(
            B.CreateConstInBoundsGEP1_32(Type::getInt8Ty(C), A, slowModeGeometryOffset(K.ParamBufferSize)), Flat);
        FunctionCallee Active = M.getOrInsertFunction(
            "__zluda_amdgpu_slow_active", FunctionType::get(Type::getInt32Ty(C), {Flat}, false));
        BasicBlock *Run = BasicBlock::Create(C, "thread", KF), *Idle = BasicBlock::Create(C, "idle", KF);
        B.CreateCondBr(B.CreateICmpNE(B.CreateCall(Active, {Ctx}), B.getInt32(0)), Run, Idle);
        B.SetInsertPoint(Idle);
        B.CreateRetVoid();
        B.SetInsertPoint(Run);
      }
    }
    // Kernels that can reach a barrier start with the named barriers' counters zeroed.
    if (std::any_of(Reach.begin(), Reach.end(),
                    [](const Function *F) { return F->getName() == "__zluda_ptx_barrier"; }))
      B.CreateCall(M.getOrInsertFunction("__zluda_amdgpu_init_barriers",
                                         FunctionType::get(Type::getVoidTy(C), {Flat}, false)),
                   {Ctx});
    B.CreateCall(Body, {Ctx, Buf});
    B.CreateRetVoid();
  }
}

} // namespace

bool Target::parse(std::string_view Name, Target &Out, std::string &Err) {
  Out = Target();
  size_t Colon = Name.find(':');
  Out.Processor = std::string(Name.substr(0, Colon));
  Out.Features = Colon == std::string_view::npos ? "" : std::string(Name.substr(Colon));
  const std::string &P = Out.Processor;
  if (P.size() < 6 || P.rfind("gfx", 0) != 0) {
    Err = "'" + std::string(Name) + "' is not an AMDGPU processor (gfxNNNN)";
    return false;
  }
  if (P.rfind("gfx6", 0) == 0 || P.rfind("gfx7", 0) == 0) {
    Err = "'" + P + "' (GCN 1/2) is not supported: warp shuffles need ds_bpermute (gfx8 and later)";
    return false;
  }
  if (!comgr().ok()) {
    Err = comgr().Error;
    return false;
  }
  std::vector<std::string> Known = supportedProcessors();
  if (std::find(Known.begin(), Known.end(), P) == Known.end()) {
    Err = "'" + P + "' is not a processor this build's COMGR can target";
    return false;
  }
  // gfx6..gfx9 (GCN, CDNA) run 64-lane waves; gfx10+ (RDNA) 32-lane ones.
  Out.Wave64 = P.size() == 6 || (P.size() == 7 && !std::isdigit(static_cast<unsigned char>(P[6])));
  return true;
}

namespace {
/// A COMGR metadata node, destroyed with its owner.
struct MdNode {
  amd_comgr_metadata_node_t N{};
  bool Live = false;
  MdNode() = default;
  MdNode(const MdNode &) = delete;
  MdNode &operator=(const MdNode &) = delete;
  ~MdNode() {
    if (Live)
      comgr().amd_comgr_destroy_metadata(N);
  }
  bool lookup(const MdNode &Map, const char *Key) {
    Live = comgr().amd_comgr_metadata_lookup(Map.N, Key, &N) == AMD_COMGR_STATUS_SUCCESS;
    return Live;
  }
  bool index(const MdNode &List, size_t I) {
    Live = comgr().amd_comgr_index_list_metadata(List.N, I, &N) == AMD_COMGR_STATUS_SUCCESS;
    return Live;
  }
  std::string string() const {
    size_t Size = 0;
    if (comgr().amd_comgr_get_metadata_string(N, &Size, nullptr) != AMD_COMGR_STATUS_SUCCESS || Size == 0)
      return "";
    std::string S(Size, '\0');
    if (comgr().amd_comgr_get_metadata_string(N, &Size, S.data()) != AMD_COMGR_STATUS_SUCCESS)
      return "";
    S.resize(std::strlen(S.c_str()));
    return S;
  }
  size_t listSize() const {
    size_t Size = 0;
    return comgr().amd_comgr_get_metadata_list_size(N, &Size) == AMD_COMGR_STATUS_SUCCESS ? Size : 0;
  }
};
uint64_t number(const MdNode &Map, const char *Key) {
  MdNode V;
  return V.lookup(Map, Key) ? std::strtoull(V.string().c_str(), nullptr, 10) : 0;
}
} // namespace

bool readMetadata(const std::string &Elf, std::vector<KernelMetadata> &Out, std::string &Err) {
  Out.clear();
  if (!comgr().ok()) {
    Err = comgr().Error;
    return false;
  }
  amd_comgr_data_t Data;
  if (comgr().amd_comgr_create_data(AMD_COMGR_DATA_KIND_EXECUTABLE, &Data) != AMD_COMGR_STATUS_SUCCESS) {
    Err = "COMGR: cannot create a data object";
    return false;
  }
  bool Ok = false;
  {
    MdNode Root, Kernels;
    if (comgr().amd_comgr_set_data(Data, Elf.size(), Elf.data()) == AMD_COMGR_STATUS_SUCCESS &&
        comgr().amd_comgr_get_data_metadata(Data, &Root.N) == AMD_COMGR_STATUS_SUCCESS) {
      Root.Live = true;
      if (Kernels.lookup(Root, "amdhsa.kernels")) {
        Ok = true;
        for (size_t I = 0, E = Kernels.listSize(); I < E; ++I) {
          MdNode K, Name, Args;
          if (!K.index(Kernels, I) || !Name.lookup(K, ".name"))
            continue;
          KernelMetadata M;
          M.Name = Name.string();
          M.KernargSize = number(K, ".kernarg_segment_size");
          M.KernargAlign = static_cast<uint32_t>(number(K, ".kernarg_segment_align"));
          M.WavefrontSize = static_cast<uint32_t>(number(K, ".wavefront_size"));
          M.MaxFlatWorkgroup = static_cast<uint32_t>(number(K, ".max_flat_workgroup_size"));
          M.GroupSegmentFixed = static_cast<uint32_t>(number(K, ".group_segment_fixed_size"));
          M.PrivateSegmentFixed = static_cast<uint32_t>(number(K, ".private_segment_fixed_size"));
          M.VgprCount = static_cast<uint32_t>(number(K, ".vgpr_count"));
          M.SgprCount = static_cast<uint32_t>(number(K, ".sgpr_count"));
          if (Args.lookup(K, ".args"))
            for (size_t J = 0, N = Args.listSize(); J < N; ++J) {
              MdNode A, Kind;
              if (!A.index(Args, J) || !Kind.lookup(A, ".value_kind"))
                continue;
              std::string VK = Kind.string();
              if (VK == "hidden_hostcall_buffer")
                M.Hostcall = true;
              if (VK.rfind("hidden_", 0) != 0)
                M.ExplicitBytes = std::max(M.ExplicitBytes, number(A, ".offset") + number(A, ".size"));
            }
          Out.push_back(M);
        }
      }
    }
  }
  comgr().amd_comgr_release_data(Data);
  if (!Ok)
    Err = "COMGR cannot read the code object's AMDHSA metadata";
  return Ok;
}

std::vector<std::string> supportedProcessors() {
  std::vector<std::string> Out;
  if (!comgr().ok())
    return Out;
  size_t N = 0;
  if (comgr().amd_comgr_get_isa_count(&N) == AMD_COMGR_STATUS_SUCCESS)
    for (size_t I = 0; I < N; ++I) {
      const char *Isa = nullptr;
      if (comgr().amd_comgr_get_isa_name(I, &Isa) != AMD_COMGR_STATUS_SUCCESS || !Isa)
        continue;
      std::string S = Isa; // amdgcn-amd-amdhsa--gfx90a[:features]
      size_t P = S.find("--");
      if (P == std::string::npos)
        continue;
      S = S.substr(P + 2);
      S = S.substr(0, S.find(':'));
      // GCN 1 and 2 (gfx6, gfx7) lack ds_bpermute, which warp shuffles need
      // (LLVM cannot select it there); the HIP runtime does not run them either.
      if (S.rfind("gfx6", 0) == 0 || S.rfind("gfx7", 0) == 0)
        continue;
      if (std::find(Out.begin(), Out.end(), S) == Out.end())
        Out.push_back(S);
    }
  for (const auto &[Alias, Isa] : isaAliases())
    if (std::find(Out.begin(), Out.end(), Isa) != Out.end() && std::find(Out.begin(), Out.end(), Alias) == Out.end())
      Out.push_back(Alias);
  return Out;
}

namespace {

constexpr char EntryMagic[8] = {'Z', 'L', 'A', 'M', 'D', 'C', 'O', '1'};

cache::Blob serializeEntry(const CodeObject &R) {
  cache::Writer W;
  W.magic(EntryMagic);
  ptx::writeKernels(W, R.Kernels);
  ptx::writeGlobals(W, R.Globals);
  W.strs(R.Failures);
  W.u32(R.StaticShared);
  W.blob(R.Elf.data(), R.Elf.size());
  return std::move(W.Out);
}

bool deserializeEntry(const cache::Blob &B, CodeObject &R) {
  cache::Reader Rd(B);
  if (!Rd.magic(EntryMagic) || !ptx::readKernels(Rd, R.Kernels) || !ptx::readGlobals(Rd, R.Globals))
    return false;
  R.Failures = Rd.strs();
  R.StaticShared = Rd.u32();
  R.Elf = Rd.blob();
  return Rd.atEnd();
}

CodeObject compile(std::string_view Ptx, const Target &T, const CompileOptions &Opts) {
  CodeObject R;
  ptx::ParseResult PR = ptx::parse(Ptx);
  if (!PR.ok()) {
    R.Error = PR.Error.format("ptx");
    return R;
  }
  if (PR.Mod->AddressSize != 64) {
    // Device memory on AMD GPUs lies anywhere in a 64-bit space.
    R.Error = ".address_size 32 modules run on the CPU device only (AMD GPU addresses are 64-bit)";
    return R;
  }
  auto Lowered = ptx::lowerToLLVM(*PR.Mod, {});
  if (!Lowered) {
    R.Error = errorText(Lowered.takeError());
    return R;
  }
  Module &M = *Lowered->Mod;
  LLVMContext &C = *Lowered->Context;
  R.Kernels = Lowered->Kernels;
  R.Globals = Lowered->Globals;
  R.Failures = Lowered->Failures;
  for (const ptx::KernelInfo &K : R.Kernels)
    R.StaticShared = std::max(R.StaticShared, K.StaticSharedBytes);
  R.StaticShared = (R.StaticShared + 15) & ~15u;
  const bool Slow = T.Wave64 && Opts.Wave64Slow;
  StringRef RtData = Slow       ? StringRef(reinterpret_cast<const char *>(zluda_amdgpu_runtime_w64s_bc),
                                            zluda_amdgpu_runtime_w64s_bc_size)
                     : T.Wave64 ? StringRef(reinterpret_cast<const char *>(zluda_amdgpu_runtime_w64_bc),
                                            zluda_amdgpu_runtime_w64_bc_size)
                                : StringRef(reinterpret_cast<const char *>(zluda_amdgpu_runtime_w32_bc),
                                            zluda_amdgpu_runtime_w32_bc_size);
  auto RtBuf = MemoryBuffer::getMemBuffer(RtData, "zluda-amdgpu-runtime.bc", false);
  auto RT = parseBitcodeFile(RtBuf->getMemBufferRef(), C);
  if (!RT) {
    R.Error = "cannot load the AMDGPU device runtime: " + errorText(RT.takeError());
    return R;
  }
  promote(M);
  retarget(M, **RT, R.Kernels, R.Failures, R.StaticShared, Slow);
  // The runtime was built for one processor of its wave size: the module's
  // target decides.
  for (Function &F : **RT) {
    F.removeFnAttr("target-cpu");
    F.removeFnAttr("target-features");
  }
  if (Linker::linkModules(M, std::move(*RT), Linker::Flags::LinkOnlyNeeded)) {
    R.Error = "cannot link the AMDGPU device runtime";
    return R;
  }
  foldDynSharedOffset(M, R.StaticShared);
  std::set<std::string> Kernels;
  for (const ptx::KernelInfo &K : R.Kernels)
    Kernels.insert(K.Name);
  for (Function &F : M)
    if (!F.isDeclaration() && !Kernels.count(F.getName().str()))
      F.setLinkage(GlobalValue::InternalLinkage);
  if (Error E = ptx::verifyModule(M)) {
    R.Error = "internal compiler error (AMDGPU): " + errorText(std::move(E));
    return R;
  }
  if (Opts.LLVMOut) {
    raw_string_ostream OS(*Opts.LLVMOut);
    M.print(OS, nullptr);
  }
  SmallVector<char, 0> Bc;
  {
    raw_svector_ostream OS(Bc);
    WriteBitcodeToFile(M, OS);
  }

  // COMGR
  if (!comgr().ok())
    return R.Error = comgr().Error, R;
  std::string Proc = T.Processor, Isa = T.Processor;
  if (auto It = isaAliases().find(Proc); It != isaAliases().end())
    Isa = It->second;
  std::string IsaName = "amdgcn-amd-amdhsa--" + Isa + (Isa == Proc ? T.Features : std::string());
  std::string McpuOpt = "-mcpu=" + Proc;
  std::lock_guard<std::mutex> Lock(comgrMutex());
  Comgr G;
  amd_comgr_data_t In{};
  if (!G.check(comgr().amd_comgr_create_data(AMD_COMGR_DATA_KIND_BC, &In), "create data"))
    return R.Error = G.Error, R;
  G.Datas.push_back(In);
  amd_comgr_data_set_t InSet = G.newSet(), WithLibs = G.newSet(), Linked = G.newSet(), Reloc = G.newSet(),
                       Exec = G.newSet();
  if (!G.Error.empty() || !G.check(comgr().amd_comgr_set_data(In, Bc.size(), Bc.data()), "set data") ||
      !G.check(comgr().amd_comgr_set_data_name(In, "zluda-module.bc"), "set name") ||
      !G.check(comgr().amd_comgr_data_set_add(InSet, In), "add data") ||
      !G.check(comgr().amd_comgr_create_action_info(&G.Info), "action info"))
    return R.Error = G.Error, R;
  G.HaveInfo = true;
  if (!G.check(comgr().amd_comgr_action_info_set_isa_name(G.Info, IsaName.c_str()), "ISA name") ||
      !G.check(comgr().amd_comgr_action_info_set_language(G.Info, AMD_COMGR_LANGUAGE_HIP), "language") ||
      !G.check(comgr().amd_comgr_action_info_set_logging(G.Info, true), "logging"))
    return R.Error = G.Error, R;
  std::vector<const char *> LibOpts = {"code_object_v4", "correctly_rounded_sqrt"};
  if (T.Wave64)
    LibOpts.push_back("wavefrontsize64");
  if (Opts.Aggressive)
    for (const char *O : {"daz_opt", "finite_only", "unsafe_math"})
      LibOpts.push_back(O);
  // Private arrays stay private: promoting them to LDS would take shared
  // memory the program's launches count on (all of it is the dynamic LDS).
  static const char *Levels[] = {"-O0", "-O1", "-O2", "-O3"};
  std::vector<const char *> CodegenOpts = {Levels[std::min(Opts.OptLevel, 3u)], "-mllvm",
                                           "-amdgpu-internalize-symbols", "-mllvm", "-disable-promote-alloca-to-lds"};
  if (Isa != Proc)
    CodegenOpts.push_back(McpuOpt.c_str());
  if (Opts.Aggressive)
    for (const char *O : {"-fno-honor-nans", "-fno-honor-infinities", "-fapprox-func"})
      CodegenOpts.push_back(O);
  if (!G.action(AMD_COMGR_ACTION_ADD_DEVICE_LIBRARIES, "add device libraries", LibOpts, InSet, WithLibs) ||
      !G.action(AMD_COMGR_ACTION_LINK_BC_TO_BC, "link", {}, WithLibs, Linked) ||
      !G.action(AMD_COMGR_ACTION_CODEGEN_BC_TO_RELOCATABLE, "codegen", CodegenOpts, Linked, Reloc) ||
      !G.action(AMD_COMGR_ACTION_LINK_RELOCATABLE_TO_EXECUTABLE, "link executable", {}, Reloc, Exec))
    return R.Error = G.Error, R;
  R.Elf = G.get(Exec, AMD_COMGR_DATA_KIND_EXECUTABLE);
  if (R.Elf.empty())
    R.Error = G.Error.empty() ? "COMGR produced no code object" : G.Error;
  return R;
}

} // namespace

CodeObject compilePtx(std::string_view Ptx, const Target &T, const CompileOptions &Opts) {
  try {
    cache::Store *Cache = Opts.UseCache && !Opts.LLVMOut ? cache::processStore() : nullptr;
    std::string Key;
    if (Cache) {
      Key = cache::sha256Hex(std::string("amdgpu;") + cache::sha256Hex(Ptx) + ";" + T.name() +
                             (Opts.Aggressive ? ";fast" : "") + (T.Wave64 && Opts.Wave64Slow ? ";slow" : "") +
                             (Opts.OptLevel < 3 ? ";O" + std::to_string(Opts.OptLevel) : std::string()) +
                             ";llvm " LLVM_VERSION_STRING
                             ";compiler " ZLUDA_AMDGPU_COMPILER_STAMP);
      if (std::optional<cache::Blob> B = Cache->get(Key)) {
        CodeObject R;
        if (deserializeEntry(*B, R)) {
          R.FromCache = true;
          return R;
        }
        ZLUDA_LOG_WARN("compile cache: entry {} is not an AMDGPU code object; compiling again", Key.substr(0, 16));
      }
    }
    CodeObject R = compile(Ptx, T, Opts);
    for (const std::string &F : R.Failures)
      ZLUDA_LOG_WARN("amdgpu compiler ({}): {}", T.name(), F);
    if (Cache && !R.Elf.empty())
      Cache->put(Key, serializeEntry(R));
    return R;
  } catch (const std::exception &E) {
    CodeObject R;
    R.Error = std::string("internal compiler error: ") + E.what();
    return R;
  }
}

} // namespace zluda::amdgpu
