//===- PtxParserFuzz.cpp - libFuzzer target for the PTX front end ----------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Any input must parse or fail cleanly; whatever parses must print
/// to text that parses back to an equal module.
#include "ptx/Parser.h"
#include "ptx/Printer.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string_view Src(reinterpret_cast<const char *>(Data), Size);
  zluda::ptx::ParseResult R = zluda::ptx::parse(Src);
  if (!R.ok())
    return 0;
  std::string Printed = zluda::ptx::print(*R.Mod);
  zluda::ptx::ParseResult R2 = zluda::ptx::parse(Printed);
  if (!R2.ok()) {
    std::fprintf(stderr, "printed text does not parse: %s\n%s\n", R2.Error.format("printed").c_str(),
                 Printed.c_str());
    std::abort();
  }
  if (!(*R.Mod == *R2.Mod)) {
    std::fprintf(stderr, "round trip changed the module\n%s\n", Printed.c_str());
    std::abort();
  }
  return 0;
}
