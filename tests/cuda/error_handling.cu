// Errors are reported with CUDA's codes and rules: invalid arguments, bad
// launch configurations, and a faulting kernel that poisons the context.
#include "common.h"
#include <string>

__global__ void ok(int *p) { p[threadIdx.x] = 1; }
__global__ void wild(int *p) { p[threadIdx.x * 1000000] = 42; }

int main() {
  int bad = 0;
  int *d;
  CHECK(cudaMalloc(&d, 1024 * sizeof(int)));
  ok<<<1, 1025>>>(d); // too many threads per block: refused, not run
  cudaError_t cfg = cudaGetLastError();
  bad += cfg != cudaErrorInvalidConfiguration && cfg != cudaErrorInvalidValue;
  bad += cudaGetLastError() != cudaSuccess; // not sticky
  ok<<<1, 32, 200 * 1024>>>(d); // dynamic shared memory over the limit: refused by the driver
  cfg = cudaGetLastError();         // (NVIDIA's cudart reports the driver's invalid value as such)
  bad += cfg != cudaErrorInvalidConfiguration && cfg != cudaErrorInvalidValue;
  int *zero = (int *)0x1;
  bad += cudaMalloc(&zero, 0) != cudaSuccess; // size 0 is not an error
  bad += cudaFree((void *)0x1234) == cudaSuccess;
  (void)cudaGetLastError();
  bad += cudaMemcpy(nullptr, d, 16, cudaMemcpyDeviceToHost) == cudaSuccess;
  (void)cudaGetLastError();
  const char *name = cudaGetErrorName(cudaErrorIllegalAddress);
  bad += std::string(name) != "cudaErrorIllegalAddress";
  ok<<<1, 32>>>(d);
  CHECK(cudaDeviceSynchronize());
  // A fault inside a kernel: reported at the next synchronisation, and sticky.
  wild<<<1, 64>>>((int *)0x10);
  cudaError_t e = cudaDeviceSynchronize();
  bad += e != cudaErrorIllegalAddress;
  bad += cudaMalloc(&d, 64) != cudaErrorIllegalAddress;
  std::printf("fault reported as %s\n", cudaGetErrorName(e));
  return verdict("error_handling", bad);
}
