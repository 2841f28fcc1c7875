// cuBLAS's remaining routines on our libcublas, each against loops here on
// fresh random data: complex symmetric symv/syr/syr2, the level-1 Ex forms
// (asum, iamax, iamin, copy, swap, rot, rotm, rotg, rotmg on half, float and
// complex vectors), gemm3m, CgemmEx on complex int8, CsyrkEx/CherkEx,
// grouped batched GEMM, mixed-precision batched gemv, trttp/tpttr, complex
// batched QR and least squares, _64 forms, the handle's SM-count and
// emulation settings, and cublasXt on host memory. Type and argument rules
// (what is refused) are the ones an H200's cuBLAS showed. Passes on NVIDIA's
// cuBLAS on an H200 too.
#include "blas_common.h"
#include "values_common.h"
#include <cublasXt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <vector>

static int Bad = 0;
static int irnd(int Lo, int Hi) { return std::uniform_int_distribution<int>(Lo, Hi)(Rng); }

using C32 = std::complex<float>;
static std::vector<cuComplex> randC(size_t N) {
  std::vector<cuComplex> V(N);
  for (auto &E : V)
    E = make_cuComplex(float(rnd()), float(rnd()));
  return V;
}
static std::vector<cuDoubleComplex> randZ(size_t N) {
  std::vector<cuDoubleComplex> V(N);
  for (auto &E : V)
    E = make_cuDoubleComplex(rnd(), rnd());
  return V;
}

// --- complex symmetric (not Hermitian) symv, syr, syr2 ------------------------------------------------

static void complexSymmetric(cublasHandle_t H) {
  const int N = 9, Lda = 11;
  for (int Up = 0; Up < 2; ++Up) {
    auto U = Up ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    auto A = randZ(Lda * N), X = randZ(N), Y = randZ(N), Y2 = randZ(2 * N);
    auto Sym = [&](int I, int J) { // the stored triangle, mirrored without conjugation
      bool Stored = Up ? I <= J : I >= J;
      return Stored ? z(A[J * Lda + I]) : z(A[I * Lda + J]);
    };
    cuDoubleComplex Al = make_cuDoubleComplex(0.5, -1.25), Be = make_cuDoubleComplex(0, 0);
    // symv with beta = 0 and NaN in y (not read), y with increment 2.
    for (auto &E : Y2)
      E = make_cuDoubleComplex(NAN, NAN);
    auto DA = dev(A), DX = dev(X), DY = dev(Y2);
    CB(cublasZsymv(H, U, N, &Al, DA, Lda, DX, 1, &Be, DY, 2));
    auto RY = host(DY, 2 * N);
    int Wrong = 0;
    for (int I = 0; I < N; ++I) {
      Z S = 0;
      for (int J = 0; J < N; ++J)
        S += Sym(I, J) * z(X[J]);
      Wrong += !(std::abs(z(RY[2 * I]) - z(Al) * S) < 1e-12);
    }
    // syr2 (64-bit form): A's triangle += alpha (x y^T + y x^T); the other triangle untouched.
    auto DY1 = dev(Y);
    CB(cublasZsyr2_64(H, U, N, &Al, DX, 1, DY1, 1, DA, Lda));
    auto RA = host(DA, Lda * N);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I) {
        bool Stored = Up ? I <= J : I >= J;
        Z Want = z(A[J * Lda + I]) + (Stored ? z(Al) * (z(X[I]) * z(Y[J]) + z(Y[I]) * z(X[J])) : Z(0));
        Wrong += !(std::abs(z(RA[J * Lda + I]) - Want) < 1e-12);
      }
    // Csyr (float): A's triangle += alpha x x^T, x with a negative increment (read from the end).
    auto Ac = randC(Lda * N), Xc = randC(2 * N);
    auto DAc = dev(Ac), DXc = dev(Xc);
    cuComplex Alc = make_cuComplex(-0.75f, 0.5f);
    CB(cublasCsyr(H, U, N, &Alc, DXc, -2, DAc, Lda));
    auto RAc = host(DAc, Lda * N);
    auto xAt = [&](int I) { return z(Xc[2 * (N - 1 - I)]); };
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I) {
        bool Stored = Up ? I <= J : I >= J;
        Z Want = z(Ac[J * Lda + I]) + (Stored ? z(Alc) * xAt(I) * xAt(J) : Z(0));
        Wrong += !(std::abs(z(RAc[J * Lda + I]) - Want) < 1e-5);
      }
    EXPECT(Wrong == 0);
    cudaFree(DA);
    cudaFree(DX);
    cudaFree(DY);
    cudaFree(DY1);
    cudaFree(DAc);
    cudaFree(DXc);
  }
  cuComplex One = make_cuComplex(1, 0);
  EXPECT(cublasCsymv(H, CUBLAS_FILL_MODE_LOWER, 4, &One, nullptr, 3, nullptr, 1, &One, nullptr, 1) ==
         CUBLAS_STATUS_INVALID_VALUE); // lda < n
}

// --- level-1 Ex forms ------------------------------------------------------------------------------

static float h2f(__half V) { return __half2float(V); }

