// Which value and compute type combinations cuSPARSE's other generic
// operations accept (SpVV, SpSV, SpSM, SDDMM, SpGEMM, CSR matrices), and
// whether the result is exact on small integers: one line per accepted
// combination ("SpSV A=.. X=.. Y=.. C=.. exact 0"). Run with NVIDIA's
// cuSPARSE on the device machine (tests/probes/h200-run-libs.sh), its lines
// are tests/golden/libs/cusparse_types_ops.golden; given that file, the
// program fails unless this library's lines are the same.
#include <cusparse.h>
#include "types_common.h"

#include <complex>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using Cx = std::complex<double>;
namespace {
const int N = 8, K = 3;
cusparseHandle_t H;
std::vector<std::string> Lines;
int Tried = 0;
void *DBuf, *DBuf2;
const size_t BufSize = 1 << 24;

Cx fit(const T &t, Cx V) { return t.Complex ? V : Cx(V.real(), 0); }

/// A CSR matrix on the device with its host copy.
struct Csr {
  std::vector<int> Row{0}, Col;
  std::vector<Cx> Val;
  int *DRow = nullptr, *DCol = nullptr;
  void *DVal = nullptr;
  int nnz() const { return int(Col.size()); }
  void upload() {
    cudaMalloc(&DRow, sizeof(int) * Row.size());
    cudaMalloc(&DCol, sizeof(int) * Col.size());
    cudaMalloc(&DVal, 16 * Col.size());
    cudaMemcpy(DRow, Row.data(), sizeof(int) * Row.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(DCol, Col.data(), sizeof(int) * Col.size(), cudaMemcpyHostToDevice);
  }
  /// The values as type \p t on the device; false where the descriptor is refused.
  bool make(cusparseSpMatDescr_t *M, const T &t) {
    std::vector<char> Hv(size_t(t.Bytes) * Val.size());
    for (size_t I = 0; I < Val.size(); ++I)
      put(t, &Hv[t.Bytes * I], fit(t, Val[I]));
    cudaMemcpy(DVal, Hv.data(), Hv.size(), cudaMemcpyHostToDevice);
    return cusparseCreateCsr(M, N, N, nnz(), DRow, DCol, DVal, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                             CUSPARSE_INDEX_BASE_ZERO, t.Ty) == CUSPARSE_STATUS_SUCCESS;
  }
};

/// \p V's values as type \p t in device memory \p D.
void upload(void *D, const T &t, const std::vector<Cx> &V) {
  std::vector<char> Hv(size_t(t.Bytes) * V.size());
  for (size_t I = 0; I < V.size(); ++I)
    put(t, &Hv[t.Bytes * I], fit(t, V[I]));
  cudaMemcpy(D, Hv.data(), Hv.size(), cudaMemcpyHostToDevice);
}
std::vector<Cx> download(const void *D, const T &t, size_t Count) {
  std::vector<char> Hv(size_t(t.Bytes) * Count);
  cudaMemcpy(Hv.data(), D, Hv.size(), cudaMemcpyDeviceToHost);
  std::vector<Cx> V(Count);
  for (size_t I = 0; I < Count; ++I)
    V[I] = get(t, &Hv[t.Bytes * I]);
  return V;
}

/// Records an accepted combination with the largest difference from \p Want.
bool record(const char *Op, const char *Slots, const std::vector<Cx> &Got, const std::vector<Cx> &Want) {
  cudaError_t E = cudaDeviceSynchronize();
  if (E != cudaSuccess) {
    std::printf("%s %s CUDA-ERROR %s\n", Op, Slots, cudaGetErrorName(E));
    return false;
  }
  double Err = 0;
  for (size_t I = 0; I < Want.size(); ++I)
    Err = std::max(Err, std::abs(Got[I] - Want[I]));
  char Line[200];
  std::snprintf(Line, sizeof Line, "%s %s %s %g", Op, Slots, Err == 0 ? "exact" : "differs", Err);
  std::printf("%s\n", Line);
  Lines.push_back(Line);
  return true;
}
} // namespace

int main(int Argc, char **Argv) {
  cusparseCreate(&H);
  cudaMalloc(&DBuf, BufSize);
  cudaMalloc(&DBuf2, BufSize);
  // A: general N x N (SDDMM's pattern, SpGEMM's factors); L: lower triangular, unit-modulus diagonal (SpSV, SpSM).
  Csr A, L;
  for (int R = 0; R < N; ++R) {
    for (int C = 0; C < N; ++C) {
      if ((R * 5 + C * 3) % 4 == 0) {
        A.Col.push_back(C);
        A.Val.push_back({double((R + 2 * C) % 5 - 2), double((R + C) % 3 - 1)});
      }
      if (C == R || (C < R && (R + C) % 3 == 0)) {
        L.Col.push_back(C);
        L.Val.push_back(C == R ? Cx(R % 2 ? -1 : 1, 0) : Cx((R + C) % 2 ? 1 : -1, C % 2));
      }
    }
    A.Row.push_back(A.nnz());
    L.Row.push_back(L.nnz());
  }
  A.upload();
  L.upload();
  std::vector<Cx> Xv(N * K), Y0(N * K);
  for (int I = 0; I < N * K; ++I) {
    Xv[I] = {double(I % 5 - 2), double(I % 3 - 1)};
    Y0[I] = {double(I % 3 - 1), double(I % 2)};
  }
  void *DX, *DY, *DZ;
  cudaMalloc(&DX, 16 * N * K);
  cudaMalloc(&DY, 16 * N * K);
  cudaMalloc(&DZ, 16 * N * N);
  int *DIdx;
  const std::vector<int> Idx{0, 2, 3, 6};
  cudaMalloc(&DIdx, sizeof(int) * Idx.size());
  cudaMemcpy(DIdx, Idx.data(), sizeof(int) * Idx.size(), cudaMemcpyHostToDevice);
  const auto Op = CUSPARSE_OPERATION_NON_TRANSPOSE;

  // SpVV: sparse X (4 entries), dense Y, result of the compute type.
  for (const T &Xt : Types)
    for (const T &Yt : Types)
      for (const T &Ct : Types) {
        std::vector<Cx> Xs(Xv.begin(), Xv.begin() + 4);
        upload(DX, Xt, Xs);
        upload(DY, Yt, Y0);
        cusparseSpVecDescr_t Vx;
        cusparseDnVecDescr_t Vy;
        if (cusparseCreateSpVec(&Vx, N, 4, DIdx, DX, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, Xt.Ty))
          continue;
        if (cusparseCreateDnVec(&Vy, N, DY, Yt.Ty)) {
          cusparseDestroySpVec(Vx);
          continue;
        }
        ++Tried;
        char Result[16] = {};
        size_t Need = 0;
        cusparseStatus_t S = cusparseSpVV_bufferSize(H, Op, Vx, Vy, Result, Ct.Ty, &Need);
        if (S == CUSPARSE_STATUS_SUCCESS && Need <= BufSize)
          S = cusparseSpVV(H, Op, Vx, Vy, Result, Ct.Ty, DBuf);
        cusparseDestroySpVec(Vx);
        cusparseDestroyDnVec(Vy);
        if (S != CUSPARSE_STATUS_SUCCESS)
          continue;
        Cx Want = 0;
        for (int I = 0; I < 4; ++I)
          Want += fit(Xt, Xs[I]) * fit(Yt, Y0[Idx[I]]);
        std::string Slots = std::string("X=") + Xt.Name + " Y=" + Yt.Name + " C=" + Ct.Name;
        if (!record("SpVV", Slots.c_str(), {get(Ct, Result)}, {fit(Ct, Want)}))
          return 1;
      }

  // SpSV and SpSM: L y = alpha x (alpha 1), lower, non-unit diagonal.
  for (int Mm = 0; Mm < 2; ++Mm)
    for (const T &At : Types)
      for (const T &Xt : Types)
        for (const T &Yt : Types)
          for (const T &Ct : Types) {
            const int Cols = Mm ? K : 1;
            cusparseSpMatDescr_t Am;
            if (!L.make(&Am, At))
              continue;
            cusparseFillMode_t Fill = CUSPARSE_FILL_MODE_LOWER;
            cusparseDiagType_t Diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
            cusparseSpMatSetAttribute(Am, CUSPARSE_SPMAT_FILL_MODE, &Fill, sizeof Fill);
            cusparseSpMatSetAttribute(Am, CUSPARSE_SPMAT_DIAG_TYPE, &Diag, sizeof Diag);
            upload(DX, Xt, Xv);
            upload(DY, Yt, Y0);
            char Alpha[16];
            put(Ct, Alpha, 1.0);
            cusparseStatus_t S;
            size_t Need = 0;
            if (Mm == 0) {
              cusparseDnVecDescr_t Vx, Vy;
              if (cusparseCreateDnVec(&Vx, N, DX, Xt.Ty) || cusparseCreateDnVec(&Vy, N, DY, Yt.Ty)) {
                cusparseDestroySpMat(Am);
                continue;
              }
              ++Tried;
              cusparseSpSVDescr_t D;
              cusparseSpSV_createDescr(&D);
              S = cusparseSpSV_bufferSize(H, Op, Alpha, Am, Vx, Vy, Ct.Ty, CUSPARSE_SPSV_ALG_DEFAULT, D, &Need);
              if (S == CUSPARSE_STATUS_SUCCESS && Need <= BufSize)
                S = cusparseSpSV_analysis(H, Op, Alpha, Am, Vx, Vy, Ct.Ty, CUSPARSE_SPSV_ALG_DEFAULT, D, DBuf);
              if (S == CUSPARSE_STATUS_SUCCESS)
                S = cusparseSpSV_solve(H, Op, Alpha, Am, Vx, Vy, Ct.Ty, CUSPARSE_SPSV_ALG_DEFAULT, D);
              cusparseSpSV_destroyDescr(D);
              cusparseDestroyDnVec(Vx);
              cusparseDestroyDnVec(Vy);
            } else {
              cusparseDnMatDescr_t Mb, Mc;
              if (cusparseCreateDnMat(&Mb, N, K, N, DX, Xt.Ty, CUSPARSE_ORDER_COL) ||
                  cusparseCreateDnMat(&Mc, N, K, N, DY, Yt.Ty, CUSPARSE_ORDER_COL)) {
                cusparseDestroySpMat(Am);
                continue;
              }
              ++Tried;
              cusparseSpSMDescr_t D;
              cusparseSpSM_createDescr(&D);
              S = cusparseSpSM_bufferSize(H, Op, Op, Alpha, Am, Mb, Mc, Ct.Ty, CUSPARSE_SPSM_ALG_DEFAULT, D, &Need);
              if (S == CUSPARSE_STATUS_SUCCESS && Need <= BufSize)
                S = cusparseSpSM_analysis(H, Op, Op, Alpha, Am, Mb, Mc, Ct.Ty, CUSPARSE_SPSM_ALG_DEFAULT, D, DBuf);
              if (S == CUSPARSE_STATUS_SUCCESS)
                S = cusparseSpSM_solve(H, Op, Op, Alpha, Am, Mb, Mc, Ct.Ty, CUSPARSE_SPSM_ALG_DEFAULT, D);
              cusparseSpSM_destroyDescr(D);
              cusparseDestroyDnMat(Mb);
              cusparseDestroyDnMat(Mc);
            }
            cusparseDestroySpMat(Am);
            if (S != CUSPARSE_STATUS_SUCCESS)
              continue;
            // Forward substitution in complex<double> on the values as the types hold them.
            std::vector<Cx> Want(size_t(N) * Cols);
            for (int J = 0; J < Cols; ++J)
              for (int R = 0; R < N; ++R) {
                Cx Sum = fit(Xt, Xv[J * N + R]), Dg = 1;
                for (int P = L.Row[R]; P < L.Row[R + 1]; ++P) {
                  if (L.Col[P] == R)
                    Dg = fit(At, L.Val[P]);
                  else
                    Sum -= fit(At, L.Val[P]) * Want[J * N + L.Col[P]];
                }
                Want[J * N + R] = fit(Yt, Sum / Dg);
              }
            std::string Slots = std::string("A=") + At.Name + " X=" + Xt.Name + " Y=" + Yt.Name + " C=" + Ct.Name;
            if (!record(Mm ? "SpSM" : "SpSV", Slots.c_str(), download(DY, Yt, Want.size()), Want))
              return 1;
          }

  // SDDMM: C (A's pattern) = 2 (X Y) o pattern + C, X N x K and Y K x N dense (column-major).
  for (const T &Xt : Types)
    for (const T &Yt : Types)
      for (const T &At : Types)
        for (const T &Ct : Types) {
          cusparseSpMatDescr_t Cm;
          if (!A.make(&Cm, At))
            continue;
          upload(DX, Xt, Xv);
          upload(DY, Yt, Y0);
          cusparseDnMatDescr_t Mx, My;
          if (cusparseCreateDnMat(&Mx, N, K, N, DX, Xt.Ty, CUSPARSE_ORDER_COL) ||
              cusparseCreateDnMat(&My, K, N, K, DY, Yt.Ty, CUSPARSE_ORDER_COL)) {
            cusparseDestroySpMat(Cm);
            continue;
          }
          ++Tried;
          char Alpha[16], Beta[16];
          put(Ct, Alpha, 2.0);
          put(Ct, Beta, 1.0);
          size_t Need = 0;
          cusparseStatus_t S = cusparseSDDMM_bufferSize(H, Op, Op, Alpha, Mx, My, Beta, Cm, Ct.Ty,
                                                        CUSPARSE_SDDMM_ALG_DEFAULT, &Need);
          if (S == CUSPARSE_STATUS_SUCCESS && Need <= BufSize)
            S = cusparseSDDMM_preprocess(H, Op, Op, Alpha, Mx, My, Beta, Cm, Ct.Ty, CUSPARSE_SDDMM_ALG_DEFAULT, DBuf);
          if (S == CUSPARSE_STATUS_SUCCESS)
            S = cusparseSDDMM(H, Op, Op, Alpha, Mx, My, Beta, Cm, Ct.Ty, CUSPARSE_SDDMM_ALG_DEFAULT, DBuf);
          cusparseDestroyDnMat(Mx);
          cusparseDestroyDnMat(My);
          cusparseDestroySpMat(Cm);
          if (S != CUSPARSE_STATUS_SUCCESS)
            continue;
          std::vector<Cx> Want(A.Val.size());
          for (int R = 0; R < N; ++R)
            for (int P = A.Row[R]; P < A.Row[R + 1]; ++P) {
              Cx Dot = 0;
              for (int Q = 0; Q < K; ++Q)
                Dot += fit(Xt, Xv[Q * N + R]) * fit(Yt, Y0[A.Col[P] * K + Q]);
              Want[P] = fit(At, 2.0 * Dot + fit(At, A.Val[P]));
            }
          std::string Slots = std::string("X=") + Xt.Name + " Y=" + Yt.Name + " A=" + At.Name + " C=" + Ct.Name;
          if (!record("SDDMM", Slots.c_str(), download(A.DVal, At, Want.size()), Want))
            return 1;
        }

  // SpGEMM: C = 2 A B (B = A's pattern and values), C's structure computed, values compared densely.
  int *DCRow;
  cudaMalloc(&DCRow, sizeof(int) * (N + 1));
  Csr B = A;
  B.upload();
  for (const T &At : Types)
    for (const T &Bt : Types)
      for (const T &Cot : Types)
        for (const T &Ct : Types) {
          cusparseSpMatDescr_t Am, Bm, Cm;
          if (!A.make(&Am, At))
            continue;
          if (!B.make(&Bm, Bt)) {
            cusparseDestroySpMat(Am);
            continue;
          }
          if (cusparseCreateCsr(&Cm, N, N, 0, DCRow, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                CUSPARSE_INDEX_BASE_ZERO, Cot.Ty)) {
            cusparseDestroySpMat(Am);
            cusparseDestroySpMat(Bm);
            continue;
          }
          ++Tried;
          char Alpha[16], Beta[16];
          put(Ct, Alpha, 2.0);
          put(Ct, Beta, 0.0);
          cusparseSpGEMMDescr_t D;
          cusparseSpGEMM_createDescr(&D);
          size_t S1 = 0, S2 = 0;
          void *DCol = nullptr, *DVal = nullptr;
          int64_t Rows = 0, Cols = 0, Nnz = 0;
          cusparseStatus_t S = cusparseSpGEMM_workEstimation(H, Op, Op, Alpha, Am, Bm, Beta, Cm, Ct.Ty,
                                                             CUSPARSE_SPGEMM_DEFAULT, D, &S1, nullptr);
          if (S == CUSPARSE_STATUS_SUCCESS && S1 <= BufSize)
            S = cusparseSpGEMM_workEstimation(H, Op, Op, Alpha, Am, Bm, Beta, Cm, Ct.Ty, CUSPARSE_SPGEMM_DEFAULT, D,
                                              &S1, DBuf);
          if (S == CUSPARSE_STATUS_SUCCESS)
            S = cusparseSpGEMM_compute(H, Op, Op, Alpha, Am, Bm, Beta, Cm, Ct.Ty, CUSPARSE_SPGEMM_DEFAULT, D, &S2,
                                       nullptr);
          if (S == CUSPARSE_STATUS_SUCCESS && S2 <= BufSize)
            S = cusparseSpGEMM_compute(H, Op, Op, Alpha, Am, Bm, Beta, Cm, Ct.Ty, CUSPARSE_SPGEMM_DEFAULT, D, &S2,
                                       DBuf2);
          if (S == CUSPARSE_STATUS_SUCCESS)
            S = cusparseSpMatGetSize(Cm, &Rows, &Cols, &Nnz);
          if (S == CUSPARSE_STATUS_SUCCESS) {
            cudaMalloc(&DCol, sizeof(int) * (Nnz + 1));
            cudaMalloc(&DVal, 16 * (Nnz + 1));
            S = cusparseCsrSetPointers(Cm, DCRow, DCol, DVal);
          }
          if (S == CUSPARSE_STATUS_SUCCESS)
            S = cusparseSpGEMM_copy(H, Op, Op, Alpha, Am, Bm, Beta, Cm, Ct.Ty, CUSPARSE_SPGEMM_DEFAULT, D);
          cusparseSpGEMM_destroyDescr(D);
          cusparseDestroySpMat(Am);
          cusparseDestroySpMat(Bm);
          cusparseDestroySpMat(Cm);
          std::vector<Cx> Got(size_t(N) * N), Want(size_t(N) * N);
          if (S == CUSPARSE_STATUS_SUCCESS) {
            std::vector<int> Row(N + 1), Col(static_cast<size_t>(Nnz));
            cudaMemcpy(Row.data(), DCRow, sizeof(int) * (N + 1), cudaMemcpyDeviceToHost);
            cudaMemcpy(Col.data(), DCol, sizeof(int) * Nnz, cudaMemcpyDeviceToHost);
            std::vector<Cx> Val = download(DVal, Cot, size_t(Nnz));
            for (int R = 0; R < N; ++R)
              for (int P = Row[R]; P < Row[R + 1]; ++P)
                Got[R * N + Col[P]] += Val[P];
            for (int R = 0; R < N; ++R)
              for (int P = A.Row[R]; P < A.Row[R + 1]; ++P)
                for (int Q = B.Row[A.Col[P]]; Q < B.Row[A.Col[P] + 1]; ++Q)
                  Want[R * N + B.Col[Q]] += 2.0 * fit(At, A.Val[P]) * fit(Bt, B.Val[Q]);
            for (Cx &V : Want)
              V = fit(Cot, V);
          }
          cudaFree(DCol);
          cudaFree(DVal);
          if (S != CUSPARSE_STATUS_SUCCESS)
            continue;
          std::string Slots = std::string("A=") + At.Name + " B=" + Bt.Name + " C=" + Cot.Name + " compute=" + Ct.Name;
          if (!record("SpGEMM", Slots.c_str(), Got, Want))
            return 1;
        }

  std::printf("tried %d\n", Tried);
  Lines.push_back("tried " + std::to_string(Tried));
  return Argc < 2 ? 0 : compareGolden(Lines, Argv[1], "cusparse_types_ops");
}
