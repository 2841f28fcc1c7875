// Device printf with the conversions, flags, widths (also '*') and length
// modifiers programs use. stdout is captured in a file around the kernel and
// compared, line by line, with the host's snprintf of the same formats and
// values.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <string>
#include <unistd.h>

__global__ void formats(int i, unsigned u, long long ll, unsigned long long ull, float f, double d, const char *s,
                        char c, short h, size_t z, const char *longs) {
  printf("int %d %i %5d %-5d| %+d %05d\n", i, i, i, i, i, i);
  printf("unsigned %u %x %X %#x %o\n", u, u, u, u, u);
  printf("long %lld %llu %llx %ld %zu\n", ll, ull, ull, (long)ll, z);
  printf("float %f %.3f %10.2f %-10.1f| %e %g %G\n", f, f, f, f, f, f, d);
  printf("double %.10f %E %a\n", d, d, d);
  printf("string [%s] [%10s] [%-6s] [%.3s] %c%c\n", s, s, s, s, c, c + 1);
  printf("star [%*d] [%-*d] [%.*f] [%*.*f]\n", 6, i, 6, i, 2, d, 9, 3, d);
  printf("short %hd %hhu, 100%% done, mixed %d %f %s %lld\n", h, (unsigned char)200, i, d, s, ll);
  printf("no arguments at all\n");
  printf("long [%s] [%3000d] n%%n stays text: %n\n", longs, i);
  // More than CUDA's 32 arguments: the rest are ignored, their conversions
  // printed as they are.
  printf("many %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d\n", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34);
}

int main() {
  const int I = -1234;
  const unsigned U = 0xbeefu;
  const long long LL = -(1ll << 40) - 5;
  const unsigned long long ULL = 0xfedcba9876543210ull;
  const float F = 3.14159f;
  const double D = -2.718281828459045;
  const char C = 'Q';
  const short H = -7;
  const size_t Z = 123456789012ull;
  char *S;
  cudaMalloc(&S, 16);
  cudaMemcpy(S, "zluda", 6, cudaMemcpyHostToDevice);

  char Path[] = "/tmp/zluda_printf_XXXXXX";
  int Fd = mkstemp(Path);
  if (Fd < 0)
    return 2;
  std::fflush(stdout);
  int Saved = dup(1);
  dup2(Fd, 1);
  // A string longer than any fixed buffer (2,000 characters).
  std::string Long(2000, 'x');
  for (size_t K = 0; K < Long.size(); K += 7)
    Long[K] = char('a' + K % 26);
  char *LongDev;
  cudaMalloc(&LongDev, Long.size() + 1);
  cudaMemcpy(LongDev, Long.c_str(), Long.size() + 1, cudaMemcpyHostToDevice);
  formats<<<1, 1>>>(I, U, LL, ULL, F, D, S, C, H, Z, LongDev);
  cudaError_t E = cudaDeviceSynchronize();
  std::fflush(stdout);
  dup2(Saved, 1);
  close(Saved);

  std::string Got;
  char Buf[4096];
  lseek(Fd, 0, SEEK_SET);
  ssize_t N;
  while ((N = read(Fd, Buf, sizeof Buf)) > 0)
    Got.append(Buf, N);
  close(Fd);
  unlink(Path);

  std::string Want;
  auto add = [&](const char *Fmt, auto... A) {
    std::snprintf(Buf, sizeof Buf, Fmt, A...);
    Want += Buf;
  };
  add("int %d %i %5d %-5d| %+d %05d\n", I, I, I, I, I, I);
  add("unsigned %u %x %X %#x %o\n", U, U, U, U, U);
  add("long %lld %llu %llx %ld %zu\n", LL, ULL, ULL, (long)LL, Z);
  add("float %f %.3f %10.2f %-10.1f| %e %g %G\n", (double)F, (double)F, (double)F, (double)F, (double)F, (double)F, D);
  add("double %.10f %E %a\n", D, D, D);
  add("string [%s] [%10s] [%-6s] [%.3s] %c%c\n", "zluda", "zluda", "zluda", "zluda", C, C + 1);
  add("star [%*d] [%-*d] [%.*f] [%*.*f]\n", 6, I, 6, I, 2, D, 9, 3, D);
  add("short %hd %hhu, 100%% done, mixed %d %f %s %lld\n", H, (unsigned char)200, I, D, "zluda", LL);
  add("no arguments at all\n");
  Want += "long [" + Long + "] [" + std::string(3000 - std::to_string(I).size(), ' ') + std::to_string(I) +
          "] n%n stays text: %n\n";
  Want += "many";
  for (int K = 1; K <= 32; ++K)
    Want += " " + std::to_string(K);
  Want += " %d %d\n";

  bool Ok = E == cudaSuccess && Got == Want;
  if (!Ok)
    std::printf("printf_formats: got\n%s\nwanted\n%s\n", Got.c_str(), Want.c_str());
  std::printf("printf_formats: %s\n", Ok ? "PASS" : "FAIL");
  cudaFree(S);
  cudaFree(LongDev);
  return Ok ? 0 : 1;
}
