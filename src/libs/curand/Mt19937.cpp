//===- Mt19937.cpp - cuRAND's MT19937 generator ----------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The Mersenne Twister (Matsumoto and Nishimura's MT19937) in the
/// layout of NVIDIA's host and device generators, as observed against
/// NVIDIA's host generator (docs/STATUS.md):
///  - 8,192 generators. Generator 0 is the standard MT19937 of the seed's low
///    32 bits (init_genrand); generator g is that sequence advanced by
///    g * 2^2048 outputs.
///  - Eight threads share a generator and each block of 624 new words: thread
///    t owns one word of the block (0, 113, 170, 283, 340, 397, 510 or 567
///    for t = 0..7) and seven words from each of eleven runs starting at 1,
///    57, 114, 171, 227, 284, 341, 398, 454, 511 and 568 (words start + 7t to
///    start + 7t + 6). A block is 78 rows of 65,536 values: row 0 holds the
///    single words, row 1 + 7b + j the word j of run b; column 8g + t is
///    thread t of generator g.
///  - Every value takes one word: uniform floats and doubles are x 2^-32 +
///    2^-33 (floats rounded from the double), normals the inverse normal
///    CDF of that uniform (odd counts allowed). Calls continue where the last one stopped; there is no offset.
/// The jump is our own: x^(2^2048) modulo the characteristic polynomial
/// (Mt19937Jumps.cpp, at build time) applied to a state by Horner's rule with
/// 8-bit windows.
#include "libs/curand/Engines.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <vector>

