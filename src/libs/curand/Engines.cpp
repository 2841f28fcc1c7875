//===- Engines.cpp - cuRAND's generators, computed on the host -------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file XORWOW (Marsaglia's xorshift with a Weyl sequence), MRG32k3a
/// (L'Ecuyer's combined multiple recursive generator) and Philox4x32-10
/// (Salmon et al., counter based), seeded and split into subsequences as the
/// cuRAND device API documents, with our own jump-ahead: GF(2) matrix powers
/// for XORWOW, 3x3 matrix powers modulo m1/m2 for MRG32k3a. The conversions
/// to floating point are the documented cuRAND formulas, evaluated on the host
/// as NVIDIA's host generator does (compiled without FP contraction).
#include "libs/curand/Engines.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace zluda::curand {
namespace {

constexpr float Inv32 = 2.3283064e-10f;
constexpr float Inv32TwoPi = 2.3283064e-10f * 6.2831855f;
constexpr double Inv53 = 1.1102230246251565e-16;
constexpr double Pi = 3.1415926535897932;

float uniformF(uint32_t X) { return X * Inv32 + Inv32 / 2.0f; }
double uniformHq(uint32_t X, uint32_t Y) {
  uint64_t Z = uint64_t(X) ^ (uint64_t(Y) << 21);
  return Z * Inv53 + Inv53 / 2.0;
}
void boxMuller(uint32_t X, uint32_t Y, float &A, float &B) {
  float U = X * Inv32 + Inv32 / 2;
  float V = Y * Inv32TwoPi + Inv32TwoPi / 2;
  float S = sqrtf(-2.0f * logf(U));
  A = sinf(V) * S;
  B = cosf(V) * S;
}
void boxMullerD(uint32_t X0, uint32_t X1, uint32_t Y0, uint32_t Y1, double &A, double &B) {
  uint64_t Zx = uint64_t(X0) ^ (uint64_t(X1) << 21);
  double U = Zx * Inv53 + Inv53 / 2.0;
  uint64_t Zy = uint64_t(Y0) ^ (uint64_t(Y1) << 21);
  double V = Zy * (Inv53 * 2.0) + Inv53;
  double S = std::sqrt(-2.0 * std::log(U));
  A = std::sin(V * Pi) * S;
  B = std::cos(V * Pi) * S;
}

/// How many raw values one output unit draws, and how many outputs it makes.
struct Shape {
  unsigned Raws, Outs;
};

//===----------------------------------------------------------------------===//
// Output conversions of the 32-bit generators (XORWOW, Philox).
//===----------------------------------------------------------------------===//
Shape bitsShape(Kind K) {
  switch (K) {
  case Kind::Bits32:
  case Kind::Bits64:
  case Kind::UniformF:
    return {1, 1};
  case Kind::UniformD:
  case Kind::Poisson:
    return {2, 1};
  case Kind::NormalF:
  case Kind::LogNormalF:
    return {2, 2};
  case Kind::NormalD:
  case Kind::LogNormalD:
    return {4, 2};
  }
  return {1, 1};
}

struct Converter {
  const Request &R;
  const SquareHistogram *Hist;
  void *Out;
  size_t N;
  /// Unit Q of the call from raw values \p X (32-bit generators).
  void bits(size_t Q, const uint32_t *X) const {
    switch (R.K) {
    case Kind::Bits32:
    case Kind::Bits64: // refused for these generators before it comes here
      static_cast<uint32_t *>(Out)[Q] = X[0];
      return;
    case Kind::UniformF:
      static_cast<float *>(Out)[Q] = uniformF(X[0]);
      return;
    case Kind::UniformD:
      static_cast<double *>(Out)[Q] = uniformHq(X[0], X[1]);
      return;
    case Kind::Poisson:
      static_cast<uint32_t *>(Out)[Q] = poisson(uniformHq(X[0], X[1]));
      return;
    case Kind::NormalF:
    case Kind::LogNormalF: {
      float A, B;
      boxMuller(X[0], X[1], A, B);
      putF(Q * 2, A, B);
      return;
    }
    case Kind::NormalD:
    case Kind::LogNormalD: {
      double A, B;
      boxMullerD(X[0], X[1], X[2], X[3], A, B);
      putD(Q * 2, A, B);
      return;
    }
    }
  }
  unsigned poisson(double U) const {
    if (Hist)
      return drawHistogram(*Hist, U);
    return 0;
  }
  void putF(size_t I, float A, float B) const {
    float M = float(R.Mean), S = float(R.Stddev);
    auto *O = static_cast<float *>(Out);
    float VA = M + S * A, VB = M + S * B;
    if (R.K == Kind::LogNormalF)
      VA = expf(VA), VB = expf(VB);
    if (I < N)
      O[I] = VA;
    if (I + 1 < N)
      O[I + 1] = VB;
  }
  void putD(size_t I, double A, double B) const {
    auto *O = static_cast<double *>(Out);
    double VA = R.Mean + R.Stddev * A, VB = R.Mean + R.Stddev * B;
    if (R.K == Kind::LogNormalD)
      VA = std::exp(VA), VB = std::exp(VB);
    if (I < N)
      O[I] = VA;
    if (I + 1 < N)
      O[I + 1] = VB;
  }
};

//===----------------------------------------------------------------------===//
// XORWOW
//===----------------------------------------------------------------------===//
struct Xorwow {
  uint32_t V[5];
  uint32_t D;
  uint32_t next() {
    uint32_t T = V[0] ^ (V[0] >> 2);
    V[0] = V[1];
    V[1] = V[2];
    V[2] = V[3];
    V[3] = V[4];
    V[4] = (V[4] ^ (V[4] << 4)) ^ (T ^ (T << 1));
    D += 362437;
    return V[4] + D;
  }
};

/// A linear map of the 160-bit XORWOW state: the image of every basis bit.
struct BitMatrix {
  std::array<std::array<uint64_t, 3>, 160> Col;
  static std::array<uint64_t, 3> pack(const uint32_t V[5]) {
    return {uint64_t(V[0]) | uint64_t(V[1]) << 32, uint64_t(V[2]) | uint64_t(V[3]) << 32, uint64_t(V[4])};
  }
  static void unpack(const std::array<uint64_t, 3> &B, uint32_t V[5]) {
    V[0] = uint32_t(B[0]), V[1] = uint32_t(B[0] >> 32), V[2] = uint32_t(B[1]), V[3] = uint32_t(B[1] >> 32),
    V[4] = uint32_t(B[2]);
  }
  std::array<uint64_t, 3> apply(const std::array<uint64_t, 3> &X) const {
    std::array<uint64_t, 3> R{0, 0, 0};
    for (unsigned W = 0; W < 3; ++W)
      for (uint64_t Bits = X[W]; Bits; Bits &= Bits - 1) {
        const auto &C = Col[W * 64 + __builtin_ctzll(Bits)];
        R[0] ^= C[0], R[1] ^= C[1], R[2] ^= C[2];
      }
    return R;
  }
  BitMatrix square() const {
    BitMatrix R;
    for (unsigned J = 0; J < 160; ++J)
      R.Col[J] = apply(Col[J]);
    return R;
  }
};

/// Powers 2^i of the one-step XORWOW map, i = 0..67 (2^67 is a subsequence).
const std::vector<BitMatrix> &xorwowPowers() {
  static const std::vector<BitMatrix> P = [] {
    std::vector<BitMatrix> R(68);
    for (unsigned J = 0; J < 160; ++J) {
      Xorwow S{};
      S.V[J / 32] = 1u << (J % 32);
      S.next();
      R[0].Col[J] = BitMatrix::pack(S.V);
    }
    for (unsigned I = 1; I < 68; ++I)
      R[I] = R[I - 1].square();
    return R;
  }();
  return P;
}

void jump(Xorwow &S, uint64_t N) {
  if (N < 64) {
    while (N--)
      S.next();
    return;
  }
  const auto &P = xorwowPowers();
  auto B = BitMatrix::pack(S.V);
  for (unsigned I = 0; I < 64; ++I)
    if (N >> I & 1)
      B = P[I].apply(B);
  BitMatrix::unpack(B, S.V);
  S.D += uint32_t(362437u * N);
}

//===----------------------------------------------------------------------===//
// MRG32k3a
//===----------------------------------------------------------------------===//
constexpr uint64_t M1 = 4294967087u, M2 = 4294944443u;
using Mat3 = std::array<std::array<uint64_t, 3>, 3>;

Mat3 mul(const Mat3 &A, const Mat3 &B, uint64_t M) {
  Mat3 R{};
  for (int I = 0; I < 3; ++I)
    for (int J = 0; J < 3; ++J) {
      uint64_t S = 0;
      for (int K = 0; K < 3; ++K)
        S = (S + (A[I][K] * B[K][J]) % M) % M;
      R[I][J] = S;
    }
  return R;
}
void apply(const Mat3 &A, uint32_t S[3], uint64_t M) {
  uint64_t R[3];
  for (int I = 0; I < 3; ++I) {
    uint64_t T = 0;
    for (int K = 0; K < 3; ++K)
      T = (T + (A[I][K] * S[K]) % M) % M;
    R[I] = T;
  }
  for (int I = 0; I < 3; ++I)
    S[I] = uint32_t(R[I]);
}

struct Mrg {
  uint32_t S1[3], S2[3];
  /// The integer p1 - p2 (mod m1, in 1..m1): the double the device API's
  /// curand_MRG32k3a returns.
  uint32_t next() {
    int64_t P1 = (1403580 * int64_t(S1[1]) - 810728 * int64_t(S1[0])) % int64_t(M1);
    if (P1 < 0)
      P1 += M1;
    S1[0] = S1[1], S1[1] = S1[2], S1[2] = uint32_t(P1);
    int64_t P2 = (527612 * int64_t(S2[2]) - 1370589 * int64_t(S2[0])) % int64_t(M2);
    if (P2 < 0)
      P2 += M2;
    S2[0] = S2[1], S2[1] = S2[2], S2[2] = uint32_t(P2);
    return P1 > P2 ? uint32_t(P1 - P2) : uint32_t(P1 - P2 + M1);
  }
};

/// Powers 2^i of the two component matrices, i = 0..76 (2^76: a subsequence).
const std::vector<std::pair<Mat3, Mat3>> &mrgPowers() {
  static const std::vector<std::pair<Mat3, Mat3>> P = [] {
    std::vector<std::pair<Mat3, Mat3>> R(77);
    R[0].first = Mat3{{{0, 1, 0}, {0, 0, 1}, {M1 - 810728, 1403580, 0}}};
    R[0].second = Mat3{{{0, 1, 0}, {0, 0, 1}, {M2 - 1370589, 0, 527612}}};
    for (unsigned I = 1; I < 77; ++I)
      R[I] = {mul(R[I - 1].first, R[I - 1].first, M1), mul(R[I - 1].second, R[I - 1].second, M2)};
    return R;
  }();
  return P;
}

void jump(Mrg &S, uint64_t N) {
  if (N < 64) {
    while (N--)
      S.next();
    return;
  }
  const auto &P = mrgPowers();
  for (unsigned I = 0; I < 64; ++I)
    if (N >> I & 1) {
      apply(P[I].first, S.S1, M1);
      apply(P[I].second, S.S2, M2);
    }
}

constexpr double MrgNorm = 2.3283065498378288e-10;
constexpr double MrgBitsNorm = 1.000000048662;

Shape mrgShape(Kind K) {
  switch (K) {
  case Kind::Bits32:
  case Kind::UniformF:
  case Kind::UniformD:
  case Kind::Poisson:
    return {1, 1};
  default:
    return {2, 2};
  }
}

void mrgConvert(const Converter &C, size_t Q, const uint32_t *X) {
  switch (C.R.K) {
  case Kind::Bits32:
  case Kind::Bits64: // refused before it comes here
    static_cast<uint32_t *>(C.Out)[Q] = uint32_t(double(X[0]) * MrgBitsNorm);
    return;
  case Kind::UniformF:
    static_cast<float *>(C.Out)[Q] = float(X[0] * MrgNorm);
    return;
  case Kind::UniformD:
    static_cast<double *>(C.Out)[Q] = X[0] * MrgNorm;
    return;
  case Kind::Poisson:
    static_cast<uint32_t *>(C.Out)[Q] = C.poisson(X[0] * MrgNorm);
    return;
  case Kind::NormalF:
  case Kind::LogNormalF: {
    float U = float(X[0] * MrgNorm);
    float V = float(X[1] * MrgNorm) * 6.2831855f;
    float S = sqrtf(-2.0f * logf(U));
    C.putF(Q * 2, sinf(V) * S, cosf(V) * S);
    return;
  }
  case Kind::NormalD:
  case Kind::LogNormalD: {
    double U = X[0] * MrgNorm;
    double V = X[1] * MrgNorm * 2.0;
    double S = std::sqrt(-2.0 * std::log(U));
    C.putD(Q * 2, std::sin(V * Pi) * S, std::cos(V * Pi) * S);
    return;
  }
  }
}

//===----------------------------------------------------------------------===//
// Lane generators (XORWOW, MRG32k3a)
//===----------------------------------------------------------------------===//

template <typename Lane, bool IsMrg> class LaneEngine final : public Engine {
public:
  LaneEngine(std::vector<Lane> Base) : Base(std::move(Base)), Cache(this->Base), Pos(this->Base.size(), 0) {}

  void generate(const Position &P, size_t N, const Request &R, void *Out) override {
    const uint64_t T = Base.size();
    const Shape Sh = IsMrg ? mrgShape(R.K) : bitsShape(R.K);
    const size_t Units = (N + Sh.Outs - 1) / Sh.Outs;
    SquareHistogram Hist;
    if (R.K == Kind::Poisson)
      Hist = makePoissonHistogram(R.Lambda);
    Converter C{R, R.K == Kind::Poisson ? &Hist : nullptr, Out, N};
    const uint64_t Lanes = std::min<uint64_t>(T, Units);
    std::lock_guard<std::mutex> G(Mu);
    auto Run = [&](uint64_t From, uint64_t To) { // lanes in unit order, From..To of the Lanes used
      uint32_t X[4];
      for (uint64_t I = From; I < To; ++I) {
        const uint64_t L = (P.NextLane + I) % T; // unit I is this lane's first
        const uint64_t Start = P.at(L);
        Lane S = seekLane(L, Start);
        uint64_t Drawn = 0;
        for (uint64_t Q = I; Q < Units; Q += T) {
          for (unsigned K = 0; K < Sh.Raws; ++K)
            X[K] = S.next();
          Drawn += Sh.Raws;
          if constexpr (IsMrg)
            mrgConvert(C, Q, X);
          else
            C.bits(Q, X);
        }
        Cache[L] = S;
        Pos[L] = Start + Drawn;
      }
    };
    // Whole cache lines of output a worker.
    splitRange(0, Lanes, workersFor(Units * Sh.Raws, 1u << 17), 64, Run);
  }

  void seek(Position &P, uint64_t O) const override {
    const uint64_t T = Base.size();
    P.Offset = O;
    P.NextLane = O % T;
    P.Runs.clear();
    if (O % T)
      P.Runs.push_back({0, O / T + 1});
    P.Runs.push_back({O % T, O / T});
  }

  void advance(Position &P, size_t N, Kind K) const override {
    const uint64_t T = Base.size();
    const Shape Sh = IsMrg ? mrgShape(K) : bitsShape(K);
    const uint64_t Units = (N + Sh.Outs - 1) / Sh.Outs;
    // Every lane drew Raws per whole round; lanes [Next, Next + Rem) one more unit.
    const uint64_t Rounds = Units / T, Rem = Units % T;
    std::vector<uint64_t> Cuts{0, P.NextLane, (P.NextLane + Rem) % T};
    for (auto &R : P.Runs)
      Cuts.push_back(R.first);
    std::sort(Cuts.begin(), Cuts.end());
    Cuts.erase(std::unique(Cuts.begin(), Cuts.end()), Cuts.end());
    std::vector<std::pair<uint64_t, uint64_t>> Runs;
    for (uint64_t Cut : Cuts) {
      bool Drew = Rem && ((Cut - P.NextLane + T) % T) < Rem;
      uint64_t V = P.at(Cut) + Sh.Raws * (Rounds + (Drew ? 1 : 0));
      if (Runs.empty() || Runs.back().second != V)
        Runs.push_back({Cut, V});
    }
    P.Runs = std::move(Runs);
    P.NextLane = (P.NextLane + Rem) % T;
    P.Offset += N;
  }

private:
  Lane seekLane(uint64_t L, uint64_t P) {
    if (Pos[L] <= P && P - Pos[L] < 256) {
      Lane S = Cache[L];
      for (uint64_t I = Pos[L]; I < P; ++I)
        S.next();
      return S;
    }
    Lane S = Base[L];
    jump(S, P);
    return S;
  }
  std::vector<Lane> Base;  ///< lane t at position 0: subsequence t
  std::vector<Lane> Cache; ///< lane t where the last call left it
  std::vector<uint64_t> Pos;
  std::mutex Mu;
};

/// XORWOW's state from a seed (curand_init's, subsequence and offset 0).
Xorwow xorwowState(uint64_t Seed) {
  uint32_t S0 = uint32_t(Seed) ^ 0xaad26b49u, S1 = uint32_t(Seed >> 32) ^ 0xf7dcefddu;
  uint32_t T0 = 1099087573u * S0, T1 = 2591861531u * S1;
  Xorwow S;
  S.D = 6615241u + T1 + T0;
  S.V[0] = 123456789u + T0;
  S.V[1] = 362436069u ^ T0;
  S.V[2] = 521288629u + T1;
  S.V[3] = 88675123u ^ T1;
  S.V[4] = 5783321u + T0;
  return S;
}

/// XORWOW's 4,096 lanes: subsequence t of the seed (the default ordering) or, with \p Seeded
/// (CURAND_ORDERING_PSEUDO_SEEDED), lane t seeded with seed + 3,133,713 t (observed against NVIDIA's host
/// generator), no subsequence jumps.
std::shared_ptr<Engine> makeXorwow(uint64_t Seed, bool Seeded) {
  std::vector<Xorwow> Base(4096);
  if (Seeded) {
    for (size_t T = 0; T < Base.size(); ++T)
      Base[T] = xorwowState(Seed + 3133713ull * T);
    return std::make_shared<LaneEngine<Xorwow, false>>(std::move(Base));
  }
  Xorwow S = xorwowState(Seed);
  const BitMatrix &Sub = xorwowPowers()[67];
  auto B = BitMatrix::pack(S.V);
  for (auto &L : Base) {
    L.D = S.D; // 362437 * 2^67 is 0 modulo 2^32
    BitMatrix::unpack(B, L.V);
    B = Sub.apply(B);
  }
  return std::make_shared<LaneEngine<Xorwow, false>>(std::move(Base));
}

std::shared_ptr<Engine> makeMrg(uint64_t Seed, size_t Lanes) {
  Mrg S;
  for (int I = 0; I < 3; ++I)
    S.S1[I] = S.S2[I] = 12345u;
  if (Seed) {
    uint64_t X1 = uint32_t(Seed) ^ 0x55555555u, X2 = uint32_t((Seed >> 32) ^ 0xAAAAAAAAu);
    S.S1[0] = uint32_t(X1 * 12345 % M1), S.S1[1] = uint32_t(X2 * 12345 % M1), S.S1[2] = uint32_t(X1 * 12345 % M1);
    S.S2[0] = uint32_t(X2 * 12345 % M2), S.S2[1] = uint32_t(X1 * 12345 % M2), S.S2[2] = uint32_t(X2 * 12345 % M2);
  }
  const auto &Sub = mrgPowers()[76];
  std::vector<Mrg> Base(Lanes);
  for (auto &L : Base) {
    L = S;
    apply(Sub.first, S.S1, M1);
    apply(Sub.second, S.S2, M2);
  }
  return std::make_shared<LaneEngine<Mrg, true>>(std::move(Base));
}

//===----------------------------------------------------------------------===//
// Philox4x32-10
//===----------------------------------------------------------------------===//
/// Philox4x32-10's ten rounds on \p N counters at once (structure of
/// arrays: counter I is C0[I]..C3[I], key K0, K1): the rounds of independent
/// counters interleave (and vectorize), where one counter's rounds are a
/// chain of dependent multiplications.
template <unsigned N> void philoxMany(uint32_t (&C0)[N], uint32_t (&C1)[N], uint32_t (&C2)[N], uint32_t (&C3)[N],
                                      uint32_t K0, uint32_t K1) {
  for (int R = 0; R < 10; ++R) {
    for (unsigned I = 0; I < N; ++I) {
      uint64_t P0 = uint64_t(0xD2511F53u) * C0[I], P1 = uint64_t(0xCD9E8D57u) * C2[I];
      uint32_t N0 = uint32_t(P1 >> 32) ^ C1[I] ^ K0, N2 = uint32_t(P0 >> 32) ^ C3[I] ^ K1;
      C0[I] = N0, C1[I] = uint32_t(P1), C2[I] = N2, C3[I] = uint32_t(P0);
    }
    K0 += 0x9E3779B9u, K1 += 0xBB67AE85u;
  }
}

class PhiloxEngine final : public Engine {
public:
  explicit PhiloxEngine(uint64_t Seed) : K0(uint32_t(Seed)), K1(uint32_t(Seed >> 32)) {}
  void generate(const Position &Pos, size_t N, const Request &R, void *Out) override {
    const uint64_t O = Pos.Offset;
    const Shape Sh = bitsShape(R.K);
    // Four outputs a group, from one counter (or two where a value takes two
    // raw values); group g is lane g mod 65536.
    const unsigned PerGroup = 4, CPG = Sh.Raws / Sh.Outs;
    const uint64_t T = 65536;
    SquareHistogram Hist;
    if (R.K == Kind::Poisson)
      Hist = makePoissonHistogram(R.Lambda);
    auto Run = [&](uint64_t GFrom, uint64_t GTo) {
      alignas(16) unsigned char Tmp[4 * sizeof(double)];
      Converter L{R, R.K == Kind::Poisson ? &Hist : nullptr, Tmp, PerGroup};
      const size_t Sz = valueBytes(R.K);
      constexpr unsigned B = 16; // counters a batch
      const unsigned GroupsPerBatch = B / CPG;
      for (uint64_t GB = GFrom; GB < GTo; GB += GroupsPerBatch) {
        const unsigned Nb = unsigned(std::min<uint64_t>(GroupsPerBatch, GTo - GB));
        uint32_t C0[B], C1[B], C2[B], C3[B];
        for (unsigned I = 0; I < Nb; ++I) {
          // The lane's first counter is where the offset puts it (one counter
          // per group below the offset, whatever the kind); then CPG a group.
          const uint64_t G = GB + I, Lane = G % T, G0 = O / PerGroup;
          const uint64_t First = G0 + (Lane + T - G0 % T) % T; // the lane's first group of the call
          const uint64_t Ctr = G0 / T + (Lane < G0 % T ? 1 : 0) + (G - First) / T * CPG;
          for (unsigned J = 0; J < CPG; ++J) {
            const uint64_t C = Ctr + J;
            const unsigned K = I * CPG + J;
            C0[K] = uint32_t(C), C1[K] = uint32_t(C >> 32), C2[K] = uint32_t(Lane), C3[K] = 0;
          }
        }
        philoxMany(C0, C1, C2, C3, K0, K1);
        for (unsigned I = 0; I < Nb; ++I) {
          const uint64_t G = GB + I;
          uint32_t X[8];
          for (unsigned J = 0; J < CPG; ++J) {
            const unsigned K = I * CPG + J;
            X[4 * J] = C0[K], X[4 * J + 1] = C1[K], X[4 * J + 2] = C2[K], X[4 * J + 3] = C3[K];
          }
          for (unsigned U = 0; U < PerGroup / Sh.Outs; ++U)
            L.bits(U, X + U * Sh.Raws);
          // Copy the group's outputs that fall in [O, O + N).
          const uint64_t P0 = G * PerGroup;
          if (P0 >= O && P0 + PerGroup <= O + N) {
            std::memcpy(static_cast<unsigned char *>(Out) + (P0 - O) * Sz, Tmp, PerGroup * Sz);
            continue;
          }
          for (unsigned E = 0; E < PerGroup; ++E) {
            uint64_t P = P0 + E;
            if (P >= O && P < O + N)
              std::memcpy(static_cast<unsigned char *>(Out) + (P - O) * Sz, Tmp + E * Sz, Sz);
          }
        }
      }
    };
    splitRange(O / PerGroup, (O + N + PerGroup - 1) / PerGroup, workersFor(N, 1u << 17), 1, Run);
  }

private:
  static size_t valueBytes(Kind K) {
    return K == Kind::UniformD || K == Kind::NormalD || K == Kind::LogNormalD ? 8 : 4;
  }
  uint32_t K0, K1;
};

} // namespace

