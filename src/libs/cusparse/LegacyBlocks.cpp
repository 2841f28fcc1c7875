//===- LegacyBlocks.cpp - cuSPARSE: legacy block routines -------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Block conversions, block triangular solves and factorizations, masked bsrxmv,
/// csrcolor, nnz and compression, gemvi, pruning, cscsort, csru2csr, batched
/// tridiagonal and pentadiagonal solvers.
#include "libs/cusparse/Internal.h"

using namespace zluda;
using namespace zluda::cusparse;

//===----------------------------------------------------------------------===//
// More legacy routines: block conversions (csr2bsr, bsr2csr, the general-block
// forms), block triangular solves and incomplete factorizations (bsrsv2,
// bsrsm2, bsrilu02, bsric02, numeric boosts), masked bsrxmv, csrcolor, nnz and
// compression, gemvi, pruning, cscsort, csru2csr and the interleaved batched
// tridiagonal and pentadiagonal solvers. CPU device, in stream order; GPUs,
// on host copies after the stream (staged).
//===----------------------------------------------------------------------===//
namespace zluda::cusparse {
namespace {

/// Offset of element (r, c) in a block of Rb x Cb stored row- or column-major.
inline size_t inBlock(cusparseDirection_t Dir, int R, int C, int Rb, int Cb) {
  return Dir == CUSPARSE_DIRECTION_ROW ? size_t(R) * Cb + C : size_t(C) * Rb + R;
}

/// A general BSR matrix's elements as CSR (every element of every block, rows sorted by column), 0-based, with
/// each element's position in the block values.
struct Expanded {
  std::vector<int> Row{0}, Col;
  std::vector<size_t> At;
};
Expanded expandBsr(cusparseDirection_t Dir, int Mb, const int *RowPtr, const int *ColInd, int Base, int Rb, int Cb) {
  Expanded E;
  std::vector<std::pair<int, int>> Blocks; // (block column, block index)
  for (int Br = 0; Br < Mb; ++Br) {
    Blocks.clear();
    for (int K = RowPtr[Br] - Base; K < RowPtr[Br + 1] - Base; ++K)
      Blocks.push_back({ColInd[K] - Base, K});
    std::sort(Blocks.begin(), Blocks.end());
    for (int R = 0; R < Rb; ++R) {
      for (auto [Bc, K] : Blocks)
        for (int C = 0; C < Cb; ++C) {
          E.Col.push_back(Bc * Cb + C);
          E.At.push_back(size_t(K) * Rb * Cb + inBlock(Dir, R, C, Rb, Cb));
        }
      E.Row.push_back(int(E.Col.size()));
    }
  }
  return E;
}

/// The block rows of a general BSR form of a CSR matrix: each block row's sorted block columns.
std::vector<std::vector<int>> blockColumns(int M, const int *Row, const int *Col, int Base, int Rb, int Cb) {
  const int Mb = (M + Rb - 1) / Rb;
  std::vector<std::vector<int>> B(static_cast<size_t>(Mb));
  for (int I = 0; I < M; ++I)
    for (int K = Row[I] - Base; K < Row[I + 1] - Base; ++K)
      B[size_t(I / Rb)].push_back((Col[K] - Base) / Cb);
  for (auto &V : B) {
    std::sort(V.begin(), V.end());
    V.erase(std::unique(V.begin(), V.end()), V.end());
  }
  return B;
}

cusparseStatus_t csr2gebsrNnz(cusparseHandle_t Hd, cusparseDirection_t Dir, int M, int N, cusparseMatDescr_t Da,
                              const int *Ra, const int *Ca, cusparseMatDescr_t Dc, int *Rc, int Rb, int Cb,
                              int *Total) {
  HANDLE_OR_FAIL(Hd)
  auto *A = lookup<MatDescr>(Da), *C = lookup<MatDescr>(Dc);
  if (!A || !C || M < 0 || N < 0 || Rb < 1 || Cb < 1 || !Rc || (M && !Ra) ||
      (Dir != CUSPARSE_DIRECTION_ROW && Dir != CUSPARSE_DIRECTION_COLUMN))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int Ba = A->Base, Bc = C->Base;
  const int64_t NnzA = entries(H, Ra, M, Ba), Mb = (int64_t(M) + Rb - 1) / Rb;
  if (NnzA < 0)
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  return withTotal(
      H, Total,
      [=](const int *Ra, const int *Ca, int *Rc) {
        auto B = blockColumns(M, Ra, Ca, Ba, Rb, Cb);
        Rc[0] = Bc;
        for (size_t I = 0; I < B.size(); ++I)
          Rc[I + 1] = Rc[I] + int(B[I].size());
        return Rc[B.size()] - Bc;
      },
      libs::in(M ? Ra : nullptr, size_t(M) + 1), libs::in(Ca, size_t(NnzA)), libs::out(Rc, size_t(Mb) + 1));
}

template <typename T>
cusparseStatus_t csr2gebsr(cusparseHandle_t Hd, cusparseDirection_t Dir, int M, int N, cusparseMatDescr_t Da,
                           const T *Va, const int *Ra, const int *Ca, cusparseMatDescr_t Dc, T *Vc, int *Rc, int *Cc,
                           int Rb, int Cb) {
  HANDLE_OR_FAIL(Hd)
  auto *A = lookup<MatDescr>(Da), *C = lookup<MatDescr>(Dc);
  if (!A || !C || M < 0 || N < 0 || Rb < 1 || Cb < 1 || !Rc || (M && !Ra) ||
      (Dir != CUSPARSE_DIRECTION_ROW && Dir != CUSPARSE_DIRECTION_COLUMN))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int Ba = A->Base, Bc = C->Base;
  const int64_t Mb = (int64_t(M) + Rb - 1) / Rb, NnzA = entries(H, Ra, M, Ba), Nnzb = entries(H, Rc, Mb, Bc);
  if (NnzA < 0 || Nnzb < 0)
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  const size_t Bs = size_t(Rb) * Cb;
  return staged(H, [=](const T *Va, const int *Ra, const int *Ca, int *Cc, T *Vc) {
    auto B = blockColumns(M, Ra, Ca, Ba, Rb, Cb);
    size_t K = 0;
    for (size_t Br = 0; Br < B.size(); ++Br) {
      const size_t First = K;
      for (int Col : B[Br]) {
        if (Cc)
          Cc[K] = Col + Bc;
        if (Vc)
          std::fill(Vc + K * Rb * Cb, Vc + (K + 1) * Rb * Cb, T(0));
        ++K;
      }
      if (!Vc)
        continue;
      for (int R = 0; R < Rb && int(Br) * Rb + R < M; ++R) {
        const int I = int(Br) * Rb + R;
        for (int P = Ra[I] - Ba; P < Ra[I + 1] - Ba; ++P) {
          const int Col = Ca[P] - Ba;
          size_t Blk = First + size_t(std::lower_bound(B[Br].begin(), B[Br].end(), Col / Cb) - B[Br].begin());
          Vc[Blk * Rb * Cb + inBlock(Dir, R, Col % Cb, Rb, Cb)] += Va[P];
        }
      }
    }
  }, libs::in(Va, size_t(NnzA)), libs::in(M ? Ra : nullptr, size_t(M) + 1), libs::in(Ca, size_t(NnzA)),
     libs::out(Cc, size_t(Nnzb)), libs::out(Vc, size_t(Nnzb) * Bs));
}

template <typename T>
cusparseStatus_t gebsr2csr(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nb, cusparseMatDescr_t Da,
                           const T *Va, const int *Ra, const int *Ca, int Rb, int Cb, cusparseMatDescr_t Dc, T *Vc,
                           int *Rc, int *Cc) {
  HANDLE_OR_FAIL(Hd)
  auto *A = lookup<MatDescr>(Da), *C = lookup<MatDescr>(Dc);
  if (!A || !C || Mb < 0 || Nb < 0 || Rb < 1 || Cb < 1 || !Rc || (Mb && !Ra) ||
      (Dir != CUSPARSE_DIRECTION_ROW && Dir != CUSPARSE_DIRECTION_COLUMN))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int Ba = A->Base, Bc = C->Base;
  const int64_t Nnzb = entries(H, Ra, Mb, Ba);
  if (Nnzb < 0)
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  const size_t Elems = size_t(Nnzb) * Rb * Cb;
  return staged(
      H,
      [=](const T *Va, const int *Ra, const int *Ca, T *Vc, int *Rc, int *Cc) {
        Expanded E = expandBsr(Dir, Mb, Ra, Ca, Ba, Rb, Cb);
        for (size_t I = 0; I < E.Row.size(); ++I)
          Rc[I] = E.Row[I] + Bc;
        for (size_t K = 0; K < E.Col.size(); ++K) {
          if (Cc)
            Cc[K] = E.Col[K] + Bc;
          if (Vc && Va)
            Vc[K] = Va[E.At[K]];
        }
      },
      libs::in(Va, Elems), libs::in(Mb ? Ra : nullptr, size_t(Mb) + 1), libs::in(Ca, size_t(Nnzb)),
      libs::out(Vc, Elems), libs::out(Rc, size_t(Mb) * Rb + 1), libs::out(Cc, Elems));
}

template <typename T>
cusparseStatus_t gebsr2gebsc(cusparseHandle_t Hd, int Mb, int Nb, int Nnzb, const T *Va, const int *Ra, const int *Ca,
                             int Rb, int Cb, T *Vc, int *RowInd, int *ColPtr, cusparseAction_t Act,
                             cusparseIndexBase_t Base) {
  HANDLE_OR_FAIL(Hd)
  if (Mb < 0 || Nb < 0 || Nnzb < 0 || Rb < 1 || Cb < 1 || !ColPtr || (Mb && !Ra) || (Nnzb && (!Ca || !RowInd)) ||
      (Base != CUSPARSE_INDEX_BASE_ZERO && Base != CUSPARSE_INDEX_BASE_ONE))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const size_t Bs = size_t(Rb) * Cb;
  return staged(H, [=](const T *Va, const int *Ra, const int *Ca, T *Vc, int *RowInd, int *ColPtr) {
    const int B = Base;
    std::vector<int> Count(size_t(Nb) + 1, 0);
    for (int K = 0; K < Nnzb; ++K)
      ++Count[size_t(Ca[K] - B + 1)];
    for (int J = 0; J < Nb; ++J)
      Count[size_t(J) + 1] += Count[size_t(J)];
    for (int J = 0; J <= Nb; ++J)
      ColPtr[J] = Count[size_t(J)] + B;
    for (int I = 0; I < Mb; ++I) // rows in order: each column's rows come out sorted
      for (int K = Ra[I] - B; K < Ra[I + 1] - B; ++K) {
        int Dst = Count[size_t(Ca[K] - B)]++;
        RowInd[Dst] = I + B;
        if (Act == CUSPARSE_ACTION_NUMERIC && Va && Vc)
          std::copy(Va + size_t(K) * Rb * Cb, Va + size_t(K + 1) * Rb * Cb, Vc + size_t(Dst) * Rb * Cb);
      }
  }, libs::in(Act == CUSPARSE_ACTION_NUMERIC ? Va : nullptr, size_t(Nnzb) * Bs), libs::in(Mb ? Ra : nullptr, size_t(Mb) + 1),
     libs::in(Ca, size_t(Nnzb)), libs::out(Act == CUSPARSE_ACTION_NUMERIC ? Vc : nullptr, size_t(Nnzb) * Bs),
     libs::out(RowInd, size_t(Nnzb)), libs::out(ColPtr, size_t(Nb) + 1));
}

/// General BSR to general BSR of other block sizes: the elements of A's blocks (zeros included) decide C's blocks.
cusparseStatus_t gebsr2gebsrNnz(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nb, int Nnzb,
                                cusparseMatDescr_t Da, const int *Ra, const int *Ca, int Rba, int Cba,
                                cusparseMatDescr_t Dc, int *Rc, int Rbc, int Cbc, int *Total) {
  HANDLE_OR_FAIL(Hd)
  auto *A = lookup<MatDescr>(Da), *C = lookup<MatDescr>(Dc);
  if (!A || !C || Mb < 0 || Nb < 0 || Nnzb < 0 || Rba < 1 || Cba < 1 || Rbc < 1 || Cbc < 1 || !Rc || (Mb && !Ra))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int Ba = A->Base, Bc = C->Base;
  const int64_t Mbc = (int64_t(Mb) * Rba + Rbc - 1) / Rbc;
  return withTotal(
      H, Total,
      [=](const int *Ra, const int *Ca, int *Rc) {
        Expanded E = expandBsr(Dir, Mb, Ra, Ca, Ba, Rba, Cba);
        auto B = blockColumns(Mb * Rba, E.Row.data(), E.Col.data(), 0, Rbc, Cbc);
        Rc[0] = Bc;
        for (size_t I = 0; I < B.size(); ++I)
          Rc[I + 1] = Rc[I] + int(B[I].size());
        return Rc[B.size()] - Bc;
      },
      libs::in(Mb ? Ra : nullptr, size_t(Mb) + 1), libs::in(Ca, size_t(Nnzb)), libs::out(Rc, size_t(Mbc) + 1));
}
template <typename T>
cusparseStatus_t gebsr2gebsr(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nb, int Nnzb,
                             cusparseMatDescr_t Da, const T *Va, const int *Ra, const int *Ca, int Rba, int Cba,
                             cusparseMatDescr_t Dc, T *Vc, int *Rc, int *Cc, int Rbc, int Cbc) {
  HANDLE_OR_FAIL(Hd)
  auto *A = lookup<MatDescr>(Da), *C = lookup<MatDescr>(Dc);
  if (!A || !C || Mb < 0 || Nb < 0 || Nnzb < 0 || Rba < 1 || Cba < 1 || Rbc < 1 || Cbc < 1 || !Rc || (Mb && !Ra))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int Ba = A->Base, Bc = C->Base;
  const int64_t Mbc = (int64_t(Mb) * Rba + Rbc - 1) / Rbc, Nnzc = entries(H, Rc, Mbc, Bc);
  if (Nnzc < 0)
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  const size_t Bsa = size_t(Rba) * Cba, Bsc = size_t(Rbc) * Cbc;
  return staged(H, [=](const T *Va, const int *Ra, const int *Ca, T *Vc, int *Cc) {
    Expanded E = expandBsr(Dir, Mb, Ra, Ca, Ba, Rba, Cba);
    const int M = Mb * Rba;
    auto B = blockColumns(M, E.Row.data(), E.Col.data(), 0, Rbc, Cbc);
    size_t K = 0;
    for (size_t Br = 0; Br < B.size(); ++Br) {
      const size_t First = K;
      for (int Col : B[Br]) {
        if (Cc)
          Cc[K] = Col + Bc;
        if (Vc)
          std::fill(Vc + K * Rbc * Cbc, Vc + (K + 1) * Rbc * Cbc, T(0));
        ++K;
      }
      if (!Vc || !Va)
        continue;
      for (int R = 0; R < Rbc && int(Br) * Rbc + R < M; ++R) {
        const int I = int(Br) * Rbc + R;
        for (int P = E.Row[size_t(I)]; P < E.Row[size_t(I) + 1]; ++P) {
          const int Col = E.Col[size_t(P)];
          size_t Blk = First + size_t(std::lower_bound(B[Br].begin(), B[Br].end(), Col / Cbc) - B[Br].begin());
          Vc[Blk * Rbc * Cbc + inBlock(Dir, R, Col % Cbc, Rbc, Cbc)] = Va[E.At[size_t(P)]];
        }
      }
    }
  }, libs::in(Va, size_t(Nnzb) * Bsa), libs::in(Mb ? Ra : nullptr, size_t(Mb) + 1), libs::in(Ca, size_t(Nnzb)),
     libs::out(Vc, size_t(Nnzc) * Bsc), libs::out(Cc, size_t(Nnzc)));
}

/// bsrsv2/bsrsm2/bsrilu02/bsric02's info: the zero pivot (a block row) of the last analysis or factorization,
/// and bsrilu02's/csrilu02's numeric boost.
struct BlockInfo : FactorInfo {};

/// A triangular solve op(A) X = alpha B on the elements of a BSR matrix (its fill mode and diagonal type; the
/// other triangle, diagonal blocks included, not read), for N right-hand sides (column j at B + j * Ldb, or row
/// j when \p Bt). Returns the first block row with a zero diagonal element (non-unit) or -1.
template <typename T>
int64_t bsrTriangular(cusparseDirection_t Dir, cusparseOperation_t Op, int Mb, const T *Val, const int *RowPtr,
                      const int *ColInd, int Base, int Bd, bool Lower, bool Unit, int N, T Alpha, const T *B, int Ldb,
                      T *X, int Ldx, bool Bt) {
  Expanded E = expandBsr(Dir, Mb, RowPtr, ColInd, Base, Bd, Bd);
  const int M = Mb * Bd;
  // op(A)'s triangle as rows of (column, value).
  const bool Trans = Op != CUSPARSE_OPERATION_NON_TRANSPOSE;
  std::vector<std::vector<std::pair<int, T>>> Rows(static_cast<size_t>(M));
  std::vector<T> Diag(size_t(M), T(0));
  for (int I = 0; I < M; ++I)
    for (int K = E.Row[size_t(I)]; K < E.Row[size_t(I) + 1]; ++K) {
      const int J = E.Col[size_t(K)];
      if (J >= M || (Lower ? J > I : J < I))
        continue;
      T V = conjIf(Val[E.At[size_t(K)]], Op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE);
      if (J == I)
        Diag[size_t(I)] += V;
      else if (Trans)
        Rows[size_t(J)].push_back({I, V});
      else
        Rows[size_t(I)].push_back({J, V});
    }
  int64_t Zero = -1;
  if (!Unit)
    for (int I = 0; I < M && Zero < 0; ++I)
      if (Diag[size_t(I)] == T(0))
        Zero = I / Bd;
  const bool Forward = Lower != Trans; // op(A) lower: forward substitution
  for (int J = 0; J < N; ++J) {
    auto Bv = [&](int I) -> T { return Bt ? B[size_t(I) * Ldb + J] : B[size_t(J) * Ldb + I]; };
    auto Xv = [&](int I) -> T & { return Bt ? X[size_t(I) * Ldx + J] : X[size_t(J) * Ldx + I]; };
    std::vector<T> Y(static_cast<size_t>(M));
    for (int S = 0; S < M; ++S) {
      const int I = Forward ? S : M - 1 - S;
      T Sum = Alpha * Bv(I);
      for (auto [C, V] : Rows[size_t(I)])
        Sum -= V * Y[size_t(C)];
      Y[size_t(I)] = Unit ? Sum : Sum / Diag[size_t(I)];
    }
    for (int I = 0; I < M; ++I)
      Xv(I) = Y[size_t(I)];
  }
  return Zero;
}

/// bsrsv2/bsrsm2 analysis: the structural or numerical zero pivot (a missing diagonal block, or a zero on the
/// diagonal of a diagonal block when the diagonal is not unit).
template <typename T>
int64_t bsrDiagonalZero(cusparseDirection_t Dir, int Mb, const T *Val, const int *RowPtr, const int *ColInd, int Base,
                        int Bd, bool Unit) {
  for (int Br = 0; Br < Mb; ++Br) {
    int Found = -1;
    for (int K = RowPtr[Br] - Base; K < RowPtr[Br + 1] - Base; ++K)
      if (ColInd[K] - Base == Br)
        Found = K;
    if (Found < 0)
      return Br;
    if (!Unit)
      for (int I = 0; I < Bd; ++I)
        if (Val[size_t(Found) * Bd * Bd + inBlock(Dir, I, I, Bd, Bd)] == T(0))
          return Br;
  }
  return -1;
}

} // namespace
} // namespace zluda::cusparse

