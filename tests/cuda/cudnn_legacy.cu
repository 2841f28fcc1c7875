// cuDNN's legacy API on our libcudnn, each result against a direct
// computation on the host (double loops written from the operations'
// definitions): convolution forward / backward data / backward filter in
// NCHW and NHWC, f32, f64, f16 and bf16, with padding, stride, dilation,
// groups, 3-D, true convolution and alpha/beta blending; the fused
// bias-activation form; activations, softmax, pooling, batch norm, LRN;
// tensor arithmetic; and the error codes of bad calls.
#include "cudnn_common.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#define EXPECT_STATUS(x, want)                                                                                         \
  do {                                                                                                                 \
    cudnnStatus_t s_ = (x);                                                                                            \
    if (s_ != (want)) {                                                                                                \
      std::printf("FAIL %s:%d %s: %s, want %s\n", __FILE__, __LINE__, #x, cudnnGetErrorString(s_),                  \
                  cudnnGetErrorString(want));                                                                          \
      std::exit(1);                                                                                                    \
    }                                                                                                                  \
  } while (0)

static std::mt19937 Rng(1234);
static std::vector<double> randoms(size_t N, double Lo = -1, double Hi = 1) {
  std::uniform_real_distribution<double> D(Lo, Hi);
  std::vector<double> V(N);
  for (double &X : V)
    X = D(Rng);
  return V;
}

/// Device arrays of one element type, filled from and read back to doubles.
struct DevArray {
  cudnnDataType_t Type;
  size_t N;
  void *P = nullptr;
  DevArray(cudnnDataType_t T, size_t Count) : Type(T), N(Count) { CHECK(cudaMalloc(&P, bytes())); }
  ~DevArray() { cudaFree(P); }
  size_t elem() const { return Type == CUDNN_DATA_DOUBLE ? 8 : Type == CUDNN_DATA_FLOAT ? 4 : 2; }
  size_t bytes() const { return N * elem(); }
  void put(const std::vector<double> &V) {
    std::vector<char> B(bytes());
    for (size_t I = 0; I < N; ++I) {
      if (Type == CUDNN_DATA_DOUBLE)
        std::memcpy(&B[I * 8], &V[I], 8);
      else if (Type == CUDNN_DATA_FLOAT) {
        float F = float(V[I]);
        std::memcpy(&B[I * 4], &F, 4);
      } else if (Type == CUDNN_DATA_HALF) {
        __half H = __float2half(float(V[I]));
        std::memcpy(&B[I * 2], &H, 2);
      } else {
        __nv_bfloat16 H = __float2bfloat16(float(V[I]));
        std::memcpy(&B[I * 2], &H, 2);
      }
    }
    CHECK(cudaMemcpy(P, B.data(), bytes(), cudaMemcpyHostToDevice));
  }
  /// The values as stored (rounded to the element type).
  std::vector<double> get() const {
    std::vector<char> B(bytes());
    CHECK(cudaMemcpy(B.data(), P, bytes(), cudaMemcpyDeviceToHost));
    std::vector<double> V(N);
    for (size_t I = 0; I < N; ++I) {
      if (Type == CUDNN_DATA_DOUBLE)
        std::memcpy(&V[I], &B[I * 8], 8);
      else if (Type == CUDNN_DATA_FLOAT) {
        float F;
        std::memcpy(&F, &B[I * 4], 4);
        V[I] = F;
      } else if (Type == CUDNN_DATA_HALF) {
        __half H;
        std::memcpy(&H, &B[I * 2], 2);
        V[I] = __half2float(H);
      } else {
        __nv_bfloat16 H;
        std::memcpy(&H, &B[I * 2], 2);
        V[I] = __bfloat162float(H);
      }
    }
    return V;
  }
};

/// A 2-D convolution's shape; the references index logical NCHW / KCRS arrays.
struct Shape {
  int N, C, H, W, K, R, S, PadH, PadW, StrH, StrW, DilH, DilW, G;
  int outH() const { return (H + 2 * PadH - ((R - 1) * DilH + 1)) / StrH + 1; }
  int outW() const { return (W + 2 * PadW - ((S - 1) * DilW + 1)) / StrW + 1; }
};

