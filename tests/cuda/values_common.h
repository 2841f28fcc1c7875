// Shared by the math-library test programs: one fresh random source and the
// conversions between complex<double> (the tests' arithmetic) and every
// element type the libraries take.
#pragma once
#include <cuComplex.h>

#include <complex>
#include <random>

inline std::mt19937 Rng{std::random_device{}()};
/// A uniform value in [-1, 1).
inline double rnd() { return std::uniform_real_distribution<double>(-1, 1)(Rng); }

using Z = std::complex<double>;
inline Z z(double V) { return V; }
inline Z z(float V) { return V; }
inline Z z(cuDoubleComplex V) { return Z(V.x, V.y); }
inline Z z(cuComplex V) { return Z(V.x, V.y); }
/// \p V as an element of type T (real types keep the real part).
template <typename T> T make(Z V);
template <> inline double make<double>(Z V) { return V.real(); }
template <> inline float make<float>(Z V) { return float(V.real()); }
template <> inline cuDoubleComplex make<cuDoubleComplex>(Z V) { return make_cuDoubleComplex(V.real(), V.imag()); }
template <> inline cuComplex make<cuComplex>(Z V) { return make_cuComplex(float(V.real()), float(V.imag())); }
