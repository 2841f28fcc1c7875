//===- Parser.cpp - PTX parser ---------------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Recursive-descent PTX parser. Grammar follows PTX ISA 9.0 chapters 4
/// (syntax), 5 (state spaces, types, variables), 10 (directives) and 11
/// (https://docs.nvidia.com/cuda/parallel-thread-execution/).
///
/// Errors are raised internally as ParseFail and turned into a Diagnostic in
/// parse(); nothing escapes the noexcept entry point. Nesting depth is bounded
/// so that hostile input cannot exhaust the stack.
#include "ptx/Parser.h"

#include "ptx/Lexer.h"

#include <charconv>
#include <cstring>
#include <limits>

namespace zluda::ptx {

std::string Diagnostic::format(std::string_view File) const {
  std::string R(File);
  R += ':';
  R += std::to_string(Line);
  R += ':';
  R += std::to_string(Col);
  R += ": error: ";
  R += Message;
  return R;
}

namespace {

constexpr unsigned MaxDepth = 64;

struct ParseFail {
  Diagnostic D;
};

std::string describe(const Token &T) {
  if (T.Kind == TokKind::Eof)
    return "end of file";
  std::string R = "'";
  R += T.Text.substr(0, 40);
  R += '\'';
  return R;
}

class Parser {
public:
  Parser(std::string_view Src, const std::vector<Token> &Toks) : Src(Src), T(Toks) {}

  Module parseModule() {
    Module M;
    while (!at(TokKind::Eof))
      parseTopLevel(M);
    M.hoistFunctionVariables();
    return M;
  }

private:
  std::string_view Src;
  const std::vector<Token> &T;
  size_t I = 0;

  const Token &cur() const { return T[I]; }
  const Token &peekTok(size_t K = 1) const { return T[std::min(I + K, T.size() - 1)]; }
  bool at(TokKind K) const { return cur().Kind == K; }
  bool atPunct(char C) const { return cur().is(C); }
  bool atDot(std::string_view S) const { return cur().isDot(S); }
  const Token &take() {
    const Token &R = T[I];
    if (I + 1 < T.size())
      ++I;
    return R;
  }
  static SourceLoc locOf(const Token &Tk) { return SourceLoc{Tk.Line, Tk.Col}; }

  [[noreturn]] void failAt(const Token &Tk, std::string Msg) {
    throw ParseFail{Diagnostic{Tk.Line, Tk.Col, std::move(Msg)}};
  }
  [[noreturn]] void expected(std::string_view What) {
    failAt(cur(), "expected " + std::string(What) + ", found " + describe(cur()));
  }
  void expectPunct(char C, std::string_view Context) {
    if (!atPunct(C))
      expected(std::string("'") + C + "' " + std::string(Context));
    take();
  }
  bool acceptPunct(char C) {
    if (!atPunct(C))
      return false;
    take();
    return true;
  }

  std::string takeIdent(std::string_view What) {
    if (!at(TokKind::Ident))
      expected(What);
    return std::string(take().Text);
  }

  // --- literals -----------------------------------------------------------

  /// Integer literal text -> 64-bit value (PTX ISA 4.5.1); rejects overflow.
  int64_t intValue(const Token &Tk) {
    std::string_view S = Tk.Text;
    if (!S.empty() && (S.back() == 'U'))
      S.remove_suffix(1);
    int Base = 10;
    if (S.size() > 1 && S[0] == '0' && (S[1] == 'x' || S[1] == 'X')) {
      Base = 16;
      S.remove_prefix(2);
    } else if (S.size() > 1 && S[0] == '0' && (S[1] == 'b' || S[1] == 'B')) {
      Base = 2;
      S.remove_prefix(2);
    } else if (S.size() > 1 && S[0] == '0') {
      Base = 8;
      S.remove_prefix(1);
    }
    uint64_t V = 0;
    auto [Ptr, Ec] = std::from_chars(S.data(), S.data() + S.size(), V, Base);
    if (Ec == std::errc::result_out_of_range)
      failAt(Tk, "integer literal " + describe(Tk) + " does not fit in 64 bits");
    if (Ec != std::errc() || Ptr != S.data() + S.size())
      failAt(Tk, "malformed integer literal " + describe(Tk));
    return static_cast<int64_t>(V);
  }

