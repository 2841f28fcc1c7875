//===- Memcheck.cpp - checked memory accesses on the CPU device ------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "cpu/Memcheck.h"
#include "cpu/Racecheck.h"

#include "common/Env.h"
#include "ptx/codegen/Lowering.h"

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <shared_mutex>

namespace zluda::cpu::memcheck {
namespace {

struct Range {
  uintptr_t Base = 0;
  size_t Size = 0;
  std::string What;
};

struct Registry {
  std::shared_mutex Mu;
  std::map<uintptr_t, Range> Live;
  std::deque<Range> Freed; ///< the most recent frees, newest last
  std::atomic<uint64_t> Generation{1};
  std::atomic<uint64_t> Errors{0};
  std::mutex ReportMu;
};

Registry &registry() {
  static Registry *R = new Registry; // used by kernels still running at exit
  return *R;
}

constexpr size_t FreedKept = 4096;

/// The last allocation a thread's access fell in, while no allocation went away since.
struct Hit {
  uintptr_t Base = 0, End = 0;
  uint64_t Generation = 0;
};
thread_local Hit LastHit;

const char *spaceName(uint32_t Space) {
  switch (Space) {
  case 1:
    return "__global__";
  case 2:
    return "__shared__";
  case 3:
    return "__local__";
  case 4:
    return "__constant__";
  default:
    return "__generic__";
  }
}

const char *kindName(uint32_t Kind) {
  switch (Kind & ptx::MemcheckKindMask) {
  case ptx::MemcheckWrite:
    return "write";
  case ptx::MemcheckAtomic:
    return "atomic";
  default:
    return "read";
  }
}

void printSummary() {
  std::fprintf(stderr, "========= ZLUDA memcheck: ERROR SUMMARY: %" PRIu64 " error%s\n", registry().Errors.load(),
               registry().Errors.load() == 1 ? "" : "s");
}

/// Reports one bad access (several threads may fault at once: one report at a time).
void report(const ZludaThreadCtx *C, uintptr_t A, uint64_t Bytes, uint32_t Access, uint32_t Line, const char *Fn,
            const std::string &Why) {
  Registry &R = registry();
  R.Errors.fetch_add(1);
  char Head[512];
  std::snprintf(Head, sizeof Head,
                "========= ZLUDA memcheck: Invalid %s %s of size %" PRIu64 " bytes\n"
                "=========     at %s (PTX line %u)\n"
                "=========     by thread (%u,%u,%u) in block (%u,%u,%u)\n"
                "=========     Address 0x%" PRIxPTR " ",
                spaceName(Access >> ptx::MemcheckSpaceShift), kindName(Access), Bytes, Fn ? Fn : "?", Line, C->Tid[0],
                C->Tid[1], C->Tid[2], C->CtaId[0], C->CtaId[1], C->CtaId[2], A);
  std::string Msg = Head + Why + "\n";
  std::lock_guard<std::mutex> G(R.ReportMu);
  std::fwrite(Msg.data(), 1, Msg.size(), stderr);
  std::fflush(stderr);
}

std::string hex(uintptr_t V) {
  char B[32];
  std::snprintf(B, sizeof B, "0x%" PRIxPTR, V);
  return B;
}

/// Why [A, A + Bytes) is in no live allocation: the freed one it falls in,
/// or the nearest live one.
std::string explainGlobal(uintptr_t A, uint64_t Bytes) {
  Registry &R = registry();
  std::shared_lock<std::shared_mutex> G(R.Mu);
  for (auto It = R.Freed.rbegin(); It != R.Freed.rend(); ++It)
    if (A >= It->Base && A < It->Base + It->Size)
      return "is " + std::to_string(A - It->Base) + " bytes inside a " + It->What + " of " + std::to_string(It->Size) +
             " bytes at " + hex(It->Base) + " that was freed (use after free)";
  if (A < 65536)
    return "is out of bounds (a null pointer, or an offset from one)";
  const Range *Near = nullptr;
  uint64_t Dist = UINT64_MAX;
  std::string Where;
  auto After = R.Live.upper_bound(A);
  if (After != R.Live.begin()) {
    const Range &P = std::prev(After)->second;
    uintptr_t End = P.Base + P.Size;
    if (A < End) // starts inside, ends past the end
      return "is " + std::to_string(A - P.Base) + " bytes inside a " + P.What + " of " + std::to_string(P.Size) +
             " bytes at " + hex(P.Base) + ", and the access runs " + std::to_string(A + Bytes - End) +
             " bytes past its end";
    Near = &P;
    Dist = A - End;
    Where = " bytes after";
  }
  if (After != R.Live.end() && After->second.Base - (A + Bytes) < Dist) {
    Near = &After->second;
    Dist = After->second.Base - (A + Bytes);
    Where = " bytes before";
  }
  if (!Near)
    return "is out of bounds (no allocation is live)";
  return "is out of bounds: it is " + std::to_string(Dist) + Where + " the nearest allocation, a " + Near->What +
         " of " + std::to_string(Near->Size) + " bytes at " + hex(Near->Base);
}

bool inTable(uintptr_t A, uint64_t Bytes) {
  Registry &R = registry();
  uint64_t Gen = R.Generation.load(std::memory_order_acquire);
  Hit &H = LastHit;
  if (H.Generation == Gen && A >= H.Base && A + Bytes <= H.End)
    return true;
  std::shared_lock<std::shared_mutex> G(R.Mu);
  auto It = R.Live.upper_bound(A);
  if (It == R.Live.begin())
    return false;
  const Range &P = std::prev(It)->second;
  if (A + Bytes > P.Base + P.Size)
    return false;
  H = {P.Base, P.Base + P.Size, Gen};
  return true;
}

} // namespace

bool enabled() {
  static const bool On = [] {
    std::string V = env::get("ZLUDA_MEMCHECK");
    // Racecheck sees shared accesses through memcheck's instrumentation.
    bool Yes = (!V.empty() && V != "0" && V != "off") || racecheck::enabled();
    if (Yes)
      std::atexit(printSummary);
    return Yes;
  }();
  return On;
}

void track(const void *P, size_t Size, std::string What) {
  if (!enabled() || !P)
    return;
  Registry &R = registry();
  std::unique_lock<std::shared_mutex> G(R.Mu);
  uintptr_t B = reinterpret_cast<uintptr_t>(P);
  R.Live[B] = Range{B, Size, std::move(What)};
  for (auto It = R.Freed.begin(); It != R.Freed.end();) // the address lives again
    It = It->Base < B + Size && B < It->Base + It->Size ? R.Freed.erase(It) : std::next(It);
}

void untrack(const void *P) {
  if (!enabled() || !P)
    return;
  Registry &R = registry();
  std::unique_lock<std::shared_mutex> G(R.Mu);
  auto It = R.Live.find(reinterpret_cast<uintptr_t>(P));
  if (It == R.Live.end())
    return;
  R.Freed.push_back(std::move(It->second));
  if (R.Freed.size() > FreedKept)
    R.Freed.pop_front();
  R.Live.erase(It);
  R.Generation.fetch_add(1, std::memory_order_release);
}

uint64_t errors() { return registry().Errors.load(); }

int check(const ZludaThreadCtx *C, const char *P, uint64_t Bytes, uint32_t Access, uint32_t Line, const char *Fn) {
  if (Bytes == 0)
    return 0;
  uintptr_t A = reinterpret_cast<uintptr_t>(P);
  const uint32_t Space = Access >> ptx::MemcheckSpaceShift;
  // Natural alignment: an access of 2, 4, 8 or 16 bytes (a vector's whole size).
  if (Bytes <= 16 && (Bytes & (Bytes - 1)) == 0 && (A & (Bytes - 1))) {
    report(C, A, Bytes, Access, Line, Fn, "is misaligned");
    return 2;
  }
  auto within = [&](const char *Lo, uint64_t Size) {
    uintptr_t L = reinterpret_cast<uintptr_t>(Lo);
    return A >= L && A - L <= Size && Bytes <= Size - (A - L);
  };
  const bool InShared = within(C->SharedBase, C->SharedBytes);
  const bool InStack = within(C->StackLo, static_cast<uint64_t>(C->StackHi - C->StackLo));
  switch (Space) {
  case 2: // .shared: the block's window
    if (InShared)
      return 0;
    report(C, A, Bytes, Access, Line, Fn,
           "is out of bounds: the block's shared memory is " + std::to_string(C->SharedBytes) + " bytes at " +
               hex(reinterpret_cast<uintptr_t>(C->SharedBase)) + " (offset " +
               std::to_string(static_cast<int64_t>(A - reinterpret_cast<uintptr_t>(C->SharedBase))) + ")");
    return 1;
  case 3: // .local: the thread's stack
    if (InStack)
      return 0;
    report(C, A, Bytes, Access, Line, Fn, "is out of bounds of the thread's local memory");
    return 1;
  case 0: // generic: any window
    if (InShared || InStack)
      return 0;
    [[fallthrough]];
  default:
    if (inTable(A, Bytes))
      return 0;
    report(C, A, Bytes, Access, Line, Fn, explainGlobal(A, Bytes));
    return 1;
  }
}

} // namespace zluda::cpu::memcheck