static void level1Ex(cublasHandle_t H) {
  const int N = 37;
  std::vector<__half> Xh(N), Yh(N);
  std::vector<float> Xf(N), Yf(N);
  for (int I = 0; I < N; ++I) {
    Xh[I] = __float2half(float(rnd() * 4));
    Yh[I] = __float2half(float(rnd() * 4));
    Xf[I] = h2f(Xh[I]);
    Yf[I] = h2f(Yh[I]);
  }
  auto DXh = dev(Xh), DYh = dev(Yh);
  // asum of halves into a float result; iamax/iamin (1-based).
  float Asum = 0;
  CB(cublasAsumEx(H, N, DXh, CUDA_R_16F, 1, &Asum, CUDA_R_32F, CUDA_R_32F));
  double WantAsum = 0;
  int Imax = 0, Imin = 0;
  for (int I = 0; I < N; ++I) {
    WantAsum += std::fabs(Xf[I]);
    if (std::fabs(Xf[I]) > std::fabs(Xf[Imax]))
      Imax = I;
    if (std::fabs(Xf[I]) < std::fabs(Xf[Imin]))
      Imin = I;
  }
  EXPECT(std::fabs(Asum - WantAsum) < 1e-3);
  int Ia = -1, Ii = -1;
  CB(cublasIamaxEx(H, N, DXh, CUDA_R_16F, 1, &Ia));
  CB(cublasIaminEx(H, N, DXh, CUDA_R_16F, 1, &Ii));
  EXPECT(Ia == Imax + 1 && Ii == Imin + 1);
  int64_t Ia64 = -1;
  CB(cublasIamaxEx_64(H, N, DXh, CUDA_R_16F, 1, &Ia64));
  EXPECT(Ia64 == Imax + 1);
  // rot on halves in f32: x' = c x + s y, y' = c y - s x, each rounded to half once.
  __half C = __float2half(0.6f), S = __float2half(0.8f);
  CB(cublasRotEx(H, N, DXh, CUDA_R_16F, 1, DYh, CUDA_R_16F, 1, &C, &S, CUDA_R_16F, CUDA_R_32F));
  auto RX = host(DXh, N), RY = host(DYh, N);
  int Wrong = 0;
  float Cf = h2f(C), Sf = h2f(S);
  for (int I = 0; I < N; ++I) {
    float Wx = Cf * Xf[I] + Sf * Yf[I], Wy = Cf * Yf[I] - Sf * Xf[I];
    Wrong += !(std::fabs(h2f(RX[I]) - Wx) <= 4e-3f * std::fmax(1.f, std::fabs(Wx)));
    Wrong += !(std::fabs(h2f(RY[I]) - Wy) <= 4e-3f * std::fmax(1.f, std::fabs(Wy)));
  }
  EXPECT(Wrong == 0);
  // copy and swap (raw elements, a negative increment on y: reversed).
  std::vector<__half> Zero(N, __float2half(0.f));
  auto DZ = dev(Zero);
  CB(cublasCopyEx(H, N, DXh, CUDA_R_16F, 1, DZ, CUDA_R_16F, -1));
  auto RZ = host(DZ, N);
  Wrong = 0;
  for (int I = 0; I < N; ++I)
    Wrong += h2f(RZ[N - 1 - I]) != h2f(RX[I]);
  CB(cublasSwapEx(H, N, DXh, CUDA_R_16F, 1, DYh, CUDA_R_16F, 1));
  auto SX = host(DXh, N), SY = host(DYh, N);
  for (int I = 0; I < N; ++I)
    Wrong += h2f(SX[I]) != h2f(RY[I]) || h2f(SY[I]) != h2f(RX[I]);
  EXPECT(Wrong == 0);
  // rotm (flag -1: the full matrix) on floats, parameters in host memory.
  std::vector<float> X2(N), Y2(N);
  for (int I = 0; I < N; ++I) {
    X2[I] = float(rnd());
    Y2[I] = float(rnd());
  }
  auto DX2 = dev(X2), DY2 = dev(Y2);
  float P[5] = {-1, 0.5f, -0.25f, 2, 1.5f};
  CB(cublasRotmEx(H, N, DX2, CUDA_R_32F, 1, DY2, CUDA_R_32F, 1, P, CUDA_R_32F, CUDA_R_32F));
  auto RX2 = host(DX2, N), RY2 = host(DY2, N);
  Wrong = 0;
  for (int I = 0; I < N; ++I)
    Wrong += std::fabs(RX2[I] - (0.5f * X2[I] + 2 * Y2[I])) > 1e-5f ||
             std::fabs(RY2[I] - (-0.25f * X2[I] + 1.5f * Y2[I])) > 1e-5f;
  EXPECT(Wrong == 0);
  // rotg on doubles in host memory: (3, 4) -> r = 5, c = 0.6, s = 0.8; rotmg's flag and d1 on a simple case.
  double A = 3, B = 4, Cg = 0, Sg = 0;
  CB(cublasRotgEx(H, &A, &B, CUDA_R_64F, &Cg, &Sg, CUDA_R_64F, CUDA_R_64F));
  EXPECT(std::fabs(A - 5) < 1e-12 && std::fabs(Cg - 0.6) < 1e-12 && std::fabs(Sg - 0.8) < 1e-12);
  float D1 = 1, D2 = 1, X1 = 1, Y1 = 0, Pm[5] = {7, 7, 7, 7, 7};
  CB(cublasRotmgEx(H, &D1, CUDA_R_32F, &D2, CUDA_R_32F, &X1, CUDA_R_32F, &Y1, CUDA_R_32F, Pm, CUDA_R_32F,
                   CUDA_R_32F));
  EXPECT(Pm[0] == -2); // y1 = 0: the identity (flag -2)
  // Complex rot with a real c and complex s through RotEx (cs of the vector's type).
  auto Xc = randC(N), Yc = randC(N);
  auto DXc = dev(Xc), DYc = dev(Yc);
  cuComplex Cc = make_cuComplex(0.7f, 0), Sc = make_cuComplex(0.6f, 0.3f);
  CB(cublasRotEx(H, N, DXc, CUDA_C_32F, 1, DYc, CUDA_C_32F, 1, &Cc, &Sc, CUDA_C_32F, CUDA_C_32F));
  auto RXc = host(DXc, N), RYc = host(DYc, N);
  Wrong = 0;
  for (int I = 0; I < N; ++I) {
    Z Xn = 0.7 * z(Xc[I]) + z(Sc) * z(Yc[I]), Yn = 0.7 * z(Yc[I]) - std::conj(z(Sc)) * z(Xc[I]);
    Wrong += std::abs(z(RXc[I]) - Xn) > 1e-5 || std::abs(z(RYc[I]) - Yn) > 1e-5;
  }
  float AsumC = 0;
  CB(cublasAsumEx(H, N, DXc, CUDA_C_32F, 1, &AsumC, CUDA_R_32F, CUDA_C_32F));
  double WantC = 0;
  for (auto V : RXc)
    WantC += std::fabs(V.x) + std::fabs(V.y);
  Wrong += std::fabs(AsumC - WantC) > 1e-3;
  EXPECT(Wrong == 0);
  // Types an H200's cuBLAS refuses: complex half, int8, mixed copies, complex rotg.
  EXPECT(cublasIamaxEx(H, N, DXh, CUDA_C_16F, 1, &Ia) == CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT(cublasCopyEx(H, N, DXh, CUDA_R_16F, 1, DX2, CUDA_R_32F, 1) == CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT(cublasAsumEx(H, N, DXh, CUDA_R_16F, 1, &Asum, CUDA_R_16F, CUDA_R_32F) == CUBLAS_STATUS_NOT_SUPPORTED);
  cuComplex Ca = make_cuComplex(1, 1), Cb2 = make_cuComplex(2, 0), Cs2;
  float Cr;
  EXPECT(cublasRotgEx(H, &Ca, &Cb2, CUDA_C_32F, &Cr, &Cs2, CUDA_C_32F, CUDA_C_32F) == CUBLAS_STATUS_NOT_SUPPORTED);
  for (void *P : {(void *)DXh, (void *)DYh, (void *)DZ, (void *)DX2, (void *)DY2, (void *)DXc, (void *)DYc})
    cudaFree(P);
}

// --- GEMM relatives ----------------------------------------------------------------------------------

/// C = alpha op(A) op(B) + beta C over complex values (A m x k after op).
template <typename GetA, typename GetB>
static std::vector<Z> refGemm(int M, int N, int K, Z Al, GetA A, GetB B, Z Be, const std::vector<Z> &C0, int Ldc) {
  std::vector<Z> C(C0);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      Z S = 0;
      for (int L = 0; L < K; ++L)
        S += A(I, L) * B(L, J);
      C[J * Ldc + I] = Al * S + (Be == Z(0) ? Z(0) : Be * C0[J * Ldc + I]);
    }
  return C;
}

static void gemmRelatives(cublasHandle_t H) {
  int Wrong = 0;
  // Zgemm3m, A conjugate-transposed.
  {
    const int M = 13, N = 7, K = 10;
    auto A = randZ(K * M), B = randZ(K * N), C = randZ(M * N);
    std::vector<Z> C0(M * N);
    for (int I = 0; I < M * N; ++I)
      C0[I] = z(C[I]);
    cuDoubleComplex Al = make_cuDoubleComplex(1.5, -0.5), Be = make_cuDoubleComplex(0.25, 1);
    auto DA = dev(A), DB = dev(B), DC = dev(C);
    CB(cublasZgemm3m(H, CUBLAS_OP_C, CUBLAS_OP_N, M, N, K, &Al, DA, K, DB, K, &Be, DC, M));
    auto R = host(DC, M * N);
    auto Want = refGemm(M, N, K, z(Al), [&](int I, int L) { return std::conj(z(A[I * K + L])); },
                        [&](int L, int J) { return z(B[J * K + L]); }, z(Be), C0, M);
    for (int I = 0; I < M * N; ++I)
      Wrong += std::abs(z(R[I]) - Want[I]) > 1e-10;
    cudaFree(DA);
    cudaFree(DB);
    cudaFree(DC);
  }
  // CgemmEx with complex int8 inputs (exact products) into complex float; beta = 0 over NaN.
  {
    const int M = 8, N = 12, K = 16; // leading dimensions multiples of 4
    std::vector<int8_t> A(2 * M * K), B(2 * K * N);
    for (auto &V : A)
      V = int8_t(irnd(-100, 100));
    for (auto &V : B)
      V = int8_t(irnd(-100, 100));
    std::vector<cuComplex> C(M * N, make_cuComplex(NAN, NAN));
    auto DA = dev(A), DB = dev(B);
    auto DC = dev(C);
    cuComplex Al = make_cuComplex(1, 0), Be = make_cuComplex(0, 0);
    CB(cublasCgemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &Al, DA, CUDA_C_8I, M, DB, CUDA_C_8I, K, &Be, DC,
                     CUDA_C_32F, M));
    auto R = host(DC, M * N);
    std::vector<Z> C0(M * N, 0);
    auto Want = refGemm(M, N, K, 1, [&](int I, int L) { return Z(A[2 * (L * M + I)], A[2 * (L * M + I) + 1]); },
                        [&](int L, int J) { return Z(B[2 * (J * K + L)], B[2 * (J * K + L) + 1]); }, 0, C0, M);
    for (int I = 0; I < M * N; ++I)
      Wrong += z(R[I]) != Want[I];
    // CherkEx: complex int8 is refused (as on an H200, although the reference lists it); complex float A:
    // C's upper triangle = A A^H (real alpha, beta = 0 over NaN).
    std::vector<cuComplex> Ch(M * M, make_cuComplex(NAN, NAN));
    auto DCh = dev(Ch);
    float Ar = 1, Br = 0;
    EXPECT(cublasCherkEx(H, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, M, K, &Ar, DA, CUDA_C_8I, M, &Br, DCh, CUDA_C_32F,
                         M) == CUBLAS_STATUS_NOT_SUPPORTED);
    auto Ah = randC(M * K);
    auto DAh = dev(Ah);
    CB(cublasCherkEx(H, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, M, K, &Ar, DAh, CUDA_C_32F, M, &Br, DCh, CUDA_C_32F, M));
    auto RH = host(DCh, M * M);
    for (int J = 0; J < M; ++J)
      for (int I = 0; I <= J; ++I) {
        Z S = 0;
        for (int L = 0; L < K; ++L)
          S += z(Ah[L * M + I]) * std::conj(z(Ah[L * M + J]));
        Wrong += std::abs(z(RH[J * M + I]) - S) > 1e-4;
      }
    // CsyrkEx with complex float A: C's lower triangle = alpha A A^T + beta C.
    auto Af = randC(M * K), Cs = randC(M * M);
    auto DAf = dev(Af), DCs = dev(Cs);
    cuComplex Als = make_cuComplex(0.5f, 0.25f), Bes = make_cuComplex(-1, 0);
    CB(cublasCsyrkEx(H, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, M, K, &Als, DAf, CUDA_C_32F, M, &Bes, DCs, CUDA_C_32F,
                     M));
    auto RS = host(DCs, M * M);
    for (int J = 0; J < M; ++J)
      for (int I = J; I < M; ++I) {
        Z S = 0;
        for (int L = 0; L < K; ++L)
          S += z(Af[L * M + I]) * z(Af[L * M + J]);
        Wrong += std::abs(z(RS[J * M + I]) - (z(Als) * S + z(Bes) * z(Cs[J * M + I]))) > 1e-4;
      }
    for (void *P : {(void *)DA, (void *)DB, (void *)DC, (void *)DCh, (void *)DAh, (void *)DAf, (void *)DCs})
      cudaFree(P);
  }
  EXPECT(Wrong == 0);
}