  uint64_t hexBits(const Token &Tk) {
    uint64_t V = 0;
    std::string_view S = Tk.Text.substr(2);
    std::from_chars(S.data(), S.data() + S.size(), V, 16);
    return V;
  }

  uint64_t decimalFloatBits(const Token &Tk) {
    double D = 0;
    auto [Ptr, Ec] = std::from_chars(Tk.Text.data(), Tk.Text.data() + Tk.Text.size(), D);
    if (Ec == std::errc::invalid_argument)
      failAt(Tk, "malformed floating-point literal " + describe(Tk));
    uint64_t Bits;
    std::memcpy(&Bits, &D, 8);
    return Bits;
  }

  uint64_t unsignedValue(std::string_view What) {
    if (!at(TokKind::Int))
      expected(What);
    return static_cast<uint64_t>(intValue(take()));
  }

  uint32_t smallUnsigned(std::string_view What) {
    const Token &Tk = cur();
    uint64_t V = unsignedValue(What);
    if (V > std::numeric_limits<uint32_t>::max())
      failAt(Tk, std::string(What) + " is too large");
    return static_cast<uint32_t>(V);
  }

  /// Raw source text of the tokens on the current line (for .loc / .file).
  std::string restOfLine() {
    if (at(TokKind::Eof) || cur().NewlineBefore)
      return {};
    size_t Start = cur().Offset, End = Start;
    while (!at(TokKind::Eof) && !cur().NewlineBefore) {
      End = cur().Offset + cur().Text.size();
      take();
    }
    return std::string(Src.substr(Start, End - Start));
  }

  /// Raw text from the current token up to (excluding) the next ';'.
  std::string untilSemicolon(std::string_view Context) {
    size_t Start = cur().Offset, End = Start;
    while (!atPunct(';')) {
      if (at(TokKind::Eof))
        expected(std::string("';' ") + std::string(Context));
      End = cur().Offset + cur().Text.size();
      take();
    }
    take();
    return std::string(Src.substr(Start, End - Start));
  }

  // --- module level -------------------------------------------------------

