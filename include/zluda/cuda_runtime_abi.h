//===- cuda_runtime_abi.h - our declarations of the CUDA Runtime API ABI ---===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The Runtime API types libcudart.so.13 implements, written from the
/// Runtime API reference; tests/abi checks them against the toolkit's
/// driver_types.h / vector_types.h where installed.
#ifndef ZLUDA_CUDA_RUNTIME_ABI_H
#define ZLUDA_CUDA_RUNTIME_ABI_H

#include "zluda/cuda_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef ZLUDA_ABI_ENUM(cudaError) {
#define CUDART_ERROR(Name, Value, Description) Name = Value,
#include "zluda/api/runtime_errors.def"
} cudaError_t;

typedef struct dim3 {
  unsigned int x, y, z;
} dim3;
typedef struct uint3 {
  unsigned int x, y, z;
} uint3;

typedef CUstream cudaStream_t;
typedef CUevent cudaEvent_t;
typedef CUkernel cudaKernel_t;
typedef CUmemoryPool cudaMemPool_t;
typedef unsigned long long cudaTextureObject_t;
typedef CUipcMemHandle cudaIpcMemHandle_t;   /* the same 64 bytes */
typedef CUipcEventHandle cudaIpcEventHandle_t;
typedef void (*cudaHostFn_t)(void *userData);
typedef void (*cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void *userData);

typedef ZLUDA_ABI_ENUM(cudaMemcpyKind) {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
} cudaMemcpyKind;

typedef ZLUDA_ABI_ENUM(cudaMemoryType) {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3
} cudaMemoryType;

typedef struct cudaPointerAttributes {
  cudaMemoryType type;
  int device;
  void *devicePointer;
  void *hostPointer;
  long reserved[8];
} cudaPointerAttributes;

typedef struct cudaFuncAttributes {
  size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
  int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA;
  int maxDynamicSharedSizeBytes, preferredShmemCarveout, clusterDimMustBeSet;
  int requiredClusterWidth, requiredClusterHeight, requiredClusterDepth;
  int clusterSchedulingPolicyPreference, nonPortableClusterSizeAllowed;
  int reserved[16];
} cudaFuncAttributes;

typedef struct cudaExtent {
  size_t width, height, depth;
} cudaExtent;
typedef struct cudaPos {
  size_t x, y, z;
} cudaPos;
typedef struct cudaPitchedPtr {
  void *ptr;
  size_t pitch, xsize, ysize;
} cudaPitchedPtr;
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;
typedef const struct cudaMipmappedArray *cudaMipmappedArray_const_t;
typedef unsigned long long cudaSurfaceObject_t;
typedef struct cudaMemcpy3DParms {
  cudaArray_t srcArray;
  cudaPos srcPos;
  cudaPitchedPtr srcPtr;
  cudaArray_t dstArray;
  cudaPos dstPos;
  cudaPitchedPtr dstPtr;
  cudaExtent extent;
  cudaMemcpyKind kind;
} cudaMemcpy3DParms;

typedef ZLUDA_ABI_ENUM(cudaChannelFormatKind) {
  cudaChannelFormatKindSigned = 0,
  cudaChannelFormatKindUnsigned = 1,
  cudaChannelFormatKindFloat = 2,
  cudaChannelFormatKindNone = 3,
  cudaChannelFormatKindNV12 = 4,
  /* 5..16: normalized 8- and 16-bit integers, 1, 2 or 4 channels (unsigned, then signed) */
  cudaChannelFormatKindUnsignedNormalized8X1 = 5,
  cudaChannelFormatKindSignedNormalized16X4 = 16,
  /* 17..30: the block-compressed formats in the driver's order (BC1 0x91 ... BC7 sRGB 0x9e) */
  cudaChannelFormatKindUnsignedBlockCompressed1 = 17,
  cudaChannelFormatKindUnsignedBlockCompressed7SRGB = 30,
  cudaChannelFormatKindUnsignedNormalized1010102 = 31
} cudaChannelFormatKind;
typedef struct cudaChannelFormatDesc {
  int x, y, z, w;
  cudaChannelFormatKind f;
} cudaChannelFormatDesc;

