//===- Blas.cpp - cuBLAS levels 1, 2 and 3, the Ex forms ------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Every export checks its arguments as the cuBLAS reference states
/// (CUBLAS_STATUS_INVALID_VALUE), describes the operation and hands it to
/// the backend. The S, D, C, Z forms and their _64 twins come from one
/// macro each. Results in host memory (dot, nrm2, asum, amax in host
/// pointer mode) make the call blocking, as in cuBLAS.
#include "libs/cublas/Cublas.h"

#include <algorithm>

using namespace zluda::cublas;
namespace libs = zluda::libs;

namespace {

bool isComplex(cudaDataType T) { return T == CUDA_C_32F || T == CUDA_C_64F || T == CUDA_C_16F || T == CUDA_C_8I; }

/// Bytes of a scalar of the compute type (complex when the output is complex).
size_t scalarBytes(cublasComputeType_t C, cudaDataType Out) {
  bool Cx = isComplex(Out);
  switch (C) {
  case CUBLAS_COMPUTE_16F:
  case CUBLAS_COMPUTE_16F_PEDANTIC: return Cx ? 4 : 2;
  case CUBLAS_COMPUTE_64F:
  case CUBLAS_COMPUTE_64F_PEDANTIC: return Cx ? 16 : 8;
  case CUBLAS_COMPUTE_32I:
  case CUBLAS_COMPUTE_32I_PEDANTIC: return 4;
  default: return Cx ? 8 : 4;
  }
}

/// cublasGemmEx before CUDA 11 took a cudaDataType as the compute type; those values still come from old binaries.
cublasComputeType_t computeOf(int C) {
  switch (C) {
  case CUDA_R_32F:
  case CUDA_C_32F: return CUBLAS_COMPUTE_32F;
  case CUDA_R_64F:
  case CUDA_C_64F: return CUBLAS_COMPUTE_64F;
  case CUDA_R_16F: return CUBLAS_COMPUTE_16F;
  case CUDA_R_32I: return CUBLAS_COMPUTE_32I;
  default: return static_cast<cublasComputeType_t>(C);
  }
}

/// The type combinations of cublasGemmEx's reference table.
bool supportedCombination(cublasComputeType_t C, cudaDataType A, cudaDataType B, cudaDataType Out) {
  if (A != B)
    return false;
  switch (C) {
  case CUBLAS_COMPUTE_16F:
  case CUBLAS_COMPUTE_16F_PEDANTIC: return A == CUDA_R_16F && Out == CUDA_R_16F;
  case CUBLAS_COMPUTE_32F:
  case CUBLAS_COMPUTE_32F_PEDANTIC:
    return (A == CUDA_R_16BF && (Out == CUDA_R_16BF || Out == CUDA_R_32F)) ||
           (A == CUDA_R_16F && (Out == CUDA_R_16F || Out == CUDA_R_32F)) || (A == CUDA_R_8I && Out == CUDA_R_32F) ||
           (A == CUDA_R_32F && Out == CUDA_R_32F) || (A == CUDA_C_32F && Out == CUDA_C_32F) ||
           (A == CUDA_C_8I && Out == CUDA_C_32F);
  case CUBLAS_COMPUTE_32F_FAST_16F:
  case CUBLAS_COMPUTE_32F_FAST_16BF:
  case CUBLAS_COMPUTE_32F_FAST_TF32: return (A == CUDA_R_32F && Out == CUDA_R_32F) || (A == CUDA_C_32F && Out == CUDA_C_32F);
  case CUBLAS_COMPUTE_64F:
  case CUBLAS_COMPUTE_64F_PEDANTIC: return (A == CUDA_R_64F && Out == CUDA_R_64F) || (A == CUDA_C_64F && Out == CUDA_C_64F);
  case CUBLAS_COMPUTE_32I:
  case CUBLAS_COMPUTE_32I_PEDANTIC: return A == CUDA_R_8I && Out == CUDA_R_32I;
  default: return false;
  }
}

cublasStatus_t gemm(cublasHandle_t Hd, cublasOperation_t Ta, cublasOperation_t Tb, int64_t M, int64_t N, int64_t K,
                    const void *Alpha, const void *A, cudaDataType AT, int64_t Lda, const void *B, cudaDataType BT,
                    int64_t Ldb, const void *Beta, void *C, cudaDataType CT, int64_t Ldc, cublasComputeType_t Compute,
                    int64_t StrideA, int64_t StrideB, int64_t StrideC, int64_t Batch, bool Ptrs) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!validOp(Ta) || !validOp(Tb) || M < 0 || N < 0 || K < 0 || Batch < 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (Lda < std::max<int64_t>(1, Ta == CUBLAS_OP_N ? M : K) || Ldb < std::max<int64_t>(1, Tb == CUBLAS_OP_N ? K : N) ||
      Ldc < std::max<int64_t>(1, M))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!supportedCombination(Compute, AT, BT, CT)) {
    libs::notSupported("cuBLAS", "GEMM with this combination of types and compute type");
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  if (Compute == CUBLAS_COMPUTE_32I || Compute == CUBLAS_COMPUTE_32I_PEDANTIC) {
    // int8 -> int32 as an H200's cuBLAS 13.1 takes it (probed): lda and ldb
    // multiples of 4, 4-byte aligned matrices; with B transposed also ldc,
    // and m or n (A not transposed) or both (A transposed) multiples of 4.
    // Not mirrored: shapes its heuristics find no kernel for although they
    // meet these (e.g. m >= 32, n = 24, k <= 64, neither transposed).
    bool Aligned = Ptrs || !((reinterpret_cast<uintptr_t>(A) | reinterpret_cast<uintptr_t>(B) |
                              reinterpret_cast<uintptr_t>(C)) & 3);
    bool Ok = Aligned && Lda % 4 == 0 && Ldb % 4 == 0;
    if (Tb != CUBLAS_OP_N)
      Ok &= Ldc % 4 == 0 && (Ta == CUBLAS_OP_N ? (M % 4 == 0 || N % 4 == 0) : (M % 4 == 0 && N % 4 == 0));
    if (!Ok) {
      libs::notSupported("cuBLAS", "int8 GEMM with these leading dimensions or sizes (as NVIDIA's cuBLAS)");
      return CUBLAS_STATUS_NOT_SUPPORTED;
    }
  }
  if (M == 0 || N == 0 || Batch == 0)
    return CUBLAS_STATUS_SUCCESS;
  if (!Alpha || !Beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  Gemm G;
  G.TransA = Ta;
  G.TransB = Tb;
  G.M = M;
  G.N = N;
  G.K = K;
  G.AType = AT;
  G.BType = BT;
  G.CType = CT;
  G.Compute = Compute;
  G.A = A;
  G.B = B;
  G.C = C;
  G.Lda = Lda;
  G.Ldb = Ldb;
  G.Ldc = Ldc;
  G.StrideA = StrideA;
  G.StrideB = StrideB;
  G.StrideC = StrideC;
  G.Batch = Batch;
  G.Ptrs = Ptrs;
  size_t SB = scalarBytes(Compute, CT);
  G.Alpha = Scalar(*H, Alpha, SB);
  G.Beta = Scalar(*H, Beta, SB);
  return backend()->gemm(*H, G);
}

cublasStatus_t level1(cublasHandle_t Hd, L1 Op, cudaDataType T, int64_t N, const void *X, int64_t IncX, void *Y,
                      int64_t IncY, const void *Alpha, size_t AlphaBytes, void *Result, bool Result64 = false,
                      bool RealScalar = false) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  bool Reduces = Op == L1::Dot || Op == L1::Dotc || Op == L1::Nrm2 || Op == L1::Asum || Op == L1::Amax ||
                 Op == L1::Amin;
  if (Reduces && !Result)
    return CUBLAS_STATUS_INVALID_VALUE;
  if ((Op == L1::Axpy || Op == L1::Scal) && !Alpha)
    return CUBLAS_STATUS_INVALID_VALUE;
  Level1 L;
  L.Op = Op;
  L.T = T;
  L.RealScalar = RealScalar;
  L.N = N;
  L.X = const_cast<void *>(X);
  L.Y = Y;
  L.IncX = IncX;
  L.IncY = IncY;
  if (Alpha)
    L.Alpha = Scalar(*H, Alpha, AlphaBytes);
  L.Result = Result;
  L.Result64 = Result64;
  if (cublasStatus_t S = backend()->level1(*H, L))
    return S;
  // A result in host memory is there when the call returns.
  if (Reduces && H->PointerMode == CUBLAS_POINTER_MODE_HOST && libs::wait(H->Stream))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t gemv(cublasHandle_t Hd, cublasOperation_t Trans, cudaDataType T, int64_t M, int64_t N,
                    const void *Alpha, const void *A, int64_t Lda, const void *X, int64_t IncX, const void *Beta,
                    void *Y, int64_t IncY, size_t ScalarBytes) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!validOp(Trans) || M < 0 || N < 0 || Lda < std::max<int64_t>(1, M) || IncX == 0 || IncY == 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (M == 0 || N == 0)
    return CUBLAS_STATUS_SUCCESS;
  if (!Alpha || !Beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  Gemv G;
  G.Trans = Trans;
  G.T = T;
  G.M = M;
  G.N = N;
  G.Lda = Lda;
  G.IncX = IncX;
  G.IncY = IncY;
  G.A = A;
  G.X = X;
  G.Y = Y;
  G.Alpha = Scalar(*H, Alpha, ScalarBytes);
  G.Beta = Scalar(*H, Beta, ScalarBytes);
  return backend()->gemv(*H, G);
}

cublasStatus_t geam(cublasHandle_t Hd, cublasOperation_t Ta, cublasOperation_t Tb, cudaDataType T, int64_t M,
                    int64_t N, const void *Alpha, const void *A, int64_t Lda, const void *Beta, const void *B,
                    int64_t Ldb, void *C, int64_t Ldc, size_t ScalarBytes) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!validOp(Ta) || !validOp(Tb) || M < 0 || N < 0 || Ldc < std::max<int64_t>(1, M) ||
      Lda < std::max<int64_t>(1, Ta == CUBLAS_OP_N ? M : N) || Ldb < std::max<int64_t>(1, Tb == CUBLAS_OP_N ? M : N))
    return CUBLAS_STATUS_INVALID_VALUE;
  // In place only where the reference allows it: C = A (lda == ldc, no transpose) or C = B likewise.
  if ((C == A && (Ta != CUBLAS_OP_N || Lda != Ldc)) || (C == B && (Tb != CUBLAS_OP_N || Ldb != Ldc)))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (M == 0 || N == 0)
    return CUBLAS_STATUS_SUCCESS;
  if (!Alpha || !Beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  Geam G;
  G.TransA = Ta;
  G.TransB = Tb;
  G.T = T;
  G.M = M;
  G.N = N;
  G.Lda = Lda;
  G.Ldb = Ldb;
  G.Ldc = Ldc;
  G.A = A;
  G.B = B;
  G.C = C;
  G.Alpha = Scalar(*H, Alpha, ScalarBytes);
  G.Beta = Scalar(*H, Beta, ScalarBytes);
  return backend()->geam(*H, G);
}

