// Asynchronous streams as CUDA defines them:
//  1. a kernel on a non-blocking stream spins on a mapped host flag that the
//     host sets after the launch returned (the stream reports not ready until
//     then);
//  2. two kernels in two streams, each waiting for a flag the other sets;
//  3. host functions run in stream order, and event timings bracket a host
//     function that sleeps;
//  4. an ordering stress test: 8 host threads, each with its own stream,
//     issue random kernels, memsets (some on the legacy default stream),
//     host functions, event records and cross-stream event waits; the final
//     arrays are compared with a sequential model of the same operations;
//  5. stream attributes: a persisting-L2 access policy window (checked,
//     kept, a hint to the device), the persisting L2 limit, launches with a
//     window as a launch attribute.
#include "common.h"
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

__global__ void waitHostFlag(volatile int *Flag, int *Out) {
  while (*Flag == 0) {
  }
  *Out = 42;
}

// Block 0 thread 0 only: sets Mine, waits for Theirs.
__global__ void handshake(volatile int *Mine, volatile int *Theirs, int *Out, int Id) {
  *Mine = 1;
  __threadfence_system();
  while (*Theirs == 0) {
  }
  Out[Id] = Id + 100;
}

__global__ void addScalar(unsigned *A, unsigned V, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N) A[I] += V;
}
__global__ void addArray(unsigned *A, const unsigned *B, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N) A[I] += B[I] * 3u;
}

static void CUDART_CB appendTo(void *P) {
  auto *Log = static_cast<std::pair<std::vector<int> *, int> *>(P);
  Log->first->push_back(Log->second);
  delete Log;
}
static void CUDART_CB sleepMs(void *P) {
  std::this_thread::sleep_for(std::chrono::milliseconds(*static_cast<int *>(P)));
}

static int hostFlag() {
  int Bad = 0;
  volatile int *Flag;
  int *Out;
  CHECK(cudaHostAlloc((void **)&Flag, sizeof(int), cudaHostAllocMapped));
  CHECK(cudaMallocManaged(&Out, sizeof(int)));
  *Flag = 0;
  *Out = 0;
  int *DFlag;
  CHECK(cudaHostGetDevicePointer((void **)&DFlag, (void *)Flag, 0));
  cudaStream_t S;
  CHECK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking));
  waitHostFlag<<<1, 1, 0, S>>>(DFlag, Out);
  CHECK(cudaGetLastError());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (cudaStreamQuery(S) != cudaErrorNotReady) {
    std::printf("FAIL hostFlag: the stream reports done while its kernel waits\n");
    ++Bad;
  }
  *Flag = 1;
  CHECK(cudaStreamSynchronize(S));
  CHECK(cudaStreamQuery(S));
  if (*Out != 42) {
    std::printf("FAIL hostFlag: kernel result %d\n", *Out);
    ++Bad;
  }
  CHECK(cudaStreamDestroy(S));
  CHECK(cudaFreeHost((void *)Flag));
  CHECK(cudaFree(Out));
  return Bad;
}

static int crossStream() {
  int *Flags, *Out;
  CHECK(cudaMalloc(&Flags, 2 * sizeof(int)));
  CHECK(cudaMemset(Flags, 0, 2 * sizeof(int)));
  CHECK(cudaMallocManaged(&Out, 2 * sizeof(int)));
  Out[0] = Out[1] = 0;
  cudaStream_t A, B;
  CHECK(cudaStreamCreateWithFlags(&A, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&B, cudaStreamNonBlocking));
  handshake<<<1, 1, 0, A>>>(Flags, Flags + 1, Out, 0);
  handshake<<<1, 1, 0, B>>>(Flags + 1, Flags, Out, 1);
  CHECK(cudaDeviceSynchronize());
  int Bad = (Out[0] != 100) + (Out[1] != 101);
  if (Bad)
    std::printf("FAIL crossStream: %d %d\n", Out[0], Out[1]);
  CHECK(cudaStreamDestroy(A));
  CHECK(cudaStreamDestroy(B));
  CHECK(cudaFree(Flags));
  CHECK(cudaFree(Out));
  return Bad;
}

