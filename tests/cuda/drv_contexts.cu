// Contexts from several host threads: created, pushed, popped and destroyed
// concurrently, each loading and running its own module.
#include "drv_common.h"
#include <thread>
#include <vector>

static const char *Ptx = R"(
.version 7.5
.target sm_75
.address_size 64
.visible .entry fill(.param .u64 p, .param .u32 v)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u32 %r0, %tid.x;
  ld.param.u32 %r1, [v];
  add.u32 %r2, %r1, %r0;
  ld.param.u64 %rd0, [p];
  mul.wide.u32 %rd1, %r0, 4;
  add.u64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2], %r2;
  ret;
}
)";

int main() {
  DRV(cuInit(0));
  const int T = 4;
  std::vector<int> bad(T, 0);
  std::vector<std::thread> ts;
  for (int t = 0; t < T; ++t)
    ts.emplace_back([t, &bad] {
      CUcontext c, cur = nullptr, popped = nullptr;
      DRV(cuCtxCreate(&c, nullptr, 0, 0));
      DRV(cuCtxGetCurrent(&cur));
      bad[t] += cur != c;
      CUmodule m;
      DRV(cuModuleLoadData(&m, Ptx));
      CUfunction f;
      DRV(cuModuleGetFunction(&f, m, "fill"));
      CUdeviceptr d;
      DRV(cuMemAlloc(&d, 64 * 4));
      unsigned v = 100 * t;
      void *args[] = {&d, &v};
      for (int rep = 0; rep < 20; ++rep)
        DRV(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr));
      unsigned o[64];
      DRV(cuMemcpyDtoH(o, d, sizeof o));
      for (unsigned i = 0; i < 64; ++i) bad[t] += o[i] != 100 * t + i;
      DRV(cuMemFree(d));
      DRV(cuModuleUnload(m));
      DRV(cuCtxPopCurrent(&popped));
      bad[t] += popped != c;
      DRV(cuCtxPushCurrent(c));
      CUdevice dev = -1;
      DRV(cuCtxGetDevice(&dev));
      bad[t] += dev != 0;
      DRV(cuCtxDestroy(c));
    });
  for (auto &th : ts) th.join();
  CUcontext p;
  DRV(cuDevicePrimaryCtxRetain(&p, 0));
  unsigned flags; int active;
  DRV(cuDevicePrimaryCtxGetState(0, &flags, &active));
  int total = !active;
  DRV(cuDevicePrimaryCtxRelease(0));
  total += cuCtxDestroy(p) == CUDA_SUCCESS; // the primary context is not destroyed this way
  for (int b : bad) total += b;
  return verdict("drv_contexts", total);
}
