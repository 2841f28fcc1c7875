//===- Sobol.cpp - cuRAND's Sobol32 and Sobol64 quasirandom generators ----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Direction vectors from Joe and Kuo's direction numbers (the table
/// generated at build time by scripts/gen-sobol-table.py) by the Bratley-Fox
/// recurrence, and points in Gray-code order (Antonov-Saleev): point i of a
/// dimension is the XOR of the direction vectors of the set bits of
/// i ^ (i >> 1), point 0 included. A call of n values over d dimensions
/// writes n / d consecutive points of dimension 0, then of dimension 1...;
/// the offset counts points per dimension. The conversions are the device
/// API's for Sobol states: uniform from the high 32 bits, doubles from the
/// high 53, normals by the inverse normal CDF (s * erfcinv(2p), mirrored).
#include "libs/curand/Engines.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <mutex>
#include <vector>

namespace zluda::curand {
namespace {
#include "SobolTable.inc"

/// m_1..m_Bits of dimension \p D (Bits = 32 or 64).
std::vector<uint64_t> directionNumbers(unsigned D, unsigned Bits) {
  std::vector<uint64_t> M(Bits + 1, 1);
  if (D == 0)
    return M; // x: every m is 1
  const unsigned Poly = SobolPoly[D];
  const unsigned S = unsigned(32 - __builtin_clz(Poly)) - 1;
  const unsigned A = (Poly >> 1) & ((1u << (S - 1)) - 1);
  for (unsigned K = 1; K <= S && K <= Bits; ++K)
    M[K] = SobolInit[SobolInitStart[D] + K - 1];
  for (unsigned K = S + 1; K <= Bits; ++K) {
    uint64_t V = M[K - S] ^ (M[K - S] << S);
    for (unsigned I = 1; I < S; ++I)
      if ((A >> (S - 1 - I)) & 1)
        V ^= M[K - I] << I;
    M[K] = V;
  }
  return M;
}

/// erfcinv(Y) to about 1e-9 relative: Acklam's central/tail rational forms of
/// the normal quantile (relative error below 1.15e-9), for Y in (0, 2).
double erfcinvGuess(double Y) {
  // Start from the normal quantile q of p = Y / 2: erfcinv(Y) = -q / sqrt 2.
  const double P = Y / 2;
  const double Pl = P < 0.5 ? P : 1 - P;
  double Q;
  if (Pl < 0.02425) {
    double T = std::sqrt(-2 * std::log(Pl));
    Q = (((((-7.784894002430293e-03 * T - 3.223964580411365e-01) * T - 2.400758277161838e+00) * T -
           2.549732539343734e+00) * T + 4.374664141464968e+00) * T + 2.938163982698783e+00) /
        ((((7.784695709041462e-03 * T + 3.224671290700398e-01) * T + 2.445134137142996e+00) * T +
          3.754408661907416e+00) * T + 1);
  } else {
    double R = Pl - 0.5, T = R * R;
    Q = (((((-3.969683028665376e+01 * T + 2.209460984245205e+02) * T - 2.759285104469687e+02) * T +
           1.383577518672690e+02) * T - 3.066479806614716e+01) * T + 2.506628277459239e+00) * R /
        (((((-5.447609879822406e+01 * T + 1.615858368580409e+02) * T - 1.556989798598866e+02) * T +
           6.680131188771972e+01) * T - 1.328068155288572e+01) * T + 1);
  }
  if (P >= 0.5)
    Q = -Q;
  return -Q / std::sqrt(2.0);
}

/// erfcinv(Y) from a guess \p X by one Halley step on std::erfc, to double precision.
double erfcinvRefine(double X, double Y) {
  // Halley: f(x) = erfc(x) - Y, f' = -2/sqrt(pi) exp(-x^2), f'' = -2x f'; the error's cube follows.
  const double D = -1.1283791670955126 * std::exp(-X * X);
  if (D == 0)
    return X;
  const double T = (std::erfc(X) - Y) / D;
  return X - T / (1 + X * T);
}

/// 0.5 * erfc(z / sqrt 2)'s inverse on (0, 1]: erfcinv, the guess refined to double precision.
double erfcinv(double Y) {
  if (Y <= 0)
    return INFINITY;
  if (Y >= 2)
    return -INFINITY;
  return erfcinvRefine(erfcinvGuess(Y), Y);
}

/// float(erfcinv(Y)): the guess alone where it lies clear of a rounding boundary between two floats (by more
/// than 4e-9 relative, over three times the guess's error bound), so that it rounds as the refined value does;
/// the refined value otherwise (about one value in ten). (The guess rounded regardless would differ from
/// NVIDIA's by an ulp for about one value in 300.)
float erfcinvF(double Y) {
  if (Y <= 0 || Y >= 2)
    return float(erfcinv(Y));
  const double G = erfcinvGuess(Y), A = std::fabs(G);
  const float F = float(A); // rounding is symmetric: the magnitude's neighbours decide
  const uint32_t B = std::bit_cast<uint32_t>(F);
  if (B > 0 && B < 0x7f800000u) {
    const double Margin = 4e-9 * A;
    const double Lo = (double(F) + double(std::bit_cast<float>(B - 1))) / 2;
    const double Hi = (double(F) + double(std::bit_cast<float>(B + 1))) / 2;
    if (A - Lo > Margin && Hi - A > Margin)
      return G < 0 ? -F : F;
  }
  return float(erfcinvRefine(G, Y));
}

} // namespace

float quantileF(uint32_t X) {
  float S = -1.4142135f;
  if (X > 0x80000000u) {
    X = 0xffffffffu - X;
    S = -S;
  }
  float P = X * 2.3283064e-10f + (2.3283064e-10f / 2.0f);
  return S * erfcinvF(double(2.0f * P));
}
double quantileD(uint32_t X) {
  double S = -1.4142135623730951;
  if (X > 0x80000000u) {
    X = 0xffffffffu - X;
    S = -S;
  }
  double P = X * 2.3283064365386963e-10 + (2.3283064365386963e-10 / 2.0);
  return S * erfcinv(2.0 * P);
}
namespace {
double normalD64(uint64_t X) {
  double S = -1.4142135623730951;
  X >>= 11;
  if (X > 0x10000000000000ull) {
    X = 0x1fffffffffffffull - X;
    S = -S;
  }
  double P = X * 1.1102230246251565e-16 + (1.1102230246251565e-16 / 2.0);
  return S * erfcinv(2.0 * P);
}

class SobolEngine final : public Engine {
public:
  SobolEngine(bool Wide, unsigned Dims) : Wide(Wide), Dims(Dims) {}
  void generate(const Position &Pos, size_t N, const Request &R, void *Out) override {
    const uint64_t Points = N / Dims, O = Pos.Offset;
    SquareHistogram Hist;
    if (R.K == Kind::Poisson)
      Hist = makePoissonHistogram(R.Lambda);
    for (unsigned D = 0; D < Dims; ++D) {
      const uint64_t *V = directions(D);
      uint64_t X = 0;
      for (uint64_t G = O ^ (O >> 1), K = 0; G; G >>= 1, ++K)
        if (G & 1)
          X ^= V[K];
      for (uint64_t I = 0; I < Points; ++I) {
        put(R, Hist, Out, D * Points + I, X);
        X ^= V[__builtin_ctzll(O + I + 1)];
      }
    }
  }
  void advance(Position &P, size_t N, Kind) const override { P.Offset += N / Dims; }
  void seek(Position &P, uint64_t O) const override { P.Offset = O; }

private:
  const uint64_t *directions(unsigned D) {
    std::lock_guard<std::mutex> G(Mu);
    if (Cache.size() <= D)
      Cache.resize(D + 1);
    auto &V = Cache[D];
    if (V.empty()) {
      const unsigned Bits = Wide ? 64 : 32;
      auto M = directionNumbers(D, Bits);
      V.resize(64, 0);
      for (unsigned K = 1; K <= Bits; ++K)
        V[K - 1] = M[K] << (Bits - K);
    }
    return V.data();
  }
  void put(const Request &R, const SquareHistogram &Hist, void *Out, uint64_t At, uint64_t X) const {
    const double Mean = R.Mean, Sd = R.Stddev;
    const uint32_t X32 = Wide ? uint32_t(X >> 32) : uint32_t(X);
    switch (R.K) {
    case Kind::Bits32:
      static_cast<uint32_t *>(Out)[At] = uint32_t(X);
      return;
    case Kind::Bits64:
      static_cast<uint64_t *>(Out)[At] = X;
      return;
    case Kind::UniformF:
      static_cast<float *>(Out)[At] = X32 * 2.3283064e-10f + (2.3283064e-10f / 2.0f);
      return;
    case Kind::UniformD:
    case Kind::Poisson: {
      double U = Wide ? (X >> 11) * 1.1102230246251565e-16 + (1.1102230246251565e-16 / 2.0)
                      : uint32_t(X) * 2.3283064365386963e-10 + 2.3283064365386963e-10;
      if (R.K == Kind::Poisson)
        static_cast<uint32_t *>(Out)[At] = drawHistogram(Hist, U);
      else
        static_cast<double *>(Out)[At] = U;
      return;
    }
    case Kind::NormalF:
    case Kind::LogNormalF: {
      float V = float(Mean) + float(Sd) * quantileF(X32);
      static_cast<float *>(Out)[At] = R.K == Kind::LogNormalF ? expf(V) : V;
      return;
    }
    case Kind::NormalD:
    case Kind::LogNormalD: {
      double V = Mean + Sd * (Wide ? normalD64(X) : quantileD(uint32_t(X)));
      static_cast<double *>(Out)[At] = R.K == Kind::LogNormalD ? std::exp(V) : V;
      return;
    }
    }
  }
  bool Wide;
  unsigned Dims;
  std::mutex Mu;
  std::vector<std::vector<uint64_t>> Cache;
};

} // namespace

std::shared_ptr<Engine> makeSobol(bool Wide, unsigned Dims) { return std::make_shared<SobolEngine>(Wide, Dims); }

const unsigned *sobolDirections32() {
  static const std::vector<unsigned> T = [] {
    std::vector<unsigned> R(size_t(SobolDims) * 32);
    for (unsigned D = 0; D < SobolDims; ++D) {
      auto M = directionNumbers(D, 32);
      for (unsigned K = 1; K <= 32; ++K)
        R[size_t(D) * 32 + K - 1] = unsigned(M[K] << (32 - K));
    }
    return R;
  }();
  return T.data();
}

const unsigned long long *sobolDirections64() {
  static const std::vector<unsigned long long> T = [] {
    std::vector<unsigned long long> R(size_t(SobolDims) * 64);
    for (unsigned D = 0; D < SobolDims; ++D) {
      auto M = directionNumbers(D, 64);
      for (unsigned K = 1; K <= 64; ++K)
        R[size_t(D) * 64 + K - 1] = M[K] << (64 - K);
    }
    return R;
  }();
  return T.data();
}

} // namespace zluda::curand
