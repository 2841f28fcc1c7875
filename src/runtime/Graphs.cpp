//===- Graphs.cpp - CUDA graphs and stream capture -------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A graph is its nodes in insertion order: dependencies must name
/// existing nodes, so insertion order is a topological order, and replaying
/// the nodes in that order on one stream honours every edge. Stream capture
/// records kernel launches, copies, memsets and host functions issued to a
/// capturing stream instead of running them; kernel arguments are copied at
/// capture, as CUDA does.
#include "driver/Internal.h"
#include "zluda/cuda_runtime_abi.h"

#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <set>

#define CUDART_EXPORT extern "C" __attribute__((visibility("default")))

using namespace zluda::driver;

namespace zluda::runtime {
cudaError_t runtimeCall(const std::function<cudaError_t()> &F);
cudaError_t fromDriver(CUresult R);
cudaError_t kernelFunction(const void *Stub, Function *&Out);
cudaError_t copyKind(void *Dst, const void *Src, size_t N, cudaMemcpyKind Kind);

namespace {

enum NodeType { NT_Kernel = 0, NT_Memcpy = 1, NT_Memset = 2, NT_Host = 3, NT_Empty = 5 };

struct GraphNode {
  NodeType Type = NT_Empty;
  /// Runs the node on \p Stream (work on one stream completes in order).
  std::function<cudaError_t(cudaStream_t)> Run;
};

struct Graph {
  std::vector<std::unique_ptr<GraphNode>> Nodes;
};

struct GraphExec {
  std::vector<GraphNode> Nodes;
};

std::mutex GraphMu;
std::map<cudaStream_t, Graph *> Capturing;

bool live(const void *P, std::set<const void *> &S) { return P && S.count(P); }
std::set<const void *> &graphs() {
  static std::set<const void *> S;
  return S;
}
std::set<const void *> &execs() {
  static std::set<const void *> S;
  return S;
}

GraphNode kernelNode(Function *F, dim3 Grid, dim3 Block, size_t Shared, void **Args) {
  // Copy every argument now: the caller's argument storage is gone at replay.
  const auto &KI = F->K->Info;
  auto Storage = std::make_shared<std::vector<std::vector<uint8_t>>>();
  for (size_t I = 0; I < KI.Params.size(); ++I) {
    const uint8_t *P = static_cast<const uint8_t *>(Args[I]);
    Storage->emplace_back(P, P + KI.Params[I].Size);
  }
  GraphNode N;
  N.Type = NT_Kernel;
  N.Run = [F, Grid, Block, Shared, Storage](cudaStream_t S) {
    std::vector<void *> Ptrs;
    for (auto &A : *Storage)
      Ptrs.push_back(A.data());
    return fromDriver(launch(F, {Grid.x, Grid.y, Grid.z}, {Block.x, Block.y, Block.z},
                             static_cast<unsigned>(Shared), S, Ptrs.data(), nullptr, false));
  };
  return N;
}

} // namespace

/// Called by every operation that can be captured: true when \p S is
/// capturing, in which case \p Make's node is recorded instead of run.
bool captured(cudaStream_t S, const std::function<GraphNode()> &Make);
bool captured(cudaStream_t S, const std::function<GraphNode()> &Make) {
  std::lock_guard<std::mutex> G(GraphMu);
  auto It = Capturing.find(S);
  if (It == Capturing.end())
    return false;
  It->second->Nodes.push_back(std::make_unique<GraphNode>(Make()));
  return true;
}

bool captureKernel(cudaStream_t S, Function *F, dim3 Grid, dim3 Block, size_t Shared, void **Args) {
  return captured(S, [&] { return kernelNode(F, Grid, Block, Shared, Args); });
}

bool captureCopy(cudaStream_t S, void *Dst, const void *Src, size_t N, cudaMemcpyKind K) {
  return captured(S, [&] {
    GraphNode X;
    X.Type = NT_Memcpy;
    X.Run = [=](cudaStream_t) { return copyKind(Dst, Src, N, K); };
    return X;
  });
}

bool captureMemset(cudaStream_t S, void *Dst, int V, size_t N) {
  return captured(S, [&] {
    GraphNode X;
    X.Type = NT_Memset;
    X.Run = [=](cudaStream_t) {
      return fromDriver(zluda::driver::memset(reinterpret_cast<uintptr_t>(Dst), static_cast<uint8_t>(V), 1, N));
    };
    return X;
  });
}

bool captureHost(cudaStream_t S, cudaHostFn_t Fn, void *User) {
  return captured(S, [&] {
    GraphNode X;
    X.Type = NT_Host;
    X.Run = [=](cudaStream_t) {
      Fn(User);
      return cudaSuccess;
    };
    return X;
  });
}

} // namespace zluda::runtime

