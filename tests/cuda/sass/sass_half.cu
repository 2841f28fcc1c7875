// Packed-half atomics and scaled multiplies as ptxas writes them, built as
// machine code only: atomicAdd on __half2 through generic pointers into
// global and shared memory (sm_86's ATOM.E.ADD.F16x2 with its "performed"
// predicate and shared fallback; sm_90's float atomics), on __nv_bfloat162,
// on float and double (sm_90's RED/ATOMG float forms), and FMUL.D2..M8 (a
// mul.ftz by a power of two fused into the product), and the 2-way dot
// products (IDP.2A.LO/.HI, signed and unsigned). Every value is exact,
// so results compare exactly with the host's.
#include "common.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdio>
#include <cstring>

__global__ void halfAtomics(__half2 *G, __nv_bfloat162 *Gb, float *F, double *D, __half2 *Out, __half2 *Old) {
  __shared__ __half2 S;
  if (threadIdx.x == 0)
    S = __floats2half2_rn(0.0f, 0.0f);
  __syncthreads();
  __half2 *Where[2] = {G, &S}; // generic pointers: global, then shared
  __half2 V = __floats2half2_rn(1.0f, 2.0f);
  __half2 Prev = atomicAdd(Where[threadIdx.x & 1], V);
  atomicAdd(Gb, __floats2bfloat162_rn(1.0f, 0.5f));
  atomicAdd(F, 0.25f);
  atomicAdd(D, 0.125);
  if (threadIdx.x == 0)
    *Old = Prev; // the first atomic of thread 0 saw the initial value or a sum of earlier ones
  __syncthreads();
  if (threadIdx.x == 0)
    *Out = S;
}

__global__ void scaledMul(const float *A, const float *B, float *Out) {
  float X = A[threadIdx.x], Y = B[threadIdx.x], R[6];
  asm("{ .reg .f32 t; mul.ftz.f32 t, %6, %7; mul.ftz.f32 %0, t, 0f3F000000; mul.ftz.f32 %1, t, 0f3E800000;\n"
      "mul.ftz.f32 %2, t, 0f3E000000; mul.ftz.f32 %3, t, 0f40000000; mul.ftz.f32 %4, t, 0f40800000;\n"
      "mul.ftz.f32 %5, t, 0f41000000; }"
      : "=f"(R[0]), "=f"(R[1]), "=f"(R[2]), "=f"(R[3]), "=f"(R[4]), "=f"(R[5])
      : "f"(X), "f"(Y));
  for (int K = 0; K < 6; ++K)
    Out[threadIdx.x * 6 + K] = R[K];
}

__global__ void dot2(const unsigned *A, const unsigned *B, int *Out) {
  int T = threadIdx.x, C = T * 1000 - 7000;
  Out[T * 4 + 0] = __dp2a_lo(A[T], B[T], (unsigned)C);
  Out[T * 4 + 1] = __dp2a_hi(A[T], B[T], (unsigned)C);
  Out[T * 4 + 2] = __dp2a_lo((int)A[T], (int)B[T], C);
  Out[T * 4 + 3] = __dp2a_hi((int)A[T], (int)B[T], C);
}

/// dp2a on the host: A's two 16-bit halves times B's bytes 0-1 (lo) or 2-3 (hi), plus C.
static int dot2Host(unsigned A, unsigned B, int C, bool Hi, bool Signed) {
  long long S = C;
  for (int K = 0; K < 2; ++K) {
    unsigned Ah = (A >> (16 * K)) & 0xffff, Bb = (B >> (8 * (K + (Hi ? 2 : 0)))) & 0xff;
    long long X = Signed ? (long long)(short)Ah : (long long)Ah;
    long long Y = Signed ? (long long)(signed char)Bb : (long long)Bb;
    S += X * Y;
  }
  return (int)S;
}

int main() {
  int Bad = 0;
  const int Threads = 64;
  __half2 *G = dev(std::vector<__half2>{__floats2half2_rn(0.0f, 0.0f)}), *Out = dev(std::vector<__half2>(1)),
          *Old = dev(std::vector<__half2>(1));
  __nv_bfloat162 *Gb = dev(std::vector<__nv_bfloat162>{__floats2bfloat162_rn(0.0f, 0.0f)});
  float *F = dev(std::vector<float>{0});
  double *D = dev(std::vector<double>{0});
  halfAtomics<<<1, Threads>>>(G, Gb, F, D, Out, Old);
  auto finished = [&](const char *What) {
    cudaError_t E = cudaDeviceSynchronize();
    if (E != cudaSuccess) {
      std::printf("%s: %s\n", What, cudaGetErrorString(E));
      ++Bad;
    }
    return E == cudaSuccess;
  };
  finished("halfAtomics");
  __half2 Hg = host(G, 1)[0], Hs = host(Out, 1)[0];
  __nv_bfloat162 Hb = host(Gb, 1)[0];
  float Zf = host(F, 1)[0];
  double Zd = host(D, 1)[0];
  auto check = [&](const char *What, float Got, float Want) {
    if (Got != Want) {
      std::printf("%s: got %g, want %g\n", What, Got, Want);
      ++Bad;
    }
  };
  check("global half2 .x", __low2float(Hg), Threads / 2 * 1.0f);
  check("global half2 .y", __high2float(Hg), Threads / 2 * 2.0f);
  check("shared half2 .x", __low2float(Hs), Threads / 2 * 1.0f);
  check("shared half2 .y", __high2float(Hs), Threads / 2 * 2.0f);
  check("bfloat162 .x", __low2float(Hb), Threads * 1.0f);
  check("bfloat162 .y", __high2float(Hb), Threads * 0.5f);
  check("float", Zf, Threads * 0.25f);
  check("double", float(Zd), Threads * 0.125f);

  const int N = 32;
  std::vector<float> A(N), B(N);
  for (int I = 0; I < N; ++I) {
    A[I] = (I - 16) * 0.75f;
    B[I] = (I % 7 + 1) * 1.5f;
  }
  float *dR = dev(std::vector<float>(N * 6));
  scaledMul<<<1, N>>>(dev(A), dev(B), dR);
  finished("scaledMul");
  std::vector<float> R = host(dR, N * 6);
  const float Scale[6] = {0.5f, 0.25f, 0.125f, 2.0f, 4.0f, 8.0f};
  for (int I = 0; I < N; ++I)
    for (int K = 0; K < 6; ++K)
      check("scaledMul", R[I * 6 + K], A[I] * B[I] * Scale[K]);

  std::vector<unsigned> Da(N), Db(N);
  for (int I = 0; I < N; ++I) {
    Da[I] = I * 2654435761u;
    Db[I] = I * 40503u + 0x80ff7f01u;
  }
  int *dDots = dev(std::vector<int>(N * 4));
  dot2<<<1, N>>>(dev(Da), dev(Db), dDots);
  bool Ran = finished("dot2");
  std::vector<int> Dots = host(dDots, N * 4);
  for (int I = 0; I < N && Ran; ++I)
    for (int K = 0; K < 4; ++K) {
      int Want = dot2Host(Da[I], Db[I], I * 1000 - 7000, K & 1, K >= 2);
      if (Dots[I * 4 + K] != Want) {
        std::printf("dot2[%d][%d]: got %d, want %d\n", I, K, Dots[I * 4 + K], Want);
        ++Bad;
      }
    }
  std::printf("sass_half: %s (%d mismatches)\n", Bad ? "FAIL" : "PASS", Bad);
  return Bad != 0;
}
