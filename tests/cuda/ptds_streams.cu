// Built with --default-stream per-thread: the runtime uses the _ptds/_ptsz
// driver entry points. Two host threads work on the per-thread default stream.
#include "common.h"
#include <thread>
#include <vector>

__global__ void addOne(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

int main() {
  const int n = 4096;
  int bad[2] = {0, 0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 2; ++t)
    ts.emplace_back([t, &bad] {
      std::vector<int> h(n, t * 10);
      int *d;
      CHECK(cudaMalloc(&d, n * 4));
      CHECK(cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice));
      for (int r = 0; r < 3; ++r) addOne<<<n / 256, 256>>>(d, n);
      CHECK(cudaMemcpyAsync(h.data(), d, n * 4, cudaMemcpyDeviceToHost, cudaStreamPerThread));
      CHECK(cudaStreamSynchronize(cudaStreamPerThread));
      for (int x : h) bad[t] += x != t * 10 + 3;
      CHECK(cudaFree(d));
    });
  for (auto &th : ts) th.join();
  return verdict("ptds_streams", bad[0] + bad[1]);
}
