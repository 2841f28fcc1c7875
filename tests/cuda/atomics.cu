// Histogram with shared and global atomics of several kinds; shared atomics
// that several threads of a warp aim at one word, their old values checked
// as a chain (the CPU device once vectorized a work-item loop of such
// atomics into a gather and a scatter, losing updates; the shape that did it
// came from machine code: tests/cuda/sass/sass_ops.cu, sharedAtomics).
#include <algorithm>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void histogram(const unsigned char *in, int n, unsigned int *bins) {
  __shared__ unsigned int local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[in[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    atomicAdd(&bins[i], local[i]);
}

__global__ void misc_atomics(int *iv, unsigned long long *u64, float *f, double *d, unsigned *u) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  atomicMax(&iv[0], t);
  atomicMin(&iv[1], -t);
  atomicAnd(&iv[2], ~(1 << (t % 31)));
  atomicOr(&iv[3], 1 << (t % 31));
  atomicXor(&iv[4], t);
  atomicExch(&iv[5], t);
  atomicCAS(&iv[6], 0, t + 1);
  atomicAdd(u64, (unsigned long long)t);
  atomicAdd(f, 1.0f);
  atomicAdd(d, 0.5);
  atomicInc(&u[0], 17u);
  atomicDec(&u[1], 17u);
}

__global__ void shared_collide(const int *in, int *old, int *sums) {
  __shared__ int s[4];
  __shared__ unsigned c[4];
  if (threadIdx.x < 4) {
    s[threadIdx.x] = 0;
    c[threadIdx.x] = 0;
  }
  __syncthreads();
  int v = in[threadIdx.x];
  unsigned any = __ballot_sync(0xffffffffu, v > 1000); // a warp collective between the load and the atomics
  old[threadIdx.x] = atomicAdd(&s[threadIdx.x % 4], v) + (any ? 1 : 0);
  __syncthreads();
  atomicCAS(&c[threadIdx.x % 4], 0u, threadIdx.x + 1); // the first thread of each word wins
  __syncthreads();
  if (threadIdx.x < 4) {
    sums[threadIdx.x] = s[threadIdx.x];
    sums[4 + threadIdx.x] = (int)c[threadIdx.x];
  }
}

/// Shared atomics on colliding words: each word's old values chain from 0 to its sum.
static int sharedCollide() {
  const int threads = 128;
  std::vector<int> in(threads), old(threads), sums(8);
  for (int i = 0; i < threads; ++i)
    in[i] = 1 + (i * 37) % 101; // positive: the old values of a word strictly increase
  int *din, *dold, *dsums;
  cudaMalloc(&din, threads * 4);
  cudaMalloc(&dold, threads * 4);
  cudaMalloc(&dsums, 8 * 4);
  cudaMemcpy(din, in.data(), threads * 4, cudaMemcpyHostToDevice);
  shared_collide<<<1, threads>>>(din, dold, dsums);
  cudaMemcpy(old.data(), dold, threads * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(sums.data(), dsums, 8 * 4, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int k = 0; k < 4; ++k) {
    std::vector<std::pair<int, int>> chain; // (old, added)
    int sum = 0;
    for (int i = k; i < threads; i += 4) {
      chain.push_back({old[i], in[i]});
      sum += in[i];
    }
    std::sort(chain.begin(), chain.end());
    int at = 0;
    for (auto [o, add] : chain) {
      if (o != at && bad++ < 10)
        std::printf("shared_collide word %d: an old value %d where %d was due\n", k, o, at);
      at = o + add;
    }
    if (sums[k] != sum && bad++ < 10)
      std::printf("shared_collide word %d: sum %d, want %d\n", k, sums[k], sum);
    if ((sums[4 + k] < 1 || sums[4 + k] > threads || (sums[4 + k] - 1) % 4 != k) && bad++ < 10)
      std::printf("shared_collide word %d: compare-and-swap left %d\n", k, sums[4 + k]);
  }
  cudaFree(din);
  cudaFree(dold);
  cudaFree(dsums);
  return bad;
}

int main() {
  const int n = 1 << 16;
  std::vector<unsigned char> h(n);
  unsigned int seed = 7;
  for (auto &x : h) { seed = seed * 1103515245u + 12345u; x = (seed >> 16) & 0xff; }
  std::vector<unsigned> ref(256, 0);
  for (auto x : h) ref[x]++;
  unsigned char *din; unsigned int *dbins;
  cudaMalloc(&din, n); cudaMalloc(&dbins, 256 * 4);
  cudaMemcpy(din, h.data(), n, cudaMemcpyHostToDevice);
  cudaMemset(dbins, 0, 256 * 4);
  histogram<<<32, 128>>>(din, n, dbins);
  std::vector<unsigned> out(256);
  cudaMemcpy(out.data(), dbins, 256 * 4, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < 256; ++i) bad += out[i] != ref[i];

  int *iv; unsigned long long *u64; float *f; double *d; unsigned *u;
  cudaMalloc(&iv, 7 * 4); cudaMalloc(&u64, 8); cudaMalloc(&f, 4); cudaMalloc(&d, 8); cudaMalloc(&u, 8);
  int ivh[7] = {-1000, 1000, -1, 0, 0, -5, 0};
  cudaMemcpy(iv, ivh, sizeof ivh, cudaMemcpyHostToDevice);
  cudaMemset(u64, 0, 8); cudaMemset(f, 0, 4); cudaMemset(d, 0, 8); cudaMemset(u, 0, 8);
  const int threads = 4 * 64;
  misc_atomics<<<4, 64>>>(iv, u64, f, d, u);
  cudaMemcpy(ivh, iv, sizeof ivh, cudaMemcpyDeviceToHost);
  unsigned long long u64h; float fh; double dh; unsigned uh[2];
  cudaMemcpy(&u64h, u64, 8, cudaMemcpyDeviceToHost);
  cudaMemcpy(&fh, f, 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(&dh, d, 8, cudaMemcpyDeviceToHost);
  cudaMemcpy(uh, u, 8, cudaMemcpyDeviceToHost);
  int x = 0; for (int t = 0; t < threads; ++t) x ^= t;
  bad += ivh[0] != threads - 1;
  bad += ivh[1] != -(threads - 1);
  bad += ivh[2] != (int)0x80000000;
  bad += ivh[3] != 0x7fffffff;
  bad += ivh[4] != x;
  bad += ivh[5] < 0 || ivh[5] >= threads;
  bad += ivh[6] < 1 || ivh[6] > threads;
  bad += u64h != (unsigned long long)threads * (threads - 1) / 2;
  bad += fh != (float)threads;
  bad += dh != threads * 0.5;
  // inc wraps to 0 after reaching 17: 256 increments -> 256 % 18; dec from 0 wraps to 17.
  unsigned inc = 0, dec = 0;
  for (int t = 0; t < threads; ++t) { inc = inc >= 17 ? 0 : inc + 1; dec = (dec == 0 || dec > 17) ? 17 : dec - 1; }
  bad += uh[0] != inc; bad += uh[1] != dec;
  bad += sharedCollide();
  std::printf("atomics: %s (%d mismatches)\n", bad ? "FAIL" : "PASS", bad);
  return bad ? 1 : 0;
}
