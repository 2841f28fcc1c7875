#!/usr/bin/env python3
"""Writes the golden-case inputs of the PTX conformance oracle (issue: compiler
conformance). Each family becomes tests/golden/data/<family>.golden: one PTX
module with one kernel per instruction form, and for each kernel its cases
(inputs as 64-bit slots, in hex). tests/golden/runner records NVIDIA's
outputs on real hardware (scripts/golden-record, through the device tool) and
checks ours against them in CI. Deterministic: a fixed seed; rerunning gives
the same files. Usage: tests/golden/gen.py [outdir]
"""
import os, random, struct, sys, math

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
RNG = random.Random(20261203)

# --- values --------------------------------------------------------------------------------------
BITS = {"u8": 8, "s8": 8, "b8": 8, "u16": 16, "s16": 16, "b16": 16, "u32": 32, "s32": 32, "b32": 32,
        "u64": 64, "s64": 64, "b64": 64, "f16": 16, "bf16": 16, "f32": 32, "f64": 64, "f16x2": 32,
        "bf16x2": 32, "pred": 32, "e4m3x2": 16, "e5m2x2": 16}

def f32bits(x): return struct.unpack("<I", struct.pack("<f", x))[0]
def f64bits(x): return struct.unpack("<Q", struct.pack("<d", x))[0]
def f16bits(x): return struct.unpack("<H", struct.pack("<e", x))[0]

def int_edges(t):
    n = BITS[t]
    m = (1 << n) - 1
    v = [0, 1, 2, 3, m, m - 1, 1 << (n - 1), (1 << (n - 1)) - 1, (1 << (n - 1)) + 1, 0x55 & m, 0xAA & m,
         (0x5A5A5A5A5A5A5A5A) & m, 7, 31 & m, 32 & m, 33 & m, 63 & m, 64 & m]
    return list(dict.fromkeys(x & m for x in v))

def f32_edges():
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 3.0, 1e-45, -1e-45, 1.1754942e-38, 1.17549435e-38,
            3.4028235e38, -3.4028235e38, math.inf, -math.inf, math.pi, -math.e, 1e10, 1e-10, 0.1, 100.5,
            16777216.0, 16777217.0, 2147483648.0, -2147483904.0, 4294967296.0, 65504.0, 65520.0, 1e-7]
    b = [f32bits(x) for x in vals] + [0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FA00005, 0x00000001,
                                       0x807FFFFF, 0x3F7FFFFF, 0x3F800001]
    return list(dict.fromkeys(b))

def f64_edges():
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 5e-324, -5e-324, 2.2250738585072014e-308,
            1.7976931348623157e308, math.inf, -math.inf, math.pi, -math.e, 1e300, 1e-300, 0.1,
            9007199254740993.0, 4294967296.5, -2147483648.5, 3.4028235677973366e38, 1e-40]
    b = [f64bits(x) for x in vals] + [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001,
                                       0x7FF4000000000123, 0x000FFFFFFFFFFFFF]
    return list(dict.fromkeys(b))

def f16_edges():
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, 65504.0, -65504.0, 6.1035156e-05, 5.9604645e-08, math.inf,
            -math.inf, 3.140625, 0.099975586, 1000.0, 2048.0, 2049.0]
    b = [f16bits(x) for x in vals] + [0x7E00, 0xFE00, 0x7C01, 0x7D55, 0x0001, 0x83FF, 0x3BFF]
    return list(dict.fromkeys(b))

def bf16_edges():
    b = [f32bits(x) >> 16 for x in [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, 3.0e38, -3.0e38, 1.1754944e-38, math.inf,
                                    -math.inf, 3.140625, 0.1, 256.0, 257.0]] + [0x7FC0, 0xFFC0, 0x7F81, 0x0001, 0x807F]
    return list(dict.fromkeys(b))

def edges(t):
    if t == "f32": return f32_edges()
    if t == "f64": return f64_edges()
    if t == "f16": return f16_edges()
    if t == "bf16": return bf16_edges()
    if t in ("f16x2",): return [a | (b << 16) for a, b in zip(f16_edges(), reversed(f16_edges()))]
    if t in ("bf16x2",): return [a | (b << 16) for a, b in zip(bf16_edges(), reversed(bf16_edges()))]
    if t == "pred": return [0, 1]
    if t in ("e4m3x2", "e5m2x2"): return [0x0000, 0x3C38, 0x7F7E, 0x8001, 0x7B7C, 0xFEFF, 0x4080, 0x0102, 0x7880]
    return int_edges(t)

def rand(t):
    n = BITS[t]
    if t == "pred": return RNG.randrange(2)
    if t == "f32" and RNG.random() < 0.6: return f32bits(RNG.uniform(-1000, 1000) * 2.0 ** RNG.randrange(-20, 20))
    if t == "f64" and RNG.random() < 0.6: return f64bits(RNG.uniform(-1000, 1000) * 2.0 ** RNG.randrange(-60, 60))
    if t == "f16" and RNG.random() < 0.6: return f16bits(RNG.uniform(-100, 100))
    return RNG.getrandbits(n)

def cases(types, count=None, fixed=None):
    """Input rows: every edge value of each operand against a varying partner, then random rows."""
    rows = []
    if not types:
        return [[]] * 4
    lists = [edges(t) if not (fixed and i in fixed) else fixed[i] for i, t in enumerate(types)]
    longest = max(len(l) for l in lists)
    for k in range(longest):
        rows.append([l[k % len(l)] for l in lists])
    for k in range(longest):  # shifted pairing
        rows.append([l[(k * (i + 3) + i) % len(l)] for i, l in enumerate(lists)])
    for _ in range(count if count is not None else 12):
        rows.append([RNG.choice(fixed[i]) if fixed and i in fixed else rand(t) for i, t in enumerate(types)])
    if len(rows) > 48:  # keep every edge value once, then a sample of the rest
        rows = rows[:longest] + RNG.sample(rows[longest:], 48 - min(longest, 36)) if longest < 48 else rows[:48]
    return rows

# --- PTX -----------------------------------------------------------------------------------------
REGTYPE = {"u8": "b16", "s8": "b16", "b8": "b16", "u16": "b16", "s16": "b16", "b16": "b16", "f16": "b16",
           "bf16": "b16", "e4m3x2": "b16", "e5m2x2": "b16", "u32": "b32", "s32": "b32", "b32": "b32",
           "f32": "f32", "f16x2": "b32", "bf16x2": "b32", "u64": "b64", "s64": "b64", "b64": "b64", "f64": "f64",
           "pred": "pred"}
LDST = {"b16": "b16", "b32": "b32", "f32": "f32", "b64": "b64", "f64": "f64"}

class Kernel:
    def __init__(self, name, ins, outs, body, rows, block=64, approx=None, extra_regs="", prelude="", tex=None):
        self.name, self.ins, self.outs, self.body, self.rows = name, ins, outs, body, rows
        self.block, self.approx, self.extra_regs, self.prelude = block, approx, extra_regs, prelude
        self.tex = tex  # the runner passes a texture object of this kind as a fourth parameter (runner.cpp)

    def ptx(self):
        L = ([self.prelude] if self.prelude else []) + [
             f".visible .entry {self.name}(.param .u64 pin, .param .u64 pout, .param .u32 n"
             + (", .param .u64 ptex)" if self.tex else ")"), "{",
             "  .reg .pred %q<2>;", "  .reg .b32 %t<6>;", "  .reg .b64 %ta<6>;"]
        for i, t in enumerate(self.ins):
            L.append(f"  .reg .{REGTYPE[t]} %a{i};")
            if t == "pred": L.append(f"  .reg .b32 %la{i};")
        for i, t in enumerate(self.outs):
            L.append(f"  .reg .{REGTYPE[t]} %d{i};")
            if t == "pred": L.append(f"  .reg .b32 %ld{i};")
        if self.extra_regs: L.append("  " + self.extra_regs)
        L += ["  mov.u32 %t0, %ctaid.x;", "  mov.u32 %t1, %ntid.x;", "  mov.u32 %t2, %tid.x;",
              "  mad.lo.u32 %t3, %t0, %t1, %t2;", "  ld.param.u32 %t4, [n];", "  setp.ge.u32 %q0, %t3, %t4;",
              "  @%q0 bra DONE;", "  ld.param.u64 %ta0, [pin];", "  ld.param.u64 %ta1, [pout];"] + (["  ld.param.u64 %ta5, [ptex];"] if self.tex else []) + [
              f"  mul.wide.u32 %ta2, %t3, {8 * max(1, len(self.ins))};", "  add.u64 %ta3, %ta0, %ta2;",
              f"  mul.wide.u32 %ta2, %t3, {8 * len(self.outs)};", "  add.u64 %ta4, %ta1, %ta2;"]
        for i, t in enumerate(self.ins):
            r = REGTYPE[t]
            if r == "pred":
                L += [f"  ld.global.u32 %la{i}, [%ta3+{8 * i}];", f"  setp.ne.u32 %a{i}, %la{i}, 0;"]
            else:
                L.append(f"  ld.global.{LDST[r]} %a{i}, [%ta3+{8 * i}];")
        L += ["  " + s for s in self.body]
        for i, t in enumerate(self.outs):
            r = REGTYPE[t]
            if r == "pred":
                L += [f"  selp.u32 %ld{i}, 1, 0, %d{i};", f"  st.global.u32 [%ta4+{8 * i}], %ld{i};"]
            else:
                L.append(f"  st.global.{LDST[r]} [%ta4+{8 * i}], %d{i};")
        L += ["DONE:", "  ret;", "}"]
        return "\n".join(L)

FAMILIES = {}
def family(name):
    FAMILIES.setdefault(name, [])
    return FAMILIES[name]

NAMES = set()
def add(fam, name, ins, outs, body, rows=None, **kw):
    name = "t_" + name.replace(".", "_").replace("::", "_")
    if name in NAMES:  # one kernel per form (a module cannot define a name twice)
        return
    NAMES.add(name)
    if rows is None: rows = cases(ins)
    family(fam).append(Kernel(name, ins, outs, body if isinstance(body, list) else [body], rows, **kw))

INTS = ["u16", "s16", "u32", "s32", "u64", "s64"]
def btype(t): return "b" + t[1:]

# --- integer arithmetic ---------------------------------------------------------------------------
for t in INTS:
    for op in ["add", "sub", "mul.lo", "mul.hi", "min", "max", "div", "rem"]:
        rows = cases([t, t])
        if op in ("div", "rem"):  # division by zero is undefined in PTX: keep divisors non-zero
            rows = [[a, b if b else 1] for a, b in rows]
            if t[0] == "s":  # INT_MIN / -1 overflows: undefined as well
                m = (1 << BITS[t]) - 1
                rows = [[a, b] for a, b in rows if not (a == 1 << (BITS[t] - 1) and b == m)]
        add("int", f"{op}.{t}", [t, t], [t], f"{op}.{t} %d0, %a0, %a1;", rows)
    add("int", f"mad.lo.{t}", [t, t, t], [t], f"mad.lo.{t} %d0, %a0, %a1, %a2;")
    add("int", f"mad.hi.{t}", [t, t, t], [t], f"mad.hi.{t} %d0, %a0, %a1, %a2;")
    if t[0] == "s":
        add("int", f"abs.{t}", [t], [t], f"abs.{t} %d0, %a0;")
        add("int", f"neg.{t}", [t], [t], f"neg.{t} %d0, %a0;")
    if BITS[t] < 64:
        w = t[0] + str(BITS[t] * 2)
        add("int", f"mul.wide.{t}", [t, t], [w], f"mul.wide.{t} %d0, %a0, %a1;")
        add("int", f"mad.wide.{t}", [t, t, w], [w], f"mad.wide.{t} %d0, %a0, %a1, %a2;")
add("int", "add.sat.s32", ["s32", "s32"], ["s32"], "add.sat.s32 %d0, %a0, %a1;")
add("int", "sub.sat.s32", ["s32", "s32"], ["s32"], "sub.sat.s32 %d0, %a0, %a1;")
add("int", "mad.hi.sat.s32", ["s32", "s32", "s32"], ["s32"], "mad.hi.sat.s32 %d0, %a0, %a1, %a2;")
for t in ["u32", "s32"]:
    add("int", f"mul24.lo.{t}", [t, t], [t], f"mul24.lo.{t} %d0, %a0, %a1;")
    add("int", f"mul24.hi.{t}", [t, t], [t], f"mul24.hi.{t} %d0, %a0, %a1;")
    add("int", f"mad24.lo.{t}", [t, t, t], [t], f"mad24.lo.{t} %d0, %a0, %a1, %a2;")
    add("int", f"sad.{t}", [t, t, t], [t], f"sad.{t} %d0, %a0, %a1, %a2;")
for a in ["u32", "s32"]:
    for b in ["u32", "s32"]:
        add("int", f"dp4a.{a}.{b}", ["b32", "b32", "s32" if "s" in a + b else "u32"], ["s32" if "s" in a + b else "u32"],
            f"dp4a.{a}.{b} %d0, %a0, %a1, %a2;")
        add("int", f"dp2a.lo.{a}.{b}", ["b32", "b32", "s32" if "s" in a + b else "u32"], ["s32" if "s" in a + b else "u32"],
            f"dp2a.lo.{a}.{b} %d0, %a0, %a1, %a2;")

# --- carries -------------------------------------------------------------------------------------
for t in ["u32", "s32", "u64", "s64"]:
    add("carry", f"add.cc.addc.{t}", [t, t, t, t], [t, t], [f"add.cc.{t} %d0, %a0, %a1;", f"addc.{t} %d1, %a2, %a3;"])
    add("carry", f"sub.cc.subc.{t}", [t, t, t, t], [t, t], [f"sub.cc.{t} %d0, %a0, %a1;", f"subc.{t} %d1, %a2, %a3;"])
    add("carry", f"sub.cc.addc.{t}", [t, t, t, t], [t, t], [f"sub.cc.{t} %d0, %a0, %a1;", f"addc.{t} %d1, %a2, %a3;"])
    add("carry", f"add.cc.subc.{t}", [t, t, t, t], [t, t], [f"add.cc.{t} %d0, %a0, %a1;", f"subc.{t} %d1, %a2, %a3;"])
    add("carry", f"addc.cc.chain.{t}", [t, t, t, t, t, t], [t, t, t],
        [f"add.cc.{t} %d0, %a0, %a1;", f"addc.cc.{t} %d1, %a2, %a3;", f"addc.{t} %d2, %a4, %a5;"])
    add("carry", f"subc.cc.chain.{t}", [t, t, t, t, t, t], [t, t, t],
        [f"sub.cc.{t} %d0, %a0, %a1;", f"subc.cc.{t} %d1, %a2, %a3;", f"subc.{t} %d2, %a4, %a5;"])
    add("carry", f"mad.lo.cc.madc.hi.{t}", [t, t, t, t], [t, t],
        [f"mad.lo.cc.{t} %d0, %a0, %a1, %a2;", f"madc.hi.{t} %d1, %a0, %a1, %a3;"])

# --- bits ----------------------------------------------------------------------------------------
SHIFTS = [0, 1, 7, 15, 16, 31, 32, 33, 63, 64, 65, 255, 256, 0xFFFFFFFF]
for b in ["b16", "b32", "b64"]:
    for op in ["and", "or", "xor"]:
        add("bits", f"{op}.{b}", [b, b], [b], f"{op}.{b} %d0, %a0, %a1;")
    add("bits", f"not.{b}", [b], [b], f"not.{b} %d0, %a0;")
    add("bits", f"cnot.{b}", [b], [b], f"cnot.{b} %d0, %a0;")
    add("bits", f"shl.{b}", [b, "u32"], [b], f"shl.{b} %d0, %a0, %a1;", cases([b, "u32"], fixed={1: SHIFTS}))
for t in ["u16", "s16", "u32", "s32", "u64", "s64"]:
    add("bits", f"shr.{t}", [t, "u32"], [t], f"shr.{t} %d0, %a0, %a1;", cases([t, "u32"], fixed={1: SHIFTS}))
for b in ["b32", "b64"]:
    add("bits", f"popc.{b}", [b], ["u32"], f"popc.{b} %d0, %a0;")
    add("bits", f"clz.{b}", [b], ["u32"], f"clz.{b} %d0, %a0;")
    add("bits", f"brev.{b}", [b], [b], f"brev.{b} %d0, %a0;")
