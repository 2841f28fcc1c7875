// Conditional graph nodes: while, if/else and switch bodies chosen by a value
// kernels set with cudaGraphSetConditional; handles with and without
// cudaGraphCondAssignDefault; bodies filled by node calls and by capture into
// the body graph (cudaStreamBeginCaptureToGraph); a conditional node added
// to a graph while it is being captured; nested conditionals; instantiated
// graphs keeping the bodies they were made from; cudaGraphAddNode for other
// node types. Expectations checked on an H200 (same program, NVIDIA's runtime).
#include <cstdio>
#include <cuda_runtime.h>
#include "common.h"
#include <vector>

static int Bad = 0;

// One loop step: Acc += Count, Count -= 1, continue while Count > 0.
__global__ void loopStep(cudaGraphConditionalHandle H, int *Count, long long *Acc) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    *Acc += *Count;
    *Count -= 1;
    cudaGraphSetConditional(H, *Count > 0 ? 1 : 0);
  }
}
__global__ void setFrom(cudaGraphConditionalHandle H, const int *X) {
  if (threadIdx.x == 0)
    cudaGraphSetConditional(H, static_cast<unsigned>(*X));
}
__global__ void store(int *P, int V) {
  if (threadIdx.x == 0)
    *P = V;
}
__global__ void addTo(int *P, int V) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < 256)
    P[I] += V;
}

template <typename T> static T get(const T *D) {
  T H;
  CHECK(cudaMemcpy(&H, D, sizeof(T), cudaMemcpyDeviceToHost));
  return H;
}
template <typename T> static void put(T *D, T V) { CHECK(cudaMemcpy(D, &V, sizeof(T), cudaMemcpyHostToDevice)); }

static cudaGraphNode_t conditional(cudaGraph_t G, cudaGraphConditionalHandle H, cudaGraphConditionalNodeType Type,
                                   unsigned Size, cudaGraph_t *Bodies, const cudaGraphNode_t *Deps = nullptr,
                                   size_t NumDeps = 0) {
  cudaGraphNodeParams P = {};
  P.type = cudaGraphNodeTypeConditional;
  P.conditional.handle = H;
  P.conditional.type = Type;
  P.conditional.size = Size;
  cudaGraphNode_t Node;
  CHECK(cudaGraphAddNode(&Node, G, Deps, nullptr, NumDeps, &P));
  for (unsigned I = 0; I < Size; ++I)
    Bodies[I] = P.conditional.phGraph_out[I];
  return Node;
}

static cudaGraphNode_t kernel(cudaGraph_t G, void *Fn, void **Args, const cudaGraphNode_t *Deps = nullptr,
                              size_t NumDeps = 0) {
  cudaKernelNodeParams K = {};
  K.func = Fn;
  K.gridDim = dim3(1);
  K.blockDim = dim3(32);
  K.kernelParams = Args;
  cudaGraphNode_t Node;
  CHECK(cudaGraphAddKernelNode(&Node, G, Deps, NumDeps, &K));
  return Node;
}

// while (Count > 0) { Acc += Count; --Count; } with the handle reset to 1 at each launch.
static void whileLoop(int *Count, long long *Acc) {
  cudaGraph_t G;
  CHECK(cudaGraphCreate(&G, 0));
  cudaGraphConditionalHandle H;
  CHECK(cudaGraphConditionalHandleCreate(&H, G, 1, cudaGraphCondAssignDefault));
  cudaGraph_t Body;
  conditional(G, H, cudaGraphCondTypeWhile, 1, &Body);
  void *Args[] = {&H, &Count, &Acc};
  kernel(Body, reinterpret_cast<void *>(loopStep), Args);
  cudaGraphExec_t E;
  CHECK(cudaGraphInstantiate(&E, G, 0));
  for (int N : {10, 1, 37}) {
    put(Count, N);
    put(Acc, 0LL);
    CHECK(cudaGraphLaunch(E, 0));
    CHECK(cudaStreamSynchronize(0));
    EXPECT(get(Acc) == static_cast<long long>(N) * (N + 1) / 2);
    EXPECT(get(Count) == 0);
  }
  CHECK(cudaGraphExecDestroy(E));
  CHECK(cudaGraphDestroy(G));
}

