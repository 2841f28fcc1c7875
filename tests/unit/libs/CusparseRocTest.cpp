//===- CusparseRocTest.cpp - our cuSPARSE on the HIP backend over rocSPARSE ===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Runs with the test HIP runtime (device memory is host memory) and
/// the test rocSPARSE (tests/fake_rocsparse: computes SpMV and SpMM), so what
/// our library handed rocSPARSE is checked by the numbers: CSR, CSC and COO
/// descriptors with their index types and bases, transposes, row- and
/// column-major dense matrices, scalars, the buffer rocSPARSE asked for, the
/// HIP stream under the handle's stream and the pointer mode. Run twice by
/// ctest: with the test rocSPARSE, and with none (the host path answers the
/// same numbers without calling it).
#include "zluda/cuda_abi.h"
#include "zluda/cublas_abi.h"
#include "zluda/cusparse_abi.h"
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
cusparseStatus_t cusparseCreate(cusparseHandle_t *);
cusparseStatus_t cusparseDestroy(cusparseHandle_t);
cusparseStatus_t cusparseSetStream(cusparseHandle_t, CUstream);
cusparseStatus_t cusparseSetPointerMode(cusparseHandle_t, cusparsePointerMode_t);
cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t *, int64_t, int64_t, int64_t, void *, void *, void *,
                                   cusparseIndexType_t, cusparseIndexType_t, cusparseIndexBase_t, cudaDataType);
cusparseStatus_t cusparseCreateCsc(cusparseSpMatDescr_t *, int64_t, int64_t, int64_t, void *, void *, void *,
                                   cusparseIndexType_t, cusparseIndexType_t, cusparseIndexBase_t, cudaDataType);
cusparseStatus_t cusparseCreateCoo(cusparseSpMatDescr_t *, int64_t, int64_t, int64_t, void *, void *, void *,
                                   cusparseIndexType_t, cusparseIndexBase_t, cudaDataType);
cusparseStatus_t cusparseDestroySpMat(cusparseSpMatDescr_t);
cusparseStatus_t cusparseCreateDnVec(cusparseDnVecDescr_t *, int64_t, void *, cudaDataType);
cusparseStatus_t cusparseDestroyDnVec(cusparseDnVecDescr_t);
cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t *, int64_t, int64_t, int64_t, void *, cudaDataType,
                                     cusparseOrder_t);
cusparseStatus_t cusparseDestroyDnMat(cusparseDnMatDescr_t);
cusparseStatus_t cusparseSpMV_bufferSize(cusparseHandle_t, cusparseOperation_t, const void *, const void *,
                                         const void *, const void *, void *, cudaDataType, int, size_t *);
cusparseStatus_t cusparseSpMV(cusparseHandle_t, cusparseOperation_t, const void *, const void *, const void *,
                              const void *, void *, cudaDataType, int, void *);
cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t, cusparseOperation_t, cusparseOperation_t, const void *,
                                         const void *, const void *, const void *, void *, cudaDataType, int,
                                         size_t *);
cusparseStatus_t cusparseSpMM(cusparseHandle_t, cusparseOperation_t, cusparseOperation_t, const void *, const void *,
                              const void *, const void *, void *, cudaDataType, int, void *);
cusparseStatus_t cusparseCreateSpVec(cusparseSpVecDescr_t *, int64_t, int64_t, void *, void *, cusparseIndexType_t,
                                     cusparseIndexBase_t, cudaDataType);
cusparseStatus_t cusparseDestroySpVec(cusparseSpVecDescr_t);
cusparseStatus_t cusparseSpVV_bufferSize(cusparseHandle_t, cusparseOperation_t, const void *, const void *,
                                         const void *, cudaDataType, size_t *);
cusparseStatus_t cusparseSpVV(cusparseHandle_t, cusparseOperation_t, const void *, const void *, void *, cudaDataType,
                              void *);
cusparseStatus_t cusparseSpMatSetAttribute(cusparseSpMatDescr_t, int, void *, size_t);
cusparseStatus_t cusparseSpSM_createDescr(void **);
cusparseStatus_t cusparseSpSM_destroyDescr(void *);
cusparseStatus_t cusparseSpSM_bufferSize(cusparseHandle_t, cusparseOperation_t, cusparseOperation_t, const void *,
                                         const void *, const void *, const void *, cudaDataType, int, void *,
                                         size_t *);
cusparseStatus_t cusparseSpSM_analysis(cusparseHandle_t, cusparseOperation_t, cusparseOperation_t, const void *,
                                       const void *, const void *, const void *, cudaDataType, int, void *, void *);
cusparseStatus_t cusparseSpSM_solve(cusparseHandle_t, cusparseOperation_t, cusparseOperation_t, const void *,
                                    const void *, const void *, void *, cudaDataType, int, void *);
cusparseStatus_t cusparseSDDMM_bufferSize(cusparseHandle_t, cusparseOperation_t, cusparseOperation_t, const void *,
                                          const void *, const void *, const void *, void *, cudaDataType, int,
                                          size_t *);
cusparseStatus_t cusparseSDDMM(cusparseHandle_t, cusparseOperation_t, cusparseOperation_t, const void *, const void *,
                               const void *, const void *, void *, cudaDataType, int, void *);
cusparseStatus_t cusparseCsr2cscEx2(cusparseHandle_t, int, int, int, const void *, const int *, const int *, void *,
                                    int *, int *, cudaDataType, int, cusparseIndexBase_t, int, void *);
cusparseStatus_t cusparseXcsr2coo(cusparseHandle_t, const int *, int, int, int *, cusparseIndexBase_t);
cusparseStatus_t cusparseXcoo2csr(cusparseHandle_t, const int *, int, int, int *, cusparseIndexBase_t);
cusparseStatus_t cusparseCreateMatDescr(void **);
cusparseStatus_t cusparseDestroyMatDescr(void *);
cusparseStatus_t cusparseCreateCsrilu02Info(void **);
cusparseStatus_t cusparseDestroyCsrilu02Info(void *);
cusparseStatus_t cusparseDcsrilu02_bufferSize(cusparseHandle_t, int, int, void *, double *, const int *, const int *,
                                              void *, int *);
cusparseStatus_t cusparseDcsrilu02_analysis(cusparseHandle_t, int, int, void *, const double *, const int *,
                                            const int *, void *, int, void *);
cusparseStatus_t cusparseDcsrilu02(cusparseHandle_t, int, int, void *, double *, const int *, const int *, void *, int,
                                   void *);
