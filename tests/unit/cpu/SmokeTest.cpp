//===- SmokeTest.cpp - end to end through the CPU device -------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "Harness.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

using namespace zluda;
using namespace zluda::test;

namespace {

const char *VecAdd = R"(
.version 9.0
.target sm_80
.address_size 64
.visible .entry add(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<11>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  ld.param.u32 %r2, [n];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r1, %r3, %r4, %r5;
  setp.ge.s32 %p1, %r1, %r2;
  @%p1 bra $L_end;
  cvta.to.global.u64 %rd4, %rd1;
  mul.wide.s32 %rd5, %r1, 4;
  add.s64 %rd6, %rd4, %rd5;
  cvta.to.global.u64 %rd7, %rd2;
  add.s64 %rd8, %rd7, %rd5;
  ld.global.f32 %f1, [%rd8];
  ld.global.f32 %f2, [%rd6];
  add.f32 %f3, %f2, %f1;
  cvta.to.global.u64 %rd9, %rd3;
  add.s64 %rd10, %rd9, %rd5;
  st.global.f32 [%rd10], %f3;
$L_end:
  ret;
}
)";

TEST(CpuDevice, VectorAdd) {
  const int N = 1000;
  std::vector<float> A(N), B(N), C(N, -1.0f);
  for (int I = 0; I < N; ++I) {
    A[I] = I * 0.5f;
    B[I] = 1000.0f - I;
  }
  runOk(VecAdd, "add", {{4}, {256}}, {Arg::ptr(A.data()), Arg::ptr(B.data()), Arg::ptr(C.data()), Arg::of<uint32_t>(N)});
  for (int I = 0; I < N; ++I)
    ASSERT_EQ(C[I], A[I] + B[I]) << I;
}

const char *Rotate = R"(
.version 9.0
.target sm_80
.address_size 64
.visible .entry rotate(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 buf[256];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %ctaid.x;
  shl.b32 %r4, %r1, 2;
  mov.u32 %r5, buf;
  add.u32 %r5, %r5, %r4;
  mad.lo.u32 %r6, %r3, 1000, %r1;
  st.shared.u32 [%r5], %r6;
  bar.sync 0;
  add.u32 %r7, %r1, 1;
  rem.u32 %r7, %r7, %r2;
  shl.b32 %r7, %r7, 2;
  mov.u32 %r5, buf;
  add.u32 %r5, %r5, %r7;
  ld.shared.u32 %r6, [%r5];
  mad.lo.u32 %r7, %r3, %r2, %r1;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r7, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r6;
  ret;
}
)";

/// The executor's block strategies are interchangeable where they apply: a
/// kernel whose threads never wait runs under each with the same results;
/// one with a barrier asks for fibers whatever is preferred.
TEST(CpuDevice, BlockStrategiesAreInterchangeable) {
  auto M = compile(VecAdd);
  ASSERT_TRUE(M);
  std::mt19937 Rng(std::random_device{}());
  const int N = 3001;
  std::vector<float> A(N), B(N);
  for (int I = 0; I < N; ++I) {
    A[I] = std::uniform_real_distribution<float>(-100, 100)(Rng);
    B[I] = std::uniform_real_distribution<float>(-100, 100)(Rng);
  }
  for (const char *S : {"loop", "sequential", "fibers"}) {
    SCOPED_TRACE(S);
    std::vector<float> C(N, std::nanf(""));
    Launch L{{(N + 127) / 128}, {128}};
    L.Strategy = S;
    cpu::LaunchResult R = run(*M, "add", L, {Arg::ptr(A.data()), Arg::ptr(B.data()), Arg::ptr(C.data()), Arg::of<uint32_t>(N)});
    ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
    EXPECT_EQ(LastStrategy(), S);
    for (int I = 0; I < N; ++I)
      ASSERT_EQ(C[I], A[I] + B[I]) << I;
  }
  auto Bar = compile(Rotate);
  ASSERT_TRUE(Bar);
  for (const char *S : {"loop", "sequential", "regions", "fibers"}) {
    SCOPED_TRACE(S);
    const unsigned Blocks = 5, Threads = 96;
    std::vector<uint32_t> Out(Blocks * Threads, 0xdeadbeef);
    Launch L{{Blocks}, {Threads}};
    L.Strategy = S;
    cpu::LaunchResult R = run(*Bar, "rotate", L, {Arg::ptr(Out.data())});
    ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
    // A barrier needs threads that can wait: work-item loops between the
    // barriers unless fibers are asked for.
    EXPECT_EQ(LastStrategy(), std::string(S) == "fibers" ? "fibers" : "regions");
    for (unsigned Bl = 0; Bl < Blocks; ++Bl)
      for (unsigned T = 0; T < Threads; ++T)
        ASSERT_EQ(Out[Bl * Threads + T], Bl * 1000 + (T + 1) % Threads) << Bl << "," << T;
  }
}

