//===- Files.h - whole files in and out --------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#ifndef ZLUDA_COMMON_FILES_H
#define ZLUDA_COMMON_FILES_H

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace zluda {

/// The bytes of file \p Path in \p Out; false when it cannot be opened.
inline bool readFile(const std::string &Path, std::string &Out) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return false;
  std::ostringstream SS;
  SS << In.rdbuf();
  Out = SS.str();
  return true;
}

/// The bytes of file \p Path; empty when it cannot be opened.
inline std::string readFile(const std::string &Path) {
  std::string S;
  readFile(Path, S);
  return S;
}

/// What the shell command \p Cmd prints on stdout (empty when it cannot run).
/// For tools, tests and benches that read llvm-readelf/objdump output.
inline std::string commandOutput(const std::string &Cmd) {
  std::string Out;
  FILE *P = popen(Cmd.c_str(), "r");
  if (!P)
    return Out;
  std::array<char, 4096> Buf;
  size_t N;
  while ((N = fread(Buf.data(), 1, Buf.size(), P)) > 0)
    Out.append(Buf.data(), N);
  pclose(P);
  return Out;
}

} // namespace zluda

#endif // ZLUDA_COMMON_FILES_H
