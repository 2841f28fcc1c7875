//===- FakeRocblas.cpp - a rocBLAS for testing our cuBLAS's AMD backend -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Every function our backend loads, with rocBLAS's signatures. The
/// test HIP runtime's device memory is host memory, so the GEMMs, level 1
/// and gemv here compute for real (f32/f64/complex/f16 GEMM; s and d level 1
/// and gemv; the rest answer rocblas_status_not_implemented): a test checks
/// that the backend passed every argument through as rocBLAS means it. The
/// stream and pointer mode of the last call are recorded.
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

namespace {
struct FakeHandle {
  void *Stream = nullptr;
  int PointerMode = 0;
};
std::mutex Mu;
std::map<std::string, int> &calls() {
  static std::map<std::string, int> C;
  return C;
}
void *LastStream = nullptr;
int LastPointerMode = -1;
void note(const char *Name, FakeHandle *H) {
  std::lock_guard<std::mutex> G(Mu);
  ++calls()[Name];
  LastStream = H->Stream;
  LastPointerMode = H->PointerMode;
}

float halfToFloat(uint16_t H) {
  uint32_t S = (H & 0x8000u) << 16, E = (H >> 10) & 0x1f, M = H & 0x3ff, B;
  if (E == 0)
    return (S ? -1.0f : 1.0f) * std::ldexp(float(M), -24);
  B = E == 0x1f ? S | 0x7f800000u | (M << 13) : S | ((E + 112) << 23) | (M << 13);
  float F;
  std::memcpy(&F, &B, 4);
  return F;
}
uint16_t floatToHalf(float F) { // round to nearest even, normal range (enough for the tests)
  uint32_t X;
  std::memcpy(&X, &F, 4);
  uint32_t S = (X >> 16) & 0x8000u, A = X & 0x7fffffffu;
  if (A < 0x38800000u)
    return static_cast<uint16_t>(S);
  uint32_t H = (((A >> 23) - 112) << 10) | ((A & 0x7fffffu) >> 13), R = A & 0x1fffu;
  if (R > 0x1000u || (R == 0x1000u && (H & 1)))
    ++H;
  return static_cast<uint16_t>(S | H);
}

using C64 = std::complex<double>;
C64 load(const void *P, int T, size_t I) {
  switch (T) {
  case 150: return halfToFloat(static_cast<const uint16_t *>(P)[I]);
  case 151: return static_cast<const float *>(P)[I];
  case 152: return static_cast<const double *>(P)[I];
  case 154: return C64(static_cast<const float *>(P)[2 * I], static_cast<const float *>(P)[2 * I + 1]);
  case 155: return C64(static_cast<const double *>(P)[2 * I], static_cast<const double *>(P)[2 * I + 1]);
  default: return 0;
  }
}
void store(void *P, int T, size_t I, C64 V) {
  switch (T) {
  case 150: static_cast<uint16_t *>(P)[I] = floatToHalf(float(V.real())); return;
  case 151: static_cast<float *>(P)[I] = float(V.real()); return;
  case 152: static_cast<double *>(P)[I] = V.real(); return;
  case 154:
    static_cast<float *>(P)[2 * I] = float(V.real());
    static_cast<float *>(P)[2 * I + 1] = float(V.imag());
    return;
  case 155:
    static_cast<double *>(P)[2 * I] = V.real();
    static_cast<double *>(P)[2 * I + 1] = V.imag();
    return;
  default: return;
  }
}
/// A scalar of the compute type (f16, f32, f64 or complex).
C64 scalar(const void *P, int Compute) { return load(P, Compute, 0); }

int gemmOne(int Ta, int Tb, int M, int N, int K, const void *Al, const void *A, int At, int Lda, const void *B,
            int Bt, int Ldb, const void *Be, const void *C, int Ct, int Ldc, void *D, int Dt, int Ldd, int Comp) {
  if (At != Bt || Ct != Dt || At == 160 || (Ta < 111 || Ta > 113) || (Tb < 111 || Tb > 113))
    return 2;
  C64 Alpha = scalar(Al, Comp), Beta = scalar(Be, Comp);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      C64 S = 0;
      for (int L = 0; L < K; ++L) {
        C64 X = Ta == 111 ? load(A, At, size_t(L) * Lda + I) : load(A, At, size_t(I) * Lda + L);
        C64 Y = Tb == 111 ? load(B, Bt, size_t(J) * Ldb + L) : load(B, Bt, size_t(L) * Ldb + J);
        if (Ta == 113)
          X = std::conj(X);
        if (Tb == 113)
          Y = std::conj(Y);
        S += X * Y;
      }
      C64 Out = Alpha * S + (Beta == C64(0) ? C64(0) : Beta * load(C, Ct, size_t(J) * Ldc + I));
      store(D, Dt, size_t(J) * Ldd + I, Out);
    }
  return 0;
}
size_t bytes(int T) { return T == 150 ? 2 : T == 151 ? 4 : T == 152 || T == 154 ? 8 : T == 155 ? 16 : 1; }
} // namespace

