// cuBLASLt on our libcublasLt (built with NVIDIA's cublasLt.h): descriptors
// created and initialized in the program's own storage, attributes, the
// heuristic query, matmul with C and D apart, transposes, batches, row-major
// layouts, half precision, epilogues (bias, ReLU, GELU with its auxiliary
// output, dGELU, bias gradients) and the matrix transform; argument errors.
// A cuBLAS handle cast to cublasLtHandle_t works as an Lt handle, as PyTorch
// uses it (at::cuda::getCurrentCUDABlasLtHandle).
// Every result is checked against loops here (GELU's tanh form).
#include "common.h"
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

static int Bad = 0;
static std::mt19937 Rng(std::random_device{}());

#define LT(x)                                                                                      \
  do {                                                                                             \
    cublasStatus_t s_ = (x);                                                                       \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                             \
      std::printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #x, cublasLtGetStatusName(s_));      \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

static float rnd() { return std::uniform_real_distribution<float>(-1, 1)(Rng); }
static double gelu(double X) { return 0.5 * X * (1 + std::tanh(0.7978845608 * (X + 0.044715 * X * X * X))); }

struct Mat { // a logical rows x cols matrix stored with a layout
  int Rows, Cols, Ld;
  bool Row;
  size_t at(int I, int J, int B = 0, long long Stride = 0) const {
    return size_t(B * Stride + (Row ? size_t(I) * Ld + J : size_t(J) * Ld + I));
  }
};

static cublasLtMatrixLayout_t layout(cudaDataType T, const Mat &M, int Batch = 1, long long Stride = 0) {
  cublasLtMatrixLayout_t L;
  LT(cublasLtMatrixLayoutCreate(&L, T, M.Rows, M.Cols, M.Ld));
  cublasLtOrder_t O = M.Row ? CUBLASLT_ORDER_ROW : CUBLASLT_ORDER_COL;
  LT(cublasLtMatrixLayoutSetAttribute(L, CUBLASLT_MATRIX_LAYOUT_ORDER, &O, sizeof O));
  if (Batch > 1) {
    LT(cublasLtMatrixLayoutSetAttribute(L, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &Batch, sizeof Batch));
    LT(cublasLtMatrixLayoutSetAttribute(L, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &Stride, sizeof Stride));
  }
  return L;
}

/// cublasLtMatmul with the first algorithm the heuristic offers and the workspace it asks for.
static cublasStatus_t matmul(cublasLtHandle_t H, cublasLtMatmulDesc_t Op, const void *Alpha, const void *A,
                             cublasLtMatrixLayout_t LA, const void *B, cublasLtMatrixLayout_t LB, const void *Beta,
                             const void *C, cublasLtMatrixLayout_t LC, void *D, cublasLtMatrixLayout_t LD,
                             cudaStream_t S) {
  cublasLtMatmulPreference_t Pref;
  LT(cublasLtMatmulPreferenceCreate(&Pref));
  size_t Ws = 32 << 20;
  LT(cublasLtMatmulPreferenceSetAttribute(Pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &Ws, sizeof Ws));
  cublasLtMatmulHeuristicResult_t Res[4];
  int Count = 0;
  cublasStatus_t St = cublasLtMatmulAlgoGetHeuristic(H, Op, LA, LB, LC, LD, Pref, 4, Res, &Count);
  cublasLtMatmulPreferenceDestroy(Pref);
  if (St)
    return St;
  EXPECT(Count >= 1 && Res[0].state == CUBLAS_STATUS_SUCCESS && Res[0].workspaceSize <= Ws);
  void *Work = nullptr;
  if (Res[0].workspaceSize)
    CHECK(cudaMalloc(&Work, Res[0].workspaceSize));
  St = cublasLtMatmul(H, Op, Alpha, A, LA, B, LB, Beta, C, LC, D, LD, &Res[0].algo, Work, Res[0].workspaceSize, S);
  CHECK(cudaStreamSynchronize(S));
  cudaFree(Work);
  return St;
}

// f32: D = alpha op(A) op(B) + beta C, C and D apart, any orders, batched.
static void f32Matmul(cublasLtHandle_t H, bool RowMajor, cublasOperation_t Ta, cublasOperation_t Tb, int Batch) {
  int M = 5 + Rng() % 20, N = 3 + Rng() % 20, K = 4 + Rng() % 20;
  Mat A{Ta == CUBLAS_OP_N ? M : K, Ta == CUBLAS_OP_N ? K : M, 0, RowMajor},
      B{Tb == CUBLAS_OP_N ? K : N, Tb == CUBLAS_OP_N ? N : K, 0, RowMajor}, C{M, N, 0, RowMajor};
  for (Mat *X : {&A, &B, &C})
    X->Ld = (X->Row ? X->Cols : X->Rows) + int(Rng() % 3);
  long long SA = (long long)A.Ld * (A.Row ? A.Rows : A.Cols), SB = (long long)B.Ld * (B.Row ? B.Rows : B.Cols),
            SC = (long long)C.Ld * (C.Row ? C.Rows : C.Cols);
  std::vector<float> Ah(SA * Batch), Bh(SB * Batch), Ch(SC * Batch), Dh(SC * Batch, NAN);
  for (auto *V : {&Ah, &Bh, &Ch})
    for (auto &X : *V)
      X = rnd();
  float *DA = dev(Ah), *DB = dev(Bh), *DC = dev(Ch), *DD = dev(Dh);
  cublasLtMatmulDescOpaque_t Storage; // the program's own storage
  cublasLtMatmulDesc_t Op = &Storage;
  LT(cublasLtMatmulDescInit(Op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  LT(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_TRANSA, &Ta, sizeof Ta));
  LT(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_TRANSB, &Tb, sizeof Tb));
  cublasLtMatrixLayout_t LA = layout(CUDA_R_32F, A, Batch, SA), LB = layout(CUDA_R_32F, B, Batch, SB),
                         LC = layout(CUDA_R_32F, C, Batch, SC);
  float Alpha = rnd(), Beta = rnd();
  cudaStream_t S;
  CHECK(cudaStreamCreate(&S));
  LT(matmul(H, Op, &Alpha, DA, LA, DB, LB, &Beta, DC, LC, DD, LC, S));
  auto R = host(DD, Dh.size());
  int Wrong = 0;
  for (int Bt = 0; Bt < Batch; ++Bt)
    for (int I = 0; I < M; ++I)
      for (int J = 0; J < N; ++J) {
        double Sum = 0;
        for (int L = 0; L < K; ++L)
          Sum += double(Ta == CUBLAS_OP_N ? Ah[A.at(I, L, Bt, SA)] : Ah[A.at(L, I, Bt, SA)]) *
                 (Tb == CUBLAS_OP_N ? Bh[B.at(L, J, Bt, SB)] : Bh[B.at(J, L, Bt, SB)]);
        double Want = Alpha * Sum + Beta * Ch[C.at(I, J, Bt, SC)];
        Wrong += !(std::fabs(R[C.at(I, J, Bt, SC)] - Want) < 1e-4);
      }
  if (Wrong)
    std::printf("f32 matmul row %d ops %d %d batch %d: %d wrong\n", RowMajor, Ta, Tb, Batch, Wrong);
  EXPECT(Wrong == 0);
  for (auto L : {LA, LB, LC})
    cublasLtMatrixLayoutDestroy(L);
  CHECK(cudaStreamDestroy(S));
  for (float *P : {DA, DB, DC, DD})
    cudaFree(P);
}

// Half in and out, f32 compute, epilogues on D = A B (+ bias): forward ReLU and GELU
// with the auxiliary output, then dGELU with a bias gradient from it.
static void epilogues(cublasLtHandle_t H) {
  const int M = 24, N = 10, K = 16;
  std::vector<__half> A(M * K), B(K * N), Bias(M), D(M * N), Aux(M * N), Grad(M);
  for (auto &X : A)
    X = __float2half(rnd());
  for (auto &X : B)
    X = __float2half(rnd());
  for (auto &X : Bias)
    X = __float2half(rnd());
  __half *DA = dev(A), *DB = dev(B), *DBias = dev(Bias), *DD = dev(D), *DAux = dev(Aux), *DGrad = dev(Grad);
  auto ref = [&](int I, int J) {
    double S = 0;
    for (int L = 0; L < K; ++L)
      S += double(__half2float(A[L * M + I])) * __half2float(B[J * K + L]);
    return S;
  };
  cublasLtMatmulDesc_t Op;
  LT(cublasLtMatmulDescCreate(&Op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasLtMatrixLayout_t LA = layout(CUDA_R_16F, {M, K, M, false}), LB = layout(CUDA_R_16F, {K, N, K, false}),
                         LD = layout(CUDA_R_16F, {M, N, M, false});
  float One = 1, Zero = 0;
  const void *BiasPtr = DBias;
  void *AuxPtr = DAux;
  int64_t AuxLd = M;
  LT(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &BiasPtr, sizeof BiasPtr));
  size_t Need = 0;
  LT(cublasLtMatmulDescGetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE, nullptr, 0, &Need));
  EXPECT(Need == sizeof(cublasLtEpilogue_t));
  int Wrong = 0;
  for (cublasLtEpilogue_t E : {CUBLASLT_EPILOGUE_RELU_BIAS, CUBLASLT_EPILOGUE_GELU_AUX_BIAS}) {
    LT(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE, &E, sizeof E));
    if (E == CUBLASLT_EPILOGUE_GELU_AUX_BIAS) {
      LT(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &AuxPtr, sizeof AuxPtr));
      LT(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &AuxLd, sizeof AuxLd));
    }
    LT(matmul(H, Op, &One, DA, LA, DB, LB, &Zero, DD, LD, DD, LD, 0));
    auto R = host(DD, D.size()), X = host(DAux, Aux.size());
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I) {
        double Pre = ref(I, J) + __half2float(Bias[I]);
        double Want = E == CUBLASLT_EPILOGUE_RELU_BIAS ? std::max(0.0, Pre) : gelu(Pre);
        Wrong += std::fabs(__half2float(R[J * M + I]) - Want) > 4e-3 * (1 + std::fabs(Want));
        if (E == CUBLASLT_EPILOGUE_GELU_AUX_BIAS) // the pre-activation, for the backward pass
          Wrong += std::fabs(__half2float(X[J * M + I]) - Pre) > 4e-3 * (1 + std::fabs(Pre));
      }
  }
  // dGELU with a bias gradient: D = (A B) * gelu'(aux), grad = row sums of D.
  cublasLtEpilogue_t E = CUBLASLT_EPILOGUE_DGELU_BGRAD;
  const void *GradPtr = DGrad;
  LT(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_EPILOGUE, &E, sizeof E));
  LT(cublasLtMatmulDescSetAttribute(Op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &GradPtr, sizeof GradPtr));
  auto AuxH = host(DAux, Aux.size());
  LT(matmul(H, Op, &One, DA, LA, DB, LB, &Zero, DD, LD, DD, LD, 0));
  auto R = host(DD, D.size()), G = host(DGrad, Grad.size());
  for (int I = 0; I < M; ++I) {
    double Sum = 0;
    for (int J = 0; J < N; ++J) {
      double X = __half2float(AuxH[J * M + I]);
      double T = std::tanh(0.7978845608 * (X + 0.044715 * X * X * X));
      double Dg = 0.5 * (1 + T) + 0.5 * X * (1 - T * T) * 0.7978845608 * (1 + 3 * 0.044715 * X * X);
      double Want = ref(I, J) * Dg;
      Wrong += std::fabs(__half2float(R[J * M + I]) - Want) > 4e-3 * (1 + std::fabs(Want));
      Sum += __half2float(R[J * M + I]);
    }
    Wrong += std::fabs(__half2float(G[I]) - Sum) > 1e-2 * (1 + std::fabs(Sum));
  }
  EXPECT(Wrong == 0);
  for (auto L : {LA, LB, LD})
    cublasLtMatrixLayoutDestroy(L);
  cublasLtMatmulDescDestroy(Op);
  for (__half *P : {DA, DB, DBias, DD, DAux, DGrad})
    cudaFree(P);
}

