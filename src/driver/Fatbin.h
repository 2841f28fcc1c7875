//===- Fatbin.h - CUDA fat binary containers ----------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Parses the fat binaries nvcc embeds (layout in
/// shared/docs/CUDART-INTEROP.md): container header, entries, zstd and LZ4
/// payloads. Bounds-checked: every offset is validated against the size the
/// caller vouches for, so malformed input gives an error, never a crash.
#ifndef ZLUDA_DRIVER_FATBIN_H
#define ZLUDA_DRIVER_FATBIN_H

#include <cstdint>
#include <string>
#include <vector>

namespace zluda::driver {

constexpr uint32_t FatbinMagic = 0xBA55ED50;
constexpr uint32_t FatbinWrapperMagic = 0x466243b1;

struct FatbinEntry {
  uint16_t Kind = 0; ///< 1 PTX, 2 ELF (SASS)
  uint32_t SmArch = 0;
  uint32_t PtxVersion = 0; ///< major<<16 | minor
  uint64_t Flags = 0;
  std::string Payload; ///< decompressed
};

struct FatbinResult {
  std::vector<FatbinEntry> Entries;
  std::string Error;
  bool ok() const { return Error.empty(); }
};

/// Copies up to \p Size bytes from \p Src (memory the program vouches for)
/// to \p Dst and returns how many were readable: the copy stops at the first
/// unmapped or unreadable byte instead of faulting.
size_t copyReadable(const void *Src, void *Dst, size_t Size);

/// A readable copy of the container at \p Data (memory the program vouches
/// for): its header's size must be possible and all of it readable. False
/// with \p Error saying which check failed.
bool copyContainer(const void *Data, std::string &Out, std::string &Error);

/// Parses one container at \p Data; \p Available is how many bytes may be read.
FatbinResult parseFatbin(const uint8_t *Data, uint64_t Available);

/// Size of the container at \p Data from its header (0 if not a container).
uint64_t fatbinContainerSize(const uint8_t *Data);

/// The best PTX for a device of compute capability \p Sm (e.g. 86): the
/// highest arch <= Sm, else the lowest above it. Null when there is none.
const FatbinEntry *choosePtx(const FatbinResult &F, uint32_t Sm);

/// The machine code the SASS front end lifts for a device of compute
/// capability \p Sm: the highest sm_75..sm_90 cubin not above Sm, else the
/// lowest above it. Null when there is none.
const FatbinEntry *chooseSass(const FatbinResult &F, uint32_t Sm);

} // namespace zluda::driver

#endif