#define API extern "C" __attribute__((visibility("default")))
using H_t = FakeHandle *;

API int rocblas_create_handle(H_t *H) {
  *H = new FakeHandle;
  return 0;
}
API int rocblas_destroy_handle(H_t H) {
  delete H;
  return 0;
}
API int rocblas_set_stream(H_t H, void *S) {
  H->Stream = S;
  return 0;
}
API int rocblas_set_pointer_mode(H_t H, int M) {
  H->PointerMode = M;
  return 0;
}
API int rocblas_gemm_strided_batched_ex(H_t H, int Ta, int Tb, int M, int N, int K, const void *Al, const void *A,
                                       int At, int Lda, int64_t Sa, const void *B, int Bt, int Ldb, int64_t Sb,
                                       const void *Be, const void *C, int Ct, int Ldc, int64_t Sc, void *D, int Dt,
                                       int Ldd, int64_t Sd, int Batch, int Comp, int, int32_t, uint32_t) {
  note("rocblas_gemm_strided_batched_ex", H);
  for (int I = 0; I < Batch; ++I)
    if (int R = gemmOne(Ta, Tb, M, N, K, Al, static_cast<const char *>(A) + I * Sa * bytes(At), At, Lda,
                        static_cast<const char *>(B) + I * Sb * bytes(Bt), Bt, Ldb, Be,
                        static_cast<const char *>(C) + I * Sc * bytes(Ct), Ct, Ldc,
                        static_cast<char *>(D) + I * Sd * bytes(Dt), Dt, Ldd, Comp))
      return R;
  return 0;
}
API int rocblas_gemm_batched_ex(H_t H, int Ta, int Tb, int M, int N, int K, const void *Al, const void *A, int At,
                               int Lda, const void *B, int Bt, int Ldb, const void *Be, const void *C, int Ct, int Ldc,
                               void *D, int Dt, int Ldd, int Batch, int Comp, int, int32_t, uint32_t) {
  note("rocblas_gemm_batched_ex", H);
  for (int I = 0; I < Batch; ++I)
    if (int R = gemmOne(Ta, Tb, M, N, K, Al, static_cast<const void *const *>(A)[I], At, Lda,
                        static_cast<const void *const *>(B)[I], Bt, Ldb, Be, static_cast<const void *const *>(C)[I],
                        Ct, Ldc, static_cast<void *const *>(D)[I], Dt, Ldd, Comp))
      return R;
  return 0;
}