// Grouped batched GEMM: two groups of different shapes and transposes, alpha and beta per group.
static void grouped(cublasHandle_t H) {
  const int G = 2;
  cublasOperation_t Ta[G] = {CUBLAS_OP_N, CUBLAS_OP_T}, Tb[G] = {CUBLAS_OP_T, CUBLAS_OP_N};
  int M[G] = {5, 9}, N[G] = {7, 3}, K[G] = {4, 6}, Size[G] = {3, 2};
  int Lda[G] = {M[0], K[1]}, Ldb[G] = {N[0], K[1]}, Ldc[G] = {M[0], M[1] + 2};
  float Al[G] = {1.5f, -1}, Be[G] = {0, 0.5f};
  std::vector<std::vector<float>> A, B, C;
  std::vector<float *> PA, PB, PC;
  int Idx = 0;
  for (int Gi = 0; Gi < G; ++Gi)
    for (int S = 0; S < Size[Gi]; ++S, ++Idx) {
      int Ar = Ta[Gi] == CUBLAS_OP_N ? M[Gi] : K[Gi], Ac = Ta[Gi] == CUBLAS_OP_N ? K[Gi] : M[Gi];
      int Br = Tb[Gi] == CUBLAS_OP_N ? K[Gi] : N[Gi], Bc = Tb[Gi] == CUBLAS_OP_N ? N[Gi] : K[Gi];
      A.emplace_back(size_t(Lda[Gi]) * Ac);
      B.emplace_back(size_t(Ldb[Gi]) * Bc);
      C.emplace_back(size_t(Ldc[Gi]) * N[Gi]);
      for (auto &V : A.back())
        V = float(rnd());
      for (auto &V : B.back())
        V = float(rnd());
      for (auto &V : C.back())
        V = Be[Gi] == 0 ? NAN : float(rnd());
      (void)Ar;
      (void)Br;
      PA.push_back(dev(A.back()));
      PB.push_back(dev(B.back()));
      PC.push_back(dev(C.back()));
    }
  auto DPA = dev(PA), DPB = dev(PB), DPC = dev(PC);
  CB(cublasSgemmGroupedBatched(H, Ta, Tb, M, N, K, Al, (const float *const *)DPA, Lda, (const float *const *)DPB,
                               Ldb, Be, DPC, Ldc, G, Size));
  int Wrong = 0;
  Idx = 0;
  for (int Gi = 0; Gi < G; ++Gi)
    for (int S = 0; S < Size[Gi]; ++S, ++Idx) {
      auto R = host(PC[Idx], C[Idx].size());
      for (int J = 0; J < N[Gi]; ++J)
        for (int I = 0; I < M[Gi]; ++I) {
          double Sum = 0;
          for (int L = 0; L < K[Gi]; ++L) {
            double Av = Ta[Gi] == CUBLAS_OP_N ? A[Idx][L * Lda[Gi] + I] : A[Idx][I * Lda[Gi] + L];
            double Bv = Tb[Gi] == CUBLAS_OP_N ? B[Idx][J * Ldb[Gi] + L] : B[Idx][L * Ldb[Gi] + J];
            Sum += Av * Bv;
          }
          double Want = Al[Gi] * Sum + (Be[Gi] == 0 ? 0 : Be[Gi] * C[Idx][J * Ldc[Gi] + I]);
          Wrong += !(std::fabs(R[J * Ldc[Gi] + I] - Want) < 1e-4);
        }
    }
  EXPECT(Wrong == 0);
  // A bad group (lda < m) is refused before any group runs.
  int BadLda[G] = {1, K[1]};
  EXPECT(cublasSgemmGroupedBatched(H, Ta, Tb, M, N, K, Al, (const float *const *)DPA, BadLda,
                                   (const float *const *)DPB, Ldb, Be, DPC, Ldc, G, Size) ==
         CUBLAS_STATUS_INVALID_VALUE);
  for (size_t I = 0; I < PA.size(); ++I) {
    cudaFree(PA[I]);
    cudaFree(PB[I]);
    cudaFree(PC[I]);
  }
  cudaFree(DPA);
  cudaFree(DPB);
  cudaFree(DPC);
}

