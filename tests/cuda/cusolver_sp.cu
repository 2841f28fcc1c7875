// The rest of cusolverSp on our libcusolver, each against what defines it:
// the orderings (symrcm, symmdq, symamd, metisnd) are permutations, RCM
// recovers a small bandwidth from a shuffled grid and the fill-reducing ones
// give less Cholesky fill (counted here by a symbolic elimination) than the
// grid's own banded order; csrperm gives B(i,j) = A(p[i], q[j]) with its map; csrzfd's
// row permutation puts a nonzero on every diagonal entry (numnz = n; n - 1
// for a structurally singular matrix); csrlsqvqr solves least squares (the
// normal equations hold, the rank and residual norm are right, also for a
// rank-deficient matrix); csreigvsi finds the eigenpair nearest the shift
// (1D Laplacian: eigenvalues 2 - 2 cos(k pi / (n+1))), host and device
// forms; csreigs counts them in a box; the batched QR solves each system of
// a batch sharing one pattern (S, D, C, Z); the linear solves above the dense
// limit (sparse LU: residuals, singular and indefinite systems); the preview
// API's low-level Cholesky (host and device; diag(L) against det(A)) and QR
// (shifted square and least-squares systems). Written from the cuSOLVER
// reference.
#include "libs_common.h"
#include "values_common.h"
#include <cusolverSp.h>
#include <cusolverSp_LOWLEVEL_PREVIEW.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <numeric>
#include <set>
#include <tuple>
#include <type_traits>
#include <vector>

static int Bad = 0;
static void check(const char *What, double Err, double Bound) {
  if (!(Err <= Bound)) {
    std::printf("FAIL %s: %.3g > %.3g\n", What, Err, Bound);
    ++Bad;
  }
}

struct Pattern {
  int N;
  std::vector<int> Row{0}, Col;
};

/// A G x G grid's 5-point pattern, its nodes numbered by \p Perm (new number of grid node k is Perm[k]).
static Pattern grid(int G, const std::vector<int> &Perm) {
  int N = G * G;
  std::vector<std::set<int>> Adj(N);
  for (int Y = 0; Y < G; ++Y)
    for (int X = 0; X < G; ++X) {
      int V = Perm[Y * G + X];
      Adj[V].insert(V);
      if (X + 1 < G) {
        Adj[V].insert(Perm[Y * G + X + 1]);
        Adj[Perm[Y * G + X + 1]].insert(V);
      }
      if (Y + 1 < G) {
        Adj[V].insert(Perm[(Y + 1) * G + X]);
        Adj[Perm[(Y + 1) * G + X]].insert(V);
      }
    }
  Pattern P{N};
  for (auto &S : Adj) {
    P.Col.insert(P.Col.end(), S.begin(), S.end());
    P.Row.push_back(int(P.Col.size()));
  }
  return P;
}
static bool isPermutation(const std::vector<int> &P) {
  std::vector<int> S = P;
  std::sort(S.begin(), S.end());
  for (size_t I = 0; I < S.size(); ++I)
    if (S[I] != int(I))
      return false;
  return true;
}
/// Bandwidth of P A P^T.
static int bandwidth(const Pattern &A, const std::vector<int> &P) {
  std::vector<int> Inv(A.N);
  for (int I = 0; I < A.N; ++I)
    Inv[P[I]] = I;
  int B = 0;
  for (int I = 0; I < A.N; ++I)
    for (int K = A.Row[I]; K < A.Row[I + 1]; ++K)
      B = std::max(B, std::abs(Inv[I] - Inv[A.Col[K]]));
  return B;
}
/// Nonzeros of the Cholesky factor of P A P^T (symbolic elimination on a dense boolean matrix).
static long fill(const Pattern &A, const std::vector<int> &P) {
  std::vector<int> Inv(A.N);
  for (int I = 0; I < A.N; ++I)
    Inv[P[I]] = I;
  std::vector<std::vector<char>> S(A.N, std::vector<char>(A.N, 0));
  for (int I = 0; I < A.N; ++I)
    for (int K = A.Row[I]; K < A.Row[I + 1]; ++K) {
      S[Inv[I]][Inv[A.Col[K]]] = 1;
      S[Inv[A.Col[K]]][Inv[I]] = 1;
    }
  long Count = 0;
  for (int K = 0; K < A.N; ++K) {
    std::vector<int> Nb;
    for (int I = K + 1; I < A.N; ++I)
      if (S[I][K])
        Nb.push_back(I);
    Count += long(Nb.size()) + 1;
    for (int I : Nb)
      for (int J : Nb)
        S[I][J] = 1;
  }
  return Count;
}

