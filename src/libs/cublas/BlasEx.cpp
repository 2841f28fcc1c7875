//===- BlasEx.cpp - the level-1 Ex forms of cuBLAS --------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file cublasAxpyEx, DotEx, DotcEx, ScalEx, Nrm2Ex (and their _64 forms):
/// vectors of the types cuBLAS lists for them (f16, bf16, f32, f64, c32,
/// c64), the arithmetic in the execution type's precision (f16/bf16 vectors
/// run in f32, as cuBLAS requires them to), results rounded once to their
/// type. Closures over the elements (Backend::other); results in host memory
/// make the call blocking.
#include "libs/common/Half.h"
#include "libs/cublas/CblasEnums.h"
#include "libs/cublas/Cublas.h"

#include <cmath>
#include <complex>
#include <cstring>
#include <memory>
#include <vector>

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
/// The real type of a complex one (itself for a real type).
cudaDataType realOf(cudaDataType T) { return T == CUDA_C_32F ? CUDA_R_32F : T == CUDA_C_64F ? CUDA_R_64F : T; }
/// The execution type cuBLAS takes with vectors of type T: f32 for f16/bf16/f32, else T itself.
cudaDataType execOf(cudaDataType T) { return T == CUDA_R_16F || T == CUDA_R_16BF ? CUDA_R_32F : T; }
bool validExec(cudaDataType Vec, cudaDataType Exec) { return Exec == execOf(Vec); }
using Byte = unsigned char;
/// Bytes a vector of n entries of type T with increment inc spans.
size_t vecBytes(int64_t N, int64_t Inc, cudaDataType T) { return vecSpan(N, Inc) * elemSize(T); }
const Byte *in(const void *P) { return static_cast<const Byte *>(P); }
Byte *io(void *P) { return static_cast<Byte *>(P); }

/// A reduction's result (dot, nrm2, asum, iamax/iamin): Work(Out, arrays...) writes it to Out, which is the
/// result in device memory (device pointer mode: in stream order) or a buffer copied to the host result when
/// the work is done (host pointer mode: the call waits).
template <typename F, typename... T>
cublasStatus_t reduce(cublasHandle_t Hd, void *Result, size_t Bytes, F Work, libs::Arg<T>... Args) {
  Handle *H = handleOf(Hd);
  if (H->PointerMode == CUBLAS_POINTER_MODE_DEVICE)
    return runArrays(Hd, [=](Byte *Out, T *...P) { Work(Out, P...); }, libs::out(io(Result), Bytes), Args...);
  auto Tmp = std::make_shared<std::vector<Byte>>(Bytes);
  if (cublasStatus_t S = runArrays(Hd, [=](T *...P) { Work(Tmp->data(), P...); }, Args...))
    return S;
  if (libs::wait(H->Stream))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  std::memcpy(Result, Tmp->data(), Bytes);
  return CUBLAS_STATUS_SUCCESS;
}

/// A type combination cuBLAS does not take: logged, NOT_SUPPORTED.
cublasStatus_t refused(const char *What) {
  libs::notSupported("cuBLAS", What);
  return CUBLAS_STATUS_NOT_SUPPORTED;
}

