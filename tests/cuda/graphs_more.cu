// The rest of the graph API a real program uses: capture across two streams
// (fork and join through events), stream-ordered allocation inside a
// capture, cudaStreamGetCaptureInfo, cloning, child graphs, event record and
// wait nodes, memory allocation nodes, parameter updates of an executable
// graph (per node and cudaGraphExecUpdate), edges and the DOT dump.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include "common.h"
#include <atomic>
#include <cctype>
#include <chrono>
#include <thread>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

static int Bad = 0;
constexpr int N = 4096;

__global__ void iota(int *X, int Scale) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    X[I] = I * Scale;
}
__global__ void twice(const int *X, int *Y) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Y[I] = X[I] * 2;
}
__global__ void plus(const int *Y, int *Z, int K) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Z[I] = Y[I] + K;
}

static std::vector<int> get(const int *D) {
  std::vector<int> H(N);
  CHECK(cudaMemcpy(H.data(), D, N * sizeof(int), cudaMemcpyDeviceToHost));
  return H;
}
static int wrong(const std::vector<int> &H, int Scale, int Mul, int Add) {
  int W = 0;
  for (int I = 0; I < N; ++I)
    W += H[I] != I * Scale * Mul + Add;
  return W;
}

/// Graph memory as a real program uses it: allocated by a node of one graph,
/// freed by a node of another, the same address on every launch, freed
/// outside any graph too; the device's graph-memory counters follow.
static void graphMemoryAcrossGraphs() {
  auto attr = [](cudaGraphMemAttributeType A) {
    size_t V = 0;
    CHECK(cudaDeviceGetGraphMemAttribute(0, A, &V));
    return V;
  };
  size_t Used0 = attr(cudaGraphMemAttrUsedMemCurrent), Reserved0 = attr(cudaGraphMemAttrReservedMemCurrent);
  cudaGraph_t GA, GB;
  CHECK(cudaGraphCreate(&GA, 0));
  CHECK(cudaGraphCreate(&GB, 0));
  cudaMemAllocNodeParams AP = {};
  AP.poolProps.allocType = cudaMemAllocationTypePinned;
  AP.poolProps.location.type = cudaMemLocationTypeDevice;
  AP.poolProps.location.id = 0;
  AP.bytesize = N * sizeof(int);
  cudaGraphNode_t Alloc, Fill, Free;
  CHECK(cudaGraphAddMemAllocNode(&Alloc, GA, nullptr, 0, &AP));
  int *P = static_cast<int *>(AP.dptr);
  void *Args[] = {&P, nullptr};
  int Scale = 3;
  Args[1] = &Scale;
  cudaKernelNodeParams KP = {};
  KP.func = reinterpret_cast<void *>(iota);
  KP.gridDim = dim3(N / 256);
  KP.blockDim = dim3(256);
  KP.kernelParams = Args;
  CHECK(cudaGraphAddKernelNode(&Fill, GA, &Alloc, 1, &KP));
  CHECK(cudaGraphAddMemFreeNode(&Free, GB, nullptr, 0, P));
  cudaGraphExec_t EA, EB;
  CHECK(cudaGraphInstantiate(&EA, GA, 0));
  CHECK(cudaGraphInstantiate(&EB, GB, 0));
  for (int Round = 0; Round < 3; ++Round) {
    CHECK(cudaGraphLaunch(EA, 0));
    CHECK(cudaStreamSynchronize(0));
    // Reserved by the first launch at the latest (an H200 reserves it there, not at instantiation).
    EXPECT(attr(cudaGraphMemAttrReservedMemCurrent) >= Reserved0 + N * sizeof(int));
    EXPECT(attr(cudaGraphMemAttrUsedMemCurrent) >= Used0 + N * sizeof(int)); // NVIDIA's rounds up
    EXPECT(wrong(get(P), 3, 1, 0) == 0); // the same address, every launch
    if (Round < 2)
      CHECK(cudaGraphLaunch(EB, 0)); // freed by the other graph
    else
      CHECK(cudaFreeAsync(P, 0)); // or outside any graph
    CHECK(cudaStreamSynchronize(0));
    // A freed graph allocation stays associated with the graphs (the H200 keeps counting it).
    EXPECT(attr(cudaGraphMemAttrUsedMemCurrent) >= Used0 + N * sizeof(int));
  }
  EXPECT(attr(cudaGraphMemAttrUsedMemHigh) >= Used0 + N * sizeof(int));
  size_t Zero = 0;
  CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &Zero));
  // A reset restarts the watermark from what is associated now (the H200 does not read 0 back).
  EXPECT(attr(cudaGraphMemAttrUsedMemHigh) >= attr(cudaGraphMemAttrUsedMemCurrent));
  size_t One = 1;
  EXPECT(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &One) == cudaErrorInvalidValue);
  EXPECT(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &Zero) == cudaErrorInvalidValue);
  cudaGetLastError();
  CHECK(cudaGraphExecDestroy(EA));
  CHECK(cudaGraphExecDestroy(EB));
  CHECK(cudaGraphDestroy(GA));
  CHECK(cudaGraphDestroy(GB));
  CHECK(cudaDeviceGraphMemTrim(0));
  EXPECT(attr(cudaGraphMemAttrReservedMemCurrent) == Reserved0);
}

