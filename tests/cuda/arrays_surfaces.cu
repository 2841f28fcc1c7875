// CUDA arrays and what reads and writes them: 2D/3D/layered/cubemap arrays,
// copies to and from them (2D, 3D, linear), texture objects over them (point
// and linear filtering against CUDA's documented formula with 9-bit weights,
// normalized reads, sRGB, wrap addressing, layered, 3D, cubemap face
// selection, mipmaps with tex2DLod/tex2DGrad, gathers, txq), and surface
// objects (surf2Dwrite/surf2Dread, boundary modes, 1D/3D/layered surfaces).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include "common.h"
#include <random>
#include <vector>

static int Bad = 0;
static std::mt19937 Rng(1234);

__global__ void sample2D(cudaTextureObject_t T, const float2 *C, float4 *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = tex2D<float4>(T, C[I].x, C[I].y);
}
__global__ void sampleLayered(cudaTextureObject_t T, const float2 *C, const int *L, float *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = tex2DLayered<float>(T, C[I].x, C[I].y, L[I]);
}
__global__ void sample3D(cudaTextureObject_t T, const float4 *C, float *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = tex3D<float>(T, C[I].x, C[I].y, C[I].z);
}
__global__ void sampleCube(cudaTextureObject_t T, const float4 *C, float *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = texCubemap<float>(T, C[I].x, C[I].y, C[I].z);
}
__global__ void sampleLod(cudaTextureObject_t T, const float4 *C, float *Out, float *OutGrad, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N) {
    Out[I] = tex2DLod<float>(T, C[I].x, C[I].y, C[I].z);
    // A gradient of 2^lod texels a unit of x (normalized coordinates: / width).
    float G = exp2f(C[I].w) / 64.0f;
    OutGrad[I] = tex2DGrad<float>(T, C[I].x, C[I].y, make_float2(G, 0), make_float2(0, G / 2));
  }
}
__global__ void gather(cudaTextureObject_t T, const float2 *C, float4 *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = tex2Dgather<float4>(T, C[I].x, C[I].y, 1);
}
__global__ void query(cudaTextureObject_t T, cudaTextureObject_t Mip, cudaSurfaceObject_t S, int *Out) {
  int W, H, Levels, W2, SW, SH;
  asm("txq.width.b32 %0, [%1];" : "=r"(W) : "l"(T));
  asm("txq.height.b32 %0, [%1];" : "=r"(H) : "l"(T));
  // (txq.num_mipmap_levels: NVIDIA's driver compiles txq of texture objects only for the extents)
  asm("txq.level.width.b32 %0, [%1], 4;" : "=r"(Levels) : "l"(Mip));
  asm("txq.level.width.b32 %0, [%1], 2;" : "=r"(W2) : "l"(Mip));
  asm("suq.width.b32 %0, [%1];" : "=r"(SW) : "l"(S));
  asm("suq.height.b32 %0, [%1];" : "=r"(SH) : "l"(S));
  Out[0] = W;
  Out[1] = H;
  Out[2] = Levels;
  Out[3] = W2;
  Out[4] = SW;
  Out[5] = SH;
}
/// Each thread writes its texel, then (after the grid) another kernel reads them back.
__global__ void surfWrite(cudaSurfaceObject_t S, int W, int H) {
  int X = blockIdx.x * blockDim.x + threadIdx.x, Y = blockIdx.y;
  if (X < W && Y < H)
    surf2Dwrite(make_uint2(X * 1000 + Y, X ^ Y), S, X * sizeof(uint2), Y);
}
__global__ void surfRead(cudaSurfaceObject_t S, int W, int H, uint2 *Out) {
  int X = blockIdx.x * blockDim.x + threadIdx.x, Y = blockIdx.y;
  if (X < W + 2 && Y < H) {
    // Past the right edge: zero with cudaBoundaryModeZero, the edge texel with clamp.
    uint2 Z = surf2Dread<uint2>(S, X * sizeof(uint2), Y, cudaBoundaryModeZero);
    uint2 C = surf2Dread<uint2>(S, X * sizeof(uint2), Y, cudaBoundaryModeClamp);
    Out[(Y * (W + 2) + X) * 2] = Z;
    Out[(Y * (W + 2) + X) * 2 + 1] = C;
  }
}
__global__ void surfOthers(cudaSurfaceObject_t S1, cudaSurfaceObject_t S3, cudaSurfaceObject_t SL, float *Out) {
  int I = threadIdx.x;
  surf1Dwrite(float(I) * 1.5f, S1, I * 4);
  surf3Dwrite(short(I * 3), S3, (I % 4) * 2, (I / 4) % 4, I / 16);
  surf2DLayeredwrite(float(I), SL, (I % 8) * 4, 0, I / 8);
  __syncthreads();
  Out[I] = surf1Dread<float>(S1, ((I + 1) % 32) * 4);
  Out[32 + I] = surf3Dread<short>(S3, (I % 4) * 2, (I / 4) % 4, I / 16);
  Out[64 + I] = surf2DLayeredread<float>(SL, (I % 8) * 4, 0, I / 8);
}

