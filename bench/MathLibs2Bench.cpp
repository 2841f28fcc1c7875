//===- MathLibs2Bench.cpp - cuFFT, cuSOLVER, cuRAND, cuSPARSE figures ------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Prints a table of our part-2 math libraries on the CPU device
/// (device memory, stream-ordered work, synchronized) beside the library
/// they stand on called directly on host memory in the same run: FFTW for
/// cuFFT, LAPACK (OpenBLAS's) for cuSOLVER; NVIDIA's own host generator for
/// cuRAND (dlopen from the toolkit, where installed); a plain CSR loop for
/// cuSPARSE's SpMV. Best of 5 repetitions each. Usage: math_libs_bench [--quick]
#include "zluda/cublas_abi.h"
#include "zluda/cuda_abi.h"
#include "zluda/cufft_abi.h"
#include "zluda/curand_abi.h"
#include "zluda/cusolver_abi.h"
#include "zluda/cusparse_abi.h"

#include <fftw3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <random>
#include <vector>

extern "C" {
CUresult cuInit(unsigned);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuCtxSynchronize();
cufftResult cufftPlan1d(cufftHandle *, int, cufftType, int);
cufftResult cufftPlan2d(cufftHandle *, int, int, cufftType);
cufftResult cufftExecC2C(cufftHandle, void *, void *, int);
cufftResult cufftExecD2Z(cufftHandle, void *, void *);
cufftResult cufftDestroy(cufftHandle);
cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *);
cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t);
cusolverStatus_t cusolverDnDgetrf(cusolverDnHandle_t, int, int, double *, int, double *, int *, int *);
cusolverStatus_t cusolverDnDpotrf(cusolverDnHandle_t, cublasFillMode_t, int, double *, int, double *, int, int *);
cusolverStatus_t cusolverDnDsyevd(cusolverDnHandle_t, cusolverEigMode_t, cublasFillMode_t, int, double *, int,
                                  double *, double *, int, int *);
curandStatus_t curandCreateGenerator(curandGenerator_t *, curandRngType_t);
curandStatus_t curandCreateGeneratorHost(curandGenerator_t *, curandRngType_t);
curandStatus_t curandDestroyGenerator(curandGenerator_t);
curandStatus_t curandGenerateUniform(curandGenerator_t, float *, size_t);
curandStatus_t curandGenerateNormal(curandGenerator_t, float *, size_t, float, float);
cusparseStatus_t cusparseCreate(cusparseHandle_t *);
cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t *, int64_t, int64_t, int64_t, void *, void *, void *,
                                   cusparseIndexType_t, cusparseIndexType_t, cusparseIndexBase_t, cudaDataType);
cusparseStatus_t cusparseCreateDnVec(cusparseDnVecDescr_t *, int64_t, void *, cudaDataType);
cusparseStatus_t cusparseSpMV(cusparseHandle_t, cusparseOperation_t, const void *, const void *, const void *,
                              const void *, void *, cudaDataType, int, void *);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void dpotrf_(const char *, const int *, double *, const int *, int *);
void dsyevd_(const char *, const char *, const int *, double *, const int *, double *, double *, const int *, int *,
             const int *, int *);
}

namespace {

double best(const std::function<void()> &F, int Reps = 5) {
  F(); // warm-up (plans, lane states)
  double Best = 1e30;
  for (int I = 0; I < Reps; ++I) {
    auto T0 = std::chrono::steady_clock::now();
    F();
    Best = std::min(Best, std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count());
  }
  return Best;
}

template <typename T> T *devAlloc(size_t N) {
  CUdeviceptr P;
  cuMemAlloc_v2(&P, N * sizeof(T) + 64);
  return reinterpret_cast<T *>(P);
}

/// One line of the table; the last column is ours relative to the reference (>1: ours is faster).
void row(const char *Op, const char *Unit, double Ours, double Ref, const char *RefName) {
  const bool Time = !std::strcmp(Unit, "ms");
  std::printf("| %-44s | %-8s | %10.2f | %10.2f | %-22s | %5.2f |\n", Op, Unit, Ours, Ref, RefName,
              Time ? Ref / Ours : Ours / Ref);
}

/// The matrix every factorization starts from: symmetric positive definite.
std::vector<double> spd(int N) {
  std::mt19937 R(1);
  std::uniform_real_distribution<double> U(-1, 1);
  std::vector<double> A(size_t(N) * N);
  for (int I = 0; I < N; ++I)
    for (int J = 0; J <= I; ++J)
      A[I + size_t(J) * N] = A[J + size_t(I) * N] = U(R) + (I == J ? N : 0);
  return A;
}

} // namespace

