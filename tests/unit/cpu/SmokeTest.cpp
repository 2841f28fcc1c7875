//===- SmokeTest.cpp - end to end through the CPU device -------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "Harness.h"

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

TEST(CpuDevice, IllegalAddressIsReportedNotFatal) {
  auto M = compile(VecAdd);
  ASSERT_TRUE(M);
  std::vector<float> C(10);
  auto R = run(*M, "add", {{1}, {32}}, {Arg::ptr(reinterpret_cast<void *>(16)), Arg::ptr(reinterpret_cast<void *>(16)),
                                        Arg::ptr(C.data()), Arg::of<uint32_t>(10)});
  EXPECT_EQ(R.Err, cpu::LaunchError::IllegalAddress) << R.Message;
}

} // namespace
