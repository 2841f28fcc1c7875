// Tensor-core GEMMs as CUTLASS and PyTorch's fused kernels write them, built as
// machine code only: tiles staged into shared memory by cp.async (LDGSTS) in a
// two-stage pipeline with zero-filled tails (an ignore-src predicate and a
// source size of 0), fragments loaded by ldmatrix (LDSM, plain and
// transposed), products by mma.sync (HMMA on f16, bf16 and tf32, IMMA on s8).
// Inputs are small integers, so every product and sum is exact: the results
// are compared exactly with a CPU reference.
#include "common.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

constexpr int TM = 32, TN = 32, TK = 32, Pad = 8; // block tile; shared rows padded by 8 elements

template <typename T> struct IsBf16 { static constexpr bool Value = false; };
template <> struct IsBf16<__nv_bfloat16> { static constexpr bool Value = true; };

__device__ unsigned smem(const void *P) { return static_cast<unsigned>(__cvta_generic_to_shared(P)); }

/// 16 bytes from global to shared, or zeros where \p Valid does not hold.
__device__ void copy16(void *Dst, const void *Src, bool Valid, bool SizeForm) {
  if (SizeForm) {
    unsigned Size = Valid ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem(Dst)), "l"(Src), "r"(Size));
  } else {
    asm volatile("{ .reg .pred p; setp.eq.u32 p, %2, 0;\n"
                 "cp.async.cg.shared.global [%0], [%1], 16, p; }" ::"r"(smem(Dst)),
                 "l"(Src), "r"(static_cast<unsigned>(Valid)));
  }
}

/// C (M x N, f32) = A (M x K, row-major) * B, of 16-bit elements T (f16 or
/// bf16); B is K x N row-major (read by ldmatrix.trans) or, with BT, N x K
/// (read by plain ldmatrix). K is a multiple of 8. Four warps, each a 16 x 16
/// part of the block's 32 x 32 tile.
template <typename T, bool BT>
__global__ void gemm16(const T *A, const T *B, float *C, int M, int N, int K) {
  __shared__ __align__(16) T As[2][TM][TK + Pad];
  __shared__ __align__(16) T Bs[2][BT ? TN : TK][(BT ? TK : TN) + Pad];
  int Tid = threadIdx.x, Lane = Tid & 31, Warp = Tid >> 5;
  int M0 = blockIdx.y * TM, N0 = blockIdx.x * TN;
  auto stage = [&](int S, int K0) {
    int Row = Tid / 4, Col = Tid % 4 * 8; // one 16-byte chunk of A and of B per thread
    bool Ok = M0 + Row < M && K0 + Col < K;
    copy16(&As[S][Row][Col], Ok ? A + (size_t)(M0 + Row) * K + K0 + Col : A, Ok, false);
    if (BT) {
      Ok = N0 + Row < N && K0 + Col < K;
      copy16(&Bs[S][Row][Col], Ok ? B + (size_t)(N0 + Row) * K + K0 + Col : B, Ok, true);
    } else {
      Ok = K0 + Row < K && N0 + Col < N;
      copy16(&Bs[S][Row][Col], Ok ? B + (size_t)(K0 + Row) * N + N0 + Col : B, Ok, true);
    }
    asm volatile("cp.async.commit_group;");
  };
  float Acc[2][4] = {};
  int Steps = (K + TK - 1) / TK;
  stage(0, 0);
  for (int S = 0; S < Steps; ++S) {
    if (S + 1 < Steps) {
      stage((S + 1) & 1, (S + 1) * TK);
      asm volatile("cp.async.wait_group 1;");
    } else {
      asm volatile("cp.async.wait_group 0;");
    }
    __syncthreads();
    int Cur = S & 1, R0 = Warp / 2 * 16, C0 = Warp % 2 * 16;
    for (int KK = 0; KK < TK; KK += 16) {
      unsigned Af[4], Bf[4];
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                   : "=r"(Af[0]), "=r"(Af[1]), "=r"(Af[2]), "=r"(Af[3])
                   : "r"(smem(&As[Cur][R0 + (Lane & 15)][KK + (Lane >> 4) * 8])));
      if (BT)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(Bf[0]), "=r"(Bf[1]), "=r"(Bf[2]), "=r"(Bf[3])
                     : "r"(smem(&Bs[Cur][C0 + (Lane & 7) + (Lane >> 4) * 8][KK + (Lane >> 3 & 1) * 8])));
      else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(Bf[0]), "=r"(Bf[1]), "=r"(Bf[2]), "=r"(Bf[3])
                     : "r"(smem(&Bs[Cur][KK + (Lane & 7) + (Lane >> 3 & 1) * 8][C0 + (Lane >> 4) * 8])));
      for (int J = 0; J < 2; ++J) {
        if (IsBf16<T>::Value)
          asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                       "{%8,%9}, {%0,%1,%2,%3};"
                       : "+f"(Acc[J][0]), "+f"(Acc[J][1]), "+f"(Acc[J][2]), "+f"(Acc[J][3])
                       : "r"(Af[0]), "r"(Af[1]), "r"(Af[2]), "r"(Af[3]), "r"(Bf[2 * J]), "r"(Bf[2 * J + 1]));
        else
          asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                       "{%8,%9}, {%0,%1,%2,%3};"
                       : "+f"(Acc[J][0]), "+f"(Acc[J][1]), "+f"(Acc[J][2]), "+f"(Acc[J][3])
                       : "r"(Af[0]), "r"(Af[1]), "r"(Af[2]), "r"(Af[3]), "r"(Bf[2 * J]), "r"(Bf[2 * J + 1]));
      }
    }
    __syncthreads();
  }
  int G = Lane >> 2, Tq = Lane & 3, R0 = M0 + Warp / 2 * 16, C0 = N0 + Warp % 2 * 16;
  for (int J = 0; J < 2; ++J)
    for (int E = 0; E < 4; ++E) {
      int Row = R0 + G + (E >> 1) * 8, Col = C0 + J * 8 + Tq * 2 + (E & 1);
      if (Row < M && Col < N)
        C[(size_t)Row * N + Col] = Acc[J][E];
    }
}

