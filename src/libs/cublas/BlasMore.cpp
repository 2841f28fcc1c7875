//===- BlasMore.cpp - the less used cuBLAS routines ---------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Givens rotations (rot, rotg, rotm, rotmg), rank-1 and rank-2 updates
/// (syr, syr2, her, her2 and their packed forms), packed and banded level 2
/// (spmv, hpmv, sbmv, hbmv, gbmv, tbmv, tbsv, tpmv, tpsv) and batched gemv.
/// Each checks its arguments as the cuBLAS reference states and runs as a
/// closure over OpenBLAS's CBLAS in stream order: on the arrays themselves on
/// the CPU device, on host copies after the stream on a GPU (runArrays; the
/// pointer-array batches still through Backend::other, not on GPUs yet).
/// Results in host memory (rotg, rotmg in host pointer mode) make the call
/// blocking.
#include "libs/cublas/CblasEnums.h"
#include "libs/cublas/Cublas.h"

#include <algorithm>
#include <complex>

using namespace zluda::cublas;
namespace libs = zluda::libs;

namespace {

using C32 = std::complex<float>;
using C64 = std::complex<double>;
constexpr auto Col = CblasColMajor;

Handle *handle(cublasHandle_t Hd) { return handleOf(Hd); }
bool hostMode(cublasHandle_t Hd) { return handle(Hd) && handle(Hd)->PointerMode == CUBLAS_POINTER_MODE_HOST; }

} // namespace

#define CHECK_HANDLE(Hd)                                                                                               \
  if (!handle(Hd))                                                                                                     \
    return CUBLAS_STATUS_NOT_INITIALIZED;

// --- Givens rotations ----------------------------------------------------------------------