// Mixed-precision batched gemv: half A and x with float y (HSS, strided), bfloat16 throughout (TST, arrays).
static void mixedGemv(cublasHandle_t H) {
  const int M = 17, N = 11, Batch = 3, Lda = 19;
  std::vector<__half> A(Lda * N * Batch), X(N * Batch);
  for (auto &V : A)
    V = __float2half(float(rnd()));
  for (auto &V : X)
    V = __float2half(float(rnd()));
  std::vector<float> Y(M * Batch, NAN);
  auto DA = dev(A), DX = dev(X);
  auto DY = dev(Y);
  float Al = 2, Be = 0;
  CB(cublasHSSgemvStridedBatched(H, CUBLAS_OP_N, M, N, &Al, DA, Lda, Lda * N, DX, 1, N, &Be, DY, 1, M, Batch));
  auto R = host(DY, M * Batch);
  int Wrong = 0;
  for (int B = 0; B < Batch; ++B)
    for (int I = 0; I < M; ++I) {
      double S = 0;
      for (int J = 0; J < N; ++J)
        S += double(h2f(A[B * Lda * N + J * Lda + I])) * h2f(X[B * N + J]);
      Wrong += !(std::fabs(R[B * M + I] - 2 * S) < 1e-4);
    }
  // TST transposed: y (n) = alpha A^T x + beta y in bfloat16.
  std::vector<__nv_bfloat16> Ab(Lda * N), Xb(M), Yb(N);
  for (auto &V : Ab)
    V = __float2bfloat16(float(rnd()));
  for (auto &V : Xb)
    V = __float2bfloat16(float(rnd()));
  for (auto &V : Yb)
    V = __float2bfloat16(float(rnd()));
  auto DAb = dev(Ab), DXb = dev(Xb), DYb = dev(Yb);
  std::vector<__nv_bfloat16 *> PA{DAb}, PX{DXb}, PY{DYb};
  auto DPA = dev(PA), DPX = dev(PX), DPY = dev(PY);
  float Be2 = 0.5f;
  CB(cublasTSTgemvBatched(H, CUBLAS_OP_T, M, N, &Al, (const __nv_bfloat16 *const *)DPA, Lda,
                          (const __nv_bfloat16 *const *)DPX, 1, &Be2, DPY, 1, 1));
  auto RB = host(DYb, N);
  for (int J = 0; J < N; ++J) {
    double S = 0;
    for (int I = 0; I < M; ++I)
      S += double(__bfloat162float(Ab[J * Lda + I])) * __bfloat162float(Xb[I]);
    double Want = 2 * S + 0.5 * __bfloat162float(Yb[J]);
    Wrong += !(std::fabs(__bfloat162float(RB[J]) - Want) <= 1e-2 * std::fmax(1.0, std::fabs(Want)));
  }
  EXPECT(Wrong == 0);
  for (void *P : {(void *)DA, (void *)DX, (void *)DY, (void *)DAb, (void *)DXb, (void *)DYb, (void *)DPA,
                  (void *)DPX, (void *)DPY})
    cudaFree(P);
}

