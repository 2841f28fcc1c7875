//===- Cudnn.cpp - libcudnn.so.9: handles, versions, legacy descriptors ---===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The handle, the version and error calls, and the descriptors of the
/// legacy (v7-style) API: tensors, filters, convolutions, activations,
/// pooling, op-tensor and LRN. Every descriptor is registered (libs::Live):
/// a stale or foreign pointer gets CUDNN_STATUS_BAD_PARAM, never a crash.
#include "libs/cudnn/Descriptors.h"
#include "libs/common/Handles.h"

#include "common/Log.h"

#include <cstring>
#include <mutex>

using namespace zluda::dnn;
namespace libs = zluda::libs;

namespace zluda::dnn {

cudnnContext *handleOf(cudnnHandle_t H) { return libs::Live<cudnnContext>::find(H); }
const Tensor *tensorOf(cudnnTensorDescriptor_t D) {
  cudnnTensorStruct *T = libs::Live<cudnnTensorStruct>::find(D);
  return T && T->Set ? &T->T : nullptr;
}
const Tensor *filterOf(cudnnFilterDescriptor_t D) {
  cudnnFilterStruct *F = libs::Live<cudnnFilterStruct>::find(D);
  return F && F->Set ? &F->T : nullptr;
}
const Conv *convOf(cudnnConvolutionDescriptor_t D) {
  cudnnConvolutionStruct *C = libs::Live<cudnnConvolutionStruct>::find(D);
  return C && C->Set ? &C->C : nullptr;
}

Pointwise activationFunction(const cudnnActivationStruct &A, bool Backward) {
  Pointwise P;
  switch (A.Mode) {
  case CUDNN_ACTIVATION_SIGMOID:
    P.Mode = Backward ? CUDNN_POINTWISE_SIGMOID_BWD : CUDNN_POINTWISE_SIGMOID_FWD;
    break;
  case CUDNN_ACTIVATION_RELU:
    P.Mode = Backward ? CUDNN_POINTWISE_RELU_BWD : CUDNN_POINTWISE_RELU_FWD;
    break;
  case CUDNN_ACTIVATION_CLIPPED_RELU:
    P.Mode = Backward ? CUDNN_POINTWISE_RELU_BWD : CUDNN_POINTWISE_RELU_FWD;
    P.UpperClip = A.Coef;
    break;
  case CUDNN_ACTIVATION_TANH:
    P.Mode = Backward ? CUDNN_POINTWISE_TANH_BWD : CUDNN_POINTWISE_TANH_FWD;
    break;
  case CUDNN_ACTIVATION_ELU:
    P.Mode = Backward ? CUDNN_POINTWISE_ELU_BWD : CUDNN_POINTWISE_ELU_FWD;
    P.EluAlpha = A.Coef;
    break;
  case CUDNN_ACTIVATION_SWISH:
    P.Mode = Backward ? CUDNN_POINTWISE_SWISH_BWD : CUDNN_POINTWISE_SWISH_FWD;
    P.SwishBeta = A.SwishBeta;
    break;
  case CUDNN_ACTIVATION_IDENTITY:
  default:
    P.Mode = CUDNN_POINTWISE_IDENTITY;
    break;
  }
  return P;
}

} // namespace zluda::dnn

// --- versions, errors, the handle ---------------------------------------------------------

CUDNN_API size_t cudnnGetVersion() {
  return ZLUDA_CUDNN_VERSION_MAJOR * 10000 + ZLUDA_CUDNN_VERSION_MINOR * 100 + ZLUDA_CUDNN_VERSION_PATCH;
}
CUDNN_API size_t cudnnGetMaxDeviceVersion() { return 1210; }
CUDNN_API size_t cudnnGetCudartVersion() { return 13000; }

