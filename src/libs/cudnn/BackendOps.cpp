//===- BackendOps.cpp - cuDNN's backend API: attention and norms ----------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The unified scaled-dot-product attention forward and backward and the norm forward and
/// backward operations of the backend API: their finalize (what the descriptors must hold) and their
/// run on the host over the graph's values (BackendImpl.h).
#include "libs/cudnn/BackendImpl.h"

#include <algorithm>
#include <cmath>

namespace zluda::dnn::backend {

/// The unified scaled-dot-product attention (cuDNN 9.13+'s one-operation form the frontend builds for
/// training): O = softmax(scale * Q K^T) V per batch and head, Stats = each row's log-sum-exp. Grouped
/// heads (K/V heads dividing Q's) are read as the reference does; masks, paging and sequence lengths are not
/// supported yet.
cudnnStatus_t finalizeSdpaOp(Desc &D) {
  const TensorInfo *Q = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC), *K = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC),
                   *V = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC), *O = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC),
                   *St = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC),
                   *Sc = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC);
  if (!Q || !K || !V || !O)
    return fail(CUDNN_STATUS_BAD_PARAM, "SDPA forward operation", "q, k, v and o are needed");
  for (int A : {int(CUDNN_ATTR_OPERATION_SDPA_FWD_BLOCK_MASK_DESC), int(CUDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_KDESC),
                int(CUDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_VDESC), int(CUDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC),
                int(CUDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC)})
    if (attr(D, A))
      return fail(CUDNN_STATUS_NOT_SUPPORTED, "SDPA forward operation",
                  "block masks, paged caches and sequence lengths are not supported (attribute " + std::to_string(A) + ")");
  const Tensor &Qt = Q->T, &Kt = K->T, &Vt = V->T, &Ot = O->T;
  if (Qt.Rank != 4 || Kt.Rank != 4 || Vt.Rank != 4 || Ot.Rank != 4 || Kt.Dim[0] != Qt.Dim[0] || Vt.Dim[0] != Qt.Dim[0] ||
      Qt.Dim[3] != Kt.Dim[3] || Kt.Dim[2] != Vt.Dim[2] || Kt.Dim[1] == 0 || Vt.Dim[1] == 0 || Qt.Dim[1] % Kt.Dim[1] ||
      Qt.Dim[1] % Vt.Dim[1] || Ot.Dim[0] != Qt.Dim[0] || Ot.Dim[1] != Qt.Dim[1] || Ot.Dim[2] != Qt.Dim[2] ||
      Ot.Dim[3] != Vt.Dim[3])
    return fail(CUDNN_STATUS_BAD_PARAM, "SDPA forward operation",
                "q [b, h, s_q, d], k [b, h_k, s_kv, d], v [b, h_v, s_kv, d_v] and o [b, h, s_q, d_v] are needed");
  if (St && (St->T.Rank != 4 || St->T.Dim[0] != Qt.Dim[0] || St->T.Dim[1] != Qt.Dim[1] || St->T.Dim[2] != Qt.Dim[2] ||
             St->T.Dim[3] != 1))
    return fail(CUDNN_STATUS_BAD_PARAM, "SDPA forward operation", "stats must be [b, h, s_q, 1]");
  OpInfo &Op = D.Op;
  Op = OpInfo{};
  Op.Kind = OpKind::Sdpa;
  Op.In = {*Q, *K, *V};
  if (Sc)
    Op.In.push_back(*Sc);
  Op.Out = *O;
  Op.More = {St ? *St : TensorInfo{}};
  return CUDNN_STATUS_SUCCESS;
}

