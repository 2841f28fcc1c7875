//===- Passes.h - the CPU device's LLVM passes ------------------*- C++ -*-===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The passes the CPU device adds to LLVM's pipeline (one per file in
/// this folder, as LLVM keeps them), the pipeline itself (Pipeline.cpp) and
/// the module transforms the compiler makes before it (BlockLoop.cpp,
/// DeadRegisterInits.cpp).
#ifndef ZLUDA_CPU_PASSES_PASSES_H
#define ZLUDA_CPU_PASSES_PASSES_H

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/PassManager.h>

#include <set>

namespace llvm {
class AllocaInst;
class Function;
class MDNode;
class Module;
class TargetMachine;
class Value;
} // namespace llvm

namespace zluda::cpu::passes {

/// The smallest normal f32: .ftz flushes f32 values below it.
constexpr double MinNormalF32 = 0x1p-126;

/// PTX computes addresses in 64-bit integers: `inttoptr (add base, index)`,
/// which LLVM's loop analyses cannot follow, so a loop over consecutive
/// elements looks like gathers and scatters. Before vectorization each such
/// address becomes `gep (inttoptr base), index`, the inttoptr placed where
/// the base is defined (outside the loop when the base is).
struct AddressesAsGeps : llvm::PassInfoMixin<AddressesAsGeps> {
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &);
};

/// PTX's .ftz flushes subnormal operands and results to sign-preserving
/// zero; the lowering flushes every operand of an .ftz instruction
/// (ptx/codegen ftz(): `select (fabs x < min), copysign(0, x), x`), so in
/// fast-math code most values are flushed twice or more (as a result, then
/// as each later operand). A flush of a value that is already flushed (a
/// flush with at least the same threshold, a NaN canonicalization, neg,
/// abs, copysign or select of flushed values, an integer conversion, a
/// constant that is not subnormal) changes nothing and is removed: about
/// half of the instructions of an .ftz operation, at compile and run time.
struct RedundantFlushes : llvm::PassInfoMixin<RedundantFlushes> {
  /// \p V is ftz(X) with threshold \p Min.
  static bool flushOf(llvm::Value *V, llvm::Value *&X, double &Min);
  /// Whether \p V has no subnormal value below \p Min (in magnitude).
  /// \p Regs: registers (allocas) known to hold only flushed values, whose
  /// loads count as flushed (FlushedRegisters).
  static bool flushed(llvm::Value *V, double Min, unsigned Depth, const llvm::SmallPtrSetImpl<llvm::AllocaInst *> *Regs = nullptr);
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &);
};

/// RedundantFlushes sees values in SSA form; a register that is still an
/// alloca (the first tier is not promoted; at -O2 loop-carried registers
/// become phis) hides that its loads are flushed already. An f32 register
/// whose every store is of a flushed value (a flush, a canonical NaN of one,
/// a load of another such register, ...: RedundantFlushes::flushed) holds
/// no subnormal, so the flushes of its loads are removed. Registers start
/// as flushed and lose it until nothing changes (the zero-inits and stores
/// of flushed values agree; one store of a parameter or a memory load
/// takes the register, and the registers copied from it, out). In
/// Blender's fast-math kernels most `.ftz` operands are such loads.
struct FlushedRegisters : llvm::PassInfoMixin<FlushedRegisters> {
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &);
};

/// The lowering gives every f32 arithmetic result NVIDIA's canonical NaN,
/// `select (fcmp uno r, r|0.0), 0x7FFFFFFF, r` (ptx/codegen canonicalNaN).
/// Where such a value feeds arithmetic whose own result is canonicalized
/// (or a comparison), the inner select changes nothing: a NaN operand gives
/// a NaN whatever its payload, and the outer select sets the bits. Those
/// uses take the raw value: an FMA chain loses two instructions per FMA.
struct InnerNaNCanonicalization : llvm::PassInfoMixin<InnerNaNCanonicalization> {
  /// \p V is canonicalNaN(Raw).
  static bool canonicalOf(llvm::Value *V, llvm::Value *&Raw);
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &);
};

/// After vectorization: a gather or scatter whose lanes all address one
/// element (in a thread loop, `if (threadIdx.x == 0) out[blockIdx.x] = v`)
/// becomes one scalar access when any lane is active. x86 scatters cost
/// about as much with every lane masked off as with all of them active, and
/// such a loop runs one for every 16 threads.
struct UniformGatherScatter : llvm::PassInfoMixin<UniformGatherScatter> {
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &);
};

/// The first tier (-O0) in forms that are quick to generate code for.
/// x86 FastISel does not handle `llvm.fabs`, `llvm.copysign` or `llvm.fma`:
/// at each one it hands the rest of the block to SelectionDAG, several times
/// slower. And without promotion of the registers, every `.ftz` operand is
/// flushed where it is loaded (RedundantFlushes cannot see through memory):
/// in Blender's `shade_surface_mnee` 1.7 of its 2.5 million instructions
/// were flushes (`select (fabs x < min), copysign(0, x), x`) and NaN
/// canonicalizations (`select (x uno x), 0x7FFFFFFF, x`). So:
///  - each f32 flush, canonicalization, or the canonicalization of a flush,
///    becomes a call of a small function of the unit (one instruction where
///    there were up to twelve; its body uses integer masks);
///  - remaining fabs/copysign become sign-bit masks on the integer bits, fma
///    the C library's (correctly rounded, as `llvm.fma` is).
/// Same values, bit for bit.
struct FirstTierForms : llvm::PassInfoMixin<FirstTierForms> {
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &);
};

/// ZLUDA_TIME_PASSES=1: compile-time figures in the log (docs/ENVIRONMENT.md).
bool timingCompiles();

/// One optimizer run over \p M: the standard pipeline at \p Level, or with
/// \p Loops the work-item loops' pipeline (below).
void optimize(llvm::Module &M, llvm::TargetMachine *TM, unsigned Level,
              const std::set<llvm::Function *> *Loops = nullptr);

/// The lowering zero-initializes every register (an alloca) in the entry
/// block. Where a register is only used in one other block and written
/// there before any read, that store is dead; removing it lets SROA promote
/// the register as a single-block value. Otherwise promotion checks, for
/// each register, where in each block it is read and written, which is
/// quadratic in a large straight-line kernel (a 5000-instruction kernel's
/// SROA: 1.96 s; without the dead stores 0.26 s for the whole compile).
void dropDeadRegisterInits(llvm::Function &F);

/// Turns the atomics the lowering tagged as reaching only the block's
/// shared memory into loads and stores: one OS thread runs a block, so no
/// other thread comes between them. They are volatile: a work-item loop with
/// plain ones was vectorized into a gather and a scatter, and lanes naming
/// the same word lost each other's updates (a shared atomicAdd per
/// threadIdx.x % 4 summed wrong). Volatile accesses keep the loop scalar,
/// one thread's read-modify-write after another's.
void lowerBlockAtomics(llvm::Module &M);

/// Builds `void <K>.block(ptr ctx, ptr params)`: loops over the block's
/// threads, writing Tid/LinearTid/LaneId/WarpId into a private copy of the
/// context and calling the kernel, which the optimizer then inlines. The copy
/// is a local that does not escape (after inlining the runtime's accessors),
/// so the special registers become loop induction values. The x loop is
/// declared parallel over \p Group, which the caller gives every access of
/// the unit's functions (what the loop inlines).
llvm::Function *buildBlockLoop(llvm::Module &M, llvm::Function *K, llvm::MDNode *Group);

} // namespace zluda::cpu::passes

#endif // ZLUDA_CPU_PASSES_PASSES_H
