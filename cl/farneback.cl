/* Farneback dense optical flow (G. Farneback, "Two-frame motion estimation
 * based on polynomial expansion", SCIA 2003), following OpenCV's
 * calcOpticalFlowFarneback step for step so results are comparable:
 *   fb_convert        u8/f32 image -> f32
 *   fb_poly_v/_h      polynomial expansion as separable filtering: 5 f32
 *                     coefficients per pixel (OpenCV's channel order)
 *   fb_update_matrices  per-pixel 2x2 system from R0, R1 at the displaced
 *                     position and the current flow (5 f32 per pixel)
 *   fb_blur_v, fb_blur_h_solve  box or Gaussian averaging of the systems,
 *                     the regularised 2x2 solve, and (fused, no neighbour
 *                     exchange needed) the matrices for the next iteration;
 *                     fb_blur_solve does both passes in one launch (GPUs)
 *   fb_scale_flow     flow *= factor (after resizing between levels)
 * Multi-value buffers are planar: value c of pixel (x, y) is at
 * c * ps + y * pp + x, with row pitch pp (a multiple of 16) and plane size
 * ps = pp * h, so neighbouring work-items read neighbouring floats.
 * Borders replicate.
 * Needs DEPTH_* and CN=1 for fb_convert's input. */

__kernel void fb_convert(__global const T *src, int sp, int w, int h, __global float *dst,
                         int dp CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    GST(dst, ROW(dst, dp, y), x, convert_float(GLD(src, ROW(src, sp, y), x)));
}

/* The polynomial expansion's sums for one pixel or 16 (VT: float or
 * float16), in one order for both widths. The caller has g, xg, xxg, n, y
 * and h in scope.
 * FB_POLY_V_SUMS: vertical part, (sum g I, sum xg dI, sum xxg I) over rows
 * y-n..y+n (the x g and x^2 g weights are symmetric/antisymmetric as in
 * OpenCV); LD(r) loads row r at the caller's columns.
 * FB_POLY_H_SUMS: horizontal part over the three planes' rows p0, p1, p2:
 * b1 .. b6 of the projection (fb_poly_h); LD(p, k) loads row p at column
 * offset k from the caller's (the caller clamps at the row ends). */
#define FB_POLY_V_SUMS(VT, LD, t0, t1, t2)                                                      \
    do {                                                                                       \
        t0 = LD(y) * GLD(g, g, 0);                                                             \
        t1 = (VT)(0.0f);                                                                       \
        t2 = (VT)(0.0f);                                                                       \
        for (int k_ = 1; k_ <= n; k_++) {                                                      \
            const VT a_ = LD(max(y - k_, 0));                                                  \
            const VT b_ = LD(min(y + k_, h - 1));                                              \
            const VT p_ = a_ + b_;                                                             \
            t0 += GLD(g, g, k_) * p_;                                                          \
            t1 += GLD(xg, xg, k_) * (b_ - a_);                                                 \
            t2 += GLD(xxg, xxg, k_) * p_;                                                      \
        }                                                                                      \
    } while (0)
#define FB_POLY_H_SUMS(VT, LD, b1, b2, b3, b4, b5, b6)                                          \
    do {                                                                                       \
        const float g0_ = GLD(g, g, 0);                                                        \
        b1 = LD(p0, 0) * g0_;                                                                  \
        b2 = (VT)(0.0f);                                                                       \
        b3 = LD(p1, 0) * g0_;                                                                  \
        b4 = (VT)(0.0f);                                                                       \
        b5 = LD(p2, 0) * g0_;                                                                  \
        b6 = (VT)(0.0f);                                                                       \
        for (int k_ = 1; k_ <= n; k_++) {                                                      \
            const VT r0_ = LD(p0, k_), l0_ = LD(p0, -k_);                                      \
            const VT r1_ = LD(p1, k_), l1_ = LD(p1, -k_);                                      \
            const VT r2_ = LD(p2, k_), l2_ = LD(p2, -k_);                                      \
            const VT tg_ = r0_ + l0_;                                                          \
            b1 += tg_ * GLD(g, g, k_);                                                         \
            b4 += tg_ * GLD(xxg, xxg, k_);                                                     \
            b2 += (r0_ - l0_) * GLD(xg, xg, k_);                                               \
            b3 += (r1_ + l1_) * GLD(g, g, k_);                                                 \
            b6 += (r1_ - l1_) * GLD(xg, xg, k_);                                               \
            b5 += (r2_ + l2_) * GLD(g, g, k_);                                                 \
        }                                                                                      \
    } while (0)

/* Vertical part, one pixel per work-item. */
__kernel void fb_poly_v(__global const float *img, int ip, int w, int h,
                        __constant float *g, __constant float *xg, __constant float *xxg, int n,
                        __global float *t3, int pp CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(img, 0);
    CLV_DBG_BUF(g, 4);
    CLV_DBG_BUF(xg, 5);
    CLV_DBG_BUF(xxg, 6);
    CLV_DBG_BUF(t3, 8);
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    float t0, t1, t2;
#define FB_LD(r) GLD(img, ROW(img, ip, (r)), x)
    FB_POLY_V_SUMS(float, FB_LD, t0, t1, t2);
#undef FB_LD
    const size_t ps = (size_t)pp * h, i = (size_t)y * pp + x;
    GST(t3, t3, i, t0);
    GST(t3, t3, ps + i, t1);
    GST(t3, t3, 2 * ps + i, t2);
}

/* Horizontal part's sums at pixel x of the row whose three planes start at
 * p0, p1, p2 (pointers into t3), columns clamped: b[0 .. 5] = b1 .. b6 of
 * the projection below. */
static inline void fb_poly_h_sums(__global const float *t3 CLV_DBG_PARAM(t3),
                                  __global const float *p0, __global const float *p1,
                                  __global const float *p2, int x, int w,
                                  __constant float *g CLV_DBG_PARAM(g),
                                  __constant float *xg CLV_DBG_PARAM(xg),
                                  __constant float *xxg CLV_DBG_PARAM(xxg), int n, float *b)
{
    float b1, b2, b3, b4, b5, b6;
#define FB_LD(p, k) GLD(t3, (p), clamp(x + (k), 0, w - 1))
    FB_POLY_H_SUMS(float, FB_LD, b1, b2, b3, b4, b5, b6);
#undef FB_LD
    b[0] = b1;
    b[1] = b2;
    b[2] = b3;
    b[3] = b4;
    b[4] = b5;
    b[5] = b6;
}

