//===- Cublas.h - our cuBLAS: handles and the backend interface -----------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A handle holds the stream, pointer mode, math mode and the closures
/// of captured calls. The exports (Cublas.cpp, Blas.cpp) check arguments as
/// the cuBLAS reference states and hand the call to the backend: CpuBlas.cpp
/// (OpenBLAS, our own loops for what it lacks, in stream order on the CPU
/// device) or RocBackend.cpp (rocBLAS, loaded at run time, on the HIP
/// backend; without rocBLAS cublasCreate returns CUBLAS_STATUS_NOT_SUPPORTED).
#pragma once

#include "libs/common/LibSupport.h"
#include "zluda/cublas_abi.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <utility>
#include <vector>

#define CUBLAS_API extern "C" __attribute__((visibility("default")))

namespace zluda::cublas {

struct Handle {
  CUcontext Ctx = nullptr;
  CUstream Stream = nullptr;
  cublasPointerMode_t PointerMode = CUBLAS_POINTER_MODE_HOST;
  cublasAtomicsMode_t Atomics = CUBLAS_ATOMICS_NOT_ALLOWED;
  cublasMath_t Math = CUBLAS_DEFAULT_MATH;
  void *Workspace = nullptr;
  size_t WorkspaceBytes = 0;
  /// Settings the CPU device accepts and keeps without acting on them (it computes in full precision on every
  /// core): the SM count target and CUDA 13's floating-point emulation controls, defaults as an H200's cuBLAS.
  int SmCountTarget = 0;
  int EmulationStrategy = 0;           ///< CUBLAS_EMULATION_STRATEGY_DEFAULT
  int EmulationSpecialValues = 0xffff; ///< every special value supported
  int MantissaControl = 0;             ///< CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC
  int MaxMantissaBits = 0, MantissaBitOffset = 0;
  int *MantissaBitCountPtr = nullptr;
  libs::Retained Kept;
  void *Native = nullptr; ///< the backend's own handle (a rocblas_handle), made at the first call
  std::function<void(void *)> NativeDestroy;
  ~Handle() {
    if (Native && NativeDestroy)
      NativeDestroy(Native);
  }
};

/// The live handle \p H names, or null.
Handle *handleOf(cublasHandle_t H);

/// A scalar argument: copied at the call in host pointer mode, read when the
/// work runs in device pointer mode (device memory is the CPU device's).
struct Scalar {
  const void *Ptr = nullptr;
  alignas(16) unsigned char Value[16] = {};
  bool Device = false;
  Scalar() = default;
  Scalar(const Handle &H, const void *P, size_t Bytes) : Ptr(P), Device(H.PointerMode == CUBLAS_POINTER_MODE_DEVICE) {
    if (!Device && P)
      std::memcpy(Value, P, Bytes);
  }
  template <typename T> T get() const {
    T V;
    std::memcpy(&V, Device ? Ptr : Value, sizeof V);
    return V;
  }
  const void *ptr() const { return Device ? Ptr : Value; }
};

/// One GEMM (or a batch of them): strided when Ptrs is false, else A, B, C
/// are device arrays of Batch pointers.
struct Gemm {
  cublasOperation_t TransA = CUBLAS_OP_N, TransB = CUBLAS_OP_N;
  int64_t M = 0, N = 0, K = 0;
  cudaDataType AType = CUDA_R_32F, BType = CUDA_R_32F, CType = CUDA_R_32F;
  cublasComputeType_t Compute = CUBLAS_COMPUTE_32F;
  const void *A = nullptr, *B = nullptr;
  void *C = nullptr;
  int64_t Lda = 0, Ldb = 0, Ldc = 0;
  int64_t StrideA = 0, StrideB = 0, StrideC = 0, Batch = 1;
  bool Ptrs = false;
  Scalar Alpha, Beta; ///< of the compute type's scalar type
};

enum class L1 { Axpy, Scal, Copy, Swap, Dot, Dotc, Nrm2, Asum, Amax, Amin };

/// A level-1 operation on vectors of type T (a real scalar for Scal of
/// complex vectors when RealScalar).
struct Level1 {
  L1 Op = L1::Axpy;
  cudaDataType T = CUDA_R_32F;
  bool RealScalar = false;
  int64_t N = 0;
  void *X = nullptr, *Y = nullptr;
  int64_t IncX = 1, IncY = 1;
  Scalar Alpha;
  void *Result = nullptr; ///< dot, nrm2, asum: a T (real part type for nrm2/asum); amax/amin: an int or int64
  bool Result64 = false;
};

struct Gemv {
  cublasOperation_t Trans = CUBLAS_OP_N;
  cudaDataType T = CUDA_R_32F;
  int64_t M = 0, N = 0, Lda = 0, IncX = 1, IncY = 1;
  const void *A = nullptr, *X = nullptr;
  void *Y = nullptr;
  Scalar Alpha, Beta;
};

/// Element-wise C = alpha op(A) + beta op(B) (geam) or C = A diag(x) / diag(x) A (dgmm).
struct Geam {
  bool Dgmm = false;
  cublasOperation_t TransA = CUBLAS_OP_N, TransB = CUBLAS_OP_N;
  cublasSideMode_t Side = CUBLAS_SIDE_LEFT;
  cudaDataType T = CUDA_R_32F;
  int64_t M = 0, N = 0, Lda = 0, Ldb = 0, Ldc = 0, IncX = 1;
  const void *A = nullptr, *B = nullptr;
  void *C = nullptr;
  Scalar Alpha, Beta;
};

enum class L3 { Trsm, Trmm, Syrk, Herk, Symm, Hemm, Syr2k, Her2k, Syrkx, Herkx };

/// The other level-3 operations (trsm in place on B; trmm out of place into
/// C, as cuBLAS's v2 API has it). Batched trsm: Ptrs with Batch arrays.
struct Level3 {
  L3 Op = L3::Trsm;
  cudaDataType T = CUDA_R_32F;
  cublasSideMode_t Side = CUBLAS_SIDE_LEFT;
  cublasFillMode_t Uplo = CUBLAS_FILL_MODE_LOWER;
  cublasOperation_t Trans = CUBLAS_OP_N;
  cublasDiagType_t Diag = CUBLAS_DIAG_NON_UNIT;
  int64_t M = 0, N = 0, K = 0;
  const void *A = nullptr, *B = nullptr;
  void *C = nullptr;
  int64_t Lda = 0, Ldb = 0, Ldc = 0;
  Scalar Alpha, Beta; ///< herk/her2k: real beta (and real alpha for herk)
  int64_t Batch = 1;
  bool Ptrs = false;
};

enum class L2 { Ger, Gerc, Symv, Hemv, Trmv, Trsv };

struct Level2 {
  L2 Op = L2::Ger;
  cudaDataType T = CUDA_R_32F;
  cublasFillMode_t Uplo = CUBLAS_FILL_MODE_LOWER;
  cublasOperation_t Trans = CUBLAS_OP_N;
  cublasDiagType_t Diag = CUBLAS_DIAG_NON_UNIT;
  int64_t M = 0, N = 0, Lda = 0, IncX = 1, IncY = 1;
  void *A = nullptr, *X = nullptr, *Y = nullptr;
  Scalar Alpha, Beta;
};

enum class Lu { Getrf, Getri, Getrs, Matinv };

/// Batched LU: A and C are device arrays of Batch matrix pointers; Pivots
/// (N per matrix, 1-based, or null: no pivoting) and Info in device memory,
/// except getrs's Info (one int in host memory, set at the call).
struct LuBatch {
  Lu Op = Lu::Getrf;
  cudaDataType T = CUDA_R_32F;
  cublasOperation_t Trans = CUBLAS_OP_N;
  int64_t N = 0, Nrhs = 0, Lda = 0, Ldc = 0, Batch = 0;
  void *A = nullptr, *C = nullptr;
  int *Pivots = nullptr, *Info = nullptr;
};

/// What a backend provides; each call runs in stream order on H's stream.
class Backend {
public:
  virtual ~Backend() = default;
  virtual cublasStatus_t gemm(Handle &H, const Gemm &G) = 0;
  virtual cublasStatus_t level1(Handle &H, const Level1 &L) = 0;
  virtual cublasStatus_t gemv(Handle &H, const Gemv &G) = 0;
  virtual cublasStatus_t geam(Handle &H, const Geam &G) = 0;
  virtual cublasStatus_t level2(Handle &H, const Level2 &L) = 0;
  virtual cublasStatus_t level3(Handle &H, const Level3 &L) = 0;
  virtual cublasStatus_t lu(Handle &H, const LuBatch &L) = 0;
  /// The less used routines (rot family, packed and banded level 2, rank-1
  /// updates, batched gemv): \p Cpu is their CPU-device work; a backend
  /// that has no form of \p Name returns CUBLAS_STATUS_NOT_SUPPORTED.
  virtual cublasStatus_t other(Handle &H, const char *Name, std::function<void()> Cpu) = 0;
};

/// The CPU device's closures for the operations of CpuBlas3.cpp.
void gemmHost(const Gemm &G);
void level1Host(const Level1 &L);
void geamRun(const Geam &G);
void level2Run(const Level2 &L);
void level3Run(const Level3 &L);
void luRun(const LuBatch &L);

/// The backend for the device the driver runs (null when none exists for it).
Backend *backend();
Backend *makeCpuBackend();
Backend *makeRocBackend(); ///< null when librocblas cannot be loaded

/// Element size of a cudaDataType (0 when not one we handle).
inline size_t elemSize(int T) {
  switch (T) {
  case CUDA_R_32F:
  case CUDA_R_32I:
  case CUDA_C_16F: return 4;
  case CUDA_R_64F:
  case CUDA_C_32F: return 8;
  case CUDA_C_64F: return 16;
  case CUDA_R_16F:
  case CUDA_R_16BF:
  case CUDA_C_8I: return 2;
  case CUDA_R_8I:
  case CUDA_R_8U: return 1;
  default: return 0;
  }
}

/// Index of element \p I of an N-element vector with increment \p Inc (BLAS: a negative increment starts at the end).
inline int64_t vectorAt(int64_t N, int64_t Inc, int64_t I) { return Inc < 0 ? (N - 1 - I) * -Inc : I * Inc; }

// The enum checks of the cuBLAS reference's argument rules.
inline bool validOp(cublasOperation_t O) { return O == CUBLAS_OP_N || O == CUBLAS_OP_T || O == CUBLAS_OP_C; }
inline bool validFill(cublasFillMode_t U) { return U == CUBLAS_FILL_MODE_LOWER || U == CUBLAS_FILL_MODE_UPPER; }
inline bool validSide(cublasSideMode_t S) { return S == CUBLAS_SIDE_LEFT || S == CUBLAS_SIDE_RIGHT; }
inline bool validDiag(cublasDiagType_t D) { return D == CUBLAS_DIAG_NON_UNIT || D == CUBLAS_DIAG_UNIT; }

/// Hands \p Work to the backend's Backend::other; \p Blocking waits for it
/// (a result the call writes to host memory).
/// Elements a vector of n entries with increment inc spans, and a column-major Rows x Cols array with leading
/// dimension Ld (the sizes of host copies on a GPU).
inline size_t vecSpan(int64_t N, int64_t Inc) { return N > 0 ? size_t(1 + (N - 1) * (Inc < 0 ? -Inc : Inc)) : 0; }
inline size_t span(int64_t Ld, int64_t Rows, int64_t Cols) {
  return Rows > 0 && Cols > 0 ? size_t(Ld * (Cols - 1) + Rows) : 0;
}

/// Scalars in GPU memory (the device pointer mode on a GPU) read to the host, after the stream, before work on
/// host copies (runArrays, the rocBLAS backend's host paths). False when a read failed.
inline bool fetch(Handle &H, std::initializer_list<std::pair<Scalar *, size_t>> Scalars) {
  if (libs::cpuDevice())
    return true;
  for (auto [V, Bytes] : Scalars)
    if (V->Device && V->Ptr) {
      if (libs::wait(H.Stream) || libs::toHost(V->Value, V->Ptr, Bytes))
        return false;
      V->Device = false;
    }
  return true;
}
inline bool fetch(cublasHandle_t Hd, std::initializer_list<std::pair<Scalar *, size_t>> Scalars) {
  Handle *H = handleOf(Hd);
  return !H || fetch(*H, Scalars);
}

/// Work on the call's arrays (libs::runStaged): on the CPU device in the stream on device memory, on a GPU
/// after the stream on host copies, the outputs copied back. Scalars the work reads are fetched first.
template <typename F, typename... T> cublasStatus_t runArrays(cublasHandle_t Hd, F Work, libs::Arg<T>... Args) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  return libs::runStaged(H->Stream, H->Kept, Work, Args...) ? CUBLAS_STATUS_EXECUTION_FAILED : CUBLAS_STATUS_SUCCESS;
}

