// Hopper's warpgroup matrix multiply (wgmma.mma_async) as CUTLASS 3 uses it:
// 1. a GEMM in CUTLASS 3's style: a producer warpgroup loads 64x64 f16 tiles
//    with TMA (128-byte swizzle) into a two-stage pipeline of full/empty
//    mbarriers, a consumer warpgroup multiplies them with wgmma m64n64k16
//    through shared memory descriptors (K-major A; B K-major or, transposed,
//    N-major), checked against the host's GEMM; and the same in clusters of
//    two blocks along M that share B's tile: each block loads half of it and
//    multicasts it to both, and each consumer releases a stage in both blocks
//    (a remote mbarrier arrive through mapa) before either refills it;
// 2. one instruction of each type family on the interleaved (unswizzled)
//    layouts written by the host: f16 with a negated A and an accumulator,
//    A from registers with f16 results, tf32, e4m3 x e5m2, s8 x u8, bf16 with
//    both operands transposed, and scale-d = 0.
// Each result is compared with the host's own product of the same values.
#include "hopper_common.h"

#include <cstdint>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define HOPPER 1
#endif


/// A shared memory matrix descriptor: start, leading and stride byte offsets, layout (0 none, 1 128B, 2 64B, 3 32B).
__device__ __forceinline__ uint64_t matDesc(const void *P, unsigned Lbo, unsigned Sbo, unsigned Layout) {
  return uint64_t((smemAddr(P) & 0x3FFFF) >> 4) | uint64_t((Lbo >> 4) & 0x3FFF) << 16 |
         uint64_t((Sbo >> 4) & 0x3FFF) << 32 | uint64_t(Layout) << 62;
}

#define R8(i) "+f"(D[i]), "+f"(D[i + 1]), "+f"(D[i + 2]), "+f"(D[i + 3]), "+f"(D[i + 4]), "+f"(D[i + 5]), "+f"(D[i + 6]), "+f"(D[i + 7])

// --- 1. the pipelined GEMM ----------------------------------------------------------------------

constexpr int BM = 64, BN = 64, BK = 64, Stages = 2;

/// One m64n64k16 step; B transposed (N-major) when TransB (an immediate operand of wgmma).
template <int TransB> __device__ __forceinline__ void wgmma64(float *D, uint64_t A, uint64_t B, int Scale) {
#ifdef HOPPER
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %34, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
               "%11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, "
               "%31}, %32, %33, p, 1, 1, 0, %35;\n}"
               : R8(0), R8(8), R8(16), R8(24)
               : "l"(A), "l"(B), "r"(Scale), "n"(TransB));
#endif
}

#ifdef HOPPER
__device__ __forceinline__ void wait(uint64_t *Bar, unsigned Parity) {
  asm volatile("{\n .reg .pred p;\n w_%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra w_%=;\n}" ::"r"(
                   smemAddr(Bar)),
               "r"(Parity));
}

