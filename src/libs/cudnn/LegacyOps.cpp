//===- LegacyOps.cpp - the legacy API's operations -------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Convolutions (forward, backward data, filter and bias, the fused
/// bias-activation form, the algorithm queries), tensor arithmetic,
/// activations, softmax, pooling and batch normalization. Each call checks
/// its descriptors, then runs in the handle's stream order: the arrays are
/// read into packed float (double for DOUBLE tensors), computed, and written
/// back as alpha * result + beta * destination.
#include "libs/cudnn/Descriptors.h"

#include "libs/common/Half.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace zluda::dnn;

namespace {

template <typename Fn> void withAcc(cudnnDataType_t T, Fn F) {
  if (T == CUDNN_DATA_DOUBLE)
    F(double{});
  else
    F(float{});
}

/// \p B seen with \p C's dims: a dim of 1 in B repeats (stride 0). False when they do not broadcast.
bool broadcastView(const Tensor &B, const Tensor &C, Tensor &Out) {
  if (B.Rank != C.Rank)
    return false;
  Out = B;
  for (int I = 0; I < C.Rank; ++I) {
    if (B.Dim[I] == C.Dim[I])
      continue;
    if (B.Dim[I] != 1)
      return false;
    Out.Dim[I] = C.Dim[I];
    Out.Stride[I] = 0;
  }
  return true;
}

#define CHECK_HANDLE(H)                                                                                                \
  cudnnContext *Ctx = handleOf(H);                                                                                     \
  if (!Ctx)                                                                                                            \
    return CUDNN_STATUS_BAD_PARAM;

/// The common shape of a convolution call's checks.
cudnnStatus_t convArgs(const char *Call, cudnnTensorDescriptor_t XD, cudnnFilterDescriptor_t WD,
                       cudnnConvolutionDescriptor_t CD, cudnnTensorDescriptor_t YD, const Tensor *&X, const Tensor *&W,
                       const Conv *&C, const Tensor *&Y) {
  X = tensorOf(XD);
  W = filterOf(WD);
  C = convOf(CD);
  Y = tensorOf(YD);
  if (!X || !W || !C || !Y)
    return fail(CUDNN_STATUS_BAD_PARAM, Call, "a descriptor is null, destroyed or not set");
  std::string Why = checkConv(*X, *W, *Y, *C);
  if (!Why.empty())
    return fail(CUDNN_STATUS_BAD_PARAM, Call, Why);
  if (X->Type != Y->Type || W->Type != X->Type)
    return fail(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE, Call, "x, w and y of different types");
  return CUDNN_STATUS_SUCCESS;
}

} // namespace

// --- convolutions -------------------------------------------------------------------------

CUDNN_API cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t Handle, const void *Alpha, cudnnTensorDescriptor_t XD,
                                                const void *x, cudnnFilterDescriptor_t WD, const void *w,
                                                cudnnConvolutionDescriptor_t CD, cudnnConvolutionFwdAlgo_t,
                                                void *, size_t, const void *Beta, cudnnTensorDescriptor_t YD,
                                                void *y) {
  CHECK_HANDLE(Handle);
  const Tensor *X, *W, *Y;
  const Conv *C;
  if (cudnnStatus_t S = convArgs("cudnnConvolutionForward", XD, WD, CD, YD, X, W, C, Y))
    return S;
  if (!Alpha || !Beta || !x || !w || !y)
    return CUDNN_STATUS_BAD_PARAM;
  double Al = scalarArg(Alpha, Y->Type), Be = scalarArg(Beta, Y->Type);
  return runOnStream(Ctx->Stream, {{x, X->spanBytes(), true, false}, {w, W->spanBytes(), true, false},
                                   {y, Y->spanBytes(), Be != 0, true}},
                     [Xt = *X, Wt = *W, Yt = *Y, Ct = *C, Al, Be](const std::vector<void *> &P) {
                       withAcc(Xt.Type, [&](auto Z) {
                         using Acc = decltype(Z);
                         std::vector<Acc> Xs(Xt.count()), Ws(Wt.count()), Ys(Yt.count());
                         gather(Xt, P[0], Xs.data());
                         gather(Wt, P[1], Ws.data());
                         convForward(Ct, Xt, Xs.data(), Wt, Ws.data(), Yt, Ys.data());
                         scatter(Yt, P[2], Ys.data(), Al, Be);
                       });
                     });
}

CUDNN_API cudnnStatus_t cudnnConvolutionBackwardData(cudnnHandle_t Handle, const void *Alpha,
                                                     cudnnFilterDescriptor_t WD, const void *w,
                                                     cudnnTensorDescriptor_t DyD, const void *dy,
                                                     cudnnConvolutionDescriptor_t CD, cudnnConvolutionBwdDataAlgo_t,
                                                     void *, size_t, const void *Beta, cudnnTensorDescriptor_t DxD,
                                                     void *dx) {
  CHECK_HANDLE(Handle);
  const Tensor *Dx, *W, *Dy;
  const Conv *C;
  if (cudnnStatus_t S = convArgs("cudnnConvolutionBackwardData", DxD, WD, CD, DyD, Dx, W, C, Dy))
    return S;
  if (!Alpha || !Beta || !w || !dy || !dx)
    return CUDNN_STATUS_BAD_PARAM;
  double Al = scalarArg(Alpha, Dx->Type), Be = scalarArg(Beta, Dx->Type);
  return runOnStream(Ctx->Stream, {{w, W->spanBytes(), true, false}, {dy, Dy->spanBytes(), true, false},
                                   {dx, Dx->spanBytes(), Be != 0, true}},
                     [Dxt = *Dx, Wt = *W, Dyt = *Dy, Ct = *C, Al, Be](const std::vector<void *> &P) {
                       withAcc(Dxt.Type, [&](auto Z) {
                         using Acc = decltype(Z);
                         std::vector<Acc> Ws(Wt.count()), Dys(Dyt.count()), Dxs(Dxt.count());
                         gather(Wt, P[0], Ws.data());
                         gather(Dyt, P[1], Dys.data());
                         convBackwardData(Ct, Wt, Ws.data(), Dyt, Dys.data(), Dxt, Dxs.data());
                         scatter(Dxt, P[2], Dxs.data(), Al, Be);
                       });
                     });
}

CUDNN_API cudnnStatus_t cudnnConvolutionBackwardFilter(cudnnHandle_t Handle, const void *Alpha,
                                                       cudnnTensorDescriptor_t XD, const void *x,
                                                       cudnnTensorDescriptor_t DyD, const void *dy,
                                                       cudnnConvolutionDescriptor_t CD,
                                                       cudnnConvolutionBwdFilterAlgo_t, void *, size_t,
                                                       const void *Beta, cudnnFilterDescriptor_t DwD, void *dw) {
  CHECK_HANDLE(Handle);
  const Tensor *X, *Dw, *Dy;
  const Conv *C;
  if (cudnnStatus_t S = convArgs("cudnnConvolutionBackwardFilter", XD, DwD, CD, DyD, X, Dw, C, Dy))
    return S;
  if (!Alpha || !Beta || !x || !dy || !dw)
    return CUDNN_STATUS_BAD_PARAM;
  double Al = scalarArg(Alpha, Dw->Type), Be = scalarArg(Beta, Dw->Type);
  return runOnStream(Ctx->Stream, {{x, X->spanBytes(), true, false}, {dy, Dy->spanBytes(), true, false},
                                   {dw, Dw->spanBytes(), Be != 0, true}},
                     [Xt = *X, Dwt = *Dw, Dyt = *Dy, Ct = *C, Al, Be](const std::vector<void *> &P) {
                       withAcc(Xt.Type, [&](auto Z) {
                         using Acc = decltype(Z);
                         std::vector<Acc> Xs(Xt.count()), Dys(Dyt.count()), Dws(Dwt.count());
                         gather(Xt, P[0], Xs.data());
                         gather(Dyt, P[1], Dys.data());
                         convBackwardFilter(Ct, Xt, Xs.data(), Dyt, Dys.data(), Dwt, Dws.data());
                         scatter(Dwt, P[2], Dws.data(), Al, Be);
                       });
                     });
}

CUDNN_API cudnnStatus_t cudnnConvolutionBackwardBias(cudnnHandle_t Handle, const void *Alpha,
                                                     cudnnTensorDescriptor_t DyD, const void *dy, const void *Beta,
                                                     cudnnTensorDescriptor_t DbD, void *db) {
  CHECK_HANDLE(Handle);
  const Tensor *Dy = tensorOf(DyD), *Db = tensorOf(DbD);
  if (!Dy || !Db || !Alpha || !Beta || !dy || !db || Dy->Rank < 3 || Db->Rank != Dy->Rank || Db->Dim[1] != Dy->Dim[1] ||
      Db->count() != Dy->Dim[1])
    return CUDNN_STATUS_BAD_PARAM;
  double Al = scalarArg(Alpha, Dy->Type), Be = scalarArg(Beta, Dy->Type);
  return runOnStream(Ctx->Stream, {{dy, Dy->spanBytes(), true, false}, {db, Db->spanBytes(), Be != 0, true}},
                     [Dyt = *Dy, Dbt = *Db, Al, Be](const std::vector<void *> &P) {
                       std::vector<double> Dys(Dyt.count()), Dbs(Dyt.Dim[1], 0.0);
                       gather(Dyt, P[0], Dys.data());
                       int64_t Sp = Dyt.count() / (Dyt.Dim[0] * Dyt.Dim[1]);
                       for (int64_t N = 0; N < Dyt.Dim[0]; ++N)
                         for (int64_t C = 0; C < Dyt.Dim[1]; ++C)
                           for (int64_t S = 0; S < Sp; ++S)
                             Dbs[C] += Dys[(N * Dyt.Dim[1] + C) * Sp + S];
                       scatter(Dbt, P[1], Dbs.data(), Al, Be);
                     });
}

