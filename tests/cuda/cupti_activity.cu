// CUPTI's activity API as a profiler (torch.profiler's Kineto) uses it, built
// against NVIDIA's CUPTI headers and run on our libcupti.so.13: kernel, copy,
// memset, runtime-API and external-correlation records, checked against what
// the program did (names, sizes, directions, values, grid shapes, stream
// order of the device times, the pushed correlation ids), also through a
// graph and with the client's own clock; kinds and calls we do not support
// are refused with CUPTI's codes. Written to pass on NVIDIA's CUPTI too
// (extra records, such as other runtime calls, are ignored).
#include "common.h"

#include <cupti.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <string>
#include <unistd.h>

namespace {

std::mutex Mu;
std::vector<std::vector<uint8_t>> Completed; // the valid bytes of each completed buffer
int Requests = 0;

void CUPTIAPI request(uint8_t **Buf, size_t *Size, size_t *Max) {
  std::lock_guard<std::mutex> G(Mu);
  ++Requests;
  *Size = 4096; // small: a run fills several buffers
  *Buf = static_cast<uint8_t *>(std::aligned_alloc(8, *Size));
  *Max = 0;
}

void CUPTIAPI complete(CUcontext, uint32_t, uint8_t *Buf, size_t, size_t Valid) {
  std::lock_guard<std::mutex> G(Mu);
  Completed.emplace_back(Buf, Buf + Valid);
  std::free(Buf);
}

struct Records {
  std::vector<CUpti_ActivityKernel10> Kernels;
  std::vector<CUpti_ActivityMemcpy6> Copies;
  std::vector<CUpti_ActivityMemset4> Sets;
  std::vector<CUpti_ActivityAPI> Runtime;
  std::map<uint32_t, uint64_t> External; // correlation id -> CUSTOM0 id
  std::vector<std::string> Names;        // kernel names (the pointers are CUPTI's)
};

/// Flushes and reads every record completed so far (and forgets them).
Records drain(int &Bad) {
  if (cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != CUPTI_SUCCESS)
    ++Bad, std::printf("FAIL flush\n");
  std::vector<std::vector<uint8_t>> Bufs;
  {
    std::lock_guard<std::mutex> G(Mu);
    Bufs.swap(Completed);
  }
  Records R;
  for (auto &B : Bufs) {
    CUpti_Activity *Rec = nullptr;
    CUptiResult S;
    while ((S = cuptiActivityGetNextRecord(B.data(), B.size(), &Rec)) == CUPTI_SUCCESS) {
      switch (Rec->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        auto *K = reinterpret_cast<CUpti_ActivityKernel10 *>(Rec);
        R.Kernels.push_back(*K);
        R.Names.emplace_back(K->name ? K->name : "");
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY:
        R.Copies.push_back(*reinterpret_cast<CUpti_ActivityMemcpy6 *>(Rec));
        break;
      case CUPTI_ACTIVITY_KIND_MEMSET:
        R.Sets.push_back(*reinterpret_cast<CUpti_ActivityMemset4 *>(Rec));
        break;
      case CUPTI_ACTIVITY_KIND_RUNTIME:
        R.Runtime.push_back(*reinterpret_cast<CUpti_ActivityAPI *>(Rec));
        break;
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        auto *E = reinterpret_cast<CUpti_ActivityExternalCorrelation *>(Rec);
        if (E->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
          R.External[E->correlationId] = E->externalId;
        break;
      }
      default:
        break;
      }
    }
    if (S != CUPTI_ERROR_MAX_LIMIT_REACHED)
      ++Bad, std::printf("FAIL GetNextRecord ended with %d\n", S);
  }
  return R;
}

uint64_t realtimeNs() {
  timespec T;
  clock_gettime(CLOCK_REALTIME, &T);
  return uint64_t(T.tv_sec) * 1000000000u + uint64_t(T.tv_nsec);
}

uint64_t CUPTIAPI shiftedClock() {
  timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return uint64_t(T.tv_sec) * 1000000000u + uint64_t(T.tv_nsec) + 7000000000000000000ull;
}

__global__ void busyKernel(float *X, int N, int Rounds) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  float V = X[I];
  for (int R = 0; R < Rounds; ++R)
    V = V * 0.999f + 1.0f;
  X[I] = V;
}

