//===- Lapack.h - the LAPACK routines our cuSOLVER calls, by element type ---===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Our own prototypes of the Fortran LAPACK routines (OpenBLAS's) and
/// La<T>, which picks the routine of an element type.
#pragma once

#include <algorithm>
#include <complex>
#include <type_traits>

using C32 = std::complex<float>;
using C64 = std::complex<double>;

extern "C" {
#define LAPACK_ALL(p, T, R)                                                                                            \
  void p##getrf_(const int *, const int *, T *, const int *, int *, int *);                                            \
  void p##getrs_(const char *, const int *, const int *, const T *, const int *, const int *, T *, const int *, int *); \
  void p##potrf_(const char *, const int *, T *, const int *, int *);                                                  \
  void p##potrs_(const char *, const int *, const int *, const T *, const int *, T *, const int *, int *);             \
  void p##geqrf_(const int *, const int *, T *, const int *, T *, T *, const int *, int *);                          \
  void p##gels_(const char *, const int *, const int *, const int *, T *, const int *, T *, const int *, T *,        \
                const int *, int *);
LAPACK_ALL(s, float, float)
LAPACK_ALL(d, double, double)
LAPACK_ALL(c, C32, float)
LAPACK_ALL(z, C64, double)
#undef LAPACK_ALL
void sormqr_(const char *, const char *, const int *, const int *, const int *, const float *, const int *,
             const float *, float *, const int *, float *, const int *, int *);
void dormqr_(const char *, const char *, const int *, const int *, const int *, const double *, const int *,
             const double *, double *, const int *, double *, const int *, int *);
void cunmqr_(const char *, const char *, const int *, const int *, const int *, const C32 *, const int *, const C32 *,
             C32 *, const int *, C32 *, const int *, int *);
void zunmqr_(const char *, const char *, const int *, const int *, const int *, const C64 *, const int *, const C64 *,
             C64 *, const int *, C64 *, const int *, int *);
void sorgqr_(const int *, const int *, const int *, float *, const int *, const float *, float *, const int *, int *);
void dorgqr_(const int *, const int *, const int *, double *, const int *, const double *, double *, const int *,
             int *);
void cungqr_(const int *, const int *, const int *, C32 *, const int *, const C32 *, C32 *, const int *, int *);
void zungqr_(const int *, const int *, const int *, C64 *, const int *, const C64 *, C64 *, const int *, int *);
void sgesvd_(const char *, const char *, const int *, const int *, float *, const int *, float *, float *,
             const int *, float *, const int *, float *, const int *, int *);
void dgesvd_(const char *, const char *, const int *, const int *, double *, const int *, double *, double *,
             const int *, double *, const int *, double *, const int *, int *);
void cgesvd_(const char *, const char *, const int *, const int *, C32 *, const int *, float *, C32 *, const int *,
             C32 *, const int *, C32 *, const int *, float *, int *);
void zgesvd_(const char *, const char *, const int *, const int *, C64 *, const int *, double *, C64 *, const int *,
             C64 *, const int *, C64 *, const int *, double *, int *);
#define LAPACK_SYM(p, T)                                                                                               \
  void p##sytrf_(const char *, const int *, T *, const int *, int *, T *, const int *, int *);                        \
  void p##sytri_(const char *, const int *, T *, const int *, const int *, T *, int *);                                \
  void p##potri_(const char *, const int *, T *, const int *, int *);
LAPACK_SYM(s, float)
LAPACK_SYM(d, double)
LAPACK_SYM(c, C32)
LAPACK_SYM(z, C64)
#undef LAPACK_SYM
#define LAPACK_GEN_REAL(p, T)                                                                                          \
  void p##sygvd_(const int *, const char *, const char *, const int *, T *, const int *, T *, const int *, T *, T *,   \
                 const int *, int *, const int *, int *);                                                              \
  void p##syevx_(const char *, const char *, const char *, const int *, T *, const int *, const T *, const T *,        \
                 const int *, const int *, const T *, int *, T *, T *, const int *, T *, const int *, int *, int *,     \
                 int *);                                                                                               \
  void p##sygvx_(const int *, const char *, const char *, const char *, const int *, T *, const int *, T *,           \
                 const int *, const T *, const T *, const int *, const int *, const T *, int *, T *, T *, const int *,  \
                 T *, const int *, int *, int *, int *);
LAPACK_GEN_REAL(s, float)
LAPACK_GEN_REAL(d, double)
#undef LAPACK_GEN_REAL
#define LAPACK_GEN_COMPLEX(p, T, R)                                                                                    \
  void p##hegvd_(const int *, const char *, const char *, const int *, T *, const int *, T *, const int *, R *, T *,   \
                 const int *, R *, const int *, int *, const int *, int *);                                            \
  void p##heevx_(const char *, const char *, const char *, const int *, T *, const int *, const R *, const R *,        \
                 const int *, const int *, const R *, int *, R *, T *, const int *, T *, const int *, R *, int *,       \
                 int *, int *);                                                                                        \
  void p##hegvx_(const int *, const char *, const char *, const char *, const int *, T *, const int *, T *,           \
                 const int *, const R *, const R *, const int *, const int *, const R *, int *, R *, T *, const int *,  \
                 T *, const int *, R *, int *, int *, int *);
