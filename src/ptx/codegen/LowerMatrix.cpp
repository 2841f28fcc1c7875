//===- LowerMatrix.cpp - PTX warp-matrix instructions in LLVM IR ------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file wmma, ldmatrix, mma and movmatrix/stmatrix.
#include "ptx/codegen/LowerImpl.h"
#include "ptx/codegen/WarpSemantics.h"
#include "ptx/codegen/Wgmma.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace zluda::ptx {

using namespace llvm;

// --- warp matrix operations (wmma) ----------------------------------------------------

namespace {
std::vector<ScalarType> matrixTypes(const Instruction &In);
void matrixShape(const Instruction &In, unsigned &M, unsigned &N, unsigned &K);
int matrixElem(ScalarType T);

/// Bits of one wmma element of type \p T (.b1 stands as None), or 0.
unsigned wmmaBits(ScalarType T) {
  switch (T) {
  case ScalarType::F16: case ScalarType::BF16: return 16;
  case ScalarType::TF32: case ScalarType::F32: case ScalarType::S32: return 32;
  case ScalarType::F64: return 64;
  case ScalarType::S8: case ScalarType::U8: return 8;
  case ScalarType::S4: case ScalarType::U4: return 4;
  case ScalarType::None: return 1;
  default: return 0;
  }
}

/// Whether the PTX ISA defines wmma's shape \p M x \p N x \p K for inputs of
/// type \p A (and the accumulator type \p Acc, None when not known yet).
bool wmmaShapeOk(unsigned M, unsigned N, unsigned K, ScalarType A, ScalarType Acc) {
  bool Deep16 = K == 16 && ((M == 16 && N == 16) || (M == 32 && N == 8) || (M == 8 && N == 32));
  switch (A) {
  case ScalarType::F16: return Deep16 && (Acc == ScalarType::None || Acc == ScalarType::F16 || Acc == ScalarType::F32);
  case ScalarType::BF16: return Deep16 && (Acc == ScalarType::None || Acc == ScalarType::F32);
  case ScalarType::S8: case ScalarType::U8: return Deep16 && (Acc == ScalarType::None || Acc == ScalarType::S32);
  case ScalarType::TF32: return M == 16 && N == 16 && K == 8 && (Acc == ScalarType::None || Acc == ScalarType::F32);
  case ScalarType::F64: return M == 8 && N == 8 && K == 4 && (Acc == ScalarType::None || Acc == ScalarType::F64);
  case ScalarType::S4: case ScalarType::U4:
    return M == 8 && N == 8 && K == 32 && (Acc == ScalarType::None || Acc == ScalarType::S32);
  case ScalarType::None: return M == 8 && N == 8 && K == 128 && (Acc == ScalarType::None || Acc == ScalarType::S32);
  default: return false;
  }
}
} // namespace

