//===- Pipeline.cpp - the CPU device's optimization pipeline --------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The optimization pipeline of the CPU device (Passes.h: optimize()).
#include "cpu/passes/Passes.h"

#include "common/Env.h"
#include "common/Log.h"

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/PassTimingInfo.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/IPO/GlobalDCE.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/GVN.h>
#include <llvm/Transforms/Scalar/LICM.h>
#include <llvm/Transforms/Scalar/LoopLoadElimination.h>
#include <llvm/Transforms/Scalar/LoopPassManager.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Vectorize/LoopVectorize.h>
#include <llvm/Transforms/Vectorize/VectorCombine.h>
#include <llvm/Support/raw_ostream.h>

#include <chrono>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

using namespace llvm;

namespace zluda::cpu::passes {

/// ZLUDA_TIME_PASSES=1: compile-time figures in the log (docs/ENVIRONMENT.md).
bool timingCompiles() {
  static const bool On = env::get("ZLUDA_TIME_PASSES") == "1";
  return On;
}

namespace {

/// Runs only on the functions of a set (the second run's new entry points).
struct OnlyFunctions : PassInfoMixin<OnlyFunctions> {
  const std::set<Function *> *Set;
  FunctionPassManager FPM;
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &FAM) {
    return Set->count(&F) ? FPM.run(F, FAM) : PreservedAnalyses::all();
  }
};

} // namespace

/// One optimizer run over \p M: the standard pipeline at \p Level, or with
/// \p Loops the work-item loops' pipeline (below).
void optimize(Module &M, TargetMachine *TM, unsigned Level, const std::set<Function *> *Loops) {
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  // ZLUDA_TIME_PASSES=1: LLVM's time per pass of this run, logged at info level.
  const bool TimePasses = timingCompiles();
  PassInstrumentationCallbacks PIC;
  std::string Report;
  raw_string_ostream ReportOS(Report);
  std::optional<TimePassesHandler> Timing;
  if (TimePasses) {
    Timing.emplace(true);
    Timing->setOutStream(ReportOS);
    Timing->registerCallbacks(PIC);
  }
  PassBuilder PB(TM, PipelineTuningOptions(), None, TimePasses ? &PIC : nullptr);
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  OptimizationLevel OL = Level >= 3 ? OptimizationLevel::O3 : Level == 2 ? OptimizationLevel::O2
                         : Level == 1 ? OptimizationLevel::O1 : OptimizationLevel::O0;
  PB.registerVectorizerStartEPCallback(
      [](FunctionPassManager &FPM, OptimizationLevel) { FPM.addPass(AddressesAsGeps()); });
  // Before the early SROA, while registers are still allocas.
  PB.registerPipelineStartEPCallback([](ModulePassManager &MPM, OptimizationLevel L) {
    if (L != OptimizationLevel::O0) // -O0: after the always-inliner, below
      MPM.addPass(createModuleToFunctionPassAdaptor(FlushedRegisters()));
  });
  PB.registerPipelineEarlySimplificationEPCallback([](ModulePassManager &MPM, OptimizationLevel) {
    MPM.addPass(createModuleToFunctionPassAdaptor(RedundantFlushes()));
  });
  PB.registerPeepholeEPCallback([](FunctionPassManager &FPM, OptimizationLevel) {
    FPM.addPass(RedundantFlushes());
    FPM.addPass(InnerNaNCanonicalization());
  });
  PB.registerOptimizerLastEPCallback([](ModulePassManager &MPM, OptimizationLevel) {
    MPM.addPass(createModuleToFunctionPassAdaptor(UniformGatherScatter()));
  });
  ModulePassManager MPM;
  if (Loops) {
    // The work-item loops' run: the rest of the unit was optimized by the
    // first run. Each loop inlines the kernel's resumable body with its
    // resume point constant; what remains is pruning the other points'
    // code, scalar clean-up of what the inlining exposed and vectorizing
    // the thread loop: a function pipeline, without the first run's
    // inliner and loop simplification over the whole unit.
    MPM.addPass(AlwaysInlinerPass(false));
    OnlyFunctions Only;
    Only.Set = Loops;
    FunctionPassManager &FPM = Only.FPM;
    FPM.addPass(SROAPass());
    FPM.addPass(EarlyCSEPass(true));
    FPM.addPass(SimplifyCFGPass());
    FPM.addPass(InstCombinePass());
    FPM.addPass(InnerNaNCanonicalization());
    FPM.addPass(createFunctionToLoopPassAdaptor(LICMPass(LICMOptions()), true));
    FPM.addPass(GVNPass()); // frame and shared-memory loads the inlining made redundant
    FPM.addPass(AddressesAsGeps());
    FPM.addPass(LoopVectorizePass(LoopVectorizeOptions(false, false)));
    // O2's clean-up after vectorizing, less the SLP vectorizer (a third of
    // this run's time, and the thread loops are vectorized already).
    FPM.addPass(LoopLoadEliminationPass());
    FPM.addPass(InstCombinePass());
    FPM.addPass(SimplifyCFGPass(
        SimplifyCFGOptions().convertSwitchRangeToICmp(true).hoistCommonInsts(true).sinkCommonInsts(true)));
    FPM.addPass(VectorCombinePass());
    FPM.addPass(createFunctionToLoopPassAdaptor(LICMPass(LICMOptions()), true));
    FPM.addPass(InstCombinePass());
    FPM.addPass(SimplifyCFGPass(SimplifyCFGOptions().convertSwitchRangeToICmp(true)));
    FPM.addPass(UniformGatherScatter());
    MPM.addPass(createModuleToFunctionPassAdaptor(std::move(Only)));
    MPM.addPass(GlobalDCEPass());
  } else {
    MPM = Level == 0 ? PB.buildO0DefaultPipeline(OL) : PB.buildPerModuleDefaultPipeline(OL);
    if (Level == 0) {
      MPM.addPass(createModuleToFunctionPassAdaptor(FlushedRegisters()));
      MPM.addPass(createModuleToFunctionPassAdaptor(FirstTierForms()));
    }
  }
  MPM.run(M, MAM);
  if (Timing) {
    size_t Insts = 0;
    std::vector<std::pair<size_t, std::string>> Largest;
    for (const Function &F : M) {
      Insts += F.getInstructionCount();
      Largest.emplace_back(F.getInstructionCount(), F.getName().str());
    }
    std::sort(Largest.rbegin(), Largest.rend());
    std::string Top;
    for (size_t I = 0; I < Largest.size() && I < 5 && Largest[I].first; ++I)
      Top += fmt::format("  {} {}\n", Largest[I].first, Largest[I].second);
    Timing->print();
    ZLUDA_LOG_INFO("cpu compiler: {} run over {} instructions after it; the largest functions:\n{}{}",
                   Loops ? std::string("work-item loops") : "-O" + std::to_string(Level), Insts, Top, ReportOS.str());
  }
}

} // namespace zluda::cpu::passes
