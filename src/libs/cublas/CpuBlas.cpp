//===- CpuBlas.cpp - cuBLAS on the CPU device: OpenBLAS and our own loops --===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Each operation is a closure run in stream order (device memory is
/// host memory on the CPU device). f32/f64/complex GEMM, GEMV and level 1
/// are OpenBLAS's; half and bfloat16 operands are widened to f32 (products
/// and sums in f32, results rounded to nearest even once); int8 GEMM into
/// int32 and geam/dgmm are loops here. Where beta is 0 the output is not
/// read (cuBLAS's rule: NaN there does not propagate): OpenBLAS's f32, f64
/// and complex GEMMs store without reading C when beta is 0 (Debian's
/// 0.3.21, every size and transpose; the cuBLAS tests put NaN there), the
/// other paths zero it first.
#include "libs/cublas/Cublas.h"
#include "libs/common/Half.h"

#include "libs/cublas/CblasEnums.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace zluda::cublas {
namespace {

using C32 = std::complex<float>;
using C64 = std::complex<double>;

using libs::bf16ToFloat;
using libs::floatToBf16;
using libs::floatToHalf;
using libs::halfToFloat;

/// Runs Fn(From, To) over column ranges of [0, Cols), on every core when the
/// matrix is large (conversions of big operands would otherwise take one
/// core while the GEMM after them takes all).
template <typename F> void eachColumns(int64_t Rows, int64_t Cols, F Fn) {
  unsigned Cores = std::max(1u, std::thread::hardware_concurrency());
  if (Cores < 2 || Rows * Cols < (int64_t(1) << 20)) {
    Fn(int64_t(0), Cols);
    return;
  }
  std::vector<std::thread> Workers;
  int64_t Step = (Cols + Cores - 1) / Cores;
  for (int64_t From = Step; From < Cols; From += Step)
    Workers.emplace_back([=] { Fn(From, std::min(Cols, From + Step)); });
  Fn(int64_t(0), std::min(Cols, Step));
  for (auto &W : Workers)
    W.join();
}

/// The calling thread's f32 scratch buffer \p Slot (0-2) of at least \p N
/// elements, kept between calls: fresh pages for every call of a large half
/// GEMM cost more than its conversions (a 4096^2 one: three 64 MiB buffers).
float *scratch(unsigned Slot, size_t N) {
  thread_local std::unique_ptr<float[]> Bufs[3];
  thread_local size_t Caps[3] = {0, 0, 0};
  if (Caps[Slot] < N) {
    Bufs[Slot].reset(new float[N]);
    Caps[Slot] = N;
  }
  return Bufs[Slot].get();
}

/// Widens Cols columns of Rows elements (leading dimension Ld) of type T to
/// f32 in scratch buffer \p Slot (the elements between columns are left unset).
float *widen(const void *P, cudaDataType T, int64_t Rows, int64_t Cols, int64_t Ld, unsigned Slot) {
  float *R = scratch(Slot, static_cast<size_t>(Ld * (Cols - 1) + Rows));
  eachColumns(Rows, Cols, [&](int64_t From, int64_t To) {
    for (int64_t J = From; J < To; ++J) { // a column at a time (vectorized conversions)
      size_t K0 = static_cast<size_t>(J * Ld);
      float *Out = R + K0;
      switch (T) {
      case CUDA_R_16F:
        libs::halvesToFloats(static_cast<const uint16_t *>(P) + K0, Out, static_cast<size_t>(Rows));
        break;
      case CUDA_R_16BF:
        for (int64_t I = 0; I < Rows; ++I)
          Out[I] = bf16ToFloat(static_cast<const uint16_t *>(P)[K0 + I]);
        break;
      case CUDA_R_8I:
        for (int64_t I = 0; I < Rows; ++I)
          Out[I] = static_cast<const int8_t *>(P)[K0 + I];
        break;
      default:
        std::memcpy(Out, static_cast<const float *>(P) + K0, static_cast<size_t>(Rows) * 4);
        break;
      }
    }
  });
  return R;
}

/// A scalar of the compute type as f32.
float scalarF32(const Scalar &S, cublasComputeType_t C) {
  return C == CUBLAS_COMPUTE_16F || C == CUBLAS_COMPUTE_16F_PEDANTIC ? halfToFloat(S.get<uint16_t>()) : S.get<float>();
}


template <typename T> bool isZero(const T &V) { return V == T(0); }

/// Zeroes an M x N column-major matrix (beta = 0: the output is not read).
template <typename T> void zero(void *C, int64_t M, int64_t N, int64_t Ldc) {
  for (int64_t J = 0; J < N; ++J)
    std::memset(static_cast<void *>(static_cast<T *>(C) + J * Ldc), 0, static_cast<size_t>(M) * sizeof(T));
}

void gemmOne(const Gemm &G, const void *A, const void *B, void *C) {
  const int64_t M = G.M, N = G.N, K = G.K;
  auto Ta = cblasTrans(G.TransA, false), Tb = cblasTrans(G.TransB, false);
  int64_t ARows = G.TransA == CUBLAS_OP_N ? M : K, ACols = G.TransA == CUBLAS_OP_N ? K : M;
  int64_t BRows = G.TransB == CUBLAS_OP_N ? K : N, BCols = G.TransB == CUBLAS_OP_N ? N : K;
  switch (G.AType) {
  case CUDA_R_32F:
    if (G.CType == CUDA_R_32F) {
      float Al = G.Alpha.get<float>(), Be = G.Beta.get<float>();
      if (Be == 0 && K == 0)
        zero<float>(C, M, N, G.Ldc);
      cblas_sgemm(CblasColMajor, Ta, Tb, M, N, K, Al, static_cast<const float *>(A), G.Lda,
                  static_cast<const float *>(B), G.Ldb, Be, static_cast<float *>(C), G.Ldc);
      return;
    }
    break;
  case CUDA_R_64F: {
    double Al = G.Alpha.get<double>(), Be = G.Beta.get<double>();
    if (Be == 0 && K == 0)
      zero<double>(C, M, N, G.Ldc);
    cblas_dgemm(CblasColMajor, Ta, Tb, M, N, K, Al, static_cast<const double *>(A), G.Lda,
                static_cast<const double *>(B), G.Ldb, Be, static_cast<double *>(C), G.Ldc);
    return;
  }
  case CUDA_C_32F: {
    C32 Al = G.Alpha.get<C32>(), Be = G.Beta.get<C32>();
    if (isZero(Be) && K == 0)
      zero<C32>(C, M, N, G.Ldc);
    cblas_cgemm(CblasColMajor, cblasTrans(G.TransA, true), cblasTrans(G.TransB, true), M, N, K, &Al, A, G.Lda, B, G.Ldb, &Be, C,
                G.Ldc);
    return;
  }
  case CUDA_C_64F: {
    C64 Al = G.Alpha.get<C64>(), Be = G.Beta.get<C64>();
    if (isZero(Be) && K == 0)
      zero<C64>(C, M, N, G.Ldc);
    cblas_zgemm(CblasColMajor, cblasTrans(G.TransA, true), cblasTrans(G.TransB, true), M, N, K, &Al, A, G.Lda, B, G.Ldb, &Be, C,
                G.Ldc);
    return;
  }
  case CUDA_C_8I: { // complex int8 operands widened to complex f32 (exact), CGEMM
    float *Aw = widen(A, CUDA_R_8I, 2 * ARows, ACols, 2 * G.Lda, 0), *Bw = widen(B, CUDA_R_8I, 2 * BRows, BCols, 2 * G.Ldb, 1);
    C32 Al = G.Alpha.get<C32>(), Be = G.Beta.get<C32>();
    if (isZero(Be))
      zero<C32>(C, M, N, G.Ldc);
    cblas_cgemm(CblasColMajor, cblasTrans(G.TransA, true), cblasTrans(G.TransB, true), M, N, K, &Al, Aw, G.Lda, Bw,
                G.Ldb, &Be, C, G.Ldc);
    return;
  }
  default:
    break;
  }
  if (G.Compute == CUBLAS_COMPUTE_32I || G.Compute == CUBLAS_COMPUTE_32I_PEDANTIC) {
    // int8 x int8 -> int32, exact sums (wrapping as 32-bit integers do).
    auto *Ai = static_cast<const int8_t *>(A), *Bi = static_cast<const int8_t *>(B);
    auto *Ci = static_cast<int32_t *>(C);
    int32_t Al = G.Alpha.get<int32_t>(), Be = G.Beta.get<int32_t>();
    for (int64_t J = 0; J < N; ++J)
      for (int64_t I = 0; I < M; ++I) {
        uint32_t Sum = 0;
        for (int64_t L = 0; L < K; ++L) {
          int32_t X = G.TransA == CUBLAS_OP_N ? Ai[L * G.Lda + I] : Ai[I * G.Lda + L];
          int32_t Y = G.TransB == CUBLAS_OP_N ? Bi[J * G.Ldb + L] : Bi[L * G.Ldb + J];
          Sum += static_cast<uint32_t>(X * Y);
        }
        int32_t &Out = Ci[J * G.Ldc + I];
        uint32_t R = static_cast<uint32_t>(Al) * Sum + (Be ? static_cast<uint32_t>(Be) * static_cast<uint32_t>(Out) : 0);
        Out = static_cast<int32_t>(R);
      }
    return;
  }
  // Half, bfloat16 and int8 operands: f32 arithmetic, one rounding of the result.
  float *Aw = widen(A, G.AType, ARows, ACols, G.Lda, 0), *Bw = widen(B, G.BType, BRows, BCols, G.Ldb, 1);
  float Al = scalarF32(G.Alpha, G.Compute), Be = scalarF32(G.Beta, G.Compute);
  if (G.CType == CUDA_R_32F) {
    if (Be == 0)
      zero<float>(C, M, N, G.Ldc);
    cblas_sgemm(CblasColMajor, Ta, Tb, M, N, K, Al, Aw, G.Lda, Bw, G.Ldb, Be, static_cast<float *>(C),
                G.Ldc);
    return;
  }
  float *Cw = scratch(2, static_cast<size_t>(M * N));
  if (Be == 0) // not read, but OpenBLAS scales it by beta: no stale NaNs
    eachColumns(M, N, [&](int64_t From, int64_t To) {
      std::memset(Cw + From * M, 0, static_cast<size_t>((To - From) * M) * 4);
    });
  auto *Ch = static_cast<uint16_t *>(C);
  bool Half = G.CType == CUDA_R_16F;
  if (Be != 0)
    eachColumns(M, N, [&](int64_t From, int64_t To) {
      for (int64_t J = From; J < To; ++J) {
        if (Half) {
          libs::halvesToFloats(Ch + J * G.Ldc, Cw + J * M, static_cast<size_t>(M));
          continue;
        }
        for (int64_t I = 0; I < M; ++I)
          Cw[J * M + I] = bf16ToFloat(Ch[J * G.Ldc + I]);
      }
    });
  cblas_sgemm(CblasColMajor, Ta, Tb, M, N, K, Al, Aw, G.Lda, Bw, G.Ldb, Be, Cw, M);
  eachColumns(M, N, [&](int64_t From, int64_t To) {
    for (int64_t J = From; J < To; ++J) {
      if (Half) {
        libs::floatsToHalves(Cw + J * M, Ch + J * G.Ldc, static_cast<size_t>(M));
        continue;
      }
      for (int64_t I = 0; I < M; ++I)
        Ch[J * G.Ldc + I] = floatToBf16(Cw[J * M + I]);
    }
  });
}

void gemmRange(const Gemm &G, int64_t From, int64_t To) {
  size_t EA = elemSize(G.AType), EB = elemSize(G.BType), EC = elemSize(G.CType);
  for (int64_t I = From; I < To; ++I) {
    const void *A, *B;
    void *C;
    if (G.Ptrs) {
      A = static_cast<const void *const *>(G.A)[I];
      B = static_cast<const void *const *>(G.B)[I];
      C = static_cast<void *const *>(G.C)[I];
    } else {
      A = static_cast<const char *>(G.A) + I * G.StrideA * EA;
      B = static_cast<const char *>(G.B) + I * G.StrideB * EB;
      C = static_cast<char *>(G.C) + I * G.StrideC * EC;
    }
    gemmOne(G, A, B, C);
  }
}

/// OpenBLAS set to one thread while a batch runs on the pool (each of its small GEMMs takes one core; OpenBLAS's
/// own threading then only costs, as an OpenMP loop over it finds too). Nested or concurrent batches share one
/// setting and the last restores it; a large GEMM of another stream meanwhile runs on one core.
class SingleThreadedOpenBlas {
public:
  SingleThreadedOpenBlas() {
    std::lock_guard<std::mutex> G(Mu);
    if (Depth++ == 0) {
      Saved = openblas_get_num_threads();
      openblas_set_num_threads(1);
    }
  }
  ~SingleThreadedOpenBlas() {
    std::lock_guard<std::mutex> G(Mu);
    if (--Depth == 0)
      openblas_set_num_threads(Saved);
  }

private:
  static inline std::mutex Mu;
  static inline int Depth = 0, Saved = 1;
};

/// A batch of small GEMMs (up to 128^3 multiply-adds each, at least 4M in
/// all) is spread over the cores (OpenBLAS runs a small GEMM on one thread);
/// large ones run one after another, each on all cores, and so do short
/// batches (handing them to the pool costs more than they gain).
void gemmAll(const Gemm &G) {
  unsigned Cores = std::max(1u, std::thread::hardware_concurrency());
  double Work = double(G.M) * double(G.N) * double(G.K);
  bool Small = Work <= 128.0 * 128 * 128 && Work * double(G.Batch) >= 4.0 * 1024 * 1024;
  if (G.Batch < 2 || !Small || Cores < 2) {
    gemmRange(G, 0, G.Batch);
    return;
  }
  // Parts of the batch on the library pool's threads (a few per core, so an uneven share evens out).
  int64_t Parts = std::min<int64_t>(int64_t(Cores) * 4, G.Batch);
  SingleThreadedOpenBlas One;
  libs::parallelFor(Parts, [&](int64_t P) { gemmRange(G, G.Batch * P / Parts, G.Batch * (P + 1) / Parts); });
}

// --- level 1 -------------------------------------------------------------------------

template <typename R> void put(void *Out, R V) { std::memcpy(Out, &V, sizeof V); }

void level1Run(const Level1 &L) {
  const int64_t N = L.N, Ix = L.IncX, Iy = L.IncY;
  void *X = L.X, *Y = L.Y;
  bool Idx = L.Op == L1::Amax || L.Op == L1::Amin;
  if (N <= 0 || ((L.Op == L1::Nrm2 || L.Op == L1::Asum || Idx || L.Op == L1::Scal) && Ix <= 0)) {
    // Nothing to do; reductions give 0.
    if (Idx)
      L.Result64 ? put<int64_t>(L.Result, 0) : put<int32_t>(L.Result, 0);
    else if (L.Op == L1::Nrm2 || L.Op == L1::Asum)
      L.T == CUDA_R_64F || L.T == CUDA_C_64F ? put<double>(L.Result, 0) : put<float>(L.Result, 0);
    else if (L.Op == L1::Dot || L.Op == L1::Dotc)
      std::memset(L.Result, 0, elemSize(L.T));
    return;
  }
  auto index = [&](size_t I) { L.Result64 ? put<int64_t>(L.Result, int64_t(I) + 1) : put<int32_t>(L.Result, int32_t(I) + 1); };
  switch (L.T) {
  case CUDA_R_32F: {
    auto *Xf = static_cast<float *>(X), *Yf = static_cast<float *>(Y);
    switch (L.Op) {
    case L1::Axpy: cblas_saxpy(N, L.Alpha.get<float>(), Xf, Ix, Yf, Iy); break;
    case L1::Scal: cblas_sscal(N, L.Alpha.get<float>(), Xf, Ix); break;
    case L1::Copy: cblas_scopy(N, Xf, Ix, Yf, Iy); break;
    case L1::Swap: cblas_sswap(N, Xf, Ix, Yf, Iy); break;
    case L1::Dot:
    case L1::Dotc: put(L.Result, cblas_sdot(N, Xf, Ix, Yf, Iy)); break;
    case L1::Nrm2: put(L.Result, cblas_snrm2(N, Xf, Ix)); break;
    case L1::Asum: put(L.Result, cblas_sasum(N, Xf, Ix)); break;
    case L1::Amax: index(cblas_isamax(N, Xf, Ix)); break;
    case L1::Amin: index(cblas_isamin(N, Xf, Ix)); break;
    }
    return;
  }
  case CUDA_R_64F: {
    auto *Xd = static_cast<double *>(X), *Yd = static_cast<double *>(Y);
    switch (L.Op) {
    case L1::Axpy: cblas_daxpy(N, L.Alpha.get<double>(), Xd, Ix, Yd, Iy); break;
    case L1::Scal: cblas_dscal(N, L.Alpha.get<double>(), Xd, Ix); break;
    case L1::Copy: cblas_dcopy(N, Xd, Ix, Yd, Iy); break;
    case L1::Swap: cblas_dswap(N, Xd, Ix, Yd, Iy); break;
    case L1::Dot:
    case L1::Dotc: put(L.Result, cblas_ddot(N, Xd, Ix, Yd, Iy)); break;
    case L1::Nrm2: put(L.Result, cblas_dnrm2(N, Xd, Ix)); break;
    case L1::Asum: put(L.Result, cblas_dasum(N, Xd, Ix)); break;
    case L1::Amax: index(cblas_idamax(N, Xd, Ix)); break;
    case L1::Amin: index(cblas_idamin(N, Xd, Ix)); break;
    }
    return;
  }
  case CUDA_C_32F: {
    switch (L.Op) {
    case L1::Axpy: {
      C32 A = L.Alpha.get<C32>();
      cblas_caxpy(N, &A, X, Ix, Y, Iy);
      break;
    }
    case L1::Scal:
      if (L.RealScalar) {
        cblas_csscal(N, L.Alpha.get<float>(), X, Ix);
      } else {
        C32 A = L.Alpha.get<C32>();
        cblas_cscal(N, &A, X, Ix);
      }
      break;
    case L1::Copy: cblas_ccopy(N, X, Ix, Y, Iy); break;
    case L1::Swap: cblas_cswap(N, X, Ix, Y, Iy); break;
    case L1::Dot: {
      C32 R;
      cblas_cdotu_sub(N, X, Ix, Y, Iy, &R);
      put(L.Result, R);
      break;
    }
    case L1::Dotc: {
      C32 R;
      cblas_cdotc_sub(N, X, Ix, Y, Iy, &R);
      put(L.Result, R);
      break;
    }
    case L1::Nrm2: put(L.Result, cblas_scnrm2(N, X, Ix)); break;
    case L1::Asum: put(L.Result, cblas_scasum(N, X, Ix)); break;
    case L1::Amax: index(cblas_icamax(N, X, Ix)); break;
    case L1::Amin: index(cblas_icamin(N, X, Ix)); break;
    }
    return;
  }
  case CUDA_C_64F: {
    switch (L.Op) {
    case L1::Axpy: {
      C64 A = L.Alpha.get<C64>();
      cblas_zaxpy(N, &A, X, Ix, Y, Iy);
      break;
    }
    case L1::Scal:
      if (L.RealScalar) {
        cblas_zdscal(N, L.Alpha.get<double>(), X, Ix);
      } else {
        C64 A = L.Alpha.get<C64>();
        cblas_zscal(N, &A, X, Ix);
      }
      break;
    case L1::Copy: cblas_zcopy(N, X, Ix, Y, Iy); break;
    case L1::Swap: cblas_zswap(N, X, Ix, Y, Iy); break;
    case L1::Dot: {
      C64 R;
      cblas_zdotu_sub(N, X, Ix, Y, Iy, &R);
      put(L.Result, R);
      break;
    }
    case L1::Dotc: {
      C64 R;
      cblas_zdotc_sub(N, X, Ix, Y, Iy, &R);
      put(L.Result, R);
      break;
    }
    case L1::Nrm2: put(L.Result, cblas_dznrm2(N, X, Ix)); break;
    case L1::Asum: put(L.Result, cblas_dzasum(N, X, Ix)); break;
    case L1::Amax: index(cblas_izamax(N, X, Ix)); break;
    case L1::Amin: index(cblas_izamin(N, X, Ix)); break;
    }
    return;
  }
  default:
    return;
  }
}

// --- level 2 and the element-wise forms ---------------------------------------------------

/// y = 0 where beta = 0 (y is not read then).
template <typename T> void zeroVector(void *Y, int64_t Len, int64_t Inc) {
  auto *P = static_cast<T *>(Y);
  int64_t Start = Inc < 0 ? (Len - 1) * -Inc : 0;
  for (int64_t I = 0; I < Len; ++I)
    P[Start + I * Inc] = T(0);
}

void gemvRun(const Gemv &G) {
  int64_t YLen = G.Trans == CUBLAS_OP_N ? G.M : G.N;
  switch (G.T) {
  case CUDA_R_32F: {
    float Be = G.Beta.get<float>();
    if (Be == 0)
      zeroVector<float>(G.Y, YLen, G.IncY);
    cblas_sgemv(CblasColMajor, cblasTrans(G.Trans, false), G.M, G.N, G.Alpha.get<float>(), static_cast<const float *>(G.A),
                G.Lda, static_cast<const float *>(G.X), G.IncX, Be, static_cast<float *>(G.Y), G.IncY);
    return;
  }
  case CUDA_R_64F: {
    double Be = G.Beta.get<double>();
    if (Be == 0)
      zeroVector<double>(G.Y, YLen, G.IncY);
    cblas_dgemv(CblasColMajor, cblasTrans(G.Trans, false), G.M, G.N, G.Alpha.get<double>(),
                static_cast<const double *>(G.A), G.Lda, static_cast<const double *>(G.X), G.IncX, Be,
                static_cast<double *>(G.Y), G.IncY);
    return;
  }
  case CUDA_C_32F: {
    C32 Al = G.Alpha.get<C32>(), Be = G.Beta.get<C32>();
    if (isZero(Be))
      zeroVector<C32>(G.Y, YLen, G.IncY);
    cblas_cgemv(CblasColMajor, cblasTrans(G.Trans, true), G.M, G.N, &Al, G.A, G.Lda, G.X, G.IncX, &Be, G.Y, G.IncY);
    return;
  }
  case CUDA_C_64F: {
    C64 Al = G.Alpha.get<C64>(), Be = G.Beta.get<C64>();
    if (isZero(Be))
      zeroVector<C64>(G.Y, YLen, G.IncY);
    cblas_zgemv(CblasColMajor, cblasTrans(G.Trans, true), G.M, G.N, &Al, G.A, G.Lda, G.X, G.IncX, &Be, G.Y, G.IncY);
    return;
  }
  default:
    return;
  }
}

template <typename T> T conjIf(T V, bool) { return V; }
template <typename R> std::complex<R> conjIf(std::complex<R> V, bool C) { return C ? std::conj(V) : V; }

template <typename T> void geamTyped(const Geam &G) {
  const T *A = static_cast<const T *>(G.A), *B = static_cast<const T *>(G.B);
  T *C = static_cast<T *>(G.C);
  if (G.Dgmm) {
    int64_t Len = G.Side == CUBLAS_SIDE_LEFT ? G.M : G.N;
    int64_t Start = G.IncX < 0 ? (Len - 1) * -G.IncX : 0;
    for (int64_t J = 0; J < G.N; ++J)
      for (int64_t I = 0; I < G.M; ++I) {
        const T &D = B[Start + (G.Side == CUBLAS_SIDE_LEFT ? I : J) * G.IncX];
        C[J * G.Ldc + I] = A[J * G.Lda + I] * D;
      }
    return;
  }
  T Al = G.Alpha.get<T>(), Be = G.Beta.get<T>();
  auto at = [](const T *P, cublasOperation_t Op, int64_t Ld, int64_t I, int64_t J) {
    return Op == CUBLAS_OP_N ? P[J * Ld + I] : conjIf(P[I * Ld + J], Op == CUBLAS_OP_C);
  };
  // Column by column into a copy: C may be A or B (in place).
  std::vector<T> Col(static_cast<size_t>(G.M));
  for (int64_t J = 0; J < G.N; ++J) {
    for (int64_t I = 0; I < G.M; ++I) {
      T V = T(0);
      if (!isZero(Al))
        V += Al * at(A, G.TransA, G.Lda, I, J);
      if (!isZero(Be))
        V += Be * at(B, G.TransB, G.Ldb, I, J);
      Col[I] = V;
    }
    std::copy(Col.begin(), Col.end(), C + J * G.Ldc);
  }
}

} // namespace

