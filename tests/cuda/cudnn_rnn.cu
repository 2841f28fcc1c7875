// cuDNN's RNN API (v8) on our libcudnn, as PyTorch's nn.LSTM/GRU/RNN call it:
// the forward pass against a direct computation written from cuDNN's
// formulas (LSTM, GRU with the reset gate after the recurrent GEMM, tanh
// RNN; stacked, bidirectional, packed and padded sequences of different
// lengths), and the backward passes (data and weights) against central
// finite differences of the loss sum(y*Gy) + sum(hy*Gh) + sum(cy*Gc) in
// double precision; the weight layout PyTorch assumes (each gate group
// contiguous); error codes.
#include "cudnn_common.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

static std::mt19937 Rng(7);
static std::vector<double> randoms(size_t N, double Scale = 0.5) {
  std::uniform_real_distribution<double> D(-Scale, Scale);
  std::vector<double> V(N);
  for (double &X : V)
    X = D(Rng);
  return V;
}

static cudnnHandle_t Handle;

/// One network, its descriptors and device arrays (double precision).
struct Net {
  cudnnRNNMode_t Mode;
  int In, H, Layers, Dirs, T, B, G;
  cudnnRNNDataLayout_t Layout;
  std::vector<int> Lens;
  cudnnRNNDescriptor_t D;
  cudnnDropoutDescriptor_t Drop;
  cudnnRNNDataDescriptor_t Xd, Yd;
  cudnnTensorDescriptor_t Hd;
  size_t WBytes, Work, Reserve;
  double *W, *X, *Y, *Hx, *Cx, *Hy, *Cy, *Res, *Dy, *Dx, *Dhy, *Dcy, *Dhx, *Dcx, *Dw;
  size_t NX, NY, NH;

  Net(cudnnRNNMode_t M, int InSize, int Hidden, int L, bool Bidir, int Steps, std::vector<int> Lengths,
      cudnnRNNDataLayout_t Lay)
      : Mode(M), In(InSize), H(Hidden), Layers(L), Dirs(Bidir ? 2 : 1), T(Steps), B(int(Lengths.size())),
        G(M == CUDNN_LSTM ? 4 : M == CUDNN_GRU ? 3 : 1), Layout(Lay), Lens(Lengths) {
    DN(cudnnCreateDropoutDescriptor(&Drop));
    size_t StateBytes;
    DN(cudnnDropoutGetStatesSize(Handle, &StateBytes));
    void *States;
    CHECK(cudaMalloc(&States, StateBytes));
    DN(cudnnSetDropoutDescriptor(Drop, Handle, 0.0f, States, StateBytes, 0));
    DN(cudnnCreateRNNDescriptor(&D));
    DN(cudnnSetRNNDescriptor_v8(D, CUDNN_RNN_ALGO_STANDARD, M, CUDNN_RNN_DOUBLE_BIAS,
                                Bidir ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_DOUBLE,
                                CUDNN_DATA_DOUBLE, CUDNN_DEFAULT_MATH, In, H, H, L, Drop, 0));
    DN(cudnnCreateRNNDataDescriptor(&Xd));
    DN(cudnnCreateRNNDataDescriptor(&Yd));
    double Fill = 0;
    DN(cudnnSetRNNDataDescriptor(Xd, CUDNN_DATA_DOUBLE, Lay, T, B, In, Lens.data(), &Fill));
    DN(cudnnSetRNNDataDescriptor(Yd, CUDNN_DATA_DOUBLE, Lay, T, B, H * Dirs, Lens.data(), &Fill));
    DN(cudnnCreateTensorDescriptor(&Hd));
    // As PyTorch describes the states: padded to 5 dims with trailing 1s.
    int Dims[5] = {L * Dirs, B, H, 1, 1}, Strides[5] = {B * H, H, 1, 1, 1};
    DN(cudnnSetTensorNdDescriptor(Hd, CUDNN_DATA_DOUBLE, 5, Dims, Strides));
    DN(cudnnGetRNNWeightSpaceSize(Handle, D, &WBytes));
    DN(cudnnGetRNNTempSpaceSizes(Handle, D, CUDNN_FWD_MODE_TRAINING, Xd, &Work, &Reserve));
    size_t Vecs = 0;
    for (int L2 : Lens)
      Vecs += Lay == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED ? L2 : 0;
    if (Lay != CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED)
      Vecs = size_t(T) * B;
    NX = Vecs * In;
    NY = Vecs * H * Dirs;
    NH = size_t(L) * Dirs * B * H;
    for (double **P : {&X, &Dx})
      CHECK(cudaMalloc(P, NX * 8));
    for (double **P : {&Y, &Dy})
      CHECK(cudaMalloc(P, NY * 8));
    for (double **P : {&Hx, &Cx, &Hy, &Cy, &Dhy, &Dcy, &Dhx, &Dcx})
      CHECK(cudaMalloc(P, NH * 8));
    CHECK(cudaMalloc(&W, WBytes));
    CHECK(cudaMalloc(&Dw, WBytes));
    CHECK(cudaMalloc(&Res, std::max<size_t>(Reserve, 8)));
  }
  size_t nw() const { return WBytes / 8; }
  void forward(bool Train) {
    DN(cudnnRNNForward(Handle, D, Train ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE, nullptr, Xd, X, Yd, Y, Hd,
                       Hx, Hy, Hd, Cx, Cy, WBytes, W, Work, nullptr, Reserve, Res));
    CHECK(cudaDeviceSynchronize());
  }
};

