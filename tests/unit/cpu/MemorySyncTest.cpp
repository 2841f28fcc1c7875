//===- MemorySyncTest.cpp - memory, atomics, barriers, warps, control flow -===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Whole kernels, each checked against a C++ computation of what CUDA
/// semantics require.
#include "ExecSupport.h"

#include <numeric>
#include <random>

using namespace zluda;
using namespace zluda::test;

namespace {

const std::string Head = ".version 9.0\n.target sm_90\n.address_size 64\n";

/// Kernel prologue: %g = global thread index, %t, %out = param "out".
const std::string Prologue = R"(
  .reg .pred %p<8>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<20>;
  .reg .f32 %f<8>;
  .reg .f64 %fd<4>;
  .reg .b32 %t, %g, %ln, %wp;
  .reg .b64 %out, %o;
  mov.u32 %t, %tid.x;
  mov.u32 %r0, %ctaid.x;
  mov.u32 %r1, %ntid.x;
  mad.lo.u32 %g, %r0, %r1, %t;
  mov.u32 %ln, %laneid;
  mov.u32 %wp, %warpid;
  ld.param.u64 %out, [out];
  mul.wide.u32 %rd0, %g, 4;
  add.u64 %o, %out, %rd0;
)";

std::vector<uint32_t> runOut(const std::string &Body, uint32_t Grid, uint32_t Block, size_t N,
                             const std::string &Extra = "", uint32_t DynShared = 0) {
  std::string Ptx = Head + Extra + ".visible .entry k(.param .u64 out)\n{\n" + Prologue + Body + "\n  ret;\n}\n";
  std::vector<uint32_t> Out(N, 0xdeadbeefu);
  auto M = compile(Ptx);
  EXPECT_TRUE(M) << Ptx;
  if (!M)
    return Out;
  ++kernelsRun();
  Launch L{{Grid}, {Block}, DynShared};
  auto R = run(*M, "k", L, {Arg::ptr(Out.data())});
  EXPECT_EQ(R.Err, cpu::LaunchError::None) << R.Message << "\n" << Body;
  return Out;
}

TEST(PtxMemory, VectorAndNarrowLoadsStores) {
  std::vector<uint32_t> In(64);
  for (uint32_t I = 0; I < 64; ++I)
    In[I] = I * 0x01010101u + 0x80;
  std::vector<uint32_t> Out(64 * 3, 0);
  std::string Ptx = Head + R"(.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .reg .b16 %h<2>;
  mov.u32 %r0, %tid.x;
  ld.param.u64 %rd0, [in];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r0, 16;
  add.u64 %rd3, %rd0, %rd2;
  ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd3];
  add.u64 %rd4, %rd1, %rd2;
  st.global.v4.u32 [%rd4], {%r4, %r3, %r2, %r1};
  mul.wide.u32 %rd5, %r0, 4;
  add.u64 %rd6, %rd0, %rd5;
  ld.global.s8 %r5, [%rd6];
  ld.global.u8 %r6, [%rd6+1];
  ld.global.nc.v2.u16 {%h0, %h1}, [%rd6];
  cvt.s32.s16 %r7, %h1;
  add.u64 %rd7, %rd1, 256;
  add.u64 %rd7, %rd7, %rd5;
  st.global.u32 [%rd7], %r5;
  st.global.u8 [%rd7+128], %r6;
  st.global.u8 [%rd7+129], 0x1ff;
  st.global.b16 [%rd7+130], %r7;
  ret;
}
)";
  // Threads 0..15 do the vector part over 64 words, and 16 byte lanes.
  auto M = compile(Ptx);
  ASSERT_TRUE(M);
  ++kernelsRun();
  auto R = run(*M, "k", {{1}, {16}}, {Arg::ptr(In.data()), Arg::ptr(Out.data())});
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  for (uint32_t T = 0; T < 16; ++T) {
    for (uint32_t J = 0; J < 4; ++J)
      EXPECT_EQ(Out[T * 4 + J], In[T * 4 + 3 - J]);
    uint8_t B0 = uint8_t(In[T]), B1 = uint8_t(In[T] >> 8);
    EXPECT_EQ(int32_t(Out[64 + T]), int32_t(int8_t(B0))) << T;
    uint32_t W = Out[64 + 32 + T];
    EXPECT_EQ(W & 0xff, B1);
    EXPECT_EQ((W >> 8) & 0xff, 0xffu);
    EXPECT_EQ(W >> 16, uint32_t(uint16_t(In[T] >> 16)));
  }
}

/// A strong vector access is one access, as on the GPU: CUB's decoupled
/// look-back publishes a tile's status and value in one st.relaxed.v2.u64 and
/// reads them in one ld.relaxed.v2.u64 (DeviceReduce::ReduceByKey gave wrong
/// runs when the halves were stored apart). Block 0 keeps writing {i, i} (and
/// {i, i, i, i}); block 1, on another worker, counts the reads whose halves
/// differ. With one worker the blocks run one after the other and nothing can
/// tear; with two or more a split access tears thousands of times.
TEST(PtxMemory, StrongVectorAccessesDoNotTear) {
  for (const char *Form : {"relaxed.gpu.global.v2.u64", "volatile.global.v4.u32", "relaxed.sys.v2.u32"}) {
    std::string F = Form;
    bool Four = F.find(".v4") != std::string::npos, Wide = F.find("u64") != std::string::npos;
    std::string R = Wide ? "%rd" : "%r";
    std::string Vals = Four ? "{" + R + "1, " + R + "1, " + R + "1, " + R + "1}" : "{" + R + "1, " + R + "1}";
    std::string Read = Four ? "{" + R + "2, " + R + "3, " + R + "4, " + R + "5}" : "{" + R + "2, " + R + "3}";
    std::string Ty = Wide ? ".u64" : ".u32";
    std::string Ptx = Head + R"(.visible .entry k(.param .u64 cell, .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>, %b, %n, %torn;
  .reg .b64 %rd<8>, %cell, %out;
  ld.param.u64 %cell, [cell];
  ld.param.u64 %out, [out];
  mov.u32 %b, %ctaid.x;
  mov.u32 %n, 0;
  mov.u32 %torn, 0;
  setp.ne.u32 %p0, %b, 0;
  @%p0 bra READ;
WRITE:
  add.u32 %n, %n, 1;
  cvt.u64.u32 %rd1, %n;
  mov.u32 %r1, %n;
  st.)" + F + " [%cell], " + Vals + R"(;
  setp.lt.u32 %p1, %n, 4000000;
  @%p1 bra WRITE;
  bra DONE;
READ:
  ld.)" + F + " " + Read + R"(, [%cell];
  setp.ne)" + Ty + " %p1, " + R + "2, " + R + R"(3;
  @%p1 add.u32 %torn, %torn, 1;
)" + (Four ? "  setp.ne" + Ty + " %p2, " + R + "2, " + R + "5;\n  @%p2 add.u32 %torn, %torn, 1;\n" : "") + R"(
  add.u32 %n, %n, 1;
  setp.lt.u32 %p1, %n, 1000000;
  @%p1 bra READ;
  st.global.u32 [%out], %torn;
DONE:
  ret;
}
)";
    alignas(32) uint64_t Cell[4] = {};
    uint32_t Torn = 0xdeadbeefu;
    auto M = compile(Ptx);
    ASSERT_TRUE(M) << Ptx;
    ++kernelsRun();
    auto Res = run(*M, "k", Launch{{2}, {1}}, {Arg::ptr(Cell), Arg::ptr(&Torn)});
    ASSERT_EQ(Res.Err, cpu::LaunchError::None) << Res.Message;
    EXPECT_EQ(Torn, 0u) << Form << " on " << cpu::Executor::get().workers() << " workers";
  }
}