// --- packed/full conversions, complex QR and least squares, _64 forms ------------------------------------

static void packing(cublasHandle_t H) {
  const int N = 6, Lda = 8;
  std::vector<double> A(Lda * N);
  for (auto &V : A)
    V = rnd();
  int Wrong = 0;
  for (int Up = 0; Up < 2; ++Up) {
    auto U = Up ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    std::vector<double> P(N * (N + 1) / 2, NAN);
    auto DA = dev(A), DP = dev(P);
    CB(cublasDtrttp(H, U, N, DA, Lda, DP));
    auto RP = host(DP, P.size());
    size_t K = 0;
    for (int J = 0; J < N; ++J)
      for (int I = Up ? 0 : J; I < (Up ? J + 1 : N); ++I, ++K)
        Wrong += RP[K] != A[J * Lda + I];
    // Back into a zeroed full matrix: the triangle returns, the rest stays 0.
    std::vector<double> Zero(Lda * N, 0);
    auto DF = dev(Zero);
    CB(cublasDtpttr(H, U, N, DP, DF, Lda));
    auto RF = host(DF, Lda * N);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I) {
        bool In = Up ? I <= J : I >= J;
        Wrong += RF[J * Lda + I] != (In ? A[J * Lda + I] : 0);
      }
    cudaFree(DA);
    cudaFree(DP);
    cudaFree(DF);
  }
  EXPECT(Wrong == 0);
  EXPECT(cublasDtrttp(H, CUBLAS_FILL_MODE_UPPER, N, nullptr, N - 1, nullptr) == CUBLAS_STATUS_INVALID_VALUE);
  EXPECT(cublasDtrttp(H, CUBLAS_FILL_MODE_FULL, N, nullptr, N, nullptr) == CUBLAS_STATUS_INVALID_VALUE);
}

