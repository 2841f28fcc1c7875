//===- Integrity.h - the runtime's integrity check (export table d4082055) -===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file MD2 (RFC 1319), HMAC-MD2 (RFC 2104 with MD2's 16-byte block) and the
/// message layout of the check NVIDIA's CUDA 13 runtime performs at start
/// (documented in shared/docs/CUDART-INTEROP.md).
#ifndef ZLUDA_DRIVER_INTEGRITY_H
#define ZLUDA_DRIVER_INTEGRITY_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace zluda::driver {

std::array<uint8_t, 16> md2(const uint8_t *Data, size_t Size);
std::array<uint8_t, 16> hmacMd2(const uint8_t *Key, size_t KeySize, const uint8_t *Msg, size_t MsgSize);

struct IntegrityDevice {
  uint8_t Uuid[16];
  uint32_t PciDomain, PciBus, PciDevice;
};

struct IntegrityInput {
  uint32_t DriverVersion, RuntimeVersion, Pid, ThreadId;
  uint64_t Table6bd5, TableD408, CheckFn, UnixTime;
  std::vector<IntegrityDevice> Devices;
};

/// The 16 bytes the check writes to its output buffer.
std::array<uint8_t, 16> integrityResult(const IntegrityInput &In);

} // namespace zluda::driver

#endif
