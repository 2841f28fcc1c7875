// cuSOLVER: the 64-bit generic API (cusolverDnX*: LU with 64-bit pivots,
// Cholesky, QR, eigen and singular values through cudaDataType) and
// cusolverSp's linear solves (LU, QR, Cholesky; host and device forms;
// singularity detection; csrissym), each against the defining identity or a
// solution computed here in long double.
#include "libs_common.h"
#include <cusolverDn.h>
#include <cusolverSp.h>
#include <cusparse.h>

#include <cmath>
#include <complex>
#include <random>


static int Bad = 0;
static std::mt19937 Rng(5);
static double U() { return std::uniform_real_distribution<double>(-1, 1)(Rng); }
static void check(const char *What, double Err, double Bound) {
  if (!(Err <= Bound)) {
    std::printf("FAIL %s: error %.3g > %.3g\n", What, Err, Bound);
    ++Bad;
  }
}
static int info(int *D) { return host(D, 1)[0]; }

static void generic(cusolverDnHandle_t H) {
  cusolverDnParams_t P;
  CS(cusolverDnCreateParams(&P));
  CS(cusolverDnSetAdvOptions(P, CUSOLVERDN_GETRF, CUSOLVER_ALG_0));
  const int64_t N = 33;
  std::vector<double> A(N * N), B(N);
  for (auto &X : A)
    X = U();
  for (auto &X : B)
    X = U();
  double *dA = dev(A), *dB = dev(B);
  int64_t *dPiv = dev(std::vector<int64_t>(N, -1));
  int *dInfo = dev(std::vector<int>(1, -7));
  size_t DevBytes = 0, HostBytes = 1;
  CS(cusolverDnXgetrf_bufferSize(H, P, N, N, CUDA_R_64F, dA, N, CUDA_R_64F, &DevBytes, &HostBytes));
  // Workspaces of the sizes each call's query gives (device and host).
  void *Work = nullptr;
  std::vector<char> HostWork;
  auto Workspace = [&] {
    if (Work)
      cudaFree(Work);
    CHECK(cudaMalloc(&Work, DevBytes + 1));
    HostWork.assign(HostBytes + 1, 0);
  };
  Workspace();
  CS(cusolverDnXgetrf(H, P, N, N, CUDA_R_64F, dA, N, dPiv, CUDA_R_64F, Work, DevBytes, HostWork.data(), HostBytes,
                      dInfo));
  EXPECT(info(dInfo) == 0);
  auto Piv = host(dPiv, N);
  for (int64_t K = 0; K < N; ++K)
    EXPECT(Piv[K] >= 1 && Piv[K] <= N);
  CS(cusolverDnXgetrs(H, P, CUBLAS_OP_N, N, 1, CUDA_R_64F, dA, N, dPiv, CUDA_R_64F, dB, N, dInfo));
  auto X = host(dB, N);
  double Err = 0;
  for (int64_t I = 0; I < N; ++I) {
    long double S = 0;
    for (int64_t K = 0; K < N; ++K)
      S += (long double)A[I + K * N] * X[K];
    Err = std::max(Err, double(std::fabs(S - B[I])));
  }
  check("cusolverDnXgetrf/Xgetrs residual", Err, 1e-11);

  // Hermitian positive definite (complex float): Xpotrf/Xpotrs.
  using Cpx = std::complex<float>;
  const int64_t M = 20;
  std::vector<Cpx> G(M * M), Hm(M * M), Bc(M);
  for (auto &Z : G)
    Z = Cpx(float(U()), float(U()));
  for (int64_t I = 0; I < M; ++I)
    for (int64_t J = 0; J < M; ++J) {
      Cpx S = I == J ? Cpx(float(M)) : Cpx(0);
      for (int64_t K = 0; K < M; ++K)
        S += G[I + K * M] * std::conj(G[J + K * M]);
      Hm[I + J * M] = S;
    }
  for (auto &Z : Bc)
    Z = Cpx(float(U()), float(U()));
  Cpx *dH = dev(Hm), *dBc = dev(Bc);
  CS(cusolverDnXpotrf_bufferSize(H, P, CUBLAS_FILL_MODE_UPPER, M, CUDA_C_32F, dH, M, CUDA_C_32F, &DevBytes,
                                 &HostBytes));
  Workspace();
  CS(cusolverDnXpotrf(H, P, CUBLAS_FILL_MODE_UPPER, M, CUDA_C_32F, dH, M, CUDA_C_32F, Work, DevBytes, HostWork.data(),
                      HostBytes, dInfo));
  EXPECT(info(dInfo) == 0);
  CS(cusolverDnXpotrs(H, P, CUBLAS_FILL_MODE_UPPER, M, 1, CUDA_C_32F, dH, M, CUDA_C_32F, dBc, M, dInfo));
  auto Xc = host(dBc, M);
  Err = 0;
  for (int64_t I = 0; I < M; ++I) {
    std::complex<double> S = 0;
    for (int64_t K = 0; K < M; ++K)
      S += std::complex<double>(Hm[I + K * M]) * std::complex<double>(Xc[K]);
    Err = std::max(Err, std::abs(S - std::complex<double>(Bc[I])));
  }
  check("cusolverDnXpotrf/Xpotrs (complex float) residual", Err, 1e-3);

  // Xsyevd (double): A V = V diag(w) for a symmetric matrix.
  std::vector<double> S(N * N);
  for (int64_t I = 0; I < N; ++I)
    for (int64_t J = 0; J <= I; ++J)
      S[I + J * N] = S[J + I * N] = U();
  double *dS = dev(S), *dW = dev(std::vector<double>(N));
  CS(cusolverDnXsyevd_bufferSize(H, P, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, CUDA_R_64F, dS, N,
                                 CUDA_R_64F, dW, CUDA_R_64F, &DevBytes, &HostBytes));
  Workspace();
  CS(cusolverDnXsyevd(H, P, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, CUDA_R_64F, dS, N, CUDA_R_64F, dW,
                      CUDA_R_64F, Work, DevBytes, HostWork.data(), HostBytes, dInfo));
  EXPECT(info(dInfo) == 0);
  auto V = host(dS, N * N), W = host(dW, N);
  Err = 0;
  for (int64_t K = 0; K < N; ++K)
    for (int64_t I = 0; I < N; ++I) {
      long double Sum = 0;
      for (int64_t L = 0; L < N; ++L)
        Sum += (long double)S[I + L * N] * V[L + K * N];
      Err = std::max(Err, double(std::fabs(Sum - W[K] * V[I + K * N])));
    }
  check("cusolverDnXsyevd: A V = V diag(w)", Err, 1e-11);

  // Xgesvd (float): singular values of a matrix with known ones (Q1 diag Q2).
  const int64_t Rm = 12, Cn = 8;
  std::vector<float> Am(Rm * Cn);
  for (auto &X1 : Am)
    X1 = float(U());
  float *dAm = dev(Am), *dSv = dev(std::vector<float>(Cn)), *dU = dev(std::vector<float>(Rm * Rm)),
        *dVt = dev(std::vector<float>(Cn * Cn));
  CS(cusolverDnXgesvd_bufferSize(H, P, 'A', 'A', Rm, Cn, CUDA_R_32F, dAm, Rm, CUDA_R_32F, dSv, CUDA_R_32F, dU, Rm,
                                 CUDA_R_32F, dVt, Cn, CUDA_R_32F, &DevBytes, &HostBytes));
  Workspace();
  CS(cusolverDnXgesvd(H, P, 'A', 'A', Rm, Cn, CUDA_R_32F, dAm, Rm, CUDA_R_32F, dSv, CUDA_R_32F, dU, Rm, CUDA_R_32F,
                      dVt, Cn, CUDA_R_32F, Work, DevBytes, HostWork.data(), HostBytes, dInfo));
  EXPECT(info(dInfo) == 0);
  auto Uh = host(dU, Rm * Rm), Vh = host(dVt, Cn * Cn), Sv = host(dSv, Cn);
  Err = 0;
  for (int64_t I = 0; I < Rm; ++I)
    for (int64_t J = 0; J < Cn; ++J) {
      double Sum = 0;
      for (int64_t K = 0; K < Cn; ++K)
        Sum += double(Uh[I + K * Rm]) * Sv[K] * Vh[K + J * Cn];
      Err = std::max(Err, std::fabs(Sum - Am[I + J * Rm]));
    }
  check("cusolverDnXgesvd: U S V^T = A", Err, 1e-4);
  // Types other than the compute type are refused.
  EXPECT(cusolverDnXpotrf(H, P, CUBLAS_FILL_MODE_UPPER, M, CUDA_C_32F, dH, M, CUDA_C_64F, Work, DevBytes,
                          HostWork.data(), HostBytes, dInfo) == CUSOLVER_STATUS_INVALID_VALUE);
  CS(cusolverDnDestroyParams(P));
  cudaFree(dA), cudaFree(dB), cudaFree(dPiv), cudaFree(dInfo), cudaFree(Work), cudaFree(dH), cudaFree(dBc);
  cudaFree(dS), cudaFree(dW), cudaFree(dAm), cudaFree(dSv), cudaFree(dU), cudaFree(dVt);
}

