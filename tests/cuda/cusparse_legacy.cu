// cuSPARSE's legacy routines on our libcusparse, against loops here on fresh
// random data: tridiagonal solvers (gtsv2 with pivoting, gtsv2_nopivot,
// gtsv2StridedBatch), sorting (XcoosortByRow with its permutation,
// Xcsrsort), bsrmv (row- and column-major blocks), bsrmm and csrgeam2. Written from
// the cuSPARSE reference; not yet run on NVIDIA's cuSPARSE (no device was
// lent when it was written).
#include "libs_common.h"
#include "values_common.h"
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

static int Bad = 0;

static void tridiagonal(cusparseHandle_t H) {
  const int M = 12, N = 2;
  std::vector<double> Dl(M), D(M), Du(M), B(size_t(M) * N);
  for (int I = 0; I < M; ++I) {
    Dl[I] = I ? rnd() : 0;
    D[I] = 0.1 * rnd(); // small diagonal: the solve needs pivoting
    Du[I] = I + 1 < M ? rnd() : 0;
  }
  for (auto &V : B)
    V = rnd();
  double *DDl = dev(Dl), *DD = dev(D), *DDu = dev(Du), *DB = dev(B);
  size_t Bytes = 0;
  CSP(cusparseDgtsv2_bufferSizeExt(H, M, N, DDl, DD, DDu, DB, M, &Bytes));
  void *Buf;
  CHECK(cudaMalloc(&Buf, Bytes + 16));
  CSP(cusparseDgtsv2(H, M, N, DDl, DD, DDu, DB, M, Buf));
  auto X = host(DB, B.size());
  auto residual = [&](const std::vector<double> &Xs, const std::vector<double> &Bs, int Rows, int Cols, int Ld,
                      size_t Off) {
    int W = 0;
    for (int J = 0; J < Cols; ++J)
      for (int I = 0; I < Rows; ++I) {
        double S = D[Off + I] * Xs[Off + size_t(J) * Ld + I];
        if (I)
          S += Dl[Off + I] * Xs[Off + size_t(J) * Ld + I - 1];
        if (I + 1 < Rows)
          S += Du[Off + I] * Xs[Off + size_t(J) * Ld + I + 1];
        W += std::fabs(S - Bs[Off + size_t(J) * Ld + I]) > 1e-9;
      }
    return W;
  };
  EXPECT(residual(X, B, M, N, M, 0) == 0);
  // Diagonally dominant: no pivoting needed (single precision).
  {
    std::vector<float> Lf(M), Df(M), Uf(M), Bf(M);
    for (int I = 0; I < M; ++I) {
      Lf[I] = I ? float(rnd()) : 0.f;
      Uf[I] = I + 1 < M ? float(rnd()) : 0.f;
      Df[I] = 3.f + float(rnd());
      Bf[I] = float(rnd());
    }
    float *PL = dev(Lf), *PD = dev(Df), *PU = dev(Uf), *PB = dev(Bf);
    CSP(cusparseSgtsv2_nopivot(H, M, 1, PL, PD, PU, PB, M, Buf));
    auto Xf = host(PB, M);
    int W = 0;
    for (int I = 0; I < M; ++I) {
      double S = Df[I] * Xf[I] + (I ? Lf[I] * Xf[I - 1] : 0) + (I + 1 < M ? Uf[I] * Xf[I + 1] : 0);
      W += std::fabs(S - Bf[I]) > 1e-4;
    }
    EXPECT(W == 0);
    for (void *P : {(void *)PL, (void *)PD, (void *)PU, (void *)PB})
      cudaFree(P);
  }
  // Strided batch: three diagonally dominant systems, stride m + 2.
  {
    const int Count = 3, Stride = M + 2;
    std::vector<double> L(size_t(Stride) * Count), Dd(L.size()), U(L.size()), Xb(L.size());
    for (int K = 0; K < Count; ++K)
      for (int I = 0; I < M; ++I) {
        size_t O = size_t(K) * Stride + I;
        L[O] = I ? rnd() : 0;
        U[O] = I + 1 < M ? rnd() : 0;
        Dd[O] = 3 + rnd();
        Xb[O] = rnd();
      }
    double *PL = dev(L), *PD = dev(Dd), *PU = dev(U), *PX = dev(Xb);
    CSP(cusparseDgtsv2StridedBatch(H, M, PL, PD, PU, PX, Count, Stride, Buf));
    auto R = host(PX, Xb.size());
    int W = 0;
    for (int K = 0; K < Count; ++K)
      for (int I = 0; I < M; ++I) {
        size_t O = size_t(K) * Stride + I;
        double S = Dd[O] * R[O] + (I ? L[O] * R[O - 1] : 0) + (I + 1 < M ? U[O] * R[O + 1] : 0);
        W += std::fabs(S - Xb[O]) > 1e-10;
      }
    EXPECT(W == 0);
    for (void *P : {(void *)PL, (void *)PD, (void *)PU, (void *)PX})
      cudaFree(P);
  }
  for (void *P : {(void *)DDl, (void *)DD, (void *)DDu, (void *)DB, Buf})
    cudaFree(P);
}

