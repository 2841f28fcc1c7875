// Texture and surface references (the legacy binding API) on hand-written
// PTX: cuModuleGetTexRef/GetSurfRef, linear, array and pitched bindings,
// formats, address and filter modes, normalized coordinates, rebinding
// between launches, the getters, and errors. Results against a CPU
// reference of CUDA's sampling rules. The same program passes on an H200
// (without the two checks of invalid handles, which NVIDIA's driver does not make).
#include "drv_common.h"
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" // the API under test is deprecated
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

static int Bad = 0;

static const char *Ptx = R"(
.version 7.8
.target sm_75
.address_size 64

.global .texref tl;
.global .texref t2;
.global .surfref s2;

.visible .entry fetch_linear(.param .u64 out, .param .u32 n)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r1, %r2, %r3, %r1;
  ld.param.u32 %r2, [n];
  setp.ge.u32 %p, %r1, %r2;
  @%p bra done;
  tex.1d.v4.s32.s32 {%r4, %r5, %r6, %r7}, [tl, {%r1}];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r4;
done:
  ret;
}

.visible .entry sample_2d(.param .u64 out, .param .u64 coords, .param .u32 n)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<6>;
  .reg .pred %p;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r1, %r2, %r3, %r1;
  ld.param.u32 %r2, [n];
  setp.ge.u32 %p, %r1, %r2;
  @%p bra done;
  ld.param.u64 %rd1, [coords];
  mul.wide.u32 %rd2, %r1, 8;
  add.u64 %rd1, %rd1, %rd2;
  ld.global.v2.f32 {%f1, %f2}, [%rd1];
  tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [t2, {%f1, %f2}];
  ld.param.u64 %rd3, [out];
  mul.wide.u32 %rd4, %r1, 4;
  add.u64 %rd3, %rd3, %rd4;
  st.global.f32 [%rd3], %f3;
done:
  ret;
}

.visible .entry write_surf(.param .u32 w, .param .u32 h)
{
  .reg .b32 %r<8>;
  .reg .pred %p;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  ld.param.u32 %r3, [w];
  ld.param.u32 %r4, [h];
  setp.ge.u32 %p, %r1, %r3;
  @%p bra done;
  mad.lo.s32 %r5, %r1, 1000, %r2;
  shl.b32 %r6, %r1, 2;
  sust.b.2d.b32.trap [s2, {%r6, %r2}], {%r5};
done:
  ret;
}
)";

static void launch(CUfunction F, unsigned Blocks, unsigned Threads, void **Args) {
  DRV(cuLaunchKernel(F, Blocks, 1, 1, Threads, 1, 1, 0, nullptr, Args, nullptr));
  DRV(cuCtxSynchronize());
}

