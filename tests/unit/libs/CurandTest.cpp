//===- CurandTest.cpp - our libcurand against NVIDIA's host generator -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file NVIDIA's libcurand generates on the host without a GPU
/// (curandCreateGeneratorHost), so the sequences of our host generators are
/// compared with it bit for bit: every generator we implement, every
/// distribution, offsets, seeds, consecutive calls. NVIDIA's library is
/// loaded with dlopen (RTLD_LOCAL | RTLD_DEEPBIND) beside ours; the tests
/// that need it are skipped where the toolkit is absent.
#include "zluda/curand_abi.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <dlfcn.h>
#include <vector>

extern "C" {
curandStatus_t curandCreateGeneratorHost(curandGenerator_t *, curandRngType_t);
curandStatus_t curandDestroyGenerator(curandGenerator_t);
curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t, unsigned long long);
curandStatus_t curandSetGeneratorOffset(curandGenerator_t, unsigned long long);
curandStatus_t curandSetGeneratorOrdering(curandGenerator_t, curandOrdering_t);
curandStatus_t curandGenerate(curandGenerator_t, unsigned *, size_t);
curandStatus_t curandGenerateLongLong(curandGenerator_t, unsigned long long *, size_t);
curandStatus_t curandGenerateUniform(curandGenerator_t, float *, size_t);
curandStatus_t curandGenerateUniformDouble(curandGenerator_t, double *, size_t);
curandStatus_t curandGenerateNormal(curandGenerator_t, float *, size_t, float, float);
curandStatus_t curandGenerateNormalDouble(curandGenerator_t, double *, size_t, double, double);
curandStatus_t curandGenerateLogNormal(curandGenerator_t, float *, size_t, float, float);
curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t, double *, size_t, double, double);
curandStatus_t curandGeneratePoisson(curandGenerator_t, unsigned *, size_t, double);
curandStatus_t curandGetVersion(int *);
curandStatus_t curandSetQuasiRandomGeneratorDimensions(curandGenerator_t, unsigned);
curandStatus_t curandGetDirectionVectors32(curandDirectionVectors32_t **, curandDirectionVectorSet_t);
curandStatus_t curandGetDirectionVectors64(curandDirectionVectors64_t **, curandDirectionVectorSet_t);
}