cublasStatus_t dgmm(cublasHandle_t Hd, cublasSideMode_t Side, cudaDataType T, int64_t M, int64_t N, const void *A,
                    int64_t Lda, const void *X, int64_t IncX, void *C, int64_t Ldc) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if ((Side != CUBLAS_SIDE_LEFT && Side != CUBLAS_SIDE_RIGHT) || M < 0 || N < 0 || Lda < std::max<int64_t>(1, M) ||
      Ldc < std::max<int64_t>(1, M) || (C == A && Lda != Ldc))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (M == 0 || N == 0)
    return CUBLAS_STATUS_SUCCESS;
  Geam G;
  G.Dgmm = true;
  G.Side = Side;
  G.T = T;
  G.M = M;
  G.N = N;
  G.Lda = Lda;
  G.Ldc = Ldc;
  G.IncX = IncX;
  G.A = A;
  G.B = X;
  G.C = C;
  return backend()->geam(*H, G);
}

} // namespace

// --- level 3 ------------------------------------------------------------------------------

#define GEMM_FORMS(P, T, DT, CT)                                                                                       \
  CUBLAS_API cublasStatus_t cublas##P##gemm_v2(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb, int M,     \
                                               int N, int K, const T *Alpha, const T *A, int Lda, const T *B, int Ldb, \
                                               const T *Beta, T *C, int Ldc) {                                         \
    return gemm(H, Ta, Tb, M, N, K, Alpha, A, DT, Lda, B, DT, Ldb, Beta, C, DT, Ldc, CT, 0, 0, 0, 1, false);           \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##gemm_v2_64(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb,        \
                                                  int64_t M, int64_t N, int64_t K, const T *Alpha, const T *A,         \
                                                  int64_t Lda, const T *B, int64_t Ldb, const T *Beta, T *C,           \
                                                  int64_t Ldc) {                                                       \
    return gemm(H, Ta, Tb, M, N, K, Alpha, A, DT, Lda, B, DT, Ldb, Beta, C, DT, Ldc, CT, 0, 0, 0, 1, false);           \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##gemmStridedBatched(                                                             \
      cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb, int M, int N, int K, const T *Alpha, const T *A,   \
      int Lda, long long SA, const T *B, int Ldb, long long SB, const T *Beta, T *C, int Ldc, long long SC, int Count) {  \
    return gemm(H, Ta, Tb, M, N, K, Alpha, A, DT, Lda, B, DT, Ldb, Beta, C, DT, Ldc, CT, SA, SB, SC, Count, false);    \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##gemmStridedBatched_64(                                                          \
      cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb, int64_t M, int64_t N, int64_t K, const T *Alpha,   \
      const T *A, int64_t Lda, long long SA, const T *B, int64_t Ldb, long long SB, const T *Beta, T *C, int64_t Ldc,  \
      long long SC, int64_t Count) {                                                                                   \
    return gemm(H, Ta, Tb, M, N, K, Alpha, A, DT, Lda, B, DT, Ldb, Beta, C, DT, Ldc, CT, SA, SB, SC, Count, false);    \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##gemmBatched(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb,       \
                                                   int M, int N, int K, const T *Alpha, const T *const A[], int Lda,   \
                                                   const T *const B[], int Ldb, const T *Beta, T *const C[], int Ldc,  \
                                                   int Count) {                                                        \
    return gemm(H, Ta, Tb, M, N, K, Alpha, A, DT, Lda, B, DT, Ldb, Beta, const_cast<T **>(C), DT, Ldc, CT, 0, 0, 0,    \
                Count, true);                                                                                          \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##gemmBatched_64(                                                                 \
      cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb, int64_t M, int64_t N, int64_t K, const T *Alpha,   \
      const T *const A[], int64_t Lda, const T *const B[], int64_t Ldb, const T *Beta, T *const C[], int64_t Ldc,      \
      int64_t Count) {                                                                                                 \
    return gemm(H, Ta, Tb, M, N, K, Alpha, A, DT, Lda, B, DT, Ldb, Beta, const_cast<T **>(C), DT, Ldc, CT, 0, 0, 0,    \
                Count, true);                                                                                          \
  }