for t in ["u32", "s32", "u64", "s64"]:
    add("bits", f"bfind.{t}", [t], ["u32"], f"bfind.{t} %d0, %a0;")
    add("bits", f"bfind.shiftamt.{t}", [t], ["u32"], f"bfind.shiftamt.{t} %d0, %a0;")
    add("bits", f"bfe.{t}", [t, "u32", "u32"], [t], f"bfe.{t} %d0, %a0, %a1, %a2;",
        cases([t, "u32", "u32"], fixed={1: [0, 1, 8, 31, 32, 63, 64, 200, 255, 256], 2: [0, 1, 8, 24, 31, 32, 33, 64, 255, 300]}))
for b in ["b32", "b64"]:
    add("bits", f"bfi.{b}", [b, b, "u32", "u32"], [b], f"bfi.{b} %d0, %a0, %a1, %a2, %a3;",
        cases([b, b, "u32", "u32"], fixed={2: [0, 1, 8, 31, 32, 63, 64, 255, 256], 3: [0, 1, 8, 24, 31, 32, 33, 64, 255]}))
for mode in ["", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"]:
    add("bits", f"prmt.b32{mode}", ["b32", "b32", "b32"], ["b32"], f"prmt.b32{mode} %d0, %a0, %a1, %a2;")
for d in ["l", "r"]:
    for m in ["wrap", "clamp"]:
        add("bits", f"shf.{d}.{m}.b32", ["b32", "b32", "u32"], ["b32"], f"shf.{d}.{m}.b32 %d0, %a0, %a1, %a2;",
            cases(["b32", "b32", "u32"], fixed={2: SHIFTS}))
for lut in [0x00, 0x96, 0xE8, 0xCA, 0xF0, 0x80, 0xFE, 0x6A]:
    add("bits", f"lop3.b32.{lut:02x}", ["b32", "b32", "b32"], ["b32"], f"lop3.b32 %d0, %a0, %a1, %a2, {lut};")

# --- 32/64-bit float -------------------------------------------------------------------------------
for t in ["f32", "f64"]:
    for rnd in [".rn", ".rz", ".rm", ".rp"]:
        for ftz in ([""] if t == "f64" else ["", ".ftz"]):
            for op in ["add", "sub", "mul"]:
                add("float", f"{op}{rnd}{ftz}.{t}", [t, t], [t], f"{op}{rnd}{ftz}.{t} %d0, %a0, %a1;")
            add("float", f"fma{rnd}{ftz}.{t}", [t, t, t], [t], f"fma{rnd}{ftz}.{t} %d0, %a0, %a1, %a2;")
            add("float", f"div{rnd}{ftz}.{t}", [t, t], [t], f"div{rnd}{ftz}.{t} %d0, %a0, %a1;")
            add("float", f"rcp{rnd}{ftz}.{t}", [t], [t], f"rcp{rnd}{ftz}.{t} %d0, %a0;")
            add("float", f"sqrt{rnd}{ftz}.{t}", [t], [t], f"sqrt{rnd}{ftz}.{t} %d0, %a0;")
    if t == "f32":
        for sat in ["", ".sat"]:
            add("float", f"add.rn.ftz{sat}.f32", [t, t], [t], f"add.rn.ftz{sat}.f32 %d0, %a0, %a1;")
            add("float", f"mul{sat}.f32", [t, t], [t], f"mul{sat}.f32 %d0, %a0, %a1;")
            add("float", f"fma.rn{sat}.f32", [t, t, t], [t], f"fma.rn{sat}.f32 %d0, %a0, %a1, %a2;")
    for op in ["min", "max"]:
        for ftz in ([""] if t == "f64" else ["", ".ftz"]):
            add("float", f"{op}{ftz}.{t}", [t, t], [t], f"{op}{ftz}.{t} %d0, %a0, %a1;")
        if t == "f32":
            add("float", f"{op}.NaN.f32", [t, t], [t], f"{op}.NaN.f32 %d0, %a0, %a1;")
    for op in ["abs", "neg"]:
        for ftz in ([""] if t == "f64" else ["", ".ftz"]):
            add("float", f"{op}{ftz}.{t}", [t], [t], f"{op}{ftz}.{t} %d0, %a0;")
    add("float", f"copysign.{t}", [t, t], [t], f"copysign.{t} %d0, %a0, %a1;")
    for p in ["finite", "infinite", "number", "notanumber", "normal", "subnormal"]:
        add("float", f"testp.{p}.{t}", [t], ["pred"], f"testp.{p}.{t} %d0, %a0;")
# Approximate instructions: compared within the PTX ISA's stated error bounds.
APPROX = [("rcp.approx.f32", "rel:1.2e-7"), ("rcp.approx.ftz.f32", "rel:1.2e-7"), ("sqrt.approx.f32", "rel:2.4e-7"),
          ("sqrt.approx.ftz.f32", "rel:2.4e-7"), ("rsqrt.approx.f32", "rel:1.3e-7"), ("rsqrt.approx.ftz.f32", "rel:1.3e-7"),
          ("ex2.approx.f32", "rel:2.0e-7"), ("ex2.approx.ftz.f32", "rel:2.0e-7"), ("lg2.approx.f32", "abs:1.9e-7"),
          ("lg2.approx.ftz.f32", "abs:1.9e-7"), ("sin.approx.f32", "abs:5.1e-7"), ("cos.approx.f32", "abs:5.1e-7"),
          ("sin.approx.ftz.f32", "abs:5.1e-7"), ("cos.approx.ftz.f32", "abs:5.1e-7"), ("tanh.approx.f32", "rel:5.0e-4"),
          ("rcp.approx.ftz.f64", "rel:1e-5"), ("rsqrt.approx.f64", "rel:1e-5")]
for ins, bound in APPROX:
    t = ins.split(".")[-1]
    rows = cases([t])
    if ins.startswith(("sin", "cos")):  # the bound holds in [-pi, pi]
        rows = [[f32bits(RNG.uniform(-math.pi, math.pi))] for _ in range(24)] + [[0], [0x80000000]]
    if ins.startswith("lg2"):  # the absolute bound holds in [0.5, 2]
        rows = [[f32bits(RNG.uniform(0.5, 2.0))] for _ in range(24)] + [[f32bits(1.0)], [0], [0x7F800000]]
    add("approx", ins, [t], [t], f"{ins} %d0, %a0;", rows, approx=bound)
for ins, bound in [("div.approx.f32", "rel:2.4e-7"), ("div.approx.ftz.f32", "rel:2.4e-7"), ("div.full.f32", "rel:2.4e-7"),
                   ("div.full.ftz.f32", "rel:2.4e-7")]:
    rows = [[f32bits(RNG.uniform(-100, 100)), f32bits(RNG.uniform(0.01, 100) * RNG.choice([-1, 1]))] for _ in range(24)]
    add("approx", ins, ["f32", "f32"], ["f32"], f"{ins} %d0, %a0, %a1;", rows, approx=bound)

# --- comparisons and selects --------------------------------------------------------------------------
ICMP = ["eq", "ne", "lt", "le", "gt", "ge"]
UCMP = ["lo", "ls", "hi", "hs"]
FCMP = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]
for t in ["s16", "u16", "s32", "u32", "s64", "u64"]:
    for c in ICMP + (UCMP if t[0] == "u" else []):
        add("compare", f"setp.{c}.{t}", [t, t], ["pred"], f"setp.{c}.{t} %d0, %a0, %a1;")
for t in ["f32", "f64"]:
    for c in FCMP:
        add("compare", f"setp.{c}.{t}", [t, t], ["pred"], f"setp.{c}.{t} %d0, %a0, %a1;")
    for c in ["lt", "gtu", "nan"]:
        add("compare", f"set.{c}.u32.{t}", [t, t], ["u32"], f"set.{c}.u32.{t} %d0, %a0, %a1;")
        add("compare", f"set.{c}.f32.{t}", [t, t], ["f32"], f"set.{c}.f32.{t} %d0, %a0, %a1;")
for c in ["eq", "lt", "gtu", "nan", "ge"]:
    add("compare", f"setp.{c}.ftz.f32", ["f32", "f32"], ["pred"], f"setp.{c}.ftz.f32 %d0, %a0, %a1;")
for c, bop in [("lt", "and"), ("ne", "or"), ("ge", "xor")]:
    add("compare", f"setp.{c}.{bop}.s32", ["s32", "s32", "pred"], ["pred"], f"setp.{c}.{bop}.s32 %d0, %a0, %a1, %a2;")
    add("compare", f"setp.{c}.{bop}.not.f32", ["f32", "f32", "pred"], ["pred", "pred"],
        f"setp.{c}.{bop}.f32 %d0|%d1, %a0, %a1, !%a2;")
for t in ["f16", "bf16"]:
    for c in ["eq", "lt", "gtu", "nan", "ne"]:
        add("compare", f"setp.{c}.{t}", [t, t], ["pred"], f"setp.{c}.{t} %d0, %a0, %a1;")
for t in ["f16x2", "bf16x2"]:
    for c in ["eq", "lt", "gtu", "nan", "ne", "ge"]:
        add("compare", f"set.{c}.u32.{t}", [t, t], ["u32"], f"set.{c}.u32.{t} %d0, %a0, %a1;")
        add("compare", f"set.{c}.{t}.{t}", [t, t], [t], f"set.{c}.{t}.{t} %d0, %a0, %a1;")
    add("compare", f"setp.lt.{t}.pair", [t, t], ["pred", "pred"], f"setp.lt.{t} %d0|%d1, %a0, %a1;")
for t in ["b16", "b32", "b64", "f32", "f64"]:
    add("compare", f"selp.{t}", [t, t, "pred"], [t], f"selp.{t} %d0, %a0, %a1, %a2;")
for t in ["b32", "f32"]:
    add("compare", f"slct.{t}.s32", [t, t, "s32"], [t], f"slct.{t}.s32 %d0, %a0, %a1, %a2;")
    add("compare", f"slct.{t}.f32", [t, t, "f32"], [t], f"slct.{t}.f32 %d0, %a0, %a1, %a2;")

# --- conversions -------------------------------------------------------------------------------------
INT_T = ["u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64"]
for d in INT_T:
    for s in INT_T:
        if d != s:
            rows = cases([s])
            add("cvt", f"cvt.{d}.{s}", [s], [d], f"cvt.{d}.{s} %d0, %a0;", rows)
            # .sat only where the destination cannot hold every source value
            if BITS[d] < BITS[s] or (d[0] == "u" and s[0] == "s") or (d[0] == "s" and s[0] == "u" and BITS[d] <= BITS[s]):
                add("cvt", f"cvt.sat.{d}.{s}", [s], [d], f"cvt.sat.{d}.{s} %d0, %a0;", rows)
for f in ["f16", "bf16", "f32", "f64"]:
    for i in INT_T:
        for r in [".rni", ".rzi", ".rmi", ".rpi"]:
            if not (f == "bf16" and BITS[i] == 8):
                add("cvt", f"cvt{r}.{i}.{f}", [f], [i], f"cvt{r}.{i}.{f} %d0, %a0;")
        for r in [".rn", ".rz", ".rm", ".rp"]:
            if not (f == "bf16" and BITS[i] == 8):
                add("cvt", f"cvt{r}.{f}.{i}", [i], [f], f"cvt{r}.{f}.{i} %d0, %a0;")
for d in ["f16", "bf16", "f32", "f64"]:
    for s in ["f16", "bf16", "f32", "f64"]:
        if d == s:
            for r in [".rni", ".rzi", ".rmi", ".rpi"]:
                if d in ("f32", "f64"):
                    add("cvt", f"cvt{r}.{d}.{s}", [s], [d], f"cvt{r}.{d}.{s} %d0, %a0;")
            continue
        narrowing = ["f16", "bf16", "f32", "f64"].index(d) < ["f16", "bf16", "f32", "f64"].index(s) or (d, s) in (("bf16", "f16"), ("f16", "bf16"))
        if narrowing:
            for r in [".rn", ".rz", ".rm", ".rp"]:
                if d == "bf16" and s == "f16": continue
                add("cvt", f"cvt{r}.{d}.{s}", [s], [d], f"cvt{r}.{d}.{s} %d0, %a0;")
        else:
            add("cvt", f"cvt.{d}.{s}", [s], [d], f"cvt.{d}.{s} %d0, %a0;")
for r in ["", ".ftz"]:
    add("cvt", f"cvt{r}.sat.f32.f32", ["f32"], ["f32"], f"cvt{r}.sat.f32.f32 %d0, %a0;")
    add("cvt", f"cvt.rn{r}.f16.f32", ["f32"], ["f16"], f"cvt.rn{r}.f16.f32 %d0, %a0;")
add("cvt", "cvt.rn.f16x2.f32", ["f32", "f32"], ["f16x2"], "cvt.rn.f16x2.f32 %d0, %a0, %a1;")
add("cvt", "cvt.rz.f16x2.f32", ["f32", "f32"], ["f16x2"], "cvt.rz.f16x2.f32 %d0, %a0, %a1;")
add("cvt", "cvt.rn.bf16x2.f32", ["f32", "f32"], ["bf16x2"], "cvt.rn.bf16x2.f32 %d0, %a0, %a1;")
add("cvt", "cvt.rn.relu.bf16x2.f32", ["f32", "f32"], ["bf16x2"], "cvt.rn.relu.bf16x2.f32 %d0, %a0, %a1;")
add("cvt", "cvt.rna.tf32.f32", ["f32"], ["b32"], "cvt.rna.tf32.f32 %d0, %a0;")
for e in ["e4m3x2", "e5m2x2"]:
    add("cvt", f"cvt.rn.satfinite.{e}.f32", ["f32", "f32"], [e], f"cvt.rn.satfinite.{e}.f32 %d0, %a0, %a1;")
    add("cvt", f"cvt.rn.satfinite.relu.{e}.f32", ["f32", "f32"], [e], f"cvt.rn.satfinite.relu.{e}.f32 %d0, %a0, %a1;")
    add("cvt", f"cvt.rn.f16x2.{e}", [e], ["f16x2"], f"cvt.rn.f16x2.{e} %d0, %a0;")
    add("cvt", f"cvt.rn.satfinite.{e}.f16x2", ["f16x2"], [e], f"cvt.rn.satfinite.{e}.f16x2 %d0, %a0;")
for d, s in [("u8", "s32"), ("s8", "s32")]:
    add("cvt", f"cvt.pack.sat.{d}.{s}.b32", [s, s, "b32"], ["b32"], f"cvt.pack.sat.{d}.{s}.b32 %d0, %a0, %a1, %a2;")
for d, s in [("u16", "s32"), ("s16", "s32")]:
    add("cvt", f"cvt.pack.sat.{d}.{s}", [s, s], ["b32"], f"cvt.pack.sat.{d}.{s} %d0, %a0, %a1;")

# --- half precision --------------------------------------------------------------------------------
for t in ["f16", "f16x2", "bf16", "bf16x2"]:
    ftzs = ["", ".ftz"] if t.startswith("f16") else [""]
    for ftz in ftzs:
        for op in ["add", "sub", "mul"]:
            add("half", f"{op}.rn{ftz}.{t}", [t, t], [t], f"{op}.rn{ftz}.{t} %d0, %a0, %a1;")
        add("half", f"fma.rn{ftz}.{t}", [t, t, t], [t], f"fma.rn{ftz}.{t} %d0, %a0, %a1, %a2;")
    if t.startswith("f16"):
        add("half", f"add.sat.{t}", [t, t], [t], f"add.sat.{t} %d0, %a0, %a1;")
        add("half", f"fma.rn.sat.{t}", [t, t, t], [t], f"fma.rn.sat.{t} %d0, %a0, %a1, %a2;")
    for op in ["min", "max"]:
        add("half", f"{op}.{t}", [t, t], [t], f"{op}.{t} %d0, %a0, %a1;")
        add("half", f"{op}.NaN.{t}", [t, t], [t], f"{op}.NaN.{t} %d0, %a0, %a1;")
    for op in ["neg", "abs"]:
        add("half", f"{op}.{t}", [t], [t], f"{op}.{t} %d0, %a0;")
    add("half", f"fma.rn.relu.{t}", [t, t, t], [t], f"fma.rn.relu.{t} %d0, %a0, %a1, %a2;")
