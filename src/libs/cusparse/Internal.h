//===- Internal.h - libcusparse: what its files share ----------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The handle, the descriptors and the host algorithms every part of our
/// cuSPARSE uses (Cusparse.cpp: handles and descriptors; SpMV.cpp, SpGEMM.cpp,
/// Conversions.cpp, Factor.cpp, Vectors.cpp: the generic API and ILU/IC; Legacy.cpp
/// and LegacyBlocks.cpp: the legacy routines). Each operation is a host function
/// of the handle's stream working on device memory (host memory on the CPU
/// device); results the host must see at once (SpGEMM's nnz, DenseToSparse's
/// count, zero pivots) wait for the stream. On a GPU, where rocSPARSE does not
/// serve a call, every operation waits for the stream and runs on host copies:
/// the generic ones on the arrays of their descriptors (Staged, atReturn,
/// onHost), the legacy routines on their plain arrays (staged; sizes the arrays
/// hold, such as an output's entry count, read first), the outputs copied back.
#ifndef ZLUDA_LIBS_CUSPARSE_INTERNAL_H
#define ZLUDA_LIBS_CUSPARSE_INTERNAL_H

#include "libs/common/Half.h"
#include "libs/common/Handles.h"
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
/// cuSPARSE's answers to the handle calls (libs/common/Handles.h).
inline constexpr libs::HandleStatus<cusparseStatus_t> HandleStatuses{
    CUSPARSE_STATUS_SUCCESS, CUSPARSE_STATUS_NOT_INITIALIZED, CUSPARSE_STATUS_INVALID_VALUE,
    CUSPARSE_STATUS_NOT_INITIALIZED};
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

