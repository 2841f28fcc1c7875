// Thrust and CUB templates: sort, reduce, scan.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <numeric>
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>

__global__ void blockSum(const int *in, int *out) {
  using BR = cub::BlockReduce<int, 128>;
  __shared__ typename BR::TempStorage tmp;
  int v = in[blockIdx.x * 128 + threadIdx.x];
  int s = BR(tmp).Sum(v);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

int main() {
  const int n = 4096;
  std::vector<int> h(n);
  unsigned s = 99;
  for (auto &x : h) { s = s * 1664525u + 1013904223u; x = (int)(s >> 8) % 1000; }
  thrust::device_vector<int> d(h.begin(), h.end());
  thrust::sort(d.begin(), d.end());
  long long sum = thrust::reduce(d.begin(), d.end(), 0LL);
  thrust::inclusive_scan(d.begin(), d.end(), d.begin());
  std::vector<int> sorted = h;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> scan(n);
  std::partial_sum(sorted.begin(), sorted.end(), scan.begin());
  std::vector<int> got(n);
  thrust::copy(d.begin(), d.end(), got.begin());
  int bad = got != scan;
  bad += sum != std::accumulate(h.begin(), h.end(), 0LL);
  std::printf("thrust_cub: %s\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
