//===- Printer.cpp - PTX IR to text ----------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Canonical PTX output: hex floats, decimal integers, one declaration
/// per name. parse(print(M)) == M for every module the parser produces.
#include "ptx/Printer.h"

#include <cstdio>

namespace zluda::ptx {
namespace {

void appendInt(std::string &Out, int64_t V) { Out += std::to_string(V); }

void appendFloat(std::string &Out, uint64_t Bits, bool IsDouble) {
  char Buf[32];
  if (IsDouble)
    std::snprintf(Buf, sizeof Buf, "0d%016llX", static_cast<unsigned long long>(Bits));
  else
    std::snprintf(Buf, sizeof Buf, "0f%08X", static_cast<unsigned>(Bits & 0xffffffffu));
  Out += Buf;
}

void appendOffset(std::string &Out, int64_t Off) {
  if (Off == 0)
    return;
  Out += '+';
  appendInt(Out, Off);
}

void printOperand(std::string &Out, const Operand &O) {
  switch (O.Kind) {
  case Operand::OK_Name:
    if (O.Not)
      Out += '!';
    if (O.Neg)
      Out += '-';
    Out += O.Name;
    if (O.Component) {
      Out += '.';
      Out += O.Component;
    }
    if (!O.Sel.empty()) {
      Out += '.';
      Out += O.Sel;
    }
    if (!O.Pair.empty()) {
      Out += '|';
      Out += O.Pair;
    }
    appendOffset(Out, O.Int);
    return;
  case Operand::OK_Int:
    appendInt(Out, O.Int);
    return;
  case Operand::OK_Float:
    appendFloat(Out, O.FloatBits, O.IsDouble);
    return;
  case Operand::OK_Address:
    Out += '[';
    if (O.Name.empty())
      appendInt(Out, O.Int);
    else {
      Out += O.Name;
      appendOffset(Out, O.Int);
    }
    Out += ']';
    return;
  case Operand::OK_Sink:
    Out += '_';
    return;
  case Operand::OK_Vector:
  case Operand::OK_Bracket:
  case Operand::OK_Paren: {
    const char *Delims = O.Kind == Operand::OK_Vector    ? "{}"
                         : O.Kind == Operand::OK_Bracket ? "[]"
                                                         : "()";
    Out += Delims[0];
    for (size_t I = 0; I < O.Elems.size(); ++I) {
      if (I)
        Out += ", ";
      printOperand(Out, O.Elems[I]);
    }
    Out += Delims[1];
    return;
  }
  }
}

void printInstruction(std::string &Out, const Instruction &In) {
  if (In.Pred) {
    Out += '@';
    if (In.Pred->Negated)
      Out += '!';
    Out += In.Pred->Pred;
    Out += ' ';
  }
  Out += spelling(In.Op);
  for (const Modifier &M : In.Mods) {
    switch (M.Kind) {
    case Modifier::MK_Type:
      Out += spelling(M.Type);
      break;
    case Modifier::MK_Space:
      Out += spelling(M.Space);
      break;
    case Modifier::MK_Vector:
      Out += ".v";
      Out += static_cast<char>('0' + M.VectorWidth);
      break;
    case Modifier::MK_Other:
      Out += M.Text;
      break;
    }
  }
  for (size_t I = 0; I < In.Ops.size(); ++I) {
    Out += I ? ", " : " ";
    printOperand(Out, In.Ops[I]);
  }
  Out += ';';
}

void printInit(std::string &Out, const Initializer &In) {
  switch (In.Kind) {
  case Initializer::IK_Int:
    appendInt(Out, In.Int);
    return;
  case Initializer::IK_Float:
    appendFloat(Out, In.FloatBits, In.IsDouble);
    return;
  case Initializer::IK_Symbol:
    Out += In.Symbol;
    appendOffset(Out, In.Int);
    return;
  case Initializer::IK_Generic:
    Out += "generic(";
    Out += In.Symbol;
    Out += ')';
    appendOffset(Out, In.Int);
    return;
  case Initializer::IK_List:
    Out += '{';
    for (size_t I = 0; I < In.Elems.size(); ++I) {
      if (I)
        Out += ", ";
      printInit(Out, In.Elems[I]);
    }
    Out += '}';
    return;
  }
}

/// The declaration without a terminating ';'.
void printDecl(std::string &Out, const VarDecl &V) {
  if (V.Link != Linkage::None) {
    Out += spelling(V.Link);
    Out += ' ';
  }
  Out += spelling(V.Space);
  if (!V.Attributes.empty()) {
    Out += " .attribute(";
    for (size_t I = 0; I < V.Attributes.size(); ++I) {
      if (I)
        Out += ", ";
      Out += V.Attributes[I];
    }
    Out += ')';
  }
  if (V.Align) {
    Out += " .align ";
    Out += std::to_string(V.Align);
  }
  if (V.VectorWidth) {
    Out += " .v";
    Out += static_cast<char>('0' + V.VectorWidth);
  }
  Out += ' ';
  Out += spelling(V.Type);
  if (V.IsPtr) {
    Out += " .ptr";
    if (V.PtrSpace != StateSpace::None) {
      Out += ' ';
      Out += spelling(V.PtrSpace);
    }
    if (V.PtrAlign) {
      Out += " .align ";
      Out += std::to_string(V.PtrAlign);
    }
  }
  Out += ' ';
  Out += V.Name;
  if (V.RangeCount) {
    Out += '<';
    Out += std::to_string(*V.RangeCount);
    Out += '>';
  }
  for (uint64_t D : V.Dims) {
    Out += '[';
    if (D)
      Out += std::to_string(D);
    Out += ']';
  }
  if (V.Init) {
    Out += " = ";
    printInit(Out, *V.Init);
  }
}

void printParams(std::string &Out, const std::vector<VarDecl> &Ps, bool Multiline) {
  Out += '(';
  for (size_t I = 0; I < Ps.size(); ++I) {
    if (I)
      Out += ',';
    if (Multiline)
      Out += "\n\t";
    else if (I)
      Out += ' ';
    printDecl(Out, Ps[I]);
  }
  if (Multiline && !Ps.empty())
    Out += '\n';
  Out += ')';
}

void printStatement(std::string &Out, const Statement &S, unsigned &Indent) {
  auto indent = [&] { Out.append(Indent, '\t'); };
  switch (S.Kind) {
  case Statement::SK_Instruction:
    indent();
    printInstruction(Out, S.Inst);
    break;
  case Statement::SK_Decl:
    indent();
    printDecl(Out, S.Decl);
    Out += ';';
    break;
  case Statement::SK_Label:
    Out += S.Label;
    Out += ':';
    break;
  case Statement::SK_BlockBegin:
    indent();
    Out += '{';
    ++Indent;
    break;
  case Statement::SK_BlockEnd:
    if (Indent > 1)
      --Indent;
    indent();
    Out += '}';
    break;
  case Statement::SK_Loc:
    indent();
    Out += ".loc\t";
    Out += S.Text;
    break;
  case Statement::SK_Pragma:
    indent();
    Out += ".pragma ";
    Out += S.Text;
    Out += ';';
    break;
  case Statement::SK_Prototype:
    Out += S.Label;
    Out += ": .callprototype ";
    if (!S.ProtoReturns.empty()) {
      printParams(Out, S.ProtoReturns, false);
      Out += ' ';
    }
    Out += "_ ";
    printParams(Out, S.ProtoParams, false);
    if (!S.Text.empty()) {
      Out += ' ';
      Out += S.Text;
    }
    Out += ';';
    break;
  case Statement::SK_BranchTargets:
  case Statement::SK_CallTargets:
    Out += S.Label;
    Out += S.Kind == Statement::SK_BranchTargets ? ": .branchtargets " : ": .calltargets ";
    for (size_t I = 0; I < S.Targets.size(); ++I) {
      if (I)
        Out += ", ";
      Out += S.Targets[I];
    }
    Out += ';';
    break;
  }
  Out += '\n';
}

void printFunction(std::string &Out, const Function &F) {
  if (F.Link != Linkage::None) {
    Out += spelling(F.Link);
    Out += ' ';
  }
  Out += F.IsEntry ? ".entry " : ".func ";
  if (!F.IsEntry && !F.Returns.empty()) {
    printParams(Out, F.Returns, false);
    Out += ' ';
  }
  Out += F.Name;
  printParams(Out, F.Params, true);
  for (const PerfDirective &P : F.Perf) {
    Out += "\n";
    Out += P.Name;
    for (size_t I = 0; I < P.Values.size(); ++I) {
      Out += I ? ", " : " ";
      Out += std::to_string(P.Values[I]);
    }
  }
  if (!F.HasBody) {
    Out += ";\n";
    return;
  }
  Out += "\n{\n";
  unsigned Indent = 1;
  for (const Statement &S : F.Body)
    printStatement(Out, S, Indent);
  Out += "}\n";
}

} // namespace

std::string print(const Operand &O) {
  std::string Out;
  printOperand(Out, O);
  return Out;
}

std::string print(const Instruction &I) {
  std::string Out;
  printInstruction(Out, I);
  return Out;
}

std::string print(const Module &M) {
  std::string Out;
  Out.reserve(4096);
  Out += ".version ";
  Out += std::to_string(M.VersionMajor);
  Out += '.';
  Out += std::to_string(M.VersionMinor);
  Out += '\n';
  if (!M.Targets.empty()) {
    Out += ".target ";
    for (size_t I = 0; I < M.Targets.size(); ++I) {
      if (I)
        Out += ", ";
      Out += M.Targets[I];
    }
    Out += '\n';
  }
  if (M.HasAddressSize) {
    Out += ".address_size ";
    Out += std::to_string(M.AddressSize);
    Out += '\n';
  }
  for (const TopLevel &T : M.Items) {
    Out += '\n';
    switch (T.Kind) {
    case TopLevel::TK_Var:
      printDecl(Out, T.Var);
      Out += ";\n";
      break;
    case TopLevel::TK_Function:
      printFunction(Out, T.Func);
      break;
    case TopLevel::TK_File:
      Out += ".file ";
      Out += std::to_string(T.FileIndex);
      Out += ' ';
      Out += T.Text;
      if (!T.Extra.empty()) {
        Out += T.Extra[0] == ',' ? "" : " ";
        Out += T.Extra;
      }
      Out += '\n';
      break;
    case TopLevel::TK_Section:
      Out += ".section ";
      Out += T.Name;
      Out += "\n{\n";
      Out += T.Text;
      Out += "\n}\n";
      break;
    case TopLevel::TK_Pragma:
      Out += ".pragma ";
      Out += T.Text;
      Out += ";\n";
      break;
    case TopLevel::TK_Alias:
      Out += ".alias ";
      Out += T.Name;
      Out += ", ";
      Out += T.Text;
      Out += ";\n";
      break;
    }
  }
  return Out;
}

} // namespace zluda::ptx
