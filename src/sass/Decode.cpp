//===- Decode.cpp - 128-bit SASS instructions ------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "sass/Decode.h"

#include <cstdio>
#include <cstring>
#include <utility>

namespace zluda::sass {

namespace {

struct OpRow {
  Op O;
  uint16_t Code;
  bool Fixed;
};
constexpr OpRow Table[] = {
#define SASS_OP(Name, Code, Fixed) {Op::Name, Code, Fixed != 0},
#include "sass/Opcodes.def"
};

int64_t sext(uint64_t V, unsigned Bits) {
  uint64_t M = uint64_t(1) << (Bits - 1);
  return static_cast<int64_t>((V ^ M) - M);
}

PredSrc pred(const Word &W, unsigned Pos, unsigned NotBit) {
  return {static_cast<uint32_t>(W.bits(Pos, 3)), W.bit(NotBit)};
}

/// A register at \p Pos; negate/absolute bits 0 for none.
Src reg(const Word &W, unsigned Pos, unsigned NegBit, unsigned AbsBit) {
  Src S;
  S.K = Src::KReg;
  S.Reg = static_cast<uint32_t>(W.bits(Pos, 8));
  S.Neg = NegBit && W.bit(NegBit);
  S.Abs = AbsBit && W.bit(AbsBit);
  return S;
}

/// The operand at bits 32-63 in form \p Form (immediate, constant, uniform
/// register or register), with its negate/absolute bits 63/62.
Src wideOperand(const Word &W, unsigned Form) {
  Src S;
  switch (Form) {
  case 1:
    return reg(W, 32, 63, 62);
  case 2:
  case 4:
    S.K = Src::KImm;
    S.Imm = static_cast<uint32_t>(W.bits(32, 32));
    return S;
  case 3:
  case 5:
    S.K = Src::KConst;
    S.Offset = static_cast<uint32_t>(W.bits(38, 16));
    S.Bank = static_cast<uint32_t>(W.bits(54, 5));
    S.Neg = W.bit(63);
    S.Abs = W.bit(62);
    return S;
  case 6:
  case 7:
    S.K = Src::KUReg;
    S.Reg = static_cast<uint32_t>(W.bits(32, 8));
    S.Neg = W.bit(63);
    S.Abs = W.bit(62);
    return S;
  default:
    return S;
  }
}

/// A texture or surface instruction's handle: the bank-0 word at 40-53 (bank
/// at 54-58), or in the _U forms (opcode bit 10) the uniform register at 40-45.
Src imageHandle(const Word &W, bool U) {
  Src S;
  if (U) {
    S.K = Src::KUReg;
    S.Reg = static_cast<uint32_t>(W.bits(40, 6));
  } else {
    S.K = Src::KConst;
    S.Bank = static_cast<uint32_t>(W.bits(54, 5));
    S.Offset = static_cast<uint32_t>(W.bits(40, 14)) * 4;
  }
  return S;
}

/// Sources A, B, C of an ALU instruction: A at 24 (negate 72, absolute 73),
/// B and C by the form (forms 2, 3, 7 put C in bits 32-63 and B at 64).
bool aluSources(Inst &I, unsigned Form) {
  I.A = reg(I.W, 24, 72, 73);
  if (Form == 0 || Form > 7)
    return false;
  Src Wide = wideOperand(I.W, Form), At64 = reg(I.W, 64, 75, 74);
  if (Form == 2 || Form == 3 || Form == 7) {
    I.C = Wide;
    I.B = At64;
  } else {
    I.B = Wide;
    I.C = At64;
  }
  return true;
}

/// A memory access: address register at 24, offset 40-63, size 73-75, .E at 72.
void memory(Inst &I) {
  I.A = reg(I.W, 24, 0, 0);
  I.MemOffset = static_cast<int32_t>(sext(I.W.bits(40, 24), 24));
  I.Sub = static_cast<uint32_t>(I.W.bits(73, 3));
  I.Wide = I.W.bit(72);
}

/// The memory order of a global or generic load or store (Inst::Strong).
uint8_t strongScope(uint32_t Sm, const Word &W) {
  uint32_t Scope = static_cast<uint32_t>(W.bits(77, 2));
  if (Sm < 80)
    return W.bit(80) ? static_cast<uint8_t>(Scope == 3 ? 3 : Scope == 2 ? 2 : 1) : 0;
  return Scope == 0 ? 0 : Scope == 3 ? 2 : Scope == 2 ? 3 : 1;
}

} // namespace

const char *opName(Op O) {
  switch (O) {
#define SASS_OP(Name, Code, Fixed)                                                                                     \
  case Op::Name:                                                                                                       \
    return #Name;
#include "sass/Opcodes.def"
  default:
    return "?";
  }
}

std::string hex128(const Word &W) {
  char B[40];
  std::snprintf(B, sizeof B, "0x%016llx%016llx", static_cast<unsigned long long>(W.Hi),
                static_cast<unsigned long long>(W.Lo));
  return B;
}

Inst decode(uint32_t Sm, const std::string &Code, uint32_t Offset) {
  Inst I;
  I.Offset = Offset;
  if (Offset + 16 > Code.size())
    return I;
  std::memcpy(&I.W.Lo, Code.data() + Offset, 8);
  std::memcpy(&I.W.Hi, Code.data() + Offset + 8, 8);
  const Word &W = I.W;
  uint32_t Full = static_cast<uint32_t>(W.bits(0, 12)), Low = Full & 0x1ff;
  unsigned Form = Full >> 9;
  for (const OpRow &R : Table)
    if (R.Fixed ? R.Code == Full : R.Code == Low && !(R.Code & ~0x1ffu) && Form != 0) {
      I.O = R.O;
      break;
    }
  if (I.O == Op::LEPC && Sm >= 90)
    I.O = Op::Unknown;
  if (Full == 0x94e && Sm >= 90)
    I.O = Op::LEPC;
  if (I.O == Op::R2UR && Sm >= 90)
    I.O = Op::Unknown;
  if (Full == 0x2ca && Sm >= 90)
    I.O = Op::R2UR;
  // Uniform opcodes decode as their vector twins with Uniform set.
  static const std::pair<Op, Op> UniformOps[] = {
      {Op::UMOV, Op::MOV},     {Op::USEL, Op::SEL},   {Op::UISETP, Op::ISETP}, {Op::UIADD3, Op::IADD3},
      {Op::ULEA, Op::LEA},     {Op::ULOP3, Op::LOP3}, {Op::UPRMT, Op::PRMT},   {Op::USHF, Op::SHF},
      {Op::UIMAD, Op::IMAD},   {Op::UFLO, Op::FLO},   {Op::UPOPC, Op::POPC}, {Op::UIMAD_WIDE, Op::IMAD_WIDE},
      {Op::UPLOP3, Op::PLOP3}, {Op::UBMSK, Op::BMSK}, {Op::USGXT, Op::SGXT}};
  for (auto [U, V] : UniformOps)
    if (I.O == U) {
      I.O = V;
      I.Uniform = true;
    }
  I.Guard = pred(W, 12, 15);
  I.Rd = static_cast<uint32_t>(W.bits(16, 8));
  bool Ok = true;
  switch (I.O) {
  case Op::MOV:
    Ok = aluSources(I, Form);
    I.Sub = static_cast<uint32_t>(W.bits(72, 4)); // lane mask
    break;
  case Op::SEL:
  case Op::FSEL:
    Ok = aluSources(I, Form);
    I.PSrc0 = pred(W, 87, 90);
    break;
  case Op::FMNMX:
    Ok = aluSources(I, Form);
    I.Ftz = W.bit(80);
    I.Sat = W.bit(81); // .NAN: a NaN input gives NaN
    I.X = W.bit(82);   // .XORSIGN: min/max.xorsign.abs (sm_86+; the sources as |A| and |B|)
    I.PSrc0 = pred(W, 87, 90);
    break;
  case Op::LEA:
    Ok = aluSources(I, Form);
    I.Signed = W.bit(73); // .SX32: the high word is A's sign, not C
    I.X = W.bit(74);
    I.Sub = static_cast<uint32_t>(W.bits(75, 5)); // the shift
    I.Hi = W.bit(80);
    I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
    I.PSrc0 = pred(W, 87, 90);
    break;
  case Op::DADD:
  case Op::DMUL:
  case Op::DFMA:
  case Op::DSETP:
    Ok = aluSources(I, Form);
    // DADD's second addend, and DSETP's second operand outside form 1, are the
    // third source's slot.
    if (I.O == Op::DADD || (I.O == Op::DSETP && Form != 1))
      std::swap(I.B, I.C);
    I.Sub2 = static_cast<uint32_t>(W.bits(78, 2));
    if (I.O == Op::DSETP) {
      I.Sub = static_cast<uint32_t>(W.bits(76, 4));
      I.Sub2 = static_cast<uint32_t>(W.bits(74, 2));
      I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
      I.PDst1 = static_cast<uint32_t>(W.bits(84, 3));
      I.PSrc0 = pred(W, 87, 90);
    }
    break;
  case Op::BSYNC:
    I.Sub = static_cast<uint32_t>(W.bits(16, 4)); // the convergence barrier, B0..B15
    break;
  case Op::WARPSYNC:
  case Op::WARPSYNC_R:
    // The mask: an immediate (sm_90 shows only 0, WARPSYNC.ALL) or a
    // register at 32-39 (at 24-31 on sm_90).
    Ok = aluSources(I, I.O == Op::WARPSYNC_R ? 1 : Form);
    if (Sm >= 90 && I.O == Op::WARPSYNC_R) {
      I.B = reg(W, 24, 0, 0);
      Ok = Ok && W.bits(32, 8) == 0;
    } else if (Sm >= 90) {
      Ok = Ok && I.B.K == Src::KImm && I.B.Imm == 0;
      I.B.Imm = 0xffffffffu;
    }
    I.O = Op::WARPSYNC;
    I.PSrc0 = pred(W, 87, 90);
    break;
  case Op::R2P:
    Ok = aluSources(I, Form);
    I.Sub = static_cast<uint32_t>(W.bits(72, 8)); // byte select: 0 in the forms seen
    break;
  case Op::BAR:
    I.Sub = static_cast<uint32_t>(W.bits(54, 4));  // barrier number
    I.Sub2 = static_cast<uint32_t>(W.bits(77, 2)); // 0 SYNC, 1 ARV, 2 RED, 3 SCAN
    I.Target = W.bits(42, 12);                     // the thread count (0: the whole block)
    I.MemOffset = static_cast<int32_t>(W.bits(74, 2)); // RED: 0 POPC, 1 AND, 2 OR
    I.PSrc0 = pred(W, 87, 90);
    I.Hi = W.bit(76); // not seen: refused
    break;
  case Op::B2R:
    I.Sub = static_cast<uint32_t>(W.bits(78, 1)); // .RESULT
    I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
    break;
  case Op::MEMBAR:
    I.Sub = static_cast<uint32_t>(W.bits(76, 2)); // scope
    break;
  case Op::BPT:
    I.Sub = static_cast<uint32_t>(W.bits(84, 2)); // 3: TRAP
    break;
  case Op::NANOSLEEP:
    I.B.K = Src::KImm;
    I.B.Imm = static_cast<uint32_t>(W.bits(32, 32));
    break;
  case Op::NANOSLEEP_R:
    I.B = reg(W, 32, 0, 0);
    I.O = Op::NANOSLEEP;
    break;
  case Op::ISETP:
  case Op::FSETP:
    Ok = aluSources(I, Form);
    I.Signed = W.bit(73);
    I.X = W.bit(72); // .EX
    I.Sub = static_cast<uint32_t>(I.O == Op::ISETP ? W.bits(76, 3) : W.bits(76, 4));
    I.Sub2 = static_cast<uint32_t>(W.bits(74, 2));
    I.Ftz = I.O == Op::FSETP && W.bit(80);
    I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
    I.PDst1 = static_cast<uint32_t>(W.bits(84, 3));
    I.PSrc0 = pred(W, 87, 90);
    I.PSrc1 = pred(W, 68, 71);
    break;
  case Op::IADD3:
    Ok = aluSources(I, Form);
    I.X = W.bit(74);
    I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
    I.PDst1 = static_cast<uint32_t>(W.bits(84, 3));
    I.PSrc0 = pred(W, 87, 90);
    I.PSrc1 = pred(W, 77, 80);
    break;
  case Op::LOP3:
    Ok = aluSources(I, Form);
    I.Sub = static_cast<uint32_t>(W.bits(72, 8));
    I.X = W.bit(80); // .PAND
    I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
    I.PSrc0 = pred(W, 87, 90);
    break;
  case Op::IABS:
  case Op::POPC:
  case Op::FLO:
  case Op::BREV:
    Ok = aluSources(I, Form);
    I.Signed = W.bit(73);
    I.Hi = W.bit(74); // FLO.SH
    I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
    break;
  case Op::F2F:
  case Op::F2I:
  case Op::I2F:
  case Op::FRND:
  case Op::F2F64:
  case Op::F2I64:
  case Op::I2F64:
  case Op::FRND64:
    // Conversions: the source in B; sizes as log2 of bytes (destination 75-76,
    // source 84-85); rounding 78-79; .FTZ 80; F2I's signed destination 72 and
    // I2F's signed source 74; the source's half or byte select 60-61.
    Ok = aluSources(I, Form);
    I.Signed = I.O == Op::F2I || I.O == Op::F2I64 ? W.bit(72) : W.bit(74);
    I.Sub = static_cast<uint32_t>(W.bits(75, 2)) | static_cast<uint32_t>(W.bits(84, 2)) << 4;
    I.Sub2 = static_cast<uint32_t>(W.bits(78, 2));
    I.Ftz = W.bit(80);
    I.Sat = W.bit(77); // F2I: .NTZ
    I.MemOffset = static_cast<int32_t>(W.bits(60, 2));
    // sm_90: bit 86 with source code 0 is a bfloat16 source (F2I, F2F).
    I.Bf16 = W.bit(86);
    Ok = Ok && (!I.Bf16 || (W.bits(84, 2) == 0 && Sm >= 90));
    break;
  case Op::SHFL:
  case Op::SHFL_IC:
  case Op::SHFL_IL:
  case Op::SHFL_ILC: {
    // The value at 24; the lane in a register at 32 or an immediate at
    // 53-57; the clamp and segment mask in a register at 64 or an immediate
    // at 40-52; the mode at 58-59 (IDX, UP, DOWN, BFLY); in bounds at 81-83.
    bool ImmLane = I.O == Op::SHFL_IL || I.O == Op::SHFL_ILC, ImmC = I.O == Op::SHFL_IC || I.O == Op::SHFL_ILC;
    I.A = reg(W, 24, 0, 0);
    if (ImmLane) {
      I.B.K = Src::KImm;
      I.B.Imm = static_cast<uint32_t>(W.bits(53, 5));
    } else {
      I.B = reg(W, 32, 0, 0);
    }
    if (ImmC) {
      I.C.K = Src::KImm;
      I.C.Imm = static_cast<uint32_t>(W.bits(40, 13));
    } else {
      I.C = reg(W, 64, 0, 0);
    }
    I.Sub = static_cast<uint32_t>(W.bits(58, 2));
    I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
    I.O = Op::SHFL;
    break;
  }
  case Op::PLOP3:
    // Three predicates (87-89, 77-79, 68-70, each with a NOT bit) through two
    // LUTs: bits 64-66 and 72-76 for the first result (81-83), 16-23 for the
    // second (84-86).
    I.PSrc0 = pred(W, 87, 90);
    I.PSrc1 = pred(W, 77, 80);
    // The third source; bit 67 makes it a uniform predicate (PLOP3 P0, PT, PT, PT, UP0).
    I.Target = pred(W, 68, 71).P | (uint64_t(W.bit(71)) << 3) | (uint64_t(W.bit(67)) << 4);
    I.Sub = static_cast<uint32_t>(W.bits(64, 3) | W.bits(72, 5) << 3);
    I.Sub2 = static_cast<uint32_t>(W.bits(16, 8));
    I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
    I.PDst1 = static_cast<uint32_t>(W.bits(84, 3));
    break;
  case Op::QSPC:
    memory(I);
    I.Sub = static_cast<uint32_t>(W.bits(73, 2));
    I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
    Ok = I.Wide && I.Rd == RZ && I.Sub < 3 && W.bits(75, 6) == 0 && W.bits(84, 21) == 0 && W.bits(32, 8) == 0 &&
         W.bits(64, 8) == 0;
    break;
  case Op::ATOMF:
  case Op::ATOMGF:
  case Op::REDF: {
    Op Kind = I.O;
    I.O = Kind == Op::REDF ? Op::RED : Op::ATOMG;
    I.Generic = Kind == Op::ATOMF;
    memory(I);
    I.B = reg(W, 32, 0, 0);
    I.C = reg(W, 64, 0, 0);
    uint32_t T = static_cast<uint32_t>(W.bits(72, 8));
    I.Sub = T == 0xe1 ? 4 : T == 0xe7 ? 8 : T == 0xf3 ? 3 : T == 0xff ? 6 : 7; // 7: none (refused)
    I.Sub2 = static_cast<uint32_t>(W.bits(87, 4));
    I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
    if (I.O == Op::RED) {
      I.Sub2 &= 7;
      I.PDst0 = PT;
    }
    Ok = Sm >= 90 && I.Wide;
    break;
  }
  case Op::ATOMG75:
    if (Sm >= 80) { // not seen there
      I.O = Op::Unknown;
      break;
    }
    I.O = Op::ATOMG;
    I.AddrUReg = URZ;
    memory(I);
    I.B = reg(W, 32, 0, 0);
    I.C = reg(W, 64, 0, 0);
    I.Sub = static_cast<uint32_t>(W.bits(73, 3));
    I.Sub2 = static_cast<uint32_t>(W.bits(87, 4));
    I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
    break;
  case Op::ATOM:
    // Seen on sm_80..sm_89, and on sm_75 with a uniform register pair in the
    // address (bit 91; Turing's 0x9xx forms: ATOMG's fields, below), as
    // cooperative groups' grid barrier counts its arrivals.
    if (Sm >= 90 || (Sm < 80 && !W.bit(91))) {
      I.O = Op::Unknown;
      break;
    }
    I.O = Op::ATOMG;
    I.Generic = true;
    [[fallthrough]];
  case Op::ATOM_CAS:
    if (I.O == Op::ATOM_CAS) {
      I.O = Op::ATOMG_CAS;
      I.Generic = true;
    }
    [[fallthrough]];
  case Op::ATOMG:
  case Op::ATOMG_CAS:
  case Op::RED:
  case Op::ATOMS:
  case Op::ATOMS_UR:
  case Op::ATOMS_CAS:
    memory(I);
    I.B = reg(W, 32, 0, 0);                          // the value (CAS: the compared one)
    I.C = reg(W, 64, 0, 0);                          // CAS: the new value
    I.Sub = static_cast<uint32_t>(W.bits(73, 3));    // the type
    if (I.O == Op::ATOMS_UR) {
      if (!W.bit(91)) {
        I.O = Op::Unknown;
        break;
      }
      I.O = Op::ATOMS;
      I.AddrUReg = static_cast<uint32_t>(W.bits(64, 6));
    }
    // sm_90 numbers the types U32 S32 U64 S64 (its float atomics have opcodes of their own).
    if (Sm >= 90 && (I.O == Op::ATOMG || I.O == Op::RED || I.O == Op::ATOMS || I.O == Op::ATOMG_CAS || I.O == Op::ATOMS_CAS))
      I.Sub = I.Sub == 3 ? 5 : I.Sub <= 2 ? I.Sub : 7;
    I.Sub2 = static_cast<uint32_t>(W.bits(87, 4));   // the operation
    I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
    if (I.O == Op::RED) { // no result: bits 81-83 are not a predicate there
      I.Sub2 &= 7;
      I.PDst0 = PT;
    }
    if (I.O == Op::ATOMS || I.O == Op::ATOMS_CAS) {
      I.PDst0 = PT; // no predicate result: bits 81-83 read 0 in every form nvdisasm lists
      I.Wide = false;
      I.Scale = static_cast<uint8_t>(W.bits(78, 2)); // [Ra.X4]: as LDS/STS scale
    }
    break;
  case Op::ATOMS_POPC_INC:
    memory(I);
    I.Wide = false;
    I.Scale = static_cast<uint8_t>(W.bits(78, 2));
    I.AddrUReg = static_cast<uint32_t>(W.bits(64, 8));
    I.Sub = static_cast<uint32_t>(W.bits(72, 6)); // none in the forms seen
    break;
  case Op::MATCH:
    I.A = reg(W, 24, 0, 0);
    I.Sub = W.bit(79) ? 1 : 0; // 1: ANY
    I.Wide = W.bit(73);
    I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
    I.Sub2 = static_cast<uint32_t>(W.bits(72, 1) | W.bits(74, 5) << 1 | W.bits(80, 1) << 6); // none seen
    break;
  case Op::REDUX:
    I.A = reg(W, 24, 0, 0);
    I.Sub = static_cast<uint32_t>(W.bits(78, 3)); // AND OR XOR SUM MIN MAX
    I.Signed = W.bit(73);
    break;
  case Op::VOTEU:
  case Op::VOTE:
    I.Sub = static_cast<uint32_t>(W.bits(72, 2)); // ALL, ANY, EQ
    I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
    I.PSrc0 = pred(W, 87, 90);
    break;
  case Op::MUFU:
    Ok = aluSources(I, Form);
    I.Sub = static_cast<uint32_t>(W.bits(74, 6)); // COS SIN EX2 LG2 RCP RSQ RCP64H RSQ64H SQRT TANH
    I.Hi = W.bit(73) || W.bit(72); // .F16 (73 before Hopper, 72 on sm_90): a half in, a half out
    break;
  case Op::PRMT:
    Ok = aluSources(I, Form);
    I.Sub = static_cast<uint32_t>(W.bits(72, 3));
    break;
  case Op::IMNMX:
    Ok = aluSources(I, Form);
    I.Signed = W.bit(73);
    I.PSrc0 = pred(W, 87, 90);
    break;
  case Op::SHF:
    Ok = aluSources(I, Form);
    I.Sub = static_cast<uint32_t>(W.bits(73, 2)); // 0 S64, 1 U64, 2 S32, 3 U32
    I.Wrap = W.bit(75);
    I.Right = W.bit(76);
    I.Hi = W.bit(80);
    break;
  case Op::FADD:
  case Op::FMUL:
  case Op::FFMA:
    Ok = aluSources(I, Form);
    // FADD's second addend is the operand of bits 32-63 in forms 2, 3 and 7
    // (the register at 64 is then RZ).
    if (I.O == Op::FADD && (Form == 2 || Form == 3 || Form == 7))
      std::swap(I.B, I.C);
    I.Sat = W.bit(77);
    I.Sub2 = static_cast<uint32_t>(W.bits(78, 2)); // rounding: RN RM RP RZ
    I.Ftz = W.bit(80);
    I.Sub = I.O == Op::FMUL ? static_cast<uint32_t>(W.bits(84, 3)) : 0; // FMUL's scale (4: none)
    break;
  case Op::IMAD:
  case Op::IMAD_WIDE:
  case Op::IMAD_HI:
    Ok = aluSources(I, Form);
    I.Signed = W.bit(73);
    I.X = W.bit(74);
    I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
    I.PSrc0 = pred(W, 87, 90);
    break;
  case Op::CS2R:
    I.Sub = static_cast<uint32_t>(W.bits(72, 8));
    I.Wide = W.bit(80);
    break;
  case Op::P2R:
    Ok = aluSources(I, Form);
    I.Sub = static_cast<uint32_t>(W.bits(72, 8)); // byte select and others: 0 in the forms seen
    break;
  case Op::S2R:
  case Op::S2UR:
    I.Sub = static_cast<uint32_t>(W.bits(72, 8)); // the special register
    break;
  case Op::LDC:
    I.B = reg(W, 24, 0, 0); // index register (RZ: none)
    I.A = wideOperand(W, 5);
    I.Sub = static_cast<uint32_t>(W.bits(73, 3));
    break;
  case Op::ULDC:
    I.A = wideOperand(W, 5);
    I.Sub = static_cast<uint32_t>(W.bits(73, 3));
    break;
  case Op::ULDC_X: // LDC's indexed form into a uniform register, the index a uniform register
    I.O = Op::LDC;
    I.Uniform = true;
    I.B = reg(W, 24, 0, 0);
    I.B.K = Src::KUReg;
    I.A = wideOperand(W, 5);
    I.Sub = static_cast<uint32_t>(W.bits(73, 3));
    break;
  case Op::LDG:
  case Op::LD:
  case Op::LDS:
  case Op::LDL:
    memory(I);
    if (I.O == Op::LDG || I.O == Op::LD)
      I.Strong = strongScope(Sm, W);
    if (I.O == Op::LDS)
      I.Scale = static_cast<uint8_t>(W.bits(78, 2));
    if ((I.O == Op::LDS || I.O == Op::LDL) && W.bit(91)) // [Ra+URb+imm]: the uniform register at 32-37
      I.AddrUReg = static_cast<uint32_t>(W.bits(32, 6)); // (the offset stays at 40-63)
    break;
  case Op::LDG75:
  case Op::STG75:
    // sm_75: the same fields, without the descriptor register.
    memory(I);
    I.Strong = strongScope(Sm, W);
    if (I.O == Op::STG75)
      I.B = reg(W, 32, 0, 0);
    I.O = I.O == Op::LDG75 ? Op::LDG : Op::STG;
    break;
  case Op::ST75:
    if (Sm >= 80) { // not seen after Turing
      I.O = Op::Unknown;
      break;
    }
    memory(I);
    I.Strong = strongScope(Sm, W);
    I.B = reg(W, 64, 0, 0);
    I.O = Op::ST;
    break;
  case Op::STG:
  case Op::ST:
  case Op::STS:
  case Op::STS_UR:
  case Op::STL:
  case Op::STL_UR:
    memory(I);
    if (I.O == Op::STG || I.O == Op::ST)
      I.Strong = strongScope(Sm, W);
    I.B = reg(W, 32, 0, 0);
    if (I.O == Op::STS || I.O == Op::STS_UR)
      I.Scale = static_cast<uint8_t>(W.bits(78, 2));
    if (I.O == Op::STS_UR || I.O == Op::STL_UR) { // [Ra+URb+imm] stores: the uniform register at 64-69
      I.O = I.O == Op::STS_UR ? Op::STS : Op::STL;
      if (W.bit(91))
        I.AddrUReg = static_cast<uint32_t>(W.bits(64, 6));
      else
        I.AddrURegUnknown = true;
    }
    break;
  case Op::RET:
    I.A = reg(W, 24, 0, 0); // the register holding the return offset (.REL: from the function's start)
    I.PSrc0 = pred(W, 87, 90);
    break;
  case Op::EXIT:
    I.PSrc0 = pred(W, 87, 90); // @P0 EXIT P1: a second condition, as BRA's
    break;
  case Op::CALL_ABS:
    I.A = reg(W, 24, 0, 0);
    break;
  case Op::LEPC:
    break;
  case Op::R2UR:
    I.A = reg(W, 24, 0, 0);
    I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
    I.Sub = W.bit(84) ? 1 : 0; // .OR
    break;
  case Op::BRX:
  case Op::BRXU:
  case Op::CALL_REG:
    I.A = reg(W, 24, 0, 0);
    if (I.O == Op::BRXU) {
      I.A.K = Src::KUReg;
      I.A.Reg &= 63;
    }
    [[fallthrough]];
  case Op::CALL:
  case Op::BRA:
  case Op::BSSY:
    // The offset from the next instruction in 4-byte units: bits 34-81
    // before Hopper (32-33 hold BRA.DIV's uniform register bits). On sm_90
    // BRA and CALL keep its low 8 bits at 16-23 and the rest at 34-81
    // (BSSY, whose 16-23 name the barrier, as before).
    if (Sm >= 90 && I.O != Op::BSSY)
      I.Target = static_cast<uint64_t>(int64_t(Offset) + 16 +
                                       4 * (sext(W.bits(34, 48), 48) * 256 + static_cast<int64_t>(W.bits(16, 8))));
    else
      I.Target = static_cast<uint64_t>(int64_t(Offset) + 16 + 4 * sext(W.bits(34, 48), 48));
    I.PSrc0 = pred(W, 87, 90);
    // Bits 32-33 (every architecture): 0 plain, 1 .U, 2 .DIV, 3 .CONV (bit
    // 91 comes with the last two from sm_80 on, not on sm_75).
    I.Div = I.O == Op::BRA && W.bits(32, 2) >= 2;
    I.Conv = I.Div && W.bits(32, 2) == 3;
    if (I.O == Op::BSSY)
      I.Sub = static_cast<uint32_t>(W.bits(16, 4)); // the convergence barrier, B0..B15
    if (I.O == Op::CALL)
      I.PSrc0 = PredSrc{};
    break;
  case Op::HFMA2_MMA:
  case Op::HADD2:
  case Op::HMUL2:
  case Op::HFMA2:
  case Op::HMNMX2:
  case Op::HSETP2:
  case Op::HSET2:
    Ok = aluSources(I, Form);
    // The two-source forms take their second source from bits 32-63 in forms 2, 3 and 7 too.
    if (I.O != Op::HFMA2 && I.O != Op::HFMA2_MMA && (Form == 2 || Form == 3 || Form == 7))
      std::swap(I.B, I.C);
    I.SwzA = static_cast<uint8_t>(W.bits(74, 2));
    // A constant has its swizzle too (sm_75's .F32 literals), and so has a uniform register (sm_90's
    // HMUL2 R, R, UR.H0_H0 of a __half kernel parameter: 0x...7c32 with bit 61 set; read as a whole pair,
    // its upper lane multiplied by the parameter's neighbour); an immediate's bits are the halves.
    I.SwzB = I.B.K == Src::KReg || I.B.K == Src::KConst || I.B.K == Src::KUReg ? static_cast<uint8_t>(W.bits(60, 2)) : 0;
    I.SwzC = static_cast<uint8_t>(W.bits(81, 2));
    if (I.O == Op::HFMA2 || I.O == Op::HFMA2_MMA) {
      I.C.Neg = W.bit(84);
      I.C.Abs = W.bit(83);
      if (I.C.K != Src::KReg)
        I.SwzC = 0;
    }
    I.Sat = W.bit(77);
    I.F32Out = W.bit(78);
    I.Relu = W.bit(79);
    I.Ftz = W.bit(80);
    I.Bf16 = W.bit(85);
    if (I.O == Op::HMNMX2) {
      I.Sat = W.bit(81); // .NAN
      I.SwzC = 0;
      I.PSrc0 = pred(W, 87, 90);
    }
    if (I.O == Op::HSETP2 || I.O == Op::HSET2) {
      I.Sub = static_cast<uint32_t>(W.bits(76, 4));  // the comparison, as FSETP's
      I.Sub2 = static_cast<uint32_t>(W.bits(69, 2)); // AND OR XOR
      I.Hi = W.bit(71);                              // HSETP2: .H_AND; HSET2: .BF (1.0 per half)
      I.SwzC = 0;
      I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
      I.PDst1 = static_cast<uint32_t>(W.bits(84, 3));
      I.PSrc0 = pred(W, 87, 90);
      I.F32Out = I.Relu = false; // those bits are the comparison and the second result
      I.Bf16 = W.bit(65);        // bf16 halves (sm_90)
    }
    break;
  case Op::F2FP:
    Ok = aluSources(I, Form);
    I.Relu = W.bit(75);
    I.Bf16 = W.bit(76);
    I.Sub2 = static_cast<uint32_t>(W.bits(79, 2));
    I.Sub = static_cast<uint32_t>(W.bits(72, 3) | W.bits(77, 2) << 3 | W.bits(81, 4) << 5); // must be 0
    // sm_90's 8-bit floats: bits 72-90 whole, as nvdisasm showed them (Lift.cpp's table).
    I.Sub2 |= static_cast<uint32_t>(W.bits(72, 19)) << 2;
    break;
  case Op::I2FP:
    Ok = aluSources(I, Form);
    I.Signed = W.bit(74);
    I.Sub2 = static_cast<uint32_t>(W.bits(78, 2));
    I.Sub = static_cast<uint32_t>(W.bits(75, 2) | W.bits(84, 2) << 4); // F32 from 32 bits: 0x22
    break;
  case Op::I2I:
  case Op::I2IP:
  case Op::F2IP:
    Ok = aluSources(I, Form);
    I.Sub = static_cast<uint32_t>(W.bits(76, 2)); // U8 S8 U16 S16
    I.Sub2 = static_cast<uint32_t>(W.bits(78, 2)); // F2IP: rounding
    I.Signed = W.bit(72);
    // F2IP: set in the forms seen; sm_90's I2IP sets it too (nvdisasm lists
    // the same I2IP.S16.S32.SAT as sm_86's without it).
    I.Wrap = W.bit(74) && !(I.O == Op::I2IP && Sm >= 90);
    I.Sat = W.bit(73) || W.bit(75);                 // not seen: refused
    break;
  case Op::SGXT:
  case Op::BMSK:
    Ok = aluSources(I, Form);
    I.Signed = W.bit(73);
    I.Wrap = W.bit(75);
    break;
  case Op::FSET:
    Ok = aluSources(I, Form);
    I.Sub = static_cast<uint32_t>(W.bits(76, 4));
    I.Sub2 = static_cast<uint32_t>(W.bits(74, 2));
    I.Ftz = W.bit(80);
    I.PSrc0 = pred(W, 87, 90);
    break;
  case Op::VIMNMX:
    Ok = aluSources(I, Form) && Sm >= 90;
    I.O = Op::IMNMX;
    I.Signed = W.bit(72);
    I.Wide = W.bit(73); // .S16x2/.U16x2: each half
    I.PSrc0 = pred(W, 87, 90);
    break;
  case Op::VIADDMNMX:
    Ok = aluSources(I, Form) && Sm >= 90 && W.bits(73, 2) == 0 && W.bits(76, 4) == 0 && W.bits(80, 7) == 0;
    I.Signed = W.bit(72);
    I.A.Neg = false; // bit 72 is the signedness here, not A's negation
    I.PSrc0 = pred(W, 87, 90);
    break;
  case Op::VIADD:
    Ok = aluSources(I, Form) && Sm >= 90;
    I.Sub = static_cast<uint32_t>(W.bits(64, 27)); // the third source and modifiers: none in the forms seen
    break;
  case Op::FCHK:
    Ok = aluSources(I, Form);
    I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
    break;
  case Op::HMMA:
  case Op::IMMA:
  case Op::BMMA:
  case Op::DMMA:
    // The shape and types are the modifier bits 72-90 (the lifter's tables); nothing else is set in the forms seen.
    I.A = reg(W, 24, 0, 0);
    I.B = reg(W, 32, 0, 0);
    I.C = reg(W, 64, 0, 0);
    I.Sub = static_cast<uint32_t>(W.bits(72, 19));
    Ok = W.bits(40, 24) == 0 && W.bits(91, 14) == 0;
    break;
  case Op::LDSM:
    I.A = reg(W, 24, 0, 0);
    I.MemOffset = static_cast<int32_t>(sext(W.bits(40, 24), 24));
    I.Sub = static_cast<uint32_t>(W.bits(72, 2)); // 0 .x1, 1 .x2, 2 .x4
    I.Hi = W.bit(78);                            // .MT88: transposed
    // Bit 91: a uniform register at 32-37 added to the address, as LDS's.
    I.AddrUReg = W.bit(91) ? static_cast<uint32_t>(W.bits(32, 6)) : URZ;
    Ok = (W.bit(91) ? W.bits(38, 2) == 0 : W.bits(32, 8) == 0) && W.bits(64, 8) == 0 && W.bits(74, 4) == 0 &&
         W.bit(79) == 0 && W.bits(80, 11) == 0 && W.bits(92, 13) == 0 && I.Sub < 3;
    break;
  case Op::STSM:
    I.A = reg(W, 24, 0, 0);
    I.B = reg(W, 32, 0, 0);
    I.Rd = RZ; // writes no register
    I.MemOffset = static_cast<int32_t>(sext(W.bits(40, 24), 24));
    I.Sub = static_cast<uint32_t>(W.bits(72, 2));
    I.Hi = W.bit(78);
    Ok = W.bits(16, 8) == 0 && W.bits(64, 8) == 0 && W.bits(74, 4) == 0 && W.bit(79) == 0 && W.bits(80, 25) == 0 &&
         I.Sub < 3;
    break;
  case Op::MOVM:
    I.A = reg(W, 24, 0, 0);
    Ok = W.bits(32, 32) == 0 && W.bits(64, 41) == 0;
    break;
  case Op::LDGSTS: {
    I.B = reg(W, 16, 0, 0); // the shared address
    I.Rd = RZ;              // writes no register
    I.A = reg(W, 24, 0, 0);
    I.Wide = true;
    I.MemOffset = static_cast<int32_t>(sext(W.bits(32, 12), 12));
    I.Target = static_cast<uint64_t>(sext(W.bits(44, 20), 20));
    I.Sub = static_cast<uint32_t>(W.bits(73, 2)); // 0: 4 bytes, 1: 8, 2: 16
    I.Sub2 = W.bit(82);                           // .ZFILL
    I.PSrc0 = pred(W, 87, 90);
    constexpr uint64_t Known = (0x1fULL << 0) | (0x3ULL << 9) | (0x1ULL << 12) | (0x1fULL << 15); // from bit 72
    Ok = (W.bits(72, 33) & ~Known) == 0 && I.Sub < 3;
    break;
  }
  case Op::TEX:
  case Op::TEX_U:
  case Op::TLD:
  case Op::TLD_U:
  case Op::TLD4:
  case Op::TLD4_U:
  case Op::TXD:
  case Op::TXD_U:
  case Op::TXQ:
  case Op::TXQ_U: {
    bool U = W.bit(10);
    static const Op Base[] = {Op::TEX, Op::TLD, Op::TLD4, Op::TXD, Op::TXQ};
    static const Op WithU[] = {Op::TEX_U, Op::TLD_U, Op::TLD4_U, Op::TXD_U, Op::TXQ_U};
    for (size_t K = 0; K < 5; ++K)
      if (I.O == WithU[K])
        I.O = Base[K];
    I.A = reg(W, 24, 0, 0);
    I.B = reg(W, 32, 0, 0);
    I.Rd2 = static_cast<uint32_t>(W.bits(64, 8));
    I.Sub = static_cast<uint32_t>(W.bits(72, 4)); // the component mask
    I.TexGeom = static_cast<uint8_t>(W.bits(61, 3));
    I.TexMode = static_cast<uint8_t>(W.bits(87, 3));
    I.Handle = imageHandle(W, U);
    // Only the forms seen in nvdisasm's listings: bits 76-90 are 0x1e0 plus
    // the mode (TXQ: all zero), bit 91 marks the _U forms, the rest is zero;
    // bit 60 (.SCR) splits the operands between Ra's and Rb's registers.
    bool Txq = I.O == Op::TXQ;
    I.Hi = W.bit(60);
    Ok = W.bits(76, 11) == (Txq ? 0 : 0x1e0) && (!Txq || I.TexMode == 0) && W.bit(90) == 0 && W.bit(91) == U &&
         W.bits(92, 13) == 0 && !W.bit(59) && (!U || W.bits(46, 13) == 0) &&
         (!Txq || (I.TexGeom == 0 && !I.Hi && W.bits(32, 8) == 0));
    break;
  }
  case Op::SULD:
  case Op::SULD_U:
  case Op::SUST:
  case Op::SUST_U: {
    bool U = W.bit(10), Store = I.O == Op::SUST || I.O == Op::SUST_U;
    I.O = Store ? Op::SUST : Op::SULD;
    I.A = reg(W, 24, 0, 0);
    if (Store) {
      I.B = reg(W, 32, 0, 0);
      I.Rd = RZ;
    }
    I.Sub = static_cast<uint32_t>(W.bits(73, 3));
    I.TexGeom = static_cast<uint8_t>(W.bits(61, 3));
    I.TexMode = W.bit(60) ? 1 : W.bit(59) ? 2 : 0; // .trap, .clamp, .zero
    I.Handle = imageHandle(W, U);
    uint64_t Scope = W.bits(76, 5);
    Ok = W.bit(72) && (Scope == 0x0a || Scope == 0x10) && W.bits(81, 3) == (Store ? 0 : 7) && W.bit(84) &&
         W.bits(85, 6) == 0 && W.bit(91) == U && W.bits(92, 13) == 0 && W.bits(64, 8) == 0 &&
         (!W.bit(60) || !W.bit(59)) && (!U || W.bits(46, 13) == 0) && (Store || W.bits(32, 8) == 0);
    break;
  }
  case Op::ELECT:
    I.Rd = static_cast<uint32_t>(W.bits(16, 8)); // a uniform register
    I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
    Ok = W.bits(24, 40) == 0 && W.bits(64, 17) == 0 && W.bits(84, 3) == 0 && W.bits(87, 4) == 7 &&
         W.bits(91, 14) == 0 && Sm >= 90;
    break;
  case Op::ACQBULK:
  case Op::PREEXIT:
    Ok = W.bits(16, 48) == 0 && W.bits(64, 41) == 0;
    break;
  case Op::PMTRIG:
    Ok = W.bits(16, 16) == 0 && W.bits(64, 23) == 0 && W.bits(90, 15) == 0; // the event mask at 32-63
    break;
  case Op::ARRIVES: // named only: the lifter refuses it (Opcodes.def)
  case Op::LDGDEPBAR:
  case Op::DEPBAR:
    break;
  case Op::IDP:
  case Op::VABSDIFF4:
  case Op::VABSDIFF: {
    // Bits 72-75 are these instructions' modifiers, not A's and C's negations.
    Ok = aluSources(I, Form) && !I.B.Neg && !I.B.Abs;
    I.A.Neg = I.A.Abs = I.C.Neg = I.C.Abs = false;
    I.Signed = W.bit(73);
    I.X = W.bit(74);   // IDP: B signed
    I.Hi = W.bit(I.O == Op::IDP ? 77 : 75); // IDP.2A.HI; VABSDIFF4.ACC
    I.Wide = W.bit(76);                      // IDP.2A
    uint32_t Known = I.O == Op::IDP ? 0x36 : I.O == Op::VABSDIFF4 ? 0x0a : 0x02; // of bits 72-79
    Ok = Ok && (W.bits(72, 8) & ~Known) == 0 && W.bits(80, 11) == (I.O == Op::IDP ? 0 : 0x0e) &&
         !(I.O == Op::IDP && I.Hi && !I.Wide);
    break;
  }
  case Op::PLOP3_SIGN:
    // Form 1: B a register; form 5: B a constant-bank word (ptxas's literal
    // bank for add.sat.s32's constant operand); form 6 (0xc1f): B a uniform
    // register (sm_75 and sm_90: 26 of the differential fuzzer's 480
    // kernels of seeds NN012-NN031 were refused for it).
    I.A = reg(W, 24, 0, 0);
    I.B = Form == 5 || Form == 6 ? wideOperand(W, Form) : reg(W, 32, 0, 0);
    I.C = reg(W, 64, 0, 0);
    I.Sub = static_cast<uint32_t>(W.bits(72, 8));
    I.Sub2 = static_cast<uint32_t>(W.bits(16, 8));
    I.Rd = RZ;
    I.PDst0 = static_cast<uint32_t>(W.bits(81, 3));
    I.PDst1 = static_cast<uint32_t>(W.bits(84, 3));
    Ok = ((Form == 1 && W.bits(40, 24) == 0) || (Form == 5 && !I.B.Neg && !I.B.Abs) ||
          (Form == 6 && W.bits(40, 24) == 0)) &&
         W.bit(80) == 0 &&
         W.bits(87, 4) == 0;
    break;
  default:
    break;
  }
  // Turing has no memory descriptors: its 0x9xx global forms add a uniform
  // register pair to the address where bit 91 is set (LDG names it at bits
  // 32-39; STG, RED and ATOMG at 64-69), Ra then a pair where bit 90 is set
  // (.64) and else a 32-bit unsigned offset (.U32). Without bit 91 they are
  // the plain forms (bits 64-71 then are not a register: RED's are 0). The generic LD/ST forms are refused until their fields
  // are known.
  if (Sm < 80 && (Full & 0x800)) {
    if (I.O == Op::LDG || I.O == Op::STG || I.O == Op::RED || I.O == Op::ATOMG || I.O == Op::ATOMG_CAS) {
      if (W.bit(91)) {
        I.AddrUReg = static_cast<uint32_t>(I.O == Op::LDG ? W.bits(32, 8) : W.bits(64, 6));
        I.Wide = true;
        if (I.O == Op::ATOMG || I.O == Op::ATOMG_CAS) {
          // ATOMG's bit 90 is its operation's (EXCH), CAS's new value is at
          // 64-71: seen only with Ra = RZ.
          I.AddrURegUnknown = I.A.Reg != RZ || I.O == Op::ATOMG_CAS;
        } else {
          if (I.O == Op::RED)
            I.Sub2 &= 7; // bit 90 is .64 here, not the operation's
          I.OffsetRa32 = !W.bit(90) && I.A.Reg != RZ;
        }
      } else {
        I.AddrUReg = URZ;
      }
    } else if (I.O == Op::LD && W.bit(91)) { // as LDG's
      I.AddrUReg = static_cast<uint32_t>(W.bits(32, 8));
      I.Wide = true;
      I.OffsetRa32 = !W.bit(90) && I.A.Reg != RZ;
    } else if (I.O == Op::ST && W.bit(91)) { // as STG's
      I.AddrUReg = static_cast<uint32_t>(W.bits(64, 6));
      I.Wide = true;
      I.OffsetRa32 = !W.bit(90) && I.A.Reg != RZ;
    } else if (I.O == Op::LD || I.O == Op::ST) {
      I.AddrURegUnknown = true;
    }
  }
  // Turing's plain generic LD (0x980) and ST (0x385): a 32-bit offset at
  // bits 32-63 (seen only with small ones: refused where bits 56-63 are not
  // the sign of a 24-bit offset).
  if (Sm < 80 && ((I.O == Op::LD && (Full & 0x800) && !W.bit(91)) || (I.O == Op::ST && Full == 0x385))) {
    int64_t Off = sext(W.bits(32, 32), 32);
    I.MemOffset = static_cast<int32_t>(Off);
    I.AddrUReg = URZ;
    I.AddrURegUnknown = Off != sext(W.bits(32, 24), 24);
  }
  if (!Ok)
    I.O = Op::Unknown;
  return I;
}

std::string describe(const Inst &I) {
  if (I.O == Op::Unknown) {
    char B[32];
    std::snprintf(B, sizeof B, "opcode 0x%03x", static_cast<unsigned>(I.W.bits(0, 12)));
    return B;
  }
  std::string S = std::string(I.Uniform ? "U" : "") + opName(I.O);
  for (char &C : S)
    if (C == '_')
      C = '.';
  if (I.Div)
    S += I.Conv ? ".CONV" : ".DIV";
  return S;
}

} // namespace zluda::sass
