// cuDNN's backend (graph) API on our libcudnn, driven the way the cuDNN
// frontend (PyTorch's convolutions) drives it: tensors, a convolution, an
// operation graph, engine heuristics whose results fill engine configs the
// caller created, an execution plan and a variant pack. Checked against
// direct computation: a fused convolution + bias + ReLU (virtual
// intermediates), backward data and backward filter with alpha/beta, a
// GELU backward pointwise, a batched matmul with broadcast, a reduction and
// an attention graph's causal mask; the unified attention forward and backward; layer, RMS, batch and instance norm forward and backward;
// and the error codes of bad graphs and calls.
#include "cudnn_common.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

static std::mt19937 Rng(99);
static std::vector<float> randoms(size_t N) {
  std::uniform_real_distribution<float> D(-1, 1);
  std::vector<float> V(N);
  for (float &X : V)
    X = D(Rng);
  return V;
}
struct Dev {
  float *P = nullptr;
  size_t N;
  explicit Dev(size_t Count) : N(Count) { CHECK(cudaMalloc(&P, N * 4)); }
  Dev(const std::vector<float> &V) : Dev(V.size()) { put(V); }
  ~Dev() { cudaFree(P); }
  void put(const std::vector<float> &V) { CHECK(cudaMemcpy(P, V.data(), N * 4, cudaMemcpyHostToDevice)); }
  std::vector<float> get() const {
    std::vector<float> V(N);
    CHECK(cudaMemcpy(V.data(), P, N * 4, cudaMemcpyDeviceToHost));
    return V;
  }
};

static cudnnHandle_t Handle;
static std::vector<cudnnBackendDescriptor_t> Made;

static cudnnBackendDescriptor_t create(cudnnBackendDescriptorType_t T) {
  cudnnBackendDescriptor_t D;
  DN(cudnnBackendCreateDescriptor(T, &D));
  Made.push_back(D);
  return D;
}
static void setDesc(cudnnBackendDescriptor_t D, cudnnBackendAttributeName_t N, cudnnBackendDescriptor_t V) {
  DN(cudnnBackendSetAttribute(D, N, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &V));
}

/// A packed NCHW-order tensor (strides from the dims), as the frontend's TensorBuilder sets one.
static cudnnBackendDescriptor_t tensor(int64_t Uid, std::vector<int64_t> Dims, bool Virtual = false, bool ByValue = false) {
  std::vector<int64_t> Strides(Dims.size());
  int64_t S = 1;
  for (size_t I = Dims.size(); I-- > 0;) {
    Strides[I] = S;
    S *= Dims[I];
  }
  cudnnBackendDescriptor_t T = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  cudnnDataType_t F = CUDNN_DATA_FLOAT;
  int64_t Align = 16;
  DN(cudnnBackendSetAttribute(T, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &F));
  DN(cudnnBackendSetAttribute(T, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, int64_t(Dims.size()), Dims.data()));
  DN(cudnnBackendSetAttribute(T, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, int64_t(Strides.size()), Strides.data()));
  DN(cudnnBackendSetAttribute(T, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &Uid));
  DN(cudnnBackendSetAttribute(T, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &Align));
  DN(cudnnBackendSetAttribute(T, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &Virtual));
  if (ByValue)
    DN(cudnnBackendSetAttribute(T, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &ByValue));
  DN(cudnnBackendFinalize(T));
  return T;
}

static cudnnBackendDescriptor_t convDesc(int64_t Pad, int64_t Stride) {
  cudnnBackendDescriptor_t C = create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  int64_t Spatial = 2, P[2] = {Pad, Pad}, S[2] = {Stride, Stride}, D[2] = {1, 1};
  cudnnDataType_t Comp = CUDNN_DATA_FLOAT;
  cudnnConvolutionMode_t Mode = CUDNN_CROSS_CORRELATION;
  DN(cudnnBackendSetAttribute(C, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &Comp));
  DN(cudnnBackendSetAttribute(C, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &Mode));
  DN(cudnnBackendSetAttribute(C, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &Spatial));
  DN(cudnnBackendSetAttribute(C, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, P));
  DN(cudnnBackendSetAttribute(C, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, P));
  DN(cudnnBackendSetAttribute(C, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, S));
  DN(cudnnBackendSetAttribute(C, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, D));
  DN(cudnnBackendFinalize(C));
  return C;
}

static cudnnBackendDescriptor_t pointwise(cudnnPointwiseMode_t Mode, cudnnBackendDescriptor_t X, cudnnBackendDescriptor_t B,
                                          cudnnBackendDescriptor_t Y) {
  cudnnBackendDescriptor_t P = create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
  cudnnDataType_t Prec = CUDNN_DATA_FLOAT;
  DN(cudnnBackendSetAttribute(P, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &Mode));
  DN(cudnnBackendSetAttribute(P, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &Prec));
  DN(cudnnBackendFinalize(P));
  cudnnBackendDescriptor_t Op = create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
  setDesc(Op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, P);
  bool Bwd = Mode >= 200 && Mode < 300;
  setDesc(Op, Bwd ? CUDNN_ATTR_OPERATION_POINTWISE_DYDESC : CUDNN_ATTR_OPERATION_POINTWISE_XDESC, X);
  if (B)
    setDesc(Op, Bwd ? CUDNN_ATTR_OPERATION_POINTWISE_XDESC : CUDNN_ATTR_OPERATION_POINTWISE_BDESC, B);
  setDesc(Op, Bwd ? CUDNN_ATTR_OPERATION_POINTWISE_DXDESC : CUDNN_ATTR_OPERATION_POINTWISE_YDESC, Y);
  DN(cudnnBackendFinalize(Op));
  return Op;
}

