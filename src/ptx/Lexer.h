//===- Lexer.h - PTX tokenizer ---------------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Splits PTX text into tokens (PTX ISA 4 "Syntax",
/// https://docs.nvidia.com/cuda/parallel-thread-execution/#syntax).
#ifndef ZLUDA_PTX_LEXER_H
#define ZLUDA_PTX_LEXER_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zluda::ptx {

enum class TokKind : uint8_t {
  Ident,   ///< foo, %r1, $L__BB0_1, _
  Dot,     ///< .u32, .shared::cta, .2d (text includes the dot)
  Int,     ///< 12, 0x1f, 017, 0b101, optional U suffix
  Float,   ///< 1.5, 2e10 (decimal)
  HexF32,  ///< 0f3F800000
  HexF64,  ///< 0d3FF0000000000000
  String,  ///< "..." (text includes the quotes)
  Punct,   ///< one of , ; : { } [ ] ( ) < > + - = ! @ | * / ~ & ^ ? %
  Eof,
};

struct Token {
  TokKind Kind = TokKind::Eof;
  std::string_view Text;
  uint32_t Line = 1, Col = 1;
  uint32_t Offset = 0;     ///< byte offset of the token in the source
  bool NewlineBefore = false;
  bool SpaceBefore = false; ///< whitespace, comment or newline before the token
  bool is(char C) const { return Kind == TokKind::Punct && Text.size() == 1 && Text[0] == C; }
  bool isDot(std::string_view S) const { return Kind == TokKind::Dot && Text == S; }
};

struct LexError {
  uint32_t Line = 0, Col = 0;
  std::string Message;
};

/// Tokenizes \p Src. On failure returns false and fills \p Err; \p Out then
/// holds the tokens before the error. The last token is always Eof.
bool lex(std::string_view Src, std::vector<Token> &Out, LexError &Err);

} // namespace zluda::ptx

#endif // ZLUDA_PTX_LEXER_H
