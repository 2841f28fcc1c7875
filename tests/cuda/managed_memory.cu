// Managed memory: cudaMallocManaged, __managed__ variables, prefetch and attributes,
// attaching to a stream, the host and globally (cudaStreamAttachMemAsync, as
// NVIDIA's NV12 resize sample does with host-attached memory).
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

  // Host-attached managed memory, attached to one stream, then globally.
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  int *h;
  CHECK(cudaMallocManaged(&h, n * sizeof(int), cudaMemAttachHost));
  for (int i = 0; i < n; ++i) h[i] = i;
  CHECK(cudaStreamAttachMemAsync(s, h, 0, cudaMemAttachSingle));
  counter = 0;
  inc<<<(n + 255) / 256, 256, 0, s>>>(h, n);
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaStreamAttachMemAsync(s, h, n * sizeof(int), cudaMemAttachHost)); // the whole allocation
  for (int i = 0; i < n; ++i) bad += h[i] != 2 * i;
  CHECK(cudaStreamAttachMemAsync(nullptr, h, 0, cudaMemAttachGlobal));
  CHECK(cudaStreamSynchronize(nullptr));
  int *d;
  CHECK(cudaMalloc(&d, 64));
  bad += cudaStreamAttachMemAsync(s, d, 0, cudaMemAttachGlobal) != cudaErrorInvalidValue; // not managed
  bad += cudaStreamAttachMemAsync(s, h, 0, 7) != cudaErrorInvalidValue;                   // no such flags
  bad += cudaStreamAttachMemAsync(s, h, 4, cudaMemAttachGlobal) != cudaErrorInvalidValue; // part of it
  cudaGetLastError();
  CHECK(cudaFree(d));
  CHECK(cudaFree(h));
  CHECK(cudaStreamDestroy(s));
  return verdict("managed_memory", bad);
}
