//===- Blas3.cpp - cuBLAS level 2/3 extras and batched LU -------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file trsm, trmm, syrk/herk, symm/hemm, syr2k/her2k (and batched trsm),
/// ger/geru/gerc, symv/hemv, trmv, trsv, batched getrf/getri/getrs/matinv.
/// Arguments are checked as the cuBLAS reference states; the work goes to
/// the backend (CpuBlas3.cpp on the CPU device).
#include "libs/cublas/Cublas.h"

#include <algorithm>

using namespace zluda::cublas;

namespace {

int64_t atLeast1(int64_t V) { return std::max<int64_t>(1, V); }

cublasStatus_t level3(cublasHandle_t Hd, Level3 L, const void *Alpha, const void *Beta, size_t AlphaBytes,
                      size_t BetaBytes) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  bool Tri = L.Op == L3::Trsm || L.Op == L3::Trmm, Rank = L.Op == L3::Syrk || L.Op == L3::Herk ||
                                                        L.Op == L3::Syr2k || L.Op == L3::Her2k ||
                                                        L.Op == L3::Syrkx || L.Op == L3::Herkx;
  bool Bad = !validFill(L.Uplo) || L.M < 0 || L.N < 0 || L.K < 0 || L.Batch < 0;
  if (Tri)
    Bad |= !validSide(L.Side) || !validOp(L.Trans) || !validDiag(L.Diag) ||
           L.Lda < atLeast1(L.Side == CUBLAS_SIDE_LEFT ? L.M : L.N) || L.Ldb < atLeast1(L.M) ||
           (L.Op == L3::Trmm && L.Ldc < atLeast1(L.M));
  else if (Rank) // n x n output from n x k (N) or k x n (T/C) operands
    Bad |= !validOp(L.Trans) || L.Lda < atLeast1(L.Trans == CUBLAS_OP_N ? L.N : L.K) ||
           (L.B && L.Ldb < atLeast1(L.Trans == CUBLAS_OP_N ? L.N : L.K)) || L.Ldc < atLeast1(L.N);
  else // symm, hemm
    Bad |= !validSide(L.Side) || L.Lda < atLeast1(L.Side == CUBLAS_SIDE_LEFT ? L.M : L.N) || L.Ldb < atLeast1(L.M) ||
           L.Ldc < atLeast1(L.M);
  if (Bad)
    return CUBLAS_STATUS_INVALID_VALUE;
  bool Empty = Rank ? L.N == 0 : (L.M == 0 || L.N == 0);
  if (Empty || L.Batch == 0)
    return CUBLAS_STATUS_SUCCESS;
  if (!Alpha || (BetaBytes && !Beta))
    return CUBLAS_STATUS_INVALID_VALUE;
  L.Alpha = Scalar(*H, Alpha, AlphaBytes);
  if (BetaBytes)
    L.Beta = Scalar(*H, Beta, BetaBytes);
  return backend()->level3(*H, L);
}

cublasStatus_t level2(cublasHandle_t Hd, Level2 L, const void *Alpha, const void *Beta, size_t Bytes) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  bool Ger = L.Op == L2::Ger || L.Op == L2::Gerc;
  if (L.M < 0 || L.N < 0 || L.IncX == 0 || (Ger || L.Op == L2::Symv || L.Op == L2::Hemv ? L.IncY == 0 : false) ||
      L.Lda < atLeast1(Ger ? L.M : L.N) || (!Ger && !validFill(L.Uplo)) ||
      ((L.Op == L2::Trmv || L.Op == L2::Trsv) && (!validOp(L.Trans) || !validDiag(L.Diag))))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (L.N == 0 || (Ger && L.M == 0))
    return CUBLAS_STATUS_SUCCESS;
  if (Ger || L.Op == L2::Symv || L.Op == L2::Hemv) {
    if (!Alpha || (!Ger && !Beta))
      return CUBLAS_STATUS_INVALID_VALUE;
    L.Alpha = Scalar(*H, Alpha, Bytes);
    if (!Ger)
      L.Beta = Scalar(*H, Beta, Bytes);
  }
  return backend()->level2(*H, L);
}