/// The unified attention's backward (cuDNN 9.13+'s one-operation form): from q, k, v, the forward's o and
/// log-sum-exp statistics and do, the gradients dq, dk, dv (grouped heads summed into their k/v head).
cudnnStatus_t finalizeSdpaBwdOp(Desc &D) {
  const char *Name = "SDPA backward operation";
  const TensorInfo *Q = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_QDESC), *K = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_KDESC),
                   *V = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_VDESC), *O = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_ODESC),
                   *St = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_STATSDESC),
                   *Sc = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_SCALEDESC),
                   *DQ = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_DQDESC), *DK = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_DKDESC),
                   *DV = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_DVDESC), *DO = tensorAttr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_DODDESC);
  if (!Q || !K || !V || !O || !St || !DQ || !DK || !DV || !DO)
    return fail(CUDNN_STATUS_BAD_PARAM, Name, "q, k, v, o, stats, do, dq, dk and dv are needed");
  if (attr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_QDESC) || attr(D, CUDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KVDESC))
    return fail(CUDNN_STATUS_NOT_SUPPORTED, Name, "sequence lengths are not supported");
  const Tensor &Qt = Q->T, &Kt = K->T, &Vt = V->T, &Ot = O->T;
  if (Qt.Rank != 4 || Kt.Rank != 4 || Vt.Rank != 4 || Ot.Rank != 4 || Kt.Dim[0] != Qt.Dim[0] || Vt.Dim[0] != Qt.Dim[0] ||
      Qt.Dim[3] != Kt.Dim[3] || Kt.Dim[2] != Vt.Dim[2] || Qt.Dim[1] % Kt.Dim[1] || Qt.Dim[1] % Vt.Dim[1] ||
      Ot.Dim[0] != Qt.Dim[0] || Ot.Dim[1] != Qt.Dim[1] || Ot.Dim[2] != Qt.Dim[2] || Ot.Dim[3] != Vt.Dim[3] ||
      !sameDims(DQ->T, Qt) || !sameDims(DK->T, Kt) || !sameDims(DV->T, Vt) || !sameDims(DO->T, Ot) ||
      St->T.Rank != 4 || St->T.Dim[0] != Qt.Dim[0] || St->T.Dim[1] != Qt.Dim[1] || St->T.Dim[2] != Qt.Dim[2] ||
      St->T.Dim[3] != 1)
    return fail(CUDNN_STATUS_BAD_PARAM, Name,
                "q [b, h, s_q, d], k [b, h_k, s_kv, d], v [b, h_v, s_kv, d_v], o and do [b, h, s_q, d_v], stats "
                "[b, h, s_q, 1] and gradients of their inputs' dims are needed");
  OpInfo &Op = D.Op;
  Op = OpInfo{};
  Op.Kind = OpKind::SdpaBwd;
  Op.In = {*Q, *K, *V, *O, *St, *DO};
  if (Sc)
    Op.In.push_back(*Sc);
  Op.Out = *DQ;
  Op.More = {*DK, *DV};
  return CUDNN_STATUS_SUCCESS;
}

/// Which dims of x a norm's statistics reduce: where the given mean (or inverse variance) has 1; without one,
/// by the mode: layer and RMS norm over the dims the scale spans (all but the first without a scale), batch norm
/// over all but the channels, instance norm over the spatial dims.
std::vector<bool> normReduced(cudnnBackendNormMode_t Mode, const Tensor &X, const TensorInfo *Stat, const TensorInfo *Scale) {
  std::vector<bool> R(X.Rank, false);
  for (int D = 0; D < X.Rank; ++D) {
    if (Stat && Stat->Set)
      R[D] = Stat->T.Dim[D] == 1;
    else if (Mode == CUDNN_BATCH_NORM)
      R[D] = D != 1;
    else if (Mode == CUDNN_INSTANCE_NORM)
      R[D] = D >= 2;
    else
      R[D] = Scale && Scale->Set ? Scale->T.Dim[D] != 1 : D >= 1;
  }
  return R;
}

