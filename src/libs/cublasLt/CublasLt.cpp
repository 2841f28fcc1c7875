//===- CublasLt.cpp - our cuBLASLt: descriptors, heuristics, matmul --------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file cublasLtMatmul as our libcublas's strided-batched GemmEx plus an
/// epilogue, in stream order on the CPU device. Descriptors are plain structs
/// inside NVIDIA's opaque sizes (programs may allocate those and call the
/// ...Init functions), marked with a tag so a stray pointer is refused.
/// Row-major operands are column-major ones transposed: op(A) flips its
/// transpose; a row-major D is computed as D^T = op(B)^T op(A)^T.
/// Heuristics return the one algorithm there is on the CPU device (OpenBLAS),
/// with the workspace it needs (none). On AMD GPUs the matmul and its
/// heuristics go to hipBLASLt where it loads (HipBlasLt.h: descriptors
/// rebuilt per call, epilogues on the GPU, its algorithms returned by the
/// heuristic query); without it the GEMM goes through libcublas (rocBLAS)
/// and epilogues return CUBLAS_STATUS_NOT_SUPPORTED.
#include "libs/common/Half.h"
#include "libs/common/LibSupport.h"
#include "libs/cublas/Cublas.h"
#include "libs/cublasLt/HipBlasLt.h"
#include "zluda/cublasLt_abi.h"

#include "common/Log.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#define LT_API extern "C" __attribute__((visibility("default")))

void *zludaNativeStream(CUstream S); // src/driver/Driver.cpp: the HIP stream under a CUstream

extern "C" {
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *, CUstream);
cublasStatus_t cublasCreate_v2(cublasHandle_t *);
cublasStatus_t cublasDestroy_v2(cublasHandle_t);
cublasStatus_t cublasSetStream_v2(cublasHandle_t, CUstream);
cublasStatus_t cublasGetStream_v2(cublasHandle_t, CUstream *);
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t, cublasPointerMode_t);
const char *cublasGetStatusName(cublasStatus_t);
const char *cublasGetStatusString(cublasStatus_t);
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t, int64_t,
                                          int64_t, const void *, const void *, cudaDataType, int64_t, long long,
                                          const void *, cudaDataType, int64_t, long long, const void *, void *,
                                          cudaDataType, int64_t, long long, int64_t, int, int) asm(
    "cublasGemmStridedBatchedEx_64");
}

