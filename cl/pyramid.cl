/* Gaussian pyramid step, OpenCV pyrDown:
 *   dst(x, y) = sum_{i,j=-2..2} k(i) k(j) src(2x + i, 2y + j) / 256,
 *   k = [1 4 6 4 1], border reflect101, dst size ((w+1)/2, (h+1)/2).
 * Sums are formed as OpenCV writes them: per source row
 *   r = c*6 + (b + d)*4 + a + e       (a..e = src(2x-2 .. 2x+2))
 * then the same over the five rows, times 1/256. For u8 and u16 every
 * partial sum is an integer below 2^24, so the float arithmetic is exact and
 * STORE_PIX's round-half-up gives OpenCV's (sum + 128) >> 8 bit for bit.
 * Needs DEPTH_*, CN, BORDER (reflect101). */
#pragma OPENCL FP_CONTRACT OFF

#ifndef BORDER
#error "BORDER must be defined"
#endif

#define PYR_TAP5(a, b, c, d, e) ((c) * 6.0f + ((b) + (d)) * 4.0f + (a) + (e))

/* Generic: one output pixel per work-item; the work-group stages its source
 * footprint ((2 lw + 3) x (2 lh + 3) pixels, border-mapped) in local memory. */
__kernel void pyr_down(__global const T *src, int src_pitch, int sw, int sh, __global T *dst,
                       int dst_pitch, int dw, int dh, __local float *tile CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int lw = get_local_size(0), lh = get_local_size(1);
    const int x0 = get_group_id(0) * lw, y0 = get_group_id(1) * lh;
    const int tw = 2 * lw + 3, th = 2 * lh + 3;
    for (int i = ly * lw + lx; i < tw * th; i += lw * lh) {
        const int ty = i / tw, tx = i - ty * tw;
        const int sy = BORDER_INDEX(2 * y0 - 2 + ty, sh);
        const int sx = BORDER_INDEX(2 * x0 - 2 + tx, sw);
        VSTORE(LOAD_PIX(src, ROW(src, src_pitch, sy), sx), i, tile);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = x0 + lx, y = y0 + ly;
    if (x < dw && y < dh) {
        FN r[5];
        for (int k = 0; k < 5; k++) {
            const int b = (2 * ly + k) * tw + 2 * lx;
            r[k] = PYR_TAP5(VLOAD(b, tile), VLOAD(b + 1, tile), VLOAD(b + 2, tile),
                            VLOAD(b + 3, tile), VLOAD(b + 4, tile));
        }
        const FN s = PYR_TAP5(r[0], r[1], r[2], r[3], r[4]);
        STORE_PIX(dst, ROW(dst, dst_pitch, y), x, s * (1.0f / 256.0f));
    }
}

#if defined(VEC) && CN == 1
#if VEC != 16
#error "pyr_down_vec is written for VEC == 16"
#endif
/* 32 consecutive source values from p (in buffer argument b) split into even
 * and odd positions. */
#define PYR_EVEN(b, p) TO_FV((CAT(T, 16))(GVLD(16, b, 0, (p)).even, GVLD(16, b, 0, (p) + 16).even))
#define PYR_ODD(b, p) TO_FV((CAT(T, 16))(GVLD(16, b, 0, (p)).odd, GVLD(16, b, 0, (p) + 16).odd))

/* CPU, one channel: 16 output pixels of one row per work-item. Interior
 * blocks read their 36 source values per row as even/odd vectors; blocks
 * touching the left or right edge go pixel by pixel through the border map. */
__kernel void pyr_down_vec(__global const T *src, int src_pitch, int sw, int sh,
                           __global T *dst, int dst_pitch, int dw, int dh CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    const int x0 = get_global_id(0) * 16;
    const int y = get_global_id(1);
    if (x0 >= dw || y >= dh)
        return;
    __global const T *rows[5];
    for (int k = 0; k < 5; k++)
        rows[k] = ROW(src, src_pitch, BORDER_INDEX(2 * y - 2 + k, sh));
    __global T *out = ROW(dst, dst_pitch, y);
    const int s0 = 2 * x0;
    if (s0 - 2 >= 0 && s0 + 33 < sw) {
        float16 r[5];
        for (int k = 0; k < 5; k++) {
            __global const T *p = rows[k] + s0;
            const float16 m2 = PYR_EVEN(src, p - 2), m1 = PYR_ODD(src, p - 2);
            const float16 c = PYR_EVEN(src, p), p1 = PYR_ODD(src, p);
            const float16 p2 = PYR_EVEN(src, p + 2);
            r[k] = PYR_TAP5(m2, m1, c, p1, p2);
        }
        const float16 s = PYR_TAP5(r[0], r[1], r[2], r[3], r[4]);
        /* lanes past dw land in the row's pitch padding; integer sums are
         * exact, so (s + 128) >> 8 in int is the rounded result */
#if defined(DEPTH_F32)
        GVSTA(float16, dst, s * (1.0f / 256.0f), out + x0);
#else
        GVSTA(CAT(T, 16), dst, CAT(convert_, CAT(T, 16))((convert_int16(s) + 128) >> 8), out + x0);
#endif
    } else {
        const int n = min(16, dw - x0);
        for (int i = 0; i < n; i++) {
            const int x = x0 + i;
            int xs[5];
            for (int t = 0; t < 5; t++)
                xs[t] = BORDER_INDEX(2 * x - 2 + t, sw);
            float r[5];
            for (int k = 0; k < 5; k++) {
                __global const T *p = rows[k];
                r[k] = PYR_TAP5((float)GLD(src, p, xs[0]), (float)GLD(src, p, xs[1]),
                                (float)GLD(src, p, xs[2]), (float)GLD(src, p, xs[3]),
                                (float)GLD(src, p, xs[4]));
            }
            const float s = PYR_TAP5(r[0], r[1], r[2], r[3], r[4]);
            GST(dst, out, x, FROM_FN_SCALAR(s * (1.0f / 256.0f)));
        }
    }
}
#endif
