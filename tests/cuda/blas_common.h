// Shared by the cuBLAS test programs: a check of cuBLAS statuses.
#pragma once
#include "common.h"
#include <cublas_v2.h>

/// Ends the program with FAIL and the status's name unless \p x succeeded.
#define CB(x)                                                                                      \
  do {                                                                                             \
    cublasStatus_t s_ = (x);                                                                       \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                             \
      std::printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #x, cublasGetStatusName(s_));        \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)