CUDNN_API cudnnStatus_t cudnnConvolutionBiasActivationForward(
    cudnnHandle_t Handle, const void *Alpha1, cudnnTensorDescriptor_t XD, const void *x, cudnnFilterDescriptor_t WD,
    const void *w, cudnnConvolutionDescriptor_t CD, cudnnConvolutionFwdAlgo_t, void *, size_t, const void *Alpha2,
    cudnnTensorDescriptor_t ZD, const void *z, cudnnTensorDescriptor_t BiasD, const void *bias,
    cudnnActivationDescriptor_t AD, cudnnTensorDescriptor_t YD, void *y) {
  CHECK_HANDLE(Handle);
  const Tensor *X, *W, *Y;
  const Conv *C;
  if (cudnnStatus_t S = convArgs("cudnnConvolutionBiasActivationForward", XD, WD, CD, YD, X, W, C, Y))
    return S;
  const Tensor *Z = tensorOf(ZD), *B = tensorOf(BiasD);
  cudnnActivationStruct *A = zluda::libs::Live<cudnnActivationStruct>::find(AD);
  if (!Alpha1 || !Alpha2 || !x || !w || !y || !Z || !B || !A || !bias || !sameDims(*Z, *Y))
    return CUDNN_STATUS_BAD_PARAM;
  // As the reference: only ReLU and identity (the latter with IMPLICIT_PRECOMP_GEMM) are fused here.
  if (A->Mode != CUDNN_ACTIVATION_RELU && A->Mode != CUDNN_ACTIVATION_IDENTITY)
    return fail(CUDNN_STATUS_NOT_SUPPORTED, "cudnnConvolutionBiasActivationForward",
                "only ReLU and identity activations are fused");
  Tensor Bv;
  if (!broadcastView(*B, *Y, Bv))
    return CUDNN_STATUS_BAD_PARAM;
  double A1 = scalarArg(Alpha1, Y->Type), A2 = scalarArg(Alpha2, Y->Type);
  Pointwise Act = activationFunction(*A, false);
  return runOnStream(
      Ctx->Stream,
      {{x, X->spanBytes(), true, false}, {w, W->spanBytes(), true, false}, {z, Z->spanBytes(), A2 != 0, false},
       {bias, B->spanBytes(), true, false}, {y, Y->spanBytes(), false, true}},
      [Xt = *X, Wt = *W, Yt = *Y, Zt = *Z, Bv, Ct = *C, A1, A2, Act](const std::vector<void *> &P) {
        withAcc(Xt.Type, [&](auto Zero) {
          using Acc = decltype(Zero);
          std::vector<Acc> Xs(Xt.count()), Ws(Wt.count()), Ys(Yt.count()), Zs(Yt.count(), Acc(0)), Bs(Yt.count());
          gather(Xt, P[0], Xs.data());
          gather(Wt, P[1], Ws.data());
          if (A2 != 0)
            gather(Zt, P[2], Zs.data());
          gather(Bv, P[3], Bs.data());
          convForward(Ct, Xt, Xs.data(), Wt, Ws.data(), Yt, Ys.data());
          for (size_t I = 0; I < Ys.size(); ++I)
            Ys[I] = static_cast<Acc>(pointwiseApply(Act, A1 * Ys[I] + A2 * Zs[I] + Bs[I], 0, 0));
          scatter(Yt, P[4], Ys.data(), 1, 0);
        });
      });
}

// The algorithm queries: one implementation serves every algorithm, with no workspace.
namespace {
template <typename Perf, typename Algo> void fillPerf(Perf *Out, int Requested, int *Returned, int Count) {
  int N = std::min(Requested, Count);
  for (int I = 0; I < N; ++I) {
    Out[I] = Perf{};
    Out[I].algo = static_cast<Algo>(I);
    Out[I].status = CUDNN_STATUS_SUCCESS;
    Out[I].time = 0.01f * static_cast<float>(I + 1); // the order we prefer: the first
    Out[I].memory = 0;
    Out[I].determinism = CUDNN_DETERMINISTIC;
    Out[I].mathType = CUDNN_DEFAULT_MATH;
  }
  *Returned = N;
}
} // namespace

