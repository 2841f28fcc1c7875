// cuSOLVER dense: LU, Cholesky, QR, SVD and symmetric/Hermitian eigensolvers
// for S, D, C, Z; each result checked by its defining identity (residuals of
// the solve, Q R = A, U S V^H = A, A V = V diag(w), orthogonality) computed
// here on the host in long double, on fresh random matrices.
#include "libs_common.h"
#include <cusolverDn.h>

#include <cmath>
#include <complex>
#include <random>
#include <type_traits>


static int Bad = 0;
static std::mt19937 Rng(7);
static cusolverDnHandle_t H;

template <typename T> struct Tr {
  using R = T;
  static constexpr bool Cx = false;
};
template <typename T> struct Tr<std::complex<T>> {
  using R = T;
  static constexpr bool Cx = true;
};
using CL = std::complex<long double>;
template <typename T> static T cj(T X) {
  if constexpr (Tr<T>::Cx)
    return std::conj(X);
  else
    return X;
}
template <typename T> static CL toL(T X) { return CL((long double)std::real(X), (long double)std::imag(X)); }
template <typename T> static T rnd() {
  std::uniform_real_distribution<double> U(-1, 1);
  if constexpr (Tr<T>::Cx)
    return T(U(Rng), U(Rng));
  else
    return T(U(Rng));
}
template <typename T> static std::vector<T> randm(int M, int N) {
  std::vector<T> A(size_t(M) * N);
  for (auto &X : A)
    X = rnd<T>();
  return A;
}
template <typename T> static double eps() { return std::is_same_v<typename Tr<T>::R, float> ? 1e-4 : 1e-11; }
static void check(const char *What, const char *Ty, long double Err, double Bound) {
  if (!(Err <= Bound)) {
    std::printf("FAIL %s (%s): error %.3Lg > %.3g\n", What, Ty, Err, Bound);
    ++Bad;
  }
}
static int info(int *D) {
  int I;
  CHECK(cudaMemcpy(&I, D, sizeof I, cudaMemcpyDeviceToHost));
  return I;
}

// The calls by type.
#define PICK(T, S, D, C, Z)                                                                        \
  if constexpr (std::is_same_v<T, float>)                                                          \
    return S;                                                                                      \
  else if constexpr (std::is_same_v<T, double>)                                                    \
    return D;                                                                                      \
  else if constexpr (std::is_same_v<T, std::complex<float>>)                                       \
    return C;                                                                                      \
  else                                                                                             \
    return Z;
template <typename T> static const char *tyName() { PICK(T, "S", "D", "C", "Z") }
#define DEV(T, p) reinterpret_cast<Dev##T *>(p)
using DevS = float;
using DevD = double;
using DevC = cuComplex;
using DevZ = cuDoubleComplex;

template <typename T> static void lu(int N, int Nrhs, bool Pivot) {
  auto A = randm<T>(N, N), B = randm<T>(N, Nrhs);
  T *dA = dev(A), *dB = dev(B);
  int *dPiv = dev(std::vector<int>(N)), *dInfo = dev(std::vector<int>(1, -7));
  int Lw = 0;
  auto Getrf = [&](auto *W) {
    PICK(T, cusolverDnSgetrf(H, N, N, DEV(S, dA), N, DEV(S, W), Pivot ? dPiv : nullptr, dInfo),
         cusolverDnDgetrf(H, N, N, DEV(D, dA), N, DEV(D, W), Pivot ? dPiv : nullptr, dInfo),
         cusolverDnCgetrf(H, N, N, DEV(C, dA), N, DEV(C, W), Pivot ? dPiv : nullptr, dInfo),
         cusolverDnZgetrf(H, N, N, DEV(Z, dA), N, DEV(Z, W), Pivot ? dPiv : nullptr, dInfo))
  };
  auto Size = [&]() {
    PICK(T, cusolverDnSgetrf_bufferSize(H, N, N, DEV(S, dA), N, &Lw), cusolverDnDgetrf_bufferSize(H, N, N, DEV(D, dA), N, &Lw),
         cusolverDnCgetrf_bufferSize(H, N, N, DEV(C, dA), N, &Lw), cusolverDnZgetrf_bufferSize(H, N, N, DEV(Z, dA), N, &Lw))
  };
  CS(Size());
  T *dW = dev(std::vector<T>(Lw));
  CS(Getrf(dW));
  auto Getrs = [&]() {
    const int *P = Pivot ? dPiv : nullptr;
    PICK(T, cusolverDnSgetrs(H, CUBLAS_OP_N, N, Nrhs, DEV(S, dA), N, P, DEV(S, dB), N, dInfo),
         cusolverDnDgetrs(H, CUBLAS_OP_N, N, Nrhs, DEV(D, dA), N, P, DEV(D, dB), N, dInfo),
         cusolverDnCgetrs(H, CUBLAS_OP_N, N, Nrhs, DEV(C, dA), N, P, DEV(C, dB), N, dInfo),
         cusolverDnZgetrs(H, CUBLAS_OP_N, N, Nrhs, DEV(Z, dA), N, P, DEV(Z, dB), N, dInfo))
  };
  CS(Getrs());
  EXPECT(info(dInfo) == 0);
  auto X = host(dB, size_t(N) * Nrhs);
  long double Err = 0, Scale = 0;
  for (int J = 0; J < Nrhs; ++J)
    for (int I = 0; I < N; ++I) {
      CL S = 0;
      for (int K = 0; K < N; ++K)
        S += toL(A[I + size_t(K) * N]) * toL(X[K + size_t(J) * N]);
      Err = std::max(Err, std::abs(S - toL(B[I + size_t(J) * N])));
      Scale = std::max(Scale, std::abs(toL(X[I + size_t(J) * N])));
    }
  check(Pivot ? "getrf/getrs residual" : "getrf (no pivoting)/getrs residual", tyName<T>(), Err / (1 + Scale),
        eps<T>() * N * (Pivot ? 10 : 1000));
  cudaFree(dA), cudaFree(dB), cudaFree(dPiv), cudaFree(dInfo), cudaFree(dW);
}

