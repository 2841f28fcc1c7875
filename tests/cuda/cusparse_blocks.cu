// More of cuSPARSE's legacy API on our libcusparse, each against dense
// arithmetic here on fresh random data: block conversions (csr2bsr, bsr2csr,
// csr2gebsr, gebsr2csr, gebsr2gebsc, gebsr2gebsr; both block layouts, sizes
// that are not multiples of the block), block triangular solves (bsrsv2,
// bsrsm2: lower/upper, unit/non-unit, transposed), block ILU(0) and IC(0)
// (bsrilu02, bsric02: on block-tridiagonal matrices, whose ILU(0)/IC(0) is
// the exact factorization, L U = A and L L^T = A; zero pivots; the numeric
// boost), bsrxmv, csrcolor, nnz, nnz_compress/csr2csr_compress, gemvi,
// pruning (threshold and percentage), cscsort, csru2csr/csr2csru, the
// interleaved batched tridiagonal and pentadiagonal solvers, strided
// batched SpMM, SpGEMM with structure reuse, SpMV/SpMM with mixed value and compute types (cuSPARSE's
// table; small integers, exact in every type) and the const descriptor getters. Written from the cuSPARSE
// reference.
#include "libs_common.h"
#include "values_common.h"
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

static int Bad = 0;
static void near(const char *What, double Err, double Bound) {
  if (!(Err <= Bound)) {
    std::printf("FAIL %s: %.3g > %.3g\n", What, Err, Bound);
    ++Bad;
  }
}

/// A dense row-major matrix and its CSR form.
struct Sparse {
  int M, N;
  std::vector<double> Dense;
  std::vector<int> Row{0}, Col;
  std::vector<double> Val;
};
static Sparse randomSparse(int M, int N, double Density) {
  Sparse S{M, N, std::vector<double>(size_t(M) * N, 0)};
  for (int I = 0; I < M; ++I) {
    for (int J = 0; J < N; ++J)
      if (rnd() * 0.5 + 0.5 < Density) {
        double V = rnd();
        S.Dense[size_t(I) * N + J] = V;
        S.Col.push_back(J);
        S.Val.push_back(V);
      }
    S.Row.push_back(int(S.Col.size()));
  }
  return S;
}
static std::vector<double> denseOfCsr(int M, int N, const std::vector<int> &Row, const std::vector<int> &Col,
                                      const std::vector<double> &Val) {
  std::vector<double> D(size_t(M) * N, 0);
  for (int I = 0; I < M; ++I)
    for (int K = Row[I]; K < Row[I + 1]; ++K)
      D[size_t(I) * N + Col[K]] += Val[K];
  return D;
}
/// A general BSR matrix as dense (row-major, Mb*Rb x Nb*Cb).
static std::vector<double> denseOfBsr(cusparseDirection_t Dir, int Mb, int Nb, int Rb, int Cb,
                                      const std::vector<int> &Row, const std::vector<int> &Col,
                                      const std::vector<double> &Val) {
  const int N = Nb * Cb;
  std::vector<double> D(size_t(Mb) * Rb * N, 0);
  for (int Br = 0; Br < Mb; ++Br)
    for (int K = Row[Br]; K < Row[Br + 1]; ++K)
      for (int R = 0; R < Rb; ++R)
        for (int C = 0; C < Cb; ++C)
          D[size_t(Br * Rb + R) * N + Col[K] * Cb + C] =
              Val[size_t(K) * Rb * Cb + (Dir == CUSPARSE_DIRECTION_ROW ? R * Cb + C : C * Rb + R)];
  return D;
}

static void conversions(cusparseHandle_t H, cusparseMatDescr_t D) {
  const int M = 11, N = 13;
  Sparse A = randomSparse(M, N, 0.25);
  int *dRow = dev(A.Row), *dCol = dev(A.Col);
  double *dVal = dev(A.Val);
  for (auto Dir : {CUSPARSE_DIRECTION_ROW, CUSPARSE_DIRECTION_COLUMN}) {
    // Square blocks of 3, then 2 x 4 blocks.
    for (int Shape = 0; Shape < 2; ++Shape) {
      const int Rb = Shape ? 2 : 3, Cb = Shape ? 4 : 3;
      const int Mb = (M + Rb - 1) / Rb, Nb = (N + Cb - 1) / Cb;
      int *dBRow;
      CHECK(cudaMalloc(&dBRow, sizeof(int) * (Mb + 1)));
      int Nnzb = -1;
      void *GeBuf = nullptr; // csr2gebsr's buffer (NVIDIA's needs one)
      if (Shape == 0) {
        CSP(cusparseXcsr2bsrNnz(H, Dir, M, N, D, dRow, dCol, Rb, D, dBRow, &Nnzb));
      } else {
        int Bytes = 0;
        CSP(cusparseDcsr2gebsr_bufferSize(H, Dir, M, N, D, dVal, dRow, dCol, Rb, Cb, &Bytes));
        void *Buf;
        CHECK(cudaMalloc(&Buf, Bytes + 16));
        CSP(cusparseXcsr2gebsrNnz(H, Dir, M, N, D, dRow, dCol, D, dBRow, Rb, Cb, &Nnzb, Buf));
        GeBuf = Buf;
      }
      // The block pattern: every block holding an entry, counted here.
      int Want = 0;
      for (int Br = 0; Br < Mb; ++Br)
        for (int Bc = 0; Bc < Nb; ++Bc) {
          bool Any = false;
          for (int R = Br * Rb; R < std::min(M, (Br + 1) * Rb); ++R)
            for (int C = Bc * Cb; C < std::min(N, (Bc + 1) * Cb); ++C)
              Any |= A.Dense[size_t(R) * N + C] != 0;
          Want += Any;
        }
      EXPECT(Nnzb == Want);
      int *dBCol;
      double *dBVal;
      CHECK(cudaMalloc(&dBCol, sizeof(int) * Nnzb + 4));
      CHECK(cudaMalloc(&dBVal, sizeof(double) * Nnzb * Rb * Cb + 8));
      if (Shape == 0)
        CSP(cusparseDcsr2bsr(H, Dir, M, N, D, dVal, dRow, dCol, Rb, D, dBVal, dBRow, dBCol));
      else
        CSP(cusparseDcsr2gebsr(H, Dir, M, N, D, dVal, dRow, dCol, D, dBVal, dBRow, dBCol, Rb, Cb, GeBuf));
      CHECK(cudaFree(GeBuf));
      auto BRow = host(dBRow, Mb + 1), BCol = host(dBCol, Nnzb);
      auto BVal = host(dBVal, size_t(Nnzb) * Rb * Cb);
      auto Bd = denseOfBsr(Dir, Mb, Nb, Rb, Cb, BRow, BCol, BVal);
      for (int I = 0; I < Mb * Rb; ++I)
        for (int J = 0; J < Nb * Cb; ++J)
          EXPECT(Bd[size_t(I) * Nb * Cb + J] == (I < M && J < N ? A.Dense[size_t(I) * N + J] : 0.0));
      // Back to CSR: every element of every block.
      const int Elems = Nnzb * Rb * Cb;
      int *dCRow, *dCCol;
      double *dCVal;
      CHECK(cudaMalloc(&dCRow, sizeof(int) * (Mb * Rb + 1)));
      CHECK(cudaMalloc(&dCCol, sizeof(int) * Elems + 4));
      CHECK(cudaMalloc(&dCVal, sizeof(double) * Elems + 8));
      if (Shape == 0)
        CSP(cusparseDbsr2csr(H, Dir, Mb, Nb, D, dBVal, dBRow, dBCol, Rb, D, dCVal, dCRow, dCCol));
      else
        CSP(cusparseDgebsr2csr(H, Dir, Mb, Nb, D, dBVal, dBRow, dBCol, Rb, Cb, D, dCVal, dCRow, dCCol));
      auto CRow = host(dCRow, Mb * Rb + 1), CCol = host(dCCol, Elems);
      auto CVal = host(dCVal, Elems);
      EXPECT(CRow[Mb * Rb] == Elems);
      for (int I = 0; I < Mb * Rb; ++I)
        for (int K = CRow[I]; K + 1 < CRow[I + 1]; ++K)
          EXPECT(CCol[K] < CCol[K + 1]);
      EXPECT(denseOfCsr(Mb * Rb, Nb * Cb, CRow, CCol, CVal) == Bd);
      // The transpose's block structure (BSC), blocks as they are.
      {
        int Bytes = 0;
        CSP(cusparseDgebsr2gebsc_bufferSize(H, Mb, Nb, Nnzb, dBVal, dBRow, dBCol, Rb, Cb, &Bytes));
        int *dTRow, *dTCol;
        double *dTVal;
        CHECK(cudaMalloc(&dTRow, sizeof(int) * Nnzb + 4));
        CHECK(cudaMalloc(&dTCol, sizeof(int) * (Nb + 1)));
        CHECK(cudaMalloc(&dTVal, sizeof(double) * Nnzb * Rb * Cb + 8));
        void *TBuf;
        CHECK(cudaMalloc(&TBuf, Bytes + 16));
        CSP(cusparseDgebsr2gebsc(H, Mb, Nb, Nnzb, dBVal, dBRow, dBCol, Rb, Cb, dTVal, dTRow, dTCol,
                                 CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, TBuf));
        CHECK(cudaFree(TBuf));
        auto TRow = host(dTRow, Nnzb), TCol = host(dTCol, Nb + 1);
        auto TVal = host(dTVal, size_t(Nnzb) * Rb * Cb);
        // As a BSR matrix of the transpose's block pattern with blocks unchanged: block (c, r) holds A's (r, c).
        std::vector<double> T(Bd.size(), 0);
        for (int Bc = 0; Bc < Nb; ++Bc)
          for (int K = TCol[Bc]; K < TCol[Bc + 1]; ++K)
            for (int R = 0; R < Rb; ++R)
              for (int C = 0; C < Cb; ++C)
                T[size_t(TRow[K] * Rb + R) * Nb * Cb + Bc * Cb + C] =
                    TVal[size_t(K) * Rb * Cb + (Dir == CUSPARSE_DIRECTION_ROW ? R * Cb + C : C * Rb + R)];
        EXPECT(T == Bd);
        for (void *P : {(void *)dTRow, (void *)dTCol, (void *)dTVal})
          CHECK(cudaFree(P));
      }
      // To 4 x 2 blocks.
      {
        const int Rc = 4, Cc = 2, Mc = (Mb * Rb + Rc - 1) / Rc, Nc = (Nb * Cb + Cc - 1) / Cc;
        int Bytes = 0, NnzC = -1;
        CSP(cusparseDgebsr2gebsr_bufferSize(H, Dir, Mb, Nb, Nnzb, D, dBVal, dBRow, dBCol, Rb, Cb, Rc, Cc, &Bytes));
        void *Buf;
        CHECK(cudaMalloc(&Buf, Bytes + 16));
        int *dGRow, *dGCol;
        double *dGVal;
        CHECK(cudaMalloc(&dGRow, sizeof(int) * (Mc + 1)));
        CSP(cusparseXgebsr2gebsrNnz(H, Dir, Mb, Nb, Nnzb, D, dBRow, dBCol, Rb, Cb, D, dGRow, Rc, Cc, &NnzC, Buf));
        CHECK(cudaMalloc(&dGCol, sizeof(int) * NnzC + 4));
        CHECK(cudaMalloc(&dGVal, sizeof(double) * NnzC * Rc * Cc + 8));
        CSP(cusparseDgebsr2gebsr(H, Dir, Mb, Nb, Nnzb, D, dBVal, dBRow, dBCol, Rb, Cb, D, dGVal, dGRow, dGCol, Rc, Cc,
                                 Buf));
        auto G = denseOfBsr(Dir, Mc, Nc, Rc, Cc, host(dGRow, Mc + 1), host(dGCol, NnzC),
                            host(dGVal, size_t(NnzC) * Rc * Cc));
        for (int I = 0; I < Mc * Rc; ++I)
          for (int J = 0; J < Nc * Cc; ++J)
            EXPECT(G[size_t(I) * Nc * Cc + J] ==
                   (I < Mb * Rb && J < Nb * Cb ? Bd[size_t(I) * Nb * Cb + J] : 0.0));
        for (void *P : {(void *)dGRow, (void *)dGCol, (void *)dGVal, Buf})
          CHECK(cudaFree(P));
      }
      for (void *P : {(void *)dBRow, (void *)dBCol, (void *)dBVal, (void *)dCRow, (void *)dCCol, (void *)dCVal})
        CHECK(cudaFree(P));
    }
  }
}

