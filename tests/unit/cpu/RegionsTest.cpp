// Work-item loops between waits (src/cpu/Regions.h, the "regions" block
// strategy): random kernels of barriers, warp collectives, divergent
// collectives with partial masks, activemask, early exits and loops around
// barriers run under "regions" and under "fibers" (one fiber per thread, the
// reference schedule) and must write the same results; plus kernels checked
// against values computed here.
#include "Harness.h"

#include <random>
#include <sstream>

using namespace zluda;
using namespace zluda::test;

namespace {

constexpr unsigned Regs = 8;

/// A random kernel: 8 registers per thread seeded from the thread id, then
/// a random sequence of steps that make threads exchange values.
std::string randomKernel(std::mt19937 &Rng, unsigned Steps) {
  std::ostringstream S;
  auto pick = [&](unsigned N) { return static_cast<unsigned>(Rng() % N); };
  auto r = [&] { return "%r" + std::to_string(pick(Regs)); };
  S << ".version 9.0\n.target sm_90\n.address_size 64\n"
    << ".visible .entry k(.param .u64 out, .param .u32 exitFrom)\n{\n"
    << "  .reg .pred %p<4>;\n  .reg .b32 %r<8>;\n  .reg .b32 %t, %n, %g, %ln, %a, %b, %i, %ef;\n"
    << "  .reg .b64 %o, %rd<4>;\n  .shared .align 4 .b32 buf[1024];\n"
    << "  mov.u32 %t, %tid.x;\n  mov.u32 %n, %ntid.x;\n  mov.u32 %ln, %laneid;\n"
    << "  mov.u32 %a, %ctaid.x;\n  mad.lo.u32 %g, %a, %n, %t;\n"
    << "  ld.param.u64 %o, [out];\n  mul.wide.u32 %rd1, %g, " << Regs * 4 << ";\n  add.u64 %o, %o, %rd1;\n";
  for (unsigned R = 0; R < Regs; ++R)
    S << "  mad.lo.u32 %r" << R << ", %g, " << (Rng() | 1) << ", " << Rng() % 1000 << ";\n";
  // Threads from exitFrom on leave at once: later barriers and collectives
  // must count only the others.
  S << "  ld.param.u32 %ef, [exitFrom];\n  setp.ge.u32 %p3, %t, %ef;\n  @%p3 bra DONE;\n";
  unsigned Label = 0;
  for (unsigned I = 0; I < Steps; ++I) {
    std::string D = r(), A = r(), B = r();
    static const char *Only = std::getenv("ZLUDA_TEST_ONLY"); // debugging: one kind of step
    switch (Only ? std::atoi(Only) : pick(12)) {
    case 0:
      S << "  add.u32 " << D << ", " << A << ", " << B << ";\n  xor.b32 " << D << ", " << D << ", " << Rng() % 4096
        << ";\n";
      break;
    case 1: // through shared memory, between two barriers
      S << "  shl.b32 %a, %t, 2;\n  mov.u32 %b, buf;\n  add.u32 %a, %a, %b;\n  st.shared.u32 [%a], " << A << ";\n"
        << "  bar.sync 0;\n  mad.lo.u32 %a, %t, " << (pick(7) * 2 + 1) << ", " << pick(50)
        << ";\n  rem.u32 %a, %a, %n;\n  shl.b32 %a, %a, 2;\n  add.u32 %a, %a, %b;\n  ld.shared.u32 %b, [%a];\n"
        << "  add.u32 " << D << ", " << D << ", %b;\n  bar.sync 0;\n";
      break;
    case 2: {
      static const char *Modes[] = {"up", "down", "bfly", "idx"};
      S << "  shfl.sync." << Modes[pick(4)] << ".b32 " << D << "|%p1, " << A << ", " << pick(32) << ", 0x1f, 0xffffffff;\n";
      break;
    }
    case 3:
      S << "  and.b32 %a, " << A << ", " << (1u << pick(4)) << ";\n  setp.ne.u32 %p1, %a, 0;\n"
        << "  vote.sync.ballot.b32 %b, %p1, 0xffffffff;\n  add.u32 " << D << ", " << D << ", %b;\n"
        << "  vote.sync.any.pred %p2, %p1, 0xffffffff;\n  selp.u32 %b, 7, 3, %p2;\n  add.u32 " << D << ", " << D
        << ", %b;\n";
      break;
    case 4:
      S << "  redux.sync.add.u32 %b, " << A << ", 0xffffffff;\n  xor.b32 " << D << ", " << D << ", %b;\n"
        << "  redux.sync.max.u32 %b, " << B << ", 0xffffffff;\n  add.u32 " << D << ", " << D << ", %b;\n";
      break;
    case 5: { // the two halves of each warp shuffle among themselves, on different paths
      // (within their half: reading a lane outside the mask is undefined)
      unsigned L = Label++;
      S << "  setp.lt.u32 %p1, %ln, 16;\n  @%p1 bra LO" << L << ";\n"
        << "  shfl.sync.bfly.b32 " << D << ", " << A << ", " << (1u << pick(4)) << ", 0x1f, 0xffff0000;\n"
        << "  bra.uni JOIN" << L << ";\nLO" << L << ":\n"
        << "  shfl.sync.bfly.b32 " << D << ", " << B << ", " << (1u << pick(4)) << ", 0x1f, 0x0000ffff;\n"
        << "JOIN" << L << ":\n  bar.warp.sync 0xffffffff;\n"; // reconverge (activemask after it sees the warp)
      break;
    }
    case 6: // warp-wide vote after the warp reconverges
      S << "  bar.warp.sync 0xffffffff;\n  and.b32 %a, " << A << ", 3;\n  setp.eq.u32 %p1, %a, 0;\n"
        << "  vote.sync.all.pred %p2, %p1, 0xffffffff;\n  selp.u32 %b, 11, 13, %p2;\n  add.u32 " << D << ", " << D
        << ", %b;\n";
      break;
    case 7: // a reduction through a barrier
      S << "  and.b32 %a, " << A << ", 1;\n  setp.ne.u32 %p1, %a, 0;\n  bar.red.popc.u32 %b, 0, %p1;\n"
        << "  add.u32 " << D << ", " << D << ", %b;\n  bar.red.or.pred %p2, 1, %p1;\n  selp.u32 %b, 5, 9, %p2;\n"
        << "  add.u32 " << D << ", " << D << ", %b;\n";
      break;
    case 8: { // a loop around barriers, with a trip count all threads share
      unsigned L = Label++;
      S << "  mov.u32 %i, " << (1 + pick(3)) << ";\nLOOP" << L << ":\n"
        << "  shl.b32 %a, %t, 2;\n  mov.u32 %b, buf;\n  add.u32 %a, %a, %b;\n  st.shared.u32 [%a], " << D << ";\n"
        << "  bar.sync 0;\n  add.u32 %a, %t, 1;\n  rem.u32 %a, %a, %n;\n  shl.b32 %a, %a, 2;\n  add.u32 %a, %a, %b;\n"
        << "  ld.shared.u32 %b, [%a];\n  bar.sync 0;\n  mad.lo.u32 " << D << ", " << D << ", 3, %b;\n"
        << "  sub.u32 %i, %i, 1;\n  setp.ne.u32 %p1, %i, 0;\n  @%p1 bra LOOP" << L << ";\n";
      break;
    }
    case 9: { // warp 0 alone does a collective while the others go on to a barrier
      unsigned L = Label++;
      S << "  setp.ge.u32 %p1, %t, 32;\n  @%p1 bra W0_" << L << ";\n"
        << "  shfl.sync.idx.b32 " << D << ", " << A << ", " << pick(32) << ", 0x1f, 0xffffffff;\n"
        << "W0_" << L << ":\n  bar.sync 0;\n";
      break;
    }
    case 10: { // a loop counter all threads share (kept once per block while they run in
      // step) around a collective only warp 0 does: the block leaves step there
      unsigned L = Label++;
      S << "  mov.u32 %i, " << (2 + pick(3)) << ";\nULOOP" << L << ":\n"
        << "  setp.ge.u32 %p1, %t, 32;\n  @%p1 bra UW" << L << ";\n"
        << "  shfl.sync.idx.b32 %b, " << A << ", %i, 0x1f, 0xffffffff;\n  add.u32 " << D << ", " << D << ", %b;\n"
        << "UW" << L << ":\n  bar.sync 0;\n  mad.lo.u32 " << D << ", " << D << ", %i, " << pick(100) << ";\n"
        << "  sub.u32 %i, %i, 1;\n  setp.ne.u32 %p1, %i, 0;\n  @%p1 bra ULOOP" << L << ";\n";
      break;
    }
    default:
      S << "  match.any.sync.b32 %b, " << A << ", 0xffffffff;\n  add.u32 " << D << ", " << D << ", %b;\n";
      break;
    }
  }
  S << "  bar.sync 0;\nDONE:\n";
  for (unsigned R = 0; R < Regs; ++R)
    S << "  st.global.u32 [%o+" << R * 4 << "], %r" << R << ";\n";
  S << "  ret;\n}\n";
  return S.str();
}

std::vector<uint32_t> runWith(const cpu::CpuModule &M, const char *Strategy, unsigned Blocks, unsigned Threads,
                              uint32_t ExitFrom) {
  std::vector<uint32_t> Out(Blocks * Threads * Regs, 0xdeadbeef);
  Launch L{{Blocks}, {Threads}};
  L.Strategy = Strategy;
  cpu::LaunchResult R = run(M, "k", L, {Arg::ptr(Out.data()), Arg::of<uint32_t>(ExitFrom)});
  EXPECT_EQ(R.Err, cpu::LaunchError::None) << Strategy << ": " << R.Message;
  return Out;
}

TEST(Regions, RandomWaitPatternsMatchFibers) {
  // ZLUDA_TEST_SEED=N repeats a failing run.
  const char *Fixed = std::getenv("ZLUDA_TEST_SEED");
  uint32_t Seed = Fixed ? static_cast<uint32_t>(std::strtoul(Fixed, nullptr, 10)) : std::random_device{}();
  std::mt19937 Rng(Seed);
  for (unsigned Case = 0; Case < 24; ++Case) {
    std::string Ptx = randomKernel(Rng, 4 + Rng() % 10);
    SCOPED_TRACE("seed " + std::to_string(Seed) + ", case " + std::to_string(Case) + "\n" + Ptx);
    auto M = compile(Ptx);
    ASSERT_TRUE(M);
    unsigned Threads = 32 * (1 + Rng() % 4);
    // Sometimes the last warp leaves at once (whole warps: a shuffle reading
    // a lane that has exited reads an undefined value).
    uint32_t ExitFrom = Threads >= 64 && Rng() % 3 == 0 ? Threads - 32 : Threads;
    std::vector<uint32_t> Fib = runWith(*M, "fibers", 3, Threads, ExitFrom);
    ASSERT_EQ(LastStrategy(), "fibers");
    std::vector<uint32_t> Rg = runWith(*M, "regions", 3, Threads, ExitFrom);
    ASSERT_EQ(LastStrategy(), "regions") << "the kernel should have work-item loops";
    for (size_t I = 0; I < Fib.size(); ++I)
      ASSERT_EQ(Rg[I], Fib[I]) << "thread " << I / Regs << " register " << I % Regs << " (exitFrom " << ExitFrom
                               << ", " << Threads << " threads)";
  }
}

// A tree reduction of one element per thread through shared memory (the
// classic __syncthreads loop), in 2-D blocks, against a sum computed here.
TEST(Regions, SharedTreeReductionIn2DBlocks) {
  const char *Ptx = R"(
.version 9.0
.target sm_80
.address_size 64
.visible .entry reduce(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<16>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  .shared .align 4 .f32 s[256];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mov.u32 %r5, %ntid.y;
  mul.lo.u32 %r6, %r3, %r5;
  mov.u32 %r7, %ctaid.x;
  mad.lo.u32 %r8, %r7, %r6, %r4;
  ld.param.u64 %rd1, [in];
  mul.wide.u32 %rd2, %r8, 4;
  add.u64 %rd3, %rd1, %rd2;
  ld.global.f32 %f1, [%rd3];
  mov.u32 %r9, s;
  shl.b32 %r10, %r4, 2;
  add.u32 %r11, %r9, %r10;
  st.shared.f32 [%r11], %f1;
  bar.sync 0;
  shr.u32 %r12, %r6, 1;
LOOP:
  setp.eq.u32 %p1, %r12, 0;
  @%p1 bra END;
  setp.ge.u32 %p2, %r4, %r12;
  @%p2 bra SKIP;
  shl.b32 %r13, %r12, 2;
  add.u32 %r14, %r11, %r13;
  ld.shared.f32 %f2, [%r14];
  ld.shared.f32 %f3, [%r11];
  add.f32 %f3, %f3, %f2;
  st.shared.f32 [%r11], %f3;
SKIP:
  bar.sync 0;
  shr.u32 %r12, %r12, 1;
  bra LOOP;
END:
  setp.ne.u32 %p1, %r4, 0;
  @%p1 bra DONE;
  ld.shared.f32 %f1, [%r9];
  ld.param.u64 %rd4, [out];
  mul.wide.u32 %rd5, %r7, 4;
  add.u64 %rd6, %rd4, %rd5;
  st.global.f32 [%rd6], %f1;
DONE:
  ret;
}
)";
  auto M = compile(Ptx);
  ASSERT_TRUE(M);
  std::mt19937 Rng(std::random_device{}());
  const unsigned Blocks = 37, X = 16, Y = 16;
  std::vector<float> In(Blocks * X * Y), Out(Blocks, std::nanf(""));
  for (float &V : In)
    V = static_cast<float>(Rng() % 1000); // integers: the sum is exact in any order
  Launch L{{Blocks}, {X, Y}};
  cpu::LaunchResult R = run(*M, "reduce", L, {Arg::ptr(In.data()), Arg::ptr(Out.data())});
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  EXPECT_EQ(LastStrategy(), "regions");
  for (unsigned B = 0; B < Blocks; ++B) {
    float Sum = 0;
    for (unsigned I = 0; I < X * Y; ++I)
      Sum += In[B * X * Y + I];
    EXPECT_EQ(Out[B], Sum) << "block " << B;
  }
}

