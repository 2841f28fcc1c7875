//===- Graphs.cpp - CUDA graphs and stream capture -------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The runtime's graph API over the driver's graphs (src/driver/Graph.cpp),
/// which hold the semantics: insertion order is replay order, captured kernel
/// arguments are copied at capture.
#include "driver/Internal.h"
#include "zluda/cuda_runtime_abi.h"

#include <cstring>
#include <functional>
#include <map>
#include <mutex>

#define CUDART_EXPORT extern "C" __attribute__((visibility("default")))

using namespace zluda::driver;

namespace zluda::runtime {
cudaError_t runtimeCall(const std::function<cudaError_t()> &F);
cudaError_t fromDriver(CUresult R);
cudaError_t kernelFunction(const void *Stub, Function *&Out);
/// A copy checked against its direction; \p Async enqueues it on \p St.
cudaError_t copyKind(void *Dst, const void *Src, size_t N, cudaMemcpyKind Kind, cudaStream_t St = nullptr,
                     bool Async = false);

// Recording hooks used by RuntimeMemory.cpp; kernel launches are captured by
// the driver's launch itself.
bool captureCopy(cudaStream_t S, void *Dst, const void *Src, size_t N, cudaMemcpyKind K) {
  return captureNode(S, [&] {
    GraphNode X;
    X.Type = GraphNode::NT_Memcpy;
    X.Run = [=](CUstream S) {
      return copyKind(Dst, Src, N, K, S, true) == cudaSuccess ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    };
    return X;
  });
}
bool captureMemset(cudaStream_t S, void *Dst, int V, size_t N) {
  return captureNode(S, [&] { return memsetNode(reinterpret_cast<uintptr_t>(Dst), static_cast<uint8_t>(V), 1, N, 1, 0); });
}
bool captureHost(cudaStream_t S, cudaHostFn_t Fn, void *User) {
  return captureNode(S, [&] { return hostNode(Fn, User); });
}
} // namespace zluda::runtime

using namespace zluda::runtime;
#define API(...) return runtimeCall([&]() -> cudaError_t { __VA_ARGS__ })

using cudaGraph_t = Graph *;
using cudaGraphExec_t = GraphExec *;
using cudaGraphNode_t = GraphNode *;

