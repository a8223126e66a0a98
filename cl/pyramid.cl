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
#error "pyr_down_strip is written for VEC == 16"
#endif
/* PYR_ROW16(LD, p): the sums along x of 16 outputs from a row's values at
 * p = row + 2 x0 (36 values from p - 2, read 16 at a time by LD). */
#if defined(DEPTH_U8) && defined(__ENDIAN_LITTLE__)
/* u8 in 16-bit integers, exact: a row's sums are at most 16 * 255 and the
 * five rows' at most 256 * 255 (+ 128 still below 2^16). 32 bytes read as 16
 * ushorts hold the even positions in their low bytes and the odd ones in
 * their high bytes: no shuffle at all. LD reads 16 ushorts from a byte
 * pointer; rows start on PITCH_ALIGN and p - 2 is even, so it is aligned. */
#define PYR_ACC ushort16
#define PYR_ACC_S ushort
#define PYR_LO(w) ((w) & (ushort)0xff)
#define PYR_HI(w) ((w) >> (ushort)8)
#define PYR_ROW16(LD, p)                                                                        \
    (PYR_LO(LD(p)) * (ushort)6 + (PYR_HI(LD((p) - 2)) + PYR_HI(LD(p))) * (ushort)4 +           \
     PYR_LO(LD((p) - 2)) + PYR_LO(LD((p) + 2)))
#define PYR_TAP5A(a, b, c, d, e) ((c) * (ushort)6 + ((b) + (d)) * (ushort)4 + (a) + (e))
#define PYR_OUT16(s) convert_uchar16(((s) + (ushort)128) >> (ushort)8)
#define PYR_PLD(p) vload16(0, (const ushort *)(p))
#else
/* Float sums (exact for u16: below 2^24); LD reads 16 values, EVEN/ODD
 * split 32 of them. */
#define PYR_ACC float16
#define PYR_ACC_S float
#define PYR_EVEN(LD, p) TO_FV((CAT(T, 16))(LD(p).even, LD((p) + 16).even))
#define PYR_ODD(LD, p) TO_FV((CAT(T, 16))(LD(p).odd, LD((p) + 16).odd))
#define PYR_ROW16(LD, p)                                                                        \
    PYR_TAP5(PYR_EVEN(LD, (p) - 2), PYR_ODD(LD, (p) - 2), PYR_EVEN(LD, (p)), PYR_ODD(LD, (p)),  \
             PYR_EVEN(LD, (p) + 2))
#define PYR_TAP5A PYR_TAP5
#if defined(DEPTH_F32)
#define PYR_OUT16(s) ((s) * (1.0f / 256.0f))
#else
/* integer sums are exact, so (s + 128) >> 8 in int is the rounded result */
#define PYR_OUT16(s) CAT(convert_, CAT(T, 16))((convert_int16(s) + 128) >> 8)
#endif
#define PYR_GLD(p) GVLD(16, src, 0, (p))
#define PYR_PLD(p) vload16(0, (p))
#endif

/* Row sums of the strip at p = row + 2 x0 inside the row (36 values from
 * p - 2 in it). */
static inline PYR_ACC pyr_row_inside(__global const T *src CLV_DBG_PARAM(src),
                                     __global const T *p)
{
#if defined(DEPTH_U8) && defined(__ENDIAN_LITTLE__)
    /* p is 32-byte aligned (rows start on PITCH_ALIGN, x0 is a multiple of
     * 16): one aligned load and the ushorts either side give the windows at
     * p - 2 and p + 2 */
    __global const ushort *q = (__global const ushort *)p;
    const ushort16 c = GVLDA(ushort16, src, q);
    const ushort l = GLD(src, q, -1), r = GLD(src, q, 16);
    const ushort16 m = (ushort16)(l, c.s0123, c.s4567, c.s89ab, c.scde);
    const ushort16 n = (ushort16)(c.s1234, c.s5678, c.s9abc, c.sdef, r);
    return PYR_LO(c) * (ushort)6 + (PYR_HI(m) + PYR_HI(c)) * (ushort)4 + PYR_LO(m) + PYR_LO(n);
#else
    return PYR_ROW16(PYR_GLD, p);
#endif
}

/* Row sums of the strip at s0 = 2 x0 from source row `row`: straight from
 * the row inside it, else from its 36 values gathered through the border
 * map (the strips at the left and right edges, and narrow images). */
