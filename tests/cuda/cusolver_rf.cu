// cusolverRf on our libcusolver: the LU factors of a first sparse matrix
// (computed here: partial pivoting on a dense copy, the pattern of L and U
// from a symbolic elimination) are handed over with a row permutation P and
// a column permutation Q (P A Q^T = L U); then matrices of the same pattern
// with fresh random values are refactored and solved (A x = f checked by
// its residual), the split and bundled factors extracted (L U = P A Q^T),
// and the batched forms run on several matrices, one of them singular (its
// zero pivot reported). Then the CUDA samples' flow: the first factorization by
// cusolverSp's low-level host LU (csrlu*Host: solve, extract P, Q, L, U with
// P A Q^T = L U checked here) handed to cusolverRf. Written from the cuSOLVER
// reference.
#include "libs_common.h"
#include "values_common.h"
#include <cusolverRf.h>
#include <cusolverSp.h>
#include <cusolverSp_LOWLEVEL_PREVIEW.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

static int Bad = 0;
static const int N = 40;

struct Csr {
  std::vector<int> Row{0}, Col;
  std::vector<double> Val;
};

/// A random sparse pattern with a nonzero diagonal, values fresh for each call of values().
static std::vector<std::vector<char>> pattern() {
  std::vector<std::vector<char>> S(N, std::vector<char>(N, 0));
  for (int I = 0; I < N; ++I) {
    S[I][I] = 1;
    for (int K = 0; K < 3; ++K)
      S[I][std::uniform_int_distribution<int>(0, N - 1)(Rng)] = 1;
  }
  return S;
}
static Csr values(const std::vector<std::vector<char>> &S) {
  Csr A;
  for (int I = 0; I < N; ++I) {
    for (int J = 0; J < N; ++J)
      if (S[I][J]) {
        A.Col.push_back(J);
        A.Val.push_back(I == J ? 4 + rnd() : rnd());
      }
    A.Row.push_back(int(A.Col.size()));
  }
  return A;
}
static std::vector<double> dense(const Csr &A) {
  std::vector<double> D(N * N, 0);
  for (int I = 0; I < N; ++I)
    for (int K = A.Row[I]; K < A.Row[I + 1]; ++K)
      D[I * N + A.Col[K]] += A.Val[K];
  return D;
}

/// P A Q^T = L U by partial pivoting over the rows of A Q^T, in long double; L and U as CSR on the symbolic
/// pattern of the elimination (so that a refactorization of another matrix of A's pattern fits in it).
static void factor(const Csr &A, const std::vector<int> &Q, std::vector<int> &P, Csr &L, Csr &U) {
  std::vector<long double> B(N * N);
  std::vector<char> S(N * N, 0);
  auto Ad = dense(A);
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J) {
      B[I * N + J] = Ad[I * N + Q[J]];
      S[I * N + J] = B[I * N + J] != 0;
    }
  P.resize(N);
  std::iota(P.begin(), P.end(), 0);
  for (int K = 0; K < N; ++K) {
    int Best = K;
    for (int I = K + 1; I < N; ++I)
      if (std::fabs((double)B[I * N + K]) > std::fabs((double)B[Best * N + K]))
        Best = I;
    for (int J = 0; J < N; ++J) {
      std::swap(B[K * N + J], B[Best * N + J]);
      std::swap(S[K * N + J], S[Best * N + J]);
    }
    std::swap(P[K], P[Best]);
    for (int I = K + 1; I < N; ++I) {
      if (!S[I * N + K])
        continue;
      B[I * N + K] /= B[K * N + K];
      for (int J = K + 1; J < N; ++J)
        if (S[K * N + J]) {
          S[I * N + J] = 1;
          B[I * N + J] -= B[I * N + K] * B[K * N + J];
        }
    }
  }
  L = Csr{};
  U = Csr{};
  for (int I = 0; I < N; ++I) {
    for (int J = 0; J < I; ++J)
      if (S[I * N + J]) {
        L.Col.push_back(J);
        L.Val.push_back(double(B[I * N + J]));
      }
    L.Col.push_back(I);
    L.Val.push_back(1.0); // the unit diagonal, stored (CUSOLVERRF_UNIT_DIAGONAL_STORED_L)
    L.Row.push_back(int(L.Col.size()));
    for (int J = I; J < N; ++J)
      if (S[I * N + J] || J == I) {
        U.Col.push_back(J);
        U.Val.push_back(double(B[I * N + J]));
      }
    U.Row.push_back(int(U.Col.size()));
  }
}

