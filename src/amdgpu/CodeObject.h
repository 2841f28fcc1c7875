//===- CodeObject.h - PTX to AMDGPU code objects through COMGR -------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The AMDGPU target of the PTX compiler: the target-neutral lowering,
/// then this target's fix-ups (private allocas, global variables in the
/// global address space, kernels as amdgpu_kernel entry points whose kernarg
/// segment is CUDA's parameter buffer), the AMDGPU device runtime (bitcode,
/// wave32 or wave64) linked in, and COMGR: device libraries, link, codegen
/// at -O3 with internalized symbols, link to an executable code object.
/// Results go through the compile cache like the CPU target's.
#ifndef ZLUDA_AMDGPU_CODEOBJECT_H
#define ZLUDA_AMDGPU_CODEOBJECT_H

#include "ptx/codegen/Lowering.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zluda::amdgpu {

/// A processor as HIP names it (gcnArchName): "gfx90a", "gfx90a:sramecc+:xnack-",
/// "gfx1100" ...
struct Target {
  std::string Processor; ///< gfx90a
  std::string Features;  ///< ":sramecc+:xnack-" (may be empty)
  bool Wave64 = false;   ///< CDNA and GCN: 64 lanes a wave
  /// Parses a gcnArchName; false with \p Err set for what is not an AMDGPU
  /// processor this compiler can target.
  static bool parse(std::string_view Name, Target &Out, std::string &Err);
  std::string name() const { return Processor + Features; }
};

struct CompileOptions {
  /// ZLUDA_AGGRESSIVE_OPTIMIZATIONS: the device libraries' fast variants
  /// (daz_opt, unsafe_math, finite_only) where PTX allows approximations.
  bool Aggressive = false;
  /// ZLUDA_WAVE64_SLOW_MODE, for wave64 targets (ignored on wave32): each
  /// 64-lane wave carries one 32-lane warp, lanes 32-63 idle. The launch then
  /// uses physicalBlock() and appends the block's dimensions to the
  /// parameter buffer (slowModeParams()).
  bool Wave64Slow = false;
  bool UseCache = true;
  std::string *LLVMOut = nullptr; ///< receives the IR handed to COMGR
  /// COMGR's code generation level, -O0 ... -O3 (CU_JIT_OPTIMIZATION_LEVEL
  /// 0, 1, 2, 3-4; the default 4 is -O3, as HIP's device compiles). Lower
  /// levels compile faster (Thrust/CUB for gfx1030: -O2 ~15%, -O1 ~30%).
  unsigned OptLevel = 3;
};

struct CodeObject {
  std::string Elf; ///< the executable code object (empty on failure)
  std::string Error;
  std::vector<ptx::KernelInfo> Kernels;
  std::vector<ptx::GlobalInfo> Globals;
  std::vector<std::string> Failures;
  /// Bytes of shared memory every launch of this module needs before its
  /// dynamic shared memory (all kernels' static .shared, which the code object
  /// addresses in the dynamic LDS allocation).
  uint32_t StaticShared = 0;
  bool FromCache = false;
};

/// What a code object's AMDHSA metadata says of one kernel (read through
/// COMGR): the launch takes its kernarg layout from here.
struct KernelMetadata {
  std::string Name;
  uint64_t KernargSize = 0;      ///< .kernarg_segment_size (explicit and hidden arguments)
  uint64_t ExplicitBytes = 0;    ///< end of the last explicit (not hidden_*) argument
  uint32_t KernargAlign = 0;     ///< .kernarg_segment_align
  uint32_t WavefrontSize = 0;    ///< .wavefront_size
  uint32_t MaxFlatWorkgroup = 0; ///< .max_flat_workgroup_size
  uint32_t GroupSegmentFixed = 0, PrivateSegmentFixed = 0;
  uint32_t VgprCount = 0, SgprCount = 0; ///< .vgpr_count, .sgpr_count
  bool Hostcall = false; ///< an argument asks for the hostcall buffer (printf)
};
/// The kernels of executable code object \p Elf; false with \p Err set when
/// COMGR cannot read its metadata.
bool readMetadata(const std::string &Elf, std::vector<KernelMetadata> &Out, std::string &Err);

/// ZLUDA_WAVE64_SLOW_MODE's launch geometry: a block of \p Threads CUDA
/// threads runs as one 1-D workgroup of a 64-lane wave per warp (at most 512
/// threads, 1024 work-items).
inline unsigned slowModeWorkItems(unsigned Threads) { return (Threads + 31) / 32 * 64; }
constexpr unsigned SlowModeMaxThreads = 512;
/// Where the slow-mode kernarg segment carries the block's x, y, z (3 x u32)
/// after a parameter buffer of \p ParamBytes.
inline unsigned slowModeGeometryOffset(unsigned ParamBytes) { return (ParamBytes + 3) / 4 * 4; }

/// Thread-safe.
CodeObject compilePtx(std::string_view Ptx, const Target &T, const CompileOptions &Opts = {});

/// The processors this build's COMGR accepts (gfx1100 and gfx940 are reached
/// through gfx1030 / gfx90a ISA names with -mcpu, see AMD-TOOLCHAIN.md).
std::vector<std::string> supportedProcessors();

} // namespace zluda::amdgpu

#endif // ZLUDA_AMDGPU_CODEOBJECT_H