static std::vector<double> get(const double *P, size_t N) {
  std::vector<double> V(N);
  CHECK(cudaMemcpy(V.data(), P, N * 8, cudaMemcpyDeviceToHost));
  return V;
}
static void put(double *P, const std::vector<double> &V) { CHECK(cudaMemcpy(P, V.data(), V.size() * 8, cudaMemcpyHostToDevice)); }

/// The reference: weights read back through cudnnGetRNNWeightParams, then cuDNN's cell formulas step by step.
static void reference(Net &N, const std::vector<double> &Wv, const std::vector<double> &Xv, const std::vector<double> &H0,
                      const std::vector<double> &C0, std::vector<double> &Yw, std::vector<double> &Hyw,
                      std::vector<double> &Cyw) {
  cudnnTensorDescriptor_t Md, Bd;
  DN(cudnnCreateTensorDescriptor(&Md));
  DN(cudnnCreateTensorDescriptor(&Bd));
  auto vecIndex = [&](int t, int b) -> long {
    if (N.Layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED)
      return long(t) * N.B + b;
    if (N.Layout == CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED)
      return long(b) * N.T + t;
    long O = 0;
    for (int s = 0; s < t; ++s)
      for (int bb = 0; bb < N.B; ++bb)
        O += N.Lens[bb] > s;
    return O + b;
  };
  // layer input [T][B][in]
  std::vector<std::vector<std::vector<double>>> Input(N.T, std::vector<std::vector<double>>(N.B));
  for (int t = 0; t < N.T; ++t)
    for (int b = 0; b < N.B; ++b) {
      Input[t][b].assign(N.In, 0.0);
      if (t < N.Lens[b])
        for (int i = 0; i < N.In; ++i)
          Input[t][b][i] = Xv[vecIndex(t, b) * N.In + i];
    }
  Hyw.assign(N.NH, 0.0);
  Cyw.assign(N.NH, 0.0);
  for (int L = 0; L < N.Layers; ++L) {
    int InL = L == 0 ? N.In : N.H * N.Dirs;
    std::vector<std::vector<std::vector<double>>> Out(N.T, std::vector<std::vector<double>>(N.B, std::vector<double>(N.H * N.Dirs, 0.0)));
    for (int d = 0; d < N.Dirs; ++d) {
      int P = L * N.Dirs + d;
      // W[g], R[g], bW[g], bR[g] through the library's own parameter query.
      std::vector<const double *> Wg(N.G), Rg(N.G), BWg(N.G), BRg(N.G);
      for (int Id = 0; Id < 2 * N.G; ++Id) {
        void *M, *Bb;
        DN(cudnnGetRNNWeightParams(Handle, N.D, P, N.WBytes, N.W, Id, Md, &M, Bd, &Bb));
        size_t MOff = (static_cast<char *>(M) - reinterpret_cast<char *>(N.W)) / 8,
               BOff = (static_cast<char *>(Bb) - reinterpret_cast<char *>(N.W)) / 8;
        (Id < N.G ? Wg : Rg)[Id % N.G] = &Wv[MOff];
        (Id < N.G ? BWg : BRg)[Id % N.G] = &Wv[BOff];
        cudnnDataType_t Dt;
        int Nb, Dims[3], Str[3];
        DN(cudnnGetTensorNdDescriptor(Md, 3, &Dt, &Nb, Dims, Str));
        int WantCols = Id < N.G ? InL : N.H;
        if (Nb != 3 || Dims[1] != N.H || Dims[2] != WantCols) {
          std::printf("FAIL weight params layer %d id %d: dims %d %d %d\n", P, Id, Dims[0], Dims[1], Dims[2]);
          ++Failures;
        }
      }
      for (int b = 0; b < N.B; ++b) {
        std::vector<double> h(N.H), c(N.H);
        for (int j = 0; j < N.H; ++j) {
          h[j] = H0[(size_t(P) * N.B + b) * N.H + j];
          c[j] = C0[(size_t(P) * N.B + b) * N.H + j];
        }
        for (int s = 0; s < N.Lens[b]; ++s) {
          int t = d == 1 ? N.Lens[b] - 1 - s : s;
          const std::vector<double> &x = Input[t][b];
          auto lin = [&](int g, int j, bool Rec) {
            double A = BWg[g][j];
            for (int i = 0; i < InL; ++i)
              A += Wg[g][j * InL + i] * x[i];
            if (Rec) {
              A += BRg[g][j];
              for (int i = 0; i < N.H; ++i)
                A += Rg[g][j * N.H + i] * h[i];
            }
            return A;
          };
          auto rec = [&](int g, int j) {
            double A = BRg[g][j];
            for (int i = 0; i < N.H; ++i)
              A += Rg[g][j * N.H + i] * h[i];
            return A;
          };
          std::vector<double> hn(N.H), cn(N.H);
          for (int j = 0; j < N.H; ++j) {
            auto sg = [](double v) { return 1 / (1 + std::exp(-v)); };
            if (N.Mode == CUDNN_LSTM) {
              double i = sg(lin(0, j, true)), f = sg(lin(1, j, true)), g = std::tanh(lin(2, j, true)), o = sg(lin(3, j, true));
              cn[j] = f * c[j] + i * g;
              hn[j] = o * std::tanh(cn[j]);
            } else if (N.Mode == CUDNN_GRU) {
              double r = sg(lin(0, j, true)), z = sg(lin(1, j, true));
              double n = std::tanh(lin(2, j, false) + r * rec(2, j));
              hn[j] = (1 - z) * n + z * h[j];
            } else {
              hn[j] = std::tanh(lin(0, j, true));
            }
          }
          h = hn;
          if (N.Mode == CUDNN_LSTM)
            c = cn;
          for (int j = 0; j < N.H; ++j)
            Out[t][b][d * N.H + j] = h[j];
        }
        for (int j = 0; j < N.H; ++j) {
          Hyw[(size_t(P) * N.B + b) * N.H + j] = h[j];
          Cyw[(size_t(P) * N.B + b) * N.H + j] = c[j];
        }
      }
    }
    Input = Out;
  }
  Yw.assign(N.NY, 0.0);
  for (int t = 0; t < N.T; ++t)
    for (int b = 0; b < N.B; ++b)
      if (t < N.Lens[b])
        for (int j = 0; j < N.H * N.Dirs; ++j)
          Yw[vecIndex(t, b) * N.H * N.Dirs + j] = Input[t][b][j];
  cudnnDestroyTensorDescriptor(Md);
  cudnnDestroyTensorDescriptor(Bd);
}