/// Fragments are opaque to programs (they go through wmma.load/store), so the
/// implementation picks their layout (WarpSemantics.h, WmmaShape): lane L
/// holds elements L*E..L*E+E-1 (E = rows * cols / 32) of the fragment's
/// matrix in row-major logical order, packed from bit 0 of its registers
/// (32-bit; 64-bit for f64); registers past them are zero. A load or store
/// moves each element between that position and its place in memory
/// (.row/.col, the stride in elements), so mma needs no layout of its own.
void FnLowering::lowerWmma(const Instruction &In) {
  unsigned M = 0, N = 0, K = 0;
  matrixShape(In, M, N, K);
  std::vector<ScalarType> Ts = matrixTypes(In);
  auto regs = [&](const Operand &O, unsigned Needed) -> const std::vector<Operand> & {
    if (O.Kind != Operand::OK_Vector)
      fail("wmma: fragment must be a vector of registers");
    if (O.Elems.size() < Needed)
      invalid("wmma: this fragment needs " + std::to_string(Needed) + " registers");
    return O.Elems;
  };
  auto shapeName = [&] { return "m" + std::to_string(M) + "n" + std::to_string(N) + "k" + std::to_string(K); };
  Value *Lane = B.CreateCall(L.rt(RtFn::sreg_laneid), {Ctx});
  if (In.has(".load") || In.has(".store")) {
    bool Load = In.has(".load");
    bool FragA = In.has(".a"), FragB = In.has(".b"), Acc = !FragA && !FragB;
    if (Ts.size() != 1)
      fail("wmma load/store needs one element type");
    ScalarType T = Ts[0];
    unsigned Bits = wmmaBits(T);
    bool AccType = T == ScalarType::F16 || T == ScalarType::F32 || T == ScalarType::S32 || T == ScalarType::F64;
    if (!Bits || (Acc && !AccType) || (!Acc && (T == ScalarType::F32 || T == ScalarType::S32)))
      fail("wmma load/store: no ." + std::string(FragA ? "a" : FragB ? "b" : Load ? "c" : "d") + " fragment of this type");
    if (!Load && !Acc)
      invalid("wmma.store takes accumulator fragments (.d)");
    // The shape must exist for some input type with this accumulator (or for this input type).
    bool ShapeOk = false;
    for (ScalarType In2 : {ScalarType::F16, ScalarType::BF16, ScalarType::S8, ScalarType::TF32, ScalarType::F64,
                           ScalarType::S4, ScalarType::None})
      ShapeOk |= wmmaShapeOk(M, N, K, Acc ? In2 : T, Acc ? T : ScalarType::None);
    if (!ShapeOk)
      fail("wmma." + shapeName() + " is not a shape of " + std::string(T == ScalarType::None ? ".b1" : spelling(T)) +
           " fragments");
    if ((Bits < 8) && (FragA ? In.has(".col") : FragB ? In.has(".row") : false))
      invalid("wmma: sub-byte .a fragments are .row and .b fragments .col");
    unsigned Rows = FragB ? K : M, Cols = FragA ? K : N, Elems = Rows * Cols / 32;
    unsigned PerReg = Bits >= 32 ? 1 : 32 / Bits, NRegs = (Elems + PerReg - 1) / PerReg;
    bool Wide = Bits == 64, ColMajor = In.has(".col");
    const Operand &FragOp = Load ? In.Ops[0] : In.Ops[1], &AddrOp = Load ? In.Ops[1] : In.Ops[0];
    const auto &R = regs(FragOp, NRegs);
    Value *Base = address(AddrOp, In.space());
    Value *Stride = In.Ops.size() > 2 ? convertBits(get(In.Ops[2], ScalarType::U32), B.getInt64Ty(), false)
                                      : B.getInt64(ColMajor ? Rows : Cols);
    Type *WordTy = Wide ? B.getInt64Ty() : B.getInt32Ty();
    ScalarType WordT = Wide ? ScalarType::B64 : ScalarType::B32;
    unsigned Bytes = Bits < 8 ? 1 : Bits / 8;
    Type *ET = B.getIntNTy(Bits < 8 ? 8 : Bits);
    std::vector<Value *> Words(NRegs, nullptr);
    if (!Load)
      for (unsigned J = 0; J < NRegs; ++J)
        Words[J] = convertBits(get(R[J], WordT), WordTy, false);
    for (unsigned I = 0; I < Elems; ++I) {
      Value *E = B.CreateAdd(B.CreateMul(Lane, B.getInt32(Elems)), B.getInt32(I));
      Value *Row = B.CreateZExt(B.CreateUDiv(E, B.getInt32(Cols)), B.getInt64Ty());
      Value *Col = B.CreateZExt(B.CreateURem(E, B.getInt32(Cols)), B.getInt64Ty());
      Value *Index = ColMajor ? B.CreateAdd(B.CreateMul(Col, Stride), Row) : B.CreateAdd(B.CreateMul(Row, Stride), Col);
      Value *BitPos = B.CreateMul(Index, B.getInt64(Bits));
      Value *P = B.CreateGEP(B.getInt8Ty(), Base, B.CreateLShr(BitPos, 3));
      memcheck(AddrOp, P, Bytes, In.space(), Load ? MemcheckRead : MemcheckWrite);
      unsigned Shift = (I % PerReg) * Bits;
      if (Load) {
        Value *V = B.CreateAlignedLoad(ET, P, Align(Bytes));
        if (Bits < 8) // the element's bits in its byte
          V = B.CreateAnd(B.CreateLShr(V, B.CreateTrunc(B.CreateAnd(BitPos, 7), B.getInt8Ty())),
                          B.getInt8((1u << Bits) - 1));
        V = B.CreateShl(B.CreateZExt(V, WordTy), Shift);
        Words[I / PerReg] = Words[I / PerReg] ? B.CreateOr(Words[I / PerReg], V) : V;
      } else {
        B.CreateAlignedStore(B.CreateTrunc(B.CreateLShr(Words[I / PerReg], Shift), ET), P, Align(Bytes));
      }
    }
    if (Load)
      for (unsigned J = 0; J < R.size(); ++J)
        set(R[J], WordT, J < NRegs ? Words[J] : static_cast<Value *>(ConstantInt::get(WordTy, 0)));
    return;
  }
  if (!In.has(".mma"))
    fail("wmma: unsupported form");
  // .dtype.ctype (f16 inputs), or .dtype.atype.btype.ctype.
  if (Ts.size() != 2 && Ts.size() != 4)
    fail("wmma.mma needs accumulator types");
  ScalarType TA = Ts.size() == 2 ? ScalarType::F16 : Ts[1], TD = Ts[0], TC = Ts.back();
  if (!wmmaShapeOk(M, N, K, TA, TC) || !wmmaShapeOk(M, N, K, TA, TD) || (Ts.size() == 4 && Ts[2] != TA))
    fail("wmma.mma." + shapeName() + " with these types is not supported");
  if (In.has(".rz") || In.has(".rm") || In.has(".rp"))
    fail("wmma.mma.f64: only .rn rounding is supported");
  if (TA == ScalarType::None && !In.has(".popc"))
    invalid("wmma.mma with .b1 inputs needs .xor.popc or .and.popc");
  auto acc = [](ScalarType T) {
    return T == ScalarType::F16 ? MA_F16 : T == ScalarType::S32 ? MA_S32 : T == ScalarType::F64 ? MA_F64 : MA_F32;
  };
  MmaDesc Desc;
  Desc.A = Desc.B = uint32_t(matrixElem(TA));
  Desc.C = acc(TC);
  Desc.D = acc(TD);
  Desc.K = K;
  Desc.Satfinite = In.has(".satfinite");
  Desc.XorPopc = In.has(".xor");
  WmmaShape Shape{M, N, K};
  unsigned BitsAB = wmmaBits(TA);
  auto nregs = [](unsigned Elems, unsigned Bits) { return (Elems + (Bits >= 32 ? 1 : 32 / Bits) - 1) / (Bits >= 32 ? 1 : 32 / Bits); };
  unsigned NA = nregs(M * K / 32, BitsAB), NB = nregs(K * N / 32, BitsAB), NC = nregs(M * N / 32, wmmaBits(TC)),
           ND = nregs(M * N / 32, wmmaBits(TD));
  const auto &D = regs(In.Ops[0], ND), &A = regs(In.Ops[1], NA), &Bm = regs(In.Ops[2], NB), &Cf = regs(In.Ops[3], NC);
  // One stack slot per operand, shared with every other wmma of the function.
  auto *Arr = ArrayType::get(B.getInt64Ty(), 8);
  auto words = [&](const std::vector<Operand> &R, unsigned Count, bool Wide, unsigned Slot) {
    Value *P = scratch(Arr, Slot);
    for (unsigned I = 0; I < Count; ++I) {
      Value *V = Wide ? convertBits(get(R[I], ScalarType::B64), B.getInt64Ty(), false)
                      : B.CreateZExt(convertBits(get(R[I], ScalarType::B32), B.getInt32Ty(), false), B.getInt64Ty());
      B.CreateStore(V, B.CreateConstInBoundsGEP1_32(B.getInt64Ty(), P, I));
    }
    return P;
  };
  Value *AP = words(A, NA, BitsAB == 64, 0), *BP = words(Bm, NB, BitsAB == 64, 1),
        *CP = words(Cf, NC, TC == ScalarType::F64, 2), *DP = scratch(Arr, 3);
  B.CreateCall(L.rt(RtFn::wmma), {Ctx, B.getInt32(Desc.pack()), B.getInt32(Shape.pack()), AP, BP, CP, DP});
  for (unsigned I = 0; I < D.size(); ++I) {
    bool Wide = TD == ScalarType::F64;
    Value *W = I < ND ? static_cast<Value *>(B.CreateLoad(B.getInt64Ty(), B.CreateConstInBoundsGEP1_32(B.getInt64Ty(), DP, I)))
                      : B.getInt64(0);
    set(D[I], Wide ? ScalarType::B64 : ScalarType::B32, Wide ? W : B.CreateTrunc(W, B.getInt32Ty()));
  }
}