template <typename T> static void chol(int N, cublasFillMode_t U) {
  // A = G G^H + N I, symmetric/Hermitian positive definite.
  auto G = randm<T>(N, N);
  std::vector<T> A(size_t(N) * N);
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J) {
      T S = I == J ? T(N) : T(0);
      for (int K = 0; K < N; ++K)
        S += G[I + size_t(K) * N] * cj(G[J + size_t(K) * N]);
      A[I + size_t(J) * N] = S;
    }
  auto B = randm<T>(N, 2);
  T *dA = dev(A), *dB = dev(B);
  int *dInfo = dev(std::vector<int>(1, -7));
  int Lw = 0;
  auto Run = [&]() {
    PICK(T, cusolverDnSpotrf_bufferSize(H, U, N, DEV(S, dA), N, &Lw), cusolverDnDpotrf_bufferSize(H, U, N, DEV(D, dA), N, &Lw),
         cusolverDnCpotrf_bufferSize(H, U, N, DEV(C, dA), N, &Lw), cusolverDnZpotrf_bufferSize(H, U, N, DEV(Z, dA), N, &Lw))
  };
  CS(Run());
  T *dW = dev(std::vector<T>(Lw));
  auto F = [&]() {
    PICK(T, cusolverDnSpotrf(H, U, N, DEV(S, dA), N, DEV(S, dW), Lw, dInfo), cusolverDnDpotrf(H, U, N, DEV(D, dA), N, DEV(D, dW), Lw, dInfo),
         cusolverDnCpotrf(H, U, N, DEV(C, dA), N, DEV(C, dW), Lw, dInfo), cusolverDnZpotrf(H, U, N, DEV(Z, dA), N, DEV(Z, dW), Lw, dInfo))
  };
  CS(F());
  EXPECT(info(dInfo) == 0);
  auto S = [&]() {
    PICK(T, cusolverDnSpotrs(H, U, N, 2, DEV(S, dA), N, DEV(S, dB), N, dInfo), cusolverDnDpotrs(H, U, N, 2, DEV(D, dA), N, DEV(D, dB), N, dInfo),
         cusolverDnCpotrs(H, U, N, 2, DEV(C, dA), N, DEV(C, dB), N, dInfo), cusolverDnZpotrs(H, U, N, 2, DEV(Z, dA), N, DEV(Z, dB), N, dInfo))
  };
  CS(S());
  auto X = host(dB, size_t(N) * 2);
  long double Err = 0;
  for (int J = 0; J < 2; ++J)
    for (int I = 0; I < N; ++I) {
      CL Sm = 0;
      for (int K = 0; K < N; ++K)
        Sm += toL(A[I + size_t(K) * N]) * toL(X[K + size_t(J) * N]);
      Err = std::max(Err, std::abs(Sm - toL(B[I + size_t(J) * N])));
    }
  check("potrf/potrs residual", tyName<T>(), Err, eps<T>() * N * 10);
  // Not positive definite: info names the first failing minor.
  std::vector<T> Neg(size_t(N) * N, T(0));
  for (int I = 0; I < N; ++I)
    Neg[I + size_t(I) * N] = I == 2 ? T(-1) : T(1);
  CHECK(cudaMemcpy(dA, Neg.data(), Neg.size() * sizeof(T), cudaMemcpyHostToDevice));
  CS(F());
  EXPECT(info(dInfo) == 3);
  cudaFree(dA), cudaFree(dB), cudaFree(dInfo), cudaFree(dW);
}

