// Pitched allocations, 2D and 3D copies, 2D memset and the memset widths.
#include "common.h"
#include <vector>

__global__ void touch2d(char *p, size_t pitch, int w, int h) {
  int x = threadIdx.x + blockIdx.x * blockDim.x, y = blockIdx.y;
  if (x < w && y < h) p[y * pitch + x] += 1;
}

int main() {
  const int W = 100, H = 37;
  std::vector<char> h(W * H), back(W * H);
  for (int i = 0; i < W * H; ++i) h[i] = (char)(i * 7);
  char *d; size_t pitch;
  CHECK(cudaMallocPitch(&d, &pitch, W, H));
  int bad = pitch < (size_t)W;
  CHECK(cudaMemset2D(d, pitch, 0x11, W, H));
  CHECK(cudaMemcpy2D(back.data(), W, d, pitch, W, H, cudaMemcpyDeviceToHost));
  for (int i = 0; i < W * H; ++i) bad += back[i] != 0x11;
  CHECK(cudaMemcpy2D(d, pitch, h.data(), W, W, H, cudaMemcpyHostToDevice));
  touch2d<<<dim3((W + 63) / 64, H), 64>>>(d, pitch, W, H);
  CHECK(cudaMemcpy2D(back.data(), W, d, pitch, W, H, cudaMemcpyDeviceToHost));
  for (int i = 0; i < W * H; ++i) bad += back[i] != (char)(h[i] + 1);
  CHECK(cudaFree(d));

  const int X = 16, Y = 9, Z = 5;
  cudaExtent ext = make_cudaExtent(X * sizeof(int), Y, Z);
  cudaPitchedPtr p3;
  CHECK(cudaMalloc3D(&p3, ext));
  std::vector<int> v(X * Y * Z), w(X * Y * Z, -1);
  for (int i = 0; i < X * Y * Z; ++i) v[i] = i * 3 + 1;
  cudaMemcpy3DParms up = {};
  up.srcPtr = make_cudaPitchedPtr(v.data(), X * sizeof(int), X, Y);
  up.dstPtr = p3;
  up.extent = ext;
  up.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&up));
  cudaMemcpy3DParms down = {};
  down.srcPtr = p3;
  down.dstPtr = make_cudaPitchedPtr(w.data(), X * sizeof(int), X, Y);
  down.extent = ext;
  down.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&down));
  bad += v != w;
  CHECK(cudaFree(p3.ptr));

  unsigned *q;
  CHECK(cudaMalloc(&q, 64 * 4));
  CHECK(cudaMemset(q, 0xab, 64 * 4));
  std::vector<unsigned> r(64);
  CHECK(cudaMemcpy(r.data(), q, 256, cudaMemcpyDeviceToHost));
  for (unsigned x : r) bad += x != 0xabababab;
  unsigned *q2;
  CHECK(cudaMalloc(&q2, 64 * 4));
  CHECK(cudaMemcpy(q2, q, 256, cudaMemcpyDeviceToDevice));
  CHECK(cudaMemcpy(r.data(), q2, 256, cudaMemcpyDefault));
  for (unsigned x : r) bad += x != 0xabababab;
  CHECK(cudaFree(q)); CHECK(cudaFree(q2));
  return verdict("memcpy2d3d", bad);
}
