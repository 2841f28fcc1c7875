//===- Dnn.h - our cuDNN: descriptors and the host compute core -----------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file What libcudnn's two APIs share: the tensor, filter and convolution
/// shapes both describe, and the operations both run (convolution forward,
/// backward data and backward filter, pointwise, pooling, softmax, batch
/// normalization). The operations compute on the host over packed float (or
/// double) arrays: the CPU device's memory is host memory, and on a GPU the
/// call's arrays are staged (libs::runStaged's scheme). Convolutions are
/// im2col plus OpenBLAS's GEMM per image and group.
#pragma once

#include "libs/common/LibSupport.h"
#include "zluda/cudnn_abi.h"

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace zluda::dnn {

constexpr int MaxDims = 8;

/// A strided tensor as cuDNN describes one: dims and strides in elements,
/// dimension 0 first (N, C, then the spatial dims).
struct Tensor {
  cudnnDataType_t Type = CUDNN_DATA_FLOAT;
  int Rank = 0;
  std::array<int64_t, MaxDims> Dim{}, Stride{};

  int64_t count() const;
  /// Bytes from the first element to one past the last one addressed.
  size_t spanBytes() const;
  /// Packed strides in NCHW order (the last dimension contiguous).
  static Tensor packed(cudnnDataType_t T, int Rank, const int64_t *Dims);
  /// Packed with the channel dimension innermost (NHWC, NDHWC).
  static Tensor channelsLast(cudnnDataType_t T, int Rank, const int64_t *Dims);
};

/// The same rank and dims (strides may differ).
bool sameDims(const Tensor &A, const Tensor &B);
size_t typeSize(cudnnDataType_t T);
bool typeSupported(cudnnDataType_t T);

/// A convolution's geometry: spatial dims (1..3), zero padding before/after,
/// strides, dilations, groups, and whether the filter is flipped (CUDNN_CONVOLUTION).
struct Conv {
  int Spatial = 2;
  std::array<int64_t, 3> PadBefore{}, PadAfter{}, Stride{1, 1, 1}, Dilation{1, 1, 1};
  int64_t Groups = 1;
  bool Flip = false;
  cudnnDataType_t Compute = CUDNN_DATA_FLOAT;
  cudnnMathType_t Math = CUDNN_DEFAULT_MATH;
};

/// The output size of a convolution along one spatial dim.
int64_t convOutSize(int64_t In, int64_t Filter, int64_t PadBefore, int64_t PadAfter, int64_t Stride, int64_t Dilation);

/// Checks x, w and y against one another and the geometry. "" when they fit.
std::string checkConv(const Tensor &X, const Tensor &W, const Tensor &Y, const Conv &C);

/// Reads \p T's elements at \p P into \p Out in logical (packed NCHW) order.
template <typename Acc> void gather(const Tensor &T, const void *P, Acc *Out);
/// Writes Out = Alpha * In + Beta * Out (Out's old value is not read when Beta is 0).
template <typename Acc> void scatter(const Tensor &T, void *P, const Acc *In, double Alpha, double Beta);

/// y = alpha * conv(x, w) + beta * y and its two backward passes (logical order arrays).
template <typename Acc> void convForward(const Conv &C, const Tensor &X, const Acc *x, const Tensor &W, const Acc *w,
                                         const Tensor &Y, Acc *y);
template <typename Acc> void convBackwardData(const Conv &C, const Tensor &W, const Acc *w, const Tensor &Dy,
                                              const Acc *dy, const Tensor &Dx, Acc *dx);
template <typename Acc> void convBackwardFilter(const Conv &C, const Tensor &X, const Acc *x, const Tensor &Dy,
                                                const Acc *dy, const Tensor &Dw, Acc *dw);

/// Pointwise functions (the backend's modes; the legacy activations map onto them).
struct Pointwise {
  cudnnPointwiseMode_t Mode = CUDNN_POINTWISE_IDENTITY;
  double LowerClip = 0, UpperClip = 1e300, LowerClipSlope = 0, EluAlpha = 1, SoftplusBeta = 1, SwishBeta = 1;
  int64_t Axis = -1;
};
/// Number of inputs the mode reads (1, 2, or 3 for BINARY_SELECT); 0 when not supported.
int pointwiseArity(cudnnPointwiseMode_t M);
bool pointwiseIsBackward(cudnnPointwiseMode_t M);
/// y = f(a[, b[, c]]) (forward modes) or dx = f'(x) * dy (the _BWD modes: a = dy, b = x).
double pointwiseApply(const Pointwise &P, double A, double B, double C);

/// Runs \p Fn on host pointers for the device arrays of one call in stream
/// order. Each buffer: device pointer, bytes, read, written.
struct Buffer {
  const void *Dev;
  size_t Bytes;
  bool In, Out;
};
cudnnStatus_t runOnStream(CUstream S, std::vector<Buffer> Bufs, std::function<void(const std::vector<void *> &)> Fn);

/// A host scalar argument (alpha, beta): double for DOUBLE tensors, else float.
double scalarArg(const void *P, cudnnDataType_t TensorType);

/// Logs and returns \p S (a refused call names why).
cudnnStatus_t fail(cudnnStatus_t S, const char *Call, const std::string &Why);

} // namespace zluda::dnn
