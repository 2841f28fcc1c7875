// __constant__ and __device__ symbols: copies to and from them, their addresses and sizes.
#include "common.h"
#include <vector>

__constant__ float coeff[16];
__device__ int table[64];
__device__ unsigned long long total;

__global__ void useSymbols(float *out) {
  int i = threadIdx.x;
  out[i] = coeff[i % 16] * table[i];
  atomicAdd(&total, (unsigned long long)table[i]);
}

int main() {
  float c[16];
  for (int i = 0; i < 16; ++i) c[i] = 0.5f * i;
  std::vector<int> t(64);
  for (int i = 0; i < 64; ++i) t[i] = i * i;
  CHECK(cudaMemcpyToSymbol(coeff, c, sizeof c));
  CHECK(cudaMemcpyToSymbol(table, t.data(), 64 * sizeof(int)));
  unsigned long long zero = 0;
  CHECK(cudaMemcpyToSymbol(total, &zero, sizeof zero));
  float *out;
  CHECK(cudaMalloc(&out, 64 * sizeof(float)));
  useSymbols<<<1, 64>>>(out);
  std::vector<float> o(64);
  CHECK(cudaMemcpy(o.data(), out, 64 * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  unsigned long long sum = 0, got = 0;
  for (int i = 0; i < 64; ++i) { bad += o[i] != c[i % 16] * t[i]; sum += t[i]; }
  CHECK(cudaMemcpyFromSymbol(&got, total, sizeof got));
  bad += got != sum;
  void *addr; size_t size;
  CHECK(cudaGetSymbolAddress(&addr, table));
  CHECK(cudaGetSymbolSize(&size, table));
  bad += size != 64 * sizeof(int);
  int fifth;
  CHECK(cudaMemcpy(&fifth, (int *)addr + 5, sizeof(int), cudaMemcpyDeviceToHost));
  bad += fifth != 25;
  CHECK(cudaMemcpyFromSymbol(&fifth, table, sizeof(int), 6 * sizeof(int)));
  bad += fifth != 36;
  CHECK(cudaFree(out));
  return verdict("symbols", bad);
}