/// The consumer warpgroup of gemmKernel.
__device__ __forceinline__ void consume(__half (*As)[BM * BK], __half (*Bs)[BN * BK], uint64_t *Full, uint64_t *Empty,
                                        float *C, int N, int KTiles, int M0, int N0, int TransB, bool Multi,
                                        unsigned Rank) {
  float D[32];
  for (int I = 0; I < 32; ++I)
    D[I] = 0.0f;
  for (int Kt = 0; Kt < KTiles; ++Kt) {
    int S = Kt % Stages;
    wait(&Full[S], (Kt / Stages) & 1);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    for (int Kk = 0; Kk < BK / 16; ++Kk) {
      // K-major 128-byte swizzled rows: a k16 step is 32 bytes along the row; 8 rows (1024 bytes) per stride.
      uint64_t DA = matDesc(reinterpret_cast<const char *>(As[S]) + Kk * 32, 16, 1024, 1);
      uint64_t DB = TransB ? matDesc(reinterpret_cast<const char *>(Bs[S]) + Kk * 16 * 128, 8192, 1024, 1)
                           : matDesc(reinterpret_cast<const char *>(Bs[S]) + Kk * 32, 16, 1024, 1);
      if (TransB)
        wgmma64<1>(D, DA, DB, Kt > 0 || Kk > 0);
      else
        wgmma64<0>(D, DA, DB, Kt > 0 || Kk > 0);
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smemAddr(&Empty[S])) : "memory");
    if (Multi) { // the other block multicasts into this stage too
      unsigned Remote;
      asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(Remote) : "r"(smemAddr(&Empty[S])), "r"(Rank ^ 1));
      asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(Remote) : "memory");
    }
  }
  int T = threadIdx.x - 128, Warp = T / 32, Lane = T % 32;
  for (int I = 0; I < 32; ++I) {
    int Row = M0 + 16 * Warp + Lane / 4 + ((I % 4) >= 2 ? 8 : 0);
    int Col = N0 + 8 * (I / 4) + 2 * (Lane % 4) + (I & 1);
    C[size_t(Row) * N + Col] = D[I];
  }
}
#endif

/// Mode 0: B K-major; 1: B transposed (N-major); 2: B K-major, clusters of
/// two blocks along M multicasting halves of B's tile (MapB's box 64 x 32).
__global__ void __launch_bounds__(256) gemmKernel(const __grid_constant__ CUtensorMap MapA,
                                                  const __grid_constant__ CUtensorMap MapB, float *C, int N, int K,
                                                  int Mode) {
#ifdef HOPPER
  __shared__ alignas(1024) __half As[Stages][BM * BK];
  __shared__ alignas(1024) __half Bs[Stages][BN * BK];
  __shared__ alignas(8) uint64_t Full[Stages], Empty[Stages];
  const int M0 = blockIdx.y * BM, N0 = blockIdx.x * BN, KTiles = K / BK, TransB = Mode == 1;
  const bool Multi = Mode == 2;
  unsigned Rank = 0;
  if (Multi)
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(Rank));
  if (threadIdx.x == 0) {
    for (int S = 0; S < Stages; ++S) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smemAddr(&Full[S])));
      // Released by this block's consumers, and by the other block's when B is shared.
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smemAddr(&Empty[S])), "r"(Multi ? 256 : 128));
    }
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  if (Multi) // both blocks' barriers exist before either uses the other's
    asm volatile("barrier.cluster.arrive.release.aligned;\n barrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (threadIdx.x < 128) { // the producer warpgroup: one thread issues the loads
    if (threadIdx.x == 0)
      for (int Kt = 0; Kt < KTiles; ++Kt) {
        int S = Kt % Stages;
        if (Kt >= Stages)
          wait(&Empty[S], (Kt / Stages - 1) & 1);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smemAddr(&Full[S])),
                     "r"(unsigned(sizeof As[0] + sizeof Bs[0])));
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, "
                     "%3}], [%4];" ::"r"(smemAddr(As[S])),
                     "l"(&MapA), "r"(Kt * BK), "r"(M0), "r"(smemAddr(&Full[S]))
                     : "memory");
        int X = TransB ? N0 : Kt * BK, Y = TransB ? Kt * BK : N0;
        if (Multi) // this block's half of B's rows, to the same place in both blocks
          asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::"
                       "cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smemAddr(Bs[S]) + Rank * (BN / 2) * BK * 2),
                       "l"(&MapB), "r"(X), "r"(Y + int(Rank) * (BN / 2)), "r"(smemAddr(&Full[S])),
                       "h"((unsigned short)3)
                       : "memory");
        else
          asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, "
                       "{%2, %3}], [%4];" ::"r"(smemAddr(Bs[S])),
                       "l"(&MapB), "r"(X), "r"(Y), "r"(smemAddr(&Full[S]))
                       : "memory");
      }
  } else {
    consume(As, Bs, Full, Empty, C, N, KTiles, M0, N0, TransB, Multi, Rank);
  }
  if (Multi) // neither block leaves while the other may still write into it or arrive on its barriers
    asm volatile("barrier.cluster.arrive.release.aligned;\n barrier.cluster.wait.acquire.aligned;" ::: "memory");
