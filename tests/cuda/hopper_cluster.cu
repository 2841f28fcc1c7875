// Thread-block clusters (sm_90) as cooperative groups and inline PTX use them:
// a kernel with __cluster_dims__ reading its neighbours' shared memory after
// cluster.sync(); a distributed shared-memory histogram launched with
// cudaLaunchKernelEx's cluster dimension attribute (1-D and 2-D clusters);
// mapa.shared::cluster loads and stores and a remote mbarrier arrive in PTX;
// st.async and red.async into the other block completing on its mbarrier's
// transaction count (CUTLASS's store_shared_remote);
// the cluster special registers; grids the cluster does not divide. Every
// result is checked against the host's own computation.
#include "hopper_common.h"

#include <cooperative_groups.h>
#include <cstdint>

namespace cg = cooperative_groups;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define HOPPER 1
#endif
// The corpus also builds this file for older architectures, which refuse the attribute.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define CLUSTER_OF_2 __cluster_dims__(2, 1, 1)
#else
#define CLUSTER_OF_2
#endif

constexpr int Threads = 128;

/// Each block writes its rank-tagged values, then reads the next rank's.
__global__ void CLUSTER_OF_2 neighbours(int *Out, unsigned *Regs) {
#ifdef HOPPER
  __shared__ int Mine[Threads];
  cg::cluster_group Cl = cg::this_cluster();
  unsigned Rank = Cl.block_rank();
  Mine[threadIdx.x] = int(blockIdx.x * 1000 + threadIdx.x);
  Cl.sync();
  int *Theirs = Cl.map_shared_rank(Mine, (Rank + 1) % Cl.num_blocks());
  Out[blockIdx.x * Threads + threadIdx.x] = Theirs[threadIdx.x];
  if (threadIdx.x == 0) {
    unsigned Id, NId, Cta, NCta;
    asm("mov.u32 %0, %%clusterid.x;" : "=r"(Id));
    asm("mov.u32 %0, %%nclusterid.x;" : "=r"(NId));
    asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(Cta));
    asm("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(NCta));
    unsigned Explicit;
    asm("{\n .reg .pred p;\n mov.pred p, %%is_explicit_cluster;\n selp.u32 %0, 1, 0, p;\n}" : "=r"(Explicit));
    unsigned *R = Regs + blockIdx.x * 8;
    R[0] = Rank;
    R[1] = Cl.num_blocks();
    R[2] = Id;
    R[3] = NId;
    R[4] = Cta;
    R[5] = NCta;
    R[6] = Explicit;
  }
  Cl.sync(); // no block leaves while another may still read its shared memory
#else
  __trap();
#endif
}

constexpr int Bins = 64;

/// Values are counted in the histogram slice of the block whose rank is
/// (value / slice) in the cluster; each block then writes its slice.
__global__ void histogram(const int *Values, int N, unsigned *Hist) {
#ifdef HOPPER
  extern __shared__ unsigned Slice[];
  cg::cluster_group Cl = cg::this_cluster();
  unsigned Size = Cl.num_blocks(), Per = Bins / Size;
  for (unsigned I = threadIdx.x; I < Per; I += blockDim.x)
    Slice[I] = 0;
  Cl.sync();
  unsigned Cluster = blockIdx.x / Cl.dim_blocks().x + gridDim.x / Cl.dim_blocks().x * (blockIdx.y / Cl.dim_blocks().y);
  unsigned First = Cluster * blockDim.x * Size; // this cluster's values
  for (unsigned I = Cl.thread_rank(); I < blockDim.x * Size; I += blockDim.x * Size) {
    if (First + I >= unsigned(N))
      break;
    int V = Values[First + I];
    unsigned *Dst = Cl.map_shared_rank(Slice, V / Per);
    atomicAdd(&Dst[V % Per], 1u);
  }
  Cl.sync();
  for (unsigned I = threadIdx.x; I < Per; I += blockDim.x)
    atomicAdd(&Hist[Cl.block_rank() * Per + I], Slice[I]);
#else
  __trap();
#endif
}

