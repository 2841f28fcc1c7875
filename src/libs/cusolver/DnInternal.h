//===- DnInternal.h - libcusolver's dense part: what its files share ------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file cusolverDn handles and the dense routines (getrf/getrs, potrf/potrs,
/// geqrf/ormqr/unmqr/orgqr/ungqr, gesvd, syevd/heevd for S, D, C, Z), each a
/// host function of the handle's stream that runs LAPACK (OpenBLAS's) on
/// device memory, which is host memory on the CPU device; `info` is written
/// to device memory as cuSOLVER does. The workspace sizes are LAPACK's
/// optimal ones; LAPACK runs on its own workspace, so a caller's workspace is
/// only checked for presence. On an AMD GPU the routines above run on
/// rocSOLVER where it loads (RocSolver.h; not in Debian 12), in the handle's
/// stream order; without it, and for the other routines, the call waits for
/// the stream and runs LAPACK on host copies of its arrays (libs::runStaged):
/// The dense part lives in CusolverDn.cpp (handles, the typed routines), DnGeneric.cpp (the 64-bit
/// generic API), DnJacobi.cpp, DnIrs.cpp (iterative refinement), DnSymmetric.cpp and DnReduce.cpp.
#ifndef ZLUDA_LIBS_CUSOLVER_DNINTERNAL_H
#define ZLUDA_LIBS_CUSOLVER_DNINTERNAL_H

/// correct, at the host's speed plus the copies.
#include "libs/common/LibSupport.h"
#include "libs/cusolver/Handles.h"
#include "zluda/cublas_abi.h"
#include "zluda/cusolver_abi.h"
#include "libs/cusolver/Lapack.h"
#include "libs/cusolver/RocSolver.h"

#include "common/Log.h"

#include <algorithm>
#include <complex>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#define CUSOLVER_API extern "C" __attribute__((visibility("default")))

extern "C" {
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemsetD32Async(CUdeviceptr, unsigned, size_t, CUstream);
}
void *zludaNativeStream(CUstream S); // src/driver/Driver.cpp

namespace zluda::cusolver::dn {


struct Handle {
  CUcontext Ctx = nullptr;
  CUstream Stream = nullptr;
  libs::Retained Kept;
  /// Settings kept and reported (LAPACK on the host is deterministic and computes in full precision): the
  /// deterministic mode (1: deterministic results), the math mode (1: default math), the emulation strategy.
  int Deterministic = 1, Math = 1, Emulation = 0;
  rocsolver::Handle Roc = nullptr; ///< rocSOLVER's (rocBLAS's) handle on AMD GPUs, made at the first call
  CUdeviceptr Scratch = 0;         ///< device memory for rocSOLVER's real work vectors (gesvd's E, syevd's E)
  size_t ScratchBytes = 0;
};
inline Handle *find(cusolverDnHandle_t H) { return libs::Live<Handle>::find(H); }

//===----------------------------------------------------------------------===//
// AMD GPUs: rocSOLVER, where it loads, on the HIP stream under the handle's
// stream. rocSOLVER allocates its workspace through its handle; cuSOLVER's
// workspace is left unused. Routines whose rocSOLVER form writes no `info`
// (getrs, potrs, geqrf, ormqr, orgqr) get 0 written in stream order, as
// cuSOLVER's do for valid arguments.
//===----------------------------------------------------------------------===//
namespace roc = zluda::rocsolver;

template <typename T> constexpr int rocIndex() {
  return std::is_same_v<T, float> ? 0 : std::is_same_v<T, double> ? 1 : std::is_same_v<T, C32> ? 2 : 3;
}

/// rocSOLVER ready on the handle's stream, or null where the call takes the host path (the CPU device, no
/// rocSOLVER, or its handle could not be made).
inline const roc::Api *rocFor(Handle *H) {
  if (libs::cpuDevice())
    return nullptr;
  const roc::Api *A = roc::api();
  if (!A)
    return nullptr;
  if (!H->Roc && A->CreateHandle(&H->Roc)) {
    H->Roc = nullptr;
    ZLUDA_LOG_WARN("cuSOLVER on AMD GPUs: rocblas_create_handle failed: the host path runs");
    return nullptr;
  }
  return A->SetStream(H->Roc, zludaNativeStream(H->Stream)) ? nullptr : A;
}

/// rocBLAS's status codes as cuSOLVER's.
inline cusolverStatus_t fromRoc(roc::Status S) {
  switch (S) {
  case 0:
    return CUSOLVER_STATUS_SUCCESS;
  case 2: // not implemented
    return CUSOLVER_STATUS_NOT_SUPPORTED;
  case 3: // invalid pointer
  case 4: // invalid size
  case 11: // invalid value
    return CUSOLVER_STATUS_INVALID_VALUE;
  case 5: // memory error
    return CUSOLVER_STATUS_ALLOC_FAILED;
  default:
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  }
}

/// After a rocSOLVER routine without `info`: 0 written to \p Info in stream order.
inline cusolverStatus_t rocDone(Handle *H, roc::Status S, int *Info) {
  if (S)
    return fromRoc(S);
  return cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(Info), 0, 1, H->Stream) ? CUSOLVER_STATUS_EXECUTION_FAILED
                                                                               : CUSOLVER_STATUS_SUCCESS;
}

/// The handle's device scratch of at least \p Bytes (grown after the stream is idle: earlier calls may use it).
inline void *scratch(Handle *H, size_t Bytes) {
  if (H->ScratchBytes < Bytes) {
    if (H->Scratch) {
      libs::wait(H->Stream);
      cuMemFree_v2(H->Scratch);
      H->Scratch = 0, H->ScratchBytes = 0;
    }
    if (cuMemAlloc_v2(&H->Scratch, Bytes))
      return nullptr;
    H->ScratchBytes = Bytes;
  }
  return reinterpret_cast<void *>(H->Scratch);
}

inline int rocFill(cublasFillMode_t U) { return U == CUBLAS_FILL_MODE_UPPER ? roc::FillUpper : roc::FillLower; }
/// cuBLAS's operation as rocBLAS's; a real type's conjugate transpose is its transpose.
template <typename T> int rocOp(cublasOperation_t O) {
  return O == CUBLAS_OP_N ? roc::OpNone : O == CUBLAS_OP_C && IsComplex<T> ? roc::OpConjugate : roc::OpTranspose;
}
inline int rocSvect(signed char J) {
  return J == 'A' ? roc::SvectAll : J == 'S' ? roc::SvectSingular : J == 'O' ? roc::SvectOverwrite : roc::SvectNone;
}

/// Runs \p Fn in the handle's stream order.
/// Runs Fn on the call's arrays in the handle's stream order (on a GPU, on
/// host copies of them: libs::runStaged).
template <typename F, typename... T> cusolverStatus_t submit(Handle *H, F Fn, libs::Arg<T>... Args) {
  return libs::runStaged(H->Stream, H->Kept, Fn, Args...) ? CUSOLVER_STATUS_EXECUTION_FAILED
                                                           : CUSOLVER_STATUS_SUCCESS;
}

/// Elements a column-major rows x cols matrix with leading dimension Ld spans.
inline size_t mat(int64_t Ld, int64_t Rows, int64_t Cols) {
  return Rows > 0 && Cols > 0 ? size_t(Ld * (Cols - 1) + Rows) : 0;
}


inline char fillChar(cublasFillMode_t U) { return U == CUBLAS_FILL_MODE_UPPER ? 'U' : 'L'; }
inline bool validFill(cublasFillMode_t U) { return U == CUBLAS_FILL_MODE_UPPER || U == CUBLAS_FILL_MODE_LOWER; }
inline bool validOp(cublasOperation_t O) { return O == CUBLAS_OP_N || O == CUBLAS_OP_T || O == CUBLAS_OP_C; }
inline char opChar(cublasOperation_t O) { return O == CUBLAS_OP_N ? 'N' : O == CUBLAS_OP_T ? 'T' : 'C'; }

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
  if (const roc::Api *R = rocFor(H))
    return fromRoc(Ipiv ? R->Getrf[rocIndex<T>()](H->Roc, M, N, A, Lda, Ipiv, Info)
                        : R->GetrfNpvt[rocIndex<T>()](H->Roc, M, N, A, Lda, Info));
  return submit(
      H,
      [=](T *A, int *Ipiv, int *Info) {
        int I = 0, Mi = M, Ni = N, L = Lda;
        if (Mi && Ni) {
          if (Ipiv)
            La<T>::getrf(&Mi, &Ni, A, &L, Ipiv, &I);
          else
            I = luNoPivot(Mi, Ni, A, L);
        }
        *Info = I;
      },
      libs::inout(A, mat(Lda, M, N)), libs::out(Ipiv, size_t(std::min(M, N))), libs::out(Info, 1));
}

