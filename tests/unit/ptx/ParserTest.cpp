//===- ParserTest.cpp - PTX parser -----------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "ptx/Parser.h"

#include <cstring>
#include <gtest/gtest.h>

using namespace zluda::ptx;

namespace {

const char *Header = ".version 9.0\n.target sm_80\n.address_size 64\n";

Module parseOk(const std::string &S) {
  ParseResult R = parse(S);
  EXPECT_TRUE(R.ok()) << R.Error.format("<test>");
  return R.ok() ? *R.Mod : Module{};
}

/// Parses one kernel body and returns its statements.
std::vector<Statement> body(const std::string &Body) {
  Module M = parseOk(std::string(Header) + ".entry k()\n{\n" + Body + "\n}\n");
  if (M.Items.empty())
    return {};
  return M.Items.back().Func.Body;
}

Instruction inst(const std::string &Line) {
  auto B = body(".reg .b32 %r<9>;\n.reg .pred %p<3>;\n.reg .b64 %rd<3>;\n" + Line);
  if (B.empty() || B.back().Kind != Statement::SK_Instruction) {
    ADD_FAILURE() << "no instruction in " << Line;
    return {};
  }
  return B.back().Inst;
}

TEST(Parser, ModuleHeader) {
  Module M = parseOk(".version 7.8\n.target sm_86, texmode_independent, debug\n.address_size 32\n");
  EXPECT_EQ(M.VersionMajor, 7u);
  EXPECT_EQ(M.VersionMinor, 8u);
  ASSERT_EQ(M.Targets.size(), 3u);
  EXPECT_EQ(M.Targets[0], "sm_86");
  EXPECT_EQ(M.Targets[2], "debug");
  EXPECT_EQ(M.AddressSize, 32u);
  EXPECT_TRUE(M.HasAddressSize);
}

TEST(Parser, DefaultAddressSizeIs32) {
  Module M = parseOk(".version 9.0\n.target sm_80\n");
  EXPECT_EQ(M.AddressSize, 32u);
  EXPECT_FALSE(M.HasAddressSize);
}

TEST(Parser, TrailingNulAccepted) {
  std::string S = std::string(Header) + ".entry k() { ret; }";
  S.push_back('\0');
  EXPECT_TRUE(parse(S).ok());
}

TEST(Parser, TypesAndSpacesResolved) {
  Instruction I = inst("ld.global.nc.v2.u32 {%r1, %r2}, [%rd1+8];");
  EXPECT_EQ(I.Op, Opcode::Ld);
  EXPECT_EQ(I.space(), StateSpace::Global);
  EXPECT_EQ(I.type(), ScalarType::U32);
  EXPECT_EQ(I.vectorWidth(), 2u);
  EXPECT_TRUE(I.has(".nc"));
  ASSERT_EQ(I.Ops.size(), 2u);
  EXPECT_EQ(I.Ops[0].Kind, Operand::OK_Vector);
  ASSERT_EQ(I.Ops[0].Elems.size(), 2u);
  EXPECT_EQ(I.Ops[0].Elems[1].Name, "%r2");
  EXPECT_EQ(I.Ops[1].Kind, Operand::OK_Address);
  EXPECT_EQ(I.Ops[1].Name, "%rd1");
  EXPECT_EQ(I.Ops[1].Int, 8);

  Instruction C = inst("cvt.rn.f32.s32 %r1, %r2;");
  ASSERT_EQ(C.types().size(), 2u);
  EXPECT_EQ(C.types()[0], ScalarType::F32);
  EXPECT_EQ(C.types()[1], ScalarType::S32);
  EXPECT_TRUE(C.has(".rn"));

  Instruction S = inst("mbarrier.arrive.shared::cta.b64 %rd1, [%rd2];");
  EXPECT_EQ(S.space(), StateSpace::SharedCta);
}

TEST(Parser, NegativeOffsetsAndImmediates) {
  Instruction I = inst("st.global.u32 [%rd1+-4], -12;");
  EXPECT_EQ(I.Ops[0].Int, -4);
  EXPECT_EQ(I.Ops[1].Kind, Operand::OK_Int);
  EXPECT_EQ(I.Ops[1].Int, -12);
  Instruction A = inst("ld.u32 %r1, [64];");
  EXPECT_EQ(A.Ops[1].Kind, Operand::OK_Address);
  EXPECT_TRUE(A.Ops[1].Name.empty());
  EXPECT_EQ(A.Ops[1].Int, 64);
}

TEST(Parser, IntegerFormats) {
  EXPECT_EQ(inst("mov.b32 %r1, 0x7fffffff;").Ops[1].Int, 0x7fffffff);
  EXPECT_EQ(inst("mov.b32 %r1, 0777;").Ops[1].Int, 0777);
  EXPECT_EQ(inst("mov.b32 %r1, 0b1011;").Ops[1].Int, 11);
  EXPECT_EQ(inst("mov.b32 %r1, 42U;").Ops[1].Int, 42);
  EXPECT_EQ(inst("mov.b64 %rd1, 0xFFFFFFFFFFFFFFFF;").Ops[1].Int, -1);
}

TEST(Parser, FloatFormats) {
  Instruction F = inst("mov.f32 %r1, 0f3F800000;");
  EXPECT_EQ(F.Ops[1].Kind, Operand::OK_Float);
  EXPECT_FALSE(F.Ops[1].IsDouble);
  EXPECT_EQ(F.Ops[1].FloatBits, 0x3F800000u);
  Instruction D = inst("mov.f64 %rd1, 0d400921FB54442D18;");
  EXPECT_TRUE(D.Ops[1].IsDouble);
  EXPECT_EQ(D.Ops[1].FloatBits, 0x400921FB54442D18ull);
  Instruction Dec = inst("mov.f64 %rd1, 2.5;");
  double V;
  std::memcpy(&V, &Dec.Ops[1].FloatBits, 8);
  EXPECT_EQ(V, 2.5);
  Instruction Neg = inst("mov.f32 %r1, -0f3F800000;");
  EXPECT_EQ(Neg.Ops[1].FloatBits, 0xBF800000u);
}

TEST(Parser, PredicatesPairsAndComponents) {
  Instruction I = inst("@!%p1 setp.lt.and.s32 %p1|%p2, %r1, 10, !%p2;");
  ASSERT_TRUE(I.Pred.has_value());
  EXPECT_TRUE(I.Pred->Negated);
  EXPECT_EQ(I.Pred->Pred, "%p1");
  EXPECT_EQ(I.Ops[0].Name, "%p1");
  EXPECT_EQ(I.Ops[0].Pair, "%p2");
  EXPECT_TRUE(I.Ops[3].Not);
  Instruction M = inst("mov.u32 %r1, %ctaid.y;");
  EXPECT_EQ(M.Ops[1].Name, "%ctaid");
  EXPECT_EQ(M.Ops[1].Component, 'y');
}

TEST(Parser, TextureAndCallOperands) {
  Instruction T = inst("tex.2d.v4.f32.f32 {%r1, %r2, %r3, _}, [%rd1, {%r4, %r5}];");
  EXPECT_EQ(T.Ops[0].Elems[3].Kind, Operand::OK_Sink);
  EXPECT_EQ(T.Ops[1].Kind, Operand::OK_Bracket);
  ASSERT_EQ(T.Ops[1].Elems.size(), 2u);
  EXPECT_EQ(T.Ops[1].Elems[1].Kind, Operand::OK_Vector);
  auto B = body(".param .b32 p0;\n.param .b32 r0;\ncall.uni (r0), f, (p0, 1);");
  const Instruction &C = B.back().Inst;
  EXPECT_EQ(C.Op, Opcode::Call);
  ASSERT_EQ(C.Ops.size(), 3u);
  EXPECT_EQ(C.Ops[0].Kind, Operand::OK_Paren);
  EXPECT_EQ(C.Ops[1].Name, "f");
  EXPECT_EQ(C.Ops[2].Elems.size(), 2u);
}

TEST(Parser, Declarations) {
  Module M = parseOk(std::string(Header) +
                     ".global .align 8 .u64 tbl[2][3] = {{1, 2, 3}, {4, 5, generic(tbl)+8}};\n"
                     ".extern .shared .align 16 .b8 dyn[];\n"
                     ".global .attribute(.managed) .v4 .f32 vec;\n"
                     ".entry k(.param .u64 .ptr .global .align 16 p, .param .align 8 .b8 s[24])\n"
                     ".maxntid 128, 2\n.minnctapersm 4\n"
                     "{\n.reg .f32 %f<10>, %g;\n ret;\n}\n");
  ASSERT_EQ(M.Items.size(), 4u);
  const VarDecl &T = M.Items[0].Var;
  EXPECT_EQ(T.Space, StateSpace::Global);
  EXPECT_EQ(T.Align, 8u);
  EXPECT_EQ(T.Type, ScalarType::U64);
  ASSERT_EQ(T.Dims.size(), 2u);
  EXPECT_EQ(T.Dims[1], 3u);
  ASSERT_TRUE(T.Init.has_value());
  EXPECT_EQ(T.Init->Elems[1].Elems[2].Kind, Initializer::IK_Generic);
  EXPECT_EQ(T.Init->Elems[1].Elems[2].Int, 8);
  const VarDecl &D = M.Items[1].Var;
  EXPECT_EQ(D.Link, Linkage::Extern);
  EXPECT_EQ(D.Dims[0], 0u);
  EXPECT_EQ(M.Items[2].Var.Attributes[0], ".managed");
  EXPECT_EQ(M.Items[2].Var.VectorWidth, 4u);
  EXPECT_EQ(M.Items[2].Var.elementSize(), 16u);
  const Function &F = M.Items[3].Func;
  EXPECT_TRUE(F.IsEntry);
  ASSERT_EQ(F.Params.size(), 2u);
  EXPECT_TRUE(F.Params[0].IsPtr);
  EXPECT_EQ(F.Params[0].PtrSpace, StateSpace::Global);
  EXPECT_EQ(F.Params[0].PtrAlign, 16u);
  EXPECT_EQ(F.Params[1].Dims[0], 24u);
  ASSERT_EQ(F.Perf.size(), 2u);
  EXPECT_EQ(F.Perf[0].Name, ".maxntid");
  EXPECT_EQ(F.Perf[0].Values, (std::vector<uint64_t>{128, 2}));
  ASSERT_EQ(F.Body.size(), 3u);
  EXPECT_EQ(*F.Body[0].Decl.RangeCount, 10u);
  EXPECT_EQ(F.Body[1].Decl.Name, "%g");
  EXPECT_FALSE(F.Body[1].Decl.RangeCount.has_value());
}

TEST(Parser, FunctionsPrototypesAndTargets) {
  Module M = parseOk(std::string(Header) +
                     ".extern .func (.param .b32 r) ext(.param .b64 a);\n"
                     ".weak .func noret() .noreturn { trap; }\n"
                     ".visible .func (.reg .b32 x) regret(.reg .b32 y) { mov.b32 x, y; ret; }\n"
                     ".entry k() {\n .reg .b32 %r1;\n"
                     " p: .callprototype (.param .b32 _) _ (.param .b64 _);\n"
                     " t: .branchtargets L1, L2;\n brx.idx %r1, t;\nL1:\nL2:\n ret;\n}\n");
  const Function &E = M.Items[0].Func;
  EXPECT_FALSE(E.HasBody);
  EXPECT_EQ(E.Link, Linkage::Extern);
  EXPECT_EQ(E.Returns.size(), 1u);
  EXPECT_EQ(M.Items[1].Func.Perf[0].Name, ".noreturn");
  EXPECT_EQ(M.Items[2].Func.Returns[0].Space, StateSpace::Reg);
  const auto &B = M.Items[3].Func.Body;
  EXPECT_EQ(B[1].Kind, Statement::SK_Prototype);
  EXPECT_EQ(B[1].Label, "p");
  EXPECT_EQ(B[1].ProtoParams[0].Type, ScalarType::B64);
  EXPECT_EQ(B[2].Kind, Statement::SK_BranchTargets);
  EXPECT_EQ(B[2].Targets, (std::vector<std::string>{"L1", "L2"}));
  EXPECT_EQ(B[4].Kind, Statement::SK_Label);
  EXPECT_NE(M.findFunction("regret"), nullptr);
  EXPECT_EQ(M.entries().size(), 1u);
}

TEST(Parser, LocPragmaSectionAndFile) {
  Module M = parseOk(std::string(Header) +
                     ".file 1 \"a.cu\", 1700000000, 99\n"
                     ".entry k() {\n.loc 1 5 3\n.pragma \"nounroll\";\n.loc 1 6 1, function_name $L__info, inlined_at 1 2 3\nret;\n}\n"
                     ".section .debug_abbrev\n{\n.b8 1\n.b8 17\n}\n");
  EXPECT_EQ(M.Items[0].Kind, TopLevel::TK_File);
  EXPECT_EQ(M.Items[0].FileIndex, 1u);
  EXPECT_EQ(M.Items[0].Text, "\"a.cu\"");
  EXPECT_EQ(M.Items[0].Extra, ", 1700000000, 99");
  const auto &B = M.Items[1].Func.Body;
  EXPECT_EQ(B[0].Text, "1 5 3");
  EXPECT_EQ(B[1].Text, "\"nounroll\"");
  EXPECT_EQ(B[2].Text, "1 6 1, function_name $L__info, inlined_at 1 2 3");
  EXPECT_EQ(M.Items[2].Kind, TopLevel::TK_Section);
  EXPECT_EQ(M.Items[2].Name, ".debug_abbrev");
  EXPECT_EQ(M.Items[2].Text, ".b8 1\n.b8 17");
}

TEST(Parser, NestedBlocksStayFlat) {
  auto B = body("{\n{\n.reg .b32 t;\n}\n}\nret;");
  ASSERT_EQ(B.size(), 6u);
  EXPECT_EQ(B[0].Kind, Statement::SK_BlockBegin);
  EXPECT_EQ(B[1].Kind, Statement::SK_BlockBegin);
  EXPECT_EQ(B[3].Kind, Statement::SK_BlockEnd);
  EXPECT_EQ(B[4].Kind, Statement::SK_BlockEnd);
}

TEST(Parser, SourceLocations) {
  auto B = body("  ret;");
  ASSERT_EQ(B.size(), 1u);
  EXPECT_EQ(B[0].Inst.Loc.Line, 6u);
  EXPECT_EQ(B[0].Inst.Loc.Col, 3u);
}

struct BadCase {
  std::string Src;
  uint32_t Line, Col;
  const char *Msg;
};

TEST(Parser, ErrorsNameLineColumnAndToken) {
  std::string H = Header; // 3 lines
  const BadCase Cases[] = {
      {H + ".entry k() {\n  frobnicate.u32 %r1;\n}", 5, 3, "unknown instruction 'frobnicate'"},
      {H + ".entry k() {\n  add.s32 %r1, %r2;\n}", 5, 3, "'add' takes 3 operands, found 2"},
      {H + ".entry k() {\n  mov.u32 %r1, %r2\n  ret;\n}", 6, 3, "expected ',' or ';' after operand, found 'ret'"},
      {H + ".entry k() {\n  ret;\n", 6, 1, "unexpected end of file inside function body"},
      {H + ".global .u32 x[0];", 4, 16, "array size must be positive"},
      {H + ".global .align 3 .u32 x;", 4, 16, "alignment must be a power of two"},
      {H + ".global .q32 x;", 4, 9, "expected type"},
      {H + ".bogus", 4, 1, "unknown or misplaced directive '.bogus'"},
      {H + "mov.u32 %r1, 1;", 4, 1, "expected a directive at module scope"},
      {".version x", 1, 10, "expected version number"},
      {".address_size 48", 1, 15, "address size must be 32 or 64"},
      {H + ".entry k() {\n  mov.b64 %rd1, 0x1FFFFFFFFFFFFFFFF;\n}", 5, 17, "does not fit in 64 bits"},
      {H + ".entry k() {\n  ld.u32 %r1, [%r2+%r3];\n}", 5, 20, "expected offset after '+'"},
      {H + ".entry k() {\n  ld.u32 %r1, [!%p1];\n}", 5, 15, "address must be"},
      {H + ".entry k() .maxfoo 3 {\n}", 4, 12, "unknown function directive '.maxfoo'"},
      {H + ".section .debug_info {\n.b8 1\n", 4, 22, "unterminated .section block"},
      {H + ".entry k() {\n  .global2 .u32 x;\n}", 5, 3, "unexpected directive '.global2'"},
      {H + ".entry k(.global .u32 x) {\n}", 4, 10, "parameters must be in .param or .reg"},
  };
  for (const BadCase &C : Cases) {
    ParseResult R = parse(C.Src);
    ASSERT_FALSE(R.ok()) << C.Src;
    EXPECT_EQ(R.Error.Line, C.Line) << C.Src << "\n -> " << R.Error.format("t");
    EXPECT_EQ(R.Error.Col, C.Col) << C.Src << "\n -> " << R.Error.format("t");
    EXPECT_NE(R.Error.Message.find(C.Msg), std::string::npos) << R.Error.format("t");
  }
}

TEST(Parser, DiagnosticFormat) {
  Diagnostic D{12, 7, "expected ';'"};
  EXPECT_EQ(D.format("k.ptx"), "k.ptx:12:7: error: expected ';'");
}

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  std::string S = std::string(Header) + ".global .u32 x[1] = ";
  S += std::string(100000, '{');
  ParseResult R = parse(S);
  EXPECT_FALSE(R.ok());
  EXPECT_NE(R.Error.Message.find("nested too deeply"), std::string::npos);
  std::string B = std::string(Header) + ".entry k() {" + std::string(100000, '{');
  EXPECT_FALSE(parse(B).ok());
  std::string V = std::string(Header) + ".entry k() { mov.b32 %r1, " + std::string(100000, '{');
  EXPECT_FALSE(parse(V).ok());
}

TEST(Parser, EveryTruncationFailsCleanly) {
  std::string S = std::string(Header) +
                  ".global .align 4 .b32 g[2] = {1, 2};\n"
                  ".entry k(.param .u64 p) .maxntid 64 {\n.reg .b32 %r<3>;\n"
                  "ld.param.u64 %r1, [p+4];\n@%p1 bra L;\nL: ret;\n}\n";
  for (size_t N = 0; N < S.size(); ++N)
    (void)parse(std::string_view(S).substr(0, N)); // must not crash or hang
  EXPECT_TRUE(parse(S).ok());
}

} // namespace