/* Horizontal part and the projection onto the polynomial basis. */
__kernel void fb_poly_h(__global const float *t3, int w, int h, int pp, __constant float *g,
                        __constant float *xg, __constant float *xxg, int n, float ig11,
                        float ig03, float ig33, float ig55, __global float *r CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(t3, 0);
    CLV_DBG_BUF(g, 4);
    CLV_DBG_BUF(xg, 5);
    CLV_DBG_BUF(xxg, 6);
    CLV_DBG_BUF(r, 12);
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    const size_t ps = (size_t)pp * h;
    __global const float *p0 = t3 + (size_t)y * pp, *p1 = p0 + ps, *p2 = p1 + ps;
    float b[6];
    fb_poly_h_sums(t3 CLV_DBG_PASS(t3), p0, p1, p2, x, w, g CLV_DBG_PASS(g), xg CLV_DBG_PASS(xg),
                   xxg CLV_DBG_PASS(xxg), n, b);
    const size_t i = (size_t)y * pp + x;
    GST(r, r, i, b[2] * ig11);
    GST(r, r, ps + i, b[1] * ig11);
    GST(r, r, 2 * ps + i, b[0] * ig03 + b[4] * ig33);
    GST(r, r, 3 * ps + i, b[0] * ig03 + b[3] * ig33);
    GST(r, r, 4 * ps + i, b[5] * ig55);
}

/* The 2x2 system of one pixel for displacement (dx, dy): OpenCV's
 * FarnebackUpdateMatrices, with its down-weighting of the 5-pixel border.
 * Writes the 5 values at index i of the planar buffer M. */
static inline void fb_matrices(__global const float *R0 CLV_DBG_PARAM(R0),
                        __global const float *R1 CLV_DBG_PARAM(R1), int w, int h, int pp, int x,
                        int y, float dx, float dy, __global float *M CLV_DBG_PARAM(M))
{
    const size_t ps = (size_t)pp * h, i = (size_t)y * pp + x;
    float fx = (float)x + dx, fy = (float)y + dy;
    const int x1 = (int)floor(fx), y1 = (int)floor(fy);
    fx -= (float)x1;
    fy -= (float)y1;
    float r2, r3, r4, r5, r6;
    const float q0 = GLD(R0, R0, i), q1 = GLD(R0, R0, ps + i), q2 = GLD(R0, R0, 2 * ps + i),
                q3 = GLD(R0, R0, 3 * ps + i), q4 = GLD(R0, R0, 4 * ps + i);
    if (x1 >= 0 && y1 >= 0 && x1 < w - 1 && y1 < h - 1) {
        const float a00 = (1.f - fx) * (1.f - fy), a01 = fx * (1.f - fy), a10 = (1.f - fx) * fy,
                    a11 = fx * fy;
        const size_t j = (size_t)y1 * pp + x1;
#define FB_BIL(c) (a00 * GLD(R1, R1, (c) * ps + j) + a01 * GLD(R1, R1, (c) * ps + j + 1) + \
                   a10 * GLD(R1, R1, (c) * ps + j + pp) + a11 * GLD(R1, R1, (c) * ps + j + pp + 1))
        r2 = FB_BIL(0);
        r3 = FB_BIL(1);
        r4 = FB_BIL(2);
        r5 = FB_BIL(3);
        r6 = FB_BIL(4);
#undef FB_BIL
        r4 = (q2 + r4) * 0.5f;
        r5 = (q3 + r5) * 0.5f;
        r6 = (q4 + r6) * 0.25f;
    } else {
        r2 = r3 = 0.f;
        r4 = q2;
        r5 = q3;
        r6 = q4 * 0.5f;
    }
    r2 = (q0 - r2) * 0.5f;
    r3 = (q1 - r3) * 0.5f;
    r2 += r4 * dy + r6 * dx;
    r3 += r6 * dy + r5 * dx;

    const int B = 5;
    if (x < B || y < B || x >= w - B || y >= h - B) {
        const float border[5] = {0.14f, 0.14f, 0.4472f, 0.4472f, 0.4472f};
        const float scale = (x < B ? border[x] : 1.f) * (x >= w - B ? border[w - x - 1] : 1.f) *
                            (y < B ? border[y] : 1.f) * (y >= h - B ? border[h - y - 1] : 1.f);
        r2 *= scale;
        r3 *= scale;
        r4 *= scale;
        r5 *= scale;
        r6 *= scale;
    }
    GST(M, M, i, r4 * r4 + r6 * r6);
    GST(M, M, ps + i, (r4 + r5) * r6);
    GST(M, M, 2 * ps + i, r5 * r5 + r6 * r6);
    GST(M, M, 3 * ps + i, r4 * r2 + r6 * r3);
    GST(M, M, 4 * ps + i, r6 * r2 + r5 * r3);
}

__kernel void fb_update_matrices(__global const float *R0, __global const float *R1,
                                 __global const float *flow, int fp, int w, int h, int pp,
                                 __global float *M CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(R0, 0);
    CLV_DBG_BUF(R1, 1);
    CLV_DBG_BUF(flow, 2);
    CLV_DBG_BUF(M, 7);
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    const float2 d = GVLD(2, flow, x, ROW(flow, fp, y));
    fb_matrices(R0 CLV_DBG_PASS(R0), R1 CLV_DBG_PASS(R1), w, h, pp, x, y, d.x, d.y,
                M CLV_DBG_PASS(M));
}

/* Vertical weighted sum of the 5 system values over rows y-m..y+m, for
 * FB_ROWS consecutive rows y0.. of column x: each row of M is loaded once
 * and feeds every output row whose window holds it (per output the taps are
 * still summed in window order). s[r][c]: value c of row y0 + r. FB_ROWS
 * comes from the host (-D, farneback.c's fb_tile). */
#ifndef FB_ROWS
#error "farneback.cl needs -DFB_ROWS (rows per work-item of the averaging, from farneback.c)"
#endif
static inline void fb_vsums(__global const float *M CLV_DBG_PARAM(M), int h, int pp,
                            __constant float *wt CLV_DBG_PARAM(wt), int m, int x, int y0,
                            float s[FB_ROWS][5])
{
    const size_t ps = (size_t)pp * h;
    for (int r = 0; r < FB_ROWS; r++)
        for (int c = 0; c < 5; c++)
            s[r][c] = 0.f;
    for (int k = -m; k <= m + FB_ROWS - 1; k++) {
        const size_t j = (size_t)clamp(y0 + k, 0, h - 1) * pp + x;
        const float v0 = GLD(M, M, j), v1 = GLD(M, M, ps + j), v2 = GLD(M, M, 2 * ps + j),
                    v3 = GLD(M, M, 3 * ps + j), v4 = GLD(M, M, 4 * ps + j);
#pragma unroll
        for (int r = 0; r < FB_ROWS; r++) {
            const int t = k - r; /* tap of output row y0 + r */
            if (t >= -m && t <= m) {
                const float c = GLD(wt, wt, t + m);
                s[r][0] += c * v0;
                s[r][1] += c * v1;
                s[r][2] += c * v2;
                s[r][3] += c * v3;
                s[r][4] += c * v4;
            }
        }
    }
}

