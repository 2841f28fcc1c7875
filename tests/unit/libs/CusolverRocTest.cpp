//===- CusolverRocTest.cpp - our cuSOLVER on the HIP backend over rocSOLVER ===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Runs with the test HIP runtime (device memory is host memory) and
/// the test rocSOLVER (tests/fake_rocsolver: LAPACK on the arguments as
/// rocSOLVER reads them), so what our library passed to rocSOLVER is checked
/// by the numbers against references computed here: solves checked by their
/// residuals, QR by Q R = A and Q^H Q = I, SVD by U S V^H = A, eigenpairs by
/// A v = w v; `info` poisoned first and read back (0, or the failing column
/// of a singular or indefinite matrix); the HIP stream under the handle's
/// stream. Run twice by ctest: with the test rocSOLVER, and with none (the
/// host path through LAPACK answers the same).
#include "zluda/cuda_abi.h"
#include "zluda/cublas_abi.h"
#include "zluda/cusolver_abi.h"
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
cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *);
cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t);
cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t, CUstream);
cusolverStatus_t cusolverDnDgetrf(cusolverDnHandle_t, int, int, double *, int, double *, int *, int *);
cusolverStatus_t cusolverDnDgetrs(cusolverDnHandle_t, cublasOperation_t, int, int, const double *, int, const int *,
                                  double *, int, int *);
cusolverStatus_t cusolverDnZgetrf(cusolverDnHandle_t, int, int, std::complex<double> *, int, std::complex<double> *,
                                  int *, int *);
cusolverStatus_t cusolverDnZgetrs(cusolverDnHandle_t, cublasOperation_t, int, int, const std::complex<double> *, int,
                                  const int *, std::complex<double> *, int, int *);
cusolverStatus_t cusolverDnSpotrf(cusolverDnHandle_t, cublasFillMode_t, int, float *, int, float *, int, int *);
cusolverStatus_t cusolverDnSpotrs(cusolverDnHandle_t, cublasFillMode_t, int, int, const float *, int, float *, int,
                                  int *);
cusolverStatus_t cusolverDnDgeqrf(cusolverDnHandle_t, int, int, double *, int, double *, double *, int, int *);
cusolverStatus_t cusolverDnDorgqr(cusolverDnHandle_t, int, int, int, double *, int, const double *, double *, int,
                                  int *);
cusolverStatus_t cusolverDnDormqr(cusolverDnHandle_t, cublasSideMode_t, cublasOperation_t, int, int, int,
                                  const double *, int, const double *, double *, int, double *, int, int *);
cusolverStatus_t cusolverDnDgesvd(cusolverDnHandle_t, signed char, signed char, int, int, double *, int, double *,
                                  double *, int, double *, int, double *, int, double *, int *);
cusolverStatus_t cusolverDnDpotrfBatched(cusolverDnHandle_t, cublasFillMode_t, int, double *[], int, int *, int);
cusolverStatus_t cusolverDnDpotrsBatched(cusolverDnHandle_t, cublasFillMode_t, int, int, double *[], int, double *[],
                                         int, int *, int);
cusolverStatus_t cusolverDnCheevd(cusolverDnHandle_t, cusolverEigMode_t, cublasFillMode_t, int,
                                  std::complex<float> *, int, float *, std::complex<float> *, int, int *);
}
void *zludaNativeStream(CUstream);

