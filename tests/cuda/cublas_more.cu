// The less used cuBLAS routines on our libcublas: Givens rotations (rot,
// rotg, rotm), rank-1 updates (syr, her), packed and banded level 2 (spmv,
// gbmv, tbsv, tpmv), batched gemv, syrkx/herkx and the level-1 Ex forms (half vectors),
// against loops here on fresh random
// data (packed and banded matrices expanded to dense ones for the check).
// Passes on NVIDIA's cuBLAS on an H200 too.
#include "blas_common.h"
#include <cuda_fp16.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

static int Bad = 0;
static std::mt19937 Rng(std::random_device{}());
static double rnd() { return std::uniform_real_distribution<double>(-1, 1)(Rng); }

static void rotations(cublasHandle_t H) {
  const int N = 50;
  std::vector<float> X(N), Y(N);
  for (int I = 0; I < N; ++I) {
    X[I] = float(rnd());
    Y[I] = float(rnd());
  }
  float *DX = dev(X), *DY = dev(Y), C = 0.6f, S = 0.8f;
  CB(cublasSrot(H, N, DX, 1, DY, 1, &C, &S));
  auto RX = host(DX, N), RY = host(DY, N);
  int Wrong = 0;
  for (int I = 0; I < N; ++I)
    Wrong += std::fabs(RX[I] - (C * X[I] + S * Y[I])) > 1e-6 || std::fabs(RY[I] - (C * Y[I] - S * X[I])) > 1e-6;
  // rotg: (3, 4) -> r = 5, c = 0.6, s = 0.8.
  float A = 3, B = 4, Cg, Sg;
  CB(cublasSrotg(H, &A, &B, &Cg, &Sg));
  Wrong += std::fabs(A - 5) > 1e-6 || std::fabs(Cg - 0.6f) > 1e-6 || std::fabs(Sg - 0.8f) > 1e-6;
  // rotm with flag -1: the full 2x2 matrix [h11 h12; h21 h22].
  std::vector<double> Xd(N), Yd(N);
  for (int I = 0; I < N; ++I) {
    Xd[I] = rnd();
    Yd[I] = rnd();
  }
  double *DXd = dev(Xd), *DYd = dev(Yd), Param[5] = {-1, 0.5, -0.25, 2, 1.5}; // flag, h11, h21, h12, h22
  CB(cublasDrotm(H, N, DXd, 1, DYd, 1, Param));
  auto RXd = host(DXd, N), RYd = host(DYd, N);
  for (int I = 0; I < N; ++I)
    Wrong += std::fabs(RXd[I] - (0.5 * Xd[I] + 2 * Yd[I])) > 1e-12 ||
             std::fabs(RYd[I] - (-0.25 * Xd[I] + 1.5 * Yd[I])) > 1e-12;
  // Complex x, y with a complex s: x' = c x + s y, y' = c y - conj(s) x.
  std::vector<cuComplex> Xc(N), Yc(N);
  for (int I = 0; I < N; ++I) {
    Xc[I] = make_cuComplex(float(rnd()), float(rnd()));
    Yc[I] = make_cuComplex(float(rnd()), float(rnd()));
  }
  cuComplex *DXc = dev(Xc), *DYc = dev(Yc), Sc = make_cuComplex(0.6f, 0.3f);
  float Cc = 0.7f;
  CB(cublasCrot(H, N, DXc, 1, DYc, 1, &Cc, &Sc));
  auto RXc = host(DXc, N), RYc = host(DYc, N);
  std::complex<float> Sv(Sc.x, Sc.y);
  for (int I = 0; I < N; ++I) {
    std::complex<float> Xv(Xc[I].x, Xc[I].y), Yv(Yc[I].x, Yc[I].y);
    std::complex<float> Xn = Cc * Xv + Sv * Yv, Yn = Cc * Yv - std::conj(Sv) * Xv;
    Wrong += std::abs(std::complex<float>(RXc[I].x, RXc[I].y) - Xn) > 1e-5 ||
             std::abs(std::complex<float>(RYc[I].x, RYc[I].y) - Yn) > 1e-5;
  }
  EXPECT(Wrong == 0);
  cudaFree(DX);
  cudaFree(DY);
  cudaFree(DXd);
  cudaFree(DYd);
  cudaFree(DXc);
  cudaFree(DYc);
}

