// Asynchronous copies into shared memory completed through block barriers
// (cuda::barrier, cuda::memcpy_async, cuda::pipeline from libcu++): on
// sm_80 and newer these are mbarrier objects, cp.async and
// cp.async.mbarrier.arrive. Results are checked against a CPU reference.
#include "common.h"

#include <cooperative_groups.h>
#pragma nv_diag_suppress static_var_with_dynamic_init // cuda::barrier in __shared__, set up by init()
#include <cuda/barrier>
#include <cuda/pipeline>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;
constexpr int Tile = 256;

/// Each block walks its tiles double-buffered: tile t+1 is copied while tile
/// t is used; a barrier per buffer says when a copy is complete.
__global__ void scaleTiles(const float *In, float *Out, int Tiles, float S) {
  __shared__ float Buf[2][Tile];
  __shared__ cuda::barrier<cuda::thread_scope_block> Bar[2];
  auto Block = cg::this_thread_block();
  if (Block.thread_rank() == 0) {
    init(&Bar[0], Block.size());
    init(&Bar[1], Block.size());
  }
  Block.sync();
  int First = blockIdx.x, Step = gridDim.x;
  if (First < Tiles)
    cuda::memcpy_async(Block, Buf[0], In + size_t(First) * Tile, sizeof(float) * Tile, Bar[0]);
  int B = 0;
  for (int T = First; T < Tiles; T += Step, B ^= 1) {
    if (T + Step < Tiles)
      cuda::memcpy_async(Block, Buf[B ^ 1], In + size_t(T + Step) * Tile, sizeof(float) * Tile, Bar[B ^ 1]);
    Bar[B].arrive_and_wait();
    int I = threadIdx.x;
    // Reads a neighbour's element: the whole tile must have arrived.
    Out[size_t(T) * Tile + I] = S * Buf[B][I] + Buf[B][(I + 1) % Tile];
    Block.sync(); // the buffer is refilled next round
  }
}

/// A split arrive/wait: the token of arrive(), then wait(token) after
/// independent work; phase by phase, every thread sees all the others' stores.
__global__ void phases(int *Out, int Rounds) {
  __shared__ int Vals[Tile];
  __shared__ cuda::barrier<cuda::thread_scope_block> Bar;
  if (threadIdx.x == 0)
    init(&Bar, blockDim.x);
  __syncthreads();
  int Acc = 0;
  for (int R = 0; R < Rounds; ++R) {
    Vals[threadIdx.x] = R * 1000 + threadIdx.x;
    auto Token = Bar.arrive();
    int Local = R * 7;
    Bar.wait(std::move(Token));
    Acc += Vals[(threadIdx.x + R + 1) % blockDim.x] + Local;
    Bar.arrive_and_wait(); // nobody overwrites Vals before all have read
  }
  Out[blockIdx.x * blockDim.x + threadIdx.x] = Acc;
}

/// cuda::pipeline with per-thread stages (cp.async groups).
__global__ void pipelineSum(const float *In, float *Out, int Chunks) {
  constexpr int Stages = 2;
  __shared__ float Stage[Stages][Tile];
  auto Pipe = cuda::make_pipeline();
  float Sum = 0;
  int Fetch = 0;
  for (int C = 0; C < Chunks; ++C) {
    for (; Fetch < Chunks && Fetch < C + Stages; ++Fetch) {
      Pipe.producer_acquire();
      cuda::memcpy_async(&Stage[Fetch % Stages][threadIdx.x], &In[size_t(Fetch) * Tile + threadIdx.x], sizeof(float),
                         Pipe);
      Pipe.producer_commit();
    }
    Pipe.consumer_wait();
    Sum += Stage[C % Stages][threadIdx.x];
    Pipe.consumer_release();
  }
  Out[threadIdx.x] = Sum;
}

int main() {
  const int Tiles = 37, N = Tiles * Tile;
  std::vector<float> In(N), Out(N, -1.0f);
  srand(11);
  for (float &X : In)
    X = float(rand() % 2001 - 1000) / 8.0f;
  float *DIn, *DOut;
  CHECK(cudaMalloc(&DIn, N * sizeof(float)));
  CHECK(cudaMalloc(&DOut, N * sizeof(float)));
  CHECK(cudaMemcpy(DIn, In.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(DOut, 0xFF, N * sizeof(float)));
  scaleTiles<<<5, Tile>>>(DIn, DOut, Tiles, 3.0f);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(Out.data(), DOut, N * sizeof(float), cudaMemcpyDeviceToHost));
  int Bad = 0;
  for (int T = 0; T < Tiles; ++T)
    for (int I = 0; I < Tile; ++I) {
      float Want = 3.0f * In[T * Tile + I] + In[T * Tile + (I + 1) % Tile];
      Bad += Out[T * Tile + I] != Want;
    }
  if (Bad) {
    std::printf("FAIL: scaleTiles: %d of %d elements differ\n", Bad, N);
    return 1;
  }

  const int Blocks = 3, Rounds = 5;
  int *DPh;
  CHECK(cudaMalloc(&DPh, Blocks * Tile * sizeof(int)));
  phases<<<Blocks, Tile>>>(DPh, Rounds);
  CHECK(cudaGetLastError());
  std::vector<int> Ph(Blocks * Tile);
  CHECK(cudaMemcpy(Ph.data(), DPh, Ph.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (int B = 0; B < Blocks; ++B)
    for (int I = 0; I < Tile; ++I) {
      int Want = 0;
      for (int R = 0; R < Rounds; ++R)
        Want += R * 1000 + (I + R + 1) % Tile + R * 7;
      if (Ph[B * Tile + I] != Want) {
        std::printf("FAIL: phases: block %d thread %d: %d, want %d\n", B, I, Ph[B * Tile + I], Want);
        return 1;
      }
    }

  const int Chunks = 9;
  pipelineSum<<<1, Tile>>>(DIn, DOut, Chunks);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(Out.data(), DOut, Tile * sizeof(float), cudaMemcpyDeviceToHost));
  for (int I = 0; I < Tile; ++I) {
    float Want = 0;
    for (int C = 0; C < Chunks; ++C)
      Want += In[C * Tile + I];
    if (Out[I] != Want) {
      std::printf("FAIL: pipelineSum: thread %d: %g, want %g\n", I, Out[I], Want);
      return 1;
    }
  }
  CHECK(cudaFree(DIn));
  CHECK(cudaFree(DOut));
  CHECK(cudaFree(DPh));
  std::printf("async_barrier: PASS\n");
  return 0;
}
