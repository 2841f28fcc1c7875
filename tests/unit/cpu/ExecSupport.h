//===- ExecSupport.h - elementwise PTX kernels with C++ references ---------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file check() wraps a few PTX instructions (the "body", reading registers
/// a, b, c and writing d) in a kernel that loads a[i], b[i], c[i] from global
/// memory and stores d[i]; one thread per element. The result is compared
/// with a C++ reference computed here, independently of the compiler.
#ifndef ZLUDA_TESTS_CPU_EXECSUPPORT_H
#define ZLUDA_TESTS_CPU_EXECSUPPORT_H

#include "Harness.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>
#include <type_traits>
#include <algorithm>
#include <string>
#include <vector>

namespace zluda::test {

inline unsigned &kernelsRun() {
  static unsigned N = 0;
  return N;
}

template <typename T> const char *ptxStorage();
template <> inline const char *ptxStorage<int8_t>() { return ".s8"; }
template <> inline const char *ptxStorage<uint8_t>() { return ".u8"; }
template <> inline const char *ptxStorage<int16_t>() { return ".s16"; }
template <> inline const char *ptxStorage<uint16_t>() { return ".u16"; }
template <> inline const char *ptxStorage<int32_t>() { return ".s32"; }
template <> inline const char *ptxStorage<uint32_t>() { return ".u32"; }
template <> inline const char *ptxStorage<int64_t>() { return ".s64"; }
template <> inline const char *ptxStorage<uint64_t>() { return ".u64"; }
template <> inline const char *ptxStorage<float>() { return ".f32"; }
template <> inline const char *ptxStorage<double>() { return ".f64"; }

/// Register type for a C++ element type (8-bit values live in 16-bit registers).
template <typename T> const char *ptxReg() {
  const char *S = ptxStorage<T>();
  if (std::string(S) == ".s8")
    return ".s16";
  if (std::string(S) == ".u8")
    return ".u16";
  return S;
}

template <typename T> bool sameValue(T A, T B, double Tol) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(A) && std::isnan(B))
      return true;
    if (Tol > 0 && std::isfinite(A) && std::isfinite(B))
      return std::fabs(double(A) - double(B)) <= Tol * std::max(1.0, std::fabs(double(B)));
    return std::memcmp(&A, &B, sizeof(T)) == 0;
  } else {
    return A == B;
  }
}

template <typename T> std::string show(T V) {
  std::ostringstream OS;
  if constexpr (std::is_floating_point_v<T>) {
    OS.precision(std::numeric_limits<T>::max_digits10);
    OS << V;
    uint64_t Bits = 0;
    std::memcpy(&Bits, &V, sizeof(T));
    OS << " (0x" << std::hex << Bits << ")";
  } else if constexpr (sizeof(T) == 1) {
    OS << int(V);
  } else {
    OS << V << " (0x" << std::hex << +V << ")";
  }
  return OS.str();
}

struct CheckOpts {
  double Tol = 0;            ///< relative tolerance for floats (approx instructions)
  const char *RegA = nullptr; ///< register types, overriding the defaults
  const char *RegB = nullptr;
  const char *RegC = nullptr;
  const char *RegD = nullptr;
  unsigned BlockSize = 64;
  /// Maps equivalent results to one value before comparing (NaN encodings of
  /// the 16-bit formats, whose payload PTX leaves open).
  std::function<uint64_t(uint64_t)> Canon;
};

