// Replays an attention kernel's launch captured on the device machine
// (tests/probes/sdpa_probe.py under ZLUDA_DUMP_LAUNCH) on our CPU device and
// compares its output with a float64 reference: a way to bisect a wrong
// result in a lifted kernel by editing its lifted PTX and loading that.
//   fmha_replay MODULE(.cubin|.ptx) LAUNCH(.txt, .bin beside it) INPUTS-DIR SHAPE-LINE B H L S CAUSAL
// SHAPE-LINE: the probe's "shape <n> addresses q .. k .. v .. out .. out-strides a b c d" line.
// Build: g++ -std=c++20 -O1 -I/usr/local/cuda/include fmha_replay.cpp -Lbuild/lib -lcuda -o /tmp/fmha_replay
// FMHA_DEBUG_OUT=file: a module global __dbg (and __dbgs) of instrumented PTX is written there.
#include "../cuda/drv_common.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

static std::string slurp(const std::string &P) {
  std::ifstream In(P, std::ios::binary);
  return {std::istreambuf_iterator<char>(In), {}};
}

int main(int Argc, char **Argv) {
  if (Argc != 10) {
    std::fprintf(stderr, "usage: fmha_replay MODULE LAUNCH.txt INPUTS-DIR SHAPE-LINE B H L S CAUSAL\n");
    return 2;
  }
  std::string Module = slurp(Argv[1]), Launch = Argv[2], Dir = Argv[3];
  int B = std::atoi(Argv[5]), H = std::atoi(Argv[6]), L = std::atoi(Argv[7]), S = std::atoi(Argv[8]),
      Causal = std::atoi(Argv[9]), D = 64;
  std::istringstream Line(Argv[4]);
  std::string W, N;
  uint64_t Old[4];
  int64_t OutStride[4];
  Line >> W >> N >> W;
  for (uint64_t &A : Old)
    Line >> W >> std::hex >> A;
  Line >> std::dec >> W;
  for (int64_t &St : OutStride)
    Line >> St;
  std::ifstream Txt(Launch);
  std::string Name;
  unsigned G[3], Bl[3], Shared;
  Txt >> Name >> G[0] >> G[1] >> G[2] >> Bl[0] >> Bl[1] >> Bl[2] >> Shared;
  std::string Bin = slurp(Launch.substr(0, Launch.size() - 4) + ".bin");
  std::vector<float> In[3];
  size_t Count[4] = {size_t(B) * H * L * D, size_t(B) * H * S * D, size_t(B) * H * S * D, size_t(B) * H * L * D};
  const char *Names[] = {"q", "k", "v"};
  for (int I = 0; I < 3; ++I) {
    std::string Raw = slurp(Dir + "/" + Names[I] + N + ".bin");
    if (Raw.size() != Count[I] * 4) {
      std::fprintf(stderr, "%s%s.bin: %zu bytes, want %zu\n", Names[I], N.c_str(), Raw.size(), Count[I] * 4);
      return 1;
    }
    In[I].resize(Count[I]);
    std::memcpy(In[I].data(), Raw.data(), Raw.size());
  }
  DRV(cuInit(0));
  CUdevice Dev;
  DRV(cuDeviceGet(&Dev, 0));
  CUcontext Ctx;
  DRV(cuCtxCreate(&Ctx, nullptr, 0, Dev));
  if (Module.size() > 4 && Module.compare(0, 4, "\x7f" "ELF") != 0)
    Module.push_back('\0');
  CUmodule Mod;
  DRV(cuModuleLoadData(&Mod, Module.data()));
  CUfunction F;
  DRV(cuModuleGetFunction(&F, Mod, Name.c_str()));
  if (Shared > 48 * 1024)
    DRV(cuFuncSetAttribute(F, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(Shared)));
  CUdeviceptr New[4];
  for (int I = 0; I < 4; ++I) {
    DRV(cuMemAlloc(&New[I], Count[I] * 4));
    if (I < 3)
      DRV(cuMemcpyHtoD(New[I], In[I].data(), Count[I] * 4));
    else
      DRV(cuMemsetD32(New[I], 0x7fc00000u, Count[I])); // poisoned: NaN where the kernel writes nothing
  }
  // Every 8-byte word of the parameters inside a captured tensor moves to ours.
  for (size_t Off = 0; Off + 8 <= Bin.size(); Off += 8) {
    uint64_t V;
    std::memcpy(&V, Bin.data() + Off, 8);
    for (int I = 0; I < 4; ++I)
      if (V >= Old[I] && V < Old[I] + Count[I] * 4) {
        uint64_t M = New[I] + (V - Old[I]);
        std::memcpy(Bin.data() + Off, &M, 8);
        std::printf("parameter +%zu: %s\n", Off, I < 3 ? Names[I] : "out");
      }
  }
  size_t Size = Bin.size();
  void *Extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, Bin.data(), CU_LAUNCH_PARAM_BUFFER_SIZE, &Size, CU_LAUNCH_PARAM_END};
  DRV(cuLaunchKernel(F, G[0], G[1], G[2], Bl[0], Bl[1], Bl[2], Shared, nullptr, nullptr, Extra));
  DRV(cuCtxSynchronize());
  if (const char *Dbg = std::getenv("FMHA_DEBUG_OUT")) { // a module global __dbg, for instrumented PTX
    CUdeviceptr P;
    size_t Bytes;
    if (cuModuleGetGlobal(&P, &Bytes, Mod, "__dbg") == CUDA_SUCCESS) {
      std::vector<char> H(Bytes);
      DRV(cuMemcpyDtoH(H.data(), P, Bytes));
      std::ofstream(Dbg, std::ios::binary).write(H.data(), H.size());
    }
    if (cuModuleGetGlobal(&P, &Bytes, Mod, "__dbgs") == CUDA_SUCCESS) {
      std::vector<char> H(Bytes);
      DRV(cuMemcpyDtoH(H.data(), P, Bytes));
      std::ofstream(std::string(Dbg) + ".smem", std::ios::binary).write(H.data(), H.size());
    }
  }
  std::vector<float> Out(Count[3]);
  DRV(cuMemcpyDtoH(Out.data(), New[3], Count[3] * 4));
  // The reference, and the error per query row and per output column.
  double Max = 0;
  std::vector<double> RowErr(L), ColErr(D);
  for (int Bi = 0; Bi < B; ++Bi)
    for (int Hi = 0; Hi < H; ++Hi)
      for (int I = 0; I < L; ++I) {
        const float *Q = &In[0][((size_t(Bi) * H + Hi) * L + I) * D];
        std::vector<double> P(S);
        double M = -INFINITY, Sum = 0;
        for (int J = 0; J < S; ++J) {
          const float *K = &In[1][((size_t(Bi) * H + Hi) * S + J) * D];
          double Dot = 0;
          for (int X = 0; X < D; ++X)
            Dot += double(Q[X]) * K[X];
          P[J] = (Causal && J > I) ? -INFINITY : Dot / std::sqrt(double(D));
          M = std::max(M, P[J]);
        }
        for (int J = 0; J < S; ++J)
          Sum += (P[J] = std::exp(P[J] - M));
        for (int X = 0; X < D; ++X) {
          double Want = 0;
          for (int J = 0; J < S; ++J)
            Want += P[J] / Sum * In[2][((size_t(Bi) * H + Hi) * S + J) * D + X];
          float Got = Out[Bi * OutStride[0] + Hi * OutStride[1] + I * OutStride[2] + X * OutStride[3]];
          double E = std::isnan(Got) ? INFINITY : std::fabs(Got - Want);
          Max = std::max(Max, E);
          RowErr[I] = std::max(RowErr[I], E);
          ColErr[X] = std::max(ColErr[X], E);
        }
      }
  std::printf("%s grid %u,%u,%u block %u,%u,%u shared %u: max error %.3g\nper row:", Name.c_str(), G[0], G[1], G[2],
              Bl[0], Bl[1], Bl[2], Shared, Max);
  for (int I = 0; I < L; ++I)
    std::printf(" %.2g", RowErr[I]);
  std::printf("\nper column:");
  for (int X = 0; X < D; ++X)
    std::printf(" %.2g", ColErr[X]);
  std::printf("\n");
  return Max < 1e-3 ? 0 : 1;
}