cublasStatus_t lu(cublasHandle_t Hd, LuBatch L, int *HostInfo = nullptr) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  bool Bad = L.N < 0 || L.Batch < 0 || L.Lda < atLeast1(L.N) || !L.A;
  if (L.Op == Lu::Getri || L.Op == Lu::Matinv || L.Op == Lu::Getrs)
    Bad |= !L.C || L.Ldc < atLeast1(L.N);
  if (L.Op == Lu::Matinv)
    Bad |= L.N > 32; // cuBLAS's limit for matinvBatched
  if (L.Op == Lu::Getrs)
    Bad |= !validOp(L.Trans) || L.Nrhs < 0;
  if (L.Op != Lu::Getrs)
    Bad |= !L.Info;
  if (HostInfo) // getrs reports its argument check through a host int
    *HostInfo = Bad ? -1 : 0;
  if (Bad)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (L.N == 0 || L.Batch == 0)
    return CUBLAS_STATUS_SUCCESS;
  return backend()->lu(*H, L);
}

Level3 l3(L3 Op, cudaDataType T, cublasSideMode_t Side, cublasFillMode_t Uplo, cublasOperation_t Tr,
          cublasDiagType_t Diag, int64_t M, int64_t N, int64_t K, const void *A, int64_t Lda, const void *B,
          int64_t Ldb, void *C, int64_t Ldc) {
  Level3 L;
  L.Op = Op;
  L.T = T;
  L.Side = Side;
  L.Uplo = Uplo;
  L.Trans = Tr;
  L.Diag = Diag;
  L.M = M;
  L.N = N;
  L.K = K;
  L.A = A;
  L.Lda = Lda;
  L.B = B;
  L.Ldb = Ldb;
  L.C = C;
  L.Ldc = Ldc;
  return L;
}

Level2 l2(L2 Op, cudaDataType T, cublasFillMode_t Uplo, cublasOperation_t Tr, cublasDiagType_t Diag, int64_t M,
          int64_t N, const void *A, int64_t Lda, const void *X, int64_t IncX, const void *Y, int64_t IncY) {
  Level2 L;
  L.Op = Op;
  L.T = T;
  L.Uplo = Uplo;
  L.Trans = Tr;
  L.Diag = Diag;
  L.M = M;
  L.N = N;
  L.A = const_cast<void *>(A);
  L.Lda = Lda;
  L.X = const_cast<void *>(X);
  L.IncX = IncX;
  L.Y = const_cast<void *>(Y);
  L.IncY = IncY;
  return L;
}

constexpr auto L_ = CUBLAS_SIDE_LEFT;
constexpr auto Lo_ = CUBLAS_FILL_MODE_LOWER;
constexpr auto N_ = CUBLAS_OP_N;
constexpr auto U_ = CUBLAS_DIAG_NON_UNIT;

} // namespace


