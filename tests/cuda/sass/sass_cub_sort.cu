// CUB's radix sorts built as machine code only: the one-sweep sort counts
// digits into per-warp histograms its lanes zeroed just before (no
// __syncwarp between: ptxas relies on the warp running in lockstep), ranks
// keys with ballots and a leader's shared atomic broadcast by a shuffle, and
// looks back on other blocks' published prefixes; the segmented sort scans
// packed counters with warp shuffles inside convergence regions. Each pass
// checks every key against std::sort and that nothing past the output was
// written; a 64-bit item count takes CUB's 64-bit offset kernels. Run by ctest as it comes and with ZLUDA_CPU_STRATEGY=fibers.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

#include <algorithm>
#include <cstdio>
#include <vector>

static unsigned Seed = 12345;
static unsigned next() { return Seed = Seed * 1664525u + 1013904223u; }

template <typename CountT> static int sortKeys(int N, bool Pairs) {
  std::vector<unsigned> K(N), V(N);
  for (int I = 0; I < N; ++I) {
    K[I] = next();
    V[I] = I;
  }
  // The outputs get a guard word past their end, poisoned.
  unsigned *DK, *DV, *DKo, *DVo;
  cudaMalloc(&DK, N * 4);
  cudaMalloc(&DV, N * 4);
  cudaMalloc(&DKo, N * 4 + 4);
  cudaMalloc(&DVo, N * 4 + 4);
  cudaMemset(DKo, 0xAB, N * 4 + 4);
  cudaMemset(DVo, 0xAB, N * 4 + 4);
  cudaMemcpy(DK, K.data(), N * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(DV, V.data(), N * 4, cudaMemcpyHostToDevice);
  size_t Bytes = 0;
  void *Tmp = nullptr;
  for (int Round = 0; Round < 2; ++Round) {
    if (Pairs)
      cub::DeviceRadixSort::SortPairs(Tmp, Bytes, DK, DKo, DV, DVo, CountT(N));
    else
      cub::DeviceRadixSort::SortKeys(Tmp, Bytes, DK, DKo, CountT(N));
    if (!Round)
      cudaMalloc(&Tmp, Bytes);
  }
  cudaError_t E = cudaDeviceSynchronize();
  std::vector<unsigned> GK(N + 1), GV(N + 1);
  cudaMemcpy(GK.data(), DKo, N * 4 + 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(GV.data(), DVo, N * 4 + 4, cudaMemcpyDeviceToHost);
  std::vector<unsigned> Order(N);
  for (int I = 0; I < N; ++I)
    Order[I] = I;
  std::stable_sort(Order.begin(), Order.end(), [&](unsigned A, unsigned B) { return K[A] < K[B]; });
  int Bad = E != cudaSuccess;
  for (int I = 0; I < N; ++I) {
    Bad += GK[I] != K[Order[I]];
    if (Pairs)
      Bad += GV[I] != Order[I];
  }
  Bad += GK[N] != 0xABABABABu || (Pairs && GV[N] != 0xABABABABu);
  std::printf("DeviceRadixSort::%s, %d keys (%d-bit count): %s (%d wrong)%s%s\n", Pairs ? "SortPairs" : "SortKeys", N,
              int(sizeof(CountT) * 8),
              Bad ? "FAIL" : "ok", Bad, E ? " " : "", E ? cudaGetErrorString(E) : "");
  cudaFree(DK);
  cudaFree(DV);
  cudaFree(DKo);
  cudaFree(DVo);
  cudaFree(Tmp);
  return Bad != 0;
}

static int segmented(std::vector<int> Offsets) {
  int N = Offsets.back(), NSeg = int(Offsets.size()) - 1;
  std::vector<unsigned> K(N);
  for (unsigned &X : K)
    X = next();
  unsigned *DK, *DKo;
  int *DOff;
  cudaMalloc(&DK, N * 4);
  cudaMalloc(&DKo, N * 4 + 4);
  cudaMalloc(&DOff, Offsets.size() * 4);
  cudaMemset(DKo, 0xAB, N * 4 + 4);
  cudaMemcpy(DK, K.data(), N * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(DOff, Offsets.data(), Offsets.size() * 4, cudaMemcpyHostToDevice);
  size_t Bytes = 0;
  void *Tmp = nullptr;
  cub::DeviceSegmentedRadixSort::SortKeys(Tmp, Bytes, DK, DKo, N, NSeg, DOff, DOff + 1);
  cudaMalloc(&Tmp, Bytes);
  cub::DeviceSegmentedRadixSort::SortKeys(Tmp, Bytes, DK, DKo, N, NSeg, DOff, DOff + 1);
  cudaError_t E = cudaDeviceSynchronize();
  std::vector<unsigned> G(N + 1);
  cudaMemcpy(G.data(), DKo, N * 4 + 4, cudaMemcpyDeviceToHost);
  for (int S = 0; S < NSeg; ++S)
    std::sort(K.begin() + Offsets[S], K.begin() + Offsets[S + 1]);
  int Bad = E != cudaSuccess;
  for (int I = 0; I < N; ++I)
    Bad += G[I] != K[I];
  Bad += G[N] != 0xABABABABu;
  std::printf("DeviceSegmentedRadixSort::SortKeys, %d keys in %d segments: %s (%d wrong)\n", N, NSeg,
              Bad ? "FAIL" : "ok", Bad);
  cudaFree(DK);
  cudaFree(DKo);
  cudaFree(DOff);
  cudaFree(Tmp);
  return Bad != 0;
}

int main() {
  int Bad = 0;
  // One tile (a partial one: padding keys rank last), two tiles (the second
  // looks back on the first), many.
  for (int N : {1000, 8192, 100000})
    Bad += sortKeys<int>(N, false);
  Bad += sortKeys<int>(50000, true);
  // A 64-bit count: 64-bit tile arithmetic on the uniform datapath (ULEA of a
  // negated operand, whose carry out is the high word's borrow).
  Bad += sortKeys<long long>(50000, true);
  // One segment longer than a tile, then segments of uneven length (some empty).
  Bad += segmented({0, 6000});
  std::vector<int> Offsets = {0};
  while (Offsets.back() < 40000)
    Offsets.push_back(std::min(40000, Offsets.back() + int(next() % 5000)));
  Bad += segmented(Offsets);
  std::printf("sass_cub_sort: %s\n", Bad ? "FAIL" : "PASS");
  return Bad != 0;
}