unsigned workersFor(uint64_t Work, uint64_t MinPer) {
  const uint64_t HW = std::min(16u, std::max(1u, std::thread::hardware_concurrency()));
  return unsigned(std::min<uint64_t>(HW, std::max<uint64_t>(1, Work / std::max<uint64_t>(MinPer, 1))));
}

void splitRange(uint64_t Begin, uint64_t End, unsigned Workers, uint64_t Align,
                const std::function<void(uint64_t, uint64_t)> &Fn) {
  if (End <= Begin)
    return;
  const uint64_t N = End - Begin;
  uint64_t Per = (N + std::max(Workers, 1u) - 1) / std::max(Workers, 1u);
  Per = (Per + Align - 1) / Align * Align;
  if (Workers <= 1 || Per >= N)
    return Fn(Begin, End);
  std::vector<std::thread> Ts;
  for (uint64_t B = Begin; B < End; B += Per)
    Ts.emplace_back(Fn, B, std::min(End, B + Per));
  for (auto &T : Ts)
    T.join();
}

uint64_t Position::at(uint64_t Lane) const {
  uint64_t V = 0;
  for (const auto &R : Runs) {
    if (R.first > Lane)
      break;
    V = R.second;
  }
  return V;
}

std::shared_ptr<Engine> makeEngine(int RngType, uint64_t Seed, bool Legacy, bool Seeded) {
  switch (RngType) {
  case 100:
  case 101:
    return makeXorwow(Seed, Seeded);
  case 121:
    return makeMrg(Seed, Legacy ? 4096 : 81920);
  case 161:
    return std::make_shared<PhiloxEngine>(Seed);
  default:
    return nullptr;
  }
}

