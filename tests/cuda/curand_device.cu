// cuRAND on a device: generators writing device memory in stream order, and
// the device API (curand_kernel.h, compiled into this program's PTX) against
// our host generator: lane t of XORWOW/MRG32k3a/Philox is curand_init(seed,
// t, 0), so both must give the same numbers. Poisson distributions made by
// curandCreatePoissonDistribution are read by kernels.
#include "libs_common.h"
#include <curand.h>
#include <curand_kernel.h>

#include <cmath>
#include <cstring>


static int Bad = 0;

template <typename State> __global__ void draw(unsigned long long Seed, unsigned *Out, int PerThread, int Threads) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  if (T >= Threads)
    return;
  State S;
  curand_init(Seed, T, 0, &S);
  for (int K = 0; K < PerThread; ++K)
    Out[K * Threads + T] = curand(&S);
}

__global__ void drawPhilox4(unsigned long long Seed, uint4 *Out, int PerThread, int Threads) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  if (T >= Threads)
    return;
  curandStatePhilox4_32_10_t S;
  curand_init(Seed, T, 0, &S);
  for (int K = 0; K < PerThread; ++K)
    Out[K * Threads + T] = curand4(&S);
}

__global__ void poisson(unsigned long long Seed, curandDiscreteDistribution_t D, unsigned *Out, int PerThread) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t S;
  curand_init(Seed, T, 0, &S);
  for (int K = 0; K < PerThread; ++K)
    Out[T * PerThread + K] = curand_discrete(&S, D);
}

__global__ void scale(float *X, int N, float F) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    X[I] *= F;
}

/// The device API's lanes against the host generator's order.
template <typename State> static void lanes(curandRngType_t Type, int Threads, const char *Name) {
  const unsigned long long Seed = 0x1234567ull;
  const int Per = 3;
  unsigned *D;
  CHECK(cudaMalloc(&D, sizeof(unsigned) * Threads * Per));
  draw<State><<<(Threads + 255) / 256, 256>>>(Seed, D, Per, Threads);
  CHECK(cudaGetLastError());
  auto Dev = host(D, size_t(Threads) * Per);
  curandGenerator_t G;
  CR(curandCreateGeneratorHost(&G, Type));
  CR(curandSetPseudoRandomGeneratorSeed(G, Seed));
  std::vector<unsigned> H(size_t(Threads) * Per);
  CR(curandGenerate(G, H.data(), H.size()));
  curandDestroyGenerator(G);
  int Diff = 0;
  for (size_t I = 0; I < H.size(); ++I)
    Diff += H[I] != Dev[I];
  if (Diff) {
    std::printf("FAIL %s: %d of %zu device-API values differ from the host generator's\n", Name, Diff, H.size());
    ++Bad;
  }
  cudaFree(D);
}

int main() {
  lanes<curandStateXORWOW_t>(CURAND_RNG_PSEUDO_XORWOW, 4096, "XORWOW");
  lanes<curandStateMRG32k3a_t>(CURAND_RNG_PSEUDO_MRG32K3A, 81920, "MRG32k3a");
  {
    // Philox: lane t's counter k is group k * 65536 + t of the host order.
    const int Threads = 65536, Per = 2;
    uint4 *D;
    CHECK(cudaMalloc(&D, sizeof(uint4) * Threads * Per));
    drawPhilox4<<<Threads / 256, 256>>>(77, D, Per, Threads);
    auto Dev = host(reinterpret_cast<unsigned *>(D), size_t(Threads) * Per * 4);
    curandGenerator_t G;
    CR(curandCreateGeneratorHost(&G, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CR(curandSetPseudoRandomGeneratorSeed(G, 77));
    std::vector<unsigned> H(Dev.size());
    CR(curandGenerate(G, H.data(), H.size()));
    curandDestroyGenerator(G);
    EXPECT(H == Dev);
    cudaFree(D);
  }
  for (auto [Type, N] : {std::pair{CURAND_RNG_PSEUDO_XORWOW, 100000}, std::pair{CURAND_RNG_PSEUDO_MT19937, 20000}}) {
    // A device generator in stream order between two kernels: uniform
    // values, then scaled by a kernel; the same as the host generator's.
    cudaStream_t S;
    CHECK(cudaStreamCreate(&S));
    float *D;
    CHECK(cudaMalloc(&D, N * sizeof(float)));
    curandGenerator_t G;
    CR(curandCreateGenerator(&G, Type));
    CR(curandSetStream(G, S));
    CR(curandSetPseudoRandomGeneratorSeed(G, 9));
    CR(curandGenerateUniform(G, D, N));
    scale<<<(N + 255) / 256, 256, 0, S>>>(D, N, 2.0f);
    CR(curandGenerateUniform(G, D, N / 2)); // the next values, over the first half
    std::vector<float> Got(N);
    CHECK(cudaMemcpyAsync(Got.data(), D, N * sizeof(float), cudaMemcpyDeviceToHost, S));
    CHECK(cudaStreamSynchronize(S));
    curandGenerator_t H;
    CR(curandCreateGeneratorHost(&H, Type));
    CR(curandSetPseudoRandomGeneratorSeed(H, 9));
    std::vector<float> A(N), B(N / 2);
    CR(curandGenerateUniform(H, A.data(), N));
    CR(curandGenerateUniform(H, B.data(), N / 2));
    int Diff = 0;
    for (int I = 0; I < N; ++I)
      Diff += Got[I] != (I < N / 2 ? B[I] : A[I] * 2.0f);
    EXPECT(Diff == 0);
    for (float X : A)
      EXPECT(X > 0.0f && X <= 1.0f);
    curandDestroyGenerator(G);
    curandDestroyGenerator(H);
    cudaStreamDestroy(S);
    cudaFree(D);
  }
  for (double Lambda : {3.5, 150.0, 5000.0}) {
    // curandCreatePoissonDistribution read by the device API.
    curandDiscreteDistribution_t Dist;
    CR(curandCreatePoissonDistribution(Lambda, &Dist));
    const int Threads = 1024, Per = 64;
    unsigned *D;
    CHECK(cudaMalloc(&D, sizeof(unsigned) * Threads * Per));
    poisson<<<Threads / 128, 128>>>(5, Dist, D, Per);
    CHECK(cudaGetLastError());
    auto V = host(D, size_t(Threads) * Per);
    double M = 0, Var = 0;
    for (unsigned X : V)
      M += X;
    M /= V.size();
    for (unsigned X : V)
      Var += (X - M) * (X - M);
    Var /= V.size() - 1;
    if (std::fabs(M - Lambda) > 6 * std::sqrt(Lambda / V.size()) || std::fabs(Var / Lambda - 1) > 0.05) {
      std::printf("FAIL Poisson(%g): mean %g variance %g\n", Lambda, M, Var);
      ++Bad;
    }
    CR(curandDestroyDistribution(Dist));
    cudaFree(D);
  }
  return verdict("curand_device", Bad);
}
