// Managed memory: cudaMallocManaged, __managed__ variables, prefetch and attributes.
#include "common.h"

__managed__ int counter;
__global__ void inc(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { a[i] += i; atomicAdd(&counter, 1); }
}

int main() {
  const int n = 3000;
  int *a;
  CHECK(cudaMallocManaged(&a, n * sizeof(int)));
  for (int i = 0; i < n; ++i) a[i] = 2 * i;
  counter = 5;
  cudaMemLocation loc = {};
  loc.type = cudaMemLocationTypeDevice;
  loc.id = 0;
  CHECK(cudaMemPrefetchAsync(a, n * sizeof(int), loc, 0, 0));
  inc<<<(n + 255) / 256, 256>>>(a, n);
  CHECK(cudaDeviceSynchronize());
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += a[i] != 3 * i;
  bad += counter != 5 + n;
  cudaPointerAttributes at;
  CHECK(cudaPointerGetAttributes(&at, a));
  bad += at.type != cudaMemoryTypeManaged;
  CHECK(cudaFree(a));
  return verdict("managed_memory", bad);
}