/// A sparse symmetric positive definite system (2D Laplacian plus a shift),
/// one based, solved by every cusolverSp method.
static void sparse() {
  cusolverSpHandle_t H;
  CS(cusolverSpCreate(&H));
  cusparseMatDescr_t D;
  cusparseCreateMatDescr(&D);
  cusparseSetMatType(D, CUSPARSE_MATRIX_TYPE_GENERAL);
  cusparseSetMatIndexBase(D, CUSPARSE_INDEX_BASE_ONE);
  const int G = 7, N = G * G;
  std::vector<int> Row{1}, Col;
  std::vector<double> Val, Dense(size_t(N) * N, 0);
  for (int I = 0; I < N; ++I) {
    int X = I % G, Y = I / G;
    auto Add = [&](int J, double V) {
      Col.push_back(J + 1);
      Val.push_back(V);
      Dense[I + size_t(J) * N] = V;
    };
    if (Y > 0)
      Add(I - G, -1);
    if (X > 0)
      Add(I - 1, -1);
    Add(I, 4.5);
    if (X < G - 1)
      Add(I + 1, -1);
    if (Y < G - 1)
      Add(I + G, -1);
    Row.push_back(int(Col.size()) + 1);
  }
  std::vector<double> B(N);
  for (auto &X : B)
    X = U();
  int Sym = -1;
  CS(cusolverSpXcsrissymHost(H, N, int(Val.size()), D, Row.data(), Row.data() + 1, Col.data(), &Sym));
  EXPECT(Sym == 1);
  auto Residual = [&](const std::vector<double> &X) {
    double E = 0;
    for (int I = 0; I < N; ++I) {
      long double S = 0;
      for (int K = 0; K < N; ++K)
        S += (long double)Dense[I + size_t(K) * N] * X[K];
      E = std::max(E, double(std::fabs(S - B[I])));
    }
    return E;
  };
  std::vector<double> X(N, NAN);
  int Sing = 7;
  CS(cusolverSpDcsrlsvluHost(H, N, int(Val.size()), D, Val.data(), Row.data(), Col.data(), B.data(), 1e-12, 0,
                             X.data(), &Sing));
  EXPECT(Sing == -1);
  check("cusolverSpDcsrlsvluHost residual", Residual(X), 1e-12);
  X.assign(N, NAN);
  CS(cusolverSpDcsrlsvqrHost(H, N, int(Val.size()), D, Val.data(), Row.data(), Col.data(), B.data(), 1e-12, 0,
                             X.data(), &Sing));
  EXPECT(Sing == -1);
  check("cusolverSpDcsrlsvqrHost residual", Residual(X), 1e-12);
  // Device forms on a stream.
  cudaStream_t S;
  CHECK(cudaStreamCreate(&S));
  CS(cusolverSpSetStream(H, S));
  int *dRow = dev(Row), *dCol = dev(Col);
  double *dVal = dev(Val), *dB = dev(B), *dX = dev(std::vector<double>(N, NAN));
  CS(cusolverSpDcsrlsvqr(H, N, int(Val.size()), D, dVal, dRow, dCol, dB, 1e-12, 0, dX, &Sing));
  EXPECT(Sing == -1);
  check("cusolverSpDcsrlsvqr residual", Residual(host(dX, N)), 1e-12);
  CHECK(cudaMemset(dX, 0xff, N * sizeof(double)));
  CS(cusolverSpDcsrlsvchol(H, N, int(Val.size()), D, dVal, dRow, dCol, dB, 1e-12, 0, dX, &Sing));
  EXPECT(Sing == -1);
  check("cusolverSpDcsrlsvchol residual", Residual(host(dX, N)), 1e-12);
  // A singular matrix: row 3 (0-based) all zero -> LU reports a pivot.
  std::vector<double> Zeroed = Val;
  for (int K = Row[3] - 1; K < Row[4] - 1; ++K)
    Zeroed[K] = 0;
  CS(cusolverSpDcsrlsvluHost(H, N, int(Val.size()), D, Zeroed.data(), Row.data(), Col.data(), B.data(), 1e-12, 0,
                             X.data(), &Sing));
  EXPECT(Sing >= 0);
  // Cholesky of an indefinite matrix reports where it failed.
  std::vector<double> Neg = Val;
  for (int K = Row[0] - 1; K < Row[1] - 1; ++K)
    if (Col[K] == 1)
      Neg[K] = -4.5;
  CS(cusolverSpDcsrlsvcholHost(H, N, int(Val.size()), D, Neg.data(), Row.data(), Col.data(), B.data(), 1e-12, 0,
                               X.data(), &Sing));
  EXPECT(Sing == 0);
  CS(cusolverSpDestroy(H));
  cusparseDestroyMatDescr(D);
  cudaStreamDestroy(S);
  cudaFree(dRow), cudaFree(dCol), cudaFree(dVal), cudaFree(dB), cudaFree(dX);
}

int main() {
  cusolverDnHandle_t H;
  CS(cusolverDnCreate(&H));
  generic(H);
  CS(cusolverDnDestroy(H));
  sparse();
  return verdict("cusolver_more", Bad);
}