/// Runs \p Body once per element and compares d with Ref(a, b, c).
template <typename D, typename A, typename B = uint32_t, typename C = uint32_t>
void check(const std::string &Body, const std::vector<A> &VA, const std::vector<B> &VB, const std::vector<C> &VC,
           const std::type_identity_t<std::function<D(A, B, C)>> &Ref, CheckOpts O = {}) {
  size_t N = VA.size();
  std::vector<B> VB2 = VB.empty() ? std::vector<B>(N) : VB;
  std::vector<C> VC2 = VC.empty() ? std::vector<C>(N) : VC;
  ASSERT_EQ(VB2.size(), N);
  ASSERT_EQ(VC2.size(), N);
  std::ostringstream K;
  K << ".version 9.0\n.target sm_90\n.address_size 64\n"
    << ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd, .param .u32 n)\n{\n"
    << "  .reg .pred %p<2>;\n  .reg .b32 %i<6>;\n  .reg .b64 %x<12>;\n"
    << "  .reg .pred p, q;\n  .reg .b16 h0, h1, h2;\n  .reg .b32 t0, t1, t2, t3;\n  .reg .b64 w0, w1;\n"
    << "  .reg .f32 f0, f1;\n  .reg .f64 e0, e1;\n"
    << "  .reg " << (O.RegA ? O.RegA : ptxReg<A>()) << " a;\n"
    << "  .reg " << (O.RegB ? O.RegB : ptxReg<B>()) << " b;\n"
    << "  .reg " << (O.RegC ? O.RegC : ptxReg<C>()) << " c;\n"
    << "  .reg " << (O.RegD ? O.RegD : ptxReg<D>()) << " d;\n"
    << "  mov.u32 %i0, %tid.x;\n  mov.u32 %i1, %ctaid.x;\n  mov.u32 %i2, %ntid.x;\n"
    << "  mad.lo.u32 %i3, %i1, %i2, %i0;\n  ld.param.u32 %i4, [n];\n"
    << "  setp.ge.u32 %p0, %i3, %i4;\n  @%p0 bra DONE;\n  cvt.u64.u32 %x0, %i3;\n"
    << "  ld.param.u64 %x1, [pa];\n  ld.param.u64 %x2, [pb];\n  ld.param.u64 %x3, [pc];\n  ld.param.u64 %x4, [pd];\n"
    << "  mad.lo.u64 %x5, %x0, " << sizeof(A) << ", %x1;\n"
    << "  mad.lo.u64 %x6, %x0, " << sizeof(B) << ", %x2;\n"
    << "  mad.lo.u64 %x7, %x0, " << sizeof(C) << ", %x3;\n"
    << "  mad.lo.u64 %x8, %x0, " << sizeof(D) << ", %x4;\n"
    << "  ld.global" << ptxStorage<A>() << " a, [%x5];\n"
    << "  ld.global" << ptxStorage<B>() << " b, [%x6];\n"
    << "  ld.global" << ptxStorage<C>() << " c, [%x7];\n"
    << Body << "\n"
    << "  st.global" << ptxStorage<D>() << " [%x8], d;\nDONE:\n  ret;\n}\n";
  std::vector<D> Out(N);
  // Poison the output so that an element the kernel never writes fails.
  std::memset(Out.data(), 0xA5, N * sizeof(D));
  auto M = compile(K.str());
  ASSERT_TRUE(M) << K.str();
  ++kernelsRun();
  if (std::getenv("ZLUDA_TEST_COUNT_KERNELS"))
    std::printf("kernel #%u: %s\n", kernelsRun(), Body.c_str());
  Launch L{{static_cast<uint32_t>((N + O.BlockSize - 1) / O.BlockSize)}, {O.BlockSize}};
  auto R = run(*M, "k", L,
               {Arg::ptr(VA.data()), Arg::ptr(VB2.data()), Arg::ptr(VC2.data()), Arg::ptr(Out.data()),
                Arg::of<uint32_t>(static_cast<uint32_t>(N))});
  ASSERT_EQ(R.Err, cpu::LaunchError::None) << R.Message << "\n" << Body;
  unsigned Bad = 0;
  for (size_t I = 0; I < N && Bad < 8; ++I) {
    D Want = Ref(VA[I], VB2[I], VC2[I]);
    D Got = Out[I];
    if constexpr (std::is_integral_v<D>) {
      if (O.Canon) {
        Want = D(O.Canon(uint64_t(Want)));
        Got = D(O.Canon(uint64_t(Got)));
      }
    }
    if (!sameValue(Got, Want, O.Tol)) {
      ++Bad;
      ADD_FAILURE() << Body << "\n  a=" << show(VA[I]) << " b=" << show(VB2[I]) << " c=" << show(VC2[I])
                    << "\n  got " << show(Out[I]) << ", want " << show(Want);
    }
  }
}

