//===- PtxLoweringFuzz.cpp - libFuzzer target for lowering and codegen ----===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file PTX the parser accepts goes through the whole compiler: lowering to
/// LLVM IR, the verifier, and x86-64 code generation. Any input must compile
/// or fail with an error; a crash, an abort or an invalid module is a bug.
#include "ptx/Parser.h"
#include "ptx/codegen/Lowering.h"

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace {

llvm::TargetMachine *hostMachine() {
  static llvm::TargetMachine *TM = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    std::string Err, Triple = "x86_64-unknown-linux-gnu";
    const llvm::Target *T = llvm::TargetRegistry::lookupTarget(Triple, Err);
    if (!T) {
      std::fprintf(stderr, "no x86-64 target: %s\n", Err.c_str());
      std::abort();
    }
    return T->createTargetMachine(Triple, "x86-64", "", {}, llvm::Reloc::PIC_);
  }();
  return TM;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string_view Src(reinterpret_cast<const char *>(Data), Size);
  zluda::ptx::ParseResult R = zluda::ptx::parse(Src);
  if (!R.ok())
    return 0;
  llvm::TargetMachine *TM = hostMachine();
  zluda::ptx::LoweringOptions Opts;
  Opts.TargetTriple = TM->getTargetTriple().str();
  Opts.DataLayout = TM->createDataLayout().getStringRepresentation();
  auto L = zluda::ptx::lowerToLLVM(*R.Mod, Opts);
  if (!L) {
    llvm::consumeError(L.takeError());
    return 0;
  }
  if (llvm::Error E = zluda::ptx::verifyModule(*L->Mod)) {
    std::string Msg = llvm::toString(std::move(E));
    std::fprintf(stderr, "lowering made an invalid module: %s\n", Msg.substr(0, 2000).c_str());
    std::abort();
  }
  llvm::SmallVector<char, 0> Obj;
  llvm::raw_svector_ostream OS(Obj);
  llvm::legacy::PassManager PM;
  if (TM->addPassesToEmitFile(PM, OS, nullptr, llvm::CGFT_ObjectFile))
    std::abort();
  PM.run(*L->Mod);
  return 0;
}
