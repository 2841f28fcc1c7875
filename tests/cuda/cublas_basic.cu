// cuBLAS on our libcublas (built with NVIDIA's cublas_v2.h, linked to ours):
// handles and modes, vector/matrix copies, GEMM in every precision (S, D, C,
// Z, half, bfloat16, int8 -> int32 through the Ex forms) with transposes,
// leading dimensions past the rows, odd sizes, beta = 0 over NaN, batched and
// strided batched forms; level 1 and 2 in host and device pointer modes;
// geam and dgmm; stream order with kernels around the calls and a captured
// call replayed by a graph; argument errors. Every result is checked
// against naive loops here on fresh random data.
#include "blas_common.h"
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>
#include <vector>

static int Bad = 0;
static std::mt19937 Rng(std::random_device{}());

using cd = std::complex<double>;
template <typename T> cd toC(T V) { return cd(double(V), 0); }
template <> cd toC(cuComplex V) { return cd(V.x, V.y); }
template <> cd toC(cuDoubleComplex V) { return cd(V.x, V.y); }
template <> cd toC(__half V) { return cd(__half2float(V), 0); }
template <> cd toC(__nv_bfloat16 V) { return cd(__bfloat162float(V), 0); }
template <typename T> T fromC(cd V);
template <> float fromC(cd V) { return float(V.real()); }
template <> double fromC(cd V) { return V.real(); }
template <> cuComplex fromC(cd V) { return make_cuComplex(float(V.real()), float(V.imag())); }
template <> cuDoubleComplex fromC(cd V) { return make_cuDoubleComplex(V.real(), V.imag()); }
template <> __half fromC(cd V) { return __float2half(float(V.real())); }
template <> __nv_bfloat16 fromC(cd V) { return __float2bfloat16(float(V.real())); }
template <> int8_t fromC(cd V) { return int8_t(V.real()); }
template <> int32_t fromC(cd V) { return int32_t(V.real()); }

template <typename T> T rnd(bool Complex) {
  std::uniform_real_distribution<double> D(-1, 1);
  return fromC<T>(cd(D(Rng), Complex ? D(Rng) : 0));
}

/// op(X)(i, j) of a column-major matrix.
template <typename T> cd opAt(const std::vector<T> &X, int Ld, cublasOperation_t Op, int I, int J) {
  cd V = Op == CUBLAS_OP_N ? toC(X[size_t(J) * Ld + I]) : toC(X[size_t(I) * Ld + J]);
  return Op == CUBLAS_OP_C ? std::conj(V) : V;
}

/// C = alpha op(A) op(B) + beta C checked against a double-precision
/// reference; Tol is relative to the sum of |products|.
template <typename TA, typename TC, typename TS>
void checkGemm(const char *What, cublasOperation_t Ta, cublasOperation_t Tb, int M, int N, int K,
               const std::vector<TA> &A, int Lda, const std::vector<TA> &B, int Ldb, const std::vector<TC> &C0,
               const std::vector<TC> &C, int Ldc, TS Alpha, TS Beta, double Tol) {
  int Wrong = 0;
  cd Al = toC(Alpha), Be = toC(Beta);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      cd S = 0;
      double Mag = 0;
      for (int L = 0; L < K; ++L) {
        cd P = opAt(A, Lda, Ta, I, L) * opAt(B, Ldb, Tb, L, J);
        S += P;
        Mag += std::abs(P);
      }
      cd Want = Al * S + (Be == cd(0) ? cd(0) : Be * toC(C0[size_t(J) * Ldc + I]));
      cd Got = toC(C[size_t(J) * Ldc + I]);
      double CMag = Be == cd(0) ? 0 : std::abs(Be) * std::abs(toC(C0[size_t(J) * Ldc + I]));
      double Err = std::abs(Got - Want), Bound = Tol * (std::abs(Al) * Mag + CMag + 1e-30);
      if (!(Err <= Bound)) {
        if (Wrong < 3)
          std::printf("%s (%d,%d) op %d %d: got %g%+gi want %g%+gi\n", What, I, J, Ta, Tb, Got.real(), Got.imag(),
                      Want.real(), Want.imag());
        ++Wrong;
      }
    }
  EXPECT(Wrong == 0);
  // Rows past M in the leading dimension are untouched.
  int Touched = 0;
  for (int J = 0; J < N; ++J)
    for (int I = M; I < Ldc; ++I)
      Touched += std::memcmp(&C[size_t(J) * Ldc + I], &C0[size_t(J) * Ldc + I], sizeof(TC)) != 0;
  EXPECT(Touched == 0);
}

