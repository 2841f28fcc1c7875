//===- Rnn.cpp - recurrent networks (cuDNN's v8 RNN API) and dropout ------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file ReLU/tanh RNNs, LSTMs and GRUs (cuDNN's formulas: the GRU with the
/// reset gate applied after the recurrent GEMM), uni- or bidirectional,
/// stacked, with any of the four bias modes, on padded (sequence- or
/// batch-major) and packed sequences; forward (inference and training),
/// backward data and backward weights, and the dropout descriptor they use
/// between layers.
///
/// The weight space is laid out per pseudo-layer (layer * directions +
/// direction): the input matrices of every gate ([hidden, layer input] each),
/// the recurrent matrices ([hidden, hidden]), then the input and the
/// recurrent biases ([hidden] each), in cuDNN's gate order (LSTM: i, f, g, o;
/// GRU: r, z, n): the order PyTorch's flattened weights assume, each group of
/// gates contiguous. The reserve space holds, per pseudo-layer, what the
/// backward passes need (gate activations, states, the layer's input, the
/// gates' gradients) in double precision; no workspace is needed.
#include "libs/cudnn/Descriptors.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

using namespace zluda::dnn;
namespace libs = zluda::libs;

extern "C" cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t, cudnnDataType_t, int, const int *,
                                                    const int *); // Cudnn.cpp

struct cudnnDropoutStruct {
  float P = 0;
  void *States = nullptr;
  size_t StateBytes = 0;
  unsigned long long Seed = 0;
  uint64_t Calls = 0; ///< masks drawn so far (each training forward draws new ones)
};

struct cudnnRNNStruct {
  cudnnRNNAlgo_t Algo = CUDNN_RNN_ALGO_STANDARD;
  cudnnRNNMode_t Mode = CUDNN_LSTM;
  cudnnRNNBiasMode_t Bias = CUDNN_RNN_DOUBLE_BIAS;
  cudnnDirectionMode_t Dir = CUDNN_UNIDIRECTIONAL;
  cudnnRNNInputMode_t Input = CUDNN_LINEAR_INPUT;
  cudnnDataType_t Type = CUDNN_DATA_FLOAT, MathPrec = CUDNN_DATA_FLOAT;
  cudnnMathType_t Math = CUDNN_DEFAULT_MATH;
  int32_t InputSize = 0, Hidden = 0, Proj = 0, Layers = 0;
  cudnnDropoutDescriptor_t Dropout = nullptr;
  uint32_t AuxFlags = 0;
  cudnnRNNClipMode_t Clip = CUDNN_RNN_CLIP_NONE;
  double LClip = 0, RClip = 0;
  bool Set = false;
};

struct cudnnRNNDataStruct {
  cudnnDataType_t Type = CUDNN_DATA_FLOAT;
  cudnnRNNDataLayout_t Layout = CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED;
  int MaxSeq = 0, Batch = 0, Vec = 0;
  std::vector<int> Lens;
  double Fill = 0;
  bool HasFill = false, Set = false;
};

namespace {

// --- the network's shape ------------------------------------------------------------------

struct Net {
  cudnnRNNStruct D;
  int G = 1, Dirs = 1, H = 0;
  bool BiasW = true, BiasR = true;
  float DropP = 0;

