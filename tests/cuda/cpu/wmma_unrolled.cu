// 512 unrolled mma_sync in one kernel, as in NVIDIA's tensor-core GEMM
// sample, whose unrolled loops hold thousands. Each one's operands once took
// their own stack slots (96 bytes each) and overflowed a CPU-device fiber's
// stack; run under ZLUDA_CPU_STACK_SIZE=32 (cuda.wmma_unrolled.small_stack).
// A CPU-device test: kept out of the PTX corpus (every corpus module is also
// compiled for AMDGPU, where 512 software warp-matrix products take minutes).
#include <cstdio>
#include <vector>
#include <cuda_fp16.h>
#include <mma.h>
#include <cuda_runtime.h>
using namespace nvcuda;

template <int N> __device__ void mmaMany(wmma::fragment<wmma::accumulator, 16, 16, 16, float> &fc,
                                         const wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> &fa,
                                         const wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> &fb) {
#pragma unroll
  for (int I = 0; I < N; ++I)
    wmma::mma_sync(fc, fa, fb, fc);
}

__global__ void wmmaUnrolled(const half *a, const half *b, float *c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  mmaMany<512>(fc, fa, fb);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

int main() {
  std::vector<half> a(256), b(256);
  for (int i = 0; i < 256; ++i) {
    a[i] = __float2half((i % 5) - 2.0f);
    b[i] = __float2half((i % 3) * 0.5f);
  }
  half *da, *db;
  float *dc;
  cudaMalloc(&da, 512);
  cudaMalloc(&db, 512);
  cudaMalloc(&dc, 1024);
  cudaMemcpy(da, a.data(), 512, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), 512, cudaMemcpyHostToDevice);
  wmmaUnrolled<<<1, 32>>>(da, db, dc);
  std::vector<float> c(256);
  int bad = 0;
  if (cudaMemcpy(c.data(), dc, 1024, cudaMemcpyDeviceToHost) != cudaSuccess) {
    std::printf("FAIL: the unrolled wmma kernel: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      float r = 0;
      for (int k = 0; k < 16; ++k)
        r += __half2float(a[i * 16 + k]) * __half2float(b[j * 16 + k]);
      bad += c[i * 16 + j] != 512 * r; // small integers and halves: exact in f32
    }
  std::printf("wmma_unrolled: %s (%d mismatches)\n", bad ? "FAIL" : "PASS", bad);
  return bad ? 1 : 0;
}
