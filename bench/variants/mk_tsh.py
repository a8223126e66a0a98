#!/usr/bin/env python3
"""Timing variant (bench/run_gpu.sh tsw13): the local-memory transpose on a
tile TW pixels wide and TH tall instead of TILE x TILE, with the same number
of work-groups where TW * TH = TILE * TILE (the host's launch is unchanged:
groups past the last tile return), and optionally its groups in strips
TR_SWZ tiles wide (as cl/transpose.cl under -DTR_SWZ). A wider tile reads
longer runs of each source row, a taller one writes longer runs of each
destination row. Usage: mk_tsh.py OUTDIR TW TH [SWZ] (a copy of cl/ with
transpose.cl changed)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clcopy import copy_with  # noqa: E402

OLD = """__kernel void transpose(__global const T *src, int src_pitch, __global T *dst, int dst_pitch,
                        int width, int height CLV_DBG_PARAMS)
{"""

NEW = """__kernel void transpose(__global const T *src, int src_pitch, __global T *dst, int dst_pitch,
                        int width, int height CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 2);
    __local TN tile[TSH_TH][TSH_TW + 1];
    const int lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    const int nl = get_local_size(0) * get_local_size(1);
    const int ntx = (width + TSH_TW - 1) / TSH_TW, nty = (height + TSH_TH - 1) / TSH_TH;
    const int gid = get_group_id(1) * get_num_groups(0) + get_group_id(0);
    if (gid >= ntx * nty)
        return;
#if TSH_SWZ > 0
    const int strip = gid / (TSH_SWZ * nty);
    const int sw = min(TSH_SWZ, ntx - strip * TSH_SWZ);
    const int r = gid - strip * TSH_SWZ * nty;
    const int bx = (strip * TSH_SWZ + r % sw) * TSH_TW, by = (r / sw) * TSH_TH;
#else
    const int bx = (gid % ntx) * TSH_TW, by = (gid / ntx) * TSH_TH;
#endif
    for (int i = lid; i < TSH_TW * TSH_TH; i += nl) {
        const int j = i / TSH_TW, k = i - j * TSH_TW;
        const int x = bx + k, y = by + j;
        if (x < width && y < height)
            tile[j][k] = GVLOAD(src, x, ROW(src, src_pitch, y));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < TSH_TW * TSH_TH; i += nl) {
        const int j = i / TSH_TH, k = i - j * TSH_TH; /* destination row bx + j, pixel by + k */
        const int x = by + k, y = bx + j;
        if (x < height && y < width)
            GVSTORE(dst, tile[k][j], x, ROW(dst, dst_pitch, y));
    }
}

__kernel void transpose_unused(__global const T *src, int src_pitch, __global T *dst,
                               int dst_pitch, int width, int height CLV_DBG_PARAMS)
{"""


def main():
    out, tw, th = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    swz = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    head = "#define TSH_TW %d\n#define TSH_TH %d\n#define TSH_SWZ %d\n" % (tw, th, swz)
    copy_with(out, "transpose.cl", [(OLD, NEW), ("#ifndef TILE\n", head + "#ifndef TILE\n")])


if __name__ == "__main__":
    main()