static bool near(float A, float B, float Tol = 1e-4f) { return std::fabs(A - B) <= Tol * std::max(1.0f, std::fabs(B)); }

/// CUDA's linear filtering (Programming Guide, "Linear Filtering"): xB = x - 0.5,
/// i = floor(xB), alpha = frac(xB) in 9-bit fixed point (8 fractional bits).
static float weight(float F) { return std::floor(F * 256.0f + 0.5f) / 256.0f; }

static void twoD() {
  const int W = 37, H = 23;
  std::vector<float4> Texels(W * H);
  for (auto &T : Texels)
    T = make_float4(Rng() % 1000 / 7.0f, Rng() % 1000 / 3.0f, float(Rng() % 50), -1.0f * (Rng() % 9));
  cudaChannelFormatDesc Fd = cudaCreateChannelDesc<float4>();
  cudaArray_t A;
  CHECK(cudaMallocArray(&A, &Fd, W, H));
  // In from a pitched host image, out through a 3D copy and a 2D copy: both round trips exact.
  size_t Pitch = (W + 3) * sizeof(float4);
  std::vector<char> Img(Pitch * H, 0x5a);
  for (int Y = 0; Y < H; ++Y)
    std::memcpy(Img.data() + Y * Pitch, &Texels[Y * W], W * sizeof(float4));
  CHECK(cudaMemcpy2DToArray(A, 0, 0, Img.data(), Pitch, W * sizeof(float4), H, cudaMemcpyHostToDevice));
  std::vector<float4> Back(W * H);
  CHECK(cudaMemcpy2DFromArray(Back.data(), W * sizeof(float4), A, 0, 0, W * sizeof(float4), H, cudaMemcpyDeviceToHost));
  EXPECT(std::memcmp(Back.data(), Texels.data(), Back.size() * sizeof(float4)) == 0);
  // A sub-rectangle at an offset.
  std::vector<float4> Sub(5 * 4);
  CHECK(cudaMemcpy2DFromArray(Sub.data(), 5 * sizeof(float4), A, 3 * sizeof(float4), 7, 5 * sizeof(float4), 4,
                              cudaMemcpyDeviceToHost));
  for (int Y = 0; Y < 4; ++Y)
    for (int X = 0; X < 5; ++X)
      EXPECT(std::memcmp(&Sub[Y * 5 + X], &Texels[(7 + Y) * W + 3 + X], sizeof(float4)) == 0);
  cudaChannelFormatDesc Got;
  cudaExtent Ext;
  unsigned Flags;
  CHECK(cudaArrayGetInfo(&Got, &Ext, &Flags, A));
  EXPECT(Got.x == 32 && Got.w == 32 && Got.f == cudaChannelFormatKindFloat && Ext.width == W && Ext.height == H &&
         Ext.depth == 0);

  for (int Linear = 0; Linear < 2; ++Linear) {
    cudaResourceDesc Rd = {};
    Rd.resType = cudaResourceTypeArray;
    Rd.res.array.array = A;
    cudaTextureDesc Td = {};
    Td.addressMode[0] = cudaAddressModeClamp;
    Td.addressMode[1] = cudaAddressModeClamp;
    Td.filterMode = Linear ? cudaFilterModeLinear : cudaFilterModePoint;
    Td.readMode = cudaReadModeElementType;
    cudaTextureObject_t T;
    CHECK(cudaCreateTextureObject(&T, &Rd, &Td, nullptr));
    std::vector<float2> C(200);
    for (auto &P : C)
      P = make_float2(std::uniform_real_distribution<float>(-2, W + 2)(Rng),
                      std::uniform_real_distribution<float>(-2, H + 2)(Rng));
    float2 *DC = dev(C);
    float4 *DO;
    CHECK(cudaMalloc(&DO, C.size() * sizeof(float4)));
    sample2D<<<1, 256>>>(T, DC, DO, static_cast<int>(C.size()));
    CHECK(cudaDeviceSynchronize());
    auto R = host(DO, C.size());
    auto at = [&](int X, int Y) {
      X = std::min(std::max(X, 0), W - 1);
      Y = std::min(std::max(Y, 0), H - 1);
      return Texels[Y * W + X];
    };
    int Wrong = 0;
    for (size_t I = 0; I < C.size(); ++I) {
      float4 E;
      if (!Linear) {
        E = at(int(std::floor(C[I].x)), int(std::floor(C[I].y)));
      } else {
        float Xb = C[I].x - 0.5f, Yb = C[I].y - 0.5f;
        int X0 = int(std::floor(Xb)), Y0 = int(std::floor(Yb));
        float Ax = weight(Xb - std::floor(Xb)), Ay = weight(Yb - std::floor(Yb));
        float4 T00 = at(X0, Y0), T10 = at(X0 + 1, Y0), T01 = at(X0, Y0 + 1), T11 = at(X0 + 1, Y0 + 1);
        auto mix = [&](float A00, float A10, float A01, float A11) {
          return (1 - Ax) * (1 - Ay) * A00 + Ax * (1 - Ay) * A10 + (1 - Ax) * Ay * A01 + Ax * Ay * A11;
        };
        E = make_float4(mix(T00.x, T10.x, T01.x, T11.x), mix(T00.y, T10.y, T01.y, T11.y),
                        mix(T00.z, T10.z, T01.z, T11.z), mix(T00.w, T10.w, T01.w, T11.w));
      }
      Wrong += !near(R[I].x, E.x) || !near(R[I].y, E.y) || !near(R[I].z, E.z) || !near(R[I].w, E.w);
    }
    EXPECT(Wrong == 0);
    CHECK(cudaDestroyTextureObject(T));
    cudaFree(DC);
    cudaFree(DO);
  }
  CHECK(cudaFreeArray(A));
}

