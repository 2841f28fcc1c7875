//===- CodeObjectTest.cpp - AMDGPU code objects, checked by inspection -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// No AMD GPU exists here: these tests compile PTX for several processors and
/// read back what the code objects say (llvm-readelf --notes: the AMDHSA
/// metadata) and what they contain (llvm-objdump -d), against what the PTX
/// and our kernarg layout say they must.
#include "common/Files.h"
#include "amdgpu/CodeObject.h"
#include "cache/CompileCache.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace zluda;
namespace fs = std::filesystem;

namespace {


/// llvm-readelf --notes of the code object at \p P (its AMDHSA metadata).
std::string notesOf(const fs::path &P) {
  return commandOutput(std::string(ZLUDA_LLVM_READELF) + " --notes " + P.string());
}

fs::path writeTemp(const std::string &Bytes, const std::string &Name) {
  fs::path P = fs::temp_directory_path() / ("zluda-amdgpu-test-" + std::to_string(getpid()) + "-" + Name);
  std::ofstream(P, std::ios::binary) << Bytes;
  return P;
}

/// \p Ptx compiled for \p Proc without the cache (the test fails on a
/// compile error; the result's Elf is then empty).
amdgpu::CodeObject compileFor(const std::string &Proc, const std::string &Ptx, amdgpu::Target *TargetOut = nullptr) {
  amdgpu::Target T;
  std::string Err;
  EXPECT_TRUE(amdgpu::Target::parse(Proc, T, Err)) << Err;
  if (TargetOut)
    *TargetOut = T;
  amdgpu::CompileOptions O;
  O.UseCache = false;
  amdgpu::CodeObject R = amdgpu::compilePtx(Ptx, T, O);
  EXPECT_FALSE(R.Elf.empty()) << Proc << ": " << R.Error;
  return R;
}

/// One kernel's record of the AMDHSA metadata, as `key: value` strings;
/// the first argument's .offset/.size as "arg0.offset"/"arg0.size".
using Record = std::map<std::string, std::string>;

std::map<std::string, Record> kernelRecords(const std::string &Notes, std::string &Target) {
  std::map<std::string, Record> Out;
  std::istringstream In(Notes);
  std::string Line;
  Record Cur;
  bool InKernels = false, InArgs = false;
  int Arg = -1;
  auto flush = [&] {
    if (Cur.count(".name"))
      Out[Cur[".name"]] = Cur;
    Cur.clear();
    Arg = -1;
  };
  while (std::getline(In, Line)) {
    if (Line.rfind("amdhsa.target:", 0) == 0) {
      Target = Line.substr(Line.find_first_not_of(' ', 14));
      if (Target.size() >= 2 && Target.front() == '\'' && Target.back() == '\'')
        Target = Target.substr(1, Target.size() - 2); // YAML quotes names with '+'
    }
    if (Line.rfind("amdhsa.kernels:", 0) == 0) {
      InKernels = true;
      continue;
    }
    if (!InKernels)
      continue;
    if (!Line.empty() && Line[0] != ' ') {
      flush();
      InKernels = false;
      continue;
    }
    if (Line.rfind("  - ", 0) == 0) { // a new kernel
      flush();
      Line = "    " + Line.substr(4);
    }
    size_t Colon = Line.find(':');
    if (Colon == std::string::npos)
      continue;
    size_t Indent = Line.find_first_not_of(' ');
    std::string Key = Line.substr(Indent, Colon - Indent);
    std::string Val = Colon + 1 < Line.size() ? Line.substr(Line.find_first_not_of(' ', Colon + 1)) : "";
    if (Key.rfind("- ", 0) == 0) { // an argument starts
      Key = Key.substr(2);
      ++Arg;
    }
    if (Indent == 4 && Key == ".args") {
      InArgs = true;
      continue;
    }
    if (Indent == 4)
      InArgs = false;
    if (InArgs || Indent > 4) {
      if (Arg == 0)
        Cur["arg0" + Key] = Val;
      continue;
    }
    Cur[Key] = Val;
  }
  flush();
  return Out;
}

const char *const Targets[] = {"gfx90a", "gfx1030", "gfx1100"};

/// A module's text less its .version and .target lines.
std::string withoutTargetLines(const std::string &Ptx) {
  std::istringstream In(Ptx);
  std::string Line, Out;
  while (std::getline(In, Line)) {
    size_t First = Line.find_first_not_of(" \t");
    if (First != std::string::npos && (Line.compare(First, 8, ".version") == 0 || Line.compare(First, 7, ".target") == 0))
      continue;
    Out += Line;
    Out += '\n';
  }
  return Out;
}

class Corpus : public ::testing::TestWithParam<std::string> {};

/// Every module of the nvcc corpus (the project's CUDA programs at several
/// architectures, -lineinfo and -G) compiles for the processor; its code
/// object names every kernel with our kernarg layout and the right wave size.
/// "gfx90a/slow" is ZLUDA_WAVE64_SLOW_MODE's variant: the block's shape
/// follows the parameter buffer and workgroups are up to 1024 work-items.
TEST_P(Corpus, EveryModuleCompilesWithMatchingMetadata) {
  amdgpu::Target T;
  std::string Err, Param = GetParam();
  bool Slow = Param.size() > 5 && Param.substr(Param.size() - 5) == "/slow";
  ASSERT_TRUE(amdgpu::Target::parse(Slow ? Param.substr(0, Param.size() - 5) : Param, T, Err)) << Err;
  amdgpu::CompileOptions O;
  O.UseCache = false;
  O.Wave64Slow = Slow;
  size_t Files = 0, Kernels = 0;
  std::set<std::string> Bodies;
  for (const auto &E : fs::directory_iterator(ZLUDA_PTX_CORPUS_DIR)) {
    // Relocatable device code (rdc_* programs) becomes a module only once linked.
    if (E.path().extension() != ".ptx" || E.path().filename().string().rfind("rdc_", 0) == 0)
      continue;
    // Slow mode changes the geometry and metadata, not what the code does per
    // architecture: one variant of each program (compute_80) keeps CI's time.
    std::string Name = E.path().filename().string();
    if (Slow && Name.find(".compute_80.") == std::string::npos)
      continue;
    // The wave32 processors (RDNA 2 and 3) take one variant of each program
    // (and the -G builds): gfx90a compiles every variant, and what a variant
    // changes is the PTX, not the processor's lowering. Each of them took
    // five minutes of CI's two cores with all four.
    if (!Slow && !T.Wave64 && Name.find(".debug.") == std::string::npos &&
        Name.find(T.Processor == "gfx1030" ? ".compute_80." : ".compute_90.") == std::string::npos)
      continue;
    std::string Ptx = readFile(E.path());
    // Modules whose PTX differs only in .version and .target lines compile
    // alike (the lowering reads neither): nvcc often writes the same code for
    // compute_75, _80 and _90, and programs of one device source share it.
    // One of them stands for the others.
    if (!Bodies.insert(withoutTargetLines(Ptx)).second)
      continue;
    ++Files;
    SCOPED_TRACE(E.path().filename().string());
    // Textures and surfaces are sampled in software: the sampler's small arrays
    // (coordinates, footprints, results) may live in private memory.
    bool Sampling = Ptx.find("\ttex.") != std::string::npos || Ptx.find("\ttld4.") != std::string::npos ||
                    Ptx.find("\tsuld.") != std::string::npos || Ptx.find("\tsust.") != std::string::npos;
    amdgpu::CodeObject R = amdgpu::compilePtx(Ptx, T, O);
    ASSERT_FALSE(R.Elf.empty()) << R.Error;
    fs::path P = writeTemp(R.Elf, "corpus.hsaco");
    std::string Target;
    std::map<std::string, Record> Recs = kernelRecords(notesOf(P), Target);
    EXPECT_EQ(Target, "amdgcn-amd-amdhsa--" + T.Processor);
    EXPECT_EQ(Recs.size(), R.Kernels.size());
    // The driver's reader (through COMGR) agrees with llvm-readelf's.
    std::vector<amdgpu::KernelMetadata> Md;
    ASSERT_TRUE(amdgpu::readMetadata(R.Elf, Md, Err)) << Err;
    EXPECT_EQ(Md.size(), Recs.size());
    for (const amdgpu::KernelMetadata &M : Md) {
      SCOPED_TRACE(M.Name);
      ASSERT_TRUE(Recs.count(M.Name));
      Record &Rec = Recs[M.Name];
      EXPECT_EQ(std::to_string(M.KernargSize), Rec[".kernarg_segment_size"]);
      EXPECT_EQ(std::to_string(M.WavefrontSize), Rec[".wavefront_size"]);
      EXPECT_EQ(std::to_string(M.MaxFlatWorkgroup), Rec[".max_flat_workgroup_size"]);
      EXPECT_EQ(std::to_string(M.GroupSegmentFixed), Rec[".group_segment_fixed_size"]);
      uint64_t Explicit = Rec.count("arg0.size") && Rec["arg0.value_kind"].rfind("hidden_", 0) != 0
                              ? std::stoull(Rec["arg0.offset"]) + std::stoull(Rec["arg0.size"])
                              : 0;
      EXPECT_EQ(M.ExplicitBytes, Explicit);
    }
    for (const ptx::KernelInfo &K : R.Kernels) {
      ++Kernels;
      SCOPED_TRACE(K.Name);
      ASSERT_TRUE(Recs.count(K.Name)) << "kernel missing from the code object's metadata";
      Record &Rec = Recs[K.Name];
      EXPECT_EQ(Rec[".wavefront_size"], T.Wave64 ? "64" : "32");
      uint64_t Size = std::stoull(Rec[".kernarg_segment_size"]);
      EXPECT_GE(Size, K.ParamBufferSize);
      if (Slow) {
        EXPECT_EQ(Rec["arg0.offset"], "0");
        EXPECT_EQ(Rec["arg0.size"], std::to_string(amdgpu::slowModeGeometryOffset(K.ParamBufferSize) + 12));
        unsigned Max = K.ReqNTid[0] ? K.ReqNTid[0] * std::max(1u, K.ReqNTid[1]) * std::max(1u, K.ReqNTid[2])
                                    : K.MaxThreadsPerBlock;
        EXPECT_EQ(Rec[".max_flat_workgroup_size"],
                  std::to_string(amdgpu::slowModeWorkItems(std::min(Max, amdgpu::SlowModeMaxThreads))));
      } else if (K.ParamBufferSize) {
        // One explicit argument: CUDA's parameter buffer, at offset 0.
        EXPECT_EQ(Rec["arg0.offset"], "0");
        EXPECT_EQ(Rec["arg0.size"], std::to_string(K.ParamBufferSize));
        uint32_t Align = 4;
        for (const ptx::ParamLayout &L : K.Params)
          Align = std::max(Align, L.Align);
        EXPECT_GE(std::stoul(Rec[".kernarg_segment_align"]), Align);
      }
      // Shared memory is all dynamic LDS; the fixed part is the runtime's own
      // (the bar.red counter, the named barriers' counters).
      EXPECT_LE(std::stoul(Rec[".group_segment_fixed_size"]), 160u);
      // No scratch unless the kernel has local memory (arrays, spills of -G
      // builds), calls through the stack or spills registers (libcu++'s sm_75
      // memcpy_async fallback in async_barrier.compute_75 does, under the
      // 128-VGPR limit of 1024-thread blocks).
      if (K.LocalBytes == 0 && !Sampling && E.path().string().find(".debug.") == std::string::npos &&
          Rec[".uses_dynamic_stack"] != "true" && Rec[".vgpr_spill_count"] == "0") {
        EXPECT_EQ(Rec[".private_segment_fixed_size"], "0");
      }
    }
    fs::remove(P);
  }
  bool OneVariant = Slow || !T.Wave64;
  EXPECT_GE(Files, OneVariant ? 35u : 90u); // distinct modules (programs of one device code count once)
  EXPECT_GE(Kernels, OneVariant ? 90u : 200u);
}

INSTANTIATE_TEST_SUITE_P(Processors, Corpus, ::testing::Values("gfx90a", "gfx1030", "gfx1100", "gfx90a/slow"));

constexpr const char *Collectives = R"(
.version 7.5
.target sm_80
.address_size 64
.visible .entry coll(.param .u64 out, .param .f32 x, .param .f64 y, .param .s64 z)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .f32 %f<6>;
  .reg .f64 %d<4>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %laneid;
  mov.u32 %r2, %tid.x;
  shfl.sync.bfly.b32 %r3|%p1, %r2, 1, 31, -1;
  setp.lt.u32 %p2, %r2, 7;
  vote.sync.ballot.b32 %r4, %p2, -1;
  match.any.sync.b32 %r5, %r3, -1;
  redux.sync.add.u32 %r6, %r2, -1;
  bar.red.popc.u32 %r7, 0, %p2;
  bar.sync 0;
  ld.param.f32 %f1, [x];
  add.rz.f32 %f2, %f1, 0f3F800001;
  div.rp.f32 %f3, %f1, 0f40400000;
  ld.param.f64 %d1, [y];
  fma.rm.f64 %d2, %d1, %d1, %d1;
  ld.param.s64 %rd1, [z];
  cvt.rz.f32.s64 %f4, %rd1;
  cvt.rn.f16.f32 %rs1, %f1;
  add.u32 %r8, %r3, %r4;
  add.u32 %r8, %r8, %r5;
  add.u32 %r8, %r8, %r6;
  add.u32 %r8, %r8, %r7;
  add.u32 %r8, %r8, %r1;
  add.f32 %f5, %f2, %f3;
  add.f32 %f5, %f5, %f4;
  cvt.rn.f32.f64 %f1, %d2;
  add.f32 %f5, %f5, %f1;
  mov.b32 %r9, %f5;
  add.u32 %r8, %r8, %r9;
  ld.param.u64 %rd2, [out];
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r8;
  ret;
}
)";