add("approx", "ex2.approx.f16", ["f16"], ["f16"], "ex2.approx.f16 %d0, %a0;", approx="rel:1e-3")
add("approx", "ex2.approx.f16x2", ["f16x2"], ["f16x2"], "ex2.approx.f16x2 %d0, %a0;", approx="rel:1e-3")
add("approx", "tanh.approx.f16", ["f16"], ["f16"], "tanh.approx.f16 %d0, %a0;", approx="rel:2e-3")

# --- moves and vectors ---------------------------------------------------------------------------------
add("move", "mov.b32.pack.b16", ["b16", "b16"], ["b32"], "mov.b32 %d0, {%a0, %a1};")
add("move", "mov.b64.pack.b32", ["b32", "b32"], ["b64"], "mov.b64 %d0, {%a0, %a1};")
add("move", "mov.b32.unpack.b16", ["b32"], ["b16", "b16"], "mov.b32 {%d0, %d1}, %a0;")
add("move", "mov.b64.unpack.b32", ["b64"], ["b32", "b32"], "mov.b64 {%d0, %d1}, %a0;")
add("move", "mov.b64.unpack.b16", ["b64"], ["b16", "b16", "b16", "b16"], "mov.b64 {%d0, %d1, %d2, %d3}, %a0;")
add("move", "mov.v2.swap.b32", ["b32", "b32"], ["b32", "b32"],
    ["mov.b32 %d0, %a0;", "mov.b32 %d1, %a1;", "mov.v2.b32 {%d0, %d1}, {%d1, %d0};"])
add("move", "mov.v4.rotate.b32", ["b32", "b32"], ["b32", "b32"],
    ["mov.b32 %d0, %a0;", "mov.b32 %d1, %a1;", "mov.v2.u32 {%d1, %d0}, {%d0, %d1};"])

# --- atomics (each thread its own word, in its output slot) -------------------------------------------
def atomic(name, t, op, extra_in=0):
    """The atomic's word is the thread's output slot 1: set to input 0, updated
    with input 1 (and 2 for cas); slot 0 gets the old value."""
    ins = [t] * (2 + extra_in)
    w = LDST[REGTYPE[t]]
    body = ["add.u64 %ta5, %ta4, 8;", f"st.global.{w} [%ta5], %a0;",
            f"atom.global.{op}.{t} %d0, [%ta5], %a1{', %a2' if extra_in else ''};", f"ld.global.{w} %d1, [%ta5];"]
    family("atomic").append(Kernel("t_" + name.replace(".", "_"), ins, [t, t], body, cases(ins)))
for t in ["u32", "s32", "u64", "s64"]:
    for op in ["add", "min", "max"]:
        if not (op == "add" and t == "s64"):
            atomic(f"atom.{op}.{t}", t, op)
for b in ["b32", "b64"]:
    for op in ["and", "or", "xor", "exch"]:
        atomic(f"atom.{op}.{b}", b, op)
    atomic(f"atom.cas.{b}", b, "cas", extra_in=1)
for op in ["inc", "dec"]:
    atomic(f"atom.{op}.u32", "u32", op)
for t in ["f32", "f64"]:
    atomic(f"atom.add.{t}", t, "add")
atomic("atom.add.noftz.f16", "f16", "add.noftz")
atomic("atom.add.noftz.bf16", "bf16", "add.noftz")
atomic("atom.add.noftz.f16x2", "f16x2", "add.noftz")

# --- warp collectives (one warp per 32 rows; lanes outside the mask skip the instruction) --------------
def lane_rows(types, warps=3):
    rows = []
    for w in range(warps):
        for lane in range(32):
            rows.append([rand(t) if t != "u32lane" else lane for t in types])
    return rows
def warp(name, mask, ins, outs, body, rows):
    """Lanes outside \p mask branch around the instruction (their outputs stay 0)."""
    init = [f"setp.eq.u32 %d{i}, 1, 0;" if t == "pred" else f"mov.b{BITS[t] if BITS[t] >= 16 else 16} %d{i}, 0;"
            for i, t in enumerate(outs)]
    pre = ["mov.u32 %t5, %laneid;", f"mov.u32 %t4, {mask:#x};", "shr.b32 %t4, %t4, %t5;", "and.b32 %t4, %t4, 1;",
           "setp.eq.u32 %q1, %t4, 0;", "@%q1 bra SKIP;"]
    family("warp").append(Kernel("t_" + name.replace(".", "_"), ins, outs, init + pre + body + ["SKIP:"], rows, block=32))

MASKS = [0xFFFFFFFF, 0x0000FFFF, 0x55555555, 0x80000001, 0x0F0F00F0]
for mi, m in enumerate(MASKS):
    for mode in ["up", "down", "bfly", "idx"]:
        for b, c in [(1, 0x1F if mode != "up" else 0), (5, 0x1F if mode != "up" else 0), (3, 0x1C03 if mode != "up" else 0x1800), (16, 0x101F if mode != "up" else 0x1000)]:
            name = f"shfl.sync.{mode}.b32.m{mi}.b{b}.c{c:x}"
            body = [f"shfl.sync.{mode}.b32 %d0|%d1, %a0, {b}, {c:#x}, {m:#x};"]
            warp(name, m, ["b32"], ["b32", "pred"], body, lane_rows(["b32"]))
    warp(f"shfl.sync.idx.b32.lane.m{mi}", m, ["b32", "u32"], ["b32"],
         [f"shfl.sync.idx.b32 %d0, %a0, %a1, 0x1f, {m:#x};"], [[RNG.getrandbits(32), RNG.randrange(64)] for _ in range(96)])
    for v in ["all", "any", "uni"]:
        warp(f"vote.sync.{v}.pred.m{mi}", m, ["pred"], ["pred"], [f"vote.sync.{v}.pred %d0, %a0, {m:#x};"],
             [[RNG.random() < (0.9 if v == "all" else 0.1)] for _ in range(96)])
    warp(f"vote.sync.ballot.b32.m{mi}", m, ["pred"], ["b32"], [f"vote.sync.ballot.b32 %d0, %a0, {m:#x};"],
         [[RNG.randrange(2)] for _ in range(96)])
    for t in ["b32", "b64"]:
        warp(f"match.any.sync.{t}.m{mi}", m, [t], ["b32"], [f"match.any.sync.{t} %d0, %a0, {m:#x};"],
             [[RNG.randrange(4)] for _ in range(96)])
        warp(f"match.all.sync.{t}.m{mi}", m, [t], ["b32", "pred"], [f"match.all.sync.{t} %d0|%d1, %a0, {m:#x};"],
             [[RNG.choice([7, 7, 7, 8])] for _ in range(96)])
    for op, t in [("add", "u32"), ("add", "s32"), ("min", "u32"), ("min", "s32"), ("max", "u32"), ("max", "s32"),
                  ("and", "b32"), ("or", "b32"), ("xor", "b32")]:
        warp(f"redux.sync.{op}.{t}.m{mi}", m, [t], [t], [f"redux.sync.{op}.{t} %d0, %a0, {m:#x};"], lane_rows([t]))
# activemask under divergence: lanes split by a data-dependent branch
family("warp").append(Kernel("t_activemask_divergent", ["pred"], ["b32"],
    ["@%a0 bra ODD;", "activemask.b32 %d0;", "bra.uni JOIN;", "ODD:", "activemask.b32 %d0;", "JOIN:"],
    [[RNG.randrange(2)] for _ in range(96)], block=32))

# --- matrix multiply-accumulate (mma.sync: each lane holds its fragments) ----------------------
# Inputs are small values (integers and halves) so that every product and sum
# is exact in the accumulator: the results do not depend on summation order.
F16_NICE = [f16bits(x) for x in [0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 1.5]]
BF16_NICE = [f32bits(x) >> 16 for x in [0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 1.5]]
E4M3_NICE = [0x00, 0x38, 0xB8, 0x40, 0xC0, 0x30, 0xB0, 0x44, 0xC4]
E5M2_NICE = [0x00, 0x3C, 0xBC, 0x40, 0xC0, 0x38, 0xB8, 0x42, 0xC2]
def packed(vals, per):
    w = 32 // per
    v = 0
    for i in range(per):
        v |= RNG.choice(vals) << (w * i)
    return v
def frag(kind):
    if kind == "f16": return packed(F16_NICE, 2)
    if kind == "bf16": return packed(BF16_NICE, 2)
    if kind == "e4m3": return packed(E4M3_NICE, 4)
    if kind == "e5m2": return packed(E5M2_NICE, 4)
    if kind in ("s8", "u8"): return RNG.getrandbits(32)
    if kind in ("s4", "u4", "b1"): return RNG.getrandbits(32)
    if kind == "tf32": return f32bits(RNG.choice([0.0, 1.0, -1.0, 2.0, 0.5, -0.5, 3.0, -2.0]))
    if kind == "f64": return f64bits(RNG.choice([0.0, 1.0, -1.0, 2.0, 0.5, -0.5, 3.0, -2.0]))
    if kind == "f32": return f32bits(RNG.choice([0.0, 1.0, -1.0, 4.0, 0.5, -8.0, 16.0, 0.25]))
    if kind == "f16acc": return packed(F16_NICE, 2)
    if kind in ("s32",): return RNG.getrandbits(32) & 0xFFFF
MMA = [  # shape, dtype, atype, btype, ctype, nA, nB, nC(=nD), fragment kinds, extra modifiers
    ("m16n8k8", "f32", "f16", "f16", "f32", 2, 1, 4, ("f16", "f16", "f32"), ""),
    ("m16n8k8", "f16", "f16", "f16", "f16", 2, 1, 2, ("f16", "f16", "f16acc"), ""),
    ("m16n8k16", "f32", "f16", "f16", "f32", 4, 2, 4, ("f16", "f16", "f32"), ""),
    ("m16n8k16", "f16", "f16", "f16", "f16", 4, 2, 2, ("f16", "f16", "f16acc"), ""),
    ("m16n8k16", "f32", "bf16", "bf16", "f32", 4, 2, 4, ("bf16", "bf16", "f32"), ""),
    ("m16n8k8", "f32", "bf16", "bf16", "f32", 2, 1, 4, ("bf16", "bf16", "f32"), ""),
    ("m16n8k4", "f32", "tf32", "tf32", "f32", 2, 1, 4, ("tf32", "tf32", "f32"), ""),
    ("m16n8k8", "f32", "tf32", "tf32", "f32", 4, 2, 4, ("tf32", "tf32", "f32"), ""),
    ("m8n8k4", "f64", "f64", "f64", "f64", 1, 1, 2, ("f64", "f64", "f64"), ""),
    ("m8n8k16", "s32", "s8", "s8", "s32", 1, 1, 2, ("s8", "s8", "s32"), ""),
    ("m16n8k16", "s32", "s8", "s8", "s32", 2, 1, 4, ("s8", "s8", "s32"), ""),
    ("m16n8k16", "s32", "u8", "s8", "s32", 2, 1, 4, ("u8", "s8", "s32"), ""),
    ("m16n8k32", "s32", "s8", "s8", "s32", 4, 2, 4, ("s8", "s8", "s32"), ""),
    ("m16n8k32", "s32", "u8", "u8", "s32", 4, 2, 4, ("u8", "u8", "s32"), ".satfinite"),
    ("m16n8k32", "s32", "s8", "u8", "s32", 4, 2, 4, ("s8", "u8", "s32"), ""),
    ("m8n8k32", "s32", "s4", "s4", "s32", 1, 1, 2, ("s4", "s4", "s32"), ""),
    ("m16n8k64", "s32", "u4", "u4", "s32", 4, 2, 4, ("u4", "u4", "s32"), ""),
    ("m16n8k256", "s32", "b1", "b1", "s32", 4, 2, 4, ("b1", "b1", "s32"), ".and.popc"),
    ("m16n8k128", "s32", "b1", "b1", "s32", 2, 1, 4, ("b1", "b1", "s32"), ".xor.popc"),
    ("m16n8k32", "f32", "e4m3", "e4m3", "f32", 4, 2, 4, ("e4m3", "e4m3", "f32"), ""),
    ("m16n8k32", "f32", "e5m2", "e4m3", "f32", 4, 2, 4, ("e5m2", "e4m3", "f32"), ""),
    ("m8n8k4", "f32", "f16", "f16", "f32", 2, 2, 8, ("f16", "f16", "f32"), ""),
]
def mma_kernel(fam, shape, dt, at, bt, ct, nA, nB, nC, nD, kinds, extra, valid=True):
    """One mma form: fragments in, D out. The rows are drawn even for a form left out (valid=False)."""
    reg = {"f32": "f32", "f64": "f64", "s32": "s32", "f16": "b32"}
    ins = ["b32"] * (nA + nB) if at != "f64" else ["f64"] * (nA + nB)
    ins += [reg[ct] if ct != "f16" else "b32"] * nC
    outs = [reg[dt] if dt != "f16" else "b32"] * nD
    vec = lambda base, a, n: "{" + ", ".join(f"%{base}{i}" for i in range(a, a + n)) + "}"
    sat = ".satfinite" if "satfinite" in extra else ""
    op = extra.replace(".satfinite", "")
    ins_txt = (f"mma.sync.aligned.{shape}.row.col{sat}.{dt}.{at}.{bt}.{ct}{op} {vec('d', 0, nD)}, {vec('a', 0, nA)}, "
               f"{vec('a', nA, nB)}, {vec('a', nA + nB, nC)};")
    rows = [[frag(kinds[0]) for _ in range(nA)] + [frag(kinds[1]) for _ in range(nB)] + [frag(kinds[2]) for _ in range(nC)]
            for _ in range(96)]
    name = f"mma.{shape}.{dt}.{at}.{bt}.{ct}{sat}{op}"
    if valid:
        family(fam).append(Kernel("t_" + name.replace(".", "_"), ins, outs, [ins_txt], rows, block=32))
for shape, dt, at, bt, ct, nA, nB, nC, kinds, extra in MMA:
    mma_kernel("mma", shape, dt, at, bt, ct, nA, nB, nC, nC, kinds, extra)

# --- operand forms: register plus immediate, vector-typed registers ---------------------------------
add("operand", "add.u32.regimm", ["u32", "u32"], ["u32"], "add.u32 %d0, %a0+3, %a1;")
add("operand", "mov.u32.regimm", ["u32"], ["u32"], "mov.u32 %d0, %a0+-7;")
add("operand", "add.s64.regimm", ["s64", "s64"], ["s64"], "add.s64 %d0, %a0+100, %a1;")
family("operand").append(Kernel("t_mov_v4_vreg_rotate", ["b32", "b32", "b32", "b32"], ["b32", "b32", "b32", "b32"],
    ["mov.v4.b32 %vr, {%a0, %a1, %a2, %a3};", "mov.v4.b32 %vr, {%vr.y, %vr.z, %vr.w, %vr.x};",
     "mov.b32 %d0, %vr.x;", "mov.b32 %d1, %vr.y;", "mov.b32 %d2, %vr.z;", "mov.b32 %d3, %vr.w;"],
    cases(["b32"] * 4), extra_regs=".reg .v4 .b32 %vr;"))
family("operand").append(Kernel("t_ld_st_vreg_v2_u32", ["b32", "b32"], ["b32", "b32"],
    ["add.u64 %ta5, %ta4, 0;", "st.global.v2.u32 [%ta5], {%a0, %a1};", "ld.global.v2.u32 %vq, [%ta5];",
     "mov.b32 %d0, %vq.y;", "mov.b32 %d1, %vq.x;"], cases(["b32", "b32"]), extra_regs=".reg .v2 .u32 %vq;"))

# --- video instructions (PTX ISA 9.7.16): scalar, SIMD2 and SIMD4 ----------------------------------
VBYTES = [0x7F80FF01, 0x80007FFF, 0xFF7F8000, 0x00FF0080, 0x7FFF8000, 0x8000FFFF, 0x01FE7F81, 0xFFFF0001]
VSHIFT = [0, 1, 5, 7, 15, 16, 24, 31, 32, 33, 63, 0xFFFFFFFF, 0x80000001, 0x100]
def vrows(n, shift=False):
    rows = cases(["b32"] * n)
    for k in range(16):
        rows.append([RNG.choice(VBYTES) if RNG.random() < 0.5 else RNG.getrandbits(32) for _ in range(n)])
    if shift:
        rows = [[r[0], VSHIFT[k % len(VSHIFT)] if k % 3 else r[1]] + r[2:] for k, r in enumerate(rows)]
    return rows[:60]