void gemmHost(const Gemm &G) { gemmAll(G); }
void level1Host(const Level1 &L) { level1Run(L); }

void geamRun(const Geam &G) {
  switch (G.T) {
  case CUDA_R_32F: return geamTyped<float>(G);
  case CUDA_R_64F: return geamTyped<double>(G);
  case CUDA_C_32F: return geamTyped<C32>(G);
  case CUDA_C_64F: return geamTyped<C64>(G);
  default: return;
  }
}

namespace {
class CpuBackend final : public Backend {
  template <typename Op> cublasStatus_t run(Handle &H, Op Work) {
    return libs::enqueue(H.Stream, std::move(Work), H.Kept) ? CUBLAS_STATUS_EXECUTION_FAILED : CUBLAS_STATUS_SUCCESS;
  }

public:
  cublasStatus_t gemm(Handle &H, const Gemm &G) override {
    return run(H, [G] { gemmAll(G); });
  }
  cublasStatus_t level1(Handle &H, const Level1 &L) override {
    return run(H, [L] { level1Run(L); });
  }
  cublasStatus_t gemv(Handle &H, const Gemv &G) override {
    return run(H, [G] { gemvRun(G); });
  }
  cublasStatus_t geam(Handle &H, const Geam &G) override {
    return run(H, [G] { geamRun(G); });
  }
  cublasStatus_t level2(Handle &H, const Level2 &L) override {
    return run(H, [L] { level2Run(L); });
  }
  cublasStatus_t level3(Handle &H, const Level3 &L) override {
    return run(H, [L] { level3Run(L); });
  }
  cublasStatus_t lu(Handle &H, const LuBatch &L) override {
    return run(H, [L] { luRun(L); });
  }
  cublasStatus_t other(Handle &H, const char *, std::function<void()> Cpu) override { return run(H, std::move(Cpu)); }
};

} // namespace

Backend *makeCpuBackend() { return new CpuBackend; }

} // namespace zluda::cublas