  void parseTopLevel(Module &M) {
    const Token &Tk = cur();
    if (Tk.Kind != TokKind::Dot)
      failAt(Tk, "expected a directive at module scope, found " + describe(Tk));
    std::string_view D = Tk.Text;
    if (D == ".version") {
      take();
      const Token &V = cur();
      if (V.Kind != TokKind::Float && V.Kind != TokKind::Int)
        expected("version number after .version");
      take();
      auto Dot = V.Text.find('.');
      std::string_view Maj = V.Text.substr(0, Dot);
      std::string_view Min = Dot == std::string_view::npos ? "0" : V.Text.substr(Dot + 1);
      auto P1 = std::from_chars(Maj.data(), Maj.data() + Maj.size(), M.VersionMajor);
      auto P2 = std::from_chars(Min.data(), Min.data() + Min.size(), M.VersionMinor);
      if (P1.ec != std::errc() || P2.ec != std::errc() || P1.ptr != Maj.data() + Maj.size() ||
          P2.ptr != Min.data() + Min.size())
        failAt(V, "malformed PTX version " + describe(V));
      // CUDA 13's compiler reads PTX ISA up to 9.x; NVIDIA's driver refuses newer modules.
      if (M.VersionMajor > 9)
        failAt(V, "PTX ISA version " + std::string(V.Text) + " is not supported (this compiler reads up to 9.x)");
      return;
    }
    if (D == ".target") {
      take();
      do {
        M.Targets.push_back(takeIdent("target name after .target"));
      } while (acceptPunct(','));
      return;
    }
    if (D == ".address_size") {
      take();
      const Token &V = cur();
      M.AddressSize = smallUnsigned("address size");
      if (M.AddressSize != 32 && M.AddressSize != 64)
        failAt(V, "address size must be 32 or 64");
      M.HasAddressSize = true;
      return;
    }
    TopLevel Item;
    Item.Loc = locOf(Tk);
    if (D == ".file") {
      take();
      Item.Kind = TopLevel::TK_File;
      Item.FileIndex = smallUnsigned("file index after .file");
      if (!at(TokKind::String))
        expected("file name string");
      Item.Text = std::string(take().Text);
      Item.Extra = restOfLine();
      M.Items.push_back(std::move(Item));
      return;
    }
    if (D == ".section") {
      take();
      Item.Kind = TopLevel::TK_Section;
      if (!at(TokKind::Dot) && !at(TokKind::Ident))
        expected("section name");
      Item.Name = std::string(take().Text);
      if (!atPunct('{'))
        expected("'{' after section name");
      const Token &Open = take();
      unsigned Depth = 1;
      size_t Start = Open.Offset + 1, End = Start;
      while (true) {
        if (at(TokKind::Eof))
          failAt(Open, "unterminated .section block");
        if (atPunct('{'))
          ++Depth;
        if (atPunct('}') && --Depth == 0) {
          End = cur().Offset;
          take();
          break;
        }
        take();
      }
      Item.Text = trim(Src.substr(Start, End - Start));
      M.Items.push_back(std::move(Item));
      return;
    }
    if (D == ".pragma") {
      take();
      Item.Kind = TopLevel::TK_Pragma;
      Item.Text = untilSemicolon("after .pragma");
      M.Items.push_back(std::move(Item));
      return;
    }
    if (D == ".alias") {
      take();
      Item.Kind = TopLevel::TK_Alias;
      Item.Name = takeIdent("alias name");
      expectPunct(',', "in .alias");
      Item.Text = takeIdent("aliased function name");
      expectPunct(';', "after .alias");
      M.Items.push_back(std::move(Item));
      return;
    }
    Linkage Link = Linkage::None;
    if (D == ".extern" || D == ".visible" || D == ".weak" || D == ".common") {
      Link = D == ".extern"    ? Linkage::Extern
             : D == ".visible" ? Linkage::Visible
             : D == ".weak"    ? Linkage::Weak
                               : Linkage::Common;
      take();
    }
    if (atDot(".entry") || atDot(".func")) {
      Item.Kind = TopLevel::TK_Function;
      Item.Func = parseFunction(Link);
      M.Items.push_back(std::move(Item));
      return;
    }
    if (at(TokKind::Dot) && lookupSpace(cur().Text)) {
      for (VarDecl &V : parseVarDecls(Link, /*AllowInit=*/true)) {
        TopLevel VI;
        VI.Kind = TopLevel::TK_Var;
        VI.Loc = V.Loc;
        VI.Var = std::move(V);
        M.Items.push_back(std::move(VI));
      }
      return;
    }
    failAt(cur(), "unknown or misplaced directive " + describe(cur()));
  }

  static std::string trim(std::string_view S) {
    size_t B = 0, E = S.size();
    while (B < E && (S[B] == ' ' || S[B] == '\t' || S[B] == '\n' || S[B] == '\r'))
      ++B;
    while (E > B && (S[E - 1] == ' ' || S[E - 1] == '\t' || S[E - 1] == '\n' || S[E - 1] == '\r'))
      --E;
    return std::string(S.substr(B, E - B));
  }

  // --- declarations -------------------------------------------------------