  explicit Net(const cudnnRNNStruct &R) : D(R) {
    G = R.Mode == CUDNN_LSTM ? 4 : R.Mode == CUDNN_GRU ? 3 : 1;
    Dirs = R.Dir == CUDNN_BIDIRECTIONAL ? 2 : 1;
    H = R.Hidden;
    BiasW = R.Bias == CUDNN_RNN_DOUBLE_BIAS || R.Bias == CUDNN_RNN_SINGLE_INP_BIAS;
    BiasR = R.Bias == CUDNN_RNN_DOUBLE_BIAS || R.Bias == CUDNN_RNN_SINGLE_REC_BIAS;
  }
  int layerIn(int Layer) const { return Layer == 0 ? D.InputSize : H * Dirs; }
  int pseudo() const { return D.Layers * Dirs; }
  /// Elements of one pseudo-layer's weights, and where each part starts (in elements).
  int64_t wOff(int P) const {
    int64_t O = 0;
    for (int I = 0; I < P; ++I)
      O += wSize(I / Dirs);
    return O;
  }
  int64_t wSize(int Layer) const {
    int64_t In = D.Input == CUDNN_SKIP_INPUT && Layer == 0 ? 0 : layerIn(Layer);
    return int64_t(G) * H * In + int64_t(G) * H * H + (BiasW ? G * H : 0) + (BiasR ? G * H : 0);
  }
  int64_t wTotal() const { return wOff(pseudo()); }
  /// The offsets in a pseudo-layer: W (G matrices), R, bW, bR.
  int64_t offW(int P) const { return wOff(P); }
  int64_t offR(int P) const { return wOff(P) + int64_t(G) * H * inMatCols(P / Dirs); }
  int64_t offBW(int P) const { return offR(P) + int64_t(G) * H * H; }
  int64_t offBR(int P) const { return offBW(P) + (BiasW ? G * H : 0); }
  int64_t inMatCols(int Layer) const { return D.Input == CUDNN_SKIP_INPUT && Layer == 0 ? 0 : layerIn(Layer); }
};

/// The reserve space of one pseudo-layer for T steps and B sequences (doubles).
struct ReserveLayout {
  int64_t T, B, G, H, In;
  // Per pseudo-layer: input [T][B][In], gates [T][B][G*H], h [T][B][H], c [T][B][H], Rn [T][B][H] (GRU),
  // input-side gate gradients dGi [T][B][G*H], recurrent-side dGr [T][B][G*H], dropout mask of the layer
  // output [T][B][H*Dirs] (kept once per layer, in its first direction's block).
  int64_t input() const { return 0; }
  int64_t gates() const { return input() + T * B * In; }
  int64_t h() const { return gates() + T * B * G * H; }
  int64_t c() const { return h() + T * B * H; }
  int64_t rn() const { return c() + T * B * H; }
  int64_t dgi() const { return rn() + T * B * H; }
  int64_t dgr() const { return dgi() + T * B * G * H; }
  int64_t mask(int Dirs) const { return dgr() + T * B * G * H + 0 * Dirs; }
  int64_t size(int Dirs) const { return mask(Dirs) + T * B * H * Dirs; }
};

int64_t reserveDoubles(const Net &N, int64_t T, int64_t B) {
  int64_t Total = 0;
  for (int P = 0; P < N.pseudo(); ++P) {
    ReserveLayout L{T, B, N.G, N.H, N.layerIn(P / N.Dirs)};
    Total += L.size(N.Dirs);
  }
  return Total;
}
int64_t reserveOff(const Net &N, int P, int64_t T, int64_t B) {
  int64_t O = 0;
  for (int I = 0; I < P; ++I) {
    ReserveLayout L{T, B, N.G, N.H, N.layerIn(I / N.Dirs)};
    O += L.size(N.Dirs);
  }
  return O;
}

/// Element index of (step t, sequence b) in an RNN data array, in vectors.
struct SeqIndex {
  const cudnnRNNDataStruct *D;
  std::vector<int64_t> PackedStart; ///< first vector of each step (packed layout)
  explicit SeqIndex(const cudnnRNNDataStruct &Desc) : D(&Desc) {
    if (Desc.Layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED) {
      int64_t O = 0;
      for (int T = 0; T < Desc.MaxSeq; ++T) {
        PackedStart.push_back(O);
        for (int B = 0; B < Desc.Batch; ++B)
          O += Desc.Lens[B] > T;
      }
    }
  }
  int64_t at(int T, int B) const {
    switch (D->Layout) {
    case CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED:
      return int64_t(T) * D->Batch + B;
    case CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED:
      return int64_t(B) * D->MaxSeq + T;
    default: // packed: sequences sorted by decreasing length, so b is its rank at every step it is alive
      return PackedStart[T] + B;
    }
  }
  int64_t vectors() const {
    if (D->Layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED) {
      int64_t N = 0;
      for (int L : D->Lens)
        N += L;
      return N;
    }
    return int64_t(D->MaxSeq) * D->Batch;
  }
};

size_t dataBytes(const cudnnRNNDataStruct &D) {
  return static_cast<size_t>(SeqIndex(D).vectors() * D.Vec) * typeSize(D.Type);
}

/// A 1-D packed view of \p N elements of type \p T (weight space, states).
Tensor flat(cudnnDataType_t T, int64_t N) {
  int64_t Dim = std::max<int64_t>(N, 1);
  return Tensor::packed(T, 1, &Dim);
}

double sigmoid(double X) { return 1 / (1 + std::exp(-X)); }

/// out[M][N] (+)= A[M][K] * B^T (B is [N][K]) or A * B (B is [K][N]).
void gemm(bool TransB, int64_t M, int64_t N, int64_t K, const double *A, const double *B, double *C, bool Accumulate) {
  if (M == 0 || N == 0)
    return;
  if (K == 0) {
    if (!Accumulate)
      std::fill(C, C + M * N, 0.0);
    return;
  }
  cblas_dgemm(CblasRowMajor, CblasNoTrans, TransB ? CblasTrans : CblasNoTrans, int(M), int(N), int(K), 1.0, A, int(K), B,
              int(TransB ? K : N), Accumulate ? 1.0 : 0.0, C, int(N));
}

/// The arrays of one call, as host doubles: weights, states and the sequences in [T][B][vec] order.
struct Seq {
  int64_t T, B, V;
  std::vector<double> A; // [T][B][V], zero where a sequence has ended
  double &at(int64_t t, int64_t b, int64_t v) { return A[(t * B + b) * V + v]; }
};

Seq readSeq(const cudnnRNNDataStruct &D, const void *P) {
  Seq S{D.MaxSeq, D.Batch, D.Vec, std::vector<double>(size_t(D.MaxSeq) * D.Batch * D.Vec, 0.0)};
  SeqIndex Ix(D);
  std::vector<double> Raw(static_cast<size_t>(Ix.vectors() * D.Vec));
  gather(flat(D.Type, int64_t(Raw.size())), P, Raw.data());
  for (int b = 0; b < D.Batch; ++b)
    for (int t = 0; t < D.Lens[b]; ++t)
      std::copy_n(&Raw[Ix.at(t, b) * D.Vec], D.Vec, &S.at(t, b, 0));
  return S;
}

void writeSeq(const cudnnRNNDataStruct &D, void *P, Seq &S) {
  SeqIndex Ix(D);
  std::vector<double> Raw(static_cast<size_t>(Ix.vectors() * D.Vec), D.HasFill ? D.Fill : 0.0);
  for (int b = 0; b < D.Batch; ++b)
    for (int t = 0; t < D.MaxSeq; ++t) {
      if (t >= D.Lens[b] && D.Layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED)
        continue;
      if (t < D.Lens[b])
        std::copy_n(&S.at(t, b, 0), D.Vec, &Raw[Ix.at(t, b) * D.Vec]);
    }
  scatter(flat(D.Type, int64_t(Raw.size())), P, Raw.data(), 1, 0);
}

/// One pseudo-layer's forward recurrence; fills the reserve block \p Rs (gates, states) when training.
void forwardDirection(const Net &N, int P, const std::vector<double> &W, const Seq &In, const std::vector<int> &Lens,
                      const double *H0, const double *C0, double *HOut /*[T][B][H*Dirs]*/, double *HLast, double *CLast,
                      double *Rs) {
  int64_t T = In.T, B = In.B, H = N.H, G = N.G, Cols = N.inMatCols(P / N.Dirs), Dirs = N.Dirs;
  bool Reverse = P % N.Dirs == 1;
  int Dir = P % N.Dirs;
  const double *Wm = W.data() + N.offW(P), *Rm = W.data() + N.offR(P);
  const double *BW = N.BiasW ? W.data() + N.offBW(P) : nullptr, *BR = N.BiasR ? W.data() + N.offBR(P) : nullptr;
  // The input GEMM for all steps at once: Xw[T*B][G*H] = In * W^T (+ bW); skip input adds x itself.
  std::vector<double> Xw(size_t(T * B * G * H), 0.0);
  if (Cols)
    gemm(true, T * B, G * H, Cols, In.A.data(), Wm, Xw.data(), false);
  else
    for (int64_t I = 0; I < T * B; ++I)
      for (int64_t g = 0; g < G; ++g)
        for (int64_t j = 0; j < H; ++j)
          Xw[I * G * H + g * H + j] = In.A[I * In.V + j];
  std::vector<double> Hs(size_t(B * H)), Cs(size_t(B * H)), Rh(size_t(B * G * H));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t j = 0; j < H; ++j) {
      Hs[b * H + j] = H0 ? H0[b * H + j] : 0;
      Cs[b * H + j] = C0 ? C0[b * H + j] : 0;
    }
  ReserveLayout L{T, B, G, H, N.layerIn(P / N.Dirs)};
  for (int64_t Step = 0; Step < T; ++Step) {
    // Recurrent GEMM over the live sequences (a finished sequence keeps its state).
    gemm(true, B, G * H, H, Hs.data(), Rm, Rh.data(), false);
    for (int64_t b = 0; b < B; ++b) {
      int64_t Len = Lens[b];
      if (Step >= Len)
        continue;
      int64_t t = Reverse ? Len - 1 - Step : Step;
      const double *Xg = &Xw[(t * B + b) * G * H];
      double *Rg = &Rh[b * G * H];
      auto pre = [&](int g, int64_t j, bool WithRec) {
        double V = Xg[g * H + j] + (BW ? BW[g * H + j] : 0);
        if (WithRec)
          V += Rg[g * H + j] + (BR ? BR[g * H + j] : 0);
        return V;
      };
      double *Gate = Rs ? Rs + L.gates() + (t * B + b) * G * H : nullptr;
      for (int64_t j = 0; j < H; ++j) {
        double Hn, Cn = 0;
        if (N.D.Mode == CUDNN_LSTM) {
          double i = sigmoid(pre(0, j, true)), f = sigmoid(pre(1, j, true)), g = std::tanh(pre(2, j, true)),
                 o = sigmoid(pre(3, j, true));
          Cn = f * Cs[b * H + j] + i * g;
          if (N.D.Clip == CUDNN_RNN_CLIP_MINMAX)
            Cn = std::min(std::max(Cn, N.D.LClip), N.D.RClip);
          Hn = o * std::tanh(Cn);
          if (Gate) {
            Gate[j] = i, Gate[H + j] = f, Gate[2 * H + j] = g, Gate[3 * H + j] = o;
            Rs[L.c() + (t * B + b) * H + j] = Cn;
          }
        } else if (N.D.Mode == CUDNN_GRU) {
          double r = sigmoid(pre(0, j, true)), z = sigmoid(pre(1, j, true));
          double Rn = Rg[2 * H + j] + (BR ? BR[2 * H + j] : 0);
          double n = std::tanh(pre(2, j, false) + r * Rn);
          Hn = (1 - z) * n + z * Hs[b * H + j];
          if (Gate) {
            Gate[j] = r, Gate[H + j] = z, Gate[2 * H + j] = n;
            Rs[L.rn() + (t * B + b) * H + j] = Rn;
          }
        } else {
          double A = pre(0, j, true);
          Hn = N.D.Mode == CUDNN_RNN_RELU ? std::max(A, 0.0) : std::tanh(A);
        }
        Hs[b * H + j] = Hn;
        if (N.D.Mode == CUDNN_LSTM)
          Cs[b * H + j] = Cn;
        HOut[(t * B + b) * H * Dirs + Dir * H + j] = Hn;
        if (Rs)
          Rs[L.h() + (t * B + b) * H + j] = Hn;
      }
    }
  }
  for (int64_t b = 0; b < B; ++b)
    for (int64_t j = 0; j < H; ++j) {
      if (HLast)
        HLast[b * H + j] = Hs[b * H + j];
      if (CLast)
        CLast[b * H + j] = Cs[b * H + j];
    }
}

