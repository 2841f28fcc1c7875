// Driver-API test programs: our own minimal declarations are not used here;
// these programs are ordinary CUDA programs built against the toolkit's cuda.h.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda.h>

#define DRV(x)                                                                                     \
  do {                                                                                             \
    CUresult r_ = (x);                                                                             \
    if (r_ != CUDA_SUCCESS) {                                                                      \
      const char *s_ = nullptr;                                                                    \
      cuGetErrorName(r_, &s_);                                                                     \
      std::printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #x, s_ ? s_ : "?");                   \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

inline int verdict(const char *Name, int Bad) {
  std::printf("%s: %s (%d mismatches)\n", Name, Bad ? "FAIL" : "PASS", Bad);
  return Bad ? 1 : 0;
}

/// A check that counts a failure in the program's own `Bad` and goes on.
#define EXPECT(c)                                                                                  \
  do {                                                                                             \
    if (!(c)) {                                                                                    \
      std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);                                     \
      ++Bad;                                                                                       \
    }                                                                                              \
  } while (0)
