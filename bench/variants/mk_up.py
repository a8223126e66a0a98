#!/usr/bin/env python3
"""Timing variant of resize_up_reg (bench/run_gpu.sh upv): each source row's
taps for the work-item's 4 pixels come from RU_NW aligned 4-byte loads of the
bytes they span (bytes picked out by selects and shifts), instead of 8 CN
byte loads, where the span fits (else the byte loads). Little-endian only: a
timing copy, not the library's kernel. Usage: mk_up.py OUTDIR (a copy of cl/
with resize.cl changed)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clcopy import copy_with  # noqa: E402

OLD = """#define RU_HROW(h, r)                                                                           \\
    CLV_UNROLL                                                                                  \\
    for (int i = 0; i < 4; i++)                                                                 \\
        CLV_UNROLL                                                                              \\
        for (int c = 0; c < CN; c++)                                                            \\
            h[i * CN + c] = (float)GLD(src, r, xa[i] + c) * (1.0f - ax[i]) +                   \\
                            (float)GLD(src, r, xb[i] + c) * ax[i];
"""
NEW = """#define RU_NW (CN == 1 ? 3 : CN == 2 ? 4 : CN == 3 ? 5 : 6)
static inline uint ru_byte(const uint *w, int o)
{
    uint q = w[0];
    CLV_UNROLL
    for (int k = 1; k < RU_NW; k++)
        q = (o >> 2) == k ? w[k] : q;
    return (q >> ((o & 3) * 8)) & 255u;
}
#define RU_HROW(h, r)                                                                           \\
    if (wide_ok) {                                                                              \\
        uint w_[RU_NW];                                                                         \\
        CLV_UNROLL                                                                              \\
        for (int k = 0; k < RU_NW; k++)                                                         \\
            w_[k] = as_uint(GVLDA(uchar4, src, r + wb + 4 * k));                                \\
        CLV_UNROLL                                                                              \\
        for (int i = 0; i < 4; i++)                                                             \\
            CLV_UNROLL                                                                          \\
            for (int c = 0; c < CN; c++)                                                        \\
                h[i * CN + c] = (float)ru_byte(w_, xa[i] + c - wb) * (1.0f - ax[i]) +           \\
                                (float)ru_byte(w_, xb[i] + c - wb) * ax[i];                     \\
    } else {                                                                                    \\
        CLV_UNROLL                                                                              \\
        for (int i = 0; i < 4; i++)                                                             \\
            CLV_UNROLL                                                                          \\
            for (int c = 0; c < CN; c++)                                                        \\
                h[i * CN + c] = (float)GLD(src, r, xa[i] + c) * (1.0f - ax[i]) +               \\
                                (float)GLD(src, r, xb[i] + c) * ax[i];                         \\
    }
"""
OLD2 = """    float top[4 * CN], bot[4 * CN];"""
NEW2 = """    const int wb = xa[0] & ~3;
    const int wide_ok = xb[3] + CN - 1 - wb < 4 * RU_NW && wb + 4 * RU_NW <= src_pitch;
    float top[4 * CN], bot[4 * CN];"""


def main():
    copy_with(sys.argv[1], "resize.cl", [(OLD, NEW), (OLD2, NEW2)])


if __name__ == "__main__":
    main()