static void orderings(cusolverSpHandle_t H, cusparseMatDescr_t D) {
  const int G = 14;
  std::vector<int> Shuffle(G * G);
  std::iota(Shuffle.begin(), Shuffle.end(), 0);
  std::shuffle(Shuffle.begin(), Shuffle.end(), Rng);
  Pattern A = grid(G, Shuffle);
  int Nnz = int(A.Col.size());
  std::vector<int> Id(A.N);
  std::iota(Id.begin(), Id.end(), 0);
  // The grid's own row-by-row order (banded, bandwidth G) is the reference the orderings must beat.
  long Fill0 = fill(A, Shuffle);
  std::vector<int> P(A.N, -1);
  CS(cusolverSpXcsrsymrcmHost(H, A.N, Nnz, D, A.Row.data(), A.Col.data(), P.data()));
  EXPECT(isPermutation(P));
  // A grid's bandwidth in its natural order is G; RCM's level sets of a grid are its diagonals.
  int Bw = bandwidth(A, P), Bw0 = bandwidth(A, Id);
  if (!(Bw <= 2 * G)) {
    std::printf("FAIL symrcm: bandwidth %d (shuffled %d, grid order %d)\n", Bw, Bw0, G);
    ++Bad;
  }
  struct {
    const char *Name;
    cusolverStatus_t (*Fn)(cusolverSpHandle_t, int, int, const cusparseMatDescr_t, const int *, const int *, int *);
  } Fill[] = {{"symmdq", cusolverSpXcsrsymmdqHost}, {"symamd", cusolverSpXcsrsymamdHost}};
  for (auto &F : Fill) {
    std::fill(P.begin(), P.end(), -1);
    CS(F.Fn(H, A.N, Nnz, D, A.Row.data(), A.Col.data(), P.data()));
    EXPECT(isPermutation(P));
    long Fl = fill(A, P);
    if (!(Fl < Fill0)) {
      std::printf("FAIL %s: fill %ld, grid order %ld\n", F.Name, Fl, Fill0);
      ++Bad;
    }
  }
  std::fill(P.begin(), P.end(), -1);
  CS(cusolverSpXcsrmetisndHost(H, A.N, Nnz, D, A.Row.data(), A.Col.data(), nullptr, P.data()));
  EXPECT(isPermutation(P));
  long Fl = fill(A, P);
  if (!(Fl < Fill0)) {
    std::printf("FAIL metisnd: fill %ld, grid order %ld\n", Fl, Fill0);
    ++Bad;
  }
}

static void permute(cusolverSpHandle_t H, cusparseMatDescr_t D) {
  const int M = 9, N = 7;
  std::vector<int> Row{0}, Col;
  std::vector<double> Val;
  for (int I = 0; I < M; ++I) {
    for (int J = 0; J < N; ++J)
      if (rnd() > 0.3) {
        Col.push_back(J);
        Val.push_back(rnd());
      }
    Row.push_back(int(Col.size()));
  }
  int Nnz = int(Col.size());
  std::vector<int> P(M), Q(N), Map(Nnz);
  std::iota(P.begin(), P.end(), 0);
  std::iota(Q.begin(), Q.end(), 0);
  std::iota(Map.begin(), Map.end(), 0);
  std::shuffle(P.begin(), P.end(), Rng);
  std::shuffle(Q.begin(), Q.end(), Rng);
  size_t Bytes = 0;
  CS(cusolverSpXcsrperm_bufferSizeHost(H, M, N, Nnz, D, Row.data(), Col.data(), P.data(), Q.data(), &Bytes));
  std::vector<char> Buf(Bytes + 1);
  std::vector<int> BRow = Row, BCol = Col;
  CS(cusolverSpXcsrpermHost(H, M, N, Nnz, D, BRow.data(), BCol.data(), P.data(), Q.data(), Map.data(), Buf.data()));
  EXPECT(isPermutation(Map));
  std::vector<double> Ad(M * N, 0), Bd(M * N, 0);
  for (int I = 0; I < M; ++I)
    for (int K = Row[I]; K < Row[I + 1]; ++K)
      Ad[I * N + Col[K]] = Val[K];
  EXPECT(BRow[M] == Nnz);
  for (int I = 0; I < M; ++I)
    for (int K = BRow[I]; K < BRow[I + 1]; ++K)
      Bd[I * N + BCol[K]] = Val[Map[K]];
  for (int I = 0; I < M; ++I)
    for (int J = 0; J < N; ++J)
      EXPECT(Bd[I * N + J] == Ad[P[I] * N + Q[J]]);
}

