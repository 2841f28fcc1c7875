//===- RocBackend.cpp - cuBLAS on AMD GPUs over rocBLAS ---------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The backend of our cuBLAS on the HIP backend: each cuBLAS handle gets
/// a rocBLAS handle; every call sets it to the HIP stream under the cuBLAS
/// handle's stream and to its pointer mode, and hands the operation to
/// rocBLAS (GEMMs through rocblas_gemm_strided_batched_ex and
/// rocblas_gemm_batched_ex, level 1 and gemv through the typed functions).
/// Operations rocBLAS is not asked for yet return CUBLAS_STATUS_NOT_SUPPORTED.
#include "libs/cublas/Cublas.h"
#include "libs/cublas/RocBlas.h"

#include "common/Log.h"
#include "libs/common/LibSupport.h"
#include "libs/common/RuntimeLibrary.h"

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <vector>
#include <mutex>

void *zludaNativeStream(CUstream S); // src/driver/Driver.cpp

namespace zluda::rocblas {
namespace {
std::string Why;

const Api *load() {
  static libs::RuntimeLibrary L("ZLUDA_ROCBLAS_LIBRARY",
                                {"librocblas.so.4", "librocblas.so.3", "librocblas.so.0", "librocblas.so"});
  static Api A{};
  auto sym = [&](auto &Fn, const std::string &Name) { L.sym(Fn, Name); };
  sym(A.create_handle, "rocblas_create_handle");
  sym(A.destroy_handle, "rocblas_destroy_handle");
  sym(A.set_stream, "rocblas_set_stream");
  sym(A.set_pointer_mode, "rocblas_set_pointer_mode");
  sym(A.gemm_strided_batched_ex, "rocblas_gemm_strided_batched_ex");
  sym(A.gemm_batched_ex, "rocblas_gemm_batched_ex");
  const char *P[] = {"s", "d", "c", "z"};
  for (int I = 0; I < 4; ++I) {
    std::string T = P[I];
    sym(A.axpy[I], "rocblas_" + T + "axpy");
    sym(A.scal[I], "rocblas_" + T + "scal");
    sym(A.copy[I], "rocblas_" + T + "copy");
    sym(A.swap[I], "rocblas_" + T + "swap");
    sym(A.dot[I], "rocblas_" + T + (I < 2 ? "dot" : "dotu"));
    if (I >= 2)
      sym(A.dotc[I], "rocblas_" + T + "dotc");
    sym(A.nrm2[I], std::string("rocblas_") + (I == 2 ? "sc" : I == 3 ? "dz" : T) + "nrm2");
    sym(A.asum[I], std::string("rocblas_") + (I == 2 ? "sc" : I == 3 ? "dz" : T) + "asum");
    sym(A.amax[I], "rocblas_i" + T + "amax");
    sym(A.amin[I], "rocblas_i" + T + "amin");
    sym(A.gemv[I], "rocblas_" + T + "gemv");
  }
  if (!L.ok()) {
    Why = "librocblas " + L.why();
    return nullptr;
  }
  ZLUDA_LOG_INFO("cuBLAS on AMD GPUs: rocBLAS loaded");
  return &A;
}
} // namespace

const Api *api() {
  static const Api *A = load();
  return A;
}
const std::string &loadError() { return Why; }

} // namespace zluda::rocblas