template <typename T>
inline cusolverStatus_t getrs(cusolverDnHandle_t Hd, cublasOperation_t Op, int N, int Nrhs, const T *A, int Lda,
                       const int *Ipiv, T *B, int Ldb, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validOp(Op) || N < 0 || Nrhs < 0 || Lda < std::max(1, N) || Ldb < std::max(1, N) || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (const roc::Api *R = Ipiv ? rocFor(H) : nullptr) // factors of an unpivoted LU: the host path
    return rocDone(H, R->Getrs[rocIndex<T>()](H->Roc, rocOp<T>(Op), N, Nrhs, const_cast<T *>(A), Lda, Ipiv, B, Ldb),
                   Info);
  return submit(
      H,
      [=](T *A, int *Ipiv, T *B, int *Info) {
        int I = 0, Ni = N, R = Nrhs, La_ = Lda, Lb = Ldb;
        char Tr = opChar(Op);
        if (Ni && R) {
          if (Ipiv) {
            La<T>::getrs(&Tr, &Ni, &R, A, &La_, Ipiv, B, &Lb, &I);
          } else { // factors of an unpivoted LU
            std::vector<int> Id(static_cast<size_t>(Ni));
            for (int K = 0; K < Ni; ++K)
              Id[static_cast<size_t>(K)] = K + 1;
            La<T>::getrs(&Tr, &Ni, &R, A, &La_, Id.data(), B, &Lb, &I);
          }
        }
        *Info = I;
      },
      libs::in(A, mat(Lda, N, N)), libs::in(Ipiv, size_t(N)), libs::inout(B, mat(Ldb, N, Nrhs)), libs::out(Info, 1));
}

template <typename T>
inline cusolverStatus_t potrf(cusolverDnHandle_t Hd, cublasFillMode_t U, int N, T *A, int Lda, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || N < 0 || Lda < std::max(1, N) || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (const roc::Api *R = rocFor(H))
    return fromRoc(R->Potrf[rocIndex<T>()](H->Roc, rocFill(U), N, A, Lda, Info));
  return submit(
      H,
      [=](T *A, int *Info) {
        int I = 0, Ni = N, L = Lda;
        char C = fillChar(U);
        if (Ni)
          La<T>::potrf(&C, &Ni, A, &L, &I);
        *Info = I;
      },
      libs::inout(A, mat(Lda, N, N)), libs::out(Info, 1));
}

