/* Brute-force bilateral filter (edge.h, clv_bilateral):
 *   out(p) = sum_q w(p,q) I(q) / sum_q w(p,q)
 *   w(p,q) = ws[dx] * ws[dy] * 2^(kr * ||I(q) - I(p)||^2)
 *   ||d|| = |d_0| + .. + |d_(CN-1)|   (OpenCV's colour distance, BIL_NORM2)
 * over the disc dx^2 + dy^2 <= r^2 (OpenCV's bilateralFilter window: row dy
 * of it is |dx| <= bil_half(r, dy)), where
 *   ws[r + d] = exp(-d^2 / (2 sigma_space^2))   (__constant table, 2r+1 entries)
 * Large finite values (f32 up to FLT_MAX) stay finite: every value is read
 * scaled by vk, a power of two (exact) with vk <= 1/2 and vk <= 1 / (the sum
 * of the spatial weights), so no difference of two scaled values and no
 * weighted sum of them can overflow; the result is scaled back by ivk =
 * 1/vk. The range term is computed as the square of a scaled difference,
 *   2^(-||u||^2),  u = (vk I(q) - vk I(p)) rk,  rk = sqrt(log2(e) / 2) / (sigma_range vk)
 * (= exp(-||I(q) - I(p)||^2 / 2 sigma_range^2)), never as d^2 / sigma^2,
 * whose d^2 overflows long before the weight vanishes (rk is capped at
 * FLT_MAX: u is then 0 or far beyond any weight). The host passes vk = 1
 * for u8/u16, which cannot overflow.
 * The centre tap has weight 1, so the weight sum never vanishes. Each window
 * row is summed on its own before it joins the totals, which keeps float
 * rounding near that of a (2r+1)-term sum rather than a (2r+1)^2-term one.
 * With BORDER_CONSTANT the window is clipped to the image: outside pixels are
 * skipped, not read as zeros.
 *
 * GPU-style kernels (one work-item per pixel):
 *   bil_tiled   the work-group stages its tile plus an r-pixel halo as floats
 *               in local memory (size from the host, which shrinks the group
 *               to fit), then every tap reads local memory.
 *   bil_fixed   the radius compiled in, several outputs per work-item and
 *               the taps unrolled in registers (below).
 *   bil_global  the same maths reading global memory, for radii whose tile
 *               does not fit the local-memory budget.
 * CPU-style kernels (-DVEC, PoCL):
 *   bil_planes_vec  src -> padded planar float scratch, border already applied,
 *                   so the filter's inner loop has no index arithmetic.
 *   bil_rows_vec    VEC consecutive pixels of a row per work-item, one FV per
 *                   channel; the inner loop is branch-free vector code, the
 *                   weight one polynomial 2^(lw[dy][dx] - ||u||^2) with lw a
 *                   (2r+1)^2 table of log2(ws[dx] ws[dy]).
 * Needs DEPTH_*, CN, BORDER. */
#ifndef BORDER
#error "BORDER must be defined"
#endif

/* A window row's taps run over the disc's whole row, -hw .. hw, and skip
 * those outside [xlo, xhi]. With the clip in the loop's bounds instead
 * (max(xlo, -hw) .. min(xhi, hw)), NVIDIA's OpenCL compiler (driver 580,
 * H200, 2026-12-05) ran taps past them: BORDER_CONSTANT results off by up
 * to 63 u8 levels, and out-of-bounds loads under CLV_DEBUG (bil_global);
 * PoCL and the reference agreed. The skip made bil_tiled pass there. */
#if BORDER == BORDER_CONSTANT
/* Window offsets [lo, hi] that stay inside [0, n) around p. */
#define BIL_WINDOW(lo, hi, p, n, r)                                                      \
    const int lo = max(-(r), -(p));                                                      \
    const int hi = min((r), (n)-1 - (p))
#else
#define BIL_WINDOW(lo, hi, p, n, r)                                                      \
    const int lo = -(r);                                                                 \
    const int hi = (r)
