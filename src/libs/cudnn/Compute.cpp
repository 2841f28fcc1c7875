//===- Compute.cpp - our cuDNN's host compute core -------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "libs/cudnn/Dnn.h"

#include "common/Log.h"
#include "libs/common/Half.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace zluda::dnn {

int64_t Tensor::count() const {
  int64_t N = 1;
  for (int I = 0; I < Rank; ++I)
    N *= Dim[I];
  return N;
}

size_t Tensor::spanBytes() const {
  if (count() == 0)
    return 0;
  int64_t Last = 0;
  for (int I = 0; I < Rank; ++I)
    Last += (Dim[I] - 1) * Stride[I];
  return static_cast<size_t>(Last + 1) * typeSize(Type);
}

Tensor Tensor::packed(cudnnDataType_t T, int Rank, const int64_t *Dims) {
  Tensor R;
  R.Type = T;
  R.Rank = Rank;
  int64_t S = 1;
  for (int I = Rank - 1; I >= 0; --I) {
    R.Dim[I] = Dims[I];
    R.Stride[I] = S;
    S *= Dims[I];
  }
  return R;
}

Tensor Tensor::channelsLast(cudnnDataType_t T, int Rank, const int64_t *Dims) {
  Tensor R;
  R.Type = T;
  R.Rank = Rank;
  for (int I = 0; I < Rank; ++I)
    R.Dim[I] = Dims[I];
  if (Rank < 3)
    return packed(T, Rank, Dims);
  int64_t S = Dims[1];
  R.Stride[1] = 1;
  for (int I = Rank - 1; I >= 2; --I) {
    R.Stride[I] = S;
    S *= Dims[I];
  }
  R.Stride[0] = S;
  return R;
}

bool sameDims(const Tensor &A, const Tensor &B) {
  if (A.Rank != B.Rank)
    return false;
  for (int I = 0; I < A.Rank; ++I)
    if (A.Dim[I] != B.Dim[I])
      return false;
  return true;
}

size_t typeSize(cudnnDataType_t T) {
  switch (T) {
  case CUDNN_DATA_DOUBLE:
  case CUDNN_DATA_INT64:
    return 8;
  case CUDNN_DATA_FLOAT:
  case CUDNN_DATA_INT32:
    return 4;
  case CUDNN_DATA_HALF:
  case CUDNN_DATA_BFLOAT16:
    return 2;
  case CUDNN_DATA_INT8:
  case CUDNN_DATA_UINT8:
  case CUDNN_DATA_BOOLEAN:
  case CUDNN_DATA_FP8_E4M3:
  case CUDNN_DATA_FP8_E5M2:
    return 1;
  default:
    return 0;
  }
}

bool typeSupported(cudnnDataType_t T) {
  switch (T) {
  case CUDNN_DATA_FLOAT:
  case CUDNN_DATA_DOUBLE:
  case CUDNN_DATA_HALF:
  case CUDNN_DATA_BFLOAT16:
  case CUDNN_DATA_INT8:
  case CUDNN_DATA_UINT8:
  case CUDNN_DATA_INT32:
  case CUDNN_DATA_INT64:
  case CUDNN_DATA_BOOLEAN:
    return true;
  default:
    return false;
  }
}