/// A block-tridiagonal BSR matrix (mb block rows of bd x bd), diagonally dominant; symmetric when \p Sym.
struct Bsr {
  int Mb, Bd;
  std::vector<int> Row{0}, Col;
  std::vector<double> Val;
  std::vector<double> Dense; // row-major
};
static Bsr blockTridiagonal(int Mb, int Bd, cusparseDirection_t Dir, bool Sym) {
  const int N = Mb * Bd;
  std::vector<double> A(size_t(N) * N, 0);
  for (int Br = 0; Br < Mb; ++Br)
    for (int Bc = std::max(0, Br - 1); Bc <= std::min(Mb - 1, Br + 1); ++Bc)
      for (int R = 0; R < Bd; ++R)
        for (int C = 0; C < Bd; ++C)
          A[size_t(Br * Bd + R) * N + Bc * Bd + C] = rnd() + (Br == Bc && R == C ? 4 * Bd : 0);
  if (Sym)
    for (int I = 0; I < N; ++I)
      for (int J = 0; J < I; ++J)
        A[size_t(J) * N + I] = A[size_t(I) * N + J];
  Bsr B{Mb, Bd};
  B.Dense = A;
  for (int Br = 0; Br < Mb; ++Br) {
    for (int Bc = std::max(0, Br - 1); Bc <= std::min(Mb - 1, Br + 1); ++Bc) {
      B.Col.push_back(Bc);
      for (int E = 0; E < Bd * Bd; ++E) {
        int R = Dir == CUSPARSE_DIRECTION_ROW ? E / Bd : E % Bd, C = Dir == CUSPARSE_DIRECTION_ROW ? E % Bd : E / Bd;
        B.Val.push_back(A[size_t(Br * Bd + R) * N + Bc * Bd + C]);
      }
    }
    B.Row.push_back(int(B.Col.size()));
  }
  return B;
}