namespace zluda::curand {
namespace {

constexpr unsigned NW = 624, MM = 397;
constexpr unsigned Degree = 19937;
constexpr unsigned Generators = 8192, Threads = 8;
constexpr uint64_t Row = uint64_t(Generators) * Threads; ///< 65,536 values
constexpr unsigned Rows = NW / Threads;                  ///< 78 rows a block
constexpr uint64_t BlockValues = Row * Rows;

uint32_t temper(uint32_t Y) {
  Y ^= Y >> 11;
  Y ^= (Y << 7) & 0x9d2c5680u;
  Y ^= (Y << 15) & 0xefc60000u;
  return Y ^ (Y >> 18);
}

/// Word of a block that row \p R, thread \p T takes.
unsigned wordOf(unsigned R, unsigned T) {
  static constexpr unsigned Single[Threads] = {0, 113, 170, 283, 340, 397, 510, 567};
  static constexpr unsigned Runs[11] = {1, 57, 114, 171, 227, 284, 341, 398, 454, 511, 568};
  if (R == 0)
    return Single[T];
  return Runs[(R - 1) / 7] + 7 * T + (R - 1) % 7;
}

//===----------------------------------------------------------------------===//
// Jump polynomials
//===----------------------------------------------------------------------===//
/// x^(2^(2048 + b)) modulo MT19937's characteristic polynomial, b = 0..12
/// (the jumps by 2^b generators), computed at build time by
/// Mt19937Jumps.cpp: bit i of word i / 64 is the coefficient of x^i.
#include "Mt19937Jumps.inc"

using Poly = const uint64_t *;
bool bit(Poly P, unsigned I) { return P[I / 64] >> (I % 64) & 1; }
int degree(Poly P) {
  for (int I = int(JumpWords) - 1; I >= 0; --I)
    if (P[I])
      return I * 64 + 63 - __builtin_clzll(P[I]);
  return -1;
}

//===----------------------------------------------------------------------===//
// States
//===----------------------------------------------------------------------===//
/// A window of 624 consecutive words x_j .. x_j+623: word i at W[(P + i) % 624].
struct Window {
  uint32_t W[NW];
  unsigned P = 0;
  /// x_j+624 replaces x_j: one step of the recurrence.
  void step() {
    const unsigned P1 = P + 1 == NW ? 0 : P + 1, Pm = P + MM >= NW ? P + MM - NW : P + MM;
    const uint32_t Y = (W[P] & 0x80000000u) | (W[P1] & 0x7fffffffu);
    W[P] = W[Pm] ^ (Y >> 1) ^ ((Y & 1) ? 0x9908b0dfu : 0u);
    P = P1;
  }
  /// this += O, word by word in window order.
  void add(const Window &O) {
    unsigned I = 0;
    while (I < NW) {
      const unsigned A = (P + I) % NW, B = (O.P + I) % NW;
      const unsigned Len = std::min({NW - I, NW - A, NW - B});
      for (unsigned K = 0; K < Len; ++K)
        W[A + K] ^= O.W[B + K];
      I += Len;
    }
  }
  /// The words in window order, x_j first.
  void store(uint32_t *Out) const {
    std::memcpy(Out, W + P, (NW - P) * 4);
    std::memcpy(Out + (NW - P), W, P * 4);
  }
};

/// Poly(T) applied to \p S: Horner's rule on 8-bit windows of the coefficients.
Window jump(const Window &S, Poly J) {
  constexpr unsigned Q = 8;
  std::vector<Window> H(1u << Q);
  std::memset(H[0].W, 0, sizeof H[0].W);
  H[0].P = 0;
  Window Pw = S;
  for (unsigned B = 0; B < Q; ++B) { // H[v] = v(T) S for every v of degree < Q
    for (unsigned V = 0; V < (1u << B); ++V) {
      H[V | 1u << B] = H[V];
      H[V | 1u << B].add(Pw);
    }
    Pw.step();
  }
  Window R;
  std::memset(R.W, 0, sizeof R.W);
  for (int C = degree(J) / int(Q) * int(Q); C >= 0; C -= int(Q)) {
    for (unsigned K = 0; K < Q; ++K)
      R.step();
    unsigned V = 0;
    for (unsigned K = 0; K < Q; ++K)
      V |= unsigned(bit(J, unsigned(C) + K)) << K;
    if (V)
      R.add(H[V]);
  }
  return R;
}

/// The next 624 words of a generator from its last 624 (in place).
void twist(uint32_t *X) {
  for (unsigned I = 0; I < NW; ++I) {
    const uint32_t Y = (X[I] & 0x80000000u) | (X[(I + 1) % NW] & 0x7fffffffu);
    X[I] = X[(I + MM) % NW] ^ (Y >> 1) ^ ((Y & 1) ? 0x9908b0dfu : 0u);
  }
}

/// Fn(A, B) over shares of [0, N), at least MinPer items a thread (splitRange, Engines.h).
template <typename F> void parallel(uint64_t N, uint64_t MinPer, F Fn) {
  splitRange(0, N, workersFor(N, MinPer), 1, Fn);
}

class Mt19937Engine final : public Engine {
public:
  explicit Mt19937Engine(uint32_t Seed) : Seed(Seed) {}