int main() {
  DRV(cuInit(0));
  CUdevice Dev;
  DRV(cuDeviceGet(&Dev, 0));
  CUcontext Ctx;
  DRV(cuDevicePrimaryCtxRetain(&Ctx, Dev));
  DRV(cuCtxSetCurrent(Ctx));
  CUmodule M;
  DRV(cuModuleLoadData(&M, Ptx));
  CUfunction FetchLinear, Sample2D, WriteSurf;
  DRV(cuModuleGetFunction(&FetchLinear, M, "fetch_linear"));
  DRV(cuModuleGetFunction(&Sample2D, M, "sample_2d"));
  DRV(cuModuleGetFunction(&WriteSurf, M, "write_surf"));
  std::mt19937 Rng(std::random_device{}());

  // Errors: names that are not references, bad handles.
  CUtexref Tl, T2, Again;
  CUsurfref S2;
  EXPECT(cuModuleGetTexRef(&Tl, M, "nope") == CUDA_ERROR_NOT_FOUND);
  EXPECT(cuModuleGetTexRef(&Tl, M, "fetch_linear") == CUDA_ERROR_NOT_FOUND);
  DRV(cuModuleGetTexRef(&Tl, M, "tl"));
  DRV(cuModuleGetTexRef(&Again, M, "tl"));
  EXPECT(Again == Tl); // one reference per variable
  DRV(cuModuleGetTexRef(&T2, M, "t2"));
  DRV(cuModuleGetSurfRef(&S2, M, "s2"));
  EXPECT(cuTexRefSetFilterMode(reinterpret_cast<CUtexref>(&Bad), CU_TR_FILTER_MODE_LINEAR) == CUDA_ERROR_INVALID_HANDLE);
  EXPECT(cuTexRefSetAddressMode(T2, 3, CU_TR_ADDRESS_MODE_WRAP) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuTexRefSetFormat(T2, CU_AD_FORMAT_FLOAT, 3) == CUDA_ERROR_INVALID_VALUE);

  // Linear memory: tex1Dfetch of 32-bit integers, read as integers.
  const unsigned N = 1000 + Rng() % 500;
  std::vector<int> In(N), Out(N, -1);
  for (int &V : In)
    V = static_cast<int>(Rng());
  CUdeviceptr DIn, DOut;
  DRV(cuMemAlloc(&DIn, N * 4));
  DRV(cuMemAlloc(&DOut, N * 4));
  DRV(cuMemcpyHtoD(DIn, In.data(), N * 4));
  DRV(cuMemsetD32(DOut, 0xdeadbeef, N));
  size_t Offset = 99;
  DRV(cuTexRefSetFormat(Tl, CU_AD_FORMAT_SIGNED_INT32, 1));
  DRV(cuTexRefSetFlags(Tl, CU_TRSF_READ_AS_INTEGER));
  DRV(cuTexRefSetAddress(&Offset, Tl, DIn, N * 4));
  EXPECT(Offset == 0);
  CUdeviceptr Got;
  DRV(cuTexRefGetAddress(&Got, Tl));
  EXPECT(Got == DIn);
  void *LinArgs[] = {&DOut, const_cast<unsigned *>(&N)};
  launch(FetchLinear, (N + 127) / 128, 128, LinArgs);
  DRV(cuMemcpyDtoH(Out.data(), DOut, N * 4));
  int Wrong = 0;
  for (unsigned I = 0; I < N; ++I)
    Wrong += Out[I] != In[I];
  EXPECT(Wrong == 0);

  // A 2D float array: point and linear filtering, wrap and clamp, normalized
  // and unnormalized coordinates.
  const int W = 16 + Rng() % 16, H = 8 + Rng() % 8;
  std::vector<float> Img(W * H);
  for (float &V : Img)
    V = std::uniform_real_distribution<float>(-10, 10)(Rng);
  CUDA_ARRAY_DESCRIPTOR AD = {};
  AD.Width = W;
  AD.Height = H;
  AD.Format = CU_AD_FORMAT_FLOAT;
  AD.NumChannels = 1;
  CUarray Arr;
  DRV(cuArrayCreate(&Arr, &AD));
  CUDA_MEMCPY2D C2 = {};
  C2.srcMemoryType = CU_MEMORYTYPE_HOST;
  C2.srcHost = Img.data();
  C2.srcPitch = W * 4;
  C2.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  C2.dstArray = Arr;
  C2.WidthInBytes = W * 4;
  C2.Height = H;
  DRV(cuMemcpy2D(&C2));
  DRV(cuTexRefSetArray(T2, Arr, CU_TRSA_OVERRIDE_FORMAT));
  CUarray GotArr;
  DRV(cuTexRefGetArray(&GotArr, T2));
  EXPECT(GotArr == Arr);
  const unsigned NS = 512;
  std::vector<float> Coords(2 * NS), Res(NS);
  for (unsigned I = 0; I < NS; ++I) {
    // Eighths of a texel off the quarters: never on a texel's edge (where
    // normalizing the coordinate could round either way), and exact
    // interpolation weights.
    Coords[2 * I] = (static_cast<int>(Rng() % (12 * W)) - 4 * W) / 4.0f + 0.125f; // some outside [0, W)
    Coords[2 * I + 1] = (static_cast<int>(Rng() % (12 * H)) - 4 * H) / 4.0f + 0.125f;
  }
  CUdeviceptr DCoords, DRes;
  DRV(cuMemAlloc(&DCoords, 2 * NS * 4));
  DRV(cuMemAlloc(&DRes, NS * 4));
  auto texel = [&](int X, int Y, bool Wrap) {
    if (Wrap) {
      X = ((X % W) + W) % W;
      Y = ((Y % H) + H) % H;
    } else {
      X = X < 0 ? 0 : X >= W ? W - 1 : X;
      Y = Y < 0 ? 0 : Y >= H ? H - 1 : Y;
    }
    return Img[Y * W + X];
  };
  for (bool Normalized : {false, true})
    for (bool Linear : {false, true})
      for (bool Wrap : {false, true}) {
        if (Wrap && !Normalized)
          continue; // CUDA wraps only normalized coordinates
        CUaddress_mode Am = Wrap ? CU_TR_ADDRESS_MODE_WRAP : CU_TR_ADDRESS_MODE_CLAMP;
        DRV(cuTexRefSetAddressMode(T2, 0, Am));
        DRV(cuTexRefSetAddressMode(T2, 1, Am));
        DRV(cuTexRefSetFilterMode(T2, Linear ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT));
        DRV(cuTexRefSetFlags(T2, Normalized ? CU_TRSF_NORMALIZED_COORDINATES : 0));
        std::vector<float> Sent = Coords;
        if (Normalized)
          for (unsigned I = 0; I < NS; ++I) {
            Sent[2 * I] /= W;
            Sent[2 * I + 1] /= H;
          }
        DRV(cuMemcpyHtoD(DCoords, Sent.data(), 2 * NS * 4));
        unsigned Count = NS;
        void *Args[] = {&DRes, &DCoords, &Count};
        launch(Sample2D, NS / 128, 128, Args);
        DRV(cuMemcpyDtoH(Res.data(), DRes, NS * 4));
        Wrong = 0;
        for (unsigned I = 0; I < NS; ++I) {
          float X = Coords[2 * I], Y = Coords[2 * I + 1], Want;
          if (!Linear) {
            Want = texel(static_cast<int>(std::floor(X)), static_cast<int>(std::floor(Y)), Wrap);
          } else {
            float Xb = X - 0.5f, Yb = Y - 0.5f;
            int X0 = static_cast<int>(std::floor(Xb)), Y0 = static_cast<int>(std::floor(Yb));
            float A = Xb - X0, B = Yb - Y0;
            Want = (1 - A) * (1 - B) * texel(X0, Y0, Wrap) + A * (1 - B) * texel(X0 + 1, Y0, Wrap) +
                   (1 - A) * B * texel(X0, Y0 + 1, Wrap) + A * B * texel(X0 + 1, Y0 + 1, Wrap);
          }
          if (std::fabs(Res[I] - Want) > 1e-4f * (1 + std::fabs(Want))) {
            if (Wrong < 4)
              std::printf("norm %d linear %d wrap %d at (%g, %g): got %g, want %g\n", Normalized, Linear, Wrap, X,
                          Y, Res[I], Want);
            ++Wrong;
          }
        }
        EXPECT(Wrong == 0);
      }
  CUaddress_mode Mode = CU_TR_ADDRESS_MODE_CLAMP;
  DRV(cuTexRefGetAddressMode(&Mode, T2, 1));
  EXPECT(Mode == CU_TR_ADDRESS_MODE_WRAP);
  CUfilter_mode Fm;
  DRV(cuTexRefGetFilterMode(&Fm, T2));
  EXPECT(Fm == CU_TR_FILTER_MODE_LINEAR);
  unsigned Flags = 0;
  DRV(cuTexRefGetFlags(&Flags, T2));
  EXPECT(Flags == CU_TRSF_NORMALIZED_COORDINATES);
  CUarray_format Fmt;
  int Ch = 0;
  DRV(cuTexRefGetFormat(&Fmt, &Ch, Tl));
  EXPECT(Fmt == CU_AD_FORMAT_SIGNED_INT32 && Ch == 1);

  // Pitched 2D memory under the same reference, point sampled.
  size_t Pitch;
  CUdeviceptr DP;
  DRV(cuMemAllocPitch(&DP, &Pitch, W * 4, H, 4));
  CUDA_MEMCPY2D CP = {};
  CP.srcMemoryType = CU_MEMORYTYPE_HOST;
  CP.srcHost = Img.data();
  CP.srcPitch = W * 4;
  CP.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  CP.dstDevice = DP;
  CP.dstPitch = Pitch;
  CP.WidthInBytes = W * 4;
  CP.Height = H;
  DRV(cuMemcpy2D(&CP));
  DRV(cuTexRefSetAddress2D(T2, &AD, DP, Pitch));
  DRV(cuTexRefSetFilterMode(T2, CU_TR_FILTER_MODE_POINT));
  DRV(cuTexRefSetFlags(T2, 0));
  DRV(cuTexRefSetAddressMode(T2, 0, CU_TR_ADDRESS_MODE_CLAMP));
  DRV(cuTexRefSetAddressMode(T2, 1, CU_TR_ADDRESS_MODE_CLAMP));
  DRV(cuMemcpyHtoD(DCoords, Coords.data(), 2 * NS * 4));
  {
    unsigned Count = NS;
    void *Args[] = {&DRes, &DCoords, &Count};
    launch(Sample2D, NS / 128, 128, Args);
  }
  DRV(cuMemcpyDtoH(Res.data(), DRes, NS * 4));
  Wrong = 0;
  for (unsigned I = 0; I < NS; ++I)
    Wrong += Res[I] != texel(static_cast<int>(std::floor(Coords[2 * I])),
                             static_cast<int>(std::floor(Coords[2 * I + 1])), false);
  EXPECT(Wrong == 0);

  // A surface reference: each thread writes x * 1000 + y through it.
  CUDA_ARRAY3D_DESCRIPTOR SD = {};
  SD.Width = W;
  SD.Height = H;
  SD.Format = CU_AD_FORMAT_UNSIGNED_INT32;
  SD.NumChannels = 1;
  SD.Flags = CUDA_ARRAY3D_SURFACE_LDST;
  CUarray SArr;
  DRV(cuArray3DCreate(&SArr, &SD));
  EXPECT(cuSurfRefSetArray(S2, SArr, 1) == CUDA_ERROR_INVALID_VALUE); // flags must be 0
  DRV(cuSurfRefSetArray(S2, SArr, 0));
  DRV(cuSurfRefGetArray(&GotArr, S2));
  EXPECT(GotArr == SArr);
  {
    unsigned Wu = W, Hu = H;
    void *Args[] = {&Wu, &Hu};
    DRV(cuLaunchKernel(WriteSurf, H, 1, 1, 32, 1, 1, 0, nullptr, Args, nullptr));
    DRV(cuCtxSynchronize());
  }
  std::vector<unsigned> Back(W * H, 0);
  CUDA_MEMCPY2D CB = {};
  CB.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  CB.srcArray = SArr;
  CB.dstMemoryType = CU_MEMORYTYPE_HOST;
  CB.dstHost = Back.data();
  CB.dstPitch = W * 4;
  CB.WidthInBytes = W * 4;
  CB.Height = H;
  DRV(cuMemcpy2D(&CB));
  Wrong = 0;
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < W; ++X)
      Wrong += Back[Y * W + X] != static_cast<unsigned>(X * 1000 + Y);
  EXPECT(Wrong == 0);

  DRV(cuModuleUnload(M));
  EXPECT(cuTexRefSetFilterMode(T2, CU_TR_FILTER_MODE_POINT) == CUDA_ERROR_INVALID_HANDLE); // gone with its module
  DRV(cuArrayDestroy(Arr));
  DRV(cuArrayDestroy(SArr));
  DRV(cuMemFree(DIn));
  DRV(cuMemFree(DOut));
  DRV(cuMemFree(DP));
  DRV(cuMemFree(DCoords));
  DRV(cuMemFree(DRes));
  return verdict("drv_texref", Bad);
}
