// cuFFT: every transform type, 1D/2D/3D, batched, in place and out of place,
// PlanMany with advanced layouts, the Xt plan, streams; each result against
// a naive DFT computed here in long double from the same random input.
#include "libs_common.h"
#include <cufft.h>
#include <cufftXt.h>
#include <cuda_fp16.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>


using CL = std::complex<long double>;
static int Bad = 0;
static std::mt19937 Rng(2024);

/// The multi-dimensional DFT of one batch: In and Out indexed by the logical
/// row-major index of dims N (naive, O(n^2)).
static std::vector<CL> dft(const std::vector<CL> &In, const std::vector<int> &N, int Sign) {
  size_t Total = 1;
  for (int X : N)
    Total *= X;
  std::vector<CL> Out(Total);
  const long double Pi = 3.14159265358979323846264338327950288L;
  std::vector<int> Ko(N.size()), Ki(N.size());
  for (size_t O = 0; O < Total; ++O) {
    size_t R = O;
    for (int D = int(N.size()) - 1; D >= 0; --D)
      Ko[D] = int(R % N[D]), R /= N[D];
    CL S = 0;
    for (size_t I = 0; I < Total; ++I) {
      size_t Q = I;
      long double Ph = 0;
      for (int D = int(N.size()) - 1; D >= 0; --D) {
        Ki[D] = int(Q % N[D]), Q /= N[D];
        Ph += (long double)((long long)Ki[D] * Ko[D] % N[D]) / N[D];
      }
      Ph *= 2 * Pi * Sign;
      S += In[I] * CL(std::cos(Ph), std::sin(Ph));
    }
    Out[O] = S;
  }
  return Out;
}

static double tol(bool Double, size_t Total) {
  return (Double ? 1e-12 : 2e-6) * (std::log2(double(Total)) + 1) * 4;
}

/// Compares with a relative (to the largest magnitude) error bound.
static void compare(const char *What, const std::vector<CL> &Want, const std::vector<CL> &Got, bool Double) {
  long double Max = 1e-30L, Err = 0;
  for (size_t I = 0; I < Want.size(); ++I) {
    Max = std::max(Max, std::abs(Want[I]));
    Err = std::max(Err, std::abs(Want[I] - Got[I]));
  }
  double Rel = double(Err / Max);
  if (!(Rel <= tol(Double, Want.size()))) {
    std::printf("FAIL %s: relative error %.3g (bound %.3g)\n", What, Rel, tol(Double, Want.size()));
    ++Bad;
  }
}

template <typename R> static std::vector<R> randomReals(size_t N) {
  std::uniform_real_distribution<double> U(-1, 1);
  std::vector<R> V(N);
  for (auto &X : V)
    X = R(U(Rng));
  return V;
}

/// C2C or Z2Z: rank/dims N, batch B, in place or not, both directions.
template <typename R> static void complexCase(const std::vector<int> &N, int B, bool InPlace) {
  const bool Dbl = sizeof(R) == 8;
  size_t Total = 1;
  for (int X : N)
    Total *= X;
  auto Raw = randomReals<R>(2 * Total * B);
  R *DIn = dev(Raw);
  R *DOut = InPlace ? DIn : dev(std::vector<R>(2 * Total * B, R(NAN)));
  cufftHandle P;
  std::vector<int> NN = N;
  CF(cufftPlanMany(&P, int(N.size()), NN.data(), nullptr, 1, 0, nullptr, 1, 0, Dbl ? CUFFT_Z2Z : CUFFT_C2C, B));
  for (int Sign : {CUFFT_FORWARD, CUFFT_INVERSE}) {
    CHECK(cudaMemcpy(DIn, Raw.data(), Raw.size() * sizeof(R), cudaMemcpyHostToDevice));
    if (Dbl)
      CF(cufftExecZ2Z(P, (cufftDoubleComplex *)DIn, (cufftDoubleComplex *)DOut, Sign));
    else
      CF(cufftExecC2C(P, (cufftComplex *)DIn, (cufftComplex *)DOut, Sign));
    auto Got = host(DOut, 2 * Total * B);
    for (int Bt = 0; Bt < B; ++Bt) {
      std::vector<CL> In(Total), G(Total);
      for (size_t I = 0; I < Total; ++I) {
        In[I] = CL(Raw[2 * (Bt * Total + I)], Raw[2 * (Bt * Total + I) + 1]);
        G[I] = CL(Got[2 * (Bt * Total + I)], Got[2 * (Bt * Total + I) + 1]);
      }
      char W[128];
      std::snprintf(W, sizeof W, "%s rank %zu n0 %d batch %d/%d %s sign %d", Dbl ? "Z2Z" : "C2C", N.size(), N[0], Bt,
                    B, InPlace ? "in place" : "out of place", Sign);
      compare(W, dft(In, N, Sign), G, Dbl);
    }
  }
  CF(cufftDestroy(P));
  cudaFree(DIn);
  if (!InPlace)
    cudaFree(DOut);
}

