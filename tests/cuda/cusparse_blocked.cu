// cuSPARSE's blocked and sliced formats on our libcusparse: one random
// block-sparse matrix stored as BSR (row- and column-major blocks),
// Blocked-ELL and Sliced-ELL, each multiplied by a vector (SpMV, also
// transposed) and a dense matrix (SpMM) and expanded (SparseToDense), all
// against the dense matrix here. Layouts from the cuSPARSE reference (BSR
// block offsets as CSR's; Blocked-ELL block columns and values row-major,
// -1 for an empty block; Sliced-ELL slices column-major, -1 for padding).
// NVIDIA's cuSPARSE (H200, H100) refuses (NOT_SUPPORTED) the SpMV of a BSR
// matrix's transpose, SpMV of Blocked-ELL matrices, SpMM of BSR matrices of
// column-major blocks and of Sliced-ELL matrices, and the dense expansion of
// all three formats; ours too. What both compute is checked.
#include "libs_common.h"
#include "values_common.h"
#include <cusparse.h>

#include <cmath>
#include <random>
#include <vector>

static int Bad = 0;

constexpr int Bs = 2, BRows = 4, BCols = 5, Rows = Bs * BRows, Cols = Bs * BCols;

/// The dense matrix: each block row holds a random subset of blocks (at most 3), filled with random values.
static std::vector<double> denseBlocks(std::vector<std::vector<int>> &Blocks) {
  std::vector<double> D(size_t(Rows) * Cols, 0); // row-major
  Blocks.assign(BRows, {});
  for (int Br = 0; Br < BRows; ++Br) {
    for (int Bc = 0; Bc < BCols; ++Bc)
      if (Blocks[Br].size() < 3 && (Bc == Br || rnd() > 0.3))
        Blocks[Br].push_back(Bc);
    for (int Bc : Blocks[Br])
      for (int I = 0; I < Bs; ++I)
        for (int J = 0; J < Bs; ++J)
          D[size_t(Br * Bs + I) * Cols + Bc * Bs + J] = rnd();
  }
  return D;
}

