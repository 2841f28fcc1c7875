// Pinned, mapped (zero-copy) and registered host memory used by kernels.
#include "common.h"
#include <vector>

__global__ void fill(int *p, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = base + i;
}

int main() {
  const int n = 5000;
  int bad = 0;
  int *mapped, *dmapped;
  CHECK(cudaHostAlloc(&mapped, n * sizeof(int), cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer(&dmapped, mapped, 0));
  fill<<<(n + 127) / 128, 128>>>(dmapped, n, 7);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) bad += mapped[i] != 7 + i;
  unsigned flags = 0;
  CHECK(cudaHostGetFlags(&flags, mapped));
  bad += !(flags & cudaHostAllocMapped);
  CHECK(cudaFreeHost(mapped));

  std::vector<int> reg(n, 0);
  CHECK(cudaHostRegister(reg.data(), n * sizeof(int), cudaHostRegisterMapped));
  int *dreg;
  CHECK(cudaHostGetDevicePointer(&dreg, reg.data(), 0));
  fill<<<(n + 127) / 128, 128>>>(dreg, n, -3);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) bad += reg[i] != -3 + i;
  CHECK(cudaHostUnregister(reg.data()));

  int *pinned, *dev;
  CHECK(cudaMallocHost(&pinned, n * sizeof(int)));
  CHECK(cudaMalloc(&dev, n * sizeof(int)));
  fill<<<(n + 127) / 128, 128>>>(dev, n, 100);
  CHECK(cudaMemcpy(pinned, dev, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) bad += pinned[i] != 100 + i;
  cudaPointerAttributes a;
  CHECK(cudaPointerGetAttributes(&a, pinned));
  bad += a.type != cudaMemoryTypeHost;
  CHECK(cudaPointerGetAttributes(&a, dev));
  bad += a.type != cudaMemoryTypeDevice || a.devicePointer != dev;
  CHECK(cudaFree(dev)); CHECK(cudaFreeHost(pinned));
  return verdict("host_memory", bad);
}