namespace {

/// One library's entry points: ours (linked) or NVIDIA's (dlopen).
struct Api {
  decltype(&curandCreateGeneratorHost) Create = curandCreateGeneratorHost;
  decltype(&curandDestroyGenerator) Destroy = curandDestroyGenerator;
  decltype(&curandSetPseudoRandomGeneratorSeed) Seed = curandSetPseudoRandomGeneratorSeed;
  decltype(&curandSetGeneratorOffset) Offset = curandSetGeneratorOffset;
  decltype(&curandSetGeneratorOrdering) Order = curandSetGeneratorOrdering;
  decltype(&curandGenerate) Bits = curandGenerate;
  decltype(&curandGenerateUniform) Uniform = curandGenerateUniform;
  decltype(&curandGenerateUniformDouble) UniformD = curandGenerateUniformDouble;
  decltype(&curandGenerateNormal) Normal = curandGenerateNormal;
  decltype(&curandGenerateNormalDouble) NormalD = curandGenerateNormalDouble;
  decltype(&curandGenerateLogNormal) LogNormal = curandGenerateLogNormal;
  decltype(&curandGenerateLogNormalDouble) LogNormalD = curandGenerateLogNormalDouble;
  decltype(&curandGenerateLongLong) LongLong = curandGenerateLongLong;
  decltype(&curandSetQuasiRandomGeneratorDimensions) Dims = curandSetQuasiRandomGeneratorDimensions;
  decltype(&curandGetDirectionVectors32) Dir32 = curandGetDirectionVectors32;
  decltype(&curandGetDirectionVectors64) Dir64 = curandGetDirectionVectors64;
};

const Api *nvidia() {
  static const Api *A = []() -> const Api * {
    void *H = dlopen("/usr/local/cuda/lib64/libcurand.so.10", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!H)
      return nullptr;
    auto *R = new Api;
#define SYM(F, Name) R->F = reinterpret_cast<decltype(R->F)>(dlsym(H, Name))
    SYM(Create, "curandCreateGeneratorHost");
    SYM(Destroy, "curandDestroyGenerator");
    SYM(Seed, "curandSetPseudoRandomGeneratorSeed");
    SYM(Offset, "curandSetGeneratorOffset");
    SYM(Order, "curandSetGeneratorOrdering");
    SYM(Bits, "curandGenerate");
    SYM(Uniform, "curandGenerateUniform");
    SYM(UniformD, "curandGenerateUniformDouble");
    SYM(Normal, "curandGenerateNormal");
    SYM(NormalD, "curandGenerateNormalDouble");
    SYM(LogNormal, "curandGenerateLogNormal");
    SYM(LogNormalD, "curandGenerateLogNormalDouble");
    SYM(LongLong, "curandGenerateLongLong");
    SYM(Dims, "curandSetQuasiRandomGeneratorDimensions");
    SYM(Dir32, "curandGetDirectionVectors32");
    SYM(Dir64, "curandGetDirectionVectors64");
#undef SYM
    return R;
  }();
  return A;
}

enum What { Bits, Uniform, UniformD, Normal, NormalD, LogNormal, LogNormalD };
const char *name(What W) {
  static const char *N[] = {"bits", "uniform", "uniform double", "normal", "normal double", "log-normal",
                            "log-normal double"};
  return N[W];
}
size_t bytes(What W) { return W == UniformD || W == NormalD || W == LogNormalD ? 8 : 4; }

/// One call of \p W on generator \p G of library \p A.
curandStatus_t call(const Api &A, curandGenerator_t G, What W, void *Out, size_t N) {
  switch (W) {
  case Bits:
    return A.Bits(G, static_cast<unsigned *>(Out), N);
  case Uniform:
    return A.Uniform(G, static_cast<float *>(Out), N);
  case UniformD:
    return A.UniformD(G, static_cast<double *>(Out), N);
  case Normal:
    return A.Normal(G, static_cast<float *>(Out), N, 1.5f, 2.0f);
  case NormalD:
    return A.NormalD(G, static_cast<double *>(Out), N, -1.0, 0.5);
  case LogNormal:
    return A.LogNormal(G, static_cast<float *>(Out), N, 0.25f, 0.5f);
  case LogNormalD:
    return A.LogNormalD(G, static_cast<double *>(Out), N, 0.25, 0.5);
  }
  return CURAND_STATUS_INTERNAL_ERROR;
}

/// A script of calls: seed, offset, then calls of the given sizes.
struct Script {
  curandRngType_t Type;
  unsigned long long Seed;
  unsigned long long Offset;
  std::vector<size_t> Sizes;
  curandOrdering_t Order = CURAND_ORDERING_PSEUDO_DEFAULT;
};

std::vector<unsigned char> run(const Api &A, const Script &S, What W, std::vector<curandStatus_t> &Status) {
  curandGenerator_t G;
  EXPECT_EQ(A.Create(&G, S.Type), CURAND_STATUS_SUCCESS);
  EXPECT_EQ(A.Seed(G, S.Seed), CURAND_STATUS_SUCCESS);
  EXPECT_EQ(A.Offset(G, S.Offset), CURAND_STATUS_SUCCESS);
  if (S.Order != CURAND_ORDERING_PSEUDO_DEFAULT)
    EXPECT_EQ(A.Order(G, S.Order), CURAND_STATUS_SUCCESS);
  // Normal values come in pairs from the XORWOW and MRG32k3a generators: odd
  // counts are refused (StatusCodesMatch), and NVIDIA's generator can crash
  // in the call after a refused one, so they are rounded up here.
  const bool Pairs = W == Normal || W == NormalD || W == LogNormal || W == LogNormalD;
  std::vector<size_t> Sizes = S.Sizes;
  for (size_t &N : Sizes)
    N += Pairs ? N % 2 : 0;
  size_t Total = 0;
  for (size_t N : Sizes)
    Total += N;
  std::vector<unsigned char> Out(Total * bytes(W), 0xA5);
  size_t At = 0;
  for (size_t N : Sizes) {
    Status.push_back(call(A, G, W, Out.data() + At * bytes(W), N));
    At += N;
  }
  A.Destroy(G);
  return Out;
}

/// Every script, for every kind of value: the same statuses and bits as
/// NVIDIA's host generator.
void expectSameAsNvidia(const std::vector<Script> &Scripts) {
  Api Ours;
  for (What W : {Bits, Uniform, UniformD, Normal, NormalD, LogNormal, LogNormalD})
    for (size_t I = 0; I < Scripts.size(); ++I) {
      std::vector<curandStatus_t> SO, SN;
      auto A = run(Ours, Scripts[I], W, SO);
      auto B = run(*nvidia(), Scripts[I], W, SN);
      ASSERT_EQ(SO, SN) << name(W) << ", script " << I;
      size_t Diff = 0, First = SIZE_MAX;
      for (size_t J = 0; J < A.size(); J += bytes(W))
        if (std::memcmp(&A[J], &B[J], bytes(W))) {
          ++Diff;
          First = std::min(First, J / bytes(W));
        }
      EXPECT_EQ(Diff, 0u) << name(W) << ", script " << I << ": " << Diff << " of " << A.size() / bytes(W)
                          << " values differ, the first at " << First;
    }
}

class CurandVsNvidia : public ::testing::TestWithParam<curandRngType_t> {
protected:
  void SetUp() override {
    if (!nvidia())
      GTEST_SKIP() << "NVIDIA's libcurand.so.10 is not installed";
  }
};

TEST_P(CurandVsNvidia, SequencesAreBitExact) {
  const curandRngType_t T = GetParam();
  const std::vector<Script> Scripts = {
      {T, 1234, 0, {100000}},
      {T, 0, 0, {4096, 4096}},
      {T, 0xDEADBEEFCAFEull, 7, {1, 2, 4095, 4097, 81920}},
      {T, 42, 4096, {300000}},
      {T, 42, 81921, {20000, 6, 10}},
      {T, 99, 1000005, {70000}},
      {T, 5, 3, {2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192}},
  };
  expectSameAsNvidia(Scripts);
}

/// Bits of generator \p T, seed 5, switched to the ordering \p O between calls and back, as NVIDIA's.
void expectSwitchSameAsNvidia(curandRngType_t T, curandOrdering_t O) {
  auto Switch = [&](const Api &A) {
    curandGenerator_t G;
    A.Create(&G, T);
    A.Seed(G, 5);
    std::vector<unsigned> V(1000 + 9000 + 5000);
    A.Bits(G, V.data(), 1000);
    A.Order(G, O);
    A.Bits(G, V.data() + 1000, 9000);
    A.Order(G, CURAND_ORDERING_PSEUDO_DEFAULT);
    A.Bits(G, V.data() + 10000, 5000);
    A.Destroy(G);
    return V;
  };
  Api Ours;
  auto X = Switch(Ours), Y = Switch(*nvidia());
  size_t Diff = 0, First = SIZE_MAX;
  for (size_t I = 0; I < X.size(); ++I)
    if (X[I] != Y[I])
      ++Diff, First = std::min(First, I);
  EXPECT_EQ(Diff, 0u) << "first at " << First;
}

// MRG32k3a's legacy ordering (4,096 lanes), every kind of value; the other
// generators' legacy ordering is their default one.
TEST_P(CurandVsNvidia, LegacyOrderingIsBitExact) {
  const curandRngType_t T = GetParam();
  const curandOrdering_t L = CURAND_ORDERING_PSEUDO_LEGACY;
  const std::vector<Script> Scripts = {
      {T, 1234, 0, {100000}, L},
      {T, 0xDEADBEEFCAFEull, 7, {1, 2, 4095, 4097, 81920}, L},
      {T, 42, 4097, {20000, 6, 10}, L},
      {T, 99, 1000005, {70000}, L},
  };
  expectSameAsNvidia(Scripts);
  // Switching the ordering between calls: MRG32k3a continues at the offset
  // reached in the other layout; Philox restarts as after a re-seed.
  expectSwitchSameAsNvidia(T, L);
}

// XORWOW's and MRG32k3a's lanes keep their positions across a re-seed;
// Philox moves to where NVIDIA's does (Curand.cpp, philoxRestart).
TEST_P(CurandVsNvidia, ReseedKeepsThePosition) {
  const curandRngType_t T = GetParam();
  Api Ours;
  auto Run = [&](const Api &A) {
    curandGenerator_t G;
    A.Create(&G, T);
    A.Seed(G, 11);
    std::vector<unsigned> V(5000 + 1000 + 3000);
    A.Bits(G, V.data(), 1000);
    A.Seed(G, 12);
    A.UniformD(G, reinterpret_cast<double *>(V.data() + 1000), 2500);
    A.Offset(G, 77);
    A.Bits(G, V.data() + 6000, 3000);
    A.Destroy(G);
    return V;
  };
  EXPECT_TRUE(Run(Ours) == Run(*nvidia()));
}

// Philox after re-seeds, offsets and ordering changes in many orders: NVIDIA's
// generator restarts at positions computed in groups of four (Curand.cpp,
// philoxRestart), which small counts and chains of restarts exercise.
TEST(PhiloxVsNvidia, RestartsMatch) {
  if (!nvidia())
    GTEST_SKIP() << "NVIDIA's libcurand.so.10 is not installed";
  enum Op { Gen, GenD, Seed, Offset, Legacy, Default };
  const std::vector<std::vector<std::pair<Op, unsigned>>> Scripts = {
      {{Gen, 3}, {Seed, 12}, {Gen, 9}},
      {{Gen, 5}, {Seed, 12}, {Gen, 9}},
      {{Offset, 2}, {Gen, 1}, {Seed, 12}, {Gen, 9}},
      {{Offset, 7}, {Gen, 10}, {Seed, 12}, {Gen, 9}},
      {{Gen, 10}, {Seed, 12}, {Gen, 10}, {Seed, 13}, {Gen, 9}},
      {{Gen, 2}, {Seed, 12}, {Gen, 5}, {Seed, 13}, {Gen, 9}},
      {{Gen, 10}, {Offset, 6}, {Gen, 7}, {Seed, 12}, {Gen, 9}},
      {{GenD, 1001}, {Seed, 12}, {GenD, 3}, {Seed, 13}, {Gen, 1000}},
      {{Gen, 262151}, {Seed, 12}, {Gen, 70000}},
      {{Gen, 1000}, {Legacy, 0}, {Gen, 9000}, {Default, 0}, {Gen, 5000}},
      {{Gen, 1003}, {Default, 0}, {Gen, 90}, {Legacy, 0}, {Legacy, 0}, {Gen, 50}},
  };
  auto Run = [](const Api &A, const std::vector<std::pair<Op, unsigned>> &S) {
    curandGenerator_t G;
    A.Create(&G, CURAND_RNG_PSEUDO_PHILOX4_32_10);
    A.Seed(G, 11);
    std::vector<unsigned> Out;
    for (auto [O, V] : S) {
      std::vector<unsigned> Buf(2 * size_t(V));
      switch (O) {
      case Gen:
        A.Bits(G, Buf.data(), V);
        Buf.resize(V);
        break;
      case GenD:
        A.UniformD(G, reinterpret_cast<double *>(Buf.data()), V);
        break;
      case Seed:
        A.Seed(G, V);
        break;
      case Offset:
        A.Offset(G, V);
        break;
      case Legacy:
        A.Order(G, CURAND_ORDERING_PSEUDO_LEGACY);
        break;
      case Default:
        A.Order(G, CURAND_ORDERING_PSEUDO_DEFAULT);
        break;
      }
      Out.insert(Out.end(), Buf.begin(), Buf.end());
    }
    A.Destroy(G);
    return Out;
  };
  Api Ours;
  for (size_t I = 0; I < Scripts.size(); ++I)
    EXPECT_TRUE(Run(Ours, Scripts[I]) == Run(*nvidia(), Scripts[I])) << "script " << I;
}

TEST_P(CurandVsNvidia, StatusCodesMatch) {
  const curandRngType_t T = GetParam();
  Api Ours;
  auto Codes = [&](const Api &A) {
    std::vector<int> R;
    curandGenerator_t G;
    R.push_back(A.Create(&G, T));
    float F[3];
    R.push_back(A.Normal(G, F, 3, 0, 1)); // odd lengths: Box-Muller pairs
    R.push_back(A.Normal(G, F, 0, 0, 1));
    for (int O : {100, 101, 102, 103, 104, 201})
      R.push_back(A.Order(G, curandOrdering_t(O)));
    R.push_back(A.Order(G, CURAND_ORDERING_PSEUDO_DEFAULT));
    R.push_back(A.Destroy(G));
    return R;
  };
  EXPECT_EQ(Codes(Ours), Codes(*nvidia()));
}

// XORWOW's seeded ordering (each of the 4,096 lanes its own seed), every kind of value, and switches between it
// and the default ordering between calls (the generator continues at the offset reached, in the other layout).
TEST_P(CurandVsNvidia, SeededOrderingIsBitExact) {
  const curandRngType_t T = GetParam();
  if (T != CURAND_RNG_PSEUDO_XORWOW && T != CURAND_RNG_PSEUDO_DEFAULT)
    GTEST_SKIP() << "NVIDIA's host generators take the seeded ordering for XORWOW only";
  const curandOrdering_t S = CURAND_ORDERING_PSEUDO_SEEDED;
  const std::vector<Script> Scripts = {
      {T, 1234, 0, {100000}, S},
      {T, 0xFFFFFFFFFFFFFF00ull, 7, {1, 2, 4095, 4097, 81920}, S}, // the lanes' seeds wrap around 2^64
      {T, 42, 4097, {20000, 6, 10}, S},
      {T, 99, 1000005, {70000}, S},
  };
  expectSameAsNvidia(Scripts);
  expectSwitchSameAsNvidia(T, S);
}

INSTANTIATE_TEST_SUITE_P(Generators, CurandVsNvidia,
                         ::testing::Values(CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_MRG32K3A,
                                           CURAND_RNG_PSEUDO_PHILOX4_32_10, CURAND_RNG_PSEUDO_DEFAULT),
                         [](const auto &I) {
                           switch (I.param) {
                           case CURAND_RNG_PSEUDO_XORWOW:
                             return "Xorwow";
                           case CURAND_RNG_PSEUDO_MRG32K3A:
                             return "Mrg32k3a";
                           case CURAND_RNG_PSEUDO_PHILOX4_32_10:
                             return "Philox";
                           default:
                             return "Default";
                           }
                         });

/// Sobol32 and Sobol64: the direction vectors and the points are NVIDIA's
/// bit for bit; normals (the inverse CDF, NVIDIA's erfcinvf against our
/// double-precision erfcinv) within a few units in the last place.
class SobolVsNvidia : public ::testing::TestWithParam<curandRngType_t> {
protected:
  void SetUp() override {
    if (!nvidia())
      GTEST_SKIP() << "NVIDIA's libcurand.so.10 is not installed";
  }
};

TEST(SobolTables, DirectionVectorsAreNvidias) {
  if (!nvidia())
    GTEST_SKIP() << "NVIDIA's libcurand.so.10 is not installed";
  Api Ours;
  curandDirectionVectors32_t *A, *B;
  ASSERT_EQ(Ours.Dir32(&A, CURAND_DIRECTION_VECTORS_32_JOEKUO6), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(nvidia()->Dir32(&B, CURAND_DIRECTION_VECTORS_32_JOEKUO6), CURAND_STATUS_SUCCESS);
  EXPECT_EQ(std::memcmp(A, B, sizeof(curandDirectionVectors32_t) * 20000), 0);
  curandDirectionVectors64_t *C, *D;
  ASSERT_EQ(Ours.Dir64(&C, CURAND_DIRECTION_VECTORS_64_JOEKUO6), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(nvidia()->Dir64(&D, CURAND_DIRECTION_VECTORS_64_JOEKUO6), CURAND_STATUS_SUCCESS);
  EXPECT_EQ(std::memcmp(C, D, sizeof(curandDirectionVectors64_t) * 20000), 0);
}

TEST_P(SobolVsNvidia, PointsMatch) {
  const curandRngType_t T = GetParam();
  const bool Wide = T == CURAND_RNG_QUASI_SOBOL64;
  struct Case {
    unsigned Dims;
    unsigned long long Offset;
    std::vector<size_t> Points; ///< per call, per dimension
  };
  const std::vector<Case> Cases = {{1, 0, {1000}}, {3, 5, {7, 1, 100}}, {1000, 12345, {4, 3}}, {20000, 0, {2}}};
  Api Ours;
  for (int W = 0; W < 5; ++W)
    for (size_t C = 0; C < Cases.size(); ++C) {
      const Case &K = Cases[C];
      auto Run = [&](const Api &A) {
        curandGenerator_t G;
        EXPECT_EQ(A.Create(&G, T), CURAND_STATUS_SUCCESS);
        EXPECT_EQ(A.Dims(G, K.Dims), CURAND_STATUS_SUCCESS);
        EXPECT_EQ(A.Offset(G, K.Offset), CURAND_STATUS_SUCCESS);
        std::vector<double> Out;
        for (size_t P : K.Points) {
          const size_t N = P * K.Dims;
          std::vector<unsigned char> Buf(N * 8);
          curandStatus_t S;
          switch (W) {
          case 0:
            S = Wide ? A.LongLong(G, reinterpret_cast<unsigned long long *>(Buf.data()), N)
                     : A.Bits(G, reinterpret_cast<unsigned *>(Buf.data()), N);
            for (size_t I = 0; I < N; ++I)
              Out.push_back(Wide ? double(reinterpret_cast<unsigned long long *>(Buf.data())[I])
                                 : double(reinterpret_cast<unsigned *>(Buf.data())[I]));
            break;
          case 1:
            S = A.Uniform(G, reinterpret_cast<float *>(Buf.data()), N);
            for (size_t I = 0; I < N; ++I)
              Out.push_back(reinterpret_cast<float *>(Buf.data())[I]);
            break;
          case 2:
            S = A.UniformD(G, reinterpret_cast<double *>(Buf.data()), N);
            for (size_t I = 0; I < N; ++I)
              Out.push_back(reinterpret_cast<double *>(Buf.data())[I]);
            break;
          case 3:
            S = A.Normal(G, reinterpret_cast<float *>(Buf.data()), N, 0.5f, 2.0f);
            for (size_t I = 0; I < N; ++I)
              Out.push_back(reinterpret_cast<float *>(Buf.data())[I]);
            break;
          default:
            S = A.NormalD(G, reinterpret_cast<double *>(Buf.data()), N, 0.5, 2.0);
            for (size_t I = 0; I < N; ++I)
              Out.push_back(reinterpret_cast<double *>(Buf.data())[I]);
            break;
          }
          EXPECT_EQ(S, CURAND_STATUS_SUCCESS);
        }
        A.Destroy(G);
        return Out;
      };
      auto A = Run(Ours), B = Run(*nvidia());
      ASSERT_EQ(A.size(), B.size());
      size_t Diff = 0;
      for (size_t I = 0; I < A.size(); ++I) {
        // Normals: float within 4 ulps, double within 1e-13 relative (NVIDIA's erfcinv against ours).
        double Tol = W == 3 ? 4 * std::fabs(B[I]) * 1.2e-7 + 1e-6 : W == 4 ? std::fabs(B[I]) * 1e-13 + 1e-13 : 0;
        if (!(std::fabs(A[I] - B[I]) <= Tol))
          ++Diff;
      }
      EXPECT_EQ(Diff, 0u) << "kind " << W << ", case " << C;
    }
  // Lengths that are not whole points, and 32-bit values from Sobol64 (or 64-bit from Sobol32).
  curandGenerator_t G;
  ASSERT_EQ(Ours.Create(&G, T), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(Ours.Dims(G, 3), CURAND_STATUS_SUCCESS);
  unsigned long long L[4];
  float F[4];
  EXPECT_EQ(Ours.Uniform(G, F, 4), CURAND_STATUS_LENGTH_NOT_MULTIPLE);
  EXPECT_EQ(Wide ? Ours.Bits(G, reinterpret_cast<unsigned *>(L), 3) : Ours.LongLong(G, L, 3),
            CURAND_STATUS_TYPE_ERROR);
  EXPECT_EQ(Ours.Seed(G, 5), CURAND_STATUS_TYPE_ERROR);
  Ours.Destroy(G);
}

INSTANTIATE_TEST_SUITE_P(Sobol, SobolVsNvidia, ::testing::Values(CURAND_RNG_QUASI_SOBOL32, CURAND_RNG_QUASI_SOBOL64),
                         [](const auto &I) { return I.param == CURAND_RNG_QUASI_SOBOL32 ? "Sobol32" : "Sobol64"; });

/// MT19937 against NVIDIA's host generator: its 8,192 generators and their
/// layout (Mt19937.cpp). One script of calls of every kind, across the first
/// block of 624 words a generator (5,111,808 values), then the same seed
/// again (NVIDIA's keeps its place), other seeds (it starts again), and the
/// statuses of what it refuses. Bits and uniforms bit for bit, normals (the
/// inverse normal CDF) within a few units in the last place. Each seed costs
/// NVIDIA's library about 4 s here and ours about 3 s on two cores.
TEST(Mt19937VsNvidia, SequencesMatch) {
  if (!nvidia())
    GTEST_SKIP() << "NVIDIA's libcurand.so.10 is not installed";
  struct Call {
    What W;
    size_t N;
  };
  const size_t Block = 5111808;
  const std::vector<Call> Calls = {{Bits, 37},      {Uniform, 65536 * 3 + 5},      {Bits, Block - 65536 * 3 + 70000},
                                   {Normal, 1001},  {NormalD, 1000},               {LogNormal, 999},
                                   {LogNormalD, 7}, {UniformD, 1000},              {Uniform, 2000}};
  curandGenerator_t Gen = nullptr;
  auto Run = [&](const Api &A, std::vector<int> &Status) {
    std::vector<double> Out;
    auto Take = [&](What W, size_t N) {
      std::vector<unsigned char> Buf(N * bytes(W));
      Status.push_back(call(A, Gen, W, Buf.data(), N));
      for (size_t I = 0; I < N; ++I) {
        const unsigned char *P = Buf.data() + I * bytes(W);
        double V;
        if (W == Bits)
          V = *reinterpret_cast<const unsigned *>(P);
        else if (bytes(W) == 4)
          V = *reinterpret_cast<const float *>(P);
        else
          V = *reinterpret_cast<const double *>(P);
        Out.push_back(V);
      }
    };
    Status.push_back(A.Create(&Gen, CURAND_RNG_PSEUDO_MT19937));
    Status.push_back(A.Seed(Gen, 0xABCD000000000000ull + 987654321u)); // the high half is not used
    for (const Call &C : Calls)
      Take(C.W, C.N);
    Status.push_back(A.Seed(Gen, 0xABCD000000000000ull + 987654321u)); // the same seed: the generator goes on
    Take(Bits, 1000);
    Status.push_back(A.Seed(Gen, 987654321u)); // the same low half: it starts again all the same
    Take(Bits, 1000);
    Status.push_back(A.Offset(Gen, 10));
    Status.push_back(A.Order(Gen, CURAND_ORDERING_PSEUDO_BEST));
    Status.push_back(A.Order(Gen, CURAND_ORDERING_PSEUDO_SEEDED));
    Status.push_back(A.Order(Gen, CURAND_ORDERING_PSEUDO_LEGACY));
    Status.push_back(A.Order(Gen, CURAND_ORDERING_PSEUDO_DEFAULT));
    unsigned long long L[2];
    Status.push_back(A.LongLong(Gen, L, 2));
    Status.push_back(A.Seed(Gen, 42)); // another seed: from its first value
    Take(Bits, 70000);
    Status.push_back(A.Destroy(Gen));
    return Out;
  };
  Api Ours;
  std::vector<int> SO, SN;
  auto A = Run(Ours, SO), B = Run(*nvidia(), SN);
  EXPECT_EQ(SO, SN);
  ASSERT_EQ(A.size(), B.size());
  // Where each call's values start in A and B, and their kind.
  std::vector<What> Kind;
  for (const Call &C : Calls)
    Kind.insert(Kind.end(), C.N, C.W);
  Kind.insert(Kind.end(), 1000 + 1000 + 70000, Bits);
  size_t Exact = 0, Close = 0;
  for (size_t I = 0; I < A.size(); ++I) {
    const What W = Kind[I];
    const bool Quantile = W == Normal || W == NormalD || W == LogNormal || W == LogNormalD;
    if (!Quantile) {
      Exact += A[I] != B[I];
      continue;
    }
    const double Tol = bytes(W) == 4 ? 4 * std::fabs(B[I]) * 1.2e-7 : std::fabs(B[I]) * 1e-13;
    Close += !(std::fabs(A[I] - B[I]) <= Tol);
  }
  EXPECT_EQ(Exact, 0u) << "bits or uniforms differ";
  EXPECT_EQ(Close, 0u) << "normals differ by more than a few ulps";
}

/// Poisson values against the distribution: mean, variance and a chi-square
/// of the counts near the mean (NVIDIA's host Poisson is not reproduced bit
/// for bit; the device API's curand_poisson is the user's own code).
TEST(Curand, PoissonMatchesTheDistribution) {
  for (double Lambda : {0.5, 4.5, 37.0, 900.0}) {
    curandGenerator_t G;
    ASSERT_EQ(curandCreateGeneratorHost(&G, CURAND_RNG_PSEUDO_PHILOX4_32_10), CURAND_STATUS_SUCCESS);
    curandSetPseudoRandomGeneratorSeed(G, 77);
    const size_t N = 400000;
    std::vector<unsigned> V(N);
    ASSERT_EQ(curandGeneratePoisson(G, V.data(), N, Lambda), CURAND_STATUS_SUCCESS);
    double M = 0, Var = 0;
    for (unsigned X : V)
      M += X;
    M /= N;
    for (unsigned X : V)
      Var += (X - M) * (X - M);
    Var /= N - 1;
    EXPECT_NEAR(M, Lambda, 5 * std::sqrt(Lambda / N)) << Lambda;
    EXPECT_NEAR(Var / Lambda, 1.0, 0.02) << Lambda;
    // Chi-square over the values within 3 standard deviations.
    long Lo = std::max(0L, long(Lambda - 3 * std::sqrt(Lambda))), Hi = long(Lambda + 3 * std::sqrt(Lambda)) + 1;
    std::vector<double> Count(size_t(Hi - Lo + 1));
    for (unsigned X : V)
      if (long(X) >= Lo && long(X) <= Hi)
        Count[size_t(X - Lo)] += 1;
    double Chi = 0;
    for (long K = Lo; K <= Hi; ++K) {
      double P = std::exp(K * std::log(Lambda) - Lambda - std::lgamma(K + 1.0));
      double E = P * N;
      Chi += (Count[size_t(K - Lo)] - E) * (Count[size_t(K - Lo)] - E) / E;
    }
    double Dof = double(Hi - Lo);
    EXPECT_LT(Chi, Dof + 6 * std::sqrt(2 * Dof)) << Lambda;
    curandDestroyGenerator(G);
  }
}

TEST(Curand, ArgumentsAndVersion) {
  int V = 0;
  EXPECT_EQ(curandGetVersion(&V), CURAND_STATUS_SUCCESS);
  EXPECT_EQ(V, 10400);
  curandGenerator_t G;
  EXPECT_EQ(curandCreateGeneratorHost(&G, curandRngType_t(7)), CURAND_STATUS_TYPE_ERROR);
  ASSERT_EQ(curandCreateGeneratorHost(&G, CURAND_RNG_PSEUDO_XORWOW), CURAND_STATUS_SUCCESS);
  unsigned long long L[2];
  EXPECT_EQ(curandGenerateLongLong(G, L, 2), CURAND_STATUS_TYPE_ERROR);
  EXPECT_EQ(curandGeneratePoisson(G, reinterpret_cast<unsigned *>(L), 2, -1.0), CURAND_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(curandDestroyGenerator(G), CURAND_STATUS_SUCCESS);
  EXPECT_EQ(curandDestroyGenerator(G), CURAND_STATUS_NOT_INITIALIZED);
}

} // namespace