// if/else on a value a kernel reads from memory, and a handle without
// cudaGraphCondAssignDefault (its value stays from one launch to the next).
static void ifElse(int *X, int *Out) {
  cudaGraph_t G;
  CHECK(cudaGraphCreate(&G, 0));
  cudaGraphConditionalHandle H;
  CHECK(cudaGraphConditionalHandleCreate(&H, G, 0, cudaGraphCondAssignDefault));
  void *SetArgs[] = {&H, &X};
  cudaGraphNode_t Set = kernel(G, reinterpret_cast<void *>(setFrom), SetArgs);
  cudaGraph_t Bodies[2];
  conditional(G, H, cudaGraphCondTypeIf, 2, Bodies, &Set, 1);
  int One = 1, Two = 2;
  void *A1[] = {&Out, &One}, *A2[] = {&Out, &Two};
  kernel(Bodies[0], reinterpret_cast<void *>(store), A1);
  kernel(Bodies[1], reinterpret_cast<void *>(store), A2);
  cudaGraphExec_t E;
  CHECK(cudaGraphInstantiate(&E, G, 0));
  for (int V : {5, 0, 1, 0}) {
    put(X, V);
    put(Out, -1);
    CHECK(cudaGraphLaunch(E, 0));
    CHECK(cudaStreamSynchronize(0));
    EXPECT(get(Out) == (V ? 1 : 2));
  }
  CHECK(cudaGraphExecDestroy(E));
  CHECK(cudaGraphDestroy(G));

  // if without else, on a handle without cudaGraphCondAssignDefault: the
  // default is not applied, the value starts at 0 (as on an H200) and stays
  // what a kernel of the graph sets.
  CHECK(cudaGraphCreate(&G, 0));
  CHECK(cudaGraphConditionalHandleCreate(&H, G, 1, 0));
  cudaGraph_t Then;
  conditional(G, H, cudaGraphCondTypeIf, 1, &Then);
  void *A3[] = {&Out, &Two};
  kernel(Then, reinterpret_cast<void *>(store), A3);
  CHECK(cudaGraphInstantiate(&E, G, 0));
  for (int I = 0; I < 2; ++I) {
    put(Out, -1);
    CHECK(cudaGraphLaunch(E, 0));
    CHECK(cudaStreamSynchronize(0));
    EXPECT(get(Out) == -1);
  }
  CHECK(cudaGraphExecDestroy(E));
  CHECK(cudaGraphDestroy(G));
}

// switch: body N runs for value N, none for values past the last body.
static void switchNode(int *X, int *Out) {
  cudaGraph_t G;
  CHECK(cudaGraphCreate(&G, 0));
  cudaGraphConditionalHandle H;
  CHECK(cudaGraphConditionalHandleCreate(&H, G, 0, cudaGraphCondAssignDefault));
  void *SetArgs[] = {&H, &X};
  cudaGraphNode_t Set = kernel(G, reinterpret_cast<void *>(setFrom), SetArgs);
  cudaGraph_t Bodies[3];
  conditional(G, H, cudaGraphCondTypeSwitch, 3, Bodies, &Set, 1);
  int Vals[3] = {100, 200, 300};
  std::vector<void *> Args[3];
  for (int I = 0; I < 3; ++I) {
    Args[I] = {&Out, &Vals[I]};
    kernel(Bodies[I], reinterpret_cast<void *>(store), Args[I].data());
  }
  cudaGraphExec_t E;
  CHECK(cudaGraphInstantiate(&E, G, 0));
  for (int V : {2, 0, 1, 3, 7}) {
    put(X, V);
    put(Out, -1);
    CHECK(cudaGraphLaunch(E, 0));
    CHECK(cudaStreamSynchronize(0));
    EXPECT(get(Out) == (V < 3 ? Vals[V] : -1));
  }
  CHECK(cudaGraphExecDestroy(E));
  CHECK(cudaGraphDestroy(G));
}

