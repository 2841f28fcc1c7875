// Built with -rdc=true and libcudadevrt: a device function and variable from
// another translation unit, dynamic parallelism (nested device-side launches
// and a tail launch) and cooperative groups' cudaCGSynchronize. Our libcuda
// JIT-links the objects' PTX (the device-linked image holds SASS only).
#include "common.h"
#include <cooperative_groups.h>
#include <vector>

extern __device__ int scaleBy(int X);
extern __device__ int gCounter;

__global__ void leaf(int *Out, int Base, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[Base + I] = scaleBy(Base + I);
  atomicAdd(&gCounter, 1);
}

// One thread per block launches a leaf grid over the block's slice.
__global__ void middle(int *Out) {
  if (threadIdx.x == 0)
    leaf<<<2, 32>>>(Out, blockIdx.x * 64, 64);
}

// A tail launch runs once its parent grid and all the parent's other work are done.
__global__ void tailCheck(const int *Out, int N, int *Seen) {
  int S = 0;
  for (int I = 0; I < N; ++I)
    S += Out[I] == 3 * I + 1;
  *Seen = S;
}

__global__ void top(int *Out, int N, int *Seen) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    middle<<<N / 64, 4>>>(Out);
    tailCheck<<<1, 1, 0, cudaStreamTailLaunch>>>(Out, N, Seen);
  }
}

// Grid-wide barrier through the device runtime's entry points.
__global__ void cgExchange(unsigned *Data, unsigned *Result, unsigned *Size) {
  unsigned long long H = cudaCGGetIntrinsicHandle(cudaCGScopeGrid);
  unsigned T = blockIdx.x * blockDim.x + threadIdx.x, N = gridDim.x * blockDim.x;
  Data[T] = T * 7 + 1;
  cudaCGSynchronize(H, 0);
  Result[T] = Data[(T + blockDim.x) % N]; // written by another block before the barrier
  if (T == 0)
    *Size = cooperative_groups::this_grid().size();
}

int main() {
  int Bad = 0;
  const int N = 256;
  int *Out, *Seen;
  CHECK(cudaMalloc(&Out, N * sizeof(int)));
  CHECK(cudaMalloc(&Seen, sizeof(int)));
  CHECK(cudaMemset(Out, 0, N * sizeof(int)));
  CHECK(cudaMemset(Seen, 0xff, sizeof(int)));
  int Zero = 0;
  CHECK(cudaMemcpyToSymbol(gCounter, &Zero, sizeof Zero));
  top<<<2, 32>>>(Out, N, Seen);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> H(N);
  CHECK(cudaMemcpy(H.data(), Out, N * sizeof(int), cudaMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I)
    Bad += H[I] != 3 * I + 1;
  int HSeen = -1, Count = -1;
  CHECK(cudaMemcpy(&HSeen, Seen, sizeof HSeen, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpyFromSymbol(&Count, gCounter, sizeof Count));
  if (HSeen != N || Count != N) {
    std::printf("tail launch saw %d of %d results; %d leaf threads ran (want %d)\n", HSeen, N, Count, N);
    ++Bad;
  }

  const unsigned Blocks = 4, Threads = 64, M = Blocks * Threads;
  unsigned *Data, *Result, *Size;
  CHECK(cudaMalloc(&Data, M * sizeof(unsigned)));
  CHECK(cudaMalloc(&Result, M * sizeof(unsigned)));
  CHECK(cudaMalloc(&Size, sizeof(unsigned)));
  void *Args[] = {&Data, &Result, &Size};
  CHECK(cudaLaunchCooperativeKernel((void *)cgExchange, Blocks, Threads, Args));
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> R(M);
  unsigned HSize = 0;
  CHECK(cudaMemcpy(R.data(), Result, M * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&HSize, Size, sizeof HSize, cudaMemcpyDeviceToHost));
  for (unsigned T = 0; T < M; ++T)
    Bad += R[T] != ((T + Threads) % M) * 7 + 1;
  Bad += HSize != M;
  return verdict("rdc_device_runtime", Bad);
}