/// PTX's own forms: mapa.shared::cluster, ld/st.shared::cluster, and an
/// arrive on the next block's mbarrier, which that block waits for.
__global__ void CLUSTER_OF_2 ptxForms(unsigned *Out) {
#ifdef HOPPER
  __shared__ unsigned Box;
  __shared__ alignas(8) uint64_t Bar;
  unsigned Rank;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(Rank));
  unsigned Next = (Rank + 1) % 2;
  if (threadIdx.x == 0) {
    Box = 0;
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smemAddr(&Bar)));
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (threadIdx.x == 0) {
    unsigned Local = smemAddr(&Box), Remote, RemoteBar, Check;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(Remote) : "r"(Local), "r"(Next));
    asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(Check) : "r"(Remote));
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(Remote), "r"(100 + Rank) : "memory");
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(RemoteBar)
                 : "r"(smemAddr(&Bar)), "r"(Next));
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(RemoteBar) : "memory");
    // Our own barrier completes when the other block has stored into our Box and arrived.
    asm volatile("{\n .reg .pred p;\n w_%=:\n mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], 0;\n"
                 " @!p bra w_%=;\n}" ::"r"(smemAddr(&Bar))
                 : "memory");
    unsigned Mine, Peer;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(Mine) : "r"(Local));
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(Peer) : "r"(Remote));
    Out[blockIdx.x * 4 + 0] = Mine;
    Out[blockIdx.x * 4 + 1] = Peer;
    Out[blockIdx.x * 4 + 2] = Check;
  }
  asm volatile("barrier.cluster.arrive.aligned;\nbarrier.cluster.wait.aligned;" ::: "memory");
#else
  __trap();
#endif
}

/// st.async (scalar and .v2) and red.async into the other block's shared
/// memory, each completing its bytes on that block's mbarrier, which expects
/// 16 bytes and waits for them.
__global__ void CLUSTER_OF_2 asyncStores(unsigned *Out) {
#ifdef HOPPER
  __shared__ alignas(16) unsigned Slots[4];
  __shared__ unsigned Acc;
  __shared__ alignas(8) uint64_t Bar;
  unsigned Rank;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(Rank));
  if (threadIdx.x == 0) {
    Slots[0] = Slots[1] = Slots[2] = Slots[3] = 0;
    Acc = 1000;
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smemAddr(&Bar)));
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16;" ::"r"(smemAddr(&Bar)) : "memory");
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (threadIdx.x == 0) {
    unsigned Peer = Rank ^ 1, RSlots, RAcc, RBar;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(RSlots) : "r"(smemAddr(Slots)), "r"(Peer));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(RAcc) : "r"(smemAddr(&Acc)), "r"(Peer));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(RBar) : "r"(smemAddr(&Bar)), "r"(Peer));
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];" ::"r"(RSlots),
                 "r"(200 + Rank), "r"(RBar)
                 : "memory");
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.u32 [%0], {%1, %2}, [%3];" ::"r"(RSlots + 8),
                 "r"(300 + Rank), "r"(400 + Rank), "r"(RBar)
                 : "memory");
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%0], %1, [%2];" ::"r"(
                     RAcc),
                 "r"(7 + Rank), "r"(RBar)
                 : "memory");
    asm volatile("{\n .reg .pred p;\n w_%=:\n mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], 0;\n"
                 " @!p bra w_%=;\n}" ::"r"(smemAddr(&Bar))
                 : "memory");
    Out[blockIdx.x * 4 + 0] = Slots[0];
    Out[blockIdx.x * 4 + 1] = Slots[2];
    Out[blockIdx.x * 4 + 2] = Slots[3];
    Out[blockIdx.x * 4 + 3] = Acc;
  }
  asm volatile("barrier.cluster.arrive.aligned;\nbarrier.cluster.wait.aligned;" ::: "memory");
#else
  __trap();
#endif
}