static void blockSolvers(cusparseHandle_t H) {
  const int Mb = 6, Bd = 3, N = Mb * Bd;
  for (auto Dir : {CUSPARSE_DIRECTION_ROW, CUSPARSE_DIRECTION_COLUMN}) {
    Bsr A = blockTridiagonal(Mb, Bd, Dir, false);
    int *dRow = dev(A.Row), *dCol = dev(A.Col), Nnzb = int(A.Col.size());
    double *dVal = dev(A.Val);
    // Triangular solves of each triangle of A itself, every operation and diagonal type.
    for (auto Fill : {CUSPARSE_FILL_MODE_LOWER, CUSPARSE_FILL_MODE_UPPER})
      for (auto Diag : {CUSPARSE_DIAG_TYPE_NON_UNIT, CUSPARSE_DIAG_TYPE_UNIT})
        for (auto Op : {CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE}) {
          cusparseMatDescr_t D;
          CSP(cusparseCreateMatDescr(&D));
          CSP(cusparseSetMatFillMode(D, Fill));
          CSP(cusparseSetMatDiagType(D, Diag));
          // op(T) for the triangle T (row-major dense here).
          std::vector<double> T(size_t(N) * N, 0);
          for (int I = 0; I < N; ++I)
            for (int J = 0; J < N; ++J) {
              bool In = Fill == CUSPARSE_FILL_MODE_LOWER ? J <= I : J >= I;
              double V = I == J && Diag == CUSPARSE_DIAG_TYPE_UNIT ? 1.0 : In ? A.Dense[size_t(I) * N + J] : 0.0;
              (Op == CUSPARSE_OPERATION_NON_TRANSPOSE ? T[size_t(I) * N + J] : T[size_t(J) * N + I]) = V;
            }
          bsrsv2Info_t Info;
          CSP(cusparseCreateBsrsv2Info(&Info));
          int Bytes = 0;
          CSP(cusparseDbsrsv2_bufferSize(H, Dir, Op, Mb, Nnzb, D, dVal, dRow, dCol, Bd, Info, &Bytes));
          void *Buf;
          CHECK(cudaMalloc(&Buf, Bytes + 16));
          CSP(cusparseDbsrsv2_analysis(H, Dir, Op, Mb, Nnzb, D, dVal, dRow, dCol, Bd, Info,
                                       CUSPARSE_SOLVE_POLICY_USE_LEVEL, Buf));
          int Pos = -7;
          EXPECT(cusparseXbsrsv2_zeroPivot(H, Info, &Pos) == CUSPARSE_STATUS_SUCCESS && Pos == -1);
          std::vector<double> F(N);
          for (auto &V : F)
            V = rnd();
          double *dF = dev(F), *dX = dev(std::vector<double>(N, 0)), Alpha = 2;
          CSP(cusparseDbsrsv2_solve(H, Dir, Op, Mb, Nnzb, &Alpha, D, dVal, dRow, dCol, Bd, Info, dF, dX,
                                    CUSPARSE_SOLVE_POLICY_USE_LEVEL, Buf));
          auto X = host(dX, N);
          double E = 0;
          for (int I = 0; I < N; ++I) {
            double S = 0;
            for (int J = 0; J < N; ++J)
              S += T[size_t(I) * N + J] * X[J];
            E = std::max(E, std::fabs(S - 2 * F[I]));
          }
          near("bsrsv2 residual", E, 1e-12);
          // bsrsm2: three right-hand sides, B and X as given and transposed.
          for (auto OpXY : {CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE}) {
            const int K = 3, Ld = OpXY == CUSPARSE_OPERATION_NON_TRANSPOSE ? N + 2 : K + 1;
            bsrsm2Info_t Sm;
            CSP(cusparseCreateBsrsm2Info(&Sm));
            CSP(cusparseDbsrsm2_bufferSize(H, Dir, Op, OpXY, Mb, K, Nnzb, D, dVal, dRow, dCol, Bd, Sm, &Bytes));
            CSP(cusparseDbsrsm2_analysis(H, Dir, Op, OpXY, Mb, K, Nnzb, D, dVal, dRow, dCol, Bd, Sm,
                                         CUSPARSE_SOLVE_POLICY_NO_LEVEL, Buf));
            std::vector<double> B(size_t(Ld) * (OpXY == CUSPARSE_OPERATION_NON_TRANSPOSE ? K : N));
            for (auto &V : B)
              V = rnd();
            double *dB = dev(B), *dXm = dev(std::vector<double>(B.size(), 0)), One = 1;
            CSP(cusparseDbsrsm2_solve(H, Dir, Op, OpXY, Mb, K, Nnzb, &One, D, dVal, dRow, dCol, Bd, Sm, dB, Ld, dXm,
                                      Ld, CUSPARSE_SOLVE_POLICY_NO_LEVEL, Buf));
            auto Xm = host(dXm, B.size());
            auto At = [&](const std::vector<double> &V, int I, int J) {
              return OpXY == CUSPARSE_OPERATION_NON_TRANSPOSE ? V[size_t(J) * Ld + I] : V[size_t(I) * Ld + J];
            };
            double Em = 0;
            for (int J = 0; J < K; ++J)
              for (int I = 0; I < N; ++I) {
                double S = 0;
                for (int L = 0; L < N; ++L)
                  S += T[size_t(I) * N + L] * At(Xm, L, J);
                Em = std::max(Em, std::fabs(S - At(B, I, J)));
              }
            near("bsrsm2 residual", Em, 1e-12);
            CSP(cusparseDestroyBsrsm2Info(Sm));
            CHECK(cudaFree(dB));
            CHECK(cudaFree(dXm));
          }
          CSP(cusparseDestroyBsrsv2Info(Info));
          CSP(cusparseDestroyMatDescr(D));
          for (void *P : {Buf, (void *)dF, (void *)dX})
            CHECK(cudaFree(P));
        }
    // ILU(0) of a block-tridiagonal matrix is its LU factorization: L (unit lower) U = A.
    cusparseMatDescr_t D;
    CSP(cusparseCreateMatDescr(&D));
    bsrilu02Info_t Ilu;
    CSP(cusparseCreateBsrilu02Info(&Ilu));
    int Bytes = 0;
    CSP(cusparseDbsrilu02_bufferSize(H, Dir, Mb, Nnzb, D, dVal, dRow, dCol, Bd, Ilu, &Bytes));
    void *Buf;
    CHECK(cudaMalloc(&Buf, Bytes + 16));
    CSP(cusparseDbsrilu02_analysis(H, Dir, Mb, Nnzb, D, dVal, dRow, dCol, Bd, Ilu, CUSPARSE_SOLVE_POLICY_USE_LEVEL,
                                   Buf));
    CSP(cusparseDbsrilu02(H, Dir, Mb, Nnzb, D, dVal, dRow, dCol, Bd, Ilu, CUSPARSE_SOLVE_POLICY_USE_LEVEL, Buf));
    int Pos = -7;
    EXPECT(cusparseXbsrilu02_zeroPivot(H, Ilu, &Pos) == CUSPARSE_STATUS_SUCCESS && Pos == -1);
    auto F = denseOfBsr(Dir, Mb, Mb, Bd, Bd, A.Row, A.Col, host(dVal, A.Val.size()));
    double E = 0;
    for (int I = 0; I < N; ++I)
      for (int J = 0; J < N; ++J) {
        double S = 0;
        for (int K = 0; K <= std::min(I, J); ++K)
          S += (K == I ? 1.0 : F[size_t(I) * N + K]) * F[size_t(K) * N + J];
        E = std::max(E, std::fabs(S - A.Dense[size_t(I) * N + J]));
      }
    near("bsrilu02 L U = A", E, 1e-12);
    // A zero pivot: block row 2 all zeros (its first diagonal element stays zero through the elimination).
    {
      std::vector<double> Z = A.Val;
      for (int K = A.Row[2]; K < A.Row[3]; ++K)
        for (int E2 = 0; E2 < Bd * Bd; ++E2)
          Z[size_t(K) * Bd * Bd + E2] = 0;
      double *dZ = dev(Z);
      CSP(cusparseDbsrilu02(H, Dir, Mb, Nnzb, D, dZ, dRow, dCol, Bd, Ilu, CUSPARSE_SOLVE_POLICY_USE_LEVEL, Buf));
      EXPECT(cusparseXbsrilu02_zeroPivot(H, Ilu, &Pos) == CUSPARSE_STATUS_ZERO_PIVOT && Pos == 2);
      // Boosted: tiny pivots become 1e3, no zero pivot is left.
      double Tol = 1e-8, Boost = 1e3;
      double *dZ2 = dev(Z);
      CSP(cusparseDbsrilu02_numericBoost(H, Ilu, 1, &Tol, &Boost));
      CSP(cusparseDbsrilu02(H, Dir, Mb, Nnzb, D, dZ2, dRow, dCol, Bd, Ilu, CUSPARSE_SOLVE_POLICY_USE_LEVEL, Buf));
      EXPECT(cusparseXbsrilu02_zeroPivot(H, Ilu, &Pos) == CUSPARSE_STATUS_SUCCESS && Pos == -1);
      auto Zb = host(dZ2, Z.size());
      bool Boosted = false;
      for (int K = A.Row[2]; K < A.Row[3]; ++K)
        if (A.Col[K] == 2)
          Boosted = Zb[size_t(K) * Bd * Bd] == 1e3;
      EXPECT(Boosted);
      CHECK(cudaFree(dZ));
      CHECK(cudaFree(dZ2));
    }
    CSP(cusparseDestroyBsrilu02Info(Ilu));
    // IC(0) of a symmetric block-tridiagonal matrix: L L^T = A on the lower triangle.
    Bsr S = blockTridiagonal(Mb, Bd, Dir, true);
    double *dSVal = dev(S.Val);
    bsric02Info_t Ic;
    CSP(cusparseCreateBsric02Info(&Ic));
    CSP(cusparseDbsric02_bufferSize(H, Dir, Mb, Nnzb, D, dSVal, dRow, dCol, Bd, Ic, &Bytes));
    CSP(cusparseDbsric02_analysis(H, Dir, Mb, Nnzb, D, dSVal, dRow, dCol, Bd, Ic, CUSPARSE_SOLVE_POLICY_USE_LEVEL,
                                  Buf));
    CSP(cusparseDbsric02(H, Dir, Mb, Nnzb, D, dSVal, dRow, dCol, Bd, Ic, CUSPARSE_SOLVE_POLICY_USE_LEVEL, Buf));
    EXPECT(cusparseXbsric02_zeroPivot(H, Ic, &Pos) == CUSPARSE_STATUS_SUCCESS && Pos == -1);
    auto L = denseOfBsr(Dir, Mb, Mb, Bd, Bd, S.Row, S.Col, host(dSVal, S.Val.size()));
    E = 0;
    for (int I = 0; I < N; ++I)
      for (int J = 0; J <= I; ++J) {
        double Sum = 0;
        for (int K = 0; K <= J; ++K)
          Sum += L[size_t(I) * N + K] * L[size_t(J) * N + K];
        E = std::max(E, std::fabs(Sum - S.Dense[size_t(I) * N + J]));
      }
    near("bsric02 L L^T = A", E, 1e-12);
    CSP(cusparseDestroyBsric02Info(Ic));
    // bsrxmv: block rows 1 and 4 of y = 2 A x + 0.5 y, the others untouched.
    {
      std::vector<double> X(N), Y(N);
      for (auto &V : X)
        V = rnd();
      for (auto &V : Y)
        V = rnd();
      std::vector<int> Mask{1, 4}, End(A.Row.begin() + 1, A.Row.end());
      int *dMask = dev(Mask), *dEnd = dev(End);
      double *dX = dev(X), *dY = dev(Y), *dA = dev(A.Val), Al = 2, Be = 0.5; // A: dVal holds its factors now
      CSP(cusparseDbsrxmv(H, Dir, CUSPARSE_OPERATION_NON_TRANSPOSE, 2, Mb, Mb, Nnzb, &Al, D, dA, dMask,
                          dRow, dEnd, dCol, Bd, dX, &Be, dY));
      auto Yo = host(dY, N);
      double Ex = 0;
      for (int I = 0; I < N; ++I) {
        bool In = I / Bd == 1 || I / Bd == 4;
        double S2 = 0;
        for (int J = 0; J < N; ++J)
          S2 += A.Dense[size_t(I) * N + J] * X[J];
        Ex = std::max(Ex, std::fabs(Yo[I] - (In ? 2 * S2 + 0.5 * Y[I] : Y[I])));
      }
      near("bsrxmv", Ex, 1e-12);
      for (void *P : {(void *)dMask, (void *)dEnd, (void *)dX, (void *)dY, (void *)dA})
        CHECK(cudaFree(P));
    }
    CSP(cusparseDestroyMatDescr(D));
    for (void *P : {Buf, (void *)dRow, (void *)dCol, (void *)dVal, (void *)dSVal})
      CHECK(cudaFree(P));
  }
}

