// cuSOLVER's generalized and partial eigensolvers, symmetric indefinite
// factorization and inverses on our libcusolver, each checked by its
// defining property on fresh random matrices: sygvd/hegvd and sygvj
// (A V = B V W, V^H B V = I), syevdx/heevdx and sygvdx with index and value
// ranges (the pairs found are eigenpairs, meig and the values agree with the
// full spectrum), sytrf + sytri (real and complex symmetric) and potrf +
// potri (A A^-1 = I), potrfBatched + potrsBatched (A x = b). Passes on
// NVIDIA's cuSOLVER on an H200 too (whose sytri left A unchanged there: the
// sytri inverses are checked on ours only).
#include "libs_common.h"
#include "values_common.h"
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

static int Bad = 0;


/// Hermitian (Herm) or complex symmetric matrices, full storage; Shift added to the diagonal.
template <typename T> static std::vector<T> symmetric(int N, bool Cx, bool Herm, double Shift) {
  std::vector<T> A(size_t(N) * N);
  for (int J = 0; J < N; ++J)
    for (int I = J; I < N; ++I) {
      Z V(rnd(), Cx && (I != J || !Herm) ? rnd() : 0);
      if (I == J)
        V += Shift;
      A[size_t(J) * N + I] = make<T>(V);
      A[size_t(I) * N + J] = make<T>(Herm ? std::conj(V) : V);
    }
  return A;
}
/// A positive definite Hermitian matrix (M M^H + n I).
template <typename T> static std::vector<T> positive(int N, bool Cx) {
  std::vector<Z> M(size_t(N) * N);
  for (auto &V : M)
    V = Z(rnd(), Cx ? rnd() : 0);
  std::vector<T> A(size_t(N) * N);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I) {
      Z S = I == J ? Z(N) : Z(0);
      for (int K = 0; K < N; ++K)
        S += M[size_t(K) * N + I] * std::conj(M[size_t(K) * N + J]);
      A[size_t(J) * N + I] = make<T>(S);
    }
  return A;
}
template <typename T> static Z at(const std::vector<T> &A, int N, int I, int J) { return z(A[size_t(J) * N + I]); }

/// Checks A v = w B v for the first Count columns of V (B null: the identity), and V^H B V = I.
template <typename T, typename R>
static int checkPairs(int N, const std::vector<T> &A, const std::vector<T> *B, const std::vector<T> &V, int Count,
                      const std::vector<R> &W, double Tol) {
  int Wrong = 0;
  for (int C = 0; C < Count; ++C) {
    for (int I = 0; I < N; ++I) {
      Z Av = 0, Bv = 0;
      for (int K = 0; K < N; ++K) {
        Av += at(A, N, I, K) * at(V, N, K, C);
        Bv += (B ? at(*B, N, I, K) : Z(I == K)) * at(V, N, K, C);
      }
      Wrong += std::abs(Av - double(W[C]) * Bv) > Tol;
    }
    for (int D = 0; D < Count; ++D) {
      Z G = 0;
      for (int I = 0; I < N; ++I)
        for (int K = 0; K < N; ++K)
          G += std::conj(at(V, N, I, C)) * (B ? at(*B, N, I, K) : Z(I == K)) * at(V, N, K, D);
      Wrong += std::abs(G - Z(C == D)) > Tol;
    }
  }
  return Wrong;
}

template <typename T> static int checkInverse(int N, const std::vector<T> &A, const std::vector<T> &Inv, double Tol) {
  int Wrong = 0;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I) {
      Z S = 0;
      for (int K = 0; K < N; ++K)
        S += at(A, N, I, K) * at(Inv, N, K, J);
      Wrong += std::abs(S - Z(I == J)) > Tol;
    }
  return Wrong;
}