/// Every pair of \p Edges (as a and b), for binary operations.
template <typename A, typename B>
void cross(const std::vector<A> &Ea, const std::vector<B> &Eb, std::vector<A> &OutA, std::vector<B> &OutB) {
  OutA.clear();
  OutB.clear();
  for (A X : Ea)
    for (B Y : Eb) {
      OutA.push_back(X);
      OutB.push_back(Y);
    }
}

inline std::vector<int32_t> edgesS32() {
  return {0, 1, -1, 2, -2, 7, -13, 100, 31, 32, 33, std::numeric_limits<int32_t>::max(),
          std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max() - 1,
          std::numeric_limits<int32_t>::min() + 1, 0x12345678, -0x1234567, 65535, 65536, 0x00ff00ff};
}
inline std::vector<uint32_t> edgesU32() {
  std::vector<uint32_t> R;
  for (int32_t V : edgesS32())
    R.push_back(static_cast<uint32_t>(V));
  return R;
}
inline std::vector<int64_t> edgesS64() {
  return {0, 1, -1, 3, -5, 63, 64, 65, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
          0x100000000ll, 0xffffffffll, 0x123456789abcdef0ll, -0x123456789ll, 0x7fffffffll, -0x80000000ll};
}
inline std::vector<uint64_t> edgesU64() {
  std::vector<uint64_t> R;
  for (int64_t V : edgesS64())
    R.push_back(static_cast<uint64_t>(V));
  return R;
}
inline std::vector<float> edgesF32() {
  float Inf = std::numeric_limits<float>::infinity();
  return {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 1.5f, 2.5f, -2.5f, 3.14159274f, 1e-40f, -1e-40f,
          std::numeric_limits<float>::min(), std::numeric_limits<float>::max(), Inf, -Inf,
          std::numeric_limits<float>::quiet_NaN(), 1e30f, -7.75f, 0.1f, 1.0f / 3.0f, 16777217.0f, -3e-39f, 65504.0f,
          70000.0f, 6e-8f, 2147483647.0f, -2147483648.0f, 4294967296.0f, 123456.789f};
}
inline std::vector<double> edgesF64() {
  double Inf = std::numeric_limits<double>::infinity();
  return {0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 3.141592653589793, 1e-310, -1e-310,
          std::numeric_limits<double>::min(), std::numeric_limits<double>::max(), Inf, -Inf,
          std::numeric_limits<double>::quiet_NaN(), 1e300, -7.75, 0.1, 1.0 / 3.0, 9007199254740993.0,
          1e-30, 3.4028235677973366e38, 1e39, 9.2233720368547758e18, -9.2233720368547758e18, 1.8446744073709552e19};
}

// --- float references built from error-free transforms (no FPU mode changes) ---

/// Rounds the exact value R + E (R = round-to-nearest result, E = exact error)
/// in direction Mode (1 toward zero, 2 down, 3 up).
template <typename T> T directed(T R, T E, int Mode) {
  if (std::isnan(R) || std::isinf(R) || E == 0 || Mode == 0)
    return R;
  T Inf = std::numeric_limits<T>::infinity();
  if (Mode == 2 && E < 0)
    return std::nextafter(R, -Inf);
  if (Mode == 3 && E > 0)
    return std::nextafter(R, Inf);
  if (Mode == 1 && ((E < 0) != (R < 0)) && R != 0)
    return std::nextafter(R, T(0));
  return R;
}

