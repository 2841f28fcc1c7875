// Every wmma shape and type beyond m16n16k16 f16 (CUDA's <mma.h>, sm_80):
// f16 m32n8k16/m8n32k16 with f16 or f32 accumulators, bf16 and s8/u8 in the
// three 16-deep shapes, tf32 m16n16k8, f64 m8n8k4, s4/u4 m8n8k32 and b1
// m8n8k128 (xor and and, popc), in row and column layouts, from padded
// leading dimensions, with the accumulator scaled element by element between
// load and mma. The values make every product and sum exact, so D must equal
// the host's A x B + s C bit for bit whatever the summation order; the
// padding between rows of D must keep its poison.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>
using namespace nvcuda;
namespace wx = nvcuda::wmma::experimental;

template <int M, int N, int K, typename TA, typename LA, typename LB, typename TAcc, typename SA>
__global__ void gemmKernel(const SA *a, unsigned lda, const SA *b, unsigned ldb, const TAcc *c, unsigned ldc, int cCol,
                           TAcc *d, unsigned ldd, int dCol, TAcc scale, int satf) {
  wmma::fragment<wmma::matrix_a, M, N, K, TA, LA> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, TA, LB> fb;
  wmma::fragment<wmma::accumulator, M, N, K, TAcc> fc;
  wmma::load_matrix_sync(fa, a, lda);
  wmma::load_matrix_sync(fb, b, ldb);
  wmma::load_matrix_sync(fc, c, ldc, cCol ? wmma::mem_col_major : wmma::mem_row_major);
  if constexpr (std::is_same_v<TA, wmma::precision::tf32>) {
    for (int i = 0; i < fa.num_elements; ++i)
      fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; ++i)
      fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
  }
  for (int i = 0; i < fc.num_elements; ++i)
    fc.x[i] = fc.x[i] * scale;
  if constexpr (std::is_same_v<TAcc, int>)
    wmma::mma_sync(fc, fa, fb, fc, satf != 0);
  else
    wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, ldd, dCol ? wmma::mem_col_major : wmma::mem_row_major);
}

__global__ void bmmaKernel(const unsigned *a, unsigned lda, const unsigned *b, unsigned ldb, const int *c, unsigned ldc,
                           int *d, unsigned ldd, int andOp) {
  wmma::fragment<wmma::matrix_a, 8, 8, 128, wx::precision::b1, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 128, wx::precision::b1, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 128, int> fc;
  wmma::load_matrix_sync(fa, a, lda);
  wmma::load_matrix_sync(fb, b, ldb);
  wmma::load_matrix_sync(fc, c, ldc, wmma::mem_row_major);
  if (andOp)
    wmma::bmma_sync(fc, fa, fb, fc, wx::bmmaBitOpAND, wx::bmmaAccumulateOpPOPC);
  else
    wmma::bmma_sync(fc, fa, fb, fc, wx::bmmaBitOpXOR, wx::bmmaAccumulateOpPOPC);
  wmma::store_matrix_sync(d, fc, ldd, wmma::mem_row_major);
}

static std::mt19937 Rng(20261207);
static int randInt(int Lo, int Hi) { return std::uniform_int_distribution<int>(Lo, Hi)(Rng); }

// Host storage of one element type: bits per element and the encoding of an exact value.
template <typename S> struct Enc {
  static constexpr int Bits = 8 * sizeof(S);
  static void put(std::vector<unsigned char> &Mem, size_t I, double V) {
    S X;
    if constexpr (std::is_same_v<S, __half>)
      X = __float2half(static_cast<float>(V));
    else if constexpr (std::is_same_v<S, __nv_bfloat16>)
      X = __float2bfloat16(static_cast<float>(V));
    else
      X = static_cast<S>(V);
    std::memcpy(Mem.data() + I * sizeof(S), &X, sizeof(S));
  }
  static double get(const std::vector<unsigned char> &Mem, size_t I) {
    S X;
    std::memcpy(&X, Mem.data() + I * sizeof(S), sizeof(S));
    if constexpr (std::is_same_v<S, __half>)
      return __half2float(X);
    else if constexpr (std::is_same_v<S, __nv_bfloat16>)
      return __bfloat162float(X);
    else
      return static_cast<double>(X);
  }
};
struct Nibble { // s4/u4: element i in bits 4(i%2).. of byte i/2
  static constexpr int Bits = 4;
  static void put(std::vector<unsigned char> &Mem, size_t I, double V) {
    unsigned Q = static_cast<unsigned>(static_cast<int>(V)) & 15;
    Mem[I / 2] = static_cast<unsigned char>((Mem[I / 2] & ~(15u << 4 * (I % 2))) | Q << 4 * (I % 2));
  }
};
struct Bit { // b1: element i in bit i%8 of byte i/8
  static constexpr int Bits = 1;
  static void put(std::vector<unsigned char> &Mem, size_t I, double V) {
    Mem[I / 8] = static_cast<unsigned char>((Mem[I / 8] & ~(1u << I % 8)) | (V != 0 ? 1u << I % 8 : 0u));
  }
};

