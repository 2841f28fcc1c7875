//===- LexerTest.cpp - PTX lexer -------------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "ptx/Lexer.h"

#include <gtest/gtest.h>

using namespace zluda::ptx;

namespace {

std::vector<Token> lexOk(std::string_view S) {
  std::vector<Token> T;
  LexError E;
  EXPECT_TRUE(lex(S, T, E)) << E.Message;
  return T;
}

TEST(Lexer, KindsAndText) {
  auto T = lexOk("ld.global.shared::cta.v4.f32 {%f1,_}, [%rd1+-4]; // c\n$L__BB0_1: 0f3F800000 0d3FF0000000000000 1.5e3 0x1FU 017 0b101 \"s\\\"q\"");
  std::vector<std::pair<TokKind, std::string>> Want = {
      {TokKind::Ident, "ld"},       {TokKind::Dot, ".global"}, {TokKind::Dot, ".shared::cta"},
      {TokKind::Dot, ".v4"},        {TokKind::Dot, ".f32"},    {TokKind::Punct, "{"},
      {TokKind::Ident, "%f1"},      {TokKind::Punct, ","},     {TokKind::Ident, "_"},
      {TokKind::Punct, "}"},        {TokKind::Punct, ","},     {TokKind::Punct, "["},
      {TokKind::Ident, "%rd1"},     {TokKind::Punct, "+"},     {TokKind::Punct, "-"},
      {TokKind::Int, "4"},          {TokKind::Punct, "]"},     {TokKind::Punct, ";"},
      {TokKind::Ident, "$L__BB0_1"}, {TokKind::Punct, ":"},    {TokKind::HexF32, "0f3F800000"},
      {TokKind::HexF64, "0d3FF0000000000000"}, {TokKind::Float, "1.5e3"},
      {TokKind::Int, "0x1FU"},      {TokKind::Int, "017"},     {TokKind::Int, "0b101"},
      {TokKind::String, "\"s\\\"q\""}, {TokKind::Eof, ""}};
  ASSERT_EQ(T.size(), Want.size());
  for (size_t I = 0; I < Want.size(); ++I) {
    EXPECT_EQ(T[I].Kind, Want[I].first) << I;
    EXPECT_EQ(T[I].Text, Want[I].second) << I;
  }
  EXPECT_FALSE(T[1].SpaceBefore);
  EXPECT_TRUE(T[5].SpaceBefore);
  EXPECT_TRUE(T[18].NewlineBefore);
  EXPECT_EQ(T[18].Line, 2u);
  EXPECT_EQ(T[18].Col, 1u);
}

TEST(Lexer, VersionNumberIsFloatToken) {
  auto T = lexOk(".version 9.0");
  EXPECT_EQ(T[1].Kind, TokKind::Float);
  EXPECT_EQ(T[1].Text, "9.0");
}

TEST(Lexer, ComponentSuffixIsSeparateDotToken) {
  auto T = lexOk("%tid.x");
  ASSERT_EQ(T.size(), 3u);
  EXPECT_EQ(T[0].Text, "%tid");
  EXPECT_EQ(T[1].Text, ".x");
  EXPECT_FALSE(T[1].SpaceBefore);
}

struct BadCase {
  const char *Src;
  uint32_t Line, Col;
  const char *Msg;
};

TEST(Lexer, ErrorsHaveLineAndColumn) {
  const BadCase Cases[] = {
      {"a\n  /* never closed", 2, 3, "unterminated block comment"},
      {"x \"abc", 1, 3, "unterminated string"},
      {"mov 0f3F80", 1, 5, "exactly 8 hex digits"},
      {"mov 0d3F80", 1, 5, "exactly 16 hex digits"},
      {"mov 0x", 1, 5, "no digits"},
      {"mov 12abc", 1, 5, "malformed integer"},
      {"\n\n  `", 3, 3, "unexpected character '`'"},
      {"a \x01", 1, 3, "unexpected character 0x01"},
  };
  for (const BadCase &C : Cases) {
    std::vector<Token> T;
    LexError E;
    EXPECT_FALSE(lex(C.Src, T, E)) << C.Src;
    EXPECT_EQ(E.Line, C.Line) << C.Src;
    EXPECT_EQ(E.Col, C.Col) << C.Src;
    EXPECT_NE(E.Message.find(C.Msg), std::string::npos) << C.Src << " -> " << E.Message;
  }
}

} // namespace