template <typename T> static void qr(int M, int N) {
  auto A = randm<T>(M, N);
  T *dA = dev(A), *dTau = dev(std::vector<T>(N));
  int *dInfo = dev(std::vector<int>(1, -7));
  int Lw = 0;
  auto Sz = [&]() {
    PICK(T, cusolverDnSgeqrf_bufferSize(H, M, N, DEV(S, dA), M, &Lw), cusolverDnDgeqrf_bufferSize(H, M, N, DEV(D, dA), M, &Lw),
         cusolverDnCgeqrf_bufferSize(H, M, N, DEV(C, dA), M, &Lw), cusolverDnZgeqrf_bufferSize(H, M, N, DEV(Z, dA), M, &Lw))
  };
  CS(Sz());
  T *dW = dev(std::vector<T>(Lw));
  auto F = [&]() {
    PICK(T, cusolverDnSgeqrf(H, M, N, DEV(S, dA), M, DEV(S, dTau), DEV(S, dW), Lw, dInfo),
         cusolverDnDgeqrf(H, M, N, DEV(D, dA), M, DEV(D, dTau), DEV(D, dW), Lw, dInfo),
         cusolverDnCgeqrf(H, M, N, DEV(C, dA), M, DEV(C, dTau), DEV(C, dW), Lw, dInfo),
         cusolverDnZgeqrf(H, M, N, DEV(Z, dA), M, DEV(Z, dTau), DEV(Z, dW), Lw, dInfo))
  };
  CS(F());
  EXPECT(info(dInfo) == 0);
  auto QR = host(dA, size_t(M) * N);
  // C = R (upper part, padded to M x N); then Q C by ormqr/unmqr must give A.
  std::vector<T> R(size_t(M) * N, T(0));
  for (int J = 0; J < N; ++J)
    for (int I = 0; I <= std::min(J, M - 1); ++I)
      R[I + size_t(J) * M] = QR[I + size_t(J) * M];
  T *dC = dev(R);
  auto Ap = [&]() {
    PICK(T, cusolverDnSormqr(H, CUBLAS_SIDE_LEFT, CUBLAS_OP_N, M, N, N, DEV(S, dA), M, DEV(S, dTau), DEV(S, dC), M, DEV(S, dW), Lw, dInfo),
         cusolverDnDormqr(H, CUBLAS_SIDE_LEFT, CUBLAS_OP_N, M, N, N, DEV(D, dA), M, DEV(D, dTau), DEV(D, dC), M, DEV(D, dW), Lw, dInfo),
         cusolverDnCunmqr(H, CUBLAS_SIDE_LEFT, CUBLAS_OP_N, M, N, N, DEV(C, dA), M, DEV(C, dTau), DEV(C, dC), M, DEV(C, dW), Lw, dInfo),
         cusolverDnZunmqr(H, CUBLAS_SIDE_LEFT, CUBLAS_OP_N, M, N, N, DEV(Z, dA), M, DEV(Z, dTau), DEV(Z, dC), M, DEV(Z, dW), Lw, dInfo))
  };
  CS(Ap());
  auto QRp = host(dC, size_t(M) * N);
  long double Err = 0;
  for (size_t I = 0; I < A.size(); ++I)
    Err = std::max(Err, std::abs(toL(QRp[I]) - toL(A[I])));
  check("geqrf + ormqr/unmqr: Q R = A", tyName<T>(), Err, eps<T>() * M * 4);
  // orgqr/ungqr: the explicit Q has orthonormal columns.
  auto G = [&]() {
    PICK(T, cusolverDnSorgqr(H, M, N, N, DEV(S, dA), M, DEV(S, dTau), DEV(S, dW), Lw, dInfo),
         cusolverDnDorgqr(H, M, N, N, DEV(D, dA), M, DEV(D, dTau), DEV(D, dW), Lw, dInfo),
         cusolverDnCungqr(H, M, N, N, DEV(C, dA), M, DEV(C, dTau), DEV(C, dW), Lw, dInfo),
         cusolverDnZungqr(H, M, N, N, DEV(Z, dA), M, DEV(Z, dTau), DEV(Z, dW), Lw, dInfo))
  };
  int Lq = 0;
  auto GS = [&]() {
    PICK(T, cusolverDnSorgqr_bufferSize(H, M, N, N, DEV(S, dA), M, DEV(S, dTau), &Lq),
         cusolverDnDorgqr_bufferSize(H, M, N, N, DEV(D, dA), M, DEV(D, dTau), &Lq),
         cusolverDnCungqr_bufferSize(H, M, N, N, DEV(C, dA), M, DEV(C, dTau), &Lq),
         cusolverDnZungqr_bufferSize(H, M, N, N, DEV(Z, dA), M, DEV(Z, dTau), &Lq))
  };
  CS(GS());
  EXPECT(Lq >= 1);
  CS(G());
  auto Q = host(dA, size_t(M) * N);
  long double Orth = 0;
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J) {
      CL S = 0;
      for (int K = 0; K < M; ++K)
        S += std::conj(toL(Q[K + size_t(I) * M])) * toL(Q[K + size_t(J) * M]);
      Orth = std::max(Orth, std::abs(S - CL(I == J ? 1 : 0)));
    }
  check("orgqr/ungqr: Q^H Q = I", tyName<T>(), Orth, eps<T>() * M * 4);
  cudaFree(dA), cudaFree(dTau), cudaFree(dInfo), cudaFree(dW), cudaFree(dC);
}

