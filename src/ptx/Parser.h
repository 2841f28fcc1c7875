//===- Parser.h - PTX parser -----------------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Recursive-descent parser from PTX text to the IR of ptx/ir/IR.h.
#ifndef ZLUDA_PTX_PARSER_H
#define ZLUDA_PTX_PARSER_H

#include "ptx/ir/IR.h"

#include <optional>
#include <string>
#include <string_view>

namespace zluda::ptx {

/// A parse error: where, and what (LLVM style: lower-case, no period).
struct Diagnostic {
  uint32_t Line = 0, Col = 0;
  std::string Message;
  /// "file:line:col: error: message"
  std::string format(std::string_view File) const;
};

struct ParseResult {
  std::optional<Module> Mod;
  Diagnostic Error; ///< meaningful when !Mod
  bool ok() const { return Mod.has_value(); }
};

/// Parses a whole PTX module. Never throws and never crashes: any input gives
/// either a module or the first error with its line and column. A trailing
/// NUL (as embedded in fat binaries) is accepted.
ParseResult parse(std::string_view Src) noexcept;

} // namespace zluda::ptx

#endif // ZLUDA_PTX_PARSER_H
