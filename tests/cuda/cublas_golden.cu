// Golden cases for our math libraries: fixed inputs (a generator here, the
// same on every machine) through cuBLAS and cuBLASLt; `--record FILE` writes
// the outputs (recorded with NVIDIA's libraries on an H200, see
// tests/golden/PROVENANCE.txt), `FILE` checks ours against them. GEMM-like
// results may differ by the order of the sums: each element is allowed
// Tol * (the sum of the magnitudes of its products, and of beta C) plus one
// unit in the last place of the output type; integer results, pivots and
// indices must be equal.
#include "common.h"
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

static int Bad = 0;

#define CB(x)                                                                                      \
  do {                                                                                             \
    cublasStatus_t s_ = (x);                                                                       \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                             \
      std::printf("FAIL %s:%d %s: %d\n", __FILE__, __LINE__, #x, (int)s_);                        \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

// --- inputs: a fixed generator ----------------------------------------------------------------

static uint64_t State = 0x9e3779b97f4a7c15ull;
static double next() { // in [-1, 1), 2^-20 steps (exact in every type used)
  State ^= State << 13;
  State ^= State >> 7;
  State ^= State << 17;
  return (static_cast<int64_t>(State >> 43) - (1 << 20)) / double(1 << 20);
}

// --- results: name -> values (doubles; bounds beside them) --------------------------------------

struct Result {
  std::vector<double> V, Bound; ///< Bound: the allowed difference (0: exact)
};
static std::map<std::string, Result> Got;

static void put(const std::string &Name, std::vector<double> V, std::vector<double> Bound) {
  Got[Name] = Result{std::move(V), std::move(Bound)};
}

/// A GEMM case of type T (f32/f64): C = alpha op(A) op(B) + beta C.
template <typename T>
void gemmCase(cublasHandle_t H, const char *Name, cublasOperation_t Ta, cublasOperation_t Tb, int M, int N, int K,
              double Tol) {
  int Lda = (Ta == CUBLAS_OP_N ? M : K) + 3, Ldb = (Tb == CUBLAS_OP_N ? K : N) + 1, Ldc = M + 2;
  std::vector<T> A(size_t(Lda) * (Ta == CUBLAS_OP_N ? K : M)), B(size_t(Ldb) * (Tb == CUBLAS_OP_N ? N : K)),
      C(size_t(Ldc) * N);
  for (auto &X : A)
    X = T(next());
  for (auto &X : B)
    X = T(next());
  for (auto &X : C)
    X = T(next());
  T Alpha = T(0.75), Beta = T(-0.5);
  T *DA = dev(A), *DB = dev(B), *DC = dev(C);
  if constexpr (sizeof(T) == 4)
    CB(cublasSgemm(H, Ta, Tb, M, N, K, &Alpha, DA, Lda, DB, Ldb, &Beta, DC, Ldc));
  else
    CB(cublasDgemm(H, Ta, Tb, M, N, K, &Alpha, DA, Lda, DB, Ldb, &Beta, DC, Ldc));
  auto R = host(DC, C.size());
  std::vector<double> V, Bd;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      double Mag = 0;
      for (int L = 0; L < K; ++L)
        Mag += std::fabs(double(Ta == CUBLAS_OP_N ? A[size_t(L) * Lda + I] : A[size_t(I) * Lda + L]) *
                         double(Tb == CUBLAS_OP_N ? B[size_t(J) * Ldb + L] : B[size_t(L) * Ldb + J]));
      V.push_back(double(R[size_t(J) * Ldc + I]));
      Bd.push_back(Tol * (0.75 * Mag + 0.5 * std::fabs(double(C[size_t(J) * Ldc + I]))));
    }
  put(Name, V, Bd);
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DC);
}

