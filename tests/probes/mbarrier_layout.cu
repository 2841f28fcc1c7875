// Records the raw 64-bit word of a shared-memory mbarrier after each operation
// on NVIDIA's hardware, and the states (tokens) the arrivals return: the
// layout that machine code reads and writes directly (init by STS.64,
// ATOMS.ARRIVE.64, test_wait by LDS), which the SASS front end must follow.
// Run on the device machine: nvcc -gencode arch=compute_90a,code=sm_90a
//   tests/probes/mbarrier_layout.cu -o /tmp/mb && for c in 1 2 3 5 32 1000 1048575; do /tmp/mb $c; done
// Not recorded yet (the device machine was unavailable when it was written);
// record its output as tests/sass/data/mbarrier-h100.txt.
#include <cstdio>
#include <cstdlib>
#include <vector>

__device__ unsigned long long raw(unsigned long long *B) { return *(volatile unsigned long long *)B; }

__global__ void probe(unsigned long long *Out, unsigned Count) {
  __shared__ unsigned long long Bar;
  unsigned A = static_cast<unsigned>(__cvta_generic_to_shared(&Bar));
  int T = threadIdx.x, N = 0;
  if (T == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(A), "r"(Count));
    Out[N] = raw(&Bar);
  }
  ++N;
  __syncthreads();
  // Count + 2 single arrivals, one thread at a time: the phase completes and the next one starts.
  for (unsigned K = 0; K < Count + 2 && K < 8; ++K) {
    if (T == static_cast<int>(K)) {
      unsigned long long St;
      asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(St) : "r"(A));
      Out[N] = St;
      Out[N + 1] = raw(&Bar);
      unsigned Done;
      asm volatile("{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                   : "=r"(Done) : "r"(A), "l"(St));
      Out[N + 2] = Done;
    }
    N += 3;
    __syncthreads();
  }
  if (T == 0) {
    unsigned long long St;
    // Two arrivals at once only where two are pending (more traps on sm_90).
    unsigned Arrived = Count + 2 < 8 ? Count + 2 : 8, Left = Count - Arrived % Count;
    if (Left >= 2)
      asm volatile("mbarrier.arrive.shared.b64 %0, [%1], %2;" : "=l"(St) : "r"(A), "r"(2u));
    else
      St = 0;
    Out[N] = St;
    Out[N + 1] = raw(&Bar);
    asm volatile("mbarrier.arrive_drop.shared.b64 %0, [%1];" : "=l"(St) : "r"(A));
    Out[N + 2] = St;
    Out[N + 3] = raw(&Bar);
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(A), "r"(256u));
    Out[N + 4] = raw(&Bar);
    asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(A), "r"(64u));
    Out[N + 5] = raw(&Bar);
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 %0, [%1], %2;" : "=l"(St) : "r"(A), "r"(32u));
    Out[N + 6] = St;
    Out[N + 7] = raw(&Bar);
    unsigned Pending;
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(Pending) : "l"(St));
    Out[N + 8] = Pending;
  }
}

// One count per process when given (a trap ends the context): mbarrier_layout [COUNT]
int main(int Argc, char **Argv) {
  unsigned long long *D;
  cudaMalloc(&D, 64 * 8);
  std::vector<unsigned> Counts = {1u, 2u, 3u, 5u, 32u, 1000u, (1u << 20) - 1};
  if (Argc > 1)
    Counts = {static_cast<unsigned>(std::strtoul(Argv[1], nullptr, 0))};
  for (unsigned Count : Counts) {
    cudaMemset(D, 0xff, 64 * 8);
    probe<<<1, 32>>>(D, Count);
    unsigned long long H[64];
    if (cudaMemcpy(H, D, sizeof H, cudaMemcpyDeviceToHost) != cudaSuccess) {
      std::printf("count %u: %s\n", Count, cudaGetErrorString(cudaGetLastError()));
      continue;
    }
    std::printf("count %u: init %016llx\n", Count, H[0]);
    int N = 1;
    for (unsigned K = 0; K < Count + 2 && K < 8; ++K, N += 3)
      std::printf("  arrive %u: state %016llx raw %016llx test_wait %llu\n", K, H[N], H[N + 1], H[N + 2]);
    std::printf("  arrive(2): state %016llx raw %016llx\n", H[N], H[N + 1]);
    std::printf("  arrive_drop: state %016llx raw %016llx\n", H[N + 2], H[N + 3]);
    std::printf("  expect_tx(256): raw %016llx\n", H[N + 4]);
    std::printf("  complete_tx(64): raw %016llx\n", H[N + 5]);
    std::printf("  arrive.expect_tx(32): state %016llx raw %016llx pending_count %llu\n", H[N + 6], H[N + 7],
                H[N + 8]);
  }
  return 0;
}