cudnnRNNStruct *rnnOf(cudnnRNNDescriptor_t D) {
  cudnnRNNStruct *R = libs::Live<cudnnRNNStruct>::find(D);
  return R && R->Set ? R : nullptr;
}
cudnnRNNDataStruct *dataOf(cudnnRNNDataDescriptor_t D) {
  cudnnRNNDataStruct *R = libs::Live<cudnnRNNDataStruct>::find(D);
  return R && R->Set ? R : nullptr;
}

/// Checks a call's shapes: x's vectors are the input size, y's the hidden size times directions, h [L*dirs, B, H].
std::string checkShapes(const Net &N, const cudnnRNNDataStruct &X, const cudnnRNNDataStruct *Y, const Tensor *Hd) {
  if (X.Vec != N.D.InputSize)
    return "x's vectors have " + std::to_string(X.Vec) + " elements, the network's input " + std::to_string(N.D.InputSize);
  if (Y && (Y->Vec != N.H * N.Dirs || Y->Batch != X.Batch || Y->MaxSeq != X.MaxSeq || Y->Layout != X.Layout))
    return "y does not match x's layout and the hidden size times directions";
  // PyTorch pads the state descriptors to more dims of 1 ([L*dirs, B, H, 1, 1]).
  bool Trailing = Hd && Hd->Rank >= 3;
  for (int I = 3; Trailing && I < Hd->Rank; ++I)
    Trailing = Hd->Dim[I] == 1;
  if (Hd && (!Trailing || Hd->Dim[0] != N.pseudo() || Hd->Dim[1] != X.Batch || Hd->Dim[2] != N.H))
    return "h and c must be [layers * directions, batch, hidden] (" + std::to_string(Hd->Rank) + " dims given)";
  if (X.Type != N.D.Type)
    return "x's data type differs from the network's";
  return "";
}

/// The dropout of a layer's output in training: keep with probability 1 - p, scaled by 1 / (1 - p).
void drawMask(float P, unsigned long long Seed, uint64_t Call, int Layer, double *Mask, int64_t N) {
  std::mt19937_64 Rng(Seed ^ (Call * 0x9E3779B97F4A7C15ull) ^ (uint64_t(Layer) << 32));
  std::bernoulli_distribution Keep(1.0 - P);
  for (int64_t I = 0; I < N; ++I)
    Mask[I] = Keep(Rng) ? 1.0 / (1.0 - P) : 0.0;
}

} // namespace

// --- descriptors --------------------------------------------------------------------------

