// The legacy cuBLAS API (cublas.h: no handle, characters for the operations,
// scalars by value, results returned, cublasGetError) on our libcublas.
// Passes on NVIDIA's cuBLAS on an H200 too.
#include "common.h"
#include <cublas.h>

#include <cmath>
#include <random>
#include <vector>

static int Bad = 0;

int main() {
  std::mt19937 Rng(std::random_device{}());
  auto rnd = [&] { return std::uniform_real_distribution<float>(-1, 1)(Rng); };
  EXPECT(cublasInit() == CUBLAS_STATUS_SUCCESS);
  const int M = 7, N = 5, K = 6;
  std::vector<float> A(M * K), B(N * K), C(M * N, NAN);
  for (auto &V : A)
    V = rnd();
  for (auto &V : B)
    V = rnd();
  float *DA, *DB, *DC;
  EXPECT(cublasAlloc(M * K, sizeof(float), (void **)&DA) == CUBLAS_STATUS_SUCCESS);
  EXPECT(cublasAlloc(N * K, sizeof(float), (void **)&DB) == CUBLAS_STATUS_SUCCESS);
  EXPECT(cublasAlloc(M * N, sizeof(float), (void **)&DC) == CUBLAS_STATUS_SUCCESS);
  cublasSetMatrix(M, K, sizeof(float), A.data(), M, DA, M);
  cublasSetMatrix(N, K, sizeof(float), B.data(), N, DB, N);
  // C = 2 A B^T (B stored N x K).
  cublasSgemm('n', 'T', M, N, K, 2.0f, DA, M, DB, N, 0.0f, DC, M);
  EXPECT(cublasGetError() == CUBLAS_STATUS_SUCCESS);
  cublasGetMatrix(M, N, sizeof(float), DC, M, C.data(), M);
  int Wrong = 0;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      double S = 0;
      for (int L = 0; L < K; ++L)
        S += double(A[L * M + I]) * B[L * N + J];
      Wrong += !(std::fabs(C[J * M + I] - 2 * S) < 1e-5);
    }
  EXPECT(Wrong == 0);
  // Results by value.
  double Dot = 0, Sq = 0, Abs = 0;
  int Imax = 0;
  for (int I = 0; I < M * K; ++I) {
    Dot += double(A[I]) * A[I];
    Sq += double(A[I]) * A[I];
    Abs += std::fabs(A[I]);
    if (std::fabs(A[I]) > std::fabs(A[Imax]))
      Imax = I;
  }
  EXPECT(std::fabs(cublasSdot(M * K, DA, 1, DA, 1) - Dot) < 1e-4);
  EXPECT(std::fabs(cublasSnrm2(M * K, DA, 1) - std::sqrt(Sq)) < 1e-4);
  EXPECT(cublasIsamax(M * K, DA, 1) == Imax + 1);
  cublasSscal(M * K, -2.0f, DA, 1);
  EXPECT(std::fabs(cublasSasum(M * K, DA, 1) - 2 * Abs) < 1e-4);
  EXPECT(cublasGetError() == CUBLAS_STATUS_SUCCESS);
  // An invalid operation character: the error is kept for cublasGetError, once.
  cublasSgemm('x', 'n', M, N, K, 1.0f, DA, M, DB, K, 0.0f, DC, M);
  EXPECT(cublasGetError() == CUBLAS_STATUS_INVALID_VALUE);
  EXPECT(cublasGetError() == CUBLAS_STATUS_SUCCESS);
  EXPECT(cublasFree(DA) == CUBLAS_STATUS_SUCCESS);
  cublasFree(DB);
  cublasFree(DC);
  EXPECT(cublasShutdown() == CUBLAS_STATUS_SUCCESS);
  return verdict("cublas_legacy", Bad);
}
