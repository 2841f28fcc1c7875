// Reduction with warp shuffles, votes and a shared-memory tree.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__inline__ __device__ float warpSum(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__global__ void reduce(const float *in, float *out, int n) {
  __shared__ float warpSums[32];
  float v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    v += in[i];
  v = warpSum(v);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warpSums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x + 31) / 32 ? warpSums[lane] : 0.0f;
    v = warpSum(v);
    if (lane == 0) atomicAdd(out, v);
  }
}

__global__ void votes(const int *in, unsigned *ballots, int *anys, int *alls, int *xors) {
  int t = threadIdx.x;
  int p = in[t] > 0;
  unsigned b = __ballot_sync(0xffffffffu, p);
  int any = __any_sync(0xffffffffu, p), all = __all_sync(0xffffffffu, p);
  int x = __shfl_xor_sync(0xffffffffu, t, 5);
  int up = __shfl_up_sync(0xffffffffu, t, 3);
  int idx = __shfl_sync(0xffffffffu, t * 10, (t + 7) & 31);
  if ((t & 31) == 0) { ballots[t / 32] = b; anys[t / 32] = any; alls[t / 32] = all; }
  xors[t] = x + up * 1000 + idx * 1000000 + __popc(b & __activemask()) * 0;
}

int main() {
  const int n = 100000;
  std::vector<float> h(n);
  double ref = 0;
  for (int i = 0; i < n; ++i) { h[i] = (i % 17) * 0.25f; ref += h[i]; }
  float *din, *dout;
  cudaMalloc(&din, n * 4); cudaMalloc(&dout, 4);
  cudaMemcpy(din, h.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemset(dout, 0, 4);
  reduce<<<8, 256>>>(din, dout, n);
  float res; cudaMemcpy(&res, dout, 4, cudaMemcpyDeviceToHost);
  int bad = (res != (float)ref);

  const int T = 64;
  std::vector<int> in(T);
  for (int t = 0; t < T; ++t) in[t] = (t % 3 == 0) ? 1 : (t >= 32 ? 1 : 0);
  int *dinp, *danys, *dalls, *dx; unsigned *db;
  cudaMalloc(&dinp, T * 4); cudaMalloc(&danys, 8); cudaMalloc(&dalls, 8); cudaMalloc(&dx, T * 4); cudaMalloc(&db, 8);
  cudaMemcpy(dinp, in.data(), T * 4, cudaMemcpyHostToDevice);
  votes<<<1, T>>>(dinp, db, danys, dalls, dx);
  unsigned bh[2]; int ah[2], lh[2]; std::vector<int> xh(T);
  cudaMemcpy(bh, db, 8, cudaMemcpyDeviceToHost);
  cudaMemcpy(ah, danys, 8, cudaMemcpyDeviceToHost);
  cudaMemcpy(lh, dalls, 8, cudaMemcpyDeviceToHost);
  cudaMemcpy(xh.data(), dx, T * 4, cudaMemcpyDeviceToHost);
  for (int w = 0; w < 2; ++w) {
    unsigned eb = 0; int any = 0, all = 1;
    for (int l = 0; l < 32; ++l) { int p = in[w * 32 + l] > 0; eb |= (unsigned)p << l; any |= p; all &= p; }
    bad += bh[w] != eb; bad += (ah[w] != 0) != (any != 0); bad += (lh[w] != 0) != (all != 0);
  }
  for (int t = 0; t < T; ++t) {
    int w = t & ~31, l = t & 31;
    int x = w + (l ^ 5), up = l >= 3 ? t - 3 : t, idx = (w + ((l + 7) & 31)) * 10;
    bad += xh[t] != x + up * 1000 + idx * 1000000;
  }
  std::printf("warp_reduce: %s (%d mismatches)\n", bad ? "FAIL" : "PASS", bad);
  return bad ? 1 : 0;
}
