//===- Lexer.cpp - PTX tokenizer -------------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Hand-written PTX lexer: one pass over the text, no allocation per
/// token (tokens are views into the source).
#include "ptx/Lexer.h"

namespace zluda::ptx {
namespace {

bool isFollowSym(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || (C >= '0' && C <= '9') || C == '_' ||
         C == '$';
}
bool isDigit(char C) { return C >= '0' && C <= '9'; }
bool isHex(char C) { return isDigit(C) || (C >= 'a' && C <= 'f') || (C >= 'A' && C <= 'F'); }

class Lexer {
public:
  Lexer(std::string_view Src, std::vector<Token> &Out, LexError &Err) : S(Src), Out(Out), Err(Err) {}

  bool run() {
    Out.reserve(S.size() / 4 + 16);
    while (true) {
      if (!skipSpace())
        return false;
      if (P >= S.size())
        break;
      if (!next())
        return false;
    }
    Token T;
    T.Kind = TokKind::Eof;
    T.Line = Line;
    T.Col = col();
    T.Offset = static_cast<uint32_t>(P);
    T.NewlineBefore = Newline;
    T.SpaceBefore = true;
    Out.push_back(T);
    return true;
  }

private:
  std::string_view S;
  std::vector<Token> &Out;
  LexError &Err;
  size_t P = 0;
  uint32_t Line = 1;
  size_t LineStart = 0;
  bool Newline = true, Space = true;

  uint32_t col() const { return static_cast<uint32_t>(P - LineStart + 1); }
  char peek(size_t K = 0) const { return P + K < S.size() ? S[P + K] : '\0'; }

  bool fail(uint32_t L, uint32_t C, std::string M) {
    Err.Line = L;
    Err.Col = C;
    Err.Message = std::move(M);
    return false;
  }

  bool skipSpace() {
    Newline = false;
    Space = false;
    while (P < S.size()) {
      char C = S[P];
      if (C == '\n') {
        ++P;
        ++Line;
        LineStart = P;
        Newline = Space = true;
      } else if (C == ' ' || C == '\t' || C == '\r' || C == '\f' || C == '\v') {
        ++P;
        Space = true;
      } else if (C == '/' && peek(1) == '/') {
        while (P < S.size() && S[P] != '\n')
          ++P;
        Space = true;
      } else if (C == '/' && peek(1) == '*') {
        uint32_t L = Line, Co = col();
        P += 2;
        while (true) {
          if (P + 1 >= S.size())
            return fail(L, Co, "unterminated block comment");
          if (S[P] == '*' && S[P + 1] == '/') {
            P += 2;
            break;
          }
          if (S[P] == '\n') {
            ++Line;
            LineStart = P + 1;
            Newline = true;
          }
          ++P;
        }
        Space = true;
      } else {
        break;
      }
    }
    if (P == 0)
      Newline = Space = true;
    return true;
  }

  void emit(TokKind K, size_t Start, uint32_t L, uint32_t C) {
    Token T;
    T.Kind = K;
    T.Text = S.substr(Start, P - Start);
    T.Line = L;
    T.Col = C;
    T.Offset = static_cast<uint32_t>(Start);
    T.NewlineBefore = Newline;
    T.SpaceBefore = Space;
    Out.push_back(T);
  }

