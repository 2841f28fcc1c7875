//===- Backend.cpp - cuDNN's backend (graph) API ---------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The descriptors the cuDNN frontend (PyTorch's, JAX's) builds: tensors,
/// convolutions, pointwise, matmul and reduction descriptors and their
/// operations, operation graphs, engine heuristics, engines and engine
/// configurations, execution plans and variant packs. Attributes are kept as
/// set (type, count, bytes); finalizing a descriptor reads them into its
/// meaning and copies what it refers to, so the frontend may destroy a
/// tensor once its operation is finalized. One engine (global index 0) runs
/// every supported graph: its operations in dependency order on the host,
/// virtual tensors as host arrays, the rest read and written through the
/// variant pack's pointers in the handle's stream order.
#include "libs/cudnn/Descriptors.h"

#include "common/Log.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>

using namespace zluda::dnn;
namespace libs = zluda::libs;

namespace {

size_t attrElemSize(cudnnBackendAttributeType_t T) {
  switch (T) {
  case CUDNN_TYPE_HANDLE:
  case CUDNN_TYPE_INT64:
  case CUDNN_TYPE_DOUBLE:
  case CUDNN_TYPE_VOID_PTR:
  case CUDNN_TYPE_BACKEND_DESCRIPTOR:
    return 8;
  case CUDNN_TYPE_BOOLEAN:
  case CUDNN_TYPE_CHAR:
    return 1;
  case CUDNN_TYPE_FRACTION:
    return 16;
  default: // enums, INT32, FLOAT
    return 4;
  }
}

struct Attr {
  cudnnBackendAttributeType_t Type;
  int64_t Count;
  std::vector<char> Bytes;
};

/// A tensor of a graph: its shape, unique id, and whether it lives only inside the graph.
struct TensorInfo {
  Tensor T;
  int64_t Uid = 0;
  bool Virtual = false, ByValue = false;
  bool Set = false;
};

enum class OpKind { ConvFwd, ConvBwdData, ConvBwdFilter, Pointwise, Matmul, Reduction, Reshape, Sdpa, SdpaBwd, NormFwd, NormBwd };

struct OpInfo {
  OpKind Kind;
  Conv C;
  Pointwise PW;
  cudnnReduceTensorOp_t Reduce = CUDNN_REDUCE_TENSOR_ADD;
  double Alpha = 1, Beta = 0, Alpha2 = 1;
  cudnnBackendNormMode_t Norm = CUDNN_LAYER_NORM;
  bool Training = false; ///< a norm forward's phase
  /// conv fwd: x, w; bwd data: w, dy; bwd filter: x, dy; pointwise: x[, b[, t]]; matmul a, b; reduction x;
  /// sdpa q, k, v[, scale]; sdpa backward q, k, v, o, stats, do[, scale]; norm forward and backward: the NormIn
  /// slots (Set where given)
  std::vector<TensorInfo> In;
  TensorInfo Out;
  /// Further outputs, each Set where asked for: sdpa: stats; sdpa backward: dk, dv (Out is dq); norm forward:
  /// the NormFwdOut slots; norm backward: dscale, dbias.
  std::vector<TensorInfo> More;
};

/// The input slots of a norm operation and the further outputs of its forward form.
enum NormIn { NX, NScale, NBias, NMean, NInvVar, NEps, NFactor, NRunMean, NRunVar, NDy, NSlots };
enum NormFwdOut { NOutMean, NOutInvVar, NOutRunMean, NOutRunVar };

struct Graph {
  std::vector<OpInfo> Ops; ///< in an order where every virtual input is produced before it is read
  cudnnContext *Handle = nullptr;
  std::string Why; ///< "" when our engine runs it
};

/// The interpreted state of each descriptor type (only the parts its type uses are filled).
struct Desc {
  cudnnBackendDescriptorType_t Type;
  bool Finalized = false;
  std::map<int, Attr> Attrs;
  TensorInfo Tensor_;
  Conv Conv_;
  Pointwise PW;
  cudnnDataType_t CompType = CUDNN_DATA_FLOAT;
  cudnnReduceTensorOp_t Reduce = CUDNN_REDUCE_TENSOR_ADD;
  OpInfo Op;
  std::shared_ptr<Graph> G; ///< operation graph, engine, engine config, plan, heuristics
  int64_t EngineIndex = 0;
  cudnnContext *Handle = nullptr;
  std::map<int64_t, void *> Pack; ///< variant pack: uid -> device pointer
  void *Workspace = nullptr;