/// Graph -> heuristics -> engine configs (made by us, filled by the library) -> plan -> execute.
static void execute(std::vector<cudnnBackendDescriptor_t> Ops, std::vector<int64_t> Uids, std::vector<void *> Ptrs) {
  cudnnBackendDescriptor_t G = create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  DN(cudnnBackendSetAttribute(G, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &Handle));
  DN(cudnnBackendSetAttribute(G, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, int64_t(Ops.size()),
                              Ops.data()));
  DN(cudnnBackendFinalize(G));
  int64_t Engines = 0, Got = 0;
  DN(cudnnBackendGetAttribute(G, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64, 1, &Got, &Engines));
  if (Engines < 1) {
    std::printf("FAIL no engines\n");
    std::exit(1);
  }
  cudnnBackendDescriptor_t H = create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  cudnnBackendHeurMode_t Mode = CUDNN_HEUR_MODE_INSTANT;
  setDesc(H, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, G);
  DN(cudnnBackendSetAttribute(H, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &Mode));
  DN(cudnnBackendFinalize(H));
  int64_t Count = 0;
  DN(cudnnBackendGetAttribute(H, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &Count, nullptr));
  if (Count < 1) {
    std::printf("FAIL heuristics gave no engine config\n");
    std::exit(1);
  }
  std::vector<cudnnBackendDescriptor_t> Cfgs;
  for (int64_t I = 0; I < Count; ++I)
    Cfgs.push_back(create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
  DN(cudnnBackendGetAttribute(H, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, Count, &Count, Cfgs.data()));
  // The frontend reads the engine's notes and knobs to filter configs.
  cudnnBackendDescriptor_t E = create(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  int64_t One = 0;
  DN(cudnnBackendGetAttribute(Cfgs[0], CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &One, &E));
  cudnnBackendNumericalNote_t Notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  int64_t NoteCount = -1;
  // As the frontend's ExecutionPlan asks: the count with a null array, then an empty vector's data().
  DN(cudnnBackendGetAttribute(E, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, CUDNN_NUMERICAL_NOTE_TYPE_COUNT,
                              &NoteCount, nullptr));
  DN(cudnnBackendGetAttribute(E, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT,
                              &NoteCount, nullptr));
  cudnnBackendDescriptor_t Knobs[CUDNN_KNOB_TYPE_COUNTS] = {};
  DN(cudnnBackendGetAttribute(Cfgs[0], CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR, CUDNN_KNOB_TYPE_COUNTS,
                              &NoteCount, Knobs));
  DN(cudnnBackendGetAttribute(E, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, CUDNN_NUMERICAL_NOTE_TYPE_COUNT,
                              &NoteCount, Notes));
  int64_t Index = -1;
  DN(cudnnBackendGetAttribute(E, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &One, &Index));
  // The frontend's check_support reads the shared memory a config uses as INT32: 4 bytes, not 8.
  int32_t Smem[2] = {-1, 0x5a5a5a5a};
  DN(cudnnBackendGetAttribute(Cfgs[0], CUDNN_ATTR_ENGINECFG_SHARED_MEMORY_USED, CUDNN_TYPE_INT32, 1, &One, Smem));
  if (Smem[0] != 0 || Smem[1] != 0x5a5a5a5a) {
    std::printf("FAIL shared memory used read as INT32 gave %d and wrote past it\n", Smem[0]);
    ++Failures;
  }
  cudnnBackendDescriptor_t Plan = create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  DN(cudnnBackendSetAttribute(Plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &Handle));
  setDesc(Plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, Cfgs[0]);
  DN(cudnnBackendFinalize(Plan));
  int64_t WsSize = -1;
  DN(cudnnBackendGetAttribute(Plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &One, &WsSize));
  void *Ws = nullptr;
  if (WsSize > 0)
    CHECK(cudaMalloc(&Ws, WsSize));
  cudnnBackendDescriptor_t Pack = create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  DN(cudnnBackendSetAttribute(Pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, int64_t(Uids.size()), Uids.data()));
  DN(cudnnBackendSetAttribute(Pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, int64_t(Ptrs.size()),
                              Ptrs.data()));
  DN(cudnnBackendSetAttribute(Pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &Ws));
  DN(cudnnBackendFinalize(Pack));
  DN(cudnnBackendExecute(Handle, Plan, Pack));
  CHECK(cudaDeviceSynchronize());
  cudaFree(Ws);
}

// N=2 C=4 H=W=7, K=6, 3x3, pad 1, stride 1.
constexpr int N = 2, C = 4, H = 7, W = 7, K = 6, R = 3, P = 7, Q = 7;
static double xAt(const std::vector<float> &X, int n, int c, int h, int w) {
  return h < 0 || h >= H || w < 0 || w >= W ? 0.0 : X[((n * C + c) * H + h) * W + w];
}
static std::vector<double> refConv(const std::vector<float> &X, const std::vector<float> &Wt) {
  std::vector<double> Y(N * K * P * Q);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k)
      for (int p = 0; p < P; ++p)
        for (int q = 0; q < Q; ++q) {
          double A = 0;
          for (int c = 0; c < C; ++c)
            for (int r = 0; r < R; ++r)
              for (int s = 0; s < R; ++s)
                A += xAt(X, n, c, p - 1 + r, q - 1 + s) * Wt[((k * C + c) * R + r) * R + s];
          Y[((n * K + k) * P + p) * Q + q] = A;
        }
  return Y;
}

static void convBiasRelu() {
  std::vector<float> Xv = randoms(N * C * H * W), Wv = randoms(K * C * R * R), Bv = randoms(K);
  Dev X(Xv), Wd(Wv), B(Bv), Y(N * K * P * Q);
  cudnnBackendDescriptor_t Xt = tensor('x', {N, C, H, W}), Wt = tensor('w', {K, C, R, R}), Bt = tensor('b', {1, K, 1, 1}),
                           Ct = tensor(1001, {N, K, P, Q}, true), At = tensor(1002, {N, K, P, Q}, true),
                           Yt = tensor('y', {N, K, P, Q});
  cudnnBackendDescriptor_t Conv = create(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
  float Alpha = 1, Beta = 0;
  setDesc(Conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, Xt);
  setDesc(Conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, Wt);
  setDesc(Conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, Ct);
  setDesc(Conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, convDesc(1, 1));
  DN(cudnnBackendSetAttribute(Conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &Alpha));
  DN(cudnnBackendSetAttribute(Conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &Beta));
  DN(cudnnBackendFinalize(Conv));
  cudnnBackendDescriptor_t Add = pointwise(CUDNN_POINTWISE_ADD, Ct, Bt, At), Relu = pointwise(CUDNN_POINTWISE_RELU_FWD, At, nullptr, Yt);
  // Listed out of order: the library orders them by their virtual tensors.
  execute({Relu, Conv, Add}, {'x', 'w', 'b', 'y'}, {X.P, Wd.P, B.P, Y.P});
  std::vector<double> Want = refConv(Xv, Wv);
  for (size_t I = 0; I < Want.size(); ++I)
    Want[I] = std::max(0.0, Want[I] + Bv[(I / (P * Q)) % K]);
  expectClose("graph: convolution + bias + ReLU (virtual intermediates)", Want, Y.get(), 1e-5);
}

static void convBackward() {
  std::vector<float> Xv = randoms(N * C * H * W), Wv = randoms(K * C * R * R), Dyv = randoms(N * K * P * Q),
                     Old = randoms(N * C * H * W);
  Dev X(Xv), Wd(Wv), Dy(Dyv), Dx(Old), Dw(K * C * R * R);
  // dx = 2 * conv^T(dy) + 0.5 * dx_old.
  cudnnBackendDescriptor_t Xt = tensor('x', {N, C, H, W}), Wt = tensor('w', {K, C, R, R}), Dyt = tensor('d', {N, K, P, Q});
  cudnnBackendDescriptor_t Op = create(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR);
  double Alpha = 2, Beta = 0.5; // double scalars are accepted too
  setDesc(Op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, Xt);
  setDesc(Op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, Wt);
  setDesc(Op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, Dyt);
  setDesc(Op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, convDesc(1, 1));
  DN(cudnnBackendSetAttribute(Op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_TYPE_DOUBLE, 1, &Alpha));
  DN(cudnnBackendSetAttribute(Op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, CUDNN_TYPE_DOUBLE, 1, &Beta));
  DN(cudnnBackendFinalize(Op));
  execute({Op}, {'x', 'w', 'd'}, {Dx.P, Wd.P, Dy.P});
  std::vector<double> Want(N * C * H * W, 0.0), WantW(K * C * R * R, 0.0);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k)
      for (int p = 0; p < P; ++p)
        for (int q = 0; q < Q; ++q)
          for (int c = 0; c < C; ++c)
            for (int r = 0; r < R; ++r)
              for (int s = 0; s < R; ++s) {
                int h = p - 1 + r, w = q - 1 + s;
                if (h < 0 || h >= H || w < 0 || w >= W)
                  continue;
                double G = Dyv[((n * K + k) * P + p) * Q + q];
                Want[((n * C + c) * H + h) * W + w] += G * Wv[((k * C + c) * R + r) * R + s];
                WantW[((k * C + c) * R + r) * R + s] += G * Xv[((n * C + c) * H + h) * W + w];
              }
  for (size_t I = 0; I < Want.size(); ++I)
    Want[I] = 2 * Want[I] + 0.5 * Old[I];
  expectClose("graph: convolution backward data (alpha 2, beta 0.5)", Want, Dx.get(), 1e-5);
  cudnnBackendDescriptor_t Op2 = create(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR);
  setDesc(Op2, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, Xt);
  setDesc(Op2, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, Wt);
  setDesc(Op2, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, Dyt);
  setDesc(Op2, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, convDesc(1, 1));
  DN(cudnnBackendFinalize(Op2));
  execute({Op2}, {'x', 'w', 'd'}, {X.P, Dw.P, Dy.P});
  expectClose("graph: convolution backward filter", WantW, Dw.get(), 1e-5);
}

static void pointwiseBackward() {
  std::vector<float> Dyv = randoms(64), Xv = randoms(64);
  Dev Dy(Dyv), X(Xv), Dx(64);
  cudnnBackendDescriptor_t Dyt = tensor(1, {1, 4, 4, 4}), Xt = tensor(2, {1, 4, 4, 4}), Dxt = tensor(3, {1, 4, 4, 4});
  execute({pointwise(CUDNN_POINTWISE_GELU_BWD, Dyt, Xt, Dxt)}, {1, 2, 3}, {Dy.P, X.P, Dx.P});
  std::vector<double> Want(64);
  for (int I = 0; I < 64; ++I) {
    double x = Xv[I], Cdf = 0.5 * (1 + std::erf(x / std::sqrt(2.0))), Pdf = std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
    Want[I] = Dyv[I] * (Cdf + x * Pdf);
  }
  expectClose("graph: GELU backward", Want, Dx.get(), 1e-6);
}

static void matmulAndReduction() {
  // c[b] = a[b] x w (w broadcast over the batch), then r = sum of c over the last dim.
  int B = 3, M = 4, Kk = 5, Nn = 6;
  std::vector<float> Av = randoms(B * M * Kk), Wv = randoms(Kk * Nn);
  Dev A(Av), Wd(Wv), Cm(B * M * Nn), Rr(B * M);
  cudnnBackendDescriptor_t At = tensor(10, {B, M, Kk}), Wt = tensor(11, {1, Kk, Nn}), Ct = tensor(12, {B, M, Nn}),
                           Rt = tensor(13, {B, M, 1});
  cudnnBackendDescriptor_t Md = create(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  cudnnDataType_t F = CUDNN_DATA_FLOAT;
  DN(cudnnBackendSetAttribute(Md, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &F));
  DN(cudnnBackendFinalize(Md));
  cudnnBackendDescriptor_t Mm = create(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  setDesc(Mm, CUDNN_ATTR_OPERATION_MATMUL_ADESC, At);
  setDesc(Mm, CUDNN_ATTR_OPERATION_MATMUL_BDESC, Wt);
  setDesc(Mm, CUDNN_ATTR_OPERATION_MATMUL_CDESC, Ct);
  setDesc(Mm, CUDNN_ATTR_OPERATION_MATMUL_DESC, Md);
  DN(cudnnBackendFinalize(Mm));
  cudnnBackendDescriptor_t Rd = create(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
  cudnnReduceTensorOp_t Op = CUDNN_REDUCE_TENSOR_ADD;
  DN(cudnnBackendSetAttribute(Rd, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &Op));
  DN(cudnnBackendSetAttribute(Rd, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &F));
  DN(cudnnBackendFinalize(Rd));
  cudnnBackendDescriptor_t Red = create(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
  setDesc(Red, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, Ct);
  setDesc(Red, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, Rt);
  setDesc(Red, CUDNN_ATTR_OPERATION_REDUCTION_DESC, Rd);
  DN(cudnnBackendFinalize(Red));
  execute({Mm, Red}, {10, 11, 12, 13}, {A.P, Wd.P, Cm.P, Rr.P});
  std::vector<double> Want(B * M * Nn, 0.0), WantR(B * M, 0.0);
  for (int b = 0; b < B; ++b)
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < Nn; ++j) {
        for (int k = 0; k < Kk; ++k)
          Want[(b * M + i) * Nn + j] += double(Av[(b * M + i) * Kk + k]) * Wv[k * Nn + j];
        WantR[b * M + i] += Want[(b * M + i) * Nn + j];
      }
  expectClose("graph: batched matmul (b broadcast)", Want, Cm.get(), 1e-6);
  expectClose("graph: sum reduction of the matmul", WantR, Rr.get(), 1e-5);
}

/// An attention graph's causal mask: row >= col ? scores : fill (GEN_INDEX on two axes, CMP_GE,
/// BINARY_SELECT), the fill a by-value scalar in host memory.
static void causalMask() {
  int B = 2, S = 5;
  std::vector<float> Sv = randoms(B * S * S);
  Dev Sc(Sv), Out(B * S * S);
  float Fill = -1000.0f;
  std::vector<int64_t> Shape = {B, 1, S, S};
  cudnnBackendDescriptor_t St = tensor(20, Shape), Rows = tensor(21, Shape, true), Cols = tensor(22, Shape, true),
                           Mask = tensor(23, Shape, true), Ft = tensor(24, {1, 1, 1, 1}, false, true),
                           Ot = tensor(25, Shape);
  auto genIndex = [&](cudnnBackendDescriptor_t Y, int64_t Axis) {
    cudnnBackendDescriptor_t P = create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    cudnnPointwiseMode_t Mode = CUDNN_POINTWISE_GEN_INDEX;
    cudnnDataType_t Prec = CUDNN_DATA_FLOAT;
    DN(cudnnBackendSetAttribute(P, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &Mode));
    DN(cudnnBackendSetAttribute(P, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &Prec));
    DN(cudnnBackendSetAttribute(P, CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, &Axis));
    DN(cudnnBackendFinalize(P));
    cudnnBackendDescriptor_t Op = create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    setDesc(Op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, P);
    setDesc(Op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, St);
    setDesc(Op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, Y);
    DN(cudnnBackendFinalize(Op));
    return Op;
  };
  cudnnBackendDescriptor_t Select = create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
  cudnnPointwiseMode_t Sel = CUDNN_POINTWISE_BINARY_SELECT;
  DN(cudnnBackendSetAttribute(Select, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &Sel));
  DN(cudnnBackendFinalize(Select));
  cudnnBackendDescriptor_t SelOp = create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
  setDesc(SelOp, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, Select);
  setDesc(SelOp, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, St);
  setDesc(SelOp, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, Ft);
  setDesc(SelOp, CUDNN_ATTR_OPERATION_POINTWISE_TDESC, Mask);
  setDesc(SelOp, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, Ot);
  DN(cudnnBackendFinalize(SelOp));
  execute({SelOp, genIndex(Rows, 2), genIndex(Cols, 3), pointwise(CUDNN_POINTWISE_CMP_GE, Rows, Cols, Mask)},
          {20, 24, 25}, {Sc.P, &Fill, Out.P});
  std::vector<double> Want(B * S * S);
  for (int b = 0; b < B; ++b)
    for (int i = 0; i < S; ++i)
      for (int j = 0; j < S; ++j)
        Want[(b * S + i) * S + j] = i >= j ? Sv[(b * S + i) * S + j] : Fill;
  expectClose("graph: causal mask (GEN_INDEX, CMP_GE, BINARY_SELECT, a by-value fill)", Want, Out.get(), 1e-7);
}

/// Attention's K^T: a reshape whose y views x's memory with swapped strides, feeding a matmul (Q K^T).
static void reshapeTranspose() {
  int S = 5, D = 3;
  std::vector<float> Qv = randoms(S * D), Kv = randoms(S * D);
  Dev Q(Qv), Kd(Kv), Out(S * S);
  cudnnBackendDescriptor_t Qt = tensor(30, {1, S, D}), Kt = tensor(31, {1, S, D}), Ot = tensor(33, {1, S, S});
  // K^T: dims [1, D, S], strides [S*D, 1, D] (the same memory as K), virtual.
  cudnnBackendDescriptor_t KT = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  cudnnDataType_t F = CUDNN_DATA_FLOAT;
  int64_t Dims[3] = {1, D, S}, Strides[3] = {S * D, 1, D}, Uid = 32, Align = 16;
  bool Virtual = true;
  DN(cudnnBackendSetAttribute(KT, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &F));
  DN(cudnnBackendSetAttribute(KT, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 3, Dims));
  DN(cudnnBackendSetAttribute(KT, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 3, Strides));
  DN(cudnnBackendSetAttribute(KT, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &Uid));
  DN(cudnnBackendSetAttribute(KT, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &Align));
  DN(cudnnBackendSetAttribute(KT, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &Virtual));
  DN(cudnnBackendFinalize(KT));
  cudnnBackendDescriptor_t Rs = create(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
  setDesc(Rs, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, Kt);
  setDesc(Rs, CUDNN_ATTR_OPERATION_RESHAPE_YDESC, KT);
  DN(cudnnBackendFinalize(Rs));
  cudnnBackendDescriptor_t Md = create(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  DN(cudnnBackendSetAttribute(Md, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &F));
  DN(cudnnBackendFinalize(Md));
  cudnnBackendDescriptor_t Mm = create(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  setDesc(Mm, CUDNN_ATTR_OPERATION_MATMUL_ADESC, Qt);
  setDesc(Mm, CUDNN_ATTR_OPERATION_MATMUL_BDESC, KT);
  setDesc(Mm, CUDNN_ATTR_OPERATION_MATMUL_CDESC, Ot);
  setDesc(Mm, CUDNN_ATTR_OPERATION_MATMUL_DESC, Md);
  DN(cudnnBackendFinalize(Mm));
  execute({Mm, Rs}, {30, 31, 33}, {Q.P, Kd.P, Out.P});
  std::vector<double> Want(S * S, 0.0);
  for (int i = 0; i < S; ++i)
    for (int j = 0; j < S; ++j)
      for (int k = 0; k < D; ++k)
        Want[i * S + j] += double(Qv[i * D + k]) * Kv[j * D + k];
  expectClose("graph: reshape as a transposed view (Q K^T)", Want, Out.get(), 1e-6);
}

/// softmax(scale q k^T) v per head in double, k/v heads shared by H / Hk query heads ([b=1, h, s, d] packed).
static std::vector<double> refAttention(const std::vector<double> &Q, const std::vector<double> &K,
                                        const std::vector<double> &V, int H, int Hk, int Sq, int Skv, int D, double Scale,
                                        std::vector<double> *Lse = nullptr) {
  std::vector<double> O(size_t(H) * Sq * D, 0.0);
  if (Lse)
    Lse->assign(size_t(H) * Sq, 0.0);
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < Sq; ++i) {
      int kh = h / (H / Hk);
      std::vector<double> P(Skv);
      double Max = -1e300, Sum = 0;
      for (int j = 0; j < Skv; ++j) {
        double A = 0;
        for (int c = 0; c < D; ++c)
          A += Q[(h * Sq + i) * D + c] * K[(kh * Skv + j) * D + c];
        Max = std::max(Max, P[j] = Scale * A);
      }
      for (double &X : P)
        Sum += (X = std::exp(X - Max));
      for (int j = 0; j < Skv; ++j)
        for (int c = 0; c < D; ++c)
          O[(h * Sq + i) * D + c] += P[j] / Sum * V[(kh * Skv + j) * D + c];
      if (Lse)
        (*Lse)[h * Sq + i] = Max + std::log(Sum);
    }
  return O;
}

/// The unified attention operation (what the frontend builds for training): O = softmax(scale Q K^T) V and
/// Stats = each row's log-sum-exp, with K/V shared by two query heads.
static void unifiedSdpa() {
  int B = 1, H = 2, Hk = 1, Sq = 4, Skv = 5, D = 3;
  std::vector<float> Qv = randoms(B * H * Sq * D), Kv = randoms(B * Hk * Skv * D), Vv = randoms(B * Hk * Skv * D);
  Dev Q(Qv), K(Kv), V(Vv), O(B * H * Sq * D), St(B * H * Sq);
  float Scale = 0.7f;
  cudnnBackendDescriptor_t Qt = tensor(40, {B, H, Sq, D}), Kt = tensor(41, {B, Hk, Skv, D}), Vt = tensor(42, {B, Hk, Skv, D}),
                           Ot = tensor(43, {B, H, Sq, D}), Stt = tensor(44, {B, H, Sq, 1}),
                           Sct = tensor(45, {1, 1, 1, 1}, false, true);
  cudnnBackendDescriptor_t Op = create(CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR);
  setDesc(Op, CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, Qt);
  setDesc(Op, CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, Kt);
  setDesc(Op, CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, Vt);
  setDesc(Op, CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, Ot);
  setDesc(Op, CUDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, Stt);
  setDesc(Op, CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC, Sct);
  DN(cudnnBackendFinalize(Op));
  execute({Op}, {40, 41, 42, 43, 44, 45}, {Q.P, K.P, V.P, O.P, St.P, &Scale});
  std::vector<double> WantS;
  std::vector<double> WantO = refAttention(std::vector<double>(Qv.begin(), Qv.end()), std::vector<double>(Kv.begin(), Kv.end()),
                                           std::vector<double>(Vv.begin(), Vv.end()), H, Hk, Sq, Skv, D, Scale, &WantS);
  expectClose("graph: unified SDPA forward, O (grouped heads)", WantO, O.get(), 1e-6);
  expectClose("graph: unified SDPA forward, Stats (log-sum-exp)", WantS, St.get(), 1e-6);
}

/// The unified attention's backward (descriptor type 43) from the forward's O and statistics: dQ, dK, dV
/// against central differences of sum(O * dO) in double, with K/V shared by two query heads.
static void unifiedSdpaBackward() {
  const int H = 2, Hk = 1, Sq = 3, Skv = 4, D = 3;
  const double Scale = 0.6;
  std::vector<float> Qv = randoms(H * Sq * D), Kv = randoms(Hk * Skv * D), Vv = randoms(Hk * Skv * D),
                     DOv = randoms(H * Sq * D);
  std::vector<double> Qd(Qv.begin(), Qv.end()), Kd(Kv.begin(), Kv.end()), Vd(Vv.begin(), Vv.end()),
      DOd(DOv.begin(), DOv.end()), Lse;
  std::vector<double> Od = refAttention(Qd, Kd, Vd, H, Hk, Sq, Skv, D, Scale, &Lse);
  Dev Q(Qv), K(Kv), V(Vv), O(std::vector<float>(Od.begin(), Od.end())), St(std::vector<float>(Lse.begin(), Lse.end())),
      DO(DOv), DQ(Qv.size()), DK(Kv.size()), DV(Vv.size());
  float ScaleF = float(Scale);
  cudnnBackendDescriptor_t Op = create(CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR);
  setDesc(Op, CUDNN_ATTR_OPERATION_SDPA_BWD_QDESC, tensor(110, {1, H, Sq, D}));
  setDesc(Op, CUDNN_ATTR_OPERATION_SDPA_BWD_KDESC, tensor(111, {1, Hk, Skv, D}));
  setDesc(Op, CUDNN_ATTR_OPERATION_SDPA_BWD_VDESC, tensor(112, {1, Hk, Skv, D}));
  setDesc(Op, CUDNN_ATTR_OPERATION_SDPA_BWD_ODESC, tensor(113, {1, H, Sq, D}));
  setDesc(Op, CUDNN_ATTR_OPERATION_SDPA_BWD_STATSDESC, tensor(114, {1, H, Sq, 1}));
  setDesc(Op, CUDNN_ATTR_OPERATION_SDPA_BWD_DODDESC, tensor(115, {1, H, Sq, D}));
  setDesc(Op, CUDNN_ATTR_OPERATION_SDPA_BWD_SCALEDESC, tensor(116, {1, 1, 1, 1}, false, true));
  setDesc(Op, CUDNN_ATTR_OPERATION_SDPA_BWD_DQDESC, tensor(117, {1, H, Sq, D}));
  setDesc(Op, CUDNN_ATTR_OPERATION_SDPA_BWD_DKDESC, tensor(118, {1, Hk, Skv, D}));
  setDesc(Op, CUDNN_ATTR_OPERATION_SDPA_BWD_DVDESC, tensor(119, {1, Hk, Skv, D}));
  DN(cudnnBackendFinalize(Op));
  execute({Op}, {110, 111, 112, 113, 114, 115, 116, 117, 118, 119},
          {Q.P, K.P, V.P, O.P, St.P, DO.P, &ScaleF, DQ.P, DK.P, DV.P});
  auto numeric = [&](std::vector<double> &X) {
    std::vector<double> G(X.size());
    for (size_t I = 0; I < X.size(); ++I) {
      double Keep = X[I], Hd = 1e-6, L[2];
      for (int Side = 0; Side < 2; ++Side) {
        X[I] = Keep + (Side ? -Hd : Hd);
        std::vector<double> Out = refAttention(Qd, Kd, Vd, H, Hk, Sq, Skv, D, Scale);
        L[Side] = 0;
        for (size_t E = 0; E < Out.size(); ++E)
          L[Side] += Out[E] * DOd[E];
      }
      X[I] = Keep;
      G[I] = (L[0] - L[1]) / (2 * Hd);
    }
    return G;
  };
  expectClose("graph: unified SDPA backward, dQ (vs central differences)", numeric(Qd), DQ.get(), 1e-5);
  expectClose("graph: unified SDPA backward, dK (two query heads summed)", numeric(Kd), DK.get(), 1e-5);
  expectClose("graph: unified SDPA backward, dV", numeric(Vd), DV.get(), 1e-5);
}

/// A norm's reference in double: statistics over the dims Reduced marks (RMS: no mean), y = xhat * scale + bias
/// with scale and bias of x's dims where Param marks (else 1 there). Returns y; Mean/Inv per group in logical
/// order of the dims left.
struct NormRef {
  std::vector<int> Dims;
  std::vector<bool> Reduced, Param;
  bool Rms = false;
  double Eps = 1e-5;

  size_t count() const {
    size_t N = 1;
    for (int D : Dims)
      N *= D;
    return N;
  }
  /// The linear index of element L projected onto the dims \p Keep marks (packed over those dims).
  size_t project(size_t L, const std::vector<bool> &Keep) const {
    std::vector<int> Idx(Dims.size());
    for (size_t D = Dims.size(); D-- > 0;) {
      Idx[D] = int(L % Dims[D]);
      L /= Dims[D];
    }
    size_t R = 0;
    for (size_t D = 0; D < Dims.size(); ++D)
      if (Keep[D])
        R = R * Dims[D] + Idx[D];
    return R;
  }
  std::vector<bool> notReduced() const {
    std::vector<bool> K(Reduced.size());
    for (size_t D = 0; D < K.size(); ++D)
      K[D] = !Reduced[D];
    return K;
  }
  std::vector<double> forward(const std::vector<double> &X, const std::vector<double> &Scale, const std::vector<double> &Bias,
                              std::vector<double> *MeanOut = nullptr, std::vector<double> *InvOut = nullptr,
                              std::vector<double> *VarOut = nullptr) const {
    std::vector<bool> Keep = notReduced();
    size_t Groups = 1, Per = 1;
    for (size_t D = 0; D < Dims.size(); ++D)
      (Reduced[D] ? Per : Groups) *= Dims[D];
    std::vector<double> Mean(Groups, 0.0), Var(Groups, 0.0), Y(X.size());
    if (!Rms)
      for (size_t L = 0; L < X.size(); ++L)
        Mean[project(L, Keep)] += X[L] / double(Per);
    for (size_t L = 0; L < X.size(); ++L) {
      double C = X[L] - Mean[project(L, Keep)];
      Var[project(L, Keep)] += C * C / double(Per);
    }
    for (size_t L = 0; L < X.size(); ++L) {
      size_t G = project(L, Keep), Pi = project(L, Param);
      Y[L] = (X[L] - Mean[G]) / std::sqrt(Var[G] + Eps) * Scale[Pi] + (Bias.empty() ? 0.0 : Bias[Pi]);
    }
    if (MeanOut)
      *MeanOut = Mean;
    if (InvOut) {
      InvOut->resize(Groups);
      for (size_t G = 0; G < Groups; ++G)
        (*InvOut)[G] = 1 / std::sqrt(Var[G] + Eps);
    }
    if (VarOut)
      *VarOut = Var;
    return Y;
  }
  /// d/dv of sum(y * dy) by central differences, for each element of \p V (x, scale or bias).
  std::vector<double> numericGrad(std::vector<double> X, std::vector<double> Scale, std::vector<double> Bias,
                                  const std::vector<double> &Dy, int Which) const {
    std::vector<double> &V = Which == 0 ? X : Which == 1 ? Scale : Bias;
    std::vector<double> G(V.size());
    auto loss = [&] {
      std::vector<double> Y = forward(X, Scale, Bias);
      double S = 0;
      for (size_t L = 0; L < Y.size(); ++L)
        S += Y[L] * Dy[L];
      return S;
    };
    for (size_t I = 0; I < V.size(); ++I) {
      double Keep = V[I], H = 1e-5;
      V[I] = Keep + H;
      double Up = loss();
      V[I] = Keep - H;
      double Down = loss();
      V[I] = Keep;
      G[I] = (Up - Down) / (2 * H);
    }
    return G;
  }
};

static std::vector<double> toDouble(const std::vector<float> &V) { return std::vector<double>(V.begin(), V.end()); }
static std::vector<int64_t> dims64(const std::vector<int> &D, const std::vector<bool> &Keep) {
  std::vector<int64_t> R;
  for (size_t I = 0; I < D.size(); ++I)
    R.push_back(Keep[I] ? D[I] : 1);
  return R;
}

/// A norm's training forward and its backward through the backend's norm operations, each against the
/// reference above: the forward's y and statistics, the backward's dx, dscale and dbias against central
/// differences of the reference's forward.
static void normForwardBackward(const char *Name, cudnnBackendNormMode_t Mode, NormRef Ref) {
  bool Rms = Mode == CUDNN_RMS_NORM;
  size_t Count = Ref.count();
  std::vector<bool> Keep = Ref.notReduced();
  std::vector<int64_t> Xd(Ref.Dims.begin(), Ref.Dims.end()), Pd = dims64(Ref.Dims, Ref.Param), Sd = dims64(Ref.Dims, Keep);
  size_t PN = 1, SN = 1;
  for (int64_t D : Pd)
    PN *= D;
  for (int64_t D : Sd)
    SN *= D;
  std::vector<float> Xv = randoms(Count), Sv = randoms(PN), Bv = randoms(PN), Dyv = randoms(Count);
  for (float &V : Xv)
    V = V * 2 + 0.5f; // a mean away from 0 (RMS norm keeps it)
  Dev X(Xv), Sc(Sv), Bi(Bv), Y(Count), Mean(SN), Inv(SN), Dy(Dyv), Dx(Count), DSc(PN), DBi(PN);
  float Eps = float(Ref.Eps);
  // Forward (training): y, mean (not RMS) and inverse variance.
  cudnnBackendDescriptor_t Xt = tensor(60, Xd), St = tensor(61, Pd), Bt = tensor(62, Pd), Yt = tensor(63, Xd),
                           Mt = tensor(64, Sd), It = tensor(65, Sd), Et = tensor(66, {1, 1, 1, 1}, false, true);
  cudnnBackendDescriptor_t F = create(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR);
  cudnnBackendNormFwdPhase_t Phase = CUDNN_NORM_FWD_TRAINING;
  DN(cudnnBackendSetAttribute(F, CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, 1, &Mode));
  DN(cudnnBackendSetAttribute(F, CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE, 1, &Phase));
  setDesc(F, CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, Xt);
  setDesc(F, CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, St);
  setDesc(F, CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, Bt);
  setDesc(F, CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, Et);
  setDesc(F, CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, Yt);
  if (!Rms)
    setDesc(F, CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, Mt);
  setDesc(F, CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, It);
  DN(cudnnBackendFinalize(F));
  if (Rms)
    execute({F}, {60, 61, 62, 63, 65, 66}, {X.P, Sc.P, Bi.P, Y.P, Inv.P, &Eps});
  else
    execute({F}, {60, 61, 62, 63, 64, 65, 66}, {X.P, Sc.P, Bi.P, Y.P, Mean.P, Inv.P, &Eps});
  std::vector<double> WantMean, WantInv;
  std::vector<double> WantY = Ref.forward(toDouble(Xv), toDouble(Sv), toDouble(Bv), &WantMean, &WantInv);
  std::string N = std::string("graph: ") + Name;
  expectClose((N + " forward, y").c_str(), WantY, Y.get(), 2e-5);
  if (!Rms)
    expectClose((N + " forward, mean").c_str(), WantMean, Mean.get(), 1e-5);
  expectClose((N + " forward, inverse variance").c_str(), WantInv, Inv.get(), 1e-5);

  // Backward from the forward's statistics: dx, dscale, dbias.
  cudnnBackendDescriptor_t Xb = tensor(70, Xd), Sb = tensor(71, Pd), Mb = tensor(72, Sd), Ib = tensor(73, Sd),
                           Dyt = tensor(74, Xd), Dxt = tensor(75, Xd), DSt = tensor(76, Pd), DBt = tensor(77, Pd);
  cudnnBackendDescriptor_t Bw = create(CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR);
  DN(cudnnBackendSetAttribute(Bw, CUDNN_ATTR_OPERATION_NORM_BWD_MODE, CUDNN_TYPE_NORM_MODE, 1, &Mode));
  setDesc(Bw, CUDNN_ATTR_OPERATION_NORM_BWD_XDESC, Xb);
  setDesc(Bw, CUDNN_ATTR_OPERATION_NORM_BWD_SCALE_DESC, Sb);
  if (!Rms)
    setDesc(Bw, CUDNN_ATTR_OPERATION_NORM_BWD_MEAN_DESC, Mb);
  setDesc(Bw, CUDNN_ATTR_OPERATION_NORM_BWD_INV_VARIANCE_DESC, Ib);
  setDesc(Bw, CUDNN_ATTR_OPERATION_NORM_BWD_DYDESC, Dyt);
  setDesc(Bw, CUDNN_ATTR_OPERATION_NORM_BWD_DXDESC, Dxt);
  setDesc(Bw, CUDNN_ATTR_OPERATION_NORM_BWD_DSCALE_DESC, DSt);
  setDesc(Bw, CUDNN_ATTR_OPERATION_NORM_BWD_DBIAS_DESC, DBt);
  DN(cudnnBackendFinalize(Bw));
  execute({Bw}, {70, 71, 72, 73, 74, 75, 76, 77}, {X.P, Sc.P, Mean.P, Inv.P, Dy.P, Dx.P, DSc.P, DBi.P});
  std::vector<double> Xd64 = toDouble(Xv), Sd64 = toDouble(Sv), Bd64 = toDouble(Bv), Dyd = toDouble(Dyv);
  expectClose((N + " backward, dx (vs central differences)").c_str(), Ref.numericGrad(Xd64, Sd64, Bd64, Dyd, 0), Dx.get(), 1e-4);
  expectClose((N + " backward, dscale").c_str(), Ref.numericGrad(Xd64, Sd64, Bd64, Dyd, 1), DSc.get(), 1e-4);
  expectClose((N + " backward, dbias").c_str(), Ref.numericGrad(Xd64, Sd64, Bd64, Dyd, 2), DBi.get(), 1e-4);
}

/// Batch norm training with running statistics (new = (1 - f) old + f batch, the variance unbiased), then
/// inference from those statistics; instance norm's inference without statistics (reduced over the spatial dims).
static void batchNormRunningAndInference() {
  NormRef Ref{{4, 3, 2, 2}, {true, false, true, true}, {false, true, false, false}};
  size_t Count = Ref.count();
  std::vector<float> Xv = randoms(Count), Sv = randoms(3), Bv = randoms(3), RmV = randoms(3), RvV = {0.5f, 1.5f, 2.f};
  Dev X(Xv), Sc(Sv), Bi(Bv), Y(Count), Mean(3), Inv(3), Rm(RmV), Rv(RvV), RmOut(3), RvOut(3);
  float Eps = 1e-5f, Factor = 0.25f;
  cudnnBackendDescriptor_t F = create(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR);
  cudnnBackendNormMode_t Mode = CUDNN_BATCH_NORM;
  cudnnBackendNormFwdPhase_t Phase = CUDNN_NORM_FWD_TRAINING;
  DN(cudnnBackendSetAttribute(F, CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, 1, &Mode));
  DN(cudnnBackendSetAttribute(F, CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE, 1, &Phase));
  setDesc(F, CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, tensor(80, {4, 3, 2, 2}));
  setDesc(F, CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, tensor(81, {1, 3, 1, 1}));
  setDesc(F, CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, tensor(82, {1, 3, 1, 1}));
  setDesc(F, CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, tensor(83, {1, 1, 1, 1}, false, true));
  setDesc(F, CUDNN_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC, tensor(84, {1, 1, 1, 1}, false, true));
  setDesc(F, CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, tensor(85, {4, 3, 2, 2}));
  setDesc(F, CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, tensor(86, {1, 3, 1, 1}));
  setDesc(F, CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, tensor(87, {1, 3, 1, 1}));
  setDesc(F, CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC, tensor(88, {1, 3, 1, 1}));
  setDesc(F, CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC, tensor(89, {1, 3, 1, 1}));
  setDesc(F, CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC, tensor(90, {1, 3, 1, 1}));
  setDesc(F, CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC, tensor(91, {1, 3, 1, 1}));
  DN(cudnnBackendFinalize(F));
  execute({F}, {80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91},
          {X.P, Sc.P, Bi.P, &Eps, &Factor, Y.P, Mean.P, Inv.P, Rm.P, Rv.P, RmOut.P, RvOut.P});
  std::vector<double> M, I, V;
  std::vector<double> WantY = Ref.forward(toDouble(Xv), toDouble(Sv), toDouble(Bv), &M, &I, &V);
  std::vector<double> WantRm(3), WantRv(3);
  double PerChannel = 4 * 2 * 2;
  for (int C = 0; C < 3; ++C) {
    WantRm[C] = 0.75 * RmV[C] + 0.25 * M[C];
    WantRv[C] = 0.75 * RvV[C] + 0.25 * V[C] * PerChannel / (PerChannel - 1);
  }
  expectClose("graph: batch norm training, y", WantY, Y.get(), 2e-5);
  expectClose("graph: batch norm training, running mean", WantRm, RmOut.get(), 1e-5);
  expectClose("graph: batch norm training, running variance (unbiased)", WantRv, RvOut.get(), 1e-5);

  // Inference reading a given mean and inverse standard deviation.
  cudnnBackendDescriptor_t G = create(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR);
  Phase = CUDNN_NORM_FWD_INFERENCE;
  DN(cudnnBackendSetAttribute(G, CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, 1, &Mode));
  DN(cudnnBackendSetAttribute(G, CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE, 1, &Phase));
  setDesc(G, CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, tensor(92, {4, 3, 2, 2}));
  setDesc(G, CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, tensor(93, {1, 3, 1, 1}));
  setDesc(G, CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, tensor(94, {1, 3, 1, 1}));
  setDesc(G, CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, tensor(95, {1, 3, 1, 1}));
  setDesc(G, CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, tensor(96, {1, 3, 1, 1}));
  setDesc(G, CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, tensor(97, {4, 3, 2, 2}));
  DN(cudnnBackendFinalize(G));
  std::vector<float> GivenMean = {0.1f, -0.2f, 0.3f}, GivenInv = {2.f, 0.5f, 1.25f};
  Dev Gm(GivenMean), Gi(GivenInv);
  execute({G}, {92, 93, 94, 95, 96, 97}, {X.P, Sc.P, Bi.P, Gm.P, Gi.P, Y.P});
  std::vector<double> WantInf(Count);
  for (size_t L = 0; L < Count; ++L) {
    int C = int(L / 4 % 3);
    WantInf[L] = (Xv[L] - GivenMean[C]) * GivenInv[C] * Sv[C] + Bv[C];
  }
  expectClose("graph: batch norm inference from given statistics", WantInf, Y.get(), 1e-5);

  // Instance norm, inference: each (n, c) plane normalized on its own.
  NormRef In{{4, 3, 2, 2}, {false, false, true, true}, {false, true, false, false}};
  cudnnBackendDescriptor_t Hn = create(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR);
  Mode = CUDNN_INSTANCE_NORM;
  DN(cudnnBackendSetAttribute(Hn, CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, 1, &Mode));
  DN(cudnnBackendSetAttribute(Hn, CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE, 1, &Phase));
  setDesc(Hn, CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, tensor(100, {4, 3, 2, 2}));
  setDesc(Hn, CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, tensor(101, {1, 3, 1, 1}));
  setDesc(Hn, CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, tensor(102, {1, 3, 1, 1}));
  setDesc(Hn, CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, tensor(103, {1, 1, 1, 1}, false, true));
  setDesc(Hn, CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, tensor(104, {4, 3, 2, 2}));
  DN(cudnnBackendFinalize(Hn));
  execute({Hn}, {100, 101, 102, 103, 104}, {X.P, Sc.P, Bi.P, &Eps, Y.P});
  expectClose("graph: instance norm inference", In.forward(toDouble(Xv), toDouble(Sv), toDouble(Bv)), Y.get(), 2e-5);

  // Group norm is refused at finalize, naming the mode.
  cudnnBackendDescriptor_t Gn = create(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR);
  Mode = CUDNN_GROUP_NORM;
  DN(cudnnBackendSetAttribute(Gn, CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, 1, &Mode));
  DN(cudnnBackendSetAttribute(Gn, CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE, 1, &Phase));
  setDesc(Gn, CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, tensor(105, {4, 3, 2, 2}));
  setDesc(Gn, CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, tensor(106, {4, 3, 2, 2}));
  if (cudnnBackendFinalize(Gn) != CUDNN_STATUS_NOT_SUPPORTED) {
    std::printf("FAIL group norm was not refused with NOT_SUPPORTED\n");
    ++Failures;
  }
}

static void errors() {
  cudnnBackendDescriptor_t T = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  int64_t V, Cnt;
  // Not finalized: no attributes to read.
  if (cudnnBackendGetAttribute(T, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &Cnt, &V) == CUDNN_STATUS_SUCCESS) {
    std::printf("FAIL reading an unfinalized descriptor succeeded\n");
    ++Failures;
  }
  // Missing dims: finalize fails with a bad parameter.
  cudnnDataType_t F = CUDNN_DATA_FLOAT;
  DN(cudnnBackendSetAttribute(T, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &F));
  if (cudnnBackendFinalize(T) != CUDNN_STATUS_BAD_PARAM) {
    std::printf("FAIL a tensor without dims finalized\n");
    ++Failures;
  }
  // A finalized tensor's attributes come back as set; the wrong type is refused.
  cudnnBackendDescriptor_t Good = tensor(77, {1, 2, 3, 4});
  DN(cudnnBackendGetAttribute(Good, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &Cnt, &V));
  if (V != 77 || Cnt != 1) {
    std::printf("FAIL unique id read back as %lld\n", (long long)V);
    ++Failures;
  }
  if (cudnnBackendGetAttribute(Good, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_FLOAT, 1, &Cnt, &V) !=
      CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE) {
    std::printf("FAIL the wrong attribute type was not refused\n");
    ++Failures;
  }
  // Setting after finalize is refused.
  if (cudnnBackendSetAttribute(Good, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &V) == CUDNN_STATUS_SUCCESS) {
    std::printf("FAIL an attribute was set on a finalized descriptor\n");
    ++Failures;
  }
  // A convolution whose y does not fit x and w.
  cudnnBackendDescriptor_t Conv = create(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
  setDesc(Conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, tensor(1, {1, 3, 8, 8}));
  setDesc(Conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, tensor(2, {4, 3, 3, 3}));
  setDesc(Conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, tensor(3, {1, 4, 8, 8}));
  setDesc(Conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, convDesc(0, 1));
  if (cudnnBackendFinalize(Conv) != CUDNN_STATUS_BAD_PARAM) {
    std::printf("FAIL a convolution with the wrong output shape finalized\n");
    ++Failures;
  }
  if (cudnnBackendDestroyDescriptor(reinterpret_cast<cudnnBackendDescriptor_t>(&V)) != CUDNN_STATUS_BAD_PARAM) {
    std::printf("FAIL destroying a foreign pointer\n");
    ++Failures;
  }
  std::printf("ok   error codes\n");
}

int main() {
  DN(cudnnCreate(&Handle));
  convBiasRelu();
  convBackward();
  pointwiseBackward();
  matmulAndReduction();
  causalMask();
  reshapeTranspose();
  unifiedSdpa();
  unifiedSdpaBackward();
  // Layer norm over [c, h, w] of x [3, 4, 2, 3] (scale and bias [1, 4, 2, 3], statistics [3, 1, 1, 1]), as the
  // frontend's layernorm node lays them out; RMS norm over the hidden dim of [6, 8, 1, 1]; batch norm over
  // [n, h, w] with per-channel parameters.
  normForwardBackward("layer norm", CUDNN_LAYER_NORM, NormRef{{3, 4, 2, 3}, {false, true, true, true}, {false, true, true, true}});
  normForwardBackward("RMS norm", CUDNN_RMS_NORM,
                      NormRef{{6, 8, 1, 1}, {false, true, true, true}, {false, true, true, true}, true});
  normForwardBackward("batch norm", CUDNN_BATCH_NORM, NormRef{{4, 3, 2, 2}, {true, false, true, true}, {false, true, false, false}});
  batchNormRunningAndInference();
  errors();
  for (cudnnBackendDescriptor_t D : Made)
    DN(cudnnBackendDestroyDescriptor(D));
  DN(cudnnDestroy(Handle));
  if (Failures) {
    std::printf("FAIL %d checks\n", Failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
