//===- MathLibsHipTest.cpp - cuRAND/cuFFT/cuSPARSE/cuSOLVER on the HIP backend ===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Runs with the test HIP runtime (tests/fake_hip: device memory is
/// host memory, copies are real). cuRAND's device generators compute on the
/// host and copy in stream order; cuFFT copies the data through FFTW and
/// back; cuSPARSE and cuSOLVER have no AMD backend yet and say so
/// (NOT_SUPPORTED at handle creation).
#include "zluda/cublas_abi.h"
#include "zluda/cuda_abi.h"
#include "zluda/cufft_abi.h"
#include "zluda/curand_abi.h"
#include "zluda/cusolver_abi.h"
#include "zluda/cusparse_abi.h"
#include "HipTestContext.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <tuple>
#include <vector>

extern "C" {
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuStreamCreate(CUstream *, unsigned);
CUresult cuStreamSynchronize(CUstream);
curandStatus_t curandCreateGenerator(curandGenerator_t *, curandRngType_t);
curandStatus_t curandCreateGeneratorHost(curandGenerator_t *, curandRngType_t);
curandStatus_t curandDestroyGenerator(curandGenerator_t);
curandStatus_t curandSetStream(curandGenerator_t, CUstream);
curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t, unsigned long long);
curandStatus_t curandGenerateNormalDouble(curandGenerator_t, double *, size_t, double, double);
cufftResult cufftPlan1d(cufftHandle *, int, cufftType, int);
cufftResult cufftSetStream(cufftHandle, CUstream);
cufftResult cufftExecZ2Z(cufftHandle, void *, void *, int);
cufftResult cufftDestroy(cufftHandle);
cusparseStatus_t cusparseCreate(cusparseHandle_t *);
cusparseStatus_t cusparseDestroy(cusparseHandle_t);
cusparseStatus_t cusparseSetStream(cusparseHandle_t, CUstream);
cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t *, int64_t, int64_t, int64_t, void *, void *, void *,
                                   cusparseIndexType_t, cusparseIndexType_t, cusparseIndexBase_t, cudaDataType);
cusparseStatus_t cusparseCreateDnVec(cusparseDnVecDescr_t *, int64_t, void *, cudaDataType);
cusparseStatus_t cusparseSpMV(cusparseHandle_t, cusparseOperation_t, const void *, const void *, const void *,
                              const void *, void *, cudaDataType, int, void *);
cusparseStatus_t cusparseXcsr2coo(cusparseHandle_t, const int *, int, int, int *, cusparseIndexBase_t);
cusparseStatus_t cusparseSgtsv2StridedBatch(cusparseHandle_t, int, const float *, const float *, const float *, float *,
                                            int, int, void *);
cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *);
cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t);
cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t, CUstream);
cusolverStatus_t cusolverDnDgetrf(cusolverDnHandle_t, int, int, double *, int, double *, int *, int *);
cusolverStatus_t cusolverDnDgetrs(cusolverDnHandle_t, cublasOperation_t, int, int, const double *, int, const int *,
                                  double *, int, int *);
cusolverStatus_t cusolverDnZheevd(cusolverDnHandle_t, cusolverEigMode_t, cublasFillMode_t, int, void *, int, double *,
                                  void *, int, int *);
}

namespace {

class MathLibsHip : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(usePrimaryContext());
    ASSERT_EQ(cuStreamCreate(&S, 0), CUDA_SUCCESS);
  }
  CUstream S = nullptr;
};

