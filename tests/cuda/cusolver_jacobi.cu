// cuSOLVER's Jacobi solvers and approximate SVD on our libcusolver: syevj and
// heevj (one matrix and batched), gesvdj (economy and full, batched) and
// gesvdaStridedBatched, each checked by its defining properties on fresh
// random matrices: A V = V W with V orthonormal and W ascending; A = U S V^H
// with U, V orthonormal and S descending; the rank-k approximation's values
// are the leading singular triplets and its residual norm their accuracy. Parameter objects: defaults, residuals and sweeps reported
// after single calls, not after batched ones. Passes on NVIDIA's cuSOLVER on
// an H200 too.
#include "libs_common.h"
#include "values_common.h"
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

static int Bad = 0;


/// A random Hermitian (symmetric for real T) n x n matrix, both triangles stored, leading dimension Lda.
template <typename T> static std::vector<T> hermitian(int N, int Lda, bool Complex) {
  std::vector<T> A(size_t(Lda) * N, make<T>(0));
  for (int J = 0; J < N; ++J)
    for (int I = J; I < N; ++I) {
      Z V(rnd(), I == J || !Complex ? 0 : rnd());
      A[size_t(J) * Lda + I] = make<T>(V);
      A[size_t(I) * Lda + J] = make<T>(std::conj(V));
    }
  return A;
}

/// Checks A V = V W, V^H V = I, W ascending for an eigendecomposition (Vecs: V's columns).
template <typename T>
static int checkEig(int N, const std::vector<T> &A, int Lda, const T *V, int Ldv, const std::vector<double> &W,
                    double Tol) {
  int Wrong = 0;
  for (int K = 1; K < N; ++K)
    Wrong += W[K] < W[K - 1];
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I) {
      Z Av = 0, Vhv = 0;
      for (int L = 0; L < N; ++L) {
        Av += z(A[size_t(L) * Lda + I]) * z(V[size_t(J) * Ldv + L]);
        Vhv += std::conj(z(V[size_t(I) * Ldv + L])) * z(V[size_t(J) * Ldv + L]);
      }
      Wrong += std::abs(Av - W[J] * z(V[size_t(J) * Ldv + I])) > Tol;
      Wrong += std::abs(Vhv - Z(I == J ? 1 : 0)) > Tol;
    }
  return Wrong;
}

/// Checks A = U S V^H (U m x k, V n x k), orthonormal columns, S descending, for k = min(m, n) columns.
template <typename T>
static int checkSvd(int M, int N, const std::vector<T> &A, int Lda, const T *U, int Ldu, const T *V, int Ldv,
                    const std::vector<double> &S, double Tol) {
  int K = std::min(M, N), Wrong = 0;
  for (int I = 1; I < K; ++I)
    Wrong += S[I] > S[I - 1] || S[I] < 0;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      Z Sum = 0;
      for (int L = 0; L < K; ++L)
        Sum += z(U[size_t(L) * Ldu + I]) * S[L] * std::conj(z(V[size_t(L) * Ldv + J]));
      Wrong += std::abs(Sum - z(A[size_t(J) * Lda + I])) > Tol;
    }
  for (int P = 0; P < K; ++P)
    for (int Q = 0; Q < K; ++Q) {
      Z Uu = 0, Vv = 0;
      for (int R = 0; R < M; ++R)
        Uu += std::conj(z(U[size_t(P) * Ldu + R])) * z(U[size_t(Q) * Ldu + R]);
      for (int R = 0; R < N; ++R)
        Vv += std::conj(z(V[size_t(P) * Ldv + R])) * z(V[size_t(Q) * Ldv + R]);
      Wrong += std::abs(Uu - Z(P == Q)) > Tol || std::abs(Vv - Z(P == Q)) > Tol;
    }
  return Wrong;
}