SquareHistogram makePoissonHistogram(double Lambda) {
  // The Poisson probabilities over [Lo, Hi], where the tails outside hold
  // less than 2^-60 of the mass; then Robin Hood pairing into a square
  // histogram of equal columns 1/n.
  double Sd = std::sqrt(Lambda);
  long Lo = std::max(0L, long(std::floor(Lambda - 12 * Sd - 8)));
  long Hi = long(std::ceil(Lambda + 12 * Sd + 16));
  std::vector<double> P(size_t(Hi - Lo + 1));
  for (long I = Lo; I <= Hi; ++I)
    P[size_t(I - Lo)] = std::exp(I * std::log(Lambda) - Lambda - std::lgamma(double(I) + 1));
  double Sum = 0;
  for (double X : P)
    Sum += X;
  for (double &X : P)
    X /= Sum;
  SquareHistogram H;
  H.Shift = unsigned(Lo);
  H.Length = unsigned(P.size());
  H.V.reset(new double[H.Length]);
  H.K.reset(new unsigned[H.Length]);
  const double A = 1.0 / H.Length;
  for (unsigned I = 0; I < H.Length; ++I) {
    H.K[I] = I;
    H.V[I] = (I + 1) * A;
  }
  // Vose's pairing: each column under 1/n is topped up from one above it.
  std::vector<double> Q = P;
  std::vector<unsigned> Small, Large;
  for (unsigned I = 0; I < H.Length; ++I)
    (Q[I] < A ? Small : Large).push_back(I);
  while (!Small.empty() && !Large.empty()) {
    unsigned J = Small.back(), K = Large.back();
    Small.pop_back();
    H.K[J] = K;
    H.V[J] = J * A + Q[J];
    Q[K] -= A - Q[J];
    if (Q[K] < A) {
      Large.pop_back();
      Small.push_back(K);
    }
  }
  return H;
}

} // namespace zluda::curand
