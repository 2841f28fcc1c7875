//===- CpuBlas3.cpp - cuBLAS level 2/3 extras and batched LU on the CPU -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file trsm, trmm, syrk/herk, symm/hemm, syr2k/her2k, ger, symv/hemv, trmv,
/// trsv over OpenBLAS's CBLAS; batched getrf/getri/getrs/matinv over its
/// LAPACK (xGETRF, xGETRI, xGETRS), with our own loops where cuBLAS has no
/// pivoting (a null pivot array). One traits struct per element type keeps
/// the S, D, C, Z forms to one template each.
#include "libs/cublas/Cublas.h"

#include "libs/cublas/CblasEnums.h"

#include <complex>
#include <vector>

extern "C" {
void sgetrf_(const int *, const int *, float *, const int *, int *, int *);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void cgetrf_(const int *, const int *, void *, const int *, int *, int *);
void zgetrf_(const int *, const int *, void *, const int *, int *, int *);
void sgetri_(const int *, float *, const int *, const int *, float *, const int *, int *);
void dgetri_(const int *, double *, const int *, const int *, double *, const int *, int *);
void cgetri_(const int *, void *, const int *, const int *, void *, const int *, int *);
void zgetri_(const int *, void *, const int *, const int *, void *, const int *, int *);
void sgetrs_(const char *, const int *, const int *, const float *, const int *, const int *, float *, const int *,
             int *, size_t);
void dgetrs_(const char *, const int *, const int *, const double *, const int *, const int *, double *,
             const int *, int *, size_t);
void cgetrs_(const char *, const int *, const int *, const void *, const int *, const int *, void *, const int *,
             int *, size_t);
void zgetrs_(const char *, const int *, const int *, const void *, const int *, const int *, void *, const int *,
             int *, size_t);
}

