// The SASS front end's differential fuzzer (issue 41), a plain driver-API
// program. Each seed makes a module of random but well-defined PTX kernels:
// integer, 64-bit, f32/f64/f16x2 arithmetic in every rounding mode,
// conversions, bit fields, permutes, predicates and predicated instructions,
// divergent branches and loops, warp shuffles, votes and reductions, shared
// memory with barriers, shared and global atomics, a dynamically indexed local
// array. ptxas compiles the module to machine code for sm_NN; the kernels run
// from the PTX and from the cubin with the same random inputs, and every
// output word must be the same. Either side may be wrong: the PTX path is
// checked against NVIDIA's hardware by tests/golden, and --record/--check
// compare both with hardware itself.
//
//   difffuzz [--arch NN] [--seeds FIRST:COUNT] [--kernels K] [--dump DIR]
//       runs both paths; exit 1 on any difference (each printed with its seed,
//       kernel and first differing word; --dump writes the module there)
//   difffuzz --print SEED          prints the PTX module of a seed
//   difffuzz --record FILE ...     on NVIDIA's hardware: one line per kernel,
//       "seed kernel hash" of its outputs from the PTX
//   difffuzz --check FILE ...      both paths compared with the recorded hashes too
//   difffuzz --known FILE ...      "SEED KERNEL why" lines: differences still open, reported not failed
//   difffuzz --file PTX --only K   a reduced module (scripts/difffuzz-reduce), one kernel of the seed
//   difffuzz --show T ...          one thread's output slots from the PTX run
//   difffuzz --words FILE ...      every output word of the PTX run, "seed kernel slot value":
//       on the device machine NVIDIA's hardware's, to compare with ours word by word
//
// Every value a kernel computes is defined by the PTX ISA: no approximate
// instructions, divisors forced nonzero, warp collectives only where every lane
// of the warp is there, one atomic operation per word (so the end value does
// not depend on the order), each register written before any branch, no float
// bits moved into integer registers, NaNs in float registers compared as one
// value (their sign and payload are open: sameNaNs).
#include <cuda.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

// splitmix64: the same stream on every compiler and library.
struct Rng {
  uint64_t S;
  // The seed mixed once, so that neighbouring seeds do not share a stream.
  explicit Rng(uint64_t Seed) : S(mix(Seed ^ 0x5DEECE66Dull)) {}
  static uint64_t mix(uint64_t Z) {
    Z = (Z ^ (Z >> 30)) * 0xBF58476D1CE4E5B9ull;
    Z = (Z ^ (Z >> 27)) * 0x94D049BB133111EBull;
    return Z ^ (Z >> 31);
  }
  uint64_t next() {
    return mix(S += 0x9E3779B97F4A7C15ull);
  }
  unsigned below(unsigned N) { return static_cast<unsigned>(next() % N); }
  bool chance(unsigned Percent) { return below(100) < Percent; }
  template <class T, size_t N> const T &pick(const T (&A)[N]) { return A[below(N)]; }
};

// Register pools: every register is initialized in the prologue, so an
// instruction skipped by a branch or a predicate leaves a defined value.
constexpr unsigned NR = 14, ND = 6, NF = 8, NFD = 4, NP = 4;
constexpr unsigned OutSlots = NR + ND + NF + NFD + NP; // one 8-byte word each
constexpr unsigned AtomWords = 8;                      // global atomics, after the per-thread slots
constexpr unsigned InWords = 16;                       // per thread

struct Gen {
  Rng &R;
  unsigned Arch;
  std::ostringstream O;
  int Label = 0, Depth = 0, Loops = 0;
  bool UsesShared = false, UsesAtomShared = false, UsesLocal = false;
  // One atomic operation per kernel for shared and one for global words:
  // mixed operations on a word would make the end value depend on the order.
  const char *SharedRed = "add.u32", *GlobalRed = "add.u32";

  Gen(Rng &R, unsigned Arch) : R(R), Arch(Arch) {}

  std::string r() { return "%r" + std::to_string(R.below(NR)); }
  std::string rd() { return "%rd" + std::to_string(R.below(ND)); }
  std::string f() { return "%f" + std::to_string(R.below(NF)); }
  std::string fd() { return "%fd" + std::to_string(R.below(NFD)); }
  std::string p() { return "%p" + std::to_string(R.below(NP)); }
  std::string imm32() {
    static const char *Special[] = {"0", "1", "-1", "31", "32", "0x80000000", "0x7fffffff", "0xffff", "255", "7"};
    if (R.chance(50))
      return R.pick(Special);
    return std::to_string(static_cast<int32_t>(R.next()) >> R.below(31));
  }
  std::string rOrImm() { return R.chance(75) ? r() : imm32(); }
  // Bit positions and lengths: a register (any value) or an immediate 0..32.
  // ptxas folds bfe/bfi with an immediate position past the word its own way
  // (bfe.s32 d, a, 186, 5 becomes -1 whatever a's sign), so immediates stay
  // within the word; registers take any value.
  std::string posOrReg() { return R.chance(60) ? r() : std::to_string(R.below(R.chance(80) ? 33 : 32)); }
  std::string fimm() {
    static const char *Special[] = {"0f00000000", "0f80000000", "0f3F800000", "0fBF800000", "0f7F800000",
                                    "0f00000001", "0f7F7FFFFF", "0f3EAAAAAB", "0f4B000000", "0fC0490FDB"};
    return R.pick(Special);
  }
  std::string fOrImm() { return R.chance(85) ? f() : fimm(); }
  // A float register made a number first (NaN -> 1.5), for the operands whose
  // sign a result keeps (copysign, xorsign, packing to halves): a NaN's sign
  // is ptxas's choice where it folds a negation into the reader.
  std::string fNum(int T) {
    std::string D = "%ft" + std::to_string(T), X = f();
    line("testp.notanumber.f32 %pt, " + X);
    line("selp.f32 " + D + ", 0f3FC00000, " + X + ", %pt");
    return D;
  }
  std::string guard() {
    if (!R.chance(12))
      return "";
    return std::string("@") + (R.chance(50) ? "!" : "") + p() + " ";
  }
  const char *rnd() { return R.pick({".rn", ".rz", ".rm", ".rp"}); }
  // A temporary for operands that must be reshaped (a nonzero divisor...).
  std::string tmp() { return "%t" + std::to_string(R.below(4)); }

  // The instructions of one generated operation share a line (a divisor made
  // nonzero and its division...), so that scripts/difffuzz-reduce keeps or
  // drops them together.
  void line(const std::string &S) { O << "\t" << S << ";"; }
  void done() { O << "\n"; }