#endif

/* Half-width of the window's row dy (|dy| <= r): the largest h with
 * h^2 + dy^2 <= r^2, in integers. */
static inline int bil_half(int r, int dy)
{
    const int m = r * r - dy * dy;
    int h = r;
    while (h * h > m)
        h--;
    return h;
}

/* The squared colour distance of a difference d: OpenCV's, the sum of the
 * channels' absolute differences, squared (one channel: d^2). */
#if CN == 1
#define BIL_NORM2(d) ((d) * (d))
#else
static inline float bil_l1sq(FN d)
{
    const float a = dot(fabs(d), (FN)(1.0f));
    return a * a;
}
#define BIL_NORM2(d) bil_l1sq(d)
#endif

/* Values in and results out of the vk scale: f32 only (u8/u16 pass vk = 1,
 * so their kernels skip the multiplies), except in bil_fixed, which scales
 * every type (see BIL_EXPO_L there). */
#if defined(DEPTH_F32)
#define BIL_IN(x) ((x) * vk)
#define BIL_OUT(x) ((x) * ivk)
#else
#define BIL_IN(x) (x)
#define BIL_OUT(x) (x)
#endif

/* The range exponent -||u||^2, u = d rk, of a difference d. Only f32 needs
 * the scaled form (its d^2 can overflow). A u8/u16 difference is at most
 * 65535 and vk is 1, so there the host passes, in the rk argument, nkr =
 * -min(rk^2, FLT_MAX) and the exponent is nkr ||d||^2: one multiply by a
 * kernel argument after the norm instead of one per channel before it (the
 * same value up to rounding; d = 0 still weighs 1). */
#if defined(DEPTH_F32)
#define BIL_EXPO(d) (-BIL_NORM2((d) * rk))
#else
#define BIL_EXPO(d) (rk * BIL_NORM2(d))
#endif

/* bil_fixed's tile with two or four channels: a plane of P floats per
 * channel, so that a tap's CN 4-byte loads by consecutive work-items fall on
 * consecutive banks. Interleaved pixels read by vload2 / vload4, which a
 * compiler may split into 4-byte loads 2 or 4 words apart, put 2 or 4
 * work-items of a warp on one bank; whole float2 / float4 accesses need an
 * alignment that NVIDIA's local buffer did not give (9fb54f6). One and
 * three channels stay interleaved (a stride of 1 or 3 words spreads). */
#if CN == 2
#define BIL_TLD(t, i, P) ((float2)((t)[i], (t)[(P) + (i)]))
#define BIL_PST(t, i, P, v) ((t)[i] = (v).x, (t)[(P) + (i)] = (v).y)
#elif CN == 4
#define BIL_TLD(t, i, P)                                                                       \
    ((float4)((t)[i], (t)[(P) + (i)], (t)[2 * (P) + (i)], (t)[3 * (P) + (i)]))
#define BIL_PST(t, i, P, v)                                                                    \
    ((t)[i] = (v).x, (t)[(P) + (i)] = (v).y, (t)[2 * (P) + (i)] = (v).z,                    \
     (t)[3 * (P) + (i)] = (v).w)
#else
#define BIL_TLD(t, i, P) VLOAD(i, t)
#endif

/* The GPU kernels' tile: the tw x th source pixels from (bx, by) through the
 * border rule (BORDER_CONSTANT's outside pixels as 0, which bil_tiled's
 * clipped windows never read), scaled by vk (f32; every type where
 * scale_all), into tile (tw floats per row, CN each; with two or four
 * channels and plane > 0, a plane of plane floats per channel instead),
 * staged by the whole work-group, then the barrier. */
