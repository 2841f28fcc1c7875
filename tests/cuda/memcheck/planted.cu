// Memcheck (ZLUDA_MEMCHECK=1, zluda run --memcheck) against planted bugs.
// One bug per process (an illegal address ends the context, as on NVIDIA's):
//   planted oob|uaf|shared|dynshared|misaligned|local|clean
// Each mode launches its kernel, expects the launch's documented error, and
// reads back what memcheck wrote to stderr: the kind of access, the kernel,
// the faulting thread and block, and the allocation it missed. `clean` runs
// correct kernels over every kind of memory and expects no report at all.
#include "../common.h"
#include "capture.h"

#include <cstring>
#include <string>

__global__ void oobWrite(float *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I <= N) // off by one: thread N writes one element past the end
    Out[I] = 1.0f;
}

__global__ void readAll(const int *In, int *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = In[I] + 1;
}

__global__ void sharedOverflow(int *Out) {
  __shared__ int Tile[64];
  Tile[threadIdx.x] = threadIdx.x; // 96 threads: 32 of them past the tile
  __syncthreads();
  Out[threadIdx.x] = Tile[threadIdx.x % 64];
}

__global__ void dynSharedOverflow(int *Out, int Count) {
  extern __shared__ int Dyn[];
  for (int I = threadIdx.x; I <= Count; I += blockDim.x) // one past the dynamic window
    Dyn[I] = I;
  __syncthreads();
  Out[threadIdx.x] = Dyn[threadIdx.x];
}

__global__ void misaligned(const char *In, int *Out) { *Out = *reinterpret_cast<const int *>(In + 2); }

__device__ int __noinline__ pick(const int *P, int I) { return P[I]; }

__global__ void localOverrun(int *Out, int K) {
  int Local[8];
  for (int I = 0; I < 8; ++I)
    Local[I] = I * K;
  Out[threadIdx.x] = pick(Local, 8 + 4096 * K); // far past the thread's array and stack
}

__device__ int ModuleVar[32];
__constant__ int ConstVar[16];

__global__ void cleanKernel(int *Out, const int *Host, int *Managed, int N) {
  __shared__ int Tile[128];
  extern __shared__ int Dyn[];
  int T = threadIdx.x, I = blockIdx.x * blockDim.x + T;
  int Local[4] = {T, T + 1, T + 2, T + 3};
  Tile[T] = pick(Local, T % 4) + ConstVar[T % 16];
  Dyn[T] = T;
  __syncthreads();
  int *Heap = static_cast<int *>(malloc(4 * sizeof(int)));
  Heap[3] = Tile[(T + 1) % 128] + Dyn[(T + 2) % 128];
  if (I < N) {
    Out[I] = Heap[3] + Host[I];
    atomicAdd(&ModuleVar[T % 32], 1);
    atomicAdd(&Managed[I % 8], 1);
  }
  free(Heap);
}

