// cuSOLVER's iterative-refinement solvers (cusolverDn<main><low>gesv and
// ...gels) on our libcusolver: solutions of fresh random well-conditioned
// systems checked by their residuals in the main precision, A and B left
// unchanged, iter not negative for gesv, info 0; the workspace and argument
// rules an H200's cuSOLVER showed (too small a workspace:
// INVALID_WORKSPACE; negative sizes or m < n for gels: IRS_PARAMS_INVALID).
// Passes on NVIDIA's cuSOLVER on an H200 too.
#include "libs_common.h"
#include "values_common.h"
#include <cusolverDn.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

static int Bad = 0;


template <typename T> static std::vector<T> randomMatrix(int M, int N, int Ld, bool Cx, double Diag) {
  std::vector<T> A(size_t(Ld) * N, make<T>(0));
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I)
      A[size_t(J) * Ld + I] = make<T>(Z(rnd() + (I == J ? Diag : 0), Cx ? rnd() : 0));
  return A;
}

template <typename T> static bool same(const std::vector<T> &A, const std::vector<T> &B) {
  for (size_t I = 0; I < A.size(); ++I)
    if (z(A[I]) != z(B[I]))
      return false;
  return true;
}

/// Solves A X = B (n x n, nrhs columns) through Fn, checks ||A X - B|| and that A, B are unchanged.
template <typename T, typename Size, typename Solve>
static void gesv(cusolverDnHandle_t H, const char *Name, bool Cx, double Tol, Size BufferSize, Solve Fn) {
  const int N = 12, Nrhs = 3, Lda = 14, Ldb = 13, Ldx = 12;
  auto A = randomMatrix<T>(N, N, Lda, Cx, 4), B = randomMatrix<T>(N, Nrhs, Ldb, Cx, 0);
  T *DA = dev(A), *DB = dev(B), *DX;
  CHECK(cudaMalloc(&DX, sizeof(T) * Ldx * Nrhs));
  int *DInfo, *DPiv;
  CHECK(cudaMalloc(&DInfo, sizeof(int)));
  CHECK(cudaMalloc(&DPiv, sizeof(int) * N));
  size_t Bytes = 0;
  CS(BufferSize(H, N, Nrhs, DA, Lda, DPiv, DB, Ldb, DX, Ldx, nullptr, &Bytes));
  void *W;
  CHECK(cudaMalloc(&W, Bytes));
  int Iter = -99;
  CS(Fn(H, N, Nrhs, DA, Lda, DPiv, DB, Ldb, DX, Ldx, W, Bytes, &Iter, DInfo));
  auto X = host(DX, size_t(Ldx) * Nrhs);
  int Wrong = 0;
  for (int J = 0; J < Nrhs; ++J)
    for (int I = 0; I < N; ++I) {
      Z S = 0;
      for (int K = 0; K < N; ++K)
        S += z(A[size_t(K) * Lda + I]) * z(X[size_t(J) * Ldx + K]);
      Wrong += std::abs(S - z(B[size_t(J) * Ldb + I])) > Tol;
    }
  if (Wrong || Iter < 0 || host(DInfo, 1)[0] != 0)
    std::printf("%s: %d wrong, iter %d\n", Name, Wrong, Iter);
  EXPECT(Wrong == 0);
  EXPECT(Iter >= 0); // refinement steps (NVIDIA's: 0 when the first solution already meets the tolerance)
  EXPECT(host(DInfo, 1)[0] == 0);
  EXPECT(same(host(DA, A.size()), A) && same(host(DB, B.size()), B));
  // Too small a workspace; a negative order.
  EXPECT(Fn(H, N, Nrhs, DA, Lda, DPiv, DB, Ldb, DX, Ldx, W, 0, &Iter, DInfo) == CUSOLVER_STATUS_INVALID_WORKSPACE);
  EXPECT(Fn(H, -1, Nrhs, DA, Lda, DPiv, DB, Ldb, DX, Ldx, W, Bytes, &Iter, DInfo) == CUSOLVER_STATUS_IRS_PARAMS_INVALID);
  for (void *P : {(void *)DA, (void *)DB, (void *)DX, (void *)DInfo, (void *)DPiv, W})
    cudaFree(P);
}

