// Shared by the test programs: error checks that print a verdict.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

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
