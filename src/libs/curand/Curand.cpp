//===- Curand.cpp - our libcurand: the host API ----------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Generators made by curandCreateGenerator write device memory in
/// stream order (on the CPU device the numbers are computed by a host
/// function of the stream; on the HIP backend they are computed on the host
/// and copied); curandCreateGeneratorHost's write host memory at the call.
/// Both give NVIDIA's sequences (Engines.h). Status codes and argument rules
/// are those NVIDIA's library returns (observed on its host generator).
#include "libs/common/Handles.h"
#include "libs/common/LibSupport.h"
#include "libs/curand/Engines.h"
#include "zluda/curand_abi.h"

#include "common/Log.h"

#include <cmath>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

#define CURAND_API extern "C" __attribute__((visibility("default")))

extern "C" {
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr, const void *, size_t, CUstream);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
}

namespace zluda::curand {
namespace {

struct Generator {
  int Type = 0;
  bool Host = false;
  uint64_t Seed = 0;
  uint64_t Offset = 0; ///< as set; Pos is where the generator stands
  Position Pos;
  curandOrdering_t Order = CURAND_ORDERING_PSEUDO_DEFAULT;
  unsigned Dims = 1;
  CUstream Stream = nullptr;
  CUcontext Ctx = nullptr;
  std::shared_ptr<Engine> E; ///< made at the first generate after a seed change
  libs::Retained Kept;
};

Generator *find(curandGenerator_t G) { return libs::Live<Generator>::find(G); }

bool pseudo(int T) { return T >= 100 && T < 200; }

curandStatus_t create(curandGenerator_t *Out, curandRngType_t Type, bool Host) {
  if (!Out)
    return CURAND_STATUS_NOT_INITIALIZED;
  switch (Type) {
  case CURAND_RNG_PSEUDO_DEFAULT:
  case CURAND_RNG_PSEUDO_XORWOW:
  case CURAND_RNG_PSEUDO_MRG32K3A:
  case CURAND_RNG_PSEUDO_PHILOX4_32_10:
  case CURAND_RNG_PSEUDO_MT19937:
    break;
  case CURAND_RNG_QUASI_DEFAULT:
  case CURAND_RNG_QUASI_SOBOL32:
  case CURAND_RNG_QUASI_SOBOL64:
    break;
  case CURAND_RNG_PSEUDO_MTGP32:
  case CURAND_RNG_QUASI_SCRAMBLED_SOBOL32:
  case CURAND_RNG_QUASI_SCRAMBLED_SOBOL64:
    libs::notSupported("cuRAND", "curandCreateGenerator (MTGP32 and the scrambled Sobol generators)");
    return CURAND_STATUS_ARCH_MISMATCH;
  default:
    return CURAND_STATUS_TYPE_ERROR;
  }
  auto *G = new Generator;
  G->Type = Type == CURAND_RNG_PSEUDO_DEFAULT  ? CURAND_RNG_PSEUDO_XORWOW
            : Type == CURAND_RNG_QUASI_DEFAULT ? CURAND_RNG_QUASI_SOBOL32
                                               : Type;
  G->Host = Host;
  G->Order = pseudo(Type) ? CURAND_ORDERING_PSEUDO_DEFAULT : CURAND_ORDERING_QUASI_DEFAULT;
  if (!Host && libs::ensureContext(G->Ctx)) {
    delete G;
    return CURAND_STATUS_INITIALIZATION_FAILED;
  }
  *Out = reinterpret_cast<curandGenerator_t>(libs::Live<Generator>::add(G));
  return CURAND_STATUS_SUCCESS;
}

size_t valueBytes(Kind K) {
  return K == Kind::UniformD || K == Kind::NormalD || K == Kind::LogNormalD || K == Kind::Bits64 ? 8 : 4;
}

/// A pseudorandom generator's engine for its seed and ordering (MRG32k3a's
/// legacy ordering has its own lane layout).
std::shared_ptr<Engine> pseudoEngine(const Generator &G) {
  if (G.Type == CURAND_RNG_PSEUDO_MT19937)
    return makeMt19937(G.Seed);
  return makeEngine(G.Type, G.Seed, G.Order == CURAND_ORDERING_PSEUDO_LEGACY, G.Order == CURAND_ORDERING_PSEUDO_SEEDED);
}

/// Where NVIDIA's Philox stands after a re-seed or an ordering change
/// (observed against its host generator): with U the offset last set (or
/// reached by such a restart) and P the values generated since 0, at
/// U + floor(P / 4) - floor(U / 4), which becomes the new U; where that is 0,
/// at P, U unchanged. (NVIDIA's generator counts in groups of four values
/// what it then reads as values.)
void philoxRestart(Generator &G) {
  const uint64_t P = G.E ? G.Pos.Offset : G.Offset, U = G.Offset;
  const uint64_t New = U + P / 4 - U / 4;
  if (New)
    G.Offset = New;
  if (G.E) {
    G.E = pseudoEngine(G);
    G.E->seek(G.Pos, New ? New : P);
  }
}

/// The generator's engine, made at its first use after a seed or dimension change.
Engine &engine(Generator &G) {
  if (!G.E) {
    G.E = pseudo(G.Type) ? pseudoEngine(G) : makeSobol(G.Type == CURAND_RNG_QUASI_SOBOL64, G.Dims);
    G.E->seek(G.Pos, G.Offset);
  }
  return *G.E;
}

curandStatus_t generate(curandGenerator_t Gen, void *Out, size_t N, const Request &R) {
  Generator *G = find(Gen);
  if (!G)
    return CURAND_STATUS_NOT_INITIALIZED;
  const bool Normal = R.K == Kind::NormalF || R.K == Kind::NormalD || R.K == Kind::LogNormalF ||
                      R.K == Kind::LogNormalD;
  const bool Wide = G->Type == CURAND_RNG_QUASI_SOBOL64;
  if ((R.K == Kind::Bits64 && !Wide) || (R.K == Kind::Bits32 && Wide))
    return CURAND_STATUS_TYPE_ERROR; // 64-bit values from Sobol64 only, 32-bit ones not from it
  if (!pseudo(G->Type) && N % G->Dims)
    return CURAND_STATUS_LENGTH_NOT_MULTIPLE; // whole points of every dimension
  if (Normal && (N & 1) && (G->Type == CURAND_RNG_PSEUDO_XORWOW || G->Type == CURAND_RNG_PSEUDO_MRG32K3A))
    return CURAND_STATUS_LENGTH_NOT_MULTIPLE; // Box-Muller makes pairs
  if (N == 0)
    return CURAND_STATUS_SUCCESS;
  if (!Out)
    return CURAND_STATUS_LAUNCH_FAILURE;
  engine(*G);
  std::shared_ptr<Engine> E = G->E;
  const Position O = G->Pos;
  E->advance(G->Pos, N, R.K);
  if (G->Host) {
    E->generate(O, N, R, Out);
    return CURAND_STATUS_SUCCESS;
  }
  if (libs::cpuDevice()) {
    // Device memory is host memory: computed by a host function in stream order.
    CUresult Res = libs::enqueue(G->Stream, [E, O, N, R, Out] { E->generate(O, N, R, Out); }, G->Kept);
    return Res ? CURAND_STATUS_LAUNCH_FAILURE : CURAND_STATUS_SUCCESS;
  }
  // A GPU: computed on the host, copied in stream order (the copy holds the
  // stream until it has read the buffer).
  std::vector<unsigned char> Buf(N * valueBytes(R.K));
  E->generate(O, N, R, Buf.data());
  if (cuMemcpyHtoDAsync_v2(reinterpret_cast<CUdeviceptr>(Out), Buf.data(), Buf.size(), G->Stream) ||
      libs::wait(G->Stream))
    return CURAND_STATUS_LAUNCH_FAILURE;
  return CURAND_STATUS_SUCCESS;
}

} // namespace
} // namespace zluda::curand