namespace {

double readElem(cudnnDataType_t T, const char *P) {
  switch (T) {
  case CUDNN_DATA_FLOAT: {
    float F;
    std::memcpy(&F, P, 4);
    return F;
  }
  case CUDNN_DATA_DOUBLE: {
    double D;
    std::memcpy(&D, P, 8);
    return D;
  }
  case CUDNN_DATA_HALF: {
    uint16_t H;
    std::memcpy(&H, P, 2);
    return libs::halfToFloat(H);
  }
  case CUDNN_DATA_BFLOAT16: {
    uint16_t H;
    std::memcpy(&H, P, 2);
    return libs::bf16ToFloat(H);
  }
  case CUDNN_DATA_INT8:
    return static_cast<int8_t>(*P);
  case CUDNN_DATA_UINT8:
  case CUDNN_DATA_BOOLEAN:
    return static_cast<uint8_t>(*P);
  case CUDNN_DATA_INT32: {
    int32_t I;
    std::memcpy(&I, P, 4);
    return I;
  }
  case CUDNN_DATA_INT64: {
    int64_t I;
    std::memcpy(&I, P, 8);
    return static_cast<double>(I);
  }
  default:
    return 0;
  }
}

template <typename To> To saturate(double V) {
  if (std::isnan(V))
    return 0;
  V = std::nearbyint(V);
  V = std::min<double>(std::max<double>(V, static_cast<double>(std::numeric_limits<To>::min())),
                       static_cast<double>(std::numeric_limits<To>::max()));
  return static_cast<To>(V);
}

void writeElem(cudnnDataType_t T, char *P, double V) {
  switch (T) {
  case CUDNN_DATA_FLOAT: {
    float F = static_cast<float>(V);
    std::memcpy(P, &F, 4);
    break;
  }
  case CUDNN_DATA_DOUBLE:
    std::memcpy(P, &V, 8);
    break;
  case CUDNN_DATA_HALF: {
    uint16_t H = libs::floatToHalf(static_cast<float>(V));
    std::memcpy(P, &H, 2);
    break;
  }
  case CUDNN_DATA_BFLOAT16: {
    uint16_t H = libs::floatToBf16(static_cast<float>(V));
    std::memcpy(P, &H, 2);
    break;
  }
  case CUDNN_DATA_INT8:
    *reinterpret_cast<int8_t *>(P) = saturate<int8_t>(V);
    break;
  case CUDNN_DATA_UINT8:
    *reinterpret_cast<uint8_t *>(P) = saturate<uint8_t>(V);
    break;
  case CUDNN_DATA_BOOLEAN:
    *reinterpret_cast<uint8_t *>(P) = V != 0;
    break;
  case CUDNN_DATA_INT32: {
    int32_t I = saturate<int32_t>(V);
    std::memcpy(P, &I, 4);
    break;
  }
  case CUDNN_DATA_INT64: {
    int64_t I = saturate<int64_t>(V);
    std::memcpy(P, &I, 8);
    break;
  }
  default:
    break;
  }
}

/// Calls Fn(logical index, byte offset) for every element, the last dimension innermost.
template <typename F> void forEach(const Tensor &T, F Fn) {
  int64_t N = T.count();
  if (N == 0)
    return;
  size_t Es = typeSize(T.Type);
  std::array<int64_t, MaxDims> Idx{};
  int Last = T.Rank - 1;
  int64_t Inner = Last >= 0 ? T.Dim[Last] : 1, InnerStride = Last >= 0 ? T.Stride[Last] : 0;
  for (int64_t L = 0; L < N; L += Inner) {
    int64_t Off = 0;
    for (int I = 0; I < Last; ++I)
      Off += Idx[I] * T.Stride[I];
    for (int64_t J = 0; J < Inner; ++J)
      Fn(L + J, static_cast<size_t>(Off + J * InnerStride) * Es);
    for (int I = Last - 1; I >= 0; --I) {
      if (++Idx[I] < T.Dim[I])
        break;
      Idx[I] = 0;
    }
  }
}

} // namespace

template <typename Acc> void gather(const Tensor &T, const void *P, Acc *Out) {
  const char *B = static_cast<const char *>(P);
  if (T.Type == CUDNN_DATA_FLOAT && std::is_same_v<Acc, float>) {
    forEach(T, [&](int64_t L, size_t Off) { std::memcpy(&Out[L], B + Off, 4); });
    return;
  }
  forEach(T, [&](int64_t L, size_t Off) { Out[L] = static_cast<Acc>(readElem(T.Type, B + Off)); });
}

template <typename Acc> void scatter(const Tensor &T, void *P, const Acc *In, double Alpha, double Beta) {
  char *B = static_cast<char *>(P);
  if (Beta == 0 && Alpha == 1 && T.Type == CUDNN_DATA_FLOAT && std::is_same_v<Acc, float>) {
    forEach(T, [&](int64_t L, size_t Off) { std::memcpy(B + Off, &In[L], 4); });
    return;
  }
  forEach(T, [&](int64_t L, size_t Off) {
    double V = Alpha * static_cast<double>(In[L]);
    if (Beta != 0)
      V += Beta * readElem(T.Type, B + Off);
    writeElem(T.Type, B + Off, V);
  });
}