static void syevj(cusolverDnHandle_t H) {
  syevjInfo_t P;
  CS(cusolverDnCreateSyevjInfo(&P));
  double Res0 = -1;
  int Sweeps0 = -1;
  CS(cusolverDnXsyevjGetResidual(H, P, &Res0)); // before any call: 0 and 0
  CS(cusolverDnXsyevjGetSweeps(H, P, &Sweeps0));
  EXPECT(Res0 == 0 && Sweeps0 == 0);
  // Double, lower triangle, vectors; the upper triangle poisoned (not read).
  const int N = 9, Lda = 11;
  auto A = hermitian<double>(N, Lda, false);
  auto Given = A;
  for (int J = 1; J < N; ++J)
    for (int I = 0; I < J; ++I)
      Given[size_t(J) * Lda + I] = NAN;
  double *DA = dev(Given), *DW;
  int *DInfo;
  CHECK(cudaMalloc(&DW, N * sizeof(double)));
  CHECK(cudaMalloc(&DInfo, sizeof(int) * 4));
  int Lw = 0;
  CS(cusolverDnDsyevj_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, Lda, DW, &Lw, P));
  double *Work;
  CHECK(cudaMalloc(&Work, sizeof(double) * std::max(Lw, 1)));
  CS(cusolverDnDsyevj(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, Lda, DW, Work, Lw, DInfo, P));
  auto V = host(DA, size_t(Lda) * N);
  auto Wd = host(DW, N);
  EXPECT(host(DInfo, 1)[0] == 0);
  EXPECT(checkEig(N, A, Lda, V.data(), Lda, Wd, 1e-10) == 0);
  double Res = -1;
  int Sweeps = -1;
  CS(cusolverDnXsyevjGetResidual(H, P, &Res));
  CS(cusolverDnXsyevjGetSweeps(H, P, &Sweeps));
  EXPECT(Res >= 0 && Res < 1e-10);
  EXPECT(Sweeps >= 1 && Sweeps <= 100); // the default maximum
  // Complex Hermitian (float), upper triangle.
  {
    const int Nc = 7;
    auto Ac = hermitian<cuComplex>(Nc, Nc, true);
    cuComplex *DAc = dev(Ac);
    float *DWc;
    CHECK(cudaMalloc(&DWc, Nc * sizeof(float)));
    cuComplex *Wk;
    CS(cusolverDnCheevj_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, Nc, DAc, Nc, DWc, &Lw, P));
    CHECK(cudaMalloc(&Wk, sizeof(cuComplex) * std::max(Lw, 1)));
    CS(cusolverDnCheevj(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, Nc, DAc, Nc, DWc, Wk, Lw, DInfo, P));
    auto Vc = host(DAc, size_t(Nc) * Nc);
    auto Wf = host(DWc, Nc);
    std::vector<double> Wc(Wf.begin(), Wf.end());
    EXPECT(checkEig(Nc, Ac, Nc, Vc.data(), Nc, Wc, 1e-4) == 0);
    cudaFree(DAc);
    cudaFree(DWc);
    cudaFree(Wk);
  }
  // Batched: three 5 x 5 matrices lda * n apart; no residual after a batched call.
  {
    const int Nb = 5, Batch = 3;
    std::vector<double> Ab;
    std::vector<std::vector<double>> Each;
    for (int B = 0; B < Batch; ++B) {
      Each.push_back(hermitian<double>(Nb, Nb, false));
      Ab.insert(Ab.end(), Each.back().begin(), Each.back().end());
    }
    double *DAb = dev(Ab), *DWb;
    CHECK(cudaMalloc(&DWb, sizeof(double) * Nb * Batch));
    CS(cusolverDnDsyevjBatched_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, Nb, DAb, Nb, DWb, &Lw,
                                          P, Batch));
    double *Wk;
    CHECK(cudaMalloc(&Wk, sizeof(double) * std::max(Lw, 1)));
    CS(cusolverDnDsyevjBatched(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, Nb, DAb, Nb, DWb, Wk, Lw, DInfo,
                               P, Batch));
    auto Vb = host(DAb, Ab.size());
    auto Wb = host(DWb, size_t(Nb) * Batch);
    auto Infos = host(DInfo, Batch);
    for (int B = 0; B < Batch; ++B) {
      std::vector<double> W1(Wb.begin() + B * Nb, Wb.begin() + (B + 1) * Nb);
      EXPECT(Infos[B] == 0);
      EXPECT(checkEig(Nb, Each[B], Nb, Vb.data() + size_t(B) * Nb * Nb, Nb, W1, 1e-10) == 0);
    }
    EXPECT(cusolverDnXsyevjGetResidual(H, P, &Res) == CUSOLVER_STATUS_NOT_SUPPORTED);

    cudaFree(DAb);
    cudaFree(DWb);
    cudaFree(Wk);
  }
  CS(cusolverDnDestroySyevjInfo(P));
  cudaFree(DA);
  cudaFree(DW);
  cudaFree(DInfo);
  cudaFree(Work);
}

