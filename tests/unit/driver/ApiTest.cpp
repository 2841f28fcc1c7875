//===- ApiTest.cpp - libcuda.so.1 entry points called directly -------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Argument checking, handle validation and cuGetProcAddress resolution
/// through the exported symbols, as an application sees them.
#include "zluda/cuda_abi.h"

#include <cstring>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <vector>

extern "C" {
CUresult cuInit(unsigned);
CUresult cuDriverGetVersion(int *);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDeviceGetAttribute(int *, int, CUdevice);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemsetD32_v2(CUdeviceptr, unsigned, size_t);
CUresult cuStreamCreate(CUstream *, unsigned);
CUresult cuStreamDestroy_v2(CUstream);
CUresult cuStreamSynchronize(CUstream);
CUresult cuEventCreate(CUevent *, unsigned);
CUresult cuEventDestroy_v2(CUevent);
CUresult cuGetProcAddress_v2(const char *, void **, int, unsigned long long, int *);
CUresult cuGetErrorName(CUresult, const char **);
CUresult cuGetErrorString(CUresult, const char **);
CUresult cuGetExportTable(const void **, const CUuuid *);
CUresult cuModuleLoadData(CUmodule *, const void *);
CUresult cuPointerGetAttribute(void *, int, CUdeviceptr);
CUresult cuArrayGetSparseProperties(void *, void *);
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *);
CUresult cuModuleGetGlobal_v2(CUdeviceptr *, size_t *, CUmodule, const char *);
CUresult cuModuleUnload(CUmodule);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                        void **, void **);
CUresult cuCtxSynchronize();
}

namespace {

class Api : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    CUcontext C;
    ASSERT_EQ(cuDevicePrimaryCtxRetain(&C, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSetCurrent(C), CUDA_SUCCESS);
  }
};

