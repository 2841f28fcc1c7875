//===- Graph.cpp - CUDA graphs and stream capture (driver layer) -----------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A graph is its nodes in insertion order. Dependencies must name
/// nodes already in the graph, so insertion order is a topological order and
/// replaying the nodes in that order on one stream honours every edge (all
/// work of a stream completes in order). Stream capture records kernel
/// launches, copies, memsets and host functions issued to a capturing stream
/// instead of running them; kernel arguments are copied at capture, as CUDA
/// does. libcudart's graph API is a thin layer over the same functions.
#include "driver/Internal.h"

#include <cstring>

namespace zluda::driver {
namespace {

std::mutex GraphMu;
std::map<CUstream, Graph *> Capturing;

} // namespace

bool captureNode(CUstream S, const std::function<GraphNode()> &Make) {
  std::lock_guard<std::mutex> G(GraphMu);
  if (Capturing.empty())
    return false;
  auto It = Capturing.find(S);
  if (It == Capturing.end())
    return false;
  It->second->Nodes.push_back(std::make_unique<GraphNode>(Make()));
  addLive(It->second->Nodes.back().get(), Kind::GraphNode);
  return true;
}

GraphNode kernelNode(Function *F, cpu::Dim3 Grid, cpu::Dim3 Block, unsigned Shared, void **Params, void **Extra) {
  // Copy the arguments now: the caller's storage is gone at replay.
  const auto &KI = *F->Info;
  auto Buf = std::make_shared<std::vector<uint8_t>>(std::max<uint32_t>(KI.ParamBufferSize, 8), 0);
  if (Params) {
    for (size_t I = 0; I < KI.Params.size(); ++I)
      if (Params[I])
        std::memcpy(Buf->data() + KI.Params[I].Offset, Params[I], KI.Params[I].Size);
  } else if (Extra) {
    const void *Data = nullptr;
    size_t Size = KI.ParamBufferSize;
    for (size_t I = 0; Extra[I] != CU_LAUNCH_PARAM_END; I += 2) {
      if (Extra[I] == CU_LAUNCH_PARAM_BUFFER_POINTER)
        Data = Extra[I + 1];
      else if (Extra[I] == CU_LAUNCH_PARAM_BUFFER_SIZE)
        Size = *static_cast<size_t *>(Extra[I + 1]);
    }
    if (Data)
      std::memcpy(Buf->data(), Data, std::min<size_t>(Size, KI.ParamBufferSize));
  }
  GraphNode N;
  N.Type = GraphNode::NT_Kernel;
  N.Run = [F, Grid, Block, Shared, Buf](CUstream S) {
    const auto &Info = *F->Info;
    std::vector<void *> Ptrs;
    for (const auto &P : Info.Params)
      Ptrs.push_back(Buf->data() + P.Offset);
    return launch(F, Grid, Block, Shared, S, Ptrs.data(), nullptr, false);
  };
  return N;
}

GraphNode copyNode(void *Dst, const void *Src, size_t N) {
  GraphNode X;
  X.Type = GraphNode::NT_Memcpy;
  X.Run = [=](CUstream S) { return memcpyChecked(Dst, Src, N, S, true); };
  return X;
}

GraphNode memsetNode(uintptr_t Dst, uint32_t Value, unsigned ElemSize, size_t Width, size_t Height, size_t Pitch) {
  GraphNode X;
  X.Type = GraphNode::NT_Memset;
  X.Run = [=](CUstream S) {
    return Height > 1 ? memset(Dst, Value, ElemSize, 0, Pitch, Width, Height, S, true)
                      : memset(Dst, Value, ElemSize, Width, 0, 0, 1, S, true);
  };
  return X;
}

GraphNode hostNode(void (*Fn)(void *), void *User) {
  GraphNode X;
  X.Type = GraphNode::NT_Host;
  X.Run = [=](CUstream S) { return backend().hostFunc(streamOf(S), Fn, User); };
  return X;
}

CUresult graphCreate(Graph *&Out) {
  Out = new Graph;
  Out->Ctx = currentContext();
  addLive(Out, Kind::Graph);
  return CUDA_SUCCESS;
}

CUresult graphDestroy(Graph *G) {
  if (!isLive(G, Kind::Graph))
    return CUDA_ERROR_INVALID_VALUE;
  for (auto &N : G->Nodes)
    removeLive(N.get());
  removeLive(G);
  delete G;
  return CUDA_SUCCESS;
}

CUresult graphAddNode(Graph *G, GraphNode *const *Deps, size_t NumDeps, GraphNode N, GraphNode *&Out) {
  if (!isLive(G, Kind::Graph) || (NumDeps && !Deps))
    return CUDA_ERROR_INVALID_VALUE;
  for (size_t I = 0; I < NumDeps; ++I) {
    bool Found = false;
    for (auto &X : G->Nodes)
      Found |= X.get() == Deps[I];
    if (!Found)
      return CUDA_ERROR_INVALID_VALUE; // a dependency must already be in the graph
  }
  G->Nodes.push_back(std::make_unique<GraphNode>(std::move(N)));
  Out = G->Nodes.back().get();
  addLive(Out, Kind::GraphNode);
  return CUDA_SUCCESS;
}

CUresult graphInstantiate(Graph *G, GraphExec *&Out) {
  if (!isLive(G, Kind::Graph))
    return CUDA_ERROR_INVALID_VALUE;
  Out = new GraphExec;
  Out->Ctx = currentContext();
  for (auto &N : G->Nodes)
    Out->Nodes.push_back(*N);
  addLive(Out, Kind::GraphExec);
  return CUDA_SUCCESS;
}

CUresult graphLaunch(GraphExec *E, CUstream S) {
  if (!isLive(E, Kind::GraphExec))
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = streamCheck(S))
    return R;
  for (GraphNode &N : E->Nodes)
    if (CUresult R = N.Run(S))
      return R;
  return CUDA_SUCCESS;
}