static double dot(const std::vector<double> &A, const std::vector<double> &B) {
  double S = 0;
  for (size_t I = 0; I < A.size(); ++I)
    S += A[I] * B[I];
  return S;
}

static void rnnCase(const char *Name, cudnnRNNMode_t Mode, int In, int H, int L, bool Bidir, int T, std::vector<int> Lens,
                    cudnnRNNDataLayout_t Layout) {
  Net N(Mode, In, H, L, Bidir, T, Lens, Layout);
  std::vector<double> Wv = randoms(N.nw()), Xv = randoms(N.NX, 1.0), H0 = randoms(N.NH), C0 = randoms(N.NH);
  put(N.W, Wv);
  put(N.X, Xv);
  put(N.Hx, H0);
  put(N.Cx, C0);
  N.forward(true);
  std::vector<double> Yw, Hyw, Cyw;
  reference(N, Wv, Xv, H0, C0, Yw, Hyw, Cyw);
  char Label[200];
  std::snprintf(Label, sizeof Label, "%s forward: y", Name);
  expectClose(Label, Yw, get(N.Y, N.NY), 1e-12);
  std::snprintf(Label, sizeof Label, "%s forward: hy", Name);
  expectClose(Label, Hyw, get(N.Hy, N.NH), 1e-12);
  if (Mode == CUDNN_LSTM) {
    std::snprintf(Label, sizeof Label, "%s forward: cy", Name);
    expectClose(Label, Cyw, get(N.Cy, N.NH), 1e-12);
  }
  // Backward against finite differences of loss = y.Gy + hy.Gh + cy.Gc.
  std::vector<double> Gy = randoms(N.NY, 1.0), Gh = randoms(N.NH, 1.0), Gc = randoms(N.NH, 1.0);
  // Padded positions carry no gradient (the reference's y is 0 there).
  put(N.Dy, Gy);
  put(N.Dhy, Gh);
  put(N.Dcy, Gc);
  N.forward(true);
  DN(cudnnRNNBackwardData_v8(Handle, N.D, nullptr, N.Yd, N.Y, N.Dy, N.Xd, N.Dx, N.Hd, N.Hx, N.Dhy, N.Dhx, N.Hd, N.Cx,
                             N.Dcy, N.Dcx, N.WBytes, N.W, N.Work, nullptr, N.Reserve, N.Res));
  CHECK(cudaMemset(N.Dw, 0, N.WBytes));
  DN(cudnnRNNBackwardWeights_v8(Handle, N.D, CUDNN_WGRAD_MODE_ADD, nullptr, N.Xd, N.X, N.Hd, N.Hx, N.Yd, N.Y, N.WBytes,
                                N.Dw, N.Work, nullptr, N.Reserve, N.Res));
  CHECK(cudaDeviceSynchronize());
  std::vector<double> Dx = get(N.Dx, N.NX), Dw = get(N.Dw, N.nw()), Dhx = get(N.Dhx, N.NH), Dcx = get(N.Dcx, N.NH);
  auto loss = [&](const std::vector<double> &W2, const std::vector<double> &X2, const std::vector<double> &H2,
                  const std::vector<double> &C2) {
    std::vector<double> Y2, Hy2, Cy2;
    reference(N, W2, X2, H2, C2, Y2, Hy2, Cy2);
    // Padded y positions: the gradient there does not count (y is defined 0).
    return dot(Y2, Gy) + dot(Hy2, Gh) + (Mode == CUDNN_LSTM ? dot(Cy2, Gc) : 0.0);
  };
  const double Eps = 1e-6;
  std::vector<double> WantDx, GotDx, WantDw, GotDw, WantDh, GotDh;
  for (size_t K = 0; K < 12; ++K) {
    size_t I = (K * 7919) % N.NX;
    std::vector<double> Xp = Xv, Xm = Xv;
    Xp[I] += Eps, Xm[I] -= Eps;
    WantDx.push_back((loss(Wv, Xp, H0, C0) - loss(Wv, Xm, H0, C0)) / (2 * Eps));
    GotDx.push_back(Dx[I]);
    size_t Jw = (K * 104729) % N.nw();
    std::vector<double> Wp = Wv, Wm = Wv;
    Wp[Jw] += Eps, Wm[Jw] -= Eps;
    WantDw.push_back((loss(Wp, Xv, H0, C0) - loss(Wm, Xv, H0, C0)) / (2 * Eps));
    GotDw.push_back(Dw[Jw]);
    size_t Jh = (K * 31) % N.NH;
    std::vector<double> Hp = H0, Hm = H0;
    Hp[Jh] += Eps, Hm[Jh] -= Eps;
    WantDh.push_back((loss(Wv, Xv, Hp, C0) - loss(Wv, Xv, Hm, C0)) / (2 * Eps));
    GotDh.push_back(Dhx[Jh]);
    if (Mode == CUDNN_LSTM) {
      std::vector<double> Cp = C0, Cm = C0;
      Cp[Jh] += Eps, Cm[Jh] -= Eps;
      WantDh.push_back((loss(Wv, Xv, H0, Cp) - loss(Wv, Xv, H0, Cm)) / (2 * Eps));
      GotDh.push_back(Dcx[Jh]);
    }
  }
  std::snprintf(Label, sizeof Label, "%s backward data: dx (finite differences)", Name);
  expectClose(Label, WantDx, GotDx, 1e-6);
  std::snprintf(Label, sizeof Label, "%s backward data: dhx%s (finite differences)", Name, Mode == CUDNN_LSTM ? ", dcx" : "");
  expectClose(Label, WantDh, GotDh, 1e-6);
  std::snprintf(Label, sizeof Label, "%s backward weights (finite differences)", Name);
  expectClose(Label, WantDw, GotDw, 1e-6);
  // ADD mode accumulates: a second call doubles the gradient.
  DN(cudnnRNNBackwardWeights_v8(Handle, N.D, CUDNN_WGRAD_MODE_ADD, nullptr, N.Xd, N.X, N.Hd, N.Hx, N.Yd, N.Y, N.WBytes,
                                N.Dw, N.Work, nullptr, N.Reserve, N.Res));
  std::vector<double> Twice = get(N.Dw, N.nw()), WantTwice(Dw.size());
  for (size_t I = 0; I < Dw.size(); ++I)
    WantTwice[I] = 2 * Dw[I];
  std::snprintf(Label, sizeof Label, "%s backward weights: ADD accumulates", Name);
  expectClose(Label, WantTwice, Twice, 1e-12);
}

