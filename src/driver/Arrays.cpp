//===- Arrays.cpp - CUDA arrays, mipmapped arrays, surface objects --------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A CUDA array is device memory of the backend laid out as
/// ptx/codegen/TextureSampling.h reads it: packed rows, slices for depth or
/// layers (6 faces a cubemap layer), a mipmapped array's levels one after
/// another. Both backends sample textures and access surfaces in software
/// over that memory (the CPU device's executor, the AMDGPU device runtime),
/// so HIP's own arrays are not used. Copies to and from arrays are the
/// pitched copies of Memory.cpp with the array's geometry.
#include "driver/Internal.h"
#include "ptx/codegen/BlockCompression.h"

#include <cstring>

namespace zluda::driver {

bool formatInfo(CUarray_format F, unsigned &Bits, int &Kind, unsigned *FixedChannels) {
  if (F >= CU_AD_FORMAT_UNORM_INT8X1 && F <= CU_AD_FORMAT_SNORM_INT16X4) {
    // 0xc0 + 6 * signed + 3 * (16-bit) + {x1, x2, x4}
    unsigned I = F - CU_AD_FORMAT_UNORM_INT8X1;
    Kind = I < 6 ? 1 : 0;
    Bits = (I % 6) < 3 ? 8 : 16;
    if (FixedChannels)
      *FixedChannels = 1u << (I % 3);
    return true;
  }
  unsigned Fixed = 0;
  bool Known = true;
  if (ptx::bc::isBlockCompressed(F)) {
    // A texel's channels as the decoder returns them (BC6H: halves).
    bool Half = F == CU_AD_FORMAT_BC6H_UF16 || F == CU_AD_FORMAT_BC6H_SF16;
    Bits = Half ? 16 : 8;
    Kind = Half ? 3 : (F == CU_AD_FORMAT_BC4_SNORM || F == CU_AD_FORMAT_BC5_SNORM) ? 0 : 1;
    Fixed = ptx::bc::blockChannels(F);
  } else {
    switch (F) {
    case CU_AD_FORMAT_UNSIGNED_INT8: Bits = 8; Kind = 1; break;
    case CU_AD_FORMAT_UNSIGNED_INT16: Bits = 16; Kind = 1; break;
    case CU_AD_FORMAT_UNSIGNED_INT32: Bits = 32; Kind = 1; break;
    case CU_AD_FORMAT_SIGNED_INT8: Bits = 8; Kind = 0; break;
    case CU_AD_FORMAT_SIGNED_INT16: Bits = 16; Kind = 0; break;
    case CU_AD_FORMAT_SIGNED_INT32: Bits = 32; Kind = 0; break;
    case CU_AD_FORMAT_HALF: Bits = 16; Kind = 3; break;
    case CU_AD_FORMAT_FLOAT: Bits = 32; Kind = 2; break;
    // 10:10:10:2 in one 32-bit word (TextureSampling.h unpacks it).
    case CU_AD_FORMAT_UNORM_INT_101010_2: Bits = 8; Kind = 1; Fixed = 4; break;
    // Packed YUV: one element of the channels the descriptor says (the H200's
    // row sizes: YUY2 and AYUV 4 bytes, Y210/Y216 two 16-bit, Y410 one 32-bit, Y416 four 16-bit).
    case CU_AD_FORMAT_YUY2: case CU_AD_FORMAT_AYUV: Bits = 8; Kind = 1; Fixed = 4; break;
    case CU_AD_FORMAT_Y210: case CU_AD_FORMAT_Y216: Bits = 16; Kind = 1; Fixed = 2; break;
    case CU_AD_FORMAT_Y410: Bits = 32; Kind = 1; Fixed = 1; break;
    case CU_AD_FORMAT_Y416: Bits = 16; Kind = 1; Fixed = 4; break;
    default: Known = false;
    }
  }
  if (FixedChannels)
    *FixedChannels = Fixed;
  return Known;
}

bool videoFormat(CUarray_format F) { return (F >= CU_AD_FORMAT_P010 && F <= CU_AD_FORMAT_Y410) || (F >= CU_AD_FORMAT_NV12 && F <= CU_AD_FORMAT_YUV444_16bit_SemiPlanar); }

namespace {

/// The planes of a planar or semi-planar YUV format (none for the others):
/// each plane's format, channels and how its extents shrink (the H200's
/// cuArrayGetPlane: NV12's UV plane is half wide and half high, NV16's half wide).
struct Plane {
  CUarray_format Format;
  unsigned Channels, XShift, YShift;
};
unsigned planesOf(CUarray_format F, Plane Out[3]) {
  CUarray_format U8 = CU_AD_FORMAT_UNSIGNED_INT8, U16 = CU_AD_FORMAT_UNSIGNED_INT16;
  switch (F) {
  case CU_AD_FORMAT_NV12: Out[0] = {U8, 1, 0, 0}; Out[1] = {U8, 2, 1, 1}; return 2;
  case CU_AD_FORMAT_P010: case CU_AD_FORMAT_P016: Out[0] = {U16, 1, 0, 0}; Out[1] = {U16, 2, 1, 1}; return 2;
  case CU_AD_FORMAT_NV16: Out[0] = {U8, 1, 0, 0}; Out[1] = {U8, 2, 1, 0}; return 2;
  case CU_AD_FORMAT_P210: case CU_AD_FORMAT_P216: Out[0] = {U16, 1, 0, 0}; Out[1] = {U16, 2, 1, 0}; return 2;
  case CU_AD_FORMAT_YUV444_8bit_SemiPlanar: Out[0] = {U8, 1, 0, 0}; Out[1] = {U8, 2, 0, 0}; return 2;
  case CU_AD_FORMAT_YUV444_16bit_SemiPlanar: Out[0] = {U16, 1, 0, 0}; Out[1] = {U16, 2, 0, 0}; return 2;
  case CU_AD_FORMAT_Y444_PLANAR8: Out[0] = Out[1] = Out[2] = {U8, 1, 0, 0}; return 3;
  case CU_AD_FORMAT_Y444_PLANAR10: Out[0] = Out[1] = Out[2] = {U16, 1, 0, 0}; return 3;
  default: return 0;
  }
}

/// Checks a 3D descriptor as the Driver API reference states it (and as the
/// H200 answers for the block-compressed and YUV formats) and fills \p A's
/// geometry (level 0). Planes are not made here.
CUresult geometry(const CUDA_ARRAY3D_DESCRIPTOR &D, Array &A) {
  unsigned Bits = 8, Fixed = 0;
  int Kind = 1;
  Plane Planes[3];
  unsigned NumPlanes = planesOf(D.Format, Planes);
  bool Video = videoFormat(D.Format), Block = ptx::bc::isBlockCompressed(D.Format);
  if (!NumPlanes && !formatInfo(D.Format, Bits, Kind, &Fixed))
    return CUDA_ERROR_INVALID_VALUE;
  if (NumPlanes ? D.NumChannels != 3
                : Fixed ? D.NumChannels != Fixed : (D.NumChannels != 1 && D.NumChannels != 2 && D.NumChannels != 4))
    return CUDA_ERROR_INVALID_VALUE;
  unsigned Known = CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_CUBEMAP |
                   CUDA_ARRAY3D_TEXTURE_GATHER | CUDA_ARRAY3D_DEPTH_TEXTURE | CUDA_ARRAY3D_COLOR_ATTACHMENT |
                   CUDA_ARRAY3D_VIDEO_ENCODE_DECODE;
  if (D.Flags & (CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING))
    return notSupported("sparse and deferred-mapping CUDA arrays");
  if (D.Flags & ~Known)
    return CUDA_ERROR_INVALID_VALUE;
  if (D.Width == 0)
    return CUDA_ERROR_INVALID_VALUE;
  bool Layered = D.Flags & CUDA_ARRAY3D_LAYERED, Cube = D.Flags & CUDA_ARRAY3D_CUBEMAP;
  if (Cube && (D.Width != D.Height || (Layered ? D.Depth == 0 || D.Depth % 6 : D.Depth != 6)))
    return CUDA_ERROR_INVALID_VALUE;
  if (Layered && D.Depth == 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (D.Height == 0 && D.Depth && !Layered)
    return CUDA_ERROR_INVALID_VALUE; // 3D needs a height
  // YUV arrays: made for video (the flag), 2D or layered 2D, even extents.
  if (Video && (!(D.Flags & CUDA_ARRAY3D_VIDEO_ENCODE_DECODE) || D.Height == 0 || (D.Depth && !Layered) || Cube ||
                D.Width % 2 || D.Height % 2))
    return CUDA_ERROR_INVALID_VALUE;
  if (Block && D.Height == 0)
    return CUDA_ERROR_INVALID_VALUE; // no 1D block-compressed arrays
  if (Block && (D.Flags & CUDA_ARRAY3D_SURFACE_LDST))
    return CUDA_ERROR_NOT_SUPPORTED; // the H200's answer: no surfaces over compressed blocks
  constexpr size_t Max = size_t(1) << 20;
  if (D.Width > Max || D.Height > Max || D.Depth > Max)
    return CUDA_ERROR_INVALID_VALUE;
  A.Desc = D;
  A.BlockBytes = Block ? ptx::bc::blockBytes(D.Format) : 0;
  A.ElemBytes = Block ? A.BlockBytes : NumPlanes ? 0 : D.NumChannels * Bits / 8;
  A.Width = D.Width;
  A.Height = D.Height ? D.Height : 1;
  if (Layered || Cube) {
    A.Depth = 1;
    A.Layers = D.Depth;
  } else {
    A.Depth = D.Depth ? D.Depth : 1;
    A.Layers = 0;
  }
  A.Pitch = Block ? (A.Width + 3) / 4 * A.BlockBytes : A.Width * A.ElemBytes;
  A.Bytes = A.Pitch * A.rows() * A.slices();
  // Planar formats: the planes one after another (each a 2D array of its own format).
  for (unsigned P = 0; P < NumPlanes; ++P) {
    CUDA_ARRAY3D_DESCRIPTOR Pd{D.Width >> Planes[P].XShift, D.Height >> Planes[P].YShift, D.Depth,
                               Planes[P].Format, Planes[P].Channels, D.Flags};
    auto Pa = std::make_shared<Array>();
    if (CUresult R = geometry(Pd, *Pa))
      return R;
    Pa->Data = reinterpret_cast<void *>(A.Bytes); // an offset until the memory exists
    A.Bytes += Pa->Bytes;
    Pa->PlaneOf = &A;
    A.Planes.push_back(std::move(Pa));
  }
  return CUDA_SUCCESS;
}

/// Level \p L of an array whose level 0 is \p A (each extent halves, at least 1; layers stay).
Array levelGeometry(const Array &A, unsigned L) {
  Array R = A;
  for (unsigned K = 0; K < L; ++K) {
    R.Width = std::max<size_t>(1, R.Width / 2);
    if (R.Desc.Height)
      R.Height = std::max<size_t>(1, R.Height / 2);
    if (!R.Layers && R.Desc.Depth)
      R.Depth = std::max<size_t>(1, R.Depth / 2);
  }
  R.Desc.Width = R.Width;
  R.Desc.Height = R.Desc.Height ? R.Height : 0;
  R.Desc.Depth = R.Layers ? R.Desc.Depth : (R.Desc.Depth ? R.Depth : 0);
  R.Pitch = R.BlockBytes ? (R.Width + 3) / 4 * R.BlockBytes : R.Width * R.ElemBytes;
  R.Bytes = R.Pitch * R.rows() * R.slices();
  return R;
}

CUresult allocate(size_t Bytes, void *&Out) {
  if (CUresult R = backend().alloc(Bytes, CU_MEMORYTYPE_DEVICE, false, 0, Out))
    return R;
  // Fresh arrays read as zero (CUDA does not promise it; programs that read
  // before writing then behave the same on every run).
  return backend().fill(Out, 0, 1, Bytes, nullptr, false);
}

/// Publishes \p D under a new handle (the device address of its copy where
/// the backend reads descriptions from device memory).
CUresult publish(const ptx::TextureDesc &D, uint64_t &Out) {
  void *Device = nullptr;
  if (backend().props().TexturesInDeviceMemory) {
    if (CUresult R = backend().alloc(sizeof D, CU_MEMORYTYPE_DEVICE, false, 0, Device))
      return R;
    if (CUresult R = backend().copy(Device, &D, sizeof D, nullptr, false)) {
      backend().free(Device, CU_MEMORYTYPE_DEVICE, false);
      return R;
    }
  }
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  uint64_t H = Device ? reinterpret_cast<uint64_t>(Device) : S.NextTexture++;
  S.Textures[H] = Texture{D, Device};
  Out = H;
  return CUDA_SUCCESS;
}

} // namespace

CUresult arrayCreate(Array *&Out, const CUDA_ARRAY3D_DESCRIPTOR &D) {
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  auto A = std::make_unique<Array>();
  if (CUresult R = geometry(D, *A))
    return R;
  if (CUresult R = allocate(A->Bytes, A->Data))
    return R;
  A->Ctx = C;
  for (auto &P : A->Planes) {
    P->Data = static_cast<char *>(A->Data) + reinterpret_cast<uintptr_t>(P->Data);
    P->Ctx = C;
    addLive(P.get(), Kind::Array);
  }
  Out = A.release();
  addLive(Out, Kind::Array);
  return CUDA_SUCCESS;
}

CUresult arrayDestroy(Array *A) {
  if (!isLive(A, Kind::Array) || A->Parent)
    return CUDA_ERROR_INVALID_HANDLE;
  if (A->PlaneOf)
    return CUDA_SUCCESS; // a plane lives as long as its array (the H200 answers success too)
  removeLive(A);
  for (auto &P : A->Planes)
    removeLive(P.get());
  backend().free(A->Data, CU_MEMORYTYPE_DEVICE, false);
  delete A;
  return CUDA_SUCCESS;
}

CUresult mipmappedArrayCreate(MipmappedArray *&Out, const CUDA_ARRAY3D_DESCRIPTOR &D, unsigned Levels) {
  Context *C;
  if (CUresult R = requireContext(C))
    return R;
  Array Base;
  if (CUresult R = geometry(D, Base))
    return R;
  if (!Base.Planes.empty() || videoFormat(D.Format))
    return CUDA_ERROR_INVALID_VALUE;
  size_t Largest = std::max({Base.Width, Base.Desc.Height, Base.Layers ? size_t(0) : Base.Desc.Depth});
  unsigned Full = 1;
  while ((Largest >> Full) > 0)
    ++Full;
  if (Levels == 0 || Levels > Full)
    return CUDA_ERROR_INVALID_VALUE;
  auto M = std::make_unique<MipmappedArray>();
  M->Desc = D;
  M->Levels = Levels;
  M->Ctx = C;
  size_t Offset = 0;
  for (unsigned L = 0; L < Levels; ++L) {
    auto A = std::make_unique<Array>(levelGeometry(Base, L));
    A->Data = reinterpret_cast<void *>(Offset); // made an address below
    Offset += A->Bytes;
    A->Ctx = C;
    A->Parent = M.get();
    M->LevelArrays.push_back(std::move(A));
  }
  M->Bytes = Offset;
  if (CUresult R = allocate(M->Bytes, M->Data))
    return R;
  for (auto &A : M->LevelArrays) {
    A->Data = static_cast<char *>(M->Data) + reinterpret_cast<uintptr_t>(A->Data);
    addLive(A.get(), Kind::Array);
  }
  Out = M.release();
  addLive(Out, Kind::MipmappedArray);
  return CUDA_SUCCESS;
}

CUresult mipmappedArrayDestroy(MipmappedArray *M) {
  if (!isLive(M, Kind::MipmappedArray))
    return CUDA_ERROR_INVALID_HANDLE;
  removeLive(M);
  for (auto &A : M->LevelArrays)
    removeLive(A.get());
  backend().free(M->Data, CU_MEMORYTYPE_DEVICE, false);
  delete M;
  return CUDA_SUCCESS;
}

CUresult resourceDesc(const CUDA_RESOURCE_DESC &Res, ptx::TextureDesc &D) {
  CUarray_format Fmt;
  unsigned Channels;
  const Array *A = nullptr;
  const MipmappedArray *M = nullptr;
  switch (Res.resType) {
  case CU_RESOURCE_TYPE_LINEAR:
    D.Data = Res.res.linear.devPtr;
    Fmt = Res.res.linear.format;
    Channels = Res.res.linear.numChannels;
    break;
  case CU_RESOURCE_TYPE_PITCH2D:
    D.Data = Res.res.pitch2D.devPtr;
    Fmt = Res.res.pitch2D.format;
    Channels = Res.res.pitch2D.numChannels;
    D.Width = static_cast<uint32_t>(Res.res.pitch2D.width);
    D.Height = static_cast<uint32_t>(Res.res.pitch2D.height);
    D.Pitch = Res.res.pitch2D.pitchInBytes;
    D.Dims = 2;
    break;
  case CU_RESOURCE_TYPE_ARRAY:
    if (!isLive(Res.res.array.hArray, Kind::Array))
      return CUDA_ERROR_INVALID_HANDLE;
    A = reinterpret_cast<const Array *>(Res.res.array.hArray);
    Fmt = A->Desc.Format;
    Channels = A->Desc.NumChannels;
    break;
  case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
    if (!isLive(Res.res.mipmap.hMipmappedArray, Kind::MipmappedArray))
      return CUDA_ERROR_INVALID_HANDLE;
    M = reinterpret_cast<const MipmappedArray *>(Res.res.mipmap.hMipmappedArray);
    A = M->LevelArrays[0].get();
    Fmt = A->Desc.Format;
    Channels = A->Desc.NumChannels;
    break;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
  unsigned Bits, Fixed;
  int K;
  if (!formatInfo(Fmt, Bits, K, &Fixed))
    return CUDA_ERROR_INVALID_VALUE; // a planar YUV array: textures go over its planes
  if (Fixed ? Channels != Fixed : (Channels != 1 && Channels != 2 && Channels != 4))
    return CUDA_ERROR_INVALID_VALUE;
  if (ptx::bc::isBlockCompressed(Fmt) && !A)
    return CUDA_ERROR_INVALID_VALUE; // compressed blocks only in CUDA arrays
  // Block-compressed texels decode to four channels (the missing ones 0, alpha 1).
  D.Channels = ptx::bc::isBlockCompressed(Fmt) ? 4 : Channels;
  D.ChannelBits = Bits;
  D.ChannelKind = K;
  D.Format = Fmt;
  if (A) {
    D.Data = reinterpret_cast<uint64_t>(A->Data);
    D.Pitch = A->Pitch;
    D.Width = static_cast<uint32_t>(A->Width);
    D.Height = static_cast<uint32_t>(A->Height);
    D.Depth = static_cast<uint32_t>(A->Depth);
    D.Layers = static_cast<uint32_t>(A->Layers);
    D.Cubemap = (A->Desc.Flags & CUDA_ARRAY3D_CUBEMAP) != 0;
    D.Dims = !A->Desc.Height ? 1 : (!A->Desc.Depth || A->Layers) ? 2 : 3;
    if (M) {
      D.NumLevels = M->Levels;
      D.Pitch = 0; // levels are packed
    }
  } else if (Res.resType == CU_RESOURCE_TYPE_LINEAR) {
    D.Dims = 1;
    D.Width = static_cast<uint32_t>(Res.res.linear.sizeInBytes / (uint64_t(Channels) * Bits / 8));
  }
  if (!D.Data)
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

CUresult surfObjectCreate(CUsurfObject *Out, const CUDA_RESOURCE_DESC *Res) {
  if (!Out || !Res)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = requireInit())
    return R;
  // A surface is a CUDA array made with CUDA_ARRAY3D_SURFACE_LDST.
  if (Res->resType != CU_RESOURCE_TYPE_ARRAY)
    return CUDA_ERROR_INVALID_VALUE;
  if (!isLive(Res->res.array.hArray, Kind::Array))
    return CUDA_ERROR_INVALID_HANDLE;
  if (!(reinterpret_cast<const Array *>(Res->res.array.hArray)->Desc.Flags & CUDA_ARRAY3D_SURFACE_LDST))
    return CUDA_ERROR_INVALID_VALUE;
  ptx::TextureDesc D;
  if (CUresult R = resourceDesc(*Res, D))
    return R;
  uint64_t H;
  if (CUresult R = publish(D, H))
    return R;
  *Out = H;
  return CUDA_SUCCESS;
}

CUresult surfObjectDestroy(CUsurfObject S) { return texObjectDestroy(S); }

/// Texture objects: the resource's description plus the sampling state.
CUresult texObjectCreate(CUtexObject *Out, const CUDA_RESOURCE_DESC *Res, const CUDA_TEXTURE_DESC *Tex) {
  ZLUDA_GUARD({
    if (!Out || !Res || !Tex)
      return CUDA_ERROR_INVALID_VALUE;
    if (!backend().props().Textures)
      return notSupported("texture objects on this device");
    ptx::TextureDesc D;
    if (CUresult R = resourceDesc(*Res, D))
      return R;
    // As the H200 answers: no textures over packed YUV arrays; the sRGB
    // block-compressed formats only with CU_TRSF_SRGB.
    if (videoFormat(static_cast<CUarray_format>(D.Format)))
      return CUDA_ERROR_INVALID_VALUE;
    bool SrgbFormat = D.Format == CU_AD_FORMAT_BC1_UNORM_SRGB || D.Format == CU_AD_FORMAT_BC2_UNORM_SRGB ||
                      D.Format == CU_AD_FORMAT_BC3_UNORM_SRGB || D.Format == CU_AD_FORMAT_BC7_UNORM_SRGB;
    if (SrgbFormat && !(Tex->flags & CU_TRSF_SRGB))
      return CUDA_ERROR_INVALID_VALUE;
    for (int I = 0; I < 3; ++I)
      D.AddressMode[I] = Tex->addressMode[I] == 0 ? 0 : Tex->addressMode[I] == 2 ? 2 : Tex->addressMode[I] == 3 ? 3 : 1;
    D.LinearFilter = Tex->filterMode == 1;
    D.NormalizedCoords = (Tex->flags & CU_TRSF_NORMALIZED_COORDINATES) != 0;
    // The normalized-integer formats read as floats whatever the flags say;
    // 32-bit integers are never promoted, flag or not (CU_TRSF_READ_AS_INTEGER's
    // documentation; NVIDIA's stereoDisparity sample reads them so).
    unsigned Bits, Fixed;
    int Kind;
    formatInfo(static_cast<CUarray_format>(D.Format), Bits, Kind, &Fixed);
    D.ReadNormalizedFloat =
        (Fixed || (!(Tex->flags & CU_TRSF_READ_AS_INTEGER) && D.ChannelBits < 32)) && D.ChannelKind < 2;
    D.Srgb = (Tex->flags & CU_TRSF_SRGB) && D.ChannelBits == 8 && D.ChannelKind == 1;
    for (int I = 0; I < 4; ++I)
      D.BorderColor[I] = Tex->borderColor[I];
    D.MipLinear = Tex->mipmapFilterMode == 1;
    D.LevelBias = Tex->mipmapLevelBias;
    D.MinLevel = Tex->minMipmapLevelClamp;
    D.MaxLevel = D.NumLevels > 1 ? Tex->maxMipmapLevelClamp : 0;
    // Integer reads cannot be filtered (CUDA refuses linear filtering of them).
    if (D.LinearFilter && D.ChannelKind < 2 && !D.ReadNormalizedFloat)
      return CUDA_ERROR_INVALID_VALUE;
    uint64_t H;
    if (CUresult R = publish(D, H))
      return R;
    *Out = H;
    return CUDA_SUCCESS;
  });
}

/// The array a copy endpoint names, or null.
const Array *arrayOf(CUarray H) { return isLive(H, Kind::Array) ? reinterpret_cast<const Array *>(H) : nullptr; }

} // namespace zluda::driver

using namespace zluda::driver;

ZLUDA_API(cuArrayCreate_v2, (CUarray * Out, const CUDA_ARRAY_DESCRIPTOR *D), (Out, D)) {
  ZLUDA_GUARD({
    if (!Out || !D)
      return CUDA_ERROR_INVALID_VALUE;
    CUDA_ARRAY3D_DESCRIPTOR D3{D->Width, D->Height, 0, D->Format, D->NumChannels, 0};
    Array *A;
    if (CUresult R = arrayCreate(A, D3))
      return R;
    *Out = reinterpret_cast<CUarray>(A);
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuArray3DCreate_v2, (CUarray * Out, const CUDA_ARRAY3D_DESCRIPTOR *D), (Out, D)) {
  ZLUDA_GUARD({
    if (!Out || !D)
      return CUDA_ERROR_INVALID_VALUE;
    Array *A;
    if (CUresult R = arrayCreate(A, *D))
      return R;
    *Out = reinterpret_cast<CUarray>(A);
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuArrayDestroy, (CUarray A), (A)) {
  ZLUDA_GUARD({ return arrayDestroy(reinterpret_cast<Array *>(A)); });
}
ZLUDA_API(cuArrayGetDescriptor_v2, (CUDA_ARRAY_DESCRIPTOR * Out, CUarray H), (Out, H)) {
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  const Array *A = arrayOf(H);
  if (!A)
    return CUDA_ERROR_INVALID_HANDLE;
  *Out = CUDA_ARRAY_DESCRIPTOR{A->Desc.Width, A->Desc.Height, A->Desc.Format, A->Desc.NumChannels};
  return CUDA_SUCCESS;
}
ZLUDA_API(cuArray3DGetDescriptor_v2, (CUDA_ARRAY3D_DESCRIPTOR * Out, CUarray H), (Out, H)) {
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  const Array *A = arrayOf(H);
  if (!A)
    return CUDA_ERROR_INVALID_HANDLE;
  *Out = A->Desc;
  return CUDA_SUCCESS;
}
ZLUDA_API(cuMipmappedArrayCreate, (CUmipmappedArray * Out, const CUDA_ARRAY3D_DESCRIPTOR *D, unsigned Levels),
          (Out, D, Levels)) {
  ZLUDA_GUARD({
    if (!Out || !D)
      return CUDA_ERROR_INVALID_VALUE;
    MipmappedArray *M;
    if (CUresult R = mipmappedArrayCreate(M, *D, Levels))
      return R;
    *Out = reinterpret_cast<CUmipmappedArray>(M);
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuMipmappedArrayDestroy, (CUmipmappedArray M), (M)) {
  ZLUDA_GUARD({ return mipmappedArrayDestroy(reinterpret_cast<MipmappedArray *>(M)); });
}
ZLUDA_API(cuArrayGetPlane, (CUarray * Out, CUarray H, unsigned Plane), (Out, H, Plane)) {
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  const Array *A = arrayOf(H);
  if (!A)
    return CUDA_ERROR_INVALID_HANDLE;
  if (Plane >= A->Planes.size())
    return CUDA_ERROR_INVALID_VALUE;
  *Out = reinterpret_cast<CUarray>(A->Planes[Plane].get());
  return CUDA_SUCCESS;
}
ZLUDA_API(cuMipmappedArrayGetLevel, (CUarray * Out, CUmipmappedArray H, unsigned Level), (Out, H, Level)) {
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  if (!isLive(H, Kind::MipmappedArray))
    return CUDA_ERROR_INVALID_HANDLE;
  auto *M = reinterpret_cast<MipmappedArray *>(H);
  if (Level >= M->Levels)
    return CUDA_ERROR_INVALID_VALUE;
  *Out = reinterpret_cast<CUarray>(M->LevelArrays[Level].get());
  return CUDA_SUCCESS;
}

ZLUDA_API(cuSurfObjectCreate, (CUsurfObject * Out, const CUDA_RESOURCE_DESC *Res), (Out, Res)) {
  ZLUDA_GUARD({ return surfObjectCreate(Out, Res); });
}
ZLUDA_API(cuSurfObjectDestroy, (CUsurfObject S), (S)) { ZLUDA_GUARD({ return surfObjectDestroy(S); }); }

// --- copies between arrays and linear memory (offsets in bytes of the packed layout) ---

namespace {
CUresult linearCopy(void *Dst, const void *Src, size_t Bytes, CUstream S, bool Async) {
  return memcpyChecked(Dst, Src, Bytes, S, Async);
}
char *arrayBytes(CUarray H, size_t Offset, size_t Bytes) {
  const Array *A = arrayOf(H);
  if (!A || Offset > A->Bytes || Bytes > A->Bytes - Offset || !A->Planes.empty())
    return nullptr;
  if (A->BlockBytes && (Offset % A->BlockBytes || Bytes % A->BlockBytes))
    return nullptr; // whole blocks only
  return static_cast<char *>(A->Data) + Offset;
}
} // namespace

ZLUDA_API(cuMemcpyHtoA_v2, (CUarray Dst, size_t Off, const void *Src, size_t N), (Dst, Off, Src, N)) {
  ZLUDA_GUARD({
    char *D = arrayBytes(Dst, Off, N);
    return D ? linearCopy(D, Src, N, nullptr, false) : CUDA_ERROR_INVALID_VALUE;
  });
}
ZLUDA_API(cuMemcpyHtoA_v2_ptds, (CUarray Dst, size_t Off, const void *Src, size_t N), (Dst, Off, Src, N)) {
  return cuMemcpyHtoA_v2(Dst, Off, Src, N);
}
ZLUDA_API(cuMemcpyHtoAAsync_v2, (CUarray Dst, size_t Off, const void *Src, size_t N, CUstream S), (Dst, Off, Src, N, S)) {
  ZLUDA_GUARD({
    if (CUresult R = streamCheck(S))
      return R;
    char *D = arrayBytes(Dst, Off, N);
    return D ? linearCopy(D, Src, N, S, true) : CUDA_ERROR_INVALID_VALUE;
  });
}
ZLUDA_API(cuMemcpyHtoAAsync_v2_ptsz, (CUarray Dst, size_t Off, const void *Src, size_t N, CUstream S),
          (Dst, Off, Src, N, S)) {
  return cuMemcpyHtoAAsync_v2(Dst, Off, Src, N, ptsz(S));
}
ZLUDA_API(cuMemcpyAtoH_v2, (void *Dst, CUarray Src, size_t Off, size_t N), (Dst, Src, Off, N)) {
  ZLUDA_GUARD({
    char *S = arrayBytes(Src, Off, N);
    return S ? linearCopy(Dst, S, N, nullptr, false) : CUDA_ERROR_INVALID_VALUE;
  });
}
ZLUDA_API(cuMemcpyAtoH_v2_ptds, (void *Dst, CUarray Src, size_t Off, size_t N), (Dst, Src, Off, N)) {
  return cuMemcpyAtoH_v2(Dst, Src, Off, N);
}
ZLUDA_API(cuMemcpyAtoHAsync_v2, (void *Dst, CUarray Src, size_t Off, size_t N, CUstream St), (Dst, Src, Off, N, St)) {
  ZLUDA_GUARD({
    if (CUresult R = streamCheck(St))
      return R;
    char *S = arrayBytes(Src, Off, N);
    return S ? linearCopy(Dst, S, N, St, true) : CUDA_ERROR_INVALID_VALUE;
  });
}
ZLUDA_API(cuMemcpyAtoHAsync_v2_ptsz, (void *Dst, CUarray Src, size_t Off, size_t N, CUstream St),
          (Dst, Src, Off, N, St)) {
  return cuMemcpyAtoHAsync_v2(Dst, Src, Off, N, ptsz(St));
}
ZLUDA_API(cuMemcpyDtoA_v2, (CUarray Dst, size_t Off, CUdeviceptr Src, size_t N), (Dst, Off, Src, N)) {
  ZLUDA_GUARD({
    char *D = arrayBytes(Dst, Off, N);
    return D ? linearCopy(D, reinterpret_cast<const void *>(Src), N, nullptr, false) : CUDA_ERROR_INVALID_VALUE;
  });
}
ZLUDA_API(cuMemcpyDtoA_v2_ptds, (CUarray Dst, size_t Off, CUdeviceptr Src, size_t N), (Dst, Off, Src, N)) {
  return cuMemcpyDtoA_v2(Dst, Off, Src, N);
}
ZLUDA_API(cuMemcpyAtoD_v2, (CUdeviceptr Dst, CUarray Src, size_t Off, size_t N), (Dst, Src, Off, N)) {
  ZLUDA_GUARD({
    char *S = arrayBytes(Src, Off, N);
    return S ? linearCopy(reinterpret_cast<void *>(Dst), S, N, nullptr, false) : CUDA_ERROR_INVALID_VALUE;
  });
}
ZLUDA_API(cuMemcpyAtoD_v2_ptds, (CUdeviceptr Dst, CUarray Src, size_t Off, size_t N), (Dst, Src, Off, N)) {
  return cuMemcpyAtoD_v2(Dst, Src, Off, N);
}
ZLUDA_API(cuMemcpyAtoA_v2, (CUarray Dst, size_t DOff, CUarray Src, size_t SOff, size_t N), (Dst, DOff, Src, SOff, N)) {
  ZLUDA_GUARD({
    char *D = arrayBytes(Dst, DOff, N), *S = arrayBytes(Src, SOff, N);
    return D && S ? linearCopy(D, S, N, nullptr, false) : CUDA_ERROR_INVALID_VALUE;
  });
}
ZLUDA_API(cuMemcpyAtoA_v2_ptds, (CUarray Dst, size_t DOff, CUarray Src, size_t SOff, size_t N),
          (Dst, DOff, Src, SOff, N)) {
  return cuMemcpyAtoA_v2(Dst, DOff, Src, SOff, N);
}