/// Layer, batch, instance and RMS norm, forward (inference or training) and backward: x [n, c, ...] with the
/// scale and bias broadcast over it, statistics over the dims normReduced gives.
cudnnStatus_t finalizeNormOp(Desc &D, bool Forward) {
  const char *Name = Forward ? "norm forward operation" : "norm backward operation";
  OpInfo &Op = D.Op;
  Op = OpInfo{};
  Op.Kind = Forward ? OpKind::NormFwd : OpKind::NormBwd;
  if (!scalar(D, Forward ? CUDNN_ATTR_OPERATION_NORM_FWD_MODE : CUDNN_ATTR_OPERATION_NORM_BWD_MODE, Op.Norm))
    return fail(CUDNN_STATUS_BAD_PARAM, Name, "no mode");
  if (Op.Norm != CUDNN_LAYER_NORM && Op.Norm != CUDNN_BATCH_NORM && Op.Norm != CUDNN_INSTANCE_NORM &&
      Op.Norm != CUDNN_RMS_NORM)
    return fail(CUDNN_STATUS_NOT_SUPPORTED, Name, "norm mode " + std::to_string(int(Op.Norm)) +
                                                       " is not supported (layer, batch, instance and RMS norm are)");
  if (attr(D, Forward ? CUDNN_ATTR_OPERATION_NORM_FWD_PEER_STAT_DESCS : CUDNN_ATTR_OPERATION_NORM_BWD_PEER_STAT_DESCS))
    return fail(CUDNN_STATUS_NOT_SUPPORTED, Name, "peer statistics (norms across GPUs) are not supported");
  auto get = [&](int A) { const TensorInfo *T = tensorAttr(D, A); return T ? *T : TensorInfo{}; };
  Op.In.assign(NSlots, TensorInfo{});
  bool Rms = Op.Norm == CUDNN_RMS_NORM;
  if (Forward) {
    cudnnBackendNormFwdPhase_t Phase = CUDNN_NORM_FWD_INFERENCE;
    if (!scalar(D, CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, Phase))
      return fail(CUDNN_STATUS_BAD_PARAM, Name, "no phase");
    Op.Training = Phase == CUDNN_NORM_FWD_TRAINING;
    Op.In[NX] = get(CUDNN_ATTR_OPERATION_NORM_FWD_XDESC);
    Op.In[NScale] = get(CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC);
    Op.In[NBias] = get(CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC);
    Op.In[NEps] = get(CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC);
    Op.In[NFactor] = get(CUDNN_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC);
    Op.In[NRunMean] = get(CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC);
    Op.In[NRunVar] = get(CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC);
    Op.Out = get(CUDNN_ATTR_OPERATION_NORM_FWD_YDESC);
    TensorInfo Mean = get(CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC), Inv = get(CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC);
    // Training writes the statistics; inference reads them where given (batch norm's running statistics).
    if (Op.Training)
      Op.More = {Mean, Inv, get(CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC),
                 get(CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC)};
    else {
      Op.In[NMean] = Mean;
      Op.In[NInvVar] = Inv;
      Op.More.assign(4, TensorInfo{});
    }
    if (Op.More[NOutRunMean].Set != Op.In[NRunMean].Set || Op.More[NOutRunVar].Set != Op.In[NRunVar].Set ||
        Op.In[NRunMean].Set != Op.In[NRunVar].Set || (Op.In[NRunMean].Set && !Op.In[NFactor].Set))
      return fail(CUDNN_STATUS_BAD_PARAM, Name,
                  "running statistics need their input and output tensors, both mean and variance, and the factor");
    if (!Op.Training && Op.In[NMean].Set != Op.In[NInvVar].Set)
      return fail(CUDNN_STATUS_BAD_PARAM, Name, "inference reads both mean and inverse variance or neither");
  } else {
    Op.In[NX] = get(CUDNN_ATTR_OPERATION_NORM_BWD_XDESC);
    Op.In[NScale] = get(CUDNN_ATTR_OPERATION_NORM_BWD_SCALE_DESC);
    Op.In[NMean] = get(CUDNN_ATTR_OPERATION_NORM_BWD_MEAN_DESC);
    Op.In[NInvVar] = get(CUDNN_ATTR_OPERATION_NORM_BWD_INV_VARIANCE_DESC);
    Op.In[NDy] = get(CUDNN_ATTR_OPERATION_NORM_BWD_DYDESC);
    Op.Out = get(CUDNN_ATTR_OPERATION_NORM_BWD_DXDESC);
    Op.More = {get(CUDNN_ATTR_OPERATION_NORM_BWD_DSCALE_DESC), get(CUDNN_ATTR_OPERATION_NORM_BWD_DBIAS_DESC)};
    if (!Op.In[NDy].Set || !Op.In[NInvVar].Set || (!Rms && !Op.In[NMean].Set) || !Op.In[NScale].Set)
      return fail(CUDNN_STATUS_BAD_PARAM, Name, "dy, scale, inverse variance and (but for RMS norm) mean are needed");
    if (!sameDims(Op.In[NDy].T, Op.In[NX].T))
      return fail(CUDNN_STATUS_BAD_PARAM, Name, "dy must have x's dims");
  }
  const TensorInfo &X = Op.In[NX];
  if (!X.Set || !Op.Out.Set || !sameDims(X.T, Op.Out.T))
    return fail(CUDNN_STATUS_BAD_PARAM, Name, "x and an output of x's dims are needed");
  for (const TensorInfo *T : {&Op.In[NScale], &Op.In[NBias], &Op.In[NMean], &Op.In[NInvVar], &Op.In[NRunMean],
                              &Op.In[NRunVar]})
    if (T->Set && !broadcasts(T->T, X.T))
      return fail(CUDNN_STATUS_BAD_PARAM, Name, "scale, bias and statistics must broadcast to x's dims");
  for (const TensorInfo &T : Op.More)
    if (T.Set && !broadcasts(T.T, X.T))
      return fail(CUDNN_STATUS_BAD_PARAM, Name, "statistics and parameter gradients must broadcast to x's dims");
  if (Forward && !Op.In[NEps].Set && !(Op.In[NMean].Set && !Op.Training))
    return fail(CUDNN_STATUS_BAD_PARAM, Name, "an epsilon tensor is needed");
  if (Forward && Op.Training && !Op.More[NOutInvVar].Set && Op.Norm != CUDNN_LAYER_NORM && !Rms)
    return fail(CUDNN_STATUS_BAD_PARAM, Name, "training writes the mean and inverse variance");
  return CUDNN_STATUS_SUCCESS;
}