GEMM_FORMS(S, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
GEMM_FORMS(D, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)
GEMM_FORMS(C, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F)
GEMM_FORMS(Z, cuDoubleComplex, CUDA_C_64F, CUBLAS_COMPUTE_64F)
// Hgemm: half inputs, outputs and scalars; the same forms without a _v2 suffix.
using Half = uint16_t;
CUBLAS_API cublasStatus_t cublasHgemm(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb, int M, int N, int K,
                                      const Half *Alpha, const Half *A, int Lda, const Half *B, int Ldb,
                                      const Half *Beta, Half *C, int Ldc) {
  return gemm(H, Ta, Tb, M, N, K, Alpha, A, CUDA_R_16F, Lda, B, CUDA_R_16F, Ldb, Beta, C, CUDA_R_16F, Ldc,
              CUBLAS_COMPUTE_16F, 0, 0, 0, 1, false);
}
CUBLAS_API cublasStatus_t cublasHgemm_64(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb, int64_t M,
                                         int64_t N, int64_t K, const Half *Alpha, const Half *A, int64_t Lda,
                                         const Half *B, int64_t Ldb, const Half *Beta, Half *C, int64_t Ldc) {
  return gemm(H, Ta, Tb, M, N, K, Alpha, A, CUDA_R_16F, Lda, B, CUDA_R_16F, Ldb, Beta, C, CUDA_R_16F, Ldc,
              CUBLAS_COMPUTE_16F, 0, 0, 0, 1, false);
}
CUBLAS_API cublasStatus_t cublasHgemmStridedBatched(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb, int M,
                                                    int N, int K, const Half *Alpha, const Half *A, int Lda,
                                                    long long SA, const Half *B, int Ldb, long long SB,
                                                    const Half *Beta, Half *C, int Ldc, long long SC, int Count) {
  return gemm(H, Ta, Tb, M, N, K, Alpha, A, CUDA_R_16F, Lda, B, CUDA_R_16F, Ldb, Beta, C, CUDA_R_16F, Ldc,
              CUBLAS_COMPUTE_16F, SA, SB, SC, Count, false);
}
CUBLAS_API cublasStatus_t cublasHgemmBatched(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb, int M,
                                             int N, int K, const Half *Alpha, const Half *const A[], int Lda,
                                             const Half *const B[], int Ldb, const Half *Beta, Half *const C[],
                                             int Ldc, int Count) {
  return gemm(H, Ta, Tb, M, N, K, Alpha, A, CUDA_R_16F, Lda, B, CUDA_R_16F, Ldb, Beta, const_cast<Half **>(C),
              CUDA_R_16F, Ldc, CUBLAS_COMPUTE_16F, 0, 0, 0, Count, true);
}

CUBLAS_API cublasStatus_t cublasHgemmStridedBatched_64(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb,
                                                       int64_t M, int64_t N, int64_t K, const Half *Alpha,
                                                       const Half *A, int64_t Lda, long long SA, const Half *B,
                                                       int64_t Ldb, long long SB, const Half *Beta, Half *C,
                                                       int64_t Ldc, long long SC, int64_t Count) {
  return gemm(H, Ta, Tb, M, N, K, Alpha, A, CUDA_R_16F, Lda, B, CUDA_R_16F, Ldb, Beta, C, CUDA_R_16F, Ldc,
              CUBLAS_COMPUTE_16F, SA, SB, SC, Count, false);
}
CUBLAS_API cublasStatus_t cublasHgemmBatched_64(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb,
                                                int64_t M, int64_t N, int64_t K, const Half *Alpha,
                                                const Half *const A[], int64_t Lda, const Half *const B[],
                                                int64_t Ldb, const Half *Beta, Half *const C[], int64_t Ldc,
                                                int64_t Count) {
  return gemm(H, Ta, Tb, M, N, K, Alpha, A, CUDA_R_16F, Lda, B, CUDA_R_16F, Ldb, Beta, const_cast<Half **>(C),
              CUDA_R_16F, Ldc, CUBLAS_COMPUTE_16F, 0, 0, 0, Count, true);
}

// The Ex forms: types and compute type named by the caller (algo is a hint: ignored).
CUBLAS_API cublasStatus_t cublasGemmEx(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb, int M, int N,
                                       int K, const void *Alpha, const void *A, cudaDataType AT, int Lda,
                                       const void *B, cudaDataType BT, int Ldb, const void *Beta, void *C,
                                       cudaDataType CT, int Ldc, int Compute, int /*algo*/) {
  return gemm(H, Ta, Tb, M, N, K, Alpha, A, AT, Lda, B, BT, Ldb, Beta, C, CT, Ldc, computeOf(Compute), 0, 0, 0, 1,
              false);
}
CUBLAS_API cublasStatus_t cublasGemmEx_64(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb, int64_t M,
                                          int64_t N, int64_t K, const void *Alpha, const void *A, cudaDataType AT,
                                          int64_t Lda, const void *B, cudaDataType BT, int64_t Ldb, const void *Beta,
                                          void *C, cudaDataType CT, int64_t Ldc, int Compute, int /*algo*/) {
  return gemm(H, Ta, Tb, M, N, K, Alpha, A, AT, Lda, B, BT, Ldb, Beta, C, CT, Ldc, computeOf(Compute), 0, 0, 0, 1,
              false);
}
CUBLAS_API cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb,
                                                     int M, int N, int K, const void *Alpha, const void *A,
                                                     cudaDataType AT, int Lda, long long SA, const void *B,
                                                     cudaDataType BT, int Ldb, long long SB, const void *Beta, void *C,
                                                     cudaDataType CT, int Ldc, long long SC, int Count, int Compute,
                                                     int /*algo*/) {
  return gemm(H, Ta, Tb, M, N, K, Alpha, A, AT, Lda, B, BT, Ldb, Beta, C, CT, Ldc, computeOf(Compute), SA, SB, SC,
              Count, false);
}
CUBLAS_API cublasStatus_t cublasGemmStridedBatchedEx_64(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb,
                                                        int64_t M, int64_t N, int64_t K, const void *Alpha,
                                                        const void *A, cudaDataType AT, int64_t Lda, long long SA,
                                                        const void *B, cudaDataType BT, int64_t Ldb, long long SB,
                                                        const void *Beta, void *C, cudaDataType CT, int64_t Ldc,
                                                        long long SC, int64_t Count, int Compute, int /*algo*/) {
  return gemm(H, Ta, Tb, M, N, K, Alpha, A, AT, Lda, B, BT, Ldb, Beta, C, CT, Ldc, computeOf(Compute), SA, SB, SC,
              Count, false);
}
CUBLAS_API cublasStatus_t cublasGemmBatchedEx(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb, int M,
                                              int N, int K, const void *Alpha, const void *const A[], cudaDataType AT,
                                              int Lda, const void *const B[], cudaDataType BT, int Ldb,
                                              const void *Beta, void *const C[], cudaDataType CT, int Ldc, int Count,
                                              int Compute, int /*algo*/) {
  return gemm(H, Ta, Tb, M, N, K, Alpha, A, AT, Lda, B, BT, Ldb, Beta, const_cast<void **>(C), CT, Ldc,
              computeOf(Compute), 0, 0, 0, Count, true);
}
CUBLAS_API cublasStatus_t cublasGemmBatchedEx_64(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb,
                                                 int64_t M, int64_t N, int64_t K, const void *Alpha,
                                                 const void *const A[], cudaDataType AT, int64_t Lda,
                                                 const void *const B[], cudaDataType BT, int64_t Ldb, const void *Beta,
                                                 void *const C[], cudaDataType CT, int64_t Ldc, int64_t Count,
                                                 int Compute, int /*algo*/) {
  return gemm(H, Ta, Tb, M, N, K, Alpha, A, AT, Lda, B, BT, Ldb, Beta, const_cast<void **>(C), CT, Ldc,
              computeOf(Compute), 0, 0, 0, Count, true);
}
// SgemmEx / CgemmEx: float (complex) scalars and compute, the caller's storage types.
CUBLAS_API cublasStatus_t cublasSgemmEx(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb, int M, int N,
                                        int K, const float *Alpha, const void *A, cudaDataType AT, int Lda,
                                        const void *B, cudaDataType BT, int Ldb, const float *Beta, void *C,
                                        cudaDataType CT, int Ldc) {
  return gemm(H, Ta, Tb, M, N, K, Alpha, A, AT, Lda, B, BT, Ldb, Beta, C, CT, Ldc, CUBLAS_COMPUTE_32F, 0, 0, 0, 1,
              false);
}
CUBLAS_API cublasStatus_t cublasSgemmEx_64(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb, int64_t M,
                                           int64_t N, int64_t K, const float *Alpha, const void *A, cudaDataType AT,
                                           int64_t Lda, const void *B, cudaDataType BT, int64_t Ldb,
                                           const float *Beta, void *C, cudaDataType CT, int64_t Ldc) {
  return gemm(H, Ta, Tb, M, N, K, Alpha, A, AT, Lda, B, BT, Ldb, Beta, C, CT, Ldc, CUBLAS_COMPUTE_32F, 0, 0, 0, 1,
              false);
}