/* The regularised 2x2 solve at (x, y) from the averaged system, the flow
 * written, and - when update is set - the system for the next iteration at
 * the new displacement into M. */
static inline void fb_solve(float g11, float g12, float g22, float h1, float h2,
                            __global float *flow CLV_DBG_PARAM(flow), int fp, int update,
                            __global const float *R0 CLV_DBG_PARAM(R0),
                            __global const float *R1 CLV_DBG_PARAM(R1), int w, int h, int pp,
                            int x, int y, __global float *M CLV_DBG_PARAM(M))
{
    const float idet = 1.0f / (g11 * g22 - g12 * g12 + 1e-3f);
    const float dx = (g11 * h2 - g12 * h1) * idet;
    const float dy = (g22 * h1 - g12 * h2) * idet;
    GVST(2, flow, (float2)(dx, dy), x, ROW(flow, fp, y));
    if (update)
        fb_matrices(R0 CLV_DBG_PASS(R0), R1 CLV_DBG_PASS(R1), w, h, pp, x, y, dx, dy,
                    M CLV_DBG_PASS(M));
}

/* The vertical averaging, FB_ROWS rows per work-item. Global size:
 * w x ceil(h / FB_ROWS). */
__kernel void fb_blur_v(__global const float *M, int w, int h, int pp, __constant float *wt, int m,
                        __global float *TM CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(M, 0);
    CLV_DBG_BUF(wt, 4);
    CLV_DBG_BUF(TM, 6);
    const int x = get_global_id(0), y0 = get_global_id(1) * FB_ROWS;
    if (x >= w || y0 >= h)
        return;
    const size_t ps = (size_t)pp * h;
    float s[FB_ROWS][5];
    fb_vsums(M CLV_DBG_PASS(M), h, pp, wt CLV_DBG_PASS(wt), m, x, y0, s);
#pragma unroll
    for (int r = 0; r < FB_ROWS; r++) {
        if (y0 + r < h) {
            const size_t i = (size_t)(y0 + r) * pp + x;
            GST(TM, TM, i, s[r][0]);
            GST(TM, TM, ps + i, s[r][1]);
            GST(TM, TM, 2 * ps + i, s[r][2]);
            GST(TM, TM, 3 * ps + i, s[r][3]);
            GST(TM, TM, 4 * ps + i, s[r][4]);
        }
    }
}

/* Horizontal weighted sum and fb_solve. */
__kernel void fb_blur_h_solve(__global const float *TM, int w, int h, int pp, __constant float *wt,
                              int m, __global float *flow, int fp, int update,
                              __global const float *R0, __global const float *R1,
                              __global float *M CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(TM, 0);
    CLV_DBG_BUF(wt, 4);
    CLV_DBG_BUF(flow, 6);
    CLV_DBG_BUF(R0, 9);
    CLV_DBG_BUF(R1, 10);
    CLV_DBG_BUF(M, 11);
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    const size_t ps = (size_t)pp * h;
    __global const float *row = TM + (size_t)y * pp;
    float g11 = 0.f, g12 = 0.f, g22 = 0.f, h1 = 0.f, h2 = 0.f;
    for (int k = -m; k <= m; k++) {
        const int j = clamp(x + k, 0, w - 1);
        const float c = GLD(wt, wt, k + m);
        g11 += c * GLD(TM, row, j);
        g12 += c * GLD(TM, row, ps + j);
        g22 += c * GLD(TM, row, 2 * ps + j);
        h1 += c * GLD(TM, row, 3 * ps + j);
        h2 += c * GLD(TM, row, 4 * ps + j);
    }
    fb_solve(g11, g12, g22, h1, h2, flow CLV_DBG_PASS(flow), fp, update, R0 CLV_DBG_PASS(R0),
             R1 CLV_DBG_PASS(R1), w, h, pp, x, y, M CLV_DBG_PASS(M));
}

/* fb_blur_v and fb_blur_h_solve in one launch (GPUs, tune.fb_fused): a
 * work-group of lw x lh work-items makes a tile of lw x lh * FB_ROWS
 * outputs. First the vertical sums of the tile's rows, for its columns and
 * m more on each side (clamped to the image as the horizontal pass clamps),
 * go to local memory - vt, 5 planes of th x (lw + 2m) floats - each
 * work-item summing FB_ROWS rows of a column as fb_blur_v does; then each
 * work-item makes FB_ROWS outputs from them as fb_blur_h_solve does. Per
 * pixel the same sums in the same order as the two passes. The next system
 * goes to Mn, not M: other work-groups may still be reading M. Global size:
 * ceil(w / lw) * lw x ceil(h / th) * lh, launched with that local size. */
