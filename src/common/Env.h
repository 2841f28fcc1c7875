//===- Env.h - environment flags -------------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Typed access to the variables of EnvFlags.def.
#ifndef ZLUDA_COMMON_ENV_H
#define ZLUDA_COMMON_ENV_H

#include <string>
#include <string_view>
#include <vector>

namespace zluda::env {

struct FlagInfo {
  std::string_view Name, Default, Help;
};

/// Every flag of EnvFlags.def, in table order.
const std::vector<FlagInfo> &allFlags();

/// The variable's value, or its default from the table when unset.
std::string get(std::string_view Name);

} // namespace zluda::env

#endif // ZLUDA_COMMON_ENV_H