/// One 16 x 8 tile per warp from fragments read straight from global memory:
/// tf32 (m16n8k8) and s8 (m16n8k32, saturating), A row-major, B as N x K.
__global__ void tf32Tile(const float *A, const float *B, float *C, int K) {
  int Lane = threadIdx.x, G = Lane >> 2, Tq = Lane & 3;
  float Acc[4] = {1, 2, 3, 4}; // C's initial values stay in the sums
  for (int K0 = 0; K0 < K; K0 += 8) {
    unsigned Af[4] = {__float_as_uint(A[G * K + K0 + Tq]), __float_as_uint(A[(G + 8) * K + K0 + Tq]),
                      __float_as_uint(A[G * K + K0 + Tq + 4]), __float_as_uint(A[(G + 8) * K + K0 + Tq + 4])};
    unsigned Bf[2] = {__float_as_uint(B[G * K + K0 + Tq]), __float_as_uint(B[G * K + K0 + Tq + 4])};
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(Acc[0]), "+f"(Acc[1]), "+f"(Acc[2]), "+f"(Acc[3])
                 : "r"(Af[0]), "r"(Af[1]), "r"(Af[2]), "r"(Af[3]), "r"(Bf[0]), "r"(Bf[1]));
  }
  for (int E = 0; E < 4; ++E)
    C[(G + (E >> 1) * 8) * 8 + Tq * 2 + (E & 1)] = Acc[E];
}

