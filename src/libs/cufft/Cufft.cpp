//===- Cufft.cpp - our libcufft over FFTW -----------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Plans (1D/2D/3D, PlanMany with advanced layouts, the 64-bit and Xt
/// forms), executed with FFTW's guru interface: one FFTW plan per
/// (in-place?, direction, arrays' SIMD alignment), made at the first execution and kept. On the CPU
/// device a transform is a host function of the plan's stream that runs FFTW
/// on device memory (host memory); on a GPU the data goes to the host, through
/// FFTW and back, in stream order (the call waits for it). cuFFT's rules:
/// transforms are unnormalized, C2R may overwrite its input, the basic
/// layout (null nembed) of in-place real transforms pads rows to
/// 2 * (n / 2 + 1) reals.
#include "libs/common/Half.h"
#include "libs/common/LibSupport.h"
#include "libs/cufft/RocFft.h"
#include "zluda/cublas_abi.h" // cudaDataType, libraryPropertyType
#include "zluda/cufft_abi.h"

#include "common/Log.h"

#include <fftw3.h>

#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#define CUFFT_API extern "C" __attribute__((visibility("default")))

extern "C" {
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuMemcpyDtoD_v2(CUdeviceptr, CUdeviceptr, size_t);
CUresult cuCtxGetDevice(CUdevice *);
CUresult cuMemcpyDtoHAsync_v2(void *, CUdeviceptr, size_t, CUstream);
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr, const void *, size_t, CUstream);
}
void *zludaNativeStream(CUstream S); // src/driver/Driver.cpp

