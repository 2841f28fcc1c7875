//===- CusolverRf.cpp - cusolverRf: LU refactorization ---------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file cusolverRf: a sparse LU factorization P A Q^T = L U computed once on
/// the host (by the program) is handed over with its permutations; later
/// matrices of the same pattern are refactored into the same pattern of L and
/// U without pivoting, and A x = f is solved as x = Q^T U^-1 L^-1 P f. The
/// factors are kept "bundled" as NVIDIA's documentation describes them: one
/// CSR matrix M = L + U with L's unit diagonal not stored. Refactorization is
/// an up-looking sparse LU restricted to M's pattern, in double on the host
/// (the CPU device's memory, or copies of the GPU's arrays). Only CSR input
/// with L of unit diagonal (stored or assumed) is taken, as NVIDIA's supports.
/// Every call waits for the legacy default stream: cusolverRf has no stream.
#include "libs/common/HostCopy.h"
#include "libs/common/LibSupport.h"
#include "libs/cusolver/Handles.h"
#include "zluda/cusolver_abi.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUSOLVER_API extern "C" __attribute__((visibility("default")))

extern "C" {
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
}

namespace zluda::cusolver {
namespace {

enum { FormatCsr = 0, FormatCsc = 1 };
enum { StoredL = 0, StoredU = 1, AssumedL = 2, AssumedU = 3 };

struct RfHandle {
  int Format = FormatCsr, Diag = StoredL;
  double Zero = 0, Boost = 0;
  int FactAlg = 0, SolveAlg = 1, FastMode = 0;
  bool BoostUsed = false;
  // The problem: A's pattern, the permutations, M's pattern (rows sorted, diagonal present).
  int N = -1, NnzA = 0;
  std::vector<int> RowA, ColA, P, Q, RowM, ColM, DiagM;
  std::vector<std::vector<double>> ValA, ValM; // one per matrix of the batch (one outside a batch)
  std::vector<int> ZeroPivot;                  // per matrix: -1 or the row of the zero pivot
  // AccessBundledFactorsDevice's device copies.
  CUdeviceptr DevRow = 0, DevCol = 0, DevVal = 0;
  ~RfHandle() { freeDevice(); }
  void freeDevice() {
    for (CUdeviceptr *D : {&DevRow, &DevCol, &DevVal})
      if (*D) {
        cuMemFree_v2(*D);
        *D = 0;
      }
  }
};
RfHandle *find(void *H) { return libs::Live<RfHandle>::find(H); }

using libs::fetch;
using libs::store;

bool isPermutation(const std::vector<int> &V) {
  std::vector<char> Seen(V.size(), 0);
  for (int X : V) {
    if (X < 0 || size_t(X) >= V.size() || Seen[size_t(X)])
      return false;
    Seen[size_t(X)] = 1;
  }
  return true;
}

bool validCsr(int N, int Nnz, const std::vector<int> &Row, const std::vector<int> &Col) {
  if (Row.size() != size_t(N) + 1 || Row[0] != 0 || Row[size_t(N)] != Nnz)
    return false;
  for (int I = 0; I < N; ++I)
    if (Row[size_t(I) + 1] < Row[size_t(I)])
      return false;
  for (int C : Col)
    if (C < 0 || C >= N)
      return false;
  return true;
}

/// Scatters P A Q^T (values \p Val on A's pattern) into M's pattern; entries of M not in it are 0.
bool scatter(const RfHandle &H, const std::vector<double> &Val, std::vector<double> &M) {
  const int N = H.N;
  M.assign(H.ColM.size(), 0.0);
  std::vector<int> Qinv(static_cast<size_t>(N)), Pos(size_t(N), -1);
  for (int J = 0; J < N; ++J)
    Qinv[size_t(H.Q[size_t(J)])] = J;
  for (int I = 0; I < N; ++I) {
    for (int K = H.RowM[size_t(I)]; K < H.RowM[size_t(I) + 1]; ++K)
      Pos[size_t(H.ColM[size_t(K)])] = K;
    int Src = H.P[size_t(I)];
    for (int K = H.RowA[size_t(Src)]; K < H.RowA[size_t(Src) + 1]; ++K) {
      int J = Qinv[size_t(H.ColA[size_t(K)])];
      if (Pos[size_t(J)] < 0)
        return false; // A's entry outside the pattern of L + U
      M[size_t(Pos[size_t(J)])] += Val[size_t(K)];
    }
    for (int K = H.RowM[size_t(I)]; K < H.RowM[size_t(I) + 1]; ++K)
      Pos[size_t(H.ColM[size_t(K)])] = -1;
  }
  return true;
}

/// Up-looking LU without pivoting within M's pattern, in place. Returns the first zero pivot's row or -1.
int factor(RfHandle &H, std::vector<double> &M) {
  const int N = H.N;
  std::vector<int> Pos(size_t(N), -1);
  int Zero = -1;
  for (int I = 0; I < N; ++I) {
    for (int K = H.RowM[size_t(I)]; K < H.RowM[size_t(I) + 1]; ++K)
      Pos[size_t(H.ColM[size_t(K)])] = K;
    // Row I's entries left of the diagonal, in column order, eliminate with U's rows.
    for (int K = H.RowM[size_t(I)]; K < H.DiagM[size_t(I)]; ++K) {
      int C = H.ColM[size_t(K)];
      double L = M[size_t(K)] / M[size_t(H.DiagM[size_t(C)])];
      M[size_t(K)] = L;
      if (L == 0)
        continue;
      for (int J = H.DiagM[size_t(C)] + 1; J < H.RowM[size_t(C) + 1]; ++J) {
        int Tgt = Pos[size_t(H.ColM[size_t(J)])];
        if (Tgt >= 0)
          M[size_t(Tgt)] -= L * M[size_t(J)];
      }
    }
    double &D = M[size_t(H.DiagM[size_t(I)])];
    if (std::fabs(D) < H.Zero || D == 0) {
      if (H.Boost != 0) {
        D = D < 0 ? -H.Boost : H.Boost;
        H.BoostUsed = true;
      } else if (Zero < 0) {
        Zero = I;
      }
    }
    for (int K = H.RowM[size_t(I)]; K < H.RowM[size_t(I) + 1]; ++K)
      Pos[size_t(H.ColM[size_t(K)])] = -1;
  }
  return Zero;
}

/// x = Q^T U^-1 L^-1 P f in place on \p X.
void solveWith(const RfHandle &H, const std::vector<double> &M, const std::vector<int> &P, const std::vector<int> &Q,
               std::vector<double> &X) {
  const int N = H.N;
  std::vector<double> T(static_cast<size_t>(N));
  for (int I = 0; I < N; ++I)
    T[size_t(I)] = X[size_t(P[size_t(I)])];
  for (int I = 0; I < N; ++I) // L, unit diagonal
    for (int K = H.RowM[size_t(I)]; K < H.DiagM[size_t(I)]; ++K)
      T[size_t(I)] -= M[size_t(K)] * T[size_t(H.ColM[size_t(K)])];
  for (int I = N - 1; I >= 0; --I) {
    double S = T[size_t(I)];
    for (int K = H.DiagM[size_t(I)] + 1; K < H.RowM[size_t(I) + 1]; ++K)
      S -= M[size_t(K)] * T[size_t(H.ColM[size_t(K)])];
    T[size_t(I)] = S / M[size_t(H.DiagM[size_t(I)])];
  }
  for (int I = 0; I < N; ++I)
    X[size_t(Q[size_t(I)])] = T[size_t(I)];
}

/// Setup from host copies: checks, M's pattern and values from L and U.
cusolverStatus_t setup(RfHandle &H, int N, int NnzA, std::vector<int> RowA, std::vector<int> ColA,
                       std::vector<std::vector<double>> ValA, int NnzL, const std::vector<int> &RowL,
                       const std::vector<int> &ColL, const std::vector<double> &ValL, int NnzU,
                       const std::vector<int> &RowU, const std::vector<int> &ColU, const std::vector<double> &ValU,
                       std::vector<int> P, std::vector<int> Q) {
  if (H.Format != FormatCsr || (H.Diag != StoredL && H.Diag != AssumedL)) {
    libs::notSupported("cuSOLVER", "cusolverRf with CSC input or U of unit diagonal");
    return CUSOLVER_STATUS_NOT_SUPPORTED;
  }
  if (!validCsr(N, NnzA, RowA, ColA) || !validCsr(N, NnzL, RowL, ColL) || !validCsr(N, NnzU, RowU, ColU) ||
      !isPermutation(P) || !isPermutation(Q))
    return CUSOLVER_STATUS_INVALID_VALUE;
  // M: L's strictly lower entries, then U's upper ones (its diagonal included), per row sorted.
  std::vector<int> RowM{0}, ColM, DiagM(size_t(N), -1);
  std::vector<double> ValM;
  std::vector<std::pair<int, double>> Entries;
  for (int I = 0; I < N; ++I) {
    Entries.clear();
    for (int K = RowL[size_t(I)]; K < RowL[size_t(I) + 1]; ++K) {
      int C = ColL[size_t(K)];
      if (C > I)
        return CUSOLVER_STATUS_INVALID_VALUE; // L must be lower triangular
      if (C < I)
        Entries.push_back({C, ValL[size_t(K)]});
    }
    bool HasDiag = false;
    for (int K = RowU[size_t(I)]; K < RowU[size_t(I) + 1]; ++K) {
      int C = ColU[size_t(K)];
      if (C < I)
        return CUSOLVER_STATUS_INVALID_VALUE; // U must be upper triangular
      HasDiag |= C == I;
      Entries.push_back({C, ValU[size_t(K)]});
    }
    if (!HasDiag)
      Entries.push_back({I, 0.0}); // a structurally zero pivot: refactoring reports it
    std::sort(Entries.begin(), Entries.end(), [](auto A, auto B) { return A.first < B.first; });
    for (auto [C, V] : Entries) {
      if (C == I)
        DiagM[size_t(I)] = int(ColM.size());
      ColM.push_back(C);
      ValM.push_back(V);
    }
    RowM.push_back(int(ColM.size()));
  }
  H.freeDevice();
  H.N = N;
  H.NnzA = NnzA;
  H.RowA = std::move(RowA);
  H.ColA = std::move(ColA);
  H.P = std::move(P);
  H.Q = std::move(Q);
  H.RowM = std::move(RowM);
  H.ColM = std::move(ColM);
  H.DiagM = std::move(DiagM);
  H.ValA = std::move(ValA);
  H.ValM.assign(H.ValA.size(), ValM);
  H.ZeroPivot.assign(H.ValA.size(), -1);
  H.BoostUsed = false;
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t setupFrom(void *Hd, bool Device, int Batch, int N, int NnzA, const int *RowA, const int *ColA,
                           double *const *ValA, int NnzL, const int *RowL, const int *ColL, const double *ValL,
                           int NnzU, const int *RowU, const int *ColU, const double *ValU, const int *P,
                           const int *Q) {
  RfHandle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (N < 0 || NnzA < 0 || NnzL < 0 || NnzU < 0 || Batch < 1 || !RowA || !RowL || !RowU || (N && (!P || !Q)) ||
      (NnzA && (!ColA || !ValA)) || (NnzL && (!ColL || !ValL)) || (NnzU && (!ColU || !ValU)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (Device && libs::wait(nullptr))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  std::vector<int> RA, CA, RL, CL, RU, CU, HP, HQ;
  std::vector<double> VL, VU;
  std::vector<std::vector<double>> VA(static_cast<size_t>(Batch));
  bool Ok = fetch(RA, RowA, size_t(N) + 1, Device) && fetch(CA, ColA, size_t(NnzA), Device) &&
            fetch(RL, RowL, size_t(N) + 1, Device) && fetch(CL, ColL, size_t(NnzL), Device) &&
            fetch(VL, ValL, size_t(NnzL), Device) && fetch(RU, RowU, size_t(N) + 1, Device) &&
            fetch(CU, ColU, size_t(NnzU), Device) && fetch(VU, ValU, size_t(NnzU), Device) &&
            fetch(HP, P, size_t(N), Device) && fetch(HQ, Q, size_t(N), Device);
  for (int J = 0; Ok && J < Batch; ++J) {
    if (NnzA && !ValA[J])
      return CUSOLVER_STATUS_INVALID_VALUE;
    Ok = fetch(VA[size_t(J)], ValA[J], size_t(NnzA), Device);
  }
  if (!Ok)
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  return setup(*H, N, NnzA, std::move(RA), std::move(CA), std::move(VA), NnzL, RL, CL, VL, NnzU, RU, CU, VU,
               std::move(HP), std::move(HQ));
}

/// New values of A (device memory) for each matrix; the pattern must be setup's.
cusolverStatus_t resetValues(void *Hd, int Batch, int N, int NnzA, const int *RowA, const int *ColA,
                             double *const *ValA, const int *P, const int *Q) {
  RfHandle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (H->N < 0)
    return CUSOLVER_STATUS_NOT_INITIALIZED; // no setup yet
  if (N != H->N || NnzA != H->NnzA || Batch != int(H->ValA.size()) || !RowA || (NnzA && (!ColA || !ValA)) ||
      (N && (!P || !Q)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (libs::wait(nullptr))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  std::vector<int> RA, CA;
  if (!fetch(RA, RowA, size_t(N) + 1, true) || !fetch(CA, ColA, size_t(NnzA), true))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  if (RA != H->RowA || CA != H->ColA)
    return CUSOLVER_STATUS_INVALID_VALUE; // another pattern: setup again
  for (int J = 0; J < Batch; ++J) {
    if (NnzA && !ValA[J])
      return CUSOLVER_STATUS_INVALID_VALUE;
    if (!fetch(H->ValA[size_t(J)], ValA[J], size_t(NnzA), true))
      return CUSOLVER_STATUS_EXECUTION_FAILED;
  }
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t refactor(void *Hd, bool Batched) {
  RfHandle *H = find(Hd);
  if (!H || H->N < 0)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  H->freeDevice(); // AccessBundledFactorsDevice's copies are of the previous factors
  H->BoostUsed = false;
  bool AnyZero = false, Outside = false;
  for (size_t J = 0; J < H->ValA.size(); ++J) {
    if (!scatter(*H, H->ValA[J], H->ValM[J])) {
      Outside = true;
      continue;
    }
    H->ZeroPivot[J] = factor(*H, H->ValM[J]);
    AnyZero |= H->ZeroPivot[J] >= 0;
  }
  if (Outside)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return AnyZero && !Batched ? CUSOLVER_STATUS_ZERO_PIVOT : CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t solve(void *Hd, const int *P, const int *Q, int Nrhs, const double *Temp, int Ldt,
                       double *const *XF, int Ldxf, int Batch) {
  RfHandle *H = find(Hd);
  if (!H || H->N < 0)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  const int N = H->N;
  if (Nrhs != 1 || Ldt < N || Ldxf < N || !XF || Batch != int(H->ValM.size()) || (N && (!P || !Q || !Temp)))
    return Nrhs > 1 ? CUSOLVER_STATUS_NOT_SUPPORTED : CUSOLVER_STATUS_INVALID_VALUE; // NVIDIA's takes one right-hand side
  if (libs::wait(nullptr))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  std::vector<int> HP, HQ;
  if (!fetch(HP, P, size_t(N), true) || !fetch(HQ, Q, size_t(N), true))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  if (!isPermutation(HP) || !isPermutation(HQ))
    return CUSOLVER_STATUS_INVALID_VALUE;
  for (int J = 0; J < Batch; ++J) {
    if (N && !XF[J])
      return CUSOLVER_STATUS_INVALID_VALUE;
    std::vector<double> X;
    if (!fetch(X, XF[J], size_t(N), true))
      return CUSOLVER_STATUS_EXECUTION_FAILED;
    solveWith(*H, H->ValM[size_t(J)], HP, HQ, X);
    if (!store(XF[J], X, true))
      return CUSOLVER_STATUS_EXECUTION_FAILED;
  }
  return CUSOLVER_STATUS_SUCCESS;
}

template <typename T> T *hostCopy(const std::vector<T> &V) {
  T *P = static_cast<T *>(std::malloc(std::max<size_t>(1, V.size()) * sizeof(T))); // the program frees it
  if (P && !V.empty())
    std::memcpy(P, V.data(), V.size() * sizeof(T));
  return P;
}

} // namespace
} // namespace zluda::cusolver

using namespace zluda;
using namespace zluda::cusolver;

CUSOLVER_API cusolverStatus_t cusolverRfCreate(void **Out) { return libs::createHandle<RfHandle>(Out, HandleStatuses); }
CUSOLVER_API cusolverStatus_t cusolverRfDestroy(void *H) {
  return libs::destroyObject<RfHandle>(H, CUSOLVER_STATUS_SUCCESS, CUSOLVER_STATUS_NOT_INITIALIZED);
}
CUSOLVER_API cusolverStatus_t cusolverRfGetMatrixFormat(void *Hd, int *Format, int *Diag) {
  RfHandle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Format || !Diag)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Format = H->Format;
  *Diag = H->Diag;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverRfSetMatrixFormat(void *Hd, int Format, int Diag) {
  RfHandle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if ((Format != FormatCsr && Format != FormatCsc) || Diag < StoredL || Diag > AssumedU)
    return CUSOLVER_STATUS_INVALID_VALUE;
  H->Format = Format;
  H->Diag = Diag;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverRfSetNumericProperties(void *Hd, double Zero, double Boost) {
  RfHandle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (Zero < 0 || Boost < 0)
    return CUSOLVER_STATUS_INVALID_VALUE;
  H->Zero = Zero;
  H->Boost = Boost;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverRfGetNumericProperties(void *Hd, double *Zero, double *Boost) {
  RfHandle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Zero || !Boost)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Zero = H->Zero;
  *Boost = H->Boost;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverRfGetNumericBoostReport(void *Hd, int *Report) {
  RfHandle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Report)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Report = H->BoostUsed ? 1 : 0;
  return CUSOLVER_STATUS_SUCCESS;
}
/// The algorithms are kept and reported; one refactorization and one triangular solve serve them all.
CUSOLVER_API cusolverStatus_t cusolverRfSetAlgs(void *Hd, int Fact, int Solve) {
  RfHandle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (Fact < 0 || Fact > 2 || Solve < 1 || Solve > 3)
    return CUSOLVER_STATUS_INVALID_VALUE;
  H->FactAlg = Fact;
  H->SolveAlg = Solve;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverRfGetAlgs(void *Hd, int *Fact, int *Solve) {
  RfHandle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Fact || !Solve)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Fact = H->FactAlg;
  *Solve = H->SolveAlg;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverRfGetResetValuesFastMode(void *Hd, int *Mode) {
  RfHandle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Mode)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Mode = H->FastMode;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverRfSetResetValuesFastMode(void *Hd, int Mode) {
  RfHandle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (Mode != 0 && Mode != 1)
    return CUSOLVER_STATUS_INVALID_VALUE;
  H->FastMode = Mode;
  return CUSOLVER_STATUS_SUCCESS;
}

CUSOLVER_API cusolverStatus_t cusolverRfSetupHost(int N, int NnzA, int *RowA, int *ColA, double *ValA, int NnzL,
                                                  int *RowL, int *ColL, double *ValL, int NnzU, int *RowU, int *ColU,
                                                  double *ValU, int *P, int *Q, void *H) {
  return setupFrom(H, false, 1, N, NnzA, RowA, ColA, &ValA, NnzL, RowL, ColL, ValL, NnzU, RowU, ColU, ValU, P, Q);
}
CUSOLVER_API cusolverStatus_t cusolverRfSetupDevice(int N, int NnzA, int *RowA, int *ColA, double *ValA, int NnzL,
                                                    int *RowL, int *ColL, double *ValL, int NnzU, int *RowU,
                                                    int *ColU, double *ValU, int *P, int *Q, void *H) {
  return setupFrom(H, true, 1, N, NnzA, RowA, ColA, &ValA, NnzL, RowL, ColL, ValL, NnzU, RowU, ColU, ValU, P, Q);
}
CUSOLVER_API cusolverStatus_t cusolverRfBatchSetupHost(int Batch, int N, int NnzA, int *RowA, int *ColA,
                                                       double *ValA[], int NnzL, int *RowL, int *ColL, double *ValL,
                                                       int NnzU, int *RowU, int *ColU, double *ValU, int *P, int *Q,
                                                       void *H) {
  return setupFrom(H, false, Batch, N, NnzA, RowA, ColA, ValA, NnzL, RowL, ColL, ValL, NnzU, RowU, ColU, ValU, P, Q);
}
CUSOLVER_API cusolverStatus_t cusolverRfResetValues(int N, int NnzA, int *RowA, int *ColA, double *ValA, int *P,
                                                    int *Q, void *H) {
  return resetValues(H, 1, N, NnzA, RowA, ColA, &ValA, P, Q);
}
CUSOLVER_API cusolverStatus_t cusolverRfBatchResetValues(int Batch, int N, int NnzA, int *RowA, int *ColA,
                                                         double *ValA[], int *P, int *Q, void *H) {
  return resetValues(H, Batch, N, NnzA, RowA, ColA, ValA, P, Q);
}
/// Analysis finds the parallelism of the refactorization on a GPU; here there is nothing to prepare.
CUSOLVER_API cusolverStatus_t cusolverRfAnalyze(void *Hd) {
  RfHandle *H = find(Hd);
  return !H || H->N < 0 ? CUSOLVER_STATUS_NOT_INITIALIZED : CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverRfBatchAnalyze(void *H) { return cusolverRfAnalyze(H); }
CUSOLVER_API cusolverStatus_t cusolverRfRefactor(void *H) { return refactor(H, false); }
CUSOLVER_API cusolverStatus_t cusolverRfBatchRefactor(void *H) { return refactor(H, true); }
CUSOLVER_API cusolverStatus_t cusolverRfBatchZeroPivot(void *Hd, int *Position) {
  RfHandle *H = find(Hd);
  if (!H || H->N < 0)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Position)
    return CUSOLVER_STATUS_INVALID_VALUE;
  bool Any = false;
  for (size_t J = 0; J < H->ZeroPivot.size(); ++J) {
    Position[J] = H->ZeroPivot[J];
    Any |= Position[J] >= 0;
  }
  return Any ? CUSOLVER_STATUS_ZERO_PIVOT : CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverRfSolve(void *H, int *P, int *Q, int Nrhs, double *Temp, int Ldt, double *XF,
                                              int Ldxf) {
  return solve(H, P, Q, Nrhs, Temp, Ldt, &XF, Ldxf, 1);
}
CUSOLVER_API cusolverStatus_t cusolverRfBatchSolve(void *H, int *P, int *Q, int Nrhs, double *Temp, int Ldt,
                                                   double *XF[], int Ldxf) {
  RfHandle *R = find(H);
  return solve(H, P, Q, Nrhs, Temp, Ldt, XF, Ldxf, R ? int(R->ValM.size()) : 0);
}

/// M = L + U (L's unit diagonal not stored) in device memory the handle owns until the next refactorization.
CUSOLVER_API cusolverStatus_t cusolverRfAccessBundledFactorsDevice(void *Hd, int *Nnz, int **Mp, int **Mi,
                                                                   double **Mx) {
  RfHandle *H = find(Hd);
  if (!H || H->N < 0)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Nnz || !Mp || !Mi || !Mx)
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (!H->DevRow) {
    size_t Bytes[3] = {H->RowM.size() * sizeof(int), std::max<size_t>(1, H->ColM.size()) * sizeof(int),
                       std::max<size_t>(1, H->ColM.size()) * sizeof(double)};
    if (cuMemAlloc_v2(&H->DevRow, Bytes[0]) || cuMemAlloc_v2(&H->DevCol, Bytes[1]) ||
        cuMemAlloc_v2(&H->DevVal, Bytes[2])) {
      H->freeDevice();
      return CUSOLVER_STATUS_ALLOC_FAILED;
    }
    if (libs::toDevice(reinterpret_cast<void *>(H->DevRow), H->RowM.data(), Bytes[0]) ||
        (!H->ColM.empty() &&
         (libs::toDevice(reinterpret_cast<void *>(H->DevCol), H->ColM.data(), H->ColM.size() * sizeof(int)) ||
          libs::toDevice(reinterpret_cast<void *>(H->DevVal), H->ValM[0].data(), H->ColM.size() * sizeof(double)))))
      return CUSOLVER_STATUS_EXECUTION_FAILED;
  }
  *Nnz = int(H->ColM.size());
  *Mp = reinterpret_cast<int *>(H->DevRow);
  *Mi = reinterpret_cast<int *>(H->DevCol);
  *Mx = reinterpret_cast<double *>(H->DevVal);
  return CUSOLVER_STATUS_SUCCESS;
}
/// Host copies the program frees (with free()).
CUSOLVER_API cusolverStatus_t cusolverRfExtractBundledFactorsHost(void *Hd, int *Nnz, int **Mp, int **Mi,
                                                                  double **Mx) {
  RfHandle *H = find(Hd);
  if (!H || H->N < 0)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Nnz || !Mp || !Mi || !Mx)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Nnz = int(H->ColM.size());
  *Mp = hostCopy(H->RowM);
  *Mi = hostCopy(H->ColM);
  *Mx = hostCopy(H->ValM[0]);
  return *Mp && *Mi && *Mx ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_ALLOC_FAILED;
}
/// L with its unit diagonal stored, and U, as host copies the program frees.
CUSOLVER_API cusolverStatus_t cusolverRfExtractSplitFactorsHost(void *Hd, int *NnzL, int **Lp, int **Li, double **Lx,
                                                                int *NnzU, int **Up, int **Ui, double **Ux) {
  RfHandle *H = find(Hd);
  if (!H || H->N < 0)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!NnzL || !Lp || !Li || !Lx || !NnzU || !Up || !Ui || !Ux)
    return CUSOLVER_STATUS_INVALID_VALUE;
  std::vector<int> RL{0}, CL, RU{0}, CU;
  std::vector<double> VL, VU;
  const auto &M = H->ValM[0];
  for (int I = 0; I < H->N; ++I) {
    for (int K = H->RowM[size_t(I)]; K < H->DiagM[size_t(I)]; ++K) {
      CL.push_back(H->ColM[size_t(K)]);
      VL.push_back(M[size_t(K)]);
    }
    CL.push_back(I);
    VL.push_back(1.0);
    RL.push_back(int(CL.size()));
    for (int K = H->DiagM[size_t(I)]; K < H->RowM[size_t(I) + 1]; ++K) {
      CU.push_back(H->ColM[size_t(K)]);
      VU.push_back(M[size_t(K)]);
    }
    RU.push_back(int(CU.size()));
  }
  *NnzL = int(CL.size());
  *NnzU = int(CU.size());
  *Lp = hostCopy(RL);
  *Li = hostCopy(CL);
  *Lx = hostCopy(VL);
  *Up = hostCopy(RU);
  *Ui = hostCopy(CU);
  *Ux = hostCopy(VU);
  return *Lp && *Li && *Lx && *Up && *Ui && *Ux ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_ALLOC_FAILED;
}
