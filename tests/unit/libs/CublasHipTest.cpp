//===- CublasHipTest.cpp - our cuBLAS on the HIP backend over rocBLAS -------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Runs with the test HIP runtime (tests/fake_hip: device memory is host
/// memory) and the test rocBLAS (tests/fake_rocblas: computes on it), so what
/// the backend passed to rocBLAS is checked by the numbers: transposes,
/// leading dimensions, strides, batches, types, scalars, pointer mode and
/// the HIP stream under the cuBLAS handle's stream. Run twice by ctest: with
/// the test rocBLAS, and with none (cublasCreate: NOT_SUPPORTED).
#include "zluda/cublas_abi.h"
#include "zluda/cuda_abi.h"
#include "HipTestContext.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <random>
#include <vector>

extern "C" {
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuStreamCreate(CUstream *, unsigned);
CUresult cuStreamSynchronize(CUstream);
CUresult cuCtxSynchronize();
cublasStatus_t cublasCreate_v2(cublasHandle_t *);
cublasStatus_t cublasDestroy_v2(cublasHandle_t);
cublasStatus_t cublasSetStream_v2(cublasHandle_t, CUstream);
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t, cublasPointerMode_t);
cublasStatus_t cublasSgemm_v2(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const float *,
                              const float *, int, const float *, int, const float *, float *, int);
cublasStatus_t cublasDgemmBatched(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const double *,
                                  const double *const[], int, const double *const[], int, const double *,
                                  double *const[], int, int);
cublasStatus_t cublasGemmEx(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void *,
                            const void *, cudaDataType, int, const void *, cudaDataType, int, const void *, void *,
                            cudaDataType, int, int, int);
cublasStatus_t cublasSdot_v2(cublasHandle_t, int, const float *, int, const float *, int, float *);
cublasStatus_t cublasSgemv_v2(cublasHandle_t, cublasOperation_t, int, int, const float *, const float *, int,
                              const float *, int, const float *, float *, int);
cublasStatus_t cublasStrsm_v2(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t, cublasDiagType_t,
                              int, int, const float *, const float *, int, float *, int);
}
void *zludaNativeStream(CUstream); // libcuda's (src/driver/Driver.cpp)

namespace {

template <typename T> T *devAlloc(size_t N) {
  CUdeviceptr P;
  EXPECT_EQ(cuMemAlloc_v2(&P, N * sizeof(T) + 16), CUDA_SUCCESS);
  return reinterpret_cast<T *>(P); // the test HIP runtime's device memory is host memory
}

struct Fake {
  int (*Calls)(const char *);
  void *(*LastStream)();
  int (*LastPointerMode)();
};
Fake fake() {
  void *H = dlopen(std::getenv("ZLUDA_ROCBLAS_LIBRARY"), RTLD_NOW | RTLD_NOLOAD);
  Fake F{};
  if (H) {
    F.Calls = reinterpret_cast<int (*)(const char *)>(dlsym(H, "fakeRocblasCalls"));
    F.LastStream = reinterpret_cast<void *(*)()>(dlsym(H, "fakeRocblasLastStream"));
    F.LastPointerMode = reinterpret_cast<int (*)()>(dlsym(H, "fakeRocblasLastPointerMode"));
  }
  return F;
}

class CublasHip : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(usePrimaryContext());
  }
};

TEST_F(CublasHip, WithoutRocblasCreateIsNotSupported) {
  if (std::getenv("ZLUDA_ROCBLAS_LIBRARY") && std::strstr(std::getenv("ZLUDA_ROCBLAS_LIBRARY"), "fake"))
    GTEST_SKIP() << "run with the test rocBLAS";
  cublasHandle_t H;
  EXPECT_EQ(cublasCreate_v2(&H), CUBLAS_STATUS_NOT_SUPPORTED);
}