template <typename T> using GemmFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                                        int, const T *, const T *, int, const T *, int, const T *, T *,
                                                        int);

template <typename T>
void typedGemm(cublasHandle_t H, const char *What, GemmFn<T> Fn, bool Complex, double Tol) {
  const cublasOperation_t Ops[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};
  for (auto Ta : Ops)
    for (auto Tb : Ops)
      for (bool ZeroBeta : {true, false}) {
        int M = 1 + Rng() % 40, N = 1 + Rng() % 40, K = 1 + Rng() % 40;
        int Lda = (Ta == CUBLAS_OP_N ? M : K) + Rng() % 3, Ldb = (Tb == CUBLAS_OP_N ? K : N) + Rng() % 3,
            Ldc = M + Rng() % 3;
        std::vector<T> A(size_t(Lda) * (Ta == CUBLAS_OP_N ? K : M)), B(size_t(Ldb) * (Tb == CUBLAS_OP_N ? N : K)),
            C0(size_t(Ldc) * N);
        for (auto &V : A)
          V = rnd<T>(Complex);
        for (auto &V : B)
          V = rnd<T>(Complex);
        for (auto &V : C0)
          V = ZeroBeta ? fromC<T>(cd(NAN, NAN)) : rnd<T>(Complex); // beta = 0: C is not read
        T Alpha = rnd<T>(Complex), Beta = ZeroBeta ? fromC<T>(0) : rnd<T>(Complex);
        T *DA = dev(A), *DB = dev(B), *DC = dev(C0);
        CB(Fn(H, Ta, Tb, M, N, K, &Alpha, DA, Lda, DB, Ldb, &Beta, DC, Ldc));
        checkGemm(What, Ta, Tb, M, N, K, A, Lda, B, Ldb, C0, host(DC, C0.size()), Ldc, Alpha, Beta, Tol);
        cudaFree(DA);
        cudaFree(DB);
        cudaFree(DC);
      }
}

