// Tiled matrix multiply with shared memory and barriers.
#include <cstdio>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#define TILE 16

__global__ void matmul(const float *A, const float *B, float *C, int N) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0;
  for (int t = 0; t < (N + TILE - 1) / TILE; ++t) {
    int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < N && ac < N) ? A[row * N + ac] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (br < N && col < N) ? B[br * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k)
      acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < N && col < N) C[row * N + col] = acc;
}

int main() {
  const int N = 100;
  std::vector<float> A(N * N), B(N * N), C(N * N, NAN);
  for (int i = 0; i < N * N; ++i) { A[i] = (i % 7) - 3; B[i] = (i % 5) * 0.5f; }
  float *dA, *dB, *dC;
  cudaMalloc(&dA, N * N * 4); cudaMalloc(&dB, N * N * 4); cudaMalloc(&dC, N * N * 4);
  cudaMemcpy(dA, A.data(), N * N * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B.data(), N * N * 4, cudaMemcpyHostToDevice);
  dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (N + TILE - 1) / TILE);
  matmul<<<grid, block>>>(dA, dB, dC, N);
  cudaMemcpy(C.data(), dC, N * N * 4, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      double r = 0;
      for (int k = 0; k < N; ++k) r += (double)A[i * N + k] * B[k * N + j];
      if (std::fabs(C[i * N + j] - r) > 1e-3) ++bad;
    }
  std::printf("matmul_shared: %s (%d mismatches)\n", bad ? "FAIL" : "PASS", bad);
  return bad ? 1 : 0;
}
