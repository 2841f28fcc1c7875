//===- Regions.h - work-item loops between barriers ------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Kernels whose threads wait for each other (barriers, warp
/// collectives) run without a fiber per thread: the compiler turns the kernel
/// into a resumable per-thread function that runs from one wait to the next
/// and returns there (the wait's "resume point"), plus one loop per resume
/// point that runs a row of the block's threads through it. Values live
/// across a wait are kept in a per-thread frame; the executor completes the
/// waits (barriers, shuffles, votes...) between loops. Shared by the
/// generated code (Regions.cpp emits it) and the executor (Executor.cpp).
///
/// Frame layout, structure of arrays: the frame of a block of N threads has
/// per-thread slots; slot s of S bytes at per-thread offset O is the array
/// `Frames + O * N` of N elements of S bytes. The first slots are the wait's
/// request and result (below), then the kernel's values.
#ifndef ZLUDA_CPU_REGIONS_H
#define ZLUDA_CPU_REGIONS_H

#include "cpu/DeviceAbi.h"

#include <cstdint>
#include <string>

namespace llvm {
class Function;
class LLVMContext;
class MDNode;
class Module;
} // namespace llvm

namespace zluda::cpu::regions {

// Per-thread offsets of the request and result slots.
constexpr unsigned OffV = 0;        ///< u64: the collective's 64-bit operand (match) or value (shfl)
constexpr unsigned OffRes = 8;      ///< u64: the wait's result, written by the executor
constexpr unsigned OffOp = 16;      ///< u32: Op
constexpr unsigned OffArgs = 20;    ///< u32 x MaxArgs: the call's 32-bit operands, in order
constexpr unsigned MaxArgs = 5;
constexpr unsigned OffResPred = 40; ///< u32: the predicate result (shfl, match)
constexpr unsigned HeadBytes = 64;  ///< kernel slots start here (64-byte aligned arrays)

/// What a thread waits for when it returns at a resume point; the operands
/// are those of the device runtime call it replaces (ptx/codegen/DeviceRuntime.def).
enum Op : uint32_t { Barrier = 1, WarpSync, Activemask, Shfl, Vote, Match, Redux, Yield };

/// At most this many resume points get a loop of their own; a thread at a
/// later point runs through `.rgnany`.
constexpr unsigned MaxLoops = 16;

/// `<kernel>.regions`: describes the entry points below.
struct Info {
  uint64_t FrameBytes;   ///< per thread (a multiple of 64)
  uint32_t Points;       ///< resume points: 0 is the kernel's entry, then one per wait
  uint32_t Loops;        ///< `<kernel>.rgn.<k>` exists for k < Loops
  uint64_t UniformBytes; ///< the block's uniform area (a multiple of 64; 0: none)
  uint32_t Uniforms;     ///< entries of `<kernel>.uniforms`
  uint32_t Reserved;
};

/// `<kernel>.uniforms`: UniformSlot[Info.Uniforms], where each value of the
/// uniform area also lives in the per-thread frame (the executor adopts the
/// threads' copies when a block gets back in step and they all agree).
struct UniformSlot {
  uint32_t Area;  ///< offset in the uniform area
  uint32_t Frame; ///< per-thread frame offset of the thread's own copy
  uint32_t Size;
};
static_assert(sizeof(UniformSlot) == 12, "Regions.cpp emits the table as i32 words");

/// `<kernel>.requests`: Request[Points]; entry k describes the wait at resume
/// point k when every operand of its request is a constant. The body then
/// stores no request for it (the executor takes it from here); entry 0 and
/// waits with operands that vary have Known = 0.
struct Request {
  uint32_t Known;
  uint32_t Op;
  uint32_t Args[MaxArgs];
};
static_assert(sizeof(Request) == 4 * (2 + MaxArgs), "Regions.cpp emits the table as i32 words");

/// Uniform area: values live across a wait that divergence analysis finds
/// the same in every thread (loop counters, bounds) are kept once per block
/// besides each thread's frame. A loop reads them from \p URd and, after its
/// threads, writes the last thread's copies to \p UWr (distinct buffers of Info.UniformBytes: the executor
/// copies URd to UWr before the loop and swaps them after, so a thread never
/// reads what a thread before it wrote in the same step). Only valid while
/// every thread of the block runs in step (they all start each loop at the
/// same resume point); otherwise the executor runs threads through `.rgnany`
/// with ByRow 0, which reads each thread's own copy.
///
/// `<kernel>.rgn.<k>`: runs threads T0 .. T0+Count-1 (one row: same Tid.y and
/// Tid.z) from resume point k, writing where each stopped into Status[t]
/// (0: finished, else the resume point it waits at). \p Tmpl is the block's
/// context (Tid and the lane fields are set per thread).
using LoopFn = void (*)(ZludaThreadCtx *Tmpl, void *Params, char *Frames, uint32_t N, uint32_t *Status, uint32_t T0,
                        uint32_t Count, char *URd, char *UWr);
/// `<kernel>.rgnany`: as a loop, from resume point \p Resume, for the points
/// >= Info.Loops and for threads out of step. \p ByRow: uniform values come
/// from \p URd (threads in step, as in a loop); 0: from each thread's own
/// copy (URd and UWr are then scratch).
using AnyLoopFn = void (*)(ZludaThreadCtx *Tmpl, void *Params, char *Frames, uint32_t N, uint32_t *Status,
                           uint32_t T0, uint32_t Count, char *URd, char *UWr, uint32_t Resume, uint32_t ByRow);

/// Builds the entry points above for kernel \p K of \p M (optimized, the
/// device runtime linked). Returns false with the reason when the kernel
/// cannot be cut at its waits (a wait inside a call that was not inlined, a
/// warp-matrix or grid-wide operation); it then runs as fibers.
bool build(llvm::Module &M, llvm::Function *K, std::string &WhyNot);

/// Puts the plain memory accesses of \p F in access group \p Group (a loop
/// over threads declares the group parallel: CUDA threads between two waits
/// do not order their accesses). Atomics, fences, volatile and atomic loads
/// and stores stay out, so a loop with them is not treated as parallel; so
/// do calls (inlining a marked call would mark all the callee's accesses).
void markParallel(llvm::Function &F, llvm::MDNode *Group);

/// A loop ID (`!llvm.loop`) that keeps the loop from being unrolled: the
/// loops over a block's rows (a handful of iterations around a loop over
/// the row's threads, which unrolling would copy).
llvm::MDNode *notUnrolled(llvm::LLVMContext &C);

/// A loop ID (`!llvm.loop`) declaring the accesses of \p Group parallel.
llvm::MDNode *parallelLoop(llvm::LLVMContext &C, llvm::MDNode *Group);

/// How many bytes of its parameter buffer kernel \p K reads at most (the
/// loads at constant offsets of its second argument), or 0 when unknown.
/// The executor's buffer is always that large, so the loads can be hoisted.
uint64_t paramBytesRead(llvm::Function &K);

} // namespace zluda::cpu::regions

#endif // ZLUDA_CPU_REGIONS_H
