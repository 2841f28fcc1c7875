//===- IR.cpp - PTX IR tables and helpers ----------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Spelling and lookup tables generated from the .def files.
#include "ptx/ir/IR.h"

#include <algorithm>
#include <unordered_map>

namespace zluda::ptx {
namespace {

struct TypeInfo {
  std::string_view Spelling;
  unsigned Bits;
  TypeKind Kind;
};
constexpr TypeKind kindB = TypeKind::Bits, kindU = TypeKind::Unsigned, kindS = TypeKind::Signed,
                   kindF = TypeKind::Float, kindP = TypeKind::Pred, kindO = TypeKind::Opaque;
constexpr TypeInfo TypeTable[] = {
    {"", 0, TypeKind::None},
#define PTX_TYPE(Enum, Spelling, Bits, Kind) {Spelling, Bits, kind##Kind},
#include "ptx/ir/Types.def"
};

constexpr std::string_view SpaceTable[] = {
    "",
#define PTX_SPACE(Enum, Spelling) Spelling,
#include "ptx/ir/Spaces.def"
};

struct OpInfo {
  std::string_view Spelling;
  int MinOps, MaxOps;
};
constexpr OpInfo OpTable[] = {
#define PTX_INSTR(Enum, Spelling, MinOps, MaxOps) {Spelling, MinOps, MaxOps},
#include "ptx/ir/Instructions.def"
};

} // namespace

std::string_view spelling(ScalarType T) { return TypeTable[static_cast<size_t>(T)].Spelling; }
unsigned bitWidth(ScalarType T) { return TypeTable[static_cast<size_t>(T)].Bits; }
TypeKind kindOf(ScalarType T) { return TypeTable[static_cast<size_t>(T)].Kind; }
std::string_view spelling(StateSpace S) { return SpaceTable[static_cast<size_t>(S)]; }
std::string_view spelling(Opcode Op) { return OpTable[static_cast<size_t>(Op)].Spelling; }
int minOperands(Opcode Op) { return OpTable[static_cast<size_t>(Op)].MinOps; }
int maxOperands(Opcode Op) { return OpTable[static_cast<size_t>(Op)].MaxOps; }

std::optional<ScalarType> lookupType(std::string_view S) {
  static const auto Index = [] {
    std::unordered_map<std::string_view, ScalarType> M;
    for (size_t I = 1; I < std::size(TypeTable); ++I)
      M.emplace(TypeTable[I].Spelling, static_cast<ScalarType>(I));
    return M;
  }();
  auto It = Index.find(S);
  if (It == Index.end())
    return std::nullopt;
  return It->second;
}

std::optional<StateSpace> lookupSpace(std::string_view S) {
  static const auto Index = [] {
    std::unordered_map<std::string_view, StateSpace> M;
    for (size_t I = 1; I < std::size(SpaceTable); ++I)
      M.emplace(SpaceTable[I], static_cast<StateSpace>(I));
    return M;
  }();
  auto It = Index.find(S);
  if (It == Index.end())
    return std::nullopt;
  return It->second;
}

std::optional<Opcode> lookupOpcode(std::string_view S) {
  static const auto Index = [] {
    std::unordered_map<std::string_view, Opcode> M;
    for (size_t I = 0; I < std::size(OpTable); ++I)
      M.emplace(OpTable[I].Spelling, static_cast<Opcode>(I));
    return M;
  }();
  auto It = Index.find(S);
  if (It == Index.end())
    return std::nullopt;
  return It->second;
}

std::string_view spelling(Linkage L) {
  switch (L) {
  case Linkage::None:
    return "";
  case Linkage::Extern:
    return ".extern";
  case Linkage::Visible:
    return ".visible";
  case Linkage::Weak:
    return ".weak";
  case Linkage::Common:
    return ".common";
  }
  return "";
}

std::vector<ScalarType> Instruction::types() const {
  std::vector<ScalarType> R;
  for (const Modifier &M : Mods)
    if (M.Kind == Modifier::MK_Type)
      R.push_back(M.Type);
  return R;
}

ScalarType Instruction::type() const {
  for (const Modifier &M : Mods)
    if (M.Kind == Modifier::MK_Type)
      return M.Type;
  return ScalarType::None;
}

StateSpace Instruction::space() const {
  for (const Modifier &M : Mods)
    if (M.Kind == Modifier::MK_Space)
      return M.Space;
  return StateSpace::None;
}

unsigned Instruction::vectorWidth() const {
  for (const Modifier &M : Mods)
    if (M.Kind == Modifier::MK_Vector)
      return M.VectorWidth;
  return 0;
}

bool Instruction::has(std::string_view ModText) const {
  return std::any_of(Mods.begin(), Mods.end(), [&](const Modifier &M) {
    return M.Kind == Modifier::MK_Other && M.Text == ModText;
  });
}

uint64_t VarDecl::elementSize() const {
  uint64_t Bytes = std::max<uint64_t>(1, bitWidth(Type) / 8);
  return Bytes * std::max<uint64_t>(1, VectorWidth);
}

const Function *Module::findFunction(std::string_view Name) const {
  const Function *Found = nullptr;
  for (const TopLevel &T : Items)
    if (T.Kind == TopLevel::TK_Function && T.Func.Name == Name) {
      // Prefer a definition over an earlier declaration.
      if (!Found || T.Func.HasBody)
        Found = &T.Func;
    }
  return Found;
}

std::vector<const Function *> Module::entries() const {
  std::vector<const Function *> R;
  for (const TopLevel &T : Items)
    if (T.Kind == TopLevel::TK_Function && T.Func.IsEntry && T.Func.HasBody)
      R.push_back(&T.Func);
  return R;
}

} // namespace zluda::ptx