TEST(PtxMemory, SharedMemoryAndGenericAddresses) {
  auto Out = runOut(R"(
  mov.u32 %r2, buf;
  shl.b32 %r3, %t, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4], %t;
  bar.sync 0;
  sub.u32 %r5, 127, %t;
  shl.b32 %r6, %r5, 2;
  add.u32 %r7, %r2, %r6;
  ld.shared.u32 %r8, [%r7];
  cvt.u64.u32 %rd3, %r7;
  cvta.shared.u64 %rd4, %rd3;
  ld.u32 %r9, [%rd4];
  isspacep.shared %p1, %rd4;
  isspacep.global %p2, %o;
  isspacep.global %p3, %rd4;
  cvta.to.shared.u64 %rd5, %rd4;
  cvt.u32.u64 %r10, %rd5;
  setp.eq.u32 %p4, %r10, %r7;
  and.pred %p1, %p1, %p2;
  and.pred %p1, %p1, !%p3;
  and.pred %p1, %p1, %p4;
  selp.u32 %r11, 1000, 0, %p1;
  add.u32 %r12, %r8, %r11;
  add.u32 %r12, %r12, %r9;
  st.global.u32 [%o], %r12;)", 2, 128, 256, ".shared .align 4 .b32 buf[128];\n");
  for (uint32_t G = 0; G < 256; ++G) {
    uint32_t T = G % 128;
    EXPECT_EQ(Out[G], 2 * (127 - T) + 1000) << G;
  }
}

TEST(PtxMemory, DynamicSharedMemoryAndLocalArrays) {
  auto Out = runOut(R"(
  .local .align 4 .b32 arr[16];
  mov.u32 %r2, dyn;
  shl.b32 %r3, %t, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4], %g;
  bar.sync 0;
  mov.u32 %r5, %dynamic_smem_size;
  mov.u32 %r6, 0;
LOOP:
  mul.lo.u32 %r7, %r6, %r6;
  add.u32 %r7, %r7, %t;
  mul.wide.u32 %rd5, %r6, 4;
  mov.u64 %rd6, arr;
  add.u64 %rd6, %rd6, %rd5;
  st.local.u32 [%rd6], %r7;
  add.u32 %r6, %r6, 1;
  setp.lt.u32 %p1, %r6, 16;
  @%p1 bra LOOP;
  ld.local.u32 %r8, [arr+20];
  xor.b32 %r9, %t, 1;
  shl.b32 %r10, %r9, 2;
  add.u32 %r11, %r2, %r10;
  ld.shared.u32 %r12, [%r11];
  add.u32 %r13, %r12, %r8;
  add.u32 %r13, %r13, %r5;
  st.global.u32 [%o], %r13;)", 3, 64, 192, ".extern .shared .align 16 .b8 dyn[];\n", 1024);
  for (uint32_t G = 0; G < 192; ++G) {
    uint32_t T = G % 64, B = G / 64;
    EXPECT_EQ(Out[G], (B * 64 + (T ^ 1)) + (25 + T) + 1024) << G;
  }
}

