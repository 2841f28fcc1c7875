//===- LiftTest.cpp - SASS lifted into PTX ----------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// Cubins from this machine's ptxas lifted and parsed back by our PTX front
/// end; an instruction the front end cannot lift is refused by name and
/// offset. What the lifted kernels compute is checked against the H200's
/// outputs by the golden suite (golden.sass_sm86) and by programs in
/// tests/cuda run from their machine code.
#include "sass/Cubin.h"
#include "sass/Decode.h"
#include "sass/Lift.h"

#include "ptx/Parser.h"

#include "SassTestUtil.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

using namespace zluda;

namespace {

using test::ptxasCubin;

/// The offset of the first sm_86 instruction of \p F with opcode \p O (0: none; the first instruction never is).
uint32_t firstOf(const sass::Function &F, sass::Op O) {
  for (uint32_t Off = 0; Off + 16 <= F.Code.size(); Off += 16)
    if (sass::decode(86, F.Code, Off).O == O)
      return Off;
  return 0;
}

const char *VectorAdd = R"(.version 8.0
.target sm_XX
.address_size 64
.visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<10>;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  ld.param.u32 %r5, [n];
  setp.ge.s32 %p1, %r4, %r5;
  @%p1 bra DONE;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  cvta.to.global.u64 %rd4, %rd1;
  cvta.to.global.u64 %rd5, %rd2;
  cvta.to.global.u64 %rd6, %rd3;
  mul.wide.s32 %rd7, %r4, 4;
  add.s64 %rd8, %rd4, %rd7;
  ld.global.f32 %f1, [%rd8];
  add.s64 %rd9, %rd5, %rd7;
  ld.global.f32 %f2, [%rd9];
  add.f32 %f3, %f1, %f2;
  add.s64 %rd8, %rd6, %rd7;
  st.global.f32 [%rd8], %f3;
DONE:
  ret;
}
)";

class LiftArch : public ::testing::TestWithParam<const char *> {};

