/* Transpose through a local-memory tile: reads and writes both run along rows.
 * Needs DEPTH_*, CN and TILE (tile side). Work-group: (TILE, rows) with
 * rows dividing the tile; global: (ceil(w/TILE)*TILE, ceil(h/TILE)*rows). */
#ifndef TILE
#error "TILE must be defined"
#endif

__kernel void transpose(__global const T *src, int src_pitch, __global T *dst, int dst_pitch,
                        int width, int height)
{
    __local TN tile[TILE][TILE + 1];
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int rows = get_local_size(1);
    const int bx = get_group_id(0) * TILE;
    const int by = get_group_id(1) * TILE;

    for (int j = ly; j < TILE; j += rows) {
        const int x = bx + lx, y = by + j;
        if (x < width && y < height)
            tile[j][lx] = VLOAD(x, ROW(src, src_pitch, y));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = ly; j < TILE; j += rows) {
        const int x = by + lx; /* column in dst = row in src */
        const int y = bx + j;  /* row in dst = column in src */
        if (x < height && y < width)
            VSTORE(tile[lx][j], x, ROW(dst, dst_pitch, y));
    }
}
