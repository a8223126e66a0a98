/* Shi-Tomasi corners (goodFeaturesToTrack), every stage on the device.
 *
 * 1. corners_hsum (CPUs: corners_hrow in corners_resp_vec): Sobel 3x3 gradients scaled as OpenCV's
 *    cornerMinEigenVal (f1 = 1 / (4 block [255 for u8]), f0 = 2 f1):
 *      gx(r) = I(x+1, r) - I(x-1, r),  gy(r) = (I(x-1, r) + I(x+1, r)) + 2 I(x, r)
 *      dx = (gx(y-1) + gx(y+1)) f1 + gx(y) f0,  dy = (gy(y+1) - gy(y-1)) f1
 *    then the products dx^2, dx dy, dy^2 summed over the block's columns
 *    (H planes). Image and block borders are reflect101, the block's border
 *    applying to the product images, as OpenCV's boxFilter on them does.
 * 2. corners_eig (CPUs: corners_resp_vec, both stages by bands of rows
 *    with a ring of H rows in cache): column sums of H -> structure tensor (a, b, c) ->
 *    response = (a/2 + c/2) - sqrt((a/2 - c/2)^2 + b^2); the maximum response
 *    (over the mask) goes to params[P_MAX] by one atomic_max per work-group.
 *    Responses are >= 0 up to rounding, and the maximum starts at 0, so the
 *    int ordering of the float bits is the float ordering.
 * 3. corners_cand[_vec]: thr = max * quality; a candidate is an interior pixel
 *    (1 <= x <= w-2, 1 <= y <= h-2) with v > thr, v >= its 8 neighbours
 *    (OpenCV: v == dilate(v) after thresholding to zero) and mask != 0. Each
 *    work-group reserves room with one atomic_add and writes 64-bit keys
 *    (response bits << 32 | y w + x), so sorting keys descending orders by
 *    response, ties by larger pixel index first as OpenCV's greaterThanPtr.
 *    Past `cap` keys only the count grows; the host then finds (modes 1, 2 +
 *    corners_cut: a two-level radix select on the response bits) the value
 *    V with at most cap candidates above it, and runs mode 0 again keeping
 *    bits > V.
 * 4. Sort, descending. GPUs: corners_sort_block / corners_sort_step, a
 *    bitonic sort of the keys padded with zeros to a power of two (blocks in
 *    local memory, global steps for strides beyond a block). CPUs:
 *    corners_rs_hist / corners_rs_scatter, a radix sort.
 * 5. corners_select: the greedy minimum-distance pass of OpenCV in one
 *    work-group, SEL_G sorted candidates at a time. Accepted corners live in
 *    a grid of cells of side ceil(d) - 1 (4 slots each), so any accepted
 *    point closer than d lies in the 3x3 cells around; at most 3 points
 *    pairwise >= d apart fit a cell. Per batch: every candidate checks the
 *    grid in parallel; survivors that conflict with an earlier survivor of
 *    the same batch are resolved in order by one work-item (rare after the
 *    first batches); the accepted ones are written in order (rank by
 *    popcount) and entered in the grid. Stops at max_corners.
 * Needs DEPTH_U8 or DEPTH_F32, CN=1, BORDER (reflect101), SEL_G (power of
 * two, 32..1024). VEC=16 adds the CPU variants of stages 1-3 and the merge
 * sort. The block radius r and the mask flag are arguments, so one program
 * serves them all; the mask (when has_mask) is u8 of the image's size.
 * No FP contraction, so every device computes the responses of the plain C
 * reference bit for bit (with a correctly rounded sqrt, which the host
 * requests where the device offers it). */
#pragma OPENCL FP_CONTRACT OFF

#if !defined(BORDER) || !defined(SEL_G)
#error "BORDER and SEL_G must be defined"
#endif
#if SEL_G < 32 || SEL_G > 1024 || (SEL_G & (SEL_G - 1)) != 0
#error "SEL_G must be a power of two in 32..1024"
#endif

/* params[] slots (ints), zeroed by the host before stage 2 */
#define P_MAX 0   /* float bits of the maximum response */
#define P_COUNT 1 /* candidates found (may exceed cap) */
#define P_CUT 2   /* keep only response bits > this (0: all) */
#define P_HI 3    /* radix select: high 16 bits of the cut */
#define P_ABOVE 4 /* radix select: candidates above the high bin */
#define P_NOUT 5  /* corners written by corners_select */

