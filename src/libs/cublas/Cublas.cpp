//===- Cublas.cpp - cuBLAS handles, modes, versions, vector/matrix copies --===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "libs/cublas/Cublas.h"
#include "libs/common/Handles.h"

#include "common/Log.h"

#include <cstdio>
#include <mutex>

extern "C" {
CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *);
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *, CUstream);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuCtxGetDevice(CUdevice *);
CUresult cuDeviceGetAttribute(int *, CUdevice_attribute, CUdevice);
}

namespace zluda::cublas {
namespace {
/// cuBLAS's answers to the handle calls (libs/common/Handles.h).
constexpr libs::HandleStatus<cublasStatus_t> HandleStatuses{CUBLAS_STATUS_SUCCESS, CUBLAS_STATUS_NOT_INITIALIZED,
                                                            CUBLAS_STATUS_INVALID_VALUE, CUBLAS_STATUS_NOT_INITIALIZED};
} // namespace

Handle *handleOf(cublasHandle_t H) { return libs::Live<Handle>::find(H); }

Backend *backend() {
  if (libs::cpuDevice()) {
    static Backend *Cpu = makeCpuBackend();
    return Cpu;
  }
  static Backend *Roc = makeRocBackend();
  return Roc;
}

namespace {
/// A 2D copy of Rows x Cols elements (column-major, leading dimensions in
/// elements) between host and device memory, synchronous or on a stream.
cublasStatus_t copyMatrix(int64_t Rows, int64_t Cols, int64_t Elem, const void *Src, int64_t Lds, void *Dst,
                          int64_t Ldd, bool ToDevice, CUstream S, bool Async) {
  // Leading dimensions below the rows are not refused here: the copy fails
  // (CUBLAS_STATUS_MAPPING_ERROR, as NVIDIA's library answers).
  if (Rows < 0 || Cols < 0 || Elem <= 0 || Lds <= 0 || Ldd <= 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (Rows == 0 || Cols == 0)
    return CUBLAS_STATUS_SUCCESS;
  CUcontext Ctx;
  if (libs::ensureContext(Ctx))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  CUDA_MEMCPY2D P = {};
  P.srcMemoryType = ToDevice ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
  P.dstMemoryType = ToDevice ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
  if (ToDevice) {
    P.srcHost = Src;
    P.dstDevice = reinterpret_cast<CUdeviceptr>(Dst);
  } else {
    P.srcDevice = reinterpret_cast<CUdeviceptr>(Src);
    P.dstHost = Dst;
  }
  P.srcPitch = static_cast<size_t>(Lds * Elem);
  P.dstPitch = static_cast<size_t>(Ldd * Elem);
  P.WidthInBytes = static_cast<size_t>(Rows * Elem);
  P.Height = static_cast<size_t>(Cols);
  CUresult R = Async ? cuMemcpy2DAsync_v2(&P, S) : cuMemcpy2D_v2(&P);
  return R ? CUBLAS_STATUS_MAPPING_ERROR : CUBLAS_STATUS_SUCCESS;
}
/// A vector copy: N elements Inc apart (a matrix of one-element rows).
cublasStatus_t copyVector(int64_t N, int64_t Elem, const void *Src, int64_t IncS, void *Dst, int64_t IncD,
                          bool ToDevice, CUstream S, bool Async) {
  if (N < 0 || Elem <= 0 || IncS <= 0 || IncD <= 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  return copyMatrix(1, N, Elem, Src, IncS, Dst, IncD, ToDevice, S, Async);
}
} // namespace
} // namespace zluda::cublas

using namespace zluda::cublas;
namespace libs = zluda::libs;

// --- handles and their modes ------------------------------------------------------------

CUBLAS_API cublasStatus_t cublasCreate_v2(cublasHandle_t *Out) {
  return libs::createHandle<Handle>(Out, HandleStatuses, [] {
    if (backend())
      return CUBLAS_STATUS_SUCCESS;
    libs::notSupported("cuBLAS", "cublasCreate_v2 on AMD GPUs without rocBLAS (ZLUDA_ROCBLAS_LIBRARY)");
    return CUBLAS_STATUS_NOT_SUPPORTED;
  });
}
CUBLAS_API cublasStatus_t cublasDestroy_v2(cublasHandle_t Handle_) {
  Handle *H = handleOf(Handle_);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  libs::wait(H->Stream); // work of the handle may still reference its closures
  return libs::destroyObject<Handle>(H, CUBLAS_STATUS_SUCCESS, CUBLAS_STATUS_NOT_INITIALIZED);
}

#define HANDLE_OR_FAIL(Name)                                                                                           \
  Handle *H = handleOf(Name);                                                                                          \
  if (!H)                                                                                                              \
    return CUBLAS_STATUS_NOT_INITIALIZED;

CUBLAS_API cublasStatus_t cublasSetStream_v2(cublasHandle_t Hd, CUstream S) {
  return libs::setHandleStream<Handle>(Hd, S, HandleStatuses);
}
CUBLAS_API cublasStatus_t cublasGetStream_v2(cublasHandle_t Hd, CUstream *S) {
  return libs::getHandleStream<Handle>(Hd, S, HandleStatuses);
}
CUBLAS_API cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t Hd, cublasPointerMode_t M) {
  return libs::setHandleField(Hd, &Handle::PointerMode, M, HandleStatuses,
                              [](auto M) { return M == CUBLAS_POINTER_MODE_HOST || M == CUBLAS_POINTER_MODE_DEVICE; });
}
CUBLAS_API cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t Hd, cublasPointerMode_t *M) {
  return libs::getHandleField(Hd, &Handle::PointerMode, M, HandleStatuses);
}
CUBLAS_API cublasStatus_t cublasSetAtomicsMode(cublasHandle_t Hd, cublasAtomicsMode_t M) {
  return libs::setHandleField(Hd, &Handle::Atomics, M, HandleStatuses,
                              [](auto M) { return M == CUBLAS_ATOMICS_NOT_ALLOWED || M == CUBLAS_ATOMICS_ALLOWED; });
}
CUBLAS_API cublasStatus_t cublasGetAtomicsMode(cublasHandle_t Hd, cublasAtomicsMode_t *M) {
  return libs::getHandleField(Hd, &Handle::Atomics, M, HandleStatuses);
}
CUBLAS_API cublasStatus_t cublasSetMathMode(cublasHandle_t Hd, cublasMath_t M) {
  HANDLE_OR_FAIL(Hd);
  unsigned Base = M & 0xf;
  if (Base > CUBLAS_TF32_TENSOR_OP_MATH || (M & ~0x1fu))
    return CUBLAS_STATUS_INVALID_VALUE;
  H->Math = M;
  return CUBLAS_STATUS_SUCCESS;
}
CUBLAS_API cublasStatus_t cublasGetMathMode(cublasHandle_t Hd, cublasMath_t *M) {
  return libs::getHandleField(Hd, &Handle::Math, M, HandleStatuses);
}
// The SM count target (0: all; at most the device's multiprocessors) and the emulation controls (strategy 0-2,
// mantissa control 0-1, a maximum mantissa bit count >= 0), checked as an H200's cuBLAS checks them.
CUBLAS_API cublasStatus_t cublasSetSmCountTarget(cublasHandle_t Hd, int Count) {
  HANDLE_OR_FAIL(Hd);
  int Sms = 0;
  CUdevice D;
  if (Count < 0 || cuCtxGetDevice(&D) || cuDeviceGetAttribute(&Sms, 16 /* multiprocessor count */, D) ||
      Count > Sms)
    return CUBLAS_STATUS_INVALID_VALUE;
  H->SmCountTarget = Count;
  return CUBLAS_STATUS_SUCCESS;
}
#define HANDLE_SETTING(Name, Field, Type, Valid)                                                                       \
  CUBLAS_API cublasStatus_t cublasSet##Name(cublasHandle_t Hd, Type V) {                                               \
    return libs::setHandleField(Hd, &Handle::Field, V, HandleStatuses, [](Type V) { return Valid; });                  \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasGet##Name(cublasHandle_t Hd, Type *V) {                                              \
    return libs::getHandleField(Hd, &Handle::Field, V, HandleStatuses);                                                \
  }