def vadd_(name, text, n):
    add("video", name, ["b32"] * n, ["b32"], text, vrows(n))
SIGNS = ["u32", "s32"]
for op in ["vadd", "vsub", "vabsdiff", "vmin", "vmax"]:
    for d in SIGNS:
        for a in SIGNS:
            for b in SIGNS:
                vadd_(f"{op}.{d}.{a}.{b}", f"{op}.{d}.{a}.{b} %d0, %a0, %a1;", 2)
    for t in ["s32.s32.s32", "u32.s32.u32", "u32.u32.u32", "s32.u32.u32"]:
        vadd_(f"{op}.{t}.sat", f"{op}.{t}.sat %d0, %a0, %a1;", 2)
    for t in ["s32.s32.s32", "u32.u32.u32", "s32.u32.s32"]:
        for op2 in ["add", "min", "max"]:
            vadd_(f"{op}.{t}.{op2}", f"{op}.{t}.{op2} %d0, %a0, %a1, %a2;", 3)
            vadd_(f"{op}.{t}.sat.{op2}", f"{op}.{t}.sat.{op2} %d0, %a0, %a1, %a2;", 3)
    vadd_(f"{op}.s32.s32.u32.sel_b1_h1", f"{op}.s32.s32.u32 %d0, %a0.b1, %a1.h1;", 2)
    vadd_(f"{op}.u32.u32.s32.sel_h0_b3", f"{op}.u32.u32.s32 %d0, %a0.h0, %a1.b3;", 2)
    vadd_(f"{op}.u32.s32.s32.sat.sel_b2_b0", f"{op}.u32.s32.s32.sat %d0, %a0.b2, %a1.b0;", 2)
    for dsel in ["b0", "b1", "b2", "b3", "h0", "h1"]:
        vadd_(f"{op}.s32.s32.s32.sat.dsel_{dsel}", f"{op}.s32.s32.s32.sat %d0.{dsel}, %a0, %a1, %a2;", 3)
        vadd_(f"{op}.u32.u32.u32.sat.dsel_{dsel}", f"{op}.u32.u32.u32.sat %d0.{dsel}, %a0, %a1, %a2;", 3)
    vadd_(f"{op}.u32.s32.u32.dsel_h1", f"{op}.u32.s32.u32 %d0.h1, %a0, %a1.b2, %a2;", 3)
for op in ["vshl", "vshr"]:
    for d in SIGNS:
        for a in SIGNS:
            for mode in ["clamp", "wrap"]:
                for sat in ["", ".sat"]:
                    add("video", f"{op}.{d}.{a}.u32{sat}.{mode}", ["b32", "b32"], ["b32"],
                        f"{op}.{d}.{a}.u32{sat}.{mode} %d0, %a0, %a1;", vrows(2, True))
    for op2 in ["add", "min", "max"]:
        add("video", f"{op}.s32.s32.u32.clamp.{op2}", ["b32"] * 3, ["b32"],
            f"{op}.s32.s32.u32.clamp.{op2} %d0, %a0, %a1, %a2;", vrows(3, True))
    add("video", f"{op}.u32.s32.u32.sat.wrap.dsel_b1", ["b32"] * 3, ["b32"],
        f"{op}.u32.s32.u32.sat.wrap %d0.b1, %a0.h1, %a1, %a2;", vrows(3, True))
    add("video", f"{op}.s32.u32.u32.clamp.sel", ["b32"] * 2, ["b32"],
        f"{op}.s32.u32.u32.clamp %d0, %a0.b3, %a1.b0;", vrows(2, True))
for d in SIGNS:
    for a in SIGNS:
        for b in SIGNS:
            vadd_(f"vmad.{d}.{a}.{b}", f"vmad.{d}.{a}.{b} %d0, %a0, %a1, %a2;", 3)
            vadd_(f"vmad.{d}.{a}.{b}.sat", f"vmad.{d}.{a}.{b}.sat %d0, %a0, %a1, %a2;", 3)
for t in ["u32.u32.u32", "s32.s32.s32", "s32.u32.s32", "u32.s32.u32"]:
    for neg in ["-%a0, %a1, %a2", "%a0, -%a1, %a2", "-%a0, -%a1, %a2", "%a0, %a1, -%a2", "-%a0, %a1, -%a2"]:
        tag = neg.replace("%", "").replace(", ", "_").replace("-", "n")
        if neg.count("-") == 2 and "-%a2" in neg:  # not valid PTX (ptxas: negate the product or c); keeps the RNG's sequence
            vrows(3)
            continue
        vadd_(f"vmad.{t}.neg_{tag}", f"vmad.{t} %d0, {neg};", 3)
    vadd_(f"vmad.{t}.po", f"vmad.{t}.po %d0, %a0, %a1, %a2;", 3)
    for sc in ["shr7", "shr15"]:
        vadd_(f"vmad.{t}.{sc}", f"vmad.{t}.{sc} %d0, %a0, %a1, %a2;", 3)
        vadd_(f"vmad.{t}.sat.{sc}", f"vmad.{t}.sat.{sc} %d0, %a0, %a1, %a2;", 3)
    vadd_(f"vmad.{t}.po.sat.shr7", f"vmad.{t}.po.sat.shr7 %d0, %a0, %a1, %a2;", 3)
    vadd_(f"vmad.{t}.sel", f"vmad.{t} %d0, %a0.h1, %a1.b2, %a2;", 3)
    vadd_(f"vmad.{t}.sel_neg", f"vmad.{t}.sat %d0, -%a0.b0, %a1.h0, %a2;", 3)
for a in SIGNS:
    for b in SIGNS:
        for cmp in ["eq", "ne", "lt", "le", "gt", "ge"]:
            vadd_(f"vset.{a}.{b}.{cmp}", f"vset.{a}.{b}.{cmp} %d0, %a0, %a1;", 2)
        for op2 in ["add", "min", "max"]:
            vadd_(f"vset.{a}.{b}.lt.{op2}", f"vset.{a}.{b}.lt.{op2} %d0, %a0, %a1, %a2;", 3)
        vadd_(f"vset.{a}.{b}.ge.dsel_b2", f"vset.{a}.{b}.ge %d0.b2, %a0.b1, %a1.h0, %a2;", 3)
for n, sels, masks in [(2, ["h31", "h02", "h23", "h11"], ["h0", "h1", "h10"]),
                       (4, ["b7531", "b0246", "b3210", "b5555", "b6420"], ["b0", "b31", "b210", "b3210", "b2"])]:
    for op in ["vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"]:
        op = f"{op}{n}"
        for d in SIGNS:
            for a in SIGNS:
                for b in SIGNS:
                    vadd_(f"{op}.{d}.{a}.{b}", f"{op}.{d}.{a}.{b} %d0, %a0, %a1, %a2;", 3)
                    if d + a + b in ("s32s32s32", "u32u32u32", "u32s32s32", "s32u32u32"):
                        vadd_(f"{op}.{d}.{a}.{b}.sat", f"{op}.{d}.{a}.{b}.sat %d0, %a0, %a1, %a2;", 3)
                        vadd_(f"{op}.{d}.{a}.{b}.add", f"{op}.{d}.{a}.{b}.add %d0, %a0, %a1, %a2;", 3)
        for i, m in enumerate(masks):
            vadd_(f"{op}.s32.s32.s32.mask_{m}", f"{op}.s32.s32.s32 %d0.{m}, %a0, %a1, %a2;", 3)
            vadd_(f"{op}.u32.u32.u32.add.mask_{m}", f"{op}.u32.u32.u32.add %d0.{m}, %a0, %a1, %a2;", 3)
        for i, sa in enumerate(sels):
            sb = sels[(i + 1) % len(sels)]
            vadd_(f"{op}.s32.u32.s32.sel_{sa}_{sb}", f"{op}.s32.u32.s32 %d0, %a0.{sa}, %a1.{sb}, %a2;", 3)
        vadd_(f"{op}.u32.s32.s32.sat.sel_mask", f"{op}.u32.s32.s32.sat %d0.{masks[0]}, %a0.{sels[0]}, %a1.{sels[1]}, %a2;", 3)
    op = f"vset{n}"
    for a in SIGNS:
        for b in SIGNS:
            for cmp in ["eq", "ne", "lt", "le", "gt", "ge"]:
                vadd_(f"{op}.{a}.{b}.{cmp}", f"{op}.{a}.{b}.{cmp} %d0, %a0, %a1, %a2;", 3)
            vadd_(f"{op}.{a}.{b}.gt.add", f"{op}.{a}.{b}.gt.add %d0, %a0, %a1, %a2;", 3)
    vadd_(f"{op}.s32.s32.ne.mask", f"{op}.s32.s32.ne %d0.{masks[1]}, %a0.{sels[0]}, %a1.{sels[1]}, %a2;", 3)
    vadd_(f"{op}.u32.s32.le.add.mask", f"{op}.u32.s32.le.add %d0.{masks[2]}, %a0, %a1.{sels[2]}, %a2;", 3)

# --- memory: loads and stores of every width, vectors, state spaces, generic addressing ---------------
def mem(name, ins, outs, body, extra="", rows=None):
    add("memory", name, ins, outs, body, rows, extra_regs=extra)
SCRATCH = ".reg .b64 %g<4>; .shared .align 16 .b8 sb[2048]; .local .align 16 .b8 lb[32];"
for t in ["u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64", "b8", "b16", "b32", "b64", "f32", "f64"]:
    w = BITS[t] // 8
    dst = {"u8": "u32", "s8": "s32", "b8": "u32", "u16": "u32", "s16": "s32", "b16": "b16"}.get(t, t)
    for off in sorted({0, w, 8 - w}):
        for sp in ["global", "shared", "local"]:
            if off + w > 8:  # past the 8 bytes just stored: undefined (the RNG's sequence is kept)
                cases(["b64"])
                continue
            base = {"global": "%ta4", "shared": "sb", "local": "lb"}[sp]
            pre = [] if sp != "shared" else ["mul.wide.u32 %g0, %t2, 16;", "mov.u64 %g1, sb;", "add.u64 %g1, %g1, %g0;"]
            b = "%g1" if sp == "shared" else base
            mem(f"ld.{sp}.{t}.off{off}", ["b64"], [dst],
                pre + [f"st.{sp}.b64 [{b}], %a0;", f"ld.{sp}.{t} %d0, [{b}+{off}];"], SCRATCH)
        if t in ("u8", "u16", "u32", "b8", "b16"):
            srcreg = "b16" if w <= 2 else "b32"
            mem(f"st.global.{t}.off{off}", ["b64", srcreg], ["b64"],
                [f"st.global.b64 [%ta4], %a0;", f"st.global.{t} [%ta4+{off}], %a1;", "ld.global.b64 %d0, [%ta4];"], SCRATCH)
for vw, t in [(2, "u32"), (4, "u32"), (2, "u64"), (2, "f32"), (4, "f32"), (2, "u16"), (4, "u16"), (2, "f64"), (4, "b16"), (2, "u8"), (4, "u8"), (4, "s8")]:
    bits = BITS[t]
    regs = "b16" if bits <= 16 else REGTYPE[t]
    n = vw * max(bits, 8) // 64 + (1 if vw * max(bits, 8) % 64 else 0)
    outs = [("s32" if t[0] == "s" else "u32") if bits == 8 else t] * vw
    dregs = ", ".join(f"%d{i}" for i in range(vw))
    mem(f"ld.global.v{vw}.{t}", ["b64"] * max(n, 1), outs, [f"ld.global.v{vw}.{t} {{{dregs}}}, [%ta3];"])
    mem(f"ld.global.nc.v{vw}.{t}", ["b64"] * max(n, 1), outs, [f"ld.global.nc.v{vw}.{t} {{{dregs}}}, [%ta3];"])
    mem(f"st.global.v{vw}.{t}", outs, ["b64"] * max(n, 1),
        [f"st.global.v{vw}.{t} [%ta4], {{{', '.join(f'%a{i}' for i in range(vw))}}};"] +
        [f"ld.global.b64 %d{i}, [%ta4+{8 * i}];" for i in range(max(n, 1))] if n <= vw else [])
mem("ldu.global.u32", ["b64"], ["u32"], ["ldu.global.u32 %d0, [%ta3+4];"])
mem("ld.global.nc.s16", ["b64"], ["s32"], ["ld.global.nc.s16 %d0, [%ta3+2];"])
mem("ld.volatile.global.u32", ["b64"], ["u32"], ["ld.volatile.global.u32 %d0, [%ta3+4];"])
mem("ld.relaxed.gpu.global.u64", ["b64"], ["u64"], ["ld.relaxed.gpu.global.u64 %d0, [%ta3];"])
mem("ld.acquire.gpu.global.u32", ["b64"], ["u32"], ["ld.acquire.gpu.global.u32 %d0, [%ta3];"])
mem("st.release.gpu.global.u32", ["u32"], ["u32"], ["st.release.gpu.global.u32 [%ta4], %a0;", "ld.global.u32 %d0, [%ta4];"])
mem("ld.generic.via.cvta.global", ["b64"], ["u64"], ["cvta.global.u64 %g0, %ta3;", "ld.u64 %d0, [%g0];"], SCRATCH)
mem("cvta.shared.roundtrip", ["b64"], ["b64", "pred", "pred", "pred"],
    ["mul.wide.u32 %g0, %t2, 16;", "mov.u64 %g1, sb;", "add.u64 %g1, %g1, %g0;", "cvta.shared.u64 %g2, %g1;",
     "st.b64 [%g2], %a0;", "ld.shared.b64 %d0, [%g1];", "isspacep.shared %d1, %g2;", "isspacep.global %d2, %g2;",
     "cvta.to.shared.u64 %g3, %g2;", "setp.eq.u64 %d3, %g3, %g1;"], SCRATCH)
mem("cvta.local.roundtrip", ["b64"], ["b64", "pred", "pred", "pred"],
    ["mov.u64 %g1, lb;", "cvta.local.u64 %g2, %g1;", "st.b64 [%g2+8], %a0;", "ld.local.b64 %d0, [lb+8];",
     "isspacep.local %d1, %g2;", "isspacep.shared %d2, %g2;", "cvta.to.local.u64 %g3, %g2;", "setp.eq.u64 %d3, %g3, %g1;"], SCRATCH)
mem("isspacep.global", ["b64"], ["pred", "pred", "pred"],
    ["cvta.global.u64 %g0, %ta3;", "isspacep.global %d0, %g0;", "isspacep.shared %d1, %g0;", "isspacep.local %d2, %g0;"], SCRATCH)
mem("cvta.to.global.roundtrip", ["b64"], ["b64"], ["cvta.to.global.u64 %g0, %ta3;", "ld.global.b64 %d0, [%g0];"], SCRATCH)
mem("ld.param.kernel", ["b64"], ["u32"], ["ld.param.u32 %d0, [n];", "sub.u32 %d0, %d0, %d0;"])
mem("prefetch.global.L2", ["b64"], ["b64"], ["prefetch.global.L2 [%ta3];", "prefetchu.L1 [%ta3];", "ld.global.b64 %d0, [%ta3];"])

# --- predicates and the bit instructions without a case yet ----------------------------------------
for op in ["and", "or", "xor"]:
    add("misc", f"{op}.pred", ["pred", "pred"], ["pred"], f"{op}.pred %d0, %a0, %a1;")
add("misc", "not.pred", ["pred"], ["pred"], "not.pred %d0, %a0;")
add("misc", "mov.pred", ["pred"], ["pred"], "mov.pred %d0, %a0;")
add("misc", "and.pred.negated", ["pred", "pred"], ["pred"], "and.pred %d0, !%a0, %a1;")
add("misc", "setp.and.pred", ["u32", "u32", "pred"], ["pred"], "setp.lt.and.u32 %d0, %a0, %a1, !%a2;")
for t in ["b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64"]:
    add("misc", f"mov.{t}", [t], [t], f"mov.{t} %d0, %a0;")
for mode in ["clamp", "wrap"]:
    add("misc", f"bmsk.b32.{mode}", ["u32", "u32"], ["b32"], f"bmsk.{mode}.b32 %d0, %a0, %a1;")
    for t in ["u32", "s32"]:
        add("misc", f"szext.{mode}.{t}", ["u32", "u32"], [t], f"szext.{mode}.{t} %d0, %a0, %a1;")