  void intOp() {
    std::string G = guard(), D = r();
    switch (R.below(30)) {
    case 0: line(G + R.pick({"add.u32 ", "sub.u32 ", "add.s32 ", "sub.s32 "}) + D + ", " + r() + ", " + rOrImm()); break;
    case 1: line(G + R.pick({"add.sat.s32 ", "sub.sat.s32 "}) + D + ", " + r() + ", " + rOrImm()); break;
    case 2: line(G + R.pick({"mul.lo.u32 ", "mul.hi.u32 ", "mul.lo.s32 ", "mul.hi.s32 "}) + D + ", " + r() + ", " + rOrImm()); break;
    case 3: line(G + R.pick({"mad.lo.u32 ", "mad.hi.u32 ", "mad.lo.s32 ", "mad.hi.s32 "}) + D + ", " + r() + ", " + rOrImm() + ", " + r()); break;
    case 4: line(G + R.pick({"mul24.lo.u32 ", "mul24.lo.s32 ", "mul24.hi.u32 ", "mul24.hi.s32 "}) + D + ", " + r() + ", " + r()); break;
    case 5: {
      std::string T = tmp();
      bool S = R.chance(50);
      if (S) { // a positive divisor: INT_MIN / -1 is not defined
        line("and.b32 " + T + ", " + r() + ", 0xffff");
        line("or.b32 " + T + ", " + T + ", 1");
      } else {
        line("or.b32 " + T + ", " + r() + ", " + R.pick({"1", "0x10000", "0x80000000"}));
      }
      line(G + (R.chance(50) ? "div" : "rem") + (S ? ".s32 " : ".u32 ") + D + ", " + r() + ", " + T);
      break;
    }
    case 6: line(G + R.pick({"and.b32 ", "or.b32 ", "xor.b32 "}) + D + ", " + r() + ", " + rOrImm()); break;
    case 7: line(G + R.pick({"not.b32 ", "cnot.b32 ", "neg.s32 ", "abs.s32 ", "popc.b32 ", "clz.b32 ", "brev.b32 "}) + D + ", " + r()); break;
    case 8: line(G + R.pick({"shl.b32 ", "shr.u32 ", "shr.s32 "}) + D + ", " + r() + ", " + (R.chance(50) ? r() : std::to_string(R.below(40)))); break;
    case 9: line(G + R.pick({"min.u32 ", "max.u32 ", "min.s32 ", "max.s32 "}) + D + ", " + r() + ", " + rOrImm()); break;
    case 10: line(G + R.pick({"bfind.u32 ", "bfind.s32 ", "bfind.shiftamt.u32 ", "bfind.shiftamt.s32 "}) + D + ", " + r()); break;
    case 11: line(G + R.pick({"bfe.u32 ", "bfe.s32 "}) + D + ", " + r() + ", " + posOrReg() + ", " + posOrReg()); break;
    case 12: line(G + "bfi.b32 " + D + ", " + r() + ", " + r() + ", " + posOrReg() + ", " + posOrReg()); break;
    case 13: line(G + "prmt.b32" + R.pick({"", "", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"}) + " " + D + ", " + r() + ", " + r() + ", " + rOrImm()); break;
    case 14: line(G + "lop3.b32 " + D + ", " + r() + ", " + rOrImm() + ", " + r() + ", " + std::to_string(R.below(256))); break;
    case 15: line(G + "shf" + R.pick({".l", ".r"}) + R.pick({".wrap", ".clamp"}) + ".b32 " + D + ", " + r() + ", " + r() + ", " + (R.chance(60) ? r() : std::to_string(R.below(40)))); break;
    case 16: line(G + "selp.b32 " + D + ", " + rOrImm() + ", " + rOrImm() + ", " + p()); break;
    case 17: line(G + R.pick({"slct.s32.s32 ", "slct.u32.s32 "}) + D + ", " + r() + ", " + rOrImm() + ", " + r()); break;
    case 18: line(G + R.pick({"sad.u32 ", "sad.s32 "}) + D + ", " + r() + ", " + r() + ", " + r()); break;
    case 19: line(G + R.pick({"dp4a.u32.u32 ", "dp4a.s32.s32 ", "dp4a.s32.u32 ", "dp2a.lo.u32.u32 ", "dp2a.hi.s32.s32 "}) + D + ", " + r() + ", " + r() + ", " + r()); break;
    case 20: line(G + R.pick({"cvt.u32.u16 ", "cvt.s32.s16 ", "cvt.u32.u8 ", "cvt.s32.s8 ", "cvt.sat.s8.s32 ", "cvt.sat.u8.s32 ", "cvt.sat.s16.s32 ", "cvt.sat.u16.u32 ", "cvt.sat.s32.u32 ", "cvt.sat.u32.s32 "}) + D + ", " + r()); break;
    case 21: line(G + "cvt.u32.u64 " + D + ", " + rd()); break;
    case 22: line(G + "mov.b64 {" + D + ", " + tmp() + "}, " + rd()); break;
    case 23: line(G + "cvt.rzi.s32.f32 " + D + ", " + f()); break;
    case 24: line(G + "cvt" + R.pick({".rzi", ".rni", ".rmi", ".rpi"}) + R.pick({".s32", ".u32"}) + ".f32 " + D + ", " + f()); break;
    case 25: line(G + "cvt" + R.pick({".rzi", ".rni"}) + R.pick({".s32", ".u32"}) + ".f64 " + D + ", " + fd()); break;
    case 26:
      if (Arch >= 80 && R.chance(30))
        line(G + R.pick({"min", "max"}) + std::string(".f16x2 ") + D + ", " + r() + ", " + r());
      else
        line(G + R.pick({"add", "sub", "mul"}) + std::string(R.chance(30) ? ".ftz" : "") + (R.chance(20) ? ".sat" : "") + ".f16x2 " + D + ", " + r() + ", " + r());
      break;
    case 27: line(G + "fma.rn" + std::string(R.pick({"", "", ".sat", Arch >= 80 ? ".relu" : ""})) + ".f16x2 " + D + ", " + r() + ", " + r() + ", " + r()); break;
    case 28:
      if (Arch >= 80) {
        std::string A = fNum(0), B = fNum(1);
        line(G + "cvt.rn" + std::string(R.pick({"", ".relu"})) + ".f16x2.f32 " + D + ", " + A + ", " + B);
      }
      else
        line(G + "cvt.rn.f16.f32 %hs0, " + f());
      break;
    case 29: line(G + "selp.b32 " + D + ", " + r() + ", " + r() + ", " + p()); break;
    }
  }

  void wideOp() {
    std::string G = guard(), D = rd();
    switch (R.below(14)) {
    case 0: line(G + R.pick({"add.u64 ", "sub.u64 ", "mul.lo.u64 ", "mul.hi.u64 ", "mul.hi.s64 ", "and.b64 ", "or.b64 ", "xor.b64 ", "min.s64 ", "max.u64 "}) + D + ", " + rd() + ", " + rd()); break;
    case 1: line(G + R.pick({"shl.b64 ", "shr.u64 ", "shr.s64 "}) + D + ", " + rd() + ", " + (R.chance(50) ? r() : std::to_string(R.below(70)))); break;
    case 2: line(G + R.pick({"mul.wide.u32 ", "mul.wide.s32 "}) + D + ", " + r() + ", " + rOrImm()); break;
    case 3: line(G + R.pick({"mad.wide.u32 ", "mad.wide.s32 "}) + D + ", " + r() + ", " + r() + ", " + rd()); break;
    case 4: line(G + R.pick({"cvt.u64.u32 ", "cvt.s64.s32 "}) + D + ", " + r()); break;
    case 5: line(G + "mov.b64 " + D + ", {" + r() + ", " + r() + "}"); break;
    case 6: {
      std::string T = "%td0";
      line("or.b64 " + T + ", " + rd() + ", " + R.pick({"1", "0x100000000"}));
      line(G + R.pick({"div.u64 ", "rem.u64 "}) + D + ", " + rd() + ", " + T);
      break;
    }
    case 7: {
      std::string T = "%td0";
      line("and.b64 " + T + ", " + rd() + ", 0xffffffffff");
      line("or.b64 " + T + ", " + T + ", 1");
      line(G + R.pick({"div.s64 ", "rem.s64 "}) + D + ", " + rd() + ", " + T);
      break;
    }
    case 8: line(G + R.pick({"neg.s64 ", "not.b64 ", "abs.s64 ", "brev.b64 "}) + D + ", " + rd()); break;
    case 9: line(G + "mad.lo.u64 " + D + ", " + rd() + ", " + rd() + ", " + rd()); break;
    case 10: line(G + "bfe.u64 " + D + ", " + rd() + ", " + r() + ", " + r()); break;
    case 11: line(G + "cvt.rni.s64.f64 " + D + ", " + fd()); break;
    case 12: {
      bool Dbl = R.chance(50);
      line(G + "cvt" + R.pick({".rzi", ".rni", ".rmi"}) + R.pick({".s64", ".u64"}) + (Dbl ? ".f64 " : ".f32 ") + D + ", " + (Dbl ? fd() : f()));
      break;
    }
    case 13: line(G + R.pick({"popc.b64 ", "clz.b64 "}) + "%t0, " + rd()); line(G + "cvt.u64.u32 " + D + ", %t0"); break;
    }
  }

  void floatOp() {
    std::string G = guard(), D = f();
    const char *Ftz = R.chance(25) ? ".ftz" : "";
    switch (R.below(18)) {
    case 0: line(G + R.pick({"add", "sub", "mul"}) + std::string(rnd()) + Ftz + (R.chance(15) ? ".sat" : "") + ".f32 " + D + ", " + fOrImm() + ", " + fOrImm()); break;
    case 1: line(G + "fma" + std::string(rnd()) + Ftz + (R.chance(15) ? ".sat" : "") + ".f32 " + D + ", " + fOrImm() + ", " + f() + ", " + fOrImm()); break;
    case 2: line(G + R.pick({"min", "max"}) + std::string(Ftz) + (Arch >= 80 && R.chance(40) ? ".NaN" : "") + ".f32 " + D + ", " + f() + ", " + fOrImm()); break;
    case 3: line(G + R.pick({"abs", "neg"}) + std::string(Ftz) + ".f32 " + D + ", " + f()); break;
    case 4: line(G + "div" + std::string(R.pick({".rn", ".rn", ".rz", ".rm", ".rp"})) + Ftz + ".f32 " + D + ", " + fOrImm() + ", " + f()); break;
    case 5: line(G + "sqrt" + std::string(rnd()) + Ftz + ".f32 " + D + ", " + f()); break;
    case 6: line(G + "rcp" + std::string(rnd()) + Ftz + ".f32 " + D + ", " + f()); break;
    case 7: line(G + "cvt" + std::string(rnd()) + R.pick({".f32.s32 ", ".f32.u32 "}) + D + ", " + r()); break;
    case 8: line(G + "cvt" + std::string(rnd()) + R.pick({".f32.s64 ", ".f32.u64 "}) + D + ", " + rd()); break;
    case 9: line(G + "cvt" + std::string(R.pick({".rni", ".rzi", ".rmi", ".rpi"})) + Ftz + ".f32.f32 " + D + ", " + f()); break;
    case 10: line(G + "cvt" + std::string(rnd()) + Ftz + ".f32.f64 " + D + ", " + fd()); break;
    case 11: line(G + "mov.b32 " + D + ", " + r()); break;
    case 12: line(G + "selp.f32 " + D + ", " + fOrImm() + ", " + fOrImm() + ", " + p()); break;
    case 13: {
      std::string A = fNum(0);
      line(G + "copysign.f32 " + D + ", " + A + ", " + f());
      break;
    }
    case 14: { // through half precision and back
      line("cvt" + std::string(rnd()) + ".f16.f32 %hs0, " + f());
      line(G + "cvt.f32.f16 " + D + ", %hs0");
      break;
    }
    case 15:
      if (Arch >= 86) {
        std::string A = fNum(0), B = fNum(1);
        line(G + R.pick({"min.xorsign.abs.f32 ", "max.xorsign.abs.f32 "}) + D + ", " + A + ", " + B);
      } else {
        line("testp.normal.f32 " + p() + ", " + f());
      }
      break;
    // testp without a guard: ptxas drops one (it writes the test's result
    // whatever the guard), so NVIDIA's hardware and the PTX ISA differ there.
    case 16: line("testp" + std::string(R.pick({".finite", ".infinite", ".number", ".notanumber", ".normal", ".subnormal"})) + ".f32 " + p() + ", " + f()); break;
    case 17: line(G + "fma.rn" + std::string(Ftz) + ".f32 " + D + ", " + f() + ", " + f() + ", " + f()); break;
    }
  }

  void doubleOp() {
    std::string G = guard(), D = fd();
    switch (R.below(10)) {
    case 0: line(G + R.pick({"add", "sub", "mul"}) + std::string(rnd()) + ".f64 " + D + ", " + fd() + ", " + fd()); break;
    case 1: line(G + "fma" + std::string(rnd()) + ".f64 " + D + ", " + fd() + ", " + fd() + ", " + fd()); break;
    case 2: line(G + R.pick({"min.f64 ", "max.f64 ", "copysign.f64 "}) + D + ", " + fd() + ", " + fd()); break;
    case 3: line(G + R.pick({"abs.f64 ", "neg.f64 "}) + D + ", " + fd()); break;
    case 4: line(G + "div" + std::string(rnd()) + ".f64 " + D + ", " + fd() + ", " + fd()); break;
    case 5: line(G + R.pick({"sqrt", "rcp"}) + std::string(rnd()) + ".f64 " + D + ", " + fd()); break;
    case 6: line(G + "cvt" + std::string(rnd()) + R.pick({".f64.s32 ", ".f64.u32 "}) + D + ", " + r()); break;
    case 7: line(G + "cvt" + std::string(rnd()) + R.pick({".f64.s64 ", ".f64.u64 "}) + D + ", " + rd()); break;
    case 8: line(G + "cvt.f64.f32 " + D + ", " + f()); break;
    case 9: line(G + "cvt" + std::string(R.pick({".rni", ".rzi", ".rmi", ".rpi"})) + ".f64.f64 " + D + ", " + fd()); break;
    }
  }

  void predOp() {
    std::string D = p();
    static const char *ICmp[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    static const char *UCmp[] = {"eq", "ne", "lo", "ls", "hi", "hs"};
    static const char *FCmp[] = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
    std::string Comb = R.chance(25) ? std::string(R.pick({".and", ".or", ".xor"})) : "";
    std::string Tail = Comb.empty() ? "" : ", " + std::string(R.chance(30) ? "!" : "") + p();
    switch (R.below(7)) {
    case 0: line("setp." + std::string(R.pick(ICmp)) + Comb + ".s32 " + D + ", " + r() + ", " + rOrImm() + Tail); break;
    case 1: line("setp." + std::string(R.pick(UCmp)) + Comb + ".u32 " + D + ", " + r() + ", " + rOrImm() + Tail); break;
    case 2: line("setp." + std::string(R.pick(FCmp)) + Comb + (R.chance(20) ? ".ftz" : "") + ".f32 " + D + ", " + f() + ", " + fOrImm() + Tail); break;
    case 3: line("setp." + std::string(R.pick(FCmp)) + Comb + ".f64 " + D + ", " + fd() + ", " + fd() + Tail); break;
    case 4: line("setp." + std::string(R.pick(UCmp)) + Comb + ".u64 " + D + ", " + rd() + ", " + rd() + Tail); break;
    case 5: line(R.pick({"and.pred ", "or.pred ", "xor.pred "}) + D + ", " + p() + ", " + p()); break;
    case 6: line("not.pred " + D + ", " + p()); break;
    }
  }

  // Only where every lane of the warp executes (no branch or loop around it).
  void warpOp() {
    switch (R.below(8)) {
    case 0: {
      const char *Mode = R.pick({"idx", "up", "down", "bfly"});
      std::string B = std::strcmp(Mode, "idx") == 0 && R.chance(50) ? r() : std::to_string(R.below(32));
      std::string C = R.pick({"0x1f", "0x1f", "0x0f", "0x101f", "0x181f"});
      if (std::strcmp(Mode, "up") == 0)
        C = R.pick({"0", "0x1000", "0x1800"});
      line(std::string("shfl.sync.") + Mode + ".b32 " + r() + (R.chance(30) ? "|" + p() : "") + ", " + r() + ", " + B + ", " + C + ", 0xffffffff");
      break;
    }
    case 1: line("vote.sync.ballot.b32 " + r() + ", " + std::string(R.chance(30) ? "!" : "") + p() + ", 0xffffffff"); break;
    case 2: line(std::string("vote.sync.") + R.pick({"any", "all", "uni"}) + ".pred " + p() + ", " + p() + ", 0xffffffff"); break;
    case 3:
      if (Arch >= 80)
        line(std::string("redux.sync.") + R.pick({"add.u32 ", "min.u32 ", "max.s32 ", "and.b32 ", "or.b32 ", "xor.b32 ", "add.s32 ", "min.s32 "}) + r() + ", " + r() + ", 0xffffffff");
      else
        line("vote.sync.ballot.b32 " + r() + ", " + p() + ", 0xffffffff");
      break;
    case 4: line("match.any.sync.b32 " + r() + ", " + r() + ", 0xffffffff"); break;
    case 5: line("match.all.sync.b32 " + r() + "|" + p() + ", " + r() + ", 0xffffffff"); break;
    case 6: line("shfl.sync.bfly.b32 " + r() + ", " + r() + ", " + std::to_string(1u << R.below(5)) + ", 0x1f, 0xffffffff"); break;
    case 7: line("shfl.sync.down.b32 " + r() + ", " + r() + ", " + std::to_string(1 + R.below(31)) + ", 0x1f, 0xffffffff"); break;
    }
  }

  // Shared memory between barriers: every thread writes its word, then reads another's.
  void sharedOp() {
    UsesShared = true;
    line("bar.sync 0");
    line("st.shared.u32 [%sh], " + r());
    line("bar.sync 0");
    line("xor.b32 %t1, %mytid, " + std::to_string(1 + R.below(63)));
    line("and.b32 %t1, %t1, %nm1");
    line("shl.b32 %t1, %t1, 2");
    line("add.u32 %t1, %t1, %shbase");
    line("ld.shared.u32 " + r() + ", [%t1]");
  }

  void sharedAtomOp() {
    UsesAtomShared = true;
    line("bar.sync 0");
    line("and.b32 %t2, " + r() + ", 7");
    line("shl.b32 %t2, %t2, 2");
    line("add.u32 %t2, %t2, %sabase");
    line(std::string("red.shared.") + SharedRed + " [%t2], " + r());
    line("bar.sync 0");
    line("and.b32 %t2, " + r() + ", 7");
    line("shl.b32 %t2, %t2, 2");
    line("add.u32 %t2, %t2, %sabase");
    line("ld.shared.u32 " + r() + ", [%t2]");
  }

  void globalAtomOp() {
    line("and.b32 %t3, " + r() + ", " + std::to_string(AtomWords - 1));
    line("mul.wide.u32 %td1, %t3, 4");
    line("add.u64 %td1, %td1, %atom");
    std::string G = guard();
    if (R.chance(50))
      line(G + std::string("red.global.") + GlobalRed + " [%td1], " + r());
    else // an atom whose old value is thrown away
      line(G + std::string("atom.global.") + GlobalRed + " %t3, [%td1], " + r());
  }

  void localOp() {
    UsesLocal = true;
    line("and.b32 %t1, " + r() + ", 15");
    line("mul.wide.u32 %td1, %t1, 4");
    line("mov.u64 %td0, __local_depot");
    line("add.u64 %td1, %td1, %td0");
    if (R.chance(50))
      line(guard() + "st.local.u32 [%td1], " + r());
    else
      line(guard() + "ld.local.u32 " + r() + ", [%td1]");
  }

  void straight(unsigned N, bool Uniform) {
    for (unsigned I = 0; I < N; ++I, done()) {
      unsigned K = R.below(100);
      if (K < 34)
        intOp();
      else if (K < 46)
        wideOp();
      else if (K < 64)
        floatOp();
      else if (K < 72)
        doubleOp();
      else if (K < 84)
        predOp();
      else if (K < 89)
        Uniform ? warpOp() : intOp();
      else if (K < 91)
        Uniform ? sharedOp() : floatOp();
      else if (K < 93)
        Uniform ? sharedAtomOp() : predOp();
      else if (K < 96)
        globalAtomOp();
      else
        localOp();
    }
  }

  void block(unsigned N, bool Uniform) {
    unsigned Done = 0;
    while (Done < N) {
      unsigned Piece = 1 + R.below(6);
      unsigned K = R.below(100);
      if (K < 12 && Depth < 2) {
        ++Depth;
        int L = Label++;
        std::string P = p();
        line(std::string("@") + (R.chance(50) ? "!" : "") + P + " bra $L_else" + std::to_string(L));
        done();
        block(Piece, false);
        line("bra $L_end" + std::to_string(L));
        done();
        O << "$L_else" << L << ":\n";
        if (R.chance(70))
          block(1 + R.below(5), false);
        O << "$L_end" << L << ":\n";
        --Depth;
      } else if (K < 20 && Depth < 2 && Loops < 3) {
        ++Depth;
        int L = Label++, C = Loops++;
        std::string Cnt = "%lc" + std::to_string(C), Bound = "%lb" + std::to_string(C);
        line("and.b32 " + Bound + ", " + r() + ", 3");
        line("mov.u32 " + Cnt + ", 0");
        done();
        O << "$L_loop" << L << ":\n";
        block(Piece, false);
        line("add.u32 " + Cnt + ", " + Cnt + ", 1");
        line("setp.le.u32 %pl, " + Cnt + ", " + Bound);
        line("@%pl bra $L_loop" + std::to_string(L));
        done();
        --Depth;
      } else {
        straight(Piece, Uniform && Depth == 0);
      }
      Done += Piece;
    }
  }

  std::string kernel(const std::string &Name) {
    O.str("");
    static const char *Reds[] = {"add.u32", "min.u32", "max.u32", "min.s32", "max.s32", "and.b32", "or.b32", "xor.b32"};
    SharedRed = R.pick(Reds);
    GlobalRed = R.pick(Reds);
    block(30 + R.below(40), true);
    std::string Body = O.str();
    std::ostringstream K;
    K << ".visible .entry " << Name << "(.param .u64 in, .param .u64 out)\n{\n";
    K << "\t.reg .pred %p<" << NP << ">;\n\t.reg .pred %pl;\n";
    K << "\t.reg .b32 %r<" << NR << ">;\n\t.reg .b32 %t<4>;\n\t.reg .b32 %lc<4>;\n\t.reg .b32 %lb<4>;\n";
    K << "\t.reg .b32 %mytid, %nm1, %sh, %shbase, %sabase, %gid;\n";
    K << "\t.reg .b64 %rd<" << ND << ">;\n\t.reg .b64 %td<2>;\n\t.reg .b64 %atom, %inp, %outp;\n";
    K << "\t.reg .f32 %f<" << NF << ">;\n\t.reg .f64 %fd<" << NFD << ">;\n\t.reg .b16 %hs0;\n";
    K << "\t.reg .f32 %ft<2>;\n\t.reg .pred %pt;\n";
    if (UsesShared)
      K << "\t.shared .align 4 .b32 sm[128];\n";
    if (UsesAtomShared)
      K << "\t.shared .align 4 .b32 sa[8];\n";
    if (UsesLocal)
      K << "\t.local .align 4 .b8 __local_depot[64];\n";
    // Prologue: the thread's inputs into every register of the pools.
    K << "\tld.param.u64 %inp, [in];\n\tld.param.u64 %outp, [out];\n";
    K << "\tcvta.to.global.u64 %inp, %inp;\n\tcvta.to.global.u64 %outp, %outp;\n";
    K << "\tmov.u32 %mytid, %tid.x;\n\tmov.u32 %nm1, %ntid.x;\n\tsub.u32 %nm1, %nm1, 1;\n";
    K << "\tmov.u32 %gid, %ctaid.x;\n\tmov.u32 %t0, %ntid.x;\n\tmad.lo.u32 %gid, %gid, %t0, %mytid;\n";
    K << "\tmul.wide.u32 %td0, %gid, " << InWords * 4 << ";\n\tadd.u64 %td0, %td0, %inp;\n";
    for (unsigned I = 0; I < NR; ++I)
      K << "\tld.global.u32 %r" << I << ", [%td0+" << (I % 6) * 4 << "];\n";
    for (unsigned I = 6; I < NR; ++I) // mix: the same inputs in other registers, made distinct
      K << "\txor.b32 %r" << I << ", %r" << I << ", 0x" << std::hex << (0x9E3779B9u * I) << std::dec << ";\n";
    for (unsigned I = 0; I < NF; ++I)
      K << "\tld.global.f32 %f" << I << ", [%td0+" << (24 + (I % 4) * 4) << "];\n";
    for (unsigned I = 4; I < NF; ++I)
      K << "\tneg.f32 %f" << I << ", %f" << I << ";\n";
    for (unsigned I = 0; I < ND; ++I)
      K << "\tld.global.u64 %rd" << I << ", [%td0+" << (40 + (I % 1) * 8) << "];\n";
    for (unsigned I = 1; I < ND; ++I)
      K << "\tmad.wide.u32 %rd" << I << ", %r" << I << ", %r" << (I + 7) << ", %rd" << I << ";\n";
    for (unsigned I = 0; I < NFD; ++I)
      K << "\tld.global.f64 %fd" << I << ", [%td0+" << (48 + (I % 2) * 8) << "];\n";
    for (unsigned I = 2; I < NFD; ++I)
      K << "\tmul.rn.f64 %fd" << I << ", %fd" << I << ", 0dC000000000000000;\n";
    for (unsigned I = 0; I < NP; ++I)
      K << "\tsetp.lt.u32 %p" << I << ", %r" << I << ", %r" << (NR - 1 - I) << ";\n";
    K << "\tmov.u32 %t0, 0;\n\tmov.u32 %t1, 0;\n\tmov.u32 %t2, 0;\n\tmov.u32 %t3, 0;\n\tmov.u64 %td0, 0;\n\tmov.u64 %td1, 0;\n";
    K << "\tmov.u32 %lc0, 0;\n\tmov.u32 %lb0, 0;\n";
    K << "\tmul.wide.u32 %td1, %gid, " << OutSlots * 8 << ";\n";
    K << "\tmov.u32 %t0, %nctaid.x;\n\tmov.u32 %t1, %ntid.x;\n\tmul.lo.u32 %t0, %t0, %t1;\n";
    K << "\tmul.wide.u32 %atom, %t0, " << OutSlots * 8 << ";\n\tadd.u64 %atom, %atom, %outp;\n";
    K << "\tadd.u64 %outp, %outp, %td1;\n";
    if (UsesShared) {
      K << "\tmov.u32 %shbase, sm;\n\tshl.b32 %sh, %mytid, 2;\n\tadd.u32 %sh, %sh, %shbase;\n";
    } else {
      K << "\tmov.u32 %shbase, 0;\n\tmov.u32 %sh, 0;\n";
    }
    if (UsesAtomShared) {
      K << "\tmov.u32 %sabase, sa;\n\tsetp.lt.u32 %pl, %mytid, 8;\n\tshl.b32 %t0, %mytid, 2;\n\tadd.u32 %t0, %t0, %sabase;\n";
      K << "\t@%pl st.shared.u32 [%t0], %mytid;\n\tbar.sync 0;\n";
    } else {
      K << "\tmov.u32 %sabase, 0;\n";
    }
    if (UsesLocal)
      for (unsigned I = 0; I < 16; ++I)
        K << "\tst.local.u32 [__local_depot+" << I * 4 << "], %r" << (I % NR) << ";\n";
    K << "\tmov.u32 %t0, 0;\n\tmov.u32 %t1, 0;\n\tmov.u64 %td1, 0;\n";
    K << "\t// body\n" << Body << "\t// epilogue\n";
    // Epilogue: every register of the pools, one 8-byte slot each.
    unsigned S = 0;
    for (unsigned I = 0; I < NR; ++I, ++S)
      K << "\tst.global.u32 [%outp+" << S * 8 << "], %r" << I << ";\n";
    for (unsigned I = 0; I < ND; ++I, ++S)
      K << "\tst.global.u64 [%outp+" << S * 8 << "], %rd" << I << ";\n";
    for (unsigned I = 0; I < NF; ++I, ++S)
      K << "\tst.global.f32 [%outp+" << S * 8 << "], %f" << I << ";\n";
    for (unsigned I = 0; I < NFD; ++I, ++S)
      K << "\tst.global.f64 [%outp+" << S * 8 << "], %fd" << I << ";\n";
    for (unsigned I = 0; I < NP; ++I, ++S)
      K << "\tselp.u32 %t0, 1, 0, %p" << I << ";\n\tst.global.u32 [%outp+" << S * 8 << "], %t0;\n";
    K << "\tret;\n}\n";
    UsesShared = UsesAtomShared = UsesLocal = false;
    Loops = 0;
    return K.str();
  }
};

struct Module {
  std::string Ptx;
  std::vector<std::string> Kernels;
  std::vector<unsigned> Blocks; // threads per block of each kernel (a power of two, 32 to 128)
};

Module makeModule(uint64_t Seed, unsigned Arch, unsigned Count) {
  Rng R(Seed);
  Gen G(R, Arch);
  Module M;
  M.Ptx = ".version 8.0\n.target sm_" + std::to_string(Arch) + "\n.address_size 64\n\n";
  for (unsigned K = 0; K < Count; ++K) {
    std::string Name = "fz" + std::to_string(Seed) + "_" + std::to_string(K);
    M.Ptx += G.kernel(Name) + "\n";
    M.Kernels.push_back(Name);
    M.Blocks.push_back(32u << R.below(3));
  }
  return M;
}

// Inputs per thread: 6 integer words, 4 floats, a 64-bit integer, 2 doubles.
std::vector<uint32_t> makeInputs(uint64_t Seed, unsigned Kernel, unsigned Threads) {
  Rng R(Seed * 1000003 + Kernel);
  std::vector<uint32_t> W(size_t(Threads) * InWords);
  static const uint32_t IntSpecial[] = {0, 1, 0xffffffff, 0x80000000, 0x7fffffff, 2, 31, 32, 0xffff, 0x10000};
  static const uint32_t FSpecial[] = {0, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000,
                                      0x00000001, 0x807fffff, 0x7f7fffff, 0x00800000, 0x4b000000, 0x3effffff, 0x3f000000};
  static const uint64_t DSpecial[] = {0, 0x8000000000000000ull, 0x3ff0000000000000ull, 0x7ff0000000000000ull,
                                      0x0000000000000001ull, 0x7fefffffffffffffull, 0x0010000000000000ull,
                                      0x4330000000000000ull, 0xfff8000000000000ull, 0x3fe0000000000000ull};
  for (unsigned T = 0; T < Threads; ++T) {
    uint32_t *P = &W[size_t(T) * InWords];
    for (unsigned I = 0; I < 6; ++I) {
      unsigned K = R.below(10);
      P[I] = K < 3 ? R.pick(IntSpecial) : K < 6 ? static_cast<uint32_t>(R.below(64)) : static_cast<uint32_t>(R.next());
    }
    for (unsigned I = 6; I < 10; ++I) {
      unsigned K = R.below(10);
      if (K < 3)
        P[I] = R.pick(FSpecial);
      else if (K < 7) { // ordinary magnitudes
        float F = static_cast<float>(static_cast<int32_t>(R.next() % 20001) - 10000) / static_cast<float>(1 + R.below(97));
        std::memcpy(&P[I], &F, 4);
      } else
        P[I] = static_cast<uint32_t>(R.next());
    }
    uint64_t L = R.chance(30) ? R.below(1000) : R.next();
    std::memcpy(&P[10], &L, 8);
    for (unsigned I = 0; I < 2; ++I) {
      uint64_t D;
      unsigned K = R.below(10);
      if (K < 3)
        D = R.pick(DSpecial);
      else if (K < 7) {
        double X = static_cast<double>(static_cast<int64_t>(R.next() % 2000001) - 1000000) / (1 + R.below(1001));
        std::memcpy(&D, &X, 8);
      } else
        D = R.next();
      std::memcpy(&P[12 + 2 * I], &D, 8);
    }
  }
  return W;
}

constexpr unsigned Grid = 2;

std::string errName(CUresult R) {
  const char *S = nullptr;
  cuGetErrorName(R, &S);
  return S ? S : std::to_string(int(R));
}

/// Runs one kernel; fills \p Out (the threads' slots, then the atomics' words).
std::string launch(CUmodule M, const std::string &Name, unsigned Block, const std::vector<uint32_t> &In,
                   std::vector<uint64_t> &Out) {
  CUfunction F;
  if (CUresult E = cuModuleGetFunction(&F, M, Name.c_str()))
    return "function: " + errName(E);
  unsigned Threads = Grid * Block;
  size_t InBytes = In.size() * 4, OutWords = size_t(Threads) * OutSlots + AtomWords / 2;
  CUdeviceptr DIn, DOut;
  if (cuMemAlloc(&DIn, InBytes) || cuMemAlloc(&DOut, OutWords * 8))
    return "cuMemAlloc failed";
  cuMemcpyHtoD(DIn, In.data(), InBytes);
  cuMemsetD8(DOut, 0xA5, OutWords * 8);
  // The atomics' words start from known values (min/max/and/or need them).
  std::vector<uint32_t> Init = {0, 0xffffffff, 0x12345678, 0x7fffffff, 0x80000000, 5, 0, 0xffff0000};
  cuMemcpyHtoD(DOut + size_t(Threads) * OutSlots * 8, Init.data(), AtomWords * 4);
  void *Args[] = {&DIn, &DOut};
  std::string Why;
  if (CUresult E = cuLaunchKernel(F, Grid, 1, 1, Block, 1, 1, 0, nullptr, Args, nullptr))
    Why = "launch: " + errName(E);
  else if (CUresult E = cuCtxSynchronize())
    Why = "run: " + errName(E);
  if (Why.empty()) {
    Out.resize(OutWords);
    cuMemcpyDtoH(Out.data(), DOut, OutWords * 8);
  }
  cuMemFree(DIn);
  cuMemFree(DOut);
  return Why;
}

/// Every NaN in a float register's slot as one value: the PTX ISA leaves a
/// NaN's sign and payload open where ptxas folds a negation or an absolute
/// value into the instruction that reads it (F2F.F64.F32 -R...), so the
/// machine code and NVIDIA's own JIT may differ there and both be right.
void sameNaNs(std::vector<uint64_t> &Out, unsigned Threads) {
  for (size_t T = 0; T < Threads; ++T)
    for (unsigned S = NR + ND; S < NR + ND + NF + NFD; ++S) {
      uint64_t &W = Out[T * OutSlots + S];
      if (S < NR + ND + NF) {
        if ((W & 0x7fffffffu) > 0x7f800000u)
          W = (W & ~0xffffffffull) | 0x7fffffffu;
      } else if ((W & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) {
        W = 0x7fffffffffffffffull;
      }
    }
}

uint64_t fnv(const std::vector<uint64_t> &V) {
  uint64_t H = 0xcbf29ce484222325ull;
  for (uint64_t X : V)
    for (int B = 0; B < 8; ++B)
      H = (H ^ ((X >> (8 * B)) & 0xff)) * 0x100000001b3ull;
  return H;
}

std::string slotName(size_t W, unsigned Threads) {
  if (W >= size_t(Threads) * OutSlots)
    return "global atomic word pair " + std::to_string(W - size_t(Threads) * OutSlots);
  unsigned T = static_cast<unsigned>(W / OutSlots), S = static_cast<unsigned>(W % OutSlots);
  std::string Reg = S < NR                  ? "%r" + std::to_string(S)
                    : S < NR + ND           ? "%rd" + std::to_string(S - NR)
                    : S < NR + ND + NF      ? "%f" + std::to_string(S - NR - ND)
                    : S < NR + ND + NF + NFD ? "%fd" + std::to_string(S - NR - ND - NF)
                                            : "%p" + std::to_string(S - NR - ND - NF - NFD);
  return "thread " + std::to_string(T) + " " + Reg;
}

bool ptxas(const std::string &Ptx, unsigned Arch, std::string &Cubin, std::string &Log) {
  const char *Tool = std::getenv("DIFFFUZZ_PTXAS");
  std::string Base = "/tmp/difffuzz-" + std::to_string(getpid());
  std::ofstream(Base + ".ptx") << Ptx;
  std::string Cmd = std::string(Tool && *Tool ? Tool : "/usr/local/cuda/bin/ptxas") + " -arch=sm_" +
                    std::to_string(Arch) + " " + Base + ".ptx -o " + Base + ".cubin > " + Base + ".log 2>&1";
  bool Ok = std::system(Cmd.c_str()) == 0;
  std::stringstream SS, LS;
  SS << std::ifstream(Base + ".cubin", std::ios::binary).rdbuf();
  LS << std::ifstream(Base + ".log").rdbuf();
  Cubin = SS.str();
  Log = LS.str();
  for (const char *Ext : {".ptx", ".cubin", ".log"})
    std::remove((Base + Ext).c_str());
  return Ok && !Cubin.empty();
}

int usage() {
  std::fprintf(stderr, "usage: difffuzz [--arch NN] [--seeds FIRST:COUNT] [--kernels K] [--dump DIR]\n"
                       "               [--record FILE | --check FILE] [--known FILE] [--file PTX --only K] [--show T]\n"
                       "               [--words FILE] | --print SEED\n");
  return 2;
}

} // namespace

int main(int Argc, char **Argv) {
  unsigned Arch = 86, Kernels = 8;
  uint64_t First = 1, Count = 10;
  std::string Dump, Record, Check, Print, File, KnownFile, Words;
  int Only = -1, Show = -1;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto val = [&]() -> std::string { return I + 1 < Argc ? Argv[++I] : ""; };
    if (A == "--arch")
      Arch = static_cast<unsigned>(std::atoi(val().c_str()));
    else if (A == "--seeds") {
      std::string V = val();
      size_t C = V.find(':');
      First = std::strtoull(V.c_str(), nullptr, 10);
      Count = C == std::string::npos ? 1 : std::strtoull(V.c_str() + C + 1, nullptr, 10);
    } else if (A == "--kernels")
      Kernels = static_cast<unsigned>(std::atoi(val().c_str()));
    else if (A == "--dump")
      Dump = val();
    else if (A == "--record")
      Record = val();
    else if (A == "--check")
      Check = val();
    else if (A == "--print")
      Print = val();
    else if (A == "--file") // the module's PTX from a file (a reduced one): seed and kernel names as generated
      File = val();
    else if (A == "--known") // "SEED KERNEL why" lines: differences still open (reported, not failed)
      KnownFile = val();
    else if (A == "--words") // every output word of the PTX run, "seed kernel slot value" (triage against the device)
      Words = val();
    else if (A == "--show") // print one thread's output slots from the PTX run (triage)
      Show = std::atoi(val().c_str());
    else if (A == "--only")
      Only = std::atoi(val().c_str());
    else
      return usage();
  }
  if (Arch < 75 || Kernels == 0)
    return usage();
  if (!Print.empty()) {
    std::fputs(makeModule(std::strtoull(Print.c_str(), nullptr, 10), Arch, Kernels).Ptx.c_str(), stdout);
    return 0;
  }

  std::map<std::pair<uint64_t, unsigned>, uint64_t> Want; // hardware's hashes (--check)
  if (!Check.empty()) {
    std::ifstream In(Check);
    uint64_t S, H;
    unsigned K;
    while (In >> S >> K >> std::hex >> H >> std::dec)
      Want[{S, K}] = H;
    if (Want.empty()) {
      std::fprintf(stderr, "difffuzz: nothing recorded in %s\n", Check.c_str());
      return 2;
    }
  }
  std::map<std::pair<uint64_t, unsigned>, std::string> Known;
  if (!KnownFile.empty()) {
    std::ifstream In(KnownFile);
    std::string Line;
    while (std::getline(In, Line)) {
      std::istringstream L(Line);
      uint64_t S;
      unsigned K;
      std::string Why;
      if (Line.empty() || Line[0] == '#' || !(L >> S >> K))
        continue;
      std::getline(L, Why);
      Known[{S, K}] = Why;
    }
  }
  unsigned KnownSeen = 0;
  FILE *Rec = Record.empty() ? nullptr : std::fopen(Record.c_str(), "w");
  FILE *WordsOut = Words.empty() ? nullptr : std::fopen(Words.c_str(), "w");

  CUdevice Dev;
  CUcontext Ctx;
  if (cuInit(0) || cuDeviceGet(&Dev, 0) || cuCtxCreate(&Ctx, nullptr, 0, Dev)) {
    std::fprintf(stderr, "difffuzz: no CUDA device\n");
    return 2;
  }
  unsigned Ran = 0, Differ = 0, Refused = 0, PtxasRefused = 0, HwDiffer = 0;
  for (uint64_t Seed = First; Seed < First + Count; ++Seed) {
    Module M = makeModule(Seed, Arch, Kernels);
    if (!File.empty()) {
      std::stringstream SS;
      SS << std::ifstream(File).rdbuf();
      M.Ptx = SS.str();
    }
    bool Machine = !Rec; // recording on hardware: the PTX path only
    std::string Cubin, Log;
    if (Machine && !ptxas(M.Ptx, Arch, Cubin, Log)) {
      ++PtxasRefused;
      std::printf("seed %" PRIu64 ": ptxas refuses the module: %s\n", Seed, Log.substr(0, 400).c_str());
      continue;
    }
    CUmodule MP = nullptr, MS = nullptr;
    char ErrLog[8192] = {};
    CUjit_option Opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *Vals[2] = {ErrLog, reinterpret_cast<void *>(sizeof ErrLog)};
    if (CUresult E = cuModuleLoadDataEx(&MP, M.Ptx.c_str(), 2, Opts, Vals)) {
      std::printf("seed %" PRIu64 ": the PTX does not load: %s %s\n", Seed, errName(E).c_str(), ErrLog);
      ++Differ;
      continue;
    }
    if (Machine) {
      std::memset(ErrLog, 0, sizeof ErrLog);
      if (CUresult E = cuModuleLoadDataEx(&MS, Cubin.data(), 2, Opts, Vals)) {
        // A cubin the front end refuses whole is counted, not failed (it names what it cannot lift).
        std::printf("seed %" PRIu64 ": cubin refused: %s %s\n", Seed, errName(E).c_str(), ErrLog);
        ++Refused;
        MS = nullptr;
      }
    }
    bool Dumped = false;
    for (unsigned K = 0; K < Kernels; ++K) {
      if (Only >= 0 && K != static_cast<unsigned>(Only))
        continue;
      unsigned DifferBefore = Differ, HwBefore = HwDiffer;
      struct Settle { // a known kernel's differences are reported, not counted
        unsigned &Differ, &HwDiffer, DB, HB, &Seen;
        const std::string *Why;
        uint64_t Seed;
        unsigned K;
        ~Settle() {
          if (Why && (Differ != DB || HwDiffer != HB)) {
            std::printf("seed %" PRIu64 " kernel %u: known:%s\n", Seed, K, Why->c_str());
            Differ = DB;
            HwDiffer = HB;
            ++Seen;
          }
        }
      } Settled{Differ, HwDiffer, DifferBefore, HwBefore, KnownSeen,
                Known.count({Seed, K}) ? &Known[{Seed, K}] : nullptr, Seed, K};
      unsigned Block = M.Blocks[K];
      std::vector<uint32_t> In = makeInputs(Seed, K, Grid * Block);
      std::vector<uint64_t> A, B;
      std::string WhyA = launch(MP, M.Kernels[K], Block, In, A);
      ++Ran;
      if (!WhyA.empty()) {
        std::printf("seed %" PRIu64 " kernel %u: from PTX: %s\n", Seed, K, WhyA.c_str());
        ++Differ;
        continue;
      }
      sameNaNs(A, Grid * Block);
      if (Show >= 0 && static_cast<unsigned>(Show) < Grid * Block)
        for (unsigned S = 0; S < OutSlots; ++S)
          std::printf("seed %" PRIu64 " kernel %u: %s = %016" PRIx64 "\n", Seed, K, slotName(size_t(Show) * OutSlots + S, Grid * Block).c_str(), A[size_t(Show) * OutSlots + S]);
      if (Rec)
        std::fprintf(Rec, "%" PRIu64 " %u %016" PRIx64 "\n", Seed, K, fnv(A));
      if (WordsOut)
        for (size_t W = 0; W < A.size(); ++W)
          std::fprintf(WordsOut, "%" PRIu64 " %u %s %016" PRIx64 "\n", Seed, K, slotName(W, Grid * Block).c_str(), A[W]);
      auto hw = Want.find({Seed, K});
      if (hw != Want.end() && hw->second != fnv(A)) {
        std::printf("seed %" PRIu64 " kernel %u: from PTX differs from NVIDIA's hardware\n", Seed, K);
        ++HwDiffer;
      }
      if (!MS)
        continue;
      std::string WhyB = launch(MS, M.Kernels[K], Block, In, B);
      if (!WhyB.empty()) {
        if (WhyB.find("NO_BINARY_FOR_GPU") != std::string::npos) {
          ++Refused;
          continue;
        }
        std::printf("seed %" PRIu64 " kernel %u: from sm_%u machine code: %s\n", Seed, K, Arch, WhyB.c_str());
        ++Differ;
        continue;
      }
      sameNaNs(B, Grid * Block);
      if (hw != Want.end() && hw->second != fnv(B)) {
        std::printf("seed %" PRIu64 " kernel %u: from sm_%u machine code differs from NVIDIA's hardware\n", Seed, K,
                    Arch);
        ++HwDiffer;
      }
      if (A != B) {
        ++Differ;
        unsigned N = 0;
        for (size_t W = 0; W < A.size(); ++W)
          if (A[W] != B[W] && N++ < 4)
            std::printf("seed %" PRIu64 " kernel %u (block %u): %s: PTX %016" PRIx64 " sm_%u %016" PRIx64 "\n", Seed, K,
                        Block, slotName(W, Grid * Block).c_str(), A[W], Arch, B[W]);
        std::printf("seed %" PRIu64 " kernel %u: %u words differ\n", Seed, K, N);
        if (!Dump.empty() && !Dumped) {
          std::ofstream(Dump + "/seed" + std::to_string(Seed) + ".ptx") << M.Ptx;
          Dumped = true;
        }
      }
    }
    cuModuleUnload(MP);
    if (MS)
      cuModuleUnload(MS);
  }
  if (Rec)
    std::fclose(Rec);
  if (WordsOut)
    std::fclose(WordsOut);
  std::printf("difffuzz sm_%u: %u kernels, %u differ (%u more known), %u refused by the front end, %u modules refused by "
              "ptxas%s\n",
              Arch, Ran, Differ, KnownSeen, Refused, PtxasRefused,
              Want.empty() ? "" : (", " + std::to_string(HwDiffer) + " differ from the hardware").c_str());
  bool Fail = Differ || HwDiffer || PtxasRefused;
  std::printf("difffuzz: %s\n", Fail ? "FAIL" : "PASS");
  return Fail ? 1 : 0;
}