/// R2C then C2R (D2Z/Z2D) with the basic layout: in place pads rows.
template <typename R> static void realCase(const std::vector<int> &N, int B, bool InPlace) {
  const bool Dbl = sizeof(R) == 8;
  const int Rk = int(N.size());
  size_t Total = 1, Outer = 1;
  for (int X : N)
    Total *= X;
  for (int D = 0; D + 1 < Rk; ++D)
    Outer *= N[D];
  const size_t Half = N[Rk - 1] / 2 + 1, CTotal = Outer * Half;
  const size_t RealRow = InPlace ? 2 * Half : N[Rk - 1], RDist = Outer * RealRow;
  auto Raw = randomReals<R>(RDist * B);
  R *DReal = dev(Raw);
  R *DCplx = InPlace ? DReal : dev(std::vector<R>(2 * CTotal * B, R(NAN)));
  std::vector<int> NN = N;
  cufftHandle F, I;
  CF(cufftPlanMany(&F, Rk, NN.data(), nullptr, 1, 0, nullptr, 1, 0, Dbl ? CUFFT_D2Z : CUFFT_R2C, B));
  CF(cufftPlanMany(&I, Rk, NN.data(), nullptr, 1, 0, nullptr, 1, 0, Dbl ? CUFFT_Z2D : CUFFT_C2R, B));
  if (Dbl)
    CF(cufftExecD2Z(F, (cufftDoubleReal *)DReal, (cufftDoubleComplex *)DCplx));
  else
    CF(cufftExecR2C(F, (cufftReal *)DReal, (cufftComplex *)DCplx));
  auto Got = host(DCplx, 2 * CTotal * B);
  std::vector<std::vector<CL>> Spectra(B);
  for (int Bt = 0; Bt < B; ++Bt) {
    std::vector<CL> In(Total);
    for (size_t O = 0; O < Outer; ++O)
      for (int K = 0; K < N[Rk - 1]; ++K)
        In[O * N[Rk - 1] + K] = Raw[Bt * RDist + O * RealRow + K];
    auto Full = dft(In, N, -1);
    std::vector<CL> Want(CTotal), G(CTotal);
    for (size_t O = 0; O < Outer; ++O)
      for (size_t K = 0; K < Half; ++K) {
        Want[O * Half + K] = Full[O * N[Rk - 1] + K];
        size_t At = 2 * (Bt * CTotal + O * Half + K);
        G[O * Half + K] = CL(Got[At], Got[At + 1]);
      }
    Spectra[Bt] = Want;
    char W[128];
    std::snprintf(W, sizeof W, "%s rank %d n0 %d batch %d %s", Dbl ? "D2Z" : "R2C", Rk, N[0], Bt,
                  InPlace ? "in place" : "out of place");
    compare(W, Want, G, Dbl);
  }
  // Inverse of the spectrum: the input times the size.
  R *DBack = InPlace ? DReal : dev(std::vector<R>(RDist * B, R(NAN)));
  if (Dbl)
    CF(cufftExecZ2D(I, (cufftDoubleComplex *)DCplx, (cufftDoubleReal *)DBack));
  else
    CF(cufftExecC2R(I, (cufftComplex *)DCplx, (cufftReal *)DBack));
  auto Back = host(DBack, RDist * B);
  for (int Bt = 0; Bt < B; ++Bt) {
    std::vector<CL> Want(Total), G(Total);
    for (size_t O = 0; O < Outer; ++O)
      for (int K = 0; K < N[Rk - 1]; ++K) {
        Want[O * N[Rk - 1] + K] = (long double)Raw[Bt * RDist + O * RealRow + K] * (long double)Total;
        G[O * N[Rk - 1] + K] = Back[Bt * RDist + O * RealRow + K];
      }
    char W[128];
    std::snprintf(W, sizeof W, "%s rank %d n0 %d batch %d %s", Dbl ? "Z2D" : "C2R", Rk, N[0], Bt,
                  InPlace ? "in place" : "out of place");
    compare(W, Want, G, Dbl);
  }
  cufftDestroy(F);
  cufftDestroy(I);
  cudaFree(DReal);
  if (!InPlace) {
    cudaFree(DCplx);
    cudaFree(DBack);
  }
}

