//===- FakeRocsolver.cpp - a rocSOLVER for testing our cuSOLVER on AMD -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The rocSOLVER entry points our cuSOLVER loads (and the rocBLAS
/// handle functions, which the real rocSOLVER brings through its rocBLAS
/// dependency), with rocSOLVER's signatures and enum values. The test HIP
/// runtime's device memory is host memory, so the routines compute for real,
/// with LAPACK (OpenBLAS's) on the arguments as rocSOLVER reads them: a test
/// checks by the numbers that our library passed cuSOLVER's arguments on as
/// rocSOLVER means them. Enum values outside rocSOLVER's are refused
/// (rocblas_status_invalid_value); gesvd's E and syevd's E must be device
/// memory of the documented size (they are written); calls and the last
/// stream are recorded for the test.
#include "libs/cusolver/Lapack.h"

#include <algorithm>
#include <vector>

namespace {
using namespace zluda::cusolver;
constexpr int Ok = 0, InvalidHandle = 1, InvalidPointer = 3, InvalidSize = 4, InvalidValue = 11;
struct RocHandle {
  void *Stream = nullptr;
};
int Calls = 0;
void *LastStream = nullptr;

template <typename T> using Re = typename Real<T>::Type;

int begin(void *H) {
  if (!H)
    return InvalidHandle;
  ++Calls;
  LastStream = static_cast<RocHandle *>(H)->Stream;
  return Ok;
}
bool fill(int U, char &C) {
  C = U == 121 ? 'U' : 'L';
  return U == 121 || U == 122;
}
template <typename T> bool op(int O, char &C) {
  C = O == 111 ? 'N' : O == 112 ? 'T' : 'C';
  return O == 111 || O == 112 || O == 113;
}
bool svect(int V, char &C) {
  C = V == 191 ? 'A' : V == 192 ? 'S' : V == 193 ? 'O' : 'N';
  return V >= 191 && V <= 194;
}

template <typename T> int getrf(void *H, int M, int N, T *A, int Lda, int *Ipiv, int *Info) {
  if (int S = begin(H))
    return S;
  if (M < 0 || N < 0 || Lda < std::max(1, M))
    return InvalidSize;
  if (!Info || (M && N && (!A || !Ipiv)))
    return InvalidPointer;
  int I = 0;
  if (M && N)
    La<T>::getrf(&M, &N, A, &Lda, Ipiv, &I);
  *Info = I;
  return Ok;
}
template <typename T> int getrfNpvt(void *H, int M, int N, T *A, int Lda, int *Info) {
  if (int S = begin(H))
    return S;
  if (M < 0 || N < 0 || Lda < std::max(1, M))
    return InvalidSize;
  if (!Info || (M && N && !A))
    return InvalidPointer;
  int I = 0;
  for (int K = 0; K < std::min(M, N); ++K) {
    T P = A[K + size_t(K) * Lda];
    if (P == T(0)) {
      I = I ? I : K + 1;
      continue;
    }
    for (int R = K + 1; R < M; ++R)
      A[R + size_t(K) * Lda] /= P;
    for (int C = K + 1; C < N; ++C)
      for (int R = K + 1; R < M; ++R)
        A[R + size_t(C) * Lda] -= A[R + size_t(K) * Lda] * A[K + size_t(C) * Lda];
  }
  *Info = I;
  return Ok;
}
template <typename T> int getrs(void *H, int Op, int N, int Nrhs, T *A, int Lda, const int *Ipiv, T *B, int Ldb) {
  char Tr;
  if (int S = begin(H))
    return S;
  if (!op<T>(Op, Tr))
    return InvalidValue;
  if (N < 0 || Nrhs < 0 || Lda < std::max(1, N) || Ldb < std::max(1, N))
    return InvalidSize;
  int I = 0;
  if (N && Nrhs)
    La<T>::getrs(&Tr, &N, &Nrhs, A, &Lda, Ipiv, B, &Ldb, &I);
  return Ok;
}
template <typename T> int potrf(void *H, int U, int N, T *A, int Lda, int *Info) {
  char C;
  if (int S = begin(H))
    return S;
  if (!fill(U, C))
    return InvalidValue;
  if (N < 0 || Lda < std::max(1, N))
    return InvalidSize;
  int I = 0;
  if (N)
    La<T>::potrf(&C, &N, A, &Lda, &I);
  *Info = I;
  return Ok;
}
template <typename T> int potrs(void *H, int U, int N, int Nrhs, T *A, int Lda, T *B, int Ldb) {
  char C;
  if (int S = begin(H))
    return S;
  if (!fill(U, C))
    return InvalidValue;
  if (N < 0 || Nrhs < 0 || Lda < std::max(1, N) || Ldb < std::max(1, N))
    return InvalidSize;
  int I = 0;
  if (N && Nrhs)
    La<T>::potrs(&C, &N, &Nrhs, A, &Lda, B, &Ldb, &I);
  return Ok;
}
template <typename T> int geqrf(void *H, int M, int N, T *A, int Lda, T *Tau) {
  if (int S = begin(H))
    return S;
  if (M < 0 || N < 0 || Lda < std::max(1, M))
    return InvalidSize;
  if (!M || !N)
    return Ok;
  int I = 0, Lw = std::max(1, N) * 64;
  std::vector<T> W(static_cast<size_t>(Lw));
  La<T>::geqrf(&M, &N, A, &Lda, Tau, W.data(), &Lw, &I);
  return Ok;
}
template <typename T> int ormqr(void *H, int Side, int Op, int M, int N, int K, T *A, int Lda, T *Tau, T *C, int Ldc) {
  char Tr;
  if (int S = begin(H))
    return S;
  // rocSOLVER's ormqr takes none/transpose, unmqr none/conjugate transpose.
  if ((Side != 141 && Side != 142) || !op<T>(Op, Tr) || (Op == (IsComplex<T> ? 112 : 113)))
    return InvalidValue;
  const int Nq = Side == 141 ? M : N;
  if (M < 0 || N < 0 || K < 0 || K > Nq || Lda < std::max(1, Nq) || Ldc < std::max(1, M))
    return InvalidSize;
  if (!M || !N || !K)
    return Ok;
  char Sd = Side == 141 ? 'L' : 'R';
  int I = 0, Lw = std::max(M, N) * 64;
  std::vector<T> W(static_cast<size_t>(Lw));
  La<T>::ormqr(&Sd, &Tr, &M, &N, &K, A, &Lda, Tau, C, &Ldc, W.data(), &Lw, &I);
  return I ? InvalidValue : Ok;
}
template <typename T> int orgqr(void *H, int M, int N, int K, T *A, int Lda, T *Tau) {
  if (int S = begin(H))
    return S;
  if (M < 0 || N < 0 || N > M || K < 0 || K > N || Lda < std::max(1, M))
    return InvalidSize;
  if (!M || !N)
    return Ok;
  int I = 0, Lw = std::max(1, N) * 64;
  std::vector<T> W(static_cast<size_t>(Lw));
  La<T>::orgqr(&M, &N, &K, A, &Lda, Tau, W.data(), &Lw, &I);
  return Ok;
}

template <typename T>
void lapackSvd(char U, char V, int M, int N, T *A, int Lda, Re<T> *S, T *Uo, int Ldu, T *Vt, int Ldvt, int *I) {
  const int Lw = 8 * std::max(M, N) + 64;
  std::vector<T> W(static_cast<size_t>(Lw));
  std::vector<Re<T>> Rw(static_cast<size_t>(5 * std::min(M, N) + 1));
  if constexpr (std::is_same_v<T, float>)
    sgesvd_(&U, &V, &M, &N, A, &Lda, S, Uo, &Ldu, Vt, &Ldvt, W.data(), &Lw, I);
  else if constexpr (std::is_same_v<T, double>)
    dgesvd_(&U, &V, &M, &N, A, &Lda, S, Uo, &Ldu, Vt, &Ldvt, W.data(), &Lw, I);
  else if constexpr (std::is_same_v<T, C32>)
    cgesvd_(&U, &V, &M, &N, A, &Lda, S, Uo, &Ldu, Vt, &Ldvt, W.data(), &Lw, Rw.data(), I);
  else
    zgesvd_(&U, &V, &M, &N, A, &Lda, S, Uo, &Ldu, Vt, &Ldvt, W.data(), &Lw, Rw.data(), I);
}
template <typename T>
int gesvd(void *H, int Lv, int Rv, int M, int N, T *A, int Lda, Re<T> *S, T *U, int Ldu, T *V, int Ldv, Re<T> *E,
          int Mode, int *Info) {
  char Cu, Cv;
  if (int St = begin(H))
    return St;
  if (!svect(Lv, Cu) || !svect(Rv, Cv) || (Lv == 193 && Rv == 193) || (Mode != 201 && Mode != 202))
    return InvalidValue;
  if (M < 0 || N < 0 || Lda < std::max(1, M) || Ldu < 1 || Ldv < 1)
    return InvalidSize;
  const int Mn = std::min(M, N);
  if (!Info || (Mn > 1 && !E))
    return InvalidPointer;
  for (int K = 0; K + 1 < Mn; ++K) // rocSOLVER's E: the superdiagonal left after the iterations
    E[K] = 0;
  int I = 0;
  T Dummy{};
  if (M && N)
    lapackSvd<T>(Cu, Cv, M, N, A, Lda, S, U ? U : &Dummy, Ldu, V ? V : &Dummy, Ldv, &I);
  *Info = I;
  return Ok;
}
template <typename T> int syevd(void *H, int Ev, int U, int N, T *A, int Lda, Re<T> *D, Re<T> *E, int *Info) {
  char Cu;
  if (int St = begin(H))
    return St;
  if ((Ev != 211 && Ev != 213) || !fill(U, Cu))
    return InvalidValue;
  if (N < 0 || Lda < std::max(1, N))
    return InvalidSize;
  if (!Info || (N && (!E || !D)))
    return InvalidPointer;
  for (int K = 0; K < N; ++K) // rocSOLVER's E: n reals of workspace
    E[K] = 0;
  char J = Ev == 211 ? 'V' : 'N';
  int I = 0;
  if (N) {
    int Lw = 2 * N * N + 6 * N + 1, Lrw = 2 * N * N + 5 * N + 1, Liw = 5 * N + 3;
    std::vector<T> W(static_cast<size_t>(Lw));
    std::vector<Re<T>> Rw(static_cast<size_t>(Lrw));
    std::vector<int> Iw(static_cast<size_t>(Liw));
    if constexpr (std::is_same_v<T, float>)
      ssyevd_(&J, &Cu, &N, A, &Lda, D, W.data(), &Lw, Iw.data(), &Liw, &I);
    else if constexpr (std::is_same_v<T, double>)
      dsyevd_(&J, &Cu, &N, A, &Lda, D, W.data(), &Lw, Iw.data(), &Liw, &I);
    else if constexpr (std::is_same_v<T, C32>)
      cheevd_(&J, &Cu, &N, A, &Lda, D, W.data(), &Lw, Rw.data(), &Lrw, Iw.data(), &Liw, &I);
    else
      zheevd_(&J, &Cu, &N, A, &Lda, D, W.data(), &Lw, Rw.data(), &Lrw, Iw.data(), &Liw, &I);
  }
  *Info = I;
  return Ok;
}
/// The batched forms: one call over a device array of matrix pointers (counted once).
template <typename T> int potrfBatched(void *H, int U, int N, T *const A[], int Lda, int *Info, int Batch) {
  char C;
  if (int S = begin(H))
    return S;
  if (!fill(U, C))
    return InvalidValue;
  if (N < 0 || Lda < std::max(1, N) || Batch < 0)
    return InvalidSize;
  if (Batch && (!A || !Info))
    return InvalidPointer;
  for (int K = 0; K < Batch; ++K) {
    int I = 0;
    if (N)
      La<T>::potrf(&C, &N, A[K], &Lda, &I);
    Info[K] = I;
  }
  return Ok;
}
template <typename T>
int potrsBatched(void *H, int U, int N, int Nrhs, T *const A[], int Lda, T *const B[], int Ldb, int Batch) {
  char C;
  if (int S = begin(H))
    return S;
  if (!fill(U, C))
    return InvalidValue;
  if (N < 0 || Nrhs < 0 || Lda < std::max(1, N) || Ldb < std::max(1, N) || Batch < 0)
    return InvalidSize;
  if (Batch && (!A || !B))
    return InvalidPointer;
  for (int K = 0; K < Batch; ++K) {
    int I = 0;
    if (N && Nrhs)
      La<T>::potrs(&C, &N, &Nrhs, A[K], &Lda, B[K], &Ldb, &I);
  }
  return Ok;
}
} // namespace