template <typename T>
inline cusolverStatus_t potrs(cusolverDnHandle_t Hd, cublasFillMode_t U, int N, int Nrhs, const T *A, int Lda, T *B, int Ldb,
                       int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || N < 0 || Nrhs < 0 || Lda < std::max(1, N) || Ldb < std::max(1, N) || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (const roc::Api *R = rocFor(H))
    return rocDone(H, R->Potrs[rocIndex<T>()](H->Roc, rocFill(U), N, Nrhs, const_cast<T *>(A), Lda, B, Ldb), Info);
  return submit(
      H,
      [=](T *A, T *B, int *Info) {
        int I = 0, Ni = N, R = Nrhs, La_ = Lda, Lb = Ldb;
        char C = fillChar(U);
        if (Ni && R)
          La<T>::potrs(&C, &Ni, &R, A, &La_, B, &Lb, &I);
        *Info = I;
      },
      libs::in(A, mat(Lda, N, N)), libs::inout(B, mat(Ldb, N, Nrhs)), libs::out(Info, 1));
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
inline cusolverStatus_t geqrf(cusolverDnHandle_t Hd, int M, int N, T *A, int Lda, T *Tau, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (M < 0 || N < 0 || Lda < std::max(1, M) || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (const roc::Api *R = rocFor(H))
    return rocDone(H, R->Geqrf[rocIndex<T>()](H->Roc, M, N, A, Lda, Tau), Info);
  return submit(
      H,
      [=](T *A, T *Tau, int *Info) {
        int I = 0, Mi = M, Ni = N, L = Lda;
        if (Mi && Ni) {
          int Lw = geqrfWork<T>(Mi, Ni, L);
          std::vector<T> W(static_cast<size_t>(Lw));
          La<T>::geqrf(&Mi, &Ni, A, &L, Tau, W.data(), &Lw, &I);
        }
        *Info = I;
      },
      libs::inout(A, mat(Lda, M, N)), libs::out(Tau, size_t(std::min(M, N))), libs::out(Info, 1));
}

template <typename T>
inline int ormqrWork(cublasSideMode_t Side, cublasOperation_t Op, int M, int N, int K, int Lda, int Ldc) {
  if (!M || !N || !K)
    return 1;
  T W{};
  int Lw = -1, I = 0;
  char S = Side == CUBLAS_SIDE_LEFT ? 'L' : 'R', Tr = opChar(Op);
  La<T>::ormqr(&S, &Tr, &M, &N, &K, nullptr, &Lda, nullptr, nullptr, &Ldc, &W, &Lw, &I);
  return lworkOf(W);
}

template <typename T>
inline cusolverStatus_t ormqr(cusolverDnHandle_t Hd, cublasSideMode_t Side, cublasOperation_t Op, int M, int N, int K,
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
  if (const roc::Api *R = rocFor(H))
    return rocDone(H,
                   R->Ormqr[rocIndex<T>()](H->Roc, Side == CUBLAS_SIDE_LEFT ? roc::SideLeft : roc::SideRight,
                                           rocOp<T>(Op), M, N, K, const_cast<T *>(A), Lda, const_cast<T *>(Tau), C,
                                           Ldc),
                   Info);
  return submit(
      H,
      [=](T *A, T *Tau, T *C, int *Info) {
        int I = 0, Mi = M, Ni = N, Ki = K, La_ = Lda, Lc = Ldc;
        if (Mi && Ni && Ki) {
          int Lw = ormqrWork<T>(Side, Op, Mi, Ni, Ki, La_, Lc);
          std::vector<T> W(static_cast<size_t>(Lw));
          char S = Side == CUBLAS_SIDE_LEFT ? 'L' : 'R', Tr = opChar(Op);
          La<T>::ormqr(&S, &Tr, &Mi, &Ni, &Ki, A, &La_, Tau, C, &Lc, W.data(), &Lw, &I);
        }
        *Info = I;
      },
      libs::in(A, mat(Lda, Nq, K)), libs::in(Tau, size_t(K)), libs::inout(C, mat(Ldc, M, N)), libs::out(Info, 1));
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
inline cusolverStatus_t orgqr(cusolverDnHandle_t Hd, int M, int N, int K, T *A, int Lda, const T *Tau, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (M < 0 || N < 0 || N > M || K < 0 || K > N || Lda < std::max(1, M) || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (const roc::Api *R = rocFor(H))
    return rocDone(H, R->Orgqr[rocIndex<T>()](H->Roc, M, N, K, A, Lda, const_cast<T *>(Tau)), Info);
  return submit(
      H,
      [=](T *A, T *Tau, int *Info) {
        int I = 0, Mi = M, Ni = N, Ki = K, L = Lda;
        if (Mi && Ni) {
          int Lw = orgqrWork<T>(Mi, Ni, Ki, L);
          std::vector<T> W(static_cast<size_t>(Lw));
          La<T>::orgqr(&Mi, &Ni, &Ki, A, &L, Tau, W.data(), &Lw, &I);
        }
        *Info = I;
      },
      libs::inout(A, mat(Lda, M, N)), libs::in(Tau, size_t(K)), libs::out(Info, 1));
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

inline bool validJob(signed char J) { return J == 'A' || J == 'S' || J == 'O' || J == 'N'; }

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
inline cusolverStatus_t gesvd(cusolverDnHandle_t Hd, signed char JobU, signed char JobVt, int M, int N, T *A, int Lda,
                       typename Real<T>::Type *S, T *U, int Ldu, T *Vt, int Ldvt, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  // cuSOLVER's gesvd takes m >= n only, and not both jobs 'O'.
  if (!validJob(JobU) || !validJob(JobVt) || (JobU == 'O' && JobVt == 'O') || M < N || N < 0 ||
      Lda < std::max(1, M) || Ldu < 1 || Ldvt < 1 || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (const roc::Api *R = rocFor(H)) {
    using Re = typename Real<T>::Type;
    void *E = scratch(H, sizeof(Re) * size_t(std::max(std::min(M, N), 1)));
    if (!E)
      return CUSOLVER_STATUS_ALLOC_FAILED;
    return fromRoc(R->Gesvd[rocIndex<T>()](H->Roc, rocSvect(JobU), rocSvect(JobVt), M, N, A, Lda, S, U, Ldu, Vt,
                                           Ldvt, E, roc::OutOfPlace, Info));
  }
  using R = typename Real<T>::Type;
  const int Mn = std::min(M, N);
  const size_t UCount = JobU == 'A' ? mat(Ldu, M, M) : JobU == 'S' ? mat(Ldu, M, Mn) : 0;
  const size_t VCount = JobVt == 'A' || JobVt == 'S' ? mat(Ldvt, JobVt == 'A' ? N : Mn, N) : 0;
  return submit(
      H,
      [=](T *A, R *S, T *U, T *Vt, int *Info) {
        int I = 0;
        if (M && N) {
          int Lw = std::max(gesvdWork<T>(M, N), 1);
          std::vector<T> W(static_cast<size_t>(Lw));
          std::vector<R> Rw(static_cast<size_t>(5 * Mn));
          T Dummy{};
          Svd<T>::run(char(JobU), char(JobVt), M, N, A, Lda, S, U ? U : &Dummy, Ldu, Vt ? Vt : &Dummy, Ldvt,
                      W.data(), Lw, Rw.data(), &I);
        }
        *Info = I;
      },
      libs::inout(A, mat(Lda, M, N)), libs::out(S, size_t(Mn)), libs::out(UCount ? U : nullptr, UCount),
      libs::out(VCount ? Vt : nullptr, VCount), libs::out(Info, 1));
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
inline cusolverStatus_t syevd(cusolverDnHandle_t Hd, cusolverEigMode_t Job, cublasFillMode_t Uplo, int N, T *A, int Lda,
                       typename Real<T>::Type *W, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if ((Job != CUSOLVER_EIG_MODE_NOVECTOR && Job != CUSOLVER_EIG_MODE_VECTOR) || !validFill(Uplo) || N < 0 ||
      Lda < std::max(1, N) || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (const roc::Api *R = rocFor(H)) {
    void *E = scratch(H, sizeof(typename Real<T>::Type) * size_t(std::max(N, 1)));
    if (!E)
      return CUSOLVER_STATUS_ALLOC_FAILED;
    return fromRoc(R->Syevd[rocIndex<T>()](H->Roc, Job == CUSOLVER_EIG_MODE_VECTOR ? roc::EvectOriginal : roc::EvectNone,
                                           rocFill(Uplo), N, A, Lda, W, E, Info));
  }
  return submit(
      H,
      [=](T *A, typename Real<T>::Type *W, int *Info) {
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
      },
      libs::inout(A, mat(Lda, N, N)), libs::out(W, size_t(N)), libs::out(Info, 1));
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

inline cusolverStatus_t size(int *Out, int V) {
  if (!Out)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Out = V;
  return CUSOLVER_STATUS_SUCCESS;
}



struct Params {
  int Unused = 0;
};

inline bool fits(int64_t V) { return V >= 0 && V <= INT32_MAX; }

template <typename F> cusolverStatus_t byType(cudaDataType T, F &&Fn) {
  switch (T) {
  case CUDA_R_32F:
    return Fn(float());
  case CUDA_R_64F:
    return Fn(double());
  case CUDA_C_32F:
    return Fn(C32());
  case CUDA_C_64F:
    return Fn(C64());
  default:
    libs::notSupported("cuSOLVER", "cusolverDnX* with this data type");
    return CUSOLVER_STATUS_NOT_SUPPORTED;
  }
}

/// The real type's cudaDataType for eigenvalues and singular values.
inline cudaDataType realOf(cudaDataType T) { return T == CUDA_C_32F ? CUDA_R_32F : T == CUDA_C_64F ? CUDA_R_64F : T; }

inline cusolverStatus_t sizes(size_t *Dev, size_t *Host, size_t D) {
  if (!Dev || !Host)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Dev = D, *Host = 0;
  return CUSOLVER_STATUS_SUCCESS;
}



struct JacobiParams {
  double Tolerance = 0; ///< 0: machine accuracy (cuSOLVER's default)
  int MaxSweeps = 100, Sort = 1;
  double Residual = 0;
  int Sweeps = 0;
  bool Batched = false; ///< the last call was batched: no residual or sweeps to report
};

template <typename T> T conjOf(T V) { return V; }
template <typename T> std::complex<T> conjOf(std::complex<T> V) { return std::conj(V); }
template <typename T> std::complex<double> wide(T V) { return std::complex<double>(V); }

/// ||Q1^H A Q2 - D||_F for the decomposition D = Q1^H A Q2 (D diagonal, of min(C1, C2) values; A m x n, packed).
template <typename T>
inline double residual(int M, int N, const std::vector<T> &A, const T *Q1, int Ld1, int C1, const T *Q2, int Ld2, int C2,
                const typename Real<T>::Type *D) {
  double S = 0;
  std::vector<std::complex<double>> Aq(static_cast<size_t>(M)); // A q2_j
  for (int J = 0; J < C2; ++J) {
    std::fill(Aq.begin(), Aq.end(), 0);
    for (int L = 0; L < N; ++L)
      for (int I = 0; I < M; ++I)
        Aq[size_t(I)] += wide(A[size_t(L) * M + I]) * wide(Q2[size_t(J) * Ld2 + L]);
    for (int I = 0; I < C1; ++I) {
      std::complex<double> Acc = 0;
      for (int R = 0; R < M; ++R)
        Acc += std::conj(wide(Q1[size_t(I) * Ld1 + R])) * Aq[size_t(R)];
      if (I == J)
        Acc -= double(D[I]);
      S += std::norm(Acc);
    }
  }
  return std::sqrt(S);
}

/// Eigenvalues (ascending) and, for VECTOR, eigenvectors in A of one symmetric/Hermitian matrix; 0 or n + 1
/// (not converged). Sort 0 keeps LAPACK's order (ascending as well). *Res: the residual.
template <typename T>
inline int jacobiEig(bool Vectors, cublasFillMode_t Uplo, int N, T *A, int Lda, typename Real<T>::Type *W, double *Res) {
  if (!N)
    return 0;
  std::vector<T> Orig(size_t(N) * N); // the full matrix, both triangles
  bool Up = Uplo == CUBLAS_FILL_MODE_UPPER;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I) {
      bool Stored = Up ? I <= J : I >= J;
      Orig[size_t(J) * N + I] = Stored ? A[size_t(J) * Lda + I] : conjOf(A[size_t(I) * Lda + J]);
    }
  char Jc = 'V', U = fillChar(Uplo);
  T Wq{};
  typename Real<T>::Type Rq{};
  int Iq = 0, I = 0;
  Eig<T>::run(Jc, U, N, A, Lda, W, &Wq, -1, &Rq, -1, &Iq, -1, &I);
  int Lw = lworkOf(Wq), Lrw = std::max(1, int(Rq)), Liw = std::max(1, Iq);
  std::vector<T> Wk(static_cast<size_t>(Lw));
  std::vector<typename Real<T>::Type> Rw(static_cast<size_t>(Lrw));
  std::vector<int> Iw(static_cast<size_t>(Liw));
  Eig<T>::run(Jc, U, N, A, Lda, W, Wk.data(), Lw, Rw.data(), Lrw, Iw.data(), Liw, &I);
  if (I)
    return N + 1;
  if (Res)
    *Res = residual<T>(N, N, Orig, A, Lda, N, A, Lda, N, W);
  (void)Vectors; // NOVECTOR: A's contents are undefined after the call (cuSOLVER's rule); the vectors are there
  return 0;
}

/// A = U S V^H of one m x n matrix: S descending; U (m x m, or m x min for Econ) and V (n x n, or n x min) when
/// Vectors. 0, or min(m, n) + 1 when LAPACK does not converge. *Res: the residual.
template <typename T>
inline int jacobiSvd(bool Vectors, bool Econ, int M, int N, T *A, int Lda, typename Real<T>::Type *S, T *U, int Ldu, T *V,
              int Ldv, double *Res) {
  const int Mn = std::min(M, N);
  if (!Mn)
    return 0;
  std::vector<T> Orig(size_t(M) * N);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I)
      Orig[size_t(J) * M + I] = A[size_t(J) * Lda + I];
  int Uc = Econ ? Mn : M, Vr = Econ ? Mn : N; // columns of U, rows of V^H
  std::vector<T> Uw(size_t(M) * Uc), Vt(size_t(Vr) * N);
  int Lw = std::max(gesvdWork<T>(std::max(M, 1), std::max(N, 1)), 5 * std::max(M, N)) * 2, I = 0;
  std::vector<T> Wk(static_cast<size_t>(Lw));
  std::vector<typename Real<T>::Type> Rw(static_cast<size_t>(5 * Mn + 5 * std::max(M, N)));
  char J = Econ ? 'S' : 'A';
  Svd<T>::run(J, J, M, N, A, Lda, S, Uw.data(), M, Vt.data(), Vr, Wk.data(), Lw, Rw.data(), &I);
  if (I)
    return Mn + 1;
  std::vector<T> Vw(size_t(N) * Vr); // V = (V^H)^H, n x Vr
  for (int C = 0; C < Vr; ++C)
    for (int R = 0; R < N; ++R)
      Vw[size_t(C) * N + R] = conjOf(Vt[size_t(R) * Vr + C]);
  if (Res)
    *Res = residual<T>(M, N, Orig, Uw.data(), M, Mn, Vw.data(), N, Mn, S);
  if (Vectors) {
    for (int C = 0; C < Uc; ++C)
      std::copy(Uw.begin() + size_t(C) * M, Uw.begin() + size_t(C + 1) * M, U + size_t(C) * Ldu);
    for (int C = 0; C < Vr; ++C)
      std::copy(Vw.begin() + size_t(C) * N, Vw.begin() + size_t(C + 1) * N, V + size_t(C) * Ldv);
  }
  return 0;
}

inline bool validMode(cusolverEigMode_t J) { return J == CUSOLVER_EIG_MODE_NOVECTOR || J == CUSOLVER_EIG_MODE_VECTOR; }

template <typename T>
inline cusolverStatus_t syevj(cusolverDnHandle_t Hd, cusolverEigMode_t Job, cublasFillMode_t Uplo, int N, T *A, int Lda,
                       typename Real<T>::Type *W, int *Info, JacobiParams *P, int Batch) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  bool Batched = Batch > 0;
  if (!validMode(Job) || !validFill(Uplo) || N < 0 || Lda < std::max(1, N) || !Info || Batch < 0)
    return CUSOLVER_STATUS_INVALID_VALUE;
  int Count = Batched ? Batch : 1;
  if (P)
    P->Batched = Batched;
  return submit(
      H,
      [=](T *A, typename Real<T>::Type *W, int *Info) {
        for (int B = 0; B < Count; ++B) {
          double Res = 0;
          Info[B] = jacobiEig<T>(Job == CUSOLVER_EIG_MODE_VECTOR, Uplo, N, A + size_t(B) * Lda * N, Lda,
                                 W + size_t(B) * N, Batched ? nullptr : &Res);
          if (P && !Batched) {
            P->Residual = Res;
            P->Sweeps = 1;
          }
        }
      },
      libs::inout(A, Count > 1 ? size_t(Lda) * N * Count : mat(Lda, N, N)), libs::out(W, size_t(N) * Count),
      libs::out(Info, size_t(Count)));
}

template <typename T>
inline cusolverStatus_t gesvdj(cusolverDnHandle_t Hd, cusolverEigMode_t Job, int Econ, int M, int N, T *A, int Lda,
                        typename Real<T>::Type *S, T *U, int Ldu, T *V, int Ldv, int *Info, JacobiParams *P,
                        int Batch) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  bool Batched = Batch > 0, Vec = Job == CUSOLVER_EIG_MODE_VECTOR;
  const int Mn = std::min(M, N), Uc = Econ ? Mn : M, Vc = Econ ? Mn : N;
  if (!validMode(Job) || (Econ != 0 && Econ != 1) || M < 0 || N < 0 || Lda < std::max(1, M) || !Info ||
      (Vec && (Ldu < std::max(1, M) || Ldv < std::max(1, N))) || (Batched && (M > 32 || N > 32)) || Batch < 0)
    return CUSOLVER_STATUS_INVALID_VALUE;
  int Count = Batched ? Batch : 1;
  if (P)
    P->Batched = Batched;
  size_t UEach = Vec ? mat(Ldu, M, Uc) : 0, VEach = Vec ? mat(Ldv, N, Vc) : 0;
  // Batched matrices lie lda*n (ldu*m, ldv*n) apart.
  size_t AStride = size_t(Lda) * N, UStride = size_t(Ldu) * M, VStride = size_t(Ldv) * N;
  return submit(
      H,
      [=](T *A, typename Real<T>::Type *S, T *U, T *V, int *Info) {
        for (int B = 0; B < Count; ++B) {
          double Res = 0;
          Info[B] = jacobiSvd<T>(Vec, Econ, M, N, A + B * AStride, Lda, S + size_t(B) * Mn, U ? U + B * UStride : nullptr,
                                 Ldu, V ? V + B * VStride : nullptr, Ldv, Batched ? nullptr : &Res);
          if (P && !Batched) {
            P->Residual = Res;
            P->Sweeps = 1;
          }
        }
      },
      libs::inout(A, Count > 1 ? AStride * Count : mat(Lda, M, N)), libs::out(S, size_t(Mn) * Count),
      libs::out(Vec ? U : nullptr, Count > 1 ? UStride * Count : UEach),
      libs::out(Vec ? V : nullptr, Count > 1 ? VStride * Count : VEach), libs::out(Info, size_t(Count)));
}

/// gesvda: the leading rank singular values and vectors of each tall (m >= n) matrix in a strided batch;
/// h_R_nrmF[i] = ||U_i^H A_i V_i - S_i||_F over the kept triplets, written before the call returns (it waits
/// for the stream).
template <typename T>
inline cusolverStatus_t gesvda(cusolverDnHandle_t Hd, cusolverEigMode_t Job, int Rank, int M, int N, const T *A, int Lda,
                        long long Sa, typename Real<T>::Type *S, long long Ss, T *U, int Ldu, long long Su, T *V,
                        int Ldv, long long Sv, int *Info, double *RNrmF, int Batch) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  bool Vec = Job == CUSOLVER_EIG_MODE_VECTOR;
  if (!validMode(Job) || M < N || N < 1 || Rank < 1 || Rank > N || Lda < M || Ldu < M || Ldv < N || Batch < 1 ||
      Sa < int64_t(Lda) * N || Ss < Rank || (Vec && (Su < int64_t(Ldu) * Rank || Sv < int64_t(Ldv) * Rank)) || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  using R = typename Real<T>::Type;
  auto Norms = std::make_shared<std::vector<double>>(size_t(Batch));
  cusolverStatus_t St = submit(
      H,
      [=](T *A, R *S, T *U, T *V, int *Info) {
        for (int B = 0; B < Batch; ++B) {
          std::vector<T> Work(A + B * Sa, A + B * Sa + mat(Lda, M, N)); // A is not overwritten
          std::vector<R> Sfull(static_cast<size_t>(N));
          std::vector<T> Uf(size_t(M) * N), Vf(size_t(N) * N);
          Info[B] = jacobiSvd<T>(true, true, M, N, Work.data(), Lda, Sfull.data(), Uf.data(), M, Vf.data(), N, nullptr);
          std::copy(Sfull.begin(), Sfull.begin() + Rank, S + B * Ss);
          if (Vec)
            for (int C = 0; C < Rank; ++C) {
              std::copy(Uf.begin() + size_t(C) * M, Uf.begin() + size_t(C + 1) * M, U + B * Su + size_t(C) * Ldu);
              std::copy(Vf.begin() + size_t(C) * N, Vf.begin() + size_t(C + 1) * N, V + B * Sv + size_t(C) * Ldv);
            }
          // As an H200's cuSOLVER reports it: the residual of the kept triplets, ||U^H A V - S||_F (the
          // accuracy of the decomposition, about machine precision; not the approximation's error).
          std::vector<T> Ab(A + B * Sa, A + B * Sa + mat(Lda, M, N)), Packed(size_t(M) * N);
          for (int J = 0; J < N; ++J)
            std::copy(Ab.begin() + size_t(J) * Lda, Ab.begin() + size_t(J) * Lda + M, Packed.begin() + size_t(J) * M);
          (*Norms)[size_t(B)] = residual<T>(M, N, Packed, Uf.data(), M, Rank, Vf.data(), N, Rank, Sfull.data());
        }
      },
      libs::in(A, size_t(Sa) * (Batch - 1) + mat(Lda, M, N)), libs::out(S, size_t(Ss) * (Batch - 1) + Rank),
      libs::out(Vec ? U : nullptr, Vec ? size_t(Su) * (Batch - 1) + mat(Ldu, M, Rank) : 0),
      libs::out(Vec ? V : nullptr, Vec ? size_t(Sv) * (Batch - 1) + mat(Ldv, N, Rank) : 0),
      libs::out(Info, size_t(Batch)));
  if (St || !RNrmF)
    return St;
  if (libs::wait(H->Stream))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  std::copy(Norms->begin(), Norms->end(), RNrmF);
  return CUSOLVER_STATUS_SUCCESS;
}

inline JacobiParams *jacobiOf(const void *P) { return libs::Live<JacobiParams>::find(P); }



inline constexpr cusolverStatus_t IrsParamsInvalid = static_cast<cusolverStatus_t>(13); // CUSOLVER_STATUS_IRS_PARAMS_INVALID

/// The workspace an IRS call asks for: room for a copy of A, of X and of the pivots (in bytes).
template <typename T> size_t irsBytes(int M, int N, int Nrhs) {
  return sizeof(T) * (size_t(std::max(M, 1)) * std::max(N, 1) + size_t(std::max(M, N)) * std::max(Nrhs, 1)) +
         sizeof(int) * size_t(std::max(N, 1)) + 256;
}

template <typename T>
inline cusolverStatus_t irs(cusolverDnHandle_t Hd, bool Gels, int M, int N, int Nrhs, T *A, int Lda, T *B, int Ldb, T *X,
                     int Ldx, void *Work, size_t Bytes, int *Iter, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (M < 0 || N < 0 || Nrhs < 0 || (Gels && M < N))
    return IrsParamsInvalid;
  if (Lda < std::max(1, M) || Ldb < std::max(1, M) || Ldx < std::max(1, N) || !Iter || !Info || (X == B && Nrhs))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (!Work || Bytes < irsBytes<T>(M, N, Nrhs))
    return CUSOLVER_STATUS_INVALID_WORKSPACE;
  auto Steps = std::make_shared<int>(0);
  cusolverStatus_t St = submit(
      H,
      [=](T *A, T *B, T *X, int *Info) {
        *Info = 0;
        *Steps = 0;
        if (!N || !Nrhs)
          return;
        std::vector<T> F(A, A + mat(Lda, M, N)), R(size_t(std::max(M, N)) * Nrhs);
        for (int J = 0; J < Nrhs; ++J)
          std::copy(B + size_t(J) * Ldb, B + size_t(J) * Ldb + M, R.begin() + size_t(J) * std::max(M, N));
        int Ld = std::max(M, N), I = 0;
        if (Gels) {
          int Lw = -1;
          T Q{};
          La<T>::gels(&M, &N, &Nrhs, F.data(), &Lda, R.data(), &Ld, &Q, &Lw, &I);
          Lw = lworkOf(Q);
          std::vector<T> W(static_cast<size_t>(Lw));
          La<T>::gels(&M, &N, &Nrhs, F.data(), &Lda, R.data(), &Ld, W.data(), &Lw, &I);
          if (I) {
            *Info = I;
            return;
          }
          for (int J = 0; J < Nrhs; ++J)
            std::copy(R.begin() + size_t(J) * Ld, R.begin() + size_t(J) * Ld + N, X + size_t(J) * Ldx);
          if (M > N) {
            *Steps = -1;
            return;
          }
        } else {
          std::vector<int> Piv(static_cast<size_t>(N));
          La<T>::getrf(&N, &N, F.data(), &Lda, Piv.data(), &I);
          if (I) {
            *Info = I;
            return;
          }
          char Tr = 'N';
          La<T>::getrs(&Tr, &N, &Nrhs, F.data(), &Lda, Piv.data(), R.data(), &Ld, &I);
          for (int J = 0; J < Nrhs; ++J)
            std::copy(R.begin() + size_t(J) * Ld, R.begin() + size_t(J) * Ld + N, X + size_t(J) * Ldx);
          // One refinement step: r = B - A X, A d = r, X += d.
          for (int J = 0; J < Nrhs; ++J)
            for (int Row = 0; Row < N; ++Row) {
              T S = B[size_t(J) * Ldb + Row];
              for (int K = 0; K < N; ++K)
                S -= A[size_t(K) * Lda + Row] * X[size_t(J) * Ldx + K];
              R[size_t(J) * Ld + Row] = S;
            }
          La<T>::getrs(&Tr, &N, &Nrhs, F.data(), &Lda, Piv.data(), R.data(), &Ld, &I);
          for (int J = 0; J < Nrhs; ++J)
            for (int Row = 0; Row < N; ++Row)
              X[size_t(J) * Ldx + Row] += R[size_t(J) * Ld + Row];
        }
        *Steps = 1;
      },
      libs::in(A, mat(Lda, M, N)), libs::in(B, mat(Ldb, M, Nrhs)), libs::out(X, mat(Ldx, N, Nrhs)),
      libs::out(Info, 1));
  if (St)
    return St;
  if (libs::wait(H->Stream))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  *Iter = *Steps;
  return CUSOLVER_STATUS_SUCCESS;
}



template <typename T> struct SymLa;
#define SYM_LA_COMMON(p, T)                                                                                            \
  static void sytrf(char U, int N, T *A, int Lda, int *Ip, int *I) {                                                   \
    int Lw = -1;                                                                                                       \
    T Q{};                                                                                                             \
    p##sytrf_(&U, &N, A, &Lda, Ip, &Q, &Lw, I);                                                                        \
    Lw = lworkOf(Q);                                                                                                   \
    std::vector<T> W(static_cast<size_t>(Lw));                                                                         \
    p##sytrf_(&U, &N, A, &Lda, Ip, W.data(), &Lw, I);                                                                  \
  }                                                                                                                    \
  static void sytri(char U, int N, T *A, int Lda, const int *Ip, int *I) {                                             \
    std::vector<T> W(static_cast<size_t>(2 * std::max(N, 1)));                                                         \
    p##sytri_(&U, &N, A, &Lda, Ip, W.data(), I);                                                                       \
  }                                                                                                                    \
  static void potri(char U, int N, T *A, int Lda, int *I) { p##potri_(&U, &N, A, &Lda, I); }
#define SYM_LA_REAL(p, T)                                                                                              \
  template <> struct SymLa<T> {                                                                                        \
    SYM_LA_COMMON(p, T)                                                                                                \
    static int gvd(int It, char J, char U, int N, T *A, int Lda, T *B, int Ldb, T *W) {                                \
      T Q = 0;                                                                                                         \
      int Iq = 0, Lw = -1, Li = -1, I = 0;                                                                             \
      p##sygvd_(&It, &J, &U, &N, A, &Lda, B, &Ldb, W, &Q, &Lw, &Iq, &Li, &I);                                          \
      Lw = lworkOf(Q), Li = std::max(1, Iq);                                                                           \
      std::vector<T> Wk(static_cast<size_t>(Lw));                                                                      \
      std::vector<int> Iw(static_cast<size_t>(Li));                                                                    \
      p##sygvd_(&It, &J, &U, &N, A, &Lda, B, &Ldb, W, Wk.data(), &Lw, Iw.data(), &Li, &I);                             \
      return I;                                                                                                        \
    }                                                                                                                  \
    static int gvx(int It, char J, char Rg, char U, int N, T *A, int Lda, T *B, int Ldb, T Vl, T Vu, int Il, int Iu,  \
                   int *M, T *W, T *Z, int Ldz) {                                                                      \
      T Q = 0, Tol = 0;                                                                                                \
      int Lw = -1, I = 0;                                                                                              \
      std::vector<int> Iw(static_cast<size_t>(5 * N)), Fail(static_cast<size_t>(N));                                   \
      if (B) {                                                                                                         \
        p##sygvx_(&It, &J, &Rg, &U, &N, A, &Lda, B, &Ldb, &Vl, &Vu, &Il, &Iu, &Tol, M, W, Z, &Ldz, &Q, &Lw, Iw.data(),  \
                  Fail.data(), &I);                                                                                    \
        Lw = lworkOf(Q);                                                                                               \
        std::vector<T> Wk(static_cast<size_t>(Lw));                                                                    \
        p##sygvx_(&It, &J, &Rg, &U, &N, A, &Lda, B, &Ldb, &Vl, &Vu, &Il, &Iu, &Tol, M, W, Z, &Ldz, Wk.data(), &Lw,      \
                  Iw.data(), Fail.data(), &I);                                                                         \
        return I;                                                                                                      \
      }                                                                                                                \
      p##syevx_(&J, &Rg, &U, &N, A, &Lda, &Vl, &Vu, &Il, &Iu, &Tol, M, W, Z, &Ldz, &Q, &Lw, Iw.data(), Fail.data(),    \
                &I);                                                                                                   \
      Lw = lworkOf(Q);                                                                                                 \
      std::vector<T> Wk(static_cast<size_t>(Lw));                                                                      \
      p##syevx_(&J, &Rg, &U, &N, A, &Lda, &Vl, &Vu, &Il, &Iu, &Tol, M, W, Z, &Ldz, Wk.data(), &Lw, Iw.data(),          \
                Fail.data(), &I);                                                                                      \
      return I;                                                                                                        \
    }                                                                                                                  \
  };
SYM_LA_REAL(s, float)
SYM_LA_REAL(d, double)
#undef SYM_LA_REAL
#define SYM_LA_COMPLEX(p, T, R)                                                                                        \
  template <> struct SymLa<T> {                                                                                        \
    SYM_LA_COMMON(p, T)                                                                                                \
    static int gvd(int It, char J, char U, int N, T *A, int Lda, T *B, int Ldb, R *W) {                                \
      T Q{};                                                                                                           \
      R Rq = 0;                                                                                                        \
      int Iq = 0, Lw = -1, Lr = -1, Li = -1, I = 0;                                                                    \
      p##hegvd_(&It, &J, &U, &N, A, &Lda, B, &Ldb, W, &Q, &Lw, &Rq, &Lr, &Iq, &Li, &I);                                \
      Lw = lworkOf(Q), Lr = std::max(1, int(Rq)), Li = std::max(1, Iq);                                                \
      std::vector<T> Wk(static_cast<size_t>(Lw));                                                                      \
      std::vector<R> Rw(static_cast<size_t>(Lr));                                                                      \
      std::vector<int> Iw(static_cast<size_t>(Li));                                                                    \
      p##hegvd_(&It, &J, &U, &N, A, &Lda, B, &Ldb, W, Wk.data(), &Lw, Rw.data(), &Lr, Iw.data(), &Li, &I);             \
      return I;                                                                                                        \
    }                                                                                                                  \
    static int gvx(int It, char J, char Rg, char U, int N, T *A, int Lda, T *B, int Ldb, R Vl, R Vu, int Il, int Iu,  \
                   int *M, R *W, T *Z, int Ldz) {                                                                      \
      T Q{};                                                                                                           \
      R Tol = 0;                                                                                                       \
      int Lw = -1, I = 0;                                                                                              \
      std::vector<int> Iw(static_cast<size_t>(5 * N)), Fail(static_cast<size_t>(N));                                   \
      std::vector<R> Rw(static_cast<size_t>(7 * N));                                                                   \
      if (B) {                                                                                                         \
        p##hegvx_(&It, &J, &Rg, &U, &N, A, &Lda, B, &Ldb, &Vl, &Vu, &Il, &Iu, &Tol, M, W, Z, &Ldz, &Q, &Lw, Rw.data(),  \
                  Iw.data(), Fail.data(), &I);                                                                         \
        Lw = lworkOf(Q);                                                                                               \
        std::vector<T> Wk(static_cast<size_t>(Lw));                                                                    \
        p##hegvx_(&It, &J, &Rg, &U, &N, A, &Lda, B, &Ldb, &Vl, &Vu, &Il, &Iu, &Tol, M, W, Z, &Ldz, Wk.data(), &Lw,      \
                  Rw.data(), Iw.data(), Fail.data(), &I);                                                              \
        return I;                                                                                                      \
      }                                                                                                                \
      p##heevx_(&J, &Rg, &U, &N, A, &Lda, &Vl, &Vu, &Il, &Iu, &Tol, M, W, Z, &Ldz, &Q, &Lw, Rw.data(), Iw.data(),      \
                Fail.data(), &I);                                                                                      \
      Lw = lworkOf(Q);                                                                                                 \
      std::vector<T> Wk(static_cast<size_t>(Lw));                                                                      \
      p##heevx_(&J, &Rg, &U, &N, A, &Lda, &Vl, &Vu, &Il, &Iu, &Tol, M, W, Z, &Ldz, Wk.data(), &Lw, Rw.data(),          \
                Iw.data(), Fail.data(), &I);                                                                           \
      return I;                                                                                                        \
    }                                                                                                                  \
  };