typedef ZLUDA_ABI_ENUM(cudaResourceType) {
  cudaResourceTypeArray = 0,
  cudaResourceTypeMipmappedArray = 1,
  cudaResourceTypeLinear = 2,
  cudaResourceTypePitch2D = 3
} cudaResourceType;
typedef struct cudaResourceDesc {
  cudaResourceType resType;
  union {
    struct {
      cudaArray_t array;
    } array;
    struct {
      void *mipmap;
    } mipmap;
    struct {
      void *devPtr;
      cudaChannelFormatDesc desc;
      size_t sizeInBytes;
    } linear;
    struct {
      void *devPtr;
      cudaChannelFormatDesc desc;
      size_t width, height, pitchInBytes;
    } pitch2D;
    struct {
      int reserved[32];
    } reserved;
  } res;
  unsigned int flags;
} cudaResourceDesc;
typedef struct cudaTextureDesc {
  int addressMode[3];
  int filterMode;
  int readMode; ///< 0 element type, 1 normalized float
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  int mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int seamlessCubemap;
} cudaTextureDesc;

typedef struct cudaLaunchAttribute_st {
  int id;
  char pad[8 - sizeof(int)];
  union {
    char pad[64];
    int cooperative;
    int priority;
    struct {
      unsigned int x, y, z;
    } clusterDim;
  } val;
} cudaLaunchAttribute;
typedef struct cudaLaunchConfig_st {
  dim3 gridDim;
  dim3 blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute *attrs;
  unsigned int numAttrs;
} cudaLaunchConfig_t;

typedef struct cudaMemLocation {
  int type;
  int id;
} cudaMemLocation;

typedef struct CUuuid_st cudaUUID_t;

typedef struct cudaKernelNodeParams {
  void *func;
  dim3 gridDim, blockDim;
  unsigned int sharedMemBytes;
  void **kernelParams;
  void **extra;
} cudaKernelNodeParams;
typedef struct cudaMemsetParams {
  void *dst;
  size_t pitch;
  unsigned int value, elementSize;
  size_t width, height;
} cudaMemsetParams;
typedef struct cudaHostNodeParams {
  cudaHostFn_t fn;
  void *userData;
} cudaHostNodeParams;

typedef struct cudaDeviceProp {
  char name[256];
  cudaUUID_t uuid;
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
  size_t totalConstMem;
  int major, minor;
  size_t textureAlignment, texturePitchAlignment;
  int multiProcessorCount;
  int integrated;
  int canMapHostMemory;
  int maxTexture1D, maxTexture1DMipmap;
  int maxTexture2D[2], maxTexture2DMipmap[2], maxTexture2DLinear[3], maxTexture2DGather[2];
  int maxTexture3D[3], maxTexture3DAlt[3];
  int maxTextureCubemap;
  int maxTexture1DLayered[2], maxTexture2DLayered[3], maxTextureCubemapLayered[2];
  int maxSurface1D, maxSurface2D[2], maxSurface3D[3];
  int maxSurface1DLayered[2], maxSurface2DLayered[3];
  int maxSurfaceCubemap, maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, pciDomainID, tccDriver;
  int asyncEngineCount, unifiedAddressing, memoryBusWidth, l2CacheSize, persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor, streamPrioritiesSupported, globalL1CacheSupported, localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor, managedMemory, isMultiGpuBoard, multiGpuBoardGroupID;
  int hostNativeAtomicSupported, pageableMemoryAccess, concurrentManagedAccess, computePreemptionSupported;
  int canUseHostPointerForRegisteredMem, cooperativeLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables, directManagedMemAccessFromHost, maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
  int hostRegisterSupported, sparseCudaArraySupported, hostRegisterReadOnlySupported;
  int timelineSemaphoreInteropSupported, memoryPoolsSupported, gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes;
  int deferredMappingCudaArraySupported, ipcEventSupported, clusterLaunch, unifiedFunctionPointers;
  int deviceNumaConfig, deviceNumaId, mpsEnabled, hostNumaId;
  unsigned int gpuPciDeviceID, gpuPciSubsystemID;
  int hostNumaMultinodeIpcSupported;
  int reserved[56];
} cudaDeviceProp;

#define CUDART_VERSION_ZLUDA 13000

#ifdef __cplusplus
}
#endif

#endif // ZLUDA_CUDA_RUNTIME_ABI_H