std::string withHalfReg(std::string S) {
  // %rs1 needs a declaration; kept apart so the kernel text above reads simply.
  size_t P = S.find("  .reg .b64 %rd<6>;");
  return S.insert(P, "  .reg .b16 %rs<2>;\n");
}

TEST(AmdgpuCodeObject, WarpCollectivesBarriersAndRoundingModes) {
  for (const char *Name : Targets) {
    SCOPED_TRACE(Name);
    amdgpu::Target T;
    std::string Err;
    ASSERT_TRUE(amdgpu::Target::parse(Name, T, Err)) << Err;
    amdgpu::CompileOptions O;
    O.UseCache = false;
    amdgpu::CodeObject R = amdgpu::compilePtx(withHalfReg(Collectives), T, O);
    ASSERT_FALSE(R.Elf.empty()) << R.Error;
    EXPECT_TRUE(R.Failures.empty());
    fs::path P = writeTemp(R.Elf, "coll.hsaco");
    std::string Dis = commandOutput(std::string(ZLUDA_LLVM_OBJDUMP) + " -d --no-show-raw-insn " + P.string());
    fs::remove(P);
    EXPECT_NE(Dis.find("<coll>:"), std::string::npos);
    EXPECT_NE(Dis.find("ds_bpermute_b32"), std::string::npos) << "shuffles go through ds_bpermute";
    EXPECT_NE(Dis.find("s_barrier"), std::string::npos);
    // gfx10+ write the rounding field with s_round_mode.
    EXPECT_TRUE(Dis.find("s_setreg") != std::string::npos || Dis.find("s_round_mode") != std::string::npos)
        << "directed rounding sets the MODE register";
    // 32-lane warps inside 64-lane waves: lane ids and ballots use the upper
    // half of the wave too.
    bool HasHi = Dis.find("v_mbcnt_hi_u32") != std::string::npos;
    EXPECT_EQ(HasHi, T.Wave64);
  }
}