/// uchar4 texels read as normalized floats, with sRGB and wrap addressing, normalized coordinates.
static void normalizedSrgb() {
  const int W = 16, H = 8;
  std::vector<uchar4> Texels(W * H);
  for (auto &T : Texels)
    T = make_uchar4(Rng() % 256, Rng() % 256, Rng() % 256, Rng() % 256);
  cudaChannelFormatDesc Fd = cudaCreateChannelDesc<uchar4>();
  cudaArray_t A;
  CHECK(cudaMallocArray(&A, &Fd, W, H));
  CHECK(cudaMemcpy2DToArray(A, 0, 0, Texels.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
  for (int Srgb = 0; Srgb < 2; ++Srgb) {
    cudaResourceDesc Rd = {};
    Rd.resType = cudaResourceTypeArray;
    Rd.res.array.array = A;
    cudaTextureDesc Td = {};
    Td.addressMode[0] = Td.addressMode[1] = cudaAddressModeWrap;
    Td.filterMode = cudaFilterModePoint;
    Td.readMode = cudaReadModeNormalizedFloat;
    Td.normalizedCoords = 1;
    Td.sRGB = Srgb;
    cudaTextureObject_t T;
    CHECK(cudaCreateTextureObject(&T, &Rd, &Td, nullptr));
    std::vector<float2> C(64);
    for (auto &P : C)
      P = make_float2(std::uniform_real_distribution<float>(-1.5f, 2.5f)(Rng),
                      std::uniform_real_distribution<float>(-1.5f, 2.5f)(Rng));
    float2 *DC = dev(C);
    float4 *DO;
    CHECK(cudaMalloc(&DO, C.size() * sizeof(float4)));
    sample2D<<<1, 64>>>(T, DC, DO, 64);
    CHECK(cudaDeviceSynchronize());
    auto R = host(DO, C.size());
    auto lin = [&](unsigned char V) {
      float F = V / 255.0f;
      return Srgb ? (F <= 0.04045f ? F / 12.92f : std::pow((F + 0.055f) / 1.055f, 2.4f)) : F;
    };
    int Wrong = 0;
    for (size_t I = 0; I < C.size(); ++I) {
      int X = int(std::floor(C[I].x * W)), Y = int(std::floor(C[I].y * H));
      X = ((X % W) + W) % W;
      Y = ((Y % H) + H) % H;
      uchar4 E = Texels[Y * W + X];
      // NVIDIA's sRGB table is the curve at reduced precision (within 0.004 of it).
      Wrong += !near(R[I].x, lin(E.x), 4e-3f) || !near(R[I].y, lin(E.y), 4e-3f) || !near(R[I].z, lin(E.z), 4e-3f) ||
               R[I].w != E.w / 255.0f; // alpha is never sRGB
    }
    EXPECT(Wrong == 0);
    CHECK(cudaDestroyTextureObject(T));
    cudaFree(DC);
    cudaFree(DO);
  }
  CHECK(cudaFreeArray(A));
}

static cudaTextureObject_t pointTexture(cudaArray_t A, bool Normalized = false) {
  cudaResourceDesc Rd = {};
  Rd.resType = cudaResourceTypeArray;
  Rd.res.array.array = A;
  cudaTextureDesc Td = {};
  Td.filterMode = cudaFilterModePoint;
  Td.readMode = cudaReadModeElementType;
  Td.normalizedCoords = Normalized;
  cudaTextureObject_t T;
  CHECK(cudaCreateTextureObject(&T, &Rd, &Td, nullptr));
  return T;
}

/// The normalized-integer formats (cudaChannelFormatKindUnsignedNormalized8X4,
/// SignedNormalized16X1...): read as normalized floats; the runtime refuses
/// cudaReadModeElementType for them (cudaErrorInvalidNormSetting, as on an H200).
static void normalizedFormats() {
  const int W = 8, H = 4;
  std::vector<uchar4> U8(W * H);
  for (auto &T : U8)
    T = make_uchar4(Rng() % 256, Rng() % 256, Rng() % 256, Rng() % 256);
  std::vector<short> S16(W * H);
  for (auto &V : S16)
    V = static_cast<short>(Rng() % 65536 - 32768);
  cudaChannelFormatDesc Du = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsignedNormalized8X4);
  cudaChannelFormatDesc Ds = cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindSignedNormalized16X1);
  cudaChannelFormatDesc Wrong3 = cudaCreateChannelDesc(8, 8, 0, 0, cudaChannelFormatKindUnsignedNormalized8X4);
  cudaArray_t Au, As, Bad1;
  EXPECT(cudaMallocArray(&Bad1, &Wrong3, W, H) == cudaErrorInvalidChannelDescriptor); // X4 needs 4 channels
  CHECK(cudaMallocArray(&Au, &Du, W, H));
  CHECK(cudaMallocArray(&As, &Ds, W, H));
  cudaChannelFormatDesc Back;
  CHECK(cudaGetChannelDesc(&Back, Au));
  EXPECT(Back.f == cudaChannelFormatKindUnsignedNormalized8X4 && Back.x == 8 && Back.w == 8);
  CHECK(cudaMemcpy2DToArray(Au, 0, 0, U8.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2DToArray(As, 0, 0, S16.data(), W * 2, W * 2, H, cudaMemcpyHostToDevice));
  cudaResourceDesc Rd = {};
  Rd.resType = cudaResourceTypeArray;
  Rd.res.array.array = Au;
  cudaTextureDesc Td = {};
  Td.readMode = cudaReadModeElementType;
  cudaTextureObject_t Tu, Ts;
  EXPECT(cudaCreateTextureObject(&Tu, &Rd, &Td, nullptr) == cudaErrorInvalidNormSetting);
  Td.readMode = cudaReadModeNormalizedFloat;
  CHECK(cudaCreateTextureObject(&Tu, &Rd, &Td, nullptr));
  Rd.res.array.array = As;
  CHECK(cudaCreateTextureObject(&Ts, &Rd, &Td, nullptr));
  std::vector<float2> C;
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < W; ++X)
      C.push_back(make_float2(X + 0.5f, Y + 0.5f));
  float2 *DC = dev(C);
  float4 *DO;
  CHECK(cudaMalloc(&DO, C.size() * sizeof(float4)));
  int Wrong = 0;
  sample2D<<<1, W * H>>>(Tu, DC, DO, W * H);
  CHECK(cudaDeviceSynchronize());
  auto R = host(DO, C.size());
  for (int I = 0; I < W * H; ++I)
    Wrong += R[I].x != U8[I].x / 255.0f || R[I].y != U8[I].y / 255.0f || R[I].z != U8[I].z / 255.0f ||
             R[I].w != U8[I].w / 255.0f;
  sample2D<<<1, W * H>>>(Ts, DC, DO, W * H);
  CHECK(cudaDeviceSynchronize());
  R = host(DO, C.size());
  for (int I = 0; I < W * H; ++I)
    Wrong += R[I].x != std::max(-1.0f, S16[I] / 32767.0f);
  EXPECT(Wrong == 0);
  CHECK(cudaDestroyTextureObject(Tu));
  CHECK(cudaDestroyTextureObject(Ts));
  CHECK(cudaFreeArray(Au));
  CHECK(cudaFreeArray(As));
  cudaFree(DC);
  cudaFree(DO);
}