CUresult graphExecDestroy(GraphExec *E) {
  if (!isLive(E, Kind::GraphExec))
    return CUDA_ERROR_INVALID_VALUE;
  removeLive(E);
  delete E;
  return CUDA_SUCCESS;
}

CUresult beginCapture(CUstream S) {
  if (S == nullptr || S == CU_STREAM_LEGACY)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED; // the legacy stream cannot be captured
  if (CUresult R = streamCheck(S))
    return R;
  Graph *G;
  graphCreate(G);
  std::lock_guard<std::mutex> L(GraphMu);
  if (Capturing.count(S)) {
    graphDestroy(G);
    return CUDA_ERROR_ILLEGAL_STATE;
  }
  Capturing[S] = G;
  return CUDA_SUCCESS;
}

CUresult endCapture(CUstream S, Graph *&Out) {
  std::lock_guard<std::mutex> L(GraphMu);
  auto It = Capturing.find(S);
  if (It == Capturing.end())
    return CUDA_ERROR_ILLEGAL_STATE;
  Out = It->second;
  Capturing.erase(It);
  return CUDA_SUCCESS;
}

bool isCapturing(CUstream S) {
  std::lock_guard<std::mutex> L(GraphMu);
  return Capturing.count(S) != 0;
}

} // namespace zluda::driver

using namespace zluda::driver;

// --- driver exports ---------------------------------------------------------------

namespace {
struct KernelNodeParamsV2 { // CUDA_KERNEL_NODE_PARAMS_v2
  CUfunction func;
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  void **kernelParams;
  void **extra;
  CUkernel kern;
  CUcontext ctx;
};
struct MemsetNodeParams { // CUDA_MEMSET_NODE_PARAMS
  CUdeviceptr dst;
  size_t pitch;
  unsigned value, elementSize;
  size_t width, height;
};
struct HostNodeParams { // CUDA_HOST_NODE_PARAMS
  CUhostFn fn;
  void *userData;
};
} // namespace

