//===- Integrity.cpp - MD2, HMAC-MD2 and the runtime integrity check ------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "driver/Integrity.h"

#include <cstring>

namespace zluda::driver {
namespace {

// RFC 1319 section 3.2: permutation of 0..255 from the digits of pi.
constexpr uint8_t PiSubst[256] = {
    41,  46,  67,  201, 162, 216, 124, 1,   61,  54,  84,  161, 236, 240, 6,   19,  98,  167, 5,   243, 192, 199,
    115, 140, 152, 147, 43,  217, 188, 76,  130, 202, 30,  155, 87,  60,  253, 212, 224, 22,  103, 66,  111, 24,
    138, 23,  229, 18,  190, 78,  196, 214, 218, 158, 222, 73,  160, 251, 245, 142, 187, 47,  238, 122, 169, 104,
    121, 145, 21,  178, 7,   63,  148, 194, 16,  137, 11,  34,  95,  33,  128, 127, 93,  154, 90,  144, 50,  39,
    53,  62,  204, 231, 191, 247, 151, 3,   255, 25,  48,  179, 72,  165, 181, 209, 215, 94,  146, 42,  172, 86,
    170, 198, 79,  184, 56,  210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116, 4,   241, 69,  157, 112, 89,
    100, 113, 135, 32,  134, 91,  207, 101, 230, 45,  168, 2,   27,  96,  37,  173, 174, 176, 185, 246, 28,  70,
    97,  105, 52,  64,  126, 15,  85,  71,  163, 35,  221, 81,  175, 58,  195, 92,  249, 206, 186, 197, 234, 38,
    44,  83,  13,  110, 133, 40,  132, 9,   211, 223, 205, 244, 65,  129, 77,  82,  106, 220, 55,  200, 108, 193,
    171, 250, 36,  225, 123, 8,   12,  189, 177, 74,  120, 136, 149, 139, 227, 99,  232, 109, 233, 203, 213, 254,
    59,  0,   29,  57,  242, 239, 183, 14,  102, 88,  208, 228, 166, 119, 114, 248, 235, 117, 75,  10,  49,  68,
    80,  180, 143, 237, 31,  26,  219, 153, 141, 51,  159, 17,  131, 20};

void put32(std::vector<uint8_t> &M, uint32_t V) {
  for (int I = 0; I < 4; ++I)
    M.push_back(static_cast<uint8_t>(V >> (8 * I)));
}
void put64(std::vector<uint8_t> &M, uint64_t V) {
  for (int I = 0; I < 8; ++I)
    M.push_back(static_cast<uint8_t>(V >> (8 * I)));
}

} // namespace

std::array<uint8_t, 16> md2(const uint8_t *Data, size_t Size) {
  // Padding to a multiple of 16 with the pad length, then the checksum block.
  std::vector<uint8_t> M(Data, Data + Size);
  uint8_t Pad = static_cast<uint8_t>(16 - M.size() % 16);
  M.insert(M.end(), Pad, Pad);
  uint8_t C[16] = {};
  uint8_t L = 0;
  for (size_t I = 0; I < M.size(); I += 16)
    for (int J = 0; J < 16; ++J) {
      C[J] ^= PiSubst[M[I + J] ^ L];
      L = C[J];
    }
  M.insert(M.end(), C, C + 16);
  uint8_t X[48] = {};
  for (size_t I = 0; I < M.size(); I += 16) {
    for (int J = 0; J < 16; ++J) {
      X[16 + J] = M[I + J];
      X[32 + J] = X[16 + J] ^ X[J];
    }
    uint8_t T = 0;
    for (int J = 0; J < 18; ++J) {
      for (int K = 0; K < 48; ++K)
        T = X[K] ^= PiSubst[T];
      T = static_cast<uint8_t>(T + J);
    }
  }
  std::array<uint8_t, 16> Out;
  std::memcpy(Out.data(), X, 16);
  return Out;
}

std::array<uint8_t, 16> hmacMd2(const uint8_t *Key, size_t KeySize, const uint8_t *Msg, size_t MsgSize) {
  uint8_t K[16] = {};
  if (KeySize > 16) {
    auto H = md2(Key, KeySize);
    std::memcpy(K, H.data(), 16);
  } else {
    std::memcpy(K, Key, KeySize);
  }
  std::vector<uint8_t> Inner(16), Outer(16);
  for (int I = 0; I < 16; ++I) {
    Inner[I] = K[I] ^ 0x36;
    Outer[I] = K[I] ^ 0x5c;
  }
  Inner.insert(Inner.end(), Msg, Msg + MsgSize);
  auto IH = md2(Inner.data(), Inner.size());
  Outer.insert(Outer.end(), IH.begin(), IH.end());
  return md2(Outer.data(), Outer.size());
}

std::array<uint8_t, 16> integrityResult(const IntegrityInput &In) {
  std::array<uint8_t, 16> Out;
  if (In.RuntimeVersion % 10 < 2) {
    static constexpr uint8_t Fixed[16] = {0x5C, 0x67, 0xCB, 0x03, 0x1C, 0x18, 0x41, 0x33,
                                          0xE8, 0xD1, 0x4C, 0x1F, 0xAA, 0x83, 0xD3, 0x8E};
    std::memcpy(Out.data(), Fixed, 16);
    if (In.RuntimeVersion % 10 == 1)
      Out[7] = 24;
    return Out;
  }
  static constexpr uint8_t Key[16] = {0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52,
                                      0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f};
  std::vector<uint8_t> M;
  put32(M, In.DriverVersion);
  put32(M, In.RuntimeVersion);
  put32(M, In.Pid);
  put32(M, In.ThreadId);
  put64(M, In.Table6bd5);
  put64(M, In.TableD408);
  put64(M, In.CheckFn);
  put64(M, In.UnixTime);
  for (const IntegrityDevice &D : In.Devices) {
    M.insert(M.end(), D.Uuid, D.Uuid + 16);
    put32(M, D.PciDomain);
    put32(M, D.PciBus);
    put32(M, D.PciDevice);
  }
  return hmacMd2(Key, 16, M.data(), M.size());
}

} // namespace zluda::driver