TEST(PtxAtomics, GlobalAndShared) {
  struct Cells {
    uint32_t Add = 0, Inc = 0, Dec = 0, And = ~0u, Or = 0, Xor = 0, Exch = 0, Cas = 0;
    int32_t Min = 1000, Max = -1000;
    uint64_t Add64 = 0;
    float AddF = 0;
    double AddD = 0;
    uint32_t SharedSum = 0, RedSum = 0;
    uint16_t Half = 0, Pad = 0;
  } C;
  std::string Ptx = Head + R"(.visible .entry k(.param .u64 cells)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<2>;
  .reg .f64 %fd<2>;
  .reg .b16 %h<2>;
  .shared .align 4 .u32 ssum;
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mad.lo.u32 %r3, %r1, %r2, %r0;
  ld.param.u64 %rd0, [cells];
  setp.eq.u32 %p0, %r0, 0;
  @%p0 st.shared.u32 [ssum], 0;
  bar.sync 0;
  atom.global.add.u32 %r4, [%rd0], 1;
  atom.global.inc.u32 %r5, [%rd0+4], 16;
  atom.global.dec.u32 %r6, [%rd0+8], 16;
  shl.b32 %r7, 1, %r3;
  not.b32 %r8, %r7;
  setp.lt.u32 %p1, %r3, 32;
  @%p1 atom.global.and.b32 %r9, [%rd0+12], %r8;
  @%p1 atom.global.or.b32 %r9, [%rd0+16], %r7;
  atom.global.xor.b32 %r9, [%rd0+20], %r3;
  atom.global.exch.b32 %r9, [%rd0+24], %r3;
  add.u32 %r10, %r3, 1;
  atom.global.cas.b32 %r9, [%rd0+28], 0, %r10;
  atom.global.min.s32 %r9, [%rd0+32], %r3;
  neg.s32 %r11, %r3;
  atom.global.max.s32 %r9, [%rd0+36], %r11;
  cvt.u64.u32 %rd1, %r3;
  atom.global.add.u64 %rd2, [%rd0+40], %rd1;
  atom.global.add.f32 %f0, [%rd0+48], 0f3F000000;
  atom.global.add.f64 %fd0, [%rd0+56], 0d3FD0000000000000;
  atom.shared.add.u32 %r12, [ssum], %r3;
  red.global.add.u32 [%rd0+68], 2;
  mov.b16 %h0, 0x3c00;
  atom.global.add.noftz.f16 %h1, [%rd0+72], %h0;
  bar.sync 0;
  @%p0 ld.shared.u32 %r13, [ssum];
  @%p0 red.global.add.u32 [%rd0+64], %r13;
  ret;
}
)";
  auto M = compile(Ptx);
  ASSERT_TRUE(M);
  ++kernelsRun();
  const uint32_t Blocks = 4, Threads = 64, N = Blocks * Threads;
  auto R = run(*M, "k", {{Blocks}, {Threads}}, {Arg::ptr(&C)});
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  uint32_t Inc = 0, Dec = 0, Xor = 0;
  for (uint32_t I = 0; I < N; ++I) {
    Inc = Inc >= 16 ? 0 : Inc + 1;
    Dec = (Dec == 0 || Dec > 16) ? 16 : Dec - 1;
    Xor ^= I;
  }
  EXPECT_EQ(C.Add, N);
  EXPECT_EQ(C.Inc, Inc);
  EXPECT_EQ(C.Dec, Dec);
  EXPECT_EQ(C.And, 0u);
  EXPECT_EQ(C.Or, ~0u);
  EXPECT_EQ(C.Xor, Xor);
  EXPECT_LT(C.Exch, N);
  EXPECT_GE(C.Cas, 1u);
  EXPECT_LE(C.Cas, N);
  EXPECT_EQ(C.Min, 0);
  EXPECT_EQ(C.Max, 0);
  EXPECT_EQ(C.Add64, uint64_t(N) * (N - 1) / 2);
  EXPECT_EQ(C.AddF, N * 0.5f);
  EXPECT_EQ(C.AddD, N * 0.25);
  EXPECT_EQ(C.SharedSum, uint32_t(N) * (N - 1) / 2);
  EXPECT_EQ(C.RedSum, 2 * N);
  EXPECT_EQ(C.Half, 0x5c00); // 256.0 in binary16
}

// Vector atomics (PTX 8.1): each element its own atomic at consecutive addresses: atom.v2.f32.add returns the
// old pair, red.v4.f32.add and red.v8.f16.add accumulate; 96 threads add to the same words.
TEST(PtxAtomics, VectorFloatAdds) {
  std::string Ptx = Head + R"(.visible .entry k(.param .u64 acc, .param .u64 olds)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  .reg .b16 %h<2>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [acc];
  ld.param.u64 %rd2, [olds];
  mov.u32 %r1, %tid.x;
  mov.f32 %f1, 0f3F800000;
  mov.f32 %f2, 0f40000000;
  atom.global.v2.f32.add {%f3, %f0}, [%rd1], {%f1, %f2};
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd4, %rd2, %rd3;
  st.global.v2.f32 [%rd4], {%f3, %f0};
  red.global.v4.f32.add [%rd1+8], {%f1, %f2, %f1, %f2};
  mov.b16 %h1, 0x3C00;
  red.global.v8.f16.add [%rd1+24], {%h1, %h1, %h1, %h1, %h1, %h1, %h1, %h1};
  ret;
}
)";
  float Acc[10] = {};
  float Olds[2 * 96];
  auto M = compile(Ptx);
  ASSERT_TRUE(M);
  auto R = run(*M, "k", {{1}, {96}}, {Arg::ptr(Acc), Arg::ptr(Olds)});
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  EXPECT_EQ(Acc[0], 96.0f);
  EXPECT_EQ(Acc[1], 192.0f);
  EXPECT_EQ(Acc[2], 96.0f);
  EXPECT_EQ(Acc[3], 192.0f);
  EXPECT_EQ(Acc[4], 96.0f);
  EXPECT_EQ(Acc[5], 192.0f);
  uint16_t Halves[8];
  std::memcpy(Halves, &Acc[6], 16);
  for (uint16_t H : Halves)
    EXPECT_EQ(H, 0x5600); // 96.0 in binary16
  // Each thread saw a distinct old pair: 0..95 and twice that.
  std::vector<float> Seen0, Seen1;
  for (int I = 0; I < 96; ++I) {
    Seen0.push_back(Olds[2 * I]);
    Seen1.push_back(Olds[2 * I + 1]);
  }
  std::sort(Seen0.begin(), Seen0.end());
  std::sort(Seen1.begin(), Seen1.end());
  for (int I = 0; I < 96; ++I) {
    EXPECT_EQ(Seen0[I], float(I));
    EXPECT_EQ(Seen1[I], float(2 * I));
  }
}

TEST(PtxSync, BarrierReductionsAndCounts) {
  auto Out = runOut(R"(
  and.b32 %r2, %t, 3;
  setp.eq.u32 %p1, %r2, 0;
  bar.red.popc.u32 %r3, 0, %p1;
  setp.lt.u32 %p2, %t, 1000;
  bar.red.and.pred %p3, 1, %p2;
  setp.eq.u32 %p4, %t, 77;
  bar.red.or.pred %p5, 2, %p4;
  bar.red.and.pred %p6, 3, %p4;
  selp.u32 %r4, 1000, 0, %p3;
  selp.u32 %r5, 10000, 0, %p5;
  selp.u32 %r6, 100000, 0, %p6;
  add.u32 %r7, %r3, %r4;
  add.u32 %r7, %r7, %r5;
  add.u32 %r7, %r7, %r6;
  st.global.u32 [%o], %r7;)", 2, 96, 192);
  for (uint32_t G = 0; G < 192; ++G)
    EXPECT_EQ(Out[G], 24u + 1000 + 10000) << G;
}

