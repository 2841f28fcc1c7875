// cuSPARSE: the generic API (SpMV, SpMM, SpSV, SpGEMM, conversions) and the
// incomplete factorizations, on fresh random sparse matrices, each result
// against a dense computation done here in double (or long double).
#include "libs_common.h"
#include <cusparse.h>

#include <cmath>
#include <complex>
#include <random>


static int Bad = 0;
static std::mt19937 Rng(11);
static cusparseHandle_t H;

template <typename T> struct Ty;
template <> struct Ty<float> {
  static constexpr cudaDataType V = CUDA_R_32F;
  static constexpr double Eps = 1e-4;
};
template <> struct Ty<double> {
  static constexpr cudaDataType V = CUDA_R_64F;
  static constexpr double Eps = 1e-12;
};
template <> struct Ty<std::complex<float>> {
  static constexpr cudaDataType V = CUDA_C_32F;
  static constexpr double Eps = 1e-4;
};
template <> struct Ty<std::complex<double>> {
  static constexpr cudaDataType V = CUDA_C_64F;
  static constexpr double Eps = 1e-12;
};
template <typename T> static T rnd() {
  std::uniform_real_distribution<double> U(-1, 1);
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
    return T(U(Rng));
  else
    return T(U(Rng), U(Rng));
}
template <typename T> static T cj(T X, bool C) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
    return X;
  else
    return C ? std::conj(X) : X;
}

/// A random M x N matrix, dense (column major) and CSR with ~Density fill.
template <typename T> struct Sparse {
  int M, N;
  std::vector<T> Dense;
  std::vector<int> Off, Ind;
  std::vector<T> Val;
};
template <typename T> static Sparse<T> randomSparse(int M, int N, double Density, bool DiagDominant = false) {
  Sparse<T> S{M, N, std::vector<T>(size_t(M) * N, T(0)), {0}, {}, {}};
  std::uniform_real_distribution<double> U(0, 1);
  for (int I = 0; I < M; ++I) {
    for (int J = 0; J < N; ++J)
      if (U(Rng) < Density || (DiagDominant && I == J)) {
        T V = rnd<T>() + (DiagDominant && I == J ? T(N) : T(0));
        S.Dense[I + size_t(J) * M] = V;
        S.Ind.push_back(J);
        S.Val.push_back(V);
      }
    S.Off.push_back(int(S.Ind.size()));
  }
  return S;
}
template <typename T> static void near(const char *What, const std::vector<T> &Want, const std::vector<T> &Got) {
  double Err = 0, Max = 1;
  for (size_t I = 0; I < Want.size(); ++I) {
    Err = std::max(Err, double(std::abs(Want[I] - Got[I])));
    Max = std::max(Max, double(std::abs(Want[I])));
  }
  if (!(Err / Max <= Ty<T>::Eps * 50)) {
    std::printf("FAIL %s: relative error %.3g\n", What, Err / Max);
    ++Bad;
  }
}

template <typename T> static void spmv() {
  const int M = 57, N = 43;
  auto S = randomSparse<T>(M, N, 0.1);
  int *dOff = dev(S.Off), *dInd = dev(S.Ind);
  T *dVal = dev(S.Val);
  constexpr bool Real = std::is_same_v<T, float> || std::is_same_v<T, double>;
  for (auto Op : {CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE,
                  CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE}) {
    const bool Tr = Op != CUSPARSE_OPERATION_NON_TRANSPOSE;
    if (Real && Op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE) {
      // Refused for real types, as NVIDIA's cuSPARSE does.
      cusparseSpMatDescr_t A;
      cusparseDnVecDescr_t V1, V2;
      T *dV1 = dev(std::vector<T>(M)), *dV2 = dev(std::vector<T>(N));
      CSP(cusparseCreateCsr(&A, M, N, S.Val.size(), dOff, dInd, dVal, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                            CUSPARSE_INDEX_BASE_ZERO, Ty<T>::V));
      CSP(cusparseCreateDnVec(&V1, M, dV1, Ty<T>::V));
      CSP(cusparseCreateDnVec(&V2, N, dV2, Ty<T>::V));
      const T One = T(1);
      size_t Size;
      EXPECT(cusparseSpMV_bufferSize(H, Op, &One, A, V1, &One, V2, Ty<T>::V, CUSPARSE_SPMV_ALG_DEFAULT, &Size) ==
             CUSPARSE_STATUS_INVALID_VALUE);
      cusparseDestroySpMat(A), cusparseDestroyDnVec(V1), cusparseDestroyDnVec(V2);
      cudaFree(dV1), cudaFree(dV2);
      continue;
    }
    const int In = Tr ? M : N, Out = Tr ? N : M;
    std::vector<T> X(In), Y(Out);
    for (auto &V : X)
      V = rnd<T>();
    for (auto &V : Y)
      V = rnd<T>();
    T *dX = dev(X), *dY = dev(Y);
    const T Alpha = rnd<T>(), Beta = rnd<T>();
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t Vx, Vy;
    CSP(cusparseCreateCsr(&A, M, N, S.Val.size(), dOff, dInd, dVal, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, Ty<T>::V));
    CSP(cusparseCreateDnVec(&Vx, In, dX, Ty<T>::V));
    CSP(cusparseCreateDnVec(&Vy, Out, dY, Ty<T>::V));
    size_t Size = 1;
    CSP(cusparseSpMV_bufferSize(H, Op, &Alpha, A, Vx, &Beta, Vy, Ty<T>::V, CUSPARSE_SPMV_ALG_DEFAULT, &Size));
    void *Buf;
    CHECK(cudaMalloc(&Buf, Size + 1));
    CSP(cusparseSpMV(H, Op, &Alpha, A, Vx, &Beta, Vy, Ty<T>::V, CUSPARSE_SPMV_ALG_DEFAULT, Buf));
    auto Got = host(dY, Out);
    std::vector<T> Want(Out);
    for (int I = 0; I < Out; ++I) {
      T Sum = 0;
      for (int K = 0; K < In; ++K)
        Sum += (Tr ? cj(S.Dense[K + size_t(I) * M], Op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE)
                   : S.Dense[I + size_t(K) * M]) *
               X[K];
      Want[I] = Alpha * Sum + Beta * Y[I];
    }
    near("SpMV (CSR)", Want, Got);
    cusparseDestroySpMat(A);
    cusparseDestroyDnVec(Vx);
    cusparseDestroyDnVec(Vy);
    cudaFree(dX), cudaFree(dY), cudaFree(Buf);
  }
  cudaFree(dOff), cudaFree(dInd), cudaFree(dVal);
}