cublasStatus_t axpy(cublasHandle_t Hd, int64_t N, const void *Alpha, cudaDataType At, const void *X, cudaDataType Xt,
                    int64_t Ix, void *Y, cudaDataType Yt, int64_t Iy, cudaDataType Exec) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!Alpha)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!known(Xt) || Xt != Yt || !validExec(Xt, Exec) || At != Exec)
    return refused("cublasAxpyEx with these types");
  if (N <= 0)
    return CUBLAS_STATUS_SUCCESS;
  Scalar A(*H, Alpha, elemSize(At));
  if (!fetch(Hd, {{&A, elemSize(At)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return runArrays(Hd, [=](const Byte *X, Byte *Y) {
    Cd Av = load(A.ptr(), At, 0);
    for (int64_t I = 0; I < N; ++I) {
      int64_t Xi = vectorAt(N, Ix, I), Yi = vectorAt(N, Iy, I);
      store(Y, Yt, Yi, load(Y, Yt, Yi) + Av * load(X, Xt, Xi), Exec);
    }
  }, libs::in(in(X), vecBytes(N, Ix, Xt)), libs::inout(io(Y), vecBytes(N, Iy, Yt)));
}

cublasStatus_t scal(cublasHandle_t Hd, int64_t N, const void *Alpha, cudaDataType At, void *X, cudaDataType Xt,
                    int64_t Ix, cudaDataType Exec) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!Alpha)
    return CUBLAS_STATUS_INVALID_VALUE;
  // alpha of the execution type (a real alpha on complex vectors is refused, as on an H200).
  if (!known(Xt) || !validExec(Xt, Exec) || At != Exec)
    return refused("cublasScalEx with these types");
  if (N <= 0 || Ix <= 0)
    return CUBLAS_STATUS_SUCCESS;
  Scalar A(*H, Alpha, elemSize(At));
  if (!fetch(Hd, {{&A, elemSize(At)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return runArrays(Hd, [=](Byte *X) {
    Cd Av = load(A.ptr(), At, 0);
    for (int64_t I = 0; I < N; ++I)
      store(X, Xt, I * Ix, Av * load(X, Xt, I * Ix), Exec);
  }, libs::inout(io(X), vecBytes(N, Ix, Xt)));
}

cublasStatus_t dot(cublasHandle_t Hd, bool Conj, int64_t N, const void *X, cudaDataType Xt, int64_t Ix,
                   const void *Y, cudaDataType Yt, int64_t Iy, void *Result, cudaDataType Rt, cudaDataType Exec) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!Result)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!known(Xt) || Xt != Yt || Rt != Xt || !validExec(Xt, Exec))
    return refused("cublasDotEx with these types");
  return reduce(Hd, Result, elemSize(Rt), [=](Byte *Result, const Byte *X, const Byte *Y) {
    Cd S = 0;
    for (int64_t I = 0; I < N; ++I) {
      Cd A = load(X, Xt, vectorAt(N, Ix, I));
      S += (Conj ? std::conj(A) : A) * load(Y, Yt, vectorAt(N, Iy, I));
    }
    store(Result, Rt, 0, N > 0 ? S : Cd(0), Exec);
  }, libs::in(in(X), vecBytes(N, Ix, Xt)), libs::in(in(Y), vecBytes(N, Iy, Yt)));
}

cublasStatus_t nrm2(cublasHandle_t Hd, int64_t N, const void *X, cudaDataType Xt, int64_t Ix, void *Result,
                    cudaDataType Rt, cudaDataType Exec) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!Result)
    return CUBLAS_STATUS_INVALID_VALUE;
  cudaDataType Real = realOf(Xt);
  bool ExecOk = complexType(Xt) ? Exec == Xt || Exec == Real : validExec(Xt, Exec);
  if (!known(Xt) || Rt != Real || !ExecOk)
    return refused("cublasNrm2Ex with these types");
  return reduce(Hd, Result, elemSize(Rt), [=](Byte *Result, const Byte *X) {
    double S = 0;
    if (Ix > 0)
      for (int64_t I = 0; I < N; ++I)
        S += std::norm(load(X, Xt, I * Ix));
    store(Result, Rt, 0, std::sqrt(S), Exec);
  }, libs::in(in(X), Ix > 0 ? vecBytes(N, Ix, Xt) : 0));
}

/// asum (sum of |re| + |im|), iamax/iamin (1-based index of the first extreme |re| + |im|; 0 when n <= 0 or
/// incx <= 0). Types as an H200's cuBLAS takes them: asum's result is the vector's real type (f32 for f16/bf16),
/// its execution type execOf(x); iamax/iamin on f16, bf16, f32, f64, c32, c64.
cublasStatus_t asum(cublasHandle_t Hd, int64_t N, const void *X, cudaDataType Xt, int64_t Ix, void *Result,
                    cudaDataType Rt, cudaDataType Exec) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!Result)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!known(Xt) || Rt != realOf(execOf(Xt)) || !validExec(Xt, Exec))
    return refused("cublasAsumEx with these types");
  return reduce(Hd, Result, elemSize(Rt), [=](Byte *Result, const Byte *X) {
    double S = 0;
    if (Ix > 0)
      for (int64_t I = 0; I < N; ++I) {
        Cd V = load(X, Xt, I * Ix);
        S += std::abs(V.real()) + std::abs(V.imag());
      }
    store(Result, Rt, 0, S, Exec);
  }, libs::in(in(X), Ix > 0 ? vecBytes(N, Ix, Xt) : 0));
}