  explicit Desc(cudnnBackendDescriptorType_t T) : Type(T) {}
};

Desc *descOf(void *P) { return libs::Live<Desc>::find(P); }

const Attr *attr(const Desc &D, int Name) {
  auto It = D.Attrs.find(Name);
  return It == D.Attrs.end() ? nullptr : &It->second;
}
template <typename T> bool scalar(const Desc &D, int Name, T &Out) {
  const Attr *A = attr(D, Name);
  if (!A || A->Count < 1 || A->Bytes.size() < sizeof(T))
    return false;
  std::memcpy(&Out, A->Bytes.data(), sizeof(T));
  return true;
}
std::vector<int64_t> ints(const Desc &D, int Name) {
  const Attr *A = attr(D, Name);
  std::vector<int64_t> R;
  if (!A)
    return R;
  if (A->Type == CUDNN_TYPE_INT64) {
    R.resize(A->Count);
    std::memcpy(R.data(), A->Bytes.data(), A->Count * 8);
  } else if (A->Type == CUDNN_TYPE_INT32) {
    for (int64_t I = 0; I < A->Count; ++I) {
      int32_t V;
      std::memcpy(&V, A->Bytes.data() + I * 4, 4);
      R.push_back(V);
    }
  }
  return R;
}
/// A FLOAT or DOUBLE attribute as a double.
bool real(const Desc &D, int Name, double &Out) {
  const Attr *A = attr(D, Name);
  if (!A || A->Count < 1)
    return false;
  if (A->Type == CUDNN_TYPE_DOUBLE) {
    std::memcpy(&Out, A->Bytes.data(), 8);
    return true;
  }
  if (A->Type == CUDNN_TYPE_FLOAT) {
    float F;
    std::memcpy(&F, A->Bytes.data(), 4);
    Out = F;
    return true;
  }
  return false;
}
Desc *descAttr(const Desc &D, int Name, cudnnBackendDescriptorType_t Want) {
  void *P = nullptr;
  const Attr *A = attr(D, Name);
  if (!A || A->Type != CUDNN_TYPE_BACKEND_DESCRIPTOR || !scalar(D, Name, P))
    return nullptr;
  Desc *R = descOf(P);
  return R && R->Type == Want && R->Finalized ? R : nullptr;
}
std::vector<Desc *> descArray(const Desc &D, int Name) {
  std::vector<Desc *> R;
  const Attr *A = attr(D, Name);
  if (!A || A->Type != CUDNN_TYPE_BACKEND_DESCRIPTOR)
    return R;
  for (int64_t I = 0; I < A->Count; ++I) {
    void *P;
    std::memcpy(&P, A->Bytes.data() + I * 8, 8);
    R.push_back(descOf(P));
  }
  return R;
}

cudnnStatus_t finalizeTensor(Desc &D) {
  cudnnDataType_t T;
  std::vector<int64_t> Dims = ints(D, CUDNN_ATTR_TENSOR_DIMENSIONS), Strides = ints(D, CUDNN_ATTR_TENSOR_STRIDES);
  int64_t Uid = 0, Align = 0;
  if (!scalar(D, CUDNN_ATTR_TENSOR_DATA_TYPE, T) || Dims.empty() || Dims.size() != Strides.size() ||
      Dims.size() > MaxDims || !scalar(D, CUDNN_ATTR_TENSOR_UNIQUE_ID, Uid))
    return fail(CUDNN_STATUS_BAD_PARAM, "tensor descriptor", "data type, dimensions, strides and unique id are needed");
  scalar(D, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, Align);
  for (size_t I = 0; I < Dims.size(); ++I)
    if (Dims[I] <= 0 || Strides[I] < 0)
      return fail(CUDNN_STATUS_BAD_PARAM, "tensor descriptor", "dimensions must be positive, strides non-negative");
  int64_t Vec = 1;
  scalar(D, CUDNN_ATTR_TENSOR_VECTOR_COUNT, Vec);
  if (Vec != 1)
    return fail(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT, "tensor descriptor", "vectorized tensors are not supported");
  if (!typeSupported(T))
    return fail(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE, "tensor descriptor",
                "data type " + std::to_string(int(T)) + " is not supported");
  TensorInfo &I = D.Tensor_;
  I.T = Tensor::packed(T, static_cast<int>(Dims.size()), Dims.data());
  for (size_t K = 0; K < Dims.size(); ++K)
    I.T.Stride[K] = Strides[K];
  I.Uid = Uid;
  bool B = false;
  I.Virtual = scalar(D, CUDNN_ATTR_TENSOR_IS_VIRTUAL, B) && B;
  B = false;
  I.ByValue = scalar(D, CUDNN_ATTR_TENSOR_IS_BY_VALUE, B) && B;
  I.Set = true;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalizeConvolution(Desc &D) {
  Conv &C = D.Conv_;
  int64_t Spatial = 0;
  cudnnConvolutionMode_t Mode = CUDNN_CROSS_CORRELATION;
  cudnnDataType_t Comp = CUDNN_DATA_FLOAT;
  std::vector<int64_t> Dil = ints(D, CUDNN_ATTR_CONVOLUTION_DILATIONS), Str = ints(D, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES),
                       Pre = ints(D, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS), Post = ints(D, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS);
  scalar(D, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, Spatial);
  if (!Spatial)
    Spatial = static_cast<int64_t>(Str.size());
  if (!scalar(D, CUDNN_ATTR_CONVOLUTION_CONV_MODE, Mode) || Spatial < 1 || Spatial > 3 ||
      static_cast<int64_t>(Dil.size()) != Spatial || static_cast<int64_t>(Str.size()) != Spatial ||
      static_cast<int64_t>(Pre.size()) != Spatial || (!Post.empty() && static_cast<int64_t>(Post.size()) != Spatial))
    return fail(CUDNN_STATUS_BAD_PARAM, "convolution descriptor",
                "mode, 1-3 spatial dims and as many dilations, strides and paddings are needed");
  scalar(D, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, Comp);
  C.Spatial = static_cast<int>(Spatial);
  for (int I = 0; I < C.Spatial; ++I) {
    if (Dil[I] < 1 || Str[I] < 1 || Pre[I] < 0 || (!Post.empty() && Post[I] < 0))
      return fail(CUDNN_STATUS_BAD_PARAM, "convolution descriptor", "non-positive stride or dilation, negative padding");
    C.Dilation[I] = Dil[I];
    C.Stride[I] = Str[I];
    C.PadBefore[I] = Pre[I];
    C.PadAfter[I] = Post.empty() ? Pre[I] : Post[I];
  }
  C.Flip = Mode == CUDNN_CONVOLUTION;
  C.Compute = Comp;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalizePointwise(Desc &D) {
  Pointwise &P = D.PW;
  if (!scalar(D, CUDNN_ATTR_POINTWISE_MODE, P.Mode))
    return fail(CUDNN_STATUS_BAD_PARAM, "pointwise descriptor", "no mode");
  if (!pointwiseArity(P.Mode))
    return fail(CUDNN_STATUS_NOT_SUPPORTED, "pointwise descriptor",
                "pointwise mode " + std::to_string(int(P.Mode)) + " is not supported");
  scalar(D, CUDNN_ATTR_POINTWISE_MATH_PREC, D.CompType);
  real(D, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, P.LowerClip);
  real(D, CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, P.UpperClip);
  real(D, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, P.LowerClipSlope);
  real(D, CUDNN_ATTR_POINTWISE_ELU_ALPHA, P.EluAlpha);
  real(D, CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA, P.SoftplusBeta);
  real(D, CUDNN_ATTR_POINTWISE_SWISH_BETA, P.SwishBeta);
  scalar(D, CUDNN_ATTR_POINTWISE_AXIS, P.Axis);
  return CUDNN_STATUS_SUCCESS;
}

const TensorInfo *tensorAttr(const Desc &D, int Name) {
  Desc *T = descAttr(D, Name, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  return T ? &T->Tensor_ : nullptr;
}

/// Every dim of \p A equal to \p Out's or 1 (broadcast).
bool broadcasts(const Tensor &A, const Tensor &Out) {
  if (A.Rank != Out.Rank)
    return false;
  for (int I = 0; I < A.Rank; ++I)
    if (A.Dim[I] != Out.Dim[I] && A.Dim[I] != 1)
      return false;
  return true;
}

cudnnStatus_t finalizeConvOp(Desc &D, OpKind K) {
  static const int Names[3][6] = {
      {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA},
      {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA},
      {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA}};
  const int *N = Names[int(K)];
  Desc *Cd = descAttr(D, N[0], CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  const TensorInfo *X = tensorAttr(D, N[1]), *W = tensorAttr(D, N[2]), *Y = tensorAttr(D, N[3]);
  const char *Name = K == OpKind::ConvFwd ? "convolution forward" : K == OpKind::ConvBwdData ? "convolution backward data"
                                                                                            : "convolution backward filter";
  if (!Cd || !X || !W || !Y)
    return fail(CUDNN_STATUS_BAD_PARAM, Name, "the convolution descriptor and three finalized tensors are needed");
  std::string Why = checkConv(X->T, W->T, Y->T, Cd->Conv_);
  if (!Why.empty())
    return fail(CUDNN_STATUS_BAD_PARAM, Name, Why);
  OpInfo &O = D.Op;
  O = OpInfo{};
  O.Kind = K;
  O.C = Cd->Conv_;
  O.Alpha = 1;
  O.Beta = 0;
  real(D, N[4], O.Alpha);
  real(D, N[5], O.Beta);
  // x (or dx), w (or dw), y (or dy): the output is the one the operation writes.
  if (K == OpKind::ConvFwd) {
    O.In = {*X, *W};
    O.Out = *Y;
  } else if (K == OpKind::ConvBwdData) {
    O.In = {*W, *Y};
    O.Out = *X;
  } else {
    O.In = {*X, *Y};
    O.Out = *W;
  }
  // PyTorch's convolution groups come from the channel counts (the descriptor has none).
  O.C.Groups = X->T.Dim[1] / W->T.Dim[1];
  if (O.C.Groups < 1 || X->T.Dim[1] % W->T.Dim[1] || W->T.Dim[0] % O.C.Groups)
    return fail(CUDNN_STATUS_BAD_PARAM, Name, "x's channels are not a multiple of the filter's");
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalizePointwiseOp(Desc &D) {
  Desc *Pd = descAttr(D, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
  if (!Pd)
    return fail(CUDNN_STATUS_BAD_PARAM, "pointwise operation", "no finalized pointwise descriptor");
  OpInfo &O = D.Op;
  O = OpInfo{};
  O.Kind = OpKind::Pointwise;
  O.PW = Pd->PW;
  O.Alpha = 1;
  O.Alpha2 = 1;
  real(D, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, O.Alpha);
  real(D, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, O.Alpha2);
  if (pointwiseIsBackward(O.PW.Mode)) {
    const TensorInfo *Dy = tensorAttr(D, CUDNN_ATTR_OPERATION_POINTWISE_DYDESC),
                     *X = tensorAttr(D, CUDNN_ATTR_OPERATION_POINTWISE_XDESC),
                     *Dx = tensorAttr(D, CUDNN_ATTR_OPERATION_POINTWISE_DXDESC);
    if (!Dy || !X || !Dx || !broadcasts(Dy->T, Dx->T) || !broadcasts(X->T, Dx->T))
      return fail(CUDNN_STATUS_BAD_PARAM, "pointwise operation", "a backward mode needs dy, x and dx of one shape");
    O.In = {*Dy, *X};
    O.Out = *Dx;
    return CUDNN_STATUS_SUCCESS;
  }
  const TensorInfo *X = tensorAttr(D, CUDNN_ATTR_OPERATION_POINTWISE_XDESC),
                   *B = tensorAttr(D, CUDNN_ATTR_OPERATION_POINTWISE_BDESC),
                   *T = tensorAttr(D, CUDNN_ATTR_OPERATION_POINTWISE_TDESC),
                   *Y = tensorAttr(D, CUDNN_ATTR_OPERATION_POINTWISE_YDESC);
  int Arity = pointwiseArity(O.PW.Mode);
  if (!X || !Y || (Arity >= 2 && !B) || (Arity == 3 && !T))
    return fail(CUDNN_STATUS_BAD_PARAM, "pointwise operation",
                "mode " + std::to_string(int(O.PW.Mode)) + " needs " + std::to_string(Arity) + " inputs and y");
  if (O.PW.Mode == CUDNN_POINTWISE_GEN_INDEX && (O.PW.Axis < 0 || O.PW.Axis >= Y->T.Rank))
    return fail(CUDNN_STATUS_BAD_PARAM, "pointwise operation", "GEN_INDEX needs an axis within y's dims");
  O.In = {*X};
  if (Arity >= 2)
    O.In.push_back(*B);
  if (Arity == 3)
    O.In.push_back(*T);
  for (const TensorInfo &I : O.In)
    if (!broadcasts(I.T, Y->T))
      return fail(CUDNN_STATUS_BAD_PARAM, "pointwise operation", "an input does not broadcast to y's shape");
  O.Out = *Y;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalizeMatmulOp(Desc &D) {
  const TensorInfo *A = tensorAttr(D, CUDNN_ATTR_OPERATION_MATMUL_ADESC), *B = tensorAttr(D, CUDNN_ATTR_OPERATION_MATMUL_BDESC),
                   *C = tensorAttr(D, CUDNN_ATTR_OPERATION_MATMUL_CDESC);
  Desc *M = descAttr(D, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  if (!A || !B || !C || !M)
    return fail(CUDNN_STATUS_BAD_PARAM, "matmul operation", "a, b, c and the matmul descriptor are needed");
  if (attr(D, CUDNN_ATTR_OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC) || attr(D, CUDNN_ATTR_OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC) ||
      attr(D, CUDNN_ATTR_OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC))
    return fail(CUDNN_STATUS_NOT_SUPPORTED, "matmul operation", "ragged (overridden) M/N/K are not supported");
  int R = C->T.Rank;
  if (R < 2 || A->T.Rank != R || B->T.Rank != R || A->T.Dim[R - 1] != B->T.Dim[R - 2] || A->T.Dim[R - 2] != C->T.Dim[R - 2] ||
      B->T.Dim[R - 1] != C->T.Dim[R - 1])
    return fail(CUDNN_STATUS_BAD_PARAM, "matmul operation", "a [.., M, K] times b [.., K, N] must give c [.., M, N]");
  for (int I = 0; I < R - 2; ++I)
    if ((A->T.Dim[I] != C->T.Dim[I] && A->T.Dim[I] != 1) || (B->T.Dim[I] != C->T.Dim[I] && B->T.Dim[I] != 1))
      return fail(CUDNN_STATUS_BAD_PARAM, "matmul operation", "batch dims do not broadcast");
  OpInfo &O = D.Op;
  O = OpInfo{};
  O.Kind = OpKind::Matmul;
  O.In = {*A, *B};
  O.Out = *C;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalizeReductionOp(Desc &D) {
  const TensorInfo *X = tensorAttr(D, CUDNN_ATTR_OPERATION_REDUCTION_XDESC), *Y = tensorAttr(D, CUDNN_ATTR_OPERATION_REDUCTION_YDESC);
  Desc *R = descAttr(D, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
  if (!X || !Y || !R || !broadcasts(Y->T, X->T))
    return fail(CUDNN_STATUS_BAD_PARAM, "reduction operation", "x, y (x's shape with reduced dims 1) and the descriptor are needed");
  if (R->Reduce == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS)
    return fail(CUDNN_STATUS_NOT_SUPPORTED, "reduction operation", "MUL_NO_ZEROS is not supported");
  OpInfo &O = D.Op;
  O = OpInfo{};
  O.Kind = OpKind::Reduction;
  O.Reduce = R->Reduce;
  O.In = {*X};
  O.Out = *Y;
  return CUDNN_STATUS_SUCCESS;
}

/// A reshape (cuDNN 9's view form): y describes x's memory with other dims and strides (attention graphs
/// transpose K so).
cudnnStatus_t finalizeReshapeOp(Desc &D) {
  const TensorInfo *X = tensorAttr(D, CUDNN_ATTR_OPERATION_RESHAPE_XDESC), *Y = tensorAttr(D, CUDNN_ATTR_OPERATION_RESHAPE_YDESC);
  if (!X || !Y || X->T.count() != Y->T.count())
    return fail(CUDNN_STATUS_BAD_PARAM, "reshape operation", "x and y with as many elements are needed");
  OpInfo &O = D.Op;
  O = OpInfo{};
  O.Kind = OpKind::Reshape;
  O.In = {*X};
  O.Out = *Y;
  return CUDNN_STATUS_SUCCESS;
}

/// The unified scaled-dot-product attention (cuDNN 9.13+'s one-operation form the frontend builds for
/// training): O = softmax(scale * Q K^T) V per batch and head, Stats = each row's log-sum-exp. Grouped
/// heads (K/V heads dividing Q's) are read as the reference does; masks, paging and sequence lengths are not
/// supported yet.
cudnnStatus_t finalizeSdpaOp(Desc &D) {
  const TensorInfo *Q = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC), *K = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC),
                   *V = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC), *O = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC),
                   *St = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC),
                   *Sc = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC);
  if (!Q || !K || !V || !O)
    return fail(CUDNN_STATUS_BAD_PARAM, "SDPA forward operation", "q, k, v and o are needed");
  for (int A : {int(CUDNN_ATTR_OPERATION_SDPA_FWD_BLOCK_MASK_DESC), int(CUDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_KDESC),
                int(CUDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_VDESC), int(CUDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC),
                int(CUDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC)})
    if (attr(D, A))
      return fail(CUDNN_STATUS_NOT_SUPPORTED, "SDPA forward operation",
                  "block masks, paged caches and sequence lengths are not supported (attribute " + std::to_string(A) + ")");
  const Tensor &Qt = Q->T, &Kt = K->T, &Vt = V->T, &Ot = O->T;
  if (Qt.Rank != 4 || Kt.Rank != 4 || Vt.Rank != 4 || Ot.Rank != 4 || Kt.Dim[0] != Qt.Dim[0] || Vt.Dim[0] != Qt.Dim[0] ||
      Qt.Dim[3] != Kt.Dim[3] || Kt.Dim[2] != Vt.Dim[2] || Kt.Dim[1] == 0 || Vt.Dim[1] == 0 || Qt.Dim[1] % Kt.Dim[1] ||
      Qt.Dim[1] % Vt.Dim[1] || Ot.Dim[0] != Qt.Dim[0] || Ot.Dim[1] != Qt.Dim[1] || Ot.Dim[2] != Qt.Dim[2] ||
      Ot.Dim[3] != Vt.Dim[3])
    return fail(CUDNN_STATUS_BAD_PARAM, "SDPA forward operation",
                "q [b, h, s_q, d], k [b, h_k, s_kv, d], v [b, h_v, s_kv, d_v] and o [b, h, s_q, d_v] are needed");
  if (St && (St->T.Rank != 4 || St->T.Dim[0] != Qt.Dim[0] || St->T.Dim[1] != Qt.Dim[1] || St->T.Dim[2] != Qt.Dim[2] ||
             St->T.Dim[3] != 1))
    return fail(CUDNN_STATUS_BAD_PARAM, "SDPA forward operation", "stats must be [b, h, s_q, 1]");
  OpInfo &Op = D.Op;
  Op = OpInfo{};
  Op.Kind = OpKind::Sdpa;
  Op.In = {*Q, *K, *V};
  if (Sc)
    Op.In.push_back(*Sc);
  Op.Out = *O;
  Op.More = {St ? *St : TensorInfo{}};
  return CUDNN_STATUS_SUCCESS;
}

/// The unified attention's backward (cuDNN 9.13+'s one-operation form): from q, k, v, the forward's o and
/// log-sum-exp statistics and do, the gradients dq, dk, dv (grouped heads summed into their k/v head).
cudnnStatus_t finalizeSdpaBwdOp(Desc &D) {
  const char *Name = "SDPA backward operation";
  const TensorInfo *Q = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_QDESC), *K = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_KDESC),
                   *V = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_VDESC), *O = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_ODESC),
                   *St = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_STATSDESC),
                   *Sc = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_SCALEDESC),
                   *DQ = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_DQDESC), *DK = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_DKDESC),
                   *DV = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_DVDESC), *DO = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_DODDESC);
  if (!Q || !K || !V || !O || !St || !DQ || !DK || !DV || !DO)
    return fail(CUDNN_STATUS_BAD_PARAM, Name, "q, k, v, o, stats, do, dq, dk and dv are needed");
  if (attr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_QDESC) || attr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KVDESC))
    return fail(CUDNN_STATUS_NOT_SUPPORTED, Name, "sequence lengths are not supported");
  const Tensor &Qt = Q->T, &Kt = K->T, &Vt = V->T, &Ot = O->T;
  if (Qt.Rank != 4 || Kt.Rank != 4 || Vt.Rank != 4 || Ot.Rank != 4 || Kt.Dim[0] != Qt.Dim[0] || Vt.Dim[0] != Qt.Dim[0] ||
      Qt.Dim[3] != Kt.Dim[3] || Kt.Dim[2] != Vt.Dim[2] || Qt.Dim[1] % Kt.Dim[1] || Qt.Dim[1] % Vt.Dim[1] ||
      Ot.Dim[0] != Qt.Dim[0] || Ot.Dim[1] != Qt.Dim[1] || Ot.Dim[2] != Qt.Dim[2] || Ot.Dim[3] != Vt.Dim[3] ||
      !sameDims(DQ->T, Qt) || !sameDims(DK->T, Kt) || !sameDims(DV->T, Vt) || !sameDims(DO->T, Ot) ||
      St->T.Rank != 4 || St->T.Dim[0] != Qt.Dim[0] || St->T.Dim[1] != Qt.Dim[1] || St->T.Dim[2] != Qt.Dim[2] ||
      St->T.Dim[3] != 1)
    return fail(CUDNN_STATUS_BAD_PARAM, Name,
                "q [b, h, s_q, d], k [b, h_k, s_kv, d], v [b, h_v, s_kv, d_v], o and do [b, h, s_q, d_v], stats "
                "[b, h, s_q, 1] and gradients of their inputs' dims are needed");
  OpInfo &Op = D.Op;
  Op = OpInfo{};
  Op.Kind = OpKind::SdpaBwd;
  Op.In = {*Q, *K, *V, *O, *St, *DO};
  if (Sc)
    Op.In.push_back(*Sc);
  Op.Out = *DQ;
  Op.More = {*DK, *DV};
  return CUDNN_STATUS_SUCCESS;
}

