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
                         __global float *tmp, __constant float *wx, int rx,
                         __local float *tile CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(tmp, 4);
    CLV_DBG_BUF(wx, 5);
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
            VSTORE(sx < 0 ? FN_ZERO : LOAD_PIX(src, row, sx), i, trow);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = x0 + lx;
    if (y < height && x < width) {
        FN s = FN_ZERO;
        for (int t = 0; t <= 2 * rx; t++)
            s += VLOAD(lx + t, trow) * GLD(wx, wx, t);
        GVSTORE(tmp, s, x, tmp + (size_t)y * (size_t)width * CN);
    }
}

__kernel void gauss_cols(__global const float *tmp, int width, int height, __global T *dst,
                         int dst_pitch, __constant float *wy, int ry,
                         __local float *tile CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(tmp, 0);
    CLV_DBG_BUF(dst, 3);
    CLV_DBG_BUF(wy, 5);
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int lw = get_local_size(0), lh = get_local_size(1);
    const int x = get_group_id(0) * lw + lx;
    const int y0 = get_group_id(1) * lh;
    const int n = lh + 2 * ry;
    const size_t pitch = (size_t)width * CN;
    if (x < width) {
        for (int i = ly; i < n; i += lh) {
            const int sy = BORDER_INDEX(y0 - ry + i, height);
            VSTORE(sy < 0 ? FN_ZERO : GVLOAD(tmp, x, tmp + (size_t)sy * pitch),
                   (size_t)i * lw + lx, tile);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int y = y0 + ly;
    if (y < height && x < width) {
        FN s = FN_ZERO;
        for (int t = 0; t <= 2 * ry; t++)
            s += VLOAD((size_t)(ly + t) * lw + lx, tile) * GLD(wy, wy, t);
        STORE_PIX(dst, ROW(dst, dst_pitch, y), x, s);
    }
}

#ifdef VEC
/* s = the sum over t = 0..n-1 of VAL * W (expressions in t), in four
 * partial sums: one running sum is a chain of dependent multiply-adds, and
 * the CPU then waits the adder's latency on every tap; four chains keep it
 * busy. */
#define GAUSS_TAPS(s, t, VAL, W, n)                                                             \
    do {                                                                                       \
        FV a0_ = (FV)(0.0f), a1_ = (FV)(0.0f), a2_ = (FV)(0.0f), a3_ = (FV)(0.0f);             \
        int b_ = 0;                                                                            \
        for (; b_ + 3 < (n); b_ += 4) {                                                        \
            { const int t = b_;     a0_ += (VAL) * (W); }                                      \
            { const int t = b_ + 1; a1_ += (VAL) * (W); }                                      \
            { const int t = b_ + 2; a2_ += (VAL) * (W); }                                      \
            { const int t = b_ + 3; a3_ += (VAL) * (W); }                                      \
        }                                                                                      \
        for (; b_ < (n); b_++) {                                                               \
            const int t = b_;                                                                  \
            a0_ += (VAL) * (W);                                                                \
        }                                                                                      \
        (s) = (a0_ + a1_) + (a2_ + a3_);                                                       \
    } while (0)

/* As GAUSS_TAPS for two outputs that share the weights, s0 over VAL0 and s1
 * over VAL1, in two partial sums each: each weight is broadcast once for
 * both. */
#define GAUSS_TAPS2(s0, s1, t, VAL0, VAL1, W, n)                                                \
    do {                                                                                       \
        FV a0_ = (FV)(0.0f), a1_ = (FV)(0.0f), c0_ = (FV)(0.0f), c1_ = (FV)(0.0f);             \
        int b_ = 0;                                                                            \
        for (; b_ + 1 < (n); b_ += 2) {                                                        \
            {                                                                                  \
                const int t = b_;                                                              \
                const float w_ = (W);                                                          \
                a0_ += (VAL0) * w_;                                                            \
                c0_ += (VAL1) * w_;                                                            \
            }                                                                                  \
            {                                                                                  \
                const int t = b_ + 1;                                                          \
                const float w_ = (W);                                                          \
                a1_ += (VAL0) * w_;                                                            \
                c1_ += (VAL1) * w_;                                                            \
            }                                                                                  \
        }                                                                                      \
        if (b_ < (n)) {                                                                        \
            const int t = b_;                                                                  \
            const float w_ = (W);                                                              \
            a0_ += (VAL0) * w_;                                                                \
            c0_ += (VAL1) * w_;                                                                \
        }                                                                                      \
        (s0) = a0_ + a1_;                                                                      \
        (s1) = c0_ + c1_;                                                                      \
    } while (0)

/* As GAUSS_TAPS2 over the 2r + 1 taps of a symmetric window (W at t and at
 * 2r - t are equal: clv__gaussian_weights computes both from the same
 * squared distance): the mirrored values are added first, so r + 1
 * multiply-adds and r additions per output instead of 2r + 1 multiply-adds.
 * x86 cores with separate adders (AMD Zen) run the additions beside the
 * multiply-adds. One running sum per output: the two outputs, and the
 * independent vectors of the caller's loop, keep the FMA units busy (two
 * sums per output measured the same on Zen 4). */
#define GAUSS_SYM2(s0, s1, t, VAL0, VAL1, W, r)                                                 \
    do {                                                                                       \
        FV a_, c_;                                                                             \
        {                                                                                      \
            const int t = (r);                                                                 \
            const float w_ = (W);                                                              \
            a_ = (VAL0) * w_;                                                                  \
            c_ = (VAL1) * w_;                                                                  \
        }                                                                                      \
        for (int b_ = 0; b_ < (r); b_++) {                                                     \
            FV p0_, p1_;                                                                       \
            float w_;                                                                          \
            {                                                                                  \
                const int t = b_;                                                              \
                w_ = (W);                                                                      \
                p0_ = (VAL0);                                                                  \
                p1_ = (VAL1);                                                                  \
            }                                                                                  \
            {                                                                                  \
                const int t = 2 * (r) - b_;                                                    \
                a_ += (p0_ + (VAL0)) * w_;                                                     \
                c_ += (p1_ + (VAL1)) * w_;                                                     \
            }                                                                                  \
        }                                                                                      \
        (s0) = a_;                                                                             \
        (s1) = c_;                                                                             \
    } while (0)

/* CPU variant for windows taller than gauss_band_vec's ring, pass 1:
 * vertical taps, src -> float scratch; each work-item owns VEC values of the
 * flattened row and makes `chunk` rows of them. */
__kernel void gauss_cols_vec(__global const T *src, int src_pitch, int nvals, int height,
                             __global float *tmp, int tmp_pitch, __constant float *wy, int ry,
                             int chunk CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(tmp, 4);
    CLV_DBG_BUF(wy, 6);
    const int e = get_global_id(0) * VEC;
    const int y0 = get_global_id(1) * chunk;
    if (e >= nvals || y0 >= height)
        return;
    for (int y = y0; y < min(y0 + chunk, height); y++) {
        FV s = (FV)(0.0f);
        for (int t = 0; t <= 2 * ry; t++) {
            const int sy = BORDER_INDEX(y - ry + t, height);
            if (sy >= 0)
                s += TO_FV(VLOAD_AT(src, e, ROW(src, src_pitch, sy))) * GLD(wy, wy, t);
        }
        VSTORE_AT(tmp, s, e, ROW(tmp, tmp_pitch, y));
    }
}

/* Most rows in the window of gauss_band_vec (its ring): from the host (-D,
 * gaussian.c's gauss_tile), which sends taller windows to the two passes. */
#ifndef GR_MAX
#error "the Gaussian CPU kernels need -DGR_MAX (gauss_band_vec's most rows, from gaussian.c)"
#endif

/* Values each side that gauss_rows_vec's edge blocks gather into a private
 * window (wider kernels go value by value). */
#define GR_EDGE 48

/* CPU variant, pass 2: horizontal taps of the scratch -> dst. Interior blocks
 * use unaligned vectors; blocks at the edges gather their window through the
 * border rule first. */
__kernel void gauss_rows_vec(__global const float *tmp, int tmp_pitch, int width, int height,
                             __global T *dst, int dst_pitch, __constant float *wx,
                             int rx CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(tmp, 0);
    CLV_DBG_BUF(dst, 4);
    CLV_DBG_BUF(wx, 6);
    const int e = get_global_id(0) * VEC;
    const int y = get_global_id(1);
    const int nvals = width * CN;
    if (e >= nvals || y >= height)
        return;
    __global const float *row = ROW(tmp, tmp_pitch, y);
    __global T *out = ROW(dst, dst_pitch, y);
    const int x_lo = e / CN, x_hi = (e + VEC - 1) / CN;
    if (x_lo - rx >= 0 && x_hi + rx < width) {
        FV s;
        GAUSS_TAPS(s, t, VLOAD_AT(tmp, e + (t - rx) * CN, row), GLD(wx, wx, t), 2 * rx + 1);
        VSTORET_AT(dst, FROM_FV(s), e, out);
    } else if (rx * CN <= GR_EDGE) {
        /* the window's values through the border rule into private memory,
         * then the same vector taps */
        float win[VEC + 2 * GR_EDGE];
        const int n = VEC + 2 * rx * CN;
        for (int l = 0; l < n; l++) {
            const int i = clv_border_value(e - rx * CN + l, width);
            win[l] = i < 0 ? 0.0f : GLD(tmp, row, i);
        }
        FV s;
        GAUSS_TAPS(s, t, CAT(vload, VEC)(0, win + t * CN), GLD(wx, wx, t), 2 * rx + 1);
        VSTORET_AT(dst, FROM_FV(s), e, out);
    } else {
        const int end = min(e + VEC, nvals);
        for (int i = e; i < end; i++) {
            const int x = i / CN, c = i - x * CN;
            float s = 0.0f;
            for (int t = 0; t <= 2 * rx; t++) {
                const int sx = BORDER_INDEX(x - rx + t, width);
                if (sx >= 0)
                    s += GLD(tmp, row, sx * CN + c) * GLD(wx, wx, t);
            }
            GST(dst, out, i, FROM_FN_SCALAR(s));
        }
    }
}
/* The b values either side of a strip [e0, e1) of a row through the border
 * rule, into pad[0, b) and pad[b + e1 - e0, 2 b + e1 - e0). */
static inline void gauss_band_halo(__global const T *src CLV_DBG_PARAM(src), __global const T *row,
                                   __global float *work CLV_DBG_PARAM(work), __global float *pad,
                                   int b, int width, int e0, int e1)
{
    const int nvals = width * CN, n = e1 - e0;
    for (int l = 0; l < b; l++) {
        const int vl = e0 - b + l, vr = e1 + l;
        const int il = vl >= 0 ? vl : clv_border_value(vl, width);
        const int ir = vr < nvals ? vr : clv_border_value(vr, width);
        GST(work, pad, l, il < 0 ? 0.0f : (float)GLD(src, row, il));
        GST(work, pad, b + n + l, ir < 0 ? 0.0f : (float)GLD(src, row, ir));
    }
}

/* The band kernels' ring of slots rows (gauss_band_vec, gauss_band_u16):
 * the offsets of output row j's taps 0..slots-1 into off, head being tap
 * 0's slot, and the slot of the row that enters as tap k - 1 of output row
 * j + i. */
static inline void gauss_ring_offsets(int head, int slots, int rpitch, int *off)
{
    for (int t = 0; t < slots; t++)
        off[t] = (head + t < slots ? head + t : head + t - slots) * rpitch;
}

static inline int gauss_ring_entering(int head, int k, int i, int slots)
{
    const int slot = head + k - 1 + i;
    return slot >= slots ? slot - slots : slot;
}

/* CPU variant, both passes in one, by bands of `chunk` output rows over the
 * whole width (the way a CPU library filters separably): a work-item keeps,
 * in its own part of `work`, a ring of the last ky source rows filtered
 * along x (k rows of rpitch floats) and one row of the source converted to
 * float with its border values on both sides. Each source row the band needs
 * is converted and filtered along x once; each output row is then the y taps
 * over the ring. The ring (ky rows of the row's values) stays in the core's
 * cache, so no full-size float image goes through memory as with the two
 * passes above. rpitch >= ceil(nvals / VEC) VEC + 2 rx CN. Launch one
 * work-item per work-group. */
static inline void gauss_band_row(__global const T *src CLV_DBG_PARAM(src), __global const T *row,
                           __global float *work CLV_DBG_PARAM(work), __global float *pad,
                           __global float *out, __constant float *wx CLV_DBG_PARAM(wx),
                           int rx, int width, int e0, int e1)
{
    const int nvals = width * CN, b = rx * CN, n = e1 - e0;
    if (!row) { /* constant border beyond the image: a zero row */
        for (int e = 0; e < n; e += VEC)
            VSTOREF_AT(work, (FV)(0.0f), e, out);
        return;
    }
    if (e0 >= b && e1 + b <= nvals) {
        /* the halo values are the row's own: all in whole vectors (each
         * starts inside the row, so it stays in the row's pitch; the pad
         * row holds ceil(n / VEC) + ceil(2 b / VEC) vectors) */
        for (int l = 0; l < n + 2 * b; l += VEC)
            VSTOREF_AT(work, TO_FV(VLOADT_AT(src, e0 - b + l, row)), l, pad);
    } else {
        for (int e = 0; e < n; e += VEC)
            VSTOREF_AT(work, TO_FV(VLOADT_AT(src, e0 + e, row)), b + e, pad);
        gauss_band_halo(src CLV_DBG_PASS(src), row, work CLV_DBG_PASS(work), pad, b, width, e0,
                        e1);
    }
    int e = 0;
    for (; e + VEC < n; e += 2 * VEC) {
        FV s0, s1;
        GAUSS_SYM2(s0, s1, t, VLOADF_AT(work, e + t * CN, pad),
                   VLOADF_AT(work, e + VEC + t * CN, pad), GLD(wx, wx, t), rx);
        VSTOREF_AT(work, s0, e, out);
        VSTOREF_AT(work, s1, e + VEC, out);
    }
    if (e < n) {
        FV s;
        GAUSS_TAPS(s, t, VLOADF_AT(work, e + t * CN, pad), GLD(wx, wx, t), 2 * rx + 1);
        VSTOREF_AT(work, s, e, out);
    }
}

__kernel void gauss_band_vec(__global const T *src, int src_pitch, int width, int height,
                             __global T *dst, int dst_pitch, __constant float *wx, int rx,
                             __constant float *wy, int ry, int chunk, __global float *work,
                             int rpitch, int strip CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    CLV_DBG_BUF(wx, 6);
    CLV_DBG_BUF(wy, 8);
    CLV_DBG_BUF(work, 11);
    const int band = get_global_id(0);
    const int y0 = band * chunk;
    if (y0 >= height)
        return;
    const int k = 2 * ry + 1, nvals = width * CN; /* k <= GR_MAX: checked by the host */
    const int slots = k + 1;                           /* ring rows */
    __global float *ring = work + (size_t)band * (size_t)(slots + 1) * (size_t)rpitch;
    __global float *pad = ring + (size_t)slots * (size_t)rpitch;
    const int last = min(chunk, height - y0);
    for (int e0 = 0; e0 < nvals; e0 += strip) {
        const int e1 = min(e0 + strip, nvals), n = e1 - e0;
        for (int t = 0; t < k - 1; t++) {
            const int sy = BORDER_INDEX(y0 - ry + t, height);
            gauss_band_row(src CLV_DBG_PASS(src), sy < 0 ? 0 : ROW(src, src_pitch, sy),
                           work CLV_DBG_PASS(work), pad, ROW(ring, rpitch, t),
                           wx CLV_DBG_PASS(wx), rx, width, e0, e1);
        }
        int head = 0; /* ring slot of output row j's tap 0 */
        int off[GR_MAX + 1];
        for (int j = 0; j < last; j += 2) {
            const int two = j + 1 < last;
            /* the rows entering: tap k - 1 of output row j (and of j + 1) */
            for (int i = 0; i <= two; i++) {
                const int sy = BORDER_INDEX(y0 + j + i + ry, height);
                const int slot = gauss_ring_entering(head, k, i, slots);
                gauss_band_row(src CLV_DBG_PASS(src), sy < 0 ? 0 : ROW(src, src_pitch, sy),
                               work CLV_DBG_PASS(work), pad, ROW(ring, rpitch, slot),
                               wx CLV_DBG_PASS(wx), rx, width, e0, e1);
            }
            gauss_ring_offsets(head, slots, rpitch, off);
            __global T *out = ROW(dst, dst_pitch, y0 + j) + e0;
            if (two) {
                /* rows j and j + 1 together: their taps share k - 1 ring
                 * rows, so each of the k + 1 rows is loaded once for both
                 * (the mirrored rows added first, as in GAUSS_SYM2) */
                __global T *out1 = ROW(dst, dst_pitch, y0 + j + 1) + e0;
                for (int e = 0; e < n; e += VEC) {
                    FV lo = VLOADF_AT(work, e + off[0], ring);
                    FV hi1 = VLOADF_AT(work, e + off[k], ring);
                    FV a0 = (FV)(0.0f), a1 = (FV)(0.0f);
                    for (int t = 0; t < ry; t++) {
                        const float w = GLD(wy, wy, t);
                        const FV lo1 = VLOADF_AT(work, e + off[t + 1], ring);
                        const FV hi = VLOADF_AT(work, e + off[2 * ry - t], ring);
                        a0 += (lo + hi) * w;
                        a1 += (lo1 + hi1) * w;
                        lo = lo1;
                        hi1 = hi;
                    }
                    /* lo, hi1: ring rows ry and ry + 1, the two centres */
                    const float wc = GLD(wy, wy, ry);
                    a0 += lo * wc;
                    a1 += hi1 * wc;
                    VSTORET_AT(dst, FROM_FV(a0), e, out);
                    VSTORET_AT(dst, FROM_FV(a1), e, out1);
                }
            } else {
                int e = 0;
                for (; e + VEC < n; e += 2 * VEC) {
                    FV s0, s1;
                    GAUSS_SYM2(s0, s1, t, VLOADF_AT(work, e + off[t], ring),
                               VLOADF_AT(work, e + VEC + off[t], ring), GLD(wy, wy, t), ry);
                    VSTORET_AT(dst, FROM_FV(s0), e, out);
                    VSTORET_AT(dst, FROM_FV(s1), e + VEC, out);
                }
                if (e < n) {
                    FV s;
                    GAUSS_TAPS(s, t, VLOADF_AT(work, e + off[t], ring), GLD(wy, wy, t), k);
                    VSTORET_AT(dst, FROM_FV(s), e, out);
                }
            }
            head += 2;
            head = head >= slots ? head - slots : head;
        }
    }
}

/* CPU variant for u8 (VEC 16): gauss_band_vec in 16-bit fixed point, as
 * OpenCV's u8 Gaussian is. A ring value is a row filtered along x in 8.8
 * fixed point (at most 255 * 256); a weight is in 0.16 (q: from the host's
 * float weights, gaussian.c's gauss_q16), so a tap is mul_hi(value, q), one
 * 16-lane instruction where a float tap takes two 8-lane ones on AVX2, and a
 * ring row is half the bytes. The two values of a mirrored pair are averaged
 * first (rhadd) and take twice their weight. Each tap truncates below 1/256
 * of a level and the weights lose below 2^-16 each, so an output stays
 * within the rounding of the exact value's +-0.2 (test_gaussian's +-1
 * against the float reference). q[t], t < r: the doubled weight of taps t
 * and 2r - t; q[r]: the centre's, the rest of 65536 (at most 65535). */
#if defined(DEPTH_U8) && VEC == 16
/* mul_hi and rhadd written out: widened to 32 bits and narrowed again,
 * which LLVM turns into pmulhuw and pavgw */
#define U16_MULHI(a, b) convert_ushort16((convert_uint16(a) * convert_uint16(b)) >> 16)
#define U16_AVG(a, b) convert_ushort16((convert_uint16(a) + convert_uint16(b) + 1u) >> 1)
#ifdef CLV_DEBUG
#define U16LD(b, e, p) GVLD(16, b, 0, (p) + (e))
#define U16ST(b, v, e, p) GVST(16, b, (v), 0, (p) + (e))
#else
typedef ushort16 clv_u16v_u __attribute__((aligned(2)));
#define U16LD(b, e, p) (*(__global const clv_u16v_u *)((p) + (e)))
#define U16ST(b, v, e, p) (*(__global clv_u16v_u *)((p) + (e)) = (v))
#endif

static inline void gauss_b16_row(__global const uchar *src CLV_DBG_PARAM(src),
                                 __global const uchar *row, __global ushort *work CLV_DBG_PARAM(work),
                                 __global ushort *pad, __global ushort *out, const ushort *q, int rx,
                                 int width, int e0, int e1)
{
    const int nvals = width * CN, b = rx * CN, n = e1 - e0;
    if (!row) { /* constant border beyond the image: a zero row */
        for (int e = 0; e < n; e += 16)
            U16ST(work, (ushort16)(0), e, out);
        return;
    }
    if (e0 >= b && e1 + b <= nvals) {
        for (int l = 0; l < n + 2 * b; l += 16)
            U16ST(work, convert_ushort16(VLOADT_AT(src, e0 - b + l, row)) << (ushort)8, l, pad);
    } else {
        for (int e = 0; e < n; e += 16)
            U16ST(work, convert_ushort16(VLOADT_AT(src, e0 + e, row)) << (ushort)8, b + e, pad);
        for (int l = 0; l < b; l++) {
            const int vl = e0 - b + l, vr = e1 + l;
            const int il = vl >= 0 ? vl : clv_border_value(vl, width);
            const int ir = vr < nvals ? vr : clv_border_value(vr, width);
            GST(work, pad, l, il < 0 ? (ushort)0 : (ushort)(GLD(src, row, il) << 8));
            GST(work, pad, b + n + l, ir < 0 ? (ushort)0 : (ushort)(GLD(src, row, ir) << 8));
        }
    }
    for (int e = 0; e < n; e += 16) {
        ushort16 s = U16_MULHI(U16LD(work, e + b, pad), (ushort16)(q[rx]));
        for (int t = 0; t < rx; t++)
            s += U16_MULHI(U16_AVG(U16LD(work, e + t * CN, pad), U16LD(work, e + 2 * b - t * CN, pad)),
                        (ushort16)(q[t]));
        U16ST(work, s, e, out);
    }
}

__kernel void gauss_band_u16(__global const uchar *src, int src_pitch, int width, int height,
                             __global uchar *dst, int dst_pitch, ushort16 qx16, int rx,
                             ushort16 qy16, int ry, int chunk, __global ushort *work, int rpitch,
                             int strip CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    CLV_DBG_BUF(work, 11);
    const int band = get_global_id(0);
    const int y0 = band * chunk;
    if (y0 >= height)
        return;
    /* each mul_hi truncates, half a unit of 1/256 on average: the rx + 1
     * of the x taps and the ry + 1 of the y taps are added back before
     * the rounding (the outputs' mean error on noise: -0.027 -> 0) */
    const ushort16 rnd = (ushort16)(128 + (rx + ry + 2) / 2);
    ushort qx[16], qy[16];
    vstore16(qx16, 0, qx);
    vstore16(qy16, 0, qy);
    const int k = 2 * ry + 1, nvals = width * CN; /* k <= 31: checked by the host */
    const int slots = k + 1;                       /* ring rows */
    __global ushort *ring = work + (size_t)band * (size_t)(slots + 1) * (size_t)rpitch;
    __global ushort *pad = ring + (size_t)slots * (size_t)rpitch;
    const int last = min(chunk, height - y0);
    for (int e0 = 0; e0 < nvals; e0 += strip) {
        const int e1 = min(e0 + strip, nvals), n = e1 - e0;
        for (int t = 0; t < k - 1; t++) {
            const int sy = BORDER_INDEX(y0 - ry + t, height);
            gauss_b16_row(src CLV_DBG_PASS(src), sy < 0 ? 0 : ROW(src, src_pitch, sy),
                          work CLV_DBG_PASS(work), pad, ROW(ring, rpitch, t), qx, rx, width, e0, e1);
        }
        int head = 0; /* ring slot of output row j's tap 0 */
        int off[32];
        for (int j = 0; j < last; j += 2) {
            const int two = j + 1 < last;
            for (int i = 0; i <= two; i++) {
                const int sy = BORDER_INDEX(y0 + j + i + ry, height);
                const int slot = gauss_ring_entering(head, k, i, slots);
                gauss_b16_row(src CLV_DBG_PASS(src), sy < 0 ? 0 : ROW(src, src_pitch, sy),
                              work CLV_DBG_PASS(work), pad, ROW(ring, rpitch, slot), qx, rx, width,
                              e0, e1);
            }
            gauss_ring_offsets(head, slots, rpitch, off);
            __global uchar *out = ROW(dst, dst_pitch, y0 + j) + e0;
            __global uchar *out1 = ROW(dst, dst_pitch, y0 + j + two) + e0;
            /* rows j and j + 1 (or j twice) together: their taps share
             * k - 1 ring rows */
            for (int e = 0; e < n; e += 16) {
                ushort16 a0 = U16_MULHI(U16LD(work, e + off[ry], ring), (ushort16)(qy[ry]));
                ushort16 a1 = U16_MULHI(U16LD(work, e + off[ry + 1], ring), (ushort16)(qy[ry]));
                ushort16 lo = U16LD(work, e + off[0], ring);
                ushort16 hi1 = U16LD(work, e + off[k], ring);
                for (int t = 0; t < ry; t++) {
                    const ushort16 w = (ushort16)(qy[t]);
                    const ushort16 lo1 = U16LD(work, e + off[t + 1], ring);
                    const ushort16 hi = U16LD(work, e + off[2 * ry - t], ring);
                    a0 += U16_MULHI(U16_AVG(lo, hi), w);
                    a1 += U16_MULHI(U16_AVG(lo1, hi1), w);
                    lo = lo1;
                    hi1 = hi;
                }
                /* (a + rnd) >> 8: a <= 255 * 256, so no overflow */
                const uchar16 r1 = convert_uchar16((a1 + rnd) >> (ushort)8);
                VSTORET_AT(dst, convert_uchar16((a0 + rnd) >> (ushort)8), e, out);
                if (two)
                    VSTORET_AT(dst, r1, e, out1);
            }
            head += 2;
            head = head >= slots ? head - slots : head;
        }
    }
}
#endif
#endif

/* GPUs, one pass: a work-group makes an output block of lw x (lh * GF_RPI)
 * pixels. It stages the source block with its halo in local memory as it is
 * (in_tile: (lw + 2rx) x (lh * GF_RPI + 2ry) pixels of T), filters every
 * staged row along x into h_tile (lw x (lh * GF_RPI + 2ry) floats; the sums
 * of gauss_rows), a work-item making GF_CPI neighbours of a row, and then
 * each work-item filters GF_RPI consecutive outputs of its column along y
 * from h_tile (the sums of gauss_cols). A work-item reads each staged value
 * once for all its outputs, which take the taps in the same order as the two
 * passes. No float image goes through global memory. Needs GF_CPI, GF_RPI
 * (from the host's tile table); GF_RX, GF_RY: the radii compiled in (then
 * rx and ry are ignored), for small windows. in_tile has GF_CPI pixels more
 * than the tile. */
#if defined(GF_CPI) && defined(GF_RPI)
__kernel void gauss_fused(__global const T *src, int src_pitch, int width, int height,
                          __global T *dst, int dst_pitch, __constant float *wx, int rx,
                          __constant float *wy, int ry, __local T *in_tile,
                          __local float *h_tile CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    CLV_DBG_BUF(wx, 6);
    CLV_DBG_BUF(wy, 8);
#ifdef GF_RX
    /* radii compiled in: every loop below has a fixed trip count */
    rx = GF_RX;
    ry = GF_RY;
#endif
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int lw = get_local_size(0), lh = get_local_size(1);
    const int bh = lh * GF_RPI;
    const int x0 = get_group_id(0) * lw, y0 = get_group_id(1) * bh;
    const int nx = lw + 2 * rx, ny = bh + 2 * ry;
    for (int ty = ly; ty < ny; ty += lh) {
        const int sy = BORDER_INDEX(y0 - ry + ty, height);
        __global const T *row = ROW(src, src_pitch, sy < 0 ? 0 : sy);
        for (int tx = lx; tx < nx; tx += lw) {
            const int sx = BORDER_INDEX(x0 - rx + tx, width);
            VSTORE(sx < 0 || sy < 0 ? (TN)(0) : GVLOAD(src, sx, row), ty * nx + tx, in_tile);
        }
    }
    /* GF_CPI pixels of padding after the tile: the row pass of a last group
     * narrower than GF_CPI reads (and drops) them */
    if (ly == 0 && lx < GF_CPI)
        VSTORE((TN)(0), nx * ny + lx, in_tile);
    barrier(CLK_LOCAL_MEM_FENCE);
    const int groups = (lw + GF_CPI - 1) / GF_CPI; /* of GF_CPI columns per row */
    const int taps_x = 2 * rx + 1;
    for (int i = ly * lw + lx; i < ny * groups; i += lw * lh) {
        const int ty = i / groups, c0 = (i - ty * groups) * GF_CPI;
        FN acc[GF_CPI];
        for (int k = 0; k < GF_CPI; k++)
            acc[k] = FN_ZERO;
        for (int j = 0; j < GF_CPI + 2 * rx; j++) {
            const FN v = TO_FN(VLOAD(ty * nx + c0 + j, in_tile));
            for (int k = 0; k < GF_CPI; k++) {
                const int t = j - k;
                if (t >= 0 && t < taps_x)
                    acc[k] += v * GLD(wx, wx, t);
            }
        }
        for (int k = 0; k < GF_CPI && c0 + k < lw; k++)
            VSTORE(acc[k], ty * lw + c0 + k, h_tile);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = x0 + lx;
    const int b0 = ly * GF_RPI;
    if (x >= width || y0 + b0 >= height)
        return;
    const int taps_y = 2 * ry + 1;
    FN acc[GF_RPI];
    for (int k = 0; k < GF_RPI; k++)
        acc[k] = FN_ZERO;
    for (int j = 0; j < GF_RPI + 2 * ry; j++) {
        const FN v = VLOAD((b0 + j) * lw + lx, h_tile);
        for (int k = 0; k < GF_RPI; k++) {
            const int t = j - k;
            if (t >= 0 && t < taps_y)
                acc[k] += v * GLD(wy, wy, t);
        }
    }
    for (int k = 0; k < GF_RPI && y0 + b0 + k < height; k++)
        STORE_PIX(dst, ROW(dst, dst_pitch, y0 + b0 + k), x, acc[k]);
}
#endif

/* GPUs, u8, radii compiled in (-DGG_RX, GG_RY, GG_PY from gaussian.c): both
 * directions in registers, no local memory and no barrier, as box_reg in
 * box.cl. A work-item makes 4 consecutive values of a flattened row (one
 * aligned 4-byte store) in GG_PY consecutive rows, walking down them with
 * the last 2 ry + 1 source rows' sums along x in registers: each step
 * filters one new source row along x (GG_NW aligned 4-byte loads: the 4
 * values and the window's reach on each side, rounded out to whole words)
 * and sums the window's rows down. Along a row, value e's taps are the
 * values e + t * CN, t in [-rx, rx]. The taps go in gauss_fused's order (x,
 * then y, each from its first tap), so the sums are the two passes'. Near
 * the row ends and past the last row the loads go value by value through
 * the border rule. The aligned loads and stores rely on rows starting on
 * 64-byte boundaries (image.c's PITCH_ALIGN). */
#ifdef DEPTH_U8
/* One value's taps along a row for the u8 register kernel (gauss_reg_row;
 * gauss_wh takes its values from packed words): the sum over t < taps of
 * v[off + t CN] wx[t] in gauss_fused's order; v holds a span of the row's
 * values as ints. */
static inline float gauss_span_taps(const int *v, int off, __constant float *wx CLV_DBG_PARAM(wx),
                                    int taps)
{
    float s = 0.0f;
    CLV_UNROLL
    for (int t = 0; t < taps; t++)
        s += (float)v[off + t * CN] * GLD(wx, wx, t);
    return s;
}
#endif

#if defined(DEPTH_U8) && defined(GG_RX)
#define GG_WS ((GG_RX * CN + 3) / 4) /* words on each side of the 4 values */
#define GG_NW (2 * GG_WS + 1)
#define GG_OFF (GG_WS * 4 - GG_RX * CN) /* v[] index of value 0's first tap */
#define GG_KY (2 * GG_RY + 1)

/* Source row sy (-1: the constant border's zeros) filtered along x at the
 * work-item's 4 values e0 .. e0 + 3. */
static inline float4 gauss_reg_row(__global const uchar *restrict src CLV_DBG_PARAM(src),
                                   int src_pitch, int sy, int e0, int inside, int width,
                                   __constant float *wx CLV_DBG_PARAM(wx))
{
    int v[GG_NW * 4];
    clv_u8_span(src CLV_DBG_PASS(src), src_pitch, sy, e0 - GG_WS * 4, GG_NW, inside, width, v);
    float hs[4];
    CLV_UNROLL
    for (int k = 0; k < 4; k++)
        hs[k] = gauss_span_taps(v, GG_OFF + k, wx CLV_DBG_PASS(wx), 2 * GG_RX + 1);
    return (float4)(hs[0], hs[1], hs[2], hs[3]);
}

__kernel void gauss_reg(__global const uchar *restrict src, int src_pitch, int width, int height,
                        __global uchar *restrict dst, int dst_pitch, __constant float *wx,
                        __constant float *wy CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    CLV_DBG_BUF(wx, 6);
    CLV_DBG_BUF(wy, 7);
    const int nvals = width * CN;
    const int xw = get_global_id(0), e0 = xw * 4, y0 = get_global_id(1) * GG_PY;
    if (e0 >= nvals || y0 >= height)
        return;
    /* every word this work-item loads lies inside the row's values */
    const int inside = xw >= GG_WS && e0 + 4 * (1 + GG_WS) <= nvals;
    /* h[t]: source row y - ry + t along x, for the output row y in hand */
    float4 h[GG_KY];
    CLV_UNROLL
    for (int t = 1; t < GG_KY; t++)
        h[t] = gauss_reg_row(src CLV_DBG_PASS(src), src_pitch,
                             BORDER_INDEX(y0 - GG_RY + t - 1, height), e0, inside, width,
                             wx CLV_DBG_PASS(wx));
    const int rows = min(GG_PY, height - y0);
    CLV_NO_UNROLL
    for (int p = 0; p < rows; p++) {
        CLV_UNROLL
        for (int t = 0; t + 1 < GG_KY; t++)
            h[t] = h[t + 1];
        h[GG_KY - 1] = gauss_reg_row(src CLV_DBG_PASS(src), src_pitch,
                                     BORDER_INDEX(y0 + p + GG_RY, height), e0, inside, width,
                                     wx CLV_DBG_PASS(wx));
        float4 a = 0.0f;
        CLV_UNROLL
        for (int t = 0; t < GG_KY; t++)
            a += h[t] * GLD(wy, wy, t);
        clv_u8_store4(dst CLV_DBG_PASS(dst), ROW(dst, dst_pitch, y0 + p) + e0,
                      convert_uchar4(clamp(a + 0.5f, 0.0f, 255.0f)), nvals - e0);
    }
}
#endif

/* GPUs, u8: two wide passes through a u16 image of the rows filtered along
 * x, in fixed point with 8 fraction bits (value * 256, rounded: at most
 * 255 * 256 for weights that sum to 1), as box_wh and box_wv in box.cl.
 * gauss_wh: a work-item filters 16 consecutive values of a flattened row
 * (GW_RX and CN compiled in; whole aligned 16-byte vectors, GW_WS more on
 * each side for the window's reach, near the row ends value by value
 * through the border rule) into one aligned 16-value store; values past
 * the row's last land in the image's padding (rows padded to 16 values).
 * gauss_wv: a work-item makes 8 values (one 16-byte load per source row, one
 * aligned 8-byte store per output row) of GW_PY consecutive rows, each
 * source row of the GW_PY + 2 GW_RY it reads added into every output it
 * reaches. Taps in gauss_fused's order (x, then y, each from its first);
 * the u16 rounding moves a value by at most 1/512 before its own rounding. */
#if defined(DEPTH_U8) && defined(GW_RX)
#define GW_WS ((GW_RX * CN + 15) / 16) /* vectors on each side of the 16 values */
#define GW_NV (2 * GW_WS + 1)
#define GW_OFF (GW_WS * 16 - GW_RX * CN) /* v[] index of value 0's first tap */
__kernel void gauss_wh(__global const uchar *restrict src, int src_pitch, int width, int height,
                       __global ushort *restrict tmp, int tmp_pitch,
                       __constant float *wx CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(tmp, 4);
    CLV_DBG_BUF(wx, 6);
    const int nvals = width * CN;
    const int xw = get_global_id(0), e0 = xw * 16, y = get_global_id(1);
    if (e0 >= nvals || y >= height)
        return;
    __global const uchar *row = ROW(src, src_pitch, y);
    /* the loaded values packed 4 to a word, each taken out and converted
     * where a tap uses it (H100, 13x13, 3840x2160, device us, three
     * interleaved rounds, run_gpu.sh gwh: three channels 83.3-84.7 against
     * 89.6-91.2 with an int per value; one channel and 1920x1080 the same) */
    uint wd[GW_NV * 4];
    clv_u8_words16(src CLV_DBG_PASS(src), row, e0 - 16 * GW_WS, GW_NV,
                   xw >= GW_WS && e0 + 16 * (1 + GW_WS) <= nvals, width, wd);
    float o[16];
    CLV_UNROLL
    for (int k = 0; k < 16; k++) {
        float s = 0.0f;
        CLV_UNROLL
        for (int t = 0; t < 2 * GW_RX + 1; t++)
            s += (float)CLV_U8_WORD(wd, GW_OFF + k + t * CN) * GLD(wx, wx, t);
        o[k] = s;
    }
    /* no clamp: the weights sum to 1, so o * 256 + 0.5 lies in
     * [0.5, 65536) and truncates as a clamped one would */
    GVSTA(ushort16, tmp, convert_ushort16(CLV_JOIN16(float16, o) * 256.0f + 0.5f),
          ROW(tmp, tmp_pitch, y) + e0);
}
#endif

#if defined(DEPTH_U8) && defined(GW_RY)
#define GW_KY (2 * GW_RY + 1)
/* The work-items whose rows all lie inside the image and whose 8 values
 * are all inside the row (nearly all): one pointer stepping down by the
 * pitch, no border rule per row, whole stores, and no clamp: the weights
 * sum to 1 and each tmp value is at most 255 * 256, so acc / 256 + 0.5
 * lies in [0.5, 256) and truncates as the clamped one below does. */
/* Source row j of a work-item's GW_PY + 2 ry (r: its 8 values) added into
 * each output row it reaches; acc stays in registers once inlined. */
static inline void gauss_wv_add(float8 *acc, float8 r, int j,
                                __constant float *wy CLV_DBG_PARAM(wy))
{
    CLV_UNROLL
    for (int k = 0; k < GW_PY; k++)
        if (j - k >= 0 && j - k < GW_KY)
            acc[k] += r * GLD(wy, wy, j - k);
}

__kernel void gauss_wv(__global const ushort *restrict tmp, int tmp_pitch, int nvals, int height,
                       __global uchar *restrict dst, int dst_pitch,
                       __constant float *wy CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(tmp, 0);
    CLV_DBG_BUF(dst, 4);
    CLV_DBG_BUF(wy, 6);
    const int e0 = get_global_id(0) * 8, y0 = get_global_id(1) * GW_PY;
    if (e0 >= nvals || y0 >= height)
        return;
    float8 acc[GW_PY];
    CLV_UNROLL
    for (int k = 0; k < GW_PY; k++)
        acc[k] = 0.0f;
    if (y0 >= GW_RY && y0 + GW_PY + GW_RY <= height && e0 + 8 <= nvals) {
        __global const ushort *p = ROW(tmp, tmp_pitch, y0 - GW_RY) + e0;
        __global uchar *q = ROW(dst, dst_pitch, y0) + e0;
        CLV_UNROLL
        for (int j = 0; j < GW_PY + GW_KY - 1; j++) {
            gauss_wv_add(acc, convert_float8(GVLDA(ushort8, tmp, p)), j, wy CLV_DBG_PASS(wy));
            p += tmp_pitch;
        }
        CLV_UNROLL
        for (int k = 0; k < GW_PY; k++) {
            GVSTA(uchar8, dst, convert_uchar8(acc[k] * (1.0f / 256.0f) + 0.5f), q);
            q += dst_pitch;
        }
        return;
    }
    CLV_UNROLL
    for (int j = 0; j < GW_PY + GW_KY - 1; j++) {
        const int sy = BORDER_ROW(y0 - GW_RY + j, height);
        const float8 r =
            sy < 0 ? (float8)(0.0f)
                   : convert_float8(GVLDA(ushort8, tmp, ROW(tmp, tmp_pitch, sy) + e0));
        gauss_wv_add(acc, r, j, wy CLV_DBG_PASS(wy));
    }
    const int n = min(GW_PY, height - y0);
    CLV_UNROLL
    for (int p = 0; p < GW_PY; p++) {
        if (p < n)
            clv_u8_store8(dst CLV_DBG_PASS(dst), ROW(dst, dst_pitch, y0 + p) + e0,
                          convert_uchar8(clamp(acc[p] * (1.0f / 256.0f) + 0.5f, 0.0f, 255.0f)),
                          nvals - e0);
    }
}
#endif

/* GPUs, f32: the same two passes through a float image of the rows
 * filtered along x (gauss_fused's local-memory block grows with the
 * channels: H100, 13x13, 3840x2160, device us, 106 one channel, 1392 four).
 * gauss_whf: a work-item filters 16 consecutive values of a flattened row
 * (GWF_RX and CN compiled in; whole aligned 16-byte vectors, its own 4 and
 * GWF_WS more on each side for the window's reach, near the row ends value
 * by value through the border rule; box_whf's loads) into four aligned
 * 16-byte stores; values past the row's last land in the image's padding
 * (rows padded to 16 values). gauss_wvf: a work-item makes 4 values (one
 * 16-byte load per source row, one aligned 16-byte store per output row)
 * of GWF_PY consecutive rows, each source row of the GWF_PY + 2 GWF_RY it
 * reads added into every output it reaches. Taps in gauss_fused's order
 * (x, then y, each from its first). Weights that sum to 1 keep sums of
 * values near FLT_MAX finite. */
#if (defined(DEPTH_F32) || defined(DEPTH_U16)) && defined(GWF_RX)
#define GWF_WS ((GWF_RX * CN + 3) / 4) /* vectors on each side of the 4 own */
#define GWF_NW (2 * GWF_WS + 4)
#define GWF_OFF (GWF_WS * 4 - GWF_RX * CN) /* v[] index of value 0's first tap */
__kernel void gauss_whf(__global const T *restrict src, int src_pitch, int width, int height,
                        __global float *restrict tmp, int tmp_pitch,
                        __constant float *wx CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(tmp, 4);
    CLV_DBG_BUF(wx, 6);
    const int nvals = width * CN;
    const int xw = get_global_id(0), e0 = xw * 16, y = get_global_id(1);
    if (e0 >= nvals || y >= height)
        return;
    float v[GWF_NW * 4];
    clv_f32_span4(src CLV_DBG_PASS(src), src_pitch, y, e0 - 4 * GWF_WS, GWF_NW,
                  4 * xw >= GWF_WS && e0 + 4 * (4 + GWF_WS) <= nvals, width, 1.0f, v);
    __global float *out = ROW(tmp, tmp_pitch, y) + e0;
    CLV_UNROLL
    for (int q = 0; q < 4; q++) {
        float o[4];
        CLV_UNROLL
        for (int k = 0; k < 4; k++) {
            float s = 0.0f;
            CLV_UNROLL
            for (int t = 0; t < 2 * GWF_RX + 1; t++)
                s += v[GWF_OFF + 4 * q + k + t * CN] * GLD(wx, wx, t);
            o[k] = s;
        }
        GVSTA(float4, tmp, (float4)(o[0], o[1], o[2], o[3]), out + 4 * q);
    }
}
#endif

#if (defined(DEPTH_F32) || defined(DEPTH_U16)) && defined(GWF_RY)
#define GWF_KY (2 * GWF_RY + 1)
/* Source row j of a work-item's GWF_PY + 2 ry (r: its 4 values) added
 * into each output row it reaches; acc stays in registers once inlined. */
static inline void gauss_wvf_add(float4 *acc, float4 r, int j,
                                 __constant float *wy CLV_DBG_PARAM(wy))
{
    CLV_UNROLL
    for (int k = 0; k < GWF_PY; k++)
        if (j - k >= 0 && j - k < GWF_KY)
            acc[k] += r * GLD(wy, wy, j - k);
}

__kernel void gauss_wvf(__global const float *restrict tmp, int tmp_pitch, int nvals, int height,
                        __global T *restrict dst, int dst_pitch,
                        __constant float *wy CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(tmp, 0);
    CLV_DBG_BUF(dst, 4);
    CLV_DBG_BUF(wy, 6);
    const int e0 = get_global_id(0) * 4, y0 = get_global_id(1) * GWF_PY;
    if (e0 >= nvals || y0 >= height)
        return;
    float4 acc[GWF_PY];
    CLV_UNROLL
    for (int k = 0; k < GWF_PY; k++)
        acc[k] = 0.0f;
    /* every row it reads lies inside the image and its 4 values inside the
     * row (nearly all work-items): one pointer stepping down by the pitch,
     * no border rule per row, whole stores */
    if (y0 >= GWF_RY && y0 + GWF_PY + GWF_RY <= height && e0 + 4 <= nvals) {
        __global const float *p = ROW(tmp, tmp_pitch, y0 - GWF_RY) + e0;
        __global T *q = ROW(dst, dst_pitch, y0) + e0;
        CLV_UNROLL
        for (int j = 0; j < GWF_PY + GWF_KY - 1; j++) {
            gauss_wvf_add(acc, GVLDA(float4, tmp, p), j, wy CLV_DBG_PASS(wy));
            p += tmp_pitch;
        }
        CLV_UNROLL
        for (int k = 0; k < GWF_PY; k++) {
            GVSTA(CAT(T, 4), dst, CLV_F4_OUT(acc[k]), q);
            q += dst_pitch;
        }
        return;
    }
    CLV_UNROLL
    for (int j = 0; j < GWF_PY + GWF_KY - 1; j++) {
        const int sy = BORDER_ROW(y0 - GWF_RY + j, height);
        const float4 r = sy < 0 ? (float4)(0.0f) : GVLDA(float4, tmp, ROW(tmp, tmp_pitch, sy) + e0);
        gauss_wvf_add(acc, r, j, wy CLV_DBG_PASS(wy));
    }
    const int n = min(GWF_PY, height - y0);
    CLV_UNROLL
    for (int p = 0; p < GWF_PY; p++) {
        if (p < n)
            clv_f32_store4(dst CLV_DBG_PASS(dst), ROW(dst, dst_pitch, y0 + p) + e0, acc[p],
                           nvals - e0);
    }
}
#endif