static void zeroFree(cusolverSpHandle_t H, cusparseMatDescr_t D) {
  for (int Singular = 0; Singular < 2; ++Singular) {
    const int N = 30;
    // A random permutation matrix plus random entries: a perfect matching exists; without column 7 it does not.
    std::vector<int> Pi(N);
    std::iota(Pi.begin(), Pi.end(), 0);
    std::shuffle(Pi.begin(), Pi.end(), Rng);
    std::vector<std::vector<double>> A(N, std::vector<double>(N, 0));
    for (int I = 0; I < N; ++I) {
      for (int K = 0; K < 2; ++K)
        A[I][std::uniform_int_distribution<int>(0, N - 1)(Rng)] = rnd() + 2;
      A[I][I] = 0; // an explicit zero on the diagonal (unless the permutation puts a value there): not a nonzero
      A[I][Pi[I]] = 1 + rnd() * rnd();
    }
    if (Singular)
      for (int I = 0; I < N; ++I)
        A[I][7] = 0;
    std::vector<int> Row{0}, Col;
    std::vector<double> Val;
    for (int I = 0; I < N; ++I) {
      for (int J = 0; J < N; ++J)
        if (A[I][J] != 0 || I == J) {
          Col.push_back(J);
          Val.push_back(A[I][J]);
        }
      Row.push_back(int(Col.size()));
    }
    std::vector<int> P(N, -1);
    int NumNz = -1;
    CS(cusolverSpDcsrzfdHost(H, N, int(Col.size()), D, Val.data(), Row.data(), Col.data(), P.data(), &NumNz));
    EXPECT(isPermutation(P));
    EXPECT(NumNz == (Singular ? N - 1 : N));
    int Diag = 0;
    for (int I = 0; I < N; ++I)
      Diag += A[P[I]][I] != 0;
    EXPECT(Diag == NumNz);
  }
}

template <typename T> struct Lsq;
#define LSQ(T, p)                                                                                                      \
  template <> struct Lsq<T> {                                                                                          \
    static constexpr auto Fn = cusolverSp##p##csrlsqvqrHost;                                                           \
  };
LSQ(float, S)
LSQ(double, D)
LSQ(cuComplex, C)
LSQ(cuDoubleComplex, Z)

/// min ||A x - b||: A^H (A x - b) = 0 and the residual norm, for a full-rank and a rank-deficient A.
template <typename T> static void leastSquares(cusolverSpHandle_t H, cusparseMatDescr_t D, double Tol) {
  using R = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, cuComplex>, float, double>;
  const int M = 14, N = 6;
  for (int Deficient = 0; Deficient < 2; ++Deficient) {
    std::vector<Z> A(M * N); // row-major
    for (int I = 0; I < M; ++I)
      for (int J = 0; J < N; ++J)
        if (rnd() > -0.2)
          A[I * N + J] = z(make<T>(Z(rnd(), rnd()))); // real types keep the real part
    for (int J = 0; J < N; ++J)
      A[J * N + J] = z(make<T>(Z(2 + rnd(), rnd()))); // full column rank
    if (Deficient)
      for (int I = 0; I < M; ++I)
        A[I * N + 4] = A[I * N + 1]; // column 4 repeats column 1: rank n - 1
    std::vector<int> Row{0}, Col;
    std::vector<T> Val;
    for (int I = 0; I < M; ++I) {
      for (int J = 0; J < N; ++J)
        if (A[I * N + J] != Z(0)) {
          Col.push_back(J);
          Val.push_back(make<T>(A[I * N + J]));
        }
      Row.push_back(int(Col.size()));
    }
    std::vector<T> B(M), X(N);
    std::vector<Z> Bz(M);
    for (int I = 0; I < M; ++I) {
      B[I] = make<T>(Z(rnd(), rnd()));
      Bz[I] = z(B[I]);
    }
    int Rank = -1;
    std::vector<int> P(N, -1);
    R MinNorm = -1;
    CS(Lsq<T>::Fn(H, M, N, int(Col.size()), D, Val.data(), Row.data(), Col.data(), B.data(), R(Tol), &Rank,
                  X.data(), P.data(), &MinNorm));
    EXPECT(Rank == (Deficient ? N - 1 : N));
    EXPECT(isPermutation(P));
    std::vector<Z> Res(M);
    double ResNorm = 0, Scale = 0;
    for (int I = 0; I < M; ++I) {
      Z S = 0;
      for (int J = 0; J < N; ++J)
        S += A[I * N + J] * z(X[J]);
      Res[I] = S - Bz[I];
      ResNorm += std::norm(Res[I]);
      Scale += std::norm(Bz[I]);
    }
    ResNorm = std::sqrt(ResNorm);
    double Eps = sizeof(R) == 4 ? 1e-4 : 1e-11;
    check("csrlsqvqr |Ax-b| vs min_norm", std::fabs(ResNorm - double(MinNorm)), Eps * std::sqrt(Scale) * 10);
    double Normal = 0; // A^H r = 0 at the minimum
    for (int J = 0; J < N; ++J) {
      Z S = 0;
      for (int I = 0; I < M; ++I)
        S += std::conj(A[I * N + J]) * Res[I];
      Normal = std::max(Normal, std::abs(S));
    }
    check("csrlsqvqr normal equations", Normal, Eps * 100 * std::sqrt(Scale));
  }
}

