//===- FakeRocmSmi.cpp - a test rocm-smi with fixed sensor readings -------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The rocm-smi entry points our NVML reads, with rocm_smi.h's units,
/// for two devices: index 0 at a PCI location no HIP device has, index 1 at
/// the test HIP runtime's (bus 0x63, its ROCm 5 form), so that a
/// reading taken from the wrong index shows. Each reading differs per device.
#include <cstdint>
#include <cstring>

namespace {
constexpr int Success = 0, NotSupported = 2, InvalidArgs = 1;
bool Initialized = false;
uint64_t bdf(unsigned Bus) { return (uint64_t(0) << 32) | (Bus << 8) | (0 << 3) | 0; }
struct Frequencies {
  uint32_t NumSupported, Current;
  uint64_t Frequency[32];
};
} // namespace

extern "C" {
int rsmi_init(uint64_t) {
  Initialized = true;
  return Success;
}
int rsmi_shut_down() { return Success; }
int rsmi_num_monitor_devices(uint32_t *N) {
  if (!Initialized || !N)
    return InvalidArgs;
  *N = 2;
  return Success;
}
int rsmi_dev_pci_id_get(uint32_t D, uint64_t *Id) {
  if (D > 1 || !Id)
    return InvalidArgs;
  *Id = D == 0 ? bdf(0x7a) : bdf(0x63); // device 1: the test HIP runtime's bus
  return Success;
}
int rsmi_dev_busy_percent_get(uint32_t D, uint32_t *P) {
  if (D > 1 || !P)
    return InvalidArgs;
  *P = D ? 42 : 99;
  return Success;
}
int rsmi_dev_memory_busy_percent_get(uint32_t D, uint32_t *P) {
  if (D > 1 || !P)
    return InvalidArgs;
  *P = D ? 17 : 98;
  return Success;
}
int rsmi_dev_temp_metric_get(uint32_t D, uint32_t Sensor, int Metric, int64_t *T) {
  if (D > 1 || !T || Metric != 0)
    return InvalidArgs;
  if (Sensor == 0 && D == 1)
    return NotSupported; // no edge sensor on device 1: the junction's reading is used
  *T = D ? 61500 : 99000; // millidegrees
  return Success;
}
int rsmi_dev_power_ave_get(uint32_t D, uint32_t Sensor, uint64_t *P) {
  if (D > 1 || Sensor || !P)
    return InvalidArgs;
  *P = D ? 123456789 : 999000000; // microwatts
  return Success;
}
int rsmi_dev_power_cap_get(uint32_t D, uint32_t Sensor, uint64_t *P) {
  if (D > 1 || Sensor || !P)
    return InvalidArgs;
  *P = D ? 300000000 : 900000000;
  return Success;
}
int rsmi_dev_memory_usage_get(uint32_t D, int Type, uint64_t *Used) {
  if (D > 1 || Type != 0 || !Used)
    return InvalidArgs;
  *Used = D ? (uint64_t(1) << 30) : (uint64_t(3) << 30);
  return Success;
}
int rsmi_dev_gpu_clk_freq_get(uint32_t D, int Type, Frequencies *F) {
  if (D > 1 || !F)
    return InvalidArgs;
  std::memset(F, 0, sizeof *F);
  if (Type == 0) { // system clock: 500, 1200, 2100 MHz, the second current
    F->NumSupported = 3;
    F->Current = 1;
    F->Frequency[0] = 500000000;
    F->Frequency[1] = D ? 1200000000 : 1900000000;
    F->Frequency[2] = 2100000000;
    return Success;
  }
  if (Type == 4) { // memory clock: 96, 1000 MHz, the second current
    F->NumSupported = 2;
    F->Current = 1;
    F->Frequency[0] = 96000000;
    F->Frequency[1] = 1000000000;
    return Success;
  }
  return NotSupported;
}

}