static cudaError_t added(cudaGraphNode_t *Out, cudaGraph_t G, const cudaGraphNode_t *Deps, size_t NumDeps, GraphNode N) {
  if (!Out)
    return cudaErrorInvalidValue;
  return fromDriver(graphAddNode(G, Deps, NumDeps, std::move(N), *Out));
}

ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphCreate, (cudaGraph_t *Out, unsigned Flags), (Out, Flags)) {
  API({
    if (!Out || Flags)
      return cudaErrorInvalidValue;
    return fromDriver(graphCreate(*Out));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphDestroy, (cudaGraph_t G), (G)) { API({ return fromDriver(graphDestroy(G)); }); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphAddKernelNode, (cudaGraphNode_t *Out, cudaGraph_t G, const cudaGraphNode_t *Deps, size_t NumDeps, const cudaKernelNodeParams *P), (Out, G, Deps, NumDeps, P)) {
  API({
    if (!P || (!P->kernelParams && !P->extra))
      return cudaErrorInvalidValue;
    Function *F;
    if (cudaError_t E = kernelFunction(P->func, F))
      return E;
    return added(Out, G, Deps, NumDeps,
                 kernelNode(F, {P->gridDim.x, P->gridDim.y, P->gridDim.z}, {P->blockDim.x, P->blockDim.y, P->blockDim.z},
                            P->sharedMemBytes, P->kernelParams, P->extra));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphAddMemsetNode, (cudaGraphNode_t *Out, cudaGraph_t G, const cudaGraphNode_t *Deps, size_t NumDeps, const cudaMemsetParams *P), (Out, G, Deps, NumDeps, P)) {
  API({
    if (!P || (P->elementSize != 1 && P->elementSize != 2 && P->elementSize != 4))
      return cudaErrorInvalidValue;
    return added(Out, G, Deps, NumDeps,
                 memsetNode(reinterpret_cast<uintptr_t>(P->dst), P->value, P->elementSize, P->width, P->height, P->pitch));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphAddMemcpyNode1D, (cudaGraphNode_t *Out, cudaGraph_t G, const cudaGraphNode_t *Deps, size_t NumDeps, void *Dst, const void *Src, size_t N, cudaMemcpyKind K), (Out, G, Deps, NumDeps, Dst, Src, N, K)) {
  API({
    GraphNode X;
    X.Type = GraphNode::NT_Memcpy;
    X.Run = [=](CUstream S) {
      return copyKind(Dst, Src, N, K, S, true) == cudaSuccess ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    };
    return added(Out, G, Deps, NumDeps, std::move(X));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphAddHostNode, (cudaGraphNode_t *Out, cudaGraph_t G, const cudaGraphNode_t *Deps, size_t NumDeps, const cudaHostNodeParams *P), (Out, G, Deps, NumDeps, P)) {
  API({
    if (!P || !P->fn)
      return cudaErrorInvalidValue;
    return added(Out, G, Deps, NumDeps, hostNode(P->fn, P->userData));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphAddEmptyNode, (cudaGraphNode_t *Out, cudaGraph_t G, const cudaGraphNode_t *Deps, size_t NumDeps), (Out, G, Deps, NumDeps)) {
  API({
    GraphNode X;
    X.Run = [](CUstream) { return CUDA_SUCCESS; };
    return added(Out, G, Deps, NumDeps, std::move(X));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphGetNodes, (cudaGraph_t G, cudaGraphNode_t *Nodes, size_t *Num), (G, Nodes, Num)) {
  API({
    if (!Num || !isLive(G, Kind::Graph))
      return cudaErrorInvalidValue;
    if (Nodes)
      for (size_t I = 0; I < std::min(*Num, G->Nodes.size()); ++I)
        Nodes[I] = G->Nodes[I].get();
    *Num = G->Nodes.size();
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphNodeGetType, (cudaGraphNode_t N, int *Type), (N, Type)) {
  API({
    if (!isLive(N, Kind::GraphNode) || !Type)
      return cudaErrorInvalidValue;
    *Type = N->Type;
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphInstantiate, (cudaGraphExec_t *Out, cudaGraph_t G, unsigned long long Arg2), (Out, G, Arg2)) {
  API({
    if (!Out)
      return cudaErrorInvalidValue;
    return fromDriver(graphInstantiate(G, *Out));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphInstantiateWithFlags, (cudaGraphExec_t *Out, cudaGraph_t G, unsigned long long F), (Out, G, F)) {
  return cudaGraphInstantiate(Out, G, F);
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphLaunch, (cudaGraphExec_t E, cudaStream_t S), (E, S)) { API({ return fromDriver(graphLaunch(E, S)); }); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphLaunch_ptsz, (cudaGraphExec_t E, cudaStream_t S), (E, S)) { return cudaGraphLaunch(E, S); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphUpload, (cudaGraphExec_t E, cudaStream_t S), (E, S)) {
  API({ return isLive(E, Kind::GraphExec) ? fromDriver(streamCheck(S)) : cudaErrorInvalidValue; });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphExecDestroy, (cudaGraphExec_t E), (E)) { API({ return fromDriver(graphExecDestroy(E)); }); }

// --- stream capture ------------------------------------------------------------------

ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamBeginCapture, (cudaStream_t S, int /*mode*/ Arg1), (S, Arg1)) { API({ return fromDriver(beginCapture(S)); }); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamBeginCapture_ptsz, (cudaStream_t S, int M), (S, M)) { return cudaStreamBeginCapture(S, M); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamEndCapture, (cudaStream_t S, cudaGraph_t *Out), (S, Out)) {
  API({
    if (!Out)
      return cudaErrorInvalidValue;
    return fromDriver(endCapture(S, *Out));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamEndCapture_ptsz, (cudaStream_t S, cudaGraph_t *Out), (S, Out)) { return cudaStreamEndCapture(S, Out); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamIsCapturing, (cudaStream_t S, int *Status), (S, Status)) {
  API({
    if (!Status)
      return cudaErrorInvalidValue;
    *Status = isCapturing(S) ? 1 : 0; // cudaStreamCaptureStatusActive / None
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamIsCapturing_ptsz, (cudaStream_t S, int *Status), (S, Status)) { return cudaStreamIsCapturing(S, Status); }