/// y[n][k][p][q] = sum over c in k's group, r, s of x[n][c][h][w] * w[k][c'][r][s] (flipped for CUDNN_CONVOLUTION).
static std::vector<double> refConv(const Shape &S, const std::vector<double> &X, const std::vector<double> &Wt, bool Flip) {
  int P = S.outH(), Q = S.outW(), Cg = S.C / S.G, Kg = S.K / S.G;
  std::vector<double> Y(size_t(S.N) * S.K * P * Q, 0.0);
  for (int n = 0; n < S.N; ++n)
    for (int k = 0; k < S.K; ++k)
      for (int p = 0; p < P; ++p)
        for (int q = 0; q < Q; ++q) {
          double Acc = 0;
          int g = k / Kg;
          for (int c = 0; c < Cg; ++c)
            for (int r = 0; r < S.R; ++r)
              for (int s = 0; s < S.S; ++s) {
                int h = p * S.StrH - S.PadH + r * S.DilH, w = q * S.StrW - S.PadW + s * S.DilW;
                if (h < 0 || h >= S.H || w < 0 || w >= S.W)
                  continue;
                int rr = Flip ? S.R - 1 - r : r, ss = Flip ? S.S - 1 - s : s;
                Acc += X[((size_t(n) * S.C + g * Cg + c) * S.H + h) * S.W + w] *
                       Wt[((size_t(k) * Cg + c) * S.R + rr) * S.S + ss];
              }
          Y[((size_t(n) * S.K + k) * P + p) * Q + q] = Acc;
        }
  return Y;
}
/// The adjoints of refConv: dx = conv^T(dy, w) and dw = dy (x) x.
static std::vector<double> refConvBwdData(const Shape &S, const std::vector<double> &Dy, const std::vector<double> &Wt) {
  int P = S.outH(), Q = S.outW(), Cg = S.C / S.G, Kg = S.K / S.G;
  std::vector<double> Dx(size_t(S.N) * S.C * S.H * S.W, 0.0);
  for (int n = 0; n < S.N; ++n)
    for (int k = 0; k < S.K; ++k)
      for (int p = 0; p < P; ++p)
        for (int q = 0; q < Q; ++q)
          for (int c = 0; c < Cg; ++c)
            for (int r = 0; r < S.R; ++r)
              for (int s = 0; s < S.S; ++s) {
                int h = p * S.StrH - S.PadH + r * S.DilH, w = q * S.StrW - S.PadW + s * S.DilW;
                if (h < 0 || h >= S.H || w < 0 || w >= S.W)
                  continue;
                Dx[((size_t(n) * S.C + (k / Kg) * Cg + c) * S.H + h) * S.W + w] +=
                    Dy[((size_t(n) * S.K + k) * P + p) * Q + q] * Wt[((size_t(k) * Cg + c) * S.R + r) * S.S + s];
              }
  return Dx;
}
static std::vector<double> refConvBwdFilter(const Shape &S, const std::vector<double> &X, const std::vector<double> &Dy) {
  int P = S.outH(), Q = S.outW(), Cg = S.C / S.G, Kg = S.K / S.G;
  std::vector<double> Dw(size_t(S.K) * Cg * S.R * S.S, 0.0);
  for (int n = 0; n < S.N; ++n)
    for (int k = 0; k < S.K; ++k)
      for (int p = 0; p < P; ++p)
        for (int q = 0; q < Q; ++q)
          for (int c = 0; c < Cg; ++c)
            for (int r = 0; r < S.R; ++r)
              for (int s = 0; s < S.S; ++s) {
                int h = p * S.StrH - S.PadH + r * S.DilH, w = q * S.StrW - S.PadW + s * S.DilW;
                if (h < 0 || h >= S.H || w < 0 || w >= S.W)
                  continue;
                Dw[((size_t(k) * Cg + c) * S.R + r) * S.S + s] +=
                    Dy[((size_t(n) * S.K + k) * P + p) * Q + q] * X[((size_t(n) * S.C + (k / Kg) * Cg + c) * S.H + h) * S.W + w];
              }
  return Dw;
}

/// NCHW (logical) <-> NHWC (stored) for the NHWC runs.
static std::vector<double> toNhwc(const std::vector<double> &V, int N, int C, int H, int W) {
  std::vector<double> R(V.size());
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c)
      for (int h = 0; h < H; ++h)
        for (int w = 0; w < W; ++w)
          R[((size_t(n) * H + h) * W + w) * C + c] = V[((size_t(n) * C + c) * H + h) * W + w];
  return R;
}

static cudnnHandle_t Handle;