/// SpMM over COO (one based) and CSC, with row-major B and C.
template <typename T> static void spmm() {
  const int M = 31, K = 26, N = 7;
  auto S = randomSparse<T>(M, K, 0.15);
  std::vector<int> Rows, Cols;
  for (int I = 0; I < M; ++I)
    for (int P = S.Off[I]; P < S.Off[I + 1]; ++P)
      Rows.push_back(I + 1), Cols.push_back(S.Ind[P] + 1);
  int *dR = dev(Rows), *dC = dev(Cols);
  T *dV = dev(S.Val);
  std::vector<T> B(size_t(K) * N), C(size_t(M) * N);
  for (auto &V : B)
    V = rnd<T>();
  for (auto &V : C)
    V = rnd<T>();
  T *dB = dev(B), *dCm = dev(C);
  cusparseSpMatDescr_t A;
  cusparseDnMatDescr_t Bd, Cd;
  CSP(cusparseCreateCoo(&A, M, K, S.Val.size(), dR, dC, dV, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ONE, Ty<T>::V));
  CSP(cusparseCreateDnMat(&Bd, K, N, N, dB, Ty<T>::V, CUSPARSE_ORDER_ROW));
  CSP(cusparseCreateDnMat(&Cd, M, N, N, dCm, Ty<T>::V, CUSPARSE_ORDER_ROW));
  const T Alpha = rnd<T>(), Beta = rnd<T>();
  size_t Size = 0;
  CSP(cusparseSpMM_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &Alpha, A, Bd,
                              &Beta, Cd, Ty<T>::V, CUSPARSE_SPMM_ALG_DEFAULT, &Size));
  void *Buf;
  CHECK(cudaMalloc(&Buf, Size + 1));
  CSP(cusparseSpMM(H, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &Alpha, A, Bd, &Beta, Cd,
                   Ty<T>::V, CUSPARSE_SPMM_ALG_DEFAULT, Buf));
  auto Got = host(dCm, C.size());
  std::vector<T> Want(C.size());
  for (int I = 0; I < M; ++I)
    for (int J = 0; J < N; ++J) {
      T Sum = 0;
      for (int P = 0; P < K; ++P)
        Sum += S.Dense[I + size_t(P) * M] * B[size_t(P) * N + J];
      Want[size_t(I) * N + J] = Alpha * Sum + Beta * C[size_t(I) * N + J];
    }
  near("SpMM (COO one based, row-major B and C)", Want, Got);
  cusparseDestroySpMat(A);
  cusparseDestroyDnMat(Bd);
  cusparseDestroyDnMat(Cd);
  cudaFree(dR), cudaFree(dC), cudaFree(dV), cudaFree(dB), cudaFree(dCm);
}