#define ROT_REAL(P, T, p)                                                                                              \
  CUBLAS_API cublasStatus_t cublas##P##rot_v2(cublasHandle_t Hd, int N, T *X, int Ix, T *Y, int Iy, const T *C,        \
                                              const T *S) {                                                            \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!C || !S)                                                                                                      \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (N <= 0)                                                                                                        \
      return CUBLAS_STATUS_SUCCESS;                                                                                    \
    Scalar Cs(*handle(Hd), C, sizeof(T)), Ss(*handle(Hd), S, sizeof(T));                                               \
    if (!fetch(Hd, {{&Cs, sizeof(T)}, {&Ss, sizeof(T)}}))                                                              \
      return CUBLAS_STATUS_EXECUTION_FAILED;                                                                           \
    return runArrays(Hd, [=](T *X, T *Y) { cblas_##p##rot(N, X, Ix, Y, Iy, Cs.get<T>(), Ss.get<T>()); }, libs::inout(X, vecSpan(N, Ix)), libs::inout(Y, vecSpan(N, Iy)));                        \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##rotg_v2(cublasHandle_t Hd, T *A, T *B, T *C, T *S) {                            \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!A || !B || !C || !S)                                                                                          \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (hostMode(Hd))                                                                                                  \
      return runNow(Hd, [=] { cblas_##p##rotg(A, B, C, S); });                                                         \
    return runArrays(Hd, [=](auto *A, auto *B, auto *C, auto *S) { cblas_##p##rotg(A, B, C, S); },                     \
                     libs::inout(A, 1), libs::inout(B, 1), libs::inout(C, 1), libs::inout(S, 1));                                        \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##rotm_v2(cublasHandle_t Hd, int N, T *X, int Ix, T *Y, int Iy,                   \
                                               const T *Param) {                                                       \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!Param)                                                                                                        \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (N <= 0)                                                                                                        \
      return CUBLAS_STATUS_SUCCESS;                                                                                    \
    struct P5 {                                                                                                        \
      T V[5];                                                                                                          \
    };                                                                                                                 \
    P5 Copy{};                                                                                                         \
    bool Dev = !hostMode(Hd);                                                                                          \
    if (!Dev)                                                                                                          \
      std::memcpy(Copy.V, Param, sizeof Copy.V); /* host parameters are read at the call */                            \
    return runArrays(Hd, [=](T *X, T *Y, const T *Pd) { cblas_##p##rotm(N, X, Ix, Y, Iy, Dev ? Pd : Copy.V); },      \
                     libs::inout(X, vecSpan(N, Ix)), libs::inout(Y, vecSpan(N, Iy)), libs::in(Dev ? Param : nullptr, 5));                          \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##rotmg_v2(cublasHandle_t Hd, T *D1, T *D2, T *X1, const T *Y1, T *Param) {       \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!D1 || !D2 || !X1 || !Y1 || !Param)                                                                            \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (hostMode(Hd))                                                                                                  \
      return runNow(Hd, [=] { cblas_##p##rotmg(D1, D2, X1, *Y1, Param); });                                            \
    return runArrays(Hd, [=](T *D1, T *D2, T *X1, const T *Y1, T *Param) { cblas_##p##rotmg(D1, D2, X1, *Y1, Param); }, \
                     libs::inout(D1, 1), libs::inout(D2, 1), libs::inout(X1, 1), libs::in(Y1, 1), libs::inout(Param, 5));                          \
  }
ROT_REAL(S, float, s)
ROT_REAL(D, double, d)

// Complex vectors: real c, real s (csrot, zdrot) or complex s (crot, zrot: x' = c x + s y, y' = c y - conj(s) x).
#define ROT_COMPLEX(P, PR, T, CT, R, pr, p)                                                                            \
  CUBLAS_API cublasStatus_t cublas##PR##rot_v2(cublasHandle_t Hd, int N, T *X, int Ix, T *Y, int Iy, const R *C,       \
                                               const R *S) {                                                           \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!C || !S)                                                                                                      \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (N <= 0)                                                                                                        \
      return CUBLAS_STATUS_SUCCESS;                                                                                    \
    Scalar Cs(*handle(Hd), C, sizeof(R)), Ss(*handle(Hd), S, sizeof(R));                                               \
    if (!fetch(Hd, {{&Cs, sizeof(R)}, {&Ss, sizeof(R)}}))                                                              \
      return CUBLAS_STATUS_EXECUTION_FAILED;                                                                           \
    return runArrays(Hd, [=](T *X, T *Y) { cblas_##pr##rot(N, X, Ix, Y, Iy, Cs.get<R>(), Ss.get<R>()); }, libs::inout(X, vecSpan(N, Ix)), libs::inout(Y, vecSpan(N, Iy)));                        \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##rot_v2(cublasHandle_t Hd, int N, T *X, int Ix, T *Y, int Iy, const R *C,        \
                                              const T *S) {                                                            \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!C || !S)                                                                                                      \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (N <= 0)                                                                                                        \
      return CUBLAS_STATUS_SUCCESS;                                                                                    \
    Scalar Cs(*handle(Hd), C, sizeof(R)), Ss(*handle(Hd), S, sizeof(T));                                               \
    if (!fetch(Hd, {{&Cs, sizeof(R)}, {&Ss, sizeof(T)}}))                                                              \
      return CUBLAS_STATUS_EXECUTION_FAILED;                                                                           \
    return runArrays(Hd, [=](T *X, T *Y) {                                                                                        \
      R Cv = Cs.get<R>();                                                                                              \
      CT Sv = Ss.get<CT>();                                                                                            \
      auto *Xc = reinterpret_cast<CT *>(X), *Yc = reinterpret_cast<CT *>(Y);                                           \
      int64_t Bx = Ix < 0 ? int64_t(N - 1) * -Ix : 0, By = Iy < 0 ? int64_t(N - 1) * -Iy : 0;                          \
      for (int I = 0; I < N; ++I) {                                                                                    \
        CT &A = Xc[Bx + int64_t(I) * Ix], &B = Yc[By + int64_t(I) * Iy];                                               \
        CT Xn = Cv * A + Sv * B, Yn = Cv * B - std::conj(Sv) * A;                                                      \
        A = Xn;                                                                                                        \
        B = Yn;                                                                                                        \
      }                                                                                                                \
    }, libs::inout(X, vecSpan(N, Ix)), libs::inout(Y, vecSpan(N, Iy)));                                                                                                                \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##rotg_v2(cublasHandle_t Hd, T *A, T *B, R *C, T *S) {                            \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!A || !B || !C || !S)                                                                                          \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (hostMode(Hd))                                                                                                  \
      return runNow(Hd, [=] { cblas_##p##rotg(A, B, C, S); });                                                         \
    return runArrays(Hd, [=](auto *A, auto *B, auto *C, auto *S) { cblas_##p##rotg(A, B, C, S); },                     \
                     libs::inout(A, 1), libs::inout(B, 1), libs::inout(C, 1), libs::inout(S, 1));                                        \
  }
ROT_COMPLEX(C, Cs, cuComplex, C32, float, cs, c)
ROT_COMPLEX(Z, Zd, cuDoubleComplex, C64, double, zd, z)

// --- rank-1 and rank-2 updates, packed and banded level 2 ---------------------------------------

/// Scalars by value for real CBLAS, by pointer for complex: V(x) gives what CBLAS takes.
#define RV(T, S) (S).get<T>()
#define CV(T, S) static_cast<const void *>((S).ptr())

#define LEVEL2(P, T, R, p, syr, syr2, spr, spr2, spmv, sbmv, VR, VT)                                                   \
  CUBLAS_API cublasStatus_t cublas##P##syr##_v2(cublasHandle_t Hd, cublasFillMode_t U, int N, const R *Al, const T *X,   \
                                              int Ix, T *A, int Lda) {                                                 \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!validFill(U) || N < 0 || Ix == 0 || Lda < std::max(1, N) || !Al)                                              \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (N == 0)                                                                                                        \
      return CUBLAS_STATUS_SUCCESS;                                                                                    \
    Scalar A_(*handle(Hd), Al, sizeof(R));                                                                             \
    if (!fetch(Hd, {{&A_, sizeof(R)}}))                                                                                \
      return CUBLAS_STATUS_EXECUTION_FAILED;                                                                           \
    return runArrays(Hd, [=](const T *X, T *A) { cblas_##p##syr(Col, cblasUplo(U), N, VR(R, A_), X, Ix, A, Lda); }, libs::in(X, vecSpan(N, Ix)), libs::inout(A, span(Lda, N, N)));                        \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##syr2##_v2(cublasHandle_t Hd, cublasFillMode_t U, int N, const T *Al, const T *X,  \
                                               int Ix, const T *Y, int Iy, T *A, int Lda) {                            \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!validFill(U) || N < 0 || Ix == 0 || Iy == 0 || Lda < std::max(1, N) || !Al)                                   \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (N == 0)                                                                                                        \
      return CUBLAS_STATUS_SUCCESS;                                                                                    \
    Scalar A_(*handle(Hd), Al, sizeof(T));                                                                             \
    if (!fetch(Hd, {{&A_, sizeof(T)}}))                                                                                \
      return CUBLAS_STATUS_EXECUTION_FAILED;                                                                           \
    return runArrays(Hd, [=](const T *X, const T *Y, T *A) { cblas_##p##syr2(Col, cblasUplo(U), N, VT(T, A_), X, Ix, Y, Iy, A, Lda); }, libs::in(X, vecSpan(N, Ix)), libs::in(Y, vecSpan(N, Iy)), libs::inout(A, span(Lda, N, N)));               \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##spr##_v2(cublasHandle_t Hd, cublasFillMode_t U, int N, const R *Al, const T *X,   \
                                              int Ix, T *Ap) {                                                         \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!validFill(U) || N < 0 || Ix == 0 || !Al)                                                                      \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (N == 0)                                                                                                        \
      return CUBLAS_STATUS_SUCCESS;                                                                                    \
    Scalar A_(*handle(Hd), Al, sizeof(R));                                                                             \
    if (!fetch(Hd, {{&A_, sizeof(R)}}))                                                                                \
      return CUBLAS_STATUS_EXECUTION_FAILED;                                                                           \
    return runArrays(Hd, [=](const T *X, T *Ap) { cblas_##p##spr(Col, cblasUplo(U), N, VR(R, A_), X, Ix, Ap); }, libs::in(X, vecSpan(N, Ix)), libs::inout(Ap, size_t(N) * (N + 1) / 2));                            \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##spr2##_v2(cublasHandle_t Hd, cublasFillMode_t U, int N, const T *Al, const T *X,  \
                                               int Ix, const T *Y, int Iy, T *Ap) {                                    \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!validFill(U) || N < 0 || Ix == 0 || Iy == 0 || !Al)                                                           \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (N == 0)                                                                                                        \
      return CUBLAS_STATUS_SUCCESS;                                                                                    \
    Scalar A_(*handle(Hd), Al, sizeof(T));                                                                             \
    if (!fetch(Hd, {{&A_, sizeof(T)}}))                                                                                \
      return CUBLAS_STATUS_EXECUTION_FAILED;                                                                           \
    return runArrays(Hd, [=](const T *X, const T *Y, T *Ap) { cblas_##p##spr2(Col, cblasUplo(U), N, VT(T, A_), X, Ix, Y, Iy, Ap); }, libs::in(X, vecSpan(N, Ix)), libs::in(Y, vecSpan(N, Iy)), libs::inout(Ap, size_t(N) * (N + 1) / 2));                   \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##spmv##_v2(cublasHandle_t Hd, cublasFillMode_t U, int N, const T *Al,              \
                                               const T *Ap, const T *X, int Ix, const T *Be, T *Y, int Iy) {           \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!validFill(U) || N < 0 || Ix == 0 || Iy == 0 || !Al || !Be)                                                    \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (N == 0)                                                                                                        \
      return CUBLAS_STATUS_SUCCESS;                                                                                    \
    Scalar A_(*handle(Hd), Al, sizeof(T)), B_(*handle(Hd), Be, sizeof(T));                                             \
    if (!fetch(Hd, {{&A_, sizeof(T)}, {&B_, sizeof(T)}}))                                                              \
      return CUBLAS_STATUS_EXECUTION_FAILED;                                                                           \
    return runArrays(Hd, [=](const T *Ap, const T *X, T *Y) { cblas_##p##spmv(Col, cblasUplo(U), N, VT(T, A_), Ap, X, Ix, VT(T, B_), Y, Iy); }, libs::in(Ap, size_t(N) * (N + 1) / 2), libs::in(X, vecSpan(N, Ix)), libs::inout(Y, vecSpan(N, Iy)));        \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##sbmv##_v2(cublasHandle_t Hd, cublasFillMode_t U, int N, int K, const T *Al,       \
                                               const T *A, int Lda, const T *X, int Ix, const T *Be, T *Y, int Iy) {   \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!validFill(U) || N < 0 || K < 0 || Lda < K + 1 || Ix == 0 || Iy == 0 || !Al || !Be)                            \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (N == 0)                                                                                                        \
      return CUBLAS_STATUS_SUCCESS;                                                                                    \
    Scalar A_(*handle(Hd), Al, sizeof(T)), B_(*handle(Hd), Be, sizeof(T));                                             \
    if (!fetch(Hd, {{&A_, sizeof(T)}, {&B_, sizeof(T)}}))                                                              \
      return CUBLAS_STATUS_EXECUTION_FAILED;                                                                           \
    return runArrays(Hd, \
               [=](const T *A, const T *X, T *Y) { cblas_##p##sbmv(Col, cblasUplo(U), N, K, VT(T, A_), A, Lda, X, Ix, VT(T, B_), Y, Iy); }, libs::in(A, span(Lda, K + 1, N)), libs::in(X, vecSpan(N, Ix)), libs::inout(Y, vecSpan(N, Iy)));              \
  }
LEVEL2(S, float, float, s, syr, syr2, spr, spr2, spmv, sbmv, RV, RV)
LEVEL2(D, double, double, d, syr, syr2, spr, spr2, spmv, sbmv, RV, RV)
LEVEL2(C, cuComplex, float, c, her, her2, hpr, hpr2, hpmv, hbmv, RV, CV)
LEVEL2(Z, cuDoubleComplex, double, z, her, her2, hpr, hpr2, hpmv, hbmv, RV, CV)

// gbmv and the triangular banded and packed forms, for the four types.
#define LEVEL2_ALL(P, T, p, V)                                                                                         \
  CUBLAS_API cublasStatus_t cublas##P##gbmv_v2(cublasHandle_t Hd, cublasOperation_t Tr, int M, int N, int Kl, int Ku,  \
                                               const T *Al, const T *A, int Lda, const T *X, int Ix, const T *Be,      \
                                               T *Y, int Iy) {                                                         \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!validOp(Tr) || M < 0 || N < 0 || Kl < 0 || Ku < 0 || Lda < Kl + Ku + 1 || Ix == 0 || Iy == 0 || !Al || !Be)  \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (M == 0 || N == 0)                                                                                              \
      return CUBLAS_STATUS_SUCCESS;                                                                                    \
    Scalar A_(*handle(Hd), Al, sizeof(T)), B_(*handle(Hd), Be, sizeof(T));                                             \
    bool Cx = #p[0] == 'c' || #p[0] == 'z';                                                                            \
    if (!fetch(Hd, {{&A_, sizeof(T)}, {&B_, sizeof(T)}}))                                                              \
      return CUBLAS_STATUS_EXECUTION_FAILED;                                                                           \
    return runArrays(Hd, [=](const T *A, const T *X, T *Y) {                                                                                       \
      cblas_##p##gbmv(Col, cblasTrans(Tr, Cx), M, N, Kl, Ku, V(T, A_), A, Lda, X, Ix, V(T, B_), Y, Iy);                     \
    }, libs::in(A, span(Lda, Kl + Ku + 1, N)), libs::in(X, vecSpan(Tr == CUBLAS_OP_N ? N : M, Ix)), libs::inout(Y, vecSpan(Tr == CUBLAS_OP_N ? M : N, Iy)));                                                                                                                \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##tbmv_v2(cublasHandle_t Hd, cublasFillMode_t U, cublasOperation_t Tr,            \
                                               cublasDiagType_t D, int N, int K, const T *A, int Lda, T *X, int Ix) {  \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!validFill(U) || !validOp(Tr) || !validDiag(D) || N < 0 || K < 0 || Lda < K + 1 || Ix == 0)                    \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (N == 0)                                                                                                        \
      return CUBLAS_STATUS_SUCCESS;                                                                                    \
    bool Cx = #p[0] == 'c' || #p[0] == 'z';                                                                            \
    return runArrays(Hd, [=](const T *A, T *X) { cblas_##p##tbmv(Col, cblasUplo(U), cblasTrans(Tr, Cx), cblasDiag(D), N, K, A, Lda, X, Ix); }, libs::in(A, span(Lda, K + 1, N)), libs::inout(X, vecSpan(N, Ix)));      \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##tbsv_v2(cublasHandle_t Hd, cublasFillMode_t U, cublasOperation_t Tr,            \
                                               cublasDiagType_t D, int N, int K, const T *A, int Lda, T *X, int Ix) {  \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!validFill(U) || !validOp(Tr) || !validDiag(D) || N < 0 || K < 0 || Lda < K + 1 || Ix == 0)                    \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (N == 0)                                                                                                        \
      return CUBLAS_STATUS_SUCCESS;                                                                                    \
    bool Cx = #p[0] == 'c' || #p[0] == 'z';                                                                            \
    return runArrays(Hd, [=](const T *A, T *X) { cblas_##p##tbsv(Col, cblasUplo(U), cblasTrans(Tr, Cx), cblasDiag(D), N, K, A, Lda, X, Ix); }, libs::in(A, span(Lda, K + 1, N)), libs::inout(X, vecSpan(N, Ix)));      \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##tpmv_v2(cublasHandle_t Hd, cublasFillMode_t U, cublasOperation_t Tr,            \
                                               cublasDiagType_t D, int N, const T *Ap, T *X, int Ix) {                 \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!validFill(U) || !validOp(Tr) || !validDiag(D) || N < 0 || Ix == 0)                                            \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (N == 0)                                                                                                        \
      return CUBLAS_STATUS_SUCCESS;                                                                                    \
    bool Cx = #p[0] == 'c' || #p[0] == 'z';                                                                            \
    return runArrays(Hd, [=](const T *Ap, T *X) { cblas_##p##tpmv(Col, cblasUplo(U), cblasTrans(Tr, Cx), cblasDiag(D), N, Ap, X, Ix); }, libs::in(Ap, size_t(N) * (N + 1) / 2), libs::inout(X, vecSpan(N, Ix)));             \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##tpsv_v2(cublasHandle_t Hd, cublasFillMode_t U, cublasOperation_t Tr,            \
                                               cublasDiagType_t D, int N, const T *Ap, T *X, int Ix) {                 \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!validFill(U) || !validOp(Tr) || !validDiag(D) || N < 0 || Ix == 0)                                            \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (N == 0)                                                                                                        \
      return CUBLAS_STATUS_SUCCESS;                                                                                    \
    bool Cx = #p[0] == 'c' || #p[0] == 'z';                                                                            \
    return runArrays(Hd, [=](const T *Ap, T *X) { cblas_##p##tpsv(Col, cblasUplo(U), cblasTrans(Tr, Cx), cblasDiag(D), N, Ap, X, Ix); }, libs::in(Ap, size_t(N) * (N + 1) / 2), libs::inout(X, vecSpan(N, Ix)));             \
  }
LEVEL2_ALL(S, float, s, RV)
LEVEL2_ALL(D, double, d, RV)
LEVEL2_ALL(C, cuComplex, c, CV)
LEVEL2_ALL(Z, cuDoubleComplex, z, CV)

// --- batched gemv: one gemv per matrix, in one closure ----------------------------------------------

#define GEMV_BATCHED(P, T, p, V, Cx)                                                                                   \
  CUBLAS_API cublasStatus_t cublas##P##gemvStridedBatched(cublasHandle_t Hd, cublasOperation_t Tr, int M, int N,       \
                                                          const T *Al, const T *A, int Lda, long long Sa, const T *X,  \
                                                          int Ix, long long Sx, const T *Be, T *Y, int Iy,             \
                                                          long long Sy, int Count) {                                   \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!validOp(Tr) || M < 0 || N < 0 || Lda < std::max(1, M) || Ix == 0 || Iy == 0 || Count < 0 || !Al || !Be)      \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (M == 0 || N == 0 || Count == 0)                                                                                \
      return CUBLAS_STATUS_SUCCESS;                                                                                    \
    Scalar A_(*handle(Hd), Al, sizeof(T)), B_(*handle(Hd), Be, sizeof(T));                                             \
    if (!fetch(Hd, {{&A_, sizeof(T)}, {&B_, sizeof(T)}}))                                                              \
      return CUBLAS_STATUS_EXECUTION_FAILED;                                                                           \
    return runArrays(Hd, [=](const T *A, const T *X, T *Y) {                                                                         \
      for (int I = 0; I < Count; ++I)                                                                                  \
        cblas_##p##gemv(Col, cblasTrans(Tr, Cx), M, N, V(T, A_), A + I * Sa, Lda, X + I * Sx, Ix, V(T, B_), Y + I * Sy,     \
                        Iy);                                                                                           \
    }, libs::in(A, size_t(Sa) * (Count - 1) + span(Lda, M, N)), libs::in(X, size_t(Sx) * (Count - 1) + vecSpan(Tr == CUBLAS_OP_N ? N : M, Ix)), libs::inout(Y, size_t(Sy) * (Count - 1) + vecSpan(Tr == CUBLAS_OP_N ? M : N, Iy)));                                                                                                                \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##gemvBatched(cublasHandle_t Hd, cublasOperation_t Tr, int M, int N, const T *Al, \
                                                   const T *const A[], int Lda, const T *const X[], int Ix,            \
                                                   const T *Be, T *const Y[], int Iy, int Count) {                     \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!validOp(Tr) || M < 0 || N < 0 || Lda < std::max(1, M) || Ix == 0 || Iy == 0 || Count < 0 || !Al || !Be)      \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (M == 0 || N == 0 || Count == 0)                                                                                \
      return CUBLAS_STATUS_SUCCESS;                                                                                    \
    Scalar A_(*handle(Hd), Al, sizeof(T)), B_(*handle(Hd), Be, sizeof(T));                                             \
    if (!fetch(Hd, {{&A_, sizeof(T)}, {&B_, sizeof(T)}}))                                                              \
      return CUBLAS_STATUS_EXECUTION_FAILED;                                                                           \
    const size_t Lx = vecSpan(Tr == CUBLAS_OP_N ? N : M, Ix), Ly = vecSpan(Tr == CUBLAS_OP_N ? M : N, Iy);            \
    return runBatches(Hd, Count,                                                                                       \
                      {{A, span(Lda, M, N) * sizeof(T), false}, {X, Lx * sizeof(T), false}, {Y, Ly * sizeof(T), true}}, \
                      [=](const std::vector<void *> &P) {                                                              \
      auto *Ah = static_cast<const T *const *>(P[0]), *Xh = static_cast<const T *const *>(P[1]);                       \
      auto *Yh = static_cast<T *const *>(P[2]);                                                                        \
      for (int I = 0; I < Count; ++I)                                                                                  \
        cblas_##p##gemv(Col, cblasTrans(Tr, Cx), M, N, V(T, A_), Ah[I], Lda, Xh[I], Ix, V(T, B_), Yh[I], Iy);               \
    });                                                                                                                \
  }
GEMV_BATCHED(S, float, s, RV, false)
GEMV_BATCHED(D, double, d, RV, false)
GEMV_BATCHED(C, cuComplex, c, CV, true)
GEMV_BATCHED(Z, cuDoubleComplex, z, CV, true)

// --- batched QR and least squares (LAPACK's xGEQRF and xGELS per matrix) ------------------------

extern "C" {
void sgeqrf_(const int *, const int *, float *, const int *, float *, float *, const int *, int *);
void dgeqrf_(const int *, const int *, double *, const int *, double *, double *, const int *, int *);
void sgels_(const char *, const int *, const int *, const int *, float *, const int *, float *, const int *, float *,
            const int *, int *, size_t);
void dgels_(const char *, const int *, const int *, const int *, double *, const int *, double *, const int *,
            double *, const int *, int *, size_t);
void cgeqrf_(const int *, const int *, cuComplex *, const int *, cuComplex *, cuComplex *, const int *, int *);
void zgeqrf_(const int *, const int *, cuDoubleComplex *, const int *, cuDoubleComplex *, cuDoubleComplex *,
             const int *, int *);
void cgels_(const char *, const int *, const int *, const int *, cuComplex *, const int *, cuComplex *, const int *,
            cuComplex *, const int *, int *, size_t);
void zgels_(const char *, const int *, const int *, const int *, cuDoubleComplex *, const int *, cuDoubleComplex *,
            const int *, cuDoubleComplex *, const int *, int *, size_t);
}
namespace {
float realPart(float V) { return V; }
double realPart(double V) { return V; }
float realPart(cuComplex V) { return V.x; }
double realPart(cuDoubleComplex V) { return V.x; }
} // namespace

/// QR of each matrix in place (R above the diagonal, Householder vectors below, scalars in Tau);
/// *Info is the argument check (0 or -i), as cuBLAS reports it in host memory.
#define QR_BATCHED(P, T, p) /* the workspace query returns its size in the first element's real part */       \
  CUBLAS_API cublasStatus_t cublas##P##geqrfBatched(cublasHandle_t Hd, int M, int N, T *const A[], int Lda,            \
                                                    T *const Tau[], int *Info, int Count) {                            \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!Info)                                                                                                         \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    *Info = M < 0 ? -1 : N < 0 ? -2 : !A ? -3 : Lda < std::max(1, M) ? -4 : !Tau ? -5 : Count < 0 ? -7 : 0;            \
    if (*Info)                                                                                                         \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (M == 0 || N == 0 || Count == 0)                                                                                \
      return CUBLAS_STATUS_SUCCESS;                                                                                    \
    return runBatches(Hd, Count,                                                                                       \
                      {{A, span(Lda, M, N) * sizeof(T), true}, {Tau, size_t(std::min(M, N)) * sizeof(T), true}},       \
                      [=](const std::vector<void *> &P) {                                                              \
      auto *Ah = static_cast<T *const *>(P[0]), *Th = static_cast<T *const *>(P[1]);                                   \
      for (int I = 0; I < Count; ++I) {                                                                                \
        int Lw = -1, E = 0;                                                                                            \
        T Query[2] = {};                                                                                               \
        p##geqrf_(&M, &N, Ah[I], &Lda, Th[I], Query, &Lw, &E);                                                         \
        Lw = std::max(1, int(realPart(Query[0])));                                                                               \
        std::vector<T> Work(static_cast<size_t>(Lw));                                                                  \
        p##geqrf_(&M, &N, Ah[I], &Lda, Th[I], Work.data(), &Lw, &E);                                                   \
      }                                                                                                                \
    });                                                                                                                \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##gelsBatched(cublasHandle_t Hd, cublasOperation_t Tr, int M, int N, int Nrhs,    \
                                                   T *const A[], int Lda, T *const C[], int Ldc, int *Info,            \
                                                   int *DevInfo, int Count) {                                          \
    CHECK_HANDLE(Hd);                                                                                                  \
    if (!Info)                                                                                                         \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    /* The overdetermined, not transposed case only (others: NOT_SUPPORTED with *Info 0, and */                     \
    /* the argument numbering, lda being -5, as an H200's cuBLAS answers). */                                          \
    *Info = 0;                                                                                                         \
    if (Tr != CUBLAS_OP_N || N > M) {                                                                                  \
      libs::notSupported("cuBLAS", "gelsBatched of a transposed or underdetermined system");                           \
      return CUBLAS_STATUS_NOT_SUPPORTED;                                                                              \
    }                                                                                                                  \
    *Info = M < 0 ? -1 : N < 0 ? -2 : Nrhs < 0 ? -3 : !A ? -4 : Lda < std::max(1, M) ? -5 : !C ? -6 :                  \
            Ldc < std::max(1, M) ? -7 : Count < 0 ? -9 : 0;                                                            \
    if (*Info)                                                                                                         \
      return CUBLAS_STATUS_INVALID_VALUE;                                                                              \
    if (Count == 0)                                                                                                    \
      return CUBLAS_STATUS_SUCCESS;                                                                                    \
    return runBatches(Hd, Count,                                                                                       \
                      {{A, span(Lda, M, N) * sizeof(T), true}, {C, span(Ldc, M, Nrhs) * sizeof(T), true},             \
                       {DevInfo, size_t(Count) * sizeof(int), true, false}},                                           \
                      [=](const std::vector<void *> &P) {                                                              \
      auto *Ah = static_cast<T *const *>(P[0]), *Ch = static_cast<T *const *>(P[1]);                                   \
      auto *Di = static_cast<int *>(P[2]);                                                                             \
      for (int I = 0; I < Count; ++I) {                                                                                \
        int Lw = -1, E = 0;                                                                                            \
        T Query[2] = {};                                                                                               \
        p##gels_("N", &M, &N, &Nrhs, Ah[I], &Lda, Ch[I], &Ldc, Query, &Lw, &E, 1);                                       \
        Lw = std::max(1, int(realPart(Query[0])));                                                                               \
        std::vector<T> Work(static_cast<size_t>(Lw));                                                                  \
        p##gels_("N", &M, &N, &Nrhs, Ah[I], &Lda, Ch[I], &Ldc, Work.data(), &Lw, &E, 1);                                 \
        if (Di)                                                                                                        \
          Di[I] = E; /* > 0: A does not have full rank */                                                         \
      }                                                                                                                \
    });                                                                                                                \
  }
QR_BATCHED(S, float, s)
QR_BATCHED(D, double, d)
QR_BATCHED(C, cuComplex, c)
QR_BATCHED(Z, cuDoubleComplex, z)

// --- the _64 forms: the same routines with 64-bit sizes and increments ------------------------------
// OpenBLAS's CBLAS takes 32-bit integers: values that do not fit return CUBLAS_STATUS_NOT_SUPPORTED (logged).

namespace {
template <typename... A> bool fits32(A... V) {
  return ((static_cast<int64_t>(V) >= INT32_MIN && static_cast<int64_t>(V) <= INT32_MAX) && ...);
}
cublasStatus_t tooLarge(const char *Name) {
  libs::notSupported("cuBLAS", Name);
  return CUBLAS_STATUS_NOT_SUPPORTED;
}
} // namespace
#define NARROW(Name, ...)                                                                                              \
  if (!fits32(__VA_ARGS__))                                                                                            \
    return tooLarge(Name " with sizes or increments beyond 32 bits");

#define ROT64_REAL(P, T)                                                                                               \
  CUBLAS_API cublasStatus_t cublas##P##rot_v2_64(cublasHandle_t Hd, int64_t N, T *X, int64_t Ix, T *Y, int64_t Iy,     \
                                                 const T *C, const T *S) {                                             \
    NARROW("rot", N, Ix, Iy);                                                                                          \
    return cublas##P##rot_v2(Hd, int(N), X, int(Ix), Y, int(Iy), C, S);                                                \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##rotm_v2_64(cublasHandle_t Hd, int64_t N, T *X, int64_t Ix, T *Y, int64_t Iy,    \
                                                  const T *Param) {                                                    \
    NARROW("rotm", N, Ix, Iy);                                                                                         \
    return cublas##P##rotm_v2(Hd, int(N), X, int(Ix), Y, int(Iy), Param);                                             \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##syr_v2_64(cublasHandle_t Hd, cublasFillMode_t U, int64_t N, const T *Al,        \
                                                 const T *X, int64_t Ix, T *A, int64_t Lda) {                          \
    NARROW("syr", N, Ix, Lda);                                                                                         \
    return cublas##P##syr_v2(Hd, U, int(N), Al, X, int(Ix), A, int(Lda));                                              \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##syr2_v2_64(cublasHandle_t Hd, cublasFillMode_t U, int64_t N, const T *Al,       \
                                                  const T *X, int64_t Ix, const T *Y, int64_t Iy, T *A, int64_t Lda) { \
    NARROW("syr2", N, Ix, Iy, Lda);                                                                                    \
    return cublas##P##syr2_v2(Hd, U, int(N), Al, X, int(Ix), Y, int(Iy), A, int(Lda));                                 \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##spr_v2_64(cublasHandle_t Hd, cublasFillMode_t U, int64_t N, const T *Al,        \
                                                 const T *X, int64_t Ix, T *Ap) {                                      \
    NARROW("spr", N, Ix);                                                                                              \
    return cublas##P##spr_v2(Hd, U, int(N), Al, X, int(Ix), Ap);                                                       \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##spr2_v2_64(cublasHandle_t Hd, cublasFillMode_t U, int64_t N, const T *Al,       \
                                                  const T *X, int64_t Ix, const T *Y, int64_t Iy, T *Ap) {             \
    NARROW("spr2", N, Ix, Iy);                                                                                         \
    return cublas##P##spr2_v2(Hd, U, int(N), Al, X, int(Ix), Y, int(Iy), Ap);                                          \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##spmv_v2_64(cublasHandle_t Hd, cublasFillMode_t U, int64_t N, const T *Al,       \
                                                  const T *Ap, const T *X, int64_t Ix, const T *Be, T *Y,              \
                                                  int64_t Iy) {                                                        \
    NARROW("spmv", N, Ix, Iy);                                                                                         \
    return cublas##P##spmv_v2(Hd, U, int(N), Al, Ap, X, int(Ix), Be, Y, int(Iy));                                      \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##sbmv_v2_64(cublasHandle_t Hd, cublasFillMode_t U, int64_t N, int64_t K,         \
                                                  const T *Al, const T *A, int64_t Lda, const T *X, int64_t Ix,        \
                                                  const T *Be, T *Y, int64_t Iy) {                                     \
    NARROW("sbmv", N, K, Lda, Ix, Iy);                                                                                 \
    return cublas##P##sbmv_v2(Hd, U, int(N), int(K), Al, A, int(Lda), X, int(Ix), Be, Y, int(Iy));                     \
  }
ROT64_REAL(S, float)
ROT64_REAL(D, double)

#define ROT64_COMPLEX(P, PR, T, R)                                                                                     \
  CUBLAS_API cublasStatus_t cublas##P##rot_v2_64(cublasHandle_t Hd, int64_t N, T *X, int64_t Ix, T *Y, int64_t Iy,     \
                                                 const R *C, const T *S) {                                             \
    NARROW("rot", N, Ix, Iy);                                                                                          \
    return cublas##P##rot_v2(Hd, int(N), X, int(Ix), Y, int(Iy), C, S);                                                \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##PR##rot_v2_64(cublasHandle_t Hd, int64_t N, T *X, int64_t Ix, T *Y, int64_t Iy,    \
                                                  const R *C, const R *S) {                                            \
    NARROW("rot", N, Ix, Iy);                                                                                          \
    return cublas##PR##rot_v2(Hd, int(N), X, int(Ix), Y, int(Iy), C, S);                                               \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##her_v2_64(cublasHandle_t Hd, cublasFillMode_t U, int64_t N, const R *Al,        \
                                                 const T *X, int64_t Ix, T *A, int64_t Lda) {                          \
    NARROW("her", N, Ix, Lda);                                                                                         \
    return cublas##P##her_v2(Hd, U, int(N), Al, X, int(Ix), A, int(Lda));                                              \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##her2_v2_64(cublasHandle_t Hd, cublasFillMode_t U, int64_t N, const T *Al,       \
                                                  const T *X, int64_t Ix, const T *Y, int64_t Iy, T *A, int64_t Lda) { \
    NARROW("her2", N, Ix, Iy, Lda);                                                                                    \
    return cublas##P##her2_v2(Hd, U, int(N), Al, X, int(Ix), Y, int(Iy), A, int(Lda));                                 \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##hpr_v2_64(cublasHandle_t Hd, cublasFillMode_t U, int64_t N, const R *Al,        \
                                                 const T *X, int64_t Ix, T *Ap) {                                      \
    NARROW("hpr", N, Ix);                                                                                              \
    return cublas##P##hpr_v2(Hd, U, int(N), Al, X, int(Ix), Ap);                                                       \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##hpr2_v2_64(cublasHandle_t Hd, cublasFillMode_t U, int64_t N, const T *Al,       \
                                                  const T *X, int64_t Ix, const T *Y, int64_t Iy, T *Ap) {             \
    NARROW("hpr2", N, Ix, Iy);                                                                                         \
    return cublas##P##hpr2_v2(Hd, U, int(N), Al, X, int(Ix), Y, int(Iy), Ap);                                          \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##hpmv_v2_64(cublasHandle_t Hd, cublasFillMode_t U, int64_t N, const T *Al,       \
                                                  const T *Ap, const T *X, int64_t Ix, const T *Be, T *Y,              \
                                                  int64_t Iy) {                                                        \
    NARROW("hpmv", N, Ix, Iy);                                                                                         \
    return cublas##P##hpmv_v2(Hd, U, int(N), Al, Ap, X, int(Ix), Be, Y, int(Iy));                                      \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##hbmv_v2_64(cublasHandle_t Hd, cublasFillMode_t U, int64_t N, int64_t K,         \
                                                  const T *Al, const T *A, int64_t Lda, const T *X, int64_t Ix,        \
                                                  const T *Be, T *Y, int64_t Iy) {                                     \
    NARROW("hbmv", N, K, Lda, Ix, Iy);                                                                                 \
    return cublas##P##hbmv_v2(Hd, U, int(N), int(K), Al, A, int(Lda), X, int(Ix), Be, Y, int(Iy));                     \
  }
ROT64_COMPLEX(C, Cs, cuComplex, float)
ROT64_COMPLEX(Z, Zd, cuDoubleComplex, double)

#define LEVEL2_64(P, T)                                                                                                \
  CUBLAS_API cublasStatus_t cublas##P##gbmv_v2_64(cublasHandle_t Hd, cublasOperation_t Tr, int64_t M, int64_t N,       \
                                                  int64_t Kl, int64_t Ku, const T *Al, const T *A, int64_t Lda,        \
                                                  const T *X, int64_t Ix, const T *Be, T *Y, int64_t Iy) {             \
    NARROW("gbmv", M, N, Kl, Ku, Lda, Ix, Iy);                                                                         \
    return cublas##P##gbmv_v2(Hd, Tr, int(M), int(N), int(Kl), int(Ku), Al, A, int(Lda), X, int(Ix), Be, Y, int(Iy));  \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##tbmv_v2_64(cublasHandle_t Hd, cublasFillMode_t U, cublasOperation_t Tr,         \
                                                  cublasDiagType_t D, int64_t N, int64_t K, const T *A, int64_t Lda,   \
                                                  T *X, int64_t Ix) {                                                  \
    NARROW("tbmv", N, K, Lda, Ix);                                                                                     \
    return cublas##P##tbmv_v2(Hd, U, Tr, D, int(N), int(K), A, int(Lda), X, int(Ix));                                  \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##tbsv_v2_64(cublasHandle_t Hd, cublasFillMode_t U, cublasOperation_t Tr,         \
                                                  cublasDiagType_t D, int64_t N, int64_t K, const T *A, int64_t Lda,   \
                                                  T *X, int64_t Ix) {                                                  \
    NARROW("tbsv", N, K, Lda, Ix);                                                                                     \
    return cublas##P##tbsv_v2(Hd, U, Tr, D, int(N), int(K), A, int(Lda), X, int(Ix));                                  \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##tpmv_v2_64(cublasHandle_t Hd, cublasFillMode_t U, cublasOperation_t Tr,         \
                                                  cublasDiagType_t D, int64_t N, const T *Ap, T *X, int64_t Ix) {      \
    NARROW("tpmv", N, Ix);                                                                                             \
    return cublas##P##tpmv_v2(Hd, U, Tr, D, int(N), Ap, X, int(Ix));                                                   \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##tpsv_v2_64(cublasHandle_t Hd, cublasFillMode_t U, cublasOperation_t Tr,         \
                                                  cublasDiagType_t D, int64_t N, const T *Ap, T *X, int64_t Ix) {      \
    NARROW("tpsv", N, Ix);                                                                                             \
    return cublas##P##tpsv_v2(Hd, U, Tr, D, int(N), Ap, X, int(Ix));                                                   \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##gemvStridedBatched_64(                                                          \
      cublasHandle_t Hd, cublasOperation_t Tr, int64_t M, int64_t N, const T *Al, const T *A, int64_t Lda,             \
      long long Sa, const T *X, int64_t Ix, long long Sx, const T *Be, T *Y, int64_t Iy, long long Sy,                 \
      int64_t Count) {                                                                                                 \
    NARROW("gemvStridedBatched", M, N, Lda, Ix, Iy, Count);                                                            \
    return cublas##P##gemvStridedBatched(Hd, Tr, int(M), int(N), Al, A, int(Lda), Sa, X, int(Ix), Sx, Be, Y, int(Iy),  \
                                         Sy, int(Count));                                                              \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublas##P##gemvBatched_64(cublasHandle_t Hd, cublasOperation_t Tr, int64_t M, int64_t N,   \
                                                      const T *Al, const T *const A[], int64_t Lda,                    \
                                                      const T *const X[], int64_t Ix, const T *Be, T *const Y[],       \
                                                      int64_t Iy, int64_t Count) {                                     \
    NARROW("gemvBatched", M, N, Lda, Ix, Iy, Count);                                                                   \
    return cublas##P##gemvBatched(Hd, Tr, int(M), int(N), Al, A, int(Lda), X, int(Ix), Be, Y, int(Iy), int(Count));    \
  }
LEVEL2_64(S, float)
LEVEL2_64(D, double)
LEVEL2_64(C, cuComplex)
LEVEL2_64(Z, cuDoubleComplex)