template <typename T> static void svd(int M, int N) {
  using R = typename Tr<T>::R;
  auto A = randm<T>(M, N);
  T *dA = dev(A), *dU = dev(std::vector<T>(size_t(M) * M)), *dVt = dev(std::vector<T>(size_t(N) * N));
  R *dS = dev(std::vector<R>(N));
  int *dInfo = dev(std::vector<int>(1, -7));
  int Lw = 0;
  auto Sz = [&]() {
    PICK(T, cusolverDnSgesvd_bufferSize(H, M, N, &Lw), cusolverDnDgesvd_bufferSize(H, M, N, &Lw),
         cusolverDnCgesvd_bufferSize(H, M, N, &Lw), cusolverDnZgesvd_bufferSize(H, M, N, &Lw))
  };
  CS(Sz());
  T *dW = dev(std::vector<T>(Lw));
  auto F = [&]() {
    PICK(T, cusolverDnSgesvd(H, 'A', 'A', M, N, DEV(S, dA), M, (float *)dS, DEV(S, dU), M, DEV(S, dVt), N, DEV(S, dW), Lw, nullptr, dInfo),
         cusolverDnDgesvd(H, 'A', 'A', M, N, DEV(D, dA), M, (double *)dS, DEV(D, dU), M, DEV(D, dVt), N, DEV(D, dW), Lw, nullptr, dInfo),
         cusolverDnCgesvd(H, 'A', 'A', M, N, DEV(C, dA), M, (float *)dS, DEV(C, dU), M, DEV(C, dVt), N, DEV(C, dW), Lw, nullptr, dInfo),
         cusolverDnZgesvd(H, 'A', 'A', M, N, DEV(Z, dA), M, (double *)dS, DEV(Z, dU), M, DEV(Z, dVt), N, DEV(Z, dW), Lw, nullptr, dInfo))
  };
  CS(F());
  EXPECT(info(dInfo) == 0);
  auto U = host(dU, size_t(M) * M), Vt = host(dVt, size_t(N) * N);
  auto S = host(dS, N);
  long double Err = 0;
  for (int I = 0; I < M; ++I)
    for (int J = 0; J < N; ++J) {
      CL Sm = 0;
      for (int K = 0; K < N; ++K)
        Sm += toL(U[I + size_t(K) * M]) * (long double)S[K] * toL(Vt[K + size_t(J) * N]);
      Err = std::max(Err, std::abs(Sm - toL(A[I + size_t(J) * M])));
    }
  check("gesvd: U S V^H = A", tyName<T>(), Err, eps<T>() * M * 10);
  for (int K = 0; K + 1 < N; ++K)
    EXPECT(S[K] >= S[K + 1] && S[K + 1] >= 0);
  EXPECT(cusolverDnSgesvd(H, 'A', 'A', 2, 3, nullptr, 2, nullptr, nullptr, 2, nullptr, 3, nullptr, 0, nullptr, dInfo) ==
         CUSOLVER_STATUS_INVALID_VALUE); // m < n
  cudaFree(dA), cudaFree(dU), cudaFree(dVt), cudaFree(dS), cudaFree(dInfo), cudaFree(dW);
}