static inline PYR_ACC pyr_strip_row(__global const T *src CLV_DBG_PARAM(src),
                                    __global const T *row, int s0, int sw, int inside)
{
    if (inside)
        return pyr_row_inside(src CLV_DBG_PASS(src), row + s0);
    /* 48 values so that every 16-wide read from buf + 0..2 (+ 16) stays in it */
    union {
        T v[48];
        PYR_ACC align;
    } buf;
    for (int i = 0; i < 36; i++)
        buf.v[i] = GLD(src, row, BORDER_INDEX(s0 - 2 + i, sw));
    for (int i = 36; i < 48; i++)
        buf.v[i] = 0;
    return PYR_ROW16(PYR_PLD, buf.v + 2);
}

/* CPU, one channel: up to three pyrDown steps in one launch. Bands of whole
 * rows of the last level; a band makes its rows of every level from the
 * rows of the level above that it needs, level by level, so nothing waits on
 * another band: the rows it owns (a level's rows split as its last level's
 * are: level k-1's own rows are 2 a .. 2 b, the last band's to the level's
 * end) go to the level's image, the few rows above and below that its
 * neighbours own are made once more into the band's halo rows in `halo`
 * (HALO_TOP(n) above, HALO_BOT(n) below for a level n steps above the
 * last). One launch instead of one per level: on a 2-core PoCL each launch
 * costs about 25 us, more than a 1920x1080 pyramid's levels 2 and 3 take.
 *
 * Output row y takes source rows 2y-2 .. 2y+2, so the next output row shares
 * three of them: each source row's sums along x are formed once, into a ring
 * of five rows in `ring` (rpitch values per row, a multiple of 16), which
 * stays in cache; the rows are read and written front to back. A step starts
 * by forming 3 rows (1.5 output rows' work). With copy_on, the first step
 * also copies the band's own source rows (2 ya .. 2 yb, the last band to sh)
 * into `copy`: a pyramid's level 0 made while the rows are in cache, instead
 * of a copy command before the first level. */
#define HALO_TOP(n) ((1 << ((n) + 1)) - 2)
#define HALO_BOT(n) ((1 << (n)) - 1)

/* Row r (any integer: the border rule maps it) of a level of h rows whose
 * rows [lo, hi) are in img and the rest this band needs in halo (top rows
 * above lo first, then those from hi). */
#define PYR_LEVEL_ROW(img, pitch, h, lo, hi, halo, hpitch, top, r, out_in_img, out_row)         \
    {                                                                                           \
        const int m_ = BORDER_INDEX(r, h);                                                      \
        out_in_img = m_ >= (lo) && m_ < (hi);                                                   \
        const int slot_ = m_ < (lo) ? m_ - ((lo) - (top)) : (top) + m_ - (hi);                  \
        out_row = out_in_img ? ROW(img, pitch, m_) : ROW(halo, hpitch, slot_);                  \
    }

/* One step: rows [ya, yb) of the next level (d: rows [d_lo, d_hi) in its
 * image, the others in dhalo) from the level s (rows [s_lo, s_hi) in its
 * image, the others in shalo). */