namespace {
using Z = std::complex<double>;

bool withRocsolver() {
  const char *E = std::getenv("ZLUDA_ROCSOLVER_LIBRARY");
  return E && std::strstr(E, "fake");
}
struct Fake {
  int (*Calls)() = nullptr;
  void *(*Stream)() = nullptr;
};
Fake fake() {
  Fake F;
  if (void *L = withRocsolver() ? dlopen(std::getenv("ZLUDA_ROCSOLVER_LIBRARY"), RTLD_NOW | RTLD_NOLOAD) : nullptr) {
    F.Calls = reinterpret_cast<int (*)()>(dlsym(L, "fakeRocsolverCalls"));
    F.Stream = reinterpret_cast<void *(*)()>(dlsym(L, "fakeRocsolverLastStream"));
  }
  return F;
}

class CusolverRoc : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(usePrimaryContext());
    ASSERT_EQ(cuStreamCreate(&S, 0), CUDA_SUCCESS);
    ASSERT_EQ(cusolverDnCreate(&H), CUSOLVER_STATUS_SUCCESS);
    ASSERT_EQ(cusolverDnSetStream(H, S), CUSOLVER_STATUS_SUCCESS);
    Before = fake().Calls ? fake().Calls() : 0;
  }
  void TearDown() override {
    EXPECT_EQ(cusolverDnDestroy(H), CUSOLVER_STATUS_SUCCESS);
    for (CUdeviceptr P : Mem)
      cuMemFree_v2(P);
  }
  /// Device memory holding \p Init's values (test HIP memory is host memory).
  template <typename T> T *dev(const std::vector<T> &Init) {
    CUdeviceptr P;
    EXPECT_EQ(cuMemAlloc_v2(&P, Init.size() * sizeof(T)), CUDA_SUCCESS);
    std::memcpy(reinterpret_cast<void *>(P), Init.data(), Init.size() * sizeof(T));
    Mem.push_back(P);
    return reinterpret_cast<T *>(P);
  }
  /// Device memory of \p N values, poisoned.
  template <typename T> T *poisoned(size_t N) {
    CUdeviceptr P;
    EXPECT_EQ(cuMemAlloc_v2(&P, N * sizeof(T)), CUDA_SUCCESS);
    std::memset(reinterpret_cast<void *>(P), 0x7f, N * sizeof(T));
    Mem.push_back(P);
    return reinterpret_cast<T *>(P);
  }
  int *info() {
    int *I = poisoned<int>(1);
    *I = -77;
    return I;
  }
  /// After \p N calls: rocSOLVER ran them on the handle's stream (with the test rocSOLVER), or none reached it.
  void expectRocsolver(int N) {
    Fake F = fake();
    if (!withRocsolver()) {
      EXPECT_EQ(F.Calls, nullptr);
      return;
    }
    ASSERT_NE(F.Calls, nullptr);
    EXPECT_EQ(F.Calls() - Before, N);
    EXPECT_EQ(F.Stream(), zludaNativeStream(S));
  }
  template <typename T> std::vector<T> random(size_t N) {
    std::vector<T> V(N);
    for (auto &X : V) {
      if constexpr (std::is_floating_point_v<T>)
        X = T(U(Rng));
      else
        X = T(U(Rng), U(Rng));
    }
    return V;
  }
  CUstream S = nullptr;
  cusolverDnHandle_t H = nullptr;
  std::vector<CUdeviceptr> Mem;
  int Before = 0;
  std::mt19937 Rng{23};
  std::uniform_real_distribution<double> U{-1, 1};
};

