#!/usr/bin/env python3
"""Timing variants (bench/run_gpu.sh pyc14) of the GPU pyramid kernels.
store8: pyr_reg_row's copy of level 0 as one aligned 8-byte store per
source row instead of two 4-byte stores, which write each 32-byte sector of
a warp's store in halves (H100, 2026-12-06: no faster). unroll2: the kernel as it is,
with pyr_reg's and pyr_stage1's row loops unrolled twice (two output rows'
four source rows loaded before either is summed) instead of not at all.
Usage: mk_pyc.py store8|unroll2 OUTDIR (a copy of cl/ with that changed)."""
import os
import shutil
import sys

CL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "cl")

NEW = """            GVSTA(uchar8, copy,
                  (uchar8)((uchar)v[4], (uchar)v[5], (uchar)v[6], (uchar)v[7], (uchar)v[8],
                           (uchar)v[9], (uchar)v[10], (uchar)v[11]),
                  crow);"""
OLD = """            GVSTA(uchar4, copy, (uchar4)((uchar)v[4], (uchar)v[5], (uchar)v[6], (uchar)v[7]),
                  crow);
            GVSTA(uchar4, copy, (uchar4)((uchar)v[8], (uchar)v[9], (uchar)v[10], (uchar)v[11]),
                  crow + 4);"""


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("store8", "unroll2"):
        sys.exit(__doc__)
    out = sys.argv[2]
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(CL, out)
    path = os.path.join(out, "pyramid.cl")
    with open(path) as f:
        text = f.read()
    if sys.argv[1] == "store8":
        if text.count(OLD) != 1:
            sys.exit("mk_pyc.py: pyr_reg_row's two 4-byte copy stores not found once")
        text = text.replace(OLD, NEW)
    else:
        for loop in ("for (int p = 0; p < rows; p++) {", "for (int y1 = ys; y1 < ye; y1++) {"):
            a = "CLV_NO_UNROLL\n"
            i = text.find(loop)
            j = text.rfind(a, 0, i)
            if i < 0 or j < 0 or text[j + len(a):i].strip():
                sys.exit("mk_pyc.py: loop not found: " + loop)
            text = text[:j] + '_Pragma("unroll 2")\n' + text[j + len(a):]
    with open(path, "w") as f:
        f.write(text)
    print(out)


if __name__ == "__main__":
    main()