// activemask in divergent code names the lanes that took the same path
// (computed here): the warp's lanes run together up to the branch.
TEST(Regions, ActivemaskInDivergentCode) {
  const char *Ptx = R"(
.version 9.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p1;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  mul.lo.u32 %r2, %r1, 2654435761;
  shr.u32 %r2, %r2, 29;
  and.b32 %r2, %r2, 1;
  setp.eq.u32 %p1, %r2, 0;
  mov.u32 %r3, 0;
  bar.sync 0;
  @!%p1 bra OTHER;
  activemask.b32 %r3;
  bra JOIN;
OTHER:
  activemask.b32 %r3;
  not.b32 %r3, %r3;
JOIN:
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)";
  auto M = compile(Ptx);
  ASSERT_TRUE(M);
  const unsigned Threads = 128;
  std::vector<uint32_t> Out(Threads, 0xdeadbeef);
  Launch L{{2}, {Threads}};
  cpu::LaunchResult R = run(*M, "k", L, {Arg::ptr(Out.data())});
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  EXPECT_EQ(LastStrategy(), "regions");
  for (unsigned W = 0; W < Threads / 32; ++W) {
    uint32_t Taken = 0;
    for (unsigned L = 0; L < 32; ++L)
      if ((((W * 32 + L) * 2654435761u) >> 29 & 1) == 0)
        Taken |= 1u << L;
    // Lanes that took the branch read their mask; the others the complement
    // of theirs, inverted back: both are the taken set.
    for (unsigned L = 0; L < 32; ++L)
      EXPECT_EQ(Out[W * 32 + L], Taken) << "thread " << W * 32 + L;
  }
}

// A block whose threads wait for each other forever is reported, not hung.
TEST(Regions, DeadlockIsReported) {
  const char *Ptx = R"(
.version 9.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .reg .pred %p1;
  .reg .b32 %r1;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra WAIT1;
  bar.sync 0, 64;
  bra DONE;
WAIT1:
  bar.sync 1, 64;
DONE:
  ret;
}
)";
  auto M = compile(Ptx);
  ASSERT_TRUE(M);
  Launch L{{1}, {64}};
  cpu::LaunchResult R = run(*M, "k", L, {});
  EXPECT_EQ(LastStrategy(), "regions");
  EXPECT_EQ(R.Err, cpu::LaunchError::Deadlock) << R.Message;
}

} // namespace