/// PlanMany with an advanced layout: batches interleaved (stride = batch,
/// dist = 1) into a padded output (ostride 2, odist = 2n + 3).
static void advancedLayout() {
  const int N = 24, B = 5;
  int Nn[1] = {N}, INe[1] = {N}, ONe[1] = {2 * N + 3};
  auto Raw = randomReals<float>(2 * N * B);
  float *DIn = dev(Raw);
  const int ODist = 2 * N + 3;
  float *DOut = dev(std::vector<float>(2 * ODist * B + 8, NAN));
  cufftHandle P;
  CF(cufftPlanMany(&P, 1, Nn, INe, B, 1, ONe, 2, ODist, CUFFT_C2C, B));
  CF(cufftExecC2C(P, (cufftComplex *)DIn, (cufftComplex *)DOut, CUFFT_FORWARD));
  auto Got = host(DOut, 2 * ODist * B + 8);
  for (int Bt = 0; Bt < B; ++Bt) {
    std::vector<CL> In(N), G(N);
    for (int K = 0; K < N; ++K) {
      In[K] = CL(Raw[2 * (K * B + Bt)], Raw[2 * (K * B + Bt) + 1]);
      G[K] = CL(Got[2 * (Bt * ODist + 2 * K)], Got[2 * (Bt * ODist + 2 * K) + 1]);
    }
    compare("C2C advanced layout", dft(In, {N}, -1), G, false);
    // The gaps of the output layout are not written.
    for (int K = 0; K < N; ++K)
      EXPECT(std::isnan(Got[2 * (Bt * ODist + 2 * K + 1)]));
  }
  cufftDestroy(P);
  cudaFree(DIn);
  cudaFree(DOut);
}

/// The Xt plan (64-bit sizes, data types) on a stream, and cufftXtExec.
static void xtPlan() {
  const long long N = 60;
  long long Nn[1] = {N};
  auto Raw = randomReals<double>(2 * N);
  double *D = dev(Raw);
  cufftHandle P;
  CF(cufftCreate(&P));
  size_t Work = 123;
  CF(cufftXtMakePlanMany(P, 1, Nn, nullptr, 1, 0, CUDA_C_64F, nullptr, 1, 0, CUDA_C_64F, 1, &Work, CUDA_C_64F));
  cudaStream_t S;
  CHECK(cudaStreamCreate(&S));
  CF(cufftSetStream(P, S));
  CF(cufftXtExec(P, D, D, CUFFT_INVERSE));
  CHECK(cudaStreamSynchronize(S));
  auto Got = host(D, 2 * N);
  std::vector<CL> In(N), G(N);
  for (int K = 0; K < N; ++K)
    In[K] = CL(Raw[2 * K], Raw[2 * K + 1]), G[K] = CL(Got[2 * K], Got[2 * K + 1]);
  compare("Xt Z2Z inverse on a stream", dft(In, {int(N)}, 1), G, true);
  cufftDestroy(P);
  cudaStreamDestroy(S);
  cudaFree(D);
}

