// Forward progress between blocks and across a grid: a decoupled look-back
// scan (each block spins on its predecessors' published status, as CUB's
// one-sweep sorts and scans do), a Thrust sort large enough for CUB's
// one-sweep radix sort, and a cooperative kernel looping over grid.sync().
// Every result is checked against a CPU reference.
#include <cooperative_groups.h>
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <algorithm>
#include <cstdio>
#include <vector>
namespace cg = cooperative_groups;

constexpr int Tile = 256;

// status[i]: 0 not ready, (1 << 62) | aggregate, (2 << 62) | inclusive prefix.
__global__ void lookbackScan(const int *in, int *out, unsigned long long *status, unsigned *ticket, int n) {
  __shared__ int s[Tile];
  __shared__ unsigned tile;
  __shared__ long long prefix;
  if (threadIdx.x == 0) tile = atomicAdd(ticket, 1u); // tiles in the order blocks start
  __syncthreads();
  int i = tile * Tile + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int o = 1; o < Tile; o <<= 1) { // inclusive scan of the tile
    int v = threadIdx.x >= o ? s[threadIdx.x - o] : 0;
    __syncthreads();
    s[threadIdx.x] += v;
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    long long agg = s[Tile - 1], excl = 0;
    const unsigned long long Mask = (1ull << 62) - 1;
    if (tile == 0) {
      atomicExch(&status[0], (2ull << 62) | (unsigned long long)agg);
    } else {
      atomicExch(&status[tile], (1ull << 62) | (unsigned long long)agg);
      for (int j = tile - 1; j >= 0; --j) {
        unsigned long long st;
        do { st = atomicAdd(&status[j], 0ull); } while (st == 0); // spin on the predecessor
        excl += (long long)(st & Mask);
        if ((st >> 62) == 2) break;
      }
      atomicExch(&status[tile], (2ull << 62) | (unsigned long long)(excl + agg));
    }
    prefix = excl;
  }
  __syncthreads();
  if (i < n) out[i] = (int)(prefix + s[threadIdx.x]);
}

__global__ void jacobi(float *a, float *b, int n, int iters) {
  cg::grid_group grid = cg::this_grid();
  for (int it = 0; it < iters; ++it) {
    for (int i = grid.thread_rank(); i < n; i += grid.size())
      b[i] = 0.25f * (i > 0 ? a[i - 1] : 0.0f) + 0.5f * a[i] + 0.25f * (i + 1 < n ? a[i + 1] : 0.0f);
    grid.sync();
    float *t = a; a = b; b = t;
  }
}

int main() {
  int bad = 0;
  { // look-back scan
    const int n = 1 << 20, tiles = (n + Tile - 1) / Tile;
    std::vector<int> h(n), ref(n), got(n);
    unsigned s = 7;
    for (int &x : h) { s = s * 1664525u + 1013904223u; x = (int)(s >> 24); } // >= 0: the status word keeps its flag in the top bits
    long long acc = 0;
    for (int i = 0; i < n; ++i) { acc += h[i]; ref[i] = (int)acc; }
    int *din, *dout;
    unsigned long long *status;
    unsigned *ticket;
    cudaMalloc(&din, n * 4);
    cudaMalloc(&dout, n * 4);
    cudaMalloc(&status, tiles * 8);
    cudaMalloc(&ticket, 4);
    cudaMemcpy(din, h.data(), n * 4, cudaMemcpyHostToDevice);
    for (int round = 0; round < 3; ++round) {
      cudaMemset(status, 0, tiles * 8);
      cudaMemset(ticket, 0, 4);
      cudaMemset(dout, 0xff, n * 4);
      lookbackScan<<<tiles, Tile>>>(din, dout, status, ticket, n);
      if (cudaDeviceSynchronize() != cudaSuccess) bad++;
      cudaMemcpy(got.data(), dout, n * 4, cudaMemcpyDeviceToHost);
      for (int i = 0; i < n; ++i)
        if (got[i] != ref[i]) { bad++; std::printf("look-back scan: round %d: element %d is %d, not %d\n", round, i, got[i], ref[i]); break; }
    }
    cudaFree(din); cudaFree(dout); cudaFree(status); cudaFree(ticket);
  }
  { // Thrust sort of 4M keys (CUB's one-sweep radix sort, decoupled look-back)
    const int n = 4 << 20;
    std::vector<unsigned> h(n);
    unsigned s = 11;
    for (unsigned &x : h) { s = s * 1664525u + 1013904223u; x = s ^ (s >> 13); }
    thrust::device_vector<unsigned> d(h.begin(), h.end());
    thrust::sort(d.begin(), d.end());
    std::vector<unsigned> got(n);
    thrust::copy(d.begin(), d.end(), got.begin());
    std::sort(h.begin(), h.end());
    if (got != h) { bad++; std::printf("thrust sort: wrong result\n"); }
  }
  { // grid barrier in a loop
    const int n = 100000, iters = 20, blocks = 8, threads = 128;
    std::vector<float> h(n), ref(n), tmp(n);
    for (int i = 0; i < n; ++i) h[i] = (float)(i % 97);
    ref = h;
    for (int it = 0; it < iters; ++it) {
      for (int i = 0; i < n; ++i)
        tmp[i] = 0.25f * (i > 0 ? ref[i - 1] : 0.0f) + 0.5f * ref[i] + 0.25f * (i + 1 < n ? ref[i + 1] : 0.0f);
      ref.swap(tmp);
    }
    float *a, *b;
    cudaMalloc(&a, n * 4);
    cudaMalloc(&b, n * 4);
    cudaMemcpy(a, h.data(), n * 4, cudaMemcpyHostToDevice);
    int nn = n, it = iters;
    void *args[] = {&a, &b, &nn, &it};
    if (cudaLaunchCooperativeKernel((void *)jacobi, blocks, threads, args) != cudaSuccess) bad++;
    if (cudaDeviceSynchronize() != cudaSuccess) bad++;
    std::vector<float> got(n);
    cudaMemcpy(got.data(), iters % 2 ? b : a, n * 4, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i)
      if (got[i] != ref[i]) { bad++; std::printf("grid sync loop: wrong at %d: %f vs %f\n", i, got[i], ref[i]); break; }
    cudaFree(a); cudaFree(b);
  }
  std::printf("forward_progress: %s\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
