// More of cuSOLVER's 64-bit generic API on our libcusolver, checked by
// defining identities on fresh random matrices: Xtrtri (T T^-1 = I), Xsytrs
// after sytrf (A X = B), Xsyevdx (an index range of eigenpairs),
// XsyevBatched (each matrix's eigenpairs), Xgeev (A v = w v for real
// matrices, whose complex pairs LAPACK packs into two columns, and complex
// ones), IRSXgesv/IRSXgels with their parameter and info objects, Xgesvdp
// (A = U S V^H), Xgesvdr (the leading k singular values), Xlarft (the
// block reflector's T) and the handle's modes. Written from
// the cuSOLVER reference; not yet run on NVIDIA's
// cuSOLVER (no device was lent when it was written).
#include "libs_common.h"
#include "values_common.h"
#include <cusolverDn.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

static int Bad = 0;

static std::vector<double> symmetric(int N) {
  std::vector<double> A(size_t(N) * N);
  for (int J = 0; J < N; ++J)
    for (int I = J; I < N; ++I)
      A[size_t(J) * N + I] = A[size_t(I) * N + J] = rnd();
  return A;
}

static void trtriSytrs(cusolverDnHandle_t H, cusolverDnParams_t) {
  const int N = 7;
  int *DInfo;
  CHECK(cudaMalloc(&DInfo, sizeof(int)));
  // Upper triangular, non-unit: T T^-1 = I.
  std::vector<double> T(size_t(N) * N, 0);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I <= J; ++I)
      T[size_t(J) * N + I] = I == J ? 2 + rnd() : rnd();
  double *DT = dev(T);
  size_t Dev = 0, Host = 0;
  CS(cusolverDnXtrtri_bufferSize(H, CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_NON_UNIT, N, CUDA_R_64F, DT, N, &Dev, &Host));
  void *Wd;
  CHECK(cudaMalloc(&Wd, Dev + 16));
  std::vector<char> Wh(Host + 16);
  CS(cusolverDnXtrtri(H, CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_NON_UNIT, N, CUDA_R_64F, DT, N, Wd, Dev, Wh.data(), Host,
                      DInfo));
  auto Inv = host(DT, T.size());
  int Wrong = host(DInfo, 1)[0] != 0;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I) {
      double S = 0;
      for (int K = 0; K < N; ++K)
        S += T[size_t(K) * N + I] * (K <= J ? Inv[size_t(J) * N + K] : 0);
      Wrong += std::fabs(S - (I == J)) > 1e-12;
    }
  // sytrf (32-bit pivots) then Xsytrs with the pivots widened to 64 bits.
  auto A = symmetric(N);
  std::vector<double> B(size_t(N) * 2);
  for (auto &V : B)
    V = rnd();
  double *DA = dev(A), *DB = dev(B), *Wk;
  int *DPiv, Lw;
  CHECK(cudaMalloc(&DPiv, sizeof(int) * N));
  CS(cusolverDnDsytrf_bufferSize(H, N, DA, N, &Lw));
  CHECK(cudaMalloc(&Wk, sizeof(double) * std::max(Lw, 1)));
  CS(cusolverDnDsytrf(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, DPiv, Wk, Lw, DInfo));
  auto Piv = host(DPiv, N);
  std::vector<int64_t> Piv64(Piv.begin(), Piv.end());
  int64_t *DPiv64 = dev(Piv64);
  CS(cusolverDnXsytrs_bufferSize(H, CUBLAS_FILL_MODE_LOWER, N, 2, CUDA_R_64F, DA, N, DPiv64, CUDA_R_64F, DB, N, &Dev,
                                 &Host));
  CS(cusolverDnXsytrs(H, CUBLAS_FILL_MODE_LOWER, N, 2, CUDA_R_64F, DA, N, DPiv64, CUDA_R_64F, DB, N, Wd, Dev,
                      Wh.data(), Host, DInfo));
  auto X = host(DB, B.size());
  Wrong += host(DInfo, 1)[0] != 0;
  for (int J = 0; J < 2; ++J)
    for (int I = 0; I < N; ++I) {
      double S = 0;
      for (int K = 0; K < N; ++K)
        S += A[size_t(K) * N + I] * X[size_t(J) * N + K];
      Wrong += std::fabs(S - B[size_t(J) * N + I]) > 1e-10;
    }
  EXPECT(Wrong == 0);
  for (void *P : {(void *)DT, Wd, (void *)DA, (void *)DB, (void *)Wk, (void *)DPiv, (void *)DPiv64, (void *)DInfo})
    cudaFree(P);
}

