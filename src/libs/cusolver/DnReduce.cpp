//===- DnReduce.cpp - cuSOLVER: bidiagonal and tridiagonal reductions -------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file gebrd, sytrd/hetrd and their orthogonal factors.
#include "libs/cusolver/DnInternal.h"

using namespace zluda;
using namespace zluda::cusolver;
using namespace zluda::cusolver::dn;

//===----------------------------------------------------------------------===//
// Reductions to bidiagonal and tridiagonal form and their orthogonal
// factors: gebrd (m >= n; for m < n NVIDIA's sizes the workspace and then
// answers NOT_SUPPORTED, observed on the H200, as ours), orgbr/ungbr (side LEFT: Q, RIGHT:
// P^H), sytrd/hetrd, orgtr/ungtr, ormtr/unmtr, as LAPACK's (workspace
// queried inside, the caller's only checked for).
//===----------------------------------------------------------------------===//

#define REDUCE_FORMS(p, l, T, R, orgbr, orgtr, ormtr, sytrd)                                                           \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##gebrd_bufferSize(cusolverDnHandle_t H, int M, int N, int *Lw) {         \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return M < 0 || N < 0 ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, std::max(1, M + N));                              \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##gebrd(cusolverDnHandle_t Hd, int M, int N, T *A, int Lda, R *D, R *E,   \
                                                     T *Tq, T *Tp, T *, int, int *Info) {                              \
    Handle *H = find(Hd);                                                                                              \
    if (!H)                                                                                                            \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (M < 0 || N < 0 || Lda < std::max(1, M) || !Info)                                                               \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    if (M < N)                                                                                                         \
      return CUSOLVER_STATUS_NOT_SUPPORTED;                                                                            \
    const int K = std::min(M, N);                                                                                      \
    return submit(                                                                                                     \
        H,                                                                                                             \
        [=](T *A, R *D, R *E, T *Tq, T *Tp, int *Info) {                                                               \
          int Mi = M, Ni = N, L = Lda;                                                                                 \
          *Info = K ? withWork<T>([&](T *W, int *Lw, int *I) { l##gebrd_(&Mi, &Ni, A, &L, D, E, Tq, Tp, W, Lw, I); })  \
                    : 0;                                                                                               \
        },                                                                                                             \
        libs::inout(A, mat(Lda, M, N)), libs::out(D, size_t(K)), libs::out(E, size_t(std::max(K - 1, 0))),             \
        libs::out(Tq, size_t(K)), libs::out(Tp, size_t(K)), libs::out(Info, 1));                                       \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##orgbr##_bufferSize(cusolverDnHandle_t H, cublasSideMode_t S, int M,     \
                                                                  int N, int K, const T *, int Lda, const T *,         \
                                                                  int *Lw) {                                           \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return !validSide(S) || M < 0 || N < 0 || K < 0 || Lda < std::max(1, M) ? CUSOLVER_STATUS_INVALID_VALUE            \
                                                                            : size(Lw, std::max(1, M + N));            \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##orgbr(cusolverDnHandle_t Hd, cublasSideMode_t S, int M, int N, int K,   \
                                                     T *A, int Lda, const T *Tau, T *, int, int *Info) {               \
    Handle *H = find(Hd);                                                                                              \
    if (!H)                                                                                                            \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    bool Q = S == CUBLAS_SIDE_LEFT; /* LAPACK: Q needs m >= n >= min(m, k); P^H needs n >= m >= min(n, k) */           \
    if (!validSide(S) || M < 0 || N < 0 || K < 0 || Lda < std::max(1, M) || !Info ||                                   \
        (Q ? !(M >= N && N >= std::min(M, K)) : !(N >= M && M >= std::min(N, K))))                                     \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    size_t TauN = size_t(std::max(1, Q ? std::min(M, K) : std::min(N, K)));                                           \
    return submit(                                                                                                     \
        H,                                                                                                             \
        [=](T *A, T *Tau, int *Info) {                                                                                 \
          char V = Q ? 'Q' : 'P';                                                                                      \
          int Mi = M, Ni = N, Ki = K, L = Lda;                                                                         \
          *Info = M && N ? withWork<T>([&](T *W, int *Lw, int *I) { l##orgbr##_(&V, &Mi, &Ni, &Ki, A, &L, Tau, W, Lw, I); }) \
                         : 0;                                                                                          \
        },                                                                                                             \
        libs::inout(A, mat(Lda, M, N)), libs::in(Tau, TauN), libs::out(Info, 1));                                      \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sytrd##_bufferSize(cusolverDnHandle_t H, cublasFillMode_t U, int N,     \
                                                                  const T *, int Lda, const R *, const R *, const T *, \
                                                                  int *Lw) {                                           \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return !validFill(U) || N < 0 || Lda < std::max(1, N) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, std::max(1, N));  \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sytrd(cusolverDnHandle_t Hd, cublasFillMode_t U, int N, T *A, int Lda,  \
                                                     R *D, R *E, T *Tau, T *, int, int *Info) {                        \
    Handle *H = find(Hd);                                                                                              \
    if (!H)                                                                                                            \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (!validFill(U) || N < 0 || Lda < std::max(1, N) || !Info)                                                       \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    return submit(                                                                                                     \
        H,                                                                                                             \
        [=](T *A, R *D, R *E, T *Tau, int *Info) {                                                                     \
          char Uc = fillChar(U);                                                                                       \
          int Ni = N, L = Lda;                                                                                         \
          *Info = N ? withWork<T>([&](T *W, int *Lw, int *I) { l##sytrd##_(&Uc, &Ni, A, &L, D, E, Tau, W, Lw, I); })   \
                    : 0;                                                                                               \
        },                                                                                                             \
        libs::inout(A, mat(Lda, N, N)), libs::out(D, size_t(N)), libs::out(E, size_t(std::max(N - 1, 0))),             \
        libs::out(Tau, size_t(std::max(N - 1, 0))), libs::out(Info, 1));                                               \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##orgtr##_bufferSize(cusolverDnHandle_t H, cublasFillMode_t U, int N,     \
                                                                  const T *, int Lda, const T *, int *Lw) {            \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return !validFill(U) || N < 0 || Lda < std::max(1, N) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, std::max(1, N));  \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##orgtr(cusolverDnHandle_t Hd, cublasFillMode_t U, int N, T *A, int Lda,  \
                                                     const T *Tau, T *, int, int *Info) {                              \
    Handle *H = find(Hd);                                                                                              \
    if (!H)                                                                                                            \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (!validFill(U) || N < 0 || Lda < std::max(1, N) || !Info)                                                       \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    return submit(                                                                                                     \
        H,                                                                                                             \
        [=](T *A, T *Tau, int *Info) {                                                                                 \
          char Uc = fillChar(U);                                                                                       \
          int Ni = N, L = Lda;                                                                                         \
          *Info = N ? withWork<T>([&](T *W, int *Lw, int *I) { l##orgtr##_(&Uc, &Ni, A, &L, Tau, W, Lw, I); }) : 0;    \
        },                                                                                                             \
        libs::inout(A, mat(Lda, N, N)), libs::in(Tau, size_t(std::max(N - 1, 1))), libs::out(Info, 1));                \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##ormtr##_bufferSize(                                                     \
      cusolverDnHandle_t H, cublasSideMode_t S, cublasFillMode_t U, cublasOperation_t Tr, int M, int N, const T *,     \
      int Lda, const T *, const T *, int Ldc, int *Lw) {                                                               \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    int Nq = S == CUBLAS_SIDE_LEFT ? M : N;                                                                            \
    return !validSide(S) || !validFill(U) || !validOp(Tr) || M < 0 || N < 0 || Lda < std::max(1, Nq) ||               \
                   Ldc < std::max(1, M)                                                                                \
               ? CUSOLVER_STATUS_INVALID_VALUE                                                                         \
               : size(Lw, std::max(1, std::max(M, N)));                                                                \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##ormtr(cusolverDnHandle_t Hd, cublasSideMode_t S, cublasFillMode_t U,    \
                                                     cublasOperation_t Tr, int M, int N, T *A, int Lda, T *Tau, T *C,  \
                                                     int Ldc, T *, int, int *Info) {                                   \
    Handle *H = find(Hd);                                                                                              \
    if (!H)                                                                                                            \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    int Nq = S == CUBLAS_SIDE_LEFT ? M : N;                                                                            \
    bool Cx = std::is_same_v<T, C32> || std::is_same_v<T, C64>;                                                        \
    /* LAPACK's real ormtr takes 'T', its complex unmtr 'C' */                                                         \
    if (!validSide(S) || !validFill(U) || !validOp(Tr) || (Tr != CUBLAS_OP_N && (Tr == CUBLAS_OP_C) != Cx) ||          \
        M < 0 || N < 0 || Lda < std::max(1, Nq) || Ldc < std::max(1, M) || !Info)                                      \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    return submit(                                                                                                     \
        H,                                                                                                             \
        [=](T *A, T *Tau, T *C, int *Info) {                                                                           \
          char Sc = sideChar(S), Uc = fillChar(U), Tc = opChar(Tr);                                                    \
          int Mi = M, Ni = N, L = Lda, Lc = Ldc;                                                                       \
          *Info = M && N ? withWork<T>([&](T *W, int *Lw, int *I) {                                                    \
            l##ormtr##_(&Sc, &Uc, &Tc, &Mi, &Ni, A, &L, Tau, C, &Lc, W, Lw, I);                                        \
          })                                                                                                           \
                         : 0;                                                                                          \
        },                                                                                                             \
        libs::in(A, mat(Lda, Nq, Nq)), libs::in(Tau, size_t(std::max(Nq - 1, 1))), libs::inout(C, mat(Ldc, M, N)),     \
        libs::out(Info, 1));                                                                                           \
  }
REDUCE_FORMS(S, s, float, float, orgbr, orgtr, ormtr, sytrd)
REDUCE_FORMS(D, d, double, double, orgbr, orgtr, ormtr, sytrd)
REDUCE_FORMS(C, c, C32, float, ungbr, ungtr, unmtr, hetrd)
REDUCE_FORMS(Z, z, C64, double, ungbr, ungtr, unmtr, hetrd)
#undef REDUCE_FORMS
