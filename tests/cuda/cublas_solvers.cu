// cuBLAS level 2/3 extras and batched LU on our libcublas: trsm (and
// batched), trmm, syrk, herk, symm, ger, symv, trsv, getrf/getrs/getri/
// matinv batched, with and without pivoting, geqrf and gels batched. Each result is checked by what
// it must satisfy (op(A) X = alpha B for trsm, A X = B for getrs, A A^-1 = I)
// or against naive loops here, on fresh random data.
#include "blas_common.h"

#include <cmath>
#include <complex>
#include <random>
#include <vector>

static int Bad = 0;
static std::mt19937 Rng(std::random_device{}());

static double rnd() { return std::uniform_real_distribution<double>(-1, 1)(Rng); }

/// A well-conditioned triangular (or general) N x N matrix: a dominant diagonal.
static std::vector<double> dominant(int N, int Ld) {
  std::vector<double> A(size_t(Ld) * N);
  for (auto &V : A)
    V = rnd();
  for (int I = 0; I < N; ++I)
    A[size_t(I) * Ld + I] = N + 1 + rnd();
  return A;
}

static void trsmTrmm(cublasHandle_t H) {
  for (auto Side : {CUBLAS_SIDE_LEFT, CUBLAS_SIDE_RIGHT})
    for (auto Uplo : {CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER})
      for (auto Op : {CUBLAS_OP_N, CUBLAS_OP_T}) {
        int M = 9 + Rng() % 9, N = 7 + Rng() % 9, K = Side == CUBLAS_SIDE_LEFT ? M : N, Lda = K + 2, Ldb = M + 1;
        std::vector<double> A = dominant(K, Lda), B(size_t(Ldb) * N);
        for (auto &V : B)
          V = rnd();
        double Alpha = 0.5 + rnd();
        double *DA = dev(A), *DB = dev(B), *DC;
        CHECK(cudaMalloc(&DC, B.size() * 8));
        // trmm: C = alpha op(tri(A)) B, out of place.
        CB(cublasDtrmm(H, Side, Uplo, Op, CUBLAS_DIAG_NON_UNIT, M, N, &Alpha, DA, Lda, DB, Ldb, DC, Ldb));
        auto tri = [&](int I, int J) { // op(tri(A))(i, j)
          int R = Op == CUBLAS_OP_N ? I : J, C = Op == CUBLAS_OP_N ? J : I;
          bool In = Uplo == CUBLAS_FILL_MODE_LOWER ? R >= C : R <= C;
          return In ? A[size_t(C) * Lda + R] : 0.0;
        };
        auto Cm = host(DC, B.size());
        int Wrong = 0;
        for (int J = 0; J < N; ++J)
          for (int I = 0; I < M; ++I) {
            double S = 0;
            for (int L = 0; L < K; ++L)
              S += Side == CUBLAS_SIDE_LEFT ? tri(I, L) * B[size_t(J) * Ldb + L] : B[size_t(L) * Ldb + I] * tri(L, J);
            Wrong += std::fabs(Cm[size_t(J) * Ldb + I] - Alpha * S) > 1e-12 * (1 + std::fabs(S));
          }
        // trsm: X with op(tri(A)) X = alpha B (or X op(tri(A)) = alpha B), in place on B.
        CB(cublasDtrsm(H, Side, Uplo, Op, CUBLAS_DIAG_NON_UNIT, M, N, &Alpha, DA, Lda, DB, Ldb));
        auto X = host(DB, B.size());
        for (int J = 0; J < N; ++J)
          for (int I = 0; I < M; ++I) {
            double S = 0;
            for (int L = 0; L < K; ++L)
              S += Side == CUBLAS_SIDE_LEFT ? tri(I, L) * X[size_t(J) * Ldb + L] : X[size_t(L) * Ldb + I] * tri(L, J);
            Wrong += std::fabs(S - Alpha * B[size_t(J) * Ldb + I]) > 1e-10;
          }
        EXPECT(Wrong == 0);
        cudaFree(DA);
        cudaFree(DB);
        cudaFree(DC);
      }
  // Batched trsm (float), lower, unit diagonal: each system checked.
  const int M = 6, N = 3, Count = 4;
  std::vector<float> A(M * M * Count), B(M * N * Count);
  for (auto &V : A)
    V = float(rnd() * 0.3);
  for (auto &V : B)
    V = float(rnd());
  float *DA = dev(A), *DB = dev(B);
  std::vector<const float *> PA(Count);
  std::vector<float *> PB(Count);
  for (int I = 0; I < Count; ++I) {
    PA[I] = DA + I * M * M;
    PB[I] = DB + I * M * N;
  }
  const float **DPA = dev(PA);
  float **DPB = dev(PB);
  float One = 1;
  CB(cublasStrsmBatched(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, M, N, &One, DPA, M,
                        DPB, M, Count));
  auto X = host(DB, B.size());
  int Wrong = 0;
  for (int C = 0; C < Count; ++C)
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I) {
        double S = X[C * M * N + J * M + I]; // unit diagonal
        for (int L = 0; L < I; ++L)
          S += A[C * M * M + L * M + I] * X[C * M * N + J * M + L];
        Wrong += std::fabs(S - B[C * M * N + J * M + I]) > 1e-4;
      }
  EXPECT(Wrong == 0);
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DPA);
  cudaFree(DPB);
}