#define MIN_EIG(sxx, sxy, syy, SQRT)                                                             \
    ((((sxx) * 0.5f) + ((syy) * 0.5f)) -                                                        \
     SQRT((((sxx) * 0.5f) - ((syy) * 0.5f)) * (((sxx) * 0.5f) - ((syy) * 0.5f)) + (sxy) * (sxy)))

/* Scaled Sobel gradients at the in-image pixel (x, y). */
static inline void grad_at(__global const T *src CLV_DBG_PARAM(src), int pitch, int w, int h, int x,
                    int y, float f1, float f0, float *dx, float *dy)
{
    const int xm = BORDER_INDEX(x - 1, w), xp = BORDER_INDEX(x + 1, w);
    __global const T *r0 = ROW(src, pitch, BORDER_INDEX(y - 1, h));
    __global const T *r1 = ROW(src, pitch, y);
    __global const T *r2 = ROW(src, pitch, BORDER_INDEX(y + 1, h));
    const float a0 = GLD(src, r0, xm), b0 = GLD(src, r0, x), c0 = GLD(src, r0, xp);
    const float a1 = GLD(src, r1, xm), c1 = GLD(src, r1, xp);
    const float a2 = GLD(src, r2, xm), b2 = GLD(src, r2, x), c2 = GLD(src, r2, xp);
    const float gx0 = c0 - a0, gx1 = c1 - a1, gx2 = c2 - a2;
    const float gy0 = (a0 + c0) + 2.0f * b0, gy2 = (a2 + c2) + 2.0f * b2;
    *dx = (gx0 + gx2) * f1 + gx1 * f0;
    *dy = (gy2 - gy0) * f1;
}

/* Row sums over the block of the three gradient products. One work-group
 * row stages the products for its columns plus the block's halo. */