cublasStatus_t iamax(cublasHandle_t Hd, bool Max, int64_t N, const void *X, cudaDataType Xt, int64_t Ix,
                     void *Result, bool Result64) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!Result)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!known(Xt))
    return refused(Max ? "cublasIamaxEx with this type" : "cublasIaminEx with this type");
  return reduce(Hd, Result, Result64 ? sizeof(int64_t) : sizeof(int), [=](Byte *Result, const Byte *X) {
    int64_t Best = 0;
    if (N > 0 && Ix > 0) {
      double B = 0;
      for (int64_t I = 0; I < N; ++I) {
        Cd V = load(X, Xt, I * Ix);
        double A = std::abs(V.real()) + std::abs(V.imag());
        if (I == 0 || (Max ? A > B : A < B)) {
          B = A;
          Best = I + 1;
        }
      }
    }
    if (Result64) {
      std::memcpy(Result, &Best, sizeof Best);
    } else {
      const int B32 = static_cast<int>(Best);
      std::memcpy(Result, &B32, sizeof B32);
    }
  }, libs::in(in(X), N > 0 && Ix > 0 ? vecBytes(N, Ix, Xt) : 0));
}

/// copy and swap: element moves, x and y of one type (as an H200's cuBLAS requires).
cublasStatus_t copySwap(cublasHandle_t Hd, bool Swap, int64_t N, void *X, cudaDataType Xt, int64_t Ix, void *Y,
                        cudaDataType Yt, int64_t Iy) {
  if (!handleOf(Hd))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!known(Xt) || Xt != Yt)
    return refused(Swap ? "cublasSwapEx with these types" : "cublasCopyEx with these types");
  if (N <= 0)
    return CUBLAS_STATUS_SUCCESS;
  size_t E = elemSize(Xt);
  return runArrays(Hd, [=](Byte *Xb, Byte *Yb) {
    unsigned char T[16];
    for (int64_t I = 0; I < N; ++I) {
      unsigned char *A = Xb + vectorAt(N, Ix, I) * E, *B = Yb + vectorAt(N, Iy, I) * E;
      if (Swap) {
        std::memcpy(T, B, E);
        std::memcpy(B, A, E);
        std::memcpy(A, T, E);
      } else {
        std::memcpy(B, A, E);
      }
    }
  }, libs::inout(io(X), vecBytes(N, Ix, Xt)), libs::inout(io(Y), vecBytes(N, Iy, Yt)));
}

