//===- Serialize.h - bounds-checked byte writers and readers for entries ---===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file How the compilers lay out their cache entries: little-endian
/// integers, length-prefixed strings. Every read is bounds-checked; one
/// overrun marks the whole entry bad, and a bad entry is recompiled.
#ifndef ZLUDA_CACHE_SERIALIZE_H
#define ZLUDA_CACHE_SERIALIZE_H

#include "cache/CompileCache.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace zluda::cache {

class Writer {
public:
  cache::Blob Out;
  void bytes(const void *P, size_t N) {
    auto *B = static_cast<const uint8_t *>(P);
    Out.insert(Out.end(), B, B + N);
  }
  void u8(uint8_t V) { bytes(&V, 1); }
  void u32(uint32_t V) { bytes(&V, 4); }
  void u64(uint64_t V) { bytes(&V, 8); }
  void str(const std::string &S) {
    u32(uint32_t(S.size()));
    bytes(S.data(), S.size());
  }
  void strs(const std::vector<std::string> &V) {
    u32(uint32_t(V.size()));
    for (const std::string &S : V)
      str(S);
  }
  /// An entry's first bytes: what kind of entry (and layout version) it is.
  void magic(const char (&M)[8]) { bytes(M, sizeof(M)); }
  /// Bytes of any size (an object file), with a 64-bit length.
  void blob(const void *P, size_t N) {
    u64(N);
    bytes(P, N);
  }
};

/// Bounds-checked reads; any overrun marks the whole entry bad.
class Reader {
public:
  Reader(const cache::Blob &B) : B(B) {}
  bool Bad = false;
  bool bytes(void *P, size_t N) {
    if (Bad || B.size() - Pos < N) {
      Bad = true;
      return false;
    }
    std::memcpy(P, B.data() + Pos, N);
    Pos += N;
    return true;
  }
  uint8_t u8() { uint8_t V = 0; bytes(&V, 1); return V; }
  uint32_t u32() { uint32_t V = 0; bytes(&V, 4); return V; }
  uint64_t u64() { uint64_t V = 0; bytes(&V, 8); return V; }
  /// A count of items of at least \p MinSize bytes each that must still fit.
  uint32_t count(size_t MinSize) {
    uint32_t N = u32();
    if (!Bad && uint64_t(N) * MinSize > B.size() - Pos)
      Bad = true;
    return Bad ? 0 : N;
  }
  std::string str() {
    uint32_t N = count(1);
    std::string S(N, '\0');
    bytes(S.data(), N);
    return S;
  }
  const uint8_t *take(size_t N) {
    if (Bad || B.size() - Pos < N) {
      Bad = true;
      return nullptr;
    }
    const uint8_t *P = B.data() + Pos;
    Pos += N;
    return P;
  }
  std::vector<std::string> strs() {
    std::vector<std::string> V;
    uint32_t N = count(4);
    for (uint32_t I = 0; I < N && !Bad; ++I)
      V.push_back(str());
    return V;
  }
  /// False (and the entry bad) unless the next bytes are \p M.
  bool magic(const char (&M)[8]) {
    char Got[sizeof(M)];
    if (!bytes(Got, sizeof(Got)) || std::memcmp(Got, M, sizeof(M)) != 0)
      Bad = true;
    return !Bad;
  }
  std::string blob() {
    uint64_t N = u64();
    const uint8_t *P = take(N);
    return P ? std::string(reinterpret_cast<const char *>(P), N) : std::string();
  }
  bool atEnd() const { return !Bad && Pos == B.size(); }

private:
  const cache::Blob &B;
  size_t Pos = 0;
};

} // namespace zluda::cache

#endif // ZLUDA_CACHE_SERIALIZE_H