template void gather<float>(const Tensor &, const void *, float *);
template void gather<double>(const Tensor &, const void *, double *);
template void scatter<float>(const Tensor &, void *, const float *, double, double);
template void scatter<double>(const Tensor &, void *, const double *, double, double);

int64_t convOutSize(int64_t In, int64_t Filter, int64_t PadBefore, int64_t PadAfter, int64_t Stride,
                    int64_t Dilation) {
  int64_t Span = (Filter - 1) * Dilation + 1;
  if (Stride <= 0 || In + PadBefore + PadAfter < Span)
    return 0;
  return (In + PadBefore + PadAfter - Span) / Stride + 1;
}

std::string checkConv(const Tensor &X, const Tensor &W, const Tensor &Y, const Conv &C) {
  int R = C.Spatial + 2;
  if (C.Spatial < 1 || C.Spatial > 3)
    return "convolutions have 1 to 3 spatial dimensions";
  if (X.Rank != R || W.Rank != R || Y.Rank != R)
    return "x, w and y need " + std::to_string(R) + " dimensions (" + std::to_string(X.Rank) + ", " +
           std::to_string(W.Rank) + ", " + std::to_string(Y.Rank) + " given)";
  if (C.Groups < 1 || X.Dim[1] % C.Groups || W.Dim[0] % C.Groups)
    return "channels are not a multiple of the group count";
  if (W.Dim[1] * C.Groups != X.Dim[1])
    return "the filter's input channels times the groups (" + std::to_string(W.Dim[1] * C.Groups) +
           ") differ from x's channels (" + std::to_string(X.Dim[1]) + ")";
  if (Y.Dim[0] != X.Dim[0] || Y.Dim[1] != W.Dim[0])
    return "y's batch or channels do not match x and w";
  for (int I = 0; I < C.Spatial; ++I) {
    int64_t O = convOutSize(X.Dim[2 + I], W.Dim[2 + I], C.PadBefore[I], C.PadAfter[I], C.Stride[I], C.Dilation[I]);
    if (C.Stride[I] < 1 || C.Dilation[I] < 1 || C.PadBefore[I] < 0 || C.PadAfter[I] < 0)
      return "strides and dilations must be positive, paddings non-negative";
    if (O != Y.Dim[2 + I])
      return "y's spatial dimension " + std::to_string(I) + " is " + std::to_string(Y.Dim[2 + I]) + ", the convolution gives " +
             std::to_string(O);
  }
  return "";
}

namespace {

void gemm(bool Ta, bool Tb, int64_t M, int64_t N, int64_t K, float Al, const float *A, int64_t Lda, const float *B,
          int64_t Ldb, float Be, float *C, int64_t Ldc) {
  cblas_sgemm(CblasRowMajor, Ta ? CblasTrans : CblasNoTrans, Tb ? CblasTrans : CblasNoTrans, static_cast<int>(M),
              static_cast<int>(N), static_cast<int>(K), Al, A, static_cast<int>(Lda), B, static_cast<int>(Ldb), Be, C,
              static_cast<int>(Ldc));
}
void gemm(bool Ta, bool Tb, int64_t M, int64_t N, int64_t K, double Al, const double *A, int64_t Lda, const double *B,
          int64_t Ldb, double Be, double *C, int64_t Ldc) {
  cblas_dgemm(CblasRowMajor, Ta ? CblasTrans : CblasNoTrans, Tb ? CblasTrans : CblasNoTrans, static_cast<int>(M),
              static_cast<int>(N), static_cast<int>(K), Al, A, static_cast<int>(Lda), B, static_cast<int>(Ldb), Be, C,
              static_cast<int>(Ldc));
}

/// A convolution's sizes with the spatial dims right-aligned in three (D, H, W).
struct Geo {
  int64_t N, C, K, G, Cg, Kg;
  int64_t In[3], F[3], Out[3], Pad[3], Str[3], Dil[3];
  int64_t ISP, OSP, FSP, CKK;
  bool Direct; ///< 1x1, stride 1, no padding: x itself is the column matrix

