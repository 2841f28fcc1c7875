//===- Env.cpp - environment flags -----------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "common/Env.h"

#include <cstdlib>

namespace zluda::env {

const std::vector<FlagInfo> &allFlags() {
  static const std::vector<FlagInfo> Flags = {
#define ZLUDA_ENV(Name, Default, Help) {#Name, Default, Help},
#include "common/EnvFlags.def"
  };
  return Flags;
}

std::string get(std::string_view Name) {
  std::string N(Name);
  if (const char *V = std::getenv(N.c_str()))
    return V;
  for (const FlagInfo &F : allFlags())
    if (F.Name == Name)
      return std::string(F.Default);
  return {};
}

} // namespace zluda::env