namespace zluda::cufft {
namespace {

std::mutex PlannerMu; ///< FFTW's planner is not thread-safe; execution is

bool isDouble(cufftType T) { return T == CUFFT_Z2Z || T == CUFFT_D2Z || T == CUFFT_Z2D; }
bool realIn(cufftType T) { return T == CUFFT_R2C || T == CUFFT_D2Z; }
bool realOut(cufftType T) { return T == CUFFT_C2R || T == CUFFT_Z2D; }

struct Plan {
  bool Made = false;
  cufftType Type = CUFFT_C2C;
  int Rank = 0;
  std::vector<long long> N, INembed, ONembed; ///< empty nembed: the basic layout
  long long IStride = 1, IDist = 0, OStride = 1, ODist = 0, Batch = 1;
  CUstream Stream = nullptr;
  void *WorkArea = nullptr;
  bool AutoAllocate = true;
  int Narrow = 0; ///< half (1) or bfloat16 (2) data of a float plan (cufftXtMakePlanMany)
  std::map<std::tuple<bool, int, int, int>, void *> Fftw; ///< (in place, sign, alignments) -> fftw(f)_plan
  std::mutex Mu;
  /// AMD GPUs: rocFFT's plans, (in place, sign) -> the plan and the work buffer it asked for.
  struct Roc {
    void *Plan = nullptr;
    CUdeviceptr Work = 0;
    size_t WorkBytes = 0;
  };
  std::map<std::pair<bool, int>, Roc> RocPlans;
  std::mutex RocMu;
  libs::Retained Kept;
  ~Plan() {
    std::lock_guard<std::mutex> G(PlannerMu);
    for (auto &[K, P] : Fftw)
      isDouble(Type) ? fftw_destroy_plan(fftw_plan(P)) : fftwf_destroy_plan(fftwf_plan(P));
    for (auto &[K, R] : RocPlans) {
      if (R.Plan)
        rocfft::api()->PlanDestroy(R.Plan);
      if (R.Work)
        cuMemFree_v2(R.Work);
    }
  }
};

std::mutex HandlesMu;
std::map<int, std::shared_ptr<Plan>> &plans() {
  static auto *M = new std::map<int, std::shared_ptr<Plan>>;
  return *M;
}
int NextHandle = 1;

std::shared_ptr<Plan> find(cufftHandle H) {
  std::lock_guard<std::mutex> G(HandlesMu);
  auto It = plans().find(H);
  return It == plans().end() ? nullptr : It->second;
}

/// The layout of one side of a transform, in elements of that side's type.
struct Side {
  std::vector<long long> Embed;
  long long Stride, Dist;
};

/// The input and output layouts for an execution (in place or not).
void layouts(const Plan &P, bool InPlace, Side &In, Side &Out) {
  const int R = P.Rank;
  std::vector<long long> Logical = P.N, Complex = P.N;
  Complex[R - 1] = P.N[R - 1] / 2 + 1;
  std::vector<long long> Padded = Complex;
  Padded[R - 1] = 2 * Complex[R - 1];
  auto Prod = [](const std::vector<long long> &V) {
    long long S = 1;
    for (long long X : V)
      S *= X;
    return S;
  };
  if (!P.INembed.empty() && !P.ONembed.empty()) {
    In = {P.INembed, P.IStride, P.IDist};
    Out = {P.ONembed, P.OStride, P.ODist};
    return;
  }
  // The basic layout: contiguous, strides 1, batches packed.
  std::vector<long long> I = Logical, O = Logical;
  if (realIn(P.Type)) {
    I = InPlace ? Padded : Logical;
    O = Complex;
  } else if (realOut(P.Type)) {
    I = Complex;
    O = InPlace ? Padded : Logical;
  }
  In = {I, 1, Prod(I)};
  Out = {O, 1, Prod(O)};
}

/// Elements spanned by one side (the highest index touched, plus one).
long long span(const Plan &P, const Side &S, bool ComplexSide) {
  const int R = P.Rank;
  long long Last = 0, Inner = S.Stride;
  for (int K = R - 1; K >= 0; --K) {
    long long Extent = P.N[K];
    if (K == R - 1 && ComplexSide && P.Type != CUFFT_C2C && P.Type != CUFFT_Z2Z)
      Extent = P.N[K] / 2 + 1;
    Last += (Extent - 1) * Inner;
    Inner *= S.Embed[K];
  }
  return Last + (P.Batch - 1) * S.Dist + 1;
}

template <typename Dim> void dims(const Plan &P, const Side &I, const Side &O, std::vector<Dim> &D, Dim &How) {
  D.resize(P.Rank);
  long long Is = I.Stride, Os = O.Stride;
  for (int K = P.Rank - 1; K >= 0; --K) {
    D[K].n = P.N[K];
    D[K].is = Is;
    D[K].os = Os;
    Is *= I.Embed[K];
    Os *= O.Embed[K];
  }
  How.n = P.Batch;
  How.is = I.Dist;
  How.os = O.Dist;
}

/// The FFTW plan for this execution (made once per in-place/direction).
void *fftwPlan(Plan &P, void *In, void *Out, int Sign) {
  const bool InPlace = In == Out;
  std::lock_guard<std::mutex> G(P.Mu);
  // A plan runs on other arrays of the same SIMD alignment (FFTW's new-array
  // execute rule): one plan per alignment pair keeps FFTW's aligned codelets
  // (FFTW_UNALIGNED costs ~40%).
  const auto Align = [&](void *X) {
    return isDouble(P.Type) ? fftw_alignment_of(static_cast<double *>(X))
                            : fftwf_alignment_of(static_cast<float *>(X));
  };
  auto Key = std::make_tuple(InPlace, Sign, Align(In), Align(Out));
  if (auto It = P.Fftw.find(Key); It != P.Fftw.end())
    return It->second;
  Side I, O;
  layouts(P, InPlace, I, O);
  // FFTW_ESTIMATE plans without touching the arrays.
  const unsigned Flags = FFTW_ESTIMATE;
  void *Made = nullptr;
  std::lock_guard<std::mutex> PG(PlannerMu);
  if (isDouble(P.Type)) {
    std::vector<fftw_iodim64> D;
    fftw_iodim64 How;
    dims(P, I, O, D, How);
    if (P.Type == CUFFT_Z2Z)
      Made = fftw_plan_guru64_dft(P.Rank, D.data(), 1, &How, static_cast<fftw_complex *>(In),
                                  static_cast<fftw_complex *>(Out), Sign, Flags);
    else if (P.Type == CUFFT_D2Z)
      Made = fftw_plan_guru64_dft_r2c(P.Rank, D.data(), 1, &How, static_cast<double *>(In),
                                      static_cast<fftw_complex *>(Out), Flags);
    else
      Made = fftw_plan_guru64_dft_c2r(P.Rank, D.data(), 1, &How, static_cast<fftw_complex *>(In),
                                      static_cast<double *>(Out), Flags);
  } else {
    std::vector<fftwf_iodim64> D;
    fftwf_iodim64 How;
    dims(P, I, O, D, How);
    if (P.Type == CUFFT_C2C)
      Made = fftwf_plan_guru64_dft(P.Rank, D.data(), 1, &How, static_cast<fftwf_complex *>(In),
                                   static_cast<fftwf_complex *>(Out), Sign, Flags);
    else if (P.Type == CUFFT_R2C)
      Made = fftwf_plan_guru64_dft_r2c(P.Rank, D.data(), 1, &How, static_cast<float *>(In),
                                       static_cast<fftwf_complex *>(Out), Flags);
    else
      Made = fftwf_plan_guru64_dft_c2r(P.Rank, D.data(), 1, &How, static_cast<fftwf_complex *>(In),
                                       static_cast<float *>(Out), Flags);
  }
  if (Made)
    P.Fftw[Key] = Made;
  return Made;
}

void run(cufftType T, void *FP, void *In, void *Out) {
  switch (T) {
  case CUFFT_C2C:
    fftwf_execute_dft(fftwf_plan(FP), static_cast<fftwf_complex *>(In), static_cast<fftwf_complex *>(Out));
    break;
  case CUFFT_R2C:
    fftwf_execute_dft_r2c(fftwf_plan(FP), static_cast<float *>(In), static_cast<fftwf_complex *>(Out));
    break;
  case CUFFT_C2R:
    fftwf_execute_dft_c2r(fftwf_plan(FP), static_cast<fftwf_complex *>(In), static_cast<float *>(Out));
    break;
  case CUFFT_Z2Z:
    fftw_execute_dft(fftw_plan(FP), static_cast<fftw_complex *>(In), static_cast<fftw_complex *>(Out));
    break;
  case CUFFT_D2Z:
    fftw_execute_dft_r2c(fftw_plan(FP), static_cast<double *>(In), static_cast<fftw_complex *>(Out));
    break;
  case CUFFT_Z2D:
    fftw_execute_dft_c2r(fftw_plan(FP), static_cast<fftw_complex *>(In), static_cast<double *>(Out));
    break;
  }
}

size_t elemBytes(cufftType T, bool ComplexSide) {
  size_t R = isDouble(T) ? 8 : 4;
  return ComplexSide ? 2 * R : R;
}

/// A half or bfloat16 transform: the data widened to float, FFTW's float
/// transform, the result rounded back (to nearest even), in stream order.
cufftResult execNarrow(const std::shared_ptr<Plan> &P, void *In, void *Out, int Sign) {
  const bool InPlace = In == Out;
  Side I, O;
  layouts(*P, InPlace, I, O);
  const size_t InScalars = size_t(span(*P, I, !realIn(P->Type))) * (realIn(P->Type) ? 1 : 2);
  const size_t OutScalars = size_t(span(*P, O, !realOut(P->Type))) * (realOut(P->Type) ? 1 : 2);
  const bool Bf16 = P->Narrow == 2;
  auto Work = [P, InPlace, InScalars, OutScalars, Bf16, Sign](uint16_t *Src, uint16_t *Dst) {
    std::vector<float> A(std::max(InScalars, InPlace ? OutScalars : size_t(0))), B(InPlace ? 0 : OutScalars);
    for (size_t K = 0; K < InScalars; ++K)
      A[K] = Bf16 ? libs::bf16ToFloat(Src[K]) : libs::halfToFloat(Src[K]);
    for (size_t K = 0; K < B.size(); ++K) // the output layout's gaps come back as they were (exact round trip)
      B[K] = Bf16 ? libs::bf16ToFloat(Dst[K]) : libs::halfToFloat(Dst[K]);
    float *FOut = InPlace ? A.data() : B.data();
    void *FP = fftwPlan(*P, A.data(), FOut, Sign);
    if (!FP)
      return;
    run(P->Type, FP, A.data(), FOut);
    for (size_t K = 0; K < OutScalars; ++K)
      Dst[K] = Bf16 ? libs::floatToBf16(FOut[K]) : libs::floatToHalf(FOut[K]);
  };
  auto *Src = static_cast<uint16_t *>(In), *Dst = static_cast<uint16_t *>(Out);
  if (libs::cpuDevice())
    return libs::enqueue(P->Stream, [Work, Src, Dst] { Work(Src, Dst); }, P->Kept) ? CUFFT_EXEC_FAILED
                                                                                  : CUFFT_SUCCESS;
  // A GPU: through host copies.
  std::vector<uint16_t> HIn(std::max(InScalars, InPlace ? OutScalars : size_t(0))), HOut(InPlace ? 0 : OutScalars);
  if (libs::wait(P->Stream) || libs::toHost(HIn.data(), In, InScalars * 2) ||
      (!InPlace && libs::toHost(HOut.data(), Out, OutScalars * 2))) // the output layout's gaps kept
    return CUFFT_EXEC_FAILED;
  uint16_t *HDst = InPlace ? HIn.data() : HOut.data();
  Work(HIn.data(), HDst);
  return libs::toDevice(Out, HDst, OutScalars * 2) ? CUFFT_EXEC_FAILED : CUFFT_SUCCESS;
}

/// A transform through rocFFT on an AMD GPU, in stream order: CUFFT_NOT_SUPPORTED where there is no rocFFT or
/// it refuses the plan, for the host path to take it. The plan (one per placement and direction) describes
/// cuFFT's layout to rocFFT: lengths and strides fastest dimension first, each side's distance, real and
/// Hermitian arrays for the real transforms; rocFFT's work buffer is allocated with the plan.
cufftResult rocExec(Plan &P, void *In, void *Out, int Sign) {
  const rocfft::Api *R = libs::cpuDevice() ? nullptr : rocfft::api();
  if (!R)
    return CUFFT_NOT_SUPPORTED;
  const bool InPlace = In == Out;
  std::lock_guard<std::mutex> G(P.RocMu);
  Plan::Roc &E = P.RocPlans[{InPlace, Sign}];
  if (!E.Plan) {
    Side I, O;
    layouts(P, InPlace, I, O);
    const int Rank = P.Rank;
    const size_t Dims = static_cast<size_t>(Rank);
    std::vector<size_t> Len(Dims), IS(Dims), OS(Dims);
    long long Si = I.Stride, So = O.Stride;
    for (int K = 0; K < Rank; ++K) { // rocFFT's order: the fastest dimension first
      const int D = Rank - 1 - K;
      Len[size_t(K)] = size_t(P.N[size_t(D)]), IS[size_t(K)] = size_t(Si), OS[size_t(K)] = size_t(So);
      Si *= I.Embed[size_t(D)], So *= O.Embed[size_t(D)];
    }
    int Kind = Sign == ZLUDA_CUFFT_FORWARD ? rocfft::ComplexForward : rocfft::ComplexInverse;
    int InT = rocfft::ComplexInterleaved, OutT = rocfft::ComplexInterleaved;
    if (realIn(P.Type))
      Kind = rocfft::RealForward, InT = rocfft::Real, OutT = rocfft::HermitianInterleaved;
    else if (realOut(P.Type))
      Kind = rocfft::RealInverse, InT = rocfft::HermitianInterleaved, OutT = rocfft::Real;
    void *Desc = nullptr;
    if (R->DescriptionCreate(&Desc))
      return CUFFT_NOT_SUPPORTED;
    const size_t Offsets[3] = {0, 0, 0};
    rocfft::Status S = R->DescriptionSetDataLayout(Desc, InT, OutT, Offsets, Offsets, size_t(Rank), IS.data(),
                                                   size_t(I.Dist), size_t(Rank), OS.data(), size_t(O.Dist));
    if (!S)
      S = R->PlanCreate(&E.Plan, InPlace ? rocfft::InPlace : rocfft::NotInPlace, Kind,
                        isDouble(P.Type) ? rocfft::Double : rocfft::Single, size_t(Rank), Len.data(), size_t(P.Batch),
                        Desc);
    R->DescriptionDestroy(Desc);
    if (S) {
      E.Plan = nullptr;
      ZLUDA_LOG_INFO("cuFFT: rocFFT refused a plan (status {}): the host path runs it", S);
      return CUFFT_NOT_SUPPORTED;
    }
    if (R->PlanWorkBufferSize(E.Plan, &E.WorkBytes) == 0 && E.WorkBytes && cuMemAlloc_v2(&E.Work, E.WorkBytes))
      return CUFFT_ALLOC_FAILED;
  }
  void *Info = nullptr;
  if (R->InfoCreate(&Info))
    return CUFFT_EXEC_FAILED;
  rocfft::Status S = R->InfoSetStream(Info, zludaNativeStream(P.Stream));
  if (!S && E.Work)
    S = R->InfoSetWorkBuffer(Info, reinterpret_cast<void *>(E.Work), E.WorkBytes);
  void *Ins[1] = {In}, *Outs[1] = {Out};
  if (!S)
    S = R->Execute(E.Plan, Ins, InPlace ? nullptr : Outs, Info);
  R->InfoDestroy(Info);
  return S ? CUFFT_EXEC_FAILED : CUFFT_SUCCESS;
}

cufftResult exec(cufftHandle H, cufftType Want, void *In, void *Out, int Sign) {
  std::shared_ptr<Plan> P = find(H);
  if (!P || !P->Made)
    return CUFFT_INVALID_PLAN;
  if (P->Type != Want)
    return CUFFT_INVALID_VALUE;
  if (!In || !Out)
    return CUFFT_INVALID_VALUE;
  if (Want == CUFFT_C2C || Want == CUFFT_Z2Z) {
    if (Sign != ZLUDA_CUFFT_FORWARD && Sign != ZLUDA_CUFFT_INVERSE)
      return CUFFT_INVALID_VALUE;
  } else {
    Sign = realIn(Want) ? ZLUDA_CUFFT_FORWARD : ZLUDA_CUFFT_INVERSE;
  }
  if (P->Narrow)
    return execNarrow(P, In, Out, Sign);
  if (libs::cpuDevice()) {
    void *FP = fftwPlan(*P, In, Out, Sign);
    if (!FP)
      return CUFFT_SETUP_FAILED;
    CUresult R = libs::enqueue(P->Stream, [P, FP, In, Out] { run(P->Type, FP, In, Out); }, P->Kept);
    return R ? CUFFT_EXEC_FAILED : CUFFT_SUCCESS;
  }
  // A GPU: rocFFT where it is, else the data through FFTW on the host.
  if (cufftResult R = rocExec(*P, In, Out, Sign); R != CUFFT_NOT_SUPPORTED)
    return R;
  const bool InPlace = In == Out;
  Side I, O;
  layouts(*P, InPlace, I, O);
  size_t InBytes = size_t(span(*P, I, !realIn(P->Type))) * elemBytes(P->Type, !realIn(P->Type));
  size_t OutBytes = size_t(span(*P, O, !realOut(P->Type))) * elemBytes(P->Type, !realOut(P->Type));
  std::vector<unsigned char> HIn(InBytes), HOut(InPlace ? 0 : OutBytes);
  if (InPlace && OutBytes > InBytes)
    HIn.resize(OutBytes);
  void *HostOut = InPlace ? HIn.data() : HOut.data();
  void *FP = fftwPlan(*P, HIn.data(), HostOut, Sign);
  if (!FP)
    return CUFFT_SETUP_FAILED;
  // The output is read in too: the gaps of its layout (strides, distances) are copied back unchanged.
  if (cuMemcpyDtoHAsync_v2(HIn.data(), reinterpret_cast<CUdeviceptr>(In), InBytes, P->Stream) ||
      (!InPlace && cuMemcpyDtoHAsync_v2(HOut.data(), reinterpret_cast<CUdeviceptr>(Out), OutBytes, P->Stream)) ||
      libs::wait(P->Stream))
    return CUFFT_EXEC_FAILED;
  run(P->Type, FP, HIn.data(), HostOut);
  if (cuMemcpyHtoDAsync_v2(reinterpret_cast<CUdeviceptr>(Out), HostOut, OutBytes, P->Stream) ||
      libs::wait(P->Stream))
    return CUFFT_EXEC_FAILED;
  return CUFFT_SUCCESS;
}

bool validType(int T) {
  return T == CUFFT_R2C || T == CUFFT_C2R || T == CUFFT_C2C || T == CUFFT_D2Z || T == CUFFT_Z2D || T == CUFFT_Z2Z;
}

/// Fills plan \p H (cufftMakePlanMany64's rules).
cufftResult make(cufftHandle H, int Rank, const long long *N, const long long *INembed, long long IStride,
                 long long IDist, const long long *ONembed, long long OStride, long long ODist, int Type,
                 long long Batch, size_t *WorkSize) {
  std::shared_ptr<Plan> P = find(H);
  if (!P)
    return CUFFT_INVALID_PLAN;
  if (P->Made)
    return CUFFT_INVALID_PLAN; // a handle is made once
  if (!validType(Type))
    return CUFFT_INVALID_TYPE;
  if (Rank < 1 || Rank > 3 || !N || Batch < 1)
    return CUFFT_INVALID_SIZE;
  for (int K = 0; K < Rank; ++K)
    if (N[K] < 1)
      return CUFFT_INVALID_SIZE;
  CUcontext Ctx;
  if (libs::ensureContext(Ctx))
    return CUFFT_SETUP_FAILED;
  P->Type = cufftType(Type);
  P->Rank = Rank;
  P->N.assign(N, N + Rank);
  P->Batch = Batch;
  if (INembed && ONembed) { // the advanced layout (nembed[0] is not used)
    P->INembed.assign(INembed, INembed + Rank);
    P->ONembed.assign(ONembed, ONembed + Rank);
    P->IStride = IStride, P->IDist = IDist, P->OStride = OStride, P->ODist = ODist;
    if (IStride < 1 || OStride < 1)
      return CUFFT_INVALID_VALUE;
  }
  P->Made = true;
  if (WorkSize)
    *WorkSize = 0; // FFTW needs no work area of the caller's
  return CUFFT_SUCCESS;
}

cufftResult create(cufftHandle *Out) {
  if (!Out)
    return CUFFT_INVALID_VALUE;
  std::lock_guard<std::mutex> G(HandlesMu);
  int H = NextHandle++;
  plans()[H] = std::make_shared<Plan>();
  *Out = H;
  return CUFFT_SUCCESS;
}

std::vector<long long> widen(const int *V, int Rank) {
  return V ? std::vector<long long>(V, V + Rank) : std::vector<long long>();
}

cufftResult makeInt(cufftHandle H, int Rank, const int *N, const int *INembed, int IStride, int IDist,
                    const int *ONembed, int OStride, int ODist, int Type, int Batch, size_t *WorkSize) {
  if (!N)
    return CUFFT_INVALID_VALUE;
  auto N64 = widen(N, Rank), I64 = widen(INembed, Rank), O64 = widen(ONembed, Rank);
  return make(H, Rank, N64.data(), INembed ? I64.data() : nullptr, IStride, IDist, ONembed ? O64.data() : nullptr,
              OStride, ODist, Type, Batch, WorkSize);
}

/// The cufftType of an Xt plan's (input, output, execution) types; \p Narrow
/// is set for half (1) and bfloat16 (2) data, computed as float.
int xtType(cudaDataType In, cudaDataType Out, cudaDataType Exec, int &Narrow) {
  Narrow = 0;
  for (auto [R, C, N] : {std::tuple{CUDA_R_16F, CUDA_C_16F, 1}, std::tuple{CUDA_R_16BF, CUDA_C_16BF, 2}}) {
    if (Exec != C)
      continue;
    Narrow = N;
    if (In == C && Out == C)
      return CUFFT_C2C;
    if (In == R && Out == C)
      return CUFFT_R2C;
    if (In == C && Out == R)
      return CUFFT_C2R;
    Narrow = 0;
    return -1;
  }
  if (In == CUDA_C_32F && Out == CUDA_C_32F && Exec == CUDA_C_32F)
    return CUFFT_C2C;
  if (In == CUDA_R_32F && Out == CUDA_C_32F && Exec == CUDA_C_32F)
    return CUFFT_R2C;
  if (In == CUDA_C_32F && Out == CUDA_R_32F && Exec == CUDA_C_32F)
    return CUFFT_C2R;
  if (In == CUDA_C_64F && Out == CUDA_C_64F && Exec == CUDA_C_64F)
    return CUFFT_Z2Z;
  if (In == CUDA_R_64F && Out == CUDA_C_64F && Exec == CUDA_C_64F)
    return CUFFT_D2Z;
  if (In == CUDA_C_64F && Out == CUDA_R_64F && Exec == CUDA_C_64F)
    return CUFFT_Z2D;
  return -1;
}

} // namespace
} // namespace zluda::cufft