// Reduced precisions and int8 through cublasGemmEx.
template <typename TA, typename TC, typename TS>
void gemmEx(cublasHandle_t H, const char *What, cudaDataType AT, cudaDataType CT, cublasComputeType_t Compute,
            double Tol) {
  int M = 17 + Rng() % 20, N = 9 + Rng() % 20, K = 33 + Rng() % 20;
  cublasOperation_t Ta = Rng() % 2 ? CUBLAS_OP_T : CUBLAS_OP_N, Tb = Rng() % 2 ? CUBLAS_OP_T : CUBLAS_OP_N;
  int Lda = (Ta == CUBLAS_OP_N ? M : K) + 1, Ldb = (Tb == CUBLAS_OP_N ? K : N) + 2, Ldc = M + 1;
  if (AT == CUDA_R_8I) { // int8 GEMM takes sizes and leading dimensions that are multiples of 4
    M = M / 4 * 4;
    N = N / 4 * 4;
    Lda = (Ta == CUBLAS_OP_N ? M : K) + 1;
    Ldb = (Tb == CUBLAS_OP_N ? K : N) + 2;
    Ldc = M + 1;
    Lda = (Lda + 3) / 4 * 4;
    Ldb = (Ldb + 3) / 4 * 4;
    Ldc = (Ldc + 3) / 4 * 4;
  }
  std::vector<TA> A(size_t(Lda) * (Ta == CUBLAS_OP_N ? K : M)), B(size_t(Ldb) * (Tb == CUBLAS_OP_N ? N : K));
  bool Int = AT == CUDA_R_8I;
  for (auto &V : A)
    V = Int ? TA(int8_t(Rng() % 256 - 128)) : rnd<TA>(false);
  for (auto &V : B)
    V = Int ? TA(int8_t(Rng() % 256 - 128)) : rnd<TA>(false);
  std::vector<TC> C0(size_t(Ldc) * N);
  for (auto &V : C0)
    V = Int ? TC(int32_t(Rng() % 2001) - 1000) : rnd<TC>(false);
  TS Alpha = Int ? TS(3) : rnd<TS>(false), Beta = Int ? TS(-2) : rnd<TS>(false);
  TA *DA = dev(A), *DB = dev(B);
  TC *DC = dev(C0);
  cublasStatus_t St = cublasGemmEx(H, Ta, Tb, M, N, K, &Alpha, DA, AT, Lda, DB, AT, Ldb, &Beta, DC, CT, Ldc, Compute,
                                   CUBLAS_GEMM_DEFAULT);
  if (St != CUBLAS_STATUS_SUCCESS)
    std::printf("FAIL %s: %s (ops %d %d, m %d n %d k %d, ld %d %d %d)\n", What, cublasGetStatusName(St), Ta, Tb, M, N,
                K, Lda, Ldb, Ldc);
  checkGemm(What, Ta, Tb, M, N, K, A, Lda, B, Ldb, C0, host(DC, C0.size()), Ldc, Alpha, Beta, Tol);
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DC);
}

static void batched(cublasHandle_t H) {
  const int M = 13, N = 7, K = 11, Count = 5;
  std::vector<float> A(M * K * Count), B(K * N * Count), C(M * N * Count, NAN);
  for (auto &V : A)
    V = rnd<float>(false);
  for (auto &V : B)
    V = rnd<float>(false);
  float *DA = dev(A), *DB = dev(B), *DC = dev(C);
  float One = 1, Zero = 0;
  CB(cublasSgemmStridedBatched(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &One, DA, M, M * K, DB, K, K * N, &Zero, DC, M,
                               M * N, Count));
  auto R = host(DC, C.size());
  for (int I = 0; I < Count; ++I) {
    std::vector<float> Ai(A.begin() + I * M * K, A.begin() + (I + 1) * M * K),
        Bi(B.begin() + I * K * N, B.begin() + (I + 1) * K * N), Ci(R.begin() + I * M * N, R.begin() + (I + 1) * M * N),
        C0(M * N, 0);
    checkGemm("strided batched", CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, Ai, M, Bi, K, C0, Ci, M, One, Zero, 1e-5);
  }
  // Pointer arrays in device memory, in reverse order.
  std::vector<const float *> PA(Count), PB(Count);
  std::vector<float *> PC(Count);
  for (int I = 0; I < Count; ++I) {
    PA[I] = DA + (Count - 1 - I) * M * K;
    PB[I] = DB + (Count - 1 - I) * K * N;
    PC[I] = DC + I * M * N;
  }
  const float **DPA = dev(PA), **DPB = dev(PB);
  float **DPC = dev(PC);
  CB(cublasSgemmBatched(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &One, DPA, M, DPB, K, &Zero, DPC, M, Count));
  R = host(DC, C.size());
  for (int I = 0; I < Count; ++I) {
    int S = Count - 1 - I;
    std::vector<float> Ai(A.begin() + S * M * K, A.begin() + (S + 1) * M * K),
        Bi(B.begin() + S * K * N, B.begin() + (S + 1) * K * N), Ci(R.begin() + I * M * N, R.begin() + (I + 1) * M * N),
        C0(M * N, 0);
    checkGemm("batched", CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, Ai, M, Bi, K, C0, Ci, M, One, Zero, 1e-5);
  }
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DC);
  cudaFree(DPA);
  cudaFree(DPB);
  cudaFree(DPC);
}