TEST(PtxSync, ProducerConsumerWithArriveAndCounts) {
  // Warps 0-1 produce and arrive on barrier 1 (128 threads expected);
  // warps 2-3 wait there and consume. Barrier 2 syncs only warps 0-1.
  auto Out = runOut(R"(
  setp.lt.u32 %p1, %t, 64;
  @!%p1 bra CONSUME;
  shl.b32 %r2, %t, 2;
  mov.u32 %r3, buf;
  add.u32 %r4, %r3, %r2;
  mul.lo.u32 %r5, %t, 3;
  st.shared.u32 [%r4], %r5;
  bar.sync 2, 64;
  xor.b32 %r6, %t, 63;
  shl.b32 %r7, %r6, 2;
  add.u32 %r8, %r3, %r7;
  ld.shared.u32 %r9, [%r8];
  bar.arrive 1, 128;
  st.global.u32 [%o], %r9;
  bra DONE;
CONSUME:
  bar.sync 1, 128;
  sub.u32 %r10, %t, 64;
  shl.b32 %r11, %r10, 2;
  mov.u32 %r12, buf;
  add.u32 %r13, %r12, %r11;
  ld.shared.u32 %r14, [%r13];
  add.u32 %r14, %r14, 1;
  st.global.u32 [%o], %r14;
DONE:)", 1, 128, 128, ".shared .align 4 .b32 buf[64];\n");
  for (uint32_t T = 0; T < 64; ++T)
    EXPECT_EQ(Out[T], (T ^ 63) * 3) << T;
  for (uint32_t T = 64; T < 128; ++T)
    EXPECT_EQ(Out[T], (T - 64) * 3 + 1) << T;
}

TEST(PtxSync, BarrierSyncWithCountsAndLdu) {
  // barrier.sync (the PTX 6 spelling, with and without .aligned) with a
  // count over the first two warps, then the whole block; ldu reads a value
  // every thread of the block shares.
  auto Out = runOut(R"(
  shl.b32 %r2, %t, 2;
  mov.u32 %r3, buf;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %t;
  setp.lt.u32 %p1, %t, 64;
  @!%p1 bra LATE;
  barrier.sync 3, 64;
  xor.b32 %r6, %t, 1;
  shl.b32 %r6, %r6, 2;
  add.u32 %r7, %r3, %r6;
  ld.shared.u32 %r8, [%r7];
LATE:
  barrier.sync.aligned 0;
  @!%p1 mov.u32 %r8, 1000;
  mov.u32 %r9, buf;
  cvta.shared.u64 %rd9, %r9;
  ldu.u32 %r10, [%rd9+4];
  add.u32 %r8, %r8, %r10;
  st.global.u32 [%o], %r8;)", 1, 96, 96, ".shared .align 4 .b32 buf[96];\n");
  for (uint32_t T = 0; T < 64; ++T)
    EXPECT_EQ(Out[T], (T ^ 1) + 1) << T;
  for (uint32_t T = 64; T < 96; ++T)
    EXPECT_EQ(Out[T], 1001u) << T;
}

TEST(PtxSync, EarlyExitDoesNotBlockBarriers) {
  auto Out = runOut(R"(
  setp.ge.u32 %p1, %t, 40;
  @%p1 bra END;
  mov.u32 %r2, cnt;
  atom.shared.add.u32 %r3, [%r2], 1;
  bar.sync 0;
  ld.shared.u32 %r4, [%r2];
  st.global.u32 [%o], %r4;
END:)", 1, 64, 64, ".shared .align 4 .u32 cnt;\n");
  for (uint32_t T = 0; T < 40; ++T)
    EXPECT_EQ(Out[T], 40u) << T;
  for (uint32_t T = 40; T < 64; ++T)
    EXPECT_EQ(Out[T], 0xdeadbeefu) << T;
}

struct ShflCase {
  const char *Mode;
  uint32_t B, C;
};

TEST(PtxWarp, ShuffleEveryModeAndClamp) {
  const ShflCase Cases[] = {{"up", 1, 0}, {"up", 5, 0}, {"down", 1, 0x1f}, {"down", 7, 0x1f}, {"bfly", 1, 0x1f},
                            {"bfly", 16, 0x1f}, {"idx", 3, 0x1f}, {"idx", 37, 0x1f}, {"down", 2, 0x181f},
                            {"up", 1, 0x1800}, {"idx", 5, 0x181f}, {"bfly", 4, 0x101f}};
  for (const ShflCase &S : Cases) {
    std::string Body = "  mul.lo.u32 %r2, %g, 7;\n  shfl.sync." + std::string(S.Mode) + ".b32 %r3|%p1, %r2, " +
                       std::to_string(S.B) + ", " + std::to_string(S.C) +
                       ", 0xffffffff;\n  selp.u32 %r4, 0x80000000, 0, %p1;\n  or.b32 %r5, %r3, %r4;\n  st.global.u32 [%o], %r5;";
    auto Out = runOut(Body, 1, 64, 64);
    for (uint32_t T = 0; T < 64; ++T) {
      int32_t L = T % 32, W = T / 32;
      int32_t Bv = S.B & 31, Cv = S.C & 31, Seg = (S.C >> 8) & 31;
      int32_t MaxL = (L & Seg) | (Cv & ~Seg), MinL = L & Seg, J;
      bool P;
      std::string M = S.Mode;
      if (M == "up") { J = L - Bv; P = J >= MaxL; }
      else if (M == "down") { J = L + Bv; P = J <= MaxL; }
      else if (M == "bfly") { J = L ^ Bv; P = J <= MaxL; }
      else { J = MinL | (Bv & ~Seg); P = J <= MaxL; }
      if (!P) J = L;
      uint32_t Want = uint32_t(W * 32 + J) * 7 | (P ? 0x80000000u : 0);
      EXPECT_EQ(Out[T], Want) << S.Mode << " b=" << S.B << " c=" << S.C << " t=" << T;
    }
  }
}