// Packed (column-major, upper or lower) and banded storage expanded to dense.
static double packedAt(const std::vector<double> &Ap, int N, bool Lower, int I, int J) {
  if (Lower ? I < J : I > J)
    std::swap(I, J); // symmetric
  return Lower ? Ap[size_t(I) + size_t(J) * (2 * N - J - 1) / 2] : Ap[size_t(I) + size_t(J) * (J + 1) / 2];
}

static void packedBanded(cublasHandle_t H) {
  const int N = 9;
  int Wrong = 0;
  for (auto Uplo : {CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER}) {
    bool Lower = Uplo == CUBLAS_FILL_MODE_LOWER;
    std::vector<double> Ap(N * (N + 1) / 2), X(N), Y(N, NAN);
    for (auto &V : Ap)
      V = rnd();
    for (auto &V : X)
      V = rnd();
    double *DAp = dev(Ap), *DX = dev(X), *DY = dev(std::vector<double>(N, 0.0)), One = 1, Zero = 0;
    CB(cublasDspmv(H, Uplo, N, &One, DAp, DX, 1, &Zero, DY, 1));
    auto R = host(DY, N);
    for (int I = 0; I < N; ++I) {
      double S = 0;
      for (int J = 0; J < N; ++J)
        S += packedAt(Ap, N, Lower, I, J) * X[J];
      Wrong += std::fabs(R[I] - S) > 1e-12;
    }
    // tpmv: x = tri(Ap) x (non-unit, not transposed).
    CB(cublasDtpmv(H, Uplo, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, N, DAp, DX, 1));
    R = host(DX, N);
    for (int I = 0; I < N; ++I) {
      double S = 0;
      for (int J = Lower ? 0 : I; Lower ? J <= I : J < N; ++J)
        S += packedAt(Ap, N, Lower, I, J) * X[J];
      Wrong += std::fabs(R[I] - S) > 1e-12;
    }
    cudaFree(DAp);
    cudaFree(DX);
    cudaFree(DY);
  }
  // gbmv: a band with kl = 2 below and ku = 1 above the diagonal, 11 x 8, transposed.
  const int M = 11, Nc = 8, Kl = 2, Ku = 1, Lda = Kl + Ku + 2;
  std::vector<double> Ab(Lda * Nc), Xg(M), Yg(Nc);
  for (auto &V : Ab)
    V = rnd();
  for (auto &V : Xg)
    V = rnd();
  for (auto &V : Yg)
    V = rnd();
  auto band = [&](int I, int J) { // A(i, j) from the band storage
    return (I - J > Kl || J - I > Ku) ? 0.0 : Ab[size_t(J) * Lda + Ku + I - J];
  };
  double *DAb = dev(Ab), *DXg = dev(Xg), *DYg = dev(Yg), Alpha = 1.5, Beta = -1;
  CB(cublasDgbmv(H, CUBLAS_OP_T, M, Nc, Kl, Ku, &Alpha, DAb, Lda, DXg, 1, &Beta, DYg, 1));
  auto Rg = host(DYg, Nc);
  for (int J = 0; J < Nc; ++J) {
    double S = 0;
    for (int I = 0; I < M; ++I)
      S += band(I, J) * Xg[I];
    Wrong += std::fabs(Rg[J] - (Alpha * S + Beta * Yg[J])) > 1e-12;
  }
  // tbsv: solve an upper band (k = 2) system and multiply back.
  const int Nt = 10, K = 2, Ldt = K + 1;
  std::vector<double> T(Ldt * Nt), B(Nt);
  for (auto &V : T)
    V = rnd() * 0.3;
  for (int J = 0; J < Nt; ++J)
    T[size_t(J) * Ldt + K] = 2 + rnd() * 0.1; // the diagonal
  for (auto &V : B)
    V = rnd();
  double *DT = dev(T), *DB = dev(B);
  CB(cublasDtbsv(H, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, Nt, K, DT, Ldt, DB, 1));
  auto Xs = host(DB, Nt);
  for (int I = 0; I < Nt; ++I) {
    double S = 0;
    for (int J = I; J <= std::min(Nt - 1, I + K); ++J)
      S += T[size_t(J) * Ldt + K + I - J] * Xs[J];
    Wrong += std::fabs(S - B[I]) > 1e-12;
  }
  EXPECT(Wrong == 0);
  cudaFree(DAb);
  cudaFree(DXg);
  cudaFree(DYg);
  cudaFree(DT);
  cudaFree(DB);
}