static void level1(cublasHandle_t H) {
  const int N = 1000 + Rng() % 100;
  std::vector<float> X(N), Y(N);
  for (auto &V : X)
    V = rnd<float>(false);
  for (auto &V : Y)
    V = rnd<float>(false);
  float *DX = dev(X), *DY = dev(Y);
  // Host pointer mode: results in host memory when the call returns.
  float Dot = 0, Nrm = 0, Asum = 0;
  int Imax = 0, Imin = 0;
  CB(cublasSdot(H, N, DX, 1, DY, 1, &Dot));
  CB(cublasSnrm2(H, N, DX, 1, &Nrm));
  CB(cublasSasum(H, N, DX, 1, &Asum));
  CB(cublasIsamax(H, N, DX, 1, &Imax));
  CB(cublasIsamin(H, N, DX, 1, &Imin));
  double RDot = 0, RNrm = 0, RAsum = 0;
  int RMax = 0, RMin = 0;
  for (int I = 0; I < N; ++I) {
    RDot += double(X[I]) * Y[I];
    RNrm += double(X[I]) * X[I];
    RAsum += std::fabs(X[I]);
    if (std::fabs(X[I]) > std::fabs(X[RMax]))
      RMax = I;
    if (std::fabs(X[I]) < std::fabs(X[RMin]))
      RMin = I;
  }
  EXPECT(std::fabs(Dot - RDot) < 1e-4 * N);
  EXPECT(std::fabs(Nrm - std::sqrt(RNrm)) < 1e-4 * std::sqrt(RNrm));
  EXPECT(std::fabs(Asum - RAsum) < 1e-4 * RAsum);
  EXPECT(Imax == RMax + 1); // 1-based, as in BLAS
  EXPECT(Imin == RMin + 1);
  // Device pointer mode: alpha and the result in device memory.
  CB(cublasSetPointerMode(H, CUBLAS_POINTER_MODE_DEVICE));
  float Alpha = 0.75f;
  float *DAlpha = dev(std::vector<float>{Alpha}), *DRes = dev(std::vector<float>{-1});
  // axpy with a negative increment on x: x is read from its end.
  int Half = N / 2;
  CB(cublasSaxpy(H, Half, DAlpha, DX, -2, DY, 1));
  CB(cublasSdot(H, N, DX, 1, DX, 1, DRes));
  CB(cublasSetPointerMode(H, CUBLAS_POINTER_MODE_HOST));
  auto RY = host(DY, N);
  int Wrong = 0;
  for (int I = 0; I < N; ++I) {
    float Want = Y[I] + (I < Half ? Alpha * X[(Half - 1 - I) * 2] : 0.0f);
    Wrong += std::fabs(RY[I] - Want) > 1e-5f;
  }
  EXPECT(Wrong == 0);
  EXPECT(std::fabs(host(DRes, 1)[0] - RNrm) < 1e-4 * RNrm);
  // scal, copy, swap with strides.
  float S = -3;
  CB(cublasSscal(H, N / 3, &S, DX, 3));
  CB(cublasScopy(H, N / 2, DX, 2, DY, 1));
  auto RX = host(DX, N);
  RY = host(DY, N);
  Wrong = 0;
  for (int I = 0; I < N; ++I)
    Wrong += RX[I] != (I % 3 == 0 && I / 3 < N / 3 ? X[I] * S : X[I]);
  for (int I = 0; I < N / 2; ++I)
    Wrong += RY[I] != RX[2 * I];
  EXPECT(Wrong == 0);
  CB(cublasSswap(H, N, DX, 1, DY, 1));
  EXPECT(host(DY, N) == RX);
  // Complex: zdotc conjugates x; izamax by |re| + |im|.
  std::vector<cuDoubleComplex> Z(64), W(64);
  for (auto &V : Z)
    V = rnd<cuDoubleComplex>(true);
  for (auto &V : W)
    V = rnd<cuDoubleComplex>(true);
  auto *DZ = dev(Z), *DW = dev(W);
  cuDoubleComplex Zd;
  CB(cublasZdotc(H, 64, DZ, 1, DW, 1, &Zd));
  cd RZ = 0;
  int RI = 0;
  for (int I = 0; I < 64; ++I) {
    RZ += std::conj(toC(Z[I])) * toC(W[I]);
    if (std::fabs(Z[I].x) + std::fabs(Z[I].y) > std::fabs(Z[RI].x) + std::fabs(Z[RI].y))
      RI = I;
  }
  EXPECT(std::abs(toC(Zd) - RZ) < 1e-12);
  int Iz = 0;
  CB(cublasIzamax(H, 64, DZ, 1, &Iz));
  EXPECT(Iz == RI + 1);
  cudaFree(DX);
  cudaFree(DY);
  cudaFree(DZ);
  cudaFree(DW);
  cudaFree(DAlpha);
  cudaFree(DRes);
}