namespace zluda::cublas {
namespace {

using C32 = std::complex<float>;
using C64 = std::complex<double>;
constexpr auto Col = CblasColMajor;

template <typename T> struct Blas;

// Real types take scalars by value in CBLAS, complex ones by pointer: the
// macros below give both one shape (scalars by pointer).
#define REAL_TRAITS(T, p, P)                                                                                           \
  template <> struct Blas<T> {                                                                                         \
    static constexpr bool Complex = false;                                                                             \
    using Real = T;                                                                                                    \
    static void trsm(CBLAS_SIDE S, CBLAS_UPLO U, CBLAS_TRANSPOSE Tr, CBLAS_DIAG D, int M, int N, const T *Al,          \
                     const T *A, int Lda, T *B, int Ldb) {                                                             \
      cblas_##p##trsm(Col, S, U, Tr, D, M, N, *Al, A, Lda, B, Ldb);                                                    \
    }                                                                                                                  \
    static void trmm(CBLAS_SIDE S, CBLAS_UPLO U, CBLAS_TRANSPOSE Tr, CBLAS_DIAG D, int M, int N, const T *Al,          \
                     const T *A, int Lda, T *B, int Ldb) {                                                             \
      cblas_##p##trmm(Col, S, U, Tr, D, M, N, *Al, A, Lda, B, Ldb);                                                    \
    }                                                                                                                  \
    static void syrk(CBLAS_UPLO U, CBLAS_TRANSPOSE Tr, int N, int K, const T *Al, const T *A, int Lda, const T *Be,    \
                     T *C, int Ldc) {                                                                                  \
      cblas_##p##syrk(Col, U, Tr, N, K, *Al, A, Lda, *Be, C, Ldc);                                                     \
    }                                                                                                                  \
    static void gemm(CBLAS_TRANSPOSE Ta, CBLAS_TRANSPOSE Tb, int M, int N, int K, const T *Al, const T *A, int Lda,    \
                     const T *B, int Ldb, T *C, int Ldc) {                                                             \
      cblas_##p##gemm(Col, Ta, Tb, M, N, K, *Al, A, Lda, B, Ldb, T(0), C, Ldc);                                        \
    }                                                                                                                  \
    static void symm(CBLAS_SIDE S, CBLAS_UPLO U, int M, int N, const T *Al, const T *A, int Lda, const T *B, int Ldb,  \
                     const T *Be, T *C, int Ldc) {                                                                     \
      cblas_##p##symm(Col, S, U, M, N, *Al, A, Lda, B, Ldb, *Be, C, Ldc);                                              \
    }                                                                                                                  \
    static void syr2k(CBLAS_UPLO U, CBLAS_TRANSPOSE Tr, int N, int K, const T *Al, const T *A, int Lda, const T *B,    \
                      int Ldb, const T *Be, T *C, int Ldc) {                                                           \
      cblas_##p##syr2k(Col, U, Tr, N, K, *Al, A, Lda, B, Ldb, *Be, C, Ldc);                                            \
    }                                                                                                                  \
    static void ger(int M, int N, const T *Al, const T *X, int Ix, const T *Y, int Iy, T *A, int Lda, bool) {          \
      cblas_##p##ger(Col, M, N, *Al, X, Ix, Y, Iy, A, Lda);                                                            \
    }                                                                                                                  \
    static void symv(CBLAS_UPLO U, int N, const T *Al, const T *A, int Lda, const T *X, int Ix, const T *Be, T *Y,     \
                     int Iy) {                                                                                         \
      cblas_##p##symv(Col, U, N, *Al, A, Lda, X, Ix, *Be, Y, Iy);                                                      \
    }                                                                                                                  \
    static void trmv(CBLAS_UPLO U, CBLAS_TRANSPOSE Tr, CBLAS_DIAG D, int N, const T *A, int Lda, T *X, int Ix) {       \
      cblas_##p##trmv(Col, U, Tr, D, N, A, Lda, X, Ix);                                                                \
    }                                                                                                                  \
    static void trsv(CBLAS_UPLO U, CBLAS_TRANSPOSE Tr, CBLAS_DIAG D, int N, const T *A, int Lda, T *X, int Ix) {       \
      cblas_##p##trsv(Col, U, Tr, D, N, A, Lda, X, Ix);                                                                \
    }                                                                                                                  \
    static void getrf(int N, T *A, int Lda, int *Piv, int *Info) { p##getrf_(&N, &N, A, &Lda, Piv, Info); }            \
    static void getri(int N, T *A, int Lda, const int *Piv, T *W, int Lw, int *Info) {                                 \
      p##getri_(&N, A, &Lda, Piv, W, &Lw, Info);                                                                       \
    }                                                                                                                  \
    static void getrs(char Tr, int N, int Nrhs, const T *A, int Lda, const int *Piv, T *B, int Ldb, int *Info) {       \
      p##getrs_(&Tr, &N, &Nrhs, A, &Lda, Piv, B, &Ldb, Info, 1);                                                       \
    }                                                                                                                  \
  };
REAL_TRAITS(float, s, S)
REAL_TRAITS(double, d, D)

#define COMPLEX_TRAITS(T, R, p)                                                                                        \
  template <> struct Blas<T> {                                                                                         \
    static constexpr bool Complex = true;                                                                              \
    using Real = R;                                                                                                    \
    static void trsm(CBLAS_SIDE S, CBLAS_UPLO U, CBLAS_TRANSPOSE Tr, CBLAS_DIAG D, int M, int N, const T *Al,          \
                     const T *A, int Lda, T *B, int Ldb) {                                                             \
      cblas_##p##trsm(Col, S, U, Tr, D, M, N, Al, A, Lda, B, Ldb);                                                     \
    }                                                                                                                  \
    static void trmm(CBLAS_SIDE S, CBLAS_UPLO U, CBLAS_TRANSPOSE Tr, CBLAS_DIAG D, int M, int N, const T *Al,          \
                     const T *A, int Lda, T *B, int Ldb) {                                                             \
      cblas_##p##trmm(Col, S, U, Tr, D, M, N, Al, A, Lda, B, Ldb);                                                     \
    }                                                                                                                  \
    static void syrk(CBLAS_UPLO U, CBLAS_TRANSPOSE Tr, int N, int K, const T *Al, const T *A, int Lda, const T *Be,    \
                     T *C, int Ldc) {                                                                                  \
      cblas_##p##syrk(Col, U, Tr, N, K, Al, A, Lda, Be, C, Ldc);                                                       \
    }                                                                                                                  \
    static void gemm(CBLAS_TRANSPOSE Ta, CBLAS_TRANSPOSE Tb, int M, int N, int K, const T *Al, const T *A, int Lda,    \
                     const T *B, int Ldb, T *C, int Ldc) {                                                             \
      const T Zero(0);                                                                                                 \
      cblas_##p##gemm(Col, Ta, Tb, M, N, K, Al, A, Lda, B, Ldb, &Zero, C, Ldc);                                        \
    }                                                                                                                  \
    static void herk(CBLAS_UPLO U, CBLAS_TRANSPOSE Tr, int N, int K, R Al, const T *A, int Lda, R Be, T *C, int Ldc) { \
      cblas_##p##herk(Col, U, Tr, N, K, Al, A, Lda, Be, C, Ldc);                                                       \
    }                                                                                                                  \
    static void symm(CBLAS_SIDE S, CBLAS_UPLO U, int M, int N, const T *Al, const T *A, int Lda, const T *B, int Ldb,  \
                     const T *Be, T *C, int Ldc) {                                                                     \
      cblas_##p##symm(Col, S, U, M, N, Al, A, Lda, B, Ldb, Be, C, Ldc);                                                \
    }                                                                                                                  \
    static void hemm(CBLAS_SIDE S, CBLAS_UPLO U, int M, int N, const T *Al, const T *A, int Lda, const T *B, int Ldb,  \
                     const T *Be, T *C, int Ldc) {                                                                     \
      cblas_##p##hemm(Col, S, U, M, N, Al, A, Lda, B, Ldb, Be, C, Ldc);                                                \
    }                                                                                                                  \
    static void syr2k(CBLAS_UPLO U, CBLAS_TRANSPOSE Tr, int N, int K, const T *Al, const T *A, int Lda, const T *B,    \
                      int Ldb, const T *Be, T *C, int Ldc) {                                                           \
      cblas_##p##syr2k(Col, U, Tr, N, K, Al, A, Lda, B, Ldb, Be, C, Ldc);                                              \
    }                                                                                                                  \
    static void her2k(CBLAS_UPLO U, CBLAS_TRANSPOSE Tr, int N, int K, const T *Al, const T *A, int Lda, const T *B,    \
                      int Ldb, R Be, T *C, int Ldc) {                                                                  \
      cblas_##p##her2k(Col, U, Tr, N, K, Al, A, Lda, B, Ldb, Be, C, Ldc);                                              \
    }                                                                                                                  \
    static void ger(int M, int N, const T *Al, const T *X, int Ix, const T *Y, int Iy, T *A, int Lda, bool Conj) {     \
      if (Conj)                                                                                                        \
        cblas_##p##gerc(Col, M, N, Al, X, Ix, Y, Iy, A, Lda);                                                          \
      else                                                                                                             \
        cblas_##p##geru(Col, M, N, Al, X, Ix, Y, Iy, A, Lda);                                                          \
    }                                                                                                                  \
    static void symv(CBLAS_UPLO U, int N, const T *Al, const T *A, int Lda, const T *X, int Ix, const T *Be, T *Y,     \
                     int Iy) {                                                                                         \
      cblas_##p##hemv(Col, U, N, Al, A, Lda, X, Ix, Be, Y, Iy);                                                        \
    }                                                                                                                  \
    static void trmv(CBLAS_UPLO U, CBLAS_TRANSPOSE Tr, CBLAS_DIAG D, int N, const T *A, int Lda, T *X, int Ix) {       \
      cblas_##p##trmv(Col, U, Tr, D, N, A, Lda, X, Ix);                                                                \
    }                                                                                                                  \
    static void trsv(CBLAS_UPLO U, CBLAS_TRANSPOSE Tr, CBLAS_DIAG D, int N, const T *A, int Lda, T *X, int Ix) {       \
      cblas_##p##trsv(Col, U, Tr, D, N, A, Lda, X, Ix);                                                                \
    }                                                                                                                  \
    static void getrf(int N, T *A, int Lda, int *Piv, int *Info) { p##getrf_(&N, &N, A, &Lda, Piv, Info); }            \
    static void getri(int N, T *A, int Lda, const int *Piv, T *W, int Lw, int *Info) {                                 \
      p##getri_(&N, A, &Lda, Piv, W, &Lw, Info);                                                                       \
    }                                                                                                                  \
    static void getrs(char Tr, int N, int Nrhs, const T *A, int Lda, const int *Piv, T *B, int Ldb, int *Info) {       \
      p##getrs_(&Tr, &N, &Nrhs, A, &Lda, Piv, B, &Ldb, Info, 1);                                                       \
    }                                                                                                                  \
  };
COMPLEX_TRAITS(C32, float, c)
COMPLEX_TRAITS(C64, double, z)

template <typename T> bool isZero(const T &V) { return V == T(0); }

/// Zeroes the triangle (or all) of an N x N output where beta = 0 (it is not read then).
template <typename T> void zeroTriangle(T *C, int64_t N, int64_t Ldc, bool Lower, int64_t M = -1) {
  for (int64_t J = 0; J < N; ++J)
    for (int64_t I = 0; I < (M < 0 ? N : M); ++I)
      if (M >= 0 || (Lower ? I >= J : I <= J))
        C[J * Ldc + I] = T(0);
}

template <typename T> void level3Typed(const Level3 &L) {
  using B = Blas<T>;
  const bool Cx = B::Complex;
  for (int64_t I = 0; I < L.Batch; ++I) {
    const T *A = static_cast<const T *>(L.Ptrs ? static_cast<const void *const *>(L.A)[I] : L.A);
    const T *Bm = static_cast<const T *>(L.Ptrs ? static_cast<void *const *>(const_cast<void *>(L.B))[I] : L.B);
    T *C = static_cast<T *>(L.Ptrs && L.C ? static_cast<void *const *>(L.C)[I] : L.C);
    auto *Al = static_cast<const T *>(L.Alpha.ptr()), *Be = static_cast<const T *>(L.Beta.ptr());
    bool Lower = L.Uplo == CUBLAS_FILL_MODE_LOWER;
    switch (L.Op) {
    case L3::Trsm: // in place on B
      B::trsm(cblasSide(L.Side), cblasUplo(L.Uplo), cblasTrans(L.Trans, Cx), cblasDiag(L.Diag), L.M, L.N, Al, A, L.Lda,
              const_cast<T *>(Bm), L.Ldb);
      break;
    case L3::Trmm: // C = alpha op(A) B (or B op(A)): B copied into C, then in place
      if (C != Bm)
        for (int64_t J = 0; J < L.N; ++J)
          std::copy(Bm + J * L.Ldb, Bm + J * L.Ldb + L.M, C + J * L.Ldc);
      B::trmm(cblasSide(L.Side), cblasUplo(L.Uplo), cblasTrans(L.Trans, Cx), cblasDiag(L.Diag), L.M, L.N, Al, A, L.Lda, C, L.Ldc);
      break;
    case L3::Syrk:
      if (isZero(*Be))
        zeroTriangle(C, L.N, L.Ldc, Lower);
      B::syrk(cblasUplo(L.Uplo), cblasTrans(L.Trans, false), L.N, L.K, Al, A, L.Lda, Be, C, L.Ldc);
      break;
    case L3::Symm:
      if (isZero(*Be))
        zeroTriangle(C, L.N, L.Ldc, Lower, L.M);
      B::symm(cblasSide(L.Side), cblasUplo(L.Uplo), L.M, L.N, Al, A, L.Lda, Bm, L.Ldb, Be, C, L.Ldc);
      break;
    case L3::Syrkx:
    case L3::Herkx: {
      // C's triangle = alpha op(A) op(B)^T (^H for herkx) + beta C: the
      // product through GEMM into a scratch matrix, then the triangle. herkx's
      // beta is real and its diagonal's imaginary parts become 0 (as herk's;
      // NVIDIA's cuBLAS on an H200 does so too).
      std::vector<T> P(static_cast<size_t>(L.N * L.N));
      bool Herm = L.Op == L3::Herkx;
      auto Ta = L.Trans == CUBLAS_OP_N ? CblasNoTrans : Herm ? CblasConjTrans : CblasTrans;
      auto Tb = L.Trans == CUBLAS_OP_N ? (Herm ? CblasConjTrans : CblasTrans) : CblasNoTrans;
      B::gemm(Ta, Tb, L.N, L.N, L.K, Al, A, L.Lda, Bm, L.Ldb, P.data(), L.N);
      T Beta;
      if constexpr (B::Complex)
        Beta = Herm ? T(L.Beta.get<typename B::Real>()) : *Be;
      else
        Beta = *Be;
      for (int64_t J = 0; J < L.N; ++J)
        for (int64_t R = Lower ? J : 0; R < (Lower ? L.N : J + 1); ++R) {
          T &Out = C[J * L.Ldc + R];
          Out = isZero(Beta) ? P[J * L.N + R] : P[J * L.N + R] + Beta * Out;
          if constexpr (B::Complex)
            if (Herm && R == J)
              Out = T(Out.real(), 0);
        }
      break;
    }
    case L3::Syr2k:
      if (isZero(*Be))
        zeroTriangle(C, L.N, L.Ldc, Lower);
      B::syr2k(cblasUplo(L.Uplo), cblasTrans(L.Trans, false), L.N, L.K, Al, A, L.Lda, Bm, L.Ldb, Be, C, L.Ldc);
      break;
    default:
      if constexpr (B::Complex) {
        using R = typename B::Real;
        R RBe = L.Beta.get<R>();
        if (RBe == 0)
          zeroTriangle(C, L.N, L.Ldc, Lower, L.Op == L3::Hemm ? L.M : -1);
        if (L.Op == L3::Herk)
          B::herk(cblasUplo(L.Uplo), cblasTrans(L.Trans, true), L.N, L.K, L.Alpha.get<R>(), A, L.Lda, RBe, C, L.Ldc);
        else if (L.Op == L3::Her2k)
          B::her2k(cblasUplo(L.Uplo), cblasTrans(L.Trans, true), L.N, L.K, Al, A, L.Lda, Bm, L.Ldb, RBe, C, L.Ldc);
        else // hemm: complex beta
          B::hemm(cblasSide(L.Side), cblasUplo(L.Uplo), L.M, L.N, Al, A, L.Lda, Bm, L.Ldb, Be, C, L.Ldc);
      }
      break;
    }
  }
}

template <typename T> void level2Typed(const Level2 &L) {
  using B = Blas<T>;
  T *A = static_cast<T *>(L.A), *X = static_cast<T *>(L.X), *Y = static_cast<T *>(L.Y);
  auto *Al = static_cast<const T *>(L.Alpha.ptr()), *Be = static_cast<const T *>(L.Beta.ptr());
  switch (L.Op) {
  case L2::Ger:
  case L2::Gerc: B::ger(L.M, L.N, Al, X, L.IncX, Y, L.IncY, A, L.Lda, L.Op == L2::Gerc); break;
  case L2::Symv:
  case L2::Hemv:
    if (isZero(*Be)) {
      int64_t Start = L.IncY < 0 ? (L.N - 1) * -L.IncY : 0;
      for (int64_t I = 0; I < L.N; ++I)
        Y[Start + I * L.IncY] = T(0);
    }
    B::symv(cblasUplo(L.Uplo), L.N, Al, A, L.Lda, X, L.IncX, Be, Y, L.IncY);
    break;
  case L2::Trmv: B::trmv(cblasUplo(L.Uplo), cblasTrans(L.Trans, B::Complex), cblasDiag(L.Diag), L.N, A, L.Lda, X, L.IncX); break;
  case L2::Trsv: B::trsv(cblasUplo(L.Uplo), cblasTrans(L.Trans, B::Complex), cblasDiag(L.Diag), L.N, A, L.Lda, X, L.IncX); break;
  }
}

/// LU without pivoting (cuBLAS's null pivot array): info = first zero pivot (1-based).
template <typename T> int luNoPivot(T *A, int64_t N, int64_t Lda) {
  int Info = 0;
  for (int64_t K = 0; K < N; ++K) {
    T P = A[K * Lda + K];
    if (isZero(P)) {
      if (!Info)
        Info = static_cast<int>(K + 1);
      continue;
    }
    for (int64_t I = K + 1; I < N; ++I)
      A[K * Lda + I] /= P;
    for (int64_t J = K + 1; J < N; ++J)
      for (int64_t I = K + 1; I < N; ++I)
        A[J * Lda + I] -= A[K * Lda + I] * A[J * Lda + K];
  }
  return Info;
}

template <typename T> void luTyped(const LuBatch &L) {
  using B = Blas<T>;
  const int N = static_cast<int>(L.N);
  std::vector<int> Identity(static_cast<size_t>(N));
  for (int I = 0; I < N; ++I)
    Identity[I] = I + 1;
  for (int64_t I = 0; I < L.Batch; ++I) {
    T *A = static_cast<T *>(static_cast<void *const *>(L.A)[I]);
    int *Piv = L.Pivots ? L.Pivots + I * N : nullptr;
    int Info = 0;
    auto invert = [&](T *Out, int64_t Ldo, const int *P) { // Out holds the LU factors
      int Lw = std::max(1, N * 64);
      std::vector<T> W(static_cast<size_t>(Lw));
      B::getri(N, Out, static_cast<int>(Ldo), P, W.data(), Lw, &Info);
    };
    switch (L.Op) {
    case Lu::Getrf:
      if (Piv)
        B::getrf(N, A, static_cast<int>(L.Lda), Piv, &Info);
      else
        Info = luNoPivot(A, N, L.Lda);
      L.Info[I] = Info;
      break;
    case Lu::Getri: { // C = inverse from A's factors
      T *C = static_cast<T *>(static_cast<void *const *>(L.C)[I]);
      for (int J = 0; J < N; ++J)
        std::copy(A + J * L.Lda, A + J * L.Lda + N, C + J * L.Ldc);
      for (int J = 0; J < N && !Info; ++J) // a singular factor: info, C unchanged past the copy
        if (isZero(C[J * L.Ldc + J]))
          Info = J + 1;
      if (!Info)
        invert(C, L.Ldc, Piv ? Piv : Identity.data());
      L.Info[I] = Info;
      break;
    }
    case Lu::Getrs: {
      T *C = static_cast<T *>(static_cast<void *const *>(L.C)[I]);
      char Tr = L.Trans == CUBLAS_OP_N ? 'N' : L.Trans == CUBLAS_OP_T ? 'T' : 'C';
      B::getrs(Tr, N, static_cast<int>(L.Nrhs), A, static_cast<int>(L.Lda), Piv ? Piv : Identity.data(), C,
               static_cast<int>(L.Ldc), &Info);
      break;
    }
    case Lu::Matinv: { // C = inverse of A (factored in a copy with pivoting)
      T *C = static_cast<T *>(static_cast<void *const *>(L.C)[I]);
      for (int J = 0; J < N; ++J)
        std::copy(A + J * L.Lda, A + J * L.Lda + N, C + J * L.Ldc);
      std::vector<int> P(static_cast<size_t>(N));
      B::getrf(N, C, static_cast<int>(L.Ldc), P.data(), &Info);
      if (!Info)
        invert(C, L.Ldc, P.data());
      L.Info[I] = Info;
      break;
    }
    }
  }
}

} // namespace

void level3Run(const Level3 &L) {
  switch (L.T) {
  case CUDA_R_32F: return level3Typed<float>(L);
  case CUDA_R_64F: return level3Typed<double>(L);
  case CUDA_C_32F: return level3Typed<C32>(L);
  case CUDA_C_64F: return level3Typed<C64>(L);
  default: return;
  }
}

void level2Run(const Level2 &L) {
  switch (L.T) {
  case CUDA_R_32F: return level2Typed<float>(L);
  case CUDA_R_64F: return level2Typed<double>(L);
  case CUDA_C_32F: return level2Typed<C32>(L);
  case CUDA_C_64F: return level2Typed<C64>(L);
  default: return;
  }
}

void luRun(const LuBatch &L) {
  switch (L.T) {
  case CUDA_R_32F: return luTyped<float>(L);
  case CUDA_R_64F: return luTyped<double>(L);
  case CUDA_C_32F: return luTyped<C32>(L);
  case CUDA_C_64F: return luTyped<C64>(L);
  default: return;
  }
}

} // namespace zluda::cublas