CUDNN_API const char *cudnnGetErrorString(cudnnStatus_t S) {
  switch (S) {
  case CUDNN_STATUS_SUCCESS:
    return "CUDNN_STATUS_SUCCESS";
  case CUDNN_STATUS_NOT_INITIALIZED:
    return "CUDNN_STATUS_NOT_INITIALIZED";
  case CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH:
    return "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH";
  case CUDNN_STATUS_BAD_PARAM:
    return "CUDNN_STATUS_BAD_PARAM";
  case CUDNN_STATUS_INVALID_VALUE:
    return "CUDNN_STATUS_INVALID_VALUE";
  case CUDNN_STATUS_BAD_PARAM_NULL_POINTER:
    return "CUDNN_STATUS_BAD_PARAM_NULL_POINTER";
  case CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED:
    return "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED";
  case CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND:
    return "CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND";
  case CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH:
    return "CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH";
  case CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE:
    return "CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE";
  case CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE:
    return "CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE";
  case CUDNN_STATUS_NOT_SUPPORTED:
    return "CUDNN_STATUS_NOT_SUPPORTED";
  case CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN:
    return "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN";
  case CUDNN_STATUS_NOT_SUPPORTED_SHAPE:
    return "CUDNN_STATUS_NOT_SUPPORTED_SHAPE";
  case CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE:
    return "CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE";
  case CUDNN_STATUS_NOT_SUPPORTED_LAYOUT:
    return "CUDNN_STATUS_NOT_SUPPORTED_LAYOUT";
  case CUDNN_STATUS_INTERNAL_ERROR:
    return "CUDNN_STATUS_INTERNAL_ERROR";
  case CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED:
    return "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED";
  case CUDNN_STATUS_EXECUTION_FAILED:
    return "CUDNN_STATUS_EXECUTION_FAILED";
  case CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER:
    return "CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER";
  default:
    return "CUDNN_STATUS_UNKNOWN";
  }
}

CUDNN_API void cudnnGetLastErrorString(char *Message, size_t MaxSize) {
  if (Message && MaxSize)
    Message[0] = '\0'; // our refusals are logged (ZLUDA_LOG=warn) rather than kept per thread
}

CUDNN_API cudnnStatus_t cudnnGetProperty(int Type, int *Value) {
  if (!Value)
    return CUDNN_STATUS_BAD_PARAM;
  switch (Type) {
  case 0:
    *Value = ZLUDA_CUDNN_VERSION_MAJOR;
    return CUDNN_STATUS_SUCCESS;
  case 1:
    *Value = ZLUDA_CUDNN_VERSION_MINOR;
    return CUDNN_STATUS_SUCCESS;
  case 2:
    *Value = ZLUDA_CUDNN_VERSION_PATCH;
    return CUDNN_STATUS_SUCCESS;
  default:
    return CUDNN_STATUS_BAD_PARAM;
  }
}

// One implementation behind all sub-libraries: their versions always agree.
CUDNN_API cudnnStatus_t cudnnGraphVersionCheck() { return CUDNN_STATUS_SUCCESS; }
CUDNN_API cudnnStatus_t cudnnOpsVersionCheck() { return CUDNN_STATUS_SUCCESS; }
CUDNN_API cudnnStatus_t cudnnCnnVersionCheck() { return CUDNN_STATUS_SUCCESS; }
CUDNN_API cudnnStatus_t cudnnAdvVersionCheck() { return CUDNN_STATUS_SUCCESS; }

/// cuDNN's answers to the handle calls (libs/common/Handles.h): BAD_PARAM for a handle that is none.
constexpr libs::HandleStatus<cudnnStatus_t> HandleStatuses{CUDNN_STATUS_SUCCESS, CUDNN_STATUS_BAD_PARAM,
                                                           CUDNN_STATUS_BAD_PARAM, CUDNN_STATUS_NOT_INITIALIZED};

CUDNN_API cudnnStatus_t cudnnCreate(cudnnHandle_t *Out) { return libs::createHandle<cudnnContext>(Out, HandleStatuses); }
CUDNN_API cudnnStatus_t cudnnDestroy(cudnnHandle_t H) {
  return libs::destroyObject<cudnnContext>(H, CUDNN_STATUS_SUCCESS, CUDNN_STATUS_BAD_PARAM);
}
CUDNN_API cudnnStatus_t cudnnSetStream(cudnnHandle_t Handle, CUstream S) {
  return libs::setHandleStream<cudnnContext>(Handle, S, HandleStatuses);
}
CUDNN_API cudnnStatus_t cudnnGetStream(cudnnHandle_t Handle, CUstream *S) {
  return libs::getHandleStream<cudnnContext>(Handle, S, HandleStatuses);
}

// --- tensor descriptors -------------------------------------------------------------------