#define BLOCK_INFO(Name, Low)                                                                                               \
  CUSPARSE_API cusparseStatus_t cusparseCreate##Name##Info(void **Out) {                                               \
    if (!Out)                                                                                                          \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    *Out = track(new BlockInfo);                                                                                       \
    return CUSPARSE_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparseDestroy##Name##Info(void *I) {                                                 \
    return drop(lookup<BlockInfo>(I)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;                       \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparseX##Low##_zeroPivot(cusparseHandle_t Hd, void *Info, int *Position) {         \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    auto *I = lookup<BlockInfo>(Info);                                                                                 \
    if (!I || !Position)                                                                                               \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    if (libs::wait(H->Stream))                                                                                         \
      return CUSPARSE_STATUS_EXECUTION_FAILED;                                                                         \
    *Position = int(I->ZeroPivot);                                                                                     \
    return I->ZeroPivot >= 0 ? CUSPARSE_STATUS_ZERO_PIVOT : CUSPARSE_STATUS_SUCCESS;                                   \
  }
BLOCK_INFO(Bsrsv2, bsrsv2)
BLOCK_INFO(Bsrsm2, bsrsm2)
BLOCK_INFO(Bsrilu02, bsrilu02)
BLOCK_INFO(Bsric02, bsric02)
#undef BLOCK_INFO

