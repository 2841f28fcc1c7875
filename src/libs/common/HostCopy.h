//===- HostCopy.h - host copies of a library call's arrays ----------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Reading and writing the arrays of the calls that compute on the host
/// right away (cusolverSp, cusolverRf): device memory is host memory on the
/// CPU device; on a GPU it is copied.
#pragma once

#include "libs/common/LibSupport.h"

#include <algorithm>
#include <vector>

namespace zluda::libs {

/// Reads \p N elements at \p P (device memory when \p Device, else host memory). False when a copy fails.
template <typename T> bool fetch(std::vector<T> &Out, const T *P, size_t N, bool Device) {
  Out.resize(N);
  if (!N)
    return true;
  if (!Device || cpuDevice()) {
    std::copy(P, P + N, Out.begin());
    return true;
  }
  return toHost(Out.data(), P, N * sizeof(T)) == CUDA_SUCCESS;
}
/// Writes \p In to \p P (device memory when \p Device, else host memory).
template <typename T> bool store(T *P, const std::vector<T> &In, bool Device) {
  if (In.empty())
    return true;
  if (!Device || cpuDevice()) {
    std::copy(In.begin(), In.end(), P);
    return true;
  }
  return toDevice(P, In.data(), In.size() * sizeof(T)) == CUDA_SUCCESS;
}

} // namespace zluda::libs
