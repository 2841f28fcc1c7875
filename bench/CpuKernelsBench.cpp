//===- CpuKernelsBench.cpp - CPU device kernels beside OpenMP --------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Usage: cpu_kernels_bench [KERNELS.ptx]
/// Runs vector add (64M floats), SAXPY (64M), a 1024^2 tiled SGEMM with
/// barriers and a shuffle reduction (64M) on the CPU device, and the same
/// computations as plain OpenMP C++; prints a table with the ratio. Each
/// figure is the median of 5 runs after one warm-up run.
#include "cpu/Jit.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <omp.h>
#include <sstream>
#include <vector>

using namespace zluda;
using Clock = std::chrono::steady_clock;

namespace {

double median(const std::function<void()> &F) {
  F(); // warm-up (and, for the device, first-touch of the pages)
  std::vector<double> T;
  for (int I = 0; I < 5; ++I) {
    auto A = Clock::now();
    F();
    T.push_back(std::chrono::duration<double>(Clock::now() - A).count());
  }
  std::sort(T.begin(), T.end());
  return T[2];
}

struct Launcher {
  const cpu::CpuKernel *K;
  const char *Strategy = nullptr; ///< a block strategy to prefer (Executor.h)
  void run(cpu::Dim3 Grid, cpu::Dim3 Block, std::initializer_list<std::pair<const void *, size_t>> Args) {
    std::vector<uint8_t> Buf(std::max<uint32_t>(K->Info.ParamBufferSize, 8));
    size_t I = 0;
    for (auto [P, Size] : Args)
      std::memcpy(Buf.data() + K->Info.Params[I++].Offset, P, Size);
    cpu::LaunchParams LP;
    LP.Fn = K->Fn;
    LP.NeedsSwitching = K->Info.NeedsThreadSwitching;
    LP.BlockFn = K->BlockFn;
    LP.Regions = K->Regions.get();
    LP.Grid = Grid;
    LP.Block = Block;
    LP.StaticShared = K->Info.StaticSharedBytes;
    LP.Params = Buf.data();
    LP.Strategy = Strategy;
    auto R = cpu::Executor::get().launch(LP);
    if (R.Err != cpu::LaunchError::None) {
      std::fprintf(stderr, "launch failed: %s\n", R.Message.c_str());
      std::exit(1);
    }
  }
};

template <typename T> std::pair<const void *, size_t> arg(const T &V) { return {&V, sizeof(T)}; }

void row(const char *Name, const char *Unit, double Work, double Dev, double Omp) {
  std::printf("| %s | %.1f | %.1f | %.2fx |\n", Name, Work / Dev, Work / Omp, Omp / Dev);
  (void)Unit;
}

} // namespace