static int eigenpairs(int N, const double *A, const double *V, const double *W, int Count) {
  int Wrong = 0;
  for (int C = 0; C < Count; ++C)
    for (int I = 0; I < N; ++I) {
      double S = 0;
      for (int K = 0; K < N; ++K)
        S += A[size_t(K) * N + I] * V[size_t(C) * N + K];
      Wrong += std::fabs(S - W[C] * V[size_t(C) * N + I]) > 1e-10;
    }
  return Wrong;
}

static void symmetricEigen(cusolverDnHandle_t H, cusolverDnParams_t P) {
  const int N = 9, Batch = 3;
  int *DInfo;
  CHECK(cudaMalloc(&DInfo, sizeof(int) * Batch));
  size_t Dev = 0, Host = 0;
  // Xsyevdx: eigenpairs 3..5.
  auto A = symmetric(N);
  double *DA = dev(A), *DW;
  CHECK(cudaMalloc(&DW, sizeof(double) * N * Batch));
  int64_t Meig = -1;
  double Vl = 0, Vu = 0;
  CS(cusolverDnXsyevdx_bufferSize(H, P, CUSOLVER_EIG_MODE_VECTOR, CUSOLVER_EIG_RANGE_I, CUBLAS_FILL_MODE_LOWER, N,
                                  CUDA_R_64F, DA, N, &Vl, &Vu, 3, 5, &Meig, CUDA_R_64F, DW, CUDA_R_64F, &Dev, &Host));
  void *Wd;
  CHECK(cudaMalloc(&Wd, Dev + 16));
  std::vector<char> Wh(Host + 16);
  CS(cusolverDnXsyevdx(H, P, CUSOLVER_EIG_MODE_VECTOR, CUSOLVER_EIG_RANGE_I, CUBLAS_FILL_MODE_LOWER, N, CUDA_R_64F, DA,
                       N, &Vl, &Vu, 3, 5, &Meig, CUDA_R_64F, DW, CUDA_R_64F, Wd, Dev, Wh.data(), Host, DInfo));
  EXPECT(Meig == 3 && host(DInfo, 1)[0] == 0);
  EXPECT(eigenpairs(N, A.data(), host(DA, A.size()).data(), host(DW, 3).data(), 3) == 0);
  // XsyevBatched: three matrices lda * n apart.
  std::vector<double> All;
  std::vector<std::vector<double>> Each;
  for (int B = 0; B < Batch; ++B) {
    Each.push_back(symmetric(N));
    All.insert(All.end(), Each.back().begin(), Each.back().end());
  }
  double *DAll = dev(All);
  CS(cusolverDnXsyevBatched_bufferSize(H, P, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, N, CUDA_R_64F, DAll, N,
                                       CUDA_R_64F, DW, CUDA_R_64F, &Dev, &Host, Batch));
  cudaFree(Wd);
  CHECK(cudaMalloc(&Wd, Dev + 16));
  Wh.resize(Host + 16);
  CS(cusolverDnXsyevBatched(H, P, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, N, CUDA_R_64F, DAll, N, CUDA_R_64F,
                            DW, CUDA_R_64F, Wd, Dev, Wh.data(), Host, DInfo, Batch));
  auto V = host(DAll, All.size());
  auto W = host(DW, size_t(N) * Batch);
  auto Infos = host(DInfo, Batch);
  int Wrong = 0;
  for (int B = 0; B < Batch; ++B)
    Wrong += Infos[B] != 0 ||
             eigenpairs(N, Each[B].data(), V.data() + size_t(B) * N * N, W.data() + size_t(B) * N, N) != 0;
  EXPECT(Wrong == 0);
  for (void *Ptr : {(void *)DA, (void *)DW, Wd, (void *)DAll, (void *)DInfo})
    cudaFree(Ptr);
}

