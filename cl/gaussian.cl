/* Separable Gaussian, two local-memory tiled passes:
 *   gauss_rows: src -> float scratch, weights wx[0..2rx]
 *   gauss_cols: scratch -> dst, weights wy[0..2ry]
 * Work-group (lx, ly); each pass stages its tile plus the kernel halo in local
 * memory (size passed by the host, which shrinks the group to fit).
 * Needs DEPTH_*, CN, BORDER. */
#ifndef BORDER
#error "BORDER must be defined"
#endif

__kernel void gauss_rows(__global const T *src, int src_pitch, int width, int height,
                         __global float *tmp, __constant float *wx, int rx, __local float *tile)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int lw = get_local_size(0), lh = get_local_size(1);
    const int x0 = get_group_id(0) * lw;
    const int y = get_group_id(1) * lh + ly;
    const int n = lw + 2 * rx;
    __local float *trow = tile + (size_t)ly * n * CN;
    if (y < height) {
        __global const T *row = ROW(src, src_pitch, y);
        for (int i = lx; i < n; i += lw) {
            const int sx = BORDER_INDEX(x0 - rx + i, width);
            VSTORE(sx < 0 ? FN_ZERO : LOAD_PIX(row, sx), i, trow);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = x0 + lx;
    if (y < height && x < width) {
        FN s = FN_ZERO;
        for (int t = 0; t <= 2 * rx; t++)
            s += VLOAD(lx + t, trow) * wx[t];
        VSTORE(s, x, tmp + (size_t)y * (size_t)width * CN);
    }
}

__kernel void gauss_cols(__global const float *tmp, int width, int height, __global T *dst,
                         int dst_pitch, __constant float *wy, int ry, __local float *tile)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int lw = get_local_size(0), lh = get_local_size(1);
    const int x = get_group_id(0) * lw + lx;
    const int y0 = get_group_id(1) * lh;
    const int n = lh + 2 * ry;
    const size_t pitch = (size_t)width * CN;
    if (x < width) {
        for (int i = ly; i < n; i += lh) {
            const int sy = BORDER_INDEX(y0 - ry + i, height);
            VSTORE(sy < 0 ? FN_ZERO : VLOAD(x, tmp + (size_t)sy * pitch), (size_t)i * lw + lx,
                   tile);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int y = y0 + ly;
    if (y < height && x < width) {
        FN s = FN_ZERO;
        for (int t = 0; t <= 2 * ry; t++)
            s += VLOAD((size_t)(ly + t) * lw + lx, tile) * wy[t];
        STORE_PIX(ROW(dst, dst_pitch, y), x, s);
    }
}