/// The 1D Laplacian tridiag(-1, 2, -1): eigenvalues 2 - 2 cos(k pi / (n + 1)).
template <typename T> static void eigen(cusolverSpHandle_t H, cusparseMatDescr_t D);
template <> void eigen<double>(cusolverSpHandle_t H, cusparseMatDescr_t D) {
  const int N = 25;
  std::vector<int> Row{0}, Col;
  std::vector<double> Val;
  for (int I = 0; I < N; ++I) {
    for (int J = std::max(0, I - 1); J <= std::min(N - 1, I + 1); ++J) {
      Col.push_back(J);
      Val.push_back(I == J ? 2.0 : -1.0);
    }
    Row.push_back(int(Col.size()));
  }
  int Nnz = int(Col.size());
  auto Lambda = [&](int K) { return 2 - 2 * std::cos(K * M_PI / (N + 1)); };
  const double Mu0 = Lambda(7) + 0.2 * (Lambda(8) - Lambda(7)); // nearest: the 7th
  std::vector<double> X0(N, 1.0), X(N);
  double Mu = 0;
  CS(cusolverSpDcsreigvsiHost(H, N, Nnz, D, Val.data(), Row.data(), Col.data(), Mu0, X0.data(), 100, 1e-12, &Mu,
                              X.data()));
  check("csreigvsiHost eigenvalue", std::fabs(Mu - Lambda(7)), 1e-10);
  auto Residual = [&](const std::vector<double> &V, double L) {
    double E = 0, Nv = 0;
    for (int I = 0; I < N; ++I) {
      double S = 0;
      for (int K = Row[I]; K < Row[I + 1]; ++K)
        S += Val[K] * V[Col[K]];
      E = std::max(E, std::fabs(S - L * V[I]));
      Nv += V[I] * V[I];
    }
    return std::max(E, std::fabs(std::sqrt(Nv) - 1)); // a unit vector
  };
  check("csreigvsiHost eigenvector", Residual(X, Mu), 1e-9);
  // The device form, on a stream.
  double *dVal = dev(Val), *dX0 = dev(X0), *dX = dev(X), *dMu = dev(std::vector<double>(1, 0));
  int *dRow = dev(Row), *dCol = dev(Col);
  cudaStream_t S;
  CHECK(cudaStreamCreate(&S));
  CS(cusolverSpSetStream(H, S));
  const double Mu1 = Lambda(20) - 0.1 * (Lambda(20) - Lambda(19));
  CS(cusolverSpDcsreigvsi(H, N, Nnz, D, dVal, dRow, dCol, Mu1, dX0, 100, 1e-12, dMu, dX));
  CHECK(cudaStreamSynchronize(S));
  double MuD = host(dMu, 1)[0];
  check("csreigvsi eigenvalue", std::fabs(MuD - Lambda(20)), 1e-10);
  check("csreigvsi eigenvector", Residual(host(dX, N), MuD), 1e-9);
  CS(cusolverSpSetStream(H, 0));
  CHECK(cudaStreamDestroy(S));
  // Counting: eigenvalues in the box from halfway between Lambda(4) and Lambda(5) to halfway between Lambda(12)
  // and Lambda(13), imaginary parts in [-1, 1], are k = 5..12 (the contour kept away from every eigenvalue,
  // which a contour integral needs).
  int Num = -1;
  CS(cusolverSpDcsreigsHost(H, N, Nnz, D, Val.data(), Row.data(), Col.data(),
                            make_cuDoubleComplex((Lambda(4) + Lambda(5)) / 2, -1),
                            make_cuDoubleComplex((Lambda(12) + Lambda(13)) / 2, 1), &Num));
  if (Num != 8)
    std::printf("csreigsHost counted %d\n", Num);
  EXPECT(Num == 8);
  CS(cusolverSpDcsreigsHost(H, N, Nnz, D, Val.data(), Row.data(), Col.data(), make_cuDoubleComplex(-1, 0.5),
                            make_cuDoubleComplex(5, 1), &Num));
  EXPECT(Num == 0); // none off the real axis
  for (auto P : {(void *)dVal, (void *)dX0, (void *)dX, (void *)dMu, (void *)dRow, (void *)dCol})
    CHECK(cudaFree(P));
}

template <typename T> struct Qr;
#define QR(T, p)                                                                                                       \
  template <> struct Qr<T> {                                                                                           \
    static constexpr auto Info = cusolverSp##p##csrqrBufferInfoBatched;                                                \
    static constexpr auto Solve = cusolverSp##p##csrqrsvBatched;                                                       \
  };
QR(float, S)
QR(double, D)
QR(cuComplex, C)
QR(cuDoubleComplex, Z)