TEST_F(CublasHip, CallsReachRocblasWithTheirArgumentsAndStream) {
  if (!std::getenv("ZLUDA_ROCBLAS_LIBRARY") || !std::strstr(std::getenv("ZLUDA_ROCBLAS_LIBRARY"), "fake"))
    GTEST_SKIP() << "needs the test rocBLAS";
  cublasHandle_t H;
  ASSERT_EQ(cublasCreate_v2(&H), CUBLAS_STATUS_SUCCESS);
  Fake F = fake();
  ASSERT_NE(F.Calls, nullptr);
  CUstream S;
  ASSERT_EQ(cuStreamCreate(&S, 0), CUDA_SUCCESS);
  ASSERT_EQ(cublasSetStream_v2(H, S), CUBLAS_STATUS_SUCCESS);
  std::mt19937 Rng(std::random_device{}());
  auto rnd = [&] { return std::uniform_real_distribution<float>(-1, 1)(Rng); };

  // SGEMM, A transposed, leading dimensions past the rows.
  const int M = 13, N = 9, K = 11, Lda = K + 2, Ldb = K + 1, Ldc = M + 3;
  float *A = devAlloc<float>(Lda * M), *B = devAlloc<float>(Ldb * N), *C = devAlloc<float>(Ldc * N);
  for (int I = 0; I < Lda * M; ++I)
    A[I] = rnd();
  for (int I = 0; I < Ldb * N; ++I)
    B[I] = rnd();
  for (int I = 0; I < Ldc * N; ++I)
    C[I] = rnd();
  std::vector<float> C0(C, C + Ldc * N);
  float Alpha = 0.5f, Beta = -2;
  ASSERT_EQ(cublasSgemm_v2(H, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &Alpha, A, Lda, B, Ldb, &Beta, C, Ldc),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(F.Calls("rocblas_gemm_strided_batched_ex"), 1);
  EXPECT_EQ(F.LastStream(), zludaNativeStream(S)) << "the HIP stream under the handle's stream";
  EXPECT_NE(F.LastStream(), nullptr);
  EXPECT_EQ(F.LastPointerMode(), 0);
  int Wrong = 0;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      double Sum = 0;
      for (int L = 0; L < K; ++L)
        Sum += double(A[I * Lda + L]) * B[J * Ldb + L];
      Wrong += std::fabs(C[J * Ldc + I] - (Alpha * Sum + Beta * C0[J * Ldc + I])) > 1e-4;
    }
  EXPECT_EQ(Wrong, 0);

  // DGEMM over pointer arrays (device memory), B transposed.
  const int Count = 3;
  double **PA = devAlloc<double *>(Count), **PB = devAlloc<double *>(Count), **PC = devAlloc<double *>(Count);
  for (int I = 0; I < Count; ++I) {
    PA[I] = devAlloc<double>(M * K);
    PB[I] = devAlloc<double>(N * K);
    PC[I] = devAlloc<double>(M * N);
    for (int E = 0; E < M * K; ++E)
      PA[I][E] = rnd();
    for (int E = 0; E < N * K; ++E)
      PB[I][E] = rnd();
  }
  double One = 1, Zero = 0;
  ASSERT_EQ(cublasDgemmBatched(H, CUBLAS_OP_N, CUBLAS_OP_T, M, N, K, &One, PA, M, PB, N, &Zero, PC, M, Count),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(F.Calls("rocblas_gemm_batched_ex"), 1);
  Wrong = 0;
  for (int I = 0; I < Count; ++I)
    for (int J = 0; J < N; ++J)
      for (int R = 0; R < M; ++R) {
        double Sum = 0;
        for (int L = 0; L < K; ++L)
          Sum += PA[I][L * M + R] * PB[I][L * N + J];
        Wrong += std::fabs(PC[I][J * M + R] - Sum) > 1e-12;
      }
  EXPECT_EQ(Wrong, 0);

  // Half in and out through GemmEx, f32 compute: rocBLAS gets f16 data and an f32 compute type.
  uint16_t *Ah = devAlloc<uint16_t>(4 * 4), *Bh = devAlloc<uint16_t>(4 * 4), *Ch = devAlloc<uint16_t>(4 * 4);
  for (int I = 0; I < 16; ++I) {
    Ah[I] = 0x3c00; // 1.0
    Bh[I] = 0x4000; // 2.0
    Ch[I] = 0;
  }
  float FOne = 1, FZero = 0;
  ASSERT_EQ(cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &FOne, Ah, CUDA_R_16F, 4, Bh, CUDA_R_16F, 4, &FZero,
                         Ch, CUDA_R_16F, 4, CUBLAS_COMPUTE_32F, 0),
            CUBLAS_STATUS_SUCCESS);
  for (int I = 0; I < 16; ++I)
    EXPECT_EQ(Ch[I], 0x4800) << "4 x (1 x 2) = 8.0 in half";

  // Device pointer mode: the result in device memory.
  float *X = devAlloc<float>(100), *Y = devAlloc<float>(100), *R = devAlloc<float>(1);
  double Want = 0;
  for (int I = 0; I < 100; ++I) {
    X[I] = rnd();
    Y[I] = rnd();
    Want += double(X[I]) * Y[I];
  }
  ASSERT_EQ(cublasSetPointerMode_v2(H, CUBLAS_POINTER_MODE_DEVICE), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasSdot_v2(H, 100, X, 1, Y, 1, R), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(F.LastPointerMode(), 1);
  EXPECT_NEAR(*R, Want, 1e-4);
  ASSERT_EQ(cublasSetPointerMode_v2(H, CUBLAS_POINTER_MODE_HOST), CUBLAS_STATUS_SUCCESS);

  // gemv, transposed, strided y.
  float *Av = devAlloc<float>(7 * 5), *Xv = devAlloc<float>(7), *Yv = devAlloc<float>(10);
  for (int I = 0; I < 35; ++I)
    Av[I] = rnd();
  for (int I = 0; I < 7; ++I)
    Xv[I] = rnd();
  ASSERT_EQ(cublasSgemv_v2(H, CUBLAS_OP_T, 7, 5, &FOne, Av, 7, Xv, 1, &FZero, Yv, 2), CUBLAS_STATUS_SUCCESS);
  Wrong = 0;
  for (int J = 0; J < 5; ++J) {
    double Sum = 0;
    for (int I = 0; I < 7; ++I)
      Sum += double(Av[J * 7 + I]) * Xv[I];
    Wrong += std::fabs(Yv[2 * J] - Sum) > 1e-5;
  }
  EXPECT_EQ(Wrong, 0);

  // Not asked of rocBLAS yet: trsm runs on host copies after the stream (B in place, ldb 5 leaving a row the
  // solve must not touch), alpha in device memory under the device pointer mode.
  const int Nt = 4, Ldt = 5;
  float *L = devAlloc<float>(Nt * Nt), *Bt = devAlloc<float>(Ldt * Nt), *DAlpha = devAlloc<float>(1);
  std::vector<float> B0(Ldt * Nt);
  for (int J = 0; J < Nt; ++J)
    for (int I = 0; I < Nt; ++I)
      L[J * Nt + I] = I > J ? 0.25f * float(I + J) - 0.5f : I == J ? 99.0f : -7.0f; // unit diagonal: 99 unread
  for (int K = 0; K < Ldt * Nt; ++K)
    Bt[K] = B0[size_t(K)] = K % Ldt == Nt ? -1234.0f : float(K % 7) - 3.0f;
  *DAlpha = 2.0f;
  ASSERT_EQ(cublasSetPointerMode_v2(H, CUBLAS_POINTER_MODE_DEVICE), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasStrsm_v2(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, Nt, Nt, DAlpha,
                           L, Nt, Bt, Ldt),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasSetPointerMode_v2(H, CUBLAS_POINTER_MODE_HOST), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  for (int J = 0; J < Nt; ++J) {
    for (int I = 0; I < Nt; ++I) { // (L X)[i][j] = 2 B0[i][j]
      double S = Bt[J * Ldt + I];
      for (int K = 0; K < I; ++K)
        S += double(L[K * Nt + I]) * Bt[J * Ldt + K];
      EXPECT_NEAR(S, 2.0 * B0[size_t(J * Ldt + I)], 1e-4) << I << " " << J;
    }
    EXPECT_EQ(Bt[J * Ldt + Nt], -1234.0f) << J;
  }
  EXPECT_EQ(cublasDestroy_v2(H), CUBLAS_STATUS_SUCCESS);
}

} // namespace