#else
  __trap();
#endif
}


// --- 2. one instruction per type family, interleaved layouts ---------------------------------

enum Variant { F16NegA, F16RegsF16Acc, Tf32, Fp8, Int8, Bf16Trans, NoAccumulate };

/// One warpgroup: copies the host's A and B images into shared memory, runs
/// one m64n16 wgmma of the variant, writes D's 8 (or 4 packed) registers per thread.
__global__ void smallKernel(int V, const unsigned char *AImg, const unsigned char *BImg, unsigned ABytes,
                            unsigned BBytes, unsigned ALbo, unsigned ASbo, unsigned BLbo, unsigned BSbo,
                            const uint32_t *ARegs, uint32_t *Out) {
#ifdef HOPPER
  __shared__ alignas(256) unsigned char As[8192];
  __shared__ alignas(256) unsigned char Bs[4096];
  for (unsigned I = threadIdx.x; I < ABytes; I += blockDim.x)
    As[I] = AImg[I];
  for (unsigned I = threadIdx.x; I < BBytes; I += blockDim.x)
    Bs[I] = BImg[I];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  uint64_t DA = matDesc(As, ALbo, ASbo, 0), DB = matDesc(Bs, BLbo, BSbo, 0);
  float D[8];
  uint32_t *U = reinterpret_cast<uint32_t *>(D);
  for (int I = 0; I < 8; ++I)
    U[I] = Out[threadIdx.x * 8 + I]; // the accumulator in
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  switch (V) {
  case F16NegA:
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, 1, -1, "
                 "1, 0, 0;"
                 : R8(0)
                 : "l"(DA), "l"(DB));
    break;
  case NoAccumulate:
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, 0, 1, "
                 "1, 0, 0;"
                 : R8(0)
                 : "l"(DA), "l"(DB));
    break;
  case F16RegsF16Acc: {
    const uint32_t *A = ARegs + threadIdx.x * 4;
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, 1, 1, 1, "
                 "0;"
                 : "+r"(U[0]), "+r"(U[1]), "+r"(U[2]), "+r"(U[3])
                 : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "l"(DB));
    break;
  }
  case Tf32:
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, 1, 1, "
                 "1;"
                 : R8(0)
                 : "l"(DA), "l"(DB));
    break;
  case Fp8:
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e5m2 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, 1, 1, "
                 "1;"
                 : R8(0)
                 : "l"(DA), "l"(DB));
    break;
  case Int8:
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.u8 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, 1;"
                 : "+r"(U[0]), "+r"(U[1]), "+r"(U[2]), "+r"(U[3]), "+r"(U[4]), "+r"(U[5]), "+r"(U[6]), "+r"(U[7])
                 : "l"(DA), "l"(DB));
    break;
  case Bf16Trans:
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, 1, 1, "
                 "-1, 1, 1;"
                 : R8(0)
                 : "l"(DA), "l"(DB));
    break;
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int I = 0; I < 8; ++I)
    Out[threadIdx.x * 8 + I] = U[I];
#else
  __trap();
#endif
}

// --- host ---------------------------------------------------------------------------------------


