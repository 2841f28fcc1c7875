//===- Descriptors.h - the legacy API's handle and descriptors ------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#pragma once

#include "libs/cudnn/Dnn.h"

#define CUDNN_API extern "C" __attribute__((visibility("default")))

struct cudnnContext {
  CUcontext Ctx = nullptr;
  CUstream Stream = nullptr;
};
struct cudnnTensorStruct {
  zluda::dnn::Tensor T;
  bool Set = false;
};
struct cudnnFilterStruct {
  zluda::dnn::Tensor T; ///< in the filter's own layout (KCRS or KRSC strides)
  cudnnTensorFormat_t Format = CUDNN_TENSOR_NCHW;
  bool Set = false;
};
struct cudnnConvolutionStruct {
  zluda::dnn::Conv C;
  bool Set = false;
  cudnnReorderType_t Reorder = CUDNN_DEFAULT_REORDER;
};
struct cudnnActivationStruct {
  cudnnActivationMode_t Mode = CUDNN_ACTIVATION_RELU;
  cudnnNanPropagation_t Nan = CUDNN_NOT_PROPAGATE_NAN;
  double Coef = 0, SwishBeta = 1;
};
struct cudnnPoolingStruct {
  cudnnPoolingMode_t Mode = CUDNN_POOLING_MAX;
  cudnnNanPropagation_t Nan = CUDNN_NOT_PROPAGATE_NAN;
  int Spatial = 0;
  int64_t Window[3] = {1, 1, 1}, Pad[3] = {0, 0, 0}, Stride[3] = {1, 1, 1};
};
struct cudnnOpTensorStruct {
  cudnnOpTensorOp_t Op = CUDNN_OP_TENSOR_ADD;
  cudnnDataType_t Comp = CUDNN_DATA_FLOAT;
  cudnnNanPropagation_t Nan = CUDNN_NOT_PROPAGATE_NAN;
};
struct cudnnLRNStruct {
  unsigned N = 5;
  double Alpha = 1e-4, Beta = 0.75, K = 2.0;
};

namespace zluda::dnn {

cudnnContext *handleOf(cudnnHandle_t H);
const Tensor *tensorOf(cudnnTensorDescriptor_t D);
/// The filter as a tensor in logical KCRS order (its strides follow its format).
const Tensor *filterOf(cudnnFilterDescriptor_t D);
const Conv *convOf(cudnnConvolutionDescriptor_t D);

/// The legacy activation as a pointwise function.
Pointwise activationFunction(const cudnnActivationStruct &A, bool Backward);

/// A registered descriptor of type T (cudnnCreate*Descriptor).
template <typename T> cudnnStatus_t createDescriptor(T **Out) {
  if (!Out)
    return CUDNN_STATUS_BAD_PARAM;
  *Out = libs::Live<T>::add(new T);
  return CUDNN_STATUS_SUCCESS;
}
/// cudnnDestroy*Descriptor: a null descriptor is a no-op (as NVIDIA's), a foreign one a bad parameter.
template <typename T> cudnnStatus_t destroyDescriptor(T *P) {
  if (!P)
    return CUDNN_STATUS_SUCCESS;
  return libs::Live<T>::destroy(P) ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
}

/// The Get* calls' optional outputs: each non-null Out[I] receives In[I].
template <size_t N> void putEach(int *const (&Out)[N], const int *In) {
  for (size_t I = 0; I < N; ++I)
    if (Out[I])
      *Out[I] = In[I];
}

} // namespace zluda::dnn
