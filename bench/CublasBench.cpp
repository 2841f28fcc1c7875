//===- CublasBench.cpp - our libcublas beside OpenBLAS called directly -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Prints a table: GEMM through our libcublas on the CPU device (device
/// memory, a cuBLAS handle, stream-ordered work, synchronized) against the
/// same GEMM through OpenBLAS's cblas_?gemm on host memory, in the same run;
/// then batched small SGEMMs against an OpenMP loop of OpenBLAS calls. Best
/// of 5 repetitions each. Usage: cublas_bench [--quick]
#include "zluda/cublas_abi.h"
#include "zluda/cuda_abi.h"

#include <cblas.h>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

extern "C" {
CUresult cuInit(unsigned);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuCtxSynchronize();
cublasStatus_t cublasCreate_v2(cublasHandle_t *);
cublasStatus_t cublasDestroy_v2(cublasHandle_t);
cublasStatus_t cublasSgemm_v2(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const float *,
                              const float *, int, const float *, int, const float *, float *, int);
cublasStatus_t cublasDgemm_v2(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const double *,
                              const double *, int, const double *, int, const double *, double *, int);
cublasStatus_t cublasGemmEx(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void *,
                            const void *, cudaDataType, int, const void *, cudaDataType, int, const void *, void *,
                            cudaDataType, int, int, int);
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                         const float *, const float *, int, long long, const float *, int, long long,
                                         const float *, float *, int, long long, int);
}

namespace {

double best(const std::function<void()> &F, int Reps = 5) {
  F(); // warm-up
  double Best = 1e30;
  for (int I = 0; I < Reps; ++I) {
    auto T0 = std::chrono::steady_clock::now();
    F();
    Best = std::min(Best, std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count());
  }
  return Best;
}

template <typename T> CUdeviceptr upload(const std::vector<T> &V) {
  CUdeviceptr P;
  cuMemAlloc_v2(&P, V.size() * sizeof(T));
  cuMemcpyHtoD_v2(P, V.data(), V.size() * sizeof(T));
  return P;
}

} // namespace