static void misc(cusparseHandle_t H, cusparseMatDescr_t D) {
  // csrcolor: adjacent rows never share a color; the reordering groups rows by color. The pattern must be
  // symmetric (cuSPARSE's requirement: NVIDIA's colors unsymmetric ones wrongly, seen on the H200).
  {
    const int M = 30;
    Sparse A0 = randomSparse(M, M, 0.08);
    Sparse A{M, M, std::vector<double>(size_t(M) * M, 0)};
    for (int I = 0; I < M; ++I) {
      for (int J = 0; J < M; ++J) {
        double V = A0.Dense[size_t(I) * M + J] + A0.Dense[size_t(J) * M + I];
        if (A0.Dense[size_t(I) * M + J] != 0 || A0.Dense[size_t(J) * M + I] != 0) {
          A.Dense[size_t(I) * M + J] = V;
          A.Col.push_back(J);
          A.Val.push_back(V);
        }
      }
      A.Row.push_back(int(A.Col.size()));
    }
    int *dRow = dev(A.Row), *dCol = dev(A.Col), *dColor = dev(std::vector<int>(M, -1)),
        *dOrder = dev(std::vector<int>(M, -1));
    double *dVal = dev(A.Val), Fraction = 1.0;
    cusparseColorInfo_t Info;
    CSP(cusparseCreateColorInfo(&Info));
    int NColors = -1;
    CSP(cusparseDcsrcolor(H, M, int(A.Col.size()), D, dVal, dRow, dCol, &Fraction, &NColors, dColor, dOrder, Info));
    auto Color = host(dColor, M), Order = host(dOrder, M);
    EXPECT(NColors >= 1 && NColors <= M);
    for (int I = 0; I < M; ++I) {
      EXPECT(Color[I] >= 0 && Color[I] < NColors);
      for (int K = A.Row[I]; K < A.Row[I + 1]; ++K)
        if (A.Col[K] != I)
          EXPECT(Color[I] != Color[A.Col[K]]);
    }
    auto Sorted = Order;
    std::sort(Sorted.begin(), Sorted.end());
    for (int I = 0; I < M; ++I)
      EXPECT(Sorted[I] == I);
    for (int I = 0; I + 1 < M; ++I)
      EXPECT(Color[Order[I]] <= Color[Order[I + 1]]);
    CSP(cusparseDestroyColorInfo(Info));
    for (void *P : {(void *)dRow, (void *)dCol, (void *)dColor, (void *)dOrder, (void *)dVal})
      CHECK(cudaFree(P));
  }
  // nnz, then compression of the entries of magnitude at most 0.3.
  {
    const int M = 9, N = 7;
    Sparse A = randomSparse(M, N, 0.5);
    std::vector<double> Cm(size_t(M) * N); // column-major
    for (int I = 0; I < M; ++I)
      for (int J = 0; J < N; ++J)
        Cm[size_t(J) * M + I] = A.Dense[size_t(I) * N + J];
    double *dA = dev(Cm);
    int *dPer = dev(std::vector<int>(N, -1)), Total = -1;
    CSP(cusparseDnnz(H, CUSPARSE_DIRECTION_COLUMN, M, N, D, dA, M, dPer, &Total));
    auto Per = host(dPer, N);
    EXPECT(Total == int(A.Col.size()));
    for (int J = 0; J < N; ++J) {
      int C = 0;
      for (int I = 0; I < M; ++I)
        C += A.Dense[size_t(I) * N + J] != 0;
      EXPECT(Per[J] == C);
    }
    int *dRow = dev(A.Row), *dCol = dev(A.Col), *dPerRow = dev(std::vector<int>(M, -1)), NnzC = -1;
    double *dVal = dev(A.Val);
    CSP(cusparseDnnz_compress(H, M, D, dVal, dRow, dPerRow, &NnzC, 0.3));
    int Want = 0;
    for (double V : A.Val)
      Want += std::fabs(V) > 0.3;
    EXPECT(NnzC == Want);
    int *dCRow = dev(std::vector<int>(M + 1, 0)), *dCCol = dev(std::vector<int>(NnzC + 1, 0));
    double *dCVal = dev(std::vector<double>(NnzC + 1, 0));
    CSP(cusparseDcsr2csr_compress(H, M, N, D, dVal, dCol, dRow, int(A.Val.size()), dPerRow, dCVal, dCCol, dCRow, 0.3));
    auto CRow = host(dCRow, M + 1);
    auto Cd = denseOfCsr(M, N, CRow, host(dCCol, NnzC), host(dCVal, NnzC));
    // NVIDIA's (observed on an H100) counts |a| > tol in nnz_compress but writes only a > tol here, leaving the
    // slots of negative entries unwritten: there only the positive entries are compared.
    int Shown = 0;
    for (size_t K = 0; K < Cd.size(); ++K)
      if ((onZluda() || A.Dense[K] > 0) && Cd[K] != (std::fabs(A.Dense[K]) > 0.3 ? A.Dense[K] : 0.0) && Shown++ < 6)
        std::printf("csr2csr_compress (%zu, %zu): %g, A has %g (C's row %zu: %d..%d)\n", K / N, K % N, Cd[K],
                    A.Dense[K], K / N, CRow[K / N], CRow[K / N + 1]);
    EXPECT(Shown == 0);
    // gemvi: y = 1.5 op(A) x + 0.5 y, x sparse (dense A column-major, m x n).
    for (auto Op : {CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE}) {
      const bool Tr = Op != CUSPARSE_OPERATION_NON_TRANSPOSE;
      const int Xn = Tr ? M : N, Yn = Tr ? N : M;
      std::vector<int> XInd;
      std::vector<double> XVal, Y(Yn);
      for (int J = 0; J < Xn; J += 2) {
        XInd.push_back(J);
        XVal.push_back(rnd());
      }
      for (auto &V : Y)
        V = rnd();
      int *dXInd = dev(XInd), Bytes = 0;
      double *dXVal = dev(XVal), *dY = dev(Y), Al = 1.5, Be = 0.5;
      CSP(cusparseDgemvi_bufferSize(H, Op, M, N, int(XInd.size()), &Bytes));
      void *Buf;
      CHECK(cudaMalloc(&Buf, Bytes + 16));
      CSP(cusparseDgemvi(H, Op, M, N, &Al, dA, M, int(XInd.size()), dXVal, dXInd, &Be, dY, CUSPARSE_INDEX_BASE_ZERO,
                         Buf));
      auto Yo = host(dY, Yn);
      double E = 0;
      for (int I = 0; I < Yn; ++I) {
        double S = 0;
        for (size_t K = 0; K < XInd.size(); ++K)
          S += (Tr ? A.Dense[size_t(XInd[K]) * N + I] : A.Dense[size_t(I) * N + XInd[K]]) * XVal[K];
        E = std::max(E, std::fabs(Yo[I] - (1.5 * S + 0.5 * Y[I])));
      }
      near("gemvi", E, 1e-12);
      for (void *P : {(void *)dXInd, (void *)dXVal, (void *)dY, Buf})
        CHECK(cudaFree(P));
    }
    // Pruning: a dense matrix and a CSR one, by threshold and by percentage.
    {
      std::vector<float> Af(Cm.begin(), Cm.end());
      float *dAf = dev(Af), Thr = 0.4f;
      size_t Bytes = 0;
      int *dPRow = dev(std::vector<int>(M + 1, 0)), PNnz = -1;
      CSP(cusparseSpruneDense2csr_bufferSizeExt(H, M, N, dAf, M, &Thr, D, nullptr, dPRow, nullptr, &Bytes));
      void *Buf;
      CHECK(cudaMalloc(&Buf, Bytes + 16));
      CSP(cusparseSpruneDense2csrNnz(H, M, N, dAf, M, &Thr, D, dPRow, &PNnz, Buf));
      int WantP = 0;
      for (float V : Af)
        WantP += std::fabs(V) > Thr;
      EXPECT(PNnz == WantP);
      int *dPCol = dev(std::vector<int>(PNnz + 1, 0));
      float *dPVal = dev(std::vector<float>(PNnz + 1, 0));
      CSP(cusparseSpruneDense2csr(H, M, N, dAf, M, &Thr, D, dPVal, dPRow, dPCol, Buf));
      auto PRow = host(dPRow, M + 1), PCol = host(dPCol, PNnz);
      auto PVal = host(dPVal, PNnz);
      for (int I = 0; I < M; ++I)
        for (int J = 0, K = PRow[I]; J < N; ++J)
          if (std::fabs(Af[size_t(J) * M + I]) > Thr) {
            EXPECT(K < PRow[I + 1] && PCol[K] == J && PVal[K] == Af[size_t(J) * M + I]);
            ++K;
          }
      // By percentage: the threshold is the magnitude at position ceil(count * p / 100) - 1 of the sorted ones.
      for (float Pct : {0.f, 30.f, 62.5f, 100.f}) {
        std::vector<double> Mag;
        for (double V : A.Val)
          Mag.push_back(std::fabs(V));
        std::sort(Mag.begin(), Mag.end());
        long Pos = long(std::ceil(Mag.size() * (Pct / 100.0))) - 1;
        Pos = std::max(0L, std::min(Pos, long(Mag.size()) - 1));
        int WantC = 0;
        for (double V : Mag)
          WantC += V > Mag[Pos];
        pruneInfo_t Info;
        CSP(cusparseCreatePruneInfo(&Info));
        int *dQRow = dev(std::vector<int>(M + 1, 0)), QNnz = -1;
        CSP(cusparseDpruneCsr2csrByPercentage_bufferSizeExt(H, M, N, int(A.Val.size()), D, dVal, dRow, dCol, Pct, D,
                                                            nullptr, dQRow, nullptr, Info, &Bytes));
        void *Buf2;
        CHECK(cudaMalloc(&Buf2, Bytes + 16));
        CSP(cusparseDpruneCsr2csrNnzByPercentage(H, M, N, int(A.Val.size()), D, dVal, dRow, dCol, Pct, D, dQRow,
                                                 &QNnz, Info, Buf2));
        if (QNnz != WantC)
          std::printf("pruneCsr2csrByPercentage %g%%: nnz %d, expected %d (of %zu; threshold %g at %ld)\n", Pct, QNnz,
                      WantC, Mag.size(), Mag[Pos], Pos);
        EXPECT(QNnz == WantC);
        int *dQCol = dev(std::vector<int>(QNnz + 1, 0));
        double *dQVal = dev(std::vector<double>(QNnz + 1, 0));
        CSP(cusparseDpruneCsr2csrByPercentage(H, M, N, int(A.Val.size()), D, dVal, dRow, dCol, Pct, D, dQVal, dQRow,
                                              dQCol, Info, Buf2));
        auto Qd = denseOfCsr(M, N, host(dQRow, M + 1), host(dQCol, QNnz), host(dQVal, QNnz));
        for (size_t K = 0; K < Qd.size(); ++K)
          EXPECT(Qd[K] == (std::fabs(A.Dense[K]) > Mag[Pos] ? A.Dense[K] : 0.0));
        CSP(cusparseDestroyPruneInfo(Info));
        for (void *P : {(void *)dQRow, (void *)dQCol, (void *)dQVal, Buf2})
          CHECK(cudaFree(P));
      }
      for (void *P : {(void *)dAf, (void *)dPRow, (void *)dPCol, (void *)dPVal, Buf})
        CHECK(cudaFree(P));
    }
    for (void *P : {(void *)dA, (void *)dPer, (void *)dRow, (void *)dCol, (void *)dPerRow, (void *)dVal, (void *)dCRow,
                    (void *)dCCol, (void *)dCVal})
      CHECK(cudaFree(P));
  }
  // cscsort, and csru2csr then csr2csru (back to the original order).
  {
    const int M = 8, N = 10;
    Sparse A = randomSparse(M, N, 0.5);
    std::vector<int> Col = A.Col;
    std::vector<double> Val = A.Val;
    for (int I = 0; I < M; ++I) { // shuffle each row's entries
      std::vector<int> Idx(A.Row[I + 1] - A.Row[I]);
      std::iota(Idx.begin(), Idx.end(), A.Row[I]);
      std::shuffle(Idx.begin(), Idx.end(), Rng);
      for (size_t K = 0; K < Idx.size(); ++K) {
        Col[A.Row[I] + K] = A.Col[Idx[K]];
        Val[A.Row[I] + K] = A.Val[Idx[K]];
      }
    }
    int *dRow = dev(A.Row), *dCol = dev(Col);
    double *dVal = dev(Val);
    csru2csrInfo_t Info;
    CSP(cusparseCreateCsru2csrInfo(&Info));
    size_t Bytes = 0;
    int Nnz = int(Col.size());
    CSP(cusparseDcsru2csr_bufferSizeExt(H, M, N, Nnz, dVal, dRow, dCol, Info, &Bytes));
    void *Buf;
    CHECK(cudaMalloc(&Buf, Bytes + 16));
    CSP(cusparseDcsru2csr(H, M, N, Nnz, D, dVal, dRow, dCol, Info, Buf));
    EXPECT(host(dCol, Nnz) == A.Col && host(dVal, Nnz) == A.Val);
    CSP(cusparseDcsr2csru(H, M, N, Nnz, D, dVal, dRow, dCol, Info, Buf));
    EXPECT(host(dCol, Nnz) == Col && host(dVal, Nnz) == Val);
    CSP(cusparseDestroyCsru2csrInfo(Info));
    // cscsort: the shuffled rows as a CSC matrix's columns (M columns of N rows); P follows the sort.
    int *dP = dev(std::vector<int>(Nnz, 0));
    CSP(cusparseCreateIdentityPermutation(H, Nnz, dP));
    CSP(cusparseXcscsort_bufferSizeExt(H, N, M, Nnz, dRow, dCol, &Bytes));
    CSP(cusparseXcscsort(H, N, M, Nnz, D, dRow, dCol, dP, Buf));
    auto Sorted = host(dCol, Nnz), P = host(dP, Nnz);
    EXPECT(Sorted == A.Col);
    for (int K = 0; K < Nnz; ++K)
      EXPECT(Col[P[K]] == Sorted[K]);
    for (void *Q : {(void *)dRow, (void *)dCol, (void *)dVal, (void *)dP, Buf})
      CHECK(cudaFree(Q));
  }
  // Interleaved batched tridiagonal (every algorithm) and pentadiagonal systems.
  {
    const int M = 17, Batch = 5;
    auto Diag = [&](double Add) {
      std::vector<double> V(size_t(M) * Batch);
      for (auto &X : V)
        X = rnd() + Add;
      return V;
    };
    // max |A x - b| over the batch for the banded A given by its diagonals (offset, values; interleaved).
    using Band = std::vector<std::pair<int, const std::vector<double> *>>;
    auto Residual = [&](const Band &A, const std::vector<double> &X, const std::vector<double> &B) {
      double E = 0;
      for (int Bt = 0; Bt < Batch; ++Bt)
        for (int I = 0; I < M; ++I) {
          double S = 0;
          for (auto [Off, D] : A)
            if (I + Off >= 0 && I + Off < M)
              S += (*D)[size_t(I) * Batch + Bt] * X[size_t(I + Off) * Batch + Bt];
          E = std::max(E, std::fabs(S - B[size_t(I) * Batch + Bt]));
        }
      return E;
    };
    for (int Algo = 0; Algo < 3; ++Algo) {
      auto Dl = Diag(0), Dd = Diag(Algo == 0 ? 4 : 0), Du = Diag(0), B = Diag(0);
      double *dDl = dev(Dl), *dD = dev(Dd), *dDu = dev(Du), *dX = dev(B);
      size_t Bytes = 0;
      CSP(cusparseDgtsvInterleavedBatch_bufferSizeExt(H, Algo, M, dDl, dD, dDu, dX, Batch, &Bytes));
      void *Buf;
      CHECK(cudaMalloc(&Buf, Bytes + 16));
      CSP(cusparseDgtsvInterleavedBatch(H, Algo, M, dDl, dD, dDu, dX, Batch, Buf));
      near("gtsvInterleavedBatch residual", Residual({{-1, &Dl}, {0, &Dd}, {1, &Du}}, host(dX, B.size()), B), 1e-10);
      for (void *P : {(void *)dDl, (void *)dD, (void *)dDu, (void *)dX, Buf})
        CHECK(cudaFree(P));
    }
    auto Ds = Diag(0), Dl = Diag(0), Dd = Diag(0), Du = Diag(0), Dw = Diag(0), B = Diag(0);
    double *dDs = dev(Ds), *dDl = dev(Dl), *dD = dev(Dd), *dDu = dev(Du), *dDw = dev(Dw), *dX = dev(B);
    size_t Bytes = 0;
    CSP(cusparseDgpsvInterleavedBatch_bufferSizeExt(H, 0, M, dDs, dDl, dD, dDu, dDw, dX, Batch, &Bytes));
    void *Buf;
    CHECK(cudaMalloc(&Buf, Bytes + 16));
    CSP(cusparseDgpsvInterleavedBatch(H, 0, M, dDs, dDl, dD, dDu, dDw, dX, Batch, Buf));
    near("gpsvInterleavedBatch residual",
         Residual({{-2, &Ds}, {-1, &Dl}, {0, &Dd}, {1, &Du}, {2, &Dw}}, host(dX, B.size()), B), 1e-9);
    for (void *P : {(void *)dDs, (void *)dDl, (void *)dD, (void *)dDu, (void *)dDw, (void *)dX, Buf})
      CHECK(cudaFree(P));
  }
}