namespace zluda::cublas {
namespace {
namespace rb = zluda::rocblas;

int op(cublasOperation_t O) { return O == CUBLAS_OP_N ? rb::OpNone : O == CUBLAS_OP_T ? rb::OpTranspose : rb::OpConjugateTranspose; }
int datatype(cudaDataType T) {
  switch (T) {
  case CUDA_R_16F: return rb::F16R;
  case CUDA_R_32F: return rb::F32R;
  case CUDA_R_64F: return rb::F64R;
  case CUDA_C_16F: return rb::F16C;
  case CUDA_C_32F: return rb::F32C;
  case CUDA_C_64F: return rb::F64C;
  case CUDA_R_8I: return rb::I8R;
  case CUDA_R_8U: return rb::U8R;
  case CUDA_R_32I: return rb::I32R;
  case CUDA_R_16BF: return rb::BF16R;
  default: return -1;
  }
}
/// rocBLAS's compute type for a cuBLAS one: the precision the sums are kept in.
int computeType(cublasComputeType_t C, cudaDataType Out) {
  bool Cx = Out == CUDA_C_32F || Out == CUDA_C_64F;
  switch (C) {
  case CUBLAS_COMPUTE_16F:
  case CUBLAS_COMPUTE_16F_PEDANTIC: return rb::F16R;
  case CUBLAS_COMPUTE_64F:
  case CUBLAS_COMPUTE_64F_PEDANTIC: return Cx ? rb::F64C : rb::F64R;
  case CUBLAS_COMPUTE_32I:
  case CUBLAS_COMPUTE_32I_PEDANTIC: return rb::I32R;
  default: return Cx ? rb::F32C : rb::F32R;
  }
}
int typeIndex(cudaDataType T) {
  return T == CUDA_R_32F ? 0 : T == CUDA_R_64F ? 1 : T == CUDA_C_32F ? 2 : T == CUDA_C_64F ? 3 : -1;
}
cublasStatus_t status(rb::Status S) {
  return S == rb::Success ? CUBLAS_STATUS_SUCCESS : S == rb::NotImplemented ? CUBLAS_STATUS_NOT_SUPPORTED
                                                                             : CUBLAS_STATUS_EXECUTION_FAILED;
}
bool fitsInt(int64_t V) { return V >= INT32_MIN && V <= INT32_MAX; }

class RocBackend final : public Backend {
  const rb::Api &A;
  std::mutex Mu;

  /// The handle's rocBLAS handle, set to its stream and pointer mode.
  rb::Handle prepare(Handle &H) {
    std::lock_guard<std::mutex> G(Mu);
    if (!H.Native) {
      rb::Handle R = nullptr;
      if (A.create_handle(&R) != rb::Success)
        return nullptr;
      H.Native = R;
      H.NativeDestroy = [Fn = A.destroy_handle](void *P) { Fn(static_cast<rb::Handle>(P)); };
    }
    auto *R = static_cast<rb::Handle>(H.Native);
    A.set_stream(R, zludaNativeStream(H.Stream));
    A.set_pointer_mode(R, H.PointerMode == CUBLAS_POINTER_MODE_DEVICE ? rb::PointerDevice : rb::PointerHost);
    return R;
  }

public:
  explicit RocBackend(const rb::Api &Api) : A(Api) {}

  /// rocBLAS where it takes the call; the types it lacks (complex int8 inputs...) and what it refuses run on host
  /// copies.
  cublasStatus_t gemm(Handle &H, const Gemm &G) override {
    if (datatype(G.AType) >= 0 && datatype(G.BType) >= 0 && datatype(G.CType) >= 0)
      if (cublasStatus_t S = rocGemm(H, G); S != CUBLAS_STATUS_NOT_SUPPORTED)
        return S;
    return hostGemm(H, G);
  }
  cublasStatus_t level1(Handle &H, const Level1 &L) override {
    if (cublasStatus_t S = rocLevel1(H, L); S != CUBLAS_STATUS_NOT_SUPPORTED)
      return S;
    return hostLevel1(H, L);
  }

