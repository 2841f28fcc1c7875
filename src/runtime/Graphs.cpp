//===- Graphs.cpp - CUDA graphs and stream capture -------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The runtime's graph API over the driver's graphs (src/driver/Graph.cpp),
/// which hold the semantics: insertion order is replay order, captured kernel
/// arguments are copied at capture.
#include "driver/Internal.h"
#include "zluda/cuda_runtime_abi.h"

#include <cstddef>
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
/// The host stub a kernel was registered with (the function itself when it was not).
const void *kernelStub(Function *F);
/// A copy checked against its direction; \p Async enqueues it on \p St.
cudaError_t copyKind(void *Dst, const void *Src, size_t N, cudaMemcpyKind Kind, cudaStream_t St = nullptr,
                     bool Async = false);
cudaError_t memcpy3DParms(const cudaMemcpy3DParms *P, cudaStream_t St, bool Async);

/// A kernel node from the runtime's parameters (a registered kernel's host
/// function, or a cudaKernel_t).
cudaError_t runtimeKernelNode(const void *Func, dim3 Grid, dim3 Block, unsigned Shared, void **Params, void **Extra,
                              GraphNode &Out) {
  if (!Params && !Extra)
    return cudaErrorInvalidValue;
  Function *F;
  if (cudaError_t E = kernelFunction(Func, F))
    return E;
  Out = kernelNode(F, {Grid.x, Grid.y, Grid.z}, {Block.x, Block.y, Block.z}, Shared, Params, Extra);
  return cudaSuccess;
}
/// A memcpy node of the runtime's 3D copy parameters (copied now, run in stream order).
GraphNode runtimeMemcpyNode(const cudaMemcpy3DParms &P) {
  GraphNode X;
  X.Type = GraphNode::NT_Memcpy;
  X.Label = "3D copy";
  X.Run = [Copy = P](CUstream S) {
    return memcpy3DParms(&Copy, S, true) == cudaSuccess ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  };
  return X;
}

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
    if (!P)
      return cudaErrorInvalidValue;
    GraphNode X;
    if (cudaError_t E = runtimeKernelNode(P->func, P->gridDim, P->blockDim, P->sharedMemBytes, P->kernelParams, P->extra, X))
      return E;
    return added(Out, G, Deps, NumDeps, std::move(X));
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

