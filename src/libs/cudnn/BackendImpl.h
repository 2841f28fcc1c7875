//===- BackendImpl.h - cuDNN's backend API: what its files share ----------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The descriptors of the backend (graph) API as Backend.cpp keeps them, their attribute
/// readers, and the run state of an executed graph; the attention and norm operations live in
/// BackendOps.cpp.
#ifndef ZLUDA_LIBS_CUDNN_BACKENDIMPL_H
#define ZLUDA_LIBS_CUDNN_BACKENDIMPL_H

#include "libs/cudnn/Descriptors.h"

#include <cstring>
#include <map>
#include <memory>
#include <set>

namespace zluda::dnn::backend {

using namespace zluda::dnn;
namespace libs = zluda::libs;

inline size_t attrElemSize(cudnnBackendAttributeType_t T) {
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

inline Desc *descOf(void *P) { return libs::Live<Desc>::find(P); }

inline const Attr *attr(const Desc &D, int Name) {
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
inline std::vector<int64_t> ints(const Desc &D, int Name) {
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
inline bool real(const Desc &D, int Name, double &Out) {
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
inline Desc *descAttr(const Desc &D, int Name, cudnnBackendDescriptorType_t Want) {
  void *P = nullptr;
  const Attr *A = attr(D, Name);
  if (!A || A->Type != CUDNN_TYPE_BACKEND_DESCRIPTOR || !scalar(D, Name, P))
    return nullptr;
  Desc *R = descOf(P);
  return R && R->Type == Want && R->Finalized ? R : nullptr;
}
inline std::vector<Desc *> descArray(const Desc &D, int Name) {
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

inline const TensorInfo *tensorAttr(const Desc &D, int Name) {
  Desc *T = descAttr(D, Name, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  return T ? &T->Tensor_ : nullptr;
}

/// Every dim of \p A equal to \p Out's or 1 (broadcast).
inline bool broadcasts(const Tensor &A, const Tensor &Out) {
  if (A.Rank != Out.Rank)
    return false;
  for (int I = 0; I < A.Rank; ++I)
    if (A.Dim[I] != Out.Dim[I] && A.Dim[I] != 1)
      return false;
  return true;
}

/// The values of one graph run: virtual tensors (logical order) and the pointers of the rest.
struct RunState {
  std::map<int64_t, std::vector<double>> Virtual;
  std::map<int64_t, void *> Ptr;
  std::map<int64_t, std::vector<char>> ByValue; ///< host values copied when the graph was executed
};

/// Logical values of \p T, seen with \p Shape's dims (broadcasting its dims of 1).
inline std::vector<double> readInput(RunState &S, const TensorInfo &T, const Tensor &Shape) {
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

inline void writeOutput(RunState &S, const TensorInfo &T, std::vector<double> Vals, double Alpha, double Beta) {
  if (T.Virtual) {
    for (double &V : Vals)
      V *= Alpha;
    S.Virtual[T.Uid] = std::move(Vals);
    return;
  }
  scatter(T.T, S.Ptr[T.Uid], Vals.data(), Alpha, Beta);
}


// The attention and norm operations (BackendOps.cpp).
cudnnStatus_t finalizeSdpaOp(Desc &D);
cudnnStatus_t finalizeSdpaBwdOp(Desc &D);
cudnnStatus_t finalizeNormOp(Desc &D, bool Forward);
void runSdpa(RunState &S, const OpInfo &O);
void runSdpaBackward(RunState &S, const OpInfo &O);
void runNormForward(RunState &S, const OpInfo &O);
void runNormBackward(RunState &S, const OpInfo &O);

} // namespace zluda::dnn::backend

#endif // ZLUDA_LIBS_CUDNN_BACKENDIMPL_H
