// Racecheck (ZLUDA_RACECHECK=1, zluda run --racecheck) against planted
// shared-memory races: racecheck raw|war|waw|clean. Each mode launches its
// kernel, expects it to complete (a hazard is reported, not fatal), and reads
// back what racecheck wrote to stderr: the two accesses' kinds, the kernel,
// the threads and block. `clean` runs correctly synchronized kernels (block
// barriers, __syncwarp between a warp's lanes, shared atomics, a tree
// reduction) and expects no report.
#include "../common.h"
#include "capture.h"

#include <string>

// Thread t reads what thread t-1 wrote, with no barrier between: a read after
// a write (and thread 0 reads what thread 127 writes later: a write after a read).
__global__ void missingBarrier(int *Out) {
  __shared__ int Buf[128];
  int T = threadIdx.x;
  Buf[T] = T * 3;
  Out[T] = Buf[(T + 127) % 128];
}

// An in-place shift: thread t reads word t+1, which thread t+1 then overwrites.
__global__ void shiftInPlace(int *Out) {
  __shared__ int Buf[128];
  int T = threadIdx.x;
  Buf[T] = T;
  __syncthreads();
  int V = Buf[(T + 1) % 128];
  Buf[T] = V + 1; // needs a barrier after the read
  __syncthreads();
  Out[T] = Buf[T];
}

// One thread of each warp writes the same word.
__global__ void sameWord(int *Out) {
  __shared__ int Leader;
  int T = threadIdx.x;
  if (T % 32 == 0)
    Leader = T;
  __syncthreads();
  Out[T] = Leader;
}

__global__ void synchronized(int *Out) {
  __shared__ int Buf[256];
  __shared__ int Count;
  __shared__ int Lanes[256];
  int T = threadIdx.x;
  if (T == 0)
    Count = 0;
  Buf[T] = T + 1;
  __syncthreads();
  for (int S = 128; S > 0; S >>= 1) { // tree reduction, a barrier per level
    if (T < S)
      Buf[T] += Buf[T + S];
    __syncthreads();
  }
  atomicAdd(&Count, 1); // atomics are never hazards
  Lanes[T] = T * 7;
  __syncwarp(); // orders the warp's lanes
  int Neighbour = Lanes[(T & ~31) | ((T + 1) & 31)];
  __syncthreads();
  Out[T] = Buf[0] + Count + Neighbour;
}

namespace {

int Bad = 0;

void expectText(const std::string &Text, const char *Want) { Bad += lacks(Text, Want, "racecheck"); }

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 2) {
    std::printf("usage: racecheck raw|war|waw|clean\n");
    return 2;
  }
  std::string Mode = Argv[1];
  int *Out;
  CHECK(cudaMalloc(&Out, 256 * sizeof(int)));
  CaptureStderr Cap;
  if (Mode == "raw")
    missingBarrier<<<2, 128>>>(Out);
  else if (Mode == "war")
    shiftInPlace<<<1, 128>>>(Out);
  else if (Mode == "waw")
    sameWord<<<1, 128>>>(Out);
  else
    synchronized<<<2, 256>>>(Out);
  cudaError_t E = cudaDeviceSynchronize();
  std::string T = Cap.finish();
  if (E != cudaSuccess) {
    std::printf("FAIL: the launch returned %s (a hazard is reported, not fatal)\n", cudaGetErrorName(E));
    ++Bad;
  }
  if (Mode == "raw") {
    expectText(T, "Race reported between Write access at _Z14missingBarrierPi");
    expectText(T, "and Read access at _Z14missingBarrierPi");
    expectText(T, "by thread (0,0,0)\n");
    expectText(T, "racecheck.cu:19 (PTX line"); // the read's source line, with -lineinfo
    expectText(T, "by thread (1,0,0) in block (");
    expectText(T, "on shared memory at offset 0");
  } else if (Mode == "war") {
    expectText(T, "Race reported between Read access at _Z12shiftInPlacePi");
    expectText(T, "and Write access at _Z12shiftInPlacePi");
    expectText(T, "racecheck.cu:28 (PTX line"); // the read and the write (the order threads run in decides
    expectText(T, "racecheck.cu:29 (PTX line"); // which of them comes first)
  } else if (Mode == "waw") {
    expectText(T, "Race reported between Write access at _Z8sameWordPi");
    expectText(T, "and Write access at _Z8sameWordPi");
    expectText(T, "by thread (0,0,0)\n");
    expectText(T, "by thread (32,0,0) in block (0,0,0)");
  } else if (T.find("racecheck") != std::string::npos) {
    std::printf("FAIL: racecheck reported a correctly synchronized kernel\n");
    ++Bad;
  }
  std::printf("racecheck %s: %s\n", Mode.c_str(), Bad ? "FAIL" : "PASS");
  return Bad != 0;
}
