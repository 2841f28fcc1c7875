// Shared by the cuDNN test programs: the status check, and comparisons that
// count failures (each run reports every check, then PASS or FAIL).
#pragma once
#include "libs_common.h"

#include <cudnn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#define DN(x) ZLUDA_LIB_CHECK(x, CUDNN_STATUS_SUCCESS, "%s", cudnnGetErrorString)

static int Failures = 0;

/// Every Got within Tol of Want, relative to max(1, |Want|); NaN never passes.
template <typename G>
static void expectClose(const char *What, const std::vector<double> &Want, const std::vector<G> &Got, double Tol) {
  double Worst = 0;
  size_t At = 0;
  for (size_t I = 0; I < Want.size(); ++I) {
    double E = std::fabs(Want[I] - double(Got[I])) / std::max(1.0, std::fabs(Want[I]));
    if (!(E <= Worst) || std::isnan(double(Got[I]))) {
      Worst = std::isnan(double(Got[I])) ? INFINITY : E;
      At = I;
    }
  }
  if (Worst > Tol) {
    std::printf("FAIL %s: element %zu want %.12g got %.12g (error %.3g > %.3g)\n", What, At, Want[At], double(Got[At]),
                Worst, Tol);
    ++Failures;
  } else {
    std::printf("ok   %s (max error %.3g)\n", What, Worst);
  }
}
