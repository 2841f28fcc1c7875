//===- Jit.cpp - PTX to host code through LLVM ORC -------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The CPU device's compiler pipeline, in order:
///   parse -> lower (target neutral) -> verify -> split into units
///   (ptx/codegen/Split.h) -> per unit, on a thread of its own: link device
///   runtime bitcode -> internalize (everything but the unit's kernels and the
///   module variables) -> O2 -> object file -> ORC links the units.
/// Linking comes before optimization so that the runtime inlines. An eager
/// load compiles every unit (groups of kernels) in parallel; a lazy load
/// compiles the module variables' unit and then each kernel alone when it is
/// first launched. What the driver needs to know of the kernels and each
/// unit's object file are entries of the compile cache (src/cache); hits skip
/// straight to linking.
#include "cpu/Jit.h"

#include "common/Env.h"
#include "common/Log.h"
#include "cache/CompileCache.h"
#include "ptx/codegen/InfoIO.h"
#include "cpu/CompilerStamp.h"
#include "cpu/DeviceAbi.h"
#include "cpu/LowMemory.h"
#include "cpu/Memcheck.h"
#include "cpu/Racecheck.h"
#include "cpu/Regions.h"
#include "cpu/passes/Passes.h"
#include "ptx/Parser.h"
#include "ptx/codegen/Split.h"

#include <cstddef>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h>
#include <llvm/ExecutionEngine/JITEventListener.h>
#include <llvm/ExecutionEngine/SectionMemoryManager.h>
#include <llvm/Object/SymbolSize.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/MCContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <thread>
#include <unistd.h>
#include <optional>
#include <set>

extern "C" const unsigned char zluda_cpu_runtime_bc[];
extern "C" const unsigned long zluda_cpu_runtime_bc_size;

namespace zluda::cpu {

using namespace llvm;
using namespace zluda::cpu::passes;

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

/// The address size a PTX module declares (PTX's default without the
/// directive is 32).
unsigned declaredAddressSize(std::string_view Ptx) {
  size_t P = Ptx.find(".address_size");
  if (P == std::string_view::npos)
    return 32;
  P += 13;
  while (P < Ptx.size() && (Ptx[P] == ' ' || Ptx[P] == '\t'))
    ++P;
  unsigned N = 0;
  while (P < Ptx.size() && Ptx[P] >= '0' && Ptx[P] <= '9')
    N = N * 10 + unsigned(Ptx[P++] - '0');
  return N;
}

/// ZLUDA_PERF_MAP=1: every function of a loaded object goes to
/// /tmp/perf-<pid>.map ("START SIZE NAME" in hex), the file `perf report`
/// reads to name code it finds in no file.
class PerfMapListener final : public JITEventListener {
public:
  static PerfMapListener *get() {
    static PerfMapListener *L = env::get("ZLUDA_PERF_MAP") == "1" ? new PerfMapListener() : nullptr;
    return L;
  }
  void notifyObjectLoaded(ObjectKey, const object::ObjectFile &Obj,
                          const RuntimeDyld::LoadedObjectInfo &Info) override {
    object::OwningBinary<object::ObjectFile> Loaded = Info.getObjectForDebug(Obj);
    const object::ObjectFile &O = Loaded.getBinary() ? *Loaded.getBinary() : Obj;
    std::lock_guard<std::mutex> Lock(M);
    if (!F)
      return;
    for (const auto &[Sym, Size] : object::computeSymbolSizes(O)) {
      Expected<object::SymbolRef::Type> Ty = Sym.getType();
      Expected<StringRef> Name = Sym.getName();
      Expected<uint64_t> Addr = Sym.getAddress();
      if (!Ty || !Name || !Addr || *Ty != object::SymbolRef::ST_Function || !Size) {
        consumeError(Ty.takeError());
        consumeError(Name.takeError());
        consumeError(Addr.takeError());
        continue;
      }
      std::fprintf(F, "%llx %llx %s\n", (unsigned long long)*Addr, (unsigned long long)Size, Name->str().c_str());
    }
    std::fflush(F);
  }

private:
  PerfMapListener() {
    std::string Path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
    F = std::fopen(Path.c_str(), "a");
    if (!F)
      ZLUDA_LOG_WARN("ZLUDA_PERF_MAP: cannot open {}", Path);
  }
  std::mutex M;
  std::FILE *F = nullptr;
};

/// Sections of 32-bit modules' JITs, from the region below 4 GiB.
class LowMapper final : public SectionMemoryManager::MemoryMapper {
public:
  sys::MemoryBlock allocateMappedMemory(SectionMemoryManager::AllocationPurpose, size_t NumBytes,
                                        const sys::MemoryBlock *const, unsigned Flags,
                                        std::error_code &EC) override {
    size_t Bytes = (NumBytes + 4095) & ~size_t(4095);
    void *P = LowMemory::get().allocate(Bytes, 4096);
    if (!P) {
      EC = std::make_error_code(std::errc::not_enough_memory);
      return sys::MemoryBlock();
    }
    sys::MemoryBlock B(P, Bytes);
    EC = sys::Memory::protectMappedMemory(B, Flags);
    return B;
  }
  std::error_code protectMappedMemory(const sys::MemoryBlock &Block, unsigned Flags) override {
    return sys::Memory::protectMappedMemory(Block, Flags);
  }
  std::error_code releaseMappedMemory(sys::MemoryBlock &M) override {
    if (M.base()) {
      sys::Memory::protectMappedMemory(M, sys::Memory::MF_READ | sys::Memory::MF_WRITE);
      LowMemory::get().release(M.base());
    }
    M = sys::MemoryBlock();
    return {};
  }
};

LowMapper &lowMapper() {
  static LowMapper *M = new LowMapper;
  return *M;
}

} // namespace

namespace {

void initLLVM() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
    // On AVX-512 hosts the x86 back end moves chains of integer operations
    // into mask registers (X86DomainReassignment), a search that grows with
    // the function: a lifted random-number kernel of 21k PTX lines spent 9 of
    // its 9.5 minutes of -O2 there (34 s without). The options are those of
    // the LLVM linked into this library only.
    if (cl::Option *O = cl::getRegisteredOptions().lookup("disable-x86-domain-reassignment"))
      static_cast<cl::opt<bool> *>(O)->setValue(true);
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

} // namespace