__kernel void corners_hsum(__global const T *src, int src_pitch, int w, int h, int r,
                           float f1, float f0, __global float *hs, ulong plane, int pitch,
                           __local float *tile CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(hs, 7);
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int lw = get_local_size(0);
    const int x0 = get_group_id(0) * lw;
    const int y = get_group_id(1) * get_local_size(1) + ly;
    const int n = lw + 2 * r;
    __local float *t = tile + (size_t)ly * n * 3;
    if (y < h) {
        for (int i = lx; i < n; i += lw) {
            const int q = BORDER_INDEX(x0 - r + i, w);
            float dx, dy;
            grad_at(src CLV_DBG_PASS(src), src_pitch, w, h, q, y, f1, f0, &dx, &dy);
            t[3 * i] = dx * dx;
            t[3 * i + 1] = dx * dy;
            t[3 * i + 2] = dy * dy;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = x0 + lx;
    if (y < h && x < w) {
        float sxx = 0.0f, sxy = 0.0f, syy = 0.0f;
        for (int i = 0; i <= 2 * r; i++) {
            sxx += t[3 * (lx + i)];
            sxy += t[3 * (lx + i) + 1];
            syy += t[3 * (lx + i) + 2];
        }
        const size_t o = (size_t)y * (size_t)pitch + (size_t)x;
        GST(hs, hs, o, sxx);
        GST(hs, hs, plane + o, sxy);
        GST(hs, hs, 2 * plane + o, syy);
    }
}

/* Work-group maximum of m (local size a power of two) -> atomic_max. */
static inline void group_max_to(__local float *red, float m, __global int *params CLV_DBG_PARAM(params))
{
    const int lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    const int n = get_local_size(0) * get_local_size(1);
    red[lid] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = n / 2; s > 0; s >>= 1) {
        if (lid < s)
            red[lid] = red[lid + s] > red[lid] ? red[lid + s] : red[lid];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0 && red[0] > 0.0f)
        GATOMIC(atomic_max, params, params, P_MAX, as_int(red[0]));
}

__kernel void corners_eig(__global const float *hs, ulong plane, int pitch, int w, int h, int r,
                          __global float *resp, int has_mask, __global const uchar *mask,
                          int mask_pitch, __global int *params, __local float *red CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(hs, 0);
    CLV_DBG_BUF(resp, 6);
    CLV_DBG_BUF(mask, 8);
    CLV_DBG_BUF(params, 10);
    const int x = get_global_id(0), y = get_global_id(1);
    float m = 0.0f;
    if (x < w && y < h) {
        float sxx = 0.0f, sxy = 0.0f, syy = 0.0f;
        for (int j = -r; j <= r; j++) {
            const size_t o = (size_t)BORDER_INDEX(y + j, h) * (size_t)pitch + (size_t)x;
            sxx += GLD(hs, hs, o);
            sxy += GLD(hs, hs, plane + o);
            syy += GLD(hs, hs, 2 * plane + o);
        }
        const float v = MIN_EIG(sxx, sxy, syy, sqrt);
        GST(resp, resp, (size_t)y * (size_t)pitch + (size_t)x, v);
        if (!has_mask || GLD(mask, mask, (size_t)y * (size_t)mask_pitch + (size_t)x) != 0)
            m = v > m ? v : m;
    }
    group_max_to(red, m, params CLV_DBG_PASS(params));
}

/* Candidate test for stage 3 at an interior pixel. */
static inline int is_candidate(__global const float *resp CLV_DBG_PARAM(resp), int pitch, int x, int y,
                        float thr, uint cut, int has_mask,
                        __global const uchar *mask CLV_DBG_PARAM(mask), int mask_pitch,
                        float *v_out)
{
    __global const float *r = resp + (size_t)y * (size_t)pitch + (size_t)x;
    const float v = GLD(resp, r, 0);
    *v_out = v;
    int c = v > thr && as_uint(v) > cut;
    if (c && has_mask)
        c = GLD(mask, mask, (size_t)y * (size_t)mask_pitch + (size_t)x) != 0;
    if (!c)
        return 0;
    __global const float *u = r - pitch, *d = r + pitch;
    return v >= GLD(resp, u, -1) && v >= GLD(resp, u, 0) && v >= GLD(resp, u, 1) &&
           v >= GLD(resp, r, -1) && v >= GLD(resp, r, 1) && v >= GLD(resp, d, -1) &&
           v >= GLD(resp, d, 0) && v >= GLD(resp, d, 1);
}

/* mode 0: write keys; 1: histogram of the high 16 response bits; 2: of the
 * low 16 bits within the high bin params[P_HI]. */
__kernel void corners_cand(__global const float *resp, int pitch, int w, int h, int has_mask,
                           __global const uchar *mask, int mask_pitch, float quality,
                           __global int *params, __global ulong *keys, int cap, int mode,
                           __global int *hist CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(resp, 0);
    CLV_DBG_BUF(mask, 5);
    CLV_DBG_BUF(params, 8);
    CLV_DBG_BUF(keys, 9);
    CLV_DBG_BUF(hist, 12);
    __local int lcount, lbase;
    const int x = get_global_id(0), y = get_global_id(1);
    const int lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    const float thr = as_float(GLD(params, params, P_MAX)) * quality;
    const uint cut = (uint)GLD(params, params, P_CUT);
    int cand = 0;
    float v = 0.0f;
    if (x >= 1 && y >= 1 && x < w - 1 && y < h - 1)
        cand = is_candidate(resp CLV_DBG_PASS(resp), pitch, x, y, thr, cut, has_mask,
                            mask CLV_DBG_PASS(mask), mask_pitch, &v);
    if (lid == 0)
        lcount = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int pos = -1;
    if (cand && mode == 0)
        pos = atomic_inc(&lcount);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0 && lcount > 0)
        lbase = GATOMIC(atomic_add, params, params, P_COUNT, lcount);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint bits = as_uint(v);
    if (pos >= 0 && lbase + pos < cap)
        GST(keys, keys, lbase + pos, ((ulong)bits << 32) | (ulong)((uint)y * (uint)w + (uint)x));
    if (cand && mode == 1)
        GATOMIC_INC(hist, hist, bits >> 16);
    if (cand && mode == 2 && (int)(bits >> 16) == GLD(params, params, P_HI))
        GATOMIC_INC(hist, hist, bits & 0xffffu);
}

/* Radix-select step over a 65536-bin histogram (one work-group, power-of-two
 * size): level 1 finds the high bin B where the count of candidates above
 * first passes cap; level 2 the low bin L inside B. Keeping bits > (B << 16 |
 * L) keeps at most cap candidates, as many as possible. */