/// A Rows x Cols matrix stored with leading dimension Ld (elements) in row or column order.
template <typename E> std::vector<unsigned char> store(const std::vector<double> &V, int Rows, int Cols, bool Col, int Ld) {
  size_t Elems = static_cast<size_t>(Ld) * (Col ? Cols : Rows);
  std::vector<unsigned char> Mem((Elems * E::Bits + 7) / 8 + 16, 0);
  for (int R = 0; R < Rows; ++R)
    for (int C = 0; C < Cols; ++C)
      E::put(Mem, Col ? static_cast<size_t>(C) * Ld + R : static_cast<size_t>(R) * Ld + C, V[R * Cols + C]);
  return Mem;
}

static void *toDevice(const std::vector<unsigned char> &H) {
  void *P = nullptr;
  cudaMalloc(&P, H.size());
  cudaMemcpy(P, H.data(), H.size(), cudaMemcpyHostToDevice);
  return P;
}

struct Values {
  int Lo, Hi;
  double Div; // element = randInt(Lo, Hi) / Div
  std::vector<double> make(int N) const {
    std::vector<double> V(N);
    for (auto &X : V)
      X = randInt(Lo, Hi) / Div;
    return V;
  }
};

static int Failures = 0;
static void report(const char *Name, int Bad, int Total) {
  std::printf("%-44s %s (%d of %d elements wrong)\n", Name, Bad ? "FAIL" : "ok", Bad, Total);
  Failures += Bad != 0;
}

/// Runs one gemmKernel instance and compares D (and D's padding) with the host.
template <int M, int N, int K, typename TA, typename LA, typename LB, typename TAcc, typename EA, typename SA = void>
void runCase(const char *Name, Values VA, Values VC, double Scale, bool CCol, bool DCol, bool Satf = false,
             double CBias = 0) {
  constexpr bool ACol = std::is_same_v<LA, wmma::col_major>, BCol = std::is_same_v<LB, wmma::col_major>;
  constexpr int Pad = 128 / EA::Bits; // 16 bytes of padding per row
  int Lda = (ACol ? M : K) + Pad, Ldb = (BCol ? K : N) + Pad;
  constexpr int AccPad = 16 / sizeof(TAcc);
  int Ldc = (CCol ? M : N) + AccPad, Ldd = (DCol ? M : N) + AccPad;
  std::vector<double> A = VA.make(M * K), B = VA.make(K * N), C = VC.make(M * N);
  for (auto &X : C)
    X += CBias;
  auto HA = store<EA>(A, M, K, ACol, Lda), HB = store<EA>(B, K, N, BCol, Ldb);
  auto HC = store<Enc<TAcc>>(C, M, N, CCol, Ldc);
  size_t DElems = static_cast<size_t>(Ldd) * (DCol ? N : M);
  std::vector<unsigned char> HD(DElems * sizeof(TAcc), 0xa5); // poison
  void *DA = toDevice(HA), *DB = toDevice(HB), *DC = toDevice(HC), *DD = toDevice(HD);
  using Src = std::conditional_t<std::is_void_v<SA>, unsigned, SA>;
  gemmKernel<M, N, K, TA, LA, LB, TAcc, Src><<<1, 32>>>(
      static_cast<const Src *>(DA), Lda, static_cast<const Src *>(DB), Ldb, static_cast<const TAcc *>(DC), Ldc, CCol,
      static_cast<TAcc *>(DD), Ldd, DCol, static_cast<TAcc>(Scale), Satf);
  cudaError_t E = cudaDeviceSynchronize();
  std::vector<unsigned char> Out(HD.size());
  cudaMemcpy(Out.data(), DD, Out.size(), cudaMemcpyDeviceToHost);
  int Bad = E != cudaSuccess ? M * N : 0;
  if (E != cudaSuccess)
    std::printf("%s: %s\n", Name, cudaGetErrorString(E));
  for (int R = 0; R < M && E == cudaSuccess; ++R)
    for (int Cc = 0; Cc < N; ++Cc) {
      double Want = Scale * C[R * N + Cc];
      for (int Q = 0; Q < K; ++Q)
        Want += A[R * K + Q] * B[Q * N + Cc];
      if (Satf)
        Want = Want > 2147483647.0 ? 2147483647.0 : Want < -2147483648.0 ? -2147483648.0 : Want;
      size_t I = DCol ? static_cast<size_t>(Cc) * Ldd + R : static_cast<size_t>(R) * Ldd + Cc;
      double Got = Enc<TAcc>::get(Out, I);
      if (Got != Want) {
        if (Bad < 3)
          std::printf("  %s: D[%d][%d] = %.9g, want %.9g\n", Name, R, Cc, Got, Want);
        ++Bad;
      }
    }
  // The padding of each row (column) of D keeps its poison.
  for (size_t I = 0; I < DElems && E == cudaSuccess; ++I)
    if (I % Ldd >= static_cast<size_t>(DCol ? M : N))
      for (size_t Byte = 0; Byte < sizeof(TAcc); ++Byte)
        Bad += Out[I * sizeof(TAcc) + Byte] != 0xa5;
  report(Name, Bad, M * N);
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DC);
  cudaFree(DD);
}

