// What a cubin holds beside its code, built as machine code only (sm_75/86/90,
// no PTX) and checked against host references: __constant__ data (bank 3,
// read at fixed and indexed offsets, rewritten by cudaMemcpyToSymbol),
// __device__ variables initialized and zeroed (their addresses in bank 4),
// a __device__ pointer the linker initializes with another variable's address,
// the symbols API on them, device malloc/free (the driver's functions, called
// through bank 4), a kernel the front end cannot lift beside kernels it can
// (only that one is refused, at its launch), and a failing assert (last: it
// ends the context).
#include <cassert>
#include <cstdint>
#include <cstdio>

#define CHECK(x)                                                                                                       \
  do {                                                                                                                 \
    cudaError_t e_ = (x);                                                                                              \
    if (e_ != cudaSuccess) {                                                                                           \
      std::printf("FAIL: %s: %s\n", #x, cudaGetErrorString(e_));                                                       \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

constexpr int N = 64;

__constant__ float Scale[8] = {1.5f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f};
__constant__ int Offset = 100;
__device__ int Counter = 7;
__device__ float Table[N];
__device__ int *CounterPtr = &Counter;

__global__ void useSymbols(float *Out, int *Seen) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  Out[I] = Scale[I & 7] * Table[I] + Offset;
  atomicAdd(&Counter, 1);
  if (I == 0)
    *Seen = *CounterPtr; // read through the linker's pointer (before or after others' adds)
}

__global__ void heap(unsigned long long *Out) {
  int I = threadIdx.x;
  int *P = static_cast<int *>(malloc(16 * sizeof(int)));
  if (!P) {
    Out[I] = ~0ull;
    return;
  }
  for (int K = 0; K < 16; ++K)
    P[K] = I * 16 + K;
  unsigned long long S = 0;
  for (int K = 0; K < 16; ++K)
    S += P[K];
  Out[I] = S;
  free(P);
}

// Formatted surface stores (sust.p, SUST.P) are not lifted: this kernel alone is refused.
__global__ void notLifted(int *Out, cudaSurfaceObject_t Surf) {
  asm volatile("sust.p.1d.b32.trap [%0, {%1}], {%1, %1, %1, %1};" ::"l"(Surf), "r"(int(threadIdx.x)));
  Out[threadIdx.x] = 1;
}

__global__ void asserts(int V) { assert(V > 0); }

int main() {
  float HostTable[N], *Out;
  for (int I = 0; I < N; ++I)
    HostTable[I] = 0.25f * I;
  CHECK(cudaMemcpyToSymbol(Table, HostTable, sizeof HostTable));
  int NewOffset = 1000;
  CHECK(cudaMemcpyToSymbol(Offset, &NewOffset, sizeof NewOffset));
  int *Seen;
  CHECK(cudaMalloc(&Out, N * sizeof(float)));
  CHECK(cudaMalloc(&Seen, sizeof(int)));
  useSymbols<<<2, 32>>>(Out, Seen);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  float Got[N];
  int Count = 0, SeenHost = 0;
  CHECK(cudaMemcpy(Got, Out, sizeof Got, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&SeenHost, Seen, sizeof SeenHost, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpyFromSymbol(&Count, Counter, sizeof Count));
  const float HostScale[8] = {1.5f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f};
  int Bad = 0;
  for (int I = 0; I < N; ++I)
    if (Got[I] != HostScale[I & 7] * HostTable[I] + 1000.f) {
      if (Bad++ < 4)
        std::printf("symbols: Out[%d] = %g, expected %g\n", I, Got[I], HostScale[I & 7] * HostTable[I] + 1000.f);
    }
  if (Count != 7 + N) {
    std::printf("symbols: Counter = %d, expected %d\n", Count, 7 + N);
    ++Bad;
  }
  if (SeenHost < 7 || SeenHost > 7 + N) {
    std::printf("symbols: *CounterPtr read %d, expected 7..%d\n", SeenHost, 7 + N);
    ++Bad;
  }
  size_t Size = 0;
  CHECK(cudaGetSymbolSize(&Size, Table));
  if (Size != sizeof HostTable) {
    std::printf("symbols: cudaGetSymbolSize(Table) = %zu\n", Size);
    ++Bad;
  }

  unsigned long long *Sums, HostSums[32];
  CHECK(cudaMalloc(&Sums, sizeof HostSums));
  heap<<<1, 32>>>(Sums);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(HostSums, Sums, sizeof HostSums, cudaMemcpyDeviceToHost));
  for (int I = 0; I < 32; ++I)
    if (HostSums[I] != 256ull * I + 120) {
      if (Bad++ < 8)
        std::printf("heap: thread %d summed %llu, expected %llu\n", I, HostSums[I], 256ull * I + 120);
    }

  // Refused alone, at its launch, with the error of a kernel without an image.
  int *Ints;
  CHECK(cudaMalloc(&Ints, 32 * sizeof(int)));
  notLifted<<<1, 32>>>(Ints, cudaSurfaceObject_t(0));
  cudaError_t E = cudaGetLastError();
  if (E != cudaErrorNoKernelImageForDevice) {
    std::printf("notLifted: launch gave %s, expected cudaErrorNoKernelImageForDevice\n", cudaGetErrorName(E));
    ++Bad;
  }
  useSymbols<<<2, 32>>>(Out, Seen); // the others still run
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpyFromSymbol(&Count, Counter, sizeof Count));
  if (Count != 7 + 2 * N) {
    std::printf("symbols: Counter = %d after a second launch, expected %d\n", Count, 7 + 2 * N);
    ++Bad;
  }

  asserts<<<1, 1>>>(1);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  asserts<<<1, 1>>>(0);
  E = cudaDeviceSynchronize();
  if (E != cudaErrorAssert) {
    std::printf("asserts: a failed assert gave %s, expected cudaErrorAssert\n", cudaGetErrorName(E));
    ++Bad;
  }
  std::printf("sass_system: %s (%d mismatches)\n", Bad ? "FAIL" : "PASS", Bad);
  return Bad != 0;
}