  bool next() {
    size_t Start = P;
    uint32_t L = Line, C = col();
    char Ch = S[P];
    if ((Ch >= 'a' && Ch <= 'z') || (Ch >= 'A' && Ch <= 'Z') || Ch == '_' || Ch == '$' ||
        (Ch == '%' && isFollowSym(peek(1)))) {
      ++P;
      while (P < S.size() && isFollowSym(S[P]))
        ++P;
      emit(TokKind::Ident, Start, L, C);
      return true;
    }
    if (Ch == '.' && isFollowSym(peek(1))) {
      ++P;
      while (true) {
        while (P < S.size() && isFollowSym(S[P]))
          ++P;
        // .shared::cta, .L2::cache_hint: '::' continues the modifier.
        if (peek() == ':' && peek(1) == ':' && isFollowSym(peek(2))) {
          P += 2;
          continue;
        }
        break;
      }
      emit(TokKind::Dot, Start, L, C);
      return true;
    }
    if (isDigit(Ch))
      return number(Start, L, C);
    if (Ch == '"') {
      ++P;
      while (true) {
        if (P >= S.size() || S[P] == '\n')
          return fail(L, C, "unterminated string literal");
        if (S[P] == '\\' && P + 1 < S.size() && S[P + 1] != '\n') {
          P += 2;
          continue;
        }
        if (S[P] == '"') {
          ++P;
          break;
        }
        ++P;
      }
      emit(TokKind::String, Start, L, C);
      return true;
    }
    static constexpr std::string_view Puncts = ",;:{}[]()<>+-=!@|*/~&^?%";
    if (Puncts.find(Ch) != std::string_view::npos) {
      ++P;
      emit(TokKind::Punct, Start, L, C);
      return true;
    }
    std::string M = "unexpected character ";
    if (static_cast<unsigned char>(Ch) >= 0x20 && static_cast<unsigned char>(Ch) < 0x7f) {
      M += '\'';
      M += Ch;
      M += '\'';
    } else {
      static const char *Hex = "0123456789abcdef";
      M += "0x";
      M += Hex[(static_cast<unsigned char>(Ch) >> 4) & 15];
      M += Hex[static_cast<unsigned char>(Ch) & 15];
    }
    return fail(L, C, M);
  }

  bool number(size_t Start, uint32_t L, uint32_t C) {
    char N1 = peek(1);
    auto hexRun = [&](size_t From) {
      size_t Q = From;
      while (Q < S.size() && isHex(S[Q]))
        ++Q;
      return Q - From;
    };
    if (S[P] == '0' && (N1 == 'f' || N1 == 'F' || N1 == 'd' || N1 == 'D')) {
      size_t Want = (N1 == 'f' || N1 == 'F') ? 8 : 16;
      size_t Got = hexRun(P + 2);
      if (Got != Want)
        return fail(L, C, std::string("hexadecimal float literal needs exactly ") +
                              std::to_string(Want) + " hex digits");
      P += 2 + Got;
      if (P < S.size() && isFollowSym(S[P]))
        return fail(L, C, "malformed hexadecimal float literal");
      emit(Want == 8 ? TokKind::HexF32 : TokKind::HexF64, Start, L, C);
      return true;
    }
    if (S[P] == '0' && (N1 == 'x' || N1 == 'X')) {
      size_t Got = hexRun(P + 2);
      if (Got == 0)
        return fail(L, C, "hexadecimal literal has no digits");
      P += 2 + Got;
    } else if (S[P] == '0' && (N1 == 'b' || N1 == 'B')) {
      P += 2;
      size_t D = P;
      while (P < S.size() && (S[P] == '0' || S[P] == '1'))
        ++P;
      if (P == D)
        return fail(L, C, "binary literal has no digits");
    } else {
      while (P < S.size() && isDigit(S[P]))
        ++P;
      bool IsFloat = false;
      if (peek() == '.' && !isFollowSymAlpha(peek(1))) {
        IsFloat = true;
        ++P;
        while (P < S.size() && isDigit(S[P]))
          ++P;
      }
      if ((peek() == 'e' || peek() == 'E') &&
          (isDigit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && isDigit(peek(2))))) {
        IsFloat = true;
        P += 2;
        while (P < S.size() && isDigit(S[P]))
          ++P;
      }
      if (IsFloat) {
        if (P < S.size() && isFollowSym(S[P]))
          return fail(L, C, "malformed floating-point literal");
        emit(TokKind::Float, Start, L, C);
        return true;
      }
    }
    if (peek() == 'U')
      ++P;
    if (P < S.size() && isFollowSym(S[P]))
      return fail(L, C, "malformed integer literal");
    emit(TokKind::Int, Start, L, C);
    return true;
  }

  static bool isFollowSymAlpha(char C) {
    return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_' || C == '$';
  }
};

} // namespace

bool lex(std::string_view Src, std::vector<Token> &Out, LexError &Err) {
  Out.clear();
  return Lexer(Src, Out, Err).run();
}

} // namespace zluda::ptx
