//===- EnvTest.cpp - environment table and logging -------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "../ptx/TestUtil.h"
#include "common/Env.h"
#include "common/Log.h"

#include <gtest/gtest.h>

namespace {

TEST(Env, DocsTableListsEveryFlag) {
  std::string Doc = zluda::test::readFile(std::string(ZLUDA_SOURCE_DIR) + "/docs/ENVIRONMENT.md");
  ASSERT_FALSE(Doc.empty());
  for (const auto &F : zluda::env::allFlags())
    EXPECT_NE(Doc.find("| `" + std::string(F.Name) + "`"), std::string::npos)
        << F.Name << " is missing from docs/ENVIRONMENT.md";
}

TEST(Env, DefaultsComeFromTable) {
  unsetenv("ZLUDA_LOG");
  EXPECT_EQ(zluda::env::get("ZLUDA_LOG"), "warn");
  setenv("ZLUDA_LOG", "debug", 1);
  EXPECT_EQ(zluda::env::get("ZLUDA_LOG"), "debug");
  unsetenv("ZLUDA_LOG");
}

TEST(Log, LevelNames) {
  using namespace spdlog::level;
  EXPECT_EQ(zluda::parseLogLevel("off"), off);
  EXPECT_EQ(zluda::parseLogLevel("error"), err);
  EXPECT_EQ(zluda::parseLogLevel("warn"), warn);
  EXPECT_EQ(zluda::parseLogLevel("info"), info);
  EXPECT_EQ(zluda::parseLogLevel("debug"), debug);
  EXPECT_EQ(zluda::parseLogLevel("trace"), trace);
  EXPECT_FALSE(zluda::parseLogLevel("loud").has_value());
}

} // namespace