LAPACK_GEN_COMPLEX(c, C32, float)
LAPACK_GEN_COMPLEX(z, C64, double)
#undef LAPACK_GEN_COMPLEX
#define LAPACK_REDUCE(p, T, R, orgbr, orgtr, ormtr, sytrd)                                                           \
  void p##gebrd_(const int *, const int *, T *, const int *, R *, R *, T *, T *, T *, const int *, int *);             \
  void p##orgbr##_(const char *, const int *, const int *, const int *, T *, const int *, const T *, T *, const int *, \
                   int *);                                                                                             \
  void p##sytrd##_(const char *, const int *, T *, const int *, R *, R *, T *, T *, const int *, int *);               \
  void p##orgtr##_(const char *, const int *, T *, const int *, const T *, T *, const int *, int *);                    \
  void p##ormtr##_(const char *, const char *, const char *, const int *, const int *, const T *, const int *,        \
                   const T *, T *, const int *, T *, const int *, int *);
LAPACK_REDUCE(s, float, float, orgbr, orgtr, ormtr, sytrd)
LAPACK_REDUCE(d, double, double, orgbr, orgtr, ormtr, sytrd)
LAPACK_REDUCE(c, C32, float, ungbr, ungtr, unmtr, hetrd)
LAPACK_REDUCE(z, C64, double, ungbr, ungtr, unmtr, hetrd)
#undef LAPACK_REDUCE
#define LAPACK_MISC(p, T)                                                                                              \
  void p##trtri_(const char *, const char *, const int *, T *, const int *, int *);                                    \
  void p##sytrs_(const char *, const int *, const int *, const T *, const int *, const int *, T *, const int *, int *); \
  void p##larft_(const char *, const char *, const int *, const int *, T *, const int *, const T *, T *, const int *);
LAPACK_MISC(s, float)
LAPACK_MISC(d, double)
LAPACK_MISC(c, C32)
LAPACK_MISC(z, C64)
#undef LAPACK_MISC
void sgeev_(const char *, const char *, const int *, float *, const int *, float *, float *, float *, const int *,
            float *, const int *, float *, const int *, int *);
void dgeev_(const char *, const char *, const int *, double *, const int *, double *, double *, double *, const int *,
            double *, const int *, double *, const int *, int *);
void cgeev_(const char *, const char *, const int *, C32 *, const int *, C32 *, C32 *, const int *, C32 *, const int *,
            C32 *, const int *, float *, int *);
void zgeev_(const char *, const char *, const int *, C64 *, const int *, C64 *, C64 *, const int *, C64 *, const int *,
            C64 *, const int *, double *, int *);
void sgeqp3_(const int *, const int *, float *, const int *, int *, float *, float *, const int *, int *);
void dgeqp3_(const int *, const int *, double *, const int *, int *, double *, double *, const int *, int *);
void cgeqp3_(const int *, const int *, C32 *, const int *, int *, C32 *, C32 *, const int *, float *, int *);
void zgeqp3_(const int *, const int *, C64 *, const int *, int *, C64 *, C64 *, const int *, double *, int *);
void ssyevd_(const char *, const char *, const int *, float *, const int *, float *, float *, const int *, int *,
             const int *, int *);
void dsyevd_(const char *, const char *, const int *, double *, const int *, double *, double *, const int *, int *,
             const int *, int *);
void cheevd_(const char *, const char *, const int *, C32 *, const int *, float *, C32 *, const int *, float *,
             const int *, int *, const int *, int *);
void zheevd_(const char *, const char *, const int *, C64 *, const int *, double *, C64 *, const int *, double *,
             const int *, int *, const int *, int *);
}


namespace zluda::cusolver {

template <typename T> struct Real {
  using Type = T;
};
template <typename T> struct Real<std::complex<T>> {
  using Type = T;
};

// LAPACK by element type.
template <typename T> struct La;
#define LA_COMMON(p, T)                                                                                                \
  static void getrf(const int *M, const int *N, T *A, const int *L, int *P, int *I) { p##getrf_(M, N, A, L, P, I); } \
  static void gels(const int *M, const int *N, const int *R, T *A, const int *L, T *B, const int *Lb, T *W,          \
                   const int *Lw, int *I) {                                                                            \
    p##gels_("N", M, N, R, A, L, B, Lb, W, Lw, I);                                                                     \
  }                                                                                                                    \
  static void getrs(const char *Tr, const int *N, const int *R, const T *A, const int *L, const int *P, T *B,         \
                    const int *Lb, int *I) {                                                                           \
    p##getrs_(Tr, N, R, A, L, P, B, Lb, I);                                                                            \
  }                                                                                                                    \
  static void potrf(const char *U, const int *N, T *A, const int *L, int *I) { p##potrf_(U, N, A, L, I); }            \
  static void potrs(const char *U, const int *N, const int *R, const T *A, const int *L, T *B, const int *Lb,         \
                    int *I) {                                                                                          \
    p##potrs_(U, N, R, A, L, B, Lb, I);                                                                                \
  }                                                                                                                    \
  static void geqrf(const int *M, const int *N, T *A, const int *L, T *Tau, T *W, const int *Lw, int *I) {            \
    p##geqrf_(M, N, A, L, Tau, W, Lw, I);                                                                              \
  }
template <> struct La<float> {
  LA_COMMON(s, float)
  static constexpr auto ormqr = sormqr_;
  static constexpr auto orgqr = sorgqr_;
};
template <> struct La<double> {
  LA_COMMON(d, double)
  static constexpr auto ormqr = dormqr_;
  static constexpr auto orgqr = dorgqr_;
};
template <> struct La<C32> {
  LA_COMMON(c, C32)
  static constexpr auto ormqr = cunmqr_;
  static constexpr auto orgqr = cungqr_;
};
template <> struct La<C64> {
  LA_COMMON(z, C64)
  static constexpr auto ormqr = zunmqr_;
  static constexpr auto orgqr = zungqr_;
};
#undef LA_COMMON

template <typename T> constexpr bool IsComplex = !std::is_same_v<T, typename Real<T>::Type>;

template <typename T> int lworkOf(T W) { return std::max(1, int(std::real(W))); }
} // namespace zluda::cusolver