/// SpSV: lower and upper, N and T, unit and non-unit diagonals.
template <typename T> static void spsv() {
  const int N = 40;
  auto S = randomSparse<T>(N, N, 0.2, true);
  int *dOff = dev(S.Off), *dInd = dev(S.Ind);
  T *dVal = dev(S.Val);
  for (auto Fill : {CUSPARSE_FILL_MODE_LOWER, CUSPARSE_FILL_MODE_UPPER})
    for (auto Diag : {CUSPARSE_DIAG_TYPE_NON_UNIT, CUSPARSE_DIAG_TYPE_UNIT})
      for (auto Op : {CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE}) {
        // The triangle as a dense matrix (the other one is ignored).
        std::vector<T> Tri(size_t(N) * N, T(0));
        for (int I = 0; I < N; ++I)
          for (int J = 0; J < N; ++J) {
            bool In = Fill == CUSPARSE_FILL_MODE_LOWER ? J <= I : J >= I;
            if (I == J)
              Tri[I + size_t(J) * N] = Diag == CUSPARSE_DIAG_TYPE_UNIT ? T(1) : S.Dense[I + size_t(J) * N];
            else if (In)
              Tri[I + size_t(J) * N] = S.Dense[I + size_t(J) * N];
          }
        std::vector<T> Y(N);
        for (auto &V : Y)
          V = rnd<T>();
        // X = alpha^-1 op(Tri) Y, so that the solve gives Y back.
        const T Alpha = T(2);
        std::vector<T> X(N);
        for (int I = 0; I < N; ++I) {
          T Sum = 0;
          for (int K = 0; K < N; ++K)
            Sum += (Op == CUSPARSE_OPERATION_NON_TRANSPOSE ? Tri[I + size_t(K) * N] : Tri[K + size_t(I) * N]) * Y[K];
          X[I] = Sum / Alpha;
        }
        T *dX = dev(X), *dY = dev(std::vector<T>(N, T(NAN)));
        cusparseSpMatDescr_t A;
        cusparseDnVecDescr_t Vx, Vy;
        CSP(cusparseCreateCsr(&A, N, N, S.Val.size(), dOff, dInd, dVal, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_BASE_ZERO, Ty<T>::V));
        CSP(cusparseSpMatSetAttribute(A, CUSPARSE_SPMAT_FILL_MODE, &Fill, sizeof Fill));
        CSP(cusparseSpMatSetAttribute(A, CUSPARSE_SPMAT_DIAG_TYPE, &Diag, sizeof Diag));
        CSP(cusparseCreateDnVec(&Vx, N, dX, Ty<T>::V));
        CSP(cusparseCreateDnVec(&Vy, N, dY, Ty<T>::V));
        cusparseSpSVDescr_t D;
        CSP(cusparseSpSV_createDescr(&D));
        size_t Size = 0;
        CSP(cusparseSpSV_bufferSize(H, Op, &Alpha, A, Vx, Vy, Ty<T>::V, CUSPARSE_SPSV_ALG_DEFAULT, D, &Size));
        void *Buf;
        CHECK(cudaMalloc(&Buf, Size + 1));
        CSP(cusparseSpSV_analysis(H, Op, &Alpha, A, Vx, Vy, Ty<T>::V, CUSPARSE_SPSV_ALG_DEFAULT, D, Buf));
        CSP(cusparseSpSV_solve(H, Op, &Alpha, A, Vx, Vy, Ty<T>::V, CUSPARSE_SPSV_ALG_DEFAULT, D));
        near("SpSV", Y, host(dY, N));
        cusparseSpSV_destroyDescr(D);
        cudaFree(Buf);
        cusparseDestroySpMat(A);
        cusparseDestroyDnVec(Vx);
        cusparseDestroyDnVec(Vy);
        cudaFree(dX), cudaFree(dY);
      }
  cudaFree(dOff), cudaFree(dInd), cudaFree(dVal);
}