/// Overflowed result in a directed mode: toward zero stops at the largest
/// finite value, and so do rm for positive and rp for negative results.
template <typename T> T overflowed(T R, int Mode) {
  bool ToInf = Mode == 0 || (Mode == 2 && R < 0) || (Mode == 3 && R > 0);
  return ToInf ? R : std::copysign(std::numeric_limits<T>::max(), R);
}

template <typename T> T addDirected(T A, T B, int Mode) {
  T S = A + B;
  if (std::isinf(S) && std::isfinite(A) && std::isfinite(B))
    return overflowed(S, Mode);
  if (!std::isfinite(S))
    return S;
  T Bb = S - A;
  T E = (A - (S - Bb)) + (B - Bb); // TwoSum: exact error
  if (S == 0 && E == 0) {
    // An exact zero: -0 only for (-0) + (-0), or for opposite signs in rm.
    if (A == 0 && B == 0 && std::signbit(A) == std::signbit(B))
      return A; // (+0) + (+0) and (-0) + (-0) keep their sign
    return Mode == 2 ? -T(0) : T(0);
  }
  return directed(S, E, Mode);
}

/// f32 product, quotient and square root: the exact values are known in
/// double precision, where the remainders below are exact.
inline float mulDirected(float A, float B, int Mode) {
  double P = double(A) * double(B); // exact: 24 + 24 bits
  float R = float(P);
  if (std::isinf(R) && std::isfinite(P))
    return overflowed(R, Mode);
  if (!std::isfinite(P))
    return R;
  double E = P - double(R);
  if (R == 0 && E != 0) // underflow to zero: the sign still matters
    return directed(std::copysign(0.0f, float(P)), float(E > 0 ? 1 : -1), Mode);
  return directed(R, float(E == 0 ? 0 : (E > 0 ? 1 : -1)), Mode);
}
inline double mulDirected(double A, double B, int Mode) {
  double P = A * B;
  if (std::isinf(P) && std::isfinite(A) && std::isfinite(B))
    return overflowed(P, Mode);
  if (!std::isfinite(P) || P == 0 || std::fabs(P) < std::numeric_limits<double>::min() * 4)
    return P; // FMA-based error is not exact near underflow: only normal inputs are tested below
  return directed(P, std::fma(A, B, -P), Mode);
}
inline float divDirected(float A, float B, int Mode) {
  float Q = A / B;
  if (A == 0 || std::isinf(B) || std::isnan(Q))
    return Q; // exact
  if (std::isinf(Q) && std::isfinite(A) && B != 0)
    return overflowed(Q, Mode);
  if (!std::isfinite(Q))
    return Q;
  double Rem = std::fma(-double(Q), double(B), double(A)); // exact in double
  if (Rem == 0)
    return Q;
  float Dir = (Rem > 0) == (B > 0) ? 1.0f : -1.0f;
  if (Q == 0)
    return directed(std::copysign(0.0f, (A < 0) != (B < 0) ? -1.0f : 1.0f), Dir, Mode);
  return directed(Q, Dir, Mode);
}
inline double divDirected(double A, double B, int Mode) {
  double Q = A / B;
  if (A == 0 || std::isinf(B) || std::isnan(Q))
    return Q; // exact
  if (std::isinf(Q) && std::isfinite(A) && B != 0)
    return overflowed(Q, Mode);
  if (!std::isfinite(Q) || Q == 0 || std::fabs(Q) < std::numeric_limits<double>::min() * 4 ||
      std::fabs(A) < std::numeric_limits<double>::min() * 1e17)
    return Q;
  double Rem = std::fma(-Q, B, A);
  double Dir = (Rem == 0) ? 0 : ((Rem > 0) == (B > 0) ? 1.0 : -1.0);
  return directed(Q, Dir, Mode);
}
inline float sqrtDirected(float A, int Mode) {
  float R = std::sqrt(A);
  if (!std::isfinite(R) || R == 0)
    return R;
  double Rem = std::fma(-double(R), double(R), double(A));
  return directed(R, float(Rem == 0 ? 0 : (Rem > 0 ? 1 : -1)), Mode);
}