  cublasStatus_t rocGemm(Handle &H, const Gemm &G) {
    rb::Handle R = prepare(H);
    if (!R)
      return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!fitsInt(G.M) || !fitsInt(G.N) || !fitsInt(G.K) || !fitsInt(G.Lda) || !fitsInt(G.Ldb) || !fitsInt(G.Ldc) ||
        !fitsInt(G.Batch))
      return CUBLAS_STATUS_NOT_SUPPORTED; // rocBLAS's sizes are 32-bit
    int At = datatype(G.AType), Bt = datatype(G.BType), Ct = datatype(G.CType), Comp = computeType(G.Compute, G.CType);
    int M = int(G.M), N = int(G.N), K = int(G.K), Lda = int(G.Lda), Ldb = int(G.Ldb), Ldc = int(G.Ldc),
        Batch = int(G.Batch);
    // D is C (in place), as cuBLAS has it.
    if (G.Ptrs)
      return status(A.gemm_batched_ex(R, op(G.TransA), op(G.TransB), M, N, K, G.Alpha.ptr(), G.A, At, Lda, G.B, Bt,
                                      Ldb, G.Beta.ptr(), G.C, Ct, Ldc, G.C, Ct, Ldc, Batch, Comp,
                                      rb::GemmAlgoStandard, 0, 0));
    return status(A.gemm_strided_batched_ex(R, op(G.TransA), op(G.TransB), M, N, K, G.Alpha.ptr(), G.A, At, Lda,
                                            G.StrideA, G.B, Bt, Ldb, G.StrideB, G.Beta.ptr(), G.C, Ct, Ldc, G.StrideC,
                                            G.C, Ct, Ldc, G.StrideC, Batch, Comp, rb::GemmAlgoStandard, 0, 0));
  }

  cublasStatus_t rocLevel1(Handle &H, const Level1 &L) {
    rb::Handle R = prepare(H);
    int T = typeIndex(L.T);
    if (!R || T < 0)
      return R ? CUBLAS_STATUS_NOT_SUPPORTED : CUBLAS_STATUS_NOT_INITIALIZED;
    if (!fitsInt(L.N) || !fitsInt(L.IncX) || !fitsInt(L.IncY) || L.Result64 || L.RealScalar)
      return CUBLAS_STATUS_NOT_SUPPORTED; // 64-bit sizes and indices, Csscal/Zdscal: not asked of rocBLAS yet
    int N = int(L.N), Ix = int(L.IncX), Iy = int(L.IncY);
    switch (L.Op) {
    case L1::Axpy: return status(A.axpy[T](R, N, L.Alpha.ptr(), L.X, Ix, L.Y, Iy));
    case L1::Scal: return status(A.scal[T](R, N, L.Alpha.ptr(), L.X, Ix));
    case L1::Copy: return status(A.copy[T](R, N, L.X, Ix, L.Y, Iy));
    case L1::Swap: return status(A.swap[T](R, N, L.X, Ix, L.Y, Iy));
    case L1::Dot: return status(A.dot[T](R, N, L.X, Ix, L.Y, Iy, L.Result));
    case L1::Dotc: return status((T >= 2 ? A.dotc[T] : A.dot[T])(R, N, L.X, Ix, L.Y, Iy, L.Result));
    case L1::Nrm2: return status(A.nrm2[T](R, N, L.X, Ix, L.Result));
    case L1::Asum: return status(A.asum[T](R, N, L.X, Ix, L.Result));
    case L1::Amax: return status(A.amax[T](R, N, L.X, Ix, static_cast<int *>(L.Result)));
    case L1::Amin: return status(A.amin[T](R, N, L.X, Ix, static_cast<int *>(L.Result)));
    }
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }

  cublasStatus_t gemv(Handle &H, const Gemv &G) override {
    rb::Handle R = prepare(H);
    int T = typeIndex(G.T);
    if (!R || T < 0)
      return R ? CUBLAS_STATUS_NOT_SUPPORTED : CUBLAS_STATUS_NOT_INITIALIZED;
    if (!fitsInt(G.M) || !fitsInt(G.N) || !fitsInt(G.Lda) || !fitsInt(G.IncX) || !fitsInt(G.IncY))
      return CUBLAS_STATUS_NOT_SUPPORTED;
    return status(A.gemv[T](R, op(G.Trans), int(G.M), int(G.N), G.Alpha.ptr(), G.A, int(G.Lda), G.X, int(G.IncX),
                            G.Beta.ptr(), G.Y, int(G.IncY)));
  }

