//===- CpuKernelsBench.cpp - CPU device kernels beside PoCL and OpenMP -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Usage: cpu_kernels_bench [--reps N] [--only TEXT] [--sass [KERNELS.cubin]] [KERNELS.ptx]
/// Each kernel three ways in one run: CUDA (bench/kernels.cu, PTX from nvcc;
/// with --sass the same file as sm_86 machine code through the SASS front end)
/// on the CPU device, the same kernel in OpenCL C on PoCL (Debian's
/// pocl-opencl-icd, through the OpenCL ICD loader; the column is "-" when no
/// OpenCL platform is found), and plain C++ with OpenMP. Repetitions are
/// interleaved (device, PoCL, OpenMP, device, ...) after one warm-up of each,
/// every result is checked against a reference computed here, and the table
/// gives the median and the best run of each and the ratios of the medians.
/// The machine's load average is printed before and after.
#include "cpu/Jit.h"
#include "sass/Lift.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <omp.h>
#include <unistd.h>
#include <sstream>
#include <vector>

#ifdef ZLUDA_BENCH_OPENCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#endif

using namespace zluda;
using Clock = std::chrono::steady_clock;

namespace {

int Reps = 7;
const char *Only = nullptr; ///< --only TEXT: the rows whose name contains it
bool Failed = false;

void check(bool Ok, const char *What) {
  if (!Ok) {
    std::fprintf(stderr, "wrong result: %s\n", What);
    Failed = true;
  }
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

// --- PoCL through OpenCL ------------------------------------------------------------

const char *OpenClSource = R"CL(
__kernel void vecAdd(__global const float *a, __global const float *b, __global float *c, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
__kernel void saxpy(float a, __global const float *x, __global float *y, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}
#define TILE 16
__kernel void sgemm(__global const float *A, __global const float *B, __global float *C, int N) {
  __local float As[TILE][TILE], Bs[TILE][TILE];
  int tx = get_local_id(0), ty = get_local_id(1);
  int row = get_group_id(1) * TILE + ty, col = get_group_id(0) * TILE + tx;
  float acc = 0;
  for (int t = 0; t < N / TILE; ++t) {
    As[ty][tx] = A[row * N + t * TILE + tx];
    Bs[ty][tx] = B[(t * TILE + ty) * N + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  C[row * N + col] = acc;
}
__kernel void reduceTree(__global const float *in, __global float *partial, int n) {
  __local float s[256];
  unsigned t = get_local_id(0), i = get_global_id(0);
  s[t] = i < n ? in[i] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (unsigned o = get_local_size(0) / 2; o > 0; o >>= 1) {
    if (t < o) s[t] += s[t + o];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) partial[get_group_id(0)] = s[0];
}
__kernel void stencil5(__global const float *in, __global float *out, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x > 0 && y > 0 && x < w - 1 && y < h - 1)
    out[y * w + x] = 0.5f * in[y * w + x] +
                     0.125f * (in[y * w + x - 1] + in[y * w + x + 1] + in[(y - 1) * w + x] + in[(y + 1) * w + x]);
}
__kernel void histogram(__global const uchar *in, __global uint *bins, int n) {
  __local uint h[256];
  h[get_local_id(0)] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = get_global_id(0); i < n; i += get_global_size(0)) atomic_inc(&h[in[i]]);
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_add(&bins[get_local_id(0)], h[get_local_id(0)]);
}
__kernel void empty() {}
)CL";

#ifdef ZLUDA_BENCH_OPENCL
struct Pocl {
  cl_context Ctx = nullptr;
  cl_command_queue Q = nullptr;
  cl_program Prog = nullptr;
  std::string Name;
  bool init() {
    cl_uint N = 0;
    if (clGetPlatformIDs(0, nullptr, &N) != CL_SUCCESS || N == 0)
      return false;
    std::vector<cl_platform_id> Ps(N);
    clGetPlatformIDs(N, Ps.data(), nullptr);
    for (cl_platform_id P : Ps) {
      char Buf[256] = {};
      clGetPlatformInfo(P, CL_PLATFORM_NAME, sizeof(Buf) - 1, Buf, nullptr);
      if (!std::strstr(Buf, "Portable Computing Language"))
        continue;
      cl_device_id D;
      if (clGetDeviceIDs(P, CL_DEVICE_TYPE_CPU, 1, &D, nullptr) != CL_SUCCESS)
        continue;
      char Ver[256] = {};
      clGetPlatformInfo(P, CL_PLATFORM_VERSION, sizeof(Ver) - 1, Ver, nullptr);
      Name = Ver;
      cl_int E;
      Ctx = clCreateContext(nullptr, 1, &D, nullptr, nullptr, &E);
      Q = clCreateCommandQueue(Ctx, D, 0, &E);
      const char *Src = OpenClSource;
      Prog = clCreateProgramWithSource(Ctx, 1, &Src, nullptr, &E);
      if (clBuildProgram(Prog, 1, &D, "-cl-std=CL1.2", nullptr, nullptr) != CL_SUCCESS) {
        char Log[8192] = {};
        clGetProgramBuildInfo(Prog, D, CL_PROGRAM_BUILD_LOG, sizeof(Log) - 1, Log, nullptr);
        std::fprintf(stderr, "PoCL build failed:\n%s\n", Log);
        return false;
      }
      return true;
    }
    return false;
  }
  /// A buffer over host memory (PoCL's CPU device uses it in place).
  cl_mem buffer(void *P, size_t Bytes) {
    cl_int E;
    return clCreateBuffer(Ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, Bytes, P, &E);
  }
  cl_kernel kernel(const char *N) {
    cl_int E;
    return clCreateKernel(Prog, N, &E);
  }
  template <typename... A> void run(cl_kernel K, std::vector<size_t> Global, std::vector<size_t> Local, const A &...Args) {
    cl_uint I = 0;
    (clSetKernelArg(K, I++, sizeof(A), &Args), ...);
    clEnqueueNDRangeKernel(Q, K, static_cast<cl_uint>(Global.size()), nullptr, Global.data(),
                           Local.empty() ? nullptr : Local.data(), 0, nullptr, nullptr);
    clFinish(Q);
  }
  /// Makes the host pointers of \p M current (PoCL may cache).
  void sync(cl_mem M, size_t Bytes) {
    cl_int E;
    void *P = clEnqueueMapBuffer(Q, M, CL_TRUE, CL_MAP_READ, 0, Bytes, 0, nullptr, nullptr, &E);
    clEnqueueUnmapMemObject(Q, M, P, 0, nullptr, nullptr);
    clFinish(Q);
  }
};
#endif

// --- the table ----------------------------------------------------------------------

struct Times {
  std::vector<double> T;
  double median() const {
    std::vector<double> S = T;
    std::sort(S.begin(), S.end());
    return S.empty() ? 0 : S[S.size() / 2];
  }
  double min() const { return T.empty() ? 0 : *std::min_element(T.begin(), T.end()); }
};

double seconds(const std::function<void()> &F) {
  auto A = Clock::now();
  F();
  return std::chrono::duration<double>(Clock::now() - A).count();
}

/// Runs the three versions interleaved; \p Work is the unit amount (bytes,
/// flops) per run; \p Inverse: the figure is time per run in microseconds
/// (lower is better) instead of Work per second.
void measure(const char *Name, double Work, bool Inverse, const std::function<void()> &Dev,
             const std::function<void()> *Cl, const std::function<void()> *Omp) {
  if (Only && !std::strstr(Name, Only))
    return;
  Times D, P, O;
  Dev();
  if (Cl)
    (*Cl)();
  if (Omp)
    (*Omp)();
  for (int R = 0; R < Reps; ++R) {
    D.T.push_back(seconds(Dev));
    if (Cl)
      P.T.push_back(seconds(*Cl));
    if (Omp)
      O.T.push_back(seconds(*Omp));
  }
  auto fig = [&](double S) { return Inverse ? S * 1e6 : Work / S; };
  auto cell = [&](const Times &X, bool Have) {
    char B[64];
    if (!Have)
      return std::string("-");
    std::snprintf(B, sizeof(B), "%.3g (%.3g)", fig(X.median()), fig(X.min()));
    return std::string(B);
  };
  auto ratio = [&](const Times &X, bool Have) {
    char B[32];
    if (!Have)
      return std::string("-");
    // >1: the device is faster.
    std::snprintf(B, sizeof(B), "%.2fx", X.median() / D.median());
    return std::string(B);
  };
  std::printf("| %s | %s | %s | %s | %s | %s |\n", Name, cell(D, true).c_str(), cell(P, Cl).c_str(),
              cell(O, Omp).c_str(), ratio(P, Cl).c_str(), ratio(O, Omp).c_str());
  std::fflush(stdout);
}

std::string loadAverage() {
  std::ifstream F("/proc/loadavg");
  std::string A, B, C;
  F >> A >> B >> C;
  return A + " " + B + " " + C;
}

} // namespace

int main(int Argc, char **Argv) {
  // libgomp's threads spin after each parallel region by default, taking
  // the cores from whatever runs next (in the interleaved order: the CPU
  // device). It reads OMP_WAIT_POLICY when it loads, so set it and start again.
  if (!std::getenv("OMP_WAIT_POLICY")) {
    setenv("OMP_WAIT_POLICY", "passive", 1);
    execv("/proc/self/exe", Argv);
    std::perror("cpu_kernels_bench: re-exec with OMP_WAIT_POLICY=passive"); // then run as is
  }
  std::string Path = ZLUDA_BENCH_PTX;
  bool Sass = false;
  for (int I = 1; I < Argc; ++I) {
    if (std::string(Argv[I]) == "--reps" && I + 1 < Argc)
      Reps = std::max(1, std::atoi(Argv[++I]));
    else if (std::string(Argv[I]) == "--only" && I + 1 < Argc)
      Only = Argv[++I];
    else if (std::string(Argv[I]) == "--sass") {
      Sass = true;
      Path = ZLUDA_BENCH_CUBIN;
    } else
      Path = Argv[I];
  }
  std::ifstream In(Path, std::ios::binary);
  if (!In) {
    std::fprintf(stderr, "cpu_kernels_bench: cannot read %s (build needs nvcc)\n", Path.c_str());
    return 2;
  }
  std::stringstream SS;
  SS << In.rdbuf();
  std::string Ptx = SS.str();
  if (Sass) { // machine code: the PTX the SASS front end lifts it into
    std::string Lifted, Error;
    if (!sass::liftCubin(Ptx, Lifted, Error)) {
      std::fprintf(stderr, "cpu_kernels_bench: %s: %s\n", Path.c_str(), Error.c_str());
      return 1;
    }
    Ptx = std::move(Lifted);
    std::printf("Kernels from machine code: %s, lifted by the SASS front end\n", Path.c_str());
  }
  auto C = cpu::compilePtx(Ptx);
  if (!C.Mod) {
    std::fprintf(stderr, "%s\n", C.Error.c_str());
    return 1;
  }
  auto K = [&](const char *N) { return Launcher{C.Mod->kernel(N)}; };
#ifdef ZLUDA_BENCH_OPENCL
  Pocl CL;
  bool HaveCl = CL.init();
#else
  bool HaveCl = false;
#endif
  std::printf("CPU device: %u workers; OpenMP: %d threads (OMP_WAIT_POLICY=%s); PoCL: %s; %d interleaved runs "
              "after a warm-up; load average before: %s\n\n",
              cpu::Executor::get().workers(), omp_get_max_threads(), std::getenv("OMP_WAIT_POLICY"),
#ifdef ZLUDA_BENCH_OPENCL
              HaveCl ? CL.Name.c_str() : "not found",
#else
              "not built (no OpenCL headers)",
#endif
              Reps, loadAverage().c_str());
  std::printf("| kernel | CPU device median (best) | PoCL median (best) | OpenMP median (best) | device vs PoCL | "
              "device vs OpenMP |\n|---|---|---|---|---|---|\n");
  // Ratios: how many times faster the device is (time of the other / time of the device).
  const int N = 64 << 20;
  std::vector<float> A(N), B(N), Cv(N);
  for (int I = 0; I < N; ++I) {
    A[I] = float(I % 1000) * 0.001f;
    B[I] = float(I % 777) * 0.002f;
  }
  float *Ap = A.data(), *Bp = B.data(), *Cp = Cv.data();
  std::function<void()> ClF, OmpF;
#ifdef ZLUDA_BENCH_OPENCL
  cl_mem Am = HaveCl ? CL.buffer(Ap, 4.0 * N) : nullptr, Bm = HaveCl ? CL.buffer(Bp, 4.0 * N) : nullptr,
         Cm = HaveCl ? CL.buffer(Cp, 4.0 * N) : nullptr;
#define CL_ONLY(...) __VA_ARGS__
#else
#define CL_ONLY(...)
#endif
  auto clPtr = [&]() -> const std::function<void()> * { return HaveCl ? &ClF : nullptr; };

  { // vector add
    Launcher L = K("vecAdd");
    CL_ONLY(cl_kernel Kc = HaveCl ? CL.kernel("vecAdd") : nullptr;
            ClF = [&] { CL.run(Kc, {size_t(N)}, {256}, Am, Bm, Cm, N); };)
    OmpF = [&] {
#pragma omp parallel for
      for (int I = 0; I < N; ++I)
        Cp[I] = Ap[I] + Bp[I];
    };
    std::fill(Cv.begin(), Cv.end(), -1.0f);
    L.run({uint32_t((N + 255) / 256)}, {256}, {arg(Ap), arg(Bp), arg(Cp), arg(N)});
    bool Ok = true;
    for (int I = 0; I < N; I += 4099)
      Ok &= Cp[I] == Ap[I] + Bp[I];
    check(Ok, "vector add");
    measure("vector add, 64M floats (GB/s)", 3.0 * 4 * N / 1e9, false,
            [&] { L.run({uint32_t((N + 255) / 256)}, {256}, {arg(Ap), arg(Bp), arg(Cp), arg(N)}); }, clPtr(), &OmpF);
  }
  { // SAXPY
    Launcher L = K("saxpy");
    float Alpha = 1.5f;
    CL_ONLY(cl_kernel Kc = HaveCl ? CL.kernel("saxpy") : nullptr;
            ClF = [&] { CL.run(Kc, {size_t(N)}, {256}, Alpha, Am, Cm, N); };)
    OmpF = [&] {
#pragma omp parallel for
      for (int I = 0; I < N; ++I)
        Cp[I] = Alpha * Ap[I] + Cp[I];
    };
    std::fill(Cv.begin(), Cv.end(), 1.0f);
    L.run({uint32_t((N + 255) / 256)}, {256}, {arg(Alpha), arg(Ap), arg(Cp), arg(N)});
    bool Ok = true;
    for (int I = 0; I < N; I += 4099)
      Ok &= Cp[I] == Alpha * Ap[I] + 1.0f;
    check(Ok, "SAXPY");
    measure("SAXPY, 64M floats (GB/s)", 3.0 * 4 * N / 1e9, false,
            [&] { L.run({uint32_t((N + 255) / 256)}, {256}, {arg(Alpha), arg(Ap), arg(Cp), arg(N)}); }, clPtr(), &OmpF);
  }
  { // SGEMM with 16x16 shared tiles and barriers
    const int M = 1024;
    std::vector<float> X(M * M), Y(M * M), Z(M * M), Zr(M * M);
    for (int I = 0; I < M * M; ++I) {
      X[I] = float(I % 17) * 0.1f;
      Y[I] = float(I % 13) * 0.2f;
    }
    float *Xp = X.data(), *Yp = Y.data(), *Zp = Z.data(), *Zrp = Zr.data();
    Launcher L = K("sgemm");
    CL_ONLY(cl_mem Xm = HaveCl ? CL.buffer(Xp, 4.0 * M * M) : nullptr;
            cl_mem Ym = HaveCl ? CL.buffer(Yp, 4.0 * M * M) : nullptr;
            cl_mem Zm = HaveCl ? CL.buffer(Zrp, 4.0 * M * M) : nullptr; cl_kernel Kc = HaveCl ? CL.kernel("sgemm") : nullptr;
            ClF = [&] { CL.run(Kc, {size_t(M), size_t(M)}, {16, 16}, Xm, Ym, Zm, M); };)
    OmpF = [&] {
#pragma omp parallel for
      for (int I = 0; I < M; ++I) {
        float *Row = Zrp + I * M;
        std::fill(Row, Row + M, 0.0f);
        for (int Kk = 0; Kk < M; ++Kk) {
          float Aik = Xp[I * M + Kk];
          for (int J = 0; J < M; ++J)
            Row[J] += Aik * Yp[Kk * M + J];
        }
      }
    };
    std::fill(Z.begin(), Z.end(), std::nanf(""));
    L.run({M / 16, M / 16}, {16, 16}, {arg(Xp), arg(Yp), arg(Zp), arg(M)});
    OmpF();
    double MaxErr = 0;
    for (int I = 0; I < M * M; I += 97)
      MaxErr = std::max(MaxErr, double(std::fabs(Z[I] - Zr[I]) / std::max(1.0f, std::fabs(Zr[I]))));
    check(MaxErr < 1e-4, "SGEMM");
    measure("SGEMM 1024^2, 16x16 shared tiles (GFLOP/s)", 2.0 * M * M * M / 1e9, false,
            [&] { L.run({M / 16, M / 16}, {16, 16}, {arg(Xp), arg(Yp), arg(Zp), arg(M)}); }, clPtr(), &OmpF);
  }
  { // tree reduction, one element per thread
    const int R = 16 << 20, Blocks = R / 256;
    std::vector<float> Part(Blocks), PartCl(Blocks);
    float *Pp = Part.data();
    Launcher L = K("reduceTree");
    CL_ONLY(cl_mem Pm = HaveCl ? CL.buffer(PartCl.data(), 4.0 * Blocks) : nullptr;
            cl_kernel Kc = HaveCl ? CL.kernel("reduceTree") : nullptr;
            ClF = [&] { CL.run(Kc, {size_t(R)}, {256}, Am, Pm, R); };)
    double Sum = 0;
    OmpF = [&] {
      double S = 0;
#pragma omp parallel for reduction(+ : S)
      for (int I = 0; I < R; ++I)
        S += Ap[I];
      Sum = S;
    };
    L.run({uint32_t(Blocks)}, {256}, {arg(Ap), arg(Pp), arg(R)});
    bool Ok = true;
    for (int Bk = 0; Bk < Blocks; Bk += 97) {
      double S = 0;
      for (int I = 0; I < 256; ++I)
        S += Ap[Bk * 256 + I];
      Ok &= std::fabs(Part[Bk] - S) <= 1e-3 * std::max(1.0, S);
    }
    check(Ok, "tree reduction");
    measure("reduction, 1 element/thread, 256-thread blocks, tree + __syncthreads (GB/s)", 4.0 * R / 1e9, false,
            [&] { L.run({uint32_t(Blocks)}, {256}, {arg(Ap), arg(Pp), arg(R)}); }, clPtr(), &OmpF);
  }
  { // 2-D 5-point stencil
    const int W = 4096, H = 4096;
    std::vector<float> Out(size_t(W) * H, 0.0f), Ref(size_t(W) * H, 0.0f);
    float *Op = Out.data(), *Rp = Ref.data();
    Launcher L = K("stencil5");
    CL_ONLY(cl_mem Om = HaveCl ? CL.buffer(Ref.data(), 4.0 * W * H) : nullptr;
            cl_kernel Kc = HaveCl ? CL.kernel("stencil5") : nullptr;
            ClF = [&] { CL.run(Kc, {size_t(W), size_t(H)}, {16, 16}, Am, Om, W, H); };)
    OmpF = [&] {
#pragma omp parallel for
      for (int Y = 1; Y < H - 1; ++Y)
        for (int X = 1; X < W - 1; ++X)
          Rp[Y * W + X] = 0.5f * Ap[Y * W + X] +
                          0.125f * (Ap[Y * W + X - 1] + Ap[Y * W + X + 1] + Ap[(Y - 1) * W + X] + Ap[(Y + 1) * W + X]);
    };
    L.run({W / 16, H / 16}, {16, 16}, {arg(Ap), arg(Op), arg(W), arg(H)});
    OmpF();
    bool Ok = true;
    for (size_t I = 0; I < Out.size(); I += 1031)
      Ok &= std::fabs(Out[I] - Ref[I]) <= 1e-6f * std::max(1.0f, std::fabs(Ref[I]));
    check(Ok, "stencil");
    measure("2D 5-point stencil 4096^2 (GB/s)", 2.0 * 4 * W * H / 1e9, false,
            [&] { L.run({W / 16, H / 16}, {16, 16}, {arg(Ap), arg(Op), arg(W), arg(H)}); }, clPtr(), &OmpF);
  }
  { // histogram with shared-memory atomics
    const int Bytes = 64 << 20;
    std::vector<unsigned char> Data(Bytes);
    uint32_t S = 12345;
    for (int I = 0; I < Bytes; ++I) {
      S = S * 1664525u + 1013904223u;
      Data[I] = static_cast<unsigned char>(S >> 24);
    }
    std::vector<unsigned> Bins(256), BinsCl(256), Ref(256);
    const unsigned char *Dp = Data.data();
    unsigned *Bp2 = Bins.data();
    Launcher L = K("histogram");
    CL_ONLY(cl_mem Dm = HaveCl ? CL.buffer(Data.data(), Bytes) : nullptr;
            cl_mem Hm = HaveCl ? CL.buffer(BinsCl.data(), 4 * 256) : nullptr;
            cl_kernel Kc = HaveCl ? CL.kernel("histogram") : nullptr;
            ClF = [&] { CL.run(Kc, {size_t(256 * 256)}, {256}, Dm, Hm, Bytes); };)
    std::vector<std::vector<unsigned>> Local(omp_get_max_threads(), std::vector<unsigned>(256));
    OmpF = [&] {
#pragma omp parallel
      {
        std::vector<unsigned> &H = Local[omp_get_thread_num()];
        std::fill(H.begin(), H.end(), 0);
#pragma omp for
        for (int I = 0; I < Bytes; ++I)
          H[Dp[I]]++;
      }
      for (int B = 0; B < 256; ++B) {
        Ref[B] = 0;
        for (auto &H : Local)
          Ref[B] += H[B];
      }
    };
    L.run({256}, {256}, {arg(Dp), arg(Bp2), arg(Bytes)});
    OmpF();
    check(Bins == Ref, "histogram");
    measure("histogram, shared-memory atomics (GB/s)", Bytes / 1e9, false,
            [&] { L.run({256}, {256}, {arg(Dp), arg(Bp2), arg(Bytes)}); }, clPtr(), &OmpF);
  }
  { // launch overhead
    Launcher L = K("empty");
    CL_ONLY(cl_kernel Kc = HaveCl ? CL.kernel("empty") : nullptr; ClF = [&] {
      for (int I = 0; I < 100; ++I)
        CL.run(Kc, {size_t(1)}, {1});
    };)
    measure("empty launch + sync, 100 in a row (us per 100)", 0, true, [&] {
      for (int I = 0; I < 100; ++I)
        L.run({1}, {1}, {});
    }, clPtr(), nullptr);
  }
  if (!Only) { // the executor's block strategies on one streaming kernel
    std::printf("\n| vector add, 64M floats, by block strategy | GB/s |\n|---|---|\n");
    for (const char *St : {"loop", "sequential", "fibers"}) {
      Launcher V{C.Mod->kernel("vecAdd"), St};
      Times T;
      for (int R = 0; R < 3; ++R)
        T.T.push_back(seconds([&] { V.run({uint32_t((N + 255) / 256)}, {256}, {arg(Ap), arg(Bp), arg(Cp), arg(N)}); }));
      std::printf("| %s | %.1f |\n", St, 3.0 * 4 * N / 1e9 / T.median());
    }
    std::printf("\n| SGEMM 1024^2 by block strategy | GFLOP/s |\n|---|---|\n");
    const int M = 1024;
    std::vector<float> X(M * M, 1.0f), Y(M * M, 1.0f), Z(M * M);
    float *Xp = X.data(), *Yp = Y.data(), *Zp = Z.data();
    for (const char *St : {"regions", "fibers"}) {
      Launcher V{C.Mod->kernel("sgemm"), St};
      double T = seconds([&] { V.run({M / 16, M / 16}, {16, 16}, {arg(Xp), arg(Yp), arg(Zp), arg(M)}); });
      std::printf("| %s | %.2f |\n", St, 2.0 * M * M * M / 1e9 / T);
    }
  }
  std::printf("\nload average after: %s\n", loadAverage().c_str());
  return Failed ? 1 : 0;
}