/// mma.sync.aligned.m16n8k16.row.col with .f16 or .bf16 inputs and .f16 or
/// .f32 accumulators. Unlike wmma, the fragment layout is architectural
/// (PTX ISA, "Matrix Fragments for mma.m16n8k16"), with g = laneid >> 2 and
/// t = laneid % 4:
///   A (16x16, 4 regs of 2 elements a0..a7): row g (+8 for a2,a3,a6,a7),
///     column 2t + (i & 1) (+8 for a4..a7);
///   B (16x8, 2 regs, b0..b3): row 2t + (i & 1) (+8 for b2,b3), column g;
///   C, D (16x8, c0..c3): row g (+8 for c2,c3), column 2t + (i & 1).
/// Each lane passes its elements in that order; the runtime gathers the warp.
/// ldmatrix.sync.aligned.m8n8{.x1,.x2,.x4}{.trans}.shared.b16: lanes 8i..8i+7
/// give the row addresses of matrix i; every lane receives, per matrix, the
/// pair at row laneid/4, columns 2*(laneid%4)+{0,1} (of the transpose with
/// .trans). A warp collective: the runtime reads the other lanes' addresses.
void FnLowering::lowerLdmatrix(const Instruction &In) {
  if (!In.has(".m8n8") || In.type() != ScalarType::B16)
    fail("ldmatrix: only .m8n8 with .b16 is supported");
  unsigned N = In.has(".x4") ? 4 : In.has(".x2") ? 2 : 1;
  std::vector<Operand> Dst = In.Ops[0].Kind == Operand::OK_Vector ? In.Ops[0].Elems : std::vector<Operand>{In.Ops[0]};
  if (Dst.size() != N)
    fail("ldmatrix: .x" + std::to_string(N) + " needs " + std::to_string(N) + " destination registers");
  Value *RowPtr = address(In.Ops[1], In.space());
  memcheck(In.Ops[1], RowPtr, 16, In.space(), MemcheckRead); // this lane's row of 8 b16
  Value *Addr = B.CreatePtrToInt(RowPtr, B.getInt64Ty());
  Value *Out = scratch(ArrayType::get(B.getInt32Ty(), 4));
  B.CreateCall(L.rt(RtFn::ldmatrix), {Ctx, Addr, B.getInt32(N), B.getInt32(In.has(".trans")), Out});
  for (unsigned K = 0; K < N; ++K)
    set(Dst[K], ScalarType::B32,
        B.CreateLoad(B.getInt32Ty(), B.CreateConstInBoundsGEP1_32(B.getInt32Ty(), Out, K)));
}