/// rot: x' = c x + s y, y' = c y - conj(s) x with c real; s real (cs of the vector's real type) or, for complex
/// vectors, complex (cs of the vector's type: c is then its real part).
cublasStatus_t rot(cublasHandle_t Hd, int64_t N, void *X, cudaDataType Xt, int64_t Ix, void *Y, cudaDataType Yt,
                   int64_t Iy, const void *C, const void *S, cudaDataType Cst, cudaDataType Exec) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!C || !S)
    return CUBLAS_STATUS_INVALID_VALUE;
  bool CsOk = Cst == Xt || (complexType(Xt) && Cst == realOf(Xt));
  if (!known(Xt) || Xt != Yt || !CsOk || !validExec(Xt, Exec))
    return refused("cublasRotEx with these types");
  if (N <= 0)
    return CUBLAS_STATUS_SUCCESS;
  Scalar Cs(*H, C, elemSize(Cst)), Ss(*H, S, elemSize(Cst));
  if (!fetch(Hd, {{&Cs, elemSize(Cst)}, {&Ss, elemSize(Cst)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return runArrays(Hd, [=](Byte *X, Byte *Y) {
    double Cv = load(Cs.ptr(), Cst, 0).real();
    Cd Sv = load(Ss.ptr(), Cst, 0);
    for (int64_t I = 0; I < N; ++I) {
      int64_t Xi = vectorAt(N, Ix, I), Yi = vectorAt(N, Iy, I);
      Cd A = load(X, Xt, Xi), B = load(Y, Yt, Yi);
      store(X, Xt, Xi, Cv * A + Sv * B, Exec);
      store(Y, Yt, Yi, Cv * B - std::conj(Sv) * A, Exec);
    }
  }, libs::inout(io(X), vecBytes(N, Ix, Xt)), libs::inout(io(Y), vecBytes(N, Iy, Yt)));
}

/// The real-only ones (rotm, rotg, rotmg): f16, bf16, f32 in f32, f64 in f64; values through double and
/// OpenBLAS's drot* and rounded once to their type.
bool realRotTypes(cudaDataType T, cudaDataType Exec) {
  return (T == CUDA_R_16F || T == CUDA_R_16BF || T == CUDA_R_32F || T == CUDA_R_64F) && Exec == execOf(T);
}

cublasStatus_t rotm(cublasHandle_t Hd, int64_t N, void *X, cudaDataType Xt, int64_t Ix, void *Y, cudaDataType Yt,
                    int64_t Iy, const void *Param, cudaDataType Pt, cudaDataType Exec) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!Param)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!realRotTypes(Xt, Exec) || Yt != Xt || Pt != Xt)
    return refused("cublasRotmEx with these types");
  if (N <= 0)
    return CUBLAS_STATUS_SUCCESS;
  struct P5 {
    double V[5];
  } Copy{};
  bool Dev = H->PointerMode == CUBLAS_POINTER_MODE_DEVICE;
  if (!Dev) // host parameters are read at the call
    for (int I = 0; I < 5; ++I)
      Copy.V[I] = load(Param, Pt, I).real();
  return runArrays(Hd, [=](Byte *X, Byte *Y, const Byte *Param) {
    P5 P = Copy;
    if (Dev)
      for (int I = 0; I < 5; ++I)
        P.V[I] = load(Param, Pt, I).real();
    for (int64_t I = 0; I < N; ++I) {
      int64_t Xi = vectorAt(N, Ix, I), Yi = vectorAt(N, Iy, I);
      double A = load(X, Xt, Xi).real(), B = load(Y, Yt, Yi).real();
      cblas_drotm(1, &A, 1, &B, 1, P.V);
      store(X, Xt, Xi, A, Exec);
      store(Y, Yt, Yi, B, Exec);
    }
  }, libs::inout(io(X), vecBytes(N, Ix, Xt)), libs::inout(io(Y), vecBytes(N, Iy, Yt)),
     libs::in(Dev ? in(Param) : nullptr, 5 * elemSize(Pt)));
}

cublasStatus_t rotg(cublasHandle_t Hd, void *A, void *B, cudaDataType Abt, void *C, void *S, cudaDataType Cst,
                    cudaDataType Exec) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!A || !B || !C || !S)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!realRotTypes(Abt, Exec) || Cst != Abt)
    return refused("cublasRotgEx with these types");
  auto Work = [=](void *A, void *B, void *C, void *S) {
    double Av = load(A, Abt, 0).real(), Bv = load(B, Abt, 0).real(), Cv = 0, Sv = 0;
    cblas_drotg(&Av, &Bv, &Cv, &Sv);
    store(A, Abt, 0, Av, Exec);
    store(B, Abt, 0, Bv, Exec);
    store(C, Cst, 0, Cv, Exec);
    store(S, Cst, 0, Sv, Exec);
  };
  if (H->PointerMode == CUBLAS_POINTER_MODE_HOST) // host memory: now, after the queued work
    return runNow(Hd, [=] { Work(A, B, C, S); });
  const size_t Ab = elemSize(Abt), Cb = elemSize(Cst);
  return runArrays(Hd, [=](Byte *A, Byte *B, Byte *C, Byte *S) { Work(A, B, C, S); }, libs::inout(io(A), Ab),
                   libs::inout(io(B), Ab), libs::inout(io(C), Cb), libs::inout(io(S), Cb));
}

