// Calls in machine code (built for one sm_XX, no PTX): device functions ptxas
// keeps out of line (__noinline__, recursion: CALL.REL within the kernel's
// section, returning through a register) and calls through function pointers
// (CALL.REL.NOINC Ra: a pointer chosen per thread from ptxas's literal bank,
// and one read from a __device__ table the program fills from the host's
// copy), each against the host's answer.
#include "common.h"

constexpr int N = 96;
typedef float (*Fn)(float);

__host__ __device__ __noinline__ float twice(float X) { return 2.0f * X + 1.0f; }
__host__ __device__ __noinline__ float square(float X) { return X * X; }
__host__ __device__ __noinline__ float negate(float X) { return -X; }
__host__ __device__ __noinline__ int factorial(int N) { return N <= 1 ? 1 : N * factorial(N - 1); }
__host__ __device__ __noinline__ int fib(int N) { return N < 2 ? N : fib(N - 1) + fib(N - 2); }

__device__ Fn Table[3] = {twice, square, negate};

__global__ void pointers(float *Out, const float *In, int *IntOut, int Sel) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  Fn Local = ((I + Sel) & 1) ? square : negate; // a literal pointer per thread
  Out[I] = twice(In[I]) + Table[(I + Sel) % 3](In[I]) + Local(In[I]);
  IntOut[I] = factorial(I % 9) + fib(I % 12);
}

int main() {
  float HIn[N], HOut[N];
  int HInt[N];
  for (int I = 0; I < N; ++I)
    HIn[I] = 0.25f * float(I) - 7.0f;
  float *In, *Out;
  int *IntOut;
  CHECK(cudaMalloc(&In, sizeof HIn));
  CHECK(cudaMalloc(&Out, sizeof HOut));
  CHECK(cudaMalloc(&IntOut, sizeof HInt));
  CHECK(cudaMemcpy(In, HIn, sizeof HIn, cudaMemcpyHostToDevice));
  int Failures = 0;
  for (int Sel = 0; Sel < 3; ++Sel) {
    CHECK(cudaMemset(Out, 0xff, sizeof HOut));
    CHECK(cudaMemset(IntOut, 0xff, sizeof HInt));
    pointers<<<2, 48>>>(Out, In, IntOut, Sel);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(HOut, Out, sizeof HOut, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(HInt, IntOut, sizeof HInt, cudaMemcpyDeviceToHost));
    Fn Host[3] = {twice, square, negate};
    for (int I = 0; I < N; ++I) {
      float X = HIn[I];
      float Want = twice(X) + Host[(I + Sel) % 3](X) + (((I + Sel) & 1) ? square(X) : negate(X));
      int WantInt = factorial(I % 9) + fib(I % 12);
      if (HOut[I] != Want || HInt[I] != WantInt) {
        if (++Failures <= 5)
          std::printf("FAIL sel %d element %d: got %g %d, want %g %d\n", Sel, I, HOut[I], HInt[I], Want, WantInt);
      }
    }
  }
  return verdict("sass_calls", Failures);
}