/// SpGEMM with the documented protocol (work estimation, compute, copy).
template <typename T> static void spgemm() {
  const int M = 23, K = 19, N = 29;
  auto A = randomSparse<T>(M, K, 0.15), B = randomSparse<T>(K, N, 0.15);
  int *dAo = dev(A.Off), *dAi = dev(A.Ind), *dBo = dev(B.Off), *dBi = dev(B.Ind);
  T *dAv = dev(A.Val), *dBv = dev(B.Val);
  int *dCo;
  CHECK(cudaMalloc(&dCo, sizeof(int) * (M + 1)));
  cusparseSpMatDescr_t Ad, Bd, Cd;
  CSP(cusparseCreateCsr(&Ad, M, K, A.Val.size(), dAo, dAi, dAv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, Ty<T>::V));
  CSP(cusparseCreateCsr(&Bd, K, N, B.Val.size(), dBo, dBi, dBv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, Ty<T>::V));
  CSP(cusparseCreateCsr(&Cd, M, N, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, Ty<T>::V));
  cusparseSpGEMMDescr_t G;
  CSP(cusparseSpGEMM_createDescr(&G));
  const T Alpha = rnd<T>(), Beta = T(0);
  const auto Op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  size_t S1 = 0, S2 = 0;
  CSP(cusparseSpGEMM_workEstimation(H, Op, Op, &Alpha, Ad, Bd, &Beta, Cd, Ty<T>::V, CUSPARSE_SPGEMM_DEFAULT, G, &S1,
                                    nullptr));
  void *B1, *B2;
  CHECK(cudaMalloc(&B1, S1));
  CSP(cusparseSpGEMM_workEstimation(H, Op, Op, &Alpha, Ad, Bd, &Beta, Cd, Ty<T>::V, CUSPARSE_SPGEMM_DEFAULT, G, &S1,
                                    B1));
  CSP(cusparseSpGEMM_compute(H, Op, Op, &Alpha, Ad, Bd, &Beta, Cd, Ty<T>::V, CUSPARSE_SPGEMM_DEFAULT, G, &S2, nullptr));
  CHECK(cudaMalloc(&B2, S2));
  CSP(cusparseSpGEMM_compute(H, Op, Op, &Alpha, Ad, Bd, &Beta, Cd, Ty<T>::V, CUSPARSE_SPGEMM_DEFAULT, G, &S2, B2));
  int64_t R, C, Nnz;
  CSP(cusparseSpMatGetSize(Cd, &R, &C, &Nnz));
  int *dCi;
  T *dCv;
  CHECK(cudaMalloc(&dCi, sizeof(int) * Nnz + 4));
  CHECK(cudaMalloc(&dCv, sizeof(T) * Nnz + 4));
  CSP(cusparseCsrSetPointers(Cd, dCo, dCi, dCv));
  CSP(cusparseSpGEMM_copy(H, Op, Op, &Alpha, Ad, Bd, &Beta, Cd, Ty<T>::V, CUSPARSE_SPGEMM_DEFAULT, G));
  auto Co = host(dCo, M + 1);
  auto Ci = host(dCi, size_t(Nnz));
  auto Cv = host(dCv, size_t(Nnz));
  std::vector<T> Got(size_t(M) * N, T(0)), Want(size_t(M) * N, T(0));
  EXPECT(Co[M] == Nnz);
  for (int I = 0; I < M; ++I)
    for (int P = Co[I]; P < Co[I + 1]; ++P)
      Got[I + size_t(Ci[P]) * M] += Cv[P];
  for (int I = 0; I < M; ++I)
    for (int J = 0; J < N; ++J) {
      T Sum = 0;
      for (int P = 0; P < K; ++P)
        Sum += A.Dense[I + size_t(P) * M] * B.Dense[P + size_t(J) * K];
      Want[I + size_t(J) * M] = Alpha * Sum;
    }
  near("SpGEMM", Want, Got);
  cusparseSpGEMM_destroyDescr(G);
  cusparseDestroySpMat(Ad), cusparseDestroySpMat(Bd), cusparseDestroySpMat(Cd);
  cudaFree(dAo), cudaFree(dAi), cudaFree(dBo), cudaFree(dBi), cudaFree(dAv), cudaFree(dBv);
  cudaFree(dCo), cudaFree(dCi), cudaFree(dCv), cudaFree(B1), cudaFree(B2);
}

