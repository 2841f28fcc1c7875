//===- NvmlTest.cpp - our libnvidia-ml against the driver it reports on ----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file NVML's view of the devices must be the driver's (cuDeviceGet* read
/// here independently), its live figures within their ranges, this process
/// among the processes, and every error NVML documents where NVML gives it.
#include "zluda/cuda_abi.h"
#include "zluda/nvml_abi.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <cstring>
#include <string>

extern "C" {
CUresult cuInit(unsigned);
CUresult cuDeviceGetCount(int *);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDeviceGetName(char *, int, CUdevice);
CUresult cuDeviceGetUuid_v2(CUuuid *, CUdevice);
CUresult cuDeviceTotalMem_v2(size_t *, CUdevice);
CUresult cuDeviceGetPCIBusId(char *, int, CUdevice);
CUresult cuDriverGetVersion(int *);
nvmlReturn_t nvmlInit_v2();
nvmlReturn_t nvmlShutdown();
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned, nvmlDevice_t *);
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *, nvmlDevice_t *);
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *, nvmlDevice_t *);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t, char *, unsigned);
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t, char *, unsigned);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t, nvmlMemory_t *);
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t, nvmlMemory_v2_t *);
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t, nvmlUtilization_t *);
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned *);
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t, unsigned *);
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t, nvmlClockType_t, unsigned *);
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t, nvmlPciInfo_t *);
nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t, void *);
nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t, nvmlComputeMode_t *);
nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t, int *, int *);
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t, unsigned *, nvmlProcessInfo_t *);
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *);
nvmlReturn_t nvmlSystemGetDriverVersion(char *, unsigned);
const char *nvmlErrorString(nvmlReturn_t);
nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t, unsigned *);
}