static void runBmma(const char *Name, bool AndOp) {
  constexpr int M = 8, N = 8, K = 128, Ld = 256; // 128 bits of padding per row
  std::vector<double> A(M * K), B(K * N), C(M * N);
  for (auto &X : A)
    X = randInt(0, 1);
  for (auto &X : B)
    X = randInt(0, 1);
  for (auto &X : C)
    X = randInt(-1000, 1000);
  auto HA = store<Bit>(A, M, K, false, Ld), HB = store<Bit>(B, K, N, true, Ld);
  auto HC = store<Enc<int>>(C, M, N, false, N);
  std::vector<unsigned char> HD(M * N * 4, 0xa5);
  void *DA = toDevice(HA), *DB = toDevice(HB), *DC = toDevice(HC), *DD = toDevice(HD);
  bmmaKernel<<<1, 32>>>(static_cast<const unsigned *>(DA), Ld, static_cast<const unsigned *>(DB), Ld,
                        static_cast<const int *>(DC), N, static_cast<int *>(DD), N, AndOp);
  cudaError_t E = cudaDeviceSynchronize();
  std::vector<unsigned char> Out(HD.size());
  cudaMemcpy(Out.data(), DD, Out.size(), cudaMemcpyDeviceToHost);
  int Bad = E != cudaSuccess ? M * N : 0;
  for (int R = 0; R < M && E == cudaSuccess; ++R)
    for (int Cc = 0; Cc < N; ++Cc) {
      int Want = static_cast<int>(C[R * N + Cc]);
      for (int Q = 0; Q < K; ++Q) {
        int X = static_cast<int>(A[R * K + Q]), Y = static_cast<int>(B[Q * N + Cc]);
        Want += AndOp ? (X & Y) : (X ^ Y);
      }
      Bad += static_cast<int>(Enc<int>::get(Out, R * N + Cc)) != Want;
    }
  report(Name, Bad, M * N);
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DC);
  cudaFree(DD);
}