static void generalized(cusolverDnHandle_t H) {
  const int N = 8;
  int *DInfo, Lw;
  CHECK(cudaMalloc(&DInfo, sizeof(int)));
  // Double, itype 1, upper.
  {
    auto A = symmetric<double>(N, false, true, 0), B = positive<double>(N, false);
    double *DA = dev(A), *DB = dev(B), *DW, *Wk;
    CHECK(cudaMalloc(&DW, sizeof(double) * N));
    CS(cusolverDnDsygvd_bufferSize(H, CUSOLVER_EIG_TYPE_1, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, N, DA, N,
                                   DB, N, DW, &Lw));
    CHECK(cudaMalloc(&Wk, sizeof(double) * std::max(Lw, 1)));
    CS(cusolverDnDsygvd(H, CUSOLVER_EIG_TYPE_1, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, N, DA, N, DB, N, DW,
                        Wk, Lw, DInfo));
    EXPECT(host(DInfo, 1)[0] == 0);
    EXPECT(checkPairs(N, A, &B, host(DA, A.size()), N, host(DW, N), 1e-9) == 0);
    // sygvj: the same problem through the Jacobi interface.
    syevjInfo_t P;
    CS(cusolverDnCreateSyevjInfo(&P));
    CHECK(cudaMemcpy(DA, A.data(), sizeof(double) * A.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(DB, B.data(), sizeof(double) * B.size(), cudaMemcpyHostToDevice));
    CS(cusolverDnDsygvj_bufferSize(H, CUSOLVER_EIG_TYPE_1, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N,
                                   DB, N, DW, &Lw, P));
    cudaFree(Wk);
    CHECK(cudaMalloc(&Wk, sizeof(double) * std::max(Lw, 1)));
    CS(cusolverDnDsygvj(H, CUSOLVER_EIG_TYPE_1, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N, DB, N, DW,
                        Wk, Lw, DInfo, P));
    EXPECT(host(DInfo, 1)[0] == 0);
    EXPECT(checkPairs(N, A, &B, host(DA, A.size()), N, host(DW, N), 1e-9) == 0);
    double Res = -1;
    int Sweeps = -1;
    CS(cusolverDnXsyevjGetResidual(H, P, &Res));
    CS(cusolverDnXsyevjGetSweeps(H, P, &Sweeps));
    EXPECT(Res >= 0 && Res < 1e-8 && Sweeps >= 1);
    CS(cusolverDnDestroySyevjInfo(P));
    // sygvdx, all eigenpairs: meig = n.
    CHECK(cudaMemcpy(DA, A.data(), sizeof(double) * A.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(DB, B.data(), sizeof(double) * B.size(), cudaMemcpyHostToDevice));
    int Meig = -1;
    CS(cusolverDnDsygvdx_bufferSize(H, CUSOLVER_EIG_TYPE_1, CUSOLVER_EIG_MODE_VECTOR, CUSOLVER_EIG_RANGE_ALL,
                                    CUBLAS_FILL_MODE_LOWER, N, DA, N, DB, N, 0, 0, 0, 0, &Meig, DW, &Lw));
    cudaFree(Wk);
    CHECK(cudaMalloc(&Wk, sizeof(double) * std::max(Lw, 1)));
    CS(cusolverDnDsygvdx(H, CUSOLVER_EIG_TYPE_1, CUSOLVER_EIG_MODE_VECTOR, CUSOLVER_EIG_RANGE_ALL,
                         CUBLAS_FILL_MODE_LOWER, N, DA, N, DB, N, 0, 0, 0, 0, &Meig, DW, Wk, Lw, DInfo));
    EXPECT(Meig == N && host(DInfo, 1)[0] == 0);
    EXPECT(checkPairs(N, A, &B, host(DA, A.size()), N, host(DW, N), 1e-9) == 0);
    for (void *Ptr : {(void *)DA, (void *)DB, (void *)DW, (void *)Wk})
      cudaFree(Ptr);
  }
  // Double complex Hermitian, itype 1, lower.
  {
    auto A = symmetric<cuDoubleComplex>(N, true, true, 0), B = positive<cuDoubleComplex>(N, true);
    cuDoubleComplex *DA = dev(A), *DB = dev(B), *Wk;
    double *DW;
    CHECK(cudaMalloc(&DW, sizeof(double) * N));
    CS(cusolverDnZhegvd_bufferSize(H, CUSOLVER_EIG_TYPE_1, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N,
                                   DB, N, DW, &Lw));
    CHECK(cudaMalloc(&Wk, sizeof(cuDoubleComplex) * std::max(Lw, 1)));
    CS(cusolverDnZhegvd(H, CUSOLVER_EIG_TYPE_1, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N, DB, N, DW,
                        Wk, Lw, DInfo));
    EXPECT(host(DInfo, 1)[0] == 0);
    EXPECT(checkPairs(N, A, &B, host(DA, A.size()), N, host(DW, N), 1e-9) == 0);
    for (void *Ptr : {(void *)DA, (void *)DB, (void *)DW, (void *)Wk})
      cudaFree(Ptr);
  }
  cudaFree(DInfo);
}

static void partial(cusolverDnHandle_t H) {
  const int N = 10;
  int *DInfo, Lw;
  CHECK(cudaMalloc(&DInfo, sizeof(int)));
  // The full spectrum first (syevd), then eigenpairs 2..4 (syevdx, range I).
  auto A = symmetric<double>(N, false, true, 0);
  double *DA = dev(A), *DW, *Wk;
  CHECK(cudaMalloc(&DW, sizeof(double) * N));
  CS(cusolverDnDsyevd_bufferSize(H, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N, DW, &Lw));
  CHECK(cudaMalloc(&Wk, sizeof(double) * std::max(Lw, 1)));
  CS(cusolverDnDsyevd(H, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N, DW, Wk, Lw, DInfo));
  auto Full = host(DW, N);
  CHECK(cudaMemcpy(DA, A.data(), sizeof(double) * A.size(), cudaMemcpyHostToDevice));
  int Meig = -1;
  CS(cusolverDnDsyevdx_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, CUSOLVER_EIG_RANGE_I, CUBLAS_FILL_MODE_UPPER, N, DA, N,
                                  0, 0, 2, 4, &Meig, DW, &Lw));
  cudaFree(Wk);
  CHECK(cudaMalloc(&Wk, sizeof(double) * std::max(Lw, 1)));
  CS(cusolverDnDsyevdx(H, CUSOLVER_EIG_MODE_VECTOR, CUSOLVER_EIG_RANGE_I, CUBLAS_FILL_MODE_UPPER, N, DA, N, 0, 0, 2, 4,
                       &Meig, DW, Wk, Lw, DInfo));
  auto W = host(DW, N);
  EXPECT(Meig == 3 && host(DInfo, 1)[0] == 0);
  int Wrong = 0;
  for (int K = 0; K < 3; ++K)
    Wrong += std::fabs(W[K] - Full[K + 1]) > 1e-10;
  EXPECT(Wrong == 0);
  EXPECT(checkPairs(N, A, (const std::vector<double> *)nullptr, host(DA, A.size()), 3, W, 1e-9) == 0);
  // Complex float Hermitian, the eigenvalues in (vl, vu]: as many as the full spectrum has there.
  {
    auto Ac = symmetric<cuComplex>(N, true, true, 0);
    cuComplex *DAc = dev(Ac), *Wc;
    float *DWc;
    CHECK(cudaMalloc(&DWc, sizeof(float) * N));
    CS(cusolverDnCheevd_bufferSize(H, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, N, DAc, N, DWc, &Lw));
    CHECK(cudaMalloc(&Wc, sizeof(cuComplex) * std::max(Lw, 1)));
    CS(cusolverDnCheevd(H, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, N, DAc, N, DWc, Wc, Lw, DInfo));
    auto FullC = host(DWc, N);
    // A window between eigenvalues 3 and 7 (well inside their gaps).
    float Vl = 0.5f * (FullC[2] + FullC[3]), Vu = 0.5f * (FullC[6] + FullC[7]);
    CHECK(cudaMemcpy(DAc, Ac.data(), sizeof(cuComplex) * Ac.size(), cudaMemcpyHostToDevice));
    CS(cusolverDnCheevdx_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, CUSOLVER_EIG_RANGE_V, CUBLAS_FILL_MODE_LOWER, N, DAc,
                                    N, Vl, Vu, 0, 0, &Meig, DWc, &Lw));
    cudaFree(Wc);
    CHECK(cudaMalloc(&Wc, sizeof(cuComplex) * std::max(Lw, 1)));
    CS(cusolverDnCheevdx(H, CUSOLVER_EIG_MODE_VECTOR, CUSOLVER_EIG_RANGE_V, CUBLAS_FILL_MODE_LOWER, N, DAc, N, Vl, Vu,
                         0, 0, &Meig, DWc, Wc, Lw, DInfo));
    EXPECT(Meig == 4 && host(DInfo, 1)[0] == 0);
    auto Wv = host(DWc, N);
    EXPECT(checkPairs(N, Ac, (const std::vector<cuComplex> *)nullptr, host(DAc, Ac.size()), std::min(Meig, 4), Wv,
                      1e-4) == 0);
    for (void *Ptr : {(void *)DAc, (void *)DWc, (void *)Wc})
      cudaFree(Ptr);
  }
  for (void *Ptr : {(void *)DA, (void *)DW, (void *)Wk, (void *)DInfo})
    cudaFree(Ptr);
}