static inline void bil_stage(__global const T *src CLV_DBG_PARAM(src), int src_pitch,
                             int width, int height, int bx, int by, int tw, int th, float vk,
                             int scale_all, int plane, __local float *tile)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int lw = get_local_size(0), lh = get_local_size(1);
    for (int ty = ly; ty < th; ty += lh) {
        const int sy = BORDER_INDEX(by + ty, height);
        __global const T *row = ROW(src, src_pitch, sy < 0 ? 0 : sy);
        for (int tx = lx; tx < tw; tx += lw) {
            const int sx = BORDER_INDEX(bx + tx, width);
            FN v = FN_ZERO;
            if (sx >= 0 && sy >= 0) {
                v = LOAD_PIX(src, row, sx);
                v = scale_all ? v * vk : BIL_IN(v);
            }
#if CN == 2 || CN == 4
            if (plane) {
                BIL_PST(tile, ty * tw + tx, plane, v);
                continue;
            }
#endif
            VSTORE(v, ty * tw + tx, tile);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

__kernel void bil_tiled(__global const T *src, int src_pitch, int width, int height,
                        __global T *dst, int dst_pitch, __constant float *ws, int r, float rk,
                        float vk, float ivk, __local float *tile CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    CLV_DBG_BUF(ws, 6);
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int lw = get_local_size(0), lh = get_local_size(1);
    const int x0 = get_group_id(0) * lw, y0 = get_group_id(1) * lh;
    const int tw = lw + 2 * r, th = lh + 2 * r;
    /* No early return before the barrier: every work-item helps staging. */
    bil_stage(src CLV_DBG_PASS(src), src_pitch, width, height, x0 - r, y0 - r, tw, th, vk, 0, 0,
              tile);
    const int x = x0 + lx, y = y0 + ly;
    if (x >= width || y >= height)
        return;
    const int centre = (ly + r) * tw + lx + r;
    const FN c = VLOAD(centre, tile);
    FN sum = FN_ZERO;
    float wsum = 0.0f;
    BIL_WINDOW(ylo, yhi, y, height, r);
    BIL_WINDOW(xlo, xhi, x, width, r);
    for (int dy = ylo; dy <= yhi; dy++) {
        const float wy = GLD(ws, ws, r + dy);
        const int row = centre + dy * tw;
        const int hw = bil_half(r, dy);
        FN rsum = FN_ZERO;
        float rw = 0.0f;
        for (int dx = -hw; dx <= hw; dx++) {
            if (dx < xlo || dx > xhi)
                continue; /* outside a clipped window (BIL_WINDOW) */
            const FN q = VLOAD(row + dx, tile);
            const float wt = GLD(ws, ws, r + dx) * clv_exp2_weight(BIL_EXPO(q - c));
            rsum += wt * q;
            rw += wt;
        }
        sum += wy * rsum;
        wsum += wy * rw;
    }
    STORE_PIX(dst, ROW(dst, dst_pitch, y), x, BIL_OUT(sum / wsum));
}

/* For radii whose tile does not fit local memory even with a small
 * work-group: every tap reads global memory through the border rule (the
 * caches do the staging). */
__kernel void bil_global(__global const T *src, int src_pitch, int width, int height,
                         __global T *dst, int dst_pitch, __constant float *ws, int r,
                         float rk, float vk, float ivk CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    CLV_DBG_BUF(ws, 6);
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    const FN c = BIL_IN(LOAD_PIX(src, ROW(src, src_pitch, y), x));
    FN sum = FN_ZERO;
    float wsum = 0.0f;
    BIL_WINDOW(ylo, yhi, y, height, r);
    BIL_WINDOW(xlo, xhi, x, width, r);
    for (int dy = ylo; dy <= yhi; dy++) {
        const float wy = GLD(ws, ws, r + dy);
        __global const T *row = ROW(src, src_pitch, BORDER_INDEX(y + dy, height));
        const int hw = bil_half(r, dy);
        FN rsum = FN_ZERO;
        float rw = 0.0f;
        for (int dx = -hw; dx <= hw; dx++) {
            if (dx < xlo || dx > xhi)
                continue; /* outside a clipped window (BIL_WINDOW) */
            const FN q = BIL_IN(LOAD_PIX(src, row, BORDER_INDEX(x + dx, width)));
            const float wt = GLD(ws, ws, r + dx) * clv_exp2_weight(BIL_EXPO(q - c));
            rsum += wt * q;
            rw += wt;
        }
        sum += wy * rsum;
        wsum += wy * rw;
    }
    STORE_PIX(dst, ROW(dst, dst_pitch, y), x, BIL_OUT(sum / wsum));
}

/* GPUs, the radius compiled in (-DBIL_R, from the host up to the device's
 * tune.bil_fixed_radius): a work-group (lw, lh) stages its tile as
 * bil_tiled does, and each work-item makes BIL_PY consecutive outputs of
 * one column. It reads each of its window rows from local memory once into
 * registers (2r+1 values) and uses them for every output whose window holds
 * that row, so a read serves up to BIL_PY taps. The unrolled taps have no
 * loop counter and no table index: ws holds the 2r+1 spatial weights
 * followed by their log2 (lx[dx], in registers), and a tap's weight is one
 * 2^(lx[dx] + range exponent); the row's weight ws[dy] multiplies the row's
 * sums as in bil_tiled. Not for BORDER_CONSTANT (its clipped windows stay
 * with bil_tiled): every tap is an image pixel here. (Tried and not kept:
 * the exponent expanded as rk ||q||^2 - 2 rk c.q + rk ||c||^2 with the first
 * term staged, fewer operations per tap but more registers: slower on an
 * H200, 1.12 -> 1.15 ms for u8 and 1.84 -> 2.02 ms for u8 x 3 at 4K.) */
#if defined(BIL_R) && defined(BIL_PY)
#if BORDER == BORDER_CONSTANT
#error "bil_fixed does not take BORDER_CONSTANT (clipped windows): bil_tiled does"
#endif
#define BIL_K (2 * BIL_R + 1)
/* the exponent of a tap: lx + the range term. The tile of an integer type
 * holds its values times vk, the range factor (bilateral.c), so the term is
 * -||d||^2 with no multiply by rk (which goes unused there): one
 * instruction less per tap (H100, 19x19 at 3840x2160: u8 0.649 -> 0.593
 * ms, u8 x 3 1.280 -> 1.189). f32 keeps its power-of-two vk and multiplies
 * d by rk (see BIL_EXPO). */
#if defined(DEPTH_F32)
#define BIL_EXPO_L(d, l) ((l) - BIL_NORM2((d) * rk))
#elif CN == 1
#define BIL_EXPO_L(d, l) fma(-(d), (d), (l))
#else
#define BIL_EXPO_L(d, l) bil_expo_l1(d, l)
static inline float bil_expo_l1(FN d, float l)
{
    const float a = dot(fabs(d), (FN)(1.0f));
    return fma(-a, a, l);
}
#endif
__kernel void bil_fixed(__global const T *src, int src_pitch, int width, int height,
                        __global T *dst, int dst_pitch, __constant float *ws, float rk,
                        float vk, float ivk, __local float *tile CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    CLV_DBG_BUF(ws, 6);
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int lw = get_local_size(0), lh = get_local_size(1);
    const int bh = lh * BIL_PY;
    const int x0 = get_group_id(0) * lw, y0 = get_group_id(1) * bh;
    const int tw = lw + 2 * BIL_R, th = bh + 2 * BIL_R;
    /* No early return before the barrier: every work-item helps staging. */
    const int plane = tw * th; /* two and four channels: planes (BIL_TLD) */
    bil_stage(src CLV_DBG_PASS(src), src_pitch, width, height, x0 - BIL_R, y0 - BIL_R, tw, th,
              vk, 1, plane, tile);
    float lxw[BIL_K];
#pragma unroll
    for (int i = 0; i < BIL_K; i++)
        lxw[i] = GLD(ws, ws, BIL_K + i);
    const int x = x0 + lx, r0 = ly * BIL_PY; /* first output's tile row - BIL_R */
    FN c[BIL_PY], sum[BIL_PY];
    float wsum[BIL_PY];
#pragma unroll
    for (int k = 0; k < BIL_PY; k++) {
        c[k] = BIL_TLD(tile, (r0 + k + BIL_R) * tw + lx + BIL_R, plane);
        sum[k] = FN_ZERO;
        wsum[k] = 0.0f;
    }
    /* unrolled: t below is then a constant and the disc's test drops the
     * taps outside it at compile time (H200, 19x19 at 3840x2160, u8: 1259
     * -> 1011 us; u8 x 3: 1960 -> 1345) */
    CLV_UNROLL
    for (int j = 0; j < BIL_PY + 2 * BIL_R; j++) {
        const int base = (r0 + j) * tw + lx;
        FN q[BIL_K];
#pragma unroll
        for (int dx = 0; dx < BIL_K; dx++)
            q[dx] = BIL_TLD(tile, base + dx, plane);
#pragma unroll
        for (int k = 0; k < BIL_PY; k++) {
            const int t = j - k; /* this row's place in output k's window */
            if (t >= 0 && t < BIL_K) {
                /* the disc: taps with (dx - r)^2 <= r^2 - (t - r)^2 */
                const int m = BIL_R * BIL_R - (t - BIL_R) * (t - BIL_R);
                FN rsum = FN_ZERO;
                float rw = 0.0f;
#pragma unroll
                for (int dx = 0; dx < BIL_K; dx++) {
                    if ((dx - BIL_R) * (dx - BIL_R) <= m) {
                        const float wt = clv_exp2_weight(BIL_EXPO_L(q[dx] - c[k], lxw[dx]));
                        rsum += wt * q[dx];
                        rw += wt;
                    }
                }
                const float wy = GLD(ws, ws, t);
                sum[k] += wy * rsum;
                wsum[k] += wy * rw;
            }
        }
    }
#pragma unroll
    for (int k = 0; k < BIL_PY; k++)
        if (x < width && y0 + r0 + k < height)
            STORE_PIX(dst, ROW(dst, dst_pitch, y0 + r0 + k), x, sum[k] / wsum[k] * ivk);
}
#endif

#ifdef VEC
#define AS_FV CAT(as_float, VEC)
#define AS_IV CAT(as_int, VEC)

/* 2^t for t <= 0, branch-free and exact to ~2.4e-7 (u8: 1.0e-4 with a cubic,
 * a weight error that moves a u8 result by at most ~0.03 of a level; on a
 * Skylake-SP with AVX-512 at 1920x1080, 19x19, the cubic took u8 from 57.1 to
 * 51.5 ms and u8 x 3 from 86.8 to 81.9 against the quartic): t = n + f with n = round(t) taken from the low mantissa bits
 * of t + 1.5 * 2^23, |f| <= 1/2, 2^f from a polynomial fitted for that
 * interval, 2^n added to the exponent bits. Below -125 the result is 2^-125
 * (such weights are < 1e-37 of the centre tap's). OpenCL's rint() and
 * convert_int() are avoided on purpose: PoCL expands rint into ~17
 * instructions. */
#define BIL_MAGIC 12582912.0f
static inline FV bil_exp2(FV t)
{
    t = max(t, (FV)(-125.0f));
    const FV u = t + BIL_MAGIC;
    const FV f = t - (u - BIL_MAGIC);
#if defined(DEPTH_U8)
    FV p = fma(f, (FV)(0.05500758f), (FV)(0.24220791f));
    p = fma(p, f, (FV)(0.69328274f));
#else
    FV p = fma(f, (FV)(0.001327647129073739f), (FV)(0.009675540961325169f));
    p = fma(p, f, (FV)(0.05550713092088699f));
    p = fma(p, f, (FV)(0.24022120237350464f));
    p = fma(p, f, (FV)(0.6931469440460205f));
#endif
    p = fma(p, f, (FV)(1.0f));
    /* The low bits of u's representation are n (two's complement), and the
     * bits above them are shifted out. */
    return AS_FV(AS_IV(p) + (AS_IV(u) << 23));
}

/* Padded planes: plane k holds channel k of padded pixel (px, py), the image
 * pixel (px - r, py - r) through the border rule, at planes[k * plane_size +
 * py * ppitch + px], py in [0, height + 2r), px in [0, ppitch). With
 * BORDER_CONSTANT outside pixels are 0 and the row mask planes[CN *
 * plane_size + px] is 1 inside the image, 0 outside (rows outside are
 * clipped by the filter's loop bounds instead). Values are scaled by vk. One work-item fills VEC
 * padded columns of one padded row. */
__kernel void bil_planes_vec(__global const T *src, int src_pitch, int width, int height, int r,
                             __global float *planes, int ppitch, int plane_size,
                             float vk CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(planes, 5);
    const int px0 = get_global_id(0) * VEC, py = get_global_id(1);
    if (px0 >= ppitch || py >= height + 2 * r)
        return;
    const int sy = BORDER_INDEX(py - r, height);
    __global const T *row = ROW(src, src_pitch, sy < 0 ? 0 : sy);
    __global float *out = planes + (size_t)py * ppitch + px0;
#if VEC == 16
    if (sy >= 0 && px0 - r >= 0 && px0 - r + VEC <= width) {
        /* Inside the image: vector loads, channels split with shuffles. */
        __global const T *in = row + (size_t)(px0 - r) * CN;
#if CN == 1
        GVST(16, planes, (convert_float16(GVLD(16, src, 0, in)) * vk), 0, out);
#elif CN == 2
        const float16 a = (convert_float16(GVLD(16, src, 0, in)) * vk), b = (convert_float16(GVLD(16, src, 1, in)) * vk);
        GVST(16, planes, shuffle2(a, b, (uint16)(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30)), 0, out);
        GVST(16, planes, shuffle2(a, b, (uint16)(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31)), 0, out + plane_size);
#elif CN == 3
        const float16 a = (convert_float16(GVLD(16, src, 0, in)) * vk), b = (convert_float16(GVLD(16, src, 1, in)) * vk),
                      c = (convert_float16(GVLD(16, src, 2, in)) * vk);
        /* value 3i + k of the 48 is lane 3i + k of a:b (below 32) or of c. */
        const float16 ab0 = shuffle2(a, b, (uint16)(0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 0, 0, 0, 0, 0));
        const float16 ab1 = shuffle2(a, b, (uint16)(1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 0, 0, 0, 0, 0));
        const float16 ab2 = shuffle2(a, b, (uint16)(2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 0, 0, 0, 0, 0, 0));
        GVST(16, planes, shuffle2(ab0, c, (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17, 20, 23, 26, 29)), 0, out);
        GVST(16, planes, shuffle2(ab1, c, (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 18, 21, 24, 27, 30)), 0, out + plane_size);
        GVST(16, planes, shuffle2(ab2, c, (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 19, 22, 25, 28, 31)), 0, out + 2 * plane_size);
#else
        const float16 a = (convert_float16(GVLD(16, src, 0, in)) * vk), b = (convert_float16(GVLD(16, src, 1, in)) * vk),
                      c = (convert_float16(GVLD(16, src, 2, in)) * vk), d = (convert_float16(GVLD(16, src, 3, in)) * vk);
        const uint16 lo = (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
#define BIL_SPLIT4(k) shuffle2(shuffle2(a, b, (uint16)(k, k + 4, k + 8, k + 12, k + 16, k + 20, k + 24, k + 28, 0, 0, 0, 0, 0, 0, 0, 0)), \
                               shuffle2(c, d, (uint16)(k, k + 4, k + 8, k + 12, k + 16, k + 20, k + 24, k + 28, 0, 0, 0, 0, 0, 0, 0, 0)), lo)
        GVST(16, planes, BIL_SPLIT4(0), 0, out);
        GVST(16, planes, BIL_SPLIT4(1), 0, out + plane_size);
        GVST(16, planes, BIL_SPLIT4(2), 0, out + 2 * plane_size);
        GVST(16, planes, BIL_SPLIT4(3), 0, out + 3 * plane_size);
#undef BIL_SPLIT4
#endif
    } else
#endif
    for (int i = 0; i < VEC; i++) {
        const int sx = BORDER_INDEX(px0 + i - r, width);
        const FN v = (sx < 0 || sy < 0) ? FN_ZERO : LOAD_PIX(src, row, sx) * vk;
#if CN == 1
        GST(planes, out, i, v);
#else
        GST(planes, out, i, v.x);
        GST(planes, out, plane_size + i, v.y);
#if CN >= 3
        GST(planes, out, 2 * plane_size + i, v.z);
#endif
#if CN == 4
        GST(planes, out, 3 * plane_size + i, v.w);
#endif
#endif
    }
#if BORDER == BORDER_CONSTANT
    if (py == 0)
        for (int i = 0; i < VEC; i++)
            GST(planes, planes, (size_t)CN * plane_size + px0 + i,
                (px0 + i - r >= 0 && px0 + i - r < width) ? 1.0f : 0.0f);
#endif
}

/* Pixels x0 .. x0 + VEC - 1 of row y, one FV per channel. lw is the 2-D
 * table of log2 spatial weights, lw[(dy + r) * (2r + 1) + dx + r] =
 * log2(ws[dx] ws[dy]), so a tap's weight is a single 2^(lw - ||u||^2): no
 * multiply by the spatial weight, and the table entry is a broadcast operand
 * of the fma. (It has up to 129^2 entries, more than __constant promises,
 * hence __global; on a CPU both are plain memory.) Lanes past the row read
 * padding the planes kernel filled and are dropped at the store. Each window
 * row is summed on its own before joining the totals, which keeps float
 * rounding near that of a (2r+1)-term sum. */
__kernel void bil_rows_vec(__global const float *planes, int ppitch, int plane_size, int width,
                           int height, __global T *dst, int dst_pitch, __global const float *lw,
                           int r, float rk, float ivk CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(planes, 0);
    CLV_DBG_BUF(dst, 5);
    CLV_DBG_BUF(lw, 7);
    const int x0 = get_global_id(0) * VEC, y = get_global_id(1);
    if (x0 >= width || y >= height)
        return;
    const int side = 2 * r + 1;
    /* Padded (x0 + r, y + r) is image (x0, y). */
    __global const float *centre = planes + (size_t)(y + r) * ppitch + x0 + r;
    const FV c0 = VLOAD_AT(planes, 0, centre);
    FV s0 = (FV)(0.0f), wsum = (FV)(0.0f);
#if CN >= 2
    const FV c1 = VLOAD_AT(planes, plane_size, centre);
    FV s1 = (FV)(0.0f);
#endif
#if CN >= 3
    const FV c2 = VLOAD_AT(planes, 2 * plane_size, centre);
    FV s2 = (FV)(0.0f);
#endif
#if CN == 4
    const FV c3 = VLOAD_AT(planes, 3 * plane_size, centre);
    FV s3 = (FV)(0.0f);
#endif
#if BORDER == BORDER_CONSTANT
    __global const float *mask = planes + (size_t)CN * plane_size + x0;
#endif
    /* a = ||d|| (BIL_NORM2: the channels' |d| summed; one channel's d
     * itself, only a^2 counts), then the exponent e = lw - a^2 rk^2: f32
     * sums |d rk| (a multiply and an add per channel) and ends with one fma;
     * u8/u16 (differences cannot overflow) sum |d| and end with a^2 and one
     * fma by nkr, see BIL_EXPO */
#if defined(DEPTH_F32)
    const FV rkv = (FV)(rk);
#define BIL_E_D(q, c) (((q) - (c)) * rkv)
#define BIL_E_END(a, lwv) fma(-(a), (a), (lwv))
#else
    const FV nkrv = (FV)(rk); /* nkr, see BIL_EXPO */
#define BIL_E_D(q, c) ((q) - (c))
#define BIL_E_END(a, lwv) fma(nkrv, (a) * (a), (lwv))
#endif
#if CN == 1
#define BIL_E_FIRST(a, q, c) const FV a = BIL_E_D(q, c)
#else
#define BIL_E_FIRST(a, q, c) FV a = fabs(BIL_E_D(q, c))
#endif
#define BIL_E_TERM(a, q, c) a += fabs(BIL_E_D(q, c))
    BIL_WINDOW(ylo, yhi, y, height, r);
    for (int dy = ylo; dy <= yhi; dy++) {
        /* Tap t of this row is dx = t - r. */
        __global const float *row = centre + dy * ppitch - r;
        __global const float *lwrow = lw + (dy + r) * side;
        const int hw = bil_half(r, dy);
        FV r0 = (FV)(0.0f), rw = (FV)(0.0f);
#if CN >= 2
        FV r1 = (FV)(0.0f);
#endif
#if CN >= 3
        FV r2 = (FV)(0.0f);
#endif
#if CN == 4
        FV r3 = (FV)(0.0f);
#endif
        for (int t = r - hw; t <= r + hw; t++) {
            const FV lwv = (FV)(GLD(lw, lwrow, t));
            const FV q0 = VLOAD_AT(planes, t, row);
            BIL_E_FIRST(a, q0, c0);
#if CN >= 2
            const FV q1 = VLOAD_AT(planes, plane_size + t, row);
            BIL_E_TERM(a, q1, c1);
#endif
#if CN >= 3
            const FV q2 = VLOAD_AT(planes, 2 * plane_size + t, row);
            BIL_E_TERM(a, q2, c2);
#endif
#if CN == 4
            const FV q3 = VLOAD_AT(planes, 3 * plane_size + t, row);
            BIL_E_TERM(a, q3, c3);
#endif
            const FV e = BIL_E_END(a, lwv);
            FV wt = bil_exp2(e);
#if BORDER == BORDER_CONSTANT
            wt *= VLOAD_AT(planes, t, mask);
#endif
            rw += wt;
            r0 = fma(wt, q0, r0);
#if CN >= 2
            r1 = fma(wt, q1, r1);
#endif
#if CN >= 3
            r2 = fma(wt, q2, r2);
#endif
#if CN == 4
            r3 = fma(wt, q3, r3);
#endif
        }
        wsum += rw;
        s0 += r0;
#if CN >= 2
        s1 += r1;
#endif
#if CN >= 3
        s2 += r2;
#endif
#if CN == 4
        s3 += r3;
#endif
    }
    const FV inv = ivk / wsum;
    __global T *out = ROW(dst, dst_pitch, y);
#if CN == 1
    /* Image pitches are multiples of 64 bytes: the whole vector stays in the
     * row's pitch. */
    VSTORET_AT(dst, FROM_FV(s0 * inv), x0, out);
#else
    float b[CN][VEC];
    CAT(vstore, VEC)(s0 * inv, 0, b[0]);
    CAT(vstore, VEC)(s1 * inv, 0, b[1]);
#if CN >= 3
    CAT(vstore, VEC)(s2 * inv, 0, b[2]);
#endif
#if CN == 4
    CAT(vstore, VEC)(s3 * inv, 0, b[3]);
#endif
    const int n = min(VEC, width - x0);
    for (int i = 0; i < n; i++) {
#if CN == 2
        STORE_PIX(dst, out, x0 + i, (float2)(b[0][i], b[1][i]));
#elif CN == 3
        STORE_PIX(dst, out, x0 + i, (float3)(b[0][i], b[1][i], b[2][i]));
#else
        STORE_PIX(dst, out, x0 + i, (float4)(b[0][i], b[1][i], b[2][i], b[3][i]));
#endif
    }
#endif
}
#undef BIL_E_D
#undef BIL_E_FIRST
#undef BIL_E_TERM
#undef BIL_E_END
#endif
