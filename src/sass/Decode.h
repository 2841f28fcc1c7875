//===- Decode.h - 128-bit SASS instructions (sm_75 .. sm_90) ---------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Decodes Turing, Ampere, Ada and Hopper instructions into fields the
/// lifter reads. The bit layout (from nvdisasm listings of ptxas output and
/// the public descriptions of the Volta encoding): opcode in bits 0-8 with the
/// operand form in 9-11 (1 register, 4 immediate, 5 constant, 6 uniform
/// register; 2, 3, 7 the same with the second and third sources swapped),
/// guard predicate 12-14 (15 negates), destination 16-23, first source 24-31,
/// second source 32-39 (or a 32-bit immediate 32-63, or a constant: offset
/// 38-53, bank 54-58), third source 64-71, modifiers from bit 72, scheduling
/// control from bit 105 (not needed to run the code). The opcode table is
/// Opcodes.def.
#ifndef ZLUDA_SASS_DECODE_H
#define ZLUDA_SASS_DECODE_H

#include <cstdint>
#include <string>
#include <vector>

namespace zluda::sass {

struct Word {
  uint64_t Lo = 0, Hi = 0;
  /// Bits [Pos, Pos + Len) of the 128-bit word (Len <= 64).
  uint64_t bits(unsigned Pos, unsigned Len) const {
    unsigned __int128 V = (static_cast<unsigned __int128>(Hi) << 64) | Lo;
    V >>= Pos;
    return Len >= 64 ? static_cast<uint64_t>(V) : static_cast<uint64_t>(V) & ((uint64_t(1) << Len) - 1);
  }
  bool bit(unsigned Pos) const { return bits(Pos, 1) != 0; }
};

enum class Op : uint8_t {
#define SASS_OP(Name, Code, Fixed) Name,
#include "sass/Opcodes.def"
  Unknown
};
const char *opName(Op O);

constexpr uint32_t RZ = 255; ///< the zero register (R255)
constexpr uint32_t URZ = 63; ///< the uniform zero register on sm_75 .. sm_90
constexpr uint32_t PT = 7;   ///< the true predicate

/// One source operand.
struct Src {
  enum Kind : uint8_t { KNone, KReg, KUReg, KImm, KConst } K = KNone;
  uint32_t Reg = 0;  ///< KReg/KUReg: the register number
  uint32_t Imm = 0;  ///< KImm: the 32 bits
  uint32_t Bank = 0, Offset = 0; ///< KConst: c[Bank][Offset]
  bool Neg = false, Abs = false;
};

/// A predicate operand: P0..P6, PT (7), negated or not.
struct PredSrc {
  uint32_t P = PT;
  bool Not = false;
  bool isTrue() const { return P == PT && !Not; }
  bool isFalse() const { return P == PT && Not; }
};

struct Inst {
  uint32_t Offset = 0;
  Word W;
  Op O = Op::Unknown;
  PredSrc Guard;
  uint32_t Rd = RZ;
  Src A, B, C;
  uint32_t PDst0 = PT, PDst1 = PT; ///< predicate results
  PredSrc PSrc0, PSrc1;            ///< predicate inputs (carries, accumulators, selections)
  uint64_t Target = 0;             ///< branch target (an offset in the function's code)
  uint32_t Sub = 0;   ///< the opcode's sub-operation (comparison, LUT, size, special register, mode ...)
  uint32_t Sub2 = 0;  ///< a second one (boolean combination, rounding ...)
  bool Signed = false, X = false, Hi = false, Right = false, Wrap = false, Ftz = false, Sat = false;
  int32_t MemOffset = 0; ///< loads and stores: the immediate added to the address
  bool Wide = false;     ///< loads and stores: a 64-bit address register pair (.E)
  /// Global and generic loads and stores: .STRONG (not to be cached, merged or
  /// hoisted; volatile and relaxed accesses) and its scope: 0 weak, 1 .CTA (or
  /// .SM), 2 .GPU, 3 .SYS. Bits 76-80: on sm_75 bit 80 marks it strong and bits
  /// 77-78 give the scope (00 CTA, 10 GPU, 11 SYS); from sm_80 bits 77-78 are 00
  /// when weak (plain and .CONSTANT), 11 for .GPU, 10 with bit 80 for .SYS, as
  /// nvdisasm names them.
  uint8_t Strong = 0;
  /// Shared-memory accesses: the address register scaled (bits 78-79: 0 none,
  /// 1 .X4, 2 .X8, 3 .X16), as ptxas indexes arrays of words.
  uint8_t Scale = 0;
  /// sm_75's global accesses with opcode bit 11 (no descriptors there): a
  /// uniform register pair added to the address (bits 64-71; URZ none).
  uint32_t AddrUReg = 63;
  bool AddrURegUnknown = false; ///< sm_75 forms whose uniform operand is not located yet (refused)
  bool OffsetRa32 = false;      ///< sm_75: Ra is a 32-bit unsigned offset from the uniform pair (.U32)
  /// The uniform datapath (UIADD3, ULOP3 ...): register numbers name UR0..UR63
  /// (URZ = 63) and predicate numbers UP0..UP7; the opcode is the vector one.
  bool Uniform = false;
  bool Div = false; ///< BRA.DIV: taken when the warp is diverged
  bool Conv = false; ///< with Div: BRA.CONV, taken when it is converged (bits 32-33: 2 DIV, 3 CONV)
  bool Generic = false; ///< ATOM (0x38b): ATOMG.CAS's fields on a generic address
  /// The half-precision ALU: each source's swizzle (0 H1H0, 1 F32, 2 H0_H0, 3 H1_H1).
  uint8_t SwzA = 0, SwzB = 0, SwzC = 0;
  bool Bf16 = false, Relu = false, F32Out = false;
  /// Texture and surface instructions (TEX, TLD, TLD4, TXD, TXQ; SULD, SUST):
  /// the handle (a bank-0 word pair, or a uniform register in the _U forms), the
  /// second destination (components after the first two, bits 64-71), the
  /// geometry (bits 61-63) and the mode (bits 87-89: TEX's level of detail,
  /// TLD4's component).
  Src Handle;
  uint32_t Rd2 = RZ;
  uint8_t TexGeom = 0, TexMode = 0;
};

/// Decodes the instruction at byte \p Offset of \p Code (16 bytes each). An
/// instruction whose opcode or operand form is not in the table decodes with
/// O = Op::Unknown (the lifter refuses it, naming the offset).
Inst decode(uint32_t Sm, const std::string &Code, uint32_t Offset);

/// The instruction's name with its main modifiers, for messages
/// ("IMAD.WIDE.U32", "ISETP.GE.U32.AND").
std::string describe(const Inst &I);

/// "0x<hi><lo>" as a 32-digit hex string.
std::string hex128(const Word &W);

} // namespace zluda::sass

#endif // ZLUDA_SASS_DECODE_H