static double residual(const Csr &A, const std::vector<double> &X, const std::vector<double> &F) {
  double E = 0, Nf = 0;
  for (int I = 0; I < N; ++I) {
    long double S = 0;
    for (int K = A.Row[I]; K < A.Row[I + 1]; ++K)
      S += (long double)A.Val[K] * X[A.Col[K]];
    E = std::max(E, std::fabs(double(S - F[I])));
    Nf = std::max(Nf, std::fabs(F[I]));
  }
  return E / Nf;
}

/// max |(L U)(i,j) - (P A Q^T)(i,j)| for split factors on the host.
static double factorError(const Csr &A, const std::vector<int> &P, const std::vector<int> &Q, int NnzL, int *Lp,
                          int *Li, double *Lx, int NnzU, int *Up, int *Ui, double *Ux) {
  std::vector<double> Ld(N * N, 0), Ud(N * N, 0), Ad = dense(A);
  EXPECT(Lp[N] == NnzL && Up[N] == NnzU);
  for (int I = 0; I < N; ++I) {
    for (int K = Lp[I]; K < Lp[I + 1]; ++K)
      Ld[I * N + Li[K]] = Lx[K];
    for (int K = Up[I]; K < Up[I + 1]; ++K)
      Ud[I * N + Ui[K]] = Ux[K];
  }
  double E = 0;
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J) {
      long double S = 0;
      for (int K = 0; K < N; ++K)
        S += (long double)Ld[I * N + K] * Ud[K * N + J];
      E = std::max(E, std::fabs(double(S - Ad[P[I] * N + Q[J]])));
    }
  return E;
}