add("misc", "add.f32.plain", ["f32", "f32"], ["f32"], "add.f32 %d0, %a0, %a1;")
add("misc", "mul.f64.plain", ["f64", "f64"], ["f64"], "mul.f64 %d0, %a0, %a1;")
add("misc", "setp.eq.b16", ["b16", "b16"], ["pred"], "setp.eq.b16 %d0, %a0, %a1;")
add("misc", "nanosleep.u32", ["u32"], ["u32"], ["nanosleep.u32 10;", "mov.u32 %d0, %a0;"])
add("misc", "membar.fence", ["u32"], ["u32"], ["membar.gl;", "membar.cta;", "fence.acq_rel.gpu;", "fence.sc.sys;", "mov.u32 %d0, %a0;"])

# --- block-wide barriers with values, reductions into memory -----------------------------------------
def block_rows(types, blocks=2, size=64):
    return [[rand(t) for t in types] for _ in range(blocks * size)]
BLK = ".reg .b64 %g<4>; .reg .b32 %h<4>; .shared .align 8 .b8 xs[512];"
for mode, outt in [("popc.u32", "u32"), ("and.pred", "pred"), ("or.pred", "pred")]:
    d = "%d0"
    add("block", f"bar.red.{mode}", ["pred"], [outt], f"bar.red.{mode} {d}, 0, %a0;", block_rows(["pred"]), extra_regs=BLK)
    add("block", f"barrier.red.{mode}", ["pred"], [outt], f"barrier.red.{mode} {d}, 1, 64, %a0;", block_rows(["pred"]), extra_regs=BLK)
for sync in ["bar.sync 0;", "barrier.sync 2;", "bar.sync 1, 64;", "barrier.sync.aligned 0;", "bar.cta.sync 3;"]:
    tag = sync.replace(" ", "_").replace(",", "").replace(";", "").replace(".", "_")
    add("block", f"exchange.{tag}", ["u32"], ["u32"],
        ["mul.wide.u32 %g0, %t2, 4;", "mov.u64 %g1, xs;", "add.u64 %g1, %g1, %g0;", "st.shared.u32 [%g1], %a0;", sync,
         "xor.b32 %h0, %t2, 37;", "mul.wide.u32 %g0, %h0, 4;", "mov.u64 %g1, xs;", "add.u64 %g1, %g1, %g0;",
         "ld.shared.u32 %d0, [%g1];"], block_rows(["u32"]), extra_regs=BLK)
add("block", "bar.arrive.sync", ["u32"], ["u32"],
    ["mul.wide.u32 %g0, %t2, 4;", "mov.u64 %g1, xs;", "add.u64 %g1, %g1, %g0;", "setp.lt.u32 %q1, %t2, 32;",
     "@%q1 st.shared.u32 [%g1], %a0;", "@%q1 bar.arrive 1, 64;", "@!%q1 bar.sync 1, 64;",
     "and.b32 %h0, %t2, 31;", "mul.wide.u32 %g0, %h0, 4;", "mov.u64 %g1, xs;", "add.u64 %g1, %g1, %g0;",
     "@!%q1 ld.shared.u32 %d0, [%g1];", "@%q1 mov.u32 %d0, 0;"], block_rows(["u32"]), extra_regs=BLK)
for t, ops in [("u32", ["add", "min", "max", "inc", "dec", "and", "or", "xor"]), ("s32", ["add", "min", "max"]),
               ("u64", ["add", "min", "max", "and", "or", "xor"]), ("s64", ["min", "max"]), ("f32", ["add"]), ("f64", ["add"])]:
    for op in ops:
        tt = btype(t) if op in ("and", "or", "xor") else t
        add("block", f"red.global.{op}.{tt}", [t, t], [t],
            [f"st.global.{REGTYPE[t] if REGTYPE[t] != 'f32' else 'f32'} [%ta4], %a0;", f"red.global.{op}.{tt} [%ta4], %a1;",
             f"ld.global.{LDST[REGTYPE[t]]} %d0, [%ta4];"])
add("block", "red.shared.add.u32.all", ["u32"], ["u32"],
    ["setp.eq.u32 %q1, %t2, 0;", "@%q1 st.shared.u32 [xs], 0;", "bar.sync 0;", "red.shared.add.u32 [xs], %a0;", "bar.sync 0;",
     "ld.shared.u32 %d0, [xs];"], block_rows(["u32"]), extra_regs=BLK)
add("block", "red.add.noftz.f16", ["f16", "f16"], ["f16"],
    ["st.global.b16 [%ta4], %a0;", "red.global.add.noftz.f16 [%ta4], %a1;", "ld.global.b16 %d0, [%ta4];"])
add("block", "red.add.noftz.bf16x2", ["bf16x2", "bf16x2"], ["bf16x2"],
    ["st.global.b32 [%ta4], %a0;", "red.global.add.noftz.bf16x2 [%ta4], %a1;", "ld.global.b32 %d0, [%ta4];"])

# --- warp matrix moves: ldmatrix, stmatrix, movmatrix; elect ----------------------------------------------
WM = ".reg .b64 %g<4>; .reg .b32 %h<8>; .shared .align 16 .b8 mx[2048];"
def rowaddr(extra=0):  # %g1 = mx + 16 * lane (+ extra); %g2 = the lane's own 16-byte slot
    return ["mul.wide.u32 %g0, %t2, 16;", "mov.u64 %g1, mx;", "add.u64 %g1, %g1, %g0;", "mov.u64 %g2, %g1;"]
for n in [1, 2, 4]:
    for tr in ["", ".trans"]:
        dregs = ", ".join(f"%d{i}" for i in range(n))
        add("wmatrix", f"ldmatrix.m8n8.x{n}{tr}.b16", ["b64", "b64"], ["b32"] * n,
            rowaddr() + ["st.shared.v2.b64 [%g2], {%a0, %a1};", "bar.warp.sync -1;",
                         f"ldmatrix.sync.aligned.m8n8.x{n}{tr}.shared.b16 {{{dregs}}}, [%g1];"],
            lane_rows(["b64", "b64"]), block=32, extra_regs=WM)
        sregs = ", ".join(f"%a{i}" for i in range(n))
        add("wmatrix", f"stmatrix.m8n8.x{n}{tr}.b16", ["b32"] * n, ["b64", "b64"],
            rowaddr() + [f"stmatrix.sync.aligned.m8n8.x{n}{tr}.shared.b16 [%g1], {{{sregs}}};", "bar.warp.sync -1;",
                         "ld.shared.v2.b64 {%d0, %d1}, [%g2];"] if n == 4 else
            rowaddr() + ["st.shared.v2.b64 [%g2], {%rz, %rz};", "bar.warp.sync -1;",
                         f"stmatrix.sync.aligned.m8n8.x{n}{tr}.shared.b16 [%g1], {{{sregs}}};", "bar.warp.sync -1;",
                         "ld.shared.v2.b64 {%d0, %d1}, [%g2];"],
            lane_rows(["b32"] * n), block=32, extra_regs=WM + " .reg .b64 %rz; mov.b64 %rz, 0;")
add("wmatrix", "movmatrix.m8n8.trans.b16", ["b32"], ["b32"], "movmatrix.sync.aligned.m8n8.trans.b16 %d0, %a0;",
    lane_rows(["b32"]), block=32)
for mask in MASKS:
    warp(f"elect.sync.{mask:08x}", mask, ["u32"], ["u32", "pred"], [f"elect.sync %d0|%d1, {mask:#x};"], lane_rows(["u32"]))

# --- control flow: calls with parameters and returns, indirect branches, exit --------------------------
FUNCS = """.func (.reg .b32 r) addmul(.reg .b32 a, .reg .b32 b)
{
  .reg .b32 t;
  mul.lo.u32 t, a, b;
  add.u32 r, t, a;
  ret;
}
.func (.param .b64 r) pmix(.param .b64 a, .param .b32 b)
{
  .reg .b64 x;
  .reg .b32 y;
  ld.param.b64 x, [a];
  ld.param.b32 y, [b];
  shl.b64 x, x, 3;
  cvt.u64.u32 x, y;
  xor.b64 x, x, 0x5555;
  st.param.b64 [r], x;
  ret;
}
.func (.reg .b32 r) fact(.reg .b32 n)
{
  .reg .pred p;
  .reg .b32 m;
  setp.le.u32 p, n, 1;
  @p mov.u32 r, 1;
  @p ret;
  sub.u32 m, n, 1;
  call (m), fact, (m);
  mul.lo.u32 r, m, n;
  ret;
}"""
# Each kernel has its own copy of the functions (the kernels of a family also compile as one module).
def funcs(sfx):
    return FUNCS.replace("addmul", "addmul" + sfx).replace("pmix", "pmix" + sfx).replace("fact", "fact" + sfx)
add("control", "call.reg.args", ["u32", "u32"], ["u32"], "call (%d0), addmul_1, (%a0, %a1);", prelude=funcs("_1"))
add("control", "call.param.args", ["b64", "u32"], ["b64"],
    ["{", ".param .b64 pa;", ".param .b32 pb;", ".param .b64 pr;", "st.param.b64 [pa], %a0;", "st.param.b32 [pb], %a1;",
     "call (pr), pmix_2, (pa, pb);", "ld.param.b64 %d0, [pr];", "}"], prelude=funcs("_2"))
add("control", "call.recursive", ["u32"], ["u32"], ["and.b32 %t5, %a0, 15;", "call (%d0), fact_3, (%t5);"], prelude=funcs("_3"))
add("control", "call.uni.divergent", ["u32", "u32"], ["u32"],
    ["and.b32 %t5, %t2, 1;", "setp.eq.u32 %q1, %t5, 0;", "mov.u32 %d0, 7;", "@%q1 call (%d0), addmul_4, (%a0, %a1);"],
    prelude=funcs("_4"))
add("control", "brx.idx", ["u32", "u32"], ["u32"],
    ["and.b32 %t5, %a0, 3;", "ts: .branchtargets L0, L1, L2, L3;", "brx.idx %t5, ts;",
     "L0: add.u32 %d0, %a1, 10;", "bra.uni LE;", "L1: mul.lo.u32 %d0, %a1, 3;", "bra.uni LE;",
     "L2: xor.b32 %d0, %a1, 0xff;", "bra.uni LE;", "L3: not.b32 %d0, %a1;", "LE:"])
add("control", "exit.divergent", ["u32"], ["u32"],
    ["st.global.u32 [%ta4], 99;", "and.b32 %t5, %a0, 1;", "setp.eq.u32 %q1, %t5, 1;", "@%q1 exit;", "mov.u32 %d0, %a0;"])
add("control", "loop.predicated", ["u32"], ["u32"],
    ["and.b32 %t5, %a0, 31;", "mov.u32 %d0, 0;", "LOOP:", "setp.eq.u32 %q1, %t5, 0;", "@%q1 bra LEND;",
     "add.u32 %d0, %d0, %t5;", "sub.u32 %t5, %t5, 1;", "bra LOOP;", "LEND:"])

# --- wmma (m16n16k16): load, mma, store as one sequence (fragment layouts are the implementation's) -----
# Values with few mantissa bits (products and sums are exact in f32 and in f16), so any summation order
# gives the same bits. Per warp, the inputs are A (f16, 512 B), B (f16, 512 B) and C (1 KiB); the output
# is D in the warp's 1 KiB of outputs, zeroed first.
def wmma_rows(warps=3):
    rows = []
    for _ in range(warps):
        a = [f16bits(RNG.choice([0.5, 0.75, 1.0, 1.25, 1.5, 1.75, -1.0, -0.5])) for _ in range(256)]
        b = [f16bits(RNG.choice([0.5, 0.75, 1.0, 1.25, 1.5, 1.75, -0.75, 2.0])) for _ in range(256)]
        cv = [RNG.randrange(-64, 64) / 16 for _ in range(256)]
        raw = b"".join(struct.pack("<H", v) for v in a + b)
        rawc32 = b"".join(struct.pack("<f", v) for v in cv)
        rawc16 = b"".join(struct.pack("<e", v) for v in cv)
        words_ab = list(struct.unpack("<128Q", raw))
        words_c = list(struct.unpack("<128Q", rawc32))
        words_c16 = list(struct.unpack("<64Q", rawc16)) + [0] * 64
        yield words_ab, words_c, words_c16
def wmma_form(al, bl, cl, dl, dt, ct, space):
    sp = "" if space == "generic" else f".{space}"
    name = f"wmma.{al}.{bl}.{cl}.{dl}.{dt}.{ct}.{space}"
    rows = []
    for ab, c32, c16 in wmma_rows():
        words = ab + (c32 if ct == "f32" else c16)
        rows += [words[8 * l: 8 * l + 8] for l in range(32)]
    nc = 8 if ct == "f32" else 4
    nd = 8 if dt == "f32" else 4
    fr = lambda p, n: "{" + ", ".join(f"%{p}{i}" for i in range(n)) + "}"
    body = ["mul.wide.u32 %g0, %t0, 2048;", "add.u64 %g1, %ta0, %g0;", "add.u64 %g2, %g1, 512;", "add.u64 %g3, %g1, 1024;",
            "mul.wide.u32 %g0, %t0, 1024;", "add.u64 %g4, %ta1, %g0;", "mov.b64 %g5, 0;",
            "st.global.v2.b64 [%ta4], {%g5, %g5};", "st.global.v2.b64 [%ta4+16], {%g5, %g5};", "bar.warp.sync -1;"]
    if space == "generic":
        body += ["cvta.global.u64 %g1, %g1;", "cvta.global.u64 %g2, %g2;", "cvta.global.u64 %g3, %g3;", "cvta.global.u64 %g4, %g4;"]
    body += [f"wmma.load.a.sync.aligned.{al}.m16n16k16{sp}.f16 {fr('fa', 8)}, [%g1], 16;",
             f"wmma.load.b.sync.aligned.{bl}.m16n16k16{sp}.f16 {fr('fb', 8)}, [%g2], 16;",
             f"wmma.load.c.sync.aligned.{cl}.m16n16k16{sp}.{ct} {fr('fc', nc)}, [%g3], 16;",
             f"wmma.mma.sync.aligned.{al}.{bl}.m16n16k16.{dt}.{ct} {fr('fd', nd)}, {fr('fa', 8)}, {fr('fb', 8)}, {fr('fc', nc)};",
             f"wmma.store.d.sync.aligned.{dl}.m16n16k16{sp}.{dt} [%g4], {fr('fd', nd)}, 16;", "bar.warp.sync -1;",
             "ld.global.v2.b64 {%d0, %d1}, [%ta4];", "ld.global.v2.b64 {%d2, %d3}, [%ta4+16];"]
    regs = ".reg .b64 %g<6>; .reg .b32 %fa<8>; .reg .b32 %fb<8>; " + \
           (".reg .f32 %fc<8>; " if ct == "f32" else ".reg .b32 %fc<4>; ") + (".reg .f32 %fd<8>;" if dt == "f32" else ".reg .b32 %fd<4>;")
    add("wmma", name, ["b64"] * 8, ["b64"] * 4, body, rows, block=32, extra_regs=regs)
for al in ["row", "col"]:
    for bl in ["row", "col"]:
        for dt, ct in [("f32", "f32"), ("f16", "f16"), ("f32", "f16"), ("f16", "f32")]:
            wmma_form(al, bl, "row" if al == bl else "col", "col" if dt == ct else "row", dt, ct, "global")
wmma_form("row", "col", "row", "row", "f32", "f32", "generic")
wmma_form("col", "row", "col", "col", "f16", "f16", "generic")