void FnLowering::lowerMma(const Instruction &In) {
  if (!In.has(".row") || !In.has(".col"))
    fail("mma needs .row.col");
  auto Ts = In.types(); // .dtype.atype.btype.ctype
  if (Ts.size() == 4 && Ts[1] == ScalarType::F16 && Ts[0] != Ts[3] && (In.has(".m16n8k8") || In.has(".m16n8k16")))
    invalid("mma with .f16 inputs and shape .m16n8k8/.m16n8k16 needs .dtype equal to .ctype");
  bool Classic = In.has(".m16n8k16") && Ts.size() == 4 && Ts[1] == Ts[2] &&
                 (Ts[1] == ScalarType::F16 || Ts[1] == ScalarType::BF16) &&
                 (Ts[0] == ScalarType::F16 || Ts[0] == ScalarType::F32) &&
                 (Ts[3] == ScalarType::F16 || Ts[3] == ScalarType::F32);
  if (!Classic)
    return lowerMmaGeneric(In);
  auto regs = [&](const Operand &O, size_t N) -> const std::vector<Operand> & {
    if (O.Kind != Operand::OK_Vector || O.Elems.size() != N)
      fail("mma: fragment must be a vector of " + std::to_string(N) + " registers");
    return O.Elems;
  };
  bool DHalf = Ts[0] == ScalarType::F16, CHalf = Ts[3] == ScalarType::F16;
  const auto &D = regs(In.Ops[0], DHalf ? 2 : 4), &A = regs(In.Ops[1], 4), &Bm = regs(In.Ops[2], 2),
             &Cf = regs(In.Ops[3], CHalf ? 2 : 4);
  Value *APtr = scratch(ArrayType::get(B.getInt16Ty(), 8));
  Value *BPtr = scratch(ArrayType::get(B.getInt16Ty(), 4));
  Value *CPtr = scratch(ArrayType::get(B.getFloatTy(), 4), 0);
  Value *DPtr = scratch(ArrayType::get(B.getFloatTy(), 4), 1);
  auto half = [&](const std::vector<Operand> &R, unsigned K) {
    Value *Pair = convertBits(get(R.at(K / 2), ScalarType::B32), B.getInt32Ty(), false);
    return B.CreateTrunc(B.CreateLShr(Pair, 16 * (K % 2)), B.getInt16Ty());
  };
  for (unsigned K = 0; K < 8; ++K)
    B.CreateStore(half(A, K), B.CreateConstInBoundsGEP1_32(B.getInt16Ty(), APtr, K));
  for (unsigned K = 0; K < 4; ++K) {
    B.CreateStore(half(Bm, K), B.CreateConstInBoundsGEP1_32(B.getInt16Ty(), BPtr, K));
    Value *C = CHalf ? toFloat(half(Cf, K), ScalarType::F16) : get(Cf.at(K), ScalarType::F32);
    B.CreateStore(C, B.CreateConstInBoundsGEP1_32(B.getFloatTy(), CPtr, K));
  }
  B.CreateCall(L.rt(RtFn::mma_m16n8k16),
               {Ctx, APtr, BPtr, CPtr, DPtr, B.getInt32(Ts[1] == ScalarType::BF16 ? 1 : 0)});
  auto out = [&](unsigned K) {
    return B.CreateLoad(B.getFloatTy(), B.CreateConstInBoundsGEP1_32(B.getFloatTy(), DPtr, K));
  };
  if (DHalf) {
    for (unsigned J = 0; J < 2; ++J) {
      Value *H0 = B.CreateZExt(fromFloat(out(2 * J), ScalarType::F16, 0), B.getInt32Ty());
      Value *H1 = B.CreateZExt(fromFloat(out(2 * J + 1), ScalarType::F16, 0), B.getInt32Ty());
      set(D[J], ScalarType::B32, B.CreateOr(H0, B.CreateShl(H1, 16)));
    }
  } else {
    for (unsigned K = 0; K < 4; ++K)
      set(D[K], ScalarType::F32, out(K));
  }
}