/// Rank 0 loads a 32x8 f32 tile with TMA and 256 more bytes with a plain bulk
/// copy, both multicast to every block of the cluster (CTA mask 0b11); each
/// block waits on its own mbarrier and writes what landed in its shared memory.
__global__ void CLUSTER_OF_2 multicast(const __grid_constant__ CUtensorMap Map, const float *Src, float *Out) {
#ifdef HOPPER
  __shared__ alignas(128) float Tile[256];
  __shared__ alignas(128) float Extra[64];
  __shared__ alignas(8) uint64_t Bar;
  cg::cluster_group Cl = cg::this_cluster();
  unsigned BarAddr = smemAddr(&Bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(BarAddr));
    asm volatile("fence.mbarrier_init.release.cluster;");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(BarAddr), "r"(1024u + 256u));
  }
  Cl.sync(); // every block expects its bytes before they are sent
  if (threadIdx.x == 0 && Cl.block_rank() == 0) {
    unsigned short Mask = 3;
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
                 "[%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smemAddr(Tile)),
                 "l"(&Map), "r"(8), "r"(4), "r"(BarAddr), "h"(Mask)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, "
                 "[%3], %4;" ::"r"(smemAddr(Extra)),
                 "l"(Src), "r"(256u), "r"(BarAddr), "h"(Mask)
                 : "memory");
  }
  asm volatile("{\n .reg .pred p;\n w_%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n @!p bra w_%=;\n}" ::"r"(
                   BarAddr)
               : "memory");
  for (unsigned I = threadIdx.x; I < 256; I += blockDim.x)
    Out[blockIdx.x * 320 + I] = Tile[I];
  for (unsigned I = threadIdx.x; I < 64; I += blockDim.x)
    Out[blockIdx.x * 320 + 256 + I] = Extra[I];
  Cl.sync();
#else
  __trap();
#endif
}


