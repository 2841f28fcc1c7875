//===- Engines.h - cuRAND's generators, computed on the host ---------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The pseudorandom generators of cuRAND with NVIDIA's output order, so
/// that a seed gives the same numbers as NVIDIA's library (bit for bit: the
/// tests compare with NVIDIA's host generator). What we observed of that order
/// (docs/STATUS.md): XORWOW runs 4,096 lanes and MRG32k3a 81,920, lane t
/// being subsequence t of the generator (curand_init(seed, t, 0) of the device
/// API). The generator keeps each lane's position and a next lane: setting
/// the offset o puts lane t at floor(o / T) + (t < o mod T ? 1 : 0) and the
/// next lane at o mod T; output unit q of a call comes from lane
/// (next + q) mod T, each unit drawing k raw values (k = 2 for a double or a
/// normal pair, 4 for a normal double pair); the call leaves the next lane
/// at (next + units) mod T. Philox4x32-10 runs 65,536 lanes of 4-value
/// groups: element p of a kind with E values a group is group p / E, lane
/// (p / E) mod 65536, counter (p / E) / 65536.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace zluda::curand {

enum class Kind { Bits32, Bits64, UniformF, UniformD, NormalF, NormalD, LogNormalF, LogNormalD, Poisson };

/// What one generate call asks for.
struct Request {
  Kind K = Kind::Bits32;
  double Mean = 0, Stddev = 1; ///< normal and log-normal
  double Lambda = 0;           ///< Poisson
};

/// Where a generator stands: an offset (Philox) or the lanes' positions, a
/// step function of the lane (sorted starts of runs of equal position).
struct Position {
  uint64_t Offset = 0;
  uint64_t NextLane = 0;
  std::vector<std::pair<uint64_t, uint64_t>> Runs; ///< (first lane, position)
  uint64_t at(uint64_t Lane) const;
};

/// A seeded generator: immutable but for a cache of lane states, so calls
/// queued on a stream may run after the generator was re-seeded.
class Engine {
public:
  virtual ~Engine() = default;
  /// Writes N values of R.K into Out (host memory), starting at \p P.
  virtual void generate(const Position &P, size_t N, const Request &R, void *Out) = 0;
  /// \p P after a call that generated N values of \p K.
  virtual void advance(Position &P, size_t N, Kind K) const { P.Offset += N; }
  /// \p P for the offset \p O (curandSetGeneratorOffset).
  virtual void seek(Position &P, uint64_t O) const { P.Offset = O; }
};

/// XORWOW (101), MRG32k3a (121) or Philox4x32-10 (161); null for other types.
/// \p Legacy: CURAND_ORDERING_PSEUDO_LEGACY (MRG32k3a: 4,096 lanes instead of
/// 81,920; observed against NVIDIA's host generator, the lanes otherwise the same). \p Seeded:
/// CURAND_ORDERING_PSEUDO_SEEDED (XORWOW: each lane its own seed instead of a subsequence).
std::shared_ptr<Engine> makeEngine(int RngType, uint64_t Seed, bool Legacy = false, bool Seeded = false);

/// Threads for \p Work items, at least \p MinPer a thread: between 1 and min(16, the hardware's threads).
unsigned workersFor(uint64_t Work, uint64_t MinPer);
/// Fn(From, To) on \p Workers contiguous shares of [Begin, End) (a multiple of \p Align items each but the
/// last), on threads of their own; in the caller where there is one share. The generators' one way of splitting
/// their work across the cores.
void splitRange(uint64_t Begin, uint64_t End, unsigned Workers, uint64_t Align,
                const std::function<void(uint64_t, uint64_t)> &Fn);

/// MT19937 (Mt19937.cpp): NVIDIA's 8,192 generators and layout; the seed's low 32 bits.
std::shared_ptr<Engine> makeMt19937(uint64_t Seed);

/// Normals by the inverse normal CDF of the uniform x 2^-32 + 2^-33 of a
/// 32-bit value (Sobol32 and MT19937; Sobol.cpp).
float quantileF(uint32_t X);
double quantileD(uint32_t X);

/// Sobol32 (\p Wide false) or Sobol64 over \p Dims dimensions (Sobol.cpp).
std::shared_ptr<Engine> makeSobol(bool Wide, unsigned Dims);
/// The direction vectors of the 20,000 dimensions: 32 (or 64) a dimension.
const unsigned *sobolDirections32();
const unsigned long long *sobolDirections64();

/// Poisson by the square histogram (Marsaglia, Tsang, Wang): the table for
/// \p Lambda, with the first value Shift (values Shift .. Shift + V.size() - 1).
struct SquareHistogram {
  unsigned Shift = 0;
  std::unique_ptr<double[]> V;
  std::unique_ptr<unsigned[]> K;
  unsigned Length = 0;
};
SquareHistogram makePoissonHistogram(double Lambda);
/// One draw from \p H with the uniform double \p U in (0, 1].
inline unsigned drawHistogram(const SquareHistogram &H, double U) {
  unsigned J = static_cast<unsigned>(H.Length * U);
  if (J >= H.Length)
    J = H.Length - 1;
  return U < H.V[J] ? H.Shift + J : H.Shift + H.K[J];
}

} // namespace zluda::curand
