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

namespace zluda::sass {

/// Lifts the cubin \p Data into PTX text (\p Ptx). False with \p Error set
/// when it cannot be lifted.
bool liftCubin(std::string_view Data, std::string &Ptx, std::string &Error);

} // namespace zluda::sass

#endif // ZLUDA_SASS_LIFT_H