/// y = A x, y = A^T x, C = A B (B: Cols x 3, column-major) and the dense expansion, checked against D.
static void check(cusparseHandle_t H, cusparseSpMatDescr_t A, const std::vector<double> &D, const char *Name,
                  bool ColumnBlocks = false) {
  int Wrong = 0;
  std::vector<double> X(Cols), Xt(Rows), B(size_t(Cols) * 3);
  for (auto &V : X)
    V = rnd();
  for (auto &V : Xt)
    V = rnd();
  for (auto &V : B)
    V = rnd();
  double *DX = dev(X), *DXt = dev(Xt), *DB = dev(B), *DY, *DYt, *DC, *DD;
  CHECK(cudaMalloc(&DY, sizeof(double) * Rows));
  CHECK(cudaMalloc(&DYt, sizeof(double) * Cols));
  CHECK(cudaMalloc(&DC, sizeof(double) * Rows * 3));
  CHECK(cudaMalloc(&DD, sizeof(double) * Rows * Cols));
  cusparseDnVecDescr_t Vx, Vy, Vxt, Vyt;
  CSP(cusparseCreateDnVec(&Vx, Cols, DX, CUDA_R_64F));
  CSP(cusparseCreateDnVec(&Vy, Rows, DY, CUDA_R_64F));
  CSP(cusparseCreateDnVec(&Vxt, Rows, DXt, CUDA_R_64F));
  CSP(cusparseCreateDnVec(&Vyt, Cols, DYt, CUDA_R_64F));
  double One = 1, Zero = 0;
  size_t Bytes = 0;
  cusparseFormat_t Fmt;
  CSP(cusparseSpMatGetFormat(A, &Fmt));
  const bool Ell = Fmt == CUSPARSE_FORMAT_BLOCKED_ELL;
  // What NVIDIA's cuSPARSE refuses (NOT_SUPPORTED, observed on an H100 and the H200), as ours does: SpMV of a
  // Blocked-ELL matrix, and of a BSR matrix's transpose. (On NVIDIA's the statuses are printed, not checked.)
  auto Expect = [&](cusparseStatus_t S, bool Refused, const char *Op) {
    if (S != CUSPARSE_STATUS_SUCCESS)
      std::printf("%s: %s: %s\n", Name, Op, cusparseGetErrorName(S));
    if (onZluda())
      EXPECT(S == (Refused ? CUSPARSE_STATUS_NOT_SUPPORTED : CUSPARSE_STATUS_SUCCESS));
  };
  const cusparseStatus_t Ns = cusparseSpMV_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, A, Vx, &Zero, Vy,
                                                      CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &Bytes);
  Expect(Ns, Ell, "SpMV");
  void *Buf;
  CHECK(cudaMalloc(&Buf, Bytes + 256));
  if (Ns == CUSPARSE_STATUS_SUCCESS)
    CSP(cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, A, Vx, &Zero, Vy, CUDA_R_64F,
                     CUSPARSE_SPMV_ALG_DEFAULT, Buf));
  const cusparseStatus_t Ts = cusparseSpMV(H, CUSPARSE_OPERATION_TRANSPOSE, &One, A, Vxt, &Zero, Vyt, CUDA_R_64F,
                                           CUSPARSE_SPMV_ALG_DEFAULT, Buf);
  Expect(Ts, Ell || Fmt == CUSPARSE_FORMAT_BSR, "SpMV of the transpose");
  cusparseDnMatDescr_t Mb, Mc, Md;
  CSP(cusparseCreateDnMat(&Mb, Cols, 3, Cols, DB, CUDA_R_64F, CUSPARSE_ORDER_COL));
  CSP(cusparseCreateDnMat(&Mc, Rows, 3, Rows, DC, CUDA_R_64F, CUSPARSE_ORDER_COL));
  CSP(cusparseCreateDnMat(&Md, Rows, Cols, Cols, DD, CUDA_R_64F, CUSPARSE_ORDER_ROW));
  // C = A B: NVIDIA's cuSPARSE refuses BSR with column-major blocks (NOT_SUPPORTED, observed on an H100), as ours.
  const cusparseStatus_t Ms = cusparseSpMM_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                      CUSPARSE_OPERATION_NON_TRANSPOSE, &One, A, Mb, &Zero, Mc,
                                                      CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, &Bytes);
  Expect(Ms, (Fmt == CUSPARSE_FORMAT_BSR && ColumnBlocks) || Fmt == CUSPARSE_FORMAT_SLICED_ELLPACK, "SpMM");
  void *Buf2;
  CHECK(cudaMalloc(&Buf2, Bytes + 256));
  if (Ms == CUSPARSE_STATUS_SUCCESS)
    CSP(cusparseSpMM(H, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, A, Mb, &Zero, Mc,
                     CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, Buf2));
  // The dense expansion: NVIDIA's cuSPARSE refuses it for BSR (NOT_SUPPORTED, observed on the H200), as ours does.
  const cusparseStatus_t Ds = cusparseSparseToDense_bufferSize(H, A, Md, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, &Bytes);
  Expect(Ds, true, "SparseToDense"); // none of these formats
  void *Buf3;
  CHECK(cudaMalloc(&Buf3, Bytes + 256));
  if (Ds == CUSPARSE_STATUS_SUCCESS)
    CSP(cusparseSparseToDense(H, A, Md, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, Buf3));
  auto Y = host(DY, Rows), Yt = host(DYt, Cols), C = host(DC, size_t(Rows) * 3), E = host(DD, size_t(Rows) * Cols);
  for (int I = 0; I < Rows; ++I) {
    double S = 0;
    for (int J = 0; J < Cols; ++J)
      S += D[size_t(I) * Cols + J] * X[J];
    Wrong += Ns == CUSPARSE_STATUS_SUCCESS && std::fabs(Y[I] - S) > 1e-12;
    for (int K = 0; K < 3 && Ms == CUSPARSE_STATUS_SUCCESS; ++K) {
      double Sc = 0;
      for (int J = 0; J < Cols; ++J)
        Sc += D[size_t(I) * Cols + J] * B[size_t(K) * Cols + J];
      Wrong += std::fabs(C[size_t(K) * Rows + I] - Sc) > 1e-12;
    }
    for (int J = 0; J < Cols && Ds == CUSPARSE_STATUS_SUCCESS; ++J)
      Wrong += E[size_t(I) * Cols + J] != D[size_t(I) * Cols + J];
  }
  for (int J = 0; J < Cols && Ts == CUSPARSE_STATUS_SUCCESS; ++J) {
    double S = 0;
    for (int I = 0; I < Rows; ++I)
      S += D[size_t(I) * Cols + J] * Xt[I];
    Wrong += std::fabs(Yt[J] - S) > 1e-12;
  }
  if (Wrong)
    std::printf("%s: %d wrong\n", Name, Wrong);
  EXPECT(Wrong == 0);
  cusparseDestroyDnVec(Vx);
  cusparseDestroyDnVec(Vy);
  cusparseDestroyDnVec(Vxt);
  cusparseDestroyDnVec(Vyt);
  cusparseDestroyDnMat(Mb);
  cusparseDestroyDnMat(Mc);
  cusparseDestroyDnMat(Md);
  for (void *P : {(void *)DX, (void *)DXt, (void *)DB, (void *)DY, (void *)DYt, (void *)DC, (void *)DD, Buf, Buf2,
                  Buf3})
    cudaFree(P);
}