/// Layered 2D and 3D arrays, filled through cudaMemcpy3D.
static void layeredAnd3D() {
  const int W = 9, H = 7, D = 5;
  std::vector<float> V(W * H * D);
  for (size_t I = 0; I < V.size(); ++I)
    V[I] = float(I) * 0.25f;
  cudaChannelFormatDesc Fd = cudaCreateChannelDesc<float>();
  for (int Layered = 0; Layered < 2; ++Layered) {
    cudaArray_t A;
    CHECK(cudaMalloc3DArray(&A, &Fd, make_cudaExtent(W, H, D), Layered ? cudaArrayLayered : 0));
    cudaMemcpy3DParms P = {};
    P.srcPtr = make_cudaPitchedPtr(V.data(), W * sizeof(float), W, H);
    P.dstArray = A;
    P.extent = make_cudaExtent(W, H, D);
    P.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&P));
    // Back through a 3D copy of a box at an offset.
    std::vector<float> Box(3 * 2 * 2, -1);
    cudaMemcpy3DParms Q = {};
    Q.srcArray = A;
    Q.srcPos = make_cudaPos(4, 3, 2);
    Q.dstPtr = make_cudaPitchedPtr(Box.data(), 3 * sizeof(float), 3, 2);
    Q.extent = make_cudaExtent(3, 2, 2);
    Q.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3D(&Q));
    for (int Z = 0; Z < 2; ++Z)
      for (int Y = 0; Y < 2; ++Y)
        for (int X = 0; X < 3; ++X)
          EXPECT(Box[(Z * 2 + Y) * 3 + X] == V[((2 + Z) * H + 3 + Y) * W + 4 + X]);
    cudaTextureObject_t T = pointTexture(A);
    const int N = 96;
    std::vector<int> X(N), Y(N), Z(N);
    for (int I = 0; I < N; ++I) {
      X[I] = Rng() % W;
      Y[I] = Rng() % H;
      Z[I] = Rng() % D;
    }
    float *DO;
    CHECK(cudaMalloc(&DO, N * sizeof(float)));
    if (Layered) {
      std::vector<float2> C(N);
      for (int I = 0; I < N; ++I)
        C[I] = make_float2(X[I] + 0.5f, Y[I] + 0.5f);
      float2 *DC = dev(C);
      int *DL = dev(Z);
      sampleLayered<<<1, N>>>(T, DC, DL, DO, N);
      CHECK(cudaDeviceSynchronize());
      cudaFree(DC);
      cudaFree(DL);
    } else {
      std::vector<float4> C(N);
      for (int I = 0; I < N; ++I)
        C[I] = make_float4(X[I] + 0.5f, Y[I] + 0.5f, Z[I] + 0.5f, 0);
      float4 *DC = dev(C);
      sample3D<<<1, N>>>(T, DC, DO, N);
      CHECK(cudaDeviceSynchronize());
      cudaFree(DC);
    }
    auto R = host(DO, N);
    int Wrong = 0;
    for (int I = 0; I < N; ++I)
      Wrong += R[I] != V[(Z[I] * H + Y[I]) * W + X[I]];
    EXPECT(Wrong == 0);
    cudaFree(DO);
    CHECK(cudaDestroyTextureObject(T));
    CHECK(cudaFreeArray(A));
  }
}