cusparseStatus_t cusparseXcsrilu02_zeroPivot(cusparseHandle_t, void *, int *);
cusparseStatus_t cusparseCreateIdentityPermutation(cusparseHandle_t, int, int *);
cusparseStatus_t cusparseXcoosortByRow(cusparseHandle_t, int, int, int, int *, int *, int *, void *);
cusparseStatus_t cusparseXcsrsort(cusparseHandle_t, int, int, int, void *, const int *, int *, int *, void *);
cusparseStatus_t cusparseSparseToDense(cusparseHandle_t, const void *, void *, int, void *);
cusparseStatus_t cusparseDenseToSparse_analysis(cusparseHandle_t, const void *, void *, int, void *);
cusparseStatus_t cusparseDenseToSparse_convert(cusparseHandle_t, const void *, void *, int, void *);
cusparseStatus_t cusparseSpMatGetSize(cusparseSpMatDescr_t, int64_t *, int64_t *, int64_t *);
cusparseStatus_t cusparseCsrSetPointers(cusparseSpMatDescr_t, void *, void *, void *);
cusparseStatus_t cusparseCsrSetStridedBatch(cusparseSpMatDescr_t, int, int64_t, int64_t);
cusparseStatus_t cusparseDnMatSetStridedBatch(cusparseDnMatDescr_t, int, int64_t);
cusparseStatus_t cusparseAxpby(cusparseHandle_t, const void *, const void *, const void *, void *);
cusparseStatus_t cusparseGather(cusparseHandle_t, const void *, void *);
cusparseStatus_t cusparseScatter(cusparseHandle_t, const void *, void *);
cusparseStatus_t cusparseRot(cusparseHandle_t, const void *, const void *, void *, void *);
cusparseStatus_t cusparseSpGEMM_createDescr(void **);
cusparseStatus_t cusparseSpGEMM_destroyDescr(void *);
cusparseStatus_t cusparseSpGEMM_workEstimation(cusparseHandle_t, cusparseOperation_t, cusparseOperation_t,
                                               const void *, const void *, const void *, const void *,
                                               cusparseSpMatDescr_t, cudaDataType, int, void *, size_t *, void *);
cusparseStatus_t cusparseSpGEMM_compute(cusparseHandle_t, cusparseOperation_t, cusparseOperation_t, const void *,
                                        const void *, const void *, const void *, cusparseSpMatDescr_t,
                                        cudaDataType, int, void *, size_t *, void *);
cusparseStatus_t cusparseSpGEMM_copy(cusparseHandle_t, cusparseOperation_t, cusparseOperation_t, const void *,
                                     const void *, const void *, const void *, cusparseSpMatDescr_t, cudaDataType,
                                     int, void *);
cusparseStatus_t cusparseSpGEMM_getNumProducts(void *, int64_t *);
cusparseStatus_t cusparseSpGEMMreuse_workEstimation(cusparseHandle_t, cusparseOperation_t, cusparseOperation_t,
                                                    const void *, const void *, cusparseSpMatDescr_t, int, void *,
                                                    size_t *, void *);
cusparseStatus_t cusparseSpGEMMreuse_nnz(cusparseHandle_t, cusparseOperation_t, cusparseOperation_t, const void *,
                                         const void *, cusparseSpMatDescr_t, int, void *, size_t *, void *, size_t *,
                                         void *, size_t *, void *);
cusparseStatus_t cusparseSpGEMMreuse_copy(cusparseHandle_t, cusparseOperation_t, cusparseOperation_t, const void *,
                                          const void *, cusparseSpMatDescr_t, int, void *, size_t *, void *);
cusparseStatus_t cusparseSpGEMMreuse_compute(cusparseHandle_t, cusparseOperation_t, cusparseOperation_t,
                                             const void *, const void *, const void *, const void *,
                                             cusparseSpMatDescr_t, cudaDataType, int, void *);
}
void *zludaNativeStream(CUstream);

namespace {

bool withRocsparse() {
  const char *E = std::getenv("ZLUDA_ROCSPARSE_LIBRARY");
  return E && std::strstr(E, "fake");
}
template <typename T> T *devCopy(const std::vector<T> &V) {
  CUdeviceptr P;
  EXPECT_EQ(cuMemAlloc_v2(&P, V.size() * sizeof(T) + 16), CUDA_SUCCESS);
  std::memcpy(reinterpret_cast<void *>(P), V.data(), V.size() * sizeof(T)); // test HIP memory is host memory
  return reinterpret_cast<T *>(P);
}
struct Fake {
  int (*Calls)() = nullptr;
  void *(*Stream)() = nullptr;
  int (*Mode)() = nullptr;
};
Fake fake() {
  Fake F;
  if (void *L = withRocsparse() ? dlopen(std::getenv("ZLUDA_ROCSPARSE_LIBRARY"), RTLD_NOW | RTLD_NOLOAD) : nullptr) {
    F.Calls = reinterpret_cast<int (*)()>(dlsym(L, "fakeRocsparseCalls"));
    F.Stream = reinterpret_cast<void *(*)()>(dlsym(L, "fakeRocsparseLastStream"));
    F.Mode = reinterpret_cast<int (*)()>(dlsym(L, "fakeRocsparseLastPointerMode"));
  }
  return F;
}

class CusparseRoc : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(usePrimaryContext());
    ASSERT_EQ(cusparseCreate(&H), CUSPARSE_STATUS_SUCCESS);
    ASSERT_EQ(cuStreamCreate(&S, 0), CUDA_SUCCESS);
    ASSERT_EQ(cusparseSetStream(H, S), CUSPARSE_STATUS_SUCCESS);
  }
  void TearDown() override { cusparseDestroy(H); }
  cusparseHandle_t H = nullptr;
  CUstream S = nullptr;
};

