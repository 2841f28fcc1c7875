//===- LowMemory.h - memory a 32-bit address reaches -----------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Modules with `.address_size 32` hold addresses in 32-bit registers,
/// so everything their kernels touch must lie below 4 GiB: device memory,
/// module variables, shared memory and thread stacks. The CPU device takes
/// them from one region reserved at [2 GiB, 4 GiB) when the process starts
/// using it (address space only, pages appear when touched). Device memory
/// comes from here while it lasts for every program (it costs nothing), so a
/// 32-bit kernel can be handed any allocation made before its module loaded.
///
/// Threading: thread-safe.
#ifndef ZLUDA_CPU_LOWMEMORY_H
#define ZLUDA_CPU_LOWMEMORY_H

#include <cstddef>
#include <cstdint>

namespace zluda::cpu {

class LowMemory {
public:
  static LowMemory &get();
  /// \p Size bytes aligned to \p Align (a power of two, at most 4096), or
  /// null when the region is full or could not be reserved.
  void *allocate(size_t Size, size_t Align = 256);
  /// Gives back a block of allocate(); its pages are returned to the system.
  void release(void *P);
  bool owns(const void *P) const;
  /// Whether the region exists (the address space was free).
  bool available() const { return Base != nullptr; }
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer's shadow memory starts at 0x7fff8000: below it only.
  static constexpr uintptr_t RegionStart = uintptr_t(1) << 30, RegionEnd = uintptr_t(0x7fff0000);
#else
  static constexpr uintptr_t RegionStart = uintptr_t(2) << 30, RegionEnd = uintptr_t(4) << 30;
#endif

private:
  LowMemory();
  char *Base = nullptr;
  size_t Size = 0;
  struct Impl;
  Impl *I;
};

} // namespace zluda::cpu

#endif // ZLUDA_CPU_LOWMEMORY_H
