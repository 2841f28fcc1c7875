//===- CusolverDn.cpp - our libcusolver: dense factorizations over LAPACK --===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file cusolverDn handles and the dense routines (getrf/getrs, potrf/potrs,
/// geqrf/ormqr/unmqr/orgqr/ungqr, gesvd, syevd/heevd for S, D, C, Z), each a
/// host function of the handle's stream that runs LAPACK (OpenBLAS's) on
/// device memory, which is host memory on the CPU device; `info` is written
/// to device memory as cuSOLVER does. The workspace sizes are LAPACK's
/// optimal ones; LAPACK runs on its own workspace, so a caller's workspace is
/// only checked for presence. On a GPU, cusolverDnCreate returns
/// CUSOLVER_STATUS_NOT_SUPPORTED (rocSOLVER is not in Debian 12).
#include "libs/common/LibSupport.h"
#include "zluda/cublas_abi.h"
#include "zluda/cusolver_abi.h"

#include "common/Log.h"

#include <algorithm>
#include <complex>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

#define CUSOLVER_API extern "C" __attribute__((visibility("default")))

using C32 = std::complex<float>;
using C64 = std::complex<double>;

extern "C" {
#define LAPACK_ALL(p, T, R)                                                                                            \
  void p##getrf_(const int *, const int *, T *, const int *, int *, int *);                                            \
  void p##getrs_(const char *, const int *, const int *, const T *, const int *, const int *, T *, const int *, int *); \
  void p##potrf_(const char *, const int *, T *, const int *, int *);                                                  \
  void p##potrs_(const char *, const int *, const int *, const T *, const int *, T *, const int *, int *);             \
  void p##geqrf_(const int *, const int *, T *, const int *, T *, T *, const int *, int *);
LAPACK_ALL(s, float, float)
LAPACK_ALL(d, double, double)
LAPACK_ALL(c, C32, float)
LAPACK_ALL(z, C64, double)
#undef LAPACK_ALL
void sormqr_(const char *, const char *, const int *, const int *, const int *, const float *, const int *,
             const float *, float *, const int *, float *, const int *, int *);
void dormqr_(const char *, const char *, const int *, const int *, const int *, const double *, const int *,
             const double *, double *, const int *, double *, const int *, int *);
void cunmqr_(const char *, const char *, const int *, const int *, const int *, const C32 *, const int *, const C32 *,
             C32 *, const int *, C32 *, const int *, int *);
void zunmqr_(const char *, const char *, const int *, const int *, const int *, const C64 *, const int *, const C64 *,
             C64 *, const int *, C64 *, const int *, int *);
void sorgqr_(const int *, const int *, const int *, float *, const int *, const float *, float *, const int *, int *);
void dorgqr_(const int *, const int *, const int *, double *, const int *, const double *, double *, const int *,
             int *);
void cungqr_(const int *, const int *, const int *, C32 *, const int *, const C32 *, C32 *, const int *, int *);
void zungqr_(const int *, const int *, const int *, C64 *, const int *, const C64 *, C64 *, const int *, int *);
void sgesvd_(const char *, const char *, const int *, const int *, float *, const int *, float *, float *,
             const int *, float *, const int *, float *, const int *, int *);
void dgesvd_(const char *, const char *, const int *, const int *, double *, const int *, double *, double *,
             const int *, double *, const int *, double *, const int *, int *);
void cgesvd_(const char *, const char *, const int *, const int *, C32 *, const int *, float *, C32 *, const int *,
             C32 *, const int *, C32 *, const int *, float *, int *);
void zgesvd_(const char *, const char *, const int *, const int *, C64 *, const int *, double *, C64 *, const int *,
             C64 *, const int *, C64 *, const int *, double *, int *);
void ssyevd_(const char *, const char *, const int *, float *, const int *, float *, float *, const int *, int *,
             const int *, int *);
void dsyevd_(const char *, const char *, const int *, double *, const int *, double *, double *, const int *, int *,
             const int *, int *);
void cheevd_(const char *, const char *, const int *, C32 *, const int *, float *, C32 *, const int *, float *,
             const int *, int *, const int *, int *);
void zheevd_(const char *, const char *, const int *, C64 *, const int *, double *, C64 *, const int *, double *,
             const int *, int *, const int *, int *);
}