// 128-bit atomics have no AMDGPU instruction (LLVM aborted on them): the
// kernel that uses one is named and traps; its neighbours compile as usual.
TEST(AmdgpuCodeObject, WideAtomicsAreNamedNotACrash) {
  const char *Ptx = R"(
.version 8.3
.target sm_90
.address_size 64
.visible .entry wide(.param .u64 p)
{
  .reg .b64 %rd<4>;
  .reg .b128 %q<3>;
  ld.param.u64 %rd1, [p];
  mov.b64 %rd2, 1;
  mov.b128 %q1, {%rd2, %rd2};
  atom.global.exch.b128 %q2, [%rd1], %q1;
  ret;
}
.visible .entry narrow(.param .u64 p)
{
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  atom.global.exch.b64 %rd2, [%rd1], 1;
  ret;
}
)";
  amdgpu::CodeObject R = compileFor("gfx90a", Ptx);
  ASSERT_FALSE(R.Elf.empty());
  ASSERT_EQ(R.Kernels.size(), 2u);
  for (const ptx::KernelInfo &K : R.Kernels)
    EXPECT_EQ(K.Unsupported.empty(), K.Name == "narrow") << K.Name << ": " << K.Unsupported;
}

TEST(AmdgpuCodeObject, UnsupportedFeaturesAreNamedPerKernel) {
  const char *Ptx = R"(
.version 7.5
.target sm_75
.address_size 64
.extern .func (.param .b64 r) malloc (.param .b64 n);
.global .align 1 .b8 fmt[4] = {104, 105, 10, 0};
.visible .entry talks(.param .u64 out)
{
  .reg .b64 %rd<4>;
  mov.u64 %rd1, fmt;
  ld.param.u64 %rd3, [out];
  {
  .param .b64 p0;
  st.param.b64 [p0], 64;
  .param .b64 rv;
  call.uni (rv), malloc, (p0);
  ld.param.b64 %rd2, [rv];
  }
  st.global.u64 [%rd3], %rd2;
  st.global.u64 [%rd3+8], %rd1;
  ret;
}
.visible .entry quiet()
{
  ret;
}
)";
  amdgpu::CodeObject R = compileFor("gfx1030", Ptx);
  ASSERT_FALSE(R.Elf.empty());
  ASSERT_EQ(R.Kernels.size(), 2u);
  for (const ptx::KernelInfo &K : R.Kernels) {
    if (K.Name == "talks")
      EXPECT_NE(K.Unsupported.find("malloc is not supported on AMDGPU"), std::string::npos) << K.Unsupported;
    else
      EXPECT_EQ(K.Unsupported, "");
  }
  ASSERT_EQ(R.Failures.size(), 1u);
  EXPECT_NE(R.Failures[0].find("talks"), std::string::npos);
  // Module variables are in the code object, under their PTX names.
  fs::path P = writeTemp(R.Elf, "malloc.hsaco");
  std::string Syms = commandOutput(std::string(ZLUDA_LLVM_READELF) + " --syms " + P.string());
  fs::remove(P);
  EXPECT_NE(Syms.find(" fmt"), std::string::npos) << Syms;
}