/// Dense -> CSR -> CSC (csr2cscEx2) -> dense; csr2coo and coo2csr.
static void conversions() {
  const int M = 17, N = 12;
  auto S = randomSparse<double>(M, N, 0.3);
  double *dD = dev(S.Dense);
  int *dOff;
  CHECK(cudaMalloc(&dOff, sizeof(int) * (M + 1)));
  cusparseDnMatDescr_t Dd;
  cusparseSpMatDescr_t Sd;
  CSP(cusparseCreateDnMat(&Dd, M, N, M, dD, CUDA_R_64F, CUSPARSE_ORDER_COL));
  CSP(cusparseCreateCsr(&Sd, M, N, 0, dOff, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  size_t Size = 0;
  CSP(cusparseDenseToSparse_bufferSize(H, Dd, Sd, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, &Size));
  void *DsBuf;
  CHECK(cudaMalloc(&DsBuf, Size + 1));
  CSP(cusparseDenseToSparse_analysis(H, Dd, Sd, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, DsBuf));
  int64_t R, C, Nnz;
  CSP(cusparseSpMatGetSize(Sd, &R, &C, &Nnz));
  EXPECT(Nnz == int64_t(S.Val.size()));
  int *dInd;
  double *dVal;
  CHECK(cudaMalloc(&dInd, sizeof(int) * Nnz));
  CHECK(cudaMalloc(&dVal, sizeof(double) * Nnz));
  CSP(cusparseCsrSetPointers(Sd, dOff, dInd, dVal));
  CSP(cusparseDenseToSparse_convert(H, Dd, Sd, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, DsBuf));
  EXPECT(host(dOff, M + 1) == S.Off);
  EXPECT(host(dInd, size_t(Nnz)) == S.Ind);
  EXPECT(host(dVal, size_t(Nnz)) == S.Val);
  // CSR -> CSC
  int *dCp, *dRi;
  double *dCv;
  CHECK(cudaMalloc(&dCp, sizeof(int) * (N + 1)));
  CHECK(cudaMalloc(&dRi, sizeof(int) * Nnz));
  CHECK(cudaMalloc(&dCv, sizeof(double) * Nnz));
  CSP(cusparseCsr2cscEx2_bufferSize(H, M, N, int(Nnz), dVal, dOff, dInd, dCv, dCp, dRi, CUDA_R_64F,
                                    CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &Size));
  void *CcBuf;
  CHECK(cudaMalloc(&CcBuf, Size + 1));
  CSP(cusparseCsr2cscEx2(H, M, N, int(Nnz), dVal, dOff, dInd, dCv, dCp, dRi, CUDA_R_64F, CUSPARSE_ACTION_NUMERIC,
                         CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, CcBuf));
  // CSC -> dense through SparseToDense.
  cusparseSpMatDescr_t Cs;
  CSP(cusparseCreateCsc(&Cs, M, N, Nnz, dCp, dRi, dCv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  double *dBack = dev(std::vector<double>(size_t(M) * N, NAN));
  cusparseDnMatDescr_t Bk;
  CSP(cusparseCreateDnMat(&Bk, M, N, M, dBack, CUDA_R_64F, CUSPARSE_ORDER_COL));
  CSP(cusparseSparseToDense_bufferSize(H, Cs, Bk, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, &Size));
  void *SdBuf;
  CHECK(cudaMalloc(&SdBuf, Size + 1));
  CSP(cusparseSparseToDense(H, Cs, Bk, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, SdBuf));
  EXPECT(host(dBack, size_t(M) * N) == S.Dense);
  // CSR <-> COO row indices
  int *dCoo;
  CHECK(cudaMalloc(&dCoo, sizeof(int) * Nnz));
  CSP(cusparseXcsr2coo(H, dOff, int(Nnz), M, dCoo, CUSPARSE_INDEX_BASE_ZERO));
  auto Coo = host(dCoo, size_t(Nnz));
  for (int I = 0; I < M; ++I)
    for (int P = S.Off[I]; P < S.Off[I + 1]; ++P)
      EXPECT(Coo[P] == I);
  int *dOff2;
  CHECK(cudaMalloc(&dOff2, sizeof(int) * (M + 1)));
  CSP(cusparseXcoo2csr(H, dCoo, int(Nnz), M, dOff2, CUSPARSE_INDEX_BASE_ZERO));
  EXPECT(host(dOff2, M + 1) == S.Off);
  cusparseDestroyDnMat(Dd), cusparseDestroyDnMat(Bk), cusparseDestroySpMat(Sd), cusparseDestroySpMat(Cs);
  cudaFree(dD), cudaFree(dOff), cudaFree(dInd), cudaFree(dVal), cudaFree(dCp), cudaFree(dRi), cudaFree(dCv);
  cudaFree(dBack), cudaFree(dCoo), cudaFree(dOff2);
}

/// ILU(0) and IC(0): on a matrix whose pattern is closed under the
/// factorization (tridiagonal), the factors multiply back to A exactly.
static void incomplete() {
  const int N = 30;
  std::vector<int> Off{0}, Ind;
  std::vector<double> Val, Dense(size_t(N) * N, 0);
  for (int I = 0; I < N; ++I) {
    for (int J = std::max(0, I - 1); J <= std::min(N - 1, I + 1); ++J) {
      double V = I == J ? 4.0 + 0.01 * I : -1.0 - 0.02 * ((I + J) % 3);
      if (J < I) // symmetric
        V = Dense[J + size_t(I) * N];
      Ind.push_back(J);
      Val.push_back(V);
      Dense[I + size_t(J) * N] = V;
    }
    Off.push_back(int(Ind.size()));
  }
  cusparseMatDescr_t D;
  CSP(cusparseCreateMatDescr(&D));
  CSP(cusparseSetMatIndexBase(D, CUSPARSE_INDEX_BASE_ZERO));
  CSP(cusparseSetMatType(D, CUSPARSE_MATRIX_TYPE_GENERAL));
  int *dOff = dev(Off), *dInd = dev(Ind);
  double *dVal = dev(Val);
  csrilu02Info_t Info;
  CSP(cusparseCreateCsrilu02Info(&Info));
  int Size = 0;
  CSP(cusparseDcsrilu02_bufferSize(H, N, int(Val.size()), D, dVal, dOff, dInd, Info, &Size));
  void *Buf;
  CHECK(cudaMalloc(&Buf, Size));
  CSP(cusparseDcsrilu02_analysis(H, N, int(Val.size()), D, dVal, dOff, dInd, Info, CUSPARSE_SOLVE_POLICY_USE_LEVEL,
                                 Buf));
  CSP(cusparseDcsrilu02(H, N, int(Val.size()), D, dVal, dOff, dInd, Info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, Buf));
  int Pivot = 7;
  CSP(cusparseXcsrilu02_zeroPivot(H, Info, &Pivot));
  EXPECT(Pivot == -1);
  auto LU = host(dVal, Val.size());
  std::vector<double> L(size_t(N) * N, 0), U(size_t(N) * N, 0);
  for (int I = 0; I < N; ++I) {
    L[I + size_t(I) * N] = 1;
    for (int P = Off[I]; P < Off[I + 1]; ++P)
      (Ind[P] < I ? L : U)[I + size_t(Ind[P]) * N] = LU[P];
  }
  double Err = 0;
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J) {
      double S = 0;
      for (int K = 0; K < N; ++K)
        S += L[I + size_t(K) * N] * U[K + size_t(J) * N];
      Err = std::max(Err, std::fabs(S - Dense[I + size_t(J) * N]));
    }
  if (!(Err < 1e-12)) {
    std::printf("FAIL csrilu02: |LU - A| = %g\n", Err);
    ++Bad;
  }
  // IC(0) on the same matrix: L L^T = A on the lower triangle.
  CHECK(cudaMemcpy(dVal, Val.data(), Val.size() * sizeof(double), cudaMemcpyHostToDevice));
  csric02Info_t Ic;
  CSP(cusparseCreateCsric02Info(&Ic));
  CSP(cusparseDcsric02_analysis(H, N, int(Val.size()), D, dVal, dOff, dInd, Ic, CUSPARSE_SOLVE_POLICY_NO_LEVEL, Buf));
  CSP(cusparseDcsric02(H, N, int(Val.size()), D, dVal, dOff, dInd, Ic, CUSPARSE_SOLVE_POLICY_NO_LEVEL, Buf));
  CSP(cusparseXcsric02_zeroPivot(H, Ic, &Pivot));
  EXPECT(Pivot == -1);
  auto Lc = host(dVal, Val.size());
  std::vector<double> Lm(size_t(N) * N, 0);
  for (int I = 0; I < N; ++I)
    for (int P = Off[I]; P < Off[I + 1]; ++P)
      if (Ind[P] <= I)
        Lm[I + size_t(Ind[P]) * N] = Lc[P];
  Err = 0;
  for (int I = 0; I < N; ++I)
    for (int J = 0; J <= I; ++J) {
      double S = 0;
      for (int K = 0; K < N; ++K)
        S += Lm[I + size_t(K) * N] * Lm[J + size_t(K) * N];
      Err = std::max(Err, std::fabs(S - Dense[I + size_t(J) * N]));
    }
  if (!(Err < 1e-12)) {
    std::printf("FAIL csric02: |L L^T - A| = %g\n", Err);
    ++Bad;
  }
  // A zero pivot is reported (0-based position): row 0's diagonal is not
  // updated by the elimination, so zeroing it gives U(0,0) = 0.
  std::vector<double> Zero = Val;
  Zero[size_t(Off[0])] = 0;
  CHECK(cudaMemcpy(dVal, Zero.data(), Zero.size() * sizeof(double), cudaMemcpyHostToDevice));
  CSP(cusparseDcsrilu02(H, N, int(Val.size()), D, dVal, dOff, dInd, Info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, Buf));
  EXPECT(cusparseXcsrilu02_zeroPivot(H, Info, &Pivot) == CUSPARSE_STATUS_ZERO_PIVOT);
  EXPECT(Pivot == 0);
  cusparseDestroyCsrilu02Info(Info);
  cusparseDestroyCsric02Info(Ic);
  cusparseDestroyMatDescr(D);
  cudaFree(dOff), cudaFree(dInd), cudaFree(dVal), cudaFree(Buf);
}

/// Sparse vectors: SpVV (dot, conjugated dot), Axpby, Gather, Scatter, Rot.
static void sparseVectors() {
  using C = std::complex<double>;
  const int N = 20;
  std::vector<int> Ind{1, 4, 7, 19};
  std::vector<C> XV{{1, 2}, {3, -1}, {0.5, 0.5}, {-2, 1}}, Y(N);
  for (int I = 0; I < N; ++I)
    Y[I] = C(I, -I * 0.5);
  int *dI = dev(Ind);
  C *dX = dev(XV), *dY = dev(Y);
  cusparseSpVecDescr_t X;
  cusparseDnVecDescr_t Yd;
  CSP(cusparseCreateSpVec(&X, N, 4, dI, dX, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_C_64F));
  CSP(cusparseCreateDnVec(&Yd, N, dY, CUDA_C_64F));
  C Dot, DotC, WantDot = 0, WantDotC = 0;
  for (int K = 0; K < 4; ++K)
    WantDot += XV[K] * Y[Ind[K]], WantDotC += std::conj(XV[K]) * Y[Ind[K]];
  size_t Size;
  CSP(cusparseSpVV_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, X, Yd, &Dot, CUDA_C_64F, &Size));
  void *VvBuf;
  CHECK(cudaMalloc(&VvBuf, Size + 1));
  CSP(cusparseSpVV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, X, Yd, &Dot, CUDA_C_64F, VvBuf));
  CSP(cusparseSpVV(H, CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE, X, Yd, &DotC, CUDA_C_64F, VvBuf));
  EXPECT(std::abs(Dot - WantDot) < 1e-12 && std::abs(DotC - WantDotC) < 1e-12);
  // y = 2 x + 3 y
  const C A2(2), B3(3);
  CSP(cusparseAxpby(H, &A2, X, &B3, Yd));
  auto Got = host(dY, N);
  for (int I = 0; I < N; ++I) {
    C Want = B3 * Y[I];
    for (int K = 0; K < 4; ++K)
      if (Ind[K] == I)
        Want += A2 * XV[K];
    EXPECT(std::abs(Got[I] - Want) < 1e-12);
  }
  // Gather y's entries into x, then scatter x (doubled) back over a zero y.
  CSP(cusparseGather(H, Yd, X));
  auto Gx = host(dX, 4);
  for (int K = 0; K < 4; ++K)
    EXPECT(Gx[K] == Got[Ind[K]]);
  CHECK(cudaMemset(dY, 0, N * sizeof(C)));
  CSP(cusparseScatter(H, X, Yd));
  auto Sc = host(dY, N);
  for (int I = 0; I < N; ++I) {
    C Want = 0;
    for (int K = 0; K < 4; ++K)
      if (Ind[K] == I)
        Want = Gx[K];
    EXPECT(Sc[I] == Want);
  }
  // Rot with c, s on real vectors.
  std::vector<float> Xr{1, 2}, Yr{10, 20, 30};
  std::vector<int> Ir{0, 2};
  int *dIr = dev(Ir);
  float *dXr = dev(Xr), *dYr = dev(Yr);
  cusparseSpVecDescr_t Xs;
  cusparseDnVecDescr_t Ys;
  CSP(cusparseCreateSpVec(&Xs, 3, 2, dIr, dXr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CSP(cusparseCreateDnVec(&Ys, 3, dYr, CUDA_R_32F));
  const float Cc = 0.6f, Ss = 0.8f;
  CSP(cusparseRot(H, &Cc, &Ss, Xs, Ys));
  auto Xo = host(dXr, 2), Yo = host(dYr, 3);
  EXPECT(std::fabs(Xo[0] - (0.6f * 1 + 0.8f * 10)) < 1e-5 && std::fabs(Yo[0] - (0.6f * 10 - 0.8f * 1)) < 1e-5);
  EXPECT(std::fabs(Xo[1] - (0.6f * 2 + 0.8f * 30)) < 1e-5 && std::fabs(Yo[2] - (0.6f * 30 - 0.8f * 2)) < 1e-5);
  EXPECT(Yo[1] == 20);
  cusparseDestroySpVec(X), cusparseDestroySpVec(Xs), cusparseDestroyDnVec(Yd), cusparseDestroyDnVec(Ys);
  cudaFree(dI), cudaFree(dX), cudaFree(dY), cudaFree(dIr), cudaFree(dXr), cudaFree(dYr);
}

/// SpSM (lower, non-unit, A transposed, B row major) and SDDMM (CSR pattern).
static void spsmSddmm() {
  const int N = 25, R = 3;
  auto S = randomSparse<double>(N, N, 0.2, true);
  int *dOff = dev(S.Off), *dInd = dev(S.Ind);
  double *dVal = dev(S.Val);
  std::vector<double> Y(size_t(N) * R);
  for (auto &V : Y)
    V = rnd<double>();
  // B = op(A) Y / alpha with op = T and A's lower triangle, row major.
  const double Alpha = 0.5;
  std::vector<double> B(size_t(N) * R);
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < R; ++J) {
      double Sum = 0;
      for (int K = 0; K < N; ++K)
        if (I <= K) // (A^T)(I, K) = A(K, I), lower: I <= K
          Sum += S.Dense[K + size_t(I) * N] * Y[K + size_t(J) * N];
      B[size_t(I) * R + J] = Sum / Alpha;
    }
  double *dB = dev(B), *dC = dev(std::vector<double>(size_t(N) * R, NAN));
  cusparseSpMatDescr_t A;
  cusparseDnMatDescr_t Bd, Cd;
  CSP(cusparseCreateCsr(&A, N, N, S.Val.size(), dOff, dInd, dVal, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CSP(cusparseCreateDnMat(&Bd, N, R, R, dB, CUDA_R_64F, CUSPARSE_ORDER_ROW));
  CSP(cusparseCreateDnMat(&Cd, N, R, N, dC, CUDA_R_64F, CUSPARSE_ORDER_COL));
  cusparseSpSMDescr_t D;
  CSP(cusparseSpSM_createDescr(&D));
  size_t Size;
  const auto T = CUSPARSE_OPERATION_TRANSPOSE, Nop = CUSPARSE_OPERATION_NON_TRANSPOSE;
  CSP(cusparseSpSM_bufferSize(H, T, Nop, &Alpha, A, Bd, Cd, CUDA_R_64F, CUSPARSE_SPSM_ALG_DEFAULT, D, &Size));
  void *SmBuf;
  CHECK(cudaMalloc(&SmBuf, Size + 1));
  CSP(cusparseSpSM_analysis(H, T, Nop, &Alpha, A, Bd, Cd, CUDA_R_64F, CUSPARSE_SPSM_ALG_DEFAULT, D, SmBuf));
  CSP(cusparseSpSM_solve(H, T, Nop, &Alpha, A, Bd, Cd, CUDA_R_64F, CUSPARSE_SPSM_ALG_DEFAULT, D));
  near("SpSM", Y, host(dC, Y.size()));
  cusparseSpSM_destroyDescr(D);
  // SDDMM: C (A's pattern) = 2 (P Q) .* pattern + 0.5 C, P: N x 4, Q: 4 x N.
  const int K = 4;
  std::vector<double> P(size_t(N) * K), Q(size_t(K) * N);
  for (auto &V : P)
    V = rnd<double>();
  for (auto &V : Q)
    V = rnd<double>();
  double *dP = dev(P), *dQ = dev(Q);
  cusparseDnMatDescr_t Pd, Qd;
  CSP(cusparseCreateDnMat(&Pd, N, K, N, dP, CUDA_R_64F, CUSPARSE_ORDER_COL));
  CSP(cusparseCreateDnMat(&Qd, K, N, K, dQ, CUDA_R_64F, CUSPARSE_ORDER_COL));
  const double Two = 2, Half = 0.5;
  CSP(cusparseSDDMM_bufferSize(H, Nop, Nop, &Two, Pd, Qd, &Half, A, CUDA_R_64F, CUSPARSE_SDDMM_ALG_DEFAULT, &Size));
  void *DdBuf;
  CHECK(cudaMalloc(&DdBuf, Size + 1));
  CSP(cusparseSDDMM(H, Nop, Nop, &Two, Pd, Qd, &Half, A, CUDA_R_64F, CUSPARSE_SDDMM_ALG_DEFAULT, DdBuf));
  auto Got = host(dVal, S.Val.size());
  std::vector<double> Want(S.Val.size());
  for (int I = 0; I < N; ++I)
    for (int Pp = S.Off[I]; Pp < S.Off[I + 1]; ++Pp) {
      double Sum = 0;
      for (int L = 0; L < K; ++L)
        Sum += P[I + size_t(L) * N] * Q[L + size_t(S.Ind[Pp]) * K];
      Want[Pp] = 2 * Sum + 0.5 * S.Val[Pp];
    }
  near("SDDMM", Want, Got);
  cusparseDestroySpMat(A), cusparseDestroyDnMat(Bd), cusparseDestroyDnMat(Cd), cusparseDestroyDnMat(Pd),
      cusparseDestroyDnMat(Qd);
  cudaFree(dOff), cudaFree(dInd), cudaFree(dVal), cudaFree(dB), cudaFree(dC), cudaFree(dP), cudaFree(dQ);
}

int main() {
  CSP(cusparseCreate(&H));
  cudaStream_t S;
  CHECK(cudaStreamCreate(&S));
  CSP(cusparseSetStream(H, S));
  spmv<float>();
  spmv<double>();
  spmv<std::complex<float>>();
  spmv<std::complex<double>>();
  spmm<float>();
  spmm<std::complex<double>>();
  spsv<double>();
  spsv<std::complex<float>>();
  spgemm<float>();
  spgemm<double>();
  conversions();
  incomplete();
  sparseVectors();
  spsmSddmm();
  // Device pointer mode: alpha and beta read from device memory.
  {
    CSP(cusparseSetPointerMode(H, CUSPARSE_POINTER_MODE_DEVICE));
    std::vector<int> Off{0, 1, 2}, Ind{1, 0};
    std::vector<double> Val{2, 3}, X{5, 7}, Y{1, 1}, AB{10, 100};
    int *dO = dev(Off), *dI = dev(Ind);
    double *dV = dev(Val), *dX = dev(X), *dY = dev(Y), *dAB = dev(AB);
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t Vx, Vy;
    CSP(cusparseCreateCsr(&A, 2, 2, 2, dO, dI, dV, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                          CUDA_R_64F));
    CSP(cusparseCreateDnVec(&Vx, 2, dX, CUDA_R_64F));
    CSP(cusparseCreateDnVec(&Vy, 2, dY, CUDA_R_64F));
    size_t Size = 0;
    CSP(cusparseSpMV_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, dAB, A, Vx, dAB + 1, Vy, CUDA_R_64F,
                                CUSPARSE_SPMV_ALG_DEFAULT, &Size));
    void *Buf;
    CHECK(cudaMalloc(&Buf, Size + 1));
    CSP(cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, dAB, A, Vx, dAB + 1, Vy, CUDA_R_64F,
                     CUSPARSE_SPMV_ALG_DEFAULT, Buf));
    // A null buffer is refused, as NVIDIA's does.
    EXPECT(cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, dAB, A, Vx, dAB + 1, Vy, CUDA_R_64F,
                        CUSPARSE_SPMV_ALG_DEFAULT, nullptr) == CUSPARSE_STATUS_INVALID_VALUE);
    auto Got = host(dY, 2);
    EXPECT(Got[0] == 10 * 14 + 100 && Got[1] == 10 * 15 + 100);
    CSP(cusparseSetPointerMode(H, CUSPARSE_POINTER_MODE_HOST));
  }
  EXPECT(cusparseCreateDnVec(nullptr, 3, nullptr, CUDA_R_32F) == CUSPARSE_STATUS_INVALID_VALUE);
  if (onZluda()) { // a descriptor of another kind is refused (undefined on NVIDIA's)
    cusparseDnVecDescr_t V;
    CSP(cusparseCreateDnVec(&V, 3, nullptr, CUDA_R_32F));
    int64_t R, C, Nnz;
    EXPECT(cusparseSpMatGetSize(reinterpret_cast<cusparseSpMatDescr_t>(V), &R, &C, &Nnz) ==
           CUSPARSE_STATUS_INVALID_VALUE);
    CSP(cusparseDestroyDnVec(V));
    EXPECT(cusparseDestroyDnVec(V) == CUSPARSE_STATUS_INVALID_VALUE);
  }
  CSP(cusparseDestroy(H));
  if (onZluda()) // undefined on NVIDIA's
    EXPECT(cusparseDestroy(H) == CUSPARSE_STATUS_NOT_INITIALIZED);
  cudaStreamDestroy(S);
  return verdict("cusparse_generic", Bad);
}