namespace {
/// The types of an mma/wgmma in modifier order; .b1 (single-bit inputs) is
/// not a register type and stays an ordinary modifier: it stands as None.
std::vector<ScalarType> matrixTypes(const Instruction &In) {
  std::vector<ScalarType> Ts;
  for (const Modifier &Md : In.Mods) {
    if (Md.Kind == Modifier::MK_Type)
      Ts.push_back(Md.Type);
    else if (Md.Kind == Modifier::MK_Other && Md.Text == ".b1")
      Ts.push_back(ScalarType::None);
  }
  return Ts;
}
/// The .mMnNkK modifier (zeros when there is none).
void matrixShape(const Instruction &In, unsigned &M, unsigned &N, unsigned &K) {
  for (const Modifier &Md : In.Mods)
    if (Md.Kind == Modifier::MK_Other && std::sscanf(Md.Text.c_str(), ".m%un%uk%u", &M, &N, &K) == 3)
      return;
}
/// An A/B element type as MmaElem, or -1.
int matrixElem(ScalarType T) {
  switch (T) {
  case ScalarType::F16: return ME_F16;
  case ScalarType::BF16: return ME_BF16;
  case ScalarType::TF32: return ME_TF32;
  case ScalarType::F64: return ME_F64;
  case ScalarType::S8: return ME_S8;
  case ScalarType::U8: return ME_U8;
  case ScalarType::S4: return ME_S4;
  case ScalarType::U4: return ME_U4;
  case ScalarType::None: return ME_B1;
  case ScalarType::E4M3: return ME_E4M3;
  case ScalarType::E5M2: return ME_E5M2;
  default: return -1;
  }
}
} // namespace