SYM_LA_COMPLEX(c, C32, float)
SYM_LA_COMPLEX(z, C64, double)
#undef SYM_LA_COMPLEX
#undef SYM_LA_COMMON

inline bool validItype(int It) { return It >= 1 && It <= 3; }
inline bool validRange(int R) { return R == 1001 || R == 1002 || R == 1003; } // ALL, I, V
inline char rangeChar(int R) { return R == 1001 ? 'A' : R == 1002 ? 'I' : 'V'; }

template <typename T>
inline cusolverStatus_t sytrf(cusolverDnHandle_t Hd, cublasFillMode_t U, int N, T *A, int Lda, int *Ipiv, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || N < 0 || Lda < std::max(1, N) || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return submit(
      H,
      [=](T *A, int *Ipiv, int *Info) {
        int I = 0;
        if (N)
          SymLa<T>::sytrf(fillChar(U), N, A, Lda, Ipiv, &I);
        *Info = I;
      },
      libs::inout(A, mat(Lda, N, N)), libs::out(Ipiv, size_t(N)), libs::out(Info, 1));
}

template <typename T>
inline cusolverStatus_t sytri(cusolverDnHandle_t Hd, cublasFillMode_t U, int N, T *A, int Lda, const int *Ipiv, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || N < 0 || Lda < std::max(1, N) || !Info || (N && !Ipiv))
    return CUSOLVER_STATUS_INVALID_VALUE;
  return submit(
      H,
      [=](T *A, int *Ipiv, int *Info) {
        int I = 0;
        if (N)
          SymLa<T>::sytri(fillChar(U), N, A, Lda, Ipiv, &I);
        *Info = I;
      },
      libs::inout(A, mat(Lda, N, N)), libs::in(Ipiv, size_t(N)), libs::out(Info, 1));
}