HANDLE_SETTING(EmulationStrategy, EmulationStrategy, int, V >= 0 && V <= 2)
HANDLE_SETTING(EmulationSpecialValuesSupport, EmulationSpecialValues, int, true)
HANDLE_SETTING(FixedPointEmulationMantissaControl, MantissaControl, int, V == 0 || V == 1)
HANDLE_SETTING(FixedPointEmulationMaxMantissaBitCount, MaxMantissaBits, int, V >= 0)
HANDLE_SETTING(FixedPointEmulationMantissaBitOffset, MantissaBitOffset, int, true)
HANDLE_SETTING(FixedPointEmulationMantissaBitCountPointer, MantissaBitCountPtr, int *, true)
CUBLAS_API cublasStatus_t cublasGetSmCountTarget(cublasHandle_t Hd, int *Count) {
  return libs::getHandleField(Hd, &Handle::SmCountTarget, Count, HandleStatuses);
}
/// cublas.h's error reporter for an argument check (routines call it with their name and the argument's number).
CUBLAS_API void cublasXerbla(const char *Name, int Info) {
  ZLUDA_LOG_ERROR("cuBLAS: on entry to {} parameter number {} had an illegal value", Name ? Name : "?", Info);
}
CUBLAS_API cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t Hd, void *W, size_t Bytes) {
  HANDLE_OR_FAIL(Hd);
  if (Bytes && !W)
    return CUBLAS_STATUS_INVALID_VALUE;
  H->Workspace = W; // the CPU backend needs none
  H->WorkspaceBytes = Bytes;
  return CUBLAS_STATUS_SUCCESS;
}