static inline void pyr_band_step(__global const T *s CLV_DBG_PARAM(s), int sp, int sw, int sh,
                                 int s_lo, int s_hi, __global const T *shalo CLV_DBG_PARAM(shalo),
                                 int shp, int s_top, __global T *d CLV_DBG_PARAM(d), int dp, int dw,
                                 int dh, int d_lo, int d_hi, __global T *dhalo CLV_DBG_PARAM(dhalo),
                                 int dhp, int d_top, int ya, int yb,
                                 __global PYR_ACC_S *ring CLV_DBG_PARAM(ring), int rpitch,
                                 __global T *copy CLV_DBG_PARAM(copy), int copy_pitch, int c0,
                                 int c1)
{
    /* strips [1, last_in) read inside their row: 2 x0 - 2 >= 0, 2 x0 + 33 < sw
     * (then all 16 outputs are below dw too, x0 + 15 < (sw - 1) / 2) */
    const int nstrips = (dw + 15) / 16;
    const int last_in = sw >= 34 ? min(nstrips, (sw - 34) / 32 + 1) : 0;
    /* source row t of the step (row 2 ya - 2 + t) to ring slot t % 5 */
    for (int t = 0; t < 2 * (yb - ya) + 3; t++) {
        const int sy = 2 * ya - 2 + t;
        int in_img;
        __global const T *row;
        PYR_LEVEL_ROW(s, sp, sh, s_lo, s_hi, shalo, shp, s_top, sy, in_img, row);
        CLV_DBG_PICK(sb, in_img, s, shalo);
        __global PYR_ACC_S *h = ring + (t % 5) * rpitch;
        /* the inside strips in a loop of their own, the edge strips before
         * and after: with the choice inside one loop PoCL 5 ran the edge
         * gather for every strip (pyramid u8 at 1920x1080 on one thread:
         * 0.73 ms against PoCL 3's 0.37) */
        for (int i = 1; i < last_in; i++)
            GVSTA(PYR_ACC, ring, pyr_row_inside(row CLV_DBG_PASS(sb), row + 32 * i),
                  h + 16 * i); /* aligned: rpitch is a multiple of 16 */
        for (int i = 0; i < nstrips; i = i == 0 && last_in > 1 ? last_in : i + 1)
            GVSTA(PYR_ACC, ring, pyr_strip_row(row CLV_DBG_PASS(sb), row, 32 * i, sw, 0),
                  h + 16 * i);
        if (sy >= c0 && sy < c1) {
            /* inside the level's image: c0 >= s_lo, c1 <= s_hi */
            __global T *crow = ROW(copy, copy_pitch, sy);
            int i = 0;
            for (; i + 16 <= sw; i += 16)
                /* level rows start on 64 */
                GVSTA(CAT(T, 16), copy, GVLD(16, s, 0, row + i), crow + i);
            for (; i < sw; i++)
                GST(copy, crow, i, GLD(s, row, i));
        }
        if (t >= 4 && (t & 1) == 0) {
            /* source rows t - 4 .. t: output row ya + (t - 4) / 2 */
            const int y = ya + (t - 4) / 2;
            __global const PYR_ACC_S *r0 = ring + ((t - 4) % 5) * rpitch;
            __global const PYR_ACC_S *r1 = ring + ((t - 3) % 5) * rpitch;
            __global const PYR_ACC_S *r2 = ring + ((t - 2) % 5) * rpitch;
            __global const PYR_ACC_S *r3 = ring + ((t - 1) % 5) * rpitch;
            __global const PYR_ACC_S *r4 = ring + (t % 5) * rpitch;
            int out_img;
            __global T *out;
            PYR_LEVEL_ROW(d, dp, dh, d_lo, d_hi, dhalo, dhp, d_top, y, out_img, out);
            CLV_DBG_PICK(ob, out_img, d, dhalo);
            for (int i = 0; i < nstrips; i++) {
                const int e = 16 * i;
#define PYR_RING(r) GVLDA(PYR_ACC, ring, (r) + e)
                const CAT(T, 16) o = PYR_OUT16(
                    PYR_TAP5A(PYR_RING(r0), PYR_RING(r1), PYR_RING(r2), PYR_RING(r3), PYR_RING(r4)));
#undef PYR_RING
                if (e + 16 <= dw) {
                    GVSTA(CAT(T, 16), ob, o, out + e); /* rows start on PITCH_ALIGN (64) */
                } else {
                    T part[16];
                    vstore16(o, 0, part);
                    for (int k = 0; e + k < dw; k++)
                        GST(ob, out, e + k, part[k]);
                }
            }
        }
    }
}

/* nl (1..3) steps: src -> l1 -> l2 -> l3 (the levels past nl unused). Band b
 * owns rows b chunk .. (b + 1) chunk of the last level. Its scratch starts
 * at byte b * band_bytes of work: the ring (5 rpitch accumulators), then
 * at byte ring_bytes its halo rows, those of l1 (hp1 values each) then
 * those of l2 (hp2); the host sizes both (pyramid.c, pyr_down_choose). */
