//===- CompileCacheTest.cpp - the persistent compile cache -----------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// The store on its own (integrity, eviction, damaged files, several
/// processes at once), then the CPU compiler through it: a cached module
/// must run exactly like a fresh one, and a tampered entry is never used.
#include "../cpu/Harness.h"
#include "cache/CompileCache.h"

#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace zluda;
namespace fs = std::filesystem;

namespace {

std::string freshDir(const std::string &Name) {
  fs::path P = fs::temp_directory_path() / ("zluda-cache-test-" + std::to_string(getpid())) / Name;
  fs::remove_all(P);
  fs::create_directories(P);
  fs::permissions(P, fs::perms::owner_all); // whatever the umask: the cache wants a private folder
  return P.string();
}

cache::Blob blobOf(size_t N, uint32_t Seed) {
  std::mt19937 R(Seed);
  cache::Blob B(N);
  for (auto &V : B)
    V = uint8_t(R());
  return B;
}

/// Runs \p Sql on the database behind the store's back.
void rawSql(const std::string &DbPath, const std::string &Sql) {
  sqlite3 *Db = nullptr;
  ASSERT_EQ(sqlite3_open(DbPath.c_str(), &Db), SQLITE_OK);
  char *Msg = nullptr;
  EXPECT_EQ(sqlite3_exec(Db, Sql.c_str(), nullptr, nullptr, &Msg), SQLITE_OK) << (Msg ? Msg : "");
  sqlite3_free(Msg);
  sqlite3_close(Db);
}

void pause() { std::this_thread::sleep_for(std::chrono::milliseconds(3)); }

TEST(CompileCache, StoresAndReturnsExactBytes) {
  std::string Err;
  auto S = cache::Store::open(freshDir("roundtrip"), 0, Err);
  ASSERT_TRUE(S) << Err;
  EXPECT_FALSE(S->get("missing"));
  cache::Blob A = blobOf(10000, 1), B = blobOf(1, 2), Empty;
  ASSERT_TRUE(S->put("a", A));
  ASSERT_TRUE(S->put("b", B));
  ASSERT_TRUE(S->put("empty", Empty));
  EXPECT_EQ(S->get("a"), A);
  EXPECT_EQ(S->get("b"), B);
  EXPECT_EQ(S->get("empty"), Empty);
  // Replacing keeps one entry with the new bytes.
  cache::Blob A2 = blobOf(300, 3);
  ASSERT_TRUE(S->put("a", A2));
  EXPECT_EQ(S->get("a"), A2);
  cache::Usage U = S->usage();
  EXPECT_EQ(U.Entries, 3u);
  EXPECT_EQ(U.Bytes, 301u);
  cache::Stats St = S->stats();
  EXPECT_EQ(St.Hits, 4u);
  EXPECT_EQ(St.Misses, 1u);
  EXPECT_EQ(St.Stores, 4u);
  ASSERT_TRUE(S->clear());
  EXPECT_FALSE(S->get("a"));
  EXPECT_EQ(S->usage().Entries, 0u);
}

TEST(CompileCache, EntriesSurviveReopening) {
  std::string Dir = freshDir("reopen"), Err;
  cache::Blob A = blobOf(5000, 7);
  {
    auto S = cache::Store::open(Dir, 0, Err);
    ASSERT_TRUE(S) << Err;
    ASSERT_TRUE(S->put("k", A));
  }
  auto S = cache::Store::open(Dir, 0, Err);
  ASSERT_TRUE(S) << Err;
  EXPECT_EQ(S->get("k"), A);
}

TEST(CompileCache, DamagedEntryIsDroppedNotReturned) {
  std::string Dir = freshDir("damaged"), Err;
  auto S = cache::Store::open(Dir, 0, Err);
  ASSERT_TRUE(S) << Err;
  cache::Blob A = blobOf(4096, 11), B = blobOf(4096, 12);
  ASSERT_TRUE(S->put("flipped", A));
  ASSERT_TRUE(S->put("cut", A));
  ASSERT_TRUE(S->put("intact", B));
  // One byte changed, and an entry cut short, with the digests left alone.
  rawSql(S->path(), "UPDATE entries SET data = CAST(X'00' || substr(data, 2) AS BLOB) WHERE key = 'flipped';"
                    "UPDATE entries SET data = substr(data, 1, 100), size = 100 WHERE key = 'cut';");
  EXPECT_FALSE(S->get("flipped"));
  EXPECT_FALSE(S->get("cut"));
  EXPECT_EQ(S->get("intact"), B);
  EXPECT_EQ(S->stats().Corrupt, 2u);
  EXPECT_EQ(S->usage().Entries, 1u) << "damaged entries are deleted";
  // A recompile stores them again.
  ASSERT_TRUE(S->put("flipped", A));
  EXPECT_EQ(S->get("flipped"), A);
}

TEST(CompileCache, EvictsLeastRecentlyUsedToTheLimit) {
  std::string Err;
  auto S = cache::Store::open(freshDir("lru"), 3000, Err);
  ASSERT_TRUE(S) << Err;
  cache::Blob A = blobOf(1000, 1), B = blobOf(1000, 2), C = blobOf(1000, 3), D = blobOf(1000, 4);
  ASSERT_TRUE(S->put("a", A));
  pause();
  ASSERT_TRUE(S->put("b", B));
  pause();
  ASSERT_TRUE(S->put("c", C));
  pause();
  EXPECT_EQ(S->get("a"), A); // now b is the least recently used
  pause();
  ASSERT_TRUE(S->put("d", D));
  EXPECT_FALSE(S->get("b"));
  EXPECT_EQ(S->get("a"), A);
  EXPECT_EQ(S->get("c"), C);
  EXPECT_EQ(S->get("d"), D);
  EXPECT_EQ(S->stats().Evictions, 1u);
  EXPECT_LE(S->usage().Bytes, 3000u);
  // Bigger than the whole limit: not stored, nothing else evicted.
  EXPECT_FALSE(S->put("huge", blobOf(3001, 5)));
  EXPECT_EQ(S->usage().Entries, 3u);
}

TEST(CompileCache, ReplacedEntriesCountOnceTowardTheLimit) {
  // The total the eviction compares with the limit is kept as entries come
  // and go (a replaced entry's old bytes leave it): nothing is evicted while
  // the live entries fit.
  std::string Err;
  auto S = cache::Store::open(freshDir("replace"), 3000, Err);
  ASSERT_TRUE(S) << Err;
  ASSERT_TRUE(S->put("a", blobOf(1000, 1)));
  ASSERT_TRUE(S->put("a", blobOf(2500, 2)));
  ASSERT_TRUE(S->put("b", blobOf(400, 3)));
  EXPECT_EQ(S->stats().Evictions, 0u);
  EXPECT_EQ(S->get("a"), blobOf(2500, 2));
  EXPECT_EQ(S->get("b"), blobOf(400, 3));
  EXPECT_EQ(S->usage().Bytes, 2900u);
  ASSERT_TRUE(S->clear());
  ASSERT_TRUE(S->put("c", blobOf(2900, 4))); // the cleared bytes left the total too
  EXPECT_EQ(S->stats().Evictions, 0u);
  EXPECT_EQ(S->get("c"), blobOf(2900, 4));
}

TEST(CompileCache, FileThatIsNotADatabaseIsReplaced) {
  std::string Dir = freshDir("garbage"), Err;
  {
    std::ofstream F(Dir + "/cache.sqlite3", std::ios::binary);
    F << "this is not an SQLite database, just bytes left by something else...........";
  }
  auto S = cache::Store::open(Dir, 0, Err);
  ASSERT_TRUE(S) << Err;
  EXPECT_TRUE(fs::exists(Dir + "/cache.sqlite3.damaged"));
  cache::Blob A = blobOf(100, 9);
  ASSERT_TRUE(S->put("k", A));
  EXPECT_EQ(S->get("k"), A);
}

TEST(CompileCache, TruncatedDatabaseNeverYieldsWrongBytes) {
  std::string Dir = freshDir("truncated"), Err;
  std::vector<cache::Blob> Blobs;
  {
    auto S = cache::Store::open(Dir, 0, Err);
    ASSERT_TRUE(S) << Err;
    for (int I = 0; I < 40; ++I) {
      Blobs.push_back(blobOf(20000, 100 + I));
      ASSERT_TRUE(S->put("k" + std::to_string(I), Blobs.back()));
    }
  }
  std::string Db = Dir + "/cache.sqlite3";
  fs::resize_file(Db, fs::file_size(Db) / 2);
  auto S = cache::Store::open(Dir, 0, Err);
  ASSERT_TRUE(S) << Err;
  for (int I = 0; I < 40; ++I) {
    std::optional<cache::Blob> B = S->get("k" + std::to_string(I));
    if (B)
      ASSERT_EQ(*B, Blobs[I]) << "entry " << I << " came back different";
  }
  // Whatever happened, the store still works.
  cache::Blob N = blobOf(500, 1);
  ASSERT_TRUE(S->put("new", N));
  EXPECT_EQ(S->get("new"), N);
}

TEST(CompileCache, SeveralProcessesAtOnce) {
  std::string Dir = freshDir("processes");
  const int Procs = 6, PerProc = 40;
  std::vector<pid_t> Kids;
  for (int P = 0; P < Procs; ++P) {
    pid_t Pid = fork();
    ASSERT_GE(Pid, 0);
    if (Pid == 0) {
      std::string Err;
      auto S = cache::Store::open(Dir, 0, Err);
      int Bad = S ? 0 : 1;
      for (int I = 0; S && I < PerProc; ++I) {
        std::string K = "p" + std::to_string(P) + "-" + std::to_string(I);
        cache::Blob B = blobOf(2000 + I, uint32_t(P * 1000 + I));
        if (!S->put(K, B) || S->get(K) != B)
          ++Bad;
        // Everybody also writes and reads one shared key.
        cache::Blob Shared = blobOf(777, 42);
        if (!S->put("shared", Shared) || S->get("shared") != Shared)
          ++Bad;
      }
      _exit(Bad ? 1 : 0);
    }
    Kids.push_back(Pid);
  }
  for (pid_t K : Kids) {
    int Status = 0;
    ASSERT_EQ(waitpid(K, &Status, 0), K);
    EXPECT_TRUE(WIFEXITED(Status) && WEXITSTATUS(Status) == 0) << "a process saw a failed or wrong entry";
  }
  std::string Err;
  auto S = cache::Store::open(Dir, 0, Err);
  ASSERT_TRUE(S) << Err;
  EXPECT_EQ(S->usage().Entries, uint64_t(Procs * PerProc + 1));
  EXPECT_EQ(S->get("p3-17"), blobOf(2017, 3017));
}

const char *Saxpy = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry saxpy(.param .u64 x, .param .u64 y, .param .f32 a, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  ld.param.f32 %f1, [a];
  ld.param.u32 %r2, [n];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r1, %r3, %r4, %r5;
  setp.ge.u32 %p1, %r1, %r2;
  @%p1 bra $done;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f2, [%rd4];
  ld.global.f32 %f3, [%rd5];
  fma.rn.f32 %f4, %f1, %f2, %f3;
  st.global.f32 [%rd5], %f4;
$done:
  ret;
}
.visible .entry blocksum(.param .u64 x, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  .shared .align 4 .b32 acc;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $wait;
  st.shared.u32 [acc], 0;
$wait:
  bar.sync 0;
  ld.param.u64 %rd1, [x];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  atom.shared.add.u32 %r3, [acc], %r2;
  bar.sync 0;
  @%p1 bra $end;
  ld.shared.u32 %r4, [acc];
  ld.param.u64 %rd4, [out];
  st.global.u32 [%rd4], %r4;
$end:
  ret;
}
)";