__global__ void s8Tile(const int8_t *A, const int8_t *B, int *C, int K) {
  int Lane = threadIdx.x, G = Lane >> 2, Tq = Lane & 3;
  int Acc[4] = {0, 0, 0, 0};
  auto word = [](const int8_t *P) { return *reinterpret_cast<const unsigned *>(P); };
  for (int K0 = 0; K0 < K; K0 += 32) {
    unsigned Af[4] = {word(A + G * K + K0 + Tq * 4), word(A + (G + 8) * K + K0 + Tq * 4),
                      word(A + G * K + K0 + 16 + Tq * 4), word(A + (G + 8) * K + K0 + 16 + Tq * 4)};
    unsigned Bf[2] = {word(B + G * K + K0 + Tq * 4), word(B + G * K + K0 + 16 + Tq * 4)};
    asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                 "{%8,%9}, {%0,%1,%2,%3};"
                 : "+r"(Acc[0]), "+r"(Acc[1]), "+r"(Acc[2]), "+r"(Acc[3])
                 : "r"(Af[0]), "r"(Af[1]), "r"(Af[2]), "r"(Af[3]), "r"(Bf[0]), "r"(Bf[1]));
  }
  for (int E = 0; E < 4; ++E)
    C[(G + (E >> 1) * 8) * 8 + Tq * 2 + (E & 1)] = Acc[E];
}

/// cp.async with a source size in a register (LDGSTS.ZFILL): thread t copies
/// t % 17 of 16 bytes (and t % 9 of 8) and zero-fills the rest.
__global__ void zeroFill(const unsigned char *In, unsigned char *Out) {
  __shared__ __align__(16) unsigned char Buf[64 * 24];
  int T = threadIdx.x;
  unsigned N16 = T % 17, N8 = T % 9;
  for (int K = 0; K < 24; ++K)
    Buf[T * 24 + K] = 0xee; // poison: every byte is written by the copies
  __syncthreads();
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" ::"r"(smem(&Buf[T * 24])), "l"(In + T * 32), "r"(N16));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(smem(&Buf[T * 24 + 16])), "l"(In + T * 32 + 16),
               "r"(N8));
  asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;");
  __syncthreads();
  for (int K = 0; K < 24; ++K)
    Out[T * 24 + K] = Buf[T * 24 + K];
}

int Bad = 0;

template <typename T, bool BT> void runGemm(const char *Name, int M, int N, int K) {
  std::vector<float> Af(size_t(M) * K), Bf(size_t(K) * N), Ref(size_t(M) * N, 0), Out(size_t(M) * N);
  std::vector<T> Ah(Af.size()), Bh(Bf.size());
  for (size_t I = 0; I < Af.size(); ++I)
    Ah[I] = T(Af[I] = float(int(I * 7 % 9) - 4));
  for (size_t I = 0; I < Bf.size(); ++I)
    Bh[I] = T(Bf[I] = float(int(I * 5 % 7) - 3)); // B's layout: K x N, or N x K with BT
  for (int R = 0; R < M; ++R)
    for (int C = 0; C < N; ++C)
      for (int Kk = 0; Kk < K; ++Kk)
        Ref[size_t(R) * N + C] += Af[size_t(R) * K + Kk] * (BT ? Bf[size_t(C) * K + Kk] : Bf[size_t(Kk) * N + C]);
  T *DA = dev(Ah), *DB = dev(Bh);
  std::vector<float> Poison(Out.size(), -777.0f);
  float *DC = dev(Poison);
  gemm16<T, BT><<<dim3((N + TN - 1) / TN, (M + TM - 1) / TM), 128>>>(DA, DB, DC, M, N, K);
  cudaError_t E = cudaDeviceSynchronize();
  cudaMemcpy(Out.data(), DC, Out.size() * 4, cudaMemcpyDeviceToHost);
  if (E != cudaSuccess && Bad++ < 8)
    std::printf("%s: %s\n", Name, cudaGetErrorString(E));
  for (size_t I = 0; I < Out.size() && E == cudaSuccess; ++I)
    if (Out[I] != Ref[I] && Bad++ < 8)
      std::printf("%s %dx%dx%d: C[%zu] = %g, want %g\n", Name, M, N, K, I, Out[I], Ref[I]);
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DC);
}