/// Each system of the batch by its normal equations' residual (least squares when m > n).
template <typename T> static void batchedQr(cusolverSpHandle_t H, cusparseMatDescr_t D, int M, int N) {
  const int Batch = 5;
  std::vector<int> Row{0}, Col;
  for (int I = 0; I < M; ++I) {
    for (int J = 0; J < N; ++J)
      if (I == J || rnd() > 0.2) {
        Col.push_back(J);
      }
    Row.push_back(int(Col.size()));
  }
  int Nnz = int(Col.size());
  std::vector<T> Val(size_t(Nnz) * Batch), B(size_t(M) * Batch), X(size_t(N) * Batch);
  for (int J = 0; J < Batch; ++J) {
    for (int I = 0; I < M; ++I)
      for (int K = Row[I]; K < Row[I + 1]; ++K)
        Val[J * Nnz + K] = make<T>(Z(rnd() + (Col[K] == I ? 3 : 0), rnd()));
    for (int I = 0; I < M; ++I)
      B[J * M + I] = make<T>(Z(rnd(), rnd()));
  }
  csrqrInfo_t Info;
  CS(cusolverSpCreateCsrqrInfo(&Info));
  int *dRow = dev(Row), *dCol = dev(Col);
  T *dVal = dev(Val), *dB = dev(B), *dX = dev(X);
  CS(cusolverSpXcsrqrAnalysisBatched(H, M, N, Nnz, D, dRow, dCol, Info));
  size_t Internal = 0, Work = 0;
  CS(Qr<T>::Info(H, M, N, Nnz, D, dVal, dRow, dCol, Batch, Info, &Internal, &Work));
  void *Buf;
  CHECK(cudaMalloc(&Buf, Work + 16));
  CS(Qr<T>::Solve(H, M, N, Nnz, D, dVal, dRow, dCol, dB, dX, Batch, Info, Buf));
  X = host(dX, X.size());
  double Eps = std::is_same_v<T, float> || std::is_same_v<T, cuComplex> ? 1e-4 : 1e-12;
  for (int J = 0; J < Batch; ++J) {
    std::vector<Z> Res(M);
    for (int I = 0; I < M; ++I) {
      Z S = 0;
      for (int K = Row[I]; K < Row[I + 1]; ++K)
        S += z(Val[J * Nnz + K]) * z(X[J * N + Col[K]]);
      Res[I] = S - z(B[J * M + I]);
    }
    double E = 0;
    for (int C = 0; C < N; ++C) {
      Z S = 0;
      for (int I = 0; I < M; ++I)
        for (int K = Row[I]; K < Row[I + 1]; ++K)
          if (Col[K] == C)
            S += std::conj(z(Val[J * Nnz + K])) * Res[I];
      E = std::max(E, std::abs(S));
    }
    check("csrqrsvBatched normal equations", E, Eps * 100);
  }
  CS(cusolverSpDestroyCsrqrInfo(Info));
  for (void *P : {(void *)dRow, (void *)dCol, (void *)dVal, (void *)dB, (void *)dX, Buf})
    CHECK(cudaFree(P));
}

