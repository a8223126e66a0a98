/* Box (mean) filter as two running-sum passes, so the cost per pixel does not
 * grow with the window:
 *   box_rows: src -> float sums over kx columns (scratch, CN floats/pixel).
 *     A work-group loads its row segment plus the window's halo into local
 *     memory once; each work-item then slides a running sum over `chunk`
 *     consecutive outputs.
 *   box_cols: sums over ky rows of the scratch, scaled, -> dst. Each
 *     work-item slides down `chunk` rows of one column (reads along rows are
 *     contiguous across work-items).
 * Needs DEPTH_*, CN, BORDER. */
#ifndef BORDER
#error "BORDER must be defined"
#endif

__kernel void box_rows(__global const T *src, int src_pitch, int width, int height,
                       __global float *sums, int kx, int ax, int chunk, __local float *seg)
{
    /* No early return: every work-item reaches the barrier (PoCL and some
     * GPU compilers mishandle returns around barriers). */
    const int y = get_global_id(1);
    const int lid = get_local_id(0);
    const int lsize = get_local_size(0);
    const int seg_len = lsize * chunk;          /* outputs of this group */
    const int x0 = get_group_id(0) * seg_len;   /* first output */
    const int n = seg_len + kx - 1;             /* inputs needed */
    const int valid_row = y < height;
    if (valid_row) {
        __global const T *row = ROW(src, src_pitch, y);
        for (int i = lid; i < n; i += lsize) {
            const int sx = BORDER_INDEX(x0 - ax + i, width);
            const FN v = sx < 0 ? FN_ZERO : LOAD_PIX(row, sx);
            VSTORE(v, i, seg);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int first = lid * chunk;
    const int last = min(chunk, width - x0 - first);
    if (valid_row && last > 0) {
        FN s = FN_ZERO;
        for (int t = 0; t < kx; t++)
            s += VLOAD(first + t, seg);
        __global float *out = sums + (size_t)y * (size_t)width * CN;
        VSTORE(s, x0 + first, out);
        for (int j = 1; j < last; j++) {
            s += VLOAD(first + j + kx - 1, seg) - VLOAD(first + j - 1, seg);
            VSTORE(s, x0 + first + j, out);
        }
    }
}

__kernel void box_cols(__global const float *sums, int width, int height, __global T *dst,
                       int dst_pitch, int ky, int ay, int chunk, float scale)
{
    const int x = get_global_id(0);
    const int y0 = get_global_id(1) * chunk;
    if (x >= width || y0 >= height)
        return;
    const size_t pitch = (size_t)width * CN;
    FN s = FN_ZERO;
    for (int t = 0; t < ky; t++) {
        const int sy = BORDER_INDEX(y0 - ay + t, height);
        if (sy >= 0)
            s += VLOAD(x, sums + (size_t)sy * pitch);
    }
    STORE_PIX(ROW(dst, dst_pitch, y0), x, s * scale);
    const int last = min(chunk, height - y0);
    for (int j = 1; j < last; j++) {
        const int yin = BORDER_INDEX(y0 + j - ay + ky - 1, height);
        const int yout = BORDER_INDEX(y0 + j - 1 - ay, height);
        if (yin >= 0)
            s += VLOAD(x, sums + (size_t)yin * pitch);
        if (yout >= 0)
            s -= VLOAD(x, sums + (size_t)yout * pitch);
        STORE_PIX(ROW(dst, dst_pitch, y0 + j), x, s * scale);
    }
}

#ifdef VEC
/* CPU variant, pass 1: vertical running sums, src -> float scratch. Each
 * work-item owns VEC values of the flattened row and slides down `chunk`
 * rows: two vector loads and one store per output vector, whatever ky. */
__kernel void box_cols_vec(__global const T *src, int src_pitch, int nvals, int height,
                           __global float *sums, int sums_pitch, int ky, int ay, int chunk)
{
    const int e = get_global_id(0) * VEC;
    const int y0 = get_global_id(1) * chunk;
    if (e >= nvals || y0 >= height)
        return;
    FV s = (FV)(0.0f);
    for (int t = 0; t < ky; t++) {
        const int sy = BORDER_INDEX(y0 - ay + t, height);
        if (sy >= 0)
            s += TO_FV(VLOAD_AT(e, ROW(src, src_pitch, sy)));
    }
    VSTORE_AT(s, e, ROW(sums, sums_pitch, y0));
    const int last = min(chunk, height - y0);
    for (int j = 1; j < last; j++) {
        const int yin = BORDER_INDEX(y0 + j - ay + ky - 1, height);
        const int yout = BORDER_INDEX(y0 + j - 1 - ay, height);
        if (yin >= 0)
            s += TO_FV(VLOAD_AT(e, ROW(src, src_pitch, yin)));
        if (yout >= 0)
            s -= TO_FV(VLOAD_AT(e, ROW(src, src_pitch, yout)));
        VSTORE_AT(s, e, ROW(sums, sums_pitch, y0 + j));
    }
}

/* CPU variant, pass 2: horizontal sums of the scratch, scaled, -> dst. Blocks
 * whose window stays inside the row add kx unaligned vectors; blocks at the
 * edges go value by value through the border rule. */
__kernel void box_rows_vec(__global const float *sums, int sums_pitch, int width, int height,
                           __global T *dst, int dst_pitch, int kx, int ax, float scale)
{
    const int e = get_global_id(0) * VEC;
    const int y = get_global_id(1);
    const int nvals = width * CN;
    if (e >= nvals || y >= height)
        return;
    __global const float *row = ROW(sums, sums_pitch, y);
    __global T *out = ROW(dst, dst_pitch, y);
    const int x_lo = e / CN, x_hi = (e + VEC - 1) / CN;
    if (x_lo - ax >= 0 && x_hi - ax + kx - 1 < width) {
        FV s = (FV)(0.0f);
        for (int t = 0; t < kx; t++)
            s += VLOAD_AT(e + (t - ax) * CN, row);
        VSTORE_AT(FROM_FV(s * scale), e, out);
    } else {
        const int end = min(e + VEC, nvals);
        for (int i = e; i < end; i++) {
            const int x = i / CN, c = i - x * CN;
            float s = 0.0f;
            for (int t = 0; t < kx; t++) {
                const int sx = BORDER_INDEX(x - ax + t, width);
                if (sx >= 0)
                    s += row[sx * CN + c];
            }
            out[i] = FROM_FN_SCALAR(s * scale);
        }
    }
}
#endif
