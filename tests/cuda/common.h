// Shared by the test programs: error checks that print a verdict.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>
#include <dlfcn.h>

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));         \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

inline int verdict(const char *Name, int Bad) {
  std::printf("%s: %s (%d mismatches)\n", Name, Bad ? "FAIL" : "PASS", Bad);
  return Bad ? 1 : 0;
}

/// A check that counts a failure in the program's `Bad` (a variable in scope) and goes on.
#define EXPECT(c)                                                                                  \
  do {                                                                                             \
    if (!(c)) {                                                                                    \
      std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);                                     \
      ++Bad;                                                                                       \
    }                                                                                              \
  } while (0)

/// A device copy of \p H (a few bytes spare, so an empty vector still gets memory).
template <typename T> T *dev(const std::vector<T> &H) {
  T *D;
  CHECK(cudaMalloc(&D, H.size() * sizeof(T) + 16));
  CHECK(cudaMemcpy(D, H.data(), H.size() * sizeof(T), cudaMemcpyHostToDevice));
  return D;
}
/// \p N elements of device memory, copied to the host.
template <typename T> std::vector<T> host(const T *D, size_t N) {
  std::vector<T> H(N);
  CHECK(cudaMemcpy(H.data(), D, N * sizeof(T), cudaMemcpyDeviceToHost));
  return H;
}

/// True on our libcuda (NVIDIA's has no zludaBackendName): for checks of
/// behaviour NVIDIA's libraries leave undefined (a handle used after destroy).
inline bool onZluda() {
  void *L = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  return L && dlsym(L, "_Z16zludaBackendNamev"); // const char *zludaBackendName()
}