  void generate(const Position &P, size_t N, const Request &R, void *Out) override {
    std::lock_guard<std::mutex> G(Mu);
    SquareHistogram Hist;
    if (R.K == Kind::Poisson)
      Hist = makePoissonHistogram(R.Lambda);
    const uint64_t O = P.Offset;
    for (uint64_t K = O / BlockValues; K * BlockValues < O + N; ++K) {
      const uint64_t From = std::max(O, K * BlockValues), To = std::min(O + N, (K + 1) * BlockValues);
      // Generators whose columns this range touches (all, once it spans a row).
      const uint64_t InFrom = From - K * BlockValues, InTo = To - K * BlockValues;
      const unsigned Need = InTo - InFrom >= Row || InFrom / Row != (InTo - 1) / Row
                                ? Generators
                                : unsigned(((InTo - 1) % Row) / Threads + 1);
      bring(Need, K);
      parallel(To - From, 1u << 16, [&](uint64_t A, uint64_t B) {
        for (uint64_t I = From + A; I < From + B; ++I) {
          const uint64_t In = I - K * BlockValues, C = In % Row;
          const uint32_t X = temper(Words[(C / Threads) * NW + wordOf(unsigned(In / Row), unsigned(C % Threads))]);
          put(R, Hist, Out, I - O, X);
        }
      });
    }
  }
  void advance(Position &P, size_t N, Kind) const override { P.Offset += N; }

private:
  /// Generators 0..Need-1 at block K (their words of block K in Words).
  void bring(unsigned Need, uint64_t K) {
    if (Block != K || Ready == 0) {
      if (Ready && Block > K) { // behind the cache (a call run out of order): start again
        Ready = 0;
      } else if (Ready) {
        parallel(Ready, 64, [&](uint64_t A, uint64_t B) {
          for (uint64_t G = A; G < B; ++G)
            for (uint64_t S = Block; S < K; ++S)
              twist(&Words[G * NW]);
        });
      }
      Block = K;
    }
    if (Need <= Ready)
      return;
    if (Words.empty())
      Words.resize(size_t(Generators) * NW);
    const auto &J = Mt19937Jump;
    Window Base;
    Base.W[0] = Seed;
    for (unsigned I = 1; I < NW; ++I)
      Base.W[I] = 1812433253u * (Base.W[I - 1] ^ (Base.W[I - 1] >> 30)) + I;
    const unsigned From = Ready;
    parallel(Need - From, 32, [&](uint64_t A, uint64_t B) {
      // The first generator of the share by the binary jumps from the seed, then one jump each.
      const unsigned G0 = From + unsigned(A);
      Window S = Base;
      for (unsigned Bit = 0; Bit < 13; ++Bit)
        if (G0 >> Bit & 1)
          S = jump(S, J[Bit]);
      for (uint64_t G = G0; G < From + B; ++G) {
        if (G > G0)
          S = jump(S, J[0]);
        uint32_t *X = &Words[G * NW];
        S.store(X);
        for (uint64_t T = 0; T <= K; ++T)
          twist(X);
      }
    });
    Ready = Need;
  }

  static void put(const Request &R, const SquareHistogram &Hist, void *Out, uint64_t At, uint32_t X) {
    switch (R.K) {
    case Kind::Bits32:
    case Kind::Bits64: // refused before it comes here
      static_cast<uint32_t *>(Out)[At] = X;
      return;
    case Kind::UniformF:
      // The double rounded once to float (not the float formula: observed).
      static_cast<float *>(Out)[At] = float(X * 2.3283064365386963e-10 + (2.3283064365386963e-10 / 2.0));
      return;
    case Kind::UniformD:
      static_cast<double *>(Out)[At] = X * 2.3283064365386963e-10 + (2.3283064365386963e-10 / 2.0);
      return;
    case Kind::Poisson:
      static_cast<uint32_t *>(Out)[At] =
          drawHistogram(Hist, X * 2.3283064365386963e-10 + (2.3283064365386963e-10 / 2.0));
      return;
    case Kind::NormalF:
    case Kind::LogNormalF: {
      const float V = float(R.Mean) + float(R.Stddev) * quantileF(X);
      static_cast<float *>(Out)[At] = R.K == Kind::LogNormalF ? expf(V) : V;
      return;
    }
    case Kind::NormalD:
    case Kind::LogNormalD: {
      const double V = R.Mean + R.Stddev * quantileD(X);
      static_cast<double *>(Out)[At] = R.K == Kind::LogNormalD ? std::exp(V) : V;
      return;
    }
    }
  }

  const uint32_t Seed;
  std::mutex Mu;
  std::vector<uint32_t> Words; ///< generator g's words of block Block at g * 624
  unsigned Ready = 0;          ///< generators 0..Ready-1 are in Words
  uint64_t Block = 0;
};

} // namespace

std::shared_ptr<Engine> makeMt19937(uint64_t Seed) { return std::make_shared<Mt19937Engine>(uint32_t(Seed)); }

} // namespace zluda::curand