# --- more mma shapes and type combinations (a family of its own: mma.golden's rows stay as recorded) ---
MMA2 = [
    ("m16n8k4", "f64", "f64", "f64", "f64", 2, 1, 4, ("f64", "f64", "f64"), ""),
    ("m16n8k8", "f64", "f64", "f64", "f64", 4, 2, 4, ("f64", "f64", "f64"), ""),
    ("m16n8k16", "f64", "f64", "f64", "f64", 8, 4, 4, ("f64", "f64", "f64"), ""),
    ("m16n8k16", "f32", "f16", "f16", "f16", 4, 2, 4, ("f16", "f16", "f16acc"), ""),
    ("m16n8k16", "f16", "f16", "f16", "f32", 4, 2, 2, ("f16", "f16", "f32"), ""),
    ("m16n8k8", "f32", "f16", "f16", "f16", 2, 1, 4, ("f16", "f16", "f16acc"), ""),
    ("m16n8k32", "s32", "s4", "s4", "s32", 2, 1, 4, ("s4", "s4", "s32"), ""),
    ("m16n8k64", "s32", "s4", "u4", "s32", 4, 2, 4, ("s4", "u4", "s32"), ".satfinite"),
    ("m8n8k16", "s32", "u8", "u8", "s32", 1, 1, 2, ("u8", "u8", "s32"), ".satfinite"),
    ("m8n8k16", "s32", "s8", "u8", "s32", 1, 1, 2, ("s8", "u8", "s32"), ""),
    ("m8n8k32", "s32", "u4", "s4", "s32", 1, 1, 2, ("u4", "s4", "s32"), ""),
    ("m8n8k128", "s32", "b1", "b1", "s32", 1, 1, 2, ("b1", "b1", "s32"), ".xor.popc"),
    ("m16n8k32", "s32", "u8", "s8", "s32", 4, 2, 4, ("u8", "s8", "s32"), ".satfinite"),
    ("m16n8k32", "f32", "e4m3", "e5m2", "f32", 4, 2, 4, ("e4m3", "e5m2", "f32"), ""),
    ("m16n8k32", "f32", "e5m2", "e5m2", "f32", 4, 2, 4, ("e5m2", "e5m2", "f32"), ""),
]
for shape, dt, at, bt, ct, nA, nB, nC, kinds, extra in MMA2:
    nD = (4 if shape.startswith("m16") else 2) // (2 if dt == "f16" else 1)
    nC = (4 if shape.startswith("m16") else 2) // (2 if ct == "f16" else 1)
    # f16 inputs with .dtype != .ctype: not valid PTX for m16n8k* (ptxas), left out
    mma_kernel("mma2", shape, dt, at, bt, ct, nA, nB, nC, nD, kinds, extra, valid=not (at == "f16" and dt != ct))

# --- asynchronous copies, cluster queries on a one-CTA cluster, generic stores, scheduling hints --------
CPA = ".reg .b64 %g<4>; .shared .align 16 .b8 cb[1024];"
for sz, tag in [(4, "ca"), (8, "ca"), (16, "ca"), (16, "cg")]:
    add("misc2", f"cp.async.{tag}.{sz}", ["b64", "b64"], ["b64", "b64"],
        ["mul.wide.u32 %g0, %t2, 16;", "mov.u64 %g1, cb;", "add.u64 %g1, %g1, %g0;", "mov.b64 %g2, 0;",
         "st.shared.v2.b64 [%g1], {%g2, %g2};", f"cp.async.{tag}.shared.global [%g1], [%ta3], {sz};",
         "cp.async.commit_group;", "cp.async.wait_group 0;", "ld.shared.v2.b64 {%d0, %d1}, [%g1];"], extra_regs=CPA)
add("misc2", "cp.async.wait_all", ["b64", "b64"], ["b64", "b64"],
    ["mul.wide.u32 %g0, %t2, 16;", "mov.u64 %g1, cb;", "add.u64 %g1, %g1, %g0;",
     "cp.async.ca.shared.global [%g1], [%ta3], 8;", "cp.async.ca.shared.global [%g1+8], [%ta3+8], 8;",
     "cp.async.wait_all;", "ld.shared.v2.b64 {%d1, %d0}, [%g1];"], extra_regs=CPA)
add("misc2", "cp.async.src_size", ["b64", "b64"], ["b64", "b64"],
    ["mul.wide.u32 %g0, %t2, 16;", "mov.u64 %g1, cb;", "add.u64 %g1, %g1, %g0;",
     "cp.async.ca.shared.global [%g1], [%ta3], 16, 5;", "cp.async.commit_group;", "cp.async.wait_group 0;",
     "ld.shared.v2.b64 {%d0, %d1}, [%g1];"], extra_regs=CPA)
cases(["u32"])  # a getctarank form ptxas refused (.u32 with a 64-bit address); the RNG's sequence is kept
add("misc2", "st.u64.generic", ["b64"], ["b64"], ["cvta.global.u64 %g0, %ta4;", "st.u64 [%g0], %a0;",
                                                   "ld.global.u64 %d0, [%ta4];"], extra_regs=CPA)
add("misc2", "hints.griddepcontrol", ["b64"], ["b64"],
    ["griddepcontrol.wait;", "griddepcontrol.launch_dependents;", "prefetch.global.L1 [%ta3];", "mov.b64 %d0, %a0;"])

# --- cache and scheduling hints: no effect on results --------------------------------------------------
add("hints", "createpolicy.cache_hint.ld.st", ["b64"], ["b64"],
    ["createpolicy.fractional.L2::evict_last.b64 %g0, 1.0;", "ld.global.L2::cache_hint.b64 %g1, [%ta3], %g0;",
     "st.global.L2::cache_hint.b64 [%ta4], %g1, %g0;", "ld.global.b64 %d0, [%ta4];"], extra_regs=".reg .b64 %g<2>;")
add("hints", "applypriority.pmevent", ["b64"], ["b64"],
    ["applypriority.global.L2::evict_normal [%ta3], 128;", "pmevent 1;", "pmevent.mask 0x6;", "mov.b64 %d0, %a0;"])

# --- fns, dynamic stack allocation, mbarrier, cluster addressing on a one-CTA cluster, discard ----------
FNS_ROWS = []
for m in [0, 0xFFFFFFFF, 0x80000001, 0x00F000F0, 0x55555555, 0x12345678, 0x80000000, 0x00000001]:
    for b, o in [(0, 0), (0, 1), (31, -1), (4, 1), (4, 0), (5, 0), (4, 3), (31, -5), (16, -2), (0, 32), (31, -32),
                 (0, 33), (7, -8)]:
        FNS_ROWS.append([m, b, o & 0xFFFFFFFF])
for _ in range(40):
    FNS_ROWS.append([RNG.getrandbits(32), RNG.randrange(32), RNG.randrange(-34, 35) & 0xFFFFFFFF])
for tm, tb in [("b32", "u32"), ("u32", "s32"), ("s32", "b32")]:
    add("misc3", f"fns.{tm}.{tb}", [tm, tb, "s32"], ["u32"], "fns.b32 %d0, %a0, %a1, %a2;", rows=FNS_ROWS)

STK = ".reg .b64 %g<6>; .reg .b32 %h<4>;"
ALLOCA_ROWS = [[RNG.randrange(1 << 16), RNG.getrandbits(64)] for _ in range(40)] + [[0, 1], [255, 2], [0xFFFF, 3]]
for t, al in [("u64", ""), ("u64", ", 16"), ("u64", ", 64")]:
    add("misc3", f"alloca.{t}{al.replace(', ', '.a')}", ["u32", "b64"], ["b64", "b64", "b64"],
        ["stacksave.u64 %g3;", "and.b32 %h0, %a0, 255;", "add.u32 %h0, %h0, 8;", "cvt.u64.u32 %g0, %h0;",
         f"alloca.u64 %g1{', %g0' if True else ''}{al};",
         "st.local.u64 [%g1], %a1;", "add.u64 %g2, %g1, %g0;", "and.b64 %g2, %g2, -8;", "st.local.u64 [%g2+-8], %a1;",
         "ld.local.u64 %d0, [%g1];", "xor.b64 %d0, %d0, %g0;", "ld.local.u64 %d1, [%g2+-8];",
         "and.b64 %d2, %g1, " + ("15" if "16" in al else "63" if "64" in al else "7") + ";", "stackrestore.u64 %g3;"],
        rows=ALLOCA_ROWS, extra_regs=STK)
add("misc3", "alloca.loop.stackrestore", ["u32", "b64"], ["b64", "b64"],
    ["and.b32 %h0, %a0, 7;", "add.u32 %h0, %h0, 1;", "mov.b64 %d0, 0;", "mov.b64 %d1, 0;",
     "AL:", "stacksave.u64 %g3;", "alloca.u64 %g1, 32;", "cvt.u64.u32 %g4, %h0;", "add.u64 %g4, %g4, %a1;",
     "st.local.u64 [%g1], %g4;", "st.local.u64 [%g1+24], %a1;", "ld.local.u64 %g5, [%g1];", "add.u64 %d0, %d0, %g5;",
     "ld.local.u64 %g5, [%g1+24];", "xor.b64 %d1, %d1, %g5;", "stackrestore.u64 %g3;", "sub.u32 %h0, %h0, 1;",
     "setp.ne.u32 %q1, %h0, 0;", "@%q1 bra AL;"], rows=ALLOCA_ROWS, extra_regs=STK)

# mbarrier: each thread its own barrier (slot %tid of mb) unless the form is block-wide.
MB = ".reg .b64 %g<8>; .reg .b32 %h<8>; .reg .pred %p<4>; .shared .align 8 .b64 mb[64]; .shared .align 16 .b8 mbuf[1024];"
MBA = ["mov.u64 %g0, mb;", "mul.wide.u32 %g1, %t2, 8;", "add.u64 %g0, %g0, %g1;"]  # %g0: this thread's mbarrier
def mrows(n=44):
    return [[RNG.getrandbits(32), RNG.getrandbits(32)] for _ in range(n)] + [[0, 0], [15, 31], [0, 1], [3, 3], [7, 8]]
def waits(st, first):
    """test_wait on state \\p st, on both parities, pending counts: outputs first .. first+4."""
    return [f"mbarrier.test_wait.shared.b64 %p0, [%g0], {st};", f"selp.u32 %h6, 1, 0, %p0;", f"mov.b32 %d{first}, %h6;",
            "mbarrier.test_wait.parity.shared.b64 %p1, [%g0], 0;", "selp.u32 %h6, 1, 0, %p1;",
            "mbarrier.test_wait.parity.shared.b64 %p2, [%g0], 1;", "selp.u32 %h7, 2, 0, %p2;", "or.b32 %h6, %h6, %h7;",
            f"mov.b32 %d{first + 1}, %h6;", f"mbarrier.pending_count.b64 %h6, {st};", f"mov.b32 %d{first + 2}, %h6;"]
ARRIVE_LOOP = ["and.b32 %h1, %a1, 31;", "mov.b64 %g3, %g2;", "setp.eq.u32 %p3, %h1, 0;", "@%p3 bra AD;",
               "AL:", "mbarrier.arrive.shared.b64 %g3, [%g0];", "sub.u32 %h1, %h1, 1;", "setp.ne.u32 %p3, %h1, 0;",
               "@%p3 bra AL;", "AD:"]
INIT = ["and.b32 %h0, %a0, 15;", "add.u32 %h0, %h0, 1;", "mbarrier.init.shared.b64 [%g0], %h0;"]
add("misc3", "mbarrier.arrive.test_wait", ["u32", "u32"], ["u32"] * 6,
    MBA + INIT + ["mbarrier.arrive.shared.b64 %g2, [%g0];"] + ARRIVE_LOOP + waits("%g2", 0) + waits("%g3", 3),
    rows=mrows(), extra_regs=MB)
add("misc3", "mbarrier.arrive.count", ["u32", "u32"], ["u32"] * 3,
    MBA + INIT + ["rem.u32 %h1, %a1, %h0;", "add.u32 %h1, %h1, 1;",
                  "mbarrier.arrive.release.cta.shared::cta.b64 %g2, [%g0], %h1;"] + waits("%g2", 0),
    rows=mrows(), extra_regs=MB)
add("misc3", "mbarrier.arrive.noComplete", ["u32", "u32"], ["u32"] * 6,
    MBA + INIT + ["add.u32 %h0, %h0, 1;", "mbarrier.init.shared.b64 [%g0], %h0;", "rem.u32 %h1, %a1, %h0;",
                  "max.u32 %h1, %h1, 1;", "sub.u32 %h2, %h0, 1;", "min.u32 %h1, %h1, %h2;",
                  "mbarrier.arrive.noComplete.shared.b64 %g2, [%g0], %h1;"] + waits("%g2", 0) +
    ["sub.u32 %h1, %h0, %h1;", "mbarrier.arrive.shared.b64 %g3, [%g0], %h1;"] + waits("%g3", 3),
    rows=mrows(), extra_regs=MB)
add("misc3", "mbarrier.arrive_drop", ["u32", "u32"], ["u32"] * 6,
    MBA + INIT + ["add.u32 %h0, %h0, 1;", "mbarrier.init.shared.b64 [%g0], %h0;",
                  "mbarrier.arrive_drop.shared.b64 %g2, [%g0];"] + waits("%g2", 0) +
    ["sub.u32 %h1, %h0, 1;", "mbarrier.arrive.shared.b64 %g3, [%g0], %h1;",  # completes: the next phase expects one less
     "mbarrier.arrive.shared.b64 %g3, [%g0];"] + waits("%g3", 3),
    rows=mrows(), extra_regs=MB)
add("misc3", "mbarrier.arrive_drop.noComplete.count", ["u32", "u32"], ["u32"] * 6,
    MBA + ["and.b32 %h0, %a0, 15;", "add.u32 %h0, %h0, 2;", "mbarrier.init.shared.b64 [%g0], %h0;",
           "mbarrier.arrive_drop.noComplete.shared.b64 %g2, [%g0], 1;"] + waits("%g2", 0) +
    ["sub.u32 %h1, %h0, 1;", "mbarrier.arrive_drop.shared.b64 %g3, [%g0], %h1;"] + waits("%g3", 3),
    rows=mrows(), extra_regs=MB)
add("misc3", "mbarrier.expect_tx.complete_tx", ["u32", "u32"], ["u32"] * 9,
    MBA + INIT + ["and.b32 %h1, %a1, 65535;", "add.u32 %h1, %h1, 1;",
                  "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%g0], %h1;",
                  "mbarrier.arrive.shared.b64 %g2, [%g0], %h0;"] + waits("%g2", 0) +
    ["mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%g0], 1;"] + waits("%g2", 3) +
    ["sub.u32 %h1, %h1, 1;", "mbarrier.complete_tx.shared::cta.b64 [%g0], %h1;"] + waits("%g2", 6),
    rows=mrows(), extra_regs=MB)
add("misc3", "mbarrier.arrive.expect_tx", ["u32", "u32"], ["u32"] * 6,
    MBA + INIT + ["and.b32 %h1, %a1, 65535;", "add.u32 %h1, %h1, 1;",
                  "mbarrier.arrive.expect_tx.shared.b64 %g2, [%g0], %h1;"] + waits("%g2", 0) +
    ["mbarrier.complete_tx.shared::cta.b64 [%g0], %h1;", "sub.u32 %h2, %h0, 1;", "setp.eq.u32 %p3, %h2, 0;",
     "@%p3 bra AX;", "mbarrier.arrive.shared.b64 %g3, [%g0], %h2;", "AX:"] + waits("%g2", 3),
    rows=mrows(), extra_regs=MB)
add("misc3", "mbarrier.inval.generic", ["u32", "u32"], ["u32"] * 3,
    MBA + INIT + ["mbarrier.inval.shared.b64 [%g0];", "add.u32 %h0, %h0, 3;", "cvta.shared.u64 %g4, %g0;",
                  "mbarrier.init.b64 [%g4], %h0;", "mbarrier.arrive.b64 %g2, [%g4];",
                  "mbarrier.arrive.b64 %g2, [%g4];", "mbarrier.test_wait.b64 %p0, [%g4], %g2;",
                  "selp.u32 %d0, 1, 0, %p0;", "mbarrier.pending_count.b64 %h6, %g2;",
                  "mov.b32 %d1, %h6;", "mbarrier.try_wait.parity.b64 %p1, [%g4], 1;", "selp.u32 %h6, 1, 0, %p1;",
                  "mov.b32 %d2, %h6;"],
    rows=mrows(), extra_regs=MB)