/// Runs forward, backward data and backward filter for one shape, type and layout.
static void convCase(const char *Name, const Shape &S, cudnnDataType_t T, cudnnTensorFormat_t Fmt, bool Flip,
                     double Tol) {
  int P = S.outH(), Q = S.outW(), Cg = S.C / S.G;
  cudnnTensorDescriptor_t Xd, Yd;
  cudnnFilterDescriptor_t Wd;
  cudnnConvolutionDescriptor_t Cd;
  DN(cudnnCreateTensorDescriptor(&Xd));
  DN(cudnnCreateTensorDescriptor(&Yd));
  DN(cudnnCreateFilterDescriptor(&Wd));
  DN(cudnnCreateConvolutionDescriptor(&Cd));
  DN(cudnnSetTensor4dDescriptor(Xd, Fmt, T, S.N, S.C, S.H, S.W));
  DN(cudnnSetFilter4dDescriptor(Wd, T, Fmt, S.K, Cg, S.R, S.S));
  cudnnDataType_t Comp = T == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  DN(cudnnSetConvolution2dDescriptor(Cd, S.PadH, S.PadW, S.StrH, S.StrW, S.DilH, S.DilW,
                                     Flip ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION, Comp));
  DN(cudnnSetConvolutionGroupCount(Cd, S.G));
  int On, Oc, Oh, Ow;
  DN(cudnnGetConvolution2dForwardOutputDim(Cd, Xd, Wd, &On, &Oc, &Oh, &Ow));
  if (On != S.N || Oc != S.K || Oh != P || Ow != Q) {
    std::printf("FAIL %s: output dims %d %d %d %d, want %d %d %d %d\n", Name, On, Oc, Oh, Ow, S.N, S.K, P, Q);
    ++Failures;
    return;
  }
  DN(cudnnSetTensor4dDescriptor(Yd, Fmt, T, S.N, S.K, P, Q));
  bool Nhwc = Fmt == CUDNN_TENSOR_NHWC;
  // Inputs rounded to the element type first, so the reference sees what the library sees.
  DevArray X(T, size_t(S.N) * S.C * S.H * S.W), W(T, size_t(S.K) * Cg * S.R * S.S), Y(T, size_t(S.N) * S.K * P * Q);
  std::vector<double> Xv = randoms(X.N), Wv = randoms(W.N), Yold = randoms(Y.N);
  X.put(Nhwc ? toNhwc(Xv, S.N, S.C, S.H, S.W) : Xv);
  W.put(Nhwc ? toNhwc(Wv, S.K, Cg, S.R, S.S) : Wv);
  Y.put(Nhwc ? toNhwc(Yold, S.N, S.K, P, Q) : Yold);
  DevArray Xr(CUDNN_DATA_DOUBLE, 1);
  std::vector<double> Xs = X.get(), Ws = W.get(), Ys = Y.get();
  auto logical = [&](const std::vector<double> &Stored, int N, int C, int H, int Wd2) {
    if (!Nhwc)
      return Stored;
    std::vector<double> R(Stored.size());
    for (int n = 0; n < N; ++n)
      for (int c = 0; c < C; ++c)
        for (int h = 0; h < H; ++h)
          for (int w = 0; w < Wd2; ++w)
            R[((size_t(n) * C + c) * H + h) * Wd2 + w] = Stored[((size_t(n) * H + h) * Wd2 + w) * C + c];
    return R;
  };
  Xv = logical(Xs, S.N, S.C, S.H, S.W);
  Wv = logical(Ws, S.K, Cg, S.R, S.S);
  Yold = logical(Ys, S.N, S.K, P, Q);

  // Algorithm query and workspace, as a program would.
  int Returned = 0;
  cudnnConvolutionFwdAlgoPerf_t Perf[8];
  DN(cudnnGetConvolutionForwardAlgorithm_v7(Handle, Xd, Wd, Cd, Yd, 8, &Returned, Perf));
  size_t Ws2 = 1;
  DN(cudnnGetConvolutionForwardWorkspaceSize(Handle, Xd, Wd, Cd, Yd, Perf[0].algo, &Ws2));
  void *Work = nullptr;
  if (Ws2)
    CHECK(cudaMalloc(&Work, Ws2));

  // y = 1.5 * conv + 0.5 * y (beta blends).
  double AlD = 1.5, BeD = 0.5;
  float AlF = 1.5f, BeF = 0.5f;
  const void *Al = T == CUDNN_DATA_DOUBLE ? (const void *)&AlD : &AlF, *Be = T == CUDNN_DATA_DOUBLE ? (const void *)&BeD : &BeF;
  DN(cudnnConvolutionForward(Handle, Al, Xd, X.P, Wd, W.P, Cd, Perf[0].algo, Work, Ws2, Be, Yd, Y.P));
  std::vector<double> Want = refConv(S, Xv, Wv, Flip);
  for (size_t I = 0; I < Want.size(); ++I)
    Want[I] = 1.5 * Want[I] + 0.5 * Yold[I];
  char Label[160];
  std::snprintf(Label, sizeof Label, "%s forward", Name);
  expectClose(Label, Want, logical(Y.get(), S.N, S.K, P, Q), Tol);

  // Backward data (beta 0: dx's old contents, NaN here, are not read).
  if (!Flip) {
    DevArray Dy(T, Y.N), Dx(T, X.N);
    std::vector<double> Dyv = randoms(Dy.N);
    Dy.put(Nhwc ? toNhwc(Dyv, S.N, S.K, P, Q) : Dyv);
    Dyv = logical(Dy.get(), S.N, S.K, P, Q);
    std::vector<double> Nan(Dx.N, NAN);
    Dx.put(Nan);
    float One = 1, Zero = 0;
    double OneD = 1, ZeroD = 0;
    const void *A1 = T == CUDNN_DATA_DOUBLE ? (const void *)&OneD : &One, *B0 = T == CUDNN_DATA_DOUBLE ? (const void *)&ZeroD : &Zero;
    DN(cudnnConvolutionBackwardData(Handle, A1, Wd, W.P, Yd, Dy.P, Cd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, nullptr, 0, B0,
                                    Xd, Dx.P));
    std::snprintf(Label, sizeof Label, "%s backward data", Name);
    expectClose(Label, refConvBwdData(S, Dyv, Wv), logical(Dx.get(), S.N, S.C, S.H, S.W), Tol);
    DevArray Dw(T, W.N);
    Dw.put(Nan);
    DN(cudnnConvolutionBackwardFilter(Handle, A1, Xd, X.P, Yd, Dy.P, Cd, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, nullptr, 0,
                                      B0, Wd, Dw.P));
    std::snprintf(Label, sizeof Label, "%s backward filter", Name);
    expectClose(Label, refConvBwdFilter(S, Xv, Dyv), logical(Dw.get(), S.K, Cg, S.R, S.S), Tol * 4);
  }
  cudaFree(Work);
  cudnnDestroyTensorDescriptor(Xd);
  cudnnDestroyTensorDescriptor(Yd);
  cudnnDestroyFilterDescriptor(Wd);
  cudnnDestroyConvolutionDescriptor(Cd);
}

static cudnnTensorDescriptor_t tensor4(cudnnDataType_t T, int N, int C, int H, int W) {
  cudnnTensorDescriptor_t D;
  DN(cudnnCreateTensorDescriptor(&D));
  DN(cudnnSetTensor4dDescriptor(D, CUDNN_TENSOR_NCHW, T, N, C, H, W));
  return D;
}

