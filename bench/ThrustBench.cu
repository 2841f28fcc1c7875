// Thrust sort and CUB scan on the CPU device beside the C++ standard library
// on the host (one thread). Usage: LD_LIBRARY_PATH=build/lib build/bin/thrust_bench
// Median and best of 5 runs after a warm-up; results checked.
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <cub/device/device_scan.cuh>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <numeric>
#include <vector>

static void measure(const char *Name, double Items, const std::function<void()> &Dev, const std::function<void()> &Host) {
  auto time = [](const std::function<void()> &F) {
    auto A = std::chrono::steady_clock::now();
    F();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - A).count();
  };
  std::vector<double> D, H;
  Dev();
  Host();
  for (int R = 0; R < 5; ++R) {
    D.push_back(time(Dev));
    H.push_back(time(Host));
  }
  std::sort(D.begin(), D.end());
  std::sort(H.begin(), H.end());
  std::printf("| %s | %.1f (%.1f) | %.1f (%.1f) | %.2fx |\n", Name, Items / D[2] / 1e6, Items / D[0] / 1e6,
              Items / H[2] / 1e6, Items / H[0] / 1e6, H[2] / D[2]);
}

int main() {
  const int N = 4 << 20;
  std::vector<unsigned> h(N);
  unsigned s = 5;
  for (unsigned &x : h) { s = s * 1664525u + 1013904223u; x = s ^ (s >> 11); }
  int bad = 0;
  std::printf("| operation | CPU device, M items/s median (best) | host std::, 1 thread, median (best) | device vs host |\n|---|---|---|---|\n");
  {
    thrust::device_vector<unsigned> d(N);
    std::vector<unsigned> w(N);
    measure("thrust::sort, 4M u32 keys", N, [&] {
      thrust::copy(h.begin(), h.end(), d.begin());
      thrust::sort(d.begin(), d.end());
      cudaDeviceSynchronize();
    }, [&] { w = h; std::sort(w.begin(), w.end()); });
    std::vector<unsigned> got(N);
    thrust::copy(d.begin(), d.end(), got.begin());
    bad += got != w;
  }
  {
    unsigned *in, *out;
    cudaMalloc(&in, N * 4);
    cudaMalloc(&out, N * 4);
    cudaMemcpy(in, h.data(), N * 4, cudaMemcpyHostToDevice);
    size_t tmpBytes = 0;
    cub::DeviceScan::InclusiveSum(nullptr, tmpBytes, in, out, N);
    void *tmp;
    cudaMalloc(&tmp, tmpBytes);
    std::vector<unsigned> w(N);
    measure("cub::DeviceScan::InclusiveSum, 4M u32", N, [&] {
      cub::DeviceScan::InclusiveSum(tmp, tmpBytes, in, out, N);
      cudaDeviceSynchronize();
    }, [&] { std::inclusive_scan(h.begin(), h.end(), w.begin()); });
    std::vector<unsigned> got(N);
    cudaMemcpy(got.data(), out, N * 4, cudaMemcpyDeviceToHost);
    bad += got != w;
  }
  if (bad)
    std::printf("wrong results\n");
  return bad;
}