  /// Parses "<space> [attrs] <type> [.ptr ...]" into \p V (the part before names).
  void parseDeclHead(VarDecl &V) {
    const Token &SpTok = cur();
    auto Sp = at(TokKind::Dot) ? lookupSpace(cur().Text) : std::nullopt;
    if (!Sp)
      expected("state space (.reg, .global, .shared, .param ...)");
    take();
    V.Space = *Sp;
    V.Loc = locOf(SpTok);
    while (true) {
      if (atDot(".align")) {
        take();
        V.Align = smallUnsigned("alignment after .align");
        if (V.Align == 0 || (V.Align & (V.Align - 1)))
          failAt(T[I - 1], "alignment must be a power of two");
        continue;
      }
      if (atDot(".attribute")) {
        take();
        expectPunct('(', "after .attribute");
        do {
          if (!at(TokKind::Dot))
            expected("attribute such as .managed");
          V.Attributes.emplace_back(take().Text);
          if (atPunct('(')) // .unified(uuid1, uuid2)
            V.Attributes.back() += "(" + untilParen() + ")";
        } while (acceptPunct(','));
        expectPunct(')', "closing .attribute");
        continue;
      }
      if (atDot(".v2") || atDot(".v4") || atDot(".v8")) {
        V.VectorWidth = static_cast<uint8_t>(cur().Text[2] - '0');
        take();
        continue;
      }
      break;
    }
    auto Ty = at(TokKind::Dot) ? lookupType(cur().Text) : std::nullopt;
    if (!Ty)
      expected("type (.b32, .u64, .f32, .pred ...)");
    take();
    V.Type = *Ty;
    while (true) {
      if (atDot(".ptr")) {
        take();
        V.IsPtr = true;
        continue;
      }
      if (V.IsPtr && atDot(".align")) {
        take();
        V.PtrAlign = smallUnsigned("alignment after .ptr .align");
        continue;
      }
      if (V.IsPtr && at(TokKind::Dot) && lookupSpace(cur().Text)) {
        V.PtrSpace = *lookupSpace(take().Text);
        continue;
      }
      break;
    }
  }

  /// Raw text of a parenthesized group (the '(' is current); consumes ')'.
  std::string untilParen() {
    const Token &Open = take();
    size_t Start = cur().Offset, End = Start;
    unsigned Depth = 1;
    while (true) {
      if (at(TokKind::Eof))
        failAt(Open, "unbalanced '('");
      if (atPunct('('))
        ++Depth;
      if (atPunct(')') && --Depth == 0) {
        End = cur().Offset;
        take();
        break;
      }
      take();
    }
    return trim(Src.substr(Start, End - Start));
  }

  /// Parses the name part of a declaration: name[<N>][dims][= init].
  void parseDeclName(VarDecl &V, bool AllowInit) {
    const Token &NameTok = cur();
    V.Name = takeIdent("variable name");
    V.Loc = locOf(NameTok);
    if (atPunct('<')) {
      take();
      V.RangeCount = smallUnsigned("register count");
      expectPunct('>', "closing register range");
    }
    while (atPunct('[')) {
      take();
      if (atPunct(']')) {
        V.Dims.push_back(0);
      } else {
        uint64_t N = unsignedValue("array size");
        if (N == 0)
          failAt(T[I - 1], "array size must be positive");
        V.Dims.push_back(N);
      }
      expectPunct(']', "closing array size");
    }
    if (atPunct('=')) {
      if (!AllowInit)
        failAt(cur(), "initializer not allowed here");
      take();
      V.Init = parseInitializer(0);
    }
  }

  std::vector<VarDecl> parseVarDecls(Linkage Link, bool AllowInit) {
    VarDecl Head;
    Head.Link = Link;
    parseDeclHead(Head);
    std::vector<VarDecl> Out;
    do {
      VarDecl V = Head;
      parseDeclName(V, AllowInit);
      Out.push_back(std::move(V));
    } while (acceptPunct(','));
    expectPunct(';', "after declaration");
    return Out;
  }