int main(int Argc, char **Argv) {
  std::string Path = Argc > 1 ? Argv[1] : ZLUDA_BENCH_PTX;
  std::ifstream In(Path);
  if (!In) {
    std::fprintf(stderr, "cpu_kernels_bench: cannot read %s (build needs nvcc)\n", Path.c_str());
    return 2;
  }
  std::stringstream SS;
  SS << In.rdbuf();
  auto C = cpu::compilePtx(SS.str());
  if (!C.Mod) {
    std::fprintf(stderr, "%s\n", C.Error.c_str());
    return 1;
  }
  std::printf("CPU device: %u workers; OpenMP: %d threads\n\n", cpu::Executor::get().workers(), omp_get_max_threads());
  std::printf("| kernel | CPU device | OpenMP | device / OpenMP |\n|---|---|---|---|\n");
  const int N = 64 << 20;
  std::function<void()> StrategyRows;
  std::vector<float> A(N), B(N), Cv(N);
  for (int I = 0; I < N; ++I) {
    A[I] = float(I % 1000) * 0.001f;
    B[I] = float(I % 777) * 0.002f;
  }
  float *Ap = A.data(), *Bp = B.data(), *Cp = Cv.data();
  {
    Launcher L{C.Mod->kernel("vecAdd")};
    double Dev = median([&] { L.run({uint32_t((N + 255) / 256)}, {256}, {arg(Ap), arg(Bp), arg(Cp), arg(N)}); });
    double Omp = median([&] {
#pragma omp parallel for
      for (int I = 0; I < N; ++I)
        Cp[I] = Ap[I] + Bp[I];
    });
    row("vector add, 64M floats (GB/s)", "GB/s", 3.0 * 4 * N / 1e9, Dev, Omp);
  }
  {
    Launcher L{C.Mod->kernel("saxpy")};
    float Alpha = 1.5f;
    double Dev = median([&] { L.run({uint32_t((N + 255) / 256)}, {256}, {arg(Alpha), arg(Ap), arg(Cp), arg(N)}); });
    double Omp = median([&] {
#pragma omp parallel for
      for (int I = 0; I < N; ++I)
        Cp[I] = Alpha * Ap[I] + Cp[I];
    });
    row("SAXPY, 64M floats (GB/s)", "GB/s", 3.0 * 4 * N / 1e9, Dev, Omp);
  }
  {
    const int M = 1024;
    std::vector<float> X(M * M), Y(M * M), Z(M * M), Zr(M * M);
    for (int I = 0; I < M * M; ++I) {
      X[I] = float(I % 17) * 0.1f;
      Y[I] = float(I % 13) * 0.2f;
    }
    float *Xp = X.data(), *Yp = Y.data(), *Zp = Z.data(), *Zrp = Zr.data();
    Launcher L{C.Mod->kernel("sgemm")};
    double Dev = median([&] { L.run({M / 16, M / 16}, {16, 16}, {arg(Xp), arg(Yp), arg(Zp), arg(M)}); });
    double Omp = median([&] {
#pragma omp parallel for
      for (int I = 0; I < M; ++I) {
        float *Row = Zrp + I * M;
        std::fill(Row, Row + M, 0.0f);
        for (int K = 0; K < M; ++K) {
          float Aik = Xp[I * M + K];
          for (int J = 0; J < M; ++J)
            Row[J] += Aik * Yp[K * M + J];
        }
      }
    });
    double MaxErr = 0;
    for (int I = 0; I < M * M; I += 997)
      MaxErr = std::max(MaxErr, double(std::fabs(Z[I] - Zr[I]) / std::max(1.0f, std::fabs(Zr[I]))));
    row("SGEMM 1024^2, tiled + barriers (GFLOP/s)", "GFLOP/s", 2.0 * M * M * M / 1e9, Dev, Omp);
    if (MaxErr > 1e-3)
      std::fprintf(stderr, "SGEMM results differ (relative %g)\n", MaxErr);
  }
  {
    Launcher L{C.Mod->kernel("reduceSum")};
    float Out = 0;
    float *Op = &Out;
    double Dev = median([&] {
      Out = 0;
      L.run({1024}, {256}, {arg(Ap), arg(Op), arg(N)});
    });
    double Sum = 0;
    double Omp = median([&] {
      double S = 0;
#pragma omp parallel for reduction(+ : S)
      for (int I = 0; I < N; ++I)
        S += Ap[I];
      Sum = S;
    });
    row("reduction with shuffles, 64M floats (GB/s)", "GB/s", 4.0 * N / 1e9, Dev, Omp);
    StrategyRows = [&, C = C.Mod.get()] {
      // The executor's block strategies on one streaming kernel: what a
      // thread costs when it runs as a fiber.
      std::printf("\n| vector add, 64M floats, by block strategy | GB/s |\n|---|---|\n");
      for (const char *S : {"loop", "sequential", "fibers"}) {
        Launcher V{C->kernel("vecAdd"), S};
        double T = median([&] { V.run({uint32_t((N + 255) / 256)}, {256}, {arg(Ap), arg(Bp), arg(Cp), arg(N)}); });
        std::printf("| %s | %.1f |\n", S, 3.0 * 4 * N / 1e9 / T);
      }
    };
    if (std::fabs(Out - Sum) > 1e-3 * Sum)
      std::fprintf(stderr, "reduction results differ: %f vs %f\n", Out, Sum);
  }
  StrategyRows();
  return 0;
}
