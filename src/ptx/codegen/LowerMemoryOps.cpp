//===- LowerMemoryOps.cpp - PTX atomics, barriers, warps and textures in LLVM IR ===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Atomics (vector forms too), barriers and warp collectives, textures and surfaces, mbarrier and
/// cp.async.
#include "ptx/codegen/LowerImpl.h"
#include "ptx/codegen/TensorMap.h"
#include "ptx/codegen/TextureSampling.h"
#include "ptx/codegen/WarpSemantics.h"

#include <cmath>
#include <limits>

namespace zluda::ptx {

using namespace llvm;

// --- atomics ------------------------------------------------------------------------

void FnLowering::lowerAtomic(const Instruction &In) {
  bool IsRed = In.Op == Opcode::Red;
  size_t AddrIdx = IsRed ? 0 : 1;
  ScalarType T = typeOf(In);
  if (unsigned N = In.vectorWidth()) {
    // atom/red .v2/.v4/.v8 (PTX 8.1: f32 add; f16, bf16 and their packed pairs add, min, max): each element
    // its own atomic at consecutive addresses, as the PTX ISA defines them (the vector is not one atomic).
    const Operand &A = In.Ops[AddrIdx], &Vals = In.Ops[AddrIdx + 1];
    if (A.Kind != Operand::OK_Address || Vals.Kind != Operand::OK_Vector || Vals.Elems.size() != N ||
        (!IsRed && (In.Ops[0].Kind != Operand::OK_Vector || In.Ops[0].Elems.size() != N)) || !isFloatType(T) ||
        In.has(".cas") || In.has(".exch"))
      invalid("a vector atomic takes a float type, an address and {..} lists of its " + std::to_string(N) +
              " elements");
    for (unsigned I = 0; I < N; ++I) {
      Instruction E = In;
      E.Mods.erase(std::remove_if(E.Mods.begin(), E.Mods.end(),
                                  [](const Modifier &M) { return M.Kind == Modifier::MK_Vector; }),
                   E.Mods.end());
      E.Ops[AddrIdx].Int += static_cast<int64_t>(I * std::max(1u, bitWidth(T) / 8));
      E.Ops[AddrIdx + 1] = Vals.Elems[I];
      if (!IsRed)
        E.Ops[0] = In.Ops[0].Elems[I];
      lowerAtomic(E);
    }
    return;
  }
  Value *Ptr = address(In.Ops[AddrIdx], In.space());
  memcheck(In.Ops[AddrIdx], Ptr, std::max(1u, bitWidth(T) / 8), In.space(), MemcheckAtomic);
  Value *Bv = get(In.Ops[AddrIdx + 1], T);
  std::string Op;
  for (const char *O : {".add", ".min", ".max", ".inc", ".dec", ".and", ".or", ".xor", ".exch", ".cas"})
    if (In.has(O))
      Op = O;
  if (Op.empty())
    fail("atomic operation missing");
  // The PTX ISA's type rules that a float would break in the lowering: bit
  // operations take .b32/.b64, inc/dec .u32 (ptxas refuses the rest).
  if ((Op == ".and" || Op == ".or" || Op == ".xor") && isFloatType(T))
    invalid(std::string(IsRed ? "red" : "atom") + Op + " needs a .b32 or .b64 type, not " + std::string(spelling(T)));
  if (isFloatType(T) && !isArithmeticFloat(T))
    invalid(std::string(IsRed ? "red" : "atom") + Op + " takes .f16, .bf16, .f32 or .f64 among the float types, not " +
            std::string(spelling(T)));
  if ((Op == ".inc" || Op == ".dec") && isFloatType(T))
    invalid(std::string(IsRed ? "red" : "atom") + Op + " needs the .u32 type");
  AtomicOrdering Ord = AtomicOrdering::SequentiallyConsistent;
  Type *VT = Bv->getType();
  Value *Old = nullptr;
  // Atomics on .shared reach memory only the block's threads see; a target
  // that runs a block on one OS thread may make them plain (the CPU device).
  StateSpace Sp = In.space();
  bool BlockOnly = Sp == StateSpace::Shared || Sp == StateSpace::SharedCta || Sp == StateSpace::SharedCluster;
  auto tag = [&](llvm::Instruction *I) {
    if (BlockOnly)
      I->setMetadata("zluda.block.atomic", MDNode::get(C, {}));
    return I;
  };
  if (Op == ".cas") {
    Value *Cv = get(In.Ops[AddrIdx + 2], T);
    Value *Cmp = Bv, *New = Cv;
    if (VT->isFloatingPointTy()) {
      Cmp = B.CreateBitCast(Cmp, B.getIntNTy(VT->getPrimitiveSizeInBits()));
      New = B.CreateBitCast(New, Cmp->getType());
    }
    auto *X = B.CreateAtomicCmpXchg(Ptr, Cmp, New, MaybeAlign(), Ord, AtomicOrdering::SequentiallyConsistent);
    tag(X);
    Old = B.CreateExtractValue(X, 0);
  } else {
    bool Float = isFloatType(T);
    bool Signed = isSignedType(T);
    std::optional<AtomicRMWInst::BinOp> Native;
    if (Op == ".add")
      // Float adds take the compare-exchange loop below (x86 has no float
      // atomic add either): f32 flushes subnormals (operands and sum) and f64
      // passes a NaN operand through unquieted, as the hardware's atomic units do.
      Native = Float ? std::nullopt : std::optional(AtomicRMWInst::Add);
    else if (Op == ".min" && !Float)
      Native = Signed ? AtomicRMWInst::Min : AtomicRMWInst::UMin;
    else if (Op == ".max" && !Float)
      Native = Signed ? AtomicRMWInst::Max : AtomicRMWInst::UMax;
    else if (Op == ".and")
      Native = AtomicRMWInst::And;
    else if (Op == ".or")
      Native = AtomicRMWInst::Or;
    else if (Op == ".xor")
      Native = AtomicRMWInst::Xor;
    else if (Op == ".exch")
      Native = AtomicRMWInst::Xchg;
    if (Native) {
      Old = tag(B.CreateAtomicRMW(*Native, Ptr, Bv, MaybeAlign(), Ord));
    } else {
      // Compare-exchange loop: inc/dec, 16-bit and packed float add, float min/max.
      unsigned Bits = std::max(8u, bitWidth(T));
      Type *IT = B.getIntNTy(Bits);
      BasicBlock *Pre = B.GetInsertBlock();
      BasicBlock *Loop = BasicBlock::Create(C, "atom.loop", F), *Done = BasicBlock::Create(C, "atom.done", F);
      Value *Init = B.CreateAlignedLoad(IT, Ptr, Align(Bits / 8), /*isVolatile=*/true);
      B.CreateBr(Loop);
      B.SetInsertPoint(Loop);
      PHINode *Cur = B.CreatePHI(IT, 2);
      Cur->addIncoming(Init, Pre);
      Value *New;
      if (Op == ".inc") {
        Value *Bi = convertBits(Bv, IT, false);
        New = B.CreateSelect(B.CreateICmpUGE(Cur, Bi), ConstantInt::get(IT, 0), B.CreateAdd(Cur, ConstantInt::get(IT, 1)));
      } else if (Op == ".dec") {
        Value *Bi = convertBits(Bv, IT, false);
        Value *Wrap = B.CreateOr(B.CreateICmpEQ(Cur, ConstantInt::get(IT, 0)), B.CreateICmpUGT(Cur, Bi));
        New = B.CreateSelect(Wrap, Bi, B.CreateSub(Cur, ConstantInt::get(IT, 1)));
      } else if (T == ScalarType::F16x2 || T == ScalarType::BF16x2) {
        ScalarType ET = T == ScalarType::F16x2 ? ScalarType::F16 : ScalarType::BF16;
        Value *Bi = convertBits(Bv, IT, false);
        New = ConstantInt::get(IT, 0);
        for (unsigned Lane = 0; Lane < 2; ++Lane) {
          Value *X = toFloat(B.CreateTrunc(B.CreateLShr(Cur, 16 * Lane), B.getInt16Ty()), ET);
          Value *Y = toFloat(B.CreateTrunc(B.CreateLShr(Bi, 16 * Lane), B.getInt16Ty()), ET);
          Value *H = canonicalNaN(fromFloat(B.CreateFAdd(X, Y), ET, 0), ET);
          New = B.CreateOr(New, B.CreateShl(B.CreateZExt(H, IT), 16 * Lane));
        }
      } else if (Float) {
        Value *X = toFloat(convertBits(Cur, valueType(T), false), T);
        Value *Y = toFloat(Bv, T);
        bool Flush = T == ScalarType::F32 && Op == ".add";
        if (Flush) {
          X = ftz(X);
          Y = ftz(Y);
        }
        Value *R = Op == ".add" ? B.CreateFAdd(X, Y) : fminmax(X, Y, Op == ".max", false);
        if (Flush)
          R = ftz(R);
        if (T == ScalarType::F64 && Op == ".add") {
          // On the bits: LLVM may otherwise fold the choice into the add.
          auto nanBits = [&](Value *V) {
            Value *I = B.CreateBitCast(V, B.getInt64Ty());
            return std::pair(I, B.CreateICmpUGT(B.CreateAnd(I, B.getInt64(0x7FFFFFFFFFFFFFFFULL)),
                                                B.getInt64(0x7FF0000000000000ULL)));
          };
          auto [XI, XN] = nanBits(X);
          auto [YI, YN] = nanBits(Y);
          Value *RI = B.CreateSelect(XN, XI, B.CreateSelect(YN, YI, B.CreateBitCast(R, B.getInt64Ty())));
          R = B.CreateBitCast(RI, B.getDoubleTy());
        }
        New = convertBits(canonicalNaN(fromFloat(R, T, 0), T), IT, false);
      } else {
        fail("atomic " + Op + " is not supported for " + std::string(spelling(T)));
      }
      auto *X = B.CreateAtomicCmpXchg(Ptr, Cur, New, MaybeAlign(), Ord, AtomicOrdering::SequentiallyConsistent);
      tag(X);
      Value *Seen = B.CreateExtractValue(X, 0);
      Cur->addIncoming(Seen, B.GetInsertBlock());
      B.CreateCondBr(B.CreateExtractValue(X, 1), Done, Loop);
      B.SetInsertPoint(Done);
      Old = Seen;
    }
  }
  if (!IsRed)
    set(In.Ops[0], T, convertBits(Old, valueType(T), false));
}

// --- barriers and warp collectives -------------------------------------------------------

void FnLowering::lowerBarrier(const Instruction &In) {
  if (In.has(".warp")) { // bar.warp.sync membermask
    B.CreateCall(L.rt(RtFn::warp_sync), {Ctx, get(In.Ops.at(0), ScalarType::U32)});
    return;
  }
  if (In.has(".cluster")) { // barrier.cluster.arrive / .wait: every thread of the cluster's blocks
    if (In.has(".arrive") == In.has(".wait"))
      invalid("barrier.cluster needs .arrive or .wait");
    B.CreateCall(L.rt(RtFn::cluster_barrier), {Ctx, B.getInt32(In.has(".wait") ? 1 : 0)});
    return;
  }
  int Kind = 0;
  size_t First = 0;
  Value *Pred = B.getInt32(0);
  if (In.has(".red")) {
    Kind = In.has(".popc") ? 2 : In.has(".and") ? 3 : 4;
    First = 1;
    const Operand &P = In.Ops.back();
    Pred = B.CreateZExt(convertBits(get(P, ScalarType::Pred), B.getInt1Ty(), false), B.getInt32Ty());
  } else if (In.has(".arrive")) {
    Kind = 1;
  }
  size_t NumIds = In.Ops.size() - First - (Kind >= 2 ? 1 : 0);
  Value *Id = NumIds >= 1 ? get(In.Ops[First], ScalarType::U32) : B.getInt32(0);
  Value *Count = NumIds >= 2 ? get(In.Ops[First + 1], ScalarType::U32) : B.getInt32(0);
  Value *R = B.CreateCall(L.rt(RtFn::barrier), {Ctx, Id, Count, B.getInt32(Kind), Pred});
  if (Kind >= 2)
    set(In.Ops[0], Kind == 2 ? ScalarType::U32 : ScalarType::Pred, Kind == 2 ? R : B.CreateICmpNE(R, B.getInt32(0)));
}

void FnLowering::lowerWarp(const Instruction &In) {
  const Operand &D = In.Ops.at(0);
  bool Sync = In.has(".sync");
  auto mask = [&](size_t I) { return Sync && I < In.Ops.size() ? get(In.Ops[I], ScalarType::U32) : B.getInt32(-1); };
  auto setPair = [&](Value *PredPtr) {
    if (D.Pair.empty())
      return;
    Operand Q = D;
    Q.Name = D.Pair;
    Q.Pair.clear();
    set(Q, ScalarType::Pred, B.CreateICmpNE(B.CreateLoad(B.getInt32Ty(), PredPtr), B.getInt32(0)));
  };
  switch (In.Op) {
  case Opcode::Shfl: {
    unsigned Mode = In.has(".up") ? 0 : In.has(".down") ? 1 : In.has(".bfly") ? 2 : 3;
    Value *PredPtr = scratch(B.getInt32Ty());
    Value *V = convertBits(get(In.Ops[1], ScalarType::B32), B.getInt32Ty(), false);
    Value *R = B.CreateCall(L.rt(RtFn::shfl), {Ctx, B.getInt32(Mode), V, get(In.Ops[2], ScalarType::U32),
                                               get(In.Ops[3], ScalarType::U32), mask(4), PredPtr});
    Operand D0 = D;
    D0.Pair.clear();
    set(D0, ScalarType::B32, R);
    setPair(PredPtr);
    return;
  }
  case Opcode::Vote: {
    unsigned Mode = In.has(".all") ? 0 : In.has(".any") ? 1 : In.has(".uni") ? 2 : 3;
    Value *P = B.CreateZExt(convertBits(get(In.Ops[1], ScalarType::Pred), B.getInt1Ty(), false), B.getInt32Ty());
    Value *R = B.CreateCall(L.rt(RtFn::vote), {Ctx, B.getInt32(Mode), P, mask(2)});
    if (Mode == 3)
      set(D, ScalarType::B32, R);
    else
      set(D, ScalarType::Pred, B.CreateICmpNE(R, B.getInt32(0)));
    return;
  }
  case Opcode::Match: {
    unsigned Mode = In.has(".all") ? 1 : 0;
    Value *PredPtr = scratch(B.getInt32Ty());
    Value *V = convertBits(get(In.Ops[1], In.type()), B.getInt64Ty(), false);
    Value *R = B.CreateCall(L.rt(RtFn::match), {Ctx, B.getInt32(Mode), V, mask(2), PredPtr});
    Operand D0 = D;
    D0.Pair.clear();
    set(D0, ScalarType::B32, R);
    setPair(PredPtr);
    return;
  }
  case Opcode::Redux: {
    ScalarType T = In.type();
    bool S = isSignedType(T);
    unsigned Op = In.has(".add") ? 0 : In.has(".min") ? (S ? 3 : 1) : In.has(".max") ? (S ? 4 : 2)
                  : In.has(".and") ? 5 : In.has(".or") ? 6 : 7;
    Value *V = convertBits(get(In.Ops[1], T), B.getInt32Ty(), false);
    set(D, T, B.CreateCall(L.rt(RtFn::redux), {Ctx, B.getInt32(Op), V, mask(2)}));
    return;
  }
  case Opcode::Activemask: {
    // The instruction's place in the PTX identifies it: lanes are active
    // together when they execute the same activemask.
    uint32_t Site = (In.Loc.Line << 12) ^ In.Loc.Col;
    set(D, ScalarType::B32, B.CreateCall(L.rt(RtFn::activemask), {Ctx, B.getInt32(Site)}));
    return;
  }
  case Opcode::Elect: {
    // elect.sync d|p, membermask: the lowest lane of the mask is elected.
    Value *M = get(In.Ops[1], ScalarType::U32);
    llvm::Function *Cttz = Intrinsic::getDeclaration(F->getParent(), Intrinsic::cttz, {B.getInt32Ty()});
    Value *Leader = B.CreateCall(Cttz, {M, B.getTrue()});
    B.CreateCall(L.rt(RtFn::warp_sync), {Ctx, M});
    Operand D0 = D;
    D0.Pair.clear();
    if (D0.Name != "_")
      set(D0, ScalarType::U32, Leader);
    if (!D.Pair.empty()) {
      Operand Q = D;
      Q.Name = D.Pair;
      Q.Pair.clear();
      set(Q, ScalarType::Pred, B.CreateICmpEQ(B.CreateCall(L.rt(RtFn::sreg_laneid), {Ctx}), Leader));
    }
    return;
  }
  default:
    fail("internal: not a warp instruction");
  }
}

// --- textures -------------------------------------------------------------------------

namespace {
/// The geometry code of the runtime calls (TextureSampling.h): 1-3, 4 cube, +16 arrays; 0 unknown.
unsigned geometryOf(const Instruction &In) {
  if (In.has(".1d"))
    return 1;
  if (In.has(".2d"))
    return 2;
  if (In.has(".3d"))
    return 3;
  if (In.has(".cube"))
    return ptx::GeomCube;
  if (In.has(".a1d"))
    return ptx::GeomArray | 1;
  if (In.has(".a2d"))
    return ptx::GeomArray | 2;
  if (In.has(".acube"))
    return ptx::GeomArray | ptx::GeomCube;
  return 0;
}
} // namespace

/// The handle of a texture or surface operand: a .texref/.surfref variable
/// (the driver stores the handle there) or a 64-bit register or parameter.
Value *FnLowering::textureHandle(const Operand &Op) {
  Sym *TS = Op.Kind == Operand::OK_Name ? lookup(Op.Name) : nullptr;
  if (TS && TS->Kind == Sym::SK_Mem && TS->Space == StateSpace::Global)
    return B.CreateLoad(B.getInt64Ty(), TS->Ptr);
  return convertBits(get(Op, ScalarType::U64), B.getInt64Ty(), false);
}

/// istypep.{texref,samplerref,surfref} p, a: a test of the handle's own bits,
/// as NVIDIA's compiler makes of it (ptxas for sm_86 and sm_90: bit 61 of the
/// 64-bit handle for .texref, 62 for .samplerref, 63 for .surfref), so a
/// program gets the same answer from its PTX and from its machine code.
void FnLowering::lowerIstypep(const Instruction &In) {
  ScalarType T = In.type();
  unsigned Bit = T == ScalarType::Texref ? 61 : T == ScalarType::Samplerref ? 62 : T == ScalarType::Surfref ? 63 : 0;
  if (!Bit || In.Ops.size() != 2)
    invalid("istypep needs .texref, .samplerref or .surfref, a predicate and a handle");
  Value *H = textureHandle(In.Ops[1]);
  set(In.Ops[0], ScalarType::Pred, B.CreateICmpNE(B.CreateAnd(H, B.getInt64(uint64_t(1) << Bit)), B.getInt64(0)));
}

/// Coordinates of a texture or surface access as four 32-bit lanes in a stack
/// array (array geometries put the integer layer first; cube coordinates
/// are three floats).
Value *FnLowering::coordinateLanes(const Operand &Coords, unsigned Geom, ScalarType CT) {
  Value *Cs = scratch(ArrayType::get(B.getInt32Ty(), 4), 7); // beside the result's lanes (slot 0)
  for (unsigned I = 0; I < 4; ++I)
    B.CreateStore(B.getInt32(0), B.CreateConstInBoundsGEP1_32(B.getInt32Ty(), Cs, I));
  auto put = [&](unsigned I, const Operand &E) {
    ScalarType T = ((Geom & ptx::GeomArray) && I == 0) ? ScalarType::U32 : CT;
    if (E.Kind == Operand::OK_Name && E.Name == "_")
      return;
    B.CreateStore(convertBits(get(E, T), B.getInt32Ty(), false), B.CreateConstInBoundsGEP1_32(B.getInt32Ty(), Cs, I));
  };
  if (Coords.Kind == Operand::OK_Vector) {
    for (size_t I = 0; I < Coords.Elems.size() && I < 4; ++I)
      put(static_cast<unsigned>(I), Coords.Elems[I]);
  } else {
    put(0, Coords);
  }
  return Cs;
}

/// Writes a 4-lane result of a texture or surface call to the destination
/// (a vector, or a scalar for the first lane) as \p T.
void FnLowering::storeLanes(const Operand &D, ScalarType T, Value *Out, unsigned LaneBytes) {
  Type *LaneTy = B.getIntNTy(LaneBytes * 8);
  for (unsigned I = 0; I < 4; ++I) {
    const Operand *E = D.Kind == Operand::OK_Vector ? (I < D.Elems.size() ? &D.Elems[I] : nullptr) : (I == 0 ? &D : nullptr);
    if (!E || (E->Kind == Operand::OK_Name && E->Name == "_"))
      continue;
    Value *V = B.CreateLoad(LaneTy, B.CreateConstInBoundsGEP1_32(LaneTy, Out, I));
    set(*E, T, convertBits(V, valueType(T), false));
  }
}

void FnLowering::lowerTex(const Instruction &In) {
  auto Ts = In.types();
  if (Ts.size() != 2)
    fail("tex needs a result and a coordinate type");
  unsigned Geom = geometryOf(In);
  if (!Geom)
    fail("texture geometry not supported (1d, 2d, 3d, a1d, a2d, cube, acube; multisample ones are not)");
  const Operand &Br = In.Ops.at(1);
  if (Br.Kind != Operand::OK_Bracket || Br.Elems.size() < 2)
    fail("tex needs [texture, {coordinates}]");
  bool Level = In.has(".level"), Grad = In.has(".grad"), Base = In.has(".base");
  size_t Extra = Level ? 1 : Grad ? 2 : 0;
  if (In.Ops.size() > 2 + Extra)
    fail("tex with texel offsets or depth comparison is not supported");
  if (In.Ops[0].Kind == Operand::OK_Name && !In.Ops[0].Pair.empty())
    fail("tex with a predicate destination (sparse textures) is not supported");
  Value *Handle = textureHandle(Br.Elems[0]);
  bool IntCoords = Ts[1] != ScalarType::F32;
  unsigned RType = Ts[0] == ScalarType::F32 ? 0 : isSignedType(Ts[0]) ? 1 : 2;
  Value *Out = scratch(ArrayType::get(B.getInt32Ty(), 4));
  if (!Level && !Grad && !(Geom & ptx::GeomCube)) { // the common fetch: scalar arguments
    std::vector<Value *> Cs(4, B.getInt32(0));
    const Operand &Coords = Br.Elems.back();
    if (Coords.Kind == Operand::OK_Vector) {
      for (size_t I = 0; I < Coords.Elems.size() && I < 4; ++I) {
        ScalarType CT = ((Geom & ptx::GeomArray) && I == 0) ? ScalarType::U32 : Ts[1];
        Cs[I] = convertBits(get(Coords.Elems[I], CT), B.getInt32Ty(), false);
      }
    } else {
      Cs[0] = convertBits(get(Coords, Ts[1]), B.getInt32Ty(), false);
    }
    B.CreateCall(L.rt(RtFn::tex_fetch), {Ctx, Handle, B.getInt32(Geom), Cs[0], Cs[1], Cs[2], Cs[3],
                                         B.getInt32(IntCoords), Out, B.getInt32(RType)});
    (void)Base; // tex.base reads level 0, as a plain fetch does
  } else {
    Value *Cs = coordinateLanes(Br.Elems.back(), Geom, Ts[1]);
    Value *Ex = scratch(ArrayType::get(B.getFloatTy(), 8));
    unsigned Mode = 0;
    if (Level) {
      Mode = 1;
      B.CreateStore(get(In.Ops[2], ScalarType::F32), B.CreateConstInBoundsGEP1_32(B.getFloatTy(), Ex, 0));
    } else if (Grad) {
      Mode = 2;
      for (unsigned G = 0; G < 2; ++G) {
        const Operand &V = In.Ops[2 + G];
        for (unsigned I = 0; I < 4; ++I) {
          const Operand *E = V.Kind == Operand::OK_Vector ? (I < V.Elems.size() ? &V.Elems[I] : nullptr) : (I == 0 ? &V : nullptr);
          Value *F = E && !(E->Kind == Operand::OK_Name && E->Name == "_") ? get(*E, ScalarType::F32)
                                                                             : ConstantFP::get(B.getFloatTy(), 0.0);
          B.CreateStore(F, B.CreateConstInBoundsGEP1_32(B.getFloatTy(), Ex, G * 4 + I));
        }
      }
    }
    B.CreateCall(L.rt(RtFn::tex_sample),
                 {Ctx, Handle, B.getInt32(Geom), Cs, B.getInt32(IntCoords), Out, B.getInt32(Mode), Ex});
  }
  storeLanes(In.Ops[0], Ts[0], Out, 4);
}

/// tld4.{r,g,b,a}.geom.v4.dtype.f32: the 2x2 footprint of one channel.
void FnLowering::lowerTld4(const Instruction &In) {
  auto Ts = In.types();
  if (Ts.size() != 2)
    fail("tld4 needs a result and a coordinate type");
  unsigned Geom = geometryOf(In);
  if (Geom != 2 && Geom != (ptx::GeomArray | 2) && Geom != ptx::GeomCube && Geom != (ptx::GeomArray | ptx::GeomCube))
    fail("tld4 geometry must be 2d, a2d, cube or acube");
  unsigned Comp = In.has(".r") ? 0 : In.has(".g") ? 1 : In.has(".b") ? 2 : In.has(".a") ? 3 : 4;
  if (Comp == 4)
    fail("tld4 needs a component (.r, .g, .b or .a)");
  const Operand &Br = In.Ops.at(1);
  if (Br.Kind != Operand::OK_Bracket || Br.Elems.size() < 2)
    fail("tld4 needs [texture, {coordinates}]");
  if (In.Ops.size() > 2)
    fail("tld4 with texel offsets or depth comparison is not supported");
  Value *Cs = coordinateLanes(Br.Elems.back(), Geom, Ts[1]);
  Value *Out = scratch(ArrayType::get(B.getInt32Ty(), 4));
  Value *Ex = scratch(ArrayType::get(B.getFloatTy(), 8));
  B.CreateCall(L.rt(RtFn::tex_sample), {Ctx, textureHandle(Br.Elems[0]), B.getInt32(Geom), Cs, B.getInt32(0), Out,
                                        B.getInt32(4 + Comp), Ex});
  storeLanes(In.Ops[0], Ts[0], Out, 4);
}

/// txq and suq: one attribute of a texture, sampler or surface (txq.level: of a mipmap level).
void FnLowering::lowerTexQuery(const Instruction &In) {
  static const std::pair<const char *, unsigned> Queries[] = {
      {".width", ptx::TqWidth},
      {".height", ptx::TqHeight},
      {".depth", ptx::TqDepth},
      {".channel_data_type", ptx::TqChannelDataType},
      {".channel_order", ptx::TqChannelOrder},
      {".normalized_coords", ptx::TqNormalizedCoords},
      {".filter_mode", ptx::TqFilterMode},
      {".addr_mode_0", ptx::TqAddrMode0},
      {".addr_mode_1", ptx::TqAddrMode1},
      {".addr_mode_2", ptx::TqAddrMode2},
      {".array_size", ptx::TqArraySize},
      {".num_mipmap_levels", ptx::TqNumMipmapLevels},
      {".num_samples", ptx::TqNumSamples},
      {".memory_layout", ptx::TqMemoryLayout},
  };
  int Query = -1;
  for (auto &[Name, Q] : Queries)
    if (In.has(Name))
      Query = static_cast<int>(Q);
  if (Query < 0)
    fail(std::string(spelling(In.Op)) + ": unknown attribute");
  // [handle]: a bracket of one, or an address operand (its base names the handle).
  const Operand &Br = In.Ops.at(1);
  Operand H = Br.Kind == Operand::OK_Bracket && !Br.Elems.empty() ? Br.Elems[0] : Br;
  if (H.Kind == Operand::OK_Address) {
    if (H.Name.empty() || H.Int != 0)
      invalid(std::string(spelling(In.Op)) + " needs [texture] or [surface]");
    H.Kind = Operand::OK_Name;
  }
  Value *Level = B.getInt32(0);
  if (In.has(".level")) {
    if (In.Ops.size() < 3)
      invalid("txq.level needs a level operand");
    Level = convertBits(get(In.Ops[2], ScalarType::U32), B.getInt32Ty(), false);
  }
  Value *R = B.CreateCall(L.rt(RtFn::tex_query), {Ctx, textureHandle(H), B.getInt32(Query), Level});
  set(In.Ops[0], ScalarType::B32, R);
}

/// suld.b / sust.b / sust.p: unformatted (or formatted) surface access of
/// up to four components with the clamp mode (.trap, .clamp, .zero).
void FnLowering::lowerSurface(const Instruction &In) {
  bool Store = In.Op == Opcode::Sust;
  unsigned Geom = geometryOf(In);
  if (!Geom || (Geom & ptx::GeomCube))
    fail("surface geometry must be 1d, 2d, 3d, a1d or a2d");
  bool Formatted = In.has(".p");
  if (!Formatted && !In.has(".b"))
    fail(std::string(spelling(In.Op)) + " needs .b or .p");
  if (Formatted && !Store)
    fail("suld.p is not an instruction");
  auto Ts = In.types();
  if (Ts.size() != 1)
    fail(std::string(spelling(In.Op)) + " needs one component type");
  unsigned Bytes = bitWidth(Ts[0]) / 8;
  if (Bytes != 1 && Bytes != 2 && Bytes != 4 && Bytes != 8)
    fail(std::string(spelling(In.Op)) + ": components of 8, 16, 32 or 64 bits");
  // Components: as many as the data operand has (.v2/.v4 are not kept as modifiers).
  const Operand &Data = In.Ops.at(Store ? 1 : 0);
  unsigned Vec = Data.Kind == Operand::OK_Vector ? static_cast<unsigned>(std::min<size_t>(Data.Elems.size(), 4)) : 1;
  unsigned Clamp = In.has(".clamp") ? 1 : In.has(".zero") ? 2 : 0;
  const Operand &Br = In.Ops.at(Store ? 0 : 1);
  if (Br.Kind != Operand::OK_Bracket || Br.Elems.size() < 2)
    fail(std::string(spelling(In.Op)) + " needs [surface, {coordinates}]");
  Value *Cs = coordinateLanes(Br.Elems.back(), Geom, ScalarType::S32);
  Value *Buf = scratch(ArrayType::get(B.getInt64Ty(), 4));
  Type *LaneTy = B.getIntNTy(Bytes * 8);
  unsigned Flags = Clamp | (Formatted ? 4 : 0);
  if (Store) {
    const Operand &V = In.Ops.at(1);
    for (unsigned I = 0; I < Vec; ++I) {
      const Operand *E = V.Kind == Operand::OK_Vector ? (I < V.Elems.size() ? &V.Elems[I] : nullptr) : (I == 0 ? &V : nullptr);
      if (!E)
        invalid("sust needs " + std::to_string(Vec) + " source components");
      B.CreateStore(convertBits(get(*E, Ts[0]), LaneTy, false), B.CreateConstInBoundsGEP1_32(LaneTy, Buf, I));
    }
    B.CreateCall(L.rt(RtFn::surf_store), {Ctx, textureHandle(Br.Elems[0]), B.getInt32(Geom), Cs, B.getInt32(Bytes),
                                          B.getInt32(Vec), B.getInt32(Flags), Buf});
    return;
  }
  B.CreateCall(L.rt(RtFn::surf_load), {Ctx, textureHandle(Br.Elems[0]), B.getInt32(Geom), Cs, B.getInt32(Bytes),
                                       B.getInt32(Vec), B.getInt32(Flags), Buf});
  storeLanes(In.Ops[0], Ts[0], Buf, Bytes);
}

/// st.async / red.async (sm_90): a store or reduction into a block's shared
/// memory (.shared::cluster, maybe another block's) that completes with a
/// complete_tx of its size on an mbarrier of that block. Done at once here,
/// then the mbarrier's transaction count is decremented.
void FnLowering::lowerAsyncStore(const Instruction &In) {
  bool Red = In.Op == Opcode::Red;
  if (In.Op != Opcode::Red && In.Op != Opcode::St)
    invalid("only st and red have .async forms");
  std::string Name = Red ? "red.async" : "st.async";
  if (!In.has(".mbarrier::complete_tx::bytes") || In.Ops.size() != 3)
    invalid(Name + " needs .mbarrier::complete_tx::bytes and an mbarrier operand");
  if (In.space() != StateSpace::SharedCluster && In.space() != StateSpace::None)
    invalid(Name + " writes .shared::cluster memory");
  Instruction Plain = In;
  Plain.Ops.pop_back();
  if (In.space() == StateSpace::None) { // .shared::cluster is the only space and may go unsaid
    Modifier M;
    M.Kind = Modifier::MK_Space;
    M.Space = StateSpace::SharedCluster;
    Plain.Mods.push_back(M);
  }
  uint64_t Bytes = std::max(1u, In.vectorWidth()) * std::max(1u, bitWidth(typeOf(In)) / 8);
  if (Red)
    lowerAtomic(Plain);
  else
    lowerStore(Plain);
  Value *Obj = address(In.Ops[2], StateSpace::SharedCluster);
  memcheck(In.Ops[2], Obj, 8, StateSpace::Shared, MemcheckAtomic);
  B.CreateCall(L.rt(RtFn::mbarrier), {Ctx, Obj, B.getInt32(MbarCompleteTx), B.getInt64(Bytes), B.getInt32(0)});
}

/// mbarrier objects: every operation is one call of the device runtime's
/// mbarrier function (its layout and rules are in DeviceFloat.inc). A wait
/// that finds its phase incomplete yields (as nanosleep does), so that a loop
/// around test_wait/try_wait lets the threads it waits for run.
void FnLowering::lowerMbarrier(const Instruction &In) {
  if (In.has(".pending_count")) {
    if (In.Ops.size() != 2)
      invalid("mbarrier.pending_count needs a destination and a state");
    Value *State = get(In.Ops[1], ScalarType::B64);
    set(In.Ops[0], ScalarType::U32, B.CreateAnd(B.CreateTrunc(State, B.getInt32Ty()), B.getInt32(0xFFFFF)));
    return;
  }
  bool Waits = In.has(".test_wait") || In.has(".try_wait");
  bool Arrives = In.has(".arrive") || In.has(".arrive_drop");
  bool HasDest = Waits || Arrives;
  // Operands each form needs (the parser only bounds mbarrier's count as a whole).
  size_t Need = Waits ? 3 : HasDest ? 2 : (In.has(".inval") ? 1 : 2);
  if (In.Ops.size() < Need)
    invalid("mbarrier" + std::string(Waits ? " wait" : Arrives ? " arrive" : "") + " needs " + std::to_string(Need) +
            " operands, found " + std::to_string(In.Ops.size()));
  StateSpace S = In.space();
  if (S == StateSpace::SharedCta)
    S = StateSpace::Shared;
  Value *Obj = address(In.Ops.at(HasDest ? 1 : 0), S); // .shared::cluster: maybe another block's
  if (S == StateSpace::SharedCluster)
    S = StateSpace::Shared;
  memcheck(In.Ops.at(HasDest ? 1 : 0), Obj, 8, S, MemcheckAtomic);
  auto call = [&](unsigned Op, Value *A, Value *Bv) {
    return B.CreateCall(L.rt(RtFn::mbarrier), {Ctx, Obj, B.getInt32(Op), A, Bv});
  };
  auto operand = [&](size_t I, uint64_t Default) -> Value * {
    if (I >= In.Ops.size())
      return B.getInt64(Default);
    return B.CreateZExt(get(In.Ops[I], ScalarType::U32), B.getInt64Ty());
  };
  if (In.has(".init"))
    call(MbarInit, operand(1, 1), B.getInt32(0));
  else if (In.has(".inval"))
    call(MbarInval, B.getInt64(0), B.getInt32(0));
  else if (In.has(".expect_tx") && !Arrives)
    call(MbarExpectTx, operand(1, 0), B.getInt32(0));
  else if (In.has(".complete_tx"))
    call(MbarCompleteTx, operand(1, 0), B.getInt32(0));
  else if (Arrives) {
    bool Drop_ = In.has(".arrive_drop"), NoComplete = In.has(".noComplete");
    Value *R;
    if (In.has(".expect_tx"))
      R = call(MbarArriveExpectTx, operand(2, 0), B.getInt32(1));
    else
      R = call(Drop_ ? (NoComplete ? MbarDropNoComplete : MbarDrop) : (NoComplete ? MbarArriveNoComplete : MbarArrive),
               operand(2, 1),
               B.getInt32(0));
    set(In.Ops[0], ScalarType::B64, R);
  } else if (Waits) {
    bool Parity = In.has(".parity");
    Value *A = Parity ? operand(2, 0) : get(In.Ops.at(2), ScalarType::B64);
    Value *Done = B.CreateICmpNE(call(Parity ? MbarTestParity : MbarTestState, A, B.getInt32(0)), B.getInt64(0));
    memcheck(In.Ops[1], Obj, B.CreateZExt(Done, B.getInt64Ty()), S, MemcheckSync); // racecheck: ordered after the phase
    BasicBlock *Yield = BasicBlock::Create(C, "mbarrier.yield", F), *Cont = BasicBlock::Create(C, "mbarrier.cont", F);
    B.CreateCondBr(Done, Cont, Yield);
    B.SetInsertPoint(Yield);
    B.CreateCall(L.rt(RtFn::nanosleep), {Ctx, B.getInt32(0)});
    B.CreateBr(Cont);
    B.SetInsertPoint(Cont);
    set(In.Ops[0], ScalarType::Pred, Done);
  } else {
    fail("this form of mbarrier is not supported");
  }
}

void FnLowering::lowerCpAsync(const Instruction &In) {
  // cp.async copies synchronously here, so commit/wait have nothing to wait for.
  if (In.has(".commit_group") || In.has(".wait_group") || In.has(".wait_all"))
    return;
  if (In.has(".async") && In.has(".mbarrier") && In.has(".arrive")) {
    // The copies before it are complete: the arrival happens now. Without
    // .noinc the pending count is raised by one first, so nothing changes.
    if (In.has(".noinc")) {
      Value *Obj = address(In.Ops.at(0), In.space() == StateSpace::None ? StateSpace::None : StateSpace::Shared);
      B.CreateCall(L.rt(RtFn::mbarrier), {Ctx, Obj, B.getInt32(MbarArrive), B.getInt64(1), B.getInt32(0)});
    }
    return;
  }
  if (In.has(".bulk") && In.has(".prefetch")) // cp.async.bulk.prefetch{.tensor}.L2: a cache hint, nothing to copy
    return;
  if (In.has(".bulk"))
    return lowerBulkCopy(In);
  if (!In.has(".async") || In.has(".mbarrier"))
    fail("this form of cp is not supported");
  Value *Dst = address(In.Ops.at(0), StateSpace::Shared);
  Value *Src = address(In.Ops.at(1), StateSpace::Global);
  if (In.Ops.at(2).Kind != Operand::OK_Int)
    fail("cp.async needs an immediate copy size");
  uint64_t Size = static_cast<uint64_t>(In.Ops[2].Int);
  Value *SrcSize = In.Ops.size() > 3 ? get(In.Ops[3], ScalarType::U32) : B.getInt32(Size);
  Value *N = B.CreateZExt(B.CreateSelect(B.CreateICmpULT(SrcSize, B.getInt32(Size)), SrcSize, B.getInt32(Size)), B.getInt64Ty());
  memcheck(In.Ops[0], Dst, Size, StateSpace::Shared, MemcheckWrite);
  memcheck(In.Ops[1], Src, N, StateSpace::Global, MemcheckRead);
  B.CreateMemSet(Dst, B.getInt8(0), Size, MaybeAlign(1));
  B.CreateMemCpy(Dst, MaybeAlign(1), Src, MaybeAlign(1), N);
}

namespace {
/// cp.reduce.async.bulk's operation (BulkRedOp), or 0.
uint32_t bulkRedOp(const Instruction &In) {
  static const std::pair<const char *, BulkRedOp> Ops[] = {{".add", BrAdd}, {".min", BrMin}, {".max", BrMax},
                                                           {".inc", BrInc}, {".dec", BrDec}, {".and", BrAnd},
                                                           {".or", BrOr},   {".xor", BrXor}};
  uint32_t Op = 0;
  for (const auto &[Text, Code] : Ops)
    if (In.has(Text))
      Op = Code;
  return Op;
}

/// cp.reduce.async.bulk's operation and type as the runtime takes them
/// (BulkRedOp << 4 | BulkRedType), or 0 with Why set.
uint32_t bulkReduction(const Instruction &In, std::string &Why) {
  uint32_t Op = bulkRedOp(In);
  ScalarType T = In.type();
  uint32_t Ty;
  switch (T) {
  case ScalarType::B32:
  case ScalarType::U32:
    Ty = BtU32;
    break;
  case ScalarType::S32:
    Ty = BtS32;
    break;
  case ScalarType::B64:
  case ScalarType::U64:
    Ty = BtU64;
    break;
  case ScalarType::S64:
    Ty = BtS64;
    break;
  case ScalarType::F32:
    Ty = BtF32;
    break;
  case ScalarType::F64:
    Ty = BtF64;
    break;
  case ScalarType::F16:
    Ty = BtF16;
    break;
  case ScalarType::BF16:
    Ty = BtBF16;
    break;
  default:
    Why = "cp.reduce.async.bulk needs an element type";
    return 0;
  }
  bool Float = Ty >= BtF32, Bits = T == ScalarType::B32 || T == ScalarType::B64;
  bool Valid = Op == BrAdd ? !Bits && (Ty < BtF16 || In.has(".noftz"))
               : Op == BrMin || Op == BrMax ? !Bits && Ty != BtF32 && Ty != BtF64
               : Op == BrInc || Op == BrDec ? Ty == BtU32
               : Op != 0 && !Float && Ty != BtS32 && Ty != BtS64;
  if (!Valid) {
    Why = Op ? "this operation and type of cp.reduce.async.bulk do not go together" : "cp.reduce.async.bulk needs an operation";
    return 0;
  }
  return Op << 4 | Ty;
}
} // namespace

/// Hopper's bulk copies (cp.async.bulk, cp.reduce.async.bulk, their .tensor
/// forms): one call of the device runtime, done when it returns; the
/// mbarrier's transactions complete in it, and a bulk group has nothing left
/// to wait for (commit_group and wait_group are no-ops).
void FnLowering::lowerBulkCopy(const Instruction &In) {
  if (In.has(".commit_group") || In.has(".wait_group"))
    return;
  // The destination's space is the first state space written, the source's the second.
  std::vector<StateSpace> Spaces;
  for (const Modifier &M : In.Mods)
    if (M.Kind == Modifier::MK_Space)
      Spaces.push_back(M.Space);
  auto isShared = [](StateSpace S) {
    return S == StateSpace::Shared || S == StateSpace::SharedCta || S == StateSpace::SharedCluster;
  };
  if (Spaces.size() != 2)
    invalid("cp.async.bulk needs a destination and a source state space");
  bool ToGlobal = Spaces[0] == StateSpace::Global;
  if (!(ToGlobal ? isShared(Spaces[1]) : isShared(Spaces[0]) && (Spaces[1] == StateSpace::Global || isShared(Spaces[1]))))
    invalid("cp.async.bulk copies between global and shared memory or within shared memory");
  bool Mbar = In.has(".mbarrier::complete_tx::bytes");
  if (ToGlobal ? !In.has(".bulk_group") : !Mbar)
    invalid(ToGlobal ? "a bulk copy to global memory completes in a bulk group (.bulk_group)"
                     : "a bulk copy to shared memory completes on an mbarrier (.mbarrier::complete_tx::bytes)");
  uint32_t Red = 0;
  if (In.has(".reduce") && !In.has(".tensor")) {
    std::string Why;
    Red = bulkReduction(In, Why);
    if (!Red)
      invalid(Why);
  } else if (In.has(".reduce")) { // the element type is the tensor map's
    if (uint32_t Op = bulkRedOp(In))
      Red = Op << 4 | BtFromMap;
    else
      invalid("cp.reduce.async.bulk.tensor needs an operation");
  }
  bool Multicast = In.has(".multicast::cluster");
  if (Multicast && (ToGlobal || !Mbar || Spaces[1] != StateSpace::Global))
    invalid(".multicast::cluster is a load from global memory completing on an mbarrier");
  auto space = [&](StateSpace S) { return isShared(S) ? StateSpace::Shared : S; };
  Value *Null = ConstantPointerNull::get(B.getPtrTy());
  if (!In.has(".tensor")) {
    // [dst], [src], size {, [mbar]} {, ctaMask} {, policy} {, byteMask}
    if (In.Ops.size() < 3u + (Mbar ? 1u : 0u))
      invalid("cp.async.bulk needs a destination, a source, a size" + std::string(Mbar ? " and an mbarrier" : ""));
    Value *Dst = address(In.Ops[0], space(Spaces[0]));
    Value *Src = address(In.Ops[1], space(Spaces[1]));
    Value *Size = B.CreateZExt(get(In.Ops[2], ScalarType::U32), B.getInt64Ty());
    Value *Bar = Mbar ? address(In.Ops[3], StateSpace::Shared) : Null;
    Value *Mask = B.getInt32(0);
    if (In.has(".cp_mask")) {
      if (In.Ops.size() < 4)
        invalid("cp.async.bulk.cp_mask needs a byte mask");
      Mask = B.CreateOr(B.CreateZExt(get(In.Ops.back(), ScalarType::U16), B.getInt32Ty()), B.getInt32(1u << 16));
    }
    memcheck(In.Ops[0], Dst, Size, space(Spaces[0]), MemcheckWrite);
    memcheck(In.Ops[1], Src, Size, space(Spaces[1]), MemcheckRead);
    if (Multicast) {
      if (In.Ops.size() < 5)
        invalid("cp.async.bulk.multicast::cluster needs a CTA mask");
      Value *Cta = B.CreateZExt(get(In.Ops[4], ScalarType::U16), B.getInt32Ty());
      B.CreateCall(L.rt(RtFn::bulk_copy_multicast), {Ctx, Dst, Src, Size, Bar, Cta});
      return;
    }
    B.CreateCall(L.rt(RtFn::bulk_copy), {Ctx, Dst, Src, Size, Bar, B.getInt32(Red), Mask});
    return;
  }
  // Tensor forms: [smem], [map, {coords}], [mbar] {, im2col offsets} ... (loads)
  //               [map, {coords}], [smem] (stores and reductions)
  uint32_t Rank = 0;
  for (uint32_t D = 1; D <= 5; ++D)
    if (In.has("." + std::to_string(D) + "d"))
      Rank = D;
  if (!Rank)
    invalid("cp.async.bulk.tensor needs a dimension (.1d to .5d)");
  bool Im2col = In.has(".im2col") || In.has(".im2col_no_offs") || In.has(".im2col::w") || In.has(".im2col::w::128");
  if (Im2col || In.has(".tile::gather4") || In.has(".tile::scatter4"))
    fail("cp.async.bulk.tensor in im2col or gather/scatter mode is not supported yet");
  size_t MapOp = ToGlobal ? 0 : 1;
  if (In.Ops.size() < (ToGlobal ? 2u : 3u) || In.Ops[MapOp].Kind != Operand::OK_Bracket ||
      In.Ops[MapOp].Elems.size() != 2 || In.Ops[MapOp].Elems[1].Kind != Operand::OK_Vector)
    invalid("cp.async.bulk.tensor needs a tensor map and its coordinates as [map, {c0, ...}]");
  const Operand &Coords = In.Ops[MapOp].Elems[1];
  if (Coords.Elems.size() != Rank)
    invalid("cp.async.bulk.tensor." + std::to_string(Rank) + "d needs " + std::to_string(Rank) + " coordinates");
  // The map: a generic address in a register, or a parameter / variable named directly.
  const Operand &MapName = In.Ops[MapOp].Elems[0];
  Operand MapAddr = MapName;
  MapAddr.Kind = Operand::OK_Address;
  Value *Map = address(MapAddr, StateSpace::None);
  Value *C = scratch(ArrayType::get(B.getInt32Ty(), 8), 9);
  for (uint32_t D = 0; D < Rank; ++D)
    B.CreateStore(get(Coords.Elems[D], ScalarType::S32), B.CreateConstGEP2_32(ArrayType::get(B.getInt32Ty(), 8), C, 0, D));
  Value *Smem = address(In.Ops[ToGlobal ? 1 : 0], StateSpace::Shared);
  Value *Off = B.CreateSub(B.CreatePtrToInt(Smem, B.getInt64Ty()), B.CreatePtrToInt(sharedBase(), B.getInt64Ty()));
  Value *Bar = ToGlobal ? Null : address(In.Ops[2], StateSpace::Shared);
  uint32_t Flags = Rank | (ToGlobal ? uint32_t(TcStore) : 0u) | Red << TcRedShift;
  if (Multicast) { // [smem], [map, {coords}], [mbar], ctaMask {, policy}
    if (In.Ops.size() < 4)
      invalid("cp.async.bulk.tensor.multicast::cluster needs a CTA mask");
    Value *Cta = B.CreateZExt(get(In.Ops[3], ScalarType::U16), B.getInt32Ty());
    B.CreateCall(L.rt(RtFn::tensor_copy_multicast), {Ctx, Map, C, Smem, Off, Bar, B.getInt32(Flags), Cta});
    return;
  }
  B.CreateCall(L.rt(RtFn::tensor_copy), {Ctx, Map, C, Smem, Off, Bar, B.getInt32(Flags)});
}

/// tensormap.replace.tile.field{.space}.b1024.type [map], {ord,} value, and
/// tensormap.cp_fenceproxy (a 128-byte copy; the fence has nothing to order here).
void FnLowering::lowerTensormap(const Instruction &In) {
  if (In.has(".cp_fenceproxy")) {
    if (In.Ops.size() < 2)
      invalid("tensormap.cp_fenceproxy needs a destination and a source");
    Value *Dst = address(In.Ops[0], StateSpace::Global), *Src = address(In.Ops[1], StateSpace::Shared);
    B.CreateMemCpy(Dst, MaybeAlign(1), Src, MaybeAlign(1), 128);
    return;
  }
  if (!In.has(".replace"))
    fail("this form of tensormap is not supported");
  static const std::pair<const char *, TensorMapField> Fields[] = {
      {".global_address", TmGlobalAddress}, {".rank", TmRank},
      {".box_dim", TmBoxDim},               {".global_dim", TmGlobalDim},
      {".global_stride", TmGlobalStride},   {".element_stride", TmElementStride},
      {".elemtype", TmElemType},            {".interleave_layout", TmInterleave},
      {".swizzle_mode", TmSwizzleMode},     {".swizzle_atomicity", TmSwizzleAtomicity},
      {".fill_mode", TmFillMode}};
  int Field = -1;
  for (const auto &[Text, Code] : Fields)
    if (In.has(Text))
      Field = Code;
  if (Field < 0)
    invalid("tensormap.replace needs a field");
  bool HasOrd = Field == TmBoxDim || Field == TmGlobalDim || Field == TmGlobalStride || Field == TmElementStride;
  if (In.Ops.size() != (HasOrd ? 3u : 2u))
    invalid("tensormap.replace of this field needs " + std::string(HasOrd ? "an address, an ordinal and a value"
                                                                          : "an address and a value"));
  StateSpace S = In.space();
  Value *Map = address(In.Ops[0], S == StateSpace::SharedCta ? StateSpace::Shared : S);
  Value *Ord = HasOrd ? get(In.Ops[1], ScalarType::U32) : B.getInt32(0);
  ScalarType T = In.type() == ScalarType::B64 ? ScalarType::B64 : ScalarType::B32;
  Value *V = get(In.Ops.back(), T);
  if (T != ScalarType::B64)
    V = B.CreateZExt(V, B.getInt64Ty());
  B.CreateCall(L.rt(RtFn::tensormap_replace), {Ctx, Map, B.getInt32(Field), Ord, V});
}

} // namespace zluda::ptx