/// PyTorch's flattening: within a layer the input matrices of the gates are contiguous, then the recurrent ones.
static void layoutCase() {
  Net N(CUDNN_LSTM, 5, 3, 2, true, 2, {2, 2}, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED);
  cudnnTensorDescriptor_t Md, Bd;
  DN(cudnnCreateTensorDescriptor(&Md));
  DN(cudnnCreateTensorDescriptor(&Bd));
  bool Ok = true;
  for (int P = 0; P < 4; ++P) {
    char *Prev = nullptr, *PrevB = nullptr;
    size_t PrevN = 0;
    for (int Id = 0; Id < 8; ++Id) {
      void *M, *B;
      DN(cudnnGetRNNWeightParams(Handle, N.D, P, N.WBytes, N.W, Id, Md, &M, Bd, &B));
      int Nb, Dims[3], Str[3];
      cudnnDataType_t Dt;
      DN(cudnnGetTensorNdDescriptor(Md, 3, &Dt, &Nb, Dims, Str));
      size_t Numel = size_t(Dims[0]) * Dims[1] * Dims[2];
      if (Id % 4 != 0 && (static_cast<char *>(M) != Prev + PrevN * 8 || static_cast<char *>(B) != PrevB + 3 * 8))
        Ok = false;
      Prev = static_cast<char *>(M);
      PrevB = static_cast<char *>(B);
      PrevN = Numel;
    }
  }
  if (!Ok) {
    std::printf("FAIL gate matrices or biases are not contiguous within their group\n");
    ++Failures;
  } else {
    std::printf("ok   weight layout: each gate group contiguous (PyTorch's flattened weights)\n");
  }
  // Bad calls: a pseudo-layer out of range, x of the wrong size.
  void *M, *B;
  if (cudnnGetRNNWeightParams(Handle, N.D, 4, N.WBytes, N.W, 0, Md, &M, Bd, &B) != CUDNN_STATUS_BAD_PARAM) {
    std::printf("FAIL pseudo-layer 4 of 4 was accepted\n");
    ++Failures;
  }
  cudnnRNNDataDescriptor_t Wrong;
  DN(cudnnCreateRNNDataDescriptor(&Wrong));
  int Lens[2] = {2, 2};
  DN(cudnnSetRNNDataDescriptor(Wrong, CUDNN_DATA_DOUBLE, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, 2, 2, 4, Lens, nullptr));
  if (cudnnRNNForward(Handle, N.D, CUDNN_FWD_MODE_INFERENCE, nullptr, Wrong, N.X, N.Yd, N.Y, N.Hd, nullptr, nullptr, N.Hd,
                      nullptr, nullptr, N.WBytes, N.W, 0, nullptr, 0, nullptr) != CUDNN_STATUS_BAD_PARAM) {
    std::printf("FAIL x with the wrong vector size was accepted\n");
    ++Failures;
  }
  int Unsorted[2] = {1, 2};
  if (cudnnSetRNNDataDescriptor(Wrong, CUDNN_DATA_DOUBLE, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, 2, 2, 5, Unsorted,
                                nullptr) != CUDNN_STATUS_BAD_PARAM) {
    std::printf("FAIL packed sequences not sorted by length were accepted\n");
    ++Failures;
  }
  std::printf("ok   error codes\n");
}

int main() {
  DN(cudnnCreate(&Handle));
  rnnCase("LSTM 2 layers", CUDNN_LSTM, 4, 3, 2, false, 4, {4, 4, 4}, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED);
  rnnCase("LSTM bidirectional, packed sequences 4,3,1", CUDNN_LSTM, 3, 2, 2, true, 4, {4, 3, 1},
          CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED);
  rnnCase("GRU bidirectional, batch-major, lengths 2,3", CUDNN_GRU, 3, 4, 1, true, 3, {2, 3},
          CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED);
  rnnCase("GRU 2 layers", CUDNN_GRU, 2, 3, 2, false, 3, {3, 3}, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED);
  rnnCase("tanh RNN", CUDNN_RNN_TANH, 3, 4, 1, false, 5, {5, 2}, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED);
  layoutCase();
  DN(cudnnDestroy(Handle));
  if (Failures) {
    std::printf("FAIL %d checks\n", Failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