static void generalEigen(cusolverDnHandle_t H, cusolverDnParams_t P) {
  const int N = 6;
  int *DInfo;
  CHECK(cudaMalloc(&DInfo, sizeof(int)));
  size_t Dev = 0, Host = 0;
  // Real: a rotation block makes a complex pair for certain.
  std::vector<double> A(size_t(N) * N);
  for (auto &V : A)
    V = rnd();
  A[0] = 0, A[1] = 3, A[N] = -3, A[N + 1] = 0; // top-left 2x2 block [0 -3; 3 0]
  for (int I = 2; I < N; ++I)
    A[I] = A[size_t(N) + I] = 0; // block upper triangular: the pair (+-3i) is an eigenvalue pair
  double *DA = dev(A), *DVr;
  cuDoubleComplex *DW;
  CHECK(cudaMalloc(&DVr, sizeof(double) * N * N));
  CHECK(cudaMalloc(&DW, sizeof(cuDoubleComplex) * N));
  CS(cusolverDnXgeev_bufferSize(H, P, CUSOLVER_EIG_MODE_NOVECTOR, CUSOLVER_EIG_MODE_VECTOR, N, CUDA_R_64F, DA, N,
                                CUDA_C_64F, DW, CUDA_R_64F, nullptr, N, CUDA_R_64F, DVr, N, CUDA_R_64F, &Dev, &Host));
  void *Wd;
  CHECK(cudaMalloc(&Wd, Dev + 16));
  std::vector<char> Wh(Host + 16);
  CS(cusolverDnXgeev(H, P, CUSOLVER_EIG_MODE_NOVECTOR, CUSOLVER_EIG_MODE_VECTOR, N, CUDA_R_64F, DA, N, CUDA_C_64F, DW,
                     CUDA_R_64F, nullptr, N, CUDA_R_64F, DVr, N, CUDA_R_64F, Wd, Dev, Wh.data(), Host, DInfo));
  EXPECT(host(DInfo, 1)[0] == 0);
  auto Wv = host(DW, N);
  auto Vr = host(DVr, size_t(N) * N);
  int Wrong = 0, Pairs = 0;
  for (int J = 0; J < N; ++J) {
    Z Lambda(Wv[J].x, Wv[J].y);
    std::vector<Z> V(N);
    bool Second = J > 0 && Wv[J].y != 0 && Wv[J].y == -Wv[J - 1].y && Wv[J].x == Wv[J - 1].x;
    for (int I = 0; I < N; ++I) {
      if (Lambda.imag() == 0)
        V[I] = Vr[size_t(J) * N + I];
      else if (!Second) // v(j) = VR(:, j) + i VR(:, j + 1)
        V[I] = Z(Vr[size_t(J) * N + I], Vr[size_t(J + 1) * N + I]);
      else // v(j + 1) = VR(:, j) - i VR(:, j + 1)
        V[I] = Z(Vr[size_t(J - 1) * N + I], -Vr[size_t(J) * N + I]);
    }
    Pairs += Lambda.imag() != 0;
    for (int I = 0; I < N; ++I) {
      Z S = 0;
      for (int K = 0; K < N; ++K)
        S += A[size_t(K) * N + I] * V[K];
      Wrong += std::abs(S - Lambda * V[I]) > 1e-10;
    }
  }
  EXPECT(Wrong == 0 && Pairs >= 2);
  // Complex: A v = w v for every column of VR.
  std::vector<cuDoubleComplex> Ac(size_t(N) * N);
  for (auto &V : Ac)
    V = make_cuDoubleComplex(rnd(), rnd());
  cuDoubleComplex *DAc = dev(Ac), *DVc;
  CHECK(cudaMalloc(&DVc, sizeof(cuDoubleComplex) * N * N));
  CS(cusolverDnXgeev_bufferSize(H, P, CUSOLVER_EIG_MODE_NOVECTOR, CUSOLVER_EIG_MODE_VECTOR, N, CUDA_C_64F, DAc, N,
                                CUDA_C_64F, DW, CUDA_C_64F, nullptr, N, CUDA_C_64F, DVc, N, CUDA_C_64F, &Dev, &Host));
  CHECK(cudaFree(Wd));
  CHECK(cudaMalloc(&Wd, Dev + 16));
  Wh.resize(Host + 16);
  CS(cusolverDnXgeev(H, P, CUSOLVER_EIG_MODE_NOVECTOR, CUSOLVER_EIG_MODE_VECTOR, N, CUDA_C_64F, DAc, N, CUDA_C_64F,
                     DW, CUDA_C_64F, nullptr, N, CUDA_C_64F, DVc, N, CUDA_C_64F, Wd, Dev, Wh.data(), Host, DInfo));
  auto Wc = host(DW, N);
  auto Vc = host(DVc, size_t(N) * N);
  Wrong = host(DInfo, 1)[0] != 0;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I) {
      Z S = 0;
      for (int K = 0; K < N; ++K)
        S += Z(Ac[size_t(K) * N + I].x, Ac[size_t(K) * N + I].y) * Z(Vc[size_t(J) * N + K].x, Vc[size_t(J) * N + K].y);
      Wrong += std::abs(S - Z(Wc[J].x, Wc[J].y) * Z(Vc[size_t(J) * N + I].x, Vc[size_t(J) * N + I].y)) > 1e-10;
    }
  EXPECT(Wrong == 0);
  for (void *Ptr : {(void *)DA, (void *)DVr, (void *)DW, Wd, (void *)DAc, (void *)DVc, (void *)DInfo})
    cudaFree(Ptr);
}


