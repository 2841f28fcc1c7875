// Stream-ordered allocation (cudaMallocAsync / cudaFreeAsync) and memory info.
#include "common.h"
#include <vector>

__global__ void iota(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i * 3;
}

int main() {
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  int bad = 0;
  for (int round = 0; round < 4; ++round) {
    int n = 1000 << round;
    int *d;
    CHECK(cudaMallocAsync(&d, n * 4, s));
    iota<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    std::vector<int> h(n);
    CHECK(cudaMemcpyAsync(h.data(), d, n * 4, cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(d, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) bad += h[i] != i * 3;
  }
  cudaMemPool_t pool;
  CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
  size_t f, t;
  CHECK(cudaMemGetInfo(&f, &t));
  bad += t == 0;
  CHECK(cudaStreamDestroy(s));
  return verdict("mem_pool", bad);
}