TEST_P(LiftArch, VectorAddLiftsAndParses) {
  std::string C = ptxasCubin(VectorAdd, GetParam());
  if (C.empty())
    GTEST_SKIP() << "no ptxas";
  std::string Ptx, Err;
  ASSERT_TRUE(sass::liftCubin(C, Ptx, Err)) << Err;
  ptx::ParseResult R = ptx::parse(Ptx);
  ASSERT_TRUE(R.ok()) << R.Error.format("lifted") << "\n" << Ptx;
  // The entry keeps the cubin's parameter layout (offsets 0, 8, 16, 24):
  // each parameter aligned as its offset allows, so PTX's layout is the same.
  EXPECT_NE(Ptx.find(".visible .entry vadd("), std::string::npos);
  EXPECT_NE(Ptx.find(".param .align 16 .b8 __p0[8]"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find(".param .align 8 .b8 __p1[8]"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find(".param .align 16 .b8 __p2[8]"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find(".param .align 8 .b8 __p3[4]"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("ld.global.b32"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("st.global.b32"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("add.rn.f32"), std::string::npos) << Ptx;
}

INSTANTIATE_TEST_SUITE_P(Sass, LiftArch, ::testing::Values("80", "86", "89", "90"));

TEST(Lift, UnliftableInstructionIsNamedWithItsOffset) {
  // A formatted surface store (SUST.P), which the front end does not lift yet.
  const char *Sleep = R"(.version 8.0
.target sm_XX
.address_size 64
.visible .entry ksleep(.param .u64 p)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  ld.global.u64 %rd2, [%rd1];
  ld.global.u32 %r1, [%rd1+8];
  sust.p.1d.b32.trap [%rd2, {%r1}], {%r1, %r1, %r1, %r1};
  st.global.u32 [%rd1+12], %r1;
  ret;
}
)";
  std::string C = ptxasCubin(Sleep, "86");
  if (C.empty())
    GTEST_SKIP() << "no ptxas";
  std::string Ptx, Err;
  EXPECT_FALSE(sass::liftCubin(C, Ptx, Err));
  EXPECT_NE(Err.find("cannot lift ksleep+0x"), std::string::npos) << Err;
  EXPECT_NE(Err.find("opcode 0x"), std::string::npos) << Err;
  EXPECT_TRUE(Ptx.empty());
}

TEST(Lift, CubinWithoutKernelsIsAModuleOfItsVariables) {
  // XLA (JAX) loads cubins that hold no kernel at all; NVIDIA's driver loads them.
  const char *Vars = R"(.version 8.0
.target sm_XX
.address_size 64
.visible .global .align 4 .u32 counter = 7;
)";
  std::string C = ptxasCubin(Vars, "86");
  if (C.empty())
    GTEST_SKIP() << "no ptxas";
  sass::LiftedModule M;
  std::string Err;
  ASSERT_TRUE(sass::liftCubin(C, M, Err)) << Err;
  EXPECT_EQ(M.Ptx.find(".entry"), std::string::npos) << M.Ptx;
  EXPECT_TRUE(M.Refused.empty());
  // The variable keeps its name (cuModuleGetGlobal) over the module's data, initialized as the cubin says.
  ASSERT_EQ(M.Symbols.size(), 1u);
  EXPECT_EQ(M.Symbols[0].Name, "counter");
  EXPECT_EQ(M.Symbols[0].Size, 4u);
  EXPECT_NE(M.Ptx.find("= {7,0,0,0}"), std::string::npos) << M.Ptx;
}

TEST(Lift, UniformInstructionsAreGuardedByUniformPredicates) {
  // ptxas guards the uniform datapath's instructions with uniform predicates
  // (@!UP0 UIADD3, @UP5 ULEA in PyTorch's kernels): the guard's field names
  // UPn there, not Pn. A ULDC of the kernel's own code gets the guard !UP0.
  const char *K = R"(.version 8.0
.target sm_XX
.address_size 64
.visible .entry kguard(.param .u64 p, .param .u32 n)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  st.global.u32 [%rd1], %r1;
  ret;
}
)";
  std::string C = ptxasCubin(K, "86");
  if (C.empty())
    GTEST_SKIP() << "no ptxas";
  sass::Cubin Cu;
  std::string Err;
  ASSERT_TRUE(sass::parseCubin(C, Cu, Err)) << Err;
  const sass::Function *F = Cu.find("kguard");
  ASSERT_NE(F, nullptr);
  uint32_t At = firstOf(*F, sass::Op::ULDC);
  ASSERT_NE(At, 0u) << "no ULDC in the kernel";
  uint8_t &GuardByte = reinterpret_cast<uint8_t &>(C[F->TextOffset + At + 1]); // bits 8-15: the guard at 12-15
  GuardByte = static_cast<uint8_t>((GuardByte & 0x0f) | 0x80);                 // !UP0
  std::string Ptx;
  ASSERT_TRUE(sass::liftCubin(C, Ptx, Err)) << Err;
  EXPECT_NE(Ptx.find("@%up0 bra $S_"), std::string::npos) << Ptx;
  EXPECT_EQ(Ptx.find("@%p0 bra $S_"), std::string::npos) << Ptx;
}

TEST(Lift, GuardedCodeAfterWarpsyncMeetsOnlyItsOwnLanes) {
  // A WARPSYNC's mask serves the collectives that every lane of it runs. A
  // guarded shared store and load after it run on the lanes whose guard
  // holds, but every lane executes their slots: the lanes meet before the
  // load's guard. A meeting over the WARPSYNC's mask inside the guard
  // waited for lanes that had skipped it to a block barrier (PyTorch's topk
  // hung). ptxas drops a WARPSYNC it finds redundant: one is patched in
  // before the guarded code.
  const char *K = R"(.version 8.0
.target sm_XX
.address_size 64
.visible .entry kws(.param .u64 p, .param .u32 n)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  .reg .pred %q<3>;
  .shared .align 4 .b32 s[64];
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r9, [n];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
LOOP:
  add.u32 %r2, %r2, 1;
  mul.lo.u32 %r3, %r2, %r1;
  setp.lt.u32 %q1, %r3, %r9;
  @%q1 bra LOOP;
  and.b32 %r4, %r1, 3;
  setp.eq.u32 %q2, %r4, 0;
  @%q2 bra SKIP;
  mov.u32 %r5, s;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r5, %r6;
  st.shared.u32 [%r7], %r2;
  xor.b32 %r8, %r6, 4;
  add.u32 %r10, %r5, %r8;
  ld.shared.u32 %r11, [%r10];
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r11;
SKIP:
  bar.sync 0;
  ret;
}
)";
  std::string C = ptxasCubin(K, "86");
  if (C.empty())
    GTEST_SKIP() << "no ptxas";
  sass::Cubin Cu;
  std::string Err;
  ASSERT_TRUE(sass::parseCubin(C, Cu, Err)) << Err;
  const sass::Function *F = Cu.find("kws");
  ASSERT_NE(F, nullptr);
  // The first instruction after the loop's BSYNC becomes WARPSYNC 0xffffffff
  // (as nvdisasm lists it in PyTorch's bitonic sort); ptxas guards the rest.
  uint32_t At = firstOf(*F, sass::Op::BSYNC) + 16;
  ASSERT_NE(At, 16u);
  const uint64_t Lo = 0xffffffff00007948ull, Hi = 0x000fe20003800000ull;
  bool GuardedLoadAfter = false;
  for (uint32_t Off = At + 16; Off + 16 <= F->Code.size(); Off += 16) {
    sass::Inst I = sass::decode(86, F->Code, Off);
    GuardedLoadAfter |= I.O == sass::Op::LDS && !I.Guard.isTrue();
  }
  ASSERT_TRUE(GuardedLoadAfter) << "ptxas no longer guards the shared load";
  std::memcpy(&C[F->TextOffset + At], &Lo, 8);
  std::memcpy(&C[F->TextOffset + At + 8], &Hi, 8);
  std::string Ptx;
  ASSERT_TRUE(sass::liftCubin(C, Ptx, Err)) << Err;
  EXPECT_NE(Ptx.find("mov.b32 %wsm"), std::string::npos) << Ptx; // the WARPSYNC was lifted
  // The lanes meet before a guard's skip, where every lane of the mask
  // passes (in lockstep each executes the slot), never inside it.
  size_t Meetings = 0;
  for (size_t At = Ptx.find("bar.warp.sync"); At != std::string::npos; At = Ptx.find("bar.warp.sync", At + 1))
    ++Meetings;
  EXPECT_GT(Meetings, 0u) << Ptx; // a store, then a load another lane's store may reach
  for (size_t At = Ptx.find(" bra $S_"); At != std::string::npos; At = Ptx.find(" bra $S_", At + 1)) {
    std::string Label = Ptx.substr(At + 5, Ptx.find(';', At) - At - 5);
    size_t End = Ptx.find(Label + ":", At);
    ASSERT_NE(End, std::string::npos) << Label;
    std::string Skipped = Ptx.substr(At, End - At);
    EXPECT_EQ(Skipped.find("bar.warp.sync"), std::string::npos) << Skipped;
    EXPECT_EQ(Skipped.find("activemask"), std::string::npos) << Skipped;
  }
}