__kernel void fb_blur_solve(__global const float *M, int w, int h, int pp, __constant float *wt,
                            int m, __global float *flow, int fp, int update,
                            __global const float *R0, __global const float *R1,
                            __global float *Mn, __local float *vt CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(M, 0);
    CLV_DBG_BUF(wt, 4);
    CLV_DBG_BUF(flow, 6);
    CLV_DBG_BUF(R0, 9);
    CLV_DBG_BUF(R1, 10);
    CLV_DBG_BUF(Mn, 11);
    const int lw = (int)get_local_size(0), lh = (int)get_local_size(1);
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    const int th = lh * FB_ROWS, cw = lw + 2 * m;
    const int x0 = (int)get_group_id(0) * lw, y0 = (int)get_group_id(1) * th;
    const int vs = th * cw; /* one plane of vt */
    for (int task = ly * lw + lx; task < cw * lh; task += lw * lh) {
        const int band = task / cw, c = task - band * cw;
        const int ya = y0 + band * FB_ROWS;
        if (ya >= h)
            continue; /* rows past the image: never read below */
        float s[FB_ROWS][5];
        fb_vsums(M CLV_DBG_PASS(M), h, pp, wt CLV_DBG_PASS(wt), m,
                 clamp(x0 - m + c, 0, w - 1), ya, s);
#pragma unroll
        for (int r = 0; r < FB_ROWS; r++)
            for (int p = 0; p < 5; p++)
                vt[p * vs + (band * FB_ROWS + r) * cw + c] = s[r][p];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = x0 + lx;
    if (x >= w)
        return;
    for (int r = 0; r < FB_ROWS; r++) {
        const int ty = r * lh + ly, y = y0 + ty;
        if (y >= h)
            break;
        __local const float *row = vt + ty * cw + lx + m;
        float g11 = 0.f, g12 = 0.f, g22 = 0.f, h1 = 0.f, h2 = 0.f;
        for (int k = -m; k <= m; k++) {
            const float c = GLD(wt, wt, k + m);
            g11 += c * row[k];
            g12 += c * row[vs + k];
            g22 += c * row[2 * vs + k];
            h1 += c * row[3 * vs + k];
            h2 += c * row[4 * vs + k];
        }
        fb_solve(g11, g12, g22, h1, h2, flow CLV_DBG_PASS(flow), fp, update,
                 R0 CLV_DBG_PASS(R0), R1 CLV_DBG_PASS(R1), w, h, pp, x, y, Mn CLV_DBG_PASS(Mn));
    }
}

#ifdef VEC
#if VEC != 16
#error "the Farneback CPU kernels are written for VEC == 16"
#endif
/* CPU variants of the two averaging passes: 16 consecutive pixels of a row
 * per work-item in float16 registers (PoCL vectorises these; it runs the
 * per-pixel loops above scalar). */
/* 16 pixels of fb_matrices at once (x0 .. x0+15 of row y, lanes past the
 * row land in the planes' padding). The bilinear taps of R1 are gathered lane
 * by lane; the arithmetic runs in float16. Needs w >= 2 and h >= 2 (the
 * caller uses the scalar form otherwise). */
static inline void fb_matrices_vec(__global const float *R0 CLV_DBG_PARAM(R0),
                            __global const float *R1 CLV_DBG_PARAM(R1), int w, int h, int pp,
                            int x0, int y, float16 dx, float16 dy,
                            __global float *M CLV_DBG_PARAM(M))
{
    const size_t ps = (size_t)pp * h, i = (size_t)y * pp + x0;
    const int16 lane = (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const int16 xi = (int16)(x0) + lane;
    float16 fx = convert_float16(xi) + dx, fy = (float16)((float)y) + dy;
    const float16 flx = floor(fx), fly = floor(fy);
    const int16 x1 = convert_int16(clamp(flx, -1.0e6f, 1.0e6f));
    const int16 y1 = convert_int16(clamp(fly, -1.0e6f, 1.0e6f));
    fx -= flx;
    fy -= fly;
    const int16 inside = (x1 >= 0) & (y1 >= 0) & (x1 < (int16)(w - 1)) & (y1 < (int16)(h - 1));
    const int16 xs = clamp(x1, 0, w - 2), ys = clamp(y1, 0, h - 2);
    float tap[5][4][16];
    int jl[16];
    vstore16(ys * (int16)(pp) + xs, 0, jl);
    for (int l = 0; l < 16; l++) {
        const size_t j = (size_t)jl[l];
        for (int c = 0; c < 5; c++) {
            __global const float *p = R1 + (size_t)c * ps + j;
            tap[c][0][l] = GLD(R1, p, 0);
            tap[c][1][l] = GLD(R1, p, 1);
            tap[c][2][l] = GLD(R1, p, pp);
            tap[c][3][l] = GLD(R1, p, pp + 1);
        }
    }
    const float16 a00 = (1.f - fx) * (1.f - fy), a01 = fx * (1.f - fy), a10 = (1.f - fx) * fy,
                  a11 = fx * fy;
#define FB_BILV(c) (a00 * vload16(0, tap[c][0]) + a01 * vload16(0, tap[c][1]) + \
                    a10 * vload16(0, tap[c][2]) + a11 * vload16(0, tap[c][3]))
    const float16 q0 = GVLD(16, R0, 0, R0 + i), q1 = GVLD(16, R0, 0, R0 + ps + i),
                  q2 = GVLD(16, R0, 0, R0 + 2 * ps + i), q3 = GVLD(16, R0, 0, R0 + 3 * ps + i),
                  q4 = GVLD(16, R0, 0, R0 + 4 * ps + i);
    float16 r2 = select((float16)(0.f), FB_BILV(0), inside);
    float16 r3 = select((float16)(0.f), FB_BILV(1), inside);
    float16 r4 = select(q2, (q2 + FB_BILV(2)) * 0.5f, inside);
    float16 r5 = select(q3, (q3 + FB_BILV(3)) * 0.5f, inside);
    float16 r6 = select(q4 * 0.5f, (q4 + FB_BILV(4)) * 0.25f, inside);
#undef FB_BILV
    r2 = (q0 - r2) * 0.5f;
    r3 = (q1 - r3) * 0.5f;
    r2 += r4 * dy + r6 * dx;
    r3 += r6 * dy + r5 * dx;
    const int B = 5;
    if (x0 < B || y < B || x0 + 15 >= w - B || y >= h - B) {
        /* OpenCV's border weights, per lane */
        float sc[16];
        for (int l = 0; l < 16; l++) {
            const int x = x0 + l;
            const float border[5] = {0.14f, 0.14f, 0.4472f, 0.4472f, 0.4472f};
            float v = 1.f;
            if (x < w) {
                v = (x < B ? border[x] : 1.f) * (x >= w - B ? border[w - x - 1] : 1.f) *
                    (y < B ? border[y] : 1.f) * (y >= h - B ? border[h - y - 1] : 1.f);
            }
            sc[l] = v;
        }
        const float16 scale = vload16(0, sc);
        r2 *= scale;
        r3 *= scale;
        r4 *= scale;
        r5 *= scale;
        r6 *= scale;
    }
    GVST(16, M, r4 * r4 + r6 * r6, 0, M + i);
    GVST(16, M, (r4 + r5) * r6, 0, M + ps + i);
    GVST(16, M, r5 * r5 + r6 * r6, 0, M + 2 * ps + i);
    GVST(16, M, r4 * r2 + r6 * r3, 0, M + 3 * ps + i);
    GVST(16, M, r6 * r2 + r5 * r3, 0, M + 4 * ps + i);
}

/* fb_poly_v and fb_poly_h for CPUs, 16 pixels of a row per work-item, the
 * same sums in the same order per pixel (PoCL ran the scalar kernels as
 * gathers: at 1920x1080, 8-10 ms and 17 ms a frame). Vectors may run past
 * the row into the pitch's padding (images and planes are padded to 16
 * floats); those lanes are never read as pixels. */
__kernel void fb_poly_v_vec(__global const float *img, int ip, int w, int h,
                            __constant float *g, __constant float *xg, __constant float *xxg,
                            int n, __global float *t3, int pp CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(img, 0);
    CLV_DBG_BUF(g, 4);
    CLV_DBG_BUF(xg, 5);
    CLV_DBG_BUF(xxg, 6);
    CLV_DBG_BUF(t3, 8);
    const int x0 = get_global_id(0) * 16, y = get_global_id(1);
    if (x0 >= w || y >= h)
        return;
    float16 t0, t1, t2;
#define FB_LD(r) GVLD(16, img, 0, ROW(img, ip, (r)) + x0)
    FB_POLY_V_SUMS(float16, FB_LD, t0, t1, t2);
#undef FB_LD
    const size_t ps = (size_t)pp * h, i = (size_t)y * pp + x0;
    GVST(16, t3, t0, 0, t3 + i);
    GVST(16, t3, t1, 0, t3 + ps + i);
    GVST(16, t3, t2, 0, t3 + 2 * ps + i);
}

__kernel void fb_poly_h_vec(__global const float *t3, int w, int h, int pp, __constant float *g,
                            __constant float *xg, __constant float *xxg, int n, float ig11,
                            float ig03, float ig33, float ig55, __global float *r CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(t3, 0);
    CLV_DBG_BUF(g, 4);
    CLV_DBG_BUF(xg, 5);
    CLV_DBG_BUF(xxg, 6);
    CLV_DBG_BUF(r, 12);
    const int x0 = get_global_id(0) * 16, y = get_global_id(1);
    if (x0 >= w || y >= h)
        return;
    const size_t ps = (size_t)pp * h;
    __global const float *p0 = t3 + (size_t)y * pp, *p1 = p0 + ps, *p2 = p1 + ps;
    float16 b1, b2, b3, b4, b5, b6;
    if (x0 - n >= 0 && x0 + 15 + n <= w - 1) {
#define FB_LD(p, k) GVLD(16, t3, 0, (p) + x0 + (k))
        FB_POLY_H_SUMS(float16, FB_LD, b1, b2, b3, b4, b5, b6);
#undef FB_LD
    } else {
        /* edge blocks: clamped columns, lane by lane (lanes past the row
         * read its last pixel) */
        float a[6][16];
        for (int l = 0; l < 16; l++) {
            float b[6];
            fb_poly_h_sums(t3 CLV_DBG_PASS(t3), p0, p1, p2, min(x0 + l, w - 1), w,
                           g CLV_DBG_PASS(g), xg CLV_DBG_PASS(xg), xxg CLV_DBG_PASS(xxg), n, b);
            for (int j = 0; j < 6; j++)
                a[j][l] = b[j];
        }
        b1 = vload16(0, a[0]);
        b2 = vload16(0, a[1]);
        b3 = vload16(0, a[2]);
        b4 = vload16(0, a[3]);
        b5 = vload16(0, a[4]);
        b6 = vload16(0, a[5]);
    }
    __global float *o = r + (size_t)y * pp + x0;
    GVST(16, r, b3 * ig11, 0, o);
    GVST(16, r, b2 * ig11, 0, o + ps);
    GVST(16, r, b1 * ig03 + b5 * ig33, 0, o + 2 * ps);
    GVST(16, r, b1 * ig03 + b4 * ig33, 0, o + 3 * ps);
    GVST(16, r, b6 * ig55, 0, o + 4 * ps);
}

__kernel void fb_update_matrices_vec(__global const float *R0, __global const float *R1,
                                     __global const float *flow, int fp, int w, int h, int pp,
                                     __global float *M CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(R0, 0);
    CLV_DBG_BUF(R1, 1);
    CLV_DBG_BUF(flow, 2);
    CLV_DBG_BUF(M, 7);
    const int x0 = get_global_id(0) * 16, y = get_global_id(1);
    if (x0 >= w || y >= h)
        return;
    __global const float *f = ROW(flow, fp, y);
    float fx[16], fy[16];
    const int n = min(16, w - x0);
    for (int l = 0; l < 16; l++) {
        fx[l] = l < n ? GLD(flow, f, 2 * (x0 + l)) : 0.f;
        fy[l] = l < n ? GLD(flow, f, 2 * (x0 + l) + 1) : 0.f;
    }
    if (w >= 2 && h >= 2) {
        fb_matrices_vec(R0 CLV_DBG_PASS(R0), R1 CLV_DBG_PASS(R1), w, h, pp, x0, y,
                        vload16(0, fx), vload16(0, fy), M CLV_DBG_PASS(M));
    } else {
        for (int l = 0; l < n; l++)
            fb_matrices(R0 CLV_DBG_PASS(R0), R1 CLV_DBG_PASS(R1), w, h, pp, x0 + l, y, fx[l],
                        fy[l], M CLV_DBG_PASS(M));
    }
}

__kernel void fb_blur_v_vec(__global const float *M, int w, int h, int pp, __constant float *wt,
                            int m, __global float *TM CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(M, 0);
    CLV_DBG_BUF(wt, 4);
    CLV_DBG_BUF(TM, 6);
    const int x0 = get_global_id(0) * 16, y = get_global_id(1);
    if (x0 >= w || y >= h)
        return;
    const size_t ps = (size_t)pp * h;
    float16 s0 = 0.f, s1 = 0.f, s2 = 0.f, s3 = 0.f, s4 = 0.f;
    for (int k = -m; k <= m; k++) {
        __global const float *p = M + (size_t)clamp(y + k, 0, h - 1) * pp + x0;
        const float c = GLD(wt, wt, k + m);
        s0 += c * GVLD(16, M, 0, p);
        s1 += c * GVLD(16, M, 0, p + ps);
        s2 += c * GVLD(16, M, 0, p + 2 * ps);
        s3 += c * GVLD(16, M, 0, p + 3 * ps);
        s4 += c * GVLD(16, M, 0, p + 4 * ps);
    }
    __global float *o = TM + (size_t)y * pp + x0;
    GVST(16, TM, s0, 0, o);
    GVST(16, TM, s1, 0, o + ps);
    GVST(16, TM, s2, 0, o + 2 * ps);
    GVST(16, TM, s3, 0, o + 3 * ps);
    GVST(16, TM, s4, 0, o + 4 * ps);
}

__kernel void fb_blur_h_solve_vec(__global const float *TM, int w, int h, int pp,
                                  __constant float *wt, int m, __global float *flow, int fp,
                                  int update, __global const float *R0, __global const float *R1,
                                  __global float *M CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(TM, 0);
    CLV_DBG_BUF(wt, 4);
    CLV_DBG_BUF(flow, 6);
    CLV_DBG_BUF(R0, 9);
    CLV_DBG_BUF(R1, 10);
    CLV_DBG_BUF(M, 11);
    const int x0 = get_global_id(0) * 16, y = get_global_id(1);
    if (x0 >= w || y >= h)
        return;
    const size_t ps = (size_t)pp * h;
    __global const float *row = TM + (size_t)y * pp;
    float16 g11 = 0.f, g12 = 0.f, g22 = 0.f, h1 = 0.f, h2 = 0.f;
    if (x0 - m >= 0 && x0 + 15 + m <= w - 1) {
        for (int k = -m; k <= m; k++) {
            __global const float *p = row + x0 + k;
            const float c = GLD(wt, wt, k + m);
            g11 += c * GVLD(16, TM, 0, p);
            g12 += c * GVLD(16, TM, 0, p + ps);
            g22 += c * GVLD(16, TM, 0, p + 2 * ps);
            h1 += c * GVLD(16, TM, 0, p + 3 * ps);
            h2 += c * GVLD(16, TM, 0, p + 4 * ps);
        }
    } else {
        /* edge blocks: clamped columns, lane by lane through a private array */
        float a[5][16];
        for (int l = 0; l < 16; l++) {
            float t0 = 0.f, t1 = 0.f, t2 = 0.f, t3 = 0.f, t4 = 0.f;
            for (int k = -m; k <= m; k++) {
                const int j = clamp(x0 + l + k, 0, w - 1);
                const float c = GLD(wt, wt, k + m);
                t0 += c * GLD(TM, row, j);
                t1 += c * GLD(TM, row, ps + j);
                t2 += c * GLD(TM, row, 2 * ps + j);
                t3 += c * GLD(TM, row, 3 * ps + j);
                t4 += c * GLD(TM, row, 4 * ps + j);
            }
            a[0][l] = t0;
            a[1][l] = t1;
            a[2][l] = t2;
            a[3][l] = t3;
            a[4][l] = t4;
        }
        g11 = vload16(0, a[0]);
        g12 = vload16(0, a[1]);
        g22 = vload16(0, a[2]);
        h1 = vload16(0, a[3]);
        h2 = vload16(0, a[4]);
    }
    const float16 idet = 1.0f / (g11 * g22 - g12 * g12 + 1e-3f);
    const float16 dx = (g11 * h2 - g12 * h1) * idet;
    const float16 dy = (g22 * h1 - g12 * h2) * idet;
    float fx[16], fy[16];
    vstore16(dx, 0, fx);
    vstore16(dy, 0, fy);
    __global float *frow = ROW(flow, fp, y);
    const int n = min(16, w - x0);
    for (int l = 0; l < n; l++) {
        GST(flow, frow, 2 * (x0 + l), fx[l]);
        GST(flow, frow, 2 * (x0 + l) + 1, fy[l]);
    }
    if (update) {
        if (w >= 2 && h >= 2)
            fb_matrices_vec(R0 CLV_DBG_PASS(R0), R1 CLV_DBG_PASS(R1), w, h, pp, x0, y, dx, dy,
                            M CLV_DBG_PASS(M));
        else
            for (int l = 0; l < n; l++)
                fb_matrices(R0 CLV_DBG_PASS(R0), R1 CLV_DBG_PASS(R1), w, h, pp, x0 + l, y,
                            fx[l], fy[l], M CLV_DBG_PASS(M));
    }
}
#endif

__kernel void fb_scale_flow(__global float *flow, int fp, int w, int h, float factor CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(flow, 0);
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    __global float *p = ROW(flow, fp, y) + 2 * x;
    GST(flow, p, 0, GLD(flow, p, 0) * factor);
    GST(flow, p, 1, GLD(flow, p, 1) * factor);
}

/* ---- the level images, fused (GPU path) ----
 * OpenCV makes level k of each frame as resize(GaussianBlur(f32(img), sigma_k),
 * w_k x h_k) and level 0 as GaussianBlur(f32(img), 3x3). These kernels compute
 * the same sums in the same order (row taps, then column taps, reflect-101
 * borders, then the bilinear resize of the four blurred neighbours), but
 * only where the level samples the blurred image, straight from the input
 * and for both frames at once (global id 2 picks the frame): no full-size
 * f32 copy, blur or resize pass. wt holds the 2r+1 blur weights. */
/* Column index of tap x in [0, n) with reflect-101 borders; the common
 * interior case costs one compare. */
static inline int fb_col(int x, int n)
{
    return (x >= 0 && x < n) ? x : clv_border_index(x, n, BORDER_REFLECT101);
}

__kernel void fb_level_blur(__global const T *src0, __global const T *src1, int sp, int w, int h,
                            __global float *dst0, __global float *dst1, int dp,
                            __constant float *wt, int r CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src0, 0);
    CLV_DBG_BUF(src1, 1);
    CLV_DBG_BUF(dst0, 5);
    CLV_DBG_BUF(dst1, 6);
    CLV_DBG_BUF(wt, 8);
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    const int f = get_global_id(2);
    __global const T *src = f ? src1 : src0;
    CLV_DBG_PICK(src, f, src1, src0);
    CLV_DBG_PICK(dst, f, dst1, dst0);
    const int interior = x - r >= 0 && x + r < w;
    float s = 0.0f;
    for (int j = 0; j <= 2 * r; j++) {
        __global const T *row = ROW(src, sp, fb_col(y - r + j, h));
        float hs = 0.0f;
        if (interior) {
            for (int i = 0; i <= 2 * r; i++)
                hs += convert_float(GLD(src, row, x - r + i)) * GLD(wt, wt, i);
        } else {
            for (int i = 0; i <= 2 * r; i++)
                hs += convert_float(GLD(src, row, fb_col(x - r + i, w))) * GLD(wt, wt, i);
        }
        s += hs * GLD(wt, wt, j);
    }
    GST(dst, ROW(f ? dst1 : dst0, dp, y), x, s);
}

