/*===- cufft_abi.h - the cuFFT API types our libcufft implements ----------===*/
/* Part of ZLUDA for C++. Licensed under the Apache License v2.0. */
/** \file Our own declarations of the cuFFT ABI (values from the cuFFT
 * reference), checked against NVIDIA's cufft.h by tests/abi/CufftAbiTest.cpp. */
#ifndef ZLUDA_CUFFT_ABI_H
#define ZLUDA_CUFFT_ABI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CUFFT_SUCCESS = 0x0,
  CUFFT_INVALID_PLAN = 0x1,
  CUFFT_ALLOC_FAILED = 0x2,
  CUFFT_INVALID_TYPE = 0x3,
  CUFFT_INVALID_VALUE = 0x4,
  CUFFT_INTERNAL_ERROR = 0x5,
  CUFFT_EXEC_FAILED = 0x6,
  CUFFT_SETUP_FAILED = 0x7,
  CUFFT_INVALID_SIZE = 0x8,
  CUFFT_UNALIGNED_DATA = 0x9,
  CUFFT_INVALID_DEVICE = 0xB,
  CUFFT_NO_WORKSPACE = 0xD,
  CUFFT_NOT_IMPLEMENTED = 0xE,
  CUFFT_NOT_SUPPORTED = 0x10,
  CUFFT_MISSING_DEPENDENCY = 0x11,
  CUFFT_NVRTC_FAILURE = 0x12,
  CUFFT_NVJITLINK_FAILURE = 0x13,
  CUFFT_NVSHMEM_FAILURE = 0x14
} cufftResult;

typedef enum {
  CUFFT_R2C = 0x2a,
  CUFFT_C2R = 0x2c,
  CUFFT_C2C = 0x29,
  CUFFT_D2Z = 0x6a,
  CUFFT_Z2D = 0x6c,
  CUFFT_Z2Z = 0x69
} cufftType;

#define ZLUDA_CUFFT_FORWARD (-1)
#define ZLUDA_CUFFT_INVERSE 1

typedef int cufftHandle;

typedef enum {
  NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT = 0x1,
  NVFFT_PLAN_PROPERTY_INT64_MAX_NUM_HOST_THREADS = 0x2
} cufftProperty;

/* Single- and multi-GPU data descriptors (cufftXtMalloc): the layout of the
 * CUDA library descriptor programs read (`desc->descriptor->data[0]`). */
#define ZLUDA_MAX_CUDA_DESCRIPTOR_GPUS 64
#define ZLUDA_CUDA_XT_DESCRIPTOR_VERSION 0x01000000
typedef struct cudaXtDesc_t {
  int version;
  int nGPUs;
  int GPUs[ZLUDA_MAX_CUDA_DESCRIPTOR_GPUS];
  void *data[ZLUDA_MAX_CUDA_DESCRIPTOR_GPUS];
  size_t size[ZLUDA_MAX_CUDA_DESCRIPTOR_GPUS];
  void *cudaXtState;
} cudaXtDesc;
typedef struct cudaLibXtDesc_t {
  int version;
  cudaXtDesc *descriptor;
  int library; /* LIB_FORMAT_CUFFT = 0 */
  int subFormat;
  void *libDescriptor;
} cudaLibXtDesc;
typedef enum {
  CUFFT_COPY_HOST_TO_DEVICE = 0x00,
  CUFFT_COPY_DEVICE_TO_HOST = 0x01,
  CUFFT_COPY_DEVICE_TO_DEVICE = 0x02,
  CUFFT_COPY_UNDEFINED = 0x03
} cufftXtCopyType;

#ifdef __cplusplus
}
#endif
#endif