__kernel void pyr_down_band(__global const T *src, int src_pitch, int sw, int sh,
                            __global T *l1, int p1, int w1, int h1, __global T *l2, int p2,
                            int w2, int h2, __global T *l3, int p3, int w3, int h3, int nl,
                            int chunk, __global PYR_ACC_S *ring, __global T *halo, int band_bytes,
                            int ring_bytes, int rpitch, int hp1, int hp2, __global T *copy,
                            int copy_pitch, int copy_on CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(l1, 4);
    CLV_DBG_BUF(l2, 8);
    CLV_DBG_BUF(l3, 12);
    CLV_DBG_BUF(ring, 18);
    CLV_DBG_BUF(halo, 19);
    CLV_DBG_BUF(copy, 25);
    const int b = get_global_id(0);
    const int hl = nl == 1 ? h1 : nl == 2 ? h2 : h3;
    const int ya = b * chunk;
    if (ya >= hl)
        return;
    const int yb = min(ya + chunk, hl);
    /* rows each level takes from its image (own) and makes (need), from
     * the last level up: own 2 lo .. 2 hi (the last band's reach past the
     * level's end: all its rows), need as the 5 taps reach */
    int olo[3], ohi[3], nlo[3], nhi[3];
    const int hs[3] = {h1, h2, h3};
    olo[nl - 1] = nlo[nl - 1] = ya;
    ohi[nl - 1] = nhi[nl - 1] = yb;
    for (int k = nl - 2; k >= 0; k--) {
        olo[k] = 2 * olo[k + 1];
        ohi[k] = 2 * ohi[k + 1];
        nlo[k] = max(0, 2 * nlo[k + 1] - 2);
        nhi[k] = min(hs[k], 2 * nhi[k + 1] + 1);
    }
    __global uchar *mine = (__global uchar *)ring + (size_t)b * (size_t)band_bytes;
    __global PYR_ACC_S *bring = (__global PYR_ACC_S *)mine;
    /* halo is work too (the same buffer); its rows for l1, then for l2 */
    __global T *halo1 = halo + ((size_t)b * (size_t)band_bytes + (size_t)ring_bytes) / sizeof(T);
    __global T *halo2 = halo1 + (size_t)(HALO_TOP(nl - 1) + HALO_BOT(nl - 1)) * (size_t)hp1;
    const int c0 = copy_on ? 2 * olo[0] : 0, c1 = copy_on ? min(2 * ohi[0], sh) : 0;
    pyr_band_step(src CLV_DBG_PASS(src), src_pitch, sw, sh, 0, sh, halo CLV_DBG_PASS(halo), 0, 0,
                  l1 CLV_DBG_PASS(l1), p1, w1, h1, olo[0], ohi[0], halo1 CLV_DBG_PASS(halo), hp1,
                  HALO_TOP(nl - 1), nlo[0], nhi[0], bring CLV_DBG_PASS(ring), rpitch,
                  copy CLV_DBG_PASS(copy), copy_pitch, c0, c1);
    if (nl >= 2)
        pyr_band_step(l1 CLV_DBG_PASS(l1), p1, w1, h1, olo[0], ohi[0], halo1 CLV_DBG_PASS(halo),
                      hp1, HALO_TOP(nl - 1), l2 CLV_DBG_PASS(l2), p2, w2, h2, olo[1], ohi[1],
                      halo2 CLV_DBG_PASS(halo), hp2, HALO_TOP(nl - 2), nlo[1], nhi[1],
                      bring CLV_DBG_PASS(ring), rpitch, copy CLV_DBG_PASS(copy), copy_pitch, 0, 0);
    if (nl >= 3)
        pyr_band_step(l2 CLV_DBG_PASS(l2), p2, w2, h2, olo[1], ohi[1], halo2 CLV_DBG_PASS(halo),
                      hp2, HALO_TOP(nl - 2), l3 CLV_DBG_PASS(l3), p3, w3, h3, olo[2], ohi[2],
                      halo CLV_DBG_PASS(halo), 0, 0, nlo[2], nhi[2], bring CLV_DBG_PASS(ring),
                      rpitch, copy CLV_DBG_PASS(copy), copy_pitch, 0, 0);
}
#undef PYR_LEVEL_ROW
#endif

#if defined(DEPTH_U8) && CN == 1 && defined(PR_PY)
/* GPUs, u8, one channel: registers, no local memory and no barrier (as
 * box_reg in box.cl). A work-item makes 4 consecutive outputs of a row (one
 * aligned 4-byte store) in PR_PY consecutive rows, walking down them with
 * the last 5 source rows' sums along x in registers; each output row takes
 * two new source rows. Outputs x0 .. x0 + 3 take source values
 * 2 x0 - 2 .. 2 x0 + 8, so a source row is 4 aligned 4-byte loads (bytes
 * 2 x0 - 4 .. 2 x0 + 11). Integer sums, (s + 128) >> 8: OpenCV's result bit
 * for bit (the float kernels' too). Near the row ends the loads go value by
 * value through the border rule. With copy_on, the work-item also writes
 * its own source rows (2 y0 .. 2 y0 + 2 PR_PY - 1) and bytes
 * (2 x0 .. 2 x0 + 7) to `copy`: a pyramid's level 0 made from the loads
 * level 1 needs anyway, no copy command before it; every source pixel
 * belongs to exactly one work-item. The aligned accesses rely on rows
 * starting on 64-byte boundaries (image.c's PITCH_ALIGN). */