__kernel void fb_level_blur_resize(__global const T *src0, __global const T *src1, int sp,
                                   int sw, int sh, __global float *dst0, __global float *dst1,
                                   int dp, int dw, int dh, __global const int *tab,
                                   __constant float *wt, int r CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src0, 0);
    CLV_DBG_BUF(src1, 1);
    CLV_DBG_BUF(dst0, 5);
    CLV_DBG_BUF(dst1, 6);
    CLV_DBG_BUF(tab, 10);
    CLV_DBG_BUF(wt, 11);
    const int dx = get_global_id(0), dy = get_global_id(1);
    if (dx >= dw || dy >= dh)
        return;
    const int f = get_global_id(2);
    __global const T *src = f ? src1 : src0;
    CLV_DBG_PICK(src, f, src1, src0);
    CLV_DBG_PICK(dst, f, dst1, dst0);
    const int x0 = GLD(tab, tab, dx);
    const float ax = as_float(GLD(tab, tab, dw + dx));
    const int y0 = GLD(tab, tab, 2 * dw + dy);
    const float ay = as_float(GLD(tab, tab, 2 * dw + dh + dy));
    const int dxr = min(x0 + 1, sw - 1) - x0; /* 0 or 1 */
    const int dyr = min(y0 + 1, sh - 1) - y0;
    const int interior = x0 - r >= 0 && x0 + dxr + r < sw;
    /* rows y0-r .. y1+r once, each feeding the column sums of y0 and/or y1;
     * along a row taps x0-r .. x1+r once, each feeding the row sums at x0
     * and/or x1 (weights in the same order as the separable passes) */
    float b00 = 0.0f, b01 = 0.0f, b10 = 0.0f, b11 = 0.0f;
    for (int j = 0; j <= 2 * r + dyr; j++) {
        __global const T *row = ROW(src, sp, fb_col(y0 - r + j, sh));
        float h0 = 0.0f, h1 = 0.0f;
        for (int i = 0; i <= 2 * r + dxr; i++) {
            const float v =
                convert_float(GLD(src, row, interior ? x0 - r + i : fb_col(x0 - r + i, sw)));
            if (i <= 2 * r)
                h0 += v * GLD(wt, wt, i);
            if (i >= dxr)
                h1 += v * GLD(wt, wt, i - dxr);
        }
        if (j <= 2 * r) {
            b00 += h0 * GLD(wt, wt, j);
            b01 += h1 * GLD(wt, wt, j);
        }
        if (j >= dyr) {
            b10 += h0 * GLD(wt, wt, j - dyr);
            b11 += h1 * GLD(wt, wt, j - dyr);
        }
    }
    const float top = b00 * (1.0f - ax) + b01 * ax;
    const float bot = b10 * (1.0f - ax) + b11 * ax;
    GST(dst, ROW(f ? dst1 : dst0, dp, dy), dx, top * (1.0f - ay) + bot * ay);
}

