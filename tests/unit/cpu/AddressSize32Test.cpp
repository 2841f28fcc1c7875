//===- AddressSize32Test.cpp - .address_size 32 modules on the CPU device --===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A 32-bit module keeps every address in a 32-bit register: device
/// memory, module variables, shared memory (also through generic pointers),
/// local arrays (through generic pointers) and device-function parameters
/// must all work when their addresses are truncated to 32 bits, so the CPU
/// device places them below 4 GiB (cpu/LowMemory.h).
#include "Harness.h"

#include "cpu/LowMemory.h"

#include <random>

using namespace zluda;
using namespace zluda::test;

namespace {

const char *Mixed32 = R"(
.version 7.0
.target sm_75
.address_size 32

.global .align 4 .u32 bias = 5;
.global .align 4 .u32 table[4] = {10, 20, 30, 40};

.func (.param .u32 r) twice(.param .u32 x)
{
  .reg .b32 %a;
  ld.param.u32 %a, [x];
  shl.b32 %a, %a, 1;
  st.param.u32 [r], %a;
  ret;
}

.visible .entry k32(.param .u32 in, .param .u32 out, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<24>;
  .shared .align 4 .b32 sh[128];
  .local .align 4 .b32 loc[4];
  ld.param.u32 %r1, [in];
  ld.param.u32 %r2, [out];
  ld.param.u32 %r3, [n];
  mov.u32 %r4, %tid.x;
  mov.u32 %r5, %ctaid.x;
  mov.u32 %r6, %ntid.x;
  mad.lo.s32 %r7, %r5, %r6, %r4;
  // Shared memory through a generic pointer, across threads (a barrier).
  mov.u32 %r12, sh;
  shl.b32 %r13, %r4, 2;
  add.u32 %r12, %r12, %r13;
  cvta.shared.u32 %r14, %r12;
  st.u32 [%r14], %r7;
  bar.sync 0;
  add.u32 %r20, %r4, 1;
  rem.u32 %r20, %r20, %r6;
  shl.b32 %r20, %r20, 2;
  mov.u32 %r21, sh;
  add.u32 %r21, %r21, %r20;
  ld.shared.u32 %r22, [%r21];
  setp.ge.u32 %p, %r7, %r3;
  @%p bra DONE;
  // Global memory through 32-bit pointers.
  cvta.to.global.u32 %r8, %r1;
  shl.b32 %r9, %r7, 2;
  add.u32 %r10, %r8, %r9;
  ld.global.u32 %r11, [%r10];
  // A local array through a generic pointer.
  mov.u32 %r15, loc;
  cvta.local.u32 %r16, %r15;
  st.u32 [%r16+4], %r11;
  ld.local.u32 %r11, [loc+4];
  // Module variables through their 32-bit addresses.
  mov.u32 %r17, bias;
  ld.u32 %r18, [%r17];
  add.u32 %r11, %r11, %r18;
  and.b32 %r19, %r7, 3;
  shl.b32 %r19, %r19, 2;
  mov.u32 %r17, table;
  add.u32 %r17, %r17, %r19;
  ld.global.u32 %r18, [%r17];
  add.u32 %r11, %r11, %r18;
  // A device function with .param passing.
  {
    .param .u32 a;
    st.param.u32 [a], %r11;
    .param .u32 b;
    call.uni (b), twice, (a);
    ld.param.u32 %r11, [b];
  }
  add.u32 %r11, %r11, %r22;
  cvta.to.global.u32 %r8, %r2;
  add.u32 %r10, %r8, %r9;
  st.global.u32 [%r10], %r11;
DONE:
  ret;
}
)";

uint32_t low32(void *P) {
  uintptr_t A = reinterpret_cast<uintptr_t>(P);
  EXPECT_LT(A, uintptr_t(1) << 32);
  return static_cast<uint32_t>(A);
}

TEST(AddressSize32, EveryStateSpaceWorksThroughThirtyTwoBitAddresses) {
  ASSERT_TRUE(cpu::LowMemory::get().available());
  auto M = compile(Mixed32);
  ASSERT_TRUE(M);
  EXPECT_TRUE(M->addressSize32());
  const uint32_t N = 1000, Threads = 128, Blocks = (N + Threads - 1) / Threads;
  auto *In = static_cast<uint32_t *>(cpu::LowMemory::get().allocate(N * 4));
  auto *Out = static_cast<uint32_t *>(cpu::LowMemory::get().allocate(N * 4));
  ASSERT_TRUE(In && Out);
  std::mt19937 Rng(std::random_device{}());
  for (uint32_t I = 0; I < N; ++I) {
    In[I] = Rng() % 100000;
    Out[I] = 0xdeadbeef;
  }
  cpu::LaunchResult R = run(*M, "k32", {{Blocks}, {Threads}}, {Arg::of(low32(In)), Arg::of(low32(Out)), Arg::of(N)});
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  EXPECT_EQ(LastStrategy(), "fibers") << "32-bit kernels run on stacks below 4 GiB";
  const uint32_t Table[4] = {10, 20, 30, 40};
  for (uint32_t I = 0; I < N; ++I) {
    uint32_t Block = I / Threads, T = I % Threads;
    uint32_t Neighbour = Block * Threads + (T + 1) % Threads;
    ASSERT_EQ(Out[I], 2 * (In[I] + 5 + Table[I & 3]) + Neighbour) << I;
  }
  cpu::LowMemory::get().release(In);
  cpu::LowMemory::get().release(Out);
}

TEST(AddressSize32, TheLowRegionAllocatesAlignsAndReuses) {
  cpu::LowMemory &L = cpu::LowMemory::get();
  ASSERT_TRUE(L.available());
  void *A = L.allocate(1000), *B = L.allocate(5000, 4096), *C = L.allocate(64);
  ASSERT_TRUE(A && B && C);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(A) % 256, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(B) % 4096, 0u);
  for (void *P : {A, B, C}) {
    EXPECT_TRUE(L.owns(P));
    EXPECT_GE(reinterpret_cast<uintptr_t>(P), cpu::LowMemory::RegionStart);
    EXPECT_LT(reinterpret_cast<uintptr_t>(P), cpu::LowMemory::RegionEnd);
  }
  std::memset(B, 0x5a, 5000);
  L.release(B);
  void *B2 = L.allocate(5000, 4096);
  EXPECT_EQ(B2, B) << "a freed range is reused";
  L.release(A);
  L.release(B2);
  L.release(C);
  EXPECT_EQ(L.allocate(size_t(3) << 30), nullptr) << "more than the region";
  int Stack = 0;
  EXPECT_FALSE(L.owns(&Stack));
}

// In a 64-bit module a thread's .local variables live in its host stack frame,
// so a 32-bit address of one could not reach it again: the module is refused
// at load with the line, instead of faulting when the address is used (the
// SASS differential fuzzer's first kernel with a local array did).
TEST(AddressSize32, ThirtyTwoBitLocalAddressInSixtyFourBitModuleIsRefused) {
  const char *Ptx = R"(
.version 8.0
.target sm_86
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  .local .align 4 .b8 dep[64];
  ld.param.u64 %rd0, [out];
  mov.u32 %r0, dep;
  ld.local.u32 %r1, [%r0];
  st.global.u32 [%rd0], %r1;
  ret;
}
)";
  std::string Why = refusals(Ptx);
  EXPECT_NE(Why.find("ptx:11:"), std::string::npos) << Why; // the mov
  EXPECT_NE(Why.find("only 64-bit .local addresses"), std::string::npos) << Why;
}

} // namespace
