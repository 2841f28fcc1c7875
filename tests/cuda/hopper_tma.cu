// Hopper's asynchronous bulk copies as CUTLASS 3 and FlashAttention 3 write
// them (inline PTX): cp.async.bulk between global and shared memory completing
// on an mbarrier's transaction count or in a bulk group, cp.reduce.async.bulk,
// and the tensor forms through tensor maps made by cuTensorMapEncodeTiled
// (found as PyTorch and Triton find it, through cudaGetDriverEntryPointByVersion):
// tiled loads with out-of-bound zero and NaN fills, the 32/64/128-byte swizzles,
// element strides, stores clipped at the tensor's edge, reductions, and a map
// edited in the kernel (tensormap.replace, tensormap.cp_fenceproxy). Every
// result is checked against the host's own computation of the documented
// semantics; the driver's parameter checks against its API reference.
#include "hopper_common.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <cuda_fp16.h>

// sm_90a's features (tensormap.replace): the corpus' compute_75/80/90 builds get trapping stubs.
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define HOPPER 1
#endif


__device__ __forceinline__ void mbarInit(uint64_t *Bar, unsigned Count) {
#ifdef HOPPER
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smemAddr(Bar)), "r"(Count));
  asm volatile("fence.mbarrier_init.release.cluster;");
  asm volatile("fence.proxy.async.shared::cta;");
#endif
}
__device__ __forceinline__ void mbarExpect(uint64_t *Bar, unsigned Bytes) {
#ifdef HOPPER
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smemAddr(Bar)), "r"(Bytes));
#endif
}
__device__ __forceinline__ void mbarWait(uint64_t *Bar, unsigned Phase) {
#ifdef HOPPER
  asm volatile("{\n .reg .pred p;\n wait_%=:\n"
               " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
               " @!p bra wait_%=;\n}" ::"r"(smemAddr(Bar)),
               "r"(Phase));
#endif
}
__device__ __forceinline__ void bulkGroupWait() {
#ifdef HOPPER
  asm volatile("cp.async.bulk.commit_group;");
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
}

// --- plain bulk copies and reductions ----------------------------------------------------------

constexpr int BulkN = 512; // floats

__global__ void bulkKernel(const float *In, float *Out, float *Sum, unsigned *Counts, int *Mins, __half *Halves,
                           unsigned char *Masked) {
#ifdef HOPPER
  __shared__ alignas(128) float Buf[BulkN];
  __shared__ alignas(16) unsigned CountBuf[64];
  __shared__ alignas(16) __half HalfBuf[64];
  __shared__ alignas(8) uint64_t Bar;
  if (threadIdx.x == 0) {
    mbarInit(&Bar, 1);
    mbarExpect(&Bar, sizeof Buf);
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smemAddr(Buf)),
                 "l"(In), "r"((unsigned)sizeof Buf), "r"(smemAddr(&Bar))
                 : "memory");
  }
  __syncthreads();
  mbarWait(&Bar, 0);
  for (int I = threadIdx.x; I < BulkN; I += blockDim.x)
    Buf[I] = Buf[I] * 2.0f + 1.0f;
  for (int I = threadIdx.x; I < 64; I += blockDim.x) {
    CountBuf[I] = I + 1;
    HalfBuf[I] = __float2half(0.25f * I);
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(Out), "r"(smemAddr(Buf)),
                 "r"((unsigned)sizeof Buf)
                 : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;" ::"l"(Sum),
                 "r"(smemAddr(Buf)), "r"((unsigned)sizeof Buf)
                 : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], %2;" ::"l"(Counts),
                 "r"(smemAddr(CountBuf)), "r"((unsigned)sizeof CountBuf)
                 : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.min.s32 [%0], [%1], %2;" ::"l"(Mins),
                 "r"(smemAddr(CountBuf)), "r"((unsigned)sizeof CountBuf)
                 : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [%0], [%1], %2;" ::"l"(Halves),
                 "r"(smemAddr(HalfBuf)), "r"((unsigned)sizeof HalfBuf)
                 : "memory");
    // Within shared memory, completing on an mbarrier (the same block's: a cluster of one).
    mbarExpect(&Bar, 64);
    asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smemAddr(Buf)),
                 "r"(smemAddr(CountBuf)), "r"(64u), "r"(smemAddr(&Bar))
                 : "memory");
    bulkGroupWait();
    mbarWait(&Bar, 1);
    for (int I = 0; I < 64; ++I)
      Masked[I] = reinterpret_cast<unsigned char *>(Buf)[I];
  }
