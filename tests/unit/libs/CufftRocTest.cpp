//===- CufftRocTest.cpp - our cuFFT on the HIP backend over rocFFT ---------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Runs with the test HIP runtime (device memory is host memory) and
/// the test rocFFT (tests/fake_rocfft: the naive DFT over the described
/// layout), so what our library described to rocFFT is checked by the
/// numbers against a naive DFT computed here: complex, real-to-complex and
/// complex-to-real transforms, 1D and 2D, batches, in and out of place, an
/// advanced layout, both precisions, the HIP stream under the plan's stream
/// and rocFFT's work buffer. Run twice by ctest: with the test rocFFT, and
/// with none (the host path through FFTW answers the same numbers).
#include "zluda/cuda_abi.h"
#include "zluda/cufft_abi.h"
#include "HipTestContext.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <random>
#include <vector>

extern "C" {
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuStreamCreate(CUstream *, unsigned);
CUresult cuStreamSynchronize(CUstream);
cufftResult cufftPlan1d(cufftHandle *, int, cufftType, int);
cufftResult cufftPlan2d(cufftHandle *, int, int, cufftType);
cufftResult cufftPlanMany(cufftHandle *, int, int *, int *, int, int, int *, int, int, cufftType, int);
cufftResult cufftSetStream(cufftHandle, CUstream);
cufftResult cufftExecC2C(cufftHandle, void *, void *, int);
cufftResult cufftExecZ2Z(cufftHandle, void *, void *, int);
cufftResult cufftExecD2Z(cufftHandle, void *, void *);
cufftResult cufftExecC2R(cufftHandle, void *, void *);
cufftResult cufftDestroy(cufftHandle);
}
void *zludaNativeStream(CUstream);

namespace {
using Z = std::complex<double>;

bool withRocfft() {
  const char *E = std::getenv("ZLUDA_ROCFFT_LIBRARY");
  return E && std::strstr(E, "fake");
}
struct Fake {
  int (*Executions)() = nullptr;
  void *(*Stream)() = nullptr;
};
Fake fake() {
  Fake F;
  if (void *L = withRocfft() ? dlopen(std::getenv("ZLUDA_ROCFFT_LIBRARY"), RTLD_NOW | RTLD_NOLOAD) : nullptr) {
    F.Executions = reinterpret_cast<int (*)()>(dlsym(L, "fakeRocfftExecutions"));
    F.Stream = reinterpret_cast<void *(*)()>(dlsym(L, "fakeRocfftLastStream"));
  }
  return F;
}

/// The naive unnormalized DFT of a row-major Dims array (sign -1 forward).
std::vector<Z> dft(const std::vector<Z> &X, const std::vector<int> &Dims, int Sign) {
  size_t Total = X.size();
  std::vector<Z> Y(Total);
  const size_t R = Dims.size();
  auto idx = [&](size_t F, std::vector<size_t> &I) {
    for (size_t K = R; K-- > 0;)
      I[K] = F % size_t(Dims[K]), F /= size_t(Dims[K]);
  };
  std::vector<size_t> A(R), B(R);
  for (size_t Fk = 0; Fk < Total; ++Fk) {
    idx(Fk, B);
    Z S = 0;
    for (size_t Fx = 0; Fx < Total; ++Fx) {
      idx(Fx, A);
      double Ph = 0;
      for (size_t K = 0; K < R; ++K)
        Ph += double(A[K] * B[K] % size_t(Dims[K])) / Dims[K];
      S += X[Fx] * std::polar(1.0, Sign * 2 * M_PI * Ph);
    }
    Y[Fk] = S;
  }
  return Y;
}

class CufftRoc : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(usePrimaryContext());
    ASSERT_EQ(cuStreamCreate(&S, 0), CUDA_SUCCESS);
  }
  /// Device memory of \p Bytes filled with \p Init (test HIP memory is host memory).
  void *alloc(size_t Bytes, const void *Init = nullptr) {
    CUdeviceptr P;
    EXPECT_EQ(cuMemAlloc_v2(&P, Bytes), CUDA_SUCCESS);
    if (Init)
      std::memcpy(reinterpret_cast<void *>(P), Init, Bytes);
    else
      std::memset(reinterpret_cast<void *>(P), 0x7f, Bytes); // poisoned
    Mem.push_back(P);
    return reinterpret_cast<void *>(P);
  }
  void TearDown() override {
    for (CUdeviceptr P : Mem)
      cuMemFree_v2(P);
  }
  /// After \p Execs executions: rocFFT ran them on the plan's stream (with the test rocFFT), or nothing reached it.
  void expectRocfft(int Execs) {
    Fake F = fake();
    if (!withRocfft()) {
      EXPECT_EQ(F.Executions, nullptr);
      return;
    }
    ASSERT_NE(F.Executions, nullptr);
    EXPECT_EQ(F.Executions() - Before, Execs);
    EXPECT_EQ(F.Stream(), zludaNativeStream(S));
    Before = F.Executions();
  }
  CUstream S = nullptr;
  std::vector<CUdeviceptr> Mem;
  int Before = 0;
  std::mt19937 Rng{11};
  std::uniform_real_distribution<double> U{-1, 1};
};