static void sorting(cusparseHandle_t H) {
  // COO entries in a random order: sorted by (row, column), P says where each came from.
  const int M = 6, N = 7;
  std::vector<int> Rows, Cols;
  for (int I = 0; I < M; ++I)
    for (int J = 0; J < N; ++J)
      if (rnd() > 0.3) {
        Rows.push_back(I);
        Cols.push_back(J);
      }
  const int Nnz = int(Rows.size());
  std::vector<int> Shuffle(Nnz);
  std::iota(Shuffle.begin(), Shuffle.end(), 0);
  std::shuffle(Shuffle.begin(), Shuffle.end(), Rng);
  std::vector<int> R0(Nnz), C0(Nnz);
  for (int K = 0; K < Nnz; ++K)
    R0[K] = Rows[Shuffle[K]], C0[K] = Cols[Shuffle[K]];
  int *DR = dev(R0), *DC = dev(C0), *DP;
  CHECK(cudaMalloc(&DP, sizeof(int) * Nnz));
  size_t Bytes = 0;
  CSP(cusparseXcoosort_bufferSizeExt(H, M, N, Nnz, DR, DC, &Bytes));
  void *Buf;
  CHECK(cudaMalloc(&Buf, Bytes + 16));
  CSP(cusparseCreateIdentityPermutation(H, Nnz, DP));
  CSP(cusparseXcoosortByRow(H, M, N, Nnz, DR, DC, DP, Buf));
  auto R = host(DR, Nnz), C = host(DC, Nnz), P = host(DP, Nnz);
  int W = 0;
  for (int K = 0; K < Nnz; ++K) {
    W += R[K] != Rows[K] || C[K] != Cols[K]; // the row-major order of the original list
    W += R0[P[K]] != R[K] || C0[P[K]] != C[K];
  }
  EXPECT(W == 0);
  // CSR with each row's columns reversed: Xcsrsort sorts them and permutes P.
  std::vector<int> Off{0}, Ind;
  for (int I = 0; I < M; ++I) {
    std::vector<int> Row;
    for (int K = 0; K < Nnz; ++K)
      if (Rows[K] == I)
        Row.push_back(Cols[K]);
    Ind.insert(Ind.end(), Row.rbegin(), Row.rend());
    Off.push_back(int(Ind.size()));
  }
  int *DOff = dev(Off), *DInd = dev(Ind);
  cusparseMatDescr_t Md;
  CSP(cusparseCreateMatDescr(&Md));
  CSP(cusparseCreateIdentityPermutation(H, Nnz, DP));
  CSP(cusparseXcsrsort_bufferSizeExt(H, M, N, Nnz, DOff, DInd, &Bytes));
  CHECK(cudaFree(Buf));
  CHECK(cudaMalloc(&Buf, Bytes + 16));
  CSP(cusparseXcsrsort(H, M, N, Nnz, Md, DOff, DInd, DP, Buf));
  auto Sorted = host(DInd, Nnz), Perm = host(DP, Nnz);
  W = 0;
  for (int K = 0; K < Nnz; ++K)
    W += Sorted[K] != Cols[K] || Ind[Perm[K]] != Sorted[K];
  EXPECT(W == 0);
  cusparseDestroyMatDescr(Md);
  for (void *Ptr : {(void *)DR, (void *)DC, (void *)DP, Buf, (void *)DOff, (void *)DInd})
    cudaFree(Ptr);
}

