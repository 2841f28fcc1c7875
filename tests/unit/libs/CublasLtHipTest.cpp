//===- CublasLtHipTest.cpp - our cuBLASLt on the HIP backend over hipBLASLt ===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Runs with the test HIP runtime (device memory is host memory), the
/// test rocBLAS and the test hipBLASLt (tests/fake_hipblaslt: computes f32
/// matmuls with their epilogues), so what our library handed hipBLASLt is
/// checked by the numbers: transposes, a row-major operand, strided batches,
/// the bias and GELU aux pointers, alpha and beta, the algorithm the
/// heuristic returned, the HIP stream under the CUstream. Run twice by
/// ctest: with the test hipBLASLt, and with none (GEMMs through rocBLAS,
/// epilogues NOT_SUPPORTED).
#include "zluda/cublasLt_abi.h"
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
cublasStatus_t cublasLtCreate(cublasLtHandle_t *);
cublasStatus_t cublasLtDestroy(cublasLtHandle_t);
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *, cublasComputeType_t, cudaDataType);
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t);
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t, int, const void *, size_t);
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *, cudaDataType, uint64_t, uint64_t, int64_t);
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t);
cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t, int, const void *, size_t);
cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *);
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t);
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t, int, const void *, size_t);
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,
                                              cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                                              cublasLtMatmulPreference_t, int, cublasLtMatmulHeuristicResult_t *,
                                              int *);
cublasStatus_t cublasLtMatmul(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *, const void *,
                              cublasLtMatrixLayout_t, const void *, cublasLtMatrixLayout_t, const void *,
                              const void *, cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t,
                              const cublasLtMatmulAlgo_t *, void *, size_t, CUstream);
}
void *zludaNativeStream(CUstream); // libcuda's (src/driver/Driver.cpp)

namespace {

bool withHipBlasLt() {
  const char *E = std::getenv("ZLUDA_HIPBLASLT_LIBRARY");
  return E && std::strstr(E, "fake");
}
template <typename T> T *devAlloc(size_t N) {
  CUdeviceptr P;
  EXPECT_EQ(cuMemAlloc_v2(&P, N * sizeof(T) + 16), CUDA_SUCCESS);
  return reinterpret_cast<T *>(P); // the test HIP runtime's device memory is host memory
}
float gelu(float X) { return 0.5f * X * (1.0f + std::tanh(0.7978845608f * (X + 0.044715f * X * X * X))); }

class LtHip : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(usePrimaryContext());
    ASSERT_EQ(cublasLtCreate(&H), CUBLAS_STATUS_SUCCESS);
    ASSERT_EQ(cuStreamCreate(&S, 0), CUDA_SUCCESS);
  }
  void TearDown() override { cublasLtDestroy(H); }
  cublasLtHandle_t H = nullptr;
  CUstream S = nullptr;
};

