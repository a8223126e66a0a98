#!/usr/bin/env python3
"""Portability lint of the kernel sources: the files src/ops/ops.def
lists (the one list of them, which the library loads and meson installs) and
the test-only tests/cl/*.cl. A cl/*.cl missing from the list, or a listed file
missing from cl/, is a finding too: it would be neither loaded nor installed.

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


SOURCES = os.path.join(ROOT, "src", "ops", "ops.def")
ENTRY = re.compile(r'^CLV_SOURCE\(\s*(\w+)\s*,\s*"([^"]+\.cl)"\s*\)\s*$')


def listed_sources():
    """File names of the CLV_SOURCE entries of ops.def, in order; an entry line it cannot read
    (a form meson.build's reader would misread too) raises SystemExit."""
    names = []
    with open(SOURCES, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if line.startswith("CLV_SOURCE("):
                m = ENTRY.match(line)
                if not m:
                    raise SystemExit("%s:%d: cannot read the entry: %s" % (SOURCES, n, line))
                names.append(m.group(2))
    return names


def main():
    names = listed_sources()
    hits = 0
    on_disk = {os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "cl", "*.cl"))}
    for name in sorted(on_disk - set(names)):
        print("cl/%s: not listed in src/ops/ops.def (neither loaded nor installed)" % name)
        hits += 1
    for name in names:
        if name not in on_disk:
            print("src/ops/ops.def: lists %s, not found in cl/" % name)
            hits += 1
    if len(names) != len(set(names)) or not names or names[0] != "common.cl":
        print("src/ops/ops.def: each file once, common.cl first (got %s)" % names)
        hits += 1
    files = [os.path.join(ROOT, "cl", n) for n in names if n in on_disk] + \
        sorted(glob.glob(os.path.join(ROOT, "tests", "cl", "*.cl")))
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