CUDNN_API cudnnStatus_t cudnnGetConvolutionForwardAlgorithmMaxCount(cudnnHandle_t H, int *Count) {
  if (!handleOf(H) || !Count)
    return CUDNN_STATUS_BAD_PARAM;
  *Count = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithmMaxCount(cudnnHandle_t H, int *Count) {
  if (!handleOf(H) || !Count)
    return CUDNN_STATUS_BAD_PARAM;
  *Count = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(cudnnHandle_t H, int *Count) {
  if (!handleOf(H) || !Count)
    return CUDNN_STATUS_BAD_PARAM;
  *Count = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  return CUDNN_STATUS_SUCCESS;
}

CUDNN_API cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(cudnnHandle_t H, cudnnTensorDescriptor_t XD,
                                                               cudnnFilterDescriptor_t WD,
                                                               cudnnConvolutionDescriptor_t CD,
                                                               cudnnTensorDescriptor_t YD, int Requested,
                                                               int *Returned, cudnnConvolutionFwdAlgoPerf_t *Perf) {
  const Tensor *X, *W, *Y;
  const Conv *C;
  if (!handleOf(H) || !Returned || !Perf || Requested < 1)
    return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t S = convArgs("cudnnGetConvolutionForwardAlgorithm_v7", XD, WD, CD, YD, X, W, C, Y))
    return S;
  fillPerf<cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgo_t>(Perf, Requested, Returned,
                                                                     CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnFindConvolutionForwardAlgorithm(cudnnHandle_t H, cudnnTensorDescriptor_t XD,
                                                             cudnnFilterDescriptor_t WD,
                                                             cudnnConvolutionDescriptor_t CD,
                                                             cudnnTensorDescriptor_t YD, int Requested, int *Returned,
                                                             cudnnConvolutionFwdAlgoPerf_t *Perf) {
  return cudnnGetConvolutionForwardAlgorithm_v7(H, XD, WD, CD, YD, Requested, Returned, Perf);
}
CUDNN_API cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(cudnnHandle_t H, cudnnTensorDescriptor_t XD,
                                                               const void *, cudnnFilterDescriptor_t WD, const void *,
                                                               cudnnConvolutionDescriptor_t CD,
                                                               cudnnTensorDescriptor_t YD, void *, int Requested,
                                                               int *Returned, cudnnConvolutionFwdAlgoPerf_t *Perf,
                                                               void *, size_t) {
  return cudnnGetConvolutionForwardAlgorithm_v7(H, XD, WD, CD, YD, Requested, Returned, Perf);
}
CUDNN_API cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(cudnnHandle_t H, cudnnFilterDescriptor_t WD,
                                                                    cudnnTensorDescriptor_t DyD,
                                                                    cudnnConvolutionDescriptor_t CD,
                                                                    cudnnTensorDescriptor_t DxD, int Requested,
                                                                    int *Returned,
                                                                    cudnnConvolutionBwdDataAlgoPerf_t *Perf) {
  const Tensor *X, *W, *Y;
  const Conv *C;
  if (!handleOf(H) || !Returned || !Perf || Requested < 1)
    return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t S = convArgs("cudnnGetConvolutionBackwardDataAlgorithm_v7", DxD, WD, CD, DyD, X, W, C, Y))
    return S;
  fillPerf<cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgo_t>(Perf, Requested, Returned,
                                                                             CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
  // ALGO_1 (deterministic) first, as the reference's heuristics rank it for most shapes.
  if (*Returned > 1)
    std::swap(Perf[0].algo, Perf[1].algo);
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithm(cudnnHandle_t H, cudnnFilterDescriptor_t WD,
                                                                  cudnnTensorDescriptor_t DyD,
                                                                  cudnnConvolutionDescriptor_t CD,
                                                                  cudnnTensorDescriptor_t DxD, int Requested,
                                                                  int *Returned,
                                                                  cudnnConvolutionBwdDataAlgoPerf_t *Perf) {
  return cudnnGetConvolutionBackwardDataAlgorithm_v7(H, WD, DyD, CD, DxD, Requested, Returned, Perf);
}
CUDNN_API cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(
    cudnnHandle_t H, cudnnFilterDescriptor_t WD, const void *, cudnnTensorDescriptor_t DyD, const void *,
    cudnnConvolutionDescriptor_t CD, cudnnTensorDescriptor_t DxD, void *, int Requested, int *Returned,
    cudnnConvolutionBwdDataAlgoPerf_t *Perf, void *, size_t) {
  return cudnnGetConvolutionBackwardDataAlgorithm_v7(H, WD, DyD, CD, DxD, Requested, Returned, Perf);
}
CUDNN_API cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(cudnnHandle_t H, cudnnTensorDescriptor_t XD,
                                                                      cudnnTensorDescriptor_t DyD,
                                                                      cudnnConvolutionDescriptor_t CD,
                                                                      cudnnFilterDescriptor_t DwD, int Requested,
                                                                      int *Returned,
                                                                      cudnnConvolutionBwdFilterAlgoPerf_t *Perf) {
  const Tensor *X, *W, *Y;
  const Conv *C;
  if (!handleOf(H) || !Returned || !Perf || Requested < 1)
    return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t S = convArgs("cudnnGetConvolutionBackwardFilterAlgorithm_v7", XD, DwD, CD, DyD, X, W, C, Y))
    return S;
  fillPerf<cudnnConvolutionBwdFilterAlgoPerf_t, cudnnConvolutionBwdFilterAlgo_t>(
      Perf, Requested, Returned, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
  if (*Returned > 1)
    std::swap(Perf[0].algo, Perf[1].algo);
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithm(cudnnHandle_t H, cudnnTensorDescriptor_t XD,
                                                                    cudnnTensorDescriptor_t DyD,
                                                                    cudnnConvolutionDescriptor_t CD,
                                                                    cudnnFilterDescriptor_t DwD, int Requested,
                                                                    int *Returned,
                                                                    cudnnConvolutionBwdFilterAlgoPerf_t *Perf) {
  return cudnnGetConvolutionBackwardFilterAlgorithm_v7(H, XD, DyD, CD, DwD, Requested, Returned, Perf);
}
CUDNN_API cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(
    cudnnHandle_t H, cudnnTensorDescriptor_t XD, const void *, cudnnTensorDescriptor_t DyD, const void *,
    cudnnConvolutionDescriptor_t CD, cudnnFilterDescriptor_t DwD, void *, int Requested, int *Returned,
    cudnnConvolutionBwdFilterAlgoPerf_t *Perf, void *, size_t) {
  return cudnnGetConvolutionBackwardFilterAlgorithm_v7(H, XD, DyD, CD, DwD, Requested, Returned, Perf);
}

CUDNN_API cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t H, cudnnTensorDescriptor_t XD,
                                                                cudnnFilterDescriptor_t WD,
                                                                cudnnConvolutionDescriptor_t CD,
                                                                cudnnTensorDescriptor_t YD, cudnnConvolutionFwdAlgo_t A,
                                                                size_t *Size) {
  const Tensor *X, *W, *Y;
  const Conv *C;
  if (!handleOf(H) || !Size || A < 0 || A >= CUDNN_CONVOLUTION_FWD_ALGO_COUNT)
    return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t S = convArgs("cudnnGetConvolutionForwardWorkspaceSize", XD, WD, CD, YD, X, W, C, Y))
    return S;
  *Size = 0;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(cudnnHandle_t H, cudnnFilterDescriptor_t WD,
                                                                     cudnnTensorDescriptor_t DyD,
                                                                     cudnnConvolutionDescriptor_t CD,
                                                                     cudnnTensorDescriptor_t DxD,
                                                                     cudnnConvolutionBwdDataAlgo_t A, size_t *Size) {
  const Tensor *X, *W, *Y;
  const Conv *C;
  if (!handleOf(H) || !Size || A < 0 || A >= CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT)
    return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t S = convArgs("cudnnGetConvolutionBackwardDataWorkspaceSize", DxD, WD, CD, DyD, X, W, C, Y))
    return S;
  *Size = 0;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(cudnnHandle_t H, cudnnTensorDescriptor_t XD,
                                                                       cudnnTensorDescriptor_t DyD,
                                                                       cudnnConvolutionDescriptor_t CD,
                                                                       cudnnFilterDescriptor_t DwD,
                                                                       cudnnConvolutionBwdFilterAlgo_t A,
                                                                       size_t *Size) {
  const Tensor *X, *W, *Y;
  const Conv *C;
  if (!handleOf(H) || !Size || A < 0 || A >= CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT)
    return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t S = convArgs("cudnnGetConvolutionBackwardFilterWorkspaceSize", XD, DwD, CD, DyD, X, W, C, Y))
    return S;
  *Size = 0;
  return CUDNN_STATUS_SUCCESS;
}

// --- tensor arithmetic --------------------------------------------------------------------

CUDNN_API cudnnStatus_t cudnnAddTensor(cudnnHandle_t Handle, const void *Alpha, cudnnTensorDescriptor_t AD,
                                       const void *A, const void *Beta, cudnnTensorDescriptor_t CD, void *C) {
  CHECK_HANDLE(Handle);
  const Tensor *At = tensorOf(AD), *Ct = tensorOf(CD);
  Tensor Av;
  if (!At || !Ct || !Alpha || !Beta || !A || !C || !broadcastView(*At, *Ct, Av))
    return CUDNN_STATUS_BAD_PARAM;
  double Al = scalarArg(Alpha, Ct->Type), Be = scalarArg(Beta, Ct->Type);
  return runOnStream(Ctx->Stream, {{A, At->spanBytes(), true, false}, {C, Ct->spanBytes(), Be != 0, true}},
                     [Av, Cv = *Ct, Al, Be](const std::vector<void *> &P) {
                       withAcc(Cv.Type, [&](auto Z) {
                         std::vector<decltype(Z)> As(Cv.count());
                         gather(Av, P[0], As.data());
                         scatter(Cv, P[1], As.data(), Al, Be);
                       });
                     });
}

CUDNN_API cudnnStatus_t cudnnOpTensor(cudnnHandle_t Handle, cudnnOpTensorDescriptor_t OD, const void *Alpha1,
                                      cudnnTensorDescriptor_t AD, const void *A, const void *Alpha2,
                                      cudnnTensorDescriptor_t BD, const void *B, const void *Beta,
                                      cudnnTensorDescriptor_t CD, void *C) {
  CHECK_HANDLE(Handle);
  cudnnOpTensorStruct *O = zluda::libs::Live<cudnnOpTensorStruct>::find(OD);
  const Tensor *At = tensorOf(AD), *Bt = tensorOf(BD), *Ct = tensorOf(CD);
  Tensor Av, Bv;
  bool Unary = O && (O->Op == CUDNN_OP_TENSOR_SQRT || O->Op == CUDNN_OP_TENSOR_NOT);
  if (!O || !At || !Ct || !Alpha1 || !Beta || !A || !C || !broadcastView(*At, *Ct, Av) ||
      (!Unary && (!Bt || !B || !Alpha2 || !broadcastView(*Bt, *Ct, Bv))))
    return CUDNN_STATUS_BAD_PARAM;
  if (Unary)
    Bv = Av;
  double A1 = scalarArg(Alpha1, Ct->Type), A2 = Unary ? 0 : scalarArg(Alpha2, Ct->Type), Be = scalarArg(Beta, Ct->Type);
  cudnnOpTensorOp_t Op = O->Op;
  return runOnStream(Ctx->Stream,
                     {{A, At->spanBytes(), true, false}, {Unary ? A : B, (Unary ? At : Bt)->spanBytes(), true, false},
                      {C, Ct->spanBytes(), Be != 0, true}},
                     [Av, Bv, Cv = *Ct, A1, A2, Be, Op](const std::vector<void *> &P) {
                       std::vector<double> As(Cv.count()), Bs(Cv.count()), Rs(Cv.count());
                       gather(Av, P[0], As.data());
                       gather(Bv, P[1], Bs.data());
                       for (size_t I = 0; I < Rs.size(); ++I) {
                         double X = A1 * As[I], Y = A2 * Bs[I];
                         switch (Op) {
                         case CUDNN_OP_TENSOR_ADD:
                           Rs[I] = X + Y;
                           break;
                         case CUDNN_OP_TENSOR_MUL:
                           Rs[I] = X * Y;
                           break;
                         case CUDNN_OP_TENSOR_MIN:
                           Rs[I] = std::min(X, Y);
                           break;
                         case CUDNN_OP_TENSOR_MAX:
                           Rs[I] = std::max(X, Y);
                           break;
                         case CUDNN_OP_TENSOR_SQRT:
                           Rs[I] = std::sqrt(X);
                           break;
                         case CUDNN_OP_TENSOR_NOT:
                           Rs[I] = 1 - X;
                           break;
                         }
                       }
                       scatter(Cv, P[2], Rs.data(), 1, Be);
                     });
}

CUDNN_API cudnnStatus_t cudnnSetTensor(cudnnHandle_t Handle, cudnnTensorDescriptor_t YD, void *y, const void *Value) {
  CHECK_HANDLE(Handle);
  const Tensor *Y = tensorOf(YD);
  if (!Y || !y || !Value)
    return CUDNN_STATUS_BAD_PARAM;
  // The value has the tensor's own type.
  double V = 0;
  switch (Y->Type) {
  case CUDNN_DATA_DOUBLE:
    V = *static_cast<const double *>(Value);
    break;
  case CUDNN_DATA_FLOAT:
    V = *static_cast<const float *>(Value);
    break;
  case CUDNN_DATA_HALF:
    V = zluda::libs::halfToFloat(*static_cast<const uint16_t *>(Value));
    break;
  case CUDNN_DATA_BFLOAT16:
    V = zluda::libs::bf16ToFloat(*static_cast<const uint16_t *>(Value));
    break;
  case CUDNN_DATA_INT32:
    V = *static_cast<const int32_t *>(Value);
    break;
  case CUDNN_DATA_INT8:
    V = *static_cast<const int8_t *>(Value);
    break;
  case CUDNN_DATA_UINT8:
    V = *static_cast<const uint8_t *>(Value);
    break;
  default:
    return CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE;
  }
  return runOnStream(Ctx->Stream, {{y, Y->spanBytes(), false, true}}, [Yt = *Y, V](const std::vector<void *> &P) {
    std::vector<double> Vs(Yt.count(), V);
    scatter(Yt, P[0], Vs.data(), 1, 0);
  });
}

CUDNN_API cudnnStatus_t cudnnScaleTensor(cudnnHandle_t Handle, cudnnTensorDescriptor_t YD, void *y, const void *Alpha) {
  CHECK_HANDLE(Handle);
  const Tensor *Y = tensorOf(YD);
  if (!Y || !y || !Alpha)
    return CUDNN_STATUS_BAD_PARAM;
  double Al = scalarArg(Alpha, Y->Type);
  return runOnStream(Ctx->Stream, {{y, Y->spanBytes(), true, true}}, [Yt = *Y, Al](const std::vector<void *> &P) {
    std::vector<double> Vs(Yt.count(), 0.0);
    scatter(Yt, P[0], Vs.data(), 0, Al); // y = 0 * 0 + alpha * y
  });
}

CUDNN_API cudnnStatus_t cudnnTransformTensor(cudnnHandle_t Handle, const void *Alpha, cudnnTensorDescriptor_t XD,
                                             const void *x, const void *Beta, cudnnTensorDescriptor_t YD, void *y) {
  CHECK_HANDLE(Handle);
  const Tensor *X = tensorOf(XD), *Y = tensorOf(YD);
  if (!X || !Y || !Alpha || !Beta || !x || !y || !sameDims(*X, *Y))
    return CUDNN_STATUS_BAD_PARAM;
  double Al = scalarArg(Alpha, Y->Type), Be = scalarArg(Beta, Y->Type);
  return runOnStream(Ctx->Stream, {{x, X->spanBytes(), true, false}, {y, Y->spanBytes(), Be != 0, true}},
                     [Xt = *X, Yt = *Y, Al, Be](const std::vector<void *> &P) {
                       withAcc(Xt.Type == CUDNN_DATA_DOUBLE ? Xt.Type : Yt.Type, [&](auto Z) {
                         std::vector<decltype(Z)> Vs(Xt.count());
                         gather(Xt, P[0], Vs.data());
                         scatter(Yt, P[1], Vs.data(), Al, Be);
                       });
                     });
}

// --- activations and softmax --------------------------------------------------------------

CUDNN_API cudnnStatus_t cudnnActivationForward(cudnnHandle_t Handle, cudnnActivationDescriptor_t AD,
                                               const void *Alpha, cudnnTensorDescriptor_t XD, const void *x,
                                               const void *Beta, cudnnTensorDescriptor_t YD, void *y) {
  CHECK_HANDLE(Handle);
  cudnnActivationStruct *A = zluda::libs::Live<cudnnActivationStruct>::find(AD);
  const Tensor *X = tensorOf(XD), *Y = tensorOf(YD);
  if (!A || !X || !Y || !Alpha || !Beta || !x || !y || !sameDims(*X, *Y))
    return CUDNN_STATUS_BAD_PARAM;
  if (A->Mode == CUDNN_ACTIVATION_IDENTITY)
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnActivationForward", "the identity activation is for the fused forms only");
  double Al = scalarArg(Alpha, Y->Type), Be = scalarArg(Beta, Y->Type);
  Pointwise F = activationFunction(*A, false);
  return runOnStream(Ctx->Stream, {{x, X->spanBytes(), true, false}, {y, Y->spanBytes(), Be != 0, true}},
                     [Xt = *X, Yt = *Y, Al, Be, F](const std::vector<void *> &P) {
                       std::vector<double> Vs(Xt.count());
                       gather(Xt, P[0], Vs.data());
                       for (double &V : Vs)
                         V = pointwiseApply(F, V, 0, 0);
                       scatter(Yt, P[1], Vs.data(), Al, Be);
                     });
}

CUDNN_API cudnnStatus_t cudnnActivationBackward(cudnnHandle_t Handle, cudnnActivationDescriptor_t AD,
                                                const void *Alpha, cudnnTensorDescriptor_t YD, const void *y,
                                                cudnnTensorDescriptor_t DyD, const void *dy,
                                                cudnnTensorDescriptor_t XD, const void *x, const void *Beta,
                                                cudnnTensorDescriptor_t DxD, void *dx) {
  CHECK_HANDLE(Handle);
  cudnnActivationStruct *A = zluda::libs::Live<cudnnActivationStruct>::find(AD);
  const Tensor *Y = tensorOf(YD), *Dy = tensorOf(DyD), *X = tensorOf(XD), *Dx = tensorOf(DxD);
  if (!A || !Y || !Dy || !Dx || !Alpha || !Beta || !y || !dy || !dx || !sameDims(*Dy, *Dx) || !sameDims(*Y, *Dy))
    return CUDNN_STATUS_BAD_PARAM;
  if (A->Mode == CUDNN_ACTIVATION_IDENTITY)
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnActivationBackward", "the identity activation is for the fused forms only");
  double Al = scalarArg(Alpha, Dx->Type), Be = scalarArg(Beta, Dx->Type);
  // Sigmoid and tanh derive from y; the others need x (ReLU's mask also follows y > 0 = x > 0).
  bool FromY = A->Mode == CUDNN_ACTIVATION_SIGMOID || A->Mode == CUDNN_ACTIVATION_TANH || !x || !X;
  cudnnActivationStruct Act = *A;
  return runOnStream(
      Ctx->Stream,
      {{y, Y->spanBytes(), true, false}, {dy, Dy->spanBytes(), true, false},
       {FromY ? nullptr : x, FromY ? 0 : X->spanBytes(), true, false}, {dx, Dx->spanBytes(), Be != 0, true}},
      [Yt = *Y, Dyt = *Dy, Xt = FromY ? *Y : *X, Dxt = *Dx, Al, Be, FromY, Act](const std::vector<void *> &P) {
        std::vector<double> Ys(Yt.count()), Dys(Yt.count()), Xs(Yt.count()), R(Yt.count());
        gather(Yt, P[0], Ys.data());
        gather(Dyt, P[1], Dys.data());
        if (!FromY)
          gather(Xt, P[2], Xs.data());
        Pointwise F = activationFunction(Act, true);
        for (size_t I = 0; I < R.size(); ++I) {
          switch (Act.Mode) {
          case CUDNN_ACTIVATION_SIGMOID:
            R[I] = Dys[I] * Ys[I] * (1 - Ys[I]);
            break;
          case CUDNN_ACTIVATION_TANH:
            R[I] = Dys[I] * (1 - Ys[I] * Ys[I]);
            break;
          case CUDNN_ACTIVATION_RELU:
          case CUDNN_ACTIVATION_CLIPPED_RELU:
            R[I] = FromY ? (Ys[I] > 0 && Ys[I] < F.UpperClip ? Dys[I] : 0) : pointwiseApply(F, Dys[I], Xs[I], 0);
            break;
          default:
            R[I] = pointwiseApply(F, Dys[I], Xs[I], 0);
            break;
          }
        }
        scatter(Dxt, P[3], R.data(), Al, Be);
      });
}

namespace {
/// Softmax's groups: per image (INSTANCE: over C*spatial) or per image and position (CHANNEL: over C).
struct SoftmaxShape {
  int64_t Outer, Len, Inner; // element (o, l, i) at (o * Len + l) * Inner + i
};
SoftmaxShape softmaxShape(const Tensor &T, cudnnSoftmaxMode_t Mode) {
  int64_t N = T.Dim[0], C = T.Rank > 1 ? T.Dim[1] : 1, Sp = T.count() / std::max<int64_t>(1, N * C);
  if (Mode == CUDNN_SOFTMAX_MODE_INSTANCE)
    return {N, C * Sp, 1};
  return {N, C, Sp};
}
} // namespace

CUDNN_API cudnnStatus_t cudnnSoftmaxForward(cudnnHandle_t Handle, cudnnSoftmaxAlgorithm_t Algo,
                                            cudnnSoftmaxMode_t Mode, const void *Alpha, cudnnTensorDescriptor_t XD,
                                            const void *x, const void *Beta, cudnnTensorDescriptor_t YD, void *y) {
  CHECK_HANDLE(Handle);
  const Tensor *X = tensorOf(XD), *Y = tensorOf(YD);
  if (!X || !Y || !Alpha || !Beta || !x || !y || !sameDims(*X, *Y) || Algo < CUDNN_SOFTMAX_FAST ||
      Algo > CUDNN_SOFTMAX_LOG || Mode < CUDNN_SOFTMAX_MODE_INSTANCE || Mode > CUDNN_SOFTMAX_MODE_CHANNEL)
    return CUDNN_STATUS_BAD_PARAM;
  double Al = scalarArg(Alpha, Y->Type), Be = scalarArg(Beta, Y->Type);
  return runOnStream(Ctx->Stream, {{x, X->spanBytes(), true, false}, {y, Y->spanBytes(), Be != 0, true}},
                     [Xt = *X, Yt = *Y, Al, Be, Algo, Mode](const std::vector<void *> &P) {
                       std::vector<double> V(Xt.count());
                       gather(Xt, P[0], V.data());
                       SoftmaxShape S = softmaxShape(Xt, Mode);
                       for (int64_t O = 0; O < S.Outer; ++O)
                         for (int64_t I = 0; I < S.Inner; ++I) {
                           auto At = [&](int64_t L) -> double & { return V[(O * S.Len + L) * S.Inner + I]; };
                           double Max = Algo == CUDNN_SOFTMAX_FAST ? 0 : -std::numeric_limits<double>::infinity();
                           if (Algo != CUDNN_SOFTMAX_FAST)
                             for (int64_t L = 0; L < S.Len; ++L)
                               Max = std::max(Max, At(L));
                           double Sum = 0;
                           for (int64_t L = 0; L < S.Len; ++L)
                             Sum += std::exp(At(L) - Max);
                           for (int64_t L = 0; L < S.Len; ++L)
                             At(L) = Algo == CUDNN_SOFTMAX_LOG ? At(L) - Max - std::log(Sum)
                                                               : std::exp(At(L) - Max) / Sum;
                         }
                       scatter(Yt, P[1], V.data(), Al, Be);
                     });
}

CUDNN_API cudnnStatus_t cudnnSoftmaxBackward(cudnnHandle_t Handle, cudnnSoftmaxAlgorithm_t Algo,
                                             cudnnSoftmaxMode_t Mode, const void *Alpha, cudnnTensorDescriptor_t YD,
                                             const void *y, cudnnTensorDescriptor_t DyD, const void *dy,
                                             const void *Beta, cudnnTensorDescriptor_t DxD, void *dx) {
  CHECK_HANDLE(Handle);
  const Tensor *Y = tensorOf(YD), *Dy = tensorOf(DyD), *Dx = tensorOf(DxD);
  if (!Y || !Dy || !Dx || !Alpha || !Beta || !y || !dy || !dx || !sameDims(*Y, *Dy) || !sameDims(*Y, *Dx) ||
      Algo < CUDNN_SOFTMAX_FAST || Algo > CUDNN_SOFTMAX_LOG || Mode < CUDNN_SOFTMAX_MODE_INSTANCE ||
      Mode > CUDNN_SOFTMAX_MODE_CHANNEL)
    return CUDNN_STATUS_BAD_PARAM;
  double Al = scalarArg(Alpha, Dx->Type), Be = scalarArg(Beta, Dx->Type);
  return runOnStream(
      Ctx->Stream,
      {{y, Y->spanBytes(), true, false}, {dy, Dy->spanBytes(), true, false}, {dx, Dx->spanBytes(), Be != 0, true}},
      [Yt = *Y, Dyt = *Dy, Dxt = *Dx, Al, Be, Algo, Mode](const std::vector<void *> &P) {
        std::vector<double> Ys(Yt.count()), Dys(Yt.count()), R(Yt.count());
        gather(Yt, P[0], Ys.data());
        gather(Dyt, P[1], Dys.data());
        SoftmaxShape S = softmaxShape(Yt, Mode);
        for (int64_t O = 0; O < S.Outer; ++O)
          for (int64_t I = 0; I < S.Inner; ++I) {
            auto Ix = [&](int64_t L) { return (O * S.Len + L) * S.Inner + I; };
            double Sum = 0;
            for (int64_t L = 0; L < S.Len; ++L)
              Sum += Algo == CUDNN_SOFTMAX_LOG ? Dys[Ix(L)] : Dys[Ix(L)] * Ys[Ix(L)];
            for (int64_t L = 0; L < S.Len; ++L)
              R[Ix(L)] = Algo == CUDNN_SOFTMAX_LOG ? Dys[Ix(L)] - std::exp(Ys[Ix(L)]) * Sum
                                                   : Ys[Ix(L)] * (Dys[Ix(L)] - Sum);
          }
        scatter(Dxt, P[2], R.data(), Al, Be);
      });
}

// --- pooling ------------------------------------------------------------------------------

namespace {
/// Calls Fn(input index) over the window of output position \p O (packed indices within one plane).
struct PoolGeo {
  int Sp;
  int64_t In[3] = {1, 1, 1}, Out[3] = {1, 1, 1}, Win[3] = {1, 1, 1}, Pad[3] = {0, 0, 0}, Str[3] = {1, 1, 1};
  int64_t ISP = 1, OSP = 1;
  PoolGeo(const cudnnPoolingStruct &P, const Tensor &X, const Tensor &Y) : Sp(P.Spatial) {
    int Off = 3 - Sp;
    for (int I = 0; I < Sp; ++I) {
      In[Off + I] = X.Dim[2 + I];
      Out[Off + I] = Y.Dim[2 + I];
      Win[Off + I] = P.Window[I];
      Pad[Off + I] = P.Pad[I];
      Str[Off + I] = P.Stride[I];
    }
    ISP = In[0] * In[1] * In[2];
    OSP = Out[0] * Out[1] * Out[2];
  }
  /// The window of output \p O: calls Fn(input index or -1 for padding).
  template <typename F> void window(int64_t O, F Fn) const {
    int64_t Ow = O % Out[2], Oh = (O / Out[2]) % Out[1], Od = O / (Out[2] * Out[1]);
    for (int64_t Kd = 0; Kd < Win[0]; ++Kd)
      for (int64_t Kh = 0; Kh < Win[1]; ++Kh)
        for (int64_t Kw = 0; Kw < Win[2]; ++Kw) {
          int64_t D = Od * Str[0] - Pad[0] + Kd, H = Oh * Str[1] - Pad[1] + Kh, W = Ow * Str[2] - Pad[2] + Kw;
          bool Inside = D >= 0 && D < In[0] && H >= 0 && H < In[1] && W >= 0 && W < In[2];
          // A window position past the padded input (a partial last window) is not counted.
          bool Padded = D < In[0] + Pad[0] && H < In[1] + Pad[1] && W < In[2] + Pad[2];
          if (Inside)
            Fn((D * In[1] + H) * In[2] + W);
          else if (Padded)
            Fn(int64_t(-1));
        }
  }
};
} // namespace

CUDNN_API cudnnStatus_t cudnnPoolingForward(cudnnHandle_t Handle, cudnnPoolingDescriptor_t PD, const void *Alpha,
                                            cudnnTensorDescriptor_t XD, const void *x, const void *Beta,
                                            cudnnTensorDescriptor_t YD, void *y) {
  CHECK_HANDLE(Handle);
  cudnnPoolingStruct *Pl = zluda::libs::Live<cudnnPoolingStruct>::find(PD);
  const Tensor *X = tensorOf(XD), *Y = tensorOf(YD);
  if (!Pl || !Pl->Spatial || !X || !Y || !Alpha || !Beta || !x || !y || X->Rank != Pl->Spatial + 2 ||
      Y->Rank != X->Rank || Y->Dim[0] != X->Dim[0] || Y->Dim[1] != X->Dim[1])
    return CUDNN_STATUS_BAD_PARAM;
  double Al = scalarArg(Alpha, Y->Type), Be = scalarArg(Beta, Y->Type);
  return runOnStream(Ctx->Stream, {{x, X->spanBytes(), true, false}, {y, Y->spanBytes(), Be != 0, true}},
                     [Xt = *X, Yt = *Y, Al, Be, Pool = *Pl](const std::vector<void *> &P) {
                       PoolGeo G(Pool, Xt, Yt);
                       std::vector<double> Xs(Xt.count()), Ys(Yt.count());
                       gather(Xt, P[0], Xs.data());
                       int64_t Planes = Xt.Dim[0] * Xt.Dim[1];
                       bool Max = Pool.Mode == CUDNN_POOLING_MAX || Pool.Mode == CUDNN_POOLING_MAX_DETERMINISTIC;
                       for (int64_t Pn = 0; Pn < Planes; ++Pn)
                         for (int64_t O = 0; O < G.OSP; ++O) {
                           const double *Xp = Xs.data() + Pn * G.ISP;
                           double Acc = Max ? -std::numeric_limits<double>::infinity() : 0;
                           int64_t Count = 0, All = 0;
                           bool Nan = false;
                           G.window(O, [&](int64_t I) {
                             ++All;
                             if (I < 0)
                               return;
                             ++Count;
                             Nan = Nan || std::isnan(Xp[I]);
                             Acc = Max ? std::max(Acc, Xp[I]) : Acc + Xp[I];
                           });
                           if (Max)
                             Ys[Pn * G.OSP + O] = Nan && Pool.Nan == CUDNN_PROPAGATE_NAN ? NAN : Acc;
                           else
                             Ys[Pn * G.OSP + O] =
                                 Acc / double(std::max<int64_t>(
                                           1, Pool.Mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? All : Count));
                         }
                       scatter(Yt, P[1], Ys.data(), Al, Be);
                     });
}

CUDNN_API cudnnStatus_t cudnnPoolingBackward(cudnnHandle_t Handle, cudnnPoolingDescriptor_t PD, const void *Alpha,
                                             cudnnTensorDescriptor_t YD, const void *y, cudnnTensorDescriptor_t DyD,
                                             const void *dy, cudnnTensorDescriptor_t XD, const void *x,
                                             const void *Beta, cudnnTensorDescriptor_t DxD, void *dx) {
  CHECK_HANDLE(Handle);
  cudnnPoolingStruct *Pl = zluda::libs::Live<cudnnPoolingStruct>::find(PD);
  const Tensor *Y = tensorOf(YD), *Dy = tensorOf(DyD), *X = tensorOf(XD), *Dx = tensorOf(DxD);
  if (!Pl || !Pl->Spatial || !Y || !Dy || !X || !Dx || !Alpha || !Beta || !dy || !x || !dx ||
      X->Rank != Pl->Spatial + 2 || !sameDims(*X, *Dx) || !sameDims(*Y, *Dy))
    return CUDNN_STATUS_BAD_PARAM;
  double Al = scalarArg(Alpha, Dx->Type), Be = scalarArg(Beta, Dx->Type);
  return runOnStream(
      Ctx->Stream,
      {{dy, Dy->spanBytes(), true, false}, {x, X->spanBytes(), true, false}, {dx, Dx->spanBytes(), Be != 0, true}},
      [Dyt = *Dy, Xt = *X, Dxt = *Dx, Al, Be, Pool = *Pl](const std::vector<void *> &P) {
        PoolGeo G(Pool, Xt, Dyt);
        std::vector<double> Dys(Dyt.count()), Xs(Xt.count()), Dxs(Xt.count(), 0.0);
        gather(Dyt, P[0], Dys.data());
        gather(Xt, P[1], Xs.data());
        int64_t Planes = Xt.Dim[0] * Xt.Dim[1];
        bool Max = Pool.Mode == CUDNN_POOLING_MAX || Pool.Mode == CUDNN_POOLING_MAX_DETERMINISTIC;
        for (int64_t Pn = 0; Pn < Planes; ++Pn)
          for (int64_t O = 0; O < G.OSP; ++O) {
            const double *Xp = Xs.data() + Pn * G.ISP;
            double *Dp = Dxs.data() + Pn * G.ISP;
            double Dv = Dys[Pn * G.OSP + O];
            if (Max) { // the first maximum of the window takes the gradient
              int64_t Arg = -1;
              G.window(O, [&](int64_t I) {
                if (I >= 0 && (Arg < 0 || Xp[I] > Xp[Arg]))
                  Arg = I;
              });
              if (Arg >= 0)
                Dp[Arg] += Dv;
              continue;
            }
            int64_t Count = 0, All = 0;
            G.window(O, [&](int64_t I) {
              ++All;
              Count += I >= 0;
            });
            double Share =
                Dv / double(std::max<int64_t>(1, Pool.Mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? All : Count));
            G.window(O, [&](int64_t I) {
              if (I >= 0)
                Dp[I] += Share;
            });
          }
        scatter(Dxt, P[2], Dxs.data(), Al, Be);
      });
}

// --- batch normalization ------------------------------------------------------------------

CUDNN_API cudnnStatus_t cudnnDeriveBNTensorDescriptor(cudnnTensorDescriptor_t Derived, cudnnTensorDescriptor_t XD,
                                                      cudnnBatchNormMode_t Mode) {
  cudnnTensorStruct *D = zluda::libs::Live<cudnnTensorStruct>::find(Derived);
  const Tensor *X = tensorOf(XD);
  if (!D || !X || X->Rank < 3 || Mode < CUDNN_BATCHNORM_PER_ACTIVATION || Mode > CUDNN_BATCHNORM_SPATIAL_PERSISTENT)
    return CUDNN_STATUS_BAD_PARAM;
  int64_t Dims[MaxDims];
  Dims[0] = 1;
  for (int I = 1; I < X->Rank; ++I)
    Dims[I] = Mode == CUDNN_BATCHNORM_PER_ACTIVATION || I == 1 ? X->Dim[I] : 1;
  // Half and bfloat16 data keep their statistics in float.
  cudnnDataType_t T = X->Type == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  D->T = Tensor::packed(T, X->Rank, Dims);
  D->Set = true;
  return CUDNN_STATUS_SUCCESS;
}

namespace {
/// Batch norm's view of x: Groups statistics (channels, or C*spatial per activation), each over Count values.
struct BnShape {
  int64_t N, Groups, Inner; // element (n, g, i) at (n * Groups + g) * Inner + i; stats over n and i
  BnShape(const Tensor &X, cudnnBatchNormMode_t Mode) {
    N = X.Dim[0];
    int64_t Rest = X.count() / N;
    if (Mode == CUDNN_BATCHNORM_PER_ACTIVATION) {
      Groups = Rest;
      Inner = 1;
    } else {
      Groups = X.Dim[1];
      Inner = Rest / Groups;
    }
  }
  int64_t count() const { return N * Inner; }
  template <typename F> void each(int64_t G, F Fn) const {
    for (int64_t Nn = 0; Nn < N; ++Nn)
      for (int64_t I = 0; I < Inner; ++I)
        Fn((Nn * Groups + G) * Inner + I);
  }
};

bool bnParamsFit(const Tensor &P, const BnShape &S) { return P.count() == S.Groups; }

/// The training forward pass shared by the plain and Ex forms: ops adds z and/or a ReLU.
cudnnStatus_t bnForwardTraining(cudnnContext *Ctx, cudnnBatchNormMode_t Mode, cudnnBatchNormOps_t Ops,
                                const void *Alpha, const void *Beta, const Tensor *X, const void *x, const Tensor *Z,
                                const void *z, const Tensor *Y, void *y, const Tensor *Pd, const void *Scale,
                                const void *Bias, double Factor, void *RunMean, void *RunVar, double Eps,
                                void *SaveMean, void *SaveInvVar, const cudnnActivationStruct *Act) {
  if (!X || !Y || !Pd || !Alpha || !Beta || !x || !y || !Scale || !Bias || !sameDims(*X, *Y) || Eps < 0 ||
      (RunMean == nullptr) != (RunVar == nullptr) || (SaveMean == nullptr) != (SaveInvVar == nullptr))
    return CUDNN_STATUS_BAD_PARAM;
  BnShape S(*X, Mode);
  if (!bnParamsFit(*Pd, S))
    return CUDNN_STATUS_BAD_PARAM;
  if (Ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION && (!Z || !z || !sameDims(*Z, *Y)))
    return CUDNN_STATUS_BAD_PARAM;
  if (Ops != CUDNN_BATCHNORM_OPS_BN && (!Act || Act->Mode != CUDNN_ACTIVATION_RELU))
    return fail(CUDNN_STATUS_NOT_SUPPORTED, "cudnnBatchNormalizationForwardTrainingEx", "only ReLU is fused");
  double Al = scalarArg(Alpha, Y->Type), Be = scalarArg(Beta, Y->Type);
  size_t PB = Pd->spanBytes();
  Tensor Zt = Z ? *Z : *Y;
  return runOnStream(
      Ctx->Stream,
      {{x, X->spanBytes(), true, false}, {Ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION ? z : nullptr, Zt.spanBytes(), true, false},
       {y, Y->spanBytes(), Be != 0, true}, {Scale, PB, true, false}, {Bias, PB, true, false},
       {RunMean, PB, true, true}, {RunVar, PB, true, true}, {SaveMean, PB, false, true}, {SaveInvVar, PB, false, true}},
      [Xt = *X, Zt, Yt = *Y, Pt = *Pd, S, Ops, Al, Be, Factor, Eps](const std::vector<void *> &P) {
        std::vector<double> Xs(Xt.count()), Zs, Ys(Xt.count()), Sc(S.Groups), Bi(S.Groups), Mean(S.Groups),
            InvStd(S.Groups), Var(S.Groups);
        gather(Xt, P[0], Xs.data());
        if (P[1]) {
          Zs.resize(Xt.count());
          gather(Zt, P[1], Zs.data());
        }
        gather(Pt, P[3], Sc.data());
        gather(Pt, P[4], Bi.data());
        double M = double(S.count());
        for (int64_t G = 0; G < S.Groups; ++G) {
          double Sum = 0, Sq = 0;
          S.each(G, [&](int64_t I) { Sum += Xs[I]; });
          double Mu = Sum / M;
          S.each(G, [&](int64_t I) { Sq += (Xs[I] - Mu) * (Xs[I] - Mu); });
          Mean[G] = Mu;
          Var[G] = Sq / M;
          InvStd[G] = 1 / std::sqrt(Var[G] + Eps);
          S.each(G, [&](int64_t I) {
            double V = Sc[G] * (Xs[I] - Mu) * InvStd[G] + Bi[G];
            if (!Zs.empty())
              V += Zs[I];
            if (Ops != CUDNN_BATCHNORM_OPS_BN)
              V = std::max(V, 0.0);
            Ys[I] = V;
          });
        }
        scatter(Yt, P[2], Ys.data(), Al, Be);
        if (P[5]) { // running averages: the variance unbiased, as the reference's
          std::vector<double> Unbiased(S.Groups);
          for (int64_t G = 0; G < S.Groups; ++G)
            Unbiased[G] = M > 1 ? Var[G] * M / (M - 1) : Var[G];
          scatter(Pt, P[5], Mean.data(), Factor, 1 - Factor);
          scatter(Pt, P[6], Unbiased.data(), Factor, 1 - Factor);
        }
        if (P[7]) {
          scatter(Pt, P[7], Mean.data(), 1, 0);
          scatter(Pt, P[8], InvStd.data(), 1, 0);
        }
      });
}

cudnnStatus_t bnBackward(cudnnContext *Ctx, cudnnBatchNormMode_t Mode, cudnnBatchNormOps_t Ops, const void *AlphaD,
                         const void *BetaD, const void *AlphaP, const void *BetaP, const Tensor *X, const void *x,
                         const Tensor *Y, const void *y, const Tensor *Dy, const void *dy, const Tensor *Dz, void *dz,
                         const Tensor *Dx, void *dx, const Tensor *Pd, const void *Scale, const void *Bias,
                         void *DScale, void *DBias, double Eps, const void *SavedMean, const void *SavedInvVar) {
  if (!X || !Dy || !Dx || !Pd || !AlphaD || !BetaD || !AlphaP || !BetaP || !x || !dy || !dx || !Scale || !DScale ||
      !DBias || !sameDims(*X, *Dy) || !sameDims(*X, *Dx) || (SavedMean == nullptr) != (SavedInvVar == nullptr))
    return CUDNN_STATUS_BAD_PARAM;
  BnShape S(*X, Mode);
  if (!bnParamsFit(*Pd, S))
    return CUDNN_STATUS_BAD_PARAM;
  // With a fused ReLU the mask comes from the forward's output y (and its bias).
  if (Ops != CUDNN_BATCHNORM_OPS_BN && (!Y || !y || !Bias))
    return CUDNN_STATUS_BAD_PARAM;
  if (Ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION && (!Dz || !dz))
    return CUDNN_STATUS_BAD_PARAM;
  double Ad = scalarArg(AlphaD, Dx->Type), Bd = scalarArg(BetaD, Dx->Type), Ap = scalarArg(AlphaP, Dx->Type),
         Bp = scalarArg(BetaP, Dx->Type);
  size_t PB = Pd->spanBytes();
  Tensor Yt = Y ? *Y : *X, Dzt = Dz ? *Dz : *X;
  return runOnStream(
      Ctx->Stream,
      {{x, X->spanBytes(), true, false}, {Ops != CUDNN_BATCHNORM_OPS_BN ? y : nullptr, Yt.spanBytes(), true, false},
       {dy, Dy->spanBytes(), true, false}, {Ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION ? dz : nullptr, Dzt.spanBytes(), false, true},
       {dx, Dx->spanBytes(), Bd != 0, true}, {Scale, PB, true, false}, {DScale, PB, Bp != 0, true},
       {DBias, PB, Bp != 0, true}, {SavedMean, PB, true, false}, {SavedInvVar, PB, true, false}},
      [Xt = *X, Yt, Dyt = *Dy, Dzt, Dxt = *Dx, Pt = *Pd, S, Ad, Bd, Ap, Bp, Eps](const std::vector<void *> &P) {
        int64_t Nn = Xt.count();
        std::vector<double> Xs(Nn), Dys(Nn), Dxs(Nn), Sc(S.Groups), Mean(S.Groups), Inv(S.Groups), Dsc(S.Groups),
            Dbi(S.Groups);
        gather(Xt, P[0], Xs.data());
        gather(Dyt, P[2], Dys.data());
        gather(Pt, P[5], Sc.data());
        if (P[1]) { // the ReLU's gradient mask
          std::vector<double> Ys(Nn);
          gather(Yt, P[1], Ys.data());
          for (int64_t I = 0; I < Nn; ++I)
            if (Ys[I] <= 0)
              Dys[I] = 0;
          if (P[3])
            scatter(Dzt, P[3], Dys.data(), 1, 0);
        }
        double M = double(S.count());
        if (P[8]) {
          gather(Pt, P[8], Mean.data());
          gather(Pt, P[9], Inv.data());
        } else {
          for (int64_t G = 0; G < S.Groups; ++G) {
            double Sum = 0, Sq = 0;
            S.each(G, [&](int64_t I) { Sum += Xs[I]; });
            Mean[G] = Sum / M;
            S.each(G, [&](int64_t I) { Sq += (Xs[I] - Mean[G]) * (Xs[I] - Mean[G]); });
            Inv[G] = 1 / std::sqrt(Sq / M + Eps);
          }
        }
        for (int64_t G = 0; G < S.Groups; ++G) {
          double SumDy = 0, SumDyXh = 0;
          S.each(G, [&](int64_t I) {
            double Xh = (Xs[I] - Mean[G]) * Inv[G];
            SumDy += Dys[I];
            SumDyXh += Dys[I] * Xh;
          });
          Dbi[G] = SumDy;
          Dsc[G] = SumDyXh;
          S.each(G, [&](int64_t I) {
            double Xh = (Xs[I] - Mean[G]) * Inv[G];
            Dxs[I] = Sc[G] * Inv[G] * (Dys[I] - SumDy / M - Xh * SumDyXh / M);
          });
        }
        scatter(Dxt, P[4], Dxs.data(), Ad, Bd);
        scatter(Pt, P[6], Dsc.data(), Ap, Bp);
        scatter(Pt, P[7], Dbi.data(), Ap, Bp);
      });
}
} // namespace

CUDNN_API cudnnStatus_t cudnnBatchNormalizationForwardTraining(
    cudnnHandle_t Handle, cudnnBatchNormMode_t Mode, const void *Alpha, const void *Beta, cudnnTensorDescriptor_t XD,
    const void *x, cudnnTensorDescriptor_t YD, void *y, cudnnTensorDescriptor_t PD, const void *Scale,
    const void *Bias, double Factor, void *RunMean, void *RunVar, double Eps, void *SaveMean, void *SaveInvVar) {
  CHECK_HANDLE(Handle);
  return bnForwardTraining(Ctx, Mode, CUDNN_BATCHNORM_OPS_BN, Alpha, Beta, tensorOf(XD), x, nullptr, nullptr,
                           tensorOf(YD), y, tensorOf(PD), Scale, Bias, Factor, RunMean, RunVar, Eps, SaveMean,
                           SaveInvVar, nullptr);
}

CUDNN_API cudnnStatus_t cudnnBatchNormalizationForwardTrainingEx(
    cudnnHandle_t Handle, cudnnBatchNormMode_t Mode, cudnnBatchNormOps_t Ops, const void *Alpha, const void *Beta,
    cudnnTensorDescriptor_t XD, const void *x, cudnnTensorDescriptor_t ZD, const void *z, cudnnTensorDescriptor_t YD,
    void *y, cudnnTensorDescriptor_t PD, const void *Scale, const void *Bias, double Factor, void *RunMean,
    void *RunVar, double Eps, void *SaveMean, void *SaveInvVar, cudnnActivationDescriptor_t AD, void *, size_t, void *,
    size_t) {
  CHECK_HANDLE(Handle);
  return bnForwardTraining(Ctx, Mode, Ops, Alpha, Beta, tensorOf(XD), x, tensorOf(ZD), z, tensorOf(YD), y,
                           tensorOf(PD), Scale, Bias, Factor, RunMean, RunVar, Eps, SaveMean, SaveInvVar,
                           zluda::libs::Live<cudnnActivationStruct>::find(AD));
}

CUDNN_API cudnnStatus_t cudnnBatchNormalizationForwardInference(
    cudnnHandle_t Handle, cudnnBatchNormMode_t Mode, const void *Alpha, const void *Beta, cudnnTensorDescriptor_t XD,
    const void *x, cudnnTensorDescriptor_t YD, void *y, cudnnTensorDescriptor_t PD, const void *Scale,
    const void *Bias, const void *Mean, const void *Var, double Eps) {
  CHECK_HANDLE(Handle);
  const Tensor *X = tensorOf(XD), *Y = tensorOf(YD), *Pd = tensorOf(PD);
  if (!X || !Y || !Pd || !Alpha || !Beta || !x || !y || !Scale || !Bias || !Mean || !Var || !sameDims(*X, *Y) ||
      Eps < 0)
    return CUDNN_STATUS_BAD_PARAM;
  BnShape S(*X, Mode);
  if (!bnParamsFit(*Pd, S))
    return CUDNN_STATUS_BAD_PARAM;
  double Al = scalarArg(Alpha, Y->Type), Be = scalarArg(Beta, Y->Type);
  size_t PB = Pd->spanBytes();
  return runOnStream(Ctx->Stream,
                     {{x, X->spanBytes(), true, false}, {y, Y->spanBytes(), Be != 0, true}, {Scale, PB, true, false},
                      {Bias, PB, true, false}, {Mean, PB, true, false}, {Var, PB, true, false}},
                     [Xt = *X, Yt = *Y, Pt = *Pd, S, Al, Be, Eps](const std::vector<void *> &P) {
                       std::vector<double> Xs(Xt.count()), Sc(S.Groups), Bi(S.Groups), Mu(S.Groups), Va(S.Groups);
                       gather(Xt, P[0], Xs.data());
                       gather(Pt, P[2], Sc.data());
                       gather(Pt, P[3], Bi.data());
                       gather(Pt, P[4], Mu.data());
                       gather(Pt, P[5], Va.data());
                       for (int64_t G = 0; G < S.Groups; ++G) {
                         double Inv = 1 / std::sqrt(Va[G] + Eps);
                         S.each(G, [&](int64_t I) { Xs[I] = Sc[G] * (Xs[I] - Mu[G]) * Inv + Bi[G]; });
                       }
                       scatter(Yt, P[1], Xs.data(), Al, Be);
                     });
}

CUDNN_API cudnnStatus_t cudnnBatchNormalizationBackward(
    cudnnHandle_t Handle, cudnnBatchNormMode_t Mode, const void *AlphaD, const void *BetaD, const void *AlphaP,
    const void *BetaP, cudnnTensorDescriptor_t XD, const void *x, cudnnTensorDescriptor_t DyD, const void *dy,
    cudnnTensorDescriptor_t DxD, void *dx, cudnnTensorDescriptor_t PD, const void *Scale, void *DScale, void *DBias,
    double Eps, const void *SavedMean, const void *SavedInvVar) {
  CHECK_HANDLE(Handle);
  return bnBackward(Ctx, Mode, CUDNN_BATCHNORM_OPS_BN, AlphaD, BetaD, AlphaP, BetaP, tensorOf(XD), x, nullptr, nullptr,
                    tensorOf(DyD), dy, nullptr, nullptr, tensorOf(DxD), dx, tensorOf(PD), Scale, nullptr, DScale,
                    DBias, Eps, SavedMean, SavedInvVar);
}

CUDNN_API cudnnStatus_t cudnnBatchNormalizationBackwardEx(
    cudnnHandle_t Handle, cudnnBatchNormMode_t Mode, cudnnBatchNormOps_t Ops, const void *AlphaD, const void *BetaD,
    const void *AlphaP, const void *BetaP, cudnnTensorDescriptor_t XD, const void *x, cudnnTensorDescriptor_t YD,
    const void *y, cudnnTensorDescriptor_t DyD, const void *dy, cudnnTensorDescriptor_t DzD, void *dz,
    cudnnTensorDescriptor_t DxD, void *dx, cudnnTensorDescriptor_t PD, const void *Scale, const void *Bias,
    void *DScale, void *DBias, double Eps, const void *SavedMean, const void *SavedInvVar,
    cudnnActivationDescriptor_t AD, void *, size_t, void *, size_t) {
  CHECK_HANDLE(Handle);
  cudnnActivationStruct *A = zluda::libs::Live<cudnnActivationStruct>::find(AD);
  if (Ops != CUDNN_BATCHNORM_OPS_BN && (!A || A->Mode != CUDNN_ACTIVATION_RELU))
    return fail(CUDNN_STATUS_NOT_SUPPORTED, "cudnnBatchNormalizationBackwardEx", "only ReLU is fused");
  return bnBackward(Ctx, Mode, Ops, AlphaD, BetaD, AlphaP, BetaP, tensorOf(XD), x, tensorOf(YD), y, tensorOf(DyD), dy,
                    tensorOf(DzD), dz, tensorOf(DxD), dx, tensorOf(PD), Scale, Bias, DScale, DBias, Eps, SavedMean,
                    SavedInvVar);
}

// Our passes need no workspace or reserve space (statistics go to the saved mean and inverse deviation).
CUDNN_API cudnnStatus_t cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
    cudnnHandle_t H, cudnnBatchNormMode_t, cudnnBatchNormOps_t, cudnnTensorDescriptor_t, cudnnTensorDescriptor_t,
    cudnnTensorDescriptor_t, cudnnTensorDescriptor_t, cudnnActivationDescriptor_t, size_t *Size) {
  if (!handleOf(H) || !Size)
    return CUDNN_STATUS_BAD_PARAM;
  *Size = 0;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetBatchNormalizationBackwardExWorkspaceSize(
    cudnnHandle_t H, cudnnBatchNormMode_t, cudnnBatchNormOps_t, cudnnTensorDescriptor_t, cudnnTensorDescriptor_t,
    cudnnTensorDescriptor_t, cudnnTensorDescriptor_t, cudnnTensorDescriptor_t, cudnnTensorDescriptor_t,
    cudnnActivationDescriptor_t, size_t *Size) {
  if (!handleOf(H) || !Size)
    return CUDNN_STATUS_BAD_PARAM;
  *Size = 0;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetBatchNormalizationTrainingExReserveSpaceSize(cudnnHandle_t H, cudnnBatchNormMode_t,
                                                                             cudnnBatchNormOps_t,
                                                                             cudnnActivationDescriptor_t,
                                                                             cudnnTensorDescriptor_t, size_t *Size) {
  if (!handleOf(H) || !Size)
    return CUDNN_STATUS_BAD_PARAM;
  *Size = 0;
  return CUDNN_STATUS_SUCCESS;
}

// --- local response normalization across channels --------------------------------------

namespace {
/// y = x / (k + alpha / n * sum of x^2 over the channel window)^beta, the window [c - (n-1)/2, c + n/2]
/// (lookBehind = floor((n-1)/2), lookAhead = n - lookBehind - 1, as the reference defines it); lrnAlpha is
/// divided by the window width as the reference's descriptor says.
struct LrnShape {
  int64_t N, C, Sp;
  explicit LrnShape(const Tensor &T) : N(T.Dim[0]), C(T.Dim[1]), Sp(T.count() / (T.Dim[0] * T.Dim[1])) {}
  int64_t at(int64_t n, int64_t c, int64_t s) const { return (n * C + c) * Sp + s; }
};
std::vector<double> lrnScale(const LrnShape &S, const cudnnLRNStruct &L, const std::vector<double> &X) {
  int64_t Behind = (L.N - 1) / 2, Ahead = int64_t(L.N) - Behind - 1;
  std::vector<double> D(X.size());
  for (int64_t n = 0; n < S.N; ++n)
    for (int64_t s = 0; s < S.Sp; ++s)
      for (int64_t c = 0; c < S.C; ++c) {
        double Sum = 0;
        for (int64_t k = std::max<int64_t>(0, c - Behind); k <= std::min(S.C - 1, c + Ahead); ++k)
          Sum += X[S.at(n, k, s)] * X[S.at(n, k, s)];
        D[S.at(n, c, s)] = L.K + L.Alpha / double(L.N) * Sum;
      }
  return D;
}
} // namespace

CUDNN_API cudnnStatus_t cudnnLRNCrossChannelForward(cudnnHandle_t Handle, cudnnLRNDescriptor_t LD, int Mode,
                                                    const void *Alpha, cudnnTensorDescriptor_t XD, const void *x,
                                                    const void *Beta, cudnnTensorDescriptor_t YD, void *y) {
  CHECK_HANDLE(Handle);
  cudnnLRNStruct *L = zluda::libs::Live<cudnnLRNStruct>::find(LD);
  const Tensor *X = tensorOf(XD), *Y = tensorOf(YD);
  if (!L || Mode != 0 || !X || !Y || !Alpha || !Beta || !x || !y || !sameDims(*X, *Y) || X->Rank < 3)
    return CUDNN_STATUS_BAD_PARAM;
  double Al = scalarArg(Alpha, Y->Type), Be = scalarArg(Beta, Y->Type);
  return runOnStream(Ctx->Stream, {{x, X->spanBytes(), true, false}, {y, Y->spanBytes(), Be != 0, true}},
                     [Xt = *X, Yt = *Y, Lr = *L, Al, Be](const std::vector<void *> &P) {
                       std::vector<double> Xs(Xt.count());
                       gather(Xt, P[0], Xs.data());
                       LrnShape S(Xt);
                       std::vector<double> D = lrnScale(S, Lr, Xs);
                       for (size_t I = 0; I < Xs.size(); ++I)
                         Xs[I] *= std::pow(D[I], -Lr.Beta);
                       scatter(Yt, P[1], Xs.data(), Al, Be);
                     });
}

CUDNN_API cudnnStatus_t cudnnLRNCrossChannelBackward(cudnnHandle_t Handle, cudnnLRNDescriptor_t LD, int Mode,
                                                     const void *Alpha, cudnnTensorDescriptor_t YD, const void *y,
                                                     cudnnTensorDescriptor_t DyD, const void *dy,
                                                     cudnnTensorDescriptor_t XD, const void *x, const void *Beta,
                                                     cudnnTensorDescriptor_t DxD, void *dx) {
  CHECK_HANDLE(Handle);
  cudnnLRNStruct *L = zluda::libs::Live<cudnnLRNStruct>::find(LD);
  const Tensor *Y = tensorOf(YD), *Dy = tensorOf(DyD), *X = tensorOf(XD), *Dx = tensorOf(DxD);
  if (!L || Mode != 0 || !Dy || !X || !Dx || !Alpha || !Beta || !dy || !x || !dx || !sameDims(*X, *Dx) ||
      !sameDims(*X, *Dy) || X->Rank < 3 || (Y && !sameDims(*X, *Y)))
    return CUDNN_STATUS_BAD_PARAM;
  (void)y; // recomputed from x
  double Al = scalarArg(Alpha, Dx->Type), Be = scalarArg(Beta, Dx->Type);
  return runOnStream(
      Ctx->Stream,
      {{dy, Dy->spanBytes(), true, false}, {x, X->spanBytes(), true, false}, {dx, Dx->spanBytes(), Be != 0, true}},
      [Dyt = *Dy, Xt = *X, Dxt = *Dx, Lr = *L, Al, Be](const std::vector<void *> &P) {
        std::vector<double> Dys(Xt.count()), Xs(Xt.count()), R(Xt.count());
        gather(Dyt, P[0], Dys.data());
        gather(Xt, P[1], Xs.data());
        LrnShape S(Xt);
        std::vector<double> D = lrnScale(S, Lr, Xs);
        int64_t Behind = (Lr.N - 1) / 2, Ahead = int64_t(Lr.N) - Behind - 1;
        // dx_j = dy_j D_j^-beta - 2 alpha beta / n * x_j * sum over the windows holding j of dy_i x_i D_i^(-beta-1).
        for (int64_t n = 0; n < S.N; ++n)
          for (int64_t s = 0; s < S.Sp; ++s)
            for (int64_t j = 0; j < S.C; ++j) {
              double Acc = 0;
              for (int64_t i = std::max<int64_t>(0, j - Ahead); i <= std::min(S.C - 1, j + Behind); ++i) {
                int64_t I = S.at(n, i, s);
                Acc += Dys[I] * Xs[I] * std::pow(D[I], -Lr.Beta - 1);
              }
              int64_t J = S.at(n, j, s);
              R[J] = Dys[J] * std::pow(D[J], -Lr.Beta) - 2 * Lr.Alpha * Lr.Beta / double(Lr.N) * Xs[J] * Acc;
            }
        scatter(Dxt, P[2], R.data(), Al, Be);
      });
}
