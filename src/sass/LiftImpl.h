//===- LiftImpl.h - one function's lifter, shared by Lift.cpp and LiftOps.cpp ===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Not a public header (sass/Lift.h is). FunctionLifter turns one
/// function of a cubin into a PTX body: its walk over the code and the
/// instructions with a short lifting are in Lift.cpp, the instruction
/// families with longer ones (tensor cores, textures and surfaces, half
/// precision, comparisons, integer multiply-adds, conversions, memory and
/// atomics) in LiftOps.cpp; the helpers they share are here.
#ifndef ZLUDA_SASS_LIFTIMPL_H
#define ZLUDA_SASS_LIFTIMPL_H

#include "sass/Cubin.h"
#include "sass/Decode.h"
#include "sass/Lift.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace zluda::sass::lift {

inline std::string hexs(uint64_t V) {
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
inline const SystemCall SystemCalls[] = {{"vprintf", {8, 8}, 4},
                                  {"__assertfail", {8, 8, 4, 8, 8}, 0},
                                  {"malloc", {8}, 8},
                                  {"free", {8}, 0},
                                  {"cudaGraphSetConditional", {8, 4}, 0}};

/// One function's PTX body.

class FunctionLifter {
public:
  FunctionLifter(const Cubin &Cu, const Function &F, ModuleContext &Mod) : Cu(Cu), F(F), Mod(Mod) {}

  /// The function's PTX body (Lift.cpp).
  std::string run();

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

  void lift(const Inst &I);

  // Instruction families (LiftOps.cpp).
  std::string fragment(uint32_t Reg, uint32_t Count, bool Dest);
  std::string fragment64(uint32_t Reg, uint32_t Pairs, bool Dest, std::string *Writeback);
  void tensorCore(const Inst &I);
  std::string handle(const Inst &I);
  void eightBitFloats(const Inst &I);
  void texture(const Inst &I);
  void surface(const Inst &I);
  void copyAsync(const Inst &I);
  std::string hval(const Src &S, uint8_t Swz);
  std::string laneF32(const std::string &V, bool Bf16);
  void halfArith(const Inst &I);
  void halfCompare(const Inst &I);
  void narrow(const Inst &I);
  std::string subWordConst(const Inst &I, const std::string &D);
  void minMax(const Inst &I, const std::string &Ty, const std::string &A, const std::string &B);
  void minMaxInto(const Inst &I, const std::string &Ty, const std::string &A, const std::string &B,
                  const std::string &D, unsigned Bits);
  void setp(const Inst &I, const std::string &Into = {});
  void iadd3(const Inst &I);
  void imad(const Inst &I);
  std::string convSource(const Inst &I, unsigned Bytes);
  void convResult(const Inst &I, unsigned Bytes, const std::string &V);
  void convert(const Inst &I);
  void lea(const Inst &I);
  void shf(const Inst &I);
  std::string address(const Inst &I, bool Shared);
  void atomic(const Inst &I);
  void memory(const Inst &I);
};

} // namespace zluda::sass::lift

#endif // ZLUDA_SASS_LIFTIMPL_H