/// WARP_SZ compiles on AMDGPU; kernels that launch grids from the device or
/// call the device runtime's grid barrier are marked unsupported by name; the
/// code object's VGPR count is read for CU_FUNC_ATTRIBUTE_NUM_REGS.
TEST(AmdgpuCodeObject, DeviceRuntimeIsRefusedAndWarpSizeCompiles) {
  const char *Ptx = R"(
.version 7.5
.target sm_75
.address_size 64
.extern .func (.param .b64 r) __cudaCDP2GetParameterBufferV2(.param .b64 f, .param .align 4 .b8 g[12], .param .align 4 .b8 b[12], .param .b32 s);
.extern .func (.param .b32 r) __cudaCDP2LaunchDeviceV2(.param .b64 p, .param .b64 s);
.visible .entry child(.param .u64 out) { ret; }
.visible .entry parent(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<4>;
  mov.u64 %rd1, child;
  {
  .param .b64 p0;
  st.param.b64 [p0], %rd1;
  .param .align 4 .b8 p1[12];
  st.param.b32 [p1], 1;
  st.param.b32 [p1+4], 1;
  st.param.b32 [p1+8], 1;
  .param .align 4 .b8 p2[12];
  st.param.b32 [p2], 1;
  st.param.b32 [p2+4], 1;
  st.param.b32 [p2+8], 1;
  .param .b32 p3;
  st.param.b32 [p3], 0;
  .param .b64 rv;
  call.uni (rv), __cudaCDP2GetParameterBufferV2, (p0, p1, p2, p3);
  ld.param.b64 %rd2, [rv];
  }
  {
  .param .b64 q0;
  st.param.b64 [q0], %rd2;
  .param .b64 q1;
  st.param.b64 [q1], 0;
  .param .b32 rv2;
  call.uni (rv2), __cudaCDP2LaunchDeviceV2, (q0, q1);
  ld.param.b32 %r1, [rv2];
  }
  ret;
}
.visible .entry warps(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, WARP_SZ;
  st.global.u32 [%rd1], %r1;
  ret;
}
)";
  amdgpu::CodeObject R = compileFor("gfx90a", Ptx);
  ASSERT_FALSE(R.Elf.empty());
  for (const ptx::KernelInfo &K : R.Kernels) {
    if (K.Name == "parent")
      EXPECT_NE(K.Unsupported.find("dynamic parallelism"), std::string::npos) << K.Unsupported;
    else
      EXPECT_EQ(K.Unsupported, "") << K.Name;
  }
  std::vector<amdgpu::KernelMetadata> Md;
  std::string Err;
  ASSERT_TRUE(amdgpu::readMetadata(R.Elf, Md, Err)) << Err;
  bool Seen = false;
  for (const amdgpu::KernelMetadata &M : Md)
    if (M.Name == "warps") {
      Seen = true;
      EXPECT_GT(M.VgprCount, 0u);
    }
  EXPECT_TRUE(Seen);
}