// Tiered compilation: a kernel whose unit has at least TierAboveBytes of
// bitcode first runs -O0 code (a barrier kernel: fibers) and the optimized
// code (work-item loops) once the tier-up its second launch queued is done;
// a smaller one is optimized at once. Every launch gives the same results.
TEST(CpuSmoke, TieredCompilationBySize) {
  for (size_t Above : {size_t(1) << 30, size_t(0)}) {
    SCOPED_TRACE(Above);
    cpu::CompileOptions O;
    O.Lazy = true;
    O.UseCache = false;
    O.Tiered = true;
    O.TierUpLaunches = 2;
    O.TierAboveBytes = Above;
    cpu::CompileResult R = cpu::compilePtx(Rotate, O);
    ASSERT_TRUE(R.Mod) << R.Error;
    const cpu::CpuKernel *K = R.Mod->kernel("rotate");
    ASSERT_TRUE(K);
    auto launch = [&](const char *Expect) {
      const unsigned Blocks = 3, Threads = 64;
      std::vector<uint32_t> Out(Blocks * Threads, 0xdeadbeef);
      cpu::LaunchResult LR = run(*R.Mod, "rotate", Launch{{Blocks}, {Threads}}, {Arg::ptr(Out.data())});
      ASSERT_EQ(LR.Err, cpu::LaunchError::None) << LR.Message;
      EXPECT_EQ(LastStrategy(), Expect);
      for (unsigned Bl = 0; Bl < Blocks; ++Bl)
        for (unsigned T = 0; T < Threads; ++T)
          ASSERT_EQ(Out[Bl * Threads + T], Bl * 1000 + (T + 1) % Threads) << Bl << "," << T;
    };
    const char *First = Above ? "regions" : "fibers";
    launch(First);
    EXPECT_EQ(R.Mod->optimized(*K), Above != 0);
    launch(First); // queues the optimized compile (TierUpLaunches 2)
    R.Mod->waitForTierUps();
    EXPECT_TRUE(R.Mod->optimized(*K));
    launch("regions");
  }
}

TEST(CpuDevice, IllegalAddressIsReportedNotFatal) {
  auto M = compile(VecAdd);
  ASSERT_TRUE(M);
  std::vector<float> C(10);
  auto R = run(*M, "add", {{1}, {32}}, {Arg::ptr(reinterpret_cast<void *>(16)), Arg::ptr(reinterpret_cast<void *>(16)),
                                        Arg::ptr(C.data()), Arg::of<uint32_t>(10)});
  EXPECT_EQ(R.Err, cpu::LaunchError::IllegalAddress) << R.Message;
}

} // namespace

// WARP_SZ is PTX's predefined warp-size identifier (what warpSize compiles to).
TEST(CpuDevice, WarpSizeIdentifier) {
  const char *Ptx = R"(
.version 9.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, WARP_SZ;
  mul.lo.u32 %r2, %r1, 3;
  st.global.u32 [%rd1], %r1;
  st.global.u32 [%rd1+4], %r2;
  ret;
}
)";
  uint32_t Out[2] = {0xdeadbeef, 0xdeadbeef};
  runOk(Ptx, "k", {{1}, {1}}, {Arg::ptr(Out)});
  EXPECT_EQ(Out[0], 32u);
  EXPECT_EQ(Out[1], 96u);
}

// Vector-typed registers (.reg .v2 .u32 %v) as whole operands of ld/st and
// by component.
TEST(CpuDevice, VectorTypedRegisters) {
  const char *Ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .v2 .u32 %v;
  .reg .v4 .u16 %h;
  .reg .b64 %rd<2>;
  .reg .u32 %r<3>;
  ld.param.u64 %rd1, [p];
  ld.global.v2.u32 %v, [%rd1];
  mov.u32 %r1, %v.x;
  mov.u32 %r2, %v.y;
  add.u32 %r1, %r1, %r2;
  st.global.u32 [%rd1+16], %r1;
  st.global.v2.u32 [%rd1+8], %v;
  ld.global.v4.u16 %h, [%rd1];
  st.global.v4.u16 [%rd1+24], %h;
  ret;
}
)";
  uint32_t Buf[8] = {0x11112222, 0x33334444, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef};
  runOk(Ptx, "k", {{1}, {1}}, {Arg::ptr(Buf)});
  EXPECT_EQ(Buf[2], 0x11112222u);
  EXPECT_EQ(Buf[3], 0x33334444u);
  EXPECT_EQ(Buf[4], 0x11112222u + 0x33334444u);
  EXPECT_EQ(Buf[6], 0x11112222u);
  EXPECT_EQ(Buf[7], 0x33334444u);
}