  Geo(const Conv &Cv, const Tensor &X, const Tensor &W, const Tensor &Y) {
    N = X.Dim[0];
    C = X.Dim[1];
    K = W.Dim[0];
    G = Cv.Groups;
    Cg = C / G;
    Kg = K / G;
    int Off = 3 - Cv.Spatial;
    for (int I = 0; I < 3; ++I) {
      int S = I - Off;
      bool Has = S >= 0;
      In[I] = Has ? X.Dim[2 + S] : 1;
      F[I] = Has ? W.Dim[2 + S] : 1;
      Out[I] = Has ? Y.Dim[2 + S] : 1;
      Pad[I] = Has ? Cv.PadBefore[S] : 0;
      Str[I] = Has ? Cv.Stride[S] : 1;
      Dil[I] = Has ? Cv.Dilation[S] : 1;
    }
    ISP = In[0] * In[1] * In[2];
    OSP = Out[0] * Out[1] * Out[2];
    FSP = F[0] * F[1] * F[2];
    CKK = Cg * FSP;
    Direct = FSP == 1 && ISP == OSP;
    for (int I = 0; I < 3; ++I)
      Direct = Direct && Pad[I] == 0 && Str[I] == 1;
  }
};

/// col[CKK][OSP] from one image's group x[Cg][ISP].
template <typename Acc> void im2col(const Geo &G, const Acc *X, Acc *Col) {
  for (int64_t C = 0; C < G.Cg; ++C)
    for (int64_t Kd = 0; Kd < G.F[0]; ++Kd)
      for (int64_t Kh = 0; Kh < G.F[1]; ++Kh)
        for (int64_t Kw = 0; Kw < G.F[2]; ++Kw) {
          Acc *Row = Col + (((C * G.F[0] + Kd) * G.F[1] + Kh) * G.F[2] + Kw) * G.OSP;
          const Acc *Xc = X + C * G.ISP;
          for (int64_t Od = 0; Od < G.Out[0]; ++Od) {
            int64_t Id = Od * G.Str[0] - G.Pad[0] + Kd * G.Dil[0];
            for (int64_t Oh = 0; Oh < G.Out[1]; ++Oh) {
              int64_t Ih = Oh * G.Str[1] - G.Pad[1] + Kh * G.Dil[1];
              Acc *R = Row + (Od * G.Out[1] + Oh) * G.Out[2];
              if (Id < 0 || Id >= G.In[0] || Ih < 0 || Ih >= G.In[1]) {
                std::fill(R, R + G.Out[2], Acc(0));
                continue;
              }
              const Acc *Xr = Xc + (Id * G.In[1] + Ih) * G.In[2];
              for (int64_t Ow = 0; Ow < G.Out[2]; ++Ow) {
                int64_t Iw = Ow * G.Str[2] - G.Pad[2] + Kw * G.Dil[2];
                R[Ow] = Iw >= 0 && Iw < G.In[2] ? Xr[Iw] : Acc(0);
              }
            }
          }
        }
}

/// x[Cg][ISP] += col[CKK][OSP] scattered back (im2col's adjoint).
template <typename Acc> void col2im(const Geo &G, const Acc *Col, Acc *X) {
  for (int64_t C = 0; C < G.Cg; ++C)
    for (int64_t Kd = 0; Kd < G.F[0]; ++Kd)
      for (int64_t Kh = 0; Kh < G.F[1]; ++Kh)
        for (int64_t Kw = 0; Kw < G.F[2]; ++Kw) {
          const Acc *Row = Col + (((C * G.F[0] + Kd) * G.F[1] + Kh) * G.F[2] + Kw) * G.OSP;
          Acc *Xc = X + C * G.ISP;
          for (int64_t Od = 0; Od < G.Out[0]; ++Od) {
            int64_t Id = Od * G.Str[0] - G.Pad[0] + Kd * G.Dil[0];
            if (Id < 0 || Id >= G.In[0])
              continue;
            for (int64_t Oh = 0; Oh < G.Out[1]; ++Oh) {
              int64_t Ih = Oh * G.Str[1] - G.Pad[1] + Kh * G.Dil[1];
              if (Ih < 0 || Ih >= G.In[1])
                continue;
              const Acc *R = Row + (Od * G.Out[1] + Oh) * G.Out[2];
              Acc *Xr = Xc + (Id * G.In[1] + Ih) * G.In[2];
              for (int64_t Ow = 0; Ow < G.Out[2]; ++Ow) {
                int64_t Iw = Ow * G.Str[2] - G.Pad[2] + Kw * G.Dil[2];
                if (Iw >= 0 && Iw < G.In[2])
                  Xr[Iw] += R[Ow];
              }
            }
          }
        }
}

/// CUDNN_CONVOLUTION turns the filter around in every spatial dim.
template <typename Acc> void flipSpatial(const Geo &G, Acc *W, int64_t Planes) {
  for (int64_t P = 0; P < Planes; ++P)
    std::reverse(W + P * G.FSP, W + (P + 1) * G.FSP);
}

} // namespace