namespace {

std::string upper(std::string S) {
  for (char &C : S)
    C = static_cast<char>(std::toupper(static_cast<unsigned char>(C)));
  return S;
}

TEST(Nvml, CallsBeforeInitAreRefused) {
  unsigned N = 7;
  EXPECT_EQ(nvmlDeviceGetCount_v2(&N), NVML_ERROR_UNINITIALIZED);
  EXPECT_EQ(nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
  EXPECT_STREQ(nvmlErrorString(NVML_ERROR_UNINITIALIZED), "Uninitialized");
}

TEST(Nvml, DevicesAreTheDriversDevices) {
  ASSERT_EQ(nvmlInit_v2(), NVML_SUCCESS);
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  int CudaCount = 0;
  ASSERT_EQ(cuDeviceGetCount(&CudaCount), CUDA_SUCCESS);
  unsigned N = 0;
  ASSERT_EQ(nvmlDeviceGetCount_v2(&N), NVML_SUCCESS);
  ASSERT_EQ(N, static_cast<unsigned>(CudaCount));
  ASSERT_GE(N, 1u);
  for (unsigned I = 0; I < N; ++I) {
    CUdevice Dev;
    ASSERT_EQ(cuDeviceGet(&Dev, static_cast<int>(I)), CUDA_SUCCESS);
    nvmlDevice_t H;
    ASSERT_EQ(nvmlDeviceGetHandleByIndex_v2(I, &H), NVML_SUCCESS);
    char Name[NVML_DEVICE_NAME_V2_BUFFER_SIZE], CudaName[256];
    ASSERT_EQ(nvmlDeviceGetName(H, Name, sizeof Name), NVML_SUCCESS);
    cuDeviceGetName(CudaName, sizeof CudaName, Dev);
    EXPECT_STREQ(Name, CudaName);
    char Tiny[4];
    EXPECT_EQ(nvmlDeviceGetName(H, Tiny, sizeof Tiny), NVML_ERROR_INSUFFICIENT_SIZE);
    // The UUID as NVML prints it: GPU- and the 16 bytes in 8-4-4-4-12 groups.
    char Uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    ASSERT_EQ(nvmlDeviceGetUUID(H, Uuid, sizeof Uuid), NVML_SUCCESS);
    CUuuid U;
    cuDeviceGetUuid_v2(&U, Dev);
    std::string Want = "GPU-";
    for (int B = 0; B < 16; ++B) {
      char X[3];
      std::snprintf(X, sizeof X, "%02x", static_cast<unsigned char>(U.bytes[B]));
      Want += X;
      if (B == 3 || B == 5 || B == 7 || B == 9)
        Want += "-";
    }
    EXPECT_EQ(Want, Uuid);
    nvmlDevice_t Again;
    ASSERT_EQ(nvmlDeviceGetHandleByUUID(Uuid, &Again), NVML_SUCCESS);
    EXPECT_EQ(Again, H);
    EXPECT_EQ(nvmlDeviceGetHandleByUUID("GPU-00000000-0000-0000-0000-000000000000", &Again), NVML_ERROR_NOT_FOUND);
    // PCI: the driver's bus id, found back by it.
    char Bus[64];
    ASSERT_EQ(cuDeviceGetPCIBusId(Bus, sizeof Bus, Dev), CUDA_SUCCESS);
    nvmlPciInfo_t Pci;
    ASSERT_EQ(nvmlDeviceGetPciInfo_v3(H, &Pci), NVML_SUCCESS);
    EXPECT_NE(upper(Pci.busId).find(upper(Bus).substr(upper(Bus).find(':'))), std::string::npos) << Pci.busId << " vs " << Bus;
    ASSERT_EQ(nvmlDeviceGetHandleByPciBusId_v2(Pci.busId, &Again), NVML_SUCCESS);
    // The first version fills the old, 36-byte struct only (hashcat declares that one).
    unsigned char Old[64];
    std::memset(Old, 0xa5, sizeof Old);
    ASSERT_EQ(nvmlDeviceGetPciInfo(H, Old), NVML_SUCCESS);
    for (size_t K = 36; K < sizeof Old; ++K)
      EXPECT_EQ(Old[K], 0xa5) << "byte " << K << " past the v1 struct written";
    EXPECT_STREQ(reinterpret_cast<char *>(Old), Pci.busIdLegacy);
    EXPECT_EQ(Again, H);
    // Memory: the driver's total; used + free = total.
    size_t Total = 0;
    cuDeviceTotalMem_v2(&Total, Dev);
    nvmlMemory_t M;
    ASSERT_EQ(nvmlDeviceGetMemoryInfo(H, &M), NVML_SUCCESS);
    EXPECT_EQ(M.total, Total);
    EXPECT_EQ(M.used + M.free, M.total);
    nvmlMemory_v2_t M2 = {};
    EXPECT_EQ(nvmlDeviceGetMemoryInfo_v2(H, &M2), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    M2.version = static_cast<unsigned>(sizeof(nvmlMemory_v2_t)) | (2u << 24);
    ASSERT_EQ(nvmlDeviceGetMemoryInfo_v2(H, &M2), NVML_SUCCESS);
    EXPECT_EQ(M2.total, Total);
    // Live figures: within their ranges, or not supported where the machine has no sensor.
    nvmlUtilization_t Ut;
    ASSERT_EQ(nvmlDeviceGetUtilizationRates(H, &Ut), NVML_SUCCESS);
    EXPECT_LE(Ut.gpu, 100u);
    unsigned V = 0;
    nvmlReturn_t R = nvmlDeviceGetTemperature(H, NVML_TEMPERATURE_GPU, &V);
    EXPECT_TRUE(R == NVML_ERROR_NOT_SUPPORTED || (R == NVML_SUCCESS && V < 150)) << R << " " << V;
    R = nvmlDeviceGetPowerUsage(H, &V);
    EXPECT_TRUE(R == NVML_ERROR_NOT_SUPPORTED || R == NVML_SUCCESS) << R;
    R = nvmlDeviceGetClockInfo(H, NVML_CLOCK_SM, &V);
    EXPECT_TRUE(R == NVML_ERROR_NOT_SUPPORTED || (R == NVML_SUCCESS && V > 100 && V < 10000)) << R << " " << V;
    nvmlComputeMode_t Mode;
    ASSERT_EQ(nvmlDeviceGetComputeMode(H, &Mode), NVML_SUCCESS);
    EXPECT_EQ(Mode, NVML_COMPUTEMODE_DEFAULT);
    int Major = 0, Minor = 0;
    ASSERT_EQ(nvmlDeviceGetCudaComputeCapability(H, &Major, &Minor), NVML_SUCCESS);
    EXPECT_GE(Major, 7);
    // This process has our libcuda mapped: it is among the processes.
    unsigned Count = 0; // asking with no room: the count needed
    EXPECT_EQ(nvmlDeviceGetComputeRunningProcesses_v3(H, &Count, nullptr), NVML_ERROR_INSUFFICIENT_SIZE);
    ASSERT_GE(Count, 1u);
    std::vector<nvmlProcessInfo_t> P(Count + 4);
    Count = static_cast<unsigned>(P.size());
    ASSERT_EQ(nvmlDeviceGetComputeRunningProcesses_v3(H, &Count, P.data()), NVML_SUCCESS);
    bool Me = false;
    for (unsigned K = 0; K < Count; ++K)
      Me |= P[K].pid == static_cast<unsigned>(getpid());
    EXPECT_TRUE(Me);
    EXPECT_EQ(nvmlDeviceGetFanSpeed(H, &V), NVML_ERROR_NOT_SUPPORTED); // no fan: the stub's answer
  }
  nvmlDevice_t H;
  EXPECT_EQ(nvmlDeviceGetHandleByIndex_v2(N, &H), NVML_ERROR_INVALID_ARGUMENT);
  int Cv = 0, Dv = 0;
  ASSERT_EQ(nvmlSystemGetCudaDriverVersion(&Cv), NVML_SUCCESS);
  cuDriverGetVersion(&Dv);
  EXPECT_EQ(Cv, Dv);
  char Ver[80];
  EXPECT_EQ(nvmlSystemGetDriverVersion(Ver, sizeof Ver), NVML_SUCCESS);
  EXPECT_EQ(nvmlShutdown(), NVML_SUCCESS);
}

} // namespace