/// cufftXtMalloc / Memcpy / ExecDescriptor on one GPU: an in-place R2C.
static void xtDescriptors() {
  const int N = 36;
  cufftHandle P;
  CF(cufftPlan1d(&P, N, CUFFT_R2C, 1));
  cudaLibXtDesc *D;
  CF(cufftXtMalloc(P, &D, CUFFT_XT_FORMAT_INPLACE));
  if (D->descriptor->size[0] == 0) {
    // NVIDIA's cuFFT allocates nothing for a plan without cufftXtSetGPUs
    // (observed on an H200); ours holds the plan's data.
    std::printf("single-GPU Xt descriptors hold no data on this cuFFT: skipped\n");
    cufftXtFree(D);
    cufftDestroy(P);
    return;
  }
  EXPECT(D->descriptor->nGPUs == 1 && D->descriptor->size[0] >= sizeof(float) * 2 * (N / 2 + 1));
  auto X = randomReals<float>(2 * (N / 2 + 1));
  CF(cufftXtMemcpy(P, D, X.data(), CUFFT_COPY_HOST_TO_DEVICE));
  CF(cufftXtExecDescriptorR2C(P, D, D));
  std::vector<float> Got(2 * (N / 2 + 1));
  CF(cufftXtMemcpy(P, Got.data(), D, CUFFT_COPY_DEVICE_TO_HOST));
  std::vector<CL> In(N), G(N / 2 + 1);
  for (int K = 0; K < N; ++K)
    In[K] = X[K];
  auto Full = dft(In, {N}, -1);
  Full.resize(N / 2 + 1);
  for (int K = 0; K <= N / 2; ++K)
    G[K] = CL(Got[2 * K], Got[2 * K + 1]);
  compare("cufftXtExecDescriptorR2C in place", Full, G, false);
  CF(cufftXtFree(D));
  cufftDestroy(P);
}

/// Half-precision plans (cufftXtMakePlanMany with CUDA_C_16F / CUDA_R_16F):
/// a batched C2C into a strided output (ostride 2: the gaps, NaN, stay
/// unwritten) and an R2C, against the DFT of the half-rounded input.
static void halfPlans() {
  const long long N = 64;
  long long Nn[1] = {N}, INe[1] = {N}, ONe[1] = {2 * N};
  // C2C, batch 2, out of place.
  std::vector<__half> In(2 * N * 2), Out(2 * 2 * N * 2, __float2half(NAN));
  auto Raw = randomReals<float>(In.size());
  for (size_t K = 0; K < In.size(); ++K)
    In[K] = __float2half(Raw[K]);
  __half *dIn = dev(In), *dOut = dev(Out);
  cufftHandle P;
  CF(cufftCreate(&P));
  size_t Work;
  CF(cufftXtMakePlanMany(P, 1, Nn, INe, 1, N, CUDA_C_16F, ONe, 2, 2 * N, CUDA_C_16F, 2, &Work, CUDA_C_16F));
  CF(cufftXtExec(P, dIn, dOut, CUFFT_FORWARD));
  auto Got = host(dOut, Out.size());
  for (int Bt = 0; Bt < 2; ++Bt) {
    std::vector<CL> X(N), G(N);
    for (int K = 0; K < N; ++K) {
      X[K] = CL(__half2float(In[2 * (Bt * N + K)]), __half2float(In[2 * (Bt * N + K) + 1]));
      const long long At = 2 * (Bt * 2 * N + 2 * K);
      G[K] = CL(__half2float(Got[At]), __half2float(Got[At + 1]));
      EXPECT(std::isnan(__half2float(Got[At + 2])) && std::isnan(__half2float(Got[At + 3]))); // the gap
    }
    auto Want = dft(X, {int(N)}, -1);
    long double Err = 0, Max = 0;
    for (int K = 0; K < N; ++K)
      Err = std::max(Err, std::abs(Want[K] - G[K])), Max = std::max(Max, std::abs(Want[K]));
    if (!(Err / Max < 4e-3)) {
      std::printf("FAIL half C2C: relative error %g\n", double(Err / Max));
      ++Bad;
    }
  }
  cufftDestroy(P);
  // R2C, in place (padded rows).
  std::vector<__half> R(2 * (N / 2 + 1));
  for (int K = 0; K < N; ++K)
    R[K] = __float2half(Raw[K]);
  __half *dR = dev(R);
  CF(cufftCreate(&P));
  CF(cufftXtMakePlanMany(P, 1, Nn, nullptr, 1, 0, CUDA_R_16F, nullptr, 1, 0, CUDA_C_16F, 1, &Work, CUDA_C_16F));
  CF(cufftXtExec(P, dR, dR, CUFFT_FORWARD));
  auto Spec = host(dR, R.size());
  std::vector<CL> X(N);
  for (int K = 0; K < N; ++K)
    X[K] = __half2float(R[K]);
  auto Want = dft(X, {int(N)}, -1);
  long double Err = 0, Max = 0;
  for (int K = 0; K <= N / 2; ++K) {
    CL G(__half2float(Spec[2 * K]), __half2float(Spec[2 * K + 1]));
    Err = std::max(Err, std::abs(Want[K] - G)), Max = std::max(Max, std::abs(Want[K]));
  }
  if (!(Err / Max < 4e-3)) {
    std::printf("FAIL half R2C: relative error %g\n", double(Err / Max));
    ++Bad;
  }
  cufftDestroy(P);
  cudaFree(dIn), cudaFree(dOut), cudaFree(dR);
}