// --- versions and status ------------------------------------------------------------------

// NVIDIA's answers without looking at the handle (JAX asks with a null one and falls back to the CPU otherwise).
CUBLAS_API cublasStatus_t cublasGetVersion_v2(cublasHandle_t, int *V) {
  if (!V)
    return CUBLAS_STATUS_INVALID_VALUE;
  *V = ZLUDA_CUBLAS_VERSION_MAJOR * 10000 + ZLUDA_CUBLAS_VERSION_MINOR * 100 + ZLUDA_CUBLAS_VERSION_PATCH;
  return CUBLAS_STATUS_SUCCESS;
}
CUBLAS_API cublasStatus_t cublasGetVersion(int *V) {
  if (!V)
    return CUBLAS_STATUS_INVALID_VALUE;
  *V = ZLUDA_CUBLAS_VERSION_MAJOR * 10000 + ZLUDA_CUBLAS_VERSION_MINOR * 100 + ZLUDA_CUBLAS_VERSION_PATCH;
  return CUBLAS_STATUS_SUCCESS;
}
CUBLAS_API cublasStatus_t cublasGetProperty(libraryPropertyType T, int *V) {
  if (!V)
    return CUBLAS_STATUS_INVALID_VALUE;
  switch (T) {
  case MAJOR_VERSION: *V = ZLUDA_CUBLAS_VERSION_MAJOR; return CUBLAS_STATUS_SUCCESS;
  case MINOR_VERSION: *V = ZLUDA_CUBLAS_VERSION_MINOR; return CUBLAS_STATUS_SUCCESS;
  case PATCH_LEVEL: *V = ZLUDA_CUBLAS_VERSION_PATCH; return CUBLAS_STATUS_SUCCESS;
  }
  return CUBLAS_STATUS_INVALID_VALUE;
}
CUBLAS_API size_t cublasGetCudartVersion() { return 13000; }

CUBLAS_API const char *cublasGetStatusName(cublasStatus_t S) {
  switch (S) {
#define NAME(X)                                                                                                        \
  case X: return #X;
    NAME(CUBLAS_STATUS_SUCCESS)
    NAME(CUBLAS_STATUS_NOT_INITIALIZED)
    NAME(CUBLAS_STATUS_ALLOC_FAILED)
    NAME(CUBLAS_STATUS_INVALID_VALUE)
    NAME(CUBLAS_STATUS_ARCH_MISMATCH)
    NAME(CUBLAS_STATUS_MAPPING_ERROR)
    NAME(CUBLAS_STATUS_EXECUTION_FAILED)
    NAME(CUBLAS_STATUS_INTERNAL_ERROR)
    NAME(CUBLAS_STATUS_NOT_SUPPORTED)
    NAME(CUBLAS_STATUS_LICENSE_ERROR)
#undef NAME
  }
  return "CUBLAS_STATUS_UNKNOWN";
}
CUBLAS_API const char *cublasGetStatusString(cublasStatus_t S) {
  switch (S) {
  case CUBLAS_STATUS_SUCCESS: return "success";
  case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
  case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
  case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
  case CUBLAS_STATUS_ARCH_MISMATCH: return "the device does not support the requested feature";
  case CUBLAS_STATUS_MAPPING_ERROR: return "an access to device memory failed";
  case CUBLAS_STATUS_EXECUTION_FAILED: return "the work failed to run on the device";
  case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal operation failed";
  case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
  case CUBLAS_STATUS_LICENSE_ERROR: return "license error";
  }
  return "unknown error";
}

// --- the logger: configuration kept; calls go to ZLUDA_LOG (docs/ENVIRONMENT.md) --------------

namespace {
cublasLogCallback LogCallback = nullptr;
}
CUBLAS_API cublasStatus_t cublasLoggerConfigure(int On, int ToStdOut, int ToStdErr, const char *File) {
  ZLUDA_LOG_DEBUG("cublasLoggerConfigure(on={}, stdout={}, stderr={}, file={}): cuBLAS's own log is not written; "
                  "ZLUDA_LOG=trace shows every call",
                  On, ToStdOut, ToStdErr, File ? File : "-");
  return CUBLAS_STATUS_SUCCESS;
}
CUBLAS_API cublasStatus_t cublasSetLoggerCallback(cublasLogCallback F) {
  LogCallback = F;
  return CUBLAS_STATUS_SUCCESS;
}
CUBLAS_API cublasStatus_t cublasGetLoggerCallback(cublasLogCallback *F) {
  if (!F)
    return CUBLAS_STATUS_INVALID_VALUE;
  *F = LogCallback;
  return CUBLAS_STATUS_SUCCESS;
}

