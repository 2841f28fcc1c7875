// Occupancy queries and function attributes, including __launch_bounds__.
#include "common.h"

__global__ void __launch_bounds__(128) bounded(float *p) { p[threadIdx.x] *= 2; }
__global__ void withShared(float *p) {
  __shared__ float s[4096];
  s[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

int main() {
  int bad = 0;
  cudaFuncAttributes a;
  CHECK(cudaFuncGetAttributes(&a, bounded));
  bad += a.maxThreadsPerBlock != 128;
  CHECK(cudaFuncGetAttributes(&a, withShared));
  bad += a.sharedSizeBytes != 4096 * sizeof(float);
  bad += a.maxThreadsPerBlock != 1024;
  int blocks = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, withShared, 256, 0));
  bad += blocks < 1 || blocks * 16384 > 100 * 1024;
  int minGrid = 0, block = 0;
  CHECK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, bounded, 0, 0));
  bad += block < 32 || block > 128 || minGrid < 1;
  float *p;
  CHECK(cudaMalloc(&p, 1024 * sizeof(float)));
  CHECK(cudaMemset(p, 0, 1024 * sizeof(float)));
  bounded<<<1, 256>>>(p); // exceeds __launch_bounds__
  bad += cudaGetLastError() == cudaSuccess;
  bounded<<<1, 128>>>(p);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(p));
  return verdict("occupancy", bad);
}
