// Thrust and CUB templates: sort, reduce, scan.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <numeric>
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/util_allocator.cuh>
#include <cub/block/block_reduce.cuh>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>

__global__ void blockSum(const int *in, int *out) {
  using BR = cub::BlockReduce<int, 128>;
  __shared__ typename BR::TempStorage tmp;
  int v = in[blockIdx.x * 128 + threadIdx.x];
  int s = BR(tmp).Sum(v);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

// CUB's radix sort with its temporary storage from the stream's pool, the
// last frees queued and the program gone before they run: it must still
// exit cleanly (the backend was destroyed under the stream's runner, which
// corrupted the heap). A child process runs it, forked before CUDA starts.
static int exitWithFreesQueued() {
  std::fflush(stdout);
  pid_t P = fork();
  if (P == 0) {
    cudaStream_t S;
    cudaStreamCreate(&S);
    const int N = 1 << 14;
    std::vector<unsigned> H(N);
    for (int I = 0; I < N; ++I)
      H[I] = I * 2654435761u;
    unsigned *In, *Out;
    void *Tmp;
    size_t Bytes = 0;
    cudaMallocAsync(&In, N * 4, S);
    cudaMallocAsync(&Out, N * 4, S);
    cudaMemcpyAsync(In, H.data(), N * 4, cudaMemcpyHostToDevice, S);
    cub::DeviceRadixSort::SortKeys(nullptr, Bytes, In, Out, N, 0, 32, S);
    cudaMallocAsync(&Tmp, Bytes, S);
    cub::DeviceRadixSort::SortKeys(Tmp, Bytes, In, Out, N, 0, 32, S);
    cudaStreamSynchronize(S);
    cudaFreeAsync(Tmp, S);
    cudaFreeAsync(In, S);
    cudaFreeAsync(Out, S);
    std::exit(0);
  }
  int Status = 0;
  waitpid(P, &Status, 0);
  if (WIFEXITED(Status) && WEXITSTATUS(Status) == 0)
    return 0;
  std::printf("FAIL: a program that exited with frees queued ended with status 0x%x\n", Status);
  return 1;
}

// Radix sorts of growing size, every buffer from CUB's caching allocator (its
// bins end at 8^7 = 2 MiB, so from 512k keys on the buffers bypass the cache
// and are cudaMalloc'ed and cudaFree'd each time, the ready events recorded and
// destroyed), then the same with plain cudaMalloc/cudaFree of the temporary
// storage between sorts: a program doing so was reported to get
// cudaErrorInvalidValue at 512k keys after a run of smaller sorts.
static int growingSorts() {
  cub::CachingDeviceAllocator Alloc;
  int Bad = 0;
  unsigned Seed = 7;
  for (int Pass = 0; Pass < 2; ++Pass)
    for (int N = Pass == 0 ? 1000 : 1 << 17; N <= (Pass == 0 ? 1 << 21 : 1 << 20); N = N < 1024 ? 1024 : N * 2) {
      {
        int M = Pass == 0 ? N : N + N / 2 + 3;
        std::vector<unsigned> H(M);
        for (auto &X : H) { Seed = Seed * 1664525u + 1013904223u; X = Seed; }
        void *In = nullptr, *Out = nullptr, *Tmp = nullptr;
        size_t Bytes = 0;
        cudaError_t E = Alloc.DeviceAllocate(&In, M * 4);
        if (E == cudaSuccess) E = Alloc.DeviceAllocate(&Out, M * 4);
        if (E == cudaSuccess) E = cudaMemcpy(In, H.data(), M * 4, cudaMemcpyHostToDevice);
        if (E == cudaSuccess)
          E = cub::DeviceRadixSort::SortKeys(nullptr, Bytes, (unsigned *)In, (unsigned *)Out, M, 0, 32, nullptr);
        if (E == cudaSuccess) E = Pass == 0 ? Alloc.DeviceAllocate(&Tmp, Bytes) : cudaMalloc(&Tmp, Bytes);
        if (E == cudaSuccess)
          E = cub::DeviceRadixSort::SortKeys(Tmp, Bytes, (unsigned *)In, (unsigned *)Out, M, 0, 32, nullptr);
        if (E == cudaSuccess) E = Pass == 0 ? Alloc.DeviceFree(Tmp) : cudaFree(Tmp);
        std::vector<unsigned> Got(M);
        if (E == cudaSuccess) E = cudaMemcpy(Got.data(), Out, M * 4, cudaMemcpyDeviceToHost);
        if (E == cudaSuccess) E = Alloc.DeviceFree(In);
        if (E == cudaSuccess) E = Alloc.DeviceFree(Out);
        std::sort(H.begin(), H.end());
        if (E != cudaSuccess || Got != H) {
          std::printf("FAIL: growing sorts (%s), %d keys: %s%s\n", Pass ? "cudaMalloc'ed temporaries" : "caching allocator",
                      M, cudaGetErrorString(E), E == cudaSuccess ? ", wrong order" : "");
          ++Bad;
          (void)cudaGetLastError();
        }
      }
    }
  return Bad;
}

int main() {
  int queued = exitWithFreesQueued();
  const int n = 4096;
  std::vector<int> h(n);
  unsigned s = 99;
  for (auto &x : h) { s = s * 1664525u + 1013904223u; x = (int)(s >> 8) % 1000; }
  thrust::device_vector<int> d(h.begin(), h.end());
  thrust::sort(d.begin(), d.end());
  long long sum = thrust::reduce(d.begin(), d.end(), 0LL);
  thrust::inclusive_scan(d.begin(), d.end(), d.begin());
  std::vector<int> sorted = h;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> scan(n);
  std::partial_sum(sorted.begin(), sorted.end(), scan.begin());
  std::vector<int> got(n);
  thrust::copy(d.begin(), d.end(), got.begin());
  int bad = got != scan;
  bad += sum != std::accumulate(h.begin(), h.end(), 0LL);
  bad += queued;
  bad += growingSorts();
  std::printf("thrust_cub: %s\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
