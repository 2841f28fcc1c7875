//===- HipBackendTest.cpp - the driver on its HIP backend, without a GPU ---===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Runs the driver API with ZLUDA_BACKEND=hip over the test HIP runtime
/// (tests/fake_hip, ZLUDA_HIP_LIBRARY): device properties come from HIP,
/// memory and copies are HIP's, modules reach hipModuleLoadData as AMDGPU
/// code objects for the device's gcnArchName, launches carry CUDA's parameter
/// buffer as kernarg bytes, streams and events are HIP's, and a kernel fault
/// HIP reports at synchronization becomes the context's sticky error.
#include "../../fake_hip/FakeHip.h"
#include "ptx/codegen/TextureSampling.h"
#include "zluda/cuda_abi.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" {
CUresult cuInit(unsigned);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuCtxSynchronize();
CUresult cuDeviceGetName(char *, int, CUdevice);
CUresult cuDeviceTotalMem_v2(size_t *, CUdevice);
CUresult cuDeviceGetAttribute(int *, int, CUdevice);
CUresult cuDeviceGetPCIBusId(char *, int, CUdevice);
CUresult cuDeviceGetByPCIBusId(CUdevice *, const char *);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemHostAlloc(void **, size_t, unsigned);
CUresult cuMemFreeHost(void *);
CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *);
CUresult cuArrayGetPlane(CUarray *, CUarray, unsigned);
CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *, CUarray);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr, const void *, size_t, CUstream);
CUresult cuMemsetD8_v2(CUdeviceptr, unsigned char, size_t);
CUresult cuMemsetD32_v2(CUdeviceptr, unsigned, size_t);
CUresult cuMemsetD32Async(CUdeviceptr, unsigned, size_t, CUstream);
CUresult cuModuleLoadData(CUmodule *, const void *);
CUresult cuModuleUnload(CUmodule);
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *);
CUresult cuModuleGetGlobal_v2(CUdeviceptr *, size_t *, CUmodule, const char *);
CUresult cuFuncGetAttribute(int *, int, CUfunction);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                        void **, void **);
CUresult cuLaunchCooperativeKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                   CUstream, void **);
CUresult cuStreamCreate(CUstream *, unsigned);
CUresult cuGraphCreate(CUgraph *, unsigned);
CUresult cuModuleGetTexRef(void **, CUmodule, const char *);
CUresult cuTexRefSetAddress_v2(size_t *, void *, CUdeviceptr, size_t);
CUresult cuTexRefSetFormat(void *, CUarray_format, int);
CUresult cuTexRefSetFlags(void *, unsigned);
CUresult cuGraphDestroy(CUgraph);
CUresult cuGraphConditionalHandleCreate(CUgraphConditionalHandle *, CUgraph, CUcontext, unsigned, unsigned);
CUresult cuGraphAddNode_v2(void **, CUgraph, void *const *, const void *, size_t, CUgraphNodeParams *);
CUresult cuGraphInstantiateWithFlags(void **, CUgraph, unsigned long long);
CUresult cuGraphLaunch(void *, CUstream);
CUresult cuGraphExecDestroy(void *);
CUresult cuStreamCreateWithPriority(CUstream *, unsigned, int);
CUresult cuStreamDestroy_v2(CUstream);
CUresult cuStreamSynchronize(CUstream);
CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned);
CUresult cuLaunchHostFunc(CUstream, CUhostFn, void *);
CUresult cuStreamAddCallback(CUstream, CUstreamCallback, void *, unsigned);
CUresult cuEventCreate(CUevent *, unsigned);
CUresult cuEventDestroy_v2(CUevent);
CUresult cuEventRecord(CUevent, CUstream);
CUresult cuEventSynchronize(CUevent);
CUresult cuEventQuery(CUevent);
CUresult cuEventElapsedTime(float *, CUevent, CUevent);
CUresult cuTexObjectCreate(CUtexObject *, const CUDA_RESOURCE_DESC *, const CUDA_TEXTURE_DESC *, const void *);
CUresult cuTexObjectDestroy(CUtexObject);
CUresult cuMemGetAllocationGranularity(size_t *, const CUmemAllocationProp *, CUmemAllocationGranularity_flags);
CUresult cuMemAddressReserve(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
CUresult cuMemAddressFree(CUdeviceptr, size_t);
CUresult cuMemCreate(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long);
CUresult cuMemRelease(CUmemGenericAllocationHandle);
CUresult cuMemMap(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
CUresult cuMemUnmap(CUdeviceptr, size_t);
CUresult cuMemSetAccess(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
CUresult cuMemExportToShareableHandle(void *, CUmemGenericAllocationHandle, CUmemAllocationHandleType, unsigned long long);
CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *, void *, CUmemAllocationHandleType);
CUresult cuIpcGetMemHandle(CUipcMemHandle *, CUdeviceptr);
CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *, CUipcMemHandle, unsigned);
CUresult cuIpcCloseMemHandle(CUdeviceptr);
CUresult cuIpcGetEventHandle(CUipcEventHandle *, CUevent);
CUresult cuIpcOpenEventHandle(CUevent *, CUipcEventHandle);
CUresult cuArray3DCreate_v2(CUarray *, const CUDA_ARRAY3D_DESCRIPTOR *);
CUresult cuArrayDestroy(CUarray);
CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *);
CUresult cuSurfObjectCreate(CUsurfObject *, const CUDA_RESOURCE_DESC *);
CUresult cuSurfObjectDestroy(CUsurfObject);
}