int main() {
  graphMemoryAcrossGraphs();
  int *X, *Y, *Z, *Out;
  CHECK(cudaMalloc(&X, N * 4));
  CHECK(cudaMalloc(&Y, N * 4));
  CHECK(cudaMalloc(&Z, N * 4));
  CHECK(cudaMalloc(&Out, N * 4));
  cudaStream_t S1, S2;
  CHECK(cudaStreamCreateWithFlags(&S1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&S2, cudaStreamNonBlocking));
  cudaEvent_t Fork, Join;
  CHECK(cudaEventCreateWithFlags(&Fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&Join, cudaEventDisableTiming));

  // 1. Fork/join capture over two streams, with a temporary from cudaMallocAsync.
  CHECK(cudaStreamBeginCapture(S1, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus St = cudaStreamCaptureStatusNone;
  unsigned long long Id = 0;
  cudaGraph_t Building = nullptr;
  CHECK(cudaStreamGetCaptureInfo(S1, &St, &Id, &Building, nullptr, nullptr, nullptr));
  EXPECT(St == cudaStreamCaptureStatusActive && Building != nullptr);
  iota<<<N / 256, 256, 0, S1>>>(X, 3);
  CHECK(cudaEventRecord(Fork, S1));
  CHECK(cudaStreamWaitEvent(S2, Fork, 0)); // S2 joins the capture
  CHECK(cudaStreamIsCapturing(S2, &St));
  EXPECT(St == cudaStreamCaptureStatusActive);
  int *Tmp = nullptr;
  CHECK(cudaMallocAsync(&Tmp, N * 4, S2));
  twice<<<N / 256, 256, 0, S2>>>(X, Tmp);
  CHECK(cudaMemcpyAsync(Y, Tmp, N * 4, cudaMemcpyDeviceToDevice, S2));
  CHECK(cudaFreeAsync(Tmp, S2));
  CHECK(cudaEventRecord(Join, S2));
  CHECK(cudaStreamWaitEvent(S1, Join, 0));
  plus<<<N / 256, 256, 0, S1>>>(Y, Z, 1);
  cudaGraph_t G;
  CHECK(cudaStreamEndCapture(S1, &G));
  EXPECT(G == Building);
  CHECK(cudaStreamIsCapturing(S2, &St));
  EXPECT(St == cudaStreamCaptureStatusNone); // left the capture with its origin
  size_t Nodes = 0, Edges = 0;
  CHECK(cudaGraphGetNodes(G, nullptr, &Nodes));
  CHECK(cudaGraphGetEdges(G, nullptr, nullptr, nullptr, &Edges));
  EXPECT(Nodes >= 6 && Edges + 1 >= Nodes); // a connected graph
  cudaGraphExec_t E;
  CHECK(cudaGraphInstantiate(&E, G, 0));
  for (int R = 0; R < 3; ++R) {
    CHECK(cudaMemset(Z, 0, N * 4));
    CHECK(cudaGraphLaunch(E, S1));
    CHECK(cudaStreamSynchronize(S1));
    EXPECT(wrong(get(Z), 3, 2, 1) == 0);
  }

  // 2. A graph with memory allocation nodes can be neither cloned nor a child
  //    graph (an H200 answers so); a clone of one without them runs the same
  //    work, and a child graph node runs it inside another graph.
  cudaGraph_t C;
  EXPECT(cudaGraphClone(&C, G) == cudaErrorNotSupported);
  (void)cudaGetLastError();
  cudaGraph_t P;
  CHECK(cudaGraphCreate(&P, 0));
  cudaGraphNode_t Child, Copy;
  cudaError_t ChildErr = cudaGraphAddChildGraphNode(&Child, P, nullptr, 0, G);
  if (ChildErr != cudaErrorNotSupported)
    std::printf("child graph with allocation nodes: %d\n", (int)ChildErr);
  EXPECT(ChildErr == cudaErrorNotSupported);
  (void)cudaGetLastError();
  CHECK(cudaStreamBeginCapture(S1, cudaStreamCaptureModeGlobal));
  iota<<<N / 256, 256, 0, S1>>>(X, 3);
  twice<<<N / 256, 256, 0, S1>>>(X, Y);
  plus<<<N / 256, 256, 0, S1>>>(Y, Z, 1);
  CHECK(cudaStreamEndCapture(S1, &G));
  CHECK(cudaGraphGetNodes(G, nullptr, &Nodes));
  CHECK(cudaGraphClone(&C, G));
  size_t CN = 0;
  CHECK(cudaGraphGetNodes(C, nullptr, &CN));
  EXPECT(CN == Nodes);
  std::vector<cudaGraphNode_t> Orig(Nodes), Cloned(Nodes);
  CHECK(cudaGraphGetNodes(G, Orig.data(), &Nodes));
  CHECK(cudaGraphGetNodes(C, Cloned.data(), &CN));
  cudaGraphNode_t Found = nullptr;
  CHECK(cudaGraphNodeFindInClone(&Found, Orig[2], C));
  EXPECT(Found == Cloned[2]);
  CHECK(cudaGraphAddChildGraphNode(&Child, P, nullptr, 0, C));
  CHECK(cudaGraphAddMemcpyNode1D(&Copy, P, &Child, 1, Out, Z, N * 4, cudaMemcpyDeviceToDevice));
  cudaGraph_t Inner;
  CHECK(cudaGraphChildGraphNodeGetGraph(Child, &Inner));
  size_t IN = 0;
  CHECK(cudaGraphGetNodes(Inner, nullptr, &IN));
  EXPECT(IN == Nodes);
  cudaGraphExec_t PE;
  CHECK(cudaGraphInstantiate(&PE, P, 0));
  CHECK(cudaMemset(Out, 0, N * 4));
  CHECK(cudaGraphLaunch(PE, S1));
  CHECK(cudaStreamSynchronize(S1));
  EXPECT(wrong(get(Out), 3, 2, 1) == 0);
  // The child node's work replaced in the executable graph by a graph of the
  // same topology (XLA does so at each step); one of another topology is refused.
  cudaGraph_t C2, C3;
  CHECK(cudaStreamBeginCapture(S1, cudaStreamCaptureModeGlobal));
  iota<<<N / 256, 256, 0, S1>>>(X, 4);
  twice<<<N / 256, 256, 0, S1>>>(X, Y);
  plus<<<N / 256, 256, 0, S1>>>(Y, Z, 5);
  CHECK(cudaStreamEndCapture(S1, &C2));
  CHECK(cudaGraphExecChildGraphNodeSetParams(PE, Child, C2));
  CHECK(cudaGraphLaunch(PE, S1));
  CHECK(cudaStreamSynchronize(S1));
  EXPECT(wrong(get(Out), 4, 2, 5) == 0);
  CHECK(cudaStreamBeginCapture(S1, cudaStreamCaptureModeGlobal));
  iota<<<N / 256, 256, 0, S1>>>(X, 6);
  CHECK(cudaStreamEndCapture(S1, &C3));
  cudaError_t SetErr = cudaGraphExecChildGraphNodeSetParams(PE, Child, C3);
  EXPECT(SetErr == cudaErrorGraphExecUpdateFailure); // what an H100 answers
  (void)cudaGetLastError();
  CHECK(cudaGraphLaunch(PE, S1)); // still the work of C2
  CHECK(cudaStreamSynchronize(S1));
  EXPECT(wrong(get(Out), 4, 2, 5) == 0);
  CHECK(cudaGraphDestroy(C2));
  CHECK(cudaGraphDestroy(C3));

  // 3. An explicit graph: a memory allocation node, a kernel, an event record node, a free node;
  //    then its kernel's parameters changed in the executable graph.
  cudaGraph_t H;
  CHECK(cudaGraphCreate(&H, 0));
  cudaMemAllocNodeParams Ap = {};
  Ap.poolProps.allocType = cudaMemAllocationTypePinned;
  Ap.poolProps.location.type = cudaMemLocationTypeDevice;
  Ap.poolProps.location.id = 0;
  Ap.bytesize = N * 4;
  cudaGraphNode_t Alloc, K, Cp, Rec, Fr;
  CHECK(cudaGraphAddMemAllocNode(&Alloc, H, nullptr, 0, &Ap));
  EXPECT(Ap.dptr != nullptr);
  int *GraphMem = static_cast<int *>(Ap.dptr);
  int Scale = 5;
  void *Args[] = {&GraphMem, &Scale};
  cudaKernelNodeParams Kp = {};
  Kp.func = reinterpret_cast<void *>(iota);
  Kp.gridDim = dim3(N / 256);
  Kp.blockDim = dim3(256);
  Kp.kernelParams = Args;
  CHECK(cudaGraphAddKernelNode(&K, H, &Alloc, 1, &Kp));
  CHECK(cudaGraphAddMemcpyNode1D(&Cp, H, &K, 1, Out, GraphMem, N * 4, cudaMemcpyDeviceToDevice));
  cudaEvent_t Done;
  CHECK(cudaEventCreate(&Done));
  CHECK(cudaGraphAddEventRecordNode(&Rec, H, &Cp, 1, Done));
  CHECK(cudaGraphAddMemFreeNode(&Fr, H, &Rec, 1, GraphMem));
  cudaGraphNode_t Deps[4];
  size_t ND = 4;
  CHECK(cudaGraphNodeGetDependencies(Cp, Deps, nullptr, &ND));
  EXPECT(ND == 1 && Deps[0] == K);
  cudaGraphExec_t HE;
  CHECK(cudaGraphInstantiate(&HE, H, 0));
  CHECK(cudaGraphLaunch(HE, S1));
  CHECK(cudaEventSynchronize(Done));
  EXPECT(wrong(get(Out), 5, 1, 0) == 0);
  int Scale2 = 7;
  void *Args2[] = {&GraphMem, &Scale2};
  Kp.kernelParams = Args2;
  CHECK(cudaGraphExecKernelNodeSetParams(HE, K, &Kp));
  CHECK(cudaGraphLaunch(HE, S1));
  CHECK(cudaStreamSynchronize(S1));
  EXPECT(wrong(get(Out), 7, 1, 0) == 0);
  // The generic form (CUDA 12.2): cudaGraphExecNodeSetParams with cudaGraphNodeParams.
  int Scale3 = 9;
  void *Args3[] = {&GraphMem, &Scale3};
  cudaGraphNodeParams Np = {};
  Np.type = cudaGraphNodeTypeKernel;
  Np.kernel.func = reinterpret_cast<void *>(iota);
  Np.kernel.gridDim = dim3(N / 256);
  Np.kernel.blockDim = dim3(256);
  Np.kernel.kernelParams = Args3;
  CHECK(cudaGraphExecNodeSetParams(HE, K, &Np));
  CHECK(cudaGraphLaunch(HE, S1));
  CHECK(cudaStreamSynchronize(S1));
  EXPECT(wrong(get(Out), 9, 1, 0) == 0);
  Np.type = cudaGraphNodeTypeMemset; // not the node's type
  EXPECT(cudaGraphExecNodeSetParams(HE, K, &Np) == cudaErrorInvalidValue);
  (void)cudaGetLastError();

  // 3b. A graph's node parameters before instantiation: read back, changed.
  {
    cudaGraph_t Q;
    CHECK(cudaGraphCreate(&Q, 0));
    int QScale = 4;
    void *QArgs[] = {&Out, &QScale};
    cudaKernelNodeParams Qp = {};
    Qp.func = reinterpret_cast<void *>(iota);
    Qp.gridDim = dim3(N / 256);
    Qp.blockDim = dim3(256);
    Qp.kernelParams = QArgs;
    cudaGraphNode_t QK, QM;
    CHECK(cudaGraphAddKernelNode(&QK, Q, nullptr, 0, &Qp));
    cudaMemsetParams Mp = {};
    Mp.dst = Y;
    Mp.value = 0x01010101;
    Mp.elementSize = 4;
    Mp.width = N;
    Mp.height = 1;
    CHECK(cudaGraphAddMemsetNode(&QM, Q, &QK, 1, &Mp));
    cudaKernelNodeParams Got = {};
    CHECK(cudaGraphKernelNodeGetParams(QK, &Got));
    EXPECT(Got.func == reinterpret_cast<void *>(iota) && Got.gridDim.x == N / 256 && Got.blockDim.x == 256 &&
           Got.sharedMemBytes == 0 && Got.kernelParams != nullptr);
    if (Got.kernelParams)
      EXPECT(*static_cast<int **>(Got.kernelParams[0]) == Out && *static_cast<int *>(Got.kernelParams[1]) == 4);
    QScale = 6; // the node keeps its own copy of the arguments
    CHECK(cudaGraphKernelNodeGetParams(QK, &Got));
    EXPECT(*static_cast<int *>(Got.kernelParams[1]) == 4);
    int QScale2 = 11;
    void *QArgs2[] = {&Out, &QScale2};
    Got.kernelParams = QArgs2;
    CHECK(cudaGraphKernelNodeSetParams(QK, &Got));
    cudaMemsetParams MGot = {};
    CHECK(cudaGraphMemsetNodeGetParams(QM, &MGot));
    EXPECT(MGot.dst == Y && MGot.value == 0x01010101u && MGot.elementSize == 4 && MGot.width == N);
    MGot.value = 3;
    CHECK(cudaGraphMemsetNodeSetParams(QM, &MGot));
    size_t QD = 4;
    cudaGraphNode_t QDeps[4];
    CHECK(cudaGraphNodeGetDependencies(QM, QDeps, nullptr, &QD));
    EXPECT(QD == 1 && QDeps[0] == QK); // dependencies stay
    EXPECT(cudaGraphMemsetNodeGetParams(QK, &MGot) == cudaErrorInvalidValue); // not a memset node
    (void)cudaGetLastError();
    cudaGraphExec_t QE;
    CHECK(cudaGraphInstantiate(&QE, Q, 0));
    CHECK(cudaGraphLaunch(QE, S1));
    CHECK(cudaStreamSynchronize(S1));
    EXPECT(wrong(get(Out), 11, 1, 0) == 0);
    std::vector<int> Ys = get(Y);
    int YBad = 0;
    for (int V : Ys)
      YBad += V != 3;
    EXPECT(YBad == 0);
    // A captured kernel node reads back its kernel (as the program's function).
    cudaGraph_t Cap;
    CHECK(cudaStreamBeginCapture(S1, cudaStreamCaptureModeGlobal));
    twice<<<N / 256, 256, 0, S1>>>(X, Y);
    CHECK(cudaStreamEndCapture(S1, &Cap));
    cudaGraphNode_t CapNode;
    size_t One1 = 1;
    CHECK(cudaGraphGetNodes(Cap, &CapNode, &One1));
    CHECK(cudaGraphKernelNodeGetParams(CapNode, &Got));
    EXPECT(Got.func == reinterpret_cast<void *>(twice) && Got.gridDim.x == N / 256);
    CHECK(cudaGraphExecDestroy(QE));
    CHECK(cudaGraphDestroy(Q));
    CHECK(cudaGraphDestroy(Cap));
  }

  // 4. cudaGraphExecUpdate: same shape takes the new work; another shape is refused.
  cudaGraph_t A1, A2, A3;
  CHECK(cudaGraphCreate(&A1, 0));
  CHECK(cudaGraphCreate(&A2, 0));
  CHECK(cudaGraphCreate(&A3, 0));
  int One = 1, Two = 2;
  void *Ar1[] = {&Out, &One}, *Ar2[] = {&Out, &Two};
  cudaGraphNode_t T1, T2, T3, T4;
  Kp.kernelParams = Ar1;
  CHECK(cudaGraphAddKernelNode(&T1, A1, nullptr, 0, &Kp));
  Kp.kernelParams = Ar2;
  CHECK(cudaGraphAddKernelNode(&T2, A2, nullptr, 0, &Kp));
  CHECK(cudaGraphAddKernelNode(&T3, A3, nullptr, 0, &Kp));
  CHECK(cudaGraphAddKernelNode(&T4, A3, &T3, 1, &Kp));
  cudaGraphExec_t AE;
  CHECK(cudaGraphInstantiate(&AE, A1, 0));
  cudaGraphExecUpdateResultInfo Info;
  CHECK(cudaGraphExecUpdate(AE, A2, &Info));
  CHECK(cudaGraphLaunch(AE, S1));
  CHECK(cudaStreamSynchronize(S1));
  EXPECT(wrong(get(Out), 2, 1, 0) == 0);
  EXPECT(cudaGraphExecUpdate(AE, A3, &Info) == cudaErrorGraphExecUpdateFailure);
  (void)cudaGetLastError();

  // 5. The DOT dump names the nodes (by their kernels, as NVIDIA's does) and their edges.
  const char *Dot = "/tmp/zluda_graphs_more.dot";
  CHECK(cudaGraphDebugDotPrint(G, Dot, 0));
  std::ifstream In(Dot);
  std::stringstream Text;
  Text << In.rdbuf();
  std::string Lower = Text.str();
  for (char &Ch : Lower)
    Ch = static_cast<char>(std::tolower(static_cast<unsigned char>(Ch)));
  EXPECT(Lower.find("digraph") != std::string::npos && Lower.find("->") != std::string::npos &&
         Lower.find("twice") != std::string::npos);
  std::remove(Dot);

  // 6. User objects: the graph's reference, then its executable graph's, keep
  //    the object; its destructor runs (asynchronously) after the last release.
  static std::atomic<int> Destroyed{0};
  cudaUserObject_t UO;
  CHECK(cudaUserObjectCreate(
      &UO, &Destroyed, [](void *P) { ++*static_cast<std::atomic<int> *>(P); }, 1, cudaUserObjectNoDestructorSync));
  EXPECT(cudaUserObjectCreate(&UO, &Destroyed, [](void *) {}, 1, 0) == cudaErrorInvalidValue); // the flag is required
  (void)cudaGetLastError();
  cudaGraph_t UG;
  CHECK(cudaGraphCreate(&UG, 0));
  cudaGraphNode_t UN;
  CHECK(cudaGraphAddEmptyNode(&UN, UG, nullptr, 0));
  CHECK(cudaGraphRetainUserObject(UG, UO, 1, cudaGraphUserObjectMove)); // our reference moves to the graph
  CHECK(cudaUserObjectRetain(UO, 1));
  CHECK(cudaGraphRetainUserObject(UG, UO, 1, 0)); // and one more of the graph's own
  CHECK(cudaUserObjectRelease(UO, 1));
  // Releasing more than the graph holds: success and nothing released (an H200 answers so).
  EXPECT(cudaGraphReleaseUserObject(UG, UO, 3) == cudaSuccess);
  CHECK(cudaGraphReleaseUserObject(UG, UO, 1));
  cudaGraphExec_t UE;
  CHECK(cudaGraphInstantiate(&UE, UG, 0));
  CHECK(cudaGraphDestroy(UG));
  CHECK(cudaGraphLaunch(UE, S1));
  CHECK(cudaStreamSynchronize(S1));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT(Destroyed.load() == 0); // the executable graph still holds it
  CHECK(cudaGraphExecDestroy(UE));
  for (int T = 0; T < 200 && Destroyed.load() == 0; ++T)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT(Destroyed.load() == 1);

  for (cudaGraphExec_t X : {E, PE, HE, AE})
    CHECK(cudaGraphExecDestroy(X));
  for (cudaGraph_t X : {G, C, P, H, A1, A2, A3})
    CHECK(cudaGraphDestroy(X));
  std::printf("graphs_more: %s (%d mismatches)\n", Bad ? "FAIL" : "PASS", Bad);
  return Bad ? 1 : 0;
}