void runSdpa(RunState &S, const OpInfo &O) {
  const Tensor &Qt = O.In[0].T, &Kt = O.In[1].T, &Vt = O.In[2].T, &Ot = O.Out.T;
  std::vector<double> Q = readInput(S, O.In[0], Qt), K = readInput(S, O.In[1], Kt), V = readInput(S, O.In[2], Vt);
  double Scale = 1;
  if (O.In.size() > 3)
    Scale = readInput(S, O.In[3], O.In[3].T)[0];
  int64_t B = Qt.Dim[0], H = Qt.Dim[1], Sq = Qt.Dim[2], Dk = Qt.Dim[3], Hk = Kt.Dim[1], Hv = Vt.Dim[1],
          Skv = Kt.Dim[2], Dv = Vt.Dim[3];
  std::vector<double> Out(Ot.count(), 0.0), Lse(size_t(B * H * Sq), 0.0), Row(Skv);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      const double *Qp = &Q[((b * H + h) * Sq) * Dk], *Kp = &K[((b * Hk + h / (H / Hk)) * Skv) * Dk],
                   *Vp = &V[((b * Hv + h / (H / Hv)) * Skv) * Dv];
      for (int64_t i = 0; i < Sq; ++i) {
        double Max = -INFINITY;
        for (int64_t j = 0; j < Skv; ++j) {
          double A = 0;
          for (int64_t c = 0; c < Dk; ++c)
            A += Qp[i * Dk + c] * Kp[j * Dk + c];
          Row[j] = Scale * A;
          Max = std::max(Max, Row[j]);
        }
        double Sum = 0;
        for (int64_t j = 0; j < Skv; ++j)
          Sum += (Row[j] = std::exp(Row[j] - Max));
        double *Op = &Out[((b * H + h) * Sq + i) * Dv];
        for (int64_t j = 0; j < Skv; ++j)
          for (int64_t c = 0; c < Dv; ++c)
            Op[c] += Row[j] / Sum * Vp[j * Dv + c];
        Lse[(b * H + h) * Sq + i] = Max + std::log(Sum);
      }
    }
  writeOutput(S, O.Out, std::move(Out), 1, 0);
  if (O.More[0].Set)
    writeOutput(S, O.More[0], std::move(Lse), 1, 0);
}

