//===- LibSupport.cpp - what our math libraries share ----------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "libs/common/LibSupport.h"

#include "common/Log.h"

#include <cstring>
#include <set>
#include <string>

const char *zludaBackendName(); // src/driver/Driver.cpp

extern "C" {
CUresult cuInit(unsigned);
CUresult cuCtxGetCurrent(CUcontext *);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuLaunchHostFunc(CUstream, CUhostFn, void *);
CUresult cuStreamIsCapturing(CUstream, int *);
CUresult cuStreamSynchronize(CUstream);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
}

namespace zluda::libs {

void notSupported(const char *Lib, const char *Name) {
  static std::mutex Mu;
  static std::set<std::string> Seen;
  ZLUDA_LOG_TRACE("{}(...) -> not supported", Name);
  std::lock_guard<std::mutex> G(Mu);
  if (Seen.insert(Name).second)
    ZLUDA_LOG_WARN("{} is not supported by ZLUDA's {} yet (returns NOT_SUPPORTED)", Name, Lib);
}

CUresult ensureContext(CUcontext &Out) {
  if (CUresult R = cuInit(0))
    return R;
  if (CUresult R = cuCtxGetCurrent(&Out))
    return R;
  if (Out)
    return CUDA_SUCCESS;
  if (CUresult R = cuDevicePrimaryCtxRetain(&Out, 0))
    return R;
  return cuCtxSetCurrent(Out);
}

bool cpuDevice() { return std::strcmp(zludaBackendName(), "cpu") == 0; }

namespace {
void runOnce(void *P) {
  auto *F = static_cast<std::function<void()> *>(P);
  (*F)();
  delete F;
}
void runKept(void *P) { (*static_cast<std::function<void()> *>(P))(); }
} // namespace

CUresult enqueue(CUstream S, std::function<void()> Fn, Retained &Keep) {
  int Capturing = 0;
  if (CUresult R = cuStreamIsCapturing(S, &Capturing))
    return R;
  if (Capturing) {
    auto F = std::make_shared<std::function<void()>>(std::move(Fn));
    Keep.keep(F);
    return cuLaunchHostFunc(S, runKept, F.get());
  }
  auto *F = new std::function<void()>(std::move(Fn));
  CUresult R = cuLaunchHostFunc(S, runOnce, F);
  if (R)
    delete F;
  return R;
}

CUresult wait(CUstream S) { return cuStreamSynchronize(S); }

CUresult toHost(void *Host, const void *Dev, size_t Bytes) {
  return cuMemcpyDtoH_v2(Host, reinterpret_cast<CUdeviceptr>(Dev), Bytes);
}
CUresult toDevice(void *Dev, const void *Host, size_t Bytes) {
  return cuMemcpyHtoD_v2(reinterpret_cast<CUdeviceptr>(Dev), Host, Bytes);
}

} // namespace zluda::libs
