//===- Memcheck.h - checked memory accesses on the CPU device --------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file `zluda run --memcheck` / ZLUDA_MEMCHECK=1: kernels are compiled with
/// a call before every global, generic, shared, local and constant access
/// (ptx::LoweringOptions::Memcheck) to __zluda_memcheck, which checks it
/// against what the access may touch: the block's shared window, the thread's
/// stack, and the allocations the driver registers here (device, host,
/// managed and mapped memory, module variables, device-side malloc). A bad
/// access is reported as compute-sanitizer's memcheck reports it (kernel, PTX
/// line, block, thread, address, the nearest allocation, or the freed one it
/// falls in) and ends the launch with CUDA_ERROR_ILLEGAL_ADDRESS, or
/// CUDA_ERROR_MISALIGNED_ADDRESS for an access off its natural alignment.
#ifndef ZLUDA_CPU_MEMCHECK_H
#define ZLUDA_CPU_MEMCHECK_H

#include "cpu/DeviceAbi.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace zluda::cpu::memcheck {

/// ZLUDA_MEMCHECK=1 (read once).
bool enabled();

/// Registers [P, P + Size) as memory kernels may access; \p What names it in
/// reports ("device allocation", "module variable 'x'"...). No-ops unless enabled().
void track(const void *P, size_t Size, std::string What);
/// The allocation at \p P is gone: later accesses report a use after free.
void untrack(const void *P);

/// The errors reported so far in this process.
uint64_t errors();

/// Checks one access (what the compiled kernels call). On a bad access it
/// reports, then returns the executor's unwind code: 0 when the access is good.
int check(const ZludaThreadCtx *C, const char *P, uint64_t Bytes, uint32_t Access, uint32_t Line, const char *Fn);

} // namespace zluda::cpu::memcheck

#endif // ZLUDA_CPU_MEMCHECK_H
