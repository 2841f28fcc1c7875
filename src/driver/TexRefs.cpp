//===- TexRefs.cpp - texture and surface references ------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The legacy binding API (cuModuleGetTexRef, cuTexRefSet*,
/// cuModuleGetSurfRef, cuSurfRefSetArray) over texture and surface objects.
/// A .texref/.surfref variable of a module is 8 bytes that hold an object
/// handle; kernels load it where they name the reference. Every change to a
/// bound reference makes a new object from the reference's state and stores
/// its handle in the variable (a copy in stream order on the legacy stream,
/// as the program's own copies are).
#include "driver/Internal.h"

#include <cstring>

namespace zluda::driver {

void releaseTexRefs(Module &M) {
  for (auto &T : M.TexRefs) {
    for (uint64_t O : T->Objects)
      texObjectDestroy(O);
    removeLive(T.get());
  }
  M.TexRefs.clear();
}

namespace {

CUresult moduleRef(CUmodule H, const char *Name, bool Surface, TexRef *&Out) {
  Module *M = handle<Module>(H, Kind::Module);
  if (!M)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!Name)
    return CUDA_ERROR_INVALID_VALUE;
  for (auto &T : M->TexRefs)
    if (T->Name == Name && T->Surface == Surface) {
      Out = T.get();
      return CUDA_SUCCESS;
    }
  if (CUresult R = ensureCompiled(*M))
    return R;
  bool Found = false;
  for (const ModuleCode::Variable &V : M->Code->variables())
    Found |= V.Name == Name && V.Texref;
  if (!Found)
    return CUDA_ERROR_NOT_FOUND;
  auto T = std::make_unique<TexRef>();
  T->Mod = M;
  T->Name = Name;
  T->Surface = Surface;
  // CUDA's defaults: clamp, point filtering, unnormalized coordinates, reads
  // converted to float; one float channel for linear bindings.
  T->Tex.addressMode[0] = T->Tex.addressMode[1] = T->Tex.addressMode[2] = 1;
  T->Tex.maxMipmapLevelClamp = 1000;
  Out = T.get();
  addLive(Out, Kind::TexRef);
  M->TexRefs.push_back(std::move(T));
  return CUDA_SUCCESS;
}

/// Makes the object the reference's state describes and stores its handle in
/// the module's variable.
CUresult rebind(TexRef &T) {
  if (!T.Bound)
    return CUDA_SUCCESS;
  CUDA_RESOURCE_DESC Res = T.Res;
  if (Res.resType == CU_RESOURCE_TYPE_LINEAR) {
    Res.res.linear.format = T.Format;
    Res.res.linear.numChannels = T.Channels;
  }
  CUtexObject H = 0;
  if (CUresult R = T.Surface ? surfObjectCreate(&H, &Res) : texObjectCreate(&H, &Res, &T.Tex))
    return R;
  T.Objects.push_back(H);
  CUdeviceptr Var;
  size_t Size;
  if (CUresult R = moduleGlobal(T.Mod, &Var, &Size, T.Name.c_str()))
    return R;
  return memcpyChecked(reinterpret_cast<void *>(Var), &H, sizeof H);
}

TexRef *ref(const void *H) { return handle<TexRef>(H, Kind::TexRef); }

/// Applies \p Change to a reference and remakes its object.
template <typename F> CUresult update(const void *H, F Change) {
  TexRef *T = ref(H);
  if (!T)
    return CUDA_ERROR_INVALID_HANDLE;
  if (CUresult R = Change(*T))
    return R;
  return rebind(*T);
}

/// Reads a reference's state.
template <typename F> CUresult query(const void *H, const void *Out, F Read) {
  TexRef *T = ref(H);
  if (!T)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  return Read(*T);
}

bool validFormat(CUarray_format F) {
  switch (F) {
  case CU_AD_FORMAT_UNSIGNED_INT8:
  case CU_AD_FORMAT_UNSIGNED_INT16:
  case CU_AD_FORMAT_UNSIGNED_INT32:
  case CU_AD_FORMAT_SIGNED_INT8:
  case CU_AD_FORMAT_SIGNED_INT16:
  case CU_AD_FORMAT_SIGNED_INT32:
  case CU_AD_FORMAT_HALF:
  case CU_AD_FORMAT_FLOAT:
    return true;
  default:
    return false;
  }
}

} // namespace
} // namespace zluda::driver