// Forms common to the four types: trsm, trmm, syrk, symm, syr2k, trmv, trsv.
#define COMMON(P, T, DT)                                                                                               \
  COMMON_SFX(P, T, DT, _v2, int)                                                                                       \
  COMMON_SFX(P, T, DT, _v2_64, int64_t)                                                                                \
  CUBLAS_API cublasStatus_t cublas##P##trsmBatched(cublasHandle_t H, cublasSideMode_t S, cublasFillMode_t U,           \
                                                   cublasOperation_t Tr, cublasDiagType_t D, int M, int N,             \
                                                   const T *Al, const T *const A[], int Lda, T *const B[], int Ldb,    \
                                                   int Count) {                                                        \
    Level3 L = l3(L3::Trsm, DT, S, U, Tr, D, M, N, 0, A, Lda, B, Ldb, nullptr, 0);                                     \
    L.Batch = Count;                                                                                                   \
    L.Ptrs = true;                                                                                                     \
    return level3(H, L, Al, nullptr, sizeof(T), 0);                                                                    \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##trsmBatched_64(cublasHandle_t H, cublasSideMode_t S, cublasFillMode_t U,        \
                                                      cublasOperation_t Tr, cublasDiagType_t D, int64_t M, int64_t N,  \
                                                      const T *Al, const T *const A[], int64_t Lda, T *const B[],      \
                                                      int64_t Ldb, int64_t Count) {                                    \
    Level3 L = l3(L3::Trsm, DT, S, U, Tr, D, M, N, 0, A, Lda, B, Ldb, nullptr, 0);                                     \
    L.Batch = Count;                                                                                                   \
    L.Ptrs = true;                                                                                                     \
    return level3(H, L, Al, nullptr, sizeof(T), 0);                                                                    \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##getrfBatched(cublasHandle_t H, int N, T *const A[], int Lda, int *Piv, int *Info, \
                                                    int Count) {                                                       \
    LuBatch L{Lu::Getrf, DT, N_, N, 0, Lda, 0, Count, const_cast<T **>(A), nullptr, Piv, Info};                          \
    return lu(H, L);                                                                                                   \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##getriBatched(cublasHandle_t H, int N, const T *const A[], int Lda,              \
                                                    const int *Piv, T *const C[], int Ldc, int *Info, int Count) {      \
    LuBatch L{Lu::Getri, DT, N_, N, 0, Lda, Ldc, Count, const_cast<T **>(A), const_cast<T **>(C),                      \
              const_cast<int *>(Piv), Info};                                                                             \
    return lu(H, L);                                                                                                   \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##getrsBatched(cublasHandle_t H, cublasOperation_t Tr, int N, int Nrhs,           \
                                                    const T *const A[], int Lda, const int *Piv, T *const B[], int Ldb,  \
                                                    int *Info, int Count) {                                            \
    LuBatch L{Lu::Getrs, DT, Tr, N, Nrhs, Lda, Ldb, Count, const_cast<T **>(A), const_cast<T **>(B),                   \
              const_cast<int *>(Piv), nullptr};                                                                          \
    return lu(H, L, Info);                                                                                             \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##matinvBatched(cublasHandle_t H, int N, const T *const A[], int Lda,             \
                                                     T *const Ainv[], int LdInv, int *Info, int Count) {               \
    LuBatch L{Lu::Matinv, DT, N_, N, 0, Lda, LdInv, Count, const_cast<T **>(A), const_cast<T **>(Ainv), nullptr,      \
              Info};                                                                                                   \
    return lu(H, L);                                                                                                   \
  }
#define COMMON_SFX(P, T, DT, Sfx, I)                                                                                   \
  CUBLAS_API cublasStatus_t cublas##P##trsm##Sfx(cublasHandle_t H, cublasSideMode_t S, cublasFillMode_t U,             \
                                                 cublasOperation_t Tr, cublasDiagType_t D, I M, I N, const T *Al,      \
                                                 const T *A, I Lda, T *B, I Ldb) {                                     \
    return level3(H, l3(L3::Trsm, DT, S, U, Tr, D, M, N, 0, A, Lda, B, Ldb, nullptr, 0), Al, nullptr, sizeof(T), 0);   \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##trmm##Sfx(cublasHandle_t H, cublasSideMode_t S, cublasFillMode_t U,             \
                                                 cublasOperation_t Tr, cublasDiagType_t D, I M, I N, const T *Al,      \
                                                 const T *A, I Lda, const T *B, I Ldb, T *C, I Ldc) {                  \
    return level3(H, l3(L3::Trmm, DT, S, U, Tr, D, M, N, 0, A, Lda, B, Ldb, C, Ldc), Al, nullptr, sizeof(T), 0);       \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##syrk##Sfx(cublasHandle_t H, cublasFillMode_t U, cublasOperation_t Tr, I N, I K, \
                                                 const T *Al, const T *A, I Lda, const T *Be, T *C, I Ldc) {           \
    return level3(H, l3(L3::Syrk, DT, L_, U, Tr, U_, 0, N, K, A, Lda, nullptr, 0, C, Ldc), Al, Be, sizeof(T),          \
                  sizeof(T));                                                                                          \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##symm##Sfx(cublasHandle_t H, cublasSideMode_t S, cublasFillMode_t U, I M, I N,   \
                                                 const T *Al, const T *A, I Lda, const T *B, I Ldb, const T *Be, T *C, \
                                                 I Ldc) {                                                              \
    return level3(H, l3(L3::Symm, DT, S, U, N_, U_, M, N, 0, A, Lda, B, Ldb, C, Ldc), Al, Be, sizeof(T), sizeof(T));   \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##syr2k##Sfx(cublasHandle_t H, cublasFillMode_t U, cublasOperation_t Tr, I N,     \
                                                  I K, const T *Al, const T *A, I Lda, const T *B, I Ldb, const T *Be, \
                                                  T *C, I Ldc) {                                                       \
    return level3(H, l3(L3::Syr2k, DT, L_, U, Tr, U_, 0, N, K, A, Lda, B, Ldb, C, Ldc), Al, Be, sizeof(T), sizeof(T)); \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##trmv##Sfx(cublasHandle_t H, cublasFillMode_t U, cublasOperation_t Tr,           \
                                                 cublasDiagType_t D, I N, const T *A, I Lda, T *X, I IncX) {           \
    return level2(H, l2(L2::Trmv, DT, U, Tr, D, 0, N, A, Lda, X, IncX, nullptr, 1), nullptr, nullptr, 0);              \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##trsv##Sfx(cublasHandle_t H, cublasFillMode_t U, cublasOperation_t Tr,           \
                                                 cublasDiagType_t D, I N, const T *A, I Lda, T *X, I IncX) {           \
    return level2(H, l2(L2::Trsv, DT, U, Tr, D, 0, N, A, Lda, X, IncX, nullptr, 1), nullptr, nullptr, 0);              \
  }
