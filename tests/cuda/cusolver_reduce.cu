// cuSOLVER's reductions to bidiagonal and tridiagonal form on our
// libcusolver, checked by the identities they define on fresh random
// matrices: gebrd + orgbr (A = Q B P^T, Q and P orthogonal), hetrd + ungtr
// (A = Q T Q^H with T real tridiagonal), sytrd + ormtr (Q C equals the
// product with the Q orgtr forms). Written from the cuSOLVER reference and
// run on NVIDIA's cuSOLVER on an H200.
#include "libs_common.h"
#include "values_common.h"
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

static int Bad = 0;

template <typename T> static std::vector<T> copyOf(const T *D, size_t N) { return host(D, N); }

static void bidiagonal(cusolverDnHandle_t H) {
  const int M = 9, N = 6, Lda = 10;
  std::vector<double> A(size_t(Lda) * N);
  for (auto &V : A)
    V = rnd();
  double *DA = dev(A), *DD, *DE, *DTq, *DTp, *Wk;
  int *DInfo, Lw = 0;
  CHECK(cudaMalloc(&DD, sizeof(double) * N));
  CHECK(cudaMalloc(&DE, sizeof(double) * N));
  CHECK(cudaMalloc(&DTq, sizeof(double) * N));
  CHECK(cudaMalloc(&DTp, sizeof(double) * N));
  CHECK(cudaMalloc(&DInfo, sizeof(int)));
  CS(cusolverDnDgebrd_bufferSize(H, M, N, &Lw));
  CHECK(cudaMalloc(&Wk, sizeof(double) * std::max(Lw, 1)));
  CS(cusolverDnDgebrd(H, M, N, DA, Lda, DD, DE, DTq, DTp, Wk, Lw, DInfo));
  EXPECT(host(DInfo, 1)[0] == 0);
  auto F = host(DA, A.size());
  auto D = host(DD, N), E = host(DE, N - 1);
  // Q (m x n) from the factored matrix, P^T (n x n) from another copy.
  double *DQ = dev(F), *DP = dev(F);
  CS(cusolverDnDorgbr_bufferSize(H, CUBLAS_SIDE_LEFT, M, N, N, DQ, Lda, DTq, &Lw));
  cudaFree(Wk);
  CHECK(cudaMalloc(&Wk, sizeof(double) * std::max(Lw, M * N)));
  CS(cusolverDnDorgbr(H, CUBLAS_SIDE_LEFT, M, N, N, DQ, Lda, DTq, Wk, Lw, DInfo));
  EXPECT(host(DInfo, 1)[0] == 0);
  CS(cusolverDnDorgbr(H, CUBLAS_SIDE_RIGHT, N, N, M, DP, Lda, DTp, Wk, Lw, DInfo));
  EXPECT(host(DInfo, 1)[0] == 0);
  auto Q = host(DQ, A.size()), Pt = host(DP, A.size());
  int Wrong = 0;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      // (Q B P^T)(i, j) with B upper bidiagonal: B(k, k) = d_k, B(k, k + 1) = e_k.
      double S = 0;
      for (int K = 0; K < N; ++K) {
        double Bk = D[K] * Pt[size_t(J) * Lda + K] + (K + 1 < N ? E[K] * Pt[size_t(J) * Lda + K + 1] : 0);
        S += Q[size_t(K) * Lda + I] * Bk;
      }
      Wrong += std::fabs(S - A[size_t(J) * Lda + I]) > 1e-12;
    }
  for (int P = 0; P < N; ++P)
    for (int R = 0; R < N; ++R) {
      double Qq = 0, Pp = 0;
      for (int I = 0; I < M; ++I)
        Qq += Q[size_t(P) * Lda + I] * Q[size_t(R) * Lda + I];
      for (int I = 0; I < N; ++I)
        Pp += Pt[size_t(I) * Lda + P] * Pt[size_t(I) * Lda + R];
      Wrong += std::fabs(Qq - (P == R)) > 1e-12 || std::fabs(Pp - (P == R)) > 1e-12;
    }
  EXPECT(Wrong == 0);
  // m < n: NVIDIA's cuSOLVER sizes the workspace but refuses the reduction (NOT_SUPPORTED, seen on the H200).
  CS(cusolverDnDgebrd_bufferSize(H, N - 1, N, &Lw));
  EXPECT(cusolverDnDgebrd(H, N - 1, N, DA, Lda, DD, DE, DTq, DTp, Wk, Lw, DInfo) == CUSOLVER_STATUS_NOT_SUPPORTED);
  for (void *P : {(void *)DA, (void *)DD, (void *)DE, (void *)DTq, (void *)DTp, (void *)Wk, (void *)DInfo,
                  (void *)DQ, (void *)DP})
    cudaFree(P);
}

