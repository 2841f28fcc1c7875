//===- DnIrs.cpp - cuSOLVER: iterative refinement ---------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The typed iterative-refinement solvers (gesv, gels in every precision pair) and the
/// generic IRS API (IRSParams, IRSInfos, IRSXgesv, IRSXgels).
#include "libs/cusolver/DnInternal.h"

using namespace zluda;
using namespace zluda::cusolver;
using namespace zluda::cusolver::dn;

//===----------------------------------------------------------------------===//
// The iterative-refinement solvers cusolverDn<main><low>gesv and ...gels
// (ZZ, ZC, ZK, ZE, ZY, CC, CK, CE, CY, DD, DS, DH, DB, DX, SS, SH, SB, SX).
// cuSOLVER factors in the lower precision and refines to the main one; here
// the factorization is LAPACK's in the main precision, followed by one step
// of refinement (r = B - A X, A d = r, X += d), which is what `iter`
// reports (1; NVIDIA's reports the refinement steps it took on an H200: 0
// when its first solution already met the tolerance, 1-2 otherwise). A and B are left unchanged, dipiv is not written (as on the
// H200). gels solves least squares for m >= n by LAPACK's QR in the main
// precision (iter 1 when m == n; -1 when m > n: the main-precision solution
// without refinement). The call is blocking: `iter` is host memory.
//===----------------------------------------------------------------------===//

#define IRS_FORMS(Pair, T)                                                                                             \
  CUSOLVER_API cusolverStatus_t cusolverDn##Pair##gesv_bufferSize(cusolverDnHandle_t H, int N, int Nrhs, T *, int,     \
                                                                  int *, T *, int, T *, int, void *, size_t *Bytes) {  \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (N < 0 || Nrhs < 0)                                                                                             \
      return IrsParamsInvalid;                                                                                         \
    if (!Bytes)                                                                                                        \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    *Bytes = irsBytes<T>(N, N, Nrhs);                                                                                  \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##Pair##gesv(cusolverDnHandle_t H, int N, int Nrhs, T *A, int Lda, int *,    \
                                                       T *B, int Ldb, T *X, int Ldx, void *W, size_t Bytes, int *It,   \
                                                       int *Info) {                                                    \
    return irs<T>(H, false, N, N, Nrhs, A, Lda, B, Ldb, X, Ldx, W, Bytes, It, Info);                                   \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##Pair##gels_bufferSize(cusolverDnHandle_t H, int M, int N, int Nrhs, T *,   \
                                                                  int, T *, int, T *, int, void *, size_t *Bytes) {    \
    if (!find(H))                                                                                                      \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (M < 0 || N < 0 || Nrhs < 0 || M < N)                                                                           \
      return IrsParamsInvalid;                                                                                         \
    if (!Bytes)                                                                                                        \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    *Bytes = irsBytes<T>(M, N, Nrhs);                                                                                  \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDn##Pair##gels(cusolverDnHandle_t H, int M, int N, int Nrhs, T *A, int Lda,    \
                                                       T *B, int Ldb, T *X, int Ldx, void *W, size_t Bytes, int *It,   \
                                                       int *Info) {                                                    \
    return irs<T>(H, true, M, N, Nrhs, A, Lda, B, Ldb, X, Ldx, W, Bytes, It, Info);                                    \
  }
IRS_FORMS(ZZ, C64)
IRS_FORMS(ZC, C64)
IRS_FORMS(ZK, C64)
IRS_FORMS(ZE, C64)
IRS_FORMS(ZY, C64)
IRS_FORMS(CC, C32)
IRS_FORMS(CK, C32)
IRS_FORMS(CE, C32)
IRS_FORMS(CY, C32)
IRS_FORMS(DD, double)
IRS_FORMS(DS, double)
IRS_FORMS(DH, double)
IRS_FORMS(DB, double)
IRS_FORMS(DX, double)
IRS_FORMS(SS, float)
IRS_FORMS(SH, float)
IRS_FORMS(SB, float)
IRS_FORMS(SX, float)
#undef IRS_FORMS

