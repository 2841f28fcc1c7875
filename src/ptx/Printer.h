//===- Printer.h - PTX IR to text ------------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Writes the IR back as PTX that ptxas accepts and that parses back to
/// an equal module.
#ifndef ZLUDA_PTX_PRINTER_H
#define ZLUDA_PTX_PRINTER_H

#include "ptx/ir/IR.h"

#include <string>

namespace zluda::ptx {

std::string print(const Module &M);
std::string print(const Instruction &I);
std::string print(const Operand &O);

} // namespace zluda::ptx

#endif // ZLUDA_PTX_PRINTER_H
