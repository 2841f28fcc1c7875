//===- NvmlHipTest.cpp - our NVML's live figures of AMD GPUs (rocm-smi) ---===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file On the HIP backend (the test HIP runtime) NVML reads temperature,
/// power, utilization, memory use and clocks from rocm-smi: with the test
/// rocm-smi (tests/fake_rocm_smi) the figures are its readings, converted to
/// NVML's units, from the rocm-smi device at the GPU's PCI location (index
/// 1; index 0's readings differ); without rocm-smi they are NOT_SUPPORTED.
#include "zluda/nvml_abi.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

extern "C" {
nvmlReturn_t nvmlInit_v2();
nvmlReturn_t nvmlShutdown();
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned, nvmlDevice_t *);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t, nvmlMemory_t *);
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t, nvmlUtilization_t *);
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned *);
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t, unsigned *);
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t, unsigned *);
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t, nvmlClockType_t, unsigned *);
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t, nvmlClockType_t, unsigned *);
}

namespace {

bool withRocmSmi() {
  const char *E = std::getenv("ZLUDA_ROCM_SMI_LIBRARY");
  return E && std::strstr(E, "fake");
}

class NvmlHip : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(nvmlInit_v2(), NVML_SUCCESS);
    ASSERT_EQ(nvmlDeviceGetHandleByIndex_v2(0, &Dev), NVML_SUCCESS);
  }
  void TearDown() override { nvmlShutdown(); }
  nvmlDevice_t Dev = nullptr;
};

TEST_F(NvmlHip, LiveFiguresComeFromRocmSmiAtTheSamePciLocation) {
  nvmlMemory_t M{};
  nvmlUtilization_t U{};
  unsigned T = 0, P = 0, Cap = 0, Sm = 0, SmMax = 0, Mem = 0, MemMax = 0, Video = 0;
  nvmlReturn_t Rm = nvmlDeviceGetMemoryInfo(Dev, &M), Ru = nvmlDeviceGetUtilizationRates(Dev, &U),
               Rt = nvmlDeviceGetTemperature(Dev, NVML_TEMPERATURE_GPU, &T), Rp = nvmlDeviceGetPowerUsage(Dev, &P),
               Rc = nvmlDeviceGetEnforcedPowerLimit(Dev, &Cap),
               Rs = nvmlDeviceGetClockInfo(Dev, NVML_CLOCK_SM, &Sm),
               Rsm = nvmlDeviceGetMaxClockInfo(Dev, NVML_CLOCK_GRAPHICS, &SmMax),
               Rmc = nvmlDeviceGetClockInfo(Dev, NVML_CLOCK_MEM, &Mem),
               Rmm = nvmlDeviceGetMaxClockInfo(Dev, NVML_CLOCK_MEM, &MemMax),
               Rv = nvmlDeviceGetClockInfo(Dev, NVML_CLOCK_VIDEO, &Video);
  if (!withRocmSmi()) {
    for (nvmlReturn_t R : {Rm, Ru, Rt, Rp, Rc, Rs, Rsm, Rmc, Rmm, Rv})
      EXPECT_EQ(R, NVML_ERROR_NOT_SUPPORTED);
    return;
  }
  for (nvmlReturn_t R : {Rm, Ru, Rt, Rp, Rc, Rs, Rsm, Rmc, Rmm})
    EXPECT_EQ(R, NVML_SUCCESS);
  EXPECT_EQ(M.used, 1ull << 30);               // bytes
  EXPECT_EQ(M.free, M.total - M.used);
  EXPECT_EQ(U.gpu, 42u);
  EXPECT_EQ(U.memory, 17u);
  EXPECT_EQ(T, 61u);                            // 61500 millidegrees, from the junction sensor (no edge one)
  EXPECT_EQ(P, 123456u);                        // 123456789 microwatts in milliwatts
  EXPECT_EQ(Cap, 300000u);
  EXPECT_EQ(Sm, 1200u);                         // the current level, in MHz
  EXPECT_EQ(SmMax, 2100u);
  EXPECT_EQ(Mem, 1000u);
  EXPECT_EQ(MemMax, 1000u);
  EXPECT_EQ(Rv, NVML_ERROR_NOT_SUPPORTED);      // rocm-smi has no video clock
}

} // namespace