/* Source row y (any integer: the border rule maps it) summed along x with
 * weights 1 4 6 4 1 at the work-item's outputs x0 .. x0 + 3; with copy_row,
 * its bytes 2 x0 .. 2 x0 + 7 also go to `copy`. */
static inline int4 pyr_reg_row(__global const uchar *restrict src CLV_DBG_PARAM(src),
                               int src_pitch, int sw, int sh, int y, int x0, int inside,
                               __global uchar *restrict copy CLV_DBG_PARAM(copy), int copy_pitch,
                               int copy_row)
{
    int v[16];
    clv_u8_span(src CLV_DBG_PASS(src), src_pitch, BORDER_INDEX(y, sh), 2 * x0 - 4, 4, inside, sw,
                v);
    if (copy_row) {
        __global uchar *crow = ROW(copy, copy_pitch, y) + 2 * x0;
        if (inside) {
            GVSTA(uchar4, copy, (uchar4)((uchar)v[4], (uchar)v[5], (uchar)v[6], (uchar)v[7]),
                  crow);
            GVSTA(uchar4, copy, (uchar4)((uchar)v[8], (uchar)v[9], (uchar)v[10], (uchar)v[11]),
                  crow + 4);
        } else {
            for (int b = 0; b < 8 && 2 * x0 + b < sw; b++)
                GST(copy, crow, b, (uchar)v[4 + b]);
        }
    }
    int r[4];
    CLV_UNROLL
    for (int k = 0; k < 4; k++)
        r[k] = v[4 + 2 * k] * 6 + (v[3 + 2 * k] + v[5 + 2 * k]) * 4 + v[2 + 2 * k] + v[6 + 2 * k];
    return (int4)(r[0], r[1], r[2], r[3]);
}

__kernel void pyr_reg(__global const uchar *restrict src, int src_pitch, int sw, int sh,
                      __global uchar *restrict dst, int dst_pitch, int dw, int dh,
                      __global uchar *restrict copy, int copy_pitch, int copy_on CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    CLV_DBG_BUF(copy, 8);
    const int xw = get_global_id(0), x0 = xw * 4, y0 = get_global_id(1) * PR_PY;
    if (x0 >= dw || y0 >= dh)
        return;
    const int inside = xw >= 1 && 2 * x0 + 12 <= sw;
    /* h[t]: source row 2 y - 2 + t along x, for the output row y in hand */
    int4 h[5];
    h[2] = pyr_reg_row(src CLV_DBG_PASS(src), src_pitch, sw, sh, 2 * y0 - 2, x0, inside,
                       copy CLV_DBG_PASS(copy), copy_pitch, 0);
    h[3] = pyr_reg_row(src CLV_DBG_PASS(src), src_pitch, sw, sh, 2 * y0 - 1, x0, inside,
                       copy CLV_DBG_PASS(copy), copy_pitch, 0);
    h[4] = pyr_reg_row(src CLV_DBG_PASS(src), src_pitch, sw, sh, 2 * y0, x0, inside,
                       copy CLV_DBG_PASS(copy), copy_pitch, copy_on && 2 * y0 < sh);
    const int rows = min(PR_PY, dh - y0);
    CLV_NO_UNROLL
    for (int p = 0; p < rows; p++) {
        const int y = 2 * (y0 + p); /* source row of the window's centre */
        h[0] = h[2];
        h[1] = h[3];
        h[2] = h[4];
        h[3] = pyr_reg_row(src CLV_DBG_PASS(src), src_pitch, sw, sh, y + 1, x0, inside,
                           copy CLV_DBG_PASS(copy), copy_pitch, copy_on && y + 1 < sh);
        /* row y + 2 belongs to the next work-item's copy after the last row */
        h[4] = pyr_reg_row(src CLV_DBG_PASS(src), src_pitch, sw, sh, y + 2, x0, inside,
                           copy CLV_DBG_PASS(copy), copy_pitch,
                           copy_on && p + 1 < PR_PY && y + 2 < sh);
        const int4 a = h[0] + (h[1] + h[3]) * 4 + h[2] * 6 + h[4];
        clv_u8_store4(dst CLV_DBG_PASS(dst), ROW(dst, dst_pitch, y0 + p) + x0,
                      convert_uchar4((a + 128) >> 8), dw - x0);
    }
}