TEST_F(Api, VersionDeviceAndAttributes) {
  int V = 0;
  ASSERT_EQ(cuDriverGetVersion(&V), CUDA_SUCCESS);
  EXPECT_GE(V, 13000);
  EXPECT_EQ(cuDriverGetVersion(nullptr), CUDA_ERROR_INVALID_VALUE);
  CUdevice D;
  EXPECT_EQ(cuDeviceGet(&D, 1), CUDA_ERROR_INVALID_DEVICE);
  int Warp = 0;
  EXPECT_EQ(cuDeviceGetAttribute(&Warp, 10, 0), CUDA_SUCCESS);
  EXPECT_EQ(Warp, 32);
  EXPECT_EQ(cuDeviceGetAttribute(&Warp, 10, 3), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuDeviceGetAttribute(&Warp, -5, 0), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(Api, ProcAddressFollowsVersions) {
  void *Fn = nullptr;
  int Status = -1;
  ASSERT_EQ(cuGetProcAddress_v2("cuMemAlloc", &Fn, 3020, 0, &Status), CUDA_SUCCESS);
  EXPECT_EQ(Fn, dlsym(RTLD_DEFAULT, "cuMemAlloc_v2"));
  EXPECT_EQ(Status, 0);
  ASSERT_EQ(cuGetProcAddress_v2("cuMemAlloc", &Fn, 2000, 0, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(Fn, dlsym(RTLD_DEFAULT, "cuMemAlloc"));
  ASSERT_EQ(cuGetProcAddress_v2("cuCtxSynchronize", &Fn, 13000, 0, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(Fn, dlsym(RTLD_DEFAULT, "cuCtxSynchronize_v2"));
  ASSERT_EQ(cuGetProcAddress_v2("cuCtxSynchronize", &Fn, 12080, 0, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(Fn, dlsym(RTLD_DEFAULT, "cuCtxSynchronize"));
  ASSERT_EQ(cuGetProcAddress_v2("cuLaunchKernel", &Fn, 13000, 2, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(Fn, dlsym(RTLD_DEFAULT, "cuLaunchKernel_ptsz"));
  ASSERT_EQ(cuGetProcAddress_v2("cuMemAlloc", &Fn, 13000, 2, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(Fn, dlsym(RTLD_DEFAULT, "cuMemAlloc_v2")); // no per-thread form: the default one
  EXPECT_EQ(cuGetProcAddress_v2("", &Fn, 0, 0, &Status), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(Status, 1);
  EXPECT_EQ(cuGetProcAddress_v2("cuNoSuchThing", &Fn, 13000, 0, nullptr), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(Fn, nullptr);
}

TEST_F(Api, ErrorNamesAndStrings) {
  const char *S = nullptr;
  ASSERT_EQ(cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &S), CUDA_SUCCESS);
  EXPECT_STREQ(S, "CUDA_ERROR_ILLEGAL_ADDRESS");
  ASSERT_EQ(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &S), CUDA_SUCCESS);
  EXPECT_STREQ(S, "out of memory");
  EXPECT_EQ(cuGetErrorName(static_cast<CUresult>(12345), &S), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(Api, MemoryArgumentsAreChecked) {
  CUdeviceptr P = 0;
  EXPECT_EQ(cuMemAlloc_v2(nullptr, 16), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAlloc_v2(&P, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemAlloc_v2(&P, 100), CUDA_SUCCESS);
  int Host[32] = {};
  EXPECT_EQ(cuMemcpyHtoD_v2(P, Host, 100), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyHtoD_v2(P, Host, 101), CUDA_ERROR_INVALID_VALUE); // past the allocation
  EXPECT_EQ(cuMemcpyHtoD_v2(P + 96, Host, 8), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD32_v2(P, 7, 25), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD32_v2(P, 7, 26), CUDA_ERROR_INVALID_VALUE);
  unsigned Type = 0;
  EXPECT_EQ(cuPointerGetAttribute(&Type, 2, P + 50), CUDA_SUCCESS);
  EXPECT_EQ(Type, 2u); // device
  EXPECT_EQ(cuMemFree_v2(P + 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemFree_v2(P), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(P), CUDA_ERROR_INVALID_VALUE); // double free is refused
}

TEST_F(Api, StaleAndForeignHandles) {
  CUstream S;
  ASSERT_EQ(cuStreamCreate(&S, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamDestroy_v2(S), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamSynchronize(S), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuStreamDestroy_v2(S), CUDA_ERROR_INVALID_HANDLE);
  CUevent E;
  ASSERT_EQ(cuEventCreate(&E, 0), CUDA_SUCCESS);
  // An event is not a stream.
  EXPECT_EQ(cuStreamSynchronize(reinterpret_cast<CUstream>(E)), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuEventDestroy_v2(E), CUDA_SUCCESS);
  int Junk[8] = {};
  EXPECT_EQ(cuStreamDestroy_v2(reinterpret_cast<CUstream>(Junk)), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(Api, ModuleImagesAreValidated) {
  CUmodule M;
  EXPECT_EQ(cuModuleLoadData(&M, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuModuleLoadData(&M, "not an image at all"), CUDA_ERROR_INVALID_IMAGE);
  const unsigned char Elf[64] = {0x7f, 'E', 'L', 'F'};
  EXPECT_EQ(cuModuleLoadData(&M, Elf), CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT_EQ(cuModuleLoadData(&M, ".version 9.0\n.target sm_80\n.address_size 64\n.entry k() { foo; }"),
            CUDA_ERROR_INVALID_PTX);
}

TEST_F(Api, UnimplementedEntryPointsSayNotSupported) {
  EXPECT_EQ(cuArrayGetSparseProperties(nullptr, nullptr), CUDA_ERROR_NOT_SUPPORTED); // sparse arrays: not yet
}

TEST_F(Api, ExportTablesHaveTheirSizes) {
  const void *T = nullptr;
  CUuuid Rt = {{(char)0x6b, (char)0xd5, (char)0xfb, (char)0x6c, (char)0x5b, (char)0xf4, (char)0xe7, (char)0x4a,
                (char)0x89, (char)0x87, (char)0xd9, (char)0x39, (char)0x12, (char)0xfd, (char)0x9d, (char)0xf9}};
  ASSERT_EQ(cuGetExportTable(&T, &Rt), CUDA_SUCCESS);
  EXPECT_EQ(static_cast<const uintptr_t *>(T)[0], 13 * sizeof(void *));
  CUuuid Tools = {{(char)0xa0, (char)0x94, (char)0x79, (char)0x8c, (char)0x2e, (char)0x74, (char)0x2e, (char)0x74,
                   (char)0x93, (char)0xf2, (char)0x08, (char)0x00, (char)0x20, (char)0x0c, (char)0x0a, (char)0x66}};
  ASSERT_EQ(cuGetExportTable(&T, &Tools), CUDA_SUCCESS);
  EXPECT_GT(static_cast<const uintptr_t *>(T)[0], 0x30u);
  using BufFn = void (*)(void **, size_t *);
  void *Buf = nullptr;
  size_t Size = 0;
  reinterpret_cast<BufFn>(static_cast<void *const *>(T)[2])(&Buf, &Size);
  EXPECT_GT(Size, 0x20au);
  CUuuid Unknown = {};
  EXPECT_NE(cuGetExportTable(&T, &Unknown), CUDA_SUCCESS);
}

/// A driver-API program with a 32-bit PTX module: device memory and module
/// variables have addresses that fit its 32-bit parameters and registers.
TEST_F(Api, AddressSize32ModulesRunOnDeviceMemory) {
  const char *Ptx = R"(
.version 7.0
.target sm_75
.address_size 32
.global .align 4 .u32 scale;
.visible .entry triple(.param .u32 in, .param .u32 out, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<12>;
  ld.param.u32 %r1, [in];
  ld.param.u32 %r2, [out];
  ld.param.u32 %r3, [n];
  mov.u32 %r4, %tid.x;
  mov.u32 %r5, %ctaid.x;
  mov.u32 %r6, %ntid.x;
  mad.lo.s32 %r7, %r5, %r6, %r4;
  setp.ge.u32 %p, %r7, %r3;
  @%p bra DONE;
  shl.b32 %r8, %r7, 2;
  add.u32 %r9, %r1, %r8;
  ld.global.u32 %r10, [%r9];
  mov.u32 %r11, scale;
  ld.global.u32 %r11, [%r11];
  mul.lo.u32 %r10, %r10, %r11;
  add.u32 %r9, %r2, %r8;
  st.global.u32 [%r9], %r10;
DONE:
  ret;
}
)";
  CUmodule M;
  ASSERT_EQ(cuModuleLoadData(&M, Ptx), CUDA_SUCCESS);
  CUdeviceptr Scale = 0;
  size_t Size = 0;
  ASSERT_EQ(cuModuleGetGlobal_v2(&Scale, &Size, M, "scale"), CUDA_SUCCESS);
  EXPECT_LT(Scale, 1ull << 32);
  const uint32_t Three = 3, N = 777;
  ASSERT_EQ(cuMemcpyHtoD_v2(Scale, &Three, 4), CUDA_SUCCESS);
  CUdeviceptr In = 0, Out = 0;
  ASSERT_EQ(cuMemAlloc_v2(&In, N * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&Out, N * 4), CUDA_SUCCESS);
  ASSERT_LT(In, 1ull << 32) << "device memory comes from below 4 GiB";
  ASSERT_LT(Out, 1ull << 32);
  std::vector<uint32_t> Host(N), Back(N, 0);
  for (uint32_t I = 0; I < N; ++I)
    Host[I] = I * 7919u + 13u;
  ASSERT_EQ(cuMemcpyHtoD_v2(In, Host.data(), N * 4), CUDA_SUCCESS);
  CUfunction F;
  ASSERT_EQ(cuModuleGetFunction(&F, M, "triple"), CUDA_SUCCESS);
  uint32_t In32 = static_cast<uint32_t>(In), Out32 = static_cast<uint32_t>(Out), N32 = N;
  void *Args[] = {&In32, &Out32, &N32};
  ASSERT_EQ(cuLaunchKernel(F, (N + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, Args, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(Back.data(), Out, N * 4), CUDA_SUCCESS);
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(Back[I], Host[I] * 3u) << I;
  EXPECT_EQ(cuMemFree_v2(In), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(Out), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
}

} // namespace