// C2C 1D, 3 batches of 16 out of place, forward then inverse (unnormalized: 16 x the input).
TEST_F(CufftRoc, ComplexBatchesForwardAndInverse) {
  Before = fake().Executions ? fake().Executions() : 0;
  const int N = 16, Batch = 3;
  std::vector<std::complex<float>> X(size_t(N) * Batch);
  for (auto &V : X)
    V = {float(U(Rng)), float(U(Rng))};
  void *In = alloc(X.size() * 8, X.data()), *Out = alloc(X.size() * 8), *Back = alloc(X.size() * 8);
  cufftHandle P;
  ASSERT_EQ(cufftPlan1d(&P, N, CUFFT_C2C, Batch), CUFFT_SUCCESS);
  ASSERT_EQ(cufftSetStream(P, S), CUFFT_SUCCESS);
  ASSERT_EQ(cufftExecC2C(P, In, Out, -1), CUFFT_SUCCESS);
  ASSERT_EQ(cufftExecC2C(P, Out, Back, 1), CUFFT_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  auto *Y = static_cast<std::complex<float> *>(Out), *W = static_cast<std::complex<float> *>(Back);
  for (int B = 0; B < Batch; ++B) {
    std::vector<Z> Xb(X.begin() + B * N, X.begin() + (B + 1) * N);
    auto Want = dft(Xb, {N}, -1);
    for (int K = 0; K < N; ++K) {
      EXPECT_NEAR(std::abs(Z(Y[B * N + K]) - Want[size_t(K)]), 0, 1e-4) << B << " " << K;
      EXPECT_NEAR(std::abs(Z(W[B * N + K]) - double(N) * Xb[size_t(K)]), 0, 1e-4) << B << " " << K;
    }
  }
  expectRocfft(2);
  cufftDestroy(P);
}

// D2Z 2D 6 x 10, out of place: the Hermitian half 6 x 6.
TEST_F(CufftRoc, RealToComplex2D) {
  Before = fake().Executions ? fake().Executions() : 0;
  const int Nx = 6, Ny = 10, Hy = Ny / 2 + 1;
  std::vector<double> X(size_t(Nx) * Ny);
  for (auto &V : X)
    V = U(Rng);
  void *In = alloc(X.size() * 8, X.data()), *Out = alloc(size_t(Nx) * Hy * 16);
  cufftHandle P;
  ASSERT_EQ(cufftPlan2d(&P, Nx, Ny, CUFFT_D2Z), CUFFT_SUCCESS);
  ASSERT_EQ(cufftSetStream(P, S), CUFFT_SUCCESS);
  ASSERT_EQ(cufftExecD2Z(P, In, Out), CUFFT_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  std::vector<Z> Xc(X.begin(), X.end());
  auto Want = dft(Xc, {Nx, Ny}, -1);
  auto *Y = static_cast<Z *>(Out);
  for (int I = 0; I < Nx; ++I)
    for (int J = 0; J < Hy; ++J)
      EXPECT_NEAR(std::abs(Y[I * Hy + J] - Want[size_t(I * Ny + J)]), 0, 1e-10) << I << " " << J;
  expectRocfft(1);
  cufftDestroy(P);
}

// C2R 1D of 12 in place (the real rows padded to 14 floats), 2 batches: 12 x the signal whose DFT went in.
TEST_F(CufftRoc, ComplexToRealInPlace) {
  Before = fake().Executions ? fake().Executions() : 0;
  const int N = 12, H = N / 2 + 1, Batch = 2;
  std::vector<std::vector<double>> Sig(Batch, std::vector<double>(N));
  std::vector<std::complex<float>> Buf(size_t(H) * Batch);
  for (int B = 0; B < Batch; ++B) {
    for (auto &V : Sig[size_t(B)])
      V = U(Rng);
    auto F = dft(std::vector<Z>(Sig[size_t(B)].begin(), Sig[size_t(B)].end()), {N}, -1);
    for (int K = 0; K < H; ++K)
      Buf[size_t(B * H + K)] = std::complex<float>(F[size_t(K)]);
  }
  void *D = alloc(Buf.size() * 8, Buf.data());
  cufftHandle P;
  ASSERT_EQ(cufftPlan1d(&P, N, CUFFT_C2R, Batch), CUFFT_SUCCESS);
  ASSERT_EQ(cufftSetStream(P, S), CUFFT_SUCCESS);
  ASSERT_EQ(cufftExecC2R(P, D, D), CUFFT_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  auto *R = static_cast<float *>(D);
  for (int B = 0; B < Batch; ++B)
    for (int I = 0; I < N; ++I)
      EXPECT_NEAR(R[B * 2 * H + I], N * Sig[size_t(B)][size_t(I)], 1e-4) << B << " " << I;
  expectRocfft(1);
  cufftDestroy(P);
}

// Z2Z with an advanced layout: input every second element, batches 20 apart; output packed.
TEST_F(CufftRoc, AdvancedLayout) {
  Before = fake().Executions ? fake().Executions() : 0;
  int N = 8, Inembed = 10, Onembed = 8;
  const int Batch = 3, IStride = 2, IDist = 20, OStride = 1, ODist = 8;
  std::vector<Z> X(size_t(IDist) * Batch);
  for (auto &V : X)
    V = {U(Rng), U(Rng)};
  void *In = alloc(X.size() * 16, X.data()), *Out = alloc(size_t(ODist) * Batch * 16);
  cufftHandle P;
  ASSERT_EQ(cufftPlanMany(&P, 1, &N, &Inembed, IStride, IDist, &Onembed, OStride, ODist, CUFFT_Z2Z, Batch),
            CUFFT_SUCCESS);
  ASSERT_EQ(cufftSetStream(P, S), CUFFT_SUCCESS);
  ASSERT_EQ(cufftExecZ2Z(P, In, Out, -1), CUFFT_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  auto *Y = static_cast<Z *>(Out);
  for (int B = 0; B < Batch; ++B) {
    std::vector<Z> Xb(static_cast<size_t>(N));
    for (int I = 0; I < N; ++I)
      Xb[size_t(I)] = X[size_t(B * IDist + I * IStride)];
    auto Want = dft(Xb, {N}, -1);
    for (int K = 0; K < N; ++K)
      EXPECT_NEAR(std::abs(Y[B * ODist + K] - Want[size_t(K)]), 0, 1e-10) << B << " " << K;
  }
  expectRocfft(1);
  cufftDestroy(P);
}

} // namespace
