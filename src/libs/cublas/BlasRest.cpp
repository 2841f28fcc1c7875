//===- BlasRest.cpp - cuBLAS's remaining BLAS-like extensions -------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Complex symmetric (not Hermitian) symv, syr, syr2; the packed/full
/// conversions trttp and tpttr; the gemm3m forms (Gauss's 3-multiplication
/// complex GEMM: on the CPU device the ordinary complex GEMM, which is at
/// least as accurate); CgemmEx (complex f32 or complex int8 inputs),
/// CsyrkEx/Csyrk3mEx, CherkEx/Cherk3mEx (complex f32); grouped batched GEMM; the mixed-precision
/// batched gemv (HSH, HSS, TST, TSS) and Hgemm's batched _64 forms. Argument
/// checks as the cuBLAS reference states; work in stream order
/// (Backend::other or the GEMM path).
#include "libs/common/Half.h"
#include "libs/cublas/CblasEnums.h"
#include "libs/cublas/Cublas.h"

#include "common/Log.h"

#include <algorithm>
#include <complex>
#include <vector>

using namespace zluda::cublas;
namespace libs = zluda::libs;

extern "C" {
// The forms the extensions go through (Blas.cpp, Blas3.cpp).
cublasStatus_t cublasGemmEx(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void *,
                            const void *, cudaDataType, int, const void *, cudaDataType, int, const void *, void *,
                            cudaDataType, int, int, int);
cublasStatus_t cublasGemmEx_64(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t, int64_t, int64_t,
                               const void *, const void *, cudaDataType, int64_t, const void *, cudaDataType, int64_t,
                               const void *, void *, cudaDataType, int64_t, int, int);
cublasStatus_t cublasGemmBatchedEx(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void *,
                                   const void *const[], cudaDataType, int, const void *const[], cudaDataType, int,
                                   const void *, void *const[], cudaDataType, int, int, int, int);
cublasStatus_t cublasGemmBatchedEx_64(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t, int64_t, int64_t,
                                      const void *, const void *const[], cudaDataType, int64_t, const void *const[],
                                      cudaDataType, int64_t, const void *, void *const[], cudaDataType, int64_t,
                                      int64_t, int, int);
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                          const void *, const void *, cudaDataType, int, long long, const void *,
                                          cudaDataType, int, long long, const void *, void *, cudaDataType, int,
                                          long long, int, int, int);
cublasStatus_t cublasGemmStridedBatchedEx_64(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t, int64_t,
                                             int64_t, const void *, const void *, cudaDataType, int64_t, long long,
                                             const void *, cudaDataType, int64_t, long long, const void *, void *,
                                             cudaDataType, int64_t, long long, int64_t, int, int);
}

