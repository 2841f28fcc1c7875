// A program that uses both APIs: the runtime's primary context is the
// driver's, memory crosses between them, and driver-loaded PTX runs on
// runtime-allocated buffers.
#include "common.h"
#include <cuda.h>
#include <vector>

__global__ void twice(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= 2;
}

static const char *Ptx = R"(
.version 7.5
.target sm_75
.address_size 64
.visible .entry plus1(.param .u64 p, .param .u32 n)
{
  .reg .pred %q;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  mov.u32 %r0, %ctaid.x;
  mov.u32 %r1, %ntid.x;
  mov.u32 %r2, %tid.x;
  mad.lo.u32 %r3, %r0, %r1, %r2;
  ld.param.u32 %r4, [n];
  setp.ge.u32 %q, %r3, %r4;
  @%q bra END;
  ld.param.u64 %rd0, [p];
  mul.wide.u32 %rd1, %r3, 4;
  add.u64 %rd2, %rd0, %rd1;
  ld.global.u32 %r5, [%rd2];
  add.u32 %r5, %r5, 1;
  st.global.u32 [%rd2], %r5;
END:
  ret;
}
)";

int main() {
  const int n = 1000;
  int *d;
  CHECK(cudaMalloc(&d, n * 4));          // runtime creates the primary context
  CUcontext cur = nullptr, prim = nullptr;
  int bad = cuCtxGetCurrent(&cur) != CUDA_SUCCESS;
  bad += cuDevicePrimaryCtxRetain(&prim, 0) != CUDA_SUCCESS;
  bad += cur != prim;                    // one context shared by both APIs
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = i;
  bad += cuMemcpyHtoD((CUdeviceptr)d, h.data(), n * 4) != CUDA_SUCCESS;
  twice<<<(n + 255) / 256, 256>>>(d, n);
  CHECK(cudaDeviceSynchronize());
  CUmodule m;
  CUfunction f;
  bad += cuModuleLoadData(&m, Ptx) != CUDA_SUCCESS;
  bad += cuModuleGetFunction(&f, m, "plus1") != CUDA_SUCCESS;
  CUdeviceptr dp = (CUdeviceptr)d;
  int nn = n;
  void *args[] = {&dp, &nn};
  bad += cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr) != CUDA_SUCCESS;
  CHECK(cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) bad += h[i] != 2 * i + 1;
  cuModuleUnload(m);
  cuDevicePrimaryCtxRelease(0);
  CHECK(cudaFree(d));
  return verdict("mixed_driver_runtime", bad);
}
