// cuFFTW: an FFTW program (NVIDIA's cufftw.h, linked with -lcufftw) on host
// memory: 1D complex, 2D real-to-complex and back, many, single and double
// precision, against a naive DFT computed here.
#include "common.h"
#include <cufftw.h>

#include <cmath>
#include <complex>
#include <random>

static int Bad = 0;
using CD = std::complex<double>;

static std::vector<CD> dft(const std::vector<CD> &In, int Sign) {
  const size_t N = In.size();
  std::vector<CD> Out(N);
  for (size_t K = 0; K < N; ++K) {
    CD S = 0;
    for (size_t J = 0; J < N; ++J)
      S += In[J] * std::polar(1.0, Sign * 2 * M_PI * double((J * K) % N) / double(N));
    Out[K] = S;
  }
  return Out;
}
static void near(const char *W, const std::vector<CD> &A, const std::vector<CD> &B, double Tol) {
  double E = 0;
  for (size_t I = 0; I < A.size(); ++I)
    E = std::max(E, std::abs(A[I] - B[I]));
  if (!(E <= Tol)) {
    std::printf("FAIL %s: error %g\n", W, E);
    ++Bad;
  }
}

int main() {
  std::mt19937 Rng(3);
  std::uniform_real_distribution<double> U(-1, 1);
  {
    const int N = 48;
    fftw_complex *In = (fftw_complex *)fftw_malloc(sizeof(fftw_complex) * N);
    fftw_complex *Out = (fftw_complex *)fftw_malloc(sizeof(fftw_complex) * N);
    fftw_plan P = fftw_plan_dft_1d(N, In, Out, FFTW_FORWARD, FFTW_ESTIMATE);
    EXPECT(P != nullptr);
    std::vector<CD> X(N);
    for (int I = 0; I < N; ++I) {
      X[I] = CD(U(Rng), U(Rng));
      In[I][0] = X[I].real(), In[I][1] = X[I].imag();
    }
    fftw_execute(P);
    std::vector<CD> Got(N);
    for (int I = 0; I < N; ++I)
      Got[I] = CD(Out[I][0], Out[I][1]);
    near("fftw_plan_dft_1d", dft(X, -1), Got, 1e-12);
    fftw_destroy_plan(P);
    fftw_free(In);
    fftw_free(Out);
  }
  {
    // fftwf: r2c of 3 rows (many), then c2r back (times n).
    const int N = 20, B = 3;
    float *In = (float *)fftwf_malloc(sizeof(float) * N * B);
    fftwf_complex *Mid = (fftwf_complex *)fftwf_malloc(sizeof(fftwf_complex) * (N / 2 + 1) * B);
    float *Back = (float *)fftwf_malloc(sizeof(float) * N * B);
    int Nn[1] = {N};
    fftwf_plan F = fftwf_plan_many_dft_r2c(1, Nn, B, In, nullptr, 1, N, Mid, nullptr, 1, N / 2 + 1, FFTW_ESTIMATE);
    fftwf_plan I = fftwf_plan_many_dft_c2r(1, Nn, B, Mid, nullptr, 1, N / 2 + 1, Back, nullptr, 1, N, FFTW_ESTIMATE);
    std::vector<float> X(N * B);
    for (auto &V : X)
      V = float(U(Rng));
    std::copy(X.begin(), X.end(), In);
    fftwf_execute(F);
    for (int Bt = 0; Bt < B; ++Bt) {
      std::vector<CD> Row(N), Got(N / 2 + 1);
      for (int J = 0; J < N; ++J)
        Row[J] = X[Bt * N + J];
      auto Want = dft(Row, -1);
      Want.resize(N / 2 + 1);
      for (int J = 0; J <= N / 2; ++J)
        Got[J] = CD(Mid[Bt * (N / 2 + 1) + J][0], Mid[Bt * (N / 2 + 1) + J][1]);
      near("fftwf_plan_many_dft_r2c", Want, Got, 1e-4);
    }
    fftwf_execute(I);
    for (int J = 0; J < N * B; ++J)
      EXPECT(std::fabs(Back[J] - X[J] * N) < 1e-3);
    fftwf_destroy_plan(F);
    fftwf_destroy_plan(I);
    fftwf_free(In), fftwf_free(Mid), fftwf_free(Back);
  }
  return verdict("cufftw_basic", Bad);
}