TEST(PtxWarp, VotesMatchReduxWithPartialMasks) {
  // Lanes with (lane % 3 == 0) vote true; only even lanes take part (mask 0x55555555).
  auto Out = runOut(R"(
  and.b32 %r2, %ln, 1;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra SKIP;
  rem.u32 %r3, %ln, 3;
  setp.eq.u32 %p2, %r3, 0;
  vote.sync.ballot.b32 %r4, %p2, 0x55555555;
  vote.sync.any.pred %p3, %p2, 0x55555555;
  vote.sync.all.pred %p4, %p2, 0x55555555;
  vote.sync.uni.pred %p5, %p2, 0x55555555;
  shr.u32 %r5, %ln, 2;
  match.any.sync.b32 %r6, %r5, 0x55555555;
  match.all.sync.b32 %r7|%p6, %wp, 0x55555555;
  redux.sync.add.u32 %r8, %ln, 0x55555555;
  redux.sync.max.u32 %r9, %ln, 0x55555555;
  redux.sync.min.s32 %r10, %g, 0x55555555;
  redux.sync.or.b32 %r11, %ln, 0x55555555;
  selp.u32 %r12, 1, 0, %p3;
  selp.u32 %r13, 2, 0, %p4;
  selp.u32 %r14, 4, 0, %p5;
  selp.u32 %r15, 8, 0, %p6;
  or.b32 %r16, %r12, %r13;
  or.b32 %r16, %r16, %r14;
  or.b32 %r16, %r16, %r15;
  xor.b32 %r17, %r4, %r6;
  xor.b32 %r17, %r17, %r7;
  mad.lo.u32 %r18, %r8, 1000, %r9;
  add.u32 %r18, %r18, %r10;
  add.u32 %r18, %r18, %r11;
  mad.lo.u32 %r19, %r16, 0x10000000, %r17;
  xor.b32 %r19, %r19, %r18;
  st.global.u32 [%o], %r19;
SKIP:)", 1, 64, 64);
  for (uint32_t T = 0; T < 64; T += 2) {
    uint32_t Mask = 0x55555555u, Ballot = 0, W = T / 32, Lane = T % 32;
    for (uint32_t L = 0; L < 32; L += 2)
      if (L % 3 == 0)
        Ballot |= 1u << L;
    uint32_t Match = 0;
    for (uint32_t L = 0; L < 32; L += 2)
      if (L / 4 == Lane / 4)
        Match |= 1u << L;
    uint32_t Flags = 1 | 0 | 0 | 8; // any, !all, !uni, match.all
    uint32_t Sum = 0, Max = 0, Or = 0;
    for (uint32_t L = 0; L < 32; L += 2) {
      Sum += L;
      Max = std::max(Max, L);
      Or |= L;
    }
    uint32_t Red = Sum * 1000 + Max + W * 32 + Or;
    uint32_t Want = (Flags * 0x10000000u + (Ballot ^ Match ^ Mask)) ^ Red;
    EXPECT_EQ(Out[T], Want) << T;
  }
}

TEST(PtxWarp, ActivemaskElectAndWarpSync) {
  auto Out = runOut(R"(
  activemask.b32 %r2;
  elect.sync %r3|%p1, 0xffffffff;
  selp.u32 %r4, 1, 0, %p1;
  bar.warp.sync 0xffffffff;
  mov.u32 %r5, %lanemask_lt;
  popc.b32 %r6, %r5;
  mov.u32 %r7, %nwarpid;
  mad.lo.u32 %r8, %r4, 100, %r3;
  add.u32 %r8, %r8, %r6;
  mad.lo.u32 %r8, %r7, 1000, %r8;
  xor.b32 %r8, %r8, %r2;
  st.global.u32 [%o], %r8;)", 1, 48, 48);
  for (uint32_t T = 0; T < 48; ++T) {
    uint32_t Lane = T % 32;
    uint32_t Active = T < 32 ? 0xffffffffu : 0xffffu; // the second warp has 16 lanes
    uint32_t Elected = (Lane == 0) ? 1 : 0;
    uint32_t Want = (2 * 1000 + Elected * 100 + 0 + Lane) ^ Active;
    EXPECT_EQ(Out[T], Want) << T;
  }
}

TEST(PtxControl, CallsRecursionIndirectAndBranchTables) {
  std::string Funcs = R"(
.func (.param .b32 r) fact(.param .b32 n)
{
  .reg .b32 %a<4>;
  .reg .pred %q;
  ld.param.b32 %a0, [n];
  setp.le.u32 %q, %a0, 1;
  @%q bra BASE;
  sub.u32 %a1, %a0, 1;
  {
    .param .b32 pn;
    .param .b32 pr;
    st.param.b32 [pn], %a1;
    call.uni (pr), fact, (pn);
    ld.param.b32 %a2, [pr];
  }
  mul.lo.u32 %a3, %a2, %a0;
  st.param.b32 [r], %a3;
  ret;
BASE:
  st.param.b32 [r], 1;
  ret;
}
.func (.reg .b32 x) twice(.reg .b32 y)
{
  add.u32 x, y, y;
  ret;
}
.func (.param .b32 r) plus100(.param .b32 v)
{
  .reg .b32 %z;
  ld.param.b32 %z, [v];
  add.u32 %z, %z, 100;
  st.param.b32 [r], %z;
  ret;
}
)";
  auto Out = runOut(R"(
  rem.u32 %r2, %g, 8;
  {
    .param .b32 pn;
    .param .b32 pr;
    st.param.b32 [pn], %r2;
    call.uni (pr), fact, (pn);
    ld.param.b32 %r3, [pr];
  }
  call.uni (%r4), twice, (%r3);
  mov.u64 %rd5, plus100;
  {
    .param .b32 pv;
    .param .b32 pr2;
    proto: .callprototype (.param .b32 _) _ (.param .b32 _);
    st.param.b32 [pv], %r4;
    call (pr2), %rd5, (pv), proto;
    ld.param.b32 %r5, [pr2];
  }
  and.b32 %r6, %g, 1;
  ts: .branchtargets EVEN, ODD;
  brx.idx %r6, ts;
EVEN:
  add.u32 %r5, %r5, 10000;
  bra.uni STORE;
ODD:
  add.u32 %r5, %r5, 20000;
STORE:
  st.global.u32 [%o], %r5;)", 1, 32, 32, Funcs);
  for (uint32_t T = 0; T < 32; ++T) {
    uint32_t F = 1;
    for (uint32_t I = 2; I <= T % 8; ++I)
      F *= I;
    EXPECT_EQ(Out[T], 2 * F + 100 + (T % 2 ? 20000 : 10000)) << T;
  }
}