__kernel void corners_cut(__global const int *hist, __global int *params, int cap, int level,
                          __local int *part CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(hist, 0);
    CLV_DBG_BUF(params, 1);
    const int lid = get_local_id(0), n = get_local_size(0);
    const int chunk = 65536 / n;
    int s = 0;
    for (int b = lid * chunk; b < (lid + 1) * chunk; b++)
        s += GLD(hist, hist, b);
    part[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        const int need = level == 1 ? cap : cap - GLD(params, params, P_ABOVE);
        int above = 0, c = n - 1;
        for (; c > 0; c--) {
            if (above + part[c] > need)
                break;
            above += part[c];
        }
        int b = (c + 1) * chunk - 1;
        for (; b > c * chunk; b--) {
            if (above + GLD(hist, hist, b) > need)
                break;
            above += GLD(hist, hist, b);
        }
        if (level == 1) {
            GST(params, params, P_HI, b);
            GST(params, params, P_ABOVE, above);
        } else {
            GST(params, params, P_CUT, (int)(((uint)GLD(params, params, P_HI) << 16) | (uint)b));
        }
    }
}

/* Bitonic compare-exchange of keys i < l = i + j, descending where
 * (i & k) == 0. LD(p, i) / ST(p, i, v) access a_ptr: LOCAL_LD / LOCAL_ST for
 * local memory, KEYS_LD / KEYS_ST for the buffer argument `keys`. */
#define BITONIC_CE(LD, ST, a_ptr, i, l, gi, k)                                                 \
    do {                                                                                       \
        const ulong a_ = LD(a_ptr, i), b_ = LD(a_ptr, l);                                      \
        const int desc_ = ((gi) & (uint)(k)) == 0;                                             \
        if ((a_ < b_) == desc_) {                                                              \
            ST(a_ptr, i, b_);                                                                  \
            ST(a_ptr, l, a_);                                                                  \
        }                                                                                      \
    } while (0)
#define LOCAL_LD(p, i) (p)[i]
#define LOCAL_ST(p, i, v) (p)[i] = (v)
#define KEYS_LD(p, i) GLD(keys, p, i)
#define KEYS_ST(p, i, v) GST(keys, p, i, v)

/* Stages kfirst..klast (powers of two) with strides below the block size B,
 * on one block of B keys in local memory per work-group. */
