#!/usr/bin/env python3
"""Timing variants (bench/run_gpu.sh upf15) of resize_bilinear, the GPU
kernel of the f32 and u16 upscaling resize (4 destination rows per
work-item, resize.c's up_rows). Since b5924b7 a work-item whose 4 rows all
lie inside the image loads their 16 source values first and then makes and
stores the 4 outputs. loop: that fast path taken out, so that every
work-item loads, computes and stores one row at a time (the kernel before
b5924b7; H100, 2026-12-06: 4K f32 one channel 68.3-69.2 us against
60.0-60.9 with the fast path).
Usage: mk_upf.py loop OUTDIR (a copy of cl/ with that changed)."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clcopy import CL, copy_with  # noqa: E402

# the fast path: from its comment to its return and closing brace
FAST = re.compile(r"    /\* 4 rows \(resize\.c's up_rows\).*?        return;\n    }\n", re.S)


def main():
    if len(sys.argv) != 3 or sys.argv[1] != "loop":
        sys.exit(__doc__)
    text = open(os.path.join(CL, "resize.cl")).read()
    found = FAST.findall(text)
    if len(found) != 1:
        sys.exit("mk_upf.py: resize_bilinear's 4-row fast path not found once")
    copy_with(sys.argv[2], "resize.cl", [(found[0], "")])


if __name__ == "__main__":
    main()
