// Conjugate gradients, as the CUDA samples do it: cuSPARSE's SpMV with
// cuBLAS's dot/axpy/scal on the same stream, then preconditioned with
// ILU(0) (csrilu02) and two triangular solves (SpSV). The solution of a 2D
// Poisson problem is checked against a residual computed here.
#include "blas_common.h"
#include "libs_common.h"
#include <cusparse.h>

#include <cmath>
#include <vector>


static int Bad = 0;

int main() {
  const int G = 40, N = G * G;
  std::vector<int> Off{0}, Ind;
  std::vector<double> Val;
  for (int I = 0; I < N; ++I) {
    int X = I % G, Y = I / G;
    auto Add = [&](int J, double V) { Ind.push_back(J), Val.push_back(V); };
    if (Y > 0)
      Add(I - G, -1);
    if (X > 0)
      Add(I - 1, -1);
    Add(I, 4);
    if (X < G - 1)
      Add(I + 1, -1);
    if (Y < G - 1)
      Add(I + G, -1);
    Off.push_back(int(Ind.size()));
  }
  std::vector<double> Rhs(N);
  for (int I = 0; I < N; ++I)
    Rhs[I] = std::sin(0.01 * I) + 1;
  cudaStream_t S;
  CHECK(cudaStreamCreate(&S));
  cublasHandle_t B;
  cusparseHandle_t Sp;
  CB(cublasCreate(&B));
  CB(cublasSetStream(B, S));
  CSP(cusparseCreate(&Sp));
  CSP(cusparseSetStream(Sp, S));
  int *dOff = dev(Off), *dInd = dev(Ind);
  double *dVal = dev(Val);
  auto Residual = [&](const std::vector<double> &X) {
    double R = 0, Nb = 0;
    for (int I = 0; I < N; ++I) {
      double Ax = 0;
      for (int K = Off[I]; K < Off[I + 1]; ++K)
        Ax += Val[K] * X[Ind[K]];
      R += (Ax - Rhs[I]) * (Ax - Rhs[I]);
      Nb += Rhs[I] * Rhs[I];
    }
    return std::sqrt(R / Nb);
  };
  cusparseSpMatDescr_t A;
  CSP(cusparseCreateCsr(&A, N, N, Val.size(), dOff, dInd, dVal, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  for (bool Precond : {false, true}) {
    double *dX = dev(std::vector<double>(N, 0.0)), *dR = dev(Rhs), *dP = dev(std::vector<double>(N)),
           *dAp = dev(std::vector<double>(N)), *dZ = dev(std::vector<double>(N)), *dT = dev(std::vector<double>(N));
    cusparseDnVecDescr_t Vp, Vap, Vr, Vz, Vt;
    CSP(cusparseCreateDnVec(&Vp, N, dP, CUDA_R_64F));
    CSP(cusparseCreateDnVec(&Vap, N, dAp, CUDA_R_64F));
    CSP(cusparseCreateDnVec(&Vr, N, dR, CUDA_R_64F));
    CSP(cusparseCreateDnVec(&Vz, N, dZ, CUDA_R_64F));
    CSP(cusparseCreateDnVec(&Vt, N, dT, CUDA_R_64F));
    // ILU(0) of A in a copy, and the L (unit) and U solves.
    double *dLU = dev(Val);
    cusparseSpMatDescr_t L, U;
    cusparseSpSVDescr_t SvL, SvU;
    void *BufL = nullptr, *BufU = nullptr; // the analyses' buffers live as long as the solves
    if (Precond) {
      cusparseMatDescr_t D;
      CSP(cusparseCreateMatDescr(&D));
      csrilu02Info_t Info;
      CSP(cusparseCreateCsrilu02Info(&Info));
      int Size;
      CSP(cusparseDcsrilu02_bufferSize(Sp, N, int(Val.size()), D, dLU, dOff, dInd, Info, &Size));
      void *Buf;
      CHECK(cudaMalloc(&Buf, Size));
      CSP(cusparseDcsrilu02_analysis(Sp, N, int(Val.size()), D, dLU, dOff, dInd, Info,
                                     CUSPARSE_SOLVE_POLICY_USE_LEVEL, Buf));
      CSP(cusparseDcsrilu02(Sp, N, int(Val.size()), D, dLU, dOff, dInd, Info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, Buf));
      int Pivot;
      CSP(cusparseXcsrilu02_zeroPivot(Sp, Info, &Pivot));
      EXPECT(Pivot == -1);
      cusparseFillMode_t Lower = CUSPARSE_FILL_MODE_LOWER, Upper = CUSPARSE_FILL_MODE_UPPER;
      cusparseDiagType_t Unit = CUSPARSE_DIAG_TYPE_UNIT, NonUnit = CUSPARSE_DIAG_TYPE_NON_UNIT;
      CSP(cusparseCreateCsr(&L, N, N, Val.size(), dOff, dInd, dLU, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                            CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
      CSP(cusparseSpMatSetAttribute(L, CUSPARSE_SPMAT_FILL_MODE, &Lower, sizeof Lower));
      CSP(cusparseSpMatSetAttribute(L, CUSPARSE_SPMAT_DIAG_TYPE, &Unit, sizeof Unit));
      CSP(cusparseCreateCsr(&U, N, N, Val.size(), dOff, dInd, dLU, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                            CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
      CSP(cusparseSpMatSetAttribute(U, CUSPARSE_SPMAT_FILL_MODE, &Upper, sizeof Upper));
      CSP(cusparseSpMatSetAttribute(U, CUSPARSE_SPMAT_DIAG_TYPE, &NonUnit, sizeof NonUnit));
      CSP(cusparseSpSV_createDescr(&SvL));
      CSP(cusparseSpSV_createDescr(&SvU));
      const double One = 1;
      size_t SizeL = 0, SizeU = 0;
      CSP(cusparseSpSV_bufferSize(Sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, L, Vr, Vt, CUDA_R_64F,
                                  CUSPARSE_SPSV_ALG_DEFAULT, SvL, &SizeL));
      CSP(cusparseSpSV_bufferSize(Sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, U, Vt, Vz, CUDA_R_64F,
                                  CUSPARSE_SPSV_ALG_DEFAULT, SvU, &SizeU));
      CHECK(cudaMalloc(&BufL, SizeL + 1));
      CHECK(cudaMalloc(&BufU, SizeU + 1));
      CSP(cusparseSpSV_analysis(Sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, L, Vr, Vt, CUDA_R_64F,
                                CUSPARSE_SPSV_ALG_DEFAULT, SvL, BufL));
      CSP(cusparseSpSV_analysis(Sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, U, Vt, Vz, CUDA_R_64F,
                                CUSPARSE_SPSV_ALG_DEFAULT, SvU, BufU));
    }
    auto Apply = [&] { // z = M^-1 r
      const double One = 1;
      if (!Precond) {
        CB(cublasDcopy(B, N, dR, 1, dZ, 1));
        return;
      }
      CSP(cusparseSpSV_solve(Sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, L, Vr, Vt, CUDA_R_64F,
                             CUSPARSE_SPSV_ALG_DEFAULT, SvL));
      CSP(cusparseSpSV_solve(Sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, U, Vt, Vz, CUDA_R_64F,
                             CUSPARSE_SPSV_ALG_DEFAULT, SvU));
    };
    Apply();
    CB(cublasDcopy(B, N, dZ, 1, dP, 1));
    double Rz, Rr;
    CB(cublasDdot(B, N, dR, 1, dZ, 1, &Rz));
    int It = 0;
    const double One = 1, Zero = 0;
    size_t Size = 0;
    CSP(cusparseSpMV_bufferSize(Sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, A, Vp, &Zero, Vap, CUDA_R_64F,
                                CUSPARSE_SPMV_ALG_DEFAULT, &Size));
    void *SpmvBuf;
    CHECK(cudaMalloc(&SpmvBuf, Size + 1));
    for (; It < 1000; ++It) {
      CSP(cusparseSpMV(Sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, A, Vp, &Zero, Vap, CUDA_R_64F,
                       CUSPARSE_SPMV_ALG_DEFAULT, SpmvBuf));
      double PAp;
      CB(cublasDdot(B, N, dP, 1, dAp, 1, &PAp));
      double Alpha = Rz / PAp, MinusAlpha = -Alpha;
      CB(cublasDaxpy(B, N, &Alpha, dP, 1, dX, 1));
      CB(cublasDaxpy(B, N, &MinusAlpha, dAp, 1, dR, 1));
      CB(cublasDdot(B, N, dR, 1, dR, 1, &Rr));
      if (std::sqrt(Rr) < 1e-10)
        break;
      Apply();
      double RzNew;
      CB(cublasDdot(B, N, dR, 1, dZ, 1, &RzNew));
      double Beta = RzNew / Rz;
      Rz = RzNew;
      CB(cublasDscal(B, N, &Beta, dP, 1));
      CB(cublasDaxpy(B, N, &One, dZ, 1, dP, 1));
    }
    auto X = host(dX, N);
    double Res = Residual(X);
    std::printf("CG%s: %d iterations, relative residual %.3g\n", Precond ? " (ILU(0))" : "", It, Res);
    EXPECT(Res < 1e-9);
    EXPECT(It < 1000);
    cudaFree(dX), cudaFree(dR), cudaFree(dP), cudaFree(dAp), cudaFree(dZ), cudaFree(dT), cudaFree(dLU), cudaFree(SpmvBuf), cudaFree(BufL), cudaFree(BufU);
  }
  cusparseDestroy(Sp);
  cublasDestroy(B);
  return verdict("cusparse_cg", Bad);
}
