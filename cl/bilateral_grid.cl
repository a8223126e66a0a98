/* Bilateral grid (Chen, Paris, Durand 2007) and local tone mapping on it.
 *
 * The grid has GW x GH x GD cells, each a CELL vector of NC floats: the CN
 * value sums and the weight (padded to 2, 4 or 8 floats so a cell is one
 * vector load). Cell (gx, gy, gz) sits at pixel (gx s_s, gy s_s) and range
 * lo + gz s_r; index ((gz * GH + gy) * GW + gx). The range offset lo lives in a small
 * device buffer (rng[0]) so it can come from a device-side reduction.
 *
 * Values: DEPTH_* and CN describe the value image (NV = CN).
 * Edges (the range axis), one of:
 *   EDGE_SELF   the value itself (CN == 1)
 *   EDGE_LUMA   Rec. 709 luminance of the first three channels
 *   EDGE_U8 | EDGE_U16 | EDGE_F32   a separate 1-channel image
 */
#ifndef ZC
#error "ZC (range cells per splat work-item) must be defined"
#endif

#if CN == 1
#define NC 2
#define CELL float2
#define CELL_LOAD(b, i, p) GVLD(2, b, (i), (p))
#define CELL_STORE(b, v, i, p) GVST(2, b, (v), (i), (p))
#define CELL_OF(v) ((float2)((v), 1.0f))
#define CELL_W(c) ((c).y)
#define CELL_V(c) ((c).x)
#elif CN == 3
#define NC 4
#define CELL float4
#define CELL_LOAD(b, i, p) GVLD(4, b, (i), (p))
#define CELL_STORE(b, v, i, p) GVST(4, b, (v), (i), (p))
#define CELL_OF(v) ((float4)((v), 1.0f))
#define CELL_W(c) ((c).w)
#define CELL_V(c) ((c).xyz)
#elif CN == 4
#define NC 8
#define CELL float8
#define CELL_LOAD(b, i, p) GVLD(8, b, (i), (p))
#define CELL_STORE(b, v, i, p) GVST(8, b, (v), (i), (p))
#define CELL_OF(v) ((float8)((v), 1.0f, 0.0f, 0.0f, 0.0f))
#define CELL_W(c) ((c).s4)
#define CELL_V(c) ((c).s0123)
#endif

#if defined(EDGE_U8)
#define ET uchar
#elif defined(EDGE_U16)
#define ET ushort
#elif defined(EDGE_F32)
#define ET float
#endif

#if defined(EDGE_SELF)
#if CN != 1
#error "EDGE_SELF needs one channel"
#endif
#define EDGE_AT(vrow, erow, x) convert_float(GLD(vals, vrow, x))
#elif defined(EDGE_LUMA)
#define EDGE_AT(vrow, erow, x) clv_luma((vrow) + (size_t)(x) * CN CLV_DBG_PASS(vals))
static inline float clv_luma(__global const T *p CLV_DBG_PARAM(p))
{
    return 0.2126f * convert_float(GLD(p, p, 0)) + 0.7152f * convert_float(GLD(p, p, 1)) +
           0.0722f * convert_float(GLD(p, p, 2));
}
#elif defined(ET)
#define EDGE_AT(vrow, erow, x) convert_float(GLD(edge, erow, x))
#else
#error "one of EDGE_SELF, EDGE_LUMA, EDGE_U8, EDGE_U16, EDGE_F32 must be defined"
#endif

#ifndef ET
#define ET T /* unused edge pointer type */
#endif
/* EDGE_AT(vrow, erow, x): the edge value at pixel x of rows vrow of buffer
 * argument `vals` and erow of `edge` (the kernels' names for them). */

/* Grid cell of a coordinate: nearest, ties up (the slice uses the same
 * scale, so splat and slice agree on where a pixel sits). */
static inline int clv_cell(float pos) { return (int)floor(pos + 0.5f); }