  // geam/dgmm, the level-2 routines and the level-3 ones other than gemm are not asked of rocBLAS yet: they wait
  // for the stream and run on host copies of their arrays (the CPU device's code), the outputs copied back.
  cublasStatus_t geam(Handle &H, const Geam &G) override {
    if (elemBytes(G.T) == 0)
      return notYet("geam and dgmm of this type");
    HostCopies S;
    Geam C = G;
    const size_t E = elemBytes(G.T);
    if (G.Dgmm) {
      S.add(G.A, span(G.Lda, G.M, G.N) * E);
      S.add(G.B, vecSpan(G.Side == CUBLAS_SIDE_LEFT ? G.M : G.N, G.IncX) * E);
    } else {
      const bool Ta = G.TransA != CUBLAS_OP_N, Tb = G.TransB != CUBLAS_OP_N;
      S.add(G.A, (Ta ? span(G.Lda, G.N, G.M) : span(G.Lda, G.M, G.N)) * E);
      S.add(G.B, (Tb ? span(G.Ldb, G.N, G.M) : span(G.Ldb, G.M, G.N)) * E);
    }
    S.add(G.C, span(G.Ldc, G.M, G.N) * E, true);
    return onHost(H, S, {{&C.Alpha, E}, {&C.Beta, E}}, [&] {
      C.A = S.host(G.A), C.B = S.host(G.B), C.C = S.host(G.C);
      geamRun(C);
    });
  }
  cublasStatus_t level2(Handle &H, const Level2 &L) override {
    const size_t E = elemBytes(L.T);
    if (E == 0)
      return notYet("ger, symv, trmv, trsv of this type");
    HostCopies S;
    Level2 C = L;
    switch (L.Op) {
    case L2::Ger:
    case L2::Gerc:
      S.add(L.X, vecSpan(L.M, L.IncX) * E), S.add(L.Y, vecSpan(L.N, L.IncY) * E);
      S.add(L.A, span(L.Lda, L.M, L.N) * E, true);
      break;
    case L2::Symv:
    case L2::Hemv:
      S.add(L.A, span(L.Lda, L.N, L.N) * E), S.add(L.X, vecSpan(L.N, L.IncX) * E);
      S.add(L.Y, vecSpan(L.N, L.IncY) * E, true);
      break;
    case L2::Trmv:
    case L2::Trsv:
      S.add(L.A, span(L.Lda, L.N, L.N) * E), S.add(L.X, vecSpan(L.N, L.IncX) * E, true);
      break;
    }
    return onHost(H, S, {{&C.Alpha, E}, {&C.Beta, E}}, [&] {
      C.A = S.host(L.A), C.X = S.host(L.X), C.Y = S.host(L.Y);
      level2Run(C);
    });
  }
  cublasStatus_t level3(Handle &H, const Level3 &L) override {
    const size_t E = elemBytes(L.T);
    if (E == 0 || (L.Ptrs && L.Op != L3::Trsm) || (!L.Ptrs && L.Batch != 1))
      return notYet("trsm, trmm, syrk, symm, syr2k batches or of this type");
    if (L.Ptrs) { // batched trsm: the pointer arrays read back, each A and B (in place) copied
      const size_t Nb = size_t(L.Batch);
      const int64_t Ka = L.Side == CUBLAS_SIDE_LEFT ? L.M : L.N;
      std::vector<const void *> DevA(Nb), DevB(Nb);
      if (libs::wait(H.Stream) || libs::toHost(DevA.data(), L.A, Nb * sizeof(void *)) ||
          libs::toHost(DevB.data(), L.B, Nb * sizeof(void *)))
        return CUBLAS_STATUS_EXECUTION_FAILED;
      HostCopies S;
      for (size_t I = 0; I < Nb; ++I)
        S.add(DevA[I], span(L.Lda, Ka, Ka) * E), S.add(DevB[I], span(L.Ldb, L.M, L.N) * E, true);
      std::vector<void *> HostA(Nb), HostB(Nb);
      Level3 C = L;
      return onHost(H, S, {{&C.Alpha, E}}, [&] {
        for (size_t I = 0; I < Nb; ++I)
          HostA[I] = S.host(DevA[I]), HostB[I] = S.host(DevB[I]);
        C.A = HostA.data(), C.B = HostB.data();
        level3Run(C);
      });
    }
    HostCopies S;
    Level3 C = L;
    const int64_t Ka = L.Side == CUBLAS_SIDE_LEFT ? L.M : L.N;
    switch (L.Op) {
    case L3::Trsm: // in place on B
      S.add(L.A, span(L.Lda, Ka, Ka) * E), S.add(L.B, span(L.Ldb, L.M, L.N) * E, true);
      break;
    case L3::Trmm:
    case L3::Symm:
    case L3::Hemm:
      S.add(L.A, span(L.Lda, Ka, Ka) * E), S.add(L.B, span(L.Ldb, L.M, L.N) * E);
      S.add(L.C, span(L.Ldc, L.M, L.N) * E, true);
      break;
    default: { // rank-k updates: n x n C from n x k (N) or k x n operands
      const bool N = L.Trans == CUBLAS_OP_N;
      S.add(L.A, span(L.Lda, N ? L.N : L.K, N ? L.K : L.N) * E);
      S.add(L.B, span(L.Ldb, N ? L.N : L.K, N ? L.K : L.N) * E);
      S.add(L.C, span(L.Ldc, L.N, L.N) * E, true);
    }
    }
    // herk/her2k/herkx: a real beta (and a real alpha for herk).
    const bool RealBeta = L.Op == L3::Herk || L.Op == L3::Her2k || L.Op == L3::Herkx;
    return onHost(H, S, {{&C.Alpha, L.Op == L3::Herk ? E / 2 : E}, {&C.Beta, RealBeta ? E / 2 : E}}, [&] {
      C.A = S.host(L.A), C.B = S.host(L.B), C.C = S.host(L.C);
      level3Run(C);
    });
  }
  /// A GEMM on host copies (strided batches, or the pointer arrays read back and each matrix copied).
  cublasStatus_t hostGemm(Handle &H, const Gemm &G) {
    const size_t Ea = elemSize(G.AType), Eb = elemSize(G.BType), Ec = elemSize(G.CType);
    if (!Ea || !Eb || !Ec)
      return notYet("GEMM of these types");
    const bool Ta = G.TransA != CUBLAS_OP_N, Tb = G.TransB != CUBLAS_OP_N;
    const size_t Sa = (Ta ? span(G.Lda, G.K, G.M) : span(G.Lda, G.M, G.K)) * Ea,
                 Sb = (Tb ? span(G.Ldb, G.N, G.K) : span(G.Ldb, G.K, G.N)) * Eb, Sc = span(G.Ldc, G.M, G.N) * Ec;
    // The scalars are of the compute type's scalar type: complex for complex C, int32 for 32I, f16 for 16F.
    const bool Cx = G.CType == CUDA_C_32F || G.CType == CUDA_C_64F || G.CType == CUDA_C_16F;
    const bool D = G.Compute == CUBLAS_COMPUTE_64F || G.Compute == CUBLAS_COMPUTE_64F_PEDANTIC;
    const bool Half = G.Compute == CUBLAS_COMPUTE_16F || G.Compute == CUBLAS_COMPUTE_16F_PEDANTIC;
    const size_t Sv = Half ? 2 : (D ? 8 : 4) * (Cx ? 2 : 1);
    HostCopies S;
    Gemm C = G;
    const size_t Nb = size_t(G.Batch);
    std::vector<const void *> DevA, DevB, DevC;
    std::vector<void *> HostA, HostB, HostC;
    if (G.Ptrs) {
      DevA.resize(Nb), DevB.resize(Nb), DevC.resize(Nb);
      if (libs::wait(H.Stream) || libs::toHost(DevA.data(), G.A, Nb * sizeof(void *)) ||
          libs::toHost(DevB.data(), G.B, Nb * sizeof(void *)) || libs::toHost(DevC.data(), G.C, Nb * sizeof(void *)))
        return CUBLAS_STATUS_EXECUTION_FAILED;
      for (size_t I = 0; I < Nb; ++I)
        S.add(DevA[I], Sa), S.add(DevB[I], Sb), S.add(DevC[I], Sc, true);
      HostA.resize(Nb), HostB.resize(Nb), HostC.resize(Nb);
    } else {
      const size_t Last = Nb ? Nb - 1 : 0;
      S.add(G.A, Sa + Last * size_t(G.StrideA) * Ea), S.add(G.B, Sb + Last * size_t(G.StrideB) * Eb);
      S.add(G.C, Sc + Last * size_t(G.StrideC) * Ec, true);
    }
    return onHost(H, S, {{&C.Alpha, Sv}, {&C.Beta, Sv}}, [&] {
      if (G.Ptrs) {
        for (size_t I = 0; I < Nb; ++I)
          HostA[I] = S.host(DevA[I]), HostB[I] = S.host(DevB[I]), HostC[I] = S.host(DevC[I]);
        C.A = HostA.data(), C.B = HostB.data(), C.C = HostC.data();
      } else {
        C.A = S.host(G.A), C.B = S.host(G.B), C.C = S.host(G.C);
      }
      gemmHost(C);
    });
  }