int main(int Argc, char **Argv) {
  bool Quick = Argc > 1 && !std::strcmp(Argv[1], "--quick");
  cuInit(0);
  cublasHandle_t H;
  if (cublasCreate_v2(&H)) {
    std::fprintf(stderr, "cublasCreate failed\n");
    return 1;
  }
  std::mt19937 Rng(7);
  std::printf("| routine | size | ours (GFLOP/s) | OpenBLAS direct (GFLOP/s) | ours / OpenBLAS |\n|---|---|---|---|---|\n");
  for (int N : Quick ? std::vector<int>{256} : std::vector<int>{1024, 4096}) {
    size_t E = size_t(N) * N;
    double Flops = 2.0 * N * N * double(N);
    std::vector<float> A(E), B(E), C(E);
    for (auto &V : A)
      V = std::uniform_real_distribution<float>(-1, 1)(Rng);
    for (auto &V : B)
      V = std::uniform_real_distribution<float>(-1, 1)(Rng);
    CUdeviceptr DA = upload(A), DB = upload(B), DC = upload(C);
    float One = 1, Zero = 0;
    int Reps = N >= 4096 ? 2 : 5;
    double Ours = best([&] {
      cublasSgemm_v2(H, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &One, reinterpret_cast<float *>(DA), N,
                     reinterpret_cast<float *>(DB), N, &Zero, reinterpret_cast<float *>(DC), N);
      cuCtxSynchronize();
    }, Reps);
    double Ref = best([&] {
      cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1, A.data(), N, B.data(), N, 0, C.data(), N);
    }, Reps);
    std::printf("| SGEMM | %d^2 | %.1f | %.1f | %.2fx |\n", N, Flops / Ours / 1e9, Flops / Ref / 1e9, Ref / Ours);
    double SRef = Ref;
    std::vector<double> Ad(A.begin(), A.end()), Bd(B.begin(), B.end()), Cd(E);
    CUdeviceptr DAd = upload(Ad), DBd = upload(Bd), DCd = upload(Cd);
    double OneD = 1, ZeroD = 0;
    Ours = best([&] {
      cublasDgemm_v2(H, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &OneD, reinterpret_cast<double *>(DAd), N,
                     reinterpret_cast<double *>(DBd), N, &ZeroD, reinterpret_cast<double *>(DCd), N);
      cuCtxSynchronize();
    }, Reps);
    Ref = best([&] {
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1, Ad.data(), N, Bd.data(), N, 0, Cd.data(), N);
    }, Reps);
    std::printf("| DGEMM | %d^2 | %.1f | %.1f | %.2fx |\n", N, Flops / Ours / 1e9, Flops / Ref / 1e9, Ref / Ours);
    // Half in and out, f32 compute: against OpenBLAS's SGEMM on the same data (what it would take
    // a program to do without half support).
    {
      std::vector<uint16_t> Ah(E, 0x3c00), Bh(E, 0x3800), Ch(E);
      CUdeviceptr DAh = upload(Ah), DBh = upload(Bh), DCh = upload(Ch);
      Ours = best([&] {
        cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &One, reinterpret_cast<void *>(DAh), CUDA_R_16F, N,
                     reinterpret_cast<void *>(DBh), CUDA_R_16F, N, &Zero, reinterpret_cast<void *>(DCh), CUDA_R_16F,
                     N, CUBLAS_COMPUTE_32F, 0);
        cuCtxSynchronize();
      }, Reps);
      std::printf("| HGEMM (GemmEx f16, f32 compute) | %d^2 | %.1f | %.1f (its SGEMM) | %.2fx |\n", N,
                  Flops / Ours / 1e9, Flops / SRef / 1e9, SRef / Ours);
      cuMemFree_v2(DAh);
      cuMemFree_v2(DBh);
      cuMemFree_v2(DCh);
    }
    for (CUdeviceptr P : {DA, DB, DC, DAd, DBd, DCd})
      cuMemFree_v2(P);
  }
  // Batched small GEMMs: one strided-batched call against an OpenMP loop of OpenBLAS calls.
  for (int N : {16, 64}) {
    int Count = Quick ? 64 : 4096;
    size_t E = size_t(N) * N * Count;
    std::vector<float> A(E, 0.5f), B(E, 0.25f), C(E);
    CUdeviceptr DA = upload(A), DB = upload(B), DC = upload(C);
    float One = 1, Zero = 0;
    double Flops = 2.0 * N * N * double(N) * Count;
    double Ours = best([&] {
      cublasSgemmStridedBatched(H, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &One, reinterpret_cast<float *>(DA), N,
                                (long long)N * N, reinterpret_cast<float *>(DB), N, (long long)N * N, &Zero,
                                reinterpret_cast<float *>(DC), N, (long long)N * N, Count);
      cuCtxSynchronize();
    }, 50); // a fraction of a millisecond each: the best of many runs (both sides alike)
    double Ref = best([&] {
      int Threads = openblas_get_num_threads();
      openblas_set_num_threads(1);
#pragma omp parallel for
      for (int I = 0; I < Count; ++I)
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1, A.data() + size_t(I) * N * N, N,
                    B.data() + size_t(I) * N * N, N, 0, C.data() + size_t(I) * N * N, N);
      openblas_set_num_threads(Threads);
    }, 50);
    std::printf("| SGEMM strided batched, %d of %d^2 | - | %.2f | %.2f (OpenMP loop) | %.2fx |\n", Count, N,
                Flops / Ours / 1e9, Flops / Ref / 1e9, Ref / Ours);
    for (CUdeviceptr P : {DA, DB, DC})
      cuMemFree_v2(P);
  }
  cublasDestroy_v2(H);
  return 0;
}