/* Range coordinate (e - lo) * inv_sr in cells, computed on halves so e - lo
 * cannot overflow (edges of -3e38 and 3e38 are 6e38 apart): halving is
 * exact, so this is bit for bit (e - lo) * inv_sr whenever that is finite
 * (barring subnormal halves). */
static inline float clv_range_pos(float e, float lo, float inv_sr)
{
    return (0.5f * e - 0.5f * lo) * inv_sr * 2.0f;
}

/* Splat by gathering: a work-item owns cell column (gx, gy) and ZC range cells
 * starting at gz0; it visits the pixels whose nearest cell column is (gx, gy)
 * and adds (vk value, 1) to the range cell of their edge value. No atomics, so it
 * is exact and deterministic on every device. vk is a power of two (exact)
 * that keeps a cell's sum finite for any finite f32 value (1 / the most
 * pixels a cell can hold; 1 for u8/u16); the slice divides it out. */
__kernel void grid_splat(__global const T *vals, int vpitch, __global const ET *edge, int epitch,
                         int width, int height, float s_s, float inv_ss, float inv_sr,
                         __global const float *rng, __global float *grid, int gw, int gh, int gd,
                         int bands, float vk CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(vals, 0);
    CLV_DBG_BUF(edge, 2);
    CLV_DBG_BUF(rng, 9);
    CLV_DBG_BUF(grid, 10);
    /* dimension 1 packs the cell row and the band: with bands > 1 each
     * work-item takes every bands-th pixel row of its block and writes a
     * partial grid (grid + band * cells), summed in order by grid_reduce. */
    const int gx = get_global_id(0);
    const int gy = get_global_id(1) / bands, band = get_global_id(1) % bands;
    const int gz0 = get_global_id(2) * ZC;
    if (gx >= gw || gy >= gh || gz0 >= gd)
        return;
    grid += (size_t)band * gw * gh * gd * NC;
    const float lo = GLD(rng, rng, 0);
    CELL acc[ZC];
    for (int i = 0; i < ZC; i++)
        acc[i] = (CELL)(0.0f);
    const int x0 = max(0, (int)floor(((float)gx - 0.5f) * s_s));
    const int x1 = min(width - 1, (int)ceil(((float)gx + 0.5f) * s_s));
    const int y0 = max(0, (int)floor(((float)gy - 0.5f) * s_s));
    const int y1 = min(height - 1, (int)ceil(((float)gy + 0.5f) * s_s));
    for (int y = y0 + band; y <= y1; y += bands) {
        if (clv_cell((float)y * inv_ss) != gy)
            continue;
        __global const T *vrow = ROW(vals, vpitch, y);
        __global const ET *erow = ROW(edge, epitch, y);
        for (int x = x0; x <= x1; x++) {
            if (clv_cell((float)x * inv_ss) != gx)
                continue;
            const float e = EDGE_AT(vrow, erow, x);
            const int k = clamp(clv_cell(clv_range_pos(e, lo, inv_sr)), 0, gd - 1) - gz0;
            if (k >= 0 && k < ZC)
                acc[k] += CELL_OF(LOAD_PIX(vals, vrow, x) * vk);
        }
    }
    const int nz = min(ZC, gd - gz0);
    for (int k = 0; k < nz; k++)
        CELL_STORE(grid, acc[k], ((size_t)(gz0 + k) * gh + gy) * gw + gx, grid);
}

/* Sum the partial grids of a banded splat, band 0 first (deterministic). */
__kernel void grid_reduce(__global const float *parts, __global float *grid, int n,
                          int bands CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(parts, 0);
    CLV_DBG_BUF(grid, 1);
    const int i = get_global_id(0);
    if (i >= n)
        return;
    float s = 0.0f;
    for (int b = 0; b < bands; b++)
        s += GLD(parts, parts, (size_t)b * n + i);
    GST(grid, grid, i, s);
}

/* One axis of the separable Gaussian blur of the grid; cells outside the grid
 * are zero (value and weight), which is exact in homogeneous coordinates. */
