//===- Cusparse.cpp - our libcusparse: the generic API and ILU/IC ----------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Handles, matrix descriptors, and our own CPU implementations of the
/// generic API (SpMV, SpMM, SpSV, SpGEMM, conversions between CSR, CSC, COO
/// and dense) and of the incomplete factorizations csrilu02/csric02, for
/// float, double and their complex types with 32- or 64-bit indices. Each
/// operation is a host function of the handle's stream working on device
/// memory (host memory on the CPU device); results the host must see at once
/// (SpGEMM's nnz, DenseToSparse's count, zero pivots) wait for the stream.
/// On a GPU, where rocSPARSE does not serve a call, every operation waits
/// for the stream and runs on host copies: the generic ones on the arrays of
/// their descriptors (Staged, atReturn, onHost), the legacy routines on their
/// plain arrays (staged; sizes the arrays hold, such as an output's entry
/// count, read first), the outputs copied back.
#include "libs/common/Half.h"
#include "libs/common/LibSupport.h"
#include "libs/cusparse/RocSparse.h"
#include "zluda/cublas_abi.h" // cudaDataType, libraryPropertyType
#include "zluda/cusparse_abi.h"

#include "common/Log.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <cstdio>
#include <numeric>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#define CUSPARSE_API extern "C" __attribute__((visibility("default")))

