#!/usr/bin/env python3
"""Writes src/redirect/TraceSignatures.inc: the parameters of every function our
math libraries (cuBLAS, cuBLASLt, cuFFT, cuRAND, cuSPARSE, cuSOLVER, cuDNN, CUPTI,
NVML) export, for `zluda trace` (src/redirect/Trace.cpp). Read from our own
definitions: each library source is preprocessed with its compile command
(build/compile_commands.json), so definitions that macros generate are seen
expanded, and every exported definition
`extern "C" __attribute__((visibility("default"))) R name(params) {` gives a row
ZT("name", "Param1 Param2 ...", "kinds") with one kind letter per parameter:
p pointer (handles and descriptors too), i 32-bit integer or enum,
l 64-bit integer, f float, d double, s a structure by value (the trace prints
'?' from there on), and the result's kind after a '>'.
Usage: scripts/gen-trace-signatures.py [--check] [BUILD_DIR] (default: build); --check writes nothing and
fails when the file is not what the definitions give (a ctest runs it).
"""
import json
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARGS = [a for a in sys.argv[1:] if a != "--check"]
CHECK = "--check" in sys.argv[1:]
BUILD = ARGS[0] if ARGS else os.path.join(ROOT, "build")
LIBS = ["cublas", "cublasLt", "cufft", "curand", "cusparse", "cusolver", "cudnn", "nvml", "cupti"]
OUT = os.path.join(ROOT, "src", "redirect", "TraceSignatures.inc")

DEF = re.compile(r'extern\s+"C"\s+__attribute__\s*\(\(\s*visibility\s*\(\s*"default"\s*\)\s*\)\)\s+'
                 r'([\w\s\*]+?)\s*\b(\w+)\s*\(((?:[^()]|\([^()]*\))*)\)\s*(?:noexcept\s*)?\{')
TYPEDEF = re.compile(r'\btypedef\s+([^;{}]+?)\s*\b(\w+)\s*;')
TYPEDEF_BODY = re.compile(r'\btypedef\s+(struct|union|enum)\s*\w*\s*\{[^{}]*\}\s*(\w+)\s*;')
USING = re.compile(r'\busing\s+(\w+)\s*=\s*([^;]+);')
INT64 = {"int64_t", "uint64_t", "size_t", "ssize_t", "long", "intptr_t", "uintptr_t", "ptrdiff_t",
         "__int64_t", "__uint64_t", "__intptr_t", "__ssize_t", "long long", "unsigned long long",
         "unsigned long", "long int", "long unsigned int", "long long int", "long long unsigned int"}


def preprocess(entry):
    args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if a == "-c":
            continue
        out.append(a)
    r = subprocess.run(out + ["-E", "-P"], cwd=entry["directory"], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"preprocessing {entry['file']} failed:\n{r.stderr[:2000]}")
    return re.sub(r"\s+", " ", r.stdout)


def main():
    cc = json.load(open(os.path.join(BUILD, "compile_commands.json")))
    entries = [e for e in cc if any(f"/src/libs/{l}/" in e["file"] for l in LIBS) and
               not e["file"].endswith("Stubs.cpp")]
    sigs, typedefs = {}, {}
    for e in entries:
        text = preprocess(e)
        for m in TYPEDEF_BODY.finditer(text):
            typedefs.setdefault(m.group(2), "enum" if m.group(1) == "enum" else "struct")
        for m in TYPEDEF.finditer(text):
            if "(" not in m.group(1) and "{" not in m.group(1):
                typedefs.setdefault(m.group(2), m.group(1).strip())
        for m in USING.finditer(text):
            typedefs.setdefault(m.group(1), m.group(2).strip())
        for m in DEF.finditer(text):
            sigs.setdefault(m.group(2), (m.group(1).strip(), m.group(3).strip()))

    def kind(t):
        t = re.sub(r"\b(const|volatile|struct|enum|union|restrict|__restrict__)\b", " ", t)
        t = re.sub(r"\s+", " ", t).strip()
        if "*" in t or "[" in t or "(" in t:
            return "p"
        for _ in range(20):
            if t == "float":
                return "f"
            if t == "double":
                return "d"
            if t in INT64:
                return "l"
            if t in ("int", "unsigned", "unsigned int", "int32_t", "uint32_t", "short", "char", "bool",
                     "signed char", "unsigned char", "int16_t", "uint16_t", "int8_t", "uint8_t", "__int32_t",
                     "__uint32_t", "enum"):
                return "i"
            if t == "void":
                return "v"
            base = typedefs.get(t)
            if base is None or base == "struct":
                return "s" if base == "struct" or t.startswith(("cu", "float", "double")) else "i"
            base = re.sub(r"\b(const|volatile|struct|union)\b", " ", base)
            base = re.sub(r"\s+", " ", base).strip()
            if "*" in base:
                return "p"
            if base.startswith("enum"):
                return "i"
            t = base
        return "s"

    rows = []
    for name in sorted(sigs):
        ret, params = sigs[name]
        names, kinds = [], ""
        if params and params != "void":
            depth, cur, parts = 0, "", []
            for ch in params:
                if ch == "," and depth == 0:
                    parts.append(cur)
                    cur = ""
                    continue
                depth += ch in "(["
                depth -= ch in ")]"
                cur += ch
            parts.append(cur)
            for p in parts:
                p = p.strip()
                m = re.match(r"^(.*?)(\w+)\s*(\[\s*\w*\s*\])?$", p)
                if not m or not m.group(1).strip():  # an unnamed parameter: its type alone
                    names.append("_")
                    kinds += kind(p)
                else:
                    names.append(m.group(2))
                    kinds += "p" if m.group(3) else kind(m.group(1))
        rows.append(f'ZT("{name}", "{" ".join(names)}", "{kinds}>{kind(ret)}")')
    text = ("// Generated by scripts/gen-trace-signatures.py from our libraries' definitions: do not edit.\n"
            "// ZT(name, parameter names, kinds>result kind), sorted by name (see the script for the kinds).\n" +
            "\n".join(rows) + "\n")
    if CHECK:
        old = open(OUT).read() if os.path.exists(OUT) else ""
        if old != text:
            new, was = set(text.splitlines()), set(old.splitlines())
            diff = sorted(new - was)[:5] + ["(gone) " + r for r in sorted(was - new)[:5]]
            sys.exit("FAIL: src/redirect/TraceSignatures.inc is out of date (run scripts/gen-trace-signatures.py):\n" +
                     "\n".join(diff))
        print(f"PASS: {len(rows)} signatures current")
        return
    with open(OUT, "w") as f:
        f.write(text)
    print(f"{len(rows)} signatures -> {OUT}")


main()