  /// Level 1 on host copies (64-bit sizes, Csscal/Zdscal, what rocBLAS refuses): results in host memory under
  /// the host pointer mode are written there, in device memory copied back.
  cublasStatus_t hostLevel1(Handle &H, const Level1 &L) {
    const size_t E = elemBytes(L.T);
    if (E == 0)
      return notYet("level 1 of this type");
    HostCopies S;
    Level1 C = L;
    const bool Writes = L.Op == L1::Axpy || L.Op == L1::Scal || L.Op == L1::Copy || L.Op == L1::Swap;
    S.add(L.X, vecSpan(L.N, L.IncX) * E, L.Op == L1::Scal || L.Op == L1::Swap);
    if (L.Op == L1::Axpy || L.Op == L1::Copy || L.Op == L1::Swap || L.Op == L1::Dot || L.Op == L1::Dotc)
      S.add(L.Y, vecSpan(L.N, L.IncY) * E, Writes);
    const bool DevResult = !Writes && H.PointerMode == CUBLAS_POINTER_MODE_DEVICE;
    const size_t Rb = L.Op == L1::Amax || L.Op == L1::Amin ? (L.Result64 ? 8 : 4)
                      : L.Op == L1::Nrm2 || L.Op == L1::Asum ? E / (L.T == CUDA_C_32F || L.T == CUDA_C_64F ? 2 : 1)
                                                             : E;
    if (DevResult)
      S.add(L.Result, Rb, true);
    const size_t Ab = L.RealScalar ? E / 2 : E;
    return onHost(H, S, {{&C.Alpha, Ab}}, [&] {
      C.X = S.host(L.X), C.Y = L.Y ? S.host(L.Y) : nullptr;
      if (DevResult)
        C.Result = S.host(L.Result);
      level1Host(C);
    });
  }