/* The coarser level's flow resized to this level (bilinear, the resize op's
 * table) and scaled by factor: OpenCV's resize(prevFlow) * (1 / pyr_scale),
 * one launch instead of two. Flow images hold interleaved (u, v). */
__kernel void fb_flow_up(__global const float *src, int sp, int sw, int sh, __global float *dst,
                         int dp, int dw, int dh, __global const int *tab,
                         float factor CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    CLV_DBG_BUF(tab, 8);
    const int dx = get_global_id(0), dy = get_global_id(1);
    if (dx >= dw || dy >= dh)
        return;
    const int x0 = GLD(tab, tab, dx);
    const float ax = as_float(GLD(tab, tab, dw + dx));
    const int y0 = GLD(tab, tab, 2 * dw + dy);
    const float ay = as_float(GLD(tab, tab, 2 * dw + dh + dy));
    const int x1 = min(x0 + 1, sw - 1);
    const int y1 = min(y0 + 1, sh - 1);
    __global const float *r0 = ROW(src, sp, y0);
    __global const float *r1 = ROW(src, sp, y1);
    const float2 top = GVLD(2, src, x0, r0) * (1.0f - ax) + GVLD(2, src, x1, r0) * ax;
    const float2 bot = GVLD(2, src, x0, r1) * (1.0f - ax) + GVLD(2, src, x1, r1) * ax;
    const float2 v = top * (1.0f - ay) + bot * ay;
    GVST(2, dst, v * factor, dx, ROW(dst, dp, dy));
}