static void irsAndSvd(cusolverDnHandle_t H, cusolverDnParams_t P) {
  const int N = 10, Nrhs = 2;
  std::vector<double> A(size_t(N) * N), B(size_t(N) * Nrhs);
  for (auto &V : A)
    V = rnd();
  for (int I = 0; I < N; ++I)
    A[size_t(I) * N + I] += 4;
  for (auto &V : B)
    V = rnd();
  double *DA = dev(A), *DB = dev(B), *DX;
  int *DInfo;
  CHECK(cudaMalloc(&DX, sizeof(double) * N * Nrhs));
  CHECK(cudaMalloc(&DInfo, sizeof(int)));
  cusolverDnIRSParams_t Ip;
  cusolverDnIRSInfos_t Ii;
  CS(cusolverDnIRSParamsCreate(&Ip));
  CS(cusolverDnIRSInfosCreate(&Ii));
  size_t Bytes = 0;
  EXPECT(cusolverDnIRSXgesv_bufferSize(H, Ip, N, Nrhs, &Bytes) != CUSOLVER_STATUS_SUCCESS); // no precision yet
  CS(cusolverDnIRSParamsSetSolverPrecisions(Ip, CUSOLVER_R_64F, CUSOLVER_R_32F));
  CS(cusolverDnIRSParamsSetRefinementSolver(Ip, CUSOLVER_IRS_REFINE_CLASSICAL));
  CS(cusolverDnIRSParamsSetMaxIters(Ip, 20));
  CS(cusolverDnIRSInfosRequestResidual(Ii));
  CS(cusolverDnIRSXgesv_bufferSize(H, Ip, N, Nrhs, &Bytes));
  void *W;
  CHECK(cudaMalloc(&W, Bytes));
  int Niters = -99;
  CS(cusolverDnIRSXgesv(H, Ip, Ii, N, Nrhs, DA, N, DB, N, DX, N, W, Bytes, &Niters, DInfo));
  auto X = host(DX, size_t(N) * Nrhs);
  int Wrong = host(DInfo, 1)[0] != 0 || Niters < 0;
  for (int J = 0; J < Nrhs; ++J)
    for (int I = 0; I < N; ++I) {
      double S = 0;
      for (int K = 0; K < N; ++K)
        S += A[size_t(K) * N + I] * X[size_t(J) * N + K];
      Wrong += std::fabs(S - B[size_t(J) * N + I]) > 1e-12;
    }
  int Got = -1, Max = -1;
  CS(cusolverDnIRSInfosGetNiters(Ii, &Got));
  CS(cusolverDnIRSInfosGetMaxIters(Ii, &Max));
  Wrong += Got != Niters || Max != 20;
  void *History = nullptr;
  CS(cusolverDnIRSInfosGetResidualHistory(Ii, &History));
  Wrong += History == nullptr;
  EXPECT(Wrong == 0);
  CS(cusolverDnIRSInfosDestroy(Ii));
  CS(cusolverDnIRSParamsDestroy(Ip));
  // Xgesvdp (economy, 8 x 5) and Xgesvdr (k = 2 of the same matrix). G has rank 3, within k plus the
  // oversampling: the randomized range finder then sees all of G and its top singular values are exact.
  const int M = 8, Nn = 5, K = 2;
  std::vector<double> G(size_t(M) * Nn, 0);
  for (int R = 0; R < 3; ++R) {
    std::vector<double> Uc(M), Vc(Nn);
    for (auto &V : Uc)
      V = rnd();
    for (auto &V : Vc)
      V = rnd();
    for (int J = 0; J < Nn; ++J)
      for (int I = 0; I < M; ++I)
        G[size_t(J) * M + I] += Uc[I] * Vc[J];
  }
  double *DG = dev(G), *DS, *DU, *DV;
  CHECK(cudaMalloc(&DS, sizeof(double) * Nn));
  CHECK(cudaMalloc(&DU, sizeof(double) * M * Nn));
  CHECK(cudaMalloc(&DV, sizeof(double) * Nn * Nn));
  size_t Dev = 0, Host = 0;
  CS(cusolverDnXgesvdp_bufferSize(H, P, CUSOLVER_EIG_MODE_VECTOR, 1, M, Nn, CUDA_R_64F, DG, M, CUDA_R_64F, DS,
                                  CUDA_R_64F, DU, M, CUDA_R_64F, DV, Nn, CUDA_R_64F, &Dev, &Host));
  void *Wd;
  CHECK(cudaMalloc(&Wd, Dev + 16));
  std::vector<char> Wh(Host + 16);
  double Err = -1;
  CS(cusolverDnXgesvdp(H, P, CUSOLVER_EIG_MODE_VECTOR, 1, M, Nn, CUDA_R_64F, DG, M, CUDA_R_64F, DS, CUDA_R_64F, DU, M,
                       CUDA_R_64F, DV, Nn, CUDA_R_64F, Wd, Dev, Wh.data(), Host, DInfo, &Err));
  auto S = host(DS, Nn), U = host(DU, size_t(M) * Nn), V = host(DV, size_t(Nn) * Nn);
  Wrong = host(DInfo, 1)[0] != 0 || !(Err >= 0 && Err < 1e-10);
  for (int J = 0; J < Nn; ++J)
    for (int I = 0; I < M; ++I) {
      double Sum = 0;
      for (int L = 0; L < Nn; ++L)
        Sum += U[size_t(L) * M + I] * S[L] * V[size_t(L) * Nn + J];
      Wrong += std::fabs(Sum - G[size_t(J) * M + I]) > 1e-12;
    }
  CHECK(cudaMemcpy(DG, G.data(), sizeof(double) * G.size(), cudaMemcpyHostToDevice));
  double *DSr, *DUr, *DVr;
  CHECK(cudaMalloc(&DSr, sizeof(double) * K));
  CHECK(cudaMalloc(&DUr, sizeof(double) * M * K));
  CHECK(cudaMalloc(&DVr, sizeof(double) * Nn * K));
  CS(cusolverDnXgesvdr_bufferSize(H, P, 'S', 'S', M, Nn, K, 2, 2, CUDA_R_64F, DG, M, CUDA_R_64F, DSr, CUDA_R_64F, DUr,
                                  M, CUDA_R_64F, DVr, Nn, CUDA_R_64F, &Dev, &Host));
  cudaFree(Wd);
  CHECK(cudaMalloc(&Wd, Dev + 16));
  Wh.resize(Host + 16);
  CS(cusolverDnXgesvdr(H, P, 'S', 'S', M, Nn, K, 2, 2, CUDA_R_64F, DG, M, CUDA_R_64F, DSr, CUDA_R_64F, DUr, M,
                       CUDA_R_64F, DVr, Nn, CUDA_R_64F, Wd, Dev, Wh.data(), Host, DInfo));
  if (Wrong)
    std::printf("Xgesvdp: %d wrong (error bound %g)\n", Wrong, Err);
  auto Sr = host(DSr, K);
  int WrongR = 0;
  for (int I = 0; I < K; ++I)
    WrongR += std::fabs(Sr[I] - S[I]) > 1e-10 * S[0];
  if (WrongR)
    std::printf("Xgesvdr: %g %g, gesvdp %g %g\n", Sr[0], Sr[1], S[0], S[1]);
  EXPECT(Wrong + WrongR == 0);
  for (void *Ptr : {(void *)DA, (void *)DB, (void *)DX, (void *)DInfo, W, (void *)DG, (void *)DS, (void *)DU,
                    (void *)DV, Wd, (void *)DSr, (void *)DUr, (void *)DVr})
    cudaFree(Ptr);
}

