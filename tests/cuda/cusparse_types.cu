// Which value and compute type combinations cusparseSpMV and cusparseSpMM
// (CSR) accept, and whether the result is exact on small integers: one line
// per accepted combination ("SpMV A=.. X=.. Y=.. C=.. exact 0"). Run on an
// H200 with NVIDIA's cuSPARSE (tests/probes/h200-run-libs.sh), its lines are
// tests/golden/libs/cusparse_types.golden; given that file, the program
// fails unless this library's lines are the same.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cusparse.h>

#include <complex>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

struct T {
  cudaDataType Ty;
  const char *Name;
  int Bytes;
  bool Complex;
};
static const T Types[] = {{CUDA_R_8I, "R_8I", 1, false},     {CUDA_R_32I, "R_32I", 4, false},
                          {CUDA_R_16F, "R_16F", 2, false},   {CUDA_R_16BF, "R_16BF", 2, false},
                          {CUDA_R_32F, "R_32F", 4, false},   {CUDA_R_64F, "R_64F", 8, false},
                          {CUDA_C_16F, "C_16F", 4, true},    {CUDA_C_16BF, "C_16BF", 4, true},
                          {CUDA_C_32F, "C_32F", 8, true},    {CUDA_C_64F, "C_64F", 16, true},
                          {CUDA_R_8U, "R_8U", 1, false},     {CUDA_C_8I, "C_8I", 2, true}};

static void put(const T &t, void *P, std::complex<double> V) {
  double Re = V.real(), Im = V.imag();
  switch (t.Ty) {
  case CUDA_R_8I: *(int8_t *)P = int8_t(Re); break;
  case CUDA_R_8U: *(uint8_t *)P = uint8_t(Re); break;
  case CUDA_C_8I: ((int8_t *)P)[0] = int8_t(Re); ((int8_t *)P)[1] = int8_t(Im); break;
  case CUDA_R_32I: *(int32_t *)P = int32_t(Re); break;
  case CUDA_R_16F: *(__half *)P = __double2half(Re); break;
  case CUDA_R_16BF: *(__nv_bfloat16 *)P = __double2bfloat16(Re); break;
  case CUDA_R_32F: *(float *)P = float(Re); break;
  case CUDA_R_64F: *(double *)P = Re; break;
  case CUDA_C_16F: ((__half *)P)[0] = __double2half(Re); ((__half *)P)[1] = __double2half(Im); break;
  case CUDA_C_16BF: ((__nv_bfloat16 *)P)[0] = __double2bfloat16(Re); ((__nv_bfloat16 *)P)[1] = __double2bfloat16(Im); break;
  case CUDA_C_32F: ((float *)P)[0] = float(Re); ((float *)P)[1] = float(Im); break;
  case CUDA_C_64F: ((double *)P)[0] = Re; ((double *)P)[1] = Im; break;
  default: break;
  }
}
static std::complex<double> get(const T &t, const void *P) {
  switch (t.Ty) {
  case CUDA_R_8I: return *(const int8_t *)P;
  case CUDA_R_8U: return *(const uint8_t *)P;
  case CUDA_C_8I: return {double(((const int8_t *)P)[0]), double(((const int8_t *)P)[1])};
  case CUDA_R_32I: return *(const int32_t *)P;
  case CUDA_R_16F: return double(__half2float(*(const __half *)P));
  case CUDA_R_16BF: return double(__bfloat162float(*(const __nv_bfloat16 *)P));
  case CUDA_R_32F: return *(const float *)P;
  case CUDA_R_64F: return *(const double *)P;
  case CUDA_C_16F: return {double(__half2float(((const __half *)P)[0])), double(__half2float(((const __half *)P)[1]))};
  case CUDA_C_16BF:
    return {double(__bfloat162float(((const __nv_bfloat16 *)P)[0])), double(__bfloat162float(((const __nv_bfloat16 *)P)[1]))};
  case CUDA_C_32F: return {double(((const float *)P)[0]), double(((const float *)P)[1])};
  case CUDA_C_64F: return {((const double *)P)[0], ((const double *)P)[1]};
  default: return 0;
  }
}

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
  if (Argc < 2)
    return 0;
  std::ifstream F(Argv[1]);
  std::vector<std::string> Want;
  for (std::string L; std::getline(F, L);)
    Want.push_back(L);
  if (Want == Lines) {
    std::printf("cusparse_types: PASS (the H200's combinations)\n");
    return 0;
  }
  std::printf("cusparse_types: FAIL: %zu lines here, %zu on the H200\n", Lines.size(), Want.size());
  return 1;
}