# Block-wide: 64 threads arrive after a shared store, wait (try_wait loops), then read a neighbour's value.
BLOCK_ROWS = [[RNG.getrandbits(32), RNG.getrandbits(32)] for _ in range(128)]
for name, arrive, wait in [
        ("mbarrier.try_wait.block", "mbarrier.arrive.release.cta.shared.b64 %g2, [%g5];",
         "mbarrier.try_wait.acquire.cta.shared.b64 %p0, [%g5], %g2;"),
        ("mbarrier.try_wait.parity.block", "mbarrier.arrive.shared.b64 %g2, [%g5];",
         "mbarrier.try_wait.parity.shared.b64 %p0, [%g5], %h3;"),
        ("mbarrier.try_wait.hint.block", "mbarrier.arrive.shared.b64 %g2, [%g5];",
         "mbarrier.try_wait.shared.b64 %p0, [%g5], %g2, 100000;"),
        ("mbarrier.test_wait.block", "mbarrier.arrive.shared.b64 %g2, [%g5];",
         "mbarrier.test_wait.shared.b64 %p0, [%g5], %g2;")]:
    add("misc3", name, ["u32", "u32"], ["u32", "u32"],
        ["mov.u64 %g5, mb;", "setp.eq.u32 %p1, %t2, 0;", "@%p1 mbarrier.init.shared.b64 [%g5], %t1;", "bar.sync 0;",
         "mov.u32 %h3, 0;", "mov.u64 %g6, mbuf;", "mul.wide.u32 %g1, %t2, 4;", "add.u64 %g1, %g6, %g1;",
         "mov.u32 %h2, 0;",
         "PH:", "add.u32 %h1, %a0, %h2;", "st.shared.u32 [%g1], %h1;", arrive, "WT:", wait, "@!%p0 bra WT;",
         "add.u32 %h0, %t2, 1;", "and.b32 %h0, %h0, 63;", "mul.wide.u32 %g4, %h0, 4;", "add.u64 %g4, %g6, %g4;",
         "ld.shared.u32 %h1, [%g4];", "add.u32 %h3, %h3, 1;", "xor.b32 %h2, %h2, %h1;", "bar.sync 0;",
         "setp.lt.u32 %p1, %h3, 3;", "@%p1 bra PH;",  # three phases
         "mov.b32 %d0, %h2;", "mov.b32 %d1, %h3;"], rows=BLOCK_ROWS, extra_regs=MB)
for noinc in ["", ".noinc"]:
    add("misc3", f"cp.async.mbarrier.arrive{noinc}", ["b64", "b64"], ["b64", "b64", "u32"],
        MBA + ["mul.wide.u32 %g1, %t2, 16;", "mov.u64 %g6, mbuf;", "add.u64 %g6, %g6, %g1;", "mov.b64 %g7, 0;",
               "st.shared.v2.b64 [%g6], {%g7, %g7};", f"mbarrier.init.shared.b64 [%g0], {2 if noinc else 1};",
               "cp.async.ca.shared.global [%g6], [%ta3], 16;", f"cp.async.mbarrier.arrive{noinc}.shared.b64 [%g0];",
               "mbarrier.arrive.shared.b64 %g2, [%g0];", "WT:", "mbarrier.try_wait.shared.b64 %p0, [%g0], %g2;",
               "@!%p0 bra WT;", "ld.shared.v2.b64 {%d0, %d1}, [%g6];", "mbarrier.pending_count.b64 %d2, %g2;"],
        extra_regs=MB)

# Cluster addressing: a launch without clusters is a cluster of one CTA (rank 0).
CL = ".reg .b64 %g<4>; .reg .b32 %h<4>; .shared .align 8 .b32 cs[64];"
add("misc3", "mapa.getctarank.shared", ["u32"], ["u32", "u32"],
    ["mov.u32 %h0, cs;", "shl.b32 %h1, %t2, 2;", "add.u32 %h0, %h0, %h1;", "st.shared.u32 [%h0], %a0;",
     "mapa.shared::cluster.u32 %h2, %h0, 0;", "ld.shared::cluster.u32 %d0, [%h2];",
     "getctarank.shared::cluster.u32 %d1, %h2;"], extra_regs=CL)
add("misc3", "mapa.getctarank.generic", ["u32"], ["u32", "u32"],
    ["mov.u64 %g0, cs;", "cvta.shared.u64 %g0, %g0;", "mul.wide.u32 %g1, %t2, 4;", "add.u64 %g0, %g0, %g1;",
     "st.u32 [%g0], %a0;", "mapa.u64 %g2, %g0, 0;", "ld.u32 %d0, [%g2];", "getctarank.u64 %d1, %g2;"], extra_regs=CL)
add("misc3", "discard.global.L2", ["b64"], ["b64"],
    ["st.global.b64 [%ta4], 0;", "discard.global.L2 [%ta4], 128;", "st.global.b64 [%ta4], %a0;",
     "ld.global.b64 %d0, [%ta4];"])

# sm_70's quad-pair mma with f16 accumulators (f32 accumulators are in mma.golden)
for dt, ct in [("f16", "f16"), ("f32", "f16"), ("f16", "f32")]:
    mma_kernel("misc3", "m8n8k4", dt, "f16", "f16", ct, 2, 2, 4 if ct == "f16" else 8, 4 if dt == "f16" else 8,
               ("f16", "f16", "f16acc" if ct == "f16" else "f32"), "", valid=not (dt == "f16" and ct == "f32"))  # ptxas refuses

# --- faults: trap and brkpt (the launch's error is the result) -------------------------------------------
FAULT_ROWS = [[0]] * 30 + [[1]] + [[0]] * 33
add("fault", "trap.never", ["u32"], ["u32"], ["setp.ne.u32 %q1, %a0, 0;", "@%q1 trap;", "mov.u32 %d0, %a0;"],
    rows=[[0]] * 64)
add("fault", "trap.one.thread", ["u32"], ["u32"], ["setp.ne.u32 %q1, %a0, 0;", "@%q1 trap;", "mov.u32 %d0, 7;"],
    rows=FAULT_ROWS)
add("fault", "trap.all", ["u32"], ["u32"], ["trap;", "mov.u32 %d0, %a0;"], rows=[[5]] * 8)
add("fault", "brkpt.never", ["u32"], ["u32"], ["setp.ne.u32 %q1, %a0, 0;", "@%q1 brkpt;", "mov.u32 %d0, %a0;"],
    rows=[[0]] * 64)
# (a brkpt that runs waits for a debugger: no golden case)

# --- textures over linear memory and pitched 2-D memory (the runner's data: float4 texel i = i + c/4) ---
TXR = ".reg .f32 %x<8>;"
add("texture", "tex.1d.v4.f32.s32", ["s32"], ["f32"] * 4, "tex.1d.v4.f32.s32 {%d0, %d1, %d2, %d3}, [%ta5, {%a0}];",
    rows=[[v & 0xFFFFFFFF] for v in [0, 1, 2, 255, 1023, 1024, 5000, -1, -100, 1 << 31, 77]] +
         [[RNG.randrange(1100)] for _ in range(37)], tex="linear", extra_regs=TXR)
TEXC = [0.0, 0.5, 1.0, 31.5, 31.99, 32.0, 40.0, -0.5, -1.0, -1e-6, 1e9, -1e9, math.inf, -math.inf, math.nan, 15.25]
def texrows(scale):
    rows = [[f32bits(a * scale), f32bits(b * scale)] for a, b in zip(TEXC, reversed(TEXC))]
    return rows + [[f32bits(RNG.uniform(-4, 36) * scale), f32bits(RNG.uniform(-4, 36) * scale)] for _ in range(32)]
for kind, scale in [("pitch2d.clamp", 1.0), ("pitch2d.border", 1.0), ("pitch2d.wrap.norm", 1 / 32),
                    ("pitch2d.mirror.norm", 1 / 32)]:
    add("texture", f"tex.2d.v4.f32.f32.{kind}", ["f32", "f32"], ["f32"] * 4,
        "tex.2d.v4.f32.f32 {%d0, %d1, %d2, %d3}, [%ta5, {%a0, %a1}];", rows=texrows(scale), tex=kind, extra_regs=TXR)
for kind in ["pitch2d.clamp.u32"]:
    add("texture", "tex.2d.v4.u32.s32", ["s32", "s32"], ["u32"] * 4,
        "tex.2d.v4.u32.s32 {%d0, %d1, %d2, %d3}, [%ta5, {%a0, %a1}];",
        rows=[[a & 0xFFFFFFFF, b & 0xFFFFFFFF] for a, b in [(0, 0), (31, 31), (32, 0), (-1, 5), (5, -1), (100, 3)]] +
             [[RNG.randrange(-4, 36) & 0xFFFFFFFF, RNG.randrange(-4, 36) & 0xFFFFFFFF] for _ in range(30)],
        tex=kind, extra_regs=TXR)

# --- sm_90a: register reallocation (every warp of a warpgroup runs it) ----------------------------------
add("sm90a", "setmaxnreg.inc.dec", ["u32"], ["u32"],
    ["setmaxnreg.dec.sync.aligned.u32 64;", "setmaxnreg.inc.sync.aligned.u32 128;", "add.u32 %d0, %a0, 1;"],
    rows=[[RNG.getrandbits(32)] for _ in range(128)], block=128)

# --- textures and surfaces over CUDA arrays (runner.cpp makeArrayTexture; texel I = layer*1024 + y*32 + x):
# arr2d float4 I + c/4; .u8 bytes (7I + 53c) & 255 read normalized; .half ((3I + c) % 2048) / 16;
# .u32 0x80000001 + 0x10001 I + 0x1000000 c read as integers; layered: 4 layers of arr2d; cube: float
# face*1024 + y*32 + x; arr3d 16^3 floats z*256 + y*16 + x; mip: 32x32, 6 levels, level L texel L*1000 + y*w + x
# (normalized coordinates); surf: 32x32 u32 0x1000 + y*32 + x; surf.half: 32x32 halves, zero.
TA = "texarray"
def rf(lo, hi): return f32bits(RNG.uniform(lo, hi))
V4 = "{%d0, %d1, %d2, %d3}"
# Linear filtering's weights: sweeps of the fraction (9-bit fixed point in NVIDIA's hardware).
sweep = [[f32bits(5.5 + j / 512), f32bits(7.5 + (j * 37 % 512) / 512)] for j in range(0, 512, 3)]
add(TA, "tex.2d.arr2d.linear", ["f32", "f32"], ["f32"] * 4, f"tex.2d.v4.f32.f32 {V4}, [%ta5, {{%a0, %a1}}];",
    rows=sweep + [[rf(-2, 34), rf(-2, 34)] for _ in range(64)], tex="arr2d.linear", extra_regs=TXR)
add(TA, "tex.2d.arr2d.u8.linear", ["f32", "f32"], ["f32"] * 4, f"tex.2d.v4.f32.f32 {V4}, [%ta5, {{%a0, %a1}}];",
    rows=[[rf(-1, 33), rf(-1, 33)] for _ in range(96)], tex="arr2d.u8.linear", extra_regs=TXR, approx="abs:0.004")
add(TA, "tex.2d.arr2d.u8.srgb", ["f32", "f32"], ["f32"] * 4, f"tex.2d.v4.f32.f32 {V4}, [%ta5, {{%a0, %a1}}];",
    rows=[[rf(0, 32), rf(0, 32)] for _ in range(96)], tex="arr2d.u8.srgb", extra_regs=TXR)
add(TA, "tex.2d.arr2d.u8.srgb.linear", ["f32", "f32"], ["f32"] * 4, f"tex.2d.v4.f32.f32 {V4}, [%ta5, {{%a0, %a1}}];",
    rows=[[rf(0, 32), rf(0, 32)] for _ in range(64)], tex="arr2d.u8.srgb.linear", extra_regs=TXR, approx="abs:0.005")
add(TA, "tex.2d.arr2d.half.linear", ["f32", "f32"], ["f32"] * 4, f"tex.2d.v4.f32.f32 {V4}, [%ta5, {{%a0, %a1}}];",
    rows=[[rf(-1, 33), rf(-1, 33)] for _ in range(64)], tex="arr2d.half.linear", extra_regs=TXR)
add(TA, "tex.2d.arr2d.border", ["f32", "f32"], ["f32"] * 4, f"tex.2d.v4.f32.f32 {V4}, [%ta5, {{%a0, %a1}}];",
    rows=texrows(1.0), tex="arr2d.border", extra_regs=TXR)
add(TA, "tex.2d.arr2d.border.linear", ["f32", "f32"], ["f32"] * 4, f"tex.2d.v4.f32.f32 {V4}, [%ta5, {{%a0, %a1}}];",
    rows=[[rf(-1.5, 1.5) + (31 if RNG.random() < 0.5 else 0), rf(-1.5, 33.5)] for _ in range(64)],
    tex="arr2d.border.linear", extra_regs=TXR, approx="rel:0.01")
add(TA, "tex.2d.arr2d.u32.int.s32", ["s32", "s32"], ["u32"] * 4, f"tex.2d.v4.u32.s32 {V4}, [%ta5, {{%a0, %a1}}];",
    rows=[[RNG.randrange(-3, 35) & 0xFFFFFFFF, RNG.randrange(-3, 35) & 0xFFFFFFFF] for _ in range(48)],
    tex="arr2d.u32.int", extra_regs=TXR)
add(TA, "tex.2d.arr2d.u32.int.f32", ["f32", "f32"], ["u32"] * 4, f"tex.2d.v4.u32.f32 {V4}, [%ta5, {{%a0, %a1}}];",
    rows=[[rf(-3, 35), rf(-3, 35)] for _ in range(48)], tex="arr2d.u32.int", extra_regs=TXR)
add(TA, "tex.a2d.layered", ["s32", "f32", "f32"], ["f32"] * 4,
    f"tex.a2d.v4.f32.f32 {V4}, [%ta5, {{%a0, %a1, %a2, %a2}}];",
    rows=[[l & 0xFFFFFFFF, rf(0, 32), rf(0, 32)] for l in [-1, 0, 1, 2, 3, 4, 100, -100]] +
         [[RNG.randrange(0, 4), rf(-2, 34), rf(-2, 34)] for _ in range(40)], tex="layered", extra_regs=TXR)
dirs = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1), (1, 1, 0), (1, -1, 1), (-1, -1, -1),
        (0, 0, 0), (0.5, 0.25, -0.125), (2, 2, 1), (1e-30, 0, 0), (math.inf, 1, 0), (math.nan, 1, 0)]
add(TA, "tex.cube", ["f32", "f32", "f32"], ["f32"] * 4, f"tex.cube.v4.f32.f32 {V4}, [%ta5, {{%a0, %a1, %a2, %a2}}];",
    rows=[[f32bits(a), f32bits(b), f32bits(c)] for a, b, c in dirs] + [[rf(-3, 3), rf(-3, 3), rf(-3, 3)] for _ in range(81)],
    tex="cube", extra_regs=TXR)
add(TA, "tex.3d.arr3d.linear", ["f32", "f32", "f32"], ["f32"] * 4,
    f"tex.3d.v4.f32.f32 {V4}, [%ta5, {{%a0, %a1, %a2, %a2}}];",
    rows=[[rf(-1, 17), rf(-1, 17), rf(-1, 17)] for _ in range(64)], tex="arr3d.linear", extra_regs=TXR,
    approx="rel:0.0002")
LODS = [-1.0, 0.0, 0.25, 0.49, 0.5, 0.51, 1.0, 1.5, 2.99, 3.25, 5.0, 6.0, 100.0, math.nan, -math.inf, math.inf]
for kind in ["mip", "mip.miplinear", "mip.linear.miplinear"]:
    add(TA, f"tex.level.2d.{kind}", ["f32", "f32", "f32"], ["f32"] * 4,
        f"tex.level.2d.v4.f32.f32 {V4}, [%ta5, {{%a0, %a1}}], %a2;",
        rows=[[rf(0, 1), rf(0, 1), f32bits(l)] for l in LODS] + [[rf(-0.2, 1.2), rf(-0.2, 1.2), rf(-1, 7)] for _ in range(32)],
        tex=kind, extra_regs=TXR, approx="rel:0.0002" if kind == "mip.linear.miplinear" else None)
def grad(): return f32bits(RNG.choice([1, -1]) * 2 ** RNG.uniform(-8, 1))
add(TA, "tex.grad.2d.mip.miplinear", ["f32"] * 6, ["f32"] * 4,
    f"tex.grad.2d.v4.f32.f32 {V4}, [%ta5, {{%a0, %a1}}], {{%a2, %a3}}, {{%a4, %a5}};",
    rows=[[rf(0, 1), rf(0, 1), grad(), grad(), grad(), grad()] for _ in range(64)] +
         [[rf(0, 1), rf(0, 1), f32bits(2 ** -5), 0, 0, f32bits(2 ** -5)], [rf(0, 1), rf(0, 1), 0, 0, 0, 0]],
    tex="mip.miplinear", extra_regs=TXR, approx="rel:0.05")