static int gemm(EncodeTiledFn Encode, int Mode) {
  const int TransB = Mode == 1;
  const int M = 128, N = 128, K = 256;
  std::vector<__half> A(size_t(M) * K), B(size_t(K) * N);
  std::vector<float> Af(A.size()), Bf(B.size()); // Bf[k * N + n]
  for (int I = 0; I < M; ++I)
    for (int Kk = 0; Kk < K; ++Kk) {
      float V = float((I * 7 + Kk * 3) % 11 - 5) * 0.25f;
      A[size_t(I) * K + Kk] = __float2half(V);
      Af[size_t(I) * K + Kk] = V;
    }
  for (int Kk = 0; Kk < K; ++Kk)
    for (int J = 0; J < N; ++J) {
      float V = float((Kk * 5 + J * 13) % 9 - 4) * 0.5f;
      Bf[size_t(Kk) * N + J] = V;
      // K-major: stored N x K (row n holds its K values); transposed: K x N.
      B[TransB ? size_t(Kk) * N + J : size_t(J) * K + Kk] = __float2half(V);
    }
  __half *DA = dev(A), *DB = dev(B);
  float *DC;
  CHECK(cudaMalloc(&DC, size_t(M) * N * 4));
  CUtensorMap MapA, MapB;
  cuuint64_t DimsA[2] = {cuuint64_t(K), cuuint64_t(M)}, StrA[1] = {cuuint64_t(K) * 2};
  cuuint64_t DimsB[2] = {cuuint64_t(TransB ? N : K), cuuint64_t(TransB ? K : N)}, StrB[1] = {DimsB[0] * 2};
  cuuint32_t Box[2] = {64, 64}, Es[2] = {1, 1};
  int Bad = 0;
  Bad += Encode(&MapA, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, DA, DimsA, StrA, Box, Es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS;
  cuuint32_t HalfBox[2] = {64, 32}; // clusters of two: each block loads half of B's rows
  Bad += Encode(&MapB, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, DB, DimsB, StrB, Mode == 2 ? HalfBox : Box, Es,
                CU_TENSOR_MAP_INTERLEAVE_NONE,
                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS;
  if (Mode == 2) {
    cudaLaunchConfig_t Cfg = {};
    Cfg.gridDim = dim3(N / BN, M / BM);
    Cfg.blockDim = dim3(256);
    cudaLaunchAttribute Attr[1];
    Attr[0].id = cudaLaunchAttributeClusterDimension;
    Attr[0].val.clusterDim.x = 1;
    Attr[0].val.clusterDim.y = 2;
    Attr[0].val.clusterDim.z = 1;
    Cfg.attrs = Attr;
    Cfg.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&Cfg, gemmKernel, MapA, MapB, DC, N, K, Mode));
  } else {
    gemmKernel<<<dim3(N / BN, M / BM), 256>>>(MapA, MapB, DC, N, K, Mode);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> C = host(DC, size_t(M) * N);
  for (int I = 0; I < M; ++I)
    for (int J = 0; J < N; ++J) {
      double Ref = 0;
      for (int Kk = 0; Kk < K; ++Kk)
        Ref += double(Af[size_t(I) * K + Kk]) * Bf[size_t(Kk) * N + J];
      if (float(Ref) != C[size_t(I) * N + J] && Bad++ < 4) // every partial sum is exact in f32
        std::printf("  C[%d][%d] = %g, want %g\n", I, J, C[size_t(I) * N + J], Ref);
    }
  CHECK(cudaFree(DA));
  CHECK(cudaFree(DB));
  CHECK(cudaFree(DC));
  return verdict(Mode == 2   ? "TMA + wgmma GEMM, clusters of 2 sharing B by multicast"
                 : TransB ? "TMA + wgmma GEMM, B transposed (N-major)"
                          : "TMA + wgmma GEMM, K-major A and B",
                 Bad);
}

/// Host images of the interleaved canonical layouts: the byte of element
/// (R, Kk) (R along M or N) for K-major, or MN-major (Trans).
static size_t interleaved(int R, int Kk, int Bytes, unsigned Lbo, unsigned Sbo, bool Trans) {
  if (!Trans) {
    size_t Kb = size_t(Kk) * Bytes;
    return (R / 8) * Sbo + (R % 8) * 16 + (Kb / 16) * Lbo + Kb % 16;
  }
  size_t Mb = size_t(R) * Bytes;
  return (Mb / 16) * Sbo + Mb % 16 + (Kk % 8) * 16 + (Kk / 8) * Lbo;
}

static int small(Variant V, const char *Name) {
  const int Mr = 64, Nc = 16;
  int K = V == Tf32 ? 8 : V == Fp8 || V == Int8 ? 32 : 16;
  int Bytes = V == Tf32 ? 4 : V == Fp8 || V == Int8 ? 1 : 2;
  bool Trans = V == Bf16Trans;
  // Values: small integers and halves, exact in every type here.
  std::vector<double> Av(Mr * K), Bv(K * Nc), Cv(Mr * Nc);
  for (int I = 0; I < Mr; ++I)
    for (int Kk = 0; Kk < K; ++Kk)
      Av[I * K + Kk] = V == Int8 ? double((I * 5 + Kk * 3) % 17 - 8) : double((I * 3 + Kk * 5) % 7 - 3) * 0.5;
  for (int Kk = 0; Kk < K; ++Kk)
    for (int J = 0; J < Nc; ++J)
      Bv[Kk * Nc + J] = V == Int8 ? double((Kk * 7 + J * 11) % 23 + 200) : double((Kk * 11 + J * 3) % 5 - 2);
  for (int I = 0; I < Mr * Nc; ++I)
    Cv[I] = double(I % 13) - 6;
  auto encode = [&](double X, unsigned char *P) {
    if (V == Tf32) {
      float F = float(X);
      std::memcpy(P, &F, 4);
    } else if (V == Fp8) {
      // A is e4m3 (the first call of each element is A's), B e5m2: chosen by the caller.
    } else if (V == Int8) {
      *P = static_cast<unsigned char>(static_cast<int>(X));
    } else if (V == Bf16Trans) {
      __nv_bfloat16 H = __float2bfloat16(float(X));
      std::memcpy(P, &H, 2);
    } else {
      __half H = __float2half(float(X));
      std::memcpy(P, &H, 2);
    }
  };
  // Layout strides: core matrices adjacent along K at LBO, along M/N at SBO.
  unsigned ALbo = 128, ASbo = unsigned(128 * ((K * Bytes + 15) / 16)), BLbo = 128, BSbo = ASbo;
  if (Trans) { // MN-major: 8 MN elements (16 bytes) per core row, k rows at 16 bytes; MN groups at SBO, K groups at LBO
    ASbo = 128 * ((K + 7) / 8);
    ALbo = 128;
    BSbo = ASbo;
    BLbo = 128;
  }
  std::vector<unsigned char> AImg(8192, 0), BImg(4096, 0);
  for (int I = 0; I < Mr; ++I)
    for (int Kk = 0; Kk < K; ++Kk) {
      unsigned char *P = &AImg[interleaved(I, Kk, Bytes, ALbo, ASbo, Trans)];
      if (V == Fp8)
        *P = __nv_cvt_float_to_fp8(float(Av[I * K + Kk]), __NV_SATFINITE, __NV_E4M3);
      else
        encode(Av[I * K + Kk], P);
    }
  for (int J = 0; J < Nc; ++J)
    for (int Kk = 0; Kk < K; ++Kk) {
      unsigned char *P = &BImg[interleaved(J, Kk, Bytes, BLbo, BSbo, Trans)];
      if (V == Fp8)
        *P = __nv_cvt_float_to_fp8(float(Bv[Kk * Nc + J]), __NV_SATFINITE, __NV_E5M2);
      else
        encode(Bv[Kk * Nc + J], P);
    }
  // A's register fragments (f16, per warp the m16n8k16 A layout): register r
  // of lane l holds row l/4 (+8 for odd r), columns 2(l%4) (+8 for r >= 2) and the next.
  std::vector<uint32_t> ARegs(128 * 4);
  for (int T = 0; T < 128; ++T)
    for (int R = 0; R < 4; ++R) {
      int W = T / 32, L = T % 32, Row = 16 * W + L / 4 + (R & 1) * 8, Col = 2 * (L % 4) + (R >> 1) * 8;
      __half Lo = __float2half(float(Av[Row * K + Col])), Hi = __float2half(float(Av[Row * K + Col + 1]));
      uint16_t L16, H16;
      std::memcpy(&L16, &Lo, 2);
      std::memcpy(&H16, &Hi, 2);
      ARegs[T * 4 + R] = L16 | uint32_t(H16) << 16;
    }
  // The accumulator in, per the D layout: thread T's element I is row 16w + l/4 (+8), column 8(I/4) + 2(l%4) + I%2.
  bool HalfAcc = V == F16RegsF16Acc, IntAcc = V == Int8;
  auto pos = [](int T, int I, int &Row, int &Col) {
    int W = T / 32, L = T % 32;
    Row = 16 * W + L / 4 + ((I % 4) >= 2 ? 8 : 0);
    Col = 8 * (I / 4) + 2 * (L % 4) + (I & 1);
  };
  std::vector<uint32_t> Out(128 * 8, 0);
  for (int T = 0; T < 128; ++T)
    for (int I = 0; I < 8; ++I) {
      int Row, Col;
      pos(T, I, Row, Col);
      double X = Cv[Row * Nc + Col];
      if (HalfAcc) {
        __half H = __float2half(float(X));
        uint16_t B16;
        std::memcpy(&B16, &H, 2);
        Out[T * 8 + I / 2] |= uint32_t(B16) << (16 * (I & 1));
      } else if (IntAcc) {
        Out[T * 8 + I] = uint32_t(int32_t(X));
      } else {
        float F = float(X);
        std::memcpy(&Out[T * 8 + I], &F, 4);
      }
    }
  unsigned char *DAImg = dev(AImg), *DBImg = dev(BImg);
  uint32_t *DARegs = dev(ARegs), *DOut = dev(Out);
  smallKernel<<<1, 128>>>(V, DAImg, DBImg, 8192, 4096, ALbo, ASbo, BLbo, BSbo, DARegs, DOut);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<uint32_t> Got = host(DOut, 128 * 8);
  int Bad = 0;
  double SA = V == F16NegA ? -1 : 1, SB = V == Bf16Trans ? -1 : 1;
  for (int T = 0; T < 128; ++T)
    for (int I = 0; I < 8; ++I) {
      int Row, Col;
      pos(T, I, Row, Col);
      double Ref = V == NoAccumulate ? 0 : Cv[Row * Nc + Col];
      for (int Kk = 0; Kk < K; ++Kk)
        Ref += SA * Av[Row * K + Kk] * SB * Bv[Kk * Nc + Col];
      double Have;
      if (HalfAcc) {
        uint16_t B16 = uint16_t(Got[T * 8 + I / 2] >> (16 * (I & 1)));
        __half H;
        std::memcpy(&H, &B16, 2);
        Have = __half2float(H);
      } else if (IntAcc) {
        Have = double(int32_t(Got[T * 8 + I]));
      } else {
        float F;
        std::memcpy(&F, &Got[T * 8 + I], 4);
        Have = F;
      }
      if (Have != Ref && Bad++ < 4)
        std::printf("  %s: thread %d element %d (row %d, col %d) = %g, want %g\n", Name, T, I, Row, Col, Have, Ref);
    }
  return verdict(Name, Bad);
}

int main() {
  EncodeTiledFn Encode = tensorMapEncoder();
  int Bad = 0;
  Bad += gemm(Encode, 0);
  Bad += gemm(Encode, 1);
  Bad += gemm(Encode, 2);
  Bad += small(F16NegA, "f16, negated A, accumulator");
  Bad += small(NoAccumulate, "f16, scale-d 0");
  Bad += small(F16RegsF16Acc, "f16, A in registers, f16 results");
  Bad += small(Tf32, "tf32");
  Bad += small(Fp8, "e4m3 x e5m2");
  Bad += small(Int8, "s8 x u8");
  Bad += small(Bf16Trans, "bf16, A and B transposed, negated B");
  std::printf("%s\n", Bad ? "FAIL" : "PASS");
  return Bad ? 1 : 0;
}