// --- vectors and matrices between host and device ------------------------------------------------

CUBLAS_API cublasStatus_t cublasSetVector(int N, int Elem, const void *X, int IncX, void *Y, int IncY) {
  return copyVector(N, Elem, X, IncX, Y, IncY, true, nullptr, false);
}
CUBLAS_API cublasStatus_t cublasGetVector(int N, int Elem, const void *X, int IncX, void *Y, int IncY) {
  return copyVector(N, Elem, X, IncX, Y, IncY, false, nullptr, false);
}
CUBLAS_API cublasStatus_t cublasSetMatrix(int Rows, int Cols, int Elem, const void *A, int Lda, void *B, int Ldb) {
  return copyMatrix(Rows, Cols, Elem, A, Lda, B, Ldb, true, nullptr, false);
}
CUBLAS_API cublasStatus_t cublasGetMatrix(int Rows, int Cols, int Elem, const void *A, int Lda, void *B, int Ldb) {
  return copyMatrix(Rows, Cols, Elem, A, Lda, B, Ldb, false, nullptr, false);
}
CUBLAS_API cublasStatus_t cublasSetVectorAsync(int N, int Elem, const void *X, int IncX, void *Y, int IncY, CUstream S) {
  return copyVector(N, Elem, X, IncX, Y, IncY, true, S, true);
}
CUBLAS_API cublasStatus_t cublasGetVectorAsync(int N, int Elem, const void *X, int IncX, void *Y, int IncY, CUstream S) {
  return copyVector(N, Elem, X, IncX, Y, IncY, false, S, true);
}
CUBLAS_API cublasStatus_t cublasSetMatrixAsync(int Rows, int Cols, int Elem, const void *A, int Lda, void *B, int Ldb,
                                               CUstream S) {
  return copyMatrix(Rows, Cols, Elem, A, Lda, B, Ldb, true, S, true);
}
CUBLAS_API cublasStatus_t cublasGetMatrixAsync(int Rows, int Cols, int Elem, const void *A, int Lda, void *B, int Ldb,
                                               CUstream S) {
  return copyMatrix(Rows, Cols, Elem, A, Lda, B, Ldb, false, S, true);
}
// The _64 forms.
CUBLAS_API cublasStatus_t cublasSetVector_64(int64_t N, int64_t Elem, const void *X, int64_t IncX, void *Y,
                                             int64_t IncY) {
  return copyVector(N, Elem, X, IncX, Y, IncY, true, nullptr, false);
}
CUBLAS_API cublasStatus_t cublasGetVector_64(int64_t N, int64_t Elem, const void *X, int64_t IncX, void *Y,
                                             int64_t IncY) {
  return copyVector(N, Elem, X, IncX, Y, IncY, false, nullptr, false);
}
CUBLAS_API cublasStatus_t cublasSetMatrix_64(int64_t Rows, int64_t Cols, int64_t Elem, const void *A, int64_t Lda,
                                             void *B, int64_t Ldb) {
  return copyMatrix(Rows, Cols, Elem, A, Lda, B, Ldb, true, nullptr, false);
}
CUBLAS_API cublasStatus_t cublasGetMatrix_64(int64_t Rows, int64_t Cols, int64_t Elem, const void *A, int64_t Lda,
                                             void *B, int64_t Ldb) {
  return copyMatrix(Rows, Cols, Elem, A, Lda, B, Ldb, false, nullptr, false);
}
CUBLAS_API cublasStatus_t cublasSetVectorAsync_64(int64_t N, int64_t Elem, const void *X, int64_t IncX, void *Y,
                                                  int64_t IncY, CUstream S) {
  return copyVector(N, Elem, X, IncX, Y, IncY, true, S, true);
}
CUBLAS_API cublasStatus_t cublasGetVectorAsync_64(int64_t N, int64_t Elem, const void *X, int64_t IncX, void *Y,
                                                  int64_t IncY, CUstream S) {
  return copyVector(N, Elem, X, IncX, Y, IncY, false, S, true);
}
CUBLAS_API cublasStatus_t cublasSetMatrixAsync_64(int64_t Rows, int64_t Cols, int64_t Elem, const void *A,
                                                  int64_t Lda, void *B, int64_t Ldb, CUstream S) {
  return copyMatrix(Rows, Cols, Elem, A, Lda, B, Ldb, true, S, true);
}
CUBLAS_API cublasStatus_t cublasGetMatrixAsync_64(int64_t Rows, int64_t Cols, int64_t Elem, const void *A,
                                                  int64_t Lda, void *B, int64_t Ldb, CUstream S) {
  return copyMatrix(Rows, Cols, Elem, A, Lda, B, Ldb, false, S, true);
}