int main() {
  using R = wmma::row_major;
  using Cm = wmma::col_major;
  const Values Half{-8, 8, 4}, AccF{-512, 512, 8}, AccH{-64, 64, 4}, S8{-128, 127, 1}, U8{0, 255, 1},
      IntC{-100000, 100000, 1}, S4{-8, 7, 1}, U4{0, 15, 1};
  // f16 inputs, the 32x8 and 8x32 shapes (and m16n16k16 with padded strides and a scaled accumulator).
  runCase<16, 16, 16, __half, R, Cm, float, Enc<__half>, __half>("f16 m16n16k16 row.col f32", Half, AccF, 2, false, false);
  runCase<32, 8, 16, __half, R, Cm, float, Enc<__half>, __half>("f16 m32n8k16 row.col f32", Half, AccF, 2, false, true);
  runCase<32, 8, 16, __half, Cm, R, float, Enc<__half>, __half>("f16 m32n8k16 col.row f32", Half, AccF, -1, true, false);
  runCase<32, 8, 16, __half, R, R, __half, Enc<__half>, __half>("f16 m32n8k16 row.row f16", Half, AccH, 1, false, false);
  runCase<8, 32, 16, __half, R, Cm, float, Enc<__half>, __half>("f16 m8n32k16 row.col f32", Half, AccF, 2, true, true);
  runCase<8, 32, 16, __half, Cm, Cm, __half, Enc<__half>, __half>("f16 m8n32k16 col.col f16", Half, AccH, 1, false, true);
  runCase<8, 32, 16, __half, Cm, R, __half, Enc<__half>, __half>("f16 m8n32k16 col.row f16", Half, AccH, -1, true, false);
  // bf16 inputs, f32 accumulators.
  runCase<16, 16, 16, __nv_bfloat16, R, Cm, float, Enc<__nv_bfloat16>, __nv_bfloat16>("bf16 m16n16k16 row.col", Half, AccF,
                                                                                       1, false, false);
  runCase<16, 16, 16, __nv_bfloat16, Cm, R, float, Enc<__nv_bfloat16>, __nv_bfloat16>("bf16 m16n16k16 col.row", Half, AccF,
                                                                                       2, true, true);
  runCase<32, 8, 16, __nv_bfloat16, R, R, float, Enc<__nv_bfloat16>, __nv_bfloat16>("bf16 m32n8k16 row.row", Half, AccF, 1,
                                                                                     false, true);
  runCase<8, 32, 16, __nv_bfloat16, Cm, Cm, float, Enc<__nv_bfloat16>, __nv_bfloat16>("bf16 m8n32k16 col.col", Half, AccF,
                                                                                       1, true, false);
  // tf32 inputs (floats rounded by __float_to_tf32), f32 accumulators.
  runCase<16, 16, 8, wmma::precision::tf32, R, Cm, float, Enc<float>, float>("tf32 m16n16k8 row.col", Half, AccF, 1, false,
                                                                              false);
  runCase<16, 16, 8, wmma::precision::tf32, Cm, R, float, Enc<float>, float>("tf32 m16n16k8 col.row", Half, AccF, 2, true,
                                                                              true);
  // f64.
  runCase<8, 8, 4, double, R, Cm, double, Enc<double>, double>("f64 m8n8k4 row.col", Half, AccF, 1, false, false);
  runCase<8, 8, 4, double, Cm, R, double, Enc<double>, double>("f64 m8n8k4 col.row", Half, AccF, -2, true, true);
  runCase<8, 8, 4, double, R, R, double, Enc<double>, double>("f64 m8n8k4 row.row", Half, AccF, 1, false, true);
  // 8-bit integers in the 32x8 and 8x32 shapes; saturation.
  runCase<32, 8, 16, signed char, R, Cm, int, Enc<signed char>, signed char>("s8 m32n8k16 row.col", S8, IntC, 1, false,
                                                                              false);
  runCase<32, 8, 16, unsigned char, Cm, R, int, Enc<unsigned char>, unsigned char>("u8 m32n8k16 col.row", U8, IntC, 3, true,
                                                                                    true);
  runCase<8, 32, 16, signed char, R, R, int, Enc<signed char>, signed char>("s8 m8n32k16 row.row", S8, IntC, 1, false,
                                                                             true);
  runCase<8, 32, 16, unsigned char, Cm, Cm, int, Enc<unsigned char>, unsigned char>("u8 m8n32k16 col.col", U8, IntC, 1,
                                                                                     true, false);
  runCase<16, 16, 16, unsigned char, R, Cm, int, Enc<unsigned char>, unsigned char>(
      "u8 m16n16k16 satfinite", U8, IntC, 1, false, false, true, 2147000000.0);
  // 4-bit integers and single bits.
  runCase<8, 8, 32, wx::precision::s4, R, Cm, int, Nibble>("s4 m8n8k32 row.col", S4, IntC, 1, false, false);
  runCase<8, 8, 32, wx::precision::u4, R, Cm, int, Nibble>("u4 m8n8k32 row.col", U4, IntC, 2, true, true);
  runBmma("b1 m8n8k128 xor.popc", false);
  runBmma("b1 m8n8k128 and.popc", true);
  std::printf("%s\n", Failures ? "FAILED" : "PASSED");
  return Failures ? 1 : 0;
}
