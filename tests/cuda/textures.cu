// Texture objects over linear memory and a CUDA array.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void fetchLinear(cudaTextureObject_t tex, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(tex, i) * 2.0f;
}

__global__ void fetch2D(cudaTextureObject_t tex, float *out, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) out[y * w + x] = tex2D<float>(tex, x + 0.5f, y + 0.5f);
}

int main() {
  const int n = 256;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = i * 0.5f;
  float *d, *o;
  cudaMalloc(&d, n * 4); cudaMalloc(&o, n * 4);
  cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice);
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeLinear;
  rd.res.linear.devPtr = d;
  rd.res.linear.desc = cudaCreateChannelDesc<float>();
  rd.res.linear.sizeInBytes = n * 4;
  cudaTextureDesc td = {};
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex = 0;
  int bad = 0;
  if (cudaCreateTextureObject(&tex, &rd, &td, nullptr) != cudaSuccess) bad++;
  fetchLinear<<<1, n>>>(tex, o, n);
  std::vector<float> r(n);
  cudaMemcpy(r.data(), o, n * 4, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) bad += r[i] != h[i] * 2.0f;
  cudaDestroyTextureObject(tex);
  std::printf("textures: %s (%d mismatches)\n", bad ? "FAIL" : "PASS", bad);
  return bad ? 1 : 0;
}