static void rankOneAndBatched(cublasHandle_t H) {
  // syr (lower): A += alpha x x^T on the lower triangle only.
  const int N = 7, Lda = 9;
  std::vector<float> A(Lda * N), X(N);
  for (auto &V : A)
    V = float(rnd());
  for (auto &V : X)
    V = float(rnd());
  float *DA = dev(A), *DX = dev(X), Alpha = 0.5f;
  CB(cublasSsyr(H, CUBLAS_FILL_MODE_LOWER, N, &Alpha, DX, 1, DA, Lda));
  auto R = host(DA, A.size());
  int Wrong = 0;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I)
      Wrong += std::fabs(R[J * Lda + I] - (A[J * Lda + I] + (I >= J ? Alpha * X[I] * X[J] : 0))) > 1e-6;
  // her (upper): A += alpha x x^H; the diagonal's imaginary parts become 0.
  std::vector<cuDoubleComplex> Ac(N * N), Xc(N);
  for (auto &V : Ac)
    V = make_cuDoubleComplex(rnd(), rnd());
  for (auto &V : Xc)
    V = make_cuDoubleComplex(rnd(), rnd());
  cuDoubleComplex *DAc = dev(Ac), *DXc = dev(Xc);
  double Ah = 2;
  CB(cublasZher(H, CUBLAS_FILL_MODE_UPPER, N, &Ah, DXc, 1, DAc, N));
  auto Rc = host(DAc, Ac.size());
  for (int J = 0; J < N; ++J)
    for (int I = 0; I <= J; ++I) {
      std::complex<double> Want = std::complex<double>(Ac[J * N + I].x, Ac[J * N + I].y) +
                                  Ah * std::complex<double>(Xc[I].x, Xc[I].y) *
                                      std::conj(std::complex<double>(Xc[J].x, Xc[J].y));
      if (I == J)
        Want = std::complex<double>(Want.real(), 0);
      Wrong += std::abs(std::complex<double>(Rc[J * N + I].x, Rc[J * N + I].y) - Want) > 1e-12;
    }
  // gemv, strided batched and over pointer arrays.
  const int M = 6, Nn = 5, Count = 4;
  std::vector<double> Ab(M * Nn * Count), Xb(Nn * Count), Yb(M * Count, NAN);
  for (auto &V : Ab)
    V = rnd();
  for (auto &V : Xb)
    V = rnd();
  double *DAb = dev(Ab), *DXb = dev(Xb), *DYb = dev(std::vector<double>(M * Count, 0.0)), One = 1, Zero = 0;
  CB(cublasDgemvStridedBatched(H, CUBLAS_OP_N, M, Nn, &One, DAb, M, M * Nn, DXb, 1, Nn, &Zero, DYb, 1, M, Count));
  auto Ry = host(DYb, M * Count);
  for (int C = 0; C < Count; ++C)
    for (int I = 0; I < M; ++I) {
      double S = 0;
      for (int J = 0; J < Nn; ++J)
        S += Ab[C * M * Nn + J * M + I] * Xb[C * Nn + J];
      Wrong += std::fabs(Ry[C * M + I] - S) > 1e-12;
    }
  std::vector<const double *> PA(Count), PX(Count);
  std::vector<double *> PY(Count);
  for (int C = 0; C < Count; ++C) {
    PA[C] = DAb + C * M * Nn;
    PX[C] = DXb + (Count - 1 - C) * Nn;
    PY[C] = DYb + C * M;
  }
  const double **DPA = dev(PA), **DPX = dev(PX);
  double **DPY = dev(PY);
  CB(cublasDgemvBatched(H, CUBLAS_OP_N, M, Nn, &One, DPA, M, DPX, 1, &Zero, DPY, 1, Count));
  Ry = host(DYb, M * Count);
  for (int C = 0; C < Count; ++C)
    for (int I = 0; I < M; ++I) {
      double S = 0;
      for (int J = 0; J < Nn; ++J)
        S += Ab[C * M * Nn + J * M + I] * Xb[(Count - 1 - C) * Nn + J];
      Wrong += std::fabs(Ry[C * M + I] - S) > 1e-12;
    }
  EXPECT(Wrong == 0);
  for (void *P : {(void *)DA, (void *)DX, (void *)DAc, (void *)DXc, (void *)DAb, (void *)DXb, (void *)DYb,
                  (void *)DPA, (void *)DPX, (void *)DPY})
    cudaFree(P);
}

