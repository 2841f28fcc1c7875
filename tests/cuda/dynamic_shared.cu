// Dynamic shared memory, including more than 48 KiB after opting in.
#include "common.h"
#include <vector>

__global__ void reverseBlock(const int *in, int *out, int n) {
  extern __shared__ int buf[];
  int t = threadIdx.x, base = blockIdx.x * n;
  for (int i = t; i < n; i += blockDim.x) buf[i] = in[base + i];
  __syncthreads();
  for (int i = t; i < n; i += blockDim.x) out[base + i] = buf[n - 1 - i];
}

int main() {
  int bad = 0;
  for (int n : {100, 12288, 16384}) { // 16384 ints = 64 KiB
    size_t bytes = n * sizeof(int);
    if (bytes > 48 * 1024)
      CHECK(cudaFuncSetAttribute(reverseBlock, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    std::vector<int> h(3 * n), o(3 * n);
    for (int i = 0; i < 3 * n; ++i) h[i] = i ^ 0x5a5a;
    int *din, *dout;
    CHECK(cudaMalloc(&din, 3 * bytes)); CHECK(cudaMalloc(&dout, 3 * bytes));
    CHECK(cudaMemcpy(din, h.data(), 3 * bytes, cudaMemcpyHostToDevice));
    reverseBlock<<<3, 256, bytes>>>(din, dout, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(o.data(), dout, 3 * bytes, cudaMemcpyDeviceToHost));
    for (int b = 0; b < 3; ++b)
      for (int i = 0; i < n; ++i) bad += o[b * n + i] != h[b * n + n - 1 - i];
    CHECK(cudaFree(din)); CHECK(cudaFree(dout));
  }
  return verdict("dynamic_shared", bad);
}