  Initializer parseInitializer(unsigned Depth) {
    if (Depth > MaxDepth)
      failAt(cur(), "initializer nested too deeply");
    Initializer In;
    if (atPunct('{')) {
      take();
      In.Kind = Initializer::IK_List;
      if (!atPunct('}')) {
        do {
          In.Elems.push_back(parseInitializer(Depth + 1));
        } while (acceptPunct(','));
      }
      expectPunct('}', "closing initializer list");
      return In;
    }
    bool Neg = acceptPunct('-');
    const Token &Tk = cur();
    switch (Tk.Kind) {
    case TokKind::Int:
      In.Kind = Initializer::IK_Int;
      In.Int = intValue(take());
      if (Neg)
        In.Int = static_cast<int64_t>(0ull - static_cast<uint64_t>(In.Int));
      return In;
    case TokKind::Float:
    case TokKind::HexF32:
    case TokKind::HexF64:
      In.Kind = Initializer::IK_Float;
      In.IsDouble = Tk.Kind != TokKind::HexF32;
      In.FloatBits = Tk.Kind == TokKind::Float ? decimalFloatBits(Tk) : hexBits(Tk);
      take();
      if (Neg)
        In.FloatBits ^= In.IsDouble ? (1ull << 63) : (1ull << 31);
      return In;
    case TokKind::Ident:
      if (Neg)
        failAt(Tk, "cannot negate a symbol in an initializer");
      if (Tk.Text == "generic" && peekTok().is('(')) {
        take();
        take();
        In.Kind = Initializer::IK_Generic;
        In.Symbol = takeIdent("symbol inside generic()");
        expectPunct(')', "closing generic(");
      } else {
        In.Kind = Initializer::IK_Symbol;
        In.Symbol = std::string(take().Text);
      }
      if (atPunct('+')) {
        take();
        bool NegOff = acceptPunct('-');
        if (!at(TokKind::Int))
          expected("offset after '+'");
        In.Int = intValue(take());
        if (NegOff)
          In.Int = -In.Int;
      }
      return In;
    default:
      expected("initializer value");
    }
  }

  // --- functions ----------------------------------------------------------

  VarDecl parseParam() {
    VarDecl V;
    const Token &SpTok = cur();
    parseDeclHead(V);
    if (V.Space != StateSpace::Param && V.Space != StateSpace::Reg)
      failAt(SpTok, "parameters must be in .param or .reg, found " + describe(SpTok));
    parseDeclName(V, /*AllowInit=*/false);
    return V;
  }

  std::vector<VarDecl> parseParamList() {
    std::vector<VarDecl> Ps;
    expectPunct('(', "opening parameter list");
    if (!atPunct(')')) {
      do {
        Ps.push_back(parseParam());
      } while (acceptPunct(','));
    }
    expectPunct(')', "closing parameter list");
    return Ps;
  }

  Function parseFunction(Linkage Link) {
    Function F;
    F.Link = Link;
    F.IsEntry = atDot(".entry");
    F.Loc = locOf(cur());
    take();
    if (!F.IsEntry && atPunct('('))
      F.Returns = parseParamList();
    F.Name = takeIdent("function name");
    if (atPunct('('))
      F.Params = parseParamList();
    static constexpr std::string_view Perf[] = {
        ".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm", ".maxnreg", ".noreturn",
        ".explicitcluster", ".reqnctapercluster", ".maxclusterrank", ".blocksareclusters"};
    while (at(TokKind::Dot)) {
      bool Known = false;
      for (std::string_view P : Perf)
        Known |= cur().Text == P;
      if (!Known)
        failAt(cur(), "unknown function directive " + describe(cur()));
      PerfDirective PD;
      PD.Name = std::string(take().Text);
      if (at(TokKind::Int)) {
        do {
          PD.Values.push_back(unsignedValue("directive value"));
        } while (acceptPunct(','));
      }
      F.Perf.push_back(std::move(PD));
    }
    if (acceptPunct(';'))
      return F;
    if (!atPunct('{'))
      expected("'{' or ';' after function header");
    take();
    F.HasBody = true;
    parseBody(F.Body);
    return F;
  }