namespace {
/// Dims (and strides, or a format) checked and stored.
cudnnStatus_t setTensor(Tensor &T, cudnnDataType_t Type, int Rank, const int64_t *Dims, const int64_t *Strides,
                        cudnnTensorFormat_t Format) {
  if (Rank < 1 || Rank > MaxDims || !Dims || !typeSupported(Type))
    return CUDNN_STATUS_BAD_PARAM;
  for (int I = 0; I < Rank; ++I)
    if (Dims[I] <= 0 || (Strides && Strides[I] <= 0))
      return CUDNN_STATUS_BAD_PARAM;
  if (Strides) {
    T = Tensor::packed(Type, Rank, Dims);
    for (int I = 0; I < Rank; ++I)
      T.Stride[I] = Strides[I];
  } else if (Format == CUDNN_TENSOR_NHWC) {
    T = Tensor::channelsLast(Type, Rank, Dims);
  } else if (Format == CUDNN_TENSOR_NCHW) {
    T = Tensor::packed(Type, Rank, Dims);
  } else {
    return fail(CUDNN_STATUS_NOT_SUPPORTED, "tensor descriptor", "CUDNN_TENSOR_NCHW_VECT_C is not supported");
  }
  return CUDNN_STATUS_SUCCESS;
}
} // namespace

CUDNN_API cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *Out) { return createDescriptor(Out); }
CUDNN_API cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t D) { return destroyDescriptor(D); }

CUDNN_API cudnnStatus_t cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t D, cudnnTensorFormat_t Format,
                                                   cudnnDataType_t Type, int N, int C, int H, int W) {
  cudnnTensorStruct *T = libs::Live<cudnnTensorStruct>::find(D);
  if (!T)
    return CUDNN_STATUS_BAD_PARAM;
  int64_t Dims[4] = {N, C, H, W};
  cudnnStatus_t S = setTensor(T->T, Type, 4, Dims, nullptr, Format);
  T->Set = T->Set || S == CUDNN_STATUS_SUCCESS;
  return S;
}
CUDNN_API cudnnStatus_t cudnnSetTensor4dDescriptorEx(cudnnTensorDescriptor_t D, cudnnDataType_t Type, int N, int C,
                                                     int H, int W, int Ns, int Cs, int Hs, int Ws) {
  cudnnTensorStruct *T = libs::Live<cudnnTensorStruct>::find(D);
  if (!T)
    return CUDNN_STATUS_BAD_PARAM;
  int64_t Dims[4] = {N, C, H, W}, Strides[4] = {Ns, Cs, Hs, Ws};
  cudnnStatus_t S = setTensor(T->T, Type, 4, Dims, Strides, CUDNN_TENSOR_NCHW);
  T->Set = T->Set || S == CUDNN_STATUS_SUCCESS;
  return S;
}
CUDNN_API cudnnStatus_t cudnnGetTensor4dDescriptor(cudnnTensorDescriptor_t D, cudnnDataType_t *Type, int *N, int *C,
                                                   int *H, int *W, int *Ns, int *Cs, int *Hs, int *Ws) {
  const Tensor *T = tensorOf(D);
  if (!T || T->Rank < 4)
    return CUDNN_STATUS_BAD_PARAM;
  int *Dims[4] = {N, C, H, W}, *Strides[4] = {Ns, Cs, Hs, Ws};
  if (Type)
    *Type = T->Type;
  for (int I = 0; I < 4; ++I) {
    if (Dims[I])
      *Dims[I] = static_cast<int>(T->Dim[I]);
    if (Strides[I])
      *Strides[I] = static_cast<int>(T->Stride[I]);
  }
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t D, cudnnDataType_t Type, int Rank,
                                                   const int *DimA, const int *StrideA) {
  cudnnTensorStruct *T = libs::Live<cudnnTensorStruct>::find(D);
  if (!T || !DimA || !StrideA || Rank < 1 || Rank > MaxDims)
    return CUDNN_STATUS_BAD_PARAM;
  int64_t Dims[MaxDims], Strides[MaxDims];
  for (int I = 0; I < Rank; ++I) {
    Dims[I] = DimA[I];
    Strides[I] = StrideA[I];
  }
  cudnnStatus_t S = setTensor(T->T, Type, Rank, Dims, Strides, CUDNN_TENSOR_NCHW);
  T->Set = T->Set || S == CUDNN_STATUS_SUCCESS;
  return S;
}
CUDNN_API cudnnStatus_t cudnnSetTensorNdDescriptorEx(cudnnTensorDescriptor_t D, cudnnTensorFormat_t Format,
                                                     cudnnDataType_t Type, int Rank, const int *DimA) {
  cudnnTensorStruct *T = libs::Live<cudnnTensorStruct>::find(D);
  if (!T || !DimA || Rank < 1 || Rank > MaxDims)
    return CUDNN_STATUS_BAD_PARAM;
  int64_t Dims[MaxDims];
  for (int I = 0; I < Rank; ++I)
    Dims[I] = DimA[I];
  cudnnStatus_t S = setTensor(T->T, Type, Rank, Dims, nullptr, Format);
  T->Set = T->Set || S == CUDNN_STATUS_SUCCESS;
  return S;
}
CUDNN_API cudnnStatus_t cudnnGetTensorNdDescriptor(cudnnTensorDescriptor_t D, int Requested, cudnnDataType_t *Type,
                                                   int *Rank, int *DimA, int *StrideA) {
  const Tensor *T = tensorOf(D);
  if (!T || Requested < 0)
    return CUDNN_STATUS_BAD_PARAM;
  if (Type)
    *Type = T->Type;
  if (Rank)
    *Rank = T->Rank;
  for (int I = 0; I < std::min(Requested, T->Rank); ++I) {
    if (DimA)
      DimA[I] = static_cast<int>(T->Dim[I]);
    if (StrideA)
      StrideA[I] = static_cast<int>(T->Stride[I]);
  }
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetTensorSizeInBytes(cudnnTensorDescriptor_t D, size_t *Size) {
  const Tensor *T = tensorOf(D);
  if (!T || !Size)
    return CUDNN_STATUS_BAD_PARAM;
  *Size = T->spanBytes();
  return CUDNN_STATUS_SUCCESS;
}

// --- filter descriptors -------------------------------------------------------------------

CUDNN_API cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *Out) { return createDescriptor(Out); }
CUDNN_API cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t D) { return destroyDescriptor(D); }