/// Every processor the compiler offers (COMGR's, from gfx8 on, plus the
/// -mcpu aliases) compiles a module with shuffles, votes, barriers, atomics,
/// printf and directed rounding, with the wave size the processor has.
TEST(AmdgpuCodeObject, EveryOfferedProcessorCompiles) {
  std::string Ptx = withHalfReg(Collectives);
  std::vector<std::string> All = amdgpu::supportedProcessors();
  EXPECT_GE(All.size(), 25u);
  for (const std::string &Proc : All) {
    SCOPED_TRACE(Proc);
    for (const std::string &Src : {Ptx, readFile(fs::path(ZLUDA_PTX_CORPUS_DIR) / "printf_assert.compute_75.ptx")}) {
      amdgpu::Target T;
      amdgpu::CodeObject R = compileFor(Proc, Src, &T);
      ASSERT_FALSE(R.Elf.empty());
      EXPECT_TRUE(R.Failures.empty());
      fs::path P = writeTemp(R.Elf, "each.hsaco");
      std::string Target;
      std::map<std::string, Record> Recs = kernelRecords(notesOf(P), Target);
      fs::remove(P);
      EXPECT_EQ(Recs.size(), R.Kernels.size());
      for (auto &[Name, Rec] : Recs)
        EXPECT_EQ(Rec[".wavefront_size"], T.Wave64 ? "64" : "32") << Name;
    }
  }
}

/// __syncthreads is the hardware barrier; named barriers, thread counts and
/// bar.arrive are LDS counters (atomic adds, a spin that sleeps).
TEST(AmdgpuCodeObject, NamedBarriersAreCountersInLds) {
  const char *Ptx = R"(
.version 7.5
.target sm_80
.address_size 64
.visible .entry plain(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 buf[1024];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  st.shared.u32 [%r2], %r1;
  bar.sync 0;
  ld.shared.u32 %r1, [%r2+4];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r2, 1;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
.visible .entry producer_consumer(.param .u64 out)
{
  .reg .pred %p;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 buf[1024];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  setp.lt.u32 %p, %r1, 64;
  @%p bra PRODUCE;
  bar.sync 1, 128;
  ld.shared.u32 %r3, [%r2+-256];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r2, 1;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  bra DONE;
PRODUCE:
  st.shared.u32 [%r2], %r1;
  bar.arrive 1, 128;
DONE:
  barrier.sync 2;
  ret;
}
)";
  for (const char *Name : Targets) {
    SCOPED_TRACE(Name);
    amdgpu::Target T;
    amdgpu::CodeObject R = compileFor(Name, Ptx, &T);
    ASSERT_FALSE(R.Elf.empty());
    EXPECT_TRUE(R.Failures.empty());
    fs::path P = writeTemp(R.Elf, "bar.hsaco");
    std::string Dis = commandOutput(std::string(ZLUDA_LLVM_OBJDUMP) + " -d --no-show-raw-insn --mcpu=" +
                                    T.Processor + " " + P.string());
    std::string Notes = notesOf(P);
    fs::remove(P);
    size_t Plain = Dis.find("<plain>:"), Pc = Dis.find("<producer_consumer>:");
    ASSERT_NE(Plain, std::string::npos);
    ASSERT_NE(Pc, std::string::npos);
    std::string A = Plain < Pc ? Dis.substr(Plain, Pc - Plain) : Dis.substr(Plain);
    std::string B = Plain < Pc ? Dis.substr(Pc) : Dis.substr(Pc, Plain - Pc);
    EXPECT_NE(A.find("s_barrier"), std::string::npos);
    EXPECT_EQ(A.find("s_sleep"), std::string::npos) << "__syncthreads does not spin";
    EXPECT_NE(B.find("ds_add_rtn_u32"), std::string::npos) << "arrivals are counted in LDS";
    EXPECT_NE(B.find("s_sleep"), std::string::npos) << "waiting warps spin on the generation";
    std::string Target;
    std::map<std::string, Record> Recs = kernelRecords(Notes, Target);
    EXPECT_GE(std::stoul(Recs["producer_consumer"][".group_segment_fixed_size"]), 128u)
        << "the counters of 16 barriers";
  }
}

