//===- FakeHip.h - what the test HIP runtime recorded ----------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file libzluda_fake_hip.so stands in for libamdhip64 in tests of the
/// driver's HIP backend on machines without an AMD GPU. It exports the HIP
/// functions the bridge loads, keeps "device" memory in host memory (so
/// copies and memsets are real), validates code objects it is given (an
/// AMDGPU ELF, kernels and variables looked up in its symbol table), runs
/// stream work at once, and records what it was asked. Kernels are not
/// executed: a launch is recorded with its kernarg bytes.
///
/// Tests reach the record through these functions (dlsym on the library
/// the driver loaded: dlopen of the same path returns the same instance).
#ifndef ZLUDA_TESTS_FAKE_HIP_H
#define ZLUDA_TESTS_FAKE_HIP_H

#include <cstddef>
#include <cstdint>

extern "C" {

struct FakeHipLaunch {
  char Kernel[128];
  unsigned Grid[3], Block[3];
  unsigned Shared;
  void *Stream;
  unsigned char Kernarg[512];
  size_t KernargSize;
};

struct FakeHipCodeObject {
  uint16_t Machine;   ///< e_machine (EM_AMDGPU = 224)
  uint8_t OsAbi;      ///< ELFOSABI_AMDGPU_HSA = 64
  uint8_t AbiVersion; ///< code object version - 2
  uint32_t Flags;     ///< e_flags: EF_AMDGPU_MACH and the xnack/sramecc feature bits
  size_t Size;
};

/// Launches since the last reset (at most 64 kept), newest last.
int fakeHipLaunchCount();
const FakeHipLaunch *fakeHipLaunch(int I);
/// Code objects hipModuleLoadData was given.
int fakeHipModuleCount();
const FakeHipCodeObject *fakeHipModule(int I);
/// Calls of one HIP function by name ("hipMalloc", "hipMemcpyAsync" ...).
int fakeHipCalls(const char *Name);
/// Bytes hipMalloc/hipMallocManaged/hipHostMalloc handed out and not freed.
size_t fakeHipLiveBytes();
/// The next hipDeviceSynchronize/hipStreamSynchronize/hipEventSynchronize/
/// hipMemcpy reports this error (a kernel's fault), once.
void fakeHipFailNextSync(int HipError);
void fakeHipReset();
/// What the fake GPU says of itself (it differs between the two builds).
const char *fakeHipDeviceName();
int fakeHipComputeUnits();
int fakeHipPciBus();
}

#endif // ZLUDA_TESTS_FAKE_HIP_H