namespace zluda::cublaslt {
namespace libs = zluda::libs;
namespace {

constexpr uint32_t LayoutTag = 0x4c61796fu, DescTag = 0x4d446573u, PrefTag = 0x50726566u, TransformTag = 0x54726e73u;

struct Layout {
  uint32_t Tag;
  int32_t Type;
  int32_t Order;
  int32_t Batch;
  uint64_t Rows, Cols;
  int64_t Ld, Stride, Plane;
};
struct Desc {
  uint32_t Tag;
  int32_t Compute, Scale, PointerMode, TransA, TransB, TransC, Fill;
  uint32_t Epilogue;
  int32_t BiasType, AuxType, SmCount;
  int8_t FastAccum;
  const void *Bias;
  int64_t BiasStride;
  void *Aux;
  int64_t AuxLd, AuxStride, AlphaVectorStride;
  const void *ScalePtrs[5]; ///< A, B, C, D scales and amax D (accepted, applied only when null)
};
struct Pref {
  uint32_t Tag, Search, Reduction, Align[4];
  float Waves;
  uint64_t MaxWorkspace, Impl;
};
struct Transform {
  uint32_t Tag;
  int32_t Scale, PointerMode, TransA, TransB;
};
static_assert(sizeof(Layout) <= sizeof(cublasLtMatrixLayoutOpaque_t) && sizeof(Desc) <= sizeof(cublasLtMatmulDescOpaque_t) &&
                  sizeof(Pref) <= sizeof(cublasLtMatmulPreferenceOpaque_t) &&
                  sizeof(Transform) <= sizeof(cublasLtMatrixTransformDescOpaque_t),
              "our descriptors fit NVIDIA's opaque storage");

template <typename T> T *tagged(void *P, uint32_t Tag) {
  return P && static_cast<T *>(P)->Tag == Tag ? static_cast<T *>(P) : nullptr;
}

struct Handle {
  cublasHandle_t Blas = nullptr;
  std::mutex Mu; ///< the cuBLAS handle's stream and pointer mode are per call
  libs::Retained Kept;
  void *Hip = nullptr; ///< the hipBLASLt handle (AMD GPUs), made at the first call that needs it
};
/// The Lt context \p H names, or null. A live cuBLAS handle is an Lt handle too: PyTorch passes its cuBLAS handle
/// cast to cublasLtHandle_t (NVIDIA's libraries share one context type). Such a handle gets an Lt context of
/// its own, made at its first use and kept for the process (its own cuBLAS handle, so the caller's stream and
/// pointer mode are never touched).
/// Whether \p H is a live handle of our libcublas (its registry answers; nothing is read through \p H).
bool liveBlasHandle(cublasLtHandle_t H) {
  CUstream Unused;
  return H && cublasGetStream_v2(reinterpret_cast<cublasHandle_t>(H), &Unused) == CUBLAS_STATUS_SUCCESS;
}
Handle *handleOf(cublasLtHandle_t H) {
  if (!H)
    return nullptr;
  if (liveBlasHandle(H)) {
    static std::mutex Mu;
    static std::unordered_map<const void *, Handle *> *OfBlas = new std::unordered_map<const void *, Handle *>;
    std::lock_guard<std::mutex> G(Mu);
    Handle *&Own = (*OfBlas)[H];
    if (!Own) {
      auto *New = new Handle;
      if (cublasCreate_v2(&New->Blas) != CUBLAS_STATUS_SUCCESS) {
        delete New;
        OfBlas->erase(H);
        return nullptr;
      }
      Own = New;
    }
    return Own;
  }
  return zluda::libs::Live<Handle>::find(H);
}

// --- attributes: each an offset and a size in its descriptor -----------------------------

struct Field {
  size_t Offset, Size;
};
#define F(S, M) Field{offsetof(S, M), sizeof(S::M)}
bool layoutField(int A, Field &Out) {
  switch (A) {
  case CUBLASLT_MATRIX_LAYOUT_TYPE: Out = F(Layout, Type); return true;
  case CUBLASLT_MATRIX_LAYOUT_ORDER: Out = F(Layout, Order); return true;
  case CUBLASLT_MATRIX_LAYOUT_ROWS: Out = F(Layout, Rows); return true;
  case CUBLASLT_MATRIX_LAYOUT_COLS: Out = F(Layout, Cols); return true;
  case CUBLASLT_MATRIX_LAYOUT_LD: Out = F(Layout, Ld); return true;
  case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: Out = F(Layout, Batch); return true;
  case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: Out = F(Layout, Stride); return true;
  case CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET: Out = F(Layout, Plane); return true;
  default: return false;
  }
}
bool descField(int A, Field &Out) {
  switch (A) {
  case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE: Out = F(Desc, Compute); return true;
  case CUBLASLT_MATMUL_DESC_SCALE_TYPE: Out = F(Desc, Scale); return true;
  case CUBLASLT_MATMUL_DESC_POINTER_MODE: Out = F(Desc, PointerMode); return true;
  case CUBLASLT_MATMUL_DESC_TRANSA: Out = F(Desc, TransA); return true;
  case CUBLASLT_MATMUL_DESC_TRANSB: Out = F(Desc, TransB); return true;
  case CUBLASLT_MATMUL_DESC_TRANSC: Out = F(Desc, TransC); return true;
  case CUBLASLT_MATMUL_DESC_FILL_MODE: Out = F(Desc, Fill); return true;
  case CUBLASLT_MATMUL_DESC_EPILOGUE: Out = F(Desc, Epilogue); return true;
  case CUBLASLT_MATMUL_DESC_BIAS_POINTER: Out = F(Desc, Bias); return true;
  case CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE: Out = F(Desc, BiasStride); return true;
  case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER: Out = F(Desc, Aux); return true;
  case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD: Out = F(Desc, AuxLd); return true;
  case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE: Out = F(Desc, AuxStride); return true;
  case CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE: Out = F(Desc, AlphaVectorStride); return true;
  case CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET: Out = F(Desc, SmCount); return true;
  case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE: Out = F(Desc, AuxType); return true;
  case CUBLASLT_MATMUL_DESC_FAST_ACCUM: Out = F(Desc, FastAccum); return true;
  case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE: Out = F(Desc, BiasType); return true;
  case CUBLASLT_MATMUL_DESC_A_SCALE_POINTER:
  case CUBLASLT_MATMUL_DESC_B_SCALE_POINTER:
  case CUBLASLT_MATMUL_DESC_C_SCALE_POINTER:
  case CUBLASLT_MATMUL_DESC_D_SCALE_POINTER:
  case CUBLASLT_MATMUL_DESC_AMAX_D_POINTER: {
    int I = A == CUBLASLT_MATMUL_DESC_AMAX_D_POINTER ? 4 : A - CUBLASLT_MATMUL_DESC_A_SCALE_POINTER;
    Out = Field{offsetof(Desc, ScalePtrs) + I * sizeof(void *), sizeof(void *)};
    return true;
  }
  default: return false;
  }
}
bool prefField(int A, Field &Out) {
  switch (A) {
  case CUBLASLT_MATMUL_PREF_SEARCH_MODE: Out = F(Pref, Search); return true;
  case CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES: Out = F(Pref, MaxWorkspace); return true;
  case CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK: Out = F(Pref, Reduction); return true;
  case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES:
  case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES:
  case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES:
  case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES:
    Out = Field{offsetof(Pref, Align) + (A - CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES) * 4, 4};
    return true;
  case CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT: Out = F(Pref, Waves); return true;
  case CUBLASLT_MATMUL_PREF_IMPL_MASK: Out = F(Pref, Impl); return true;
  default: return false;
  }
}
bool transformField(int A, Field &Out) {
  switch (A) {
  case CUBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE: Out = F(Transform, Scale); return true;
  case CUBLASLT_MATRIX_TRANSFORM_DESC_POINTER_MODE: Out = F(Transform, PointerMode); return true;
  case CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA: Out = F(Transform, TransA); return true;
  case CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSB: Out = F(Transform, TransB); return true;
  default: return false;
  }
}
#undef F

template <typename FieldFn>
cublasStatus_t setAttr(void *Obj, FieldFn Find, int Attr, const void *Buf, size_t Size) {
  Field Fd;
  if (!Obj || !Find(Attr, Fd) || !Buf || Size != Fd.Size)
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(static_cast<char *>(Obj) + Fd.Offset, Buf, Size);
  return CUBLAS_STATUS_SUCCESS;
}
template <typename FieldFn>
cublasStatus_t getAttr(const void *Obj, FieldFn Find, int Attr, void *Buf, size_t Size, size_t *Written) {
  Field Fd;
  if (!Obj || !Find(Attr, Fd))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (Size == 0 && Written) { // a query of the size
    *Written = Fd.Size;
    return CUBLAS_STATUS_SUCCESS;
  }
  if (!Buf || Size < Fd.Size)
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(Buf, static_cast<const char *>(Obj) + Fd.Offset, Fd.Size);
  if (Written)
    *Written = Fd.Size;
  return CUBLAS_STATUS_SUCCESS;
}

// --- element access for epilogues and transforms ------------------------------------------

using libs::bf16ToFloat;
using libs::floatToBf16;
using libs::floatToHalf;
using libs::halfToFloat;

double load(const void *P, int T, size_t I) {
  switch (T) {
  case CUDA_R_32F: return static_cast<const float *>(P)[I];
  case CUDA_R_64F: return static_cast<const double *>(P)[I];
  case CUDA_R_16F: return halfToFloat(static_cast<const uint16_t *>(P)[I]);
  case CUDA_R_16BF: return bf16ToFloat(static_cast<const uint16_t *>(P)[I]);
  case CUDA_R_8I: return static_cast<const int8_t *>(P)[I];
  case CUDA_R_32I: return static_cast<const int32_t *>(P)[I];
  default: return 0;
  }
}
void store(void *P, int T, size_t I, double V) {
  switch (T) {
  case CUDA_R_32F: static_cast<float *>(P)[I] = static_cast<float>(V); return;
  case CUDA_R_64F: static_cast<double *>(P)[I] = V; return;
  case CUDA_R_16F: static_cast<uint16_t *>(P)[I] = floatToHalf(static_cast<float>(V)); return;
  case CUDA_R_16BF: static_cast<uint16_t *>(P)[I] = floatToBf16(static_cast<float>(V)); return;
  case CUDA_R_8I: static_cast<int8_t *>(P)[I] = static_cast<int8_t>(std::lround(std::fmin(127, std::fmax(-128, V)))); return;
  case CUDA_R_32I: static_cast<int32_t *>(P)[I] = static_cast<int32_t>(V); return;
  default: return;
  }
}
bool realType(int T) { return T == CUDA_R_32F || T == CUDA_R_64F || T == CUDA_R_16F || T == CUDA_R_16BF || T == CUDA_R_8I || T == CUDA_R_32I; }

/// Element (i, j) of a matrix with this layout (batch b).
size_t at(const Layout &L, int64_t I, int64_t J, int64_t B) {
  return static_cast<size_t>(B * L.Stride + (L.Order == CUBLASLT_ORDER_ROW ? I * L.Ld + J : J * L.Ld + I));
}

float gelu(float X) { return 0.5f * X * (1.0f + std::tanh(0.7978845608f * (X + 0.044715f * X * X * X))); }
float geluGrad(float X) {
  float T = std::tanh(0.7978845608f * (X + 0.044715f * X * X * X));
  return 0.5f * (1 + T) + 0.5f * X * (1 - T * T) * 0.7978845608f * (1 + 3 * 0.044715f * X * X);
}

struct Epilogue {
  uint32_t Kind;
  Layout D, A, B;
  void *DPtr;
  const void *APtr, *BPtr;
  int TransA, TransB;
  int BiasType, AuxType;
  void *Bias; ///< input (bias) or output (gradients)
  int64_t BiasStride;
  void *Aux;
  int64_t AuxLd, AuxStride;
};

void runEpilogue(const Epilogue &E) {
  const int64_t M = static_cast<int64_t>(E.D.Rows), N = static_cast<int64_t>(E.D.Cols);
  const uint32_t K = E.Kind;
  bool Bias = K & CUBLASLT_EPILOGUE_BIAS, Relu = (K & CUBLASLT_EPILOGUE_RELU) && !(K & 8),
       Gelu = (K & CUBLASLT_EPILOGUE_GELU) && !(K & 64), AuxOut = (K & 128) && (Relu || Gelu),
       DRelu = (K & 8) != 0, DGelu = (K & 64) != 0, BGrad = (K & 16) != 0;
  for (int64_t Bt = 0; Bt < std::max(1, E.D.Batch); ++Bt) {
    void *Aux = E.Aux ? static_cast<char *>(E.Aux) + 0 : nullptr;
    size_t AuxBase = static_cast<size_t>(Bt * E.AuxStride);
    if (K == CUBLASLT_EPILOGUE_BGRADA || K == CUBLASLT_EPILOGUE_BGRADB) {
      // Bias gradient from an operand: sums of op(A)'s rows (length M) or op(B)'s columns (length N).
      bool FromA = K == CUBLASLT_EPILOGUE_BGRADA;
      const Layout &L = FromA ? E.A : E.B;
      int64_t Len = FromA ? M : N, Red = FromA ? (E.TransA == CUBLAS_OP_N ? L.Cols : L.Rows)
                                               : (E.TransB == CUBLAS_OP_N ? L.Rows : L.Cols);
      for (int64_t I = 0; I < Len; ++I) {
        double S = 0;
        for (int64_t R = 0; R < Red; ++R) {
          bool NoT = FromA ? E.TransA == CUBLAS_OP_N : E.TransB == CUBLAS_OP_N;
          int64_t Row = FromA ? (NoT ? I : R) : (NoT ? R : I), Col = FromA ? (NoT ? R : I) : (NoT ? I : R);
          S += load(FromA ? E.APtr : E.BPtr, L.Type, at(L, Row, Col, Bt));
        }
        store(E.Bias, E.BiasType, static_cast<size_t>(Bt * E.BiasStride + I), S);
      }
      continue;
    }
    for (int64_t J = 0; J < N; ++J)
      for (int64_t I = 0; I < M; ++I) {
        size_t Di = at(E.D, I, J, Bt);
        double X = load(E.DPtr, E.D.Type, Di);
        if (Bias)
          X += load(E.Bias, E.BiasType, static_cast<size_t>(Bt * E.BiasStride + I));
        size_t Ai = AuxBase + static_cast<size_t>(J * E.AuxLd + I);
        if (AuxOut && Gelu)
          store(Aux, E.AuxType, Ai, X);
        if (AuxOut && Relu) { // one bit per element
          auto *Bits = static_cast<uint8_t *>(Aux);
          uint8_t Bit = static_cast<uint8_t>(1u << (Ai % 8));
          Bits[Ai / 8] = X > 0 ? (Bits[Ai / 8] | Bit) : (Bits[Ai / 8] & ~Bit);
        }
        if (Relu)
          X = X > 0 ? X : 0;
        if (Gelu)
          X = gelu(static_cast<float>(X));
        if (DRelu)
          X = (static_cast<const uint8_t *>(Aux)[Ai / 8] >> (Ai % 8)) & 1 ? X : 0;
        if (DGelu)
          X *= geluGrad(static_cast<float>(load(Aux, E.AuxType, Ai)));
        store(E.DPtr, E.D.Type, Di, X);
      }
    if (BGrad) // dReLU/dGELU bias gradients: the rows of the result summed
      for (int64_t I = 0; I < M; ++I) {
        double S = 0;
        for (int64_t J = 0; J < N; ++J)
          S += load(E.DPtr, E.D.Type, at(E.D, I, J, Bt));
        store(E.Bias, E.BiasType, static_cast<size_t>(Bt * E.BiasStride + I), S);
      }
  }
}

bool knownEpilogue(uint32_t E) {
  switch (E) {
  case CUBLASLT_EPILOGUE_DEFAULT:
  case CUBLASLT_EPILOGUE_RELU:
  case CUBLASLT_EPILOGUE_RELU_AUX:
  case CUBLASLT_EPILOGUE_BIAS:
  case CUBLASLT_EPILOGUE_RELU_BIAS:
  case CUBLASLT_EPILOGUE_RELU_AUX_BIAS:
  case CUBLASLT_EPILOGUE_DRELU:
  case CUBLASLT_EPILOGUE_DRELU_BGRAD:
  case CUBLASLT_EPILOGUE_GELU:
  case CUBLASLT_EPILOGUE_GELU_AUX:
  case CUBLASLT_EPILOGUE_GELU_BIAS:
  case CUBLASLT_EPILOGUE_GELU_AUX_BIAS:
  case CUBLASLT_EPILOGUE_DGELU:
  case CUBLASLT_EPILOGUE_DGELU_BGRAD:
  case CUBLASLT_EPILOGUE_BGRADA:
  case CUBLASLT_EPILOGUE_BGRADB: return true;
  default: return false;
  }
}

/// The checks of a matmul (shared by heuristics and the call).
cublasStatus_t check(const Desc *D, const Layout *A, const Layout *B, const Layout *C, const Layout *Dl) {
  if (!D || !A || !B || !C || !Dl)
    return CUBLAS_STATUS_INVALID_VALUE;
  uint64_t M = Dl->Rows, N = Dl->Cols, K = D->TransA == CUBLAS_OP_N ? A->Cols : A->Rows;
  uint64_t AM = D->TransA == CUBLAS_OP_N ? A->Rows : A->Cols, BK = D->TransB == CUBLAS_OP_N ? B->Rows : B->Cols,
           BN = D->TransB == CUBLAS_OP_N ? B->Cols : B->Rows;
  if (AM != M || BK != K || BN != N || C->Rows != M || C->Cols != N)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (C->Order != Dl->Order || C->Type != Dl->Type || A->Batch != Dl->Batch || B->Batch != Dl->Batch ||
      C->Batch != Dl->Batch)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!knownEpilogue(D->Epilogue) || (D->PointerMode != CUBLASLT_POINTER_MODE_HOST &&
                                      D->PointerMode != CUBLASLT_POINTER_MODE_DEVICE) ||
      A->Plane || B->Plane || C->Plane || Dl->Plane)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  bool Real = realType(A->Type) && realType(Dl->Type);
  bool AnyRow = A->Order || B->Order || Dl->Order;
  if (AnyRow && (!Real || D->TransA == CUBLAS_OP_C || D->TransB == CUBLAS_OP_C))
    return CUBLAS_STATUS_NOT_SUPPORTED; // conjugation without transposition has no BLAS form
  if (D->Epilogue != CUBLASLT_EPILOGUE_DEFAULT && !Real)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  for (const Layout *L : {A, B, C, Dl})
    if (L->Ld < static_cast<int64_t>(L->Order == CUBLASLT_ORDER_ROW ? L->Cols : L->Rows) || !zluda::cublas::elemSize(L->Type))
      return CUBLAS_STATUS_INVALID_VALUE;
  return CUBLAS_STATUS_SUCCESS;
}

// --- AMD GPUs: hipBLASLt ----------------------------------------------------------------------

namespace hip = zluda::hipblaslt;
constexpr uint64_t HipAlgoTag = 0x48495042u; ///< in an algorithm's data[7]: hipBLASLt's algorithm in data[0..2]

/// hipBLASLt when the driver runs an AMD GPU and it loads.
const hip::Api *hipLt() { return libs::cpuDevice() ? nullptr : hip::api(); }

int hipCompute(int C) {
  switch (C) {
  case CUBLAS_COMPUTE_16F: return 0;
  case CUBLAS_COMPUTE_16F_PEDANTIC: return 1;
  case CUBLAS_COMPUTE_32F: return 2;
  case CUBLAS_COMPUTE_32F_PEDANTIC: return 3;
  case CUBLAS_COMPUTE_32F_FAST_16F: return 4;
  case CUBLAS_COMPUTE_32F_FAST_16BF: return 5;
  case CUBLAS_COMPUTE_32F_FAST_TF32: return 6;
  case CUBLAS_COMPUTE_64F: return 7;
  case CUBLAS_COMPUTE_64F_PEDANTIC: return 8;
  case CUBLAS_COMPUTE_32I: return 9;
  case CUBLAS_COMPUTE_32I_PEDANTIC: return 10;
  default: return -1;
  }
}
/// The epilogues hipBLASLt has (same values as cuBLASLt's); the ReLU-mask ones (RELU_AUX, DRELU) it lacks.
bool hipEpilogue(uint32_t E) {
  switch (E) {
  case 1: case 2: case 4: case 6: case 32: case 36: case 160: case 164: case 192: case 208: case 256: case 512:
    return true;
  default: return false;
  }
}
cublasStatus_t fromHip(hip::Status S) {
  switch (S) {
  case 0: return CUBLAS_STATUS_SUCCESS;
  case 1: return CUBLAS_STATUS_NOT_INITIALIZED;
  case 2: return CUBLAS_STATUS_ALLOC_FAILED;
  case 3: return CUBLAS_STATUS_INVALID_VALUE;
  case 4: return CUBLAS_STATUS_MAPPING_ERROR;
  case 5: return CUBLAS_STATUS_EXECUTION_FAILED;
  case 7: return CUBLAS_STATUS_NOT_SUPPORTED;
  case 8: return CUBLAS_STATUS_ARCH_MISMATCH;
  default: return CUBLAS_STATUS_INTERNAL_ERROR;
  }
}

/// hipBLASLt's descriptors for one matmul: ours translated attribute by attribute, destroyed with it.
class HipMatmul {
public:
  explicit HipMatmul(const hip::Api *A) : Api(A) {}
  ~HipMatmul() {
    for (void *L : Layouts)
      if (L)
        Api->LayoutDestroy(L);
    if (Op)
      Api->DescDestroy(Op);
    if (Pref)
      Api->PrefDestroy(Pref);
  }
  cublasStatus_t build(const Desc &D, const Layout *const Ls[4], uint64_t MaxWorkspace) {
    int Compute = hipCompute(D.Compute);
    if (Compute < 0 || !hipEpilogue(D.Epilogue)) {
      libs::notSupported("cuBLASLt", "this compute type or epilogue on AMD GPUs (hipBLASLt has none)");
      return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if (hip::Status S = Api->DescCreate(&Op, Compute, D.Scale))
      return fromHip(S);
    int32_t Ta = 111 + D.TransA, Tb = 111 + D.TransB, Pm = D.PointerMode; // hipblasOperation_t: 111 N, 112 T, 113 C
    uint32_t Ep = D.Epilogue;
    hip::Status S = Api->DescSet(Op, hip::DescTransA, &Ta, 4) | Api->DescSet(Op, hip::DescTransB, &Tb, 4) |
                    Api->DescSet(Op, hip::DescEpilogue, &Ep, 4) | Api->DescSet(Op, hip::DescPointerMode, &Pm, 4);
    if (D.Bias) {
      S |= Api->DescSet(Op, hip::DescBiasPointer, &D.Bias, sizeof(void *));
      if (D.BiasType >= 0)
        S |= Api->DescSet(Op, hip::DescBiasType, &D.BiasType, 4);
    }
    if (D.Aux)
      S |= Api->DescSet(Op, hip::DescAuxPointer, &D.Aux, sizeof(void *)) |
           Api->DescSet(Op, hip::DescAuxLd, &D.AuxLd, 8) | Api->DescSet(Op, hip::DescAuxBatchStride, &D.AuxStride, 8);
    for (int I = 0; I < 4 && !S; ++I) {
      const Layout &L = *Ls[I];
      if ((S = Api->LayoutCreate(&Layouts[I], L.Type, L.Rows, L.Cols, L.Ld)))
        break;
      int32_t Order = L.Order, Batch = std::max(1, L.Batch);
      S |= Api->LayoutSet(Layouts[I], hip::LayoutOrder, &Order, 4) |
           Api->LayoutSet(Layouts[I], hip::LayoutBatchCount, &Batch, 4) |
           Api->LayoutSet(Layouts[I], hip::LayoutBatchStride, &L.Stride, 8);
    }
    if (!S && !(S = Api->PrefCreate(&Pref)))
      S = Api->PrefSet(Pref, hip::PrefMaxWorkspace, &MaxWorkspace, 8);
    return fromHip(S);
  }
  /// Up to \p Requested of hipBLASLt's algorithms for this matmul.
  cublasStatus_t heuristic(void *Handle, int Requested, std::vector<hip::HeuristicResult> &Out) {
    Out.resize(static_cast<size_t>(Requested));
    int Got = 0;
    if (hip::Status S = Api->Heuristic(Handle, Op, Layouts[0], Layouts[1], Layouts[2], Layouts[3], Pref, Requested,
                                       Out.data(), &Got))
      return fromHip(S);
    Out.resize(static_cast<size_t>(std::max(0, Got)));
    return CUBLAS_STATUS_SUCCESS;
  }
  cublasStatus_t run(void *Handle, const void *Algo, const void *Alpha, const void *A, const void *B,
                     const void *Beta, const void *C, void *D, void *Ws, size_t WsBytes, CUstream S) {
    return fromHip(Api->Matmul(Handle, Op, Alpha, A, Layouts[0], B, Layouts[1], Beta, C, Layouts[2], D, Layouts[3],
                               Algo, Ws, WsBytes, zludaNativeStream(S)));
  }

private:
  const hip::Api *Api;
  void *Op = nullptr, *Pref = nullptr, *Layouts[4] = {};
};

/// The Lt handle's hipBLASLt handle (made once).
cublasStatus_t hipHandle(Handle &H, void *&Out) {
  if (!H.Hip)
    if (hip::Status S = hipLt()->Create(&H.Hip))
      return fromHip(S);
  Out = H.Hip;
  return CUBLAS_STATUS_SUCCESS;
}

} // namespace
} // namespace zluda::cublaslt