  void parseBody(std::vector<Statement> &Body) {
    unsigned Depth = 0;
    while (true) {
      const Token &Tk = cur();
      Statement S;
      S.Loc = locOf(Tk);
      if (Tk.Kind == TokKind::Eof)
        failAt(Tk, "unexpected end of file inside function body");
      if (Tk.is('}')) {
        take();
        if (Depth == 0)
          return;
        --Depth;
        S.Kind = Statement::SK_BlockEnd;
        Body.push_back(std::move(S));
        continue;
      }
      if (Tk.is('{')) {
        take();
        if (++Depth > MaxDepth)
          failAt(Tk, "blocks nested too deeply");
        S.Kind = Statement::SK_BlockBegin;
        Body.push_back(std::move(S));
        continue;
      }
      if (Tk.Kind == TokKind::Dot) {
        if (Tk.Text == ".loc") {
          take();
          S.Kind = Statement::SK_Loc;
          S.Text = restOfLine();
          Body.push_back(std::move(S));
          continue;
        }
        if (Tk.Text == ".pragma") {
          take();
          S.Kind = Statement::SK_Pragma;
          S.Text = untilSemicolon("after .pragma");
          Body.push_back(std::move(S));
          continue;
        }
        if (lookupSpace(Tk.Text)) {
          for (VarDecl &V : parseVarDecls(Linkage::None, /*AllowInit=*/true)) {
            Statement D;
            D.Kind = Statement::SK_Decl;
            D.Loc = V.Loc;
            D.Decl = std::move(V);
            Body.push_back(std::move(D));
          }
          continue;
        }
        failAt(Tk, "unexpected directive " + describe(Tk) + " in function body");
      }
      if (Tk.Kind == TokKind::Ident && peekTok().is(':')) {
        S.Label = std::string(take().Text);
        take();
        if (atDot(".callprototype")) {
          take();
          S.Kind = Statement::SK_Prototype;
          if (atPunct('('))
            S.ProtoReturns = parseParamList();
          if (!at(TokKind::Ident) || cur().Text != "_")
            expected("'_' in .callprototype");
          take();
          S.ProtoParams = parseParamList();
          while (atDot(".noreturn"))
            take(), S.Text = ".noreturn";
          expectPunct(';', "after .callprototype");
        } else if (atDot(".branchtargets") || atDot(".calltargets")) {
          S.Kind = cur().Text == ".branchtargets" ? Statement::SK_BranchTargets
                                                  : Statement::SK_CallTargets;
          take();
          do {
            S.Targets.push_back(takeIdent("target label"));
          } while (acceptPunct(','));
          expectPunct(';', "after target list");
        } else {
          S.Kind = Statement::SK_Label;
        }
        Body.push_back(std::move(S));
        continue;
      }
      S.Kind = Statement::SK_Instruction;
      S.Inst = parseInstruction();
      Body.push_back(std::move(S));
    }
  }

  // --- instructions -------------------------------------------------------