/// Strided batches of SpMM: C_i = A_i B_i, C_i = A B_i (one A for all), and the getters.
static void batchedSpmm(cusparseHandle_t H) {
  const int M = 6, K = 5, N = 3, Batch = 4;
  for (int Shared = 0; Shared < 2; ++Shared) {
    // Every A_i of one nnz count (a requirement of the strided CSR batch) and of the same row counts: NVIDIA's
    // SpMM reads every A_i through A_0's row offsets (observed on an H100, whatever the offsets' batch stride; ours
    // reads each A_i's own). The columns are random per matrix.
    const int Nnz = 9;
    std::vector<int> Row, Col, PerRow(M, 0);
    std::vector<double> Val;
    std::vector<std::vector<double>> Ad;
    for (int B = 0; B < (Shared ? 1 : Batch); ++B) {
      std::vector<int> Cells(M * K);
      std::iota(Cells.begin(), Cells.end(), 0);
      std::shuffle(Cells.begin(), Cells.end(), Rng);
      if (B == 0) {
        Cells.resize(Nnz);
        for (int C : Cells)
          ++PerRow[C / K];
      } else { // A_0's row counts, other columns
        std::vector<int> Pick;
        for (int I = 0; I < M; ++I) {
          std::vector<int> Cs(K);
          std::iota(Cs.begin(), Cs.end(), 0);
          std::shuffle(Cs.begin(), Cs.end(), Rng);
          for (int J = 0; J < PerRow[I]; ++J)
            Pick.push_back(I * K + Cs[J]);
        }
        Cells = Pick;
      }
      std::sort(Cells.begin(), Cells.end());
      std::vector<double> D(M * K, 0);
      Row.push_back(0);
      for (int I = 0, P = 0; I < M; ++I) {
        while (P < Nnz && Cells[P] / K == I) {
          double V = rnd();
          D[Cells[P]] = V;
          Col.push_back(Cells[P] % K);
          Val.push_back(V);
          ++P;
        }
        Row.push_back(P);
      }
      Ad.push_back(D);
    }
    std::vector<double> Bm(size_t(K) * N * Batch), Cm(size_t(M) * N * Batch);
    for (auto &V : Bm)
      V = rnd();
    for (auto &V : Cm)
      V = rnd();
    int *dRow = dev(Row), *dCol = dev(Col);
    double *dVal = dev(Val), *dB = dev(Bm), *dC = dev(Cm);
    cusparseSpMatDescr_t A;
    cusparseDnMatDescr_t Bd, Cd;
    CSP(cusparseCreateCsr(&A, M, K, Nnz, dRow, dCol, dVal, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    // One A for every B_i: a batch of Batch matrices 0 apart (NVIDIA's refuses a batch count of 1 with INVALID_VALUE).
    CSP(cusparseCsrSetStridedBatch(A, Batch, Shared ? 0 : M + 1, Shared ? 0 : Nnz));
    CSP(cusparseCreateDnMat(&Bd, K, N, K, dB, CUDA_R_64F, CUSPARSE_ORDER_COL));
    CSP(cusparseCreateDnMat(&Cd, M, N, M, dC, CUDA_R_64F, CUSPARSE_ORDER_COL));
    CSP(cusparseDnMatSetStridedBatch(Bd, Batch, int64_t(K) * N));
    CSP(cusparseDnMatSetStridedBatch(Cd, Batch, int64_t(M) * N));
    int Count = 0;
    int64_t Stride = 0;
    CSP(cusparseSpMatGetStridedBatch(A, &Count));
    EXPECT(Count == Batch);
    CSP(cusparseDnMatGetStridedBatch(Cd, &Count, &Stride));
    EXPECT(Count == Batch && Stride == M * N);
    double Al = 2, Be = 0.5;
    size_t Bytes = 0;
    CSP(cusparseSpMM_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &Al, A, Bd, &Be,
                                Cd, CUDA_R_64F, CUSPARSE_SPMM_CSR_ALG1, &Bytes));
    void *Buf;
    CHECK(cudaMalloc(&Buf, Bytes + 16));
    CSP(cusparseSpMM(H, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &Al, A, Bd, &Be, Cd,
                     CUDA_R_64F, CUSPARSE_SPMM_CSR_ALG1, Buf));
    auto C = host(dC, Cm.size());
    double E = 0;
    for (int B = 0; B < Batch; ++B) {
      double Eb = 0, E0 = 0, Ep = 0, Eq = 0; // E0: A_0 B_i; Ep: A_0's pattern, A_i's values; Eq: A_0's offsets
      for (int I = 0; I < M; ++I)
        for (int J = 0; J < N; ++J) {
          double S = 0, S0 = 0, Sp = 0, Sq = 0;
          for (int L = 0; L < K; ++L) {
            S += Ad[Shared ? 0 : B][I * K + L] * Bm[size_t(B) * K * N + size_t(J) * K + L];
            S0 += Ad[0][I * K + L] * Bm[size_t(B) * K * N + size_t(J) * K + L];
          }
          if (!Shared)
            for (int P = Row[I]; P < Row[I + 1]; ++P) {
              Sp += Val[size_t(B) * Nnz + P] * Bm[size_t(B) * K * N + size_t(J) * K + Col[P]];
              Sq += Val[size_t(B) * Nnz + P] * Bm[size_t(B) * K * N + size_t(J) * K + Col[size_t(B) * Nnz + P]];
            }
          size_t At = size_t(B) * M * N + size_t(J) * M + I;
          Eb = std::max(Eb, std::fabs(C[At] - (2 * S + 0.5 * Cm[At])));
          E0 = std::max(E0, std::fabs(C[At] - (2 * S0 + 0.5 * Cm[At])));
          Ep = std::max(Ep, std::fabs(C[At] - (2 * Sp + 0.5 * Cm[At])));
          Eq = std::max(Eq, std::fabs(C[At] - (2 * Sq + 0.5 * Cm[At])));
        }
      if (Eb > 1e-12)
        std::printf("SpMM batch %d%s: error %g (against A_0 B_i: %g, A_0's pattern with A_i's values: %g, A_0's "
                    "offsets with A_i's columns and values: %g)\n",
                    B, Shared ? " (one A)" : "", Eb, E0, Ep, Eq);
      E = std::max(E, Eb);
    }
    near(Shared ? "SpMM batch, one A" : "SpMM batch", E, 1e-12);
    // The const getters see the descriptors.
    int64_t R, Cc, Ld;
    const void *V;
    cudaDataType T;
    cusparseOrder_t O;
    CSP(cusparseConstDnMatGet(Cd, &R, &Cc, &Ld, &V, &T, &O));
    EXPECT(R == M && Cc == N && Ld == M && V == dC && T == CUDA_R_64F && O == CUSPARSE_ORDER_COL);
    CSP(cusparseDestroySpMat(A));
    CSP(cusparseDestroyDnMat(Bd));
    CSP(cusparseDestroyDnMat(Cd));
    for (void *P : {(void *)dRow, (void *)dCol, (void *)dVal, (void *)dB, (void *)dC, Buf})
      CHECK(cudaFree(P));
  }
  // CSC and COO getters.
  std::vector<int> Off{0, 1, 2}, Ind{1, 0};
  std::vector<double> Val{3, 4};
  int *dOff = dev(Off), *dInd = dev(Ind);
  double *dVal = dev(Val);
  cusparseSpMatDescr_t A;
  CSP(cusparseCreateCsc(&A, 2, 2, 2, dOff, dInd, dVal, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  int64_t R, C, Nnz;
  const void *P1, *P2, *P3;
  cusparseIndexType_t T1, T2;
  cusparseIndexBase_t Base;
  cudaDataType Vt;
  CSP(cusparseConstCscGet(A, &R, &C, &Nnz, &P1, &P2, &P3, &T1, &T2, &Base, &Vt));
  EXPECT(R == 2 && C == 2 && Nnz == 2 && P1 == dOff && P2 == dInd && P3 == dVal && Vt == CUDA_R_64F);
  CSP(cusparseDestroySpMat(A));
  CSP(cusparseCreateCoo(&A, 2, 2, 2, dInd, dOff, dVal, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CSP(cusparseConstCooGet(A, &R, &C, &Nnz, &P1, &P2, &P3, &T1, &Base, &Vt));
  EXPECT(P1 == dInd && P2 == dOff && P3 == dVal && Nnz == 2);
  CSP(cusparseDestroySpMat(A));
  for (void *P : {(void *)dOff, (void *)dInd, (void *)dVal})
    CHECK(cudaFree(P));
}

/// One element of each value type, from and to complex<double>.
static void putValue(cudaDataType T, void *P, size_t I, Z V) {
  switch (T) {
  case CUDA_R_8I: static_cast<int8_t *>(P)[I] = int8_t(V.real()); break;
  case CUDA_R_32I: static_cast<int32_t *>(P)[I] = int32_t(V.real()); break;
  case CUDA_R_16F: static_cast<__half *>(P)[I] = __double2half(V.real()); break;
  case CUDA_R_16BF: static_cast<__nv_bfloat16 *>(P)[I] = __double2bfloat16(V.real()); break;
  case CUDA_R_32F: static_cast<float *>(P)[I] = float(V.real()); break;
  case CUDA_R_64F: static_cast<double *>(P)[I] = V.real(); break;
  case CUDA_C_16F:
    static_cast<__half *>(P)[2 * I] = __double2half(V.real()), static_cast<__half *>(P)[2 * I + 1] = __double2half(V.imag());
    break;
  case CUDA_C_16BF:
    static_cast<__nv_bfloat16 *>(P)[2 * I] = __double2bfloat16(V.real());
    static_cast<__nv_bfloat16 *>(P)[2 * I + 1] = __double2bfloat16(V.imag());
    break;
  case CUDA_C_32F: static_cast<float *>(P)[2 * I] = float(V.real()), static_cast<float *>(P)[2 * I + 1] = float(V.imag()); break;
  default: static_cast<double *>(P)[2 * I] = V.real(), static_cast<double *>(P)[2 * I + 1] = V.imag(); break;
  }
}
static Z getValue(cudaDataType T, const void *P, size_t I) {
  switch (T) {
  case CUDA_R_8I: return double(static_cast<const int8_t *>(P)[I]);
  case CUDA_R_32I: return double(static_cast<const int32_t *>(P)[I]);
  case CUDA_R_16F: return double(__half2float(static_cast<const __half *>(P)[I]));
  case CUDA_R_16BF: return double(__bfloat162float(static_cast<const __nv_bfloat16 *>(P)[I]));
  case CUDA_R_32F: return double(static_cast<const float *>(P)[I]);
  case CUDA_R_64F: return static_cast<const double *>(P)[I];
  case CUDA_C_16F:
    return {__half2float(static_cast<const __half *>(P)[2 * I]), __half2float(static_cast<const __half *>(P)[2 * I + 1])};
  case CUDA_C_16BF:
    return {__bfloat162float(static_cast<const __nv_bfloat16 *>(P)[2 * I]),
            __bfloat162float(static_cast<const __nv_bfloat16 *>(P)[2 * I + 1])};
  case CUDA_C_32F: return {static_cast<const float *>(P)[2 * I], static_cast<const float *>(P)[2 * I + 1]};
  default: return {static_cast<const double *>(P)[2 * I], static_cast<const double *>(P)[2 * I + 1]};
  }
}
static bool isComplex(cudaDataType T) {
  return T == CUDA_C_16F || T == CUDA_C_16BF || T == CUDA_C_32F || T == CUDA_C_64F;
}

/// SpMV and SpMM with the mixed combinations cuSPARSE documents, on small integers (exact in every type).
static void mixedTypes(cusparseHandle_t H) {
  struct Combo {
    cudaDataType A, X, Y, C;
  } Combos[] = {{CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUDA_R_32F},  {CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F},
                {CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUDA_R_32F},  {CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUDA_R_32F},
                {CUDA_R_8I, CUDA_R_8I, CUDA_R_32I, CUDA_R_32I},    {CUDA_R_8I, CUDA_R_8I, CUDA_R_32F, CUDA_R_32F},
                {CUDA_C_16F, CUDA_C_16F, CUDA_C_16F, CUDA_C_32F},  {CUDA_C_16BF, CUDA_C_16BF, CUDA_C_16BF, CUDA_C_32F},
                {CUDA_R_32F, CUDA_C_32F, CUDA_C_32F, CUDA_C_32F},  {CUDA_R_64F, CUDA_C_64F, CUDA_C_64F, CUDA_C_64F}};
  const int N = 8, K = 3;
  std::vector<int> Row{0}, Col;
  std::vector<Z> Val;
  for (int I = 0; I < N; ++I) {
    for (int J = 0; J < N; ++J)
      if ((I * 5 + J * 3) % 4 == 0) {
        Col.push_back(J);
        Val.push_back(Z((I + 2 * J) % 5 - 2, (I + J) % 3 - 1));
      }
    Row.push_back(int(Col.size()));
  }
  const int Nnz = int(Col.size());
  std::vector<Z> X(N * K), Y0(N * K);
  for (int I = 0; I < N * K; ++I)
    X[I] = Z(std::uniform_int_distribution<int>(-2, 2)(Rng), std::uniform_int_distribution<int>(-1, 1)(Rng)),
    Y0[I] = Z(std::uniform_int_distribution<int>(-2, 2)(Rng), std::uniform_int_distribution<int>(0, 1)(Rng));
  int *dRow = dev(Row), *dCol = dev(Col);
  void *dA, *dX, *dY, *Buf;
  CHECK(cudaMalloc(&dA, 16 * Nnz));
  CHECK(cudaMalloc(&dX, 16 * N * K));
  CHECK(cudaMalloc(&dY, 16 * N * K));
  CHECK(cudaMalloc(&Buf, 1 << 20));
  std::vector<char> HA(16 * Nnz), HX(16 * N * K), HY(16 * N * K);
  for (auto &Cb : Combos)
    for (int Mm = 0; Mm < 2; ++Mm) {
      auto Fit = [](cudaDataType T, Z V) { return isComplex(T) ? V : Z(V.real()); };
      for (int I = 0; I < Nnz; ++I)
        putValue(Cb.A, HA.data(), I, Val[I]);
      for (int I = 0; I < N * K; ++I)
        putValue(Cb.X, HX.data(), I, X[I]), putValue(Cb.Y, HY.data(), I, Y0[I]);
      CHECK(cudaMemcpy(dA, HA.data(), HA.size(), cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(dX, HX.data(), HX.size(), cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(dY, HY.data(), HY.size(), cudaMemcpyHostToDevice));
      char Alpha[16], Beta[16];
      putValue(Cb.C, Alpha, 0, 2.0);
      putValue(Cb.C, Beta, 0, 1.0);
      cusparseSpMatDescr_t A;
      CSP(cusparseCreateCsr(&A, N, N, Nnz, dRow, dCol, dA, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                            CUSPARSE_INDEX_BASE_ZERO, Cb.A));
      size_t Need = 0;
      if (Mm == 0) {
        cusparseDnVecDescr_t Vx, Vy;
        CSP(cusparseCreateDnVec(&Vx, N, dX, Cb.X));
        CSP(cusparseCreateDnVec(&Vy, N, dY, Cb.Y));
        CSP(cusparseSpMV_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, Alpha, A, Vx, Beta, Vy, Cb.C,
                                    CUSPARSE_SPMV_ALG_DEFAULT, &Need));
        CSP(cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, Alpha, A, Vx, Beta, Vy, Cb.C, CUSPARSE_SPMV_ALG_DEFAULT,
                         Buf));
        CSP(cusparseDestroyDnVec(Vx));
        CSP(cusparseDestroyDnVec(Vy));
      } else {
        cusparseDnMatDescr_t Mb, Mc;
        CSP(cusparseCreateDnMat(&Mb, N, K, N, dX, Cb.X, CUSPARSE_ORDER_COL));
        CSP(cusparseCreateDnMat(&Mc, N, K, N, dY, Cb.Y, CUSPARSE_ORDER_COL));
        CSP(cusparseSpMM_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, Alpha, A, Mb,
                                    Beta, Mc, Cb.C, CUSPARSE_SPMM_ALG_DEFAULT, &Need));
        CSP(cusparseSpMM(H, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, Alpha, A, Mb, Beta, Mc,
                         Cb.C, CUSPARSE_SPMM_ALG_DEFAULT, Buf));
        CSP(cusparseDestroyDnMat(Mb));
        CSP(cusparseDestroyDnMat(Mc));
      }
      CSP(cusparseDestroySpMat(A));
      CHECK(cudaMemcpy(HY.data(), dY, HY.size(), cudaMemcpyDeviceToHost));
      double Err = 0;
      for (int J = 0; J < (Mm ? K : 1); ++J)
        for (int R = 0; R < N; ++R) {
          Z Sum = 0;
          for (int P = Row[R]; P < Row[R + 1]; ++P)
            Sum += Fit(Cb.A, Val[P]) * Fit(Cb.X, X[J * N + Col[P]]);
          Err = std::max(Err, std::abs(getValue(Cb.Y, HY.data(), J * N + R) - Fit(Cb.Y, 2.0 * Sum + Fit(Cb.Y, Y0[J * N + R]))));
        }
      if (Err != 0) {
        std::printf("FAIL %s with types %d %d %d compute %d: error %g\n", Mm ? "SpMM" : "SpMV", int(Cb.A), int(Cb.X),
                    int(Cb.Y), int(Cb.C), Err);
        ++Bad;
      }
    }
  // A combination outside the table: refused.
  {
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t Vx, Vy;
    CSP(cusparseCreateCsr(&A, N, N, Nnz, dRow, dCol, dA, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_16F));
    CSP(cusparseCreateDnVec(&Vx, N, dX, CUDA_R_32F));
    CSP(cusparseCreateDnVec(&Vy, N, dY, CUDA_R_32F));
    float One = 1;
    EXPECT(cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, A, Vx, &One, Vy, CUDA_R_32F,
                        CUSPARSE_SPMV_ALG_DEFAULT, Buf) == CUSPARSE_STATUS_NOT_SUPPORTED);
    CSP(cusparseDestroySpMat(A));
    CSP(cusparseDestroyDnVec(Vx));
    CSP(cusparseDestroyDnVec(Vy));
  }
  for (void *P : {(void *)dRow, (void *)dCol, dA, dX, dY, Buf})
    CHECK(cudaFree(P));
}

/// SpGEMM with structure reuse (cuSPARSE's protocol): C's pattern once, then its values for new values of A.
static void spgemmReuse(cusparseHandle_t H) {
  const int M = 9, K = 7, N = 8;
  Sparse A = randomSparse(M, K, 0.35), B = randomSparse(K, N, 0.35);
  int *dAr = dev(A.Row), *dAc = dev(A.Col), *dBr = dev(B.Row), *dBc = dev(B.Col), *dCr;
  double *dAv = dev(A.Val), *dBv = dev(B.Val);
  CHECK(cudaMalloc(&dCr, sizeof(int) * (M + 1)));
  cusparseSpMatDescr_t Am, Bm, Cm;
  CSP(cusparseCreateCsr(&Am, M, K, int64_t(A.Val.size()), dAr, dAc, dAv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CSP(cusparseCreateCsr(&Bm, K, N, int64_t(B.Val.size()), dBr, dBc, dBv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CSP(cusparseCreateCsr(&Cm, M, N, 0, dCr, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  cusparseSpGEMMDescr_t D;
  CSP(cusparseSpGEMM_createDescr(&D));
  const auto N_ = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const auto Alg = CUSPARSE_SPGEMM_DEFAULT;
  size_t S1 = 0, S2 = 0, S3 = 0, S4 = 0, S5 = 0;
  void *B1, *B2, *B3, *B4, *B5;
  CSP(cusparseSpGEMMreuse_workEstimation(H, N_, N_, Am, Bm, Cm, Alg, D, &S1, nullptr));
  CHECK(cudaMalloc(&B1, S1));
  CSP(cusparseSpGEMMreuse_workEstimation(H, N_, N_, Am, Bm, Cm, Alg, D, &S1, B1));
  int64_t Products = -1, Want = 0;
  CSP(cusparseSpGEMM_getNumProducts(D, &Products));
  for (int I = 0; I < M; ++I)
    for (int P = A.Row[I]; P < A.Row[I + 1]; ++P)
      Want += B.Row[A.Col[P] + 1] - B.Row[A.Col[P]];
  EXPECT(Products == Want);
  CSP(cusparseSpGEMMreuse_nnz(H, N_, N_, Am, Bm, Cm, Alg, D, &S2, nullptr, &S3, nullptr, &S4, nullptr));
  CHECK(cudaMalloc(&B2, S2));
  CHECK(cudaMalloc(&B3, S3));
  CHECK(cudaMalloc(&B4, S4));
  CSP(cusparseSpGEMMreuse_nnz(H, N_, N_, Am, Bm, Cm, Alg, D, &S2, B2, &S3, B3, &S4, B4));
  int64_t Rows, Cols, Nnz;
  CSP(cusparseSpMatGetSize(Cm, &Rows, &Cols, &Nnz));
  int *dCc;
  double *dCv;
  CHECK(cudaMalloc(&dCc, sizeof(int) * Nnz + 4));
  CHECK(cudaMalloc(&dCv, sizeof(double) * Nnz + 8));
  CSP(cusparseCsrSetPointers(Cm, dCr, dCc, dCv));
  CSP(cusparseSpGEMMreuse_copy(H, N_, N_, Am, Bm, Cm, Alg, D, &S5, nullptr));
  CHECK(cudaMalloc(&B5, S5));
  CSP(cusparseSpGEMMreuse_copy(H, N_, N_, Am, Bm, Cm, Alg, D, &S5, B5));
  std::vector<double> Prev(size_t(M) * N, 0);
  for (int Round = 0; Round < 2; ++Round) {
    if (Round) { // new values, same pattern
      for (auto &V : A.Val)
        V = rnd();
      A.Dense = denseOfCsr(M, K, A.Row, A.Col, A.Val);
      CHECK(cudaMemcpy(dAv, A.Val.data(), sizeof(double) * A.Val.size(), cudaMemcpyHostToDevice));
    }
    double Al = 1.5, Be = Round ? 0.5 : 0.0;
    CSP(cusparseSpGEMMreuse_compute(H, N_, N_, &Al, Am, Bm, &Be, Cm, CUDA_R_64F, Alg, D));
    auto Cr = host(dCr, M + 1);
    auto Cd = denseOfCsr(M, N, Cr, host(dCc, Nnz), host(dCv, Nnz));
    double E = 0;
    for (int I = 0; I < M; ++I)
      for (int J = 0; J < N; ++J) {
        double S = 0;
        for (int L = 0; L < K; ++L)
          S += A.Dense[size_t(I) * K + L] * B.Dense[size_t(L) * N + J];
        E = std::max(E, std::fabs(Cd[size_t(I) * N + J] - (1.5 * S + Be * Prev[size_t(I) * N + J])));
      }
    near("SpGEMMreuse", E, 1e-12);
    Prev = Cd;
  }
  CSP(cusparseSpGEMM_destroyDescr(D));
  CSP(cusparseDestroySpMat(Am));
  CSP(cusparseDestroySpMat(Bm));
  CSP(cusparseDestroySpMat(Cm));
  for (void *P : {(void *)dAr, (void *)dAc, (void *)dBr, (void *)dBc, (void *)dCr, (void *)dAv, (void *)dBv,
                  (void *)dCc, (void *)dCv, B1, B2, B3, B4, B5})
    CHECK(cudaFree(P));
}

int main() {
  cusparseHandle_t H;
  CSP(cusparseCreate(&H));
  cusparseMatDescr_t D;
  CSP(cusparseCreateMatDescr(&D));
  CSP(cusparseLoggerSetLevel(0)); // the logger's settings are taken
  conversions(H, D);
  blockSolvers(H);
  misc(H, D);
  batchedSpmm(H);
  mixedTypes(H);
  spgemmReuse(H);
  CSP(cusparseDestroyMatDescr(D));
  CSP(cusparseDestroy(H));
  return verdict("cusparse_blocks", Bad);
}
