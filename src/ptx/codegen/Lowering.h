//===- Lowering.h - PTX IR to LLVM IR --------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Target-neutral lowering of a parsed PTX module to an LLVM module.
/// Target-specific behaviour is reached through calls to the functions of
/// DeviceRuntime.def, named "__zluda_ptx_<name>".
#ifndef ZLUDA_PTX_CODEGEN_LOWERING_H
#define ZLUDA_PTX_CODEGEN_LOWERING_H

#include "ptx/ir/IR.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>

#include <memory>
#include <string>
#include <vector>

namespace zluda::ptx {

/// Where one kernel parameter lives in the parameter buffer.
struct ParamLayout {
  uint32_t Offset = 0, Size = 0, Align = 1;
};

struct KernelInfo {
  std::string Name;
  std::vector<ParamLayout> Params;
  uint32_t ParamBufferSize = 0;
  uint32_t StaticSharedBytes = 0; ///< .shared variables of the module and kernel
  uint32_t LocalBytes = 0;        ///< .local arrays (per thread)
  uint32_t MaxThreadsPerBlock = 1024; ///< from .maxntid/.reqntid
  uint32_t ReqNTid[3] = {0, 0, 0};
  /// .reqnctapercluster (0, 0, 0: none): launches without cluster dimensions use these.
  uint32_t ReqCluster[3] = {0, 0, 0};
  uint32_t MinCtasPerSm = 0;
  /// CU_FUNC_ATTRIBUTE_NUM_REGS: the code object's count on AMDGPU; on the CPU
  /// device the 32-bit registers the PTX declares (at most .maxnreg, 255).
  uint32_t Registers = 0;
  /// Uses barriers, warp collectives or anything that needs every thread of
  /// the block to be able to wait for the others.
  bool NeedsThreadSwitching = false;
  bool UsesSpecialRegs = false;
  /// Set when the kernel could not be compiled (its body traps): why.
  std::string Unsupported;
};

struct GlobalInfo {
  std::string Name;
  uint64_t Size = 0;
  StateSpace Space = StateSpace::Global;
  bool IsTexref = false;
};

struct LoweringOptions {
  std::string TargetTriple;
  std::string DataLayout;
  /// Memcheck: every global, generic and shared access first calls
  /// `void __zluda_memcheck(ctx, ptr, i64 bytes, i32 access, i32 line, ptr function)`
  /// (MemcheckAccess below), which the target defines (the CPU device's executor).
  bool Memcheck = false;
  /// The target runs a warp's lanes apart, one after another between the
  /// points where they meet (the CPU device). Code written for warps that run
  /// in lockstep exchanges values through shared memory with no __syncwarp:
  /// a shared load that follows a shared store in the same straight-line
  /// stretch, with no barrier or warp collective between, first makes the
  /// lanes executing it meet (in an activemask, whose wait releases the lanes at one site together).
  bool LanesApart = false;
};

/// The access argument of __zluda_memcheck: a kind, plus the state space
/// shifted by MemcheckSpaceShift.
enum MemcheckAccess : uint32_t {
  MemcheckRead = 0,
  MemcheckWrite = 1,
  MemcheckAtomic = 2,
  /// Not an access: the thread passed a synchronization when the size is not
  /// 0 (an mbarrier wait that found its phase complete), for racecheck.
  MemcheckSync = 3,
  MemcheckKindMask = 3,
  MemcheckSpaceShift = 4, ///< then 0 generic, 1 global, 2 shared, 3 local, 4 const
};

struct LoweredModule {
  std::unique_ptr<llvm::LLVMContext> Context;
  std::unique_ptr<llvm::Module> Mod;
  std::vector<KernelInfo> Kernels;
  std::vector<GlobalInfo> Globals;
  /// "function: line N: reason" for every function that failed to lower.
  std::vector<std::string> Failures;
};

/// Lowers \p M. Errors name the PTX line ("line 12: ...").
llvm::Expected<LoweredModule> lowerToLLVM(const Module &M, const LoweringOptions &Opts);

/// Verifies \p M; returns the verifier's message as an error.
llvm::Error verifyModule(const llvm::Module &M);

} // namespace zluda::ptx

#endif // ZLUDA_PTX_CODEGEN_LOWERING_H