using namespace zluda;
using namespace zluda::cufft;

CUFFT_API cufftResult cufftCreate(cufftHandle *H) { return create(H); }
CUFFT_API cufftResult cufftDestroy(cufftHandle H) {
  std::shared_ptr<Plan> P = find(H);
  if (!P)
    return CUFFT_INVALID_PLAN;
  if (P->Made)
    libs::wait(P->Stream); // queued transforms use the plan's FFTW plans
  std::lock_guard<std::mutex> G(HandlesMu);
  plans().erase(H);
  return CUFFT_SUCCESS;
}
CUFFT_API cufftResult cufftPlan1d(cufftHandle *H, int Nx, cufftType Type, int Batch) {
  if (cufftResult R = create(H))
    return R;
  cufftResult R = makeInt(*H, 1, &Nx, nullptr, 1, 0, nullptr, 1, 0, Type, Batch, nullptr);
  if (R)
    cufftDestroy(*H);
  return R;
}
CUFFT_API cufftResult cufftPlan2d(cufftHandle *H, int Nx, int Ny, cufftType Type) {
  if (cufftResult R = create(H))
    return R;
  int N[2] = {Nx, Ny};
  cufftResult R = makeInt(*H, 2, N, nullptr, 1, 0, nullptr, 1, 0, Type, 1, nullptr);
  if (R)
    cufftDestroy(*H);
  return R;
}
CUFFT_API cufftResult cufftPlan3d(cufftHandle *H, int Nx, int Ny, int Nz, cufftType Type) {
  if (cufftResult R = create(H))
    return R;
  int N[3] = {Nx, Ny, Nz};
  cufftResult R = makeInt(*H, 3, N, nullptr, 1, 0, nullptr, 1, 0, Type, 1, nullptr);
  if (R)
    cufftDestroy(*H);
  return R;
}
CUFFT_API cufftResult cufftPlanMany(cufftHandle *H, int Rank, int *N, int *INembed, int IStride, int IDist,
                                    int *ONembed, int OStride, int ODist, cufftType Type, int Batch) {
  if (cufftResult R = create(H))
    return R;
  cufftResult R = makeInt(*H, Rank, N, INembed, IStride, IDist, ONembed, OStride, ODist, Type, Batch, nullptr);
  if (R)
    cufftDestroy(*H);
  return R;
}
CUFFT_API cufftResult cufftMakePlan1d(cufftHandle H, int Nx, cufftType Type, int Batch, size_t *Work) {
  return makeInt(H, 1, &Nx, nullptr, 1, 0, nullptr, 1, 0, Type, Batch, Work);
}
CUFFT_API cufftResult cufftMakePlan2d(cufftHandle H, int Nx, int Ny, cufftType Type, size_t *Work) {
  int N[2] = {Nx, Ny};
  return makeInt(H, 2, N, nullptr, 1, 0, nullptr, 1, 0, Type, 1, Work);
}
CUFFT_API cufftResult cufftMakePlan3d(cufftHandle H, int Nx, int Ny, int Nz, cufftType Type, size_t *Work) {
  int N[3] = {Nx, Ny, Nz};
  return makeInt(H, 3, N, nullptr, 1, 0, nullptr, 1, 0, Type, 1, Work);
}
CUFFT_API cufftResult cufftMakePlanMany(cufftHandle H, int Rank, int *N, int *INembed, int IStride, int IDist,
                                        int *ONembed, int OStride, int ODist, cufftType Type, int Batch,
                                        size_t *Work) {
  return makeInt(H, Rank, N, INembed, IStride, IDist, ONembed, OStride, ODist, Type, Batch, Work);
}
CUFFT_API cufftResult cufftMakePlanMany64(cufftHandle H, int Rank, long long *N, long long *INembed,
                                          long long IStride, long long IDist, long long *ONembed, long long OStride,
                                          long long ODist, cufftType Type, long long Batch, size_t *Work) {
  return make(H, Rank, N, INembed, IStride, IDist, ONembed, OStride, ODist, Type, Batch, Work);
}
CUFFT_API cufftResult cufftXtMakePlanMany(cufftHandle H, int Rank, long long *N, long long *INembed,
                                          long long IStride, long long IDist, cudaDataType InType,
                                          long long *ONembed, long long OStride, long long ODist,
                                          cudaDataType OutType, long long Batch, size_t *Work,
                                          cudaDataType ExecType) {
  int Narrow = 0;
  int T = xtType(InType, OutType, ExecType, Narrow);
  if (T < 0)
    return CUFFT_INVALID_TYPE;
  cufftResult R = make(H, Rank, N, INembed, IStride, IDist, ONembed, OStride, ODist, T, Batch, Work);
  if (R == CUFFT_SUCCESS)
    find(H)->Narrow = Narrow;
  return R;
}