static void complexQr(cublasHandle_t H) {
  // gelsBatched (complex): overdetermined systems with an exact solution: A x = b for a known x.
  const int M = 9, N = 4, Batch = 2;
  std::vector<std::vector<cuComplex>> A(Batch), Bv(Batch), Xs(Batch);
  std::vector<cuComplex *> PA, PB;
  for (int B = 0; B < Batch; ++B) {
    A[B] = randC(M * N);
    Xs[B] = randC(N);
    Bv[B].resize(M);
    for (int I = 0; I < M; ++I) {
      C32 S = 0;
      for (int J = 0; J < N; ++J)
        S += C32(A[B][J * M + I].x, A[B][J * M + I].y) * C32(Xs[B][J].x, Xs[B][J].y);
      Bv[B][I] = make_cuComplex(S.real(), S.imag());
    }
    PA.push_back(dev(A[B]));
    PB.push_back(dev(Bv[B]));
  }
  auto DPA = dev(PA), DPB = dev(PB);
  std::vector<int> DevInfo0(Batch, -1);
  auto DInfo = dev(DevInfo0);
  int Info = -1;
  CB(cublasCgelsBatched(H, CUBLAS_OP_N, M, N, 1, DPA, M, DPB, M, &Info, DInfo, Batch));
  EXPECT(Info == 0);
  int Wrong = 0;
  auto RI = host(DInfo, Batch);
  for (int B = 0; B < Batch; ++B) {
    auto R = host(PB[B], N);
    for (int J = 0; J < N; ++J)
      Wrong += std::abs(z(R[J]) - z(Xs[B][J])) > 1e-3;
    Wrong += RI[B] != 0;
  }
  // geqrfBatched (double complex): R's diagonal magnitudes are the column norms' QR values: |R11| = ||a1||.
  auto Az = randZ(M * N);
  std::vector<cuDoubleComplex *> PZ{dev(Az)}, PT{dev(randZ(N))};
  auto DPZ = dev(PZ), DPT = dev(PT);
  CB(cublasZgeqrfBatched(H, M, N, DPZ, M, DPT, &Info, 1));
  auto RZ = host(PZ[0], M * N);
  double Norm = 0;
  for (int I = 0; I < M; ++I)
    Norm += std::norm(z(Az[I]));
  Wrong += std::fabs(std::abs(z(RZ[0])) - std::sqrt(Norm)) > 1e-10;
  // |det| of the R factor equals sqrt(det(A^H A)) for the leading 2x2 block: check |R11 R22| against it.
  Z G11 = 0, G12 = 0, G22 = 0;
  for (int I = 0; I < M; ++I) {
    G11 += std::conj(z(Az[I])) * z(Az[I]);
    G12 += std::conj(z(Az[I])) * z(Az[M + I]);
    G22 += std::conj(z(Az[M + I])) * z(Az[M + I]);
  }
  double Det = (G11 * G22 - G12 * std::conj(G12)).real();
  Wrong += std::fabs(std::abs(z(RZ[0])) * std::abs(z(RZ[M + 1])) - std::sqrt(Det)) > 1e-9;
  EXPECT(Wrong == 0);
  for (auto P : PA)
    cudaFree(P);
  for (auto P : PB)
    cudaFree(P);
  cudaFree(PZ[0]);
  cudaFree(PT[0]);
  cudaFree(DPA);
  cudaFree(DPB);
  cudaFree(DPZ);
  cudaFree(DPT);
  cudaFree(DInfo);
}

