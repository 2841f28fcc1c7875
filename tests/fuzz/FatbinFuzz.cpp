//===- FatbinFuzz.cpp - libFuzzer target for the fat binary parser ---------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Any bytes must parse or fail cleanly (no out-of-bounds read, no
/// unbounded allocation).
#include "driver/Fatbin.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  zluda::driver::FatbinResult R = zluda::driver::parseFatbin(Data, Size);
  if (R.ok())
    (void)zluda::driver::choosePtx(R, 86);
  return 0;
}
