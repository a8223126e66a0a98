#!/usr/bin/env python3
"""One kernel of an OpenCL program's PTX (NVIDIA's driver, dumped by
bench/ptxinfo.py --dump), made loadable by the CUDA driver for
bench/twin/ptxrun: the other .entry blocks go (CUDA refuses kernels whose
parameters point to shared memory, as OpenCL __local arguments do), and a
__constant argument becomes a global one (`.ptr .const` and its `ld.const`
loads, when the module has no .const variables of its own): its loads then
go through the read-only global path instead of the constant cache, so
that kernel's figures are near, not exact. Usage: ptx_entry.py IN KERNEL OUT"""
import re
import sys


def main():
    src, name, out = sys.argv[1:4]
    lines = open(src).read().split("\n")
    keep, skip = [], False
    for line in lines:
        m = re.match(r"^(\.visible\s+)?\.entry\s+(\w+)\s*\(", line)
        if m:
            skip = m.group(2) != name
        if not skip:
            keep.append(line)
        elif line == "}":
            skip = False
    text = "\n".join(keep)
    if not re.search(r"^\s*\.const\s", text, re.M):
        text = text.replace(".ptr .const", ".ptr .global").replace("ld.const.", "ld.global.nc.")
    if not re.search(r"\.entry\s+%s\s*\(" % name, text):
        sys.exit("ptx_entry: no kernel %s in %s" % (name, src))
    open(out, "w").write(text)


if __name__ == "__main__":
    main()