/// Runs both kernels of Saxpy on fresh random input and checks them against
/// a host computation.
void checkModule(const cpu::CpuModule &M, uint32_t Seed) {
  std::mt19937 R(Seed);
  std::uniform_real_distribution<float> D(-4, 4);
  const uint32_t N = 1000;
  std::vector<float> X(N), Y(N), Want(N);
  for (uint32_t I = 0; I < N; ++I) {
    X[I] = D(R);
    Y[I] = D(R);
    Want[I] = std::fma(1.5f, X[I], Y[I]);
  }
  cpu::LaunchResult LR = test::run(M, "saxpy", {{4}, {256}},
                                   {test::Arg::ptr(X.data()), test::Arg::ptr(Y.data()), test::Arg::of(1.5f),
                                    test::Arg::of(N)});
  ASSERT_EQ(LR.Err, cpu::LaunchError::None) << LR.Message;
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(Y[I], Want[I]) << I;
  std::vector<uint32_t> V(128);
  uint32_t Sum = 0;
  for (auto &E : V)
    Sum += E = R() % 1000;
  uint32_t Out = 0xdeadbeef;
  LR = test::run(M, "blocksum", {{1}, {128}}, {test::Arg::ptr(V.data()), test::Arg::ptr(&Out)});
  ASSERT_EQ(LR.Err, cpu::LaunchError::None) << LR.Message;
  EXPECT_EQ(Out, Sum);
}

