//===- DnGeneric.cpp - cuSOLVER: the 64-bit generic dense API ---------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file cusolverDnX* (PyTorch's): the LAPACK routines of the typed API with element types from
/// cudaDataType, and Xtrtri, Xsytrs, Xsyevdx, XsyevBatched, Xgeev.
#include "libs/cusolver/DnInternal.h"

using namespace zluda;
using namespace zluda::cusolver;
using namespace zluda::cusolver::dn;

//===----------------------------------------------------------------------===//
// The 64-bit generic API (cusolverDnX*, PyTorch's): the same LAPACK routines,
// element types from cudaDataType (the data's type must be the compute
// type), sizes up to LAPACK's 32-bit integers, 64-bit pivots widened.
//===----------------------------------------------------------------------===//

CUSOLVER_API cusolverStatus_t cusolverDnCreateParams(void **Out) {
  if (!Out)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Out = new Params;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnDestroyParams(void *P) {
  delete static_cast<Params *>(P);
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnSetAdvOptions(void *P, int, int Algo) {
  // CUSOLVER_ALG_0 (and ALG_1, the other algorithm of some routines) all map to LAPACK.
  return P && (Algo == 0 || Algo == 1) ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_INVALID_VALUE;
}

CUSOLVER_API cusolverStatus_t cusolverDnXgetrf_bufferSize(cusolverDnHandle_t H, void *, int64_t M, int64_t N,
                                                         cudaDataType TA, const void *, int64_t Lda,
                                                         cudaDataType TC, size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!fits(M) || !fits(N) || Lda < std::max<int64_t>(1, M) || TA != TC)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return sizes(Dev, Host, 16);
}
CUSOLVER_API cusolverStatus_t cusolverDnXgetrf(cusolverDnHandle_t Hd, void *, int64_t M, int64_t N, cudaDataType TA,
                                              void *A, int64_t Lda, int64_t *Ipiv, cudaDataType TC, void *, size_t,
                                              void *, size_t, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!fits(M) || !fits(N) || !fits(Lda) || Lda < std::max<int64_t>(1, M) || TA != TC || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    return submit(
        H,
        [=](T *P, int64_t *Ipiv, int *Info) {
      int Mi = int(M), Ni = int(N), L = int(Lda), I = 0;
      if (Mi && Ni) {
        if (Ipiv) {
          std::vector<int> Piv(static_cast<size_t>(std::min(Mi, Ni)));
          La<T>::getrf(&Mi, &Ni, P, &L, Piv.data(), &I);
          for (size_t K = 0; K < Piv.size(); ++K)
            Ipiv[K] = Piv[K];
        } else {
          I = luNoPivot(Mi, Ni, P, L);
        }
      }
      *Info = I;
        },
        libs::inout(static_cast<T *>(A), mat(Lda, M, N)), libs::out(Ipiv, size_t(std::min(M, N))),
        libs::out(Info, 1));
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXgetrs(cusolverDnHandle_t Hd, void *, cublasOperation_t Op, int64_t N,
                                              int64_t Nrhs, cudaDataType TA, const void *A, int64_t Lda,
                                              const int64_t *Ipiv, cudaDataType TB, void *B, int64_t Ldb, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validOp(Op) || !fits(N) || !fits(Nrhs) || !fits(Lda) || !fits(Ldb) || Lda < std::max<int64_t>(1, N) ||
      Ldb < std::max<int64_t>(1, N) || TA != TB || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    return submit(
        H,
        [=](T *A, int64_t *Ipiv, T *B, int *Info) {
      int Ni = int(N), R = int(Nrhs), La_ = int(Lda), Lb = int(Ldb), I = 0;
      char Tr = opChar(Op);
      if (Ni && R) {
        std::vector<int> Piv(static_cast<size_t>(Ni));
        for (int K = 0; K < Ni; ++K)
          Piv[static_cast<size_t>(K)] = Ipiv ? int(Ipiv[K]) : K + 1;
        La<T>::getrs(&Tr, &Ni, &R, A, &La_, Piv.data(), B, &Lb, &I);
      }
      *Info = I;
        },
        libs::in(static_cast<const T *>(A), mat(Lda, N, N)), libs::in(Ipiv, size_t(N)),
        libs::inout(static_cast<T *>(B), mat(Ldb, N, Nrhs)), libs::out(Info, 1));
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXpotrf_bufferSize(cusolverDnHandle_t H, void *, cublasFillMode_t U,
                                                         int64_t N, cudaDataType TA, const void *, int64_t Lda,
                                                         cudaDataType TC, size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || !fits(N) || Lda < std::max<int64_t>(1, N) || TA != TC)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return sizes(Dev, Host, 16);
}
CUSOLVER_API cusolverStatus_t cusolverDnXpotrf(cusolverDnHandle_t Hd, void *, cublasFillMode_t U, int64_t N,
                                              cudaDataType TA, void *A, int64_t Lda, cudaDataType TC, void *, size_t,
                                              void *, size_t, int *Info) {
  if (!fits(N) || !fits(Lda) || TA != TC)
    return find(Hd) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    return potrf<T>(Hd, U, int(N), static_cast<T *>(A), int(Lda), Info);
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXpotrs(cusolverDnHandle_t Hd, void *, cublasFillMode_t U, int64_t N,
                                              int64_t Nrhs, cudaDataType TA, const void *A, int64_t Lda,
                                              cudaDataType TB, void *B, int64_t Ldb, int *Info) {
  if (!fits(N) || !fits(Nrhs) || !fits(Lda) || !fits(Ldb) || TA != TB)
    return find(Hd) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    return potrs<T>(Hd, U, int(N), int(Nrhs), static_cast<const T *>(A), int(Lda), static_cast<T *>(B), int(Ldb),
                    Info);
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXgeqrf_bufferSize(cusolverDnHandle_t H, void *, int64_t M, int64_t N,
                                                         cudaDataType TA, const void *, int64_t Lda, cudaDataType TT,
                                                         const void *, cudaDataType TC, size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!fits(M) || !fits(N) || Lda < std::max<int64_t>(1, M) || TA != TC || TT != TA)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return sizes(Dev, Host, 16);
}
CUSOLVER_API cusolverStatus_t cusolverDnXgeqrf(cusolverDnHandle_t Hd, void *, int64_t M, int64_t N, cudaDataType TA,
                                              void *A, int64_t Lda, cudaDataType TT, void *Tau, cudaDataType TC,
                                              void *, size_t, void *, size_t, int *Info) {
  if (!fits(M) || !fits(N) || !fits(Lda) || TA != TC || TT != TA)
    return find(Hd) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    return geqrf<T>(Hd, int(M), int(N), static_cast<T *>(A), int(Lda), static_cast<T *>(Tau), Info);
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXsyevd_bufferSize(cusolverDnHandle_t H, void *, cusolverEigMode_t J,
                                                         cublasFillMode_t U, int64_t N, cudaDataType TA, const void *,
                                                         int64_t Lda, cudaDataType TW, const void *, cudaDataType TC,
                                                         size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || !fits(N) || Lda < std::max<int64_t>(1, N) || TA != TC || TW != realOf(TA) ||
      (J != CUSOLVER_EIG_MODE_NOVECTOR && J != CUSOLVER_EIG_MODE_VECTOR))
    return CUSOLVER_STATUS_INVALID_VALUE;
  return sizes(Dev, Host, 16);
}
CUSOLVER_API cusolverStatus_t cusolverDnXsyevd(cusolverDnHandle_t Hd, void *, cusolverEigMode_t J, cublasFillMode_t U,
                                              int64_t N, cudaDataType TA, void *A, int64_t Lda, cudaDataType TW,
                                              void *W, cudaDataType TC, void *, size_t, void *, size_t, int *Info) {
  if (!fits(N) || !fits(Lda) || TA != TC || TW != realOf(TA))
    return find(Hd) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    return syevd<T>(Hd, J, U, int(N), static_cast<T *>(A), int(Lda), static_cast<typename Real<T>::Type *>(W), Info);
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXgesvd_bufferSize(cusolverDnHandle_t H, void *, signed char, signed char,
                                                         int64_t M, int64_t N, cudaDataType TA, const void *, int64_t,
                                                         cudaDataType TS, const void *, cudaDataType TU, const void *,
                                                         int64_t, cudaDataType TV, const void *, int64_t,
                                                         cudaDataType TC, size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!fits(M) || !fits(N) || M < N || TA != TC || TS != realOf(TA) || TU != TA || TV != TA)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return sizes(Dev, Host, 16);
}
CUSOLVER_API cusolverStatus_t cusolverDnXgesvd(cusolverDnHandle_t Hd, void *, signed char Ju, signed char Jv,
                                              int64_t M, int64_t N, cudaDataType TA, void *A, int64_t Lda,
                                              cudaDataType TS, void *S, cudaDataType TU, void *U, int64_t Ldu,
                                              cudaDataType TV, void *Vt, int64_t Ldvt, cudaDataType TC, void *, size_t,
                                              void *, size_t, int *Info) {
  if (!fits(M) || !fits(N) || !fits(Lda) || !fits(Ldu) || !fits(Ldvt) || TA != TC || TS != realOf(TA) || TU != TA ||
      TV != TA)
    return find(Hd) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    return gesvd<T>(Hd, Ju, Jv, int(M), int(N), static_cast<T *>(A), int(Lda),
                    static_cast<typename Real<T>::Type *>(S), static_cast<T *>(U), int(Ldu), static_cast<T *>(Vt),
                    int(Ldvt), Info);
  });
}

//===----------------------------------------------------------------------===//
// More of the 64-bit generic API: Xtrtri, Xsytrs (sytrf's pivots, 64-bit),
// Xsyevdx, XsyevBatched (matrices lda * n apart), Xgeev (general matrices:
// LAPACK's geev; for real A the eigenvalues are complex of A's precision
// and the eigenvectors real, a complex pair's vectors in two columns, as
// LAPACK packs them). Sizes up to LAPACK's 32-bit integers.
//===----------------------------------------------------------------------===//

CUSOLVER_API cusolverStatus_t cusolverDnXtrtri_bufferSize(cusolverDnHandle_t H, cublasFillMode_t U,
                                                         cublasDiagType_t D, int64_t N, cudaDataType TA, void *,
                                                         int64_t Lda, size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || (D != CUBLAS_DIAG_NON_UNIT && D != CUBLAS_DIAG_UNIT) || !fits(N) ||
      Lda < std::max<int64_t>(1, N) || !fits(Lda))
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto) { return sizes(Dev, Host, 16); });
}
CUSOLVER_API cusolverStatus_t cusolverDnXtrtri(cusolverDnHandle_t Hd, cublasFillMode_t U, cublasDiagType_t D,
                                              int64_t N, cudaDataType TA, void *A, int64_t Lda, void *, size_t, void *,
                                              size_t, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || (D != CUBLAS_DIAG_NON_UNIT && D != CUBLAS_DIAG_UNIT) || !fits(N) || !fits(Lda) ||
      Lda < std::max<int64_t>(1, N) || !Info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    int Ni = int(N), L = int(Lda);
    return submit(
        H,
        [=](T *A, int *Info) {
          int I = 0;
          if (Ni)
            MiscLa<T>::trtri(fillChar(U), D == CUBLAS_DIAG_UNIT ? 'U' : 'N', Ni, A, L, &I);
          *Info = I;
        },
        libs::inout(static_cast<T *>(A), mat(L, Ni, Ni)), libs::out(Info, 1));
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXsytrs_bufferSize(cusolverDnHandle_t H, cublasFillMode_t U, int64_t N,
                                                         int64_t Nrhs, cudaDataType TA, const void *, int64_t Lda,
                                                         const int64_t *, cudaDataType TB, void *, int64_t Ldb,
                                                         size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || !fits(N) || !fits(Nrhs) || Lda < std::max<int64_t>(1, N) || Ldb < std::max<int64_t>(1, N) ||
      TA != TB)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto) { return sizes(Dev, Host, 16); });
}
CUSOLVER_API cusolverStatus_t cusolverDnXsytrs(cusolverDnHandle_t Hd, cublasFillMode_t U, int64_t N, int64_t Nrhs,
                                              cudaDataType TA, const void *A, int64_t Lda, const int64_t *Ipiv,
                                              cudaDataType TB, void *B, int64_t Ldb, void *, size_t, void *, size_t,
                                              int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validFill(U) || !fits(N) || !fits(Nrhs) || !fits(Lda) || !fits(Ldb) || Lda < std::max<int64_t>(1, N) ||
      Ldb < std::max<int64_t>(1, N) || TA != TB || !Info || (N && !Ipiv))
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    int Ni = int(N), R = int(Nrhs), La_ = int(Lda), Lb = int(Ldb);
    return submit(
        H,
        [=](T *A, int64_t *Ipiv, T *B, int *Info) {
          int I = 0;
          if (Ni && R) {
            std::vector<int> P(Ipiv, Ipiv + Ni); // 64-bit pivots narrowed for LAPACK
            MiscLa<T>::sytrs(fillChar(U), Ni, R, A, La_, P.data(), B, Lb, &I);
          }
          *Info = I;
        },
        libs::in(static_cast<const T *>(A), mat(La_, Ni, Ni)), libs::in(Ipiv, size_t(Ni)),
        libs::inout(static_cast<T *>(B), mat(Lb, Ni, R)), libs::out(Info, 1));
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXsyevdx_bufferSize(cusolverDnHandle_t H, void *, cusolverEigMode_t J,
                                                          cusolverEigRange_t Rg, cublasFillMode_t U, int64_t N,
                                                          cudaDataType TA, const void *, int64_t Lda, void *, void *,
                                                          int64_t, int64_t, int64_t *, cudaDataType TW, const void *,
                                                          cudaDataType TC, size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validMode(J) || !validRange(Rg) || !validFill(U) || !fits(N) || Lda < std::max<int64_t>(1, N) || TA != TC ||
      TW != realOf(TA))
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto) { return sizes(Dev, Host, 16); });
}
CUSOLVER_API cusolverStatus_t cusolverDnXsyevdx(cusolverDnHandle_t Hd, void *, cusolverEigMode_t J,
                                               cusolverEigRange_t Rg, cublasFillMode_t U, int64_t N, cudaDataType TA,
                                               void *A, int64_t Lda, void *Vl, void *Vu, int64_t Il, int64_t Iu,
                                               int64_t *Meig, cudaDataType TW, void *W, cudaDataType TC, void *,
                                               size_t, void *, size_t, int *Info) {
  if (!fits(N) || !fits(Lda) || !fits(Il) || !fits(Iu) || TA != TC || TW != realOf(TA) || !Meig ||
      (Rg == CUSOLVER_EIG_RANGE_V && (!Vl || !Vu)))
    return find(Hd) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    using R = typename Real<T>::Type;
    R L = Rg == CUSOLVER_EIG_RANGE_V ? *static_cast<R *>(Vl) : R(0), Hi = Rg == CUSOLVER_EIG_RANGE_V ? *static_cast<R *>(Vu) : R(0);
    int M = 0;
    cusolverStatus_t S = eigen<T>(Hd, 0, J, int(Rg), U, int(N), static_cast<T *>(A), int(Lda), nullptr, 0, L, Hi,
                                  int(Il), int(Iu), &M, static_cast<R *>(W), Info);
    if (!S)
      *Meig = M;
    return S;
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXsyevBatched_bufferSize(cusolverDnHandle_t H, void *, cusolverEigMode_t J,
                                                               cublasFillMode_t U, int64_t N, cudaDataType TA,
                                                               const void *, int64_t Lda, cudaDataType TW,
                                                               const void *, cudaDataType TC, size_t *Dev,
                                                               size_t *Host, int64_t Batch) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validMode(J) || !validFill(U) || !fits(N) || Lda < std::max<int64_t>(1, N) || TA != TC || TW != realOf(TA) ||
      Batch < 1 || !fits(Batch))
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto) { return sizes(Dev, Host, 16); });
}
CUSOLVER_API cusolverStatus_t cusolverDnXsyevBatched(cusolverDnHandle_t Hd, void *, cusolverEigMode_t J,
                                                    cublasFillMode_t U, int64_t N, cudaDataType TA, void *A,
                                                    int64_t Lda, cudaDataType TW, void *W, cudaDataType TC, void *,
                                                    size_t, void *, size_t, int *Info, int64_t Batch) {
  if (!fits(N) || !fits(Lda) || TA != TC || TW != realOf(TA) || Batch < 1 || !fits(Batch))
    return find(Hd) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  // As syevj's batched form (the Jacobi parameters aside): LAPACK's syevd on each matrix.
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    return syevj<T>(Hd, J, U, int(N), static_cast<T *>(A), int(Lda), static_cast<typename Real<T>::Type *>(W), Info,
                    nullptr, int(Batch));
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnXgeev_bufferSize(cusolverDnHandle_t H, void *, cusolverEigMode_t Jl,
                                                        cusolverEigMode_t Jr, int64_t N, cudaDataType TA,
                                                        const void *, int64_t Lda, cudaDataType TW, const void *,
                                                        cudaDataType TVl, const void *, int64_t, cudaDataType TVr,
                                                        const void *, int64_t, cudaDataType TC, size_t *Dev,
                                                        size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validMode(Jl) || !validMode(Jr) || !fits(N) || Lda < std::max<int64_t>(1, N) || TA != TC ||
      TW != complexOf(TA) || TVl != TA || TVr != TA)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto) { return sizes(Dev, Host, 16); });
}
CUSOLVER_API cusolverStatus_t cusolverDnXgeev(cusolverDnHandle_t Hd, void *, cusolverEigMode_t Jl,
                                             cusolverEigMode_t Jr, int64_t N, cudaDataType TA, void *A, int64_t Lda,
                                             cudaDataType TW, void *W, cudaDataType TVl, void *Vl, int64_t Ldvl,
                                             cudaDataType TVr, void *Vr, int64_t Ldvr, cudaDataType TC, void *,
                                             size_t, void *, size_t, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  bool Left = Jl == CUSOLVER_EIG_MODE_VECTOR, Right = Jr == CUSOLVER_EIG_MODE_VECTOR;
  if (!validMode(Jl) || !validMode(Jr) || !fits(N) || !fits(Lda) || Lda < std::max<int64_t>(1, N) || TA != TC ||
      TW != complexOf(TA) || TVl != TA || TVr != TA || !Info || (Left && (Ldvl < std::max<int64_t>(1, N) || !Vl)) ||
      (Right && (Ldvr < std::max<int64_t>(1, N) || !Vr)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    using Cw = std::complex<typename Real<T>::Type>;
    int Ni = int(N), L = int(Lda), Ll = int(Ldvl), Lr = int(Ldvr);
    return submit(
        H,
        [=](T *A, Cw *W, T *Vl, T *Vr, int *Info) {
          *Info = Ni ? geev<T>(Ni, A, L, W, Left ? Vl : nullptr, Ll, Right ? Vr : nullptr, Lr) : 0;
        },
        libs::inout(static_cast<T *>(A), mat(L, Ni, Ni)), libs::out(static_cast<Cw *>(W), size_t(Ni)),
        libs::out(Left ? static_cast<T *>(Vl) : nullptr, Left ? mat(Ll, Ni, Ni) : 0),
        libs::out(Right ? static_cast<T *>(Vr) : nullptr, Right ? mat(Lr, Ni, Ni) : 0), libs::out(Info, 1));
  });
}