#else
  __trap();
#endif
}

// --- tensor copies ------------------------------------------------------------------------------

/// Loads the box at (X, Y{, Z}) of Map into shared memory and writes the
/// shared bytes as they lie to Raw (Bytes of them).
template <int Rank>
__global__ void tmaLoadKernel(const __grid_constant__ CUtensorMap Map, int X, int Y, int Z, unsigned Bytes,
                              unsigned char *Raw) {
#ifdef HOPPER
  __shared__ alignas(1024) unsigned char Tile[16384];
  __shared__ alignas(8) uint64_t Bar;
  if (threadIdx.x == 0) {
    for (unsigned I = 0; I < Bytes; ++I)
      Tile[I] = 0xAB; // poison: every byte must be written
    mbarInit(&Bar, 1);
    mbarExpect(&Bar, Bytes);
    if (Rank == 2)
      asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, "
                   "%3}], [%4];" ::"r"(smemAddr(Tile)),
                   "l"(&Map), "r"(X), "r"(Y), "r"(smemAddr(&Bar))
                   : "memory");
    else
      asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, "
                   "%3, %4}], [%5];" ::"r"(smemAddr(Tile)),
                   "l"(&Map), "r"(X), "r"(Y), "r"(Z), "r"(smemAddr(&Bar))
                   : "memory");
  }
  __syncthreads();
  mbarWait(&Bar, 0);
  for (unsigned I = threadIdx.x; I < Bytes; I += blockDim.x)
    Raw[I] = Tile[I];
#else
  __trap();
#endif
}

/// Stores (or with Reduce adds) a Rows x Cols f32 tile from Src through Map at (X, Y).
__global__ void tmaStoreKernel(const __grid_constant__ CUtensorMap Map, int X, int Y, const float *Src, int N,
                               int Reduce) {
#ifdef HOPPER
  __shared__ alignas(1024) float Tile[4096];
  for (int I = threadIdx.x; I < N; I += blockDim.x)
    Tile[I] = Src[I];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    if (Reduce)
      asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                       &Map),
                   "r"(X), "r"(Y), "r"(smemAddr(Tile))
                   : "memory");
    else
      asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&Map),
                   "r"(X), "r"(Y), "r"(smemAddr(Tile))
                   : "memory");
    bulkGroupWait();
  }
#else
  __trap();
#endif
}

/// Copies Map to shared memory, points it at NewBase with NewWidth columns,
/// publishes it to Out (tensormap.cp_fenceproxy), then loads box (0, 0)
/// through the edited map (raw bytes to Raw).
__global__ void tmaReplaceKernel(const __grid_constant__ CUtensorMap Map, CUtensorMap *Out, const float *NewBase,
                                 unsigned NewWidth, unsigned Bytes, unsigned char *Raw) {
#ifdef HOPPER
  __shared__ alignas(128) CUtensorMap Edit;
  __shared__ alignas(1024) unsigned char Tile[8192];
  __shared__ alignas(8) uint64_t Bar;
  if (threadIdx.x == 0) {
    Edit = Map;
    asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;" ::"r"(smemAddr(&Edit)),
                 "l"(NewBase)
                 : "memory");
    asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 0, %1;" ::"r"(smemAddr(&Edit)),
                 "r"(NewWidth)
                 : "memory");
  }
  __syncwarp();
  if (threadIdx.x < 32)
    asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], "
                 "128;" ::"l"(Out),
                 "r"(smemAddr(&Edit))
                 : "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(Out) : "memory");
    mbarInit(&Bar, 1);
    mbarExpect(&Bar, Bytes);
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, "
                 "%3}], [%4];" ::"r"(smemAddr(Tile)),
                 "l"(Out), "r"(0), "r"(0), "r"(smemAddr(&Bar))
                 : "memory");
  }
  __syncthreads();
  mbarWait(&Bar, 0);
  for (unsigned I = threadIdx.x; I < Bytes; I += blockDim.x)
    Raw[I] = Tile[I];
#else
  __trap();
#endif
}

// --- host side ----------------------------------------------------------------------------------

static EncodeTiledFn Encode;

