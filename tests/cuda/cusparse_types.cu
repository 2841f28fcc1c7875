// Which value and compute type combinations cusparseSpMV and cusparseSpMM
// (CSR) accept, and whether the result is exact on small integers: one line
// per accepted combination ("SpMV A=.. X=.. Y=.. C=.. exact 0"). Run on an
// H200 with NVIDIA's cuSPARSE (tests/probes/h200-run-libs.sh), its lines are
// tests/golden/libs/cusparse_types.golden; given that file, the program
// fails unless this library's lines are the same.
#include <cusparse.h>
#include "types_common.h"

#include <complex>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

int main(int Argc, char **Argv) {
  cusparseHandle_t H;
  cusparseCreate(&H);
  const int N = 8, K = 3; // A is N x N, B is N x K
  std::vector<int> RowPtr{0}, Col;
  std::vector<std::complex<double>> Val;
  for (int R = 0; R < N; ++R) {
    for (int C = 0; C < N; ++C)
      if ((R * 5 + C * 3) % 4 == 0 && Col.size() < 40) {
        Col.push_back(C);
        Val.push_back({double((R + 2 * C) % 5 - 2), double((R + C) % 3 - 1)});
      }
    RowPtr.push_back(int(Col.size()));
  }
  int Nnz = int(Col.size());
  std::vector<std::complex<double>> X(N * K), Y0(N * K);
  for (int I = 0; I < N * K; ++I) {
    X[I] = {double(I % 5 - 2), double(I % 3 - 1)};
    Y0[I] = {double(I % 3 - 1), double(I % 2)};
  }
  int *DRow, *DCol;
  cudaMalloc(&DRow, sizeof(int) * (N + 1));
  cudaMalloc(&DCol, sizeof(int) * Nnz);
  cudaMemcpy(DRow, RowPtr.data(), sizeof(int) * (N + 1), cudaMemcpyHostToDevice);
  cudaMemcpy(DCol, Col.data(), sizeof(int) * Nnz, cudaMemcpyHostToDevice);
  void *DA, *DX, *DY, *DBuf;
  cudaMalloc(&DA, 16 * Nnz);
  cudaMalloc(&DX, 16 * N * K);
  cudaMalloc(&DY, 16 * N * K);
  size_t BufSize = 1 << 24;
  cudaMalloc(&DBuf, BufSize);
  std::vector<char> HA(16 * Nnz), HX(16 * N * K), HY(16 * N * K);
  int Tried = 0;
  std::vector<std::string> Lines;
  for (int Mm = 0; Mm < 2; ++Mm)
    for (const T &At : Types)
      for (const T &Xt : Types)
        for (const T &Yt : Types)
          for (const T &Ct : Types) {
            // Values representable in every type (complex parts only for complex types).
            auto Fit = [](const T &t, std::complex<double> V) { return t.Complex ? V : std::complex<double>(V.real(), 0); };
            for (int I = 0; I < Nnz; ++I) put(At, &HA[At.Bytes * I], Fit(At, Val[I]));
            for (int I = 0; I < N * K; ++I) put(Xt, &HX[Xt.Bytes * I], Fit(Xt, X[I]));
            for (int I = 0; I < N * K; ++I) put(Yt, &HY[Yt.Bytes * I], Fit(Yt, Y0[I]));
            cudaMemcpy(DA, HA.data(), At.Bytes * Nnz, cudaMemcpyHostToDevice);
            cudaMemcpy(DX, HX.data(), Xt.Bytes * N * K, cudaMemcpyHostToDevice);
            cudaMemcpy(DY, HY.data(), Yt.Bytes * N * K, cudaMemcpyHostToDevice);
            char Alpha[16], Beta[16];
            put(Ct, Alpha, 2.0);
            put(Ct, Beta, 1.0);
            cusparseSpMatDescr_t A;
            if (cusparseCreateCsr(&A, N, N, Nnz, DRow, DCol, DA, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_BASE_ZERO, At.Ty) != CUSPARSE_STATUS_SUCCESS)
              continue;
            cusparseStatus_t S;
            size_t Need = 0;
            ++Tried;
            if (Mm == 0) {
              cusparseDnVecDescr_t Vx, Vy;
              if (cusparseCreateDnVec(&Vx, N, DX, Xt.Ty) || cusparseCreateDnVec(&Vy, N, DY, Yt.Ty)) {
                cusparseDestroySpMat(A);
                continue;
              }
              S = cusparseSpMV_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, Alpha, A, Vx, Beta, Vy, Ct.Ty,
                                          CUSPARSE_SPMV_ALG_DEFAULT, &Need);
              if (S == CUSPARSE_STATUS_SUCCESS && Need <= BufSize)
                S = cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, Alpha, A, Vx, Beta, Vy, Ct.Ty,
                                 CUSPARSE_SPMV_ALG_DEFAULT, DBuf);
              cusparseDestroyDnVec(Vx);
              cusparseDestroyDnVec(Vy);
            } else {
              cusparseDnMatDescr_t Mb, Mc;
              if (cusparseCreateDnMat(&Mb, N, K, N, DX, Xt.Ty, CUSPARSE_ORDER_COL) ||
                  cusparseCreateDnMat(&Mc, N, K, N, DY, Yt.Ty, CUSPARSE_ORDER_COL)) {
                cusparseDestroySpMat(A);
                continue;
              }
              S = cusparseSpMM_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, Alpha,
                                          A, Mb, Beta, Mc, Ct.Ty, CUSPARSE_SPMM_ALG_DEFAULT, &Need);
              if (S == CUSPARSE_STATUS_SUCCESS && Need <= BufSize)
                S = cusparseSpMM(H, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, Alpha, A, Mb,
                                 Beta, Mc, Ct.Ty, CUSPARSE_SPMM_ALG_DEFAULT, DBuf);
              cusparseDestroyDnMat(Mb);
              cusparseDestroyDnMat(Mc);
            }
            cusparseDestroySpMat(A);
            cudaError_t E = cudaDeviceSynchronize();
            if (E != cudaSuccess) {
              std::printf("%s %s %s %s %s CUDA-ERROR %s\n", Mm ? "SpMM" : "SpMV", At.Name, Xt.Name, Yt.Name, Ct.Name,
                          cudaGetErrorName(E));
              return 1;
            }
            if (S != CUSPARSE_STATUS_SUCCESS)
              continue;
            cudaMemcpy(HY.data(), DY, Yt.Bytes * N * K, cudaMemcpyDeviceToHost);
            double Err = 0;
            int Cols = Mm ? K : 1;
            for (int J = 0; J < Cols; ++J)
              for (int R = 0; R < N; ++R) {
                std::complex<double> Sum = 0;
                for (int P = RowPtr[R]; P < RowPtr[R + 1]; ++P)
                  Sum += Fit(At, Val[P]) * Fit(Xt, X[J * N + Col[P]]);
                std::complex<double> Want = Fit(Yt, 2.0 * Sum + Fit(Yt, Y0[J * N + R]));
                Err = std::max(Err, std::abs(get(Yt, &HY[Yt.Bytes * (J * N + R)]) - Want));
              }
            char Line[160];
            std::snprintf(Line, sizeof Line, "%s A=%s X=%s Y=%s C=%s %s %g", Mm ? "SpMM" : "SpMV", At.Name, Xt.Name,
                          Yt.Name, Ct.Name, Err == 0 ? "exact" : "differs", Err);
            std::printf("%s\n", Line);
            Lines.push_back(Line);
          }
  std::printf("tried %d\n", Tried);
  Lines.push_back("tried " + std::to_string(Tried));
  return Argc < 2 ? 0 : compareGolden(Lines, Argv[1], "cusparse_types");
}
