// Driver API end to end: a context, PTX text loaded with cuModuleLoadData,
// launches with kernelParams and with the extra buffer, module globals.
#include "drv_common.h"
#include <cstring>
#include <vector>

static const char *Ptx = R"(
.version 7.5
.target sm_75
.address_size 64
.visible .global .align 4 .u32 bias = 1000;
.visible .entry addBias(.param .u64 p, .param .u32 n, .param .u32 k)
{
  .reg .pred %p;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  mov.u32 %r0, %ctaid.x;
  mov.u32 %r1, %ntid.x;
  mov.u32 %r2, %tid.x;
  mad.lo.u32 %r3, %r0, %r1, %r2;
  ld.param.u32 %r4, [n];
  setp.ge.u32 %p, %r3, %r4;
  @%p bra END;
  ld.param.u64 %rd0, [p];
  mul.wide.u32 %rd1, %r3, 4;
  add.u64 %rd2, %rd0, %rd1;
  ld.global.u32 %r5, [%rd2];
  ld.global.u32 %r6, [bias];
  ld.param.u32 %r7, [k];
  mad.lo.u32 %r5, %r7, %r5, %r6;
  st.global.u32 [%rd2], %r5;
END:
  ret;
}
)";

int main() {
  DRV(cuInit(0));
  CUdevice dev;
  DRV(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  DRV(cuCtxCreate(&ctx, nullptr, 0, dev));
  CUmodule mod;
  DRV(cuModuleLoadData(&mod, Ptx));
  CUfunction f;
  DRV(cuModuleGetFunction(&f, mod, "addBias"));
  int bad = cuModuleGetFunction(&f, mod, "noSuchKernel") != CUDA_ERROR_NOT_FOUND;
  DRV(cuModuleGetFunction(&f, mod, "addBias"));
  const unsigned n = 1000;
  std::vector<unsigned> h(n), o(n);
  for (unsigned i = 0; i < n; ++i) h[i] = i;
  CUdeviceptr d;
  DRV(cuMemAlloc(&d, n * 4));
  DRV(cuMemcpyHtoD(d, h.data(), n * 4));
  unsigned k = 3;
  void *args[] = {&d, (void *)&n, &k};
  DRV(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  // Second launch through the packed parameter buffer.
  struct { CUdeviceptr p; unsigned n, k; } buf = {d, n, 2};
  size_t size = sizeof buf;
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
  CUdeviceptr biasPtr; size_t biasSize;
  DRV(cuModuleGetGlobal(&biasPtr, &biasSize, mod, "bias"));
  bad += biasSize != 4;
  unsigned newBias = 7;
  DRV(cuMemcpyHtoD(biasPtr, &newBias, 4));
  DRV(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, nullptr, extra));
  DRV(cuCtxSynchronize());
  DRV(cuMemcpyDtoH(o.data(), d, n * 4));
  for (unsigned i = 0; i < n; ++i) bad += o[i] != 2 * (3 * i + 1000) + 7;
  int maxThreads;
  DRV(cuFuncGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
  bad += maxThreads != 1024;
  bad += cuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr) != CUDA_ERROR_INVALID_HANDLE;
  bad += cuMemFree(d + 4) != CUDA_ERROR_INVALID_VALUE;
  DRV(cuMemFree(d));
  DRV(cuModuleUnload(mod));
  bad += cuModuleUnload(mod) != CUDA_ERROR_INVALID_HANDLE; // stale handle
  bad += cuModuleLoadData(&mod, ".version 7.5\n.target sm_75\n.entry k() { bogus; }") != CUDA_ERROR_INVALID_PTX;
  DRV(cuCtxDestroy(ctx));
  return verdict("drv_module_ptx", bad);
}