/// printf and assert reach the HIP runtime's hostcall printf service: the
/// kernels are supported, their code objects ask HIP for the hostcall buffer
/// (a hidden kernel argument after our parameter buffer) and do not trap
/// unless an assertion fails.
TEST(AmdgpuCodeObject, PrintfGoesThroughHostcall) {
  for (const char *Proc : {"gfx90a", "gfx1030"}) {
    SCOPED_TRACE(Proc);
    amdgpu::CodeObject R = compileFor(Proc, readFile(fs::path(ZLUDA_PTX_CORPUS_DIR) / "printf_formats.compute_75.ptx"));
    ASSERT_FALSE(R.Elf.empty());
    EXPECT_TRUE(R.Failures.empty()) << R.Failures.front();
    ASSERT_EQ(R.Kernels.size(), 1u);
    EXPECT_EQ(R.Kernels[0].Unsupported, "");
    fs::path P = writeTemp(R.Elf, "printf.hsaco");
    std::string Notes = notesOf(P);
    EXPECT_NE(Notes.find("hidden_hostcall_buffer"), std::string::npos) << Notes;
    std::string Asm = commandOutput(std::string(ZLUDA_LLVM_OBJDUMP) + " -d --mcpu=" + Proc + " " + P.string());
    EXPECT_EQ(Asm.find("s_trap"), std::string::npos) << "printf must not trap";
    EXPECT_NE(Asm.find("s_sleep"), std::string::npos) << "the hostcall waits for the host's answer";
    fs::remove(P);

    // assert: the message through hostcall (to stderr), then the trap.
    R = compileFor(Proc, readFile(fs::path(ZLUDA_PTX_CORPUS_DIR) / "printf_assert.compute_75.ptx"));
    ASSERT_FALSE(R.Elf.empty());
    EXPECT_TRUE(R.Failures.empty());
    P = writeTemp(R.Elf, "assert.hsaco");
    Notes = notesOf(P);
    EXPECT_NE(Notes.find("hidden_hostcall_buffer"), std::string::npos);
    Asm = commandOutput(std::string(ZLUDA_LLVM_OBJDUMP) + " -d --mcpu=" + Proc + " " + P.string());
    EXPECT_NE(Asm.find("s_trap"), std::string::npos) << "a failed assertion ends the kernel";
    fs::remove(P);
  }
}

TEST(AmdgpuCodeObject, ThirtyTwoBitModulesAreRefusedClearly) {
  amdgpu::Target T;
  std::string Err;
  ASSERT_TRUE(amdgpu::Target::parse("gfx1030", T, Err));
  amdgpu::CodeObject R =
      amdgpu::compilePtx(".version 7.0\n.target sm_75\n.address_size 32\n.visible .entry k()\n{\n  ret;\n}\n", T);
  EXPECT_TRUE(R.Elf.empty());
  EXPECT_NE(R.Error.find(".address_size 32"), std::string::npos) << R.Error;
}

TEST(AmdgpuCodeObject, MalformedPtxNamesTheLine) {
  amdgpu::Target T;
  std::string Err;
  ASSERT_TRUE(amdgpu::Target::parse("gfx90a", T, Err));
  amdgpu::CodeObject R = amdgpu::compilePtx(".version 7.5\n.target sm_75\n.address_size 64\n"
                                            ".visible .entry k()\n{\n  frobnicate.u32 %r1;\n}\n",
                                            T);
  EXPECT_TRUE(R.Elf.empty());
  EXPECT_EQ(R.Error.rfind("ptx:6:3: error:", 0), 0u) << R.Error;
}

