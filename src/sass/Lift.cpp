//===- Lift.cpp - SASS lifted into PTX -------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "sass/Lift.h"

#include "sass/Cubin.h"
#include "sass/Decode.h"

#include <algorithm>
#include <map>
#include <cstdio>
#include <cstring>
#include <set>
#include <stdexcept>

namespace zluda::sass {

namespace {

std::string hexs(uint64_t V) {
  char B[24];
  std::snprintf(B, sizeof B, "0x%llx", static_cast<unsigned long long>(V));
  return B;
}

/// FSETP/DSETP/HSETP2 comparisons (bits 76-79), their boolean combination
/// with the accumulated predicate, and F2I's roundings to integers.
const char *const FloatCmp[] = {"", "lt", "eq", "le", "gt", "ne", "ge", "num", "nan", "ltu", "equ", "leu", "gtu",
                                "neu", "geu", ""};
const char *const BoolOp[] = {"and", "or", "xor"};
const char *const IntRound[] = {".rni", ".rmi", ".rpi", ".rzi"};

/// Why an instruction cannot be lifted (caught per function, becomes the error).
struct Unliftable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The cubin's data sections as the lifted module's variables: __device__
/// data (initialized and zeroed), bank 3 (__constant__) and bank 4 (the
/// addresses of variables and of the driver's functions, which the linker
/// writes there).
struct DataVar {
  const char *Section, *Var;
  bool Const;
};
constexpr DataVar DataVars[] = {{".nv.global.init", "__zl_gdata", false},
                                {".nv.global", "__zl_gbss", false},
                                {".nv.constant3", "__zl_bank3", true},
                                {".nv.constant4", "__zl_bank4", true}};

/// What every function of the module shares.
struct ModuleContext {
  /// Bank 4's words that hold a function's address (vprintf...): offset -> name.
  std::map<uint32_t, std::string> Bank4Functions;
  /// The driver functions called (each declared .extern once).
  std::set<std::string> Externs;
  /// Module-level declarations functions ask for (a literal bank read with an index).
  std::string Decls;
  unsigned Bank2Arrays = 0;
};

/// The driver functions a CALL.ABS may reach: each parameter's size (8 or 4
/// bytes, in R4 upwards, a 64-bit one in an even pair) and the result's.
struct SystemCall {
  const char *Name;
  std::vector<unsigned> Params;
  unsigned Result;
};
const SystemCall SystemCalls[] = {{"vprintf", {8, 8}, 4},
                                  {"__assertfail", {8, 8, 4, 8, 8}, 0},
                                  {"malloc", {8}, 8},
                                  {"free", {8}, 0},
                                  {"cudaGraphSetConditional", {8, 4}, 0}};

/// One function's PTX body.
class FunctionLifter {
public:
  FunctionLifter(const Cubin &Cu, const Function &F, ModuleContext &Mod) : Cu(Cu), F(F), Mod(Mod) {}