/// The other mma.sync shapes (m16n8k4/8/16/32/64/128/256, m8n8k4 f64,
/// m8n8k16/32/128): fragments go to the runtime as 64-bit words.
void FnLowering::lowerMmaGeneric(const Instruction &In) {
  std::vector<ScalarType> Ts = matrixTypes(In);
  if (Ts.size() != 4)
    fail("mma needs .dtype.atype.btype.ctype");
  unsigned M = 0, N = 0, K = 0;
  matrixShape(In, M, N, K);
  auto elem = matrixElem;
  auto acc = [&](ScalarType T) -> int {
    switch (T) {
    case ScalarType::F32: return MA_F32;
    case ScalarType::F16: return MA_F16;
    case ScalarType::S32: return MA_S32;
    case ScalarType::F64: return MA_F64;
    default: return -1;
    }
  };
  int EA = elem(Ts[1]), EB = elem(Ts[2]), AC = acc(Ts[3]), AD = acc(Ts[0]);
  // The m8n8k4 f16 shape (sm_70) uses quad-pair fragments; ptxas refuses f16 results from f32 accumulators.
  bool QuadPair = M == 8 && N == 8 && K == 4 && EA == ME_F16 && EB == ME_F16;
  if (QuadPair && AC == MA_F32 && AD == MA_F16)
    invalid("mma.m8n8k4: .dtype must be .f32 when .ctype is .f32");
  if (QuadPair && (AC != MA_F32 && AC != MA_F16))
    QuadPair = false;
  bool Layout = N == 8 && (M == 16 || QuadPair || (M == 8 && EA != ME_F16 && EA != ME_BF16));
  if (EA < 0 || EB < 0 || AC < 0 || AD < 0 || !Layout || !K || K > 256)
    fail("mma." + std::string("m") + std::to_string(M) + "n" + std::to_string(N) + "k" + std::to_string(K) +
         " with these types is not supported yet");
  MmaDesc Desc;
  Desc.A = uint32_t(EA);
  Desc.B = uint32_t(EB);
  Desc.C = uint32_t(AC);
  Desc.D = uint32_t(AD);
  Desc.M = M;
  Desc.K = K;
  Desc.Satfinite = In.has(".satfinite");
  Desc.XorPopc = In.has(".xor");
  Desc.QuadPair = QuadPair;
  auto regs = [&](const Operand &O, size_t Count) -> const std::vector<Operand> & {
    if (O.Kind != Operand::OK_Vector || O.Elems.size() != Count)
      invalid("mma: fragment must be a vector of " + std::to_string(Count) + " registers");
    return O.Elems;
  };
  const auto &D = regs(In.Ops[0], Desc.cRegs(Desc.D)), &A = regs(In.Ops[1], Desc.aRegs()),
             &Bm = regs(In.Ops[2], Desc.bRegs()), &Cf = regs(In.Ops[3], Desc.cRegs(Desc.C));
  unsigned Slot = 0;
  auto words = [&](const std::vector<Operand> &R, ScalarType T) {
    Value *Arr = scratch(ArrayType::get(B.getInt64Ty(), std::max<size_t>(R.size(), 1)), Slot++);
    for (size_t I = 0; I < R.size(); ++I) {
      ScalarType RT = T == ScalarType::F64 ? ScalarType::B64 : ScalarType::B32;
      Value *V = convertBits(get(R[I], RT), RT == ScalarType::B64 ? B.getInt64Ty() : B.getInt32Ty(), false);
      B.CreateStore(B.CreateZExt(V, B.getInt64Ty()), B.CreateConstInBoundsGEP1_32(B.getInt64Ty(), Arr, I));
    }
    return Arr;
  };
  Value *AP = words(A, Ts[1]), *BP = words(Bm, Ts[2]), *CP = words(Cf, Ts[3]);
  Value *DP = scratch(ArrayType::get(B.getInt64Ty(), 8), 3);
  B.CreateCall(L.rt(RtFn::mma_generic), {Ctx, B.getInt32(Desc.pack()), AP, BP, CP, DP});
  for (size_t I = 0; I < D.size(); ++I) {
    Value *W = B.CreateLoad(B.getInt64Ty(), B.CreateConstInBoundsGEP1_32(B.getInt64Ty(), DP, I));
    if (Ts[0] == ScalarType::F64)
      set(D[I], ScalarType::B64, W);
    else
      set(D[I], ScalarType::B32, B.CreateTrunc(W, B.getInt32Ty()));
  }
}