  /// Batched LU (getrf, getri, getrs, matinv) on host copies: the pointer arrays read back, each matrix copied.
  cublasStatus_t lu(Handle &H, const LuBatch &L) override {
    const size_t E = elemBytes(L.T);
    if (E == 0)
      return notYet("batched LU of this type");
    const size_t Nb = size_t(L.Batch);
    std::vector<const void *> DevA(Nb), DevC(L.C ? Nb : 0);
    if (libs::wait(H.Stream) || libs::toHost(DevA.data(), L.A, Nb * sizeof(void *)) ||
        (L.C && libs::toHost(DevC.data(), L.C, Nb * sizeof(void *))))
      return CUBLAS_STATUS_EXECUTION_FAILED;
    HostCopies S;
    const bool Getrs = L.Op == Lu::Getrs;
    for (size_t I = 0; I < Nb; ++I) {
      S.add(DevA[I], span(L.Lda, L.N, L.N) * E, L.Op == Lu::Getrf); // getrf factors A in place
      if (L.C)
        S.add(DevC[I], span(L.Ldc, L.N, Getrs ? L.Nrhs : L.N) * E, true);
    }
    S.add(L.Pivots, L.N * Nb * sizeof(int), L.Op == Lu::Getrf);
    if (!Getrs) // getrs's info is a host int, set at the call
      S.add(L.Info, Nb * sizeof(int), true);
    std::vector<void *> HostA(Nb), HostC(DevC.size());
    LuBatch C = L;
    return onHost(H, S, {}, [&] {
      for (size_t I = 0; I < Nb; ++I) {
        HostA[I] = S.host(DevA[I]);
        if (L.C)
          HostC[I] = S.host(DevC[I]);
      }
      C.A = HostA.data(), C.C = L.C ? HostC.data() : nullptr;
      C.Pivots = static_cast<int *>(S.host(L.Pivots));
      if (!Getrs)
        C.Info = static_cast<int *>(S.host(L.Info));
      luRun(C);
    });
  }
  cublasStatus_t other(Handle &, const char *Name, std::function<void()>) override { return notYet(Name); }

private:
  static size_t elemBytes(cudaDataType T) {
    return T == CUDA_R_32F ? 4 : T == CUDA_R_64F || T == CUDA_C_32F ? 8 : T == CUDA_C_64F ? 16 : 0;
  }