for c in "rgba":
    add(TA, f"tld4.{c}.2d.arr2d", ["f32", "f32"], ["f32"] * 4, f"tld4.{c}.2d.v4.f32.f32 {V4}, [%ta5, {{%a0, %a1}}];",
        rows=[[rf(-1, 33), rf(-1, 33)] for _ in range(48)] + [[f32bits(0.5), f32bits(0.5)], [f32bits(31.6), f32bits(31.9)]],
        tex="arr2d", extra_regs=TXR)
add(TA, "tld4.r.2d.arr2d.u8", ["f32", "f32"], ["f32"] * 4, f"tld4.r.2d.v4.f32.f32 {V4}, [%ta5, {{%a0, %a1}}];",
    rows=[[rf(0, 32), rf(0, 32)] for _ in range(32)], tex="arr2d.u8", extra_regs=TXR)
# NVIDIA's driver compiles txq (texture objects, sm_90) only for the extents: with any other attribute
# the kernel is missing from the loaded module (cuModuleGetFunction: CUDA_ERROR_NOT_FOUND), and suq
# only for the extents too (other attributes: cuModuleLoad fails with CUDA_ERROR_NOT_SUPPORTED).
TXQ = ["width", "height", "depth"]
for kind in ["arr2d.linear", "arr2d.u8.srgb", "arr2d.half.border", "arr2d.u32.int", "layered.wrap", "cube",
             "arr3d.mirror.norm", "mip.miplinear"]:
    for q in TXQ:  # one kernel a query: a query ptxas or the driver refuses fails alone
        add(TA, f"txq.{q}.{kind}", ["u32"], ["u32"], f"txq.{q}.b32 %d0, [%ta5];", rows=[[0]], tex=kind)
add(TA, "txq.level.mip", ["u32"], ["u32"] * 3,
    ["txq.level.width.b32 %d0, [%ta5], %a0;", "txq.level.height.b32 %d1, [%ta5], %a0;",
     "txq.level.depth.b32 %d2, [%ta5], %a0;"], rows=[[l] for l in range(6)], tex="mip")
SUQ = ["width", "height", "depth"]
for kind in ["surf", "surf.half"]:
    for q in SUQ:
        add(TA, f"suq.{q}.{kind}", ["u32"], ["u32"], f"suq.{q}.b32 %d0, [%ta5];", rows=[[0]], tex=kind)
# Every 8-bit value read normalized and as sRGB (texel I's red channel is 7I & 255: all 256 values).
ALL8 = [[f32bits(i % 32 + 0.5), f32bits(i // 32 + 0.5)] for i in range(256)]
add(TA, "tex.2d.arr2d.u8.all", ["f32", "f32"], ["f32"] * 4, f"tex.2d.v4.f32.f32 {V4}, [%ta5, {{%a0, %a1}}];",
    rows=ALL8, tex="arr2d.u8", extra_regs=TXR)
add(TA, "tex.2d.arr2d.u8.srgb.all", ["f32", "f32"], ["f32"] * 4, f"tex.2d.v4.f32.f32 {V4}, [%ta5, {{%a0, %a1}}];",
    rows=ALL8, tex="arr2d.u8.srgb", extra_regs=TXR)
SUC = [[x & 0xFFFFFFFF, y & 0xFFFFFFFF] for x, y in [(0, 0), (124, 31), (128, 0), (-4, 3), (8, -1), (8, 32), (1000, 5)]]
for mode in ["clamp", "zero"]:
    add(TA, f"suld.b.2d.b32.{mode}", ["s32", "s32"], ["u32"], f"suld.b.2d.b32.{mode} {{%d0}}, [%ta5, {{%a0, %a1}}];",
        rows=SUC + [[RNG.randrange(-8, 36) * 4 & 0xFFFFFFFF, RNG.randrange(-3, 35) & 0xFFFFFFFF] for _ in range(57)],
        tex="surf")
    add(TA, f"suld.b.2d.v2.b32.{mode}", ["s32", "s32"], ["u32"] * 2,
        f"suld.b.2d.v2.b32.{mode} {{%d0, %d1}}, [%ta5, {{%a0, %a1}}];",
        rows=[[x & 0xFFFFFFFF, y & 0xFFFFFFFF] for x, y in [(0, 0), (120, 31), (128, 0), (-8, 3), (8, -1), (8, 32)]] +
             [[RNG.randrange(-4, 18) * 8 & 0xFFFFFFFF, RNG.randrange(-3, 35) & 0xFFFFFFFF] for _ in range(26)],
        tex="surf")
add(TA, "suld.b.2d.b32.trap.inside", ["s32", "s32"], ["u32"], "suld.b.2d.b32.trap {%d0}, [%ta5, {%a0, %a1}];",
    rows=[[RNG.randrange(0, 32) * 4, RNG.randrange(0, 32)] for _ in range(32)], tex="surf")
# Stores read back by the same thread at distinct in-range texels (rows never share one).
cells = RNG.sample(range(1024), 64)
add(TA, "sust.b.2d.b32.roundtrip", ["s32", "s32", "u32"], ["u32"],
    ["sust.b.2d.b32.trap [%ta5, {%a0, %a1}], {%a2};", "suld.b.2d.b32.trap {%d0}, [%ta5, {%a0, %a1}];"],
    rows=[[(c % 32) * 4, c // 32, RNG.getrandbits(32)] for c in cells], tex="surf")
HALFS = [0.0, -0.0, 1.0, 65504.0, 65520.0, 1e6, 2 ** -24, 2 ** -25, 3 * 2 ** -26, 1 / 3, math.inf, math.nan, -2.5]
add(TA, "sust.p.2d.b32.half", ["s32", "s32", "f32"], ["u32"],
    ["sust.p.2d.b32.trap [%ta5, {%a0, %a1}], {%a2, %a2, %a2, %a2};", "suld.b.2d.b16.trap {%d1h}, [%ta5, {%t5, %a1}];",
     "cvt.u32.u16 %d0, %d1h;"],
    rows=[[(c % 32), c // 32, f32bits(v)] for c, v in zip(cells, HALFS + [RNG.uniform(-70000, 70000) for _ in range(51)])],
    tex="surf.half", extra_regs=".reg .b16 %d1h;", prelude="")
# (x of sust.p is in texels, of suld.b in bytes: %t5 = 2x)
FAMILIES[TA][-1].body.insert(0, "shl.b32 %t5, %a0, 1;")

# Surfaces of the other geometries (surf1d: 64 u32 0x2000 + x; surf3d: 8^3 u16 0x3000 + I; surfl: 4 layers
# of 32x32 u32 0x4000 + I) and a two-component store.
S2 = "texsurf"
for mode in ["clamp", "zero"]:
    add(S2, f"suld.b.1d.b32.{mode}", ["s32"], ["u32"], f"suld.b.1d.b32.{mode} {{%d0}}, [%ta5, {{%a0}}];",
        rows=[[x & 0xFFFFFFFF] for x in [0, 252, 256, -4, 4000]] + [[RNG.randrange(-8, 72) * 4 & 0xFFFFFFFF] for _ in range(27)],
        tex="surf1d")
    add(S2, f"suld.b.3d.b16.{mode}", ["s32", "s32", "s32"], ["u32"],
        [f"suld.b.3d.b16.{mode} {{%d1h}}, [%ta5, {{%a0, %a1, %a2, %a2}}];", "cvt.u32.u16 %d0, %d1h;"],
        rows=[[x & 0xFFFFFFFF, y & 0xFFFFFFFF, z & 0xFFFFFFFF] for x, y, z in [(0, 0, 0), (14, 7, 7), (16, 0, 0), (0, 8, 0), (0, 0, 8), (-2, 0, 0)]] +
             [[RNG.randrange(-2, 10) * 2 & 0xFFFFFFFF, RNG.randrange(-2, 10) & 0xFFFFFFFF, RNG.randrange(-2, 10) & 0xFFFFFFFF] for _ in range(26)],
        tex="surf3d", extra_regs=".reg .b16 %d1h;")
    add(S2, f"suld.b.a2d.b32.{mode}", ["s32", "s32", "s32"], ["u32"],
        f"suld.b.a2d.b32.{mode} {{%d0}}, [%ta5, {{%a0, %a1, %a2, %a2}}];",
        rows=[[l & 0xFFFFFFFF, x & 0xFFFFFFFF, y & 0xFFFFFFFF] for l, x, y in [(0, 0, 0), (3, 124, 31), (4, 0, 0), (-1, 8, 8), (100, 4, 4), (1, 128, 2)]] +
             [[RNG.randrange(-1, 6) & 0xFFFFFFFF, RNG.randrange(-2, 34) * 4 & 0xFFFFFFFF, RNG.randrange(-2, 34) & 0xFFFFFFFF] for _ in range(26)],
        tex="surfl")
c1 = RNG.sample(range(64), 32)
add(S2, "sust.b.1d.b32.roundtrip", ["s32", "u32"], ["u32"],
    ["sust.b.1d.b32.trap [%ta5, {%a0}], {%a1};", "suld.b.1d.b32.trap {%d0}, [%ta5, {%a0}];"],
    rows=[[x * 4, RNG.getrandbits(32)] for x in c1], tex="surf1d")
c3 = RNG.sample(range(512), 64)
add(S2, "sust.b.3d.b16.roundtrip", ["s32", "s32", "s32", "u32"], ["u32"],
    ["cvt.u16.u32 %d1h, %a3;", "sust.b.3d.b16.trap [%ta5, {%a0, %a1, %a2, %a2}], {%d1h};",
     "suld.b.3d.b16.trap {%d1h}, [%ta5, {%a0, %a1, %a2, %a2}];", "cvt.u32.u16 %d0, %d1h;"],
    rows=[[(c % 8) * 2, (c // 8) % 8, c // 64, RNG.getrandbits(16)] for c in c3], tex="surf3d", extra_regs=".reg .b16 %d1h;")
cl = RNG.sample(range(4096), 64)
add(S2, "sust.b.a2d.b32.roundtrip", ["s32", "s32", "s32", "u32"], ["u32"],
    ["sust.b.a2d.b32.trap [%ta5, {%a0, %a1, %a2, %a2}], {%a3};", "suld.b.a2d.b32.trap {%d0}, [%ta5, {%a0, %a1, %a2, %a2}];"],
    rows=[[c // 1024, (c % 32) * 4, (c // 32) % 32, RNG.getrandbits(32)] for c in cl], tex="surfl")
cv = RNG.sample(range(512), 64)
add(S2, "sust.b.2d.v2.b32.roundtrip", ["s32", "s32", "u32", "u32"], ["u32"] * 2,
    ["sust.b.2d.v2.b32.trap [%ta5, {%a0, %a1}], {%a2, %a3};", "suld.b.2d.v2.b32.trap {%d0, %d1}, [%ta5, {%a0, %a1}];"],
    rows=[[(c % 16) * 8, c // 16, RNG.getrandbits(32), RNG.getrandbits(32)] for c in cv], tex="surf")

# An access .trap refuses: the launch's error (run in a process of its own).
add("texfault", "suld.b.2d.b32.trap.outside", ["s32", "s32"], ["u32"], "suld.b.2d.b32.trap {%d0}, [%ta5, {%a0, %a1}];",
    rows=[[0, 0]] * 31 + [[128, 0]], tex="surf")
add("texfault", "sust.b.2d.b32.trap.outside", ["s32", "s32"], ["u32"],
    ["sust.b.2d.b32.trap [%ta5, {%a0, %a1}], {%a0};", "mov.u32 %d0, 1;"], rows=[[0, 0]] * 31 + [[0, 32]], tex="surf")
# A vector access whose x is not a multiple of its size, inside the surface, in clamp mode.
add("texfault", "suld.b.2d.v2.b32.clamp.misaligned", ["s32", "s32"], ["u32"] * 2,
    "suld.b.2d.v2.b32.clamp {%d0, %d1}, [%ta5, {%a0, %a1}];", rows=[[0, 0]] * 31 + [[124, 3]], tex="surf")
add("texfault", "sust.b.2d.b32.zero.misaligned", ["s32", "s32"], ["u32"],
    ["sust.b.2d.b32.zero [%ta5, {%a0, %a1}], {%a0};", "mov.u32 %d0, 1;"], rows=[[0, 0]] * 31 + [[6, 2]], tex="surf")

# --- registers wider than the instruction's type (PTX ISA: operand size exceeding instruction-type size) ------
# Loads into wider registers (zero or sign extension by the instruction's type; .f32 into a .b64 register),
# stores of the low bits of a wider register, and arithmetic on wider registers. The output slot is first
# filled from input 1 so that a store's untouched bytes show.
def imp(name, ins, outs, body):
    add("implicit", name, ins, outs, body)
for t, d in [("f32", "b64"), ("u8", "b64"), ("s8", "b64"), ("s8", "u32"), ("u16", "b64"), ("s16", "b64"),
             ("s16", "u32"), ("u32", "b64"), ("s32", "b64"), ("b16", "u32"), ("b32", "b64")]:
    imp(f"ld.global.{t}.into.{d}", ["b64"], [d], [f"ld.global.{t} %d0, [%ta3];"])
for t, a in [("f32", "b64"), ("u8", "b64"), ("s8", "u32"), ("u16", "u32"), ("b16", "b64"), ("u32", "b64"),
             ("b8", "u32")]:
    imp(f"st.global.{t}.from.{a}", [a, "b64"], ["b64"],
        ["st.global.b64 [%ta4], %a1;", f"st.global.{t} [%ta4], %a0;", "ld.global.b64 %d0, [%ta4];"])
# ZLUDA's ld_st_implicit: an f32 loaded into a .b64 register and stored back as f32 over a filled slot.
imp("ld.st.f32.through.b64", ["b64", "b64"], ["b64"],
    ["st.global.b64 [%ta4], %a1;", "ld.global.f32 %g0, [%ta3];", "st.global.f32 [%ta4], %g0;", "ld.global.b64 %d0, [%ta4];"])
FAMILIES["implicit"][-1].extra_regs = ".reg .b64 %g<2>;"
for op, t, r in [("add", "u16", "u32"), ("add", "s16", "u32"), ("mul.lo", "u16", "u32"), ("sub", "s16", "u64"),
                 ("and", "b16", "u32"), ("shl", "b16", "u32"), ("add", "u32", "u64"), ("min", "s16", "u32")]:
    imp(f"{op}.{t}.on.{r}", [r, r], [r], [f"{op}.{t} %d0, %a0, %a1;"])
imp("setp.lt.s16.on.u32", ["u32", "u32"], ["pred"], ["setp.lt.s16 %d0, %a0, %a1;"])
imp("cvt.f32.s16.on.u32", ["u32"], ["f32"], ["cvt.rn.f32.s16 %d0, %a0;"])
# The H200's ptxas refuses arithmetic and setp on registers wider than the instruction's type ("Arguments
# mismatch for instruction"): only ld, st and cvt take them. Those forms are still generated above (the random
# inputs of the forms after them depend on it) and dropped here.
FAMILIES["implicit"] = [k for k in FAMILIES["implicit"]
                        if "_on_" not in k.name or k.name.startswith("t_cvt_")]

# --- write ---------------------------------------------------------------------------------------------
HEADER = [".version 8.5", ".target sm_90", ".address_size 64"]
os.makedirs(OUT, exist_ok=True)
total_forms = total_cases = 0
for fam, kernels in FAMILIES.items():
    header = [".version 8.5", ".target sm_90a", ".address_size 64"] if fam == "sm90a" else HEADER
    lines = ["#golden v1", f"family {fam}", "header " + "|".join(header)]
    for k in kernels:
        lines.append(f"kernel {k.name} ins={len(k.ins)} outs={len(k.outs)} block={k.block} cmp={k.approx or 'exact'} "
                     f"types={','.join(k.outs)}" + (f" tex={k.tex}" if k.tex else "") +
                     (" isolate=1" if fam in ("fault", "texfault") else ""))
        lines.append("ptx")
        lines += k.ptx().split("\n")
        lines.append("endptx")
        for r in k.rows:
            lines.append(("in " + " ".join(f"{int(v) & ((1 << 64) - 1):x}" for v in r)).rstrip())
        lines.append("end")
        total_forms += 1
        total_cases += len(k.rows)
    with open(os.path.join(OUT, f"{fam}.golden"), "w") as f:
        f.write("\n".join(lines) + "\n")
print(f"{total_forms} forms, {total_cases} cases in {len(FAMILIES)} families -> {OUT}")
