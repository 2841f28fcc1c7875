//===- BlasEx.cpp - the level-1 Ex forms of cuBLAS --------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file cublasAxpyEx, DotEx, DotcEx, ScalEx, Nrm2Ex (and their _64 forms):
/// vectors of the types cuBLAS lists for them (f16, bf16, f32, f64, c32,
/// c64), the arithmetic in the execution type's precision (f16/bf16 vectors
/// run in f32, as cuBLAS requires them to), results rounded once to their
/// type. Closures over the elements (Backend::other); results in host memory
/// make the call blocking.
#include "libs/common/Half.h"
#include "libs/cublas/Cublas.h"

#include <cmath>
#include <complex>

using namespace zluda::cublas;
namespace libs = zluda::libs;

namespace {

using Cd = std::complex<double>;

bool known(cudaDataType T) {
  return T == CUDA_R_16F || T == CUDA_R_16BF || T == CUDA_R_32F || T == CUDA_R_64F || T == CUDA_C_32F ||
         T == CUDA_C_64F;
}
bool complexType(cudaDataType T) { return T == CUDA_C_32F || T == CUDA_C_64F; }

Cd load(const void *P, cudaDataType T, int64_t I) {
  switch (T) {
  case CUDA_R_16F: return libs::halfToFloat(static_cast<const uint16_t *>(P)[I]);
  case CUDA_R_16BF: return libs::bf16ToFloat(static_cast<const uint16_t *>(P)[I]);
  case CUDA_R_32F: return static_cast<const float *>(P)[I];
  case CUDA_R_64F: return static_cast<const double *>(P)[I];
  case CUDA_C_32F: return Cd(static_cast<const float *>(P)[2 * I], static_cast<const float *>(P)[2 * I + 1]);
  case CUDA_C_64F: return Cd(static_cast<const double *>(P)[2 * I], static_cast<const double *>(P)[2 * I + 1]);
  default: return 0;
  }
}
/// Stores \p V as \p T; the execution type's precision first (f32 rounds there once).
void store(void *P, cudaDataType T, int64_t I, Cd V, cudaDataType Exec) {
  if (Exec == CUDA_R_32F || Exec == CUDA_C_32F)
    V = Cd(float(V.real()), float(V.imag()));
  switch (T) {
  case CUDA_R_16F: static_cast<uint16_t *>(P)[I] = libs::floatToHalf(float(V.real())); return;
  case CUDA_R_16BF: static_cast<uint16_t *>(P)[I] = libs::floatToBf16(float(V.real())); return;
  case CUDA_R_32F: static_cast<float *>(P)[I] = float(V.real()); return;
  case CUDA_R_64F: static_cast<double *>(P)[I] = V.real(); return;
  case CUDA_C_32F:
    static_cast<float *>(P)[2 * I] = float(V.real());
    static_cast<float *>(P)[2 * I + 1] = float(V.imag());
    return;
  case CUDA_C_64F:
    static_cast<double *>(P)[2 * I] = V.real();
    static_cast<double *>(P)[2 * I + 1] = V.imag();
    return;
  default: return;
  }
}
/// Index of element \p I of a vector with increment \p Inc (BLAS: negative increments start at the end).
int64_t at(int64_t N, int64_t Inc, int64_t I) { return Inc < 0 ? (N - 1 - I) * -Inc : I * Inc; }

/// The execution types cuBLAS takes: f32 for f16/bf16/f32 vectors, f64, c32, c64 for theirs.
bool validExec(cudaDataType Vec, cudaDataType Exec) {
  if (Vec == CUDA_R_16F || Vec == CUDA_R_16BF || Vec == CUDA_R_32F)
    return Exec == CUDA_R_32F;
  return Exec == Vec;
}

cublasStatus_t axpy(cublasHandle_t Hd, int64_t N, const void *Alpha, cudaDataType At, const void *X, cudaDataType Xt,
                    int64_t Ix, void *Y, cudaDataType Yt, int64_t Iy, cudaDataType Exec) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!Alpha)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!known(Xt) || Xt != Yt || !validExec(Xt, Exec) || At != Exec) {
    libs::notSupported("cuBLAS", "cublasAxpyEx with these types");
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  if (N <= 0)
    return CUBLAS_STATUS_SUCCESS;
  Scalar A(*H, Alpha, elemSize(At));
  return runOther(Hd, "AxpyEx", [=] {
    Cd Av = load(A.ptr(), At, 0);
    for (int64_t I = 0; I < N; ++I) {
      int64_t Xi = at(N, Ix, I), Yi = at(N, Iy, I);
      store(Y, Yt, Yi, load(Y, Yt, Yi) + Av * load(X, Xt, Xi), Exec);
    }
  }, false);
}

