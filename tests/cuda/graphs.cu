// CUDA graphs: stream capture (memset, kernels, copy, host function) replayed
// several times, and a graph built node by node.
#include "common.h"
#include <vector>

__global__ void addK(int *p, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += k * (i % 7);
}
static int hostCounter = 0;
static void CUDART_CB bump(void *p) { *static_cast<int *>(p) += 1; }

int main() {
  const int n = 2048;
  int *d;
  CHECK(cudaMalloc(&d, n * 4));
  std::vector<int> h(n, -1);
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  int bad = 0;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus st;
  CHECK(cudaStreamIsCapturing(s, &st));
  bad += st != cudaStreamCaptureStatusActive;
  CHECK(cudaMemsetAsync(d, 0, n * 4, s));
  for (int k = 1; k <= 2; ++k) addK<<<n / 256, 256, 0, s>>>(d, n, k); // k copied at capture
  CHECK(cudaMemcpyAsync(h.data(), d, n * 4, cudaMemcpyDeviceToHost, s));
  CHECK(cudaLaunchHostFunc(s, bump, &hostCounter));
  cudaGraph_t g;
  CHECK(cudaStreamEndCapture(s, &g));
  bad += hostCounter != 0 || h[1] != -1; // nothing ran during capture
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &nodes));
  bad += nodes != 5;
  cudaGraphExec_t ex;
  CHECK(cudaGraphInstantiate(&ex, g, 0));
  for (int rep = 0; rep < 3; ++rep) {
    CHECK(cudaGraphLaunch(ex, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) bad += h[i] != 3 * (i % 7);
  }
  bad += hostCounter != 3;
  CHECK(cudaGraphExecDestroy(ex));
  CHECK(cudaGraphDestroy(g));

  // Explicit construction: memset -> kernel -> kernel -> host.
  cudaGraph_t g2;
  CHECK(cudaGraphCreate(&g2, 0));
  cudaMemsetParams ms = {};
  ms.dst = d; ms.value = 5; ms.elementSize = 4; ms.width = n; ms.height = 1;
  cudaGraphNode_t nMem, nK1, nK2, nHost;
  CHECK(cudaGraphAddMemsetNode(&nMem, g2, nullptr, 0, &ms));
  int nn = n, k = 10;
  void *args[] = {&d, &nn, &k};
  cudaKernelNodeParams kp = {};
  kp.func = (void *)addK; kp.gridDim = dim3(n / 128); kp.blockDim = dim3(128); kp.kernelParams = args;
  CHECK(cudaGraphAddKernelNode(&nK1, g2, &nMem, 1, &kp));
  k = 100; // the first node keeps 10
  CHECK(cudaGraphAddKernelNode(&nK2, g2, &nK1, 1, &kp));
  cudaHostNodeParams hp = {bump, &hostCounter};
  CHECK(cudaGraphAddHostNode(&nHost, g2, &nK2, 1, &hp));
  cudaGraphExec_t ex2;
  CHECK(cudaGraphInstantiate(&ex2, g2, 0));
  CHECK(cudaGraphLaunch(ex2, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) bad += h[i] != 5 + 110 * (i % 7);
  bad += hostCounter != 4;
  CHECK(cudaGraphExecDestroy(ex2)); CHECK(cudaGraphDestroy(g2));
  CHECK(cudaStreamDestroy(s)); CHECK(cudaFree(d));
  return verdict("graphs", bad);
}