static void gesvdj(cusolverDnHandle_t H) {
  gesvdjInfo_t P;
  CS(cusolverDnCreateGesvdjInfo(&P));
  CS(cusolverDnXgesvdjSetTolerance(P, 1e-12));
  CS(cusolverDnXgesvdjSetMaxSweeps(P, 50));
  int *DInfo;
  CHECK(cudaMalloc(&DInfo, sizeof(int) * 4));
  // Economy (8 x 5) and full (5 x 8) double SVDs: A = U S V^T.
  for (int Econ = 0; Econ < 2; ++Econ) {
    const int M = Econ ? 8 : 5, N = Econ ? 5 : 8, Lda = M + 1, K = std::min(M, N);
    const int Uc = Econ ? K : M, Vc = Econ ? K : N, Ldu = M, Ldv = N;
    std::vector<double> A(size_t(Lda) * N);
    for (auto &V : A)
      V = rnd();
    double *DA = dev(A), *DS, *DU, *DV, *Wk;
    CHECK(cudaMalloc(&DS, sizeof(double) * K));
    CHECK(cudaMalloc(&DU, sizeof(double) * Ldu * Uc));
    CHECK(cudaMalloc(&DV, sizeof(double) * Ldv * Vc));
    int Lw = 0;
    CS(cusolverDnDgesvdj_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, Econ, M, N, DA, Lda, DS, DU, Ldu, DV, Ldv, &Lw, P));
    CHECK(cudaMalloc(&Wk, sizeof(double) * std::max(Lw, 1)));
    CS(cusolverDnDgesvdj(H, CUSOLVER_EIG_MODE_VECTOR, Econ, M, N, DA, Lda, DS, DU, Ldu, DV, Ldv, Wk, Lw, DInfo, P));
    auto S = host(DS, K);
    auto U = host(DU, size_t(Ldu) * Uc), V = host(DV, size_t(Ldv) * Vc);
    EXPECT(host(DInfo, 1)[0] == 0);
    EXPECT(checkSvd(M, N, A, Lda, U.data(), Ldu, V.data(), Ldv, S, 1e-10) == 0);
    double Res = -1;
    int Sweeps = -1;
    CS(cusolverDnXgesvdjGetResidual(H, P, &Res));
    CS(cusolverDnXgesvdjGetSweeps(H, P, &Sweeps));
    EXPECT(Res >= 0 && Res < 1e-9);
    EXPECT(Sweeps >= 1 && Sweeps <= 50);
    for (void *Ptr : {(void *)DA, (void *)DS, (void *)DU, (void *)DV, (void *)Wk})
      cudaFree(Ptr);
  }
  // Batched complex float: two 6 x 4 matrices, full U (6 x 6) and V (4 x 4).
  {
    const int M = 6, N = 4, Batch = 2;
    std::vector<cuComplex> A(size_t(M) * N * Batch);
    for (auto &V : A)
      V = make_cuComplex(float(rnd()), float(rnd()));
    cuComplex *DA = dev(A), *DU, *DV, *Wk;
    float *DS;
    CHECK(cudaMalloc(&DS, sizeof(float) * N * Batch));
    CHECK(cudaMalloc(&DU, sizeof(cuComplex) * M * M * Batch));
    CHECK(cudaMalloc(&DV, sizeof(cuComplex) * N * N * Batch));
    int Lw = 0;
    CS(cusolverDnCgesvdjBatched_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, M, N, DA, M, DS, DU, M, DV, N, &Lw, P, Batch));
    CHECK(cudaMalloc(&Wk, sizeof(cuComplex) * std::max(Lw, 1)));
    CS(cusolverDnCgesvdjBatched(H, CUSOLVER_EIG_MODE_VECTOR, M, N, DA, M, DS, DU, M, DV, N, Wk, Lw, DInfo, P, Batch));
    auto S = host(DS, size_t(N) * Batch);
    auto U = host(DU, size_t(M) * M * Batch), V = host(DV, size_t(N) * N * Batch);
    auto Infos = host(DInfo, Batch);
    for (int B = 0; B < Batch; ++B) {
      std::vector<cuComplex> A1(A.begin() + B * M * N, A.begin() + (B + 1) * M * N);
      std::vector<double> S1(S.begin() + B * N, S.begin() + (B + 1) * N);
      EXPECT(Infos[B] == 0);
      EXPECT(checkSvd(M, N, A1, M, U.data() + size_t(B) * M * M, M, V.data() + size_t(B) * N * N, N, S1, 1e-4) == 0);
    }
    double Res;
    EXPECT(cusolverDnXgesvdjGetResidual(H, P, &Res) == CUSOLVER_STATUS_NOT_SUPPORTED);
    // Batched gesvdj takes at most 32 rows and columns (the workspace query does not check).
    EXPECT(cusolverDnCgesvdjBatched(H, CUSOLVER_EIG_MODE_VECTOR, 33, N, DA, 33, DS, DU, 33, DV, N, Wk, Lw, DInfo, P,
                                    1) == CUSOLVER_STATUS_INVALID_VALUE);
    for (void *Ptr : {(void *)DA, (void *)DS, (void *)DU, (void *)DV, (void *)Wk})
      cudaFree(Ptr);
  }
  CS(cusolverDnDestroyGesvdjInfo(P));
  cudaFree(DInfo);
}