/// cusolverSp's low-level host LU of a matrix with shuffled rows (pivoting needed), then cusolverRf from its factors.
static void lowLevelLu(const std::vector<std::vector<char>> &S) {
  Csr A0 = values(S);
  std::vector<int> Perm(N);
  std::iota(Perm.begin(), Perm.end(), 0);
  std::shuffle(Perm.begin(), Perm.end(), Rng);
  Csr A; // A's rows are A0's in the order Perm
  for (int I = 0; I < N; ++I) {
    for (int K = A0.Row[Perm[I]]; K < A0.Row[Perm[I] + 1]; ++K) {
      A.Col.push_back(A0.Col[K]);
      A.Val.push_back(A0.Val[K]);
    }
    A.Row.push_back(int(A.Col.size()));
  }
  const int Nnz = int(A.Col.size());
  cusolverSpHandle_t Sp;
  CS(cusolverSpCreate(&Sp));
  cusparseMatDescr_t D, DL, DU;
  CSP(cusparseCreateMatDescr(&D));
  CSP(cusparseCreateMatDescr(&DL));
  CSP(cusparseCreateMatDescr(&DU));
  CSP(cusparseSetMatFillMode(DL, CUSPARSE_FILL_MODE_LOWER));
  CSP(cusparseSetMatDiagType(DL, CUSPARSE_DIAG_TYPE_UNIT));
  CSP(cusparseSetMatFillMode(DU, CUSPARSE_FILL_MODE_UPPER));
  csrluInfoHost_t Info;
  CS(cusolverSpCreateCsrluInfoHost(&Info));
  CS(cusolverSpXcsrluAnalysisHost(Sp, N, Nnz, D, A.Row.data(), A.Col.data(), Info));
  size_t Internal = 0, Work = 0;
  CS(cusolverSpDcsrluBufferInfoHost(Sp, N, Nnz, D, A.Val.data(), A.Row.data(), A.Col.data(), Info, &Internal, &Work));
  std::vector<char> Buf(Work + 16);
  CS(cusolverSpDcsrluFactorHost(Sp, N, Nnz, D, A.Val.data(), A.Row.data(), A.Col.data(), Info, 1.0, Buf.data()));
  int Sing = -7;
  CS(cusolverSpDcsrluZeroPivotHost(Sp, Info, 1e-14, &Sing));
  EXPECT(Sing == -1);
  std::vector<double> F(N), X(N);
  for (auto &V : F)
    V = rnd();
  CS(cusolverSpDcsrluSolveHost(Sp, N, F.data(), X.data(), Info, Buf.data()));
  double R = residual(A, X, F);
  if (!(R < 1e-12)) {
    std::printf("FAIL csrluSolveHost: residual %.3g\n", R);
    ++Bad;
  }
  int NnzL = -1, NnzU = -1;
  CS(cusolverSpXcsrluNnzHost(Sp, &NnzL, &NnzU, Info));
  std::vector<int> P(N), Q(N), Lr(N + 1), Lc(NnzL), Ur(N + 1), Uc(NnzU);
  std::vector<double> Lv(NnzL), Uv(NnzU);
  CS(cusolverSpDcsrluExtractHost(Sp, P.data(), Q.data(), DL, Lv.data(), Lr.data(), Lc.data(), DU, Uv.data(),
                                 Ur.data(), Uc.data(), Info, Buf.data()));
  double E = factorError(A, P, Q, NnzL, Lr.data(), Lc.data(), Lv.data(), NnzU, Ur.data(), Uc.data(), Uv.data());
  if (!(E < 1e-12)) {
    std::printf("FAIL csrluExtractHost: |LU - PAQ^T| %.3g\n", E);
    ++Bad;
  }
  // The factors go to cusolverRf, which refactors new values of A's pattern.
  cusolverRfHandle_t H;
  CS(cusolverRfCreate(&H));
  CS(cusolverRfSetupHost(N, Nnz, A.Row.data(), A.Col.data(), A.Val.data(), NnzL, Lr.data(), Lc.data(), Lv.data(),
                         NnzU, Ur.data(), Uc.data(), Uv.data(), P.data(), Q.data(), H));
  CS(cusolverRfAnalyze(H));
  Csr A2 = A;
  for (auto &V : A2.Val)
    V *= 1 + 0.1 * rnd();
  int *dRow = dev(A.Row), *dCol = dev(A.Col), *dP = dev(P), *dQ = dev(Q);
  double *dVal = dev(A2.Val), *dX = dev(F), *dT = dev(std::vector<double>(N, 0));
  CS(cusolverRfResetValues(N, Nnz, dRow, dCol, dVal, dP, dQ, H));
  CS(cusolverRfRefactor(H));
  CS(cusolverRfSolve(H, dP, dQ, 1, dT, N, dX, N));
  R = residual(A2, host(dX, N), F);
  if (!(R < 1e-12)) {
    std::printf("FAIL cusolverRf after csrluExtractHost: residual %.3g\n", R);
    ++Bad;
  }
  CS(cusolverRfDestroy(H));
  CS(cusolverSpDestroyCsrluInfoHost(Info));
  CSP(cusparseDestroyMatDescr(D));
  CSP(cusparseDestroyMatDescr(DL));
  CSP(cusparseDestroyMatDescr(DU));
  CS(cusolverSpDestroy(Sp));
  for (void *Pt : {(void *)dRow, (void *)dCol, (void *)dP, (void *)dQ, (void *)dVal, (void *)dX, (void *)dT})
    CHECK(cudaFree(Pt));
}

