//===- LibSupport.cpp - what our math libraries share ----------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "libs/common/LibSupport.h"

#include "common/Log.h"
#include "libs/common/Half.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <thread>
#include <set>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
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

namespace {
/// The workers of parallelFor: each takes the current job (counted active while it holds it), takes its parts
/// one at a time and counts them done; the caller returns when all are done and no worker holds the job.
class Pool {
public:
  Pool() {
    unsigned N = std::max(1u, std::thread::hardware_concurrency()) - 1;
    for (unsigned I = 0; I < N; ++I)
      std::thread([this] { work(); }).detach(); // the pool lives as long as the process
    Workers = N;
  }
  bool run(int64_t Parts, const std::function<void(int64_t)> &Fn) {
    std::unique_lock<std::mutex> Busy(JobMu, std::try_to_lock);
    if (!Busy.owns_lock() || !Workers)
      return false;
    Job J{&Fn, Parts};
    {
      std::lock_guard<std::mutex> G(Mu);
      Current = &J;
      ++Generation;
    }
    Wake.notify_all();
    take(J);
    std::unique_lock<std::mutex> G(Mu);
    Finished.wait(G, [&] { return J.Done == J.Parts && J.Active == 0; });
    Current = nullptr;
    return true;
  }

private:
  struct Job {
    const std::function<void(int64_t)> *Fn;
    int64_t Parts;
    std::atomic<int64_t> Next{0};
    int64_t Done = 0; ///< under Mu
    int Active = 0;   ///< workers holding the job, under Mu
  };
  void take(Job &J) {
    for (int64_t I; (I = J.Next.fetch_add(1)) < J.Parts;) {
      (*J.Fn)(I);
      std::lock_guard<std::mutex> G(Mu);
      if (++J.Done == J.Parts)
        Finished.notify_all();
    }
  }
  void work() {
    uint64_t Seen = 0;
    for (;;) {
      Job *J;
      {
        std::unique_lock<std::mutex> G(Mu);
        Wake.wait(G, [&] { return Generation != Seen && Current; });
        Seen = Generation;
        J = Current;
        ++J->Active;
      }
      take(*J);
      std::lock_guard<std::mutex> G(Mu);
      if (--J->Active == 0 && J->Done == J->Parts)
        Finished.notify_all();
    }
  }
  std::mutex JobMu, Mu;
  std::condition_variable Wake, Finished;
  Job *Current = nullptr;
  uint64_t Generation = 0;
  unsigned Workers = 0;
};
} // namespace

void parallelFor(int64_t Parts, const std::function<void(int64_t)> &Fn) {
  static Pool *P = new Pool; // never destroyed: its threads are detached
  if (Parts <= 1 || !P->run(Parts, Fn))
    for (int64_t I = 0; I < Parts; ++I)
      Fn(I);
}

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

#if defined(__x86_64__)
namespace {
bool hasF16c() {
  static const bool Has = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
  return Has;
}
// Eight at a time through vcvtph2ps / vcvtps2ph (exact widening; rounding to
// nearest even, overflow to infinity, subnormals kept: the scalar functions' results).
__attribute__((target("avx,f16c"))) void halvesToFloatsF16c(const uint16_t *In, float *Out, size_t N) {
  size_t I = 0;
  for (; I + 8 <= N; I += 8) {
    __m128i H;
    std::memcpy(&H, In + I, 16);
    __m256 F = _mm256_cvtph_ps(H);
    std::memcpy(Out + I, &F, 32);
  }
  for (; I < N; ++I)
    Out[I] = halfToFloat(In[I]);
}
__attribute__((target("avx,f16c"))) void floatsToHalvesF16c(const float *In, uint16_t *Out, size_t N) {
  size_t I = 0;
  for (; I + 8 <= N; I += 8) {
    __m256 F;
    std::memcpy(&F, In + I, 32);
    __m128i H = _mm256_cvtps_ph(F, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    std::memcpy(Out + I, &H, 16);
  }
  for (; I < N; ++I)
    Out[I] = floatToHalf(In[I]);
}
} // namespace
#endif

void halvesToFloats(const uint16_t *In, float *Out, size_t N) {
#if defined(__x86_64__)
  if (hasF16c())
    return halvesToFloatsF16c(In, Out, N);
#endif
  for (size_t I = 0; I < N; ++I)
    Out[I] = halfToFloat(In[I]);
}

void floatsToHalves(const float *In, uint16_t *Out, size_t N) {
#if defined(__x86_64__)
  if (hasF16c())
    return floatsToHalvesF16c(In, Out, N);
#endif
  for (size_t I = 0; I < N; ++I)
    Out[I] = floatToHalf(In[I]);
}

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