using namespace zluda::runtime;
#define API(...) return runtimeCall([&]() -> cudaError_t { __VA_ARGS__ })

using cudaGraph_t = Graph *;
using cudaGraphExec_t = GraphExec *;
using cudaGraphNode_t = GraphNode *;

static cudaError_t addNode(cudaGraphNode_t *Out, cudaGraph_t G, const cudaGraphNode_t *Deps, size_t NumDeps,
                           GraphNode N) {
  if (!Out || !live(G, graphs()) || (NumDeps && !Deps))
    return cudaErrorInvalidValue;
  for (size_t I = 0; I < NumDeps; ++I) {
    bool Found = false;
    for (auto &X : G->Nodes)
      Found |= X.get() == Deps[I];
    if (!Found)
      return cudaErrorInvalidValue; // a dependency must already be in the graph
  }
  G->Nodes.push_back(std::make_unique<GraphNode>(std::move(N)));
  *Out = G->Nodes.back().get();
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphCreate(cudaGraph_t *Out, unsigned Flags) {
  API({
    if (!Out || Flags)
      return cudaErrorInvalidValue;
    *Out = new Graph;
    std::lock_guard<std::mutex> L(GraphMu);
    graphs().insert(*Out);
    return cudaSuccess;
  });
}
CUDART_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t G) {
  API({
    std::lock_guard<std::mutex> L(GraphMu);
    if (!live(G, graphs()))
      return cudaErrorInvalidValue;
    graphs().erase(G);
    delete G;
    return cudaSuccess;
  });
}
CUDART_EXPORT cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *Out, cudaGraph_t G, const cudaGraphNode_t *Deps,
                                                 size_t NumDeps, const cudaKernelNodeParams *P) {
  API({
    if (!P || !P->kernelParams)
      return cudaErrorInvalidValue;
    Function *F;
    if (cudaError_t E = kernelFunction(P->func, F))
      return E;
    return addNode(Out, G, Deps, NumDeps, kernelNode(F, P->gridDim, P->blockDim, P->sharedMemBytes, P->kernelParams));
  });
}
CUDART_EXPORT cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *Out, cudaGraph_t G, const cudaGraphNode_t *Deps,
                                                 size_t NumDeps, const cudaMemsetParams *P) {
  API({
    if (!P || (P->elementSize != 1 && P->elementSize != 2 && P->elementSize != 4))
      return cudaErrorInvalidValue;
    GraphNode N;
    N.Type = NT_Memset;
    cudaMemsetParams M = *P;
    N.Run = [M](cudaStream_t) {
      return fromDriver(zluda::driver::memset(reinterpret_cast<uintptr_t>(M.dst), M.value, M.elementSize,
                                              M.height > 1 ? 0 : M.width, M.height > 1 ? M.pitch : 0, M.width,
                                              M.height));
    };
    return addNode(Out, G, Deps, NumDeps, std::move(N));
  });
}
CUDART_EXPORT cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *Out, cudaGraph_t G, const cudaGraphNode_t *Deps,
                                                   size_t NumDeps, void *Dst, const void *Src, size_t N,
                                                   cudaMemcpyKind K) {
  API({
    GraphNode X;
    X.Type = NT_Memcpy;
    X.Run = [=](cudaStream_t) { return copyKind(Dst, Src, N, K); };
    return addNode(Out, G, Deps, NumDeps, std::move(X));
  });
}
CUDART_EXPORT cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *Out, cudaGraph_t G, const cudaGraphNode_t *Deps,
                                               size_t NumDeps, const cudaHostNodeParams *P) {
  API({
    if (!P || !P->fn)
      return cudaErrorInvalidValue;
    GraphNode X;
    X.Type = NT_Host;
    cudaHostNodeParams H = *P;
    X.Run = [H](cudaStream_t) {
      H.fn(H.userData);
      return cudaSuccess;
    };
    return addNode(Out, G, Deps, NumDeps, std::move(X));
  });
}
CUDART_EXPORT cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *Out, cudaGraph_t G, const cudaGraphNode_t *Deps,
                                                size_t NumDeps) {
  API({
    GraphNode X;
    X.Run = [](cudaStream_t) { return cudaSuccess; };
    return addNode(Out, G, Deps, NumDeps, std::move(X));
  });
}
CUDART_EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t G, cudaGraphNode_t *Nodes, size_t *Num) {
  API({
    if (!Num || !live(G, graphs()))
      return cudaErrorInvalidValue;
    if (Nodes)
      for (size_t I = 0; I < std::min(*Num, G->Nodes.size()); ++I)
        Nodes[I] = G->Nodes[I].get();
    *Num = G->Nodes.size();
    return cudaSuccess;
  });
}
CUDART_EXPORT cudaError_t cudaGraphNodeGetType(cudaGraphNode_t N, int *Type) {
  API({
    if (!N || !Type)
      return cudaErrorInvalidValue;
    *Type = N->Type;
    return cudaSuccess;
  });
}
CUDART_EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *Out, cudaGraph_t G, unsigned long long) {
  API({
    if (!Out || !live(G, graphs()))
      return cudaErrorInvalidValue;
    auto *E = new GraphExec;
    for (auto &N : G->Nodes)
      E->Nodes.push_back(*N);
    std::lock_guard<std::mutex> L(GraphMu);
    execs().insert(E);
    *Out = E;
    return cudaSuccess;
  });
}
CUDART_EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *Out, cudaGraph_t G, unsigned long long F) {
  return cudaGraphInstantiate(Out, G, F);
}
CUDART_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t E, cudaStream_t S) {
  API({
    if (!live(E, execs()))
      return cudaErrorInvalidValue;
    if (CUresult R = streamCheck(S))
      return fromDriver(R);
    for (GraphNode &N : E->Nodes)
      if (cudaError_t Err = N.Run(S))
        return Err;
    return cudaSuccess;
  });
}
CUDART_EXPORT cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t E, cudaStream_t S) { return cudaGraphLaunch(E, S); }
CUDART_EXPORT cudaError_t cudaGraphUpload(cudaGraphExec_t E, cudaStream_t S) {
  API({ return live(E, execs()) ? fromDriver(streamCheck(S)) : cudaErrorInvalidValue; });
}
CUDART_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t E) {
  API({
    std::lock_guard<std::mutex> L(GraphMu);
    if (!live(E, execs()))
      return cudaErrorInvalidValue;
    execs().erase(E);
    delete E;
    return cudaSuccess;
  });
}