static void rankAndSymmetric(cublasHandle_t H) {
  // syrk: C(lower) = alpha A A^T + beta C; the upper triangle is untouched.
  int N = 11, K = 7, Lda = N + 1, Ldc = N + 2;
  std::vector<double> A(size_t(Lda) * K), C(size_t(Ldc) * N);
  for (auto &V : A)
    V = rnd();
  for (auto &V : C)
    V = rnd();
  double Alpha = 1.25, Beta = -0.5;
  double *DA = dev(A), *DC = dev(C);
  CB(cublasDsyrk(H, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, N, K, &Alpha, DA, Lda, &Beta, DC, Ldc));
  auto R = host(DC, C.size());
  int Wrong = 0;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I) {
      double S = 0;
      for (int L = 0; L < K; ++L)
        S += A[size_t(L) * Lda + I] * A[size_t(L) * Lda + J];
      double Want = I >= J ? Alpha * S + Beta * C[size_t(J) * Ldc + I] : C[size_t(J) * Ldc + I];
      Wrong += std::fabs(R[size_t(J) * Ldc + I] - Want) > 1e-12;
    }
  // symm (left, upper): C = A B with A symmetric from its upper triangle.
  int M = 8, Nn = 5;
  std::vector<double> S(M * M), Bm(M * Nn), Cm(M * Nn, NAN);
  for (auto &V : S)
    V = rnd();
  for (auto &V : Bm)
    V = rnd();
  double *DS = dev(S), *DB = dev(Bm), *DCm = dev(Cm), One = 1, Zero = 0;
  CB(cublasDsymm(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, M, Nn, &One, DS, M, DB, M, &Zero, DCm, M));
  R = host(DCm, Cm.size());
  for (int J = 0; J < Nn; ++J)
    for (int I = 0; I < M; ++I) {
      double Sum = 0;
      for (int L = 0; L < M; ++L)
        Sum += (I <= L ? S[L * M + I] : S[I * M + L]) * Bm[J * M + L];
      Wrong += !(std::fabs(R[J * M + I] - Sum) < 1e-12);
    }
  // ger: A += alpha x y^T; symv (lower): y = S x; trsv (upper, transposed).
  std::vector<double> Xv(M), Yv(Nn), G(M * Nn);
  for (auto &V : Xv)
    V = rnd();
  for (auto &V : Yv)
    V = rnd();
  for (auto &V : G)
    V = rnd();
  double *DX = dev(Xv), *DY = dev(Yv), *DG = dev(G), Two = 2;
  CB(cublasDger(H, M, Nn, &Two, DX, 1, DY, 1, DG, M));
  R = host(DG, G.size());
  for (int J = 0; J < Nn; ++J)
    for (int I = 0; I < M; ++I)
      Wrong += std::fabs(R[J * M + I] - (G[J * M + I] + 2 * Xv[I] * Yv[J])) > 1e-12;
  std::vector<double> Out(M, NAN);
  double *DOut = dev(Out);
  CB(cublasDsymv(H, CUBLAS_FILL_MODE_LOWER, M, &One, DS, M, DX, 1, &Zero, DOut, 1));
  R = host(DOut, M);
  for (int I = 0; I < M; ++I) {
    double Sum = 0;
    for (int L = 0; L < M; ++L)
      Sum += (I >= L ? S[L * M + I] : S[I * M + L]) * Xv[L];
    Wrong += !(std::fabs(R[I] - Sum) < 1e-12);
  }
  std::vector<double> T = dominant(M, M);
  double *DT = dev(T);
  CHECK(cudaMemcpy(DOut, Xv.data(), M * 8, cudaMemcpyHostToDevice));
  CB(cublasDtrsv(H, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, M, DT, M, DOut, 1));
  R = host(DOut, M); // U^T r = x
  for (int I = 0; I < M; ++I) {
    double Sum = 0;
    for (int L = 0; L <= I; ++L)
      Sum += T[I * M + L] * R[L];
    Wrong += std::fabs(Sum - Xv[I]) > 1e-12;
  }
  EXPECT(Wrong == 0);
  // herk (complex, upper, C^H A): real alpha and beta; the diagonal stays real.
  int Kc = 5, Nc = 4;
  std::vector<cuDoubleComplex> Ac(Kc * Nc), Cc(Nc * Nc);
  for (auto &V : Ac)
    V = make_cuDoubleComplex(rnd(), rnd());
  for (auto &V : Cc)
    V = make_cuDoubleComplex(NAN, NAN);
  auto *DAc = dev(Ac), *DCc = dev(Cc);
  double RA = 1, RB = 0;
  CB(cublasZherk(H, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_C, Nc, Kc, &RA, DAc, Kc, &RB, DCc, Nc));
  auto Rc = host(DCc, Cc.size());
  Wrong = 0;
  for (int J = 0; J < Nc; ++J)
    for (int I = 0; I <= J; ++I) {
      std::complex<double> Sum = 0;
      for (int L = 0; L < Kc; ++L)
        Sum += std::conj(std::complex<double>(Ac[I * Kc + L].x, Ac[I * Kc + L].y)) *
               std::complex<double>(Ac[J * Kc + L].x, Ac[J * Kc + L].y);
      Wrong += std::abs(std::complex<double>(Rc[J * Nc + I].x, Rc[J * Nc + I].y) - Sum) > 1e-12;
    }
  EXPECT(Wrong == 0);
  for (double *P : {DA, DC, DS, DB, DCm, DX, DY, DG, DOut, DT})
    cudaFree(P);
  cudaFree(DAc);
  cudaFree(DCc);
}