static int orderAndTiming() {
  int Bad = 0;
  cudaStream_t S;
  CHECK(cudaStreamCreate(&S));
  std::vector<int> Log;
  unsigned *D;
  CHECK(cudaMalloc(&D, 1024 * sizeof(unsigned)));
  cudaEvent_t E0, E1, E2;
  CHECK(cudaEventCreate(&E0));
  CHECK(cudaEventCreate(&E1));
  CHECK(cudaEventCreate(&E2));
  static int Ms = 30;
  CHECK(cudaEventRecord(E0, S));
  for (int I = 0; I < 50; ++I) {
    addScalar<<<4, 256, 0, S>>>(D, 1, 1024);
    CHECK(cudaLaunchHostFunc(S, appendTo, new std::pair<std::vector<int> *, int>(&Log, I)));
    if (I == 10) {
      CHECK(cudaEventRecord(E1, S));
      CHECK(cudaLaunchHostFunc(S, sleepMs, &Ms));
    }
  }
  CHECK(cudaEventRecord(E2, S));
  // The host function sleeps: the last event cannot be reached yet.
  if (cudaEventQuery(E2) != cudaErrorNotReady) {
    std::printf("FAIL orderAndTiming: event reported done while the stream sleeps\n");
    ++Bad;
  }
  CHECK(cudaEventSynchronize(E2));
  for (int I = 0; I < (int)Log.size(); ++I)
    Bad += Log[I] != I;
  if (Log.size() != 50) {
    std::printf("FAIL orderAndTiming: %zu host functions ran\n", Log.size());
    ++Bad;
  }
  float A = -1, B = -1;
  CHECK(cudaEventElapsedTime(&A, E0, E1));
  CHECK(cudaEventElapsedTime(&B, E1, E2));
  if (!(A >= 0 && A < 5000 && B >= Ms * 0.9f && B < 5000)) {
    std::printf("FAIL orderAndTiming: elapsed %f ms then %f ms (want >= %d)\n", A, B, Ms);
    ++Bad;
  }
  CHECK(cudaEventDestroy(E0));
  CHECK(cudaEventDestroy(E1));
  CHECK(cudaEventDestroy(E2));
  CHECK(cudaFree(D));
  CHECK(cudaStreamDestroy(S));
  return Bad;
}

/// All host threads meet (nvcc's C++17 has no std::barrier).
class Barrier {
public:
  explicit Barrier(int N) : N(N) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> G(Mu);
    int Gen = Generation;
    if (++Count == N) {
      Count = 0;
      ++Generation;
      Cv.notify_all();
    } else {
      Cv.wait(G, [&] { return Gen != Generation; });
    }
  }

private:
  std::mutex Mu;
  std::condition_variable Cv;
  int N, Count = 0, Generation = 0;
};