int main() {
  runGemm<__half, false>("f16", 64, 64, 64);
  runGemm<__half, false>("f16 tails", 50, 40, 72); // partial tiles: zero-filled rows and columns
  runGemm<__half, true>("f16 B^T", 45, 70, 40);
  runGemm<__nv_bfloat16, false>("bf16", 33, 31, 56);
  runGemm<__nv_bfloat16, true>("bf16 B^T", 64, 32, 96);

  const int K = 64;
  std::vector<float> A(16 * K), B(8 * K), C(128), Ref(128);
  for (int I = 0; I < 16 * K; ++I)
    A[I] = float(I * 3 % 11) - 5;
  for (int I = 0; I < 8 * K; ++I)
    B[I] = float(I * 5 % 13) - 6;
  for (int R = 0; R < 16; ++R)
    for (int Cc = 0; Cc < 8; ++Cc) {
      float S = 1 + (R >= 8 ? 2 : 0) + (Cc & 1);
      for (int Kk = 0; Kk < K; ++Kk)
        S += A[R * K + Kk] * B[Cc * K + Kk];
      Ref[R * 8 + Cc] = S;
    }
  float *DA = dev(A), *DB = dev(B), *DC = dev(C);
  tf32Tile<<<1, 32>>>(DA, DB, DC, K);
  cudaError_t E = cudaDeviceSynchronize();
  cudaMemcpy(C.data(), DC, 128 * 4, cudaMemcpyDeviceToHost);
  if (E != cudaSuccess && Bad++ < 8)
    std::printf("tf32: %s\n", cudaGetErrorString(E));
  for (int I = 0; I < 128 && E == cudaSuccess; ++I)
    if (C[I] != Ref[I] && Bad++ < 8)
      std::printf("tf32: C[%d] = %g, want %g\n", I, C[I], Ref[I]);

  const int K8 = 128;
  std::vector<int8_t> A8(16 * K8), B8(8 * K8);
  std::vector<int> C8(128), Ref8(128, 0);
  for (int I = 0; I < 16 * K8; ++I)
    A8[I] = int8_t(I * 37 % 255 - 127);
  for (int I = 0; I < 8 * K8; ++I)
    B8[I] = int8_t(I * 53 % 255 - 127);
  for (int R = 0; R < 16; ++R)
    for (int Cc = 0; Cc < 8; ++Cc)
      for (int Kk = 0; Kk < K8; ++Kk)
        Ref8[R * 8 + Cc] += A8[R * K8 + Kk] * B8[Cc * K8 + Kk];
  int8_t *DA8 = dev(A8), *DB8 = dev(B8);
  int *DC8 = dev(C8);
  s8Tile<<<1, 32>>>(DA8, DB8, DC8, K8);
  E = cudaDeviceSynchronize();
  cudaMemcpy(C8.data(), DC8, 128 * 4, cudaMemcpyDeviceToHost);
  if (E != cudaSuccess && Bad++ < 8)
    std::printf("s8: %s\n", cudaGetErrorString(E));
  for (int I = 0; I < 128 && E == cudaSuccess; ++I)
    if (C8[I] != Ref8[I] && Bad++ < 8)
      std::printf("s8: C[%d] = %d, want %d\n", I, C8[I], Ref8[I]);

  std::vector<unsigned char> Src(64 * 32), Got(64 * 24);
  for (size_t I = 0; I < Src.size(); ++I)
    Src[I] = static_cast<unsigned char>(I * 13 + 1);
  unsigned char *DSrc = dev(Src), *DGot = dev(Got);
  zeroFill<<<1, 64>>>(DSrc, DGot);
  E = cudaDeviceSynchronize();
  cudaMemcpy(Got.data(), DGot, Got.size(), cudaMemcpyDeviceToHost);
  if (E != cudaSuccess && Bad++ < 8)
    std::printf("zeroFill: %s\n", cudaGetErrorString(E));
  for (int T = 0; T < 64 && E == cudaSuccess; ++T)
    for (int K = 0; K < 24; ++K) {
      int N = K < 16 ? T % 17 : T % 9, At = K < 16 ? K : K - 16;
      unsigned char Want = At < N ? Src[T * 32 + K] : 0;
      if (Got[T * 24 + K] != Want && Bad++ < 8)
        std::printf("zeroFill: thread %d byte %d = %d, want %d\n", T, K, Got[T * 24 + K], Want);
    }

  std::printf("sass_tensor: %s (%d mismatches)\n", Bad ? "FAIL" : "PASS", Bad);
  return Bad != 0;
}