template <typename Acc>
void convForward(const Conv &C, const Tensor &X, const Acc *x, const Tensor &W, const Acc *w, const Tensor &Y, Acc *y) {
  Geo G(C, X, W, Y);
  std::vector<Acc> Wf;
  if (C.Flip) {
    Wf.assign(w, w + G.K * G.CKK);
    flipSpatial(G, Wf.data(), G.K * G.Cg);
    w = Wf.data();
  }
  std::vector<Acc> Col(G.Direct ? 0 : static_cast<size_t>(G.CKK * G.OSP));
  for (int64_t N = 0; N < G.N; ++N)
    for (int64_t Gi = 0; Gi < G.G; ++Gi) {
      const Acc *Xg = x + (N * G.C + Gi * G.Cg) * G.ISP;
      const Acc *B = Xg;
      if (!G.Direct) {
        im2col(G, Xg, Col.data());
        B = Col.data();
      }
      gemm(false, false, G.Kg, G.OSP, G.CKK, Acc(1), w + Gi * G.Kg * G.CKK, G.CKK, B, G.OSP, Acc(0),
           y + (N * G.K + Gi * G.Kg) * G.OSP, G.OSP);
    }
}

template <typename Acc>
void convBackwardData(const Conv &C, const Tensor &W, const Acc *w, const Tensor &Dy, const Acc *dy, const Tensor &Dx,
                      Acc *dx) {
  Geo G(C, Dx, W, Dy);
  std::vector<Acc> Wf;
  if (C.Flip) {
    Wf.assign(w, w + G.K * G.CKK);
    flipSpatial(G, Wf.data(), G.K * G.Cg);
    w = Wf.data();
  }
  std::fill(dx, dx + G.N * G.C * G.ISP, Acc(0));
  std::vector<Acc> Col(static_cast<size_t>(G.CKK * G.OSP));
  for (int64_t N = 0; N < G.N; ++N)
    for (int64_t Gi = 0; Gi < G.G; ++Gi) {
      Acc *Dxg = dx + (N * G.C + Gi * G.Cg) * G.ISP;
      const Acc *Dyg = dy + (N * G.K + Gi * G.Kg) * G.OSP;
      if (G.Direct) { // dx = W^T dy
        gemm(true, false, G.CKK, G.OSP, G.Kg, Acc(1), w + Gi * G.Kg * G.CKK, G.CKK, Dyg, G.OSP, Acc(0), Dxg, G.OSP);
        continue;
      }
      gemm(true, false, G.CKK, G.OSP, G.Kg, Acc(1), w + Gi * G.Kg * G.CKK, G.CKK, Dyg, G.OSP, Acc(0), Col.data(), G.OSP);
      col2im(G, Col.data(), Dxg);
    }
}

template <typename Acc>
void convBackwardFilter(const Conv &C, const Tensor &X, const Acc *x, const Tensor &Dy, const Acc *dy, const Tensor &Dw,
                        Acc *dw) {
  Geo G(C, X, Dw, Dy);
  std::fill(dw, dw + G.K * G.CKK, Acc(0));
  std::vector<Acc> Col(G.Direct ? 0 : static_cast<size_t>(G.CKK * G.OSP));
  for (int64_t N = 0; N < G.N; ++N)
    for (int64_t Gi = 0; Gi < G.G; ++Gi) {
      const Acc *Xg = x + (N * G.C + Gi * G.Cg) * G.ISP;
      const Acc *B = Xg;
      if (!G.Direct) {
        im2col(G, Xg, Col.data());
        B = Col.data();
      }
      gemm(false, true, G.Kg, G.CKK, G.OSP, Acc(1), dy + (N * G.K + Gi * G.Kg) * G.OSP, G.OSP, B, G.OSP, Acc(1),
           dw + Gi * G.Kg * G.CKK, G.CKK);
    }
  if (C.Flip)
    flipSpatial(G, dw, G.K * G.Cg);
}