// Work areas: FFTW allocates what it needs, so every size is 0.
static cufftResult zeroSize(size_t *Work) {
  if (!Work)
    return CUFFT_INVALID_VALUE;
  *Work = 0;
  return CUFFT_SUCCESS;
}
CUFFT_API cufftResult cufftEstimate1d(int, cufftType, int, size_t *W) { return zeroSize(W); }
CUFFT_API cufftResult cufftEstimate2d(int, int, cufftType, size_t *W) { return zeroSize(W); }
CUFFT_API cufftResult cufftEstimate3d(int, int, int, cufftType, size_t *W) { return zeroSize(W); }
CUFFT_API cufftResult cufftEstimateMany(int, int *, int *, int, int, int *, int, int, cufftType, int, size_t *W) {
  return zeroSize(W);
}
CUFFT_API cufftResult cufftGetSize1d(cufftHandle H, int, cufftType, int, size_t *W) {
  return find(H) ? zeroSize(W) : CUFFT_INVALID_PLAN;
}
CUFFT_API cufftResult cufftGetSize2d(cufftHandle H, int, int, cufftType, size_t *W) {
  return find(H) ? zeroSize(W) : CUFFT_INVALID_PLAN;
}
CUFFT_API cufftResult cufftGetSize3d(cufftHandle H, int, int, int, cufftType, size_t *W) {
  return find(H) ? zeroSize(W) : CUFFT_INVALID_PLAN;
}
CUFFT_API cufftResult cufftGetSizeMany(cufftHandle H, int, int *, int *, int, int, int *, int, int, cufftType, int,
                                       size_t *W) {
  return find(H) ? zeroSize(W) : CUFFT_INVALID_PLAN;
}
CUFFT_API cufftResult cufftGetSizeMany64(cufftHandle H, int, long long *, long long *, long long, long long,
                                         long long *, long long, long long, cufftType, long long, size_t *W) {
  return find(H) ? zeroSize(W) : CUFFT_INVALID_PLAN;
}
CUFFT_API cufftResult cufftXtGetSizeMany(cufftHandle H, int, long long *, long long *, long long, long long,
                                         cudaDataType, long long *, long long, long long, cudaDataType, long long,
                                         size_t *W, cudaDataType) {
  return find(H) ? zeroSize(W) : CUFFT_INVALID_PLAN;
}
CUFFT_API cufftResult cufftGetSize(cufftHandle H, size_t *W) { return find(H) ? zeroSize(W) : CUFFT_INVALID_PLAN; }
CUFFT_API cufftResult cufftSetWorkArea(cufftHandle H, void *Area) {
  auto P = find(H);
  if (!P)
    return CUFFT_INVALID_PLAN;
  P->WorkArea = Area;
  return CUFFT_SUCCESS;
}
CUFFT_API cufftResult cufftXtSetWorkArea(cufftHandle H, void **Areas) {
  return cufftSetWorkArea(H, Areas ? Areas[0] : nullptr);
}
CUFFT_API cufftResult cufftSetAutoAllocation(cufftHandle H, int Auto) {
  auto P = find(H);
  if (!P)
    return CUFFT_INVALID_PLAN;
  P->AutoAllocate = Auto != 0;
  return CUFFT_SUCCESS;
}
CUFFT_API cufftResult cufftSetStream(cufftHandle H, CUstream S) {
  auto P = find(H);
  if (!P)
    return CUFFT_INVALID_PLAN;
  P->Stream = S;
  return CUFFT_SUCCESS;
}
CUFFT_API cufftResult cufftGetVersion(int *V) {
  if (!V)
    return CUFFT_INVALID_VALUE;
  *V = 12000; // the cuFFT of CUDA 13.0
  return CUFFT_SUCCESS;
}
CUFFT_API cufftResult cufftGetProperty(libraryPropertyType T, int *V) {
  if (!V)
    return CUFFT_INVALID_VALUE;
  switch (T) {
  case MAJOR_VERSION:
    *V = 12;
    return CUFFT_SUCCESS;
  case MINOR_VERSION:
  case PATCH_LEVEL:
    *V = 0;
    return CUFFT_SUCCESS;
  }
  return CUFFT_INVALID_TYPE;
}
// Plan properties tune NVIDIA's JIT and host threads: accepted and ignored.
CUFFT_API cufftResult cufftSetPlanPropertyInt64(cufftHandle H, cufftProperty Prop, long long) {
  if (!find(H))
    return CUFFT_INVALID_PLAN;
  return Prop == NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT || Prop == NVFFT_PLAN_PROPERTY_INT64_MAX_NUM_HOST_THREADS
             ? CUFFT_SUCCESS
             : CUFFT_INVALID_VALUE;
}
CUFFT_API cufftResult cufftGetPlanPropertyInt64(cufftHandle H, cufftProperty Prop, long long *V) {
  if (!find(H))
    return CUFFT_INVALID_PLAN;
  if (!V || (Prop != NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT && Prop != NVFFT_PLAN_PROPERTY_INT64_MAX_NUM_HOST_THREADS))
    return CUFFT_INVALID_VALUE;
  *V = 0;
  return CUFFT_SUCCESS;
}
CUFFT_API cufftResult cufftResetPlanProperty(cufftHandle H, cufftProperty) {
  return find(H) ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}