// A vector register named whole where an instruction takes a vector operand: mov.b64's pack and unpack.
TEST(CpuDevice, WholeVectorRegisterAsPackAndUnpack) {
  const char *Ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .v2 .u32 %v;
  .reg .v2 .u32 %w;
  .reg .b64 %rd<4>;
  .reg .u32 %r1;
  ld.param.u64 %rd1, [p];
  ld.global.v2.u32 %v, [%rd1];
  mov.b64 %rd2, %v;
  st.global.u64 [%rd1+8], %rd2;
  add.u64 %rd3, %rd2, 1;
  mov.b64 %w, %rd3;
  st.global.v2.u32 [%rd1+16], %w;
  mov.u32 %r1, %w.g; // .r .g .b .a name the components too
  st.global.u32 [%rd1+24], %r1;
  ret;
}
)";
  uint32_t Buf[7] = {0x11112222, 0x33334444, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef};
  runOk(Ptx, "k", {{1}, {1}}, {Arg::ptr(Buf)});
  EXPECT_EQ(Buf[2], 0x11112222u); // element 0 is the low half
  EXPECT_EQ(Buf[3], 0x33334444u);
  EXPECT_EQ(Buf[4], 0x11112223u);
  EXPECT_EQ(Buf[5], 0x33334444u);
  EXPECT_EQ(Buf[6], 0x33334444u);
}

// .global and .const variables declared inside a function body: one copy for the module (it outlives the
// launch and every thread shares it), visible by name only inside its block, where it shadows a module variable
// of the same name.
TEST(CpuDevice, GlobalAndConstDeclaredInAFunctionBody) {
  const char *Ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.global .u32 count = 1000;
.visible .entry k(.param .u64 p)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  {
    .global .u32 count;
    .const .u32 tab[2] = {7, 9};
    atom.global.add.u32 %r1, [count], 1;
    ld.const.u32 %r2, [tab+4];
    mov.u32 %r3, %tid.x;
    setp.ne.u32 %p1, %r3, 0;
    @%p1 bra $done;
    st.global.u32 [%rd1+4], %r2;
  }
  ld.global.u32 %r4, [count];
  st.global.u32 [%rd1+8], %r4;
$done:
  ret;
}
)";
  auto M = compile(Ptx);
  ASSERT_TRUE(M);
  uint32_t Buf[3] = {0, 0, 0};
  for (int Launch = 0; Launch < 2; ++Launch) {
    cpu::LaunchResult R = run(*M, "k", {{2}, {32}}, {Arg::ptr(Buf)});
    ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  }
  EXPECT_EQ(Buf[1], 9u);    // the function's .const table
  EXPECT_EQ(Buf[2], 1000u); // the module's count, untouched (the block's count shadowed it)
  // The block's counter outlives a launch: one thread a launch stores the value it found.
  auto M2 = compile(std::string(Ptx).replace(std::string(Ptx).find("st.global.u32 [%rd1+4], %r2;"),
                                             std::strlen("st.global.u32 [%rd1+4], %r2;"), "st.global.u32 [%rd1+4], %r1;"));
  ASSERT_TRUE(M2);
  uint32_t Buf2[3] = {0, 0, 0};
  for (int Launch = 0; Launch < 3; ++Launch)
    ASSERT_EQ(run(*M2, "k", {{1}, {1}}, {Arg::ptr(Buf2)}).Err, cpu::LaunchError::None);
  EXPECT_EQ(Buf2[1], 2u); // the third launch's thread saw the two increments before it
}