TEST(AmdgpuCodeObject, ProcessorNamesAndFeatures) {
  amdgpu::Target T;
  std::string Err;
  ASSERT_TRUE(amdgpu::Target::parse("gfx90a:sramecc+:xnack-", T, Err)) << Err;
  EXPECT_EQ(T.Processor, "gfx90a");
  EXPECT_EQ(T.Features, ":sramecc+:xnack-");
  EXPECT_TRUE(T.Wave64);
  ASSERT_TRUE(amdgpu::Target::parse("gfx1100", T, Err)) << Err;
  EXPECT_FALSE(T.Wave64);
  ASSERT_TRUE(amdgpu::Target::parse("gfx1030", T, Err)) << Err;
  EXPECT_FALSE(T.Wave64);
  ASSERT_TRUE(amdgpu::Target::parse("gfx906", T, Err)) << Err;
  EXPECT_TRUE(T.Wave64);
  EXPECT_FALSE(amdgpu::Target::parse("sm_80", T, Err));
  EXPECT_NE(Err.find("not an AMDGPU processor"), std::string::npos);
  EXPECT_FALSE(amdgpu::Target::parse("gfx9999", T, Err));
  EXPECT_FALSE(amdgpu::Target::parse("gfx700", T, Err)) << "no ds_bpermute before gfx8";
  EXPECT_NE(Err.find("ds_bpermute"), std::string::npos) << Err;
  std::vector<std::string> All = amdgpu::supportedProcessors();
  for (const char *P : {"gfx900", "gfx90a", "gfx1030", "gfx1100", "gfx940"})
    EXPECT_NE(std::find(All.begin(), All.end(), P), All.end()) << P;
  // The features reach the code object.
  amdgpu::CompileOptions O;
  O.UseCache = false;
  ASSERT_TRUE(amdgpu::Target::parse("gfx90a:xnack+", T, Err));
  amdgpu::CodeObject R = amdgpu::compilePtx(".version 7.5\n.target sm_75\n.address_size 64\n"
                                            ".visible .entry k()\n{\n  ret;\n}\n",
                                            T, O);
  ASSERT_FALSE(R.Elf.empty()) << R.Error;
  fs::path P = writeTemp(R.Elf, "xnack.hsaco");
  std::string Target;
  kernelRecords(notesOf(P), Target);
  fs::remove(P);
  EXPECT_EQ(Target, "amdgcn-amd-amdhsa--gfx90a:xnack+");
}

TEST(AmdgpuCodeObject, CodeObjectsComeBackFromTheCompileCache) {
  amdgpu::Target T;
  std::string Err;
  ASSERT_TRUE(amdgpu::Target::parse("gfx1030", T, Err));
  std::string Ptx = ".version 7.5\n.target sm_75\n.address_size 64\n"
                    ".visible .entry k(.param .u64 p)\n{\n  .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [p];\n"
                    "  st.global.u32 [%rd1], 7;\n  ret;\n}\n// cache test " + std::to_string(getpid()) + "\n";
  amdgpu::CodeObject A = amdgpu::compilePtx(Ptx, T);
  ASSERT_FALSE(A.Elf.empty()) << A.Error;
  EXPECT_FALSE(A.FromCache);
  amdgpu::CodeObject B = amdgpu::compilePtx(Ptx, T);
  ASSERT_FALSE(B.Elf.empty()) << B.Error;
  EXPECT_TRUE(B.FromCache);
  EXPECT_EQ(A.Elf, B.Elf);
  ASSERT_EQ(B.Kernels.size(), 1u);
  EXPECT_EQ(B.Kernels[0].Name, "k");
  EXPECT_EQ(B.Kernels[0].ParamBufferSize, 8u);
  // Another processor is another entry.
  ASSERT_TRUE(amdgpu::Target::parse("gfx90a", T, Err));
  amdgpu::CodeObject C = amdgpu::compilePtx(Ptx, T);
  EXPECT_FALSE(C.FromCache);
}

// CU_JIT_OPTIMIZATION_LEVEL reaches COMGR's codegen (-O0 ... -O3): each level
// gives a valid code object with the same kernels, -O0 code is not -O3 code,
// and a level is its own compile-cache entry.
TEST(AmdgpuCodeObject, OptimizationLevelsAreCodegenLevels) {
  amdgpu::Target T;
  std::string Err;
  ASSERT_TRUE(amdgpu::Target::parse("gfx1030", T, Err));
  std::string Ptx = ".version 7.5\n.target sm_75\n.address_size 64\n"
                    ".visible .entry k(.param .u64 p, .param .u32 n)\n{\n  .reg .pred %p<2>;\n"
                    "  .reg .b32 %r<6>;\n  .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [p];\n  ld.param.u32 %r1, [n];\n"
                    "  mov.u32 %r2, 0;\n  mov.u32 %r3, 0;\nL:\n  mad.lo.u32 %r3, %r2, %r2, %r3;\n"
                    "  add.u32 %r2, %r2, 1;\n  setp.lt.u32 %p1, %r2, %r1;\n  @%p1 bra L;\n"
                    "  st.global.u32 [%rd1], %r3;\n  ret;\n}\n// levels test " + std::to_string(getpid()) + "\n";
  std::string Elf[4];
  for (unsigned L : {0u, 1u, 2u, 3u}) {
    amdgpu::CompileOptions O;
    O.OptLevel = L;
    amdgpu::CodeObject R = amdgpu::compilePtx(Ptx, T, O);
    ASSERT_FALSE(R.Elf.empty()) << "-O" << L << ": " << R.Error;
    EXPECT_FALSE(R.FromCache) << "-O" << L << " came from another level's cache entry";
    ASSERT_EQ(R.Kernels.size(), 1u);
    EXPECT_EQ(R.Kernels[0].Name, "k");
    EXPECT_EQ(R.Kernels[0].ParamBufferSize, 16u); // 8 + 4, padded to the pointer's alignment
    Elf[L] = R.Elf;
  }
  EXPECT_NE(Elf[0], Elf[3]);
  amdgpu::CompileOptions O1;
  O1.OptLevel = 1;
  amdgpu::CodeObject Again = amdgpu::compilePtx(Ptx, T, O1);
  EXPECT_TRUE(Again.FromCache);
  EXPECT_EQ(Again.Elf, Elf[1]);
}

} // namespace

