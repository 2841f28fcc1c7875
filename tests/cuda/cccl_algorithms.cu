// CCCL 3's device-wide algorithms (the CUDA 13 toolkit's CUB and Thrust) as
// real programs call them, each against the host doing the same work: radix
// sort of keys and pairs (ascending, descending, a bit range), segmented
// radix sort, merge sort with a custom comparison, segmented and by-key
// reductions, run-length encoding, scans by key and with a custom operator,
// selection, partition and unique, even histograms; Thrust's sort_by_key,
// reduce_by_key, transform_reduce, unique and set operations. Built for
// compute_90, compute_100 and compute_120 PTX (tests/cuda/CMakeLists.txt).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <vector>

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/set_operations.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>
#include <thrust/unique.h>

#include "common.h"

namespace {
std::mt19937 Rng(1207);

template <typename T> std::vector<T> randomVector(size_t N, T Lo, T Hi) {
  std::vector<T> V(N);
  std::uniform_int_distribution<long long> D(Lo, Hi);
  for (auto &X : V)
    X = static_cast<T>(D(Rng));
  return V;
}

int Failures = 0;
template <typename T> void check(const char *Name, const std::vector<T> &Got, const std::vector<T> &Want) {
  size_t Bad = Got.size() != Want.size() ? std::max(Got.size(), Want.size()) : 0;
  for (size_t I = 0; I < Got.size() && I < Want.size(); ++I)
    Bad += !(Got[I] == Want[I]);
  std::printf("%-40s %s (%zu of %zu wrong)\n", Name, Bad ? "FAIL" : "ok", Bad, Want.size());
  Failures += Bad != 0;
}

/// Runs a CUB device algorithm twice, as programs do: once for the size of
/// its temporary storage, once with that storage.
template <typename F> void cubCall(F Call) {
  size_t Bytes = 0;
  CHECK(Call(static_cast<void *>(nullptr), Bytes));
  void *Temp = nullptr;
  CHECK(cudaMalloc(&Temp, std::max<size_t>(Bytes, 1)));
  CHECK(Call(Temp, Bytes));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(Temp));
}

struct Descending {
  __host__ __device__ bool operator()(int A, int B) const { return A > B; }
};
struct IsMultipleOf3 {
  __host__ __device__ bool operator()(int X) const { return X % 3 == 0; }
};
struct MaxOp {
  __host__ __device__ int operator()(int A, int B) const { return A > B ? A : B; }
};
struct Square {
  __host__ __device__ long long operator()(int X) const { return static_cast<long long>(X) * X; }
};