COMMON(S, float, CUDA_R_32F)
COMMON(D, double, CUDA_R_64F)
COMMON(C, cuComplex, CUDA_C_32F)
COMMON(Z, cuDoubleComplex, CUDA_C_64F)

// syrkx (all four types) and herkx (complex; real beta): the names have no _v2.
#define RANKX(P, T, DT, Sfx, I)                                                                                        \
  CUBLAS_API cublasStatus_t cublas##P##syrkx##Sfx(cublasHandle_t H, cublasFillMode_t U, cublasOperation_t Tr, I N,     \
                                                  I K, const T *Al, const T *A, I Lda, const T *B, I Ldb, const T *Be, \
                                                  T *C, I Ldc) {                                                       \
    return level3(H, l3(L3::Syrkx, DT, L_, U, Tr, U_, 0, N, K, A, Lda, B, Ldb, C, Ldc), Al, Be, sizeof(T), sizeof(T)); \
  }
#define HERKX(P, T, R, DT, Sfx, I)                                                                                     \
  CUBLAS_API cublasStatus_t cublas##P##herkx##Sfx(cublasHandle_t H, cublasFillMode_t U, cublasOperation_t Tr, I N,     \
                                                  I K, const T *Al, const T *A, I Lda, const T *B, I Ldb, const R *Be, \
                                                  T *C, I Ldc) {                                                       \
    return level3(H, l3(L3::Herkx, DT, L_, U, Tr, U_, 0, N, K, A, Lda, B, Ldb, C, Ldc), Al, Be, sizeof(T), sizeof(R)); \
  }
RANKX(S, float, CUDA_R_32F, , int)
RANKX(S, float, CUDA_R_32F, _64, int64_t)
RANKX(D, double, CUDA_R_64F, , int)
RANKX(D, double, CUDA_R_64F, _64, int64_t)
RANKX(C, cuComplex, CUDA_C_32F, , int)
RANKX(C, cuComplex, CUDA_C_32F, _64, int64_t)
RANKX(Z, cuDoubleComplex, CUDA_C_64F, , int)
RANKX(Z, cuDoubleComplex, CUDA_C_64F, _64, int64_t)
HERKX(C, cuComplex, float, CUDA_C_32F, , int)
HERKX(C, cuComplex, float, CUDA_C_32F, _64, int64_t)
HERKX(Z, cuDoubleComplex, double, CUDA_C_64F, , int)
HERKX(Z, cuDoubleComplex, double, CUDA_C_64F, _64, int64_t)