/* GPUs, u8, one channel: two or three pyramid steps in one launch (pyr_reg2,
 * pyr_reg3), the levels between in local memory. A work-group makes a tile
 * of TX x TY values of the launch's last level (X0 .. X0 + TX - 1, Y0 ..)
 * and the blocks under it of every level before, which it owns: at n steps
 * above the last, columns 2^n X0 .. 2^n (X0 + TX) - 1 and the rows
 * likewise, so the work-groups tile every level; with copy_on also the
 * level k bytes under its level k + 1 block, as pyr_reg does (a pyramid's
 * level 0). Each level between is made, wherever it lies inside its level,
 * over the region the next one's taps reach: the owned block, a few values
 * each side (its neighbours', made again); a tap outside a level reflects
 * to at most 3 values inside it, within that region. Level k + 1 comes from
 * global memory in tasks of 4 columns and several rows, as pyr_reg's
 * work-items (the same integer sums: OpenCV's bytes); every later level
 * from the local tile before it, 4 values of a row per task. Any
 * work-group size (every stage loops over its tasks). */
#if defined(P2_TX) && defined(P3_TX)

/* Stage 1: level k + 1's values at columns c0 .. c0 + tw - 1 (c0 and tw
 * multiples of 4) and rows r0 .. r0 + th - 1 that lie inside it (w1 x h1),
 * into tile (pitch tw); those in the owned block [ox0, ox1) x [oy0, oy1)
 * (clipped to the level) also to d1, and with copy_on the level k rows
 * under owned rows, at owned columns, to copy. Tasks of 4 columns by about
 * th / (nl / (tw / 4)) rows: about one per work-item. */
static inline void pyr_stage1(__global const uchar *restrict src CLV_DBG_PARAM(src),
                              int src_pitch, int sw, int sh,
                              __global uchar *restrict d1 CLV_DBG_PARAM(d1), int p1, int w1,
                              int h1, __global uchar *restrict copy CLV_DBG_PARAM(copy),
                              int copy_pitch, int copy_on, __local uchar *tile, int tw, int th,
                              int c0, int r0, int ox0, int ox1, int oy0, int oy1, int lid, int nl)
{
    const int ncg = tw / 4, nrb = max(1, nl / ncg), rows = (th + nrb - 1) / nrb;
    for (int t = lid; t < ncg * nrb; t += nl) {
        const int x1 = c0 + 4 * (t % ncg), rb = r0 + rows * (t / ncg);
        const int ys = max(rb, 0), ye = min(min(rb + rows, r0 + th), h1);
        if (x1 < 0 || x1 >= w1 || ys >= ye)
            continue;
        const int inside = x1 >= 2 && 2 * x1 + 12 <= sw;
        const int own_x = x1 >= ox0 && x1 < ox1;
        /* level k rows this task copies: those under its owned rows */
        const int cy0 = 2 * max(ys, oy0), cy1 = copy_on && own_x ? min(2 * min(ye, oy1), sh) : 0;
        int4 h[5];
        h[2] = pyr_reg_row(src CLV_DBG_PASS(src), src_pitch, sw, sh, 2 * ys - 2, x1, inside,
                           copy CLV_DBG_PASS(copy), copy_pitch, 0);
        h[3] = pyr_reg_row(src CLV_DBG_PASS(src), src_pitch, sw, sh, 2 * ys - 1, x1, inside,
                           copy CLV_DBG_PASS(copy), copy_pitch, 0);
        h[4] = pyr_reg_row(src CLV_DBG_PASS(src), src_pitch, sw, sh, 2 * ys, x1, inside,
                           copy CLV_DBG_PASS(copy), copy_pitch, 2 * ys >= cy0 && 2 * ys < cy1);
        CLV_NO_UNROLL
        for (int y1 = ys; y1 < ye; y1++) {
            const int y = 2 * y1;
            h[0] = h[2];
            h[1] = h[3];
            h[2] = h[4];
            h[3] = pyr_reg_row(src CLV_DBG_PASS(src), src_pitch, sw, sh, y + 1, x1, inside,
                               copy CLV_DBG_PASS(copy), copy_pitch, y + 1 >= cy0 && y + 1 < cy1);
            h[4] = pyr_reg_row(src CLV_DBG_PASS(src), src_pitch, sw, sh, y + 2, x1, inside,
                               copy CLV_DBG_PASS(copy), copy_pitch, y + 2 >= cy0 && y + 2 < cy1);
            const int4 a = h[0] + (h[1] + h[3]) * 4 + h[2] * 6 + h[4];
            const uchar4 o = convert_uchar4((a + 128) >> 8);
            vstore4(o, 0, tile + (y1 - r0) * tw + (x1 - c0));
            if (own_x && y1 >= oy0 && y1 < oy1)
                clv_u8_store4(d1 CLV_DBG_PASS(d1), ROW(d1, p1, y1) + x1, o, w1 - x1);
        }
    }
}

