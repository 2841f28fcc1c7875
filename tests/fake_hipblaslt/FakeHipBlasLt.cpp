//===- FakeHipBlasLt.cpp - a hipBLASLt for testing our cuBLASLt on AMD -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The hipBLASLt entry points our cuBLASLt loads, with hipBLASLt's
/// signatures and attribute values. The test HIP runtime's device memory is
/// host memory, so the matmul computes for real (f32 matrices, column or row
/// major, strided batches, alpha/beta in host memory, the bias/ReLU/GELU
/// epilogues, GELU's aux output): a test checks that our library translated
/// every attribute as hipBLASLt means it. Attributes with unexpected sizes,
/// or operations outside 111-113, are INVALID_VALUE (3). The heuristic offers
/// two algorithms (ids 1 and 2; the second needs 4 KiB of workspace); the
/// last matmul's algorithm id and stream are recorded for the test.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace {
constexpr int Ok = 0, Invalid = 3, NotSupported = 7;
struct Layout {
  int Type;
  uint64_t Rows, Cols;
  int64_t Ld, Stride = 0;
  int32_t Order = 0, Batch = 1;
};
struct Desc {
  int Compute, Scale;
  int32_t TransA = 111, TransB = 111, PointerMode = 0;
  uint32_t Epilogue = 1;
  const void *Bias = nullptr;
  int32_t BiasType = -1;
  void *Aux = nullptr;
  int64_t AuxLd = 0, AuxStride = 0;
};
struct Pref {
  uint64_t MaxWorkspace = 0;
};
struct Result {
  uint8_t Algo[16];
  size_t AlgoMaxWorkspace, WorkspaceSize;
  int State;
  float Waves;
  int Reserved[4];
};
int Calls = 0, LastAlgo = 0;
void *LastStream = nullptr;

template <typename T> int set(T &Field, const void *Buf, size_t Size) {
  if (!Buf || Size != sizeof(T))
    return Invalid;
  std::memcpy(&Field, Buf, sizeof(T));
  return Ok;
}
float at(const float *P, const Layout &L, uint64_t I, uint64_t J, int64_t B) {
  return P[B * L.Stride + (L.Order ? I * L.Ld + J : J * L.Ld + I)];
}
float &atW(float *P, const Layout &L, uint64_t I, uint64_t J, int64_t B) {
  return P[B * L.Stride + (L.Order ? I * L.Ld + J : J * L.Ld + I)];
}
float gelu(float X) { return 0.5f * X * (1.0f + std::tanh(0.7978845608f * (X + 0.044715f * X * X * X))); }
} // namespace