TEST(Lift, LanesMeetOnlyWhereTheyCanTell) {
  // A divergent loop (ptxas wraps it in BSSY/BSYNC) in a kernel with no
  // shared memory and no collective: however the lanes interleave, the
  // result is the same, so the lift makes them meet nowhere (meetings cost
  // the CPU device its vector path: an MRG32k3a kernel ran 20x slower).
  const char *K = R"(.version 8.0
.target sm_XX
.address_size 64
.visible .entry kdiv(.param .u64 p, .param .u32 n)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  .reg .pred %q<2>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r5, [n];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
LOOP:
  add.u32 %r2, %r2, 1;
  mul.lo.u32 %r3, %r2, %r1;
  setp.lt.u32 %q1, %r3, %r5;
  @%q1 bra LOOP;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";
  std::string C = ptxasCubin(K, "86");
  if (C.empty())
    GTEST_SKIP() << "no ptxas";
  sass::Cubin Cu;
  std::string Err;
  ASSERT_TRUE(sass::parseCubin(C, Cu, Err)) << Err;
  ASSERT_NE(firstOf(*Cu.find("kdiv"), sass::Op::BSSY), 0u) << "ptxas no longer makes a convergence region here";
  std::string Ptx;
  ASSERT_TRUE(sass::liftCubin(C, Ptx, Err)) << Err;
  EXPECT_EQ(Ptx.find("activemask"), std::string::npos) << Ptx;
  EXPECT_EQ(Ptx.find("bar.warp.sync"), std::string::npos) << Ptx;
}