void radixSorts() {
  const int N = 100000;
  auto Keys = randomVector<uint32_t>(N, 0, 0xffffffffu);
  auto Vals = randomVector<int>(N, -1000000, 1000000);
  uint32_t *DK = dev(Keys), *DKOut;
  int *DV = dev(Vals), *DVOut;
  CHECK(cudaMalloc(&DKOut, N * 4));
  CHECK(cudaMalloc(&DVOut, N * 4));
  // Pairs, ascending: a stable sort of the keys carrying the values.
  cubCall([&](void *T, size_t &B) { return cub::DeviceRadixSort::SortPairs(T, B, DK, DKOut, DV, DVOut, N); });
  std::vector<std::pair<uint32_t, int>> P(N);
  for (int I = 0; I < N; ++I)
    P[I] = {Keys[I], Vals[I]};
  std::stable_sort(P.begin(), P.end(), [](auto &A, auto &B) { return A.first < B.first; });
  std::vector<uint32_t> WK(N);
  std::vector<int> WV(N);
  for (int I = 0; I < N; ++I)
    std::tie(WK[I], WV[I]) = P[I];
  check("DeviceRadixSort::SortPairs keys", host(DKOut, N), WK);
  check("DeviceRadixSort::SortPairs values", host(DVOut, N), WV);
  // Keys descending, then only bits 8..23 (a stable sort by that field).
  cubCall([&](void *T, size_t &B) { return cub::DeviceRadixSort::SortKeysDescending(T, B, DK, DKOut, N); });
  std::vector<uint32_t> Desc = Keys;
  std::sort(Desc.begin(), Desc.end(), std::greater<uint32_t>());
  check("DeviceRadixSort::SortKeysDescending", host(DKOut, N), Desc);
  cubCall([&](void *T, size_t &B) { return cub::DeviceRadixSort::SortKeys(T, B, DK, DKOut, N, 8, 24); });
  std::vector<uint32_t> Field = Keys;
  std::stable_sort(Field.begin(), Field.end(),
                   [](uint32_t A, uint32_t B) { return ((A >> 8) & 0xffff) < ((B >> 8) & 0xffff); });
  check("DeviceRadixSort::SortKeys bits 8..23", host(DKOut, N), Field);
  // Segmented: 37 segments of uneven length (some empty).
  std::vector<int> Offsets = {0};
  while (Offsets.back() < N)
    Offsets.push_back(std::min(N, Offsets.back() + (int)(Rng() % 6000)));
  int NSeg = int(Offsets.size()) - 1;
  int *DOff = dev(Offsets);
  cubCall([&](void *T, size_t &B) {
    return cub::DeviceSegmentedRadixSort::SortKeys(T, B, DK, DKOut, N, NSeg, DOff, DOff + 1);
  });
  std::vector<uint32_t> Seg = Keys;
  for (int S = 0; S < NSeg; ++S)
    std::sort(Seg.begin() + Offsets[S], Seg.begin() + Offsets[S + 1]);
  check("DeviceSegmentedRadixSort::SortKeys", host(DKOut, N), Seg);
  // Segmented sums of the values.
  long long *DSums;
  CHECK(cudaMalloc(&DSums, NSeg * 8));
  std::vector<long long> Wide(Vals.begin(), Vals.end());
  long long *DWide = dev(Wide);
  cubCall([&](void *T, size_t &B) {
    return cub::DeviceSegmentedReduce::Sum(T, B, DWide, DSums, NSeg, DOff, DOff + 1);
  });
  std::vector<long long> WSums(NSeg);
  for (int S = 0; S < NSeg; ++S)
    WSums[S] = std::accumulate(Wide.begin() + Offsets[S], Wide.begin() + Offsets[S + 1], 0LL);
  check("DeviceSegmentedReduce::Sum", host(DSums, NSeg), WSums);
  // Merge sort with a comparison object (descending), pairs.
  std::vector<int> MK = randomVector<int>(N, -5000, 5000);
  int *DMK = dev(MK), *DMV = dev(Vals);
  cubCall([&](void *T, size_t &B) { return cub::DeviceMergeSort::StableSortPairs(T, B, DMK, DMV, N, Descending()); });
  std::vector<std::pair<int, int>> MP(N);
  for (int I = 0; I < N; ++I)
    MP[I] = {MK[I], Vals[I]};
  std::stable_sort(MP.begin(), MP.end(), [](auto &A, auto &B) { return A.first > B.first; });
  std::vector<int> WMK(N), WMV(N);
  for (int I = 0; I < N; ++I)
    std::tie(WMK[I], WMV[I]) = MP[I];
  check("DeviceMergeSort::StableSortPairs keys", host(DMK, N), WMK);
  check("DeviceMergeSort::StableSortPairs values", host(DMV, N), WMV);
  for (void *Ptr : {(void *)DK, (void *)DKOut, (void *)DV, (void *)DVOut, (void *)DOff, (void *)DSums, (void *)DWide,
                    (void *)DMK, (void *)DMV})
    CHECK(cudaFree(Ptr));
}