// --- stream capture ------------------------------------------------------------------

CUDART_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t S, int /*mode*/) {
  API({
    if (S == nullptr || S == CU_STREAM_LEGACY)
      return cudaErrorStreamCaptureUnsupported; // the legacy stream cannot be captured
    if (CUresult R = streamCheck(S))
      return fromDriver(R);
    std::lock_guard<std::mutex> L(GraphMu);
    if (Capturing.count(S))
      return cudaErrorIllegalState;
    auto *G = new Graph;
    graphs().insert(G);
    Capturing[S] = G;
    return cudaSuccess;
  });
}
CUDART_EXPORT cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t S, int M) { return cudaStreamBeginCapture(S, M); }
CUDART_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t S, cudaGraph_t *Out) {
  API({
    if (!Out)
      return cudaErrorInvalidValue;
    std::lock_guard<std::mutex> L(GraphMu);
    auto It = Capturing.find(S);
    if (It == Capturing.end())
      return cudaErrorIllegalState;
    *Out = It->second;
    Capturing.erase(It);
    return cudaSuccess;
  });
}
CUDART_EXPORT cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t S, cudaGraph_t *Out) { return cudaStreamEndCapture(S, Out); }
CUDART_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t S, int *Status) {
  API({
    if (!Status)
      return cudaErrorInvalidValue;
    std::lock_guard<std::mutex> L(GraphMu);
    *Status = Capturing.count(S) ? 1 : 0; // cudaStreamCaptureStatusActive / None
    return cudaSuccess;
  });
}
CUDART_EXPORT cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t S, int *Status) { return cudaStreamIsCapturing(S, Status); }