int main(int argc, char **argv) {
  fs::path Dir = fs::temp_directory_path() / ("zluda-amdgpu-cache-" + std::to_string(getpid()));
  setenv("ZLUDA_CACHE_DIR", Dir.c_str(), 1);
  ::testing::InitGoogleTest(&argc, argv);
  int Rc = RUN_ALL_TESTS();
  std::error_code EC;
  fs::remove_all(Dir, EC);
  return Rc;
}

/// Every kernel of the PTX conformance oracle (tests/golden) compiles for the
/// three reference processors; one module per family, as a program would
/// load it. Kernels the AMDGPU target cannot express yet are listed.
class Golden : public ::testing::TestWithParam<std::string> {};

/// One golden family as a module: its header line's directives, then every
/// kernel's PTX; \p Kernels receives how many kernels it holds.
static std::string goldenModule(const fs::path &File, size_t &Kernels) {
  std::istringstream In(readFile(File));
  std::string Line, Header, Ptx;
  bool InPtx = false;
  Kernels = 0;
  while (std::getline(In, Line)) {
    if (InPtx) {
      if (Line == "endptx")
        InPtx = false;
      else
        Ptx += Line + "\n";
    } else if (Line.rfind("header ", 0) == 0) {
      Header = Line.substr(7);
      for (char &C : Header)
        if (C == '|')
          C = '\n';
    } else if (Line == "ptx") {
      InPtx = true;
      ++Kernels;
    }
  }
  return Header + "\n" + Ptx;
}

TEST_P(Golden, EveryGoldenKernelCompiles) {
  size_t Kernels = 0, Unsupported = 0;
  for (const auto &E : fs::directory_iterator(ZLUDA_GOLDEN_DIR)) {
    if (E.path().extension() != ".golden")
      continue;
    SCOPED_TRACE(E.path().filename().string());
    size_t Expected;
    amdgpu::CodeObject R = compileFor(GetParam(), goldenModule(E.path(), Expected));
    ASSERT_FALSE(R.Elf.empty()) << R.Error;
    EXPECT_EQ(R.Kernels.size(), Expected);
    Kernels += R.Kernels.size();
    for (const ptx::KernelInfo &K : R.Kernels)
      if (!K.Unsupported.empty()) {
        ++Unsupported;
        std::printf("unsupported on %s: %s: %s\n", GetParam().c_str(), K.Name.c_str(), K.Unsupported.c_str());
      }
  }
  std::printf("%s: %zu golden kernels compiled, %zu marked unsupported\n", GetParam().c_str(), Kernels, Unsupported);
  EXPECT_GT(Kernels, 2000u);
  EXPECT_EQ(Unsupported, 0u) << "every golden kernel runs on AMDGPU (docs/STATUS.md lists what is still refused)";
}

/// mma (every shape of the golden set), wmma and ldmatrix are computed in
/// software through ds_bpermute on AMDGPU: no trap, no LDS of their own.
TEST_P(Golden, MatrixKernelsAreShufflesNotTraps) {
  for (const char *File : {"mma.golden", "mma2.golden", "wmma.golden", "wmatrix.golden"}) {
    SCOPED_TRACE(File);
    size_t Expected;
    amdgpu::CodeObject R = compileFor(GetParam(), goldenModule(fs::path(ZLUDA_GOLDEN_DIR) / File, Expected));
    ASSERT_FALSE(R.Elf.empty()) << R.Error;
    for (const ptx::KernelInfo &K : R.Kernels)
      EXPECT_EQ(K.Unsupported, "") << K.Name;
    fs::path P = writeTemp(R.Elf, "matrix.hsaco");
    std::string Asm = commandOutput(std::string(ZLUDA_LLVM_OBJDUMP) + " -d --mcpu=" + GetParam() + " " + P.string());
    fs::remove(P);
    EXPECT_EQ(Asm.find("s_trap"), std::string::npos) << "a matrix instruction became a trap";
    EXPECT_NE(Asm.find("ds_bpermute_b32"), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(Processors, Golden, ::testing::Values("gfx90a", "gfx1030", "gfx1100"));