/// Systems above the dense limit (order 2025): a 2D convection-diffusion operator with its rows shuffled (LU must
/// pivot) by LU and QR, host and device; a symmetric positive definite one by Cholesky; singular and indefinite
/// ones reported.
static void largeSystems(cusolverSpHandle_t H, cusparseMatDescr_t D) {
  const int G = 45, N = G * G;
  std::vector<int> Shuffle(N);
  std::iota(Shuffle.begin(), Shuffle.end(), 0);
  std::shuffle(Shuffle.begin(), Shuffle.end(), Rng);
  auto Build = [&](bool Sym, bool ShuffleRows) {
    std::vector<std::vector<std::pair<int, double>>> Rows(N);
    for (int Y = 0; Y < G; ++Y)
      for (int X = 0; X < G; ++X) {
        int I = Y * G + X;
        auto &R = Rows[ShuffleRows ? Shuffle[I] : I];
        R.push_back({I, 4 + 0.1 * rnd()});
        double C = Sym ? 0 : 0.3;
        if (X > 0) R.push_back({I - 1, -1 - C});
        if (X + 1 < G) R.push_back({I + 1, -1 + C});
        if (Y > 0) R.push_back({I - G, -1 - C});
        if (Y + 1 < G) R.push_back({I + G, -1 + C});
      }
    std::vector<int> Row{0}, Col;
    std::vector<double> Val;
    for (auto &R : Rows) {
      std::sort(R.begin(), R.end());
      for (auto [C, V] : R)
        Col.push_back(C), Val.push_back(V);
      Row.push_back(int(Col.size()));
    }
    return std::make_tuple(Row, Col, Val);
  };
  auto Residual = [&](const std::vector<int> &Row, const std::vector<int> &Col, const std::vector<double> &Val,
                      const std::vector<double> &X, const std::vector<double> &B) {
    double E = 0, Nb = 0;
    for (int I = 0; I < N; ++I) {
      double S = 0;
      for (int K = Row[I]; K < Row[I + 1]; ++K)
        S += Val[K] * X[Col[K]];
      E = std::max(E, std::fabs(S - B[I]));
      Nb = std::max(Nb, std::fabs(B[I]));
    }
    return E / Nb;
  };
  std::vector<double> B(N), X(N);
  for (auto &V : B)
    V = rnd();
  {
    auto [Row, Col, Val] = Build(false, true);
    int Nnz = int(Col.size()), Sing = -7;
    CS(cusolverSpDcsrlsvluHost(H, N, Nnz, D, Val.data(), Row.data(), Col.data(), B.data(), 1e-12, 0, X.data(), &Sing));
    EXPECT(Sing == -1);
    check("large csrlsvluHost residual", Residual(Row, Col, Val, X, B), 1e-12);
    std::fill(X.begin(), X.end(), 0);
    CS(cusolverSpDcsrlsvqrHost(H, N, Nnz, D, Val.data(), Row.data(), Col.data(), B.data(), 1e-12, 0, X.data(), &Sing));
    EXPECT(Sing == -1);
    check("large csrlsvqrHost residual", Residual(Row, Col, Val, X, B), 1e-12);
    int *dRow = dev(Row), *dCol = dev(Col);
    double *dVal = dev(Val), *dB = dev(B), *dX = dev(std::vector<double>(N, 0));
    CS(cusolverSpDcsrlsvqr(H, N, Nnz, D, dVal, dRow, dCol, dB, 1e-12, 0, dX, &Sing));
    EXPECT(Sing == -1);
    check("large csrlsvqr residual", Residual(Row, Col, Val, host(dX, N), B), 1e-12);
    // Singular: one row empty of values.
    auto Zero = Val;
    for (int K = Row[100]; K < Row[101]; ++K)
      Zero[K] = 0;
    CS(cusolverSpDcsrlsvluHost(H, N, Nnz, D, Zero.data(), Row.data(), Col.data(), B.data(), 1e-12, 0, X.data(),
                               &Sing));
    EXPECT(Sing >= 0 && Sing < N);
    for (void *P : {(void *)dRow, (void *)dCol, (void *)dVal, (void *)dB, (void *)dX})
      CHECK(cudaFree(P));
  }
  {
    auto [Row, Col, Val] = Build(true, false);
    int Nnz = int(Col.size()), Sing = -7;
    std::fill(X.begin(), X.end(), 0);
    CS(cusolverSpDcsrlsvcholHost(H, N, Nnz, D, Val.data(), Row.data(), Col.data(), B.data(), 1e-12, 0, X.data(),
                                 &Sing));
    EXPECT(Sing == -1);
    check("large csrlsvcholHost residual", Residual(Row, Col, Val, X, B), 1e-12);
    int *dRow = dev(Row), *dCol = dev(Col);
    double *dVal = dev(Val), *dB = dev(B), *dX = dev(std::vector<double>(N, 0));
    CS(cusolverSpDcsrlsvchol(H, N, Nnz, D, dVal, dRow, dCol, dB, 1e-12, 0, dX, &Sing));
    EXPECT(Sing == -1);
    check("large csrlsvchol residual", Residual(Row, Col, Val, host(dX, N), B), 1e-12);
    // Indefinite: one diagonal entry negative.
    auto Neg = Val;
    for (int K = Row[500]; K < Row[501]; ++K)
      if (Col[K] == 500)
        Neg[K] = -4;
    CS(cusolverSpDcsrlsvcholHost(H, N, Nnz, D, Neg.data(), Row.data(), Col.data(), B.data(), 1e-12, 0, X.data(),
                                 &Sing));
    EXPECT(Sing >= 0 && Sing < N);
    for (void *P : {(void *)dRow, (void *)dCol, (void *)dVal, (void *)dB, (void *)dX})
      CHECK(cudaFree(P));
  }
  // Single precision, complex: LU of the shuffled operator.
  {
    auto [Row, Col, Val] = Build(false, true);
    std::vector<cuComplex> Vc(Val.size()), Bc(N), Xc(N);
    for (size_t K = 0; K < Val.size(); ++K)
      Vc[K] = make_cuComplex(float(Val[K]), Col[K] == int(K % N) ? 0.5f : 0.f);
    for (auto &V : Bc)
      V = make_cuComplex(float(rnd()), float(rnd()));
    int Sing = -7;
    CS(cusolverSpCcsrlsvluHost(H, N, int(Col.size()), D, Vc.data(), Row.data(), Col.data(), Bc.data(), 1e-6f, 0,
                               Xc.data(), &Sing));
    EXPECT(Sing == -1);
    double E = 0;
    for (int I = 0; I < N; ++I) {
      Z S = 0;
      for (int K = Row[I]; K < Row[I + 1]; ++K)
        S += z(Vc[K]) * z(Xc[Col[K]]);
      E = std::max(E, std::abs(S - z(Bc[I])));
    }
    check("large complex csrlsvluHost residual", E, 1e-4);
  }
}