extern "C" {
int hipblasLtCreate(void **H) {
  if (!H)
    return Invalid;
  *H = new int(0);
  return Ok;
}
int hipblasLtDestroy(void *H) {
  delete static_cast<int *>(H);
  return Ok;
}
int hipblasLtMatrixLayoutCreate(void **Out, int Type, uint64_t Rows, uint64_t Cols, int64_t Ld) {
  *Out = new Layout{Type, Rows, Cols, Ld};
  return Ok;
}
int hipblasLtMatrixLayoutDestroy(void *L) {
  delete static_cast<Layout *>(L);
  return Ok;
}
int hipblasLtMatrixLayoutSetAttribute(void *Lp, int Attr, const void *Buf, size_t Size) {
  auto &L = *static_cast<Layout *>(Lp);
  switch (Attr) {
  case 0: return set(L.Batch, Buf, Size);
  case 1: return set(L.Stride, Buf, Size);
  case 3: return set(L.Order, Buf, Size);
  default: return Invalid;
  }
}
int hipblasLtMatmulDescCreate(void **Out, int Compute, int Scale) {
  *Out = new Desc{Compute, Scale};
  return Ok;
}
int hipblasLtMatmulDescDestroy(void *D) {
  delete static_cast<Desc *>(D);
  return Ok;
}
int hipblasLtMatmulDescSetAttribute(void *Dp, int Attr, const void *Buf, size_t Size) {
  auto &D = *static_cast<Desc *>(Dp);
  int R;
  switch (Attr) {
  case 0: R = set(D.TransA, Buf, Size); return R ? R : D.TransA < 111 || D.TransA > 113 ? Invalid : Ok;
  case 1: R = set(D.TransB, Buf, Size); return R ? R : D.TransB < 111 || D.TransB > 113 ? Invalid : Ok;
  case 2: return set(D.Epilogue, Buf, Size);
  case 3: return set(D.Bias, Buf, Size);
  case 4: return set(D.BiasType, Buf, Size);
  case 10: return set(D.Aux, Buf, Size);
  case 11: return set(D.AuxLd, Buf, Size);
  case 12: return set(D.AuxStride, Buf, Size);
  case 13: return set(D.PointerMode, Buf, Size);
  default: return Invalid;
  }
}
int hipblasLtMatmulPreferenceCreate(void **Out) {
  *Out = new Pref;
  return Ok;
}
int hipblasLtMatmulPreferenceDestroy(void *P) {
  delete static_cast<Pref *>(P);
  return Ok;
}
int hipblasLtMatmulPreferenceSetAttribute(void *P, int Attr, const void *Buf, size_t Size) {
  return Attr == 1 ? set(static_cast<Pref *>(P)->MaxWorkspace, Buf, Size) : Invalid;
}
int hipblasLtMatmulAlgoGetHeuristic(void *, void *Dp, void *, void *, void *, void *, void *Pp, int Requested,
                                    Result *Out, int *Returned) {
  auto &D = *static_cast<Desc *>(Dp);
  if (D.Compute != 2 || D.Scale != 0) // f32 compute (HIPBLAS_COMPUTE_32F) and scale only
    return NotSupported;
  uint64_t Max = static_cast<Pref *>(Pp)->MaxWorkspace;
  *Returned = 0;
  for (int Id = 1; Id <= 2 && *Returned < Requested; ++Id) {
    size_t Need = Id == 2 ? 4096 : 0;
    if (Need > Max)
      continue;
    Result &R = Out[(*Returned)++];
    std::memset(&R, 0, sizeof R);
    R.Algo[0] = static_cast<uint8_t>(Id);
    R.WorkspaceSize = Need;
    R.Waves = 0.5f * Id;
  }
  return Ok;
}
int hipblasLtMatmul(void *, void *Dp, const void *Alpha, const void *A, void *Ap, const void *B, void *Bp,
                    const void *Beta, const void *C, void *Cp, void *Dm, void *Dl, const void *Algo, void *,
                    size_t WsBytes, void *Stream) {
  auto &D = *static_cast<Desc *>(Dp);
  auto &La = *static_cast<Layout *>(Ap), &Lb = *static_cast<Layout *>(Bp), &Lc = *static_cast<Layout *>(Cp),
       &Ld = *static_cast<Layout *>(Dl);
  int Id = Algo ? static_cast<const uint8_t *>(Algo)[0] : 0;
  if (La.Type || Lb.Type || Lc.Type || Ld.Type || D.PointerMode || Id < 1 || Id > 2 || (Id == 2 && WsBytes < 4096))
    return NotSupported;
  ++Calls;
  LastAlgo = Id;
  LastStream = Stream;
  float Al = *static_cast<const float *>(Alpha), Be = *static_cast<const float *>(Beta);
  bool Ta = D.TransA != 111, Tb = D.TransB != 111;
  uint64_t M = Ld.Rows, N = Ld.Cols, K = Ta ? La.Rows : La.Cols;
  bool Bias = D.Epilogue & 4, Relu = D.Epilogue & 2, Gelu = D.Epilogue & 32, AuxOut = D.Epilogue & 128;
  for (int64_t Bt = 0; Bt < std::max(1, Ld.Batch); ++Bt)
    for (uint64_t J = 0; J < N; ++J)
      for (uint64_t I = 0; I < M; ++I) {
        double S = 0;
        for (uint64_t L = 0; L < K; ++L)
          S += double(Ta ? at(static_cast<const float *>(A), La, L, I, Bt) : at(static_cast<const float *>(A), La, I, L, Bt)) *
               (Tb ? at(static_cast<const float *>(B), Lb, J, L, Bt) : at(static_cast<const float *>(B), Lb, L, J, Bt));
        float X = float(Al * S + (Be != 0 ? Be * at(static_cast<const float *>(C), Lc, I, J, Bt) : 0));
        if (Bias)
          X += static_cast<const float *>(D.Bias)[I];
        if (AuxOut && Gelu)
          static_cast<float *>(D.Aux)[Bt * D.AuxStride + J * D.AuxLd + I] = X;
        if (Relu)
          X = std::max(X, 0.f);
        if (Gelu)
          X = gelu(X);
        atW(static_cast<float *>(Dm), Ld, I, J, Bt) = X;
      }
  return Ok;
}

// For the test: how many matmuls ran here, the last one's algorithm id and stream.
int fakeHipblasLtCalls() { return Calls; }
int fakeHipblasLtLastAlgo() { return LastAlgo; }
void *fakeHipblasLtLastStream() { return LastStream; }
}
