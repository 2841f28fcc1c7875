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
#include <vector>

namespace zluda::libs {

/// Logs once per entry point that \p Name is not implemented (the caller returns its library's status).
void notSupported(const char *Lib, const char *Name);

/// The current context, made current from the primary context of device 0
/// when there is none (as the libraries' handle creation does).
CUresult ensureContext(CUcontext &Out);

/// True when the driver runs on the CPU device.
bool cpuDevice();

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

/// Runs \p Fn in stream order on \p S. \p Keep holds it when \p S is capturing.
CUresult enqueue(CUstream S, std::function<void()> Fn, Retained &Keep);

/// Waits for \p S (the blocking calls: results in host memory).
CUresult wait(CUstream S);

} // namespace zluda::libs
