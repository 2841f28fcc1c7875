// Stream costs on our libcuda (run with LD_LIBRARY_PATH=build/lib):
// an empty launch followed by a synchronize on an idle stream, and launch
// throughput into one stream and into eight. Prints a table.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

__global__ void empty() {}

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::printf("error %s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));               \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

using Clock = std::chrono::steady_clock;
static double since(Clock::time_point T) { return std::chrono::duration<double>(Clock::now() - T).count(); }

int main() {
  cudaStream_t S[8];
  for (auto &X : S)
    CHECK(cudaStreamCreateWithFlags(&X, cudaStreamNonBlocking));
  empty<<<1, 1, 0, S[0]>>>(); // compile and warm up
  CHECK(cudaDeviceSynchronize());

  std::vector<double> Us;
  for (int Rep = 0; Rep < 20000; ++Rep) {
    auto T = Clock::now();
    empty<<<1, 1, 0, S[0]>>>();
    CHECK(cudaStreamSynchronize(S[0]));
    Us.push_back(since(T) * 1e6);
  }
  std::sort(Us.begin(), Us.end());

  const int N = 200000;
  auto T = Clock::now();
  for (int I = 0; I < N; ++I)
    empty<<<1, 1, 0, S[0]>>>();
  CHECK(cudaStreamSynchronize(S[0]));
  double One = N / since(T);

  T = Clock::now();
  for (int I = 0; I < N; ++I)
    empty<<<1, 1, 0, S[I % 8]>>>();
  CHECK(cudaDeviceSynchronize());
  double Eight = N / since(T);

  std::printf("| measure | value |\n|---|---|\n");
  std::printf("| empty launch + stream synchronize, idle stream (median us) | %.2f |\n", Us[Us.size() / 2]);
  std::printf("| same, 99th percentile (us) | %.2f |\n", Us[Us.size() * 99 / 100]);
  std::printf("| launches/s into one stream (%d launches, then one synchronize) | %.0f |\n", N, One);
  std::printf("| launches/s round-robin into 8 streams | %.0f |\n", Eight);
  for (auto &X : S)
    CHECK(cudaStreamDestroy(X));
  return 0;
}