// A 5 x 7 matrix as CSR (one-based, 64-bit offsets), CSC and COO: y = A x, y = A^T x, C = A B against loops.
TEST_F(CusparseRoc, SpmvAndSpmmReachRocsparseWithTheirDescriptors) {
  const int M = 5, N = 7;
  std::mt19937 Rng(7);
  std::uniform_real_distribution<double> U(-1, 1);
  std::vector<double> Dense(size_t(M) * N, 0);
  for (auto &V : Dense)
    if (U(Rng) > 0.2)
      V = U(Rng);
  std::vector<int64_t> CsrOff{1};
  std::vector<int32_t> CsrInd, CooRow, CooCol, CscOff{0}, CscInd;
  std::vector<double> CsrVal, CscVal;
  for (int I = 0; I < M; ++I) {
    for (int J = 0; J < N; ++J)
      if (Dense[size_t(I) * N + J] != 0) {
        CsrInd.push_back(J + 1);
        CsrVal.push_back(Dense[size_t(I) * N + J]);
        CooRow.push_back(I);
        CooCol.push_back(J);
      }
    CsrOff.push_back(int64_t(CsrInd.size()) + 1);
  }
  for (int J = 0; J < N; ++J) {
    for (int I = 0; I < M; ++I)
      if (Dense[size_t(I) * N + J] != 0) {
        CscInd.push_back(I);
        CscVal.push_back(Dense[size_t(I) * N + J]);
      }
    CscOff.push_back(int32_t(CscInd.size()));
  }
  const int64_t Nnz = int64_t(CsrVal.size());
  cusparseSpMatDescr_t Csr, Csc, Coo;
  ASSERT_EQ(cusparseCreateCsr(&Csr, M, N, Nnz, devCopy(CsrOff), devCopy(CsrInd), devCopy(CsrVal), CUSPARSE_INDEX_64I,
                              CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ONE, CUDA_R_64F),
            CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseCreateCsc(&Csc, M, N, Nnz, devCopy(CscOff), devCopy(CscInd), devCopy(CscVal), CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
            CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseCreateCoo(&Coo, M, N, Nnz, devCopy(CooRow), devCopy(CooCol), devCopy(CsrVal), CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
            CUSPARSE_STATUS_SUCCESS);
  std::vector<double> X(N), Xt(M), Y0(M), B(size_t(N) * 3);
  for (auto *V : {&X, &Xt, &Y0, &B})
    for (double &E : *V)
      E = U(Rng);
  double *DX = devCopy(X), *DXt = devCopy(Xt);
  double Alpha = 2, Beta = -0.5;
  int Wrong = 0;
  for (cusparseSpMatDescr_t A : {Csr, Csc, Coo}) {
    double *DY = devCopy(Y0), *DYt = devCopy(std::vector<double>(N, 1.0));
    cusparseDnVecDescr_t Vx, Vy, Vxt, Vyt;
    cusparseCreateDnVec(&Vx, N, DX, CUDA_R_64F);
    cusparseCreateDnVec(&Vy, M, DY, CUDA_R_64F);
    cusparseCreateDnVec(&Vxt, M, DXt, CUDA_R_64F);
    cusparseCreateDnVec(&Vyt, N, DYt, CUDA_R_64F);
    size_t Bytes = 0;
    ASSERT_EQ(cusparseSpMV_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &Alpha, A, Vx, &Beta, Vy, CUDA_R_64F, 0,
                                      &Bytes),
              CUSPARSE_STATUS_SUCCESS);
    if (withRocsparse())
      EXPECT_EQ(Bytes, 4096u); // rocSPARSE's size
    void *Buf = devCopy(std::vector<char>(Bytes));
    ASSERT_EQ(cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &Alpha, A, Vx, &Beta, Vy, CUDA_R_64F, 0, Buf),
              CUSPARSE_STATUS_SUCCESS);
    double Zero = 0;
    ASSERT_EQ(cusparseSpMV(H, CUSPARSE_OPERATION_TRANSPOSE, &Alpha, A, Vxt, &Zero, Vyt, CUDA_R_64F, 0, Buf),
              CUSPARSE_STATUS_SUCCESS);
    ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
    for (int I = 0; I < M; ++I) {
      double Sum = 0;
      for (int J = 0; J < N; ++J)
        Sum += Dense[size_t(I) * N + J] * X[J];
      Wrong += std::fabs(DY[I] - (Alpha * Sum + Beta * Y0[I])) > 1e-12;
    }
    for (int J = 0; J < N; ++J) {
      double Sum = 0;
      for (int I = 0; I < M; ++I)
        Sum += Dense[size_t(I) * N + J] * Xt[I];
      Wrong += std::fabs(DYt[J] - Alpha * Sum) > 1e-12; // beta 0: y not read
    }
    // SpMM with B row-major (n x 3) and C column-major (m x 3).
    double *DB = devCopy(B), *DC = devCopy(std::vector<double>(size_t(M) * 3, 7.0));
    cusparseDnMatDescr_t Mb, Mc;
    cusparseCreateDnMat(&Mb, N, 3, 3, DB, CUDA_R_64F, CUSPARSE_ORDER_ROW);
    cusparseCreateDnMat(&Mc, M, 3, M, DC, CUDA_R_64F, CUSPARSE_ORDER_COL);
    ASSERT_EQ(cusparseSpMM_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &Alpha, A,
                                      Mb, &Zero, Mc, CUDA_R_64F, 0, &Bytes),
              CUSPARSE_STATUS_SUCCESS);
    void *Buf2 = devCopy(std::vector<char>(Bytes + 1));
    ASSERT_EQ(cusparseSpMM(H, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &Alpha, A, Mb, &Zero,
                           Mc, CUDA_R_64F, 0, Buf2),
              CUSPARSE_STATUS_SUCCESS);
    ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
    for (int I = 0; I < M; ++I)
      for (int K = 0; K < 3; ++K) {
        double Sum = 0;
        for (int J = 0; J < N; ++J)
          Sum += Dense[size_t(I) * N + J] * B[size_t(J) * 3 + K];
        Wrong += std::fabs(DC[size_t(K) * M + I] - Alpha * Sum) > 1e-12;
      }
    cusparseDestroyDnVec(Vx);
    cusparseDestroyDnVec(Vy);
    cusparseDestroyDnVec(Vxt);
    cusparseDestroyDnVec(Vyt);
    cusparseDestroyDnMat(Mb);
    cusparseDestroyDnMat(Mc);
  }
  EXPECT_EQ(Wrong, 0);
  if (withRocsparse()) {
    Fake F = fake(); // loaded by our library at its first call
    ASSERT_TRUE(F.Calls && F.Stream && F.Mode);
    EXPECT_EQ(F.Calls(), 9); // three formats, three products each
    EXPECT_EQ(F.Stream(), zludaNativeStream(S));
    EXPECT_EQ(F.Mode(), 0);
  }
  cusparseDestroySpMat(Csr);
  cusparseDestroySpMat(Csc);
  cusparseDestroySpMat(Coo);
}

// SpVV (on a GPU: host copies of x and y after the stream): f64 with the result in host and in device memory,
// int8 values summed into an int32 result (a mixed precision of cuSPARSE's table); x one-based, 64-bit indices.
TEST_F(CusparseRoc, SpvvOnHostCopies) {
  const int64_t N = 9;
  const std::vector<int64_t> Idx{2, 4, 5, 9}; // one-based
  const std::vector<double> Xv{1.5, -2, 0.25, 3};
  std::vector<double> Y(N);
  for (int64_t I = 0; I < N; ++I)
    Y[size_t(I)] = double(I * I) - 7;
  double Want = 0;
  for (size_t K = 0; K < Idx.size(); ++K)
    Want += Xv[K] * Y[size_t(Idx[K] - 1)];
  cusparseSpVecDescr_t X;
  cusparseDnVecDescr_t Yd;
  ASSERT_EQ(cusparseCreateSpVec(&X, N, 4, devCopy(Idx), devCopy(Xv), CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ONE,
                                CUDA_R_64F),
            CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseCreateDnVec(&Yd, N, devCopy(Y), CUDA_R_64F), CUSPARSE_STATUS_SUCCESS);
  double R = -1;
  size_t Need = 1;
  ASSERT_EQ(cusparseSpVV_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, X, Yd, &R, CUDA_R_64F, &Need),
            CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseSpVV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, X, Yd, &R, CUDA_R_64F, nullptr), CUSPARSE_STATUS_SUCCESS);
  EXPECT_EQ(R, Want);
  double *DR = devCopy(std::vector<double>{-1});
  ASSERT_EQ(cusparseSetPointerMode(H, CUSPARSE_POINTER_MODE_DEVICE), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseSpVV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, X, Yd, DR, CUDA_R_64F, nullptr), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(*DR, Want);
  ASSERT_EQ(cusparseSetPointerMode(H, CUSPARSE_POINTER_MODE_HOST), CUSPARSE_STATUS_SUCCESS);
  cusparseDestroySpVec(X);
  cusparseDestroyDnVec(Yd);

  const std::vector<int8_t> Xi{100, -90, 7, 127}, Yi{1, 120, -3, 4, 110, 5, 6, 7, 127};
  int32_t WantI = 0;
  for (size_t K = 0; K < Idx.size(); ++K)
    WantI += Xi[K] * Yi[size_t(Idx[K] - 1)]; // beyond int8: the int32 compute type holds it
  ASSERT_EQ(cusparseCreateSpVec(&X, N, 4, devCopy(Idx), devCopy(Xi), CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ONE,
                                CUDA_R_8I),
            CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseCreateDnVec(&Yd, N, devCopy(Yi), CUDA_R_8I), CUSPARSE_STATUS_SUCCESS);
  int32_t Ri = 0;
  ASSERT_EQ(cusparseSpVV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, X, Yd, &Ri, CUDA_R_32I, nullptr), CUSPARSE_STATUS_SUCCESS);
  EXPECT_EQ(Ri, WantI);
  EXPECT_EQ(cusparseSpVV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, X, Yd, &Ri, CUDA_R_64F, nullptr),
            CUSPARSE_STATUS_NOT_SUPPORTED); // not in cuSPARSE's table
  cusparseDestroySpVec(X);
  cusparseDestroyDnVec(Yd);
}