TEST(PtxControl, SpecialRegistersIn3D) {
  std::vector<uint32_t> Out(2 * 3 * 2 * 4 * 2 * 3, 0);
  std::string Ptx = Head + R"(.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<24>;
  .reg .b64 %rd<4>;
  mov.u32 %r0, %tid.x;   mov.u32 %r1, %tid.y;   mov.u32 %r2, %tid.z;
  mov.u32 %r3, %ntid.x;  mov.u32 %r4, %ntid.y;  mov.u32 %r5, %ntid.z;
  mov.u32 %r6, %ctaid.x; mov.u32 %r7, %ctaid.y; mov.u32 %r8, %ctaid.z;
  mov.u32 %r9, %nctaid.x; mov.u32 %r10, %nctaid.y;
  mad.lo.u32 %r11, %r8, %r10, %r7;
  mad.lo.u32 %r11, %r11, %r9, %r6;
  mul.lo.u32 %r12, %r3, %r4;
  mul.lo.u32 %r12, %r12, %r5;
  mad.lo.u32 %r13, %r2, %r4, %r1;
  mad.lo.u32 %r13, %r13, %r3, %r0;
  mad.lo.u32 %r14, %r11, %r12, %r13;
  mov.u32 %r15, %warpid;
  mov.u32 %r16, %laneid;
  mad.lo.u32 %r17, %r15, 32, %r16;
  sub.u32 %r18, %r17, %r13;
  mad.lo.u32 %r19, %r11, 1000, %r13;
  add.u32 %r19, %r19, %r18;
  ld.param.u64 %rd0, [out];
  mul.wide.u32 %rd1, %r14, 4;
  add.u64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2], %r19;
  ret;
}
)";
  auto M = compile(Ptx);
  ASSERT_TRUE(M);
  ++kernelsRun();
  Launch L{{2, 3, 2}, {4, 2, 3}};
  auto R = run(*M, "k", L, {Arg::ptr(Out.data())});
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  for (uint32_t B = 0; B < 12; ++B)
    for (uint32_t T = 0; T < 24; ++T)
      EXPECT_EQ(Out[B * 24 + T], B * 1000 + T) << B << " " << T;
}

TEST(PtxControl, TrapAndDeadlockAreLaunchErrors) {
  auto M = compile(Head + ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r;\n  mov.u32 %r, %tid.x;\n"
                          "  .reg .pred %p;\n  setp.eq.u32 %p, %r, 5;\n  @%p trap;\n  ret;\n}\n");
  ASSERT_TRUE(M);
  ++kernelsRun();
  EXPECT_EQ(run(*M, "k", {{2}, {32}}, {Arg::ptr(nullptr)}).Err, cpu::LaunchError::Trap);
  // Half the block waits on a barrier the other half never reaches.
  auto D = compile(Head + ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r;\n  mov.u32 %r, %tid.x;\n"
                          "  .reg .pred %p;\n  setp.lt.u32 %p, %r, 32;\n  @%p bra W;\n  bar.sync 1, 64;\n  ret;\n"
                          "W:\n  bar.sync 2, 64;\n  ret;\n}\n");
  ASSERT_TRUE(D);
  ++kernelsRun();
  EXPECT_EQ(run(*D, "k", {{1}, {64}}, {Arg::ptr(nullptr)}).Err, cpu::LaunchError::Deadlock);
}

TEST(PtxControl, CooperativeGridBarrierThroughEnvRegs) {
  // The grid-wide barrier CUDA's cooperative groups emit: a counter reached
  // through %envreg1:%envreg2, spun on with ld.acquire.
  std::vector<uint32_t> Work(4, 0), Out(8 * 32, 0);
  std::string Ptx = Head + R"(.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  mov.u32 %r0, %envreg1;
  mov.u32 %r1, %envreg2;
  mov.b64 %rd0, {%r1, %r0};
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %nctaid.x;
  mad.lo.u32 %r5, %r3, 32, %r2;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r5, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  bar.sync 0;
  setp.eq.u32 %p0, %r2, 0;
  @!%p0 bra WAIT_DONE;
  atom.add.release.gpu.u32 %r6, [%rd0], 1;
SPIN:
  ld.acquire.gpu.u32 %r7, [%rd0];
  setp.lt.u32 %p1, %r7, %r4;
  @%p1 bra SPIN;
WAIT_DONE:
  bar.sync 0;
  mul.lo.u32 %r8, %r4, 32;
  sub.u32 %r9, %r8, 1;
  sub.u32 %r10, %r9, %r5;
  mul.wide.u32 %rd4, %r10, 4;
  add.u64 %rd5, %rd1, %rd4;
  ld.volatile.global.u32 %r11, [%rd5];
  add.u64 %rd6, %rd3, 1024;
  st.global.u32 [%rd6], %r11;
  ret;
}
)";
  auto M = compile(Ptx);
  ASSERT_TRUE(M);
  ++kernelsRun();
  Out.assign(8 * 32 + 256, 0);
  const cpu::CpuKernel *K = M->kernel("k");
  ASSERT_TRUE(K);
  std::vector<uint8_t> Buf(8);
  uint64_t P = reinterpret_cast<uint64_t>(Out.data());
  std::memcpy(Buf.data(), &P, 8);
  cpu::LaunchParams LP;
  LP.Fn = K->Fn;
  LP.NeedsSwitching = K->Info.NeedsThreadSwitching;
  LP.Grid = {8};
  LP.Block = {32};
  LP.Params = Buf.data();
  LP.Cooperative = true;
  uint64_t W = reinterpret_cast<uint64_t>(Work.data());
  LP.EnvRegs[1] = uint32_t(W >> 32);
  LP.EnvRegs[2] = uint32_t(W);
  auto R = cpu::Executor::get().launch(LP);
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  for (uint32_t I = 0; I < 256; ++I)
    EXPECT_EQ(Out[256 + I], 255 - I) << I;
}