/// Which dims of x a norm's statistics reduce: where the given mean (or inverse variance) has 1; without one,
/// by the mode: layer and RMS norm over the dims the scale spans (all but the first without a scale), batch norm
/// over all but the channels, instance norm over the spatial dims.
std::vector<bool> normReduced(cudnnBackendNormMode_t Mode, const Tensor &X, const TensorInfo *Stat, const TensorInfo *Scale) {
  std::vector<bool> R(X.Rank, false);
  for (int D = 0; D < X.Rank; ++D) {
    if (Stat && Stat->Set)
      R[D] = Stat->T.Dim[D] == 1;
    else if (Mode == CUDNN_BATCH_NORM)
      R[D] = D != 1;
    else if (Mode == CUDNN_INSTANCE_NORM)
      R[D] = D >= 2;
    else
      R[D] = Scale && Scale->Set ? Scale->T.Dim[D] != 1 : D >= 1;
  }
  return R;
}

/// Layer, batch, instance and RMS norm, forward (inference or training) and backward: x [n, c, ...] with the
/// scale and bias broadcast over it, statistics over the dims normReduced gives.
cudnnStatus_t finalizeNormOp(Desc &D, bool Forward) {
  const char *Name = Forward ? "norm forward operation" : "norm backward operation";
  OpInfo &Op = D.Op;
  Op = OpInfo{};
  Op.Kind = Forward ? OpKind::NormFwd : OpKind::NormBwd;
  if (!scalar(D, Forward ? CUDNN_ATTR_OPERATION_NORM_FWD_MODE : CUDNN_ATTR_OPERATION_NORM_BWD_MODE, Op.Norm))
    return fail(CUDNN_STATUS_BAD_PARAM, Name, "no mode");
  if (Op.Norm != CUDNN_LAYER_NORM && Op.Norm != CUDNN_BATCH_NORM && Op.Norm != CUDNN_INSTANCE_NORM &&
      Op.Norm != CUDNN_RMS_NORM)
    return fail(CUDNN_STATUS_NOT_SUPPORTED, Name, "norm mode " + std::to_string(int(Op.Norm)) +
                                                       " is not supported (layer, batch, instance and RMS norm are)");
  if (attr(D, Forward ? CUDNN_ATTR_OPERATION_NORM_FWD_PEER_STAT_DESCS : CUDNN_ATTR_OPERATION_NORM_BWD_PEER_STAT_DESCS))
    return fail(CUDNN_STATUS_NOT_SUPPORTED, Name, "peer statistics (norms across GPUs) are not supported");
  auto get = [&](int A) { const TensorInfo *T = tensorAttr(D, A); return T ? *T : TensorInfo{}; };
  Op.In.assign(NSlots, TensorInfo{});
  bool Rms = Op.Norm == CUDNN_RMS_NORM;
  if (Forward) {
    cudnnBackendNormFwdPhase_t Phase = CUDNN_NORM_FWD_INFERENCE;
    if (!scalar(D, CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, Phase))
      return fail(CUDNN_STATUS_BAD_PARAM, Name, "no phase");
    Op.Training = Phase == CUDNN_NORM_FWD_TRAINING;
    Op.In[NX] = get(CUDNN_ATTR_OPERATION_NORM_FWD_XDESC);
    Op.In[NScale] = get(CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC);
    Op.In[NBias] = get(CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC);
    Op.In[NEps] = get(CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC);
    Op.In[NFactor] = get(CUDNN_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC);
    Op.In[NRunMean] = get(CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC);
    Op.In[NRunVar] = get(CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC);
    Op.Out = get(CUDNN_ATTR_OPERATION_NORM_FWD_YDESC);
    TensorInfo Mean = get(CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC), Inv = get(CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC);
    // Training writes the statistics; inference reads them where given (batch norm's running statistics).
    if (Op.Training)
      Op.More = {Mean, Inv, get(CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC),
                 get(CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC)};
    else {
      Op.In[NMean] = Mean;
      Op.In[NInvVar] = Inv;
      Op.More.assign(4, TensorInfo{});
    }
    if (Op.More[NOutRunMean].Set != Op.In[NRunMean].Set || Op.More[NOutRunVar].Set != Op.In[NRunVar].Set ||
        Op.In[NRunMean].Set != Op.In[NRunVar].Set || (Op.In[NRunMean].Set && !Op.In[NFactor].Set))
      return fail(CUDNN_STATUS_BAD_PARAM, Name,
                  "running statistics need their input and output tensors, both mean and variance, and the factor");
    if (!Op.Training && Op.In[NMean].Set != Op.In[NInvVar].Set)
      return fail(CUDNN_STATUS_BAD_PARAM, Name, "inference reads both mean and inverse variance or neither");
  } else {
    Op.In[NX] = get(CUDNN_ATTR_OPERATION_NORM_BWD_XDESC);
    Op.In[NScale] = get(CUDNN_ATTR_OPERATION_NORM_BWD_SCALE_DESC);
    Op.In[NMean] = get(CUDNN_ATTR_OPERATION_NORM_BWD_MEAN_DESC);
    Op.In[NInvVar] = get(CUDNN_ATTR_OPERATION_NORM_BWD_INV_VARIANCE_DESC);
    Op.In[NDy] = get(CUDNN_ATTR_OPERATION_NORM_BWD_DYDESC);
    Op.Out = get(CUDNN_ATTR_OPERATION_NORM_BWD_DXDESC);
    Op.More = {get(CUDNN_ATTR_OPERATION_NORM_BWD_DSCALE_DESC), get(CUDNN_ATTR_OPERATION_NORM_BWD_DBIAS_DESC)};
    if (!Op.In[NDy].Set || !Op.In[NInvVar].Set || (!Rms && !Op.In[NMean].Set) || !Op.In[NScale].Set)
      return fail(CUDNN_STATUS_BAD_PARAM, Name, "dy, scale, inverse variance and (but for RMS norm) mean are needed");
    if (!sameDims(Op.In[NDy].T, Op.In[NX].T))
      return fail(CUDNN_STATUS_BAD_PARAM, Name, "dy must have x's dims");
  }
  const TensorInfo &X = Op.In[NX];
  if (!X.Set || !Op.Out.Set || !sameDims(X.T, Op.Out.T))
    return fail(CUDNN_STATUS_BAD_PARAM, Name, "x and an output of x's dims are needed");
  for (const TensorInfo *T : {&Op.In[NScale], &Op.In[NBias], &Op.In[NMean], &Op.In[NInvVar], &Op.In[NRunMean],
                              &Op.In[NRunVar]})
    if (T->Set && !broadcasts(T->T, X.T))
      return fail(CUDNN_STATUS_BAD_PARAM, Name, "scale, bias and statistics must broadcast to x's dims");
  for (const TensorInfo &T : Op.More)
    if (T.Set && !broadcasts(T.T, X.T))
      return fail(CUDNN_STATUS_BAD_PARAM, Name, "statistics and parameter gradients must broadcast to x's dims");
  if (Forward && !Op.In[NEps].Set && !(Op.In[NMean].Set && !Op.Training))
    return fail(CUDNN_STATUS_BAD_PARAM, Name, "an epsilon tensor is needed");
  if (Forward && Op.Training && !Op.More[NOutInvVar].Set && Op.Norm != CUDNN_LAYER_NORM && !Rms)
    return fail(CUDNN_STATUS_BAD_PARAM, Name, "training writes the mean and inverse variance");
  return CUDNN_STATUS_SUCCESS;
}