using namespace zluda::cublaslt;
namespace libs = zluda::libs;

// --- handles, versions ------------------------------------------------------------------------

LT_API cublasStatus_t cublasLtCreate(cublasLtHandle_t *Out) {
  if (!Out)
    return CUBLAS_STATUS_INVALID_VALUE;
  auto *H = new Handle;
  if (cublasStatus_t S = cublasCreate_v2(&H->Blas)) {
    delete H;
    return S;
  }
  *Out = reinterpret_cast<cublasLtHandle_t>(libs::Live<Handle>::add(H));
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtDestroy(cublasLtHandle_t Hd) {
  if (liveBlasHandle(Hd))
    return CUBLAS_STATUS_NOT_INITIALIZED; // a cuBLAS handle: cublasDestroy's to end
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  cublasDestroy_v2(H->Blas); // waits for its stream
  if (H->Hip)
    hipLt()->Destroy(H->Hip);
  libs::Live<Handle>::destroy(H);
  return CUBLAS_STATUS_SUCCESS;
}
LT_API size_t cublasLtGetVersion() {
  return ZLUDA_CUBLAS_VERSION_MAJOR * 10000 + ZLUDA_CUBLAS_VERSION_MINOR * 100 + ZLUDA_CUBLAS_VERSION_PATCH;
}
LT_API size_t cublasLtGetCudartVersion() { return 13000; }
LT_API cublasStatus_t cublasLtGetProperty(libraryPropertyType T, int *V) {
  if (!V)
    return CUBLAS_STATUS_INVALID_VALUE;
  *V = T == MAJOR_VERSION ? ZLUDA_CUBLAS_VERSION_MAJOR : T == MINOR_VERSION ? ZLUDA_CUBLAS_VERSION_MINOR
                                                                           : ZLUDA_CUBLAS_VERSION_PATCH;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API const char *cublasLtGetStatusName(cublasStatus_t S) { return cublasGetStatusName(S); }
LT_API const char *cublasLtGetStatusString(cublasStatus_t S) { return cublasGetStatusString(S); }

// --- descriptors ---------------------------------------------------------------------------------

LT_API cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t L, size_t Size, cudaDataType T,
                                                        uint64_t Rows, uint64_t Cols, int64_t Ld) {
  if (!L || Size < sizeof(Layout))
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memset(L, 0, Size);
  auto *X = reinterpret_cast<Layout *>(L);
  *X = Layout{LayoutTag, T, CUBLASLT_ORDER_COL, 1, Rows, Cols, Ld, 0, 0};
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *Out, cudaDataType T, uint64_t Rows,
                                                 uint64_t Cols, int64_t Ld) {
  if (!Out)
    return CUBLAS_STATUS_INVALID_VALUE;
  auto *L = new cublasLtMatrixLayoutOpaque_t;
  cublasLtMatrixLayoutInit_internal(L, sizeof *L, T, Rows, Cols, Ld);
  *Out = L;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t L) {
  if (L && !tagged<Layout>(L, LayoutTag))
    return CUBLAS_STATUS_INVALID_VALUE;
  delete L;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t L, int A, const void *Buf, size_t Size) {
  return setAttr(tagged<Layout>(L, LayoutTag), layoutField, A, Buf, Size);
}
LT_API cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t L, int A, void *Buf, size_t Size,
                                                       size_t *Written) {
  return getAttr(tagged<Layout>(L, LayoutTag), layoutField, A, Buf, Size, Written);
}