TEST(PtxWarp, WmmaColumnMajorAndHalfAccumulators) {
  // D(f16) = A(col-major) * B(row-major) + C(f16), through every wmma form.
  std::vector<uint16_t> A(256), Bm(256), Cm(256), Dm(256, 0xffff);
  auto half = [](float F) { return toHalf(F, 0, false); };
  for (int I = 0; I < 256; ++I) {
    A[I] = half(float((I * 7) % 5) - 2.0f);
    Bm[I] = half(float((I * 3) % 4) * 0.5f);
    Cm[I] = half(float(I % 9) * 0.25f);
  }
  std::string Ptx = Head + R"(.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d)
{
  .reg .b32 %r<40>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd0, [a];
  ld.param.u64 %rd1, [b];
  ld.param.u64 %rd2, [c];
  ld.param.u64 %rd3, [d];
  wmma.load.a.sync.aligned.col.m16n16k16.global.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd0], 16;
  wmma.load.b.sync.aligned.row.m16n16k16.global.f16 {%r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15}, [%rd1], 16;
  wmma.load.c.sync.aligned.row.m16n16k16.global.f16 {%r16, %r17, %r18, %r19}, [%rd2], 16;
  wmma.mma.sync.aligned.col.row.m16n16k16.f16.f16 {%r20, %r21, %r22, %r23}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15}, {%r16, %r17, %r18, %r19};
  wmma.store.d.sync.aligned.row.m16n16k16.global.f16 [%rd3], {%r20, %r21, %r22, %r23}, 16;
  ret;
}
)";
  auto M = compile(Ptx);
  ASSERT_TRUE(M);
  ++kernelsRun();
  auto R = run(*M, "k", {{1}, {32}}, {Arg::ptr(A.data()), Arg::ptr(Bm.data()), Arg::ptr(Cm.data()), Arg::ptr(Dm.data())});
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  for (int I = 0; I < 16; ++I)
    for (int J = 0; J < 16; ++J) {
      double Acc = halfValue(Cm[I * 16 + J], false);
      for (int K = 0; K < 16; ++K)
        Acc += halfValue(A[K * 16 + I], false) * halfValue(Bm[K * 16 + J], false); // A is column-major
      EXPECT_EQ(Dm[I * 16 + J], toHalf(Acc, 0, false)) << I << "," << J; // small exact values
    }
}

/// mma.sync m16n8k16: each lane loads its fragments from row-major A (16x16),
/// column-major B (16x8, stored as B^T so a lane's pair is contiguous) and
/// row-major C/D (16x8) by the architectural layout (g = lane>>2, t = lane%4),
/// so a wrong layout in the compiler gives wrong elements of D. Inputs are
/// fresh random small multiples of 0.5, whose products and sums are exact.
void checkMmaM16n8k16(const std::string &DType, const std::string &InType, const std::string &CType) {
  bool Bf = InType == "bf16", DHalf = DType == "f16", CHalf = CType == "f16";
  std::random_device Rd;
  unsigned Seed = Rd();
  std::mt19937 Gen(Seed);
  std::uniform_int_distribution<int> Small(-6, 6);
  std::vector<uint16_t> A(256), Bt(128);
  std::vector<double> Av(256), Bv(128), Cv(128);
  for (int I = 0; I < 256; ++I)
    A[I] = toHalf(Av[I] = Small(Gen) * 0.5, 0, Bf);
  for (int I = 0; I < 128; ++I)
    Bt[I] = toHalf(Bv[I] = Small(Gen) * 0.5, 0, Bf); // Bt[n * 16 + k] = B[k][n]
  std::vector<float> Cf(128), Df(128, -12345.0f);
  std::vector<uint16_t> Ch(128), Dh(128, 0xffff);
  for (int I = 0; I < 128; ++I) {
    Cv[I] = Small(Gen) * 0.25;
    Cf[I] = float(Cv[I]);
    Ch[I] = toHalf(Cv[I], 0, false);
  }
  std::string CLoad = CHalf ? R"(
  mad.lo.u32 %r6, %r2, 16, 0;
  mad.lo.u32 %r6, %r3, 4, %r6;
  cvt.u64.u32 %rd6, %r6;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.b32 %r20, [%rd7];
  ld.global.b32 %r21, [%rd7+128];)"
                            : R"(
  mad.lo.u32 %r6, %r2, 32, 0;
  mad.lo.u32 %r6, %r3, 8, %r6;
  cvt.u64.u32 %rd6, %r6;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.f32 %f0, [%rd7];
  ld.global.f32 %f1, [%rd7+4];
  ld.global.f32 %f2, [%rd7+256];
  ld.global.f32 %f3, [%rd7+260];)";
  std::string COps = CHalf ? "{%r20, %r21}" : "{%f0, %f1, %f2, %f3}";
  std::string DOps = DHalf ? "{%r30, %r31}" : "{%f10, %f11, %f12, %f13}";
  std::string DStore = DHalf ? R"(
  mad.lo.u32 %r7, %r2, 16, 0;
  mad.lo.u32 %r7, %r3, 4, %r7;
  cvt.u64.u32 %rd8, %r7;
  add.s64 %rd9, %rd3, %rd8;
  st.global.b32 [%rd9], %r30;
  st.global.b32 [%rd9+128], %r31;)"
                             : R"(
  mad.lo.u32 %r7, %r2, 32, 0;
  mad.lo.u32 %r7, %r3, 8, %r7;
  cvt.u64.u32 %rd8, %r7;
  add.s64 %rd9, %rd3, %rd8;
  st.global.f32 [%rd9], %f10;
  st.global.f32 [%rd9+4], %f11;
  st.global.f32 [%rd9+256], %f12;
  st.global.f32 [%rd9+260], %f13;)";
  std::string Ptx = Head + R"(.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d)
{
  .reg .b32 %r<40>;
  .reg .f32 %f<20>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd0, [a];
  ld.param.u64 %rd1, [b];
  ld.param.u64 %rd2, [c];
  ld.param.u64 %rd3, [d];
  mov.u32 %r1, %laneid;
  shr.u32 %r2, %r1, 2;
  and.b32 %r3, %r1, 3;
  mad.lo.u32 %r5, %r2, 32, 0;
  mad.lo.u32 %r5, %r3, 4, %r5;
  cvt.u64.u32 %rd4, %r5;
  add.s64 %rd5, %rd0, %rd4;
  ld.global.b32 %r10, [%rd5];
  ld.global.b32 %r11, [%rd5+256];
  ld.global.b32 %r12, [%rd5+16];
  ld.global.b32 %r13, [%rd5+272];
  add.s64 %rd10, %rd1, %rd4;
  ld.global.b32 %r14, [%rd10];
  ld.global.b32 %r15, [%rd10+16];)" + CLoad + R"(
  mma.sync.aligned.m16n8k16.row.col.)" + DType + "." + InType + "." + InType + "." + CType + " " + DOps +
                    ", {%r10, %r11, %r12, %r13}, {%r14, %r15}, " + COps + ";" + DStore + R"(
  ret;
}
)";
  auto M = compile(Ptx);
  ASSERT_TRUE(M);
  ++kernelsRun();
  const void *CPtr = CHalf ? static_cast<const void *>(Ch.data()) : Cf.data();
  void *DPtr = DHalf ? static_cast<void *>(Dh.data()) : Df.data();
  auto R = run(*M, "k", {{1}, {32}}, {Arg::ptr(A.data()), Arg::ptr(Bt.data()), Arg::ptr(CPtr), Arg::ptr(DPtr)});
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  for (int I = 0; I < 16; ++I)
    for (int J = 0; J < 8; ++J) {
      double Acc = CHalf ? halfValue(Ch[I * 8 + J], false) : Cv[I * 8 + J];
      for (int K = 0; K < 16; ++K)
        Acc += Av[I * 16 + K] * Bv[J * 16 + K];
      if (DHalf)
        ASSERT_EQ(Dh[I * 8 + J], toHalf(Acc, 0, false)) << I << "," << J << " seed " << Seed;
      else
        ASSERT_EQ(Df[I * 8 + J], float(Acc)) << I << "," << J << " seed " << Seed;
    }
}