CUDNN_API cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t D, cudnnDataType_t Type,
                                                   cudnnTensorFormat_t Format, int Rank, const int *DimA) {
  cudnnFilterStruct *F = libs::Live<cudnnFilterStruct>::find(D);
  if (!F || !DimA || Rank < 3 || Rank > MaxDims)
    return CUDNN_STATUS_BAD_PARAM;
  int64_t Dims[MaxDims];
  for (int I = 0; I < Rank; ++I)
    Dims[I] = DimA[I];
  cudnnStatus_t S = setTensor(F->T, Type, Rank, Dims, nullptr, Format);
  if (S == CUDNN_STATUS_SUCCESS) {
    F->Format = Format;
    F->Set = true;
  }
  return S;
}
CUDNN_API cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t D, cudnnDataType_t Type,
                                                   cudnnTensorFormat_t Format, int K, int C, int H, int W) {
  int Dims[4] = {K, C, H, W};
  return cudnnSetFilterNdDescriptor(D, Type, Format, 4, Dims);
}
CUDNN_API cudnnStatus_t cudnnGetFilterNdDescriptor(cudnnFilterDescriptor_t D, int Requested, cudnnDataType_t *Type,
                                                   cudnnTensorFormat_t *Format, int *Rank, int *DimA) {
  cudnnFilterStruct *F = libs::Live<cudnnFilterStruct>::find(D);
  if (!F || !F->Set || Requested < 0)
    return CUDNN_STATUS_BAD_PARAM;
  if (Type)
    *Type = F->T.Type;
  if (Format)
    *Format = F->Format;
  if (Rank)
    *Rank = F->T.Rank;
  for (int I = 0; DimA && I < std::min(Requested, F->T.Rank); ++I)
    DimA[I] = static_cast<int>(F->T.Dim[I]);
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetFilter4dDescriptor(cudnnFilterDescriptor_t D, cudnnDataType_t *Type,
                                                   cudnnTensorFormat_t *Format, int *K, int *C, int *H, int *W) {
  int Rank = 0, Dims[MaxDims] = {};
  cudnnStatus_t S = cudnnGetFilterNdDescriptor(D, MaxDims, Type, Format, &Rank, Dims);
  if (S != CUDNN_STATUS_SUCCESS || Rank != 4)
    return CUDNN_STATUS_BAD_PARAM;
  putEach({K, C, H, W}, Dims);
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetFilterSizeInBytes(cudnnFilterDescriptor_t D, size_t *Size) {
  const Tensor *T = filterOf(D);
  if (!T || !Size)
    return CUDNN_STATUS_BAD_PARAM;
  *Size = T->spanBytes();
  return CUDNN_STATUS_SUCCESS;
}

// --- convolution descriptors --------------------------------------------------------------

CUDNN_API cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *Out) { return createDescriptor(Out); }
CUDNN_API cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t D) { return destroyDescriptor(D); }