// syrkx and herkx: C's triangle = alpha op(A) op(B)^T (^H) + beta C; the
// other triangle is not touched.
static void rankKx(cublasHandle_t H) {
  const int N = 7, K = 5, Lda = 9, Ldb = 8, Ldc = 10;
  std::vector<double> A(Lda * K), B(Ldb * K), C(Ldc * N);
  for (auto *V : {&A, &B, &C})
    for (auto &X : *V)
      X = rnd();
  double *DA = dev(A), *DB = dev(B), *DC = dev(C), Al = 0.75, Be = 0.5;
  CB(cublasDsyrkx(H, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, N, K, &Al, DA, Lda, DB, Ldb, &Be, DC, Ldc));
  auto R = host(DC, C.size());
  int Wrong = 0;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < Ldc; ++I) {
      double Want = C[J * Ldc + I];
      if (I < N && I >= J) {
        double S = 0;
        for (int L = 0; L < K; ++L)
          S += A[L * Lda + I] * B[L * Ldb + J];
        Want = Al * S + Be * Want;
      }
      Wrong += std::fabs(R[J * Ldc + I] - Want) > 1e-12;
    }
  // herkx, upper, op = conjugate transpose (A and B are k x n).
  using Z = std::complex<double>;
  std::vector<cuDoubleComplex> Ac(K * N), Bc(K * N), Cc(N * N);
  for (auto *V : {&Ac, &Bc, &Cc})
    for (auto &X : *V)
      X = make_cuDoubleComplex(rnd(), rnd());
  cuDoubleComplex *DAc = dev(Ac), *DBc = dev(Bc), *DCc = dev(Cc), Alc = make_cuDoubleComplex(0.5, -0.25);
  double Ber = 1.5;
  CB(cublasZherkx(H, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_C, N, K, &Alc, DAc, K, DBc, K, &Ber, DCc, N));
  auto Rc = host(DCc, Cc.size());
  auto z = [](cuDoubleComplex V) { return Z(V.x, V.y); };
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I) {
      Z Want = z(Cc[J * N + I]);
      if (I <= J) {
        Z S = 0;
        for (int L = 0; L < K; ++L)
          S += std::conj(z(Ac[I * K + L])) * z(Bc[J * K + L]);
        Want = z(Alc) * S + Ber * Want;
        if (I == J) // the diagonal's imaginary parts become 0, as herk's (NVIDIA's cuBLAS on an H200)
          Want = Z(Want.real(), 0);
      }
      if (std::abs(z(Rc[J * N + I]) - Want) > 1e-12) {
        if (Wrong < 4)
          std::printf("herkx (%d, %d): %g%+gi, want %g%+gi\n", I, J, Rc[J * N + I].x, Rc[J * N + I].y, Want.real(),
                      Want.imag());
        ++Wrong;
      }
    }
  EXPECT(Wrong == 0);
  for (void *P : {(void *)DA, (void *)DB, (void *)DC, (void *)DAc, (void *)DBc, (void *)DCc})
    cudaFree(P);
}