inline bool validIndex(cusparseIndexType_t T) { return T == CUSPARSE_INDEX_32I || T == CUSPARSE_INDEX_64I; }
/// The compute types (and the one value type of every operation but SpMV/SpMM).
inline bool validValue(cudaDataType T) { return T == CUDA_R_32F || T == CUDA_R_64F || T == CUDA_C_32F || T == CUDA_C_64F; }
/// Value types a descriptor takes: SpMV and SpMM compute with the narrower ones (mixedTypes), Gather and Scatter
/// move them.
inline bool storable(cudaDataType T) {
  return validValue(T) || T == CUDA_R_16F || T == CUDA_R_16BF || T == CUDA_R_8I || T == CUDA_R_32I ||
         T == CUDA_C_16F || T == CUDA_C_16BF;
}
inline size_t valueBytes(cudaDataType T) {
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

inline int64_t getIx(const void *P, cusparseIndexType_t T, int64_t I) {
  return T == CUSPARSE_INDEX_64I ? static_cast<const int64_t *>(P)[I] : static_cast<const int32_t *>(P)[I];
}
inline void setIx(void *P, cusparseIndexType_t T, int64_t I, int64_t V) {
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

inline Handle *handle(cusparseHandle_t H) { return lookup<Handle>(H); }

/// Fn queued in the handle's stream (the CPU device: onHost's path there; on a GPU the work goes through
/// atReturn, onHost or staged on host copies).
inline cusparseStatus_t submit(Handle *H, std::function<void()> Fn) {
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
inline cusparseStatus_t withTotal(Handle *H, int *Out, F Fn, libs::Arg<T>... Args) {
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
inline size_t span(int64_t Ld, int64_t Outer, int64_t Inner) {
  return Outer > 0 && Inner > 0 ? size_t(Ld * (Outer - 1) + Inner) : 0;
}

/// The entries compressed offsets count, Ptr[N] - Base, to size host copies on a GPU (read there after the
/// stream); 0 on the CPU device, where staging passes the arrays through, or for a null array; -1 when the read
/// failed.
inline int64_t entries(Handle *H, const int *Ptr, int64_t N, int Base) {
  if (libs::cpuDevice() || !Ptr)
    return 0;
  int Last = 0;
  if (libs::wait(H->Stream) || libs::toHost(&Last, Ptr + N, sizeof Last))
    return -1;
  return std::max<int64_t>(0, int64_t(Last) - Base);
}

/// The sum of N per-row counts (csr2csr_compress's nnzPerRow), to size host copies on a GPU as entries does.
inline int64_t kept(Handle *H, const int *PerRow, int64_t N) {
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

inline size_t indexBytes(cusparseIndexType_t T) { return T == CUSPARSE_INDEX_64I ? 8 : 4; }

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

inline cusparseStatus_t setOut(size_t *Out, size_t V) {
  if (!Out)
    return CUSPARSE_STATUS_INVALID_VALUE;
  *Out = V;
  return CUSPARSE_STATUS_SUCCESS;
}

inline cusparseStatus_t makeSp(cusparseSpMatDescr_t *Out, cusparseFormat_t Fmt, int64_t Rows, int64_t Cols, int64_t Nnz,
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
inline void spmvRows(const SpMat &A, T Alpha, const T *X, T Beta, T *Y) {
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
inline void spmv(const SpMat &A, cusparseOperation_t Op, T Alpha, const T *X, T Beta, T *Y, int64_t YSize) {
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
inline SpMat batchOf(SpMat M, int I) {
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
inline DnMat batchOf(DnMat M, int I) {
  if (M.BatchCount > 1 && M.Val)
    M.Val = static_cast<char *>(M.Val) + I * M.BatchStride * int64_t(valueBytes(M.VT));
  M.BatchCount = 1;
  return M;
}

template <typename T>
inline void spmm(const SpMat &A, cusparseOperation_t OpA, cusparseOperation_t OpB, T Alpha, const DnMat &B, T Beta,
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
inline std::vector<std::vector<std::pair<int64_t, int64_t>>> rowsOf(const SpMat &A) {
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
inline int64_t ilu0(int64_t M, const int *Off, const int *Ind, T *V, int Base, bool Boost = false, double Tol = 0,
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


#define HANDLE_OR_FAIL(Hd)                                                                                             \
  Handle *H = handle(Hd);                                                                                              \
  if (!H)                                                                                                              \
    return CUSPARSE_STATUS_NOT_INITIALIZED;

inline bool validOp(cusparseOperation_t O) {
  return O == CUSPARSE_OPERATION_NON_TRANSPOSE || O == CUSPARSE_OPERATION_TRANSPOSE ||
         O == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE;
}
inline bool opSwaps(cusparseOperation_t O) { return O != CUSPARSE_OPERATION_NON_TRANSPOSE; }

// SpMV's value and compute types, shared by SpGEMM and the sparse vectors.
/// SpMV's and SpMM's value and compute type combinations besides one type for all (cuSPARSE's table, and
/// the H200's answers: tests/probes/cusparse_types.h200.txt): A, X (or B), Y (or C), compute. A real f32
/// matrix with f64 vectors is SpMV's alone.
inline bool mixedAllowed(cudaDataType A, cudaDataType X, cudaDataType Y, cudaDataType C, bool Spmv) {
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
inline cusparseStatus_t checkTypes(const SpMat &A, cudaDataType X, cudaDataType Y, cudaDataType Compute, bool Spmv) {
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
inline Cd loadValue(cudaDataType T, const void *P, int64_t I) {
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
inline void storeValue(cudaDataType T, void *P, int64_t I, Cd V) {
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
inline cudaDataType workOf(cudaDataType T) {
  return T == CUDA_R_16F || T == CUDA_R_16BF ? CUDA_R_32F : T == CUDA_C_16F || T == CUDA_C_16BF ? CUDA_C_32F : T;
}
/// A scalar of type \p T as a complex double.
inline Cd scalarValue(const Scalar &S, cudaDataType T) { return loadValue(T, S.Device ? S.Ptr : S.Bytes, 0); }
/// Elements a dense matrix spans (its last column or row may be shorter than the leading dimension).
inline int64_t denseSpan(const DnMat &M) {
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

// Tridiagonal solves and pair sorting, shared by the legacy routines.

/// Solves tridiagonal systems (rows M, N right-hand sides in B): Gaussian elimination with partial pivoting
/// (Pivot) or the Thomas algorithm (none). Returns false on a zero pivot.
template <typename T>
inline bool tridiagonal(int M, int N, const T *Dl, const T *D, const T *Du, T *B, int Ldb, bool Pivot) {
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
inline void sortPairs(int *Key1, int *Key2, int *P, int From, int To) {
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
inline cusparseStatus_t gtsv2BufferSize(cusparseHandle_t Hd, int M, int N, int Ldb, size_t *Size) {
  HANDLE_OR_FAIL(Hd)
  (void)H;
  return M < 3 || N < 0 || Ldb < std::max(1, M) ? CUSPARSE_STATUS_INVALID_VALUE : setOut(Size, 64);
}


} // namespace zluda::cusparse

#endif // ZLUDA_LIBS_CUSPARSE_INTERNAL_H