int main() {
  int Bad = 0;
  {
    EncodeTiledFn Encode = tensorMapEncoder();
    const int W = 64, H = 16;
    std::vector<float> M(W * H), S(64);
    for (int I = 0; I < W * H; ++I)
      M[I] = float(I) * 0.5f;
    for (int I = 0; I < 64; ++I)
      S[I] = -float(I);
    float *DM = dev(M), *DS = dev(S), *Out;
    CHECK(cudaMalloc(&Out, 4 * 320 * sizeof(float)));
    CUtensorMap Map;
    cuuint64_t Dims[2] = {W, H}, Strides[1] = {W * 4};
    cuuint32_t Box[2] = {32, 8}, Es[2] = {1, 1};
    int B = Encode(&Map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, DM, Dims, Strides, Box, Es,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                              CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS;
    multicast<<<4, 64>>>(Map, DS, Out);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> O = host(Out, 4 * 320);
    for (int Blk = 0; Blk < 4; ++Blk) {
      for (int R = 0; R < 8; ++R)
        for (int C = 0; C < 32; ++C)
          B += O[Blk * 320 + R * 32 + C] != M[(4 + R) * W + 8 + C];
      for (int I = 0; I < 64; ++I)
        B += O[Blk * 320 + 256 + I] != S[I];
    }
    Bad += verdict("TMA and bulk copies multicast to a cluster of 2", B);
  }
  {
    const int Blocks = 6;
    int *Out;
    unsigned *Regs;
    CHECK(cudaMalloc(&Out, Blocks * Threads * sizeof(int)));
    CHECK(cudaMalloc(&Regs, Blocks * 8 * sizeof(unsigned)));
    neighbours<<<Blocks, Threads>>>(Out, Regs);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<int> O = host(Out, Blocks * Threads);
    std::vector<unsigned> R = host(Regs, Blocks * 8);
    int B = 0;
    for (int Blk = 0; Blk < Blocks; ++Blk) {
      int Peer = (Blk / 2) * 2 + (Blk % 2 + 1) % 2;
      for (int T = 0; T < Threads; ++T)
        B += O[Blk * Threads + T] != Peer * 1000 + T;
      unsigned Want[7] = {unsigned(Blk % 2), 2, unsigned(Blk / 2), Blocks / 2, unsigned(Blk % 2), 2, 1};
      for (int I = 0; I < 7; ++I)
        if (R[Blk * 8 + I] != Want[I] && B++ < 8)
          std::printf("  block %d register %d = %u, want %u\n", Blk, I, R[Blk * 8 + I], Want[I]);
    }
    Bad += verdict("__cluster_dims__: neighbours' shared memory and the cluster registers", B);
  }
  for (int Shape = 0; Shape < 2; ++Shape) {
    // 1-D clusters of 4 over 8 blocks, or 2x2 clusters over a 4x2 grid.
    dim3 Grid = Shape ? dim3(4, 2) : dim3(8), Cl = Shape ? dim3(2, 2) : dim3(4);
    int Size = Cl.x * Cl.y, N = int(Grid.x * Grid.y) * Threads;
    std::vector<int> V(N);
    std::vector<unsigned> Want(Bins, 0);
    for (int I = 0; I < N; ++I) {
      V[I] = (I * 37 + I / 7) % Bins;
      ++Want[V[I]];
    }
    int *DV = dev(V);
    unsigned *DH;
    CHECK(cudaMalloc(&DH, Bins * sizeof(unsigned)));
    CHECK(cudaMemset(DH, 0, Bins * sizeof(unsigned)));
    cudaLaunchConfig_t Cfg = {};
    Cfg.gridDim = Grid;
    Cfg.blockDim = dim3(Threads);
    Cfg.dynamicSmemBytes = Bins / Size * sizeof(unsigned);
    cudaLaunchAttribute A[1];
    A[0].id = cudaLaunchAttributeClusterDimension;
    A[0].val.clusterDim.x = Cl.x;
    A[0].val.clusterDim.y = Cl.y;
    A[0].val.clusterDim.z = 1;
    Cfg.attrs = A;
    Cfg.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&Cfg, histogram, (const int *)DV, N, DH));
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned> H = host(DH, Bins);
    int B = 0;
    for (int I = 0; I < Bins; ++I)
      B += H[I] != Want[I];
    Bad += verdict(Shape ? "distributed histogram, 2x2 clusters" : "distributed histogram, clusters of 4", B);
    // A grid the cluster does not divide.
    Cfg.gridDim = dim3(Shape ? 3 : 6, 2);
    B = cudaLaunchKernelEx(&Cfg, histogram, (const int *)DV, N, DH) != cudaErrorInvalidClusterSize;
    (void)cudaGetLastError();
    Bad += verdict("a grid the cluster does not divide is refused", B);
    CHECK(cudaFree(DV));
    CHECK(cudaFree(DH));
  }
  {
    unsigned *Out;
    CHECK(cudaMalloc(&Out, 4 * 4 * sizeof(unsigned)));
    ptxForms<<<4, 64>>>(Out);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned> O = host(Out, 16);
    int B = 0;
    for (int Blk = 0; Blk < 4; ++Blk) {
      unsigned Rank = Blk % 2, Next = (Rank + 1) % 2;
      B += O[Blk * 4 + 0] != 100 + Next; // the other block stored into our box
      B += O[Blk * 4 + 1] != 100 + Rank; // and we into theirs
      B += O[Blk * 4 + 2] != Next;       // getctarank of the mapped address
    }
    Bad += verdict("mapa/getctarank/ld/st .shared::cluster and a remote mbarrier arrive", B);
  }
  {
    unsigned *Out;
    CHECK(cudaMalloc(&Out, 4 * 4 * sizeof(unsigned)));
    asyncStores<<<4, 64>>>(Out);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned> O = host(Out, 16);
    int B = 0;
    for (int Blk = 0; Blk < 4; ++Blk) {
      unsigned Peer = (Blk % 2) ^ 1;
      B += O[Blk * 4 + 0] != 200 + Peer;
      B += O[Blk * 4 + 1] != 300 + Peer;
      B += O[Blk * 4 + 2] != 400 + Peer;
      B += O[Blk * 4 + 3] != 1007 + Peer;
    }
    CHECK(cudaFree(Out));
    Bad += verdict("st.async/red.async into the other block, completing on its mbarrier", B);
  }
  std::printf("%s\n", Bad ? "FAIL" : "PASS");
  return Bad ? 1 : 0;
}