// C = alpha A^T + beta B with B row-major.
static void transform(cublasLtHandle_t H) {
  const int M = 7, N = 5;
  std::vector<float> A(N * M), B(M * N), C(M * N, NAN);
  for (auto &X : A)
    X = rnd();
  for (auto &X : B)
    X = rnd();
  float *DA = dev(A), *DB = dev(B), *DC = dev(C);
  cublasLtMatrixTransformDesc_t T;
  LT(cublasLtMatrixTransformDescCreate(&T, CUDA_R_32F));
  cublasOperation_t Tr = CUBLAS_OP_T;
  LT(cublasLtMatrixTransformDescSetAttribute(T, CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA, &Tr, sizeof Tr));
  cublasLtMatrixLayout_t LA = layout(CUDA_R_32F, {N, M, N, false}), LB = layout(CUDA_R_32F, {M, N, N, true}),
                         LC = layout(CUDA_R_32F, {M, N, M, false});
  float Alpha = 2, Beta = -1;
  LT(cublasLtMatrixTransform(H, T, &Alpha, DA, LA, &Beta, DB, LB, DC, LC, 0));
  CHECK(cudaDeviceSynchronize());
  auto R = host(DC, C.size());
  int Wrong = 0;
  for (int I = 0; I < M; ++I)
    for (int J = 0; J < N; ++J)
      Wrong += std::fabs(R[J * M + I] - (Alpha * A[I * N + J] + Beta * B[I * N + J])) > 1e-6;
  EXPECT(Wrong == 0);
  // Errors: the shapes must agree.
  cublasLtMatmulDesc_t Op;
  LT(cublasLtMatmulDescCreate(&Op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  EXPECT(cublasLtMatmul(H, Op, &Alpha, DA, LA, DB, LB, &Beta, DC, LC, DC, LC, nullptr, nullptr, 0, 0) ==
         CUBLAS_STATUS_INVALID_VALUE); // A is 5x7, B is 7x5, D is 7x5: inner dimensions differ
  cublasLtMatmulDescDestroy(Op);
  cublasLtMatrixTransformDescDestroy(T);
  for (auto L : {LA, LB, LC})
    cublasLtMatrixLayoutDestroy(L);
  for (float *P : {DA, DB, DC})
    cudaFree(P);
}

// The logger (API trace of cublasLtMatmul to a callback), algorithm ids, their initialization, check and
// configuration, and the heuristics cache's capacity.
static int TraceCalls = 0;
static void trace(int Level, const char *Fn, const char *) {
  if (Level == 5 && std::string(Fn).find("cublasLtMatmul") != std::string::npos)
    ++TraceCalls;
}
static void algorithmsAndLogger(cublasLtHandle_t H) {
  const int N = 8;
  std::vector<float> Z(N * N, 0.5f);
  float *DA = dev(Z), *DD;
  CHECK(cudaMalloc(&DD, sizeof(float) * N * N));
  Mat M{N, N, N, false};
  cublasLtMatrixLayout_t L = layout(CUDA_R_32F, M);
  cublasLtMatmulDesc_t Op;
  LT(cublasLtMatmulDescCreate(&Op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  int Ids[8], Count = 0;
  LT(cublasLtMatmulAlgoGetIds(H, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 8, Ids,
                              &Count));
  EXPECT(Count >= 1);
  cublasLtMatmulAlgo_t Algo;
  LT(cublasLtMatmulAlgoInit(H, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, Ids[0],
                            &Algo));
  int Id = -1;
  size_t Written = 0;
  LT(cublasLtMatmulAlgoConfigGetAttribute(&Algo, CUBLASLT_ALGO_CONFIG_ID, &Id, sizeof Id, &Written));
  EXPECT(Id == Ids[0] && Written == sizeof Id);
  // AlgoCheck on the heuristic's choice (an id's default configuration need not suit the problem: NVIDIA's
  // answers NOT_SUPPORTED for some).
  cublasLtMatmulPreference_t Pref;
  LT(cublasLtMatmulPreferenceCreate(&Pref));
  cublasLtMatmulHeuristicResult_t Heur, Res;
  int Found = 0;
  LT(cublasLtMatmulAlgoGetHeuristic(H, Op, L, L, L, L, Pref, 1, &Heur, &Found));
  EXPECT(Found == 1);
  LT(cublasLtMatmulAlgoCheck(H, Op, L, L, L, L, &Heur.algo, &Res));
  EXPECT(Res.state == CUBLAS_STATUS_SUCCESS);
  LT(cublasLtMatmulPreferenceDestroy(Pref));
  int32_t Strided = -1;
  LT(cublasLtMatmulAlgoCapGetAttribute(&Algo, CUBLASLT_ALGO_CAP_STRIDED_BATCH_SUPPORT, &Strided, sizeof Strided,
                                       &Written));
  EXPECT(Strided == 1);
  cublasLtEmulationDesc_t Emu;
  LT(cublasLtEmulationDescCreate(&Emu));
  cudaEmulationStrategy_t Strategy = CUDA_EMULATION_STRATEGY_EAGER, Back = CUDA_EMULATION_STRATEGY_DEFAULT;
  LT(cublasLtEmulationDescSetAttribute(Emu, CUBLASLT_EMULATION_DESC_STRATEGY, &Strategy, sizeof Strategy));
  LT(cublasLtEmulationDescGetAttribute(Emu, CUBLASLT_EMULATION_DESC_STRATEGY, &Back, sizeof Back, &Written));
  EXPECT(Back == CUDA_EMULATION_STRATEGY_EAGER);
  LT(cublasLtEmulationDescDestroy(Emu));
  // The capacity is rounded up to a multiple of 32 (as NVIDIA's, observed on an H100).
  for (auto [Want, Got] : {std::pair<size_t, size_t>{100, 128}, {0, 0}, {1, 32}, {300, 320}, {1000, 1024}, {8192, 8192}}) {
    size_t Cap = 7;
    LT(cublasLtHeuristicsCacheSetCapacity(Want));
    LT(cublasLtHeuristicsCacheGetCapacity(&Cap));
    EXPECT(Cap == Got);
  }
  LT(cublasLtLoggerSetCallback(trace));
  LT(cublasLtLoggerSetLevel(5));
  float One = 1, Zero = 0;
  void *Work = nullptr;
  if (Heur.workspaceSize)
    CHECK(cudaMalloc(&Work, Heur.workspaceSize));
  LT(cublasLtMatmul(H, Op, &One, DA, L, DA, L, &Zero, DD, L, DD, L, &Heur.algo, Work, Heur.workspaceSize, 0));
  CHECK(cudaDeviceSynchronize());
  LT(cublasLtLoggerSetLevel(0));
  LT(cublasLtLoggerSetCallback(nullptr));
  EXPECT(TraceCalls >= 1);
  auto R = host(DD, size_t(N) * N);
  EXPECT(std::fabs(R[0] - 0.25f * N) < 1e-5f);
  cublasLtMatmulDescDestroy(Op);
  cublasLtMatrixLayoutDestroy(L);
  cudaFree(DA);
  cudaFree(DD);
  cudaFree(Work);
}

int main() {
  cublasLtHandle_t H;
  LT(cublasLtCreate(&H));
  EXPECT(cublasLtGetVersion() >= 130000);
  for (bool Row : {false, true})
    for (auto Ta : {CUBLAS_OP_N, CUBLAS_OP_T})
      for (auto Tb : {CUBLAS_OP_N, CUBLAS_OP_T})
        f32Matmul(H, Row, Ta, Tb, Row ? 1 : 3);
  epilogues(H);
  transform(H);
  algorithmsAndLogger(H);
  LT(cublasLtDestroy(H));
  // A destroyed handle, a stack address and null: the reference's status, never a crash.
  EXPECT(cublasLtDestroy(H) == CUBLAS_STATUS_NOT_INITIALIZED);
  int NotAHandle = 0x48616e64;
  EXPECT(cublasLtDestroy(reinterpret_cast<cublasLtHandle_t>(&NotAHandle)) == CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT(cublasLtDestroy(nullptr) == CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT(cublasLtCreate(nullptr) == CUBLAS_STATUS_INVALID_VALUE);

  // PyTorch's Lt handle is its cuBLAS handle, cast; its stream is left as it was.
  cublasHandle_t Blas;
  EXPECT(cublasCreate(&Blas) == CUBLAS_STATUS_SUCCESS);
  cudaStream_t Mine;
  cudaStreamCreate(&Mine);
  EXPECT(cublasSetStream(Blas, Mine) == CUBLAS_STATUS_SUCCESS);
  auto *AsLt = reinterpret_cast<cublasLtHandle_t>(Blas);
  f32Matmul(AsLt, false, CUBLAS_OP_T, CUBLAS_OP_N, 1);
  epilogues(AsLt);
  cudaStream_t After = nullptr;
  EXPECT(cublasGetStream(Blas, &After) == CUBLAS_STATUS_SUCCESS && After == Mine);
  EXPECT(cublasDestroy(Blas) == CUBLAS_STATUS_SUCCESS);
  cudaStreamDestroy(Mine);
  return verdict("cublaslt_matmul", Bad);
}