CUFFT_API cufftResult cufftExecC2C(cufftHandle H, void *In, void *Out, int Dir) {
  return exec(H, CUFFT_C2C, In, Out, Dir);
}
CUFFT_API cufftResult cufftExecZ2Z(cufftHandle H, void *In, void *Out, int Dir) {
  return exec(H, CUFFT_Z2Z, In, Out, Dir);
}
CUFFT_API cufftResult cufftExecR2C(cufftHandle H, void *In, void *Out) { return exec(H, CUFFT_R2C, In, Out, 0); }
CUFFT_API cufftResult cufftExecD2Z(cufftHandle H, void *In, void *Out) { return exec(H, CUFFT_D2Z, In, Out, 0); }
CUFFT_API cufftResult cufftExecC2R(cufftHandle H, void *In, void *Out) { return exec(H, CUFFT_C2R, In, Out, 0); }
CUFFT_API cufftResult cufftExecZ2D(cufftHandle H, void *In, void *Out) { return exec(H, CUFFT_Z2D, In, Out, 0); }
CUFFT_API cufftResult cufftXtExec(cufftHandle H, void *In, void *Out, int Dir) {
  auto P = find(H);
  if (!P || !P->Made)
    return CUFFT_INVALID_PLAN;
  return exec(H, P->Type, In, Out, Dir);
}