static void forms64(cublasHandle_t H) {
  // Sgbmv_v2_64 (a band with kl = 2, ku = 1) and Hgemm strided batched _64 against loops.
  const int64_t M = 10, N = 8, Kl = 2, Ku = 1, Lda = Kl + Ku + 2;
  std::vector<float> Band(Lda * N), X(N), Y(M, NAN);
  for (auto &V : Band)
    V = float(rnd());
  for (auto &V : X)
    V = float(rnd());
  auto DA = dev(Band), DX = dev(X), DY = dev(Y);
  float Al = 1, Be = 0;
  CB(cublasSgbmv_64(H, CUBLAS_OP_N, M, N, Kl, Ku, &Al, DA, Lda, DX, 1, &Be, DY, 1));
  auto R = host(DY, M);
  int Wrong = 0;
  for (int64_t I = 0; I < M; ++I) {
    double S = 0;
    for (int64_t J = std::max<int64_t>(0, I - Kl); J <= std::min<int64_t>(N - 1, I + Ku); ++J)
      S += double(Band[J * Lda + Ku + I - J]) * X[J];
    Wrong += !(std::fabs(R[I] - S) < 1e-5);
  }
  const int Mh = 6, Nh = 5, Kh = 4, Batch = 3;
  std::vector<__half> Ah(Mh * Kh * Batch), Bh(Kh * Nh * Batch), Ch(Mh * Nh * Batch);
  for (auto &V : Ah)
    V = __float2half(float(rnd()));
  for (auto &V : Bh)
    V = __float2half(float(rnd()));
  auto DAh = dev(Ah), DBh = dev(Bh), DCh = dev(Ch);
  __half Alh = __float2half(1.f), Beh = __float2half(0.f);
  CB(cublasHgemmStridedBatched_64(H, CUBLAS_OP_N, CUBLAS_OP_N, Mh, Nh, Kh, &Alh, DAh, Mh, Mh * Kh, DBh, Kh, Kh * Nh,
                                  &Beh, DCh, Mh, Mh * Nh, Batch));
  auto RH = host(DCh, Ch.size());
  for (int B = 0; B < Batch; ++B)
    for (int J = 0; J < Nh; ++J)
      for (int I = 0; I < Mh; ++I) {
        double S = 0;
        for (int L = 0; L < Kh; ++L)
          S += double(h2f(Ah[B * Mh * Kh + L * Mh + I])) * h2f(Bh[B * Kh * Nh + J * Kh + L]);
        Wrong += !(std::fabs(h2f(RH[B * Mh * Nh + J * Mh + I]) - S) <= 4e-3 * std::fmax(1.0, std::fabs(S)));
      }
  // Zhpr_v2_64 (upper packed): AP += alpha x x^H.
  const int64_t Np = 5;
  auto Ap = randZ(Np * (Np + 1) / 2), Xz = randZ(Np);
  auto DAp = dev(Ap), DXz = dev(Xz);
  double Ar = 0.75;
  CB(cublasZhpr_64(H, CUBLAS_FILL_MODE_UPPER, Np, &Ar, DXz, 1, DAp));
  auto RP = host(DAp, Ap.size());
  size_t K = 0;
  for (int64_t J = 0; J < Np; ++J)
    for (int64_t I = 0; I <= J; ++I, ++K) {
      Z Want = z(Ap[K]) + Ar * z(Xz[I]) * std::conj(z(Xz[J]));
      if (I == J)
        Want.imag(0); // the diagonal of a Hermitian update is real
      Wrong += std::abs(z(RP[K]) - Want) > 1e-12;
    }
  EXPECT(Wrong == 0);
  for (void *P : {(void *)DA, (void *)DX, (void *)DY, (void *)DAh, (void *)DBh, (void *)DCh, (void *)DAp,
                  (void *)DXz})
    cudaFree(P);
}

// --- handle settings (defaults and checks as an H200's cuBLAS) ----------------------------------------------

static void settings(cublasHandle_t H) {
  int V = -5;
  CB(cublasGetSmCountTarget(H, &V));
  EXPECT(V == 0);
  CB(cublasSetSmCountTarget(H, 1));
  CB(cublasGetSmCountTarget(H, &V));
  EXPECT(V == 1);
  EXPECT(cublasSetSmCountTarget(H, -1) == CUBLAS_STATUS_INVALID_VALUE);
  EXPECT(cublasSetSmCountTarget(H, 1 << 20) == CUBLAS_STATUS_INVALID_VALUE);
  CB(cublasSetSmCountTarget(H, 0));
  cublasEmulationStrategy_t Es = (cublasEmulationStrategy_t)-5;
  CB(cublasGetEmulationStrategy(H, &Es));
  EXPECT(Es == CUBLAS_EMULATION_STRATEGY_DEFAULT);
  EXPECT(cublasSetEmulationStrategy(H, (cublasEmulationStrategy_t)3) == CUBLAS_STATUS_INVALID_VALUE);
  CB(cublasSetEmulationStrategy(H, CUBLAS_EMULATION_STRATEGY_EAGER));
  CB(cublasGetEmulationStrategy(H, &Es));
  EXPECT(Es == CUBLAS_EMULATION_STRATEGY_EAGER);
  cudaEmulationSpecialValuesSupport Sv;
  CB(cublasGetEmulationSpecialValuesSupport(H, &Sv));
  EXPECT(int(Sv) == 0xffff);
  cudaEmulationMantissaControl Mc = (cudaEmulationMantissaControl)-5;
  CB(cublasGetFixedPointEmulationMantissaControl(H, &Mc));
  EXPECT(Mc == CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC);
  EXPECT(cublasSetFixedPointEmulationMantissaControl(H, (cudaEmulationMantissaControl)2) ==
         CUBLAS_STATUS_INVALID_VALUE);
  EXPECT(cublasSetFixedPointEmulationMaxMantissaBitCount(H, -1) == CUBLAS_STATUS_INVALID_VALUE);
  CB(cublasSetFixedPointEmulationMaxMantissaBitCount(H, 40));
  CB(cublasGetFixedPointEmulationMaxMantissaBitCount(H, &V));
  EXPECT(V == 40);
  CB(cublasSetFixedPointEmulationMantissaBitOffset(H, -3));
  CB(cublasGetFixedPointEmulationMantissaBitOffset(H, &V));
  EXPECT(V == -3);
  int *Ptr = (int *)0x1234;
  CB(cublasGetFixedPointEmulationMantissaBitCountPointer(H, &Ptr));
  EXPECT(Ptr == nullptr);
  EXPECT(cublasGetSmCountTarget(H, nullptr) == CUBLAS_STATUS_INVALID_VALUE);
  CB(cublasSetEmulationStrategy(H, CUBLAS_EMULATION_STRATEGY_DEFAULT));
}

// --- cublasXt: host matrices -------------------------------------------------------------------------