static void level2AndGeam(cublasHandle_t H) {
  for (auto Op : {CUBLAS_OP_N, CUBLAS_OP_T}) {
    int M = 31, N = 23, Lda = 35;
    std::vector<float> A(Lda * N), X(Op == CUBLAS_OP_N ? N : M), Y(Op == CUBLAS_OP_N ? M : N, NAN);
    for (auto &V : A)
      V = rnd<float>(false);
    for (auto &V : X)
      V = rnd<float>(false);
    float Alpha = 1.5f, Beta = 0;
    float *DA = dev(A), *DX = dev(X), *DY = dev(Y);
    CB(cublasSgemv(H, Op, M, N, &Alpha, DA, Lda, DX, 1, &Beta, DY, 1));
    auto R = host(DY, Y.size());
    int Wrong = 0;
    for (size_t I = 0; I < Y.size(); ++I) {
      double S = 0;
      for (size_t L = 0; L < X.size(); ++L)
        S += double(Op == CUBLAS_OP_N ? A[L * Lda + I] : A[I * Lda + L]) * X[L];
      Wrong += !(std::fabs(R[I] - Alpha * S) < 1e-4);
    }
    EXPECT(Wrong == 0);
    cudaFree(DA);
    cudaFree(DX);
    cudaFree(DY);
  }
  // geam: C = alpha A^T + beta B; dgmm: C = diag(x) A.
  int M = 12, N = 9;
  std::vector<double> A(N * M), B(M * N), C(M * N), X(M);
  for (auto &V : A)
    V = rnd<double>(false);
  for (auto &V : B)
    V = rnd<double>(false);
  for (auto &V : X)
    V = rnd<double>(false);
  double *DA = dev(A), *DB = dev(B), *DC = dev(C), *DX = dev(X);
  double Alpha = 2, Beta = -0.5;
  CB(cublasDgeam(H, CUBLAS_OP_T, CUBLAS_OP_N, M, N, &Alpha, DA, N, &Beta, DB, M, DC, M));
  auto R = host(DC, C.size());
  int Wrong = 0;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I)
      Wrong += std::fabs(R[J * M + I] - (Alpha * A[I * N + J] + Beta * B[J * M + I])) > 1e-12;
  CB(cublasDdgmm(H, CUBLAS_SIDE_LEFT, M, N, DB, M, DX, 1, DC, M));
  R = host(DC, C.size());
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I)
      Wrong += R[J * M + I] != B[J * M + I] * X[I];
  EXPECT(Wrong == 0);
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DC);
  cudaFree(DX);
}

__global__ void fill(float *P, int N, float V) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    P[I] = V + I % 7;
}
__global__ void twice(float *P, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    P[I] *= 2;
}

