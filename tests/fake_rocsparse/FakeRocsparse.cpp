//===- FakeRocsparse.cpp - a rocSPARSE for testing our cuSPARSE on AMD -----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The rocSPARSE 2.x entry points our cuSPARSE loads, with rocSPARSE's
/// signatures and enum values. The test HIP runtime's device memory is host
/// memory, so SpMV and SpMM compute for real (CSR, CSC, COO; f32, f64, c32,
/// c64; all operations; row- and column-major dense matrices): a test checks
/// that our library translated every descriptor as rocSPARSE means it. Both
/// ask for 4 KiB of buffer and refuse a computation without it; the calls,
/// the last stream and pointer mode are recorded for the test.
#include <complex>
#include <cstdint>
#include <cstring>

namespace {
using Z = std::complex<double>;
constexpr int Ok = 0, Invalid = 3;
constexpr size_t Need = 4096;
struct Handle {
  void *Stream = nullptr;
  int PointerMode = 0;
};
struct Sp {
  int Fmt; // 0 COO, 2 CSR, 3 CSC
  int64_t Rows, Cols, Nnz;
  void *Ptr, *Ind, *Val; // CSR/CSC offsets (COO: row indices), indices, values
  int PtrType, IndType, Base, Type;
};
struct Dn {
  int64_t Rows, Cols, Ld;
  void *Val;
  int Type, Order; // order 0 row, 1 column (vectors: Cols 1, column)
};
int Calls = 0, LastPointerMode = -1;
void *LastStream = nullptr;

int64_t ix(const void *P, int T, int64_t I) {
  return T == 3 ? static_cast<const int64_t *>(P)[I] : static_cast<const int32_t *>(P)[I];
}
Z load(const void *P, int T, int64_t I) {
  switch (T) {
  case 151: return static_cast<const float *>(P)[I];
  case 152: return static_cast<const double *>(P)[I];
  case 154: return Z(static_cast<const float *>(P)[2 * I], static_cast<const float *>(P)[2 * I + 1]);
  default: return Z(static_cast<const double *>(P)[2 * I], static_cast<const double *>(P)[2 * I + 1]);
  }
}
void store(void *P, int T, int64_t I, Z V) {
  switch (T) {
  case 151: static_cast<float *>(P)[I] = float(V.real()); return;
  case 152: static_cast<double *>(P)[I] = V.real(); return;
  case 154:
    static_cast<float *>(P)[2 * I] = float(V.real());
    static_cast<float *>(P)[2 * I + 1] = float(V.imag());
    return;
  default:
    static_cast<double *>(P)[2 * I] = V.real();
    static_cast<double *>(P)[2 * I + 1] = V.imag();
    return;
  }
}
template <typename F> void entries(const Sp &A, F Fn) {
  const int64_t B = A.Base;
  if (A.Fmt == 0)
    for (int64_t K = 0; K < A.Nnz; ++K)
      Fn(ix(A.Ptr, A.IndType, K) - B, ix(A.Ind, A.IndType, K) - B, load(A.Val, A.Type, K));
  else
    for (int64_t O = 0; O < (A.Fmt == 2 ? A.Rows : A.Cols); ++O)
      for (int64_t K = ix(A.Ptr, A.PtrType, O) - B; K < ix(A.Ptr, A.PtrType, O + 1) - B; ++K) {
        int64_t I = ix(A.Ind, A.IndType, K) - B;
        A.Fmt == 2 ? Fn(O, I, load(A.Val, A.Type, K)) : Fn(I, O, load(A.Val, A.Type, K));
      }
}
int64_t at(const Dn &M, int64_t I, int64_t J) { return M.Order == 0 ? I * M.Ld + J : J * M.Ld + I; }
void note(Handle *H) {
  ++Calls;
  LastStream = H->Stream;
  LastPointerMode = H->PointerMode;
}
} // namespace