/* The same level images in two passes, for the deeper levels whose wide
 * blur made fb_level_blur_resize a long serial loop per work-item:
 *   fb_level_rows: for every input row and every level column dx, the row
 *     sums at x0(dx) and x1(dx) -> tmp (float2 per (frame, row, dx));
 *   fb_level_cols: the column sums of those at y0(dy) and y1(dy), then the
 *     bilinear interpolation.
 * Same taps, weights and summation order as fb_level_blur_resize. */
__kernel void fb_level_rows(__global const T *src0, __global const T *src1, int sp, int sw,
                            int sh, __global float *tmp, int dw, __global const int *tab,
                            __constant float *wt, int r CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src0, 0);
    CLV_DBG_BUF(src1, 1);
    CLV_DBG_BUF(tmp, 5);
    CLV_DBG_BUF(tab, 7);
    CLV_DBG_BUF(wt, 8);
    const int dx = get_global_id(0), y = get_global_id(1);
    if (dx >= dw || y >= sh)
        return;
    const int f = get_global_id(2);
    CLV_DBG_PICK(src, f, src1, src0);
    __global const T *row = ROW(f ? src1 : src0, sp, y);
    const int x0 = GLD(tab, tab, dx);
    const int dxr = min(x0 + 1, sw - 1) - x0;
    const int interior = x0 - r >= 0 && x0 + dxr + r < sw;
    float h0 = 0.0f, h1 = 0.0f;
    for (int i = 0; i <= 2 * r + dxr; i++) {
        const float v =
            convert_float(GLD(src, row, interior ? x0 - r + i : fb_col(x0 - r + i, sw)));
        if (i <= 2 * r)
            h0 += v * GLD(wt, wt, i);
        if (i >= dxr)
            h1 += v * GLD(wt, wt, i - dxr);
    }
    GVST(2, tmp, (float2)(h0, h1), ((size_t)f * sh + y) * dw + dx, tmp);
}