CUDNN_API cudnnStatus_t cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t D, int Len, const int *Pad,
                                                        const int *Stride, const int *Dilation,
                                                        cudnnConvolutionMode_t Mode, cudnnDataType_t Compute) {
  cudnnConvolutionStruct *C = libs::Live<cudnnConvolutionStruct>::find(D);
  if (!C || !Pad || !Stride || !Dilation || Len < 1 || Len > 3 ||
      (Mode != CUDNN_CONVOLUTION && Mode != CUDNN_CROSS_CORRELATION) || !typeSupported(Compute))
    return CUDNN_STATUS_BAD_PARAM;
  for (int I = 0; I < Len; ++I)
    if (Pad[I] < 0 || Stride[I] <= 0 || Dilation[I] <= 0)
      return CUDNN_STATUS_BAD_PARAM;
  C->C.Spatial = Len;
  for (int I = 0; I < Len; ++I) {
    C->C.PadBefore[I] = C->C.PadAfter[I] = Pad[I];
    C->C.Stride[I] = Stride[I];
    C->C.Dilation[I] = Dilation[I];
  }
  C->C.Flip = Mode == CUDNN_CONVOLUTION;
  C->C.Compute = Compute;
  C->Set = true;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t D, int PadH, int PadW, int U,
                                                        int V, int DilH, int DilW, cudnnConvolutionMode_t Mode,
                                                        cudnnDataType_t Compute) {
  int Pad[2] = {PadH, PadW}, Stride[2] = {U, V}, Dil[2] = {DilH, DilW};
  return cudnnSetConvolutionNdDescriptor(D, 2, Pad, Stride, Dil, Mode, Compute);
}
CUDNN_API cudnnStatus_t cudnnGetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t D, int Requested, int *Len,
                                                        int *Pad, int *Stride, int *Dilation,
                                                        cudnnConvolutionMode_t *Mode, cudnnDataType_t *Compute) {
  const Conv *C = convOf(D);
  if (!C || Requested < 0)
    return CUDNN_STATUS_BAD_PARAM;
  if (Len)
    *Len = C->Spatial;
  for (int I = 0; I < std::min(Requested, C->Spatial); ++I) {
    if (Pad)
      Pad[I] = static_cast<int>(C->PadBefore[I]);
    if (Stride)
      Stride[I] = static_cast<int>(C->Stride[I]);
    if (Dilation)
      Dilation[I] = static_cast<int>(C->Dilation[I]);
  }
  if (Mode)
    *Mode = C->Flip ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
  if (Compute)
    *Compute = C->Compute;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetConvolution2dDescriptor(cudnnConvolutionDescriptor_t D, int *PadH, int *PadW, int *U,
                                                        int *V, int *DilH, int *DilW, cudnnConvolutionMode_t *Mode,
                                                        cudnnDataType_t *Compute) {
  int Len = 0, Pad[3], Stride[3], Dil[3];
  cudnnStatus_t S = cudnnGetConvolutionNdDescriptor(D, 3, &Len, Pad, Stride, Dil, Mode, Compute);
  if (S != CUDNN_STATUS_SUCCESS || Len != 2)
    return CUDNN_STATUS_BAD_PARAM;
  int In[6] = {Pad[0], Pad[1], Stride[0], Stride[1], Dil[0], Dil[1]};
  putEach({PadH, PadW, U, V, DilH, DilW}, In);
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t D, int Groups) {
  cudnnConvolutionStruct *C = libs::Live<cudnnConvolutionStruct>::find(D);
  if (!C || Groups < 1)
    return CUDNN_STATUS_BAD_PARAM;
  C->C.Groups = Groups;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetConvolutionGroupCount(cudnnConvolutionDescriptor_t D, int *Groups) {
  cudnnConvolutionStruct *C = libs::Live<cudnnConvolutionStruct>::find(D);
  if (!C || !Groups)
    return CUDNN_STATUS_BAD_PARAM;
  *Groups = static_cast<int>(C->C.Groups);
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t D, cudnnMathType_t Math) {
  cudnnConvolutionStruct *C = libs::Live<cudnnConvolutionStruct>::find(D);
  if (!C || Math < CUDNN_DEFAULT_MATH || Math > CUDNN_FMA_MATH)
    return CUDNN_STATUS_BAD_PARAM;
  C->C.Math = Math; // the host computes every type in float or double either way
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetConvolutionMathType(cudnnConvolutionDescriptor_t D, cudnnMathType_t *Math) {
  cudnnConvolutionStruct *C = libs::Live<cudnnConvolutionStruct>::find(D);
  if (!C || !Math)
    return CUDNN_STATUS_BAD_PARAM;
  *Math = C->C.Math;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnSetConvolutionReorderType(cudnnConvolutionDescriptor_t D, cudnnReorderType_t R) {
  cudnnConvolutionStruct *C = libs::Live<cudnnConvolutionStruct>::find(D);
  if (!C)
    return CUDNN_STATUS_BAD_PARAM;
  C->Reorder = R;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetConvolutionReorderType(cudnnConvolutionDescriptor_t D, cudnnReorderType_t *R) {
  cudnnConvolutionStruct *C = libs::Live<cudnnConvolutionStruct>::find(D);
  if (!C || !R)
    return CUDNN_STATUS_BAD_PARAM;
  *R = C->Reorder;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetConvolutionNdForwardOutputDim(cudnnConvolutionDescriptor_t D,
                                                              cudnnTensorDescriptor_t XD, cudnnFilterDescriptor_t WD,
                                                              int Rank, int *Out) {
  const Conv *C = convOf(D);
  const Tensor *X = tensorOf(XD), *W = filterOf(WD);
  if (!C || !X || !W || !Out || Rank != C->Spatial + 2 || X->Rank != Rank || W->Rank != Rank)
    return CUDNN_STATUS_BAD_PARAM;
  if (X->Dim[1] != W->Dim[1] * C->Groups)
    return CUDNN_STATUS_BAD_PARAM;
  Out[0] = static_cast<int>(X->Dim[0]);
  Out[1] = static_cast<int>(W->Dim[0]);
  for (int I = 0; I < C->Spatial; ++I) {
    int64_t O = convOutSize(X->Dim[2 + I], W->Dim[2 + I], C->PadBefore[I], C->PadAfter[I], C->Stride[I], C->Dilation[I]);
    if (O <= 0)
      return CUDNN_STATUS_BAD_PARAM;
    Out[2 + I] = static_cast<int>(O);
  }
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetConvolution2dForwardOutputDim(cudnnConvolutionDescriptor_t D,
                                                              cudnnTensorDescriptor_t XD, cudnnFilterDescriptor_t WD,
                                                              int *N, int *C, int *H, int *W) {
  int Out[4];
  cudnnStatus_t S = cudnnGetConvolutionNdForwardOutputDim(D, XD, WD, 4, Out);
  if (S != CUDNN_STATUS_SUCCESS)
    return S;
  putEach({N, C, H, W}, Out);
  return CUDNN_STATUS_SUCCESS;
}

// --- activation, pooling, op-tensor, LRN descriptors --------------------------------------

CUDNN_API cudnnStatus_t cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t *Out) { return createDescriptor(Out); }
CUDNN_API cudnnStatus_t cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t D) { return destroyDescriptor(D); }
CUDNN_API cudnnStatus_t cudnnSetActivationDescriptor(cudnnActivationDescriptor_t D, cudnnActivationMode_t Mode,
                                                     cudnnNanPropagation_t Nan, double Coef) {
  cudnnActivationStruct *A = libs::Live<cudnnActivationStruct>::find(D);
  if (!A || Mode < CUDNN_ACTIVATION_SIGMOID || Mode > CUDNN_ACTIVATION_SWISH)
    return CUDNN_STATUS_BAD_PARAM;
  A->Mode = Mode;
  A->Nan = Nan;
  A->Coef = Coef;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetActivationDescriptor(cudnnActivationDescriptor_t D, cudnnActivationMode_t *Mode,
                                                     cudnnNanPropagation_t *Nan, double *Coef) {
  cudnnActivationStruct *A = libs::Live<cudnnActivationStruct>::find(D);
  if (!A)
    return CUDNN_STATUS_BAD_PARAM;
  if (Mode)
    *Mode = A->Mode;
  if (Nan)
    *Nan = A->Nan;
  if (Coef)
    *Coef = A->Coef;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnSetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t D, double Beta) {
  cudnnActivationStruct *A = libs::Live<cudnnActivationStruct>::find(D);
  if (!A)
    return CUDNN_STATUS_BAD_PARAM;
  A->SwishBeta = Beta;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t D, double *Beta) {
  cudnnActivationStruct *A = libs::Live<cudnnActivationStruct>::find(D);
  if (!A || !Beta)
    return CUDNN_STATUS_BAD_PARAM;
  *Beta = A->SwishBeta;
  return CUDNN_STATUS_SUCCESS;
}

CUDNN_API cudnnStatus_t cudnnCreatePoolingDescriptor(cudnnPoolingDescriptor_t *Out) { return createDescriptor(Out); }
CUDNN_API cudnnStatus_t cudnnDestroyPoolingDescriptor(cudnnPoolingDescriptor_t D) { return destroyDescriptor(D); }
CUDNN_API cudnnStatus_t cudnnSetPoolingNdDescriptor(cudnnPoolingDescriptor_t D, cudnnPoolingMode_t Mode,
                                                    cudnnNanPropagation_t Nan, int Rank, const int *Window,
                                                    const int *Pad, const int *Stride) {
  cudnnPoolingStruct *P = libs::Live<cudnnPoolingStruct>::find(D);
  if (!P || !Window || !Pad || !Stride || Rank < 1 || Rank > 3 || Mode < CUDNN_POOLING_MAX ||
      Mode > CUDNN_POOLING_MAX_DETERMINISTIC)
    return CUDNN_STATUS_BAD_PARAM;
  for (int I = 0; I < Rank; ++I)
    if (Window[I] <= 0 || Pad[I] < 0 || Stride[I] <= 0)
      return CUDNN_STATUS_BAD_PARAM;
  P->Mode = Mode;
  P->Nan = Nan;
  P->Spatial = Rank;
  for (int I = 0; I < Rank; ++I) {
    P->Window[I] = Window[I];
    P->Pad[I] = Pad[I];
    P->Stride[I] = Stride[I];
  }
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnSetPooling2dDescriptor(cudnnPoolingDescriptor_t D, cudnnPoolingMode_t Mode,
                                                    cudnnNanPropagation_t Nan, int Wh, int Ww, int Ph, int Pw, int Sh,
                                                    int Sw) {
  int Window[2] = {Wh, Ww}, Pad[2] = {Ph, Pw}, Stride[2] = {Sh, Sw};
  return cudnnSetPoolingNdDescriptor(D, Mode, Nan, 2, Window, Pad, Stride);
}
CUDNN_API cudnnStatus_t cudnnGetPoolingNdDescriptor(cudnnPoolingDescriptor_t D, int Requested,
                                                    cudnnPoolingMode_t *Mode, cudnnNanPropagation_t *Nan, int *Rank,
                                                    int *Window, int *Pad, int *Stride) {
  cudnnPoolingStruct *P = libs::Live<cudnnPoolingStruct>::find(D);
  if (!P || !P->Spatial || Requested < 0)
    return CUDNN_STATUS_BAD_PARAM;
  if (Mode)
    *Mode = P->Mode;
  if (Nan)
    *Nan = P->Nan;
  if (Rank)
    *Rank = P->Spatial;
  for (int I = 0; I < std::min(Requested, P->Spatial); ++I) {
    if (Window)
      Window[I] = static_cast<int>(P->Window[I]);
    if (Pad)
      Pad[I] = static_cast<int>(P->Pad[I]);
    if (Stride)
      Stride[I] = static_cast<int>(P->Stride[I]);
  }
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetPooling2dDescriptor(cudnnPoolingDescriptor_t D, cudnnPoolingMode_t *Mode,
                                                    cudnnNanPropagation_t *Nan, int *Wh, int *Ww, int *Ph, int *Pw,
                                                    int *Sh, int *Sw) {
  int Rank = 0, Window[3], Pad[3], Stride[3];
  cudnnStatus_t S = cudnnGetPoolingNdDescriptor(D, 3, Mode, Nan, &Rank, Window, Pad, Stride);
  if (S != CUDNN_STATUS_SUCCESS || Rank != 2)
    return CUDNN_STATUS_BAD_PARAM;
  int In[6] = {Window[0], Window[1], Pad[0], Pad[1], Stride[0], Stride[1]};
  putEach({Wh, Ww, Ph, Pw, Sh, Sw}, In);
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetPoolingNdForwardOutputDim(cudnnPoolingDescriptor_t D, cudnnTensorDescriptor_t XD,
                                                          int Rank, int *Out) {
  cudnnPoolingStruct *P = libs::Live<cudnnPoolingStruct>::find(D);
  const Tensor *X = tensorOf(XD);
  if (!P || !P->Spatial || !X || !Out || Rank != P->Spatial + 2 || X->Rank != Rank)
    return CUDNN_STATUS_BAD_PARAM;
  Out[0] = static_cast<int>(X->Dim[0]);
  Out[1] = static_cast<int>(X->Dim[1]);
  for (int I = 0; I < P->Spatial; ++I)
    Out[2 + I] = static_cast<int>(1 + (X->Dim[2 + I] + 2 * P->Pad[I] - P->Window[I]) / P->Stride[I]);
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetPooling2dForwardOutputDim(cudnnPoolingDescriptor_t D, cudnnTensorDescriptor_t XD,
                                                          int *N, int *C, int *H, int *W) {
  int Out[4];
  cudnnStatus_t S = cudnnGetPoolingNdForwardOutputDim(D, XD, 4, Out);
  if (S != CUDNN_STATUS_SUCCESS)
    return S;
  putEach({N, C, H, W}, Out);
  return CUDNN_STATUS_SUCCESS;
}

CUDNN_API cudnnStatus_t cudnnCreateOpTensorDescriptor(cudnnOpTensorDescriptor_t *Out) { return createDescriptor(Out); }
CUDNN_API cudnnStatus_t cudnnDestroyOpTensorDescriptor(cudnnOpTensorDescriptor_t D) { return destroyDescriptor(D); }
CUDNN_API cudnnStatus_t cudnnSetOpTensorDescriptor(cudnnOpTensorDescriptor_t D, cudnnOpTensorOp_t Op,
                                                   cudnnDataType_t Comp, cudnnNanPropagation_t Nan) {
  cudnnOpTensorStruct *O = libs::Live<cudnnOpTensorStruct>::find(D);
  if (!O || Op < CUDNN_OP_TENSOR_ADD || Op > CUDNN_OP_TENSOR_NOT)
    return CUDNN_STATUS_BAD_PARAM;
  O->Op = Op;
  O->Comp = Comp;
  O->Nan = Nan;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetOpTensorDescriptor(cudnnOpTensorDescriptor_t D, cudnnOpTensorOp_t *Op,
                                                   cudnnDataType_t *Comp, cudnnNanPropagation_t *Nan) {
  cudnnOpTensorStruct *O = libs::Live<cudnnOpTensorStruct>::find(D);
  if (!O)
    return CUDNN_STATUS_BAD_PARAM;
  if (Op)
    *Op = O->Op;
  if (Comp)
    *Comp = O->Comp;
  if (Nan)
    *Nan = O->Nan;
  return CUDNN_STATUS_SUCCESS;
}

CUDNN_API cudnnStatus_t cudnnCreateLRNDescriptor(cudnnLRNDescriptor_t *Out) { return createDescriptor(Out); }
CUDNN_API cudnnStatus_t cudnnDestroyLRNDescriptor(cudnnLRNDescriptor_t D) { return destroyDescriptor(D); }
CUDNN_API cudnnStatus_t cudnnSetLRNDescriptor(cudnnLRNDescriptor_t D, unsigned N, double Alpha, double Beta, double K) {
  cudnnLRNStruct *L = libs::Live<cudnnLRNStruct>::find(D);
  // The reference's bounds: 1 <= n <= 16, k >= 1e-5, beta >= 0.01.
  if (!L || N < 1 || N > 16 || K < 1e-5 || Beta < 0.01)
    return CUDNN_STATUS_BAD_PARAM;
  L->N = N;
  L->Alpha = Alpha;
  L->Beta = Beta;
  L->K = K;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetLRNDescriptor(cudnnLRNDescriptor_t D, unsigned *N, double *Alpha, double *Beta,
                                              double *K) {
  cudnnLRNStruct *L = libs::Live<cudnnLRNStruct>::find(D);
  if (!L)
    return CUDNN_STATUS_BAD_PARAM;
  if (N)
    *N = L->N;
  if (Alpha)
    *Alpha = L->Alpha;
  if (Beta)
    *Beta = L->Beta;
  if (K)
    *K = L->K;
  return CUDNN_STATUS_SUCCESS;
}