template <typename T>
inline cusolverStatus_t potri(cusolverDnHandle_t Hd, cublasFillMode_t U, int N, T *A, int Lda, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || N < 0 || Lda < std::max(1, N) || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return submit(
      H,
      [=](T *A, int *Info) {
        int I = 0;
        if (N)
          SymLa<T>::potri(fillChar(U), N, A, Lda, &I);
        *Info = I;
      },
      libs::inout(A, mat(Lda, N, N)), libs::out(Info, 1));
}

/// potrBatched on a GPU without rocSOLVER: after the stream, the pointer arrays and each matrix copied to the host,
/// factored or solved by LAPACK and copied back.
template <typename T>
inline cusolverStatus_t potrBatchedStaged(Handle *H, bool Solve, char Uc, int N, int Nrhs, T *const *A, int Lda,
                                   T *const *B, int Ldb, int *Info, int Batch) {
  if (libs::wait(H->Stream))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  std::vector<T *> Ap(static_cast<size_t>(Batch)), Bp(static_cast<size_t>(Solve ? Batch : 0));
  if (Batch && (libs::toHost(Ap.data(), A, sizeof(T *) * Ap.size()) ||
                (Solve && libs::toHost(Bp.data(), B, sizeof(T *) * Bp.size()))))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  std::vector<int> Infos(static_cast<size_t>(Batch), 0);
  std::vector<T> Am(mat(Lda, N, N)), Bm(Solve ? mat(Ldb, N, Nrhs) : 0);
  int Nn = N, Ld = Lda, Lb = Ldb, R = Nrhs;
  for (int K = 0; K < Batch && N; ++K) {
    const size_t Ka = static_cast<size_t>(K);
    if (libs::toHost(Am.data(), Ap[Ka], sizeof(T) * Am.size()) ||
        (Solve && libs::toHost(Bm.data(), Bp[Ka], sizeof(T) * Bm.size())))
      return CUSOLVER_STATUS_EXECUTION_FAILED;
    if (Solve)
      La<T>::potrs(&Uc, &Nn, &R, Am.data(), &Ld, Bm.data(), &Lb, &Infos[Ka]);
    else
      La<T>::potrf(&Uc, &Nn, Am.data(), &Ld, &Infos[Ka]);
    if (Solve ? libs::toDevice(Bp[Ka], Bm.data(), sizeof(T) * Bm.size())
              : libs::toDevice(Ap[Ka], Am.data(), sizeof(T) * Am.size()))
      return CUSOLVER_STATUS_EXECUTION_FAILED;
  }
  if (Solve) {
    int First = 0;
    for (int I : Infos)
      First = First ? First : I;
    return libs::toDevice(Info, &First, sizeof(int)) ? CUSOLVER_STATUS_EXECUTION_FAILED : CUSOLVER_STATUS_SUCCESS;
  }
  return Batch && libs::toDevice(Info, Infos.data(), sizeof(int) * Infos.size()) ? CUSOLVER_STATUS_EXECUTION_FAILED
                                                                                 : CUSOLVER_STATUS_SUCCESS;
}