int main(int Argc, char **Argv) {
  const bool Quick = Argc > 1 && !std::strcmp(Argv[1], "--quick");
  CUcontext Ctx;
  if (cuInit(0) || cuDevicePrimaryCtxRetain(&Ctx, 0) || cuCtxSetCurrent(Ctx)) {
    std::printf("no device\n");
    return 1;
  }
  std::printf("| operation | unit | ours | reference | reference is | speed ours/ref |\n|---|---|---|---|---|---|\n");

  // cuFFT against FFTW (FFTW_ESTIMATE plans on both sides).
  for (int LogN : {Quick ? 16 : 20, 10}) {
    const int N = 1 << LogN, Batch = LogN == 10 ? (Quick ? 256 : 4096) : 1;
    const size_t Total = size_t(N) * Batch;
    auto *D = devAlloc<std::complex<float>>(Total);
    std::vector<std::complex<float>> H(Total, {1.0f, 0.5f});
    cuMemcpyHtoD_v2(reinterpret_cast<CUdeviceptr>(D), H.data(), Total * sizeof(H[0]));
    cufftHandle P;
    if (cufftResult R = cufftPlan1d(&P, N, CUFFT_C2C, Batch))
      std::printf("cufftPlan1d: %d\n", int(R));
    double Tours = best([&] {
      if (cufftResult R = cufftExecC2C(P, D, D, ZLUDA_CUFFT_FORWARD))
        std::printf("cufftExecC2C: %d\n", int(R));
      cuCtxSynchronize();
    });
    int Nn[1] = {N};
    fftwf_plan F = fftwf_plan_many_dft(1, Nn, Batch, reinterpret_cast<fftwf_complex *>(H.data()), nullptr, 1, N,
                                       reinterpret_cast<fftwf_complex *>(H.data()), nullptr, 1, N, FFTW_FORWARD,
                                       FFTW_ESTIMATE);
    double Tref = best([&] { fftwf_execute(F); });
    const double Flops = 5.0 * N * LogN * Batch;
    char Name[96];
    std::snprintf(Name, sizeof Name, "cufftExecC2C n=2^%d batch %d (in place)", LogN, Batch);
    row(Name, "GFLOP/s", Flops / Tours * 1e-9, Flops / Tref * 1e-9, "FFTW fftwf_execute");
    fftwf_destroy_plan(F);
    cufftDestroy(P);
    cuMemFree_v2(reinterpret_cast<CUdeviceptr>(D));
  }
  {
    const int N = Quick ? 256 : 1024;
    auto *In = devAlloc<double>(size_t(N) * N);
    auto *Out = devAlloc<std::complex<double>>(size_t(N) * (N / 2 + 1));
    std::vector<double> H(size_t(N) * N, 0.25);
    std::vector<std::complex<double>> HO(size_t(N) * (N / 2 + 1));
    cuMemcpyHtoD_v2(reinterpret_cast<CUdeviceptr>(In), H.data(), H.size() * sizeof(double));
    cufftHandle P;
    cufftPlan2d(&P, N, N, CUFFT_D2Z);
    double Tours = best([&] {
      cufftExecD2Z(P, In, Out);
      cuCtxSynchronize();
    });
    fftw_plan F = fftw_plan_dft_r2c_2d(N, N, H.data(), reinterpret_cast<fftw_complex *>(HO.data()), FFTW_ESTIMATE);
    double Tref = best([&] { fftw_execute(F); });
    const double Flops = 2.5 * N * N * std::log2(double(N) * N);
    char Name[96];
    std::snprintf(Name, sizeof Name, "cufftExecD2Z %dx%d", N, N);
    row(Name, "GFLOP/s", Flops / Tours * 1e-9, Flops / Tref * 1e-9, "FFTW fftw_execute");
    fftw_destroy_plan(F);
    cufftDestroy(P);
  }

  // cuSOLVER against LAPACK.
  {
    cusolverDnHandle_t S;
    cusolverDnCreate(&S);
    const int N = Quick ? 256 : 1024;
    const auto A0 = spd(N);
    auto *D = devAlloc<double>(A0.size());
    auto *Piv = devAlloc<int>(N);
    auto *Info = devAlloc<int>(1);
    auto *W = devAlloc<double>(N);
    std::vector<double> H(A0.size());
    std::vector<int> HP(N);
    auto Reset = [&] { cuMemcpyHtoD_v2(reinterpret_cast<CUdeviceptr>(D), A0.data(), A0.size() * sizeof(double)); };
    int I = 0;
    char Name[96];
    // The copy of the input is inside both timings.
    double T1 = best([&] {
      Reset();
      cusolverDnDgetrf(S, N, N, D, N, nullptr, Piv, Info);
      cuCtxSynchronize();
    });
    double T2 = best([&] {
      H = A0;
      dgetrf_(&N, &N, H.data(), &N, HP.data(), &I);
    });
    std::snprintf(Name, sizeof Name, "cusolverDnDgetrf %d", N);
    const double LuFlops = 2.0 / 3.0 * double(N) * N * N;
    row(Name, "GFLOP/s", LuFlops / T1 * 1e-9, LuFlops / T2 * 1e-9, "LAPACK dgetrf_");
    T1 = best([&] {
      Reset();
      cusolverDnDpotrf(S, CUBLAS_FILL_MODE_LOWER, N, D, N, nullptr, 0, Info);
      cuCtxSynchronize();
    });
    T2 = best([&] {
      H = A0;
      char L = 'L';
      dpotrf_(&L, &N, H.data(), &N, &I);
    });
    std::snprintf(Name, sizeof Name, "cusolverDnDpotrf %d", N);
    row(Name, "GFLOP/s", LuFlops / 2 / T1 * 1e-9, LuFlops / 2 / T2 * 1e-9, "LAPACK dpotrf_");
    const int E = N / 2;
    T1 = best(
        [&] {
          Reset();
          cusolverDnDsyevd(S, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, E, D, N, W, nullptr, 0, Info);
          cuCtxSynchronize();
        },
        3);
    std::vector<double> Wh(E);
    T2 = best(
        [&] {
          H = A0;
          char V = 'V', L = 'L';
          double Wq;
          int Iq, Lw = -1, Liw = -1;
          dsyevd_(&V, &L, &E, H.data(), &N, Wh.data(), &Wq, &Lw, &Iq, &Liw, &I);
          Lw = int(Wq), Liw = Iq;
          std::vector<double> Wk(static_cast<size_t>(Lw));
          std::vector<int> Iw(static_cast<size_t>(Liw));
          dsyevd_(&V, &L, &E, H.data(), &N, Wh.data(), Wk.data(), &Lw, Iw.data(), &Liw, &I);
        },
        3);
    std::snprintf(Name, sizeof Name, "cusolverDnDsyevd %d (vectors)", E);
    row(Name, "ms", T1 * 1e3, T2 * 1e3, "LAPACK dsyevd_");
    cusolverDnDestroy(S);
  }

  // cuRAND against NVIDIA's host generator.
  {
    using Create = curandStatus_t (*)(curandGenerator_t *, curandRngType_t);
    using Gen = curandStatus_t (*)(curandGenerator_t, float *, size_t);
    using GenN = curandStatus_t (*)(curandGenerator_t, float *, size_t, float, float);
    void *Nv = dlopen("/usr/local/cuda/lib64/libcurand.so.10", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    const size_t N = Quick ? (1u << 20) : (1u << 24);
    auto *D = devAlloc<float>(N);
    std::vector<float> H(N);
    for (auto [Type, Label] : {std::pair{CURAND_RNG_PSEUDO_XORWOW, "XORWOW"}, {CURAND_RNG_PSEUDO_MRG32K3A, "MRG32k3a"},
                               {CURAND_RNG_PSEUDO_PHILOX4_32_10, "Philox4x32-10"}, {CURAND_RNG_PSEUDO_MT19937, "MT19937"}})
      for (bool Normal : {false, true}) {
        curandGenerator_t G;
        curandCreateGenerator(&G, Type);
        double T1 = best([&] {
          Normal ? curandGenerateNormal(G, D, N, 0, 1) : curandGenerateUniform(G, D, N);
          cuCtxSynchronize();
        });
        curandDestroyGenerator(G);
        double T2 = NAN;
        if (Nv) {
          auto C = reinterpret_cast<Create>(dlsym(Nv, "curandCreateGeneratorHost"));
          auto U = reinterpret_cast<Gen>(dlsym(Nv, "curandGenerateUniform"));
          auto No = reinterpret_cast<GenN>(dlsym(Nv, "curandGenerateNormal"));
          curandGenerator_t R;
          C(&R, Type);
          T2 = best([&] { Normal ? No(R, H.data(), N, 0, 1) : U(R, H.data(), N); });
        }
        char Name[96];
        std::snprintf(Name, sizeof Name, "curandGenerate%s %s, %zu M values", Normal ? "Normal" : "Uniform", Label,
                      N >> 20);
        row(Name, "Gval/s", N / T1 * 1e-9, N / T2 * 1e-9, "NVIDIA's host generator");
      }
    // MT19937's seeding (its 8,192 generators' states): a new generator's first full row of values.
    {
      curandGenerator_t G;
      auto T0 = std::chrono::steady_clock::now();
      curandCreateGenerator(&G, CURAND_RNG_PSEUDO_MT19937);
      curandGenerateUniform(G, D, 65536);
      cuCtxSynchronize();
      double T1 = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
      curandDestroyGenerator(G);
      double T2 = NAN;
      if (Nv) {
        auto C = reinterpret_cast<Create>(dlsym(Nv, "curandCreateGeneratorHost"));
        auto U = reinterpret_cast<Gen>(dlsym(Nv, "curandGenerateUniform"));
        curandGenerator_t R;
        T0 = std::chrono::steady_clock::now();
        C(&R, CURAND_RNG_PSEUDO_MT19937);
        U(R, H.data(), 65536);
        T2 = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
      }
      row("MT19937 seeding and its first 65,536 values", "ms", T1 * 1e3, T2 * 1e3, "NVIDIA's host generator");
    }
  }

  // cuSPARSE SpMV against a plain CSR loop.
  {
    const int M = Quick ? 100000 : 1000000, PerRow = 16;
    std::vector<int> Off(M + 1), Ind(size_t(M) * PerRow);
    std::vector<double> Val(Ind.size(), 0.5), X(M, 1.0), Y(M, 0.0);
    std::mt19937 R(2);
    for (int I = 0; I <= M; ++I)
      Off[I] = I * PerRow;
    for (auto &C : Ind)
      C = int(R() % M);
    for (int I = 0; I < M; ++I)
      std::sort(Ind.begin() + Off[I], Ind.begin() + Off[I + 1]);
    auto *dO = devAlloc<int>(Off.size());
    auto *dI = devAlloc<int>(Ind.size());
    auto *dV = devAlloc<double>(Val.size());
    auto *dX = devAlloc<double>(M);
    auto *dY = devAlloc<double>(M);
    cuMemcpyHtoD_v2(reinterpret_cast<CUdeviceptr>(dO), Off.data(), Off.size() * 4);
    cuMemcpyHtoD_v2(reinterpret_cast<CUdeviceptr>(dI), Ind.data(), Ind.size() * 4);
    cuMemcpyHtoD_v2(reinterpret_cast<CUdeviceptr>(dV), Val.data(), Val.size() * 8);
    cuMemcpyHtoD_v2(reinterpret_cast<CUdeviceptr>(dX), X.data(), X.size() * 8);
    cusparseHandle_t H;
    cusparseCreate(&H);
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t Vx, Vy;
    cusparseCreateCsr(&A, M, M, Ind.size(), dO, dI, dV, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                      CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
    cusparseCreateDnVec(&Vx, M, dX, CUDA_R_64F);
    cusparseCreateDnVec(&Vy, M, dY, CUDA_R_64F);
    const double One = 1, Zero = 0;
    auto *Buf = devAlloc<char>(64); // (SpMV takes a buffer of its buffer size; ours needs none)
    double T1 = best([&] {
      cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, A, Vx, &Zero, Vy, CUDA_R_64F, 0, Buf);
      cuCtxSynchronize();
    });
    double T2 = best([&] {
      for (int I = 0; I < M; ++I) {
        double S = 0;
        for (int K = Off[I]; K < Off[I + 1]; ++K)
          S += Val[K] * X[Ind[K]];
        Y[I] = S;
      }
    });
    const double Flops = 2.0 * Ind.size();
    char Name[96];
    std::snprintf(Name, sizeof Name, "cusparseSpMV CSR %d rows x %d nnz (f64)", M, PerRow);
    row(Name, "GFLOP/s", Flops / T1 * 1e-9, Flops / T2 * 1e-9, "a plain CSR loop");
  }
  return 0;
}