/// Half or bfloat16 in and out, f32 compute (GemmEx): one rounding of the output allowed either way.
template <typename T>
void lowPrecision(cublasHandle_t H, const char *Name, cudaDataType DT, double Ulp, double SumTol) {
  const int M = 48, N = 40, K = 256;
  std::vector<T> A(M * K), B(K * N), C(M * N);
  for (auto &X : A)
    X = T(float(next()));
  for (auto &X : B)
    X = T(float(next()));
  for (auto &X : C)
    X = T(float(next()));
  float Alpha = 1, Beta = 1;
  T *DA = dev(A), *DB = dev(B), *DC = dev(C);
  CB(cublasGemmEx(H, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &Alpha, DA, DT, K, DB, DT, K, &Beta, DC, DT, M,
                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  // A is read transposed: stored K x M.
  std::vector<T> At(K * M);
  for (int I = 0; I < M; ++I)
    for (int L = 0; L < K; ++L)
      At[I * K + L] = A[I * K + L];
  auto R = host(DC, C.size());
  std::vector<double> V, Bd;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      double Mag = 0;
      for (int L = 0; L < K; ++L)
        Mag += std::fabs(double(float(At[I * K + L])) * double(float(B[J * K + L])));
      double Out = double(float(R[J * M + I]));
      V.push_back(Out);
      // NVIDIA's tensor cores sum f16/bf16 products with less care than IEEE
      // f32 adds (seen at K = 256: 3e-6 of the magnitudes for f16, 4.5e-5 for
      // bf16): SumTol of them.
      Bd.push_back(SumTol * (Mag + std::fabs(double(float(C[J * M + I])))) + Ulp * std::fabs(Out));
    }
  put(Name, V, Bd);
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DC);
}

static void int8Case(cublasHandle_t H) {
  const int M = 32, N = 32, K = 64; // a shape NVIDIA's int8 kernels take (n = 24 with k <= 64 has none)
  std::vector<int8_t> A(M * K), B(K * N);
  for (auto &X : A)
    X = int8_t(std::lround(next() * 127));
  for (auto &X : B)
    X = int8_t(std::lround(next() * 127));
  std::vector<int32_t> C(M * N, 7);
  int32_t Alpha = 2, Beta = -3;
  int8_t *DA = dev(A), *DB = dev(B);
  int32_t *DC = dev(C);
  CB(cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &Alpha, DA, CUDA_R_8I, M, DB, CUDA_R_8I, K, &Beta, DC,
                  CUDA_R_32I, M, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
  auto R = host(DC, C.size());
  put("int8_gemm", std::vector<double>(R.begin(), R.end()), std::vector<double>(R.size(), 0));
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DC);
}

static void level12(cublasHandle_t H) {
  const int N = 1000;
  std::vector<float> X(N), Y(N);
  for (auto &V : X)
    V = float(next());
  for (auto &V : Y)
    V = float(next());
  float *DX = dev(X), *DY = dev(Y);
  float Dot, Nrm, Asum;
  int Imax, Imin;
  CB(cublasSdot(H, N, DX, 1, DY, 1, &Dot));
  CB(cublasSnrm2(H, N, DX, 1, &Nrm));
  CB(cublasSasum(H, N, DX, 1, &Asum));
  CB(cublasIsamax(H, N, DX, 1, &Imax));
  CB(cublasIsamin(H, N, DX, 1, &Imin));
  double Mag = 0, Sq = 0, Ab = 0;
  for (int I = 0; I < N; ++I) {
    Mag += std::fabs(double(X[I]) * Y[I]);
    Sq += double(X[I]) * X[I];
    Ab += std::fabs(X[I]);
  }
  put("sdot", {Dot}, {1e-6 * Mag});
  put("snrm2", {Nrm}, {1e-6 * std::sqrt(Sq)});
  put("sasum", {Asum}, {1e-6 * Ab});
  put("isamax_isamin", {double(Imax), double(Imin)}, {0, 0});
  // gemv, transposed, with a stride on x.
  const int M = 37, Nc = 29, Lda = 40;
  std::vector<float> A(Lda * Nc);
  for (auto &V : A)
    V = float(next());
  float *DA = dev(A), Alpha = 1.5f, Beta = 0.25f;
  CB(cublasSgemv(H, CUBLAS_OP_T, M, Nc, &Alpha, DA, Lda, DX, 2, &Beta, DY, 1));
  auto R = host(DY, Nc);
  std::vector<double> V, Bd;
  for (int J = 0; J < Nc; ++J) {
    double M2 = 0;
    for (int I = 0; I < M; ++I)
      M2 += std::fabs(double(A[J * Lda + I]) * X[2 * I]);
    V.push_back(R[J]);
    Bd.push_back(1e-6 * (1.5 * M2 + 0.25 * std::fabs(Y[J])));
  }
  put("sgemv_t", V, Bd);
  cudaFree(DX);
  cudaFree(DY);
  cudaFree(DA);
}

