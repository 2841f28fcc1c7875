//===- InfoIO.h - what the driver knows of kernels, as cache bytes --------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file KernelInfo and GlobalInfo lists in the compile cache's entries,
/// shared by the CPU and AMDGPU targets.
#ifndef ZLUDA_PTX_CODEGEN_INFOIO_H
#define ZLUDA_PTX_CODEGEN_INFOIO_H

#include "cache/Serialize.h"
#include "ptx/codegen/Lowering.h"

namespace zluda::ptx {

inline void writeKernels(cache::Writer &W, const std::vector<KernelInfo> &Ks) {
  W.u32(uint32_t(Ks.size()));
  for (const KernelInfo &K : Ks) {
    W.str(K.Name);
    W.u32(uint32_t(K.Params.size()));
    for (const ParamLayout &P : K.Params) {
      W.u32(P.Offset);
      W.u32(P.Size);
      W.u32(P.Align);
    }
    for (uint32_t V : {K.ParamBufferSize, K.StaticSharedBytes, K.LocalBytes, K.MaxThreadsPerBlock, K.ReqNTid[0],
                       K.ReqNTid[1], K.ReqNTid[2], K.MinCtasPerSm, K.Registers, K.ReqCluster[0], K.ReqCluster[1],
                       K.ReqCluster[2]})
      W.u32(V);
    W.u8(K.NeedsThreadSwitching);
    W.u8(K.UsesSpecialRegs);
    W.str(K.Unsupported);
  }
}

/// False when the bytes run out.
inline bool readKernels(cache::Reader &R, std::vector<KernelInfo> &Out) {
  uint32_t N = R.count(4);
  for (uint32_t I = 0; I < N && !R.Bad; ++I) {
    KernelInfo K;
    K.Name = R.str();
    uint32_t NP = R.count(12);
    for (uint32_t J = 0; J < NP && !R.Bad; ++J) {
      ParamLayout P;
      P.Offset = R.u32();
      P.Size = R.u32();
      P.Align = R.u32();
      K.Params.push_back(P);
    }
    for (uint32_t *V : {&K.ParamBufferSize, &K.StaticSharedBytes, &K.LocalBytes, &K.MaxThreadsPerBlock,
                        &K.ReqNTid[0], &K.ReqNTid[1], &K.ReqNTid[2], &K.MinCtasPerSm, &K.Registers, &K.ReqCluster[0],
                        &K.ReqCluster[1], &K.ReqCluster[2]})
      *V = R.u32();
    K.NeedsThreadSwitching = R.u8();
    K.UsesSpecialRegs = R.u8();
    K.Unsupported = R.str();
    Out.push_back(std::move(K));
  }
  return !R.Bad;
}

inline void writeGlobals(cache::Writer &W, const std::vector<GlobalInfo> &Gs) {
  W.u32(uint32_t(Gs.size()));
  for (const GlobalInfo &G : Gs) {
    W.str(G.Name);
    W.u64(G.Size);
    W.u8(uint8_t(G.Space));
    W.u8(G.IsTexref);
  }
}

inline bool readGlobals(cache::Reader &R, std::vector<GlobalInfo> &Out) {
  uint32_t N = R.count(4);
  for (uint32_t I = 0; I < N && !R.Bad; ++I) {
    GlobalInfo G;
    G.Name = R.str();
    G.Size = R.u64();
    G.Space = StateSpace(R.u8());
    G.IsTexref = R.u8();
    Out.push_back(std::move(G));
  }
  return !R.Bad;
}

} // namespace zluda::ptx

#endif // ZLUDA_PTX_CODEGEN_INFOIO_H