__kernel void fb_level_cols(__global const float *tmp, int sh, __global float *dst0,
                            __global float *dst1, int dp, int dw, int dh,
                            __global const int *tab, __constant float *wt, int r CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(tmp, 0);
    CLV_DBG_BUF(dst0, 2);
    CLV_DBG_BUF(dst1, 3);
    CLV_DBG_BUF(tab, 7);
    CLV_DBG_BUF(wt, 8);
    const int dx = get_global_id(0), dy = get_global_id(1);
    if (dx >= dw || dy >= dh)
        return;
    const int f = get_global_id(2);
    CLV_DBG_PICK(dst, f, dst1, dst0);
    const float ax = as_float(GLD(tab, tab, dw + dx));
    const int y0 = GLD(tab, tab, 2 * dw + dy);
    const float ay = as_float(GLD(tab, tab, 2 * dw + dh + dy));
    const int dyr = min(y0 + 1, sh - 1) - y0;
    __global const float *col = tmp + (size_t)f * sh * dw * 2;
    float b00 = 0.0f, b01 = 0.0f, b10 = 0.0f, b11 = 0.0f;
    for (int j = 0; j <= 2 * r + dyr; j++) {
        const float2 hv = GVLD(2, tmp, (size_t)fb_col(y0 - r + j, sh) * dw + dx, col);
        if (j <= 2 * r) {
            b00 += hv.x * GLD(wt, wt, j);
            b01 += hv.y * GLD(wt, wt, j);
        }
        if (j >= dyr) {
            b10 += hv.x * GLD(wt, wt, j - dyr);
            b11 += hv.y * GLD(wt, wt, j - dyr);
        }
    }
    const float top = b00 * (1.0f - ax) + b01 * ax;
    const float bot = b10 * (1.0f - ax) + b11 * ax;
    GST(dst, ROW(f ? dst1 : dst0, dp, dy), dx, top * (1.0f - ay) + bot * ay);
}

/* fb_poly_v + fb_poly_h in one pass for both frames (GPU path): a work-group
 * of FB_PW x FB_PH pixels stages its image tile with an n-pixel halo
 * (replicated borders, as the two passes clamp), makes the vertical sums
 * for its rows over the tile's full width in local memory, then the
 * horizontal sums and the projection: the same expressions in the same
 * order as fb_poly_v and fb_poly_h, without the 3-plane intermediate in
 * global memory. FB_PW and FB_PH (-D) are chosen by the host from the
 * device's and kernel's limits (farneback.c's fb_tile where they allow); it
 * launches the kernel with exactly FB_PW x FB_PH x 1. The tile has room for
 * a halo of FB_PN_MAX (-D), at least the largest n the host sends. */
#if !defined(FB_PW) || !defined(FB_PH) || !defined(FB_PN_MAX)
#error "farneback.cl needs -DFB_PW, -DFB_PH and -DFB_PN_MAX (fb_poly_fused's tile)"
#endif
__kernel __attribute__((reqd_work_group_size(FB_PW, FB_PH, 1)))
void fb_poly_fused(__global const float *img0, __global const float *img1, int ip, int w, int h,
                   __constant float *g, __constant float *xg, __constant float *xxg, int n,
                   float ig11, float ig03, float ig33, float ig55, int pp, __global float *r0,
                   __global float *r1 CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(img0, 0);
    CLV_DBG_BUF(img1, 1);
    CLV_DBG_BUF(g, 5);
    CLV_DBG_BUF(xg, 6);
    CLV_DBG_BUF(xxg, 7);
    CLV_DBG_BUF(r0, 14);
    CLV_DBG_BUF(r1, 15);
    __local float tile[(FB_PH + 2 * FB_PN_MAX) * (FB_PW + 2 * FB_PN_MAX)];
    __local float t3[3][FB_PH][FB_PW + 2 * FB_PN_MAX];
    const int f = get_global_id(2);
    CLV_DBG_PICK(img, f, img1, img0);
    CLV_DBG_PICK(r, f, r1, r0);
    __global const float *src = f ? img1 : img0;
    const int lx = get_local_id(0), ly = get_local_id(1), lid = ly * FB_PW + lx;
    const int gx0 = get_group_id(0) * FB_PW, gy0 = get_group_id(1) * FB_PH;
    const int tw = FB_PW + 2 * n, th = FB_PH + 2 * n;
    for (int i = lid; i < tw * th; i += FB_PW * FB_PH) {
        const int ty = i / tw, tx = i - ty * tw;
        const int sy = clamp(gy0 - n + ty, 0, h - 1), sx = clamp(gx0 - n + tx, 0, w - 1);
        tile[i] = GLD(img, ROW(src, ip, sy), sx);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < FB_PH * tw; i += FB_PW * FB_PH) {
        const int ry = i / tw, tx = i - ry * tw;
        __local const float *col = tile + (ry + n) * tw + tx;
        float t0 = col[0] * GLD(g, g, 0), t1 = 0.0f, t2 = 0.0f;
        for (int k = 1; k <= n; k++) {
            const float a = col[-k * tw];
            const float b = col[k * tw];
            const float p = a + b;
            t0 += GLD(g, g, k) * p;
            t1 += GLD(xg, xg, k) * (b - a);
            t2 += GLD(xxg, xxg, k) * p;
        }
        t3[0][ry][tx] = t0;
        t3[1][ry][tx] = t1;
        t3[2][ry][tx] = t2;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = gx0 + lx, y = gy0 + ly;
    if (x < w && y < h) {
        __local const float *p0 = &t3[0][ly][lx + n], *p1 = &t3[1][ly][lx + n],
                            *p2 = &t3[2][ly][lx + n];
        const float g0 = GLD(g, g, 0);
        float b1 = p0[0] * g0, b2 = 0.0f, b3 = p1[0] * g0, b4 = 0.0f, b5 = p2[0] * g0, b6 = 0.0f;
        for (int k = 1; k <= n; k++) {
            const float tg = p0[k] + p0[-k];
            b1 += tg * GLD(g, g, k);
            b4 += tg * GLD(xxg, xxg, k);
            b2 += (p0[k] - p0[-k]) * GLD(xg, xg, k);
            b3 += (p1[k] + p1[-k]) * GLD(g, g, k);
            b6 += (p1[k] - p1[-k]) * GLD(xg, xg, k);
            b5 += (p2[k] + p2[-k]) * GLD(g, g, k);
        }
        __global float *dst = f ? r1 : r0;
        const size_t ps = (size_t)pp * h, i = (size_t)y * pp + x;
        GST(r, dst, i, b3 * ig11);
        GST(r, dst, ps + i, b2 * ig11);
        GST(r, dst, 2 * ps + i, b1 * ig03 + b5 * ig33);
        GST(r, dst, 3 * ps + i, b1 * ig03 + b4 * ig33);
        GST(r, dst, 4 * ps + i, b6 * ig55);
    }
}
