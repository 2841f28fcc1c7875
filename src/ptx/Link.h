//===- Link.h - linking several PTX modules into one -----------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file What cuLinkComplete does with its inputs: the PTX of every input
/// (and of every archive member that resolves a symbol still undefined) is
/// merged into one module whose printed text is the linked image.
///
/// Rules, as NVIDIA's linker applies them to relocatable device code:
///  - .visible definitions are global: two of one name are a "duplicate
///    symbol" error; a .weak or .common definition yields to a .visible one
///    and to the first .weak one.
///  - .extern declarations resolve against the other inputs' definitions; one
///    left without a definition is an "undefined symbol" error naming it and
///    the input that refers to it, unless the device runtime provides it
///    (vprintf, malloc, the -rdc device runtime's entry points: builtins.h).
///  - definitions without linkage are private to their input: one whose name
///    another input also uses is renamed (name$zl<input>).
///  - archive members (Lazy inputs) are taken only when they define a symbol
///    that is still undefined, until nothing more is resolved.
#ifndef ZLUDA_PTX_LINK_H
#define ZLUDA_PTX_LINK_H

#include <string>
#include <vector>

namespace zluda::ptx {

struct LinkInput {
  std::string Name; ///< for messages: a file name, "input 2", "libcudadevrt.a(x.o)"
  std::string Ptx;
  bool Lazy = false; ///< an archive member: linked only if it resolves a symbol
};

struct LinkResult {
  std::string Ptx;   ///< the linked module (empty on error)
  std::string Error; ///< what went wrong, naming the input, line and symbol
  std::string Info;  ///< what was linked (for CU_JIT_INFO_LOG_BUFFER)
  bool ok() const { return Error.empty(); }
};

struct LinkOptions {
  /// CU_JIT_MAX_REGISTERS: every kernel gets .maxnreg (or keeps a smaller one).
  unsigned MaxRegisters = 0;
};

LinkResult link(const std::vector<LinkInput> &Inputs, const LinkOptions &Opts = {});

/// .extern functions that the compiler provides itself (no input defines them).
bool isBuiltinExtern(const std::string &Name);

} // namespace zluda::ptx

#endif // ZLUDA_PTX_LINK_H