int main() {
  cusparseHandle_t H;
  CSP(cusparseCreate(&H));
  std::vector<std::vector<int>> Blocks;
  auto D = denseBlocks(Blocks);
  // BSR, both block orders.
  for (cusparseOrder_t Order : {CUSPARSE_ORDER_ROW, CUSPARSE_ORDER_COL}) {
    std::vector<int> Off{0}, Ind;
    std::vector<double> Val;
    for (int Br = 0; Br < BRows; ++Br) {
      for (int Bc : Blocks[Br]) {
        Ind.push_back(Bc);
        for (int P = 0; P < Bs * Bs; ++P) {
          int I = Order == CUSPARSE_ORDER_ROW ? P / Bs : P % Bs, J = Order == CUSPARSE_ORDER_ROW ? P % Bs : P / Bs;
          Val.push_back(D[size_t(Br * Bs + I) * Cols + Bc * Bs + J]);
        }
      }
      Off.push_back(int(Ind.size()));
    }
    int *DOff = dev(Off), *DInd = dev(Ind);
    double *DVal = dev(Val);
    cusparseSpMatDescr_t A;
    CSP(cusparseCreateBsr(&A, BRows, BCols, int64_t(Ind.size()), Bs, Bs, DOff, DInd, DVal, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F, Order));
    cusparseFormat_t F;
    CSP(cusparseSpMatGetFormat(A, &F));
    EXPECT(F == CUSPARSE_FORMAT_BSR);
    check(H, A, D, Order == CUSPARSE_ORDER_ROW ? "BSR (row-major blocks)" : "BSR (column-major blocks)",
          Order == CUSPARSE_ORDER_COL);
    cusparseDestroySpMat(A);
    cudaFree(DOff);
    cudaFree(DInd);
    cudaFree(DVal);
  }
  // Blocked-ELL: 3 block slots a block row (-1 where a row has fewer), values row-major (rows x ellCols).
  {
    const int Slots = 3, EllCols = Slots * Bs;
    std::vector<int> Ind(size_t(BRows) * Slots, -1);
    std::vector<double> Val(size_t(Rows) * EllCols, 0);
    for (int Br = 0; Br < BRows; ++Br)
      for (size_t S = 0; S < Blocks[Br].size(); ++S) {
        int Bc = Blocks[Br][S];
        Ind[size_t(Br) * Slots + S] = Bc;
        for (int I = 0; I < Bs; ++I)
          for (int J = 0; J < Bs; ++J)
            Val[size_t(Br * Bs + I) * EllCols + S * Bs + J] = D[size_t(Br * Bs + I) * Cols + Bc * Bs + J];
      }
    int *DInd = dev(Ind);
    double *DVal = dev(Val);
    cusparseSpMatDescr_t A;
    CSP(cusparseCreateBlockedEll(&A, Rows, Cols, Bs, EllCols, DInd, DVal, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                 CUDA_R_64F));
    int64_t R, C, Eb, Ec;
    void *Pi, *Pv;
    cusparseIndexType_t It;
    cusparseIndexBase_t Base;
    cudaDataType Vt;
    CSP(cusparseBlockedEllGet(A, &R, &C, &Eb, &Ec, &Pi, &Pv, &It, &Base, &Vt));
    EXPECT(R == Rows && C == Cols && Eb == Bs && Ec == EllCols && Pi == DInd && Pv == DVal);
    check(H, A, D, "Blocked-ELL");
    cusparseDestroySpMat(A);
    cudaFree(DInd);
    cudaFree(DVal);
  }
  // Sliced-ELL: slices of 3 rows, each as wide as its longest row, stored column-major, -1 padding.
  {
    const int Slice = 3;
    std::vector<int> Off{0}, Ind;
    std::vector<double> Val;
    int64_t Nnz = 0;
    for (int S0 = 0; S0 < Rows; S0 += Slice) {
      std::vector<std::vector<int>> RowCols(Slice);
      size_t Width = 0;
      for (int R = 0; R < Slice && S0 + R < Rows; ++R) {
        for (int J = 0; J < Cols; ++J)
          if (D[size_t(S0 + R) * Cols + J] != 0)
            RowCols[R].push_back(J);
        Width = std::max(Width, RowCols[R].size());
        Nnz += int64_t(RowCols[R].size());
      }
      for (size_t K = 0; K < Width; ++K)
        for (int R = 0; R < Slice; ++R) {
          bool Has = S0 + R < Rows && K < RowCols[R].size();
          Ind.push_back(Has ? RowCols[R][K] : -1);
          Val.push_back(Has ? D[size_t(S0 + R) * Cols + RowCols[R][K]] : 0);
        }
      Off.push_back(int(Ind.size()));
    }
    int *DOff = dev(Off), *DInd = dev(Ind);
    double *DVal = dev(Val);
    cusparseSpMatDescr_t A;
    CSP(cusparseCreateSlicedEll(&A, Rows, Cols, Nnz, int64_t(Val.size()), Slice, DOff, DInd, DVal, CUSPARSE_INDEX_32I,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    check(H, A, D, "Sliced-ELL");
    cusparseDestroySpMat(A);
    cudaFree(DOff);
    cudaFree(DInd);
    cudaFree(DVal);
  }
  cusparseSpMatDescr_t Bad1;
  EXPECT(cusparseCreateBlockedEll(&Bad1, Rows + 1, Cols, Bs, Bs, nullptr, nullptr, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F) == CUSPARSE_STATUS_INVALID_VALUE);
  CSP(cusparseDestroy(H));
  return verdict("cusparse_blocked", Bad);
}