TEST(PtxWarp, MmaM16n8k16F32AccumulatorF16Inputs) { checkMmaM16n8k16("f32", "f16", "f32"); }
TEST(PtxWarp, MmaM16n8k16F32AccumulatorBf16Inputs) { checkMmaM16n8k16("f32", "bf16", "f32"); }
TEST(PtxWarp, MmaM16n8k16F16Accumulator) { checkMmaM16n8k16("f16", "f16", "f16"); }
/// f16 inputs with an f16 accumulator and an f32 result: NVIDIA's ptxas refuses
/// it (".dtype must be '.f16' when .ctype is '.f16'", tests/golden/gen.py), so
/// does our compiler, with the line.
TEST(PtxWarp, MmaM16n8k16MixedAccumulatorsAreInvalid) {
  std::string Ptx = Head + R"(.visible .entry k()
{
  .reg .b32 %a<4>;
  .reg .b32 %b<2>;
  .reg .b32 %c<2>;
  .reg .f32 %d<4>;
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1};
  ret;
}
)";
  cpu::CompileResult R = cpu::compilePtx(Ptx);
  EXPECT_FALSE(R.Mod);
  EXPECT_NE(R.Error.find("ptx:10:"), std::string::npos) << R.Error;
  EXPECT_NE(R.Error.find(".dtype equal to .ctype"), std::string::npos) << R.Error;
}

/// ldmatrix.x4 from shared memory with a padded row stride (24 bytes), each
/// lane giving the address of row lane%8 of matrix lane/8. With \p Whole, the
/// destination is a vector register named whole (.reg .v4 .b32 %v), as PTX allows.
void checkLdmatrix(bool Trans, bool Whole = false) {
  std::string Dst = Whole ? "%v" : "{%r10, %r11, %r12, %r13}";
  std::mt19937 Gen(std::random_device{}());
  std::vector<uint16_t> In(384); // [matrix 4][row 8][12 halves, 8 used]
  for (auto &V : In)
    V = uint16_t(Gen());
  std::vector<uint32_t> Out(128, 0xdeadbeef);
  std::string Ptx = Head + R"(.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<12>;
  .reg .v4 .b32 %v;
  .shared .align 16 .b8 sm[768];
  ld.param.u64 %rd0, [in];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %laneid;
  mov.u32 %r2, 0;
$copy:
  mad.lo.u32 %r3, %r1, 6, %r2;
  mul.wide.u32 %rd2, %r3, 4;
  add.s64 %rd3, %rd0, %rd2;
  ld.global.b32 %r4, [%rd3];
  mov.u64 %rd4, sm;
  add.s64 %rd5, %rd4, %rd2;
  st.shared.b32 [%rd5], %r4;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 6;
  @%p1 bra $copy;
  bar.sync 0;
  shr.u32 %r5, %r1, 3;
  and.b32 %r6, %r1, 7;
  mul.lo.u32 %r7, %r5, 192;
  mad.lo.u32 %r7, %r6, 24, %r7;
  cvt.u64.u32 %rd6, %r7;
  add.s64 %rd7, %rd4, %rd6;
  ldmatrix.sync.aligned.m8n8.x4)" + std::string(Trans ? ".trans" : "") + R"(.shared.b16 )" + Dst + R"(, [%rd7];
  mul.wide.u32 %rd8, %r1, 16;
  add.s64 %rd9, %rd1, %rd8;
  st.global.v4.b32 [%rd9], )" + Dst + R"(;
  ret;
}
)";
  auto M = compile(Ptx);
  ASSERT_TRUE(M);
  ++kernelsRun();
  auto R = run(*M, "k", {{1}, {32}}, {Arg::ptr(In.data()), Arg::ptr(Out.data())});
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  auto at = [&](unsigned Mat, unsigned Row, unsigned Col) { return uint32_t(In[Mat * 96 + Row * 12 + Col]); };
  for (unsigned L = 0; L < 32; ++L)
    for (unsigned Mat = 0; Mat < 4; ++Mat) {
      unsigned G = L >> 2, T = L & 3;
      uint32_t Want = Trans ? at(Mat, 2 * T, G) | at(Mat, 2 * T + 1, G) << 16
                            : at(Mat, G, 2 * T) | at(Mat, G, 2 * T + 1) << 16;
      ASSERT_EQ(Out[L * 4 + Mat], Want) << "lane " << L << " matrix " << Mat;
    }
}

TEST(PtxWarp, LdmatrixX4) { checkLdmatrix(false); }
TEST(PtxWarp, LdmatrixX4Transposed) { checkLdmatrix(true); }
TEST(PtxWarp, LdmatrixIntoAWholeVectorRegister) { checkLdmatrix(false, true); }

} // namespace