LT_API cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t D, size_t Size, cublasComputeType_t C,
                                                      cudaDataType Scale) {
  if (!D || Size < sizeof(Desc))
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memset(D, 0, Size);
  auto *X = reinterpret_cast<Desc *>(D);
  X->Tag = DescTag;
  X->Compute = C;
  X->Scale = Scale;
  X->TransA = X->TransB = X->TransC = CUBLAS_OP_N;
  X->Fill = CUBLAS_FILL_MODE_FULL;
  X->Epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  X->BiasType = X->AuxType = -1; // the output's type
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *Out, cublasComputeType_t C, cudaDataType Scale) {
  if (!Out)
    return CUBLAS_STATUS_INVALID_VALUE;
  auto *D = new cublasLtMatmulDescOpaque_t;
  cublasLtMatmulDescInit_internal(D, sizeof *D, C, Scale);
  *Out = D;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t D) {
  if (D && !tagged<Desc>(D, DescTag))
    return CUBLAS_STATUS_INVALID_VALUE;
  delete D;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t D, int A, const void *Buf, size_t Size) {
  return setAttr(tagged<Desc>(D, DescTag), descField, A, Buf, Size);
}
LT_API cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t D, int A, void *Buf, size_t Size,
                                                     size_t *Written) {
  return getAttr(tagged<Desc>(D, DescTag), descField, A, Buf, Size, Written);
}

