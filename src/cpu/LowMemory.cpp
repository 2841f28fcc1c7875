//===- LowMemory.cpp - memory a 32-bit address reaches ---------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A first-fit allocator over the reserved region: free ranges by
/// address (coalesced on release), blocks by address with their size.
#include "cpu/LowMemory.h"

#include "common/Log.h"

#include <map>
#include <mutex>
#include <sys/mman.h>

namespace zluda::cpu {

struct LowMemory::Impl {
  std::mutex Mu;
  std::map<uintptr_t, size_t> Free; ///< start -> length
  std::map<uintptr_t, std::pair<uintptr_t, size_t>> Used; ///< returned address -> (range start, length)
};

LowMemory::LowMemory() : I(new Impl) {
#ifdef MAP_FIXED_NOREPLACE
  size_t Want = RegionEnd - RegionStart;
  void *P = mmap(reinterpret_cast<void *>(RegionStart), Want, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (P != MAP_FAILED && reinterpret_cast<uintptr_t>(P) == RegionStart) {
    Base = static_cast<char *>(P);
    Size = Want;
    I->Free[RegionStart] = Want;
  } else {
    if (P != MAP_FAILED)
      munmap(P, Want);
    ZLUDA_LOG_INFO("the low 4 GiB of address space are taken: .address_size 32 modules cannot run");
  }
#endif
}

LowMemory &LowMemory::get() {
  static LowMemory *M = new LowMemory; // never unmapped: kernels may run at exit
  return *M;
}

void *LowMemory::allocate(size_t Bytes, size_t Align) {
  if (!Base || Bytes == 0 || Bytes > Size)
    return nullptr;
  Bytes = (Bytes + 255) & ~size_t(255);
  std::lock_guard<std::mutex> G(I->Mu);
  for (auto It = I->Free.begin(); It != I->Free.end(); ++It) {
    uintptr_t Start = It->first, Len = It->second;
    uintptr_t At = (Start + Align - 1) & ~uintptr_t(Align - 1);
    if (At + Bytes > Start + Len)
      continue;
    uintptr_t End = At + Bytes;
    I->Free.erase(It);
    if (At > Start)
      I->Free[Start] = At - Start;
    if (Start + Len > End)
      I->Free[End] = Start + Len - End;
    I->Used[At] = {At, Bytes};
    return reinterpret_cast<void *>(At);
  }
  return nullptr;
}

void LowMemory::release(void *P) {
  std::lock_guard<std::mutex> G(I->Mu);
  auto It = I->Used.find(reinterpret_cast<uintptr_t>(P));
  if (It == I->Used.end())
    return;
  auto [Start, Len] = It->second;
  I->Used.erase(It);
  // Whole pages inside the block go back to the system (and read as zero).
  uintptr_t PageLo = (Start + 4095) & ~uintptr_t(4095), PageHi = (Start + Len) & ~uintptr_t(4095);
  if (PageHi > PageLo) {
    madvise(reinterpret_cast<void *>(PageLo), PageHi - PageLo, MADV_DONTNEED);
    mprotect(reinterpret_cast<void *>(PageLo), PageHi - PageLo, PROT_READ | PROT_WRITE);
  }
  auto Next = I->Free.lower_bound(Start);
  if (Next != I->Free.end() && Next->first == Start + Len) {
    Len += Next->second;
    Next = I->Free.erase(Next);
  }
  if (Next != I->Free.begin()) {
    auto Prev = std::prev(Next);
    if (Prev->first + Prev->second == Start) {
      Prev->second += Len;
      return;
    }
  }
  I->Free[Start] = Len;
}

bool LowMemory::owns(const void *P) const {
  uintptr_t A = reinterpret_cast<uintptr_t>(P);
  return Base && A >= reinterpret_cast<uintptr_t>(Base) && A < reinterpret_cast<uintptr_t>(Base) + Size;
}

} // namespace zluda::cpu