using namespace zluda;
using namespace zluda::curand;

CURAND_API curandStatus_t curandCreateGenerator(curandGenerator_t *G, curandRngType_t T) {
  return create(G, T, false);
}
CURAND_API curandStatus_t curandCreateGeneratorHost(curandGenerator_t *G, curandRngType_t T) {
  return create(G, T, true);
}
CURAND_API curandStatus_t curandDestroyGenerator(curandGenerator_t Gen) {
  Generator *G = find(Gen);
  if (!G)
    return CURAND_STATUS_NOT_INITIALIZED;
  if (!G->Host)
    libs::wait(G->Stream); // queued work holds the engine, not the generator; finish it anyway
  return libs::destroyObject<Generator>(G, CURAND_STATUS_SUCCESS, CURAND_STATUS_NOT_INITIALIZED);
}
CURAND_API curandStatus_t curandGetVersion(int *V) {
  if (!V)
    return CURAND_STATUS_OUT_OF_RANGE;
  *V = 10400; // the cuRAND of CUDA 13.0 (10.4.0)
  return CURAND_STATUS_SUCCESS;
}
CURAND_API curandStatus_t curandGetProperty(int Type, int *V) {
  if (!V)
    return CURAND_STATUS_OUT_OF_RANGE;
  switch (Type) {
  case 0: // MAJOR_VERSION
    *V = 10;
    return CURAND_STATUS_SUCCESS;
  case 1: // MINOR_VERSION
    *V = 4;
    return CURAND_STATUS_SUCCESS;
  case 2: // PATCH_LEVEL
    *V = 0;
    return CURAND_STATUS_SUCCESS;
  default:
    return CURAND_STATUS_OUT_OF_RANGE;
  }
}
CURAND_API curandStatus_t curandSetStream(curandGenerator_t Gen, CUstream S) {
  // cuRAND's answers to the handle calls (libs/common/Handles.h): a generator that is none is NOT_INITIALIZED.
  constexpr libs::HandleStatus<curandStatus_t> Statuses{CURAND_STATUS_SUCCESS, CURAND_STATUS_NOT_INITIALIZED,
                                                        CURAND_STATUS_NOT_INITIALIZED, CURAND_STATUS_NOT_INITIALIZED};
  return libs::setHandleStream<Generator>(Gen, S, Statuses);
}
CURAND_API curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t Gen, unsigned long long Seed) {
  Generator *G = find(Gen);
  if (!G)
    return CURAND_STATUS_NOT_INITIALIZED;
  if (!pseudo(G->Type))
    return CURAND_STATUS_TYPE_ERROR;
  if (G->Type == CURAND_RNG_PSEUDO_MT19937) {
    // NVIDIA's MT19937 keeps its place for the seed it has and starts again
    // from the first value for another one (another in all 64 bits, though
    // only the low 32 seed it: observed).
    if (Seed == G->Seed)
      return CURAND_STATUS_SUCCESS;
    G->Seed = Seed;
    G->E.reset();
    G->Pos = Position{};
    return CURAND_STATUS_SUCCESS;
  }
  // XORWOW's and MRG32k3a's lanes keep their positions (as NVIDIA's do);
  // Philox moves (philoxRestart).
  G->Seed = Seed;
  if (G->Type == CURAND_RNG_PSEUDO_PHILOX4_32_10)
    return philoxRestart(*G), CURAND_STATUS_SUCCESS;
  if (G->E)
    G->E = pseudoEngine(*G);
  return CURAND_STATUS_SUCCESS;
}
CURAND_API curandStatus_t curandSetGeneratorOffset(curandGenerator_t Gen, unsigned long long Offset) {
  Generator *G = find(Gen);
  if (!G)
    return CURAND_STATUS_NOT_INITIALIZED;
  if (G->Type == CURAND_RNG_PSEUDO_MT19937)
    return CURAND_STATUS_TYPE_ERROR; // as NVIDIA's: the generator has no offset
  G->Offset = Offset;
  if (G->E)
    G->E->seek(G->Pos, Offset);
  return CURAND_STATUS_SUCCESS;
}
CURAND_API curandStatus_t curandSetGeneratorOrdering(curandGenerator_t Gen, curandOrdering_t O) {
  Generator *G = find(Gen);
  if (!G)
    return CURAND_STATUS_NOT_INITIALIZED;
  if (!pseudo(G->Type))
    return O == CURAND_ORDERING_QUASI_DEFAULT ? CURAND_STATUS_SUCCESS : CURAND_STATUS_OUT_OF_RANGE;
  switch (O) {
  case CURAND_ORDERING_PSEUDO_BEST:
    if (G->Type == CURAND_RNG_PSEUDO_MT19937) // refused by NVIDIA's too
      return CURAND_STATUS_OUT_OF_RANGE;
    break;
  case CURAND_ORDERING_PSEUDO_DEFAULT:
    break;
  case CURAND_ORDERING_PSEUDO_LEGACY: // MRG32k3a: 4,096 lanes (Engines.h); the others as the default
    break;
  case CURAND_ORDERING_PSEUDO_SEEDED: // XORWOW's lanes seeded one by one (Engines.h); refused for the others
    if (G->Type != CURAND_RNG_PSEUDO_XORWOW)
      return CURAND_STATUS_OUT_OF_RANGE;
    break;
  default: // PSEUDO_DYNAMIC is refused by NVIDIA's host generators too
    return CURAND_STATUS_OUT_OF_RANGE;
  }
  const bool Layout = (G->Type == CURAND_RNG_PSEUDO_MRG32K3A &&
                       (O == CURAND_ORDERING_PSEUDO_LEGACY) != (G->Order == CURAND_ORDERING_PSEUDO_LEGACY)) ||
                      (G->Type == CURAND_RNG_PSEUDO_XORWOW &&
                       (O == CURAND_ORDERING_PSEUDO_SEEDED) != (G->Order == CURAND_ORDERING_PSEUDO_SEEDED));
  const bool Changed = G->Order != O;
  G->Order = O;
  if (G->Type == CURAND_RNG_PSEUDO_PHILOX4_32_10 && Changed)
    philoxRestart(*G);
  if (Layout && G->E) { // the lanes change; NVIDIA's continue at the offset reached, in the new layout
    G->E = pseudoEngine(*G);
    G->E->seek(G->Pos, G->Pos.Offset);
  }
  return CURAND_STATUS_SUCCESS;
}
CURAND_API curandStatus_t curandSetQuasiRandomGeneratorDimensions(curandGenerator_t Gen, unsigned Dims) {
  Generator *G = find(Gen);
  if (!G)
    return CURAND_STATUS_NOT_INITIALIZED;
  if (pseudo(G->Type))
    return CURAND_STATUS_TYPE_ERROR;
  if (Dims < 1 || Dims > 20000)
    return CURAND_STATUS_OUT_OF_RANGE;
  G->Dims = Dims;
  G->E.reset(); // a new engine, at the set offset
  return CURAND_STATUS_SUCCESS;
}
CURAND_API curandStatus_t curandGenerateSeeds(curandGenerator_t Gen) {
  Generator *G = find(Gen);
  if (!G)
    return CURAND_STATUS_NOT_INITIALIZED;
  engine(*G); // lane states now rather than at the first generate
  return CURAND_STATUS_SUCCESS;
}