void byKeyAndSelection() {
  const int N = 50000;
  // Runs of equal keys (1..8 long).
  std::vector<int> Keys(N), Vals = randomVector<int>(N, -100, 100);
  for (int I = 0, K = 0; I < N; ++K)
    for (int L = 1 + int(Rng() % 8); L > 0 && I < N; --L)
      Keys[I++] = K * 7 % 1000; // keys repeat after 1000 runs, not adjacently
  int *DK = dev(Keys), *DV = dev(Vals), *DUK, *DAgg, *DNum, *DOut, *DCounts;
  CHECK(cudaMalloc(&DUK, N * 4));
  CHECK(cudaMalloc(&DAgg, N * 4));
  CHECK(cudaMalloc(&DNum, 4));
  CHECK(cudaMalloc(&DOut, N * 4));
  CHECK(cudaMalloc(&DCounts, N * 4));
  std::vector<int> WUK, WAgg, WCounts;
  for (int I = 0; I < N;) {
    int J = I;
    while (J < N && Keys[J] == Keys[I])
      ++J;
    int Mx = *std::max_element(Vals.begin() + I, Vals.begin() + J);
    WUK.push_back(Keys[I]);
    WAgg.push_back(Mx);
    WCounts.push_back(J - I);
    I = J;
  }
  int Runs = int(WUK.size());
  cubCall([&](void *T, size_t &B) {
    return cub::DeviceReduce::ReduceByKey(T, B, DK, DUK, DV, DAgg, DNum, MaxOp(), N);
  });
  check("DeviceReduce::ReduceByKey runs", host(DNum, 1), std::vector<int>{Runs});
  check("DeviceReduce::ReduceByKey keys", host(DUK, Runs), WUK);
  check("DeviceReduce::ReduceByKey max", host(DAgg, Runs), WAgg);
  cubCall([&](void *T, size_t &B) { return cub::DeviceRunLengthEncode::Encode(T, B, DK, DUK, DCounts, DNum, N); });
  check("DeviceRunLengthEncode::Encode counts", host(DCounts, Runs), WCounts);
  // Scans: exclusive sums restarting at each key, and an inclusive max scan.
  cubCall([&](void *T, size_t &B) { return cub::DeviceScan::ExclusiveSumByKey(T, B, DK, DV, DOut, N); });
  std::vector<int> WScan(N);
  for (int I = 0; I < N; ++I)
    WScan[I] = I == 0 || Keys[I] != Keys[I - 1] ? 0 : WScan[I - 1] + Vals[I - 1];
  check("DeviceScan::ExclusiveSumByKey", host(DOut, N), WScan);
  cubCall([&](void *T, size_t &B) { return cub::DeviceScan::InclusiveScan(T, B, DV, DOut, MaxOp(), N); });
  std::vector<int> WMax(N);
  for (int I = 0; I < N; ++I)
    WMax[I] = I ? std::max(WMax[I - 1], Vals[I]) : Vals[I];
  check("DeviceScan::InclusiveScan max", host(DOut, N), WMax);
  // Selection, partition, unique.
  cubCall([&](void *T, size_t &B) { return cub::DeviceSelect::If(T, B, DV, DOut, DNum, N, IsMultipleOf3()); });
  std::vector<int> WSel;
  std::copy_if(Vals.begin(), Vals.end(), std::back_inserter(WSel), IsMultipleOf3());
  check("DeviceSelect::If count", host(DNum, 1), std::vector<int>{int(WSel.size())});
  check("DeviceSelect::If", host(DOut, WSel.size()), WSel);
  cubCall([&](void *T, size_t &B) { return cub::DevicePartition::If(T, B, DV, DOut, DNum, N, IsMultipleOf3()); });
  std::vector<int> WPart = WSel, Rest;
  std::copy_if(Vals.begin(), Vals.end(), std::back_inserter(Rest), [](int X) { return X % 3 != 0; });
  WPart.insert(WPart.end(), Rest.rbegin(), Rest.rend()); // the rejected ones in reverse order, as documented
  check("DevicePartition::If", host(DOut, N), WPart);
  cubCall([&](void *T, size_t &B) { return cub::DeviceSelect::Unique(T, B, DK, DOut, DNum, N); });
  check("DeviceSelect::Unique", host(DOut, Runs), WUK);
  // An even histogram of 64 bins over [-100, 100).
  int *DHist;
  CHECK(cudaMalloc(&DHist, 64 * 4));
  cubCall([&](void *T, size_t &B) {
    return cub::DeviceHistogram::HistogramEven(T, B, DV, DHist, 65, -100, 100, N);
  });
  std::vector<int> WHist(64, 0);
  for (int V : Vals)
    if (V >= -100 && V < 100)
      ++WHist[(V + 100) * 64 / 200];
  check("DeviceHistogram::HistogramEven", host(DHist, 64), WHist);
  for (void *Ptr : {(void *)DK, (void *)DV, (void *)DUK, (void *)DAgg, (void *)DNum, (void *)DOut, (void *)DCounts,
                    (void *)DHist})
    CHECK(cudaFree(Ptr));
}

