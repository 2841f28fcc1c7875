//===- CusolverDn.cpp - our libcusolver: dense factorizations over LAPACK --===//
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
/// correct, at the host's speed plus the copies.
#include "libs/common/LibSupport.h"
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


namespace zluda::cusolver {
namespace {

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
Handle *find(cusolverDnHandle_t H) { return libs::Live<Handle>::find(H); }

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
const roc::Api *rocFor(Handle *H) {
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
cusolverStatus_t fromRoc(roc::Status S) {
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
cusolverStatus_t rocDone(Handle *H, roc::Status S, int *Info) {
  if (S)
    return fromRoc(S);
  return cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(Info), 0, 1, H->Stream) ? CUSOLVER_STATUS_EXECUTION_FAILED
                                                                               : CUSOLVER_STATUS_SUCCESS;
}

/// The handle's device scratch of at least \p Bytes (grown after the stream is idle: earlier calls may use it).
void *scratch(Handle *H, size_t Bytes) {
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

int rocFill(cublasFillMode_t U) { return U == CUBLAS_FILL_MODE_UPPER ? roc::FillUpper : roc::FillLower; }
/// cuBLAS's operation as rocBLAS's; a real type's conjugate transpose is its transpose.
template <typename T> int rocOp(cublasOperation_t O) {
  return O == CUBLAS_OP_N ? roc::OpNone : O == CUBLAS_OP_C && IsComplex<T> ? roc::OpConjugate : roc::OpTranspose;
}
int rocSvect(signed char J) {
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
size_t mat(int64_t Ld, int64_t Rows, int64_t Cols) {
  return Rows > 0 && Cols > 0 ? size_t(Ld * (Cols - 1) + Rows) : 0;
}


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
cusolverStatus_t getrs(cusolverDnHandle_t Hd, cublasOperation_t Op, int N, int Nrhs, const T *A, int Lda,
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
cusolverStatus_t potrf(cusolverDnHandle_t Hd, cublasFillMode_t U, int N, T *A, int Lda, int *Info) {
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
cusolverStatus_t potrs(cusolverDnHandle_t Hd, cublasFillMode_t U, int N, int Nrhs, const T *A, int Lda, T *B, int Ldb,
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
cusolverStatus_t geqrf(cusolverDnHandle_t Hd, int M, int N, T *A, int Lda, T *Tau, int *Info) {
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
cusolverStatus_t orgqr(cusolverDnHandle_t Hd, int M, int N, int K, T *A, int Lda, const T *Tau, int *Info) {
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
cusolverStatus_t syevd(cusolverDnHandle_t Hd, cusolverEigMode_t Job, cublasFillMode_t Uplo, int N, T *A, int Lda,
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
  auto *H = new Handle;
  H->Ctx = Ctx;
  *Out = reinterpret_cast<cusolverDnHandle_t>(libs::Live<Handle>::add(H));
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t Hd) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  libs::wait(H->Stream);
  if (H->Roc)
    roc::api()->DestroyHandle(H->Roc);
  if (H->Scratch)
    cuMemFree_v2(H->Scratch);
  libs::Live<Handle>::destroy(H);
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

//===----------------------------------------------------------------------===//
// The 64-bit generic API (cusolverDnX*, PyTorch's): the same LAPACK routines,
// element types from cudaDataType (the data's type must be the compute
// type), sizes up to LAPACK's 32-bit integers, 64-bit pivots widened.
//===----------------------------------------------------------------------===//
namespace {

struct Params {
  int Unused = 0;
};

bool fits(int64_t V) { return V >= 0 && V <= INT32_MAX; }

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
cudaDataType realOf(cudaDataType T) { return T == CUDA_C_32F ? CUDA_R_32F : T == CUDA_C_64F ? CUDA_R_64F : T; }

cusolverStatus_t sizes(size_t *Dev, size_t *Host, size_t D) {
  if (!Dev || !Host)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Dev = D, *Host = 0;
  return CUSOLVER_STATUS_SUCCESS;
}

} // namespace

CUSOLVER_API cusolverStatus_t cusolverDnCreateParams(void **Out) {
  if (!Out)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Out = new Params;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnDestroyParams(void *P) {
  delete static_cast<Params *>(P);
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnSetAdvOptions(void *P, int, int Algo) {
  // CUSOLVER_ALG_0 (and ALG_1, the other algorithm of some routines) all map to LAPACK.
  return P && (Algo == 0 || Algo == 1) ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_INVALID_VALUE;
}

CUSOLVER_API cusolverStatus_t cusolverDnXgetrf_bufferSize(cusolverDnHandle_t H, void *, int64_t M, int64_t N,
                                                         cudaDataType TA, const void *, int64_t Lda,
                                                         cudaDataType TC, size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!fits(M) || !fits(N) || Lda < std::max<int64_t>(1, M) || TA != TC)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return sizes(Dev, Host, 16);
}
CUSOLVER_API cusolverStatus_t cusolverDnXgetrf(cusolverDnHandle_t Hd, void *, int64_t M, int64_t N, cudaDataType TA,
                                              void *A, int64_t Lda, int64_t *Ipiv, cudaDataType TC, void *, size_t,
                                              void *, size_t, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!fits(M) || !fits(N) || !fits(Lda) || Lda < std::max<int64_t>(1, M) || TA != TC || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    return submit(
        H,
        [=](T *P, int64_t *Ipiv, int *Info) {
      int Mi = int(M), Ni = int(N), L = int(Lda), I = 0;
      if (Mi && Ni) {
        if (Ipiv) {
          std::vector<int> Piv(static_cast<size_t>(std::min(Mi, Ni)));
          La<T>::getrf(&Mi, &Ni, P, &L, Piv.data(), &I);
          for (size_t K = 0; K < Piv.size(); ++K)
            Ipiv[K] = Piv[K];
        } else {
          I = luNoPivot(Mi, Ni, P, L);
        }
      }
      *Info = I;
        },
        libs::inout(static_cast<T *>(A), mat(Lda, M, N)), libs::out(Ipiv, size_t(std::min(M, N))),
        libs::out(Info, 1));
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXgetrs(cusolverDnHandle_t Hd, void *, cublasOperation_t Op, int64_t N,
                                              int64_t Nrhs, cudaDataType TA, const void *A, int64_t Lda,
                                              const int64_t *Ipiv, cudaDataType TB, void *B, int64_t Ldb, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validOp(Op) || !fits(N) || !fits(Nrhs) || !fits(Lda) || !fits(Ldb) || Lda < std::max<int64_t>(1, N) ||
      Ldb < std::max<int64_t>(1, N) || TA != TB || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    return submit(
        H,
        [=](T *A, int64_t *Ipiv, T *B, int *Info) {
      int Ni = int(N), R = int(Nrhs), La_ = int(Lda), Lb = int(Ldb), I = 0;
      char Tr = opChar(Op);
      if (Ni && R) {
        std::vector<int> Piv(static_cast<size_t>(Ni));
        for (int K = 0; K < Ni; ++K)
          Piv[static_cast<size_t>(K)] = Ipiv ? int(Ipiv[K]) : K + 1;
        La<T>::getrs(&Tr, &Ni, &R, A, &La_, Piv.data(), B, &Lb, &I);
      }
      *Info = I;
        },
        libs::in(static_cast<const T *>(A), mat(Lda, N, N)), libs::in(Ipiv, size_t(N)),
        libs::inout(static_cast<T *>(B), mat(Ldb, N, Nrhs)), libs::out(Info, 1));
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXpotrf_bufferSize(cusolverDnHandle_t H, void *, cublasFillMode_t U,
                                                         int64_t N, cudaDataType TA, const void *, int64_t Lda,
                                                         cudaDataType TC, size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || !fits(N) || Lda < std::max<int64_t>(1, N) || TA != TC)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return sizes(Dev, Host, 16);
}
CUSOLVER_API cusolverStatus_t cusolverDnXpotrf(cusolverDnHandle_t Hd, void *, cublasFillMode_t U, int64_t N,
                                              cudaDataType TA, void *A, int64_t Lda, cudaDataType TC, void *, size_t,
                                              void *, size_t, int *Info) {
  if (!fits(N) || !fits(Lda) || TA != TC)
    return find(Hd) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    return potrf<T>(Hd, U, int(N), static_cast<T *>(A), int(Lda), Info);
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXpotrs(cusolverDnHandle_t Hd, void *, cublasFillMode_t U, int64_t N,
                                              int64_t Nrhs, cudaDataType TA, const void *A, int64_t Lda,
                                              cudaDataType TB, void *B, int64_t Ldb, int *Info) {
  if (!fits(N) || !fits(Nrhs) || !fits(Lda) || !fits(Ldb) || TA != TB)
    return find(Hd) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    return potrs<T>(Hd, U, int(N), int(Nrhs), static_cast<const T *>(A), int(Lda), static_cast<T *>(B), int(Ldb),
                    Info);
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXgeqrf_bufferSize(cusolverDnHandle_t H, void *, int64_t M, int64_t N,
                                                         cudaDataType TA, const void *, int64_t Lda, cudaDataType TT,
                                                         const void *, cudaDataType TC, size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!fits(M) || !fits(N) || Lda < std::max<int64_t>(1, M) || TA != TC || TT != TA)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return sizes(Dev, Host, 16);
}
CUSOLVER_API cusolverStatus_t cusolverDnXgeqrf(cusolverDnHandle_t Hd, void *, int64_t M, int64_t N, cudaDataType TA,
                                              void *A, int64_t Lda, cudaDataType TT, void *Tau, cudaDataType TC,
                                              void *, size_t, void *, size_t, int *Info) {
  if (!fits(M) || !fits(N) || !fits(Lda) || TA != TC || TT != TA)
    return find(Hd) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    return geqrf<T>(Hd, int(M), int(N), static_cast<T *>(A), int(Lda), static_cast<T *>(Tau), Info);
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXsyevd_bufferSize(cusolverDnHandle_t H, void *, cusolverEigMode_t J,
                                                         cublasFillMode_t U, int64_t N, cudaDataType TA, const void *,
                                                         int64_t Lda, cudaDataType TW, const void *, cudaDataType TC,
                                                         size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || !fits(N) || Lda < std::max<int64_t>(1, N) || TA != TC || TW != realOf(TA) ||
      (J != CUSOLVER_EIG_MODE_NOVECTOR && J != CUSOLVER_EIG_MODE_VECTOR))
    return CUSOLVER_STATUS_INVALID_VALUE;
  return sizes(Dev, Host, 16);
}
CUSOLVER_API cusolverStatus_t cusolverDnXsyevd(cusolverDnHandle_t Hd, void *, cusolverEigMode_t J, cublasFillMode_t U,
                                              int64_t N, cudaDataType TA, void *A, int64_t Lda, cudaDataType TW,
                                              void *W, cudaDataType TC, void *, size_t, void *, size_t, int *Info) {
  if (!fits(N) || !fits(Lda) || TA != TC || TW != realOf(TA))
    return find(Hd) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    return syevd<T>(Hd, J, U, int(N), static_cast<T *>(A), int(Lda), static_cast<typename Real<T>::Type *>(W), Info);
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXgesvd_bufferSize(cusolverDnHandle_t H, void *, signed char, signed char,
                                                         int64_t M, int64_t N, cudaDataType TA, const void *, int64_t,
                                                         cudaDataType TS, const void *, cudaDataType TU, const void *,
                                                         int64_t, cudaDataType TV, const void *, int64_t,
                                                         cudaDataType TC, size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!fits(M) || !fits(N) || M < N || TA != TC || TS != realOf(TA) || TU != TA || TV != TA)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return sizes(Dev, Host, 16);
}
CUSOLVER_API cusolverStatus_t cusolverDnXgesvd(cusolverDnHandle_t Hd, void *, signed char Ju, signed char Jv,
                                              int64_t M, int64_t N, cudaDataType TA, void *A, int64_t Lda,
                                              cudaDataType TS, void *S, cudaDataType TU, void *U, int64_t Ldu,
                                              cudaDataType TV, void *Vt, int64_t Ldvt, cudaDataType TC, void *, size_t,
                                              void *, size_t, int *Info) {
  if (!fits(M) || !fits(N) || !fits(Lda) || !fits(Ldu) || !fits(Ldvt) || TA != TC || TS != realOf(TA) || TU != TA ||
      TV != TA)
    return find(Hd) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    return gesvd<T>(Hd, Ju, Jv, int(M), int(N), static_cast<T *>(A), int(Lda),
                    static_cast<typename Real<T>::Type *>(S), static_cast<T *>(U), int(Ldu), static_cast<T *>(Vt),
                    int(Ldvt), Info);
  });
}

//===----------------------------------------------------------------------===//
// The Jacobi eigen- and singular-value solvers (syevj, gesvdj, their batched
// forms) and gesvdaStridedBatched. cuSOLVER computes them by Jacobi
// rotations to a tolerance; here LAPACK's direct solvers (syevd, gesvd) give
// the same decompositions to working accuracy whatever tolerance is asked
// for, with the ordering the parameters ask for (sorted, as cuSOLVER's
// default, or left as LAPACK leaves them, which is sorted too). The
// parameter object reports, after a non-batched call, the residual of the
// result (syevj: ||V^H A V - W||_F; gesvdj: ||U^H A V - S||_F, the norm of
// what a Jacobi sweep would still rotate away) and one sweep (a direct
// solve). Batched gesvdj takes matrices of at most 32 rows and columns, as cuSOLVER's (its
// workspace query does not check that, the call does); batched syevj any order.
//===----------------------------------------------------------------------===//
namespace {

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
double residual(int M, int N, const std::vector<T> &A, const T *Q1, int Ld1, int C1, const T *Q2, int Ld2, int C2,
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
int jacobiEig(bool Vectors, cublasFillMode_t Uplo, int N, T *A, int Lda, typename Real<T>::Type *W, double *Res) {
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
int jacobiSvd(bool Vectors, bool Econ, int M, int N, T *A, int Lda, typename Real<T>::Type *S, T *U, int Ldu, T *V,
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

bool validMode(cusolverEigMode_t J) { return J == CUSOLVER_EIG_MODE_NOVECTOR || J == CUSOLVER_EIG_MODE_VECTOR; }

template <typename T>
cusolverStatus_t syevj(cusolverDnHandle_t Hd, cusolverEigMode_t Job, cublasFillMode_t Uplo, int N, T *A, int Lda,
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
cusolverStatus_t gesvdj(cusolverDnHandle_t Hd, cusolverEigMode_t Job, int Econ, int M, int N, T *A, int Lda,
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
cusolverStatus_t gesvda(cusolverDnHandle_t Hd, cusolverEigMode_t Job, int Rank, int M, int N, const T *A, int Lda,
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

JacobiParams *jacobiOf(const void *P) { return libs::Live<JacobiParams>::find(P); }

} // namespace

#define JACOBI_PARAMS(Kind, kind, InfoT)                                                                                      \
  CUSOLVER_API cusolverStatus_t cusolverDnCreate##Kind##Info(InfoT *Out) {                                              \
    if (!Out)                                                                                                          \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    *Out = reinterpret_cast<InfoT>(libs::Live<JacobiParams>::add(new JacobiParams));                                    \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDnDestroy##Kind##Info(InfoT P) {                                                \
    return libs::Live<JacobiParams>::destroy(P) ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_INVALID_VALUE;             \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDnX##kind##SetTolerance(InfoT P, double Tol) {                                  \
    JacobiParams *J = jacobiOf(P);                                                                                     \
    if (!J)                                                                                                            \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    J->Tolerance = Tol;                                                                                                \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDnX##kind##SetMaxSweeps(InfoT P, int Sweeps) {                                  \
    JacobiParams *J = jacobiOf(P);                                                                                     \
    if (!J)                                                                                                            \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    J->MaxSweeps = Sweeps;                                                                                             \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDnX##kind##SetSortEig(InfoT P, int Sort) {                                      \
    JacobiParams *J = jacobiOf(P);                                                                                     \
    if (!J)                                                                                                            \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    J->Sort = Sort;                                                                                                    \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDnX##kind##GetResidual(cusolverDnHandle_t H, InfoT P, double *Out) {           \
    JacobiParams *J = jacobiOf(P);                                                                                     \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (!J || !Out)                                                                                                    \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    if (J->Batched)                                                                                                    \
      return CUSOLVER_STATUS_NOT_SUPPORTED; /* as cuSOLVER: none after a batched call */                              \
    *Out = J->Residual;                                                                                                \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDnX##kind##GetSweeps(cusolverDnHandle_t H, InfoT P, int *Out) {                 \
    JacobiParams *J = jacobiOf(P);                                                                                     \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (!J || !Out)                                                                                                    \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    if (J->Batched)                                                                                                    \
      return CUSOLVER_STATUS_NOT_SUPPORTED;                                                                            \
    *Out = J->Sweeps;                                                                                                  \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }
JACOBI_PARAMS(Syevj, syevj, syevjInfo_t)
JACOBI_PARAMS(Gesvdj, gesvdj, gesvdjInfo_t)

/// Workspace sizes: LAPACK runs on its own, so one element is enough (a caller's buffer is only checked for).
#define JACOBI_FORMS(p, T, R, sy)                                                                                      \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##j_bufferSize(cusolverDnHandle_t H, cusolverEigMode_t, cublasFillMode_t, \
                                                                int N, const T *, int Lda, const R *, int *Lw,         \
                                                                syevjInfo_t) {                                         \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return N < 0 || Lda < std::max(1, N) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);                                \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##j(cusolverDnHandle_t H, cusolverEigMode_t J, cublasFillMode_t U,    \
                                                     int N, T *A, int Lda, R *W, T *, int, int *Info, syevjInfo_t P) { \
    return syevj<T>(H, J, U, N, A, Lda, W, Info, jacobiOf(P), 0);                                                      \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##jBatched_bufferSize(cusolverDnHandle_t H, cusolverEigMode_t,        \
                                                                       cublasFillMode_t, int N, const T *, int Lda,    \
                                                                       const R *, int *Lw, syevjInfo_t, int Batch) {   \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return N < 0 || Lda < std::max(1, N) || Batch < 1 ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);                   \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##jBatched(cusolverDnHandle_t H, cusolverEigMode_t J,                 \
                                                            cublasFillMode_t U, int N, T *A, int Lda, R *W, T *, int,  \
                                                            int *Info, syevjInfo_t P, int Batch) {                     \
    if (Batch < 1)                                                                                                     \
      return find(H) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;                                \
    return syevj<T>(H, J, U, N, A, Lda, W, Info, jacobiOf(P), Batch);                                                  \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##gesvdj_bufferSize(cusolverDnHandle_t H, cusolverEigMode_t, int, int M,  \
                                                                 int N, const T *, int Lda, const R *, const T *, int, \
                                                                 const T *, int, int *Lw, gesvdjInfo_t) {             \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return M < 0 || N < 0 || Lda < std::max(1, M) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);                       \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##gesvdj(cusolverDnHandle_t H, cusolverEigMode_t J, int Econ, int M,      \
                                                      int N, T *A, int Lda, R *S, T *U, int Ldu, T *V, int Ldv, T *,   \
                                                      int, int *Info, gesvdjInfo_t P) {                                \
    return gesvdj<T>(H, J, Econ, M, N, A, Lda, S, U, Ldu, V, Ldv, Info, jacobiOf(P), 0);                               \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##gesvdjBatched_bufferSize(                                               \
      cusolverDnHandle_t H, cusolverEigMode_t, int M, int N, const T *, int Lda, const R *, const T *, int,            \
      const T *, int, int *Lw, gesvdjInfo_t, int Batch) {                                                              \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    /* as NVIDIA's: sizes above 32 are refused by the call, not here */                                               \
    return M < 0 || N < 0 || Lda < std::max(1, M) || Batch < 1 ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);          \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##gesvdjBatched(cusolverDnHandle_t H, cusolverEigMode_t J, int M, int N,  \
                                                             T *A, int Lda, R *S, T *U, int Ldu, T *V, int Ldv, T *,   \
                                                             int, int *Info, gesvdjInfo_t P, int Batch) {              \
    if (Batch < 1)                                                                                                     \
      return find(H) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;                                \
    return gesvdj<T>(H, J, 0, M, N, A, Lda, S, U, Ldu, V, Ldv, Info, jacobiOf(P), Batch);                              \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##gesvdaStridedBatched_bufferSize(                                        \
      cusolverDnHandle_t H, cusolverEigMode_t, int Rank, int M, int N, const T *, int Lda, long long, const R *,       \
      long long, const T *, int, long long, const T *, int, long long, int *Lw, int Batch) {                           \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return M < N || N < 1 || Rank < 1 || Rank > N || Lda < M || Batch < 1 ? CUSOLVER_STATUS_INVALID_VALUE             \
                                                                          : size(Lw, 1);                               \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##gesvdaStridedBatched(                                                   \
      cusolverDnHandle_t H, cusolverEigMode_t J, int Rank, int M, int N, const T *A, int Lda, long long Sa, R *S,      \
      long long Ss, T *U, int Ldu, long long Su, T *V, int Ldv, long long Sv, T *, int, int *Info, double *RNrmF,      \
      int Batch) {                                                                                                     \
    return gesvda<T>(H, J, Rank, M, N, A, Lda, Sa, S, Ss, U, Ldu, Su, V, Ldv, Sv, Info, RNrmF, Batch);                 \
  }
JACOBI_FORMS(S, float, float, syev)
JACOBI_FORMS(D, double, double, syev)
JACOBI_FORMS(C, C32, float, heev)
JACOBI_FORMS(Z, C64, double, heev)
#undef JACOBI_FORMS

//===----------------------------------------------------------------------===//
// The iterative-refinement solvers cusolverDn<main><low>gesv and ...gels
// (ZZ, ZC, ZK, ZE, ZY, CC, CK, CE, CY, DD, DS, DH, DB, DX, SS, SH, SB, SX).
// cuSOLVER factors in the lower precision and refines to the main one; here
// the factorization is LAPACK's in the main precision, followed by one step
// of refinement (r = B - A X, A d = r, X += d), which is what `iter`
// reports (1; NVIDIA's reports the refinement steps it took on an H200: 0
// when its first solution already met the tolerance, 1-2 otherwise). A and B are left unchanged, dipiv is not written (as on the
// H200). gels solves least squares for m >= n by LAPACK's QR in the main
// precision (iter 1 when m == n; -1 when m > n: the main-precision solution
// without refinement). The call is blocking: `iter` is host memory.
//===----------------------------------------------------------------------===//
namespace {

constexpr cusolverStatus_t IrsParamsInvalid = static_cast<cusolverStatus_t>(13); // CUSOLVER_STATUS_IRS_PARAMS_INVALID

/// The workspace an IRS call asks for: room for a copy of A, of X and of the pivots (in bytes).
template <typename T> size_t irsBytes(int M, int N, int Nrhs) {
  return sizeof(T) * (size_t(std::max(M, 1)) * std::max(N, 1) + size_t(std::max(M, N)) * std::max(Nrhs, 1)) +
         sizeof(int) * size_t(std::max(N, 1)) + 256;
}

template <typename T>
cusolverStatus_t irs(cusolverDnHandle_t Hd, bool Gels, int M, int N, int Nrhs, T *A, int Lda, T *B, int Ldb, T *X,
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

} // namespace

#define IRS_FORMS(Pair, T)                                                                                             \
  CUSOLVER_API cusolverStatus_t cusolverDn##Pair##gesv_bufferSize(cusolverDnHandle_t H, int N, int Nrhs, T *, int,     \
                                                                  int *, T *, int, T *, int, void *, size_t *Bytes) {  \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (N < 0 || Nrhs < 0)                                                                                             \
      return IrsParamsInvalid;                                                                                         \
    if (!Bytes)                                                                                                        \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    *Bytes = irsBytes<T>(N, N, Nrhs);                                                                                  \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##Pair##gesv(cusolverDnHandle_t H, int N, int Nrhs, T *A, int Lda, int *,    \
                                                       T *B, int Ldb, T *X, int Ldx, void *W, size_t Bytes, int *It,   \
                                                       int *Info) {                                                    \
    return irs<T>(H, false, N, N, Nrhs, A, Lda, B, Ldb, X, Ldx, W, Bytes, It, Info);                                   \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##Pair##gels_bufferSize(cusolverDnHandle_t H, int M, int N, int Nrhs, T *,   \
                                                                  int, T *, int, T *, int, void *, size_t *Bytes) {    \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (M < 0 || N < 0 || Nrhs < 0 || M < N)                                                                           \
      return IrsParamsInvalid;                                                                                         \
    if (!Bytes)                                                                                                        \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    *Bytes = irsBytes<T>(M, N, Nrhs);                                                                                  \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##Pair##gels(cusolverDnHandle_t H, int M, int N, int Nrhs, T *A, int Lda,    \
                                                       T *B, int Ldb, T *X, int Ldx, void *W, size_t Bytes, int *It,   \
                                                       int *Info) {                                                    \
    return irs<T>(H, true, M, N, Nrhs, A, Lda, B, Ldb, X, Ldx, W, Bytes, It, Info);                                    \
  }
IRS_FORMS(ZZ, C64)
IRS_FORMS(ZC, C64)
IRS_FORMS(ZK, C64)
IRS_FORMS(ZE, C64)
IRS_FORMS(ZY, C64)
IRS_FORMS(CC, C32)
IRS_FORMS(CK, C32)
IRS_FORMS(CE, C32)
IRS_FORMS(CY, C32)
IRS_FORMS(DD, double)
IRS_FORMS(DS, double)
IRS_FORMS(DH, double)
IRS_FORMS(DB, double)
IRS_FORMS(DX, double)
IRS_FORMS(SS, float)
IRS_FORMS(SH, float)
IRS_FORMS(SB, float)
IRS_FORMS(SX, float)
#undef IRS_FORMS

//===----------------------------------------------------------------------===//
// Symmetric indefinite (sytrf, sytri), Cholesky inverse (potri), batched
// Cholesky (potrfBatched, potrsBatched), the generalized eigenproblems
// (sygvd/hegvd, sygvdx/hegvdx, sygvj/hegvj) and the partial spectrum
// (syevdx/heevdx): LAPACK's routines of the same meaning (sytrf, sytri,
// potri, potrf/potrs, sygvd/hegvd, syevx/heevx, sygvx/hegvx) with cuSOLVER's
// argument order; `info` as LAPACK reports it (cuSOLVER's convention);
// `meig` in host memory (those calls block). The complex sytrf/sytri are
// the complex symmetric (not Hermitian) ones, as cuSOLVER's.
//===----------------------------------------------------------------------===//
namespace {

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

bool validItype(int It) { return It >= 1 && It <= 3; }
bool validRange(int R) { return R == 1001 || R == 1002 || R == 1003; } // ALL, I, V
char rangeChar(int R) { return R == 1001 ? 'A' : R == 1002 ? 'I' : 'V'; }

template <typename T>
cusolverStatus_t sytrf(cusolverDnHandle_t Hd, cublasFillMode_t U, int N, T *A, int Lda, int *Ipiv, int *Info) {
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
cusolverStatus_t sytri(cusolverDnHandle_t Hd, cublasFillMode_t U, int N, T *A, int Lda, const int *Ipiv, int *Info) {
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
cusolverStatus_t potri(cusolverDnHandle_t Hd, cublasFillMode_t U, int N, T *A, int Lda, int *Info) {
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
cusolverStatus_t potrBatchedStaged(Handle *H, bool Solve, char Uc, int N, int Nrhs, T *const *A, int Lda,
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
cusolverStatus_t potrBatched(cusolverDnHandle_t Hd, bool Solve, cublasFillMode_t U, int N, int Nrhs, T *const *A,
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
cusolverStatus_t eigen(cusolverDnHandle_t Hd, int Itype, cusolverEigMode_t Job, int Range, cublasFillMode_t U, int N,
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

} // namespace

/// Workspace queries: LAPACK works on its own, one element asked for.
#define SYM_FORMS(p, T, R, sy, he)                                                                                     \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sytrf_bufferSize(cusolverDnHandle_t H, int N, T *, int Lda, int *Lw) {  \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return N < 0 || Lda < std::max(1, N) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);                                \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sytrf(cusolverDnHandle_t H, cublasFillMode_t U, int N, T *A, int Lda,   \
                                                     int *Ipiv, T *, int, int *Info) {                                 \
    return sytrf<T>(H, U, N, A, Lda, Ipiv, Info);                                                                      \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sytri_bufferSize(cusolverDnHandle_t H, cublasFillMode_t U, int N, T *,  \
                                                                int Lda, const int *, int *Lw) {                       \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return !validFill(U) || N < 0 || Lda < std::max(1, N) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);               \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sytri(cusolverDnHandle_t H, cublasFillMode_t U, int N, T *A, int Lda,   \
                                                     const int *Ipiv, T *, int, int *Info) {                           \
    return sytri<T>(H, U, N, A, Lda, Ipiv, Info);                                                                      \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##potri_bufferSize(cusolverDnHandle_t H, cublasFillMode_t U, int N, T *,  \
                                                                int Lda, int *Lw) {                                    \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return !validFill(U) || N < 0 || Lda < std::max(1, N) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);               \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##potri(cusolverDnHandle_t H, cublasFillMode_t U, int N, T *A, int Lda,   \
                                                     T *, int, int *Info) {                                            \
    return potri<T>(H, U, N, A, Lda, Info);                                                                            \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##potrfBatched(cusolverDnHandle_t H, cublasFillMode_t U, int N,           \
                                                            T *A[], int Lda, int *Info, int Batch) {                   \
    return potrBatched<T>(H, false, U, N, 0, A, Lda, nullptr, 0, Info, Batch);                                         \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##potrsBatched(cusolverDnHandle_t H, cublasFillMode_t U, int N, int Nrhs, \
                                                            T *A[], int Lda, T *B[], int Ldb, int *Info, int Batch) {  \
    return potrBatched<T>(H, true, U, N, Nrhs, A, Lda, B, Ldb, Info, Batch);                                           \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##gvd_bufferSize(                                                     \
      cusolverDnHandle_t H, cusolverEigType_t, cusolverEigMode_t, cublasFillMode_t, int N, const T *, int Lda,         \
      const T *, int Ldb, const R *, int *Lw) {                                                                        \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return N < 0 || Lda < std::max(1, N) || Ldb < std::max(1, N) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);        \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##gvd(cusolverDnHandle_t H, cusolverEigType_t It, cusolverEigMode_t J, \
                                                       cublasFillMode_t U, int N, T *A, int Lda, T *B, int Ldb, R *W,  \
                                                       T *, int, int *Info) {                                          \
    return eigen<T>(H, int(It), J, 0, U, N, A, Lda, B, Ldb, 0, 0, 0, 0, nullptr, W, Info);                             \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##gvdx_bufferSize(                                                    \
      cusolverDnHandle_t H, cusolverEigType_t, cusolverEigMode_t, cusolverEigRange_t, cublasFillMode_t, int N,         \
      const T *, int Lda, const T *, int Ldb, R, R, int, int, int *, const R *, int *Lw) {                             \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return N < 0 || Lda < std::max(1, N) || Ldb < std::max(1, N) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);        \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##gvdx(                                                               \
      cusolverDnHandle_t H, cusolverEigType_t It, cusolverEigMode_t J, cusolverEigRange_t Rg, cublasFillMode_t U,      \
      int N, T *A, int Lda, T *B, int Ldb, R Vl, R Vu, int Il, int Iu, int *Meig, R *W, T *, int, int *Info) {         \
    return eigen<T>(H, int(It), J, int(Rg), U, N, A, Lda, B, Ldb, Vl, Vu, Il, Iu, Meig, W, Info);                      \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##he##evdx_bufferSize(                                                    \
      cusolverDnHandle_t H, cusolverEigMode_t, cusolverEigRange_t, cublasFillMode_t, int N, const T *, int Lda, R, R,  \
      int, int, int *, const R *, int *Lw) {                                                                           \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return N < 0 || Lda < std::max(1, N) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);                                \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##he##evdx(cusolverDnHandle_t H, cusolverEigMode_t J,                     \
                                                        cusolverEigRange_t Rg, cublasFillMode_t U, int N, T *A,        \
                                                        int Lda, R Vl, R Vu, int Il, int Iu, int *Meig, R *W, T *,     \
                                                        int, int *Info) {                                              \
    return eigen<T>(H, 0, J, int(Rg), U, N, A, Lda, nullptr, 0, Vl, Vu, Il, Iu, Meig, W, Info);                        \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##gvj_bufferSize(cusolverDnHandle_t H, cusolverEigType_t,             \
                                                                  cusolverEigMode_t, cublasFillMode_t, int N,          \
                                                                  const T *, int Lda, const T *, int Ldb, const R *,   \
                                                                  int *Lw, syevjInfo_t) {                              \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    return N < 0 || Lda < std::max(1, N) || Ldb < std::max(1, N) ? CUSOLVER_STATUS_INVALID_VALUE : size(Lw, 1);        \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##p##sy##gvj(cusolverDnHandle_t H, cusolverEigType_t It, cusolverEigMode_t J, \
                                                       cublasFillMode_t U, int N, T *A, int Lda, T *B, int Ldb, R *W,  \
                                                       T *, int, int *Info, syevjInfo_t P) {                           \
    JacobiParams *Jp = jacobiOf(P);                                                                                    \
    if (Jp)                                                                                                            \
      Jp->Batched = false;                                                                                             \
    return eigen<T>(H, int(It), J, 0, U, N, A, Lda, B, Ldb, 0, 0, 0, 0, nullptr, W, Info, Jp);                         \
  }
SYM_FORMS(S, float, float, sy, sy)
SYM_FORMS(D, double, double, sy, sy)
SYM_FORMS(C, C32, float, he, he)
SYM_FORMS(Z, C64, double, he, he)
#undef SYM_FORMS

//===----------------------------------------------------------------------===//
// Reductions to bidiagonal and tridiagonal form and their orthogonal
// factors: gebrd (m >= n; for m < n NVIDIA's sizes the workspace and then
// answers NOT_SUPPORTED, observed on the H200, as ours), orgbr/ungbr (side LEFT: Q, RIGHT:
// P^H), sytrd/hetrd, orgtr/ungtr, ormtr/unmtr, as LAPACK's (workspace
// queried inside, the caller's only checked for).
//===----------------------------------------------------------------------===//
namespace {

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

char sideChar(cublasSideMode_t S) { return S == CUBLAS_SIDE_LEFT ? 'L' : 'R'; }
bool validSide(cublasSideMode_t S) { return S == CUBLAS_SIDE_LEFT || S == CUBLAS_SIDE_RIGHT; }

} // namespace

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

//===----------------------------------------------------------------------===//
// More of the 64-bit generic API: Xtrtri, Xsytrs (sytrf's pivots, 64-bit),
// Xsyevdx, XsyevBatched (matrices lda * n apart), Xgeev (general matrices:
// LAPACK's geev; for real A the eigenvalues are complex of A's precision
// and the eigenvectors real, a complex pair's vectors in two columns, as
// LAPACK packs them). Sizes up to LAPACK's 32-bit integers.
//===----------------------------------------------------------------------===//
namespace {

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

cudaDataType complexOf(cudaDataType T) { return T == CUDA_R_32F ? CUDA_C_32F : T == CUDA_R_64F ? CUDA_C_64F : T; }

} // namespace

CUSOLVER_API cusolverStatus_t cusolverDnXtrtri_bufferSize(cusolverDnHandle_t H, cublasFillMode_t U,
                                                         cublasDiagType_t D, int64_t N, cudaDataType TA, void *,
                                                         int64_t Lda, size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || (D != CUBLAS_DIAG_NON_UNIT && D != CUBLAS_DIAG_UNIT) || !fits(N) ||
      Lda < std::max<int64_t>(1, N) || !fits(Lda))
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto) { return sizes(Dev, Host, 16); });
}
CUSOLVER_API cusolverStatus_t cusolverDnXtrtri(cusolverDnHandle_t Hd, cublasFillMode_t U, cublasDiagType_t D,
                                              int64_t N, cudaDataType TA, void *A, int64_t Lda, void *, size_t, void *,
                                              size_t, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || (D != CUBLAS_DIAG_NON_UNIT && D != CUBLAS_DIAG_UNIT) || !fits(N) || !fits(Lda) ||
      Lda < std::max<int64_t>(1, N) || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    int Ni = int(N), L = int(Lda);
    return submit(
        H,
        [=](T *A, int *Info) {
          int I = 0;
          if (Ni)
            MiscLa<T>::trtri(fillChar(U), D == CUBLAS_DIAG_UNIT ? 'U' : 'N', Ni, A, L, &I);
          *Info = I;
        },
        libs::inout(static_cast<T *>(A), mat(L, Ni, Ni)), libs::out(Info, 1));
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXsytrs_bufferSize(cusolverDnHandle_t H, cublasFillMode_t U, int64_t N,
                                                         int64_t Nrhs, cudaDataType TA, const void *, int64_t Lda,
                                                         const int64_t *, cudaDataType TB, void *, int64_t Ldb,
                                                         size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || !fits(N) || !fits(Nrhs) || Lda < std::max<int64_t>(1, N) || Ldb < std::max<int64_t>(1, N) ||
      TA != TB)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto) { return sizes(Dev, Host, 16); });
}
CUSOLVER_API cusolverStatus_t cusolverDnXsytrs(cusolverDnHandle_t Hd, cublasFillMode_t U, int64_t N, int64_t Nrhs,
                                              cudaDataType TA, const void *A, int64_t Lda, const int64_t *Ipiv,
                                              cudaDataType TB, void *B, int64_t Ldb, void *, size_t, void *, size_t,
                                              int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || !fits(N) || !fits(Nrhs) || !fits(Lda) || !fits(Ldb) || Lda < std::max<int64_t>(1, N) ||
      Ldb < std::max<int64_t>(1, N) || TA != TB || !Info || (N && !Ipiv))
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    int Ni = int(N), R = int(Nrhs), La_ = int(Lda), Lb = int(Ldb);
    return submit(
        H,
        [=](T *A, int64_t *Ipiv, T *B, int *Info) {
          int I = 0;
          if (Ni && R) {
            std::vector<int> P(Ipiv, Ipiv + Ni); // 64-bit pivots narrowed for LAPACK
            MiscLa<T>::sytrs(fillChar(U), Ni, R, A, La_, P.data(), B, Lb, &I);
          }
          *Info = I;
        },
        libs::in(static_cast<const T *>(A), mat(La_, Ni, Ni)), libs::in(Ipiv, size_t(Ni)),
        libs::inout(static_cast<T *>(B), mat(Lb, Ni, R)), libs::out(Info, 1));
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXsyevdx_bufferSize(cusolverDnHandle_t H, void *, cusolverEigMode_t J,
                                                          cusolverEigRange_t Rg, cublasFillMode_t U, int64_t N,
                                                          cudaDataType TA, const void *, int64_t Lda, void *, void *,
                                                          int64_t, int64_t, int64_t *, cudaDataType TW, const void *,
                                                          cudaDataType TC, size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validMode(J) || !validRange(Rg) || !validFill(U) || !fits(N) || Lda < std::max<int64_t>(1, N) || TA != TC ||
      TW != realOf(TA))
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto) { return sizes(Dev, Host, 16); });
}
CUSOLVER_API cusolverStatus_t cusolverDnXsyevdx(cusolverDnHandle_t Hd, void *, cusolverEigMode_t J,
                                               cusolverEigRange_t Rg, cublasFillMode_t U, int64_t N, cudaDataType TA,
                                               void *A, int64_t Lda, void *Vl, void *Vu, int64_t Il, int64_t Iu,
                                               int64_t *Meig, cudaDataType TW, void *W, cudaDataType TC, void *,
                                               size_t, void *, size_t, int *Info) {
  if (!fits(N) || !fits(Lda) || !fits(Il) || !fits(Iu) || TA != TC || TW != realOf(TA) || !Meig ||
      (Rg == CUSOLVER_EIG_RANGE_V && (!Vl || !Vu)))
    return find(Hd) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    using R = typename Real<T>::Type;
    R L = Rg == CUSOLVER_EIG_RANGE_V ? *static_cast<R *>(Vl) : R(0), Hi = Rg == CUSOLVER_EIG_RANGE_V ? *static_cast<R *>(Vu) : R(0);
    int M = 0;
    cusolverStatus_t S = eigen<T>(Hd, 0, J, int(Rg), U, int(N), static_cast<T *>(A), int(Lda), nullptr, 0, L, Hi,
                                  int(Il), int(Iu), &M, static_cast<R *>(W), Info);
    if (!S)
      *Meig = M;
    return S;
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXsyevBatched_bufferSize(cusolverDnHandle_t H, void *, cusolverEigMode_t J,
                                                               cublasFillMode_t U, int64_t N, cudaDataType TA,
                                                               const void *, int64_t Lda, cudaDataType TW,
                                                               const void *, cudaDataType TC, size_t *Dev,
                                                               size_t *Host, int64_t Batch) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validMode(J) || !validFill(U) || !fits(N) || Lda < std::max<int64_t>(1, N) || TA != TC || TW != realOf(TA) ||
      Batch < 1 || !fits(Batch))
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto) { return sizes(Dev, Host, 16); });
}
CUSOLVER_API cusolverStatus_t cusolverDnXsyevBatched(cusolverDnHandle_t Hd, void *, cusolverEigMode_t J,
                                                    cublasFillMode_t U, int64_t N, cudaDataType TA, void *A,
                                                    int64_t Lda, cudaDataType TW, void *W, cudaDataType TC, void *,
                                                    size_t, void *, size_t, int *Info, int64_t Batch) {
  if (!fits(N) || !fits(Lda) || TA != TC || TW != realOf(TA) || Batch < 1 || !fits(Batch))
    return find(Hd) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  // As syevj's batched form (the Jacobi parameters aside): LAPACK's syevd on each matrix.
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    return syevj<T>(Hd, J, U, int(N), static_cast<T *>(A), int(Lda), static_cast<typename Real<T>::Type *>(W), Info,
                    nullptr, int(Batch));
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXgeev_bufferSize(cusolverDnHandle_t H, void *, cusolverEigMode_t Jl,
                                                        cusolverEigMode_t Jr, int64_t N, cudaDataType TA,
                                                        const void *, int64_t Lda, cudaDataType TW, const void *,
                                                        cudaDataType TVl, const void *, int64_t, cudaDataType TVr,
                                                        const void *, int64_t, cudaDataType TC, size_t *Dev,
                                                        size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validMode(Jl) || !validMode(Jr) || !fits(N) || Lda < std::max<int64_t>(1, N) || TA != TC ||
      TW != complexOf(TA) || TVl != TA || TVr != TA)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto) { return sizes(Dev, Host, 16); });
}
CUSOLVER_API cusolverStatus_t cusolverDnXgeev(cusolverDnHandle_t Hd, void *, cusolverEigMode_t Jl,
                                             cusolverEigMode_t Jr, int64_t N, cudaDataType TA, void *A, int64_t Lda,
                                             cudaDataType TW, void *W, cudaDataType TVl, void *Vl, int64_t Ldvl,
                                             cudaDataType TVr, void *Vr, int64_t Ldvr, cudaDataType TC, void *,
                                             size_t, void *, size_t, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  bool Left = Jl == CUSOLVER_EIG_MODE_VECTOR, Right = Jr == CUSOLVER_EIG_MODE_VECTOR;
  if (!validMode(Jl) || !validMode(Jr) || !fits(N) || !fits(Lda) || Lda < std::max<int64_t>(1, N) || TA != TC ||
      TW != complexOf(TA) || TVl != TA || TVr != TA || !Info || (Left && (Ldvl < std::max<int64_t>(1, N) || !Vl)) ||
      (Right && (Ldvr < std::max<int64_t>(1, N) || !Vr)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    using Cw = std::complex<typename Real<T>::Type>;
    int Ni = int(N), L = int(Lda), Ll = int(Ldvl), Lr = int(Ldvr);
    return submit(
        H,
        [=](T *A, Cw *W, T *Vl, T *Vr, int *Info) {
          *Info = Ni ? geev<T>(Ni, A, L, W, Left ? Vl : nullptr, Ll, Right ? Vr : nullptr, Lr) : 0;
        },
        libs::inout(static_cast<T *>(A), mat(L, Ni, Ni)), libs::out(static_cast<Cw *>(W), size_t(Ni)),
        libs::out(Left ? static_cast<T *>(Vl) : nullptr, Left ? mat(Ll, Ni, Ni) : 0),
        libs::out(Right ? static_cast<T *>(Vr) : nullptr, Right ? mat(Lr, Ni, Ni) : 0), libs::out(Info, 1));
  });
}

