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
  auto &Nodes = It->second->Nodes;
  auto N = std::make_unique<GraphNode>(Make());
  if (!Nodes.empty()) // captured work is a chain in stream order
    N->Deps = {Nodes.back().get()};
  Nodes.push_back(std::move(N));
  addLive(Nodes.back().get(), Kind::GraphNode);
  return true;
}

bool captureAlloc(CUstream S, size_t Bytes, CUdeviceptr &Out, CUresult &R) {
  Graph *G = capturingGraph(S);
  if (!G)
    return false;
  GraphNode X;
  if ((R = graphMemAlloc(G, Bytes, X)))
    return true;
  Out = X.Ptr;
  captureNode(S, [&] { return X; });
  return true;
}

bool captureFree(CUstream S, CUdeviceptr P) {
  return captureNode(S, [&] { return memFreeNode(P); });
}

bool captureEventRecord(CUstream S, Event *E) {
  Graph *G = capturingGraph(S);
  if (!G)
    return false;
  E->CapturedIn = G;
  return captureNode(S, [&] { return eventNode(reinterpret_cast<CUevent>(E), false); });
}

bool captureWaitEvent(CUstream S, Event *E) {
  Graph *From = E->CapturedIn;
  std::lock_guard<std::mutex> L(GraphMu);
  bool Live = false;
  for (auto &[St, G] : Capturing)
    Live |= G == From;
  auto It = Capturing.find(S);
  if (From && Live) {
    // The captured work is one chain: a stream that joins (or is already in)
    // the capture needs no node for the wait.
    if (It == Capturing.end())
      Capturing[S] = From;
    return true;
  }
  if (It == Capturing.end())
    return false;
  // An event recorded outside the capture: the graph waits for it when it runs.
  auto N = std::make_unique<GraphNode>(eventNode(reinterpret_cast<CUevent>(E), true));
  if (!It->second->Nodes.empty())
    N->Deps = {It->second->Nodes.back().get()};
  It->second->Nodes.push_back(std::move(N));
  addLive(It->second->Nodes.back().get(), Kind::GraphNode);
  return true;
}

Graph *capturingGraph(CUstream S) {
  std::lock_guard<std::mutex> G(GraphMu);
  auto It = Capturing.find(S);
  return It == Capturing.end() ? nullptr : It->second;
}

std::shared_ptr<Graph> ownedGraph(std::unique_ptr<Graph> G) {
  G->OwnedByNode = true;
  return std::shared_ptr<Graph>(G.release(), [](Graph *X) {
    for (auto &N : X->Nodes)
      removeLive(N.get());
    removeLive(X);
    delete X;
  });
}

CUresult runGraph(const Graph &G, CUstream S) {
  if (CUresult R = resetHandles(G.Handles, S))
    return R;
  for (auto &N : G.Nodes)
    if (CUresult R = N->Run(S))
      return R;
  return CUDA_SUCCESS;
}

CUresult resetHandles(const std::vector<std::shared_ptr<CondHandle>> &Handles, CUstream S) {
  for (auto &H : Handles)
    if (H->AssignDefault)
      if (CUresult R = memset(H->Slot, H->Default, 4, 1, 0, 0, 1, S, true))
        return R;
  return CUDA_SUCCESS;
}

GraphNode childNode(const Graph &Child) {
  GraphNode X;
  X.Type = GraphNode::NT_Graph;
  X.Child = ownedGraph(graphCopy(Child));
  std::shared_ptr<Graph> C = X.Child;
  X.Run = [C](CUstream S) { return runGraph(*C, S); };
  X.Label = "child graph (" + std::to_string(Child.Nodes.size()) + " nodes)";
  return X;
}

GraphNode conditionalNode(std::shared_ptr<CondHandle> H, int Type, std::vector<std::shared_ptr<Graph>> Bodies) {
  GraphNode X;
  X.Type = GraphNode::NT_Conditional;
  X.Cond = H;
  X.CondType = Type;
  X.Bodies = Bodies;
  // The condition is read when the work before the node is done: the
  // launching thread waits for the stream there (a graph without
  // conditional nodes launches without waiting).
  X.Run = [H, Type, Bodies](CUstream S) -> CUresult {
    uint32_t V = 0;
    auto read = [&] { return memcpyChecked(&V, reinterpret_cast<void *>(H->Slot), 4, S, false); };
    if (CUresult R = read())
      return R;
    switch (Type) {
    case CU_GRAPH_COND_TYPE_IF:
      if (V)
        return runGraph(*Bodies[0], S);
      return Bodies.size() > 1 ? runGraph(*Bodies[1], S) : CUDA_SUCCESS;
    case CU_GRAPH_COND_TYPE_WHILE:
      while (V) {
        if (CUresult R = runGraph(*Bodies[0], S))
          return R;
        if (CUresult R = read())
          return R;
      }
      return CUDA_SUCCESS;
    default: // switch
      return V < Bodies.size() ? runGraph(*Bodies[V], S) : CUDA_SUCCESS;
    }
  };
  static const char *Names[] = {"if", "while", "switch"};
  X.Label = std::string(Names[Type]) + " (" + std::to_string(Bodies.size()) + " bodies)";
  return X;
}

GraphNode nodeCopy(const GraphNode &N) {
  if (N.Type != GraphNode::NT_Conditional)
    return N;
  // A conditional node's bodies are the node's own: a copy (a clone, an
  // instantiation) gets its own copies of them.
  std::vector<std::shared_ptr<Graph>> Bodies;
  for (auto &B : N.Bodies)
    Bodies.push_back(ownedGraph(graphCopy(*B)));
  GraphNode X = conditionalNode(N.Cond, N.CondType, std::move(Bodies));
  X.Deps = N.Deps;
  X.Origin = N.Origin;
  return X;
}

GraphNode eventNode(CUevent E, bool Wait) {
  GraphNode X;
  X.Type = Wait ? GraphNode::NT_WaitEvent : GraphNode::NT_EventRecord;
  X.Event = E;
  X.Run = [E, Wait](CUstream S) { return Wait ? streamWaitEvent(S, E) : eventRecord(E, S); };
  X.Label = Wait ? "wait event" : "record event";
  return X;
}

CUresult graphMemAlloc(Graph *, size_t Bytes, GraphNode &Out) {
  // The graph's allocation has one address for the graph's life (CUDA fixes
  // it at creation); it is freed when the last graph or executable graph
  // holding the node goes.
  CUdeviceptr P;
  if (CUresult R = memAlloc(&P, Bytes, CU_MEMORYTYPE_DEVICE, false, 0))
    return R;
  {
    State &S = state();
    std::lock_guard<std::mutex> G(S.Mu);
    Allocation &A = S.Allocs.at(P);
    A.GraphOwned = true;
    S.GraphReserved += Bytes;
    S.GraphReservedHigh = std::max(S.GraphReservedHigh, S.GraphReserved);
  }
  std::shared_ptr<void> Mem(reinterpret_cast<void *>(P), [](void *Q) {
    State &S = state();
    {
      std::lock_guard<std::mutex> G(S.Mu);
      auto It = S.Allocs.find(reinterpret_cast<uintptr_t>(Q));
      if (It == S.Allocs.end())
        return;
      graphMemUse(S, It->second, false);
      graphMemRelease(S, It->second);
      S.GraphReserved -= It->second.Size;
      It->second.GraphOwned = false; // an ordinary allocation again, freed now
    }
    memFree(reinterpret_cast<uintptr_t>(Q), CU_MEMORYTYPE_DEVICE);
  });
  Out.Type = GraphNode::NT_MemAlloc;
  Out.Ptr = P;
  Out.Bytes = Bytes;
  Out.Run = [Mem, P](CUstream) { // in use from here until a free
    State &S = state();
    std::lock_guard<std::mutex> G(S.Mu);
    if (auto It = S.Allocs.find(P); It != S.Allocs.end())
      graphMemUse(S, It->second, true);
    return CUDA_SUCCESS;
  };
  Out.Label = "allocate " + std::to_string(Bytes) + " bytes";
  return CUDA_SUCCESS;
}

