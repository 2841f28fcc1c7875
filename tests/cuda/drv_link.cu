// cuLink* end to end: PTX linked with nvcc -rdc objects and archives (and
// libcudadevrt.a), the JIT logs, and the errors a linker must report
// (undefined and duplicate symbols, missing files, SASS-only inputs).
// Arguments: the helpers object (sm_75 + compute_75), the helpers archive,
// a SASS-only helpers object, libcudadevrt.a.
#include "drv_common.h"
#include <cstring>
#include <string>
#include <vector>

// Calls a device function and bumps a device variable of rdc/helpers.cu.
static const char *UserPtx = R"(
.version 7.5
.target sm_75
.address_size 64
.extern .func (.param .b32 r) _Z7scaleByi(.param .b32 x);
.extern .global .align 4 .u32 gCounter;
.visible .entry useHelpers(.param .u64 out, .param .u32 n)
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
  {
    .param .b32 a;
    .param .b32 r;
    st.param.b32 [a], %r3;
    call.uni (r), _Z7scaleByi, (a);
    ld.param.b32 %r5, [r];
  }
  ld.param.u64 %rd0, [out];
  mul.wide.u32 %rd1, %r3, 4;
  add.u64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2], %r5;
  atom.global.add.u32 %r6, [gCounter], 1;
END:
  ret;
}
)";

// Two inputs with a private function of the same name: each keeps its own.
static const char *PrivateA = R"(
.version 7.5
.target sm_75
.address_size 64
.func (.param .b32 r) helper() { st.param.b32 [r], 11; ret; }
.visible .entry kernelA(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  { .param .b32 r; call.uni (r), helper, (); ld.param.b32 %r0, [r]; }
  ld.param.u64 %rd0, [out];
  st.global.u32 [%rd0], %r0;
  ret;
}
)";
static const char *PrivateB = R"(
.version 7.5
.target sm_75
.address_size 64
.func (.param .b32 r) helper() { st.param.b32 [r], 22; ret; }
.visible .entry kernelB(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  { .param .b32 r; call.uni (r), helper, (); ld.param.b32 %r0, [r]; }
  ld.param.u64 %rd0, [out];
  st.global.u32 [%rd0], %r0;
  ret;
}
)";

struct Logs {
  char Info[4096], Error[4096];
  float WallMs = -1;
  CUjit_option Opts[6] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                          CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE, CU_JIT_WALL_TIME};
  void *Vals[6];
  Logs() {
    std::memset(Info, 'x', sizeof Info);
    std::memset(Error, 'x', sizeof Error);
    Vals[0] = Info;
    Vals[1] = reinterpret_cast<void *>(sizeof Info);
    Vals[2] = Error;
    Vals[3] = reinterpret_cast<void *>(sizeof Error);
    Vals[4] = reinterpret_cast<void *>(1);
    Vals[5] = nullptr;
  }
  size_t errorBytes() const { return reinterpret_cast<size_t>(Vals[3]); }
  float wall() const {
    float F;
    std::memcpy(&F, &Vals[5], sizeof F);
    return F;
  }
};

static int Bad = 0;

static void addPtx(CUlinkState L, const char *Ptx, const char *Name) {
  DRV(cuLinkAddData(L, CU_JIT_INPUT_PTX, (void *)Ptx, std::strlen(Ptx) + 1, Name, 0, nullptr, nullptr));
}

// Runs useHelpers from a linked image and checks it against the formula.
static void runUseHelpers(void *Image) {
  CUmodule M;
  DRV(cuModuleLoadData(&M, Image));
  CUfunction F;
  DRV(cuModuleGetFunction(&F, M, "useHelpers"));
  CUdeviceptr Counter;
  size_t Size;
  DRV(cuModuleGetGlobal(&Counter, &Size, M, "gCounter"));
  EXPECT(Size == 4);
  DRV(cuMemsetD32(Counter, 0, 1));
  const unsigned N = 300;
  CUdeviceptr Out;
  DRV(cuMemAlloc(&Out, N * 4));
  DRV(cuMemsetD32(Out, 0xdeadbeef, N)); // poisoned
  void *Args[] = {&Out, (void *)&N};
  DRV(cuLaunchKernel(F, 3, 1, 1, 128, 1, 1, 0, nullptr, Args, nullptr));
  DRV(cuCtxSynchronize());
  std::vector<unsigned> H(N);
  unsigned Count = 0;
  DRV(cuMemcpyDtoH(H.data(), Out, N * 4));
  DRV(cuMemcpyDtoH(&Count, Counter, 4));
  for (unsigned I = 0; I < N; ++I)
    Bad += H[I] != 3 * I + 1;
  EXPECT(Count == N);
  DRV(cuMemFree(Out));
  DRV(cuModuleUnload(M));
}

