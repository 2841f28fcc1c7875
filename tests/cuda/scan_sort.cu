// Block-wide inclusive scan (shared memory, Hillis-Steele) and bitonic sort.
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>
#include <cuda_runtime.h>

__global__ void blockScan(const int *in, int *out, int n) {
  extern __shared__ int tmp[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  tmp[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int off = 1; off < blockDim.x; off <<= 1) {
    int v = t >= off ? tmp[t - off] : 0;
    __syncthreads();
    tmp[t] += v;
    __syncthreads();
  }
  if (i < n) out[i] = tmp[t];
}

__global__ void bitonicStep(float *data, int j, int k) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x, ixj = i ^ j;
  if (ixj > i) {
    bool up = (i & k) == 0;
    float a = data[i], b = data[ixj];
    if ((a > b) == up) { data[i] = b; data[ixj] = a; }
  }
}

int main() {
  const int n = 1000, B = 256;
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 11 - 5;
  int *din, *dout;
  cudaMalloc(&din, n * 4); cudaMalloc(&dout, n * 4);
  cudaMemcpy(din, in.data(), n * 4, cudaMemcpyHostToDevice);
  blockScan<<<(n + B - 1) / B, B, B * sizeof(int)>>>(din, dout, n);
  cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int b = 0; b < n; b += B) {
    int acc = 0;
    for (int i = b; i < std::min(n, b + B); ++i) { acc += in[i]; bad += out[i] != acc; }
  }
  const int m = 1024;
  std::vector<float> v(m);
  for (int i = 0; i < m; ++i) v[i] = (float)((i * 7919) % 1013) - 500.0f;
  float *dv; cudaMalloc(&dv, m * 4);
  cudaMemcpy(dv, v.data(), m * 4, cudaMemcpyHostToDevice);
  for (int k = 2; k <= m; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1) bitonicStep<<<m / 256, 256>>>(dv, j, k);
  std::vector<float> s(m);
  cudaMemcpy(s.data(), dv, m * 4, cudaMemcpyDeviceToHost);
  std::sort(v.begin(), v.end());
  bad += s != v;
  std::printf("scan_sort: %s (%d mismatches)\n", bad ? "FAIL" : "PASS", bad);
  return bad ? 1 : 0;
}