/// dq, dk, dv of the unified attention: P = exp(scale q k^T - lse), dv = P^T do, dS = P (do v^T - rowsum(do o)),
/// dq = scale dS k, dk = scale dS^T q, per batch and head (a k/v head sums the gradients of its query heads).
void runSdpaBackward(RunState &S, const OpInfo &O) {
  const Tensor &Qt = O.In[0].T, &Kt = O.In[1].T, &Vt = O.In[2].T, &Ot = O.In[3].T;
  std::vector<double> Q = readInput(S, O.In[0], Qt), K = readInput(S, O.In[1], Kt), V = readInput(S, O.In[2], Vt),
                      Out = readInput(S, O.In[3], Ot), Lse = readInput(S, O.In[4], O.In[4].T),
                      DO = readInput(S, O.In[5], Ot);
  double Scale = O.In.size() > 6 ? readInput(S, O.In[6], O.In[6].T)[0] : 1.0;
  int64_t B = Qt.Dim[0], H = Qt.Dim[1], Sq = Qt.Dim[2], Dk = Qt.Dim[3], Hk = Kt.Dim[1], Hv = Vt.Dim[1], Skv = Kt.Dim[2],
          Dv = Vt.Dim[3];
  std::vector<double> DQ(Q.size(), 0.0), DK(K.size(), 0.0), DV(V.size(), 0.0), P(Skv), DS(Skv);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      int64_t Kh = (b * Hk + h / (H / Hk)) * Skv, Vh = (b * Hv + h / (H / Hv)) * Skv, Qh = (b * H + h) * Sq;
      for (int64_t i = 0; i < Sq; ++i) {
        const double *Qi = &Q[(Qh + i) * Dk], *Oi = &Out[(Qh + i) * Dv], *DOi = &DO[(Qh + i) * Dv];
        double L = Lse[Qh + i], Di = 0;
        for (int64_t c = 0; c < Dv; ++c)
          Di += DOi[c] * Oi[c];
        for (int64_t j = 0; j < Skv; ++j) {
          double A = 0, DP = 0;
          for (int64_t c = 0; c < Dk; ++c)
            A += Qi[c] * K[(Kh + j) * Dk + c];
          P[j] = std::exp(Scale * A - L);
          for (int64_t c = 0; c < Dv; ++c)
            DP += DOi[c] * V[(Vh + j) * Dv + c];
          DS[j] = P[j] * (DP - Di);
        }
        for (int64_t j = 0; j < Skv; ++j) {
          for (int64_t c = 0; c < Dv; ++c)
            DV[(Vh + j) * Dv + c] += P[j] * DOi[c];
          for (int64_t c = 0; c < Dk; ++c) {
            DQ[(Qh + i) * Dk + c] += Scale * DS[j] * K[(Kh + j) * Dk + c];
            DK[(Kh + j) * Dk + c] += Scale * DS[j] * Qi[c];
          }
        }
      }
    }
  writeOutput(S, O.Out, std::move(DQ), 1, 0);
  writeOutput(S, O.More[0], std::move(DK), 1, 0);
  writeOutput(S, O.More[1], std::move(DV), 1, 0);
}