// 128-bit atomics (sm_90): atom.cas.b128 and atom.exch.b128 on .b128
// registers packed with mov.b128. Every thread swaps its own (tid, ~tid)
// pair into one 16-byte word and records the pair it replaced: the values
// recorded are a permutation of the initial word and all pairs but the last
// one written (the chain of exchanges), and no half of a pair is ever torn
// from its other half. Then a CAS that matches and one that does not.
TEST(CpuDevice, Atomics128Bit) {
  const char *Ptx = R"(
.version 8.3
.target sm_90
.address_size 64
.visible .entry k(.param .u64 word, .param .u64 seen)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<12>;
  .reg .b128 %q<4>;
  ld.param.u64 %rd1, [word];
  ld.param.u64 %rd2, [seen];
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd3, %r1;
  not.b64 %rd4, %rd3;
  mov.b128 %q1, {%rd3, %rd4};
  atom.global.exch.b128 %q2, [%rd1], %q1;
  mov.b128 {%rd5, %rd6}, %q2;
  mul.wide.u32 %rd7, %r1, 16;
  add.s64 %rd8, %rd2, %rd7;
  st.global.v2.u64 [%rd8], {%rd5, %rd6};
  ret;
}
.visible .entry cas(.param .u64 word, .param .u64 out)
{
  .reg .b64 %rd<12>;
  .reg .b128 %q<6>;
  ld.param.u64 %rd1, [word];
  ld.param.u64 %rd2, [out];
  mov.b64 %rd3, 5;
  mov.b64 %rd4, 6;
  mov.b128 %q1, {%rd3, %rd4};
  mov.b64 %rd5, 7;
  mov.b64 %rd6, 8;
  mov.b128 %q2, {%rd5, %rd6};
  atom.global.cas.b128 %q3, [%rd1], %q1, %q2;
  atom.global.cas.b128 %q4, [%rd1], %q1, %q1;
  mov.b128 {%rd7, %rd8}, %q3;
  mov.b128 {%rd9, %rd10}, %q4;
  st.global.v2.u64 [%rd2], {%rd7, %rd8};
  st.global.v2.u64 [%rd2+16], {%rd9, %rd10};
  ret;
}
)";
  auto M = compile(Ptx);
  ASSERT_TRUE(M);
  alignas(16) uint64_t Word[2] = {1000, ~uint64_t(1000)};
  std::vector<uint64_t> Seen(2 * 256, 0);
  cpu::LaunchResult R = run(*M, "k", {{1}, {256}}, {Arg::ptr(Word), Arg::ptr(Seen.data())});
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  std::vector<uint64_t> Firsts;
  for (int T = 0; T < 256; ++T) {
    EXPECT_EQ(Seen[2 * T + 1], ~Seen[2 * T]) << "torn pair seen by thread " << T;
    Firsts.push_back(Seen[2 * T]);
  }
  EXPECT_EQ(Word[1], ~Word[0]);
  Firsts.push_back(Word[0]); // the last pair written stays in the word
  std::sort(Firsts.begin(), Firsts.end());
  for (int T = 0; T < 256; ++T)
    EXPECT_EQ(Firsts[T], uint64_t(T));
  EXPECT_EQ(Firsts[256], 1000u);
  alignas(16) uint64_t W2[2] = {5, 6}, Out[4] = {0, 0, 0, 0};
  R = run(*M, "cas", {{1}, {1}}, {Arg::ptr(W2), Arg::ptr(Out)});
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  EXPECT_EQ(Out[0], 5u); // matched: the old value, and the word became (7, 8)
  EXPECT_EQ(Out[1], 6u);
  EXPECT_EQ(Out[2], 7u); // did not match: the word is returned unchanged
  EXPECT_EQ(Out[3], 8u);
  EXPECT_EQ(W2[0], 7u);
  EXPECT_EQ(W2[1], 8u);
}

// A register plus an immediate as a value operand (st.u32 [p], %r+1): the
// sum is stored (it lost its + imm before).
TEST(CpuDevice, RegisterPlusImmediateOperand) {
  const char *Ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b64 %rd<3>;
  .reg .u32 %r<3>;
  ld.param.u64 %rd1, [p];
  mov.u64 %rd2, 1000;
  st.global.u64 [%rd1], %rd2+24;
  mov.u32 %r1, 5;
  st.global.u32 [%rd1+8], %r1+-2;
  ret;
}
)";
  uint64_t Buf[2] = {0xdeadbeefdeadbeef, 0xdeadbeefdeadbeef};
  runOk(Ptx, "k", {{1}, {1}}, {Arg::ptr(Buf)});
  EXPECT_EQ(Buf[0], 1024u);
  EXPECT_EQ(uint32_t(Buf[1]), 3u);
}

// cp.async with its group instructions (commit_group, wait_group, wait_all take
// no or one operand; they failed to parse before).
TEST(CpuDevice, CpAsyncGroups) {
  const char *Ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b64 %rd<3>;
  .reg .u32 %r<3>;
  .shared .align 16 .b8 s[16];
  ld.param.u64 %rd1, [p];
  cp.async.ca.shared.global [s], [%rd1], 16;
  cp.async.commit_group;
  cp.async.wait_group 0;
  cp.async.wait_all;
  bar.sync 0;
  ld.shared.u32 %r1, [s+4];
  st.global.u32 [%rd1+16], %r1;
  ret;
}
)";
  uint32_t Buf[5] = {7, 8, 9, 10, 0xdeadbeef};
  runOk(Ptx, "k", {{1}, {1}}, {Arg::ptr(Buf)});
  EXPECT_EQ(Buf[4], 8u);
}