/// Orders the operations so that each virtual tensor is produced before it is read; checks the graph.
cudnnStatus_t finalizeGraph(Desc &D) {
  auto G = std::make_shared<Graph>();
  void *H = nullptr;
  scalar(D, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, H);
  G->Handle = handleOf(static_cast<cudnnHandle_t>(H));
  std::vector<Desc *> Ops = descArray(D, CUDNN_ATTR_OPERATIONGRAPH_OPS);
  if (Ops.empty())
    return fail(CUDNN_STATUS_BAD_PARAM, "operation graph", "no operations");
  std::vector<OpInfo> Pending;
  for (Desc *O : Ops) {
    if (!O || !O->Finalized)
      return fail(CUDNN_STATUS_BAD_PARAM, "operation graph", "an operation is not a finalized descriptor");
    switch (O->Type) {
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR:
      Pending.push_back(O->Op);
      break;
    default:
      // NVIDIA's library accepts more graph patterns; ours says which operation it lacks.
      return fail(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN, "operation graph",
                  "operation descriptor type " + std::to_string(int(O->Type)) + " is not supported");
    }
  }
  std::set<int64_t> Produced, Virtual;
  for (const OpInfo &O : Pending)
    if (O.Out.Virtual)
      Virtual.insert(O.Out.Uid);
  while (!Pending.empty()) {
    auto Ready = std::find_if(Pending.begin(), Pending.end(), [&](const OpInfo &O) {
      return std::all_of(O.In.begin(), O.In.end(),
                         [&](const TensorInfo &T) { return !T.Set || !T.Virtual || Produced.count(T.Uid); });
    });
    if (Ready == Pending.end())
      return fail(CUDNN_STATUS_BAD_PARAM, "operation graph", "a virtual tensor is read but never written (or a cycle)");
    Produced.insert(Ready->Out.Uid);
    for (const TensorInfo &T : Ready->More)
      if (T.Set)
        Produced.insert(T.Uid);
    G->Ops.push_back(*Ready);
    Pending.erase(Ready);
  }
  D.G = G;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalizeHeur(Desc &D) {
  Desc *G = descAttr(D, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  cudnnBackendHeurMode_t Mode;
  if (!G || !scalar(D, CUDNN_ATTR_ENGINEHEUR_MODE, Mode))
    return fail(CUDNN_STATUS_BAD_PARAM, "engine heuristics", "a finalized operation graph and a mode are needed");
  D.G = G->G;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalizeEngine(Desc &D) {
  Desc *G = descAttr(D, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  int64_t Index = 0;
  if (!G || !scalar(D, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, Index))
    return fail(CUDNN_STATUS_BAD_PARAM, "engine", "an operation graph and a global index are needed");
  if (Index != 0)
    return fail(CUDNN_STATUS_NOT_SUPPORTED, "engine", "engine " + std::to_string(Index) + " does not exist (one engine: 0)");
  D.G = G->G;
  D.EngineIndex = 0;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalizeEngineCfg(Desc &D) {
  Desc *E = descAttr(D, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  if (!E)
    return fail(CUDNN_STATUS_BAD_PARAM, "engine config", "a finalized engine is needed");
  D.G = E->G;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalizePlan(Desc &D) {
  Desc *Cfg = descAttr(D, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  void *H = nullptr;
  scalar(D, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, H);
  if (!Cfg || !Cfg->G)
    return fail(CUDNN_STATUS_BAD_PARAM, "execution plan", "a finalized engine config is needed");
  D.G = Cfg->G;
  D.Handle = handleOf(static_cast<cudnnHandle_t>(H));
  if (!D.Handle)
    D.Handle = D.G->Handle;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalizeVariantPack(Desc &D) {
  std::vector<int64_t> Uids = ints(D, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS);
  const Attr *Ptrs = attr(D, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS);
  if (!Ptrs || Ptrs->Type != CUDNN_TYPE_VOID_PTR || static_cast<int64_t>(Uids.size()) != Ptrs->Count)
    return fail(CUDNN_STATUS_BAD_PARAM, "variant pack", "as many data pointers as unique ids are needed");
  D.Pack.clear();
  for (size_t I = 0; I < Uids.size(); ++I) {
    void *P;
    std::memcpy(&P, Ptrs->Bytes.data() + I * 8, 8);
    D.Pack[Uids[I]] = P;
  }
  scalar(D, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, D.Workspace);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalize(Desc &D) {
  switch (D.Type) {
  case CUDNN_BACKEND_TENSOR_DESCRIPTOR:
    return finalizeTensor(D);
  case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR:
    return finalizeConvolution(D);
  case CUDNN_BACKEND_POINTWISE_DESCRIPTOR:
    return finalizePointwise(D);
  case CUDNN_BACKEND_MATMUL_DESCRIPTOR:
    scalar(D, CUDNN_ATTR_MATMUL_COMP_TYPE, D.CompType);
    return CUDNN_STATUS_SUCCESS;
  case CUDNN_BACKEND_REDUCTION_DESCRIPTOR:
    if (!scalar(D, CUDNN_ATTR_REDUCTION_OPERATOR, D.Reduce))
      return fail(CUDNN_STATUS_BAD_PARAM, "reduction descriptor", "no operator");
    scalar(D, CUDNN_ATTR_REDUCTION_COMP_TYPE, D.CompType);
    return CUDNN_STATUS_SUCCESS;
  case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
    return finalizeConvOp(D, OpKind::ConvFwd);
  case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
    return finalizeConvOp(D, OpKind::ConvBwdData);
  case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
    return finalizeConvOp(D, OpKind::ConvBwdFilter);
  case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR:
    return finalizePointwiseOp(D);
  case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR:
    return finalizeMatmulOp(D);
  case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR:
    return finalizeReductionOp(D);
  case CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR:
    return finalizeReshapeOp(D);
  case CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR:
    return finalizeSdpaOp(D);
  case CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR:
    return finalizeSdpaBwdOp(D);
  case CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR:
    return finalizeNormOp(D, true);
  case CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR:
    return finalizeNormOp(D, false);
  case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
    return finalizeGraph(D);
  case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR:
    return finalizeHeur(D);
  case CUDNN_BACKEND_ENGINE_DESCRIPTOR:
    return finalizeEngine(D);
  case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR:
    return finalizeEngineCfg(D);
  case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:
    return finalizePlan(D);
  case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR:
    return finalizeVariantPack(D);
  case CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR:
  case CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR:
  case CUDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR:
  case CUDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR:
  case CUDNN_BACKEND_DEVICEPROP_DESCRIPTOR:
    return CUDNN_STATUS_SUCCESS; // our engine has no knobs, layouts or intermediates to describe
  default:
    return fail(CUDNN_STATUS_NOT_SUPPORTED, "cudnnBackendFinalize",
                "descriptor type " + std::to_string(int(D.Type)) + " is not supported");
  }
}

/// Copies \p Src's meaning into the caller-made descriptor \p Dst (of Dst's own type).
void populate(Desc &Dst, const Desc &Src) {
  Dst.G = Src.G;
  Dst.EngineIndex = Src.EngineIndex;
  Dst.Handle = Src.Handle;
  Dst.Finalized = true;
}

template <typename T> cudnnStatus_t answer(int64_t Requested, int64_t *Count, void *Out, const std::vector<T> &Vals) {
  if (Count)
    *Count = static_cast<int64_t>(Vals.size());
  // The frontend asks with a null array for the count, and passes an empty vector's data() when it is 0.
  int64_t N = std::min<int64_t>(Requested, static_cast<int64_t>(Vals.size()));
  if (N > 0 && !Out)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  for (int64_t I = 0; I < N; ++I)
    std::memcpy(static_cast<char *>(Out) + I * sizeof(T), &Vals[I], sizeof(T));
  return CUDNN_STATUS_SUCCESS;
}

/// Fills caller-made descriptors of type \p Want with \p Src's graph (heuristic results, an engine, a graph).
cudnnStatus_t answerDescs(int64_t Requested, int64_t *Count, void *Out, const Desc &Src, int64_t Available,
                          cudnnBackendDescriptorType_t Want) {
  if (Count)
    *Count = Available;
  if (std::min(Requested, Available) > 0 && !Out)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  for (int64_t I = 0; I < std::min(Requested, Available); ++I) {
    void *P;
    std::memcpy(&P, static_cast<char *>(Out) + I * 8, 8);
    Desc *Dst = descOf(P);
    if (!Dst || Dst->Type != Want)
      return CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE;
    populate(*Dst, Src);
  }
  return CUDNN_STATUS_SUCCESS;
}

// --- execution ----------------------------------------------------------------------------

/// The values of one graph run: virtual tensors (logical order) and the pointers of the rest.
struct RunState {
  std::map<int64_t, std::vector<double>> Virtual;
  std::map<int64_t, void *> Ptr;
  std::map<int64_t, std::vector<char>> ByValue; ///< host values copied when the graph was executed
};

/// Logical values of \p T, seen with \p Shape's dims (broadcasting its dims of 1).
std::vector<double> readInput(RunState &S, const TensorInfo &T, const Tensor &Shape) {
  Tensor View = T.T;
  std::vector<double> Own;
  const void *Src = nullptr;
  if (T.Virtual) {
    // A virtual tensor is stored packed in logical order.
    View = Tensor::packed(CUDNN_DATA_DOUBLE, T.T.Rank, T.T.Dim.data());
    Src = S.Virtual[T.Uid].data();
  } else if (T.ByValue) {
    Src = S.ByValue[T.Uid].data();
  } else {
    Src = S.Ptr[T.Uid];
  }
  for (int I = 0; I < View.Rank; ++I)
    if (View.Dim[I] != Shape.Dim[I]) {
      View.Dim[I] = Shape.Dim[I];
      View.Stride[I] = 0;
    }
  std::vector<double> R(View.count());
  gather(View, Src, R.data());
  return R;
}

void writeOutput(RunState &S, const TensorInfo &T, std::vector<double> Vals, double Alpha, double Beta) {
  if (T.Virtual) {
    for (double &V : Vals)
      V *= Alpha;
    S.Virtual[T.Uid] = std::move(Vals);
    return;
  }
  scatter(T.T, S.Ptr[T.Uid], Vals.data(), Alpha, Beta);
}

template <typename Acc> void runConv(RunState &S, const OpInfo &O) {
  const Tensor &A = O.In[0].T, &B = O.In[1].T, &Y = O.Out.T;
  auto load = [&](const TensorInfo &T) {
    std::vector<double> D = readInput(S, T, T.T);
    return std::vector<Acc>(D.begin(), D.end());
  };
  std::vector<Acc> In0 = load(O.In[0]), In1 = load(O.In[1]), Out(Y.count());
  if (O.Kind == OpKind::ConvFwd)
    convForward(O.C, A, In0.data(), B, In1.data(), Y, Out.data());
  else if (O.Kind == OpKind::ConvBwdData)
    convBackwardData(O.C, A, In0.data(), B, In1.data(), Y, Out.data());
  else
    convBackwardFilter(O.C, A, In0.data(), B, In1.data(), Y, Out.data());
  writeOutput(S, O.Out, std::vector<double>(Out.begin(), Out.end()), O.Alpha, O.Beta);
}

void runPointwise(RunState &S, const OpInfo &O) {
  const Tensor &Y = O.Out.T;
  std::vector<std::vector<double>> In;
  for (const TensorInfo &T : O.In)
    In.push_back(readInput(S, T, Y));
  std::vector<double> R(Y.count());
  if (O.PW.Mode == CUDNN_POINTWISE_GEN_INDEX) {
    // Each element's index along the axis (the causal masks of attention graphs compare two of these).
    int Axis = static_cast<int>(O.PW.Axis);
    int64_t Inner = 1;
    for (int D = Axis + 1; D < Y.Rank; ++D)
      Inner *= Y.Dim[D];
    for (size_t I = 0; I < R.size(); ++I)
      R[I] = double((static_cast<int64_t>(I) / Inner) % Y.Dim[Axis]);
    writeOutput(S, O.Out, std::move(R), 1, 0);
    return;
  }
  bool Bwd = pointwiseIsBackward(O.PW.Mode);
  for (size_t I = 0; I < R.size(); ++I) {
    double A = In[0][I], B = In.size() > 1 ? In[1][I] : 0, C = In.size() > 2 ? In[2][I] : 0;
    if (!Bwd) {
      A *= O.Alpha;
      B *= O.Alpha2;
    }
    R[I] = pointwiseApply(O.PW, A, B, C);
  }
  writeOutput(S, O.Out, std::move(R), 1, 0);
}

void runMatmul(RunState &S, const OpInfo &O) {
  const Tensor &At = O.In[0].T, &Bt = O.In[1].T, &Ct = O.Out.T;
  int R = Ct.Rank;
  std::vector<double> A = readInput(S, O.In[0], At), B = readInput(S, O.In[1], Bt), C(Ct.count(), 0.0);
  int64_t M = Ct.Dim[R - 2], N = Ct.Dim[R - 1], K = At.Dim[R - 1];
  int64_t Batches = Ct.count() / (M * N);
  for (int64_t Bi = 0; Bi < Batches; ++Bi) {
    // The batch index of a and b: their dims of 1 repeat.
    int64_t Ai = 0, Bj = 0, Rest = Bi, Am = 1, Bm = 1;
    for (int D = R - 3; D >= 0; --D) {
      int64_t Idx = Rest % Ct.Dim[D];
      Rest /= Ct.Dim[D];
      Ai += (At.Dim[D] == 1 ? 0 : Idx) * Am;
      Bj += (Bt.Dim[D] == 1 ? 0 : Idx) * Bm;
      Am *= At.Dim[D];
      Bm *= Bt.Dim[D];
    }
    const double *Ap = A.data() + Ai * M * K, *Bp = B.data() + Bj * K * N;
    double *Cp = C.data() + Bi * M * N;
    for (int64_t I = 0; I < M; ++I)
      for (int64_t Kk = 0; Kk < K; ++Kk) {
        double Av = Ap[I * K + Kk];
        for (int64_t J = 0; J < N; ++J)
          Cp[I * N + J] += Av * Bp[Kk * N + J];
      }
  }
  writeOutput(S, O.Out, std::move(C), 1, 0);
}

void runReduction(RunState &S, const OpInfo &O) {
  const Tensor &X = O.In[0].T, &Y = O.Out.T;
  std::vector<double> In = readInput(S, O.In[0], X);
  std::vector<double> R(Y.count());
  std::vector<int64_t> Counts(Y.count(), 0);
  double Init = O.Reduce == CUDNN_REDUCE_TENSOR_MUL ? 1
                : O.Reduce == CUDNN_REDUCE_TENSOR_MIN ? INFINITY
                : O.Reduce == CUDNN_REDUCE_TENSOR_MAX ? -INFINITY
                                                      : 0;
  std::fill(R.begin(), R.end(), Init);
  Tensor Yp = Tensor::packed(CUDNN_DATA_DOUBLE, Y.Rank, Y.Dim.data());
  std::array<int64_t, MaxDims> Idx{};
  for (int64_t L = 0; L < X.count(); ++L) {
    int64_t Rem = L, Out = 0;
    for (int D = X.Rank - 1; D >= 0; --D) {
      Idx[D] = Rem % X.Dim[D];
      Rem /= X.Dim[D];
    }
    for (int D = 0; D < X.Rank; ++D)
      Out += (Y.Dim[D] == 1 ? 0 : Idx[D]) * Yp.Stride[D];
    double V = In[L];
    double &A = R[Out];
    ++Counts[Out];
    switch (O.Reduce) {
    case CUDNN_REDUCE_TENSOR_ADD:
    case CUDNN_REDUCE_TENSOR_AVG:
      A += V;
      break;
    case CUDNN_REDUCE_TENSOR_MUL:
      A *= V;
      break;
    case CUDNN_REDUCE_TENSOR_MIN:
      A = std::min(A, V);
      break;
    case CUDNN_REDUCE_TENSOR_MAX:
      A = std::max(A, V);
      break;
    case CUDNN_REDUCE_TENSOR_AMAX:
      A = std::max(A, std::fabs(V));
      break;
    case CUDNN_REDUCE_TENSOR_NORM1:
      A += std::fabs(V);
      break;
    case CUDNN_REDUCE_TENSOR_NORM2:
      A += V * V;
      break;
    default:
      break;
    }
  }
  for (size_t I = 0; I < R.size(); ++I) {
    if (O.Reduce == CUDNN_REDUCE_TENSOR_AVG && Counts[I])
      R[I] /= double(Counts[I]);
    if (O.Reduce == CUDNN_REDUCE_TENSOR_NORM2)
      R[I] = std::sqrt(R[I]);
  }
  writeOutput(S, O.Out, std::move(R), 1, 0);
}

/// Element offsets of every logical index of \p T (dimension 0 outermost) under its strides.
std::vector<int64_t> offsetsOf(const Tensor &T) {
  std::vector<int64_t> R(T.count());
  std::array<int64_t, MaxDims> Idx{};
  for (int64_t L = 0; L < T.count(); ++L) {
    int64_t Rem = L, Off = 0;
    for (int D = T.Rank - 1; D >= 0; --D) {
      Idx[D] = Rem % T.Dim[D];
      Rem /= T.Dim[D];
      Off += Idx[D] * T.Stride[D];
    }
    R[L] = Off;
  }
  return R;
}

void runReshape(RunState &S, const OpInfo &O) {
  const Tensor &X = O.In[0].T, &Y = O.Out.T;
  std::vector<double> In = readInput(S, O.In[0], X), R(Y.count(), 0.0);
  // x's values laid out in memory as its strides say, read back with y's.
  std::vector<int64_t> XOff = offsetsOf(X), YOff = offsetsOf(Y);
  int64_t Span = 1;
  for (int64_t Off : XOff)
    Span = std::max(Span, Off + 1);
  std::vector<double> Image(static_cast<size_t>(Span), 0.0);
  for (size_t L = 0; L < In.size(); ++L)
    Image[XOff[L]] = In[L];
  for (size_t L = 0; L < R.size(); ++L)
    R[L] = YOff[L] >= 0 && YOff[L] < Span ? Image[YOff[L]] : 0.0;
  writeOutput(S, O.Out, std::move(R), 1, 0);
}

void runSdpa(RunState &S, const OpInfo &O) {
  const Tensor &Qt = O.In[0].T, &Kt = O.In[1].T, &Vt = O.In[2].T, &Ot = O.Out.T;
  std::vector<double> Q = readInput(S, O.In[0], Qt), K = readInput(S, O.In[1], Kt), V = readInput(S, O.In[2], Vt);
  double Scale = 1;
  if (O.In.size() > 3)
    Scale = readInput(S, O.In[3], O.In[3].T)[0];
  int64_t B = Qt.Dim[0], H = Qt.Dim[1], Sq = Qt.Dim[2], Dk = Qt.Dim[3], Hk = Kt.Dim[1], Hv = Vt.Dim[1],
          Skv = Kt.Dim[2], Dv = Vt.Dim[3];
  std::vector<double> Out(Ot.count(), 0.0), Lse(size_t(B * H * Sq), 0.0), Row(Skv);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      const double *Qp = &Q[((b * H + h) * Sq) * Dk], *Kp = &K[((b * Hk + h / (H / Hk)) * Skv) * Dk],
                   *Vp = &V[((b * Hv + h / (H / Hv)) * Skv) * Dv];
      for (int64_t i = 0; i < Sq; ++i) {
        double Max = -INFINITY;
        for (int64_t j = 0; j < Skv; ++j) {
          double A = 0;
          for (int64_t c = 0; c < Dk; ++c)
            A += Qp[i * Dk + c] * Kp[j * Dk + c];
          Row[j] = Scale * A;
          Max = std::max(Max, Row[j]);
        }
        double Sum = 0;
        for (int64_t j = 0; j < Skv; ++j)
          Sum += (Row[j] = std::exp(Row[j] - Max));
        double *Op = &Out[((b * H + h) * Sq + i) * Dv];
        for (int64_t j = 0; j < Skv; ++j)
          for (int64_t c = 0; c < Dv; ++c)
            Op[c] += Row[j] / Sum * Vp[j * Dv + c];
        Lse[(b * H + h) * Sq + i] = Max + std::log(Sum);
      }
    }
  writeOutput(S, O.Out, std::move(Out), 1, 0);
  if (O.More[0].Set)
    writeOutput(S, O.More[0], std::move(Lse), 1, 0);
}

/// dq, dk, dv of the unified attention: P = exp(scale q k^T - lse), dv = P^T do, dS = P (do v^T - rowsum(do o)),
/// dq = scale dS k, dk = scale dS^T q, per batch and head (a k/v head sums the gradients of its query heads).
void runSdpaBackward(RunState &S, const OpInfo &O) {
  const Tensor &Qt = O.In[0].T, &Kt = O.In[1].T, &Vt = O.In[2].T, &Ot = O.In[3].T;
  std::vector<double> Q = readInput(S, O.In[0], Qt), K = readInput(S, O.In[1], Kt), V = readInput(S, O.In[2], Vt),
                      Out = readInput(S, O.In[3], Ot), Lse = readInput(S, O.In[4], O.In[4].T),
                      DO = readInput(S, O.In[5], Ot);
  double Scale = O.In.size() > 6 ? readInput(S, O.In[6], O.In[6].T)[0] : 1.0;
  int64_t B = Qt.Dim[0], H = Qt.Dim[1], Sq = Qt.Dim[2], Dk = Qt.Dim[3], Hk = Kt.Dim[1], Hv = Vt.Dim[1], Skv = Kt.Dim[2],
          Dv = Vt.Dim[3];
  std::vector<double> DQ(Q.size(), 0.0), DK(K.size(), 0.0), DV(V.size(), 0.0), P(Skv), DS(Skv);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      int64_t Kh = (b * Hk + h / (H / Hk)) * Skv, Vh = (b * Hv + h / (H / Hv)) * Skv, Qh = (b * H + h) * Sq;
      for (int64_t i = 0; i < Sq; ++i) {
        const double *Qi = &Q[(Qh + i) * Dk], *Oi = &Out[(Qh + i) * Dv], *DOi = &DO[(Qh + i) * Dv];
        double L = Lse[Qh + i], Di = 0;
        for (int64_t c = 0; c < Dv; ++c)
          Di += DOi[c] * Oi[c];
        for (int64_t j = 0; j < Skv; ++j) {
          double A = 0, DP = 0;
          for (int64_t c = 0; c < Dk; ++c)
            A += Qi[c] * K[(Kh + j) * Dk + c];
          P[j] = std::exp(Scale * A - L);
          for (int64_t c = 0; c < Dv; ++c)
            DP += DOi[c] * V[(Vh + j) * Dv + c];
          DS[j] = P[j] * (DP - Di);
        }
        for (int64_t j = 0; j < Skv; ++j) {
          for (int64_t c = 0; c < Dv; ++c)
            DV[(Vh + j) * Dv + c] += P[j] * DOi[c];
          for (int64_t c = 0; c < Dk; ++c) {
            DQ[(Qh + i) * Dk + c] += Scale * DS[j] * K[(Kh + j) * Dk + c];
            DK[(Kh + j) * Dk + c] += Scale * DS[j] * Qi[c];
          }
        }
      }
    }
  writeOutput(S, O.Out, std::move(DQ), 1, 0);
  writeOutput(S, O.More[0], std::move(DK), 1, 0);
  writeOutput(S, O.More[1], std::move(DV), 1, 0);
}

/// The reduction groups of a norm: for each element of x (logical order) its group, which is the logical index
/// of its statistic in Shape (x's dims with the reduced dims 1).
struct NormGroups {
  std::vector<int64_t> Of;
  int64_t Groups = 1, PerGroup = 1;
  Tensor Shape; ///< x's dims with the reduced ones 1

  NormGroups(const Tensor &X, const std::vector<bool> &Reduced) {
    Shape = X;
    for (int D = 0; D < X.Rank; ++D) {
      if (Reduced[D]) {
        Shape.Dim[D] = 1;
        PerGroup *= X.Dim[D];
      } else {
        Groups *= X.Dim[D];
      }
    }
    Shape = Tensor::packed(CUDNN_DATA_DOUBLE, Shape.Rank, Shape.Dim.data());
    Of.resize(X.count());
    std::array<int64_t, MaxDims> Idx{};
    for (int64_t L = 0; L < X.count(); ++L) {
      int64_t Rem = L, G = 0;
      for (int D = X.Rank - 1; D >= 0; --D) {
        Idx[D] = Rem % X.Dim[D];
        Rem /= X.Dim[D];
      }
      for (int D = 0; D < X.Rank; ++D)
        G += (Reduced[D] ? 0 : Idx[D]) * Shape.Stride[D];
      Of[L] = G;
    }
  }
};

/// A per-group statistic written to \p T (whose dims must be the groups' shape).
void writeStat(RunState &S, const TensorInfo &T, const std::vector<double> &V, double Alpha = 1, double Beta = 0) {
  if (T.Set)
    writeOutput(S, T, V, Alpha, Beta);
}

void runNormForward(RunState &S, const OpInfo &O) {
  const TensorInfo &Xi = O.In[NX];
  const Tensor &X = Xi.T;
  bool Rms = O.Norm == CUDNN_RMS_NORM;
  const TensorInfo *Stat = O.Training ? (O.More[NOutInvVar].Set ? &O.More[NOutInvVar] : &O.More[NOutMean])
                                      : (O.In[NInvVar].Set ? &O.In[NInvVar] : nullptr);
  NormGroups G(X, normReduced(O.Norm, X, Stat, &O.In[NScale]));
  std::vector<double> x = readInput(S, Xi, X), Mean(G.Groups, 0.0), Var(G.Groups, 0.0), Inv(G.Groups);
  double Eps = O.In[NEps].Set ? readInput(S, O.In[NEps], O.In[NEps].T)[0] : 0;
  if (!O.Training && O.In[NMean].Set) {
    // Inference with given statistics (batch norm's running mean and inverse standard deviation).
    Mean = readInput(S, O.In[NMean], G.Shape);
    Inv = readInput(S, O.In[NInvVar], G.Shape);
  } else {
    if (!Rms) {
      for (size_t L = 0; L < x.size(); ++L)
        Mean[G.Of[L]] += x[L];
      for (double &M : Mean)
        M /= double(G.PerGroup);
    }
    for (size_t L = 0; L < x.size(); ++L) {
      double C = x[L] - Mean[G.Of[L]];
      Var[G.Of[L]] += C * C;
    }
    for (int64_t I = 0; I < G.Groups; ++I) {
      Var[I] /= double(G.PerGroup);
      Inv[I] = 1 / std::sqrt(Var[I] + Eps);
    }
  }
  std::vector<double> Scale = O.In[NScale].Set ? readInput(S, O.In[NScale], X) : std::vector<double>(),
                      Bias = O.In[NBias].Set ? readInput(S, O.In[NBias], X) : std::vector<double>(), y(x.size());
  for (size_t L = 0; L < x.size(); ++L) {
    double V = (x[L] - Mean[G.Of[L]]) * Inv[G.Of[L]];
    if (!Scale.empty())
      V *= Scale[L];
    if (!Bias.empty())
      V += Bias[L];
    y[L] = V;
  }
  writeOutput(S, O.Out, std::move(y), 1, 0);
  if (!O.Training)
    return;
  if (!Rms)
    writeStat(S, O.More[NOutMean], Mean);
  writeStat(S, O.More[NOutInvVar], Inv);
  if (O.More[NOutRunMean].Set) {
    // Running averages: new = (1 - f) old + f batch, the variance unbiased (as cuDNN's batch norm keeps it).
    double F = readInput(S, O.In[NFactor], O.In[NFactor].T)[0], N = double(G.PerGroup);
    std::vector<double> RunMean = readInput(S, O.In[NRunMean], G.Shape), RunVar = readInput(S, O.In[NRunVar], G.Shape);
    for (int64_t I = 0; I < G.Groups; ++I) {
      RunMean[I] = (1 - F) * RunMean[I] + F * Mean[I];
      RunVar[I] = (1 - F) * RunVar[I] + F * (N > 1 ? Var[I] * N / (N - 1) : Var[I]);
    }
    writeStat(S, O.More[NOutRunMean], RunMean);
    writeStat(S, O.More[NOutRunVar], RunVar);
  }
}

void runNormBackward(RunState &S, const OpInfo &O) {
  const Tensor &X = O.In[NX].T;
  bool Rms = O.Norm == CUDNN_RMS_NORM;
  NormGroups G(X, normReduced(O.Norm, X, &O.In[NInvVar], &O.In[NScale]));
  std::vector<double> x = readInput(S, O.In[NX], X), dy = readInput(S, O.In[NDy], X),
                      Scale = readInput(S, O.In[NScale], X), Inv = readInput(S, O.In[NInvVar], G.Shape),
                      Mean = Rms ? std::vector<double>(G.Groups, 0.0) : readInput(S, O.In[NMean], G.Shape);
  // xhat = (x - mean) inv; g = dy scale; dx = inv (g - mean(g) - xhat mean(g xhat)) over each group (RMS norm:
  // no mean term).
  std::vector<double> Xhat(x.size()), SumG(G.Groups, 0.0), SumGX(G.Groups, 0.0), dx(x.size());
  for (size_t L = 0; L < x.size(); ++L) {
    int64_t Gi = G.Of[L];
    Xhat[L] = (x[L] - Mean[Gi]) * Inv[Gi];
    double Gv = dy[L] * Scale[L];
    SumG[Gi] += Gv;
    SumGX[Gi] += Gv * Xhat[L];
  }
  double N = double(G.PerGroup);
  for (size_t L = 0; L < x.size(); ++L) {
    int64_t Gi = G.Of[L];
    double Gv = dy[L] * Scale[L];
    dx[L] = Inv[Gi] * (Gv - (Rms ? 0 : SumG[Gi] / N) - Xhat[L] * SumGX[Gi] / N);
  }
  writeOutput(S, O.Out, std::move(dx), 1, 0);
  // dscale = sum(dy xhat), dbias = sum(dy) over the dims the parameter does not span.
  for (int K = 0; K < 2; ++K) {
    const TensorInfo &T = O.More[K];
    if (!T.Set)
      continue;
    std::vector<bool> Reduced(X.Rank);
    for (int D = 0; D < X.Rank; ++D)
      Reduced[D] = T.T.Dim[D] == 1;
    NormGroups P(X, Reduced);
    std::vector<double> Acc(P.Groups, 0.0);
    for (size_t L = 0; L < x.size(); ++L)
      Acc[P.Of[L]] += K == 0 ? dy[L] * Xhat[L] : dy[L];
    writeOutput(S, T, std::move(Acc), 1, 0);
  }
}

void runGraph(const Graph &G, RunState &S) {
  for (const OpInfo &O : G.Ops) {
    switch (O.Kind) {
    case OpKind::ConvFwd:
    case OpKind::ConvBwdData:
    case OpKind::ConvBwdFilter:
      if (O.C.Compute == CUDNN_DATA_DOUBLE || O.Out.T.Type == CUDNN_DATA_DOUBLE)
        runConv<double>(S, O);
      else
        runConv<float>(S, O);
      break;
    case OpKind::Pointwise:
      runPointwise(S, O);
      break;
    case OpKind::Matmul:
      runMatmul(S, O);
      break;
    case OpKind::Reduction:
      runReduction(S, O);
      break;
    case OpKind::Reshape:
      runReshape(S, O);
      break;
    case OpKind::Sdpa:
      runSdpa(S, O);
      break;
    case OpKind::SdpaBwd:
      runSdpaBackward(S, O);
      break;
    case OpKind::NormFwd:
      runNormForward(S, O);
      break;
    case OpKind::NormBwd:
      runNormBackward(S, O);
      break;
    }
  }
}

} // namespace

// --- the entry points ---------------------------------------------------------------------

static cudnnStatus_t cudnnBackendCreateDescriptorImpl(cudnnBackendDescriptorType_t Type, cudnnBackendDescriptor_t *Out) {
  if (!Out)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (Type < CUDNN_BACKEND_POINTWISE_DESCRIPTOR || Type > CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR)
    return CUDNN_STATUS_BAD_PARAM;
  *Out = libs::Live<Desc>::add(new Desc(Type));
  return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t cudnnBackendDestroyDescriptorImpl(cudnnBackendDescriptor_t D) {
  return libs::Live<Desc>::destroy(D) ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
}

static cudnnStatus_t cudnnBackendInitializeImpl(cudnnBackendDescriptor_t P) {
  Desc *D = descOf(P);
  if (!D)
    return CUDNN_STATUS_BAD_PARAM;
  *D = Desc(D->Type);
  return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t cudnnBackendSetAttributeImpl(cudnnBackendDescriptor_t P, cudnnBackendAttributeName_t Name,
                                                 cudnnBackendAttributeType_t Type, int64_t Count, const void *Values) {
  Desc *D = descOf(P);
  if (!D)
    return CUDNN_STATUS_BAD_PARAM;
  if (D->Finalized)
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendSetAttribute", "the descriptor is already finalized");
  if (Count < 0 || (Count > 0 && !Values))
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  Attr A{Type, Count, {}};
  size_t Bytes = attrElemSize(Type) * static_cast<size_t>(Count);
  A.Bytes.assign(static_cast<const char *>(Values), static_cast<const char *>(Values) + Bytes);
  D->Attrs[Name] = std::move(A);
  return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t cudnnBackendFinalizeImpl(cudnnBackendDescriptor_t P) {
  Desc *D = descOf(P);
  if (!D)
    return CUDNN_STATUS_BAD_PARAM;
  if (D->Finalized)
    return CUDNN_STATUS_BAD_PARAM;
  cudnnStatus_t S = finalize(*D);
  D->Finalized = S == CUDNN_STATUS_SUCCESS;
  return S;
}

static cudnnStatus_t cudnnBackendGetAttributeImpl(cudnnBackendDescriptor_t P, cudnnBackendAttributeName_t Name,
                                                 cudnnBackendAttributeType_t Type, int64_t Requested, int64_t *Count,
                                                 void *Out) {
  Desc *D = descOf(P);
  if (!D || Requested < 0)
    return CUDNN_STATUS_BAD_PARAM;
  if (!D->Finalized)
    return CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED;
  auto expect = [&](cudnnBackendAttributeType_t T) { return Type == T; };
  switch (static_cast<int>(Name)) {
  case CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT:
    if (!expect(CUDNN_TYPE_INT64))
      return CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE;
    return answer<int64_t>(Requested, Count, Out, {1});
  case CUDNN_ATTR_ENGINEHEUR_RESULTS:
    if (!expect(CUDNN_TYPE_BACKEND_DESCRIPTOR))
      return CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE;
    return answerDescs(Requested, Count, Out, *D, 1, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  case CUDNN_ATTR_ENGINECFG_ENGINE:
  case CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG:
    if (!expect(CUDNN_TYPE_BACKEND_DESCRIPTOR))
      return CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE;
    return answerDescs(Requested, Count, Out, *D, 1,
                       Name == CUDNN_ATTR_ENGINECFG_ENGINE ? CUDNN_BACKEND_ENGINE_DESCRIPTOR
                                                           : CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  case CUDNN_ATTR_ENGINE_OPERATION_GRAPH:
    if (!expect(CUDNN_TYPE_BACKEND_DESCRIPTOR))
      return CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE;
    return answerDescs(Requested, Count, Out, *D, 1, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  case CUDNN_ATTR_ENGINE_GLOBAL_INDEX:
    if (!expect(CUDNN_TYPE_INT64))
      return CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE;
    return answer<int64_t>(Requested, Count, Out, {D->EngineIndex});
  case CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE:
  case CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE:
    if (!expect(CUDNN_TYPE_INT64))
      return CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE;
    return answer<int64_t>(Requested, Count, Out, {0}); // virtual tensors live in host memory of ours
  case CUDNN_ATTR_ENGINECFG_SHARED_MEMORY_USED:
    // The frontend reads it as INT32 (norm graphs): the width follows the type asked for.
    if (expect(CUDNN_TYPE_INT32))
      return answer<int32_t>(Requested, Count, Out, {0});
    if (!expect(CUDNN_TYPE_INT64))
      return CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE;
    return answer<int64_t>(Requested, Count, Out, {0});
  case CUDNN_ATTR_ENGINE_KNOB_INFO:
  case CUDNN_ATTR_ENGINE_LAYOUT_INFO:
  case CUDNN_ATTR_ENGINECFG_KNOB_CHOICES:
  case CUDNN_ATTR_ENGINECFG_INTERMEDIATE_INFO:
    return answer<void *>(Requested, Count, Out, {}); // no knobs, layouts or intermediates
  case CUDNN_ATTR_ENGINE_NUMERICAL_NOTE:
  case CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE:
    // No notes: exact in the tensors' precision (float or double accumulation), deterministic, no runtime compile.
    return answer<int32_t>(Requested, Count, Out, {});
  case CUDNN_ATTR_EXECUTION_PLAN_COMPUTED_INTERMEDIATE_UIDS:
  case CUDNN_ATTR_EXECUTION_PLAN_RUN_ONLY_INTERMEDIATE_UIDS:
    return answer<int64_t>(Requested, Count, Out, {});
  case CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION: {
    std::string J = "{\"engine\":\"zluda-host\",\"global_index\":0,\"ops\":" +
                    std::to_string(D->G ? D->G->Ops.size() : 0) + "}";
    std::vector<char> Chars(J.begin(), J.end());
    Chars.push_back('\0');
    return answer<char>(Requested, Count, Out, Chars);
  }
  default:
    break;
  }
  // Anything else that was set: returned as set.
  const Attr *A = attr(*D, Name);
  if (!A)
    return fail(CUDNN_STATUS_NOT_SUPPORTED, "cudnnBackendGetAttribute",
                "attribute " + std::to_string(int(Name)) + " of descriptor type " + std::to_string(int(D->Type)) +
                    " is not available");
  if (A->Type != Type)
    return CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE;
  if (Count)
    *Count = A->Count;
  int64_t N = std::min(Requested, A->Count);
  if (N > 0 && !Out)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (N > 0)
    std::memcpy(Out, A->Bytes.data(), attrElemSize(Type) * static_cast<size_t>(N));
  return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t cudnnBackendExecuteImpl(cudnnHandle_t Handle, cudnnBackendDescriptor_t PlanP,
                                            cudnnBackendDescriptor_t PackP) {
  cudnnContext *Ctx = handleOf(Handle);
  Desc *Plan = descOf(PlanP), *Pack = descOf(PackP);
  if (!Ctx || !Plan || !Pack || Plan->Type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR ||
      Pack->Type != CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR)
    return CUDNN_STATUS_BAD_PARAM;
  if (!Plan->Finalized || !Pack->Finalized || !Plan->G)
    return CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED;
  // Every non-virtual tensor needs a pointer: the buffers of the call, in the order first seen.
  std::vector<Buffer> Bufs;
  std::vector<int64_t> Order;
  std::map<int64_t, size_t> Slot;
  std::set<int64_t> Written;
  for (const OpInfo &O : Plan->G->Ops) {
    if (!O.Out.Virtual)
      Written.insert(O.Out.Uid);
    for (const TensorInfo &T : O.More)
      if (T.Set && !T.Virtual)
        Written.insert(T.Uid);
  }
  std::map<int64_t, std::vector<char>> ByValue;
  auto need = [&](const TensorInfo &T) -> cudnnStatus_t {
    if (!T.Set || T.Virtual || Slot.count(T.Uid) || ByValue.count(T.Uid))
      return CUDNN_STATUS_SUCCESS;
    auto It = Pack->Pack.find(T.Uid);
    if (It == Pack->Pack.end() || !It->second)
      return fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendExecute",
                  "the variant pack has no pointer for tensor " + std::to_string(T.Uid));
    if (T.ByValue) { // a scalar in host memory, read now as the reference reads it
      const char *P = static_cast<const char *>(It->second);
      ByValue[T.Uid].assign(P, P + T.T.spanBytes());
      return CUDNN_STATUS_SUCCESS;
    }
    Slot[T.Uid] = Bufs.size();
    Bufs.push_back({It->second, T.T.spanBytes(), true, Written.count(T.Uid) != 0});
    Order.push_back(T.Uid);
    return CUDNN_STATUS_SUCCESS;
  };
  for (const OpInfo &O : Plan->G->Ops) {
    for (const TensorInfo &T : O.In)
      if (cudnnStatus_t S = need(T))
        return S;
    if (cudnnStatus_t S = need(O.Out))
      return S;
    for (const TensorInfo &T : O.More)
      if (cudnnStatus_t S = need(T))
        return S;
  }
  std::shared_ptr<Graph> G = Plan->G;
  return runOnStream(Ctx->Stream, std::move(Bufs), [G, Order, ByValue](const std::vector<void *> &P) {
    RunState S;
    S.ByValue = ByValue;
    for (size_t I = 0; I < Order.size(); ++I)
      S.Ptr[Order[I]] = P[I];
    runGraph(*G, S);
  });
}

// --- the exported entry points: each call and its status at ZLUDA_LOG=debug --------------------

namespace {
int descType(const void *P) {
  Desc *D = descOf(const_cast<void *>(P));
  return D ? int(D->Type) : -1;
}
} // namespace

CUDNN_API cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t Type, cudnnBackendDescriptor_t *Out) {
  cudnnStatus_t S = cudnnBackendCreateDescriptorImpl(Type, Out);
  ZLUDA_LOG_DEBUG("cuDNN: cudnnBackendCreateDescriptor(type {}) = {} {}", int(Type), int(S), Out ? *Out : nullptr);
  return S;
}
CUDNN_API cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t D) {
  cudnnStatus_t S = cudnnBackendDestroyDescriptorImpl(D);
  ZLUDA_LOG_TRACE("cuDNN: cudnnBackendDestroyDescriptor({}) = {}", D, int(S));
  return S;
}
CUDNN_API cudnnStatus_t cudnnBackendInitialize(cudnnBackendDescriptor_t D) {
  cudnnStatus_t S = cudnnBackendInitializeImpl(D);
  ZLUDA_LOG_DEBUG("cuDNN: cudnnBackendInitialize({}) = {}", D, int(S));
  return S;
}
CUDNN_API cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t D, cudnnBackendAttributeName_t Name,
                                                 cudnnBackendAttributeType_t Type, int64_t Count, const void *Values) {
  cudnnStatus_t S = cudnnBackendSetAttributeImpl(D, Name, Type, Count, Values);
  ZLUDA_LOG_DEBUG("cuDNN: cudnnBackendSetAttribute({} type {}, attribute {}, attribute type {}, count {}) = {}", D,
                  descType(D), int(Name), int(Type), Count, int(S));
  return S;
}
CUDNN_API cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t D) {
  int T = descType(D);
  cudnnStatus_t S = cudnnBackendFinalizeImpl(D);
  ZLUDA_LOG_DEBUG("cuDNN: cudnnBackendFinalize({} type {}) = {}", D, T, int(S));
  return S;
}
CUDNN_API cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t D, cudnnBackendAttributeName_t Name,
                                                 cudnnBackendAttributeType_t Type, int64_t Requested, int64_t *Count,
                                                 void *Out) {
  cudnnStatus_t S = cudnnBackendGetAttributeImpl(D, Name, Type, Requested, Count, Out);
  ZLUDA_LOG_DEBUG("cuDNN: cudnnBackendGetAttribute({} type {}, attribute {}, attribute type {}, requested {}) = {}, count {}",
                  D, descType(D), int(Name), int(Type), Requested, int(S), Count ? *Count : -1);
  return S;
}
CUDNN_API cudnnStatus_t cudnnBackendExecute(cudnnHandle_t Handle, cudnnBackendDescriptor_t Plan,
                                            cudnnBackendDescriptor_t Pack) {
  cudnnStatus_t S = cudnnBackendExecuteImpl(Handle, Plan, Pack);
  ZLUDA_LOG_DEBUG("cuDNN: cudnnBackendExecute(handle {}, plan {}, pack {}) = {}", static_cast<void *>(Handle), Plan,
                  Pack, int(S));
  return S;
}