/// movmatrix.sync.aligned.m8n8.trans.b16 and stmatrix.sync.aligned.m8n8: the
/// 8x8 b16 fragment of ldmatrix (lane L holds row L/4, columns 2(L%4) and
/// 2(L%4)+1), moved between lanes with shfl.sync.idx, so every target that
/// has shuffles has these.
void FnLowering::lowerMatrixMove(const Instruction &In) {
  const char *Name = In.Op == Opcode::Movmatrix ? "movmatrix" : "stmatrix";
  if (!In.has(".m8n8") || In.type() != ScalarType::B16)
    invalid(std::string(Name) + ": only .m8n8 with .b16 exists");
  Value *PredPtr = scratch(B.getInt32Ty());
  Value *Lane = B.CreateCall(L.rt(RtFn::sreg_laneid), {Ctx});
  auto shflIdx = [&](Value *V, Value *Src) {
    return B.CreateCall(L.rt(RtFn::shfl),
                        {Ctx, B.getInt32(3), V, Src, B.getInt32(0x1f), B.getInt32(-1), PredPtr});
  };
  // Half \p Which (0 or 1, a value) of a 32-bit register.
  auto half = [&](Value *V, Value *Which) {
    return B.CreateAnd(B.CreateLShr(V, B.CreateShl(Which, 4)), B.getInt32(0xffff));
  };
  Value *R = B.CreateLShr(Lane, 2), *C0 = B.CreateShl(B.CreateAnd(Lane, 3), 1);
  if (In.Op == Opcode::Movmatrix) {
    if (!In.has(".trans"))
      invalid("movmatrix: only .trans exists");
    Value *A = convertBits(get(In.Ops[1], ScalarType::B32), B.getInt32Ty(), false);
    // d holds T[r][c0], T[r][c0+1] = M[c0][r], M[c0+1][r]; M[i][j] is in lane 4i + j/2, half j%2.
    Value *Col = B.CreateLShr(R, 1), *Which = B.CreateAnd(R, 1);
    Value *Lo = half(shflIdx(A, B.CreateAdd(B.CreateShl(C0, 2), Col)), Which);
    Value *Hi = half(shflIdx(A, B.CreateAdd(B.CreateShl(B.CreateAdd(C0, B.getInt32(1)), 2), Col)), Which);
    set(In.Ops[0], ScalarType::B32, B.CreateOr(Lo, B.CreateShl(Hi, 16)));
    return;
  }
  unsigned N = In.has(".x4") ? 4 : In.has(".x2") ? 2 : 1;
  std::vector<Operand> Src = In.Ops[1].Kind == Operand::OK_Vector ? In.Ops[1].Elems : std::vector<Operand>{In.Ops[1]};
  if (Src.size() != N)
    invalid("stmatrix: .x" + std::to_string(N) + " needs " + std::to_string(N) + " source registers");
  bool Trans = In.has(".trans");
  // Lane L gives the address of row L%8 of matrix L/8 and stores that row's 16 bytes.
  Value *Row = B.CreateAnd(Lane, 7), *Mine = B.CreateLShr(Lane, 3);
  Value *Words[4] = {B.getInt32(0), B.getInt32(0), B.getInt32(0), B.getInt32(0)};
  for (unsigned M = 0; M < N; ++M) {
    Value *V = convertBits(get(Src[M], ScalarType::B32), B.getInt32Ty(), false);
    Value *IsMine = B.CreateICmpEQ(Mine, B.getInt32(M));
    for (unsigned J = 0; J < 4; ++J) {
      Value *W;
      if (!Trans) { // row r of M: lanes 4r..4r+3
        W = shflIdx(V, B.CreateAdd(B.CreateShl(Row, 2), B.getInt32(J)));
      } else { // row r of the transpose: M[2j][r], M[2j+1][r]
        Value *Col = B.CreateLShr(Row, 1), *Which = B.CreateAnd(Row, 1);
        Value *Lo = half(shflIdx(V, B.CreateAdd(B.getInt32(8 * J), Col)), Which);
        Value *Hi = half(shflIdx(V, B.CreateAdd(B.getInt32(8 * J + 4), Col)), Which);
        W = B.CreateOr(Lo, B.CreateShl(Hi, 16));
      }
      Words[J] = B.CreateSelect(IsMine, W, Words[J]);
    }
  }
  Value *Ptr = address(In.Ops[0], In.space());
  BasicBlock *Store = BasicBlock::Create(C, "stmatrix.store", F), *Done = BasicBlock::Create(C, "stmatrix.done", F);
  B.CreateCondBr(B.CreateICmpULT(Mine, B.getInt32(N)), Store, Done);
  B.SetInsertPoint(Store);
  memcheck(In.Ops[0], Ptr, 16, In.space(), MemcheckWrite);
  for (unsigned J = 0; J < 4; ++J)
    B.CreateAlignedStore(Words[J], B.CreateGEP(B.getInt8Ty(), Ptr, B.getInt64(4 * J)), Align(4));
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
}

