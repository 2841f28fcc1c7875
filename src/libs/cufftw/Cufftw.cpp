//===- Cufftw.cpp - our libcufftw: the FFTW interface, over FFTW ----------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file cuFFTW is NVIDIA's FFTW-compatible interface (programs written for
/// FFTW, relinked with -lcufftw). Its functions take host memory, so on every
/// backend ours hands each call to FFTW itself: every export of
/// libcufftw.so.12 is a jump through a slot that holds the function of the
/// same name in Debian's libfftw3 / libfftw3f, looked up when the library is
/// loaded (dlopen with RTLD_LOCAL, so our names do not resolve to themselves).
#include "common/Log.h"

#include <dlfcn.h>

// One slot and one jump per export of cufftw.def.
#define LIB_EXPORT(Name)                                                                                               \
  extern "C" {                                                                                                         \
  __attribute__((visibility("hidden"), used)) void *zluda_slot_##Name = nullptr;                                       \
  }                                                                                                                    \
  asm(".text\n.globl " #Name "\n.type " #Name ", @function\n" #Name ":\n\tjmp *zluda_slot_" #Name                     \
      "(%rip)\n.size " #Name ", .-" #Name "\n");
#include "zluda/api/cufftw.def"

namespace {

struct Slot {
  const char *Name;
  void **Ptr;
};
const Slot Slots[] = {
#define LIB_EXPORT(Name) {#Name, &zluda_slot_##Name},
#include "zluda/api/cufftw.def"
};

/// What a slot holds when FFTW lacks the function: plans are null, other
/// calls do nothing (FFTW's own failure value for a planner).
extern "C" void *zluda_cufftw_missing() { return nullptr; }

__attribute__((constructor)) void resolve() {
  void *Double = dlopen("libfftw3.so.3", RTLD_NOW | RTLD_LOCAL);
  void *Single = dlopen("libfftw3f.so.3", RTLD_NOW | RTLD_LOCAL);
  for (const Slot &S : Slots) {
    const bool IsSingle = S.Name[4] == 'f'; // fftwf_...
    void *Lib = IsSingle ? Single : Double;
    void *Fn = Lib ? dlsym(Lib, S.Name) : nullptr;
    if (!Fn) {
      ZLUDA_LOG_WARN("cuFFTW: {} is not in {} (the call returns a null plan)", S.Name,
                     IsSingle ? "libfftw3f.so.3" : "libfftw3.so.3");
      Fn = reinterpret_cast<void *>(&zluda_cufftw_missing);
    }
    *S.Ptr = Fn;
  }
}

} // namespace