#define API extern "C" __attribute__((visibility("default")))
API int rocblas_create_handle(void **Out) {
  if (!Out)
    return InvalidPointer;
  *Out = new RocHandle;
  return Ok;
}
API int rocblas_destroy_handle(void *H) {
  delete static_cast<RocHandle *>(H);
  return H ? Ok : InvalidHandle;
}
API int rocblas_set_stream(void *H, void *S) {
  if (!H)
    return InvalidHandle;
  static_cast<RocHandle *>(H)->Stream = S;
  return Ok;
}
API int fakeRocsolverCalls() { return Calls; }
API void *fakeRocsolverLastStream() { return LastStream; }

#define FAKE_ALL(p, T, orm, org, sy)                                                                                  \
  API int rocsolver_##p##getrf(void *H, int M, int N, T *A, int L, int *P, int *I) {                                  \
    return getrf<T>(H, M, N, A, L, P, I);                                                                             \
  }                                                                                                                   \
  API int rocsolver_##p##getrf_npvt(void *H, int M, int N, T *A, int L, int *I) {                                     \
    return getrfNpvt<T>(H, M, N, A, L, I);                                                                            \
  }                                                                                                                   \
  API int rocsolver_##p##getrs(void *H, int O, int N, int R, T *A, int L, const int *P, T *B, int Lb) {               \
    return getrs<T>(H, O, N, R, A, L, P, B, Lb);                                                                      \
  }                                                                                                                   \
  API int rocsolver_##p##potrf(void *H, int U, int N, T *A, int L, int *I) { return potrf<T>(H, U, N, A, L, I); }     \
  API int rocsolver_##p##potrs(void *H, int U, int N, int R, T *A, int L, T *B, int Lb) {                             \
    return potrs<T>(H, U, N, R, A, L, B, Lb);                                                                         \
  }                                                                                                                   \
  API int rocsolver_##p##geqrf(void *H, int M, int N, T *A, int L, T *Tau) { return geqrf<T>(H, M, N, A, L, Tau); }   \
  API int rocsolver_##p##orm(void *H, int S, int O, int M, int N, int K, T *A, int L, T *Tau, T *C, int Lc) {         \
    return ormqr<T>(H, S, O, M, N, K, A, L, Tau, C, Lc);                                                              \
  }                                                                                                                   \
  API int rocsolver_##p##org(void *H, int M, int N, int K, T *A, int L, T *Tau) {                                     \
    return orgqr<T>(H, M, N, K, A, L, Tau);                                                                           \
  }                                                                                                                   \
  API int rocsolver_##p##gesvd(void *H, int Lv, int Rv, int M, int N, T *A, int L, Re<T> *S, T *U, int Lu, T *V,      \
                               int Lvv, Re<T> *E, int W, int *I) {                                                    \
    return gesvd<T>(H, Lv, Rv, M, N, A, L, S, U, Lu, V, Lvv, E, W, I);                                                \
  }                                                                                                                   \
  API int rocsolver_##p##sy(void *H, int Ev, int U, int N, T *A, int L, Re<T> *D, Re<T> *E, int *I) {                 \
    return syevd<T>(H, Ev, U, N, A, L, D, E, I);                                                                      \
  }                                                                                                                   \
  API int rocsolver_##p##potrf_batched(void *H, int U, int N, T *const A[], int L, int *I, int Batch) {               \
    return potrfBatched<T>(H, U, N, A, L, I, Batch);                                                                  \
  }                                                                                                                   \
  API int rocsolver_##p##potrs_batched(void *H, int U, int N, int R, T *const A[], int L, T *const B[], int Lb,       \
                                       int Batch) {                                                                   \
    return potrsBatched<T>(H, U, N, R, A, L, B, Lb, Batch);                                                           \
  }
FAKE_ALL(s, float, ormqr, orgqr, syevd)
FAKE_ALL(d, double, ormqr, orgqr, syevd)
FAKE_ALL(c, C32, unmqr, ungqr, heevd)
FAKE_ALL(z, C64, unmqr, ungqr, heevd)
