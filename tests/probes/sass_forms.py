#!/usr/bin/env python3
"""Reads nvdisasm -hex listings and keeps, for every instruction form (opcode
with its modifiers, and the kinds of its operands), up to K distinct encodings
with their text: a compact decoding oracle from code too large to check in
(PyTorch's cubins). Run on the device machine by tests/probes/sass-record.sh.

Usage: sass_forms.py K LISTING... > forms.tsv
Output lines: form<TAB>count<TAB>hex128<TAB>text  (hex128 = high:low 64-bit words)."""
import re, sys

INS = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\*\s*(0x[0-9a-f]{16})\s*\*/")
HI = re.compile(r"^\s*/\*\s*(0x[0-9a-f]{16})\s*\*/\s*$")


def instructions(path):
    pending = None
    for line in open(path, errors="replace"):
        m = INS.search(line)
        if m:
            pending = (m.group(2), m.group(3))
            continue
        h = HI.match(line)
        if h and pending:
            yield pending[0], h.group(1)[2:] + pending[1][2:]
        pending = None


def kind(op):
    op = op.strip().lstrip("-!|~")
    if re.match(r"^U?P[0-9T]", op): return "p"
    if re.match(r"^UR(Z|\d+)", op): return "ur"
    if re.match(r"^R(Z|\d+)", op): return "r"
    if op.startswith("c[") or op.startswith("cx["): return "c"
    if op.startswith("["): return "m"
    if re.match(r"^(SR_|desc)", op): return op.split(".")[0] if op.startswith("SR_") else "desc"
    if re.match(r"^-?(0x[0-9a-f]+|\d+(\.\d*)?(e[+-]?\d+)?|\+?INF|-?QNAN|NAN)", op, re.I): return "i"
    if op.startswith("`("): return "l"
    return "o"


def form(text):
    t = re.sub(r"^@!?U?P\w+\s+", "", text)
    parts = t.split(None, 1)
    ops = parts[1].split(",") if len(parts) > 1 else []
    return parts[0] + " " + ",".join(kind(o) for o in ops)


def main():
    k = int(sys.argv[1])
    seen, counts = {}, {}
    for path in sys.argv[2:]:
        for text, hexw in instructions(path):
            f = form(text)
            counts[f] = counts.get(f, 0) + 1
            s = seen.setdefault(f, {})
            if len(s) < k and hexw not in s:
                s[hexw] = text
    for f in sorted(seen, key=lambda x: -counts[x]):
        for hexw, text in seen[f].items():
            print("%s\t%d\t%s:%s\t%s" % (f, counts[f], hexw[:16], hexw[16:], text))


if __name__ == "__main__":
    main()