template void convForward<float>(const Conv &, const Tensor &, const float *, const Tensor &, const float *,
                                 const Tensor &, float *);
template void convForward<double>(const Conv &, const Tensor &, const double *, const Tensor &, const double *,
                                  const Tensor &, double *);
template void convBackwardData<float>(const Conv &, const Tensor &, const float *, const Tensor &, const float *,
                                      const Tensor &, float *);
template void convBackwardData<double>(const Conv &, const Tensor &, const double *, const Tensor &, const double *,
                                       const Tensor &, double *);
template void convBackwardFilter<float>(const Conv &, const Tensor &, const float *, const Tensor &, const float *,
                                        const Tensor &, float *);
template void convBackwardFilter<double>(const Conv &, const Tensor &, const double *, const Tensor &, const double *,
                                         const Tensor &, double *);

int pointwiseArity(cudnnPointwiseMode_t M) {
  switch (M) {
  case CUDNN_POINTWISE_ADD:
  case CUDNN_POINTWISE_ADD_SQUARE:
  case CUDNN_POINTWISE_DIV:
  case CUDNN_POINTWISE_MAX:
  case CUDNN_POINTWISE_MIN:
  case CUDNN_POINTWISE_MOD:
  case CUDNN_POINTWISE_MUL:
  case CUDNN_POINTWISE_POW:
  case CUDNN_POINTWISE_SUB:
  case CUDNN_POINTWISE_ATAN2:
  case CUDNN_POINTWISE_CMP_EQ:
  case CUDNN_POINTWISE_CMP_NEQ:
  case CUDNN_POINTWISE_CMP_GT:
  case CUDNN_POINTWISE_CMP_GE:
  case CUDNN_POINTWISE_CMP_LT:
  case CUDNN_POINTWISE_CMP_LE:
  case CUDNN_POINTWISE_LOGICAL_AND:
  case CUDNN_POINTWISE_LOGICAL_OR:
    return 2;
  case CUDNN_POINTWISE_BINARY_SELECT:
    return 3;
  case CUDNN_POINTWISE_ABS:
  case CUDNN_POINTWISE_CEIL:
  case CUDNN_POINTWISE_COS:
  case CUDNN_POINTWISE_EXP:
  case CUDNN_POINTWISE_FLOOR:
  case CUDNN_POINTWISE_LOG:
  case CUDNN_POINTWISE_NEG:
  case CUDNN_POINTWISE_RSQRT:
  case CUDNN_POINTWISE_SIN:
  case CUDNN_POINTWISE_SQRT:
  case CUDNN_POINTWISE_TAN:
  case CUDNN_POINTWISE_ERF:
  case CUDNN_POINTWISE_IDENTITY:
  case CUDNN_POINTWISE_RECIPROCAL:
  case CUDNN_POINTWISE_LOGICAL_NOT:
  case CUDNN_POINTWISE_GEN_INDEX: // x gives the shape; the value is the position along the axis
  case CUDNN_POINTWISE_RELU_FWD:
  case CUDNN_POINTWISE_TANH_FWD:
  case CUDNN_POINTWISE_SIGMOID_FWD:
  case CUDNN_POINTWISE_ELU_FWD:
  case CUDNN_POINTWISE_GELU_FWD:
  case CUDNN_POINTWISE_SOFTPLUS_FWD:
  case CUDNN_POINTWISE_SWISH_FWD:
  case CUDNN_POINTWISE_GELU_APPROX_TANH_FWD:
    return 1;
  case CUDNN_POINTWISE_RELU_BWD:
  case CUDNN_POINTWISE_TANH_BWD:
  case CUDNN_POINTWISE_SIGMOID_BWD:
  case CUDNN_POINTWISE_ELU_BWD:
  case CUDNN_POINTWISE_GELU_BWD:
  case CUDNN_POINTWISE_SOFTPLUS_BWD:
  case CUDNN_POINTWISE_SWISH_BWD:
  case CUDNN_POINTWISE_GELU_APPROX_TANH_BWD:
    return 2;
  default:
    return 0;
  }
}

