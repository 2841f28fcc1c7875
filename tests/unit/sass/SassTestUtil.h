//===- SassTestUtil.h - helpers shared by the SASS front end's tests ------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#ifndef ZLUDA_TESTS_SASS_SASSTESTUTIL_H
#define ZLUDA_TESTS_SASS_SASSTESTUTIL_H

#include "../ptx/TestUtil.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace zluda::test {

/// This machine's ptxas's cubin of \p Ptx (whose ".target sm_XX" becomes
/// sm_<Arch>); "" without ptxas or when ptxas refuses it (callers skip).
inline std::string ptxasCubin(std::string Ptx, const std::string &Arch) {
  std::string PtxAs = ptxasPath();
  if (PtxAs.empty())
    return {};
  Ptx.replace(Ptx.find("sm_XX"), 5, "sm_" + Arch);
  std::string Dir = std::filesystem::temp_directory_path() / ("zluda-sass-" + std::to_string(getpid()));
  std::filesystem::create_directories(Dir);
  {
    std::ofstream O(Dir + "/k.ptx");
    O << Ptx;
  }
  std::string Out = Dir + "/k.cubin", C;
  if (std::system((PtxAs + " -arch=sm_" + Arch + " " + Dir + "/k.ptx -o " + Out + " > /dev/null 2>&1").c_str()) == 0)
    C = readFile(Out);
  std::filesystem::remove_all(Dir);
  return C;
}

} // namespace zluda::test

#endif // ZLUDA_TESTS_SASS_SASSTESTUTIL_H