// --- IEEE binary16 / bfloat16 references by exhaustive search -------------------

inline double halfValue(uint16_t H, bool Bf) {
  int EB = Bf ? 8 : 5, MB = Bf ? 7 : 10;
  int Bias = (1 << (EB - 1)) - 1;
  bool Neg = H >> 15;
  int E = (H >> MB) & ((1 << EB) - 1);
  int M = H & ((1 << MB) - 1);
  double V;
  if (E == (1 << EB) - 1)
    V = M ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (E == 0)
    V = std::ldexp(double(M), 1 - Bias - MB);
  else
    V = std::ldexp(double(M + (1 << MB)), E - Bias - MB);
  return Neg ? -V : V;
}

/// Correctly rounded conversion of X to binary16 (or bfloat16), Mode 0 rn,
/// 1 rz, 2 rm, 3 rp, found by binary search over the encodings.
inline uint16_t toHalf(double X, int Mode, bool Bf) {
  uint16_t InfBits = Bf ? 0x7f80 : 0x7c00;
  if (std::isnan(X)) // the canonical NaN NVIDIA's hardware gives (tests/golden)
    return 0x7fff;
  uint16_t Sign = std::signbit(X) ? 0x8000 : 0;
  double A = std::fabs(X);
  // Largest positive encoding with value <= A (0 .. InfBits).
  uint32_t Lo = 0, Hi = InfBits;
  while (Lo < Hi) {
    uint32_t Mid = (Lo + Hi + 1) / 2;
    if (halfValue(static_cast<uint16_t>(Mid), Bf) <= A)
      Lo = Mid;
    else
      Hi = Mid - 1;
  }
  double Below = halfValue(static_cast<uint16_t>(Lo), Bf);
  if (Below == A)
    return Sign | Lo;
  uint32_t Up = Lo + 1; // InfBits when Lo is the largest finite
  double Above = Up == InfBits ? std::ldexp(1.0, Bf ? 128 : 16) : halfValue(static_cast<uint16_t>(Up), Bf);
  bool Neg = Sign != 0;
  uint32_t Pick;
  switch (Mode) {
  case 0:
    if (A - Below < Above - A)
      Pick = Lo;
    else if (A - Below > Above - A)
      Pick = Up;
    else
      Pick = (Lo & 1) ? Up : Lo;
    break;
  case 1:
    Pick = Lo;
    break;
  case 2:
    Pick = Neg ? Up : Lo;
    break;
  default:
    Pick = Neg ? Lo : Up;
    break;
  }
  return static_cast<uint16_t>(Sign | Pick);
}

/// Canonicalises NaNs of binary16 (Bf false) or bfloat16 lanes, Lanes wide.
inline std::function<uint64_t(uint64_t)> halfNaN(bool Bf, unsigned Lanes = 1) {
  return [=](uint64_t V) {
    uint64_t R = 0;
    for (unsigned L = 0; L < Lanes; ++L) {
      uint16_t H = uint16_t(V >> (16 * L));
      bool NaN = Bf ? ((H & 0x7f80) == 0x7f80 && (H & 0x7f)) : ((H & 0x7c00) == 0x7c00 && (H & 0x3ff));
      R |= uint64_t(NaN ? 0x7fff : H) << (16 * L);
    }
    return R;
  };
}

inline std::vector<uint16_t> edgesF16() {
  return {0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0x4100, 0xc100, 0x4248, 0x0001, 0x8001, 0x0400,
          0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x3555, 0x5640, 0x2e66, 0x03ff, 0x4900, 0xc8a0};
}
inline std::vector<uint16_t> edgesBF16() {
  return {0x0000, 0x8000, 0x3f80, 0xbf80, 0x3f00, 0x3fc0, 0x4020, 0xc020, 0x4049, 0x0001, 0x8001, 0x0080,
          0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x3eab, 0x42c8, 0x3dcd, 0x4b80, 0xc1f8};
}

} // namespace zluda::test

#endif