/// wgmma.mma_async.sync.aligned.m64nNk*: one device runtime call per warp
/// (Wgmma.h); it completes before the next instruction, so wgmma.fence,
/// commit_group and wait_group have nothing to order or wait for.
void FnLowering::lowerWgmma(const Instruction &In) {
  if (In.has(".fence") || In.has(".commit_group") || In.has(".wait_group"))
    return;
  if (!In.has(".mma_async"))
    fail("this form of wgmma is not supported");
  if (In.has(".sp"))
    fail("wgmma.mma_async.sp (sparse A) is not supported yet");
  std::vector<ScalarType> Ts = matrixTypes(In);
  unsigned M = 0, N = 0, K = 0;
  matrixShape(In, M, N, K);
  if (Ts.size() != 3 || M != 64 || N < 8 || N > 256 || N % 8)
    invalid("wgmma.mma_async needs .m64nNk* (N a multiple of 8 up to 256) and .dtype.atype.btype");
  int EA = matrixElem(Ts[1]), EB = matrixElem(Ts[2]); // types wgmma lacks fail TypesOk below
  int AD = Ts[0] == ScalarType::F32 ? int(MA_F32) : Ts[0] == ScalarType::F16 ? int(MA_F16) : Ts[0] == ScalarType::S32 ? int(MA_S32) : -1;
  bool Half = EA == ME_F16 || EA == ME_BF16, Int = EA == ME_S8 || EA == ME_U8 || EA == ME_B1;
  bool Fp8 = EA == ME_E4M3 || EA == ME_E5M2;
  bool TypesOk = EA >= 0 && EB >= 0 &&
                 (Half ? EB == EA && (AD == MA_F32 || (EA == ME_F16 && AD == MA_F16))
                  : EA == ME_TF32 ? EB == ME_TF32 && AD == MA_F32
                  : Fp8 ? (EB == ME_E4M3 || EB == ME_E5M2) && (AD == MA_F32 || AD == MA_F16)
                  : EA == ME_B1 ? EB == ME_B1 && AD == MA_S32 && In.has(".and") && In.has(".popc")
                  : (EA == ME_S8 || EA == ME_U8) && (EB == ME_S8 || EB == ME_U8) && AD == MA_S32);
  WgmmaDesc W;
  W.A = uint32_t(std::max(EA, 0));
  W.B = uint32_t(std::max(EB, 0));
  W.D = uint32_t(std::max(AD, 0));
  W.N = N;
  if (!TypesOk || K != W.k())
    invalid("wgmma.mma_async: these types and this K do not go together");
  W.Satfinite = In.has(".satfinite");
  W.ARegs = In.Ops.size() > 1 && In.Ops[1].Kind == Operand::OK_Vector;
  // d, a, b-desc, scale-d {, imm-scale-a, imm-scale-b {, imm-trans-a (A in shared memory)}, imm-trans-b (16-bit)}
  size_t Want = 4 + (Int ? 0 : 2) + (Half ? (W.ARegs ? 1 : 2) : 0);
  if (In.Ops.size() != Want)
    invalid("wgmma.mma_async of these types needs " + std::to_string(Want) + " operands, found " +
            std::to_string(In.Ops.size()));
  auto imm = [&](size_t I, std::initializer_list<int64_t> Allowed) -> int64_t {
    const Operand &O = In.Ops[I];
    if (O.Kind != Operand::OK_Int || std::find(Allowed.begin(), Allowed.end(), O.Int) == Allowed.end())
      invalid("wgmma.mma_async: operand " + std::to_string(I + 1) + " must be an immediate " +
              (Allowed.size() == 2 && *Allowed.begin() == 1 ? "1 or -1" : "0 or 1"));
    return O.Int;
  };
  if (!Int) {
    W.NegA = imm(4, {1, -1}) == -1;
    W.NegB = imm(5, {1, -1}) == -1;
  }
  if (Half) {
    if (!W.ARegs)
      W.TransA = imm(6, {0, 1}) == 1;
    W.TransB = imm(Want - 1, {0, 1}) == 1;
  }
  const Operand &DOp = In.Ops[0];
  if (DOp.Kind != Operand::OK_Vector || DOp.Elems.size() != W.dRegs())
    invalid("wgmma.mma_async: D must be a vector of " + std::to_string(W.dRegs()) + " registers");
  Value *DP = scratch(ArrayType::get(B.getInt64Ty(), 128), 4);
  for (size_t I = 0; I < DOp.Elems.size(); ++I)
    B.CreateStore(B.CreateZExt(get(DOp.Elems[I], ScalarType::B32), B.getInt64Ty()),
                  B.CreateConstInBoundsGEP1_32(B.getInt64Ty(), DP, I));
  Value *ADesc = B.getInt64(0), *AP = scratch(ArrayType::get(B.getInt64Ty(), 4), 5);
  if (W.ARegs) {
    if (In.Ops[1].Elems.size() != 4)
      invalid("wgmma.mma_async: A in registers is a vector of 4 registers");
    for (size_t I = 0; I < 4; ++I)
      B.CreateStore(B.CreateZExt(get(In.Ops[1].Elems[I], ScalarType::B32), B.getInt64Ty()),
                    B.CreateConstInBoundsGEP1_32(B.getInt64Ty(), AP, I));
  } else {
    ADesc = get(In.Ops[1], ScalarType::B64);
  }
  Value *BDesc = get(In.Ops[2], ScalarType::B64);
  const Operand &SD = In.Ops[3];
  Value *Scale = SD.Kind == Operand::OK_Int ? B.getInt32(SD.Int != 0)
                                            : B.CreateZExt(get(SD, ScalarType::Pred), B.getInt32Ty());
  B.CreateCall(L.rt(RtFn::wgmma), {Ctx, B.getInt32(W.pack()), ADesc, AP, BDesc, DP, Scale});
  for (size_t I = 0; I < DOp.Elems.size(); ++I)
    set(DOp.Elems[I], ScalarType::B32,
        B.CreateTrunc(B.CreateLoad(B.getInt64Ty(), B.CreateConstInBoundsGEP1_32(B.getInt64Ty(), DP, I)),
                      B.getInt32Ty()));
}

} // namespace zluda::ptx
