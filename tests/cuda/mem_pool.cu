// Stream-ordered allocation (cudaMallocAsync / cudaFreeAsync) and memory info;
// pools of the program's own (cudaMemPoolCreate, the device's current pool,
// cudaMallocFromPoolAsync), their attributes and access, and CUB-style use:
// sorts of growing size whose temporary storage comes and goes through a pool.
#include "common.h"
#include <vector>

__global__ void iota(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i * 3;
}

static size_t attr(cudaMemPool_t P, cudaMemPoolAttr A) {
  size_t V = 0; // cuuint64_t attributes
  CHECK(cudaMemPoolGetAttribute(P, A, &V));
  return V;
}

int ownPools(cudaStream_t s) {
  int Bad = 0;
  cudaMemPool_t def, pool, cur;
  CHECK(cudaDeviceGetDefaultMemPool(&def, 0));
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  CHECK(cudaMemPoolCreate(&pool, &props));
  EXPECT(pool != def);
  // The release threshold and reuse policies are kept.
  size_t thr = ~size_t(0);
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr));
  EXPECT(attr(pool, cudaMemPoolAttrReleaseThreshold) == thr);
  int off = 0, got = 1;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &off));
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &got));
  EXPECT(got == 0);
  // Growing sorts' worth of buffers, each freed before the next: the pool
  // counts what is in use and its high watermark.
  size_t used0 = attr(pool, cudaMemPoolAttrUsedMemCurrent);
  for (int n = 1 << 10; n <= 1 << 19; n <<= 1) {
    int *d, *tmp;
    CHECK(cudaMallocFromPoolAsync(&d, n * 4, pool, s));
    CHECK(cudaMallocFromPoolAsync(&tmp, n * 8, pool, s));
    EXPECT(attr(pool, cudaMemPoolAttrUsedMemCurrent) >= used0 + size_t(n) * 12);
    iota<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    CHECK(cudaMemcpyAsync(tmp, d, n * 4, cudaMemcpyDeviceToDevice, s));
    std::vector<int> h(n);
    CHECK(cudaMemcpyAsync(h.data(), tmp, n * 4, cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(tmp, s));
    CHECK(cudaFreeAsync(d, s));
    CHECK(cudaStreamSynchronize(s));
    int W = 0;
    for (int i = 0; i < n; ++i) W += h[i] != i * 3;
    if (W) std::printf("FAIL: %d elements wrong at n = %d\n", W, n);
    Bad += W;
  }
  CHECK(cudaStreamSynchronize(s));
  EXPECT(attr(pool, cudaMemPoolAttrUsedMemCurrent) == used0);
  EXPECT(attr(pool, cudaMemPoolAttrUsedMemHigh) >= size_t(1 << 19) * 12);
  size_t zero = 0, one = 1;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
  EXPECT(attr(pool, cudaMemPoolAttrUsedMemHigh) == 0);
  EXPECT(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &one) == cudaErrorInvalidValue);
  cudaGetLastError();
  CHECK(cudaMemPoolTrimTo(pool, 0));
  // Access: the owning device reads and writes.
  cudaMemLocation loc = {};
  loc.type = cudaMemLocationTypeDevice;
  loc.id = 0;
  cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
  CHECK(cudaMemPoolGetAccess(&flags, pool, &loc));
  EXPECT(flags == cudaMemAccessFlagsProtReadWrite);
  cudaMemAccessDesc desc = {};
  desc.location = loc;
  desc.flags = cudaMemAccessFlagsProtReadWrite;
  CHECK(cudaMemPoolSetAccess(pool, &desc, 1));
  // The device's current pool: cudaMallocAsync takes from it.
  CHECK(cudaDeviceSetMemPool(0, pool));
  CHECK(cudaDeviceGetMemPool(&cur, 0));
  EXPECT(cur == pool);
  int *x;
  CHECK(cudaMallocAsync(&x, 4096, s));
  EXPECT(attr(pool, cudaMemPoolAttrUsedMemCurrent) >= used0 + 4096);
  // Destroyed with an allocation outstanding: it goes once that is freed.
  CHECK(cudaMemPoolDestroy(pool));
  CHECK(cudaDeviceGetMemPool(&cur, 0));
  EXPECT(cur == def);
  CHECK(cudaFreeAsync(x, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(cudaMemPoolDestroy(def) == cudaErrorInvalidValue); // the default pool stays
  cudaGetLastError();
  return Bad;
}

int main() {
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  int bad = 0;
  for (int round = 0; round < 4; ++round) {
    int n = 1000 << round;
    int *d;
    CHECK(cudaMallocAsync(&d, n * 4, s));
    iota<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    std::vector<int> h(n);
    CHECK(cudaMemcpyAsync(h.data(), d, n * 4, cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(d, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) bad += h[i] != i * 3;
  }
  cudaMemPool_t pool;
  CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
  size_t f, t;
  CHECK(cudaMemGetInfo(&f, &t));
  bad += t == 0;
  bad += ownPools(s);
  CHECK(cudaStreamDestroy(s));
  return verdict("mem_pool", bad);
}