  std::string run() {
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

  uint32_t MaxTemp = 0;

private:
  const Cubin &Cu;
  const Function &F;
  ModuleContext &Mod;
  /// Registers whose value is known here (a MOV of an immediate in this
  /// block), and those holding a driver function's address (from bank 4).
  std::map<uint32_t, uint32_t> Known;
  std::map<uint32_t, std::string> FnRegs;
  bool SyncMask = false; ///< %wsm holds a WARPSYNC's mask for this block's collectives
  bool HasSharedStores = false; ///< the function writes shared memory (STS, ATOMS)
  bool Unmodelled = false;      ///< BREAK or BMOV: convergence barriers left to each thread
  bool LanesObservable = false; ///< the function can tell whether its lanes met (observesLanes)
  /// Shared accesses since the lanes last met (a barrier, or a warp sync we
  /// placed): plain writes, reads, and commutative atomic adds (SharedWrote |
  /// SharedRead | SharedAdded).
  uint8_t Shared = 0;
  /// Each label's state on entry: what any path into it may have done (sharedAtLabels).
  std::map<uint32_t, uint8_t> SharedAtLabel;
  const Inst *Cur = nullptr;
  std::string Body;
  std::vector<uint32_t> ReturnSites; ///< the offsets after CALL.REL instructions
  std::map<uint32_t, std::vector<uint32_t>> SwitchTargets; ///< each BRX's candidate targets, by its offset
  std::string Bank2Var;              ///< the literal bank's module array, once an indexed read needs it
  unsigned Temp = 0;

  /// What an instruction may overwrite is no longer known: its destination
  /// (and the register after it for 64-bit results, the three after it for
  /// loads, which may be 128-bit).
  void forget(const Inst &I) {
    if (I.Uniform || I.O == Op::LDC) // LDC forgets its destination after reading its index
      return;
    uint32_t Width = 1;
    switch (I.O) {
    case Op::F2F: case Op::F2I: case Op::I2F: case Op::FRND: case Op::F2F64: case Op::F2I64: case Op::I2F64:
    case Op::FRND64: case Op::IMAD_WIDE: case Op::DMUL: case Op::DADD: case Op::DFMA: case Op::CS2R:
    case Op::LEPC: case Op::ATOMG: case Op::ATOMG_CAS: case Op::ATOMS: case Op::ATOMS_CAS: case Op::MATCH:
      Width = 2;
      break;
    case Op::LDG: case Op::LDG75: case Op::LDS: case Op::LDL: case Op::LD: case Op::HFMA2_MMA: case Op::LDSM:
      Width = 4;
      break;
    case Op::HMMA: case Op::IMMA: case Op::BMMA: case Op::DMMA:
      Width = 8;
      break;
    case Op::SULD:
      Width = 4;
      break;
    case Op::TEX: case Op::TLD: case Op::TLD4: case Op::TXD: case Op::TXQ:
      Width = 2;
      for (uint32_t K = 0; K < 2; ++K) {
        Known.erase(I.Rd2 + K);
        FnRegs.erase(I.Rd2 + K);
      }
      break;
    default:
      break;
    }
    for (uint32_t K = 0; K < Width; ++K) {
      Known.erase(I.Rd + K);
      FnRegs.erase(I.Rd + K);
    }
  }

  /// CALL.ABS.NOINC of a driver function whose address a LDC.64 of bank 4
  /// put in the register pair: a PTX call, with the parameters from R4
  /// upwards (64-bit ones in an even pair) and the result in R4 (R4, R5).
  void systemCall(const Inst &I) {
    auto It = FnRegs.find(I.A.Reg);
    if (It == FnRegs.end())
      fail("a call of an address the lifter cannot follow (function pointers are not lifted yet)");
    const SystemCall *Call = nullptr;
    for (const SystemCall &C : SystemCalls)
      if (It->second == C.Name)
        Call = &C;
    if (!Call)
      fail("a call of " + It->second + ", which the driver does not provide");
    Mod.Externs.insert(Call->Name);
    std::string S = "{\n";
    std::string Args;
    uint32_t Reg = 4;
    for (size_t K = 0; K < Call->Params.size(); ++K) {
      std::string P = "%scp" + std::to_string(K);
      if (Call->Params[K] == 8) {
        Reg = (Reg + 1) & ~1u;
        std::string D = t64();
        S += ".param .b64 " + P + ";\nmov.b64 " + D + ", {" + r(Reg) + ", " + r(Reg + 1) + "};\nst.param.b64 [" + P +
             "], " + D + ";\n";
        Reg += 2;
      } else {
        S += ".param .b32 " + P + ";\nst.param.b32 [" + P + "], " + r(Reg) + ";\n";
        Reg += 1;
      }
      Args += (K ? ", " : "") + P;
    }
    if (Call->Result) {
      S += ".param .b" + std::to_string(Call->Result * 8) + " %scr;\n";
      S += std::string("call.uni (%scr), ") + Call->Name + ", (" + Args + ");\n";
      if (Call->Result == 8)
        S += "ld.param.b64 %d0, [%scr];\nmov.b64 {%r4, %r5}, %d0;\n";
      else
        S += "ld.param.b32 %r4, [%scr];\n";
    } else {
      S += std::string("call.uni ") + Call->Name + ", (" + Args + ");\n";
    }
    Body += S + "}\n";
  }

  [[noreturn]] void fail(const Inst &I, const std::string &Why) {
    throw Unliftable(F.Name + "+" + hexs(I.Offset) + " (" + hex128(I.W) + ", " + describe(I) + "): " + Why);
  }
  [[noreturn]] void fail(const std::string &Why) {
    if (!Cur) // before the instructions are walked
      throw Unliftable(F.Name + ": " + Why);
    fail(*Cur, Why);
  }

  /// The guard's predicate register: the uniform datapath's instructions are
  /// guarded by uniform predicates (@!UP0 UIADD3, @UP5 ULEA).
  std::string guardReg(const Inst &I) const {
    return (I.Uniform || I.O == Op::ULDC ? "%up" : "%p") + std::to_string(I.Guard.P);
  }
  std::string guardPrefix(const Inst &I) {
    if (I.Guard.isTrue())
      return "";
    return "@" + std::string(I.Guard.Not ? "!" : "") + guardReg(I) + " ";
  }
  /// Branches around what follows where the guard does not hold; the label
  /// to place after it (empty: the guard always holds).
  std::string skipUnlessGuard(const Inst &I) {
    if (I.Guard.isTrue())
      return "";
    std::string Skip = "$S_" + hexs(I.Offset).substr(2);
    Body += "@" + std::string(I.Guard.Not ? "" : "!") + guardReg(I) + " bra " + Skip + ";\n";
    return Skip;
  }
  /// Places the label \p Skip (from skipUnlessGuard) after an instruction's code.
  void closeSkip(const std::string &Skip) {
    if (!Skip.empty())
      Body += Skip + ":\n";
  }
  /// Branches to the one of \p Offsets that \p Value equals; traps where none does.
  void branchAmong(const std::string &Value, const std::vector<uint32_t> &Offsets) {
    std::string Q = tp();
    for (uint32_t T : Offsets) {
      emit("setp.eq.u32 " + Q + ", " + Value + ", " + hexs(T));
      Body += "@" + Q + " bra $L_" + hexs(T).substr(2) + ";\n";
    }
    emit("trap");
  }
  /// Whether the instruction shows how a warp's lanes interleave: a warp
  /// collective or what reads the active lanes, the tensor cores' warp-wide
  /// operations, or an access that may reach shared memory (generic ones too).
  static bool observesLanes(const Inst &I) {
    if (sharedUse(I) != SharedUse::None)
      return true;
    switch (I.O) {
    case Op::SHFL: case Op::SHFL_IC: case Op::SHFL_IL: case Op::SHFL_ILC: case Op::VOTE: case Op::VOTEU:
    case Op::MATCH: case Op::REDUX: case Op::R2UR: case Op::ELECT: case Op::WARPSYNC: case Op::WARPSYNC_R:
    case Op::UFLO: case Op::UPOPC: case Op::HMMA: case Op::IMMA: case Op::BMMA: case Op::DMMA: case Op::MOVM:
    case Op::ARRIVES: case Op::LD: case Op::ST: case Op::ATOMF: case Op::QSPC:
      return true;
    default:
      return I.Generic; // ATOM and ATOM.CAS decode as ATOMG's forms on a generic address
    }
  }
  /// The instructions that write shared memory (after which a warp's lanes meet before a shared load).
  static bool writesShared(const Inst &I) {
    SharedUse U = sharedUse(I);
    return U == SharedUse::Write || U == SharedUse::Add;
  }
  /// The guard and a predicate operand (BRA's and EXIT's second condition) as one predicate.
  std::string guardAnd(const Inst &I, const PredSrc &Operand) {
    std::string Q = predSrc(Operand);
    if (I.Guard.isTrue())
      return Q;
    std::string G = tp();
    emit("and.pred " + G + ", " + Q + ", " + (I.Guard.Not ? "!" : "") + guardReg(I));
    return G;
  }
  void emit(const std::string &Line) { Body += Line + ";\n"; }
  /// A fresh temporary of this instruction: %t (b32), %d (b64), %h (b16), %q (pred).
  std::string temp(char Kind) {
    unsigned N = Temp++;
    MaxTemp = std::max(MaxTemp, Temp);
    return std::string("%") + Kind + std::to_string(N);
  }
  std::string t32() { return temp('t'); }
  std::string t64() { return temp('d'); }
  std::string th() { return temp('h'); }
  std::string tp() { return temp('q'); }
  /// Register \p N as a destination (the zero register's writes go to a sink, never to %rz).
  std::string r(uint32_t N) const {
    if (Cur && Cur->Uniform)
      return N == URZ ? "%ursink" : "%ur" + std::to_string(N);
    return N == RZ ? "%rsink" : "%r" + std::to_string(N);
  }
  /// Predicate \p N as a destination (PT's writes go to a sink).
  std::string p(uint32_t N) const {
    if (Cur && Cur->Uniform)
      return N == PT ? "%upz" : "%up" + std::to_string(N);
    return N == PT ? "%pz" : "%p" + std::to_string(N);
  }
  /// Predicate \p N as a source.
  std::string pin(uint32_t N) const { return (Cur && Cur->Uniform ? "%up" : "%p") + std::to_string(N); }
  /// \p V in a register (immediates moved into a temporary), for vector packs.
  std::string inReg(const std::string &V) {
    if (!V.empty() && V[0] == '%')
      return V;
    std::string T = t32();
    emit("mov.b32 " + T + ", " + V);
    return T;
  }

  /// The threads a warp collective runs over: those a WARPSYNC of this
  /// block named (Hopper's code converges them with WARPSYNC alone, no
  /// BRA.DIV fallback), else the threads executing it.
  std::string memberMask() {
    // Only for what every lane of the WARPSYNC executes: a guarded
    // instruction runs on the lanes whose guard holds (a rendezvous over the
    // whole mask there waited for lanes that skipped it: PyTorch's topk hung).
    if (SyncMask && Cur && Cur->Guard.isTrue())
      return "%wsm";
    std::string M = t32();
    emit("activemask.b32 " + M);
    return M;
  }

  /// A predicate source as a PTX predicate (negation folded into a temp).
  std::string predSrc(const PredSrc &P) { return predSrc(P, Cur && Cur->Uniform); }
  /// The same from the uniform predicates (UPn) or the vector ones, as asked.
  std::string predSrc(const PredSrc &P, bool UniformFile) {
    std::string R = (UniformFile ? "%up" : "%p") + std::to_string(P.P);
    if (!P.Not)
      return R;
    std::string T = tp();
    emit("not.pred " + T + ", " + R);
    return T;
  }

  /// The function's literal bank (.nv.constant2.<function>), refused where a relocation patches it.
  const std::string &literalBank() {
    auto It = Cu.Sections.find(".nv.constant2." + F.Name);
    auto patched = [&](const std::string &Rel) {
      auto R = Cu.Sections.find(Rel + F.Name);
      return R != Cu.Sections.end() && !R->second.empty(); // sm_90 cubins carry empty ones
    };
    if (It == Cu.Sections.end() || patched(".rel.nv.constant2.") || patched(".rela.nv.constant2."))
      fail("constant bank 2 without its literal section, or patched by relocations");
    return It->second;
  }

  /// The offsets a BRX may reach: ptxas's jump tables are words of the
  /// literal bank holding offsets from the function's start, the branch
  /// adding the next instruction's offset and its immediate (I.Target) to the
  /// word it loaded. Every word of the bank that makes an instruction's offset
  /// in this function counts.
  std::vector<uint32_t> switchTargets(const Inst &I) {
    const std::string &B = literalBank();
    std::set<uint32_t> Out;
    for (size_t K = 0; K + 4 <= B.size(); K += 4) {
      uint32_t W;
      std::memcpy(&W, B.data() + K, 4);
      uint32_t T = W + static_cast<uint32_t>(I.Target);
      if (T % 16 == 0 && T < F.Code.size())
        Out.insert(T);
    }
    if (Out.empty())
      fail(I, "an indirect branch without a jump table in the literal bank");
    return {Out.begin(), Out.end()};
  }

  /// The literal bank as a module .const array (for reads at an index), declared once per function.
  std::string literalArray() {
    if (Bank2Var.empty()) {
      const std::string &B = literalBank();
      Bank2Var = "__zl_bank2_" + std::to_string(Mod.Bank2Arrays++);
      std::string Init;
      for (size_t K = 0; K < B.size(); ++K)
        Init += (K ? "," : "") + std::to_string(static_cast<uint8_t>(B[K]));
      Mod.Decls += ".const .align 16 .b8 " + Bank2Var + "[" + std::to_string(B.size()) + "] = {" + Init + "};\n";
    }
    return Bank2Var;
  }

  /// Word \p Off of constant bank \p Bank, as a 32-bit PTX operand.
  std::string constWord(uint32_t Bank, uint32_t Off) {
    if (Bank == 2) {
      // ptxas's literal pool (.nv.constant2.<function>): read-only words,
      // inlined unless a relocation patches the bank.
      const std::string &B = literalBank();
      if (Off % 4 || Off + 4 > B.size())
        fail("literal c[0x2][" + hexs(Off) + "] outside its section");
      uint32_t W;
      std::memcpy(&W, B.data() + Off, 4);
      std::string T = t32(); // in a register: a float instruction would convert an integer literal
      emit("mov.b32 " + T + ", " + hexs(W));
      return T;
    }
    if (Bank == 3 || Bank == 4) {
      const DataVar &V = DataVars[Bank - 1];
      auto It = Cu.Sections.find(V.Section);
      if (It == Cu.Sections.end() || Off % 4 || uint64_t(Off) + 4 > It->second.size())
        fail("c[" + hexs(Bank) + "][" + hexs(Off) + "] lies outside the cubin's " + V.Section);
      if (Bank == 4)
        if (auto Fn = Mod.Bank4Functions.find(Off & ~7u); Fn != Mod.Bank4Functions.end())
          fail("the address of " + Fn->second + " used as data");
      std::string T = t32();
      emit("ld.const.b32 " + T + ", [" + V.Var + "+" + std::to_string(Off) + "]");
      return T;
    }
    if (Bank != 0)
      fail("constant bank " + std::to_string(Bank) + " is not lifted yet");
    if (Off % 4)
      fail("constant c[0x0][" + hexs(Off) + "] is not word aligned");
    if (Off >= F.ParamBase && Off < F.ParamBase + F.ParamBytes) {
      std::string T = t32();
      emit("ld.local.b32 " + T + ", [__cb0+" + std::to_string(Off - F.ParamBase) + "]");
      return T;
    }
    static const char *Sregs[] = {"%ntid.x", "%ntid.y", "%ntid.z", "%nctaid.x", "%nctaid.y", "%nctaid.z"};
    if (Off < 0x18) {
      std::string T = t32();
      emit(std::string("mov.u32 ") + T + ", " + Sregs[Off / 4]);
      return T;
    }
    if (Off == 0x28) // the local stack's top, where R1 starts
      return std::to_string(stackBytes());
    if (Off >= 0x18 && Off < 0x28) {
      // The shared (0x18) and local (0x20) windows' generic bases: a shared
      // or local address plus these is its generic address (cvta). sm_90's
      // shared addresses start at 0x400.
      bool Shared = Off < 0x20, High = Off % 8 != 0;
      std::string G = t64(), W = t32();
      emit(std::string(Shared ? "cvta.shared.u64 " : "cvta.local.u64 ") + G + ", " + (Shared ? "__smem" : "__stack"));
      if (Shared && Cu.Sm >= 90)
        emit("sub.u64 " + G + ", " + G + ", 1024");
      if (High)
        emit("shr.u64 " + G + ", " + G + ", 32");
      emit("cvt.u32.u64 " + W + ", " + G);
      return W;
    }
    // The cooperative launch's grid-barrier workspace, PTX's %envreg1 (high
    // word) and %envreg2 (low word): c[0x0][0x8c]/[0x90], sm_90's [0x44]/[0x48]
    // (grid.sync() tests it for null, then counts arrivals there).
    const uint32_t EnvBase = Cu.Sm >= 90 ? 0x40u : 0x88u;
    if (Off == EnvBase + 4 || Off == EnvBase + 8) {
      std::string T = t32();
      emit("mov.u32 " + T + ", %envreg" + std::to_string((Off - EnvBase) / 4));
      return T;
    }
    // Where the global window ends (sm_90: c[0x0][0xd0]): isspacep.global is
    // QSPC.G below it, and nothing of ours lies beyond.
    if (Off == (Cu.Sm >= 90 ? 0xd0u : 0x50u) || Off == (Cu.Sm >= 90 ? 0xd4u : 0x54u))
      return "0xffffffff";
    fail("driver constant c[0x0][" + hexs(Off) + "] is not lifted yet");
  }

  /// A 32-bit integer source (negation not applied).
  std::string val(const Src &S) {
    switch (S.K) {
    case Src::KReg:
      if (Cur->Uniform)
        return S.Reg == URZ ? "0" : "%ur" + std::to_string(S.Reg);
      return S.Reg == RZ ? "0" : r(S.Reg);
    case Src::KUReg:
      return S.Reg == URZ ? "0" : "%ur" + std::to_string(S.Reg);
    case Src::KImm:
      return hexs(S.Imm);
    case Src::KConst:
      return constWord(S.Bank, S.Offset);
    default:
      fail("missing operand");
    }
  }
  /// A 32-bit float source with its absolute value and negation applied (bitwise, as the hardware does).
  std::string fval(const Src &S) {
    if (S.K == Src::KImm) { // the bits, as PTX writes a float's (a plain integer would be converted)
      uint32_t Bits = S.Imm;
      if (S.Abs)
        Bits &= 0x7fffffffu;
      if (S.Neg)
        Bits ^= 0x80000000u;
      char B[16];
      std::snprintf(B, sizeof B, "0f%08X", Bits);
      return B;
    }
    return signBits(val(S), S, "0x7fffffff", "0x80000000");
  }
  /// \p V with \p S's absolute value (AND \p Magnitude) and negation (XOR
  /// \p Sign) applied on the bits, as the hardware's source modifiers do.
  std::string signBits(std::string V, const Src &S, const char *Magnitude, const char *Sign) {
    if (S.Abs) {
      std::string T = t32();
      emit("and.b32 " + T + ", " + V + ", " + Magnitude);
      V = T;
    }
    if (S.Neg) {
      std::string T = t32();
      emit("xor.b32 " + T + ", " + V + ", " + Sign);
      V = T;
    }
    return V;
  }
  /// A double source: a register pair, two words of a bank, or an immediate
  /// (the double's high 32 bits); absolute value and negation on the sign bit.
  std::string dval(const Src &S) {
    if (S.K == Src::KImm) {
      uint64_t Bits = uint64_t(S.Imm) << 32;
      if (S.Abs)
        Bits &= ~(uint64_t(1) << 63);
      if (S.Neg)
        Bits ^= uint64_t(1) << 63;
      char B[24];
      std::snprintf(B, sizeof B, "0d%016llX", static_cast<unsigned long long>(Bits));
      return B;
    }
    std::string V = val64(S);
    if (V == "0") {
      std::string Z = t64();
      emit("mov.b64 " + Z + ", 0");
      V = Z;
    }
    // The double unit's source modifiers leave a NaN as it is (the H200's
    // sub.f64 of a negative NaN returns it unchanged), as PTX's abs/neg do.
    if (S.Abs) {
      std::string T = t64();
      emit("abs.f64 " + T + ", " + V);
      V = T;
    }
    if (S.Neg) {
      std::string T = t64();
      emit("neg.f64 " + T + ", " + V);
      V = T;
    }
    return V;
  }
  /// A 64-bit source: a register pair, or two words of a bank.
  std::string val64(const Src &S) {
    std::string T = t64();
    if (S.K == Src::KReg && Cur->Uniform) {
      if (S.Reg == URZ)
        return "0";
      emit("mov.b64 " + T + ", {%ur" + std::to_string(S.Reg) + ", %ur" + std::to_string(S.Reg + 1) + "}");
    } else if (S.K == Src::KReg) {
      if (S.Reg == RZ)
        return "0";
      if (S.Reg + 1 >= RZ)
        fail("register pair R" + std::to_string(S.Reg) + " runs past R254");
      emit("mov.b64 " + T + ", {" + r(S.Reg) + ", " + r(S.Reg + 1) + "}");
    } else if (S.K == Src::KConst) {
      std::string Lo = constWord(S.Bank, S.Offset), Hi = constWord(S.Bank, S.Offset + 4);
      emit("mov.b64 " + T + ", {" + inReg(Lo) + ", " + inReg(Hi) + "}");
    } else if (S.K == Src::KUReg) {
      if (S.Reg == URZ)
        return "0";
      emit("mov.b64 " + T + ", {%ur" + std::to_string(S.Reg) + ", %ur" + std::to_string(S.Reg + 1) + "}");
    } else {
      fail("a 64-bit operand must be a register pair or a constant");
    }
    return T;
  }
  void setPair(uint32_t Rd, const std::string &V64) {
    if (Rd == (Cur->Uniform ? URZ : RZ))
      return;
    if (Rd + 1 >= (Cur->Uniform ? URZ : RZ))
      fail("register pair " + r(Rd) + " runs past the last register");
    emit("mov.b64 {" + r(Rd) + ", " + r(Rd + 1) + "}, " + V64);
  }
  /// Integer source with its negation: two's complement (bitwise NOT under .X).
  std::string ival(const Src &S, bool X) {
    std::string V = val(S);
    if (!S.Neg)
      return V;
    std::string T = t32();
    emit(std::string(X ? "not.b32 " : "neg.s32 ") + T + ", " + V);
    return T;
  }

public:
  bool DynamicStack = false;
  uint32_t stackBytes() const {
    return (std::max<uint32_t>(F.FrameSize, 16) + (DynamicStack ? 1024 : 0) + 15) / 16 * 16;
  }

private:

  std::string rnd(uint32_t R) {
    static const char *N[] = {".rn", ".rm", ".rp", ".rz"};
    return N[R & 3];
  }

  /// How an instruction touches shared memory, for orderShared.
  enum class SharedUse { None, Read, Write, Add };
  static SharedUse sharedUse(const Inst &I) {
    switch (I.O) {
    case Op::LDS:
    case Op::LDSM:
      return SharedUse::Read;
    case Op::STS:
    case Op::STSM:
    case Op::LDGSTS:
    case Op::ATOMS_CAS:
      return SharedUse::Write;
    case Op::ATOMS_POPC_INC:
      return SharedUse::Add;
    case Op::ATOMS: // ADD and INC commute with each other; the rest read and write
      return I.Sub2 == 0 || I.Sub2 == 3 ? SharedUse::Add : SharedUse::Write;
    default:
      return SharedUse::None;
    }
  }

  /// A warp's lanes run in lockstep on NVIDIA's hardware and ptxas relies on
  /// it: shared memory that lanes exchange within a converged warp needs no
  /// __syncwarp (it becomes a NOP, or nothing). Our lanes do not run in
  /// lockstep, so the lanes executing a shared access meet first where an
  /// earlier one may conflict with it across lanes since they last met: a
  /// read after writes or adds, a write after anything (CUB's per-warp
  /// histograms: lanes zero the bins, then count into any bin), adds after
  /// writes or reads (adds commute with each other).
  void orderShared(const Inst &I) {
    bool Meet = false;
    Shared = sharedStep(Shared, I, Meet);
    if (!Meet)
      return;
    // Before the guard's skip: every lane of a WARPSYNC's mask executes the slot.
    if (SyncMask)
      emit("bar.warp.sync %wsm");
    else // the lanes executing it meet in activemask itself (no sync of its mask needed after it)
      emit("activemask.b32 " + t32());
  }
  static constexpr uint8_t SharedWrote = 1, SharedRead = 2, SharedAdded = 4, SharedAll = 7;
  /// The shared-access state after \p I from \p S, and whether the lanes meet before it.
  static uint8_t sharedStep(uint8_t S, const Inst &I, bool &Meet) {
    Meet = false;
    SharedUse U = sharedUse(I);
    if (U == SharedUse::None)
      return S;
    if (I.O == Op::LDSM || I.O == Op::STSM) { // warp collectives: the lanes meet in them
      S = 0;
    } else {
      uint8_t Conflicts = U == SharedUse::Read  ? SharedWrote | SharedAdded
                          : U == SharedUse::Add ? SharedWrote | SharedRead
                                                : SharedAll;
      if (S & Conflicts) {
        Meet = true;
        S = 0;
      }
    }
    return S | (U == SharedUse::Read ? SharedRead : U == SharedUse::Add ? SharedAdded : SharedWrote);
  }
  /// Whether the lanes meet at \p I as the lift makes them (a whole-block
  /// barrier, the end of a BSSY region).
  bool meetsAt(const Inst &I) const {
    if (I.O == Op::BAR)
      return (I.Sub2 == 0 || I.Sub2 == 2) && I.Guard.isTrue() && !I.Target;
    return I.O == Op::BSYNC && !Unmodelled && LanesObservable && I.Guard.isTrue();
  }
  /// Each label's shared-access state on entry, joined over the paths into
  /// it until nothing changes: a loop whose body ends in __syncthreads enters
  /// its head with the lanes met (a tiled product's stores then need no
  /// meeting). Labels reached through computed jumps (returns, function
  /// pointers) take every state.
  void sharedAtLabels(const std::vector<Inst> &Code, const std::set<uint64_t> &Targets) {
    if (!HasSharedStores)
      return;
    for (uint64_t T : Targets)
      SharedAtLabel[static_cast<uint32_t>(T)] = 0;
    SharedAtLabel[0] = 0;
    for (uint32_t T : ReturnSites)
      SharedAtLabel[T] = SharedAll;
    for (const Inst &I : Code)
      if (I.O == Op::CALL_REG)
        for (uint32_t T : F.Entries)
          SharedAtLabel[T] = SharedAll;
    for (bool Changed = true; Changed;) {
      Changed = false;
      uint8_t S = 0;
      bool Reached = true; // whether the previous instruction falls through
      auto join = [&](uint32_t T, uint8_t V) {
        uint8_t &Into = SharedAtLabel[T];
        if ((Into | V) != Into)
          Into |= V, Changed = true;
      };
      for (const Inst &I : Code) {
        if (Targets.count(I.Offset)) {
          if (Reached)
            join(I.Offset, S);
          S = SharedAtLabel[I.Offset];
        }
        Reached = true;
        if (I.Guard.isFalse())
          continue;
        bool Meet = false;
        S = sharedStep(S, I, Meet);
        if (meetsAt(I))
          S = 0;
        if ((I.O == Op::BRA && !I.Conv) || I.O == Op::CALL)
          join(static_cast<uint32_t>(I.Target), S);
        if (I.O == Op::BRX || I.O == Op::BRXU)
          for (uint32_t T : SwitchTargets[I.Offset])
            join(T, S);
        bool Always = I.Guard.isTrue() && (I.PSrc0.isTrue() || (I.O == Op::BRA && I.Div));
        if (Always && ((I.O == Op::BRA && !I.Conv) || I.O == Op::BRX || I.O == Op::BRXU || I.O == Op::EXIT ||
                       I.O == Op::RET || I.O == Op::CALL || I.O == Op::CALL_REG))
          Reached = false;
      }
    }
  }

  void lift(const Inst &I) {
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

  /// \p Count consecutive registers from \p Reg as a PTX vector operand; RZ
  /// reads as zeros and, for a destination, writes nowhere.
  std::string fragment(uint32_t Reg, uint32_t Count, bool Dest) {
    std::string S;
    if (Reg != RZ && Reg + Count - 1 >= RZ)
      fail("register group R" + std::to_string(Reg) + " of " + std::to_string(Count) + " runs past R254");
    for (uint32_t K = 0; K < Count; ++K) {
      std::string X;
      if (Reg != RZ) {
        X = r(Reg + K);
      } else {
        X = t32();
        if (!Dest)
          emit("mov.b32 " + X + ", 0");
      }
      S += (K ? ", " : "") + X;
    }
    return "{" + S + "}";
  }
  /// The same for doubles: register pairs through 64-bit temporaries (read
  /// before the instruction, written back after it with \p Writeback).
  std::string fragment64(uint32_t Reg, uint32_t Pairs, bool Dest, std::string *Writeback) {
    if (Reg != RZ && (Reg % 2 || Reg + 2 * Pairs - 1 >= RZ))
      fail("register pairs from R" + std::to_string(Reg) + " are misaligned or run past R254");
    std::string S;
    for (uint32_t K = 0; K < Pairs; ++K) {
      std::string D = t64();
      if (!Dest)
        emit(Reg == RZ ? "mov.b64 " + D + ", 0" : "mov.b64 " + D + ", {" + r(Reg + 2 * K) + ", " + r(Reg + 2 * K + 1) + "}");
      else if (Reg != RZ)
        *Writeback += "mov.b64 {" + r(Reg + 2 * K) + ", " + r(Reg + 2 * K + 1) + "}, " + D + ";\n";
      S += (K ? ", " : "") + D;
    }
    return "{" + S + "}";
  }

  /// HMMA, IMMA, BMMA, DMMA as PTX's mma.sync (the same fragment layouts:
  /// the hardware's). Each shape from the modifier bits (Opcodes.def); any
  /// bit outside the forms seen is refused.
  void tensorCore(const Inst &I) {
    auto bit = [&](unsigned Pos) { return ((I.Sub >> (Pos - 72)) & 1) != 0; };
    auto only = [&](std::initializer_list<unsigned> Allowed) {
      uint32_t Mask = 0;
      for (unsigned B : Allowed)
        Mask |= 1u << (B - 72);
      if (I.Sub & ~Mask)
        fail("tensor-core modifier bits " + hexs(I.Sub << 8) + " (from bit 64) not seen in ptxas's forms");
    };
    unsigned M = 16, K = 8, EBits = 16;
    std::string Types, Tail;
    bool Double = false;
    switch (I.O) {
    case Op::HMMA: {
      only({75, 76, 78, 82, 83});
      unsigned In = (I.Sub >> 10) & 3; // bits 82-83
      bool F32 = bit(76);
      K = bit(75) ? 16 : bit(78) ? 4 : 8;
      static const char *InTy[] = {"f16", "bf16", "tf32"};
      if (In == 3 || (In != 0 && !F32) || (In == 2 ? K == 16 : K == 4))
        fail("an HMMA shape and type not seen in ptxas's forms");
      EBits = In == 2 ? 32 : 16;
      std::string Acc = F32 ? "f32" : "f16", T = InTy[In];
      Types = "." + Acc + "." + T + "." + T + "." + Acc;
      M = 16;
      break;
    }
    case Op::IMMA: {
      only({74, 75, 76, 78, 82, 83, 84, 85, 86});
      uint32_t Shape = I.Sub & ~((1u << 4) | (1u << 6) | (1u << 10)); // less the signs and .SAT
      struct Row { uint32_t Bits; unsigned M, K, E; };
      auto at = [](std::initializer_list<unsigned> Bs) {
        uint32_t V = 0;
        for (unsigned B : Bs)
          V |= 1u << (B - 72);
        return V;
      };
      const Row Rows[] = {{at({74}), 8, 16, 8},         {at({74, 86}), 16, 16, 8},
                          {at({74, 75, 86}), 16, 32, 8}, {at({74, 83, 84, 85}), 8, 32, 4},
                          {at({74, 75, 83, 84, 86}), 16, 32, 4}, {at({74, 83, 84, 85, 86}), 16, 64, 4}};
      const Row *Found = nullptr;
      for (const Row &R : Rows)
        if (R.Bits == Shape)
          Found = &R;
      if (!Found)
        fail("an IMMA shape not seen in ptxas's forms");
      M = Found->M;
      K = Found->K;
      EBits = Found->E;
      std::string E = std::to_string(EBits);
      Types = std::string(".s32.") + (bit(76) ? "s" : "u") + E + "." + (bit(78) ? "s" : "u") + E + ".s32";
      if (bit(82))
        Types = ".satfinite" + Types;
      break;
    }
    case Op::BMMA:
      only({74, 75, 76, 78, 80});
      if (!bit(80) || !bit(74) || (bit(75) && bit(76)))
        fail("a BMMA form not seen in ptxas's forms");
      M = bit(75) || bit(76) ? 16 : 8;
      K = bit(76) ? 256 : 128;
      EBits = 1;
      Types = ".s32.b1.b1.s32";
      Tail = bit(78) ? ".and.popc" : ".xor.popc";
      break;
    case Op::DMMA: {
      only({76, 77});
      unsigned Shape = (I.Sub >> 4) & 3;
      if (Shape && Cu.Sm < 90)
        fail("DMMA's sm_90 shapes before sm_90");
      M = Shape ? 16 : 8;
      K = Shape ? 4u << (Shape - 1) : 4;
      EBits = 64;
      Types = ".f64.f64.f64.f64";
      Double = true;
      break;
    }
    default:
      fail("not a tensor-core instruction");
    }
    unsigned ARegs = M * K * EBits / 1024, BRegs = 8 * K * EBits / 1024;
    unsigned CRegs = M * 8 * (I.O == Op::HMMA && !bit(76) ? 16 : Double ? 64 : 32) / 1024;
    std::string Shape = ".m" + std::to_string(M) + "n8k" + std::to_string(K);
    std::string D, A, Bf, C, Writeback;
    if (Double) {
      A = fragment64(I.A.Reg, ARegs / 2, false, nullptr);
      Bf = fragment64(I.B.Reg, BRegs / 2, false, nullptr);
      C = fragment64(I.C.Reg, CRegs / 2, false, nullptr);
      D = fragment64(I.Rd, CRegs / 2, true, &Writeback);
    } else {
      A = fragment(I.A.Reg, ARegs, false);
      Bf = fragment(I.B.Reg, BRegs, false);
      C = fragment(I.C.Reg, CRegs, false);
      D = fragment(I.Rd, CRegs, true);
    }
    emit("mma.sync.aligned" + Shape + ".row.col" + Types + Tail + " " + D + ", " + A + ", " + Bf + ", " + C);
    Body += Writeback;
  }

  /// LDGSTS as cp.async (synchronous here): the bytes copied where the
  /// predicate holds, zeros where not. .ZFILL reads its fill from the
  /// address: its low bits (below the copy's size) count the bytes to fill
  /// with zeros, the rest are copied from the aligned address below it
  /// (ptxas adds 16 - src-size to the address; the predicate is src-size != 0).
  /// A texture or surface instruction's handle: the 64-bit bank word pair,
  /// or the one 32-bit uniform register of the _U forms (ptxas loads only
  /// the low word there: the CPU device's handles are small numbers).
  std::string handle(const Inst &I) {
    if (I.Handle.K != Src::KUReg)
      return val64(I.Handle);
    std::string T = t64();
    emit("cvt.u64.u32 " + T + ", " + inReg(val(I.Handle)));
    return T;
  }

  /// sm_90's F2FP to and from pairs of 8-bit floats (bits 72-90 as seen in
  /// nvdisasm's listings of cvt's forms; others are refused): f32 pairs (A
  /// to the high byte, as PACK_AB) or an f16x2 to e4m3x2/e5m2x2 (.SATFINITE,
  /// .RELU), and an e4m3x2/e5m2x2 (B's low half, or with bit 88 its high
  /// half) to f16x2.
  void eightBitFloats(const Inst &I) {
    struct Form {
      uint32_t Bits;
      const char *Cvt;
      int Kind; // 0: two f32, 1: an f16x2, 2: to f16x2 (3: from B's high half, bit 88)
    };
    static const Form Forms[] = {
        {0x48070, "cvt.rn.satfinite.e4m3x2.f32", 0},      {0x48060, "cvt.rn.satfinite.e5m2x2.f32", 0},
        {0x48078, "cvt.rn.satfinite.relu.e4m3x2.f32", 0}, {0x48068, "cvt.rn.satfinite.relu.e5m2x2.f32", 0},
        {0x48032, "cvt.rn.satfinite.e4m3x2.f16x2", 1},    {0x48022, "cvt.rn.satfinite.e5m2x2.f16x2", 1},
        {0x20006, "cvt.rn.f16x2.e4m3x2", 2},              {0x20004, "cvt.rn.f16x2.e5m2x2", 2},
        {0x30006, "cvt.rn.f16x2.e4m3x2", 3},              {0x30004, "cvt.rn.f16x2.e5m2x2", 3},
    };
    uint32_t Bits = I.Sub2 >> 2;
    for (const Form &F : Forms) {
      if (F.Bits != Bits)
        continue;
      std::string H = th();
      if (F.Kind >= 2) {
        std::string Hi = th();
        emit("mov.b32 {" + H + ", " + Hi + "}, " + inReg(val(I.B)));
        emit(std::string(F.Cvt) + " " + r(I.Rd) + ", " + (F.Kind == 3 ? Hi : H));
        return;
      }
      if (F.Kind == 0)
        emit(std::string(F.Cvt) + " " + H + ", " + fval(I.A) + ", " + fval(I.B));
      else
        emit(std::string(F.Cvt) + " " + H + ", " + inReg(val(I.B)));
      convResult(I, 2, H);
      return;
    }
    fail("F2FP form " + hexs(Bits) + " (bits 72-90) not seen yet");
  }

  /// TEX, TLD, TLD4, TXD, TXQ on a bindless handle (Opcodes.def): PTX's
  /// tex/tld4/txq, whose results our textures give by the texture's format
  /// (the PTX result type only names the registers' width).
  void texture(const Inst &I) {
    static const char *Geoms[] = {"1d", "2d", "3d", "cube", "", "a2d", "", ""};
    static const unsigned Coords[] = {1, 2, 3, 3, 0, 3, 0, 0};
    std::string Handle = handle(I), G = Geoms[I.TexGeom];
    // The coordinates, then the extras (the level): with bit 60 (.SCR, split)
    // the first ceil(n/2) of all values in Ra's registers and the rest in
    // Rb's; without, the coordinates in Ra's and the extras in Rb's.
    auto values = [&](unsigned NCoords, unsigned NExtra) {
      unsigned N = NCoords + NExtra, InA = I.Hi ? (N + 1) / 2 : NCoords;
      std::vector<std::string> V;
      for (unsigned K = 0; K < N; ++K) {
        Src S = K < InA ? I.A : I.B;
        uint32_t Base = S.Reg, At = K < InA ? K : K - InA;
        if (Base != RZ && Base + At >= RZ)
          fail("texture operands from R" + std::to_string(Base) + " run past R254");
        S.Reg = Base == RZ ? RZ : Base + At;
        V.push_back(inReg(val(S)));
      }
      return V;
    };
    auto vec = [](const std::vector<std::string> &V, size_t N) { // N values, the last repeated (PTX ignores a 3-D 4th)
      std::string S = "{";
      for (size_t K = 0; K < N; ++K)
        S += (K ? ", " : "") + V[std::min(K, V.size() - 1)];
      return S + "}";
    };
    // The enabled components go to Rd, Rd+1, Rd2, Rd2+1 in order.
    auto results = [&](const std::vector<std::string> &Out) {
      unsigned J = 0;
      for (unsigned K = 0; K < 4; ++K) {
        if (!(I.Sub >> K & 1))
          continue;
        uint32_t Reg = J < 2 ? (I.Rd == RZ ? RZ : I.Rd + J) : (I.Rd2 == RZ ? RZ : I.Rd2 + J - 2);
        ++J;
        if (Reg != RZ) {
          if (Reg >= RZ)
            fail("texture results run past R254");
          emit("mov.b32 " + r(Reg) + ", " + Out[K]);
        }
      }
    };
    if (I.O == Op::TXQ) {
      static const char *Query[] = {"width", "height", "depth"};
      if (I.Sub & 8)
        fail("TXQ of a fourth dimension component");
      std::string Level = inReg(val(I.A));
      std::vector<std::string> Out(4);
      for (unsigned K = 0; K < 3; ++K)
        if (I.Sub >> K & 1) {
          Out[K] = t32();
          emit(std::string("txq.level.") + Query[K] + ".b32 " + Out[K] + ", [" + Handle + "], " + Level);
        }
      results(Out);
      return;
    }
    std::vector<std::string> Out = {t32(), t32(), t32(), t32()};
    std::string Dst = "{" + Out[0] + ", " + Out[1] + ", " + Out[2] + ", " + Out[3] + "}";
    unsigned N = Coords[I.TexGeom];
    // Only the forms seen in nvdisasm's listings.
    if (I.O == Op::TEX && I.TexMode == 3 && N) { // .LL: an explicit level after the coordinates
      std::vector<std::string> V = values(N, 1);
      emit("tex.level." + G + ".v4.u32.f32 " + Dst + ", [" + Handle + ", " + vec(V, N == 3 ? 4 : N) + "], " +
           V[N]);
    } else if (I.O == Op::TLD && I.TexMode == 1 && (I.TexGeom == 0 || I.TexGeom == 1)) { // .LZ: level zero
      std::vector<std::string> V = values(N, 0);
      emit("tex." + G + ".v4.u32.s32 " + Dst + ", [" + Handle + ", " + vec(V, N) + "]");
    } else if (I.O == Op::TLD4 && I.TexGeom == 1) {
      static const char *Comp[] = {"r", "g", "b", "a"};
      if (I.TexMode > 3)
        fail("TLD4 component " + std::to_string(I.TexMode));
      std::vector<std::string> V = values(2, 0);
      emit(std::string("tld4.") + Comp[I.TexMode] + ".2d.v4.u32.f32 " + Dst + ", [" + Handle + ", " + vec(V, 2) +
           "]");
    } else if (I.O == Op::TXD && I.TexGeom == 1 && I.TexMode == 0) {
      if (I.Hi)
        fail("TXD with split coordinates");
      std::vector<std::string> V = values(2, 0), D;
      for (unsigned K = 0; K < 4; ++K) { // Rb: dx.x, dy.x, dx.y, dy.y
        Src S = I.B;
        if (S.Reg != RZ)
          S.Reg += K;
        D.push_back(inReg(val(S)));
      }
      emit("tex.grad.2d.v4.u32.f32 " + Dst + ", [" + Handle + ", " + vec(V, 2) + "], {" + D[0] + ", " + D[2] +
           "}, {" + D[1] + ", " + D[3] + "}");
    } else {
      fail("a texture instruction form not seen yet (geometry " + std::to_string(I.TexGeom) + ", mode " +
           std::to_string(I.TexMode) + ")");
    }
    results(Out);
  }

  /// SULD.D.BA / SUST.D.BA (Opcodes.def): PTX's suld.b / sust.b.
  void surface(const Inst &I) {
    static const char *Geoms[] = {"1d", "", "", "2d", "a2d", "3d", "", ""};
    static const unsigned Coords[] = {1, 0, 0, 2, 3, 3, 0, 0};
    static const char *Clamp[] = {".zero", ".trap", ".clamp"};
    unsigned N = Coords[I.TexGeom];
    if (!N)
      fail("surface geometry " + std::to_string(I.TexGeom));
    if (I.Sub < 2 || I.Sub > 6 || I.Sub == 3)
      fail("surface access of size code " + std::to_string(I.Sub));
    std::string Handle = handle(I);
    // Ra's registers: x (bytes), y, z, or x, y, layer; PTX puts an array's layer first.
    std::vector<std::string> C;
    for (unsigned K = 0; K < N; ++K) {
      Src S = I.A;
      if (S.Reg != RZ && S.Reg + K >= RZ)
        fail("surface coordinates run past R254");
      if (S.Reg != RZ)
        S.Reg += K;
      C.push_back(inReg(val(S)));
    }
    if (I.TexGeom == 4)
      C = {C[2], C[0], C[1], C[1]};
    else if (N == 3)
      C.push_back(C[2]);
    std::string Co = "{";
    for (size_t K = 0; K < C.size(); ++K)
      Co += (K ? ", " : "") + C[K];
    Co += "}";
    std::string Op = std::string(Geoms[I.TexGeom]);
    std::string Addr = "[" + Handle + ", " + Co + "]";
    bool Store = I.O == Op::SUST;
    uint32_t Data = Store ? I.B.Reg : I.Rd;
    if (I.Sub == 2) { // 16 bits, zero-extended into the register
      std::string H = th();
      if (Store) {
        std::string Hi = th();
        emit("mov.b32 {" + H + ", " + Hi + "}, " + inReg(val(I.B)));
        emit("sust.b." + Op + ".b16" + Clamp[I.TexMode] + " " + Addr + ", {" + H + "}");
      } else {
        emit("suld.b." + Op + ".b16" + Clamp[I.TexMode] + " {" + H + "}, " + Addr);
        convResult(I, 2, H);
      }
      return;
    }
    unsigned Words = I.Sub == 4 ? 1 : I.Sub == 5 ? 2 : 4;
    std::string Vec = Words == 1 ? "" : Words == 2 ? ".v2" : ".v4";
    if (Store) {
      emit("sust.b." + Op + Vec + ".b32" + Clamp[I.TexMode] + " " + Addr + ", " + fragment(Data, Words, false));
    } else {
      emit("suld.b." + Op + Vec + ".b32" + Clamp[I.TexMode] + " " + fragment(Data, Words, true) + ", " + Addr);
    }
  }

  void copyAsync(const Inst &I) {
    static const unsigned Bytes[] = {4, 8, 16};
    unsigned N = Bytes[I.Sub];
    Inst S = I; // the shared address: [Rs + imm]
    S.A = I.B;
    S.MemOffset = static_cast<int32_t>(static_cast<int64_t>(I.Target));
    S.AddrUReg = URZ;
    S.Scale = 0;
    std::string Dst = address(S, true);
    Inst G = I;
    G.AddrUReg = URZ;
    std::string Src = address(G, false);
    std::string Size;
    if (I.Sub2) {
      std::string Fill = t64(), Count = t32(), Aligned = t64();
      emit("and.b64 " + Fill + ", " + Src + ", " + std::to_string(N - 1));
      emit("sub.u64 " + Aligned + ", " + Src + ", " + Fill);
      emit("cvt.u32.u64 " + Count + ", " + Fill);
      emit("sub.u32 " + Count + ", " + std::to_string(N) + ", " + Count);
      if (!I.PSrc0.isTrue())
        emit("selp.u32 " + Count + ", " + Count + ", 0, " + predSrc(I.PSrc0));
      Src = Aligned;
      Size = ", " + Count;
    } else if (!I.PSrc0.isTrue()) {
      std::string T = t32();
      emit("selp.u32 " + T + ", " + std::to_string(N) + ", 0, " + predSrc(I.PSrc0));
      Size = ", " + T;
    }
    emit("cp.async.ca.shared.global [" + Dst + "], [" + Src + "], " + std::to_string(N) + Size);
  }

  /// A half-precision source as two halves in a b32 (lane 0 low), after its
  /// swizzle, absolute value and negation (bitwise, per half).
  std::string hval(const Src &S, uint8_t Swz) {
    std::string V = inReg(val(S));
    if (Swz == 1) { // .F32: an f32, rounded toward zero to a half (as sm_75 does), in both lanes
      std::string H = th(), T = t32();
      emit("cvt.rz.f16.f32 " + H + ", " + V);
      emit("mov.b32 " + T + ", {" + H + ", " + H + "}");
      V = T;
    }
    if (Swz >= 2) {
      std::string T = t32();
      emit("prmt.b32 " + T + ", " + V + ", 0, " + (Swz == 2 ? "0x1010" : "0x3232"));
      V = T;
    }
    return signBits(V, S, "0x7fff7fff", "0x80008000");
  }
  /// Lane 0 of a pair of halves as an f32 (exact: f16 through cvt, bf16 by its bits).
  std::string laneF32(const std::string &V, bool Bf16) {
    std::string T = t32();
    if (Bf16) {
      emit("shl.b32 " + T + ", " + V + ", 16");
      return T;
    }
    std::string H = th();
    emit("cvt.u16.u32 " + H + ", " + V);
    emit("cvt.f32.f16 " + T + ", " + H);
    return T;
  }

  /// HADD2/HMUL2/HFMA2: both lanes in f16x2 or bf16x2; .F32: lane 0 in f32.
  void halfArith(const Inst &I) {
    std::string A = hval(I.A, I.SwzA), B = hval(I.B, I.SwzB);
    bool Fma = I.O == Op::HFMA2 || I.O == Op::HFMA2_MMA;
    std::string C = Fma ? hval(I.C, I.SwzC) : "";
    if (I.F32Out) {
      if (I.Relu)
        fail("a .F32 result with .RELU");
      std::string Mods = std::string(".rn") + (I.Ftz ? ".ftz" : "") + (I.Sat ? ".sat" : "") + ".f32 ";
      std::string X = laneF32(A, I.Bf16), Y = laneF32(B, I.Bf16);
      if (Fma)
        emit("fma" + Mods + r(I.Rd) + ", " + X + ", " + Y + ", " + laneF32(C, I.Bf16));
      else
        emit((I.O == Op::HADD2 ? "add" : "mul") + Mods + r(I.Rd) + ", " + X + ", " + Y);
      return;
    }
    if (I.Bf16 && (I.Ftz || I.Sat))
      fail("bf16 with .FTZ or .SAT");
    if (I.Relu && !Fma)
      fail(".RELU outside HFMA2");
    if (I.Relu && I.Sat)
      fail(".RELU with .SAT");
    std::string Ty = I.Bf16 ? ".bf16x2 " : ".f16x2 ";
    std::string Mods = std::string(".rn") + (I.Ftz ? ".ftz" : "") + (I.Sat ? ".sat" : "") + (I.Relu ? ".relu" : "") + Ty;
    if (Fma) {
      emit("fma" + Mods + r(I.Rd) + ", " + A + ", " + B + ", " + C);
    } else if (I.Bf16) {
      // a + b as a * 1 + b, a * b as a * b + (-0): one rounding, the same result.
      if (I.O == Op::HADD2)
        emit("fma" + Mods + r(I.Rd) + ", " + A + ", 0x3f803f80, " + B);
      else
        emit("fma" + Mods + r(I.Rd) + ", " + A + ", " + B + ", 0x80008000");
    } else {
      emit((I.O == Op::HADD2 ? "add" : "mul") + Mods + r(I.Rd) + ", " + A + ", " + B);
    }
  }

  /// HSETP2 (one predicate per lane) and HSET2 (0xffff, or 1.0 under .BF, per lane).
  void halfCompare(const Inst &I) {
    if (I.Sub2 > 2)
      fail("unknown boolean combination");
    if (I.O == Op::HSETP2 && I.Hi)
      fail("HSETP2.H_AND");
    if (I.F32Out)
      fail("a half comparison with a .F32 form");
    std::string A = hval(I.A, I.SwzA), B = hval(I.B, I.SwzB), Acc = predSrc(I.PSrc0);
    std::string Ah[2] = {th(), th()}, Bh[2] = {th(), th()};
    emit("mov.b32 {" + Ah[0] + ", " + Ah[1] + "}, " + A);
    emit("mov.b32 {" + Bh[0] + ", " + Bh[1] + "}, " + B);
    std::string Res[2];
    for (int L = 0; L < 2; ++L) {
      std::string Q = tp();
      const char *Cmp = FloatCmp[I.Sub & 15];
      if (!*Cmp)
        emit(std::string(I.Sub ? "setp.eq.u32 " : "setp.ne.u32 ") + Q + ", %rz, 0");
      else
        emit(std::string("setp.") + Cmp + (I.Ftz ? ".ftz" : "") + (I.Bf16 ? ".bf16 " : ".f16 ") + Q + ", " + Ah[L] +
             ", " + Bh[L]);
      Res[L] = tp();
      emit(std::string(BoolOp[I.Sub2]) + ".pred " + Res[L] + ", " + Q + ", " + Acc);
    }
    if (I.O == Op::HSETP2) {
      if (I.PDst0 != PT)
        emit("mov.pred " + p(I.PDst0) + ", " + Res[0]);
      if (I.PDst1 != PT)
        emit("mov.pred " + p(I.PDst1) + ", " + Res[1]);
      return;
    }
    std::string One = !I.Hi ? "0xffff" : I.Bf16 ? "0x3f80" : "0x3c00", H[2] = {th(), th()};
    for (int L = 0; L < 2; ++L)
      emit("selp.b16 " + H[L] + ", " + One + ", 0, " + Res[L]);
    emit("mov.b32 " + r(I.Rd) + ", {" + H[0] + ", " + H[1] + "}");
  }

  /// I2I (one s32 saturated to 8 or 16 bits, extended back) and I2IP (two,
  /// packed, with C's low half under the bytes).
  void narrow(const Inst &I) {
    static const char *Ty[] = {"u8", "s8", "u16", "s16"};
    if (I.Signed || I.Sat || I.Wrap)
      fail("integer narrowing from a source other than s32");
    if (I.O == Op::I2I) {
      static const int Lo[] = {0, -128, 0, -32768}, Hi[] = {255, 127, 65535, 32767};
      std::string T = t32();
      emit("max.s32 " + T + ", " + val(I.B) + ", " + std::to_string(Lo[I.Sub]));
      emit("min.s32 " + r(I.Rd) + ", " + T + ", " + std::to_string(Hi[I.Sub]));
      return;
    }
    if (I.Sub >= 2)
      emit(std::string("cvt.pack.sat.") + Ty[I.Sub] + ".s32 " + r(I.Rd) + ", " + inReg(val(I.A)) + ", " +
           inReg(val(I.B)));
    else
      emit(std::string("cvt.pack.sat.") + Ty[I.Sub] + ".s32.b32 " + r(I.Rd) + ", " + inReg(val(I.A)) + ", " +
           inReg(val(I.B)) + ", " + inReg(val(I.C)));
  }

  /// LDC/ULDC of 8 or 16 bits (U8 S8 U16 S16: a bool, char or short
  /// parameter): the bytes of their word, extended, into \p D.
  std::string subWordConst(const Inst &I, const std::string &D) {
    uint32_t Bytes = I.Sub < 2 ? 1 : 2, Shift = I.A.Offset % 4;
    if (Shift + Bytes > 4)
      fail("a constant straddling two words");
    std::string W = constWord(I.A.Bank, I.A.Offset - Shift);
    return std::string(I.Sub % 2 ? "bfe.s32 " : "bfe.u32 ") + D + ", " + inReg(W) + ", " + std::to_string(Shift * 8) +
           ", " + std::to_string(Bytes * 8);
  }

  /// IMNMX/FMNMX: the minimum where the predicate holds, else the maximum.
  void minMax(const Inst &I, const std::string &Ty, const std::string &A, const std::string &B) {
    minMaxInto(I, Ty, A, B, r(I.Rd), 32);
  }
  /// The minimum (PSrc0 true) or maximum of \p A and \p B into \p D, \p Bits wide.
  void minMaxInto(const Inst &I, const std::string &Ty, const std::string &A, const std::string &B,
                  const std::string &D, unsigned Bits) {
    if (I.PSrc0.isTrue() || I.PSrc0.isFalse()) {
      emit((I.PSrc0.isTrue() ? "min" : "max") + Ty + D + ", " + A + ", " + B);
      return;
    }
    std::string Mn = Bits == 16 ? th() : t32(), Mx = Bits == 16 ? th() : t32();
    emit("min" + Ty + Mn + ", " + A + ", " + B);
    emit("max" + Ty + Mx + ", " + A + ", " + B);
    emit("selp.b" + std::to_string(Bits) + " " + D + ", " + Mn + ", " + Mx + ", " + predSrc(I.PSrc0));
  }

  /// ISETP/FSETP/DSETP; \p Into (when given) receives the first result instead of PDst0.
  void setp(const Inst &I, const std::string &Into = {}) {
    bool Float = I.O == Op::FSETP || I.O == Op::DSETP;
    static const char *ICmp[] = {"", "lt", "eq", "le", "gt", "ne", "ge", ""};
    if (I.Sub2 > 2)
      fail("unknown boolean combination");
    if (I.O == Op::DSETP && (I.Sub == 0 || I.Sub == 15)) {
      // DSETP.MIN/.MAX P, Q, A, B: P selects A as min.f64/max.f64 would
      // (A a number, and B a NaN or the result A's bits), Q that both are
      // NaNs (ptxas then quiets B's).
      if (!I.PSrc0.isTrue() || I.Sub2 != 0)
        fail("DSETP.MIN/MAX with an accumulated predicate");
      std::string A = t64(), B = t64(), M = t64(), NA = tp(), NB = tp(), Same = tp();
      emit("mov.b64 " + A + ", " + dval(I.A));
      emit("mov.b64 " + B + ", " + dval(I.B));
      emit(std::string(I.Sub == 0 ? "min" : "max") + ".f64 " + M + ", " + A + ", " + B);
      emit("setp.nan.f64 " + NA + ", " + A + ", " + A);
      emit("setp.nan.f64 " + NB + ", " + B + ", " + B);
      emit("setp.eq.b64 " + Same + ", " + M + ", " + A);
      emit("or.pred " + Same + ", " + Same + ", " + NB);
      if (I.PDst0 != PT) {
        emit("not.pred " + p(I.PDst0) + ", " + NA);
        emit("and.pred " + p(I.PDst0) + ", " + p(I.PDst0) + ", " + Same);
      }
      if (I.PDst1 != PT)
        emit("and.pred " + p(I.PDst1) + ", " + NA + ", " + NB);
      return;
    }
    const char *Cmp = Float ? FloatCmp[I.Sub & 15] : ICmp[I.Sub & 7];
    std::string Acc = predSrc(I.PSrc0);
    std::string R = tp();
    if (!*Cmp) { // always false (0) or always true (7 / 15)
      bool V = I.Sub != 0;
      emit(std::string(V ? "setp.eq.u32 " : "setp.ne.u32 ") + R + ", %rz, 0");
    } else if (I.O == Op::DSETP) {
      emit(std::string("setp.") + Cmp + ".f64 " + R + ", " + dval(I.A) + ", " + dval(I.B));
    } else if (Float) {
      emit(std::string("setp.") + Cmp + (I.Ftz ? ".ftz" : "") + ".f32 " + R + ", " + fval(I.A) + ", " + fval(I.B));
    } else if (!I.X) {
      emit(std::string("setp.") + Cmp + (I.Signed ? ".s32 " : ".u32 ") + R + ", " + val(I.A) + ", " + val(I.B));
    } else {
      // .EX: the high words compared, the low words' result (an input predicate) deciding ties.
      std::string A = val(I.A), B = val(I.B), Low = predSrc(I.PSrc1), Eq = tp();
      std::string Ty = I.Signed ? ".s32 " : ".u32 ";
      emit("setp.eq" + Ty + Eq + ", " + A + ", " + B);
      std::string Sub = Cmp;
      if (Sub == "eq") {
        emit("and.pred " + R + ", " + Eq + ", " + Low);
      } else if (Sub == "ne") {
        emit("setp.ne" + Ty + R + ", " + A + ", " + B);
        emit("or.pred " + R + ", " + R + ", " + Low);
      } else {
        std::string Strict = (Sub == "gt" || Sub == "ge") ? "gt" : "lt", Tie = tp();
        emit("setp." + Strict + Ty + R + ", " + A + ", " + B);
        emit("and.pred " + Tie + ", " + Eq + ", " + Low);
        emit("or.pred " + R + ", " + R + ", " + Tie);
      }
    }
    if (!Into.empty())
      emit(std::string(BoolOp[I.Sub2]) + ".pred " + Into + ", " + R + ", " + Acc);
    else if (I.PDst0 != PT)
      emit(std::string(BoolOp[I.Sub2]) + ".pred " + p(I.PDst0) + ", " + R + ", " + Acc);
    if (I.PDst1 != PT) {
      std::string NR = tp();
      emit("not.pred " + NR + ", " + R);
      emit(std::string(BoolOp[I.Sub2]) + ".pred " + p(I.PDst1) + ", " + NR + ", " + Acc);
    }
  }

  void iadd3(const Inst &I) {
    bool NeedCarry = I.PDst0 != PT || I.PDst1 != PT;
    if (!I.X && !NeedCarry) {
      std::string A = ival(I.A, false), B = ival(I.B, false), C = ival(I.C, false), T = t32();
      emit("add.u32 " + T + ", " + A + ", " + B);
      emit("add.u32 " + r(I.Rd) + ", " + T + ", " + C);
      return;
    }
    // Two 33-bit steps, each with its carry: A + B (+ the first carry-in
    // under .X) gives the first carry, its low word + C (+ the second
    // carry-in) the second; IADD3.X adds both back in. Negated sources are
    // ~x + 1 (~x under .X, whose carry-ins add the ones).
    auto wide = [&](const Src &X) {
      std::string V = val(X), W = t64();
      if (X.Neg) {
        std::string N = t32();
        emit("not.b32 " + N + ", " + V);
        V = N;
      }
      emit("cvt.u64.u32 " + W + ", " + V);
      if (X.Neg && !I.X)
        emit("add.u64 " + W + ", " + W + ", 1");
      return W;
    };
    auto carryIn = [&](const std::string &S, const PredSrc &Cin) {
      if (!I.X || Cin.isFalse())
        return;
      std::string W = t64();
      emit("selp.u64 " + W + ", 1, 0, " + predSrc(Cin));
      emit("add.u64 " + S + ", " + S + ", " + W);
    };
    auto carryOut = [&](const std::string &S, uint32_t Pd) {
      if (Pd == PT)
        return;
      std::string W = t64();
      emit("shr.u64 " + W + ", " + S + ", 32");
      emit("setp.ne.u64 " + p(Pd) + ", " + W + ", 0");
    };
    std::string S1 = t64(), S2 = t64(), A = wide(I.A), B = wide(I.B);
    emit("add.u64 " + S1 + ", " + A + ", " + B);
    carryIn(S1, I.PSrc0);
    carryOut(S1, I.PDst0);
    emit("and.b64 " + S2 + ", " + S1 + ", 0xffffffff");
    emit("add.u64 " + S2 + ", " + S2 + ", " + wide(I.C));
    carryIn(S2, I.PSrc1);
    carryOut(S2, I.PDst1);
    emit("cvt.u32.u64 " + r(I.Rd) + ", " + S2);
  }

  void imad(const Inst &I) {
    bool CarryOut = I.PDst0 != PT;
    if (CarryOut && (((I.O == Op::IMAD_HI || I.O == Op::IMAD_WIDE) && (I.Signed || I.X)) || I.A.Neg || I.B.Neg ||
                     I.C.Neg))
      fail("IMAD with a carry-out predicate in this form");
    std::string Ty = I.Signed ? "s32 " : "u32 ";
    if (I.O == Op::IMAD && CarryOut) {
      // The low word of A * B plus C (plus the carry-in under .X), the carry
      // out of that 32-bit sum into the predicate.
      std::string Lo = t32(), S = t64(), W = t64();
      emit("mul.lo.u32 " + Lo + ", " + val(I.A) + ", " + val(I.B));
      emit("cvt.u64.u32 " + S + ", " + Lo);
      emit("cvt.u64.u32 " + W + ", " + inReg(val(I.C)));
      emit("add.u64 " + S + ", " + S + ", " + W);
      if (I.X && !I.PSrc0.isFalse()) {
        emit("selp.u64 " + W + ", 1, 0, " + predSrc(I.PSrc0));
        emit("add.u64 " + S + ", " + S + ", " + W);
      }
      emit("shr.u64 " + W + ", " + S + ", 32");
      emit("setp.ne.u64 " + p(I.PDst0) + ", " + W + ", 0");
      emit("cvt.u32.u64 " + r(I.Rd) + ", " + S);
      return;
    }
    if (I.O == Op::IMAD) {
      // Negated sources: two's complement (the product's factors and the
      // addend), bitwise NOT for the addend under .X (the carry-in adds the one).
      std::string T = t32();
      emit("mad.lo.u32 " + T + ", " + ival(I.A, false) + ", " + ival(I.B, false) + ", " + ival(I.C, I.X));
      if (I.X && !I.PSrc0.isFalse()) {
        std::string Cin = t32();
        emit("selp.u32 " + Cin + ", 1, 0, " + predSrc(I.PSrc0));
        emit("add.u32 " + T + ", " + T + ", " + Cin);
      }
      emit("mov.b32 " + r(I.Rd) + ", " + T);
      return;
    }
    if (I.A.Neg || I.B.Neg)
      fail("negated factors of a wide or high product");
    std::string Prod = t64(), C = val64(I.C);
    if (I.C.Neg) {
      std::string N = t64();
      emit("neg.s64 " + N + ", " + C);
      C = N;
    }
    emit("mul.wide." + Ty + Prod + ", " + val(I.A) + ", " + val(I.B));
    // .X: the predicate's carry in joins the 64-bit sum (a 128-bit product's
    // upper half: mul.hi.u64); never with a carry out (refused above).
    std::string Cin;
    if (I.X && !I.PSrc0.isFalse()) {
      Cin = t64();
      emit("selp.u64 " + Cin + ", 1, 0, " + predSrc(I.PSrc0));
    }
    if (CarryOut) { // IMAD.WIDE.U32 and IMAD.HI.U32: the carry out of the 64-bit sum
      std::string Sum = t64();
      emit("add.u64 " + Sum + ", " + Prod + ", " + C);
      emit("setp.lt.u64 " + p(I.PDst0) + ", " + Sum + ", " + Prod);
      if (I.O == Op::IMAD_WIDE) {
        setPair(I.Rd, Sum);
      } else {
        std::string H = t64();
        emit("shr.u64 " + H + ", " + Sum + ", 32");
        emit("cvt.u32.u64 " + r(I.Rd) + ", " + H);
      }
      return;
    }
    emit("add.u64 " + Prod + ", " + Prod + ", " + C);
    if (!Cin.empty())
      emit("add.u64 " + Prod + ", " + Prod + ", " + Cin);
    if (I.O == Op::IMAD_WIDE) {
      setPair(I.Rd, Prod);
    } else {
      std::string H = t64();
      emit("shr.u64 " + H + ", " + Prod + ", 32");
      emit("cvt.u32.u64 " + r(I.Rd) + ", " + H);
    }
  }

  /// A source of \p Bytes for a conversion: a 32-bit value, a half (the
  /// selected 16 bits of a register) or a register pair.
  std::string convSource(const Inst &I, unsigned Bytes) {
    bool IntSrc = I.O == Op::I2F || I.O == Op::I2F64;
    if (IntSrc && (I.B.Neg || I.B.Abs))
      fail("a negated or absolute integer conversion source");
    // A float source's absolute value and negation apply before the conversion.
    if (Bytes == 8)
      return I.B.K == Src::KImm || !IntSrc ? dval(I.B) : val64(I.B);
    std::string V = inReg(Bytes == 4 && !IntSrc ? fval(I.B) : val(I.B));
    if (Bytes == 2) // either half may be the selected one
      V = signBits(V, I.B, "0x7fff7fff", "0x80008000");
    if (Bytes == 4)
      return V;
    if (Bytes == 2) {
      std::string H = th(), W = t32();
      emit(std::string(I.MemOffset == 1 ? "shr.u32 " : "mov.b32 ") + W + ", " + V + (I.MemOffset == 1 ? ", 16" : ""));
      emit("cvt.u16.u32 " + H + ", " + W);
      return H;
    }
    fail("conversion of a " + std::to_string(Bytes) + "-byte source");
  }
  /// Writes a conversion's result of \p Bytes (a half zero-extended into Rd).
  void convResult(const Inst &I, unsigned Bytes, const std::string &V) {
    if (Bytes == 8)
      setPair(I.Rd, V);
    else if (Bytes == 4)
      emit("mov.b32 " + r(I.Rd) + ", " + V);
    else
      emit("cvt.u32.u16 " + r(I.Rd) + ", " + V);
  }

  void convert(const Inst &I) {
    unsigned Dst = 1u << (I.Sub & 3), Src = 1u << (I.Sub >> 4 & 3);
    bool Ftz = I.Ftz;
    bool IntDst = I.O == Op::F2I || I.O == Op::F2I64, IntSrc = I.O == Op::I2F || I.O == Op::I2F64;
    // A float destination's code 0 with bit 77: bfloat16 (F2F; sm_90's I2F
    // too); sm_90's float source code 0 with bit 86: bfloat16.
    bool DstBf16 = !IntDst && (I.O != Op::FRND && I.O != Op::FRND64) && (I.Sub & 3) == 0 && I.Sat;
    bool SrcBf16 = !IntSrc && I.Bf16;
    if (DstBf16)
      Dst = 2;
    if (SrcBf16)
      Src = 2;
    if ((Dst == 1 && !IntDst) || (Src == 1 && !IntSrc))
      fail("conversion of 8-bit floats");
    auto ftype = [&](unsigned B, bool IsDst) {
      return B == 8 ? std::string(".f64") : B == 4 ? ".f32" : (IsDst ? DstBf16 : SrcBf16) ? ".bf16" : ".f16";
    };
    auto itype = [&](unsigned B, bool S) { return std::string(S ? ".s" : ".u") + std::to_string(B * 8); };
    if (IntSrc && Src < 4) {
      // An 8- or 16-bit integer: the byte or half that bits 60-61 select,
      // extended (exactly representable, so converting the s32 rounds the same).
      std::string W = t32(), Out = Dst == 8 ? t64() : Dst == 4 ? t32() : th();
      emit(std::string(I.Signed ? "bfe.s32 " : "bfe.u32 ") + W + ", " + inReg(val(I.B)) + ", " +
           std::to_string(I.MemOffset * Src * 8) + ", " + std::to_string(Src * 8));
      emit("cvt" + rnd(I.Sub2) + ftype(Dst, true) + (I.Signed ? ".s32 " : ".u32 ") + Out + ", " + W);
      convResult(I, Dst, Out);
      return;
    }
    std::string In = convSource(I, Src);
    std::string Out = Dst == 8 ? t64() : Dst == 4 ? t32() : th();
    switch (I.O) {
    case Op::F2I:
    case Op::F2I64: {
      // .NTZ (bit 77): a NaN gives 0, as PTX's conversion does. An 8- or
      // 16-bit result is saturated to its type and extended.
      if (Dst < 4) {
        std::string H = th(), W = t32();
        emit("cvt" + std::string(IntRound[I.Sub2]) + (Ftz ? ".ftz" : "") + itype(Dst, I.Signed) + ftype(Src, false) + " " + H +
             ", " + In);
        emit("cvt" + itype(4, I.Signed) + itype(Dst, I.Signed) + " " + W + ", " + H);
        emit("mov.b32 " + r(I.Rd) + ", " + W);
        return;
      }
      emit("cvt" + std::string(IntRound[I.Sub2]) + (Ftz ? ".ftz" : "") + itype(Dst, I.Signed) + ftype(Src, false) + " " + Out +
           ", " + In);
      break;
    }
    case Op::I2F:
    case Op::I2F64:
      if (I.MemOffset)
        fail("I2F of a selected part of a 32-bit integer");
      if (Src == 8)
        In = val64(I.B);
      emit("cvt" + rnd(I.Sub2) + ftype(Dst, true) + itype(Src, I.Signed) + " " + Out + ", " + In);
      break;
    case Op::F2F:
    case Op::F2F64:
      if (Dst == Src && DstBf16 == SrcBf16)
        fail("F2F between equal sizes");
      // Widening is exact: no rounding modifier (PTX refuses one there);
      // between the two 16-bit formats there is rounding.
      emit("cvt" + (Dst <= Src ? rnd(I.Sub2) : std::string()) + (Ftz ? ".ftz" : "") + ftype(Dst, true) + ftype(Src, false) + " " +
           Out + ", " + In);
      break;
    default: // FRND
      if (Dst != Src || Src == 2)
        fail("FRND between sizes or of a half");
      emit("cvt" + std::string(IntRound[I.Sub2]) + (Ftz ? ".ftz" : "") + ftype(Dst, true) + ftype(Src, false) + " " + Out + ", " + In);
      break;
    }
    convResult(I, Dst, Out);
  }

  /// LEA: (A << s) + B; .HI: the high word of ({C:A} << s), + B; the shifted
  /// value negated (two's complement, bitwise NOT under .X); .X adds a carry-in.
  void lea(const Inst &I) {
    std::string Sh = t32();
    if (!I.Hi) {
      emit("shl.b32 " + Sh + ", " + val(I.A) + ", " + std::to_string(I.Sub));
    } else {
      std::string V = t64();
      std::string High = inReg(val(I.C));
      if (I.Signed) { // .SX32
        High = t32();
        emit("shr.s32 " + High + ", " + inReg(val(I.A)) + ", 31");
      }
      emit("mov.b64 " + V + ", {" + inReg(val(I.A)) + ", " + High + "}");
      emit("shl.b64 " + V + ", " + V + ", " + std::to_string(I.Sub));
      emit("shr.u64 " + V + ", " + V + ", 32");
      emit("cvt.u32.u64 " + Sh + ", " + V);
    }
    // A negated operand: its bitwise NOT, plus one outside .X, in 64 bits, so
    // that the carry out is the hardware's where the operand is 0 (~0 + 1
    // carries: subtracting zero borrows nothing). CUB's 64-bit tile
    // arithmetic (num_items - (tile << 30)) lost its high word's carry.
    if (I.A.Neg)
      emit("not.b32 " + Sh + ", " + Sh);
    std::string S = t64(), W = t64();
    emit("cvt.u64.u32 " + S + ", " + Sh);
    emit("cvt.u64.u32 " + W + ", " + ival(I.B, true));
    emit("add.u64 " + S + ", " + S + ", " + W);
    if (!I.X)
      for (bool Neg : {I.A.Neg, I.B.Neg})
        if (Neg)
          emit("add.u64 " + S + ", " + S + ", 1");
    if (I.X && !I.PSrc0.isFalse()) {
      emit("selp.u64 " + W + ", 1, 0, " + predSrc(I.PSrc0));
      emit("add.u64 " + S + ", " + S + ", " + W);
    }
    emit("cvt.u32.u64 " + r(I.Rd) + ", " + S);
    if (I.PDst0 != PT) {
      emit("shr.u64 " + W + ", " + S + ", 32");
      emit("setp.ne.u64 " + p(I.PDst0) + ", " + W + ", 0");
    }
  }

  void shf(const Inst &I) {
    bool Is64 = I.Sub < 2, Signed = I.Sub == 0 || I.Sub == 2;
    uint32_t Max = Is64 ? 64 : 32;
    std::string Lo = val(I.A), Hi = val(I.C), V = t64(), S = t32();
    emit("mov.b64 " + V + ", {" + inReg(Lo) + ", " + inReg(Hi) + "}");
    if (I.Wrap)
      emit("and.b32 " + S + ", " + val(I.B) + ", " + std::to_string(Max - 1));
    else
      emit("min.u32 " + S + ", " + val(I.B) + ", " + std::to_string(Max));
    if (!I.Right)
      emit("shl.b64 " + V + ", " + V + ", " + S);
    else
      emit(std::string(Signed ? "shr.s64 " : "shr.u64 ") + V + ", " + V + ", " + S);
    if (I.Hi)
      emit("shr.u64 " + V + ", " + V + ", 32");
    emit("cvt.u32.u64 " + r(I.Rd) + ", " + V);
  }

  /// The address of a global (64-bit, .E) or shared (32-bit, in __smem) access.
  std::string address(const Inst &I, bool Shared) {
    if (Shared) {
      if (I.AddrURegUnknown)
        fail("a shared address with a uniform register not located yet");
      std::string Addr = t32(), Index = val(I.A);
      if (I.Scale) {
        std::string T = t32();
        emit("shl.b32 " + T + ", " + Index + ", " + std::to_string(I.Scale + 1));
        Index = T;
      }
      emit("mov.u32 " + Addr + ", __smem");
      emit("add.u32 " + Addr + ", " + Addr + ", " + Index);
      if (I.AddrUReg != URZ)
        emit("add.u32 " + Addr + ", " + Addr + ", %ur" + std::to_string(I.AddrUReg));
      // sm_90's shared addresses start at 0x400 in the CTA's window (the
      // first KiB is the system's), its CTA rank in the cluster at bit 24
      // (always 0 here: SR_CgaCtaId reads 0).
      emit("add.u32 " + Addr + ", " + Addr + ", " + std::to_string(I.MemOffset - (Cu.Sm >= 90 ? 0x400 : 0)));
      return Addr;
    }
    if (!I.Wide)
      fail("a 32-bit global address");
    if (I.AddrURegUnknown)
      fail("sm_75 global access with a uniform register address");
    std::string Addr = t64();
    if (I.OffsetRa32) {
      emit("cvt.u64.u32 " + Addr + ", " + val(I.A));
      emit("add.u64 " + Addr + ", " + Addr + ", " + std::to_string(I.MemOffset));
    } else {
      emit("add.u64 " + Addr + ", " + val64(I.A) + ", " + std::to_string(I.MemOffset));
    }
    if (I.AddrUReg != URZ) {
      Src U;
      U.K = Src::KUReg;
      U.Reg = I.AddrUReg;
      emit("add.u64 " + Addr + ", " + Addr + ", " + val64(U));
    }
    return Addr;
  }

  void atomic(const Inst &I) {
    bool Shared = I.O == Op::ATOMS || I.O == Op::ATOMS_CAS, Cas = I.O == Op::ATOMG_CAS || I.O == Op::ATOMS_CAS;
    static const char *Types[] = {"u32", "s32", "u64", "f32", "f16x2", "s64", "f64", "", "bf16x2"};
    static const char *Ops[] = {"add", "min", "max", "inc", "dec", "and", "or", "xor", "exch"};
    if (!*Types[I.Sub])
      fail("atomic of type code " + std::to_string(I.Sub));
    if (!Cas && I.Sub2 > 8)
      fail("atomic operation " + std::to_string(I.Sub2));
    // The generic form's predicate: performed (here always: any address takes an atomic).
    if (I.PDst0 != PT && !I.Generic)
      fail("atomic with a predicate result");
    bool Packed = I.Sub == 4 || I.Sub == 8;
    if (Packed && (I.Sub2 != 0 || Cas))
      fail("a packed half atomic other than ADD");
    bool Is64 = I.Sub == 2 || I.Sub == 5 || I.Sub == 6;
    std::string Op = Cas ? "cas" : Ops[I.Sub2], Ty = Types[I.Sub];
    if (Cas || Op == "and" || Op == "or" || Op == "xor" || Op == "exch")
      Ty = Is64 ? "b64" : "b32";
    if ((Op == "inc" || Op == "dec") && Ty != "u32")
      fail("atomic inc/dec of type ." + Ty);
    std::string Addr = address(I, Shared);
    auto operand = [&](const Src &X) {
      if (!Is64)
        return inReg(val(X));
      std::string V = val64(X);
      if (V[0] != '%') {
        std::string T = t64();
        emit("mov.b64 " + T + ", " + V);
        V = T;
      }
      return V;
    };
    std::string Space = Shared ? ".shared." : I.Generic ? "." : ".global.";
    if (Packed)
      Op = "add.noftz";
    if (I.O == Op::RED) {
      emit("red" + Space + Op + "." + Ty + " [" + Addr + "], " + operand(I.B));
      return;
    }
    std::string D = Is64 ? t64() : t32();
    if (Cas)
      emit("atom" + Space + "cas." + Ty + " " + D + ", [" + Addr + "], " + operand(I.B) + ", " + operand(I.C));
    else
      emit("atom" + Space + Op + "." + Ty + " " + D + ", [" + Addr + "], " + operand(I.B));
    if (Is64)
      setPair(I.Rd, D);
    else
      emit("mov.b32 " + r(I.Rd) + ", " + D);
    if (I.PDst0 != PT)
      emit("setp.eq.u32 " + p(I.PDst0) + ", 0, 0");
  }

  void memory(const Inst &I) {
    static const char *Ty[] = {".u8", ".s8", ".u16", ".s16", ".b32", ".b64", ".b128", ""};
    uint32_t Size = I.Sub;
    if (Size > 6)
      fail("memory access of size code " + std::to_string(Size));
    bool Load = I.O == Op::LDG || I.O == Op::LDS || I.O == Op::LDL || I.O == Op::LD;
    std::string Space, Addr;
    if (I.O == Op::LDG || I.O == Op::STG) {
      Space = ".global";
      Addr = address(I, false);
    } else if (I.O == Op::LD || I.O == Op::ST) {
      Addr = address(I, false);
    } else if (I.O == Op::LDS || I.O == Op::STS) {
      Space = ".shared";
      Addr = address(I, true);
    } else {
      Space = ".local";
      std::string Off = t32(), Off64 = t64();
      Addr = t64();
      emit("add.u32 " + Off + ", " + val(I.A) + ", " + std::to_string(I.MemOffset));
      emit("cvt.u64.u32 " + Off64 + ", " + Off);
      emit("mov.u64 " + Addr + ", __stack");
      emit("add.u64 " + Addr + ", " + Addr + ", " + Off64);
    }
    uint32_t Regs = Size == 5 ? 2 : Size == 6 ? 4 : 1;
    uint32_t Data = Load ? I.Rd : I.B.Reg;
    if (Data != RZ && Data + Regs - 1 >= RZ)
      fail("register group R" + std::to_string(Data) + " runs past R254");
    std::string List;
    for (uint32_t K = 0; K < Regs; ++K) {
      std::string X = Data == RZ ? (Load ? "%rsink" : "0") : r(Data + K);
      if (!Load && Data == RZ) {
        std::string T = t32();
        emit("mov.b32 " + T + ", 0");
        X = T;
      }
      List += (K ? ", " : "") + X;
    }
    std::string Vec = Regs == 1 ? "" : Regs == 2 ? ".v2" : ".v4";
    std::string T = Regs == 1 ? Ty[Size] : ".b32";
    std::string Ops = Regs == 1 ? List : "{" + List + "}";
    // A strong access (volatile, relaxed: a flag another thread or the host
    // sets) is one the compiler may not hoist out of a spin loop or merge.
    static const char *Order[] = {"", ".relaxed.cta", ".relaxed.gpu", ".relaxed.sys"};
    std::string Sem = I.Strong && Regs == 1 ? Order[I.Strong & 3] : I.Strong ? ".volatile" : "";
    if (Load)
      emit("ld" + Sem + Space + Vec + T + " " + Ops + ", [" + Addr + "]");
    else
      emit("st" + Sem + Space + Vec + T + " [" + Addr + "], " + Ops);
  }
};

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