/// Batched Cholesky factorization or solve (nrhs 1, as cuSOLVER takes) over arrays of matrix pointers: on AMD GPUs
/// rocSOLVER's batched routines, or without it the staged host path; on the CPU device in stream order.
template <typename T>
inline cusolverStatus_t potrBatched(cusolverDnHandle_t Hd, bool Solve, cublasFillMode_t U, int N, int Nrhs, T *const *A,
                             int Lda, T *const *B, int Ldb, int *Info, int Batch) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || N < 0 || Lda < std::max(1, N) || Batch < 0 || !Info || (Solve && (Nrhs != 1 || Ldb < std::max(1, N))))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (const roc::Api *Ro = rocFor(H)) {
    void *const *Av = reinterpret_cast<void *const *>(A);
    if (!Solve)
      return fromRoc(Ro->PotrfBatched[rocIndex<T>()](H->Roc, rocFill(U), N, Av, Lda, Info, Batch));
    return rocDone(H, Ro->PotrsBatched[rocIndex<T>()](H->Roc, rocFill(U), N, Nrhs, Av, Lda,
                                                      reinterpret_cast<void *const *>(B), Ldb, Batch),
                   Info);
  }
  if (!libs::cpuDevice())
    return potrBatchedStaged(H, Solve, fillChar(U), N, Nrhs, A, Lda, B, Ldb, Info, Batch);
  return submit(H, [=]() {
    char Uc = fillChar(U);
    int Nn = N, Ld = Lda, Lb = Ldb, R = Nrhs;
    if (Solve)
      *Info = 0;
    for (int K = 0; K < Batch; ++K) {
      int I = 0;
      if (Nn && Solve)
        La<T>::potrs(&Uc, &Nn, &R, A[K], &Ld, B[K], &Lb, &I);
      else if (Nn)
        La<T>::potrf(&Uc, &Nn, A[K], &Ld, &I);
      if (Solve && I && !*Info)
        *Info = I;
      else if (!Solve)
        Info[K] = I;
    }
  });
}