GraphNode memFreeNode(uintptr_t Ptr) {
  GraphNode X;
  X.Type = GraphNode::NT_MemFree;
  X.Ptr = Ptr;
  X.Run = [Ptr](CUstream) { // the allocation node's memory lives with its graph: no longer in use
    State &S = state();
    std::lock_guard<std::mutex> G(S.Mu);
    auto It = S.Allocs.find(Ptr);
    if (It != S.Allocs.end() && It->second.GraphOwned && !graphMemUse(S, It->second, false))
      return CUDA_ERROR_INVALID_VALUE; // freed twice
    return CUDA_SUCCESS;
  };
  X.Label = "free";
  return X;
}

std::unique_ptr<Graph> graphCopy(const Graph &G) {
  auto C = std::make_unique<Graph>();
  C->Ctx = G.Ctx;
  C->Users = G.Users;
  std::map<const GraphNode *, GraphNode *> Map;
  C->Handles = G.Handles;
  for (auto &N : G.Nodes) {
    auto X = std::make_unique<GraphNode>(nodeCopy(*N));
    for (GraphNode *&D : X->Deps)
      D = Map.at(D);
    Map[N.get()] = X.get();
    C->Nodes.push_back(std::move(X));
  }
  return C;
}

CUresult graphExecSetNode(GraphExec *E, const GraphNode *Node, GraphNode N) {
  if (!isLive(E, Kind::GraphExec) || !isLive(Node, Kind::GraphNode))
    return CUDA_ERROR_INVALID_VALUE;
  for (GraphNode &X : E->Nodes)
    if (X.Origin == Node) {
      if (X.Type != N.Type)
        return CUDA_ERROR_INVALID_VALUE;
      X.Run = std::move(N.Run);
      X.Label = std::move(N.Label);
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_INVALID_VALUE; // not a node of the graph E was made from
}

CUresult graphExecUpdate(GraphExec *E, Graph *G) {
  if (!isLive(E, Kind::GraphExec) || !isLive(G, Kind::Graph))
    return CUDA_ERROR_INVALID_VALUE;
  if (E->Nodes.size() != G->Nodes.size())
    return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
  for (size_t I = 0; I < G->Nodes.size(); ++I)
    if (E->Nodes[I].Type != G->Nodes[I]->Type || E->Nodes[I].Deps.size() != G->Nodes[I]->Deps.size() ||
        E->Nodes[I].Type == GraphNode::NT_MemAlloc || E->Nodes[I].Type == GraphNode::NT_MemFree)
      return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE; // a different topology (or allocation nodes, which CUDA refuses too)
  for (size_t I = 0; I < G->Nodes.size(); ++I) {
    GraphNode X = nodeCopy(*G->Nodes[I]);
    E->Nodes[I].Run = std::move(X.Run);
    E->Nodes[I].Label = std::move(X.Label);
    E->Nodes[I].Bodies = std::move(X.Bodies);
    E->Nodes[I].Cond = X.Cond;
  }
  return CUDA_SUCCESS;
}

CUresult graphDot(const Graph *G, const char *Path) {
  if (!isLive(G, Kind::Graph) || !Path)
    return CUDA_ERROR_INVALID_VALUE;
  FILE *F = std::fopen(Path, "w");
  if (!F)
    return CUDA_ERROR_OPERATING_SYSTEM;
  static const char *Names[] = {"kernel", "memcpy", "memset", "host", "graph", "empty", "wait_event", "event_record",
                                "ext_semas_signal", "ext_semas_wait", "mem_alloc", "mem_free", "batch_mem_op",
                                "conditional"};
  std::fprintf(F, "digraph zluda_graph {\n  rankdir=TB;\n");
  std::map<const GraphNode *, size_t> Id;
  for (size_t I = 0; I < G->Nodes.size(); ++I) {
    const GraphNode &N = *G->Nodes[I];
    Id[&N] = I;
    std::string L = N.Label;
    for (char &C : L)
      if (C == '"')
        C = '\'';
    std::fprintf(F, "  n%zu [shape=box, label=\"%zu: %s\\n%s\"];\n", I, I,
                 static_cast<size_t>(N.Type) < sizeof Names / sizeof *Names ? Names[N.Type] : "node", L.c_str());
  }
  for (size_t I = 0; I < G->Nodes.size(); ++I)
    for (const GraphNode *D : G->Nodes[I]->Deps)
      std::fprintf(F, "  n%zu -> n%zu;\n", Id.at(D), I);
  std::fprintf(F, "}\n");
  return std::fclose(F) == 0 ? CUDA_SUCCESS : CUDA_ERROR_OPERATING_SYSTEM;
}

GraphNode kernelNode(Function *F, Dim3 Grid, Dim3 Block, unsigned Shared, void **Params, void **Extra) {
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
  N.Label = F->Name + " <<<(" + std::to_string(Grid.X) + "," + std::to_string(Grid.Y) + "," + std::to_string(Grid.Z) +
            "), (" + std::to_string(Block.X) + "," + std::to_string(Block.Y) + "," + std::to_string(Block.Z) + ")>>>";
  N.Fn = F;
  N.Grid = Grid;
  N.Block = Block;
  N.Shared = Shared;
  N.Args = Buf;
  for (const auto &P : KI.Params)
    N.ArgPtrs.push_back(Buf->data() + P.Offset);
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
  X.Label = std::to_string(N) + " bytes";
  X.Run = [=](CUstream S) { return memcpyChecked(Dst, Src, N, S, true); };
  return X;
}

GraphNode memsetNode(uintptr_t Dst, uint32_t Value, unsigned ElemSize, size_t Width, size_t Height, size_t Pitch) {
  GraphNode X;
  X.Type = GraphNode::NT_Memset;
  X.Label = std::to_string(Width) + "x" + std::to_string(Height) + " of " + std::to_string(ElemSize) + " bytes";
  X.Run = [=](CUstream S) {
    return Height > 1 ? memset(Dst, Value, ElemSize, 0, Pitch, Width, Height, S, true)
                      : memset(Dst, Value, ElemSize, Width, 0, 0, 1, S, true);
  };
  uint64_t Spec[6] = {Dst, Pitch, Value, ElemSize, Width, Height};
  std::memcpy(X.Spec, Spec, sizeof Spec);
  return X;
}

GraphNode hostNode(void (*Fn)(void *), void *User) {
  GraphNode X;
  X.Type = GraphNode::NT_Host;
  X.Run = [=](CUstream S) { return backend().hostFunc(streamOf(S), Fn, User); };
  X.Spec[0] = reinterpret_cast<uint64_t>(Fn);
  X.Spec[1] = reinterpret_cast<uint64_t>(User);
  return X;
}

GraphNode memcpyNode(const CUDA_MEMCPY3D &P) {
  GraphNode X;
  X.Type = GraphNode::NT_Memcpy;
  X.Copy = P;
  X.Run = [Copy = P](CUstream S) { return copy3D(&Copy, S, true); }; // in stream order
  return X;
}

CUresult graphNodeSet(GraphNode *Node, GraphNode New) {
  if (!isLive(Node, Kind::GraphNode) || Node->Type != New.Type)
    return CUDA_ERROR_INVALID_VALUE;
  New.Deps = std::move(Node->Deps);
  New.Origin = Node->Origin;
  *Node = std::move(New);
  return CUDA_SUCCESS;
}

CUresult graphCreate(Graph *&Out) {
  Out = new Graph;
  Out->Ctx = currentContext();
  addLive(Out, Kind::Graph);
  return CUDA_SUCCESS;
}

CUresult graphDestroy(Graph *G) {
  if (!isLive(G, Kind::Graph) || G->OwnedByNode)
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
  N.Deps.assign(Deps, Deps + NumDeps);
  G->Nodes.push_back(std::make_unique<GraphNode>(std::move(N)));
  Out = G->Nodes.back().get();
  addLive(Out, Kind::GraphNode);
  return CUDA_SUCCESS;
}

CUresult graphInstantiate(Graph *G, GraphExec *&Out) {
  if (!isLive(G, Kind::Graph))
    return CUDA_ERROR_INVALID_VALUE;
  bool Conditional = false;
  for (auto &N : G->Nodes)
    Conditional |= N->Type == GraphNode::NT_Conditional;
  if (Conditional && *G->Execs > 0)
    return CUDA_ERROR_NOT_SUPPORTED; // a second executable graph (an H200 answers so)
  Out = new GraphExec;
  Out->OriginExecs = G->Execs;
  ++*G->Execs;
  Out->Ctx = currentContext();
  Out->Users = G->Users;
  Out->Handles = G->Handles;
  for (auto &N : G->Nodes) {
    Out->Nodes.push_back(nodeCopy(*N));
    Out->Nodes.back().Origin = N.get();
  }
  addLive(Out, Kind::GraphExec);
  return CUDA_SUCCESS;
}

CUresult graphLaunch(GraphExec *E, CUstream S) {
  if (!isLive(E, Kind::GraphExec))
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = streamCheck(S))
    return R;
  if (CUresult R = resetHandles(E->Handles, S))
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

CUresult beginCaptureToGraph(CUstream S, Graph *G) {
  if (S == nullptr || S == CU_STREAM_LEGACY)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (CUresult R = streamCheck(S))
    return R;
  if (!isLive(G, Kind::Graph))
    return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> L(GraphMu);
  if (Capturing.count(S))
    return CUDA_ERROR_ILLEGAL_STATE;
  Capturing[S] = G;
  return CUDA_SUCCESS;
}

CUresult condHandleCreate(Graph *G, unsigned Default, unsigned Flags, uint64_t &Out) {
  if (!isLive(G, Kind::Graph) || Flags > CU_GRAPH_COND_ASSIGN_DEFAULT)
    return CUDA_ERROR_INVALID_VALUE;
  CUdeviceptr P;
  if (CUresult R = memAlloc(&P, 4, CU_MEMORYTYPE_DEVICE, false, 0))
    return R;
  auto H = std::make_shared<CondHandle>();
  H->Mem = std::shared_ptr<void>(reinterpret_cast<void *>(P),
                                 [](void *Q) { memFree(reinterpret_cast<uintptr_t>(Q), CU_MEMORYTYPE_DEVICE); });
  H->Slot = P;
  H->Default = Default;
  H->AssignDefault = Flags & CU_GRAPH_COND_ASSIGN_DEFAULT;
  // Without ASSIGN_DEFAULT the default is never applied: the value starts
  // at 0 (as on an H200) and is the program's to set.
  uint32_t Zero = 0;
  if (CUresult R = memcpyChecked(reinterpret_cast<void *>(P), &Zero, 4))
    return R;
  G->Handles.push_back(H);
  Out = P;
  return CUDA_SUCCESS;
}

namespace {
/// The handle \p Value names: one created for \p G or for a graph that holds \p G as a body.
std::shared_ptr<CondHandle> findHandle(uint64_t Value) {
  State &St = state();
  std::lock_guard<std::mutex> L(St.Mu);
  for (auto &[P, K] : St.Live)
    if (K == Kind::Graph)
      for (auto &H : static_cast<Graph *>(P)->Handles)
        if (H->Slot == Value)
          return H;
  return nullptr;
}
} // namespace

CUresult addConditional(Graph *G, GraphNode *const *Deps, size_t NumDeps, uint64_t Handle, int Type, unsigned Size,
                        Graph **&BodiesOut, GraphNode *&Out) {
  if (!isLive(G, Kind::Graph))
    return CUDA_ERROR_INVALID_VALUE;
  bool SizeOk = Type == CU_GRAPH_COND_TYPE_IF     ? Size == 1 || Size == 2
                : Type == CU_GRAPH_COND_TYPE_WHILE ? Size == 1
                : Type == CU_GRAPH_COND_TYPE_SWITCH ? Size > 0
                                                    : false;
  if (!SizeOk)
    return CUDA_ERROR_INVALID_VALUE;
  std::shared_ptr<CondHandle> H = findHandle(Handle);
  if (!H)
    return CUDA_ERROR_INVALID_VALUE;
  std::vector<std::shared_ptr<Graph>> Bodies;
  for (unsigned I = 0; I < Size; ++I) {
    auto B = std::make_unique<Graph>();
    B->Ctx = G->Ctx;
    Bodies.push_back(ownedGraph(std::move(B)));
  }
  if (CUresult R = graphAddNode(G, Deps, NumDeps, conditionalNode(H, Type, Bodies), Out))
    return R;
  for (unsigned I = 0; I < Size; ++I) {
    addLive(Bodies[I].get(), Kind::Graph); // the program adds the bodies' nodes through these handles
    Out->BodyHandles.push_back(Bodies[I].get());
  }
  BodiesOut = Out->BodyHandles.data();
  return CUDA_SUCCESS;
}

CUresult endCapture(CUstream S, Graph *&Out) {
  std::lock_guard<std::mutex> L(GraphMu);
  auto It = Capturing.find(S);
  if (It == Capturing.end())
    return CUDA_ERROR_ILLEGAL_STATE;
  Out = It->second;
  // Streams that joined the capture (by waiting for its events) leave it with the origin.
  for (auto J = Capturing.begin(); J != Capturing.end();)
    J = J->second == Out ? Capturing.erase(J) : std::next(J);
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
using MemsetNodeParams = CUDA_MEMSET_NODE_PARAMS;
using HostNodeParams = CUDA_HOST_NODE_PARAMS;
CUresult kernelNodeOf(const KernelNodeParamsV2 *P, GraphNode &Out) {
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  Function *F = handle<Function>(P->func ? static_cast<void *>(P->func) : static_cast<void *>(P->kern), Kind::Function);
  if (!F)
    return CUDA_ERROR_INVALID_HANDLE;
  Out = kernelNode(F, {P->gridDimX, P->gridDimY, P->gridDimZ}, {P->blockDimX, P->blockDimY, P->blockDimZ},
                   P->sharedMemBytes, P->kernelParams, P->extra);
  return CUDA_SUCCESS;
}
// The other node types' parameters, checked, as nodes (for adding a node and
// for changing one, in a graph or an executable graph).
CUresult memsetNodeOf(const MemsetNodeParams *P, GraphNode &Out) {
  if (!P || (P->elementSize != 1 && P->elementSize != 2 && P->elementSize != 4))
    return CUDA_ERROR_INVALID_VALUE;
  Out = memsetNode(P->dst, P->value, P->elementSize, P->width, P->height, P->pitch);
  return CUDA_SUCCESS;
}
CUresult hostNodeOf(const HostNodeParams *P, GraphNode &Out) {
  if (!P || !P->fn)
    return CUDA_ERROR_INVALID_VALUE;
  Out = hostNode(P->fn, P->userData);
  return CUDA_SUCCESS;
}
CUresult memcpyNodeOf(const CUDA_MEMCPY3D *P, GraphNode &Out) {
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  Out = memcpyNode(*P);
  return CUDA_SUCCESS;
}
CUresult eventNodeOf(CUevent Ev, bool Wait, GraphNode &Out) {
  if (!isLive(Ev, Kind::Event))
    return CUDA_ERROR_INVALID_HANDLE;
  Out = eventNode(Ev, Wait);
  return CUDA_SUCCESS;
}
/// Adds \p X to graph \p G after \p Deps; its handle goes to \p Out.
CUresult addTo(void **Out, CUgraph G, void *const *Deps, size_t N, GraphNode X) {
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  GraphNode *Node;
  CUresult R = graphAddNode(reinterpret_cast<Graph *>(G), reinterpret_cast<GraphNode *const *>(Deps), N, std::move(X), Node);
  if (R == CUDA_SUCCESS)
    *Out = Node;
  return R;
}
/// Replaces \p Node's parameters with those \p Build made: in the executable
/// graph \p E, or in its own graph when \p E is null.
template <typename F> CUresult replaceNode(void *E, void *Node, F Build) {
  GraphNode X;
  if (CUresult R = Build(X))
    return R;
  return E ? graphExecSetNode(static_cast<GraphExec *>(E), static_cast<GraphNode *>(Node), std::move(X))
           : graphNodeSet(static_cast<GraphNode *>(Node), std::move(X));
}
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
    if (!Out)
      return CUDA_ERROR_INVALID_VALUE;
    GraphNode X;
    if (CUresult R = kernelNodeOf(P, X))
      return R;
    GraphNode *Node;
    CUresult R = graphAddNode(reinterpret_cast<Graph *>(G), reinterpret_cast<GraphNode *const *>(Deps), N, std::move(X), Node);
    *Out = Node;
    return R;
  });
}
ZLUDA_API(cuGraphAddMemsetNode, (void **Out, CUgraph G, void *const *Deps, size_t N, const MemsetNodeParams *P, CUcontext Arg5), (Out, G, Deps, N, P, Arg5)) {
  ZLUDA_GUARD({
    GraphNode X;
    if (CUresult R = memsetNodeOf(P, X))
      return R;
    return addTo(Out, G, Deps, N, std::move(X));
  });
}
ZLUDA_API(cuGraphAddHostNode, (void **Out, CUgraph G, void *const *Deps, size_t N, const HostNodeParams *P), (Out, G, Deps, N, P)) {
  ZLUDA_GUARD({
    GraphNode X;
    if (CUresult R = hostNodeOf(P, X))
      return R;
    return addTo(Out, G, Deps, N, std::move(X));
  });
}
ZLUDA_API(cuGraphAddMemcpyNode, (void **Out, CUgraph G, void *const *Deps, size_t N, const CUDA_MEMCPY3D *P, CUcontext Arg5), (Out, G, Deps, N, P, Arg5)) {
  ZLUDA_GUARD({
    if (!Out || !P)
      return CUDA_ERROR_INVALID_VALUE;
    GraphNode *Node;
    CUresult R = graphAddNode(reinterpret_cast<Graph *>(G), reinterpret_cast<GraphNode *const *>(Deps), N, memcpyNode(*P), Node);
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
  // The graph being built and its last node (captured work is a chain).
  static thread_local void *Last;
  Graph *Gr = capturingGraph(S);
  Last = Gr && !Gr->Nodes.empty() ? Gr->Nodes.back().get() : nullptr;
  if (Status)
    *Status = Gr ? 1 : 0;
  if (Id)
    *Id = reinterpret_cast<uintptr_t>(Gr);
  if (G)
    *G = reinterpret_cast<CUgraph>(Gr);
  if (Deps)
    *Deps = Last ? &Last : nullptr;
  if (Edges)
    *Edges = nullptr;
  if (NumDeps)
    *NumDeps = Last ? 1 : 0;
  return CUDA_SUCCESS;
}
ZLUDA_API(cuStreamGetCaptureInfo_v3_ptsz, (CUstream S, int *Status, unsigned long long *Id, CUgraph *G, const void **Deps, const void **Edges, size_t *NumDeps), (S, Status, Id, G, Deps, Edges, NumDeps)) {
  return cuStreamGetCaptureInfo_v3(ptsz(S), Status, Id, G, Deps, Edges, NumDeps);
}

// --- graph structure, copies, child graphs, events, memory, updates ------------------------

namespace {
using MemAllocNodeParams = CUDA_MEM_ALLOC_NODE_PARAMS;
static_assert(sizeof(CUmemPoolProps) == 88 && sizeof(MemAllocNodeParams) == 120, "CUDA's layout");

/// Registers the nodes of a graph made by graphCopy.
Graph *publish(std::unique_ptr<Graph> G) {
  Graph *P = G.release();
  addLive(P, Kind::Graph);
  for (auto &N : P->Nodes)
    addLive(N.get(), Kind::GraphNode);
  return P;
}

} // namespace

ZLUDA_API(cuGraphClone, (CUgraph * Out, CUgraph H), (Out, H)) {
  ZLUDA_GUARD({
    Graph *G = handle<Graph>(H, Kind::Graph);
    if (!Out || !G)
      return CUDA_ERROR_INVALID_VALUE;
    // As NVIDIA's driver answers (an H200, CUDA 13): graphs with conditional
    // or memory allocation/free nodes are not cloned.
    for (auto &N : G->Nodes)
      if (N->Type == GraphNode::NT_Conditional || N->Type == GraphNode::NT_MemAlloc ||
          N->Type == GraphNode::NT_MemFree)
        return CUDA_ERROR_NOT_SUPPORTED;
    *Out = reinterpret_cast<CUgraph>(publish(graphCopy(*G)));
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuGraphAddChildGraphNode, (void **Out, CUgraph G, void *const *Deps, size_t N, CUgraph Child),
          (Out, G, Deps, N, Child)) {
  ZLUDA_GUARD({
    Graph *C = handle<Graph>(Child, Kind::Graph);
    if (!C)
      return CUDA_ERROR_INVALID_VALUE;
    for (auto &X : C->Nodes) // nor are graphs with memory nodes children (an H200 answers so)
      if (X->Type == GraphNode::NT_MemAlloc || X->Type == GraphNode::NT_MemFree)
        return CUDA_ERROR_NOT_SUPPORTED;
    return addTo(Out, G, Deps, N, childNode(*C));
  });
}
ZLUDA_API(cuGraphChildGraphNodeGetGraph, (void *H, CUgraph *Out), (H, Out)) {
  GraphNode *N = handle<GraphNode>(H, Kind::GraphNode);
  if (!N || !Out || N->Type != GraphNode::NT_Graph)
    return CUDA_ERROR_INVALID_VALUE;
  if (!isLive(N->Child.get(), Kind::Graph)) { // its handle, made on first request
    addLive(N->Child.get(), Kind::Graph);
    for (auto &X : N->Child->Nodes)
      addLive(X.get(), Kind::GraphNode);
  }
  *Out = reinterpret_cast<CUgraph>(N->Child.get());
  return CUDA_SUCCESS;
}
ZLUDA_API(cuGraphAddEventRecordNode, (void **Out, CUgraph G, void *const *Deps, size_t N, CUevent E),
          (Out, G, Deps, N, E)) {
  ZLUDA_GUARD({
    GraphNode X;
    if (CUresult R = eventNodeOf(E, false, X))
      return R;
    return addTo(Out, G, Deps, N, std::move(X));
  });
}
ZLUDA_API(cuGraphAddEventWaitNode, (void **Out, CUgraph G, void *const *Deps, size_t N, CUevent E),
          (Out, G, Deps, N, E)) {
  ZLUDA_GUARD({
    GraphNode X;
    if (CUresult R = eventNodeOf(E, true, X))
      return R;
    return addTo(Out, G, Deps, N, std::move(X));
  });
}
ZLUDA_API(cuGraphEventRecordNodeGetEvent, (void *H, CUevent *Out), (H, Out)) {
  GraphNode *N = handle<GraphNode>(H, Kind::GraphNode);
  if (!N || !Out || N->Type != GraphNode::NT_EventRecord)
    return CUDA_ERROR_INVALID_VALUE;
  *Out = N->Event;
  return CUDA_SUCCESS;
}
ZLUDA_API(cuGraphEventWaitNodeGetEvent, (void *H, CUevent *Out), (H, Out)) {
  GraphNode *N = handle<GraphNode>(H, Kind::GraphNode);
  if (!N || !Out || N->Type != GraphNode::NT_WaitEvent)
    return CUDA_ERROR_INVALID_VALUE;
  *Out = N->Event;
  return CUDA_SUCCESS;
}
ZLUDA_API(cuGraphAddMemAllocNode, (void **Out, CUgraph G, void *const *Deps, size_t N, MemAllocNodeParams *P),
          (Out, G, Deps, N, P)) {
  ZLUDA_GUARD({
    if (!P || P->bytesize == 0)
      return CUDA_ERROR_INVALID_VALUE;
    if (P->poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE || P->poolProps.location.id != 0)
      return CUDA_ERROR_INVALID_DEVICE;
    GraphNode X;
    if (CUresult R = graphMemAlloc(reinterpret_cast<Graph *>(G), P->bytesize, X))
      return R;
    CUdeviceptr Ptr = X.Ptr;
    if (CUresult R = addTo(Out, G, Deps, N, std::move(X)))
      return R;
    P->dptr = Ptr;
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuGraphAddMemFreeNode, (void **Out, CUgraph G, void *const *Deps, size_t N, CUdeviceptr P),
          (Out, G, Deps, N, P)) {
  ZLUDA_GUARD({
    if (!findAllocation(P))
      return CUDA_ERROR_INVALID_VALUE;
    return addTo(Out, G, Deps, N, memFreeNode(P));
  });
}
ZLUDA_API(cuGraphMemFreeNodeGetParams, (void *H, CUdeviceptr *Out), (H, Out)) {
  GraphNode *N = handle<GraphNode>(H, Kind::GraphNode);
  if (!N || !Out || N->Type != GraphNode::NT_MemFree)
    return CUDA_ERROR_INVALID_VALUE;
  *Out = N->Ptr;
  return CUDA_SUCCESS;
}
ZLUDA_API(cuGraphNodeGetDependencies, (void *H, void **Deps, size_t *Num), (H, Deps, Num)) {
  GraphNode *N = handle<GraphNode>(H, Kind::GraphNode);
  if (!N || !Num)
    return CUDA_ERROR_INVALID_VALUE;
  if (Deps)
    for (size_t I = 0; I < std::min(*Num, N->Deps.size()); ++I)
      Deps[I] = N->Deps[I];
  *Num = N->Deps.size();
  return CUDA_SUCCESS;
}
ZLUDA_API(cuGraphGetEdges, (CUgraph H, void **From, void **To, size_t *Num), (H, From, To, Num)) {
  ZLUDA_GUARD({
    Graph *G = handle<Graph>(H, Kind::Graph);
    if (!G || !Num)
      return CUDA_ERROR_INVALID_VALUE;
    size_t K = 0;
    for (auto &N : G->Nodes)
      for (GraphNode *D : N->Deps) {
        if (From && To && K < *Num) {
          From[K] = D;
          To[K] = N.get();
        }
        ++K;
      }
    *Num = K;
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuGraphGetRootNodes, (CUgraph H, void **Nodes, size_t *Num), (H, Nodes, Num)) {
  ZLUDA_GUARD({
    Graph *G = handle<Graph>(H, Kind::Graph);
    if (!G || !Num)
      return CUDA_ERROR_INVALID_VALUE;
    size_t K = 0;
    for (auto &N : G->Nodes)
      if (N->Deps.empty()) {
        if (Nodes && K < *Num)
          Nodes[K] = N.get();
        ++K;
      }
    *Num = K;
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuGraphExecKernelNodeSetParams_v2, (void *E, void *Node, const KernelNodeParamsV2 *P), (E, Node, P)) {
  ZLUDA_GUARD({
    return replaceNode(E, Node, [&](GraphNode &X) { return kernelNodeOf(P, X); });
  });
}
ZLUDA_API(cuGraphExecMemsetNodeSetParams, (void *E, void *Node, const MemsetNodeParams *P, CUcontext C), (E, Node, P, C)) {
  ZLUDA_GUARD({
    return replaceNode(E, Node, [&](GraphNode &X) { return memsetNodeOf(P, X); });
  });
}
ZLUDA_API(cuGraphExecHostNodeSetParams, (void *E, void *Node, const HostNodeParams *P), (E, Node, P)) {
  ZLUDA_GUARD({
    return replaceNode(E, Node, [&](GraphNode &X) { return hostNodeOf(P, X); });
  });
}
ZLUDA_API(cuGraphExecMemcpyNodeSetParams, (void *E, void *Node, const CUDA_MEMCPY3D *P, CUcontext C), (E, Node, P, C)) {
  ZLUDA_GUARD({
    return replaceNode(E, Node, [&](GraphNode &X) { return memcpyNodeOf(P, X); });
  });
}
ZLUDA_API(cuGraphExecChildGraphNodeSetParams, (void *E, void *Node, CUgraph Child), (E, Node, Child)) {
  ZLUDA_GUARD({
    // The new child must have the topology of the node's own child graph
    // (node count, order, types and dependencies), as the Driver API reference states;
    // another topology is CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, as an H100 answers.
    const GraphNode *N = handle<GraphNode>(Node, Kind::GraphNode);
    const Graph *C = handle<Graph>(Child, Kind::Graph);
    if (!N || !C || N->Type != GraphNode::NT_Graph || !N->Child)
      return CUDA_ERROR_INVALID_VALUE;
    const Graph &Old = *N->Child;
    if (Old.Nodes.size() != C->Nodes.size())
      return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    std::map<const GraphNode *, size_t> OldIx, NewIx;
    for (size_t I = 0; I < C->Nodes.size(); ++I) {
      OldIx[Old.Nodes[I].get()] = I;
      NewIx[C->Nodes[I].get()] = I;
    }
    for (size_t I = 0; I < C->Nodes.size(); ++I) {
      const GraphNode &A = *Old.Nodes[I], &Bn = *C->Nodes[I];
      if (A.Type != Bn.Type || A.Deps.size() != Bn.Deps.size() || Bn.Type == GraphNode::NT_MemAlloc ||
          Bn.Type == GraphNode::NT_MemFree)
        return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
      for (size_t D = 0; D < A.Deps.size(); ++D)
        if (OldIx.at(A.Deps[D]) != NewIx.at(Bn.Deps[D]))
          return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    }
    return replaceNode(E, Node, [&](GraphNode &X) {
      X = childNode(*C);
      return CUDA_SUCCESS;
    });
  });
}
// --- the parameters of a graph's nodes (before instantiation) ---------------------------

ZLUDA_API(cuGraphKernelNodeGetParams_v2, (void *H, KernelNodeParamsV2 *Out), (H, Out)) {
  GraphNode *N = handle<GraphNode>(H, Kind::GraphNode);
  if (!N || !Out || N->Type != GraphNode::NT_Kernel)
    return CUDA_ERROR_INVALID_VALUE;
  // Our CUkernel and CUfunction of a kernel are one object: both are set
  // (NVIDIA's libcudart finds the program's function from the CUkernel).
  *Out = KernelNodeParamsV2{reinterpret_cast<CUfunction>(N->Fn), N->Grid.X, N->Grid.Y, N->Grid.Z, N->Block.X,
                            N->Block.Y, N->Block.Z, N->Shared, N->ArgPtrs.data(), nullptr,
                            reinterpret_cast<CUkernel>(N->Fn), nullptr};
  return CUDA_SUCCESS;
}
ZLUDA_API(cuGraphKernelNodeGetParams, (void *H, KernelNodeParamsV2 *Out), (H, Out)) {
  // CUDA_KERNEL_NODE_PARAMS_v1 is the v2 struct without its last two members.
  KernelNodeParamsV2 P;
  CUresult R = cuGraphKernelNodeGetParams_v2(H, &P);
  if (R == CUDA_SUCCESS && Out)
    std::memcpy(static_cast<void *>(Out), &P, offsetof(KernelNodeParamsV2, kern));
  return R;
}
ZLUDA_API(cuGraphKernelNodeSetParams_v2, (void *H, const KernelNodeParamsV2 *P), (H, P)) {
  ZLUDA_GUARD({
    return replaceNode(nullptr, H, [&](GraphNode &X) { return kernelNodeOf(P, X); });
  });
}
ZLUDA_API(cuGraphKernelNodeSetParams, (void *H, const KernelNodeParamsV2 *P), (H, P)) {
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  KernelNodeParamsV2 V2{};
  std::memcpy(&V2, P, offsetof(KernelNodeParamsV2, kern));
  return cuGraphKernelNodeSetParams_v2(H, &V2);
}
ZLUDA_API(cuGraphMemsetNodeGetParams, (void *H, MemsetNodeParams *Out), (H, Out)) {
  GraphNode *N = handle<GraphNode>(H, Kind::GraphNode);
  if (!N || !Out || N->Type != GraphNode::NT_Memset)
    return CUDA_ERROR_INVALID_VALUE;
  *Out = MemsetNodeParams{N->Spec[0], N->Spec[1], static_cast<unsigned>(N->Spec[2]), static_cast<unsigned>(N->Spec[3]),
                          N->Spec[4], N->Spec[5]};
  return CUDA_SUCCESS;
}
ZLUDA_API(cuGraphMemsetNodeSetParams, (void *H, const MemsetNodeParams *P), (H, P)) {
  ZLUDA_GUARD({
    return replaceNode(nullptr, H, [&](GraphNode &X) { return memsetNodeOf(P, X); });
  });
}
ZLUDA_API(cuGraphHostNodeGetParams, (void *H, HostNodeParams *Out), (H, Out)) {
  GraphNode *N = handle<GraphNode>(H, Kind::GraphNode);
  if (!N || !Out || N->Type != GraphNode::NT_Host)
    return CUDA_ERROR_INVALID_VALUE;
  *Out = HostNodeParams{reinterpret_cast<CUhostFn>(N->Spec[0]), reinterpret_cast<void *>(N->Spec[1])};
  return CUDA_SUCCESS;
}
ZLUDA_API(cuGraphHostNodeSetParams, (void *H, const HostNodeParams *P), (H, P)) {
  ZLUDA_GUARD({
    return replaceNode(nullptr, H, [&](GraphNode &X) { return hostNodeOf(P, X); });
  });
}
ZLUDA_API(cuGraphMemcpyNodeGetParams, (void *H, CUDA_MEMCPY3D *Out), (H, Out)) {
  GraphNode *N = handle<GraphNode>(H, Kind::GraphNode);
  if (!N || !Out || N->Type != GraphNode::NT_Memcpy)
    return CUDA_ERROR_INVALID_VALUE;
  *Out = N->Copy;
  return CUDA_SUCCESS;
}
ZLUDA_API(cuGraphMemcpyNodeSetParams, (void *H, const CUDA_MEMCPY3D *P), (H, P)) {
  ZLUDA_GUARD({
    return replaceNode(nullptr, H, [&](GraphNode &X) { return memcpyNodeOf(P, X); });
  });
}
ZLUDA_API(cuGraphEventRecordNodeSetEvent, (void *H, CUevent Ev), (H, Ev)) {
  ZLUDA_GUARD({
    return replaceNode(nullptr, H, [&](GraphNode &X) { return eventNodeOf(Ev, false, X); });
  });
}
ZLUDA_API(cuGraphEventWaitNodeSetEvent, (void *H, CUevent Ev), (H, Ev)) {
  ZLUDA_GUARD({
    return replaceNode(nullptr, H, [&](GraphNode &X) { return eventNodeOf(Ev, true, X); });
  });
}
ZLUDA_API(cuGraphExecEventRecordNodeSetEvent, (void *E, void *Node, CUevent Ev), (E, Node, Ev)) {
  ZLUDA_GUARD({
    return replaceNode(E, Node, [&](GraphNode &X) { return eventNodeOf(Ev, false, X); });
  });
}
ZLUDA_API(cuGraphExecEventWaitNodeSetEvent, (void *E, void *Node, CUevent Ev), (E, Node, Ev)) {
  ZLUDA_GUARD({
    return replaceNode(E, Node, [&](GraphNode &X) { return eventNodeOf(Ev, true, X); });
  });
}
ZLUDA_API(cuGraphExecUpdate_v2, (void *E, CUgraph G, void *Info), (E, G, Info)) {
  ZLUDA_GUARD({
    CUresult R = graphExecUpdate(static_cast<GraphExec *>(E), reinterpret_cast<Graph *>(G));
    if (Info) { // CUgraphExecUpdateResultInfo: result, errorNode, errorFromNode
      struct ResultInfo {
        int result;
        void *errorNode, *errorFromNode;
      } I = {R == CUDA_SUCCESS ? 0 : 2 /* CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED */, nullptr, nullptr};
      std::memcpy(Info, &I, sizeof I);
    }
    return R;
  });
}
ZLUDA_API(cuGraphDebugDotPrint, (CUgraph G, const char *Path, unsigned Flags), (G, Path, Flags)) {
  ZLUDA_GUARD({ return graphDot(reinterpret_cast<Graph *>(G), Path); });
}
ZLUDA_API(cuStreamGetCaptureInfo_v2, (CUstream S, int *Status, unsigned long long *Id, CUgraph *G, const void **Deps, size_t *NumDeps),
          (S, Status, Id, G, Deps, NumDeps)) {
  return cuStreamGetCaptureInfo_v3(S, Status, Id, G, Deps, nullptr, NumDeps);
}
ZLUDA_API(cuStreamGetCaptureInfo_v2_ptsz, (CUstream S, int *Status, unsigned long long *Id, CUgraph *G, const void **Deps, size_t *NumDeps),
          (S, Status, Id, G, Deps, NumDeps)) {
  return cuStreamGetCaptureInfo_v2(ptsz(S), Status, Id, G, Deps, NumDeps);
}
// Captured work is a chain in stream order: any set of dependencies the
// program gives is honoured by it (the next node depends on all earlier ones).
ZLUDA_API(cuStreamUpdateCaptureDependencies, (CUstream S, void **Deps, size_t N, unsigned Flags), (S, Deps, N, Flags)) {
  if (CUresult R = streamCheck(S))
    return R;
  if ((N && !Deps) || Flags > 1)
    return CUDA_ERROR_INVALID_VALUE;
  return capturingGraph(S) ? CUDA_SUCCESS : CUDA_ERROR_ILLEGAL_STATE;
}
ZLUDA_API(cuStreamUpdateCaptureDependencies_ptsz, (CUstream S, void **Deps, size_t N, unsigned Flags), (S, Deps, N, Flags)) {
  return cuStreamUpdateCaptureDependencies(ptsz(S), Deps, N, Flags);
}
ZLUDA_API(cuStreamUpdateCaptureDependencies_v2, (CUstream S, void **Deps, const void *Edges, size_t N, unsigned Flags),
          (S, Deps, Edges, N, Flags)) {
  return cuStreamUpdateCaptureDependencies(S, Deps, N, Flags);
}
ZLUDA_API(cuStreamUpdateCaptureDependencies_v2_ptsz, (CUstream S, void **Deps, const void *Edges, size_t N, unsigned Flags),
          (S, Deps, Edges, N, Flags)) {
  return cuStreamUpdateCaptureDependencies(ptsz(S), Deps, N, Flags);
}
// The _v2 forms add edge data (CUgraphEdgeData, 8 bytes an edge): every edge here is a default one.
ZLUDA_API(cuGraphGetEdges_v2, (CUgraph H, void **From, void **To, void *EdgeData, size_t *Num), (H, From, To, EdgeData, Num)) {
  size_t Cap = Num ? *Num : 0;
  CUresult R = cuGraphGetEdges(H, From, To, Num);
  if (R == CUDA_SUCCESS && EdgeData && From)
    std::memset(EdgeData, 0, std::min(Cap, *Num) * 8);
  return R;
}
ZLUDA_API(cuGraphNodeGetDependencies_v2, (void *H, void **Deps, void *EdgeData, size_t *Num), (H, Deps, EdgeData, Num)) {
  size_t Cap = Num ? *Num : 0;
  CUresult R = cuGraphNodeGetDependencies(H, Deps, Num);
  if (R == CUDA_SUCCESS && EdgeData && Deps)
    std::memset(EdgeData, 0, std::min(Cap, *Num) * 8);
  return R;
}
ZLUDA_API(cuGraphNodeGetDependentNodes, (void *H, void **Out, size_t *Num), (H, Out, Num)) {
  ZLUDA_GUARD({
    GraphNode *N = handle<GraphNode>(H, Kind::GraphNode);
    if (!N || !Num)
      return CUDA_ERROR_INVALID_VALUE;
    // The dependents are in the node's graph: the one holding it.
    std::lock_guard<std::mutex> L(state().Mu);
    size_t K = 0;
    for (auto &[P, Kd] : state().Live) {
      if (Kd != Kind::Graph)
        continue;
      for (auto &X : static_cast<Graph *>(P)->Nodes)
        for (GraphNode *D : X->Deps)
          if (D == N) {
            if (Out && K < *Num)
              Out[K] = X.get();
            ++K;
          }
    }
    *Num = K;
    return CUDA_SUCCESS;
  });
}
ZLUDA_API(cuGraphNodeGetDependentNodes_v2, (void *H, void **Out, void *EdgeData, size_t *Num), (H, Out, EdgeData, Num)) {
  size_t Cap = Num ? *Num : 0;
  CUresult R = cuGraphNodeGetDependentNodes(H, Out, Num);
  if (R == CUDA_SUCCESS && EdgeData && Out)
    std::memset(EdgeData, 0, std::min(Cap, *Num) * 8);
  return R;
}
ZLUDA_API(cuGraphNodeFindInClone, (void **Out, void *Original, CUgraph Clone), (Out, Original, Clone)) {
  ZLUDA_GUARD({
    Graph *C = handle<Graph>(Clone, Kind::Graph);
    if (!Out || !C || !isLive(Original, Kind::GraphNode))
      return CUDA_ERROR_INVALID_VALUE;
    // A clone keeps its graph's order: the node at the original's position in
    // the graph that holds it (a graph of the same size).
    std::lock_guard<std::mutex> L(state().Mu);
    for (auto &[P, K] : state().Live) {
      if (K != Kind::Graph || P == C)
        continue;
      const auto &Nodes = static_cast<Graph *>(P)->Nodes;
      for (size_t I = 0; I < Nodes.size(); ++I)
        if (Nodes[I].get() == Original && Nodes.size() == C->Nodes.size() && C->Nodes[I]->Type == Nodes[I]->Type) {
          *Out = C->Nodes[I].get();
          return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_INVALID_VALUE;
  });
}

// --- conditional nodes, cuGraphAddNode, capture into a graph ------------------------------

ZLUDA_API(cuGraphConditionalHandleCreate,
          (CUgraphConditionalHandle * Out, CUgraph G, CUcontext Ctx, unsigned Default, unsigned Flags),
          (Out, G, Ctx, Default, Flags)) {
  ZLUDA_GUARD({
    if (!Out)
      return CUDA_ERROR_INVALID_VALUE;
    uint64_t H;
    if (CUresult R = condHandleCreate(reinterpret_cast<Graph *>(G), Default, Flags, H))
      return R;
    *Out = H;
    return CUDA_SUCCESS;
  });
}
namespace {
struct MemcpyNodeParams { // CUDA_MEMCPY_NODE_PARAMS
  int flags, reserved;
  CUcontext copyCtx;
  CUDA_MEMCPY3D copyParams;
};
struct ChildGraphNodeParams { // CUDA_CHILD_GRAPH_NODE_PARAMS
  CUgraph graph;
  int ownership; // CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE (0) or _MOVE (1)
};
} // namespace
ZLUDA_API(cuGraphAddNode_v2,
          (void **Out, CUgraph G, void *const *Deps, const void *EdgeData, size_t N, CUgraphNodeParams *P),
          (Out, G, Deps, EdgeData, N, P)) {
  ZLUDA_GUARD({
    if (!Out || !P)
      return CUDA_ERROR_INVALID_VALUE;
    void *U = &P->reserved1; // the union of per-type parameters
    switch (P->type) {
    case GraphNode::NT_Kernel:
      return cuGraphAddKernelNode_v2(Out, G, Deps, N, static_cast<const KernelNodeParamsV2 *>(U));
    case GraphNode::NT_Memcpy: {
      auto *M = static_cast<const MemcpyNodeParams *>(U);
      return cuGraphAddMemcpyNode(Out, G, Deps, N, &M->copyParams, M->copyCtx);
    }
    case GraphNode::NT_Memset:
      return cuGraphAddMemsetNode(Out, G, Deps, N, static_cast<const MemsetNodeParams *>(U), nullptr);
    case GraphNode::NT_Host:
      return cuGraphAddHostNode(Out, G, Deps, N, static_cast<const HostNodeParams *>(U));
    case GraphNode::NT_Graph: {
      auto *C = static_cast<const ChildGraphNodeParams *>(U);
      if (C->ownership != 0 && C->ownership != 1)
        return CUDA_ERROR_INVALID_VALUE;
      if (CUresult R = cuGraphAddChildGraphNode(Out, G, Deps, N, C->graph))
        return R;
      if (C->ownership == 1) // moved into the node: the node's copy is the graph now
        graphDestroy(reinterpret_cast<Graph *>(C->graph));
      return CUDA_SUCCESS;
    }
    case GraphNode::NT_Empty:
      return cuGraphAddEmptyNode(Out, G, Deps, N);
    case GraphNode::NT_WaitEvent:
      return cuGraphAddEventWaitNode(Out, G, Deps, N, *static_cast<CUevent *>(U));
    case GraphNode::NT_EventRecord:
      return cuGraphAddEventRecordNode(Out, G, Deps, N, *static_cast<CUevent *>(U));
    case GraphNode::NT_MemAlloc:
      return cuGraphAddMemAllocNode(Out, G, Deps, N, static_cast<MemAllocNodeParams *>(U));
    case GraphNode::NT_MemFree:
      return cuGraphAddMemFreeNode(Out, G, Deps, N, *static_cast<CUdeviceptr *>(U));
    case GraphNode::NT_Conditional: {
      CUDA_CONDITIONAL_NODE_PARAMS &C = P->conditional;
      GraphNode *Node;
      if (CUresult R = addConditional(reinterpret_cast<Graph *>(G), reinterpret_cast<GraphNode *const *>(Deps), N,
                                      C.handle, C.type, C.size, reinterpret_cast<Graph **&>(C.phGraph_out), Node))
        return R;
      *Out = Node;
      return CUDA_SUCCESS;
    }
    default: // external semaphores, batch memory operations
      return notSupported("cuGraphAddNode with this node type");
    }
  });
}
namespace {
/// The generic node setters (CUgraphNodeParams): \p Node's new parameters, in
/// the executable graph \p E or in its own graph when \p E is null; the type
/// must stay the node's.
CUresult setFromParams(void *E, void *Node, CUgraphNodeParams *P, const char *Api) {
  if (!P || !isLive(Node, Kind::GraphNode) || static_cast<GraphNode *>(Node)->Type != P->type)
    return CUDA_ERROR_INVALID_VALUE;
  void *U = &P->reserved1;
  switch (P->type) {
  case GraphNode::NT_Kernel:
    return replaceNode(E, Node, [&](GraphNode &X) { return kernelNodeOf(static_cast<const KernelNodeParamsV2 *>(U), X); });
  case GraphNode::NT_Memcpy:
    return replaceNode(E, Node, [&](GraphNode &X) {
      return memcpyNodeOf(&static_cast<const MemcpyNodeParams *>(U)->copyParams, X);
    });
  case GraphNode::NT_Memset:
    return replaceNode(E, Node, [&](GraphNode &X) { return memsetNodeOf(static_cast<const MemsetNodeParams *>(U), X); });
  case GraphNode::NT_Host:
    return replaceNode(E, Node, [&](GraphNode &X) { return hostNodeOf(static_cast<const HostNodeParams *>(U), X); });
  case GraphNode::NT_WaitEvent:
  case GraphNode::NT_EventRecord:
    return replaceNode(E, Node, [&](GraphNode &X) {
      return eventNodeOf(*static_cast<CUevent *>(U), P->type == GraphNode::NT_WaitEvent, X);
    });
  case GraphNode::NT_Empty:
    return CUDA_SUCCESS;
  default: // child graphs, allocation nodes, conditional nodes
    return notSupported((std::string(Api) + " with this node type").c_str());
  }
}
} // namespace
ZLUDA_API(cuGraphExecNodeSetParams, (void *E, void *Node, CUgraphNodeParams *P), (E, Node, P)) {
  ZLUDA_GUARD({ return setFromParams(E, Node, P, "cuGraphExecNodeSetParams"); });
}
ZLUDA_API(cuGraphNodeSetParams, (void *Node, CUgraphNodeParams *P), (Node, P)) {
  ZLUDA_GUARD({ return setFromParams(nullptr, Node, P, "cuGraphNodeSetParams"); });
}
ZLUDA_API(cuGraphAddNode, (void **Out, CUgraph G, void *const *Deps, size_t N, CUgraphNodeParams *P),
          (Out, G, Deps, N, P)) {
  return cuGraphAddNode_v2(Out, G, Deps, nullptr, N, P);
}
ZLUDA_API(cuStreamBeginCaptureToGraph,
          (CUstream S, CUgraph G, void *const *Deps, const void *EdgeData, size_t N, int Mode),
          (S, G, Deps, EdgeData, N, Mode)) {
  // Captured work is a chain in insertion order after the graph's nodes, so
  // it follows \p Deps too.
  ZLUDA_GUARD({
    if (N && !Deps)
      return CUDA_ERROR_INVALID_VALUE;
    return beginCaptureToGraph(S, reinterpret_cast<Graph *>(G));
  });
}
ZLUDA_API(cuStreamBeginCaptureToGraph_ptsz,
          (CUstream S, CUgraph G, void *const *Deps, const void *EdgeData, size_t N, int Mode),
          (S, G, Deps, EdgeData, N, Mode)) {
  return cuStreamBeginCaptureToGraph(ptsz(S), G, Deps, EdgeData, N, Mode);
}

// --- graph memory accounting ------------------------------------------------------------

namespace {
enum : int { GraphMemUsedCurrent = 0, GraphMemUsedHigh = 1, GraphMemReservedCurrent = 2, GraphMemReservedHigh = 3 };
CUresult checkDevice(CUdevice D) {
  if (CUresult R = requireInit())
    return R;
  return D == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
} // namespace

/// Bytes of graph allocations in use (allocated by a node that ran and not
/// freed since), reserved (held by live graphs) and the high watermarks.
ZLUDA_API(cuDeviceGetGraphMemAttribute, (CUdevice D, int Attr, void *Value), (D, Attr, Value)) {
  if (CUresult R = checkDevice(D))
    return R;
  if (!Value || Attr < GraphMemUsedCurrent || Attr > GraphMemReservedHigh)
    return CUDA_ERROR_INVALID_VALUE;
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  const uint64_t V[] = {S.GraphUsed, S.GraphUsedHigh, S.GraphReserved, S.GraphReservedHigh};
  std::memcpy(Value, &V[Attr], sizeof(uint64_t));
  return CUDA_SUCCESS;
}

/// Only the high watermarks can be set, and only to 0 (a reset), as NVIDIA's driver allows.
ZLUDA_API(cuDeviceSetGraphMemAttribute, (CUdevice D, int Attr, void *Value), (D, Attr, Value)) {
  if (CUresult R = checkDevice(D))
    return R;
  if (!Value || (Attr != GraphMemUsedHigh && Attr != GraphMemReservedHigh))
    return CUDA_ERROR_INVALID_VALUE;
  uint64_t V;
  std::memcpy(&V, Value, sizeof V);
  if (V != 0)
    return CUDA_ERROR_INVALID_VALUE;
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  // A reset starts the watermark again from what is associated now (the H200
  // reads the current amount back, not 0).
  if (Attr == GraphMemUsedHigh)
    S.GraphUsedHigh = S.GraphUsed;
  else
    S.GraphReservedHigh = S.GraphReserved;
  return CUDA_SUCCESS;
}

/// Graph memory belongs to the graphs that hold its node and goes with the
/// last of them; a trim takes the memory of allocations not in use out of
/// the used count (the graphs keep their addresses for the next launch).
ZLUDA_API(cuDeviceGraphMemTrim, (CUdevice D), (D)) {
  if (CUresult R = checkDevice(D))
    return R;
  if (Context *C = currentContext())
    synchronize(C); // NVIDIA's trims after the device's work
  State &S = state();
  std::lock_guard<std::mutex> G(S.Mu);
  for (auto &[P, A] : S.Allocs)
    if (A.GraphOwned && !A.GraphInUse)
      graphMemRelease(S, A);
  return CUDA_SUCCESS;
}

