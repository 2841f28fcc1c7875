//===- IR.cpp - PTX IR tables and helpers ----------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Spelling and lookup tables generated from the .def files.
#include "ptx/ir/IR.h"

#include <algorithm>
#include <cctype>
#include <map>
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

namespace {
/// Renames the names \p Resolve maps (scope-aware) in an operand and its elements.
template <typename F> void renameOperand(Operand &O, const F &Resolve) {
  if ((O.Kind == Operand::OK_Name || O.Kind == Operand::OK_Address) && !O.Name.empty())
    if (const std::string *To = Resolve(O.Name))
      O.Name = *To;
  for (Operand &E : O.Elems)
    renameOperand(E, Resolve);
}
} // namespace

void Module::hoistFunctionVariables() {
  std::vector<TopLevel> Out;
  Out.reserve(Items.size());
  for (TopLevel &T : Items) {
    if (T.Kind != TopLevel::TK_Function || !T.Func.HasBody) {
      Out.push_back(std::move(T));
      continue;
    }
    Function &F = T.Func;
    bool Any = std::any_of(F.Body.begin(), F.Body.end(), [](const Statement &S) {
      return S.Kind == Statement::SK_Decl && (S.Decl.Space == StateSpace::Global || S.Decl.Space == StateSpace::Const);
    });
    if (!Any) {
      Out.push_back(std::move(T));
      continue;
    }
    // Each block's declarations: name -> the hoisted name, or "" for a declaration that stays (it shadows).
    std::vector<std::map<std::string, std::string>> Scopes(1);
    auto resolve = [&](const std::string &Name) -> const std::string * {
      for (size_t I = Scopes.size(); I-- > 0;)
        if (auto It = Scopes[I].find(Name); It != Scopes[I].end())
          return It->second.empty() ? nullptr : &It->second;
      return nullptr;
    };
    std::vector<Statement> Body;
    unsigned N = 0;
    for (Statement &S : F.Body) {
      switch (S.Kind) {
      case Statement::SK_BlockBegin:
        Scopes.emplace_back();
        break;
      case Statement::SK_BlockEnd:
        if (Scopes.size() > 1)
          Scopes.pop_back();
        break;
      case Statement::SK_Decl:
        if (S.Decl.Space == StateSpace::Global || S.Decl.Space == StateSpace::Const) {
          TopLevel V;
          V.Kind = TopLevel::TK_Var;
          V.Var = std::move(S.Decl);
          V.Loc = S.Loc;
          // A PTX identifier takes '%' only as its first character: keep the rest of the name readable.
          std::string Hoisted = "__zluda$" + F.Name + "$" + V.Var.Name + "$" + std::to_string(N++);
          std::replace_if(
              Hoisted.begin(), Hoisted.end(),
              [](char C) { return !std::isalnum(static_cast<unsigned char>(C)) && C != '_' && C != '$'; }, '_');
          Scopes.back()[V.Var.Name] = Hoisted;
          V.Var.Name = Hoisted;
          V.Var.Link = Linkage::None;
          Out.push_back(std::move(V));
          continue; // the declaration now lives at module scope
        }
        if (!S.Decl.RangeCount)
          Scopes.back()[S.Decl.Name] = "";
        break;
      case Statement::SK_Instruction:
        for (Operand &O : S.Inst.Ops)
          renameOperand(O, resolve);
        break;
      default:
        break;
      }
      Body.push_back(std::move(S));
    }
    F.Body = std::move(Body);
    Out.push_back(std::move(T));
  }
  Items = std::move(Out);
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