/// The reduction groups of a norm: for each element of x (logical order) its group, which is the logical index
/// of its statistic in Shape (x's dims with the reduced dims 1).
struct NormGroups {
  std::vector<int64_t> Of;
  int64_t Groups = 1, PerGroup = 1;
  Tensor Shape; ///< x's dims with the reduced ones 1

  NormGroups(const Tensor &X, const std::vector<bool> &Reduced) {
    Shape = X;
    for (int D = 0; D < X.Rank; ++D) {
      if (Reduced[D]) {
        Shape.Dim[D] = 1;
        PerGroup *= X.Dim[D];
      } else {
        Groups *= X.Dim[D];
      }
    }
    Shape = Tensor::packed(CUDNN_DATA_DOUBLE, Shape.Rank, Shape.Dim.data());
    Of.resize(X.count());
    std::array<int64_t, MaxDims> Idx{};
    for (int64_t L = 0; L < X.count(); ++L) {
      int64_t Rem = L, G = 0;
      for (int D = X.Rank - 1; D >= 0; --D) {
        Idx[D] = Rem % X.Dim[D];
        Rem /= X.Dim[D];
      }
      for (int D = 0; D < X.Rank; ++D)
        G += (Reduced[D] ? 0 : Idx[D]) * Shape.Stride[D];
      Of[L] = G;
    }
  }
};

/// A per-group statistic written to \p T (whose dims must be the groups' shape).
void writeStat(RunState &S, const TensorInfo &T, const std::vector<double> &V, double Alpha = 1, double Beta = 0) {
  if (T.Set)
    writeOutput(S, T, V, Alpha, Beta);
}

void runNormForward(RunState &S, const OpInfo &O) {
  const TensorInfo &Xi = O.In[NX];
  const Tensor &X = Xi.T;
  bool Rms = O.Norm == CUDNN_RMS_NORM;
  const TensorInfo *Stat = O.Training ? (O.More[NOutInvVar].Set ? &O.More[NOutInvVar] : &O.More[NOutMean])
                                      : (O.In[NInvVar].Set ? &O.In[NInvVar] : nullptr);
  NormGroups G(X, normReduced(O.Norm, X, Stat, &O.In[NScale]));
  std::vector<double> x = readInput(S, Xi, X), Mean(G.Groups, 0.0), Var(G.Groups, 0.0), Inv(G.Groups);
  double Eps = O.In[NEps].Set ? readInput(S, O.In[NEps], O.In[NEps].T)[0] : 0;
  if (!O.Training && O.In[NMean].Set) {
    // Inference with given statistics (batch norm's running mean and inverse standard deviation).
    Mean = readInput(S, O.In[NMean], G.Shape);
    Inv = readInput(S, O.In[NInvVar], G.Shape);
  } else {
    if (!Rms) {
      for (size_t L = 0; L < x.size(); ++L)
        Mean[G.Of[L]] += x[L];
      for (double &M : Mean)
        M /= double(G.PerGroup);
    }
    for (size_t L = 0; L < x.size(); ++L) {
      double C = x[L] - Mean[G.Of[L]];
      Var[G.Of[L]] += C * C;
    }
    for (int64_t I = 0; I < G.Groups; ++I) {
      Var[I] /= double(G.PerGroup);
      Inv[I] = 1 / std::sqrt(Var[I] + Eps);
    }
  }
  std::vector<double> Scale = O.In[NScale].Set ? readInput(S, O.In[NScale], X) : std::vector<double>(),
                      Bias = O.In[NBias].Set ? readInput(S, O.In[NBias], X) : std::vector<double>(), y(x.size());
  for (size_t L = 0; L < x.size(); ++L) {
    double V = (x[L] - Mean[G.Of[L]]) * Inv[G.Of[L]];
    if (!Scale.empty())
      V *= Scale[L];
    if (!Bias.empty())
      V += Bias[L];
    y[L] = V;
  }
  writeOutput(S, O.Out, std::move(y), 1, 0);
  if (!O.Training)
    return;
  if (!Rms)
    writeStat(S, O.More[NOutMean], Mean);
  writeStat(S, O.More[NOutInvVar], Inv);
  if (O.More[NOutRunMean].Set) {
    // Running averages: new = (1 - f) old + f batch, the variance unbiased (as cuDNN's batch norm keeps it).
    double F = readInput(S, O.In[NFactor], O.In[NFactor].T)[0], N = double(G.PerGroup);
    std::vector<double> RunMean = readInput(S, O.In[NRunMean], G.Shape), RunVar = readInput(S, O.In[NRunVar], G.Shape);
    for (int64_t I = 0; I < G.Groups; ++I) {
      RunMean[I] = (1 - F) * RunMean[I] + F * Mean[I];
      RunVar[I] = (1 - F) * RunVar[I] + F * (N > 1 ? Var[I] * N / (N - 1) : Var[I]);
    }
    writeStat(S, O.More[NOutRunMean], RunMean);
    writeStat(S, O.More[NOutRunVar], RunVar);
  }
}

