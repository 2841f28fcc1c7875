//===- Lift.h - SASS lifted into PTX ---------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The SASS front end's last step: a cubin's kernels become a PTX
/// module (registers R0..R254 as %r0..%r254, predicates as %p0..%p6, uniform
/// registers as %ur0..%ur62, bank 0's parameters from the kernel's .param
/// space, the driver's constants from PTX's special registers, branch targets
/// as labels), which the PTX compiler then serves like any other: the CPU
/// device, the AMDGPU target, the compile cache and `zluda compile`. A cubin
/// with an instruction or constant the lifter cannot give its exact meaning is
/// refused, naming the kernel, the offset, the encoding and the instruction.
#ifndef ZLUDA_SASS_LIFT_H
#define ZLUDA_SASS_LIFT_H

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zluda::sass {

/// A cubin's named variable (__device__, __constant__) in the lifted module:
/// \p Offset bytes into the module variable \p Storage.
struct LiftedSymbol {
  std::string Name;
  std::string Storage;
  uint64_t Offset = 0, Size = 0;
};

struct LiftedModule {
  std::string Ptx;
  /// Kernels that could not be lifted, with why (kernel+offset, encoding,
  /// instruction). Each keeps an entry in Ptx (its parameters, for
  /// attributes) whose body traps; the driver refuses to launch it.
  std::vector<std::pair<std::string, std::string>> Refused;
  std::vector<LiftedSymbol> Symbols;
};

/// Lifts the cubin \p Data. False with \p Error set when the cubin cannot be
/// read, or it has kernels and none of them can be lifted (a cubin without
/// kernels gives a module of its variables only).
bool liftCubin(std::string_view Data, LiftedModule &Out, std::string &Error);

/// As above, all or nothing: false with \p Error naming the first kernel that
/// cannot be lifted.
bool liftCubin(std::string_view Data, std::string &Ptx, std::string &Error);

} // namespace zluda::sass

#endif // ZLUDA_SASS_LIFT_H
