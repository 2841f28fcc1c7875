//===- Racecheck.cpp - shared-memory hazards on the CPU device -------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "cpu/Racecheck.h"

#include "common/Env.h"

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <tuple>

namespace zluda::cpu::racecheck {
namespace {

struct Reports {
  std::mutex Mu;
  std::set<std::tuple<uint32_t, uint32_t, int>> Seen; ///< (earlier line, later line, kind) already reported
  std::atomic<uint64_t> Hazards{0};
};

Reports &reports() {
  static Reports *R = new Reports; // used by kernels still running at exit
  return *R;
}

void printSummary() {
  uint64_t N = reports().Hazards.load();
  std::fprintf(stderr, "========= ZLUDA racecheck: RACECHECK SUMMARY: %" PRIu64 " hazard%s displayed\n", N,
               N == 1 ? "" : "s");
}

enum Kind { RAW, WAR, WAW };

/// Thread \p Tid1 (linear, + 1) and the reporting thread \p C: unordered when
/// they passed as many barriers and, in one warp, as many warp collectives.
bool unordered(uint32_t Tid1, uint32_t Block1, uint32_t Warp1, const ZludaThreadCtx *C, const Epochs &E) {
  if (!Tid1 || Tid1 - 1 == C->LinearTid || Block1 != E.Block)
    return false;
  bool SameWarp = (Tid1 - 1) / 32 == C->LinearTid / 32;
  return !SameWarp || Warp1 == E.Warp;
}

void report(Kind K, uint32_t OtherTid, uint32_t OtherLine, const char *OtherFn, const ZludaThreadCtx *C,
            uint32_t Line, const char *Fn, uint64_t Offset) {
  Reports &R = reports();
  std::lock_guard<std::mutex> G(R.Mu); // one report at a time, each pair of lines once
  if (!R.Seen.insert({OtherLine, Line, K}).second)
    return;
  R.Hazards.fetch_add(1);
  static const char *First[] = {"Write", "Read", "Write"}, *Second[] = {"Read", "Write", "Write"};
  uint32_t O = OtherTid - 1, NX = C->NTid[0], NY = C->NTid[1];
  char Msg[768];
  std::snprintf(Msg, sizeof Msg,
                "========= ZLUDA racecheck: Error: Race reported between %s access at %s (PTX line %u) by thread "
                "(%u,%u,%u)\n"
                "=========     and %s access at %s (PTX line %u) by thread (%u,%u,%u) in block (%u,%u,%u)\n"
                "=========     on shared memory at offset %" PRIu64 " (no barrier between them)\n",
                First[K], OtherFn ? OtherFn : "?", OtherLine, O % NX, O / NX % NY, O / NX / NY, Second[K], Fn ? Fn : "?",
                Line, C->Tid[0], C->Tid[1], C->Tid[2], C->CtaId[0], C->CtaId[1], C->CtaId[2], Offset);
  std::fputs(Msg, stderr);
  std::fflush(stderr);
}

} // namespace

bool enabled() {
  static const bool On = [] {
    std::string V = env::get("ZLUDA_RACECHECK");
    bool Yes = !V.empty() && V != "0" && V != "off";
    if (Yes)
      std::atexit(printSummary);
    return Yes;
  }();
  return On;
}

uint64_t hazards() { return reports().Hazards.load(); }

void Shadow::reset(uint64_t Bytes) { Cells.assign((Bytes + 3) / 4, Cell{}); }

void Shadow::access(const ZludaThreadCtx *C, const Epochs &E, uint64_t Offset, uint64_t Bytes, bool Write,
                    uint32_t Line, const char *Fn) {
  const uint32_t Tid = C->LinearTid + 1;
  auto hazard = [&](const Slot &S) { return unordered(S.Tid, S.Block, S.Warp, C, E); };
  for (uint64_t W = Offset / 4; W < (Offset + Bytes + 3) / 4 && W < Cells.size(); ++W) {
    Cell &X = Cells[W];
    if (X.Read.Tid && X.Read.Block != E.Block) // reads of an earlier block epoch are ordered before this
      X.Read = X.Other = Slot{};
    if (hazard(X.Write))
      report(Write ? WAW : RAW, X.Write.Tid, X.Write.Line, X.Write.Fn, C, Line, Fn, W * 4);
    Slot Me{Tid, E.Block, E.Warp, Line, Fn};
    if (Write) {
      if (hazard(X.Read))
        report(WAR, X.Read.Tid, X.Read.Line, X.Read.Fn, C, Line, Fn, W * 4);
      else if (hazard(X.Other))
        report(WAR, X.Other.Tid, X.Other.Line, X.Other.Fn, C, Line, Fn, W * 4);
      X.Write = Me;
    } else if (!X.Read.Tid) {
      X.Read = Me;
    } else if (X.Read.Tid != Tid) {
      X.Other = Me;
    } else {
      X.Read = Me; // the same thread again: its latest epochs
    }
  }
}

} // namespace zluda::cpu::racecheck