// --- level 2 ------------------------------------------------------------------------------

#define GEMV_FORMS(P, T, DT)                                                                                           \
  CUBLAS_API cublasStatus_t cublas##P##gemv_v2(cublasHandle_t H, cublasOperation_t Tr, int M, int N, const T *Alpha,    \
                                               const T *A, int Lda, const T *X, int IncX, const T *Beta, T *Y,         \
                                               int IncY) {                                                             \
    return gemv(H, Tr, DT, M, N, Alpha, A, Lda, X, IncX, Beta, Y, IncY, sizeof(T));                                    \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##gemv_v2_64(cublasHandle_t H, cublasOperation_t Tr, int64_t M, int64_t N,         \
                                                  const T *Alpha, const T *A, int64_t Lda, const T *X, int64_t IncX,  \
                                                  const T *Beta, T *Y, int64_t IncY) {                                 \
    return gemv(H, Tr, DT, M, N, Alpha, A, Lda, X, IncX, Beta, Y, IncY, sizeof(T));                                    \
  }
GEMV_FORMS(S, float, CUDA_R_32F)
GEMV_FORMS(D, double, CUDA_R_64F)
GEMV_FORMS(C, cuComplex, CUDA_C_32F)
GEMV_FORMS(Z, cuDoubleComplex, CUDA_C_64F)