CUSPARSE_API cusparseStatus_t cusparseXcsr2bsrNnz(cusparseHandle_t Hd, cusparseDirection_t Dir, int M, int N,
                                                  cusparseMatDescr_t Da, const int *Ra, const int *Ca, int Bd,
                                                  cusparseMatDescr_t Dc, int *Rc, int *Total) {
  return csr2gebsrNnz(Hd, Dir, M, N, Da, Ra, Ca, Dc, Rc, Bd, Bd, Total);
}
CUSPARSE_API cusparseStatus_t cusparseXcsr2gebsrNnz(cusparseHandle_t Hd, cusparseDirection_t Dir, int M, int N,
                                                    cusparseMatDescr_t Da, const int *Ra, const int *Ca,
                                                    cusparseMatDescr_t Dc, int *Rc, int Rb, int Cb, int *Total,
                                                    void *) {
  return csr2gebsrNnz(Hd, Dir, M, N, Da, Ra, Ca, Dc, Rc, Rb, Cb, Total);
}
CUSPARSE_API cusparseStatus_t cusparseXgebsr2gebsrNnz(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nb,
                                                      int Nnzb, cusparseMatDescr_t Da, const int *Ra, const int *Ca,
                                                      int Rba, int Cba, cusparseMatDescr_t Dc, int *Rc, int Rbc,
                                                      int Cbc, int *Total, void *) {
  return gebsr2gebsrNnz(Hd, Dir, Mb, Nb, Nnzb, Da, Ra, Ca, Rba, Cba, Dc, Rc, Rbc, Cbc, Total);
}