namespace zluda::cusparse {
namespace {

struct Handle {
  CUcontext Ctx = nullptr;
  CUstream Stream = nullptr;
  cusparsePointerMode_t PointerMode = CUSPARSE_POINTER_MODE_HOST;
  libs::Retained Kept;
  void *Roc = nullptr; ///< the rocSPARSE handle (AMD GPUs), made at the first call that needs it
  ~Handle();
};
// Each kind of object in its own set (libs::Live): a descriptor of another
// kind passed for this one is not found.
template <typename T> T *track(T *P) { return libs::Live<T>::add(P); }
template <typename T> T *lookup(const void *P) { return libs::Live<T>::find(P); }
template <typename T> bool drop(T *P) { return P && libs::Live<T>::destroy(P); }

struct MatDescr {
  cusparseMatrixType_t Type = CUSPARSE_MATRIX_TYPE_GENERAL;
  cusparseFillMode_t Fill = CUSPARSE_FILL_MODE_LOWER;
  cusparseDiagType_t Diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
  cusparseIndexBase_t Base = CUSPARSE_INDEX_BASE_ZERO;
};

struct SpMat {
  cusparseFormat_t Fmt = CUSPARSE_FORMAT_CSR;
  int64_t Rows = 0, Cols = 0, Nnz = 0;
  void *Off = nullptr; ///< CSR row / CSC column offsets
  void *Ind = nullptr; ///< CSR/COO column / CSC row indices
  void *RowInd = nullptr; ///< COO row indices
  void *Val = nullptr;
  cusparseIndexType_t OffType = CUSPARSE_INDEX_32I, IndType = CUSPARSE_INDEX_32I;
  cusparseIndexBase_t Base = CUSPARSE_INDEX_BASE_ZERO;
  cudaDataType VT = CUDA_R_32F;
  cusparseFillMode_t Fill = CUSPARSE_FILL_MODE_LOWER;
  cusparseDiagType_t Diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
  // The blocked formats: BSR (Off/Ind over block rows, blocks of RowBlock x ColBlock in BlockOrder), Blocked-ELL
  // (Ind: (Rows / EllBlock) x (EllCols / EllBlock) block columns, row-major, -1 for none; Val: Rows x EllCols,
  // row-major), Sliced-ELL (Off: a slice's start in Ind/Val, SliceSize rows a slice, each slice column-major,
  // column -1 for padding).
  int64_t BlockRows = 0, RowBlock = 1, ColBlock = 1, EllBlock = 1, EllCols = 0, SliceSize = 1, Stored = 0;
  cusparseOrder_t BlockOrder = CUSPARSE_ORDER_ROW;
  // Strided batches (SpMM): matrix b's offsets at Off + b * OffStride, indices at Ind (and RowInd) + b * IndStride,
  // values at Val + b * ValStride (elements).
  int BatchCount = 1;
  int64_t OffStride = 0, IndStride = 0, ValStride = 0;
};

struct DnVec {
  int64_t Size = 0;
  void *Val = nullptr;
  cudaDataType VT = CUDA_R_32F;
};
struct DnMat {
  int64_t Rows = 0, Cols = 0, Ld = 0;
  void *Val = nullptr;
  cudaDataType VT = CUDA_R_32F;
  cusparseOrder_t Order = CUSPARSE_ORDER_COL;
  int BatchCount = 1;
  int64_t BatchStride = 0; ///< elements from one matrix of the batch to the next
};
struct SpVec {
  int64_t Size = 0, Nnz = 0;
  void *Ind = nullptr, *Val = nullptr;
  cusparseIndexType_t IndType = CUSPARSE_INDEX_32I;
  cusparseIndexBase_t Base = CUSPARSE_INDEX_BASE_ZERO;
  cudaDataType VT = CUDA_R_32F;
};
struct SpSV {
  int Unused = 0;
};
/// SpGEMM's product, held from compute to copy (CSR, 64-bit indices, zero based).
struct SpGEMM {
  std::vector<int64_t> Off, Ind;
  std::vector<unsigned char> Val;
  /// Intermediate products of the last work estimation (getNumProducts), counted in stream order on Stream.
  std::shared_ptr<int64_t> Products = std::make_shared<int64_t>(0);
  CUstream Stream = nullptr;
};
/// csrilu02/csric02: the first zero pivot of the last factorization.
struct FactorInfo {
  int64_t ZeroPivot = -1;
  // csrilu02_numericBoost: pivots of magnitude at most Tol become BoostVal (the element type's bytes).
  bool Boost = false;
  double Tol = 0;
  unsigned char BoostVal[16] = {};
  template <typename T> T boostValue() const {
    T V;
    std::memcpy(&V, BoostVal, sizeof V);
    return V;
  }
};

bool validIndex(cusparseIndexType_t T) { return T == CUSPARSE_INDEX_32I || T == CUSPARSE_INDEX_64I; }
/// The compute types (and the one value type of every operation but SpMV/SpMM).
bool validValue(cudaDataType T) { return T == CUDA_R_32F || T == CUDA_R_64F || T == CUDA_C_32F || T == CUDA_C_64F; }
/// Value types a descriptor takes: SpMV and SpMM compute with the narrower ones (mixedTypes), Gather and Scatter
/// move them.
bool storable(cudaDataType T) {
  return validValue(T) || T == CUDA_R_16F || T == CUDA_R_16BF || T == CUDA_R_8I || T == CUDA_R_32I ||
         T == CUDA_C_16F || T == CUDA_C_16BF;
}
size_t valueBytes(cudaDataType T) {
  switch (T) {
  case CUDA_R_8I:
    return 1;
  case CUDA_R_16F:
  case CUDA_R_16BF:
    return 2;
  case CUDA_R_32F:
  case CUDA_R_32I:
  case CUDA_C_16F:
  case CUDA_C_16BF:
    return 4;
  case CUDA_C_64F:
    return 16;
  default:
    return 8;
  }
}

int64_t getIx(const void *P, cusparseIndexType_t T, int64_t I) {
  return T == CUSPARSE_INDEX_64I ? static_cast<const int64_t *>(P)[I] : static_cast<const int32_t *>(P)[I];
}
void setIx(void *P, cusparseIndexType_t T, int64_t I, int64_t V) {
  if (T == CUSPARSE_INDEX_64I)
    static_cast<int64_t *>(P)[I] = V;
  else
    static_cast<int32_t *>(P)[I] = int32_t(V);
}

template <typename F> void dispatch(cudaDataType T, F &&Fn) {
  switch (T) {
  case CUDA_R_32F:
    return Fn(float());
  case CUDA_R_64F:
    return Fn(double());
  case CUDA_C_32F:
    return Fn(std::complex<float>());
  default:
    return Fn(std::complex<double>());
  }
}

template <typename T> T conjIf(T X, bool C) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
    return X;
  else
    return C ? std::conj(X) : X;
}

/// Calls Fn(row, col, value index) for every stored entry of \p A.
template <typename F> void forEach(const SpMat &A, F &&Fn) {
  const int64_t B = A.Base;
  switch (A.Fmt) {
  case CUSPARSE_FORMAT_CSR:
    for (int64_t R = 0; R < A.Rows; ++R)
      for (int64_t K = getIx(A.Off, A.OffType, R) - B, E = getIx(A.Off, A.OffType, R + 1) - B; K < E; ++K)
        Fn(R, getIx(A.Ind, A.IndType, K) - B, K);
    return;
  case CUSPARSE_FORMAT_CSC:
    for (int64_t C = 0; C < A.Cols; ++C)
      for (int64_t K = getIx(A.Off, A.OffType, C) - B, E = getIx(A.Off, A.OffType, C + 1) - B; K < E; ++K)
        Fn(getIx(A.Ind, A.IndType, K) - B, C, K);
    return;
  case CUSPARSE_FORMAT_BSR: {
    const int64_t Rb = A.RowBlock, Cb = A.ColBlock;
    for (int64_t Br = 0; Br < A.BlockRows; ++Br)
      for (int64_t K = getIx(A.Off, A.OffType, Br) - B, E = getIx(A.Off, A.OffType, Br + 1) - B; K < E; ++K) {
        const int64_t Bc = getIx(A.Ind, A.IndType, K) - B;
        for (int64_t I = 0; I < Rb; ++I)
          for (int64_t J = 0; J < Cb; ++J)
            Fn(Br * Rb + I, Bc * Cb + J, K * Rb * Cb + (A.BlockOrder == CUSPARSE_ORDER_ROW ? I * Cb + J : J * Rb + I));
      }
    return;
  }
  case CUSPARSE_FORMAT_BLOCKED_ELL: {
    const int64_t Eb = A.EllBlock, Slots = A.EllCols / Eb;
    for (int64_t Br = 0; Br < A.Rows / Eb; ++Br)
      for (int64_t S = 0; S < Slots; ++S) {
        const int64_t Raw = getIx(A.Ind, A.IndType, Br * Slots + S);
        if (Raw < 0)
          continue; // an empty block
        const int64_t Bc = Raw - B;
        for (int64_t I = 0; I < Eb; ++I)
          for (int64_t J = 0; J < Eb; ++J)
            Fn(Br * Eb + I, Bc * Eb + J, (Br * Eb + I) * A.EllCols + S * Eb + J);
      }
    return;
  }
  case CUSPARSE_FORMAT_SLICED_ELLPACK: {
    const int64_t Sz = A.SliceSize, Slices = (A.Rows + Sz - 1) / Sz;
    for (int64_t Sl = 0; Sl < Slices; ++Sl) {
      const int64_t Beg = getIx(A.Off, A.OffType, Sl) - B, End = getIx(A.Off, A.OffType, Sl + 1) - B;
      for (int64_t P = Beg; P < End; ++P) {
        const int64_t Row = Sl * Sz + (P - Beg) % Sz, Raw = getIx(A.Ind, A.IndType, P);
        if (Raw < 0 || Row >= A.Rows)
          continue; // padding
        Fn(Row, Raw - B, P);
      }
    }
    return;
  }
  default: // COO
    for (int64_t K = 0; K < A.Nnz; ++K)
      Fn(getIx(A.RowInd, A.IndType, K) - B, getIx(A.Ind, A.IndType, K) - B, K);
    return;
  }
}

/// A scalar: copied at the call in host pointer mode, read when the work runs
/// in device pointer mode.
struct Scalar {
  const void *Ptr;
  unsigned char Bytes[16] = {};
  bool Device;
  size_t Size;
  Scalar(const Handle &H, const void *P, cudaDataType T)
      : Ptr(P), Device(H.PointerMode == CUSPARSE_POINTER_MODE_DEVICE), Size(valueBytes(T)) {
    if (!Device && P)
      std::memcpy(Bytes, P, Size);
  }
  /// For work on host copies (a legacy routine on a GPU, staged): a scalar in GPU memory read now, after the
  /// stream \p S (the work runs after it too). False when the read failed.
  bool fetch(CUstream S) {
    if (!Device || !Ptr || libs::cpuDevice())
      return true;
    if (libs::wait(S) || libs::toHost(Bytes, Ptr, Size))
      return false;
    Device = false;
    return true;
  }
  template <typename T> T get() const {
    T V;
    std::memcpy(&V, Device ? Ptr : Bytes, sizeof V);
    return V;
  }
};

Handle *handle(cusparseHandle_t H) { return lookup<Handle>(H); }

/// Fn queued in the handle's stream (the CPU device: onHost's path there; on a GPU the work goes through
/// atReturn, onHost or staged on host copies).
cusparseStatus_t submit(Handle *H, std::function<void()> Fn) {
  return libs::enqueue(H->Stream, std::move(Fn), H->Kept) ? CUSPARSE_STATUS_EXECUTION_FAILED
                                                          : CUSPARSE_STATUS_SUCCESS;
}

/// Fn on the call's arrays in the handle's stream order: on the CPU device in the stream, on a GPU after the
/// stream on host copies of the arrays, the outputs copied back (libs::runStaged), for operations on plain arrays.
template <typename F, typename... T> cusparseStatus_t staged(Handle *H, F Fn, libs::Arg<T>... Args) {
  return libs::runStaged(H->Stream, H->Kept, Fn, Args...) ? CUSPARSE_STATUS_EXECUTION_FAILED
                                                          : CUSPARSE_STATUS_SUCCESS;
}

/// An int result of staged work Fn(arrays...) (see staged) for a pointer the handle's pointer mode names: host
/// memory is written when the work is done (the call waits), device memory in stream order (on a GPU, where the
/// staged work has run at return, copied there).
template <typename F, typename... T>
cusparseStatus_t withTotal(Handle *H, int *Out, F Fn, libs::Arg<T>... Args) {
  if (!Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  const bool HostOut = H->PointerMode == CUSPARSE_POINTER_MODE_HOST;
  auto Total = std::make_shared<int>(0);
  int *InStream = HostOut || !libs::cpuDevice() ? nullptr : Out; // device memory that is the host's
  if (cusparseStatus_t S = staged(
          H,
          [=](T *...P) {
            *Total = Fn(P...);
            if (InStream)
              *InStream = *Total;
          },
          Args...))
    return S;
  if (!HostOut)
    return InStream || !libs::toDevice(Out, Total.get(), sizeof(int)) ? CUSPARSE_STATUS_SUCCESS
                                                                      : CUSPARSE_STATUS_EXECUTION_FAILED;
  if (libs::wait(H->Stream))
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  *Out = *Total;
  return CUSPARSE_STATUS_SUCCESS;
}

/// Elements a column-major (or row-major, swapped) array of Outer x Inner with leading dimension Ld spans.
size_t span(int64_t Ld, int64_t Outer, int64_t Inner) {
  return Outer > 0 && Inner > 0 ? size_t(Ld * (Outer - 1) + Inner) : 0;
}

/// The entries compressed offsets count, Ptr[N] - Base, to size host copies on a GPU (read there after the
/// stream); 0 on the CPU device, where staging passes the arrays through, or for a null array; -1 when the read
/// failed.
int64_t entries(Handle *H, const int *Ptr, int64_t N, int Base) {
  if (libs::cpuDevice() || !Ptr)
    return 0;
  int Last = 0;
  if (libs::wait(H->Stream) || libs::toHost(&Last, Ptr + N, sizeof Last))
    return -1;
  return std::max<int64_t>(0, int64_t(Last) - Base);
}

/// The sum of N per-row counts (csr2csr_compress's nnzPerRow), to size host copies on a GPU as entries does.
int64_t kept(Handle *H, const int *PerRow, int64_t N) {
  if (libs::cpuDevice() || !PerRow || N <= 0)
    return 0;
  std::vector<int> Host(static_cast<size_t>(N));
  if (libs::wait(H->Stream) || libs::toHost(Host.data(), PerRow, Host.size() * sizeof(int)))
    return -1;
  int64_t Sum = 0;
  for (int C : Host)
    Sum += std::max(C, 0);
  return Sum;
}

size_t indexBytes(cusparseIndexType_t T) { return T == CUSPARSE_INDEX_64I ? 8 : 4; }

/// Host copies of the arrays of descriptors (a GPU without rocSPARSE: the
/// operation waits for the stream, runs on the host and copies the arrays
/// marked as outputs back). A pass-through one (the CPU device, where device
/// memory is the host's) hands the arrays on as they are.
struct Staged {
  struct Output {
    void *Dev;
    const void *Host;
    size_t Bytes;
  };
  std::vector<std::vector<unsigned char>> Bufs;
  std::vector<Output> Outs;
  bool Failed = false;
  bool Pass = false;
  /// A host copy of \p Bytes at \p Dev (an output: copied back by writeBack).
  void *copy(const void *Dev, size_t Bytes, bool Out = false) {
    if (!Dev || Pass)
      return const_cast<void *>(Dev);
    Bufs.emplace_back(Bytes ? Bytes : 1);
    if (Bytes && libs::toHost(Bufs.back().data(), Dev, Bytes))
      Failed = true;
    if (Out && Bytes)
      Outs.push_back({const_cast<void *>(Dev), Bufs.back().data(), Bytes});
    return Bufs.back().data();
  }
  /// Host memory for an output the work writes without reading (nothing copied in).
  void *fresh(void *Dev, size_t Bytes) {
    if (!Dev || Pass)
      return Dev;
    Bufs.emplace_back(Bytes ? Bytes : 1);
    if (Bytes)
      Outs.push_back({Dev, Bufs.back().data(), Bytes});
    return Bufs.back().data();
  }
  /// The outputs copied back to device memory; true on failure.
  bool writeBack() const {
    for (const Output &O : Outs)
      if (libs::toDevice(O.Dev, O.Host, O.Bytes))
        return true;
    return false;
  }
  SpMat sp(const SpMat &A, bool Out = false) {
    SpMat H = A;
    const size_t V = valueBytes(A.VT);
    if (A.Fmt == CUSPARSE_FORMAT_BSR || A.Fmt == CUSPARSE_FORMAT_BLOCKED_ELL || A.Fmt == CUSPARSE_FORMAT_SLICED_ELLPACK) {
      const int64_t Outer = A.Fmt == CUSPARSE_FORMAT_BSR ? A.BlockRows
                            : A.Fmt == CUSPARSE_FORMAT_SLICED_ELLPACK ? (A.Rows + A.SliceSize - 1) / A.SliceSize
                                                                      : -1;
      const int64_t Indices = A.Fmt == CUSPARSE_FORMAT_BSR           ? A.Nnz
                              : A.Fmt == CUSPARSE_FORMAT_BLOCKED_ELL ? (A.Rows / A.EllBlock) * (A.EllCols / A.EllBlock)
                                                                     : A.Stored;
      if (Outer >= 0)
        H.Off = copy(A.Off, size_t(Outer + 1) * indexBytes(A.OffType));
      H.Ind = copy(A.Ind, size_t(Indices) * indexBytes(A.IndType));
      H.Val = copy(A.Val, size_t(A.Stored) * V, Out);
      return H;
    }
    // A strided batch (SpMM's) spans its first matrix and BatchCount - 1 strides.
    auto Span = [&](int64_t One, int64_t Stride) { return size_t(One + (A.BatchCount - 1) * Stride); };
    if (A.Fmt == CUSPARSE_FORMAT_COO) {
      H.RowInd = copy(A.RowInd, Span(A.Nnz, A.IndStride) * indexBytes(A.IndType));
    } else {
      const int64_t Outer = A.Fmt == CUSPARSE_FORMAT_CSR ? A.Rows : A.Cols;
      H.Off = copy(A.Off, Span(Outer + 1, A.OffStride) * indexBytes(A.OffType));
    }
    H.Ind = copy(A.Ind, Span(A.Nnz, A.IndStride) * indexBytes(A.IndType));
    H.Val = copy(A.Val, Span(A.Nnz, A.ValStride) * V, Out);
    return H;
  }
  /// A compressed matrix the work fills (pattern and values; its offsets, and for CSR/CSC its count, known).
  SpMat filled(const SpMat &A) {
    SpMat H = A;
    const int64_t Outer = A.Fmt == CUSPARSE_FORMAT_CSR ? A.Rows : A.Cols;
    H.Off = fresh(A.Off, size_t(Outer + 1) * indexBytes(A.OffType));
    H.Ind = fresh(A.Ind, size_t(A.Nnz) * indexBytes(A.IndType));
    H.Val = fresh(A.Val, size_t(A.Nnz) * valueBytes(A.VT));
    return H;
  }
  SpVec spv(const SpVec &X, bool Out = false) {
    SpVec H = X;
    H.Ind = copy(X.Ind, size_t(X.Nnz) * indexBytes(X.IndType));
    H.Val = copy(X.Val, size_t(X.Nnz) * valueBytes(X.VT), Out);
    return H;
  }
  /// A scalar the host can read: device-memory scalars (the device pointer mode) copied.
  Scalar scalar(const Scalar &V, cudaDataType T) {
    Scalar H = V;
    if (V.Device)
      H.Ptr = copy(V.Ptr, valueBytes(T));
    return H;
  }
  DnVec vec(const DnVec &X, bool Out = false) {
    DnVec H = X;
    H.Val = copy(X.Val, size_t(X.Size) * valueBytes(X.VT), Out);
    return H;
  }
  /// Bytes a dense matrix spans (its last column or row may be shorter than the leading dimension; a strided
  /// batch spans BatchCount - 1 strides more).
  static size_t matBytes(const DnMat &M) {
    const int64_t Outer = M.Order == CUSPARSE_ORDER_COL ? M.Cols : M.Rows;
    const int64_t Inner = M.Order == CUSPARSE_ORDER_COL ? M.Rows : M.Cols;
    return Outer && Inner ? size_t(M.Ld * (Outer - 1) + Inner + (M.BatchCount - 1) * M.BatchStride) * valueBytes(M.VT)
                          : 0;
  }
  DnMat mat(const DnMat &M, bool Out = false) {
    DnMat H = M;
    H.Val = copy(M.Val, matBytes(M), Out);
    return H;
  }
};

/// Work on descriptors now, after the work queued before it (for results the caller reads at return, and
/// for every operation on a GPU). \p Stage(Staged &) stages what the work reads and writes (marking outputs)
/// and returns the work, a callable over the staged descriptors. On the CPU device staging passes the arrays
/// through; on a GPU the work runs on host copies, the outputs copied back before the call returns.
template <typename F> cusparseStatus_t atReturn(Handle *H, F Stage) {
  if (libs::wait(H->Stream))
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  Staged S;
  S.Pass = libs::cpuDevice();
  auto Work = Stage(S);
  if (S.Failed)
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  Work();
  return S.writeBack() ? CUSPARSE_STATUS_EXECUTION_FAILED : CUSPARSE_STATUS_SUCCESS;
}

/// Work on descriptors in the handle's stream order: on the CPU device queued in the stream (staging passes
/// the arrays through); on a GPU as atReturn does.
template <typename F> cusparseStatus_t onHost(Handle *H, F Stage) {
  if (!libs::cpuDevice())
    return atReturn(H, Stage);
  return submit(H, [Stage] {
    Staged S;
    S.Pass = true;
    Stage(S)();
  });
}

cusparseStatus_t setOut(size_t *Out, size_t V) {
  if (!Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Out = V;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t makeSp(cusparseSpMatDescr_t *Out, cusparseFormat_t Fmt, int64_t Rows, int64_t Cols, int64_t Nnz,
                        void *Off, void *Ind, void *RowInd, void *Val, cusparseIndexType_t OffType,
                        cusparseIndexType_t IndType, cusparseIndexBase_t Base, cudaDataType VT) {
  if (!Out || Rows < 0 || Cols < 0 || Nnz < 0 || !validIndex(IndType) || !validIndex(OffType) || !storable(VT) ||
      (Base != CUSPARSE_INDEX_BASE_ZERO && Base != CUSPARSE_INDEX_BASE_ONE))
    return CUSPARSE_STATUS_INVALID_VALUE;
  auto *M = new SpMat;
  M->Fmt = Fmt, M->Rows = Rows, M->Cols = Cols, M->Nnz = Nnz;
  M->Off = Off, M->Ind = Ind, M->RowInd = RowInd, M->Val = Val;
  M->OffType = OffType, M->IndType = IndType, M->Base = Base, M->VT = VT;
  *Out = reinterpret_cast<cusparseSpMatDescr_t>(track(M));
  return CUSPARSE_STATUS_SUCCESS;
}

/// op(A) x for SpMV: y = alpha op(A) x + beta y.
/// CSR, not transposed: one dot product a row, rows split across threads.
template <typename T, typename OffT, typename IndT>
void spmvRows(const SpMat &A, T Alpha, const T *X, T Beta, T *Y) {
  const auto *Off = static_cast<const OffT *>(A.Off);
  const auto *Ind = static_cast<const IndT *>(A.Ind);
  const T *V = static_cast<const T *>(A.Val);
  const int64_t B = A.Base;
  auto Rows = [&](int64_t From, int64_t To) {
    for (int64_t R = From; R < To; ++R) {
      T S = T(0);
      for (int64_t K = Off[R] - B, E = Off[R + 1] - B; K < E; ++K)
        S += V[K] * X[Ind[K] - B];
      Y[R] = Beta == T(0) ? Alpha * S : Alpha * S + Beta * Y[R];
    }
  };
  const unsigned W = A.Nnz < (1 << 18) ? 1u : std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  if (W == 1)
    return Rows(0, A.Rows);
  std::vector<std::thread> Ts;
  const int64_t Per = (A.Rows + W - 1) / W;
  for (int64_t R = 0; R < A.Rows; R += Per)
    Ts.emplace_back(Rows, R, std::min(A.Rows, R + Per));
  for (auto &Th : Ts)
    Th.join();
}

template <typename T>
void spmv(const SpMat &A, cusparseOperation_t Op, T Alpha, const T *X, T Beta, T *Y, int64_t YSize) {
  if (A.Fmt == CUSPARSE_FORMAT_CSR && Op == CUSPARSE_OPERATION_NON_TRANSPOSE) {
    const bool O64 = A.OffType == CUSPARSE_INDEX_64I, I64 = A.IndType == CUSPARSE_INDEX_64I;
    if (!O64 && !I64)
      return spmvRows<T, int32_t, int32_t>(A, Alpha, X, Beta, Y);
    if (O64 && I64)
      return spmvRows<T, int64_t, int64_t>(A, Alpha, X, Beta, Y);
    if (O64)
      return spmvRows<T, int64_t, int32_t>(A, Alpha, X, Beta, Y);
    return spmvRows<T, int32_t, int64_t>(A, Alpha, X, Beta, Y);
  }
  for (int64_t I = 0; I < YSize; ++I)
    Y[I] = Beta == T(0) ? T(0) : Beta * Y[I];
  const T *V = static_cast<const T *>(A.Val);
  forEach(A, [&](int64_t R, int64_t C, int64_t K) {
    if (Op == CUSPARSE_OPERATION_NON_TRANSPOSE)
      Y[R] += Alpha * V[K] * X[C];
    else
      Y[C] += Alpha * conjIf(V[K], Op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE) * X[R];
  });
}

template <typename T> T &at(const DnMat &M, int64_t I, int64_t J) {
  T *V = static_cast<T *>(M.Val);
  return M.Order == CUSPARSE_ORDER_COL ? V[I + J * M.Ld] : V[I * M.Ld + J];
}

/// Matrix \p I of a strided batch (a single matrix is every matrix of the batch).
SpMat batchOf(SpMat M, int I) {
  if (M.BatchCount <= 1)
    return M;
  auto Shift = [](void *P, int64_t Elems, size_t Bytes) {
    return P ? static_cast<void *>(static_cast<char *>(P) + Elems * int64_t(Bytes)) : nullptr;
  };
  M.Off = Shift(M.Off, I * M.OffStride, indexBytes(M.OffType));
  M.Ind = Shift(M.Ind, I * M.IndStride, indexBytes(M.IndType));
  M.RowInd = Shift(M.RowInd, I * M.IndStride, indexBytes(M.IndType));
  M.Val = Shift(M.Val, I * M.ValStride, valueBytes(M.VT));
  M.BatchCount = 1;
  return M;
}
DnMat batchOf(DnMat M, int I) {
  if (M.BatchCount > 1 && M.Val)
    M.Val = static_cast<char *>(M.Val) + I * M.BatchStride * int64_t(valueBytes(M.VT));
  M.BatchCount = 1;
  return M;
}

template <typename T>
void spmm(const SpMat &A, cusparseOperation_t OpA, cusparseOperation_t OpB, T Alpha, const DnMat &B, T Beta,
          const DnMat &C) {
  for (int64_t I = 0; I < C.Rows; ++I)
    for (int64_t J = 0; J < C.Cols; ++J) {
      T &Cij = at<T>(C, I, J);
      Cij = Beta == T(0) ? T(0) : Beta * Cij;
    }
  const T *V = static_cast<const T *>(A.Val);
  forEach(A, [&](int64_t R, int64_t Cc, int64_t K) {
    int64_t I = R, Kk = Cc;
    T Av = V[K];
    if (OpA != CUSPARSE_OPERATION_NON_TRANSPOSE) {
      I = Cc, Kk = R;
      Av = conjIf(Av, OpA == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE);
    }
    const T S = Alpha * Av;
    for (int64_t J = 0; J < C.Cols; ++J) {
      T Bv = OpB == CUSPARSE_OPERATION_NON_TRANSPOSE
                 ? at<T>(B, Kk, J)
                 : conjIf(at<T>(B, J, Kk), OpB == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE);
      at<T>(C, I, J) += S * Bv;
    }
  });
}

/// Rows of a CSR or COO matrix as (col, value index) lists, sorted by column.
std::vector<std::vector<std::pair<int64_t, int64_t>>> rowsOf(const SpMat &A) {
  std::vector<std::vector<std::pair<int64_t, int64_t>>> R(size_t(A.Rows));
  forEach(A, [&](int64_t Ro, int64_t C, int64_t K) {
    if (Ro >= 0 && Ro < A.Rows)
      R[size_t(Ro)].push_back({C, K});
  });
  for (auto &Row : R)
    std::sort(Row.begin(), Row.end());
  return R;
}

/// Triangular solve op(A) y = alpha x (A's fill mode and diagonal type).
template <typename T> void spsv(const SpMat &A, cusparseOperation_t Op, T Alpha, const T *X, T *Y) {
  const int64_t N = A.Rows;
  const T *V = static_cast<const T *>(A.Val);
  const bool Lower = A.Fill == CUSPARSE_FILL_MODE_LOWER, Unit = A.Diag == CUSPARSE_DIAG_TYPE_UNIT;
  const bool Conj = Op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE;
  auto Rows = rowsOf(A);
  std::vector<T> Diag(size_t(N), T(1));
  if (!Unit)
    for (int64_t I = 0; I < N; ++I)
      for (auto [C, K] : Rows[size_t(I)])
        if (C == I)
          Diag[size_t(I)] = conjIf(V[K], Conj);
  std::vector<T> Tmp(X, X + N);
  for (auto &Z : Tmp)
    Z *= Alpha;
  if (Op == CUSPARSE_OPERATION_NON_TRANSPOSE) {
    for (int64_t S = 0; S < N; ++S) {
      int64_t I = Lower ? S : N - 1 - S;
      T Sum = Tmp[size_t(I)];
      for (auto [C, K] : Rows[size_t(I)])
        if (Lower ? C < I : C > I)
          Sum -= V[K] * Tmp[size_t(C)];
      Tmp[size_t(I)] = Sum / Diag[size_t(I)];
    }
  } else { // the transpose: column sweeps over A's rows
    for (int64_t S = 0; S < N; ++S) {
      int64_t I = Lower ? N - 1 - S : S;
      Tmp[size_t(I)] /= Diag[size_t(I)];
      for (auto [C, K] : Rows[size_t(I)])
        if (Lower ? C < I : C > I)
          Tmp[size_t(C)] -= conjIf(V[K], Conj) * Tmp[size_t(I)];
    }
  }
  std::copy(Tmp.begin(), Tmp.end(), Y);
}

/// C = alpha A B (CSR x CSR) into G.
template <typename T> void spgemm(const SpMat &A, const SpMat &B, T Alpha, SpGEMM &G) {
  auto Ar = rowsOf(A), Br = rowsOf(B);
  const T *Av = static_cast<const T *>(A.Val), *Bv = static_cast<const T *>(B.Val);
  std::vector<T> Acc(size_t(B.Cols), T(0));
  std::vector<int64_t> Mark(size_t(B.Cols), -1), Cols;
  std::vector<T> Vals;
  G.Off.assign(1, 0);
  G.Ind.clear();
  for (int64_t I = 0; I < A.Rows; ++I) {
    Cols.clear();
    for (auto [K, Ka] : Ar[size_t(I)])
      for (auto [J, Kb] : Br[size_t(K)]) {
        if (Mark[size_t(J)] != I) {
          Mark[size_t(J)] = I;
          Acc[size_t(J)] = T(0);
          Cols.push_back(J);
        }
        Acc[size_t(J)] += Av[Ka] * Bv[Kb];
      }
    std::sort(Cols.begin(), Cols.end());
    for (int64_t J : Cols) {
      G.Ind.push_back(J);
      Vals.push_back(Alpha * Acc[size_t(J)]);
    }
    G.Off.push_back(int64_t(G.Ind.size()));
  }
  G.Val.resize(Vals.size() * sizeof(T));
  if (!Vals.empty())
    std::memcpy(G.Val.data(), Vals.data(), G.Val.size());
}

/// ILU(0) in place on a CSR matrix (m rows, base); returns the first zero pivot or -1. With \p Boost a pivot
/// of magnitude at most \p Tol becomes \p BoostVal (and is no zero pivot).
template <typename T>
int64_t ilu0(int64_t M, const int *Off, const int *Ind, T *V, int Base, bool Boost = false, double Tol = 0,
             T BoostVal = T(0)) {
  std::vector<int64_t> Pos(size_t(M), -1);
  int64_t Zero = -1;
  std::vector<int64_t> DiagAt(size_t(M), -1);
  for (int64_t I = 0; I < M; ++I)
    for (int64_t K = Off[I] - Base; K < Off[I + 1] - Base; ++K)
      if (Ind[K] - Base == I)
        DiagAt[size_t(I)] = K;
  for (int64_t I = 0; I < M; ++I) {
    for (int64_t K = Off[I] - Base; K < Off[I + 1] - Base; ++K)
      Pos[size_t(Ind[K] - Base)] = K;
    for (int64_t K = Off[I] - Base; K < Off[I + 1] - Base; ++K) {
      int64_t Kc = Ind[K] - Base;
      if (Kc >= I)
        break; // sorted columns: the rest is the upper part
      if (DiagAt[size_t(Kc)] < 0 || V[DiagAt[size_t(Kc)]] == T(0))
        continue; // reported as the pivot of row Kc
      V[K] /= V[DiagAt[size_t(Kc)]];
      for (int64_t J = DiagAt[size_t(Kc)] + 1; J < Off[Kc + 1] - Base; ++J) {
        int64_t P = Pos[size_t(Ind[J] - Base)];
        if (P >= 0)
          V[P] -= V[K] * V[J];
      }
    }
    if (Boost && DiagAt[size_t(I)] >= 0 && std::abs(V[DiagAt[size_t(I)]]) <= Tol)
      V[DiagAt[size_t(I)]] = BoostVal;
    if ((DiagAt[size_t(I)] < 0 || V[DiagAt[size_t(I)]] == T(0)) && Zero < 0)
      Zero = I;
    for (int64_t K = Off[I] - Base; K < Off[I + 1] - Base; ++K)
      Pos[size_t(Ind[K] - Base)] = -1;
  }
  return Zero;
}

/// IC(0) in place on the lower triangle of a CSR matrix; returns the first zero pivot or -1.
template <typename T> int64_t ic0(int64_t M, const int *Off, const int *Ind, T *V, int Base) {
  std::vector<int64_t> DiagAt(size_t(M), -1);
  std::vector<int64_t> Pos(size_t(M), -1);
  int64_t Zero = -1;
  for (int64_t I = 0; I < M; ++I)
    for (int64_t K = Off[I] - Base; K < Off[I + 1] - Base; ++K)
      if (Ind[K] - Base == I)
        DiagAt[size_t(I)] = K;
  for (int64_t I = 0; I < M; ++I) {
    for (int64_t K = Off[I] - Base; K < Off[I + 1] - Base; ++K)
      Pos[size_t(Ind[K] - Base)] = K;
    for (int64_t K = Off[I] - Base; K < Off[I + 1] - Base; ++K) {
      int64_t Kc = Ind[K] - Base;
      if (Kc > I)
        break;
      // s = a_ik - sum_{j < k} l_ij conj(l_kj)
      T S = V[K];
      for (int64_t J = Off[Kc] - Base; J < Off[Kc + 1] - Base && Ind[J] - Base < Kc; ++J) {
        int64_t P = Pos[size_t(Ind[J] - Base)];
        if (P >= 0)
          S -= V[P] * conjIf(V[J], true);
      }
      if (Kc < I) {
        T D = DiagAt[size_t(Kc)] >= 0 ? V[DiagAt[size_t(Kc)]] : T(0);
        V[K] = D == T(0) ? S : S / D;
      } else {
        double Re = std::real(S);
        if (!(Re > 0) && Zero < 0)
          Zero = I;
        V[K] = T(Re > 0 ? std::sqrt(Re) : Re);
      }
    }
    if (DiagAt[size_t(I)] < 0 && Zero < 0)
      Zero = I;
    for (int64_t K = Off[I] - Base; K < Off[I + 1] - Base; ++K)
      Pos[size_t(Ind[K] - Base)] = -1;
  }
  return Zero;
}

} // namespace
} // namespace zluda::cusparse

using namespace zluda;
using namespace zluda::cusparse;

//===----------------------------------------------------------------------===//
// Handles and descriptors
//===----------------------------------------------------------------------===//
CUSPARSE_API cusparseStatus_t cusparseCreate(cusparseHandle_t *Out) {
  if (!Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  CUcontext Ctx;
  if (libs::ensureContext(Ctx))
    return CUSPARSE_STATUS_NOT_INITIALIZED;
  auto *H = new Handle;
  H->Ctx = Ctx;
  *Out = reinterpret_cast<cusparseHandle_t>(track(H));
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseDestroy(cusparseHandle_t Hd) {
  Handle *H = handle(Hd);
  if (!H)
    return CUSPARSE_STATUS_NOT_INITIALIZED;
  libs::wait(H->Stream);
  drop(H);
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSetStream(cusparseHandle_t Hd, CUstream S) {
  Handle *H = handle(Hd);
  if (!H)
    return CUSPARSE_STATUS_NOT_INITIALIZED;
  H->Stream = S;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseGetStream(cusparseHandle_t Hd, CUstream *S) {
  Handle *H = handle(Hd);
  if (!H)
    return CUSPARSE_STATUS_NOT_INITIALIZED;
  if (!S)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *S = H->Stream;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSetPointerMode(cusparseHandle_t Hd, cusparsePointerMode_t M) {
  Handle *H = handle(Hd);
  if (!H)
    return CUSPARSE_STATUS_NOT_INITIALIZED;
  if (M != CUSPARSE_POINTER_MODE_HOST && M != CUSPARSE_POINTER_MODE_DEVICE)
    return CUSPARSE_STATUS_INVALID_VALUE;
  H->PointerMode = M;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseGetPointerMode(cusparseHandle_t Hd, cusparsePointerMode_t *M) {
  Handle *H = handle(Hd);
  if (!H)
    return CUSPARSE_STATUS_NOT_INITIALIZED;
  if (!M)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *M = H->PointerMode;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseGetVersion(cusparseHandle_t, int *V) {
  if (!V)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *V = 12600; // cuSPARSE 12.6 of CUDA 13.0
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseGetProperty(libraryPropertyType T, int *V) {
  if (!V)
    return CUSPARSE_STATUS_INVALID_VALUE;
  switch (T) {
  case MAJOR_VERSION:
    *V = 12;
    return CUSPARSE_STATUS_SUCCESS;
  case MINOR_VERSION:
    *V = 6;
    return CUSPARSE_STATUS_SUCCESS;
  case PATCH_LEVEL:
    *V = 0;
    return CUSPARSE_STATUS_SUCCESS;
  }
  return CUSPARSE_STATUS_INVALID_VALUE;
}
CUSPARSE_API const char *cusparseGetErrorName(cusparseStatus_t S) {
  switch (S) {
#define N(X)                                                                                                           \
  case X:                                                                                                              \
    return #X;
    N(CUSPARSE_STATUS_SUCCESS)
    N(CUSPARSE_STATUS_NOT_INITIALIZED)
    N(CUSPARSE_STATUS_ALLOC_FAILED)
    N(CUSPARSE_STATUS_INVALID_VALUE)
    N(CUSPARSE_STATUS_ARCH_MISMATCH)
    N(CUSPARSE_STATUS_MAPPING_ERROR)
    N(CUSPARSE_STATUS_EXECUTION_FAILED)
    N(CUSPARSE_STATUS_INTERNAL_ERROR)
    N(CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED)
    N(CUSPARSE_STATUS_ZERO_PIVOT)
    N(CUSPARSE_STATUS_NOT_SUPPORTED)
    N(CUSPARSE_STATUS_INSUFFICIENT_RESOURCES)
#undef N
  }
  return "CUSPARSE_STATUS_UNKNOWN";
}
CUSPARSE_API const char *cusparseGetErrorString(cusparseStatus_t S) {
  switch (S) {
  case CUSPARSE_STATUS_SUCCESS:
    return "success";
  case CUSPARSE_STATUS_NOT_INITIALIZED:
    return "initialization error";
  case CUSPARSE_STATUS_INVALID_VALUE:
    return "invalid value";
  case CUSPARSE_STATUS_ZERO_PIVOT:
    return "zero pivot";
  case CUSPARSE_STATUS_NOT_SUPPORTED:
    return "operation not supported";
  default:
    return cusparseGetErrorName(S);
  }
}

CUSPARSE_API cusparseStatus_t cusparseCreateMatDescr(cusparseMatDescr_t *Out) {
  if (!Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Out = reinterpret_cast<cusparseMatDescr_t>(track(new MatDescr));
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseDestroyMatDescr(cusparseMatDescr_t D) {
  return drop(lookup<MatDescr>(D)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}
#define MAT_FIELD(Set, Get, Field, Type)                                                                               \
  CUSPARSE_API cusparseStatus_t Set(cusparseMatDescr_t D, Type V) {                                                   \
    auto *M = lookup<MatDescr>(D);                                                                                     \
    if (!M)                                                                                                            \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    M->Field = V;                                                                                                      \
    return CUSPARSE_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSPARSE_API Type Get(const cusparseMatDescr_t D) {                                                                 \
    auto *M = lookup<MatDescr>(D);                                                                                     \
    return M ? M->Field : Type(0);                                                                                     \
  }
MAT_FIELD(cusparseSetMatType, cusparseGetMatType, Type, cusparseMatrixType_t)
MAT_FIELD(cusparseSetMatFillMode, cusparseGetMatFillMode, Fill, cusparseFillMode_t)
MAT_FIELD(cusparseSetMatDiagType, cusparseGetMatDiagType, Diag, cusparseDiagType_t)
MAT_FIELD(cusparseSetMatIndexBase, cusparseGetMatIndexBase, Base, cusparseIndexBase_t)
#undef MAT_FIELD

CUSPARSE_API cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t *Out, int64_t R, int64_t C, int64_t Nnz,
                                                void *Off, void *Ind, void *Val, cusparseIndexType_t OffT,
                                                cusparseIndexType_t IndT, cusparseIndexBase_t B, cudaDataType VT) {
  return makeSp(Out, CUSPARSE_FORMAT_CSR, R, C, Nnz, Off, Ind, nullptr, Val, OffT, IndT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseCreateConstCsr(cusparseSpMatDescr_t *Out, int64_t R, int64_t C, int64_t Nnz,
                                                     const void *Off, const void *Ind, const void *Val,
                                                     cusparseIndexType_t OffT, cusparseIndexType_t IndT,
                                                     cusparseIndexBase_t B, cudaDataType VT) {
  return makeSp(Out, CUSPARSE_FORMAT_CSR, R, C, Nnz, const_cast<void *>(Off), const_cast<void *>(Ind), nullptr,
                const_cast<void *>(Val), OffT, IndT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseCreateCsc(cusparseSpMatDescr_t *Out, int64_t R, int64_t C, int64_t Nnz,
                                                void *Off, void *Ind, void *Val, cusparseIndexType_t OffT,
                                                cusparseIndexType_t IndT, cusparseIndexBase_t B, cudaDataType VT) {
  return makeSp(Out, CUSPARSE_FORMAT_CSC, R, C, Nnz, Off, Ind, nullptr, Val, OffT, IndT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseCreateConstCsc(cusparseSpMatDescr_t *Out, int64_t R, int64_t C, int64_t Nnz,
                                                     const void *Off, const void *Ind, const void *Val,
                                                     cusparseIndexType_t OffT, cusparseIndexType_t IndT,
                                                     cusparseIndexBase_t B, cudaDataType VT) {
  return makeSp(Out, CUSPARSE_FORMAT_CSC, R, C, Nnz, const_cast<void *>(Off), const_cast<void *>(Ind), nullptr,
                const_cast<void *>(Val), OffT, IndT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseCreateCoo(cusparseSpMatDescr_t *Out, int64_t R, int64_t C, int64_t Nnz,
                                                void *Rows, void *Cols, void *Val, cusparseIndexType_t IT,
                                                cusparseIndexBase_t B, cudaDataType VT) {
  return makeSp(Out, CUSPARSE_FORMAT_COO, R, C, Nnz, nullptr, Cols, Rows, Val, IT, IT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseCreateConstCoo(cusparseSpMatDescr_t *Out, int64_t R, int64_t C, int64_t Nnz,
                                                     const void *Rows, const void *Cols, const void *Val,
                                                     cusparseIndexType_t IT, cusparseIndexBase_t B, cudaDataType VT) {
  return makeSp(Out, CUSPARSE_FORMAT_COO, R, C, Nnz, nullptr, const_cast<void *>(Cols), const_cast<void *>(Rows),
                const_cast<void *>(Val), IT, IT, B, VT);
}
// The blocked formats (see SpMat): BSR, Blocked-ELL, Sliced-ELL, with their Const forms and getters.
CUSPARSE_API cusparseStatus_t cusparseCreateBsr(cusparseSpMatDescr_t *Out, int64_t Brows, int64_t Bcols, int64_t Bnnz,
                                                int64_t Rb, int64_t Cb, void *Off, void *Ind, void *Val,
                                                cusparseIndexType_t OffT, cusparseIndexType_t IndT,
                                                cusparseIndexBase_t B, cudaDataType VT, cusparseOrder_t Order) {
  if (Brows < 0 || Bcols < 0 || Bnnz < 0 || Rb < 1 || Cb < 1 ||
      (Order != CUSPARSE_ORDER_ROW && Order != CUSPARSE_ORDER_COL))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (cusparseStatus_t S = makeSp(Out, CUSPARSE_FORMAT_BSR, Brows * Rb, Bcols * Cb, Bnnz, Off, Ind, nullptr, Val, OffT,
                                  IndT, B, VT))
    return S;
  auto *M = lookup<SpMat>(*Out);
  M->BlockRows = Brows, M->RowBlock = Rb, M->ColBlock = Cb, M->BlockOrder = Order, M->Stored = Bnnz * Rb * Cb;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCreateConstBsr(cusparseSpMatDescr_t *Out, int64_t Brows, int64_t Bcols,
                                                     int64_t Bnnz, int64_t Rb, int64_t Cb, const void *Off,
                                                     const void *Ind, const void *Val, cusparseIndexType_t OffT,
                                                     cusparseIndexType_t IndT, cusparseIndexBase_t B, cudaDataType VT,
                                                     cusparseOrder_t Order) {
  return cusparseCreateBsr(Out, Brows, Bcols, Bnnz, Rb, Cb, const_cast<void *>(Off), const_cast<void *>(Ind),
                           const_cast<void *>(Val), OffT, IndT, B, VT, Order);
}
CUSPARSE_API cusparseStatus_t cusparseCreateBlockedEll(cusparseSpMatDescr_t *Out, int64_t R, int64_t C, int64_t Eb,
                                                       int64_t EllCols, void *Ind, void *Val, cusparseIndexType_t IT,
                                                       cusparseIndexBase_t B, cudaDataType VT) {
  // Whole blocks only: rows, columns and ELL columns multiples of the block size.
  if (Eb < 1 || R < 0 || C < 0 || EllCols < 0 || R % Eb || C % Eb || EllCols % Eb || EllCols > C)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (cusparseStatus_t S = makeSp(Out, CUSPARSE_FORMAT_BLOCKED_ELL, R, C, R * EllCols, nullptr, Ind, nullptr, Val, IT,
                                  IT, B, VT))
    return S;
  auto *M = lookup<SpMat>(*Out);
  M->EllBlock = Eb, M->EllCols = EllCols, M->Stored = R * EllCols;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCreateConstBlockedEll(cusparseSpMatDescr_t *Out, int64_t R, int64_t C,
                                                            int64_t Eb, int64_t EllCols, const void *Ind,
                                                            const void *Val, cusparseIndexType_t IT,
                                                            cusparseIndexBase_t B, cudaDataType VT) {
  return cusparseCreateBlockedEll(Out, R, C, Eb, EllCols, const_cast<void *>(Ind), const_cast<void *>(Val), IT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseBlockedEllGet(cusparseSpMatDescr_t D, int64_t *R, int64_t *C, int64_t *Eb,
                                                    int64_t *EllCols, void **Ind, void **Val, cusparseIndexType_t *IT,
                                                    cusparseIndexBase_t *B, cudaDataType *VT) {
  auto *M = lookup<SpMat>(D);
  if (!M || M->Fmt != CUSPARSE_FORMAT_BLOCKED_ELL || !R || !C || !Eb || !EllCols || !Ind || !Val || !IT || !B || !VT)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *R = M->Rows, *C = M->Cols, *Eb = M->EllBlock, *EllCols = M->EllCols, *Ind = M->Ind, *Val = M->Val;
  *IT = M->IndType, *B = M->Base, *VT = M->VT;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseConstBlockedEllGet(const void *D, int64_t *R, int64_t *C, int64_t *Eb,
                                                         int64_t *EllCols, const void **Ind, const void **Val,
                                                         cusparseIndexType_t *IT, cusparseIndexBase_t *B,
                                                         cudaDataType *VT) {
  return cusparseBlockedEllGet(reinterpret_cast<cusparseSpMatDescr_t>(const_cast<void *>(D)), R, C, Eb, EllCols,
                               const_cast<void **>(Ind), const_cast<void **>(Val), IT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseCreateSlicedEll(cusparseSpMatDescr_t *Out, int64_t R, int64_t C, int64_t Nnz,
                                                      int64_t ValuesSize, int64_t SliceSize, void *Off, void *Ind,
                                                      void *Val, cusparseIndexType_t OffT, cusparseIndexType_t IndT,
                                                      cusparseIndexBase_t B, cudaDataType VT) {
  if (SliceSize < 1 || ValuesSize < Nnz || ValuesSize < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (cusparseStatus_t S = makeSp(Out, CUSPARSE_FORMAT_SLICED_ELLPACK, R, C, Nnz, Off, Ind, nullptr, Val, OffT, IndT,
                                  B, VT))
    return S;
  auto *M = lookup<SpMat>(*Out);
  M->SliceSize = SliceSize, M->Stored = ValuesSize;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCreateConstSlicedEll(cusparseSpMatDescr_t *Out, int64_t R, int64_t C,
                                                           int64_t Nnz, int64_t ValuesSize, int64_t SliceSize,
                                                           const void *Off, const void *Ind, const void *Val,
                                                           cusparseIndexType_t OffT, cusparseIndexType_t IndT,
                                                           cusparseIndexBase_t B, cudaDataType VT) {
  return cusparseCreateSlicedEll(Out, R, C, Nnz, ValuesSize, SliceSize, const_cast<void *>(Off),
                                 const_cast<void *>(Ind), const_cast<void *>(Val), OffT, IndT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseDestroySpMat(const void *D) {
  return drop(lookup<SpMat>(D)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}
/// CsrGet and CscGet: the fields of a matrix of format \p F.
static cusparseStatus_t compressedGet(const void *D, cusparseFormat_t F, int64_t *R, int64_t *C, int64_t *Nnz,
                                      void **Off, void **Ind, void **Val, cusparseIndexType_t *OffT,
                                      cusparseIndexType_t *IndT, cusparseIndexBase_t *B, cudaDataType *VT) {
  auto *M = lookup<SpMat>(D);
  if (!M || M->Fmt != F || !R || !C || !Nnz || !Off || !Ind || !Val || !OffT || !IndT || !B || !VT)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *R = M->Rows, *C = M->Cols, *Nnz = M->Nnz, *Off = M->Off, *Ind = M->Ind, *Val = M->Val;
  *OffT = M->OffType, *IndT = M->IndType, *B = M->Base, *VT = M->VT;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCsrGet(cusparseSpMatDescr_t D, int64_t *R, int64_t *C, int64_t *Nnz,
                                             void **Off, void **Ind, void **Val, cusparseIndexType_t *OffT,
                                             cusparseIndexType_t *IndT, cusparseIndexBase_t *B, cudaDataType *VT) {
  return compressedGet(D, CUSPARSE_FORMAT_CSR, R, C, Nnz, Off, Ind, Val, OffT, IndT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseConstCsrGet(const void *D, int64_t *R, int64_t *C, int64_t *Nnz,
                                                  const void **Off, const void **Ind, const void **Val,
                                                  cusparseIndexType_t *OffT, cusparseIndexType_t *IndT,
                                                  cusparseIndexBase_t *B, cudaDataType *VT) {
  return cusparseCsrGet(reinterpret_cast<cusparseSpMatDescr_t>(const_cast<void *>(D)), R, C, Nnz,
                        const_cast<void **>(Off), const_cast<void **>(Ind), const_cast<void **>(Val), OffT, IndT, B,
                        VT);
}
CUSPARSE_API cusparseStatus_t cusparseCooGet(cusparseSpMatDescr_t D, int64_t *R, int64_t *C, int64_t *Nnz,
                                             void **Rows, void **Cols, void **Val, cusparseIndexType_t *IT,
                                             cusparseIndexBase_t *B, cudaDataType *VT) {
  auto *M = lookup<SpMat>(D);
  if (!M || M->Fmt != CUSPARSE_FORMAT_COO || !R || !C || !Nnz || !Rows || !Cols || !Val || !IT || !B || !VT)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *R = M->Rows, *C = M->Cols, *Nnz = M->Nnz, *Rows = M->RowInd, *Cols = M->Ind, *Val = M->Val;
  *IT = M->IndType, *B = M->Base, *VT = M->VT;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCsrSetPointers(cusparseSpMatDescr_t D, void *Off, void *Ind, void *Val) {
  auto *M = lookup<SpMat>(D);
  if (!M || M->Fmt != CUSPARSE_FORMAT_CSR)
    return CUSPARSE_STATUS_INVALID_VALUE;
  M->Off = Off, M->Ind = Ind, M->Val = Val;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCscSetPointers(cusparseSpMatDescr_t D, void *Off, void *Ind, void *Val) {
  auto *M = lookup<SpMat>(D);
  if (!M || M->Fmt != CUSPARSE_FORMAT_CSC)
    return CUSPARSE_STATUS_INVALID_VALUE;
  M->Off = Off, M->Ind = Ind, M->Val = Val;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCooSetPointers(cusparseSpMatDescr_t D, void *Rows, void *Cols, void *Val) {
  auto *M = lookup<SpMat>(D);
  if (!M || M->Fmt != CUSPARSE_FORMAT_COO)
    return CUSPARSE_STATUS_INVALID_VALUE;
  M->RowInd = Rows, M->Ind = Cols, M->Val = Val;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpMatGetSize(const void *D, int64_t *R, int64_t *C, int64_t *Nnz) {
  auto *M = lookup<SpMat>(D);
  if (!M || !R || !C || !Nnz)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *R = M->Rows, *C = M->Cols, *Nnz = M->Nnz;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpMatGetFormat(const void *D, cusparseFormat_t *F) {
  auto *M = lookup<SpMat>(D);
  if (!M || !F)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *F = M->Fmt;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpMatGetIndexBase(const void *D, cusparseIndexBase_t *B) {
  auto *M = lookup<SpMat>(D);
  if (!M || !B)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *B = M->Base;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpMatGetValues(cusparseSpMatDescr_t D, void **V) {
  auto *M = lookup<SpMat>(D);
  if (!M || !V)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *V = M->Val;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseConstSpMatGetValues(const void *D, const void **V) {
  return cusparseSpMatGetValues(reinterpret_cast<cusparseSpMatDescr_t>(const_cast<void *>(D)),
                                const_cast<void **>(V));
}
CUSPARSE_API cusparseStatus_t cusparseSpMatSetValues(cusparseSpMatDescr_t D, void *V) {
  auto *M = lookup<SpMat>(D);
  if (!M)
    return CUSPARSE_STATUS_INVALID_VALUE;
  M->Val = V;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpMatSetAttribute(cusparseSpMatDescr_t D, cusparseSpMatAttribute_t A, void *Data,
                                                        size_t Size) {
  auto *M = lookup<SpMat>(D);
  if (!M || !Data || Size != sizeof(int))
    return CUSPARSE_STATUS_INVALID_VALUE;
  int V;
  std::memcpy(&V, Data, sizeof V);
  if (A == CUSPARSE_SPMAT_FILL_MODE && (V == 0 || V == 1))
    M->Fill = cusparseFillMode_t(V);
  else if (A == CUSPARSE_SPMAT_DIAG_TYPE && (V == 0 || V == 1))
    M->Diag = cusparseDiagType_t(V);
  else
    return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpMatGetAttribute(const void *D, cusparseSpMatAttribute_t A, void *Data,
                                                        size_t Size) {
  auto *M = lookup<SpMat>(D);
  if (!M || !Data || Size != sizeof(int))
    return CUSPARSE_STATUS_INVALID_VALUE;
  int V = A == CUSPARSE_SPMAT_FILL_MODE ? int(M->Fill) : A == CUSPARSE_SPMAT_DIAG_TYPE ? int(M->Diag) : -1;
  if (V < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  std::memcpy(Data, &V, sizeof V);
  return CUSPARSE_STATUS_SUCCESS;
}

CUSPARSE_API cusparseStatus_t cusparseCreateDnVec(cusparseDnVecDescr_t *Out, int64_t N, void *V, cudaDataType T) {
  if (!Out || N < 0 || !storable(T))
    return CUSPARSE_STATUS_INVALID_VALUE;
  auto *D = new DnVec{N, V, T};
  *Out = reinterpret_cast<cusparseDnVecDescr_t>(track(D));
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCreateConstDnVec(cusparseDnVecDescr_t *Out, int64_t N, const void *V,
                                                       cudaDataType T) {
  return cusparseCreateDnVec(Out, N, const_cast<void *>(V), T);
}
CUSPARSE_API cusparseStatus_t cusparseDestroyDnVec(const void *D) {
  return drop(lookup<DnVec>(D)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}
CUSPARSE_API cusparseStatus_t cusparseDnVecGet(cusparseDnVecDescr_t D, int64_t *N, void **V, cudaDataType *T) {
  auto *Dv = lookup<DnVec>(D);
  if (!Dv || !N || !V || !T)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *N = Dv->Size, *V = Dv->Val, *T = Dv->VT;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseDnVecGetValues(cusparseDnVecDescr_t D, void **V) {
  auto *Dv = lookup<DnVec>(D);
  if (!Dv || !V)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *V = Dv->Val;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseConstDnVecGetValues(const void *D, const void **V) {
  return cusparseDnVecGetValues(reinterpret_cast<cusparseDnVecDescr_t>(const_cast<void *>(D)),
                                const_cast<void **>(V));
}
CUSPARSE_API cusparseStatus_t cusparseDnVecSetValues(cusparseDnVecDescr_t D, void *V) {
  auto *Dv = lookup<DnVec>(D);
  if (!Dv)
    return CUSPARSE_STATUS_INVALID_VALUE;
  Dv->Val = V;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t *Out, int64_t R, int64_t C, int64_t Ld,
                                                  void *V, cudaDataType T, cusparseOrder_t O) {
  if (!Out || R < 0 || C < 0 || !storable(T) || (O != CUSPARSE_ORDER_COL && O != CUSPARSE_ORDER_ROW) ||
      Ld < (O == CUSPARSE_ORDER_COL ? std::max<int64_t>(1, R) : std::max<int64_t>(1, C)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  auto *D = new DnMat{R, C, Ld, V, T, O};
  *Out = reinterpret_cast<cusparseDnMatDescr_t>(track(D));
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCreateConstDnMat(cusparseDnMatDescr_t *Out, int64_t R, int64_t C, int64_t Ld,
                                                       const void *V, cudaDataType T, cusparseOrder_t O) {
  return cusparseCreateDnMat(Out, R, C, Ld, const_cast<void *>(V), T, O);
}
CUSPARSE_API cusparseStatus_t cusparseDestroyDnMat(const void *D) {
  return drop(lookup<DnMat>(D)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}
CUSPARSE_API cusparseStatus_t cusparseDnMatGet(cusparseDnMatDescr_t D, int64_t *R, int64_t *C, int64_t *Ld, void **V,
                                               cudaDataType *T, cusparseOrder_t *O) {
  auto *M = lookup<DnMat>(D);
  if (!M || !R || !C || !Ld || !V || !T || !O)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *R = M->Rows, *C = M->Cols, *Ld = M->Ld, *V = M->Val, *T = M->VT, *O = M->Order;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseDnMatGetValues(cusparseDnMatDescr_t D, void **V) {
  auto *M = lookup<DnMat>(D);
  if (!M || !V)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *V = M->Val;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseDnMatSetValues(cusparseDnMatDescr_t D, void *V) {
  auto *M = lookup<DnMat>(D);
  if (!M)
    return CUSPARSE_STATUS_INVALID_VALUE;
  M->Val = V;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseConstDnMatGet(const void *D, int64_t *R, int64_t *C, int64_t *Ld,
                                                    const void **V, cudaDataType *T, cusparseOrder_t *O) {
  return cusparseDnMatGet(reinterpret_cast<cusparseDnMatDescr_t>(const_cast<void *>(D)), R, C, Ld,
                          const_cast<void **>(V), T, O);
}
CUSPARSE_API cusparseStatus_t cusparseConstDnMatGetValues(const void *D, const void **V) {
  return cusparseDnMatGetValues(reinterpret_cast<cusparseDnMatDescr_t>(const_cast<void *>(D)),
                                const_cast<void **>(V));
}
CUSPARSE_API cusparseStatus_t cusparseConstDnVecGet(const void *D, int64_t *N, const void **V, cudaDataType *T) {
  return cusparseDnVecGet(reinterpret_cast<cusparseDnVecDescr_t>(const_cast<void *>(D)), N, const_cast<void **>(V), T);
}
CUSPARSE_API cusparseStatus_t cusparseCscGet(cusparseSpMatDescr_t D, int64_t *R, int64_t *C, int64_t *Nnz,
                                             void **Off, void **Ind, void **Val, cusparseIndexType_t *OffT,
                                             cusparseIndexType_t *IndT, cusparseIndexBase_t *B, cudaDataType *VT) {
  return compressedGet(D, CUSPARSE_FORMAT_CSC, R, C, Nnz, Off, Ind, Val, OffT, IndT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseConstCscGet(const void *D, int64_t *R, int64_t *C, int64_t *Nnz,
                                                  const void **Off, const void **Ind, const void **Val,
                                                  cusparseIndexType_t *OffT, cusparseIndexType_t *IndT,
                                                  cusparseIndexBase_t *B, cudaDataType *VT) {
  return cusparseCscGet(reinterpret_cast<cusparseSpMatDescr_t>(const_cast<void *>(D)), R, C, Nnz,
                        const_cast<void **>(Off), const_cast<void **>(Ind), const_cast<void **>(Val), OffT, IndT, B,
                        VT);
}
CUSPARSE_API cusparseStatus_t cusparseConstCooGet(const void *D, int64_t *R, int64_t *C, int64_t *Nnz,
                                                  const void **Rows, const void **Cols, const void **Val,
                                                  cusparseIndexType_t *IT, cusparseIndexBase_t *B, cudaDataType *VT) {
  return cusparseCooGet(reinterpret_cast<cusparseSpMatDescr_t>(const_cast<void *>(D)), R, C, Nnz,
                        const_cast<void **>(Rows), const_cast<void **>(Cols), const_cast<void **>(Val), IT, B, VT);
}

// Strided batches (cuSPARSE's rules: a count of at least 1; strides not negative).
CUSPARSE_API cusparseStatus_t cusparseCsrSetStridedBatch(cusparseSpMatDescr_t D, int Count, int64_t OffStride,
                                                         int64_t IndValStride) {
  auto *M = lookup<SpMat>(D);
  if (!M || M->Fmt != CUSPARSE_FORMAT_CSR || Count < 1 || OffStride < 0 || IndValStride < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  M->BatchCount = Count, M->OffStride = OffStride, M->IndStride = IndValStride, M->ValStride = IndValStride;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCooSetStridedBatch(cusparseSpMatDescr_t D, int Count, int64_t Stride) {
  auto *M = lookup<SpMat>(D);
  if (!M || M->Fmt != CUSPARSE_FORMAT_COO || Count < 1 || Stride < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  M->BatchCount = Count, M->OffStride = 0, M->IndStride = Stride, M->ValStride = Stride;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseBsrSetStridedBatch(cusparseSpMatDescr_t D, int Count, int64_t OffStride,
                                                         int64_t ColStride, int64_t ValStride) {
  auto *M = lookup<SpMat>(D);
  if (!M || M->Fmt != CUSPARSE_FORMAT_BSR || Count < 1 || OffStride < 0 || ColStride < 0 || ValStride < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  M->BatchCount = Count, M->OffStride = OffStride, M->IndStride = ColStride, M->ValStride = ValStride;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpMatGetStridedBatch(const void *D, int *Count) {
  auto *M = lookup<SpMat>(D);
  if (!M || !Count)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Count = M->BatchCount;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseDnMatSetStridedBatch(cusparseDnMatDescr_t D, int Count, int64_t Stride) {
  auto *M = lookup<DnMat>(D);
  if (!M || Count < 1 || Stride < 0 ||
      (Count > 1 && Stride < M->Ld * (M->Order == CUSPARSE_ORDER_COL ? M->Cols : M->Rows)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  M->BatchCount = Count, M->BatchStride = Stride;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseDnMatGetStridedBatch(const void *D, int *Count, int64_t *Stride) {
  auto *M = lookup<DnMat>(D);
  if (!M || !Count || !Stride)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Count = M->BatchCount, *Stride = M->BatchStride;
  return CUSPARSE_STATUS_SUCCESS;
}

// The logger: its settings are kept and checked; this library emits no log messages through it (ZLUDA_LOG
// carries ours).
namespace zluda::cusparse {
namespace {
struct LoggerState {
  std::mutex Mu;
  void *Callback = nullptr;
  FILE *File = nullptr;
  bool Owned = false, Disabled = false;
  int Level = 0, Mask = 0;
};
LoggerState &logger() {
  static auto *L = new LoggerState; // never freed: calls may come during exit
  return *L;
}
} // namespace
} // namespace zluda::cusparse
CUSPARSE_API cusparseStatus_t cusparseLoggerSetCallback(void *Callback) {
  std::lock_guard<std::mutex> G(logger().Mu);
  logger().Callback = Callback;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseLoggerSetFile(FILE *F) {
  std::lock_guard<std::mutex> G(logger().Mu);
  if (logger().Owned && logger().File)
    std::fclose(logger().File);
  logger().File = F, logger().Owned = false;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseLoggerOpenFile(const char *Path) {
  if (!Path)
    return CUSPARSE_STATUS_INVALID_VALUE;
  FILE *F = std::fopen(Path, "w");
  if (!F)
    return CUSPARSE_STATUS_INTERNAL_ERROR;
  std::lock_guard<std::mutex> G(logger().Mu);
  if (logger().Owned && logger().File)
    std::fclose(logger().File);
  logger().File = F, logger().Owned = true;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseLoggerSetLevel(int Level) {
  if (Level < 0 || Level > 5)
    return CUSPARSE_STATUS_INVALID_VALUE;
  std::lock_guard<std::mutex> G(logger().Mu);
  logger().Level = Level;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseLoggerSetMask(int Mask) {
  if (Mask < 0 || Mask > 0x1f)
    return CUSPARSE_STATUS_INVALID_VALUE;
  std::lock_guard<std::mutex> G(logger().Mu);
  logger().Mask = Mask;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseLoggerForceDisable() {
  std::lock_guard<std::mutex> G(logger().Mu);
  logger().Disabled = true;
  return CUSPARSE_STATUS_SUCCESS;
}

//===----------------------------------------------------------------------===//
// SpMV, SpMM, SpSV
//===----------------------------------------------------------------------===//
//===----------------------------------------------------------------------===//
// AMD GPUs: SpMV and SpMM of CSR, CSC and COO matrices through rocSPARSE
// where it loads (RocSparse.h), on the HIP stream under the handle's stream
// with the handle's pointer mode; the caller's buffer is rocSPARSE's (the
// buffer-size queries report its size). Without rocSPARSE, or for the other
// formats, the staged host path runs (Staged).
//===----------------------------------------------------------------------===//
void *zludaNativeStream(CUstream S); // src/driver/Driver.cpp

namespace {
namespace roc = zluda::rocsparse;

const roc::Api *rocSparse() { return libs::cpuDevice() ? nullptr : roc::api(); }
bool rocFormat(const SpMat &A) {
  return A.Fmt == CUSPARSE_FORMAT_CSR || A.Fmt == CUSPARSE_FORMAT_CSC || A.Fmt == CUSPARSE_FORMAT_COO;
}
int rocType(cudaDataType T) { return T == CUDA_R_32F ? 151 : T == CUDA_R_64F ? 152 : T == CUDA_C_32F ? 154 : 155; }
int rocIndex(cusparseIndexType_t T) { return T == CUSPARSE_INDEX_64I ? 3 : 2; }
int rocOp(cusparseOperation_t O) { return 111 + int(O); }
cusparseStatus_t fromRoc(roc::Status S) {
  return S == 0 ? CUSPARSE_STATUS_SUCCESS : S == 2 ? CUSPARSE_STATUS_NOT_SUPPORTED : CUSPARSE_STATUS_EXECUTION_FAILED;
}

/// rocSPARSE's descriptors of one call, destroyed with it.
struct RocCall {
  const roc::Api *Api;
  void *Handle = nullptr, *Mat = nullptr, *X = nullptr, *Y = nullptr;
  bool Dense = false; ///< X and Y are dense matrices
  explicit RocCall(const roc::Api *A) : Api(A) {}
  ~RocCall() {
    if (Mat)
      Api->DestroySpMat(Mat);
    for (void *D : {X, Y})
      if (D)
        Dense ? Api->DestroyDnMat(D) : Api->DestroyDnVec(D);
  }
  roc::Status begin(zluda::cusparse::Handle &H, const SpMat &A) {
    if (!H.Roc)
      if (roc::Status S = Api->CreateHandle(&H.Roc))
        return S;
    Handle = H.Roc;
    if (roc::Status S = Api->SetStream(Handle, zludaNativeStream(H.Stream)) |
                        Api->SetPointerMode(Handle, H.PointerMode == CUSPARSE_POINTER_MODE_DEVICE ? 1 : 0))
      return S;
    switch (A.Fmt) {
    case CUSPARSE_FORMAT_CSR:
      return Api->CreateCsr(&Mat, A.Rows, A.Cols, A.Nnz, A.Off, A.Ind, A.Val, rocIndex(A.OffType), rocIndex(A.IndType),
                            A.Base, rocType(A.VT));
    case CUSPARSE_FORMAT_CSC:
      return Api->CreateCsc(&Mat, A.Rows, A.Cols, A.Nnz, A.Off, A.Ind, A.Val, rocIndex(A.OffType), rocIndex(A.IndType),
                            A.Base, rocType(A.VT));
    default:
      return Api->CreateCoo(&Mat, A.Rows, A.Cols, A.Nnz, A.RowInd, A.Ind, A.Val, rocIndex(A.IndType), A.Base,
                            rocType(A.VT));
    }
  }
  roc::Status vectors(const DnVec &Xv, const DnVec &Yv) {
    return Api->CreateDnVec(&X, Xv.Size, Xv.Val, rocType(Xv.VT)) | Api->CreateDnVec(&Y, Yv.Size, Yv.Val, rocType(Yv.VT));
  }
  roc::Status matrices(const DnMat &Bm, const DnMat &Cm) {
    Dense = true;
    auto order = [](cusparseOrder_t O) { return O == CUSPARSE_ORDER_ROW ? 0 : 1; };
    return Api->CreateDnMat(&X, Bm.Rows, Bm.Cols, Bm.Ld, Bm.Val, rocType(Bm.VT), order(Bm.Order)) |
           Api->CreateDnMat(&Y, Cm.Rows, Cm.Cols, Cm.Ld, Cm.Val, rocType(Cm.VT), order(Cm.Order));
  }
};

/// SpMV through rocSPARSE: the buffer size (Buffer null) or the product.
cusparseStatus_t rocSpmv(zluda::cusparse::Handle &H, cusparseOperation_t Op, const void *Alpha, const SpMat &A,
                         const DnVec &X, const void *Beta, const DnVec &Y, cudaDataType Compute, size_t *Size,
                         void *Buffer) {
  RocCall C(rocSparse());
  if (roc::Status S = C.begin(H, A) | C.vectors(X, Y))
    return fromRoc(S);
  size_t Need = 0;
  if (roc::Status S = C.Api->SpMV(C.Handle, rocOp(Op), Alpha, C.Mat, C.X, Beta, C.Y, rocType(Compute), 0, &Need,
                                  nullptr))
    return fromRoc(S);
  if (!Buffer) {
    *Size = std::max<size_t>(Need, 16);
    return CUSPARSE_STATUS_SUCCESS;
  }
  return fromRoc(C.Api->SpMV(C.Handle, rocOp(Op), Alpha, C.Mat, C.X, Beta, C.Y, rocType(Compute), 0, &Need, Buffer));
}

/// SpMM through rocSPARSE: the buffer size (Buffer null) or preprocessing and the product.
cusparseStatus_t rocSpmm(zluda::cusparse::Handle &H, cusparseOperation_t OpA, cusparseOperation_t OpB,
                         const void *Alpha, const SpMat &A, const DnMat &B, const void *Beta, const DnMat &Cm,
                         cudaDataType Compute, size_t *Size, void *Buffer) {
  RocCall C(rocSparse());
  if (roc::Status S = C.begin(H, A) | C.matrices(B, Cm))
    return fromRoc(S);
  size_t Need = 0;
  auto call = [&](int Stage, void *Buf) {
    return C.Api->SpMM(C.Handle, rocOp(OpA), rocOp(OpB), Alpha, C.Mat, C.X, Beta, C.Y, rocType(Compute), 0, Stage,
                       &Need, Buf);
  };
  if (roc::Status S = call(roc::SpmmStageBufferSize, nullptr))
    return fromRoc(S);
  if (!Buffer) {
    *Size = std::max<size_t>(Need, 16);
    return CUSPARSE_STATUS_SUCCESS;
  }
  if (roc::Status S = call(roc::SpmmStagePreprocess, Buffer))
    return fromRoc(S);
  return fromRoc(call(roc::SpmmStageCompute, Buffer));
}
} // namespace

zluda::cusparse::Handle::~Handle() {
  if (Roc)
    roc::api()->DestroyHandle(Roc);
}

#define HANDLE_OR_FAIL(Hd)                                                                                             \
  Handle *H = handle(Hd);                                                                                              \
  if (!H)                                                                                                              \
    return CUSPARSE_STATUS_NOT_INITIALIZED;

static bool validOp(cusparseOperation_t O) {
  return O == CUSPARSE_OPERATION_NON_TRANSPOSE || O == CUSPARSE_OPERATION_TRANSPOSE ||
         O == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE;
}
static bool opSwaps(cusparseOperation_t O) { return O != CUSPARSE_OPERATION_NON_TRANSPOSE; }

namespace zluda::cusparse {
namespace {
/// SpMV's and SpMM's value and compute type combinations besides one type for all (cuSPARSE's table, and
/// the H200's answers: tests/probes/cusparse_types.h200.txt): A, X (or B), Y (or C), compute. A real f32
/// matrix with f64 vectors is SpMV's alone.
bool mixedAllowed(cudaDataType A, cudaDataType X, cudaDataType Y, cudaDataType C, bool Spmv) {
  static const cudaDataType Rows[][4] = {
      {CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUDA_R_32F},   {CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F},
      {CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUDA_R_32F},   {CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUDA_R_32F},
      {CUDA_R_8I, CUDA_R_8I, CUDA_R_32I, CUDA_R_32I},     {CUDA_R_8I, CUDA_R_8I, CUDA_R_32F, CUDA_R_32F},
      {CUDA_C_16F, CUDA_C_16F, CUDA_C_16F, CUDA_C_32F},   {CUDA_C_16BF, CUDA_C_16BF, CUDA_C_16BF, CUDA_C_32F},
      {CUDA_R_32F, CUDA_C_32F, CUDA_C_32F, CUDA_C_32F},   {CUDA_R_64F, CUDA_C_64F, CUDA_C_64F, CUDA_C_64F}};
  for (auto &R : Rows)
    if (R[0] == A && R[1] == X && R[2] == Y && R[3] == C)
      return true;
  return Spmv && A == CUDA_R_32F && X == CUDA_R_64F && Y == CUDA_R_64F && C == CUDA_R_64F;
}

/// The value checks SpMV and SpMM share: one compute type for all, or a row of mixedAllowed (CSR, CSC, COO).
cusparseStatus_t checkTypes(const SpMat &A, cudaDataType X, cudaDataType Y, cudaDataType Compute, bool Spmv) {
  if (A.VT == Compute && X == Compute && Y == Compute && validValue(Compute))
    return CUSPARSE_STATUS_SUCCESS;
  if (!mixedAllowed(A.VT, X, Y, Compute, Spmv))
    return CUSPARSE_STATUS_NOT_SUPPORTED; // a combination NVIDIA's cuSPARSE does not take either
  if (A.Fmt != CUSPARSE_FORMAT_CSR && A.Fmt != CUSPARSE_FORMAT_CSC && A.Fmt != CUSPARSE_FORMAT_COO) {
    libs::notSupported("cuSPARSE", Spmv ? "cusparseSpMV with mixed types on other formats than CSR, CSC, COO"
                                        : "cusparseSpMM with mixed types on other formats than CSR, CSC, COO");
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  return CUSPARSE_STATUS_SUCCESS;
}

using Cd = std::complex<double>;
Cd loadValue(cudaDataType T, const void *P, int64_t I) {
  auto *B = static_cast<const unsigned char *>(P);
  auto Get = [&](auto Tag, int64_t At) {
    decltype(Tag) V;
    std::memcpy(&V, B + At * int64_t(sizeof V), sizeof V);
    return V;
  };
  switch (T) {
  case CUDA_R_8I:
    return double(Get(int8_t(), I));
  case CUDA_R_32I:
    return double(Get(int32_t(), I));
  case CUDA_R_16F:
    return double(libs::halfToFloat(Get(uint16_t(), I)));
  case CUDA_R_16BF:
    return double(libs::bf16ToFloat(Get(uint16_t(), I)));
  case CUDA_R_32F:
    return double(Get(float(), I));
  case CUDA_R_64F:
    return Get(double(), I);
  case CUDA_C_16F:
    return {libs::halfToFloat(Get(uint16_t(), 2 * I)), libs::halfToFloat(Get(uint16_t(), 2 * I + 1))};
  case CUDA_C_16BF:
    return {libs::bf16ToFloat(Get(uint16_t(), 2 * I)), libs::bf16ToFloat(Get(uint16_t(), 2 * I + 1))};
  case CUDA_C_32F:
    return {Get(float(), 2 * I), Get(float(), 2 * I + 1)};
  default:
    return {Get(double(), 2 * I), Get(double(), 2 * I + 1)};
  }
}
/// Stores \p V (computed in the compute type) as type \p T: one rounding to nearest even to f16/bf16; int32
/// results are exact integers.
void storeValue(cudaDataType T, void *P, int64_t I, Cd V) {
  auto *B = static_cast<unsigned char *>(P);
  auto Put = [&](auto X, int64_t At) { std::memcpy(B + At * int64_t(sizeof X), &X, sizeof X); };
  switch (T) {
  case CUDA_R_32I:
    return Put(int32_t(int64_t(V.real())), I);
  case CUDA_R_16F:
    return Put(libs::floatToHalf(float(V.real())), I);
  case CUDA_R_16BF:
    return Put(libs::floatToBf16(float(V.real())), I);
  case CUDA_R_32F:
    return Put(float(V.real()), I);
  case CUDA_R_64F:
    return Put(V.real(), I);
  case CUDA_C_16F:
    Put(libs::floatToHalf(float(V.real())), 2 * I);
    return Put(libs::floatToHalf(float(V.imag())), 2 * I + 1);
  case CUDA_C_16BF:
    Put(libs::floatToBf16(float(V.real())), 2 * I);
    return Put(libs::floatToBf16(float(V.imag())), 2 * I + 1);
  case CUDA_C_32F:
    Put(float(V.real()), 2 * I);
    return Put(float(V.imag()), 2 * I + 1);
  default:
    Put(V.real(), 2 * I);
    return Put(V.imag(), 2 * I + 1);
  }
}
template <typename W> W asWork(Cd V) {
  if constexpr (std::is_same_v<W, float> || std::is_same_v<W, double>)
    return W(V.real());
  else
    return W(typename W::value_type(V.real()), typename W::value_type(V.imag()));
}
template <typename W> std::vector<W> widen(cudaDataType T, const void *P, int64_t N) {
  std::vector<W> Out(size_t(std::max<int64_t>(N, 0)));
  for (int64_t I = 0; I < N; ++I)
    Out[size_t(I)] = asWork<W>(loadValue(T, P, I));
  return Out;
}
template <typename W> void narrow(cudaDataType T, void *P, const std::vector<W> &V) {
  for (size_t I = 0; I < V.size(); ++I)
    storeValue(T, P, int64_t(I), Cd(V[I]));
}
/// The type a value type is computed in: f16 and bf16 in f32, their complex forms in c32.
cudaDataType workOf(cudaDataType T) {
  return T == CUDA_R_16F || T == CUDA_R_16BF ? CUDA_R_32F : T == CUDA_C_16F || T == CUDA_C_16BF ? CUDA_C_32F : T;
}
/// A scalar of type \p T as a complex double.
Cd scalarValue(const Scalar &S, cudaDataType T) { return loadValue(T, S.Device ? S.Ptr : S.Bytes, 0); }
/// Elements a dense matrix spans (its last column or row may be shorter than the leading dimension).
int64_t denseSpan(const DnMat &M) {
  const int64_t Outer = M.Order == CUSPARSE_ORDER_COL ? M.Cols : M.Rows, Inner = M.Order == CUSPARSE_ORDER_COL ? M.Rows : M.Cols;
  return Outer && Inner ? M.Ld * (Outer - 1) + Inner : 0;
}
/// Runs Fn(W, alpha, beta) with W the arithmetic type of a compute type (int32 compute: in double, exact for
/// the int8 products cuSPARSE takes there) and the scalars read as the compute type.
template <typename F> void withWork(cudaDataType Compute, const Scalar &Al, const Scalar &Be, F &&Fn) {
  if (Compute == CUDA_R_32I)
    return Fn(double(), double(Al.get<int32_t>()), double(Be.get<int32_t>()));
  dispatch(Compute, [&](auto Tag) {
    using W = decltype(Tag);
    Fn(Tag, Al.get<W>(), Be.get<W>());
  });
}
/// A descriptor whose values are \p V (the work type \p WT).
template <typename D> D withValues(D M, void *V, cudaDataType WT) {
  M.Val = V;
  M.VT = WT;
  return M;
}
template <typename W> cudaDataType workType() {
  return std::is_same_v<W, float> ? CUDA_R_32F : std::is_same_v<W, double> ? CUDA_R_64F
         : std::is_same_v<W, std::complex<float>> ? CUDA_C_32F : CUDA_C_64F;
}
} // namespace
} // namespace zluda::cusparse

static cusparseStatus_t checkSpmv(Handle *H, cusparseOperation_t Op, const void *Alpha, const void *A, const void *X,
                                  const void *Beta, const void *Y, cudaDataType Compute, SpMat *&Am, DnVec *&Xv,
                                  DnVec *&Yv) {
  Am = lookup<SpMat>(A), Xv = lookup<DnVec>(X), Yv = lookup<DnVec>(Y);
  if (!Am || !Xv || !Yv || !Alpha || !Beta || !validOp(Op))
    return CUSPARSE_STATUS_INVALID_VALUE;
  // As NVIDIA's: the conjugate transpose of a real matrix is refused.
  if (Op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE && (Compute == CUDA_R_32F || Compute == CUDA_R_64F))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (auto S = checkTypes(*Am, Xv->VT, Yv->VT, Compute, true))
    return S;
  // As NVIDIA's (observed on the H200): "opA != OPERATION_NON_TRANSPOSE is unsupported with CUSPARSE_SPMV_BSR_ALG1";
  // and no SpMV of a Blocked-ELL matrix (observed on an H100; Blocked-ELL is SpMM's format).
  if ((Am->Fmt == CUSPARSE_FORMAT_BSR && Op != CUSPARSE_OPERATION_NON_TRANSPOSE) ||
      Am->Fmt == CUSPARSE_FORMAT_BLOCKED_ELL)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  int64_t In = opSwaps(Op) ? Am->Rows : Am->Cols, Out = opSwaps(Op) ? Am->Cols : Am->Rows;
  if (Xv->Size != In || Yv->Size != Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  (void)H;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpMV_bufferSize(cusparseHandle_t Hd, cusparseOperation_t Op, const void *Alpha,
                                                      const void *A, const void *X, const void *Beta, void *Y,
                                                      cudaDataType Compute, int, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am;
  DnVec *Xv, *Yv;
  if (auto S = checkSpmv(H, Op, Alpha, A, X, Beta, Y, Compute, Am, Xv, Yv))
    return S;
  if (rocSparse() && rocFormat(*Am) && Size && Am->VT == Compute && Xv->VT == Compute && Yv->VT == Compute)
    return rocSpmv(*H, Op, Alpha, *Am, *Xv, Beta, *Yv, Compute, Size, nullptr);
  return setOut(Size, 16); // not used; non-zero as NVIDIA's, whose SpMV refuses a null buffer
}
CUSPARSE_API cusparseStatus_t cusparseSpMV_preprocess(cusparseHandle_t Hd, cusparseOperation_t Op, const void *Alpha,
                                                      const void *A, const void *X, const void *Beta, void *Y,
                                                      cudaDataType Compute, int, void *) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am;
  DnVec *Xv, *Yv;
  return checkSpmv(H, Op, Alpha, A, X, Beta, Y, Compute, Am, Xv, Yv);
}
CUSPARSE_API cusparseStatus_t cusparseSpMV(cusparseHandle_t Hd, cusparseOperation_t Op, const void *Alpha,
                                           const void *A, const void *X, const void *Beta, void *Y,
                                           cudaDataType Compute, int, void *Buffer) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am;
  DnVec *Xv, *Yv;
  if (auto S = checkSpmv(H, Op, Alpha, A, X, Beta, Y, Compute, Am, Xv, Yv))
    return S;
  if (!Buffer) // NVIDIA's: "parameter number 10 (externalBuffer) had an illegal value: NULL pointer"
    return CUSPARSE_STATUS_INVALID_VALUE;
  const bool Mixed = Am->VT != Compute || Xv->VT != Compute || Yv->VT != Compute;
  if (rocSparse() && rocFormat(*Am) && !Mixed)
    return rocSpmv(*H, Op, Alpha, *Am, *Xv, Beta, *Yv, Compute, nullptr, Buffer);
  SpMat M = *Am;
  DnVec Xc = *Xv, Yc = *Yv;
  Scalar Al(*H, Alpha, Compute), Be(*H, Beta, Compute);
  auto Run = [=](const SpMat &M, const DnVec &Xc, const DnVec &Yc, const Scalar &Al, const Scalar &Be) {
    if (Mixed) { // the values widened to the compute type, the result rounded once to Y's
      withWork(Compute, Al, Be, [&](auto Tag, auto A, auto B) {
        using W = decltype(Tag);
        auto Av = widen<W>(M.VT, M.Val, M.Nnz), Xw = widen<W>(Xc.VT, Xc.Val, Xc.Size);
        auto Yw = widen<W>(Yc.VT, Yc.Val, Yc.Size);
        spmv<W>(withValues(M, Av.data(), workType<W>()), Op, W(A), Xw.data(), W(B), Yw.data(), Yc.Size);
        narrow(Yc.VT, Yc.Val, Yw);
      });
      return;
    }
    dispatch(Compute, [&](auto Tag) {
      using T = decltype(Tag);
      spmv<T>(M, Op, Al.get<T>(), static_cast<const T *>(Xc.Val), Be.get<T>(), static_cast<T *>(Yc.Val), Yc.Size);
    });
  };
  return onHost(H, [=](Staged &S) {
    return [Run, M = S.sp(M), X = S.vec(Xc), Y = S.vec(Yc, true), A = S.scalar(Al, Compute),
            B = S.scalar(Be, Compute)] { Run(M, X, Y, A, B); };
  });
}

static cusparseStatus_t checkSpmm(cusparseOperation_t OpA, cusparseOperation_t OpB, const void *Alpha, const void *A,
                                  const void *B, const void *Beta, const void *C, cudaDataType Compute, SpMat *&Am,
                                  DnMat *&Bm, DnMat *&Cm) {
  Am = lookup<SpMat>(A), Bm = lookup<DnMat>(B), Cm = lookup<DnMat>(C);
  if (!Am || !Bm || !Cm || !Alpha || !Beta || !validOp(OpA) || !validOp(OpB))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (auto S = checkTypes(*Am, Bm->VT, Cm->VT, Compute, false))
    return S;
  // As NVIDIA's (observed on an H100): BSR with column-major blocks and Sliced-ELL are refused.
  if ((Am->Fmt == CUSPARSE_FORMAT_BSR && Am->BlockOrder == CUSPARSE_ORDER_COL) || Am->Fmt == CUSPARSE_FORMAT_SLICED_ELLPACK)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  int64_t M = opSwaps(OpA) ? Am->Cols : Am->Rows, K = opSwaps(OpA) ? Am->Rows : Am->Cols;
  int64_t Kb = opSwaps(OpB) ? Bm->Cols : Bm->Rows, N = opSwaps(OpB) ? Bm->Rows : Bm->Cols;
  if (K != Kb || Cm->Rows != M || Cm->Cols != N)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                      cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                      const void *B, const void *Beta, void *C, cudaDataType Compute,
                                                      int, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am;
  DnMat *Bm, *Cm;
  if (auto S = checkSpmm(OpA, OpB, Alpha, A, B, Beta, C, Compute, Am, Bm, Cm))
    return S;
  if (rocSparse() && rocFormat(*Am) && Size && Am->VT == Compute && Bm->VT == Compute && Cm->VT == Compute && Cm->BatchCount == 1)
    return rocSpmm(*H, OpA, OpB, Alpha, *Am, *Bm, Beta, *Cm, Compute, Size, nullptr);
  return setOut(Size, 0);
}
CUSPARSE_API cusparseStatus_t cusparseSpMM_preprocess(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                      cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                      const void *B, const void *Beta, void *C, cudaDataType Compute,
                                                      int, void *) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am;
  DnMat *Bm, *Cm;
  return checkSpmm(OpA, OpB, Alpha, A, B, Beta, C, Compute, Am, Bm, Cm);
}
CUSPARSE_API cusparseStatus_t cusparseSpMM(cusparseHandle_t Hd, cusparseOperation_t OpA, cusparseOperation_t OpB,
                                           const void *Alpha, const void *A, const void *B, const void *Beta, void *C,
                                           cudaDataType Compute, int, void *Buffer) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am;
  DnMat *Bm, *Cm;
  if (auto S = checkSpmm(OpA, OpB, Alpha, A, B, Beta, C, Compute, Am, Bm, Cm))
    return S;
  // Strided batches: C_i = op(A_i) op(B_i), A or B alone may be one matrix for all (cuSPARSE's three forms).
  const int Batch = Cm->BatchCount;
  const bool Mixed = Am->VT != Compute || Bm->VT != Compute || Cm->VT != Compute;
  if (rocSparse() && rocFormat(*Am) && !Mixed && Batch == 1) {
    if (!Buffer) // rocSPARSE works in the buffer its size query asked for
      return CUSPARSE_STATUS_INVALID_VALUE;
    return rocSpmm(*H, OpA, OpB, Alpha, *Am, *Bm, Beta, *Cm, Compute, nullptr, Buffer);
  }
  SpMat M = *Am;
  DnMat Bc = *Bm, Cc = *Cm;
  Scalar Al(*H, Alpha, Compute), Be(*H, Beta, Compute);
  if ((Am->BatchCount != 1 && Am->BatchCount != Batch) || (Bm->BatchCount != 1 && Bm->BatchCount != Batch))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Batch > 1 && Am->Fmt != CUSPARSE_FORMAT_CSR && Am->Fmt != CUSPARSE_FORMAT_COO) {
    libs::notSupported("cuSPARSE", "cusparseSpMM batches of other formats than CSR and COO");
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  auto Run = [=](const SpMat &M, const DnMat &Bc, const DnMat &Cc, const Scalar &Al, const Scalar &Be) {
    if (Mixed) { // the values widened to the compute type, the result rounded once to C's
      withWork(Compute, Al, Be, [&](auto Tag, auto A, auto B) {
        using W = decltype(Tag);
        for (int I = 0; I < Batch; ++I) {
          SpMat Mi = batchOf(M, I);
          DnMat Bi = batchOf(Bc, I), Ci = batchOf(Cc, I);
          auto Av = widen<W>(Mi.VT, Mi.Val, Mi.Nnz), Bw = widen<W>(Bi.VT, Bi.Val, denseSpan(Bi));
          auto Cw = widen<W>(Ci.VT, Ci.Val, denseSpan(Ci));
          spmm<W>(withValues(Mi, Av.data(), workType<W>()), OpA, OpB, W(A), withValues(Bi, Bw.data(), workType<W>()),
                  W(B), withValues(Ci, Cw.data(), workType<W>()));
          narrow(Ci.VT, Ci.Val, Cw);
        }
      });
      return;
    }
    dispatch(Compute, [&](auto Tag) {
      using T = decltype(Tag);
      for (int I = 0; I < Batch; ++I)
        spmm<T>(batchOf(M, I), OpA, OpB, Al.get<T>(), batchOf(Bc, I), Be.get<T>(), batchOf(Cc, I));
    });
  };
  return onHost(H, [=](Staged &S) {
    return [Run, M = S.sp(M), B = S.mat(Bc), C = S.mat(Cc, true), A = S.scalar(Al, Compute),
            Bt = S.scalar(Be, Compute)] { Run(M, B, C, A, Bt); };
  });
}

CUSPARSE_API cusparseStatus_t cusparseSpSV_createDescr(cusparseSpSVDescr_t *Out) {
  if (!Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Out = reinterpret_cast<cusparseSpSVDescr_t>(track(new SpSV));
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpSV_destroyDescr(cusparseSpSVDescr_t D) {
  return drop(lookup<SpSV>(D)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}
static cusparseStatus_t checkSpsv(cusparseOperation_t Op, const void *Alpha, const void *A, const void *X,
                                  const void *Y, cudaDataType Compute, const void *D, SpMat *&Am, DnVec *&Xv,
                                  DnVec *&Yv) {
  Am = lookup<SpMat>(A), Xv = lookup<DnVec>(X), Yv = lookup<DnVec>(Y);
  if (!Am || !Xv || !Yv || !Alpha || !validOp(Op) || !lookup<SpSV>(D))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Am->Fmt == CUSPARSE_FORMAT_CSC) {
    libs::notSupported("cuSPARSE", "cusparseSpSV on CSC matrices");
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  }
  if (!validValue(Compute) || Am->VT != Compute || Xv->VT != Compute || Yv->VT != Compute)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  if (Am->Rows != Am->Cols || Xv->Size != Am->Rows || Yv->Size != Am->Rows)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpSV_bufferSize(cusparseHandle_t Hd, cusparseOperation_t Op, const void *Alpha,
                                                      const void *A, const void *X, void *Y, cudaDataType Compute,
                                                      int, cusparseSpSVDescr_t D, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am;
  DnVec *Xv, *Yv;
  if (auto S = checkSpsv(Op, Alpha, A, X, Y, Compute, D, Am, Xv, Yv))
    return S;
  return setOut(Size, 0);
}
CUSPARSE_API cusparseStatus_t cusparseSpSV_analysis(cusparseHandle_t Hd, cusparseOperation_t Op, const void *Alpha,
                                                    const void *A, const void *X, void *Y, cudaDataType Compute, int,
                                                    cusparseSpSVDescr_t D, void *) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am;
  DnVec *Xv, *Yv;
  return checkSpsv(Op, Alpha, A, X, Y, Compute, D, Am, Xv, Yv);
}
CUSPARSE_API cusparseStatus_t cusparseSpSV_solve(cusparseHandle_t Hd, cusparseOperation_t Op, const void *Alpha,
                                                 const void *A, const void *X, void *Y, cudaDataType Compute, int,
                                                 cusparseSpSVDescr_t D) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am;
  DnVec *Xv, *Yv;
  if (auto S = checkSpsv(Op, Alpha, A, X, Y, Compute, D, Am, Xv, Yv))
    return S;
  SpMat M = *Am;
  DnVec Xc = *Xv, Yc = *Yv;
  Scalar Al(*H, Alpha, Compute);
  auto Run = [=](const SpMat &M, const DnVec &Xc, const DnVec &Yc, const Scalar &Al) {
    dispatch(Compute, [&](auto Tag) {
      using T = decltype(Tag);
      spsv<T>(M, Op, Al.get<T>(), static_cast<const T *>(Xc.Val), static_cast<T *>(Yc.Val));
    });
  };
  return onHost(H, [=](Staged &S) {
    return [Run, M = S.sp(M), X = S.vec(Xc), Y = S.vec(Yc, true), A = S.scalar(Al, Compute)] { Run(M, X, Y, A); };
  });
}
CUSPARSE_API cusparseStatus_t cusparseSpSV_updateMatrix(cusparseHandle_t Hd, cusparseSpSVDescr_t D, void *, int) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  return lookup<SpSV>(D) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE; // values are read at solve
}

//===----------------------------------------------------------------------===//
// SpGEMM (CSR x CSR)
//===----------------------------------------------------------------------===//
CUSPARSE_API cusparseStatus_t cusparseSpGEMM_createDescr(cusparseSpGEMMDescr_t *Out) {
  if (!Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Out = reinterpret_cast<cusparseSpGEMMDescr_t>(track(new SpGEMM));
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpGEMM_destroyDescr(cusparseSpGEMMDescr_t D) {
  return drop(lookup<SpGEMM>(D)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}
namespace zluda::cusparse {
namespace {
/// The number of intermediate products of A B (each entry of A times B's row), kept for getNumProducts: counted
/// in stream order (the arrays as the stream's work leaves them; CPU device), read when asked for.
cusparseStatus_t countProducts(Handle *H, const SpMat &A, const SpMat &B, SpGEMM &G) {
  G.Stream = H->Stream;
  auto Out = G.Products;
  return onHost(H, [A, B, Out](Staged &S) { return [A = S.sp(A), B = S.sp(B), Out] {
    std::vector<int64_t> RowNnz(size_t(B.Rows), 0);
    forEach(B, [&](int64_t R, int64_t, int64_t) {
      if (R >= 0 && R < B.Rows)
        ++RowNnz[size_t(R)];
    });
    int64_t N = 0;
    forEach(A, [&](int64_t, int64_t C, int64_t) {
      if (C >= 0 && C < B.Rows)
        N += RowNnz[size_t(C)];
    });
    *Out = N;
  }; });
}
} // namespace
} // namespace zluda::cusparse

static cusparseStatus_t checkSpgemm(cusparseOperation_t OpA, cusparseOperation_t OpB, const void *Alpha,
                                    const void *A, const void *B, const void *C, cudaDataType Compute, const void *D,
                                    SpMat *&Am, SpMat *&Bm, SpMat *&Cm, SpGEMM *&G) {
  Am = lookup<SpMat>(A), Bm = lookup<SpMat>(B), Cm = lookup<SpMat>(C), G = lookup<SpGEMM>(D);
  if (!Am || !Bm || !Cm || !G || !Alpha)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (OpA != CUSPARSE_OPERATION_NON_TRANSPOSE || OpB != CUSPARSE_OPERATION_NON_TRANSPOSE ||
      Am->Fmt != CUSPARSE_FORMAT_CSR || Bm->Fmt != CUSPARSE_FORMAT_CSR || Cm->Fmt != CUSPARSE_FORMAT_CSR)
    return CUSPARSE_STATUS_NOT_SUPPORTED; // as NVIDIA's: non-transposed CSR only
  // As NVIDIA's (every combination tried on an H100, tests/golden/libs/cusparse_types_ops.golden): A, C and the
  // compute type one type, f16, bf16 and their complex forms too; B's type is not checked there (its values are
  // read as A's type), ours converts B's values from their own type.
  if (!(validValue(workOf(Compute)) && storable(Compute)) || Am->VT != Compute || Cm->VT != Compute ||
      !storable(Bm->VT))
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  if (Am->Cols != Bm->Rows || Cm->Rows != Am->Rows || Cm->Cols != Bm->Cols)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpGEMM_workEstimation(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                            cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                            const void *B, const void *, cusparseSpMatDescr_t C,
                                                            cudaDataType Compute, int, cusparseSpGEMMDescr_t D,
                                                            size_t *Size1, void *) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  SpMat *Am, *Bm, *Cm;
  SpGEMM *G;
  if (auto S = checkSpgemm(OpA, OpB, Alpha, A, B, C, Compute, D, Am, Bm, Cm, G))
    return S;
  if (!Size1)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (*Size1 == 0)
    *Size1 = 16; // a token size: the product is computed in compute()
  return countProducts(H, *Am, *Bm, *G);
}
CUSPARSE_API cusparseStatus_t cusparseSpGEMM_compute(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                     cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                     const void *B, const void *, cusparseSpMatDescr_t C,
                                                     cudaDataType Compute, int, cusparseSpGEMMDescr_t D, size_t *Size2,
                                                     void *Buffer2) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am, *Bm, *Cm;
  SpGEMM *G;
  if (auto S = checkSpgemm(OpA, OpB, Alpha, A, B, C, Compute, D, Am, Bm, Cm, G))
    return S;
  if (!Size2)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!Buffer2) { // the size query
    if (*Size2 == 0)
      *Size2 = 16;
    return CUSPARSE_STATUS_SUCCESS;
  }
  // C's size is the caller's at return: the product is formed now, after the
  // work queued before it.
  Scalar Al(*H, Alpha, Compute);
  if (auto S = atReturn(H, [Ac = *Am, Bc = *Bm, Al, G, Compute](Staged &S) {
        return [A = S.sp(Ac), B = S.sp(Bc), Al = S.scalar(Al, Compute), G, Compute] {
          if (B.VT == Compute && validValue(Compute))
            return dispatch(Compute, [&](auto Tag) {
              using T = decltype(Tag);
              spgemm<T>(A, B, Al.get<T>(), *G);
            });
          // Narrow or mixed types: A's and B's values widened to the work type, C's rounded once to its type.
          const cudaDataType Wt = workOf(Compute);
          dispatch(Wt, [&](auto Tag) {
            using W = decltype(Tag);
            std::vector<W> Aw = widen<W>(A.VT, A.Val, A.Nnz), Bw = widen<W>(B.VT, B.Val, B.Nnz);
            spgemm<W>(withValues(A, Aw.data(), Wt), withValues(B, Bw.data(), Wt), asWork<W>(scalarValue(Al, Compute)),
                      *G);
            std::vector<W> V(G->Val.size() / sizeof(W));
            if (!V.empty())
              std::memcpy(V.data(), G->Val.data(), G->Val.size());
            G->Val.resize(V.size() * valueBytes(Compute));
            narrow(Compute, G->Val.data(), V);
          });
        };
      }))
    return S;
  Cm->Nnz = int64_t(G->Ind.size());
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpGEMM_copy(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                  cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                  const void *B, const void *, cusparseSpMatDescr_t C,
                                                  cudaDataType Compute, int, cusparseSpGEMMDescr_t D) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am, *Bm, *Cm;
  SpGEMM *G;
  if (auto S = checkSpgemm(OpA, OpB, Alpha, A, B, C, Compute, D, Am, Bm, Cm, G))
    return S;
  if (G->Off.size() != size_t(Cm->Rows + 1) || !Cm->Off || (Cm->Nnz && (!Cm->Ind || !Cm->Val)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  auto Prod = std::make_shared<SpGEMM>(*G);
  return onHost(H, [C = *Cm, Prod](Staged &S) {
    return [Out = S.filled(C), Prod] {
      const int64_t B = Out.Base;
      for (size_t I = 0; I < Prod->Off.size(); ++I)
        setIx(Out.Off, Out.OffType, int64_t(I), Prod->Off[I] + B);
      for (size_t K = 0; K < Prod->Ind.size(); ++K)
        setIx(Out.Ind, Out.IndType, int64_t(K), Prod->Ind[K] + B);
      if (!Prod->Val.empty())
        std::memcpy(Out.Val, Prod->Val.data(), Prod->Val.size());
    };
  });
}

CUSPARSE_API cusparseStatus_t cusparseSpGEMM_getNumProducts(cusparseSpGEMMDescr_t D, int64_t *N) {
  auto *G = lookup<SpGEMM>(D);
  if (!G || !N)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (libs::cpuDevice() && libs::wait(G->Stream)) // the count queued by the work estimation
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  *N = *G->Products;
  return CUSPARSE_STATUS_SUCCESS;
}
/// CUSPARSE_SPGEMM_ALG3's memory estimate: our product needs no external buffers (token sizes).
CUSPARSE_API cusparseStatus_t cusparseSpGEMM_estimateMemory(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                           cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                           const void *B, const void *, cusparseSpMatDescr_t C,
                                                           cudaDataType Compute, int, cusparseSpGEMMDescr_t D,
                                                           float Chunk, size_t *Size3, void *, size_t *Size2) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  SpMat *Am, *Bm, *Cm;
  SpGEMM *G;
  if (auto S = checkSpgemm(OpA, OpB, Alpha, A, B, C, Compute, D, Am, Bm, Cm, G))
    return S;
  if (!Size3 || !(Chunk > 0 && Chunk <= 1))
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Size3 = 16;
  if (Size2)
    *Size2 = 16;
  return CUSPARSE_STATUS_SUCCESS;
}

// SpGEMM with structure reuse: C's pattern from A's and B's (nnz), copied into C's arrays (copy), then its values
// computed as often as A's and B's values change (compute: C = alpha op(A) op(B) + beta C on that pattern).
namespace zluda::cusparse {
namespace {
cusparseStatus_t checkReuse(cusparseOperation_t OpA, cusparseOperation_t OpB, const void *A, const void *B,
                            const void *C, const void *D, SpMat *&Am, SpMat *&Bm, SpMat *&Cm, SpGEMM *&G) {
  Am = lookup<SpMat>(A), Bm = lookup<SpMat>(B), Cm = lookup<SpMat>(C), G = lookup<SpGEMM>(D);
  if (!Am || !Bm || !Cm || !G)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (OpA != CUSPARSE_OPERATION_NON_TRANSPOSE || OpB != CUSPARSE_OPERATION_NON_TRANSPOSE ||
      Am->Fmt != CUSPARSE_FORMAT_CSR || Bm->Fmt != CUSPARSE_FORMAT_CSR || Cm->Fmt != CUSPARSE_FORMAT_CSR)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  if (Am->Cols != Bm->Rows || Cm->Rows != Am->Rows || Cm->Cols != Bm->Cols)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}
/// A buffer-size query (null buffer) sets a token size; true when the call is a query.
bool sizeQuery(size_t *Size, const void *Buffer) {
  if (Buffer)
    return false;
  if (Size && *Size == 0)
    *Size = 16;
  return true;
}
} // namespace
} // namespace zluda::cusparse

CUSPARSE_API cusparseStatus_t cusparseSpGEMMreuse_workEstimation(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                                cusparseOperation_t OpB, const void *A, const void *B,
                                                                cusparseSpMatDescr_t C, int, cusparseSpGEMMDescr_t D,
                                                                size_t *Size1, void *Buffer1) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am, *Bm, *Cm;
  SpGEMM *G;
  if (auto S = checkReuse(OpA, OpB, A, B, C, D, Am, Bm, Cm, G))
    return S;
  if (!Size1)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (sizeQuery(Size1, Buffer1))
    return CUSPARSE_STATUS_SUCCESS;
  return countProducts(H, *Am, *Bm, *G);
}
CUSPARSE_API cusparseStatus_t cusparseSpGEMMreuse_nnz(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                     cusparseOperation_t OpB, const void *A, const void *B,
                                                     cusparseSpMatDescr_t C, int, cusparseSpGEMMDescr_t D,
                                                     size_t *Size2, void *Buffer2, size_t *Size3, void *Buffer3,
                                                     size_t *Size4, void *Buffer4) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am, *Bm, *Cm;
  SpGEMM *G;
  if (auto S = checkReuse(OpA, OpB, A, B, C, D, Am, Bm, Cm, G))
    return S;
  if (!Size2 || !Size3 || !Size4)
    return CUSPARSE_STATUS_INVALID_VALUE;
  bool Q2 = sizeQuery(Size2, Buffer2), Q3 = sizeQuery(Size3, Buffer3), Q4 = sizeQuery(Size4, Buffer4);
  if (Q2 || Q3 || Q4)
    return CUSPARSE_STATUS_SUCCESS;
  // C's size is the caller's at return: the pattern is formed now, after the work queued before it.
  if (auto S = atReturn(H, [Ac = *Am, Bc = *Bm, G](Staged &S) {
        return [A = S.sp(Ac), B = S.sp(Bc), G] {
          auto Ar = rowsOf(A), Br = rowsOf(B);
          std::vector<int64_t> Mark(size_t(B.Cols), -1), Cols;
          G->Off.assign(1, 0);
          G->Ind.clear();
          G->Val.clear();
          for (int64_t I = 0; I < A.Rows; ++I) {
            Cols.clear();
            for (auto [K, Ka] : Ar[size_t(I)])
              if (K >= 0 && K < B.Rows)
                for (auto [J, Kb] : Br[size_t(K)])
                  if (J >= 0 && J < B.Cols && Mark[size_t(J)] != I) {
                    Mark[size_t(J)] = I;
                    Cols.push_back(J);
                  }
            std::sort(Cols.begin(), Cols.end());
            G->Ind.insert(G->Ind.end(), Cols.begin(), Cols.end());
            G->Off.push_back(int64_t(G->Ind.size()));
          }
        };
      }))
    return S;
  Cm->Nnz = int64_t(G->Ind.size());
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpGEMMreuse_copy(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                      cusparseOperation_t OpB, const void *A, const void *B,
                                                      cusparseSpMatDescr_t C, int, cusparseSpGEMMDescr_t D,
                                                      size_t *Size5, void *Buffer5) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am, *Bm, *Cm;
  SpGEMM *G;
  if (auto S = checkReuse(OpA, OpB, A, B, C, D, Am, Bm, Cm, G))
    return S;
  if (!Size5)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (sizeQuery(Size5, Buffer5))
    return CUSPARSE_STATUS_SUCCESS;
  if (G->Off.size() != size_t(Cm->Rows + 1) || !Cm->Off || (Cm->Nnz && !Cm->Ind))
    return CUSPARSE_STATUS_INVALID_VALUE; // cusparseSpGEMMreuse_nnz first, and C's arrays set
  auto Pattern = std::make_shared<SpGEMM>(*G);
  return onHost(H, [C = *Cm, Pattern](Staged &S) {
    SpMat Out = C;
    const int64_t Outer = C.Rows;
    Out.Off = S.fresh(C.Off, size_t(Outer + 1) * indexBytes(C.OffType));
    Out.Ind = S.fresh(C.Ind, size_t(C.Nnz) * indexBytes(C.IndType));
    return [Out, Pattern] {
      const int64_t B = Out.Base;
      for (size_t I = 0; I < Pattern->Off.size(); ++I)
        setIx(Out.Off, Out.OffType, int64_t(I), Pattern->Off[I] + B);
      for (size_t K = 0; K < Pattern->Ind.size(); ++K)
        setIx(Out.Ind, Out.IndType, int64_t(K), Pattern->Ind[K] + B);
    };
  });
}
CUSPARSE_API cusparseStatus_t cusparseSpGEMMreuse_compute(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                         cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                         const void *B, const void *Beta, cusparseSpMatDescr_t C,
                                                         cudaDataType Compute, int, cusparseSpGEMMDescr_t D) {
  HANDLE_OR_FAIL(Hd)
  SpMat *Am, *Bm, *Cm;
  SpGEMM *G;
  if (auto S = checkReuse(OpA, OpB, A, B, C, D, Am, Bm, Cm, G))
    return S;
  if (!Alpha || !Beta)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!validValue(Compute) || Am->VT != Compute || Bm->VT != Compute || Cm->VT != Compute)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  if (!Cm->Off || (Cm->Nnz && (!Cm->Ind || !Cm->Val)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  Scalar Al0(*H, Alpha, Compute), Be0(*H, Beta, Compute);
  return onHost(H, [A0 = *Am, B0 = *Bm, C0 = *Cm, Al0, Be0, Compute](Staged &S) {
    return [Ac = S.sp(A0), Bc = S.sp(B0), Cc = S.sp(C0, true), Al = S.scalar(Al0, Compute), Be = S.scalar(Be0, Compute),
            Compute] {
    dispatch(Compute, [&](auto Tag) {
      using T = decltype(Tag);
      const T Alv = Al.get<T>(), Bev = Be.get<T>();
      const T *Av = static_cast<const T *>(Ac.Val), *Bv = static_cast<const T *>(Bc.Val);
      T *Cv = static_cast<T *>(Cc.Val);
      auto Ar = rowsOf(Ac), Br = rowsOf(Bc);
      std::vector<T> Acc(size_t(Bc.Cols), T(0));
      std::vector<int64_t> Touched;
      for (int64_t I = 0; I < Ac.Rows; ++I) {
        Touched.clear();
        for (auto [K, Ka] : Ar[size_t(I)])
          if (K >= 0 && K < Bc.Rows)
            for (auto [J, Kb] : Br[size_t(K)])
              if (J >= 0 && J < Bc.Cols) {
                Acc[size_t(J)] += Av[Ka] * Bv[Kb];
                Touched.push_back(J);
              }
        const int64_t Base = Cc.Base;
        for (int64_t P = getIx(Cc.Off, Cc.OffType, I) - Base; P < getIx(Cc.Off, Cc.OffType, I + 1) - Base; ++P) {
          const int64_t J = getIx(Cc.Ind, Cc.IndType, P) - Base;
          Cv[P] = Alv * Acc[size_t(J)] + (Bev == T(0) ? T(0) : Bev * Cv[P]);
        }
        for (int64_t J : Touched)
          Acc[size_t(J)] = T(0);
      }
    });
    };
  });
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//
/// The formats NVIDIA's SparseToDense takes (observed on an H200 and an H100): not BSR, Blocked-ELL, Sliced-ELL.
static bool denseExpandable(const SpMat &A) {
  return A.Fmt == CUSPARSE_FORMAT_CSR || A.Fmt == CUSPARSE_FORMAT_CSC || A.Fmt == CUSPARSE_FORMAT_COO;
}
CUSPARSE_API cusparseStatus_t cusparseSparseToDense_bufferSize(cusparseHandle_t Hd, const void *A, void *B, int,
                                                               size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  auto *Am = lookup<SpMat>(A);
  if (!Am || !lookup<DnMat>(B))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!denseExpandable(*Am)) // as NVIDIA's (observed on an H200 and an H100)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  return setOut(Size, 0);
}
CUSPARSE_API cusparseStatus_t cusparseSparseToDense(cusparseHandle_t Hd, const void *A, void *B, int, void *) {
  HANDLE_OR_FAIL(Hd)
  auto *Am = lookup<SpMat>(A);
  auto *Bm = lookup<DnMat>(B);
  if (!Am || !Bm || Am->Rows != Bm->Rows || Am->Cols != Bm->Cols)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Am->VT != Bm->VT || !validValue(Am->VT) || !denseExpandable(*Am))
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  return onHost(H, [M0 = *Am, D0 = *Bm](Staged &S) {
    return [M = S.sp(M0), D = S.mat(D0, true)] {
      dispatch(M.VT, [&](auto Tag) {
        using T = decltype(Tag);
        for (int64_t I = 0; I < D.Rows; ++I)
          for (int64_t J = 0; J < D.Cols; ++J)
            at<T>(D, I, J) = T(0);
        const T *V = static_cast<const T *>(M.Val);
        forEach(M, [&](int64_t R, int64_t C, int64_t K) { at<T>(D, R, C) += V[K]; });
      });
    };
  });
}
CUSPARSE_API cusparseStatus_t cusparseDenseToSparse_bufferSize(cusparseHandle_t Hd, const void *A, void *B, int,
                                                               size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  if (!lookup<DnMat>(A) || !lookup<SpMat>(B))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return setOut(Size, 0);
}
CUSPARSE_API cusparseStatus_t cusparseDenseToSparse_analysis(cusparseHandle_t Hd, const void *A, void *B, int,
                                                             void *) {
  HANDLE_OR_FAIL(Hd)
  auto *Dm = lookup<DnMat>(A);
  auto *Sm = lookup<SpMat>(B);
  if (!Dm || !Sm || Dm->Rows != Sm->Rows || Dm->Cols != Sm->Cols)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Sm->Fmt == CUSPARSE_FORMAT_COO || Dm->VT != Sm->VT || !validValue(Dm->VT))
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  // The count is the caller's at return (then the arrays are allocated); the offsets are written too.
  auto Nnz = std::make_shared<int64_t>(0);
  const bool Csr = Sm->Fmt == CUSPARSE_FORMAT_CSR;
  const int64_t Outer = Csr ? Dm->Rows : Dm->Cols, Inner = Csr ? Dm->Cols : Dm->Rows;
  if (auto St = atReturn(H, [D0 = *Dm, Sp0 = *Sm, Nnz, Csr, Outer, Inner](Staged &S) {
        SpMat Sp = Sp0;
        Sp.Off = S.fresh(Sp0.Off, size_t(Outer + 1) * indexBytes(Sp0.OffType));
        return [D = S.mat(D0), Sp, Nnz, Csr, Outer, Inner] {
          dispatch(D.VT, [&](auto Tag) {
            using T = decltype(Tag);
            int64_t N = 0;
            for (int64_t O = 0; O < Outer; ++O) {
              if (Sp.Off)
                setIx(Sp.Off, Sp.OffType, O, N + Sp.Base);
              for (int64_t I = 0; I < Inner; ++I)
                N += (Csr ? at<T>(D, O, I) : at<T>(D, I, O)) != T(0);
            }
            if (Sp.Off)
              setIx(Sp.Off, Sp.OffType, Outer, N + Sp.Base);
            *Nnz = N;
          });
        };
      }))
    return St;
  Sm->Nnz = *Nnz;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseDenseToSparse_convert(cusparseHandle_t Hd, const void *A, void *B, int,
                                                            void *) {
  HANDLE_OR_FAIL(Hd)
  auto *Dm = lookup<DnMat>(A);
  auto *Sm = lookup<SpMat>(B);
  if (!Dm || !Sm || !Sm->Off || (Sm->Nnz && (!Sm->Ind || !Sm->Val)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Sm->Fmt == CUSPARSE_FORMAT_COO || Dm->VT != Sm->VT || !validValue(Dm->VT))
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  return onHost(H, [D0 = *Dm, S0 = *Sm](Staged &St) {
    return [D = St.mat(D0), S = St.filled(S0)] {
    dispatch(D.VT, [&](auto Tag) {
      using T = decltype(Tag);
      const bool Csr = S.Fmt == CUSPARSE_FORMAT_CSR;
      const int64_t Outer = Csr ? D.Rows : D.Cols, Inner = Csr ? D.Cols : D.Rows;
      int64_t K = 0;
      T *V = static_cast<T *>(S.Val);
      for (int64_t O = 0; O < Outer; ++O) {
        setIx(S.Off, S.OffType, O, K + S.Base);
        for (int64_t I = 0; I < Inner; ++I) {
          T X = Csr ? at<T>(D, O, I) : at<T>(D, I, O);
          if (X != T(0)) {
            setIx(S.Ind, S.IndType, K, I + S.Base);
            V[K++] = X;
          }
        }
      }
      setIx(S.Off, S.OffType, Outer, K + S.Base);
    });
    };
  });
}
CUSPARSE_API cusparseStatus_t cusparseCsr2cscEx2_bufferSize(cusparseHandle_t Hd, int M, int N, int Nnz, const void *,
                                                            const int *, const int *, void *, int *, int *,
                                                            cudaDataType VT, cusparseAction_t, cusparseIndexBase_t,
                                                            int, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  if (M < 0 || N < 0 || Nnz < 0 || !validValue(VT))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return setOut(Size, 0);
}
CUSPARSE_API cusparseStatus_t cusparseCsr2cscEx2(cusparseHandle_t Hd, int M, int N, int Nnz, const void *CsrVal,
                                                 const int *RowPtr, const int *ColInd, void *CscVal, int *ColPtr,
                                                 int *RowInd, cudaDataType VT, cusparseAction_t Act,
                                                 cusparseIndexBase_t Base, int, void *) {
  HANDLE_OR_FAIL(Hd)
  if (M < 0 || N < 0 || Nnz < 0 || !validValue(VT) || (Nnz && (!RowPtr || !ColInd || !ColPtr || !RowInd)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const size_t Sz = valueBytes(VT);
  const bool Numeric = Act == CUSPARSE_ACTION_NUMERIC && CsrVal && CscVal;
  // In stream order (on a GPU: after the stream, on host copies of the arrays, the outputs copied back).
  return staged(
      H,
      [=](const int *RowPtr, const int *ColInd, const char *CsrVal, int *ColPtr, int *RowInd, char *CscVal) {
        const int B = Base;
        std::vector<int> Count(size_t(N) + 1, 0);
        for (int K = 0; K < Nnz; ++K)
          ++Count[size_t(ColInd[K] - B + 1)];
        for (int J = 0; J < N; ++J)
          Count[size_t(J + 1)] += Count[size_t(J)];
        for (int J = 0; J <= N; ++J)
          ColPtr[J] = Count[size_t(J)] + B;
        for (int I = 0; I < M; ++I)
          for (int K = RowPtr[I] - B; K < RowPtr[I + 1] - B; ++K) {
            int Dst = Count[size_t(ColInd[K] - B)]++;
            RowInd[Dst] = I + B;
            if (Numeric)
              std::memcpy(CscVal + Dst * Sz, CsrVal + K * Sz, Sz);
          }
      },
      libs::in(RowPtr, size_t(M) + 1), libs::in(ColInd, size_t(Nnz)),
      libs::in(static_cast<const char *>(Numeric ? CsrVal : nullptr), Numeric ? size_t(Nnz) * Sz : 0),
      libs::out(ColPtr, size_t(N) + 1), libs::out(RowInd, size_t(Nnz)),
      libs::out(static_cast<char *>(Numeric ? CscVal : nullptr), Numeric ? size_t(Nnz) * Sz : 0));
}
CUSPARSE_API cusparseStatus_t cusparseXcsr2coo(cusparseHandle_t Hd, const int *RowPtr, int Nnz, int M, int *CooRows,
                                               cusparseIndexBase_t Base) {
  HANDLE_OR_FAIL(Hd)
  if (M < 0 || Nnz < 0 || (M && !RowPtr) || (Nnz && !CooRows))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return staged(
      H,
      [=](const int *RowPtr, int *CooRows) {
        for (int I = 0; I < M; ++I)
          for (int K = RowPtr[I] - Base; K < RowPtr[I + 1] - Base; ++K)
            CooRows[K] = I + Base;
      },
      libs::in(M ? RowPtr : nullptr, M ? size_t(M) + 1 : 0), libs::out(CooRows, size_t(Nnz)));
}
CUSPARSE_API cusparseStatus_t cusparseXcoo2csr(cusparseHandle_t Hd, const int *CooRows, int Nnz, int M, int *RowPtr,
                                               cusparseIndexBase_t Base) {
  HANDLE_OR_FAIL(Hd)
  if (M < 0 || Nnz < 0 || !RowPtr || (Nnz && !CooRows))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return staged(
      H,
      [=](const int *CooRows, int *RowPtr) {
        std::vector<int> Count(size_t(M) + 1, 0);
        for (int K = 0; K < Nnz; ++K)
          ++Count[size_t(CooRows[K] - Base + 1)];
        for (int I = 0; I < M; ++I)
          Count[size_t(I + 1)] += Count[size_t(I)];
        for (int I = 0; I <= M; ++I)
          RowPtr[I] = Count[size_t(I)] + Base;
      },
      libs::in(CooRows, size_t(Nnz)), libs::out(RowPtr, size_t(M) + 1));
}

//===----------------------------------------------------------------------===//
// csrilu02 / csric02
//===----------------------------------------------------------------------===//
CUSPARSE_API cusparseStatus_t cusparseCreateCsrilu02Info(csrilu02Info_t *Out) {
  if (!Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Out = reinterpret_cast<csrilu02Info_t>(track(new FactorInfo));
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseDestroyCsrilu02Info(csrilu02Info_t I) {
  return drop(lookup<FactorInfo>(I)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}
CUSPARSE_API cusparseStatus_t cusparseCreateCsric02Info(csric02Info_t *Out) {
  if (!Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Out = reinterpret_cast<csric02Info_t>(track(new FactorInfo));
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseDestroyCsric02Info(csric02Info_t I) {
  return drop(lookup<FactorInfo>(I)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}

static cusparseStatus_t zeroPivot(cusparseHandle_t Hd, const void *Info, int *Position) {
  HANDLE_OR_FAIL(Hd)
  auto *I = lookup<FactorInfo>(Info);
  if (!I || !Position)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (libs::wait(H->Stream)) // the factorization's result
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  const int Z = int(I->ZeroPivot);
  if (H->PointerMode == CUSPARSE_POINTER_MODE_DEVICE && !libs::cpuDevice()) { // GPU memory
    if (libs::toDevice(Position, &Z, sizeof Z))
      return CUSPARSE_STATUS_EXECUTION_FAILED;
  } else { // host memory, or device memory that is the host's (the CPU device)
    *Position = Z;
  }
  return I->ZeroPivot >= 0 ? CUSPARSE_STATUS_ZERO_PIVOT : CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseXcsrilu02_zeroPivot(cusparseHandle_t H, csrilu02Info_t I, int *P) {
  return zeroPivot(H, I, P);
}
CUSPARSE_API cusparseStatus_t cusparseXcsric02_zeroPivot(cusparseHandle_t H, csric02Info_t I, int *P) {
  return zeroPivot(H, I, P);
}

template <typename T, bool Ilu>
static cusparseStatus_t factor(cusparseHandle_t Hd, int M, int Nnz, cusparseMatDescr_t Descr, T *Val,
                               const int *RowPtr, const int *ColInd, void *Info) {
  HANDLE_OR_FAIL(Hd)
  auto *D = lookup<MatDescr>(Descr);
  auto *I = lookup<FactorInfo>(Info);
  if (!D || !I || M < 0 || Nnz < 0 || (Nnz && (!Val || !RowPtr || !ColInd)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (D->Type != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  const int Base = D->Base;
  return staged(
      H,
      [=](const int *RowPtr, const int *ColInd, T *Val) {
        I->ZeroPivot = M ? (Ilu ? ilu0<T>(M, RowPtr, ColInd, Val, Base, I->Boost, I->Tol, I->template boostValue<T>())
                                : ic0<T>(M, RowPtr, ColInd, Val, Base))
                         : -1;
      },
      libs::in(RowPtr, size_t(M) + 1), libs::in(ColInd, size_t(Nnz)), libs::inout(Val, size_t(Nnz)));
}
template <bool Ilu>
static cusparseStatus_t factorCheck(cusparseHandle_t Hd, int M, int Nnz, cusparseMatDescr_t Descr, const void *Info) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  auto *D = lookup<MatDescr>(Descr);
  if (!D || !lookup<FactorInfo>(Info) || M < 0 || Nnz < 0)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return D->Type == CUSPARSE_MATRIX_TYPE_GENERAL ? CUSPARSE_STATUS_SUCCESS
                                                 : CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
}

#define FACTORS(p, T)                                                                                                  \
  CUSPARSE_API cusparseStatus_t cusparse##p##csrilu02_bufferSize(cusparseHandle_t H, int M, int Nnz,                  \
                                                                  cusparseMatDescr_t D, T *, const int *, const int *, \
                                                                  csrilu02Info_t I, int *Size) {                       \
    if (auto S = factorCheck<true>(H, M, Nnz, D, I))                                                                   \
      return S;                                                                                                        \
    if (!Size)                                                                                                         \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    *Size = 4;                                                                                                         \
    return CUSPARSE_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csrilu02_analysis(cusparseHandle_t H, int M, int Nnz,                    \
                                                                cusparseMatDescr_t D, const T *, const int *,          \
                                                                const int *, csrilu02Info_t I, int, void *) {          \
    return factorCheck<true>(H, M, Nnz, D, I);                                                                         \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csrilu02(cusparseHandle_t H, int M, int Nnz, cusparseMatDescr_t D,       \
                                                       T *V, const int *R, const int *C, csrilu02Info_t I, int,        \
                                                       void *) {                                                       \
    return factor<T, true>(H, M, Nnz, D, V, R, C, I);                                                                  \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csric02_bufferSize(cusparseHandle_t H, int M, int Nnz,                   \
                                                                 cusparseMatDescr_t D, T *, const int *, const int *,  \
                                                                 csric02Info_t I, int *Size) {                         \
    if (auto S = factorCheck<false>(H, M, Nnz, D, I))                                                                  \
      return S;                                                                                                        \
    if (!Size)                                                                                                         \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    *Size = 4;                                                                                                         \
    return CUSPARSE_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csric02_analysis(cusparseHandle_t H, int M, int Nnz,                     \
                                                               cusparseMatDescr_t D, const T *, const int *,           \
                                                               const int *, csric02Info_t I, int, void *) {            \
    return factorCheck<false>(H, M, Nnz, D, I);                                                                        \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csric02(cusparseHandle_t H, int M, int Nnz, cusparseMatDescr_t D, T *V,  \
                                                      const int *R, const int *C, csric02Info_t I, int, void *) {      \
    return factor<T, false>(H, M, Nnz, D, V, R, C, I);                                                                 \
  }
FACTORS(S, float)
FACTORS(D, double)
FACTORS(C, std::complex<float>)
FACTORS(Z, std::complex<double>)
#undef FACTORS

//===----------------------------------------------------------------------===//
// Sparse vectors (SpVV, Axpby, Gather, Scatter, Rot), SpSM, SDDMM
//===----------------------------------------------------------------------===//
namespace zluda::cusparse {
namespace {
struct SpSM {
  int Unused = 0;
};
} // namespace
} // namespace zluda::cusparse

CUSPARSE_API cusparseStatus_t cusparseCreateSpVec(cusparseSpVecDescr_t *Out, int64_t Size, int64_t Nnz, void *Ind,
                                                  void *Val, cusparseIndexType_t IT, cusparseIndexBase_t B,
                                                  cudaDataType VT) {
  if (!Out || Size < 0 || Nnz < 0 || Nnz > Size || !validIndex(IT) || !storable(VT) ||
      (B != CUSPARSE_INDEX_BASE_ZERO && B != CUSPARSE_INDEX_BASE_ONE))
    return CUSPARSE_STATUS_INVALID_VALUE;
  auto *V = new SpVec{Size, Nnz, Ind, Val, IT, B, VT};
  *Out = reinterpret_cast<cusparseSpVecDescr_t>(track(V));
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseCreateConstSpVec(cusparseSpVecDescr_t *Out, int64_t Size, int64_t Nnz,
                                                       const void *Ind, const void *Val, cusparseIndexType_t IT,
                                                       cusparseIndexBase_t B, cudaDataType VT) {
  return cusparseCreateSpVec(Out, Size, Nnz, const_cast<void *>(Ind), const_cast<void *>(Val), IT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseDestroySpVec(const void *D) {
  return drop(lookup<SpVec>(D)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}
CUSPARSE_API cusparseStatus_t cusparseSpVecGet(cusparseSpVecDescr_t D, int64_t *Size, int64_t *Nnz, void **Ind,
                                               void **Val, cusparseIndexType_t *IT, cusparseIndexBase_t *B,
                                               cudaDataType *VT) {
  auto *V = lookup<SpVec>(D);
  if (!V || !Size || !Nnz || !Ind || !Val || !IT || !B || !VT)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Size = V->Size, *Nnz = V->Nnz, *Ind = V->Ind, *Val = V->Val, *IT = V->IndType, *B = V->Base, *VT = V->VT;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpVecGetIndexBase(const void *D, cusparseIndexBase_t *B) {
  auto *V = lookup<SpVec>(D);
  if (!V || !B)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *B = V->Base;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpVecGetValues(cusparseSpVecDescr_t D, void **Val) {
  auto *V = lookup<SpVec>(D);
  if (!V || !Val)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Val = V->Val;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpVecSetValues(cusparseSpVecDescr_t D, void *Val) {
  auto *V = lookup<SpVec>(D);
  if (!V)
    return CUSPARSE_STATUS_INVALID_VALUE;
  V->Val = Val;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseConstSpVecGet(const void *D, int64_t *Size, int64_t *Nnz, const void **Ind,
                                                    const void **Val, cusparseIndexType_t *IT, cusparseIndexBase_t *B,
                                                    cudaDataType *VT) {
  return cusparseSpVecGet(reinterpret_cast<cusparseSpVecDescr_t>(const_cast<void *>(D)), Size, Nnz,
                          const_cast<void **>(Ind), const_cast<void **>(Val), IT, B, VT);
}
CUSPARSE_API cusparseStatus_t cusparseConstSpVecGetValues(const void *D, const void **Val) {
  return cusparseSpVecGetValues(reinterpret_cast<cusparseSpVecDescr_t>(const_cast<void *>(D)),
                                const_cast<void **>(Val));
}

namespace {
/// SpVV's mixed precisions (cuSPARSE's table): X and Y of one type, the compute (and result) type wider.
bool spvvMixed(cudaDataType V, cudaDataType C) {
  return (V == CUDA_R_8I && (C == CUDA_R_32I || C == CUDA_R_32F)) ||
         ((V == CUDA_R_16F || V == CUDA_R_16BF) && C == CUDA_R_32F) ||
         ((V == CUDA_C_16F || V == CUDA_C_16BF) && C == CUDA_C_32F);
}
} // namespace

CUSPARSE_API cusparseStatus_t cusparseSpVV_bufferSize(cusparseHandle_t Hd, cusparseOperation_t Op, const void *X,
                                                      const void *Y, const void *Result, cudaDataType Compute,
                                                      size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  auto *Xv = lookup<SpVec>(X);
  auto *Yv = lookup<DnVec>(Y);
  if (!Xv || !Yv || !Result || Xv->Size != Yv->Size ||
      (Op != CUSPARSE_OPERATION_NON_TRANSPOSE && Op != CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Xv->VT != Yv->VT || !(Xv->VT == Compute ? validValue(Compute) : spvvMixed(Xv->VT, Compute)))
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  return setOut(Size, 0);
}
/// result = op(x) . y; the result is in host or device memory by the pointer mode. On a GPU: after the stream,
/// on host copies of x and y.
CUSPARSE_API cusparseStatus_t cusparseSpVV(cusparseHandle_t Hd, cusparseOperation_t Op, const void *X,
                                           const void *Y, void *Result, cudaDataType Compute, void *) {
  size_t Unused;
  if (auto S = cusparseSpVV_bufferSize(Hd, Op, X, Y, Result, Compute, &Unused))
    return S;
  Handle *H = handle(Hd);
  SpVec Xc = *lookup<SpVec>(X);
  DnVec Yc = *lookup<DnVec>(Y);
  auto Run = [=](const SpVec &Xc, const DnVec &Yc, void *Result) {
    if (Xc.VT != Compute) { // mixed: the narrow values widened, summed in double, rounded once to the result's type
      Cd Sum = 0;
      for (int64_t K = 0; K < Xc.Nnz; ++K) {
        const Cd V = loadValue(Xc.VT, Xc.Val, K);
        Sum += (Op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE ? std::conj(V) : V) *
               loadValue(Yc.VT, Yc.Val, getIx(Xc.Ind, Xc.IndType, K) - Xc.Base);
      }
      storeValue(Compute, Result, 0, Sum);
      return;
    }
    dispatch(Compute, [&](auto Tag) {
      using T = decltype(Tag);
      const T *V = static_cast<const T *>(Xc.Val), *Yd = static_cast<const T *>(Yc.Val);
      T Sum = T(0);
      for (int64_t K = 0; K < Xc.Nnz; ++K)
        Sum += conjIf(V[K], Op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE) * Yd[getIx(Xc.Ind, Xc.IndType, K) - Xc.Base];
      std::memcpy(Result, &Sum, sizeof Sum);
    });
  };
  const bool HostResult = H->PointerMode == CUSPARSE_POINTER_MODE_HOST;
  auto Stage = [=](Staged &S) {
    return [Run, X = S.spv(Xc), Y = S.vec(Yc), R = HostResult ? Result : S.fresh(Result, valueBytes(Compute))] {
      Run(X, Y, R);
    };
  };
  return HostResult ? atReturn(H, Stage) : onHost(H, Stage); // a host result is the caller's at return
}
CUSPARSE_API cusparseStatus_t cusparseAxpby(cusparseHandle_t Hd, const void *Alpha, const void *X, const void *Beta,
                                            void *Y) {
  HANDLE_OR_FAIL(Hd)
  auto *Xv = lookup<SpVec>(X);
  auto *Yv = lookup<DnVec>(Y);
  if (!Xv || !Yv || !Alpha || !Beta || Xv->Size != Yv->Size)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Xv->VT != Yv->VT || !validValue(Xv->VT))
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  Scalar Al0(*H, Alpha, Yv->VT), Be0(*H, Beta, Yv->VT);
  return onHost(H, [X0 = *Xv, Y0 = *Yv, Al0, Be0](Staged &S) {
    return [Xc = S.spv(X0), Yc = S.vec(Y0, true), Al = S.scalar(Al0, Y0.VT), Be = S.scalar(Be0, Y0.VT)] {
    dispatch(Yc.VT, [&](auto Tag) {
      using T = decltype(Tag);
      T *Yd = static_cast<T *>(Yc.Val);
      const T *V = static_cast<const T *>(Xc.Val);
      const T A = Al.get<T>(), B = Be.get<T>();
      for (int64_t I = 0; I < Yc.Size; ++I)
        Yd[I] = B == T(0) ? T(0) : B * Yd[I];
      for (int64_t K = 0; K < Xc.Nnz; ++K)
        Yd[getIx(Xc.Ind, Xc.IndType, K) - Xc.Base] += A * V[K];
    });
    };
  });
}
CUSPARSE_API cusparseStatus_t cusparseGather(cusparseHandle_t Hd, const void *Y, void *X) {
  HANDLE_OR_FAIL(Hd)
  auto *Xv = lookup<SpVec>(X);
  auto *Yv = lookup<DnVec>(Y);
  if (!Xv || !Yv || Xv->Size != Yv->Size || Xv->VT != Yv->VT)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return onHost(H, [X0 = *Xv, Y0 = *Yv](Staged &S) {
    return [Xc = S.spv(X0, true), Yc = S.vec(Y0)] {
      const size_t Sz = valueBytes(Xc.VT);
      for (int64_t K = 0; K < Xc.Nnz; ++K)
        std::memcpy(static_cast<char *>(Xc.Val) + K * Sz,
                    static_cast<const char *>(Yc.Val) + (getIx(Xc.Ind, Xc.IndType, K) - Xc.Base) * Sz, Sz);
    };
  });
}
CUSPARSE_API cusparseStatus_t cusparseScatter(cusparseHandle_t Hd, const void *X, void *Y) {
  HANDLE_OR_FAIL(Hd)
  auto *Xv = lookup<SpVec>(X);
  auto *Yv = lookup<DnVec>(Y);
  if (!Xv || !Yv || Xv->Size != Yv->Size || Xv->VT != Yv->VT)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return onHost(H, [X0 = *Xv, Y0 = *Yv](Staged &S) {
    return [Xc = S.spv(X0), Yc = S.vec(Y0, true)] {
      const size_t Sz = valueBytes(Xc.VT);
      for (int64_t K = 0; K < Xc.Nnz; ++K)
        std::memcpy(static_cast<char *>(Yc.Val) + (getIx(Xc.Ind, Xc.IndType, K) - Xc.Base) * Sz,
                    static_cast<const char *>(Xc.Val) + K * Sz, Sz);
    };
  });
}
/// Givens rotation of x (sparse) and y at x's entries: x' = c x + s y, y' = c y - s x.
CUSPARSE_API cusparseStatus_t cusparseRot(cusparseHandle_t Hd, const void *C, const void *S, void *X, void *Y) {
  HANDLE_OR_FAIL(Hd)
  auto *Xv = lookup<SpVec>(X);
  auto *Yv = lookup<DnVec>(Y);
  if (!Xv || !Yv || !C || !S || Xv->Size != Yv->Size || Xv->VT != Yv->VT || !validValue(Xv->VT))
    return CUSPARSE_STATUS_INVALID_VALUE;
  Scalar Cs0(*H, C, Xv->VT), Ss0(*H, S, Xv->VT);
  return onHost(H, [X0 = *Xv, Y0 = *Yv, Cs0, Ss0](Staged &St) {
    return [Xc = St.spv(X0, true), Yc = St.vec(Y0, true), Cs = St.scalar(Cs0, X0.VT), Ss = St.scalar(Ss0, X0.VT)] {
    dispatch(Xc.VT, [&](auto Tag) {
      using T = decltype(Tag);
      T *V = static_cast<T *>(Xc.Val), *Yd = static_cast<T *>(Yc.Val);
      const T Cv = Cs.get<T>(), Sv = Ss.get<T>();
      for (int64_t K = 0; K < Xc.Nnz; ++K) {
        T &Yk = Yd[getIx(Xc.Ind, Xc.IndType, K) - Xc.Base];
        T Xk = V[K];
        V[K] = Cv * Xk + Sv * Yk;
        Yk = Cv * Yk - Sv * Xk;
      }
    });
    };
  });
}

// SpSM: op(A) C = alpha op(B), column by column through SpSV's solver.
CUSPARSE_API cusparseStatus_t cusparseSpSM_createDescr(cusparseSpSMDescr_t *Out) {
  if (!Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Out = reinterpret_cast<cusparseSpSMDescr_t>(track(new SpSM));
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpSM_destroyDescr(cusparseSpSMDescr_t D) {
  return drop(lookup<SpSM>(D)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}
static cusparseStatus_t checkSpsm(cusparseOperation_t OpA, cusparseOperation_t OpB, const void *Alpha, const void *A,
                                  const void *B, const void *C, cudaDataType Compute, const void *D) {
  auto *Am = lookup<SpMat>(A);
  auto *Bm = lookup<DnMat>(B);
  auto *Cm = lookup<DnMat>(C);
  if (!Am || !Bm || !Cm || !Alpha || !lookup<SpSM>(D) || !validOp(OpA) || !validOp(OpB))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!validValue(Compute) || Am->Fmt == CUSPARSE_FORMAT_CSC || Am->VT != Compute || Bm->VT != Compute ||
      Cm->VT != Compute)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  const int64_t Nb = opSwaps(OpB) ? Bm->Rows : Bm->Cols, Mb = opSwaps(OpB) ? Bm->Cols : Bm->Rows;
  if (Am->Rows != Am->Cols || Mb != Am->Rows || Cm->Rows != Am->Rows || Cm->Cols != Nb)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSpSM_bufferSize(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                      cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                      const void *B, void *C, cudaDataType Compute, int,
                                                      cusparseSpSMDescr_t D, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  if (auto S = checkSpsm(OpA, OpB, Alpha, A, B, C, Compute, D))
    return S;
  return setOut(Size, 0);
}
CUSPARSE_API cusparseStatus_t cusparseSpSM_analysis(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                    cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                    const void *B, void *C, cudaDataType Compute, int,
                                                    cusparseSpSMDescr_t D, void *) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  return checkSpsm(OpA, OpB, Alpha, A, B, C, Compute, D);
}
CUSPARSE_API cusparseStatus_t cusparseSpSM_solve(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                 cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                 const void *B, void *C, cudaDataType Compute, int,
                                                 cusparseSpSMDescr_t D) {
  HANDLE_OR_FAIL(Hd)
  if (auto S = checkSpsm(OpA, OpB, Alpha, A, B, C, Compute, D))
    return S;
  SpMat M = *lookup<SpMat>(A);
  DnMat Bc = *lookup<DnMat>(B), Cc = *lookup<DnMat>(C);
  Scalar Al(*H, Alpha, Compute);
  auto Run = [=](const SpMat &M, const DnMat &Bc, const DnMat &Cc, const Scalar &Al) {
    dispatch(Compute, [&](auto Tag) {
      using T = decltype(Tag);
      const int64_t N = M.Rows;
      std::vector<T> X(static_cast<size_t>(N)), Y(static_cast<size_t>(N));
      for (int64_t J = 0; J < Cc.Cols; ++J) {
        for (int64_t I = 0; I < N; ++I)
          X[static_cast<size_t>(I)] = OpB == CUSPARSE_OPERATION_NON_TRANSPOSE
                                          ? at<T>(Bc, I, J)
                                          : conjIf(at<T>(Bc, J, I), OpB == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE);
        spsv<T>(M, OpA, Al.get<T>(), X.data(), Y.data());
        for (int64_t I = 0; I < N; ++I)
          at<T>(Cc, I, J) = Y[static_cast<size_t>(I)];
      }
    });
  };
  return onHost(H, [=](Staged &S) {
    return [Run, M = S.sp(M), B = S.mat(Bc), C = S.mat(Cc, true), A = S.scalar(Al, Compute)] { Run(M, B, C, A); };
  });
}
CUSPARSE_API cusparseStatus_t cusparseSpSM_updateMatrix(cusparseHandle_t Hd, cusparseSpSMDescr_t D, void *, int) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  return lookup<SpSM>(D) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}

// SDDMM: C = alpha (op(A) op(B)) at C's sparsity pattern + beta C (CSR or COO C).
static cusparseStatus_t checkSddmm(cusparseOperation_t OpA, cusparseOperation_t OpB, const void *Alpha,
                                   const void *A, const void *B, const void *Beta, const void *C,
                                   cudaDataType Compute) {
  auto *Am = lookup<DnMat>(A);
  auto *Bm = lookup<DnMat>(B);
  auto *Cm = lookup<SpMat>(C);
  if (!Am || !Bm || !Cm || !Alpha || !Beta || !validOp(OpA) || !validOp(OpB))
    return CUSPARSE_STATUS_INVALID_VALUE;
  // As NVIDIA's (every combination tried on an H100, tests/golden/libs/cusparse_types_ops.golden): one type, or
  // f16 dense matrices into an f16 or f32 sparse C computed in f32.
  const bool Uniform = validValue(Compute) && Am->VT == Compute && Bm->VT == Compute && Cm->VT == Compute;
  const bool Half = Compute == CUDA_R_32F && Am->VT == CUDA_R_16F && Bm->VT == CUDA_R_16F &&
                    (Cm->VT == CUDA_R_16F || Cm->VT == CUDA_R_32F);
  if (!(Uniform || Half) || Cm->Fmt == CUSPARSE_FORMAT_CSC)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  const int64_t M = opSwaps(OpA) ? Am->Cols : Am->Rows, K = opSwaps(OpA) ? Am->Rows : Am->Cols;
  const int64_t Kb = opSwaps(OpB) ? Bm->Cols : Bm->Rows, N = opSwaps(OpB) ? Bm->Rows : Bm->Cols;
  if (K != Kb || Cm->Rows != M || Cm->Cols != N)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}
CUSPARSE_API cusparseStatus_t cusparseSDDMM_bufferSize(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                       cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                       const void *B, const void *Beta, void *C,
                                                       cudaDataType Compute, int, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  if (auto S = checkSddmm(OpA, OpB, Alpha, A, B, Beta, C, Compute))
    return S;
  return setOut(Size, 0);
}
CUSPARSE_API cusparseStatus_t cusparseSDDMM_preprocess(cusparseHandle_t Hd, cusparseOperation_t OpA,
                                                       cusparseOperation_t OpB, const void *Alpha, const void *A,
                                                       const void *B, const void *Beta, void *C,
                                                       cudaDataType Compute, int, void *) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  return checkSddmm(OpA, OpB, Alpha, A, B, Beta, C, Compute);
}
CUSPARSE_API cusparseStatus_t cusparseSDDMM(cusparseHandle_t Hd, cusparseOperation_t OpA, cusparseOperation_t OpB,
                                            const void *Alpha, const void *A, const void *B, const void *Beta, void *C,
                                            cudaDataType Compute, int, void *) {
  HANDLE_OR_FAIL(Hd)
  if (auto S = checkSddmm(OpA, OpB, Alpha, A, B, Beta, C, Compute))
    return S;
  DnMat Ac = *lookup<DnMat>(A), Bc = *lookup<DnMat>(B);
  SpMat Cm = *lookup<SpMat>(C);
  Scalar Al(*H, Alpha, Compute), Be(*H, Beta, Compute);
  auto Run = [=](const DnMat &Ac0, const DnMat &Bc0, const SpMat &Cm0, const Scalar &Al, const Scalar &Be) {
    // f16 operands: widened to f32, C's values rounded once back to its type.
    DnMat Ac = Ac0, Bc = Bc0;
    SpMat Cm = Cm0;
    std::vector<float> Aw, Bw, Cw;
    if (Ac.VT != Compute) {
      Aw = widen<float>(Ac.VT, Ac.Val, denseSpan(Ac)), Bw = widen<float>(Bc.VT, Bc.Val, denseSpan(Bc));
      Ac = withValues(Ac, Aw.data(), Compute), Bc = withValues(Bc, Bw.data(), Compute);
    }
    if (Cm.VT != Compute) {
      Cw = widen<float>(Cm.VT, Cm.Val, Cm.Nnz);
      Cm = withValues(Cm, Cw.data(), Compute);
    }
    dispatch(Compute, [&](auto Tag) {
      using T = decltype(Tag);
      const int64_t K = opSwaps(OpA) ? Ac.Rows : Ac.Cols;
      const T A1 = Al.get<T>(), B1 = Be.get<T>();
      T *V = static_cast<T *>(Cm.Val);
      forEach(Cm, [&](int64_t R, int64_t Cc, int64_t P) {
        T Sum = T(0);
        for (int64_t L = 0; L < K; ++L) {
          T Av = OpA == CUSPARSE_OPERATION_NON_TRANSPOSE
                     ? at<T>(Ac, R, L)
                     : conjIf(at<T>(Ac, L, R), OpA == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE);
          T Bv = OpB == CUSPARSE_OPERATION_NON_TRANSPOSE
                     ? at<T>(Bc, L, Cc)
                     : conjIf(at<T>(Bc, Cc, L), OpB == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE);
          Sum += Av * Bv;
        }
        V[P] = A1 * Sum + (B1 == T(0) ? T(0) : B1 * V[P]);
      });
    });
    if (Cm0.VT != Compute)
      narrow(Cm0.VT, Cm0.Val, Cw);
  };
  return onHost(H, [=](Staged &S) {
    return [Run, A = S.mat(Ac), B = S.mat(Bc), C = S.sp(Cm, true), Al = S.scalar(Al, Compute),
            Be = S.scalar(Be, Compute)] { Run(A, B, C, Al, Be); };
  });
}

//===----------------------------------------------------------------------===//
// Legacy routines samples still call: tridiagonal solvers (gtsv2 with
// partial pivoting, gtsv2_nopivot and gtsv2StridedBatch without), sorting
// (Xcsrsort, XcoosortByRow/ByColumn with their permutations,
// CreateIdentityPermutation), bsrmv (y = alpha A x + beta y of a BSR
// matrix, non-transposed as cuSPARSE takes it) and csrgeam2 (C = alpha A +
// beta B, with Xcsrgeam2Nnz). CPU device: in stream order on device memory.
// GPUs: on host copies after the stream (staged).
//===----------------------------------------------------------------------===//
namespace {

/// Solves tridiagonal systems (rows M, N right-hand sides in B): Gaussian elimination with partial pivoting
/// (Pivot) or the Thomas algorithm (none). Returns false on a zero pivot.
template <typename T>
bool tridiagonal(int M, int N, const T *Dl, const T *D, const T *Du, T *B, int Ldb, bool Pivot) {
  std::vector<T> L(Dl, Dl + M), C(D, D + M), U(Du, Du + M), U2(size_t(M), T(0));
  std::vector<int> Swap(size_t(M), 0);
  // Forward: eliminate the subdiagonal; with pivoting a row swap brings a second superdiagonal (U2).
  for (int I = 0; I + 1 < M; ++I) {
    if (Pivot && std::abs(L[I + 1]) > std::abs(C[I])) {
      Swap[I] = 1;
      std::swap(C[I], L[I + 1]);
      std::swap(U[I], C[I + 1]);
      if (I + 2 < M)
        std::swap(U2[I], U[I + 1]);
      for (int J = 0; J < N; ++J)
        std::swap(B[size_t(J) * Ldb + I], B[size_t(J) * Ldb + I + 1]);
    }
    if (C[I] == T(0))
      return false;
    T F = L[I + 1] / C[I];
    C[I + 1] -= F * U[I];
    if (I + 2 < M)
      U[I + 1] -= F * U2[I];
    for (int J = 0; J < N; ++J)
      B[size_t(J) * Ldb + I + 1] -= F * B[size_t(J) * Ldb + I];
  }
  if (M && C[M - 1] == T(0))
    return false;
  for (int J = 0; J < N; ++J) {
    T *X = B + size_t(J) * Ldb;
    for (int I = M - 1; I >= 0; --I) {
      T S = X[I];
      if (I + 1 < M)
        S -= U[I] * X[I + 1];
      if (I + 2 < M)
        S -= U2[I] * X[I + 2];
      X[I] = S / C[I];
    }
  }
  return true;
}

/// Sorts the entries [From, To) of (Key1, Key2) pairs, permuting P alike (a stable sort).
void sortPairs(int *Key1, int *Key2, int *P, int From, int To) {
  std::vector<int> Order(static_cast<size_t>(To - From));
  for (int K = From; K < To; ++K)
    Order[size_t(K - From)] = K;
  std::stable_sort(Order.begin(), Order.end(), [&](int A, int B) {
    return Key1[A] != Key1[B] ? Key1[A] < Key1[B] : (Key2 && Key2[A] < Key2[B]);
  });
  std::vector<int> K1(Order.size()), K2(Order.size()), Pp(Order.size());
  for (size_t I = 0; I < Order.size(); ++I) {
    K1[I] = Key1[Order[I]];
    if (Key2)
      K2[I] = Key2[Order[I]];
    if (P)
      Pp[I] = P[Order[I]];
  }
  for (size_t I = 0; I < Order.size(); ++I) {
    Key1[From + I] = K1[I];
    if (Key2)
      Key2[From + I] = K2[I];
    if (P)
      P[From + I] = Pp[I];
  }
}

/// The buffer size gtsv2 and gtsv2_nopivot report (they use none of their
/// own; 64 bytes, as both reported before sharing this).
cusparseStatus_t gtsv2BufferSize(cusparseHandle_t Hd, int M, int N, int Ldb, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  return M < 3 || N < 0 || Ldb < std::max(1, M) ? CUSPARSE_STATUS_INVALID_VALUE : setOut(Size, 64);
}

} // namespace

#define GTSV_FORMS(p, T)                                                                                               \
  CUSPARSE_API cusparseStatus_t cusparse##p##gtsv2_bufferSizeExt(cusparseHandle_t Hd, int M, int N, const T *,         \
                                                                 const T *, const T *, const T *, int Ldb,             \
                                                                 size_t *Size) {                                       \
    return gtsv2BufferSize(Hd, M, N, Ldb, Size);                                                                       \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gtsv2_nopivot_bufferSizeExt(cusparseHandle_t Hd, int M, int N, const T *, \
                                                                         const T *, const T *, const T *, int Ldb,     \
                                                                         size_t *Size) {                               \
    return gtsv2BufferSize(Hd, M, N, Ldb, Size);                                                                       \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gtsv2(cusparseHandle_t Hd, int M, int N, const T *Dl, const T *D,         \
                                                   const T *Du, T *B, int Ldb, void *Buf) {                            \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    if (M < 3 || N < 0 || Ldb < std::max(1, M) || !Dl || !D || !Du || !B || !Buf)                                      \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    return staged(                                                                                                     \
        H, [=](const T *Dl, const T *D, const T *Du, T *B) { tridiagonal(M, N, Dl, D, Du, B, Ldb, true); },            \
        libs::in(Dl, size_t(M)), libs::in(D, size_t(M)), libs::in(Du, size_t(M)),                                      \
        libs::inout(B, N ? size_t(Ldb) * size_t(N - 1) + size_t(M) : 0));                                              \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gtsv2_nopivot(cusparseHandle_t Hd, int M, int N, const T *Dl,             \
                                                           const T *D, const T *Du, T *B, int Ldb, void *Buf) {        \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    if (M < 3 || N < 0 || Ldb < std::max(1, M) || !Dl || !D || !Du || !B || !Buf)                                      \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    return staged(                                                                                                     \
        H, [=](const T *Dl, const T *D, const T *Du, T *B) { tridiagonal(M, N, Dl, D, Du, B, Ldb, false); },            \
        libs::in(Dl, size_t(M)), libs::in(D, size_t(M)), libs::in(Du, size_t(M)),                                      \
        libs::inout(B, N ? size_t(Ldb) * size_t(N - 1) + size_t(M) : 0));                                              \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gtsv2StridedBatch_bufferSizeExt(                                          \
      cusparseHandle_t Hd, int M, const T *, const T *, const T *, const T *, int Count, int Stride, size_t *Size) {  \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    return M < 3 || Count < 0 || Stride < M ? CUSPARSE_STATUS_INVALID_VALUE : setOut(Size, 64);                        \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gtsv2StridedBatch(cusparseHandle_t Hd, int M, const T *Dl, const T *D,    \
                                                               const T *Du, T *X, int Count, int Stride, void *Buf) {  \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    if (M < 3 || Count < 0 || Stride < M || !Dl || !D || !Du || !X || !Buf)                                            \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    const size_t Len = Count ? size_t(Count - 1) * size_t(Stride) + size_t(M) : 0;                                     \
    return staged(                                                                                                     \
        H,                                                                                                             \
        [=](const T *Dl, const T *D, const T *Du, T *X) {                                                              \
          for (int K = 0; K < Count; ++K) {                                                                            \
            size_t O = size_t(K) * Stride;                                                                             \
            tridiagonal(M, 1, Dl + O, D + O, Du + O, X + O, M, false);                                                 \
          }                                                                                                            \
        },                                                                                                             \
        libs::in(Dl, Len), libs::in(D, Len), libs::in(Du, Len), libs::inout(X, Len));                                  \
  }
GTSV_FORMS(S, float)
GTSV_FORMS(D, double)
GTSV_FORMS(C, std::complex<float>)
GTSV_FORMS(Z, std::complex<double>)
#undef GTSV_FORMS

CUSPARSE_API cusparseStatus_t cusparseXcsrsort_bufferSizeExt(cusparseHandle_t Hd, int M, int N, int Nnz, const int *,
                                                             const int *, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  return M < 0 || N < 0 || Nnz < 0 ? CUSPARSE_STATUS_INVALID_VALUE : setOut(Size, 64);
}
CUSPARSE_API cusparseStatus_t cusparseXcsrsort(cusparseHandle_t Hd, int M, int N, int Nnz, cusparseMatDescr_t Descr,
                                               const int *RowPtr, int *ColInd, int *P, void *Buf) {
  HANDLE_OR_FAIL(Hd)
  auto *D = lookup<MatDescr>(Descr);
  if (!D || M < 0 || N < 0 || Nnz < 0 || (M && !RowPtr) || (Nnz && (!ColInd || !Buf)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int Base = D->Base;
  return staged(
      H,
      [=](const int *RowPtr, int *ColInd, int *P) {
        for (int I = 0; I < M; ++I)
          sortPairs(ColInd, nullptr, P, RowPtr[I] - Base, RowPtr[I + 1] - Base);
      },
      libs::in(M ? RowPtr : nullptr, M ? size_t(M) + 1 : 0), libs::inout(ColInd, size_t(Nnz)),
      libs::inout(P, P ? size_t(Nnz) : 0));
}
CUSPARSE_API cusparseStatus_t cusparseXcoosort_bufferSizeExt(cusparseHandle_t Hd, int M, int N, int Nnz, const int *,
                                                             const int *, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  return M < 0 || N < 0 || Nnz < 0 ? CUSPARSE_STATUS_INVALID_VALUE : setOut(Size, 64);
}
CUSPARSE_API cusparseStatus_t cusparseXcoosortByRow(cusparseHandle_t Hd, int M, int N, int Nnz, int *Rows, int *Cols,
                                                    int *P, void *Buf) {
  HANDLE_OR_FAIL(Hd)
  if (M < 0 || N < 0 || Nnz < 0 || (Nnz && (!Rows || !Cols || !Buf)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return staged(
      H, [=](int *Rows, int *Cols, int *P) { sortPairs(Rows, Cols, P, 0, Nnz); }, libs::inout(Rows, size_t(Nnz)),
      libs::inout(Cols, size_t(Nnz)), libs::inout(P, P ? size_t(Nnz) : 0));
}
CUSPARSE_API cusparseStatus_t cusparseXcoosortByColumn(cusparseHandle_t Hd, int M, int N, int Nnz, int *Rows,
                                                       int *Cols, int *P, void *Buf) {
  HANDLE_OR_FAIL(Hd)
  if (M < 0 || N < 0 || Nnz < 0 || (Nnz && (!Rows || !Cols || !Buf)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return staged(
      H, [=](int *Rows, int *Cols, int *P) { sortPairs(Cols, Rows, P, 0, Nnz); }, libs::inout(Rows, size_t(Nnz)),
      libs::inout(Cols, size_t(Nnz)), libs::inout(P, P ? size_t(Nnz) : 0));
}
CUSPARSE_API cusparseStatus_t cusparseCreateIdentityPermutation(cusparseHandle_t Hd, int N, int *P) {
  HANDLE_OR_FAIL(Hd)
  if (N < 0 || (N && !P))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return staged(
      H,
      [=](int *P) {
        for (int I = 0; I < N; ++I)
          P[I] = I;
      },
      libs::out(P, size_t(N)));
}

namespace {
/// C (mb*bd x n, column-major) = alpha A op(B) + beta C for a BSR matrix A (blocks row- or column-major); op(B)
/// is B (k*bd x n, ldb) or, transposed, B given as n x k*bd. bsrmv is the case n = 1.
template <typename V>
void bsrProduct(cusparseDirection_t Dir, int Mb, int N, const V *Val, const int *RowPtr, const int *ColInd, int Base,
                int Bd, const V *B, int Ldb, bool Bt, V Alpha, V Beta, V *C, int Ldc) {
  for (int J = 0; J < N; ++J)
    for (int Br = 0; Br < Mb; ++Br)
      for (int I = 0; I < Bd; ++I) {
        V S = V(0);
        for (int K = RowPtr[Br] - Base; K < RowPtr[Br + 1] - Base; ++K) {
          const int Bc = ColInd[K] - Base;
          for (int L = 0; L < Bd; ++L) {
            const int Row = Bc * Bd + L;
            S += Val[size_t(K) * Bd * Bd + (Dir == CUSPARSE_DIRECTION_ROW ? I * Bd + L : L * Bd + I)] *
                 (Bt ? B[size_t(Row) * Ldb + J] : B[size_t(J) * Ldb + Row]);
          }
        }
        V &Out = C[size_t(J) * Ldc + Br * Bd + I];
        Out = Alpha * S + (Beta == V(0) ? V(0) : Beta * Out);
      }
}

/// The checks bsrmv and bsrmm share, then the product in stream order (cuSPARSE's rules: A not transposed,
/// op(B) B or B^T, a general matrix).
template <typename V>
cusparseStatus_t bsr(cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t OpA, cusparseOperation_t OpB,
                     int Mb, int N, int Kb, int Nnzb, const void *Alpha, cusparseMatDescr_t Descr, const V *Val,
                     const int *RowPtr, const int *ColInd, int Bd, const V *B, int Ldb, const void *Beta, V *C,
                     int Ldc, cudaDataType Dt) {
  HANDLE_OR_FAIL(Hd)
  auto *D = lookup<MatDescr>(Descr);
  const bool Bt = OpB != CUSPARSE_OPERATION_NON_TRANSPOSE;
  if (!D || Mb < 0 || N < 0 || Kb < 0 || Nnzb < 0 || Bd < 1 || !Alpha || !Beta ||
      (Dir != CUSPARSE_DIRECTION_ROW && Dir != CUSPARSE_DIRECTION_COLUMN) || !validOp(OpB) ||
      Ldb < std::max(1, Bt ? N : Kb * Bd) || Ldc < std::max(1, Mb * Bd))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (OpA != CUSPARSE_OPERATION_NON_TRANSPOSE || OpB == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  if (D->Type != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  Scalar Al(*H, Alpha, Dt), Be(*H, Beta, Dt);
  if (!Al.fetch(H->Stream) || !Be.fetch(H->Stream))
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  const int Base = D->Base;
  const int64_t K = int64_t(Kb) * Bd, Rows = int64_t(Mb) * Bd;
  return staged(
      H,
      [=](const V *Val, const int *RowPtr, const int *ColInd, const V *B, V *C) {
        bsrProduct<V>(Dir, Mb, N, Val, RowPtr, ColInd, Base, Bd, B, Ldb, Bt, Al.get<V>(), Be.get<V>(), C, Ldc);
      },
      libs::in(Val, size_t(Nnzb) * Bd * Bd), libs::in(RowPtr, size_t(Mb) + 1), libs::in(ColInd, size_t(Nnzb)),
      libs::in(B, Bt ? span(Ldb, K, N) : span(Ldb, N, K)), libs::inout(C, span(Ldc, N, Rows)));
}
} // namespace

#define BSR_FORMS(p, T, Cx, Dt)                                                                                        \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrmv(cusparseHandle_t Hd, cusparseDirection_t Dir,                       \
                                                   cusparseOperation_t Op, int Mb, int Nb, int Nnzb, const T *Alpha,   \
                                                   cusparseMatDescr_t Descr, const T *Val, const int *RowPtr,          \
                                                   const int *ColInd, int Bd, const T *X, const T *Beta, T *Y) {       \
    return bsr<Cx>(Hd, Dir, Op, CUSPARSE_OPERATION_NON_TRANSPOSE, Mb, 1, Nb, Nnzb, Alpha, Descr,                       \
                   reinterpret_cast<const Cx *>(Val), RowPtr, ColInd, Bd, reinterpret_cast<const Cx *>(X),             \
                   std::max(1, Nb * Bd), Beta, reinterpret_cast<Cx *>(Y), std::max(1, Mb * Bd), Dt);                  \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrmm(                                                                    \
      cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t OpA, cusparseOperation_t OpB, int Mb, int N,   \
      int Kb, int Nnzb, const T *Alpha, cusparseMatDescr_t Descr, const T *Val, const int *RowPtr, const int *ColInd,  \
      const int Bd, const T *B, const int Ldb, const T *Beta, T *C, int Ldc) {                                         \
    return bsr<Cx>(Hd, Dir, OpA, OpB, Mb, N, Kb, Nnzb, Alpha, Descr, reinterpret_cast<const Cx *>(Val), RowPtr,        \
                   ColInd, Bd, reinterpret_cast<const Cx *>(B), Ldb, Beta, reinterpret_cast<Cx *>(C), Ldc, Dt);        \
  }
BSR_FORMS(S, float, float, CUDA_R_32F)
BSR_FORMS(D, double, double, CUDA_R_64F)
BSR_FORMS(C, cuComplex, std::complex<float>, CUDA_C_32F)
BSR_FORMS(Z, cuDoubleComplex, std::complex<double>, CUDA_C_64F)
#undef BSR_FORMS

/// csrgeam2: C's row pointers and nnz (Xcsrgeam2Nnz), then its columns and values (sorted, the union of A's and
/// B's patterns per row).
namespace {
void geamRow(const int *Ra, const int *Ca, int BaseA, const int *Rb, const int *Cb, int BaseB, int Row,
             std::vector<int> &Cols) {
  Cols.clear();
  for (int K = Ra[Row] - BaseA; K < Ra[Row + 1] - BaseA; ++K)
    Cols.push_back(Ca[K] - BaseA);
  for (int K = Rb[Row] - BaseB; K < Rb[Row + 1] - BaseB; ++K)
    Cols.push_back(Cb[K] - BaseB);
  std::sort(Cols.begin(), Cols.end());
  Cols.erase(std::unique(Cols.begin(), Cols.end()), Cols.end());
}
} // namespace
CUSPARSE_API cusparseStatus_t cusparseXcsrgeam2Nnz(cusparseHandle_t Hd, int M, int N, cusparseMatDescr_t Da, int NnzA,
                                                   const int *Ra, const int *Ca, cusparseMatDescr_t Db, int NnzB,
                                                   const int *Rb, const int *Cb, cusparseMatDescr_t Dc, int *Rc,
                                                   int *NnzTotal, void *) {
  HANDLE_OR_FAIL(Hd)
  auto *A = lookup<MatDescr>(Da), *B = lookup<MatDescr>(Db), *C = lookup<MatDescr>(Dc);
  if (!A || !B || !C || M < 0 || N < 0 || NnzA < 0 || NnzB < 0 || !Rc || !NnzTotal || (M && (!Ra || !Rb)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int BaseA = A->Base, BaseB = B->Base, BaseC = C->Base;
  return withTotal(
      H, NnzTotal,
      [=](const int *Ra, const int *Ca, const int *Rb, const int *Cb, int *Rc) {
        std::vector<int> Cols;
        Rc[0] = BaseC;
        for (int I = 0; I < M; ++I) {
          geamRow(Ra, Ca, BaseA, Rb, Cb, BaseB, I, Cols);
          Rc[I + 1] = Rc[I] + int(Cols.size());
        }
        return Rc[M] - BaseC;
      },
      libs::in(M ? Ra : nullptr, size_t(M) + 1), libs::in(Ca, size_t(NnzA)), libs::in(M ? Rb : nullptr, size_t(M) + 1),
      libs::in(Cb, size_t(NnzB)), libs::out(Rc, size_t(M) + 1));
}
#define GEAM2_FORMS(p, T, Cx, Dt)                                                                                      \
  CUSPARSE_API cusparseStatus_t cusparse##p##csrgeam2_bufferSizeExt(                                                   \
      cusparseHandle_t Hd, int M, int N, const T *, cusparseMatDescr_t, int, const T *, const int *, const int *,      \
      const T *, cusparseMatDescr_t, int, const T *, const int *, const int *, cusparseMatDescr_t, const T *,          \
      const int *, const int *, size_t *Size) {                                                                        \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    return M < 0 || N < 0 ? CUSPARSE_STATUS_INVALID_VALUE : setOut(Size, 64);                                          \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csrgeam2(                                                                 \
      cusparseHandle_t Hd, int M, int N, const T *Alpha, cusparseMatDescr_t Da, int NnzA, const T *Va, const int *Ra,  \
      const int *Ca, const T *Beta, cusparseMatDescr_t Db, int NnzB, const T *Vb, const int *Rb, const int *Cb,        \
      cusparseMatDescr_t Dc, T *Vc, int *Rc, int *Cc, void *) {                                                        \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    auto *A = lookup<MatDescr>(Da), *B = lookup<MatDescr>(Db), *C = lookup<MatDescr>(Dc);                              \
    if (!A || !B || !C || M < 0 || N < 0 || NnzA < 0 || NnzB < 0 || !Alpha || !Beta || !Rc || (M && (!Ra || !Rb)))   \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    Scalar Al(*H, Alpha, Dt), Be(*H, Beta, Dt);                                                                        \
    if (!Al.fetch(H->Stream) || !Be.fetch(H->Stream))                                                                  \
      return CUSPARSE_STATUS_EXECUTION_FAILED;                                                                         \
    const int BaseA = A->Base, BaseB = B->Base, BaseC = C->Base;                                                       \
    const int64_t NnzC = entries(H, Rc, M, BaseC);                                                                     \
    if (NnzC < 0)                                                                                                      \
      return CUSPARSE_STATUS_EXECUTION_FAILED;                                                                         \
    using V = Cx;                                                                                                      \
    return staged(                                                                                                     \
        H,                                                                                                             \
        [=](const int *Ra, const int *Ca, const V *VA, const int *Rb, const int *Cb, const V *VB, const int *Rc,      \
            int *Cc, V *VC) {                                                                                          \
      V Af = Al.get<V>(), Bf = Be.get<V>();                                                                            \
      std::vector<int> Cols;                                                                                           \
      std::vector<V> Row(size_t(N), V(0));                                                                             \
      for (int I = 0; I < M; ++I) {                                                                                    \
        geamRow(Ra, Ca, BaseA, Rb, Cb, BaseB, I, Cols);                                                                \
        for (int K = Ra[I] - BaseA; K < Ra[I + 1] - BaseA; ++K)                                                        \
          Row[size_t(Ca[K] - BaseA)] += Af * VA[K];                                                                    \
        for (int K = Rb[I] - BaseB; K < Rb[I + 1] - BaseB; ++K)                                                        \
          Row[size_t(Cb[K] - BaseB)] += Bf * VB[K];                                                                    \
        int Out = Rc[I] - BaseC;                                                                                       \
        for (int Col : Cols) {                                                                                         \
          Cc[Out] = Col + BaseC;                                                                                       \
          VC[Out++] = Row[size_t(Col)];                                                                                \
          Row[size_t(Col)] = V(0);                                                                                     \
        }                                                                                                              \
      }                                                                                                                \
        },                                                                                                             \
        libs::in(M ? Ra : nullptr, size_t(M) + 1), libs::in(Ca, size_t(NnzA)),                                        \
        libs::in(reinterpret_cast<const V *>(Va), size_t(NnzA)), libs::in(M ? Rb : nullptr, size_t(M) + 1),           \
        libs::in(Cb, size_t(NnzB)), libs::in(reinterpret_cast<const V *>(Vb), size_t(NnzB)),                         \
        libs::in(Rc, size_t(M) + 1), libs::out(Cc, size_t(NnzC)), libs::out(reinterpret_cast<V *>(Vc), size_t(NnzC))); \
  }
GEAM2_FORMS(S, float, float, CUDA_R_32F)
GEAM2_FORMS(D, double, double, CUDA_R_64F)
GEAM2_FORMS(C, cuComplex, std::complex<float>, CUDA_C_32F)
GEAM2_FORMS(Z, cuDoubleComplex, std::complex<double>, CUDA_C_64F)
#undef GEAM2_FORMS

//===----------------------------------------------------------------------===//
// More legacy routines: block conversions (csr2bsr, bsr2csr, the general-block
// forms), block triangular solves and incomplete factorizations (bsrsv2,
// bsrsm2, bsrilu02, bsric02, numeric boosts), masked bsrxmv, csrcolor, nnz and
// compression, gemvi, pruning, cscsort, csru2csr and the interleaved batched
// tridiagonal and pentadiagonal solvers. CPU device, in stream order; GPUs,
// on host copies after the stream (staged).
//===----------------------------------------------------------------------===//
namespace zluda::cusparse {
namespace {

/// Offset of element (r, c) in a block of Rb x Cb stored row- or column-major.
inline size_t inBlock(cusparseDirection_t Dir, int R, int C, int Rb, int Cb) {
  return Dir == CUSPARSE_DIRECTION_ROW ? size_t(R) * Cb + C : size_t(C) * Rb + R;
}

/// A general BSR matrix's elements as CSR (every element of every block, rows sorted by column), 0-based, with
/// each element's position in the block values.
struct Expanded {
  std::vector<int> Row{0}, Col;
  std::vector<size_t> At;
};
Expanded expandBsr(cusparseDirection_t Dir, int Mb, const int *RowPtr, const int *ColInd, int Base, int Rb, int Cb) {
  Expanded E;
  std::vector<std::pair<int, int>> Blocks; // (block column, block index)
  for (int Br = 0; Br < Mb; ++Br) {
    Blocks.clear();
    for (int K = RowPtr[Br] - Base; K < RowPtr[Br + 1] - Base; ++K)
      Blocks.push_back({ColInd[K] - Base, K});
    std::sort(Blocks.begin(), Blocks.end());
    for (int R = 0; R < Rb; ++R) {
      for (auto [Bc, K] : Blocks)
        for (int C = 0; C < Cb; ++C) {
          E.Col.push_back(Bc * Cb + C);
          E.At.push_back(size_t(K) * Rb * Cb + inBlock(Dir, R, C, Rb, Cb));
        }
      E.Row.push_back(int(E.Col.size()));
    }
  }
  return E;
}

/// The block rows of a general BSR form of a CSR matrix: each block row's sorted block columns.
std::vector<std::vector<int>> blockColumns(int M, const int *Row, const int *Col, int Base, int Rb, int Cb) {
  const int Mb = (M + Rb - 1) / Rb;
  std::vector<std::vector<int>> B(static_cast<size_t>(Mb));
  for (int I = 0; I < M; ++I)
    for (int K = Row[I] - Base; K < Row[I + 1] - Base; ++K)
      B[size_t(I / Rb)].push_back((Col[K] - Base) / Cb);
  for (auto &V : B) {
    std::sort(V.begin(), V.end());
    V.erase(std::unique(V.begin(), V.end()), V.end());
  }
  return B;
}

cusparseStatus_t csr2gebsrNnz(cusparseHandle_t Hd, cusparseDirection_t Dir, int M, int N, cusparseMatDescr_t Da,
                              const int *Ra, const int *Ca, cusparseMatDescr_t Dc, int *Rc, int Rb, int Cb,
                              int *Total) {
  HANDLE_OR_FAIL(Hd)
  auto *A = lookup<MatDescr>(Da), *C = lookup<MatDescr>(Dc);
  if (!A || !C || M < 0 || N < 0 || Rb < 1 || Cb < 1 || !Rc || (M && !Ra) ||
      (Dir != CUSPARSE_DIRECTION_ROW && Dir != CUSPARSE_DIRECTION_COLUMN))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int Ba = A->Base, Bc = C->Base;
  const int64_t NnzA = entries(H, Ra, M, Ba), Mb = (int64_t(M) + Rb - 1) / Rb;
  if (NnzA < 0)
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  return withTotal(
      H, Total,
      [=](const int *Ra, const int *Ca, int *Rc) {
        auto B = blockColumns(M, Ra, Ca, Ba, Rb, Cb);
        Rc[0] = Bc;
        for (size_t I = 0; I < B.size(); ++I)
          Rc[I + 1] = Rc[I] + int(B[I].size());
        return Rc[B.size()] - Bc;
      },
      libs::in(M ? Ra : nullptr, size_t(M) + 1), libs::in(Ca, size_t(NnzA)), libs::out(Rc, size_t(Mb) + 1));
}

template <typename T>
cusparseStatus_t csr2gebsr(cusparseHandle_t Hd, cusparseDirection_t Dir, int M, int N, cusparseMatDescr_t Da,
                           const T *Va, const int *Ra, const int *Ca, cusparseMatDescr_t Dc, T *Vc, int *Rc, int *Cc,
                           int Rb, int Cb) {
  HANDLE_OR_FAIL(Hd)
  auto *A = lookup<MatDescr>(Da), *C = lookup<MatDescr>(Dc);
  if (!A || !C || M < 0 || N < 0 || Rb < 1 || Cb < 1 || !Rc || (M && !Ra) ||
      (Dir != CUSPARSE_DIRECTION_ROW && Dir != CUSPARSE_DIRECTION_COLUMN))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int Ba = A->Base, Bc = C->Base;
  const int64_t Mb = (int64_t(M) + Rb - 1) / Rb, NnzA = entries(H, Ra, M, Ba), Nnzb = entries(H, Rc, Mb, Bc);
  if (NnzA < 0 || Nnzb < 0)
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  const size_t Bs = size_t(Rb) * Cb;
  return staged(H, [=](const T *Va, const int *Ra, const int *Ca, int *Cc, T *Vc) {
    auto B = blockColumns(M, Ra, Ca, Ba, Rb, Cb);
    size_t K = 0;
    for (size_t Br = 0; Br < B.size(); ++Br) {
      const size_t First = K;
      for (int Col : B[Br]) {
        if (Cc)
          Cc[K] = Col + Bc;
        if (Vc)
          std::fill(Vc + K * Rb * Cb, Vc + (K + 1) * Rb * Cb, T(0));
        ++K;
      }
      if (!Vc)
        continue;
      for (int R = 0; R < Rb && int(Br) * Rb + R < M; ++R) {
        const int I = int(Br) * Rb + R;
        for (int P = Ra[I] - Ba; P < Ra[I + 1] - Ba; ++P) {
          const int Col = Ca[P] - Ba;
          size_t Blk = First + size_t(std::lower_bound(B[Br].begin(), B[Br].end(), Col / Cb) - B[Br].begin());
          Vc[Blk * Rb * Cb + inBlock(Dir, R, Col % Cb, Rb, Cb)] += Va[P];
        }
      }
    }
  }, libs::in(Va, size_t(NnzA)), libs::in(M ? Ra : nullptr, size_t(M) + 1), libs::in(Ca, size_t(NnzA)),
     libs::out(Cc, size_t(Nnzb)), libs::out(Vc, size_t(Nnzb) * Bs));
}

template <typename T>
cusparseStatus_t gebsr2csr(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nb, cusparseMatDescr_t Da,
                           const T *Va, const int *Ra, const int *Ca, int Rb, int Cb, cusparseMatDescr_t Dc, T *Vc,
                           int *Rc, int *Cc) {
  HANDLE_OR_FAIL(Hd)
  auto *A = lookup<MatDescr>(Da), *C = lookup<MatDescr>(Dc);
  if (!A || !C || Mb < 0 || Nb < 0 || Rb < 1 || Cb < 1 || !Rc || (Mb && !Ra) ||
      (Dir != CUSPARSE_DIRECTION_ROW && Dir != CUSPARSE_DIRECTION_COLUMN))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int Ba = A->Base, Bc = C->Base;
  const int64_t Nnzb = entries(H, Ra, Mb, Ba);
  if (Nnzb < 0)
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  const size_t Elems = size_t(Nnzb) * Rb * Cb;
  return staged(
      H,
      [=](const T *Va, const int *Ra, const int *Ca, T *Vc, int *Rc, int *Cc) {
        Expanded E = expandBsr(Dir, Mb, Ra, Ca, Ba, Rb, Cb);
        for (size_t I = 0; I < E.Row.size(); ++I)
          Rc[I] = E.Row[I] + Bc;
        for (size_t K = 0; K < E.Col.size(); ++K) {
          if (Cc)
            Cc[K] = E.Col[K] + Bc;
          if (Vc && Va)
            Vc[K] = Va[E.At[K]];
        }
      },
      libs::in(Va, Elems), libs::in(Mb ? Ra : nullptr, size_t(Mb) + 1), libs::in(Ca, size_t(Nnzb)),
      libs::out(Vc, Elems), libs::out(Rc, size_t(Mb) * Rb + 1), libs::out(Cc, Elems));
}

template <typename T>
cusparseStatus_t gebsr2gebsc(cusparseHandle_t Hd, int Mb, int Nb, int Nnzb, const T *Va, const int *Ra, const int *Ca,
                             int Rb, int Cb, T *Vc, int *RowInd, int *ColPtr, cusparseAction_t Act,
                             cusparseIndexBase_t Base) {
  HANDLE_OR_FAIL(Hd)
  if (Mb < 0 || Nb < 0 || Nnzb < 0 || Rb < 1 || Cb < 1 || !ColPtr || (Mb && !Ra) || (Nnzb && (!Ca || !RowInd)) ||
      (Base != CUSPARSE_INDEX_BASE_ZERO && Base != CUSPARSE_INDEX_BASE_ONE))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const size_t Bs = size_t(Rb) * Cb;
  return staged(H, [=](const T *Va, const int *Ra, const int *Ca, T *Vc, int *RowInd, int *ColPtr) {
    const int B = Base;
    std::vector<int> Count(size_t(Nb) + 1, 0);
    for (int K = 0; K < Nnzb; ++K)
      ++Count[size_t(Ca[K] - B + 1)];
    for (int J = 0; J < Nb; ++J)
      Count[size_t(J) + 1] += Count[size_t(J)];
    for (int J = 0; J <= Nb; ++J)
      ColPtr[J] = Count[size_t(J)] + B;
    for (int I = 0; I < Mb; ++I) // rows in order: each column's rows come out sorted
      for (int K = Ra[I] - B; K < Ra[I + 1] - B; ++K) {
        int Dst = Count[size_t(Ca[K] - B)]++;
        RowInd[Dst] = I + B;
        if (Act == CUSPARSE_ACTION_NUMERIC && Va && Vc)
          std::copy(Va + size_t(K) * Rb * Cb, Va + size_t(K + 1) * Rb * Cb, Vc + size_t(Dst) * Rb * Cb);
      }
  }, libs::in(Act == CUSPARSE_ACTION_NUMERIC ? Va : nullptr, size_t(Nnzb) * Bs), libs::in(Mb ? Ra : nullptr, size_t(Mb) + 1),
     libs::in(Ca, size_t(Nnzb)), libs::out(Act == CUSPARSE_ACTION_NUMERIC ? Vc : nullptr, size_t(Nnzb) * Bs),
     libs::out(RowInd, size_t(Nnzb)), libs::out(ColPtr, size_t(Nb) + 1));
}

/// General BSR to general BSR of other block sizes: the elements of A's blocks (zeros included) decide C's blocks.
cusparseStatus_t gebsr2gebsrNnz(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nb, int Nnzb,
                                cusparseMatDescr_t Da, const int *Ra, const int *Ca, int Rba, int Cba,
                                cusparseMatDescr_t Dc, int *Rc, int Rbc, int Cbc, int *Total) {
  HANDLE_OR_FAIL(Hd)
  auto *A = lookup<MatDescr>(Da), *C = lookup<MatDescr>(Dc);
  if (!A || !C || Mb < 0 || Nb < 0 || Nnzb < 0 || Rba < 1 || Cba < 1 || Rbc < 1 || Cbc < 1 || !Rc || (Mb && !Ra))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int Ba = A->Base, Bc = C->Base;
  const int64_t Mbc = (int64_t(Mb) * Rba + Rbc - 1) / Rbc;
  return withTotal(
      H, Total,
      [=](const int *Ra, const int *Ca, int *Rc) {
        Expanded E = expandBsr(Dir, Mb, Ra, Ca, Ba, Rba, Cba);
        auto B = blockColumns(Mb * Rba, E.Row.data(), E.Col.data(), 0, Rbc, Cbc);
        Rc[0] = Bc;
        for (size_t I = 0; I < B.size(); ++I)
          Rc[I + 1] = Rc[I] + int(B[I].size());
        return Rc[B.size()] - Bc;
      },
      libs::in(Mb ? Ra : nullptr, size_t(Mb) + 1), libs::in(Ca, size_t(Nnzb)), libs::out(Rc, size_t(Mbc) + 1));
}
template <typename T>
cusparseStatus_t gebsr2gebsr(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nb, int Nnzb,
                             cusparseMatDescr_t Da, const T *Va, const int *Ra, const int *Ca, int Rba, int Cba,
                             cusparseMatDescr_t Dc, T *Vc, int *Rc, int *Cc, int Rbc, int Cbc) {
  HANDLE_OR_FAIL(Hd)
  auto *A = lookup<MatDescr>(Da), *C = lookup<MatDescr>(Dc);
  if (!A || !C || Mb < 0 || Nb < 0 || Nnzb < 0 || Rba < 1 || Cba < 1 || Rbc < 1 || Cbc < 1 || !Rc || (Mb && !Ra))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int Ba = A->Base, Bc = C->Base;
  const int64_t Mbc = (int64_t(Mb) * Rba + Rbc - 1) / Rbc, Nnzc = entries(H, Rc, Mbc, Bc);
  if (Nnzc < 0)
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  const size_t Bsa = size_t(Rba) * Cba, Bsc = size_t(Rbc) * Cbc;
  return staged(H, [=](const T *Va, const int *Ra, const int *Ca, T *Vc, int *Cc) {
    Expanded E = expandBsr(Dir, Mb, Ra, Ca, Ba, Rba, Cba);
    const int M = Mb * Rba;
    auto B = blockColumns(M, E.Row.data(), E.Col.data(), 0, Rbc, Cbc);
    size_t K = 0;
    for (size_t Br = 0; Br < B.size(); ++Br) {
      const size_t First = K;
      for (int Col : B[Br]) {
        if (Cc)
          Cc[K] = Col + Bc;
        if (Vc)
          std::fill(Vc + K * Rbc * Cbc, Vc + (K + 1) * Rbc * Cbc, T(0));
        ++K;
      }
      if (!Vc || !Va)
        continue;
      for (int R = 0; R < Rbc && int(Br) * Rbc + R < M; ++R) {
        const int I = int(Br) * Rbc + R;
        for (int P = E.Row[size_t(I)]; P < E.Row[size_t(I) + 1]; ++P) {
          const int Col = E.Col[size_t(P)];
          size_t Blk = First + size_t(std::lower_bound(B[Br].begin(), B[Br].end(), Col / Cbc) - B[Br].begin());
          Vc[Blk * Rbc * Cbc + inBlock(Dir, R, Col % Cbc, Rbc, Cbc)] = Va[E.At[size_t(P)]];
        }
      }
    }
  }, libs::in(Va, size_t(Nnzb) * Bsa), libs::in(Mb ? Ra : nullptr, size_t(Mb) + 1), libs::in(Ca, size_t(Nnzb)),
     libs::out(Vc, size_t(Nnzc) * Bsc), libs::out(Cc, size_t(Nnzc)));
}

/// bsrsv2/bsrsm2/bsrilu02/bsric02's info: the zero pivot (a block row) of the last analysis or factorization,
/// and bsrilu02's/csrilu02's numeric boost.
struct BlockInfo : FactorInfo {};

/// A triangular solve op(A) X = alpha B on the elements of a BSR matrix (its fill mode and diagonal type; the
/// other triangle, diagonal blocks included, not read), for N right-hand sides (column j at B + j * Ldb, or row
/// j when \p Bt). Returns the first block row with a zero diagonal element (non-unit) or -1.
template <typename T>
int64_t bsrTriangular(cusparseDirection_t Dir, cusparseOperation_t Op, int Mb, const T *Val, const int *RowPtr,
                      const int *ColInd, int Base, int Bd, bool Lower, bool Unit, int N, T Alpha, const T *B, int Ldb,
                      T *X, int Ldx, bool Bt) {
  Expanded E = expandBsr(Dir, Mb, RowPtr, ColInd, Base, Bd, Bd);
  const int M = Mb * Bd;
  // op(A)'s triangle as rows of (column, value).
  const bool Trans = Op != CUSPARSE_OPERATION_NON_TRANSPOSE;
  std::vector<std::vector<std::pair<int, T>>> Rows(static_cast<size_t>(M));
  std::vector<T> Diag(size_t(M), T(0));
  for (int I = 0; I < M; ++I)
    for (int K = E.Row[size_t(I)]; K < E.Row[size_t(I) + 1]; ++K) {
      const int J = E.Col[size_t(K)];
      if (J >= M || (Lower ? J > I : J < I))
        continue;
      T V = conjIf(Val[E.At[size_t(K)]], Op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE);
      if (J == I)
        Diag[size_t(I)] += V;
      else if (Trans)
        Rows[size_t(J)].push_back({I, V});
      else
        Rows[size_t(I)].push_back({J, V});
    }
  int64_t Zero = -1;
  if (!Unit)
    for (int I = 0; I < M && Zero < 0; ++I)
      if (Diag[size_t(I)] == T(0))
        Zero = I / Bd;
  const bool Forward = Lower != Trans; // op(A) lower: forward substitution
  for (int J = 0; J < N; ++J) {
    auto Bv = [&](int I) -> T { return Bt ? B[size_t(I) * Ldb + J] : B[size_t(J) * Ldb + I]; };
    auto Xv = [&](int I) -> T & { return Bt ? X[size_t(I) * Ldx + J] : X[size_t(J) * Ldx + I]; };
    std::vector<T> Y(static_cast<size_t>(M));
    for (int S = 0; S < M; ++S) {
      const int I = Forward ? S : M - 1 - S;
      T Sum = Alpha * Bv(I);
      for (auto [C, V] : Rows[size_t(I)])
        Sum -= V * Y[size_t(C)];
      Y[size_t(I)] = Unit ? Sum : Sum / Diag[size_t(I)];
    }
    for (int I = 0; I < M; ++I)
      Xv(I) = Y[size_t(I)];
  }
  return Zero;
}

/// bsrsv2/bsrsm2 analysis: the structural or numerical zero pivot (a missing diagonal block, or a zero on the
/// diagonal of a diagonal block when the diagonal is not unit).
template <typename T>
int64_t bsrDiagonalZero(cusparseDirection_t Dir, int Mb, const T *Val, const int *RowPtr, const int *ColInd, int Base,
                        int Bd, bool Unit) {
  for (int Br = 0; Br < Mb; ++Br) {
    int Found = -1;
    for (int K = RowPtr[Br] - Base; K < RowPtr[Br + 1] - Base; ++K)
      if (ColInd[K] - Base == Br)
        Found = K;
    if (Found < 0)
      return Br;
    if (!Unit)
      for (int I = 0; I < Bd; ++I)
        if (Val[size_t(Found) * Bd * Bd + inBlock(Dir, I, I, Bd, Bd)] == T(0))
          return Br;
  }
  return -1;
}

} // namespace
} // namespace zluda::cusparse

#define BLOCK_INFO(Name, Low)                                                                                               \
  CUSPARSE_API cusparseStatus_t cusparseCreate##Name##Info(void **Out) {                                               \
    if (!Out)                                                                                                          \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    *Out = track(new BlockInfo);                                                                                       \
    return CUSPARSE_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparseDestroy##Name##Info(void *I) {                                                 \
    return drop(lookup<BlockInfo>(I)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;                       \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparseX##Low##_zeroPivot(cusparseHandle_t Hd, void *Info, int *Position) {         \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    auto *I = lookup<BlockInfo>(Info);                                                                                 \
    if (!I || !Position)                                                                                               \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    if (libs::wait(H->Stream))                                                                                         \
      return CUSPARSE_STATUS_EXECUTION_FAILED;                                                                         \
    *Position = int(I->ZeroPivot);                                                                                     \
    return I->ZeroPivot >= 0 ? CUSPARSE_STATUS_ZERO_PIVOT : CUSPARSE_STATUS_SUCCESS;                                   \
  }
BLOCK_INFO(Bsrsv2, bsrsv2)
BLOCK_INFO(Bsrsm2, bsrsm2)
BLOCK_INFO(Bsrilu02, bsrilu02)
BLOCK_INFO(Bsric02, bsric02)
#undef BLOCK_INFO

CUSPARSE_API cusparseStatus_t cusparseXcsr2bsrNnz(cusparseHandle_t Hd, cusparseDirection_t Dir, int M, int N,
                                                  cusparseMatDescr_t Da, const int *Ra, const int *Ca, int Bd,
                                                  cusparseMatDescr_t Dc, int *Rc, int *Total) {
  return csr2gebsrNnz(Hd, Dir, M, N, Da, Ra, Ca, Dc, Rc, Bd, Bd, Total);
}
CUSPARSE_API cusparseStatus_t cusparseXcsr2gebsrNnz(cusparseHandle_t Hd, cusparseDirection_t Dir, int M, int N,
                                                    cusparseMatDescr_t Da, const int *Ra, const int *Ca,
                                                    cusparseMatDescr_t Dc, int *Rc, int Rb, int Cb, int *Total,
                                                    void *) {
  return csr2gebsrNnz(Hd, Dir, M, N, Da, Ra, Ca, Dc, Rc, Rb, Cb, Total);
}
CUSPARSE_API cusparseStatus_t cusparseXgebsr2gebsrNnz(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nb,
                                                      int Nnzb, cusparseMatDescr_t Da, const int *Ra, const int *Ca,
                                                      int Rba, int Cba, cusparseMatDescr_t Dc, int *Rc, int Rbc,
                                                      int Cbc, int *Total, void *) {
  return gebsr2gebsrNnz(Hd, Dir, Mb, Nb, Nnzb, Da, Ra, Ca, Rba, Cba, Dc, Rc, Rbc, Cbc, Total);
}

/// The ILU(0) numeric boost (csrilu02 and bsrilu02): pivots of magnitude at most tol become boost_val.
template <typename Info>
static cusparseStatus_t numericBoost(cusparseHandle_t Hd, void *InfoP, int Enable, const double *Tol,
                                     const void *Boost, size_t Bytes) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  auto *I = lookup<Info>(InfoP);
  if (!I || (Enable && (!Tol || !Boost)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  I->Boost = Enable != 0;
  if (Enable && H->PointerMode == CUSPARSE_POINTER_MODE_DEVICE && !libs::cpuDevice()) { // GPU memory: read back
    if (libs::wait(H->Stream) || libs::toHost(&I->Tol, Tol, sizeof(double)) || libs::toHost(I->BoostVal, Boost, Bytes))
      return CUSPARSE_STATUS_EXECUTION_FAILED;
  } else if (Enable) { // host memory, or device memory that is the host's (the CPU device)
    I->Tol = *Tol;
    std::memcpy(I->BoostVal, Boost, Bytes);
  }
  return CUSPARSE_STATUS_SUCCESS;
}

#define BLOCK_FORMS(p, T, Cx)                                                                                          \
  CUSPARSE_API cusparseStatus_t cusparse##p##csr2bsr(cusparseHandle_t Hd, cusparseDirection_t Dir, int M, int N,       \
                                                     cusparseMatDescr_t Da, const T *Va, const int *Ra, const int *Ca, \
                                                     int Bd, cusparseMatDescr_t Dc, T *Vc, int *Rc, int *Cc) {         \
    return csr2gebsr<Cx>(Hd, Dir, M, N, Da, reinterpret_cast<const Cx *>(Va), Ra, Ca, Dc, reinterpret_cast<Cx *>(Vc),  \
                         Rc, Cc, Bd, Bd);                                                                              \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csr2gebsr_bufferSize(cusparseHandle_t Hd, cusparseDirection_t, int M,     \
                                                                  int N, cusparseMatDescr_t Da, const T *,             \
                                                                  const int *, const int *, int Rb, int Cb,            \
                                                                  int *Size) {                                         \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    if (!lookup<MatDescr>(Da) || M < 0 || N < 0 || Rb < 1 || Cb < 1 || !Size)                                          \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    *Size = 64;                                                                                                        \
    return CUSPARSE_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csr2gebsr(                                                                \
      cusparseHandle_t Hd, cusparseDirection_t Dir, int M, int N, cusparseMatDescr_t Da, const T *Va, const int *Ra,   \
      const int *Ca, cusparseMatDescr_t Dc, T *Vc, int *Rc, int *Cc, int Rb, int Cb, void *) {                         \
    return csr2gebsr<Cx>(Hd, Dir, M, N, Da, reinterpret_cast<const Cx *>(Va), Ra, Ca, Dc, reinterpret_cast<Cx *>(Vc),  \
                         Rc, Cc, Rb, Cb);                                                                              \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsr2csr(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nb,     \
                                                     cusparseMatDescr_t Da, const T *Va, const int *Ra, const int *Ca, \
                                                     int Bd, cusparseMatDescr_t Dc, T *Vc, int *Rc, int *Cc) {         \
    return gebsr2csr<Cx>(Hd, Dir, Mb, Nb, Da, reinterpret_cast<const Cx *>(Va), Ra, Ca, Bd, Bd, Dc,                    \
                         reinterpret_cast<Cx *>(Vc), Rc, Cc);                                                          \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gebsr2csr(                                                                \
      cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nb, cusparseMatDescr_t Da, const T *Va, const int *Ra, \
      const int *Ca, int Rb, int Cb, cusparseMatDescr_t Dc, T *Vc, int *Rc, int *Cc) {                                 \
    return gebsr2csr<Cx>(Hd, Dir, Mb, Nb, Da, reinterpret_cast<const Cx *>(Va), Ra, Ca, Rb, Cb, Dc,                    \
                         reinterpret_cast<Cx *>(Vc), Rc, Cc);                                                          \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gebsr2gebsc_bufferSize(cusparseHandle_t Hd, int Mb, int Nb, int Nnzb,     \
                                                                    const T *, const int *, const int *, int Rb,       \
                                                                    int Cb, int *Size) {                               \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    if (Mb < 0 || Nb < 0 || Nnzb < 0 || Rb < 1 || Cb < 1 || !Size)                                                     \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    *Size = 64;                                                                                                        \
    return CUSPARSE_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gebsr2gebsc(                                                              \
      cusparseHandle_t Hd, int Mb, int Nb, int Nnzb, const T *Va, const int *Ra, const int *Ca, int Rb, int Cb,        \
      T *Vc, int *RowInd, int *ColPtr, cusparseAction_t Act, cusparseIndexBase_t Base, void *) {                       \
    return gebsr2gebsc<Cx>(Hd, Mb, Nb, Nnzb, reinterpret_cast<const Cx *>(Va), Ra, Ca, Rb, Cb,                         \
                           reinterpret_cast<Cx *>(Vc), RowInd, ColPtr, Act, Base);                                     \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gebsr2gebsr_bufferSize(                                                   \
      cusparseHandle_t Hd, cusparseDirection_t, int Mb, int Nb, int Nnzb, cusparseMatDescr_t Da, const T *,            \
      const int *, const int *, int Rba, int Cba, int Rbc, int Cbc, int *Size) {                                       \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    if (!lookup<MatDescr>(Da) || Mb < 0 || Nb < 0 || Nnzb < 0 || Rba < 1 || Cba < 1 || Rbc < 1 || Cbc < 1 || !Size)    \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    *Size = 64;                                                                                                        \
    return CUSPARSE_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gebsr2gebsr(                                                              \
      cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nb, int Nnzb, cusparseMatDescr_t Da, const T *Va,      \
      const int *Ra, const int *Ca, int Rba, int Cba, cusparseMatDescr_t Dc, T *Vc, int *Rc, int *Cc, int Rbc,         \
      int Cbc, void *) {                                                                                               \
    return gebsr2gebsr<Cx>(Hd, Dir, Mb, Nb, Nnzb, Da, reinterpret_cast<const Cx *>(Va), Ra, Ca, Rba, Cba, Dc,          \
                           reinterpret_cast<Cx *>(Vc), Rc, Cc, Rbc, Cbc);                                              \
  }
BLOCK_FORMS(S, float, float)
BLOCK_FORMS(D, double, double)
BLOCK_FORMS(C, cuComplex, std::complex<float>)
BLOCK_FORMS(Z, cuDoubleComplex, std::complex<double>)
#undef BLOCK_FORMS

namespace zluda::cusparse {
namespace {

/// Checks bsrsv2/bsrsm2/bsrilu02/bsric02 share: a live handle, descriptor and info, sizes, direction.
cusparseStatus_t intOut(int *Out, int V) {
  if (!Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Out = V;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t blockCheck(Handle *H, cusparseDirection_t Dir, int Mb, int Nnzb, cusparseMatDescr_t Descr, int Bd,
                            const void *Info, MatDescr *&D, BlockInfo *&I) {
  (void)H;
  D = lookup<MatDescr>(Descr);
  I = lookup<BlockInfo>(Info);
  if (!D || !I || Mb < 0 || Nnzb < 0 || Bd < 1 ||
      (Dir != CUSPARSE_DIRECTION_ROW && Dir != CUSPARSE_DIRECTION_COLUMN))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return D->Type == CUSPARSE_MATRIX_TYPE_GENERAL || D->Type == CUSPARSE_MATRIX_TYPE_TRIANGULAR
             ? CUSPARSE_STATUS_SUCCESS
             : CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
}

template <typename T>
cusparseStatus_t bsrAnalysis(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nnzb, cusparseMatDescr_t Descr,
                             const T *Val, const int *Row, const int *Col, int Bd, void *Info) {
  HANDLE_OR_FAIL(Hd)
  MatDescr *D;
  BlockInfo *I;
  if (auto S = blockCheck(H, Dir, Mb, Nnzb, Descr, Bd, Info, D, I))
    return S;
  if (Mb && !Row)
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int Base = D->Base;
  const bool Unit = D->Diag == CUSPARSE_DIAG_TYPE_UNIT;
  return staged(
      H, [=](const T *Val, const int *Row, const int *Col) {
        I->ZeroPivot = bsrDiagonalZero<T>(Dir, Mb, Val, Row, Col, Base, Bd, Unit);
      },
      libs::in(Val, size_t(Nnzb) * Bd * Bd), libs::in(Mb ? Row : nullptr, size_t(Mb) + 1), libs::in(Col, size_t(Nnzb)));
}

template <typename T>
cusparseStatus_t bsrSolve(cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t Op,
                          cusparseOperation_t OpXY, int Mb, int N, int Nnzb, const void *Alpha,
                          cusparseMatDescr_t Descr, const T *Val, const int *Row, const int *Col, int Bd, void *Info,
                          const T *B, int Ldb, T *X, int Ldx, cudaDataType Dt) {
  HANDLE_OR_FAIL(Hd)
  MatDescr *D;
  BlockInfo *I;
  if (auto S = blockCheck(H, Dir, Mb, Nnzb, Descr, Bd, Info, D, I))
    return S;
  const bool Bt = OpXY != CUSPARSE_OPERATION_NON_TRANSPOSE;
  const int M = Mb * Bd;
  if (!Alpha || !validOp(Op) || !validOp(OpXY) || N < 0 || (M && N && (!B || !X || !Row)) ||
      Ldb < std::max(1, Bt ? N : M) || Ldx < std::max(1, Bt ? N : M))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (OpXY == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE)
    return CUSPARSE_STATUS_NOT_SUPPORTED; // as cuSPARSE's bsrsm2
  Scalar Al(*H, Alpha, Dt);
  if (!Al.fetch(H->Stream))
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  const int Base = D->Base;
  const bool Lower = D->Fill == CUSPARSE_FILL_MODE_LOWER, Unit = D->Diag == CUSPARSE_DIAG_TYPE_UNIT;
  return staged(
      H,
      [=](const T *Val, const int *Row, const int *Col, const T *B, T *X) {
        int64_t Z = bsrTriangular<T>(Dir, Op, Mb, Val, Row, Col, Base, Bd, Lower, Unit, N, Al.get<T>(), B, Ldb, X, Ldx, Bt);
        if (Z >= 0 && I->ZeroPivot < 0)
          I->ZeroPivot = Z;
      },
      libs::in(Val, size_t(Nnzb) * Bd * Bd), libs::in(Mb ? Row : nullptr, size_t(Mb) + 1), libs::in(Col, size_t(Nnzb)),
      libs::in(B, Bt ? span(Ldb, M, N) : span(Ldb, N, M)), libs::inout(X, Bt ? span(Ldx, M, N) : span(Ldx, N, M)));
}

/// bsrilu02 / bsric02: ILU(0) or IC(0) on the elements of the blocks (block ILU(0) with its diagonal blocks
/// factored), the first zero pivot's block row kept in the info.
template <typename T, bool Ilu>
cusparseStatus_t bsrFactor(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nnzb, cusparseMatDescr_t Descr,
                           T *Val, const int *Row, const int *Col, int Bd, void *Info) {
  HANDLE_OR_FAIL(Hd)
  MatDescr *D;
  BlockInfo *I;
  if (auto S = blockCheck(H, Dir, Mb, Nnzb, Descr, Bd, Info, D, I))
    return S;
  if (D->Type != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  if (Mb && !Row)
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int Base = D->Base;
  return staged(H, [=](T *Val, const int *Row, const int *Col) {
    Expanded E = expandBsr(Dir, Mb, Row, Col, Base, Bd, Bd);
    std::vector<T> V(E.At.size());
    for (size_t K = 0; K < V.size(); ++K)
      V[K] = Val[E.At[K]];
    const int64_t M = int64_t(Mb) * Bd;
    int64_t Z = Ilu ? ilu0<T>(M, E.Row.data(), E.Col.data(), V.data(), 0, I->Boost, I->Tol, I->template boostValue<T>())
                    : ic0<T>(M, E.Row.data(), E.Col.data(), V.data(), 0);
    for (size_t K = 0; K < V.size(); ++K)
      Val[E.At[K]] = V[K];
    I->ZeroPivot = Z < 0 ? -1 : Z / Bd;
  }, libs::inout(Val, size_t(Nnzb) * Bd * Bd), libs::in(Mb ? Row : nullptr, size_t(Mb) + 1), libs::in(Col, size_t(Nnzb)));
}

/// Masked BSRX product: y = alpha A x + beta y on the block rows the mask lists (blocks from RowPtr[i] to
/// EndPtr[i]); other rows of y untouched.
template <typename T>
cusparseStatus_t bsrxmv(cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t Op, int SizeOfMask, int Mb,
                        int Nb, int Nnzb, const void *Alpha, cusparseMatDescr_t Descr, const T *Val, const int *Mask,
                        const int *RowPtr, const int *EndPtr, const int *ColInd, int Bd, const T *X, const void *Beta,
                        T *Y, cudaDataType Dt) {
  HANDLE_OR_FAIL(Hd)
  auto *D = lookup<MatDescr>(Descr);
  if (!D || SizeOfMask < 0 || SizeOfMask > Mb || Mb < 0 || Nb < 0 || Nnzb < 0 || Bd < 1 || !Alpha || !Beta ||
      (Dir != CUSPARSE_DIRECTION_ROW && Dir != CUSPARSE_DIRECTION_COLUMN) ||
      (SizeOfMask && (!Mask || !RowPtr || !EndPtr || !X || !Y)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (Op != CUSPARSE_OPERATION_NON_TRANSPOSE)
    return CUSPARSE_STATUS_NOT_SUPPORTED; // as cuSPARSE's
  if (D->Type != CUSPARSE_MATRIX_TYPE_GENERAL)
    return CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
  Scalar Al(*H, Alpha, Dt), Be(*H, Beta, Dt);
  if (!Al.fetch(H->Stream) || !Be.fetch(H->Stream))
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  const int Base = D->Base;
  const bool Any = SizeOfMask > 0;
  return staged(H, [=](const T *Val, const int *Mask, const int *RowPtr, const int *EndPtr, const int *ColInd,
                       const T *X, T *Y) {
    const T A = Al.get<T>(), B = Be.get<T>();
    for (int Mi = 0; Mi < SizeOfMask; ++Mi) {
      const int Br = Mask[Mi] - Base;
      for (int R = 0; R < Bd; ++R) {
        T S = T(0);
        for (int K = RowPtr[Br] - Base; K < EndPtr[Br] - Base; ++K)
          for (int C = 0; C < Bd; ++C)
            S += Val[size_t(K) * Bd * Bd + inBlock(Dir, R, C, Bd, Bd)] * X[size_t(ColInd[K] - Base) * Bd + C];
        T &Out = Y[size_t(Br) * Bd + R];
        Out = A * S + (B == T(0) ? T(0) : B * Out);
      }
    }
  }, libs::in(Any ? Val : nullptr, size_t(Nnzb) * Bd * Bd), libs::in(Any ? Mask : nullptr, size_t(SizeOfMask)),
     libs::in(Any ? RowPtr : nullptr, size_t(Mb)), libs::in(Any ? EndPtr : nullptr, size_t(Mb)),
     libs::in(Any ? ColInd : nullptr, size_t(Nnzb)), libs::in(Any ? X : nullptr, size_t(Nb) * Bd),
     libs::inout(Any ? Y : nullptr, size_t(Mb) * Bd));
}

} // namespace
} // namespace zluda::cusparse

#define BSR_SOLVE_FORMS(p, T, Cx, Dt)                                                                                  \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrsv2_bufferSize(cusparseHandle_t Hd, cusparseDirection_t Dir,           \
                                                               cusparseOperation_t, int Mb, int Nnzb,                  \
                                                               cusparseMatDescr_t Descr, T *, const int *,             \
                                                               const int *, int Bd, void *Info, int *Size) {    \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    MatDescr *D;                                                                                                       \
    BlockInfo *I;                                                                                                      \
    if (auto S = blockCheck(H, Dir, Mb, Nnzb, Descr, Bd, Info, D, I))                                                  \
      return S;                                                                                                        \
    return intOut(Size, 64);                                                                                           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrsv2_analysis(                                                          \
      cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t, int Mb, int Nnzb, cusparseMatDescr_t Descr,   \
      const T *Val, const int *Row, const int *Col, int Bd, void *Info, cusparseSolvePolicy_t, void *) {        \
    return bsrAnalysis<Cx>(Hd, Dir, Mb, Nnzb, Descr, reinterpret_cast<const Cx *>(Val), Row, Col, Bd, Info);           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrsv2_solve(                                                             \
      cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t Op, int Mb, int Nnzb, const T *Alpha,          \
      cusparseMatDescr_t Descr, const T *Val, const int *Row, const int *Col, int Bd, void *Info, const T *F,   \
      T *X, cusparseSolvePolicy_t, void *) {                                                                           \
    return bsrSolve<Cx>(Hd, Dir, Op, CUSPARSE_OPERATION_NON_TRANSPOSE, Mb, 1, Nnzb, Alpha, Descr,                      \
                        reinterpret_cast<const Cx *>(Val), Row, Col, Bd, Info, reinterpret_cast<const Cx *>(F),        \
                        std::max(1, Mb * Bd), reinterpret_cast<Cx *>(X), std::max(1, Mb * Bd), Dt);                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrsm2_bufferSize(                                                        \
      cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t, cusparseOperation_t, int Mb, int N, int Nnzb, \
      cusparseMatDescr_t Descr, T *, const int *, const int *, int Bd, void *Info, int *Size) {                 \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    MatDescr *D;                                                                                                       \
    BlockInfo *I;                                                                                                      \
    if (auto S = blockCheck(H, Dir, Mb, Nnzb, Descr, Bd, Info, D, I))                                                  \
      return S;                                                                                                        \
    return N < 0 ? CUSPARSE_STATUS_INVALID_VALUE : intOut(Size, 64);                                                   \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrsm2_analysis(                                                          \
      cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t, cusparseOperation_t, int Mb, int, int Nnzb,   \
      cusparseMatDescr_t Descr, const T *Val, const int *Row, const int *Col, int Bd, void *Info,               \
      cusparseSolvePolicy_t, void *) {                                                                                 \
    return bsrAnalysis<Cx>(Hd, Dir, Mb, Nnzb, Descr, reinterpret_cast<const Cx *>(Val), Row, Col, Bd, Info);           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrsm2_solve(                                                             \
      cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t Op, cusparseOperation_t OpXY, int Mb, int N,   \
      int Nnzb, const T *Alpha, cusparseMatDescr_t Descr, const T *Val, const int *Row, const int *Col, int Bd,        \
      void *Info, const T *B, int Ldb, T *X, int Ldx, cusparseSolvePolicy_t, void *) {                          \
    return bsrSolve<Cx>(Hd, Dir, Op, OpXY, Mb, N, Nnzb, Alpha, Descr, reinterpret_cast<const Cx *>(Val), Row, Col, Bd, \
                        Info, reinterpret_cast<const Cx *>(B), Ldb, reinterpret_cast<Cx *>(X), Ldx, Dt);               \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrilu02_bufferSize(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, \
                                                                 int Nnzb, cusparseMatDescr_t Descr, T *,              \
                                                                 const int *, const int *, int Bd,                     \
                                                                 void *Info, int *Size) {                     \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    MatDescr *D;                                                                                                       \
    BlockInfo *I;                                                                                                      \
    if (auto S = blockCheck(H, Dir, Mb, Nnzb, Descr, Bd, Info, D, I))                                                  \
      return S;                                                                                                        \
    return intOut(Size, 64);                                                                                           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrilu02_analysis(                                                        \
      cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nnzb, cusparseMatDescr_t Descr, T *Val,                \
      const int *Row, const int *Col, int Bd, void *Info, cusparseSolvePolicy_t, void *) {                    \
    return bsrAnalysis<Cx>(Hd, Dir, Mb, Nnzb, Descr, reinterpret_cast<const Cx *>(Val), Row, Col, Bd, Info);           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrilu02(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nnzb,  \
                                                      cusparseMatDescr_t Descr, T *Val, const int *Row,                \
                                                      const int *Col, int Bd, void *Info,                     \
                                                      cusparseSolvePolicy_t, void *) {                                 \
    return bsrFactor<Cx, true>(Hd, Dir, Mb, Nnzb, Descr, reinterpret_cast<Cx *>(Val), Row, Col, Bd, Info);             \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrilu02_numericBoost(cusparseHandle_t Hd, void *Info,           \
                                                                   int Enable, double *Tol, T *Boost) {                \
    return numericBoost<BlockInfo>(Hd, Info, Enable, Tol, Boost, sizeof(T));                                           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csrilu02_numericBoost(cusparseHandle_t Hd, void *Info,           \
                                                                   int Enable, double *Tol, T *Boost) {                \
    return numericBoost<FactorInfo>(Hd, Info, Enable, Tol, Boost, sizeof(T));                                          \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsric02_bufferSize(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb,  \
                                                                int Nnzb, cusparseMatDescr_t Descr, T *, const int *,  \
                                                                const int *, int Bd, void *Info, int *Size) {  \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    MatDescr *D;                                                                                                       \
    BlockInfo *I;                                                                                                      \
    if (auto S = blockCheck(H, Dir, Mb, Nnzb, Descr, Bd, Info, D, I))                                                  \
      return S;                                                                                                        \
    return intOut(Size, 64);                                                                                           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsric02_analysis(                                                         \
      cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nnzb, cusparseMatDescr_t Descr, const T *Val,          \
      const int *Row, const int *Col, int Bd, void *Info, cusparseSolvePolicy_t, void *) {                     \
    return bsrAnalysis<Cx>(Hd, Dir, Mb, Nnzb, Descr, reinterpret_cast<const Cx *>(Val), Row, Col, Bd, Info);           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsric02(cusparseHandle_t Hd, cusparseDirection_t Dir, int Mb, int Nnzb,   \
                                                     cusparseMatDescr_t Descr, T *Val, const int *Row, const int *Col, \
                                                     int Bd, void *Info, cusparseSolvePolicy_t, void *) {      \
    return bsrFactor<Cx, false>(Hd, Dir, Mb, Nnzb, Descr, reinterpret_cast<Cx *>(Val), Row, Col, Bd, Info);            \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##bsrxmv(                                                                   \
      cusparseHandle_t Hd, cusparseDirection_t Dir, cusparseOperation_t Op, int SizeOfMask, int Mb, int Nb, int Nnzb,  \
      const T *Alpha, cusparseMatDescr_t Descr, const T *Val, const int *Mask, const int *RowPtr, const int *EndPtr,   \
      const int *ColInd, int Bd, const T *X, const T *Beta, T *Y) {                                                    \
    return bsrxmv<Cx>(Hd, Dir, Op, SizeOfMask, Mb, Nb, Nnzb, Alpha, Descr, reinterpret_cast<const Cx *>(Val), Mask,    \
                      RowPtr, EndPtr, ColInd, Bd, reinterpret_cast<const Cx *>(X), Beta, reinterpret_cast<Cx *>(Y),    \
                      Dt);                                                                                             \
  }
BSR_SOLVE_FORMS(S, float, float, CUDA_R_32F)
BSR_SOLVE_FORMS(D, double, double, CUDA_R_64F)
BSR_SOLVE_FORMS(C, cuComplex, std::complex<float>, CUDA_C_32F)
BSR_SOLVE_FORMS(Z, cuDoubleComplex, std::complex<double>, CUDA_C_64F)
#undef BSR_SOLVE_FORMS

namespace zluda::cusparse {
namespace {

/// An f16 element (prune's H forms): compared by magnitude, copied as bits.
struct Half16 {
  uint16_t Bits;
};
inline double magnitude(Half16 V) { return std::fabs(double(libs::halfToFloat(V.Bits))); }
template <typename T> double magnitude(T V) { return double(std::abs(V)); }

/// \p V's bytes as a \p To (a C struct of the API as our element type).
template <typename To, typename From> To bitsAs(const From &V) {
  static_assert(sizeof(To) == sizeof(From));
  To R;
  std::memcpy(static_cast<void *>(&R), &V, sizeof R);
  return R;
}

struct ColorInfo {
  int Unused = 0;
};
struct PruneInfo {
  int Unused = 0;
};
/// csru2csr's permutation of each row's entries (sorted position -> original position).
struct Csru2csrInfo {
  std::vector<int> Perm;
};

/// Threshold of prune*ByPercentage (cuSPARSE's rule): the magnitudes sorted ascending, the one at
/// max(0, min(ceil(count * percentage / 100) - 1, count - 1)).
double percentile(std::vector<double> Mag, float Percentage) {
  if (Mag.empty())
    return 0;
  std::sort(Mag.begin(), Mag.end());
  int64_t Pos = int64_t(std::ceil(double(Mag.size()) * (double(Percentage) / 100.0))) - 1;
  Pos = std::max<int64_t>(0, std::min<int64_t>(Pos, int64_t(Mag.size()) - 1));
  return Mag[size_t(Pos)];
}

/// Row counts of the entries of a dense column-major matrix above a magnitude; C's row pointers.
template <typename T>
int pruneDenseRows(int M, int N, const T *A, int Lda, double Thr, int *Rc, int Base) {
  Rc[0] = Base;
  for (int I = 0; I < M; ++I) {
    int Count = 0;
    for (int J = 0; J < N; ++J)
      Count += magnitude(A[size_t(J) * Lda + I]) > Thr;
    Rc[I + 1] = Rc[I] + Count;
  }
  return Rc[M] - Base;
}
template <typename T>
void pruneDenseFill(int M, int N, const T *A, int Lda, double Thr, T *Vc, const int *Rc, int *Cc, int Base) {
  for (int I = 0; I < M; ++I) {
    int K = Rc[I] - Base;
    for (int J = 0; J < N; ++J) {
      const T V = A[size_t(J) * Lda + I];
      if (magnitude(V) > Thr) {
        Cc[K] = J + Base;
        if (Vc)
          Vc[K] = V;
        ++K;
      }
    }
  }
}
template <typename T>
int pruneCsrRows(int M, const T *Va, const int *Ra, int Ba, double Thr, int *Rc, int Bc) {
  Rc[0] = Bc;
  for (int I = 0; I < M; ++I) {
    int Count = 0;
    for (int K = Ra[I] - Ba; K < Ra[I + 1] - Ba; ++K)
      Count += magnitude(Va[K]) > Thr;
    Rc[I + 1] = Rc[I] + Count;
  }
  return Rc[M] - Bc;
}
template <typename T>
void pruneCsrFill(int M, const T *Va, const int *Ra, const int *Ca, int Ba, double Thr, T *Vc, const int *Rc, int *Cc,
                  int Bc) {
  for (int I = 0; I < M; ++I) {
    int Out = Rc[I] - Bc;
    for (int K = Ra[I] - Ba; K < Ra[I + 1] - Ba; ++K)
      if (magnitude(Va[K]) > Thr) {
        Cc[Out] = Ca[K] - Ba + Bc;
        if (Vc)
          Vc[Out] = Va[K];
        ++Out;
      }
  }
}
template <typename T> std::vector<double> denseMagnitudes(int M, int N, const T *A, int Lda) {
  std::vector<double> Mag;
  Mag.reserve(size_t(M) * N);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I)
      Mag.push_back(magnitude(A[size_t(J) * Lda + I]));
  return Mag;
}
template <typename T> std::vector<double> csrMagnitudes(int Nnz, const T *Va) {
  std::vector<double> Mag(static_cast<size_t>(Nnz));
  for (int K = 0; K < Nnz; ++K)
    Mag[size_t(K)] = magnitude(Va[K]);
  return Mag;
}

/// The prune family's checks; \p Thr is read when the work runs (device pointer mode) or now.
template <typename T> struct Threshold {
  Scalar P; ///< the threshold (read when the work runs in device pointer mode)
  bool Pct;
  float Percentage;
  double get(const std::function<std::vector<double>()> &Mags) const {
    return Pct ? percentile(Mags(), Percentage) : magnitude(P.get<T>());
  }
};

/// Pentadiagonal systems (second sub, sub, main, super, second super diagonals), one right-hand side:
/// Gaussian elimination with partial pivoting on the band (rows hold columns i-2 .. i+4). False on a zero pivot.
template <typename T> bool pentadiagonal(int M, const T *Ds, const T *Dl, const T *D, const T *Du, const T *Dw, T *X) {
  std::vector<T> Band(size_t(M) * 7, T(0));
  auto At = [&](int I, int J) -> T & { return Band[size_t(I) * 7 + size_t(J - I + 2)]; };
  for (int I = 0; I < M; ++I) {
    if (I >= 2)
      At(I, I - 2) = Ds[I];
    if (I >= 1)
      At(I, I - 1) = Dl[I];
    At(I, I) = D[I];
    if (I + 1 < M)
      At(I, I + 1) = Du[I];
    if (I + 2 < M)
      At(I, I + 2) = Dw[I];
  }
  for (int K = 0; K < M; ++K) {
    const int Last = std::min(K + 2, M - 1), Right = std::min(K + 4, M - 1);
    int P = K;
    for (int R = K + 1; R <= Last; ++R)
      if (std::abs(At(R, K)) > std::abs(At(P, K)))
        P = R;
    if (At(P, K) == T(0))
      return false;
    if (P != K) {
      for (int J = K; J <= Right; ++J)
        std::swap(At(K, J), At(P, J));
      std::swap(X[K], X[P]);
    }
    for (int R = K + 1; R <= Last; ++R) {
      const T F = At(R, K) / At(K, K);
      At(R, K) = T(0);
      for (int J = K + 1; J <= Right; ++J)
        At(R, J) -= F * At(K, J);
      X[R] -= F * X[K];
    }
  }
  for (int I = M - 1; I >= 0; --I) {
    T S = X[I];
    for (int J = I + 1; J <= std::min(I + 4, M - 1); ++J)
      S -= At(I, J) * X[J];
    X[I] = S / At(I, I);
  }
  return true;
}

} // namespace
} // namespace zluda::cusparse

#define INFO_OBJECT(Name)                                                                                              \
  CUSPARSE_API cusparseStatus_t cusparseCreate##Name(void **Out) {                                                     \
    if (!Out)                                                                                                          \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    *Out = track(new Name);                                                                                            \
    return CUSPARSE_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparseDestroy##Name(void *I) {                                                       \
    return drop(lookup<Name>(I)) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;                            \
  }
INFO_OBJECT(ColorInfo)
INFO_OBJECT(PruneInfo)
INFO_OBJECT(Csru2csrInfo)
#undef INFO_OBJECT

CUSPARSE_API cusparseStatus_t cusparseXcscsort_bufferSizeExt(cusparseHandle_t Hd, int M, int N, int Nnz, const int *,
                                                             const int *, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  return M < 0 || N < 0 || Nnz < 0 ? CUSPARSE_STATUS_INVALID_VALUE : setOut(Size, 64);
}
CUSPARSE_API cusparseStatus_t cusparseXcscsort(cusparseHandle_t Hd, int M, int N, int Nnz, cusparseMatDescr_t Descr,
                                               const int *ColPtr, int *RowInd, int *P, void *Buf) {
  HANDLE_OR_FAIL(Hd)
  auto *D = lookup<MatDescr>(Descr);
  if (!D || M < 0 || N < 0 || Nnz < 0 || (N && !ColPtr) || (Nnz && (!RowInd || !Buf)))
    return CUSPARSE_STATUS_INVALID_VALUE;
  const int Base = D->Base;
  return staged(
      H,
      [=](const int *ColPtr, int *RowInd, int *P) {
        for (int J = 0; J < N; ++J)
          sortPairs(RowInd, nullptr, P, ColPtr[J] - Base, ColPtr[J + 1] - Base);
      },
      libs::in(N ? ColPtr : nullptr, size_t(N) + 1), libs::inout(Nnz ? RowInd : nullptr, size_t(Nnz)),
      libs::inout(Nnz ? P : nullptr, size_t(Nnz)));
}

#define MORE_FORMS(p, T, Cx, Rt, Dt)                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csrcolor(cusparseHandle_t Hd, int M, int Nnz, cusparseMatDescr_t Descr,   \
                                                      const T *, const int *Row, const int *Col, const Rt *Fraction,   \
                                                      int *NColors, int *Coloring, int *Reordering, void *Info) {      \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    auto *D = lookup<MatDescr>(Descr);                                                                                 \
    if (!D || !lookup<ColorInfo>(Info) || M < 0 || Nnz < 0 || !Fraction || !NColors || (M && (!Row || !Coloring)) ||   \
        *Fraction < 0 || *Fraction > 1)                                                                                \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    const int Base = D->Base;                                                                                          \
    /* Greedy distance-1 coloring of A + A^T in row order (every row colored, at least the fraction asked). */        \
    return withTotal(H, NColors, [=](const int *Row, const int *Col, int *Coloring, int *Reordering) {                \
      std::vector<std::vector<int>> G(static_cast<size_t>(M));                                                         \
      for (int I = 0; I < M; ++I)                                                                                      \
        for (int K = Row[I] - Base; K < Row[I + 1] - Base; ++K) {                                                      \
          int J = Col[K] - Base;                                                                                       \
          if (J != I && J >= 0 && J < M) {                                                                             \
            G[size_t(I)].push_back(J);                                                                                 \
            G[size_t(J)].push_back(I);                                                                                 \
          }                                                                                                            \
        }                                                                                                              \
      std::vector<int> Color(static_cast<size_t>(M), -1), Seen;                                                        \
      int Colors = 0;                                                                                                  \
      for (int I = 0; I < M; ++I) {                                                                                    \
        Seen.assign(size_t(Colors) + 1, 0);                                                                            \
        for (int J : G[size_t(I)])                                                                                     \
          if (Color[size_t(J)] >= 0)                                                                                   \
            Seen[size_t(Color[size_t(J)])] = 1;                                                                        \
        int C = 0;                                                                                                     \
        while (Seen[size_t(C)])                                                                                        \
          ++C;                                                                                                         \
        Color[size_t(I)] = C;                                                                                          \
        Colors = std::max(Colors, C + 1);                                                                              \
      }                                                                                                                \
      std::copy(Color.begin(), Color.end(), Coloring);                                                                 \
      if (Reordering) {                                                                                                \
        std::vector<int> Order(static_cast<size_t>(M));                                                                \
        std::iota(Order.begin(), Order.end(), 0);                                                                      \
        std::stable_sort(Order.begin(), Order.end(),                                                                   \
                         [&](int A, int B) { return Color[size_t(A)] < Color[size_t(B)]; });                           \
        std::copy(Order.begin(), Order.end(), Reordering);                                                             \
      }                                                                                                                \
      return Colors;                                                                                                   \
    }, libs::in(M ? Row : nullptr, size_t(M) + 1), libs::in(Col, size_t(Nnz)), libs::out(Coloring, size_t(M)),         \
       libs::out(Reordering, size_t(M)));                                                                              \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##nnz(cusparseHandle_t Hd, cusparseDirection_t Dir, int M, int N,           \
                                                 cusparseMatDescr_t Descr, const T *A, int Lda, int *PerRowCol,        \
                                                 int *Total) {                                                         \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    if (!lookup<MatDescr>(Descr) || M < 0 || N < 0 || Lda < std::max(1, M) || (M && N && (!A || !PerRowCol)) ||        \
        (Dir != CUSPARSE_DIRECTION_ROW && Dir != CUSPARSE_DIRECTION_COLUMN))                                           \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    const int Outer = Dir == CUSPARSE_DIRECTION_ROW ? M : N;                                                           \
    return withTotal(H, Total, [=](const Cx *Av, int *PerRowCol) {                                                     \
      int Sum = 0;                                                                                                     \
      for (int O = 0; O < Outer; ++O) {                                                                                \
        int C = 0;                                                                                                     \
        for (int I = 0; I < (Dir == CUSPARSE_DIRECTION_ROW ? N : M); ++I)                                              \
          C += Dir == CUSPARSE_DIRECTION_ROW ? Av[size_t(I) * Lda + O] != Cx(0) : Av[size_t(O) * Lda + I] != Cx(0);    \
        PerRowCol[O] = C;                                                                                              \
        Sum += C;                                                                                                      \
      }                                                                                                                \
      return Sum;                                                                                                      \
    }, libs::in(M && N ? reinterpret_cast<const Cx *>(A) : nullptr, span(Lda, N, M)),                                  \
       libs::out(M && N ? PerRowCol : nullptr, size_t(Outer)));                                                        \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##nnz_compress(cusparseHandle_t Hd, int M, cusparseMatDescr_t Descr,        \
                                                          const T *Val, const int *Row, int *PerRow, int *NnzC,        \
                                                          T Tol) {                                                     \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    auto *D = lookup<MatDescr>(Descr);                                                                                 \
    const double Thr = std::abs(bitsAs<Cx>(Tol));                                                    \
    if (!D || M < 0 || (M && (!Row || !PerRow)) || std::real(bitsAs<Cx>(Tol)) < 0)                   \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    const int Base = D->Base;                                                                                          \
    const int64_t NnzA = entries(H, Row, M, Base);                                                                     \
    if (NnzA < 0)                                                                                                      \
      return CUSPARSE_STATUS_EXECUTION_FAILED;                                                                         \
    return withTotal(H, NnzC, [=](const Cx *V, const int *Row, int *PerRow) {                                          \
      int Sum = 0;                                                                                                     \
      for (int I = 0; I < M; ++I) {                                                                                    \
        int C = 0;                                                                                                     \
        for (int K = Row[I] - Base; K < Row[I + 1] - Base; ++K)                                                        \
          C += std::abs(V[K]) > Thr;                                                                                   \
        PerRow[I] = C;                                                                                                 \
        Sum += C;                                                                                                      \
      }                                                                                                                \
      return Sum;                                                                                                      \
    }, libs::in(reinterpret_cast<const Cx *>(Val), size_t(NnzA)), libs::in(M ? Row : nullptr, size_t(M) + 1),         \
       libs::out(M ? PerRow : nullptr, size_t(M)));                                                                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csr2csr_compress(                                                         \
      cusparseHandle_t Hd, int M, int N, cusparseMatDescr_t Descr, const T *Va, const int *Ca, const int *Ra,          \
      int NnzA, const int *PerRow, T *Vc, int *Cc, int *Rc, T Tol) {                                                   \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    auto *D = lookup<MatDescr>(Descr);                                                                                 \
    const double Thr = std::abs(bitsAs<Cx>(Tol));                                                    \
    if (!D || M < 0 || N < 0 || NnzA < 0 || !Rc || (M && (!Ra || !PerRow)) ||                                          \
        std::real(bitsAs<Cx>(Tol)) < 0)                                                              \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    const int Base = D->Base;                                                                                          \
    const int64_t NnzC = kept(H, PerRow, M);                                                                           \
    if (NnzC < 0)                                                                                                      \
      return CUSPARSE_STATUS_EXECUTION_FAILED;                                                                         \
    return staged(H, [=](const Cx *A, const int *Ca, const int *Ra, const int *PerRow, Cx *C, int *Cc, int *Rc) {      \
      Rc[0] = Base;                                                                                                    \
      for (int I = 0; I < M; ++I)                                                                                      \
        Rc[I + 1] = Rc[I] + PerRow[I];                                                                                 \
      for (int I = 0; I < M; ++I) {                                                                                    \
        int Out = Rc[I] - Base;                                                                                        \
        for (int K = Ra[I] - Base; K < Ra[I + 1] - Base; ++K)                                                          \
          if (std::abs(A[K]) > Thr) {                                                                                  \
            Cc[Out] = Ca[K];                                                                                           \
            C[Out++] = A[K];                                                                                           \
          }                                                                                                            \
      }                                                                                                                \
    }, libs::in(reinterpret_cast<const Cx *>(Va), size_t(NnzA)), libs::in(Ca, size_t(NnzA)),                          \
       libs::in(M ? Ra : nullptr, size_t(M) + 1), libs::in(M ? PerRow : nullptr, size_t(M)),                          \
       libs::out(reinterpret_cast<Cx *>(Vc), size_t(NnzC)), libs::out(Cc, size_t(NnzC)), libs::out(Rc, size_t(M) + 1)); \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gemvi_bufferSize(cusparseHandle_t Hd, cusparseOperation_t Op, int M,      \
                                                              int N, int Nnz, int *Size) {                             \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    if (!validOp(Op) || M < 0 || N < 0 || Nnz < 0)                                                                     \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    return intOut(Size, 64);                                                                                           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gemvi(cusparseHandle_t Hd, cusparseOperation_t Op, int M, int N,          \
                                                   const T *Alpha, const T *A, int Lda, int Nnz, const T *XVal,        \
                                                   const int *XInd, const T *Beta, T *Y, cusparseIndexBase_t Base,     \
                                                   void *) {                                                           \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    if (!validOp(Op) || M < 0 || N < 0 || Nnz < 0 || Lda < std::max(1, M) || !Alpha || !Beta ||                        \
        (Nnz && (!XVal || !XInd)) || (M && N && (!A || !Y)) ||                                                         \
        (Base != CUSPARSE_INDEX_BASE_ZERO && Base != CUSPARSE_INDEX_BASE_ONE))                                         \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    Scalar Al(*H, Alpha, Dt), Be(*H, Beta, Dt);                                                                        \
    if (!Al.fetch(H->Stream) || !Be.fetch(H->Stream))                                                                  \
      return CUSPARSE_STATUS_EXECUTION_FAILED;                                                                         \
    const bool Tr = Op != CUSPARSE_OPERATION_NON_TRANSPOSE, Cj = Op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE;         \
    const int Rows = Tr ? N : M;                                                                                       \
    return staged(H, [=](const Cx *Av, const Cx *Xv, const int *XInd, Cx *Yv) {                                        \
      const Cx Ab = Al.get<Cx>(), Bb = Be.get<Cx>();                                                                   \
      for (int I = 0; I < Rows; ++I) {                                                                                 \
        Cx S = Cx(0);                                                                                                  \
        for (int K = 0; K < Nnz; ++K) {                                                                                \
          const int J = XInd[K] - Base;                                                                                \
          S += (Tr ? conjIf(Av[size_t(I) * Lda + J], Cj) : Av[size_t(J) * Lda + I]) * Xv[K];                           \
        }                                                                                                              \
        Yv[I] = Ab * S + (Bb == Cx(0) ? Cx(0) : Bb * Yv[I]);                                                           \
      }                                                                                                                \
    }, libs::in(M && N ? reinterpret_cast<const Cx *>(A) : nullptr, span(Lda, N, M)),                                  \
       libs::in(reinterpret_cast<const Cx *>(XVal), size_t(Nnz)), libs::in(XInd, size_t(Nnz)),                        \
       libs::inout(M && N ? reinterpret_cast<Cx *>(Y) : nullptr, size_t(Rows)));                                       \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csru2csr_bufferSizeExt(cusparseHandle_t Hd, int M, int N, int Nnz, T *,   \
                                                                    const int *, int *, void *Info, size_t *Size) {    \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    if (M < 0 || N < 0 || Nnz < 0 || !lookup<Csru2csrInfo>(Info))                                                      \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    return setOut(Size, 64);                                                                                           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csru2csr(cusparseHandle_t Hd, int M, int N, int Nnz,                      \
                                                      cusparseMatDescr_t Descr, T *Val, const int *Row, int *Col,     \
                                                      void *InfoP, void *) {                                           \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    auto *D = lookup<MatDescr>(Descr);                                                                                 \
    auto *I = lookup<Csru2csrInfo>(InfoP);                                                                             \
    if (!D || !I || M < 0 || N < 0 || Nnz < 0 || (M && !Row) || (Nnz && (!Val || !Col)))                               \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    const int Base = D->Base;                                                                                          \
    return staged(H, [=](Cx *V, const int *Row, int *Col) {                                                            \
      I->Perm.resize(static_cast<size_t>(Nnz));                                                                        \
      std::vector<Cx> Tmp;                                                                                             \
      for (int R = 0; R < M; ++R) {                                                                                    \
        const int B = Row[R] - Base, E = Row[R + 1] - Base;                                                            \
        std::iota(I->Perm.begin() + B, I->Perm.begin() + E, B);                                                        \
        std::stable_sort(I->Perm.begin() + B, I->Perm.begin() + E,                                                     \
                         [&](int X, int Y) { return Col[X] < Col[Y]; });                                               \
        std::vector<int> C(Col + B, Col + E);                                                                          \
        Tmp.assign(V + B, V + E);                                                                                      \
        for (int K = B; K < E; ++K) {                                                                                  \
          Col[K] = C[size_t(I->Perm[size_t(K)] - B)];                                                                  \
          V[K] = Tmp[size_t(I->Perm[size_t(K)] - B)];                                                                  \
        }                                                                                                              \
      }                                                                                                                \
    }, libs::inout(reinterpret_cast<Cx *>(Val), size_t(Nnz)), libs::in(M ? Row : nullptr, size_t(M) + 1),             \
       libs::inout(Col, size_t(Nnz)));                                                                                 \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##csr2csru(cusparseHandle_t Hd, int M, int N, int Nnz,                      \
                                                      cusparseMatDescr_t Descr, T *Val, const int *Row, int *Col,     \
                                                      void *InfoP, void *) {                                           \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    auto *D = lookup<MatDescr>(Descr);                                                                                 \
    auto *I = lookup<Csru2csrInfo>(InfoP);                                                                             \
    if (!D || !I || M < 0 || N < 0 || Nnz < 0 || (M && !Row) || (Nnz && (!Val || !Col)))                               \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    const int Base = D->Base;                                                                                          \
    return staged(H, [=](Cx *V, const int *Row, int *Col) {                                                            \
      if (I->Perm.size() != size_t(Nnz))                                                                               \
        return; /* no csru2csr of this matrix before: nothing to undo */                                               \
      std::vector<Cx> Tmp(V, V + Nnz);                                                                                 \
      std::vector<int> C(Col, Col + Nnz);                                                                              \
      for (int R = 0; R < M; ++R)                                                                                      \
        for (int K = Row[R] - Base; K < Row[R + 1] - Base; ++K) {                                                      \
          Col[I->Perm[size_t(K)]] = C[size_t(K)];                                                                      \
          V[I->Perm[size_t(K)]] = Tmp[size_t(K)];                                                                      \
        }                                                                                                              \
    }, libs::inout(reinterpret_cast<Cx *>(Val), size_t(Nnz)), libs::in(M ? Row : nullptr, size_t(M) + 1),             \
       libs::inout(Col, size_t(Nnz)));                                                                                 \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gtsvInterleavedBatch_bufferSizeExt(                                       \
      cusparseHandle_t Hd, int Algo, int M, const T *, const T *, const T *, const T *, int Batch, size_t *Size) {     \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    if (Algo < 0 || Algo > 2 || M < 3 || Batch < 0)                                                                    \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    return setOut(Size, 64);                                                                                           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gtsvInterleavedBatch(cusparseHandle_t Hd, int Algo, int M, T *Dl, T *D,   \
                                                                  T *Du, T *X, int Batch, void *) {                    \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    if (Algo < 0 || Algo > 2 || M < 3 || Batch < 0 || (Batch && (!Dl || !D || !Du || !X)))                             \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    const size_t All = size_t(M) * size_t(Batch);                                                                      \
    return staged(H, [=](const Cx *L, const Cx *C, const Cx *U, Cx *Xv) {                                              \
      libs::parallelFor(Batch, [&](int64_t B) {                                                                        \
        std::vector<Cx> Sl(static_cast<size_t>(M)), Sd(static_cast<size_t>(M)), Su(static_cast<size_t>(M)),           \
            Sx(static_cast<size_t>(M));                                                                                \
        for (int I = 0; I < M; ++I) {                                                                                  \
          size_t At = size_t(I) * Batch + size_t(B);                                                                   \
          Sl[size_t(I)] = L[At], Sd[size_t(I)] = C[At], Su[size_t(I)] = U[At], Sx[size_t(I)] = Xv[At];                 \
        }                                                                                                              \
        Sl[0] = Cx(0), Su[size_t(M) - 1] = Cx(0);                                                                      \
        tridiagonal(M, 1, Sl.data(), Sd.data(), Su.data(), Sx.data(), M, true);                                        \
        for (int I = 0; I < M; ++I)                                                                                    \
          Xv[size_t(I) * Batch + size_t(B)] = Sx[size_t(I)];                                                           \
      });                                                                                                              \
    }, libs::in(reinterpret_cast<const Cx *>(Dl), All), libs::in(reinterpret_cast<const Cx *>(D), All),                \
       libs::in(reinterpret_cast<const Cx *>(Du), All), libs::inout(reinterpret_cast<Cx *>(X), All));                  \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gpsvInterleavedBatch_bufferSizeExt(                                       \
      cusparseHandle_t Hd, int Algo, int M, const T *, const T *, const T *, const T *, const T *, const T *,          \
      int Batch, size_t *Size) {                                                                                       \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    if (Algo != 0 || M < 3 || Batch < 0)                                                                               \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    return setOut(Size, 64);                                                                                           \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##gpsvInterleavedBatch(cusparseHandle_t Hd, int Algo, int M, T *Ds, T *Dl,  \
                                                                  T *D, T *Du, T *Dw, T *X, int Batch, void *) {       \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    if (Algo != 0 || M < 3 || Batch < 0 || (Batch && (!Ds || !Dl || !D || !Du || !Dw || !X)))                          \
      return CUSPARSE_STATUS_INVALID_VALUE;                                                                            \
    const size_t All = size_t(M) * size_t(Batch);                                                                      \
    return staged(H, [=](const Cx *S2, const Cx *S1, const Cx *C, const Cx *U1, const Cx *U2, Cx *Xv) {                \
      libs::parallelFor(Batch, [&](int64_t B) {                                                                        \
        std::vector<Cx> A[6];                                                                                          \
        const Cx *Src[6] = {S2, S1, C, U1, U2, Xv};                                                                    \
        for (int Q = 0; Q < 6; ++Q) {                                                                                  \
          A[Q].resize(static_cast<size_t>(M));                                                                         \
          for (int I = 0; I < M; ++I)                                                                                  \
            A[Q][size_t(I)] = Src[Q][size_t(I) * Batch + size_t(B)];                                                   \
        }                                                                                                              \
        pentadiagonal(M, A[0].data(), A[1].data(), A[2].data(), A[3].data(), A[4].data(), A[5].data());                \
        for (int I = 0; I < M; ++I)                                                                                    \
          Xv[size_t(I) * Batch + size_t(B)] = A[5][size_t(I)];                                                         \
      });                                                                                                              \
    }, libs::in(reinterpret_cast<const Cx *>(Ds), All), libs::in(reinterpret_cast<const Cx *>(Dl), All),              \
       libs::in(reinterpret_cast<const Cx *>(D), All), libs::in(reinterpret_cast<const Cx *>(Du), All),                \
       libs::in(reinterpret_cast<const Cx *>(Dw), All), libs::inout(reinterpret_cast<Cx *>(X), All));                  \
  }
MORE_FORMS(S, float, float, float, CUDA_R_32F)
MORE_FORMS(D, double, double, double, CUDA_R_64F)
MORE_FORMS(C, cuComplex, std::complex<float>, float, CUDA_C_32F)
MORE_FORMS(Z, cuDoubleComplex, std::complex<double>, double, CUDA_C_64F)
#undef MORE_FORMS

namespace zluda::cusparse {
namespace {
template <typename T>
cusparseStatus_t pruneDense(cusparseHandle_t Hd, cudaDataType Dt, int M, int N, const T *A, int Lda, const T *Thr,
                            float Pct, bool ByPct, cusparseMatDescr_t Descr, void *Info, T *Vc, int *Rc, int *Cc, int *Total,
                            bool Count) {
  HANDLE_OR_FAIL(Hd)
  auto *D = lookup<MatDescr>(Descr);
  if (!D || M < 0 || N < 0 || Lda < std::max(1, M) || !Rc || (M && N && !A) || (!ByPct && !Thr) ||
      (ByPct && (!lookup<PruneInfo>(Info) || !(Pct >= 0 && Pct <= 100))) || (!Count && M && N && !Cc))
    return CUSPARSE_STATUS_INVALID_VALUE;
  Threshold<T> Th{Scalar(*H, Thr, Dt), ByPct, Pct};
  if (!ByPct && !Th.P.fetch(H->Stream))
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  const int Base = D->Base;
  auto Level = [=](const T *A) { return Th.get([&] { return denseMagnitudes(M, N, A, Lda); }); };
  const size_t Elems = M && N ? span(Lda, N, M) : 0;
  if (Count)
    return withTotal(
        H, Total, [=](const T *A, int *Rc) { return pruneDenseRows(M, N, A, Lda, Level(A), Rc, Base); },
        libs::in(Elems ? A : nullptr, Elems), libs::out(Rc, size_t(M) + 1));
  const int64_t NnzC = entries(H, Rc, M, Base);
  if (NnzC < 0)
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  return staged(
      H, [=](const T *A, const int *Rc, T *Vc, int *Cc) { pruneDenseFill(M, N, A, Lda, Level(A), Vc, Rc, Cc, Base); },
      libs::in(Elems ? A : nullptr, Elems), libs::in(Rc, size_t(M) + 1), libs::out(Vc, size_t(NnzC)),
      libs::out(Cc, size_t(NnzC)));
}
template <typename T>
cusparseStatus_t pruneCsr(cusparseHandle_t Hd, cudaDataType Dt, int M, int N, int NnzA, cusparseMatDescr_t Da, const T *Va,
                          const int *Ra, const int *Ca, const T *Thr, float Pct, bool ByPct, cusparseMatDescr_t Dc,
                          void *Info, T *Vc, int *Rc, int *Cc, int *Total, bool Count) {
  HANDLE_OR_FAIL(Hd)
  auto *A = lookup<MatDescr>(Da), *C = lookup<MatDescr>(Dc);
  if (!A || !C || M < 0 || N < 0 || NnzA < 0 || !Rc || (M && !Ra) || (NnzA && (!Va || !Ca)) || (!ByPct && !Thr) ||
      (ByPct && (!lookup<PruneInfo>(Info) || !(Pct >= 0 && Pct <= 100))) || (!Count && NnzA && !Cc))
    return CUSPARSE_STATUS_INVALID_VALUE;
  Threshold<T> Th{Scalar(*H, Thr, Dt), ByPct, Pct};
  const int Ba = A->Base, Bc = C->Base;
  if (!ByPct && !Th.P.fetch(H->Stream))
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  auto Level = [=](const T *Va) { return Th.get([&] { return csrMagnitudes(NnzA, Va); }); };
  if (Count)
    return withTotal(
        H, Total, [=](const T *Va, const int *Ra, int *Rc) { return pruneCsrRows(M, Va, Ra, Ba, Level(Va), Rc, Bc); },
        libs::in(Va, size_t(NnzA)), libs::in(M ? Ra : nullptr, size_t(M) + 1), libs::out(Rc, size_t(M) + 1));
  const int64_t NnzC = entries(H, Rc, M, Bc);
  if (NnzC < 0)
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  return staged(
      H,
      [=](const T *Va, const int *Ra, const int *Ca, const int *Rc, T *Vc, int *Cc) {
        pruneCsrFill(M, Va, Ra, Ca, Ba, Level(Va), Vc, Rc, Cc, Bc);
      },
      libs::in(Va, size_t(NnzA)), libs::in(M ? Ra : nullptr, size_t(M) + 1), libs::in(Ca, size_t(NnzA)),
      libs::in(Rc, size_t(M) + 1), libs::out(Vc, size_t(NnzC)), libs::out(Cc, size_t(NnzC)));
}
} // namespace
} // namespace zluda::cusparse

#define PRUNE_FORMS(p, T, Cx, Dt)                                                                                          \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneDense2csr_bufferSizeExt(cusparseHandle_t Hd, int M, int N,          \
                                                                          const T *, int, const T *,                   \
                                                                          cusparseMatDescr_t, const T *, const int *,  \
                                                                          const int *, size_t *Size) {                 \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    return M < 0 || N < 0 ? CUSPARSE_STATUS_INVALID_VALUE : setOut(Size, 64);                                          \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneDense2csrNnz(cusparseHandle_t Hd, int M, int N, const T *A, int Lda, \
                                                               const T *Thr, cusparseMatDescr_t Dc, int *Rc,           \
                                                               int *Total, void *) {                                   \
    return pruneDense<Cx>(Hd, Dt, M, N, reinterpret_cast<const Cx *>(A), Lda, reinterpret_cast<const Cx *>(Thr), 0,       \
                          false, Dc, nullptr, nullptr, Rc, nullptr, Total, true);                                      \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneDense2csr(cusparseHandle_t Hd, int M, int N, const T *A, int Lda,    \
                                                            const T *Thr, cusparseMatDescr_t Dc, T *Vc,                \
                                                            const int *Rc, int *Cc, void *) {                          \
    return pruneDense<Cx>(Hd, Dt, M, N, reinterpret_cast<const Cx *>(A), Lda, reinterpret_cast<const Cx *>(Thr), 0,       \
                          false, Dc, nullptr, reinterpret_cast<Cx *>(Vc), const_cast<int *>(Rc), Cc, nullptr, false);  \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneCsr2csr_bufferSizeExt(                                               \
      cusparseHandle_t Hd, int M, int N, int NnzA, cusparseMatDescr_t, const T *, const int *, const int *, const T *, \
      cusparseMatDescr_t, const T *, const int *, const int *, size_t *Size) {                                         \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    return M < 0 || N < 0 || NnzA < 0 ? CUSPARSE_STATUS_INVALID_VALUE : setOut(Size, 64);                              \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneCsr2csrNnz(                                                          \
      cusparseHandle_t Hd, int M, int N, int NnzA, cusparseMatDescr_t Da, const T *Va, const int *Ra, const int *Ca,   \
      const T *Thr, cusparseMatDescr_t Dc, int *Rc, int *Total, void *) {                                              \
    return pruneCsr<Cx>(Hd, Dt, M, N, NnzA, Da, reinterpret_cast<const Cx *>(Va), Ra, Ca,                                  \
                        reinterpret_cast<const Cx *>(Thr), 0, false, Dc, nullptr, nullptr, Rc, nullptr, Total, true);  \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneCsr2csr(                                                             \
      cusparseHandle_t Hd, int M, int N, int NnzA, cusparseMatDescr_t Da, const T *Va, const int *Ra, const int *Ca,   \
      const T *Thr, cusparseMatDescr_t Dc, T *Vc, const int *Rc, int *Cc, void *) {                                    \
    return pruneCsr<Cx>(Hd, Dt, M, N, NnzA, Da, reinterpret_cast<const Cx *>(Va), Ra, Ca,                                  \
                        reinterpret_cast<const Cx *>(Thr), 0, false, Dc, nullptr, reinterpret_cast<Cx *>(Vc),          \
                        const_cast<int *>(Rc), Cc, nullptr, false);                                                    \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneDense2csrByPercentage_bufferSizeExt(                                 \
      cusparseHandle_t Hd, int M, int N, const T *, int, float Pct, cusparseMatDescr_t, const T *, const int *,        \
      const int *, void *Info, size_t *Size) {                                                                         \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    return M < 0 || N < 0 || !(Pct >= 0 && Pct <= 100) || !lookup<PruneInfo>(Info) ? CUSPARSE_STATUS_INVALID_VALUE     \
                                                                                   : setOut(Size, 64);                 \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneDense2csrNnzByPercentage(                                            \
      cusparseHandle_t Hd, int M, int N, const T *A, int Lda, float Pct, cusparseMatDescr_t Dc, int *Rc, int *Total,   \
      void *Info, void *) {                                                                                            \
    return pruneDense<Cx>(Hd, Dt, M, N, reinterpret_cast<const Cx *>(A), Lda, nullptr, Pct, true, Dc, Info, nullptr, Rc,   \
                          nullptr, Total, true);                                                                       \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneDense2csrByPercentage(                                               \
      cusparseHandle_t Hd, int M, int N, const T *A, int Lda, float Pct, cusparseMatDescr_t Dc, T *Vc, const int *Rc,  \
      int *Cc, void *Info, void *) {                                                                                   \
    return pruneDense<Cx>(Hd, Dt, M, N, reinterpret_cast<const Cx *>(A), Lda, nullptr, Pct, true, Dc, Info,                \
                          reinterpret_cast<Cx *>(Vc), const_cast<int *>(Rc), Cc, nullptr, false);                      \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneCsr2csrByPercentage_bufferSizeExt(                                   \
      cusparseHandle_t Hd, int M, int N, int NnzA, cusparseMatDescr_t, const T *, const int *, const int *, float Pct, \
      cusparseMatDescr_t, const T *, const int *, const int *, void *Info, size_t *Size) {                             \
    HANDLE_OR_FAIL(Hd)                                                                                                 \
    (void)H;                                                                                                           \
    return M < 0 || N < 0 || NnzA < 0 || !(Pct >= 0 && Pct <= 100) || !lookup<PruneInfo>(Info)                         \
               ? CUSPARSE_STATUS_INVALID_VALUE                                                                         \
               : setOut(Size, 64);                                                                                     \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneCsr2csrNnzByPercentage(                                              \
      cusparseHandle_t Hd, int M, int N, int NnzA, cusparseMatDescr_t Da, const T *Va, const int *Ra, const int *Ca,   \
      float Pct, cusparseMatDescr_t Dc, int *Rc, int *Total, void *Info, void *) {                                     \
    return pruneCsr<Cx>(Hd, Dt, M, N, NnzA, Da, reinterpret_cast<const Cx *>(Va), Ra, Ca, nullptr, Pct, true, Dc, Info,    \
                        nullptr, Rc, nullptr, Total, true);                                                            \
  }                                                                                                                    \
  CUSPARSE_API cusparseStatus_t cusparse##p##pruneCsr2csrByPercentage(                                                 \
      cusparseHandle_t Hd, int M, int N, int NnzA, cusparseMatDescr_t Da, const T *Va, const int *Ra, const int *Ca,   \
      float Pct, cusparseMatDescr_t Dc, T *Vc, const int *Rc, int *Cc, void *Info, void *) {                           \
    return pruneCsr<Cx>(Hd, Dt, M, N, NnzA, Da, reinterpret_cast<const Cx *>(Va), Ra, Ca, nullptr, Pct, true, Dc, Info,    \
                        reinterpret_cast<Cx *>(Vc), const_cast<int *>(Rc), Cc, nullptr, false);                        \
  }
PRUNE_FORMS(H, uint16_t, Half16, CUDA_R_16F)
PRUNE_FORMS(S, float, float, CUDA_R_32F)
PRUNE_FORMS(D, double, double, CUDA_R_64F)
#undef PRUNE_FORMS