// Xt descriptors of a single GPU: one allocation holding the plan's data in
// place (the larger of its input and output), copies to and from it, and
// the descriptor forms of the executions.
CUFFT_API cufftResult cufftXtMalloc(cufftHandle H, cudaLibXtDesc **Out, int Format) {
  auto P = find(H);
  if (!P || !P->Made)
    return CUFFT_INVALID_PLAN;
  if (!Out || Format < 0 || Format > 7)
    return CUFFT_INVALID_VALUE;
  Side I, O;
  layouts(*P, true, I, O);
  const size_t Bytes = std::max(size_t(span(*P, I, !realIn(P->Type))) * elemBytes(P->Type, !realIn(P->Type)),
                                size_t(span(*P, O, !realOut(P->Type))) * elemBytes(P->Type, !realOut(P->Type)));
  CUdeviceptr D;
  if (cuMemAlloc_v2(&D, Bytes))
    return CUFFT_ALLOC_FAILED;
  auto *X = new cudaXtDesc{};
  X->version = ZLUDA_CUDA_XT_DESCRIPTOR_VERSION;
  X->nGPUs = 1;
  CUdevice Dev = 0;
  cuCtxGetDevice(&Dev);
  X->GPUs[0] = Dev;
  X->data[0] = reinterpret_cast<void *>(D);
  X->size[0] = Bytes;
  auto *L = new cudaLibXtDesc{};
  L->version = ZLUDA_CUDA_XT_DESCRIPTOR_VERSION;
  L->descriptor = X;
  L->library = 0; // LIB_FORMAT_CUFFT
  L->subFormat = Format;
  *Out = L;
  return CUFFT_SUCCESS;
}
CUFFT_API cufftResult cufftXtFree(cudaLibXtDesc *L) {
  if (!L || !L->descriptor)
    return CUFFT_INVALID_VALUE;
  for (int G = 0; G < L->descriptor->nGPUs && G < ZLUDA_MAX_CUDA_DESCRIPTOR_GPUS; ++G)
    cuMemFree_v2(reinterpret_cast<CUdeviceptr>(L->descriptor->data[G]));
  delete L->descriptor;
  delete L;
  return CUFFT_SUCCESS;
}
CUFFT_API cufftResult cufftXtMemcpy(cufftHandle H, void *Dst, void *Src, cufftXtCopyType Type) {
  auto P = find(H);
  if (!P || !P->Made)
    return CUFFT_INVALID_PLAN;
  if (!Dst || !Src)
    return CUFFT_INVALID_VALUE;
  auto Data = [](void *Desc) { return reinterpret_cast<CUdeviceptr>(static_cast<cudaLibXtDesc *>(Desc)->descriptor->data[0]); };
  auto Size = [](void *Desc) { return static_cast<cudaLibXtDesc *>(Desc)->descriptor->size[0]; };
  libs::wait(P->Stream); // after the transforms queued on the plan's stream
  CUresult R;
  switch (Type) {
  case CUFFT_COPY_HOST_TO_DEVICE:
    R = cuMemcpyHtoD_v2(Data(Dst), Src, Size(Dst));
    break;
  case CUFFT_COPY_DEVICE_TO_HOST:
    R = cuMemcpyDtoH_v2(Dst, Data(Src), Size(Src));
    break;
  case CUFFT_COPY_DEVICE_TO_DEVICE:
    R = cuMemcpyDtoD_v2(Data(Dst), Data(Src), std::min(Size(Dst), Size(Src)));
    break;
  default:
    return CUFFT_INVALID_VALUE;
  }
  return R ? CUFFT_EXEC_FAILED : CUFFT_SUCCESS;
}
static cufftResult execDesc(cufftHandle H, cufftType Want, cudaLibXtDesc *In, cudaLibXtDesc *Out, int Dir) {
  if (!In || !Out || !In->descriptor || !Out->descriptor || In->descriptor->nGPUs != 1 ||
      Out->descriptor->nGPUs != 1)
    return CUFFT_INVALID_VALUE;
  return exec(H, Want, In->descriptor->data[0], Out->descriptor->data[0], Dir);
}
CUFFT_API cufftResult cufftXtExecDescriptor(cufftHandle H, cudaLibXtDesc *In, cudaLibXtDesc *Out, int Dir) {
  auto P = find(H);
  if (!P || !P->Made)
    return CUFFT_INVALID_PLAN;
  return execDesc(H, P->Type, In, Out, Dir);
}
CUFFT_API cufftResult cufftXtExecDescriptorC2C(cufftHandle H, cudaLibXtDesc *In, cudaLibXtDesc *Out, int Dir) {
  return execDesc(H, CUFFT_C2C, In, Out, Dir);
}
CUFFT_API cufftResult cufftXtExecDescriptorZ2Z(cufftHandle H, cudaLibXtDesc *In, cudaLibXtDesc *Out, int Dir) {
  return execDesc(H, CUFFT_Z2Z, In, Out, Dir);
}
CUFFT_API cufftResult cufftXtExecDescriptorR2C(cufftHandle H, cudaLibXtDesc *In, cudaLibXtDesc *Out) {
  return execDesc(H, CUFFT_R2C, In, Out, 0);
}
CUFFT_API cufftResult cufftXtExecDescriptorD2Z(cufftHandle H, cudaLibXtDesc *In, cudaLibXtDesc *Out) {
  return execDesc(H, CUFFT_D2Z, In, Out, 0);
}
CUFFT_API cufftResult cufftXtExecDescriptorC2R(cufftHandle H, cudaLibXtDesc *In, cudaLibXtDesc *Out) {
  return execDesc(H, CUFFT_C2R, In, Out, 0);
}
CUFFT_API cufftResult cufftXtExecDescriptorZ2D(cufftHandle H, cudaLibXtDesc *In, cudaLibXtDesc *Out) {
  return execDesc(H, CUFFT_Z2D, In, Out, 0);
}

