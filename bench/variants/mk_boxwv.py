#!/usr/bin/env python3
"""Timing variant of box_wv (bench/run_gpu.sh bwv): its rows in batches of 4,
the batch's 4 incoming and 4 leaving rows loaded before any is added, so a
work-item has 8 loads in flight instead of 2 (the pass is latency-bound:
1.2-1.9 TB/s, few warps, each walking its rows a dependent step at a time);
the first ky - 1 rows likewise 4 at a time. Usage: mk_boxwv.py OUTDIR (a copy
of cl/ with box.cl changed)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clcopy import copy_with  # noqa: E402

OLD = """    uint8 s = 0;
    for (int t = 0; t + 1 < ky; t++) {
        const int sy = BORDER_ROW(y0 - ay + t, height);
        if (sy >= 0)
            s += convert_uint8(GVLDA(ushort8, sums, ROW(sums, sums_pitch, sy) + e0));
    }
    const int n = min(rows, height - y0);
    for (int p = 0; p < n; p++) {"""
NEW = """    uint8 s = 0;
#define BWV_AT(y) convert_uint8(GVLDA(ushort8, sums, ROW(sums, sums_pitch, (y)) + e0))
    int t = 0;
    for (; t + 4 < ky; t += 4) {
        uint8 a[4];
        CLV_UNROLL
        for (int q = 0; q < 4; q++) {
            const int sy = BORDER_ROW(y0 - ay + t + q, height);
            a[q] = sy >= 0 ? BWV_AT(sy) : (uint8)(0);
        }
        s += (a[0] + a[1]) + (a[2] + a[3]);
    }
    for (; t + 1 < ky; t++) {
        const int sy = BORDER_ROW(y0 - ay + t, height);
        if (sy >= 0)
            s += BWV_AT(sy);
    }
    const int n = min(rows, height - y0);
    int p = 0;
    for (; p + 4 <= n; p += 4) {
        uint8 a[4], b[4];
        CLV_UNROLL
        for (int q = 0; q < 4; q++) {
            const int yin = BORDER_ROW(y0 + p + q - ay + ky - 1, height);
            const int yout = BORDER_ROW(y0 + p + q - ay, height);
            a[q] = yin >= 0 ? BWV_AT(yin) : (uint8)(0);
            b[q] = yout >= 0 ? BWV_AT(yout) : (uint8)(0);
        }
        CLV_UNROLL
        for (int q = 0; q < 4; q++) {
            s += a[q];
            clv_u8_store8(dst CLV_DBG_PASS(dst), ROW(dst, dst_pitch, y0 + p + q) + e0,
                          convert_uchar8(clamp(convert_float8(s) * scale + 0.5f, 0.0f, 255.0f)),
                          nvals - e0);
            s -= b[q];
        }
    }
    for (; p < n; p++) {"""


def main():
    copy_with(sys.argv[1], "box.cl", [(OLD, NEW)])


if __name__ == "__main__":
    main()