// Real only: ger, symv.
#define REAL_SFX(P, T, DT, Sfx, I)                                                                                     \
  CUBLAS_API cublasStatus_t cublas##P##ger##Sfx(cublasHandle_t H, I M, I N, const T *Al, const T *X, I IncX,           \
                                                const T *Y, I IncY, T *A, I Lda) {                                     \
    return level2(H, l2(L2::Ger, DT, Lo_, N_, U_, M, N, A, Lda, X, IncX, Y, IncY), Al, nullptr, sizeof(T));            \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##symv##Sfx(cublasHandle_t H, cublasFillMode_t U, I N, const T *Al, const T *A,   \
                                                 I Lda, const T *X, I IncX, const T *Be, T *Y, I IncY) {               \
    return level2(H, l2(L2::Symv, DT, U, N_, U_, 0, N, A, Lda, X, IncX, Y, IncY), Al, Be, sizeof(T));                  \
  }
REAL_SFX(S, float, CUDA_R_32F, _v2, int)
REAL_SFX(S, float, CUDA_R_32F, _v2_64, int64_t)
REAL_SFX(D, double, CUDA_R_64F, _v2, int)
REAL_SFX(D, double, CUDA_R_64F, _v2_64, int64_t)

// Complex only: geru, gerc, hemv, herk, hemm, her2k (herk: real alpha and beta; her2k: real beta).
#define COMPLEX_SFX(P, T, R, DT, Sfx, I)                                                                               \
  CUBLAS_API cublasStatus_t cublas##P##geru##Sfx(cublasHandle_t H, I M, I N, const T *Al, const T *X, I IncX,          \
                                                 const T *Y, I IncY, T *A, I Lda) {                                    \
    return level2(H, l2(L2::Ger, DT, Lo_, N_, U_, M, N, A, Lda, X, IncX, Y, IncY), Al, nullptr, sizeof(T));            \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##gerc##Sfx(cublasHandle_t H, I M, I N, const T *Al, const T *X, I IncX,          \
                                                 const T *Y, I IncY, T *A, I Lda) {                                    \
    return level2(H, l2(L2::Gerc, DT, Lo_, N_, U_, M, N, A, Lda, X, IncX, Y, IncY), Al, nullptr, sizeof(T));           \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##hemv##Sfx(cublasHandle_t H, cublasFillMode_t U, I N, const T *Al, const T *A,   \
                                                 I Lda, const T *X, I IncX, const T *Be, T *Y, I IncY) {               \
    return level2(H, l2(L2::Hemv, DT, U, N_, U_, 0, N, A, Lda, X, IncX, Y, IncY), Al, Be, sizeof(T));                  \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##herk##Sfx(cublasHandle_t H, cublasFillMode_t U, cublasOperation_t Tr, I N, I K, \
                                                 const R *Al, const T *A, I Lda, const R *Be, T *C, I Ldc) {           \
    return level3(H, l3(L3::Herk, DT, L_, U, Tr, U_, 0, N, K, A, Lda, nullptr, 0, C, Ldc), Al, Be, sizeof(R),          \
                  sizeof(R));                                                                                          \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##hemm##Sfx(cublasHandle_t H, cublasSideMode_t S, cublasFillMode_t U, I M, I N,   \
                                                 const T *Al, const T *A, I Lda, const T *B, I Ldb, const T *Be, T *C, \
                                                 I Ldc) {                                                              \
    return level3(H, l3(L3::Hemm, DT, S, U, N_, U_, M, N, 0, A, Lda, B, Ldb, C, Ldc), Al, Be, sizeof(T), sizeof(T));   \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##her2k##Sfx(cublasHandle_t H, cublasFillMode_t U, cublasOperation_t Tr, I N,     \
                                                  I K, const T *Al, const T *A, I Lda, const T *B, I Ldb, const R *Be, \
                                                  T *C, I Ldc) {                                                       \
    return level3(H, l3(L3::Her2k, DT, L_, U, Tr, U_, 0, N, K, A, Lda, B, Ldb, C, Ldc), Al, Be, sizeof(T), sizeof(R)); \
  }
COMPLEX_SFX(C, cuComplex, float, CUDA_C_32F, _v2, int)
COMPLEX_SFX(C, cuComplex, float, CUDA_C_32F, _v2_64, int64_t)
COMPLEX_SFX(Z, cuDoubleComplex, double, CUDA_C_64F, _v2, int)
COMPLEX_SFX(Z, cuDoubleComplex, double, CUDA_C_64F, _v2_64, int64_t)