class CompilerCache : public ::testing::Test {
protected:
  static std::string DbPath() { return cache::processStore()->path(); }
};

TEST_F(CompilerCache, SecondCompileComesFromTheCacheAndRunsTheSame) {
  ASSERT_NE(cache::processStore(), nullptr);
  std::string Ptx = std::string(Saxpy) + "// first\n";
  cpu::CompileResult A = cpu::compilePtx(Ptx);
  ASSERT_TRUE(A.Mod) << A.Error;
  EXPECT_FALSE(A.FromCache);
  cpu::CompileResult B = cpu::compilePtx(Ptx);
  ASSERT_TRUE(B.Mod) << B.Error;
  EXPECT_TRUE(B.FromCache);
  ASSERT_EQ(B.Mod->kernels().size(), 2u);
  const cpu::CpuKernel *S = B.Mod->kernel("saxpy");
  ASSERT_TRUE(S);
  EXPECT_EQ(S->Info.Params.size(), 4u);
  EXPECT_EQ(S->Info.ParamBufferSize, A.Mod->kernel("saxpy")->Info.ParamBufferSize);
  EXPECT_TRUE(S->BlockFn) << "the thread-loop entry point is restored too";
  const cpu::CpuKernel *BS = B.Mod->kernel("blocksum");
  ASSERT_TRUE(BS);
  EXPECT_TRUE(BS->Info.NeedsThreadSwitching);
  EXPECT_GE(BS->Info.StaticSharedBytes, 4u);
  EXPECT_EQ(BS->Info.StaticSharedBytes, A.Mod->kernel("blocksum")->Info.StaticSharedBytes);
  checkModule(*A.Mod, 1);
  checkModule(*B.Mod, 2);
  // Any change to the text is a different module.
  cpu::CompileResult C = cpu::compilePtx(std::string(Saxpy) + "// second\n");
  ASSERT_TRUE(C.Mod) << C.Error;
  EXPECT_FALSE(C.FromCache);
  // Asking for the IR bypasses the cache; so does UseCache = false.
  cpu::CompileOptions NoCache;
  NoCache.UseCache = false;
  cpu::CompileResult D = cpu::compilePtx(Ptx, NoCache);
  ASSERT_TRUE(D.Mod) << D.Error;
  EXPECT_FALSE(D.FromCache);
}