/// The documented swizzle: 16-byte chunk bits 4.. exchanged with address bits 7.. (1, 2, 3 bits).
static size_t swizzled(size_t Offset, int Swizzle) {
  if (Swizzle == CU_TENSOR_MAP_SWIZZLE_NONE)
    return Offset;
  size_t Bits = Swizzle == CU_TENSOR_MAP_SWIZZLE_32B ? 1 : Swizzle == CU_TENSOR_MAP_SWIZZLE_64B ? 2 : 3;
  size_t Row = (Offset >> 7) & ((1u << Bits) - 1);
  return Offset ^ (Row << 4);
}

struct Tensor3 {
  int W, H, D; // elements
  size_t Pitch, Plane; // bytes
  std::vector<float> Host;
  float *Dev = nullptr;
  float at(int X, int Y, int Z) const { return Host[(Z * Plane + Y * Pitch) / 4 + X]; }
};

static Tensor3 makeTensor(int W, int H, int D, int PitchElems) {
  Tensor3 T{W, H, D, size_t(PitchElems) * 4, size_t(PitchElems) * 4 * H};
  T.Host.assign(size_t(PitchElems) * H * D, -7.0f);
  for (int Z = 0; Z < D; ++Z)
    for (int Y = 0; Y < H; ++Y)
      for (int X = 0; X < W; ++X)
        T.Host[(Z * T.Plane + Y * T.Pitch) / 4 + X] = float(Z * 100000 + Y * 1000 + X);
  T.Dev = dev(T.Host);
  return T;
}

/// Loads box Box (elements) with element strides Es at (X, Y, Z) and compares
/// every shared byte with the documented layout: rows of Box[0] elements,
/// dimension 1 then 2 by their stride's count, swizzled; outside the tensor 0
/// or the NaN an H100 fills with.
static int checkLoad(const char *Name, const Tensor3 &T, int Rank, const cuuint32_t *Box, const cuuint32_t *Es,
                     CUtensorMapSwizzle Sw, CUtensorMapFloatOOBfill Fill, int X, int Y, int Z) {
  int Bad = 0;
  CUtensorMap Map;
  cuuint64_t Dims[3] = {cuuint64_t(T.W), cuuint64_t(T.H), cuuint64_t(T.D)};
  cuuint64_t Strides[2] = {T.Pitch, T.Plane};
  CUresult R = Encode(&Map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, Rank, T.Dev, Dims, Strides, Box, Es,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, Sw, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, Fill);
  if (R != CUDA_SUCCESS) {
    std::printf("FAIL %s: encode returned %d\n", Name, int(R));
    return 1;
  }
  int Cnt[3] = {int(Box[0]), Rank > 1 ? int((Box[1] + Es[1] - 1) / Es[1]) : 1,
                Rank > 2 ? int((Box[2] + Es[2] - 1) / Es[2]) : 1};
  unsigned Bytes = unsigned(Cnt[0] * Cnt[1] * Cnt[2] * 4);
  unsigned char *Raw;
  CHECK(cudaMalloc(&Raw, Bytes));
  if (Rank == 2)
    tmaLoadKernel<2><<<1, 128>>>(Map, X, Y, Z, Bytes, Raw);
  else
    tmaLoadKernel<3><<<1, 128>>>(Map, X, Y, Z, Bytes, Raw);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> Got = host(Raw, Bytes);
  CHECK(cudaFree(Raw));
  for (int K = 0; K < Cnt[2]; ++K)
    for (int J = 0; J < Cnt[1]; ++J)
      for (int I = 0; I < Cnt[0]; ++I) {
        int GX = X + I, GY = Y + J * int(Es[1]), GZ = Z + K * (Rank > 2 ? int(Es[2]) : 1);
        bool In = GX >= 0 && GX < T.W && GY >= 0 && GY < T.H && GZ >= 0 && GZ < T.D;
        uint32_t Want;
        if (In) {
          float V = T.at(GX, GY, GZ);
          std::memcpy(&Want, &V, 4);
        } else {
          // The NaN an H100 fills with: 0x7ff7 in both halves (not the canonical 0x7fffffff).
          Want = Fill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE ? 0u : 0x7ff77ff7u;
        }
        size_t Lin = (size_t(K * Cnt[1] + J) * Cnt[0] + I) * 4;
        uint32_t Have;
        std::memcpy(&Have, &Got[swizzled(Lin, Sw)], 4);
        if (Have != Want && Bad++ < 4)
          std::printf("  %s: element (%d,%d,%d) got %08x want %08x\n", Name, I, J, K, Have, Want);
      }
  return verdict(Name, Bad);
}