static void luCase(cublasHandle_t H) {
  const int N = 12, Count = 2;
  std::vector<double> A(N * N * Count);
  for (auto &V : A)
    V = next();
  double *DA = dev(A), *DC;
  CHECK(cudaMalloc(&DC, A.size() * 8));
  std::vector<double *> PA = {DA, DA + N * N}, PC = {DC, DC + N * N};
  double **DPA = dev(PA), **DPC = dev(PC);
  int *DPiv, *DInfo;
  CHECK(cudaMalloc(&DPiv, N * Count * 4));
  CHECK(cudaMalloc(&DInfo, Count * 4));
  CB(cublasDgetrfBatched(H, N, DPA, N, DPiv, DInfo, Count));
  auto Piv = host(DPiv, N * Count);
  auto LU = host(DA, A.size());
  CB(cublasDgetriBatched(H, N, (const double **)DPA, N, DPiv, DPC, N, DInfo, Count));
  auto Inv = host(DC, A.size());
  put("dgetrf_pivots", std::vector<double>(Piv.begin(), Piv.end()), std::vector<double>(Piv.size(), 0));
  put("dgetrf_lu", std::vector<double>(LU.begin(), LU.end()), std::vector<double>(LU.size(), 1e-12));
  put("dgetri_inverse", std::vector<double>(Inv.begin(), Inv.end()), std::vector<double>(Inv.size(), 1e-10));
  for (void *P : {(void *)DA, (void *)DC, (void *)DPA, (void *)DPC, (void *)DPiv, (void *)DInfo})
    cudaFree(P);
}

/// cuBLASLt: half in and out, GELU with a bias, f32 compute.
static void ltGelu(cublasLtHandle_t Lt) {
  const int M = 32, N = 16, K = 64;
  std::vector<__half> A(M * K), B(K * N), D(M * N), Bias(M);
  for (auto &X : A)
    X = __float2half(float(next()));
  for (auto &X : B)
    X = __float2half(float(next()));
  for (auto &X : Bias)
    X = __float2half(float(next()));
  __half *DA = dev(A), *DB = dev(B), *DD = dev(D), *DBias = dev(Bias);
  cublasLtMatmulDesc_t Op;
  CB(cublasLtMatmulDescCreate(&Op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasLtEpilogue_t E = CUBLASLT_EPILOGUE_GELU_BIAS;
  CB(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE, &E, sizeof E));
  const void *BP = DBias;
  CB(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &BP, sizeof BP));
  cublasLtMatrixLayout_t LA, LB, LD;
  CB(cublasLtMatrixLayoutCreate(&LA, CUDA_R_16F, M, K, M));
  CB(cublasLtMatrixLayoutCreate(&LB, CUDA_R_16F, K, N, K));
  CB(cublasLtMatrixLayoutCreate(&LD, CUDA_R_16F, M, N, M));
  cublasLtMatmulPreference_t P;
  CB(cublasLtMatmulPreferenceCreate(&P));
  size_t Ws = 32 << 20;
  CB(cublasLtMatmulPreferenceSetAttribute(P, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &Ws, sizeof Ws));
  cublasLtMatmulHeuristicResult_t Res;
  int Count = 0;
  CB(cublasLtMatmulAlgoGetHeuristic(Lt, Op, LA, LB, LD, LD, P, 1, &Res, &Count));
  void *W = nullptr;
  if (Res.workspaceSize)
    CHECK(cudaMalloc(&W, Res.workspaceSize));
  float One = 1, Zero = 0;
  CB(cublasLtMatmul(Lt, Op, &One, DA, LA, DB, LB, &Zero, DD, LD, DD, LD, &Res.algo, W, Res.workspaceSize, 0));
  CHECK(cudaDeviceSynchronize());
  auto R = host(DD, D.size());
  std::vector<double> V, Bd;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      double Mag = std::fabs(__half2float(Bias[I]));
      for (int L = 0; L < K; ++L)
        Mag += std::fabs(double(__half2float(A[L * M + I])) * __half2float(B[J * K + L]));
      double Out = __half2float(R[J * M + I]);
      V.push_back(Out);
      Bd.push_back(1e-5 * Mag + 2.0 / 1024 * std::fabs(Out) + 1e-4); // two half ulps, GELU's own rounding
    }
  put("lt_gelu_bias_f16", V, Bd);
  cublasLtMatmulPreferenceDestroy(P);
  for (auto L : {LA, LB, LD})
    cublasLtMatrixLayoutDestroy(L);
  cublasLtMatmulDescDestroy(Op);
  cudaFree(W);
  for (__half *X : {DA, DB, DD, DBias})
    cudaFree(X);
}

