/* Bilinear resize, OpenCV INTER_LINEAR convention (pixel centres aligned):
 *   sx = (dx + 0.5) * sw / dw - 0.5 = ((2 dx + 1) sw - dw) / (2 dw)
 * computed exactly in integers, then clamped at the edges the way OpenCV
 * does (outside the image the weight goes to the edge pixel). */

inline void clv_resize_coord(int d, int s, int dsize, int *i0, int *i1, float *a)
{
    const long num = (long)(2 * d + 1) * s - dsize;
    const long den = 2L * dsize;
    long q = num >= 0 ? num / den : -((-num + den - 1) / den); /* floor */
    float frac = (float)(num - q * den) / (float)den;
    if (q < 0) {
        q = 0;
        frac = 0.0f;
    }
    if (q >= s - 1) {
        q = s - 1;
        frac = 0.0f;
    }
    *i0 = (int)q;
    *i1 = min((int)q + 1, s - 1);
    *a = frac;
}

__kernel void resize_bilinear(__global const T *src, int src_pitch, int sw, int sh,
                              __global T *dst, int dst_pitch, int dw, int dh)
{
    const int dx = get_global_id(0);
    const int dy = get_global_id(1);
    if (dx >= dw || dy >= dh)
        return;
    int x0, x1, y0, y1;
    float ax, ay;
    clv_resize_coord(dx, sw, dw, &x0, &x1, &ax);
    clv_resize_coord(dy, sh, dh, &y0, &y1, &ay);
    __global const T *r0 = ROW(src, src_pitch, y0);
    __global const T *r1 = ROW(src, src_pitch, y1);
    const FN top = LOAD_PIX(r0, x0) * (1.0f - ax) + LOAD_PIX(r0, x1) * ax;
    const FN bot = LOAD_PIX(r1, x0) * (1.0f - ax) + LOAD_PIX(r1, x1) * ax;
    STORE_PIX(ROW(dst, dst_pitch, dy), dx, top * (1.0f - ay) + bot * ay);
}