int main() {
  int Bad = 0;
  Encode = tensorMapEncoder();

  // Plain bulk copies and reductions.
  {
    std::vector<float> In(BulkN), Sum(BulkN);
    for (int I = 0; I < BulkN; ++I) {
      In[I] = 0.5f * I - 3.0f;
      Sum[I] = 1000.0f + I;
    }
    std::vector<unsigned> Counts(64, 7);
    std::vector<int> Mins(64);
    for (int I = 0; I < 64; ++I)
      Mins[I] = 40 - I; // min(40 - I, I + 1)
    std::vector<__half> Halves(64);
    for (int I = 0; I < 64; ++I)
      Halves[I] = __float2half(1.0f + I);
    std::vector<unsigned char> Masked(64, 0xEE);
    float *DIn = dev(In), *DOut, *DSum = dev(Sum);
    unsigned *DCounts = dev(Counts);
    int *DMins = dev(Mins);
    __half *DHalves = dev(Halves);
    unsigned char *DMasked = dev(Masked);
    CHECK(cudaMalloc(&DOut, BulkN * 4));
    // A cluster launch (of one block): an H100 refuses the shared-to-shared
    // copy ("illegal instruction") in a launch without cluster dimensions.
    cudaLaunchConfig_t Cfg = {};
    Cfg.gridDim = dim3(1);
    Cfg.blockDim = dim3(128);
    cudaLaunchAttribute A[1];
    A[0].id = cudaLaunchAttributeClusterDimension;
    A[0].val.clusterDim.x = A[0].val.clusterDim.y = A[0].val.clusterDim.z = 1;
    Cfg.attrs = A;
    Cfg.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&Cfg, bulkKernel, (const float *)DIn, DOut, DSum, DCounts, DMins, DHalves, DMasked));
    CHECK(cudaDeviceSynchronize());
    std::vector<float> Out = host(DOut, BulkN), Sum2 = host(DSum, BulkN);
    std::vector<unsigned> Counts2 = host(DCounts, 64);
    std::vector<int> Mins2 = host(DMins, 64);
    std::vector<__half> Halves2 = host(DHalves, 64);
    std::vector<unsigned char> Masked2 = host(DMasked, 64);
    int B = 0;
    for (int I = 0; I < BulkN; ++I) {
      float T = In[I] * 2.0f + 1.0f;
      B += Out[I] != T;
      B += Sum2[I] != Sum[I] + T;
    }
    for (int I = 0; I < 64; ++I) {
      B += Counts2[I] != 7u + I + 1;
      B += Mins2[I] != std::min(40 - I, I + 1);
      B += __half2float(Halves2[I]) != 1.0f + I + 0.25f * I;
      unsigned W = I / 4 + 1; // CountBuf's word holding byte I
      B += Masked2[I] != (unsigned char)(W >> (8 * (I % 4)));
    }
    Bad += verdict("bulk copies, reductions and a shared-to-shared copy", B);
  }

  // Tiled loads. An H100 faults ("illegal instruction") on a tile whose
  // innermost coordinate is not a multiple of 16 bytes (x = 3, 13, 41 or 90
  // floats, with or without a swizzle; 4, 12, 40 and 88 load), so every x here is.
  Tensor3 T2 = makeTensor(100, 70, 1, 112); // rows padded to 448 bytes
  cuuint32_t Es1[3] = {1, 1, 1}, Es2[3] = {1, 2, 1};
  cuuint32_t BoxA[2] = {32, 8};  // 128-byte rows
  cuuint32_t BoxB[2] = {16, 12}; // 64-byte rows
  cuuint32_t BoxC[2] = {8, 20};  // 32-byte rows
  Bad += checkLoad("2-D tile inside", T2, 2, BoxA, Es1, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
                   12, 9, 0);
  Bad += checkLoad("2-D tile, 128-byte swizzle", T2, 2, BoxA, Es1, CU_TENSOR_MAP_SWIZZLE_128B,
                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, 40, 20, 0);
  Bad += checkLoad("2-D tile, 64-byte swizzle", T2, 2, BoxB, Es1, CU_TENSOR_MAP_SWIZZLE_64B,
                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, 4, 50, 0);
  Bad += checkLoad("2-D tile, 32-byte swizzle", T2, 2, BoxC, Es1, CU_TENSOR_MAP_SWIZZLE_32B,
                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, 88, 60, 0);
  Bad += checkLoad("2-D tile over the edges, zero fill", T2, 2, BoxA, Es1, CU_TENSOR_MAP_SWIZZLE_128B,
                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, 80, 66, 0);
  Bad += checkLoad("2-D tile at negative coordinates, NaN fill", T2, 2, BoxA, Es1, CU_TENSOR_MAP_SWIZZLE_NONE,
                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA, -8, -3, 0);
  Tensor3 T3 = makeTensor(40, 9, 6, 48);
  cuuint32_t Box3[3] = {16, 4, 3};
  Bad += checkLoad("3-D tile with an element stride", T3, 3, Box3, Es2, CU_TENSOR_MAP_SWIZZLE_64B,
                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, 28, 5, 4);

  // Tiled stores and reductions, clipped at the tensor's edge.
  {
    Tensor3 S = makeTensor(100, 70, 1, 112);
    CUtensorMap Map;
    cuuint64_t Dims[2] = {100, 70}, Strides[1] = {S.Pitch};
    cuuint32_t Box[2] = {32, 8};
    CUresult R = Encode(&Map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, S.Dev, Dims, Strides, Box, Es1,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    std::vector<float> Tile(256);
    for (int I = 0; I < 256; ++I)
      Tile[I] = -1.0f - I;
    float *DTile = dev(Tile);
    std::vector<float> Want = S.Host;
    int B = R != CUDA_SUCCESS;
    // Clipped at the right and bottom edges. (An H100 refuses a tile store or
    // reduction at a negative coordinate: "illegal instruction".)
    tmaStoreKernel<<<1, 128>>>(Map, 80, 66, DTile, 256, 0); // store: columns 80..99, rows 66..69 land
    tmaStoreKernel<<<1, 128>>>(Map, 0, 64, DTile, 256, 1);  // add: columns 0..31, rows 64..69
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    for (int J = 0; J < 8; ++J)
      for (int I = 0; I < 32; ++I) {
        if (80 + I < 100 && 66 + J < 70)
          Want[(66 + J) * 112 + 80 + I] = Tile[J * 32 + I];
        if (64 + J < 70)
          Want[(64 + J) * 112 + I] += Tile[J * 32 + I];
      }
    std::vector<float> Got = host(S.Dev, Want.size());
    for (size_t I = 0; I < Want.size(); ++I)
      B += Got[I] != Want[I]; // the padding columns too: nothing past the edge is written
    Bad += verdict("tile stores and reductions clipped at the edge", B);
  }

  // A map edited in the kernel.
  {
    Tensor3 A = makeTensor(64, 16, 1, 64), Other = makeTensor(20, 16, 1, 64);
    for (float &V : Other.Host)
      V = -V;
    CHECK(cudaMemcpy(Other.Dev, Other.Host.data(), Other.Host.size() * 4, cudaMemcpyHostToDevice));
    CUtensorMap Map, *DMap;
    cuuint64_t Dims[2] = {64, 16}, Strides[1] = {A.Pitch};
    cuuint32_t Box[2] = {32, 4};
    int B = Encode(&Map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, A.Dev, Dims, Strides, Box, Es1,
                   CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS;
    CHECK(cudaMalloc(&DMap, sizeof(CUtensorMap)));
    unsigned char *Raw;
    CHECK(cudaMalloc(&Raw, 32 * 4 * 4));
    tmaReplaceKernel<<<1, 64>>>(Map, DMap, Other.Dev, 20, 32 * 4 * 4, Raw);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> Got = host(reinterpret_cast<float *>(Raw), 128);
    for (int J = 0; J < 4; ++J)
      for (int I = 0; I < 32; ++I)
        B += Got[J * 32 + I] != (I < 20 ? Other.at(I, J, 0) : 0.0f); // the new base, 20 columns wide
    Bad += verdict("tensormap.replace and cp_fenceproxy", B);
  }

  // The driver's parameter checks (CUDA Driver API reference).
  {
    CUtensorMap Map;
    cuuint64_t Dims[2] = {100, 70}, Strides[1] = {448}, BadStride[1] = {440};
    cuuint32_t Box[2] = {32, 8}, BigBox[2] = {32, 257}, NarrowBox[2] = {3, 8}, Es9[2] = {1, 9};
    auto enc = [&](void *Addr, cuuint32_t Rank, const cuuint64_t *St, const cuuint32_t *Bx, const cuuint32_t *Es,
                   CUtensorMapInterleave Il, CUtensorMapSwizzle Sw, CUtensorMapDataType Ty) {
      return Encode(&Map, Ty, Rank, Addr, Dims, St, Bx, Es, Il, Sw, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    };
    char *Base = reinterpret_cast<char *>(T2.Dev);
    const auto F32 = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    const auto NoIl = CU_TENSOR_MAP_INTERLEAVE_NONE;
    const auto NoSw = CU_TENSOR_MAP_SWIZZLE_NONE;
    int B = 0;
    // Prints the check a driver answers otherwise (its line), for the device machine's runs.
    auto chk = [](int Line, CUresult Got, CUresult Want) {
      if (Got != Want)
        std::printf("  encode check at line %d: got %d, want %d\n", Line, int(Got), int(Want));
      return Got != Want ? 1 : 0;
    };
    B += chk(__LINE__, enc(Base, 2, Strides, Box, Es1, NoIl, NoSw, F32), CUDA_SUCCESS);
    B += chk(__LINE__, enc(Base + 4, 2, Strides, Box, Es1, NoIl, NoSw, F32), CUDA_ERROR_INVALID_VALUE);    // address alignment
    B += chk(__LINE__, enc(Base, 0, Strides, Box, Es1, NoIl, NoSw, F32), CUDA_ERROR_INVALID_VALUE);        // rank 0
    B += chk(__LINE__, enc(Base, 6, Strides, Box, Es1, NoIl, NoSw, F32), CUDA_ERROR_INVALID_VALUE);        // rank 6
    B += chk(__LINE__, enc(Base, 2, BadStride, Box, Es1, NoIl, NoSw, F32), CUDA_ERROR_INVALID_VALUE);      // stride % 16
    B += chk(__LINE__, enc(Base, 2, Strides, BigBox, Es1, NoIl, NoSw, F32), CUDA_ERROR_INVALID_VALUE);     // box > 256
    B += chk(__LINE__, enc(Base, 2, Strides, NarrowBox, Es1, NoIl, NoSw, F32), CUDA_ERROR_INVALID_VALUE);  // 12-byte rows
    B += chk(__LINE__, enc(Base, 2, Strides, Box, Es9, NoIl, NoSw, F32), CUDA_ERROR_INVALID_VALUE);        // element stride 9
    B += chk(__LINE__, enc(Base, 2, Strides, Box, Es1, NoIl, CU_TENSOR_MAP_SWIZZLE_64B, F32), CUDA_ERROR_INVALID_VALUE); // 128 > 64
    B += chk(__LINE__, enc(Base, 2, Strides, Box, Es1, NoIl, NoSw, CU_TENSOR_MAP_DATA_TYPE_INT32), CUDA_SUCCESS);
    B += chk(__LINE__, Encode(&Map, CU_TENSOR_MAP_DATA_TYPE_INT32, 2, Base, Dims, Strides, Box, Es1, NoIl, NoSw,
                CU_TENSOR_MAP_L2_PROMOTION_NONE,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA), CUDA_ERROR_INVALID_VALUE); // NaN fill of ints
    B += chk(__LINE__, Encode(reinterpret_cast<CUtensorMap *>(reinterpret_cast<char *>(&Map) + 8), F32, 2, Base, Dims, Strides,
                Box, Es1, NoIl, NoSw, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE), CUDA_SUCCESS); // a map 8 bytes off 64: an H100's driver encodes it
    B += chk(__LINE__, Encode(&Map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, nullptr, Dims, Strides, Box, Es1, NoIl, NoSw,
                CU_TENSOR_MAP_L2_PROMOTION_NONE,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE), CUDA_SUCCESS); // a template without an address
    Bad += verdict("cuTensorMapEncodeTiled's parameter checks", B);
  }
  std::printf("%s\n", Bad ? "FAIL" : "PASS");
  return Bad ? 1 : 0;
}