int main(int Argc, char **Argv) {
  if (Argc < 5) {
    std::printf("FAIL usage: drv_link helpers.o helpers.a helpers.sass.o libcudadevrt.a\n");
    return 1;
  }
  DRV(cuInit(0));
  CUdevice Dev;
  DRV(cuDeviceGet(&Dev, 0));
  CUcontext Ctx;
  DRV(cuCtxCreate(&Ctx, nullptr, 0, Dev));

  // PTX + an -rdc object.
  {
    Logs G;
    CUlinkState L;
    DRV(cuLinkCreate(6, G.Opts, G.Vals, &L));
    addPtx(L, UserPtx, "user.ptx");
    DRV(cuLinkAddFile(L, CU_JIT_INPUT_OBJECT, Argv[1], 0, nullptr, nullptr));
    void *Image;
    size_t Size;
    DRV(cuLinkComplete(L, &Image, &Size));
    EXPECT(Size > 0);
    EXPECT(G.errorBytes() <= 1);
    EXPECT(reinterpret_cast<size_t>(G.Vals[1]) == std::strlen(G.Info) + 1); // NUL-terminated, size updated
    EXPECT(G.wall() >= 0.0f);
    runUseHelpers(Image); // the image stays valid until cuLinkDestroy
    // cuLibraryLoadData takes the linked image too.
    CUlibrary Lib;
    DRV(cuLibraryLoadData(&Lib, Image, nullptr, nullptr, 0, nullptr, nullptr, 0));
    CUkernel K;
    DRV(cuLibraryGetKernel(&K, Lib, "useHelpers"));
    DRV(cuLibraryUnload(Lib));
    DRV(cuLinkDestroy(L));
  }
  // PTX + an archive of -rdc objects + libcudadevrt.a (whose members are not needed).
  {
    Logs G;
    CUlinkState L;
    DRV(cuLinkCreate(6, G.Opts, G.Vals, &L));
    addPtx(L, UserPtx, "user.ptx");
    DRV(cuLinkAddFile(L, CU_JIT_INPUT_LIBRARY, Argv[2], 0, nullptr, nullptr));
    DRV(cuLinkAddFile(L, CU_JIT_INPUT_LIBRARY, Argv[4], 0, nullptr, nullptr));
    void *Image;
    size_t Size;
    DRV(cuLinkComplete(L, &Image, &Size));
    EXPECT(std::strstr(G.Info, "_Z7scaleByi") != nullptr); // verbose: why the member was linked
    runUseHelpers(Image);
    DRV(cuLinkDestroy(L));
  }
  // Private functions of one name in two inputs.
  {
    CUlinkState L;
    DRV(cuLinkCreate(0, nullptr, nullptr, &L));
    addPtx(L, PrivateA, "a.ptx");
    addPtx(L, PrivateB, "b.ptx");
    void *Image;
    size_t Size;
    DRV(cuLinkComplete(L, &Image, &Size));
    CUmodule M;
    DRV(cuModuleLoadDataEx(&M, Image, 0, nullptr, nullptr));
    CUdeviceptr Out;
    DRV(cuMemAlloc(&Out, 8));
    const char *Names[2] = {"kernelA", "kernelB"};
    for (int K = 0; K < 2; ++K) {
      CUfunction F;
      DRV(cuModuleGetFunction(&F, M, Names[K]));
      CUdeviceptr At = Out + 4 * K;
      void *Args[] = {&At};
      DRV(cuLaunchKernel(F, 1, 1, 1, 1, 1, 1, 0, nullptr, Args, nullptr));
    }
    unsigned H[2] = {0, 0};
    DRV(cuMemcpyDtoH(H, Out, 8));
    EXPECT(H[0] == 11 && H[1] == 22);
    DRV(cuModuleUnload(M));
    DRV(cuLinkDestroy(L));
  }
  // Link errors name the symbol in the error log.
  {
    Logs G;
    CUlinkState L;
    DRV(cuLinkCreate(6, G.Opts, G.Vals, &L));
    addPtx(L, UserPtx, "user.ptx");
    void *Image = nullptr;
    size_t Size = 0;
    EXPECT(cuLinkComplete(L, &Image, &Size) != CUDA_SUCCESS);
    EXPECT(std::strstr(G.Error, "undefined symbol '_Z7scaleByi'") != nullptr);
    EXPECT(G.errorBytes() == std::strlen(G.Error) + 1);
    DRV(cuLinkDestroy(L));
  }
  {
    Logs G;
    CUlinkState L;
    DRV(cuLinkCreate(6, G.Opts, G.Vals, &L));
    DRV(cuLinkAddFile(L, CU_JIT_INPUT_OBJECT, Argv[1], 0, nullptr, nullptr));
    DRV(cuLinkAddFile(L, CU_JIT_INPUT_OBJECT, Argv[1], 0, nullptr, nullptr));
    void *Image;
    size_t Size;
    EXPECT(cuLinkComplete(L, &Image, &Size) != CUDA_SUCCESS);
    EXPECT(std::strstr(G.Error, "duplicate symbol") != nullptr);
    // Missing files, SASS and LTO-IR inputs.
    EXPECT(cuLinkAddFile(L, CU_JIT_INPUT_PTX, "/nonexistent/x.ptx", 0, nullptr, nullptr) ==
           CUDA_ERROR_FILE_NOT_FOUND);
    EXPECT(cuLinkAddFile(L, CU_JIT_INPUT_OBJECT, Argv[3], 0, nullptr, nullptr) == CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(std::strstr(G.Error, "PTX") != nullptr); // says what to rebuild with
    char Junk[64] = {0x7f, 'E', 'L', 'F'};
    EXPECT(cuLinkAddData(L, CU_JIT_INPUT_CUBIN, Junk, sizeof Junk, "x.cubin", 0, nullptr, nullptr) ==
           CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuLinkAddData(L, CU_JIT_INPUT_NVVM, Junk, sizeof Junk, "x.ltoir", 0, nullptr, nullptr) ==
           CUDA_ERROR_NOT_SUPPORTED);
    DRV(cuLinkDestroy(L));
  }
  // CU_JIT_OPTIMIZATION_LEVEL 0 compiles without optimization; the code still runs right.
  {
    CUjit_option O = CU_JIT_OPTIMIZATION_LEVEL;
    void *V = reinterpret_cast<void *>(0);
    CUmodule M;
    DRV(cuModuleLoadDataEx(&M, PrivateA, 1, &O, &V));
    CUfunction F;
    DRV(cuModuleGetFunction(&F, M, "kernelA"));
    CUdeviceptr Out;
    DRV(cuMemAlloc(&Out, 4));
    void *Args[] = {&Out};
    DRV(cuLaunchKernel(F, 1, 1, 1, 1, 1, 1, 0, nullptr, Args, nullptr));
    unsigned H = 0;
    DRV(cuMemcpyDtoH(&H, Out, 4));
    EXPECT(H == 11);
    DRV(cuModuleUnload(M));
  }
  // Option values are checked.
  {
    CUjit_option O = CU_JIT_OPTIMIZATION_LEVEL;
    void *V = reinterpret_cast<void *>(9);
    CUlinkState L;
    EXPECT(cuLinkCreate(1, &O, &V, &L) == CUDA_ERROR_INVALID_VALUE);
  }
  // cuModuleLoadDataEx reports a compile error in its log, with the line.
  {
    Logs G;
    const char *BadPtx = ".version 7.5\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n  bogus.u32 %r1;\n}\n";
    CUmodule M;
    EXPECT(cuModuleLoadDataEx(&M, BadPtx, 6, G.Opts, G.Vals) != CUDA_SUCCESS);
    EXPECT(std::strstr(G.Error, ":6:") != nullptr);
    EXPECT(G.errorBytes() == std::strlen(G.Error) + 1);
  }
  // PTX that is not valid is refused at load, as NVIDIA's driver refuses it,
  // with the line and column of the problem.
  {
    struct Case {
      const char *Ptx, *Expect;
    } Cases[] = {
        {".version 7.5\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n  .reg .b32 %r1;\n"
         "  mov.u32 %r1, %nosuch;\n  ret;\n}\n",
         ":7:3:"},
        {".version 99.9\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n  ret;\n}\n", ":1:10:"},
        {".version 7.5\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n  ret;\n}\n"
         ".visible .entry k()\n{\n  ret;\n}\n",
         "defined twice"},
    };
    for (const Case &K : Cases) {
      Logs G;
      CUmodule M;
      CUresult R = cuModuleLoadDataEx(&M, K.Ptx, 6, G.Opts, G.Vals);
      EXPECT(R == CUDA_ERROR_INVALID_PTX);
      if (!std::strstr(G.Error, K.Expect)) {
        std::printf("FAIL error log '%s' lacks '%s'\n", G.Error, K.Expect);
        ++Bad;
      }
    }
  }
  DRV(cuCtxDestroy(Ctx));
  return verdict("drv_link", Bad);
}