int main(int Argc, char **Argv) {
  if (Argc < 2) {
    std::printf("FAIL usage: cublas_golden [--record] FILE\n");
    return 1;
  }
  bool Record = std::strcmp(Argv[1], "--record") == 0;
  const char *File = Argv[Record ? 2 : 1];
  cublasHandle_t H;
  CB(cublasCreate(&H));
  cublasLtHandle_t Lt;
  CB(cublasLtCreate(&Lt));
  gemmCase<float>(H, "sgemm_nn", CUBLAS_OP_N, CUBLAS_OP_N, 64, 48, 80, 2e-6);
  gemmCase<float>(H, "sgemm_tn", CUBLAS_OP_T, CUBLAS_OP_N, 33, 65, 127, 2e-6);
  gemmCase<float>(H, "sgemm_nt", CUBLAS_OP_N, CUBLAS_OP_T, 17, 9, 300, 2e-6);
  gemmCase<double>(H, "dgemm_tt", CUBLAS_OP_T, CUBLAS_OP_T, 31, 29, 41, 1e-14);
  lowPrecision<__half>(H, "hgemm_ex_f16", CUDA_R_16F, 1.0 / 1024, 1e-5);
  lowPrecision<__nv_bfloat16>(H, "gemm_ex_bf16", CUDA_R_16BF, 1.0 / 128, 1e-4);
  int8Case(H);
  level12(H);
  luCase(H);
  ltGelu(Lt);
  CB(cublasLtDestroy(Lt));
  CB(cublasDestroy(H));
  if (Record) {
    std::ofstream Out(File);
    for (auto &[Name, R] : Got) {
      Out << Name << " " << R.V.size();
      for (double V : R.V) {
        char Buf[40];
        std::snprintf(Buf, sizeof Buf, " %a", V);
        Out << Buf;
      }
      Out << "\n";
    }
    std::printf("cublas_golden: recorded %zu cases: PASS\n", Got.size());
    return 0;
  }
  std::ifstream In(File);
  if (!In) {
    std::printf("FAIL cannot read %s\n", File);
    return 1;
  }
  size_t Cases = 0;
  for (std::string Line; std::getline(In, Line);) {
    std::istringstream S(Line);
    std::string Name;
    size_t N;
    S >> Name >> N;
    auto It = Got.find(Name);
    if (It == Got.end() || It->second.V.size() != N) {
      std::printf("FAIL %s: no such case here, or another size\n", Name.c_str());
      ++Bad;
      continue;
    }
    ++Cases;
    int Wrong = 0;
    for (size_t I = 0; I < N; ++I) {
      std::string Tok;
      S >> Tok;
      double Want = std::strtod(Tok.c_str(), nullptr), Have = It->second.V[I];
      if (!(std::fabs(Have - Want) <= It->second.Bound[I])) {
        if (Wrong < 3)
          std::printf("%s[%zu]: ours %.17g, NVIDIA's %.17g (allowed %.3g)\n", Name.c_str(), I, Have, Want,
                      It->second.Bound[I]);
        ++Wrong;
      }
    }
    EXPECT(Wrong == 0);
  }
  EXPECT(Cases == Got.size());
  return verdict("cublas_golden", Bad);
}
