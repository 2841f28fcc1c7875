// The lanes of a converged warp are all active right after a collective or a
// barrier completes, also when the CPU device runs threads as fibers and one
// lane resumes before the others (run with ZLUDA_CPU_STRATEGY=fibers). Built
// as PTX and as sm_86 machine code: there, ptxas's SHFL carries no member mask
// and the SASS front end asks activemask for it, as PyTorch's attention kernel
// does to broadcast its warp index (it read lanes that had not written it).
#include "../common.h"

__global__ void activeAfterSync(unsigned *Out, unsigned *Bcast) {
  unsigned T = threadIdx.x, N = blockDim.x;
  unsigned V = __shfl_sync(0xffffffffu, T * 3 + 1, 0);
  Out[T] = __activemask(); // right after a warp collective
  __syncthreads();
  Out[N + T] = __activemask(); // right after a block barrier
  __syncwarp();
  Out[2 * N + T] = __activemask(); // right after a warp barrier
  // A broadcast after the barrier: every lane gets its warp's lane 0 value.
  unsigned W = __shfl_sync(0xffffffffu, V * 5 + T % 32, 0);
  Bcast[T] = W;
}

int main() {
  const unsigned N = 128;
  std::vector<unsigned> Zero(3 * N, 0);
  unsigned *Out = dev(Zero), *Bcast = dev(std::vector<unsigned>(N, 0));
  activeAfterSync<<<2, N>>>(Out, Bcast);
  CHECK(cudaDeviceSynchronize());
  auto O = host(Out, 3 * N), B = host(Bcast, N);
  int Bad = 0;
  for (unsigned I = 0; I < 3 * N; ++I)
    if (O[I] != 0xffffffffu && Bad++ < 5)
      std::printf("FAIL: activemask site %u lane %u: %#x\n", I / N, I % N, O[I]);
  for (unsigned T = 0; T < N; ++T) {
    unsigned Lane0 = T / 32 * 32, Want = (Lane0 * 3 + 1) * 5 + 0;
    if (B[T] != Want && Bad++ < 10)
      std::printf("FAIL: broadcast lane %u: %u, want %u\n", T, B[T], Want);
  }
  return verdict("activemask_fibers", Bad);
}