namespace {

using C32 = std::complex<float>;
using C64 = std::complex<double>;
constexpr int Compute32F = CUBLAS_COMPUTE_32F;
constexpr int GemmDefault = -1; // CUBLAS_GEMM_DEFAULT

Handle *handle(cublasHandle_t Hd) { return handleOf(Hd); }
bool lower(cublasFillMode_t U) { return U == CUBLAS_FILL_MODE_LOWER; }

// --- complex symmetric symv, syr, syr2 ---------------------------------------------------------------

template <typename C>
cublasStatus_t symv(cublasHandle_t Hd, cublasFillMode_t U, int64_t N, const void *Al, const C *A, int64_t Lda,
                    const C *X, int64_t Ix, const void *Be, C *Y, int64_t Iy) {
  Handle *H = handle(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || N < 0 || Lda < std::max<int64_t>(1, N) || Ix == 0 || Iy == 0 || !Al || !Be)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (N == 0)
    return CUBLAS_STATUS_SUCCESS;
  Scalar As(*H, Al, sizeof(C)), Bs(*H, Be, sizeof(C));
  if (!fetch(Hd, {{&As, sizeof(C)}, {&Bs, sizeof(C)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return runArrays(Hd, [=](const C *A, const C *X, C *Y) {
    C Alpha = As.get<C>(), Beta = Bs.get<C>();
    bool Lo = lower(U);
    for (int64_t I = 0; I < N; ++I) {
      C Sum = 0;
      for (int64_t J = 0; J < N; ++J) {
        bool Stored = Lo ? I >= J : I <= J;
        C Aij = Stored ? A[J * Lda + I] : A[I * Lda + J];
        Sum += Aij * X[vectorAt(N, Ix, J)];
      }
      C &Out = Y[vectorAt(N, Iy, I)];
      Out = Alpha * Sum + (Beta == C(0) ? C(0) : Beta * Out);
    }
  }, libs::in(A, span(Lda, N, N)), libs::in(X, vecSpan(N, Ix)), libs::inout(Y, vecSpan(N, Iy)));
}

/// A's triangle += alpha (x y^T + y x^T) (syr2), or alpha x x^T (syr: Y null).
template <typename C>
cublasStatus_t syr(cublasHandle_t Hd, cublasFillMode_t U, int64_t N, const void *Al, const C *X, int64_t Ix,
                   const C *Y, int64_t Iy, C *A, int64_t Lda) {
  Handle *H = handle(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || N < 0 || Ix == 0 || (Y && Iy == 0) || Lda < std::max<int64_t>(1, N) || !Al)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (N == 0)
    return CUBLAS_STATUS_SUCCESS;
  Scalar As(*H, Al, sizeof(C));
  if (!fetch(Hd, {{&As, sizeof(C)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return runArrays(Hd, [=](const C *X, const C *Y, C *A) {
    C Alpha = As.get<C>();
    bool Lo = lower(U);
    for (int64_t J = 0; J < N; ++J)
      for (int64_t I = Lo ? J : 0; I < (Lo ? N : J + 1); ++I) {
        C Xi = X[vectorAt(N, Ix, I)], Xj = X[vectorAt(N, Ix, J)];
        C Upd = Y ? Xi * Y[vectorAt(N, Iy, J)] + Y[vectorAt(N, Iy, I)] * Xj : Xi * Xj;
        A[J * Lda + I] += Alpha * Upd;
      }
  }, libs::in(X, vecSpan(N, Ix)), libs::in(Y, Y ? vecSpan(N, Iy) : 0), libs::inout(A, span(Lda, N, N)));
}

// --- trttp / tpttr: a triangle between full (lda) and packed (column by column) storage -----------------

template <typename T>
cublasStatus_t packing(cublasHandle_t Hd, bool ToPacked, cublasFillMode_t U, int N, const T *From, T *To,
                       int Lda, const char *Name) {
  if (!handle(Hd))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  // Argument numbers as LAPACK's (and NVIDIA's message): uplo 1, n 2, lda 4 (trttp) or 5 (tpttr).
  int Bad = !validFill(U) ? 1 : N < 0 ? 2 : Lda < std::max(1, N) ? (ToPacked ? 4 : 5) : 0;
  if (Bad) {
    ZLUDA_LOG_ERROR("cuBLAS: on entry to {} parameter number {} had an illegal value", Name, Bad);
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (N == 0)
    return CUBLAS_STATUS_SUCCESS;
  const size_t Full = span(Lda, N, N), Packed = size_t(N) * (N + 1) / 2;
  return runArrays(Hd, [=](const T *From, T *To) {
    bool Lo = lower(U);
    int64_t K = 0;
    for (int64_t J = 0; J < N; ++J)
      for (int64_t I = Lo ? J : 0; I < (Lo ? N : J + 1); ++I, ++K) {
        if (ToPacked)
          To[K] = From[J * Lda + I];
        else
          To[J * Lda + I] = From[K];
      }
  }, libs::in(From, ToPacked ? Full : Packed), libs::inout(To, ToPacked ? Packed : Full));
}

// --- CsyrkEx, Csyrk3mEx, CherkEx, Cherk3mEx -------------------------------------------------------

/// C's triangle = alpha op(A) op(A)^T (^H for herk) + beta C on complex f32 matrices. As an H200's cuBLAS: the
/// arguments are checked before the types, complex int8 (which the reference lists) is refused, and any valid
/// operation is taken (a transposed one is op(A) = A^T for syrk, A^H for herk).
cublasStatus_t rankKEx(cublasHandle_t Hd, bool Herm, cublasFillMode_t U, cublasOperation_t Tr, int64_t N, int64_t K,
                       const void *Al, const void *A, cudaDataType At, int64_t Lda, const void *Be, void *C,
                       cudaDataType Ct, int64_t Ldc) {
  Handle *H = handle(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || !validOp(Tr) || N < 0 || K < 0 || Lda < std::max<int64_t>(1, Tr == CUBLAS_OP_N ? N : K) ||
      Ldc < std::max<int64_t>(1, N) || !Al || !Be)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (At != CUDA_C_32F || Ct != CUDA_C_32F) {
    libs::notSupported("cuBLAS", Herm ? "cublasCherkEx with these types" : "cublasCsyrkEx with these types");
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  if (N == 0)
    return CUBLAS_STATUS_SUCCESS;
  size_t Sb = Herm ? sizeof(float) : sizeof(C32);
  Scalar As(*H, Al, Sb), Bs(*H, Be, Sb);
  if (!fetch(Hd, {{&As, Sb}, {&Bs, Sb}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  const size_t SpanA = Tr == CUBLAS_OP_N ? span(Lda, N, K) : span(Lda, K, N);
  return runArrays(Hd, [=](const C32 *A, C32 *C) {
    auto *Cc = C;
    bool Lo = lower(U);
    auto zeroTriangle = [&] { // beta = 0: C is not read
      for (int64_t J = 0; J < N; ++J)
        for (int64_t I = Lo ? J : 0; I < (Lo ? N : J + 1); ++I)
          Cc[J * Ldc + I] = 0;
    };
    if (Herm) {
      float Alpha = As.get<float>(), Beta = Bs.get<float>();
      if (Beta == 0)
        zeroTriangle();
      cblas_cherk(CblasColMajor, cblasUplo(U), Tr == CUBLAS_OP_N ? CblasNoTrans : CblasConjTrans, int(N), int(K),
                  Alpha, A, int(Lda), Beta, C, int(Ldc));
      return;
    }
    C32 Alpha = As.get<C32>(), Beta = Bs.get<C32>();
    if (Beta == C32(0))
      zeroTriangle();
    cblas_csyrk(CblasColMajor, cblasUplo(U), Tr == CUBLAS_OP_N ? CblasNoTrans : CblasTrans, int(N), int(K), &Alpha,
                A, int(Lda), &Beta, C, int(Ldc));
  }, libs::in(K > 0 ? static_cast<const C32 *>(A) : nullptr, K > 0 ? SpanA : 0),
     libs::inout(static_cast<C32 *>(C), span(Ldc, N, N)));
}

// --- mixed-precision batched gemv: half or bfloat16 A and x, f32 scalars, y of the inputs' type or f32 -------

float loadElem(const void *P, cudaDataType T, int64_t I) {
  switch (T) {
  case CUDA_R_16F: return libs::halfToFloat(static_cast<const uint16_t *>(P)[I]);
  case CUDA_R_16BF: return libs::bf16ToFloat(static_cast<const uint16_t *>(P)[I]);
  default: return static_cast<const float *>(P)[I];
  }
}
void storeElem(void *P, cudaDataType T, int64_t I, float V) {
  switch (T) {
  case CUDA_R_16F: static_cast<uint16_t *>(P)[I] = libs::floatToHalf(V); return;
  case CUDA_R_16BF: static_cast<uint16_t *>(P)[I] = libs::floatToBf16(V); return;
  default: static_cast<float *>(P)[I] = V; return;
  }
}

struct MixedGemv {
  cublasOperation_t Trans;
  int64_t M, N, Lda, Ix, Iy, Count;
  cudaDataType In, Out;
  const void *A, *X; // arrays of pointers when Ptrs
  void *Y;
  long long Sa = 0, Sx = 0, Sy = 0;
  bool Ptrs;
};

void mixedGemvRun(const MixedGemv &G, float Alpha, float Beta);

cublasStatus_t mixedGemv(cublasHandle_t Hd, MixedGemv G, const float *Al, const float *Be) {
  Handle *H = handle(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!validOp(G.Trans) || G.M < 0 || G.N < 0 || G.Lda < std::max<int64_t>(1, G.M) || G.Ix == 0 || G.Iy == 0 ||
      G.Count < 0 || !Al || !Be)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (G.M == 0 || G.N == 0 || G.Count == 0)
    return CUBLAS_STATUS_SUCCESS;
  Scalar As(*H, Al, 4), Bs(*H, Be, 4);
  if (!fetch(Hd, {{&As, 4}, {&Bs, 4}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  auto Run = [=](const void *A, const void *X, void *Y) {
    MixedGemv G2 = G;
    G2.A = A, G2.X = X, G2.Y = Y;
    mixedGemvRun(G2, As.get<float>(), Bs.get<float>());
  };
  const bool T = G.Trans != CUBLAS_OP_N;
  const int64_t Len = T ? G.N : G.M, Inner = T ? G.M : G.N;
  const size_t Ei = G.In == CUDA_R_32F ? 4 : 2, Eo = G.Out == CUDA_R_32F ? 4 : 2;
  const size_t Ba = span(G.Lda, G.M, G.N) * Ei, Bx = vecSpan(Inner, G.Ix) * Ei, By = vecSpan(Len, G.Iy) * Eo;
  if (G.Ptrs)
    return runBatches(Hd, int(G.Count), {{G.A, Ba, false}, {G.X, Bx, false}, {G.Y, By, true}},
                      [=](const std::vector<void *> &P) { Run(P[0], P[1], P[2]); });
  using Byte = unsigned char;
  const size_t Last = size_t(G.Count - 1);
  return runArrays(Hd, [=](const Byte *A, const Byte *X, Byte *Y) { Run(A, X, Y); },
                   libs::in(static_cast<const Byte *>(G.A), Last * size_t(G.Sa) * Ei + Ba),
                   libs::in(static_cast<const Byte *>(G.X), Last * size_t(G.Sx) * Ei + Bx),
                   libs::inout(static_cast<Byte *>(G.Y), Last * size_t(G.Sy) * Eo + By));
}

void mixedGemvRun(const MixedGemv &G, float Alpha, float Beta) {
  {
    bool T = G.Trans != CUBLAS_OP_N;
    int64_t Len = T ? G.N : G.M, Inner = T ? G.M : G.N;
    size_t Ei = G.In == CUDA_R_32F ? 4 : 2, Eo = G.Out == CUDA_R_32F ? 4 : 2;
    for (int64_t B = 0; B < G.Count; ++B) {
      const void *A = G.Ptrs ? static_cast<const void *const *>(G.A)[B]
                             : static_cast<const char *>(G.A) + B * G.Sa * static_cast<long long>(Ei);
      const void *X = G.Ptrs ? static_cast<const void *const *>(G.X)[B]
                             : static_cast<const char *>(G.X) + B * G.Sx * static_cast<long long>(Ei);
      void *Y = G.Ptrs ? static_cast<void *const *>(G.Y)[B]
                       : static_cast<char *>(G.Y) + B * G.Sy * static_cast<long long>(Eo);
      for (int64_t I = 0; I < Len; ++I) {
        float Sum = 0;
        for (int64_t K = 0; K < Inner; ++K)
          Sum += loadElem(A, G.In, T ? I * G.Lda + K : K * G.Lda + I) * loadElem(X, G.In, vectorAt(Inner, G.Ix, K));
        int64_t Yi = vectorAt(Len, G.Iy, I);
        storeElem(Y, G.Out, Yi, Alpha * Sum + (Beta == 0 ? 0.f : Beta * loadElem(Y, G.Out, Yi)));
      }
    }
  }
}

// --- grouped batched GEMM -------------------------------------------------------------------------

/// Checks every group before any runs (an error leaves all outputs untouched), then issues one batched GEMM per
/// group: the arrays of pointers advance by the group sizes, alpha and beta by one scalar per group.
template <typename I, typename Issue>
cublasStatus_t grouped(cublasHandle_t Hd, const cublasOperation_t *Ta, const cublasOperation_t *Tb, const I *M,
                       const I *N, const I *K, const I *Lda, const I *Ldb, const I *Ldc, I Groups, const I *Sizes,
                       Issue Run) {
  if (!handle(Hd))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (Groups < 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (Groups == 0)
    return CUBLAS_STATUS_SUCCESS;
  if (!Ta || !Tb || !M || !N || !K || !Lda || !Ldb || !Ldc || !Sizes)
    return CUBLAS_STATUS_INVALID_VALUE;
  for (I G = 0; G < Groups; ++G)
    if (!validOp(Ta[G]) || !validOp(Tb[G]) || M[G] < 0 || N[G] < 0 || K[G] < 0 || Sizes[G] < 0 ||
        Lda[G] < std::max<I>(1, Ta[G] == CUBLAS_OP_N ? M[G] : K[G]) ||
        Ldb[G] < std::max<I>(1, Tb[G] == CUBLAS_OP_N ? K[G] : N[G]) || Ldc[G] < std::max<I>(1, M[G]))
      return CUBLAS_STATUS_INVALID_VALUE;
  int64_t Offset = 0;
  for (I G = 0; G < Groups; ++G) {
    if (cublasStatus_t S = Run(G, Offset))
      return S;
    Offset += Sizes[G];
  }
  return CUBLAS_STATUS_SUCCESS;
}

} // namespace

// --- exports -------------------------------------------------------------------------------------

#define SYM_COMPLEX(P, T, Cx)                                                                                          \
  CUBLAS_API cublasStatus_t cublas##P##symv_v2(cublasHandle_t H, cublasFillMode_t U, int N, const T *Al, const T *A,   \
                                               int Lda, const T *X, int Ix, const T *Be, T *Y, int Iy) {               \
    return symv(H, U, N, Al, reinterpret_cast<const Cx *>(A), Lda, reinterpret_cast<const Cx *>(X), Ix, Be,           \
                reinterpret_cast<Cx *>(Y), Iy);                                                                        \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##symv_v2_64(cublasHandle_t H, cublasFillMode_t U, int64_t N, const T *Al,        \
                                                  const T *A, int64_t Lda, const T *X, int64_t Ix, const T *Be, T *Y,  \
                                                  int64_t Iy) {                                                        \
    return symv(H, U, N, Al, reinterpret_cast<const Cx *>(A), Lda, reinterpret_cast<const Cx *>(X), Ix, Be,           \
                reinterpret_cast<Cx *>(Y), Iy);                                                                        \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##syr_v2(cublasHandle_t H, cublasFillMode_t U, int N, const T *Al, const T *X,    \
                                              int Ix, T *A, int Lda) {                                                 \
    return syr<Cx>(H, U, N, Al, reinterpret_cast<const Cx *>(X), Ix, nullptr, 0, reinterpret_cast<Cx *>(A), Lda);     \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##syr_v2_64(cublasHandle_t H, cublasFillMode_t U, int64_t N, const T *Al,         \
                                                 const T *X, int64_t Ix, T *A, int64_t Lda) {                          \
    return syr<Cx>(H, U, N, Al, reinterpret_cast<const Cx *>(X), Ix, nullptr, 0, reinterpret_cast<Cx *>(A), Lda);     \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##syr2_v2(cublasHandle_t H, cublasFillMode_t U, int N, const T *Al, const T *X,   \
                                               int Ix, const T *Y, int Iy, T *A, int Lda) {                            \
    if (!Y)                                                                                                            \
      return handle(H) ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_NOT_INITIALIZED;                                  \
    return syr<Cx>(H, U, N, Al, reinterpret_cast<const Cx *>(X), Ix, reinterpret_cast<const Cx *>(Y), Iy,             \
                   reinterpret_cast<Cx *>(A), Lda);                                                                    \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##syr2_v2_64(cublasHandle_t H, cublasFillMode_t U, int64_t N, const T *Al,        \
                                                  const T *X, int64_t Ix, const T *Y, int64_t Iy, T *A, int64_t Lda) { \
    if (!Y)                                                                                                            \
      return handle(H) ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_NOT_INITIALIZED;                                  \
    return syr<Cx>(H, U, N, Al, reinterpret_cast<const Cx *>(X), Ix, reinterpret_cast<const Cx *>(Y), Iy,             \
                   reinterpret_cast<Cx *>(A), Lda);                                                                    \
  }
SYM_COMPLEX(C, cuComplex, C32)
SYM_COMPLEX(Z, cuDoubleComplex, C64)

#define PACKING(P, T)                                                                                                  \
  CUBLAS_API cublasStatus_t cublas##P##trttp(cublasHandle_t H, cublasFillMode_t U, int N, const T *A, int Lda,         \
                                             T *Ap) {                                                                  \
    return packing(H, true, U, N, A, Ap, Lda, #P "TRTTP");                                                             \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##tpttr(cublasHandle_t H, cublasFillMode_t U, int N, const T *Ap, T *A,           \
                                             int Lda) {                                                                \
    return packing(H, false, U, N, Ap, A, Lda, #P "TPTTR");                                                            \
  }
PACKING(S, float)
PACKING(D, double)
PACKING(C, cuComplex)
PACKING(Z, cuDoubleComplex)

// gemm3m: the ordinary complex GEMM (cuBLAS's reference allows the 3-multiplication form's error; ours is smaller).
#define GEMM3M(P, T, DT, Sfx, I)                                                                                       \
  CUBLAS_API cublasStatus_t cublas##P##gemm3m##Sfx(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb, I M,  \
                                                   I N, I K, const T *Al, const T *A, I Lda, const T *B, I Ldb,        \
                                                   const T *Be, T *C, I Ldc) {                                         \
    return cublasGemmEx##Sfx(H, Ta, Tb, M, N, K, Al, A, DT, Lda, B, DT, Ldb, Be, C, DT, Ldc,                          \
                             DT == CUDA_C_32F ? Compute32F : int(CUBLAS_COMPUTE_64F), GemmDefault);                    \
  }
GEMM3M(C, cuComplex, CUDA_C_32F, , int)
GEMM3M(C, cuComplex, CUDA_C_32F, _64, int64_t)
GEMM3M(Z, cuDoubleComplex, CUDA_C_64F, , int)
GEMM3M(Z, cuDoubleComplex, CUDA_C_64F, _64, int64_t)

#define CGEMM_EX(Name, Sfx, I)                                                                                         \
  CUBLAS_API cublasStatus_t cublas##Name##Sfx(cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb, I M, I N,  \
                                              I K, const cuComplex *Al, const void *A, cudaDataType At, I Lda,         \
                                              const void *B, cudaDataType Bt, I Ldb, const cuComplex *Be, void *C,     \
                                              cudaDataType Ct, I Ldc) {                                                \
    return cublasGemmEx##Sfx(H, Ta, Tb, M, N, K, Al, A, At, Lda, B, Bt, Ldb, Be, C, Ct, Ldc, Compute32F, GemmDefault); \
  }
CGEMM_EX(CgemmEx, , int)
CGEMM_EX(CgemmEx, _64, int64_t)
CGEMM_EX(Cgemm3mEx, , int)
CGEMM_EX(Cgemm3mEx, _64, int64_t)

#define GEMM3M_BATCHED(Sfx, I)                                                                                         \
  CUBLAS_API cublasStatus_t cublasCgemm3mBatched##Sfx(                                                                 \
      cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb, I M, I N, I K, const cuComplex *Al,                \
      const cuComplex *const A[], I Lda, const cuComplex *const B[], I Ldb, const cuComplex *Be, cuComplex *const C[], \
      I Ldc, I Count) {                                                                                                \
    return cublasGemmBatchedEx##Sfx(H, Ta, Tb, M, N, K, Al, reinterpret_cast<const void *const *>(A), CUDA_C_32F, Lda, \
                                    reinterpret_cast<const void *const *>(B), CUDA_C_32F, Ldb, Be,                     \
                                    reinterpret_cast<void *const *>(C), CUDA_C_32F, Ldc, Count, Compute32F,            \
                                    GemmDefault);                                                                      \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasCgemm3mStridedBatched##Sfx(                                                          \
      cublasHandle_t H, cublasOperation_t Ta, cublasOperation_t Tb, I M, I N, I K, const cuComplex *Al,                \
      const cuComplex *A, I Lda, long long Sa, const cuComplex *B, I Ldb, long long Sb, const cuComplex *Be,           \
      cuComplex *C, I Ldc, long long Sc, I Count) {                                                                    \
    return cublasGemmStridedBatchedEx##Sfx(H, Ta, Tb, M, N, K, Al, A, CUDA_C_32F, Lda, Sa, B, CUDA_C_32F, Ldb, Sb, Be,  \
                                           C, CUDA_C_32F, Ldc, Sc, Count, Compute32F, GemmDefault);                    \
  }
GEMM3M_BATCHED(, int)
GEMM3M_BATCHED(_64, int64_t)

#define RANK_K_EX(Sfx, I)                                                                                              \
  CUBLAS_API cublasStatus_t cublasCsyrkEx##Sfx(cublasHandle_t H, cublasFillMode_t U, cublasOperation_t Tr, I N, I K,   \
                                               const cuComplex *Al, const void *A, cudaDataType At, I Lda,             \
                                               const cuComplex *Be, void *C, cudaDataType Ct, I Ldc) {                 \
    return rankKEx(H, false, U, Tr, N, K, Al, A, At, Lda, Be, C, Ct, Ldc);                                             \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasCsyrk3mEx##Sfx(cublasHandle_t H, cublasFillMode_t U, cublasOperation_t Tr, I N, I K, \
                                                 const cuComplex *Al, const void *A, cudaDataType At, I Lda,           \
                                                 const cuComplex *Be, void *C, cudaDataType Ct, I Ldc) {               \
    return rankKEx(H, false, U, Tr, N, K, Al, A, At, Lda, Be, C, Ct, Ldc);                                             \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasCherkEx##Sfx(cublasHandle_t H, cublasFillMode_t U, cublasOperation_t Tr, I N, I K,   \
                                               const float *Al, const void *A, cudaDataType At, I Lda,                 \
                                               const float *Be, void *C, cudaDataType Ct, I Ldc) {                     \
    return rankKEx(H, true, U, Tr, N, K, Al, A, At, Lda, Be, C, Ct, Ldc);                                              \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasCherk3mEx##Sfx(cublasHandle_t H, cublasFillMode_t U, cublasOperation_t Tr, I N, I K, \
                                                 const float *Al, const void *A, cudaDataType At, I Lda,               \
                                                 const float *Be, void *C, cudaDataType Ct, I Ldc) {                   \
    return rankKEx(H, true, U, Tr, N, K, Al, A, At, Lda, Be, C, Ct, Ldc);                                              \
  }
RANK_K_EX(, int)
RANK_K_EX(_64, int64_t)

#define MIXED_GEMV(Name, Tin, Tout, In, Out, Sfx, I)                                                                   \
  CUBLAS_API cublasStatus_t cublas##Name##gemvBatched##Sfx(cublasHandle_t H, cublasOperation_t Tr, I M, I N,           \
                                                           const float *Al, const Tin *const A[], I Lda,               \
                                                           const Tin *const X[], I Ix, const float *Be,                \
                                                           Tout *const Y[], I Iy, I Count) {                           \
    return mixedGemv(H, {Tr, M, N, Lda, Ix, Iy, Count, In, Out, A, X, const_cast<Tout **>(Y), 0, 0, 0, true}, Al, Be); \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##Name##gemvStridedBatched##Sfx(                                                     \
      cublasHandle_t H, cublasOperation_t Tr, I M, I N, const float *Al, const Tin *A, I Lda, long long Sa,            \
      const Tin *X, I Ix, long long Sx, const float *Be, Tout *Y, I Iy, long long Sy, I Count) {                       \
    return mixedGemv(H, {Tr, M, N, Lda, Ix, Iy, Count, In, Out, A, X, Y, Sa, Sx, Sy, false}, Al, Be);                  \
  }
using Half16 = uint16_t;
MIXED_GEMV(HSH, Half16, Half16, CUDA_R_16F, CUDA_R_16F, , int)
MIXED_GEMV(HSH, Half16, Half16, CUDA_R_16F, CUDA_R_16F, _64, int64_t)
MIXED_GEMV(HSS, Half16, float, CUDA_R_16F, CUDA_R_32F, , int)
MIXED_GEMV(HSS, Half16, float, CUDA_R_16F, CUDA_R_32F, _64, int64_t)
MIXED_GEMV(TST, Half16, Half16, CUDA_R_16BF, CUDA_R_16BF, , int)
MIXED_GEMV(TST, Half16, Half16, CUDA_R_16BF, CUDA_R_16BF, _64, int64_t)
MIXED_GEMV(TSS, Half16, float, CUDA_R_16BF, CUDA_R_32F, , int)
MIXED_GEMV(TSS, Half16, float, CUDA_R_16BF, CUDA_R_32F, _64, int64_t)

#define GROUPED(P, T, DT, CT, Sfx, I)                                                                                  \
  CUBLAS_API cublasStatus_t cublas##P##gemmGroupedBatched##Sfx(                                                        \
      cublasHandle_t H, const cublasOperation_t Ta[], const cublasOperation_t Tb[], const I M[], const I N[],          \
      const I K[], const T Al[], const T *const A[], const I Lda[], const T *const B[], const I Ldb[], const T Be[],    \
      T *const C[], const I Ldc[], I Groups, const I Sizes[]) {                                                        \
    if (Groups > 0 && (!Al || !Be || !A || !B || !C))                                                                  \
      return handle(H) ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_NOT_INITIALIZED;                                  \
    return grouped(H, Ta, Tb, M, N, K, Lda, Ldb, Ldc, Groups, Sizes, [&](I G, int64_t Off) {                           \
      return cublasGemmBatchedEx##Sfx(H, Ta[G], Tb[G], M[G], N[G], K[G], Al + G,                                       \
                                      reinterpret_cast<const void *const *>(A + Off), DT, Lda[G],                      \
                                      reinterpret_cast<const void *const *>(B + Off), DT, Ldb[G], Be + G,              \
                                      reinterpret_cast<void *const *>(C + Off), DT, Ldc[G], Sizes[G], CT,              \
                                      GemmDefault);                                                                    \
    });                                                                                                                \
  }
GROUPED(S, float, CUDA_R_32F, Compute32F, , int)
GROUPED(S, float, CUDA_R_32F, Compute32F, _64, int64_t)
GROUPED(D, double, CUDA_R_64F, int(CUBLAS_COMPUTE_64F), , int)
GROUPED(D, double, CUDA_R_64F, int(CUBLAS_COMPUTE_64F), _64, int64_t)

/// The Ex form: alpha and beta arrays of the compute type's scalars (f16 for COMPUTE_16F, f64 for 64F, else f32).
#define GROUPED_EX(Sfx, I)                                                                                             \
  CUBLAS_API cublasStatus_t cublasGemmGroupedBatchedEx##Sfx(                                                           \
      cublasHandle_t H, const cublasOperation_t Ta[], const cublasOperation_t Tb[], const I M[], const I N[],          \
      const I K[], const void *Al, const void *const A[], cudaDataType At, const I Lda[], const void *const B[],       \
      cudaDataType Bt, const I Ldb[], const void *Be, void *const C[], cudaDataType Ct, const I Ldc[], I Groups,        \
      const I Sizes[], cublasComputeType_t Compute) {                                                                  \
    if (Groups > 0 && (!Al || !Be || !A || !B || !C))                                                                  \
      return handle(H) ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_NOT_INITIALIZED;                                  \
    size_t Sb = Compute == CUBLAS_COMPUTE_16F || Compute == CUBLAS_COMPUTE_16F_PEDANTIC   ? 2                          \
                : Compute == CUBLAS_COMPUTE_64F || Compute == CUBLAS_COMPUTE_64F_PEDANTIC ? 8                          \
                                                                                          : 4;                         \
    return grouped(H, Ta, Tb, M, N, K, Lda, Ldb, Ldc, Groups, Sizes, [&](I G, int64_t Off) {                           \
      return cublasGemmBatchedEx##Sfx(H, Ta[G], Tb[G], M[G], N[G], K[G], static_cast<const char *>(Al) + G * Sb,       \
                                      A + Off, At, Lda[G], B + Off, Bt, Ldb[G],                                        \
                                      static_cast<const char *>(Be) + G * Sb, C + Off, Ct, Ldc[G], Sizes[G], Compute,  \
                                      GemmDefault);                                                                    \
    });                                                                                                                \
  }
GROUPED_EX(, int)
GROUPED_EX(_64, int64_t)