// CUDA's capture pattern: a conditional node added to the graph a stream is
// capturing, its body filled by capturing another stream into it.
static void captured(int *Count, long long *Acc, int *Data) {
  cudaStream_t S, BodyS;
  CHECK(cudaStreamCreate(&S));
  CHECK(cudaStreamCreate(&BodyS));
  int Five = 5;
  CHECK(cudaStreamBeginCapture(S, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemcpyAsync(Count, &Five, sizeof(int), cudaMemcpyHostToDevice, S));
  cudaStreamCaptureStatus Status;
  cudaGraph_t G;
  const cudaGraphNode_t *Deps;
  size_t NumDeps;
  CHECK(cudaStreamGetCaptureInfo(S, &Status, nullptr, &G, &Deps, nullptr, &NumDeps));
  EXPECT(Status == cudaStreamCaptureStatusActive);
  cudaGraphConditionalHandle H;
  CHECK(cudaGraphConditionalHandleCreate(&H, G, 1, cudaGraphCondAssignDefault));
  cudaGraph_t Body;
  cudaGraphNode_t Cond = conditional(G, H, cudaGraphCondTypeWhile, 1, &Body, Deps, NumDeps);
  CHECK(cudaStreamUpdateCaptureDependencies(S, &Cond, nullptr, 1, cudaStreamSetCaptureDependencies));
  addTo<<<1, 256, 0, S>>>(Data, 1000); // after the loop
  CHECK(cudaStreamBeginCaptureToGraph(BodyS, Body, nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
  loopStep<<<1, 32, 0, BodyS>>>(H, Count, Acc);
  addTo<<<1, 256, 0, BodyS>>>(Data, 1);
  cudaGraph_t BodyOut;
  CHECK(cudaStreamEndCapture(BodyS, &BodyOut));
  EXPECT(BodyOut == Body);
  cudaGraph_t Captured;
  CHECK(cudaStreamEndCapture(S, &Captured));
  EXPECT(Captured == G);
  cudaGraphExec_t E;
  CHECK(cudaGraphInstantiate(&E, G, 0));
  CHECK(cudaMemset(Data, 0, 256 * sizeof(int)));
  put(Acc, 0LL);
  CHECK(cudaGraphLaunch(E, S));
  CHECK(cudaGraphLaunch(E, S));
  CHECK(cudaStreamSynchronize(S));
  EXPECT(get(Acc) == 2 * 15);
  std::vector<int> H2(256);
  CHECK(cudaMemcpy(H2.data(), Data, 256 * sizeof(int), cudaMemcpyDeviceToHost));
  int Wrong = 0;
  for (int V : H2)
    Wrong += V != 2 * (5 + 1000);
  EXPECT(Wrong == 0);
  CHECK(cudaGraphExecDestroy(E));
  CHECK(cudaGraphDestroy(G));
  CHECK(cudaStreamDestroy(S));
  CHECK(cudaStreamDestroy(BodyS));
}

// A while loop whose body holds an if; an instantiated graph keeps the
// bodies it was made from; graphs with conditional nodes cannot be cloned
// and have one executable graph at a time (cudaErrorNotSupported on an H200).
static void nestedAndCopies(int *Count, long long *Acc, int *Data) {
  cudaGraph_t G;
  CHECK(cudaGraphCreate(&G, 0));
  cudaGraphConditionalHandle Loop, Odd;
  CHECK(cudaGraphConditionalHandleCreate(&Loop, G, 1, cudaGraphCondAssignDefault));
  CHECK(cudaGraphConditionalHandleCreate(&Odd, G, 0, 0));
  cudaGraph_t Body;
  conditional(G, Loop, cudaGraphCondTypeWhile, 1, &Body);
  // Body: Odd = *Count & 1 (read before the step), then the step, then if (Odd) Data += 100.
  int *Parity = Data + 255;
  void *SetArgs[] = {&Odd, &Parity};
  void *StepArgs[] = {&Loop, &Count, &Acc};
  int Hundred = 100;
  void *AddArgs[] = {&Data, &Hundred};
  cudaGraphNode_t A = kernel(Body, reinterpret_cast<void *>(setFrom), SetArgs);
  cudaGraphNode_t B = kernel(Body, reinterpret_cast<void *>(loopStep), StepArgs, &A, 1);
  cudaGraph_t Then;
  conditional(Body, Odd, cudaGraphCondTypeIf, 1, &Then, &B, 1);
  kernel(Then, reinterpret_cast<void *>(addTo), AddArgs);
  cudaGraph_t Clone;
  EXPECT(cudaGraphClone(&Clone, G) == cudaErrorNotSupported);
  cudaGraphExec_t E, E2;
  CHECK(cudaGraphInstantiate(&E, G, 0));
  EXPECT(cudaGraphInstantiate(&E2, G, 0) == cudaErrorNotSupported); // one executable graph at a time
  auto run = [&](cudaGraphExec_t X, int Expect) {
    // The parity is the slot Data[255]: odd (nonzero) in every iteration here.
    CHECK(cudaMemset(Data, 0, 256 * sizeof(int)));
    put(Parity, 1);
    put(Count, 4);
    put(Acc, 0LL);
    CHECK(cudaGraphLaunch(X, 0));
    CHECK(cudaStreamSynchronize(0));
    EXPECT(get(Acc) == 10);
    EXPECT(get(Data) == Expect);
  };
  // A node added to a body after instantiation: in graphs instantiated later only.
  int Million = 1000000;
  void *Late[] = {&Data, &Million};
  kernel(Then, reinterpret_cast<void *>(addTo), Late);
  run(E, 400);
  CHECK(cudaGraphExecDestroy(E));
  CHECK(cudaGraphInstantiate(&E2, G, 0));
  run(E2, 4000400);
  CHECK(cudaGraphExecDestroy(E2));
  CHECK(cudaGraphDestroy(G));
}

// cudaGraphAddNode with other node types, and bad conditional parameters.
static void addNodeAndErrors(int *Data) {
  cudaGraph_t G;
  CHECK(cudaGraphCreate(&G, 0));
  cudaGraphNodeParams P = {};
  P.type = cudaGraphNodeTypeMemset;
  P.memset.dst = Data;
  P.memset.value = 7;
  P.memset.elementSize = 4;
  P.memset.width = 256;
  P.memset.height = 1;
  cudaGraphNode_t M;
  CHECK(cudaGraphAddNode(&M, G, nullptr, nullptr, 0, &P));
  cudaGraphNodeParams K = {};
  K.type = cudaGraphNodeTypeKernel;
  int Three = 3;
  void *Args[] = {&Data, &Three};
  K.kernel.func = reinterpret_cast<void *>(addTo);
  K.kernel.gridDim = dim3(2);
  K.kernel.blockDim = dim3(128);
  K.kernel.kernelParams = Args;
  cudaGraphNode_t KN;
  CHECK(cudaGraphAddNode(&KN, G, &M, nullptr, 1, &K));
  cudaGraphNodeParams Em = {};
  Em.type = cudaGraphNodeTypeEmpty;
  cudaGraphNode_t EN;
  CHECK(cudaGraphAddNode(&EN, G, &KN, nullptr, 1, &Em));
  cudaGraphNodeType T;
  CHECK(cudaGraphNodeGetType(EN, &T));
  EXPECT(T == cudaGraphNodeTypeEmpty);

  cudaGraphConditionalHandle H;
  CHECK(cudaGraphConditionalHandleCreate(&H, G, 0, 0));
  EXPECT(cudaGraphConditionalHandleCreate(&H, G, 0, 2) == cudaErrorInvalidValue);
  cudaGraphNodeParams C = {};
  C.type = cudaGraphNodeTypeConditional;
  C.conditional.handle = H;
  C.conditional.type = cudaGraphCondTypeIf;
  C.conditional.size = 3; // if takes one or two bodies
  cudaGraphNode_t CN;
  EXPECT(cudaGraphAddNode(&CN, G, nullptr, nullptr, 0, &C) == cudaErrorInvalidValue);
  C.conditional.type = cudaGraphCondTypeWhile;
  C.conditional.size = 2;
  EXPECT(cudaGraphAddNode(&CN, G, nullptr, nullptr, 0, &C) == cudaErrorInvalidValue);
  C.conditional.size = 1;
  C.conditional.handle = 12345; // not a handle
  EXPECT(cudaGraphAddNode(&CN, G, nullptr, nullptr, 0, &C) == cudaErrorInvalidValue);
  C.conditional.handle = H;
  CHECK(cudaGraphAddNode(&CN, G, &EN, nullptr, 1, &C));
  CHECK(cudaGraphNodeGetType(CN, &T));
  EXPECT(T == cudaGraphNodeTypeConditional);
  EXPECT(cudaGraphDestroy(C.conditional.phGraph_out[0]) == cudaErrorInvalidValue); // the node's own
  cudaGraphExec_t E;
  CHECK(cudaGraphInstantiate(&E, G, 0));
  CHECK(cudaGraphLaunch(E, 0));
  CHECK(cudaStreamSynchronize(0));
  std::vector<int> H2(256);
  CHECK(cudaMemcpy(H2.data(), Data, 256 * sizeof(int), cudaMemcpyDeviceToHost));
  int Wrong = 0;
  for (int V : H2)
    Wrong += V != 10;
  EXPECT(Wrong == 0);
  CHECK(cudaGraphExecDestroy(E));
  CHECK(cudaGraphDestroy(G));
}

int main() {
  int *Count, *X, *Out, *Data;
  long long *Acc;
  CHECK(cudaMalloc(&Count, sizeof(int)));
  CHECK(cudaMalloc(&X, sizeof(int)));
  CHECK(cudaMalloc(&Out, sizeof(int)));
  CHECK(cudaMalloc(&Acc, sizeof(long long)));
  CHECK(cudaMalloc(&Data, 256 * sizeof(int)));
  whileLoop(Count, Acc);
  ifElse(X, Out);
  switchNode(X, Out);
  captured(Count, Acc, Data);
  nestedAndCopies(Count, Acc, Data);
  addNodeAndErrors(Data);
  return verdict("graph_conditional", Bad);
}