//===----------------------------------------------------------------------===//
// The generic iterative-refinement API (cusolverDnIRSParams/IRSInfos,
// IRSXgesv, IRSXgels): the solve is the typed solvers' (irs<T>: main
// precision factorization, one refinement step), chosen by the main
// precision; the infos report its steps, the outer iterations (0: no GMRES)
// and, when requested, the residual history (the max-norm of B - A X over
// the right-hand sides, before and after the step). Xgesvdp (the polar
// decomposition's SVD) and Xgesvdr (the randomized rank-k SVD) are LAPACK's
// SVD: exact where cuSOLVER's are approximations.
//===----------------------------------------------------------------------===//
namespace {

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
constexpr cusolverStatus_t IrsParamsNotInitialized = static_cast<cusolverStatus_t>(12),
                           IrsParamsInvalidPrec = static_cast<cusolverStatus_t>(14),
                           IrsInfosNotInitialized = static_cast<cusolverStatus_t>(25);

IrsParams *irsParams(const void *P) { return libs::Live<IrsParams>::find(P); }
IrsInfos *irsInfos(const void *P) { return libs::Live<IrsInfos>::find(P); }

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
double residualNorm(int M, int N, int Nrhs, const T *A, int Lda, const T *B, int Ldb, const T *X, int Ldx) {
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

} // namespace

CUSOLVER_API cusolverStatus_t cusolverDnIRSParamsCreate(void **Out) {
  if (!Out)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Out = libs::Live<IrsParams>::add(new IrsParams);
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSParamsDestroy(void *P) {
  return libs::Live<IrsParams>::destroy(P) ? CUSOLVER_STATUS_SUCCESS : IrsParamsNotInitialized;
}
#define IRS_PARAM_SET(Name, Type, Body)                                                                                \
  CUSOLVER_API cusolverStatus_t cusolverDnIRSParams##Name(void *Pp, Type V) {                                          \
    IrsParams *P = irsParams(Pp);                                                                                      \
    if (!P)                                                                                                            \
      return IrsParamsNotInitialized;                                                                                  \
    Body;                                                                                                              \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }
IRS_PARAM_SET(SetRefinementSolver, int, P->Refinement = V)
IRS_PARAM_SET(SetSolverMainPrecision, int, P->Main = V)
IRS_PARAM_SET(SetSolverLowestPrecision, int, P->Lowest = V)
IRS_PARAM_SET(SetTol, double, P->Tol = V)
IRS_PARAM_SET(SetTolInner, double, P->TolInner = V)
IRS_PARAM_SET(SetMaxIters, int, P->MaxIters = V)
IRS_PARAM_SET(SetMaxItersInner, int, P->MaxItersInner = V)
#undef IRS_PARAM_SET
CUSOLVER_API cusolverStatus_t cusolverDnIRSParamsSetSolverPrecisions(void *Pp, int Main, int Lowest) {
  IrsParams *P = irsParams(Pp);
  if (!P)
    return IrsParamsNotInitialized;
  P->Main = Main, P->Lowest = Lowest;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSParamsGetMaxIters(void *Pp, int *Out) {
  IrsParams *P = irsParams(Pp);
  if (!P)
    return IrsParamsNotInitialized;
  if (!Out)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Out = P->MaxIters;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSParamsEnableFallback(void *Pp) {
  IrsParams *P = irsParams(Pp);
  if (!P)
    return IrsParamsNotInitialized;
  P->Fallback = true;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSParamsDisableFallback(void *Pp) {
  IrsParams *P = irsParams(Pp);
  if (!P)
    return IrsParamsNotInitialized;
  P->Fallback = false;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSInfosCreate(void **Out) {
  if (!Out)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Out = libs::Live<IrsInfos>::add(new IrsInfos);
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSInfosDestroy(void *I) {
  return libs::Live<IrsInfos>::destroy(I) ? CUSOLVER_STATUS_SUCCESS : IrsInfosNotInitialized;
}
#define IRS_INFO_GET(Name, Field)                                                                                      \
  CUSOLVER_API cusolverStatus_t cusolverDnIRSInfos##Name(void *Ip, int *Out) {                                         \
    IrsInfos *I = irsInfos(Ip);                                                                                        \
    if (!I)                                                                                                            \
      return IrsInfosNotInitialized;                                                                                   \
    if (!Out)                                                                                                          \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    *Out = I->Field;                                                                                                   \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }
IRS_INFO_GET(GetNiters, Niters)
IRS_INFO_GET(GetOuterNiters, OuterNiters)
IRS_INFO_GET(GetMaxIters, MaxIters)
#undef IRS_INFO_GET
CUSOLVER_API cusolverStatus_t cusolverDnIRSInfosRequestResidual(void *Ip) {
  IrsInfos *I = irsInfos(Ip);
  if (!I)
    return IrsInfosNotInitialized;
  I->WantResidual = true;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSInfosGetResidualHistory(void *Ip, void **Out) {
  IrsInfos *I = irsInfos(Ip);
  if (!I)
    return IrsInfosNotInitialized;
  if (!Out || !I->WantResidual)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Out = I->History.data();
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSXgesv_bufferSize(cusolverDnHandle_t H, void *Pp, int N, int Nrhs,
                                                           size_t *Bytes) {
  IrsParams *P = irsParams(Pp);
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!P)
    return IrsParamsNotInitialized;
  if (N < 0 || Nrhs < 0 || !Bytes)
    return IrsParamsInvalid;
  return byPrecision(P->Main, [&](auto Tag) {
    *Bytes = irsBytes<decltype(Tag)>(N, N, Nrhs);
    return CUSOLVER_STATUS_SUCCESS;
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSXgels_bufferSize(cusolverDnHandle_t H, void *Pp, int M, int N, int Nrhs,
                                                           size_t *Bytes) {
  IrsParams *P = irsParams(Pp);
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!P)
    return IrsParamsNotInitialized;
  if (M < 0 || N < 0 || Nrhs < 0 || M < N || !Bytes)
    return IrsParamsInvalid;
  return byPrecision(P->Main, [&](auto Tag) {
    *Bytes = irsBytes<decltype(Tag)>(M, N, Nrhs);
    return CUSOLVER_STATUS_SUCCESS;
  });
}
namespace {
cusolverStatus_t irsx(cusolverDnHandle_t Hd, void *Pp, void *Ip, bool Gels, int M, int N, int Nrhs, void *A, int Lda,
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
} // namespace
CUSOLVER_API cusolverStatus_t cusolverDnIRSXgesv(cusolverDnHandle_t H, void *P, void *I, int N, int Nrhs, void *A,
                                                int Lda, void *B, int Ldb, void *X, int Ldx, void *W, size_t Bytes,
                                                int *Niters, int *Info) {
  return irsx(H, P, I, false, N, N, Nrhs, A, Lda, B, Ldb, X, Ldx, W, Bytes, Niters, Info);
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSXgels(cusolverDnHandle_t H, void *P, void *I, int M, int N, int Nrhs,
                                                void *A, int Lda, void *B, int Ldb, void *X, int Ldx, void *W,
                                                size_t Bytes, int *Niters, int *Info) {
  return irsx(H, P, I, true, M, N, Nrhs, A, Lda, B, Ldb, X, Ldx, W, Bytes, Niters, Info);
}

CUSOLVER_API cusolverStatus_t cusolverDnXgesvdp_bufferSize(cusolverDnHandle_t H, void *, cusolverEigMode_t J, int Econ,
                                                          int64_t M, int64_t N, cudaDataType TA, const void *, int64_t Lda,
                                                          cudaDataType TS, const void *, cudaDataType TU, const void *,
                                                          int64_t, cudaDataType TV, const void *, int64_t,
                                                          cudaDataType TC, size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validMode(J) || (Econ != 0 && Econ != 1) || !fits(M) || !fits(N) || Lda < std::max<int64_t>(1, M) || TA != TC ||
      TS != realOf(TA) || TU != TA || TV != TA)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto) { return sizes(Dev, Host, 16); });
}
CUSOLVER_API cusolverStatus_t cusolverDnXgesvdp(cusolverDnHandle_t Hd, void *, cusolverEigMode_t J, int Econ, int64_t M,
                                               int64_t N, cudaDataType TA, void *A, int64_t Lda, cudaDataType TS,
                                               void *S, cudaDataType TU, void *U, int64_t Ldu, cudaDataType TV, void *V,
                                               int64_t Ldv, cudaDataType TC, void *, size_t, void *, size_t, int *Info,
                                               double *ErrSigma) {
  if (!fits(M) || !fits(N) || !fits(Lda) || !fits(Ldu) || !fits(Ldv) || TA != TC || TS != realOf(TA) || TU != TA ||
      TV != TA)
    return find(Hd) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  // The residual of the result, the perturbation h_err_sigma reports (host memory: the call waits).
  JacobiParams Res;
  cusolverStatus_t St = byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    return gesvdj<T>(Hd, J, Econ, int(M), int(N), static_cast<T *>(A), int(Lda),
                     static_cast<typename Real<T>::Type *>(S), static_cast<T *>(U), int(Ldu), static_cast<T *>(V),
                     int(Ldv), Info, &Res, 0);
  });
  if (St)
    return St;
  if (libs::wait(H->Stream))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  if (ErrSigma)
    *ErrSigma = Res.Residual;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnXgesvdr_bufferSize(cusolverDnHandle_t H, void *, signed char Ju, signed char Jv,
                                                          int64_t M, int64_t N, int64_t K, int64_t P, int64_t Iters,
                                                          cudaDataType TA, const void *, int64_t Lda, cudaDataType TS,
                                                          const void *, cudaDataType TU, const void *, int64_t,
                                                          cudaDataType TV, const void *, int64_t, cudaDataType TC,
                                                          size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if ((Ju != 'S' && Ju != 'N') || (Jv != 'S' && Jv != 'N') || !fits(M) || !fits(N) || K < 1 ||
      K > std::min(M, N) || P < 0 || Iters < 0 || Lda < std::max<int64_t>(1, M) || TA != TC || TS != realOf(TA) ||
      TU != TA || TV != TA)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto) { return sizes(Dev, Host, 16); });
}
/// The leading k singular triplets (exact: a full SVD truncated; p and niters, the randomization's oversampling
/// and power iterations, change nothing here).
CUSOLVER_API cusolverStatus_t cusolverDnXgesvdr(cusolverDnHandle_t Hd, void *, signed char Ju, signed char Jv,
                                               int64_t M, int64_t N, int64_t K, int64_t P, int64_t Iters,
                                               cudaDataType TA, void *A, int64_t Lda, cudaDataType TS, void *S,
                                               cudaDataType TU, void *U, int64_t Ldu, cudaDataType TV, void *V,
                                               int64_t Ldv, cudaDataType TC, void *, size_t, void *, size_t, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  bool Wu = Ju == 'S', Wv = Jv == 'S';
  if ((Ju != 'S' && Ju != 'N') || (Jv != 'S' && Jv != 'N') || !fits(M) || !fits(N) || !fits(Lda) || K < 1 ||
      K > std::min(M, N) || P < 0 || Iters < 0 || Lda < std::max<int64_t>(1, M) || TA != TC || TS != realOf(TA) ||
      TU != TA || TV != TA || !Info || (Wu && Ldu < std::max<int64_t>(1, M)) || (Wv && Ldv < std::max<int64_t>(1, N)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    using R = typename Real<T>::Type;
    int Mi = int(M), Ni = int(N), Ki = int(K), L = int(Lda), Lu = int(Ldu), Lv = int(Ldv);
    return submit(
        H,
        [=](T *A, R *S, T *U, T *V, int *Info) {
          int Mn = std::min(Mi, Ni);
          std::vector<R> Sf(static_cast<size_t>(Mn));
          std::vector<T> Uf(size_t(Mi) * Mn), Vf(size_t(Ni) * Mn);
          *Info = jacobiSvd<T>(true, true, Mi, Ni, A, L, Sf.data(), Uf.data(), Mi, Vf.data(), Ni, nullptr);
          std::copy(Sf.begin(), Sf.begin() + Ki, S);
          for (int C = 0; C < Ki; ++C) {
            if (U)
              std::copy(Uf.begin() + size_t(C) * Mi, Uf.begin() + size_t(C + 1) * Mi, U + size_t(C) * Lu);
            if (V)
              std::copy(Vf.begin() + size_t(C) * Ni, Vf.begin() + size_t(C + 1) * Ni, V + size_t(C) * Lv);
          }
        },
        libs::inout(static_cast<T *>(A), mat(L, Mi, Ni)), libs::out(static_cast<R *>(S), size_t(Ki)),
        libs::out(Wu ? static_cast<T *>(U) : nullptr, Wu ? mat(Lu, Mi, Ki) : 0),
        libs::out(Wv ? static_cast<T *>(V) : nullptr, Wv ? mat(Lv, Ni, Ki) : 0), libs::out(Info, 1));
  });
}

/// Xlarft: the triangular factor T of a block of k Householder reflectors (LAPACK's larft; direct 0 forward /
/// 1 backward, storev 0 columnwise / 1 rowwise). V is read only (LAPACK's larft works on a copy here).
CUSOLVER_API cusolverStatus_t cusolverDnXlarft_bufferSize(cusolverDnHandle_t H, void *, int Direct, int Storev,
                                                         int64_t N, int64_t K, cudaDataType TV, const void *,
                                                         int64_t Ldv, cudaDataType TT, const void *, cudaDataType TTm,
                                                         void *, int64_t Ldt, cudaDataType TC, size_t *Dev,
                                                         size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if ((Direct != 0 && Direct != 1) || (Storev != 0 && Storev != 1) || !fits(N) || K < 1 || K > N ||
      Ldt < K || Ldv < (Storev ? K : std::max<int64_t>(1, N)) || TV != TT || TV != TTm || TV != TC)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TV, [&](auto) { return sizes(Dev, Host, 16); });
}
CUSOLVER_API cusolverStatus_t cusolverDnXlarft(cusolverDnHandle_t Hd, void *, int Direct, int Storev, int64_t N,
                                              int64_t K, cudaDataType TV, const void *V, int64_t Ldv, cudaDataType TT,
                                              const void *Tau, cudaDataType TTm, void *Tm, int64_t Ldt,
                                              cudaDataType TC, void *, size_t, void *, size_t) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if ((Direct != 0 && Direct != 1) || (Storev != 0 && Storev != 1) || !fits(N) || !fits(Ldv) || !fits(Ldt) ||
      K < 1 || K > N || Ldt < K || Ldv < (Storev ? K : std::max<int64_t>(1, N)) || TV != TT || TV != TTm || TV != TC ||
      !V || !Tau || !Tm)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TV, [&](auto Tag) {
    using T = decltype(Tag);
    int Ni = int(N), Ki = int(K), Lv = int(Ldv), Lt = int(Ldt);
    size_t VCount = Storev ? mat(Lv, Ki, Ni) : mat(Lv, Ni, Ki);
    return submit(
        H,
        [=](T *V, T *Tau, T *Tm) {
          std::vector<T> Copy(V, V + VCount); // larft may touch V's unit entries
          MiscLa<T>::larft(Direct ? 'B' : 'F', Storev ? 'R' : 'C', Ni, Ki, Copy.data(), Lv, Tau, Tm, Lt);
        },
        libs::in(static_cast<const T *>(V), VCount), libs::in(static_cast<const T *>(Tau), size_t(Ki)),
        libs::out(static_cast<T *>(Tm), mat(Lt, Ki, Ki)));
  });
}

// The handle's modes (kept and reported; see Handle).
#define DN_MODE(Name, Field, Valid)                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDnSet##Name(cusolverDnHandle_t Hd, int V) {                                    \
    Handle *H = find(Hd);                                                                                              \
    if (!H)                                                                                                            \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (!(Valid))                                                                                                      \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    H->Field = V;                                                                                                      \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDnGet##Name(cusolverDnHandle_t Hd, int *V) {                                   \
    Handle *H = find(Hd);                                                                                              \
    if (!H)                                                                                                            \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (!V)                                                                                                            \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    *V = H->Field;                                                                                                     \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }
DN_MODE(DeterministicMode, Deterministic, V == 1 || V == 2)
DN_MODE(MathMode, Math, V == 1 || V == 2)
DN_MODE(EmulationStrategy, Emulation, V >= 0 && V <= 2)
#undef DN_MODE