#define GEAM_FORMS(P, T, DT)                                                                                           \
  CUBLAS_API cublasStatus_t cublas##P##geam(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb, int M,       \
                                            int N, const T *Alpha, const T *A, int Lda, const T *Beta, const T *B,     \
                                            int Ldb, T *C, int Ldc) {                                                  \
    return geam(H, Ta, Tb, DT, M, N, Alpha, A, Lda, Beta, B, Ldb, C, Ldc, sizeof(T));                                  \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##geam_64(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb,           \
                                               int64_t M, int64_t N, const T *Alpha, const T *A, int64_t Lda,          \
                                               const T *Beta, const T *B, int64_t Ldb, T *C, int64_t Ldc) {            \
    return geam(H, Ta, Tb, DT, M, N, Alpha, A, Lda, Beta, B, Ldb, C, Ldc, sizeof(T));                                  \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##dgmm(cublasHandle_t H, cublasSideMode_t Side, int M, int N, const T *A,         \
                                            int Lda, const T *X, int IncX, T *C, int Ldc) {                            \
    return dgmm(H, Side, DT, M, N, A, Lda, X, IncX, C, Ldc);                                                           \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##dgmm_64(cublasHandle_t H, cublasSideMode_t Side, int64_t M, int64_t N,          \
                                               const T *A, int64_t Lda, const T *X, int64_t IncX, T *C,                \
                                               int64_t Ldc) {                                                          \
    return dgmm(H, Side, DT, M, N, A, Lda, X, IncX, C, Ldc);                                                           \
  }