/* Values x .. x + 3 of row y of the level after the one in tile (that level
 * wp x hp; tile holds its columns tc0 .., rows tr0 .., pitch tw, th rows),
 * pyrDown's rounded sums. Taps through one reflection of that level
 * (clv_border_index_near; the general rule's division per tap cost
 * pyr_reg3 a fifth of its time at 3840x2160 on the H100, 2026-12-05),
 * enough for every value the next level has: its column x' < (wp + 1) / 2
 * takes columns 2 x' - 2 .. 2 x' + 2, at most wp + 1, and rows likewise,
 * within one reflection since a level with a next one has sides of at
 * least 3 (every level at least 2). The tile index is clamped into the
 * tile, which only values that nothing uses (outside their level, or at a
 * tile's outer columns) can need. */
static inline uchar4 pyr_tile4(__local const uchar *tile, int tw, int th, int tc0, int tr0,
                               int wp, int hp, int x, int y)
{
    int ci[11];
    CLV_UNROLL
    for (int j = 0; j < 11; j++)
        ci[j] = clamp(clv_border_index_near(2 * x - 2 + j, wp, BORDER) - tc0, 0, tw - 1);
    int4 acc = (int4)(0);
    CLV_UNROLL
    for (int k = 0; k < 5; k++) {
        __local const uchar *row =
            tile + clamp(clv_border_index_near(2 * y - 2 + k, hp, BORDER) - tr0, 0, th - 1) * tw;
        int v[11];
        CLV_UNROLL
        for (int j = 0; j < 11; j++)
            v[j] = row[ci[j]];
        const int4 r = (int4)(v[2] * 6 + (v[1] + v[3]) * 4 + v[0] + v[4],
                              v[4] * 6 + (v[3] + v[5]) * 4 + v[2] + v[6],
                              v[6] * 6 + (v[5] + v[7]) * 4 + v[4] + v[8],
                              v[8] * 6 + (v[7] + v[9]) * 4 + v[6] + v[10]);
        acc += r * (k == 2 ? 6 : k == 1 || k == 3 ? 4 : 1);
    }
    return convert_uchar4((acc + 128) >> 8);
}

/* The launch's last level: its TX x TY tile at (X0, Y0) from tile (the
 * level before, wp x hp), into d (w x h). TX is a multiple of 4. */
static inline void pyr_last(__local const uchar *tile, int tw, int th, int tc0, int tr0, int wp,
                            int hp, __global uchar *restrict d CLV_DBG_PARAM(d), int pd, int w,
                            int h, int X0, int Y0, int TX, int TY, int lid, int nl)
{
    for (int t = lid; t < (TX / 4) * TY; t += nl) {
        const int x = X0 + 4 * (t % (TX / 4)), y = Y0 + t / (TX / 4);
        if (x < w && y < h)
            clv_u8_store4(d CLV_DBG_PASS(d), ROW(d, pd, y) + x,
                          pyr_tile4(tile, tw, th, tc0, tr0, wp, hp, x, y), w - x);
    }
}

/* Two steps: level k + 1's tile is columns 2 X0 - 4 .. 2 X0 + 2 P2_TX + 3
 * and rows 2 Y0 - 2 .. 2 Y0 + 2 P2_TY, (2 P2_TY + 3) x (2 P2_TX + 8) bytes. */
#define P2_LW (2 * P2_TX + 8)
#define P2_LH (2 * P2_TY + 3)
__kernel void pyr_reg2(__global const uchar *restrict src, int src_pitch, int sw, int sh,
                       __global uchar *restrict d1, int p1, int w1, int h1,
                       __global uchar *restrict d2, int p2, int w2, int h2,
                       __global uchar *restrict copy, int copy_pitch, int copy_on CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(d1, 4);
    CLV_DBG_BUF(d2, 8);
    CLV_DBG_BUF(copy, 12);
    __local uchar tile[P2_LH * P2_LW];
    const int X0 = (int)get_group_id(0) * P2_TX, Y0 = (int)get_group_id(1) * P2_TY;
    const int c0 = 2 * X0 - 4, r0 = 2 * Y0 - 2;
    const int lid = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));
    const int nl = (int)(get_local_size(0) * get_local_size(1));
    pyr_stage1(src CLV_DBG_PASS(src), src_pitch, sw, sh, d1 CLV_DBG_PASS(d1), p1, w1, h1,
               copy CLV_DBG_PASS(copy), copy_pitch, copy_on, tile, P2_LW, P2_LH, c0, r0, 2 * X0,
               min(2 * X0 + 2 * P2_TX, w1), 2 * Y0, min(2 * Y0 + 2 * P2_TY, h1), lid, nl);
    barrier(CLK_LOCAL_MEM_FENCE);
    pyr_last(tile, P2_LW, P2_LH, c0, r0, w1, h1, d2 CLV_DBG_PASS(d2), p2, w2, h2, X0, Y0, P2_TX,
             P2_TY, lid, nl);
}