/// One array argument of a pointer-array batch (runBatches): a device array of Count pointers to Bytes each
/// (Ptrs), or one device array of Bytes.
struct BatchArg {
  const void *Dev;
  size_t Bytes;
  bool Out;
  bool Ptrs = true;
};

/// Work(P) over pointer-array batches, P[k] standing for Args[k] (a pointer array, or the plain array): on the
/// CPU device in the stream on the arrays themselves; on a GPU after the stream, the pointer arrays read back,
/// each array copied to the host, Work given host pointer arrays, the outputs copied back.
template <typename F> cublasStatus_t runBatches(cublasHandle_t Hd, int Count, std::vector<BatchArg> Args, F Work) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (libs::cpuDevice()) {
    std::vector<void *> P;
    for (const BatchArg &A : Args)
      P.push_back(const_cast<void *>(A.Dev));
    return libs::enqueue(H->Stream, [P, Work] { Work(P); }, H->Kept) ? CUBLAS_STATUS_EXECUTION_FAILED
                                                                      : CUBLAS_STATUS_SUCCESS;
  }
  if (libs::wait(H->Stream))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  struct Copy {
    void *Dev;
    std::vector<unsigned char> Host;
    bool Out;
  };
  std::vector<Copy> Copies;
  std::vector<std::vector<void *>> Tables(Args.size());
  std::vector<void *> P(Args.size(), nullptr);
  auto stage = [&](const void *Dev, size_t Bytes, bool Out) -> void * {
    if (!Dev)
      return nullptr;
    Copies.push_back({const_cast<void *>(Dev), std::vector<unsigned char>(Bytes ? Bytes : 1), Out});
    if (Bytes && libs::toHost(Copies.back().Host.data(), Dev, Bytes))
      return nullptr;
    return Copies.back().Host.data();
  };
  Copies.reserve(Args.size() * size_t(Count)); // pointers into Host stay valid
  for (size_t K = 0; K < Args.size(); ++K) {
    const BatchArg &A = Args[K];
    if (!A.Dev)
      continue;
    if (!A.Ptrs) {
      if (!(P[K] = stage(A.Dev, A.Bytes, A.Out)))
        return CUBLAS_STATUS_EXECUTION_FAILED;
      continue;
    }
    std::vector<const void *> Dev(static_cast<size_t>(Count));
    if (libs::toHost(Dev.data(), A.Dev, Dev.size() * sizeof(void *)))
      return CUBLAS_STATUS_EXECUTION_FAILED;
    for (const void *D : Dev) {
      Tables[K].push_back(stage(D, A.Bytes, A.Out));
      if (D && !Tables[K].back())
        return CUBLAS_STATUS_EXECUTION_FAILED;
    }
    P[K] = Tables[K].data();
  }
  Work(P);
  for (const Copy &C : Copies)
    if (C.Out && libs::toDevice(C.Dev, C.Host.data(), C.Host.size()))
      return CUBLAS_STATUS_EXECUTION_FAILED;
  return CUBLAS_STATUS_SUCCESS;
}

/// Work on host memory (results in host pointer mode) after the work queued before it.
template <typename F> cublasStatus_t runNow(cublasHandle_t Hd, F Work) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (libs::wait(H->Stream))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  Work();
  return CUBLAS_STATUS_SUCCESS;
}

template <typename F> cublasStatus_t runOther(cublasHandle_t Hd, const char *Name, F Work, bool Blocking = false) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (cublasStatus_t S = backend()->other(*H, Name, std::move(Work)))
    return S;
  if (Blocking && libs::wait(H->Stream))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return CUBLAS_STATUS_SUCCESS;
}

} // namespace zluda::cublas
