//===- NvccKernelsTest.cpp - whole kernels that nvcc emitted ---------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The PTX nvcc 13 made from tests/cuda/*.cu (compute_75 and compute_90),
/// run on the CPU device and checked against C++ computations. Skips when
/// the toolkit (and so the corpus) is missing.
#include "../ptx/TestUtil.h"
#include "Harness.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

using namespace zluda;
using namespace zluda::test;

namespace {

class NvccKernels : public ::testing::TestWithParam<const char *> {
protected:
  std::unique_ptr<cpu::CpuModule> load(const std::string &Program) {
    std::string Path = std::string(ZLUDA_PTX_CORPUS_DIR) + "/" + Program + "." + GetParam() + ".ptx";
    if (!std::filesystem::exists(Path))
      return nullptr;
    return compile(readFile(Path));
  }
  std::mt19937 Rng{12345};
};

#define LOAD_OR_SKIP(M, Prog)                                                                                          \
  auto M = load(Prog);                                                                                                 \
  if (!M)                                                                                                              \
    GTEST_SKIP() << "no nvcc corpus for " << Prog;

TEST_P(NvccKernels, VectorAdd) {
  LOAD_OR_SKIP(M, "vector_add");
  const int N = 100003;
  std::uniform_real_distribution<float> D(-1000, 1000);
  std::vector<float> A(N), B(N), C(N, NAN);
  for (int I = 0; I < N; ++I) {
    A[I] = D(Rng);
    B[I] = D(Rng);
  }
  auto R = run(*M, "_Z9vectorAddPKfS0_Pfi", {{(N + 255) / 256}, {256}},
               {Arg::ptr(A.data()), Arg::ptr(B.data()), Arg::ptr(C.data()), Arg::of<int32_t>(N)});
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  for (int I = 0; I < N; ++I)
    ASSERT_EQ(C[I], A[I] + B[I]) << I;
}

TEST_P(NvccKernels, TiledMatmulWithSharedMemory) {
  LOAD_OR_SKIP(M, "matmul_shared");
  const int N = 70;
  std::uniform_int_distribution<int> D(-8, 8);
  std::vector<float> A(N * N), B(N * N), C(N * N, NAN);
  for (auto &X : A)
    X = float(D(Rng));
  for (auto &X : B)
    X = float(D(Rng)) * 0.5f;
  auto R = run(*M, "_Z6matmulPKfS0_Pfi", {{(N + 15) / 16, (N + 15) / 16}, {16, 16}},
               {Arg::ptr(A.data()), Arg::ptr(B.data()), Arg::ptr(C.data()), Arg::of<int32_t>(N)});
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J) {
      double S = 0;
      for (int K = 0; K < N; ++K)
        S += double(A[I * N + K]) * B[K * N + J];
      ASSERT_EQ(C[I * N + J], float(S)) << I << "," << J; // small integers: exact
    }
}

TEST_P(NvccKernels, ReductionWithShuffles) {
  LOAD_OR_SKIP(M, "warp_reduce");
  const int N = 50000;
  std::vector<float> In(N);
  double Ref = 0;
  for (int I = 0; I < N; ++I) {
    In[I] = float(I % 13);
    Ref += In[I];
  }
  float Out = 0;
  auto R = run(*M, "_Z6reducePKfPfi", {{6}, {256}}, {Arg::ptr(In.data()), Arg::ptr(&Out), Arg::of<int32_t>(N)});
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  EXPECT_EQ(Out, float(Ref));
}

TEST_P(NvccKernels, HistogramWithSharedAtomics) {
  LOAD_OR_SKIP(M, "atomics");
  const int N = 1 << 15;
  std::vector<uint8_t> In(N);
  std::uniform_int_distribution<int> D(0, 255);
  for (auto &X : In)
    X = uint8_t(D(Rng));
  std::vector<uint32_t> Bins(256, 0), Ref(256, 0);
  for (uint8_t X : In)
    Ref[X]++;
  auto R = run(*M, "_Z9histogramPKhiPj", {{16}, {128}}, {Arg::ptr(In.data()), Arg::of<int32_t>(N), Arg::ptr(Bins.data())});
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  EXPECT_EQ(Bins, Ref);
}

TEST_P(NvccKernels, BlockScanAndBitonicSort) {
  LOAD_OR_SKIP(M, "scan_sort");
  const int N = 1000, B = 256;
  std::vector<int32_t> In(N), Out(N, -1);
  std::uniform_int_distribution<int> D(-50, 50);
  for (auto &X : In)
    X = D(Rng);
  auto R = run(*M, "_Z9blockScanPKiPii", {{(N + B - 1) / B}, {B}, B * 4},
               {Arg::ptr(In.data()), Arg::ptr(Out.data()), Arg::of<int32_t>(N)});
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  for (int Start = 0; Start < N; Start += B) {
    int Acc = 0;
    for (int I = Start; I < std::min(N, Start + B); ++I) {
      Acc += In[I];
      ASSERT_EQ(Out[I], Acc) << I;
    }
  }
  const int Len = 2048;
  std::vector<float> V(Len);
  std::uniform_real_distribution<float> F(-1e3f, 1e3f);
  for (auto &X : V)
    X = F(Rng);
  std::vector<float> Sorted = V;
  std::sort(Sorted.begin(), Sorted.end());
  for (int K = 2; K <= Len; K <<= 1)
    for (int J = K >> 1; J > 0; J >>= 1) {
      auto S = run(*M, "_Z11bitonicStepPfii", {{Len / 256}, {256}}, {Arg::ptr(V.data()), Arg::of<int32_t>(J), Arg::of<int32_t>(K)});
      ASSERT_EQ(S.Err, cpu::LaunchError::None) << S.Message;
    }
  EXPECT_EQ(V, Sorted);
}

TEST_P(NvccKernels, WarpVotesAndShuffles) {
  LOAD_OR_SKIP(M, "warp_reduce");
  const int T = 64;
  std::vector<int32_t> In(T);
  for (int I = 0; I < T; ++I)
    In[I] = (I % 3 == 0) || I >= 40 ? 1 : 0;
  std::vector<uint32_t> Ballots(2);
  std::vector<int32_t> Anys(2), Alls(2), Xs(T);
  auto R = run(*M, "_Z5votesPKiPjPiS2_S2_", {{1}, {T}},
               {Arg::ptr(In.data()), Arg::ptr(Ballots.data()), Arg::ptr(Anys.data()), Arg::ptr(Alls.data()), Arg::ptr(Xs.data())});
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message;
  for (int W = 0; W < 2; ++W) {
    uint32_t B = 0;
    for (int L = 0; L < 32; ++L)
      B |= uint32_t(In[W * 32 + L] > 0) << L;
    EXPECT_EQ(Ballots[W], B);
    EXPECT_EQ(Anys[W] != 0, B != 0);
    EXPECT_EQ(Alls[W] != 0, B == 0xffffffffu);
  }
  for (int I = 0; I < T; ++I) {
    int W = I & ~31, L = I & 31;
    int X = W + (L ^ 5), Up = L >= 3 ? I - 3 : I, Idx = (W + ((L + 7) & 31)) * 10;
    EXPECT_EQ(Xs[I], X + Up * 1000 + Idx * 1000000) << I;
  }
}

INSTANTIATE_TEST_SUITE_P(Archs, NvccKernels, ::testing::Values("compute_75", "compute_90"));

} // namespace