/// Generalized (B != null: sygvd/sygvdx) or standard (syevdx) symmetric eigenproblems; Range 0: all, by divide and
/// conquer; else LAPACK's expert driver with the range. *Meig (host) the number found.
template <typename T>
inline cusolverStatus_t eigen(cusolverDnHandle_t Hd, int Itype, cusolverEigMode_t Job, int Range, cublasFillMode_t U, int N,
                       T *A, int Lda, T *B, int Ldb, typename Real<T>::Type Vl, typename Real<T>::Type Vu, int Il,
                       int Iu, int *Meig, typename Real<T>::Type *W, int *Info, JacobiParams *P = nullptr) {
  using R = typename Real<T>::Type;
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  bool Gen = B != nullptr || Itype;
  if (!validMode(Job) || !validFill(U) || N < 0 || Lda < std::max(1, N) || !Info || (Gen && !validItype(Itype)) ||
      (Gen && Ldb < std::max(1, N)) || (Range && !validRange(Range)) ||
      (Range == 1002 && N > 0 && (Il < 1 || Iu < Il || Iu > N)) || (Range == 1003 && !(Vl < Vu)) ||
      (Range && !Meig))
    return CUSOLVER_STATUS_INVALID_VALUE;
  auto Found = std::make_shared<int>(0);
  bool Vec = Job == CUSOLVER_EIG_MODE_VECTOR;
  cusolverStatus_t St = submit(
      H,
      [=](T *A, T *B, R *W, int *Info) {
        int I = 0, M = N;
        if (N) {
          std::vector<T> A0, B0;
          if (P) { // sygvj: keep A and B for the residual ||A V - B V W||_F
            A0.assign(A, A + mat(Lda, N, N));
            B0.assign(B, B + mat(Ldb, N, N));
          }
          char J = Vec ? 'V' : 'N';
          if (!Range) {
            I = SymLa<T>::gvd(Itype, J, fillChar(U), N, A, Lda, B, Ldb, W);
          } else {
            std::vector<T> Z(size_t(N) * N);
            I = SymLa<T>::gvx(Itype ? Itype : 1, J, rangeChar(Range), fillChar(U), N, A, Lda, B, Ldb, Vl, Vu, Il, Iu, &M,
                              W, Z.data(), N);
            if (Vec) // the eigenvectors in A's first columns, as cuSOLVER leaves them
              for (int C = 0; C < M; ++C)
                std::copy(Z.begin() + size_t(C) * N, Z.begin() + size_t(C + 1) * N, A + size_t(C) * Lda);
          }
          if (P && !I && Vec) {
            double S = 0;
            bool Up = U == CUBLAS_FILL_MODE_UPPER;
            auto at = [&](const std::vector<T> &X, int Ld, int Row, int Col) {
              bool Stored = Up ? Row <= Col : Row >= Col;
              return Stored ? X[size_t(Col) * Ld + Row] : conjOf(X[size_t(Row) * Ld + Col]);
            };
            for (int C = 0; C < N; ++C)
              for (int Row = 0; Row < N; ++Row) {
                std::complex<double> Av = 0, Bv = 0;
                for (int K = 0; K < N; ++K) {
                  Av += wide(at(A0, Lda, Row, K)) * wide(A[size_t(C) * Lda + K]);
                  Bv += wide(at(B0, Ldb, Row, K)) * wide(A[size_t(C) * Lda + K]);
                }
                S += std::norm(Itype == 1 ? Av - double(W[C]) * Bv : std::complex<double>(0));
              }
            P->Residual = std::sqrt(S);
            P->Sweeps = 1;
          }
        }
        *Found = M;
        *Info = I;
      },
      libs::inout(A, mat(Lda, N, N)), libs::inout(B, Gen ? mat(Ldb, N, N) : 0), libs::out(W, size_t(N)),
      libs::out(Info, 1));
  if (St || !Range)
    return St;
  if (libs::wait(H->Stream)) // meig is host memory
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  *Meig = *Found;
  return CUSOLVER_STATUS_SUCCESS;
}



/// Runs a LAPACK routine that takes (work, lwork, info) last: a workspace query, then the call; returns info.
template <typename T, typename F> int withWork(F Call) {
  T Q{};
  int Lw = -1, I = 0;
  Call(&Q, &Lw, &I);
  Lw = lworkOf(Q);
  std::vector<T> W(static_cast<size_t>(Lw));
  Call(W.data(), &Lw, &I);
  return I;
}