TEST_F(CompilerCache, TamperedEntriesAreRecompiled) {
  std::string Ptx = std::string(Saxpy) + "// tamper\n";
  ASSERT_TRUE(cpu::compilePtx(Ptx).Mod);
  // 1: the bytes change under an unchanged digest.
  rawSql(DbPath(), "UPDATE entries SET data = CAST(substr(data, 1, 40) || X'ff' || substr(data, 42) AS BLOB);");
  cpu::CompileResult A = cpu::compilePtx(Ptx);
  ASSERT_TRUE(A.Mod) << A.Error;
  EXPECT_FALSE(A.FromCache);
  checkModule(*A.Mod, 3);
  // 2: garbage with a matching digest (written by something that is not us).
  std::string Junk = "not a module at all";
  rawSql(DbPath(), "UPDATE entries SET data = CAST('" + Junk + "' AS BLOB), size = " + std::to_string(Junk.size()) +
                       ", digest = '" + cache::sha256Hex(Junk) + "';");
  cpu::CompileResult B = cpu::compilePtx(Ptx);
  ASSERT_TRUE(B.Mod) << B.Error;
  EXPECT_FALSE(B.FromCache);
  checkModule(*B.Mod, 4);
  // And the recompiled module was stored again.
  cpu::CompileResult C = cpu::compilePtx(Ptx);
  ASSERT_TRUE(C.Mod) << C.Error;
  EXPECT_TRUE(C.FromCache);
  checkModule(*C.Mod, 5);
}

TEST_F(CompilerCache, ModulesCompileInParallel) {
  // Distinct modules on several threads at once, half of them twice (one
  // thread may hit what another just stored): every result runs correctly.
  const int N = 6;
  std::vector<cpu::CompileResult> R(N);
  std::vector<std::thread> Ts;
  for (int I = 0; I < N; ++I)
    Ts.emplace_back([&, I] { R[I] = cpu::compilePtx(std::string(Saxpy) + "// parallel " + std::to_string(I % 3) + "\n"); });
  for (auto &T : Ts)
    T.join();
  for (int I = 0; I < N; ++I) {
    ASSERT_TRUE(R[I].Mod) << R[I].Error;
    checkModule(*R[I].Mod, 100 + I);
  }
}