static int stress() {
  const int T = 8, Phases = 6, N = 4096;
  std::vector<unsigned *> A(T), Snap(T * Phases);
  std::vector<cudaStream_t> St(T);
  std::vector<cudaEvent_t> Ev(T * Phases);
  for (int S = 0; S < T; ++S) {
    CHECK(cudaMalloc(&A[S], N * sizeof(unsigned)));
    CHECK(cudaMemset(A[S], 0, N * sizeof(unsigned)));
    CHECK(cudaStreamCreate(&St[S])); // blocking: the legacy stream orders with it
  }
  for (int I = 0; I < T * Phases; ++I) {
    CHECK(cudaMalloc(&Snap[I], N * sizeof(unsigned)));
    CHECK(cudaEventCreateWithFlags(&Ev[I], cudaEventDisableTiming));
  }
  CHECK(cudaDeviceSynchronize());
  // The model: every array is uniform, so one value per stream.
  std::vector<unsigned> Model(T, 0), ModelSnap(T * Phases, 0);
  {
    std::vector<unsigned> M(T, 0);
    for (int P = 0; P < Phases; ++P) {
      for (int S = 0; S < T; ++S) {
        std::mt19937 R(S * 1000 + P);
        int Ops = 3 + R() % 6;
        for (int K = 0; K < Ops; ++K) {
          unsigned Kind = R() % 4, V = R() % 1000;
          if (Kind == 0 || Kind == 1)
            M[S] += V;
          else if (Kind == 2)
            M[S] = (V & 0xff) * 0x01010101u;
        }
        ModelSnap[P * T + S] = M[S];
      }
      for (int S = 0; S < T; ++S)
        M[S] += ModelSnap[P * T + (S + 1 + P) % T] * 3u;
    }
    Model = M;
  }
  std::vector<std::vector<int>> Logs(T);
  Barrier Sync(T);
  std::atomic<int> Errors{0};
  std::vector<std::thread> Threads;
  for (int S = 0; S < T; ++S)
    Threads.emplace_back([&, S] {
      auto ok = [&](cudaError_t E) {
        if (E != cudaSuccess) {
          std::printf("FAIL stress thread %d: %s\n", S, cudaGetErrorString(E));
          ++Errors;
        }
      };
      int Seq = 0;
      for (int P = 0; P < Phases; ++P) {
        std::mt19937 R(S * 1000 + P);
        int Ops = 3 + R() % 6;
        for (int K = 0; K < Ops; ++K) {
          unsigned Kind = R() % 4, V = R() % 1000;
          if (Kind == 0) {
            addScalar<<<(N + 255) / 256, 256, 0, St[S]>>>(A[S], V, N);
            ok(cudaGetLastError());
          } else if (Kind == 1) {
            // On the legacy default stream: ordered after this thread's
            // stream (and every blocking stream), and before its later work.
            addScalar<<<(N + 127) / 128, 128>>>(A[S], V, N);
            ok(cudaGetLastError());
          } else if (Kind == 2) {
            ok(cudaMemsetAsync(A[S], V & 0xff, N * sizeof(unsigned), (V & 1) ? St[S] : 0));
          } else {
            ok(cudaLaunchHostFunc(St[S], appendTo, new std::pair<std::vector<int> *, int>(&Logs[S], Seq++)));
          }
        }
        ok(cudaMemcpyAsync(Snap[P * T + S], A[S], N * sizeof(unsigned), cudaMemcpyDeviceToDevice, St[S]));
        ok(cudaEventRecord(Ev[P * T + S], St[S]));
        Sync.arrive_and_wait(); // every stream has recorded this phase's event
        int From = (S + 1 + P) % T;
        ok(cudaStreamWaitEvent(St[S], Ev[P * T + From], 0));
        addArray<<<(N + 255) / 256, 256, 0, St[S]>>>(A[S], Snap[P * T + From], N);
        ok(cudaGetLastError());
      }
      ok(cudaStreamSynchronize(St[S]));
    });
  for (auto &Th : Threads)
    Th.join();
  int Bad = Errors.load();
  std::vector<unsigned> H(N);
  for (int S = 0; S < T; ++S) {
    CHECK(cudaMemcpy(H.data(), A[S], N * sizeof(unsigned), cudaMemcpyDeviceToHost));
    int Wrong = 0;
    for (int I = 0; I < N; ++I)
      Wrong += H[I] != Model[S];
    if (Wrong)
      std::printf("FAIL stress stream %d: %d elements differ (got %u, model %u)\n", S, Wrong, H[0], Model[S]);
    Bad += Wrong;
    for (int I = 0; I < (int)Logs[S].size(); ++I)
      Bad += Logs[S][I] != I;
  }
  for (int S = 0; S < T; ++S) {
    CHECK(cudaFree(A[S]));
    CHECK(cudaStreamDestroy(St[S]));
  }
  for (int I = 0; I < T * Phases; ++I) {
    CHECK(cudaFree(Snap[I]));
    CHECK(cudaEventDestroy(Ev[I]));
  }
  return Bad;
}