/// A cubemap whose every texel holds face * 100 + y * 8 + x: the major axis picks the face.
static void cubemap() {
  const int S = 8;
  std::vector<float> V(S * S * 6);
  for (int F = 0; F < 6; ++F)
    for (int Y = 0; Y < S; ++Y)
      for (int X = 0; X < S; ++X)
        V[(F * S + Y) * S + X] = float(F * 100 + Y * 8 + X);
  cudaChannelFormatDesc Fd = cudaCreateChannelDesc<float>();
  cudaArray_t A;
  CHECK(cudaMalloc3DArray(&A, &Fd, make_cudaExtent(S, S, 6), cudaArrayCubemap));
  cudaMemcpy3DParms P = {};
  P.srcPtr = make_cudaPitchedPtr(V.data(), S * sizeof(float), S, S);
  P.dstArray = A;
  P.extent = make_cudaExtent(S, S, 6);
  P.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&P));
  cudaTextureObject_t T = pointTexture(A, true);
  // Directions with a clear major axis; the expected texel from the CUDA
  // Programming Guide's face table (s, t = (sc/|ma| + 1) / 2).
  std::vector<float4> C;
  std::vector<float> E;
  for (int I = 0; I < 60; ++I) {
    float M = std::uniform_real_distribution<float>(1.0f, 3.0f)(Rng) * (Rng() % 2 ? 1 : -1);
    float A1 = std::uniform_real_distribution<float>(-0.9f, 0.9f)(Rng) * std::fabs(M);
    float A2 = std::uniform_real_distribution<float>(-0.9f, 0.9f)(Rng) * std::fabs(M);
    int Axis = I % 3;
    float X = Axis == 0 ? M : A1, Y = Axis == 1 ? M : (Axis == 0 ? A1 : A2), Z = Axis == 2 ? M : A2;
    int Face;
    float Sc, Tc, Ma;
    if (Axis == 0) {
      Face = X > 0 ? 0 : 1;
      Sc = X > 0 ? -Z : Z;
      Tc = -Y;
      Ma = std::fabs(X);
    } else if (Axis == 1) {
      Face = Y > 0 ? 2 : 3;
      Sc = X;
      Tc = Y > 0 ? Z : -Z;
      Ma = std::fabs(Y);
    } else {
      Face = Z > 0 ? 4 : 5;
      Sc = Z > 0 ? X : -X;
      Tc = -Y;
      Ma = std::fabs(Z);
    }
    int Tx = std::min(S - 1, int(std::floor((Sc / Ma + 1) / 2 * S)));
    int Ty = std::min(S - 1, int(std::floor((Tc / Ma + 1) / 2 * S)));
    C.push_back(make_float4(X, Y, Z, 0));
    E.push_back(V[(Face * S + Ty) * S + Tx]);
  }
  float4 *DC = dev(C);
  float *DO;
  CHECK(cudaMalloc(&DO, C.size() * sizeof(float)));
  sampleCube<<<1, 64>>>(T, DC, DO, static_cast<int>(C.size()));
  CHECK(cudaDeviceSynchronize());
  auto R = host(DO, C.size());
  int Wrong = 0;
  for (size_t I = 0; I < C.size(); ++I)
    Wrong += R[I] != E[I];
  EXPECT(Wrong == 0);
  cudaFree(DC);
  cudaFree(DO);
  CHECK(cudaDestroyTextureObject(T));
  CHECK(cudaFreeArray(A));
}

