// Texture objects over linear memory, pitched memory and a CUDA array, and
// the texture behaviours real programs rely on (issue 40's reproductions):
// a texture destroyed right after an asynchronous launch (NVIDIA's NV12
// resize and FFT-convolution samples), wrap addressing over unnormalized
// coordinates (it clamps: a separable convolution's borders) and 32-bit
// integer texels read as integers (a stereo-disparity kernel).
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

__global__ void shiftRows(cudaTextureObject_t tex, float *out, int w, int h, int shift) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) out[y * w + x] = tex2D<float>(tex, x + 0.5f + shift, y + 0.5f);
}

__global__ void fetchU32(cudaTextureObject_t tex, unsigned *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x - 4, y = blockIdx.y - 4;
  if (x < w + 4 && y < h + 4) out[(y + 4) * (w + 8) + x + 4] = tex2D<unsigned>(tex, x, y);
}

/// A pitched 2D texture of \p W x \p H texels at \p D.
template <typename T> cudaTextureObject_t pitched(T *D, int W, int H, cudaTextureAddressMode Mode, cudaTextureFilterMode F) {
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypePitch2D;
  rd.res.pitch2D.devPtr = D;
  rd.res.pitch2D.desc = cudaCreateChannelDesc<T>();
  rd.res.pitch2D.width = W;
  rd.res.pitch2D.height = H;
  rd.res.pitch2D.pitchInBytes = W * sizeof(T);
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = Mode;
  td.filterMode = F;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex = 0;
  if (cudaCreateTextureObject(&tex, &rd, &td, nullptr) != cudaSuccess)
    std::printf("FAIL: cudaCreateTextureObject\n");
  return tex;
}

int realProgramCases() {
  int bad = 0;
  const int W = 64, H = 48;
  std::vector<float> img(W * H);
  for (int i = 0; i < W * H; ++i)
    img[i] = float((i * 37) % 101);
  float *src, *out;
  cudaMalloc(&src, W * H * 4);
  cudaMalloc(&out, W * H * 4);
  cudaMemcpy(src, img.data(), W * H * 4, cudaMemcpyHostToDevice);
  std::vector<float> r(W * H);
  // Wrap over unnormalized coordinates clamps; several launches on a stream,
  // each texture destroyed as soon as its launch is enqueued.
  cudaStream_t s;
  cudaStreamCreate(&s);
  for (int shift : {-5, 0, 7}) {
    cudaTextureObject_t tex = pitched(src, W, H, cudaAddressModeWrap, cudaFilterModeLinear);
    shiftRows<<<dim3(W / 32, H), 32, 0, s>>>(tex, out, W, H, shift);
    cudaDestroyTextureObject(tex); // the launch above still samples it
    cudaStreamSynchronize(s);
    cudaMemcpy(r.data(), out, W * H * 4, cudaMemcpyDeviceToHost);
    int b = 0;
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        int sx = x + shift < 0 ? 0 : x + shift >= W ? W - 1 : x + shift;
        b += r[y * W + x] != img[y * W + sx];
      }
    if (b)
      std::printf("FAIL: wrap over unnormalized coordinates, shift %d: %d texels differ from clamping\n", shift, b);
    bad += b;
  }
  // 32-bit unsigned texels: the integers, clamped at the borders.
  std::vector<unsigned> u(W * H);
  for (int i = 0; i < W * H; ++i)
    u[i] = i * 2654435761u;
  unsigned *du, *uo;
  const int OW = W + 8, OH = H + 8;
  cudaMalloc(&du, W * H * 4);
  cudaMalloc(&uo, OW * OH * 4);
  cudaMemcpy(du, u.data(), W * H * 4, cudaMemcpyHostToDevice);
  cudaTextureObject_t ut = pitched(du, W, H, cudaAddressModeClamp, cudaFilterModePoint);
  fetchU32<<<dim3(OW / 8, OH), 8, 0, s>>>(ut, uo, W, H);
  cudaDestroyTextureObject(ut);
  std::vector<unsigned> ur(OW * OH);
  cudaMemcpy(ur.data(), uo, OW * OH * 4, cudaMemcpyDeviceToHost);
  int b = 0;
  for (int y = -4; y < H + 4; ++y)
    for (int x = -4; x < W + 4; ++x) {
      int cx = x < 0 ? 0 : x >= W ? W - 1 : x, cy = y < 0 ? 0 : y >= H ? H - 1 : y;
      b += ur[(y + 4) * OW + x + 4] != u[cy * W + cx];
    }
  if (b)
    std::printf("FAIL: 32-bit unsigned texels: %d of %d read wrong\n", b, OW * OH);
  bad += b;
  cudaStreamDestroy(s);
  cudaFree(src);
  cudaFree(out);
  cudaFree(du);
  cudaFree(uo);
  return bad;
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
  bad += realProgramCases();
  std::printf("textures: %s (%d mismatches)\n", bad ? "FAIL" : "PASS", bad);
  return bad ? 1 : 0;
}