/// The preview API's low-level Cholesky, host and device: A x = b, diag(L) against det(A) (computed here by
/// elimination in long double), and an indefinite matrix's zero pivot.
static void lowLevelCholesky(cusolverSpHandle_t H, cusparseMatDescr_t D) {
  const int G = 6, N = G * G;
  std::vector<int> Row{0}, Col;
  std::vector<double> Val;
  std::vector<long double> Dense(N * N, 0);
  for (int I = 0; I < N; ++I) {
    int X = I % G, Y = I / G;
    for (int J : {I - G, I - 1, I, I + 1, I + G}) {
      if (J < 0 || J >= N || (J == I - 1 && X == 0) || (J == I + 1 && X == G - 1))
        continue;
      double V = J == I ? 4.5 : -1;
      Col.push_back(J), Val.push_back(V), Dense[I * N + J] = V;
    }
    Row.push_back(int(Col.size()));
    (void)Y;
  }
  const int Nnz = int(Col.size());
  long double LogDet = 0; // of the SPD matrix, by elimination without pivoting
  for (int K = 0; K < N; ++K) {
    LogDet += std::log(Dense[K * N + K]);
    for (int I = K + 1; I < N; ++I) {
      long double F = Dense[I * N + K] / Dense[K * N + K];
      for (int J = K; J < N; ++J)
        Dense[I * N + J] -= F * Dense[K * N + J];
    }
  }
  std::vector<double> B(N), X(N);
  for (auto &V : B)
    V = rnd();
  auto Residual = [&](const std::vector<double> &Xs) {
    double E = 0;
    for (int I = 0; I < N; ++I) {
      double S = 0;
      for (int K = Row[I]; K < Row[I + 1]; ++K)
        S += Val[K] * Xs[Col[K]];
      E = std::max(E, std::fabs(S - B[I]));
    }
    return E;
  };
  csrcholInfoHost_t Hi;
  CS(cusolverSpCreateCsrcholInfoHost(&Hi));
  CS(cusolverSpXcsrcholAnalysisHost(H, N, Nnz, D, Row.data(), Col.data(), Hi));
  size_t Internal = 0, Work = 0;
  CS(cusolverSpDcsrcholBufferInfoHost(H, N, Nnz, D, Val.data(), Row.data(), Col.data(), Hi, &Internal, &Work));
  std::vector<char> Buf(Work + 16);
  CS(cusolverSpDcsrcholFactorHost(H, N, Nnz, D, Val.data(), Row.data(), Col.data(), Hi, Buf.data()));
  int Sing = -7;
  CS(cusolverSpDcsrcholZeroPivotHost(H, Hi, 1e-14, &Sing));
  EXPECT(Sing == -1);
  CS(cusolverSpDcsrcholSolveHost(H, N, B.data(), X.data(), Hi, Buf.data()));
  check("csrcholSolveHost residual", Residual(X), 1e-12);
  // Indefinite: the diagonal entry of row 9 negative.
  auto Neg = Val;
  for (int K = Row[9]; K < Row[10]; ++K)
    if (Col[K] == 9)
      Neg[K] = -4.5;
  CS(cusolverSpDcsrcholFactorHost(H, N, Nnz, D, Neg.data(), Row.data(), Col.data(), Hi, Buf.data()));
  CS(cusolverSpDcsrcholZeroPivotHost(H, Hi, 1e-14, &Sing));
  EXPECT(Sing >= 0 && Sing < N);
  CS(cusolverSpDestroyCsrcholInfoHost(Hi));
  // Device forms.
  csrcholInfo_t Di;
  CS(cusolverSpCreateCsrcholInfo(&Di));
  int *dRow = dev(Row), *dCol = dev(Col);
  double *dVal = dev(Val), *dB = dev(B), *dX = dev(std::vector<double>(N, 0)), *dDiag = dev(std::vector<double>(N, 0));
  CS(cusolverSpXcsrcholAnalysis(H, N, Nnz, D, dRow, dCol, Di));
  CS(cusolverSpDcsrcholBufferInfo(H, N, Nnz, D, dVal, dRow, dCol, Di, &Internal, &Work));
  void *dBuf;
  CHECK(cudaMalloc(&dBuf, Work + 16));
  CS(cusolverSpDcsrcholFactor(H, N, Nnz, D, dVal, dRow, dCol, Di, dBuf));
  CS(cusolverSpDcsrcholZeroPivot(H, Di, 1e-14, &Sing));
  EXPECT(Sing == -1);
  CS(cusolverSpDcsrcholSolve(H, N, dB, dX, Di, dBuf));
  check("csrcholSolve residual", Residual(host(dX, N)), 1e-12);
  CS(cusolverSpDcsrcholDiag(H, Di, dDiag));
  double LogDiag = 0;
  for (double V : host(dDiag, N))
    LogDiag += 2 * std::log(V);
  check("csrcholDiag: log det", std::fabs(LogDiag - double(LogDet)), 1e-10);
  CS(cusolverSpDestroyCsrcholInfo(Di));
  for (void *P : {(void *)dRow, (void *)dCol, (void *)dVal, (void *)dB, (void *)dX, (void *)dDiag, dBuf})
    CHECK(cudaFree(P));
}