/// The inverse's stored triangle mirrored (Herm: conjugated) into the other.
template <typename T> static std::vector<T> mirror(std::vector<T> X, int N, bool Lower, bool Herm) {
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I)
      if (Lower ? I < J : I > J) {
        Z V = at(X, N, J, I);
        X[size_t(J) * N + I] = make<T>(Herm ? std::conj(V) : V);
      }
  return X;
}

static void inverses(cusolverDnHandle_t H) {
  const int N = 9;
  int *DInfo, *DPiv, Lw;
  CHECK(cudaMalloc(&DInfo, sizeof(int)));
  CHECK(cudaMalloc(&DPiv, sizeof(int) * N));
  // Real symmetric indefinite: sytrf then sytri (lower).
  {
    auto A = symmetric<double>(N, false, true, 0);
    double *DA = dev(A), *Wk;
    CS(cusolverDnDsytrf_bufferSize(H, N, DA, N, &Lw));
    CHECK(cudaMalloc(&Wk, sizeof(double) * std::max(Lw, 1)));
    CS(cusolverDnDsytrf(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, DPiv, Wk, Lw, DInfo));
    EXPECT(host(DInfo, 1)[0] == 0);
    CS(cusolverDnDsytri_bufferSize(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, DPiv, &Lw));
    cudaFree(Wk);
    CHECK(cudaMalloc(&Wk, sizeof(double) * std::max(Lw, 1)));
    CS(cusolverDnDsytri(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, DPiv, Wk, Lw, DInfo));
    EXPECT(host(DInfo, 1)[0] == 0);
    // (NVIDIA's sytri of CUDA 13 left A as sytrf made it on an H200, info 0: the inverse is checked on ours only.)
    if (onZluda())
      EXPECT(checkInverse(N, A, mirror(host(DA, A.size()), N, true, false), 1e-9) == 0);
    cudaFree(DA);
    cudaFree(Wk);
  }
  // Complex symmetric (not Hermitian): csytrf and csytri (upper).
  {
    auto A = symmetric<cuComplex>(N, true, false, 2);
    cuComplex *DA = dev(A), *Wk;
    CS(cusolverDnCsytrf_bufferSize(H, N, DA, N, &Lw));
    CHECK(cudaMalloc(&Wk, sizeof(cuComplex) * std::max(Lw, 1)));
    CS(cusolverDnCsytrf(H, CUBLAS_FILL_MODE_UPPER, N, DA, N, DPiv, Wk, Lw, DInfo));
    CS(cusolverDnCsytri_bufferSize(H, CUBLAS_FILL_MODE_UPPER, N, DA, N, DPiv, &Lw));
    cudaFree(Wk);
    CHECK(cudaMalloc(&Wk, sizeof(cuComplex) * std::max(Lw, 1)));
    CS(cusolverDnCsytri(H, CUBLAS_FILL_MODE_UPPER, N, DA, N, DPiv, Wk, Lw, DInfo));
    EXPECT(host(DInfo, 1)[0] == 0);
    if (onZluda())
      EXPECT(checkInverse(N, A, mirror(host(DA, A.size()), N, false, false), 1e-3) == 0);
    cudaFree(DA);
    cudaFree(Wk);
  }
  // Hermitian positive definite: potrf then potri (lower).
  {
    auto A = positive<cuDoubleComplex>(N, true);
    cuDoubleComplex *DA = dev(A), *Wk;
    CS(cusolverDnZpotrf_bufferSize(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, &Lw));
    CHECK(cudaMalloc(&Wk, sizeof(cuDoubleComplex) * std::max(Lw, 1)));
    CS(cusolverDnZpotrf(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, Wk, Lw, DInfo));
    CS(cusolverDnZpotri_bufferSize(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, &Lw));
    cudaFree(Wk);
    CHECK(cudaMalloc(&Wk, sizeof(cuDoubleComplex) * std::max(Lw, 1)));
    CS(cusolverDnZpotri(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, Wk, Lw, DInfo));
    EXPECT(host(DInfo, 1)[0] == 0);
    EXPECT(checkInverse(N, A, mirror(host(DA, A.size()), N, true, true), 1e-10) == 0);
    cudaFree(DA);
    cudaFree(Wk);
  }
  // Batched Cholesky: three matrices, then one right-hand side each.
  {
    const int Batch = 3;
    std::vector<std::vector<double>> A, B;
    std::vector<double *> PA, PB;
    for (int K = 0; K < Batch; ++K) {
      A.push_back(positive<double>(N, false));
      B.emplace_back(N);
      for (auto &V : B.back())
        V = rnd();
      PA.push_back(dev(A.back()));
      PB.push_back(dev(B.back()));
    }
    double **DPA = dev(PA), **DPB = dev(PB);
    int *DInfos;
    CHECK(cudaMalloc(&DInfos, sizeof(int) * Batch));
    CS(cusolverDnDpotrfBatched(H, CUBLAS_FILL_MODE_UPPER, N, DPA, N, DInfos, Batch));
    CS(cusolverDnDpotrsBatched(H, CUBLAS_FILL_MODE_UPPER, N, 1, DPA, N, DPB, N, DInfo, Batch));
    auto Infos = host(DInfos, Batch);
    EXPECT(host(DInfo, 1)[0] == 0);
    int Wrong = 0;
    for (int K = 0; K < Batch; ++K) {
      auto X = host(PB[K], N);
      Wrong += Infos[K] != 0;
      for (int I = 0; I < N; ++I) {
        double S = 0;
        for (int J = 0; J < N; ++J)
          S += A[K][size_t(J) * N + I] * X[J];
        Wrong += std::fabs(S - B[K][I]) > 1e-10;
      }
      cudaFree(PA[K]);
      cudaFree(PB[K]);
    }
    EXPECT(Wrong == 0);
    EXPECT(cusolverDnDpotrsBatched(H, CUBLAS_FILL_MODE_UPPER, N, 2, DPA, N, DPB, N, DInfo, Batch) ==
           CUSOLVER_STATUS_INVALID_VALUE); // one right-hand side only
    cudaFree(DPA);
    cudaFree(DPB);
    cudaFree(DInfos);
  }
  cudaFree(DInfo);
  cudaFree(DPiv);
}

int main() {
  cusolverDnHandle_t H;
  CS(cusolverDnCreate(&H));
  generalized(H);
  partial(H);
  inverses(H);
  CS(cusolverDnDestroy(H));
  return verdict("cusolver_eig", Bad);
}