  Instruction parseInstruction() {
    Instruction In;
    In.Loc = locOf(cur());
    if (acceptPunct('@')) {
      Guard G;
      G.Negated = acceptPunct('!');
      G.Pred = takeIdent("predicate after '@'");
      In.Pred = std::move(G);
    }
    const Token &OpTok = cur();
    if (!at(TokKind::Ident))
      expected("instruction");
    auto Op = lookupOpcode(OpTok.Text);
    if (!Op)
      failAt(OpTok, "unknown instruction " + describe(OpTok));
    take();
    In.Op = *Op;
    while (at(TokKind::Dot) && !cur().SpaceBefore) {
      std::string_view M = take().Text;
      Modifier Md;
      if (auto Ty = lookupType(M)) {
        Md.Kind = Modifier::MK_Type;
        Md.Type = *Ty;
      } else if (auto Sp = lookupSpace(M); Sp && *Sp != StateSpace::Reg) {
        Md.Kind = Modifier::MK_Space;
        Md.Space = *Sp;
      } else if (M == ".v2" || M == ".v4" || M == ".v8") {
        Md.Kind = Modifier::MK_Vector;
        Md.VectorWidth = static_cast<uint8_t>(M[2] - '0');
      } else {
        Md.Text = std::string(M);
      }
      In.Mods.push_back(std::move(Md));
    }
    if (!atPunct(';')) {
      do {
        In.Ops.push_back(parseOperand(0));
      } while (acceptPunct(','));
    }
    if (!atPunct(';'))
      expected("',' or ';' after operand");
    take();
    int N = static_cast<int>(In.Ops.size());
    int Min = minOperands(In.Op), Max = maxOperands(In.Op);
    if (N < Min || (Max >= 0 && N > Max)) {
      std::string Range = Min == Max ? std::to_string(Min)
                          : Max < 0  ? "at least " + std::to_string(Min)
                                     : std::to_string(Min) + " to " + std::to_string(Max);
      failAt(OpTok, "'" + std::string(spelling(In.Op)) + "' takes " + Range + " operands, found " +
                        std::to_string(N));
    }
    return In;
  }

  static bool isComponent(std::string_view S) {
    return S.size() == 2 && std::string_view("xyzwrgba").find(S[1]) != std::string_view::npos;
  }

  /// The video instructions' operand selectors: .b0-.b3 and .h0/.h1 (scalar),
  /// .hxy (x, y in 0-3) and .bxyzw (each in 0-7) for the SIMD forms, and the
  /// SIMD masks (.h0 .h1 .h10, .b0 ... .b3210). Checked per instruction by
  /// the lowering.
  static bool isVideoSelector(std::string_view S) {
    if (S.size() < 3 || S.size() > 6 || (S[1] != 'b' && S[1] != 'h'))
      return false;
    for (char Ch : S.substr(2))
      if (Ch < '0' || Ch > '7')
        return false;
    return true;
  }