TEST_F(CompilerCache, SlowCompileShowsAProgressLine) {
  cpu::CompileOptions O;
  O.ProgressAfterMs = 0; // as if the module took longer than a second
  std::string Ptx = std::string(Saxpy) + "// progress\n";
  ::testing::internal::CaptureStderr();
  cpu::CompileResult A = cpu::compilePtx(Ptx, O);
  std::string Err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(A.Mod) << A.Error;
  EXPECT_NE(Err.find("zluda: compiling a PTX module"), std::string::npos) << Err;
  EXPECT_NE(Err.find("zluda: compiled in"), std::string::npos) << Err;
  // A fast compile (and a cache hit) says nothing.
  ::testing::internal::CaptureStderr();
  cpu::CompileResult B = cpu::compilePtx(std::string(Saxpy) + "// quiet\n");
  cpu::CompileResult C = cpu::compilePtx(Ptx, O);
  Err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(B.Mod && C.Mod);
  EXPECT_TRUE(C.FromCache);
  EXPECT_EQ(Err.find("zluda: compil"), std::string::npos) << Err;
}

/// A module of \p N kernels k0..k(N-1) that share a device function and a
/// module variable: k<i> writes out[tid] = mix(tid * (i + 1)) + bias + i,
/// where mix(a) = 3a + 1.
std::string manyKernels(int N, const std::string &Tag) {
  std::string S = ".version 7.5\n.target sm_75\n.address_size 64\n// " + Tag + "\n"
                  ".visible .global .align 4 .u32 bias = 7;\n"
                  ".func (.param .b32 ret) mix(.param .b32 a)\n{\n  .reg .b32 %r<3>;\n"
                  "  ld.param.b32 %r1, [a];\n  mad.lo.u32 %r2, %r1, 3, 1;\n  st.param.b32 [ret], %r2;\n  ret;\n}\n";
  for (int I = 0; I < N; ++I) {
    S += ".visible .entry k" + std::to_string(I) + "(.param .u64 out)\n{\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n"
         "  mov.u32 %r1, %tid.x;\n  mul.lo.u32 %r2, %r1, " + std::to_string(I + 1) + ";\n"
         "  {\n  .param .b32 p;\n  .param .b32 q;\n  st.param.b32 [p], %r2;\n"
         "  call.uni (q), mix, (p);\n  ld.param.b32 %r3, [q];\n  }\n"
         "  ld.global.u32 %r4, [bias];\n  add.u32 %r5, %r3, %r4;\n  add.u32 %r6, %r5, " + std::to_string(I) + ";\n"
         "  ld.param.u64 %rd1, [out];\n  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n"
         "  st.global.u32 [%rd3], %r6;\n  ret;\n}\n";
  }
  return S;
}

/// Runs kernel k<I> of manyKernels on 32 threads over a poisoned buffer and
/// checks it against the formula computed here.
void checkKernel(const cpu::CpuModule &M, int I, uint32_t Bias) {
  std::vector<uint32_t> Out(32, 0xdeadbeef);
  cpu::LaunchResult LR = test::run(M, "k" + std::to_string(I), {{1}, {32}}, {test::Arg::ptr(Out.data())});
  ASSERT_EQ(LR.Err, cpu::LaunchError::None) << LR.Message;
  for (uint32_t T = 0; T < 32; ++T)
    ASSERT_EQ(Out[T], (T * (I + 1)) * 3 + 1 + Bias + I) << "kernel " << I << " thread " << T;
}