namespace {

// CUdevice_attribute values (CUDA Driver API reference).
constexpr int AttrWarpSize = 10, AttrClockRate = 13, AttrMultiprocessors = 16, AttrIntegrated = 18,
              AttrCooperative = 95;

/// The test runtime as the driver loaded it.
struct Fake {
  int (*LaunchCount)();
  const FakeHipLaunch *(*Launch)(int);
  int (*ModuleCount)();
  const FakeHipCodeObject *(*Module)(int);
  int (*Calls)(const char *);
  size_t (*LiveBytes)();
  void (*FailNextSync)(int);
  void (*Reset)();
  const char *(*DeviceName)();
  int (*ComputeUnits)();
  int (*PciBus)();
};

const Fake &fake() {
  static Fake F = [] {
    const char *Path = std::getenv("ZLUDA_HIP_LIBRARY");
    void *H = Path ? dlopen(Path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
    if (!H)
      return Fake{};
    Fake X;
    X.LaunchCount = reinterpret_cast<int (*)()>(dlsym(H, "fakeHipLaunchCount"));
    X.Launch = reinterpret_cast<const FakeHipLaunch *(*)(int)>(dlsym(H, "fakeHipLaunch"));
    X.ModuleCount = reinterpret_cast<int (*)()>(dlsym(H, "fakeHipModuleCount"));
    X.Module = reinterpret_cast<const FakeHipCodeObject *(*)(int)>(dlsym(H, "fakeHipModule"));
    X.Calls = reinterpret_cast<int (*)(const char *)>(dlsym(H, "fakeHipCalls"));
    X.LiveBytes = reinterpret_cast<size_t (*)()>(dlsym(H, "fakeHipLiveBytes"));
    X.FailNextSync = reinterpret_cast<void (*)(int)>(dlsym(H, "fakeHipFailNextSync"));
    X.Reset = reinterpret_cast<void (*)()>(dlsym(H, "fakeHipReset"));
    X.DeviceName = reinterpret_cast<const char *(*)()>(dlsym(H, "fakeHipDeviceName"));
    X.ComputeUnits = reinterpret_cast<int (*)()>(dlsym(H, "fakeHipComputeUnits"));
    X.PciBus = reinterpret_cast<int (*)()>(dlsym(H, "fakeHipPciBus"));
    return X;
  }();
  return F;
}

const char *AxpyPtx = R"(
.version 7.0
.target sm_75
.address_size 64

.global .align 4 .u32 launches = 7;
.global .align 4 .b8 never_used[64];

.visible .entry axpy(.param .f32 a, .param .u64 x, .param .u64 y, .param .u32 n)
{
  .reg .pred %p;
  .reg .f32 %f<4>;
  .reg .b32 %r<7>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 tile[512];
  ld.param.f32 %f1, [a];
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r5, %r3, %r4, %r2;
  shl.b32 %r6, %r2, 2;
  mov.u32 %r3, tile;
  add.u32 %r3, %r3, %r6;
  st.shared.u32 [%r3], %r5;
  bar.sync 0;
  setp.ge.u32 %p, %r5, %r1;
  @%p bra DONE;
  mul.wide.u32 %rd3, %r5, 4;
  add.u64 %rd4, %rd1, %rd3;
  add.u64 %rd5, %rd2, %rd3;
  ld.global.f32 %f2, [%rd4];
  ld.global.f32 %f3, [%rd5];
  fma.rn.f32 %f3, %f1, %f2, %f3;
  st.global.f32 [%rd5], %f3;
  atom.global.add.u32 %r6, [launches], 1;
DONE:
  ret;
}
)";

const char *MallocPtx = R"(
.version 7.0
.target sm_75
.address_size 64
.extern .func (.param .b64 r) malloc (.param .b64 n);
.visible .entry grabs(.param .u64 out)
{
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  {
    .param .b64 p0;
    st.param.b64 [p0], 64;
    .param .b64 rv;
    call.uni (rv), malloc, (p0);
    ld.param.b64 %rd2, [rv];
  }
  st.global.u64 [%rd1], %rd2;
  ret;
}
)";

const char *PrintfPtx = R"(
.version 7.0
.target sm_75
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 $str[3] = {104, 105, 0};
.visible .entry hello()
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  cvta.global.u64 %rd1, $str;
  mov.u64 %rd2, 0;
  {
    .param .b64 p0;
    st.param.b64 [p0], %rd1;
    .param .b64 p1;
    st.param.b64 [p1], %rd2;
    .param .b32 rv;
    call.uni (rv), vprintf, (p0, p1);
    ld.param.b32 %r1, [rv];
  }
  ret;
}
)";

class HipBackend : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuDevicePrimaryCtxRetain(&Ctx, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSetCurrent(Ctx), CUDA_SUCCESS);
    ASSERT_NE(fake().Calls, nullptr);
    PropsR0000 = fake().Calls("hipGetDeviceProperties");
    PropsR0600 = fake().Calls("hipGetDevicePropertiesR0600");
  }
  static int PropsR0000, PropsR0600;
  void SetUp() override {
    ASSERT_NE(fake().Reset, nullptr) << "the driver did not load the test HIP runtime";
    fake().Reset();
  }
  static CUcontext Ctx;
};
CUcontext HipBackend::Ctx = nullptr;
int HipBackend::PropsR0000 = 0, HipBackend::PropsR0600 = 0;

TEST_F(HipBackend, TheDeviceIsTheGpuHipDescribes) {
  char Name[128] = {};
  ASSERT_EQ(cuDeviceGetName(Name, sizeof Name, 0), CUDA_SUCCESS);
  EXPECT_STREQ(Name, fake().DeviceName());
  // ROCm 6's layout when the runtime has it (the ROCm 6 build of the fake has
  // nothing else), else ROCm 5's.
  if (std::getenv("FAKE_HIP_ROCM6")) {
    EXPECT_GT(PropsR0600, 0);
    EXPECT_EQ(PropsR0000, 0);
  } else {
    EXPECT_GT(PropsR0000, 0);
    EXPECT_EQ(PropsR0600, 0);
  }
  size_t Mem = 0;
  ASSERT_EQ(cuDeviceTotalMem_v2(&Mem, 0), CUDA_SUCCESS);
  EXPECT_EQ(Mem, size_t(64) << 30);
  int V = -1;
  ASSERT_EQ(cuDeviceGetAttribute(&V, AttrMultiprocessors, 0), CUDA_SUCCESS);
  EXPECT_EQ(V, fake().ComputeUnits());
  ASSERT_EQ(cuDeviceGetAttribute(&V, AttrWarpSize, 0), CUDA_SUCCESS);
  EXPECT_EQ(V, 32) << "CUDA programs see 32-lane warps on every AMD GPU";
  ASSERT_EQ(cuDeviceGetAttribute(&V, AttrIntegrated, 0), CUDA_SUCCESS);
  EXPECT_EQ(V, 0);
  ASSERT_EQ(cuDeviceGetAttribute(&V, AttrClockRate, 0), CUDA_SUCCESS);
  EXPECT_EQ(V, 1700000);
  ASSERT_EQ(cuDeviceGetAttribute(&V, AttrCooperative, 0), CUDA_SUCCESS);
  EXPECT_EQ(V, 0) << "cooperative launches are not implemented on HIP";
  char Bus[32] = {}, Want[32];
  std::snprintf(Want, sizeof Want, "0000:%02x:00.0", fake().PciBus());
  ASSERT_EQ(cuDeviceGetPCIBusId(Bus, sizeof Bus, 0), CUDA_SUCCESS);
  EXPECT_STREQ(Bus, Want);
  CUdevice D = -1;
  EXPECT_EQ(cuDeviceGetByPCIBusId(&D, Want), CUDA_SUCCESS);
  EXPECT_EQ(D, 0);
  EXPECT_EQ(cuDeviceGetByPCIBusId(&D, "0000:00:00.0"), CUDA_ERROR_INVALID_DEVICE);
}