// The Ex forms: half vectors with f32 execution; complex ones (a real alpha is
// refused for them, as NVIDIA's cuBLAS does).
static void exForms(cublasHandle_t H) {
  const int N = 300;
  std::vector<__half> X(N), Y(N);
  for (auto &V : X)
    V = __float2half(float(rnd()));
  for (auto &V : Y)
    V = __float2half(float(rnd()));
  __half *DX = dev(X), *DY = dev(Y);
  __half R;
  CB(cublasDotEx(H, N, DX, CUDA_R_16F, 1, DY, CUDA_R_16F, 1, &R, CUDA_R_16F, CUDA_R_32F));
  double Want = 0, Mag = 0;
  for (int I = 0; I < N; ++I) {
    Want += double(__half2float(X[I])) * __half2float(Y[I]);
    Mag += std::fabs(double(__half2float(X[I])) * __half2float(Y[I]));
  }
  int Wrong = std::fabs(__half2float(R) - Want) > 1e-5 * Mag + std::fabs(Want) / 1024;
  float Alpha = 0.5f;
  CB(cublasAxpyEx(H, N, &Alpha, CUDA_R_32F, DX, CUDA_R_16F, 1, DY, CUDA_R_16F, 1, CUDA_R_32F));
  auto RY = host(DY, N);
  for (int I = 0; I < N; ++I) {
    float W = __half2float(__float2half(__half2float(Y[I]) + 0.5f * __half2float(X[I])));
    Wrong += __half2float(RY[I]) != W;
  }
  std::vector<cuComplex> Z(N);
  double Sq = 0;
  for (auto &V : Z) {
    V = make_cuComplex(float(rnd()), float(rnd()));
    Sq += double(V.x) * V.x + double(V.y) * V.y;
  }
  cuComplex *DZ = dev(Z);
  float Nrm = 0;
  CB(cublasNrm2Ex(H, N, DZ, CUDA_C_32F, 1, &Nrm, CUDA_R_32F, CUDA_R_32F));
  Wrong += std::fabs(Nrm - std::sqrt(Sq)) > 1e-5 * std::sqrt(Sq);
  float Two = 2;
  EXPECT(cublasScalEx(H, N, &Two, CUDA_R_32F, DZ, CUDA_C_32F, 1, CUDA_C_32F) == CUBLAS_STATUS_NOT_SUPPORTED);
  cuComplex TwoC = make_cuComplex(2, 0);
  CB(cublasScalEx(H, N, &TwoC, CUDA_C_32F, DZ, CUDA_C_32F, 1, CUDA_C_32F));
  auto RZ = host(DZ, N);
  for (int I = 0; I < N; ++I)
    Wrong += RZ[I].x != 2 * Z[I].x || RZ[I].y != 2 * Z[I].y;
  EXPECT(Wrong == 0);
  cudaFree(DX);
  cudaFree(DY);
  cudaFree(DZ);
}

int main() {
  cublasHandle_t H;
  CB(cublasCreate(&H));
  rotations(H);
  packedBanded(H);
  rankOneAndBatched(H);
  rankKx(H);
  exForms(H);
  CB(cublasDestroy(H));
  return verdict("cublas_more", Bad);
}