__kernel void grid_blur(__global const float *in, __global float *out, int gw, int gh, int gd,
                        int axis, __constant float *w, int r CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(in, 0);
    CLV_DBG_BUF(out, 1);
    CLV_DBG_BUF(w, 6);
    const int gx = get_global_id(0), gy = get_global_id(1), gz = get_global_id(2);
    if (gx >= gw || gy >= gh || gz >= gd)
        return;
    const int n = axis == 0 ? gw : axis == 1 ? gh : gd;
    const int pos = axis == 0 ? gx : axis == 1 ? gy : gz;
    const size_t step = axis == 0 ? 1 : axis == 1 ? (size_t)gw : (size_t)gw * gh;
    const size_t base = ((size_t)gz * gh + gy) * gw + gx;
    CELL sum = (CELL)(0.0f);
    const int t0 = max(-r, -pos), t1 = min(r, n - 1 - pos);
    for (int t = t0; t <= t1; t++)
        sum += GLD(w, w, t + r) * CELL_LOAD(in, (size_t)((long)base + (long)t * (long)step), in);
    CELL_STORE(out, sum, base, out);
}

/* Trilinear sample of the grid at (fx, fy, fz) in cell units (clamped inside). */
static inline CELL clv_grid_sample(__global const float *grid CLV_DBG_PARAM(grid), int gw, int gh,
                            int gd, float fx, float fy, float fz)
{
    fx = clamp(fx, 0.0f, (float)(gw - 1));
    fy = clamp(fy, 0.0f, (float)(gh - 1));
    fz = clamp(fz, 0.0f, (float)(gd - 1));
    const int x0 = min((int)fx, gw - 1), y0 = min((int)fy, gh - 1), z0 = min((int)fz, gd - 1);
    const int x1 = min(x0 + 1, gw - 1), y1 = min(y0 + 1, gh - 1), z1 = min(z0 + 1, gd - 1);
    const float ax = fx - (float)x0, ay = fy - (float)y0, az = fz - (float)z0;
#define C(z, y, x) CELL_LOAD(grid, ((size_t)(z) * gh + (y)) * gw + (x), grid)
    const CELL c00 = C(z0, y0, x0) * (1.0f - ax) + C(z0, y0, x1) * ax;
    const CELL c01 = C(z0, y1, x0) * (1.0f - ax) + C(z0, y1, x1) * ax;
    const CELL c10 = C(z1, y0, x0) * (1.0f - ax) + C(z1, y0, x1) * ax;
    const CELL c11 = C(z1, y1, x0) * (1.0f - ax) + C(z1, y1, x1) * ax;
#undef C
    const CELL c0 = c00 * (1.0f - ay) + c01 * ay;
    const CELL c1 = c10 * (1.0f - ay) + c11 * ay;
    return c0 * (1.0f - az) + c1 * az;
}

/* Slice: sample the blurred grid at each pixel's (x, y, edge), divide and
 * undo the splat's scale (ivk = 1 / vk). Where the weight is (numerically)
 * zero the pixel keeps its own value. */
__kernel void grid_slice(__global const T *vals, int vpitch, __global const ET *edge, int epitch,
                         __global T *dst, int dpitch, int width, int height, float inv_ss,
                         float inv_sr, __global const float *rng, __global const float *grid,
                         int gw, int gh, int gd, float ivk CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(vals, 0);
    CLV_DBG_BUF(edge, 2);
    CLV_DBG_BUF(dst, 4);
    CLV_DBG_BUF(rng, 10);
    CLV_DBG_BUF(grid, 11);
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    __global const T *vrow = ROW(vals, vpitch, y);
    __global const ET *erow = ROW(edge, epitch, y);
    const float e = EDGE_AT(vrow, erow, x);
    const CELL c = clv_grid_sample(grid CLV_DBG_PASS(grid), gw, gh, gd, (float)x * inv_ss,
                                   (float)y * inv_ss, clv_range_pos(e, GLD(rng, rng, 0), inv_sr));
    const FN v = CELL_W(c) > 1e-6f ? CELL_V(c) / CELL_W(c) * ivk : LOAD_PIX(vals, vrow, x);
    STORE_PIX(dst, ROW(dst, dpitch, y), x, v);
}