  /// Host copies of a call's device arrays (one per address: an operand given twice, or in place, is one copy
  /// of the largest span asked), the outputs copied back.
  struct HostCopies {
    struct Entry {
      const void *Dev;
      size_t Bytes;
      bool Out;
      std::vector<unsigned char> Host;
    };
    std::vector<Entry> Arrays;
    const void *add(const void *Dev, size_t Bytes, bool Out = false) {
      if (!Dev)
        return nullptr;
      for (Entry &E : Arrays)
        if (E.Dev == Dev) {
          E.Bytes = std::max(E.Bytes, Bytes), E.Out |= Out;
          return Dev;
        }
      Arrays.push_back({Dev, Bytes, Out, {}});
      return Dev;
    }
    bool load() {
      for (Entry &E : Arrays) {
        E.Host.resize(E.Bytes ? E.Bytes : 1);
        if (E.Bytes && libs::toHost(E.Host.data(), E.Dev, E.Bytes))
          return false;
      }
      return true;
    }
    void *host(const void *Dev) {
      for (Entry &E : Arrays)
        if (E.Dev == Dev)
          return E.Host.data();
      return nullptr;
    }
    bool store() const {
      for (const Entry &E : Arrays)
        if (E.Out && E.Bytes && libs::toDevice(const_cast<void *>(E.Dev), E.Host.data(), E.Bytes))
          return false;
      return true;
    }
  };
  /// Work after the stream on the host copies: scalars in device memory read first.
  template <typename F>
  cublasStatus_t onHost(Handle &H, HostCopies &S, std::initializer_list<std::pair<Scalar *, size_t>> Scalars,
                        F Work) {
    if (libs::wait(H.Stream) || !S.load() || !fetch(H, Scalars))
      return CUBLAS_STATUS_EXECUTION_FAILED;
    Work();
    return S.store() ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
  }

  cublasStatus_t notYet(const char *What) {
    libs::notSupported("cuBLAS", (std::string(What) + " on AMD GPUs (rocBLAS backend)").c_str());
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
};

} // namespace

Backend *makeRocBackend() {
  const rb::Api *A = rb::api();
  if (!A) {
    ZLUDA_LOG_WARN("cuBLAS on AMD GPUs needs rocBLAS: {}", rb::loadError());
    return nullptr;
  }
  return new RocBackend(*A);
}

} // namespace zluda::cublas