// Callbacks. NVIDIA's libcufft.so takes no legacy callbacks (device function pointers): they need its static
// library, and its shared cufftXtSetCallback and cufftXtClearCallback answer CUFFT_NOT_IMPLEMENTED whatever the
// plan (observed), as ours do. The LTO callbacks of cufftXtSetJITCallback are NVIDIA's LTO-IR, compiled by
// nvJitLink, which we cannot compile: NOT_SUPPORTED, logged.
CUFFT_API cufftResult cufftXtSetCallback(cufftHandle, void **, int, void **) { return CUFFT_NOT_IMPLEMENTED; }
CUFFT_API cufftResult cufftXtClearCallback(cufftHandle, int) { return CUFFT_NOT_IMPLEMENTED; }
CUFFT_API cufftResult cufftXtSetCallbackSharedSize(cufftHandle H, int, size_t) {
  return find(H) ? CUFFT_NOT_IMPLEMENTED : CUFFT_INVALID_PLAN;
}
CUFFT_API cufftResult cufftXtSetJITCallback(cufftHandle H, const char *, const void *, size_t, int, void **) {
  if (!find(H))
    return CUFFT_INVALID_PLAN;
  zluda::libs::notSupported("cuFFT", "cufftXtSetJITCallback (LTO callbacks are NVIDIA's LTO-IR)");
  return CUFFT_NOT_SUPPORTED;
}
