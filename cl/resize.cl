/* Bilinear resize, OpenCV INTER_LINEAR convention (pixel centres aligned).
 * The host computes, exactly, per destination column and row the first
 * source index and the weight of the next one (tab: x0[dw], ax[dw] as float
 * bits, y0[dh], ay[dh]); the kernel only blends. */

__kernel void resize_bilinear(__global const T *src, int src_pitch, int sw, int sh,
                              __global T *dst, int dst_pitch, int dw, int dh,
                              __global const int *tab CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    CLV_DBG_BUF(tab, 8);
    const int dx = get_global_id(0);
    const int dy = get_global_id(1);
    if (dx >= dw || dy >= dh)
        return;
    const int x0 = GLD(tab, tab, dx);
    const float ax = as_float(GLD(tab, tab, dw + dx));
    const int y0 = GLD(tab, tab, 2 * dw + dy);
    const float ay = as_float(GLD(tab, tab, 2 * dw + dh + dy));
    const int x1 = min(x0 + 1, sw - 1);
    const int y1 = min(y0 + 1, sh - 1);
    __global const T *r0 = ROW(src, src_pitch, y0);
    __global const T *r1 = ROW(src, src_pitch, y1);
    const FN top = LOAD_PIX(src, r0, x0) * (1.0f - ax) + LOAD_PIX(src, r0, x1) * ax;
    const FN bot = LOAD_PIX(src, r1, x0) * (1.0f - ax) + LOAD_PIX(src, r1, x1) * ax;
    STORE_PIX(dst, ROW(dst, dst_pitch, dy), dx, top * (1.0f - ay) + bot * ay);
}

#ifdef VEC
/* CPU variant: VEC consecutive output pixels of one row per work-item; the
 * two source rows are fixed, so the fixed-length inner loop vectorises. */
__kernel void resize_bilinear_vec(__global const T *src, int src_pitch, int sw, int sh,
                                  __global T *dst, int dst_pitch, int dw, int dh,
                                  __global const int *tab CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    CLV_DBG_BUF(tab, 8);
    const int dx0 = get_global_id(0) * VEC;
    const int dy = get_global_id(1);
    if (dx0 >= dw || dy >= dh)
        return;
    const int y0 = GLD(tab, tab, 2 * dw + dy);
    const float ay = as_float(GLD(tab, tab, 2 * dw + dh + dy));
    const int y1 = min(y0 + 1, sh - 1);
    __global const T *r0 = ROW(src, src_pitch, y0);
    __global const T *r1 = ROW(src, src_pitch, y1);
    __global T *out = ROW(dst, dst_pitch, dy);
    const int n = min(VEC, dw - dx0);
    for (int i = 0; i < n; i++) {
        const int dx = dx0 + i;
        const int x0 = GLD(tab, tab, dx);
        const float ax = as_float(GLD(tab, tab, dw + dx));
        const int x1 = min(x0 + 1, sw - 1);
        const FN top = LOAD_PIX(src, r0, x0) * (1.0f - ax) + LOAD_PIX(src, r0, x1) * ax;
        const FN bot = LOAD_PIX(src, r1, x0) * (1.0f - ax) + LOAD_PIX(src, r1, x1) * ax;
        STORE_PIX(dst, out, dx, top * (1.0f - ay) + bot * ay);
    }
}
#endif