/// A 64x64 mipmapped array whose level L holds the value L everywhere; tex2DLod and tex2DGrad
/// pick levels (point: the nearest; linear: a blend).
static void mipmaps(cudaTextureObject_t &Keep, cudaMipmappedArray_t &KeepArray) {
  cudaChannelFormatDesc Fd = cudaCreateChannelDesc<float>();
  cudaMipmappedArray_t M;
  const int Levels = 5;
  CHECK(cudaMallocMipmappedArray(&M, &Fd, make_cudaExtent(64, 64, 0), Levels));
  for (int L = 0; L < Levels; ++L) {
    cudaArray_t A;
    CHECK(cudaGetMipmappedArrayLevel(&A, M, L));
    cudaExtent E;
    CHECK(cudaArrayGetInfo(nullptr, &E, nullptr, A));
    EXPECT(E.width == size_t(64 >> L) && E.height == size_t(64 >> L));
    std::vector<float> V(E.width * E.height, float(L));
    CHECK(cudaMemcpy2DToArray(A, 0, 0, V.data(), E.width * 4, E.width * 4, E.height, cudaMemcpyHostToDevice));
  }
  for (int Linear = 0; Linear < 2; ++Linear) {
    cudaResourceDesc Rd = {};
    Rd.resType = cudaResourceTypeMipmappedArray;
    Rd.res.mipmap.mipmap = M;
    cudaTextureDesc Td = {};
    Td.filterMode = cudaFilterModePoint;
    Td.mipmapFilterMode = Linear ? cudaFilterModeLinear : cudaFilterModePoint;
    Td.readMode = cudaReadModeElementType;
    Td.normalizedCoords = 1;
    Td.maxMipmapLevelClamp = Levels - 1;
    cudaTextureObject_t T;
    CHECK(cudaCreateTextureObject(&T, &Rd, &Td, nullptr));
    const float Lods[] = {0.0f, 0.25f, 1.0f, 1.5f, 2.75f, 4.0f, 7.0f, -1.0f};
    std::vector<float4> C;
    for (float L : Lods)
      C.push_back(make_float4(0.3f, 0.6f, L, L));
    float4 *DC = dev(C);
    float *DO, *DG;
    CHECK(cudaMalloc(&DO, C.size() * 4));
    CHECK(cudaMalloc(&DG, C.size() * 4));
    sampleLod<<<1, 32>>>(T, DC, DO, DG, static_cast<int>(C.size()));
    CHECK(cudaDeviceSynchronize());
    auto R = host(DO, C.size()), G = host(DG, C.size());
    for (size_t I = 0; I < C.size(); ++I) {
      float L = std::min(std::max(Lods[I], 0.0f), float(Levels - 1));
      float E = Linear ? L : std::floor(L + 0.5f);
      EXPECT(near(R[I], E, 1e-3f));
      // The larger gradient sets the level; levels are fixed point with 8 fractional bits
      // (a level computed from gradients may land just below a half: not checked there).
      if (Linear || L - std::floor(L) != 0.5f)
        EXPECT(near(G[I], E, 1.0f / 128));
    }
    cudaFree(DC);
    cudaFree(DO);
    cudaFree(DG);
    if (Linear)
      Keep = T;
    else
      CHECK(cudaDestroyTextureObject(T));
  }
  KeepArray = M;
}