// D (m x n, batches) = alpha op(A) B + beta C, then bias and GELU, with GELU's input kept in aux:
// A transposed and row-major (so its storage is k x m column-major... as cuBLASLt reads it), B column-major.
TEST_F(LtHip, MatmulWithBiasAndGeluGoesToHipBlasLt) {
  const int M = 7, N = 5, K = 6, Batch = 2;
  std::mt19937 Rng(1234);
  std::uniform_real_distribution<float> U(-1, 1);
  // A: op(A) = A^T, A stored row-major as K x M (ld M); B: K x N column-major (ld K + 1).
  const int LdB = K + 1, LdD = M + 2;
  std::vector<float> A(size_t(K) * M * Batch), B(size_t(LdB) * N * Batch), C(size_t(LdD) * N * Batch),
      Bias(M);
  for (auto *V : {&A, &B, &C, &Bias})
    for (float &X : *V)
      X = U(Rng);
  float *DA = devAlloc<float>(A.size()), *DB = devAlloc<float>(B.size()), *DC = devAlloc<float>(C.size()),
        *DD = devAlloc<float>(C.size()), *DBias = devAlloc<float>(M), *DAux = devAlloc<float>(size_t(M) * N * Batch);
  std::memcpy(DA, A.data(), A.size() * 4);
  std::memcpy(DB, B.data(), B.size() * 4);
  std::memcpy(DC, C.data(), C.size() * 4);
  std::memcpy(DBias, Bias.data(), M * 4);
  cublasLtMatmulDesc_t Op;
  ASSERT_EQ(cublasLtMatmulDescCreate(&Op, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
  int32_t Ta = CUBLAS_OP_T;
  uint32_t Ep = CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
  const void *BiasP = DBias;
  void *AuxP = DAux;
  int64_t AuxLd = M, AuxStride = int64_t(M) * N;
  ASSERT_EQ(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_TRANSA, &Ta, 4), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE, &Ep, 4), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &BiasP, sizeof BiasP),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &AuxP, sizeof AuxP),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &AuxLd, 8),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, &AuxStride, 8),
            CUBLAS_STATUS_SUCCESS);
  cublasLtMatrixLayout_t La, Lb, Lc;
  ASSERT_EQ(cublasLtMatrixLayoutCreate(&La, CUDA_R_32F, K, M, M), CUBLAS_STATUS_SUCCESS); // K x M, row-major: ld M
  ASSERT_EQ(cublasLtMatrixLayoutCreate(&Lb, CUDA_R_32F, K, N, LdB), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasLtMatrixLayoutCreate(&Lc, CUDA_R_32F, M, N, LdD), CUBLAS_STATUS_SUCCESS);
  int32_t Row = CUBLASLT_ORDER_ROW, Bc = Batch;
  ASSERT_EQ(cublasLtMatrixLayoutSetAttribute(La, CUBLASLT_MATRIX_LAYOUT_ORDER, &Row, 4), CUBLAS_STATUS_SUCCESS);
  int64_t Sa = int64_t(K) * M, Sb = int64_t(LdB) * N, Sc = int64_t(LdD) * N;
  for (auto [L, St] : {std::pair{La, Sa}, std::pair{Lb, Sb}, std::pair{Lc, Sc}}) {
    ASSERT_EQ(cublasLtMatrixLayoutSetAttribute(L, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &Bc, 4), CUBLAS_STATUS_SUCCESS);
    ASSERT_EQ(cublasLtMatrixLayoutSetAttribute(L, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &St, 8),
              CUBLAS_STATUS_SUCCESS);
  }
  // The heuristic: hipBLASLt's algorithms within the preference's workspace (the second needs 4 KiB).
  cublasLtMatmulPreference_t P;
  ASSERT_EQ(cublasLtMatmulPreferenceCreate(&P), CUBLAS_STATUS_SUCCESS);
  uint64_t Ws = 1 << 20;
  ASSERT_EQ(cublasLtMatmulPreferenceSetAttribute(P, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &Ws, 8),
            CUBLAS_STATUS_SUCCESS);
  cublasLtMatmulHeuristicResult_t R[4];
  int Got = 0;
  ASSERT_EQ(cublasLtMatmulAlgoGetHeuristic(H, Op, La, Lb, Lc, Lc, P, 4, R, &Got), CUBLAS_STATUS_SUCCESS);
  float Alpha = 1.5f, Beta = -0.5f;
  void *Work = devAlloc<char>(4096);
  if (withHipBlasLt()) {
    ASSERT_EQ(Got, 2);
    EXPECT_EQ(R[0].workspaceSize, 0u);
    EXPECT_EQ(R[1].workspaceSize, 4096u);
  } else {
    ASSERT_EQ(Got, 1); // the one algorithm of the CPU path
  }
  cublasStatus_t St = cublasLtMatmul(H, Op, &Alpha, DA, La, DB, Lb, &Beta, DC, Lc, DD, Lc, &R[Got - 1].algo, Work,
                                     4096, S);
  if (!withHipBlasLt()) {
    EXPECT_EQ(St, CUBLAS_STATUS_NOT_SUPPORTED); // epilogues need hipBLASLt on AMD GPUs
    // Without an epilogue the GEMM goes through rocBLAS, C copied to D on the device first (beta != 0).
    uint32_t Default = CUBLASLT_EPILOGUE_DEFAULT;
    ASSERT_EQ(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE, &Default, 4), CUBLAS_STATUS_SUCCESS);
    std::memset(DD, 0, C.size() * 4);
    ASSERT_EQ(cublasLtMatmul(H, Op, &Alpha, DA, La, DB, Lb, &Beta, DC, Lc, DD, Lc, nullptr, nullptr, 0, S),
              CUBLAS_STATUS_SUCCESS);
    ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
    int Wrong = 0;
    for (int Bt = 0; Bt < Batch; ++Bt)
      for (int J = 0; J < N; ++J)
        for (int I = 0; I < M; ++I) {
          double Sum = 0;
          for (int L = 0; L < K; ++L)
            Sum += double(A[size_t(Bt) * Sa + size_t(L) * M + I]) * B[size_t(Bt) * Sb + size_t(J) * LdB + L];
          float Want = float(Alpha * Sum + Beta * C[size_t(Bt) * Sc + size_t(J) * LdD + I]);
          Wrong += std::fabs(DD[size_t(Bt) * Sc + size_t(J) * LdD + I] - Want) > 1e-4f;
        }
    EXPECT_EQ(Wrong, 0);
    return;
  }
  ASSERT_EQ(St, CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  void *Fake = dlopen(std::getenv("ZLUDA_HIPBLASLT_LIBRARY"), RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(Fake, nullptr);
  auto Calls = reinterpret_cast<int (*)()>(dlsym(Fake, "fakeHipblasLtCalls"));
  auto Algo = reinterpret_cast<int (*)()>(dlsym(Fake, "fakeHipblasLtLastAlgo"));
  auto Stream = reinterpret_cast<void *(*)()>(dlsym(Fake, "fakeHipblasLtLastStream"));
  EXPECT_EQ(Calls(), 1);
  EXPECT_EQ(Algo(), 2); // the algorithm the program chose from the heuristic
  EXPECT_EQ(Stream(), zludaNativeStream(S));
  int Wrong = 0;
  for (int Bt = 0; Bt < Batch; ++Bt)
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I) {
        double Sum = 0;
        for (int L = 0; L < K; ++L) // op(A)(I, L) = A(L, I), A row-major K x M
          Sum += double(A[size_t(Bt) * Sa + size_t(L) * M + I]) * B[size_t(Bt) * Sb + size_t(J) * LdB + L];
        float Pre = float(Alpha * Sum + Beta * C[size_t(Bt) * Sc + size_t(J) * LdD + I]) + Bias[I];
        Wrong += std::fabs(DAux[size_t(Bt) * AuxStride + size_t(J) * M + I] - Pre) > 1e-5f;
        Wrong += std::fabs(DD[size_t(Bt) * Sc + size_t(J) * LdD + I] - gelu(Pre)) > 1e-5f;
      }
  EXPECT_EQ(Wrong, 0);
  // Without an algorithm: the heuristic's first is used.
  ASSERT_EQ(cublasLtMatmul(H, Op, &Alpha, DA, La, DB, Lb, &Beta, DC, Lc, DD, Lc, nullptr, nullptr, 0, S),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(Algo(), 1);
  // An epilogue hipBLASLt lacks (the ReLU bit mask) is refused.
  uint32_t ReluAux = CUBLASLT_EPILOGUE_RELU_AUX;
  ASSERT_EQ(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE, &ReluAux, 4), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cublasLtMatmul(H, Op, &Alpha, DA, La, DB, Lb, &Beta, DC, Lc, DD, Lc, nullptr, nullptr, 0, S),
            CUBLAS_STATUS_NOT_SUPPORTED);
  cublasLtMatmulPreferenceDestroy(P);
  for (auto L : {La, Lb, Lc})
    cublasLtMatrixLayoutDestroy(L);
  cublasLtMatmulDescDestroy(Op);
}

} // namespace
