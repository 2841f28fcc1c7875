// Device printf and assert.
#include <cstdio>
#include <cassert>
#include <cuda_runtime.h>

__global__ void hello(int base) {
  if (threadIdx.x < 2) printf("hello from block %d thread %d value %f %lld\n", blockIdx.x, threadIdx.x, base * 0.5, (long long)base << 33);
  assert(base >= 0);
}

int main() {
  hello<<<2, 4>>>(7);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("printf_assert: %s\n", e == cudaSuccess ? "PASS" : "FAIL");
  return e == cudaSuccess ? 0 : 1;
}