// --- the rest of the graph API, over the driver's exports ------------------------------------
#define CG(X) reinterpret_cast<CUgraph>(X)
#define NODES(X) reinterpret_cast<void *const *>(X)

ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphClone, (cudaGraph_t * Out, cudaGraph_t G), (Out, G)) {
  API({ return fromDriver(cuGraphClone(reinterpret_cast<CUgraph *>(Out), CG(G))); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphAddChildGraphNode,
                    (cudaGraphNode_t * Out, cudaGraph_t G, const cudaGraphNode_t *Deps, size_t N, cudaGraph_t Child),
                    (Out, G, Deps, N, Child)) {
  API({ return fromDriver(cuGraphAddChildGraphNode(reinterpret_cast<void **>(Out), CG(G), NODES(Deps), N, CG(Child))); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphChildGraphNodeGetGraph, (cudaGraphNode_t N, cudaGraph_t *Out), (N, Out)) {
  API({ return fromDriver(cuGraphChildGraphNodeGetGraph(N, reinterpret_cast<CUgraph *>(Out))); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphExecChildGraphNodeSetParams,
                    (cudaGraphExec_t E, cudaGraphNode_t N, cudaGraph_t Child), (E, N, Child)) {
  API({ return fromDriver(cuGraphExecChildGraphNodeSetParams(E, N, CG(Child))); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphAddEventRecordNode,
                    (cudaGraphNode_t * Out, cudaGraph_t G, const cudaGraphNode_t *Deps, size_t N, cudaEvent_t E),
                    (Out, G, Deps, N, E)) {
  API({ return fromDriver(cuGraphAddEventRecordNode(reinterpret_cast<void **>(Out), CG(G), NODES(Deps), N, E)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphAddEventWaitNode,
                    (cudaGraphNode_t * Out, cudaGraph_t G, const cudaGraphNode_t *Deps, size_t N, cudaEvent_t E),
                    (Out, G, Deps, N, E)) {
  API({ return fromDriver(cuGraphAddEventWaitNode(reinterpret_cast<void **>(Out), CG(G), NODES(Deps), N, E)); });
}
// cudaMemAllocNodeParams has the layout of CUDA_MEM_ALLOC_NODE_PARAMS (dptr a void *).
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphAddMemAllocNode,
                    (cudaGraphNode_t * Out, cudaGraph_t G, const cudaGraphNode_t *Deps, size_t N, void *P),
                    (Out, G, Deps, N, P)) {
  API({ return fromDriver(cuGraphAddMemAllocNode(reinterpret_cast<void **>(Out), CG(G), NODES(Deps), N,
                                                  static_cast<CUDA_MEM_ALLOC_NODE_PARAMS *>(P))); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphAddMemFreeNode,
                    (cudaGraphNode_t * Out, cudaGraph_t G, const cudaGraphNode_t *Deps, size_t N, void *P),
                    (Out, G, Deps, N, P)) {
  API({
    return fromDriver(
        cuGraphAddMemFreeNode(reinterpret_cast<void **>(Out), CG(G), NODES(Deps), N, reinterpret_cast<CUdeviceptr>(P)));
  });
}
// The parameters of a graph's nodes before instantiation. The runtime's memset and host
// node parameters have the driver's layouts.
static_assert(sizeof(cudaMemsetParams) == sizeof(CUDA_MEMSET_NODE_PARAMS) &&
                  offsetof(cudaMemsetParams, value) == offsetof(CUDA_MEMSET_NODE_PARAMS, value) &&
                  offsetof(cudaMemsetParams, height) == offsetof(CUDA_MEMSET_NODE_PARAMS, height),
              "cudaMemsetParams is CUDA_MEMSET_NODE_PARAMS");
static_assert(sizeof(cudaHostNodeParams) == sizeof(CUDA_HOST_NODE_PARAMS) &&
                  offsetof(cudaHostNodeParams, userData) == offsetof(CUDA_HOST_NODE_PARAMS, userData),
              "cudaHostNodeParams is CUDA_HOST_NODE_PARAMS");
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphKernelNodeGetParams, (cudaGraphNode_t Node, cudaKernelNodeParams *Out),
                    (Node, Out)) {
  API({
    if (!Out || !isLive(Node, Kind::GraphNode) || Node->Type != GraphNode::NT_Kernel)
      return cudaErrorInvalidValue;
    Out->func = const_cast<void *>(kernelStub(Node->Fn));
    Out->gridDim = dim3{Node->Grid.X, Node->Grid.Y, Node->Grid.Z};
    Out->blockDim = dim3{Node->Block.X, Node->Block.Y, Node->Block.Z};
    Out->sharedMemBytes = Node->Shared;
    Out->kernelParams = Node->ArgPtrs.data();
    Out->extra = nullptr;
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphKernelNodeSetParams, (cudaGraphNode_t Node, const cudaKernelNodeParams *P),
                    (Node, P)) {
  API({
    if (!P)
      return cudaErrorInvalidValue;
    GraphNode X;
    if (cudaError_t E = runtimeKernelNode(P->func, P->gridDim, P->blockDim, P->sharedMemBytes, P->kernelParams, P->extra, X))
      return E;
    return fromDriver(graphNodeSet(Node, std::move(X)));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphMemsetNodeGetParams, (cudaGraphNode_t Node, cudaMemsetParams *Out),
                    (Node, Out)) {
  API({ return fromDriver(cuGraphMemsetNodeGetParams(Node, reinterpret_cast<CUDA_MEMSET_NODE_PARAMS *>(Out))); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphMemsetNodeSetParams, (cudaGraphNode_t Node, const cudaMemsetParams *P),
                    (Node, P)) {
  API({ return fromDriver(cuGraphMemsetNodeSetParams(Node, reinterpret_cast<const CUDA_MEMSET_NODE_PARAMS *>(P))); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphHostNodeGetParams, (cudaGraphNode_t Node, cudaHostNodeParams *Out),
                    (Node, Out)) {
  API({ return fromDriver(cuGraphHostNodeGetParams(Node, reinterpret_cast<CUDA_HOST_NODE_PARAMS *>(Out))); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphHostNodeSetParams, (cudaGraphNode_t Node, const cudaHostNodeParams *P),
                    (Node, P)) {
  API({ return fromDriver(cuGraphHostNodeSetParams(Node, reinterpret_cast<const CUDA_HOST_NODE_PARAMS *>(P))); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphMemcpyNodeSetParams, (cudaGraphNode_t Node, const cudaMemcpy3DParms *P),
                    (Node, P)) {
  API({
    if (!P)
      return cudaErrorInvalidValue;
    return fromDriver(graphNodeSet(Node, runtimeMemcpyNode(*P)));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphExecKernelNodeSetParams,
                    (cudaGraphExec_t E, cudaGraphNode_t Node, const cudaKernelNodeParams *P), (E, Node, P)) {
  API({
    if (!P)
      return cudaErrorInvalidValue;
    GraphNode X;
    if (cudaError_t Err = runtimeKernelNode(P->func, P->gridDim, P->blockDim, P->sharedMemBytes, P->kernelParams, P->extra, X))
      return Err;
    return fromDriver(graphExecSetNode(E, Node, std::move(X)));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphExecUpdate, (cudaGraphExec_t E, cudaGraph_t G, void *Info), (E, G, Info)) {
  API({ return fromDriver(cuGraphExecUpdate_v2(E, CG(G), Info)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphDebugDotPrint, (cudaGraph_t G, const char *Path, unsigned Flags), (G, Path, Flags)) {
  API({ return fromDriver(cuGraphDebugDotPrint(CG(G), Path, Flags)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphNodeGetDependencies,
                    (cudaGraphNode_t N, cudaGraphNode_t *Deps, void *EdgeData, size_t *Num), (N, Deps, EdgeData, Num)) {
  API({
    if (EdgeData && Num && Deps)
      std::memset(EdgeData, 0, *Num * 8); // default edges (cudaGraphEdgeData is 8 bytes)
    return fromDriver(cuGraphNodeGetDependencies(N, reinterpret_cast<void **>(Deps), Num));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphGetEdges,
                    (cudaGraph_t G, cudaGraphNode_t *From, cudaGraphNode_t *To, void *EdgeData, size_t *Num),
                    (G, From, To, EdgeData, Num)) {
  API({
    if (EdgeData && Num && From)
      std::memset(EdgeData, 0, *Num * 8);
    return fromDriver(cuGraphGetEdges(CG(G), reinterpret_cast<void **>(From), reinterpret_cast<void **>(To), Num));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphGetRootNodes, (cudaGraph_t G, cudaGraphNode_t *Nodes, size_t *Num), (G, Nodes, Num)) {
  API({ return fromDriver(cuGraphGetRootNodes(CG(G), reinterpret_cast<void **>(Nodes), Num)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamGetCaptureInfo,
                    (cudaStream_t S, int *Status, unsigned long long *Id, cudaGraph_t *G, const cudaGraphNode_t **Deps,
                     const void **Edges, size_t *Num),
                    (S, Status, Id, G, Deps, Edges, Num)) {
  API({
    return fromDriver(cuStreamGetCaptureInfo_v3(S, Status, Id, reinterpret_cast<CUgraph *>(G),
                                                reinterpret_cast<const void **>(Deps), Edges, Num));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamGetCaptureInfo_ptsz,
                    (cudaStream_t S, int *Status, unsigned long long *Id, cudaGraph_t *G, const cudaGraphNode_t **Deps,
                     const void **Edges, size_t *Num),
                    (S, Status, Id, G, Deps, Edges, Num)) {
  return cudaStreamGetCaptureInfo(S, Status, Id, G, Deps, Edges, Num);
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamUpdateCaptureDependencies,
                    (cudaStream_t S, cudaGraphNode_t *Deps, const void *Edges, size_t N, unsigned Flags),
                    (S, Deps, Edges, N, Flags)) {
  API({ return fromDriver(cuStreamUpdateCaptureDependencies(S, reinterpret_cast<void **>(Deps), N, Flags)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamUpdateCaptureDependencies_ptsz,
                    (cudaStream_t S, cudaGraphNode_t *Deps, const void *Edges, size_t N, unsigned Flags),
                    (S, Deps, Edges, N, Flags)) {
  return cudaStreamUpdateCaptureDependencies(S, Deps, Edges, N, Flags);
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphNodeFindInClone, (cudaGraphNode_t * Out, cudaGraphNode_t Original, cudaGraph_t Clone),
                    (Out, Original, Clone)) {
  API({ return fromDriver(cuGraphNodeFindInClone(reinterpret_cast<void **>(Out), Original, CG(Clone))); });
}

// --- conditional nodes, cudaGraphAddNode, capture into a graph -----------------------------

ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphConditionalHandleCreate,
                    (unsigned long long *Out, cudaGraph_t G, unsigned Default, unsigned Flags), (Out, G, Default, Flags)) {
  API({
    if (!Out)
      return cudaErrorInvalidValue;
    uint64_t H;
    if (cudaError_t E = fromDriver(condHandleCreate(G, Default, Flags, H)))
      return E;
    *Out = H;
    return cudaSuccess;
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphAddMemcpyNode,
                    (cudaGraphNode_t * Out, cudaGraph_t G, const cudaGraphNode_t *Deps, size_t NumDeps,
                     const cudaMemcpy3DParms *P),
                    (Out, G, Deps, NumDeps, P)) {
  API({
    if (!P)
      return cudaErrorInvalidValue;
    return added(Out, G, Deps, NumDeps, runtimeMemcpyNode(*P));
  });
}
namespace {
// The runtime's members of cudaGraphNodeParams' union that differ from the driver's.
struct RtKernelParams { // cudaKernelNodeParamsV2
  const void *func;
  unsigned grid[3], block[3];
  unsigned sharedMemBytes;
  void **kernelParams, **extra;
};
struct RtMemcpyParams { // cudaMemcpyNodeParams
  int flags, reserved[3];
  cudaMemcpy3DParms copyParams;
};
struct RtConditionalParams { // cudaConditionalNodeParams
  unsigned long long handle;
  int type;
  unsigned size;
  cudaGraph_t *phGraph_out;
};
/// The node of a cudaGraphNodeParams whose member has the runtime's own
/// layout (kernel, memcpy): false for the other types (the driver's layout);
/// \p Err says whether the node was made.
bool runtimeLayoutNode(CUgraphNodeParams *P, GraphNode &Out, cudaError_t &Err) {
  void *U = &P->reserved1;
  if (P->type == GraphNode::NT_Kernel) {
    auto *K = static_cast<const RtKernelParams *>(U);
    Err = runtimeKernelNode(K->func, dim3{K->grid[0], K->grid[1], K->grid[2]},
                            dim3{K->block[0], K->block[1], K->block[2]}, K->sharedMemBytes, K->kernelParams, K->extra,
                            Out);
    return true;
  }
  if (P->type == GraphNode::NT_Memcpy) {
    Out = runtimeMemcpyNode(static_cast<const RtMemcpyParams *>(U)->copyParams);
    Err = cudaSuccess;
    return true;
  }
  return false;
}
} // namespace
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphAddNode,
                    (cudaGraphNode_t * Out, cudaGraph_t G, const cudaGraphNode_t *Deps, const void *EdgeData,
                     size_t NumDeps, CUgraphNodeParams *P),
                    (Out, G, Deps, EdgeData, NumDeps, P)) {
  API({
    if (!Out || !P)
      return cudaErrorInvalidValue;
    GraphNode X;
    cudaError_t Err;
    if (runtimeLayoutNode(P, X, Err))
      return Err ? Err : added(Out, G, Deps, NumDeps, std::move(X));
    void *U = &P->reserved1;
    switch (P->type) {
    case GraphNode::NT_Conditional: {
      auto *C = static_cast<RtConditionalParams *>(U);
      return fromDriver(addConditional(G, Deps, NumDeps, C->handle, C->type, C->size, C->phGraph_out, *Out));
    }
    default: // the other members have the driver's layout (memset: dst a void *, no context read)
      return fromDriver(cuGraphAddNode_v2(reinterpret_cast<void **>(Out), CG(G), NODES(Deps), EdgeData, NumDeps, P));
    }
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphExecNodeSetParams,
                    (cudaGraphExec_t E, cudaGraphNode_t Node, CUgraphNodeParams *P), (E, Node, P)) {
  API({
    if (!P || !isLive(Node, Kind::GraphNode) || static_cast<GraphNode *>(Node)->Type != P->type)
      return cudaErrorInvalidValue;
    GraphNode X;
    cudaError_t Err;
    if (runtimeLayoutNode(P, X, Err))
      return Err ? Err : fromDriver(graphExecSetNode(E, Node, std::move(X)));
    return fromDriver(cuGraphExecNodeSetParams(E, Node, P)); // the driver's layout
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphNodeSetParams, (cudaGraphNode_t Node, CUgraphNodeParams *P), (Node, P)) {
  API({
    if (!P || !isLive(Node, Kind::GraphNode) || Node->Type != P->type)
      return cudaErrorInvalidValue;
    GraphNode X;
    cudaError_t Err;
    if (runtimeLayoutNode(P, X, Err))
      return Err ? Err : fromDriver(graphNodeSet(Node, std::move(X)));
    return fromDriver(cuGraphNodeSetParams(Node, P)); // the driver's layout
  });
}
// User objects: the driver's (the same parameters).
ZLUDA_TRACED_EXPORT(cudaError_t, cudaUserObjectCreate,
                    (void **Out, void *Ptr, CUhostFn Destroy, unsigned Refs, unsigned Flags),
                    (Out, Ptr, Destroy, Refs, Flags)) {
  API({ return fromDriver(cuUserObjectCreate(Out, Ptr, Destroy, Refs, Flags)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaUserObjectRetain, (void *U, unsigned Count), (U, Count)) {
  API({ return fromDriver(cuUserObjectRetain(U, Count)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaUserObjectRelease, (void *U, unsigned Count), (U, Count)) {
  API({ return fromDriver(cuUserObjectRelease(U, Count)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphRetainUserObject, (cudaGraph_t G, void *U, unsigned Count, unsigned Flags),
                    (G, U, Count, Flags)) {
  API({ return fromDriver(cuGraphRetainUserObject(CG(G), U, Count, Flags)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaGraphReleaseUserObject, (cudaGraph_t G, void *U, unsigned Count),
                    (G, U, Count)) {
  API({ return fromDriver(cuGraphReleaseUserObject(CG(G), U, Count)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamBeginCaptureToGraph,
                    (cudaStream_t S, cudaGraph_t G, const cudaGraphNode_t *Deps, const void *EdgeData, size_t NumDeps,
                     int Mode),
                    (S, G, Deps, EdgeData, NumDeps, Mode)) {
  API({
    if (NumDeps && !Deps)
      return cudaErrorInvalidValue;
    return fromDriver(beginCaptureToGraph(S, G));
  });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamBeginCaptureToGraph_ptsz,
                    (cudaStream_t S, cudaGraph_t G, const cudaGraphNode_t *Deps, const void *EdgeData, size_t NumDeps,
                     int Mode),
                    (S, G, Deps, EdgeData, NumDeps, Mode)) {
  return cudaStreamBeginCaptureToGraph(S, G, Deps, EdgeData, NumDeps, Mode);
}

// --- stream attributes, managed memory attachment, graph memory (the driver's) ---------------
// cudaStreamAttrValue is CUstreamAttrValue, the same 64-byte union; the IDs are the driver's.
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamSetAttribute, (cudaStream_t S, int Attr, const void *V), (S, Attr, V)) {
  API({ return fromDriver(cuStreamSetAttribute(S, Attr, static_cast<const CUlaunchAttributeValue *>(V))); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamSetAttribute_ptsz, (cudaStream_t S, int Attr, const void *V), (S, Attr, V)) {
  return cudaStreamSetAttribute(S, Attr, V);
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamGetAttribute, (cudaStream_t S, int Attr, void *V), (S, Attr, V)) {
  API({ return fromDriver(cuStreamGetAttribute(S, Attr, static_cast<CUlaunchAttributeValue *>(V))); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamGetAttribute_ptsz, (cudaStream_t S, int Attr, void *V), (S, Attr, V)) {
  return cudaStreamGetAttribute(S, Attr, V);
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamCopyAttributes, (cudaStream_t Dst, cudaStream_t Src), (Dst, Src)) {
  API({ return fromDriver(cuStreamCopyAttributes(Dst, Src)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamCopyAttributes_ptsz, (cudaStream_t Dst, cudaStream_t Src), (Dst, Src)) {
  return cudaStreamCopyAttributes(Dst, Src);
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamAttachMemAsync, (cudaStream_t S, void *P, size_t Len, unsigned Flags),
                    (S, P, Len, Flags)) {
  API({ return fromDriver(cuStreamAttachMemAsync(S, reinterpret_cast<CUdeviceptr>(P), Len, Flags)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaStreamAttachMemAsync_ptsz, (cudaStream_t S, void *P, size_t Len, unsigned Flags),
                    (S, P, Len, Flags)) {
  return cudaStreamAttachMemAsync(S, P, Len, Flags);
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaDeviceGetGraphMemAttribute, (int D, int Attr, void *V), (D, Attr, V)) {
  API({ return fromDriver(cuDeviceGetGraphMemAttribute(D, Attr, V)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaDeviceSetGraphMemAttribute, (int D, int Attr, void *V), (D, Attr, V)) {
  API({ return fromDriver(cuDeviceSetGraphMemAttribute(D, Attr, V)); });
}
ZLUDA_TRACED_EXPORT(cudaError_t, cudaDeviceGraphMemTrim, (int D), (D)) { API({ return fromDriver(cuDeviceGraphMemTrim(D)); }); }
ZLUDA_TRACED_EXPORT(cudaError_t, cudaCtxResetPersistingL2Cache, (), ()) {
  API({ return fromDriver(cuCtxResetPersistingL2Cache()); });
}

