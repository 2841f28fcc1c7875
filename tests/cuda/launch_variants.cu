// Launch forms: cudaLaunchKernel, cudaLaunchKernelExC with attributes, 3D
// grids and blocks, templates, device function pointers and recursion.
#include "common.h"
#include <vector>

__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ int twice(int x) { return 2 * x; }
__device__ int square(int x) { return x * x; }
__device__ int (*ops[2])(int) = {twice, square};

template <typename T, int K> __global__ void mulK(T *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= K;
}

__global__ void grid3d(int *out) {
  int bx = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  int tx = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  int nthreads = blockDim.x * blockDim.y * blockDim.z;
  out[bx * nthreads + tx] = bx * 1000 + tx;
}

__global__ void calls(int *out) {
  int t = threadIdx.x;
  out[t] = fib(t % 12) + ops[t & 1](t);
}

int main() {
  int bad = 0;
  const int n = 1000;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = i * 0.5f;
  float *d;
  CHECK(cudaMalloc(&d, n * 4));
  CHECK(cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice));
  int nn = n;
  void *args[] = {&d, &nn};
  CHECK(cudaLaunchKernel((const void *)mulK<float, 3>, dim3((n + 127) / 128), dim3(128), args, 0, 0));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((n + 63) / 64);
  cfg.blockDim = dim3(64);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributePriority;
  attr[0].val.priority = 0;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelExC(&cfg, (const void *)mulK<float, 5>, args));
  std::vector<float> o(n);
  CHECK(cudaMemcpy(o.data(), d, n * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) bad += o[i] != h[i] * 15;

  dim3 g(3, 2, 2), b(4, 3, 2);
  int total = 3 * 2 * 2 * 4 * 3 * 2;
  int *g3;
  CHECK(cudaMalloc(&g3, total * 4));
  grid3d<<<g, b>>>(g3);
  std::vector<int> r(total);
  CHECK(cudaMemcpy(r.data(), g3, total * 4, cudaMemcpyDeviceToHost));
  for (int bi = 0; bi < 12; ++bi)
    for (int t = 0; t < 24; ++t) bad += r[bi * 24 + t] != bi * 1000 + t;

  int *c;
  CHECK(cudaMalloc(&c, 64 * 4));
  calls<<<1, 64>>>(c);
  CHECK(cudaMemcpy(r.data(), c, 64 * 4, cudaMemcpyDeviceToHost));
  auto hfib = [](int k) { int a = 0, bb = 1; for (int i = 0; i < k; ++i) { int t = a + bb; a = bb; bb = t; } return a; };
  for (int t = 0; t < 64; ++t) bad += r[t] != hfib(t % 12) + ((t & 1) ? t * t : 2 * t);
  CHECK(cudaFree(d)); CHECK(cudaFree(g3)); CHECK(cudaFree(c));
  return verdict("launch_variants", bad);
}