inline char sideChar(cublasSideMode_t S) { return S == CUBLAS_SIDE_LEFT ? 'L' : 'R'; }
inline bool validSide(cublasSideMode_t S) { return S == CUBLAS_SIDE_LEFT || S == CUBLAS_SIDE_RIGHT; }



template <typename T> struct MiscLa;
#define MISC_LA(p, T)                                                                                                  \
  template <> struct MiscLa<T> {                                                                                       \
    static void trtri(char U, char D, int N, T *A, int Lda, int *I) { p##trtri_(&U, &D, &N, A, &Lda, I); }             \
    static void sytrs(char U, int N, int R, const T *A, int Lda, const int *P, T *B, int Ldb, int *I) {                \
      p##sytrs_(&U, &N, &R, A, &Lda, P, B, &Ldb, I);                                                                   \
    }                                                                                                                  \
    static void larft(char D, char S, int N, int K, T *V, int Ldv, const T *Tau, T *Tm, int Ldt) {                     \
      p##larft_(&D, &S, &N, &K, V, &Ldv, Tau, Tm, &Ldt);                                                               \
    }                                                                                                                  \
  };
MISC_LA(s, float)
MISC_LA(d, double)
MISC_LA(c, C32)
MISC_LA(z, C64)
#undef MISC_LA

/// geev on one matrix: W complex (n), VL/VR as LAPACK leaves them (null: not wanted).
template <typename T> int geev(int N, T *A, int Lda, std::complex<typename Real<T>::Type> *W, T *Vl, int Ldvl, T *Vr, int Ldvr) {
  using R = typename Real<T>::Type;
  char Jl = Vl ? 'V' : 'N', Jr = Vr ? 'V' : 'N';
  T Dummy{};
  int Ll = Vl ? Ldvl : 1, Lr = Vr ? Ldvr : 1;
  if constexpr (std::is_same_v<T, R>) {
    std::vector<R> Wr(static_cast<size_t>(N)), Wi(static_cast<size_t>(N));
    int I = withWork<T>([&](T *Wk, int *Lw, int *Info) {
      if constexpr (std::is_same_v<T, float>)
        sgeev_(&Jl, &Jr, &N, A, &Lda, Wr.data(), Wi.data(), Vl ? Vl : &Dummy, &Ll, Vr ? Vr : &Dummy, &Lr, Wk, Lw, Info);
      else
        dgeev_(&Jl, &Jr, &N, A, &Lda, Wr.data(), Wi.data(), Vl ? Vl : &Dummy, &Ll, Vr ? Vr : &Dummy, &Lr, Wk, Lw, Info);
    });
    for (int K = 0; K < N; ++K)
      W[K] = std::complex<R>(Wr[size_t(K)], Wi[size_t(K)]);
    return I;
  } else {
    std::vector<R> Rw(static_cast<size_t>(2 * std::max(N, 1)));
    return withWork<T>([&](T *Wk, int *Lw, int *Info) {
      if constexpr (std::is_same_v<T, C32>)
        cgeev_(&Jl, &Jr, &N, A, &Lda, W, Vl ? Vl : &Dummy, &Ll, Vr ? Vr : &Dummy, &Lr, Wk, Lw, Rw.data(), Info);
      else
        zgeev_(&Jl, &Jr, &N, A, &Lda, W, Vl ? Vl : &Dummy, &Ll, Vr ? Vr : &Dummy, &Lr, Wk, Lw, Rw.data(), Info);
    });
  }
}

inline cudaDataType complexOf(cudaDataType T) { return T == CUDA_R_32F ? CUDA_C_32F : T == CUDA_R_64F ? CUDA_C_64F : T; }



struct IrsParams {
  int Main = 0, Lowest = 0, Refinement = 1100; ///< cusolverPrecType_t (0: not set), cusolverIRSRefinement_t
  double Tol = 0, TolInner = 0;
  int MaxIters = 50, MaxItersInner = 50;
  bool Fallback = true;
};
struct IrsInfos {
  int Niters = 0, OuterNiters = 0, MaxIters = 50;
  bool WantResidual = false;
  std::vector<double> History;
};
inline constexpr cusolverStatus_t IrsParamsNotInitialized = static_cast<cusolverStatus_t>(12),
                           IrsParamsInvalidPrec = static_cast<cusolverStatus_t>(14),
                           IrsInfosNotInitialized = static_cast<cusolverStatus_t>(25);

inline IrsParams *irsParams(const void *P) { return libs::Live<IrsParams>::find(P); }
inline IrsInfos *irsInfos(const void *P) { return libs::Live<IrsInfos>::find(P); }

/// Runs Fn with a value of the element type of a main precision (CUSOLVER_R_64F 1203, R_32F 1204, C_64F 1213,
/// C_32F 1214).
template <typename F> cusolverStatus_t byPrecision(int Prec, F &&Fn) {
  switch (Prec) {
  case 1203: return Fn(double());
  case 1204: return Fn(float());
  case 1213: return Fn(C64());
  case 1214: return Fn(C32());
  default: return IrsParamsInvalidPrec;
  }
}

/// The max-norm of B - A X over all right-hand sides (host arrays after the call: the test HIP path and the CPU
/// device both see them as host memory only on the CPU device, so the history is computed there).
template <typename T>
inline double residualNorm(int M, int N, int Nrhs, const T *A, int Lda, const T *B, int Ldb, const T *X, int Ldx) {
  double R = 0;
  for (int J = 0; J < Nrhs; ++J)
    for (int I = 0; I < M; ++I) {
      std::complex<double> S = wide(B[size_t(J) * Ldb + I]);
      for (int K = 0; K < N; ++K)
        S -= wide(A[size_t(K) * Lda + I]) * wide(X[size_t(J) * Ldx + K]);
      R = std::max(R, std::abs(S));
    }
  return R;
}


inline cusolverStatus_t irsx(cusolverDnHandle_t Hd, void *Pp, void *Ip, bool Gels, int M, int N, int Nrhs, void *A, int Lda,
                      void *B, int Ldb, void *X, int Ldx, void *Work, size_t Bytes, int *Niters, int *Info) {
  IrsParams *P = irsParams(Pp);
  IrsInfos *I = irsInfos(Ip);
  if (!find(Hd))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!P)
    return IrsParamsNotInitialized;
  if (!I)
    return IrsInfosNotInitialized;
  if (!P->Main)
    return IrsParamsInvalidPrec;
  return byPrecision(P->Main, [&](auto Tag) {
    using T = decltype(Tag);
    cusolverStatus_t S = irs<T>(Hd, Gels, M, N, Nrhs, static_cast<T *>(A), Lda, static_cast<T *>(B), Ldb,
                                static_cast<T *>(X), Ldx, Work, Bytes, Niters, Info);
    if (S)
      return S;
    I->Niters = *Niters, I->OuterNiters = 0, I->MaxIters = P->MaxIters;
    I->History.clear();
    if (!I->WantResidual)
      return CUSOLVER_STATUS_SUCCESS;
    if (libs::cpuDevice()) { // the arrays are host memory there (the call waited for them)
      I->History = {0.0, residualNorm<T>(M, N, Nrhs, static_cast<T *>(A), Lda, static_cast<T *>(B), Ldb,
                                         static_cast<T *>(X), Ldx)};
      return CUSOLVER_STATUS_SUCCESS;
    }
    // A GPU: the residual from host copies, after the solve.
    auto Span = [](int Ld, int Cols, int Rows) { return Cols > 0 && Rows > 0 ? size_t(Ld) * (Cols - 1) + Rows : 0; };
    std::vector<T> Ha(Span(Lda, N, M)), Hb(Span(Ldb, Nrhs, M)), Hx(Span(Ldx, Nrhs, N));
    if (libs::wait(find(Hd)->Stream) || libs::toHost(Ha.data(), A, Ha.size() * sizeof(T)) ||
        libs::toHost(Hb.data(), B, Hb.size() * sizeof(T)) || libs::toHost(Hx.data(), X, Hx.size() * sizeof(T)))
      return CUSOLVER_STATUS_EXECUTION_FAILED;
    I->History = {0.0, residualNorm<T>(M, N, Nrhs, Ha.data(), Lda, Hb.data(), Ldb, Hx.data(), Ldx)};
    return CUSOLVER_STATUS_SUCCESS;
  });
}

} // namespace zluda::cusolver::dn

#endif // ZLUDA_LIBS_CUSOLVER_DNINTERNAL_H