/// The ILU(0) numeric boost (csrilu02 and bsrilu02): pivots of magnitude at most tol become boost_val.
template <typename Info>
static cusparseStatus_t numericBoost(cusparseHandle_t Hd, void *InfoP, int Enable, const double *Tol,
                                     const void *Boost, size_t Bytes) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  auto *I = lookup<Info>(InfoP);
  if (!I || (Enable && (!Tol || !Boost)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  I->Boost = Enable != 0;
  if (Enable && H->PointerMode == CUSPARSE_POINTER_MODE_DEVICE && !libs::cpuDevice()) { // GPU memory: read back
    if (libs::wait(H->Stream) || libs::toHost(&I->Tol, Tol, sizeof(double)) || libs::toHost(I->BoostVal, Boost, Bytes))
      return CUSPARSE_STATUS_EXECUTION_FAILED;
  } else if (Enable) { // host memory, or device memory that is the host's (the CPU device)
    I->Tol = *Tol;
    std::memcpy(I->BoostVal, Boost, Bytes);
  }
  return CUSPARSE_STATUS_SUCCESS;
}

#define BLOCK_FORMS(p, T, Cx)                                                                                          \
  CUSPARSE_API cusparseStatus_t cusparse##p##csr2bsr(cusparseHandle_t Hd, cusparseDirection_t Dir, int M, int N,       \
                                                     cusparseMatDescr_t Da, const T *Va, const int *Ra, const int *Ca, \
                                                     int Bd, cusparseMatDescr_t Dc, T *Vc, int *Rc, int *Cc) {         \
    return csr2gebsr<Cx>(Hd, Dir, M, N, Da, reinterpret_cast<const Cx *>(Va), Ra, Ca, Dc, reinterpret_cast<Cx *>(Vc),  \
                         Rc, Cc, Bd, Bd);                                                                              \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csr2gebsr_bufferSize(cusparseHandle_t Hd, cusparseDirection_t, int M,     \
                                                                  int N, cusparseMatDescr_t Da, const T *,             \
                                                                  const int *, const int *, int Rb, int Cb,            \
                                                                  int *Size) {                                         \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    if (!lookup<MatDescr>(Da) || M < 0 || N < 0 || Rb < 1 || Cb < 1 || !Size)                                          \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    *Size = 64;                                                                                                        \
    return CUSPARSE_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csr2gebsr(                                                                \
      cusparseHandle_t Hd, cusparseDirection_t Dir, int M, int N, cusparseMatDescr_t Da, const T *Va, const int *Ra,   \
      const int *Ca, cusparseMatDescr_t Dc, T *Vc, int *Rc, int *Cc, int Rb, int Cb, void *) {                         \
    return csr2gebsr<Cx>(Hd, Dir, M, N, Da, reinterpret_cast<const Cx *>(Va), Ra, Ca, Dc, reinterpret_cast<Cx *>(Vc),  \
                         Rc, Cc, Rb, Cb);                                                                              \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsr2csr(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nb,     \
                                                     cusparseMatDescr_t Da, const T *Va, const int *Ra, const int *Ca, \
                                                     int Bd, cusparseMatDescr_t Dc, T *Vc, int *Rc, int *Cc) {         \
    return gebsr2csr<Cx>(Hd, Dir, Mb, Nb, Da, reinterpret_cast<const Cx *>(Va), Ra, Ca, Bd, Bd, Dc,                    \
                         reinterpret_cast<Cx *>(Vc), Rc, Cc);                                                          \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gebsr2csr(                                                                \
      cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nb, cusparseMatDescr_t Da, const T *Va, const int *Ra, \
      const int *Ca, int Rb, int Cb, cusparseMatDescr_t Dc, T *Vc, int *Rc, int *Cc) {                                 \
    return gebsr2csr<Cx>(Hd, Dir, Mb, Nb, Da, reinterpret_cast<const Cx *>(Va), Ra, Ca, Rb, Cb, Dc,                    \
                         reinterpret_cast<Cx *>(Vc), Rc, Cc);                                                          \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gebsr2gebsc_bufferSize(cusparseHandle_t Hd, int Mb, int Nb, int Nnzb,     \
                                                                    const T *, const int *, const int *, int Rb,       \
                                                                    int Cb, int *Size) {                               \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    if (Mb < 0 || Nb < 0 || Nnzb < 0 || Rb < 1 || Cb < 1 || !Size)                                                     \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    *Size = 64;                                                                                                        \
    return CUSPARSE_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gebsr2gebsc(                                                              \
      cusparseHandle_t Hd, int Mb, int Nb, int Nnzb, const T *Va, const int *Ra, const int *Ca, int Rb, int Cb,        \
      T *Vc, int *RowInd, int *ColPtr, cusparseAction_t Act, cusparseIndexBase_t Base, void *) {                       \
    return gebsr2gebsc<Cx>(Hd, Mb, Nb, Nnzb, reinterpret_cast<const Cx *>(Va), Ra, Ca, Rb, Cb,                         \
                           reinterpret_cast<Cx *>(Vc), RowInd, ColPtr, Act, Base);                                     \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gebsr2gebsr_bufferSize(                                                   \
      cusparseHandle_t Hd, cusparseDirection_t, int Mb, int Nb, int Nnzb, cusparseMatDescr_t Da, const T *,            \
      const int *, const int *, int Rba, int Cba, int Rbc, int Cbc, int *Size) {                                       \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    if (!lookup<MatDescr>(Da) || Mb < 0 || Nb < 0 || Nnzb < 0 || Rba < 1 || Cba < 1 || Rbc < 1 || Cbc < 1 || !Size)    \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    *Size = 64;                                                                                                        \
    return CUSPARSE_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gebsr2gebsr(                                                              \
      cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nb, int Nnzb, cusparseMatDescr_t Da, const T *Va,      \
      const int *Ra, const int *Ca, int Rba, int Cba, cusparseMatDescr_t Dc, T *Vc, int *Rc, int *Cc, int Rbc,         \
      int Cbc, void *) {                                                                                               \
    return gebsr2gebsr<Cx>(Hd, Dir, Mb, Nb, Nnzb, Da, reinterpret_cast<const Cx *>(Va), Ra, Ca, Rba, Cba, Dc,          \
                           reinterpret_cast<Cx *>(Vc), Rc, Cc, Rbc, Cbc);                                              \
  }
BLOCK_FORMS(S, float, float)
BLOCK_FORMS(D, double, double)
BLOCK_FORMS(C, cuComplex, std::complex<float>)
BLOCK_FORMS(Z, cuDoubleComplex, std::complex<double>)
#undef BLOCK_FORMS

namespace zluda::cusparse {
namespace {

/// Checks bsrsv2/bsrsm2/bsrilu02/bsric02 share: a live handle, descriptor and info, sizes, direction.
cusparseStatus_t intOut(int *Out, int V) {
  if (!Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Out = V;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t blockCheck(Handle *H, cusparseDirection_t Dir, int Mb, int Nnzb, cusparseMatDescr_t Descr, int Bd,
                            const void *Info, MatDescr *&D, BlockInfo *&I) {
  (void)H;
  D = lookup<MatDescr>(Descr);
  I = lookup<BlockInfo>(Info);
  if (!D || !I || Mb < 0 || Nnzb < 0 || Bd < 1 ||
      (Dir != CUSPARSE_DIRECTION_ROW && Dir != CUSPARSE_DIRECTION_COLUMN))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return D->Type == CUSPARSE_MATRIX_TYPE_GENERAL || D->Type == CUSPARSE_MATRIX_TYPE_TRIANGULAR
             ? CUSPARSE_STATUS_SUCCESS
             : CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
}

template <typename T>
cusparseStatus_t bsrAnalysis(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nnzb, cusparseMatDescr_t Descr,
                             const T *Val, const int *Row, const int *Col, int Bd, void *Info) {
  HANDLE_OR_FAIL(Hd)
  MatDescr *D;
  BlockInfo *I;
  if (auto S = blockCheck(H, Dir, Mb, Nnzb, Descr, Bd, Info, D, I))
    return S;
  if (Mb && !Row)
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int Base = D->Base;
  const bool Unit = D->Diag == CUSPARSE_DIAG_TYPE_UNIT;
  return staged(
      H, [=](const T *Val, const int *Row, const int *Col) {
        I->ZeroPivot = bsrDiagonalZero<T>(Dir, Mb, Val, Row, Col, Base, Bd, Unit);
      },
      libs::in(Val, size_t(Nnzb) * Bd * Bd), libs::in(Mb ? Row : nullptr, size_t(Mb) + 1), libs::in(Col, size_t(Nnzb)));
}

template <typename T>
cusparseStatus_t bsrSolve(cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t Op,
                          cusparseOperation_t OpXY, int Mb, int N, int Nnzb, const void *Alpha,
                          cusparseMatDescr_t Descr, const T *Val, const int *Row, const int *Col, int Bd, void *Info,
                          const T *B, int Ldb, T *X, int Ldx, cudaDataType Dt) {
  HANDLE_OR_FAIL(Hd)
  MatDescr *D;
  BlockInfo *I;
  if (auto S = blockCheck(H, Dir, Mb, Nnzb, Descr, Bd, Info, D, I))
    return S;
  const bool Bt = OpXY != CUSPARSE_OPERATION_NON_TRANSPOSE;
  const int M = Mb * Bd;
  if (!Alpha || !validOp(Op) || !validOp(OpXY) || N < 0 || (M && N && (!B || !X || !Row)) ||
      Ldb < std::max(1, Bt ? N : M) || Ldx < std::max(1, Bt ? N : M))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (OpXY == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE)
    return CUSPARSE_STATUS_NOT_SUPPORTED; // as cuSPARSE's bsrsm2
  Scalar Al(*H, Alpha, Dt);
  if (!Al.fetch(H->Stream))
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  const int Base = D->Base;
  const bool Lower = D->Fill == CUSPARSE_FILL_MODE_LOWER, Unit = D->Diag == CUSPARSE_DIAG_TYPE_UNIT;
  return staged(
      H,
      [=](const T *Val, const int *Row, const int *Col, const T *B, T *X) {
        int64_t Z = bsrTriangular<T>(Dir, Op, Mb, Val, Row, Col, Base, Bd, Lower, Unit, N, Al.get<T>(), B, Ldb, X, Ldx, Bt);
        if (Z >= 0 && I->ZeroPivot < 0)
          I->ZeroPivot = Z;
      },
      libs::in(Val, size_t(Nnzb) * Bd * Bd), libs::in(Mb ? Row : nullptr, size_t(Mb) + 1), libs::in(Col, size_t(Nnzb)),
      libs::in(B, Bt ? span(Ldb, M, N) : span(Ldb, N, M)), libs::inout(X, Bt ? span(Ldx, M, N) : span(Ldx, N, M)));
}

/// bsrilu02 / bsric02: ILU(0) or IC(0) on the elements of the blocks (block ILU(0) with its diagonal blocks
/// factored), the first zero pivot's block row kept in the info.
template <typename T, bool Ilu>
cusparseStatus_t bsrFactor(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nnzb, cusparseMatDescr_t Descr,
                           T *Val, const int *Row, const int *Col, int Bd, void *Info) {
  HANDLE_OR_FAIL(Hd)
  MatDescr *D;
  BlockInfo *I;
  if (auto S = blockCheck(H, Dir, Mb, Nnzb, Descr, Bd, Info, D, I))
    return S;
  if (D->Type != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  if (Mb && !Row)
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int Base = D->Base;
  return staged(H, [=](T *Val, const int *Row, const int *Col) {
    Expanded E = expandBsr(Dir, Mb, Row, Col, Base, Bd, Bd);
    std::vector<T> V(E.At.size());
    for (size_t K = 0; K < V.size(); ++K)
      V[K] = Val[E.At[K]];
    const int64_t M = int64_t(Mb) * Bd;
    int64_t Z = Ilu ? ilu0<T>(M, E.Row.data(), E.Col.data(), V.data(), 0, I->Boost, I->Tol, I->template boostValue<T>())
                    : ic0<T>(M, E.Row.data(), E.Col.data(), V.data(), 0);
    for (size_t K = 0; K < V.size(); ++K)
      Val[E.At[K]] = V[K];
    I->ZeroPivot = Z < 0 ? -1 : Z / Bd;
  }, libs::inout(Val, size_t(Nnzb) * Bd * Bd), libs::in(Mb ? Row : nullptr, size_t(Mb) + 1), libs::in(Col, size_t(Nnzb)));
}

/// Masked BSRX product: y = alpha A x + beta y on the block rows the mask lists (blocks from RowPtr[i] to
/// EndPtr[i]); other rows of y untouched.
template <typename T>
cusparseStatus_t bsrxmv(cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t Op, int SizeOfMask, int Mb,
                        int Nb, int Nnzb, const void *Alpha, cusparseMatDescr_t Descr, const T *Val, const int *Mask,
                        const int *RowPtr, const int *EndPtr, const int *ColInd, int Bd, const T *X, const void *Beta,
                        T *Y, cudaDataType Dt) {
  HANDLE_OR_FAIL(Hd)
  auto *D = lookup<MatDescr>(Descr);
  if (!D || SizeOfMask < 0 || SizeOfMask > Mb || Mb < 0 || Nb < 0 || Nnzb < 0 || Bd < 1 || !Alpha || !Beta ||
      (Dir != CUSPARSE_DIRECTION_ROW && Dir != CUSPARSE_DIRECTION_COLUMN) ||
      (SizeOfMask && (!Mask || !RowPtr || !EndPtr || !X || !Y)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Op != CUSPARSE_OPERATION_NON_TRANSPOSE)
    return CUSPARSE_STATUS_NOT_SUPPORTED; // as cuSPARSE's
  if (D->Type != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  Scalar Al(*H, Alpha, Dt), Be(*H, Beta, Dt);
  if (!Al.fetch(H->Stream) || !Be.fetch(H->Stream))
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  const int Base = D->Base;
  const bool Any = SizeOfMask > 0;
  return staged(H, [=](const T *Val, const int *Mask, const int *RowPtr, const int *EndPtr, const int *ColInd,
                       const T *X, T *Y) {
    const T A = Al.get<T>(), B = Be.get<T>();
    for (int Mi = 0; Mi < SizeOfMask; ++Mi) {
      const int Br = Mask[Mi] - Base;
      for (int R = 0; R < Bd; ++R) {
        T S = T(0);
        for (int K = RowPtr[Br] - Base; K < EndPtr[Br] - Base; ++K)
          for (int C = 0; C < Bd; ++C)
            S += Val[size_t(K) * Bd * Bd + inBlock(Dir, R, C, Bd, Bd)] * X[size_t(ColInd[K] - Base) * Bd + C];
        T &Out = Y[size_t(Br) * Bd + R];
        Out = A * S + (B == T(0) ? T(0) : B * Out);
      }
    }
  }, libs::in(Any ? Val : nullptr, size_t(Nnzb) * Bd * Bd), libs::in(Any ? Mask : nullptr, size_t(SizeOfMask)),
     libs::in(Any ? RowPtr : nullptr, size_t(Mb)), libs::in(Any ? EndPtr : nullptr, size_t(Mb)),
     libs::in(Any ? ColInd : nullptr, size_t(Nnzb)), libs::in(Any ? X : nullptr, size_t(Nb) * Bd),
     libs::inout(Any ? Y : nullptr, size_t(Mb) * Bd));
}

} // namespace
} // namespace zluda::cusparse

#define BSR_SOLVE_FORMS(p, T, Cx, Dt)                                                                                  \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrsv2_bufferSize(cusparseHandle_t Hd, cusparseDirection_t Dir,           \
                                                               cusparseOperation_t, int Mb, int Nnzb,                  \
                                                               cusparseMatDescr_t Descr, T *, const int *,             \
                                                               const int *, int Bd, void *Info, int *Size) {    \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    MatDescr *D;                                                                                                       \
    BlockInfo *I;                                                                                                      \
    if (auto S = blockCheck(H, Dir, Mb, Nnzb, Descr, Bd, Info, D, I))                                                  \
      return S;                                                                                                        \
    return intOut(Size, 64);                                                                                           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrsv2_analysis(                                                          \
      cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t, int Mb, int Nnzb, cusparseMatDescr_t Descr,   \
      const T *Val, const int *Row, const int *Col, int Bd, void *Info, cusparseSolvePolicy_t, void *) {        \
    return bsrAnalysis<Cx>(Hd, Dir, Mb, Nnzb, Descr, reinterpret_cast<const Cx *>(Val), Row, Col, Bd, Info);           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrsv2_solve(                                                             \
      cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t Op, int Mb, int Nnzb, const T *Alpha,          \
      cusparseMatDescr_t Descr, const T *Val, const int *Row, const int *Col, int Bd, void *Info, const T *F,   \
      T *X, cusparseSolvePolicy_t, void *) {                                                                           \
    return bsrSolve<Cx>(Hd, Dir, Op, CUSPARSE_OPERATION_NON_TRANSPOSE, Mb, 1, Nnzb, Alpha, Descr,                      \
                        reinterpret_cast<const Cx *>(Val), Row, Col, Bd, Info, reinterpret_cast<const Cx *>(F),        \
                        std::max(1, Mb * Bd), reinterpret_cast<Cx *>(X), std::max(1, Mb * Bd), Dt);                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrsm2_bufferSize(                                                        \
      cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t, cusparseOperation_t, int Mb, int N, int Nnzb, \
      cusparseMatDescr_t Descr, T *, const int *, const int *, int Bd, void *Info, int *Size) {                 \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    MatDescr *D;                                                                                                       \
    BlockInfo *I;                                                                                                      \
    if (auto S = blockCheck(H, Dir, Mb, Nnzb, Descr, Bd, Info, D, I))                                                  \
      return S;                                                                                                        \
    return N < 0 ? CUSPARSE_STATUS_INVALID_VALUE : intOut(Size, 64);                                                   \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrsm2_analysis(                                                          \
      cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t, cusparseOperation_t, int Mb, int, int Nnzb,   \
      cusparseMatDescr_t Descr, const T *Val, const int *Row, const int *Col, int Bd, void *Info,               \
      cusparseSolvePolicy_t, void *) {                                                                                 \
    return bsrAnalysis<Cx>(Hd, Dir, Mb, Nnzb, Descr, reinterpret_cast<const Cx *>(Val), Row, Col, Bd, Info);           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrsm2_solve(                                                             \
      cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t Op, cusparseOperation_t OpXY, int Mb, int N,   \
      int Nnzb, const T *Alpha, cusparseMatDescr_t Descr, const T *Val, const int *Row, const int *Col, int Bd,        \
      void *Info, const T *B, int Ldb, T *X, int Ldx, cusparseSolvePolicy_t, void *) {                          \
    return bsrSolve<Cx>(Hd, Dir, Op, OpXY, Mb, N, Nnzb, Alpha, Descr, reinterpret_cast<const Cx *>(Val), Row, Col, Bd, \
                        Info, reinterpret_cast<const Cx *>(B), Ldb, reinterpret_cast<Cx *>(X), Ldx, Dt);               \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrilu02_bufferSize(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, \
                                                                 int Nnzb, cusparseMatDescr_t Descr, T *,              \
                                                                 const int *, const int *, int Bd,                     \
                                                                 void *Info, int *Size) {                     \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    MatDescr *D;                                                                                                       \
    BlockInfo *I;                                                                                                      \
    if (auto S = blockCheck(H, Dir, Mb, Nnzb, Descr, Bd, Info, D, I))                                                  \
      return S;                                                                                                        \
    return intOut(Size, 64);                                                                                           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrilu02_analysis(                                                        \
      cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nnzb, cusparseMatDescr_t Descr, T *Val,                \
      const int *Row, const int *Col, int Bd, void *Info, cusparseSolvePolicy_t, void *) {                    \
    return bsrAnalysis<Cx>(Hd, Dir, Mb, Nnzb, Descr, reinterpret_cast<const Cx *>(Val), Row, Col, Bd, Info);           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrilu02(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nnzb,  \
                                                      cusparseMatDescr_t Descr, T *Val, const int *Row,                \
                                                      const int *Col, int Bd, void *Info,                     \
                                                      cusparseSolvePolicy_t, void *) {                                 \
    return bsrFactor<Cx, true>(Hd, Dir, Mb, Nnzb, Descr, reinterpret_cast<Cx *>(Val), Row, Col, Bd, Info);             \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrilu02_numericBoost(cusparseHandle_t Hd, void *Info,           \
                                                                   int Enable, double *Tol, T *Boost) {                \
    return numericBoost<BlockInfo>(Hd, Info, Enable, Tol, Boost, sizeof(T));                                           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csrilu02_numericBoost(cusparseHandle_t Hd, void *Info,           \
                                                                   int Enable, double *Tol, T *Boost) {                \
    return numericBoost<FactorInfo>(Hd, Info, Enable, Tol, Boost, sizeof(T));                                          \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsric02_bufferSize(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb,  \
                                                                int Nnzb, cusparseMatDescr_t Descr, T *, const int *,  \
                                                                const int *, int Bd, void *Info, int *Size) {  \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    MatDescr *D;                                                                                                       \
    BlockInfo *I;                                                                                                      \
    if (auto S = blockCheck(H, Dir, Mb, Nnzb, Descr, Bd, Info, D, I))                                                  \
      return S;                                                                                                        \
    return intOut(Size, 64);                                                                                           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsric02_analysis(                                                         \
      cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nnzb, cusparseMatDescr_t Descr, const T *Val,          \
      const int *Row, const int *Col, int Bd, void *Info, cusparseSolvePolicy_t, void *) {                     \
    return bsrAnalysis<Cx>(Hd, Dir, Mb, Nnzb, Descr, reinterpret_cast<const Cx *>(Val), Row, Col, Bd, Info);           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsric02(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nnzb,   \
                                                     cusparseMatDescr_t Descr, T *Val, const int *Row, const int *Col, \
                                                     int Bd, void *Info, cusparseSolvePolicy_t, void *) {      \
    return bsrFactor<Cx, false>(Hd, Dir, Mb, Nnzb, Descr, reinterpret_cast<Cx *>(Val), Row, Col, Bd, Info);            \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrxmv(                                                                   \
      cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t Op, int SizeOfMask, int Mb, int Nb, int Nnzb,  \
      const T *Alpha, cusparseMatDescr_t Descr, const T *Val, const int *Mask, const int *RowPtr, const int *EndPtr,   \
      const int *ColInd, int Bd, const T *X, const T *Beta, T *Y) {                                                    \
    return bsrxmv<Cx>(Hd, Dir, Op, SizeOfMask, Mb, Nb, Nnzb, Alpha, Descr, reinterpret_cast<const Cx *>(Val), Mask,    \
                      RowPtr, EndPtr, ColInd, Bd, reinterpret_cast<const Cx *>(X), Beta, reinterpret_cast<Cx *>(Y),    \
                      Dt);                                                                                             \
  }
BSR_SOLVE_FORMS(S, float, float, CUDA_R_32F)
BSR_SOLVE_FORMS(D, double, double, CUDA_R_64F)
BSR_SOLVE_FORMS(C, cuComplex, std::complex<float>, CUDA_C_32F)
BSR_SOLVE_FORMS(Z, cuDoubleComplex, std::complex<double>, CUDA_C_64F)
#undef BSR_SOLVE_FORMS

namespace zluda::cusparse {
namespace {

/// An f16 element (prune's H forms): compared by magnitude, copied as bits.
struct Half16 {
  uint16_t Bits;
};
inline double magnitude(Half16 V) { return std::fabs(double(libs::halfToFloat(V.Bits))); }
template <typename T> double magnitude(T V) { return double(std::abs(V)); }

/// \p V's bytes as a \p To (a C struct of the API as our element type).
template <typename To, typename From> To bitsAs(const From &V) {
  static_assert(sizeof(To) == sizeof(From));
  To R;
  std::memcpy(static_cast<void *>(&R), &V, sizeof R);
  return R;
}

struct ColorInfo {
  int Unused = 0;
};
struct PruneInfo {
  int Unused = 0;
};
/// csru2csr's permutation of each row's entries (sorted position -> original position).
struct Csru2csrInfo {
  std::vector<int> Perm;
};

/// Threshold of prune*ByPercentage (cuSPARSE's rule): the magnitudes sorted ascending, the one at
/// max(0, min(ceil(count * percentage / 100) - 1, count - 1)).
double percentile(std::vector<double> Mag, float Percentage) {
  if (Mag.empty())
    return 0;
  std::sort(Mag.begin(), Mag.end());
  int64_t Pos = int64_t(std::ceil(double(Mag.size()) * (double(Percentage) / 100.0))) - 1;
  Pos = std::max<int64_t>(0, std::min<int64_t>(Pos, int64_t(Mag.size()) - 1));
  return Mag[size_t(Pos)];
}

/// Row counts of the entries of a dense column-major matrix above a magnitude; C's row pointers.
template <typename T>
int pruneDenseRows(int M, int N, const T *A, int Lda, double Thr, int *Rc, int Base) {
  Rc[0] = Base;
  for (int I = 0; I < M; ++I) {
    int Count = 0;
    for (int J = 0; J < N; ++J)
      Count += magnitude(A[size_t(J) * Lda + I]) > Thr;
    Rc[I + 1] = Rc[I] + Count;
  }
  return Rc[M] - Base;
}
template <typename T>
void pruneDenseFill(int M, int N, const T *A, int Lda, double Thr, T *Vc, const int *Rc, int *Cc, int Base) {
  for (int I = 0; I < M; ++I) {
    int K = Rc[I] - Base;
    for (int J = 0; J < N; ++J) {
      const T V = A[size_t(J) * Lda + I];
      if (magnitude(V) > Thr) {
        Cc[K] = J + Base;
        if (Vc)
          Vc[K] = V;
        ++K;
      }
    }
  }
}
template <typename T>
int pruneCsrRows(int M, const T *Va, const int *Ra, int Ba, double Thr, int *Rc, int Bc) {
  Rc[0] = Bc;
  for (int I = 0; I < M; ++I) {
    int Count = 0;
    for (int K = Ra[I] - Ba; K < Ra[I + 1] - Ba; ++K)
      Count += magnitude(Va[K]) > Thr;
    Rc[I + 1] = Rc[I] + Count;
  }
  return Rc[M] - Bc;
}
template <typename T>
void pruneCsrFill(int M, const T *Va, const int *Ra, const int *Ca, int Ba, double Thr, T *Vc, const int *Rc, int *Cc,
                  int Bc) {
  for (int I = 0; I < M; ++I) {
    int Out = Rc[I] - Bc;
    for (int K = Ra[I] - Ba; K < Ra[I + 1] - Ba; ++K)
      if (magnitude(Va[K]) > Thr) {
        Cc[Out] = Ca[K] - Ba + Bc;
        if (Vc)
          Vc[Out] = Va[K];
        ++Out;
      }
  }
}
template <typename T> std::vector<double> denseMagnitudes(int M, int N, const T *A, int Lda) {
  std::vector<double> Mag;
  Mag.reserve(size_t(M) * N);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I)
      Mag.push_back(magnitude(A[size_t(J) * Lda + I]));
  return Mag;
}
template <typename T> std::vector<double> csrMagnitudes(int Nnz, const T *Va) {
  std::vector<double> Mag(static_cast<size_t>(Nnz));
  for (int K = 0; K < Nnz; ++K)
    Mag[size_t(K)] = magnitude(Va[K]);
  return Mag;
}

/// The prune family's checks; \p Thr is read when the work runs (device pointer mode) or now.
template <typename T> struct Threshold {
  Scalar P; ///< the threshold (read when the work runs in device pointer mode)
  bool Pct;
  float Percentage;
  double get(const std::function<std::vector<double>()> &Mags) const {
    return Pct ? percentile(Mags(), Percentage) : magnitude(P.get<T>());
  }
};

/// Pentadiagonal systems (second sub, sub, main, super, second super diagonals), one right-hand side:
/// Gaussian elimination with partial pivoting on the band (rows hold columns i-2 .. i+4). False on a zero pivot.
template <typename T> bool pentadiagonal(int M, const T *Ds, const T *Dl, const T *D, const T *Du, const T *Dw, T *X) {
  std::vector<T> Band(size_t(M) * 7, T(0));
  auto At = [&](int I, int J) -> T & { return Band[size_t(I) * 7 + size_t(J - I + 2)]; };
  for (int I = 0; I < M; ++I) {
    if (I >= 2)
      At(I, I - 2) = Ds[I];
    if (I >= 1)
      At(I, I - 1) = Dl[I];
    At(I, I) = D[I];
    if (I + 1 < M)
      At(I, I + 1) = Du[I];
    if (I + 2 < M)
      At(I, I + 2) = Dw[I];
  }
  for (int K = 0; K < M; ++K) {
    const int Last = std::min(K + 2, M - 1), Right = std::min(K + 4, M - 1);
    int P = K;
    for (int R = K + 1; R <= Last; ++R)
      if (std::abs(At(R, K)) > std::abs(At(P, K)))
        P = R;
    if (At(P, K) == T(0))
      return false;
    if (P != K) {
      for (int J = K; J <= Right; ++J)
        std::swap(At(K, J), At(P, J));
      std::swap(X[K], X[P]);
    }
    for (int R = K + 1; R <= Last; ++R) {
      const T F = At(R, K) / At(K, K);
      At(R, K) = T(0);
      for (int J = K + 1; J <= Right; ++J)
        At(R, J) -= F * At(K, J);
      X[R] -= F * X[K];
    }
  }
  for (int I = M - 1; I >= 0; --I) {
    T S = X[I];
    for (int J = I + 1; J <= std::min(I + 4, M - 1); ++J)
      S -= At(I, J) * X[J];
    X[I] = S / At(I, I);
  }
  return true;
}

} // namespace
} // namespace zluda::cusparse

#define INFO_OBJECT(Name)                                                                                              \
  CUSPARSE_API cusparseStatus_t cusparseCreate##Name(void **Out) {                                                     \
    if (!Out)                                                                                                          \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    *Out = track(new Name);                                                                                            \
    return CUSPARSE_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparseDestroy##Name(void *I) {                                                       \
    return drop(lookup<Name>(I)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;                            \
  }
INFO_OBJECT(ColorInfo)
INFO_OBJECT(PruneInfo)
INFO_OBJECT(Csru2csrInfo)
#undef INFO_OBJECT

CUSPARSE_API cusparseStatus_t cusparseXcscsort_bufferSizeExt(cusparseHandle_t Hd, int M, int N, int Nnz, const int *,
                                                             const int *, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  return M < 0 || N < 0 || Nnz < 0 ? CUSPARSE_STATUS_INVALID_VALUE : setOut(Size, 64);
}
CUSPARSE_API cusparseStatus_t cusparseXcscsort(cusparseHandle_t Hd, int M, int N, int Nnz, cusparseMatDescr_t Descr,
                                               const int *ColPtr, int *RowInd, int *P, void *Buf) {
  HANDLE_OR_FAIL(Hd)
  auto *D = lookup<MatDescr>(Descr);
  if (!D || M < 0 || N < 0 || Nnz < 0 || (N && !ColPtr) || (Nnz && (!RowInd || !Buf)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int Base = D->Base;
  return staged(
      H,
      [=](const int *ColPtr, int *RowInd, int *P) {
        for (int J = 0; J < N; ++J)
          sortPairs(RowInd, nullptr, P, ColPtr[J] - Base, ColPtr[J + 1] - Base);
      },
      libs::in(N ? ColPtr : nullptr, size_t(N) + 1), libs::inout(Nnz ? RowInd : nullptr, size_t(Nnz)),
      libs::inout(Nnz ? P : nullptr, size_t(Nnz)));
}

#define MORE_FORMS(p, T, Cx, Rt, Dt)                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csrcolor(cusparseHandle_t Hd, int M, int Nnz, cusparseMatDescr_t Descr,   \
                                                      const T *, const int *Row, const int *Col, const Rt *Fraction,   \
                                                      int *NColors, int *Coloring, int *Reordering, void *Info) {      \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    auto *D = lookup<MatDescr>(Descr);                                                                                 \
    if (!D || !lookup<ColorInfo>(Info) || M < 0 || Nnz < 0 || !Fraction || !NColors || (M && (!Row || !Coloring)) ||   \
        *Fraction < 0 || *Fraction > 1)                                                                                \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    const int Base = D->Base;                                                                                          \
    /* Greedy distance-1 coloring of A + A^T in row order (every row colored, at least the fraction asked). */        \
    return withTotal(H, NColors, [=](const int *Row, const int *Col, int *Coloring, int *Reordering) {                \
      std::vector<std::vector<int>> G(static_cast<size_t>(M));                                                         \
      for (int I = 0; I < M; ++I)                                                                                      \
        for (int K = Row[I] - Base; K < Row[I + 1] - Base; ++K) {                                                      \
          int J = Col[K] - Base;                                                                                       \
          if (J != I && J >= 0 && J < M) {                                                                             \
            G[size_t(I)].push_back(J);                                                                                 \
            G[size_t(J)].push_back(I);                                                                                 \
          }                                                                                                            \
        }                                                                                                              \
      std::vector<int> Color(static_cast<size_t>(M), -1), Seen;                                                        \
      int Colors = 0;                                                                                                  \
      for (int I = 0; I < M; ++I) {                                                                                    \
        Seen.assign(size_t(Colors) + 1, 0);                                                                            \
        for (int J : G[size_t(I)])                                                                                     \
          if (Color[size_t(J)] >= 0)                                                                                   \
            Seen[size_t(Color[size_t(J)])] = 1;                                                                        \
        int C = 0;                                                                                                     \
        while (Seen[size_t(C)])                                                                                        \
          ++C;                                                                                                         \
        Color[size_t(I)] = C;                                                                                          \
        Colors = std::max(Colors, C + 1);                                                                              \
      }                                                                                                                \
      std::copy(Color.begin(), Color.end(), Coloring);                                                                 \
      if (Reordering) {                                                                                                \
        std::vector<int> Order(static_cast<size_t>(M));                                                                \
        std::iota(Order.begin(), Order.end(), 0);                                                                      \
        std::stable_sort(Order.begin(), Order.end(),                                                                   \
                         [&](int A, int B) { return Color[size_t(A)] < Color[size_t(B)]; });                           \
        std::copy(Order.begin(), Order.end(), Reordering);                                                             \
      }                                                                                                                \
      return Colors;                                                                                                   \
    }, libs::in(M ? Row : nullptr, size_t(M) + 1), libs::in(Col, size_t(Nnz)), libs::out(Coloring, size_t(M)),         \
       libs::out(Reordering, size_t(M)));                                                                              \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##nnz(cusparseHandle_t Hd, cusparseDirection_t Dir, int M, int N,           \
                                                 cusparseMatDescr_t Descr, const T *A, int Lda, int *PerRowCol,        \
                                                 int *Total) {                                                         \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    if (!lookup<MatDescr>(Descr) || M < 0 || N < 0 || Lda < std::max(1, M) || (M && N && (!A || !PerRowCol)) ||        \
        (Dir != CUSPARSE_DIRECTION_ROW && Dir != CUSPARSE_DIRECTION_COLUMN))                                           \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    const int Outer = Dir == CUSPARSE_DIRECTION_ROW ? M : N;                                                           \
    return withTotal(H, Total, [=](const Cx *Av, int *PerRowCol) {                                                     \
      int Sum = 0;                                                                                                     \
      for (int O = 0; O < Outer; ++O) {                                                                                \
        int C = 0;                                                                                                     \
        for (int I = 0; I < (Dir == CUSPARSE_DIRECTION_ROW ? N : M); ++I)                                              \
          C += Dir == CUSPARSE_DIRECTION_ROW ? Av[size_t(I) * Lda + O] != Cx(0) : Av[size_t(O) * Lda + I] != Cx(0);    \
        PerRowCol[O] = C;                                                                                              \
        Sum += C;                                                                                                      \
      }                                                                                                                \
      return Sum;                                                                                                      \
    }, libs::in(M && N ? reinterpret_cast<const Cx *>(A) : nullptr, span(Lda, N, M)),                                  \
       libs::out(M && N ? PerRowCol : nullptr, size_t(Outer)));                                                        \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##nnz_compress(cusparseHandle_t Hd, int M, cusparseMatDescr_t Descr,        \
                                                          const T *Val, const int *Row, int *PerRow, int *NnzC,        \
                                                          T Tol) {                                                     \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    auto *D = lookup<MatDescr>(Descr);                                                                                 \
    const double Thr = std::abs(bitsAs<Cx>(Tol));                                                    \
    if (!D || M < 0 || (M && (!Row || !PerRow)) || std::real(bitsAs<Cx>(Tol)) < 0)                   \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    const int Base = D->Base;                                                                                          \
    const int64_t NnzA = entries(H, Row, M, Base);                                                                     \
    if (NnzA < 0)                                                                                                      \
      return CUSPARSE_STATUS_EXECUTION_FAILED;                                                                         \
    return withTotal(H, NnzC, [=](const Cx *V, const int *Row, int *PerRow) {                                          \
      int Sum = 0;                                                                                                     \
      for (int I = 0; I < M; ++I) {                                                                                    \
        int C = 0;                                                                                                     \
        for (int K = Row[I] - Base; K < Row[I + 1] - Base; ++K)                                                        \
          C += std::abs(V[K]) > Thr;                                                                                   \
        PerRow[I] = C;                                                                                                 \
        Sum += C;                                                                                                      \
      }                                                                                                                \
      return Sum;                                                                                                      \
    }, libs::in(reinterpret_cast<const Cx *>(Val), size_t(NnzA)), libs::in(M ? Row : nullptr, size_t(M) + 1),         \
       libs::out(M ? PerRow : nullptr, size_t(M)));                                                                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csr2csr_compress(                                                         \
      cusparseHandle_t Hd, int M, int N, cusparseMatDescr_t Descr, const T *Va, const int *Ca, const int *Ra,          \
      int NnzA, const int *PerRow, T *Vc, int *Cc, int *Rc, T Tol) {                                                   \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    auto *D = lookup<MatDescr>(Descr);                                                                                 \
    const double Thr = std::abs(bitsAs<Cx>(Tol));                                                    \
    if (!D || M < 0 || N < 0 || NnzA < 0 || !Rc || (M && (!Ra || !PerRow)) ||                                          \
        std::real(bitsAs<Cx>(Tol)) < 0)                                                              \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    const int Base = D->Base;                                                                                          \
    const int64_t NnzC = kept(H, PerRow, M);                                                                           \
    if (NnzC < 0)                                                                                                      \
      return CUSPARSE_STATUS_EXECUTION_FAILED;                                                                         \
    return staged(H, [=](const Cx *A, const int *Ca, const int *Ra, const int *PerRow, Cx *C, int *Cc, int *Rc) {      \
      Rc[0] = Base;                                                                                                    \
      for (int I = 0; I < M; ++I)                                                                                      \
        Rc[I + 1] = Rc[I] + PerRow[I];                                                                                 \
      for (int I = 0; I < M; ++I) {                                                                                    \
        int Out = Rc[I] - Base;                                                                                        \
        for (int K = Ra[I] - Base; K < Ra[I + 1] - Base; ++K)                                                          \
          if (std::abs(A[K]) > Thr) {                                                                                  \
            Cc[Out] = Ca[K];                                                                                           \
            C[Out++] = A[K];                                                                                           \
          }                                                                                                            \
      }                                                                                                                \
    }, libs::in(reinterpret_cast<const Cx *>(Va), size_t(NnzA)), libs::in(Ca, size_t(NnzA)),                          \
       libs::in(M ? Ra : nullptr, size_t(M) + 1), libs::in(M ? PerRow : nullptr, size_t(M)),                          \
       libs::out(reinterpret_cast<Cx *>(Vc), size_t(NnzC)), libs::out(Cc, size_t(NnzC)), libs::out(Rc, size_t(M) + 1)); \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gemvi_bufferSize(cusparseHandle_t Hd, cusparseOperation_t Op, int M,      \
                                                              int N, int Nnz, int *Size) {                             \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    if (!validOp(Op) || M < 0 || N < 0 || Nnz < 0)                                                                     \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    return intOut(Size, 64);                                                                                           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gemvi(cusparseHandle_t Hd, cusparseOperation_t Op, int M, int N,          \
                                                   const T *Alpha, const T *A, int Lda, int Nnz, const T *XVal,        \
                                                   const int *XInd, const T *Beta, T *Y, cusparseIndexBase_t Base,     \
                                                   void *) {                                                           \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    if (!validOp(Op) || M < 0 || N < 0 || Nnz < 0 || Lda < std::max(1, M) || !Alpha || !Beta ||                        \
        (Nnz && (!XVal || !XInd)) || (M && N && (!A || !Y)) ||                                                         \
        (Base != CUSPARSE_INDEX_BASE_ZERO && Base != CUSPARSE_INDEX_BASE_ONE))                                         \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    Scalar Al(*H, Alpha, Dt), Be(*H, Beta, Dt);                                                                        \
    if (!Al.fetch(H->Stream) || !Be.fetch(H->Stream))                                                                  \
      return CUSPARSE_STATUS_EXECUTION_FAILED;                                                                         \
    const bool Tr = Op != CUSPARSE_OPERATION_NON_TRANSPOSE, Cj = Op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE;         \
    const int Rows = Tr ? N : M;                                                                                       \
    return staged(H, [=](const Cx *Av, const Cx *Xv, const int *XInd, Cx *Yv) {                                        \
      const Cx Ab = Al.get<Cx>(), Bb = Be.get<Cx>();                                                                   \
      for (int I = 0; I < Rows; ++I) {                                                                                 \
        Cx S = Cx(0);                                                                                                  \
        for (int K = 0; K < Nnz; ++K) {                                                                                \
          const int J = XInd[K] - Base;                                                                                \
          S += (Tr ? conjIf(Av[size_t(I) * Lda + J], Cj) : Av[size_t(J) * Lda + I]) * Xv[K];                           \
        }                                                                                                              \
        Yv[I] = Ab * S + (Bb == Cx(0) ? Cx(0) : Bb * Yv[I]);                                                           \
      }                                                                                                                \
    }, libs::in(M && N ? reinterpret_cast<const Cx *>(A) : nullptr, span(Lda, N, M)),                                  \
       libs::in(reinterpret_cast<const Cx *>(XVal), size_t(Nnz)), libs::in(XInd, size_t(Nnz)),                        \
       libs::inout(M && N ? reinterpret_cast<Cx *>(Y) : nullptr, size_t(Rows)));                                       \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csru2csr_bufferSizeExt(cusparseHandle_t Hd, int M, int N, int Nnz, T *,   \
                                                                    const int *, int *, void *Info, size_t *Size) {    \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    if (M < 0 || N < 0 || Nnz < 0 || !lookup<Csru2csrInfo>(Info))                                                      \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    return setOut(Size, 64);                                                                                           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csru2csr(cusparseHandle_t Hd, int M, int N, int Nnz,                      \
                                                      cusparseMatDescr_t Descr, T *Val, const int *Row, int *Col,     \
                                                      void *InfoP, void *) {                                           \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    auto *D = lookup<MatDescr>(Descr);                                                                                 \
    auto *I = lookup<Csru2csrInfo>(InfoP);                                                                             \
    if (!D || !I || M < 0 || N < 0 || Nnz < 0 || (M && !Row) || (Nnz && (!Val || !Col)))                               \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    const int Base = D->Base;                                                                                          \
    return staged(H, [=](Cx *V, const int *Row, int *Col) {                                                            \
      I->Perm.resize(static_cast<size_t>(Nnz));                                                                        \
      std::vector<Cx> Tmp;                                                                                             \
      for (int R = 0; R < M; ++R) {                                                                                    \
        const int B = Row[R] - Base, E = Row[R + 1] - Base;                                                            \
        std::iota(I->Perm.begin() + B, I->Perm.begin() + E, B);                                                        \
        std::stable_sort(I->Perm.begin() + B, I->Perm.begin() + E,                                                     \
                         [&](int X, int Y) { return Col[X] < Col[Y]; });                                               \
        std::vector<int> C(Col + B, Col + E);                                                                          \
        Tmp.assign(V + B, V + E);                                                                                      \
        for (int K = B; K < E; ++K) {                                                                                  \
          Col[K] = C[size_t(I->Perm[size_t(K)] - B)];                                                                  \
          V[K] = Tmp[size_t(I->Perm[size_t(K)] - B)];                                                                  \
        }                                                                                                              \
      }                                                                                                                \
    }, libs::inout(reinterpret_cast<Cx *>(Val), size_t(Nnz)), libs::in(M ? Row : nullptr, size_t(M) + 1),             \
       libs::inout(Col, size_t(Nnz)));                                                                                 \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csr2csru(cusparseHandle_t Hd, int M, int N, int Nnz,                      \
                                                      cusparseMatDescr_t Descr, T *Val, const int *Row, int *Col,     \
                                                      void *InfoP, void *) {                                           \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    auto *D = lookup<MatDescr>(Descr);                                                                                 \
    auto *I = lookup<Csru2csrInfo>(InfoP);                                                                             \
    if (!D || !I || M < 0 || N < 0 || Nnz < 0 || (M && !Row) || (Nnz && (!Val || !Col)))                               \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    const int Base = D->Base;                                                                                          \
    return staged(H, [=](Cx *V, const int *Row, int *Col) {                                                            \
      if (I->Perm.size() != size_t(Nnz))                                                                               \
        return; /* no csru2csr of this matrix before: nothing to undo */                                               \
      std::vector<Cx> Tmp(V, V + Nnz);                                                                                 \
      std::vector<int> C(Col, Col + Nnz);                                                                              \
      for (int R = 0; R < M; ++R)                                                                                      \
        for (int K = Row[R] - Base; K < Row[R + 1] - Base; ++K) {                                                      \
          Col[I->Perm[size_t(K)]] = C[size_t(K)];                                                                      \
          V[I->Perm[size_t(K)]] = Tmp[size_t(K)];                                                                      \
        }                                                                                                              \
    }, libs::inout(reinterpret_cast<Cx *>(Val), size_t(Nnz)), libs::in(M ? Row : nullptr, size_t(M) + 1),             \
       libs::inout(Col, size_t(Nnz)));                                                                                 \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gtsvInterleavedBatch_bufferSizeExt(                                       \
      cusparseHandle_t Hd, int Algo, int M, const T *, const T *, const T *, const T *, int Batch, size_t *Size) {     \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    if (Algo < 0 || Algo > 2 || M < 3 || Batch < 0)                                                                    \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    return setOut(Size, 64);                                                                                           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gtsvInterleavedBatch(cusparseHandle_t Hd, int Algo, int M, T *Dl, T *D,   \
                                                                  T *Du, T *X, int Batch, void *) {                    \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    if (Algo < 0 || Algo > 2 || M < 3 || Batch < 0 || (Batch && (!Dl || !D || !Du || !X)))                             \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    const size_t All = size_t(M) * size_t(Batch);                                                                      \
    return staged(H, [=](const Cx *L, const Cx *C, const Cx *U, Cx *Xv) {                                              \
      libs::parallelFor(Batch, [&](int64_t B) {                                                                        \
        std::vector<Cx> Sl(static_cast<size_t>(M)), Sd(static_cast<size_t>(M)), Su(static_cast<size_t>(M)),           \
            Sx(static_cast<size_t>(M));                                                                                \
        for (int I = 0; I < M; ++I) {                                                                                  \
          size_t At = size_t(I) * Batch + size_t(B);                                                                   \
          Sl[size_t(I)] = L[At], Sd[size_t(I)] = C[At], Su[size_t(I)] = U[At], Sx[size_t(I)] = Xv[At];                 \
        }                                                                                                              \
        Sl[0] = Cx(0), Su[size_t(M) - 1] = Cx(0);                                                                      \
        tridiagonal(M, 1, Sl.data(), Sd.data(), Su.data(), Sx.data(), M, true);                                        \
        for (int I = 0; I < M; ++I)                                                                                    \
          Xv[size_t(I) * Batch + size_t(B)] = Sx[size_t(I)];                                                           \
      });                                                                                                              \
    }, libs::in(reinterpret_cast<const Cx *>(Dl), All), libs::in(reinterpret_cast<const Cx *>(D), All),                \
       libs::in(reinterpret_cast<const Cx *>(Du), All), libs::inout(reinterpret_cast<Cx *>(X), All));                  \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gpsvInterleavedBatch_bufferSizeExt(                                       \
      cusparseHandle_t Hd, int Algo, int M, const T *, const T *, const T *, const T *, const T *, const T *,          \
      int Batch, size_t *Size) {                                                                                       \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    if (Algo != 0 || M < 3 || Batch < 0)                                                                               \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    return setOut(Size, 64);                                                                                           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gpsvInterleavedBatch(cusparseHandle_t Hd, int Algo, int M, T *Ds, T *Dl,  \
                                                                  T *D, T *Du, T *Dw, T *X, int Batch, void *) {       \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    if (Algo != 0 || M < 3 || Batch < 0 || (Batch && (!Ds || !Dl || !D || !Du || !Dw || !X)))                          \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    const size_t All = size_t(M) * size_t(Batch);                                                                      \
    return staged(H, [=](const Cx *S2, const Cx *S1, const Cx *C, const Cx *U1, const Cx *U2, Cx *Xv) {                \
      libs::parallelFor(Batch, [&](int64_t B) {                                                                        \
        std::vector<Cx> A[6];                                                                                          \
        const Cx *Src[6] = {S2, S1, C, U1, U2, Xv};                                                                    \
        for (int Q = 0; Q < 6; ++Q) {                                                                                  \
          A[Q].resize(static_cast<size_t>(M));                                                                         \
          for (int I = 0; I < M; ++I)                                                                                  \
            A[Q][size_t(I)] = Src[Q][size_t(I) * Batch + size_t(B)];                                                   \
        }                                                                                                              \
        pentadiagonal(M, A[0].data(), A[1].data(), A[2].data(), A[3].data(), A[4].data(), A[5].data());                \
        for (int I = 0; I < M; ++I)                                                                                    \
          Xv[size_t(I) * Batch + size_t(B)] = A[5][size_t(I)];                                                         \
      });                                                                                                              \
    }, libs::in(reinterpret_cast<const Cx *>(Ds), All), libs::in(reinterpret_cast<const Cx *>(Dl), All),              \
       libs::in(reinterpret_cast<const Cx *>(D), All), libs::in(reinterpret_cast<const Cx *>(Du), All),                \
       libs::in(reinterpret_cast<const Cx *>(Dw), All), libs::inout(reinterpret_cast<Cx *>(X), All));                  \
  }
MORE_FORMS(S, float, float, float, CUDA_R_32F)
MORE_FORMS(D, double, double, double, CUDA_R_64F)
MORE_FORMS(C, cuComplex, std::complex<float>, float, CUDA_C_32F)
MORE_FORMS(Z, cuDoubleComplex, std::complex<double>, double, CUDA_C_64F)
#undef MORE_FORMS

namespace zluda::cusparse {
namespace {
template <typename T>
cusparseStatus_t pruneDense(cusparseHandle_t Hd, cudaDataType Dt, int M, int N, const T *A, int Lda, const T *Thr,
                            float Pct, bool ByPct, cusparseMatDescr_t Descr, void *Info, T *Vc, int *Rc, int *Cc, int *Total,
                            bool Count) {
  HANDLE_OR_FAIL(Hd)
  auto *D = lookup<MatDescr>(Descr);
  if (!D || M < 0 || N < 0 || Lda < std::max(1, M) || !Rc || (M && N && !A) || (!ByPct && !Thr) ||
      (ByPct && (!lookup<PruneInfo>(Info) || !(Pct >= 0 && Pct <= 100))) || (!Count && M && N && !Cc))
    return CUSPARSE_STATUS_INVALID_VALUE;
  Threshold<T> Th{Scalar(*H, Thr, Dt), ByPct, Pct};
  if (!ByPct && !Th.P.fetch(H->Stream))
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  const int Base = D->Base;
  auto Level = [=](const T *A) { return Th.get([&] { return denseMagnitudes(M, N, A, Lda); }); };
  const size_t Elems = M && N ? span(Lda, N, M) : 0;
  if (Count)
    return withTotal(
        H, Total, [=](const T *A, int *Rc) { return pruneDenseRows(M, N, A, Lda, Level(A), Rc, Base); },
        libs::in(Elems ? A : nullptr, Elems), libs::out(Rc, size_t(M) + 1));
  const int64_t NnzC = entries(H, Rc, M, Base);
  if (NnzC < 0)
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  return staged(
      H, [=](const T *A, const int *Rc, T *Vc, int *Cc) { pruneDenseFill(M, N, A, Lda, Level(A), Vc, Rc, Cc, Base); },
      libs::in(Elems ? A : nullptr, Elems), libs::in(Rc, size_t(M) + 1), libs::out(Vc, size_t(NnzC)),
      libs::out(Cc, size_t(NnzC)));
}
template <typename T>
cusparseStatus_t pruneCsr(cusparseHandle_t Hd, cudaDataType Dt, int M, int N, int NnzA, cusparseMatDescr_t Da, const T *Va,
                          const int *Ra, const int *Ca, const T *Thr, float Pct, bool ByPct, cusparseMatDescr_t Dc,
                          void *Info, T *Vc, int *Rc, int *Cc, int *Total, bool Count) {
  HANDLE_OR_FAIL(Hd)
  auto *A = lookup<MatDescr>(Da), *C = lookup<MatDescr>(Dc);
  if (!A || !C || M < 0 || N < 0 || NnzA < 0 || !Rc || (M && !Ra) || (NnzA && (!Va || !Ca)) || (!ByPct && !Thr) ||
      (ByPct && (!lookup<PruneInfo>(Info) || !(Pct >= 0 && Pct <= 100))) || (!Count && NnzA && !Cc))
    return CUSPARSE_STATUS_INVALID_VALUE;
  Threshold<T> Th{Scalar(*H, Thr, Dt), ByPct, Pct};
  const int Ba = A->Base, Bc = C->Base;
  if (!ByPct && !Th.P.fetch(H->Stream))
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  auto Level = [=](const T *Va) { return Th.get([&] { return csrMagnitudes(NnzA, Va); }); };
  if (Count)
    return withTotal(
        H, Total, [=](const T *Va, const int *Ra, int *Rc) { return pruneCsrRows(M, Va, Ra, Ba, Level(Va), Rc, Bc); },
        libs::in(Va, size_t(NnzA)), libs::in(M ? Ra : nullptr, size_t(M) + 1), libs::out(Rc, size_t(M) + 1));
  const int64_t NnzC = entries(H, Rc, M, Bc);
  if (NnzC < 0)
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  return staged(
      H,
      [=](const T *Va, const int *Ra, const int *Ca, const int *Rc, T *Vc, int *Cc) {
        pruneCsrFill(M, Va, Ra, Ca, Ba, Level(Va), Vc, Rc, Cc, Bc);
      },
      libs::in(Va, size_t(NnzA)), libs::in(M ? Ra : nullptr, size_t(M) + 1), libs::in(Ca, size_t(NnzA)),
      libs::in(Rc, size_t(M) + 1), libs::out(Vc, size_t(NnzC)), libs::out(Cc, size_t(NnzC)));
}
} // namespace
} // namespace zluda::cusparse

#define PRUNE_FORMS(p, T, Cx, Dt)                                                                                          \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneDense2csr_bufferSizeExt(cusparseHandle_t Hd, int M, int N,          \
                                                                          const T *, int, const T *,                   \
                                                                          cusparseMatDescr_t, const T *, const int *,  \
                                                                          const int *, size_t *Size) {                 \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    return M < 0 || N < 0 ? CUSPARSE_STATUS_INVALID_VALUE : setOut(Size, 64);                                          \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneDense2csrNnz(cusparseHandle_t Hd, int M, int N, const T *A, int Lda, \
                                                               const T *Thr, cusparseMatDescr_t Dc, int *Rc,           \
                                                               int *Total, void *) {                                   \
    return pruneDense<Cx>(Hd, Dt, M, N, reinterpret_cast<const Cx *>(A), Lda, reinterpret_cast<const Cx *>(Thr), 0,       \
                          false, Dc, nullptr, nullptr, Rc, nullptr, Total, true);                                      \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneDense2csr(cusparseHandle_t Hd, int M, int N, const T *A, int Lda,    \
                                                            const T *Thr, cusparseMatDescr_t Dc, T *Vc,                \
                                                            const int *Rc, int *Cc, void *) {                          \
    return pruneDense<Cx>(Hd, Dt, M, N, reinterpret_cast<const Cx *>(A), Lda, reinterpret_cast<const Cx *>(Thr), 0,       \
                          false, Dc, nullptr, reinterpret_cast<Cx *>(Vc), const_cast<int *>(Rc), Cc, nullptr, false);  \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneCsr2csr_bufferSizeExt(                                               \
      cusparseHandle_t Hd, int M, int N, int NnzA, cusparseMatDescr_t, const T *, const int *, const int *, const T *, \
      cusparseMatDescr_t, const T *, const int *, const int *, size_t *Size) {                                         \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    return M < 0 || N < 0 || NnzA < 0 ? CUSPARSE_STATUS_INVALID_VALUE : setOut(Size, 64);                              \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneCsr2csrNnz(                                                          \
      cusparseHandle_t Hd, int M, int N, int NnzA, cusparseMatDescr_t Da, const T *Va, const int *Ra, const int *Ca,   \
      const T *Thr, cusparseMatDescr_t Dc, int *Rc, int *Total, void *) {                                              \
    return pruneCsr<Cx>(Hd, Dt, M, N, NnzA, Da, reinterpret_cast<const Cx *>(Va), Ra, Ca,                                  \
                        reinterpret_cast<const Cx *>(Thr), 0, false, Dc, nullptr, nullptr, Rc, nullptr, Total, true);  \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneCsr2csr(                                                             \
      cusparseHandle_t Hd, int M, int N, int NnzA, cusparseMatDescr_t Da, const T *Va, const int *Ra, const int *Ca,   \
      const T *Thr, cusparseMatDescr_t Dc, T *Vc, const int *Rc, int *Cc, void *) {                                    \
    return pruneCsr<Cx>(Hd, Dt, M, N, NnzA, Da, reinterpret_cast<const Cx *>(Va), Ra, Ca,                                  \
                        reinterpret_cast<const Cx *>(Thr), 0, false, Dc, nullptr, reinterpret_cast<Cx *>(Vc),          \
                        const_cast<int *>(Rc), Cc, nullptr, false);                                                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneDense2csrByPercentage_bufferSizeExt(                                 \
      cusparseHandle_t Hd, int M, int N, const T *, int, float Pct, cusparseMatDescr_t, const T *, const int *,        \
      const int *, void *Info, size_t *Size) {                                                                         \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    return M < 0 || N < 0 || !(Pct >= 0 && Pct <= 100) || !lookup<PruneInfo>(Info) ? CUSPARSE_STATUS_INVALID_VALUE     \
                                                                                   : setOut(Size, 64);                 \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneDense2csrNnzByPercentage(                                            \
      cusparseHandle_t Hd, int M, int N, const T *A, int Lda, float Pct, cusparseMatDescr_t Dc, int *Rc, int *Total,   \
      void *Info, void *) {                                                                                            \
    return pruneDense<Cx>(Hd, Dt, M, N, reinterpret_cast<const Cx *>(A), Lda, nullptr, Pct, true, Dc, Info, nullptr, Rc,   \
                          nullptr, Total, true);                                                                       \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneDense2csrByPercentage(                                               \
      cusparseHandle_t Hd, int M, int N, const T *A, int Lda, float Pct, cusparseMatDescr_t Dc, T *Vc, const int *Rc,  \
      int *Cc, void *Info, void *) {                                                                                   \
    return pruneDense<Cx>(Hd, Dt, M, N, reinterpret_cast<const Cx *>(A), Lda, nullptr, Pct, true, Dc, Info,                \
                          reinterpret_cast<Cx *>(Vc), const_cast<int *>(Rc), Cc, nullptr, false);                      \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneCsr2csrByPercentage_bufferSizeExt(                                   \
      cusparseHandle_t Hd, int M, int N, int NnzA, cusparseMatDescr_t, const T *, const int *, const int *, float Pct, \
      cusparseMatDescr_t, const T *, const int *, const int *, void *Info, size_t *Size) {                             \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    return M < 0 || N < 0 || NnzA < 0 || !(Pct >= 0 && Pct <= 100) || !lookup<PruneInfo>(Info)                         \
               ? CUSPARSE_STATUS_INVALID_VALUE                                                                         \
               : setOut(Size, 64);                                                                                     \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneCsr2csrNnzByPercentage(                                              \
      cusparseHandle_t Hd, int M, int N, int NnzA, cusparseMatDescr_t Da, const T *Va, const int *Ra, const int *Ca,   \
      float Pct, cusparseMatDescr_t Dc, int *Rc, int *Total, void *Info, void *) {                                     \
    return pruneCsr<Cx>(Hd, Dt, M, N, NnzA, Da, reinterpret_cast<const Cx *>(Va), Ra, Ca, nullptr, Pct, true, Dc, Info,    \
                        nullptr, Rc, nullptr, Total, true);                                                            \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneCsr2csrByPercentage(                                                 \
      cusparseHandle_t Hd, int M, int N, int NnzA, cusparseMatDescr_t Da, const T *Va, const int *Ra, const int *Ca,   \
      float Pct, cusparseMatDescr_t Dc, T *Vc, const int *Rc, int *Cc, void *Info, void *) {                           \
    return pruneCsr<Cx>(Hd, Dt, M, N, NnzA, Da, reinterpret_cast<const Cx *>(Va), Ra, Ca, nullptr, Pct, true, Dc, Info,    \
                        reinterpret_cast<Cx *>(Vc), const_cast<int *>(Rc), Cc, nullptr, false);                        \
  }
PRUNE_FORMS(H, uint16_t, Half16, CUDA_R_16F)
PRUNE_FORMS(S, float, float, CUDA_R_32F)
PRUNE_FORMS(D, double, double, CUDA_R_64F)
#undef PRUNE_FORMS