// Xlarft: T of k reflectors from geqrf satisfies H1 H2 ... Hk = I - V T V^T (forward, columnwise); the handle's modes.
static void larftModes(cusolverDnHandle_t H, cusolverDnParams_t P) {
  const int M = 7, K = 3;
  std::vector<double> A(size_t(M) * K);
  for (auto &V : A)
    V = rnd();
  double *DA = dev(A), *DTau, *DT, *Wk;
  int *DInfo, Lw = 0;
  CHECK(cudaMalloc(&DTau, sizeof(double) * K));
  CHECK(cudaMalloc(&DT, sizeof(double) * K * K));
  CHECK(cudaMalloc(&DInfo, sizeof(int)));
  CS(cusolverDnDgeqrf_bufferSize(H, M, K, DA, M, &Lw));
  CHECK(cudaMalloc(&Wk, sizeof(double) * std::max(Lw, 1)));
  CS(cusolverDnDgeqrf(H, M, K, DA, M, DTau, Wk, Lw, DInfo));
  size_t Dev = 0, Host = 0;
  CS(cusolverDnXlarft_bufferSize(H, P, CUBLAS_DIRECT_FORWARD, CUBLAS_STOREV_COLUMNWISE, M, K, CUDA_R_64F, DA, M,
                                 CUDA_R_64F, DTau, CUDA_R_64F, DT, K, CUDA_R_64F, &Dev, &Host));
  void *Wd;
  CHECK(cudaMalloc(&Wd, Dev + 16));
  std::vector<char> Wh(Host + 16);
  CS(cusolverDnXlarft(H, P, CUBLAS_DIRECT_FORWARD, CUBLAS_STOREV_COLUMNWISE, M, K, CUDA_R_64F, DA, M, CUDA_R_64F, DTau,
                      CUDA_R_64F, DT, K, CUDA_R_64F, Wd, Dev, Wh.data(), Host));
  auto F = host(DA, A.size()), Tau = host(DTau, K), T = host(DT, size_t(K) * K);
  // V: unit lower trapezoidal from the factored matrix.
  auto v = [&](int I, int J) { return I < J ? 0.0 : I == J ? 1.0 : F[size_t(J) * M + I]; };
  std::vector<double> Prod(size_t(M) * M, 0);
  for (int I = 0; I < M; ++I)
    Prod[size_t(I) * M + I] = 1;
  for (int J = 0; J < K; ++J) { // Prod = Prod (I - tau_j v_j v_j^T)
    std::vector<double> Pv(M, 0);
    for (int I = 0; I < M; ++I)
      for (int L = 0; L < M; ++L)
        Pv[I] += Prod[size_t(L) * M + I] * v(L, J);
    for (int C = 0; C < M; ++C)
      for (int I = 0; I < M; ++I)
        Prod[size_t(C) * M + I] -= Tau[J] * Pv[I] * v(C, J);
  }
  int Wrong = 0;
  for (int C = 0; C < M; ++C)
    for (int I = 0; I < M; ++I) {
      double S = I == C;
      for (int A1 = 0; A1 < K; ++A1)
        for (int B1 = A1; B1 < K; ++B1) // T upper triangular
          S -= v(I, A1) * T[size_t(B1) * K + A1] * v(C, B1);
      Wrong += std::fabs(S - Prod[size_t(C) * M + I]) > 1e-12;
    }
  EXPECT(Wrong == 0);
  // The handle's modes: documented defaults, set and read back.
  cusolverDeterministicMode_t Det;
  CS(cusolverDnGetDeterministicMode(H, &Det));
  EXPECT(Det == CUSOLVER_DETERMINISTIC_RESULTS);
  CS(cusolverDnSetDeterministicMode(H, CUSOLVER_ALLOW_NON_DETERMINISTIC_RESULTS));
  CS(cusolverDnGetDeterministicMode(H, &Det));
  EXPECT(Det == CUSOLVER_ALLOW_NON_DETERMINISTIC_RESULTS);
  for (void *Ptr : {(void *)DA, (void *)DTau, (void *)DT, (void *)DInfo, (void *)Wk, Wd})
    cudaFree(Ptr);
}

int main() {
  cusolverDnHandle_t H;
  CS(cusolverDnCreate(&H));
  cusolverDnParams_t P;
  CS(cusolverDnCreateParams(&P));
  trtriSytrs(H, P);
  symmetricEigen(H, P);
  generalEigen(H, P);
  irsAndSvd(H, P);
  larftModes(H, P);
  CS(cusolverDnDestroyParams(P));
  CS(cusolverDnDestroy(H));
  return verdict("cusolver_x", Bad);
}
