// Streams with priorities, async copies, events (timing, query, wait), host functions and callbacks.
#include "common.h"
#include <atomic>
#include <vector>

__global__ void scale(float *d, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] *= f;
}

static std::atomic<int> hostCalls{0};
static void CUDART_CB hostFn(void *p) { hostCalls += *static_cast<int *>(p); }
static void CUDART_CB callback(cudaStream_t, cudaError_t st, void *p) { if (st == cudaSuccess) hostCalls += *static_cast<int *>(p); }

int main() {
  const int n = 1 << 16, S = 4;
  int lo, hi;
  CHECK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
  cudaStream_t st[S];
  for (int s = 0; s < S; ++s) CHECK(cudaStreamCreateWithPriority(&st[s], cudaStreamNonBlocking, s % 2 ? hi : lo));
  std::vector<float *> host(S), dev(S);
  for (int s = 0; s < S; ++s) {
    CHECK(cudaMallocHost(&host[s], n * sizeof(float)));
    CHECK(cudaMalloc(&dev[s], n * sizeof(float)));
    for (int i = 0; i < n; ++i) host[s][i] = i + s;
  }
  cudaEvent_t start, stop, mid;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventCreateWithFlags(&mid, cudaEventDisableTiming));
  CHECK(cudaEventRecord(start, st[0]));
  int one = 1, ten = 10;
  for (int s = 0; s < S; ++s) {
    CHECK(cudaMemcpyAsync(dev[s], host[s], n * sizeof(float), cudaMemcpyHostToDevice, st[s]));
    scale<<<(n + 255) / 256, 256, 0, st[s]>>>(dev[s], n, 2.0f + s);
    CHECK(cudaGetLastError());
    CHECK(cudaLaunchHostFunc(st[s], hostFn, &one));
    CHECK(cudaStreamAddCallback(st[s], callback, &ten, 0));
    CHECK(cudaMemcpyAsync(host[s], dev[s], n * sizeof(float), cudaMemcpyDeviceToHost, st[s]));
  }
  CHECK(cudaEventRecord(mid, st[1]));
  CHECK(cudaStreamWaitEvent(st[2], mid, 0));
  CHECK(cudaEventRecord(stop, st[0]));
  CHECK(cudaEventSynchronize(stop));
  for (int s = 0; s < S; ++s) CHECK(cudaStreamSynchronize(st[s]));
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  int bad = ms < 0;
  bad += cudaEventQuery(stop) != cudaSuccess;
  bad += cudaStreamQuery(st[3]) != cudaSuccess;
  bad += cudaEventElapsedTime(&ms, start, mid) == cudaSuccess; // timing disabled on mid
  for (int s = 0; s < S; ++s)
    for (int i = 0; i < n; ++i) bad += host[s][i] != (i + s) * (2.0f + s);
  bad += hostCalls.load() != S * 11;
  int prio;
  CHECK(cudaStreamGetPriority(st[1], &prio));
  bad += prio != hi;
  for (int s = 0; s < S; ++s) { CHECK(cudaStreamDestroy(st[s])); CHECK(cudaFree(dev[s])); CHECK(cudaFreeHost(host[s])); }
  CHECK(cudaEventDestroy(start)); CHECK(cudaEventDestroy(stop)); CHECK(cudaEventDestroy(mid));
  return verdict("streams_events", bad);
}
