//===- FakeRocfft.cpp - a rocFFT for testing our cuFFT on AMD --------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The rocFFT entry points our cuFFT loads, with rocFFT's signatures
/// and enum values. The test HIP runtime's device memory is host memory, so
/// executions compute for real, by the naive multi-dimensional DFT over the
/// plan description's strides and distances (lengths fastest dimension
/// first; complex forward and inverse, unnormalized; real forward to the
/// Hermitian half, real inverse from it; single and double precision): a
/// test checks that our library described cuFFT's layouts as rocFFT means
/// them. Every plan asks for a 512-byte work buffer and an execution without
/// one fails; executions and the last stream are recorded for the test.
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace {
using Z = std::complex<long double>;
constexpr int Ok = 0, Failure = 1, InvalidArg = 2, InvalidWorkBuffer = 8;
constexpr size_t WorkNeed = 512;

struct Description {
  int InType = 5, OutType = 5; // unset
  std::vector<size_t> InStrides, OutStrides;
  size_t InDist = 0, OutDist = 0;
};
struct Plan {
  int Placement, Kind, Precision;
  std::vector<size_t> Len;
  size_t Count;
  Description D;
};
struct Info {
  void *Stream = nullptr;
  void *Work = nullptr;
  size_t WorkBytes = 0;
};
int Executions = 0;
void *LastStream = nullptr;
bool Ready = false;

/// Default strides: packed, in elements of the side (real, or complex with the
/// first length halved for the Hermitian side).
std::vector<size_t> packed(const std::vector<size_t> &Len) {
  std::vector<size_t> S(Len.size());
  size_t P = 1;
  for (size_t K = 0; K < Len.size(); ++K)
    S[K] = P, P *= Len[K];
  return S;
}

template <typename F> Z load(const void *B, bool Complex, size_t At) {
  const F *P = static_cast<const F *>(B);
  return Complex ? Z(P[2 * At], P[2 * At + 1]) : Z(P[At], 0);
}
template <typename F> void store(void *B, bool Complex, size_t At, Z V) {
  F *P = static_cast<F *>(B);
  if (Complex)
    P[2 * At] = F(V.real()), P[2 * At + 1] = F(V.imag());
  else
    P[At] = F(V.real());
}

template <typename F> void execute(const Plan &P, void *In, void *Out) {
  const size_t R = P.Len.size();
  const bool RealIn = P.Kind == 2, RealOut = P.Kind == 3;
  std::vector<size_t> InLen = P.Len, OutLen = P.Len; // element extents of each side
  if (RealIn)
    OutLen[0] = P.Len[0] / 2 + 1;
  if (RealOut)
    InLen[0] = P.Len[0] / 2 + 1;
  const long double Sign = P.Kind == 0 || P.Kind == 2 ? -1 : 1;
  size_t Total = 1;
  for (size_t L : P.Len)
    Total *= L;
  auto index = [&](size_t Flat, const std::vector<size_t> &Len, std::vector<size_t> &Idx) {
    for (size_t K = 0; K < R; ++K)
      Idx[K] = Flat % Len[K], Flat /= Len[K];
  };
  auto offset = [&](const std::vector<size_t> &Idx, const std::vector<size_t> &Strides) {
    size_t O = 0;
    for (size_t K = 0; K < R; ++K)
      O += Idx[K] * Strides[K];
    return O;
  };
  std::vector<size_t> Xi(R), Ki(R);
  for (size_t B = 0; B < P.Count; ++B) {
    // The full logical input (a real inverse's from Hermitian symmetry).
    std::vector<Z> X(Total);
    for (size_t F0 = 0; F0 < Total; ++F0) {
      index(F0, P.Len, Xi);
      if (RealOut && Xi[0] >= InLen[0]) { // X[n] = conj(X[-n])
        std::vector<size_t> Mi(R);
        for (size_t K = 0; K < R; ++K)
          Mi[K] = (P.Len[K] - Xi[K]) % P.Len[K];
        X[F0] = std::conj(load<F>(In, true, B * P.D.InDist + offset(Mi, P.D.InStrides)));
      } else {
        X[F0] = load<F>(In, !RealIn, B * P.D.InDist + offset(Xi, P.D.InStrides));
      }
    }
    std::vector<Z> Y(Total);
    for (size_t F1 = 0; F1 < Total; ++F1) {
      index(F1, P.Len, Ki);
      if (RealIn && Ki[0] >= OutLen[0])
        continue;
      Z S = 0;
      for (size_t F0 = 0; F0 < Total; ++F0) {
        index(F0, P.Len, Xi);
        long double Phase = 0;
        for (size_t K = 0; K < R; ++K)
          Phase += (long double)(Xi[K] * Ki[K] % P.Len[K]) / P.Len[K];
        const long double A = Sign * 2 * 3.14159265358979323846264338327950288L * Phase;
        S += X[F0] * Z(std::cos(A), std::sin(A));
      }
      Y[F1] = S;
    }
    for (size_t F1 = 0; F1 < Total; ++F1) {
      index(F1, P.Len, Ki);
      if (RealIn && Ki[0] >= OutLen[0])
        continue;
      store<F>(Out, !RealOut, B * P.D.OutDist + offset(Ki, P.D.OutStrides), Y[F1]);
    }
  }
}
} // namespace