static void luBatched(cublasHandle_t H) {
  const int N = 7, Count = 3, Nrhs = 2;
  for (bool Pivot : {true, false}) {
    std::vector<float> A(N * N * Count), B(N * Nrhs * Count);
    for (auto &V : A)
      V = float(rnd());
    if (!Pivot) // no pivoting needs a dominant diagonal
      for (int C = 0; C < Count; ++C)
        for (int I = 0; I < N; ++I)
          A[C * N * N + I * N + I] = N + 1;
    for (auto &V : B)
      V = float(rnd());
    float *DA = dev(A), *DLU = dev(A), *DB = dev(B), *DInv;
    CHECK(cudaMalloc(&DInv, A.size() * 4));
    std::vector<float *> PLU(Count), PB(Count), PInv(Count), PA(Count);
    for (int I = 0; I < Count; ++I) {
      PLU[I] = DLU + I * N * N;
      PB[I] = DB + I * N * Nrhs;
      PInv[I] = DInv + I * N * N;
      PA[I] = DA + I * N * N;
    }
    float **DPLU = dev(PLU), **DPB = dev(PB), **DPInv = dev(PInv), **DPA = dev(PA);
    int *DPiv, *DInfo;
    CHECK(cudaMalloc(&DPiv, N * Count * 4));
    CHECK(cudaMalloc(&DInfo, Count * 4));
    CHECK(cudaMemset(DInfo, 0xff, Count * 4));
    CB(cublasSgetrfBatched(H, N, DPLU, N, Pivot ? DPiv : nullptr, DInfo, Count));
    auto Info = host(DInfo, Count);
    for (int I : Info)
      EXPECT(I == 0);
    int HostInfo = -7;
    CB(cublasSgetrsBatched(H, CUBLAS_OP_N, N, Nrhs, DPLU, N, Pivot ? DPiv : nullptr, DPB, N, &HostInfo, Count));
    EXPECT(HostInfo == 0);
    CB(cublasSgetriBatched(H, N, DPLU, N, Pivot ? DPiv : nullptr, DPInv, N, DInfo, Count));
    auto X = host(DB, B.size()), Inv = host(DInv, A.size());
    int Wrong = 0;
    for (int C = 0; C < Count; ++C)
      for (int I = 0; I < N; ++I) {
        for (int J = 0; J < Nrhs; ++J) { // A x = b
          double S = 0;
          for (int L = 0; L < N; ++L)
            S += A[C * N * N + L * N + I] * X[C * N * Nrhs + J * N + L];
          Wrong += std::fabs(S - B[C * N * Nrhs + J * N + I]) > 1e-3;
        }
        for (int J = 0; J < N; ++J) { // A A^-1 = I
          double S = 0;
          for (int L = 0; L < N; ++L)
            S += A[C * N * N + L * N + I] * Inv[C * N * N + J * N + L];
          Wrong += std::fabs(S - (I == J)) > 1e-3;
        }
      }
    // matinv from the original matrices.
    CHECK(cudaMemset(DInv, 0, A.size() * 4));
    CB(cublasSmatinvBatched(H, N, DPA, N, DPInv, N, DInfo, Count));
    Inv = host(DInv, A.size());
    for (int C = 0; C < Count; ++C)
      for (int I = 0; I < N; ++I)
        for (int J = 0; J < N; ++J) {
          double S = 0;
          for (int L = 0; L < N; ++L)
            S += A[C * N * N + L * N + I] * Inv[C * N * N + J * N + L];
          Wrong += std::fabs(S - (I == J)) > 1e-3;
        }
    EXPECT(Wrong == 0);
    for (void *P : {(void *)DA, (void *)DLU, (void *)DB, (void *)DInv, (void *)DPLU, (void *)DPB, (void *)DPInv,
                    (void *)DPA, (void *)DPiv, (void *)DInfo})
      cudaFree(P);
  }
  // A singular matrix: info names the zero pivot (1-based).
  std::vector<double> S = {1, 2, 2, 4}; // column-major, rank 1
  double *DS = dev(S);
  std::vector<double *> PS = {DS};
  double **DPS = dev(PS);
  int *DPiv, *DInfo;
  CHECK(cudaMalloc(&DPiv, 8));
  CHECK(cudaMalloc(&DInfo, 4));
  CB(cublasDgetrfBatched(H, 2, DPS, 2, DPiv, DInfo, 1));
  EXPECT(host(DInfo, 1)[0] == 2);
  EXPECT(cublasDmatinvBatched(H, 33, DPS, 33, DPS, 33, DInfo, 1) == CUBLAS_STATUS_INVALID_VALUE); // n <= 32
  cudaFree(DS);
  cudaFree(DPS);
  cudaFree(DPiv);
  cudaFree(DInfo);
}