/* Minimum and maximum of the edge values (finite ones), one pair per
 * work-group; the host folds the pairs. */
__kernel void grid_minmax(__global const T *vals, int vpitch, __global const ET *edge, int epitch,
                          int width, int height, __global float *pairs,
                          __local float *scratch CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(vals, 0);
    CLV_DBG_BUF(edge, 2);
    CLV_DBG_BUF(pairs, 6);
    const int lid = get_local_id(0), lsize = get_local_size(0);
    float mn = INFINITY, mx = -INFINITY;
    const size_t n = (size_t)width * height;
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) {
        const int y = (int)(i / (size_t)width), x = (int)(i % (size_t)width);
        const float e = EDGE_AT(ROW(vals, vpitch, y), ROW(edge, epitch, y), x);
        if (isfinite(e)) {
            mn = fmin(mn, e);
            mx = fmax(mx, e);
        } else if (!isnan(e)) {
            mn = fmin(mn, e); /* +-Inf is reported so the host can refuse it */
            mx = fmax(mx, e);
        }
    }
    scratch[lid] = mn;
    scratch[lsize + lid] = mx;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = lsize / 2; s > 0; s /= 2) {
        if (lid < s) {
            scratch[lid] = fmin(scratch[lid], scratch[lid + s]);
            scratch[lsize + lid] = fmax(scratch[lsize + lid], scratch[lsize + lid + s]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        GST(pairs, pairs, 2 * get_group_id(0), scratch[0]);
        GST(pairs, pairs, 2 * get_group_id(0) + 1, scratch[lsize]);
    }
}

/* ---------------- local tone mapping (EDGE_SELF on log2 luminance) -------- */

/* Built only for the tone-mapping program: -DHDR_CN=3|4 (channels of the HDR
 * input; alpha is ignored) with CN=1 and EDGE_SELF for the grid on L. */
#ifdef HDR_CN
#if CN != 1 || !defined(EDGE_SELF)
#error "tone mapping needs the grid on one channel (CN=1, EDGE_SELF)"
#endif
/* The histogram of L spans [TM_FLOOR, TM_FLOOR + TM_SPAN) stops in TM_BINS
 * bins: every finite float luminance fits, so no min/max pass is needed
 * before it. TM_BINS and TM_MAX_STOPS (the widest range the base layer may
 * span, a float) come from the host (-D, tonemap.c). */
#if !defined(TM_BINS) || !defined(TM_MAX_STOPS)
#error "tone mapping needs -DTM_BINS and -DTM_MAX_STOPS (from tonemap.c)"
#endif
#define TM_FLOOR (-32.0f)   /* log2 of the luminance floor */
#define TM_SPAN 128.0f      /* log2(FLT_MAX) < 128 - 32 */

/* Linear RGB (HDR_CN 3 or 4, f32) -> log2 luminance, NaN/negative -> 0,
 * +Inf -> the largest float. One pixel per work-item. */
__kernel void tm_luma(__global const float *hdr, int hpitch, int width, int height,
                      __global float *lum_log CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(hdr, 0);
    CLV_DBG_BUF(lum_log, 4);
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    __global const float *p = ROW(hdr, hpitch, y) + (size_t)x * HDR_CN;
    float3 rgb = (float3)(GLD(hdr, p, 0), GLD(hdr, p, 1), GLD(hdr, p, 2));
    rgb = select(rgb, (float3)(0.0f), isnan(rgb));
    rgb = clamp(rgb, 0.0f, FLT_MAX);
    const float lum = dot(rgb, (float3)(0.2126f, 0.7152f, 0.0722f));
    GST(lum_log, lum_log, (size_t)y * width + x,
        CLV_LOG2F(fmax(lum, 2.3283064e-10f /* 2^-32 */)));
}

/* Histogram of L: per-group local histograms merged with global atomics. */
__kernel void tm_hist(__global const float *lum_log, int n, __global uint *hist CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(lum_log, 0);
    CLV_DBG_BUF(hist, 2);
    __local uint lh[TM_BINS];
    const int lid = get_local_id(0), lsize = get_local_size(0);
    for (int b = lid; b < TM_BINS; b += lsize)
        lh[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const float scale = (float)TM_BINS / TM_SPAN;
    for (size_t i = get_global_id(0); i < (size_t)n; i += get_global_size(0)) {
        const int b = clamp((int)((GLD(lum_log, lum_log, i) - TM_FLOOR) * scale), 0, TM_BINS - 1);
        atomic_inc(&lh[b]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = lid; b < TM_BINS; b += lsize)
        if (lh[b])
            GATOMIC(atomic_add, hist, hist, b, lh[b]);
}

/* One work-group of TM_RANGE_WG items: the 0.1 % and 99.9 % points of the
 * histogram -> rng[0] = lo, rng[1] = hi, with hi - lo at most TM_MAX_STOPS
 * and at least 1e-3. Each item sums a run of bins, a prefix over the runs
 * says which run holds each percentile, and that run is scanned.
 * TM_RANGE_WG (-D, a power of two up to TM_BINS) is chosen by the host from
 * the device's and kernel's work-group limits; the result is the same for
 * every size. */
#ifndef TM_RANGE_WG
#error "tone mapping needs -DTM_RANGE_WG (the range kernel's work-group size)"
#endif
#if TM_RANGE_WG < 1 || TM_RANGE_WG > TM_BINS || (TM_RANGE_WG & (TM_RANGE_WG - 1)) != 0
#error "TM_RANGE_WG must be a power of two up to TM_BINS"
#endif
__kernel void tm_range(__global const uint *hist, int n, __global float *rng CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(hist, 0);
    CLV_DBG_BUF(rng, 2);
    __local uint run[TM_RANGE_WG];
    __local int found[2];
    const int lid = get_local_id(0);
    const int per = TM_BINS / TM_RANGE_WG;
    uint sum = 0;
    for (int b = 0; b < per; b++)
        sum += GLD(hist, hist, lid * per + b);
    run[lid] = sum;
    if (lid == 0) {
        found[0] = 0;
        found[1] = TM_BINS - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* inclusive prefix over the runs (Hillis-Steele, in place with a copy) */
    for (int off = 1; off < TM_RANGE_WG; off *= 2) {
        const uint add = lid >= off ? run[lid - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        run[lid] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const uint lo_count = (uint)((float)n * 0.001f);
    const uint hi_count = (uint)ceil((float)n * 0.999f);
    const uint before = lid > 0 ? run[lid - 1] : 0;
    /* the run where the cumulative count first exceeds lo_count / reaches hi_count */
    if (before <= lo_count && run[lid] > lo_count) {
        uint acc = before;
        for (int b = 0; b < per; b++) {
            acc += GLD(hist, hist, lid * per + b);
            if (acc > lo_count) {
                found[0] = lid * per + b;
                break;
            }
        }
    }
    if (before < hi_count && run[lid] >= hi_count) {
        uint acc = before;
        for (int b = 0; b < per; b++) {
            acc += GLD(hist, hist, lid * per + b);
            if (acc >= hi_count) {
                found[1] = lid * per + b;
                break;
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        const float bw = TM_SPAN / (float)TM_BINS;
        float lo = TM_FLOOR + bw * (float)found[0];
        float hi = TM_FLOOR + bw * (float)(found[1] + 1);
        lo = fmax(lo, hi - TM_MAX_STOPS);
        if (hi - lo < 1e-3f)
            lo = hi - 1e-3f;
        GST(rng, rng, 0, lo);
        GST(rng, rng, 1, hi);
    }
}

/* sRGB transfer curve, or a plain power when gamma > 0; one channel (scalar
 * code vectorises across work-items on CPUs, float3 code does not). */
static inline float tm_encode(float v, float inv_gamma)
{
    v = clamp(v, 0.0f, 1.0f);
    const float l = CLV_LOG2F(fmax(v, 1e-30f));
    const float srgb = v <= 0.0031308f ? v * 12.92f : 1.055f * CLV_EXP2F(l * (1.0f / 2.4f)) - 0.055f;
    return inv_gamma > 0.0f ? CLV_EXP2F(l * inv_gamma) : srgb;
}

/* One channel: (c / lum) ^ saturation * lum', encoded; zero stays zero. */
static inline uchar tm_channel(float c, float inv_lum, float saturation, float lum_out, float inv_gamma)
{
    c = isnan(c) ? 0.0f : clamp(c, 0.0f, FLT_MAX);
    const float q = c * inv_lum;
    const float ratio = q > 0.0f ? CLV_EXP2F(CLV_LOG2F(q) * saturation) : 0.0f;
    return convert_uchar(tm_encode(ratio * lum_out, inv_gamma) * 255.0f + 0.5f);
}

/* Slice the base layer and apply the tone curve, writing 8-bit RGB. */
__kernel void tm_apply(__global const float *hdr, int hpitch, __global const float *lum_log,
                       __global uchar *out, int opitch, int width, int height, float inv_ss,
                       float inv_sr, __global const float *rng, __global const float *grid,
                       int gw, int gh, int gd, float contrast, float exposure, float saturation,
                       float gamma, float blend, float headroom CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(hdr, 0);
    CLV_DBG_BUF(lum_log, 2);
    CLV_DBG_BUF(out, 3);
    CLV_DBG_BUF(rng, 9);
    CLV_DBG_BUF(grid, 10);
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    const float lo = GLD(rng, rng, 0), hi = GLD(rng, rng, 1);
    const float L = GLD(lum_log, lum_log, (size_t)y * width + x);
    const CELL c = clv_grid_sample(grid CLV_DBG_PASS(grid), gw, gh, gd, (float)x * inv_ss,
                                   (float)y * inv_ss, (L - lo) * inv_sr);
    float B = CELL_W(c) > 1e-6f ? CELL_V(c) / CELL_W(c) : L;
    float Lout;
    if (hi - lo < 1.5f * (TM_SPAN / (float)TM_BINS)) {
        /* Flat image: its 0.1 % .. 99.9 % points share one 1/32-stop bin,
         * where a = contrast / (hi - lo) would stretch the bin to `contrast`
         * stops and the output would jump with where L falls in it. The base
         * goes to the middle of the compressed range instead (what a
         * mid-range base gets), detail kept: the same gray for every value. */
        Lout = -0.5f * contrast + (L - B) + exposure - headroom;
    } else {
        B = clamp(B, lo, hi);
        const float a = contrast / (hi - lo);
        const float Lc = clamp(L, lo, hi);
        const float l_local = a * (B - hi) + (L - B);
        const float l_global = a * (Lc - hi) + (L - Lc);
        Lout = blend * l_local + (1.0f - blend) * l_global + exposure - headroom;
    }

    __global const float *p = ROW(hdr, hpitch, y) + (size_t)x * HDR_CN;
    const float inv_lum = CLV_EXP2F(-L); /* L is the log2 of the (floored) luminance */
    const float lum_out = CLV_EXP2F(Lout);
    const float inv_gamma = gamma > 0.0f ? 1.0f / gamma : 0.0f;
    __global uchar *o = out + (size_t)y * opitch + (size_t)x * 3;
    GST(out, o, 0, tm_channel(GLD(hdr, p, 0), inv_lum, saturation, lum_out, inv_gamma));
    GST(out, o, 1, tm_channel(GLD(hdr, p, 1), inv_lum, saturation, lum_out, inv_gamma));
    GST(out, o, 2, tm_channel(GLD(hdr, p, 2), inv_lum, saturation, lum_out, inv_gamma));
}
#endif /* HDR_CN */