// Kernels and cuBLAS calls on one stream, no synchronization between them;
// then the same sequence captured into a graph and launched twice.
static void streamOrder(cublasHandle_t H) {
  const int N = 64;
  cudaStream_t S;
  CHECK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking));
  CB(cublasSetStream(H, S));
  cudaStream_t Got;
  CB(cublasGetStream(H, &Got));
  EXPECT(Got == S);
  float *DA, *DB, *DC;
  CHECK(cudaMalloc(&DA, N * N * 4));
  CHECK(cudaMalloc(&DB, N * N * 4));
  CHECK(cudaMalloc(&DC, N * N * 4));
  auto sequence = [&](float V) {
    fill<<<N, N, 0, S>>>(DA, N * N, V);
    fill<<<N, N, 0, S>>>(DB, N * N, 1);
    float One = 1, Zero = 0;
    CB(cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &One, DA, N, DB, N, &Zero, DC, N));
    twice<<<N, N, 0, S>>>(DC, N * N);
  };
  auto check = [&](float V) {
    std::vector<float> A(N * N), B(N * N), C0(N * N, 0);
    for (int I = 0; I < N * N; ++I) {
      A[I] = V + I % 7;
      B[I] = 1 + I % 7;
    }
    auto R = host(DC, N * N);
    for (auto &X : R)
      X /= 2;
    checkGemm("stream order", CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, A, N, B, N, C0, R, N, 1.0f, 0.0f, 1e-5);
  };
  sequence(3);
  CHECK(cudaStreamSynchronize(S));
  check(3);
  CHECK(cudaStreamBeginCapture(S, cudaStreamCaptureModeGlobal));
  sequence(5);
  cudaGraph_t G;
  CHECK(cudaStreamEndCapture(S, &G));
  cudaGraphExec_t E;
  CHECK(cudaGraphInstantiate(&E, G, 0));
  for (int I = 0; I < 2; ++I) {
    CHECK(cudaMemsetAsync(DC, 0xff, N * N * 4, S));
    CHECK(cudaGraphLaunch(E, S));
    CHECK(cudaStreamSynchronize(S));
    check(5);
  }
  CHECK(cudaGraphExecDestroy(E));
  CHECK(cudaGraphDestroy(G));
  CB(cublasSetStream(H, nullptr));
  CHECK(cudaStreamDestroy(S));
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DC);
}