static void errors() {
  cufftHandle P;
  EXPECT(cufftPlan1d(&P, 0, CUFFT_C2C, 1) == CUFFT_INVALID_SIZE);
  EXPECT(cufftPlan1d(&P, 16, cufftType(0x11), 1) == CUFFT_INVALID_TYPE);
  EXPECT(cufftExecC2C(12345, nullptr, nullptr, CUFFT_FORWARD) == CUFFT_INVALID_PLAN);
  CF(cufftPlan1d(&P, 16, CUFFT_C2C, 1));
  float *D;
  CHECK(cudaMalloc(&D, 256));
  EXPECT(cufftExecC2C(P, (cufftComplex *)D, (cufftComplex *)D, 7) == CUFFT_INVALID_VALUE);
  if (onZluda()) // NVIDIA's runs it (CUFFT_SUCCESS): an R2C on a C2C plan is undefined there
    EXPECT(cufftExecR2C(P, D, (cufftComplex *)D) == CUFFT_INVALID_VALUE);
  int V = 0;
  CF(cufftGetVersion(&V));
  EXPECT(V >= 11000);
  // Legacy callbacks: NVIDIA's shared library implements none (they need its static one).
  void *Fn = nullptr;
  EXPECT(cufftXtSetCallback(P, &Fn, CUFFT_CB_LD_COMPLEX, nullptr) == CUFFT_NOT_IMPLEMENTED);
  EXPECT(cufftXtClearCallback(P, CUFFT_CB_LD_COMPLEX) == CUFFT_NOT_IMPLEMENTED);
  CF(cufftDestroy(P));
  if (onZluda())
    EXPECT(cufftDestroy(P) == CUFFT_INVALID_PLAN);
  cudaFree(D);
}

int main() {
  for (bool InPlace : {false, true}) {
    complexCase<float>({1}, 1, InPlace);
    complexCase<float>({17}, 3, InPlace);
    complexCase<float>({256}, 2, InPlace);
    complexCase<double>({1000}, 1, InPlace);
    complexCase<float>({12, 10}, 2, InPlace);
    complexCase<double>({6, 5, 4}, 2, InPlace);
    realCase<float>({32}, 3, InPlace);
    realCase<float>({15}, 1, InPlace);
    realCase<double>({10, 12}, 2, InPlace);
    realCase<float>({4, 6, 9}, 1, InPlace);
    realCase<double>({129}, 1, InPlace);
  }
  advancedLayout();
  xtPlan();
  xtDescriptors();
  halfPlans();
  errors();
  return verdict("cufft_basic", Bad);
}
