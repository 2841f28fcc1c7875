//===- HostMatrix.cpp - matrix instructions of CPU kernels ----------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file wmma, mma, wgmma and ldmatrix for the CPU device: the first lane of a
/// warp to read gathers every lane's fragments in a warp collective.
#include "cpu/ExecutorImpl.h"
#include "ptx/codegen/Lowering.h"
#include "ptx/codegen/Wgmma.h"

#include "common/Log.h"

#include <cmath>
#include <cstring>

namespace zluda::cpu::exec {

extern "C" {

static float halfToFloat(uint16_t H) { return zluda::ptx::halfBitsToFloat(H); }

/// wmma.mma of any shape (layout: lowerWmma, arithmetic: wmmaLane). The
/// first lane to read gathers every lane's A and B registers while the warp
/// is blocked in the collective and writes each lane's D.
void hostWmma(ZludaThreadCtx *C, uint32_t Packed, uint32_t Shape, const uint64_t *A, const uint64_t *Bm,
              const uint64_t *Cf, uint64_t *D) {
  using namespace zluda::ptx;
  struct Frags {
    const uint64_t *A, *B, *C;
    uint64_t *D;
  };
  Frags Mine{A, Bm, Cf, D};
  MmaDesc Desc = MmaDesc::unpack(Packed);
  WmmaShape S = WmmaShape::unpack(Shape);
  warpCollective(C, 0xffffffffu, reinterpret_cast<uint64_t>(&Mine), 0, [&](WarpState &WS, uint32_t G) {
    if (WS.Read & G)
      return 0; // already computed by an earlier reader
    uint32_t NA = S.aRegs(Desc), NB = S.bRegs(Desc);
    uint64_t AllA[32 * 8] = {}, AllB[32 * 8] = {};
    for (uint32_t L = 0; L < 32; ++L) {
      if (!((G >> L) & 1))
        continue;
      const Frags *F = reinterpret_cast<const Frags *>(WS.Values[L]);
      std::copy(F->A, F->A + NA, AllA + L * NA);
      std::copy(F->B, F->B + NB, AllB + L * NB);
    }
    uint32_t EA = S.M * S.K / 32, EB = S.K * S.N / 32;
    auto elemA = [&](uint32_t Row, uint32_t Kk) {
      MmaPos P = wmmaElem(Row * S.K + Kk, EA, Desc.A);
      return mmaElemValue(AllA[P.Lane * NA + P.Reg], Desc.A, P.Index);
    };
    auto elemB = [&](uint32_t Kk, uint32_t Col) {
      MmaPos P = wmmaElem(Kk * S.N + Col, EB, Desc.B);
      return mmaElemValue(AllB[P.Lane * NB + P.Reg], Desc.B, P.Index);
    };
    for (uint32_t L = 0; L < 32; ++L)
      if ((G >> L) & 1) {
        const Frags *F = reinterpret_cast<const Frags *>(WS.Values[L]);
        wmmaLane(Desc, S, F->C, L, F->D, elemA, elemB);
      }
    return 0;
  });
}

/// mma.sync of the m16n8k* and m8n8k* shapes with the common fragment layout
/// (WarpSemantics.h: mmaAElem/mmaBElem/mmaCElem). The first lane to read
/// gathers the warp's fragments into whole matrices and writes each lane's
/// part of D; products are summed in double (f16/bf16/tf32/fp8 products are
/// exact there) in K order, as the AMDGPU runtime does.
void hostMmaGeneric(ZludaThreadCtx *C, uint32_t Packed, const uint64_t *A, const uint64_t *Bm, const uint64_t *Cf,
                    uint64_t *D) {
  using namespace zluda::ptx;
  struct Frags {
    const uint64_t *A, *B, *C;
    uint64_t *D;
  };
  Frags Mine{A, Bm, Cf, D};
  MmaDesc Desc = MmaDesc::unpack(Packed);
  warpCollective(C, 0xffffffffu, reinterpret_cast<uint64_t>(&Mine), 0, [&](WarpState &WS, uint32_t G) {
    if (WS.Read & G)
      return 0;
    if (Desc.QuadPair) { // four 8x8x4 products, one per quad-pair
      for (uint32_t L = 0; L < 32; ++L) {
        if (!((G >> L) & 1))
          continue;
        const Frags *F = reinterpret_cast<const Frags *>(WS.Values[L]);
        uint32_t Q = mmaQuadPairOf(L);
        auto frag = [&](uint32_t Src) -> const Frags * {
          return ((G >> Src) & 1) ? reinterpret_cast<const Frags *>(WS.Values[Src]) : nullptr;
        };
        uint64_t Out[8];
        for (uint32_t I = 0; I < 8; ++I) {
          uint32_t Row, Col, CLane, CI;
          mmaQuadPairAccElem(Desc.D, L, I, Row, Col);
          mmaQuadPairAccSlot(Desc.C, Q, Row, Col, CLane, CI);
          const Frags *FC = frag(CLane);
          double Acc = FC ? mmaCValue(Desc, FC->C, CI) : 0;
          const Frags *FA = frag(mmaQuadPairLane(Q, Row)), *FB = frag(mmaQuadPairLane(Q, Col));
          for (uint32_t Kk = 0; FA && FB && Kk < 4; ++Kk)
            Acc += mmaElemValue(FA->A[Kk / 2], ME_F16, Kk % 2) * mmaElemValue(FB->B[Kk / 2], ME_F16, Kk % 2);
          Out[I] = mmaFloatResult(Desc, Acc);
        }
        mmaStoreD(Desc, Out, 8, F->D);
      }
      return 0;
    }
    const unsigned M = Desc.M, N = 8, K = Desc.K;
    unsigned EA = MmaDesc::perReg(Desc.A), EB = MmaDesc::perReg(Desc.B);
    std::vector<double> Am(M * K, 0), Bv(K * N, 0), Cv(M * N, 0);
    unsigned NA = Desc.aRegs(), NB = Desc.bRegs(), CElems = M == 16 ? 4 : 2;
    for (unsigned L = 0; L < 32; ++L) {
      if (!((G >> L) & 1))
        continue;
      const Frags *F = reinterpret_cast<const Frags *>(WS.Values[L]);
      for (unsigned R = 0; R < NA; ++R)
        for (unsigned I = 0; I < EA; ++I) {
          uint32_t Row, Col;
          mmaAElem(Desc, L, R, I, Row, Col);
          if (Row < M && Col < K)
            Am[Row * K + Col] = mmaElemValue(F->A[R], Desc.A, I);
        }
      for (unsigned R = 0; R < NB; ++R)
        for (unsigned I = 0; I < EB; ++I) {
          uint32_t Kk, Col;
          mmaBElem(Desc, L, R, I, Kk, Col);
          if (Kk < K)
            Bv[Kk * N + Col] = mmaElemValue(F->B[R], Desc.B, I);
        }
      for (unsigned I = 0; I < CElems; ++I) {
        uint32_t Row, Col;
        mmaCElem(Desc, L, I, Row, Col);
        Cv[Row * N + Col] = mmaCValue(Desc, F->C, I);
      }
    }
    for (unsigned L = 0; L < 32; ++L) {
      if (!((G >> L) & 1))
        continue;
      const Frags *F = reinterpret_cast<const Frags *>(WS.Values[L]);
      uint64_t Out[4] = {0, 0, 0, 0};
      for (unsigned I = 0; I < CElems; ++I) {
        uint32_t Row, Col;
        mmaCElem(Desc, L, I, Row, Col);
        if (Desc.D == MA_S32) {
          int64_t Acc = int64_t(Cv[Row * N + Col]);
          for (unsigned Kk = 0; Kk < K; ++Kk)
            Acc += mmaIntTerm(Desc, Am[Row * K + Kk], Bv[Kk * N + Col]);
          Out[I] = mmaIntResult(Desc, Acc);
        } else {
          double Acc = Cv[Row * N + Col];
          for (unsigned Kk = 0; Kk < K; ++Kk)
            Acc += Am[Row * K + Kk] * Bv[Kk * N + Col];
          Out[I] = mmaFloatResult(Desc, Acc);
        }
      }
      mmaStoreD(Desc, Out, CElems, F->D);
    }
    return 0;
  });
}

/// wgmma.mma_async (ptx/codegen/Wgmma.h): each warp computes its 16 rows of
/// the warpgroup's D. The first lane to read gathers the warp's A fragments
/// (A in registers) and D registers, reads A and B from shared memory
/// through their descriptors, and writes every lane's D; products are summed
/// in double in K order from the accumulator, as mma.sync's are.
void hostWgmma(ZludaThreadCtx *C, uint32_t Packed, uint64_t ADesc, const uint64_t *ARegs, uint64_t BDesc, uint64_t *D,
               uint32_t ScaleD) {
  using namespace zluda::ptx;
  struct Frags {
    const uint64_t *A;
    uint64_t *D;
  };
  Frags Mine{ARegs, D};
  WgmmaDesc W = WgmmaDesc::unpack(Packed);
  MmaDesc Md = W.mma();
  const uint32_t N = W.N, K = W.k(), Rows = 16, WarpInGroup = C->WarpId % 4;
  const char *Shared = C->SharedBase;
  const uint64_t SharedBytes = C->SharedBytes;
  bool Bad = false;
  warpCollective(C, 0xffffffffu, reinterpret_cast<uint64_t>(&Mine), 0, [&](WarpState &WS, uint32_t G) {
    if (WS.Read & G)
      return 0;
    // One element of a shared-memory operand: row R (M or N), column Kk.
    auto smem = [&](uint64_t Desc, uint32_t E, uint32_t R, uint32_t Kk, bool MnMajor) -> double {
      uint32_t Bits = MmaDesc::bits(E);
      uint64_t Off = wgmmaElemOffset(Desc, R, Kk, Bits, MnMajor);
      uint32_t Bytes = Bits >= 8 ? Bits / 8 : 1;
      if (Off + Bytes > SharedBytes) {
        Bad = true;
        return 0;
      }
      uint64_t Raw = 0;
      std::memcpy(&Raw, Shared + Off, Bytes);
      if (Bits < 8)
        return double((Raw >> (uint64_t(Kk) * Bits % 8)) & 1);
      return mmaElemValue(Raw, E, 0);
    };
    std::vector<double> Am(Rows * K, 0), Bm(K * N, 0);
    if (!W.ARegs) {
      for (uint32_t R = 0; R < Rows; ++R)
        for (uint32_t Kk = 0; Kk < K; ++Kk)
          Am[R * K + Kk] = smem(ADesc, W.A, 16 * WarpInGroup + R, Kk, W.TransA);
    } else {
      for (uint32_t L = 0; L < 32; ++L) {
        if (!((G >> L) & 1))
          continue;
        const Frags *F = reinterpret_cast<const Frags *>(WS.Values[L]);
        for (uint32_t R = 0; R < Md.aRegs(); ++R)
          for (uint32_t I = 0; I < MmaDesc::perReg(W.A); ++I) {
            uint32_t Row, Col;
            mmaAElem(Md, L, R, I, Row, Col);
            if (Row < Rows && Col < K)
              Am[Row * K + Col] = mmaElemValue(F->A[R], W.A, I);
          }
      }
    }
    for (uint32_t Col = 0; Col < N; ++Col)
      for (uint32_t Kk = 0; Kk < K; ++Kk)
        Bm[Kk * N + Col] = smem(BDesc, W.B, Col, Kk, W.TransB);
    if (Bad)
      return 0;
    double SA = W.NegA ? -1 : 1, SB = W.NegB ? -1 : 1;
    const uint32_t Elems = N / 2;
    std::vector<uint64_t> Out(Elems);
    for (uint32_t L = 0; L < 32; ++L) {
      if (!((G >> L) & 1))
        continue;
      const Frags *F = reinterpret_cast<const Frags *>(WS.Values[L]);
      for (uint32_t I = 0; I < Elems; ++I) {
        uint32_t Row, Col;
        wgmmaDElem(L, I, Row, Col);
        if (W.D == MA_S32) {
          int64_t Acc = ScaleD ? int64_t(int32_t(uint32_t(F->D[I]))) : 0;
          for (uint32_t Kk = 0; Kk < K; ++Kk)
            Acc += mmaIntTerm(Md, Am[Row * K + Kk], Bm[Kk * N + Col]);
          Out[I] = mmaIntResult(Md, Acc);
        } else {
          double Acc = 0;
          if (ScaleD) // f32 registers, or f16 pairs packed as mma's C
            Acc = mmaCValue(Md, F->D, I);
          for (uint32_t Kk = 0; Kk < K; ++Kk)
            Acc += SA * Am[Row * K + Kk] * SB * Bm[Kk * N + Col];
          Out[I] = mmaFloatResult(Md, Acc);
        }
      }
      mmaStoreD(Md, Out.data(), Elems, F->D);
    }
    return 0;
  });
  if (Bad) {
    ZLUDA_LOG_ERROR("wgmma: a matrix descriptor reaches past the block's {} bytes of shared memory", SharedBytes);
    unwindKernel(SIGSEGV);
  }
}

void hostMmaM16n8k16(ZludaThreadCtx *C, const uint16_t *A, const uint16_t *Bm, const float *Cf, float *D,
                     uint32_t Bf16) {
  struct Frags {
    const uint16_t *A, *B;
    const float *C;
    float *D;
  };
  Frags Mine{A, Bm, Cf, D};
  auto toF = [Bf16](uint16_t H) {
    if (!Bf16)
      return halfToFloat(H);
    uint32_t Bits = uint32_t(H) << 16;
    float F;
    std::memcpy(&F, &Bits, 4);
    return F;
  };
  warpCollective(C, 0xffffffffu, reinterpret_cast<uint64_t>(&Mine), 0, [&](WarpState &WS, uint32_t G) {
    if (WS.Read & G)
      return 0; // already computed by an earlier reader
    float Am[16][16] = {}, Bv[16][8] = {}, Cv[16][8] = {};
    for (unsigned L = 0; L < 32; ++L) {
      if (!((G >> L) & 1))
        continue;
      const Frags *F = reinterpret_cast<const Frags *>(WS.Values[L]);
      unsigned Gr = L >> 2, T = L & 3;
      for (unsigned I = 0; I < 8; ++I)
        Am[Gr + ((I & 2) ? 8 : 0)][2 * T + (I & 1) + (I >= 4 ? 8 : 0)] = toF(F->A[I]);
      for (unsigned I = 0; I < 4; ++I) {
        Bv[2 * T + (I & 1) + (I >= 2 ? 8 : 0)][Gr] = toF(F->B[I]);
        Cv[Gr + (I >= 2 ? 8 : 0)][2 * T + (I & 1)] = F->C[I];
      }
    }
    for (unsigned L = 0; L < 32; ++L) {
      if (!((G >> L) & 1))
        continue;
      const Frags *F = reinterpret_cast<const Frags *>(WS.Values[L]);
      unsigned Gr = L >> 2, T = L & 3;
      for (unsigned I = 0; I < 4; ++I) {
        unsigned Row = Gr + (I >= 2 ? 8 : 0), Col = 2 * T + (I & 1);
        float Acc = Cv[Row][Col];
        for (unsigned K = 0; K < 16; ++K)
          Acc = std::fma(Am[Row][K], Bv[K][Col], Acc);
        F->D[I] = Acc;
      }
    }
    return 0;
  });
}

/// ldmatrix.m8n8.b16 (layout: lowerLdmatrix). The first lane to resume reads
/// every lane's fragments, before any lane runs on: a lane that read its own
/// part alone and went on could store into the rows the others had still to
/// read (ggml's mma tiles reuse one shared buffer for A and B: rows 16-17 of
/// every 32-row block came out wrong).
void hostLdmatrix(ZludaThreadCtx *C, uint64_t Addr, uint32_t N, uint32_t Trans, uint32_t *Out) {
  struct Req {
    uint64_t Addr;
    uint32_t *Out;
  };
  Req Mine{Addr, Out};
  warpCollective(C, 0xffffffffu, reinterpret_cast<uint64_t>(&Mine), 0, [&](WarpState &WS, uint32_t G) {
    if (WS.Read & G)
      return 0; // an earlier reader filled every lane's fragments
    for (unsigned L = 0; L < 32; ++L) {
      if (!((G >> L) & 1))
        continue;
      uint32_t *O = reinterpret_cast<const Req *>(WS.Values[L])->Out;
      unsigned Row = L >> 2, Pair = L & 3;
      for (unsigned M = 0; M < N; ++M) {
        uint16_t H[2];
        for (unsigned J = 0; J < 2; ++J) {
          unsigned R = Trans ? 2 * Pair + J : Row, Col = Trans ? Row : 2 * Pair + J;
          unsigned Src = 8 * M + R;
          if (!((G >> Src) & 1))
            unwindKernel(SIGILL); // a lane that must give an address did not take part
          const uint8_t *RowAddr = reinterpret_cast<const uint8_t *>(reinterpret_cast<const Req *>(WS.Values[Src])->Addr);
          std::memcpy(&H[J], RowAddr + 2 * Col, 2);
        }
        O[M] = uint32_t(H[0]) | (uint32_t(H[1]) << 16);
      }
    }
    return 0;
  });
}

} // extern "C"

} // namespace zluda::cpu::exec