static void bsrmvGeam(cusparseHandle_t H) {
  cusparseMatDescr_t Md;
  CSP(cusparseCreateMatDescr(&Md));
  // bsrmv: 3 x 4 blocks of 2 x 2, both block orders.
  const int Mb = 3, Nb = 4, Bd = 2;
  std::vector<int> Off{0}, Ind;
  for (int Br = 0; Br < Mb; ++Br) {
    for (int Bc = 0; Bc < Nb; ++Bc)
      if (Bc == Br || rnd() > 0.4)
        Ind.push_back(Bc);
    Off.push_back(int(Ind.size()));
  }
  std::vector<double> Val(Ind.size() * Bd * Bd), X(Nb * Bd), Y0(Mb * Bd);
  for (auto *V : {&Val, &X, &Y0})
    for (double &E : *V)
      E = rnd();
  int *DOff = dev(Off), *DInd = dev(Ind);
  double *DVal = dev(Val), *DX = dev(X);
  for (cusparseDirection_t Dir : {CUSPARSE_DIRECTION_ROW, CUSPARSE_DIRECTION_COLUMN}) {
    double *DY = dev(Y0), Alpha = 1.5, Beta = -2;
    CSP(cusparseDbsrmv(H, Dir, CUSPARSE_OPERATION_NON_TRANSPOSE, Mb, Nb, int(Ind.size()), &Alpha, Md, DVal, DOff, DInd,
                       Bd, DX, &Beta, DY));
    auto Y = host(DY, Y0.size());
    int W = 0;
    for (int Br = 0; Br < Mb; ++Br)
      for (int I = 0; I < Bd; ++I) {
        double S = 0;
        for (int K = Off[Br]; K < Off[Br + 1]; ++K)
          for (int J = 0; J < Bd; ++J)
            S += Val[size_t(K) * Bd * Bd + (Dir == CUSPARSE_DIRECTION_ROW ? I * Bd + J : J * Bd + I)] *
                 X[Ind[K] * Bd + J];
        W += std::fabs(Y[Br * Bd + I] - (Alpha * S + Beta * Y0[Br * Bd + I])) > 1e-12;
      }
    EXPECT(W == 0);
    cudaFree(DY);
  }
  // bsrmm: C = alpha A op(B) + beta C with B (kb*bd x 3) not transposed, then B^T given (3 x kb*bd).
  {
    const int Nc = 3, K = Nb * Bd, Mrows = Mb * Bd;
    std::vector<double> Bm(size_t(K) * Nc), Bt(size_t(Nc) * K), C0(size_t(Mrows) * Nc);
    for (int J = 0; J < Nc; ++J)
      for (int R = 0; R < K; ++R)
        Bt[size_t(R) * Nc + J] = Bm[size_t(J) * K + R] = rnd();
    for (auto &V : C0)
      V = rnd();
    for (int Trans = 0; Trans < 2; ++Trans) {
      double *DBm = dev(Trans ? Bt : Bm), *DCm = dev(C0), Alpha = 0.5, Beta = 2;
      CSP(cusparseDbsrmm(H, CUSPARSE_DIRECTION_COLUMN, CUSPARSE_OPERATION_NON_TRANSPOSE,
                         Trans ? CUSPARSE_OPERATION_TRANSPOSE : CUSPARSE_OPERATION_NON_TRANSPOSE, Mb, Nc, Nb,
                         int(Ind.size()), &Alpha, Md, DVal, DOff, DInd, Bd, DBm, Trans ? Nc : K, &Beta, DCm, Mrows));
      auto Cm = host(DCm, C0.size());
      int W = 0;
      for (int J = 0; J < Nc; ++J)
        for (int Br = 0; Br < Mb; ++Br)
          for (int I = 0; I < Bd; ++I) {
            double S = 0;
            for (int Kk = Off[Br]; Kk < Off[Br + 1]; ++Kk)
              for (int L = 0; L < Bd; ++L)
                S += Val[size_t(Kk) * Bd * Bd + L * Bd + I] * Bm[size_t(J) * K + Ind[Kk] * Bd + L];
            W += std::fabs(Cm[size_t(J) * Mrows + Br * Bd + I] - (Alpha * S + Beta * C0[size_t(J) * Mrows + Br * Bd + I])) >
                 1e-12;
          }
      EXPECT(W == 0);
      cudaFree(DBm);
      cudaFree(DCm);
    }
  }
  // csrgeam2: C = alpha A + beta B over two random 5 x 6 patterns.
  const int M = 5, N = 6;
  std::vector<double> A(M * N, 0), B(M * N, 0);
  for (auto *Mx : {&A, &B})
    for (double &E : *Mx)
      if (rnd() > 0.3)
        E = rnd();
  auto csr = [&](const std::vector<double> &Dn, std::vector<int> &O, std::vector<int> &I, std::vector<double> &V) {
    O = {0};
    for (int R = 0; R < M; ++R) {
      for (int C = 0; C < N; ++C)
        if (Dn[R * N + C] != 0) {
          I.push_back(C);
          V.push_back(Dn[R * N + C]);
        }
      O.push_back(int(I.size()));
    }
  };
  std::vector<int> Oa, Ia, Ob, Ib;
  std::vector<double> Va, Vb;
  csr(A, Oa, Ia, Va);
  csr(B, Ob, Ib, Vb);
  int *DOa = dev(Oa), *DIa = dev(Ia), *DOb = dev(Ob), *DIb = dev(Ib), *DOc;
  double *DVa = dev(Va), *DVb = dev(Vb), Alpha = 2, Beta = -0.5;
  CHECK(cudaMalloc(&DOc, sizeof(int) * (M + 1)));
  size_t Bytes = 0;
  CSP(cusparseDcsrgeam2_bufferSizeExt(H, M, N, &Alpha, Md, int(Va.size()), DVa, DOa, DIa, &Beta, Md, int(Vb.size()),
                                      DVb, DOb, DIb, Md, nullptr, DOc, nullptr, &Bytes));
  void *Buf;
  CHECK(cudaMalloc(&Buf, Bytes + 16));
  int NnzC = -1;
  CSP(cusparseXcsrgeam2Nnz(H, M, N, Md, int(Va.size()), DOa, DIa, Md, int(Vb.size()), DOb, DIb, Md, DOc, &NnzC, Buf));
  int *DIc;
  double *DVc;
  CHECK(cudaMalloc(&DIc, sizeof(int) * std::max(NnzC, 1)));
  CHECK(cudaMalloc(&DVc, sizeof(double) * std::max(NnzC, 1)));
  CSP(cusparseDcsrgeam2(H, M, N, &Alpha, Md, int(Va.size()), DVa, DOa, DIa, &Beta, Md, int(Vb.size()), DVb, DOb, DIb,
                        Md, DVc, DOc, DIc, Buf));
  auto Oc = host(DOc, M + 1), Ic = host(DIc, NnzC);
  auto Vc = host(DVc, NnzC);
  int W = 0, Expect = 0;
  std::vector<double> Got(M * N, 0);
  for (int R = 0; R < M; ++R)
    for (int K = Oc[R]; K < Oc[R + 1]; ++K) {
      Got[R * N + Ic[K]] = Vc[K];
      W += K > Oc[R] && Ic[K] <= Ic[K - 1]; // sorted
    }
  for (int E = 0; E < M * N; ++E) {
    Expect += A[E] != 0 || B[E] != 0;
    W += std::fabs(Got[E] - (Alpha * A[E] + Beta * B[E])) > 1e-12;
  }
  EXPECT(W == 0 && NnzC == Expect);
  cusparseDestroyMatDescr(Md);
  for (void *P : {(void *)DOff, (void *)DInd, (void *)DVal, (void *)DX, (void *)DOa, (void *)DIa, (void *)DOb,
                  (void *)DIb, (void *)DOc, (void *)DVa, (void *)DVb, Buf, (void *)DIc, (void *)DVc})
    cudaFree(P);
}

int main() {
  cusparseHandle_t H;
  CSP(cusparseCreate(&H));
  tridiagonal(H);
  sorting(H);
  bsrmvGeam(H);
  CSP(cusparseDestroy(H));
  return verdict("cusparse_legacy", Bad);
}