CURAND_API curandStatus_t curandGenerate(curandGenerator_t G, unsigned *Out, size_t N) {
  return generate(G, Out, N, Request{Kind::Bits32});
}
CURAND_API curandStatus_t curandGenerateLongLong(curandGenerator_t G, unsigned long long *Out, size_t N) {
  return generate(G, Out, N, Request{Kind::Bits64});
}
CURAND_API curandStatus_t curandGetDirectionVectors32(curandDirectionVectors32_t **Out,
                                                      curandDirectionVectorSet_t Set) {
  if (!Out)
    return CURAND_STATUS_OUT_OF_RANGE;
  if (Set == CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6) {
    libs::notSupported("cuRAND", "curandGetDirectionVectors32 (scrambled set)");
    return CURAND_STATUS_ARCH_MISMATCH;
  }
  if (Set != CURAND_DIRECTION_VECTORS_32_JOEKUO6)
    return CURAND_STATUS_OUT_OF_RANGE;
  *Out = reinterpret_cast<curandDirectionVectors32_t *>(const_cast<unsigned *>(sobolDirections32()));
  return CURAND_STATUS_SUCCESS;
}
CURAND_API curandStatus_t curandGetDirectionVectors64(curandDirectionVectors64_t **Out,
                                                      curandDirectionVectorSet_t Set) {
  if (!Out)
    return CURAND_STATUS_OUT_OF_RANGE;
  if (Set == CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6) {
    libs::notSupported("cuRAND", "curandGetDirectionVectors64 (scrambled set)");
    return CURAND_STATUS_ARCH_MISMATCH;
  }
  if (Set != CURAND_DIRECTION_VECTORS_64_JOEKUO6)
    return CURAND_STATUS_OUT_OF_RANGE;
  *Out = reinterpret_cast<curandDirectionVectors64_t *>(const_cast<unsigned long long *>(sobolDirections64()));
  return CURAND_STATUS_SUCCESS;
}
CURAND_API curandStatus_t curandGenerateUniform(curandGenerator_t G, float *Out, size_t N) {
  return generate(G, Out, N, Request{Kind::UniformF});
}
CURAND_API curandStatus_t curandGenerateUniformDouble(curandGenerator_t G, double *Out, size_t N) {
  return generate(G, Out, N, Request{Kind::UniformD});
}
CURAND_API curandStatus_t curandGenerateNormal(curandGenerator_t G, float *Out, size_t N, float Mean, float Sd) {
  return generate(G, Out, N, Request{Kind::NormalF, Mean, Sd});
}
CURAND_API curandStatus_t curandGenerateNormalDouble(curandGenerator_t G, double *Out, size_t N, double Mean,
                                                     double Sd) {
  return generate(G, Out, N, Request{Kind::NormalD, Mean, Sd});
}
CURAND_API curandStatus_t curandGenerateLogNormal(curandGenerator_t G, float *Out, size_t N, float Mean, float Sd) {
  return generate(G, Out, N, Request{Kind::LogNormalF, Mean, Sd});
}
CURAND_API curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t G, double *Out, size_t N, double Mean,
                                                        double Sd) {
  return generate(G, Out, N, Request{Kind::LogNormalD, Mean, Sd});
}
CURAND_API curandStatus_t curandGeneratePoisson(curandGenerator_t G, unsigned *Out, size_t N, double Lambda) {
  if (!(Lambda > 0))
    return CURAND_STATUS_OUT_OF_RANGE;
  Request R{Kind::Poisson};
  R.Lambda = Lambda;
  return generate(G, Out, N, R);
}
CURAND_API curandStatus_t curandGeneratePoissonMethod(curandGenerator_t G, unsigned *Out, size_t N, double Lambda,
                                                      curandMethod_t) {
  return curandGeneratePoisson(G, Out, N, Lambda);
}