extern "C" {
int rocsparse_create_handle(void **H) {
  *H = new Handle;
  return Ok;
}
int rocsparse_destroy_handle(void *H) {
  delete static_cast<Handle *>(H);
  return Ok;
}
int rocsparse_set_stream(void *H, void *S) {
  static_cast<Handle *>(H)->Stream = S;
  return Ok;
}
int rocsparse_set_pointer_mode(void *H, int M) {
  static_cast<Handle *>(H)->PointerMode = M;
  return Ok;
}
int rocsparse_create_csr_descr(void **D, int64_t R, int64_t C, int64_t Nnz, void *Off, void *Ind, void *Val, int Ot,
                               int It, int B, int T) {
  *D = new Sp{2, R, C, Nnz, Off, Ind, Val, Ot, It, B, T};
  return Ok;
}
int rocsparse_create_csc_descr(void **D, int64_t R, int64_t C, int64_t Nnz, void *Off, void *Ind, void *Val, int Ot,
                               int It, int B, int T) {
  *D = new Sp{3, R, C, Nnz, Off, Ind, Val, Ot, It, B, T};
  return Ok;
}
int rocsparse_create_coo_descr(void **D, int64_t R, int64_t C, int64_t Nnz, void *Rows, void *Cols, void *Val, int It,
                               int B, int T) {
  *D = new Sp{0, R, C, Nnz, Rows, Cols, Val, It, It, B, T};
  return Ok;
}
int rocsparse_destroy_spmat_descr(void *D) {
  delete static_cast<Sp *>(D);
  return Ok;
}
int rocsparse_create_dnvec_descr(void **D, int64_t N, void *Val, int T) {
  *D = new Dn{N, 1, N, Val, T, 1};
  return Ok;
}
int rocsparse_destroy_dnvec_descr(void *D) {
  delete static_cast<Dn *>(D);
  return Ok;
}
int rocsparse_create_dnmat_descr(void **D, int64_t R, int64_t C, int64_t Ld, void *Val, int T, int Order) {
  *D = new Dn{R, C, Ld, Val, T, Order};
  return Ok;
}
int rocsparse_destroy_dnmat_descr(void *D) {
  delete static_cast<Dn *>(D);
  return Ok;
}
/// C = alpha op(A) op(B) + beta C; a vector is a one-column matrix.
static int product(Handle *H, int OpA, int OpB, const void *Alpha, const Sp &A, const Dn &B, const void *Beta,
                   const Dn &C, int Type) {
  if (OpA < 111 || OpA > 113 || OpB < 111 || OpB > 113 || A.Type != Type || B.Type != Type || C.Type != Type)
    return Invalid;
  Z Al = load(Alpha, Type, 0), Be = load(Beta, Type, 0);
  for (int64_t J = 0; J < C.Cols; ++J)
    for (int64_t I = 0; I < C.Rows; ++I)
      store(C.Val, C.Type, at(C, I, J), Be == Z(0) ? Z(0) : Be * load(C.Val, C.Type, at(C, I, J)));
  entries(A, [&](int64_t R, int64_t Cc, Z V) {
    int64_t I = R, K = Cc;
    if (OpA != 111) {
      I = Cc, K = R;
      if (OpA == 113)
        V = std::conj(V);
    }
    for (int64_t J = 0; J < C.Cols; ++J) {
      Z Bv = OpB == 111 ? load(B.Val, B.Type, at(B, K, J)) : load(B.Val, B.Type, at(B, J, K));
      if (OpB == 113)
        Bv = std::conj(Bv);
      store(C.Val, C.Type, at(C, I, J), load(C.Val, C.Type, at(C, I, J)) + Al * V * Bv);
    }
  });
  note(H);
  return Ok;
}
int rocsparse_spmv(void *H, int Op, const void *Alpha, void *A, void *X, const void *Beta, void *Y, int Type, int,
                   size_t *Size, void *Buffer) {
  if (!Buffer) {
    *Size = Need;
    return Ok;
  }
  return product(static_cast<Handle *>(H), Op, 111, Alpha, *static_cast<Sp *>(A), *static_cast<Dn *>(X), Beta,
                 *static_cast<Dn *>(Y), Type);
}
int rocsparse_spmm(void *H, int OpA, int OpB, const void *Alpha, void *A, void *B, const void *Beta, void *C,
                   int Type, int, int Stage, size_t *Size, void *Buffer) {
  if (Stage == 1) {
    *Size = Need;
    return Ok;
  }
  if (!Buffer)
    return Invalid;
  if (Stage == 2)
    return Ok;
  return product(static_cast<Handle *>(H), OpA, OpB, Alpha, *static_cast<Sp *>(A), *static_cast<Dn *>(B), Beta,
                 *static_cast<Dn *>(C), Type);
}

int fakeRocsparseCalls() { return Calls; }
void *fakeRocsparseLastStream() { return LastStream; }
int fakeRocsparseLastPointerMode() { return LastPointerMode; }
}
