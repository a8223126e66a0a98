#!/usr/bin/env python3
"""Timing variants (bench/run_gpu.sh upf15) of resize_bilinear, the GPU
kernel of the f32 and u16 upscaling resize (4 destination rows per
work-item, resize.c's up_rows). unroll4: a work-item whose 4 rows all lie
inside the image loads the 16 source values of its 4 rows first and then
makes and stores the 4 outputs (more loads in flight per work-item), where
the loop loads, computes and stores one row at a time.
Usage: mk_upf.py unroll4 OUTDIR (a copy of cl/ with that changed)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clcopy import copy_with  # noqa: E402

OLD = """    const int x1 = min(x0 + 1, sw - 1);
    for (int dy = dy0; dy < min(dy0 + rows, dh); dy++) {"""
NEW = """    const int x1 = min(x0 + 1, sw - 1);
    if (rows == 4 && dy0 + 4 <= dh) {
        FN a[4], b[4], c[4], d[4];
        float ay[4];
        CLV_UNROLL
        for (int k = 0; k < 4; k++) {
            const int y0 = GLD(tab, tab, 2 * dw + dy0 + k);
            ay[k] = as_float(GLD(tab, tab, 2 * dw + dh + dy0 + k));
            const int y1 = min(y0 + 1, sh - 1);
            __global const T *r0 = ROW(src, src_pitch, y0);
            __global const T *r1 = ROW(src, src_pitch, y1);
            a[k] = LOAD_PIX(src, r0, x0);
            b[k] = LOAD_PIX(src, r0, x1);
            c[k] = LOAD_PIX(src, r1, x0);
            d[k] = LOAD_PIX(src, r1, x1);
        }
        CLV_UNROLL
        for (int k = 0; k < 4; k++) {
            const FN top = a[k] * (1.0f - ax) + b[k] * ax;
            const FN bot = c[k] * (1.0f - ax) + d[k] * ax;
            STORE_PIX(dst, ROW(dst, dst_pitch, dy0 + k), dx, top * (1.0f - ay[k]) + bot * ay[k]);
        }
        return;
    }
    for (int dy = dy0; dy < min(dy0 + rows, dh); dy++) {"""


def main():
    if len(sys.argv) != 3 or sys.argv[1] != "unroll4":
        sys.exit(__doc__)
    copy_with(sys.argv[2], "resize.cl", [(OLD, NEW)])


if __name__ == "__main__":
    main()