cublasStatus_t rotmg(cublasHandle_t Hd, void *D1, cudaDataType D1t, void *D2, cudaDataType D2t, void *X1,
                     cudaDataType X1t, const void *Y1, cudaDataType Y1t, void *Param, cudaDataType Pt,
                     cudaDataType Exec) {
  Handle *H = handleOf(Hd);
  if (!H)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!D1 || !D2 || !X1 || !Y1 || !Param)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!realRotTypes(D1t, Exec) || D2t != D1t || X1t != D1t || Y1t != D1t || Pt != D1t)
    return refused("cublasRotmgEx with these types");
  auto Work = [=](void *D1, void *D2, void *X1, const void *Y1, void *Param) {
    double D1v = load(D1, D1t, 0).real(), D2v = load(D2, D2t, 0).real(), X1v = load(X1, X1t, 0).real();
    double P[5] = {};
    cblas_drotmg(&D1v, &D2v, &X1v, load(Y1, Y1t, 0).real(), P);
    store(D1, D1t, 0, D1v, Exec);
    store(D2, D2t, 0, D2v, Exec);
    store(X1, X1t, 0, X1v, Exec);
    for (int I = 0; I < 5; ++I)
      store(Param, Pt, I, P[I], Exec);
  };
  if (H->PointerMode == CUBLAS_POINTER_MODE_HOST) // host memory: now, after the queued work
    return runNow(Hd, [=] { Work(D1, D2, X1, Y1, Param); });
  const size_t E = elemSize(D1t);
  return runArrays(Hd, [=](Byte *D1, Byte *D2, Byte *X1, const Byte *Y1, Byte *Param) { Work(D1, D2, X1, Y1, Param); },
                   libs::inout(io(D1), E), libs::inout(io(D2), E), libs::inout(io(X1), E), libs::in(in(Y1), E),
                   libs::inout(io(Param), 5 * E));
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
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasAsumEx##Sfx(cublasHandle_t H, I N, const void *X, cudaDataType Xt, I Ix, void *R,    \
                                              cudaDataType Rt, cudaDataType Exec) {                                    \
    return asum(H, N, X, Xt, Ix, R, Rt, Exec);                                                                         \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasIamaxEx##Sfx(cublasHandle_t H, I N, const void *X, cudaDataType Xt, I Ix, I *R) {    \
    return iamax(H, true, N, X, Xt, Ix, R, sizeof(I) == 8);                                                            \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasIaminEx##Sfx(cublasHandle_t H, I N, const void *X, cudaDataType Xt, I Ix, I *R) {    \
    return iamax(H, false, N, X, Xt, Ix, R, sizeof(I) == 8);                                                           \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasCopyEx##Sfx(cublasHandle_t H, I N, const void *X, cudaDataType Xt, I Ix, void *Y,    \
                                              cudaDataType Yt, I Iy) {                                                 \
    return copySwap(H, false, N, const_cast<void *>(X), Xt, Ix, Y, Yt, Iy);                                            \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasSwapEx##Sfx(cublasHandle_t H, I N, void *X, cudaDataType Xt, I Ix, void *Y,          \
                                              cudaDataType Yt, I Iy) {                                                 \
    return copySwap(H, true, N, X, Xt, Ix, Y, Yt, Iy);                                                                 \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasRotEx##Sfx(cublasHandle_t H, I N, void *X, cudaDataType Xt, I Ix, void *Y,           \
                                             cudaDataType Yt, I Iy, const void *C, const void *S, cudaDataType Cst,    \
                                             cudaDataType Exec) {                                                      \
    return rot(H, N, X, Xt, Ix, Y, Yt, Iy, C, S, Cst, Exec);                                                           \
  }                                                                                                                    \
  CUBLAS_API cublasStatus_t cublasRotmEx##Sfx(cublasHandle_t H, I N, void *X, cudaDataType Xt, I Ix, void *Y,          \
                                              cudaDataType Yt, I Iy, const void *P, cudaDataType Pt,                   \
                                              cudaDataType Exec) {                                                     \
    return rotm(H, N, X, Xt, Ix, Y, Yt, Iy, P, Pt, Exec);                                                              \
  }
EX_FORMS(int, )
EX_FORMS(int64_t, _64)

CUBLAS_API cublasStatus_t cublasRotgEx(cublasHandle_t H, void *A, void *B, cudaDataType Abt, void *C, void *S,
                                       cudaDataType Cst, cudaDataType Exec) {
  return rotg(H, A, B, Abt, C, S, Cst, Exec);
}
CUBLAS_API cublasStatus_t cublasRotmgEx(cublasHandle_t H, void *D1, cudaDataType D1t, void *D2, cudaDataType D2t,
                                        void *X1, cudaDataType X1t, const void *Y1, cudaDataType Y1t, void *P,
                                        cudaDataType Pt, cudaDataType Exec) {
  return rotmg(H, D1, D1t, D2, D2t, X1, X1t, Y1, Y1t, P, Pt, Exec);
}