TEST(Lift, LoopEnteredAfterABarrierNeedsNoMeeting) {
  // A tiled loop: each trip stores its tile, waits at __syncthreads, reads a
  // neighbour's element and waits again. Every path into the loop's head
  // comes from a barrier (or the start), so the store there needs no lane
  // meeting; the state at a label is what the paths into it did.
  const char *K = R"(.version 8.0
.target sm_XX
.address_size 64
.visible .entry ktile(.param .u64 p, .param .u32 n)
{
  .reg .b32 %r<12>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  .reg .pred %q<2>;
  .shared .align 4 .b32 s[256];
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r9, [n];
  mov.u32 %r1, %tid.x;
  mov.u32 %r5, s;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r5, %r6;
  xor.b32 %r8, %r6, 4;
  add.u32 %r8, %r5, %r8;
  mov.u32 %r2, 0;
  mov.f32 %f1, 0f00000000;
LOOP:
  cvt.rn.f32.u32 %f2, %r2;
  st.shared.f32 [%r7], %f2;
  bar.sync 0;
  ld.shared.f32 %f3, [%r8];
  add.f32 %f1, %f1, %f3;
  bar.sync 0;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %q1, %r2, %r9;
  @%q1 bra LOOP;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f1;
  ret;
}
)";
  std::string C = ptxasCubin(K, "86");
  if (C.empty())
    GTEST_SKIP() << "no ptxas";
  std::string Ptx, Err;
  ASSERT_TRUE(sass::liftCubin(C, Ptx, Err)) << Err;
  ASSERT_NE(Ptx.find("st.shared"), std::string::npos) << Ptx;
  EXPECT_EQ(Ptx.find("bar.warp.sync"), std::string::npos) << Ptx;
}