namespace {

/// What a compiled module needs besides its machine code; the first entry of
/// a module in the compile cache. Each unit's object file is an entry of its
/// own, so a lazily loaded module finds the kernels it has compiled before.
struct ModuleMeta {
  std::vector<ptx::KernelInfo> Kernels;
  std::vector<bool> HasBlockLoop;
  std::vector<ptx::GlobalInfo> Globals;
  std::vector<std::string> Failures;
  std::vector<ptx::UnitSpec> Groups; ///< the units of an eager load
};

constexpr char MetaMagic[8] = {'Z', 'L', 'C', 'P', 'U', 'M', 'T', '3'};
constexpr char UnitMagic[8] = {'Z', 'L', 'C', 'P', 'U', 'O', 'B', '2'};

cache::Blob serializeMeta(const ModuleMeta &M) {
  cache::Writer W;
  W.magic(MetaMagic);
  ptx::writeKernels(W, M.Kernels);
  for (bool B : M.HasBlockLoop)
    W.u8(B);
  ptx::writeGlobals(W, M.Globals);
  W.strs(M.Failures);
  W.u32(uint32_t(M.Groups.size()));
  for (const ptx::UnitSpec &U : M.Groups) {
    W.u8(U.WithGlobals);
    W.strs(U.Kernels);
  }
  return std::move(W.Out);
}

/// False when the entry is not one of ours, is cut short or does not hang
/// together (a group naming a kernel the module does not have).
bool deserializeMeta(const cache::Blob &B, ModuleMeta &M) {
  cache::Reader R(B);
  if (!R.magic(MetaMagic) || !ptx::readKernels(R, M.Kernels))
    return false;
  std::set<std::string> Names;
  for (const ptx::KernelInfo &K : M.Kernels) {
    M.HasBlockLoop.push_back(R.u8());
    Names.insert(K.Name);
  }
  if (!ptx::readGlobals(R, M.Globals))
    return false;
  M.Failures = R.strs();
  uint32_t NU = R.count(5);
  for (uint32_t I = 0; I < NU && !R.Bad; ++I) {
    ptx::UnitSpec U;
    U.WithGlobals = R.u8();
    U.Kernels = R.strs();
    for (const std::string &K : U.Kernels)
      if (!Names.count(K))
        return false;
    M.Groups.push_back(std::move(U));
  }
  return R.atEnd();
}

cache::Blob serializeUnit(StringRef Obj) {
  cache::Writer W;
  W.magic(UnitMagic);
  W.blob(Obj.data(), Obj.size());
  return std::move(W.Out);
}

std::optional<std::string> deserializeUnit(const cache::Blob &B) {
  cache::Reader R(B);
  if (!R.magic(UnitMagic))
    return std::nullopt;
  std::string Obj = R.blob();
  if (!R.atEnd())
    return std::nullopt;
  return Obj;
}

/// Everything that decides the compiler's output, hashed: the module's key;
/// its entries' keys add ";meta" or the unit's id.
std::string moduleKey(std::string_view Ptx, const orc::JITTargetMachineBuilder &JTMB, unsigned OptLevel) {
  std::string K = "cpu;";
  K += cache::sha256Hex(Ptx);
  K += ';' + JTMB.getTargetTriple().str();
  K += ';' + JTMB.getCPU();
  K += ';' + JTMB.getFeatures().getString();
  K += ";O" + std::to_string(OptLevel);
  if (memcheck::enabled())
    K += ";memcheck";
  if (racecheck::enabled())
    K += ";racecheck"; // LanesApart is off
  K += ";llvm " LLVM_VERSION_STRING;
  K += ";compiler " ZLUDA_COMPILER_STAMP;
  return cache::sha256Hex(K);
}

std::string entryKey(const std::string &ModuleKey, const std::string &What) {
  return cache::sha256Hex(ModuleKey + ";" + What);
}

/// The units of one module are compiled in parallel by this many threads
/// (0: one per core).
unsigned jobCount(unsigned Jobs, size_t Units) {
  if (Jobs == 0)
    Jobs = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<size_t>(Jobs, std::max<size_t>(Units, 1)));
}

/// Kernels whose threads wait for each other get work-item loops (Regions.h),
/// except in 32-bit modules (their locals must live below 4 GiB: fibers).
bool wantsRegions(const ptx::KernelInfo &K, bool Addr32) {
  return K.NeedsThreadSwitching && K.Unsupported.empty() && !Addr32;
}

} // namespace