bool pointwiseIsBackward(cudnnPointwiseMode_t M) { return M >= 200 && M < 300; }

namespace {
double sigmoid(double X) { return 1 / (1 + std::exp(-X)); }
constexpr double SqrtTwoOverPi = 0.7978845608028654, GeluC = 0.044715;
} // namespace

double pointwiseApply(const Pointwise &P, double A, double B, double C) {
  switch (P.Mode) {
  case CUDNN_POINTWISE_ADD:
    return A + B;
  case CUDNN_POINTWISE_ADD_SQUARE:
    return A + B * B;
  case CUDNN_POINTWISE_DIV:
    return A / B;
  case CUDNN_POINTWISE_MAX:
    return std::isnan(A) || std::isnan(B) ? NAN : std::max(A, B);
  case CUDNN_POINTWISE_MIN:
    return std::isnan(A) || std::isnan(B) ? NAN : std::min(A, B);
  case CUDNN_POINTWISE_MOD:
    return std::fmod(A, B);
  case CUDNN_POINTWISE_MUL:
    return A * B;
  case CUDNN_POINTWISE_POW:
    return std::pow(A, B);
  case CUDNN_POINTWISE_SUB:
    return A - B;
  case CUDNN_POINTWISE_ATAN2:
    return std::atan2(A, B);
  case CUDNN_POINTWISE_ABS:
    return std::fabs(A);
  case CUDNN_POINTWISE_CEIL:
    return std::ceil(A);
  case CUDNN_POINTWISE_COS:
    return std::cos(A);
  case CUDNN_POINTWISE_EXP:
    return std::exp(A);
  case CUDNN_POINTWISE_FLOOR:
    return std::floor(A);
  case CUDNN_POINTWISE_LOG:
    return std::log(A);
  case CUDNN_POINTWISE_NEG:
    return -A;
  case CUDNN_POINTWISE_RSQRT:
    return 1 / std::sqrt(A);
  case CUDNN_POINTWISE_SIN:
    return std::sin(A);
  case CUDNN_POINTWISE_SQRT:
    return std::sqrt(A);
  case CUDNN_POINTWISE_TAN:
    return std::tan(A);
  case CUDNN_POINTWISE_ERF:
    return std::erf(A);
  case CUDNN_POINTWISE_IDENTITY:
    return A;
  case CUDNN_POINTWISE_RECIPROCAL:
    return 1 / A;
  case CUDNN_POINTWISE_CMP_EQ:
    return A == B;
  case CUDNN_POINTWISE_CMP_NEQ:
    return A != B;
  case CUDNN_POINTWISE_CMP_GT:
    return A > B;
  case CUDNN_POINTWISE_CMP_GE:
    return A >= B;
  case CUDNN_POINTWISE_CMP_LT:
    return A < B;
  case CUDNN_POINTWISE_CMP_LE:
    return A <= B;
  case CUDNN_POINTWISE_LOGICAL_AND:
    return A != 0 && B != 0;
  case CUDNN_POINTWISE_LOGICAL_OR:
    return A != 0 || B != 0;
  case CUDNN_POINTWISE_LOGICAL_NOT:
    return A == 0;
  case CUDNN_POINTWISE_BINARY_SELECT:
    return C != 0 ? A : B;
  case CUDNN_POINTWISE_RELU_FWD: {
    if (std::isnan(A))
      return A;
    if (A <= P.LowerClip)
      return P.LowerClip + P.LowerClipSlope * (A - P.LowerClip);
    return std::min(A, P.UpperClip);
  }
  case CUDNN_POINTWISE_TANH_FWD:
    return std::tanh(A);
  case CUDNN_POINTWISE_SIGMOID_FWD:
    return sigmoid(A);
  case CUDNN_POINTWISE_ELU_FWD:
    return A > 0 ? A : P.EluAlpha * std::expm1(A);
  case CUDNN_POINTWISE_GELU_FWD:
    return 0.5 * A * (1 + std::erf(A / std::sqrt(2.0)));
  case CUDNN_POINTWISE_SOFTPLUS_FWD:
    return std::log1p(std::exp(P.SoftplusBeta * A)) / P.SoftplusBeta;
  case CUDNN_POINTWISE_SWISH_FWD:
    return A * sigmoid(P.SwishBeta * A);
  case CUDNN_POINTWISE_GELU_APPROX_TANH_FWD:
    return 0.5 * A * (1 + std::tanh(SqrtTwoOverPi * (A + GeluC * A * A * A)));
  // Backward: A = dy, B = x (the forward's input).
  case CUDNN_POINTWISE_RELU_BWD:
    return B > P.LowerClip && B < P.UpperClip ? A : (B <= P.LowerClip ? A * P.LowerClipSlope : 0);
  case CUDNN_POINTWISE_TANH_BWD: {
    double T = std::tanh(B);
    return A * (1 - T * T);
  }
  case CUDNN_POINTWISE_SIGMOID_BWD: {
    double S = sigmoid(B);
    return A * S * (1 - S);
  }
  case CUDNN_POINTWISE_ELU_BWD:
    return B > 0 ? A : A * P.EluAlpha * std::exp(B);
  case CUDNN_POINTWISE_GELU_BWD: {
    double Cdf = 0.5 * (1 + std::erf(B / std::sqrt(2.0)));
    double Pdf = std::exp(-0.5 * B * B) / std::sqrt(2 * M_PI);
    return A * (Cdf + B * Pdf);
  }
  case CUDNN_POINTWISE_SOFTPLUS_BWD:
    return A * sigmoid(P.SoftplusBeta * B);
  case CUDNN_POINTWISE_SWISH_BWD: {
    double S = sigmoid(P.SwishBeta * B);
    return A * (S + P.SwishBeta * B * S * (1 - S));
  }
  case CUDNN_POINTWISE_GELU_APPROX_TANH_BWD: {
    double U = SqrtTwoOverPi * (B + GeluC * B * B * B), T = std::tanh(U);
    double Du = SqrtTwoOverPi * (1 + 3 * GeluC * B * B);
    return A * (0.5 * (1 + T) + 0.5 * B * (1 - T * T) * Du);
  }
  default:
    return NAN;
  }
}