static void conv3dCase() {
  // N=2 C=3 D=H=W=5, K=4, 3x3x3 filter, pad 1, stride 2.
  int N = 2, C = 3, D = 5, K = 4, F = 3, Out = (D + 2 - F) / 2 + 1;
  int Xdim[5] = {N, C, D, D, D}, Wdim[5] = {K, C, F, F, F}, Ydim[5] = {N, K, Out, Out, Out};
  int Xs[5] = {C * D * D * D, D * D * D, D * D, D, 1}, Ys[5] = {K * Out * Out * Out, Out * Out * Out, Out * Out, Out, 1};
  cudnnTensorDescriptor_t Xd, Yd;
  cudnnFilterDescriptor_t Wd;
  cudnnConvolutionDescriptor_t Cd;
  DN(cudnnCreateTensorDescriptor(&Xd));
  DN(cudnnCreateTensorDescriptor(&Yd));
  DN(cudnnCreateFilterDescriptor(&Wd));
  DN(cudnnCreateConvolutionDescriptor(&Cd));
  DN(cudnnSetTensorNdDescriptor(Xd, CUDNN_DATA_FLOAT, 5, Xdim, Xs));
  DN(cudnnSetTensorNdDescriptor(Yd, CUDNN_DATA_FLOAT, 5, Ydim, Ys));
  DN(cudnnSetFilterNdDescriptor(Wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 5, Wdim));
  int Pad[3] = {1, 1, 1}, Str[3] = {2, 2, 2}, Dil[3] = {1, 1, 1};
  DN(cudnnSetConvolutionNdDescriptor(Cd, 3, Pad, Str, Dil, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  int Got[5];
  DN(cudnnGetConvolutionNdForwardOutputDim(Cd, Xd, Wd, 5, Got));
  for (int I = 0; I < 5; ++I)
    if (Got[I] != Ydim[I]) {
      std::printf("FAIL conv3d output dim %d: %d, want %d\n", I, Got[I], Ydim[I]);
      ++Failures;
    }
  DevArray X(CUDNN_DATA_FLOAT, size_t(N) * C * D * D * D), W(CUDNN_DATA_FLOAT, size_t(K) * C * F * F * F),
      Y(CUDNN_DATA_FLOAT, size_t(N) * K * Out * Out * Out);
  std::vector<double> Xv = randoms(X.N), Wv = randoms(W.N);
  X.put(Xv);
  W.put(Wv);
  Xv = X.get();
  Wv = W.get();
  float One = 1, Zero = 0;
  DN(cudnnConvolutionForward(Handle, &One, Xd, X.P, Wd, W.P, Cd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0,
                             &Zero, Yd, Y.P));
  std::vector<double> Want(Y.N, 0.0);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k)
      for (int a = 0; a < Out; ++a)
        for (int b = 0; b < Out; ++b)
          for (int c2 = 0; c2 < Out; ++c2) {
            double Acc = 0;
            for (int c = 0; c < C; ++c)
              for (int i = 0; i < F; ++i)
                for (int j = 0; j < F; ++j)
                  for (int l = 0; l < F; ++l) {
                    int z = a * 2 - 1 + i, y = b * 2 - 1 + j, x = c2 * 2 - 1 + l;
                    if (z < 0 || z >= D || y < 0 || y >= D || x < 0 || x >= D)
                      continue;
                    Acc += Xv[(((size_t(n) * C + c) * D + z) * D + y) * D + x] * Wv[(((size_t(k) * C + c) * F + i) * F + j) * F + l];
                  }
            Want[(((size_t(n) * K + k) * Out + a) * Out + b) * Out + c2] = Acc;
          }
  expectClose("conv3d forward f32 (pad 1, stride 2)", Want, Y.get(), 1e-5);
  cudnnDestroyTensorDescriptor(Xd);
  cudnnDestroyTensorDescriptor(Yd);
  cudnnDestroyFilterDescriptor(Wd);
  cudnnDestroyConvolutionDescriptor(Cd);
}

static void biasActivationCase() {
  Shape S{2, 4, 6, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1};
  int P = S.outH(), Q = S.outW();
  cudnnTensorDescriptor_t Xd = tensor4(CUDNN_DATA_FLOAT, S.N, S.C, S.H, S.W), Yd = tensor4(CUDNN_DATA_FLOAT, S.N, S.K, P, Q),
                          Bd = tensor4(CUDNN_DATA_FLOAT, 1, S.K, 1, 1);
  cudnnFilterDescriptor_t Wd;
  cudnnConvolutionDescriptor_t Cd;
  cudnnActivationDescriptor_t Ad;
  DN(cudnnCreateFilterDescriptor(&Wd));
  DN(cudnnSetFilter4dDescriptor(Wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, S.K, S.C, S.R, S.S));
  DN(cudnnCreateConvolutionDescriptor(&Cd));
  DN(cudnnSetConvolution2dDescriptor(Cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  DN(cudnnCreateActivationDescriptor(&Ad));
  DN(cudnnSetActivationDescriptor(Ad, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0));
  DevArray X(CUDNN_DATA_FLOAT, size_t(S.N) * S.C * S.H * S.W), W(CUDNN_DATA_FLOAT, size_t(S.K) * S.C * 9),
      Z(CUDNN_DATA_FLOAT, size_t(S.N) * S.K * P * Q), B(CUDNN_DATA_FLOAT, S.K), Y(CUDNN_DATA_FLOAT, Z.N);
  std::vector<double> Xv = randoms(X.N), Wv = randoms(W.N), Zv = randoms(Z.N), Bv = randoms(B.N);
  X.put(Xv);
  W.put(Wv);
  Z.put(Zv);
  B.put(Bv);
  Xv = X.get(), Wv = W.get(), Zv = Z.get(), Bv = B.get();
  float A1 = 0.75f, A2 = 0.5f;
  DN(cudnnConvolutionBiasActivationForward(Handle, &A1, Xd, X.P, Wd, W.P, Cd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                                           nullptr, 0, &A2, Yd, Z.P, Bd, B.P, Ad, Yd, Y.P));
  std::vector<double> Want = refConv(S, Xv, Wv, false);
  for (size_t I = 0; I < Want.size(); ++I)
    Want[I] = std::max(0.0, 0.75 * Want[I] + 0.5 * Zv[I] + Bv[(I / (P * Q)) % S.K]);
  expectClose("convolution + bias + z + ReLU (fused)", Want, Y.get(), 1e-5);
  cudnnDestroyTensorDescriptor(Xd);
  cudnnDestroyTensorDescriptor(Yd);
  cudnnDestroyTensorDescriptor(Bd);
  cudnnDestroyFilterDescriptor(Wd);
  cudnnDestroyConvolutionDescriptor(Cd);
  cudnnDestroyActivationDescriptor(Ad);
}

static void pointwiseCases() {
  int N = 2, C = 3, H = 4, W = 5, Cnt = N * C * H * W;
  cudnnTensorDescriptor_t Td = tensor4(CUDNN_DATA_FLOAT, N, C, H, W), Bd = tensor4(CUDNN_DATA_FLOAT, 1, C, 1, 1);
  DevArray X(CUDNN_DATA_FLOAT, Cnt), Y(CUDNN_DATA_FLOAT, Cnt), Dy(CUDNN_DATA_FLOAT, Cnt), Dx(CUDNN_DATA_FLOAT, Cnt),
      B(CUDNN_DATA_FLOAT, C);
  std::vector<double> Xv = randoms(Cnt, -3, 3), Dyv = randoms(Cnt), Bv = randoms(C);
  X.put(Xv);
  Dy.put(Dyv);
  B.put(Bv);
  Xv = X.get(), Dyv = Dy.get(), Bv = B.get();
  float One = 1, Zero = 0;
  cudnnActivationDescriptor_t Ad;
  DN(cudnnCreateActivationDescriptor(&Ad));
  // Sigmoid forward and backward (backward from y).
  DN(cudnnSetActivationDescriptor(Ad, CUDNN_ACTIVATION_SIGMOID, CUDNN_NOT_PROPAGATE_NAN, 0));
  DN(cudnnActivationForward(Handle, Ad, &One, Td, X.P, &Zero, Td, Y.P));
  std::vector<double> Want(Cnt), WantD(Cnt);
  for (int I = 0; I < Cnt; ++I) {
    Want[I] = 1 / (1 + std::exp(-Xv[I]));
    WantD[I] = Dyv[I] * Want[I] * (1 - Want[I]);
  }
  expectClose("sigmoid forward", Want, Y.get(), 1e-6);
  DN(cudnnActivationBackward(Handle, Ad, &One, Td, Y.P, Td, Dy.P, Td, X.P, &Zero, Td, Dx.P));
  expectClose("sigmoid backward", WantD, Dx.get(), 1e-6);
  // Clipped ReLU at 1.
  DN(cudnnSetActivationDescriptor(Ad, CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_NOT_PROPAGATE_NAN, 1.0));
  DN(cudnnActivationForward(Handle, Ad, &One, Td, X.P, &Zero, Td, Y.P));
  for (int I = 0; I < Cnt; ++I)
    Want[I] = std::min(1.0, std::max(0.0, Xv[I]));
  expectClose("clipped ReLU forward", Want, Y.get(), 1e-7);
  // Softmax over channels, accurate and log, forward and backward.
  for (cudnnSoftmaxAlgorithm_t Algo : {CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_LOG}) {
    DN(cudnnSoftmaxForward(Handle, Algo, CUDNN_SOFTMAX_MODE_CHANNEL, &One, Td, X.P, &Zero, Td, Y.P));
    std::vector<double> Sm(Cnt), Dxw(Cnt);
    for (int n = 0; n < N; ++n)
      for (int s = 0; s < H * W; ++s) {
        double Sum = 0;
        for (int c = 0; c < C; ++c)
          Sum += std::exp(Xv[(n * C + c) * H * W + s]);
        double Dot = 0, DySum = 0;
        for (int c = 0; c < C; ++c) {
          int I = (n * C + c) * H * W + s;
          double P = std::exp(Xv[I]) / Sum;
          Sm[I] = Algo == CUDNN_SOFTMAX_LOG ? std::log(P) : P;
          Dot += Dyv[I] * P;
          DySum += Dyv[I];
        }
        for (int c = 0; c < C; ++c) {
          int I = (n * C + c) * H * W + s;
          double P = std::exp(Xv[I]) / Sum;
          Dxw[I] = Algo == CUDNN_SOFTMAX_LOG ? Dyv[I] - P * DySum : P * (Dyv[I] - Dot);
        }
      }
    expectClose(Algo == CUDNN_SOFTMAX_LOG ? "log-softmax forward (channels)" : "softmax forward (channels)", Sm, Y.get(), 1e-6);
    DN(cudnnSoftmaxBackward(Handle, Algo, CUDNN_SOFTMAX_MODE_CHANNEL, &One, Td, Y.P, Td, Dy.P, &Zero, Td, Dx.P));
    expectClose(Algo == CUDNN_SOFTMAX_LOG ? "log-softmax backward" : "softmax backward", Dxw, Dx.get(), 1e-5);
  }
  // AddTensor: a per-channel bias broadcast, C = 1 * B + 1 * C.
  Y.put(Xv);
  DN(cudnnAddTensor(Handle, &One, Bd, B.P, &One, Td, Y.P));
  for (int I = 0; I < Cnt; ++I)
    Want[I] = Xv[I] + Bv[(I / (H * W)) % C];
  expectClose("AddTensor (per-channel bias)", Want, Y.get(), 1e-7);
  // OpTensor: C = (2 * A) * (3 * B).
  cudnnOpTensorDescriptor_t Od;
  DN(cudnnCreateOpTensorDescriptor(&Od));
  DN(cudnnSetOpTensorDescriptor(Od, CUDNN_OP_TENSOR_MUL, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
  float Two = 2, Three = 3;
  DN(cudnnOpTensor(Handle, Od, &Two, Td, X.P, &Three, Td, Dy.P, &Zero, Td, Y.P));
  for (int I = 0; I < Cnt; ++I)
    Want[I] = 2 * Xv[I] * 3 * Dyv[I];
  expectClose("OpTensor MUL", Want, Y.get(), 1e-6);
  cudnnDestroyOpTensorDescriptor(Od);
  cudnnDestroyActivationDescriptor(Ad);
  cudnnDestroyTensorDescriptor(Td);
  cudnnDestroyTensorDescriptor(Bd);
}

static void poolingCases() {
  int N = 2, C = 2, H = 7, W = 6;
  cudnnPoolingDescriptor_t Pd;
  DN(cudnnCreatePoolingDescriptor(&Pd));
  for (cudnnPoolingMode_t Mode : {CUDNN_POOLING_MAX, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                  CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING}) {
    // 3x3 window, padding 1, stride 2.
    DN(cudnnSetPooling2dDescriptor(Pd, Mode, CUDNN_NOT_PROPAGATE_NAN, 3, 3, 1, 1, 2, 2));
    cudnnTensorDescriptor_t Xd = tensor4(CUDNN_DATA_FLOAT, N, C, H, W);
    int On, Oc, Oh, Ow;
    DN(cudnnGetPooling2dForwardOutputDim(Pd, Xd, &On, &Oc, &Oh, &Ow));
    cudnnTensorDescriptor_t Yd = tensor4(CUDNN_DATA_FLOAT, On, Oc, Oh, Ow);
    DevArray X(CUDNN_DATA_FLOAT, size_t(N) * C * H * W), Y(CUDNN_DATA_FLOAT, size_t(On) * Oc * Oh * Ow),
        Dy(CUDNN_DATA_FLOAT, Y.N), Dx(CUDNN_DATA_FLOAT, X.N);
    std::vector<double> Xv = randoms(X.N), Dyv = randoms(Y.N);
    X.put(Xv);
    Dy.put(Dyv);
    Xv = X.get(), Dyv = Dy.get();
    float One = 1, Zero = 0;
    DN(cudnnPoolingForward(Handle, Pd, &One, Xd, X.P, &Zero, Yd, Y.P));
    std::vector<double> Want(Y.N), WantDx(X.N, 0.0);
    for (int p = 0; p < N * C; ++p)
      for (int oh = 0; oh < Oh; ++oh)
        for (int ow = 0; ow < Ow; ++ow) {
          double Acc = Mode == CUDNN_POOLING_MAX ? -INFINITY : 0;
          int Cnt = 0, Arg = -1;
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
              int h = oh * 2 - 1 + i, w = ow * 2 - 1 + j;
              if (h < 0 || h >= H || w < 0 || w >= W)
                continue;
              double V = Xv[(p * H + h) * W + w];
              ++Cnt;
              if (Mode == CUDNN_POOLING_MAX) {
                if (V > Acc) {
                  Acc = V;
                  Arg = (p * H + h) * W + w;
                }
              } else {
                Acc += V;
              }
            }
          int Div = Mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? 9 : Cnt;
          int O = (p * Oh + oh) * Ow + ow;
          Want[O] = Mode == CUDNN_POOLING_MAX ? Acc : Acc / Div;
          if (Mode == CUDNN_POOLING_MAX) {
            WantDx[Arg] += Dyv[O];
          } else {
            for (int i = 0; i < 3; ++i)
              for (int j = 0; j < 3; ++j) {
                int h = oh * 2 - 1 + i, w = ow * 2 - 1 + j;
                if (h >= 0 && h < H && w >= 0 && w < W)
                  WantDx[(p * H + h) * W + w] += Dyv[O] / Div;
              }
          }
        }
    const char *Names[] = {"max pooling", "average pooling (padding counted)", "average pooling (padding not counted)"};
    char L[96];
    std::snprintf(L, sizeof L, "%s forward", Names[Mode]);
    expectClose(L, Want, Y.get(), 1e-6);
    DN(cudnnPoolingBackward(Handle, Pd, &One, Yd, Y.P, Yd, Dy.P, Xd, X.P, &Zero, Xd, Dx.P));
    std::snprintf(L, sizeof L, "%s backward", Names[Mode]);
    expectClose(L, WantDx, Dx.get(), 1e-6);
    cudnnDestroyTensorDescriptor(Xd);
    cudnnDestroyTensorDescriptor(Yd);
  }
  cudnnDestroyPoolingDescriptor(Pd);
}

static void batchNormCases() {
  int N = 4, C = 3, H = 5, W = 5, Cnt = N * C * H * W, M = N * H * W;
  cudnnTensorDescriptor_t Xd = tensor4(CUDNN_DATA_FLOAT, N, C, H, W), Pd;
  DN(cudnnCreateTensorDescriptor(&Pd));
  DN(cudnnDeriveBNTensorDescriptor(Pd, Xd, CUDNN_BATCHNORM_SPATIAL));
  DevArray X(CUDNN_DATA_FLOAT, Cnt), Y(CUDNN_DATA_FLOAT, Cnt), Sc(CUDNN_DATA_FLOAT, C), Bi(CUDNN_DATA_FLOAT, C),
      Rm(CUDNN_DATA_FLOAT, C), Rv(CUDNN_DATA_FLOAT, C), Sm(CUDNN_DATA_FLOAT, C), Si(CUDNN_DATA_FLOAT, C),
      Dy(CUDNN_DATA_FLOAT, Cnt), Dx(CUDNN_DATA_FLOAT, Cnt), Ds(CUDNN_DATA_FLOAT, C), Db(CUDNN_DATA_FLOAT, C);
  std::vector<double> Xv = randoms(Cnt, -2, 3), Scv = randoms(C, 0.5, 1.5), Biv = randoms(C), Rmv = randoms(C),
                      Rvv = randoms(C, 0.5, 2), Dyv = randoms(Cnt);
  X.put(Xv), Sc.put(Scv), Bi.put(Biv), Rm.put(Rmv), Rv.put(Rvv), Dy.put(Dyv);
  Xv = X.get(), Scv = Sc.get(), Biv = Bi.get(), Rmv = Rm.get(), Rvv = Rv.get(), Dyv = Dy.get();
  float One = 1, Zero = 0;
  double Eps = 1e-5, Factor = 0.1;
  DN(cudnnBatchNormalizationForwardTraining(Handle, CUDNN_BATCHNORM_SPATIAL, &One, &Zero, Xd, X.P, Xd, Y.P, Pd, Sc.P,
                                            Bi.P, Factor, Rm.P, Rv.P, Eps, Sm.P, Si.P));
  std::vector<double> Mean(C), Var(C), Inv(C), WantY(Cnt), WantRm(C), WantRv(C), WantDx(Cnt), WantDs(C), WantDb(C);
  for (int c = 0; c < C; ++c) {
    double S = 0, Q = 0;
    for (int n = 0; n < N; ++n)
      for (int s = 0; s < H * W; ++s)
        S += Xv[(n * C + c) * H * W + s];
    Mean[c] = S / M;
    for (int n = 0; n < N; ++n)
      for (int s = 0; s < H * W; ++s)
        Q += std::pow(Xv[(n * C + c) * H * W + s] - Mean[c], 2);
    Var[c] = Q / M;
    Inv[c] = 1 / std::sqrt(Var[c] + Eps);
    WantRm[c] = (1 - Factor) * Rmv[c] + Factor * Mean[c];
    WantRv[c] = (1 - Factor) * Rvv[c] + Factor * Var[c] * M / (M - 1);
    double Sd = 0, Sdx = 0;
    for (int n = 0; n < N; ++n)
      for (int s = 0; s < H * W; ++s) {
        int I = (n * C + c) * H * W + s;
        double Xh = (Xv[I] - Mean[c]) * Inv[c];
        WantY[I] = Scv[c] * Xh + Biv[c];
        Sd += Dyv[I];
        Sdx += Dyv[I] * Xh;
      }
    WantDb[c] = Sd;
    WantDs[c] = Sdx;
    for (int n = 0; n < N; ++n)
      for (int s = 0; s < H * W; ++s) {
        int I = (n * C + c) * H * W + s;
        double Xh = (Xv[I] - Mean[c]) * Inv[c];
        WantDx[I] = Scv[c] * Inv[c] * (Dyv[I] - Sd / M - Xh * Sdx / M);
      }
  }
  expectClose("batch norm training forward: y", WantY, Y.get(), 1e-5);
  expectClose("batch norm training forward: running mean", WantRm, Rm.get(), 1e-6);
  expectClose("batch norm training forward: running variance (unbiased)", WantRv, Rv.get(), 1e-6);
  expectClose("batch norm training forward: saved mean", Mean, Sm.get(), 1e-6);
  expectClose("batch norm training forward: saved inverse deviation", Inv, Si.get(), 1e-5);
  DN(cudnnBatchNormalizationBackward(Handle, CUDNN_BATCHNORM_SPATIAL, &One, &Zero, &One, &Zero, Xd, X.P, Xd, Dy.P, Xd,
                                     Dx.P, Pd, Sc.P, Ds.P, Db.P, Eps, Sm.P, Si.P));
  expectClose("batch norm backward: dx", WantDx, Dx.get(), 1e-5);
  expectClose("batch norm backward: dscale", WantDs, Ds.get(), 1e-5);
  expectClose("batch norm backward: dbias", WantDb, Db.get(), 1e-5);
  // Inference with the running statistics.
  Rm.put(Rmv), Rv.put(Rvv);
  DN(cudnnBatchNormalizationForwardInference(Handle, CUDNN_BATCHNORM_SPATIAL, &One, &Zero, Xd, X.P, Xd, Y.P, Pd, Sc.P,
                                             Bi.P, Rm.P, Rv.P, Eps));
  for (int I = 0; I < Cnt; ++I) {
    int c = (I / (H * W)) % C;
    WantY[I] = Scv[c] * (Xv[I] - Rmv[c]) / std::sqrt(Rvv[c] + Eps) + Biv[c];
  }
  expectClose("batch norm inference", WantY, Y.get(), 1e-5);
  cudnnDestroyTensorDescriptor(Xd);
  cudnnDestroyTensorDescriptor(Pd);
}

/// y = x / (k + alpha/n * sum of squares over the channel window)^beta, and its gradient by finite differences.
static void lrnCase() {
  int N = 2, C = 7, H = 3, W = 2, Cnt = N * C * H * W;
  unsigned Ln = 5;
  double A = 0.3, B = 0.75, K = 1.5;
  cudnnLRNDescriptor_t Ld;
  DN(cudnnCreateLRNDescriptor(&Ld));
  DN(cudnnSetLRNDescriptor(Ld, Ln, A, B, K));
  cudnnTensorDescriptor_t Td = tensor4(CUDNN_DATA_DOUBLE, N, C, H, W);
  DevArray X(CUDNN_DATA_DOUBLE, Cnt), Y(CUDNN_DATA_DOUBLE, Cnt), Dy(CUDNN_DATA_DOUBLE, Cnt), Dx(CUDNN_DATA_DOUBLE, Cnt);
  std::vector<double> Xv = randoms(Cnt, -2, 2), Dyv = randoms(Cnt);
  X.put(Xv);
  Dy.put(Dyv);
  double One = 1, Zero = 0;
  auto ref = [&](const std::vector<double> &In) {
    std::vector<double> Out(In.size());
    for (int n = 0; n < N; ++n)
      for (int c = 0; c < C; ++c)
        for (int s = 0; s < H * W; ++s) {
          double Sum = 0;
          for (int k = c - 2; k <= c + 2; ++k) // lookBehind (5-1)/2 = 2, lookAhead 5-2-1 = 2
            if (k >= 0 && k < C)
              Sum += In[(n * C + k) * H * W + s] * In[(n * C + k) * H * W + s];
          Out[(n * C + c) * H * W + s] = In[(n * C + c) * H * W + s] * std::pow(K + A / Ln * Sum, -B);
        }
    return Out;
  };
  DN(cudnnLRNCrossChannelForward(Handle, Ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, &One, Td, X.P, &Zero, Td, Y.P));
  expectClose("LRN across channels forward", ref(Xv), Y.get(), 1e-12);
  DN(cudnnLRNCrossChannelBackward(Handle, Ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, &One, Td, Y.P, Td, Dy.P, Td, X.P, &Zero, Td,
                                  Dx.P));
  std::vector<double> Want(Cnt);
  for (int I = 0; I < Cnt; ++I) { // d/dx_I of sum(dy * y) by central differences
    std::vector<double> P = Xv, M = Xv;
    P[I] += 1e-6, M[I] -= 1e-6;
    std::vector<double> Yp = ref(P), Ym = ref(M);
    double D = 0;
    for (int J = 0; J < Cnt; ++J)
      D += Dyv[J] * (Yp[J] - Ym[J]);
    Want[I] = D / 2e-6;
  }
  expectClose("LRN across channels backward (finite differences)", Want, Dx.get(), 1e-7);
  cudnnDestroyTensorDescriptor(Td);
  cudnnDestroyLRNDescriptor(Ld);
}

static void errorCases() {
  cudnnTensorDescriptor_t Xd = tensor4(CUDNN_DATA_FLOAT, 1, 3, 8, 8), Yd = tensor4(CUDNN_DATA_FLOAT, 1, 4, 8, 8);
  cudnnFilterDescriptor_t Wd;
  cudnnConvolutionDescriptor_t Cd;
  DN(cudnnCreateFilterDescriptor(&Wd));
  DN(cudnnSetFilter4dDescriptor(Wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, 3, 3, 3));
  DN(cudnnCreateConvolutionDescriptor(&Cd));
  DN(cudnnSetConvolution2dDescriptor(Cd, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  float One = 1, Zero = 0;
  void *Buf;
  CHECK(cudaMalloc(&Buf, 4096));
  // y is 8x8, but an unpadded 3x3 gives 6x6: a shape mismatch is a bad parameter.
  EXPECT_STATUS(cudnnConvolutionForward(Handle, &One, Xd, Buf, Wd, Buf, Cd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                                        nullptr, 0, &Zero, Yd, Buf),
                CUDNN_STATUS_BAD_PARAM);
  EXPECT_STATUS(cudnnConvolutionForward(nullptr, &One, Xd, Buf, Wd, Buf, Cd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                                        nullptr, 0, &Zero, Yd, Buf),
                CUDNN_STATUS_BAD_PARAM);
  EXPECT_STATUS(cudnnSetTensor4dDescriptor(Xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 0, 8, 8), CUDNN_STATUS_BAD_PARAM);
  EXPECT_STATUS(cudnnSetConvolution2dDescriptor(Cd, 0, 0, 0, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                CUDNN_STATUS_BAD_PARAM);
  cudnnTensorDescriptor_t Gone = tensor4(CUDNN_DATA_FLOAT, 1, 1, 1, 1);
  DN(cudnnDestroyTensorDescriptor(Gone));
  size_t Size;
  EXPECT_STATUS(cudnnGetTensorSizeInBytes(Gone, &Size), CUDNN_STATUS_BAD_PARAM); // destroyed: an error, no crash
  EXPECT_STATUS(cudnnGetTensorSizeInBytes(Xd, nullptr), CUDNN_STATUS_BAD_PARAM);
  DN(cudnnGetTensorSizeInBytes(Yd, &Size));
  if (Size != 4 * 4 * 8 * 8) {
    std::printf("FAIL cudnnGetTensorSizeInBytes: %zu\n", Size);
    ++Failures;
  }
  // Not implemented: the library's NOT_SUPPORTED, never a wrong answer.
  cudnnLRNDescriptor_t Ld;
  DN(cudnnCreateLRNDescriptor(&Ld));
  EXPECT_STATUS(cudnnDivisiveNormalizationForward(Handle, Ld, CUDNN_DIVNORM_PRECOMPUTED_MEANS, &One, Xd, Buf, nullptr,
                                                  Buf, Buf, &Zero, Xd, Buf),
                CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_STATUS(cudnnSetLRNDescriptor(Ld, 17, 1e-4, 0.75, 2.0), CUDNN_STATUS_BAD_PARAM); // n is at most 16
  cudnnDestroyLRNDescriptor(Ld);
  cudaFree(Buf);
  cudnnDestroyTensorDescriptor(Xd);
  cudnnDestroyTensorDescriptor(Yd);
  cudnnDestroyFilterDescriptor(Wd);
  cudnnDestroyConvolutionDescriptor(Cd);
  std::printf("ok   error codes\n");
}

int main() {
  std::printf("cuDNN %zu (cudart %zu)\n", cudnnGetVersion(), cudnnGetCudartVersion());
  if (cudnnGetVersion() / 10000 != 9) {
    std::printf("FAIL version %zu is not 9.x\n", cudnnGetVersion());
    return 1;
  }
  DN(cudnnCreate(&Handle));
  cudaStream_t S;
  CHECK(cudaStreamCreate(&S));
  DN(cudnnSetStream(Handle, S));
  cudaStream_t Got;
  DN(cudnnGetStream(Handle, &Got));
  if (Got != S) {
    std::printf("FAIL cudnnGetStream\n");
    return 1;
  }
  //                N  C  H  W  K  R  S  pH pW sH sW dH dW G
  convCase("conv f32 NCHW 3x3 pad 1", {2, 3, 7, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1}, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
           false, 1e-5);
  convCase("conv f32 NCHW stride 2, dilation 2, 2 groups", {2, 4, 9, 8, 6, 3, 2, 2, 1, 2, 2, 2, 1, 2},
           CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, false, 1e-5);
  convCase("conv f32 NCHW 1x1", {3, 8, 5, 5, 4, 1, 1, 0, 0, 1, 1, 1, 1, 1}, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, false,
           1e-5);
  convCase("conv f32 depthwise (groups = channels)", {2, 4, 6, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 4}, CUDNN_DATA_FLOAT,
           CUDNN_TENSOR_NCHW, false, 1e-5);
  convCase("conv f32 NHWC 3x3 stride 2", {2, 5, 8, 7, 3, 3, 3, 1, 1, 2, 2, 1, 1, 1}, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC,
           false, 1e-5);
  convCase("conv f32 NCHW true convolution (flipped filter)", {1, 2, 6, 6, 3, 3, 2, 1, 0, 1, 1, 1, 1, 1},
           CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, true, 1e-5);
  convCase("conv f64 NCHW 5x5 pad 2", {2, 3, 8, 8, 2, 5, 5, 2, 2, 1, 1, 1, 1, 1}, CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NCHW,
           false, 1e-12);
  convCase("conv f16 NHWC 3x3", {2, 8, 6, 6, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1}, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, false,
           4e-3);
  convCase("conv bf16 NCHW 3x3", {2, 4, 6, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1}, CUDNN_DATA_BFLOAT16, CUDNN_TENSOR_NCHW,
           false, 2e-2);
  conv3dCase();
  biasActivationCase();
  pointwiseCases();
  poolingCases();
  batchNormCases();
  lrnCase();
  errorCases();
  CHECK(cudaStreamSynchronize(S));
  DN(cudnnDestroy(Handle));
  EXPECT_STATUS(cudnnDestroy(Handle), CUDNN_STATUS_BAD_PARAM);
  if (Failures) {
    std::printf("FAIL %d checks\n", Failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