/// The preview API's low-level QR, host and device: (A - mu I) x = b for a square A (shifted), least squares for
/// an overdetermined one (the normal equations hold).
static void lowLevelQr(cusolverSpHandle_t H, cusparseMatDescr_t D) {
  for (int Shape = 0; Shape < 3; ++Shape) {
    const bool Host = Shape < 2, Square = Shape != 1;
    const int M = Square ? 30 : 14, N = Square ? 30 : 6;
    const double Mu = Square ? 0.5 : 0.0;
    std::vector<int> Row{0}, Col;
    std::vector<double> Val, Dense(size_t(M) * N, 0);
    for (int I = 0; I < M; ++I) {
      for (int J = 0; J < N; ++J)
        if (I == J || rnd() > 0.6) {
          double V = rnd() + (I == J ? 3 : 0);
          Col.push_back(J), Val.push_back(V), Dense[size_t(I) * N + J] = V - (I == J ? Mu : 0);
        }
      Row.push_back(int(Col.size()));
    }
    const int Nnz = int(Col.size());
    std::vector<double> B(M), X(N);
    for (auto &V : B)
      V = rnd();
    size_t Internal = 0, Work = 0;
    int Sing = -7;
    if (Host) {
      csrqrInfoHost_t I;
      CS(cusolverSpCreateCsrqrInfoHost(&I));
      CS(cusolverSpXcsrqrAnalysisHost(H, M, N, Nnz, D, Row.data(), Col.data(), I));
      CS(cusolverSpDcsrqrBufferInfoHost(H, M, N, Nnz, D, Val.data(), Row.data(), Col.data(), I, &Internal, &Work));
      std::vector<char> Buf(Work + 16);
      CS(cusolverSpDcsrqrSetupHost(H, M, N, Nnz, D, Val.data(), Row.data(), Col.data(), Mu, I));
      CS(cusolverSpDcsrqrFactorHost(H, M, N, Nnz, nullptr, nullptr, I, Buf.data()));
      CS(cusolverSpDcsrqrZeroPivotHost(H, I, 1e-12, &Sing));
      std::vector<double> Bc = B; // the solve may use b as its workspace
      CS(cusolverSpDcsrqrSolveHost(H, M, N, Bc.data(), X.data(), I, Buf.data()));
      CS(cusolverSpDestroyCsrqrInfoHost(I));
    } else {
      csrqrInfo_t I;
      CS(cusolverSpCreateCsrqrInfo(&I));
      int *dRow = dev(Row), *dCol = dev(Col);
      double *dVal = dev(Val), *dB = dev(B), *dX = dev(X);
      CS(cusolverSpXcsrqrAnalysis(H, M, N, Nnz, D, dRow, dCol, I));
      CS(cusolverSpDcsrqrBufferInfo(H, M, N, Nnz, D, dVal, dRow, dCol, I, &Internal, &Work));
      void *Buf;
      CHECK(cudaMalloc(&Buf, Work + 16));
      CS(cusolverSpDcsrqrSetup(H, M, N, Nnz, D, dVal, dRow, dCol, Mu, I));
      CS(cusolverSpDcsrqrFactor(H, M, N, Nnz, dB, dX, I, Buf)); // factors and solves
      CS(cusolverSpDcsrqrZeroPivot(H, I, 1e-12, &Sing));
      X = host(dX, N);
      CS(cusolverSpDestroyCsrqrInfo(I));
      for (void *P : {(void *)dRow, (void *)dCol, (void *)dVal, (void *)dB, (void *)dX, Buf})
        CHECK(cudaFree(P));
    }
    EXPECT(Sing == -1);
    std::vector<double> Res(M);
    for (int I = 0; I < M; ++I) {
      double S = -B[I];
      for (int J = 0; J < N; ++J)
        S += Dense[size_t(I) * N + J] * X[J];
      Res[I] = S;
    }
    double E = 0; // A^T r = 0 (for a square system r = 0)
    for (int J = 0; J < N; ++J) {
      double S = 0;
      for (int I = 0; I < M; ++I)
        S += Dense[size_t(I) * N + J] * Res[I];
      E = std::max(E, std::fabs(S));
    }
    check(Host ? "csrqr host normal equations" : "csrqr device normal equations", E, 1e-11);
  }
}

int main() {
  cusolverSpHandle_t H;
  CS(cusolverSpCreate(&H));
  cusparseMatDescr_t D;
  CSP(cusparseCreateMatDescr(&D));
  orderings(H, D);
  permute(H, D);
  zeroFree(H, D);
  leastSquares<float>(H, D, 1e-3);
  leastSquares<double>(H, D, 1e-8);
  leastSquares<cuComplex>(H, D, 1e-3);
  leastSquares<cuDoubleComplex>(H, D, 1e-8);
  eigen<double>(H, D);
  largeSystems(H, D);
  lowLevelCholesky(H, D);
  lowLevelQr(H, D);
  batchedQr<float>(H, D, 12, 8);
  batchedQr<double>(H, D, 12, 8);
  batchedQr<double>(H, D, 10, 10);
  batchedQr<cuComplex>(H, D, 9, 6);
  batchedQr<cuDoubleComplex>(H, D, 9, 6);
  CSP(cusparseDestroyMatDescr(D));
  CS(cusolverSpDestroy(H));
  return verdict("cusolver_sp", Bad);
}
