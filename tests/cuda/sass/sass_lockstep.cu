// Warp-synchronous code as ptxas writes it, built as machine code only: a
// warp's lanes exchange values through shared memory with __syncwarp() in
// between, which ptxas may drop (a NOP) because a converged warp runs in
// lockstep on NVIDIA's hardware; and CUB's block scan (DeviceScan), whose
// store stage transposes items through shared memory that way. On a device
// whose lanes do not run in lockstep, the loads must still see the other
// lanes' stores (the SASS front end makes the lanes meet before them).
#include <cub/cub.cuh>

#include <cmath>
#include <cstdio>
#include <vector>

__global__ void reverseInWarp(const int *In, int *Out) {
  __shared__ int Buf[256];
  int T = threadIdx.x, Lane = T & 31, Base = T - Lane;
  Buf[T] = In[blockIdx.x * blockDim.x + T] * 7 + 1;
  __syncwarp();
  Out[blockIdx.x * blockDim.x + T] = Buf[Base + 31 - Lane];
}

int main() {
  int Bad = 0;
  const int N = 1024;
  std::vector<int> H(N), R(N);
  for (int I = 0; I < N; ++I)
    H[I] = I * 37 % 101;
  int *DI, *DO;
  cudaMalloc(&DI, N * 4);
  cudaMalloc(&DO, N * 4);
  cudaMemcpy(DI, H.data(), N * 4, cudaMemcpyHostToDevice);
  reverseInWarp<<<N / 256, 256>>>(DI, DO);
  cudaError_t E = cudaDeviceSynchronize();
  cudaMemcpy(R.data(), DO, N * 4, cudaMemcpyDeviceToHost);
  for (int I = 0; I < N; ++I) {
    int J = I - I % 32 + 31 - I % 32;
    if (R[I] != H[J] * 7 + 1 && Bad++ < 5)
      std::printf("reverseInWarp[%d]: got %d, want %d\n", I, R[I], H[J] * 7 + 1);
  }
  if (E != cudaSuccess && Bad++ < 5)
    std::printf("reverseInWarp: %s\n", cudaGetErrorString(E));

  for (int Count : {100, 1000, 70000}) {
    std::vector<float> In(Count), Out(Count);
    for (int I = 0; I < Count; ++I)
      In[I] = (I % 13) * 0.25f - 1; // exact in float: sums compare exactly
    float *D, *O;
    cudaMalloc(&D, Count * 4);
    cudaMalloc(&O, Count * 4);
    cudaMemcpy(D, In.data(), Count * 4, cudaMemcpyHostToDevice);
    size_t Bytes = 0;
    cub::DeviceScan::InclusiveSum(nullptr, Bytes, D, O, Count);
    void *Tmp;
    cudaMalloc(&Tmp, Bytes);
    cub::DeviceScan::InclusiveSum(Tmp, Bytes, D, O, Count);
    E = cudaDeviceSynchronize();
    cudaMemcpy(Out.data(), O, Count * 4, cudaMemcpyDeviceToHost);
    double Acc = 0;
    for (int I = 0; I < Count; ++I) {
      Acc += In[I];
      if (Out[I] != static_cast<float>(Acc) && Bad++ < 10)
        std::printf("InclusiveSum(%d)[%d]: got %g, want %g\n", Count, I, Out[I], Acc);
    }
    if (E != cudaSuccess && Bad++ < 10)
      std::printf("InclusiveSum(%d): %s\n", Count, cudaGetErrorString(E));
    cudaFree(D);
    cudaFree(O);
    cudaFree(Tmp);
  }
  std::printf("sass_lockstep: %s (%d mismatches)\n", Bad ? "FAIL" : "PASS", Bad);
  return Bad != 0;
}