CUDNN_API cudnnStatus_t cudnnCreateDropoutDescriptor(cudnnDropoutDescriptor_t *Out) { return createDescriptor(Out); }
CUDNN_API cudnnStatus_t cudnnDestroyDropoutDescriptor(cudnnDropoutDescriptor_t D) { return destroyDescriptor(D); }
CUDNN_API cudnnStatus_t cudnnDropoutGetStatesSize(cudnnHandle_t H, size_t *Size) {
  if (!handleOf(H) || !Size)
    return CUDNN_STATUS_BAD_PARAM;
  *Size = 64; // our generator's state is the seed and a call count, kept in the descriptor
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnSetDropoutDescriptor(cudnnDropoutDescriptor_t D, cudnnHandle_t H, float P, void *States,
                                                  size_t Bytes, unsigned long long Seed) {
  cudnnDropoutStruct *Dd = libs::Live<cudnnDropoutStruct>::find(D);
  if (!Dd || !handleOf(H) || P < 0 || P > 1 || (P > 0 && !States))
    return CUDNN_STATUS_BAD_PARAM;
  Dd->P = P;
  Dd->States = States;
  Dd->StateBytes = Bytes;
  Dd->Seed = Seed;
  Dd->Calls = 0;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnRestoreDropoutDescriptor(cudnnDropoutDescriptor_t D, cudnnHandle_t H, float P,
                                                      void *States, size_t Bytes, unsigned long long Seed) {
  return cudnnSetDropoutDescriptor(D, H, P, States, Bytes, Seed);
}
CUDNN_API cudnnStatus_t cudnnGetDropoutDescriptor(cudnnDropoutDescriptor_t D, cudnnHandle_t H, float *P,
                                                  void **States, unsigned long long *Seed) {
  cudnnDropoutStruct *Dd = libs::Live<cudnnDropoutStruct>::find(D);
  if (!Dd || !handleOf(H))
    return CUDNN_STATUS_BAD_PARAM;
  if (P)
    *P = Dd->P;
  if (States)
    *States = Dd->States;
  if (Seed)
    *Seed = Dd->Seed;
  return CUDNN_STATUS_SUCCESS;
}

CUDNN_API cudnnStatus_t cudnnCreateRNNDescriptor(cudnnRNNDescriptor_t *Out) { return createDescriptor(Out); }
CUDNN_API cudnnStatus_t cudnnDestroyRNNDescriptor(cudnnRNNDescriptor_t D) { return destroyDescriptor(D); }

CUDNN_API cudnnStatus_t cudnnSetRNNDescriptor_v8(cudnnRNNDescriptor_t D, cudnnRNNAlgo_t Algo, cudnnRNNMode_t Mode,
                                                 cudnnRNNBiasMode_t Bias, cudnnDirectionMode_t Dir,
                                                 cudnnRNNInputMode_t Input, cudnnDataType_t Type,
                                                 cudnnDataType_t MathPrec, cudnnMathType_t Math, int32_t InputSize,
                                                 int32_t Hidden, int32_t Proj, int32_t Layers,
                                                 cudnnDropoutDescriptor_t Dropout, uint32_t AuxFlags) {
  cudnnRNNStruct *R = libs::Live<cudnnRNNStruct>::find(D);
  if (!R || Mode < CUDNN_RNN_RELU || Mode > CUDNN_GRU || Bias < CUDNN_RNN_NO_BIAS || Bias > CUDNN_RNN_SINGLE_REC_BIAS ||
      (Dir != CUDNN_UNIDIRECTIONAL && Dir != CUDNN_BIDIRECTIONAL) || (Input != CUDNN_LINEAR_INPUT && Input != CUDNN_SKIP_INPUT) ||
      InputSize <= 0 || Hidden <= 0 || Layers <= 0 || Proj > Hidden || Proj < 0 ||
      (Input == CUDNN_SKIP_INPUT && InputSize != Hidden) || !typeSupported(Type) ||
      (Dropout && !libs::Live<cudnnDropoutStruct>::find(Dropout)))
    return CUDNN_STATUS_BAD_PARAM;
  if (Proj != 0 && Proj != Hidden)
    return fail(CUDNN_STATUS_NOT_SUPPORTED, "cudnnSetRNNDescriptor_v8", "LSTM projections (projSize < hiddenSize)");
  *R = cudnnRNNStruct{Algo, Mode, Bias, Dir, Input, Type, MathPrec, Math, InputSize, Hidden, Proj, Layers,
                      Dropout, AuxFlags, CUDNN_RNN_CLIP_NONE, 0, 0, true};
  return CUDNN_STATUS_SUCCESS;
}

CUDNN_API cudnnStatus_t cudnnGetRNNDescriptor_v8(cudnnRNNDescriptor_t D, cudnnRNNAlgo_t *Algo, cudnnRNNMode_t *Mode,
                                                 cudnnRNNBiasMode_t *Bias, cudnnDirectionMode_t *Dir,
                                                 cudnnRNNInputMode_t *Input, cudnnDataType_t *Type,
                                                 cudnnDataType_t *MathPrec, cudnnMathType_t *Math, int32_t *InputSize,
                                                 int32_t *Hidden, int32_t *Proj, int32_t *Layers,
                                                 cudnnDropoutDescriptor_t *Dropout, uint32_t *AuxFlags) {
  cudnnRNNStruct *R = rnnOf(D);
  if (!R)
    return CUDNN_STATUS_BAD_PARAM;
#define PUT(P, V)                                                                                                      \
  if (P)                                                                                                               \
    *P = R->V;
  PUT(Algo, Algo) PUT(Mode, Mode) PUT(Bias, Bias) PUT(Dir, Dir) PUT(Input, Input) PUT(Type, Type)
  PUT(MathPrec, MathPrec) PUT(Math, Math) PUT(InputSize, InputSize) PUT(Hidden, Hidden) PUT(Proj, Proj)
  PUT(Layers, Layers) PUT(Dropout, Dropout) PUT(AuxFlags, AuxFlags)
#undef PUT
  return CUDNN_STATUS_SUCCESS;
}

CUDNN_API cudnnStatus_t cudnnRNNSetClip_v9(cudnnRNNDescriptor_t D, cudnnRNNClipMode_t Mode, double L, double R) {
  cudnnRNNStruct *Rn = rnnOf(D);
  if (!Rn || (Mode == CUDNN_RNN_CLIP_MINMAX && L > R))
    return CUDNN_STATUS_BAD_PARAM;
  Rn->Clip = Mode;
  Rn->LClip = L;
  Rn->RClip = R;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnRNNGetClip_v9(cudnnRNNDescriptor_t D, cudnnRNNClipMode_t *Mode, double *L, double *R) {
  cudnnRNNStruct *Rn = rnnOf(D);
  if (!Rn)
    return CUDNN_STATUS_BAD_PARAM;
  if (Mode)
    *Mode = Rn->Clip;
  if (L)
    *L = Rn->LClip;
  if (R)
    *R = Rn->RClip;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnRNNSetClip_v8(cudnnRNNDescriptor_t D, cudnnRNNClipMode_t Mode, cudnnNanPropagation_t,
                                           double L, double R) {
  return cudnnRNNSetClip_v9(D, Mode, L, R);
}
CUDNN_API cudnnStatus_t cudnnRNNGetClip_v8(cudnnRNNDescriptor_t D, cudnnRNNClipMode_t *Mode,
                                           cudnnNanPropagation_t *Nan, double *L, double *R) {
  if (Nan)
    *Nan = CUDNN_NOT_PROPAGATE_NAN;
  return cudnnRNNGetClip_v9(D, Mode, L, R);
}
CUDNN_API cudnnStatus_t cudnnBuildRNNDynamic(cudnnHandle_t H, cudnnRNNDescriptor_t D, int) {
  return handleOf(H) && rnnOf(D) ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM; // nothing to build on the host
}

CUDNN_API cudnnStatus_t cudnnCreateRNNDataDescriptor(cudnnRNNDataDescriptor_t *Out) { return createDescriptor(Out); }
CUDNN_API cudnnStatus_t cudnnDestroyRNNDataDescriptor(cudnnRNNDataDescriptor_t D) { return destroyDescriptor(D); }
CUDNN_API cudnnStatus_t cudnnSetRNNDataDescriptor(cudnnRNNDataDescriptor_t D, cudnnDataType_t Type,
                                                  cudnnRNNDataLayout_t Layout, int MaxSeq, int Batch, int Vec,
                                                  const int *Lens, void *Fill) {
  cudnnRNNDataStruct *R = libs::Live<cudnnRNNDataStruct>::find(D);
  if (!R || !Lens || MaxSeq <= 0 || Batch <= 0 || Vec <= 0 || !typeSupported(Type) ||
      Layout < CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED || Layout > CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED)
    return CUDNN_STATUS_BAD_PARAM;
  for (int B = 0; B < Batch; ++B) {
    if (Lens[B] < 0 || Lens[B] > MaxSeq)
      return CUDNN_STATUS_BAD_PARAM;
    // The packed layout needs the sequences sorted by decreasing length (as the reference).
    if (Layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED && B > 0 && Lens[B] > Lens[B - 1])
      return CUDNN_STATUS_BAD_PARAM;
  }
  R->Type = Type;
  R->Layout = Layout;
  R->MaxSeq = MaxSeq;
  R->Batch = Batch;
  R->Vec = Vec;
  R->Lens.assign(Lens, Lens + Batch);
  R->HasFill = Fill != nullptr;
  R->Fill = Fill ? scalarArg(Fill, Type) : 0;
  R->Set = true;
  return CUDNN_STATUS_SUCCESS;
}
CUDNN_API cudnnStatus_t cudnnGetRNNDataDescriptor(cudnnRNNDataDescriptor_t D, cudnnDataType_t *Type,
                                                  cudnnRNNDataLayout_t *Layout, int *MaxSeq, int *Batch, int *Vec,
                                                  int Requested, int *Lens, void *Fill) {
  cudnnRNNDataStruct *R = dataOf(D);
  if (!R || Requested < 0)
    return CUDNN_STATUS_BAD_PARAM;
  if (Type)
    *Type = R->Type;
  if (Layout)
    *Layout = R->Layout;
  if (MaxSeq)
    *MaxSeq = R->MaxSeq;
  if (Batch)
    *Batch = R->Batch;
  if (Vec)
    *Vec = R->Vec;
  for (int I = 0; Lens && I < std::min(Requested, R->Batch); ++I)
    Lens[I] = R->Lens[I];
  if (Fill) {
    if (R->Type == CUDNN_DATA_DOUBLE)
      *static_cast<double *>(Fill) = R->Fill;
    else
      *static_cast<float *>(Fill) = static_cast<float>(R->Fill);
  }
  return CUDNN_STATUS_SUCCESS;
}

// --- weights ------------------------------------------------------------------------------

CUDNN_API cudnnStatus_t cudnnGetRNNWeightSpaceSize(cudnnHandle_t H, cudnnRNNDescriptor_t D, size_t *Size) {
  cudnnRNNStruct *R = rnnOf(D);
  if (!handleOf(H) || !R || !Size)
    return CUDNN_STATUS_BAD_PARAM;
  *Size = static_cast<size_t>(Net(*R).wTotal()) * typeSize(R->Type);
  return CUDNN_STATUS_SUCCESS;
}

CUDNN_API cudnnStatus_t cudnnGetRNNWeightParams(cudnnHandle_t H, cudnnRNNDescriptor_t D, int32_t Pseudo,
                                                size_t WeightBytes, const void *Weights, int32_t LinId,
                                                cudnnTensorDescriptor_t MDesc, void **MAddr,
                                                cudnnTensorDescriptor_t BDesc, void **BAddr) {
  cudnnRNNStruct *R = rnnOf(D);
  if (!handleOf(H) || !R)
    return CUDNN_STATUS_BAD_PARAM;
  Net N(*R);
  size_t Es = typeSize(R->Type);
  if (Pseudo < 0 || Pseudo >= N.pseudo() || LinId < 0 || LinId >= 2 * N.G || WeightBytes < size_t(N.wTotal()) * Es)
    return CUDNN_STATUS_BAD_PARAM;
  bool Rec = LinId >= N.G;
  int Gate = LinId % N.G;
  char *Base = static_cast<char *>(const_cast<void *>(Weights));
  int64_t Cols = Rec ? N.H : N.inMatCols(Pseudo / N.Dirs);
  auto set3 = [&](cudnnTensorDescriptor_t T, int64_t Rows, int64_t C) {
    int Dims[3] = {1, int(Rows), int(C)}, Strides[3] = {int(Rows * C), int(C), 1};
    return cudnnSetTensorNdDescriptor(T, R->Type, 3, Dims, Strides);
  };
  if (MAddr) {
    int64_t Off = (Rec ? N.offR(Pseudo) : N.offW(Pseudo)) + int64_t(Gate) * N.H * Cols;
    *MAddr = Cols ? Base + Off * Es : nullptr; // skip input: no input matrix
    if (MDesc && Cols && set3(MDesc, N.H, Cols) != CUDNN_STATUS_SUCCESS)
      return CUDNN_STATUS_BAD_PARAM;
  }
  if (BAddr) {
    bool Has = Rec ? N.BiasR : N.BiasW;
    int64_t Off = (Rec ? N.offBR(Pseudo) : N.offBW(Pseudo)) + int64_t(Gate) * N.H;
    *BAddr = Has ? Base + Off * Es : nullptr;
    if (BDesc && Has && set3(BDesc, N.H, 1) != CUDNN_STATUS_SUCCESS)
      return CUDNN_STATUS_BAD_PARAM;
  }
  return CUDNN_STATUS_SUCCESS;
}

CUDNN_API cudnnStatus_t cudnnGetRNNTempSpaceSizes(cudnnHandle_t H, cudnnRNNDescriptor_t D, cudnnForwardMode_t Mode,
                                                  cudnnRNNDataDescriptor_t XD, size_t *Work, size_t *Reserve) {
  cudnnRNNStruct *R = rnnOf(D);
  cudnnRNNDataStruct *X = dataOf(XD);
  if (!handleOf(H) || !R || !X)
    return CUDNN_STATUS_BAD_PARAM;
  if (Work)
    *Work = 0;
  if (Reserve)
    *Reserve = Mode == CUDNN_FWD_MODE_TRAINING ? static_cast<size_t>(reserveDoubles(Net(*R), X->MaxSeq, X->Batch)) * 8 : 0;
  return CUDNN_STATUS_SUCCESS;
}

// --- forward and backward -----------------------------------------------------------------

CUDNN_API cudnnStatus_t cudnnRNNForward(cudnnHandle_t Handle, cudnnRNNDescriptor_t D, cudnnForwardMode_t Mode,
                                        const int32_t *, cudnnRNNDataDescriptor_t XD, const void *x,
                                        cudnnRNNDataDescriptor_t YD, void *y, cudnnTensorDescriptor_t HD,
                                        const void *hx, void *hy, cudnnTensorDescriptor_t CD, const void *cx, void *cy,
                                        size_t WeightBytes, const void *w, size_t, void *, size_t ReserveBytes,
                                        void *reserve) {
  cudnnContext *Ctx = handleOf(Handle);
  cudnnRNNStruct *R = rnnOf(D);
  cudnnRNNDataStruct *X = dataOf(XD), *Y = dataOf(YD);
  const Tensor *Hd = tensorOf(HD), *Cd = tensorOf(CD);
  if (!Ctx || !R || !X || !Y || !Hd || !x || !y || !w)
    return CUDNN_STATUS_BAD_PARAM;
  Net N(*R);
  std::string Why = checkShapes(N, *X, Y, Hd);
  if (!Why.empty())
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnRNNForward", Why);
  if (R->Mode == CUDNN_LSTM && (!Cd || Cd->count() != Hd->count()))
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnRNNForward", "an LSTM needs c's descriptor");
  bool Train = Mode == CUDNN_FWD_MODE_TRAINING;
  size_t Need = static_cast<size_t>(reserveDoubles(N, X->MaxSeq, X->Batch)) * 8;
  size_t Es = typeSize(R->Type);
  if (WeightBytes < size_t(N.wTotal()) * Es || (Train && (!reserve || ReserveBytes < Need)))
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnRNNForward", "weight or reserve space too small");
  size_t HB = Hd->spanBytes();
  cudnnDropoutStruct *Drop = R->Dropout ? libs::Live<cudnnDropoutStruct>::find(R->Dropout) : nullptr;
  float P = Drop && Train ? Drop->P : 0;
  unsigned long long Seed = Drop ? Drop->Seed : 0;
  uint64_t Call = Drop ? Drop->Calls++ : 0;
  bool Lstm = R->Mode == CUDNN_LSTM;
  return runOnStream(
      Ctx->Stream,
      {{x, dataBytes(*X), true, false}, {y, dataBytes(*Y), false, true}, {hx, hx ? HB : 0, true, false},
       {hy, hy ? HB : 0, false, true}, {Lstm ? cx : nullptr, HB, true, false}, {Lstm ? cy : nullptr, HB, false, true},
       {w, size_t(N.wTotal()) * Es, true, false}, {Train ? reserve : nullptr, Need, false, true}},
      [N, Xd = *X, Yd = *Y, Ht = *Hd, P, Seed, Call](const std::vector<void *> &Ptr) {
        std::vector<double> W(N.wTotal());
        gather(flat(N.D.Type, N.wTotal()), Ptr[6], W.data());
        int64_t L = N.pseudo(), B = Xd.Batch, H = N.H, T = Xd.MaxSeq;
        std::vector<double> H0(L * B * H, 0.0), C0(L * B * H, 0.0), HN(L * B * H, 0.0), CN(L * B * H, 0.0);
        Tensor States = Tensor::packed(N.D.Type, 3, Ht.Dim.data());
        States.Stride = Ht.Stride;
        if (Ptr[2])
          gather(States, Ptr[2], H0.data());
        if (Ptr[4])
          gather(States, Ptr[4], C0.data());
        double *Rs = static_cast<double *>(Ptr[7]);
        Seq In = readSeq(Xd, Ptr[0]);
        for (int Layer = 0; Layer < N.D.Layers; ++Layer) {
          Seq Out{T, B, H * N.Dirs, std::vector<double>(size_t(T * B * H * N.Dirs), 0.0)};
          for (int Dir = 0; Dir < N.Dirs; ++Dir) {
            int Ps = Layer * N.Dirs + Dir;
            double *Block = Rs ? Rs + reserveOff(N, Ps, T, B) : nullptr;
            if (Block)
              std::copy(In.A.begin(), In.A.end(), Block + ReserveLayout{T, B, N.G, H, N.layerIn(Layer)}.input());
            forwardDirection(N, Ps, W, In, Xd.Lens, &H0[Ps * B * H], &C0[Ps * B * H], Out.A.data(), &HN[Ps * B * H],
                             &CN[Ps * B * H], Block);
          }
          if (P > 0 && Layer + 1 < N.D.Layers) { // dropout between layers, the mask kept for the backward pass
            std::vector<double> Mask(Out.A.size());
            drawMask(P, Seed, Call, Layer, Mask.data(), int64_t(Mask.size()));
            for (size_t I = 0; I < Mask.size(); ++I)
              Out.A[I] *= Mask[I];
            if (Rs) {
              ReserveLayout RL{T, B, N.G, H, N.layerIn(Layer)};
              std::copy(Mask.begin(), Mask.end(), Rs + reserveOff(N, Layer * N.Dirs, T, B) + RL.mask(N.Dirs));
            }
          }
          In = std::move(Out);
        }
        writeSeq(Yd, Ptr[1], In);
        if (Ptr[3])
          scatter(States, Ptr[3], HN.data(), 1, 0);
        if (Ptr[5])
          scatter(States, Ptr[5], CN.data(), 1, 0);
      });
}

CUDNN_API cudnnStatus_t cudnnRNNBackwardData_v8(cudnnHandle_t Handle, cudnnRNNDescriptor_t D, const int32_t *,
                                                cudnnRNNDataDescriptor_t YD, const void *y, const void *dy,
                                                cudnnRNNDataDescriptor_t XD, void *dx, cudnnTensorDescriptor_t HD,
                                                const void *hx, const void *dhy, void *dhx, cudnnTensorDescriptor_t CD,
                                                const void *cx, const void *dcy, void *dcx, size_t WeightBytes,
                                                const void *w, size_t, void *, size_t ReserveBytes, void *reserve) {
  cudnnContext *Ctx = handleOf(Handle);
  cudnnRNNStruct *R = rnnOf(D);
  cudnnRNNDataStruct *X = dataOf(XD), *Y = dataOf(YD);
  const Tensor *Hd = tensorOf(HD), *Cd = tensorOf(CD);
  if (!Ctx || !R || !X || !Y || !Hd || !dy || !dx || !w || !reserve)
    return CUDNN_STATUS_BAD_PARAM;
  Net N(*R);
  std::string Why = checkShapes(N, *X, Y, Hd);
  if (!Why.empty())
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnRNNBackwardData_v8", Why);
  bool Lstm = R->Mode == CUDNN_LSTM;
  if (Lstm && (!Cd || Cd->count() != Hd->count()))
    return CUDNN_STATUS_BAD_PARAM;
  size_t Need = static_cast<size_t>(reserveDoubles(N, X->MaxSeq, X->Batch)) * 8, Es = typeSize(R->Type);
  if (ReserveBytes < Need || WeightBytes < size_t(N.wTotal()) * Es)
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnRNNBackwardData_v8", "weight or reserve space too small");
  size_t HB = Hd->spanBytes();
  cudnnDropoutStruct *Drop = R->Dropout ? libs::Live<cudnnDropoutStruct>::find(R->Dropout) : nullptr;
  bool Dropped = Drop && Drop->P > 0;
  (void)y;
  return runOnStream(
      Ctx->Stream,
      {{dy, dataBytes(*Y), true, false}, {dx, dataBytes(*X), false, true}, {hx, hx ? HB : 0, true, false},
       {dhy, dhy ? HB : 0, true, false}, {dhx, dhx ? HB : 0, false, true}, {Lstm ? cx : nullptr, HB, true, false},
       {Lstm ? dcy : nullptr, HB, true, false}, {Lstm ? dcx : nullptr, HB, false, true},
       {w, size_t(N.wTotal()) * Es, true, false}, {reserve, Need, true, true}},
      [N, Xd = *X, Yd = *Y, Ht = *Hd, Dropped](const std::vector<void *> &Ptr) {
        std::vector<double> W(N.wTotal());
        gather(flat(N.D.Type, N.wTotal()), Ptr[8], W.data());
        int64_t L = N.pseudo(), B = Xd.Batch, H = N.H, T = Xd.MaxSeq, G = N.G;
        Tensor States = Tensor::packed(N.D.Type, 3, Ht.Dim.data());
        States.Stride = Ht.Stride;
        std::vector<double> H0(L * B * H, 0.0), C0(L * B * H, 0.0), DHy(L * B * H, 0.0), DCy(L * B * H, 0.0),
            DHx(L * B * H, 0.0), DCx(L * B * H, 0.0);
        if (Ptr[2])
          gather(States, Ptr[2], H0.data());
        if (Ptr[3])
          gather(States, Ptr[3], DHy.data());
        if (Ptr[5])
          gather(States, Ptr[5], C0.data());
        if (Ptr[6])
          gather(States, Ptr[6], DCy.data());
        double *Rs = static_cast<double *>(Ptr[9]);
        Seq DOut = readSeq(Yd, Ptr[0]);
        for (int Layer = N.D.Layers - 1; Layer >= 0; --Layer) {
          int64_t In = N.layerIn(Layer);
          Seq DIn{T, B, In, std::vector<double>(size_t(T * B * In), 0.0)};
          for (int Dir = 0; Dir < N.Dirs; ++Dir) {
            int Ps = Layer * N.Dirs + Dir;
            bool Reverse = Dir == 1;
            ReserveLayout RL{T, B, G, H, In};
            double *Blk = Rs + reserveOff(N, Ps, T, B);
            const double *Rm = W.data() + N.offR(Ps), *Wm = W.data() + N.offW(Ps);
            int64_t Cols = N.inMatCols(Layer);
            double *DGi = Blk + RL.dgi(), *DGr = Blk + RL.dgr();
            std::fill(DGi, DGi + T * B * G * H, 0.0);
            std::fill(DGr, DGr + T * B * G * H, 0.0);
            std::vector<double> Dh(B * H), Dc(B * H), DhPrev(B * H);
            for (int64_t b = 0; b < B; ++b)
              for (int64_t j = 0; j < H; ++j) {
                Dh[b * H + j] = DHy[(Ps * B + b) * H + j];
                Dc[b * H + j] = DCy[(Ps * B + b) * H + j];
              }
            for (int64_t Step = T - 1; Step >= 0; --Step) {
              // Steps in reverse processing order; each sequence only where it is alive.
              std::vector<double> DgR(B * G * H, 0.0);
              for (int64_t b = 0; b < B; ++b) {
                int64_t Len = Xd.Lens[b];
                if (Step >= Len)
                  continue;
                int64_t t = Reverse ? Len - 1 - Step : Step, tp = Reverse ? t + 1 : t - 1; // tp: the previous step
                bool First = Step == 0;
                const double *Gt = Blk + RL.gates() + (t * B + b) * G * H;
                for (int64_t j = 0; j < H; ++j) {
                  double dh = Dh[b * H + j] + DOut.at(t, b, Dir * H + j);
                  double hPrev = First ? H0[(Ps * B + b) * H + j] : Blk[RL.h() + (tp * B + b) * H + j];
                  double *Di = DGi + (t * B + b) * G * H, *Dr = DGr + (t * B + b) * G * H;
                  if (N.D.Mode == CUDNN_LSTM) {
                    double i = Gt[j], f = Gt[H + j], g = Gt[2 * H + j], o = Gt[3 * H + j];
                    double c = Blk[RL.c() + (t * B + b) * H + j];
                    double cPrev = First ? C0[(Ps * B + b) * H + j] : Blk[RL.c() + (tp * B + b) * H + j];
                    double tc = std::tanh(c);
                    double dc = dh * o * (1 - tc * tc) + Dc[b * H + j];
                    if (N.D.Clip == CUDNN_RNN_CLIP_MINMAX && (c <= N.D.LClip || c >= N.D.RClip))
                      dc = 0; // a clipped cell passes no gradient (the clip's derivative)
                    Di[j] = dc * g * i * (1 - i);
                    Di[H + j] = dc * cPrev * f * (1 - f);
                    Di[2 * H + j] = dc * i * (1 - g * g);
                    Di[3 * H + j] = dh * tc * o * (1 - o);
                    for (int k = 0; k < 4; ++k)
                      Dr[k * H + j] = Di[k * H + j];
                    Dc[b * H + j] = dc * f;
                    DhPrev[b * H + j] = 0;
                  } else if (N.D.Mode == CUDNN_GRU) {
                    double r = Gt[j], z = Gt[H + j], n = Gt[2 * H + j], Rn = Blk[RL.rn() + (t * B + b) * H + j];
                    double dn = dh * (1 - z), dz = dh * (hPrev - n);
                    double dan = dn * (1 - n * n), dar = dan * Rn * r * (1 - r), daz = dz * z * (1 - z);
                    Di[j] = dar, Di[H + j] = daz, Di[2 * H + j] = dan;
                    Dr[j] = dar, Dr[H + j] = daz, Dr[2 * H + j] = dan * r;
                    DhPrev[b * H + j] = dh * z;
                  } else {
                    double hv = Blk[RL.h() + (t * B + b) * H + j];
                    double da = N.D.Mode == CUDNN_RNN_RELU ? (hv > 0 ? dh : 0) : dh * (1 - hv * hv);
                    Di[j] = da;
                    Dr[j] = da;
                    DhPrev[b * H + j] = 0;
                  }
                  (void)hPrev;
                }
                std::copy_n(DGr + (t * B + b) * G * H, G * H, &DgR[b * G * H]);
              }
              // dh_prev += Dr * R (R is [G*H][H]) for every live sequence.
              std::vector<double> Back(B * H, 0.0);
              gemm(false, B, H, G * H, DgR.data(), Rm, Back.data(), false);
              for (int64_t b = 0; b < B; ++b) {
                if (Step >= Xd.Lens[b])
                  continue;
                for (int64_t j = 0; j < H; ++j)
                  Dh[b * H + j] = DhPrev[b * H + j] + Back[b * H + j];
                if (Step == 0)
                  for (int64_t j = 0; j < H; ++j) {
                    DHx[(Ps * B + b) * H + j] = Dh[b * H + j];
                    DCx[(Ps * B + b) * H + j] = Dc[b * H + j];
                  }
              }
            }
            // Sequences of length 0 pass their final-state gradients straight through.
            for (int64_t b = 0; b < B; ++b)
              if (Xd.Lens[b] == 0)
                for (int64_t j = 0; j < H; ++j) {
                  DHx[(Ps * B + b) * H + j] = DHy[(Ps * B + b) * H + j];
                  DCx[(Ps * B + b) * H + j] = DCy[(Ps * B + b) * H + j];
                }
            // The layer input's gradient: DIn += DGi * W (W is [G*H][In]); skip input adds the gate sums.
            if (Cols)
              gemm(false, T * B, In, G * H, DGi, Wm, DIn.A.data(), true);
            else
              for (int64_t I = 0; I < T * B; ++I)
                for (int64_t g = 0; g < G; ++g)
                  for (int64_t j = 0; j < H; ++j)
                    DIn.A[I * In + j] += DGi[I * G * H + g * H + j];
          }
          if (Layer > 0 && Dropped) { // through the dropout of the layer below's output
            ReserveLayout Below{T, B, G, H, N.layerIn(Layer - 1)};
            const double *Mask = Rs + reserveOff(N, (Layer - 1) * N.Dirs, T, B) + Below.mask(N.Dirs);
            for (size_t I = 0; I < DIn.A.size(); ++I)
              DIn.A[I] *= Mask[I];
          }
          DOut = std::move(DIn);
        }
        writeSeq(Xd, Ptr[1], DOut);
        if (Ptr[4])
          scatter(States, Ptr[4], DHx.data(), 1, 0);
        if (Ptr[7])
          scatter(States, Ptr[7], DCx.data(), 1, 0);
      });
}

CUDNN_API cudnnStatus_t cudnnRNNBackwardWeights_v8(cudnnHandle_t Handle, cudnnRNNDescriptor_t D, cudnnWgradMode_t Add,
                                                   const int32_t *, cudnnRNNDataDescriptor_t XD, const void *x,
                                                   cudnnTensorDescriptor_t HD, const void *hx,
                                                   cudnnRNNDataDescriptor_t YD, const void *, size_t WeightBytes,
                                                   void *dw, size_t, void *, size_t ReserveBytes, void *reserve) {
  cudnnContext *Ctx = handleOf(Handle);
  cudnnRNNStruct *R = rnnOf(D);
  cudnnRNNDataStruct *X = dataOf(XD), *Y = dataOf(YD);
  const Tensor *Hd = tensorOf(HD);
  if (!Ctx || !R || !X || !Y || !Hd || !x || !dw || !reserve || (Add != CUDNN_WGRAD_MODE_ADD && Add != CUDNN_WGRAD_MODE_SET))
    return CUDNN_STATUS_BAD_PARAM;
  Net N(*R);
  std::string Why = checkShapes(N, *X, Y, Hd);
  if (!Why.empty())
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnRNNBackwardWeights_v8", Why);
  size_t Need = static_cast<size_t>(reserveDoubles(N, X->MaxSeq, X->Batch)) * 8, Es = typeSize(R->Type);
  if (ReserveBytes < Need || WeightBytes < size_t(N.wTotal()) * Es)
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnRNNBackwardWeights_v8", "weight or reserve space too small");
  size_t HB = Hd->spanBytes();
  return runOnStream(
      Ctx->Stream,
      {{hx, hx ? HB : 0, true, false}, {dw, size_t(N.wTotal()) * Es, Add == CUDNN_WGRAD_MODE_ADD, true},
       {reserve, Need, true, false}},
      [N, Xd = *X, Ht = *Hd, Add](const std::vector<void *> &Ptr) {
        int64_t L = N.pseudo(), B = Xd.Batch, H = N.H, T = Xd.MaxSeq, G = N.G;
        std::vector<double> H0(L * B * H, 0.0), DW(N.wTotal(), 0.0);
        Tensor States = Tensor::packed(N.D.Type, 3, Ht.Dim.data());
        States.Stride = Ht.Stride;
        if (Ptr[0])
          gather(States, Ptr[0], H0.data());
        const double *Rs = static_cast<const double *>(Ptr[2]);
        for (int Ps = 0; Ps < L; ++Ps) {
          int Layer = Ps / N.Dirs;
          bool Reverse = Ps % N.Dirs == 1;
          int64_t In = N.layerIn(Layer), Cols = N.inMatCols(Layer);
          ReserveLayout RL{T, B, G, H, In};
          const double *Blk = Rs + reserveOff(N, Ps, T, B);
          const double *DGi = Blk + RL.dgi(), *DGr = Blk + RL.dgr(), *Input = Blk + RL.input();
          // dW += DGi^T * input over all steps; padded steps have zero gradients.
          if (Cols)
            cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, int(G * H), int(Cols), int(T * B), 1.0, DGi,
                        int(G * H), Input, int(In), 1.0, DW.data() + N.offW(Ps), int(Cols));
          // dR += DGr^T * h_prev, h_prev per step: the initial state or the previous step's output.
          std::vector<double> HPrev(size_t(T * B * H), 0.0);
          for (int64_t b = 0; b < B; ++b) {
            int64_t Len = Xd.Lens[b];
            for (int64_t Step = 0; Step < Len; ++Step) {
              int64_t t = Reverse ? Len - 1 - Step : Step, tp = Reverse ? t + 1 : t - 1;
              for (int64_t j = 0; j < H; ++j)
                HPrev[(t * B + b) * H + j] = Step == 0 ? H0[(Ps * B + b) * H + j] : Blk[RL.h() + (tp * B + b) * H + j];
            }
          }
          cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, int(G * H), int(H), int(T * B), 1.0, DGr, int(G * H),
                      HPrev.data(), int(H), 1.0, DW.data() + N.offR(Ps), int(H));
          for (int64_t I = 0; I < T * B; ++I)
            for (int64_t k = 0; k < G * H; ++k) {
              if (N.BiasW)
                DW[N.offBW(Ps) + k] += DGi[I * G * H + k];
              if (N.BiasR)
                DW[N.offBR(Ps) + k] += DGr[I * G * H + k];
            }
        }
        scatter(flat(N.D.Type, N.wTotal()), Ptr[1], DW.data(), 1, Add == CUDNN_WGRAD_MODE_ADD ? 1 : 0);
      });
}