TEST_F(CompilerCache, LazyLoadCompilesOnlyTheKernelsThatRun) {
  cache::Store *St = cache::processStore();
  std::string Ptx = manyKernels(6, "lazy");
  cpu::CompileOptions O;
  O.Lazy = true;
  uint64_t S0 = St->stats().Stores;
  cpu::CompileResult A = cpu::compilePtx(Ptx, O);
  ASSERT_TRUE(A.Mod) << A.Error;
  EXPECT_TRUE(A.Mod->lazy());
  EXPECT_EQ(St->stats().Stores - S0, 2u) << "the module's description and its variables' unit";
  ASSERT_EQ(A.Mod->kernels().size(), 6u);
  for (const cpu::CpuKernel &K : A.Mod->kernels())
    EXPECT_EQ(K.Fn, nullptr) << K.Info.Name << " was compiled before it was asked for";
  // The variable is there before any kernel, and every kernel unit sees it.
  const cpu::CpuGlobal *Bias = A.Mod->global("bias");
  ASSERT_TRUE(Bias && Bias->Addr);
  EXPECT_EQ(*static_cast<uint32_t *>(Bias->Addr), 7u);
  *static_cast<uint32_t *>(Bias->Addr) = 100;
  checkKernel(*A.Mod, 3, 100);
  EXPECT_EQ(St->stats().Stores - S0, 3u) << "one more unit: k3 alone";
  checkKernel(*A.Mod, 3, 100);
  checkKernel(*A.Mod, 0, 100);
  EXPECT_EQ(St->stats().Stores - S0, 4u);
  EXPECT_EQ(A.Mod->kernel("k5")->Fn, nullptr);
  // Launching from several threads at once compiles k5 once and runs it right.
  {
    std::vector<std::thread> Ts;
    for (int T = 0; T < 4; ++T)
      Ts.emplace_back([&] { checkKernel(*A.Mod, 5, 100); });
    for (std::thread &T : Ts)
      T.join();
  }
  EXPECT_EQ(St->stats().Stores - S0, 5u);
  // A second process-lifetime load finds the description and k3 in the cache.
  cpu::CompileResult B = cpu::compilePtx(Ptx, O);
  ASSERT_TRUE(B.Mod) << B.Error;
  EXPECT_TRUE(B.FromCache);
  uint64_t S1 = St->stats().Stores;
  checkKernel(*B.Mod, 3, 7);
  EXPECT_EQ(St->stats().Stores, S1) << "k3 came from the cache";
  checkKernel(*B.Mod, 4, 7);
  EXPECT_EQ(St->stats().Stores, S1 + 1);
  // Without the cache, lazily too.
  cpu::CompileOptions NoCache = O;
  NoCache.UseCache = false;
  cpu::CompileResult C = cpu::compilePtx(Ptx, NoCache);
  ASSERT_TRUE(C.Mod) << C.Error;
  checkKernel(*C.Mod, 2, 7);
}

TEST_F(CompilerCache, EagerLoadCompilesUnitsInParallel) {
  cache::Store *St = cache::processStore();
  const int N = 300;
  std::string Ptx = manyKernels(N, "parallel");
  cpu::CompileOptions O;
  O.Jobs = 4;
  uint64_t S0 = St->stats().Stores;
  cpu::CompileResult A = cpu::compilePtx(Ptx, O);
  ASSERT_TRUE(A.Mod) << A.Error;
  EXPECT_FALSE(A.Mod->lazy());
  EXPECT_GE(St->stats().Stores - S0, 3u) << "a description and at least two units";
  for (int I = 0; I < N; ++I) {
    ASSERT_NE(A.Mod->kernel("k" + std::to_string(I))->Fn, nullptr);
    checkKernel(*A.Mod, I, 7);
  }
  // One thread, no cache: the same results.
  cpu::CompileOptions One;
  One.Jobs = 1;
  One.UseCache = false;
  cpu::CompileResult B = cpu::compilePtx(Ptx, One);
  ASSERT_TRUE(B.Mod) << B.Error;
  for (int I = 0; I < N; I += 37)
    checkKernel(*B.Mod, I, 7);
  // Warm: every unit from the cache.
  cpu::CompileResult C = cpu::compilePtx(Ptx, O);
  ASSERT_TRUE(C.Mod) << C.Error;
  EXPECT_TRUE(C.FromCache);
  for (int I = N - 1; I >= 0; I -= 13)
    checkKernel(*C.Mod, I, 7);
}

} // namespace

int main(int argc, char **argv) {
  // The process-wide store of the compiler tests lives in a directory of its own.
  std::string Dir = freshDir("process-store");
  setenv("ZLUDA_CACHE_DIR", Dir.c_str(), 1);
  unsetenv("ZLUDA_CACHE_CLEAR");
  ::testing::InitGoogleTest(&argc, argv);
  int Rc = RUN_ALL_TESTS();
  fs::remove_all(fs::path(Dir).parent_path());
  return Rc;
}