static void copiesAndErrors(cublasHandle_t H) {
  // SetMatrix/GetMatrix with leading dimensions past the rows.
  int R = 5, C = 4, Lh = 7, Ld = 6;
  std::vector<double> Hm(Lh * C), Back(Lh * C, -1);
  for (auto &V : Hm)
    V = rnd<double>(false);
  double *D;
  CHECK(cudaMalloc(&D, Ld * C * 8));
  CB(cublasSetMatrix(R, C, 8, Hm.data(), Lh, D, Ld));
  CB(cublasGetMatrix(R, C, 8, D, Ld, Back.data(), Lh));
  int Wrong = 0;
  for (int J = 0; J < C; ++J)
    for (int I = 0; I < Lh; ++I)
      Wrong += Back[J * Lh + I] != (I < R ? Hm[J * Lh + I] : -1.0);
  std::vector<float> V(10), VB(20, 0);
  for (auto &X : V)
    X = rnd<float>(false);
  float *DV;
  CHECK(cudaMalloc(&DV, 40 * 4));
  CB(cublasSetVector(10, 4, V.data(), 1, DV, 3));
  CB(cublasGetVector(10, 4, DV, 3, VB.data(), 2));
  for (int I = 0; I < 10; ++I)
    Wrong += VB[2 * I] != V[I];
  EXPECT(Wrong == 0);
  EXPECT(cublasSetMatrix(R, C, 8, Hm.data(), R - 1, D, Ld) == CUBLAS_STATUS_MAPPING_ERROR); // as cuBLAS answers
  EXPECT(cublasSetVector(5, 8, Hm.data(), 0, D, 1) == CUBLAS_STATUS_INVALID_VALUE);
  int I1 = 1, I0 = 0;
  EXPECT(cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, 16, 16, 33, &I1, DV, CUDA_R_8I, 16, DV, CUDA_R_8I, 33, &I0, DV,
                      CUDA_R_32I, 16, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_NOT_SUPPORTED); // ldb 33
  EXPECT(cublasGemmEx(H, CUBLAS_OP_T, CUBLAS_OP_T, 16, 11, 32, &I1, DV, CUDA_R_8I, 32, DV, CUDA_R_8I, 12, &I0, DV,
                      CUDA_R_32I, 16, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_NOT_SUPPORTED); // n 11
  float One = 1;
  EXPECT(cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &One, DV, 3, DV, 4, &One, DV, 4) ==
         CUBLAS_STATUS_INVALID_VALUE); // lda < m
  EXPECT(cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, -1, 4, 4, &One, DV, 4, DV, 4, &One, DV, 4) ==
         CUBLAS_STATUS_INVALID_VALUE);
  EXPECT(cublasSgemm(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &One, DV, 4, DV, 4, &One, DV, 4) ==
         CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT(cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &One, DV, CUDA_R_64F, 4, DV, CUDA_R_32F, 4, &One, DV,
                      CUDA_R_32F, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT(cublasSetPointerMode(H, (cublasPointerMode_t)7) == CUBLAS_STATUS_INVALID_VALUE);
  EXPECT(std::strcmp(cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE), "CUBLAS_STATUS_INVALID_VALUE") == 0);
  cudaFree(D);
  cudaFree(DV);
}

int main() {
  cublasHandle_t H;
  CB(cublasCreate(&H));
  int Version = 0;
  CB(cublasGetVersion(H, &Version));
  EXPECT(Version >= 130000);
  int NullHandleVersion = 0; // JAX asks with a null handle; NVIDIA's answers
  CB(cublasGetVersion(nullptr, &NullHandleVersion));
  EXPECT(NullHandleVersion == Version);
  cublasPointerMode_t PM;
  CB(cublasGetPointerMode(H, &PM));
  EXPECT(PM == CUBLAS_POINTER_MODE_HOST);
  CB(cublasSetMathMode(H, CUBLAS_TF32_TENSOR_OP_MATH));
  cublasMath_t MM;
  CB(cublasGetMathMode(H, &MM));
  EXPECT(MM == CUBLAS_TF32_TENSOR_OP_MATH);
  CB(cublasSetMathMode(H, CUBLAS_DEFAULT_MATH));

  typedGemm<float>(H, "sgemm", cublasSgemm, false, 1e-5);
  typedGemm<double>(H, "dgemm", cublasDgemm, false, 1e-13);
  typedGemm<cuComplex>(H, "cgemm", cublasCgemm, true, 1e-5);
  typedGemm<cuDoubleComplex>(H, "zgemm", cublasZgemm, true, 1e-13);
  // Half and bfloat16 outputs are rounded once: within half an ulp of the result (plus f32 sums).
  gemmEx<__half, __half, float>(H, "f16 gemmEx", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 2e-3);
  gemmEx<__half, float, float>(H, "f16->f32 gemmEx", CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 1e-5);
  gemmEx<__nv_bfloat16, __nv_bfloat16, float>(H, "bf16 gemmEx", CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 1e-2);
  gemmEx<__half, __half, __half>(H, "f16 compute gemmEx", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F, 2e-3);
  gemmEx<float, float, float>(H, "tf32 gemmEx", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 2e-3);
  gemmEx<int8_t, int32_t, int32_t>(H, "int8 gemmEx", CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, 0);
  batched(H);
  level1(H);
  level2AndGeam(H);
  streamOrder(H);
  copiesAndErrors(H);
  CB(cublasDestroy(H));
  return verdict("cublas_basic", Bad);
}