/// tex2Dgather of channel y: the 2x2 footprint of bilinear filtering in the
/// order (x0, y1), (x1, y1), (x1, y0), (x0, y0).
static void gathers() {
  const int W = 12, H = 10;
  std::vector<float2> Texels(W * H);
  for (int I = 0; I < W * H; ++I)
    Texels[I] = make_float2(float(-I), float(I * 3 + 1));
  cudaChannelFormatDesc Fd = cudaCreateChannelDesc<float2>();
  cudaArray_t A;
  CHECK(cudaMallocArray(&A, &Fd, W, H, cudaArrayTextureGather));
  CHECK(cudaMemcpy2DToArray(A, 0, 0, Texels.data(), W * 8, W * 8, H, cudaMemcpyHostToDevice));
  cudaTextureObject_t T = pointTexture(A);
  std::vector<float2> C;
  for (int I = 0; I < 40; ++I)
    C.push_back(make_float2(1.0f + (Rng() % 900) / 100.0f, 1.0f + (Rng() % 700) / 100.0f));
  float2 *DC = dev(C);
  float4 *DO;
  CHECK(cudaMalloc(&DO, C.size() * sizeof(float4)));
  gather<<<1, 64>>>(T, DC, DO, static_cast<int>(C.size()));
  CHECK(cudaDeviceSynchronize());
  auto R = host(DO, C.size());
  int Wrong = 0;
  for (size_t I = 0; I < C.size(); ++I) {
    int X0 = int(std::floor(C[I].x - 0.5f)), Y0 = int(std::floor(C[I].y - 0.5f));
    auto y = [&](int X, int Y) { return Texels[Y * W + X].y; };
    Wrong += R[I].x != y(X0, Y0 + 1) || R[I].y != y(X0 + 1, Y0 + 1) || R[I].z != y(X0 + 1, Y0) || R[I].w != y(X0, Y0);
  }
  EXPECT(Wrong == 0);
  cudaFree(DC);
  cudaFree(DO);
  CHECK(cudaDestroyTextureObject(T));
  CHECK(cudaFreeArray(A));
}