int main() {
  auto S = pattern();
  Csr A0 = values(S);
  std::vector<int> Q(N), P;
  std::iota(Q.begin(), Q.end(), 0);
  std::shuffle(Q.begin(), Q.end(), Rng); // a column reordering, as a fill-reducing ordering gives
  Csr L, U;
  factor(A0, Q, P, L, U);

  cusolverRfHandle_t H;
  stage("getters and setters");
  CS(cusolverRfCreate(&H));
  {
    cusolverRfMatrixFormat_t F;
    cusolverRfUnitDiagonal_t D;
    CS(cusolverRfGetMatrixFormat(H, &F, &D));
    EXPECT(F == CUSOLVERRF_MATRIX_FORMAT_CSR && D == CUSOLVERRF_UNIT_DIAGONAL_STORED_L);
    double Zero = -1, Boost = -1;
    CS(cusolverRfGetNumericProperties(H, &Zero, &Boost));
    EXPECT(Zero == 0 && Boost == 0);
    cusolverRfFactorization_t Fa;
    cusolverRfTriangularSolve_t Sa;
    CS(cusolverRfGetAlgs(H, &Fa, &Sa));
    EXPECT(Fa == CUSOLVERRF_FACTORIZATION_ALG0 && Sa == CUSOLVERRF_TRIANGULAR_SOLVE_ALG1);
    cusolverRfResetValuesFastMode_t M;
    CS(cusolverRfGetResetValuesFastMode(H, &M));
    EXPECT(M == CUSOLVERRF_RESET_VALUES_FAST_MODE_OFF);
    CS(cusolverRfSetResetValuesFastMode(H, CUSOLVERRF_RESET_VALUES_FAST_MODE_ON));
    CS(cusolverRfSetAlgs(H, CUSOLVERRF_FACTORIZATION_ALG2, CUSOLVERRF_TRIANGULAR_SOLVE_ALG2));
    CS(cusolverRfGetAlgs(H, &Fa, &Sa));
    EXPECT(Fa == CUSOLVERRF_FACTORIZATION_ALG2 && Sa == CUSOLVERRF_TRIANGULAR_SOLVE_ALG2);
    CS(cusolverRfSetNumericProperties(H, 1e-14, 0));
  }
  stage("SetupHost, Analyze");
  CS(cusolverRfSetupHost(N, int(A0.Col.size()), A0.Row.data(), A0.Col.data(), A0.Val.data(), int(L.Col.size()),
                         L.Row.data(), L.Col.data(), L.Val.data(), int(U.Col.size()), U.Row.data(), U.Col.data(),
                         U.Val.data(), P.data(), Q.data(), H));
  CS(cusolverRfAnalyze(H));
  int *dP = dev(P), *dQ = dev(Q), *dRow = dev(A0.Row), *dCol = dev(A0.Col);
  double *dT = dev(std::vector<double>(N, 0));
  for (int Round = 0; Round < 3; ++Round) {
    Csr A = Round ? values(S) : A0; // the first matrix, then new values on its pattern
    if (Round) {
      double *dVal = dev(A.Val);
      CS(cusolverRfResetValues(N, int(A.Col.size()), dRow, dCol, dVal, dP, dQ, H));
      CHECK(cudaFree(dVal));
    }
    stage("Refactor, Solve");
    CS(cusolverRfRefactor(H));
    std::vector<double> F(N);
    for (auto &V : F)
      V = rnd();
    double *dX = dev(F);
    CS(cusolverRfSolve(H, dP, dQ, 1, dT, N, dX, N));
    double R = residual(A, host(dX, N), F);
    if (!(R < 1e-12)) {
      std::printf("FAIL round %d: residual %.3g\n", Round, R);
      ++Bad;
    }
    CHECK(cudaFree(dX));
    int NnzL, NnzU, *Lp, *Li, *Up, *Ui;
    double *Lx, *Ux;
    stage("ExtractSplitFactorsHost");
    CS(cusolverRfExtractSplitFactorsHost(H, &NnzL, &Lp, &Li, &Lx, &NnzU, &Up, &Ui, &Ux));
    double E = factorError(A, P, Q, NnzL, Lp, Li, Lx, NnzU, Up, Ui, Ux);
    if (!(E < 1e-12)) {
      std::printf("FAIL round %d: |LU - PAQ^T| %.3g\n", Round, E);
      ++Bad;
    }
    // The bundled matrix holds the same factors, L's unit diagonal not stored.
    int NnzM, *Mp, *Mi;
    double *Mx;
    stage("ExtractBundledFactorsHost");
    CS(cusolverRfExtractBundledFactorsHost(H, &NnzM, &Mp, &Mi, &Mx));
    EXPECT(NnzM == NnzL + NnzU - N);
    int DNnz, *dMp, *dMi;
    double *dMx;
    stage("AccessBundledFactorsDevice");
    CS(cusolverRfAccessBundledFactorsDevice(H, &DNnz, &dMp, &dMi, &dMx));
    EXPECT(DNnz == NnzM);
    auto Hp = host(dMp, N + 1), Hi = host(dMi, NnzM);
    auto Hx = host(dMx, NnzM);
    EXPECT(std::equal(Hp.begin(), Hp.end(), Mp) && std::equal(Hi.begin(), Hi.end(), Mi));
    double Dx = 0;
    for (int K = 0; K < NnzM; ++K)
      Dx = std::max(Dx, std::fabs(Hx[K] - Mx[K]));
    EXPECT(Dx == 0);
    for (int I = 0; I < N; ++I) { // row I of M: L's strict part then U's, as the split factors
      std::vector<std::pair<int, double>> Want;
      for (int K = Lp[I]; K < Lp[I + 1]; ++K)
        if (Li[K] != I)
          Want.push_back({Li[K], Lx[K]});
      for (int K = Up[I]; K < Up[I + 1]; ++K)
        Want.push_back({Ui[K], Ux[K]});
      std::sort(Want.begin(), Want.end());
      std::vector<std::pair<int, double>> Got;
      for (int K = Mp[I]; K < Mp[I + 1]; ++K)
        Got.push_back({Mi[K], Mx[K]});
      std::sort(Got.begin(), Got.end());
      EXPECT(Got == Want);
    }
    for (void *X : {(void *)Lp, (void *)Li, (void *)Lx, (void *)Up, (void *)Ui, (void *)Ux, (void *)Mp, (void *)Mi,
                    (void *)Mx})
      free(X);
  }
  CS(cusolverRfDestroy(H));

  // Batched: four matrices of the pattern, the third singular (its row 5 empty).
  const int Batch = 4;
  std::vector<Csr> As;
  std::vector<double *> HVals, DVals;
  for (int J = 0; J < Batch; ++J) {
    As.push_back(values(S));
    if (J == 2)
      for (int K = As[J].Row[5]; K < As[J].Row[6]; ++K)
        As[J].Val[K] = 0;
  }
  // ZLUDA_RF_SAME_VALUES: every matrix of the batch is A0 (to tell, on NVIDIA's library, whether its batched
  // analysis depends on the values it was set up with).
  const bool Same = std::getenv("ZLUDA_RF_SAME_VALUES") != nullptr;
  for (auto &A : As)
    HVals.push_back(Same ? A0.Val.data() : A.Val.data());
  CS(cusolverRfCreate(&H));
  // As the first handle (NVIDIA's batched analysis crashed with the default algorithms, seen on an H100).
  CS(cusolverRfSetAlgs(H, CUSOLVERRF_FACTORIZATION_ALG2, CUSOLVERRF_TRIANGULAR_SOLVE_ALG2));
  stage("BatchSetupHost");
  CS(cusolverRfBatchSetupHost(Batch, N, int(A0.Col.size()), A0.Row.data(), A0.Col.data(), HVals.data(),
                              int(L.Col.size()), L.Row.data(), L.Col.data(), L.Val.data(), int(U.Col.size()),
                              U.Row.data(), U.Col.data(), U.Val.data(), P.data(), Q.data(), H));
  stage("BatchAnalyze");
  CS(cusolverRfBatchAnalyze(H));
  stage("BatchRefactor");
  CS(cusolverRfBatchRefactor(H));
  stage("BatchZeroPivot");
  std::vector<int> Pos(Batch, -7);
  EXPECT(cusolverRfBatchZeroPivot(H, Pos.data()) == CUSOLVER_STATUS_ZERO_PIVOT);
  for (int J = 0; J < Batch; ++J)
    EXPECT(J == 2 ? Pos[J] >= 0 && Pos[J] < N : Pos[J] == -1);
  // Replace the singular matrix's values by a regular one's (device memory), refactor and solve all.
  As[2] = values(S);
  for (auto &A : As)
    DVals.push_back(dev(A.Val));
  stage("BatchResetValues, BatchRefactor");
  CS(cusolverRfBatchResetValues(Batch, N, int(A0.Col.size()), dRow, dCol, DVals.data(), dP, dQ, H));
  CS(cusolverRfBatchRefactor(H));
  CS(cusolverRfBatchZeroPivot(H, Pos.data()));
  for (int J = 0; J < Batch; ++J)
    EXPECT(Pos[J] == -1);
  std::vector<std::vector<double>> Fs(Batch, std::vector<double>(N));
  std::vector<double *> DXs;
  for (auto &F : Fs) {
    for (auto &V : F)
      V = rnd();
    DXs.push_back(dev(F));
  }
  double *dT2 = dev(std::vector<double>(2 * Batch * N, 0));
  stage("BatchSolve");
  CS(cusolverRfBatchSolve(H, dP, dQ, 1, dT2, N, DXs.data(), N));
  for (int J = 0; J < Batch; ++J) {
    double R = residual(As[J], host(DXs[J], N), Fs[J]);
    if (!(R < 1e-12)) {
      std::printf("FAIL batch %d: residual %.3g\n", J, R);
      ++Bad;
    }
  }
  CS(cusolverRfDestroy(H));
  stage("csrlu host factors to cusolverRf");
  lowLevelLu(S);
  return verdict("cusolver_rf", Bad);
}