/* Three steps: level k + 2's tile is columns 2 X0 - 4 .. 2 X0 + 2 P3_TX + 3
 * and rows 2 Y0 - 2 .. 2 Y0 + 2 P3_TY (P3_W2 x P3_H2, 4-aligned so that its
 * owned values go out 4 at a time; the last level reads its columns 2 X0 - 2
 * .. 2 X0 + 2 P3_TX); level k + 1's covers what those reach: columns
 * 4 X0 - 8 .. 4 X0 + 4 P3_TX + 3, rows 4 Y0 - 6 .. 4 Y0 + 4 P3_TY + 2 (the
 * level k + 2 values at the tile's outer two columns each side come out
 * wrong, through the clamp, and nothing uses them). */
#define P3_W2 (2 * P3_TX + 8)
#define P3_H2 (2 * P3_TY + 3)
#define P3_W1 (4 * P3_TX + 12)
#define P3_H1 (4 * P3_TY + 9)
__kernel void pyr_reg3(__global const uchar *restrict src, int src_pitch, int sw, int sh,
                       __global uchar *restrict d1, int p1, int w1, int h1,
                       __global uchar *restrict d2, int p2, int w2, int h2,
                       __global uchar *restrict d3, int p3, int w3, int h3,
                       __global uchar *restrict copy, int copy_pitch, int copy_on CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(d1, 4);
    CLV_DBG_BUF(d2, 8);
    CLV_DBG_BUF(d3, 12);
    CLV_DBG_BUF(copy, 16);
    __local uchar t1[P3_H1 * P3_W1];
    __local uchar t2[P3_H2 * P3_W2];
    const int X0 = (int)get_group_id(0) * P3_TX, Y0 = (int)get_group_id(1) * P3_TY;
    const int c2 = 2 * X0 - 4, r2 = 2 * Y0 - 2, c1 = 4 * X0 - 8, r1 = 4 * Y0 - 6;
    const int lid = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));
    const int nl = (int)(get_local_size(0) * get_local_size(1));
    pyr_stage1(src CLV_DBG_PASS(src), src_pitch, sw, sh, d1 CLV_DBG_PASS(d1), p1, w1, h1,
               copy CLV_DBG_PASS(copy), copy_pitch, copy_on, t1, P3_W1, P3_H1, c1, r1, 4 * X0,
               min(4 * X0 + 4 * P3_TX, w1), 4 * Y0, min(4 * Y0 + 4 * P3_TY, h1), lid, nl);
    barrier(CLK_LOCAL_MEM_FENCE);
    /* level k + 2 over t2's region, its owned block also to d2 */
    const int ox1 = min(2 * X0 + 2 * P3_TX, w2), oy1 = min(2 * Y0 + 2 * P3_TY, h2);
    for (int t = lid; t < (P3_W2 / 4) * P3_H2; t += nl) {
        const int x = c2 + 4 * (t % (P3_W2 / 4)), y = r2 + t / (P3_W2 / 4);
        if (x < 0 || x >= w2 || y < 0 || y >= h2)
            continue;
        const uchar4 o = pyr_tile4(t1, P3_W1, P3_H1, c1, r1, w1, h1, x, y);
        vstore4(o, 0, t2 + (y - r2) * P3_W2 + (x - c2));
        if (x >= 2 * X0 && x < ox1 && y >= 2 * Y0 && y < oy1)
            clv_u8_store4(d2 CLV_DBG_PASS(d2), ROW(d2, p2, y) + x, o, w2 - x);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    pyr_last(t2, P3_W2, P3_H2, c2, r2, w2, h2, d3 CLV_DBG_PASS(d3), p3, w3, h3, X0, Y0, P3_TX,
             P3_TY, lid, nl);
}
#endif
#endif