static void surfaces(cudaTextureObject_t Mip) {
  const int W = 21, H = 6;
  cudaChannelFormatDesc Fd = cudaCreateChannelDesc<uint2>();
  cudaArray_t A;
  CHECK(cudaMallocArray(&A, &Fd, W, H, cudaArraySurfaceLoadStore));
  cudaResourceDesc Rd = {};
  Rd.resType = cudaResourceTypeArray;
  Rd.res.array.array = A;
  cudaSurfaceObject_t S;
  CHECK(cudaCreateSurfaceObject(&S, &Rd));
  surfWrite<<<dim3(1, H), 32>>>(S, W, H);
  uint2 *DO;
  CHECK(cudaMalloc(&DO, (W + 2) * H * 2 * sizeof(uint2)));
  surfRead<<<dim3(1, H), 32>>>(S, W, H, DO);
  CHECK(cudaDeviceSynchronize());
  auto R = host(DO, (W + 2) * H * 2);
  int Wrong = 0;
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < W + 2; ++X) {
      uint2 Z = R[(Y * (W + 2) + X) * 2], C = R[(Y * (W + 2) + X) * 2 + 1];
      int Xc = std::min(X, W - 1);
      uint2 E = make_uint2(X * 1000 + Y, X ^ Y), Ec = make_uint2(Xc * 1000 + Y, Xc ^ Y);
      if (X < W)
        Wrong += Z.x != E.x || Z.y != E.y;
      else
        Wrong += Z.x != 0 || Z.y != 0;
      Wrong += C.x != Ec.x || C.y != Ec.y;
    }
  EXPECT(Wrong == 0);
  // What the kernels wrote is in the array.
  std::vector<uint2> Back(W * H);
  CHECK(cudaMemcpy2DFromArray(Back.data(), W * 8, A, 0, 0, W * 8, H, cudaMemcpyDeviceToHost));
  Wrong = 0;
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < W; ++X)
      Wrong += Back[Y * W + X].x != unsigned(X * 1000 + Y) || Back[Y * W + X].y != unsigned(X ^ Y);
  EXPECT(Wrong == 0);

  // txq / suq through inline PTX.
  cudaTextureObject_t T = pointTexture(A);
  int *DQ;
  CHECK(cudaMalloc(&DQ, 8 * sizeof(int)));
  query<<<1, 1>>>(T, Mip, S, DQ);
  CHECK(cudaDeviceSynchronize());
  auto Q = host(DQ, 6);
  EXPECT(Q[0] == W && Q[1] == H && Q[2] == 4 && Q[3] == 16 && Q[4] == W && Q[5] == H);
  cudaFree(DQ);
  CHECK(cudaDestroyTextureObject(T));

  // 1D, 3D and layered surfaces.
  cudaArray_t A1, A3, AL;
  cudaChannelFormatDesc F32 = cudaCreateChannelDesc<float>(), S16 = cudaCreateChannelDesc<short>();
  CHECK(cudaMallocArray(&A1, &F32, 32, 0, cudaArraySurfaceLoadStore));
  CHECK(cudaMalloc3DArray(&A3, &S16, make_cudaExtent(4, 4, 2), cudaArraySurfaceLoadStore));
  CHECK(cudaMalloc3DArray(&AL, &F32, make_cudaExtent(8, 1, 4), cudaArraySurfaceLoadStore | cudaArrayLayered));
  cudaSurfaceObject_t S1, S3, SL;
  Rd.res.array.array = A1;
  CHECK(cudaCreateSurfaceObject(&S1, &Rd));
  Rd.res.array.array = A3;
  CHECK(cudaCreateSurfaceObject(&S3, &Rd));
  Rd.res.array.array = AL;
  CHECK(cudaCreateSurfaceObject(&SL, &Rd));
  float *DF;
  CHECK(cudaMalloc(&DF, 96 * sizeof(float)));
  surfOthers<<<1, 32>>>(S1, S3, SL, DF);
  CHECK(cudaDeviceSynchronize());
  auto F = host(DF, 96);
  Wrong = 0;
  for (int I = 0; I < 32; ++I)
    Wrong += F[I] != float((I + 1) % 32) * 1.5f || F[32 + I] != float(I * 3) || F[64 + I] != float(I);
  EXPECT(Wrong == 0);
  // A surface needs cudaArraySurfaceLoadStore.
  cudaArray_t NoSurf;
  CHECK(cudaMallocArray(&NoSurf, &F32, 4, 4));
  Rd.res.array.array = NoSurf;
  cudaSurfaceObject_t Refused;
  EXPECT(cudaCreateSurfaceObject(&Refused, &Rd) != cudaSuccess);
  for (cudaSurfaceObject_t X : {S, S1, S3, SL})
    CHECK(cudaDestroySurfaceObject(X));
  for (cudaArray_t X : {A, A1, A3, AL, NoSurf})
    CHECK(cudaFreeArray(X));
  cudaFree(DO);
  cudaFree(DF);
}

int main() {
  twoD();
  normalizedSrgb();
  normalizedFormats();
  layeredAnd3D();
  cubemap();
  cudaTextureObject_t Mip;
  cudaMipmappedArray_t M;
  mipmaps(Mip, M);
  gathers();
  surfaces(Mip);
  CHECK(cudaDestroyTextureObject(Mip));
  CHECK(cudaFreeMipmappedArray(M));
  // Invalid descriptions are refused.
  cudaChannelFormatDesc Three = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
  cudaArray_t A;
  EXPECT(cudaMallocArray(&A, &Three, 4, 4) != cudaSuccess);
  cudaChannelFormatDesc F = cudaCreateChannelDesc<float>();
  EXPECT(cudaMalloc3DArray(&A, &F, make_cudaExtent(4, 5, 6), cudaArrayCubemap) != cudaSuccess); // faces not square
  std::printf("arrays_surfaces: %s (%d mismatches)\n", Bad ? "FAIL" : "PASS", Bad);
  return Bad ? 1 : 0;
}