void runNormBackward(RunState &S, const OpInfo &O) {
  const Tensor &X = O.In[NX].T;
  bool Rms = O.Norm == CUDNN_RMS_NORM;
  NormGroups G(X, normReduced(O.Norm, X, &O.In[NInvVar], &O.In[NScale]));
  std::vector<double> x = readInput(S, O.In[NX], X), dy = readInput(S, O.In[NDy], X),
                      Scale = readInput(S, O.In[NScale], X), Inv = readInput(S, O.In[NInvVar], G.Shape),
                      Mean = Rms ? std::vector<double>(G.Groups, 0.0) : readInput(S, O.In[NMean], G.Shape);
  // xhat = (x - mean) inv; g = dy scale; dx = inv (g - mean(g) - xhat mean(g xhat)) over each group (RMS norm:
  // no mean term).
  std::vector<double> Xhat(x.size()), SumG(G.Groups, 0.0), SumGX(G.Groups, 0.0), dx(x.size());
  for (size_t L = 0; L < x.size(); ++L) {
    int64_t Gi = G.Of[L];
    Xhat[L] = (x[L] - Mean[Gi]) * Inv[Gi];
    double Gv = dy[L] * Scale[L];
    SumG[Gi] += Gv;
    SumGX[Gi] += Gv * Xhat[L];
  }
  double N = double(G.PerGroup);
  for (size_t L = 0; L < x.size(); ++L) {
    int64_t Gi = G.Of[L];
    double Gv = dy[L] * Scale[L];
    dx[L] = Inv[Gi] * (Gv - (Rms ? 0 : SumG[Gi] / N) - Xhat[L] * SumGX[Gi] / N);
  }
  writeOutput(S, O.Out, std::move(dx), 1, 0);
  // dscale = sum(dy xhat), dbias = sum(dy) over the dims the parameter does not span.
  for (int K = 0; K < 2; ++K) {
    const TensorInfo &T = O.More[K];
    if (!T.Set)
      continue;
    std::vector<bool> Reduced(X.Rank);
    for (int D = 0; D < X.Rank; ++D)
      Reduced[D] = T.T.Dim[D] == 1;
    NormGroups P(X, Reduced);
    std::vector<double> Acc(P.Groups, 0.0);
    for (size_t L = 0; L < x.size(); ++L)
      Acc[P.Of[L]] += K == 0 ? dy[L] * Xhat[L] : dy[L];
    writeOutput(S, T, std::move(Acc), 1, 0);
  }
}

} // namespace zluda::dnn::backend