// SpSM (L Y = alpha B, lower triangular CSR, B and Y column-major 5 x 2) and SDDMM (C = alpha (A B^T) at C's
// pattern + beta C, alpha and beta in device memory): on a GPU, host copies after the stream, outputs copied back.
TEST_F(CusparseRoc, SpsmAndSddmmOnHostCopies) {
  const int N = 5, K = 2;
  // L: diagonal 2, subdiagonal -1, L[4][0] = 1.
  const std::vector<int> Off{0, 1, 3, 5, 7, 10}, Col{0, 0, 1, 1, 2, 2, 3, 0, 3, 4};
  const std::vector<double> Val{2, -1, 2, -1, 2, -1, 2, 1, -1, 2};
  std::vector<double> L(size_t(N) * N, 0);
  for (int R = 0; R < N; ++R)
    for (int P = Off[size_t(R)]; P < Off[size_t(R + 1)]; ++P)
      L[size_t(R * N + Col[size_t(P)])] = Val[size_t(P)];
  std::vector<double> B(size_t(N) * K);
  for (size_t I = 0; I < B.size(); ++I)
    B[I] = double(I % 4) - 1.5;
  cusparseSpMatDescr_t A;
  ASSERT_EQ(cusparseCreateCsr(&A, N, N, 10, devCopy(Off), devCopy(Col), devCopy(Val), CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
            CUSPARSE_STATUS_SUCCESS);
  int Fill = 0 /* lower */, Diag = 0 /* non-unit */;
  ASSERT_EQ(cusparseSpMatSetAttribute(A, 0 /* fill mode */, &Fill, sizeof Fill), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseSpMatSetAttribute(A, 1 /* diag type */, &Diag, sizeof Diag), CUSPARSE_STATUS_SUCCESS);
  double *DY = devCopy(std::vector<double>(size_t(N) * K, -99));
  cusparseDnMatDescr_t Mb, My;
  ASSERT_EQ(cusparseCreateDnMat(&Mb, N, K, N, devCopy(B), CUDA_R_64F, CUSPARSE_ORDER_COL), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseCreateDnMat(&My, N, K, N, DY, CUDA_R_64F, CUSPARSE_ORDER_COL), CUSPARSE_STATUS_SUCCESS);
  void *D;
  ASSERT_EQ(cusparseSpSM_createDescr(&D), CUSPARSE_STATUS_SUCCESS);
  const double Alpha = 3;
  size_t Need = 0;
  const auto Nt = CUSPARSE_OPERATION_NON_TRANSPOSE;
  ASSERT_EQ(cusparseSpSM_bufferSize(H, Nt, Nt, &Alpha, A, Mb, My, CUDA_R_64F, 0, D, &Need), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseSpSM_analysis(H, Nt, Nt, &Alpha, A, Mb, My, CUDA_R_64F, 0, D, nullptr), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseSpSM_solve(H, Nt, Nt, &Alpha, A, Mb, My, CUDA_R_64F, 0, D), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  for (int J = 0; J < K; ++J)
    for (int R = 0; R < N; ++R) { // (L Y)[R][J] = alpha B[R][J]
      double Ly = 0;
      for (int C = 0; C < N; ++C)
        Ly += L[size_t(R * N + C)] * DY[C + J * N];
      EXPECT_NEAR(Ly, Alpha * B[size_t(R + J * N)], 1e-12) << R << " " << J;
    }
  cusparseSpSM_destroyDescr(D);

  // SDDMM with C = L's pattern: X (N x K) times Z^T (Z N x K, op T), row-major X.
  std::vector<double> X(size_t(N) * K), Z(size_t(N) * K), C0(Val);
  for (size_t I = 0; I < X.size(); ++I)
    X[I] = double(I) * 0.5 - 2, Z[I] = 1.0 - double(I % 3);
  double *CVal = devCopy(C0);
  cusparseSpMatDescr_t Cm;
  ASSERT_EQ(cusparseCreateCsr(&Cm, N, N, 10, devCopy(Off), devCopy(Col), CVal, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
            CUSPARSE_STATUS_SUCCESS);
  cusparseDnMatDescr_t Mx, Mz;
  ASSERT_EQ(cusparseCreateDnMat(&Mx, N, K, K, devCopy(X), CUDA_R_64F, CUSPARSE_ORDER_ROW), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseCreateDnMat(&Mz, N, K, N, devCopy(Z), CUDA_R_64F, CUSPARSE_ORDER_COL), CUSPARSE_STATUS_SUCCESS);
  double *DAl = devCopy(std::vector<double>{2}), *DBe = devCopy(std::vector<double>{-1});
  ASSERT_EQ(cusparseSetPointerMode(H, CUSPARSE_POINTER_MODE_DEVICE), CUSPARSE_STATUS_SUCCESS);
  const auto Tr = CUSPARSE_OPERATION_TRANSPOSE;
  ASSERT_EQ(cusparseSDDMM_bufferSize(H, Nt, Tr, DAl, Mx, Mz, DBe, Cm, CUDA_R_64F, 0, &Need), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseSDDMM(H, Nt, Tr, DAl, Mx, Mz, DBe, Cm, CUDA_R_64F, 0, nullptr), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  ASSERT_EQ(cusparseSetPointerMode(H, CUSPARSE_POINTER_MODE_HOST), CUSPARSE_STATUS_SUCCESS);
  for (int R = 0; R < N; ++R)
    for (int P = Off[size_t(R)]; P < Off[size_t(R + 1)]; ++P) {
      const int C = Col[size_t(P)];
      double Dot = 0;
      for (int Q = 0; Q < K; ++Q)
        Dot += X[size_t(R * K + Q)] * Z[size_t(C + Q * N)];
      EXPECT_NEAR(CVal[P], 2 * Dot - C0[size_t(P)], 1e-12) << R << " " << C;
    }
  cusparseDestroyDnMat(Mb);
  cusparseDestroyDnMat(My);
  cusparseDestroyDnMat(Mx);
  cusparseDestroyDnMat(Mz);
  cusparseDestroySpMat(A);
  cusparseDestroySpMat(Cm);
}

// The conversions csr2csc (numeric), csr2coo and coo2csr of a one-based 4 x 5 matrix: on a GPU after the stream
// on host copies of the arrays; checked against the dense matrix.
TEST_F(CusparseRoc, ConversionsOnHostCopies) {
  const int M = 4, N = 5, Nnz = 7;
  const std::vector<int> Off{1, 3, 4, 6, 8}, Col{1, 4, 2, 1, 5, 3, 4};
  const std::vector<float> Val{1, 2, 3, 4, 5, 6, 7};
  std::vector<float> Dense(size_t(M) * N, 0);
  for (int R = 0; R < M; ++R)
    for (int P = Off[size_t(R)] - 1; P < Off[size_t(R + 1)] - 1; ++P)
      Dense[size_t(R * N + Col[size_t(P)] - 1)] = Val[size_t(P)];
  int *CP = devCopy(std::vector<int>(N + 1, -9)), *RI = devCopy(std::vector<int>(Nnz, -9));
  float *CV = devCopy(std::vector<float>(Nnz, -9));
  ASSERT_EQ(cusparseCsr2cscEx2(H, M, N, Nnz, devCopy(Val), devCopy(Off), devCopy(Col), CV, CP, RI, CUDA_R_32F,
                               1 /* numeric */, CUSPARSE_INDEX_BASE_ONE, 1, nullptr),
            CUSPARSE_STATUS_SUCCESS);
  int *Rows = devCopy(std::vector<int>(Nnz, -9)), *Back = devCopy(std::vector<int>(M + 1, -9));
  ASSERT_EQ(cusparseXcsr2coo(H, devCopy(Off), Nnz, M, Rows, CUSPARSE_INDEX_BASE_ONE), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseXcoo2csr(H, Rows, Nnz, M, Back, CUSPARSE_INDEX_BASE_ONE), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  std::vector<float> FromCsc(size_t(M) * N, 0);
  EXPECT_EQ(CP[0], 1);
  EXPECT_EQ(CP[N], Nnz + 1);
  for (int C = 0; C < N; ++C)
    for (int P = CP[C] - 1; P < CP[C + 1] - 1; ++P) {
      ASSERT_GE(RI[P], 1);
      ASSERT_LE(RI[P], M);
      if (P > CP[C] - 1)
        EXPECT_LT(RI[P - 1], RI[P]); // rows ascending in a column
      FromCsc[size_t((RI[P] - 1) * N + C)] = CV[P];
    }
  EXPECT_EQ(FromCsc, Dense);
  for (int R = 0; R < M; ++R)
    for (int P = Off[size_t(R)] - 1; P < Off[size_t(R + 1)] - 1; ++P)
      EXPECT_EQ(Rows[P], R + 1) << P;
  for (int R = 0; R <= M; ++R)
    EXPECT_EQ(Back[R], Off[size_t(R)]) << R;
}

// ILU(0) of a tridiagonal matrix (its exact LU: L U = A) on a GPU through host copies; then a matrix with a zero
// pivot in row 3 reported by zeroPivot in host and in device memory.
TEST_F(CusparseRoc, Ilu0OnHostCopies) {
  const int N = 6;
  std::vector<int> Off{0}, Col;
  std::vector<double> Val;
  std::vector<double> A(size_t(N) * N, 0);
  for (int R = 0; R < N; ++R) {
    for (int C = std::max(0, R - 1); C <= std::min(N - 1, R + 1); ++C) {
      Col.push_back(C);
      Val.push_back(C == R ? 4.0 + R : -1.0 - 0.5 * C);
      A[size_t(R * N + C)] = Val.back();
    }
    Off.push_back(int(Col.size()));
  }
  const int Nnz = int(Val.size());
  void *D, *Info;
  ASSERT_EQ(cusparseCreateMatDescr(&D), CUSPARSE_STATUS_SUCCESS); // general, zero-based
  ASSERT_EQ(cusparseCreateCsrilu02Info(&Info), CUSPARSE_STATUS_SUCCESS);
  int *DOff = devCopy(Off), *DCol = devCopy(Col);
  double *DVal = devCopy(Val);
  int Bytes = 0;
  ASSERT_EQ(cusparseDcsrilu02_bufferSize(H, N, Nnz, D, DVal, DOff, DCol, Info, &Bytes), CUSPARSE_STATUS_SUCCESS);
  void *Buf = devCopy(std::vector<char>(size_t(std::max(Bytes, 1))));
  ASSERT_EQ(cusparseDcsrilu02_analysis(H, N, Nnz, D, DVal, DOff, DCol, Info, 1, Buf), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseDcsrilu02(H, N, Nnz, D, DVal, DOff, DCol, Info, 1, Buf), CUSPARSE_STATUS_SUCCESS);
  int Pos = 7;
  EXPECT_EQ(cusparseXcsrilu02_zeroPivot(H, Info, &Pos), CUSPARSE_STATUS_SUCCESS);
  EXPECT_EQ(Pos, -1);
  std::vector<double> L(size_t(N) * N, 0), U(size_t(N) * N, 0);
  for (int R = 0; R < N; ++R) {
    L[size_t(R * N + R)] = 1;
    for (int P = Off[size_t(R)]; P < Off[size_t(R + 1)]; ++P)
      (Col[size_t(P)] < R ? L : U)[size_t(R * N + Col[size_t(P)])] = DVal[P];
  }
  for (int R = 0; R < N; ++R)
    for (int C = 0; C < N; ++C) {
      double V = 0;
      for (int K = 0; K < N; ++K)
        V += L[size_t(R * N + K)] * U[size_t(K * N + C)];
      EXPECT_NEAR(V, A[size_t(R * N + C)], 1e-12) << R << " " << C;
    }
  // Row 3's pivot becomes zero: a[3][3] = l[3][2] u[2][3].
  std::vector<double> Z = Val;
  Z[size_t(Off[3] + 1)] = 0;
  Z[size_t(Off[3])] = 0; // l[3][2] = 0 too: the pivot is a[3][3] itself
  double *DZ = devCopy(Z);
  ASSERT_EQ(cusparseDcsrilu02(H, N, Nnz, D, DZ, DOff, DCol, Info, 1, Buf), CUSPARSE_STATUS_SUCCESS);
  EXPECT_EQ(cusparseXcsrilu02_zeroPivot(H, Info, &Pos), CUSPARSE_STATUS_ZERO_PIVOT);
  EXPECT_EQ(Pos, 3);
  int *DPos = devCopy(std::vector<int>{-5});
  ASSERT_EQ(cusparseSetPointerMode(H, CUSPARSE_POINTER_MODE_DEVICE), CUSPARSE_STATUS_SUCCESS);
  EXPECT_EQ(cusparseXcsrilu02_zeroPivot(H, Info, DPos), CUSPARSE_STATUS_ZERO_PIVOT);
  ASSERT_EQ(cusparseSetPointerMode(H, CUSPARSE_POINTER_MODE_HOST), CUSPARSE_STATUS_SUCCESS);
  EXPECT_EQ(*DPos, 3);
  cusparseDestroyCsrilu02Info(Info);
  cusparseDestroyMatDescr(D);
}

// Sorting on a GPU through host copies: COO entries by row (then column) with the permutation that
// CreateIdentityPermutation starts, and each CSR row's columns.
TEST_F(CusparseRoc, SortsOnHostCopies) {
  const int Nnz = 6;
  const std::vector<int> R0{2, 0, 1, 0, 2, 1}, C0{1, 3, 0, 0, 0, 2};
  int *Rows = devCopy(R0), *Cols = devCopy(C0), *P = devCopy(std::vector<int>(Nnz, -1));
  void *Buf = devCopy(std::vector<char>(256));
  ASSERT_EQ(cusparseCreateIdentityPermutation(H, Nnz, P), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseXcoosortByRow(H, 3, 4, Nnz, Rows, Cols, P, Buf), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  for (int K = 0; K < Nnz; ++K) {
    EXPECT_EQ(Rows[K], R0[size_t(P[K])]) << K; // the permutation maps sorted to original positions
    EXPECT_EQ(Cols[K], C0[size_t(P[K])]) << K;
    if (K)
      EXPECT_TRUE(Rows[K - 1] < Rows[K] || (Rows[K - 1] == Rows[K] && Cols[K - 1] < Cols[K])) << K;
  }
  void *D;
  ASSERT_EQ(cusparseCreateMatDescr(&D), CUSPARSE_STATUS_SUCCESS);
  const std::vector<int> Off{0, 3, 6};
  int *Ci = devCopy(std::vector<int>{4, 0, 2, 3, 1, 0});
  ASSERT_EQ(cusparseXcsrsort(H, 2, 5, 6, D, devCopy(Off), Ci, nullptr, Buf), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(std::vector<int>(Ci, Ci + 6), (std::vector<int>{0, 2, 4, 0, 1, 3}));
  cusparseDestroyMatDescr(D);
}

/// A random M x N sparse matrix (about a third of the entries set) as zero-based CSR, with its dense row-major form.
struct RandomCsr {
  std::vector<int> Off{0}, Col;
  std::vector<double> Val, Dense;
  RandomCsr(int M, int N, unsigned Seed) : Dense(size_t(M) * N, 0) {
    std::mt19937 Rng(Seed);
    std::uniform_real_distribution<double> U(-2, 2);
    for (int R = 0; R < M; ++R) {
      for (int C = 0; C < N; ++C)
        if (Rng() % 3 == 0) {
          Col.push_back(C);
          Val.push_back(U(Rng));
          Dense[size_t(R * N + C)] = Val.back();
        }
      Off.push_back(int(Col.size()));
    }
  }
  cusparseSpMatDescr_t descr(int M, int N) const {
    cusparseSpMatDescr_t D = nullptr;
    EXPECT_EQ(cusparseCreateCsr(&D, M, N, int64_t(Val.size()), devCopy(Off), devCopy(Col), devCopy(Val),
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
              CUSPARSE_STATUS_SUCCESS);
    return D;
  }
};

// SparseToDense into a column-major matrix whose leading dimension leaves rows the conversion must not touch, then
// DenseToSparse of another matrix (the count at return, the offsets written by the analysis, then the arrays).
TEST_F(CusparseRoc, DenseConversionsOnHostCopies) {
  const int M = 5, N = 6, Ld = 8;
  RandomCsr A(M, N, 11);
  cusparseSpMatDescr_t Sa = A.descr(M, N);
  double *D = devCopy(std::vector<double>(size_t(Ld) * N, -7));
  cusparseDnMatDescr_t Md;
  ASSERT_EQ(cusparseCreateDnMat(&Md, M, N, Ld, D, CUDA_R_64F, CUSPARSE_ORDER_COL), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseSparseToDense(H, Sa, Md, 0, nullptr), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  for (int C = 0; C < N; ++C)
    for (int R = 0; R < Ld; ++R)
      EXPECT_EQ(D[C * Ld + R], R < M ? A.Dense[size_t(R * N + C)] : -7.0) << R << " " << C;

  RandomCsr B(M, N, 12); // its dense form, row-major, to CSR
  cusparseDnMatDescr_t Mb;
  ASSERT_EQ(cusparseCreateDnMat(&Mb, M, N, N, devCopy(B.Dense), CUDA_R_64F, CUSPARSE_ORDER_ROW),
            CUSPARSE_STATUS_SUCCESS);
  int *Off = devCopy(std::vector<int>(M + 1, -9));
  cusparseSpMatDescr_t Sb;
  ASSERT_EQ(cusparseCreateCsr(&Sb, M, N, 0, Off, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
            CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseDenseToSparse_analysis(H, Mb, Sb, 0, nullptr), CUSPARSE_STATUS_SUCCESS);
  int64_t Rows, Cols, Nnz;
  ASSERT_EQ(cusparseSpMatGetSize(Sb, &Rows, &Cols, &Nnz), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(Nnz, int64_t(B.Val.size()));
  EXPECT_EQ(std::vector<int>(Off, Off + M + 1), B.Off);
  int *Col = devCopy(std::vector<int>(size_t(Nnz), -9));
  double *Val = devCopy(std::vector<double>(size_t(Nnz), -9));
  std::fill(Off, Off + M + 1, -9);
  ASSERT_EQ(cusparseCsrSetPointers(Sb, Off, Col, Val), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseDenseToSparse_convert(H, Mb, Sb, 0, nullptr), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(std::vector<int>(Off, Off + M + 1), B.Off);
  EXPECT_EQ(std::vector<int>(Col, Col + Nnz), B.Col);
  EXPECT_EQ(std::vector<double>(Val, Val + Nnz), B.Val);
  cusparseDestroySpMat(Sa);
  cusparseDestroySpMat(Sb);
  cusparseDestroyDnMat(Md);
  cusparseDestroyDnMat(Mb);
}

// The sparse-vector operations, each against a loop: y = a x + b y, gather, scatter, and a Givens rotation with its
// scalars in device memory.
TEST_F(CusparseRoc, SparseVectorOpsOnHostCopies) {
  const int N = 9;
  const std::vector<int> Ind{1, 4, 5, 8};
  const std::vector<double> Xv{1.5, -2, 3, 0.25}, Y0{1, 2, 3, 4, 5, 6, 7, 8, 9};
  auto Make = [&](double *Xd, double *Yd, cusparseSpVecDescr_t &X, cusparseDnVecDescr_t &Y) {
    ASSERT_EQ(cusparseCreateSpVec(&X, N, 4, devCopy(Ind), Xd, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
              CUSPARSE_STATUS_SUCCESS);
    ASSERT_EQ(cusparseCreateDnVec(&Y, N, Yd, CUDA_R_64F), CUSPARSE_STATUS_SUCCESS);
  };
  cusparseSpVecDescr_t X;
  cusparseDnVecDescr_t Y;
  double *Xd = devCopy(Xv), *Yd = devCopy(Y0);
  ASSERT_NO_FATAL_FAILURE(Make(Xd, Yd, X, Y));
  const double A = 2, B = -0.5;
  ASSERT_EQ(cusparseAxpby(H, &A, X, &B, Y), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  std::vector<double> Want(Y0);
  for (double &V : Want)
    V *= B;
  for (size_t K = 0; K < Ind.size(); ++K)
    Want[size_t(Ind[K])] += A * Xv[K];
  EXPECT_EQ(std::vector<double>(Yd, Yd + N), Want);

  std::memcpy(Yd, Y0.data(), sizeof(double) * N);
  ASSERT_EQ(cusparseGather(H, Y, X), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  for (size_t K = 0; K < Ind.size(); ++K)
    EXPECT_EQ(Xd[K], Y0[size_t(Ind[K])]) << K;

  std::memcpy(Xd, Xv.data(), sizeof(double) * 4);
  ASSERT_EQ(cusparseScatter(H, X, Y), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  Want = Y0;
  for (size_t K = 0; K < Ind.size(); ++K)
    Want[size_t(Ind[K])] = Xv[K];
  EXPECT_EQ(std::vector<double>(Yd, Yd + N), Want);

  std::memcpy(Yd, Y0.data(), sizeof(double) * N);
  const double C = 0.6, Sn = 0.8;
  double *DC = devCopy(std::vector<double>{C}), *DS = devCopy(std::vector<double>{Sn});
  ASSERT_EQ(cusparseSetPointerMode(H, CUSPARSE_POINTER_MODE_DEVICE), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseRot(H, DC, DS, X, Y), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  ASSERT_EQ(cusparseSetPointerMode(H, CUSPARSE_POINTER_MODE_HOST), CUSPARSE_STATUS_SUCCESS);
  Want = Y0;
  for (size_t K = 0; K < Ind.size(); ++K) {
    const double Yk = Y0[size_t(Ind[K])];
    EXPECT_DOUBLE_EQ(Xd[K], C * Xv[K] + Sn * Yk) << K;
    Want[size_t(Ind[K])] = C * Yk - Sn * Xv[K];
  }
  for (int I = 0; I < N; ++I)
    EXPECT_DOUBLE_EQ(Yd[I], Want[size_t(I)]) << I;
  cusparseDestroySpVec(X);
  cusparseDestroyDnVec(Y);
}

/// alpha A B (dense, row-major) of a RandomCsr A (M x K) and B (K x N).
std::vector<double> product(const RandomCsr &A, const RandomCsr &B, int M, int K, int N, double Alpha) {
  std::vector<double> C(size_t(M) * N, 0);
  for (int I = 0; I < M; ++I)
    for (int L = 0; L < K; ++L)
      for (int J = 0; J < N; ++J)
        C[size_t(I * N + J)] += Alpha * A.Dense[size_t(I * K + L)] * B.Dense[size_t(L * N + J)];
  return C;
}

// SpGEMM (work estimation, compute, copy) and SpGEMM with reuse (its four phases, values computed twice) of random
// CSR matrices, against the dense product; C's arrays are poisoned before each phase writes them.
TEST_F(CusparseRoc, SpgemmOnHostCopies) {
  const int M = 6, K = 7, N = 5;
  RandomCsr A(M, K, 21), B(K, N, 22);
  cusparseSpMatDescr_t Am = A.descr(M, K), Bm = B.descr(K, N), Cm;
  ASSERT_EQ(cusparseCreateCsr(&Cm, M, N, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
            CUSPARSE_STATUS_SUCCESS);
  const auto Nt = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const double Alpha = 1.5, Beta = 0;
  void *G;
  ASSERT_EQ(cusparseSpGEMM_createDescr(&G), CUSPARSE_STATUS_SUCCESS);
  size_t S1 = 0, S2 = 0;
  ASSERT_EQ(cusparseSpGEMM_workEstimation(H, Nt, Nt, &Alpha, Am, Bm, &Beta, Cm, CUDA_R_64F, 0, G, &S1, nullptr),
            CUSPARSE_STATUS_SUCCESS);
  void *B1 = devCopy(std::vector<char>(S1));
  ASSERT_EQ(cusparseSpGEMM_workEstimation(H, Nt, Nt, &Alpha, Am, Bm, &Beta, Cm, CUDA_R_64F, 0, G, &S1, B1),
            CUSPARSE_STATUS_SUCCESS);
  int64_t Products = -1, Want = 0;
  ASSERT_EQ(cusparseSpGEMM_getNumProducts(G, &Products), CUSPARSE_STATUS_SUCCESS);
  for (int I = 0; I < M; ++I)
    for (int P = A.Off[size_t(I)]; P < A.Off[size_t(I + 1)]; ++P) {
      const int L = A.Col[size_t(P)];
      Want += B.Off[size_t(L + 1)] - B.Off[size_t(L)];
    }
  EXPECT_EQ(Products, Want);
  ASSERT_EQ(cusparseSpGEMM_compute(H, Nt, Nt, &Alpha, Am, Bm, &Beta, Cm, CUDA_R_64F, 0, G, &S2, nullptr),
            CUSPARSE_STATUS_SUCCESS);
  void *B2 = devCopy(std::vector<char>(S2));
  ASSERT_EQ(cusparseSpGEMM_compute(H, Nt, Nt, &Alpha, Am, Bm, &Beta, Cm, CUDA_R_64F, 0, G, &S2, B2),
            CUSPARSE_STATUS_SUCCESS);
  int64_t Rows, Cols, Nnz;
  ASSERT_EQ(cusparseSpMatGetSize(Cm, &Rows, &Cols, &Nnz), CUSPARSE_STATUS_SUCCESS);
  int *Off = devCopy(std::vector<int>(M + 1, -9)), *Col = devCopy(std::vector<int>(size_t(Nnz), -9));
  double *Val = devCopy(std::vector<double>(size_t(Nnz), -9));
  ASSERT_EQ(cusparseCsrSetPointers(Cm, Off, Col, Val), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseSpGEMM_copy(H, Nt, Nt, &Alpha, Am, Bm, &Beta, Cm, CUDA_R_64F, 0, G), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  const std::vector<double> Ref = product(A, B, M, K, N, Alpha);
  auto Check = [&](const char *What) {
    std::vector<double> Got(size_t(M) * N, 0);
    ASSERT_EQ(Off[0], 0) << What;
    ASSERT_EQ(Off[M], Nnz) << What;
    for (int I = 0; I < M; ++I)
      for (int P = Off[I]; P < Off[I + 1]; ++P) {
        ASSERT_GE(Col[P], 0) << What;
        ASSERT_LT(Col[P], N) << What;
        Got[size_t(I * N + Col[P])] += Val[P];
      }
    for (size_t I = 0; I < Got.size(); ++I)
      EXPECT_NEAR(Got[I], Ref[I], 1e-12) << What << " " << I;
  };
  Check("SpGEMM");
  cusparseSpGEMM_destroyDescr(G);

  // With reuse: the pattern, then C = alpha A B + beta C twice (the second time A's values scaled by 2).
  cusparseSpMatDescr_t Cr;
  ASSERT_EQ(cusparseCreateCsr(&Cr, M, N, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
            CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseSpGEMM_createDescr(&G), CUSPARSE_STATUS_SUCCESS);
  size_t Q1 = 0, Q2 = 0, Q3 = 0, Q4 = 0, Q5 = 0;
  ASSERT_EQ(cusparseSpGEMMreuse_workEstimation(H, Nt, Nt, Am, Bm, Cr, 0, G, &Q1, nullptr), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseSpGEMMreuse_workEstimation(H, Nt, Nt, Am, Bm, Cr, 0, G, &Q1, devCopy(std::vector<char>(Q1))),
            CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseSpGEMMreuse_nnz(H, Nt, Nt, Am, Bm, Cr, 0, G, &Q2, nullptr, &Q3, nullptr, &Q4, nullptr),
            CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseSpGEMMreuse_nnz(H, Nt, Nt, Am, Bm, Cr, 0, G, &Q2, devCopy(std::vector<char>(Q2)), &Q3,
                                    devCopy(std::vector<char>(Q3)), &Q4, devCopy(std::vector<char>(Q4))),
            CUSPARSE_STATUS_SUCCESS);
  int64_t NnzR;
  ASSERT_EQ(cusparseSpMatGetSize(Cr, &Rows, &Cols, &NnzR), CUSPARSE_STATUS_SUCCESS);
  EXPECT_EQ(NnzR, Nnz);
  Off = devCopy(std::vector<int>(M + 1, -9)), Col = devCopy(std::vector<int>(size_t(Nnz), -9));
  Val = devCopy(std::vector<double>(size_t(Nnz), 0));
  ASSERT_EQ(cusparseCsrSetPointers(Cr, Off, Col, Val), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseSpGEMMreuse_copy(H, Nt, Nt, Am, Bm, Cr, 0, G, &Q5, nullptr), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseSpGEMMreuse_copy(H, Nt, Nt, Am, Bm, Cr, 0, G, &Q5, devCopy(std::vector<char>(Q5))),
            CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseSpGEMMreuse_compute(H, Nt, Nt, &Alpha, Am, Bm, &Beta, Cr, CUDA_R_64F, 0, G),
            CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  Check("reuse");
  const double One = 1;
  ASSERT_EQ(cusparseSpGEMMreuse_compute(H, Nt, Nt, &Alpha, Am, Bm, &One, Cr, CUDA_R_64F, 0, G),
            CUSPARSE_STATUS_SUCCESS); // C = alpha A B + C: twice the product
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  for (int64_t P = 0; P < Nnz; ++P)
    Val[P] /= 2;
  Check("reuse, beta 1");
  cusparseSpGEMM_destroyDescr(G);
  cusparseDestroySpMat(Am);
  cusparseDestroySpMat(Bm);
  cusparseDestroySpMat(Cm);
  cusparseDestroySpMat(Cr);
}

// A strided batch of three SpMMs (A's pattern shared, its offsets repeated; each matrix its own values and B;
// C = A B) on host copies that span the whole batch.
TEST_F(CusparseRoc, BatchedSpmmOnHostCopies) {
  const int M = 4, K = 5, N = 3, Batch = 3;
  const RandomCsr A0(M, K, 31);
  const size_t Nnz = A0.Val.size();
  std::vector<int> Off, Col;
  std::vector<double> Val, Bd, Ref(size_t(Batch) * M * N, 0);
  std::mt19937 Rng(5);
  for (int I = 0; I < Batch; ++I) {
    Off.insert(Off.end(), A0.Off.begin(), A0.Off.end());
    Col.insert(Col.end(), A0.Col.begin(), A0.Col.end());
    std::vector<double> Dense(size_t(M) * K, 0);
    for (int R = 0; R < M; ++R)
      for (int P = A0.Off[size_t(R)]; P < A0.Off[size_t(R + 1)]; ++P) {
        Val.push_back(A0.Val[size_t(P)] * (I + 1) - I);
        Dense[size_t(R * K + A0.Col[size_t(P)])] = Val.back();
      }
    std::vector<double> B(size_t(K) * N); // column-major
    for (double &V : B)
      V = double(int(Rng() % 9)) - 4;
    Bd.insert(Bd.end(), B.begin(), B.end());
    for (int R = 0; R < M; ++R)
      for (int J = 0; J < N; ++J)
        for (int L = 0; L < K; ++L)
          Ref[size_t(I * M * N + J * M + R)] += Dense[size_t(R * K + L)] * B[size_t(J * K + L)];
  }
  cusparseSpMatDescr_t Am;
  ASSERT_EQ(cusparseCreateCsr(&Am, M, K, int64_t(Nnz), devCopy(Off), devCopy(Col), devCopy(Val), CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
            CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseCsrSetStridedBatch(Am, Batch, M + 1, int64_t(Nnz)), CUSPARSE_STATUS_SUCCESS);
  double *Cd = devCopy(std::vector<double>(size_t(Batch) * M * N, -9));
  cusparseDnMatDescr_t Bm, Cm;
  ASSERT_EQ(cusparseCreateDnMat(&Bm, K, N, K, devCopy(Bd), CUDA_R_64F, CUSPARSE_ORDER_COL), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseCreateDnMat(&Cm, M, N, M, Cd, CUDA_R_64F, CUSPARSE_ORDER_COL), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseDnMatSetStridedBatch(Bm, Batch, int64_t(K) * N), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseDnMatSetStridedBatch(Cm, Batch, int64_t(M) * N), CUSPARSE_STATUS_SUCCESS);
  const double Alpha = 1, Beta = 0;
  const auto Nt = CUSPARSE_OPERATION_NON_TRANSPOSE;
  size_t Need = 0;
  ASSERT_EQ(cusparseSpMM_bufferSize(H, Nt, Nt, &Alpha, Am, Bm, &Beta, Cm, CUDA_R_64F, 0, &Need),
            CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseSpMM(H, Nt, Nt, &Alpha, Am, Bm, &Beta, Cm, CUDA_R_64F, 0, devCopy(std::vector<char>(Need + 1))),
            CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  for (size_t I = 0; I < Ref.size(); ++I)
    EXPECT_NEAR(Cd[I], Ref[I], 1e-12) << I;
  cusparseDestroySpMat(Am);
  cusparseDestroyDnMat(Bm);
  cusparseDestroyDnMat(Cm);
}

} // namespace