namespace {

int Bad = 0;

void expectText(const std::string &Text, const char *Want) { Bad += lacks(Text, Want, "memcheck"); }

void expectError(cudaError_t Got, cudaError_t Want) {
  if (Got != Want) {
    std::printf("FAIL: expected %s, got %s\n", cudaGetErrorName(Want), cudaGetErrorName(Got));
    ++Bad;
  }
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 2) {
    std::printf("usage: planted oob|uaf|shared|dynshared|misaligned|local|clean\n");
    return 2;
  }
  std::string Mode = Argv[1];
  CHECK(cudaFree(nullptr)); // the context, before stderr is captured
  CaptureStderr Cap;
  cudaError_t E = cudaSuccess;
  if (Mode == "oob") {
    const int N = 1000; // thread 1000 = block 3, thread 232 writes past the end
    float *Out;
    CHECK(cudaMalloc(&Out, N * sizeof(float)));
    oobWrite<<<4, 256>>>(Out, N);
    E = cudaDeviceSynchronize();
    std::string T = Cap.finish();
    expectError(E, cudaErrorIllegalAddress);
    expectText(T, "Invalid __global__ write of size 4 bytes");
    expectText(T, "oobWrite");
    expectText(T, "by thread (232,0,0) in block (3,0,0)");
    expectText(T, "0 bytes after the nearest allocation, a device allocation of 4000 bytes");
  } else if (Mode == "uaf") {
    const int N = 256;
    int *In, *Out;
    CHECK(cudaMalloc(&In, N * sizeof(int)));
    CHECK(cudaMalloc(&Out, N * sizeof(int)));
    CHECK(cudaFree(In));
    readAll<<<1, N>>>(In, Out, N);
    E = cudaDeviceSynchronize();
    std::string T = Cap.finish();
    expectError(E, cudaErrorIllegalAddress);
    expectText(T, "Invalid __global__ read of size 4 bytes");
    expectText(T, "readAll");
    expectText(T, "that was freed (use after free)");
  } else if (Mode == "shared") {
    int *Out;
    CHECK(cudaMalloc(&Out, 96 * sizeof(int)));
    sharedOverflow<<<2, 96>>>(Out);
    E = cudaDeviceSynchronize();
    std::string T = Cap.finish();
    expectError(E, cudaErrorIllegalAddress);
    expectText(T, "Invalid __shared__ write of size 4 bytes");
    expectText(T, "sharedOverflow");
    expectText(T, "the block's shared memory is 256 bytes");
    expectText(T, "(offset 256)");
  } else if (Mode == "dynshared") {
    int *Out;
    CHECK(cudaMalloc(&Out, 64 * sizeof(int)));
    dynSharedOverflow<<<1, 64, 100 * sizeof(int)>>>(Out, 100);
    E = cudaDeviceSynchronize();
    std::string T = Cap.finish();
    expectError(E, cudaErrorIllegalAddress);
    expectText(T, "Invalid __shared__ write of size 4 bytes");
    expectText(T, "by thread (36,0,0) in block (0,0,0)");
    expectText(T, "the block's shared memory is 400 bytes");
  } else if (Mode == "misaligned") {
    char *In;
    int *Out;
    CHECK(cudaMalloc(&In, 64));
    CHECK(cudaMalloc(&Out, 4));
    misaligned<<<1, 1>>>(In, Out);
    E = cudaDeviceSynchronize();
    std::string T = Cap.finish();
    expectError(E, cudaErrorMisalignedAddress);
    expectText(T, "of size 4 bytes");
    expectText(T, "is misaligned");
  } else if (Mode == "local") {
    int *Out;
    CHECK(cudaMalloc(&Out, 32 * sizeof(int)));
    localOverrun<<<1, 32>>>(Out, 1);
    E = cudaDeviceSynchronize();
    std::string T = Cap.finish();
    expectError(E, cudaErrorIllegalAddress);
    expectText(T, "read of size 4 bytes");
    expectText(T, "pick");
  } else if (Mode == "clean") {
    const int N = 1000;
    std::vector<int> HostIn(N);
    for (int I = 0; I < N; ++I)
      HostIn[I] = I;
    int *Out, *Managed, *Pinned;
    CHECK(cudaMalloc(&Out, N * sizeof(int)));
    CHECK(cudaMallocManaged(&Managed, 8 * sizeof(int)));
    CHECK(cudaMemset(Managed, 0, 8 * sizeof(int)));
    CHECK(cudaHostRegister(HostIn.data(), N * sizeof(int), cudaHostRegisterDefault));
    CHECK(cudaMallocHost(&Pinned, 16));
    std::vector<int> C(16, 5);
    CHECK(cudaMemcpyToSymbol(ConstVar, C.data(), sizeof(int) * 16));
    int *HostDev;
    CHECK(cudaHostGetDevicePointer(&HostDev, HostIn.data(), 0));
    cleanKernel<<<(N + 127) / 128, 128, 128 * sizeof(int)>>>(Out, HostDev, Managed, N);
    E = cudaDeviceSynchronize();
    std::string T = Cap.finish();
    expectError(E, cudaSuccess);
    if (T.find("Invalid") != std::string::npos) {
      std::printf("FAIL: memcheck reported an access of a correct kernel\n");
      ++Bad;
    }
    std::vector<int> H = host(Out, N);
    for (int I = 0; I < N; ++I) {
      int Tx = I % 128;
      // Heap[3] = Tile[(T+1)%128] + Dyn[(T+2)%128], Tile[t] = Local[t%4] + ConstVar[.] = t + t%4 + 5
      int Want = ((Tx + 1) % 128) + ((Tx + 1) % 128) % 4 + 5 + (Tx + 2) % 128 + I;
      if (H[I] != Want && Bad < 10) {
        std::printf("FAIL: Out[%d] = %d, expected %d\n", I, H[I], Want);
        ++Bad;
      }
    }
    int M = 0;
    for (int I = 0; I < 8; ++I)
      M += Managed[I];
    EXPECT(M == N);
    CHECK(cudaHostUnregister(HostIn.data()));
    CHECK(cudaFreeHost(Pinned));
  } else {
    Cap.finish();
    std::printf("unknown mode %s\n", Mode.c_str());
    return 2;
  }
  return verdict(("memcheck " + Mode).c_str(), Bad);
}
