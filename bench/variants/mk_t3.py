#!/usr/bin/env python3
"""Timing variant (bench/run_gpu.sh t3): the local-memory transpose for u8 x 3
moving 16-byte vectors both ways. The tile's 32 source rows come in as 6
aligned 16-byte loads each (96 bytes: 32 pixels), its 32 destination rows
leave as 6 aligned 16-byte stores each, and the bytes are rearranged in
local memory (rows 100 bytes apart, so the gathers spread over the banks).
The tile kernel as it is moves one pixel (3 bytes, as 3 byte accesses) per
load and per store. Same launch shape (TILE 32, the host's rows), so it
drops in for the tile kernel for DEPTH_U8 with CN 3. Usage: mk_t3.py OUTDIR
(a copy of cl/ with transpose.cl changed)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clcopy import copy_with  # noqa: E402

OLD = """__kernel void transpose(__global const T *src, int src_pitch, __global T *dst, int dst_pitch,
                        int width, int height CLV_DBG_PARAMS)
{"""

NEW = """#if defined(DEPTH_U8) && CN == 3 && TILE == 32
#define T3_RB 100 /* bytes a tile row takes in local memory: 96, and 4 to spread the banks */
#define T3_JOIN(a)                                                                              \\
    ((uchar16)((a)[0], (a)[1], (a)[2], (a)[3], (a)[4], (a)[5], (a)[6], (a)[7], (a)[8], (a)[9],  \\
               (a)[10], (a)[11], (a)[12], (a)[13], (a)[14], (a)[15]))
__kernel void transpose(__global const uchar *src, int src_pitch, __global uchar *dst,
                        int dst_pitch, int width, int height CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 2);
    __local uint tile[32 * T3_RB / 4];
    __local const uchar *tb = (__local const uchar *)tile;
    const int lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    const int nl = get_local_size(0) * get_local_size(1);
    const int bx = get_group_id(0) * 32, by = get_group_id(1) * 32;
    const int full = bx + 32 <= width && by + 32 <= height;
    for (int i = lid; i < 32 * 6; i += nl) {
        const int r = i / 6, v = i - r * 6;
        const int y = min(by + r, height - 1);
        __global const uchar *row = ROW(src, src_pitch, y) + bx * 3 + 16 * v;
        uint4 w;
        if (full) {
            w = GVLDA(uint4, src, (__global const uint *)row);
        } else {
            uchar q[16];
            CLV_UNROLL
            for (int k = 0; k < 16; k++)
                q[k] = by + r < height && bx * 3 + 16 * v + k < width * 3 ? GLD(src, row, k) : 0;
            w = as_uint4(T3_JOIN(q));
        }
        vstore4(w, 0, tile + r * (T3_RB / 4) + 4 * v);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < 32 * 6; i += nl) {
        const int r = i / 6, v = i - r * 6; /* destination row bx + r, its bytes 16 v .. */
        if (bx + r >= width)
            continue;
        uchar o[16];
        CLV_UNROLL
        for (int q = 0; q < 16; q++) {
            const int e = 16 * v + q, p = e / 3;
            o[q] = tb[p * T3_RB + 3 * r + (e - 3 * p)];
        }
        __global uchar *drow = ROW(dst, dst_pitch, bx + r) + by * 3 + 16 * v;
        if (full) {
            GVSTA(uint4, dst, as_uint4(T3_JOIN(o)), (__global uint *)drow);
        } else {
            CLV_UNROLL
            for (int q = 0; q < 16; q++)
                if (by * 3 + 16 * v + q < height * 3)
                    GST(dst, drow, q, o[q]);
        }
    }
}
#else
__kernel void transpose(__global const T *src, int src_pitch, __global T *dst, int dst_pitch,
                        int width, int height CLV_DBG_PARAMS)
{"""

OLD2 = """            GVSTORE(dst, tile[lx][j], x, ROW(dst, dst_pitch, y));
    }
}
"""
NEW2 = OLD2 + "#endif\n"


def main():
    copy_with(sys.argv[1], "transpose.cl", [(OLD, NEW), (OLD2, NEW2)])


if __name__ == "__main__":
    main()