LT_API cublasStatus_t cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t P, size_t Size) {
  if (!P || Size < sizeof(Pref))
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memset(P, 0, Size);
  auto *X = reinterpret_cast<Pref *>(P);
  X->Tag = PrefTag;
  for (uint32_t &A : X->Align)
    A = 256;
  X->Reduction = 0xff;
  X->Impl = ~0ull;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *Out) {
  if (!Out)
    return CUBLAS_STATUS_INVALID_VALUE;
  auto *P = new cublasLtMatmulPreferenceOpaque_t;
  cublasLtMatmulPreferenceInit_internal(P, sizeof *P);
  *Out = P;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t P) {
  if (P && !tagged<Pref>(P, PrefTag))
    return CUBLAS_STATUS_INVALID_VALUE;
  delete P;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t P, int A, const void *Buf,
                                                           size_t Size) {
  return setAttr(tagged<Pref>(P, PrefTag), prefField, A, Buf, Size);
}
LT_API cublasStatus_t cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t P, int A, void *Buf, size_t Size,
                                                           size_t *Written) {
  return getAttr(tagged<Pref>(P, PrefTag), prefField, A, Buf, Size, Written);
}

LT_API cublasStatus_t cublasLtMatrixTransformDescInit_internal(cublasLtMatrixTransformDesc_t T, size_t Size,
                                                               cudaDataType Scale) {
  if (!T || Size < sizeof(Transform))
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memset(T, 0, Size);
  *reinterpret_cast<Transform *>(T) = Transform{TransformTag, Scale, CUBLASLT_POINTER_MODE_HOST, CUBLAS_OP_N, CUBLAS_OP_N};
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtMatrixTransformDescCreate(cublasLtMatrixTransformDesc_t *Out, cudaDataType Scale) {
  if (!Out)
    return CUBLAS_STATUS_INVALID_VALUE;
  auto *T = new cublasLtMatrixTransformDescOpaque_t;
  cublasLtMatrixTransformDescInit_internal(T, sizeof *T, Scale);
  *Out = T;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtMatrixTransformDescDestroy(cublasLtMatrixTransformDesc_t T) {
  if (T && !tagged<Transform>(T, TransformTag))
    return CUBLAS_STATUS_INVALID_VALUE;
  delete T;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtMatrixTransformDescSetAttribute(cublasLtMatrixTransformDesc_t T, int A, const void *Buf,
                                                              size_t Size) {
  return setAttr(tagged<Transform>(T, TransformTag), transformField, A, Buf, Size);
}
LT_API cublasStatus_t cublasLtMatrixTransformDescGetAttribute(cublasLtMatrixTransformDesc_t T, int A, void *Buf,
                                                              size_t Size, size_t *Written) {
  return getAttr(tagged<Transform>(T, TransformTag), transformField, A, Buf, Size, Written);
}

// --- heuristics and matmul ------------------------------------------------------------------------

LT_API cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t Hd, cublasLtMatmulDesc_t Op,
                                                     cublasLtMatrixLayout_t A, cublasLtMatrixLayout_t B,
                                                     cublasLtMatrixLayout_t C, cublasLtMatrixLayout_t D,
                                                     cublasLtMatmulPreference_t P, int Requested,
                                                     cublasLtMatmulHeuristicResult_t *Results, int *Returned) {
  if (!handleOf(Hd))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!Results || !Returned || Requested <= 0 || (P && !tagged<Pref>(P, PrefTag)))
    return CUBLAS_STATUS_INVALID_VALUE;
  *Returned = 0;
  if (cublasStatus_t S = check(tagged<Desc>(Op, DescTag), tagged<Layout>(A, LayoutTag), tagged<Layout>(B, LayoutTag),
                               tagged<Layout>(C, LayoutTag), tagged<Layout>(D, LayoutTag)))
    return S;
  if (const hip::Api *Api = hipLt()) { // hipBLASLt's algorithms, within the preference's workspace
    const Layout *Ls[4] = {tagged<Layout>(A, LayoutTag), tagged<Layout>(B, LayoutTag), tagged<Layout>(C, LayoutTag),
                           tagged<Layout>(D, LayoutTag)};
    const Pref *Pp = P ? tagged<Pref>(P, PrefTag) : nullptr;
    Handle *H = handleOf(Hd);
    std::lock_guard<std::mutex> G(H->Mu);
    void *Native;
    HipMatmul M(Api);
    std::vector<hip::HeuristicResult> Found;
    if (cublasStatus_t S = hipHandle(*H, Native))
      return S;
    if (cublasStatus_t S = M.build(*tagged<Desc>(Op, DescTag), Ls, Pp ? Pp->MaxWorkspace : 0))
      return S;
    if (cublasStatus_t S = M.heuristic(Native, Requested, Found))
      return S;
    for (const hip::HeuristicResult &R : Found) {
      cublasLtMatmulHeuristicResult_t &Out = Results[(*Returned)++];
      std::memset(&Out, 0, sizeof Out);
      std::memcpy(Out.algo.data, R.Algo, sizeof R.Algo + sizeof R.AlgoMaxWorkspace);
      Out.algo.data[7] = HipAlgoTag;
      Out.workspaceSize = R.WorkspaceSize;
      Out.state = fromHip(R.State);
      Out.wavesCount = R.WavesCount;
    }
    return *Returned ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_SUPPORTED;
  }
  // One algorithm: OpenBLAS's GEMM plus our epilogue, no workspace.
  std::memset(&Results[0], 0, sizeof Results[0]);
  Results[0].algo.data[0] = 1;
  Results[0].workspaceSize = 0;
  Results[0].state = CUBLAS_STATUS_SUCCESS;
  Results[0].wavesCount = 1.0f;
  *Returned = 1;
  return CUBLAS_STATUS_SUCCESS;
}

// --- the logger (cublasLtLogger*), the heuristics cache's capacity, algorithm ids and configurations ----------

namespace {
struct LoggerState {
  std::mutex Mu;
  void (*Callback)(int, const char *, const char *) = nullptr;
  FILE *File = nullptr;
  bool OwnFile = false, Disabled = false;
  int Level = 0, Mask = 0;
};
LoggerState &logger() {
  static auto *L = new LoggerState; // kept for the process (calls may come during exit)
  return *L;
}
/// A message of \p Level (1 error, 2 trace, 3 hints, 4 info, 5 API trace), as cuBLASLt's logger gives it: to
/// the callback, else to the file, when the level or the mask (bit level - 1) enables it.
void ltLog(int Level, const char *Fn, const std::string &Msg) {
  LoggerState &L = logger();
  std::lock_guard<std::mutex> G(L.Mu);
  if (L.Disabled || !(L.Level >= Level || (L.Mask & (1 << (Level - 1)))))
    return;
  if (L.Callback)
    L.Callback(Level, Fn, Msg.c_str());
  else if (L.File)
    std::fprintf(L.File, "[cublasLt][%d][%s] %s\n", Level, Fn, Msg.c_str());
}
size_t CacheCapacity = 8192;
} // namespace

LT_API cublasStatus_t cublasLtLoggerSetCallback(void (*Cb)(int, const char *, const char *)) {
  std::lock_guard<std::mutex> G(logger().Mu);
  logger().Callback = Cb;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtLoggerSetFile(FILE *F) {
  std::lock_guard<std::mutex> G(logger().Mu);
  if (logger().OwnFile && logger().File)
    std::fclose(logger().File);
  logger().File = F, logger().OwnFile = false;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtLoggerOpenFile(const char *Path) {
  if (!Path)
    return CUBLAS_STATUS_INVALID_VALUE;
  FILE *F = std::fopen(Path, "w");
  if (!F)
    return CUBLAS_STATUS_INVALID_VALUE;
  std::lock_guard<std::mutex> G(logger().Mu);
  if (logger().OwnFile && logger().File)
    std::fclose(logger().File);
  logger().File = F, logger().OwnFile = true;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtLoggerSetLevel(int Level) {
  if (Level < 0 || Level > 5)
    return CUBLAS_STATUS_INVALID_VALUE;
  std::lock_guard<std::mutex> G(logger().Mu);
  logger().Level = Level;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtLoggerSetMask(int Mask) {
  std::lock_guard<std::mutex> G(logger().Mu);
  logger().Mask = Mask;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtLoggerForceDisable() {
  std::lock_guard<std::mutex> G(logger().Mu);
  logger().Disabled = true;
  return CUBLAS_STATUS_SUCCESS;
}
/// The heuristics cache's capacity: kept and reported (the CPU device has one algorithm; nothing to cache).
LT_API cublasStatus_t cublasLtHeuristicsCacheGetCapacity(size_t *Out) {
  if (!Out)
    return CUBLAS_STATUS_INVALID_VALUE;
  *Out = CacheCapacity;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtHeuristicsCacheSetCapacity(size_t Capacity) {
  // Rounded up to a multiple of 32 as NVIDIA's (observed on an H100: 1 -> 32, 100 -> 128, 300 -> 320, 1000 -> 1024).
  CacheCapacity = (Capacity + 31) / 32 * 32;
  return CUBLAS_STATUS_SUCCESS;
}

/// Algorithm ids: the CPU device's one algorithm (id 1: our GEMM plus epilogue) for the type combinations GEMM
/// takes; an algorithm made from an id carries it in data[0] and its configuration in data[1..6].
LT_API cublasStatus_t cublasLtMatmulAlgoGetIds(cublasLtHandle_t Hd, cublasComputeType_t, cudaDataType, cudaDataType,
                                                cudaDataType, cudaDataType, cudaDataType, int Requested, int Ids[],
                                                int *Returned) {
  if (!handleOf(Hd))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (Requested <= 0 || !Ids || !Returned)
    return CUBLAS_STATUS_INVALID_VALUE;
  Ids[0] = 1;
  *Returned = 1;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtMatmulAlgoInit(cublasLtHandle_t Hd, cublasComputeType_t, cudaDataType, cudaDataType,
                                             cudaDataType, cudaDataType, cudaDataType, int Id,
                                             cublasLtMatmulAlgo_t *Algo) {
  if (!handleOf(Hd))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!Algo)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (Id != 1)
    return CUBLAS_STATUS_INVALID_VALUE; // no such algorithm here
  std::memset(Algo, 0, sizeof *Algo);
  Algo->data[0] = 1;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtMatmulAlgoCheck(cublasLtHandle_t Hd, cublasLtMatmulDesc_t Op, cublasLtMatrixLayout_t A,
                                              cublasLtMatrixLayout_t B, cublasLtMatrixLayout_t C,
                                              cublasLtMatrixLayout_t D, const cublasLtMatmulAlgo_t *Algo,
                                              cublasLtMatmulHeuristicResult_t *Result) {
  if (!handleOf(Hd))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!Algo || !Result)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (cublasStatus_t S = check(tagged<Desc>(Op, DescTag), tagged<Layout>(A, LayoutTag), tagged<Layout>(B, LayoutTag),
                               tagged<Layout>(C, LayoutTag), tagged<Layout>(D, LayoutTag)))
    return S;
  cublasLtMatmulAlgo_t Copy = *Algo; // Algo may point into Result
  std::memset(Result, 0, sizeof *Result);
  Result->algo = Copy;
  Result->workspaceSize = 0;
  Result->state = CUBLAS_STATUS_SUCCESS;
  Result->wavesCount = 1.0f;
  return CUBLAS_STATUS_SUCCESS;
}
namespace {
/// Where a configuration attribute lives in an algorithm's data: its word, bit shift and size in bytes.
bool configField(int Attr, int &Word, int &Shift, size_t &Size) {
  switch (Attr) {
  case 0: Word = 0, Shift = 0, Size = 4; return true;  // ID (int32)
  case 1: Word = 1, Shift = 0, Size = 4; return true;  // TILE_ID (uint32)
  case 2: Word = 2, Shift = 0, Size = 4; return true;  // SPLITK_NUM (int32)
  case 3: Word = 3, Shift = 0, Size = 4; return true;  // REDUCTION_SCHEME (uint32)
  case 4: Word = 4, Shift = 0, Size = 4; return true;  // CTA_SWIZZLING (uint32)
  case 5: Word = 5, Shift = 0, Size = 4; return true;  // CUSTOM_OPTION (uint32)
  case 6: Word = 6, Shift = 0, Size = 4; return true;  // STAGES_ID (uint32)
  case 7: Word = 6, Shift = 32, Size = 2; return true; // INNER_SHAPE_ID (uint16)
  case 8: Word = 6, Shift = 48, Size = 2; return true; // CLUSTER_SHAPE_ID (uint16)
  default: return false;
  }
}
} // namespace
LT_API cublasStatus_t cublasLtMatmulAlgoConfigSetAttribute(cublasLtMatmulAlgo_t *Algo, int Attr, const void *Buf,
                                                           size_t Size) {
  int Word, Shift;
  size_t Want;
  if (!Algo || !Buf || !configField(Attr, Word, Shift, Want) || Size != Want)
    return CUBLAS_STATUS_INVALID_VALUE;
  uint64_t V = 0;
  std::memcpy(&V, Buf, Size);
  uint64_t Mask = (Size == 4 ? 0xffffffffull : 0xffffull) << Shift;
  Algo->data[Word] = (Algo->data[Word] & ~Mask) | ((V << Shift) & Mask);
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtMatmulAlgoConfigGetAttribute(const cublasLtMatmulAlgo_t *Algo, int Attr, void *Buf,
                                                           size_t Size, size_t *Written) {
  int Word, Shift;
  size_t Want;
  if (!Algo || !configField(Attr, Word, Shift, Want))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (Size == 0) { // the size asked for
    if (!Written)
      return CUBLAS_STATUS_INVALID_VALUE;
    *Written = Want;
    return CUBLAS_STATUS_SUCCESS;
  }
  if (!Buf || Size != Want)
    return CUBLAS_STATUS_INVALID_VALUE;
  uint64_t V = Algo->data[Word] >> Shift;
  std::memcpy(Buf, &V, Size);
  if (Written)
    *Written = Want;
  return CUBLAS_STATUS_SUCCESS;
}

/// The capabilities of the CPU device's algorithm: strided batches and out-of-place results, every epilogue
/// here, host and device scalars, no split-K, swizzling, custom orders or negative leading dimensions, one tile
/// and one stage id (UNDEFINED), byte alignment, FMA arithmetic. Arrays answer their size when asked with 0.
LT_API cublasStatus_t cublasLtMatmulAlgoCapGetAttribute(const cublasLtMatmulAlgo_t *Algo, int Attr, void *Buf,
                                                        size_t Size, size_t *Written) {
  if (!Algo)
    return CUBLAS_STATUS_INVALID_VALUE;
  uint64_t V = 0;
  size_t Want = 4;
  switch (Attr) {
  case 0: case 1: case 2: case 5: case 7: case 10: case 14: case 21: case 22: V = 0; break;
  case 3: case 4: V = 1; break;           // strided batches, out-of-place results
  case 6: case 13: V = 0; break;          // TILE_IDS, STAGES_IDS: one entry, UNDEFINED
  case 11: V = 3; break;                  // pointer modes: host | device
  case 12: V = 1023; break;               // every epilogue bit (DEFAULT ... BGRADB)
  case 15: V = 1, Want = 8; break;        // NUMERICAL_IMPL_FLAGS: FMA
  case 16: case 17: case 18: case 19: V = 1; break; // minimum alignments in bytes
  default: return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (Size == 0) {
    if (!Written)
      return CUBLAS_STATUS_INVALID_VALUE;
    *Written = Want;
    return CUBLAS_STATUS_SUCCESS;
  }
  if (!Buf || Size < Want || (Size != Want && Attr != 6 && Attr != 13))
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(Buf, &V, Want);
  if (Written)
    *Written = Want;
  return CUBLAS_STATUS_SUCCESS;
}

/// CUDA 13's floating-point emulation descriptor: its attributes kept (strategy, special values, mantissa
/// control, maximum bit count, bit offset, bit count pointer); the CPU device computes in full precision.
namespace {
constexpr uint32_t EmulationTag = 0x456d756cu;
struct Emulation {
  uint32_t Tag;
  int32_t Strategy, Special, Control, MaxBits, Offset;
  int32_t *BitCountPtr;
};
static_assert(sizeof(Emulation) <= 64, "fits cublasLtEmulationDescOpaque_t");
} // namespace
LT_API cublasStatus_t cublasLtEmulationDescInit_internal(void *D, size_t Size) {
  if (!D || Size < sizeof(Emulation))
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memset(D, 0, Size);
  auto *E = static_cast<Emulation *>(D);
  E->Tag = EmulationTag, E->Special = 0xffff;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtEmulationDescCreate(void **Out) {
  if (!Out)
    return CUBLAS_STATUS_INVALID_VALUE;
  void *D = std::calloc(1, 64);
  if (!D)
    return CUBLAS_STATUS_ALLOC_FAILED;
  cublasLtEmulationDescInit_internal(D, 64);
  *Out = D;
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtEmulationDescDestroy(void *D) {
  auto *E = tagged<Emulation>(D, EmulationTag);
  if (!E)
    return CUBLAS_STATUS_INVALID_VALUE;
  E->Tag = 0;
  std::free(D);
  return CUBLAS_STATUS_SUCCESS;
}
namespace {
void *emulationField(Emulation *E, int Attr, size_t &Size) {
  switch (Attr) {
  case 0: Size = 4; return &E->Strategy;
  case 1: Size = 4; return &E->Special;
  case 2: Size = 4; return &E->Control;
  case 3: Size = 4; return &E->MaxBits;
  case 4: Size = 4; return &E->Offset;
  case 5: Size = sizeof(void *); return &E->BitCountPtr;
  default: return nullptr;
  }
}
} // namespace
LT_API cublasStatus_t cublasLtEmulationDescSetAttribute(void *D, int Attr, const void *Buf, size_t Size) {
  auto *E = tagged<Emulation>(D, EmulationTag);
  size_t Want = 0;
  void *F = E ? emulationField(E, Attr, Want) : nullptr;
  if (!F || !Buf || Size != Want)
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(F, Buf, Want);
  return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtEmulationDescGetAttribute(void *D, int Attr, void *Buf, size_t Size, size_t *Written) {
  auto *E = tagged<Emulation>(D, EmulationTag);
  size_t Want = 0;
  void *F = E ? emulationField(E, Attr, Want) : nullptr;
  if (!F)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (Size == 0) {
    if (!Written)
      return CUBLAS_STATUS_INVALID_VALUE;
    *Written = Want;
    return CUBLAS_STATUS_SUCCESS;
  }
  if (!Buf || Size != Want)
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(Buf, F, Want);
  if (Written)
    *Written = Want;
  return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtMatmul(cublasLtHandle_t Hd, cublasLtMatmulDesc_t Op, const void *Alpha, const void *A,
                                     cublasLtMatrixLayout_t Ad, const void *B, cublasLtMatrixLayout_t Bd,
                                     const void *Beta, const void *C, cublasLtMatrixLayout_t Cd, void *D,
                                     cublasLtMatrixLayout_t Dd, const cublasLtMatmulAlgo_t *Algo,
                                     void *Workspace, size_t WorkspaceBytes, CUstream Stream) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  ltLog(5, "cublasLtMatmul", "Adesc=" + std::to_string(reinterpret_cast<uintptr_t>(Ad)) +
                                 " Bdesc=" + std::to_string(reinterpret_cast<uintptr_t>(Bd)) +
                                 " workspaceSizeInBytes=" + std::to_string(WorkspaceBytes));
  const Desc *Dc = tagged<Desc>(Op, DescTag);
  const Layout *AL = tagged<Layout>(Ad, LayoutTag), *BL = tagged<Layout>(Bd, LayoutTag),
               *CL = tagged<Layout>(Cd, LayoutTag), *DL = tagged<Layout>(Dd, LayoutTag);
  if (cublasStatus_t S = check(Dc, AL, BL, CL, DL))
    return S;
  if (!Alpha || !Beta || !A || !B || !D)
    return CUBLAS_STATUS_INVALID_VALUE;
  const int64_t M = DL->Rows, N = DL->Cols, K = Dc->TransA == CUBLAS_OP_N ? AL->Cols : AL->Rows;
  const int64_t Batch = std::max(1, DL->Batch);
  if (M == 0 || N == 0)
    return CUBLAS_STATUS_SUCCESS;
  std::lock_guard<std::mutex> G(H->Mu);
  if (const hip::Api *Api = hipLt()) { // AMD GPUs: the whole matmul, epilogue included, to hipBLASLt
    const Layout *Ls[4] = {AL, BL, CL, DL};
    void *Native;
    HipMatmul Mm(Api);
    if (cublasStatus_t S = hipHandle(*H, Native))
      return S;
    if (cublasStatus_t S = Mm.build(*Dc, Ls, WorkspaceBytes))
      return S;
    hip::HeuristicResult Chosen{};
    if (Algo && Algo->data[7] == HipAlgoTag) { // one of hipBLASLt's, from our heuristic
      std::memcpy(Chosen.Algo, Algo->data, sizeof Chosen.Algo + sizeof Chosen.AlgoMaxWorkspace);
    } else {
      std::vector<hip::HeuristicResult> Found;
      if (cublasStatus_t S = Mm.heuristic(Native, 1, Found))
        return S;
      if (Found.empty())
        return CUBLAS_STATUS_NOT_SUPPORTED;
      Chosen = Found[0];
    }
    return Mm.run(Native, Chosen.Algo, Alpha, A, B, Beta, C ? C : D, D, Workspace, WorkspaceBytes, Stream);
  }
  if (!libs::cpuDevice() && Dc->Epilogue != CUBLASLT_EPILOGUE_DEFAULT) {
    libs::notSupported("cuBLASLt", "epilogues on AMD GPUs without hipBLASLt (ZLUDA_HIPBLASLT_LIBRARY)");
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  bool DevPtr = Dc->PointerMode == CUBLASLT_POINTER_MODE_DEVICE;
  cublasSetStream_v2(H->Blas, Stream);
  cublasSetPointerMode_v2(H->Blas, DevPtr ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST);
  // D = C first where they differ and C is read (beta may be nonzero).
  size_t SB = zluda::cublas::elemSize(Dc->Scale);
  bool BetaZero = false;
  if (!DevPtr) {
    static const unsigned char Zero[16] = {};
    BetaZero = Dc->Scale != CUDA_R_16F && Dc->Scale != CUDA_R_16BF ? std::memcmp(Beta, Zero, SB) == 0
                                                                   : (*static_cast<const uint16_t *>(Beta) & 0x7fff) == 0;
  }
  if (C && C != D && !BetaZero && !libs::cpuDevice()) {
    // A GPU's memory: D = C by 2D device copies, one a batch (C and D of one order and type, as cuBLASLt's
    // checks require of them here).
    const size_t E = zluda::cublas::elemSize(DL->Type);
    const bool Row = DL->Order == CUBLASLT_ORDER_ROW;
    for (int64_t Bt = 0; Bt < Batch; ++Bt) {
      CUDA_MEMCPY2D Cp{};
      Cp.srcMemoryType = Cp.dstMemoryType = CU_MEMORYTYPE_DEVICE;
      Cp.srcDevice = reinterpret_cast<CUdeviceptr>(C) + CUdeviceptr(Bt * CL->Stride * int64_t(E));
      Cp.dstDevice = reinterpret_cast<CUdeviceptr>(D) + CUdeviceptr(Bt * DL->Stride * int64_t(E));
      Cp.srcPitch = size_t(CL->Ld) * E, Cp.dstPitch = size_t(DL->Ld) * E;
      Cp.WidthInBytes = size_t(Row ? N : M) * E, Cp.Height = size_t(Row ? M : N);
      if (cuMemcpy2DAsync_v2(&Cp, Stream))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    }
  } else if (C && C != D && !BetaZero) {
    Layout Cl = *CL, Dl2 = *DL;
    if (libs::enqueue(Stream, [Cl, Dl2, C, D, M, N, Batch] {
          size_t E = zluda::cublas::elemSize(Dl2.Type);
          for (int64_t Bt = 0; Bt < Batch; ++Bt)
            for (int64_t J = 0; J < N; ++J)
              for (int64_t I = 0; I < M; ++I)
                std::memcpy(static_cast<char *>(D) + at(Dl2, I, J, Bt) * E,
                            static_cast<const char *>(C) + at(Cl, I, J, Bt) * E, E);
        }, H->Kept))
      return CUBLAS_STATUS_EXECUTION_FAILED;
  }
  // Column-major views: a row-major operand is the transpose of one.
  auto flip = [](int Op) { return Op == CUBLAS_OP_N ? CUBLAS_OP_T : CUBLAS_OP_N; };
  int OpA = AL->Order == CUBLASLT_ORDER_ROW ? flip(Dc->TransA) : Dc->TransA;
  int OpB = BL->Order == CUBLASLT_ORDER_ROW ? flip(Dc->TransB) : Dc->TransB;
  cublasStatus_t S;
  if (DL->Order == CUBLASLT_ORDER_ROW) // D^T = op(B)^T op(A)^T
    S = cublasGemmStridedBatchedEx(H->Blas, static_cast<cublasOperation_t>(flip(OpB)),
                                   static_cast<cublasOperation_t>(flip(OpA)), N, M, K, Alpha, B,
                                   static_cast<cudaDataType>(BL->Type), BL->Ld, BL->Stride, A,
                                   static_cast<cudaDataType>(AL->Type), AL->Ld, AL->Stride, Beta, D,
                                   static_cast<cudaDataType>(DL->Type), DL->Ld, DL->Stride, Batch, Dc->Compute, -1);
  else
    S = cublasGemmStridedBatchedEx(H->Blas, static_cast<cublasOperation_t>(OpA), static_cast<cublasOperation_t>(OpB),
                                   M, N, K, Alpha, A, static_cast<cudaDataType>(AL->Type), AL->Ld, AL->Stride, B,
                                   static_cast<cudaDataType>(BL->Type), BL->Ld, BL->Stride, Beta, D,
                                   static_cast<cudaDataType>(DL->Type), DL->Ld, DL->Stride, Batch, Dc->Compute, -1);
  if (S)
    return S;
  if (Dc->Epilogue == CUBLASLT_EPILOGUE_DEFAULT)
    return CUBLAS_STATUS_SUCCESS;
  Epilogue E{Dc->Epilogue, *DL, *AL, *BL, D, A, B, Dc->TransA, Dc->TransB,
             Dc->BiasType >= 0 ? Dc->BiasType : DL->Type, Dc->AuxType >= 0 ? Dc->AuxType : DL->Type,
             const_cast<void *>(Dc->Bias), Dc->BiasStride, Dc->Aux, Dc->AuxLd, Dc->AuxStride};
  bool NeedsBias = (E.Kind & (CUBLASLT_EPILOGUE_BIAS | 16)) || E.Kind == CUBLASLT_EPILOGUE_BGRADA ||
                   E.Kind == CUBLASLT_EPILOGUE_BGRADB;
  bool NeedsAux = (E.Kind & 128) != 0;
  if ((NeedsBias && !E.Bias) || (NeedsAux && (!E.Aux || E.AuxLd < M)))
    return CUBLAS_STATUS_INVALID_VALUE;
  return libs::enqueue(Stream, [E] { runEpilogue(E); }, H->Kept) ? CUBLAS_STATUS_EXECUTION_FAILED
                                                                  : CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtMatrixTransform(cublasLtHandle_t Hd, cublasLtMatrixTransformDesc_t Td,
                                              const void *Alpha, const void *A, cublasLtMatrixLayout_t Ad,
                                              const void *Beta, const void *B, cublasLtMatrixLayout_t Bd, void *C,
                                              cublasLtMatrixLayout_t Cd, CUstream Stream) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  const Transform *T = tagged<Transform>(Td, TransformTag);
  const Layout *AL = tagged<Layout>(Ad, LayoutTag), *BL = tagged<Layout>(Bd, LayoutTag), *CL = tagged<Layout>(Cd, LayoutTag);
  if (!T || !CL || !C || !Alpha || !Beta || (A && !AL) || (B && !BL))
    return CUBLAS_STATUS_INVALID_VALUE;
  auto fits = [&](const Layout *L, int Op) {
    return (Op == CUBLAS_OP_N ? L->Rows : L->Cols) == CL->Rows && (Op == CUBLAS_OP_N ? L->Cols : L->Rows) == CL->Cols;
  };
  if ((A && !fits(AL, T->TransA)) || (B && !fits(BL, T->TransB)))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!realType(CL->Type) || (A && !realType(AL->Type)) || (B && !realType(BL->Type)) ||
      T->PointerMode != CUBLASLT_POINTER_MODE_HOST)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  double Al = load(Alpha, T->Scale, 0), Be = load(Beta, T->Scale, 0);
  Layout La = AL ? *AL : Layout{}, Lb = BL ? *BL : Layout{}, Lc = *CL;
  int Ta = T->TransA, Tb = T->TransB;
  return libs::enqueue(Stream, [=] {
           for (int64_t Bt = 0; Bt < std::max(1, Lc.Batch); ++Bt)
             for (uint64_t J = 0; J < Lc.Cols; ++J)
               for (uint64_t I = 0; I < Lc.Rows; ++I) {
                 double V = 0;
                 if (A && Al != 0)
                   V += Al * load(A, La.Type, Ta == CUBLAS_OP_N ? at(La, I, J, Bt) : at(La, J, I, Bt));
                 if (B && Be != 0)
                   V += Be * load(B, Lb.Type, Tb == CUBLAS_OP_N ? at(Lb, I, J, Bt) : at(Lb, J, I, Bt));
                 store(C, Lc.Type, at(Lc, I, J, Bt), V);
               }
         }, H->Kept)
             ? CUBLAS_STATUS_EXECUTION_FAILED
             : CUBLAS_STATUS_SUCCESS;
}
