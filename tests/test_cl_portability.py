#!/usr/bin/env python3
"""Portability lint of the kernel sources (cl/*.cl, tests/cl/*.cl).

PoCL accepts some things other OpenCL C 1.2 compilers refuse; each rule here
is a construct that built on PoCL and failed (or would fail) elsewhere:
  - variadic macros: not in OpenCL C 1.2; NVIDIA's compiler rejects them
    (a GATOMIC(..., ...) macro broke every program there once);
  - the double type: optional (cl_khr_fp64), absent on many Intel GPUs;
  - printf: OpenCL C 1.2 has it, but output ordering and buffer limits vary;
    kernels report through the debug fault record instead;
  - OpenCL extension pragmas other than FP_CONTRACT: need a device query first;
  - a helper that is `inline` without `static`: under C99 inline rules there is
    no external definition, and upstream clang (ROCm) fails to link any call it
    did not inline ("undefined hidden symbol", seen with CLV_DEBUG=1 and
    -cl-opt-disable).
Comments are ignored. Exit 1 listing file:line for each hit."""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = [
    (re.compile(r"#\s*define\s+\w+\s*\([^)]*\.\.\.\s*\)"), "variadic macro"),
    (re.compile(r"__VA_ARGS__"), "__VA_ARGS__"),
    (re.compile(r"\bdouble\d*\b"), "double type (cl_khr_fp64 is optional)"),
    (re.compile(r"\bprintf\s*\("), "printf in a kernel"),
    (re.compile(r"#\s*pragma\s+OPENCL\s+EXTENSION"), "extension pragma"),
    (re.compile(r"(?<!static )\binline\b"), "inline without static"),
]


def strip_comments(text):
    """Blank out /* */ and // comments, keeping line numbers."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    text = re.sub(r"/\*.*?\*/", blank, text, flags=re.S)
    return re.sub(r"//[^\n]*", blank, text)


def main():
    files = sorted(glob.glob(os.path.join(ROOT, "cl", "*.cl")) +
                   glob.glob(os.path.join(ROOT, "tests", "cl", "*.cl")))
    if len(files) < 12:
        print("expected the kernel sources under %s/cl, found %d files" % (ROOT, len(files)))
        return 1
    hits = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            lines = strip_comments(f.read()).split("\n")
        for n, line in enumerate(lines, 1):
            for rx, what in RULES:
                if rx.search(line):
                    print("%s:%d: %s: %s" % (os.path.relpath(path, ROOT), n, what, line.strip()))
                    hits += 1
    # the rules must be able to fire: each on a line written to break it
    probes = ["#define F(a, ...) g(a, __VA_ARGS__)", "double x = 1.0;", "printf(\"%d\", 1);",
              "#pragma OPENCL EXTENSION cl_khr_fp64 : enable", "inline float f(float x)"]
    for p in probes:
        if not any(rx.search(p) for rx, _ in RULES):
            print("lint rule self-check failed on: %s" % p)
            hits += 1
    print("cl-portability: %d files, %d findings" % (len(files), hits))
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main())