GEAM_FORMS(S, float, CUDA_R_32F)
GEAM_FORMS(D, double, CUDA_R_64F)
GEAM_FORMS(C, cuComplex, CUDA_C_32F)
GEAM_FORMS(Z, cuDoubleComplex, CUDA_C_64F)

// --- level 1 ------------------------------------------------------------------------------


#define AXPY(P, T, DT)                                                                                                 \
  BOTH_AXPY(P, T, DT, _v2, int)                                                                                        \
  BOTH_AXPY(P, T, DT, _v2_64, int64_t)
#define BOTH_AXPY(P, T, DT, Sfx, I)                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##axpy##Sfx(cublasHandle_t H, I N, const T *Alpha, const T *X, I IncX, T *Y,       \
                                                 I IncY) {                                                             \
    return level1(H, L1::Axpy, DT, N, X, IncX, Y, IncY, Alpha, sizeof(T), nullptr);                                    \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##scal##Sfx(cublasHandle_t H, I N, const T *Alpha, T *X, I IncX) {                 \
    return level1(H, L1::Scal, DT, N, X, IncX, nullptr, 0, Alpha, sizeof(T), nullptr);                                 \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##copy##Sfx(cublasHandle_t H, I N, const T *X, I IncX, T *Y, I IncY) {             \
    return level1(H, L1::Copy, DT, N, X, IncX, Y, IncY, nullptr, 0, nullptr);                                          \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##swap##Sfx(cublasHandle_t H, I N, T *X, I IncX, T *Y, I IncY) {                   \
    return level1(H, L1::Swap, DT, N, X, IncX, Y, IncY, nullptr, 0, nullptr);                                          \
  }