template <typename T> static void eig(int N) {
  using R = typename Tr<T>::R;
  auto G = randm<T>(N, N);
  std::vector<T> A(size_t(N) * N);
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J) {
      T X = G[I + size_t(J) * N] + cj(G[J + size_t(I) * N]);
      A[I + size_t(J) * N] = X;
    }
  T *dA = dev(A);
  R *dW = dev(std::vector<R>(N));
  int *dInfo = dev(std::vector<int>(1, -7));
  int Lw = 0;
  const auto J = CUSOLVER_EIG_MODE_VECTOR;
  const auto U = CUBLAS_FILL_MODE_LOWER;
  auto Sz = [&]() {
    PICK(T, cusolverDnSsyevd_bufferSize(H, J, U, N, DEV(S, dA), N, (float *)dW, &Lw), cusolverDnDsyevd_bufferSize(H, J, U, N, DEV(D, dA), N, (double *)dW, &Lw),
         cusolverDnCheevd_bufferSize(H, J, U, N, DEV(C, dA), N, (float *)dW, &Lw), cusolverDnZheevd_bufferSize(H, J, U, N, DEV(Z, dA), N, (double *)dW, &Lw))
  };
  CS(Sz());
  T *dWk = dev(std::vector<T>(Lw));
  auto F = [&]() {
    PICK(T, cusolverDnSsyevd(H, J, U, N, DEV(S, dA), N, (float *)dW, DEV(S, dWk), Lw, dInfo), cusolverDnDsyevd(H, J, U, N, DEV(D, dA), N, (double *)dW, DEV(D, dWk), Lw, dInfo),
         cusolverDnCheevd(H, J, U, N, DEV(C, dA), N, (float *)dW, DEV(C, dWk), Lw, dInfo), cusolverDnZheevd(H, J, U, N, DEV(Z, dA), N, (double *)dW, DEV(Z, dWk), Lw, dInfo))
  };
  CS(F());
  EXPECT(info(dInfo) == 0);
  auto V = host(dA, size_t(N) * N);
  auto W = host(dW, N);
  long double Err = 0;
  for (int K = 0; K < N; ++K)
    for (int I = 0; I < N; ++I) {
      CL Sm = 0;
      for (int L = 0; L < N; ++L)
        Sm += toL(A[I + size_t(L) * N]) * toL(V[L + size_t(K) * N]);
      Err = std::max(Err, std::abs(Sm - (long double)W[K] * toL(V[I + size_t(K) * N])));
    }
  check("syevd/heevd: A V = V diag(w)", tyName<T>(), Err, eps<T>() * N * 20);
  for (int K = 0; K + 1 < N; ++K)
    EXPECT(W[K] <= W[K + 1]);
  cudaFree(dA), cudaFree(dW), cudaFree(dInfo), cudaFree(dWk);
}

template <typename T> static void all() {
  lu<T>(37, 3, true);
  lu<T>(16, 2, false);
  chol<T>(29, CUBLAS_FILL_MODE_LOWER);
  chol<T>(20, CUBLAS_FILL_MODE_UPPER);
  qr<T>(40, 25);
  svd<T>(30, 17);
  eig<T>(33);
}

int main() {
  CS(cusolverDnCreate(&H));
  cudaStream_t S;
  CHECK(cudaStreamCreate(&S));
  CS(cusolverDnSetStream(H, S));
  all<float>();
  all<double>();
  all<std::complex<float>>();
  all<std::complex<double>>();
  // A singular matrix: getrf's info names the zero pivot.
  {
    std::vector<double> A = {1, 2, 2, 4};
    double *dA = dev(A);
    int *dPiv = dev(std::vector<int>(2)), *dInfo = dev(std::vector<int>(1, -7));
    int Lw = 0;
    CS(cusolverDnDgetrf_bufferSize(H, 2, 2, dA, 2, &Lw));
    double *dW = dev(std::vector<double>(Lw));
    CS(cusolverDnDgetrf(H, 2, 2, dA, 2, dW, dPiv, dInfo));
    EXPECT(info(dInfo) == 2);
    cudaFree(dA), cudaFree(dPiv), cudaFree(dInfo);
  }
  EXPECT(cusolverDnDgetrf(H, -1, 2, nullptr, 1, nullptr, nullptr, nullptr) == CUSOLVER_STATUS_INVALID_VALUE);
  CS(cusolverDnDestroy(H));
  if (onZluda()) // NVIDIA's crashes on a destroyed handle
    EXPECT(cusolverDnDestroy(H) == CUSOLVER_STATUS_NOT_INITIALIZED);
  cudaStreamDestroy(S);
  return verdict("cusolver_dense", Bad);
}