// --- folders and files no other user may write (issue: hardening) ---------------------------------

namespace {
mode_t modeOf(const std::string &P) {
  struct stat St {};
  stat(P.c_str(), &St);
  return St.st_mode & 07777;
}
} // namespace

TEST(CompileCacheFolder, NewFolderAndDatabaseArePrivate) {
  std::string Dir = freshDir("private") + "/new/cache";
  std::string Err;
  auto S = cache::Store::open(Dir, 1 << 20, Err);
  ASSERT_TRUE(S) << Err;
  EXPECT_EQ(modeOf(Dir), 0700u);
  EXPECT_EQ(modeOf(Dir + "/cache.sqlite3") & 077, 0u) << std::oct << modeOf(Dir + "/cache.sqlite3");
  ASSERT_TRUE(S->put("k", blobOf(100, 1)));
  for (const char *Side : {"-wal", "-shm"})
    if (fs::exists(Dir + "/cache.sqlite3" + Side))
      EXPECT_EQ(modeOf(Dir + "/cache.sqlite3" + Side) & 077, 0u) << Side;
}

TEST(CompileCacheFolder, FolderOthersCanWriteIsNotUsed) {
  for (mode_t M : {mode_t(0777), mode_t(0770), mode_t(0703)}) {
    std::string Dir = freshDir("shared");
    chmod(Dir.c_str(), M);
    std::string Err;
    auto S = cache::Store::open(Dir, 1 << 20, Err);
    EXPECT_FALSE(S) << std::oct << M;
    EXPECT_NE(Err.find("can be written by other users"), std::string::npos) << Err;
    EXPECT_NE(Err.find("chmod go-w " + Dir), std::string::npos) << Err;
    EXPECT_FALSE(fs::exists(Dir + "/cache.sqlite3")) << "nothing is written into a refused folder";
  }
}

TEST(CompileCacheFolder, DatabaseOthersCanWriteIsNotUsed) {
  std::string Dir = freshDir("shareddb");
  {
    std::string Err;
    ASSERT_TRUE(cache::Store::open(Dir, 1 << 20, Err)) << Err;
  }
  chmod((Dir + "/cache.sqlite3").c_str(), 0666);
  std::string Err;
  EXPECT_FALSE(cache::Store::open(Dir, 1 << 20, Err));
  EXPECT_NE(Err.find("compile cache database"), std::string::npos) << Err;
}

TEST(CompileCacheFolder, FolderOfAnotherUserIsNotUsed) {
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root to give a folder to another uid";
  std::string Dir = freshDir("theirs");
  ASSERT_EQ(chown(Dir.c_str(), 65534, 65534), 0);
  std::string Err;
  EXPECT_FALSE(cache::Store::open(Dir, 1 << 20, Err));
  EXPECT_NE(Err.find("belongs to another user (uid 65534)"), std::string::npos) << Err;
  fs::remove_all(Dir);
}

/// Run in a fresh process by the test below (the process-wide store is made once).
TEST(CompileCacheFolder, ProcessStoreHelper) {
  const char *Dir = std::getenv("ZLUDA_CACHE_TEST_HELPER");
  if (!Dir)
    GTEST_SKIP() << "runs in a child process of ProgramRunsWithoutAnUnsafeCache";
  setenv("ZLUDA_CACHE_DIR", Dir, 1); // after this program's own setting for the other tests
  EXPECT_EQ(cache::processStore(), nullptr);
}

TEST(CompileCacheFolder, ProgramRunsWithoutAnUnsafeCache) {
  // The process-wide store: a refused folder means no cache, not a failure.
  std::string Dir = freshDir("process");
  chmod(Dir.c_str(), 0777);
  pid_t Pid = fork();
  ASSERT_GE(Pid, 0);
  if (Pid == 0) {
    setenv("ZLUDA_CACHE_TEST_HELPER", Dir.c_str(), 1);
    execl("/proc/self/exe", "compile_cache_tests", "--gtest_filter=CompileCacheFolder.ProcessStoreHelper",
          static_cast<char *>(nullptr));
    _exit(127);
  }
  int Status = 0;
  waitpid(Pid, &Status, 0);
  EXPECT_TRUE(WIFEXITED(Status) && WEXITSTATUS(Status) == 0) << Status;
  EXPECT_FALSE(fs::exists(Dir + "/cache.sqlite3"));
}
