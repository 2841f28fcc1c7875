// The legacy cuBLAS API (cublas.h: no handle, characters for the operations,
// scalars by value, results returned, cublasGetError) on our libcublas.
// Passes on NVIDIA's cuBLAS on an H200 too.
#include "common.h"
#include <cublas.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

static int Bad = 0;
using Z = std::complex<double>;
static std::mt19937 Rng2(std::random_device{}());
static double rnd() { return std::uniform_real_distribution<double>(-1, 1)(Rng2); }
template <typename T> static T *up(const std::vector<T> &H) {
  void *D = nullptr;
  cublasAlloc(int(H.size()) + 1, sizeof(T), &D);
  cublasSetVector(int(H.size()), sizeof(T), H.data(), 1, D, 1);
  return static_cast<T *>(D);
}
template <typename T> static std::vector<T> down(const T *D, size_t N) {
  std::vector<T> H(N);
  cublasGetVector(int(N), sizeof(T), D, 1, H.data(), 1);
  return H;
}
static Z z(cuComplex V) { return Z(V.x, V.y); }
static Z z(cuDoubleComplex V) { return Z(V.x, V.y); }
static std::vector<cuComplex> randC(size_t N) {
  std::vector<cuComplex> V(N);
  for (auto &E : V)
    E = make_cuComplex(float(rnd()), float(rnd()));
  return V;
}