/// Writes one line to stderr when a compile takes more than a second, and its
/// time when it is done, so that a slow first run does not look like a hang.
class ProgressLine {
public:
  ProgressLine(std::string What, unsigned AfterMs, bool Cached) : Start(std::chrono::steady_clock::now()), Cached(Cached) {
    Watcher = std::thread([this, What = std::move(What), AfterMs] {
      std::unique_lock<std::mutex> L(Mu);
      if (!Cv.wait_for(L, std::chrono::milliseconds(AfterMs), [this] { return Finished; })) {
        Shown = true;
        std::fprintf(stderr, "zluda: compiling %s for the CPU device...\n", What.c_str());
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

/// A parsed and lowered module, kept by a lazily loaded module for the
/// kernels it has yet to compile.
struct Lowered {
  ptx::LoweredModule L;
  std::string Error;
};

/// ZLUDA_TIME_PASSES=1: the time of each phase of a unit's compile, logged
/// at info level with LLVM's per-pass figures (optimize()).
class PhaseTimer {
public:
  void lap(const char *What) {
    if (!enabled())
      return;
    auto Now = std::chrono::steady_clock::now();
    Text += fmt::format(" {} {:.3f} s,", What, std::chrono::duration<double>(Now - Last).count());
    Last = Now;
  }
  void log(size_t Kernels) const {
    if (enabled())
      ZLUDA_LOG_INFO("cpu compiler: unit of {} kernel(s):{}", Kernels, Text);
  }
  static bool enabled() { return timingCompiles(); }

private:
  std::chrono::steady_clock::time_point Last = std::chrono::steady_clock::now();
  std::string Text;
};

/// Compiles one unit (bitcode of ptx::extractUnit's output) in a context of
/// its own: links the device runtime, adds the thread-loop entry points,
/// internalizes, optimizes and emits an object file.
struct UnitJob {
  std::string Bitcode;
  ptx::UnitSpec Spec;
  std::string Obj, Error;
  std::string IR; ///< optimized IR, when asked for
};

/// CpuModule::State::Tier values.
enum : uint8_t { TierNone, TierFirst, TierQueued, TierOptimized };

struct CpuModule::State {
  std::unique_ptr<orc::LLJIT> J;
  std::mutex Mu;
  // Lazy loading: what compiling a kernel on first use needs.
  std::string Ptx;
  std::string ModuleKey; ///< empty: the cache is not used
  unsigned OptLevel = 2;
  unsigned ProgressAfterMs = 1000;
  std::optional<orc::JITTargetMachineBuilder> JTMB;
  std::unique_ptr<Lowered> Low;
  std::vector<bool> HasBlockLoop;
  std::vector<std::unique_ptr<RegionCode>> Retired; ///< region code of replaced tiers
  // Tiered compilation (CompileOptions::Tiered): a kernel first runs code
  // compiled without optimization; launched TierUpLaunches times, it is
  // compiled at OptLevel by the module's background thread and swapped in
  // between launches. Both tiers go to the compile cache.
  bool Tiered = false;
  unsigned TierUpLaunches = 1;
  size_t TierAbove = 0;        ///< CompileOptions::TierAboveBytes
  std::string Tier1Key;        ///< the module's cache key at -O0
  std::vector<uint8_t> Tier;   ///< per kernel: TierNone ... TierOptimized
  std::vector<unsigned> Launches;
  std::deque<size_t> Queue;    ///< kernels waiting for their optimized compile
  std::condition_variable Cv;  ///< Queue or Stop changed; a tier-up finished
  bool Stop = false;
  std::string Compiling;       ///< the kernel the background thread is compiling
  std::thread Worker;
  /// Starts the background thread (lock held).
  void startWorker(CpuModule &M);
  /// Stops the background thread after its current compile (lock not held).
  void stopWorker() {
    {
      std::lock_guard<std::mutex> L(Mu);
      Stop = true;
    }
    Cv.notify_all();
    if (Worker.joinable())
      Worker.join();
  }
  ~State();
};

namespace {
/// Modules with a background compiler: at exit each finishes its current
/// compile and stops before static destructors take LLVM's state away. Never
/// destroyed: modules may be destroyed by other static destructors.
struct WorkerRegistry {
  std::mutex Mu;
  std::set<CpuModule::State *> Live;
};
WorkerRegistry &liveWorkers() {
  static WorkerRegistry *R = new WorkerRegistry;
  return *R;
}
void stopAllWorkers() {
  std::vector<CpuModule::State *> All;
  {
    std::lock_guard<std::mutex> L(liveWorkers().Mu);
    All.assign(liveWorkers().Live.begin(), liveWorkers().Live.end());
  }
  for (CpuModule::State *S : All) {
    {
      // A large kernel's optimized compile can take a while: say why the
      // process does not end at once.
      std::lock_guard<std::mutex> L(S->Mu);
      if (!S->Compiling.empty() && !S->Stop)
        std::fprintf(stderr, "zluda: finishing the optimized compile of kernel %s before exit (kept in the compile "
                             "cache for later runs)\n", S->Compiling.c_str());
    }
    S->stopWorker();
  }
}
} // namespace

/// Which extra entry points a unit's kernels get: the per-block loop
/// (threads never wait for each other) or the work-item loops between waits.
struct EntryPlan {
  std::set<std::string> BlockLoops, Regions;
};

struct CpuCompiler {
  static CompileResult run(std::string_view Ptx, const CompileOptions &Opts);
  static std::unique_ptr<Lowered> lower(std::string_view Ptx, orc::JITTargetMachineBuilder &JTMB);
  static std::string bitcode(const Lowered &L, const ptx::UnitSpec &U);
  static void compileUnit(UnitJob &Job, orc::JITTargetMachineBuilder JTMB, unsigned OptLevel,
                          const EntryPlan &Plan, bool WantIR);
  static void compileUnits(std::vector<UnitJob> &Jobs, const orc::JITTargetMachineBuilder &JTMB, unsigned OptLevel,
                           const EntryPlan &Plan, bool WantIR, unsigned Threads);
  /// \p In: the JITDylib holding the kernel's unit (null: the main one);
  /// \p Quiet: no log when the kernel has no work-item loops (a first tier).
  static std::string link(CpuModule &M, std::size_t Kernel, orc::JITDylib *In = nullptr, bool Quiet = false);
  static void tierUp(CpuModule &M, CpuModule::State &S);
  static std::string prepare(const CpuModule &M, std::size_t Kernel, UnitJob &Job, EntryPlan &Plan);
  static std::string materialize(CpuModule &M, std::size_t Kernel);
  static std::string precompile(const CpuModule &M, unsigned Threads, size_t &Compiled);
};

void CpuModule::State::startWorker(CpuModule &M) {
  {
    std::lock_guard<std::mutex> L(liveWorkers().Mu);
    liveWorkers().Live.insert(this);
  }
  Worker = std::thread(&CpuCompiler::tierUp, std::ref(M), std::ref(*this));
}

CpuModule::State::~State() {
  {
    std::lock_guard<std::mutex> L(liveWorkers().Mu);
    liveWorkers().Live.erase(this);
  }
  stopWorker();
}

std::unique_ptr<Lowered> CpuCompiler::lower(std::string_view Ptx, orc::JITTargetMachineBuilder &JTMB) {
  auto Out = std::make_unique<Lowered>();
  ptx::ParseResult PR = ptx::parse(Ptx);
  if (!PR.ok()) {
    Out->Error = PR.Error.format("ptx");
    return Out;
  }
  auto TM = JTMB.createTargetMachine();
  if (!TM) {
    Out->Error = errorText(TM.takeError());
    return Out;
  }
  ptx::LoweringOptions LO;
  LO.TargetTriple = JTMB.getTargetTriple().str();
  LO.DataLayout = (*TM)->createDataLayout().getStringRepresentation();
  LO.Memcheck = memcheck::enabled();
  // A block's lanes run one after another between collectives. Racecheck
  // reports a missing __syncwarp as compute-sanitizer does, so while it runs
  // such code is left unordered (ordering it would hide the hazard).
  LO.LanesApart = !racecheck::enabled();
  auto L = ptx::lowerToLLVM(*PR.Mod, LO);
  if (!L) {
    Out->Error = errorText(L.takeError());
    return Out;
  }
  if (Error E = ptx::verifyModule(*L->Mod)) {
    Out->Error = "internal compiler error: " + errorText(std::move(E));
    return Out;
  }
  Out->L = std::move(*L);
  return Out;
}

std::string CpuCompiler::bitcode(const Lowered &L, const ptx::UnitSpec &U) {
  PhaseTimer Phases;
  std::unique_ptr<Module> M = ptx::extractUnit(*L.L.Mod, U);
  Phases.lap("extract");
  std::string S;
  raw_string_ostream OS(S);
  WriteBitcodeToFile(*M, OS);
  Phases.lap("bitcode");
  Phases.log(U.Kernels.size());
  return OS.str();
}

void CpuCompiler::compileUnit(UnitJob &Job, orc::JITTargetMachineBuilder JTMB, unsigned OptLevel,
                              const EntryPlan &Plan, bool WantIR) {
  LLVMContext C;
  PhaseTimer Phases;
  auto TM = JTMB.createTargetMachine();
  if (!TM) {
    Job.Error = errorText(TM.takeError());
    return;
  }
  auto Buf = MemoryBuffer::getMemBuffer(Job.Bitcode, "zluda-unit.bc", false);
  auto Parsed = parseBitcodeFile(Buf->getMemBufferRef(), C);
  if (!Parsed) {
    Job.Error = "internal compiler error: " + errorText(Parsed.takeError());
    return;
  }
  Module &M = **Parsed;
  auto RT = loadRuntime(C);
  if (!RT) {
    Job.Error = "cannot load the CPU device runtime: " + errorText(RT.takeError());
    return;
  }
  (*RT)->setDataLayout(M.getDataLayout());
  (*RT)->setTargetTriple(M.getTargetTriple());
  if (Linker::linkModules(M, std::move(*RT), Linker::Flags::LinkOnlyNeeded)) {
    Job.Error = "cannot link the CPU device runtime";
    return;
  }
  // Only the unit's kernels and the module variables are looked up from
  // outside; everything else is private to the unit.
  std::set<std::string> Keep;
  // Threads of a block without barriers are independent: the accesses of
  // every function a block loop inlines form one parallel group.
  MDNode *Group = nullptr;
  for (const std::string &K : Job.Spec.Kernels) {
    Keep.insert(K);
    if (Plan.BlockLoops.count(K))
      if (Function *KF = M.getFunction(K)) {
        if (!Group) {
          Group = MDNode::getDistinct(C, {});
          for (Function &Fn : M)
            if (!Fn.isDeclaration())
              regions::markParallel(Fn, Group);
        }
        Keep.insert(buildBlockLoop(M, KF, Group)->getName().str());
      }
  }
  for (Function &F : M)
    if (!F.isDeclaration() && !Keep.count(F.getName().str()))
      F.setLinkage(GlobalValue::InternalLinkage);
  bool HasRegions = false;
  for (const std::string &K : Job.Spec.Kernels)
    HasRegions |= Plan.Regions.count(K) && OptLevel > 0;
  // Atomics on shared memory become plain read-modify-writes: one OS thread
  // runs a block. After the work-item loops are marked parallel, so that
  // they stay out of the parallel access group (a loop with them is not
  // vectorized).
  if (!HasRegions)
    lowerBlockAtomics(M);
  Phases.lap("parse, link runtime");
  for (Function &F : M)
    dropDeadRegisterInits(F);
  optimize(M, TM->get(), OptLevel);
  Phases.lap("optimize");
  if (HasRegions) {
    // Kernels whose threads wait for each other are cut at their waits once
    // optimized (device functions inlined, registers in SSA form); the new
    // entry points are optimized in a second run.
    for (const std::string &K : Job.Spec.Kernels)
      if (Plan.Regions.count(K))
        if (Function *KF = M.getFunction(K)) {
          std::string Why;
          if (!regions::build(M, KF, Why))
            ZLUDA_LOG_DEBUG("cpu compiler: kernel {} runs as fibers: {}", K, Why);
        }
    lowerBlockAtomics(M);
    Phases.lap("work-item loops");
    std::set<Function *> Loops;
    for (Function &F : M)
      if (F.getName().contains(".rgn.") || F.getName().endswith(".rgnany"))
        Loops.insert(&F);
    optimize(M, TM->get(), OptLevel, &Loops);
    Phases.lap("optimize loops");
  }
  if (WantIR) {
    raw_string_ostream OS(Job.IR);
    M.print(OS, nullptr);
  }
  // Machine code is made here rather than inside ORC so that the object file
  // can go to the compile cache; ORC then only links it.
  SmallVector<char, 0> ObjBuf;
  raw_svector_ostream OS(ObjBuf);
  legacy::PassManager PM;
  MCContext *Ctx = nullptr;
  if ((*TM)->addPassesToEmitMC(PM, Ctx, OS)) {
    Job.Error = "the host target cannot emit machine code";
    return;
  }
  PM.run(M);
  Job.Obj.assign(ObjBuf.data(), ObjBuf.size());
  Phases.lap("codegen");
  Phases.log(Job.Spec.Kernels.size());
}

void CpuCompiler::compileUnits(std::vector<UnitJob> &Jobs, const orc::JITTargetMachineBuilder &JTMB,
                               unsigned OptLevel, const EntryPlan &Plan, bool WantIR,
                               unsigned Threads) {
  std::atomic<size_t> Next{0};
  auto work = [&] {
    for (size_t I; (I = Next.fetch_add(1)) < Jobs.size();) {
      try {
        compileUnit(Jobs[I], JTMB, OptLevel, Plan, WantIR);
      } catch (const std::exception &E) {
        Jobs[I].Error = std::string("internal compiler error: ") + E.what();
      }
    }
  };
  std::vector<std::thread> Pool;
  for (unsigned T = 1; T < Threads; ++T)
    Pool.emplace_back(work);
  work();
  for (std::thread &T : Pool)
    T.join();
}

/// Adds nothing; looks up kernel \p I's entry points in the JIT (its unit's
/// object is already there). Called with the state's lock held.
std::string CpuCompiler::link(CpuModule &M, std::size_t I, orc::JITDylib *In, bool Quiet) {
  CpuKernel &K = M.Kernels[I];
  orc::JITDylib &JD = In ? *In : M.S->J->getMainJITDylib();
  auto Sym = M.S->J->lookup(JD, K.Info.Name);
  if (!Sym)
    return "cannot link kernel " + K.Info.Name + ": " + errorText(Sym.takeError());
  KernelFn BlockFn = nullptr;
  if (M.S->HasBlockLoop[I]) {
    auto BSym = M.S->J->lookup(JD, K.Info.Name + ".block");
    if (!BSym)
      return "cannot link kernel " + K.Info.Name + ": " + errorText(BSym.takeError());
    BlockFn = BSym->toPtr<KernelFn>();
  }
  K.Fn = Sym->toPtr<KernelFn>();
  K.BlockFn = BlockFn;
  if (K.Regions) // a launch may still use the replaced tier's: keep it
    M.S->Retired.push_back(std::move(K.Regions));
  if (wantsRegions(K.Info, M.Addr32)) {
    auto Info = M.S->J->lookup(JD, K.Info.Name + ".regions");
    if (!Info) {
      consumeError(Info.takeError());
      if (!Quiet)
        ZLUDA_LOG_INFO("cpu device: kernel {} runs as fibers (a fiber per thread; ZLUDA_LOG=debug says why at compile)",
                     K.Info.Name);
      return {};
    }
    auto R = std::make_unique<RegionCode>();
    R->Info = *Info->toPtr<const regions::Info *>();
    for (uint32_t P = 0; P < R->Info.Loops; ++P) {
      auto L = M.S->J->lookup(JD, K.Info.Name + ".rgn." + std::to_string(P));
      if (!L)
        return "cannot link kernel " + K.Info.Name + ": " + errorText(L.takeError());
      R->Loops.push_back(L->toPtr<regions::LoopFn>());
    }
    auto A = M.S->J->lookup(JD, K.Info.Name + ".rgnany");
    if (!A)
      return "cannot link kernel " + K.Info.Name + ": " + errorText(A.takeError());
    R->AnyLoop = A->toPtr<regions::AnyLoopFn>();
    if (R->Info.Uniforms) {
      auto U = M.S->J->lookup(JD, K.Info.Name + ".uniforms");
      if (!U)
        return "cannot link kernel " + K.Info.Name + ": " + errorText(U.takeError());
      R->Uniforms = U->toPtr<const regions::UniformSlot *>();
    }
    auto Rq = M.S->J->lookup(JD, K.Info.Name + ".requests");
    if (!Rq)
      return "cannot link kernel " + K.Info.Name + ": " + errorText(Rq.takeError());
    R->Requests = Rq->toPtr<const regions::Request *>();
    K.Regions = std::move(R);
  }
  return {};
}

/// The unit of kernel \p I alone, ready to compile: its bitcode and extra
/// entry points. Called with the state's lock held (lowers the module on first need).
std::string CpuCompiler::prepare(const CpuModule &M, std::size_t I, UnitJob &Job, EntryPlan &Plan) {
  CpuModule::State &S = *M.S;
  const std::string &Name = M.Kernels[I].Info.Name;
  if (!S.Low) {
    S.Low = lower(S.Ptx, *S.JTMB);
    if (!S.Low->Error.empty())
      return S.Low->Error;
  }
  Job.Spec = ptx::UnitSpec();
  Job.Spec.Kernels.push_back(Name);
  Job.Bitcode = bitcode(*S.Low, Job.Spec);
  ZLUDA_LOG_DEBUG("cpu compiler: kernel {}: unit of {} KiB of bitcode", Name, Job.Bitcode.size() / 1024);
  if (S.HasBlockLoop[I])
    Plan.BlockLoops.insert(Name);
  else if (wantsRegions(M.Kernels[I].Info, M.Addr32))
    Plan.Regions.insert(Name);
  return {};
}

/// Lazy loading: compiles (or finds in the cache) the unit of kernel \p I
/// alone and links it. Called with the state's lock held. With tiered
/// compilation, a kernel the cache does not hold optimized is compiled
/// without optimization first (tierUp replaces it later).
std::string CpuCompiler::materialize(CpuModule &M, std::size_t I) {
  CpuModule::State &S = *M.S;
  const std::string &Name = M.Kernels[I].Info.Name;
  ptx::UnitSpec U;
  U.Kernels.push_back(Name);
  cache::Store *Cache = S.ModuleKey.empty() ? nullptr : cache::processStore();
  auto cached = [&](const std::string &ModKey) -> std::optional<std::string> {
    if (!Cache || ModKey.empty())
      return std::nullopt;
    std::string Key = entryKey(ModKey, U.id());
    if (std::optional<cache::Blob> B = Cache->get(Key)) {
      if (std::optional<std::string> O = deserializeUnit(*B))
        return O;
      ZLUDA_LOG_WARN("compile cache: entry {} is not a CPU object; compiling again", Key.substr(0, 16));
    }
    return std::nullopt;
  };
  std::optional<std::string> Obj = cached(S.ModuleKey);
  std::vector<UnitJob> Jobs(1);
  EntryPlan Plan;
  bool Prepared = false;
  // A kernel starts at the first tier when its unit is large enough (its
  // bitcode, before optimization: about 3 s of -O2 per MiB on this kind of
  // machine) that the optimized compile would hold up its first launch.
  bool FirstTier = !Obj && S.Tiered;
  if (FirstTier && S.TierAbove) {
    if (std::string E = prepare(M, I, Jobs[0], Plan); !E.empty())
      return E;
    Prepared = true;
    FirstTier = Jobs[0].Bitcode.size() >= S.TierAbove;
  }
  if (FirstTier)
    Obj = cached(S.Tier1Key);
  if (!Obj) {
    ProgressLine Progress("kernel " + Name, S.ProgressAfterMs, Cache != nullptr);
    if (!Prepared)
      if (std::string E = prepare(M, I, Jobs[0], Plan); !E.empty())
        return E;
    orc::JITTargetMachineBuilder JTMB = *S.JTMB;
    if (FirstTier)
      JTMB.setCodeGenOptLevel(CodeGenOpt::None);
    compileUnits(Jobs, JTMB, FirstTier ? 0 : S.OptLevel, Plan, false, 1);
    if (!Jobs[0].Error.empty())
      return Jobs[0].Error;
    Obj = std::move(Jobs[0].Obj);
    if (Cache)
      Cache->put(entryKey(FirstTier ? S.Tier1Key : S.ModuleKey, U.id()), serializeUnit(*Obj));
    ZLUDA_LOG_DEBUG("cpu compiler: kernel {} compiled on first use{}", Name, FirstTier ? " (first tier, -O0)" : "");
  }
  if (Error E = S.J->addObjectFile(MemoryBuffer::getMemBufferCopy(*Obj, "zluda-cpu-" + Name)))
    return errorText(std::move(E));
  if (S.Tiered)
    S.Tier[I] = FirstTier ? TierFirst : TierOptimized;
  return link(M, I, nullptr, FirstTier);
}

/// The module's background thread: compiles queued kernels at the module's
/// optimization level, each into a JITDylib of its own (its symbols have the
/// first tier's names), and swaps their entry points in under the lock;
/// launches already running keep the first tier's code, which stays loaded.
void CpuCompiler::tierUp(CpuModule &M, CpuModule::State &S) {
  cache::Store *Cache = S.ModuleKey.empty() ? nullptr : cache::processStore();
  std::unique_lock<std::mutex> L(S.Mu);
  for (;;) {
    S.Cv.wait(L, [&] { return S.Stop || !S.Queue.empty(); });
    if (S.Stop)
      return;
    // exit() runs its handlers newest first: registered again before each
    // compile, the handler that stops this thread runs before the destructors
    // of statics that earlier compiles constructed.
    std::atexit(stopAllWorkers);
    size_t I = S.Queue.front();
    S.Queue.pop_front();
    const std::string Name = M.Kernels[I].Info.Name;
    std::vector<UnitJob> Jobs(1);
    EntryPlan Plan;
    std::string Err = prepare(M, I, Jobs[0], Plan);
    orc::JITDylib *JD = nullptr;
    if (Err.empty()) {
      S.Compiling = Name;
      L.unlock();
      try {
        compileUnits(Jobs, *S.JTMB, S.OptLevel, Plan, false, 1);
        Err = Jobs[0].Error;
        if (Err.empty()) {
          if (Cache)
            Cache->put(entryKey(S.ModuleKey, Jobs[0].Spec.id()), serializeUnit(Jobs[0].Obj));
          auto D = S.J->createJITDylib("zluda-optimized-" + std::to_string(I));
          if (!D) {
            Err = errorText(D.takeError());
          } else {
            JD = &*D;
            JD->addToLinkOrder(S.J->getMainJITDylib());
            if (Error E = S.J->addObjectFile(*JD, MemoryBuffer::getMemBufferCopy(Jobs[0].Obj, "zluda-cpu-O-" + Name)))
              Err = errorText(std::move(E));
          }
        }
      } catch (const std::exception &E) {
        Err = std::string("internal compiler error: ") + E.what();
      }
      L.lock();
      S.Compiling.clear();
      if (S.Stop) // exiting: nothing will launch the kernel again
        return;
      if (Err.empty())
        Err = link(M, I, JD);
    }
    if (Err.empty())
      ZLUDA_LOG_DEBUG("cpu compiler: kernel {} optimized in the background", Name);
    else
      ZLUDA_LOG_WARN("cpu compiler: kernel {} keeps its unoptimized code: {}", Name, Err);
    S.Tier[I] = TierOptimized;
    S.Cv.notify_all();
  }
}

/// The kernels materialize() would compile, all at once on \p Threads threads,
/// into the compile cache (the same unit and key per kernel).
std::string CpuCompiler::precompile(const CpuModule &M, unsigned Threads, size_t &Compiled) {
  Compiled = 0;
  CpuModule::State &S = *M.S;
  cache::Store *Cache = S.ModuleKey.empty() ? nullptr : cache::processStore();
  if (!M.Lazy || !Cache)
    return {};
  std::lock_guard<std::mutex> L(S.Mu);
  std::vector<UnitJob> Jobs;
  EntryPlan Plan;
  for (size_t I = 0; I < M.Kernels.size(); ++I) {
    ptx::UnitSpec U;
    U.Kernels.push_back(M.Kernels[I].Info.Name);
    if (M.Kernels[I].Fn || Cache->get(entryKey(S.ModuleKey, U.id())))
      continue;
    UnitJob J;
    if (std::string E = prepare(M, I, J, Plan); !E.empty())
      return E;
    Jobs.push_back(std::move(J));
  }
  if (Jobs.empty())
    return {};
  compileUnits(Jobs, *S.JTMB, S.OptLevel, Plan, false, jobCount(Threads, Jobs.size()));
  for (UnitJob &J : Jobs) {
    if (!J.Error.empty())
      return J.Error;
    Cache->put(entryKey(S.ModuleKey, J.Spec.id()), serializeUnit(J.Obj));
    ++Compiled;
  }
  return {};
}

CompileResult CpuCompiler::run(std::string_view Ptx, const CompileOptions &Opts) {
  initLLVM();
  CompileResult R;
  auto JTMB = orc::JITTargetMachineBuilder::detectHost();
  if (!JTMB) {
    R.Error = "cannot target the host: " + errorText(JTMB.takeError());
    return R;
  }
  JTMB->setCodeGenOptLevel(Opts.OptLevel >= 2 ? CodeGenOpt::Default : CodeGenOpt::None);
  const bool WantIR = !Opts.DumpLLVM.empty();
  // One object file for the whole module: asked for, or one thread to
  // compile with (units only pay off in parallel: each repeats the device
  // functions its kernels call and links the device runtime again).
  const bool Single = Opts.ObjectOut != nullptr || (!Opts.Lazy && jobCount(Opts.Jobs, 2) == 1);
  const bool Lazy = Opts.Lazy && !WantIR && !Single; // a dump shows the whole module
  cache::Store *Cache = Opts.UseCache && !WantIR ? cache::processStore() : nullptr;
  std::string ModKey = Cache ? moduleKey(Ptx, *JTMB, Opts.OptLevel) : std::string();

  // 1. What the module holds: from the cache, or by lowering it.
  ModuleMeta Meta;
  bool HaveMeta = false, FromCache = true;
  std::unique_ptr<Lowered> Low;
  if (Cache)
    if (std::optional<cache::Blob> B = Cache->get(entryKey(ModKey, "meta"))) {
      HaveMeta = deserializeMeta(*B, Meta);
      if (!HaveMeta) {
        ZLUDA_LOG_WARN("compile cache: entry {} is not a CPU module; compiling again", ModKey.substr(0, 16));
        Meta = ModuleMeta();
      }
    }
  // A module whose description came from the cache says nothing (units it
  // still has to compile show their own progress lines); the line's watcher
  // would otherwise race the cache hit when ProgressAfterMs is 0.
  ProgressLine Progress("a PTX module (" + std::to_string(Ptx.size() / 1024) + " KiB)",
                        HaveMeta ? std::numeric_limits<unsigned>::max() : Opts.ProgressAfterMs, Cache != nullptr);
  auto ensureLowered = [&]() -> bool {
    if (!Low)
      Low = lower(Ptx, *JTMB);
    if (!Low->Error.empty()) {
      R.Error = Low->Error;
      return false;
    }
    return true;
  };
  if (!HaveMeta) {
    FromCache = false;
    if (!ensureLowered())
      return R;
    Meta.Kernels = Low->L.Kernels;
    Meta.Globals = Low->L.Globals;
    Meta.Failures = Low->L.Failures;
    std::vector<std::string> Names;
    size_t Total = 0;
    for (const ptx::KernelInfo &K : Meta.Kernels) {
      Meta.HasBlockLoop.push_back(!K.NeedsThreadSwitching && K.Unsupported.empty());
      Names.push_back(K.Name);
      if (const Function *F = Low->L.Mod->getFunction(K.Name))
        Total += F->getInstructionCount();
    }
    // Units of about 1/32 of the module, so that an eager load keeps every
    // core busy; small modules stay one unit (each unit costs a few ms).
    Meta.Groups = ptx::groupKernels(*Low->L.Mod, Names, std::max<size_t>(4000, Total / 32));
  }
  const bool Addr32 = declaredAddressSize(Ptx) == 32;
  EntryPlan Plan;
  for (size_t I = 0; I < Meta.Kernels.size(); ++I)
    if (Meta.HasBlockLoop[I])
      Plan.BlockLoops.insert(Meta.Kernels[I].Name);
    else if (wantsRegions(Meta.Kernels[I], Addr32))
      Plan.Regions.insert(Meta.Kernels[I].Name);

  // 2. The units to load now.
  std::vector<ptx::UnitSpec> Units;
  if (Single) {
    Units.emplace_back();
    Units[0].WithGlobals = true;
    for (const ptx::KernelInfo &K : Meta.Kernels)
      Units[0].Kernels.push_back(K.Name);
  } else if (Lazy) {
    if (!Meta.Globals.empty()) {
      Units.emplace_back();
      Units[0].WithGlobals = true;
    }
  } else {
    Units = Meta.Groups;
  }
  std::vector<std::string> Objs(Units.size());
  std::vector<UnitJob> Jobs;
  std::vector<size_t> JobUnit;
  for (size_t I = 0; I < Units.size(); ++I) {
    if (Cache)
      if (std::optional<cache::Blob> B = Cache->get(entryKey(ModKey, Units[I].id()))) {
        if (std::optional<std::string> O = deserializeUnit(*B)) {
          Objs[I] = std::move(*O);
          continue;
        }
        ZLUDA_LOG_WARN("compile cache: entry {} is not a CPU object; compiling again", ModKey.substr(0, 16));
      }
    FromCache = false;
    if (!ensureLowered())
      return R;
    UnitJob J;
    J.Spec = Units[I];
    J.Bitcode = bitcode(*Low, Units[I]);
    Jobs.push_back(std::move(J));
    JobUnit.push_back(I);
  }
  if (!Jobs.empty()) {
    unsigned Threads = jobCount(Opts.Jobs, Jobs.size());
    ZLUDA_LOG_DEBUG("cpu compiler: {} unit(s) of {} kernel(s) on {} thread(s)", Jobs.size(), Meta.Kernels.size(),
                    Threads);
    compileUnits(Jobs, *JTMB, Opts.OptLevel, Plan, WantIR, Threads);
    for (size_t J = 0; J < Jobs.size(); ++J) {
      if (!Jobs[J].Error.empty()) {
        R.Error = Jobs[J].Error;
        return R;
      }
      Objs[JobUnit[J]] = std::move(Jobs[J].Obj);
    }
  }
  Progress.done();
  if (WantIR) {
    std::error_code EC;
    raw_fd_ostream OS(Opts.DumpLLVM, EC, sys::fs::OF_Text);
    for (const UnitJob &J : Jobs)
      if (!EC)
        OS << "; ---- unit [" << J.Spec.id() << "]\n" << J.IR;
  }

  // 3. Link: one JIT for the module, every loaded unit's object in it. The
  // code and variables of a 32-bit module go below 4 GiB (LowMemory.h).
  orc::LLJITBuilder Builder;
  Builder.setJITTargetMachineBuilder(*JTMB);
  if (Addr32) {
    if (!LowMemory::get().available()) {
      R.Error = ".address_size 32 module: the address space below 4 GiB is not free in this process";
      return R;
    }
    Builder.setObjectLinkingLayerCreator([](orc::ExecutionSession &ES, const Triple &)
                                             -> Expected<std::unique_ptr<orc::ObjectLayer>> {
      return std::make_unique<orc::RTDyldObjectLinkingLayer>(
          ES, [] { return std::make_unique<SectionMemoryManager>(&lowMapper()); });
    });
  }
  auto J = Builder.create();
  if (!J) {
    R.Error = errorText(J.takeError());
    return R;
  }
  if (PerfMapListener *PM = PerfMapListener::get())
    if (auto *RT = dyn_cast<orc::RTDyldObjectLinkingLayer>(&(*J)->getObjLinkingLayer()))
      RT->registerJITEventListener(*PM);
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
  // libm and libc (sinf, tanhf, memcpy ...) come from the process. LLVM
  // creates its library lock lazily on the first lookup; doing that first
  // lookup once under call_once orders it for every compiling thread in a way
  // ThreadSanitizer sees (LLVM itself is not instrumented).
  static std::once_flag ProcessSymbolsOnce;
  std::call_once(ProcessSymbolsOnce, [] { sys::DynamicLibrary::getPermanentLibrary(nullptr); });
  auto Gen = orc::DynamicLibrarySearchGenerator::GetForCurrentProcess((*J)->getDataLayout().getGlobalPrefix());
  if (!Gen) {
    R.Error = errorText(Gen.takeError());
    return R;
  }
  JD.addGenerator(std::move(*Gen));
  for (size_t I = 0; I < Objs.size(); ++I)
    if (Error E = (*J)->addObjectFile(MemoryBuffer::getMemBufferCopy(Objs[I], "zluda-cpu-unit-" + std::to_string(I)))) {
      R.Error = errorText(std::move(E));
      return R;
    }
  auto Out = std::make_unique<CpuModule>();
  Out->S = std::make_unique<CpuModule::State>();
  Out->S->J = std::move(*J);
  Out->S->HasBlockLoop = Meta.HasBlockLoop;
  Out->Addr32 = Addr32;
  Out->Failures = Meta.Failures;
  for (const ptx::KernelInfo &K : Meta.Kernels)
    Out->Kernels.push_back(CpuKernel{K, nullptr, nullptr, nullptr});
  if (!Lazy)
    for (size_t I = 0; I < Out->Kernels.size(); ++I)
      if (std::string E = link(*Out, I); !E.empty()) {
        R.Error = E;
        return R;
      }
  for (const ptx::GlobalInfo &G : Meta.Globals) {
    auto Sym = Out->S->J->lookup(G.Name);
    if (!Sym) {
      R.Error = "cannot resolve global " + G.Name + ": " + errorText(Sym.takeError());
      return R;
    }
    Out->Globals.push_back(CpuGlobal{G, Sym->toPtr<void *>()});
  }
  for (const std::string &F : Meta.Failures)
    ZLUDA_LOG_WARN("cpu compiler: {} (the function traps if launched)", F);
  if (!FromCache && Cache) {
    for (size_t J = 0; J < Jobs.size(); ++J)
      Cache->put(entryKey(ModKey, Jobs[J].Spec.id()), serializeUnit(Objs[JobUnit[J]]));
    if (!HaveMeta)
      Cache->put(entryKey(ModKey, "meta"), serializeMeta(Meta));
  }
  if (Lazy) {
    CpuModule::State &S = *Out->S;
    S.Ptx.assign(Ptx);
    S.ModuleKey = ModKey;
    if (Opts.Tiered && Opts.OptLevel >= 2 && !Addr32) {
      S.Tiered = true;
      S.TierUpLaunches = std::max(1u, Opts.TierUpLaunches);
      S.TierAbove = Opts.TierAboveBytes;
      S.Tier.assign(Meta.Kernels.size(), TierNone);
      S.Launches.assign(Meta.Kernels.size(), 0);
      if (Cache) {
        orc::JITTargetMachineBuilder JTMB0 = *JTMB;
        JTMB0.setCodeGenOptLevel(CodeGenOpt::None);
        S.Tier1Key = moduleKey(Ptx, JTMB0, 0);
      }
    }
    S.OptLevel = Opts.OptLevel;
    S.ProgressAfterMs = Opts.ProgressAfterMs;
    S.JTMB = *JTMB;
    S.Low = std::move(Low);
  }
  Out->Lazy = Lazy;
  if (Opts.ObjectOut)
    *Opts.ObjectOut = Objs[0];
  ZLUDA_LOG_DEBUG("cpu compiler: module {} loaded ({}, {} unit(s) compiled)", ModKey.substr(0, 16),
                  Lazy ? "lazy" : "eager", Jobs.size());
  R.FromCache = FromCache && Cache;
  R.Mod = std::move(Out);
  return R;
}

// The background compiler reads Kernels and S: it stops before they go.
CpuModule::~CpuModule() {
  if (S)
    S->stopWorker();
  S.reset();
}

std::string CpuModule::precompile(unsigned Threads, size_t &Compiled) const {
  try {
    return CpuCompiler::precompile(*this, Threads, Compiled);
  } catch (const std::exception &E) {
    return std::string("internal compiler error: ") + E.what();
  }
}

std::string CpuModule::code(const CpuKernel &K, KernelFn &Fn, KernelFn &BlockFn, const RegionCode **Regions) const {
  size_t I = static_cast<size_t>(&K - Kernels.data());
  if (I >= Kernels.size())
    return "not a kernel of this module";
  if (!Lazy) {
    Fn = K.Fn;
    BlockFn = K.BlockFn;
    if (Regions)
      *Regions = K.Regions.get();
    return {};
  }
  std::lock_guard<std::mutex> L(S->Mu);
  if (!K.Fn)
    try {
      // Modules live on the heap and are never const objects.
      if (std::string E = CpuCompiler::materialize(const_cast<CpuModule &>(*this), I); !E.empty())
        return E;
    } catch (const std::exception &E) {
      return std::string("internal compiler error: ") + E.what();
    }
  if (S->Tiered && S->Tier[I] == TierFirst && ++S->Launches[I] >= S->TierUpLaunches) {
    S->Tier[I] = TierQueued;
    S->Queue.push_back(I);
    if (!S->Worker.joinable() && !S->Stop)
      S->startWorker(const_cast<CpuModule &>(*this));
    S->Cv.notify_all();
  }
  Fn = K.Fn;
  BlockFn = K.BlockFn;
  if (Regions)
    *Regions = K.Regions.get();
  return {};
}

bool CpuModule::optimized(const CpuKernel &K) const {
  size_t I = static_cast<size_t>(&K - Kernels.data());
  if (!S || !S->Tiered || I >= Kernels.size())
    return true;
  std::lock_guard<std::mutex> L(S->Mu);
  return S->Tier[I] == TierOptimized;
}

void CpuModule::waitForTierUps() const {
  if (!S || !S->Tiered)
    return;
  std::unique_lock<std::mutex> L(S->Mu);
  S->Cv.wait(L, [&] { return std::find(S->Tier.begin(), S->Tier.end(), uint8_t(TierQueued)) == S->Tier.end(); });
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