TEST_F(MathLibsHip, CurandDeviceGeneratorCopiesNvidiasSequence) {
  const size_t N = 10000;
  CUdeviceptr D;
  ASSERT_EQ(cuMemAlloc_v2(&D, N * sizeof(double)), CUDA_SUCCESS);
  curandGenerator_t G, H;
  ASSERT_EQ(curandCreateGenerator(&G, CURAND_RNG_PSEUDO_MRG32K3A), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(curandSetStream(G, S), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(curandSetPseudoRandomGeneratorSeed(G, 31), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(curandGenerateNormalDouble(G, reinterpret_cast<double *>(D), N, 1.0, 3.0), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  std::vector<double> Dev(N), Host(N);
  ASSERT_EQ(cuMemcpyDtoH_v2(Dev.data(), D, N * sizeof(double)), CUDA_SUCCESS);
  ASSERT_EQ(curandCreateGeneratorHost(&H, CURAND_RNG_PSEUDO_MRG32K3A), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(curandSetPseudoRandomGeneratorSeed(H, 31), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(curandGenerateNormalDouble(H, Host.data(), N, 1.0, 3.0), CURAND_STATUS_SUCCESS);
  EXPECT_TRUE(Dev == Host);
  curandDestroyGenerator(G);
  curandDestroyGenerator(H);
}

TEST_F(MathLibsHip, CufftGoesThroughTheHost) {
  const int N = 30, B = 2;
  std::vector<std::complex<double>> X(N * B);
  for (int I = 0; I < N * B; ++I)
    X[I] = {std::sin(I * 0.7), std::cos(I * 1.3)};
  CUdeviceptr In, Out;
  ASSERT_EQ(cuMemAlloc_v2(&In, X.size() * 16), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&Out, X.size() * 16), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD_v2(In, X.data(), X.size() * 16), CUDA_SUCCESS);
  cufftHandle P;
  ASSERT_EQ(cufftPlan1d(&P, N, CUFFT_Z2Z, B), CUFFT_SUCCESS);
  ASSERT_EQ(cufftSetStream(P, S), CUFFT_SUCCESS);
  for (bool InPlace : {false, true}) {
    CUdeviceptr Dst = InPlace ? In : Out;
    ASSERT_EQ(cufftExecZ2Z(P, reinterpret_cast<void *>(In), reinterpret_cast<void *>(Dst), ZLUDA_CUFFT_INVERSE),
              CUFFT_SUCCESS);
    std::vector<std::complex<double>> Y(X.size());
    ASSERT_EQ(cuMemcpyDtoH_v2(Y.data(), Dst, Y.size() * 16), CUDA_SUCCESS);
    double Err = 0;
    for (int Bt = 0; Bt < B; ++Bt)
      for (int K = 0; K < N; ++K) {
        std::complex<double> Sum = 0;
        for (int J = 0; J < N; ++J)
          Sum += X[Bt * N + J] * std::polar(1.0, 2 * M_PI * ((J * K) % N) / N);
        Err = std::max(Err, std::abs(Sum - Y[Bt * N + K]));
      }
    EXPECT_LT(Err, 1e-12) << (InPlace ? "in place" : "out of place");
    if (!InPlace)
      ASSERT_EQ(cuMemcpyHtoD_v2(In, X.data(), X.size() * 16), CUDA_SUCCESS);
  }
  cufftDestroy(P);
}

/// cuSPARSE on a GPU: SpMV on host copies (the transpose of a 3x4 CSR
/// matrix, one based, 64-bit column indices), csr2coo and a tridiagonal solve.
TEST_F(MathLibsHip, CusparseSpmvStagesThroughTheHost) {
  cusparseHandle_t H;
  ASSERT_EQ(cusparseCreate(&H), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseSetStream(H, S), CUSPARSE_STATUS_SUCCESS);
  // [[1 0 2 0] [0 3 0 4] [5 0 0 6]]
  std::vector<int> Off{1, 3, 5, 7};
  std::vector<int64_t> Col{1, 3, 2, 4, 1, 4};
  std::vector<double> Val{1, 2, 3, 4, 5, 6}, X{1, 10, 100}, Y{1, 1, 1, 1};
  CUdeviceptr dO, dC, dV, dX, dY;
  for (auto [P, Src, Bytes] : {std::tuple{&dO, (const void *)Off.data(), Off.size() * 4},
                               {&dC, (const void *)Col.data(), Col.size() * 8},
                               {&dV, (const void *)Val.data(), Val.size() * 8},
                               {&dX, (const void *)X.data(), X.size() * 8},
                               {&dY, (const void *)Y.data(), Y.size() * 8}}) {
    ASSERT_EQ(cuMemAlloc_v2(P, Bytes), CUDA_SUCCESS);
    ASSERT_EQ(cuMemcpyHtoD_v2(*P, Src, Bytes), CUDA_SUCCESS);
  }
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t Vx, Vy;
  ASSERT_EQ(cusparseCreateCsr(&A, 3, 4, 6, reinterpret_cast<void *>(dO), reinterpret_cast<void *>(dC),
                              reinterpret_cast<void *>(dV), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_64I,
                              CUSPARSE_INDEX_BASE_ONE, CUDA_R_64F),
            CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseCreateDnVec(&Vx, 3, reinterpret_cast<void *>(dX), CUDA_R_64F), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseCreateDnVec(&Vy, 4, reinterpret_cast<void *>(dY), CUDA_R_64F), CUSPARSE_STATUS_SUCCESS);
  const double Alpha = 2, Beta = -1;
  CUdeviceptr Buf;
  ASSERT_EQ(cuMemAlloc_v2(&Buf, 64), CUDA_SUCCESS);
  ASSERT_EQ(cusparseSpMV(H, CUSPARSE_OPERATION_TRANSPOSE, &Alpha, A, Vx, &Beta, Vy, CUDA_R_64F, 0,
                         reinterpret_cast<void *>(Buf)),
            CUSPARSE_STATUS_SUCCESS);
  std::vector<double> Got(4);
  ASSERT_EQ(cuMemcpyDtoH_v2(Got.data(), dY, 32), CUDA_SUCCESS);
  // A^T x = [1 + 500, 30, 2, 40 + 600]
  EXPECT_EQ(Got, (std::vector<double>{2 * 501 - 1, 2 * 30 - 1, 2 * 2 - 1, 2 * 640 - 1}));
  // csr2coo on host copies too (device output); an operation without a GPU path is refused.
  CUdeviceptr dCoo;
  ASSERT_EQ(cuMemAlloc_v2(&dCoo, 24), CUDA_SUCCESS);
  EXPECT_EQ(cusparseXcsr2coo(H, reinterpret_cast<int *>(dO), 6, 3, reinterpret_cast<int *>(dCoo),
                             CUSPARSE_INDEX_BASE_ONE),
            CUSPARSE_STATUS_SUCCESS);
  std::vector<int> Coo(6);
  ASSERT_EQ(cuMemcpyDtoH_v2(Coo.data(), dCoo, 24), CUDA_SUCCESS);
  EXPECT_EQ(Coo, (std::vector<int>{1, 1, 2, 2, 3, 3}));
  // A tridiagonal solve (gtsv2StridedBatch, 3 x 3, one system) on host copies too.
  const std::vector<float> Tri{0, 1, 1, 4, 4, 4, 1, 1, 0, 5, 6, 5}; // dl, d, du, b: the solution is all ones
  CUdeviceptr dT;
  ASSERT_EQ(cuMemAlloc_v2(&dT, Tri.size() * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD_v2(dT, Tri.data(), Tri.size() * 4), CUDA_SUCCESS);
  float *F = reinterpret_cast<float *>(dT);
  EXPECT_EQ(cusparseSgtsv2StridedBatch(H, 3, F, F + 3, F + 6, F + 9, 1, 3, reinterpret_cast<void *>(dCoo)),
            CUSPARSE_STATUS_SUCCESS);
  std::vector<float> Sol(3);
  ASSERT_EQ(cuMemcpyDtoH_v2(Sol.data(), dT + 36, 12), CUDA_SUCCESS);
  for (float V : Sol)
    EXPECT_NEAR(V, 1.0f, 1e-6f);
  cusparseDestroy(H);
}

/// cuSOLVER on a GPU: LAPACK on host copies of the arrays, in stream order.
TEST_F(MathLibsHip, CusolverStagesThroughTheHost) {
  cusolverDnHandle_t H;
  ASSERT_EQ(cusolverDnCreate(&H), CUSOLVER_STATUS_SUCCESS);
  ASSERT_EQ(cusolverDnSetStream(H, S), CUSOLVER_STATUS_SUCCESS);
  const int N = 9;
  std::vector<double> A(N * N), B(N);
  for (int I = 0; I < N * N; ++I)
    A[I] = std::sin(I * 1.7) + (I % (N + 1) == 0 ? 4 : 0);
  for (int I = 0; I < N; ++I)
    B[I] = std::cos(I * 0.3);
  CUdeviceptr dA, dB, dPiv, dInfo;
  ASSERT_EQ(cuMemAlloc_v2(&dA, A.size() * 8), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&dB, B.size() * 8), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&dPiv, N * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&dInfo, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD_v2(dA, A.data(), A.size() * 8), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD_v2(dB, B.data(), B.size() * 8), CUDA_SUCCESS);
  int Minus = -7;
  ASSERT_EQ(cuMemcpyHtoD_v2(dInfo, &Minus, 4), CUDA_SUCCESS);
  ASSERT_EQ(cusolverDnDgetrf(H, N, N, reinterpret_cast<double *>(dA), N, nullptr, reinterpret_cast<int *>(dPiv),
                             reinterpret_cast<int *>(dInfo)),
            CUSOLVER_STATUS_SUCCESS);
  ASSERT_EQ(cusolverDnDgetrs(H, CUBLAS_OP_N, N, 1, reinterpret_cast<double *>(dA), N, reinterpret_cast<int *>(dPiv),
                             reinterpret_cast<double *>(dB), N, reinterpret_cast<int *>(dInfo)),
            CUSOLVER_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  std::vector<double> X(N);
  int Info = -1;
  ASSERT_EQ(cuMemcpyDtoH_v2(X.data(), dB, N * 8), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(&Info, dInfo, 4), CUDA_SUCCESS);
  EXPECT_EQ(Info, 0);
  double Err = 0;
  for (int I = 0; I < N; ++I) {
    double Sum = 0;
    for (int K = 0; K < N; ++K)
      Sum += A[I + K * N] * X[K];
    Err = std::max(Err, std::fabs(Sum - B[I]));
  }
  EXPECT_LT(Err, 1e-12);
  // Hermitian eigenvalues (complex, values only): the trace is their sum.
  std::vector<std::complex<double>> Hm(N * N);
  for (int I = 0; I < N; ++I)
    for (int J = 0; J <= I; ++J) {
      std::complex<double> V(std::sin(I + 2.0 * J), I == J ? 0 : std::cos(I * J * 1.0));
      Hm[I + J * N] = V;
      Hm[J + I * N] = std::conj(V);
    }
  CUdeviceptr dH, dW;
  ASSERT_EQ(cuMemAlloc_v2(&dH, Hm.size() * 16), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&dW, N * 8), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD_v2(dH, Hm.data(), Hm.size() * 16), CUDA_SUCCESS);
  ASSERT_EQ(cusolverDnZheevd(H, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, N, reinterpret_cast<void *>(dH), N,
                             reinterpret_cast<double *>(dW), nullptr, 0, reinterpret_cast<int *>(dInfo)),
            CUSOLVER_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  std::vector<double> W(N);
  ASSERT_EQ(cuMemcpyDtoH_v2(W.data(), dW, N * 8), CUDA_SUCCESS);
  double Trace = 0, Sum = 0;
  for (int I = 0; I < N; ++I)
    Trace += Hm[I + I * N].real(), Sum += W[I];
  EXPECT_NEAR(Sum, Trace, 1e-10);
  for (int I = 0; I + 1 < N; ++I)
    EXPECT_LE(W[I], W[I + 1]);
  cusolverDnDestroy(H);
}

} // namespace