AXPY(S, float, CUDA_R_32F)
AXPY(D, double, CUDA_R_64F)
AXPY(C, cuComplex, CUDA_C_32F)
AXPY(Z, cuDoubleComplex, CUDA_C_64F)

#define REAL_REDUCTIONS(P, PR, T, R, DT, Sfx, I)                                                                       \
  CUBLAS_API cublasStatus_t cublas##PR##nrm2##Sfx(cublasHandle_t H, I N, const T *X, I IncX, R *Result) {              \
    return level1(H, L1::Nrm2, DT, N, X, IncX, nullptr, 0, nullptr, 0, Result);                                        \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##PR##asum##Sfx(cublasHandle_t H, I N, const T *X, I IncX, R *Result) {              \
    return level1(H, L1::Asum, DT, N, X, IncX, nullptr, 0, nullptr, 0, Result);                                        \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasI##P##amax##Sfx(cublasHandle_t H, I N, const T *X, I IncX, I *Result) {              \
    return level1(H, L1::Amax, DT, N, X, IncX, nullptr, 0, nullptr, 0, Result, sizeof(I) == 8);                        \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasI##P##amin##Sfx(cublasHandle_t H, I N, const T *X, I IncX, I *Result) {              \
    return level1(H, L1::Amin, DT, N, X, IncX, nullptr, 0, nullptr, 0, Result, sizeof(I) == 8);                        \
  }