__kernel void corners_sort_block(__global ulong *keys, int kfirst, int klast, int B,
                                 __local ulong *buf CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(keys, 0);
    const int lid = get_local_id(0), n = get_local_size(0);
    const uint base = get_group_id(0) * (uint)B;
    for (int i = lid; i < B; i += n)
        buf[i] = GLD(keys, keys, base + i);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = kfirst; k <= klast; k <<= 1) {
        for (int j = min(k >> 1, B >> 1); j > 0; j >>= 1) {
            for (int p = lid; p < (B >> 1); p += n) {
                const int i = ((p & ~(j - 1)) << 1) | (p & (j - 1));
                BITONIC_CE(LOCAL_LD, LOCAL_ST, buf, i, i + j, base + (uint)i, k);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    for (int i = lid; i < B; i += n)
        GST(keys, keys, base + i, buf[i]);
}

/* One global step (stage k, stride j >= block size) over half pairs. */
__kernel void corners_sort_step(__global ulong *keys, int k, int j, int npairs CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(keys, 0);
    const int p = get_global_id(0);
    if (p >= npairs)
        return;
    const int i = ((p & ~(j - 1)) << 1) | (p & (j - 1));
    BITONIC_CE(KEYS_LD, KEYS_ST, keys, i, i + j, (uint)i, k);
}

/* CPU sort (descending, any n): a least-significant-digit radix sort, one
 * pass per byte of the key that can differ (corners.c picks them), each
 * pass stable, so the keys end in descending order. A pass is two
 * launches over G chunks of the keys, one work-item each (G from corners.c,
 * a few per compute unit): corners_rs_hist counts the chunk's digits into
 * hist[d * G + g]; corners_rs_scatter finds where its chunk's keys of each
 * digit go (after every key of a larger digit, and of its digit in earlier
 * chunks) and copies them there in order (timings: corners.c). */
#define RS_BINS 256
__kernel void corners_rs_hist(__global const ulong *keys, int n, int shift, int chunk,
                              __global int *hist CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(keys, 0);
    CLV_DBG_BUF(hist, 4);
    const int g = get_global_id(0), ng = get_global_size(0);
    int c[RS_BINS];
    for (int d = 0; d < RS_BINS; d++)
        c[d] = 0;
    const int b = g * chunk, e = min(b + chunk, n);
    for (int i = b; i < e; i++)
        c[(int)(GLD(keys, keys, i) >> shift) & (RS_BINS - 1)]++;
    for (int d = 0; d < RS_BINS; d++)
        GST(hist, hist, d * ng + g, c[d]);
}

__kernel void corners_rs_scatter(__global const ulong *src, __global ulong *dst, int n, int shift,
                                 int chunk, __global const int *hist CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 1);
    CLV_DBG_BUF(hist, 5);
    const int g = get_global_id(0), ng = get_global_size(0);
    int off[RS_BINS];
    int run = 0;
    for (int d = RS_BINS - 1; d >= 0; d--) {
        int before = 0, total = 0;
        for (int q = 0; q < ng; q++) {
            const int v = GLD(hist, hist, d * ng + q);
            total += v;
            before += q < g ? v : 0;
        }
        off[d] = run + before;
        run += total;
    }
    const int b = g * chunk, e = min(b + chunk, n);
    for (int i = b; i < e; i++) {
        const ulong k = GLD(src, src, i);
        const int at = off[(int)(k >> shift) & (RS_BINS - 1)]++; /* GST reads its index twice */
        GST(dst, dst, at, k);
    }
}

#define SEL_WORDS (SEL_G / 32)

/* Lowest set bit of m != 0. */
static inline int low_bit(uint m) { return 31 - (int)clz(m & (0u - m)); }

/* Greedy minimum distance (see the top). lim: squared distances below it
 * conflict (ceil(d^2), exact for integer positions). grid: gw x gh cells
 * of side `cell`, 4 pixel indices each, -1 empty; unused when !use_grid. */
__kernel void corners_select(__global const ulong *keys, int n, int w, __global int *grid,
                             int gw, int gh, int cell, long lim, int use_grid, int max_corners,
                             __global float *out, __global int *params CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(keys, 0);
    CLV_DBG_BUF(grid, 3);
    CLV_DBG_BUF(out, 10);
    CLV_DBG_BUF(params, 11);
    __local int lxs[SEL_G], lys[SEL_G];
    __local uint surv[SEL_WORDS], confl[SEL_WORDS], acc[SEL_WORDS];
    __local uint cmask[SEL_G * SEL_WORDS];
    __local int count;
    const int lid = get_local_id(0);
    const int wd_me = lid >> 5;
    const uint bit_me = 1u << (lid & 31);
    if (lid == 0)
        count = 0;
    int stop = n <= 0 || max_corners <= 0;
    for (int base = 0; !stop; base += SEL_G) {
        if (lid < SEL_WORDS) {
            surv[lid] = 0;
            confl[lid] = 0;
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        const int i = base + lid;
        int ok = i < n;
        const ulong key = ok ? GLD(keys, keys, i) : 0;
        const uint idx = (uint)key;
        const int x = (int)(idx % (uint)w), y = (int)(idx / (uint)w);
        if (ok && use_grid) {
            const int cx = x / cell, cy = y / cell;
            for (int yy = max(cy - 1, 0); yy <= min(cy + 1, gh - 1) && ok; yy++) {
                for (int xx = max(cx - 1, 0); xx <= min(cx + 1, gw - 1); xx++) {
                    __global const int *g = grid + ((size_t)yy * (size_t)gw + (size_t)xx) * 4;
                    for (int s = 0; s < 4; s++) {
                        const int e = GLD(grid, g, s);
                        if (e == -1)
                            break;
                        const long ex = (long)((uint)e % (uint)w), ey = (long)((uint)e / (uint)w);
                        const long ddx = x - ex, ddy = y - ey;
                        if (ddx * ddx + ddy * ddy < lim)
                            ok = 0;
                    }
                }
            }
        }
        lxs[lid] = x;
        lys[lid] = y;
        if (ok)
            atomic_or(&surv[wd_me], bit_me);
        /* global too: orders every work-item's grid reads above before the
         * survivors' grid writes below (OpenCL 1.2: a local fence does not) */
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        /* conflicts with earlier survivors of this batch */
        if (ok && use_grid) {
            uint any = 0;
            for (int wd = 0; wd <= wd_me; wd++) {
                uint m = surv[wd];
                if (wd == wd_me)
                    m &= bit_me - 1u;
                uint c = 0;
                while (m) {
                    const int b = low_bit(m);
                    m &= m - 1u;
                    const int j = wd * 32 + b;
                    const long ddx = x - lxs[j], ddy = y - lys[j];
                    if (ddx * ddx + ddy * ddy < lim)
                        c |= 1u << b;
                }
                cmask[lid * SEL_WORDS + wd] = c;
                any |= c;
            }
            if (any)
                atomic_or(&confl[wd_me], bit_me);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            for (int wd = 0; wd < SEL_WORDS; wd++)
                acc[wd] = surv[wd] & ~confl[wd];
            for (int wd = 0; wd < SEL_WORDS; wd++) {
                uint m = confl[wd];
                while (m) {
                    const int b = low_bit(m);
                    m &= m - 1u;
                    const int j = wd * 32 + b;
                    int bad = 0;
                    for (int w2 = 0; w2 <= wd && !bad; w2++)
                        bad = (cmask[j * SEL_WORDS + w2] & acc[w2]) != 0;
                    if (!bad)
                        acc[wd] |= 1u << b;
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (acc[wd_me] & bit_me) {
            int rank = count + popcount(acc[wd_me] & (bit_me - 1u));
            for (int wd = 0; wd < wd_me; wd++)
                rank += popcount(acc[wd]);
            if (rank < max_corners) {
                GST(out, out, 3 * rank, (float)x);
                GST(out, out, 3 * rank + 1, (float)y);
                GST(out, out, 3 * rank + 2, as_float((uint)(key >> 32)));
                if (use_grid) {
                    __global int *g =
                        grid + ((size_t)(y / cell) * (size_t)gw + (size_t)(x / cell)) * 4;
                    for (int s = 0; s < 4; s++)
                        if (GATOMIC_CMPXCHG(grid, g, s, -1, (int)idx) == -1)
                            break;
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        if (lid == 0) {
            int total = 0;
            for (int wd = 0; wd < SEL_WORDS; wd++)
                total += popcount(acc[wd]);
            count = min(count + total, max_corners);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        stop = count >= max_corners || base + SEL_G >= n;
    }
    if (lid == 0)
        GST(params, params, P_NOUT, count);
}

#ifdef VEC
#if VEC != 16
#error "the corner CPU kernels are written for VEC == 16"
#endif
#define LANES ((int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))

static inline float max16(float16 v)
{
    const float8 a = fmax(v.lo, v.hi);
    const float4 b = fmax(a.lo, a.hi);
    const float2 c = fmax(b.lo, b.hi);
    return fmax(c.x, c.y);
}

/* CPU stages 1 and 2 in one kernel. corners_hrow: the sums along the
 * row (the block's 2r+1 columns) of the gradient products at 16 pixels of
 * row y. */
static inline void corners_hrow(__global const T *src CLV_DBG_PARAM(src), int src_pitch, int w,
                                int h, int r, float f1, float f0, int x0, int y, float16 *oxx,
                                float16 *oxy, float16 *oyy)
{
    float16 sxx = 0.0f, sxy = 0.0f, syy = 0.0f;
    if (x0 - r - 1 >= 0 && x0 + 16 + r < w) {
        __global const T *r0 = ROW(src, src_pitch, BORDER_INDEX(y - 1, h));
        __global const T *r1 = ROW(src, src_pitch, y);
        __global const T *r2 = ROW(src, src_pitch, BORDER_INDEX(y + 1, h));
        for (int i = -r; i <= r; i++) {
            const int e = x0 + i;
            const float16 a0 = TO_FV(VLOAD_AT(src, e - 1, r0)), b0 = TO_FV(VLOAD_AT(src, e, r0)),
                          c0 = TO_FV(VLOAD_AT(src, e + 1, r0));
            const float16 a1 = TO_FV(VLOAD_AT(src, e - 1, r1)), c1 = TO_FV(VLOAD_AT(src, e + 1, r1));
            const float16 a2 = TO_FV(VLOAD_AT(src, e - 1, r2)), b2 = TO_FV(VLOAD_AT(src, e, r2)),
                          c2 = TO_FV(VLOAD_AT(src, e + 1, r2));
            const float16 gx0 = c0 - a0, gx1 = c1 - a1, gx2 = c2 - a2;
            const float16 gy0 = (a0 + c0) + 2.0f * b0, gy2 = (a2 + c2) + 2.0f * b2;
            const float16 dx = (gx0 + gx2) * f1 + gx1 * f0;
            const float16 dy = (gy2 - gy0) * f1;
            sxx += dx * dx;
            sxy += dx * dy;
            syy += dy * dy;
        }
    } else {
        float pxx[16], pxy[16], pyy[16];
        for (int l = 0; l < 16; l++) {
            float a = 0.0f, b = 0.0f, c = 0.0f;
            if (x0 + l < w) {
                for (int i = -r; i <= r; i++) {
                    float dx, dy;
                    grad_at(src CLV_DBG_PASS(src), src_pitch, w, h, BORDER_INDEX(x0 + l + i, w),
                            y, f1, f0, &dx, &dy);
                    a += dx * dx;
                    b += dx * dy;
                    c += dy * dy;
                }
            }
            pxx[l] = a;
            pxy[l] = b;
            pyy[l] = c;
        }
        sxx = vload16(0, pxx);
        sxy = vload16(0, pxy);
        syy = vload16(0, pyy);
    }
    *oxx = sxx;
    *oxy = sxy;
    *oyy = syy;
}

/* corners_hrow at every strip of source row sy into the ring row at o
 * (strip s's three sums at o + 48 s). */
static inline void corners_ring_row(__global const T *src CLV_DBG_PARAM(src), int src_pitch,
                                    int w, int h, int r, float f1, float f0, int sy,
                                    __global float *ring CLV_DBG_PARAM(ring), __global float *o)
{
    for (int s = 0; s < (w + 15) / 16; s++) {
        float16 a, b, c;
        corners_hrow(src CLV_DBG_PASS(src), src_pitch, w, h, r, f1, f0, 16 * s, sy, &a, &b, &c);
        GVST(16, ring, a, 0, o + 48 * s);
        GVST(16, ring, b, 0, o + 48 * s + 16);
        GVST(16, ring, c, 0, o + 48 * s + 32);
    }
}

/* corners_resp_vec: a work-item takes a band of `band` rows, row by row
 * over the whole width in strips of 16 pixels, keeping the row sums of the
 * block's last 2r+1 rows in its own ring (ring: 2r+1 rows of strips x 48
 * floats per band, in cache), so no full-size image of row sums goes
 * through memory; each row adds one row's sums to the ring and sums the
 * block's rows in the order the two-stage kernels did (the same responses,
 * bit for bit). One work-item per group: its maximum response goes to
 * params[P_MAX]. */
__kernel void corners_resp_vec(__global const T *src, int src_pitch, int w, int h, int r,
                               float f1, float f0, __global float *ring, int band,
                               __global float *resp, int pitch, int has_mask,
                               __global const uchar *mask, int mask_pitch, __global int *params,
                               __local float *red CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(ring, 7);
    CLV_DBG_BUF(resp, 9);
    CLV_DBG_BUF(mask, 12);
    CLV_DBG_BUF(params, 14);
    const int y0 = get_global_id(0) * band;
    float m = 0.0f;
    if (y0 < h) {
        const int k = 2 * r + 1, strips = (w + 15) / 16, rp = strips * 48;
        __global float *rg = ring + (size_t)get_global_id(0) * (size_t)k * (size_t)rp;
        /* ring row t holds the row sums of block row y0 - r + t (mod k) */
        for (int t = 0; t + 1 < k; t++)
            corners_ring_row(src CLV_DBG_PASS(src), src_pitch, w, h, r, f1, f0,
                             BORDER_INDEX(y0 - r + t, h), ring CLV_DBG_PASS(ring), rg + t * rp);
        const int y1 = min(y0 + band, h);
        for (int y = y0; y < y1; y++) {
            corners_ring_row(src CLV_DBG_PASS(src), src_pitch, w, h, r, f1, f0,
                             BORDER_INDEX(y + r, h), ring CLV_DBG_PASS(ring),
                             rg + ((y - y0 + 2 * r) % k) * rp);
            for (int s = 0; s < strips; s++) {
                const int x0 = 16 * s;
                float16 sxx = 0.0f, sxy = 0.0f, syy = 0.0f;
                for (int j = 0; j < k; j++) {
                    __global const float *q = rg + ((y - y0 + j) % k) * rp + 48 * s;
                    sxx += GVLD(16, ring, 0, q);
                    sxy += GVLD(16, ring, 0, q + 16);
                    syy += GVLD(16, ring, 0, q + 32);
                }
                const float16 v = MIN_EIG(sxx, sxy, syy, sqrt);
                GVST(16, resp, v, 0, resp + (size_t)y * (size_t)pitch + (size_t)x0);
                int16 keep = ((LANES + x0) < w) & (v > 0.0f);
                if (has_mask)
                    keep &= convert_int16(GVLD(16, mask, 0,
                                               mask + (size_t)y * (size_t)mask_pitch +
                                                   (size_t)x0)) != 0;
                m = max(m, max16(select((float16)0.0f, v, keep)));
            }
        }
    }
    group_max_to(red, m, params CLV_DBG_PASS(params));
}

/* CPU stage 3: 16 pixels per work-item (resp pitch >= round_up(w, 16) + 16,
 * so the neighbour loads stay inside the buffer). */
__kernel void corners_cand_vec(__global const float *resp, int pitch, int w, int h,
                               int has_mask, __global const uchar *mask, int mask_pitch,
                               float quality,
                               __global int *params, __global ulong *keys, int cap, int mode,
                               __global int *hist CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(resp, 0);
    CLV_DBG_BUF(mask, 5);
    CLV_DBG_BUF(params, 8);
    CLV_DBG_BUF(keys, 9);
    CLV_DBG_BUF(hist, 12);
    __local int lcount, lbase;
    const int x0 = get_global_id(0) * 16, y = get_global_id(1);
    const int lid = get_local_id(0);
    const float thr = as_float(GLD(params, params, P_MAX)) * quality;
    const uint cut = (uint)GLD(params, params, P_CUT);
    int cmask = 0; /* bit l: lane l is a candidate */
    float vals[16];
    if (x0 < w && y >= 1 && y < h - 1) {
        __global const float *r = resp + (size_t)y * (size_t)pitch + (size_t)x0;
        __global const float *u = r - pitch, *d = r + pitch;
        const float16 v = GVLD(16, resp, 0, r);
        const int16 xs = LANES + x0;
        int16 c = (xs >= 1) & (xs < w - 1) & (v > thr) & (as_uint16(v) > cut);
        if (has_mask)
            c &= convert_int16(GVLD(16, mask, 0,
                                    mask + (size_t)y * (size_t)mask_pitch + (size_t)x0)) != 0;
        /* At x0 = 0 the vector from u - 1 would start before the buffer on
         * row 0; lane 0 (x = 0) is never a candidate, so there the upper row
         * shifted by one lane gives the left neighbours of lanes 1..15. */
        const float16 ua = GVLD(16, resp, 0, u);
        const float16 ul = x0 > 0 ? GVLD(16, resp, 0, u - 1)
                                  : shuffle(ua, (uint16)(0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                                         12, 13, 14));
        c &= (v >= ul) & (v >= ua) & (v >= GVLD(16, resp, 0, u + 1));
        c &= (v >= GVLD(16, resp, 0, r - 1)) & (v >= GVLD(16, resp, 0, r + 1));
        c &= (v >= GVLD(16, resp, 0, d - 1)) & (v >= GVLD(16, resp, 0, d)) &
             (v >= GVLD(16, resp, 0, d + 1));
        if (any(c)) {
            int cs[16];
            vstore16(c, 0, cs);
            vstore16(v, 0, vals);
            for (int l = 0; l < 16; l++)
                cmask |= cs[l] ? 1 << l : 0;
        }
    }
    if (lid == 0)
        lcount = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int pos = 0;
    if (cmask && mode == 0)
        pos = atomic_add(&lcount, popcount(cmask));
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0 && lcount > 0)
        lbase = GATOMIC(atomic_add, params, params, P_COUNT, lcount);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int m = cmask; m; m &= m - 1) {
        const int l = low_bit((uint)m);
        const uint bits = as_uint(vals[l]);
        if (mode == 0) {
            const int at = lbase + pos++;
            if (at < cap)
                GST(keys, keys, at,
                    ((ulong)bits << 32) | (ulong)((uint)y * (uint)w + (uint)(x0 + l)));
        } else if (mode == 1) {
            GATOMIC_INC(hist, hist, bits >> 16);
        } else if ((int)(bits >> 16) == GLD(params, params, P_HI)) {
            GATOMIC_INC(hist, hist, bits & 0xffffu);
        }
    }
}
#endif