// gesvda: the leading `rank` singular triplets of tall matrices; the residual norm what the others leave.
static void gesvda(cusolverDnHandle_t H) {
  const int M = 10, N = 4, Rank = 2, Batch = 2, Lda = M;
  const long long Sa = (long long)Lda * N, Ss = N, Su = (long long)M * Rank, Sv = (long long)N * Rank;
  std::vector<double> A(size_t(Sa) * Batch);
  for (auto &V : A)
    V = rnd();
  double *DA = dev(A), *DS, *DU, *DV, *Wk;
  int *DInfo;
  CHECK(cudaMalloc(&DS, sizeof(double) * Ss * Batch));
  CHECK(cudaMalloc(&DU, sizeof(double) * Su * Batch));
  CHECK(cudaMalloc(&DV, sizeof(double) * Sv * Batch));
  CHECK(cudaMalloc(&DInfo, sizeof(int) * Batch));
  int Lw = 0;
  CS(cusolverDnDgesvdaStridedBatched_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, Rank, M, N, DA, Lda, Sa, DS, Ss, DU, M,
                                                Su, DV, N, Sv, &Lw, Batch));
  CHECK(cudaMalloc(&Wk, sizeof(double) * std::max(Lw, 1)));
  std::vector<double> RNrm(Batch, -1);
  CS(cusolverDnDgesvdaStridedBatched(H, CUSOLVER_EIG_MODE_VECTOR, Rank, M, N, DA, Lda, Sa, DS, Ss, DU, M, Su, DV, N,
                                     Sv, Wk, Lw, DInfo, RNrm.data(), Batch));
  CHECK(cudaDeviceSynchronize());
  auto S = host(DS, size_t(Ss) * Batch);
  auto U = host(DU, size_t(Su) * Batch), V = host(DV, size_t(Sv) * Batch);
  auto Infos = host(DInfo, Batch);
  int Wrong = 0;
  for (int B = 0; B < Batch; ++B) {
    // The full spectrum from the eigenvalues of A^T A (n x n), descending.
    const double *Ab = A.data() + B * Sa;
    std::vector<double> G(size_t(N) * N);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I)
        for (int R = 0; R < M; ++R)
          G[size_t(J) * N + I] += Ab[size_t(I) * Lda + R] * Ab[size_t(J) * Lda + R];
    // Power-free check: U^T A V = diag(S) on the kept triplets, and ||A - U S V^T||_F^2 = ||A||_F^2 - sum S^2.
    double Fro = 0, Kept = 0, Res = 0;
    for (double X : std::vector<double>(Ab, Ab + Sa))
      Fro += X * X;
    for (int K = 0; K < Rank; ++K)
      Kept += S[B * Ss + K] * S[B * Ss + K];
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I) {
        double Approx = 0;
        for (int K = 0; K < Rank; ++K)
          Approx += U[B * Su + size_t(K) * M + I] * S[B * Ss + K] * V[B * Sv + size_t(K) * N + J];
        Res += (Ab[size_t(J) * Lda + I] - Approx) * (Ab[size_t(J) * Lda + I] - Approx);
      }
    Wrong += Infos[B] != 0;
    Wrong += S[B * Ss] < S[B * Ss + 1];
    Wrong += std::fabs(Res - (Fro - Kept)) > 1e-9 * Fro; // the kept triplets are exact singular triplets
    // sigma_1^2 is the largest eigenvalue of A^T A: v1^T G v1 = S1^2.
    double Q = 0;
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I)
        Q += V[B * Sv + I] * G[size_t(J) * N + I] * V[B * Sv + J];
    Wrong += std::fabs(Q - S[B * Ss] * S[B * Ss]) > 1e-9 * Fro;
    // h_R_nrmF: the kept triplets' residual ||U^T A V - S||_F (about machine precision on an H200).
    Wrong += !(RNrm[B] >= 0 && RNrm[B] < 1e-10 * std::sqrt(Fro));
  }
  EXPECT(Wrong == 0);
  for (void *Ptr : {(void *)DA, (void *)DS, (void *)DU, (void *)DV, (void *)Wk, (void *)DInfo})
    cudaFree(Ptr);
}

int main() {
  cusolverDnHandle_t H;
  CS(cusolverDnCreate(&H));
  syevj(H);
  gesvdj(H);
  gesvda(H);
  CS(cusolverDnDestroy(H));
  return verdict("cusolver_jacobi", Bad);
}