// Batched QR (R^T R must be A^T A) and least squares (the normal equations hold at the solution).
static void qrBatched(cublasHandle_t H) {
  const int M = 9, N = 5, Count = 2, Nrhs = 2;
  std::vector<double> A(M * N * Count), C(M * Nrhs * Count);
  for (auto &V : A)
    V = rnd();
  for (auto &V : C)
    V = rnd();
  double *DA = dev(A), *DQ = dev(A), *DTau, *DC = dev(C);
  CHECK(cudaMalloc(&DTau, N * Count * 8));
  std::vector<double *> PQ = {DQ, DQ + M * N}, PTau = {DTau, DTau + N}, PA = {DA, DA + M * N}, PC = {DC, DC + M * Nrhs};
  double **DPQ = dev(PQ), **DPTau = dev(PTau), **DPA = dev(PA), **DPC = dev(PC);
  int Info = -99;
  CB(cublasDgeqrfBatched(H, M, N, DPQ, M, DPTau, &Info, Count));
  EXPECT(Info == 0);
  auto QR = host(DQ, A.size());
  int Wrong = 0;
  for (int B = 0; B < Count; ++B)
    for (int I = 0; I < N; ++I)
      for (int J = 0; J < N; ++J) {
        double Rtr = 0, Ata = 0;
        for (int K = 0; K <= std::min(I, J); ++K) // R is upper triangular: R^T R
          Rtr += QR[B * M * N + I * M + K] * QR[B * M * N + J * M + K];
        for (int K = 0; K < M; ++K)
          Ata += A[B * M * N + I * M + K] * A[B * M * N + J * M + K];
        Wrong += std::fabs(Rtr - Ata) > 1e-10;
      }
  int DevInfo[Count] = {-1, -1};
  int *DDevInfo;
  CHECK(cudaMalloc(&DDevInfo, sizeof DevInfo));
  CB(cublasDgelsBatched(H, CUBLAS_OP_N, M, N, Nrhs, DPA, M, DPC, M, &Info, DDevInfo, Count));
  EXPECT(Info == 0);
  CHECK(cudaMemcpy(DevInfo, DDevInfo, sizeof DevInfo, cudaMemcpyDeviceToHost));
  EXPECT(DevInfo[0] == 0 && DevInfo[1] == 0);
  auto X = host(DC, C.size()); // the first N rows of each right-hand side hold the solution
  for (int B = 0; B < Count; ++B)
    for (int R = 0; R < Nrhs; ++R)
      for (int I = 0; I < N; ++I) { // A^T (A x - c) = 0
        double G = 0;
        for (int K = 0; K < M; ++K) {
          double Ax = 0;
          for (int J = 0; J < N; ++J)
            Ax += A[B * M * N + J * M + K] * X[B * M * Nrhs + R * M + J];
          G += A[B * M * N + I * M + K] * (Ax - C[B * M * Nrhs + R * M + K]);
        }
        Wrong += std::fabs(G) > 1e-10;
      }
  EXPECT(Wrong == 0);
  // Only the overdetermined, not-transposed form (as an H200's cuBLAS answers); lda is argument 5.
  EXPECT(cublasDgelsBatched(H, CUBLAS_OP_T, M, N, Nrhs, DPA, M, DPC, M, &Info, DDevInfo, Count) ==
         CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT(Info == 0);
  EXPECT(cublasDgelsBatched(H, CUBLAS_OP_N, M, N, Nrhs, DPA, 3, DPC, M, &Info, DDevInfo, Count) ==
         CUBLAS_STATUS_INVALID_VALUE);
  EXPECT(Info == -5);
  EXPECT(cublasDgeqrfBatched(H, M, N, DPQ, 3, DPTau, &Info, Count) == CUBLAS_STATUS_INVALID_VALUE);
  EXPECT(Info == -4);
  for (void *P : {(void *)DA, (void *)DQ, (void *)DTau, (void *)DC, (void *)DPQ, (void *)DPTau, (void *)DPA,
                  (void *)DPC, (void *)DDevInfo})
    cudaFree(P);
}

int main() {
  cublasHandle_t H;
  CB(cublasCreate(&H));
  trsmTrmm(H);
  rankAndSymmetric(H);
  luBatched(H);
  qrBatched(H);
  CB(cublasDestroy(H));
  return verdict("cublas_solvers", Bad);
}