cublasStatus_t scal(cublasHandle_t Hd, int64_t N, const void *Alpha, cudaDataType At, void *X, cudaDataType Xt,
                    int64_t Ix, cudaDataType Exec) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!Alpha)
    return CUBLAS_STATUS_INVALID_VALUE;
  // alpha of the execution type (a real alpha on complex vectors is refused, as on an H200).
  if (!known(Xt) || !validExec(Xt, Exec) || At != Exec) {
    libs::notSupported("cuBLAS", "cublasScalEx with these types");
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  if (N <= 0 || Ix <= 0)
    return CUBLAS_STATUS_SUCCESS;
  Scalar A(*H, Alpha, elemSize(At));
  return runOther(Hd, "ScalEx", [=] {
    Cd Av = load(A.ptr(), At, 0);
    for (int64_t I = 0; I < N; ++I)
      store(X, Xt, I * Ix, Av * load(X, Xt, I * Ix), Exec);
  }, false);
}

cublasStatus_t dot(cublasHandle_t Hd, bool Conj, int64_t N, const void *X, cudaDataType Xt, int64_t Ix,
                   const void *Y, cudaDataType Yt, int64_t Iy, void *Result, cudaDataType Rt, cudaDataType Exec) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!Result)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!known(Xt) || Xt != Yt || Rt != Xt || !validExec(Xt, Exec)) {
    libs::notSupported("cuBLAS", "cublasDotEx with these types");
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  return runOther(Hd, Conj ? "DotcEx" : "DotEx", [=] {
    Cd S = 0;
    for (int64_t I = 0; I < N; ++I) {
      Cd A = load(X, Xt, at(N, Ix, I));
      S += (Conj ? std::conj(A) : A) * load(Y, Yt, at(N, Iy, I));
    }
    store(Result, Rt, 0, N > 0 ? S : Cd(0), Exec);
  }, H->PointerMode == CUBLAS_POINTER_MODE_HOST);
}

cublasStatus_t nrm2(cublasHandle_t Hd, int64_t N, const void *X, cudaDataType Xt, int64_t Ix, void *Result,
                    cudaDataType Rt, cudaDataType Exec) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!Result)
    return CUBLAS_STATUS_INVALID_VALUE;
  cudaDataType Real = Xt == CUDA_C_32F ? CUDA_R_32F : Xt == CUDA_C_64F ? CUDA_R_64F : Xt;
  bool ExecOk = complexType(Xt) ? Exec == Xt || Exec == Real : validExec(Xt, Exec);
  if (!known(Xt) || Rt != Real || !ExecOk) {
    libs::notSupported("cuBLAS", "cublasNrm2Ex with these types");
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  return runOther(Hd, "Nrm2Ex", [=] {
    double S = 0;
    if (Ix > 0)
      for (int64_t I = 0; I < N; ++I)
        S += std::norm(load(X, Xt, I * Ix));
    store(Result, Rt, 0, std::sqrt(S), Exec);
  }, H->PointerMode == CUBLAS_POINTER_MODE_HOST);
}

} // namespace

#define EX_FORMS(I, Sfx)                                                                                               \
  CUBLAS_API cublasStatus_t cublasAxpyEx##Sfx(cublasHandle_t H, I N, const void *Alpha, cudaDataType At,               \
                                              const void *X, cudaDataType Xt, I Ix, void *Y, cudaDataType Yt, I Iy,    \
                                              cudaDataType Exec) {                                                     \
    return axpy(H, N, Alpha, At, X, Xt, Ix, Y, Yt, Iy, Exec);                                                          \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasScalEx##Sfx(cublasHandle_t H, I N, const void *Alpha, cudaDataType At, void *X,      \
                                              cudaDataType Xt, I Ix, cudaDataType Exec) {                              \
    return scal(H, N, Alpha, At, X, Xt, Ix, Exec);                                                                     \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasDotEx##Sfx(cublasHandle_t H, I N, const void *X, cudaDataType Xt, I Ix,              \
                                             const void *Y, cudaDataType Yt, I Iy, void *R, cudaDataType Rt,           \
                                             cudaDataType Exec) {                                                      \
    return dot(H, false, N, X, Xt, Ix, Y, Yt, Iy, R, Rt, Exec);                                                        \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasDotcEx##Sfx(cublasHandle_t H, I N, const void *X, cudaDataType Xt, I Ix,             \
                                              const void *Y, cudaDataType Yt, I Iy, void *R, cudaDataType Rt,          \
                                              cudaDataType Exec) {                                                     \
    return dot(H, true, N, X, Xt, Ix, Y, Yt, Iy, R, Rt, Exec);                                                         \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasNrm2Ex##Sfx(cublasHandle_t H, I N, const void *X, cudaDataType Xt, I Ix, void *R,    \
                                              cudaDataType Rt, cudaDataType Exec) {                                    \
    return nrm2(H, N, X, Xt, Ix, R, Rt, Exec);                                                                         \
  }
EX_FORMS(int, )
EX_FORMS(int64_t, _64)