int accessPolicy() {
  int Bad = 0;
  int MaxWindow = 0, MaxPersist = 0;
  CHECK(cudaDeviceGetAttribute(&MaxWindow, cudaDevAttrMaxAccessPolicyWindowSize, 0));
  CHECK(cudaDeviceGetAttribute(&MaxPersist, cudaDevAttrMaxPersistingL2CacheSize, 0));
  EXPECT(MaxWindow > 0 && MaxPersist > 0); // programs waive themselves when these are 0
  CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, MaxPersist));
  size_t Limit = 0;
  CHECK(cudaDeviceGetLimit(&Limit, cudaLimitPersistingL2CacheSize));
  EXPECT(Limit > 0 && Limit <= size_t(MaxPersist));
  const int N = 1 << 16;
  unsigned *A;
  CHECK(cudaMalloc(&A, N * sizeof(unsigned)));
  CHECK(cudaMemset(A, 0, N * sizeof(unsigned)));
  cudaStream_t S, T;
  CHECK(cudaStreamCreate(&S));
  CHECK(cudaStreamCreate(&T));
  cudaStreamAttrValue V = {};
  V.accessPolicyWindow.base_ptr = A;
  V.accessPolicyWindow.num_bytes = std::min<size_t>(N * sizeof(unsigned), MaxWindow);
  V.accessPolicyWindow.hitRatio = 0.6f;
  V.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  V.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  CHECK(cudaStreamSetAttribute(S, cudaStreamAttributeAccessPolicyWindow, &V));
  cudaStreamAttrValue Got = {};
  CHECK(cudaStreamGetAttribute(S, cudaStreamAttributeAccessPolicyWindow, &Got));
  EXPECT(Got.accessPolicyWindow.base_ptr == A && Got.accessPolicyWindow.num_bytes == V.accessPolicyWindow.num_bytes &&
         Got.accessPolicyWindow.hitRatio == 0.6f && Got.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting &&
         Got.accessPolicyWindow.missProp == cudaAccessPropertyStreaming);
  CHECK(cudaStreamCopyAttributes(T, S));
  Got = {};
  CHECK(cudaStreamGetAttribute(T, cudaStreamAttributeAccessPolicyWindow, &Got));
  EXPECT(Got.accessPolicyWindow.base_ptr == A);
  addScalar<<<N / 256, 256, 0, S>>>(A, 3, N);
  cudaStreamAttrValue BadRatio = V;
  BadRatio.accessPolicyWindow.hitRatio = 1.5f;
  EXPECT(cudaStreamSetAttribute(S, cudaStreamAttributeAccessPolicyWindow, &BadRatio) == cudaErrorInvalidValue);
  cudaGetLastError();
  // The window as a launch attribute.
  cudaLaunchAttribute LA[1];
  LA[0].id = cudaLaunchAttributeAccessPolicyWindow;
  LA[0].val.accessPolicyWindow = V.accessPolicyWindow;
  cudaLaunchConfig_t Cfg = {};
  Cfg.gridDim = dim3(N / 256);
  Cfg.blockDim = dim3(256);
  Cfg.stream = S;
  Cfg.attrs = LA;
  Cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&Cfg, addScalar, A, 4u, N));
  CHECK(cudaStreamSynchronize(S));
  // The window goes: hitRatio 0 / num_bytes 0 resets it, and the persisting lines.
  V.accessPolicyWindow.num_bytes = 0;
  CHECK(cudaStreamSetAttribute(S, cudaStreamAttributeAccessPolicyWindow, &V));
  CHECK(cudaCtxResetPersistingL2Cache());
  std::vector<unsigned> H(N);
  CHECK(cudaMemcpy(H.data(), A, N * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I)
    Bad += H[I] != 7;
  CHECK(cudaStreamDestroy(S));
  CHECK(cudaStreamDestroy(T));
  CHECK(cudaFree(A));
  return Bad;
}

int main() {
  int Bad = 0;
  Bad += accessPolicy();
  Bad += hostFlag();
  Bad += crossStream();
  Bad += orderAndTiming();
  for (int Round = 0; Round < 3; ++Round)
    Bad += stress();
  return verdict("streams_async", Bad);
}