extern "C" {
__attribute__((visibility("default"))) int rocfft_setup() {
  Ready = true;
  return Ok;
}
__attribute__((visibility("default"))) int rocfft_plan_description_create(void **D) {
  *D = new Description;
  return Ok;
}
__attribute__((visibility("default"))) int rocfft_plan_description_destroy(void *D) {
  delete static_cast<Description *>(D);
  return Ok;
}
__attribute__((visibility("default"))) int
rocfft_plan_description_set_data_layout(void *Dp, int InType, int OutType, const size_t *InOff, const size_t *OutOff,
                                        size_t InN, const size_t *InStrides, size_t InDist, size_t OutN,
                                        const size_t *OutStrides, size_t OutDist) {
  auto *D = static_cast<Description *>(Dp);
  if ((InOff && InOff[0]) || (OutOff && OutOff[0]))
    return InvalidArg; // offsets are not modelled here
  D->InType = InType, D->OutType = OutType;
  D->InStrides.assign(InStrides, InStrides + InN), D->OutStrides.assign(OutStrides, OutStrides + OutN);
  D->InDist = InDist, D->OutDist = OutDist;
  return Ok;
}
__attribute__((visibility("default"))) int rocfft_plan_create(void **Out, int Placement, int Kind, int Precision,
                                                              size_t Dims, const size_t *Lengths, size_t Count,
                                                              void *Desc) {
  if (!Ready || Dims < 1 || Dims > 3 || Kind < 0 || Kind > 3 || Precision < 0 || Precision > 1)
    return InvalidArg;
  auto *P = new Plan{Placement, Kind, Precision, std::vector<size_t>(Lengths, Lengths + Dims), Count, {}};
  if (Desc)
    P->D = *static_cast<Description *>(Desc);
  // The array types must be the transform's (complex interleaved 0, real 2, Hermitian interleaved 3).
  const int WantIn = Kind == 2 ? 2 : Kind == 3 ? 3 : 0, WantOut = Kind == 2 ? 3 : Kind == 3 ? 2 : 0;
  if (P->D.InType != WantIn || P->D.OutType != WantOut || P->D.InStrides.size() != Dims ||
      P->D.OutStrides.size() != Dims) {
    delete P;
    return InvalidArg;
  }
  *Out = P;
  return Ok;
}
__attribute__((visibility("default"))) int rocfft_plan_destroy(void *P) {
  delete static_cast<Plan *>(P);
  return Ok;
}
__attribute__((visibility("default"))) int rocfft_plan_get_work_buffer_size(void *, size_t *Size) {
  *Size = WorkNeed;
  return Ok;
}
__attribute__((visibility("default"))) int rocfft_execution_info_create(void **I) {
  *I = new Info;
  return Ok;
}
__attribute__((visibility("default"))) int rocfft_execution_info_destroy(void *I) {
  delete static_cast<Info *>(I);
  return Ok;
}
__attribute__((visibility("default"))) int rocfft_execution_info_set_work_buffer(void *I, void *Work, size_t Bytes) {
  static_cast<Info *>(I)->Work = Work, static_cast<Info *>(I)->WorkBytes = Bytes;
  return Ok;
}
__attribute__((visibility("default"))) int rocfft_execution_info_set_stream(void *I, void *Stream) {
  static_cast<Info *>(I)->Stream = Stream;
  return Ok;
}
__attribute__((visibility("default"))) int rocfft_execute(void *Pp, void **In, void **Out, void *Ip) {
  auto *P = static_cast<Plan *>(Pp);
  auto *I = static_cast<Info *>(Ip);
  if (!I || !I->Work || I->WorkBytes < WorkNeed)
    return InvalidWorkBuffer;
  if (!In || !In[0] || (P->Placement == 1 && (!Out || !Out[0])))
    return Failure;
  void *Dst = P->Placement == 0 ? In[0] : Out[0];
  if (P->Precision == 1)
    execute<double>(*P, In[0], Dst);
  else
    execute<float>(*P, In[0], Dst);
  ++Executions;
  LastStream = I->Stream;
  return Ok;
}

// For the test: executions so far and the last execution's stream.
__attribute__((visibility("default"))) int fakeRocfftExecutions() { return Executions; }
__attribute__((visibility("default"))) void *fakeRocfftLastStream() { return LastStream; }
} // extern "C"