namespace {
libs::Retained Keep;
} // namespace

cudnnStatus_t runOnStream(CUstream S, std::vector<Buffer> Bufs, std::function<void(const std::vector<void *> &)> Fn) {
  if (libs::cpuDevice()) {
    CUresult R = libs::enqueue(S, [Bufs = std::move(Bufs), Fn = std::move(Fn)] {
      std::vector<void *> P;
      for (const Buffer &B : Bufs)
        P.push_back(const_cast<void *>(B.Dev));
      Fn(P);
    }, Keep);
    return R ? CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER : CUDNN_STATUS_SUCCESS;
  }
  // A GPU: the arrays are computed on the host between copies, in stream order.
  if (libs::wait(S))
    return CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER;
  std::vector<std::vector<char>> Host(Bufs.size());
  std::vector<void *> P(Bufs.size(), nullptr);
  for (size_t I = 0; I < Bufs.size(); ++I) {
    if (!Bufs[I].Dev)
      continue;
    Host[I].resize(std::max<size_t>(Bufs[I].Bytes, 1));
    // Outputs are read too: beta blends with what they hold.
    if (Bufs[I].Bytes && libs::toHost(Host[I].data(), Bufs[I].Dev, Bufs[I].Bytes))
      return CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER;
    P[I] = Host[I].data();
  }
  Fn(P);
  for (size_t I = 0; I < Bufs.size(); ++I)
    if (Bufs[I].Dev && Bufs[I].Out && Bufs[I].Bytes &&
        libs::toDevice(const_cast<void *>(Bufs[I].Dev), Host[I].data(), Bufs[I].Bytes))
      return CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER;
  return CUDNN_STATUS_SUCCESS;
}

double scalarArg(const void *P, cudnnDataType_t TensorType) {
  if (!P)
    return 0;
  if (TensorType == CUDNN_DATA_DOUBLE)
    return *static_cast<const double *>(P);
  return *static_cast<const float *>(P);
}

cudnnStatus_t fail(cudnnStatus_t S, const char *Call, const std::string &Why) {
  ZLUDA_LOG_WARN("cuDNN: {}: {}", Call, Why);
  return S;
}

} // namespace zluda::dnn