// LU with pivoting, then A x = b and A^T x = b solved (2 right-hand sides, padded leading dimensions).
TEST_F(CusolverRoc, LuSolvesBothWays) {
  const int N = 7, Lda = 9, Ldb = 8, R = 2;
  auto A = random<double>(size_t(Lda) * N), B = random<double>(size_t(Ldb) * R);
  double *dA = dev(A), *dB = dev(B), *dBt = dev(B);
  int *Piv = poisoned<int>(N), *I1 = info(), *I2 = info(), *I3 = info();
  ASSERT_EQ(cusolverDnDgetrf(H, N, N, dA, Lda, nullptr, Piv, I1), CUSOLVER_STATUS_SUCCESS);
  ASSERT_EQ(cusolverDnDgetrs(H, CUBLAS_OP_N, N, R, dA, Lda, Piv, dB, Ldb, I2), CUSOLVER_STATUS_SUCCESS);
  ASSERT_EQ(cusolverDnDgetrs(H, CUBLAS_OP_T, N, R, dA, Lda, Piv, dBt, Ldb, I3), CUSOLVER_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(*I1, 0);
  EXPECT_EQ(*I2, 0);
  EXPECT_EQ(*I3, 0);
  for (int C = 0; C < R; ++C)
    for (int Row = 0; Row < N; ++Row) {
      double Ax = 0, Atx = 0;
      for (int K = 0; K < N; ++K) {
        Ax += A[Row + size_t(K) * Lda] * dB[K + C * Ldb];
        Atx += A[K + size_t(Row) * Lda] * dBt[K + C * Ldb];
      }
      EXPECT_NEAR(Ax, B[Row + size_t(C) * Ldb], 1e-10) << Row << " " << C;
      EXPECT_NEAR(Atx, B[Row + size_t(C) * Ldb], 1e-10) << Row << " " << C;
    }
  expectRocsolver(3);
}

// Complex LU: A^H x = b; then a singular matrix (column 3 zero) reports info = 3.
TEST_F(CusolverRoc, ComplexLuAndSingular) {
  const int N = 5;
  auto A = random<Z>(size_t(N) * N), B = random<Z>(size_t(N));
  Z *dA = dev(A), *dB = dev(B);
  int *Piv = poisoned<int>(N), *I1 = info(), *I2 = info(), *I3 = info();
  ASSERT_EQ(cusolverDnZgetrf(H, N, N, dA, N, nullptr, Piv, I1), CUSOLVER_STATUS_SUCCESS);
  ASSERT_EQ(cusolverDnZgetrs(H, CUBLAS_OP_C, N, 1, dA, N, Piv, dB, N, I2), CUSOLVER_STATUS_SUCCESS);
  auto Sing = random<Z>(size_t(N) * N);
  for (int Row = 0; Row < N; ++Row)
    Sing[size_t(Row + 2 * N)] = 0;
  Z *dS = dev(Sing);
  int *Piv2 = poisoned<int>(N);
  ASSERT_EQ(cusolverDnZgetrf(H, N, N, dS, N, nullptr, Piv2, I3), CUSOLVER_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(*I1, 0);
  EXPECT_EQ(*I2, 0);
  EXPECT_EQ(*I3, 3);
  for (int Row = 0; Row < N; ++Row) {
    Z Ahx = 0;
    for (int K = 0; K < N; ++K)
      Ahx += std::conj(A[K + size_t(Row) * N]) * dB[K];
    EXPECT_NEAR(std::abs(Ahx - B[size_t(Row)]), 0, 1e-10) << Row;
  }
  expectRocsolver(3);
}

// Cholesky (lower) of an SPD matrix and a solve, in single precision; an indefinite matrix reports its order.
TEST_F(CusolverRoc, CholeskyAndIndefinite) {
  const int N = 6;
  auto M = random<float>(size_t(N) * N);
  std::vector<float> A(size_t(N) * N);
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J) {
      double V = I == J ? N : 0;
      for (int K = 0; K < N; ++K)
        V += double(M[I + K * N]) * M[J + K * N];
      A[size_t(I + J * N)] = float(V);
    }
  auto B = random<float>(size_t(N));
  float *dA = dev(A), *dB = dev(B);
  int *I1 = info(), *I2 = info(), *I3 = info();
  ASSERT_EQ(cusolverDnSpotrf(H, CUBLAS_FILL_MODE_LOWER, N, dA, N, nullptr, 0, I1), CUSOLVER_STATUS_SUCCESS);
  ASSERT_EQ(cusolverDnSpotrs(H, CUBLAS_FILL_MODE_LOWER, N, 1, dA, N, dB, N, I2), CUSOLVER_STATUS_SUCCESS);
  std::vector<float> Ind(size_t(N) * N, 0);
  for (int I = 0; I < N; ++I)
    Ind[size_t(I + I * N)] = I == 3 ? -1.f : 2.f; // the fourth leading minor is not positive
  float *dI = dev(Ind);
  ASSERT_EQ(cusolverDnSpotrf(H, CUBLAS_FILL_MODE_UPPER, N, dI, N, nullptr, 0, I3), CUSOLVER_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(*I1, 0);
  EXPECT_EQ(*I2, 0);
  EXPECT_EQ(*I3, 4);
  for (int Row = 0; Row < N; ++Row) {
    double Ax = 0;
    for (int K = 0; K < N; ++K)
      Ax += double(A[Row + size_t(K) * N]) * dB[K];
    EXPECT_NEAR(Ax, B[size_t(Row)], 1e-4) << Row;
  }
  expectRocsolver(3);
}

// QR of a 7 x 4 matrix: orgqr's Q is orthonormal and Q R = A; ormqr applies Q^T to A's copy, giving R.
TEST_F(CusolverRoc, QrFactorsAndApplies) {
  const int M = 7, N = 4;
  auto A = random<double>(size_t(M) * N);
  double *dA = dev(A), *Tau = poisoned<double>(N), *dC = dev(A);
  int *I1 = info(), *I2 = info(), *I3 = info();
  ASSERT_EQ(cusolverDnDgeqrf(H, M, N, dA, M, Tau, nullptr, 0, I1), CUSOLVER_STATUS_SUCCESS);
  ASSERT_EQ(cusolverDnDormqr(H, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, M, N, N, dA, M, Tau, dC, M, nullptr, 0, I2),
            CUSOLVER_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  std::vector<double> R(size_t(N) * N, 0);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I <= J; ++I)
      R[size_t(I + J * N)] = dA[I + J * M];
  for (int J = 0; J < N; ++J) // Q^T A = [R; 0]
    for (int I = 0; I < M; ++I)
      EXPECT_NEAR(dC[I + J * M], I < N ? R[size_t(I + J * N)] : 0.0, 1e-10) << I << " " << J;
  ASSERT_EQ(cusolverDnDorgqr(H, M, N, N, dA, M, Tau, nullptr, 0, I3), CUSOLVER_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(*I1, 0);
  EXPECT_EQ(*I2, 0);
  EXPECT_EQ(*I3, 0);
  for (int I = 0; I < M; ++I)
    for (int J = 0; J < N; ++J) {
      double Qr = 0;
      for (int K = 0; K < N; ++K)
        Qr += dA[I + K * M] * R[size_t(K + J * N)];
      EXPECT_NEAR(Qr, A[size_t(I + J * M)], 1e-10) << I << " " << J;
    }
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J) {
      double D = 0;
      for (int K = 0; K < M; ++K)
        D += dA[K + I * M] * dA[K + J * M];
      EXPECT_NEAR(D, I == J ? 1.0 : 0.0, 1e-10);
    }
  expectRocsolver(3);
}

// SVD of a 6 x 4 matrix ('S' vectors): U S V^T = A, singular values descending and non-negative.
TEST_F(CusolverRoc, SvdReconstructs) {
  const int M = 6, N = 4, Ldu = 7;
  auto A = random<double>(size_t(M) * N);
  double *dA = dev(A), *Sv = poisoned<double>(N), *Uo = poisoned<double>(size_t(Ldu) * N),
         *Vt = poisoned<double>(size_t(N) * N);
  int *I1 = info();
  ASSERT_EQ(cusolverDnDgesvd(H, 'S', 'S', M, N, dA, M, Sv, Uo, Ldu, Vt, N, nullptr, 0, nullptr, I1),
            CUSOLVER_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(*I1, 0);
  for (int K = 0; K < N; ++K) {
    EXPECT_GE(Sv[K], 0);
    if (K)
      EXPECT_LE(Sv[K], Sv[K - 1]);
  }
  for (int I = 0; I < M; ++I)
    for (int J = 0; J < N; ++J) {
      double V = 0;
      for (int K = 0; K < N; ++K)
        V += Uo[I + K * Ldu] * Sv[K] * Vt[K + J * N];
      EXPECT_NEAR(V, A[size_t(I + J * M)], 1e-10) << I << " " << J;
    }
  expectRocsolver(1);
}

// Hermitian eigenpairs (upper triangle read, single precision): A v = w v, ascending w.
TEST_F(CusolverRoc, HermitianEigenpairs) {
  using C = std::complex<float>;
  const int N = 5;
  auto R = random<C>(size_t(N) * N);
  std::vector<C> A(size_t(N) * N);
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J)
      A[size_t(I + J * N)] = I == J ? C(R[size_t(I + J * N)].real(), 0)
                                    : I < J ? R[size_t(I + J * N)] : std::conj(R[size_t(J + I * N)]);
  std::vector<C> Up = A; // the lower triangle poisoned: only the upper one may be read
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < I; ++J)
      Up[size_t(I + J * N)] = C(1e6f, -1e6f);
  C *dA = dev(Up);
  float *W = poisoned<float>(N);
  int *I1 = info();
  ASSERT_EQ(cusolverDnCheevd(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, N, dA, N, W, nullptr, 0, I1),
            CUSOLVER_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(*I1, 0);
  for (int K = 0; K < N; ++K) {
    if (K)
      EXPECT_LE(W[K - 1], W[K]);
    for (int I = 0; I < N; ++I) {
      std::complex<double> Av = 0;
      for (int J = 0; J < N; ++J)
        Av += std::complex<double>(A[size_t(I + J * N)]) * std::complex<double>(dA[J + K * N]);
      EXPECT_NEAR(std::abs(Av - double(W[K]) * std::complex<double>(dA[I + K * N])), 0, 1e-4) << I << " " << K;
    }
  }
  expectRocsolver(1);
}

// Batched Cholesky over device arrays of matrix pointers: three SPD matrices solved, then a batch with an
// indefinite second matrix reports its order in that matrix's info.
TEST_F(CusolverRoc, BatchedCholesky) {
  const int N = 4, Batch = 3;
  std::vector<double *> As, Bs;
  std::vector<std::vector<double>> A0, B0;
  for (int K = 0; K < Batch; ++K) {
    auto M = random<double>(size_t(N) * N);
    std::vector<double> A(size_t(N) * N);
    for (int I = 0; I < N; ++I)
      for (int J = 0; J < N; ++J) {
        double V = I == J ? N : 0;
        for (int Q = 0; Q < N; ++Q)
          V += M[size_t(I + Q * N)] * M[size_t(J + Q * N)];
        A[size_t(I + J * N)] = V;
      }
    A0.push_back(A);
    B0.push_back(random<double>(size_t(N)));
    As.push_back(dev(A));
    Bs.push_back(dev(B0.back()));
  }
  double **dAs = dev(As), **dBs = dev(Bs);
  int *Infos = poisoned<int>(Batch), *I2 = info();
  ASSERT_EQ(cusolverDnDpotrfBatched(H, CUBLAS_FILL_MODE_UPPER, N, dAs, N, Infos, Batch), CUSOLVER_STATUS_SUCCESS);
  ASSERT_EQ(cusolverDnDpotrsBatched(H, CUBLAS_FILL_MODE_UPPER, N, 1, dAs, N, dBs, N, I2, Batch),
            CUSOLVER_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(*I2, 0);
  for (int K = 0; K < Batch; ++K) {
    EXPECT_EQ(Infos[K], 0) << K;
    for (int Row = 0; Row < N; ++Row) {
      double Ax = 0;
      for (int Q = 0; Q < N; ++Q)
        Ax += A0[size_t(K)][size_t(Row + Q * N)] * Bs[size_t(K)][Q];
      EXPECT_NEAR(Ax, B0[size_t(K)][size_t(Row)], 1e-10) << K << " " << Row;
    }
  }
  std::vector<double> Ind(size_t(N) * N, 0);
  for (int I = 0; I < N; ++I)
    Ind[size_t(I + I * N)] = I == 2 ? -3.0 : 1.0;
  std::vector<double *> Bad{dev(A0[0]), dev(Ind), dev(A0[2])};
  double **dBad = dev(Bad);
  int *Infos2 = poisoned<int>(Batch);
  ASSERT_EQ(cusolverDnDpotrfBatched(H, CUBLAS_FILL_MODE_LOWER, N, dBad, N, Infos2, Batch), CUSOLVER_STATUS_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(Infos2[0], 0);
  EXPECT_EQ(Infos2[1], 3);
  EXPECT_EQ(Infos2[2], 0);
  expectRocsolver(3);
}

} // namespace
