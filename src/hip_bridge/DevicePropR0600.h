//===- DevicePropR0600.h - ROCm 6's hipDeviceProp_t layout ------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file HIP 5.2's headers (what Debian ships) describe the ROCm 5 layout of
/// hipDeviceProp_t, which ROCm 6 keeps for hipGetDeviceProperties(R0000).
/// ROCm 6's hipGetDevicePropertiesR0600 fills a new layout: CUDA 12's
/// cudaDeviceProp field order (the fields ZLUDA reads are declared by their
/// names; runs of fields it does not read are opaque arrays of the same size),
/// then HIP's own fields, of which gcnArchName comes first. The bridge passes a
/// larger, zeroed buffer so that a runtime with a longer struct cannot write
/// past it.
#ifndef ZLUDA_HIP_BRIDGE_DEVICEPROPR0600_H
#define ZLUDA_HIP_BRIDGE_DEVICEPROPR0600_H

#include <cstddef>

namespace zluda::hip {

struct DevicePropR0600 {
  char name[256];
  char uuid[16];
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  size_t totalConstMem;
  int major, minor;
  size_t textureAlignment, texturePitchAlignment;
  int deviceOverlap;
  int multiProcessorCount;
  int kernelExecTimeoutEnabled;
  int integrated;
  int canMapHostMemory;
  int computeMode;
  /// maxTexture1D .. maxSurfaceCubemapLayered: 40 ints of image limits.
  int imageLimits[40];
  size_t surfaceAlignment;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryClockRate;
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int hostNativeAtomicSupported;
  int singleToDoublePrecisionPerfRatio;
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem;
  int cooperativeLaunch;
  int cooperativeMultiDeviceLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
  /// hostRegisterSupported .. unifiedFunctionPointers (13 ints), then
  /// CUDA's reserved[63] and HIP's hipReserved[32].
  int laterFlags[13];
  int reserved[63];
  int hipReserved[32];
  char gcnArchName[256];
  size_t maxSharedMemoryPerMultiProcessor;
  // clockInstructionRate, arch flags, HDP registers ... (not read).
};

// CUDA 12's cudaDeviceProp is 1032 bytes: the CUDA part of this layout ends
// with its reserved[63]; HIP's fields follow hipReserved[32].
static_assert(offsetof(DevicePropR0600, totalGlobalMem) == 288);
static_assert(offsetof(DevicePropR0600, hipReserved) == 1032);
static_assert(offsetof(DevicePropR0600, gcnArchName) == 1160);

} // namespace zluda::hip

#endif // ZLUDA_HIP_BRIDGE_DEVICEPROPR0600_H
