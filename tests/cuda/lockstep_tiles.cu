// Tensor-core tiles the way an LLM inference library's f16 x f32 matrix
// product stages them (written here from its description): one warp per
// block, one shared buffer reused for every tile. Each step stores the next
// rows of A (or the f32 activations converted to f16 pairs, as B) right after
// the ldmatrix that read the previous ones, and the f32 accumulators are
// written to the same buffer and summed across lanes with no __syncwarp: the
// code counts on the warp running in lockstep, as it does on NVIDIA's GPUs.
// On the CPU device, whose lanes run one after another between the points
// where they meet, this came out wrong (normalized error 0.3-1.2) until
// ldmatrix read every lane's rows before any lane went on and the lanes met
// before a shared load that follows shared stores with nothing between.
// Checked against a double-precision host product, several shapes.
#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>
#include <vector>

constexpr int Rows = 32;      // rows of A per block (two 16-row mma tiles)
constexpr int Pad = 36;       // words per row of the staging buffer (32 + 4)

__device__ void ldsm4(unsigned (&R)[4], const void *P) {
  unsigned A = static_cast<unsigned>(__cvta_generic_to_shared(P));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(R[0]), "=r"(R[1]), "=r"(R[2]), "=r"(R[3])
               : "r"(A));
}
__device__ void ldsm2(unsigned (&R)[2], const void *P) {
  unsigned A = static_cast<unsigned>(__cvta_generic_to_shared(P));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(R[0]), "=r"(R[1]) : "r"(A));
}
__device__ void mma(float (&D)[4], const unsigned (&A)[4], const unsigned (&B)[2]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};"
               : "+f"(D[0]), "+f"(D[1]), "+f"(D[2]), "+f"(D[3])
               : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]));
}

/// Dst[c][r] = sum_k X[r][k] * Y[c][k] for Cols (<= 8) columns; X is f16 with
/// row stride Sx halves, Y f32 with column stride K. One warp per 32 rows.
template <int Cols>
__global__ void tileProduct(const __half2 *X, const float2 *Y, float *Dst, int K, int Sx, int M) {
  __shared__ unsigned Buf[16 * Pad]; // 16 rows of 32 words (+4 padding)
  const int Lane = threadIdx.x, Row0 = blockIdx.x * Rows;
  float C[2][4] = {};
  for (int Col = Lane; Col < K / 2; Col += 32) {
    unsigned A[2][4][4]; // [tile][k step][regs]
    for (int T = 0; T < 2; ++T) {
      for (int I = 0; I < 16; ++I) { // this lane's column of 16 rows
        __half2 V = X[(Row0 + 16 * T + I) * (Sx / 2) + Col];
        Buf[I * Pad + Lane] = *reinterpret_cast<unsigned *>(&V);
      }
      for (int S = 0; S < 4; ++S) // k steps of 8 words (16 halves)
        ldsm4(A[T][S], &Buf[(Lane % 16) * Pad + 8 * S + (Lane / 16) * 4]);
    }
    for (int J = 0; J < 8; ++J) { // B: 8 columns (the ones past Cols are zero)
      float2 F = J < Cols ? Y[J * (K / 2) + Col] : make_float2(0.0f, 0.0f);
      __half2 H = __float22half2_rn(F);
      Buf[J * Pad + Lane] = *reinterpret_cast<unsigned *>(&H);
    }
    for (int S = 0; S < 4; ++S) {
      unsigned B[2];
      ldsm2(B, &Buf[(Lane % 8) * Pad + 8 * S + ((Lane / 8) % 2) * 4]);
      for (int T = 0; T < 2; ++T)
        mma(C[T], A[T][S], B);
    }
  }
  // The accumulators through the same buffer, summed by row: lane L owns
  // row L (no __syncwarp: one warp, in lockstep).
  float *W = reinterpret_cast<float *>(Buf);
  for (int T = 0; T < 2; ++T)
    for (int E = 0; E < 4; ++E) {
      int R = 16 * T + Lane / 4 + (E >= 2 ? 8 : 0), Cc = 2 * (Lane % 4) + (E & 1);
      W[Cc * Pad + R] = C[T][E];
    }
  for (int Cc = 0; Cc < Cols; ++Cc)
    Dst[Cc * M + Row0 + Lane] = W[Cc * Pad + Lane];
}

template <int Cols> static int check(int M, int K, int PadHalves) {
  int Sx = K + PadHalves;
  std::vector<__half> X(size_t(M) * Sx);
  std::vector<float> Y(size_t(Cols) * K);
  unsigned S = 12345;
  auto rnd = [&] {
    S = S * 1664525u + 1013904223u;
    return float(int(S >> 20) - 2048) / 1024.0f;
  };
  for (__half &V : X)
    V = __float2half(rnd());
  for (float &V : Y)
    V = rnd();
  __half2 *DX;
  float2 *DY;
  float *DD;
  cudaMalloc(&DX, X.size() * 2);
  cudaMalloc(&DY, Y.size() * 4);
  cudaMalloc(&DD, size_t(Cols) * M * 4);
  cudaMemcpy(DX, X.data(), X.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(DY, Y.data(), Y.size() * 4, cudaMemcpyHostToDevice);
  cudaMemset(DD, 0xff, size_t(Cols) * M * 4);
  tileProduct<Cols><<<M / Rows, 32>>>(DX, DY, DD, K, Sx, M);
  cudaError_t E = cudaDeviceSynchronize();
  std::vector<float> G(size_t(Cols) * M);
  cudaMemcpy(G.data(), DD, G.size() * 4, cudaMemcpyDeviceToHost);
  double Err = 0, Norm = 0;
  for (int C = 0; C < Cols; ++C)
    for (int R = 0; R < M; ++R) {
      double Want = 0;
      for (int Kk = 0; Kk < K; ++Kk)
        Want += double(__half2float(X[size_t(R) * Sx + Kk])) * double(__half2float(__float2half(Y[size_t(C) * K + Kk])));
      double D = G[size_t(C) * M + R] - Want;
      Err += D * D;
      Norm += Want * Want;
    }
  double Nmse = Err / Norm;
  bool Bad = E != cudaSuccess || !(Nmse < 1e-9);
  std::printf("%d columns, %d x %d (row padding %d): normalized error %.3g %s\n", Cols, M, K, PadHalves, Nmse,
              Bad ? "FAIL" : "ok");
  cudaFree(DX);
  cudaFree(DY);
  cudaFree(DD);
  return Bad;
}

int main() {
  int Bad = 0;
  Bad += check<1>(64, 128, 0);
  Bad += check<2>(64, 128, 0);
  Bad += check<2>(96, 256, 64);
  Bad += check<8>(64, 192, 8);
  std::printf("lockstep_tiles: %s\n", Bad ? "FAIL" : "PASS");
  return Bad;
}