static void tridiagonal(cusolverDnHandle_t H) {
  const int N = 8;
  int *DInfo, Lw = 0;
  CHECK(cudaMalloc(&DInfo, sizeof(int)));
  // Hermitian (double complex, lower): A = Q T Q^H.
  {
    std::vector<cuDoubleComplex> A(size_t(N) * N);
    for (int J = 0; J < N; ++J)
      for (int I = J; I < N; ++I) {
        Z V(rnd(), I == J ? 0 : rnd());
        A[size_t(J) * N + I] = make_cuDoubleComplex(V.real(), V.imag());
        A[size_t(I) * N + J] = make_cuDoubleComplex(V.real(), -V.imag());
      }
    cuDoubleComplex *DA = dev(A), *DTau, *Wk;
    double *DD, *DE;
    CHECK(cudaMalloc(&DD, sizeof(double) * N));
    CHECK(cudaMalloc(&DE, sizeof(double) * N));
    CHECK(cudaMalloc(&DTau, sizeof(cuDoubleComplex) * N));
    CS(cusolverDnZhetrd_bufferSize(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, DD, DE, DTau, &Lw));
    CHECK(cudaMalloc(&Wk, sizeof(cuDoubleComplex) * std::max(Lw, N * N)));
    CS(cusolverDnZhetrd(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, DD, DE, DTau, Wk, Lw, DInfo));
    EXPECT(host(DInfo, 1)[0] == 0);
    auto D = host(DD, N), E = host(DE, N - 1);
    CS(cusolverDnZungtr_bufferSize(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, DTau, &Lw));
    CS(cusolverDnZungtr(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, DTau, Wk, Lw, DInfo));
    EXPECT(host(DInfo, 1)[0] == 0);
    auto Qv = host(DA, A.size());
    auto q = [&](int I, int J) { return Z(Qv[size_t(J) * N + I].x, Qv[size_t(J) * N + I].y); };
    int Wrong = 0;
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I) {
        Z S = 0;
        for (int K = 0; K < N; ++K) {
          Z Tk = 0; // (T Q^H)(k, j)
          for (int L = std::max(0, K - 1); L <= std::min(N - 1, K + 1); ++L) {
            double Tkl = K == L ? D[K] : E[std::min(K, L)];
            Tk += Tkl * std::conj(q(J, L));
          }
          S += q(I, K) * Tk;
        }
        Wrong += std::abs(S - Z(A[size_t(J) * N + I].x, A[size_t(J) * N + I].y)) > 1e-12;
      }
    EXPECT(Wrong == 0);
    for (void *P : {(void *)DA, (void *)DTau, (void *)Wk, (void *)DD, (void *)DE})
      cudaFree(P);
  }
  // Real symmetric (upper): ormtr's Q C against the Q orgtr forms.
  {
    std::vector<double> A(size_t(N) * N), C(size_t(N) * 3);
    for (int J = 0; J < N; ++J)
      for (int I = J; I < N; ++I)
        A[size_t(J) * N + I] = A[size_t(I) * N + J] = rnd();
    for (auto &V : C)
      V = rnd();
    double *DA = dev(A), *DC = dev(C), *DD, *DE, *DTau, *Wk;
    CHECK(cudaMalloc(&DD, sizeof(double) * N));
    CHECK(cudaMalloc(&DE, sizeof(double) * N));
    CHECK(cudaMalloc(&DTau, sizeof(double) * N));
    CHECK(cudaMalloc(&Wk, sizeof(double) * N * N * 4));
    CS(cusolverDnDsytrd(H, CUBLAS_FILL_MODE_UPPER, N, DA, N, DD, DE, DTau, Wk, N * N * 4, DInfo));
    auto F = host(DA, A.size());
    CS(cusolverDnDormtr_bufferSize(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, N, 3, DA, N, DTau, DC, N,
                                   &Lw));
    CS(cusolverDnDormtr(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, N, 3, DA, N, DTau, DC, N, Wk,
                        N * N * 4, DInfo));
    EXPECT(host(DInfo, 1)[0] == 0);
    auto QC = host(DC, C.size());
    double *DQ = dev(F);
    CS(cusolverDnDorgtr(H, CUBLAS_FILL_MODE_UPPER, N, DQ, N, DTau, Wk, N * N * 4, DInfo));
    auto Q = host(DQ, A.size());
    int Wrong = 0;
    for (int J = 0; J < 3; ++J)
      for (int I = 0; I < N; ++I) {
        double S = 0;
        for (int K = 0; K < N; ++K)
          S += Q[size_t(K) * N + I] * C[size_t(J) * N + K];
        Wrong += std::fabs(S - QC[size_t(J) * N + I]) > 1e-12;
      }
    EXPECT(Wrong == 0);
    EXPECT(cusolverDnDormtr(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_C, N, 3, DA, N, DTau, DC, N, Wk,
                            N * N * 4, DInfo) == CUSOLVER_STATUS_INVALID_VALUE); // real: N or T
    for (void *P : {(void *)DA, (void *)DC, (void *)DD, (void *)DE, (void *)DTau, (void *)Wk, (void *)DQ})
      cudaFree(P);
  }
  cudaFree(DInfo);
}

int main() {
  cusolverDnHandle_t H;
  CS(cusolverDnCreate(&H));
  bidiagonal(H);
  tridiagonal(H);
  CS(cusolverDnDestroy(H));
  return verdict("cusolver_reduce", Bad);
}
