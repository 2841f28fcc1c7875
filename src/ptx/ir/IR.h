//===- IR.h - Typed in-memory PTX IR ---------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The PTX module as the parser builds it and the printer and compiler
/// read it. Everything compares with ==, ignoring source locations, so that a
/// parse -> print -> parse round trip can be checked structurally.
#ifndef ZLUDA_PTX_IR_IR_H
#define ZLUDA_PTX_IR_IR_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zluda::ptx {

/// A position in the PTX text (1-based). Locations never take part in
/// equality: a printed-and-reparsed module has other positions.
struct SourceLoc {
  uint32_t Line = 0;
  uint32_t Col = 0;
  bool operator==(const SourceLoc &) const { return true; }
};

enum class ScalarType : uint8_t {
  None,
#define PTX_TYPE(Enum, Spelling, Bits, Kind) Enum,
#include "ptx/ir/Types.def"
};

enum class TypeKind : uint8_t { None, Bits, Unsigned, Signed, Float, Pred, Opaque };

enum class StateSpace : uint8_t {
  None, ///< generic addressing (no space modifier)
#define PTX_SPACE(Enum, Spelling) Enum,
#include "ptx/ir/Spaces.def"
};

enum class Opcode : uint16_t {
#define PTX_INSTR(Enum, Spelling, MinOps, MaxOps) Enum,
#include "ptx/ir/Instructions.def"
  NumOpcodes
};

std::string_view spelling(ScalarType T);
std::string_view spelling(StateSpace S);
std::string_view spelling(Opcode Op);
unsigned bitWidth(ScalarType T);
TypeKind kindOf(ScalarType T);
std::optional<ScalarType> lookupType(std::string_view Spelling);
std::optional<StateSpace> lookupSpace(std::string_view Spelling);
std::optional<Opcode> lookupOpcode(std::string_view Spelling);
int minOperands(Opcode Op);
int maxOperands(Opcode Op); ///< -1 when unbounded

enum class Linkage : uint8_t { None, Extern, Visible, Weak, Common };
std::string_view spelling(Linkage L);

/// One modifier of an instruction, in source order. Types, state spaces and
/// vector widths are resolved; everything else (.rn, .sync, .L2::cache_hint)
/// keeps its spelling.
struct Modifier {
  enum KindT : uint8_t { MK_Type, MK_Space, MK_Vector, MK_Other } Kind = MK_Other;
  ScalarType Type = ScalarType::None;
  StateSpace Space = StateSpace::None;
  uint8_t VectorWidth = 0;
  std::string Text; ///< spelling, with the leading dot (MK_Other only)
  bool operator==(const Modifier &) const = default;
};

struct Operand {
  enum KindT : uint8_t {
    OK_Name,    ///< register, variable, label or function; Component/Not/Pair
    OK_Int,     ///< integer immediate
    OK_Float,   ///< 0f/0d or decimal float immediate (decimal => f64)
    OK_Address, ///< [Base+Offset], Base empty for an absolute address
    OK_Vector,  ///< {a, b, ...}
    OK_Bracket, ///< [a, b, ...] (texture/surface operands)
    OK_Paren,   ///< (a, b, ...) (call arguments and results)
    OK_Sink,    ///< _
  } Kind = OK_Sink;
  std::string Name;      ///< OK_Name, OK_Address base
  std::string Pair;      ///< setp's second destination: %p|%q
  char Component = 0;    ///< .x .y .z .w .r .g .b .a suffix of a name
  std::string Sel;       ///< video instructions' byte/half selector of a name (.b0, .h10, .b3210), no dot
  bool Not = false;      ///< !%p
  bool Neg = false;      ///< -%r (vmad's negated register operands)
  int64_t Int = 0;       ///< OK_Int value, OK_Address offset
  uint64_t FloatBits = 0;
  bool IsDouble = false; ///< OK_Float: 0d (true) or 0f (false)
  std::vector<Operand> Elems;
  SourceLoc Loc;
  bool operator==(const Operand &) const = default;
};

struct Guard {
  std::string Pred;
  bool Negated = false;
  bool operator==(const Guard &) const = default;
};

struct Instruction {
  Opcode Op = Opcode::Ret;
  std::vector<Modifier> Mods;
  std::optional<Guard> Pred;
  std::vector<Operand> Ops;
  SourceLoc Loc;
  bool operator==(const Instruction &) const = default;

  /// The instruction's types in modifier order (cvt.f32.s32 -> {F32, S32}).
  std::vector<ScalarType> types() const;
  /// The first type modifier, or None.
  ScalarType type() const;
  /// The state-space modifier, or None (generic).
  StateSpace space() const;
  /// .v2/.v4/.v8, or 0.
  unsigned vectorWidth() const;
  bool has(std::string_view ModText) const;
};

