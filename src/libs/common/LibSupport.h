//===- LibSupport.h - what our math libraries share ------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Stream-ordered execution, context set-up and logging for the math
/// libraries (libcublas...). A library call is a stream operation: its work
/// is a closure that runs in stream order with the kernels around it (on the
/// CPU device, a host function of the stream: device memory is host memory).
#pragma once

#include "zluda/cuda_abi.h"

#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>
#include <vector>

namespace zluda::libs {

/// Logs once per entry point that \p Name is not implemented (the caller returns its library's status).
void notSupported(const char *Lib, const char *Name);

/// The current context, made current from the primary context of device 0
/// when there is none (as the libraries' handle creation does).
CUresult ensureContext(CUcontext &Out);

/// True when the driver runs on the CPU device.
bool cpuDevice();

/// Runs Fn(0) ... Fn(Parts - 1) on a pool of threads kept for the process (one per core, the caller among them)
/// and returns when all are done. Small batched operations use it: starting threads per call costs more than
/// their work. A second caller while the pool is busy runs its parts on its own thread.
void parallelFor(int64_t Parts, const std::function<void(int64_t)> &Fn);

/// Closures a stream capture recorded: a captured host function may run at
/// every launch of the graph, which may outlive the library handle that made
/// it, so these closures are kept for the process's life (they are small: the
/// description of one call).
class Retained {
public:
  void keep(std::shared_ptr<std::function<void()>> F) {
    static std::mutex Mu;
    static auto *Kept = new std::vector<std::shared_ptr<std::function<void()>>>; // never freed: graphs may run late
    std::lock_guard<std::mutex> G(Mu);
    Kept->push_back(std::move(F));
  }
};

/// The live objects of one type a library handed out (handles, descriptors),
/// so that a stale or foreign pointer gets the library's error code, not a
/// crash. One set per type: a descriptor of another kind is not found.
template <typename T> class Live {
public:
  static T *add(T *P) {
    std::lock_guard<std::mutex> G(mu());
    set().insert(P);
    return P;
  }
  static T *find(const void *P) {
    std::lock_guard<std::mutex> G(mu());
    return set().count(P) ? static_cast<T *>(const_cast<void *>(P)) : nullptr;
  }
  /// Forgets and deletes \p P; false when it is not live.
  static bool destroy(const void *P) {
    {
      std::lock_guard<std::mutex> G(mu());
      if (!set().erase(P))
        return false;
    }
    delete static_cast<T *>(const_cast<void *>(P));
    return true;
  }

private:
  static std::mutex &mu() {
    static std::mutex M;
    return M;
  }
  static std::set<const void *> &set() {
    static auto *S = new std::set<const void *>; // never freed: calls may come during exit
    return *S;
  }
};

/// Runs \p Fn in stream order on \p S. \p Keep holds it when \p S is capturing.
CUresult enqueue(CUstream S, std::function<void()> Fn, Retained &Keep);

/// Waits for \p S (the blocking calls: results in host memory).
CUresult wait(CUstream S);

/// Copies between device and host memory (synchronous).
CUresult toHost(void *Host, const void *Dev, size_t Bytes);
CUresult toDevice(void *Dev, const void *Host, size_t Bytes);

/// One array argument of a staged call: \p Count elements at device address
/// \p Dev (null passes through), read by the call (In) and/or written (Out).
template <typename T> struct Arg {
  T *Dev;
  size_t Count;
  bool In, Out;
};
template <typename T> Arg<T> in(const T *P, size_t N) { return {const_cast<T *>(P), N, true, false}; }
template <typename T> Arg<T> out(T *P, size_t N) { return {P, N, false, true}; }
template <typename T> Arg<T> inout(T *P, size_t N) { return {P, N, true, true}; }

namespace detail {
template <typename T> struct Staged {
  Arg<T> A;
  std::vector<T> Host;
  CUresult load() {
    if (!A.Dev)
      return CUDA_SUCCESS;
    Host.resize(A.Count ? A.Count : 1);
    return A.In && A.Count ? toHost(Host.data(), A.Dev, A.Count * sizeof(T)) : CUDA_SUCCESS;
  }
  T *ptr() { return A.Dev ? Host.data() : nullptr; }
  CUresult store() { return A.Dev && A.Out && A.Count ? toDevice(A.Dev, Host.data(), A.Count * sizeof(T)) : CUDA_SUCCESS; }
};
} // namespace detail

/// Runs Fn(arrays...) on the arrays of a library call in stream order. On the
/// CPU device device memory is host memory: Fn runs on it as a host function
/// of \p S. On a GPU the call waits for \p S, copies the In arrays to the
/// host, runs Fn there and copies the Out arrays back (the libraries without
/// an AMD library of their own, e.g. cuSOLVER on Debian 12's ROCm).
template <typename F, typename... T> CUresult runStaged(CUstream S, Retained &Keep, F Fn, Arg<T>... Args) {
  if (cpuDevice())
    return enqueue(S, [=] { Fn(Args.Dev...); }, Keep);
  if (CUresult R = wait(S))
    return R;
  std::tuple<detail::Staged<T>...> St{detail::Staged<T>{Args, {}}...};
  CUresult R = std::apply([](auto &...X) {
    CUresult E = CUDA_SUCCESS;
    ((E = E ? E : X.load()), ...);
    return E;
  }, St);
  if (R)
    return R;
  std::apply([&](auto &...X) { Fn(X.ptr()...); }, St);
  return std::apply([](auto &...X) {
    CUresult E = CUDA_SUCCESS;
    ((E = E ? E : X.store()), ...);
    return E;
  }, St);
}

} // namespace zluda::libs
