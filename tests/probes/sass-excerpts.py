"""On the device machine: excerpts of nvdisasm's listings of cubins, to learn
encodings the SASS front end does not read yet. Usage:
  python3 sass-excerpts.py OUT.txt CUBIN... -- PATTERN...
A PATTERN is a 3-hex-digit opcode (bits 0-11, as `zluda sass` prints it
last) or a regular expression over the listing's text; for each, up to 12
distinct forms are printed with 6 instructions of context before and after."""
import re
import subprocess
import sys

args = sys.argv[1:]
out_path, rest = args[0], args[1:]
split = rest.index("--")
cubins, patterns = rest[:split], rest[split + 1:]
line_re = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*/\* (0x[0-9a-f]{16}) \*/")
hi_re = re.compile(r"^\s*/\* (0x[0-9a-f]{16}) \*/")
seen = {p: {} for p in patterns}
with open(out_path, "w") as out:
    for cubin in cubins:
        try:
            text = subprocess.run(["nvdisasm", "-hex", "-c", cubin], capture_output=True, text=True, timeout=600).stdout
        except Exception as e:  # noqa: BLE001
            out.write(f"# {cubin}: {e}\n")
            continue
        insts = []  # (offset, text, lo, hi)
        lines = text.splitlines()
        for i, l in enumerate(lines):
            m = line_re.search(l)
            if m and i + 1 < len(lines):
                h = hi_re.search(lines[i + 1])
                if h:
                    insts.append((m.group(1), m.group(2).strip(), m.group(3), h.group(1)))
        for k, (off, txt, lo, hi) in enumerate(insts):
            op = lo[-3:]
            for p in patterns:
                hit = (len(p) == 3 and re.fullmatch(r"[0-9a-f]{3}", p) and op == p) or (len(p) != 3 and re.search(p, txt))
                if not hit:
                    continue
                form = re.sub(r"0x[0-9a-f]+|\d+", "N", txt.split(",")[0])
                if form in seen[p] or len(seen[p]) >= 12:
                    continue
                seen[p][form] = 1
                out.write(f"\n## {p} | {form} | {cubin}\n")
                for j in range(max(0, k - 6), min(len(insts), k + 7)):
                    o, t, l2, h2 = insts[j]
                    out.write(f"{'>>' if j == k else '  '} {o} {h2[2:]}:{l2[2:]}  {t}\n")
print("done", {p: len(v) for p, v in seen.items()})
