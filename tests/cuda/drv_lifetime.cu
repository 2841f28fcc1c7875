// Lifetime and bad input, as NVIDIA's driver handles them: contexts free what
// they own (memory use stays flat over many create/destroy and fault/reset
// cycles), corrupt fat binaries are refused, invalid launches and misaligned
// memsets are invalid values, a forked child is not initialized, the device
// memory limit gives CUDA_ERROR_OUT_OF_MEMORY, profiler calls succeed.
#include "drv_common.h"
#include <cudaProfiler.h>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *Ptx = R"(
.version 7.5
.target sm_75
.address_size 64
.visible .entry store(.param .u64 p, .param .u32 v)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd0, [p];
  ld.param.u32 %r0, [v];
  st.global.u32 [%rd0], %r0;
  ret;
}
)";

static int Bad = 0;

/// Under scripts/sanitize the sanitizer's runtime is preloaded: its
/// quarantine keeps freed memory resident, so RSS says nothing about leaks
/// (LeakSanitizer checks them instead).
static bool underSanitizer() {
  const char *P = std::getenv("LD_PRELOAD");
  return P && (std::strstr(P, "libasan") || std::strstr(P, "libtsan"));
}

static long rssKb() {
  std::ifstream In("/proc/self/status");
  std::string K;
  while (In >> K)
    if (K == "VmRSS:") {
      long V;
      In >> V;
      return V;
    }
  return -1;
}

// One context's life: a module, memory, a stream and an event, left for
// cuCtxDestroy to free.
static void contextCycle(CUdevice Dev) {
  CUcontext C;
  DRV(cuCtxCreate(&C, nullptr, 0, Dev));
  CUmodule M;
  DRV(cuModuleLoadData(&M, Ptx));
  CUdeviceptr D;
  DRV(cuMemAlloc(&D, 64 << 10));
  CUstream S;
  DRV(cuStreamCreate(&S, 0));
  CUevent E;
  DRV(cuEventCreate(&E, 0));
  DRV(cuCtxDestroy(C));
}

// A kernel faults; the primary context is reset (what cudaDeviceReset does).
static void faultResetCycle(CUdevice Dev) {
  CUcontext C;
  DRV(cuDevicePrimaryCtxRetain(&C, Dev));
  DRV(cuCtxSetCurrent(C));
  CUmodule M;
  DRV(cuModuleLoadData(&M, Ptx));
  CUfunction F;
  DRV(cuModuleGetFunction(&F, M, "store"));
  CUdeviceptr D;
  DRV(cuMemAlloc(&D, 64 << 10));
  CUdeviceptr Null = 0;
  unsigned V = 1;
  void *Args[] = {&Null, &V};
  DRV(cuLaunchKernel(F, 1, 1, 1, 1, 1, 1, 0, nullptr, Args, nullptr));
  EXPECT(cuCtxSynchronize() == CUDA_ERROR_ILLEGAL_ADDRESS);
  DRV(cuDevicePrimaryCtxReset(Dev));
}

