//===- main.cpp - zluda-ptx: parse, check and reprint PTX ------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Usage: zluda-ptx [--print] [--roundtrip] [-o OUT] FILE.ptx...
///   (no flag)    parse and report the first error as file:line:col
///   --print      write the module back as PTX (to OUT or stdout)
///   --roundtrip  parse -> print -> parse and check the two IRs are equal
///   --stats      print functions / instructions counts
#include "common/Files.h"
#include "ptx/Parser.h"
#include "ptx/Printer.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace zluda::ptx;
using zluda::readFile;

int main(int Argc, char **Argv) {
  bool Print = false, RoundTrip = false, Stats = false;
  std::string OutPath;
  std::vector<std::string> Files;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    if (A == "--print")
      Print = true;
    else if (A == "--roundtrip")
      RoundTrip = true;
    else if (A == "--stats")
      Stats = true;
    else if (A == "-o" && I + 1 < Argc)
      OutPath = Argv[++I];
    else if (A == "-h" || A == "--help") {
      std::puts("usage: zluda-ptx [--print] [--roundtrip] [--stats] [-o OUT] FILE.ptx...");
      return 0;
    } else
      Files.push_back(A);
  }
  if (Files.empty()) {
    std::fputs("zluda-ptx: no input files (see --help)\n", stderr);
    return 2;
  }
  int Rc = 0;
  for (const std::string &F : Files) {
    std::string Text;
    if (!readFile(F, Text)) {
      std::fprintf(stderr, "zluda-ptx: cannot read %s\n", F.c_str());
      Rc = 1;
      continue;
    }
    ParseResult R = parse(Text);
    if (!R.ok()) {
      std::fprintf(stderr, "%s\n", R.Error.format(F).c_str());
      Rc = 1;
      continue;
    }
    if (RoundTrip) {
      std::string Printed = print(*R.Mod);
      ParseResult R2 = parse(Printed);
      if (!R2.ok()) {
        std::fprintf(stderr, "%s (in printed text of %s)\n", R2.Error.format("<printed>").c_str(),
                     F.c_str());
        Rc = 1;
        continue;
      }
      if (!(*R2.Mod == *R.Mod)) {
        std::fprintf(stderr, "zluda-ptx: %s: round trip changed the module\n", F.c_str());
        Rc = 1;
        continue;
      }
    }
    if (Stats) {
      size_t Funcs = 0, Insts = 0;
      for (const TopLevel &T : R.Mod->Items)
        if (T.Kind == TopLevel::TK_Function) {
          ++Funcs;
          for (const Statement &S : T.Func.Body)
            Insts += S.Kind == Statement::SK_Instruction;
        }
      std::printf("%s: %zu functions, %zu instructions\n", F.c_str(), Funcs, Insts);
    }
    if (Print) {
      std::string Printed = print(*R.Mod);
      if (OutPath.empty()) {
        std::fwrite(Printed.data(), 1, Printed.size(), stdout);
      } else {
        std::ofstream Out(OutPath, std::ios::binary);
        Out << Printed;
        if (!Out) {
          std::fprintf(stderr, "zluda-ptx: cannot write %s\n", OutPath.c_str());
          Rc = 1;
        }
      }
    }
  }
  return Rc;
}