/// Least squares min ||A X - B|| (m >= n) through Fn: the normal equations A^H (A X - B) = 0 hold.
template <typename T, typename Size, typename Solve>
static void gels(cusolverDnHandle_t H, const char *Name, int M, bool Cx, double Tol, Size BufferSize, Solve Fn) {
  const int N = 6, Nrhs = 2, Lda = M + 1, Ldb = M, Ldx = N;
  auto A = randomMatrix<T>(M, N, Lda, Cx, 3), B = randomMatrix<T>(M, Nrhs, Ldb, Cx, 0);
  T *DA = dev(A), *DB = dev(B), *DX;
  CHECK(cudaMalloc(&DX, sizeof(T) * Ldx * Nrhs));
  int *DInfo;
  CHECK(cudaMalloc(&DInfo, sizeof(int)));
  size_t Bytes = 0;
  CS(BufferSize(H, M, N, Nrhs, DA, Lda, DB, Ldb, DX, Ldx, nullptr, &Bytes));
  void *W;
  CHECK(cudaMalloc(&W, Bytes));
  int Iter = -99;
  CS(Fn(H, M, N, Nrhs, DA, Lda, DB, Ldb, DX, Ldx, W, Bytes, &Iter, DInfo));
  auto X = host(DX, size_t(Ldx) * Nrhs);
  int Wrong = 0;
  for (int J = 0; J < Nrhs; ++J) {
    std::vector<Z> R(M);
    for (int I = 0; I < M; ++I) {
      R[I] = -z(B[size_t(J) * Ldb + I]);
      for (int K = 0; K < N; ++K)
        R[I] += z(A[size_t(K) * Lda + I]) * z(X[size_t(J) * Ldx + K]);
    }
    for (int K = 0; K < N; ++K) {
      Z G = 0;
      for (int I = 0; I < M; ++I)
        G += std::conj(z(A[size_t(K) * Lda + I])) * R[I];
      Wrong += std::abs(G) > Tol;
    }
  }
  if (Wrong || host(DInfo, 1)[0] != 0)
    std::printf("%s: %d wrong, iter %d\n", Name, Wrong, Iter);
  EXPECT(Wrong == 0);
  EXPECT(host(DInfo, 1)[0] == 0);
  EXPECT(same(host(DB, B.size()), B));
  EXPECT(BufferSize(H, N - 1, N, Nrhs, DA, Lda, DB, Ldb, DX, Ldx, nullptr, &Bytes) ==
         CUSOLVER_STATUS_IRS_PARAMS_INVALID); // m < n
  for (void *P : {(void *)DA, (void *)DB, (void *)DX, (void *)DInfo, W})
    cudaFree(P);
}

int main() {
  cusolverDnHandle_t H;
  CS(cusolverDnCreate(&H));
  gesv<double>(H, "DDgesv", false, 1e-12, cusolverDnDDgesv_bufferSize, cusolverDnDDgesv);
  gesv<double>(H, "DSgesv", false, 1e-12, cusolverDnDSgesv_bufferSize, cusolverDnDSgesv);
  gesv<double>(H, "DHgesv", false, 1e-12, cusolverDnDHgesv_bufferSize, cusolverDnDHgesv);
  gesv<float>(H, "SSgesv", false, 1e-4, cusolverDnSSgesv_bufferSize, cusolverDnSSgesv);
  gesv<cuDoubleComplex>(H, "ZCgesv", true, 1e-12, cusolverDnZCgesv_bufferSize, cusolverDnZCgesv);
  gesv<cuComplex>(H, "CKgesv", true, 1e-4, cusolverDnCKgesv_bufferSize, cusolverDnCKgesv);
  gels<double>(H, "DDgels", 12, false, 1e-10, cusolverDnDDgels_bufferSize, cusolverDnDDgels);
  gels<double>(H, "DSgels (square)", 6, false, 1e-10, cusolverDnDSgels_bufferSize, cusolverDnDSgels);
  gels<cuDoubleComplex>(H, "ZZgels", 9, true, 1e-10, cusolverDnZZgels_bufferSize, cusolverDnZZgels);
  CS(cusolverDnDestroy(H));
  return verdict("cusolver_irs", Bad);
}