__global__ void addOne(int *X) { X[threadIdx.x] += 1; }

const CUpti_ActivityAPI *runtimeFor(const Records &R, uint32_t Correlation) {
  for (const auto &A : R.Runtime)
    if (A.correlationId == Correlation)
      return &A;
  return nullptr;
}

} // namespace

int main() {
  int Bad = 0;
  uint32_t Version = 0;
  EXPECT(cuptiGetVersion(&Version) == CUPTI_SUCCESS && Version >= 130000);
  EXPECT(cuptiActivityRegisterCallbacks(request, complete) == CUPTI_SUCCESS);
  for (CUpti_ActivityKind K : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                               CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME,
                               CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION})
    EXPECT(cuptiActivityEnable(K) == CUPTI_SUCCESS);

  // --- one of each, in the default stream's order ---------------------------------------
  const int N = 1 << 18; // 1 MiB of floats
  std::vector<float> H(N, 1.0f);
  float *D;
  CHECK(cudaMalloc(&D, N * sizeof(float)));
  CHECK(cudaDeviceSynchronize());
  uint64_t T0 = 0;
  EXPECT(cuptiGetTimestamp(&T0) == CUPTI_SUCCESS);
  uint64_t Wall = realtimeNs();
  EXPECT(T0 + 1000000000ull > Wall && T0 < Wall + 1000000000ull); // CLOCK_REALTIME nanoseconds
  EXPECT(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 42) == CUPTI_SUCCESS);
  CHECK(cudaMemcpy(D, H.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemsetAsync(D, 0, 4096));
  busyKernel<<<N / 256, 256>>>(D, N, 64);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(H.data(), D, N * sizeof(float), cudaMemcpyDeviceToHost));
  uint64_t Last = 0;
  EXPECT(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &Last) == CUPTI_SUCCESS);
  EXPECT(Last == 42);
  CHECK(cudaDeviceSynchronize());
  uint64_t T1 = 0;
  cuptiGetTimestamp(&T1);
  Records R = drain(Bad);
  EXPECT(Requests >= 1);

  const CUpti_ActivityKernel10 *K = nullptr;
  for (size_t I = 0; I < R.Kernels.size(); ++I)
    if (R.Names[I].find("busyKernel") != std::string::npos)
      K = &R.Kernels[I];
  EXPECT(R.Kernels.size() == 1 && K);
  const CUpti_ActivityMemcpy6 *Up = nullptr, *Down = nullptr;
  for (const auto &C : R.Copies) {
    if (C.copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD)
      Up = &C;
    if (C.copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH)
      Down = &C;
  }
  EXPECT(R.Copies.size() == 2 && Up && Down);
  EXPECT(R.Sets.size() == 1);
  if (K && Up && Down && R.Sets.size() == 1) {
    const CUpti_ActivityMemset4 &S = R.Sets[0];
    EXPECT(K->gridX == N / 256 && K->gridY == 1 && K->gridZ == 1);
    EXPECT(K->blockX == 256 && K->blockY == 1 && K->blockZ == 1);
    EXPECT(K->dynamicSharedMemory == 0);
    EXPECT(Up->bytes == N * sizeof(float) && Down->bytes == N * sizeof(float));
    EXPECT(Up->srcKind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE && Up->dstKind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
    EXPECT(Down->srcKind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE && Down->dstKind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);
    EXPECT(!(Up->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC));
    EXPECT(S.bytes == 4096 && S.value == 0 && (S.flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC));
    EXPECT(S.memoryKind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
    // One stream: each starts after the one before it ends, all within the run.
    EXPECT(T0 <= Up->start && Up->start <= Up->end);
    EXPECT(Up->end <= S.start && S.start <= S.end);
    EXPECT(S.end <= K->start && K->start < K->end);
    EXPECT(K->end <= Down->start && Down->start <= Down->end && Down->end <= T1);
    EXPECT(K->streamId == Up->streamId && K->streamId == S.streamId && K->contextId == Up->contextId);
    // Four operations, four correlation ids, each with its runtime call and the pushed id.
    std::vector<uint32_t> Ids = {Up->correlationId, S.correlationId, K->correlationId, Down->correlationId};
    std::vector<uint32_t> Sorted = Ids;
    std::sort(Sorted.begin(), Sorted.end());
    EXPECT(std::unique(Sorted.begin(), Sorted.end()) == Sorted.end() && Sorted[0] != 0);
    const uint32_t Cbids[4] = {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
                               CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                               CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020};
    for (int I = 0; I < 4; ++I) {
      const CUpti_ActivityAPI *A = runtimeFor(R, Ids[I]);
      EXPECT(A && A->cbid == Cbids[I] && A->start <= A->end && A->start >= T0);
      EXPECT(A && A->processId == static_cast<uint32_t>(getpid()) && A->returnValue == 0);
      EXPECT(R.External.count(Ids[I]) && R.External[Ids[I]] == 42);
    }
    // The launch returned before the kernel ended (an asynchronous launch), not before it was issued.
    const CUpti_ActivityAPI *L = runtimeFor(R, K->correlationId);
    EXPECT(L && L->start <= K->end);
    uint32_t Stream = 0;
    EXPECT(cuptiGetStreamId(nullptr, nullptr, &Stream) == CUPTI_SUCCESS && Stream == K->streamId);
    uint32_t Ctx = 0;
    EXPECT(cuptiGetContextId(nullptr, &Ctx) == CUPTI_SUCCESS && Ctx == K->contextId);
    uint32_t Dev = 99;
    EXPECT(cuptiGetDeviceId(nullptr, &Dev) == CUPTI_SUCCESS && Dev == K->deviceId && Dev == 0);
  }
  // Nothing was pushed for what follows.
  EXPECT(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, nullptr) ==
         CUPTI_ERROR_QUEUE_EMPTY);

  // --- a stream of its own and a graph: each launch of the graph is a kernel record ------
  cudaStream_t S;
  CHECK(cudaStreamCreate(&S));
  int *Counter;
  CHECK(cudaMalloc(&Counter, 32 * sizeof(int)));
  CHECK(cudaMemsetAsync(Counter, 0, 32 * sizeof(int), S));
  cudaGraph_t G;
  cudaGraphExec_t GE;
  CHECK(cudaStreamBeginCapture(S, cudaStreamCaptureModeGlobal));
  addOne<<<1, 32, 0, S>>>(Counter);
  CHECK(cudaStreamEndCapture(S, &G));
  CHECK(cudaGraphInstantiate(&GE, G, 0));
  for (int I = 0; I < 3; ++I)
    CHECK(cudaGraphLaunch(GE, S));
  CHECK(cudaStreamSynchronize(S));
  std::vector<int> Count = host(Counter, 32);
  EXPECT(Count[0] == 3 && Count[31] == 3);
  R = drain(Bad);
  int AddOnes = 0;
  uint32_t OwnStream = 0;
  EXPECT(cuptiGetStreamId(nullptr, S, &OwnStream) == CUPTI_SUCCESS);
  for (size_t I = 0; I < R.Kernels.size(); ++I)
    if (R.Names[I].find("addOne") != std::string::npos) {
      ++AddOnes;
      EXPECT(R.Kernels[I].streamId == OwnStream && R.Kernels[I].blockX == 32);
    }
  EXPECT(AddOnes == 3);
  EXPECT(OwnStream != 0 && R.Sets.size() == 1 && R.Sets[0].streamId == OwnStream);

  // --- the client's clock: every timestamp in it ----------------------------------------
  EXPECT(cuptiActivityRegisterTimestampCallback(shiftedClock) == CUPTI_SUCCESS);
  uint64_t C0 = shiftedClock();
  addOne<<<1, 32>>>(Counter);
  CHECK(cudaDeviceSynchronize());
  uint64_t C1 = shiftedClock();
  R = drain(Bad);
  EXPECT(R.Kernels.size() == 1);
  if (R.Kernels.size() == 1)
    EXPECT(C0 <= R.Kernels[0].start && R.Kernels[0].start <= R.Kernels[0].end && R.Kernels[0].end <= C1);
  for (const auto &A : R.Runtime)
    if (A.cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
      EXPECT(C0 <= A.start && A.end <= C1);

  // --- 2-D copies, pitched and into a CUDA array: one record each, the rows' bytes -----------
  {
    std::vector<unsigned char> Rows(128 * 7, 3);
    void *Pitched;
    size_t Pitch = 0;
    CHECK(cudaMallocPitch(&Pitched, &Pitch, 100, 7));
    CHECK(cudaMemcpy2D(Pitched, Pitch, Rows.data(), 128, 100, 7, cudaMemcpyHostToDevice));
    cudaChannelFormatDesc Ch = cudaCreateChannelDesc<unsigned char>();
    cudaArray_t Arr;
    CHECK(cudaMallocArray(&Arr, &Ch, 100, 7));
    CHECK(cudaMemcpy2DToArray(Arr, 0, 0, Rows.data(), 128, 100, 7, cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSynchronize());
    R = drain(Bad);
    EXPECT(R.Copies.size() == 2);
    if (R.Copies.size() == 2) {
      EXPECT(R.Copies[0].copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD && R.Copies[0].bytes == 700);
      EXPECT(R.Copies[0].dstKind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
      EXPECT(R.Copies[1].copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOA && R.Copies[1].bytes == 700);
      EXPECT(R.Copies[1].srcKind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE &&
             R.Copies[1].dstKind == CUPTI_ACTIVITY_MEMORY_KIND_ARRAY);
      EXPECT(R.Copies[0].end <= R.Copies[1].start);
    }
    CHECK(cudaFreeArray(Arr));
    CHECK(cudaFree(Pitched));
  }

  // --- disabled: nothing more --------------------------------------------------------------
  for (CUpti_ActivityKind Kd : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME,
                                CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION})
    EXPECT(cuptiActivityDisable(Kd) == CUPTI_SUCCESS);
  addOne<<<1, 32>>>(Counter);
  CHECK(cudaMemcpy(H.data(), D, 64, cudaMemcpyDeviceToHost));
  CHECK(cudaDeviceSynchronize());
  R = drain(Bad);
  EXPECT(R.Kernels.empty() && R.Copies.empty() && R.Runtime.empty());

  // --- bad input: CUPTI's codes, never a crash ------------------------------------------------
  CUpti_Activity *Rec = nullptr;
  EXPECT(cuptiActivityGetNextRecord(nullptr, 0, &Rec) == CUPTI_ERROR_INVALID_PARAMETER);
  uint8_t Empty[64] = {};
  EXPECT(cuptiActivityGetNextRecord(Empty, 0, &Rec) == CUPTI_ERROR_MAX_LIMIT_REACHED);
  EXPECT(cuptiActivityEnable(static_cast<CUpti_ActivityKind>(0x7000)) == CUPTI_ERROR_INVALID_KIND);
  EXPECT(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_INVALID, 1) ==
         CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT(cuptiActivityRegisterCallbacks(nullptr, complete) == CUPTI_ERROR_INVALID_PARAMETER);
  const char *Str = nullptr;
  EXPECT(cuptiGetResultString(CUPTI_ERROR_QUEUE_EMPTY, &Str) == CUPTI_SUCCESS && Str &&
         std::strstr(Str, "QUEUE_EMPTY"));
  EXPECT(cuptiGetStreamId(nullptr, nullptr, nullptr) == CUPTI_ERROR_INVALID_PARAMETER);
  // Attributes: what is set is what is read back; a short buffer is refused.
  size_t Bytes = 3 << 20, Size = sizeof Bytes, Back = 0;
  EXPECT(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &Size, &Bytes) == CUPTI_SUCCESS);
  EXPECT(cuptiActivityGetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &Size, &Back) == CUPTI_SUCCESS &&
         Back == Bytes && Size == sizeof Back);
  size_t Short = 4;
  EXPECT(cuptiActivityGetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &Short, &Back) ==
         CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT);
  uint8_t Zeroed = 1, ZeroedBack = 0;
  size_t One = 1;
  EXPECT(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &One, &Zeroed) == CUPTI_SUCCESS);
  EXPECT(cuptiActivityGetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &One, &ZeroedBack) ==
             CUPTI_SUCCESS &&
         ZeroedBack == 1);

  CHECK(cudaGraphExecDestroy(GE));
  CHECK(cudaGraphDestroy(G));
  CHECK(cudaStreamDestroy(S));
  CHECK(cudaFree(Counter));
  CHECK(cudaFree(D));
  return verdict("cupti_activity", Bad);
}
