// Several host threads, each with its own stream and buffers, at the same time.
#include "common.h"
#include <thread>
#include <vector>

__global__ void axpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  const int T = 4, n = 1 << 15;
  std::vector<int> bad(T, 0);
  std::vector<std::thread> ts;
  for (int t = 0; t < T; ++t)
    ts.emplace_back([t, &bad] {
      cudaStream_t s;
      CHECK(cudaStreamCreate(&s));
      std::vector<float> x(n), y(n);
      for (int i = 0; i < n; ++i) { x[i] = i * 0.25f; y[i] = t; }
      float *dx, *dy;
      CHECK(cudaMalloc(&dx, n * 4)); CHECK(cudaMalloc(&dy, n * 4));
      for (int rep = 0; rep < 5; ++rep) {
        CHECK(cudaMemcpyAsync(dx, x.data(), n * 4, cudaMemcpyHostToDevice, s));
        CHECK(cudaMemcpyAsync(dy, y.data(), n * 4, cudaMemcpyHostToDevice, s));
        axpy<<<(n + 255) / 256, 256, 0, s>>>(2.0f + t, dx, dy, n);
        CHECK(cudaMemcpyAsync(y.data(), dy, n * 4, cudaMemcpyDeviceToHost, s));
        CHECK(cudaStreamSynchronize(s));
      }
      for (int i = 0; i < n; ++i) bad[t] += y[i] != t + 5 * (2.0f + t) * (i * 0.25f);
      CHECK(cudaFree(dx)); CHECK(cudaFree(dy)); CHECK(cudaStreamDestroy(s));
    });
  for (auto &th : ts) th.join();
  int total = 0;
  for (int b : bad) total += b;
  return verdict("multithread", total);
}