TEST(Decode, FieldsOfKnownEncodings) {
  // MOV R1, c[0x0][0x28] and ISETP.GE.AND P0, PT, R6, c[0x0][0x178], PT as
  // ptxas writes them for sm_86 (low word, high word).
  auto at = [](uint64_t Lo, uint64_t Hi) {
    std::string Code(16, '\0');
    std::memcpy(Code.data(), &Lo, 8);
    std::memcpy(Code.data() + 8, &Hi, 8);
    return sass::decode(86, Code, 0);
  };
  sass::Inst Mov = at(0x00000a0000017a02ull, 0x000fe40000000f00ull);
  EXPECT_EQ(Mov.O, sass::Op::MOV);
  EXPECT_EQ(Mov.Rd, 1u);
  EXPECT_EQ(Mov.B.K, sass::Src::KConst);
  EXPECT_EQ(Mov.B.Offset, 0x28u);
  EXPECT_TRUE(Mov.Guard.isTrue());
  sass::Inst Cmp = at(0x00005e0006007a0cull, 0x000fda0003f06270ull);
  EXPECT_EQ(Cmp.O, sass::Op::ISETP);
  EXPECT_EQ(Cmp.A.Reg, 6u);
  EXPECT_EQ(Cmp.B.Offset, 0x178u);
  EXPECT_EQ(Cmp.Sub, 6u); // GE
  EXPECT_EQ(Cmp.PDst0, 0u);
  EXPECT_EQ(Cmp.PDst1, sass::PT);
  EXPECT_TRUE(Cmp.Signed);
  // @P0 EXIT; BRA to itself.
  sass::Inst Exit = at(0x000000000000094dull, 0x000fea0003800000ull);
  EXPECT_EQ(Exit.O, sass::Op::EXIT);
  EXPECT_EQ(Exit.Guard.P, 0u);
  EXPECT_FALSE(Exit.Guard.Not);
  EXPECT_TRUE(Exit.PSrc0.isTrue());
  // @P0 EXIT P1 (PyTorch's reductions): the thread exits only where P1 holds
  // too; taken for a plain @P0 EXIT, every thread of the block left early.
  sass::Inst ExitP = at(0x000000000000094dull, 0x000fea0000800000ull);
  EXPECT_EQ(ExitP.O, sass::Op::EXIT);
  EXPECT_EQ(ExitP.PSrc0.P, 1u);
  EXPECT_FALSE(ExitP.PSrc0.Not);
  sass::Inst Bra = at(0xfffffff000007947ull, 0x000fc0000383ffffull);
  EXPECT_EQ(Bra.O, sass::Op::BRA);
  EXPECT_EQ(Bra.Target, 0u);
  // HFMA2 R5, R0.H0_H0, R9.H1_H1, R5.H1_H1.
  sass::Inst Hfma = at(0x3000000900057231ull, 0x000fca0000060805ull);
  EXPECT_EQ(Hfma.O, sass::Op::HFMA2);
  EXPECT_EQ(Hfma.A.Reg, 0u);
  EXPECT_EQ(Hfma.B.Reg, 9u);
  EXPECT_EQ(Hfma.C.Reg, 5u);
  EXPECT_EQ(Hfma.SwzA, 2u);
  EXPECT_EQ(Hfma.SwzB, 3u);
  EXPECT_EQ(Hfma.SwzC, 3u);
  // HADD2.F32 R5, -RZ, R0.H1_H1.
  sass::Inst Cvt = at(0x30000000ff057230ull, 0x000fca0000004100ull);
  EXPECT_EQ(Cvt.O, sass::Op::HADD2);
  EXPECT_TRUE(Cvt.F32Out);
  EXPECT_TRUE(Cvt.A.Neg);
  EXPECT_EQ(Cvt.SwzB, 3u);
  // F2FP.BF16.PACK_AB R5, R0, R5.
  sass::Inst Pack = at(0x000000050005723eull, 0x004fca00000010ffull);
  EXPECT_EQ(Pack.O, sass::Op::F2FP);
  EXPECT_TRUE(Pack.Bf16);
  EXPECT_EQ(Pack.A.Reg, 0u);
  EXPECT_EQ(Pack.B.Reg, 5u);
  // P2R R17, PR, RZ, 0x1 and CS2R R12, SRZ (a zeroed pair).
  sass::Inst P2r = at(0x00000001ff117803ull, 0x000fe40000000000ull);
  EXPECT_EQ(P2r.O, sass::Op::P2R);
  EXPECT_EQ(P2r.Rd, 17u);
  EXPECT_EQ(P2r.B.Imm, 1u);
  sass::Inst Cs2r = at(0x00000000000c7805ull, 0x000fe2000001ff00ull);
  EXPECT_EQ(Cs2r.O, sass::Op::CS2R);
  EXPECT_EQ(Cs2r.Sub, 0xffu);
  EXPECT_TRUE(Cs2r.Wide);
  // BAR.ARV 0x1, 0x40.
  sass::Inst Arv = at(0x0041000000007b1dull, 0x000fec0000002000ull);
  EXPECT_EQ(Arv.O, sass::Op::BAR);
  EXPECT_EQ(Arv.Sub, 1u);
  EXPECT_EQ(Arv.Sub2, 1u);
  EXPECT_EQ(Arv.Target, 64u);
  // STL [UR5], R5 (opcode 0x987, ptxas's sm_86 code for a local array indexed
  // by a value the same in every thread): the uniform register is part of the address.
  sass::Inst Stl = at(0x00000005ff007987ull, 0x0007e20008100805ull);
  EXPECT_EQ(Stl.O, sass::Op::STL);
  EXPECT_EQ(Stl.A.Reg, sass::RZ);
  EXPECT_EQ(Stl.B.Reg, 5u);
  EXPECT_EQ(Stl.AddrUReg, 5u);
  EXPECT_FALSE(Stl.AddrURegUnknown);
  // sm_90: @P0 BRA 4 instructions ahead keeps the offset's low bits at 16-23,
  // a branch to itself (-4) its sign at 34-81.
  std::string Code(16, '\0');
  uint64_t Lo = 0x0000000000048947ull, Hi = 0x000fea0003800000ull;
  std::memcpy(Code.data(), &Lo, 8);
  std::memcpy(Code.data() + 8, &Hi, 8);
  EXPECT_EQ(sass::decode(90, Code, 0).Target, 0x20u);
  Lo = 0xfffffffc00fc7947ull;
  Hi = 0x000fc0000383ffffull;
  std::memcpy(Code.data(), &Lo, 8);
  std::memcpy(Code.data() + 8, &Hi, 8);
  EXPECT_EQ(sass::decode(90, Code, 0).Target, 0u);
}

} // namespace
