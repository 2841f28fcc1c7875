/*===- nvml_abi.h - the NVML API types our libnvidia-ml implements ---------===*/
/* Part of ZLUDA for C++. Licensed under the Apache License v2.0. */
/** \file Our declarations of the NVML ABI (values and layouts from the NVML
 * API reference, API version 13). NVML's header comes with NVIDIA's driver
 * packages, not the toolkit: tests/abi/NvmlAbiTest.cpp checks these against
 * it where it is installed (run on the H200 machine). */
#ifndef ZLUDA_NVML_ABI_H
#define ZLUDA_NVML_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
  NVML_ERROR_UNKNOWN = 999
} nvmlReturn_t;

typedef struct nvmlDevice_st *nvmlDevice_t;

#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16
typedef struct nvmlPciInfo_st {
  char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;
typedef struct nvmlUtilization_st {
  unsigned int gpu, memory;
} nvmlUtilization_t;
typedef struct nvmlMemory_st {
  unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct nvmlMemory_v2_st {
  unsigned int version; /* (sizeof | 2 << 24) */
  unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;
typedef struct nvmlProcessInfo_v2_st {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;

typedef enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 } nvmlEnableState_t;
typedef enum { NVML_TEMPERATURE_GPU = 0 } nvmlTemperatureSensors_t;
typedef enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_CLOCK_VIDEO = 3 } nvmlClockType_t;
typedef enum { NVML_COMPUTEMODE_DEFAULT = 0, NVML_COMPUTEMODE_PROHIBITED = 2, NVML_COMPUTEMODE_EXCLUSIVE_PROCESS = 3 } nvmlComputeMode_t;
typedef enum { NVML_PSTATE_0 = 0, NVML_PSTATE_UNKNOWN = 32 } nvmlPstates_t;
typedef enum { NVML_BRAND_UNKNOWN = 0 } nvmlBrandType_t;

#define NVML_API_VERSION_ZLUDA 13
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80

#ifdef __cplusplus
}
#endif

#endif /* ZLUDA_NVML_ABI_H */