int main() {
  // Fork before anything: the child inherits an uninitialized driver and may init.
  DRV(cuInit(0));
  CUdevice Dev;
  DRV(cuDeviceGet(&Dev, 0));
  DRV(cuProfilerStart());
  DRV(cuProfilerStop());

  // A child forked after cuInit is not initialized, cuInit included.
  if (pid_t Pid = fork(); Pid == 0) {
    int Fails = 0;
    CUdeviceptr D;
    int Count;
    Fails += cuMemAlloc(&D, 16) != CUDA_ERROR_NOT_INITIALIZED;
    Fails += cuDeviceGetCount(&Count) != CUDA_ERROR_NOT_INITIALIZED;
    Fails += cuInit(0) != CUDA_ERROR_NOT_INITIALIZED;
    _exit(Fails);
  } else {
    int Status = 0;
    waitpid(Pid, &Status, 0);
    EXPECT(WIFEXITED(Status) && WEXITSTATUS(Status) == 0);
  }

  CUcontext Ctx;
  DRV(cuCtxCreate(&Ctx, nullptr, 0, Dev));
  CUmodule M;
  DRV(cuModuleLoadData(&M, Ptx));
  CUfunction F;
  DRV(cuModuleGetFunction(&F, M, "store"));
  CUdeviceptr D;
  DRV(cuMemAlloc(&D, 4096));

  // Corrupt fat binaries: sizes that exceed readable memory, bad header fields.
  {
    long Page = sysconf(_SC_PAGESIZE);
    char *Map = static_cast<char *>(mmap(nullptr, 2 * Page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    mprotect(Map + Page, Page, PROT_NONE); // the header sits just before unreadable memory
    char *H = Map + Page - 64;
    std::memset(H, 0, 64);
    uint32_t Magic = 0xBA55ED50;
    uint16_t Version = 1, HeaderSize = 16;
    uint64_t Size = 4096;
    std::memcpy(H, &Magic, 4);
    std::memcpy(H + 4, &Version, 2);
    std::memcpy(H + 6, &HeaderSize, 2);
    std::memcpy(H + 8, &Size, 8);
    CUmodule X;
    EXPECT(cuModuleLoadData(&X, H) == CUDA_ERROR_INVALID_IMAGE);
    Size = uint64_t(1) << 40;
    std::memcpy(H + 8, &Size, 8);
    EXPECT(cuModuleLoadData(&X, H) == CUDA_ERROR_INVALID_IMAGE);
    Size = 48; // an entry whose header size exceeds the container
    std::memcpy(H + 8, &Size, 8);
    uint32_t EntryHeader = 4000;
    std::memcpy(H + 16 + 4, &EntryHeader, 4);
    EXPECT(cuModuleLoadData(&X, H) == CUDA_ERROR_INVALID_IMAGE);
    HeaderSize = 9000;
    std::memcpy(H + 6, &HeaderSize, 2);
    EXPECT(cuModuleLoadData(&X, H) == CUDA_ERROR_INVALID_IMAGE);
    // A wrapper pointing at unreadable memory.
    struct { uint32_t Magic, Version; const void *Data, *Unused; } W = {0x466243b1, 1, Map + Page, nullptr};
    EXPECT(cuModuleLoadData(&X, &W) == CUDA_ERROR_INVALID_IMAGE);
    munmap(Map, 2 * Page);
  }

  // Launches NVIDIA refuses.
  {
    unsigned V = 7;
    void *Args[] = {&D, &V};
    struct { CUdeviceptr P; unsigned V; } Buf = {D, 7};
    size_t Size = sizeof Buf;
    void *Extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &Buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &Size, CU_LAUNCH_PARAM_END};
    EXPECT(cuLaunchKernel(F, 1, 1, 1, 1, 1, 1, 0, nullptr, Args, Extra) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(F, 1, 1, 1, 512, 4, 1, 0, nullptr, Args, nullptr) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(F, 1, 1, 1, 1, 1, 1, 200 << 10, nullptr, Args, nullptr) == CUDA_ERROR_INVALID_VALUE);
    DRV(cuLaunchKernel(F, 1, 1, 1, 1, 1, 1, 0, nullptr, Args, nullptr)); // and the context is still fine
    DRV(cuCtxSynchronize());
  }
  // Misaligned memsets.
  EXPECT(cuMemsetD16(D + 1, 0, 4) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuMemsetD32(D + 2, 0, 4) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuMemsetD2D32(D, 6, 0, 1, 2) == CUDA_ERROR_INVALID_VALUE);
  DRV(cuMemsetD32(D + 4, 0, 4));

  // Device memory is bounded (ZLUDA_CPU_MEMORY_LIMIT is set by the test to 256M).
  {
    size_t Free0, Total;
    DRV(cuMemGetInfo(&Free0, &Total));
    size_t DevTotal;
    DRV(cuDeviceTotalMem(&DevTotal, Dev));
    EXPECT(DevTotal == Total);
    CUdeviceptr Big;
    EXPECT(cuMemAlloc(&Big, Total + 1) == CUDA_ERROR_OUT_OF_MEMORY);
    DRV(cuMemAlloc(&Big, Total / 2));
    size_t Free1;
    DRV(cuMemGetInfo(&Free1, &Total));
    EXPECT(Free1 + Total / 2 <= Free0 && Free1 + Total / 2 + (1 << 20) > Free0);
    CUdeviceptr More;
    EXPECT(cuMemAlloc(&More, Total / 2 + (1 << 20)) == CUDA_ERROR_OUT_OF_MEMORY);
    DRV(cuMemFree(Big));
  }
  DRV(cuCtxDestroy(Ctx));

  // Memory stays flat over many cycles.
  for (int I = 0; I < 50; ++I)
    contextCycle(Dev);
  long Before = rssKb();
  for (int I = 0; I < 1000; ++I)
    contextCycle(Dev);
  long After = rssKb();
  std::printf("context cycles: RSS %ld -> %ld KiB\n", Before, After);
  EXPECT(underSanitizer() || After - Before < 4096);
  for (int I = 0; I < 50; ++I)
    faultResetCycle(Dev);
  Before = rssKb();
  for (int I = 0; I < 1000; ++I)
    faultResetCycle(Dev);
  After = rssKb();
  std::printf("fault/reset cycles: RSS %ld -> %ld KiB\n", Before, After);
  EXPECT(underSanitizer() || After - Before < 4096);
  return verdict("drv_lifetime", Bad);
}