// The rest of cublas.h: a routine of each shape against loops here.
static void more() {
  int Wrong = 0;
  const int N = 9, M = 11;
  // Crot (real c, complex s) and Srotg.
  {
    auto X = randC(N), Y = randC(N);
    auto DX = up(X), DY = up(Y);
    cuComplex S = make_cuComplex(0.6f, -0.3f);
    cublasCrot(N, DX, 1, DY, 1, 0.7f, S);
    auto RX = down(DX, N), RY = down(DY, N);
    for (int I = 0; I < N; ++I) {
      Z Xn = 0.7 * z(X[I]) + z(S) * z(Y[I]), Yn = 0.7 * z(Y[I]) - std::conj(z(S)) * z(X[I]);
      Wrong += std::abs(z(RX[I]) - Xn) > 1e-5 || std::abs(z(RY[I]) - Yn) > 1e-5;
    }
    float A = 3, B = 4, C, Sg;
    cublasSrotg(&A, &B, &C, &Sg);
    Wrong += std::fabs(A - 5) > 1e-6 || std::fabs(C - 0.6f) > 1e-6 || std::fabs(Sg - 0.8f) > 1e-6;
    cublasFree(DX);
    cublasFree(DY);
  }
  // Zdotc: a cuDoubleComplex returned by value (in two registers: the trace's stubs keep both).
  {
    std::vector<cuDoubleComplex> X(N), Y(N);
    for (int I = 0; I < N; ++I) {
      X[I] = make_cuDoubleComplex(rnd(), rnd());
      Y[I] = make_cuDoubleComplex(rnd(), rnd());
    }
    auto DX = up(X), DY = up(Y);
    Z Got = z(cublasZdotc(N, DX, 1, DY, 1)), Want = 0;
    for (int I = 0; I < N; ++I)
      Want += std::conj(z(X[I])) * z(Y[I]);
    Wrong += std::abs(Got - Want) > 1e-12;
    cublasFree(DX);
    cublasFree(DY);
  }
  // Dgbmv transposed (kl = 1, ku = 2): y = alpha A^T x + beta y.
  {
    const int Kl = 1, Ku = 2, Lda = Kl + Ku + 1;
    std::vector<double> Band(Lda * N), X(M), Y(N);
    for (auto &V : Band)
      V = rnd();
    for (auto &V : X)
      V = rnd();
    for (auto &V : Y)
      V = rnd();
    auto DA = up(Band), DX = up(X), DY = up(Y);
    cublasDgbmv('t', M, N, Kl, Ku, 2.0, DA, Lda, DX, 1, -1.0, DY, 1);
    auto R = down(DY, N);
    for (int J = 0; J < N; ++J) {
      double S = 0;
      for (int I = std::max(0, J - Ku); I <= std::min(M - 1, J + Kl); ++I)
        S += Band[J * Lda + Ku + I - J] * X[I];
      Wrong += std::fabs(R[J] - (2 * S - Y[J])) > 1e-12;
    }
    cublasFree(DA);
    cublasFree(DX);
    cublasFree(DY);
  }
  // Ctrmv upper, conjugate transposed, unit diagonal: x = A^H x.
  {
    auto A = randC(N * N), X = randC(N);
    auto DA = up(A), DX = up(X);
    cublasCtrmv('U', 'C', 'U', N, DA, N, DX, 1);
    auto R = down(DX, N);
    for (int I = 0; I < N; ++I) {
      Z S = z(X[I]);
      for (int L = 0; L < I; ++L)
        S += std::conj(z(A[I * N + L])) * z(X[L]);
      Wrong += std::abs(z(R[I]) - S) > 1e-5;
    }
    cublasFree(DA);
    cublasFree(DX);
  }
  // Stbsv lower banded (k = 2), then multiply back: A x = b.
  {
    const int K = 2, Lda = K + 1;
    std::vector<float> Band(Lda * N), B(N);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < Lda; ++I)
        Band[J * Lda + I] = I == 0 ? float(2 + rnd()) : float(rnd() / 4);
    for (auto &V : B)
      V = float(rnd());
    auto DA = up(Band), DX = up(B);
    cublasStbsv('L', 'N', 'N', N, K, DA, Lda, DX, 1);
    auto Xs = down(DX, N);
    for (int I = 0; I < N; ++I) {
      double S = 0;
      for (int J = std::max(0, I - K); J <= I; ++J)
        S += double(Band[J * Lda + I - J]) * Xs[J];
      Wrong += std::fabs(S - B[I]) > 1e-5;
    }
    cublasFree(DA);
    cublasFree(DX);
  }
  // Dspmv (upper packed) and Chemv (lower): y = alpha A x + beta y.
  {
    std::vector<double> Ap(N * (N + 1) / 2), X(N), Y(N);
    for (auto &V : Ap)
      V = rnd();
    for (auto &V : X)
      V = rnd();
    for (auto &V : Y)
      V = rnd();
    auto DA = up(Ap), DX = up(X), DY = up(Y);
    cublasDspmv('U', N, 1.5, DA, DX, 1, 0.5, DY, 1);
    auto R = down(DY, N);
    auto At = [&](int I, int J) { return I <= J ? Ap[I + J * (J + 1) / 2] : Ap[J + I * (I + 1) / 2]; };
    for (int I = 0; I < N; ++I) {
      double S = 0;
      for (int J = 0; J < N; ++J)
        S += At(I, J) * X[J];
      Wrong += std::fabs(R[I] - (1.5 * S + 0.5 * Y[I])) > 1e-12;
    }
    auto Ac = randC(N * N), Xc = randC(N), Yc = randC(N);
    auto DAc = up(Ac), DXc = up(Xc), DYc = up(Yc);
    cuComplex Al = make_cuComplex(1, 0.5f), Be = make_cuComplex(0, 0);
    cublasChemv('L', N, Al, DAc, N, DXc, 1, Be, DYc, 1);
    auto Rc = down(DYc, N);
    for (int I = 0; I < N; ++I) {
      Z S = 0;
      for (int J = 0; J < N; ++J) {
        Z Aij = I > J ? z(Ac[J * N + I]) : I < J ? std::conj(z(Ac[I * N + J])) : Z(Ac[I * N + I].x, 0);
        S += Aij * z(Xc[J]);
      }
      Wrong += std::abs(z(Rc[I]) - z(Al) * S) > 1e-4;
    }
    for (void *P : {(void *)DA, (void *)DX, (void *)DY, (void *)DAc, (void *)DXc, (void *)DYc})
      cublasFree(P);
  }
  // Cgerc: A += alpha x y^H; Zher (upper): A += alpha x x^H.
  {
    auto A = randC(M * N), X = randC(M), Y = randC(N);
    auto DA = up(A), DX = up(X), DY = up(Y);
    cuComplex Al = make_cuComplex(-0.5f, 1);
    cublasCgerc(M, N, Al, DX, 1, DY, 1, DA, M);
    auto R = down(DA, M * N);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I)
        Wrong += std::abs(z(R[J * M + I]) - (z(A[J * M + I]) + z(Al) * z(X[I]) * std::conj(z(Y[J])))) > 1e-5;
    cublasFree(DA);
    cublasFree(DX);
    cublasFree(DY);
  }
  // Cherk (upper, A^H A), Dsyr2k (lower), Strmm in place (left, lower, unit), Chemm (left, lower).
  {
    const int K = 7;
    auto A = randC(K * N);
    std::vector<cuComplex> C(N * N, make_cuComplex(0, 0));
    auto DA = up(A), DC = up(C);
    cublasCherk('U', 'C', N, K, 1.0f, DA, K, 0.0f, DC, N);
    auto R = down(DC, N * N);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I <= J; ++I) {
        Z S = 0;
        for (int L = 0; L < K; ++L)
          S += std::conj(z(A[I * K + L])) * z(A[J * K + L]);
        Wrong += std::abs(z(R[J * N + I]) - S) > 1e-4;
      }
    std::vector<double> Ad(N * K), Bd(N * K), Cd(N * N);
    for (auto &V : Ad)
      V = rnd();
    for (auto &V : Bd)
      V = rnd();
    for (auto &V : Cd)
      V = rnd();
    auto DAd = up(Ad), DBd = up(Bd), DCd = up(Cd);
    cublasDsyr2k('L', 'N', N, K, 0.5, DAd, N, DBd, N, 2.0, DCd, N);
    auto Rd = down(DCd, N * N);
    for (int J = 0; J < N; ++J)
      for (int I = J; I < N; ++I) {
        double S = 0;
        for (int L = 0; L < K; ++L)
          S += Ad[L * N + I] * Bd[L * N + J] + Bd[L * N + I] * Ad[L * N + J];
        Wrong += std::fabs(Rd[J * N + I] - (0.5 * S + 2 * Cd[J * N + I])) > 1e-12;
      }
    std::vector<float> T(N * N), B(N * K);
    for (auto &V : T)
      V = float(rnd());
    for (auto &V : B)
      V = float(rnd());
    auto DT = up(T), DB = up(B);
    cublasStrmm('L', 'L', 'N', 'U', N, K, 2.0f, DT, N, DB, N);
    auto Rb = down(DB, N * K);
    for (int J = 0; J < K; ++J)
      for (int I = 0; I < N; ++I) {
        double S = B[J * N + I];
        for (int L = 0; L < I; ++L)
          S += double(T[L * N + I]) * B[J * N + L];
        Wrong += std::fabs(Rb[J * N + I] - 2 * S) > 1e-5;
      }
    auto Ah = randC(N * N), Bh = randC(N * K);
    std::vector<cuComplex> Ch(N * K, make_cuComplex(0, 0));
    auto DAh = up(Ah), DBh = up(Bh), DCh = up(Ch);
    cublasChemm('L', 'L', N, K, make_cuComplex(1, 0), DAh, N, DBh, N, make_cuComplex(0, 0), DCh, N);
    auto Rh = down(DCh, N * K);
    for (int J = 0; J < K; ++J)
      for (int I = 0; I < N; ++I) {
        Z S = 0;
        for (int L = 0; L < N; ++L) {
          Z Ail = I > L ? z(Ah[L * N + I]) : I < L ? std::conj(z(Ah[I * N + L])) : Z(Ah[I * N + I].x, 0);
          S += Ail * z(Bh[J * N + L]);
        }
        Wrong += std::abs(z(Rh[J * N + I]) - S) > 1e-4;
      }
    for (void *P : {(void *)DA, (void *)DC, (void *)DAd, (void *)DBd, (void *)DCd, (void *)DT, (void *)DB,
                    (void *)DAh, (void *)DBh, (void *)DCh})
      cublasFree(P);
  }
  EXPECT(Wrong == 0);
  EXPECT(cublasGetError() == CUBLAS_STATUS_SUCCESS);
  // An invalid character in one of them is kept for cublasGetError too.
  cublasStrmv('x', 'N', 'N', N, nullptr, N, nullptr, 1);
  EXPECT(cublasGetError() == CUBLAS_STATUS_INVALID_VALUE);
}

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
  more();
  EXPECT(cublasFree(DA) == CUBLAS_STATUS_SUCCESS);
  cublasFree(DB);
  cublasFree(DC);
  EXPECT(cublasShutdown() == CUBLAS_STATUS_SUCCESS);
  return verdict("cublas_legacy", Bad);
}
