// ptx::link: symbol resolution across PTX inputs (what cuLinkComplete does).
#include "ptx/Link.h"
#include "ptx/Parser.h"

#include <gtest/gtest.h>

using namespace zluda::ptx;

namespace {

std::string mod(const std::string &Body) {
  return ".version 7.5\n.target sm_75\n.address_size 64\n" + Body;
}

/// Names of the module's functions with bodies, and of its variables.
std::vector<std::string> defined(const std::string &Ptx) {
  ParseResult P = parse(Ptx);
  EXPECT_TRUE(P.ok()) << P.Error.Message;
  std::vector<std::string> Out;
  if (!P.ok())
    return Out;
  for (const TopLevel &T : P.Mod->Items) {
    if (T.Kind == TopLevel::TK_Function && T.Func.HasBody)
      Out.push_back(T.Func.Name);
    if (T.Kind == TopLevel::TK_Var && T.Var.Link != Linkage::Extern)
      Out.push_back(T.Var.Name);
  }
  return Out;
}

const std::string Caller = mod(".extern .func (.param .b32 r) f();\n"
                               ".visible .entry k() { .param .b32 r; call.uni (r), f, (); ret; }\n");
const std::string DefF = mod(".visible .func (.param .b32 r) f() { st.param.b32 [r], 1; ret; }\n");
const std::string WeakF = mod(".weak .func (.param .b32 r) f() { st.param.b32 [r], 2; ret; }\n");

} // namespace

TEST(Link, ResolvesExternsAcrossInputs) {
  LinkResult R = link({{"caller", Caller}, {"def", DefF}});
  ASSERT_TRUE(R.ok()) << R.Error;
  auto D = defined(R.Ptx);
  EXPECT_EQ(D, (std::vector<std::string>{"k", "f"}));
}

TEST(Link, UndefinedAndDuplicateSymbolsAreNamed) {
  LinkResult R = link({{"caller.ptx", Caller}});
  EXPECT_NE(R.Error.find("undefined symbol 'f' (referenced in caller.ptx)"), std::string::npos) << R.Error;
  R = link({{"a", DefF}, {"b", DefF}, {"c", Caller}});
  EXPECT_NE(R.Error.find("duplicate symbol 'f': defined in a and in b"), std::string::npos) << R.Error;
}

TEST(Link, WeakDefinitionsYield) {
  // The strong definition wins wherever it comes; of two weak ones, the first.
  for (auto Order : {std::vector<LinkInput>{{"w", WeakF}, {"s", DefF}, {"c", Caller}},
                     std::vector<LinkInput>{{"s", DefF}, {"w", WeakF}, {"c", Caller}}}) {
    LinkResult R = link(Order);
    ASSERT_TRUE(R.ok()) << R.Error;
    EXPECT_NE(R.Ptx.find("st.param.b32 [r], 1"), std::string::npos);
    EXPECT_EQ(R.Ptx.find("st.param.b32 [r], 2"), std::string::npos);
  }
  LinkResult R = link({{"w1", WeakF}, {"w2", WeakF}, {"c", Caller}});
  EXPECT_TRUE(R.ok()) << R.Error;
}

TEST(Link, PrivateNamesAreRenamedWhereTheyCollide) {
  std::string A = mod(".global .u32 v = 1;\n.visible .entry ka(.param .u64 p) { .reg .b32 %r; ld.global.u32 %r, [v]; ret; }\n");
  std::string B = mod(".global .u32 v = 2;\n.visible .entry kb(.param .u64 p) { .reg .b32 %r; ld.global.u32 %r, [v]; ret; }\n");
  LinkResult R = link({{"a", A}, {"b", B}});
  ASSERT_TRUE(R.ok()) << R.Error;
  auto D = defined(R.Ptx);
  ASSERT_EQ(D.size(), 4u);
  EXPECT_EQ(D[0], "v");
  EXPECT_NE(D[2], "v"); // b's copy has a name of its own ...
  EXPECT_NE(R.Ptx.find("[" + D[2] + "]"), std::string::npos); // ... and kb reads it
}

TEST(Link, ArchiveMembersOnlyWhenNeeded) {
  std::string Unneeded = mod(".visible .func g() { ret; }\n");
  LinkResult R = link({{"c", Caller}, {"lib(f.o)", DefF, true}, {"lib(g.o)", Unneeded, true}});
  ASSERT_TRUE(R.ok()) << R.Error;
  auto D = defined(R.Ptx);
  EXPECT_EQ(D, (std::vector<std::string>{"k", "f"}));
  EXPECT_NE(R.Info.find("linked lib(f.o) for 'f'"), std::string::npos);
}

TEST(Link, DeviceRuntimeInputsAreReplacedByBuiltins) {
  // An input defining the device runtime's entry points (libcudadevrt) is not linked.
  std::string DevRt = mod(".visible .func (.param .b32 r) cudaGetLastError() { st.param.b32 [r], 7; ret; }\n"
                          ".visible .func (.param .b32 r) cudaMemcpyAsync() { st.param.b32 [r], 7; ret; }\n");
  std::string User = mod(".extern .func (.param .b32 r) cudaGetLastError();\n"
                         ".visible .entry k() { .param .b32 r; call.uni (r), cudaGetLastError, (); ret; }\n");
  LinkResult R = link({{"user", User}, {"devrt", DevRt}});
  ASSERT_TRUE(R.ok()) << R.Error;
  EXPECT_EQ(defined(R.Ptx), (std::vector<std::string>{"k"}));
  // What ZLUDA does not provide is an error naming it.
  std::string User2 = mod(".extern .func (.param .b32 r) cudaMemcpyAsync();\n"
                          ".visible .entry k() { .param .b32 r; call.uni (r), cudaMemcpyAsync, (); ret; }\n");
  R = link({{"user", User2}, {"devrt", DevRt}});
  EXPECT_NE(R.Error.find("'cudaMemcpyAsync'"), std::string::npos) << R.Error;
}

TEST(Link, DynamicSharedAndErrors) {
  std::string S1 = mod(".extern .shared .align 16 .b8 smem[];\n.visible .entry a() { ret; }\n");
  std::string S2 = mod(".extern .shared .align 16 .b8 smem[];\n.visible .entry b() { ret; }\n");
  LinkResult R = link({{"1", S1}, {"2", S2}});
  ASSERT_TRUE(R.ok()) << R.Error;
  EXPECT_EQ(R.Ptx.find("smem"), R.Ptx.rfind("smem")); // declared once
  std::string A32 = ".version 7.5\n.target sm_75\n.address_size 32\n.visible .entry c() { ret; }\n";
  R = link({{"1", S1}, {"32", A32}});
  EXPECT_NE(R.Error.find(".address_size"), std::string::npos);
  R = link({{"bad.ptx", mod(".visible .entry k() {\n  frobnicate;\n}\n")}});
  EXPECT_EQ(R.Error.rfind("bad.ptx:5:", 0), 0u) << R.Error;
  EXPECT_FALSE(link({}).ok());
}