using namespace zluda::driver;

ZLUDA_API(cuModuleGetTexRef, (void **Out, CUmodule M, const char *Name), (Out, M, Name)) {
  ZLUDA_GUARD({
    if (!Out)
      return CUDA_ERROR_INVALID_VALUE;
    TexRef *T;
    if (CUresult R = moduleRef(M, Name, false, T))
      return R;
    *Out = T;
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuModuleGetSurfRef, (void **Out, CUmodule M, const char *Name), (Out, M, Name)) {
  ZLUDA_GUARD({
    if (!Out)
      return CUDA_ERROR_INVALID_VALUE;
    TexRef *T;
    if (CUresult R = moduleRef(M, Name, true, T))
      return R;
    *Out = T;
    return CUDA_SUCCESS;
  });
}

// --- bindings ------------------------------------------------------------------------

ZLUDA_API(cuTexRefSetArray, (void *H, CUarray A, unsigned Flags), (H, A, Flags)) {
  ZLUDA_GUARD({
    return update(H, [&](TexRef &T) {
      if (!isLive(A, Kind::Array) || Flags > 1) // CU_TRSA_OVERRIDE_FORMAT
        return CUDA_ERROR_INVALID_VALUE;
      T.Res = {};
      T.Res.resType = CU_RESOURCE_TYPE_ARRAY;
      T.Res.res.array.hArray = A;
      T.Bound = true;
      return CUDA_SUCCESS;
    });
  });
}
ZLUDA_API(cuTexRefSetMipmappedArray, (void *H, CUmipmappedArray A, unsigned Flags), (H, A, Flags)) {
  ZLUDA_GUARD({
    return update(H, [&](TexRef &T) {
      if (!isLive(A, Kind::MipmappedArray) || Flags > 1)
        return CUDA_ERROR_INVALID_VALUE;
      T.Res = {};
      T.Res.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
      T.Res.res.mipmap.hMipmappedArray = A;
      T.Bound = true;
      return CUDA_SUCCESS;
    });
  });
}
ZLUDA_API(cuTexRefSetAddress_v2, (size_t *Offset, void *H, CUdeviceptr P, size_t Bytes), (Offset, H, P, Bytes)) {
  ZLUDA_GUARD({
    return update(H, [&](TexRef &T) {
      if (P == 0) { // unbinds
        T.Bound = false;
        return CUDA_SUCCESS;
      }
      if (!findAllocation(P, Bytes))
        return CUDA_ERROR_INVALID_VALUE;
      T.Res = {};
      T.Res.resType = CU_RESOURCE_TYPE_LINEAR;
      T.Res.res.linear.devPtr = P;
      T.Res.res.linear.sizeInBytes = Bytes;
      T.Bound = true;
      if (Offset)
        *Offset = 0; // the object addresses any byte: no alignment offset
      return CUDA_SUCCESS;
    });
  });
}
ZLUDA_API(cuTexRefSetAddress, (size_t *Offset, void *H, CUdeviceptr P, unsigned Bytes), (Offset, H, P, Bytes)) {
  return cuTexRefSetAddress_v2(Offset, H, P, Bytes);
}
ZLUDA_API(cuTexRefSetAddress2D_v3, (void *H, const CUDA_ARRAY_DESCRIPTOR *D, CUdeviceptr P, size_t Pitch),
          (H, D, P, Pitch)) {
  ZLUDA_GUARD({
    return update(H, [&](TexRef &T) {
      if (!D || !P || !validFormat(D->Format))
        return CUDA_ERROR_INVALID_VALUE;
      T.Res = {};
      T.Res.resType = CU_RESOURCE_TYPE_PITCH2D;
      T.Res.res.pitch2D.devPtr = P;
      T.Res.res.pitch2D.format = D->Format;
      T.Res.res.pitch2D.numChannels = D->NumChannels;
      T.Res.res.pitch2D.width = D->Width;
      T.Res.res.pitch2D.height = D->Height;
      T.Res.res.pitch2D.pitchInBytes = Pitch;
      T.Format = D->Format;
      T.Channels = D->NumChannels;
      T.Bound = true;
      return CUDA_SUCCESS;
    });
  });
}
ZLUDA_API(cuTexRefSetAddress2D_v2, (void *H, const CUDA_ARRAY_DESCRIPTOR *D, CUdeviceptr P, size_t Pitch),
          (H, D, P, Pitch)) {
  return cuTexRefSetAddress2D_v3(H, D, P, Pitch);
}
ZLUDA_API(cuSurfRefSetArray, (void *H, CUarray A, unsigned Flags), (H, A, Flags)) {
  ZLUDA_GUARD({
    return update(H, [&](TexRef &T) {
      if (!T.Surface || !isLive(A, Kind::Array) || Flags)
        return CUDA_ERROR_INVALID_VALUE;
      T.Res = {};
      T.Res.resType = CU_RESOURCE_TYPE_ARRAY;
      T.Res.res.array.hArray = A;
      T.Bound = true;
      return CUDA_SUCCESS;
    });
  });
}

// --- sampling state --------------------------------------------------------------------

ZLUDA_API(cuTexRefSetFormat, (void *H, CUarray_format F, int Channels), (H, F, Channels)) {
  ZLUDA_GUARD({
    return update(H, [&](TexRef &T) {
      if (!validFormat(F) || (Channels != 1 && Channels != 2 && Channels != 4))
        return CUDA_ERROR_INVALID_VALUE;
      T.Format = F;
      T.Channels = static_cast<unsigned>(Channels);
      return CUDA_SUCCESS;
    });
  });
}
ZLUDA_API(cuTexRefSetAddressMode, (void *H, int Dim, int Mode), (H, Dim, Mode)) {
  ZLUDA_GUARD({
    return update(H, [&](TexRef &T) {
      if (Dim < 0 || Dim > 2 || Mode < 0 || Mode > 3) // wrap, clamp, mirror, border
        return CUDA_ERROR_INVALID_VALUE;
      T.Tex.addressMode[Dim] = Mode;
      return CUDA_SUCCESS;
    });
  });
}
ZLUDA_API(cuTexRefSetFilterMode, (void *H, int Mode), (H, Mode)) {
  ZLUDA_GUARD({
    return update(H, [&](TexRef &T) {
      if (Mode != 0 && Mode != 1)
        return CUDA_ERROR_INVALID_VALUE;
      T.Tex.filterMode = Mode;
      return CUDA_SUCCESS;
    });
  });
}
ZLUDA_API(cuTexRefSetMipmapFilterMode, (void *H, int Mode), (H, Mode)) {
  ZLUDA_GUARD({
    return update(H, [&](TexRef &T) {
      if (Mode != 0 && Mode != 1)
        return CUDA_ERROR_INVALID_VALUE;
      T.Tex.mipmapFilterMode = Mode;
      return CUDA_SUCCESS;
    });
  });
}
ZLUDA_API(cuTexRefSetMipmapLevelBias, (void *H, float Bias), (H, Bias)) {
  ZLUDA_GUARD({ return update(H, [&](TexRef &T) { return T.Tex.mipmapLevelBias = Bias, CUDA_SUCCESS; }); });
}
ZLUDA_API(cuTexRefSetMipmapLevelClamp, (void *H, float Min, float Max), (H, Min, Max)) {
  ZLUDA_GUARD({
    return update(H, [&](TexRef &T) {
      T.Tex.minMipmapLevelClamp = Min;
      T.Tex.maxMipmapLevelClamp = Max;
      return CUDA_SUCCESS;
    });
  });
}
ZLUDA_API(cuTexRefSetMaxAnisotropy, (void *H, unsigned Max), (H, Max)) {
  ZLUDA_GUARD({ return update(H, [&](TexRef &T) { return T.Tex.maxAnisotropy = Max, CUDA_SUCCESS; }); });
}
ZLUDA_API(cuTexRefSetBorderColor, (void *H, float *Color), (H, Color)) {
  ZLUDA_GUARD({
    return update(H, [&](TexRef &T) {
      if (!Color)
        return CUDA_ERROR_INVALID_VALUE;
      std::memcpy(T.Tex.borderColor, Color, sizeof T.Tex.borderColor);
      return CUDA_SUCCESS;
    });
  });
}
ZLUDA_API(cuTexRefSetFlags, (void *H, unsigned Flags), (H, Flags)) {
  ZLUDA_GUARD({
    return update(H, [&](TexRef &T) {
      if (Flags & ~unsigned(CU_TRSF_READ_AS_INTEGER | CU_TRSF_NORMALIZED_COORDINATES | CU_TRSF_SRGB |
                            CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION | CU_TRSF_SEAMLESS_CUBEMAP))
        return CUDA_ERROR_INVALID_VALUE;
      T.Tex.flags = Flags;
      return CUDA_SUCCESS;
    });
  });
}

// --- queries ---------------------------------------------------------------------------

ZLUDA_API(cuTexRefGetAddress_v2, (CUdeviceptr *Out, void *H), (Out, H)) {
  return query(H, Out, [&](TexRef &T) {
    if (!T.Bound || (T.Res.resType != CU_RESOURCE_TYPE_LINEAR && T.Res.resType != CU_RESOURCE_TYPE_PITCH2D))
      return CUDA_ERROR_INVALID_VALUE;
    *Out = T.Res.resType == CU_RESOURCE_TYPE_LINEAR ? T.Res.res.linear.devPtr : T.Res.res.pitch2D.devPtr;
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuTexRefGetAddress, (CUdeviceptr *Out, void *H), (Out, H)) { return cuTexRefGetAddress_v2(Out, H); }
ZLUDA_API(cuTexRefGetArray, (CUarray *Out, void *H), (Out, H)) {
  return query(H, Out, [&](TexRef &T) {
    if (!T.Bound || T.Res.resType != CU_RESOURCE_TYPE_ARRAY)
      return CUDA_ERROR_INVALID_VALUE;
    *Out = T.Res.res.array.hArray;
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuSurfRefGetArray, (CUarray *Out, void *H), (Out, H)) { return cuTexRefGetArray(Out, H); }
ZLUDA_API(cuTexRefGetMipmappedArray, (CUmipmappedArray *Out, void *H), (Out, H)) {
  return query(H, Out, [&](TexRef &T) {
    if (!T.Bound || T.Res.resType != CU_RESOURCE_TYPE_MIPMAPPED_ARRAY)
      return CUDA_ERROR_INVALID_VALUE;
    *Out = T.Res.res.mipmap.hMipmappedArray;
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuTexRefGetAddressMode, (int *Out, void *H, int Dim), (Out, H, Dim)) {
  return query(H, Out, [&](TexRef &T) {
    if (Dim < 0 || Dim > 2)
      return CUDA_ERROR_INVALID_VALUE;
    *Out = T.Tex.addressMode[Dim];
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuTexRefGetFilterMode, (int *Out, void *H), (Out, H)) {
  return query(H, Out, [&](TexRef &T) { return *Out = T.Tex.filterMode, CUDA_SUCCESS; });
}
ZLUDA_API(cuTexRefGetMipmapFilterMode, (int *Out, void *H), (Out, H)) {
  return query(H, Out, [&](TexRef &T) { return *Out = T.Tex.mipmapFilterMode, CUDA_SUCCESS; });
}
ZLUDA_API(cuTexRefGetMipmapLevelBias, (float *Out, void *H), (Out, H)) {
  return query(H, Out, [&](TexRef &T) { return *Out = T.Tex.mipmapLevelBias, CUDA_SUCCESS; });
}
ZLUDA_API(cuTexRefGetMipmapLevelClamp, (float *Min, float *Max, void *H), (Min, Max, H)) {
  return query(H, Min, [&](TexRef &T) {
    if (!Max)
      return CUDA_ERROR_INVALID_VALUE;
    *Min = T.Tex.minMipmapLevelClamp;
    *Max = T.Tex.maxMipmapLevelClamp;
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuTexRefGetMaxAnisotropy, (int *Out, void *H), (Out, H)) {
  return query(H, Out, [&](TexRef &T) { return *Out = static_cast<int>(T.Tex.maxAnisotropy), CUDA_SUCCESS; });
}
ZLUDA_API(cuTexRefGetBorderColor, (float *Out, void *H), (Out, H)) {
  return query(H, Out, [&](TexRef &T) {
    std::memcpy(Out, T.Tex.borderColor, sizeof T.Tex.borderColor);
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuTexRefGetFlags, (unsigned *Out, void *H), (Out, H)) {
  return query(H, Out, [&](TexRef &T) { return *Out = T.Tex.flags, CUDA_SUCCESS; });
}
ZLUDA_API(cuTexRefGetFormat, (CUarray_format *Out, int *Channels, void *H), (Out, Channels, H)) {
  return query(H, Out, [&](TexRef &T) {
    *Out = T.Format;
    if (Channels)
      *Channels = static_cast<int>(T.Channels);
    return CUDA_SUCCESS;
  });
}
