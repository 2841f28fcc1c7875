//===- Lift.cpp - SASS lifted into PTX -------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A function's walk over its code (FunctionLifter::run), the
/// instructions with a short lifting (FunctionLifter::lift; the longer
/// families are in LiftOps.cpp), and the module around the functions.
#include "sass/LiftImpl.h"

namespace zluda::sass {

namespace lift {

std::string FunctionLifter::run() {
  if (auto It = Cu.Relocs.find(".text." + F.Name); It != Cu.Relocs.end() && !It->second.empty())
    throw Unliftable(F.Name + "+" + hexs(It->second[0].Offset) + ": the code refers to " +
                     It->second[0].Target.Name + " through a relocation (calls of device functions and "
                     "function addresses are not lifted yet)");
  std::vector<Inst> Code;
  // A kernel that moves its stack pointer (R1) at run time (alloca) gets the
  // 1 KiB a thread's stack has by default on NVIDIA's driver beyond its frame.
  for (uint32_t Off = 16; Off + 16 <= F.Code.size(); Off += 16) {
    Inst I = decode(Cu.Sm, F.Code, Off);
    if (!I.Uniform && I.Rd == 1 && I.O != Op::Unknown && I.O != Op::STG && I.O != Op::STS && I.O != Op::STL &&
        I.O != Op::BRA && I.O != Op::BRX && I.O != Op::BRXU && I.O != Op::CALL_REG && I.O != Op::EXIT &&
        I.O != Op::ISETP &&
        I.O != Op::FSETP && I.O != Op::DSETP)
      DynamicStack = true;
  }
  std::set<uint64_t> Targets;
  for (uint32_t Off = 0; Off + 16 <= F.Code.size(); Off += 16) {
    Inst I = decode(Cu.Sm, F.Code, Off);
    if (I.O == Op::BRA || I.O == Op::CALL) {
      if (I.Target >= F.Code.size() || I.Target % 16)
        fail(I, "branch target " + hexs(I.Target) + " is outside the function");
      Targets.insert(I.Target);
    }
    if (I.O == Op::BRX || I.O == Op::BRXU) {
      std::vector<uint32_t> &To = SwitchTargets[Off] = switchTargets(I);
      Targets.insert(To.begin(), To.end());
    }
    HasSharedStores |= writesShared(I);
    LanesObservable |= observesLanes(I);
    // Turing clears a barrier before each BSSY (BMOV.32.CLEAR RZ, Bn): BSSY
    // sets it anew, so only a barrier's state kept in a register counts.
    if (I.O == Op::BREAK || (I.O == Op::BMOV_R && I.Rd != RZ) || I.O == Op::BMOV_B)
      Unmodelled = true;
    if (I.O == Op::CALL || I.O == Op::CALL_REG) { // a subroutine of this function, returning after the call
      Targets.insert(Off + 16);
      ReturnSites.push_back(Off + 16);
    }
    if (I.O == Op::CALL_REG) // through a pointer: any function of the section
      Targets.insert(F.Entries.begin(), F.Entries.end());
    Code.push_back(I);
  }
  sharedAtLabels(Code, Targets);
  // Code after the last EXIT that only branches to itself is padding.
  for (const Inst &I : Code) {
    Cur = &I;
    Temp = 0;
    if (Targets.count(I.Offset)) {
      Body += "$L_" + hexs(I.Offset).substr(2) + ":\n";
      Known.clear();
      FnRegs.clear();
      SyncMask = false;
      // What the paths into it may have done since the lanes met.
      auto At = SharedAtLabel.find(I.Offset); // every label, where the function writes shared memory
      Shared = At != SharedAtLabel.end() ? At->second : 0;
    }
    forget(I);
    // Convergence barriers: BSSY saves the lanes that enter a region that
    // may diverge and BSYNC waits for them, as the hardware does; a warp's
    // lanes leave such a region together, which code after it assumes
    // (it exchanges values through shared memory without a __syncwarp).
    // Where lanes leave one early (BREAK) or the state moves through
    // registers (BMOV), each thread's own control flow is all we keep.
    // Only where lanes can tell: a function with no shared memory and no
    // warp collective runs the same however its lanes interleave, and a
    // meeting costs the CPU device its vector path (a random-number
    // kernel with 173 such regions ran 20x slower than from PTX).
    if (!Unmodelled && LanesObservable && (I.O == Op::BSSY || I.O == Op::BSYNC) && !I.Guard.isFalse()) {
      uint32_t B = I.Sub;
      if (I.O == Op::BSSY) {
        Body += guardPrefix(I) + "activemask.b32 %bm" + std::to_string(B) + ";\n";
      } else {
        std::string Skip = skipUnlessGuard(I);
        Body += "bar.warp.sync %bm" + std::to_string(B) + ";\n";
        if (I.Guard.isTrue()) { // the lanes met: collectives after it name them
          Body += "mov.b32 %wsm, %bm" + std::to_string(B) + ";\n";
          SyncMask = true;
          Shared = 0;
        }
        closeSkip(Skip);
      }
      continue;
    }
    // Convergence barriers left to each thread (above) and cache control need nothing.
    if (I.Guard.isFalse() || I.O == Op::NOP || I.O == Op::BSSY || I.O == Op::BSYNC || I.O == Op::BREAK ||
        I.O == Op::BMOV_B || I.O == Op::LDGDEPBAR || I.O == Op::DEPBAR ||
        I.O == Op::CCTL || I.O == Op::YIELD || I.O == Op::ERRBAR || I.O == Op::CGAERRBAR ||
        I.O == Op::FENCE_VIEW_ASYNC)
      continue;
    if (I.O == Op::Unknown)
      fail(I, "no lifting for this instruction");
    if (I.O == Op::BRA) {
      // BRA.DIV leads to code that is right for any set of active threads:
      // always taken (whether the warp is diverged is not modelled).
      // A predicate operand is a second condition: taken where the guard
      // and it both hold.
      // Past a branch some lanes may have taken, the lanes that go on are
      // a part of a WARPSYNC's mask.
      SyncMask = false;
      // BRA.CONV is the other way round: taken to a fast path that is right
      // only for a converged warp (a plain BAR.SYNC), the code after it
      // being right for any set (__cuda_sm70_barrier_sync): never taken.
      if (I.Conv)
        continue;
      if (!I.PSrc0.isTrue() && !I.Div) {
        Temp = 0;
        Body += "@" + guardAnd(I, I.PSrc0) + " bra $L_" + hexs(I.Target).substr(2) + ";\n";
        continue;
      }
      Body += guardPrefix(I) + "bra $L_" + hexs(I.Target).substr(2) + ";\n";
      continue;
    }
    if (I.O == Op::CALL) {
      // The return offset is data the code put in a register before the
      // call (a MOV of the next instruction's offset); RET jumps to it.
      Body += guardPrefix(I) + "bra $L_" + hexs(I.Target).substr(2) + ";\n";
      continue;
    }
    if (I.O == Op::CALL_REG) {
      // A function pointer: the function of the section it names, compared one by one (the return offset is
      // in a register, as for CALL.REL); an offset where no function starts traps.
      std::string Skip = skipUnlessGuard(I);
      Temp = 0;
      std::string To = t32();
      emit("add.u32 " + To + ", " + val(I.A) + ", " + hexs(static_cast<uint32_t>(I.Target)));
      branchAmong(To, F.Entries);
      closeSkip(Skip);
      Known.clear();
      FnRegs.clear();
      continue;
    }
    if (I.O == Op::BRX || I.O == Op::BRXU) {
      // Every place the jump table may send it, compared one by one (a
      // candidate that is no table entry is never matched by a real one).
      std::string Skip = skipUnlessGuard(I);
      Temp = 0;
      std::string To = t32();
      emit("add.u32 " + To + ", " + val(I.A) + ", " + hexs(static_cast<uint32_t>(I.Target)));
      branchAmong(To, SwitchTargets[I.Offset]); // a trap after: an offset no table holds
      closeSkip(Skip);
      continue;
    }
    if (I.O == Op::RET) {
      if (!I.PSrc0.isTrue())
        fail(I, "RET with a predicate operand");
      std::string Skip = skipUnlessGuard(I);
      Temp = 0;
      branchAmong(val(I.A), ReturnSites); // a trap after: a return offset no call made
      closeSkip(Skip);
      continue;
    }
    if (I.O == Op::EXIT) {
      // A predicate operand is a second condition: the thread exits where
      // the guard and it both hold (PyTorch's reductions: @P0 EXIT P1).
      if (!I.PSrc0.isTrue()) {
        Temp = 0;
        Body += "@" + guardAnd(I, I.PSrc0) + " ret;\n";
        continue;
      }
      Body += guardPrefix(I) + "ret;\n";
      continue;
    }
    // A meeting before a guarded shared access is the whole instruction
    // slot's: the lanes at it in lockstep are those executing the slot,
    // whether or not the guard holds for them (under the guard, a tree
    // reduction's `if (t < o) s[t] += s[t + o]` met in divergent code,
    // which the CPU device runs 30x slower than converged code).
    orderShared(I);
    std::string Skip = skipUnlessGuard(I);
    lift(I);
    if (I.O == Op::BAR && meetsAt(I))
      Shared = 0; // a whole-block barrier orders the warp's lanes too
    if (I.O == Op::CALL) {
      Known.clear();
      FnRegs.clear();
    }
    if (I.O == Op::CALL_ABS) // our call keeps every register but the result's
      for (uint32_t K : {4u, 5u}) {
        Known.erase(K);
        FnRegs.erase(K);
      }
    if (I.O == Op::MOV && !I.Uniform && I.Guard.isTrue() && I.B.K == Src::KImm && I.Rd != RZ)
      Known[I.Rd] = static_cast<uint32_t>(I.B.Imm);
    closeSkip(Skip);
  }
  return Body;
}

void FunctionLifter::lift(const Inst &I) {
  switch (I.O) {
  case Op::MOV:
    if (!I.Uniform && I.Sub != 0xf)
      fail("MOV with a lane mask");
    emit("mov.b32 " + r(I.Rd) + ", " + val(I.B));
    return;
  case Op::SEL:
    emit("selp.b32 " + r(I.Rd) + ", " + val(I.A) + ", " + val(I.B) + ", " + predSrc(I.PSrc0));
    return;
  case Op::FSEL: // the sources' |x| and -x apply (bits 73/72 for A, 62/63 for a register B)
    emit("selp.b32 " + r(I.Rd) + ", " + fval(I.A) + ", " + fval(I.B) + ", " + predSrc(I.PSrc0));
    return;
  case Op::FMNMX:
    if (I.X) {
      // .XORSIGN with |A| and |B| is exactly min/max.xorsign.abs: the
      // magnitude's minimum (maximum) with the sign of A XOR B.
      if (!I.A.Abs || !I.B.Abs || I.Ftz || !(I.PSrc0.isTrue() || I.PSrc0.isFalse()))
        fail("FMNMX.XORSIGN other than min/max.xorsign.abs");
      Src A = I.A, B = I.B;
      A.Abs = B.Abs = false;
      emit(std::string(I.PSrc0.isTrue() ? "min" : "max") + (I.Sat ? ".NaN" : "") + ".xorsign.abs.f32 " + r(I.Rd) +
           ", " + fval(A) + ", " + fval(B));
      return;
    }
    minMax(I, std::string(I.Ftz ? ".ftz" : "") + (I.Sat ? ".NaN" : "") + ".f32 ", fval(I.A), fval(I.B));
    return;
  case Op::LEA:
    lea(I);
    return;
  case Op::DADD:
  case Op::DMUL:
  case Op::DFMA: {
    std::string Mods = rnd(I.Sub2) + ".f64 ", A = dval(I.A), B = dval(I.B), D = t64();
    if (I.O == Op::DFMA)
      emit("fma" + Mods + D + ", " + A + ", " + B + ", " + dval(I.C));
    else
      emit((I.O == Op::DADD ? "add" : "mul") + Mods + D + ", " + A + ", " + B);
    setPair(I.Rd, D);
    return;
  }
  case Op::DSETP:
    setp(I);
    return;
  case Op::WARPSYNC:
    if (!I.PSrc0.isTrue())
      fail("WARPSYNC with a predicate");
    emit("bar.warp.sync " + val(I.B));
    emit("mov.b32 %wsm, " + val(I.B));
    SyncMask = true;
    return;
  case Op::BAR: {
    if (I.Hi)
      fail("BAR with a register operand");
    std::string Count = I.Target ? ", " + std::to_string(I.Target) : "", Id = std::to_string(I.Sub);
    if (I.Sub2 == 0) {
      emit("bar.sync " + Id + Count);
    } else if (I.Sub2 == 1) {
      if (Count.empty())
        fail("BAR.ARV without a thread count");
      emit("bar.arrive " + Id + Count);
    } else if (I.Sub2 == 2) {
      // The result waits in the barrier's registers for B2R.RESULT.
      std::string P = predSrc(I.PSrc0);
      if (I.MemOffset == 0)
        emit("bar.red.popc.u32 %bres, " + Id + Count + ", " + P);
      else if (I.MemOffset <= 2)
        emit(std::string("bar.red.") + (I.MemOffset == 1 ? "and" : "or") + ".pred %bpred, " + Id + Count + ", " + P);
      else
        fail("BAR.RED operation " + std::to_string(I.MemOffset));
    } else {
      fail("BAR.SCAN");
    }
    return;
  }
  case Op::B2R:
    if (!I.Sub)
      fail("B2R other than .RESULT");
    if (I.Rd != RZ)
      emit("mov.b32 " + r(I.Rd) + ", %bres");
    if (I.PDst0 != PT)
      emit("mov.pred " + p(I.PDst0) + ", %bpred");
    return;
  case Op::ATOMS_POPC_INC: {
    // The hardware adds the number of threads that name the same word;
    // one atomic increment per thread gives the same memory. What the
    // instruction returns (Rd) is not modelled: refused.
    if (I.Rd != RZ || I.Sub)
      fail("ATOMS.POPC.INC with a result");
    std::string Addr = address(I, true);
    emit("red.shared.add.u32 [" + Addr + "], 1");
    return;
  }
  case Op::BMOV_R:
    // Convergence barriers are not modelled (BSSY/BSYNC lift to nothing),
    // so any value saved from one is as good as another.
    if (I.Rd != RZ)
      emit("mov.b32 " + r(I.Rd) + ", 0");
    return;
  case Op::MEMBAR:
    // Every scope as the strongest: a correct, if slower, reading of each.
    emit("fence.sc.sys");
    return;
  case Op::LD:
  case Op::ST:
    memory(I);
    return;
  case Op::BPT:
    if (I.Sub != 3)
      fail("BPT other than TRAP");
    emit("trap");
    return;
  case Op::NANOSLEEP:
    emit("nanosleep.u32 " + val(I.B));
    return;
  case Op::IMNMX:
    if (I.Wide) { // VIMNMX.{S,U}16x2: each 16-bit half
      std::string A[2] = {th(), th()}, B[2] = {th(), th()}, D[2] = {th(), th()};
      emit("mov.b32 {" + A[0] + ", " + A[1] + "}, " + inReg(val(I.A)));
      emit("mov.b32 {" + B[0] + ", " + B[1] + "}, " + inReg(val(I.B)));
      for (int H = 0; H < 2; ++H)
        minMaxInto(I, I.Signed ? ".s16 " : ".u16 ", A[H], B[H], D[H], 16);
      emit("mov.b32 " + r(I.Rd) + ", {" + D[0] + ", " + D[1] + "}");
      return;
    }
    minMax(I, I.Signed ? ".s32 " : ".u32 ", val(I.A), val(I.B));
    return;
  case Op::ISETP:
  case Op::FSETP:
    setp(I);
    return;
  case Op::IADD3:
    iadd3(I);
    return;
  case Op::LOP3: {
    // The predicate result is (result != 0) OR the predicate input (!PT:
    // none), AND with .PAND: ptxas tests a 64-bit value for zero as two
    // halves, the second LOP3 taking the first's predicate.
    std::string D = I.Rd == RZ ? t32() : r(I.Rd);
    emit("lop3.b32 " + D + ", " + val(I.A) + ", " + val(I.B) + ", " + val(I.C) + ", " + hexs(I.Sub));
    if (I.PDst0 != PT) {
      bool Neutral = I.X ? I.PSrc0.isTrue() : I.PSrc0.isFalse();
      if (Neutral) {
        emit("setp.ne.u32 " + p(I.PDst0) + ", " + D + ", 0");
      } else {
        std::string In = I.PSrc0.isTrue() || I.PSrc0.isFalse() ? "" : predSrc(I.PSrc0);
        if (In.empty()) // PT with OR, !PT with AND: the predicate input decides
          emit(std::string("setp.") + (I.PSrc0.isTrue() ? "eq" : "ne") + ".u32 " + p(I.PDst0) + ", %rz, 0");
        else
          emit(std::string("setp.ne.") + (I.X ? "and" : "or") + ".u32 " + p(I.PDst0) + ", " + D + ", 0, " + In);
      }
    }
    return;
  }
  case Op::IABS:
    emit("abs.s32 " + r(I.Rd) + ", " + val(I.B));
    return;
  case Op::POPC: // their source's negate bit is a bitwise NOT
    emit("popc.b32 " + r(I.Rd) + ", " + ival(I.B, true));
    return;
  case Op::FLO:
    emit(std::string("bfind") + (I.Hi ? ".shiftamt" : "") + (I.Signed ? ".s32 " : ".u32 ") + r(I.Rd) + ", " +
         ival(I.B, true));
    return;
  case Op::F2F:
  case Op::F2I:
  case Op::I2F:
  case Op::FRND:
  case Op::F2F64:
  case Op::F2I64:
  case Op::I2F64:
  case Op::FRND64:
    convert(I);
    return;
  case Op::SHFL: {
    // SASS shuffles among the threads executing it: PTX's .sync form with
    // the active mask.
    static const char *Mode[] = {"idx", "up", "down", "bfly"};
    std::string M = memberMask(), D = I.Rd == RZ ? t32() : r(I.Rd);
    emit(std::string("shfl.sync.") + Mode[I.Sub] + ".b32 " + D + (I.PDst0 != PT ? "|" + p(I.PDst0) : "") + ", " +
         inReg(val(I.A)) + ", " + val(I.B) + ", " + val(I.C) + ", " + M);
    return;
  }
  case Op::PLOP3: {
    PredSrc Third{static_cast<uint32_t>(I.Target & 7), (I.Target & 8) != 0};
    std::string In[3];
    const PredSrc *Ps[3] = {&I.PSrc0, &I.PSrc1, &Third};
    for (int K = 0; K < 3; ++K) {
      In[K] = t32();
      bool UniformThird = K == 2 && (I.Target & 16); // a uniform predicate in the vector form
      if (UniformThird && I.Uniform)
        fail("UPLOP3 with bit 67 set");
      emit("selp.b32 " + In[K] + ", -1, 0, " + predSrc(*Ps[K], I.Uniform || UniformThird));
    }
    for (auto [Pd, Lut] : {std::pair{I.PDst0, I.Sub}, std::pair{I.PDst1, I.Sub2}}) {
      if (Pd == PT)
        continue;
      std::string V = t32();
      emit("lop3.b32 " + V + ", " + In[0] + ", " + In[1] + ", " + In[2] + ", " + hexs(Lut));
      emit("setp.ne.u32 " + p(Pd) + ", " + V + ", 0");
    }
    return;
  }
  case Op::VOTE:
  case Op::VOTEU: {
    // VOTEU: the ballot into a uniform register, the result into a uniform predicate.
    if (I.Sub > 2)
      fail("VOTE mode " + std::to_string(I.Sub));
    static const char *Mode[] = {"all", "any", "uni"};
    bool U = I.O == Op::VOTEU;
    std::string M = memberMask(), In = predSrc(I.PSrc0);
    if (I.Rd != (U ? URZ : RZ))
      emit("vote.sync.ballot.b32 " + (U ? "%ur" + std::to_string(I.Rd) : r(I.Rd)) + ", " + In + ", " + M);
    if (I.PDst0 != PT)
      emit(std::string("vote.sync.") + Mode[I.Sub] + ".pred " + (U ? "%up" + std::to_string(I.PDst0) : p(I.PDst0)) +
           ", " + In + ", " + M);
    return;
  }
  case Op::MATCH: {
    // Over the threads executing it, as SHFL and VOTE.
    if (I.Sub2)
      fail("MATCH with other modifiers");
    std::string D = I.Rd == RZ ? t32() : r(I.Rd);
    std::string V = I.Wide ? val64(I.A) : inReg(val(I.A));
    if (I.Wide && V == "0") {
      V = t64();
      emit("mov.b64 " + V + ", 0");
    }
    std::string M = memberMask();
    std::string Ty = I.Wide ? ".b64 " : ".b32 ";
    if (I.Sub)
      emit("match.any.sync" + Ty + D + ", " + V + ", " + M);
    else
      emit("match.all.sync" + Ty + D + (I.PDst0 != PT ? "|" + p(I.PDst0) : "") + ", " + V + ", " + M);
    return;
  }
  case Op::REDUX: {
    static const char *Fn[] = {"and.b32", "or.b32", "xor.b32", "add.u32", "min", "max"};
    if (I.Sub > 5)
      fail("REDUX operation " + std::to_string(I.Sub));
    std::string F = Fn[I.Sub];
    if (I.Sub >= 4)
      F += I.Signed ? ".s32" : ".u32";
    else if (I.Sub == 3 && I.Signed)
      F = "add.s32";
    std::string M = memberMask(), D = I.Rd == URZ ? t32() : "%ur" + std::to_string(I.Rd);
    emit("redux.sync." + F + " " + D + ", " + inReg(val(I.A)) + ", " + M);
    return;
  }
  case Op::ATOMG:
  case Op::ATOMG_CAS:
  case Op::RED:
  case Op::ATOMS:
  case Op::ATOMS_CAS:
    atomic(I);
    return;
  case Op::MUFU: {
    // The multi-function unit's approximations (denormals flushed). SIN and
    // COS take their argument in turns (ptxas multiplies by 1/2pi first).
    static const char *Fn[] = {"cos", "sin", "ex2", "lg2", "rcp", "rsqrt", "", "", "sqrt", "tanh"};
    if (I.Hi) {
      // .F16: one half in (B's low half, or .H1 its high: bit 60), one
      // half out in the destination's low half (ptxas's PRMT reads only
      // that); PTX has ex2 and tanh of halves.
      if ((I.Sub != 2 && I.Sub != 9) || I.B.K != Src::KReg || I.B.Neg || I.B.Abs)
        fail("MUFU of halves (.F16) other than EX2/TANH of a register");
      std::string In[2] = {th(), th()}, Out = th();
      emit("mov.b32 {" + In[0] + ", " + In[1] + "}, " + inReg(val(I.B)));
      emit(std::string(I.Sub == 2 ? "ex2" : "tanh") + ".approx.f16 " + Out + ", " + In[I.W.bit(60)]);
      convResult(I, 2, Out);
      return;
    }
    if (I.Sub == 6 || I.Sub == 7) {
      // RCP64H, RSQ64H: the high word of the double reciprocal (square
      // root) of the double whose high word is the source, low word zero;
      // the seed of ptxas's Newton steps for double division and sqrt.
      if (I.B.Neg || I.B.Abs)
        fail("MUFU.RCP64H/RSQ64H with a source modifier");
      std::string D = t64(), R = t64(), Lo = t32(), Hi = t32();
      emit("mov.b64 " + D + ", {0, " + inReg(val(I.B)) + "}");
      emit(std::string(I.Sub == 6 ? "rcp" : "rsqrt") + ".approx.ftz.f64 " + R + ", " + D);
      emit("mov.b64 {" + Lo + ", " + Hi + "}, " + R);
      emit("mov.b32 " + r(I.Rd) + ", " + Hi);
      return;
    }
    if (I.Sub > 9 || !*Fn[I.Sub])
      fail("MUFU function " + std::to_string(I.Sub));
    std::string X = fval(I.B);
    if (I.Sub <= 1) {
      std::string T = t32();
      emit("mul.rn.f32 " + T + ", " + X + ", 0f40C90FDB");
      X = T;
    }
    emit(std::string(Fn[I.Sub]) + (I.Sub == 9 ? ".approx.f32 " : ".approx.ftz.f32 ") + r(I.Rd) + ", " + X);
    return;
  }
  case Op::BREV:
    emit("brev.b32 " + r(I.Rd) + ", " + val(I.B));
    return;
  case Op::PRMT: {
    static const char *Mode[] = {"", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"};
    if (I.Sub > 6)
      fail("PRMT mode " + std::to_string(I.Sub));
    emit(std::string("prmt.b32") + Mode[I.Sub] + " " + r(I.Rd) + ", " + val(I.A) + ", " + val(I.C) + ", " +
         val(I.B));
    return;
  }
  case Op::SHF:
    shf(I);
    return;
  case Op::FADD:
  case Op::FMUL:
  case Op::FFMA: {
    std::string Mods = rnd(I.Sub2) + (I.Ftz ? ".ftz" : "") + (I.Sat ? ".sat" : "") + ".f32 ";
    std::string A = fval(I.A), B = fval(I.B);
    if (I.O == Op::FMUL && I.Sub != 4 && I.Sub != 0) {
      // FMUL.D8..D2/.M2..M8: the product times 2^(Sub-4), as ptxas fuses
      // mul.ftz by a power of two into it: the same two multiplications
      // (without .FTZ a result in the subnormal range may round twice).
      std::string T = t32();
      emit("mul" + rnd(I.Sub2) + (I.Ftz ? ".ftz" : "") + ".f32 " + T + ", " + A + ", " + B);
      uint32_t Scale = (127u + I.Sub - 4u) << 23;
      char Bits[16];
      std::snprintf(Bits, sizeof Bits, "0f%08X", Scale);
      emit("mul.rn" + std::string(I.Ftz ? ".ftz" : "") + (I.Sat ? ".sat" : "") + ".f32 " + r(I.Rd) + ", " + T + ", " + Bits);
      return;
    }
    if (I.O == Op::FMUL && I.Sub != 4)
      fail("FMUL with scale code 0");
    if (I.O == Op::FFMA)
      emit("fma" + Mods + r(I.Rd) + ", " + A + ", " + B + ", " + fval(I.C));
    else
      emit((I.O == Op::FADD ? "add" : "mul") + Mods + r(I.Rd) + ", " + A + ", " + B);
    return;
  }
  case Op::IMAD:
  case Op::IMAD_WIDE:
  case Op::IMAD_HI:
    imad(I);
    return;
  case Op::HADD2:
  case Op::HMUL2:
  case Op::HFMA2:
    halfArith(I);
    return;
  case Op::HMNMX2: {
    std::string Ty = std::string(I.Ftz ? ".ftz" : "") + (I.Sat ? ".NaN" : "") + (I.Bf16 ? ".bf16x2 " : ".f16x2 ");
    if (I.F32Out || I.Relu)
      fail("HMNMX2 with a .F32 or .RELU result");
    minMax(I, Ty, hval(I.A, I.SwzA), hval(I.B, I.SwzB));
    return;
  }
  case Op::HSETP2:
  case Op::HSET2:
    halfCompare(I);
    return;
  case Op::F2FP: {
    if (I.Sub) {
      eightBitFloats(I);
      return;
    }
    static const char *Rnd[] = {".rn", "", "", ".rz"};
    uint32_t Round = I.Sub2 & 3;
    if (!*Rnd[Round])
      fail("F2FP rounding " + std::to_string(Round));
    emit(std::string("cvt") + Rnd[Round] + (I.Relu ? ".relu" : "") + (I.Bf16 ? ".bf16x2" : ".f16x2") + ".f32 " +
         r(I.Rd) + ", " + fval(I.A) + ", " + fval(I.B));
    return;
  }
  case Op::I2FP:
    if (I.Sub != 0x22)
      fail("I2FP of sizes " + hexs(I.Sub));
    emit("cvt" + rnd(I.Sub2) + ".f32" + (I.Signed ? ".s32 " : ".u32 ") + r(I.Rd) + ", " + val(I.B));
    return;
  case Op::I2I:
  case Op::I2IP:
    narrow(I);
    return;
  case Op::F2IP: {
    // Seen: F2IP.U8.F32.NTZ Rd, RZ, Rb, RZ (cvt.rni/rzi.u8.f32): the saturated byte.
    bool Zero = I.A.K == Src::KReg && I.A.Reg == RZ && I.C.K == Src::KReg && I.C.Reg == RZ;
    if (!Zero || I.Sub != 0 || I.Signed || !I.Wrap || I.Sat)
      fail("F2IP other than a single unsigned byte");
    std::string T = t32();
    emit(std::string("cvt") + IntRound[I.Sub2] + ".sat.u8.f32 " + T + ", " + fval(I.B));
    emit("and.b32 " + r(I.Rd) + ", " + T + ", 255");
    return;
  }
  case Op::SGXT:
    emit(std::string("szext") + (I.Wrap ? ".wrap" : ".clamp") + (I.Signed ? ".s32 " : ".u32 ") + r(I.Rd) + ", " +
         val(I.A) + ", " + val(I.B));
    return;
  case Op::BMSK:
    if (I.Signed)
      fail("BMSK with bit 73");
    emit(std::string("bmsk") + (I.Wrap ? ".wrap" : ".clamp") + ".b32 " + r(I.Rd) + ", " + val(I.A) + ", " + val(I.B));
    return;
  case Op::FSET: {
    // FSET.BF: 1.0 where the comparison (combined with the predicate) holds, else 0.
    if (I.W.bits(71, 3))
      fail("FSET form other than .BF");
    Inst P = I;
    P.O = Op::FSETP;
    P.PDst1 = PT;
    P.PDst0 = 0;
    std::string Q = tp();
    setp(P, Q);
    emit("selp.b32 " + r(I.Rd) + ", 0f3F800000, 0, " + Q);
    return;
  }
  case Op::VIADDMNMX: {
    if (I.A.Abs || I.B.Abs || I.C.Abs || I.C.Neg)
      fail("VIADDMNMX with these source modifiers");
    std::string Sum = t32();
    emit("add.u32 " + Sum + ", " + ival(I.A, false) + ", " + ival(I.B, false));
    minMax(I, I.Signed ? ".s32 " : ".u32 ", Sum, inReg(val(I.C)));
    return;
  }
  case Op::VIADD:
    if (I.Sub || I.A.Neg || I.A.Abs)
      fail("VIADD with a third source or modifiers");
    emit("add.u32 " + r(I.Rd) + ", " + val(I.A) + ", " + ival(I.B, false));
    return;
  case Op::FCHK:
    // FCHK.DIVIDE decides whether a/b needs the full-precision subroutine
    // ptxas branches to; that subroutine is right for every input, so it
    // is always taken.
    if (I.PDst0 != PT)
      emit("setp.eq.u32 " + p(I.PDst0) + ", %rz, 0");
    return;
  case Op::HFMA2_MMA: {
    // ptxas's constant move: -RZ * RZ + C, which is C in each half (a NaN
    // half could come out canonical: refused).
    bool ZeroProduct = (I.A.K == Src::KReg && I.A.Reg == RZ) || (I.B.K == Src::KReg && I.B.Reg == RZ);
    if (!ZeroProduct || I.C.K != Src::KImm || I.C.Neg || I.C.Abs) {
      halfArith(I); // the same operation on the tensor pipe
      return;
    }
    for (uint32_t H : {I.C.Imm & 0xffff, I.C.Imm >> 16})
      if ((H & 0x7c00) == 0x7c00 && (H & 0x3ff))
        fail("HFMA2.MMA of a NaN constant");
    emit("mov.b32 " + r(I.Rd) + ", " + val(I.C));
    return;
  }
  case Op::CS2R: {
    if (I.Rd == RZ)
      return;
    if (I.Sub == 0xff) {
      emit("mov.b32 " + r(I.Rd) + ", 0");
      if (I.Wide)
        emit("mov.b32 " + r(I.Rd + 1) + ", 0");
      return;
    }
    // 0x50 SR_CLOCKLO, 0x52 SR_GLOBALTIMERLO (nanoseconds), each with the
    // following register when 64 bits wide.
    if (I.Sub != 0x50 && I.Sub != 0x52)
      fail("CS2R of special register " + hexs(I.Sub));
    const bool Timer = I.Sub == 0x52;
    if (I.Wide) {
      std::string T = t64();
      emit(std::string("mov.u64 ") + T + (Timer ? ", %globaltimer" : ", %clock64"));
      setPair(I.Rd, T);
    } else {
      emit("mov.u32 " + r(I.Rd) + (Timer ? ", %globaltimer_lo" : ", %clock"));
    }
    return;
  }
  case Op::R2P: {
    if (I.Sub)
      fail("R2P with a byte select");
    if (I.B.K != Src::KImm)
      fail("R2P with a mask in a register");
    std::string V = inReg(val(I.A));
    for (uint32_t K = 0; K < 7; ++K)
      if (I.B.Imm >> K & 1) {
        std::string Bit = t32();
        emit("and.b32 " + Bit + ", " + V + ", " + hexs(1u << K));
        emit("setp.ne.u32 %p" + std::to_string(K) + ", " + Bit + ", 0");
      }
    return;
  }
  case Op::P2R: {
    if (I.Sub)
      fail("P2R with a byte select");
    if (I.B.K != Src::KImm)
      fail("P2R with a mask in a register");
    uint32_t Mask = I.B.Imm;
    std::string V = t32();
    emit("and.b32 " + V + ", " + val(I.A) + ", " + hexs(~Mask));
    for (uint32_t K = 0; K < 8; ++K) {
      if (!(Mask >> K & 1))
        continue;
      std::string Bit = t32();
      emit("selp.b32 " + Bit + ", " + hexs(1u << K) + ", 0, " + pin(K));
      emit("or.b32 " + V + ", " + V + ", " + Bit);
    }
    emit("mov.b32 " + r(I.Rd) + ", " + V);
    return;
  }
  case Op::S2R:
  case Op::S2UR: {
    static const std::pair<uint32_t, const char *> Sr[] = {
        {0x00, "%laneid"}, {0x21, "%tid.x"}, {0x22, "%tid.y"}, {0x23, "%tid.z"},
        {0x25, "%ctaid.x"}, {0x26, "%ctaid.y"}, {0x27, "%ctaid.z"}, {0x38, "%lanemask_eq"},
        {0x39, "%lanemask_lt"}, {0x3a, "%lanemask_le"}, {0x3b, "%lanemask_gt"}, {0x3c, "%lanemask_ge"}};
    if (I.Sub == 0x88 && Cu.Sm >= 90) { // SR_CgaCtaId: the CTA's rank in its cluster (clusters of one)
      if (I.Rd != (I.O == Op::S2UR ? URZ : RZ))
        emit(std::string("mov.u32 ") + (I.O == Op::S2UR ? "%ur" + std::to_string(I.Rd) : r(I.Rd)) + ", 0");
      return;
    }
    for (const auto &[N, Name] : Sr)
      if (N == I.Sub) {
        if (I.O == Op::S2UR && I.Rd == URZ)
          return;
        emit(std::string("mov.u32 ") + (I.O == Op::S2UR ? "%ur" + std::to_string(I.Rd) : r(I.Rd)) + ", " + Name);
        return;
      }
    fail("special register " + hexs(I.Sub) + " is not lifted yet");
  }
  case Op::CALL_ABS:
    systemCall(I);
    return;
  case Op::R2UR: {
    // The value of the first active lane (ptxas loops over a varying
    // value's distinct values: each pass takes one lane's and serves the
    // lanes that hold it), through a shuffle of the active threads.
    // With a predicate: whether every active lane holds the same value
    // (ptxas then skips its loop over the distinct values).
    if (I.Sub)
      fail("R2UR.OR");
    std::string M = memberMask();
    if (I.PDst0 != PT) {
      std::string Same = t32();
      emit("match.all.sync.b32 " + Same + "|" + p(I.PDst0) + ", " + inReg(val(I.A)) + ", " + M);
    }
    if (I.Rd == URZ)
      return;
    std::string Low = t32(), Lane = t32();
    emit("neg.s32 " + Low + ", " + M);
    emit("and.b32 " + Low + ", " + Low + ", " + M);
    emit("bfind.u32 " + Lane + ", " + Low);
    emit("shfl.sync.idx.b32 %ur" + std::to_string(I.Rd) + ", " + inReg(val(I.A)) + ", " + Lane + ", 0x1f, " + M);
    return;
  }
  case Op::LEPC: // the instruction's offset stands for its address (nothing else reads it)
    if (I.Rd != RZ) {
      emit("mov.b32 " + r(I.Rd) + ", " + hexs(I.Offset));
      emit("mov.b32 " + r(I.Rd + 1) + ", 0");
    }
    return;
  case Op::LDC: {
    uint32_t Off = I.A.Offset;
    bool Indexed = I.B.Reg != RZ;
    if (Indexed && I.A.Bank == 4 && Known.count(I.B.Reg)) { // the index a MOV just set (system calls)
      Off += Known[I.B.Reg];
      Indexed = false;
    }
    for (uint32_t K : {I.Rd, I.Rd + 1}) {
      Known.erase(K);
      FnRegs.erase(K);
    }
    if (!Indexed && I.A.Bank == 4 && I.Sub == 5)
      if (auto Fn = Mod.Bank4Functions.find(Off); Fn != Mod.Bank4Functions.end()) {
        // A driver function's address, for a CALL.ABS: followed by name.
        if (I.Rd != RZ) {
          emit("mov.b32 " + r(I.Rd) + ", 0");
          emit("mov.b32 " + r(I.Rd + 1) + ", 0");
          FnRegs[I.Rd] = Fn->second;
        }
        return;
      }
    if (Indexed) {
      // c[0x0][Rb + off] inside the parameter window (the kernel indexes
      // its own parameters: a by-value array, a struct), or an indexed
      // __constant__ array (bank 3) or bank 4.
      // The index must land inside the window (checked as the kernel
      // runs: a read outside it traps, never returns a wrong word). A base
      // offset a little below the parameters is PyTorch's: c[0x0][Rn+0x15c]
      // with Rn >= 4 for its per-dimension arrays.
      std::string Base, Space;
      uint32_t Start = 0, Limit = 0;
      if (I.A.Bank == 0 && I.A.Offset + 256 >= F.ParamBase && I.A.Offset < F.ParamBase + F.ParamBytes) {
        Base = "__cb0", Space = ".local", Start = F.ParamBase, Limit = (F.ParamBytes + 7) / 8 * 8;
      } else if (I.A.Bank == 2) { // a jump table, or a literal array
        Base = literalArray(), Space = ".const", Limit = static_cast<uint32_t>(literalBank().size());
      } else if (I.A.Bank == 3 || I.A.Bank == 4) {
        auto Sec = Cu.Sections.find(DataVars[I.A.Bank - 1].Section);
        if (Sec == Cu.Sections.end())
          fail(std::string("bank ") + std::to_string(I.A.Bank) + " without its section " + DataVars[I.A.Bank - 1].Section);
        Base = DataVars[I.A.Bank - 1].Var, Space = ".const", Limit = static_cast<uint32_t>(Sec->second.size());
      } else {
        fail("LDC with an index register outside the parameters and banks 2, 3 and 4");
      }
      static const char *Ty[] = {".u8", ".s8", ".u16", ".s16", ".b32", ".b64"};
      static const uint32_t Bytes[] = {1, 1, 2, 2, 4, 8};
      if (I.Sub > 5)
        fail("LDC of size " + std::to_string(I.Sub));
      if (Limit < Bytes[I.Sub])
        fail("LDC beyond a bank of " + std::to_string(Limit) + " bytes");
      std::string Idx = t32(), Idx64 = t64(), Addr = t64(), Out = tp();
      emit("add.u32 " + Idx + ", " + val(I.B) + ", " + std::to_string(int64_t(I.A.Offset) - Start));
      emit("setp.gt.u32 " + Out + ", " + Idx + ", " + std::to_string(int64_t(Limit) - Bytes[I.Sub]));
      Body += "@" + Out + " trap;\n";
      emit("cvt.u64.u32 " + Idx64 + ", " + Idx);
      emit("mov.u64 " + Addr + ", " + Base);
      emit("add.u64 " + Addr + ", " + Addr + ", " + Idx64);
      if (I.Sub == 5) {
        std::string V = t64();
        emit("ld" + Space + ".b64 " + V + ", [" + Addr + "]");
        setPair(I.Rd, V);
      } else if (I.Sub == 4) {
        emit("ld" + Space + ".b32 " + r(I.Rd) + ", [" + Addr + "]");
      } else {
        std::string V = t32();
        emit("ld" + Space + Ty[I.Sub] + " " + V + ", [" + Addr + "]");
        emit("mov.b32 " + r(I.Rd) + ", " + V);
      }
      return;
    }
    if (I.A.Bank == 0 && I.A.Offset == (Cu.Sm >= 90 ? 0x208u : 0x118u) && I.Sub == 5) {
      // The global memory descriptor, kept in registers (for LDG/STG's
      // desc[], which we do not need): zero.
      if (I.Rd != RZ) {
        emit("mov.b32 " + r(I.Rd) + ", 0");
        emit("mov.b32 " + r(I.Rd + 1) + ", 0");
      }
      return;
    }
    if (Off != I.A.Offset) { // bank 4 at a known index
      Inst J = I;
      J.A.Offset = Off;
      J.B.Reg = RZ;
      lift(J);
      return;
    }
    if (I.Sub == 4) {
      emit("mov.b32 " + r(I.Rd) + ", " + constWord(I.A.Bank, I.A.Offset));
    } else if (I.Sub == 5) {
      std::string Lo = constWord(I.A.Bank, I.A.Offset), Hi = constWord(I.A.Bank, I.A.Offset + 4);
      if (I.Rd != RZ) {
        emit("mov.b32 " + r(I.Rd) + ", " + Lo);
        emit("mov.b32 " + r(I.Rd + 1) + ", " + Hi);
      }
    } else if (I.Sub <= 3) {
      emit(subWordConst(I, r(I.Rd)));
    } else {
      fail("LDC of size " + std::to_string(I.Sub));
    }
    return;
  }
  case Op::ULDC: {
    // The global memory descriptor (desc[URn] of LDG/STG), which we do not need.
    if (I.A.Bank == 0 && I.A.Offset == (Cu.Sm >= 90 ? 0x208u : 0x118u) && I.Sub == 5)
      return;
    std::string D = "%ur" + std::to_string(I.Rd);
    if (I.Sub == 4) {
      if (I.Rd != URZ)
        emit("mov.b32 " + D + ", " + constWord(I.A.Bank, I.A.Offset));
    } else if (I.Sub == 5) {
      std::string Lo = constWord(I.A.Bank, I.A.Offset), Hi = constWord(I.A.Bank, I.A.Offset + 4);
      if (I.Rd != URZ) {
        emit("mov.b32 " + D + ", " + Lo);
        emit("mov.b32 %ur" + std::to_string(I.Rd + 1) + ", " + Hi);
      }
    } else if (I.Sub <= 3) {
      if (I.Rd != URZ)
        emit(subWordConst(I, D));
    } else {
      fail("ULDC of size " + std::to_string(I.Sub));
    }
    return;
  }
  case Op::LDS:
    memory(I);
    return;
  case Op::LDG:
  case Op::STG:
  case Op::STS:
  case Op::LDL:
  case Op::STL:
    memory(I);
    return;
  case Op::HMMA:
  case Op::IMMA:
  case Op::BMMA:
  case Op::DMMA:
    tensorCore(I);
    return;
  case Op::LDSM: {
    // A warp collective: the lanes meet before any reads another's rows.
    uint32_t N = 1u << I.Sub;
    emit("ldmatrix.sync.aligned.m8n8.x" + std::to_string(N) + (I.Hi ? ".trans" : "") + ".shared.b16 " +
         fragment(I.Rd, N, true) + ", [" + address(I, true) + "]");
    return;
  }
  case Op::STSM: {
    uint32_t N = 1u << I.Sub;
    emit("stmatrix.sync.aligned.m8n8.x" + std::to_string(N) + (I.Hi ? ".trans" : "") + ".shared.b16 [" +
         address(I, true) + "], " + fragment(I.B.Reg, N, false));
    return;
  }
  case Op::MOVM:
    emit("movmatrix.sync.aligned.m8n8.trans.b16 " + (I.Rd == RZ ? t32() : r(I.Rd)) + ", " + inReg(val(I.A)));
    return;
  case Op::LDGSTS:
    copyAsync(I);
    return;
  case Op::TEX:
  case Op::TLD:
  case Op::TLD4:
  case Op::TXD:
  case Op::TXQ:
    texture(I);
    return;
  case Op::SULD:
  case Op::SUST:
    surface(I);
    return;
  case Op::PMTRIG: // pmevent: no performance monitors to trigger
  case Op::ACQBULK: // griddepcontrol.wait / .launch_dependents: grids of a stream run in turn here
  case Op::PREEXIT:
    return;
  case Op::ELECT: {
    std::string M = memberMask();
    std::string D = I.Rd == URZ ? t32() : "%ur" + std::to_string(I.Rd);
    std::string P = I.PDst0 == PT ? tp() : p(I.PDst0);
    emit("elect.sync " + D + "|" + P + ", " + M);
    return;
  }
  case Op::QSPC: {
    static const char *Space[] = {"global", "local", "shared"};
    std::string A = t64();
    emit("add.u64 " + A + ", " + val64(I.A) + ", " + std::to_string(I.MemOffset));
    emit(std::string("isspacep.") + Space[I.Sub] + " " + (I.PDst0 == PT ? tp() : p(I.PDst0)) + ", " + A);
    return;
  }
  case Op::IDP: {
    std::string Ty = std::string(I.Signed ? ".s32" : ".u32") + (I.X ? ".s32 " : ".u32 ");
    const char *Name = I.Wide ? (I.Hi ? "dp2a.hi" : "dp2a.lo") : "dp4a";
    emit(Name + Ty + r(I.Rd) + ", " + inReg(val(I.A)) + ", " + inReg(val(I.B)) + ", " + inReg(val(I.C)));
    return;
  }
  case Op::VABSDIFF4: {
    std::string Ty = I.Signed ? ".s32" : ".u32";
    emit("vabsdiff4.u32" + Ty + Ty + (I.Hi ? ".add " : " ") + r(I.Rd) + ", " + inReg(val(I.A)) + ", " +
         inReg(val(I.B)) + ", " + inReg(val(I.C)));
    return;
  }
  case Op::VABSDIFF:
    emit(std::string(I.Signed ? "sad.s32 " : "sad.u32 ") + r(I.Rd) + ", " + inReg(val(I.A)) + ", " +
         inReg(val(I.B)) + ", " + inReg(val(I.C)));
    return;
  case Op::PLOP3_SIGN: {
    // LOP3 is bitwise, so the LUT over the sign bits is the sign of the LOP3.
    for (auto [Pd, Lut] : {std::pair{I.PDst0, I.Sub}, std::pair{I.PDst1, I.Sub2}}) {
      if (Pd == PT)
        continue;
      std::string V = t32();
      emit("lop3.b32 " + V + ", " + inReg(val(I.A)) + ", " + inReg(val(I.B)) + ", " + inReg(val(I.C)) + ", " +
           hexs(Lut));
      emit("setp.lt.s32 " + p(Pd) + ", " + V + ", 0");
    }
    return;
  }
  case Op::ARRIVES:
    // Machine code keeps an mbarrier in NVIDIA's own layout (initialized by
    // STS, arrived on by ATOMS.POPC.INC, polled by LDS); ours differs.
    fail("an arrival on an mbarrier in NVIDIA's layout is not lifted yet");
  default:
    fail("no lifting for this instruction");
  }
}

} // namespace lift

using namespace lift;

namespace {

std::string paramList(const Function &F) {
  std::string S;
  for (size_t I = 0; I < F.Params.size(); ++I) {
    const Param &P = F.Params[I];
    uint32_t Align = 1;
    while (Align < 16 && P.Offset % (Align * 2) == 0)
      Align *= 2;
    S += std::string(I ? ",\n  " : "\n  ") + ".param .align " + std::to_string(Align) + " .b8 __p" +
         std::to_string(P.Ordinal) + "[" + std::to_string(std::max<uint32_t>(P.Size, 1)) + "]";
  }
  return S;
}

/// The cubin's data sections as module variables (bytes, or 64-bit words
/// where a relocation writes an address: generic(variable)+offset), and its
/// named objects as places in them.
bool dataVariables(const Cubin &Cu, ModuleContext &Mod, LiftedModule &R, std::string &Out, std::string &Error) {
  auto varOf = [](const std::string &Section) -> const DataVar * {
    for (const DataVar &V : DataVars)
      if (Section == V.Section)
        return &V;
    return nullptr;
  };
  for (const DataVar &V : DataVars) {
    auto It = Cu.Sections.find(V.Section);
    if (It == Cu.Sections.end() || It->second.empty())
      continue;
    const std::string &B = It->second;
    std::map<uint64_t, const Reloc *> At;
    if (auto Rl = Cu.Relocs.find(V.Section); Rl != Cu.Relocs.end())
      for (const Reloc &X : Rl->second) {
        if ((X.Type != RelocAbs64 && X.Type != RelocGeneric64) || X.Offset % 8 || X.Offset + 8 > B.size())
          return Error = std::string("cubin: relocation of type ") + std::to_string(X.Type) + " at " + V.Section +
                         "+" + hexs(X.Offset) + " (" + X.Target.Name + ") is not lifted yet", false;
        At[X.Offset] = &X;
      }
    std::string Decl = std::string(V.Const ? ".const" : ".global") + " .align 16 ";
    if (std::string_view(V.Section) == ".nv.global") {
      Out += Decl + ".b8 " + V.Var + "[" + std::to_string(B.size()) + "];\n";
      continue;
    }
    std::string Init;
    if (At.empty()) {
      Decl += ".b8 " + std::string(V.Var) + "[" + std::to_string(B.size()) + "] = {";
      for (size_t K = 0; K < B.size(); ++K)
        Init += (K ? "," : "") + std::to_string(static_cast<uint8_t>(B[K]));
    } else {
      std::string Words = B + std::string((8 - B.size() % 8) % 8, '\0'); // the last word padded
      Decl += ".u64 " + std::string(V.Var) + "[" + std::to_string(Words.size() / 8) + "] = {";
      for (size_t K = 0; K < Words.size(); K += 8) {
        Init += K ? "," : "";
        auto X = At.find(K);
        if (X == At.end()) {
          uint64_t W;
          std::memcpy(&W, Words.data() + K, 8);
          Init += hexs(W);
          continue;
        }
        const DataSymbol &T = X->second->Target;
        if (T.Function) { // a driver function (vprintf...): only ever called, by name
          if (std::string_view(V.Section) != ".nv.constant4")
            return Error = "cubin: the address of " + T.Name + " stored in " + V.Section + " is not lifted yet", false;
          Mod.Bank4Functions[static_cast<uint32_t>(K)] = T.Name;
          Init += "0";
          continue;
        }
        const DataVar *To = varOf(T.Section);
        if (!To || std::string_view(To->Section) == ".nv.constant4")
          return Error = "cubin: an address of " + T.Name + " (in " + T.Section + ") is not lifted yet", false;
        Init += "generic(" + std::string(To->Var) + ")+" + std::to_string(T.Value + X->second->Addend);
      }
    }
    Out += Decl + Init + "};\n";
  }
  for (const DataSymbol &Y : Cu.Symbols)
    if (const DataVar *V = varOf(Y.Section); V && !Y.Function && std::string_view(V->Section) != ".nv.constant4")
      R.Symbols.push_back({Y.Name, V->Var, Y.Value, Y.Size});
  return true;
}

} // namespace

bool liftCubin(std::string_view Data, LiftedModule &Result, std::string &Error) {
  Cubin Cu;
  if (!parseCubin(Data, Cu, Error))
    return false;
  if (Cu.Sm < 75 || Cu.Sm > 90) {
    Error = "machine code for sm_" + std::to_string(Cu.Sm) + ": the SASS front end reads sm_75 to sm_90";
    return false;
  }
  std::string Head = ".version 8.0\n.target sm_" + std::to_string(Cu.Sm == 89 ? 89 : Cu.Sm) +
                     "\n.address_size 64\n// lifted from machine code by ZLUDA's SASS front end\n";
  ModuleContext Mod;
  LiftedModule R;
  std::string Vars, Out;
  if (!dataVariables(Cu, Mod, R, Vars, Error))
    return false;
  size_t Lifted = 0;
  for (const Function &F : Cu.Functions) {
    if (!F.Entry)
      continue; // reached only by relocated calls, which refuse their callers
    FunctionLifter L(Cu, F, Mod);
    std::string Body;
    try {
      Body = L.run();
      ++Lifted;
    } catch (const Unliftable &E) {
      // This kernel only: an entry with its parameters whose body traps
      // (the driver refuses to launch it, naming why).
      R.Refused.emplace_back(F.Name, std::string("cannot lift ") + E.what());
      Out += "\n.visible .entry " + F.Name + "(" + paramList(F) + ")\n{\n  trap;\n  ret;\n}\n";
      continue;
    }
    uint32_t Stack = L.stackBytes();
    uint32_t CbBytes = (F.ParamBytes + 7) / 8 * 8;
    Out += "\n.visible .entry " + F.Name + "(" + paramList(F) + ")\n";
    if (F.ReqNtid[0])
      Out += ".reqntid " + std::to_string(F.ReqNtid[0]) + ", " + std::to_string(F.ReqNtid[1]) + ", " +
             std::to_string(F.ReqNtid[2]) + "\n";
    else if (F.MaxNtid[0])
      Out += ".maxntid " + std::to_string(F.MaxNtid[0]) + ", " + std::to_string(F.MaxNtid[1]) + ", " +
             std::to_string(F.MaxNtid[2]) + "\n";
    // %rz reads as zero; writes to RZ (and URZ) go to the sinks, so that a
    // load into RZ (LDS RZ, [RZ]: a wait) cannot change what %rz reads.
    Out += "{\n  .reg .b32 %r<255>;\n  .reg .b32 %rz;\n  .reg .b32 %rsink;\n  .reg .pred %p<8>;\n  .reg .pred %pz;\n"
           "  .reg .b32 %ur<63>;\n  .reg .b32 %urz;\n  .reg .b32 %ursink;\n  .reg .pred %up<8>;\n  .reg .pred %upz;\n";
    unsigned T = std::max(1u, L.MaxTemp);
    Out += "  .reg .b32 %bres;\n  .reg .pred %bpred;\n  .reg .b32 %wsm;\n  .reg .b32 %bm<16>;\n";
    Out += "  .reg .b32 %t<" + std::to_string(T) + ">;\n  .reg .b16 %h<" + std::to_string(T) + ">;\n  .reg .b64 %d<" + std::to_string(T) +
           ">;\n  .reg .pred %q<" + std::to_string(T) + ">;\n";
    Out += "  .local .align 16 .b8 __stack[" + std::to_string(Stack) + "];\n";
    Out += "  .local .align 8 .b8 __cb0[" + std::to_string(std::max<uint32_t>(CbBytes, 8)) + "];\n";
    Out += "  .shared .align 16 .b8 __smem[" + std::to_string(std::max<uint32_t>(F.SharedBytes, 16)) + "];\n";
    Out += "  mov.b32 %rz, 0;\n";
    // The parameter window, as bank 0 holds it (gaps zero).
    for (uint32_t W = 0; W < CbBytes; W += 4)
      Out += "  st.local.b32 [__cb0+" + std::to_string(W) + "], %rz;\n";
    for (const Param &P : F.Params)
      for (uint32_t B = 0; B < P.Size;) {
        uint32_t N = (P.Offset + B) % 4 == 0 && P.Size - B >= 4 ? 4 : (P.Offset + B) % 2 == 0 && P.Size - B >= 2 ? 2 : 1;
        std::string Ty = N == 4 ? ".b32" : N == 2 ? ".u16" : ".u8";
        Out += "  ld.param" + Ty + " %t0, [__p" + std::to_string(P.Ordinal) + "+" + std::to_string(B) + "];\n";
        Out += "  st.local" + Ty + " [__cb0+" +
               std::to_string(P.Offset + B) + "], %t0;\n";
        B += N;
      }
    // RZ reads as 0, PT as true; P0..P6 start false.
    Out += "  mov.b32 %rz, 0;\n  setp.ne.u32 %pz, %rz, 0;\n  setp.eq.u32 %p7, %rz, 0;\n";
    for (int I = 0; I < 7; ++I)
      Out += "  setp.ne.u32 %p" + std::to_string(I) + ", %rz, 0;\n  setp.ne.u32 %up" + std::to_string(I) +
             ", %rz, 0;\n";
    Out += "  setp.eq.u32 %up7, %rz, 0;\n  mov.b32 %urz, 0;\n";
    Out += Body + "ret;\n}\n";
  }
  // A cubin without kernels (variables only, or nothing: XLA writes such modules) loads as NVIDIA's driver
  // loads it; one whose every kernel is refused does not.
  if (!Lifted && !R.Refused.empty()) {
    Error = R.Refused.front().second;
    if (R.Refused.size() > 1)
      Error += " (and " + std::to_string(R.Refused.size() - 1) + " more kernels cannot be lifted)";
    return false;
  }
  std::string Externs;
  for (const SystemCall &C : SystemCalls) {
    if (!Mod.Externs.count(C.Name))
      continue;
    Externs += ".extern .func ";
    if (C.Result)
      Externs += "(.param .b" + std::to_string(C.Result * 8) + " r) ";
    Externs += std::string(C.Name) + " (";
    for (size_t K = 0; K < C.Params.size(); ++K)
      Externs += (K ? ", .param .b" : ".param .b") + std::to_string(C.Params[K] * 8) + " p" + std::to_string(K);
    Externs += ");\n";
  }
  R.Ptx = Head + Externs + Vars + Mod.Decls + Out;
  Result = std::move(R);
  return true;
}

bool liftCubin(std::string_view Data, std::string &Ptx, std::string &Error) {
  LiftedModule M;
  if (!liftCubin(Data, M, Error))
    return false;
  if (!M.Refused.empty()) {
    Error = M.Refused.front().second;
    return false;
  }
  Ptx = std::move(M.Ptx);
  return true;
}

} // namespace zluda::sass
