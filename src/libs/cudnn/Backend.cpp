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
/// The shared descriptor state is in BackendImpl.h; the attention and norm operations in
/// BackendOps.cpp.
#include "libs/cudnn/BackendImpl.h"

#include "common/Log.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>

using namespace zluda::dnn;
using namespace zluda::dnn::backend;

namespace {

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
