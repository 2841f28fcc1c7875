//===- Racecheck.h - shared-memory hazards on the CPU device ---------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file `zluda run --racecheck` / ZLUDA_RACECHECK=1: every shared-memory
/// access of a kernel (through memcheck's instrumentation, which racecheck
/// turns on) is recorded per 4-byte word with the thread that made it and
/// how many barriers and warp synchronizations that thread had passed. Two
/// accesses of different threads to one word, at least one a write, with no
/// barrier between them (the same number passed), and for lanes of one warp
/// no warp synchronization either, are a hazard: reported as
/// compute-sanitizer's racecheck reports it (the two accesses' kinds, PTX
/// lines, threads, the block and the shared offset), once per pair of
/// source lines. The launch itself goes on. Atomics are never hazards. An
/// mbarrier wait that finds its phase complete counts as a barrier passed
/// (cuda::barrier, cuda::pipeline); named barriers and barriers with a thread
/// count order their threads as a block barrier would.
#ifndef ZLUDA_CPU_RACECHECK_H
#define ZLUDA_CPU_RACECHECK_H

#include "cpu/DeviceAbi.h"

#include <cstdint>
#include <vector>

namespace zluda::cpu::racecheck {

/// ZLUDA_RACECHECK=1 (read once).
bool enabled();

/// What a thread has synchronized with so far in its block.
struct Epochs {
  uint32_t Block = 0; ///< barriers passed
  uint32_t Warp = 0;  ///< warp collectives (__syncwarp, shuffles, votes...) passed
};

/// The last accesses of each 4-byte word of a block's shared memory.
class Shadow {
public:
  /// A new block with \p Bytes of shared memory: nothing accessed yet.
  void reset(uint64_t Bytes);
  /// Records the access of \p Bytes at byte \p Offset of the shared window by
  /// the thread \p C (its epochs \p E), reporting a hazard with an earlier one.
  void access(const ZludaThreadCtx *C, const Epochs &E, uint64_t Offset, uint64_t Bytes, bool Write, uint32_t Line,
              const char *Fn);

private:
  struct Slot {
    uint32_t Tid = 0, Block = 0, Warp = 0, Line = 0; ///< the thread (linear id + 1; 0: none), its epochs, its PTX line
    const char *Fn = nullptr;                        ///< the function and source line (memcheck's text)
  };
  struct Cell {
    Slot Write;        ///< the last write
    Slot Read, Other;  ///< the first read in the last write's block epoch or later, and the last by another thread
  };
  std::vector<Cell> Cells;
};

/// The hazards reported so far in this process.
uint64_t hazards();

} // namespace zluda::cpu::racecheck

#endif // ZLUDA_CPU_RACECHECK_H