/// A constant initializer of a variable (PTX ISA 5.4.4).
struct Initializer {
  enum KindT : uint8_t { IK_Int, IK_Float, IK_Symbol, IK_Generic, IK_List } Kind = IK_Int;
  int64_t Int = 0;         ///< IK_Int value; IK_Symbol/IK_Generic offset
  uint64_t FloatBits = 0;
  bool IsDouble = false;
  std::string Symbol;
  std::vector<Initializer> Elems;
  bool operator==(const Initializer &) const = default;
};

/// A variable, register or parameter declaration; one name per declaration.
struct VarDecl {
  Linkage Link = Linkage::None;
  StateSpace Space = StateSpace::Reg;
  std::vector<std::string> Attributes; ///< .attribute(.managed) contents
  uint32_t Align = 0;
  uint8_t VectorWidth = 0;
  ScalarType Type = ScalarType::B32;
  bool IsPtr = false;                    ///< kernel parameter .ptr
  StateSpace PtrSpace = StateSpace::None; ///< .ptr .global
  uint32_t PtrAlign = 0;                 ///< .ptr .align N
  std::string Name;
  std::optional<uint32_t> RangeCount;    ///< %r<100>
  std::vector<uint64_t> Dims;            ///< array dims, 0 = unsized []
  std::optional<Initializer> Init;
  SourceLoc Loc;
  bool operator==(const VarDecl &) const = default;

  /// Bytes one element occupies (vector width included).
  uint64_t elementSize() const;
};

/// .maxntid, .reqntid, .minnctapersm, .maxnreg, .maxnctapersm, .noreturn,
/// .explicitcluster, .reqnctapercluster, .maxclusterrank, .blocksareclusters.
struct PerfDirective {
  std::string Name; ///< with the dot
  std::vector<uint64_t> Values;
  bool operator==(const PerfDirective &) const = default;
};

/// A statement of a function body. Nested { } blocks are kept flat as
/// SK_BlockBegin/SK_BlockEnd so that passes can walk a single list.
struct Statement {
  enum KindT : uint8_t {
    SK_Instruction,
    SK_Decl,
    SK_Label,
    SK_BlockBegin,
    SK_BlockEnd,
    SK_Loc,        ///< .loc, Text = everything after ".loc"
    SK_Pragma,     ///< .pragma "..."; Text = the string without quotes
    SK_Prototype,  ///< Label: .callprototype (rets) _ (params)
    SK_BranchTargets, ///< Label: .branchtargets a, b
    SK_CallTargets,   ///< Label: .calltargets f, g
  } Kind = SK_Instruction;
  Instruction Inst;
  VarDecl Decl;
  std::string Label;
  std::string Text;
  std::vector<VarDecl> ProtoReturns, ProtoParams;
  std::vector<std::string> Targets;
  SourceLoc Loc;
  bool operator==(const Statement &) const = default;
};

struct Function {
  bool IsEntry = false;
  Linkage Link = Linkage::None;
  std::string Name;
  std::vector<VarDecl> Returns;
  std::vector<VarDecl> Params;
  std::vector<PerfDirective> Perf;
  bool HasBody = false;
  std::vector<Statement> Body;
  SourceLoc Loc;
  bool operator==(const Function &) const = default;
};

/// A module-level item, in source order.
struct TopLevel {
  enum KindT : uint8_t {
    TK_Var,
    TK_Function,
    TK_File,    ///< .file Index "Text" [, Extra]
    TK_Section, ///< .section Name { Text }
    TK_Pragma,
    TK_Alias,   ///< .alias Name, Text
  } Kind = TK_Var;
  VarDecl Var;
  Function Func;
  uint32_t FileIndex = 0;
  std::string Name;
  std::string Text;
  std::string Extra;
  SourceLoc Loc;
  bool operator==(const TopLevel &) const = default;
};

struct Module {
  uint32_t VersionMajor = 0, VersionMinor = 0;
  std::vector<std::string> Targets; ///< sm_80, texmode_independent, debug ...
  uint32_t AddressSize = 32;        ///< PTX's default without .address_size
  bool HasAddressSize = false;
  std::vector<TopLevel> Items;
  bool operator==(const Module &) const = default;

  const Function *findFunction(std::string_view Name) const;
  std::vector<const Function *> entries() const;
  /// Moves the .global and .const variables declared inside function bodies to module scope (named
  /// `__zluda$<function>$<name>$<n>`, each placed before its function) and renames their uses within the block
  /// that declares them: PTX gives such a variable a function-local name but module lifetime, one copy shared
  /// by every thread. The parser calls it.
  void hoistFunctionVariables();
};

} // namespace zluda::ptx

#endif // ZLUDA_PTX_IR_IR_H
