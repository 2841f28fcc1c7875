//===- Fatbin.cpp - CUDA fat binary containers --------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "driver/Fatbin.h"

#include <cerrno>
#include <cstring>
#include <string_view>
#include <sys/uio.h>
#include <unistd.h>
#include <algorithm>
#include <cstdint>
#include <lz4.h>
#include <zstd.h>

namespace zluda::driver {
namespace {

template <typename T> T read(const uint8_t *P) {
  T V;
  std::memcpy(&V, P, sizeof V);
  return V;
}

constexpr uint64_t MaxPayload = uint64_t(1) << 30; // 1 GiB: refuse absurd sizes

/// A claimed decompressed size is believable when it is within what the
/// compressors can reach from the stored bytes (PTX compresses ~10x).
bool plausible(uint64_t Uncompressed, uint64_t Stored) {
  return Uncompressed != 0 && Uncompressed <= MaxPayload && Uncompressed <= Stored * 1024 + 65536;
}

} // namespace

size_t copyReadable(const void *Src, void *Dst, size_t Size) {
  if (!Src || !Size)
    return 0;
  // The kernel copies for us and reports EFAULT instead of a signal; a
  // partial copy ends at the first unreadable page.
  iovec Local{Dst, Size}, Remote{const_cast<void *>(Src), Size};
  ssize_t N = process_vm_readv(getpid(), &Local, 1, &Remote, 1, 0);
  if (N >= 0)
    return static_cast<size_t>(N);
  if (errno != ENOSYS && errno != EPERM)
    return 0;
  // Where process_vm_readv is not allowed: write() into a pipe also checks
  // the source, one page at a time.
  int Fd[2];
  if (pipe(Fd) != 0)
    return 0;
  size_t Done = 0;
  const size_t Page = 4096;
  while (Done < Size) {
    uintptr_t At = reinterpret_cast<uintptr_t>(Src) + Done;
    size_t Chunk = std::min(Size - Done, Page - At % Page);
    ssize_t W = ::write(Fd[1], reinterpret_cast<const void *>(At), Chunk);
    if (W <= 0 || ::read(Fd[0], static_cast<char *>(Dst) + Done, static_cast<size_t>(W)) != W)
      break;
    Done += static_cast<size_t>(W);
  }
  close(Fd[0]);
  close(Fd[1]);
  return Done;
}

bool copyContainer(const void *Data, std::string &Out, std::string &Error) {
  uint8_t Head[16];
  if (copyReadable(Data, Head, sizeof Head) < sizeof Head || read<uint32_t>(Head) != FatbinMagic) {
    Error = "not a readable fat binary";
    return false;
  }
  uint64_t Claimed = fatbinContainerSize(Head);
  if (Claimed < 16 || Claimed > (uint64_t(1) << 31)) {
    Error = "fat binary header claims an impossible size (" + std::to_string(Claimed) + " bytes)";
    return false;
  }
  Out.assign(Claimed, '\0');
  size_t Got = copyReadable(Data, Out.data(), Claimed);
  if (Got < Claimed) {
    Error = "fat binary header claims " + std::to_string(Claimed) + " bytes but only " + std::to_string(Got) +
            " are readable";
    return false;
  }
  return true;
}

uint64_t fatbinContainerSize(const uint8_t *Data) {
  if (read<uint32_t>(Data) != FatbinMagic)
    return 0;
  return uint64_t(read<uint16_t>(Data + 6)) + read<uint64_t>(Data + 8);
}

FatbinResult parseFatbin(const uint8_t *Data, uint64_t Available) {
  FatbinResult R;
  if (!Data || Available < 16) {
    R.Error = "fat binary is truncated (no container header)";
    return R;
  }
  if (read<uint32_t>(Data) != FatbinMagic) {
    R.Error = "not a fat binary (bad magic)";
    return R;
  }
  uint16_t Version = read<uint16_t>(Data + 4);
  uint16_t HeaderSize = read<uint16_t>(Data + 6);
  uint64_t EntriesSize = read<uint64_t>(Data + 8);
  if (Version != 1 || HeaderSize != 16) {
    R.Error = "fat binary container header is corrupt (version " + std::to_string(Version) + ", header size " +
              std::to_string(HeaderSize) + ")";
    return R;
  }
  if (HeaderSize > Available || EntriesSize > Available - HeaderSize) {
    R.Error = "fat binary container sizes exceed the data";
    return R;
  }
  const uint8_t *P = Data + HeaderSize, *End = P + EntriesSize;
  while (P < End) {
    if (End - P < 64) {
      R.Error = "fat binary entry header is truncated";
      return R;
    }
    FatbinEntry E;
    E.Kind = read<uint16_t>(P);
    uint32_t EHeader = read<uint32_t>(P + 4);
    uint64_t Padded = read<uint32_t>(P + 8);
    uint32_t Compressed = read<uint32_t>(P + 16);
    E.PtxVersion = read<uint32_t>(P + 24);
    E.SmArch = read<uint32_t>(P + 28);
    E.Flags = read<uint64_t>(P + 40);
    uint64_t Uncompressed = read<uint64_t>(P + 56);
    if (EHeader < 64 || EHeader > uint64_t(End - P) || Padded > uint64_t(End - P) - EHeader) {
      R.Error = "fat binary entry exceeds its container";
      return R;
    }
    if (E.Kind == 0 || E.Kind > 16 || Compressed > Padded) {
      R.Error = "fat binary entry header is corrupt (kind " + std::to_string(E.Kind) + ", stored " +
                std::to_string(Compressed) + " of " + std::to_string(Padded) + " bytes)";
      return R;
    }
    const uint8_t *Payload = P + EHeader;
    uint64_t Stored = Compressed && Compressed <= Padded ? Compressed : Padded;
    if (E.Flags & 0x2000) { // LZ4 raw block
      if (!plausible(Uncompressed, Stored)) {
        R.Error = "fat binary LZ4 entry has an invalid size";
        return R;
      }
      E.Payload.resize(Uncompressed);
      int N = LZ4_decompress_safe(reinterpret_cast<const char *>(Payload), E.Payload.data(), static_cast<int>(Stored),
                                  static_cast<int>(Uncompressed));
      if (N < 0) {
        R.Error = "fat binary LZ4 payload is corrupt";
        return R;
      }
      E.Payload.resize(N);
    } else if (E.Flags & 0x8000) { // zstd frame
      if (!plausible(Uncompressed, Stored)) {
        R.Error = "fat binary zstd entry has an invalid size";
        return R;
      }
      E.Payload.resize(Uncompressed);
      size_t N = ZSTD_decompress(E.Payload.data(), Uncompressed, Payload, Stored);
      if (ZSTD_isError(N)) {
        R.Error = std::string("fat binary zstd payload is corrupt: ") + ZSTD_getErrorName(N);
        return R;
      }
      E.Payload.resize(N);
    } else {
      E.Payload.assign(reinterpret_cast<const char *>(Payload), Stored);
    }
    if (E.Kind == 1) // embedded PTX ends with NUL padding
      while (!E.Payload.empty() && E.Payload.back() == '\0')
        E.Payload.pop_back();
    R.Entries.push_back(std::move(E));
    P += EHeader + Padded;
  }
  return R;
}

namespace {
/// Whether a PTX entry targets an architecture-specific variant (.target
/// sm_90a, sm_100f): nvcc -arch=compute_90a embeds compute_90 PTX beside it.
bool archSpecificPtx(const FatbinEntry &E) {
  std::string_view P(E.Payload);
  size_t T = P.substr(0, 4096).find(".target sm_");
  if (T == std::string_view::npos)
    return false;
  size_t I = T + 11;
  while (I < P.size() && P[I] >= '0' && P[I] <= '9')
    ++I;
  return I < P.size() && (P[I] == 'a' || P[I] == 'f');
}

/// The entry of \p Kind within [Lo, Hi] for a device of compute capability
/// \p Sm: the highest not above Sm, else the lowest above it; of two PTX
/// entries for one architecture, the architecture-specific one (a superset).
const FatbinEntry *chooseEntry(const FatbinResult &F, uint16_t Kind, uint32_t Sm, uint32_t Lo, uint32_t Hi) {
  const FatbinEntry *Best = nullptr, *Above = nullptr;
  auto better = [&](const FatbinEntry &E, const FatbinEntry *Than) {
    return E.SmArch == Than->SmArch && Kind == 1 && archSpecificPtx(E) && !archSpecificPtx(*Than);
  };
  for (const FatbinEntry &E : F.Entries) {
    if (E.Kind != Kind || E.SmArch < Lo || E.SmArch > Hi)
      continue;
    if (E.SmArch <= Sm) {
      if (!Best || E.SmArch > Best->SmArch || better(E, Best))
        Best = &E;
    } else if (!Above || E.SmArch < Above->SmArch || better(E, Above)) {
      Above = &E;
    }
  }
  return Best ? Best : Above;
}
} // namespace

const FatbinEntry *choosePtx(const FatbinResult &F, uint32_t Sm) { return chooseEntry(F, 1, Sm, 0, UINT32_MAX); }

// Any architecture the SASS front end reads will do (the code is lifted, not
// run as it is).
const FatbinEntry *chooseSass(const FatbinResult &F, uint32_t Sm) { return chooseEntry(F, 2, Sm, 75, 90); }

} // namespace zluda::driver