//===----------------------------------------------------------------------===//
// The generic iterative-refinement API (cusolverDnIRSParams/IRSInfos,
// IRSXgesv, IRSXgels): the solve is the typed solvers' (irs<T>: main
// precision factorization, one refinement step), chosen by the main
// precision; the infos report its steps, the outer iterations (0: no GMRES)
// and, when requested, the residual history (the max-norm of B - A X over
// the right-hand sides, before and after the step). Xgesvdp (the polar
// decomposition's SVD) and Xgesvdr (the randomized rank-k SVD) are LAPACK's
// SVD: exact where cuSOLVER's are approximations.
//===----------------------------------------------------------------------===//

CUSOLVER_API cusolverStatus_t cusolverDnIRSParamsCreate(void **Out) {
  return libs::createObject<IrsParams>(Out, CUSOLVER_STATUS_SUCCESS, CUSOLVER_STATUS_INVALID_VALUE);
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSParamsDestroy(void *P) {
  return libs::destroyObject<IrsParams>(P, CUSOLVER_STATUS_SUCCESS, IrsParamsNotInitialized);
}
#define IRS_PARAM_SET(Name, Type, Body)                                                                                \
  CUSOLVER_API cusolverStatus_t cusolverDnIRSParams##Name(void *Pp, Type V) {                                          \
    IrsParams *P = irsParams(Pp);                                                                                      \
    if (!P)                                                                                                            \
      return IrsParamsNotInitialized;                                                                                  \
    Body;                                                                                                              \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }
IRS_PARAM_SET(SetRefinementSolver, int, P->Refinement = V)
IRS_PARAM_SET(SetSolverMainPrecision, int, P->Main = V)
IRS_PARAM_SET(SetSolverLowestPrecision, int, P->Lowest = V)
IRS_PARAM_SET(SetTol, double, P->Tol = V)
IRS_PARAM_SET(SetTolInner, double, P->TolInner = V)
IRS_PARAM_SET(SetMaxIters, int, P->MaxIters = V)
IRS_PARAM_SET(SetMaxItersInner, int, P->MaxItersInner = V)
#undef IRS_PARAM_SET
CUSOLVER_API cusolverStatus_t cusolverDnIRSParamsSetSolverPrecisions(void *Pp, int Main, int Lowest) {
  IrsParams *P = irsParams(Pp);
  if (!P)
    return IrsParamsNotInitialized;
  P->Main = Main, P->Lowest = Lowest;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSParamsGetMaxIters(void *Pp, int *Out) {
  IrsParams *P = irsParams(Pp);
  if (!P)
    return IrsParamsNotInitialized;
  if (!Out)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Out = P->MaxIters;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSParamsEnableFallback(void *Pp) {
  IrsParams *P = irsParams(Pp);
  if (!P)
    return IrsParamsNotInitialized;
  P->Fallback = true;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSParamsDisableFallback(void *Pp) {
  IrsParams *P = irsParams(Pp);
  if (!P)
    return IrsParamsNotInitialized;
  P->Fallback = false;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSInfosCreate(void **Out) {
  return libs::createObject<IrsInfos>(Out, CUSOLVER_STATUS_SUCCESS, CUSOLVER_STATUS_INVALID_VALUE);
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSInfosDestroy(void *I) {
  return libs::destroyObject<IrsInfos>(I, CUSOLVER_STATUS_SUCCESS, IrsInfosNotInitialized);
}
#define IRS_INFO_GET(Name, Field)                                                                                      \
  CUSOLVER_API cusolverStatus_t cusolverDnIRSInfos##Name(void *Ip, int *Out) {                                         \
    IrsInfos *I = irsInfos(Ip);                                                                                        \
    if (!I)                                                                                                            \
      return IrsInfosNotInitialized;                                                                                   \
    if (!Out)                                                                                                          \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    *Out = I->Field;                                                                                                   \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }
IRS_INFO_GET(GetNiters, Niters)
IRS_INFO_GET(GetOuterNiters, OuterNiters)
IRS_INFO_GET(GetMaxIters, MaxIters)
#undef IRS_INFO_GET
CUSOLVER_API cusolverStatus_t cusolverDnIRSInfosRequestResidual(void *Ip) {
  IrsInfos *I = irsInfos(Ip);
  if (!I)
    return IrsInfosNotInitialized;
  I->WantResidual = true;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSInfosGetResidualHistory(void *Ip, void **Out) {
  IrsInfos *I = irsInfos(Ip);
  if (!I)
    return IrsInfosNotInitialized;
  if (!Out || !I->WantResidual)
    return CUSOLVER_STATUS_INVALID_VALUE;
  *Out = I->History.data();
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSXgesv_bufferSize(cusolverDnHandle_t H, void *Pp, int N, int Nrhs,
                                                           size_t *Bytes) {
  IrsParams *P = irsParams(Pp);
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!P)
    return IrsParamsNotInitialized;
  if (N < 0 || Nrhs < 0 || !Bytes)
    return IrsParamsInvalid;
  return byPrecision(P->Main, [&](auto Tag) {
    *Bytes = irsBytes<decltype(Tag)>(N, N, Nrhs);
    return CUSOLVER_STATUS_SUCCESS;
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSXgels_bufferSize(cusolverDnHandle_t H, void *Pp, int M, int N, int Nrhs,
                                                           size_t *Bytes) {
  IrsParams *P = irsParams(Pp);
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!P)
    return IrsParamsNotInitialized;
  if (M < 0 || N < 0 || Nrhs < 0 || M < N || !Bytes)
    return IrsParamsInvalid;
  return byPrecision(P->Main, [&](auto Tag) {
    *Bytes = irsBytes<decltype(Tag)>(M, N, Nrhs);
    return CUSOLVER_STATUS_SUCCESS;
  });
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSXgesv(cusolverDnHandle_t H, void *P, void *I, int N, int Nrhs, void *A,
                                                int Lda, void *B, int Ldb, void *X, int Ldx, void *W, size_t Bytes,
                                                int *Niters, int *Info) {
  return irsx(H, P, I, false, N, N, Nrhs, A, Lda, B, Ldb, X, Ldx, W, Bytes, Niters, Info);
}
CUSOLVER_API cusolverStatus_t cusolverDnIRSXgels(cusolverDnHandle_t H, void *P, void *I, int M, int N, int Nrhs,
                                                void *A, int Lda, void *B, int Ldb, void *X, int Ldx, void *W,
                                                size_t Bytes, int *Niters, int *Info) {
  return irsx(H, P, I, true, M, N, Nrhs, A, Lda, B, Ldb, X, Ldx, W, Bytes, Niters, Info);
}

CUSOLVER_API cusolverStatus_t cusolverDnXgesvdp_bufferSize(cusolverDnHandle_t H, void *, cusolverEigMode_t J, int Econ,
                                                          int64_t M, int64_t N, cudaDataType TA, const void *, int64_t Lda,
                                                          cudaDataType TS, const void *, cudaDataType TU, const void *,
                                                          int64_t, cudaDataType TV, const void *, int64_t,
                                                          cudaDataType TC, size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!validMode(J) || (Econ != 0 && Econ != 1) || !fits(M) || !fits(N) || Lda < std::max<int64_t>(1, M) || TA != TC ||
      TS != realOf(TA) || TU != TA || TV != TA)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto) { return sizes(Dev, Host, 16); });
}
CUSOLVER_API cusolverStatus_t cusolverDnXgesvdp(cusolverDnHandle_t Hd, void *, cusolverEigMode_t J, int Econ, int64_t M,
                                               int64_t N, cudaDataType TA, void *A, int64_t Lda, cudaDataType TS,
                                               void *S, cudaDataType TU, void *U, int64_t Ldu, cudaDataType TV, void *V,
                                               int64_t Ldv, cudaDataType TC, void *, size_t, void *, size_t, int *Info,
                                               double *ErrSigma) {
  if (!fits(M) || !fits(N) || !fits(Lda) || !fits(Ldu) || !fits(Ldv) || TA != TC || TS != realOf(TA) || TU != TA ||
      TV != TA)
    return find(Hd) ? CUSOLVER_STATUS_INVALID_VALUE : CUSOLVER_STATUS_NOT_INITIALIZED;
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  // The residual of the result, the perturbation h_err_sigma reports (host memory: the call waits).
  JacobiParams Res;
  cusolverStatus_t St = byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    return gesvdj<T>(Hd, J, Econ, int(M), int(N), static_cast<T *>(A), int(Lda),
                     static_cast<typename Real<T>::Type *>(S), static_cast<T *>(U), int(Ldu), static_cast<T *>(V),
                     int(Ldv), Info, &Res, 0);
  });
  if (St)
    return St;
  if (libs::wait(H->Stream))
    return CUSOLVER_STATUS_EXECUTION_FAILED;
  if (ErrSigma)
    *ErrSigma = Res.Residual;
  return CUSOLVER_STATUS_SUCCESS;
}
CUSOLVER_API cusolverStatus_t cusolverDnXgesvdr_bufferSize(cusolverDnHandle_t H, void *, signed char Ju, signed char Jv,
                                                          int64_t M, int64_t N, int64_t K, int64_t P, int64_t Iters,
                                                          cudaDataType TA, const void *, int64_t Lda, cudaDataType TS,
                                                          const void *, cudaDataType TU, const void *, int64_t,
                                                          cudaDataType TV, const void *, int64_t, cudaDataType TC,
                                                          size_t *Dev, size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if ((Ju != 'S' && Ju != 'N') || (Jv != 'S' && Jv != 'N') || !fits(M) || !fits(N) || K < 1 ||
      K > std::min(M, N) || P < 0 || Iters < 0 || Lda < std::max<int64_t>(1, M) || TA != TC || TS != realOf(TA) ||
      TU != TA || TV != TA)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto) { return sizes(Dev, Host, 16); });
}
/// The leading k singular triplets (exact: a full SVD truncated; p and niters, the randomization's oversampling
/// and power iterations, change nothing here).
CUSOLVER_API cusolverStatus_t cusolverDnXgesvdr(cusolverDnHandle_t Hd, void *, signed char Ju, signed char Jv,
                                               int64_t M, int64_t N, int64_t K, int64_t P, int64_t Iters,
                                               cudaDataType TA, void *A, int64_t Lda, cudaDataType TS, void *S,
                                               cudaDataType TU, void *U, int64_t Ldu, cudaDataType TV, void *V,
                                               int64_t Ldv, cudaDataType TC, void *, size_t, void *, size_t, int *Info) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  bool Wu = Ju == 'S', Wv = Jv == 'S';
  if ((Ju != 'S' && Ju != 'N') || (Jv != 'S' && Jv != 'N') || !fits(M) || !fits(N) || !fits(Lda) || K < 1 ||
      K > std::min(M, N) || P < 0 || Iters < 0 || Lda < std::max<int64_t>(1, M) || TA != TC || TS != realOf(TA) ||
      TU != TA || TV != TA || !Info || (Wu && Ldu < std::max<int64_t>(1, M)) || (Wv && Ldv < std::max<int64_t>(1, N)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TA, [&](auto Tag) {
    using T = decltype(Tag);
    using R = typename Real<T>::Type;
    int Mi = int(M), Ni = int(N), Ki = int(K), L = int(Lda), Lu = int(Ldu), Lv = int(Ldv);
    return submit(
        H,
        [=](T *A, R *S, T *U, T *V, int *Info) {
          int Mn = std::min(Mi, Ni);
          std::vector<R> Sf(static_cast<size_t>(Mn));
          std::vector<T> Uf(size_t(Mi) * Mn), Vf(size_t(Ni) * Mn);
          *Info = jacobiSvd<T>(true, true, Mi, Ni, A, L, Sf.data(), Uf.data(), Mi, Vf.data(), Ni, nullptr);
          std::copy(Sf.begin(), Sf.begin() + Ki, S);
          for (int C = 0; C < Ki; ++C) {
            if (U)
              std::copy(Uf.begin() + size_t(C) * Mi, Uf.begin() + size_t(C + 1) * Mi, U + size_t(C) * Lu);
            if (V)
              std::copy(Vf.begin() + size_t(C) * Ni, Vf.begin() + size_t(C + 1) * Ni, V + size_t(C) * Lv);
          }
        },
        libs::inout(static_cast<T *>(A), mat(L, Mi, Ni)), libs::out(static_cast<R *>(S), size_t(Ki)),
        libs::out(Wu ? static_cast<T *>(U) : nullptr, Wu ? mat(Lu, Mi, Ki) : 0),
        libs::out(Wv ? static_cast<T *>(V) : nullptr, Wv ? mat(Lv, Ni, Ki) : 0), libs::out(Info, 1));
  });
}

/// Xlarft: the triangular factor T of a block of k Householder reflectors (LAPACK's larft; direct 0 forward /
/// 1 backward, storev 0 columnwise / 1 rowwise). V is read only (LAPACK's larft works on a copy here).
CUSOLVER_API cusolverStatus_t cusolverDnXlarft_bufferSize(cusolverDnHandle_t H, void *, int Direct, int Storev,
                                                         int64_t N, int64_t K, cudaDataType TV, const void *,
                                                         int64_t Ldv, cudaDataType TT, const void *, cudaDataType TTm,
                                                         void *, int64_t Ldt, cudaDataType TC, size_t *Dev,
                                                         size_t *Host) {
  if (!find(H))
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if ((Direct != 0 && Direct != 1) || (Storev != 0 && Storev != 1) || !fits(N) || K < 1 || K > N ||
      Ldt < K || Ldv < (Storev ? K : std::max<int64_t>(1, N)) || TV != TT || TV != TTm || TV != TC)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TV, [&](auto) { return sizes(Dev, Host, 16); });
}
CUSOLVER_API cusolverStatus_t cusolverDnXlarft(cusolverDnHandle_t Hd, void *, int Direct, int Storev, int64_t N,
                                              int64_t K, cudaDataType TV, const void *V, int64_t Ldv, cudaDataType TT,
                                              const void *Tau, cudaDataType TTm, void *Tm, int64_t Ldt,
                                              cudaDataType TC, void *, size_t, void *, size_t) {
  Handle *H = find(Hd);
  if (!H)
    return CUSOLVER_STATUS_NOT_INITIALIZED;
  if ((Direct != 0 && Direct != 1) || (Storev != 0 && Storev != 1) || !fits(N) || !fits(Ldv) || !fits(Ldt) ||
      K < 1 || K > N || Ldt < K || Ldv < (Storev ? K : std::max<int64_t>(1, N)) || TV != TT || TV != TTm || TV != TC ||
      !V || !Tau || !Tm)
    return CUSOLVER_STATUS_INVALID_VALUE;
  return byType(TV, [&](auto Tag) {
    using T = decltype(Tag);
    int Ni = int(N), Ki = int(K), Lv = int(Ldv), Lt = int(Ldt);
    size_t VCount = Storev ? mat(Lv, Ki, Ni) : mat(Lv, Ni, Ki);
    return submit(
        H,
        [=](T *V, T *Tau, T *Tm) {
          std::vector<T> Copy(V, V + VCount); // larft may touch V's unit entries
          MiscLa<T>::larft(Direct ? 'B' : 'F', Storev ? 'R' : 'C', Ni, Ki, Copy.data(), Lv, Tau, Tm, Lt);
        },
        libs::in(static_cast<const T *>(V), VCount), libs::in(static_cast<const T *>(Tau), size_t(Ki)),
        libs::out(static_cast<T *>(Tm), mat(Lt, Ki, Ki)));
  });
}

// The handle's modes (kept and reported; see Handle).
#define DN_MODE(Name, Field, Valid)                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDnSet##Name(cusolverDnHandle_t Hd, int V) {                                    \
    Handle *H = find(Hd);                                                                                              \
    if (!H)                                                                                                            \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (!(Valid))                                                                                                      \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    H->Field = V;                                                                                                      \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }                                                                                                                    \
  CUSOLVER_API cusolverStatus_t cusolverDnGet##Name(cusolverDnHandle_t Hd, int *V) {                                   \
    Handle *H = find(Hd);                                                                                              \
    if (!H)                                                                                                            \
      return CUSOLVER_STATUS_NOT_INITIALIZED;                                                                          \
    if (!V)                                                                                                            \
      return CUSOLVER_STATUS_INVALID_VALUE;                                                                            \
    *V = H->Field;                                                                                                     \
    return CUSOLVER_STATUS_SUCCESS;                                                                                    \
  }
DN_MODE(DeterministicMode, Deterministic, V == 1 || V == 2)
DN_MODE(MathMode, Math, V == 1 || V == 2)
DN_MODE(EmulationStrategy, Emulation, V >= 0 && V <= 2)
#undef DN_MODE
