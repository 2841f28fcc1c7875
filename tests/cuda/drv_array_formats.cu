// CUDA arrays of the block-compressed (BC1-BC7), planar/packed YUV and
// 10:10:10:2 formats, checked against what NVIDIA's driver did on an H200.
// `--record FILE` writes every observation (error codes, descriptors, plane
// geometry, texels fetched through texture objects); `FILE` checks ours
// against them (tests/golden/driver/array_formats.golden, see
// tests/golden/PROVENANCE.txt). Inputs come from a fixed generator, the same
// on every machine. Error codes and geometry must be equal; texels equal
// within a bound per case (stated where the case is made). A mismatch prints
// the block (or the coordinates) it came from; ZLUDA_TEST_SHOW=N prints up
// to N values a case (6 by default), ZLUDA_TEST_ALL=1 every value.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#define DRV(x)                                                                                     \
  do {                                                                                             \
    CUresult r_ = (x);                                                                             \
    if (r_ != CUDA_SUCCESS) {                                                                      \
      std::printf("FAIL %s:%d %s: %d\n", __FILE__, __LINE__, #x, (int)r_);                         \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

// --- observations: name -> 32-bit values, each list with its bound ---------------------------

struct Obs {
  std::vector<uint32_t> V;
  bool Floats = false; ///< values are float bits, compared within Tol
  float Tol = 0;
};
static std::map<std::string, Obs> Got;

/// The blocks each block-compressed case decoded (printed beside a mismatch).
struct Blocks {
  std::vector<uint8_t> Data;
  unsigned W = 0, BlockBytes = 0;
};
static std::map<std::string, Blocks> Inputs;
/// The coordinates of each filtered case (printed beside a mismatch).
static std::map<std::string, std::pair<std::vector<float>, std::vector<float>>> Coords;

static void ints(const std::string &Name, std::vector<uint32_t> V) { Got[Name] = Obs{std::move(V), false, 0}; }
static void floats(const std::string &Name, const std::vector<float> &F, float Tol) {
  Obs O{{}, true, Tol};
  for (float X : F) {
    uint32_t B;
    std::memcpy(&B, &X, 4);
    O.V.push_back(B);
  }
  Got[Name] = O;
}

static uint64_t State = 0x2545f4914f6cdd1dull;
static uint32_t rnd() {
  State ^= State << 13;
  State ^= State >> 7;
  State ^= State << 17;
  return static_cast<uint32_t>(State >> 32);
}

// --- kernels -------------------------------------------------------------------------------

/// Point or filtered fetches at (X[i], Y[i]).
__global__ void fetchAt(CUtexObject T, const float *X, const float *Y, float4 *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = tex2D<float4>(T, X[I], Y[I]);
}
__global__ void fetchAtInt(CUtexObject T, const float *X, const float *Y, uint4 *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = tex2D<uint4>(T, X[I], Y[I]);
}

/// Fetches at the given coordinates through \p T; float texels or integer ones.
static std::vector<float> fetch(CUtexObject T, const std::vector<float> &X, const std::vector<float> &Y,
                                bool Integer = false) {
  int N = static_cast<int>(X.size());
  float *Dx, *Dy;
  void *Dout;
  cudaMalloc(&Dx, N * 4);
  cudaMalloc(&Dy, N * 4);
  cudaMalloc(&Dout, N * 16);
  cudaMemcpy(Dx, X.data(), N * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(Dy, Y.data(), N * 4, cudaMemcpyHostToDevice);
  cudaMemset(Dout, 0xff, N * 16);
  if (Integer)
    fetchAtInt<<<(N + 127) / 128, 128>>>(T, Dx, Dy, static_cast<uint4 *>(Dout), N);
  else
    fetchAt<<<(N + 127) / 128, 128>>>(T, Dx, Dy, static_cast<float4 *>(Dout), N);
  std::vector<float> Out(N * 4);
  cudaError_t E = cudaDeviceSynchronize();
  if (E != cudaSuccess) {
    std::printf("FAIL fetch: %s\n", cudaGetErrorString(E));
    std::exit(1);
  }
  cudaMemcpy(Out.data(), Dout, N * 16, cudaMemcpyDeviceToHost);
  cudaFree(Dx);
  cudaFree(Dy);
  cudaFree(Dout);
  return Out;
}

/// Every texel's centre of a W x H texture, row by row.
static void centres(unsigned W, unsigned H, std::vector<float> &X, std::vector<float> &Y) {
  X.clear();
  Y.clear();
  for (unsigned y = 0; y < H; ++y)
    for (unsigned x = 0; x < W; ++x) {
      X.push_back(x + 0.5f);
      Y.push_back(y + 0.5f);
    }
}

static CUresult texObject(CUtexObject &T, CUarray A, CUfilter_mode Filter, unsigned Flags) {
  CUDA_RESOURCE_DESC R{};
  R.resType = CU_RESOURCE_TYPE_ARRAY;
  R.res.array.hArray = A;
  CUDA_TEXTURE_DESC D{};
  D.addressMode[0] = D.addressMode[1] = D.addressMode[2] = CU_TR_ADDRESS_MODE_CLAMP;
  D.filterMode = Filter;
  D.flags = Flags;
  return cuTexObjectCreate(&T, &R, &D, nullptr);
}

static std::vector<uint32_t> descOf(CUarray A) {
  CUDA_ARRAY3D_DESCRIPTOR D{};
  CUresult R = cuArray3DGetDescriptor(&D, A);
  return {static_cast<uint32_t>(R), static_cast<uint32_t>(D.Width), static_cast<uint32_t>(D.Height),
          static_cast<uint32_t>(D.Depth), static_cast<uint32_t>(D.Format), D.NumChannels, D.Flags};
}

/// "<N>.shapes": the code of creating each shape (width, height, depth,
/// flags; \p Flags added to each) and, where it was made, its descriptor.
struct Shape {
  size_t W, H, D;
  unsigned Flags;
};
static void shapes(const std::string &N, CUarray_format F, unsigned Channels, unsigned Flags,
                   std::initializer_list<Shape> List) {
  std::vector<uint32_t> R;
  for (const Shape &Sh : List) {
    CUDA_ARRAY3D_DESCRIPTOR D{Sh.W, Sh.H, Sh.D, F, Channels, Sh.Flags | Flags};
    CUarray A;
    CUresult Res = cuArray3DCreate(&A, &D);
    R.push_back(Res);
    if (Res == CUDA_SUCCESS) {
      auto G = descOf(A);
      R.insert(R.end(), G.begin(), G.end());
      cuArrayDestroy(A);
    }
  }
  ints(N + ".shapes", R);
}

static CUresult copyToArray(CUarray A, const void *Src, size_t SrcPitch, size_t WidthBytes, size_t Height) {
  CUDA_MEMCPY2D C{};
  C.srcMemoryType = CU_MEMORYTYPE_HOST;
  C.srcHost = Src;
  C.srcPitch = SrcPitch;
  C.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  C.dstArray = A;
  C.WidthInBytes = WidthBytes;
  C.Height = Height;
  return cuMemcpy2D(&C);
}

static CUresult copyFromArray(CUarray A, void *Dst, size_t DstPitch, size_t WidthBytes, size_t Height) {
  CUDA_MEMCPY2D C{};
  C.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  C.srcArray = A;
  C.dstMemoryType = CU_MEMORYTYPE_HOST;
  C.dstHost = Dst;
  C.dstPitch = DstPitch;
  C.WidthInBytes = WidthBytes;
  C.Height = Height;
  return cuMemcpy2D(&C);
}

// --- block-compressed formats ---------------------------------------------------------------

struct BcFormat {
  const char *Name;
  CUarray_format F;
  unsigned BlockBytes;
  unsigned W, H;
  float Tol; ///< point-sampled texels (decoding is exact up to the interpolation's rounding)
};

/// Random blocks; BC6H cycles through all 32 mode fields, BC7 through its 8
/// modes (and an all-zero mode byte every 16th block, a reserved mode).
static std::vector<uint8_t> bcBlocks(const BcFormat &B, unsigned Blocks) {
  std::vector<uint8_t> D(Blocks * B.BlockBytes);
  for (auto &X : D)
    X = static_cast<uint8_t>(rnd());
  for (unsigned I = 0; I < Blocks; ++I) {
    uint8_t *P = &D[I * B.BlockBytes];
    if (B.F == CU_AD_FORMAT_BC6H_UF16 || B.F == CU_AD_FORMAT_BC6H_SF16) {
      P[0] = static_cast<uint8_t>((P[0] & ~31u) | (I % 32));
    } else if (B.F == CU_AD_FORMAT_BC7_UNORM || B.F == CU_AD_FORMAT_BC7_UNORM_SRGB) {
      unsigned M = I % 8;
      P[0] = static_cast<uint8_t>(((P[0] << (M + 1)) | (1u << M)) & 0xff);
      if (I % 16 == 15)
        P[0] = 0;
    } else if (I % 8 == 0 && B.BlockBytes == 8 && (B.F == CU_AD_FORMAT_BC1_UNORM || B.F == CU_AD_FORMAT_BC1_UNORM_SRGB)) {
      P[2] = P[0]; // c0 == c1: the 3-colour mode with equal endpoints
      P[3] = P[1];
    }
  }
  return D;
}

static void bcFormat(const BcFormat &B) {
  std::string N = B.Name;
  // Which channel counts the driver accepts.
  std::vector<uint32_t> Codes;
  for (unsigned C = 1; C <= 4; ++C) {
    CUDA_ARRAY_DESCRIPTOR D{B.W, B.H, B.F, C};
    CUarray A;
    CUresult R = cuArrayCreate(&A, &D);
    Codes.push_back(R);
    if (R == CUDA_SUCCESS)
      cuArrayDestroy(A);
  }
  ints(N + ".create_channels", Codes);
  unsigned Channels = 0;
  for (unsigned C = 0; C < 4 && !Channels; ++C)
    if (Codes[C] == CUDA_SUCCESS)
      Channels = C + 1;
  if (!Channels)
    return;
  // Other shapes: not a multiple of 4, 1D, 3D, layered, surface load/store.
  shapes(N, B.F, Channels, 0,
         {{10, 6, 0, 0}, {16, 0, 0, 0}, {8, 8, 4, 0}, {8, 8, 3, CUDA_ARRAY3D_LAYERED},
          {8, 8, 0, CUDA_ARRAY3D_SURFACE_LDST}, {8, 8, 6, CUDA_ARRAY3D_CUBEMAP}, {1, 1, 0, 0}, {3, 3, 0, 0}});
  CUDA_ARRAY3D_DESCRIPTOR D3{B.W, B.H, 0, B.F, Channels, 0};
  CUarray A;
  DRV(cuArray3DCreate(&A, &D3));
  ints(N + ".desc", descOf(A));
  unsigned Bx = B.W / 4, By = B.H / 4;
  std::vector<uint8_t> Data = bcBlocks(B, Bx * By);
  Inputs[N + ".texels"] = Blocks{Data, B.W, B.BlockBytes};
  size_t RowBytes = Bx * B.BlockBytes;
  // Which copy shapes the driver takes: rows of blocks, rows of texels.
  {
    std::vector<uint32_t> R;
    std::vector<uint8_t> Big(RowBytes * 4 * B.H * 4, 0);
    R.push_back(copyToArray(A, Big.data(), RowBytes * 4, RowBytes, B.H));          // block row width, texel rows
    R.push_back(copyToArray(A, Big.data(), RowBytes * 4, B.W * B.BlockBytes, By)); // texel columns * block bytes
    R.push_back(copyToArray(A, Big.data(), RowBytes * 4, RowBytes * 2, By));
    R.push_back(copyToArray(A, Big.data(), RowBytes * 4, RowBytes, By + 1));
    R.push_back(copyToArray(A, Big.data(), RowBytes * 4, B.BlockBytes, 1));        // one block
    R.push_back(copyToArray(A, Big.data(), RowBytes * 4, B.BlockBytes / 2, 1));    // half a block
    R.push_back(cuMemcpyHtoA(A, 0, Big.data(), B.BlockBytes));
    R.push_back(cuMemcpyHtoA(A, 1, Big.data(), B.BlockBytes));
    ints(N + ".copy_shapes", R);
  }
  ints(N + ".copy", {static_cast<uint32_t>(copyToArray(A, Data.data(), RowBytes, RowBytes, By))});
  {
    std::vector<uint8_t> Back(Data.size(), 0);
    CUresult R = copyFromArray(A, Back.data(), RowBytes, RowBytes, By);
    ints(N + ".copy_back", {static_cast<uint32_t>(R), static_cast<uint32_t>(Back == Data)});
  }
  std::vector<float> X, Y;
  centres(B.W, B.H, X, Y);
  CUtexObject T;
  // Read modes and filters the driver takes for these formats.
  {
    std::vector<uint32_t> R;
    unsigned FlagSets[] = {0, CU_TRSF_READ_AS_INTEGER, CU_TRSF_SRGB, CU_TRSF_NORMALIZED_COORDINATES};
    for (unsigned F : FlagSets)
      for (CUfilter_mode M : {CU_TR_FILTER_MODE_POINT, CU_TR_FILTER_MODE_LINEAR}) {
        CUresult Res = texObject(T, A, M, F);
        R.push_back(Res);
        if (Res == CUDA_SUCCESS)
          cuTexObjectDestroy(T);
      }
    ints(N + ".tex_modes", R);
  }
  if (texObject(T, A, CU_TR_FILTER_MODE_POINT, 0) == CUDA_SUCCESS) {
    floats(N + ".texels", fetch(T, X, Y), B.Tol);
    cuTexObjectDestroy(T);
  }
  if (texObject(T, A, CU_TR_FILTER_MODE_POINT, CU_TRSF_SRGB) == CUDA_SUCCESS) {
    floats(N + ".texels_srgb", fetch(T, X, Y), B.Tol);
    cuTexObjectDestroy(T);
  }
  if (texObject(T, A, CU_TR_FILTER_MODE_POINT, CU_TRSF_READ_AS_INTEGER) == CUDA_SUCCESS) {
    floats(N + ".texels_int", fetch(T, X, Y), B.Tol);
    cuTexObjectDestroy(T);
  }
  if (texObject(T, A, CU_TR_FILTER_MODE_LINEAR, 0) == CUDA_SUCCESS) {
    std::vector<float> Fx, Fy;
    for (unsigned I = 0; I < 96; ++I) {
      Fx.push_back((rnd() % (B.W * 64 + 64)) / 64.0f - 0.5f);
      Fy.push_back((rnd() % (B.H * 64 + 64)) / 64.0f - 0.5f);
    }
    // Filtered texels: within one 16-bit step (the order of the f32 sums),
    // BC6H's within one half-float step.
    bool Hdr = B.F == CU_AD_FORMAT_BC6H_UF16 || B.F == CU_AD_FORMAT_BC6H_SF16;
    floats(N + ".filtered", fetch(T, Fx, Fy), B.Tol + (Hdr ? 2e-3f : 4e-5f));
    Coords[N + ".filtered"] = {Fx, Fy};
    cuTexObjectDestroy(T);
  }
  cuArrayDestroy(A);
  // A size that is not a multiple of 4: partial blocks at the right and bottom edges.
  CUDA_ARRAY3D_DESCRIPTOR Dp{10, 6, 0, B.F, Channels, 0};
  if (cuArray3DCreate(&A, &Dp) == CUDA_SUCCESS) {
    std::vector<uint8_t> P = bcBlocks(B, 3 * 2);
    ints(N + ".partial_copy",
         {static_cast<uint32_t>(copyToArray(A, P.data(), 3 * B.BlockBytes, 3 * B.BlockBytes, 2)),
          static_cast<uint32_t>(copyToArray(A, P.data(), 3 * B.BlockBytes, 3 * B.BlockBytes, 1))});
    copyToArray(A, P.data(), 3 * B.BlockBytes, 3 * B.BlockBytes, 2);
    if (texObject(T, A, CU_TR_FILTER_MODE_POINT, 0) == CUDA_SUCCESS) {
      std::vector<float> Px, Py;
      centres(12, 8, Px, Py); // past the edges too: clamped
      floats(N + ".partial_texels", fetch(T, Px, Py), B.Tol);
      cuTexObjectDestroy(T);
    }
    cuArrayDestroy(A);
  }
  // Surfaces over block-compressed arrays.
  CUDA_ARRAY3D_DESCRIPTOR Ds{8, 8, 0, B.F, Channels, CUDA_ARRAY3D_SURFACE_LDST};
  if (cuArray3DCreate(&A, &Ds) == CUDA_SUCCESS) {
    CUDA_RESOURCE_DESC R{};
    R.resType = CU_RESOURCE_TYPE_ARRAY;
    R.res.array.hArray = A;
    CUsurfObject S;
    CUresult Res = cuSurfObjectCreate(&S, &R);
    ints(N + ".surface", {static_cast<uint32_t>(Res)});
    if (Res == CUDA_SUCCESS)
      cuSurfObjectDestroy(S);
    cuArrayDestroy(A);
  }
}

// --- planar and packed video formats, 10:10:10:2 ---------------------------------------------

struct VideoFormat {
  const char *Name;
  CUarray_format F;
};

static unsigned formatBytes(CUarray_format F) {
  switch (F) {
  case CU_AD_FORMAT_UNSIGNED_INT8: case CU_AD_FORMAT_SIGNED_INT8: return 1;
  case CU_AD_FORMAT_UNSIGNED_INT16: case CU_AD_FORMAT_SIGNED_INT16: case CU_AD_FORMAT_HALF: return 2;
  case CU_AD_FORMAT_UNSIGNED_INT32: case CU_AD_FORMAT_SIGNED_INT32: case CU_AD_FORMAT_FLOAT: return 4;
  case CU_AD_FORMAT_UNORM_INT_101010_2: return 4;
  default: return 0;
  }
}

static void videoFormat(const VideoFormat &V) {
  std::string N = V.Name;
  const unsigned W = 16, H = 8;
  // The YUV formats need CUDA_ARRAY3D_VIDEO_ENCODE_DECODE (the H200: every
  // other way of creating them is CUDA_ERROR_INVALID_VALUE); 10:10:10:2 does not.
  unsigned Video = V.F == CU_AD_FORMAT_UNORM_INT_101010_2 ? 0 : CUDA_ARRAY3D_VIDEO_ENCODE_DECODE;
  std::vector<uint32_t> Codes;
  for (unsigned Flags : {0u, Video})
    for (unsigned C = 1; C <= 4; ++C) {
      CUDA_ARRAY3D_DESCRIPTOR D{W, H, 0, V.F, C, Flags};
      CUarray A;
      CUresult R = cuArray3DCreate(&A, &D);
      Codes.push_back(R);
      if (R == CUDA_SUCCESS)
        cuArrayDestroy(A);
    }
  ints(N + ".create_channels", Codes);
  unsigned Channels = 0;
  for (unsigned C = 0; C < 4 && !Channels; ++C)
    if (Codes[4 + C] == CUDA_SUCCESS)
      Channels = C + 1;
  if (!Channels)
    return;
  shapes(N, V.F, Channels, Video,
         {{15, 8, 0, 0}, {16, 7, 0, 0}, {16, 0, 0, 0}, {8, 8, 4, 0}, {8, 8, 3, CUDA_ARRAY3D_LAYERED},
          {8, 8, 0, CUDA_ARRAY3D_SURFACE_LDST}, {2, 2, 0, 0}, {1, 1, 0, 0}, {6, 2, 0, 0}});
  CUDA_ARRAY3D_DESCRIPTOR D3{W, H, 0, V.F, Channels, Video};
  CUarray A;
  DRV(cuArray3DCreate(&A, &D3));
  ints(N + ".desc", descOf(A));
  // Its planes: geometry, a copy into each, the texels a texture over each reads.
  std::vector<std::vector<uint8_t>> PlaneData;
  std::vector<uint32_t> PlaneGeom;
  for (unsigned P = 0; P < 4; ++P) {
    CUarray Pa;
    CUresult R = cuArrayGetPlane(&Pa, A, P);
    PlaneGeom.push_back(R);
    if (R != CUDA_SUCCESS)
      break;
    auto G = descOf(Pa);
    PlaneGeom.insert(PlaneGeom.end(), G.begin(), G.end());
    CUDA_ARRAY3D_DESCRIPTOR Pd{};
    cuArray3DGetDescriptor(&Pd, Pa);
    unsigned Eb = formatBytes(Pd.Format) * Pd.NumChannels;
    size_t Ph = Pd.Height ? Pd.Height : 1;
    std::vector<uint8_t> Bytes(Pd.Width * Eb * Ph);
    for (auto &B : Bytes)
      B = static_cast<uint8_t>(rnd());
    ints(N + ".plane" + std::to_string(P) + ".copy",
         {static_cast<uint32_t>(copyToArray(Pa, Bytes.data(), Pd.Width * Eb, Pd.Width * Eb, Ph))});
    PlaneData.push_back(Bytes);
    std::vector<uint8_t> Back(Bytes.size(), 0);
    copyFromArray(Pa, Back.data(), Pd.Width * Eb, Pd.Width * Eb, Ph);
    PlaneGeom.push_back(Back == Bytes);
    CUtexObject T;
    CUresult Tr = texObject(T, Pa, CU_TR_FILTER_MODE_POINT, 0);
    ints(N + ".plane" + std::to_string(P) + ".tex", {static_cast<uint32_t>(Tr)});
    if (Tr == CUDA_SUCCESS) {
      std::vector<float> X, Y;
      centres(static_cast<unsigned>(Pd.Width), static_cast<unsigned>(Ph), X, Y);
      floats(N + ".plane" + std::to_string(P) + ".texels", fetch(T, X, Y), 0);
      cuTexObjectDestroy(T);
    }
    PlaneGeom.push_back(cuArrayDestroy(Pa)); // a plane is not an array of its own
  }
  ints(N + ".planes", PlaneGeom);
  // The whole array: copies (in the planes' bytes), textures over it.
  {
    unsigned Eb0 = 0;
    if (!PlaneData.empty()) {
      CUarray Pa;
      CUDA_ARRAY3D_DESCRIPTOR Pd{};
      cuArrayGetPlane(&Pa, A, 0);
      cuArray3DGetDescriptor(&Pd, Pa);
      Eb0 = formatBytes(Pd.Format) * Pd.NumChannels;
    }
    std::vector<uint32_t> R;
    std::vector<uint8_t> Back(W * 16 * H * 4, 0);
    size_t Widths[] = {W * Eb0, W * Channels, W * Channels * 2, W * 4};
    for (size_t Wb : Widths) {
      if (!Wb)
        continue;
      for (size_t Rows : {size_t(H), size_t(H) * 3 / 2, size_t(H) * 2, size_t(H) * 3}) {
        std::fill(Back.begin(), Back.end(), 0);
        CUresult Res = copyFromArray(A, Back.data(), Wb, Wb, Rows);
        R.push_back(Res);
        if (Res == CUDA_SUCCESS) {
          // Which plane bytes came back where: each plane's bytes after the previous ones?
          std::vector<uint8_t> Cat;
          for (auto &P : PlaneData)
            Cat.insert(Cat.end(), P.begin(), P.end());
          size_t Same = 0, Len = Wb * Rows;
          while (Same < Len && Same < Cat.size() && Back[Same] == Cat[Same])
            ++Same;
          R.push_back(static_cast<uint32_t>(Same));
        }
      }
    }
    ints(N + ".whole_copy", R);
    CUtexObject T;
    CUresult Tr = texObject(T, A, CU_TR_FILTER_MODE_POINT, 0);
    ints(N + ".whole_tex", {static_cast<uint32_t>(Tr)});
    if (Tr == CUDA_SUCCESS) {
      std::vector<float> X, Y;
      centres(W, H, X, Y);
      if (PlaneData.empty()) {
        // A packed format without planes: random texels through a copy of the whole array.
        std::vector<uint8_t> Bytes(W * H * 4);
        for (auto &B : Bytes)
          B = static_cast<uint8_t>(rnd());
        ints(N + ".copy", {static_cast<uint32_t>(copyToArray(A, Bytes.data(), W * 4, W * 4, H))});
      }
      floats(N + ".whole_texels", fetch(T, X, Y), 0);
      cuTexObjectDestroy(T);
      if (texObject(T, A, CU_TR_FILTER_MODE_LINEAR, 0) == CUDA_SUCCESS) {
        std::vector<float> Fx, Fy;
        for (unsigned I = 0; I < 64; ++I) {
          Fx.push_back((rnd() % (W * 64 + 64)) / 64.0f - 0.5f);
          Fy.push_back((rnd() % (H * 64 + 64)) / 64.0f - 0.5f);
        }
        floats(N + ".whole_filtered", fetch(T, Fx, Fy), 4e-5f);
        Coords[N + ".whole_filtered"] = {Fx, Fy};
        cuTexObjectDestroy(T);
      }
    }
  }
  cuArrayDestroy(A);
}

// --- the runtime API's kinds for the same formats ------------------------------------------

template <cudaChannelFormatKind K> static void runtimeKind(const char *Name, unsigned W, unsigned H) {
  std::string N = std::string("rt.") + Name;
  cudaChannelFormatDesc C = cudaCreateChannelDesc<K>();
  cudaArray_t A;
  cudaError_t E = cudaMallocArray(&A, &C, W, H);
  std::vector<uint32_t> R{static_cast<uint32_t>(E)};
  if (E != cudaSuccess) { // the driver's CUDA_ARRAY3D_VIDEO_ENCODE_DECODE
    cudaGetLastError();
    E = cudaMallocArray(&A, &C, W, H, 0x100);
    R.push_back(E);
  }
  if (E == cudaSuccess) {
    cudaChannelFormatDesc G{};
    cudaExtent Ext{};
    unsigned Fl = 0;
    R.push_back(cudaArrayGetInfo(&G, &Ext, &Fl, A));
    R.insert(R.end(), {static_cast<uint32_t>(G.x), static_cast<uint32_t>(G.y), static_cast<uint32_t>(G.z),
                       static_cast<uint32_t>(G.w), static_cast<uint32_t>(G.f), static_cast<uint32_t>(Ext.width),
                       static_cast<uint32_t>(Ext.height), static_cast<uint32_t>(Ext.depth), Fl});
    for (unsigned P = 0; P < 3; ++P) {
      cudaArray_t Pa;
      cudaError_t Pe = cudaArrayGetPlane(&Pa, A, P);
      R.push_back(Pe);
      if (Pe == cudaSuccess) {
        R.push_back(cudaArrayGetInfo(&G, &Ext, &Fl, Pa));
        R.insert(R.end(), {static_cast<uint32_t>(G.x), static_cast<uint32_t>(G.y), static_cast<uint32_t>(G.z),
                           static_cast<uint32_t>(G.w), static_cast<uint32_t>(G.f),
                           static_cast<uint32_t>(Ext.width), static_cast<uint32_t>(Ext.height)});
      }
    }
    std::vector<uint8_t> Bytes(W * H * 16, 7);
    R.push_back(cudaMemcpy2DToArray(A, 0, 0, Bytes.data(), W * 4, W * 4 / 4 * 2, H / 4, cudaMemcpyHostToDevice));
    R.push_back(cudaMemcpy2DToArray(A, 0, 0, Bytes.data(), W * 4, W, H, cudaMemcpyHostToDevice));
    cudaResourceDesc Rd{};
    Rd.resType = cudaResourceTypeArray;
    Rd.res.array.array = A;
    cudaTextureDesc Td{};
    Td.filterMode = cudaFilterModePoint;
    for (cudaTextureReadMode M : {cudaReadModeElementType, cudaReadModeNormalizedFloat}) {
      Td.readMode = M;
      cudaTextureObject_t T;
      cudaError_t Te = cudaCreateTextureObject(&T, &Rd, &Td, nullptr);
      R.push_back(Te);
      if (Te == cudaSuccess)
        cudaDestroyTextureObject(T);
    }
    cudaFreeArray(A);
  }
  cudaGetLastError();
  ints(N, R);
}

// --- record / check ------------------------------------------------------------------------

static int check(const char *Path) {
  std::ifstream In(Path);
  if (!In) {
    std::printf("FAIL cannot read %s\n", Path);
    return 1;
  }
  int Bad = 0, Cases = 0;
  std::string Line;
  while (std::getline(In, Line)) {
    std::istringstream L(Line);
    std::string Name, Kind;
    L >> Name >> Kind;
    if (Name.empty() || Name[0] == '#')
      continue;
    std::vector<uint32_t> Want;
    std::string Tok;
    while (L >> Tok)
      Want.push_back(static_cast<uint32_t>(std::stoul(Tok, nullptr, 16)));
    ++Cases;
    auto It = Got.find(Name);
    if (It == Got.end()) {
      std::printf("FAIL %s: not observed here\n", Name.c_str());
      ++Bad;
      continue;
    }
    const Obs &O = It->second;
    if (O.V.size() != Want.size()) {
      std::printf("FAIL %s: %zu values, the H200 %zu\n", Name.c_str(), O.V.size(), Want.size());
      ++Bad;
      continue;
    }
    int Shown = 0, Wrong = 0;
    for (size_t I = 0; I < Want.size(); ++I) {
      bool Ok = O.V[I] == Want[I];
      if (!Ok && O.Floats) {
        float A, B;
        std::memcpy(&A, &O.V[I], 4);
        std::memcpy(&B, &Want[I], 4);
        Ok = (std::isnan(A) && std::isnan(B)) || std::fabs(A - B) <= O.Tol * std::fmax(1.0f, std::fabs(B));
      }
      if (!Ok || getenv("ZLUDA_TEST_ALL")) {
        Wrong += !Ok;
        if (Shown++ < (getenv("ZLUDA_TEST_SHOW") ? atoi(getenv("ZLUDA_TEST_SHOW")) : 6)) {
          if (O.Floats) {
            float A, B;
            std::memcpy(&A, &O.V[I], 4);
            std::memcpy(&B, &Want[I], 4);
            std::printf("  %s[%zu] (texel %zu.%zu): %a here, %a on the H200\n", Name.c_str(), I, I / 4, I % 4, A, B);
            auto Co = Coords.find(Name);
            if (Co != Coords.end())
              std::printf("    at (%g, %g)\n", Co->second.first[I / 4], Co->second.second[I / 4]);
            auto In = Inputs.find(Name);
            if (In != Inputs.end()) { // the block of that texel
              const Blocks &Bl = In->second;
              size_t T = I / 4, X = T % Bl.W, Y = T / Bl.W, Blk = (Y / 4) * (Bl.W / 4) + X / 4;
              std::printf("    block (texel %zu of it):", (Y % 4) * 4 + X % 4);
              for (unsigned K = 0; K < Bl.BlockBytes; ++K)
                std::printf(" %02x", Bl.Data[Blk * Bl.BlockBytes + K]);
              std::printf("\n");
            }
          } else {
            std::printf("  %s[%zu]: %u here, %u on the H200\n", Name.c_str(), I, O.V[I], Want[I]);
          }
        }
      }
    }
    if (Wrong) {
      std::printf("FAIL %s: %d of %zu values differ\n", Name.c_str(), Wrong, Want.size());
      ++Bad;
    }
  }
  for (auto &[Name, O] : Got) {
    (void)O;
    // Observed here but not on the H200: a case the recording lacks (a result it did not reach).
  }
  std::printf("array formats: %d cases, %s (%d mismatches)\n", Cases, Bad ? "FAIL" : "PASS", Bad);
  return Bad ? 1 : 0;
}

int main(int argc, char **argv) {
  cudaFree(nullptr); // the primary context, current for the driver calls too
  const BcFormat Bc[] = {
      {"bc1", CU_AD_FORMAT_BC1_UNORM, 8, 32, 32, 0},
      {"bc1_srgb", CU_AD_FORMAT_BC1_UNORM_SRGB, 8, 16, 16, 0},
      {"bc2", CU_AD_FORMAT_BC2_UNORM, 16, 32, 32, 0},
      {"bc2_srgb", CU_AD_FORMAT_BC2_UNORM_SRGB, 16, 16, 16, 0},
      {"bc3", CU_AD_FORMAT_BC3_UNORM, 16, 32, 32, 0},
      {"bc3_srgb", CU_AD_FORMAT_BC3_UNORM_SRGB, 16, 16, 16, 0},
      {"bc4u", CU_AD_FORMAT_BC4_UNORM, 8, 32, 32, 0},
      {"bc4s", CU_AD_FORMAT_BC4_SNORM, 8, 32, 32, 5e-5f}, // signed: within about one 16-bit step
      {"bc5u", CU_AD_FORMAT_BC5_UNORM, 16, 32, 32, 0},
      {"bc5s", CU_AD_FORMAT_BC5_SNORM, 16, 32, 32, 5e-5f},
      {"bc6h_uf16", CU_AD_FORMAT_BC6H_UF16, 16, 64, 32, 0},
      {"bc6h_sf16", CU_AD_FORMAT_BC6H_SF16, 16, 64, 32, 0},
      {"bc7", CU_AD_FORMAT_BC7_UNORM, 16, 64, 32, 0},
      {"bc7_srgb", CU_AD_FORMAT_BC7_UNORM_SRGB, 16, 32, 16, 0},
  };
  for (const BcFormat &B : Bc)
    bcFormat(B);
  const VideoFormat Video[] = {
      {"nv12", CU_AD_FORMAT_NV12},       {"p010", CU_AD_FORMAT_P010},       {"p016", CU_AD_FORMAT_P016},
      {"nv16", CU_AD_FORMAT_NV16},       {"p210", CU_AD_FORMAT_P210},       {"p216", CU_AD_FORMAT_P216},
      {"yuy2", CU_AD_FORMAT_YUY2},       {"y210", CU_AD_FORMAT_Y210},       {"y216", CU_AD_FORMAT_Y216},
      {"ayuv", CU_AD_FORMAT_AYUV},       {"y410", CU_AD_FORMAT_Y410},       {"y416", CU_AD_FORMAT_Y416},
      {"y444p8", CU_AD_FORMAT_Y444_PLANAR8}, {"y444p10", CU_AD_FORMAT_Y444_PLANAR10},
      {"yuv444sp8", CU_AD_FORMAT_YUV444_8bit_SemiPlanar}, {"yuv444sp16", CU_AD_FORMAT_YUV444_16bit_SemiPlanar},
      {"unorm101010_2", CU_AD_FORMAT_UNORM_INT_101010_2},
  };
  for (const VideoFormat &V : Video)
    videoFormat(V);
  runtimeKind<cudaChannelFormatKindNV12>("nv12", 16, 8);
  runtimeKind<cudaChannelFormatKindUnsignedBlockCompressed1>("bc1", 16, 8);
  runtimeKind<cudaChannelFormatKindUnsignedBlockCompressed4>("bc4u", 16, 8);
  runtimeKind<cudaChannelFormatKindSignedBlockCompressed5>("bc5s", 16, 8);
  runtimeKind<cudaChannelFormatKindUnsignedBlockCompressed6H>("bc6h_uf16", 16, 8);
  runtimeKind<cudaChannelFormatKindUnsignedBlockCompressed7SRGB>("bc7_srgb", 16, 8);
  runtimeKind<cudaChannelFormatKindUnsignedNormalized1010102>("unorm101010_2", 16, 8);

  if (argc > 2 && std::string(argv[1]) == "--record") {
    std::ofstream Out(argv[2]);
    for (auto &[Name, O] : Got) {
      Out << Name << (O.Floats ? " f" : " i");
      char Buf[16];
      for (uint32_t V : O.V) {
        std::snprintf(Buf, sizeof Buf, " %x", V);
        Out << Buf;
      }
      Out << "\n";
    }
    std::printf("recorded %zu cases: PASS\n", Got.size());
    return 0;
  }
  if (argc > 1)
    return check(argv[1]);
  std::printf("usage: %s [--record] FILE\n", argv[0]);
  return 1;
}
