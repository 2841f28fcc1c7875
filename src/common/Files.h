//===- Files.h - whole files in and out --------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#ifndef ZLUDA_COMMON_FILES_H
#define ZLUDA_COMMON_FILES_H

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

} // namespace zluda

#endif // ZLUDA_COMMON_FILES_H