TEST_F(HipBackend, MemoryIsHipsAndCopiesRoundTrip) {
  const size_t N = 4099;
  size_t Before = fake().LiveBytes();
  CUdeviceptr P = 0;
  ASSERT_EQ(cuMemAlloc_v2(&P, N * 4), CUDA_SUCCESS);
  EXPECT_EQ(fake().Calls("hipMalloc"), 1);
  EXPECT_EQ(fake().LiveBytes(), Before + N * 4);
  std::mt19937 Rng(std::random_device{}());
  std::vector<uint32_t> In(N), Out(N, 0xdeadbeef);
  for (uint32_t &X : In)
    X = Rng();
  ASSERT_EQ(cuMemcpyHtoD_v2(P, In.data(), N * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(Out.data(), P, N * 4), CUDA_SUCCESS);
  EXPECT_EQ(In, Out);
  EXPECT_EQ(fake().Calls("hipMemcpy"), 2);
  // Memsets: HIP's D32, then D8 over the first bytes.
  ASSERT_EQ(cuMemsetD32_v2(P, 0x01020304u, N), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD8_v2(P, 0xff, 6), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(Out.data(), P, N * 4), CUDA_SUCCESS);
  EXPECT_EQ(Out[0], 0xffffffffu);
  EXPECT_EQ(Out[1], 0x0102ffffu);
  EXPECT_EQ(Out[N - 1], 0x01020304u);
  EXPECT_EQ(fake().Calls("hipMemsetD32"), 1);
  EXPECT_EQ(fake().Calls("hipMemsetD8"), 1);
  // Async copies go to the stream they were given.
  CUstream S;
  ASSERT_EQ(cuStreamCreate(&S, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoDAsync_v2(P, In.data(), N * 4, S), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32Async(P, 5, 1, S), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(fake().Calls("hipMemcpyAsync"), 1);
  EXPECT_EQ(fake().Calls("hipMemsetD32Async"), 1);
  EXPECT_EQ(fake().Calls("hipStreamSynchronize"), 1);
  ASSERT_EQ(cuMemcpyDtoH_v2(Out.data(), P, 8), CUDA_SUCCESS);
  EXPECT_EQ(Out[0], 5u);
  EXPECT_EQ(Out[1], In[1]);
  ASSERT_EQ(cuStreamDestroy_v2(S), CUDA_SUCCESS);
  // Out of range is refused by the allocation table before HIP is asked.
  EXPECT_EQ(cuMemcpyHtoD_v2(P + 4, In.data(), N * 4), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemFree_v2(P), CUDA_SUCCESS);
  EXPECT_EQ(fake().Calls("hipFree"), 1);
  EXPECT_EQ(fake().LiveBytes(), Before);
  EXPECT_EQ(cuMemFree_v2(P), CUDA_ERROR_INVALID_VALUE);
  // Pinned host memory is hipHostMalloc's.
  void *H = nullptr;
  ASSERT_EQ(cuMemHostAlloc(&H, 1000, CU_MEMHOSTALLOC_DEVICEMAP), CUDA_SUCCESS);
  EXPECT_EQ(fake().Calls("hipHostMalloc"), 1);
  ASSERT_EQ(cuMemFreeHost(H), CUDA_SUCCESS);
  EXPECT_EQ(fake().Calls("hipHostFree"), 1);
}

/// e_flags of an AMDGPU code object: the processor and, for code object v4+,
/// the xnack and sramecc settings (ELF AMDGPU ABI, "EF_AMDGPU_*").
struct Flags {
  unsigned Mach, Xnack, Sramecc;
};
Flags expectedFlags() {
  const char *A = std::getenv("FAKE_HIP_ARCH");
  std::string Arch = A ? A : "gfx90a:sramecc+:xnack-";
  Flags F{0, 0, 0};
  if (Arch.rfind("gfx90a", 0) == 0)
    F.Mach = 0x3f;
  else if (Arch.rfind("gfx1030", 0) == 0)
    F.Mach = 0x36;
  else if (Arch.rfind("gfx1100", 0) == 0)
    F.Mach = 0x41;
  auto Feature = [&](const char *Name, unsigned Any, unsigned Off, unsigned On, unsigned Unsupported) {
    std::string N = std::string(":") + Name;
    if (Arch.find(N + "+") != std::string::npos)
      return On;
    if (Arch.find(N + "-") != std::string::npos)
      return Off;
    return F.Mach == 0x3f ? Any : Unsupported;
  };
  F.Xnack = Feature("xnack", 0x100, 0x200, 0x300, 0);
  F.Sramecc = Feature("sramecc", 0x400, 0x800, 0xc00, 0);
  return F;
}

/// ZLUDA_WAVE64_SLOW_MODE on a wave64 processor: launches become one wave
/// per warp with the block's shape after the parameters.
bool slowMode() {
  const char *S = std::getenv("ZLUDA_WAVE64_SLOW_MODE");
  const char *A = std::getenv("FAKE_HIP_ARCH");
  return S && std::string(S) == "1" && (!A || std::string(A).rfind("gfx9", 0) == 0);
}

TEST_F(HipBackend, ModulesAreCodeObjectsAndLaunchesCarryTheParameterBuffer) {
  CUmodule M;
  ASSERT_EQ(cuModuleLoadData(&M, AxpyPtx), CUDA_SUCCESS);
  ASSERT_EQ(fake().ModuleCount(), 1);
  const FakeHipCodeObject *CO = fake().Module(0);
  EXPECT_EQ(CO->Machine, 224) << "EM_AMDGPU";
  EXPECT_EQ(CO->OsAbi, 64) << "ELFOSABI_AMDGPU_HSA";
  Flags F = expectedFlags();
  ASSERT_NE(F.Mach, 0u);
  EXPECT_EQ(CO->Flags & 0xff, F.Mach) << std::hex << CO->Flags;
  // Code object v4+ (ABI version 2+) carries per-feature settings.
  ASSERT_GE(CO->AbiVersion, 2);
  EXPECT_EQ(CO->Flags & 0x300, F.Xnack) << std::hex << CO->Flags;
  EXPECT_EQ(CO->Flags & 0xc00, F.Sramecc) << std::hex << CO->Flags;

  // Module variables: the code object's, with its initializer; one no kernel
  // uses still has memory the program can write.
  CUdeviceptr G = 0;
  size_t Size = 0;
  ASSERT_EQ(cuModuleGetGlobal_v2(&G, &Size, M, "launches"), CUDA_SUCCESS);
  EXPECT_EQ(Size, 4u);
  uint32_t Launches = 0;
  ASSERT_EQ(cuMemcpyDtoH_v2(&Launches, G, 4), CUDA_SUCCESS);
  EXPECT_EQ(Launches, 7u);
  CUdeviceptr Unused = 0;
  ASSERT_EQ(cuModuleGetGlobal_v2(&Unused, &Size, M, "never_used"), CUDA_SUCCESS);
  EXPECT_EQ(Size, 64u);
  std::vector<uint8_t> Bytes(64, 0x5a);
  EXPECT_EQ(cuMemcpyHtoD_v2(Unused, Bytes.data(), 64), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleGetGlobal_v2(&G, &Size, M, "nope"), CUDA_ERROR_NOT_FOUND);

  CUfunction Fn;
  ASSERT_EQ(cuModuleGetFunction(&Fn, M, "axpy"), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleGetFunction(&Fn, M, "axpy_not_here"), CUDA_ERROR_NOT_FOUND);
  ASSERT_EQ(cuModuleGetFunction(&Fn, M, "axpy"), CUDA_SUCCESS);
  int Shared = -1;
  ASSERT_EQ(cuFuncGetAttribute(&Shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, Fn), CUDA_SUCCESS);
  EXPECT_EQ(Shared, 512);

  CUstream S;
  ASSERT_EQ(cuStreamCreate(&S, 0), CUDA_SUCCESS);
  std::mt19937 Rng(std::random_device{}());
  float A = std::uniform_real_distribution<float>(-4, 4)(Rng);
  CUdeviceptr X = 0x1000 + (Rng() & 0xffff) * 256, Y = X + (Rng() & 0xff) * 256 + 256;
  uint32_t N = 1000 + Rng() % 1000;
  void *Args[] = {&A, &X, &Y, &N};
  ASSERT_EQ(cuLaunchKernel(Fn, (N + 127) / 128, 2, 1, 128, 1, 1, 256, S, Args, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(fake().LaunchCount(), 1);
  const FakeHipLaunch *L = fake().Launch(0);
  EXPECT_STREQ(L->Kernel, "axpy");
  EXPECT_EQ(L->Grid[0], (N + 127) / 128);
  EXPECT_EQ(L->Grid[1], 2u);
  // Slow mode: 4 warps of 32 threads, each in a 64-lane wave of its own.
  EXPECT_EQ(L->Block[0], slowMode() ? 256u : 128u);
  EXPECT_EQ(L->Block[1], 1u);
  EXPECT_EQ(L->Shared, 512u + 256u) << "static .shared ahead of the launch's dynamic part";
  EXPECT_NE(L->Stream, nullptr) << "the launch goes to the stream's HIP stream";
  // CUDA's layout: f32 at 0, two pointers at 8 and 16, u32 at 24 (the
  // buffer padded to the pointers' alignment); in slow mode the block's
  // x, y, z follow.
  ASSERT_EQ(L->KernargSize, slowMode() ? 44u : 32u);
  if (slowMode()) {
    uint32_t Shape[3];
    std::memcpy(Shape, L->Kernarg + 32, sizeof Shape);
    EXPECT_EQ(Shape[0], 128u);
    EXPECT_EQ(Shape[1], 1u);
    EXPECT_EQ(Shape[2], 1u);
  }
  float GotA;
  uint64_t GotX, GotY;
  uint32_t GotN;
  std::memcpy(&GotA, L->Kernarg + 0, 4);
  std::memcpy(&GotX, L->Kernarg + 8, 8);
  std::memcpy(&GotY, L->Kernarg + 16, 8);
  std::memcpy(&GotN, L->Kernarg + 24, 4);
  EXPECT_EQ(GotA, A);
  EXPECT_EQ(GotX, X);
  EXPECT_EQ(GotY, Y);
  EXPECT_EQ(GotN, N);

  // The same through CU_LAUNCH_PARAM_BUFFER_POINTER (without the tail
  // padding, which CUDA accepts), on the default stream.
  uint8_t Buf[28] = {};
  std::memcpy(Buf, &A, 4);
  std::memcpy(Buf + 8, &Y, 8);
  std::memcpy(Buf + 16, &X, 8);
  std::memcpy(Buf + 24, &N, 4);
  size_t BufSize = sizeof Buf;
  void *Extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, Buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &BufSize, CU_LAUNCH_PARAM_END};
  ASSERT_EQ(cuLaunchKernel(Fn, 1, 1, 1, 64, 1, 1, 0, nullptr, nullptr, Extra), CUDA_SUCCESS);
  ASSERT_EQ(fake().LaunchCount(), 2);
  L = fake().Launch(1);
  EXPECT_EQ(L->Stream, nullptr);
  EXPECT_EQ(L->Shared, 512u);
  EXPECT_EQ(std::memcmp(L->Kernarg, Buf, 28), 0);

  // A 3-D block: in slow mode one 1-D workgroup of 64 work-items per warp.
  ASSERT_EQ(cuLaunchKernel(Fn, 1, 1, 1, 8, 5, 3, 0, nullptr, Args, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(fake().LaunchCount(), 3);
  L = fake().Launch(2);
  if (slowMode()) {
    EXPECT_EQ(L->Block[0], 256u) << "120 threads are 4 warps";
    EXPECT_EQ(L->Block[1], 1u);
    EXPECT_EQ(L->Block[2], 1u);
    uint32_t Shape[3];
    std::memcpy(Shape, L->Kernarg + 32, sizeof Shape);
    EXPECT_EQ(Shape[0], 8u);
    EXPECT_EQ(Shape[1], 5u);
    EXPECT_EQ(Shape[2], 3u);
  } else {
    EXPECT_EQ(L->Block[0], 8u);
    EXPECT_EQ(L->Block[1], 5u);
    EXPECT_EQ(L->Block[2], 3u);
  }
  // Checked before HIP sees them.
  EXPECT_EQ(cuLaunchKernel(Fn, 1, 1, 1, 2048, 1, 1, 0, nullptr, Args, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchCooperativeKernel(Fn, 1, 1, 1, 64, 1, 1, 0, nullptr, Args), CUDA_ERROR_NOT_SUPPORTED);
  // Slow mode runs blocks of up to 512 threads.
  EXPECT_EQ(cuLaunchKernel(Fn, 1, 1, 1, 768, 1, 1, 0, nullptr, Args, nullptr),
            slowMode() ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS);
  EXPECT_EQ(fake().LaunchCount(), slowMode() ? 3 : 4);
  ASSERT_EQ(cuStreamDestroy_v2(S), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
  EXPECT_EQ(fake().Calls("hipModuleUnload"), 1);
}

TEST_F(HipBackend, KernelsTheTargetCannotCompileAreRefusedAtLaunch) {
  CUmodule M;
  ASSERT_EQ(cuModuleLoadData(&M, MallocPtx), CUDA_SUCCESS);
  CUfunction Fn;
  ASSERT_EQ(cuModuleGetFunction(&Fn, M, "grabs"), CUDA_SUCCESS);
  CUdeviceptr Out = 0;
  void *Args[] = {&Out};
  EXPECT_EQ(cuLaunchKernel(Fn, 1, 1, 1, 1, 1, 1, 0, nullptr, Args, nullptr), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(fake().LaunchCount(), 0);
  ASSERT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
  // printf is supported: the launch reaches HIP.
  ASSERT_EQ(cuModuleLoadData(&M, PrintfPtx), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetFunction(&Fn, M, "hello"), CUDA_SUCCESS);
  EXPECT_EQ(cuLaunchKernel(Fn, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(fake().LaunchCount(), 1);
  ASSERT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
  // Bad PTX is the compiler's error, before HIP is asked.
  EXPECT_EQ(cuModuleLoadData(&M, ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k() { bogus; }\n"),
            CUDA_ERROR_INVALID_PTX);
  EXPECT_EQ(fake().Calls("hipModuleLoadData"), 2);
}

void hostFn(void *P) { ++*static_cast<int *>(P); }
void callback(CUstream, CUresult Status, void *P) { *static_cast<int *>(P) = 100 + Status; }

TEST_F(HipBackend, StreamsEventsAndHostFunctionsAreHips) {
  CUstream S;
  ASSERT_EQ(cuStreamCreateWithPriority(&S, CU_STREAM_NON_BLOCKING, -1), CUDA_SUCCESS);
  EXPECT_EQ(fake().Calls("hipStreamCreateWithPriority"), 1);
  CUevent A, B;
  ASSERT_EQ(cuEventCreate(&A, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuEventCreate(&B, 0), CUDA_SUCCESS);
  EXPECT_EQ(fake().Calls("hipEventCreateWithFlags"), 2);
  float Ms = -1;
  EXPECT_EQ(cuEventElapsedTime(&Ms, A, B), CUDA_ERROR_INVALID_HANDLE) << "neither was recorded";
  ASSERT_EQ(cuEventRecord(A, S), CUDA_SUCCESS);
  int Ran = 0, Status = -1;
  ASSERT_EQ(cuLaunchHostFunc(S, hostFn, &Ran), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamAddCallback(S, callback, &Status, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(B, S), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitEvent(nullptr, B, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuEventSynchronize(B), CUDA_SUCCESS);
  EXPECT_EQ(Ran, 1);
  EXPECT_EQ(Status, 100);
  EXPECT_EQ(fake().Calls("hipEventRecord"), 2);
  EXPECT_EQ(fake().Calls("hipStreamWaitEvent"), 1);
  EXPECT_EQ(fake().Calls("hipEventSynchronize"), 1);
  EXPECT_EQ(fake().Calls("hipLaunchHostFunc"), 2) << "host functions and callbacks run in stream order";
  ASSERT_EQ(cuEventElapsedTime(&Ms, A, B), CUDA_SUCCESS);
  EXPECT_GE(Ms, 0.0f);
  EXPECT_EQ(cuEventQuery(B), CUDA_SUCCESS);
  ASSERT_EQ(cuEventDestroy_v2(A), CUDA_SUCCESS);
  ASSERT_EQ(cuEventDestroy_v2(B), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamDestroy_v2(S), CUDA_SUCCESS);
  EXPECT_EQ(fake().Calls("hipEventDestroy"), 2);
  EXPECT_EQ(fake().Calls("hipStreamDestroy"), 1);
}

/// Virtual memory management and IPC are HIP's: the driver keeps its tables
/// and checks (granularity from HIP, here 64 KiB), HIP reserves, creates,
/// maps and shares.
TEST_F(HipBackend, VirtualMemoryAndIpcAreHips) {
  int Vmm = 0;
  ASSERT_EQ(cuDeviceGetAttribute(&Vmm, 102, 0), CUDA_SUCCESS);
  EXPECT_EQ(Vmm, 1);
  CUmemAllocationProp Prop{};
  Prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  Prop.location = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
  Prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t G = 0;
  ASSERT_EQ(cuMemGetAllocationGranularity(&G, &Prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
  EXPECT_EQ(G, size_t(64) << 10);
  CUdeviceptr Va, Alias;
  ASSERT_EQ(cuMemAddressReserve(&Va, 2 * G, 0, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAddressReserve(&Alias, 2 * G, 0, 0, 0), CUDA_SUCCESS);
  CUmemGenericAllocationHandle H, Imported;
  EXPECT_EQ(cuMemCreate(&H, G + 4096, &Prop, 0), CUDA_ERROR_INVALID_VALUE) << "not a multiple of HIP's granularity";
  ASSERT_EQ(cuMemCreate(&H, 2 * G, &Prop, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemMap(Va, 2 * G, 0, H, 0), CUDA_SUCCESS);
  CUmemAccessDesc Rw{};
  Rw.location = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
  Rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  ASSERT_EQ(cuMemSetAccess(Va, 2 * G, &Rw, 1), CUDA_SUCCESS);
  int Fd = -1;
  ASSERT_EQ(cuMemExportToShareableHandle(&Fd, H, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemImportFromShareableHandle(&Imported, reinterpret_cast<void *>(static_cast<intptr_t>(Fd)),
                                           CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
            CUDA_SUCCESS);
  close(Fd);
  ASSERT_EQ(cuMemMap(Alias, 2 * G, 0, Imported, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemSetAccess(Alias, 2 * G, &Rw, 1), CUDA_SUCCESS);
  // The test runtime's memory is real: a memset through one mapping is read through the other.
  ASSERT_EQ(cuMemsetD32_v2(Va + G, 0x5eed, 16), CUDA_SUCCESS);
  unsigned Back[16] = {};
  ASSERT_EQ(cuMemcpyDtoH_v2(Back, Alias + G, sizeof Back), CUDA_SUCCESS);
  for (unsigned V : Back)
    EXPECT_EQ(V, 0x5eedu);
  EXPECT_EQ(fake().Calls("hipMemAddressReserve"), 2);
  EXPECT_EQ(fake().Calls("hipMemCreate"), 1);
  EXPECT_EQ(fake().Calls("hipMemMap"), 2);
  EXPECT_EQ(fake().Calls("hipMemSetAccess"), 2);
  EXPECT_EQ(fake().Calls("hipMemExportToShareableHandle"), 1);
  EXPECT_EQ(fake().Calls("hipMemImportFromShareableHandle"), 1);
  ASSERT_EQ(cuMemUnmap(Va, 2 * G), CUDA_SUCCESS);
  ASSERT_EQ(cuMemUnmap(Alias, 2 * G), CUDA_SUCCESS);
  ASSERT_EQ(cuMemRelease(H), CUDA_SUCCESS);
  ASSERT_EQ(cuMemRelease(Imported), CUDA_SUCCESS);
  EXPECT_EQ(fake().Calls("hipMemRelease"), 2) << "released when neither a handle nor a mapping holds them";
  ASSERT_EQ(cuMemAddressFree(Va, 2 * G), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAddressFree(Alias, 2 * G), CUDA_SUCCESS);
  EXPECT_EQ(fake().Calls("hipMemAddressFree"), 2);

  CUdeviceptr D, Opened;
  ASSERT_EQ(cuMemAlloc_v2(&D, 4096), CUDA_SUCCESS);
  CUipcMemHandle Mh;
  ASSERT_EQ(cuIpcGetMemHandle(&Mh, D), CUDA_SUCCESS);
  ASSERT_EQ(cuIpcOpenMemHandle_v2(&Opened, Mh, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_SUCCESS);
  EXPECT_EQ(Opened, D) << "the test runtime shares one address space";
  ASSERT_EQ(cuIpcCloseMemHandle(Opened), CUDA_SUCCESS);
  EXPECT_EQ(fake().Calls("hipIpcGetMemHandle"), 1);
  EXPECT_EQ(fake().Calls("hipIpcOpenMemHandle"), 1);
  EXPECT_EQ(fake().Calls("hipIpcCloseMemHandle"), 1);
  CUevent E, Other;
  CUipcEventHandle Eh;
  ASSERT_EQ(cuEventCreate(&E, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
  ASSERT_EQ(cuIpcGetEventHandle(&Eh, E), CUDA_SUCCESS);
  ASSERT_EQ(cuIpcOpenEventHandle(&Other, Eh), CUDA_SUCCESS);
  ASSERT_EQ(cuEventSynchronize(Other), CUDA_SUCCESS);
  EXPECT_EQ(fake().Calls("hipIpcGetEventHandle"), 1);
  EXPECT_EQ(fake().Calls("hipIpcOpenEventHandle"), 1);
  ASSERT_EQ(cuEventDestroy_v2(Other), CUDA_SUCCESS);
  ASSERT_EQ(cuEventDestroy_v2(E), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFree_v2(D), CUDA_SUCCESS);
}

/// CUDA arrays on the HIP backend are device memory of ours (hipMalloc), laid
/// out as the device runtime's sampler reads them; textures and surfaces over
/// them are descriptions in device memory like those over pitched memory.
TEST_F(HipBackend, ArraysAreHipMemoryUnderTextureAndSurfaceDescriptions) {
  CUDA_ARRAY3D_DESCRIPTOR Ad = {};
  Ad.Width = 6;
  Ad.Height = 5;
  Ad.Depth = 3;
  Ad.Format = CU_AD_FORMAT_FLOAT;
  Ad.NumChannels = 1;
  Ad.Flags = CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST;
  int Allocs = fake().Calls("hipMalloc");
  CUarray A;
  ASSERT_EQ(cuArray3DCreate_v2(&A, &Ad), CUDA_SUCCESS);
  EXPECT_EQ(fake().Calls("hipMalloc"), Allocs + 1);
  std::vector<float> V(6 * 5 * 3);
  for (size_t I = 0; I < V.size(); ++I)
    V[I] = float(I);
  CUDA_MEMCPY3D C = {};
  C.srcMemoryType = CU_MEMORYTYPE_HOST;
  C.srcHost = V.data();
  C.srcPitch = 6 * 4;
  C.srcHeight = 5;
  C.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  C.dstArray = A;
  C.WidthInBytes = 6 * 4;
  C.Height = 5;
  C.Depth = 3;
  ASSERT_EQ(cuMemcpy3D_v2(&C), CUDA_SUCCESS);
  CUDA_RESOURCE_DESC R = {};
  R.resType = CU_RESOURCE_TYPE_ARRAY;
  R.res.array.hArray = A;
  CUDA_TEXTURE_DESC T = {};
  CUtexObject Tex = 0;
  CUsurfObject Surf = 0;
  ASSERT_EQ(cuTexObjectCreate(&Tex, &R, &T, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuSurfObjectCreate(&Surf, &R), CUDA_SUCCESS);
  const auto *D = reinterpret_cast<const zluda::ptx::TextureDesc *>(Tex);
  EXPECT_EQ(D->Width, 6u);
  EXPECT_EQ(D->Height, 5u);
  EXPECT_EQ(D->Layers, 3u);
  // tex.a2d at layer 2, texel (4, 3): the sampler reads the array's memory as the device would.
  float X = 4.5f, Y = 3.5f;
  uint32_t Raw[4] = {2, 0, 0, 0}, Out[4] = {};
  std::memcpy(&Raw[1], &X, 4);
  std::memcpy(&Raw[2], &Y, 4);
  zluda::ptx::textureFetch(*D, zluda::ptx::GeomArray | 2, Raw, false, Out);
  float Got;
  std::memcpy(&Got, &Out[0], 4);
  EXPECT_EQ(Got, V[(2 * 5 + 3) * 6 + 4]);
  // sust.b at layer 1, texel (5, 4), read back through suld.b.
  const auto *Sd = reinterpret_cast<const zluda::ptx::TextureDesc *>(Surf);
  uint32_t Coords[4] = {1, 5 * 4, 4, 0};
  float W = -7.5f, Back = 0;
  ASSERT_EQ(zluda::ptx::surfaceStore(*Sd, zluda::ptx::GeomArray | 2, Coords, 4, 1, 0,
                                     reinterpret_cast<const unsigned char *>(&W)),
            zluda::ptx::SurfaceDone);
  ASSERT_EQ(zluda::ptx::surfaceLoad(*Sd, zluda::ptx::GeomArray | 2, Coords, 4, 1, 0,
                                    reinterpret_cast<unsigned char *>(&Back)),
            zluda::ptx::SurfaceDone);
  EXPECT_EQ(Back, W);
  ASSERT_EQ(cuSurfObjectDestroy(Surf), CUDA_SUCCESS);
  ASSERT_EQ(cuTexObjectDestroy(Tex), CUDA_SUCCESS);
  ASSERT_EQ(cuArrayDestroy(A), CUDA_SUCCESS);
  EXPECT_EQ(cuArrayDestroy(A), CUDA_ERROR_INVALID_HANDLE);
}

/// Block-compressed and planar YUV arrays are HIP memory too: a BC1 block
/// copied in whole blocks decodes as NVIDIA's hardware does (the device
/// runtime's decoder is TextureSampling.h's), and an NV12 array's UV plane
/// is an array of its own over the parent's memory.
TEST_F(HipBackend, CompressedAndPlanarArraysAreHipMemory) {
  CUDA_ARRAY3D_DESCRIPTOR Ad = {};
  Ad.Width = 8;
  Ad.Height = 4;
  Ad.Format = CU_AD_FORMAT_BC1_UNORM;
  Ad.NumChannels = 4;
  CUarray A;
  ASSERT_EQ(cuArray3DCreate_v2(&A, &Ad), CUDA_SUCCESS);
  // Two blocks: white to black, texel (1, 0) at index 2 (two thirds white).
  unsigned char Blocks[16] = {0xff, 0xff, 0, 0, 0x08, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0, 0, 0};
  CUDA_MEMCPY2D C = {};
  C.srcMemoryType = CU_MEMORYTYPE_HOST;
  C.srcHost = Blocks;
  C.srcPitch = 16;
  C.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  C.dstArray = A;
  C.WidthInBytes = 16;
  C.Height = 1;
  ASSERT_EQ(cuMemcpy2D_v2(&C), CUDA_SUCCESS);
  C.WidthInBytes = 12; // not whole blocks
  EXPECT_EQ(cuMemcpy2D_v2(&C), CUDA_ERROR_INVALID_VALUE);
  CUDA_RESOURCE_DESC R = {};
  R.resType = CU_RESOURCE_TYPE_ARRAY;
  R.res.array.hArray = A;
  CUDA_TEXTURE_DESC T = {};
  CUtexObject Tex = 0;
  ASSERT_EQ(cuTexObjectCreate(&Tex, &R, &T, nullptr), CUDA_SUCCESS);
  const auto *D = reinterpret_cast<const zluda::ptx::TextureDesc *>(Tex);
  EXPECT_EQ(D->Format, unsigned(CU_AD_FORMAT_BC1_UNORM));
  EXPECT_EQ(D->Pitch, 16u) << "a row of blocks";
  float X = 1.5f, Y = 0.5f, Got[4];
  uint32_t Raw[4] = {0, 0, 0, 0}, Out[4] = {};
  std::memcpy(&Raw[0], &X, 4);
  std::memcpy(&Raw[1], &Y, 4);
  zluda::ptx::textureFetch(*D, 2, Raw, false, Out);
  std::memcpy(Got, Out, 16);
  // NVIDIA's thirds: 5-bit (2 * 31 + 0) * 22 / 8 = 170; 6-bit 175.
  EXPECT_EQ(Got[0], 170 / 255.0f);
  EXPECT_EQ(Got[1], 175 / 255.0f);
  EXPECT_EQ(Got[2], 170 / 255.0f);
  EXPECT_EQ(Got[3], 1.0f);
  ASSERT_EQ(cuTexObjectDestroy(Tex), CUDA_SUCCESS);
  ASSERT_EQ(cuArrayDestroy(A), CUDA_SUCCESS);

  CUDA_ARRAY3D_DESCRIPTOR Nd = {};
  Nd.Width = 8;
  Nd.Height = 4;
  Nd.Format = CU_AD_FORMAT_NV12;
  Nd.NumChannels = 3;
  EXPECT_EQ(cuArray3DCreate_v2(&A, &Nd), CUDA_ERROR_INVALID_VALUE) << "YUV arrays are made for video";
  Nd.Flags = CUDA_ARRAY3D_VIDEO_ENCODE_DECODE;
  ASSERT_EQ(cuArray3DCreate_v2(&A, &Nd), CUDA_SUCCESS);
  CUarray Uv;
  ASSERT_EQ(cuArrayGetPlane(&Uv, A, 1), CUDA_SUCCESS);
  CUDA_ARRAY3D_DESCRIPTOR Pd = {};
  ASSERT_EQ(cuArray3DGetDescriptor_v2(&Pd, Uv), CUDA_SUCCESS);
  EXPECT_EQ(Pd.Width, 4u);
  EXPECT_EQ(Pd.Height, 2u);
  EXPECT_EQ(Pd.Format, CU_AD_FORMAT_UNSIGNED_INT8);
  EXPECT_EQ(Pd.NumChannels, 2u);
  unsigned char Uvs[16];
  for (int I = 0; I < 16; ++I)
    Uvs[I] = static_cast<unsigned char>(I * 16);
  C.srcHost = Uvs;
  C.srcPitch = 8;
  C.dstArray = Uv;
  C.WidthInBytes = 8;
  C.Height = 2;
  ASSERT_EQ(cuMemcpy2D_v2(&C), CUDA_SUCCESS);
  C.dstArray = A;
  EXPECT_EQ(cuMemcpy2D_v2(&C), CUDA_ERROR_INVALID_VALUE) << "planar arrays are copied plane by plane";
  R.res.array.hArray = A;
  EXPECT_EQ(cuTexObjectCreate(&Tex, &R, &T, nullptr), CUDA_ERROR_INVALID_VALUE);
  R.res.array.hArray = Uv;
  ASSERT_EQ(cuTexObjectCreate(&Tex, &R, &T, nullptr), CUDA_SUCCESS);
  D = reinterpret_cast<const zluda::ptx::TextureDesc *>(Tex);
  X = 2.5f;
  Y = 1.5f;
  std::memcpy(&Raw[0], &X, 4);
  std::memcpy(&Raw[1], &Y, 4);
  zluda::ptx::textureFetch(*D, 2, Raw, false, Out);
  std::memcpy(Got, Out, 16);
  EXPECT_EQ(Got[0], Uvs[8 + 4] / 255.0f); // row 1, texel 2: bytes 12 and 13
  EXPECT_EQ(Got[1], Uvs[8 + 5] / 255.0f);
  ASSERT_EQ(cuTexObjectDestroy(Tex), CUDA_SUCCESS);
  EXPECT_EQ(cuArrayDestroy(Uv), CUDA_SUCCESS) << "a plane goes with its array";
  ASSERT_EQ(cuArrayDestroy(A), CUDA_SUCCESS);
  EXPECT_EQ(cuArrayGetPlane(&Uv, A, 1), CUDA_ERROR_INVALID_HANDLE);
}

/// A texture object on AMDGPU is the device address of its description, which
/// the device runtime samples with the CPU device's code (TextureSampling.h):
/// here the description is read back from the test runtime's memory and
/// sampled on the host as the device would.
TEST_F(HipBackend, TextureObjectsAreDescriptionsInDeviceMemory) {
  const unsigned W = 8, H = 4, PitchBytes = 64;
  CUdeviceptr P;
  ASSERT_EQ(cuMemAlloc_v2(&P, PitchBytes * H), CUDA_SUCCESS);
  std::vector<float> Texels(PitchBytes / 4 * H, -1.0f);
  for (unsigned Y = 0; Y < H; ++Y)
    for (unsigned X = 0; X < W; ++X)
      Texels[Y * PitchBytes / 4 + X] = float(Y * 100 + X);
  ASSERT_EQ(cuMemcpyHtoD_v2(P, Texels.data(), Texels.size() * 4), CUDA_SUCCESS);
  CUDA_RESOURCE_DESC R = {};
  R.resType = CU_RESOURCE_TYPE_PITCH2D;
  R.res.pitch2D.devPtr = P;
  R.res.pitch2D.format = CU_AD_FORMAT_FLOAT;
  R.res.pitch2D.numChannels = 1;
  R.res.pitch2D.width = W;
  R.res.pitch2D.height = H;
  R.res.pitch2D.pitchInBytes = PitchBytes;
  CUDA_TEXTURE_DESC T = {};
  T.addressMode[0] = 0; // CU_TR_ADDRESS_MODE_WRAP
  T.addressMode[1] = 1; // CU_TR_ADDRESS_MODE_CLAMP
  CUtexObject Tex = 0;
  int Allocs = fake().Calls("hipMalloc");
  ASSERT_EQ(cuTexObjectCreate(&Tex, &R, &T, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(fake().Calls("hipMalloc"), Allocs + 1) << "the description lives in device memory";
  const auto *D = reinterpret_cast<const zluda::ptx::TextureDesc *>(Tex);
  EXPECT_EQ(D->Data, P);
  EXPECT_EQ(D->Width, W);
  EXPECT_EQ(D->Height, H);
  EXPECT_EQ(D->Pitch, PitchBytes);
  EXPECT_EQ(D->AddressMode[0], 0);
  EXPECT_EQ(D->AddressMode[1], 1);
  // tex.2d at (x, y) = (9.5, 7.25): both clamp (x to 7, y to 3): wrap needs
  // normalized coordinates, as on NVIDIA's texture unit.
  float X = 9.5f, Y = 7.25f;
  uint32_t Raw[4] = {0, 0, 0, 0}, Out[4] = {1, 1, 1, 1};
  std::memcpy(&Raw[0], &X, 4);
  std::memcpy(&Raw[1], &Y, 4);
  zluda::ptx::textureFetch(*D, 2, Raw, false, Out);
  float Got;
  std::memcpy(&Got, &Out[0], 4);
  EXPECT_EQ(Got, 307.0f);
  EXPECT_EQ(Out[1], 0u) << "channels the texture lacks read 0";
  int Frees = fake().Calls("hipFree");
  ASSERT_EQ(cuTexObjectDestroy(Tex), CUDA_SUCCESS);
  EXPECT_EQ(fake().Calls("hipFree"), Frees + 1);
  EXPECT_EQ(cuTexObjectDestroy(Tex), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemFree_v2(P), CUDA_SUCCESS);
}

/// A texture reference on AMDGPU: its .texref variable is a variable of the
/// code object, and binding the reference stores the address of a texture
/// description (in HIP memory) there, which is what kernels load.
TEST_F(HipBackend, TextureReferencesHoldADescriptionInTheCodeObjectsVariable) {
  static const char *Ptx = R"(
.version 7.8
.target sm_75
.address_size 64
.global .texref tl;
.visible .entry fetch(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<3>;
  mov.u32 %r1, %tid.x;
  tex.1d.v4.s32.s32 {%r2, %r3, %r4, %r5}, [tl, {%r1}];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r2;
  ret;
}
)";
  CUmodule M;
  ASSERT_EQ(cuModuleLoadData(&M, Ptx), CUDA_SUCCESS);
  void *Ref;
  ASSERT_EQ(cuModuleGetTexRef(&Ref, M, "tl"), CUDA_SUCCESS);
  CUdeviceptr Var;
  size_t Size;
  ASSERT_EQ(cuModuleGetGlobal_v2(&Var, &Size, M, "tl"), CUDA_SUCCESS);
  EXPECT_EQ(Size, 8u);
  CUdeviceptr P;
  ASSERT_EQ(cuMemAlloc_v2(&P, 256), CUDA_SUCCESS);
  ASSERT_EQ(cuTexRefSetFormat(Ref, CU_AD_FORMAT_SIGNED_INT32, 1), CUDA_SUCCESS);
  ASSERT_EQ(cuTexRefSetFlags(Ref, CU_TRSF_READ_AS_INTEGER), CUDA_SUCCESS);
  size_t Offset = 1;
  ASSERT_EQ(cuTexRefSetAddress_v2(&Offset, Ref, P, 256), CUDA_SUCCESS);
  EXPECT_EQ(Offset, 0u);
  uint64_t Handle = 0;
  ASSERT_EQ(cuMemcpyDtoH_v2(&Handle, Var, 8), CUDA_SUCCESS);
  ASSERT_NE(Handle, 0u);
  const auto *D = reinterpret_cast<const zluda::ptx::TextureDesc *>(Handle);
  EXPECT_EQ(D->Data, P);
  EXPECT_EQ(D->Width, 64u) << "256 bytes of 32-bit texels";
  EXPECT_FALSE(D->ReadNormalizedFloat);
  ASSERT_EQ(cuMemFree_v2(P), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
}

/// Conditional graph nodes on the HIP backend: the condition is HIP memory
/// (reset with a HIP memset at each launch, read back with a HIP copy when
/// the work before the node is done); the chosen body's kernels are HIP
/// launches. The test HIP runtime runs no kernels, so the conditions here
/// come from defaults and from the host.
TEST_F(HipBackend, ConditionalGraphNodesChooseBodiesFromHipMemory) {
  CUmodule M;
  ASSERT_EQ(cuModuleLoadData(&M, AxpyPtx), CUDA_SUCCESS);
  CUfunction Fn;
  ASSERT_EQ(cuModuleGetFunction(&Fn, M, "axpy"), CUDA_SUCCESS);
  float A = 2;
  CUdeviceptr X = 0x1000, Y = 0x2000;
  uint32_t N = 64;
  void *Args[] = {&A, &X, &Y, &N};
  CUgraph G;
  ASSERT_EQ(cuGraphCreate(&G, 0), CUDA_SUCCESS);
  CUgraphConditionalHandle Always, Chosen;
  ASSERT_EQ(cuGraphConditionalHandleCreate(&Always, G, nullptr, 1, CU_GRAPH_COND_ASSIGN_DEFAULT), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphConditionalHandleCreate(&Chosen, G, nullptr, 7, 0), CUDA_SUCCESS);
  auto conditional = [&](CUgraphConditionalHandle H, CUgraphConditionalNodeType Type, unsigned Size) {
    CUgraphNodeParams P = {};
    P.type = 13; // CU_GRAPH_NODE_TYPE_CONDITIONAL
    P.conditional.handle = H;
    P.conditional.type = Type;
    P.conditional.size = Size;
    void *Node;
    EXPECT_EQ(cuGraphAddNode_v2(&Node, G, nullptr, nullptr, 0, &P), CUDA_SUCCESS);
    // Body I launches a grid of I + 1 (x) by Tag (y) blocks.
    unsigned Tag = Type == CU_GRAPH_COND_TYPE_IF ? 1 : 2;
    for (unsigned I = 0; I < Size; ++I) {
      CUgraphNodeParams K = {};
      K.type = 0; // CU_GRAPH_NODE_TYPE_KERNEL: CUDA_KERNEL_NODE_PARAMS_v3 in the union
      struct {
        CUfunction func;
        unsigned grid[3], block[3], shared;
        void **params, **extra;
        void *kern;
        CUcontext ctx;
      } Kp = {Fn, {I + 1, Tag, 1}, {64, 1, 1}, 0, Args, nullptr, nullptr, nullptr};
      std::memcpy(&K.reserved1, &Kp, sizeof Kp);
      void *KN;
      EXPECT_EQ(cuGraphAddNode_v2(&KN, P.conditional.phGraph_out[I], nullptr, nullptr, 0, &K), CUDA_SUCCESS);
    }
  };
  conditional(Always, CU_GRAPH_COND_TYPE_IF, 2);     // the default 1 at every launch: body 0
  conditional(Chosen, CU_GRAPH_COND_TYPE_SWITCH, 3); // 0 at first (no default applied): body 0
  void *E;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&E, G, 0), CUDA_SUCCESS);
  CUstream S;
  ASSERT_EQ(cuStreamCreate(&S, 0), CUDA_SUCCESS);
  auto launched = [&] {
    std::vector<std::pair<unsigned, unsigned>> R;
    for (int I = 0; I < fake().LaunchCount(); ++I)
      R.emplace_back(fake().Launch(I)->Grid[0], fake().Launch(I)->Grid[1]);
    return R;
  };
  ASSERT_EQ(cuGraphLaunch(E, S), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  using V = std::vector<std::pair<unsigned, unsigned>>;
  EXPECT_EQ(launched(), (V{{1, 1}, {1, 2}}));
  uint32_t Two = 2, Five = 5;
  ASSERT_EQ(cuMemcpyHtoD_v2(Chosen, &Two, 4), CUDA_SUCCESS); // the handle is the condition's address
  ASSERT_EQ(cuGraphLaunch(E, S), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD_v2(Always, &Two, 4), CUDA_SUCCESS); // reset to 1 by the next launch
  ASSERT_EQ(cuMemcpyHtoD_v2(Chosen, &Five, 4), CUDA_SUCCESS); // past the last body: none
  ASSERT_EQ(cuGraphLaunch(E, S), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(launched(), (V{{1, 1}, {1, 2}, {1, 1}, {3, 2}, {1, 1}}));
  EXPECT_GE(fake().Calls("hipMemsetD32Async") + fake().Calls("hipMemsetAsync"), 3) << "the default, at each launch";
  ASSERT_EQ(cuGraphExecDestroy(E), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphDestroy(G), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamDestroy_v2(S), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
}

// Last: it poisons the context.
TEST_F(HipBackend, ZFaultReportedAtSynchronizationIsSticky) {
  const int HipErrorIllegalAddress = 700;
  fake().FailNextSync(HipErrorIllegalAddress);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  CUdeviceptr P;
  EXPECT_EQ(cuMemAlloc_v2(&P, 16), CUDA_ERROR_ILLEGAL_ADDRESS) << "every later call reports it";
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
}

} // namespace