#define REDUCTIONS(P, PR, T, R, DT)                                                                                    \
  REAL_REDUCTIONS(P, PR, T, R, DT, _v2, int)                                                                           \
  REAL_REDUCTIONS(P, PR, T, R, DT, _v2_64, int64_t)
REDUCTIONS(s, S, float, float, CUDA_R_32F)
REDUCTIONS(d, D, double, double, CUDA_R_64F)
REDUCTIONS(c, Sc, cuComplex, float, CUDA_C_32F)
REDUCTIONS(z, Dz, cuDoubleComplex, double, CUDA_C_64F)

#define DOTS(Sfx, I)                                                                                                   \
  CUBLAS_API cublasStatus_t cublasSdot##Sfx(cublasHandle_t H, I N, const float *X, I IncX, const float *Y, I IncY,     \
                                            float *R) {                                                                \
    return level1(H, L1::Dot, CUDA_R_32F, N, X, IncX, const_cast<float *>(Y), IncY, nullptr, 0, R);                    \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasDdot##Sfx(cublasHandle_t H, I N, const double *X, I IncX, const double *Y, I IncY,   \
                                            double *R) {                                                               \
    return level1(H, L1::Dot, CUDA_R_64F, N, X, IncX, const_cast<double *>(Y), IncY, nullptr, 0, R);                   \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasCdotu##Sfx(cublasHandle_t H, I N, const cuComplex *X, I IncX, const cuComplex *Y,    \
                                             I IncY, cuComplex *R) {                                                   \
    return level1(H, L1::Dot, CUDA_C_32F, N, X, IncX, const_cast<cuComplex *>(Y), IncY, nullptr, 0, R);                \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasCdotc##Sfx(cublasHandle_t H, I N, const cuComplex *X, I IncX, const cuComplex *Y,    \
                                             I IncY, cuComplex *R) {                                                   \
    return level1(H, L1::Dotc, CUDA_C_32F, N, X, IncX, const_cast<cuComplex *>(Y), IncY, nullptr, 0, R);               \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasZdotu##Sfx(cublasHandle_t H, I N, const cuDoubleComplex *X, I IncX,                  \
                                             const cuDoubleComplex *Y, I IncY, cuDoubleComplex *R) {                   \
    return level1(H, L1::Dot, CUDA_C_64F, N, X, IncX, const_cast<cuDoubleComplex *>(Y), IncY, nullptr, 0, R);          \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasZdotc##Sfx(cublasHandle_t H, I N, const cuDoubleComplex *X, I IncX,                  \
                                             const cuDoubleComplex *Y, I IncY, cuDoubleComplex *R) {                   \
    return level1(H, L1::Dotc, CUDA_C_64F, N, X, IncX, const_cast<cuDoubleComplex *>(Y), IncY, nullptr, 0, R);         \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasCsscal##Sfx(cublasHandle_t H, I N, const float *Alpha, cuComplex *X, I IncX) {       \
    return level1(H, L1::Scal, CUDA_C_32F, N, X, IncX, nullptr, 0, Alpha, sizeof(float), nullptr, false, true);        \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasZdscal##Sfx(cublasHandle_t H, I N, const double *Alpha, cuDoubleComplex *X,          \
                                              I IncX) {                                                                \
    return level1(H, L1::Scal, CUDA_C_64F, N, X, IncX, nullptr, 0, Alpha, sizeof(double), nullptr, false, true);       \
  }
DOTS(_v2, int)
DOTS(_v2_64, int64_t)