namespace zluda::cusolver {
namespace {

struct Handle {
  CUcontext Ctx = nullptr;
  CUstream Stream = nullptr;
  libs::Retained Kept;
};
std::mutex Mu;
std::set<Handle *> &live() {
  static auto *S = new std::set<Handle *>;
  return *S;
}
Handle *find(cusolverDnHandle_t H) {
  std::lock_guard<std::mutex> G(Mu);
  auto *P = reinterpret_cast<Handle *>(H);
  return live().count(P) ? P : nullptr;
}

/// Runs \p Fn in the handle's stream order.
cusolverStatus_t submit(Handle *H, std::function<void()> Fn) {
  return libs::enqueue(H->Stream, std::move(Fn), H->Kept) ? CUSOLVER_STATUS_EXECUTION_FAILED
                                                          : CUSOLVER_STATUS_SUCCESS;
}

template <typename T> struct Real {
  using Type = T;
};
template <typename T> struct Real<std::complex<T>> {
  using Type = T;
};

// LAPACK by element type.
template <typename T> struct La;
#define LA_COMMON(p, T)                                                                                                \
  static void getrf(const int *M, const int *N, T *A, const int *L, int *P, int *I) { p##getrf_(M, N, A, L, P, I); } \
  static void getrs(const char *Tr, const int *N, const int *R, const T *A, const int *L, const int *P, T *B,         \
                    const int *Lb, int *I) {                                                                           \
    p##getrs_(Tr, N, R, A, L, P, B, Lb, I);                                                                            \
  }                                                                                                                    \
  static void potrf(const char *U, const int *N, T *A, const int *L, int *I) { p##potrf_(U, N, A, L, I); }            \
  static void potrs(const char *U, const int *N, const int *R, const T *A, const int *L, T *B, const int *Lb,         \
                    int *I) {                                                                                          \
    p##potrs_(U, N, R, A, L, B, Lb, I);                                                                                \
  }                                                                                                                    \
  static void geqrf(const int *M, const int *N, T *A, const int *L, T *Tau, T *W, const int *Lw, int *I) {            \
    p##geqrf_(M, N, A, L, Tau, W, Lw, I);                                                                              \
  }
template <> struct La<float> {
  LA_COMMON(s, float)
  static constexpr auto ormqr = sormqr_;
  static constexpr auto orgqr = sorgqr_;
};
template <> struct La<double> {
  LA_COMMON(d, double)
  static constexpr auto ormqr = dormqr_;
  static constexpr auto orgqr = dorgqr_;
};
template <> struct La<C32> {
  LA_COMMON(c, C32)
  static constexpr auto ormqr = cunmqr_;
  static constexpr auto orgqr = cungqr_;
};
template <> struct La<C64> {
  LA_COMMON(z, C64)
  static constexpr auto ormqr = zunmqr_;
  static constexpr auto orgqr = zungqr_;
};
#undef LA_COMMON

template <typename T> constexpr bool IsComplex = !std::is_same_v<T, typename Real<T>::Type>;

template <typename T> int lworkOf(T W) { return std::max(1, int(std::real(W))); }

char fillChar(cublasFillMode_t U) { return U == CUBLAS_FILL_MODE_UPPER ? 'U' : 'L'; }
bool validFill(cublasFillMode_t U) { return U == CUBLAS_FILL_MODE_UPPER || U == CUBLAS_FILL_MODE_LOWER; }
bool validOp(cublasOperation_t O) { return O == CUBLAS_OP_N || O == CUBLAS_OP_T || O == CUBLAS_OP_C; }
char opChar(cublasOperation_t O) { return O == CUBLAS_OP_N ? 'N' : O == CUBLAS_OP_T ? 'T' : 'C'; }

/// LU without pivoting (cuSOLVER's getrf with a null pivot array).
template <typename T> int luNoPivot(int M, int N, T *A, int Lda) {
  int Info = 0;
  for (int K = 0; K < std::min(M, N); ++K) {
    T P = A[K + size_t(K) * Lda];
    if (P == T(0)) {
      if (!Info)
        Info = K + 1;
      continue;
    }
    for (int I = K + 1; I < M; ++I)
      A[I + size_t(K) * Lda] /= P;
    for (int J = K + 1; J < N; ++J) {
      T F = A[K + size_t(J) * Lda];
      for (int I = K + 1; I < M; ++I)
        A[I + size_t(J) * Lda] -= A[I + size_t(K) * Lda] * F;
    }
  }
  return Info;
}

template <typename T> cusolverStatus_t getrf(cusolverDnHandle_t Hd, int M, int N, T *A, int Lda, int *Ipiv, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (M < 0 || N < 0 || Lda < std::max(1, M) || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return submit(H, [=] {
    int I = 0;
    if (M && N) {
      if (Ipiv)
        La<T>::getrf(&M, &N, A, &Lda, Ipiv, &I);
      else
        I = luNoPivot(M, N, A, Lda);
    }
    *Info = I;
  });
}

template <typename T>
cusolverStatus_t getrs(cusolverDnHandle_t Hd, cublasOperation_t Op, int N, int Nrhs, const T *A, int Lda,
                       const int *Ipiv, T *B, int Ldb, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validOp(Op) || N < 0 || Nrhs < 0 || Lda < std::max(1, N) || Ldb < std::max(1, N) || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return submit(H, [=] {
    int I = 0;
    char Tr = opChar(Op);
    if (N && Nrhs) {
      if (Ipiv) {
        La<T>::getrs(&Tr, &N, &Nrhs, A, &Lda, Ipiv, B, &Ldb, &I);
      } else { // factors of an unpivoted LU
        std::vector<int> Id(N);
        for (int K = 0; K < N; ++K)
          Id[K] = K + 1;
        La<T>::getrs(&Tr, &N, &Nrhs, A, &Lda, Id.data(), B, &Ldb, &I);
      }
    }
    *Info = I;
  });
}

template <typename T>
cusolverStatus_t potrf(cusolverDnHandle_t Hd, cublasFillMode_t U, int N, T *A, int Lda, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || N < 0 || Lda < std::max(1, N) || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return submit(H, [=] {
    int I = 0;
    char C = fillChar(U);
    if (N)
      La<T>::potrf(&C, &N, A, &Lda, &I);
    *Info = I;
  });
}

template <typename T>
cusolverStatus_t potrs(cusolverDnHandle_t Hd, cublasFillMode_t U, int N, int Nrhs, const T *A, int Lda, T *B, int Ldb,
                       int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || N < 0 || Nrhs < 0 || Lda < std::max(1, N) || Ldb < std::max(1, N) || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return submit(H, [=] {
    int I = 0;
    char C = fillChar(U);
    if (N && Nrhs)
      La<T>::potrs(&C, &N, &Nrhs, A, &Lda, B, &Ldb, &I);
    *Info = I;
  });
}

template <typename T> int geqrfWork(int M, int N, int Lda) {
  if (!M || !N)
    return 1;
  T W{};
  int Lw = -1, I = 0;
  La<T>::geqrf(&M, &N, nullptr, &Lda, nullptr, &W, &Lw, &I);
  return lworkOf(W);
}

template <typename T>
cusolverStatus_t geqrf(cusolverDnHandle_t Hd, int M, int N, T *A, int Lda, T *Tau, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (M < 0 || N < 0 || Lda < std::max(1, M) || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return submit(H, [=] {
    int I = 0;
    if (M && N) {
      int Lw = geqrfWork<T>(M, N, Lda);
      std::vector<T> W(static_cast<size_t>(Lw));
      La<T>::geqrf(&M, &N, A, &Lda, Tau, W.data(), &Lw, &I);
    }
    *Info = I;
  });
}

template <typename T>
int ormqrWork(cublasSideMode_t Side, cublasOperation_t Op, int M, int N, int K, int Lda, int Ldc) {
  if (!M || !N || !K)
    return 1;
  T W{};
  int Lw = -1, I = 0;
  char S = Side == CUBLAS_SIDE_LEFT ? 'L' : 'R', Tr = opChar(Op);
  La<T>::ormqr(&S, &Tr, &M, &N, &K, nullptr, &Lda, nullptr, nullptr, &Ldc, &W, &Lw, &I);
  return lworkOf(W);
}

template <typename T>
cusolverStatus_t ormqr(cusolverDnHandle_t Hd, cublasSideMode_t Side, cublasOperation_t Op, int M, int N, int K,
                       const T *A, int Lda, const T *Tau, T *C, int Ldc, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  const int Nq = Side == CUBLAS_SIDE_LEFT ? M : N;
  // Real types take N/T, complex ones N/C, as LAPACK's ormqr/unmqr.
  const bool OpOk = Op == CUBLAS_OP_N || (IsComplex<T> ? Op == CUBLAS_OP_C : Op == CUBLAS_OP_T);
  if ((Side != CUBLAS_SIDE_LEFT && Side != CUBLAS_SIDE_RIGHT) || !OpOk || M < 0 || N < 0 || K < 0 || K > Nq ||
      Lda < std::max(1, Nq) || Ldc < std::max(1, M) || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return submit(H, [=] {
    int I = 0;
    if (M && N && K) {
      int Lw = ormqrWork<T>(Side, Op, M, N, K, Lda, Ldc);
      std::vector<T> W(static_cast<size_t>(Lw));
      char S = Side == CUBLAS_SIDE_LEFT ? 'L' : 'R', Tr = opChar(Op);
      La<T>::ormqr(&S, &Tr, &M, &N, &K, A, &Lda, Tau, C, &Ldc, W.data(), &Lw, &I);
    }
    *Info = I;
  });
}

template <typename T> int orgqrWork(int M, int N, int K, int Lda) {
  if (!M || !N)
    return 1;
  T W{};
  int Lw = -1, I = 0;
  La<T>::orgqr(&M, &N, &K, nullptr, &Lda, nullptr, &W, &Lw, &I);
  return lworkOf(W);
}

template <typename T>
cusolverStatus_t orgqr(cusolverDnHandle_t Hd, int M, int N, int K, T *A, int Lda, const T *Tau, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (M < 0 || N < 0 || N > M || K < 0 || K > N || Lda < std::max(1, M) || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return submit(H, [=] {
    int I = 0;
    if (M && N) {
      int Lw = orgqrWork<T>(M, N, K, Lda);
      std::vector<T> W(static_cast<size_t>(Lw));
      La<T>::orgqr(&M, &N, &K, A, &Lda, Tau, W.data(), &Lw, &I);
    }
    *Info = I;
  });
}

// gesvd and syevd/heevd: real and complex LAPACK differ in arguments.
template <typename T> struct Svd;
template <> struct Svd<float> {
  static void run(char U, char V, int M, int N, float *A, int Lda, float *S, float *Uo, int Ldu, float *Vt, int Ldvt,
                  float *W, int Lw, float *, int *I) {
    sgesvd_(&U, &V, &M, &N, A, &Lda, S, Uo, &Ldu, Vt, &Ldvt, W, &Lw, I);
  }
};
template <> struct Svd<double> {
  static void run(char U, char V, int M, int N, double *A, int Lda, double *S, double *Uo, int Ldu, double *Vt,
                  int Ldvt, double *W, int Lw, double *, int *I) {
    dgesvd_(&U, &V, &M, &N, A, &Lda, S, Uo, &Ldu, Vt, &Ldvt, W, &Lw, I);
  }
};
template <> struct Svd<C32> {
  static void run(char U, char V, int M, int N, C32 *A, int Lda, float *S, C32 *Uo, int Ldu, C32 *Vt, int Ldvt,
                  C32 *W, int Lw, float *Rw, int *I) {
    cgesvd_(&U, &V, &M, &N, A, &Lda, S, Uo, &Ldu, Vt, &Ldvt, W, &Lw, Rw, I);
  }
};
template <> struct Svd<C64> {
  static void run(char U, char V, int M, int N, C64 *A, int Lda, double *S, C64 *Uo, int Ldu, C64 *Vt, int Ldvt,
                  C64 *W, int Lw, double *Rw, int *I) {
    zgesvd_(&U, &V, &M, &N, A, &Lda, S, Uo, &Ldu, Vt, &Ldvt, W, &Lw, Rw, I);
  }
};

bool validJob(signed char J) { return J == 'A' || J == 'S' || J == 'O' || J == 'N'; }

template <typename T> int gesvdWork(int M, int N) {
  if (!M || !N)
    return 1;
  T W{};
  T Dummy{};
  typename Real<T>::Type S{}, Rw{};
  int I = 0;
  Svd<T>::run('A', 'A', M, N, &Dummy, M, &S, &Dummy, M, &Dummy, N, &W, -1, &Rw, &I);
  return lworkOf(W);
}

template <typename T>
cusolverStatus_t gesvd(cusolverDnHandle_t Hd, signed char JobU, signed char JobVt, int M, int N, T *A, int Lda,
                       typename Real<T>::Type *S, T *U, int Ldu, T *Vt, int Ldvt, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  // cuSOLVER's gesvd takes m >= n only, and not both jobs 'O'.
  if (!validJob(JobU) || !validJob(JobVt) || (JobU == 'O' && JobVt == 'O') || M < N || N < 0 ||
      Lda < std::max(1, M) || Ldu < 1 || Ldvt < 1 || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return submit(H, [=] {
    int I = 0;
    if (M && N) {
      int Lw = std::max(gesvdWork<T>(M, N), 1);
      std::vector<T> W(static_cast<size_t>(Lw));
      std::vector<typename Real<T>::Type> Rw(static_cast<size_t>(5 * std::min(M, N)));
      T Dummy{};
      Svd<T>::run(char(JobU), char(JobVt), M, N, A, Lda, S, U ? U : &Dummy, Ldu, Vt ? Vt : &Dummy, Ldvt, W.data(),
                  Lw, Rw.data(), &I);
    }
    *Info = I;
  });
}

template <typename T> struct Eig;
template <> struct Eig<float> {
  static void run(char J, char U, int N, float *A, int Lda, float *W, float *Wk, int Lw, float *, int, int *Iw,
                  int Liw, int *I) {
    ssyevd_(&J, &U, &N, A, &Lda, W, Wk, &Lw, Iw, &Liw, I);
  }
};
template <> struct Eig<double> {
  static void run(char J, char U, int N, double *A, int Lda, double *W, double *Wk, int Lw, double *, int, int *Iw,
                  int Liw, int *I) {
    dsyevd_(&J, &U, &N, A, &Lda, W, Wk, &Lw, Iw, &Liw, I);
  }
};
template <> struct Eig<C32> {
  static void run(char J, char U, int N, C32 *A, int Lda, float *W, C32 *Wk, int Lw, float *Rw, int Lrw, int *Iw,
                  int Liw, int *I) {
    cheevd_(&J, &U, &N, A, &Lda, W, Wk, &Lw, Rw, &Lrw, Iw, &Liw, I);
  }
};
template <> struct Eig<C64> {
  static void run(char J, char U, int N, C64 *A, int Lda, double *W, C64 *Wk, int Lw, double *Rw, int Lrw, int *Iw,
                  int Liw, int *I) {
    zheevd_(&J, &U, &N, A, &Lda, W, Wk, &Lw, Rw, &Lrw, Iw, &Liw, I);
  }
};

template <typename T>
cusolverStatus_t syevd(cusolverDnHandle_t Hd, cusolverEigMode_t Job, cublasFillMode_t Uplo, int N, T *A, int Lda,
                       typename Real<T>::Type *W, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if ((Job != CUSOLVER_EIG_MODE_NOVECTOR && Job != CUSOLVER_EIG_MODE_VECTOR) || !validFill(Uplo) || N < 0 ||
      Lda < std::max(1, N) || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return submit(H, [=] {
    int I = 0;
    if (N) {
      char J = Job == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N', U = fillChar(Uplo);
      T Wq{};
      typename Real<T>::Type Rq{};
      int Iq = 0;
      Eig<T>::run(J, U, N, A, Lda, W, &Wq, -1, &Rq, -1, &Iq, -1, &I);
      int Lw = lworkOf(Wq), Lrw = std::max(1, int(Rq)), Liw = std::max(1, Iq);
      std::vector<T> Wk(static_cast<size_t>(Lw));
      std::vector<typename Real<T>::Type> Rw(static_cast<size_t>(Lrw));
      std::vector<int> Iw(static_cast<size_t>(Liw));
      Eig<T>::run(J, U, N, A, Lda, W, Wk.data(), Lw, Rw.data(), Lrw, Iw.data(), Liw, &I);
    }
    *Info = I;
  });
}

template <typename T> int syevdWork(cusolverEigMode_t Job, cublasFillMode_t Uplo, int N, int Lda) {
  if (!N)
    return 1;
  char J = Job == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N', U = fillChar(Uplo);
  T Wq{}, Dummy{};
  typename Real<T>::Type Rq{}, Wv{};
  int Iq = 0, I = 0;
  Eig<T>::run(J, U, N, &Dummy, Lda, &Wv, &Wq, -1, &Rq, -1, &Iq, -1, &I);
  return lworkOf(Wq);
}

cusolverStatus_t size(int *Out, int V) {
  if (!Out)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Out = V;
  return CUSOLVER_STATUS_SUCCESS;
}

} // namespace
} // namespace zluda::cusolver

using namespace zluda;
using namespace zluda::cusolver;

CUSOLVER_API cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *Out) {
  if (!Out)
    return CUSOLVER_STATUS_INVALID_VALUE;
  CUcontext Ctx;
  if (libs::ensureContext(Ctx))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!libs::cpuDevice()) {
    libs::notSupported("cuSOLVER", "cusolverDnCreate on AMD GPUs (no rocSOLVER backend yet)");
    return CUSOLVER_STATUS_NOT_SUPPORTED;
  }
  auto *H = new Handle;
  H->Ctx = Ctx;
  std::lock_guard<std::mutex> G(Mu);
  live().insert(H);
  *Out = reinterpret_cast<cusolverDnHandle_t>(H);
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t Hd) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  libs::wait(H->Stream);
  {
    std::lock_guard<std::mutex> G(Mu);
    live().erase(H);
  }
  delete H;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t Hd, CUstream S) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  H->Stream = S;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnGetStream(cusolverDnHandle_t Hd, CUstream *S) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!S)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *S = H->Stream;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverGetVersion(int *V) { return size(V, 12000); } // cuSOLVER 12.0.x of CUDA 13.0
CUSOLVER_API cusolverStatus_t cusolverGetProperty(libraryPropertyType T, int *V) {
  if (!V)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *V = T == MAJOR_VERSION ? 12 : 0;
  return T == MAJOR_VERSION || T == MINOR_VERSION || T == PATCH_LEVEL ? CUSOLVER_STATUS_SUCCESS
                                                                     : CUSOLVER_STATUS_INVALID_VALUE;
}

#define DN_ALL(p, T, R, orm, org, sy)                                                                                  \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##getrf_bufferSize(cusolverDnHandle_t H, int M, int N, T *, int Lda,     \
                                                                 int *Lw) {                                            \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (M < 0 || N < 0 || Lda < std::max(1, M))                                                                        \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    return size(Lw, 1);                                                                                                \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##getrf(cusolverDnHandle_t H, int M, int N, T *A, int Lda, T *,          \
                                                      int *Ipiv, int *Info) {                                          \
    return getrf<T>(H, M, N, A, Lda, Ipiv, Info);                                                                      \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##getrs(cusolverDnHandle_t H, cublasOperation_t Op, int N, int Nrhs,     \
                                                      const T *A, int Lda, const int *Ipiv, T *B, int Ldb,             \
                                                      int *Info) {                                                     \
    return getrs<T>(H, Op, N, Nrhs, A, Lda, Ipiv, B, Ldb, Info);                                                       \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##potrf_bufferSize(cusolverDnHandle_t H, cublasFillMode_t U, int N, T *, \
                                                                 int Lda, int *Lw) {                                   \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (!validFill(U) || N < 0 || Lda < std::max(1, N))                                                                \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    return size(Lw, 1);                                                                                                \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##potrf(cusolverDnHandle_t H, cublasFillMode_t U, int N, T *A, int Lda,  \
                                                      T *, int, int *Info) {                                           \
    return potrf<T>(H, U, N, A, Lda, Info);                                                                            \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##potrs(cusolverDnHandle_t H, cublasFillMode_t U, int N, int Nrhs,       \
                                                      const T *A, int Lda, T *B, int Ldb, int *Info) {                 \
    return potrs<T>(H, U, N, Nrhs, A, Lda, B, Ldb, Info);                                                              \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##geqrf_bufferSize(cusolverDnHandle_t H, int M, int N, T *, int Lda,     \
                                                                 int *Lw) {                                            \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (M < 0 || N < 0 || Lda < std::max(1, M))                                                                        \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    return size(Lw, geqrfWork<T>(M, N, Lda));                                                                          \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##geqrf(cusolverDnHandle_t H, int M, int N, T *A, int Lda, T *Tau, T *,  \
                                                      int, int *Info) {                                                \
    return geqrf<T>(H, M, N, A, Lda, Tau, Info);                                                                       \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##orm##_bufferSize(                                                      \
      cusolverDnHandle_t H, cublasSideMode_t S, cublasOperation_t Op, int M, int N, int K, const T *, int Lda,        \
      const T *, const T *, int Ldc, int *Lw) {                                                                        \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (M < 0 || N < 0 || K < 0 || !validOp(Op))                                                                       \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    return size(Lw, ormqrWork<T>(S, Op, M, N, K, std::max(Lda, 1), std::max(Ldc, 1)));                                 \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##orm(cusolverDnHandle_t H, cublasSideMode_t S, cublasOperation_t Op,    \
                                                    int M, int N, int K, const T *A, int Lda, const T *Tau, T *C,      \
                                                    int Ldc, T *, int, int *Info) {                                    \
    return ormqr<T>(H, S, Op, M, N, K, A, Lda, Tau, C, Ldc, Info);                                                     \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##org##_bufferSize(cusolverDnHandle_t H, int M, int N, int K, const T *, \
                                                                 int Lda, const T *, int *Lw) {                        \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (M < 0 || N < 0 || N > M || K < 0 || K > N)                                                                     \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    return size(Lw, orgqrWork<T>(M, N, K, std::max(Lda, 1)));                                                          \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##org(cusolverDnHandle_t H, int M, int N, int K, T *A, int Lda,          \
                                                    const T *Tau, T *, int, int *Info) {                               \
    return orgqr<T>(H, M, N, K, A, Lda, Tau, Info);                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##gesvd_bufferSize(cusolverDnHandle_t H, int M, int N, int *Lw) {        \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (M < N || N < 0)                                                                                                \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    return size(Lw, gesvdWork<T>(M, N));                                                                               \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##gesvd(cusolverDnHandle_t H, signed char Ju, signed char Jv, int M,     \
                                                      int N, T *A, int Lda, R *S, T *U, int Ldu, T *Vt, int Ldvt, T *, \
                                                      int, R *, int *Info) {                                           \
    return gesvd<T>(H, Ju, Jv, M, N, A, Lda, S, U, Ldu, Vt, Ldvt, Info);                                               \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##_bufferSize(cusolverDnHandle_t H, cusolverEigMode_t J,             \
                                                                cublasFillMode_t U, int N, const T *, int Lda,          \
                                                                const R *, int *Lw) {                                  \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (N < 0 || !validFill(U) || Lda < std::max(1, N))                                                                \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    return size(Lw, syevdWork<T>(J, U, N, Lda));                                                                       \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy(cusolverDnHandle_t H, cusolverEigMode_t J, cublasFillMode_t U,      \
                                                   int N, T *A, int Lda, R *W, T *, int, int *Info) {                  \
    return syevd<T>(H, J, U, N, A, Lda, W, Info);                                                                      \
  }
DN_ALL(S, float, float, ormqr, orgqr, syevd)
DN_ALL(D, double, double, ormqr, orgqr, syevd)
DN_ALL(C, C32, float, unmqr, ungqr, heevd)
DN_ALL(Z, C64, double, unmqr, ungqr, heevd)
#undef DN_ALL