void thrustAlgorithms() {
  const int N = 60000;
  auto Keys = randomVector<int>(N, 0, 999), Vals = randomVector<int>(N, -50, 50);
  thrust::device_vector<int> K(Keys.begin(), Keys.end()), V(Vals.begin(), Vals.end());
  thrust::sort_by_key(K.begin(), K.end(), V.begin());
  std::vector<std::pair<int, int>> P(N);
  for (int I = 0; I < N; ++I)
    P[I] = {Keys[I], Vals[I]};
  std::stable_sort(P.begin(), P.end(), [](auto &A, auto &B) { return A.first < B.first; });
  std::vector<int> SK(N), SV(N);
  for (int I = 0; I < N; ++I)
    std::tie(SK[I], SV[I]) = P[I];
  std::vector<int> GotK(N), GotV(N);
  thrust::copy(K.begin(), K.end(), GotK.begin());
  thrust::copy(V.begin(), V.end(), GotV.begin());
  check("thrust::sort_by_key keys", GotK, SK);
  // sort_by_key is not stable for values in general: compare each key's multiset of values.
  std::map<int, std::vector<int>> ByKeyGot, ByKeyWant;
  for (int I = 0; I < N; ++I) {
    ByKeyGot[GotK[I]].push_back(GotV[I]);
    ByKeyWant[SK[I]].push_back(SV[I]);
  }
  int Diff = 0;
  for (auto &[Key, L] : ByKeyWant) {
    auto &G = ByKeyGot[Key];
    std::sort(G.begin(), G.end());
    std::sort(L.begin(), L.end());
    Diff += G != L;
  }
  check("thrust::sort_by_key values per key", std::vector<int>{Diff}, std::vector<int>{0});
  thrust::device_vector<int> OK(N), OV(N);
  auto End = thrust::reduce_by_key(K.begin(), K.end(), V.begin(), OK.begin(), OV.begin());
  int R = int(End.first - OK.begin());
  std::vector<int> WK, WS;
  for (int I = 0; I < N; ++I) {
    if (I == 0 || SK[I] != SK[I - 1]) {
      WK.push_back(SK[I]);
      WS.push_back(0);
    }
    WS.back() += SV[I];
  }
  std::vector<int> GK(R), GS(R);
  thrust::copy(OK.begin(), OK.begin() + R, GK.begin());
  thrust::copy(OV.begin(), OV.begin() + R, GS.begin());
  check("thrust::reduce_by_key keys", GK, WK);
  check("thrust::reduce_by_key sums", GS, WS);
  thrust::device_vector<int> Raw(Vals.begin(), Vals.end());
  long long SumSq = thrust::transform_reduce(Raw.begin(), Raw.end(), Square(), 0LL, thrust::plus<long long>());
  long long WSq = 0;
  for (int X : Vals)
    WSq += static_cast<long long>(X) * X;
  check("thrust::transform_reduce", std::vector<long long>{SumSq}, std::vector<long long>{WSq});
  auto UEnd = thrust::unique(K.begin(), K.end());
  std::vector<int> GU(UEnd - K.begin());
  thrust::copy(K.begin(), UEnd, GU.begin());
  std::vector<int> WU = SK;
  WU.erase(std::unique(WU.begin(), WU.end()), WU.end());
  check("thrust::unique", GU, WU);
  // Set operations over two sorted ranges.
  auto A = randomVector<int>(5000, 0, 9000), B = randomVector<int>(7000, 0, 9000);
  std::sort(A.begin(), A.end());
  std::sort(B.begin(), B.end());
  thrust::device_vector<int> DA(A.begin(), A.end()), DB(B.begin(), B.end()), DO(A.size() + B.size());
  std::vector<int> W;
  auto OEnd = thrust::set_intersection(DA.begin(), DA.end(), DB.begin(), DB.end(), DO.begin());
  std::set_intersection(A.begin(), A.end(), B.begin(), B.end(), std::back_inserter(W));
  std::vector<int> G(OEnd - DO.begin());
  thrust::copy(DO.begin(), OEnd, G.begin());
  check("thrust::set_intersection", G, W);
  W.clear();
  OEnd = thrust::set_union(DA.begin(), DA.end(), DB.begin(), DB.end(), DO.begin());
  std::set_union(A.begin(), A.end(), B.begin(), B.end(), std::back_inserter(W));
  G.assign(OEnd - DO.begin(), 0);
  thrust::copy(DO.begin(), OEnd, G.begin());
  check("thrust::set_union", G, W);
}
} // namespace

int main() {
  radixSorts();
  byKeyAndSelection();
  thrustAlgorithms();
  std::printf("cccl_algorithms: %s\n", Failures ? "FAIL" : "PASS");
  return Failures ? 1 : 0;
}
