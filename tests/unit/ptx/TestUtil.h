//===- TestUtil.h - helpers shared by the PTX front-end tests --------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#ifndef ZLUDA_TESTS_PTX_TESTUTIL_H
#define ZLUDA_TESTS_PTX_TESTUTIL_H

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace zluda::test {

inline std::string readFile(const std::filesystem::path &P) {
  std::ifstream In(P, std::ios::binary);
  std::ostringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

inline std::string ptxasPath() {
  std::string P = ZLUDA_PTXAS;
  if (P.empty() || P.find("NOTFOUND") != std::string::npos || !std::filesystem::exists(P))
    return {};
  return P;
}

/// Runs ptxas on \p Text for \p Arch; returns "" on success, else its output.
/// ptxas on \p Text; \p Relocatable compiles it as -rdc code (externs may stay unresolved).
inline std::string runPtxas(const std::string &Text, const std::string &Arch, bool Relocatable = false) {
  std::string Dir = std::filesystem::temp_directory_path() / ("zluda-ptxas-" + std::to_string(getpid()));
  std::filesystem::create_directories(Dir);
  std::string In = Dir + "/in.ptx", Log = Dir + "/log.txt";
  {
    std::ofstream O(In, std::ios::binary);
    O << Text;
  }
  std::string Cmd = ptxasPath() + (Relocatable ? " -c" : "") + " -arch=" + Arch + " " + In + " -o /dev/null > " + Log +
                    " 2>&1";
  int Rc = std::system(Cmd.c_str());
  std::string Out = Rc == 0 ? std::string() : ("rc=" + std::to_string(Rc) + ": " + readFile(Log));
  std::filesystem::remove_all(Dir);
  return Out;
}

} // namespace zluda::test

#endif