static void xt() {
  cublasXtHandle_t X;
  CB(cublasXtCreate(&X));
  int Bd = 0;
  CB(cublasXtGetBlockDim(X, &Bd));
  EXPECT(Bd == 1024);
  EXPECT(cublasXtSetBlockDim(X, 0) == CUBLAS_STATUS_INVALID_VALUE);
  CB(cublasXtSetBlockDim(X, 64));
  cublasXtPinnedMemMode_t Pm;
  CB(cublasXtGetPinningMemMode(X, &Pm));
  EXPECT(Pm == CUBLASXT_PINNING_DISABLED);
  EXPECT(cublasXtSetPinningMemMode(X, (cublasXtPinnedMemMode_t)2) == CUBLAS_STATUS_INVALID_VALUE);
  const int M = 150, N = 70, K = 90; // several 64-blocks
  std::vector<double> A(M * K), B(K * N), C(M * N);
  for (auto &V : A)
    V = rnd();
  for (auto &V : B)
    V = rnd();
  for (auto &V : C)
    V = rnd();
  double Al = 0.5, Be = -2;
  // Nothing runs before the devices are selected.
  EXPECT(cublasXtDgemm(X, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &Al, A.data(), M, B.data(), K, &Be, C.data(), M) ==
         CUBLAS_STATUS_NOT_INITIALIZED);
  int Dev[1] = {0}, BadDev[1] = {1000};
  if (onZluda()) // (NVIDIA's accepts the call and fails the next selection)
    EXPECT(cublasXtDeviceSelect(X, 1, BadDev) == CUBLAS_STATUS_INVALID_VALUE);
  CB(cublasXtDeviceSelect(X, 1, Dev));
  EXPECT(cublasXtDeviceSelect(X, 1, Dev) == CUBLAS_STATUS_INVALID_VALUE); // once
  auto C0 = C;
  CB(cublasXtDgemm(X, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &Al, A.data(), M, B.data(), K, &Be, C.data(), M));
  int Wrong = 0;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      double S = 0;
      for (int L = 0; L < K; ++L)
        S += A[L * M + I] * B[J * K + L];
      Wrong += !(std::fabs(C[J * M + I] - (Al * S + Be * C0[J * M + I])) < 1e-10);
    }
  EXPECT(cublasXtDgemm(X, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &Al, A.data(), M - 1, B.data(), K, &Be, C.data(), M) ==
         CUBLAS_STATUS_INVALID_VALUE);
  // spmm: A symmetric in packed lower storage, on the left (the H200 case: C = [17 23; 28 38]).
  float Ap[3] = {1, 2, 3}, Bs[4] = {5, 6, 7, 8}, Cs[4] = {0, 0, 0, 0}, One = 1, Zero = 0;
  CB(cublasXtSspmm(X, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, 2, 2, &One, Ap, Bs, 2, &Zero, Cs, 2));
  Wrong += Cs[0] != 17 || Cs[1] != 28 || Cs[2] != 23 || Cs[3] != 38;
  // herk (complex, upper, A^H A) and trsm (left, lower, solve then multiply back).
  const int Nh = 20, Kh = 30;
  auto Ac = randC(Kh * Nh);
  std::vector<cuComplex> Ch(Nh * Nh, make_cuComplex(0, 0));
  float Ar = 1, Br = 0;
  CB(cublasXtCherk(X, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_C, Nh, Kh, &Ar, Ac.data(), Kh, &Br, Ch.data(), Nh));
  for (int J = 0; J < Nh; ++J)
    for (int I = 0; I <= J; ++I) {
      Z S = 0;
      for (int L = 0; L < Kh; ++L)
        S += std::conj(z(Ac[I * Kh + L])) * z(Ac[J * Kh + L]);
      Wrong += std::abs(z(Ch[J * Nh + I]) - S) > 1e-4;
    }
  const int Nt = 33, Nr = 5;
  std::vector<double> T(Nt * Nt, 0), Rhs(Nt * Nr);
  for (int J = 0; J < Nt; ++J)
    for (int I = J; I < Nt; ++I)
      T[J * Nt + I] = I == J ? 2 + rnd() : rnd() / Nt;
  for (auto &V : Rhs)
    V = rnd();
  auto Sol = Rhs;
  double OneD = 1;
  CB(cublasXtDtrsm(X, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, Nt, Nr, &OneD,
                   T.data(), Nt, Sol.data(), Nt));
  for (int J = 0; J < Nr; ++J)
    for (int I = 0; I < Nt; ++I) {
      double S = 0;
      for (int L = 0; L <= I; ++L)
        S += T[L * Nt + I] * Sol[J * Nt + L];
      Wrong += !(std::fabs(S - Rhs[J * Nt + I]) < 1e-10);
    }
  EXPECT(Wrong == 0);
  CB(cublasXtSetCpuRatio(X, CUBLASXT_GEMM, CUBLASXT_DOUBLE, 0.5f));
  CB(cublasXtDestroy(X));
  EXPECT(cublasXtCreate(nullptr) == CUBLAS_STATUS_INVALID_VALUE);
}

int main() {
  cublasHandle_t H;
  CB(cublasCreate(&H));
  complexSymmetric(H);
  level1Ex(H);
  gemmRelatives(H);
  grouped(H);
  mixedGemv(H);
  packing(H);
  complexQr(H);
  forms64(H);
  settings(H);
  CB(cublasDestroy(H));
  xt();
  return verdict("cublas_rest", Bad);
}