// A Poisson distribution for the device API (curand_poisson/curand_discrete
// of curand_kernel.h read it in kernels): one device allocation holding the
// distribution, its square histogram and the tables, with device addresses.
CURAND_API curandStatus_t curandCreatePoissonDistribution(double Lambda, curandDiscreteDistribution_t *Out) {
  if (!Out)
    return CURAND_STATUS_NOT_INITIALIZED;
  if (!(Lambda > 0))
    return CURAND_STATUS_OUT_OF_RANGE;
  CUcontext Ctx;
  if (libs::ensureContext(Ctx))
    return CURAND_STATUS_INITIALIZATION_FAILED;
  const bool Gauss = Lambda > 2000; // a normal approximation beyond, as the device API's curand_poisson
  SquareHistogram H;
  if (!Gauss)
    H = makePoissonHistogram(Lambda);
  const size_t OffM2 = sizeof(curandDiscreteDistribution_st);
  const size_t OffHist = OffM2 + sizeof(curandDistributionM2Shift_st);
  const size_t OffV = (OffHist + sizeof(curandHistogramM2_st) + 15) / 16 * 16;
  const size_t OffK = OffV + H.Length * sizeof(double);
  const size_t Bytes = OffK + H.Length * sizeof(unsigned);
  CUdeviceptr Base;
  if (cuMemAlloc_v2(&Base, Bytes))
    return CURAND_STATUS_ALLOCATION_FAILED;
  std::vector<unsigned char> Img(Bytes);
  auto At = [&](size_t Off) { return Base + Off; };
  auto *D = reinterpret_cast<curandDiscreteDistribution_st *>(Img.data());
  auto *M2 = reinterpret_cast<curandDistributionM2Shift_st *>(Img.data() + OffM2);
  auto *Hi = reinterpret_cast<curandHistogramM2_st *>(Img.data() + OffHist);
  D->self_host_ptr = reinterpret_cast<curandDiscreteDistribution_t>(Base);
  D->M2 = Gauss ? nullptr : reinterpret_cast<curandDistributionM2Shift_t>(At(OffM2));
  D->host_M2 = nullptr;
  D->stddev = std::sqrt(Lambda);
  D->mean = Lambda;
  D->method = Gauss ? CURAND_DISCRETE_GAUSS : CURAND_M2;
  D->host_gen = 0;
  M2->histogram = reinterpret_cast<curandHistogramM2_t>(At(OffHist));
  M2->host_histogram = nullptr;
  M2->shift = H.Shift;
  M2->length = H.Length;
  M2->host_gen = 0;
  Hi->V = reinterpret_cast<double *>(At(OffV));
  Hi->K = reinterpret_cast<unsigned *>(At(OffK));
  Hi->host_V = nullptr;
  Hi->host_K = nullptr;
  Hi->host_gen = 0;
  if (H.Length) {
    std::memcpy(Img.data() + OffV, H.V.get(), H.Length * sizeof(double));
    std::memcpy(Img.data() + OffK, H.K.get(), H.Length * sizeof(unsigned));
  }
  if (cuMemcpyHtoD_v2(Base, Img.data(), Bytes)) {
    cuMemFree_v2(Base);
    return CURAND_STATUS_INTERNAL_ERROR;
  }
  *Out = reinterpret_cast<curandDiscreteDistribution_t>(Base);
  return CURAND_STATUS_SUCCESS;
}
CURAND_API curandStatus_t curandDestroyDistribution(curandDiscreteDistribution_t D) {
  if (!D)
    return CURAND_STATUS_NOT_INITIALIZED;
  return cuMemFree_v2(reinterpret_cast<CUdeviceptr>(D)) ? CURAND_STATUS_NOT_INITIALIZED : CURAND_STATUS_SUCCESS;
}
