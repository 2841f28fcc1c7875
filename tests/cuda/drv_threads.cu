// Eight host threads on one context at once: each loads modules (four PTX
// variants, so threads compile and look up the same modules in the compile
// cache concurrently), creates streams and events, launches kernels with and
// without barriers, copies, and unloads, many times. Results are checked
// against a host computation. Run under ThreadSanitizer by scripts/sanitize.
#include "drv_common.h"
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

// out[i] = in[i] * K + (the block's first element, read after a barrier when
// the variant has one).
static std::string ptxFor(int Variant) {
  const unsigned K = 2 + Variant;
  const bool Barrier = Variant % 2;
  std::string S = R"(
.version 7.5
.target sm_75
.address_size 64
.visible .entry scale(.param .u64 in, .param .u64 out, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  .shared .align 4 .u32 first;
  mov.u32 %r0, %ctaid.x;
  mov.u32 %r1, %ntid.x;
  mov.u32 %r2, %tid.x;
  mad.lo.u32 %r3, %r0, %r1, %r2;
  mul.lo.u32 %r9, %r0, %r1;
  ld.param.u64 %rd0, [in];
  mul.wide.u32 %rd1, %r9, 4;
  add.u64 %rd2, %rd0, %rd1;
  ld.global.u32 %r8, [%rd2];
)";
  if (Barrier)
    S += R"(
  setp.ne.u32 %p, %r2, 0;
  @%p bra WAIT;
  st.shared.u32 [first], %r8;
WAIT:
  bar.sync 0;
  ld.shared.u32 %r8, [first];
)";
  S += R"(
  ld.param.u32 %r4, [n];
  setp.ge.u32 %p, %r3, %r4;
  @%p bra END;
  mul.wide.u32 %rd1, %r3, 4;
  add.u64 %rd3, %rd0, %rd1;
  ld.global.u32 %r5, [%rd3];
  mul.lo.u32 %r5, %r5, )" + std::to_string(K) + R"(;
  add.u32 %r5, %r5, %r8;
  ld.param.u64 %rd4, [out];
  add.u64 %rd5, %rd4, %rd1;
  st.global.u32 [%rd5], %r5;
END:
  ret;
}
)";
  return S;
}

int main() {
  // A cold compile cache of its own (ZLUDA for C++ reads this; NVIDIA's
  // driver ignores it).
  char Dir[] = "/tmp/zluda-threads-XXXXXX";
  if (mkdtemp(Dir))
    setenv("ZLUDA_CACHE_DIR", (std::string(Dir) + "/cache").c_str(), 1);
  DRV(cuInit(0));
  CUdevice Dev;
  DRV(cuDeviceGet(&Dev, 0));
  CUcontext Ctx;
  DRV(cuDevicePrimaryCtxRetain(&Ctx, Dev));
  std::vector<std::string> Ptx;
  for (int V = 0; V < 4; ++V)
    Ptx.push_back(ptxFor(V));

  const int Threads = 8, Reps = 6;
  const unsigned N = 3000, Block = 128;
  std::atomic<int> Bad{0};
  std::vector<std::thread> Ts;
  for (int T = 0; T < Threads; ++T)
    Ts.emplace_back([&, T] {
      auto Check = [&](CUresult R, const char *What) {
        if (R != CUDA_SUCCESS) {
          std::printf("FAIL thread %d: %s -> %d\n", T, What, int(R));
          ++Bad;
        }
        return R == CUDA_SUCCESS;
      };
      if (!Check(cuCtxSetCurrent(Ctx), "cuCtxSetCurrent"))
        return;
      for (int Rep = 0; Rep < Reps; ++Rep) {
        int V = (T + Rep) % 4;
        CUmodule M;
        if (!Check(cuModuleLoadData(&M, Ptx[V].c_str()), "cuModuleLoadData"))
          return;
        CUfunction F;
        Check(cuModuleGetFunction(&F, M, "scale"), "cuModuleGetFunction");
        CUstream S;
        Check(cuStreamCreate(&S, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
        CUevent E;
        Check(cuEventCreate(&E, 0), "cuEventCreate");
        std::vector<unsigned> In(N), Out(N, 0xDEADBEEF);
        for (unsigned I = 0; I < N; ++I)
          In[I] = I * 7 + T * 1000 + Rep;
        CUdeviceptr DIn, DOut;
        Check(cuMemAlloc(&DIn, N * 4), "cuMemAlloc");
        Check(cuMemAlloc(&DOut, N * 4), "cuMemAlloc");
        Check(cuMemsetD32Async(DOut, 0xFFFFFFFF, N, S), "cuMemsetD32Async");
        Check(cuMemcpyHtoDAsync(DIn, In.data(), N * 4, S), "cuMemcpyHtoDAsync");
        unsigned Count = N;
        void *Args[] = {&DIn, &DOut, &Count};
        Check(cuLaunchKernel(F, (N + Block - 1) / Block, 1, 1, Block, 1, 1, 0, S, Args, nullptr), "cuLaunchKernel");
        Check(cuMemcpyDtoHAsync(Out.data(), DOut, N * 4, S), "cuMemcpyDtoHAsync");
        Check(cuEventRecord(E, S), "cuEventRecord");
        Check(cuEventSynchronize(E), "cuEventSynchronize");
        if (Rep % 3 == 0)
          Check(cuCtxSynchronize(), "cuCtxSynchronize");
        const unsigned K = 2 + V;
        int Wrong = 0;
        for (unsigned I = 0; I < N; ++I) {
          unsigned Add = In[I / Block * Block]; // the block's first input
          Wrong += Out[I] != In[I] * K + Add;
        }
        if (Wrong)
          std::printf("FAIL thread %d rep %d variant %d: %d wrong\n", T, Rep, V, Wrong);
        Bad += Wrong;
        Check(cuEventDestroy(E), "cuEventDestroy");
        Check(cuStreamDestroy(S), "cuStreamDestroy");
        Check(cuMemFree(DIn), "cuMemFree");
        Check(cuMemFree(DOut), "cuMemFree");
        Check(cuModuleUnload(M), "cuModuleUnload");
      }
    });
  for (auto &Th : Ts)
    Th.join();
  DRV(cuDevicePrimaryCtxRelease(Dev));
  std::error_code Ec;
  std::filesystem::remove_all(Dir, Ec);
  return verdict("drv_threads", Bad.load());
}