// Level 1 and gemv: s and d compute; c and z are not implemented here.
#define REAL_L1(p, T)                                                                                                  \
  API int rocblas_##p##axpy(H_t H, int N, const T *Al, const T *X, int Ix, T *Y, int Iy) {                             \
    note("rocblas_" #p "axpy", H);                                                                                     \
    for (int I = 0; I < N; ++I)                                                                                        \
      Y[(Iy < 0 ? (N - 1 - I) * -Iy : I * Iy)] += *Al * X[(Ix < 0 ? (N - 1 - I) * -Ix : I * Ix)];                     \
    return 0;                                                                                                          \
  }                                                                                                                    \
  API int rocblas_##p##scal(H_t H, int N, const T *Al, T *X, int Ix) {                                                 \
    note("rocblas_" #p "scal", H);                                                                                     \
    for (int I = 0; I < N; ++I)                                                                                        \
      X[I * Ix] *= *Al;                                                                                                \
    return 0;                                                                                                          \
  }                                                                                                                    \
  API int rocblas_##p##copy(H_t H, int N, const T *X, int Ix, T *Y, int Iy) {                                          \
    note("rocblas_" #p "copy", H);                                                                                     \
    for (int I = 0; I < N; ++I)                                                                                        \
      Y[I * Iy] = X[I * Ix];                                                                                           \
    return 0;                                                                                                          \
  }                                                                                                                    \
  API int rocblas_##p##swap(H_t H, int N, T *X, int Ix, T *Y, int Iy) {                                                \
    note("rocblas_" #p "swap", H);                                                                                     \
    for (int I = 0; I < N; ++I)                                                                                        \
      std::swap(X[I * Ix], Y[I * Iy]);                                                                                 \
    return 0;                                                                                                          \
  }                                                                                                                    \
  API int rocblas_##p##dot(H_t H, int N, const T *X, int Ix, const T *Y, int Iy, T *R) {                               \
    note("rocblas_" #p "dot", H);                                                                                      \
    T S = 0;                                                                                                           \
    for (int I = 0; I < N; ++I)                                                                                        \
      S += X[I * Ix] * Y[I * Iy];                                                                                      \
    *R = S;                                                                                                            \
    return 0;                                                                                                          \
  }                                                                                                                    \
  API int rocblas_##p##nrm2(H_t H, int N, const T *X, int Ix, T *R) {                                                  \
    note("rocblas_" #p "nrm2", H);                                                                                     \
    T S = 0;                                                                                                           \
    for (int I = 0; I < N; ++I)                                                                                        \
      S += X[I * Ix] * X[I * Ix];                                                                                      \
    *R = std::sqrt(S);                                                                                                 \
    return 0;                                                                                                          \
  }                                                                                                                    \
  API int rocblas_##p##asum(H_t H, int N, const T *X, int Ix, T *R) {                                                  \
    note("rocblas_" #p "asum", H);                                                                                     \
    T S = 0;                                                                                                           \
    for (int I = 0; I < N; ++I)                                                                                        \
      S += std::fabs(X[I * Ix]);                                                                                       \
    *R = S;                                                                                                            \
    return 0;                                                                                                          \
  }                                                                                                                    \
  API int rocblas_i##p##amax(H_t H, int N, const T *X, int Ix, int *R) {                                               \
    note("rocblas_i" #p "amax", H);                                                                                    \
    int B = 0;                                                                                                         \
    for (int I = 1; I < N; ++I)                                                                                        \
      if (std::fabs(X[I * Ix]) > std::fabs(X[B * Ix]))                                                                 \
        B = I;                                                                                                         \
    *R = N > 0 ? B + 1 : 0;                                                                                            \
    return 0;                                                                                                          \
  }                                                                                                                    \
  API int rocblas_i##p##amin(H_t H, int N, const T *X, int Ix, int *R) {                                               \
    note("rocblas_i" #p "amin", H);                                                                                    \
    int B = 0;                                                                                                         \
    for (int I = 1; I < N; ++I)                                                                                        \
      if (std::fabs(X[I * Ix]) < std::fabs(X[B * Ix]))                                                                 \
        B = I;                                                                                                         \
    *R = N > 0 ? B + 1 : 0;                                                                                            \
    return 0;                                                                                                          \
  }                                                                                                                    \
  API int rocblas_##p##gemv(H_t H, int Tr, int M, int N, const T *Al, const T *A, int Lda, const T *X, int Ix,         \
                            const T *Be, T *Y, int Iy) {                                                               \
    note("rocblas_" #p "gemv", H);                                                                                     \
    int Len = Tr == 111 ? M : N, Red = Tr == 111 ? N : M;                                                              \
    for (int I = 0; I < Len; ++I) {                                                                                    \
      T S = 0;                                                                                                         \
      for (int L = 0; L < Red; ++L)                                                                                    \
        S += (Tr == 111 ? A[size_t(L) * Lda + I] : A[size_t(I) * Lda + L]) * X[L * Ix];                                \
      Y[I * Iy] = *Al * S + (*Be == 0 ? T(0) : *Be * Y[I * Iy]);                                                       \
    }                                                                                                                  \
    return 0;                                                                                                          \
  }
REAL_L1(s, float)
REAL_L1(d, double)

#define NOT_HERE(Name)                                                                                                 \
  API int Name() { return 2; }
NOT_HERE(rocblas_caxpy)
NOT_HERE(rocblas_zaxpy)
NOT_HERE(rocblas_cscal)
NOT_HERE(rocblas_zscal)
NOT_HERE(rocblas_ccopy)
NOT_HERE(rocblas_zcopy)
NOT_HERE(rocblas_cswap)
NOT_HERE(rocblas_zswap)
NOT_HERE(rocblas_cdotu)
NOT_HERE(rocblas_zdotu)
NOT_HERE(rocblas_cdotc)
NOT_HERE(rocblas_zdotc)
NOT_HERE(rocblas_scnrm2)
NOT_HERE(rocblas_dznrm2)
NOT_HERE(rocblas_scasum)
NOT_HERE(rocblas_dzasum)
NOT_HERE(rocblas_icamax)
NOT_HERE(rocblas_izamax)
NOT_HERE(rocblas_icamin)
NOT_HERE(rocblas_izamin)
NOT_HERE(rocblas_cgemv)
NOT_HERE(rocblas_zgemv)

// What the test asks.
API int fakeRocblasCalls(const char *Name) {
  std::lock_guard<std::mutex> G(Mu);
  return calls()[Name];
}
API void *fakeRocblasLastStream() { return LastStream; }
API int fakeRocblasLastPointerMode() { return LastPointerMode; }
