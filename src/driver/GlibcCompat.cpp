//===- GlibcCompat.cpp - glibc functions newer than the release's floor ---===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file The release tarball runs on glibc 2.34 and newer (scripts/release).
/// LLVM's static libraries, built on a newer glibc, call arc4random (glibc
/// 2.36); this local definition satisfies them at link time, so libcuda.so.1
/// asks nothing of glibc newer than 2.34. Not exported (libcuda.map).
#include <cstdint>
#include <sys/random.h>

extern "C" uint32_t arc4random(void) {
  uint32_t V = 0;
  while (getrandom(&V, sizeof V, 0) != static_cast<ssize_t>(sizeof V)) {
  }
  return V;
}