ZLUDA_API(cuGraphCreate, (CUgraph *Out, unsigned Flags), (Out, Flags)) {
  ZLUDA_GUARD({
    if (!Out || Flags)
      return CUDA_ERROR_INVALID_VALUE;
    Graph *G;
    CUresult R = graphCreate(G);
    *Out = reinterpret_cast<CUgraph>(G);
    return R;
  });
}
ZLUDA_API(cuGraphDestroy, (CUgraph G), (G)) { ZLUDA_GUARD({ return graphDestroy(reinterpret_cast<Graph *>(G)); }); }
ZLUDA_API(cuGraphAddKernelNode_v2, (void **Out, CUgraph G, void *const *Deps, size_t N, const KernelNodeParamsV2 *P), (Out, G, Deps, N, P)) {
  ZLUDA_GUARD({
    if (!Out || !P)
      return CUDA_ERROR_INVALID_VALUE;
    Function *F = handle<Function>(P->func ? static_cast<void *>(P->func) : static_cast<void *>(P->kern), Kind::Function);
    if (!F)
      return CUDA_ERROR_INVALID_HANDLE;
    GraphNode *Node;
    CUresult R = graphAddNode(reinterpret_cast<Graph *>(G), reinterpret_cast<GraphNode *const *>(Deps), N,
                              kernelNode(F, {P->gridDimX, P->gridDimY, P->gridDimZ}, {P->blockDimX, P->blockDimY, P->blockDimZ},
                                         P->sharedMemBytes, P->kernelParams, P->extra),
                              Node);
    *Out = Node;
    return R;
  });
}
ZLUDA_API(cuGraphAddMemsetNode, (void **Out, CUgraph G, void *const *Deps, size_t N, const MemsetNodeParams *P, CUcontext Arg5), (Out, G, Deps, N, P, Arg5)) {
  ZLUDA_GUARD({
    if (!Out || !P || (P->elementSize != 1 && P->elementSize != 2 && P->elementSize != 4))
      return CUDA_ERROR_INVALID_VALUE;
    GraphNode *Node;
    CUresult R = graphAddNode(reinterpret_cast<Graph *>(G), reinterpret_cast<GraphNode *const *>(Deps), N,
                              memsetNode(P->dst, P->value, P->elementSize, P->width, P->height, P->pitch), Node);
    *Out = Node;
    return R;
  });
}
ZLUDA_API(cuGraphAddHostNode, (void **Out, CUgraph G, void *const *Deps, size_t N, const HostNodeParams *P), (Out, G, Deps, N, P)) {
  ZLUDA_GUARD({
    if (!Out || !P || !P->fn)
      return CUDA_ERROR_INVALID_VALUE;
    GraphNode *Node;
    CUresult R = graphAddNode(reinterpret_cast<Graph *>(G), reinterpret_cast<GraphNode *const *>(Deps), N,
                              hostNode(P->fn, P->userData), Node);
    *Out = Node;
    return R;
  });
}
ZLUDA_API(cuGraphAddMemcpyNode, (void **Out, CUgraph G, void *const *Deps, size_t N, const CUDA_MEMCPY3D *P, CUcontext Arg5), (Out, G, Deps, N, P, Arg5)) {
  ZLUDA_GUARD({
    if (!Out || !P)
      return CUDA_ERROR_INVALID_VALUE;
    CUDA_MEMCPY3D Copy = *P;
    GraphNode X;
    X.Type = GraphNode::NT_Memcpy;
    X.Run = [Copy](CUstream) { return copy3D(&Copy); };
    GraphNode *Node;
    CUresult R = graphAddNode(reinterpret_cast<Graph *>(G), reinterpret_cast<GraphNode *const *>(Deps), N, std::move(X), Node);
    *Out = Node;
    return R;
  });
}
ZLUDA_API(cuGraphAddEmptyNode, (void **Out, CUgraph G, void *const *Deps, size_t N), (Out, G, Deps, N)) {
  ZLUDA_GUARD({
    if (!Out)
      return CUDA_ERROR_INVALID_VALUE;
    GraphNode X;
    X.Run = [](CUstream) { return CUDA_SUCCESS; };
    GraphNode *Node;
    CUresult R = graphAddNode(reinterpret_cast<Graph *>(G), reinterpret_cast<GraphNode *const *>(Deps), N, std::move(X), Node);
    *Out = Node;
    return R;
  });
}
ZLUDA_API(cuGraphGetNodes, (CUgraph H, void **Nodes, size_t *Num), (H, Nodes, Num)) {
  ZLUDA_GUARD({
    Graph *G = handle<Graph>(H, Kind::Graph);
    if (!G || !Num)
      return CUDA_ERROR_INVALID_VALUE;
    if (Nodes)
      for (size_t I = 0; I < std::min(*Num, G->Nodes.size()); ++I)
        Nodes[I] = G->Nodes[I].get();
    *Num = G->Nodes.size();
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuGraphNodeGetType, (void *H, int *Type), (H, Type)) {
  GraphNode *N = handle<GraphNode>(H, Kind::GraphNode);
  if (!N || !Type)
    return CUDA_ERROR_INVALID_VALUE;
  *Type = N->Type;
  return CUDA_SUCCESS;
}
ZLUDA_API(cuGraphInstantiateWithFlags, (void **Out, CUgraph G, unsigned long long Arg2), (Out, G, Arg2)) {
  ZLUDA_GUARD({
    if (!Out)
      return CUDA_ERROR_INVALID_VALUE;
    GraphExec *E;
    CUresult R = graphInstantiate(reinterpret_cast<Graph *>(G), E);
    *Out = E;
    return R;
  });
}
ZLUDA_API(cuGraphInstantiateWithParams, (void **Out, CUgraph G, void * Arg2), (Out, G, Arg2)) {
  return cuGraphInstantiateWithFlags(Out, G, 0);
}
ZLUDA_API(cuGraphInstantiateWithParams_ptsz, (void **Out, CUgraph G, void *P), (Out, G, P)) {
  return cuGraphInstantiateWithParams(Out, G, P);
}
ZLUDA_API(cuGraphLaunch, (void *E, CUstream S), (E, S)) { ZLUDA_GUARD({ return graphLaunch(static_cast<GraphExec *>(E), S); }); }
ZLUDA_API(cuGraphLaunch_ptsz, (void *E, CUstream S), (E, S)) { return cuGraphLaunch(E, ptsz(S)); }
ZLUDA_API(cuGraphUpload, (void *E, CUstream S), (E, S)) {
  return isLive(E, Kind::GraphExec) ? streamCheck(S) : CUDA_ERROR_INVALID_VALUE;
}
ZLUDA_API(cuGraphUpload_ptsz, (void *E, CUstream S), (E, S)) { return cuGraphUpload(E, ptsz(S)); }
ZLUDA_API(cuGraphExecDestroy, (void *E), (E)) { ZLUDA_GUARD({ return graphExecDestroy(static_cast<GraphExec *>(E)); }); }
ZLUDA_API(cuStreamBeginCapture_v2, (CUstream S, int Arg1), (S, Arg1)) { ZLUDA_GUARD({ return beginCapture(S); }); }
ZLUDA_API(cuStreamBeginCapture_v2_ptsz, (CUstream S, int M), (S, M)) { return cuStreamBeginCapture_v2(ptsz(S), M); }
ZLUDA_API(cuStreamEndCapture, (CUstream S, CUgraph *Out), (S, Out)) {
  ZLUDA_GUARD({
    if (!Out)
      return CUDA_ERROR_INVALID_VALUE;
    Graph *G;
    CUresult R = endCapture(S, G);
    if (R == CUDA_SUCCESS)
      *Out = reinterpret_cast<CUgraph>(G);
    return R;
  });
}
ZLUDA_API(cuStreamEndCapture_ptsz, (CUstream S, CUgraph *Out), (S, Out)) { return cuStreamEndCapture(ptsz(S), Out); }
ZLUDA_API(cuThreadExchangeStreamCaptureMode, (int *Mode), (Mode)) { return Mode ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }
ZLUDA_API(cuStreamGetCaptureInfo_v3, (CUstream S, int *Status, unsigned long long *Id, CUgraph *G, const void **Deps, const void **Edges, size_t *NumDeps), (S, Status, Id, G, Deps, Edges, NumDeps)) {
  if (CUresult R = streamCheck(S))
    return R;
  bool Active = isCapturing(S);
  if (Status)
    *Status = Active ? 1 : 0;
  if (Id)
    *Id = reinterpret_cast<uintptr_t>(S);
  if (G)
    *G = nullptr;
  if (Deps)
    *Deps = nullptr;
  if (Edges)
    *Edges = nullptr;
  if (NumDeps)
    *NumDeps = 0;
  return CUDA_SUCCESS;
}
ZLUDA_API(cuStreamGetCaptureInfo_v3_ptsz, (CUstream S, int *Status, unsigned long long *Id, CUgraph *G, const void **Deps, const void **Edges, size_t *NumDeps), (S, Status, Id, G, Deps, Edges, NumDeps)) {
  return cuStreamGetCaptureInfo_v3(ptsz(S), Status, Id, G, Deps, Edges, NumDeps);
}