  Operand parseOperand(unsigned Depth) {
    if (Depth > MaxDepth)
      failAt(cur(), "operand nested too deeply");
    Operand O;
    const Token &Tk = cur();
    O.Loc = locOf(Tk);
    if (Tk.is('!')) {
      take();
      O.Kind = Operand::OK_Name;
      O.Not = true;
      O.Name = takeIdent("predicate after '!'");
      return O;
    }
    if (Tk.is('-')) {
      take();
      if (at(TokKind::Ident)) { // vmad's -a: a negated register
        O = parseOperand(Depth + 1);
        if (O.Kind != Operand::OK_Name || O.Not || O.Neg)
          failAt(Tk, "'-' before something that is not a register");
        O.Neg = true;
        O.Loc = locOf(Tk);
        return O;
      }
      O = parseNumber();
      if (O.Kind == Operand::OK_Int)
        O.Int = static_cast<int64_t>(0ull - static_cast<uint64_t>(O.Int));
      else
        O.FloatBits ^= O.IsDouble ? (1ull << 63) : (1ull << 31);
      return O;
    }
    switch (Tk.Kind) {
    case TokKind::Int:
    case TokKind::Float:
    case TokKind::HexF32:
    case TokKind::HexF64:
      return parseNumber();
    case TokKind::Ident:
      if (Tk.Text == "_" && !peekTok().is('|')) {
        take();
        O.Kind = Operand::OK_Sink;
        return O;
      }
      O.Kind = Operand::OK_Name;
      O.Name = std::string(take().Text);
      if (at(TokKind::Dot) && !cur().SpaceBefore && isComponent(cur().Text))
        O.Component = take().Text[1];
      else if (at(TokKind::Dot) && !cur().SpaceBefore && isVideoSelector(cur().Text))
        O.Sel = std::string(take().Text.substr(1));
      if (atPunct('|')) {
        take();
        O.Pair = takeIdent("second destination after '|'");
      } else if (atPunct('+')) {
        take();
        bool Neg = acceptPunct('-');
        if (!at(TokKind::Int))
          expected("offset after '+'");
        O.Int = intValue(take());
        if (Neg)
          O.Int = -O.Int;
      }
      return O;
    default:
      break;
    }
    if (Tk.is('{')) {
      take();
      O.Kind = Operand::OK_Vector;
      do {
        O.Elems.push_back(parseOperand(Depth + 1));
      } while (acceptPunct(','));
      expectPunct('}', "closing vector operand");
      return O;
    }
    if (Tk.is('(')) {
      take();
      O.Kind = Operand::OK_Paren;
      if (!atPunct(')')) {
        do {
          O.Elems.push_back(parseOperand(Depth + 1));
        } while (acceptPunct(','));
      }
      expectPunct(')', "closing argument list");
      return O;
    }
    if (Tk.is('[')) {
      take();
      if (at(TokKind::Int) && peekTok().is(']')) {
        O.Kind = Operand::OK_Address;
        O.Int = intValue(take());
        take();
        return O;
      }
      Operand First = parseOperand(Depth + 1);
      if (atPunct(',')) {
        O.Kind = Operand::OK_Bracket;
        O.Elems.push_back(std::move(First));
        while (acceptPunct(','))
          O.Elems.push_back(parseOperand(Depth + 1));
        expectPunct(']', "closing texture operand");
        return O;
      }
      expectPunct(']', "closing address");
      if (First.Kind != Operand::OK_Name || First.Not || !First.Pair.empty() || First.Component || First.Neg || !First.Sel.empty())
        failAt(Tk, "address must be [name], [name+offset] or [integer]");
      O.Kind = Operand::OK_Address;
      O.Name = std::move(First.Name);
      O.Int = First.Int;
      return O;
    }
    expected("operand");
  }

  Operand parseNumber() {
    Operand O;
    const Token &Tk = cur();
    O.Loc = locOf(Tk);
    switch (Tk.Kind) {
    case TokKind::Int:
      O.Kind = Operand::OK_Int;
      O.Int = intValue(take());
      return O;
    case TokKind::Float:
      O.Kind = Operand::OK_Float;
      O.IsDouble = true;
      O.FloatBits = decimalFloatBits(take());
      return O;
    case TokKind::HexF32:
    case TokKind::HexF64:
      O.Kind = Operand::OK_Float;
      O.IsDouble = Tk.Kind == TokKind::HexF64;
      O.FloatBits = hexBits(take());
      return O;
    default:
      expected("number");
    }
  }
};

} // namespace

ParseResult parse(std::string_view Src) noexcept {
  ParseResult R;
  try {
    // Fat binaries embed PTX with a trailing NUL.
    while (!Src.empty() && Src.back() == '\0')
      Src.remove_suffix(1);
    if (Src.size() > std::numeric_limits<uint32_t>::max()) {
      R.Error = Diagnostic{1, 1, "PTX text larger than 4 GiB"};
      return R;
    }
    std::vector<Token> Toks;
    LexError LE;
    if (!lex(Src, Toks, LE)) {
      R.Error = Diagnostic{LE.Line, LE.Col, LE.Message};
      return R;
    }
    Parser P(Src, Toks);
    R.Mod = P.parseModule();
  } catch (const ParseFail &F) {
    R.Mod.reset();
    R.Error = F.D;
  } catch (const std::bad_alloc &) {
    R.Mod.reset();
    R.Error = Diagnostic{0, 0, "out of memory while parsing"};
  } catch (...) {
    R.Mod.reset();
    R.Error = Diagnostic{0, 0, "internal parser error"};
  }
  return R;
}

} // namespace zluda::ptx
