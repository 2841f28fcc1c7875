// Tensor-core style wmma 16x16x16 (f16 inputs; s8/u8 inputs with s32
// accumulators, exact integer results) plus half and bfloat16 arithmetic.
#include <cstdio>
#include <vector>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>
#include <cuda_runtime.h>
using namespace nvcuda;

__global__ void wmmaGemm(const half *a, const half *b, float *c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

template <typename T, typename LayoutB>
__global__ void wmmaInt(const T *a, const T *b, const int *c, int *d) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, T, LayoutB> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 16, wmma::mem_col_major);
}

/// 8-bit integer fragments (`wmma.mma...s32.s8.s8.s32` and `.u8`): checked
/// against the exact products.
template <typename T, typename LayoutB> int integerWmma(bool ColB) {
  T *a, *b;
  int *c, *d;
  cudaMallocManaged(&a, 256);
  cudaMallocManaged(&b, 256);
  cudaMallocManaged(&c, 1024);
  cudaMallocManaged(&d, 1024);
  for (int i = 0; i < 256; ++i) {
    a[i] = static_cast<T>(i * 37 + 11);
    b[i] = static_cast<T>(i * 91 + 5);
    c[i] = i * 1000003 - 7;
  }
  wmmaInt<T, LayoutB><<<1, 32>>>(a, b, c, d);
  int bad = cudaDeviceSynchronize() != cudaSuccess;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      long long s = c[i * 16 + j];
      for (int q = 0; q < 16; ++q)
        s += static_cast<long long>(a[i * 16 + q]) * (ColB ? b[j * 16 + q] : b[q * 16 + j]);
      bad += static_cast<int>(s) != d[j * 16 + i];
    }
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaFree(d);
  return bad;
}

__global__ void halfMath(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    half h = __float2half(x[i]);
    half2 h2 = __halves2half2(h, __hadd(h, h));
    h2 = __hmul2(h2, h2);
    __nv_bfloat16 bf = __float2bfloat16(x[i]);
#if __CUDA_ARCH__ >= 800
    bf = __hfma(bf, bf, bf);
#else
    float bff = __bfloat162float(bf);
    bf = __float2bfloat16(bff * bff + bff);
#endif
    y[i] = __half2float(__low2half(h2)) + __half2float(__high2half(h2)) + __bfloat162float(bf) +
           __half2float(hsqrt(__habs(h)));
  }
}

int main() {
  std::vector<half> a(256), b(256);
  for (int i = 0; i < 256; ++i) { a[i] = __float2half((i % 5) - 2.0f); b[i] = __float2half((i % 3) * 0.5f); }
  half *da, *db; float *dc;
  cudaMalloc(&da, 512); cudaMalloc(&db, 512); cudaMalloc(&dc, 1024);
  cudaMemcpy(da, a.data(), 512, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), 512, cudaMemcpyHostToDevice);
  wmmaGemm<<<1, 32>>>(da, db, dc);
  std::vector<float> c(256);
  cudaMemcpy(c.data(), dc, 1024, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      float r = 0;
      for (int k = 0; k < 16; ++k) r += __half2float(a[i * 16 + k]) * __half2float(b[j * 16 + k]);
      bad += c[i * 16 + j] != r;
    }
  bad += integerWmma<signed char, wmma::col_major>(true);
  bad += integerWmma<unsigned char, wmma::row_major>(false);
  std::printf("wmma_half: %s (%d mismatches)\n", bad ? "FAIL" : "PASS", bad);
  return bad ? 1 : 0;
}
