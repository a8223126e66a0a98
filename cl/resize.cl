/* Bilinear resize, OpenCV INTER_LINEAR convention (pixel centres aligned).
 * The host computes, exactly, per destination column and row the first
 * source index and the weight of the next one (tab: x0[dw], ax[dw] as float
 * bits, y0[dh], ay[dh]); the kernel only blends. */

__kernel void resize_bilinear(__global const T *src, int src_pitch, int sw, int sh,
                              __global T *dst, int dst_pitch, int dw, int dh,
                              __global const int *tab, int rows CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    CLV_DBG_BUF(tab, 8);
    const int dx = get_global_id(0);
    const int dy0 = get_global_id(1) * rows;
    if (dx >= dw || dy0 >= dh)
        return;
    const int x0 = GLD(tab, tab, dx);
    const float ax = as_float(GLD(tab, tab, dw + dx));
    const int x1 = min(x0 + 1, sw - 1);
    /* 4 rows (resize.c's up_rows) all inside the image: their 16 source
     * values loaded first, then the 4 outputs made and stored, so that a
     * work-item has all its loads in flight at once. H100, f32, x1.5,
     * device us, three interleaved rounds (run_gpu.sh upf15): 3840x2160
     * one channel 60.0-60.9 against the loop's 68.3-69.2, 1920x1080
     * 15.3-15.6 against 18.7-18.9; three channels within 1 %. */
    if (rows == 4 && dy0 + 4 <= dh) {
        FN a[4], b[4], c[4], d[4];
        float ay[4];
        CLV_UNROLL
        for (int k = 0; k < 4; k++) {
            const int y0 = GLD(tab, tab, 2 * dw + dy0 + k);
            ay[k] = as_float(GLD(tab, tab, 2 * dw + dh + dy0 + k));
            const int y1 = min(y0 + 1, sh - 1);
            __global const T *r0 = ROW(src, src_pitch, y0);
            __global const T *r1 = ROW(src, src_pitch, y1);
            a[k] = LOAD_PIX(src, r0, x0);
            b[k] = LOAD_PIX(src, r0, x1);
            c[k] = LOAD_PIX(src, r1, x0);
            d[k] = LOAD_PIX(src, r1, x1);
        }
        CLV_UNROLL
        for (int k = 0; k < 4; k++) {
            const FN top = a[k] * (1.0f - ax) + b[k] * ax;
            const FN bot = c[k] * (1.0f - ax) + d[k] * ax;
            STORE_PIX(dst, ROW(dst, dst_pitch, dy0 + k), dx, top * (1.0f - ay[k]) + bot * ay[k]);
        }
        return;
    }
    for (int dy = dy0; dy < min(dy0 + rows, dh); dy++) {
        const int y0 = GLD(tab, tab, 2 * dw + dy);
        const float ay = as_float(GLD(tab, tab, 2 * dw + dh + dy));
        const int y1 = min(y0 + 1, sh - 1);
        __global const T *r0 = ROW(src, src_pitch, y0);
        __global const T *r1 = ROW(src, src_pitch, y1);
        const FN top = LOAD_PIX(src, r0, x0) * (1.0f - ax) + LOAD_PIX(src, r0, x1) * ax;
        const FN bot = LOAD_PIX(src, r1, x0) * (1.0f - ax) + LOAD_PIX(src, r1, x1) * ax;
        STORE_PIX(dst, ROW(dst, dst_pitch, dy), dx, top * (1.0f - ay) + bot * ay);
    }
}

#ifdef VEC
#if VEC != 16
#error "the CPU resize kernels are written for VEC=16"
#endif
/* ---- CPU variants (PoCL): explicit 16-lane vectors over the flat row of
 * width*CN channel values, so no work-item loop has to be vectorised by the
 * compiler. Image pitches are multiples of 64 bytes, so a 16-value store that
 * starts inside a row stays inside the row's pitch. ---- */

/* Exact 2x downscale (sw == 2 dw, sh == 2 dh): every weight is 1/2 and the
 * first source pixel of destination pixel d is 2d, so destination value j =
 * CN k + c (pixel k, channel c) averages source values q and q + CN of two
 * rows, q = 2 CN k + c. With t[q] = r[q] (1/2) + r[q + CN] (1/2) per row, a
 * run of 16 destination values starting at value e (e a multiple of 16, e % CN
 * = ph) reads t at q0 + HREL(i, ph), i < 16, q0 = 2 e - ph: one two-vector
 * shuffle with a constant mask. f32 rounds each term as resize_bilinear does
 * (the products by 1/2 are exact); u8 and u16 add the four values as integers
 * and round (s + 2) >> 2, which is resize_bilinear's round-half-up of s / 4
 * exactly. A work-item makes HV values (48 for 3 channels, so the phases of
 * its three vectors are constants). */
#if defined(DEPTH_F32)
#define HACC float16 /* t, vertical sum */
#define HLOAD(b, p, e) VLOADF_AT(b, e, p)
#define HPAIR(x, y) ((x) * 0.5f + (y) * 0.5f)
#define HOUT(top, bot) ((top) * 0.5f + (bot) * 0.5f)
#else
#if defined(DEPTH_U8)
#define HACC ushort16
#define HSCAL ushort
#else
#define HACC uint16
#define HSCAL uint
#endif
#define HLOAD(b, p, e) CAT(convert_, HACC)(VLOADT_AT(b, e, p))
#define HPAIR(x, y) ((x) + (y))
#define HOUT(top, bot) CAT(convert_, CAT(T, 16))(((top) + (bot) + (HSCAL)2) >> (HSCAL)2)
#endif
/* resize_strip_vec: a work-item walks down its column of rows, and the
 * next work-items take the columns to its right, so the source and
 * destination lines they start on are a step right of this one's. A
 * work-item first asks for the lines STRIP_PF bytes to the right of its own
 * in every source and destination row it will touch (resize.c's
 * strip_prefetch: the distance), which those work-items then find in the
 * cache instead of each waiting on memory (resize_half_vec measured slower
 * with it: its 1920x1080 u8 source stays in the cache between runs, and
 * u8 0.081 ms became 0.115). Prefetches never fault, so the ones past a row's or
 * the image's end do no harm. Only where clang's builtin exists (PoCL);
 * elsewhere nothing. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_prefetch)
#define STRIP_PREFETCH(p, rw) __builtin_prefetch((p), (rw), 3)
#endif
#endif
#ifndef STRIP_PREFETCH
#define STRIP_PREFETCH(p, rw) ((void)0)
#endif
#ifndef STRIP_PF
#error "the CPU resize kernels need -DSTRIP_PF (the prefetch distance in bytes, from resize.c)"
#endif
#define STRIP_PF_VALUES (STRIP_PF / (int)sizeof(T))

/* HV and HROWS, values and destination rows per work-item, come from the
 * host (-D, resize.c's resize_tile); the lanes below are written for HV
 * values of exactly one vector, three for 3 channels. */
#if !defined(HV) || !defined(HROWS)
#error "the CPU resize kernels need -DHV and -DHROWS (resize_half_vec's work, from resize.c)"
#endif
#if HV != (CN == 3 ? 48 : 16)
#error "resize_half_vec is written for HV = 48 with 3 channels, 16 otherwise"
#endif
/* res = row r's t over the 32 values from q0, picked into the 16
 * destination lanes of phase PH: lanes q0 + HREL(i, ph), i < 16, with
 * HREL(i, ph) = 2 CN ((ph + i) / CN) + (ph + i) % CN - ph, written out as
 * swizzles (plain vector shuffles for the compiler). For 1, 2 and 4 channels
 * both terms of t lie in the same two vectors (lanes HREL and HREL + CN), so
 * two loads do; for 3 the second term can lie beyond them, so t is formed
 * from two more loads at q0 + CN first. (Picking the lanes from the loaded
 * u8 vectors first and widening after measured slower for 3 and 4 channels
 * on PoCL: 0.62 against 0.525 ms for u8 x 3 at 1920x1080.) */
#if defined(DEPTH_U8) && CN == 1
/* One u8 channel: the 32 source bytes read as 16 ushorts, each holding a
 * pair, so a pair's sum is the ushort's low byte plus its high byte (in either
 * byte order): no shuffle at all. */
#define HALF_ROW(res, r, q0, PH)                                                                \
    {                                                                                           \
        const ushort16 w = GVLD(16, src, 0, (__global const ushort *)((r) + (q0)));             \
        res = (w & (ushort)0xff) + (w >> (ushort)8);                                            \
    }
#elif CN != 3
#if CN == 1
#define HPICK_A(a, b) ((HACC)((a).even, (b).even))
#define HPICK_B(a, b) ((HACC)((a).odd, (b).odd))
#elif CN == 2
#define HPICK_A(a, b) ((HACC)((a).s0145, (a).s89cd, (b).s0145, (b).s89cd))
#define HPICK_B(a, b) ((HACC)((a).s2367, (a).sabef, (b).s2367, (b).sabef))
#elif CN == 4
#define HPICK_A(a, b) ((HACC)((a).s0123, (a).s89ab, (b).s0123, (b).s89ab))
#define HPICK_B(a, b) ((HACC)((a).s4567, (a).scdef, (b).s4567, (b).scdef))
#endif
#define HALF_ROW(res, r, q0, PH)                                                                \
    {                                                                                           \
        const HACC va = HLOAD(src, r, q0), vb = HLOAD(src, r, (q0) + 16);                       \
        res = HPAIR(HPICK_A(va, vb), HPICK_B(va, vb));                                          \
    }
#else
#define HPICK0(a, b) ((HACC)((a).s012, (a).s678, (a).scde, (b).s234, (b).s89a, (b).se))
#define HPICK1(a, b) ((HACC)((a).s01, (a).s567, (a).sbcd, (b).s123, (b).s789, (b).sde))
#define HPICK2(a, b) ((HACC)((a).s0, (a).s456, (a).sabc, (b).s012, (b).s678, (b).scde))
#define HALF_ROW(res, r, q0, PH)                                                                \
    {                                                                                           \
        const HACC ta = HPAIR(HLOAD(src, r, q0), HLOAD(src, r, (q0) + CN));                     \
        const HACC tb = HPAIR(HLOAD(src, r, (q0) + 16), HLOAD(src, r, (q0) + 16 + CN));         \
        res = CAT(HPICK, PH)(ta, tb);                                                           \
    }
#endif

static inline void half_scalar(__global const T *src CLV_DBG_PARAM(src), __global const T *r0,
                        __global const T *r1, __global T *dst CLV_DBG_PARAM(dst), __global T *out,
                        int j0, int j1)
{
    for (int j = j0; j < j1; j++) {
        const int q = 2 * j - j % CN;
        const float top = (float)GLD(src, r0, q) * 0.5f + (float)GLD(src, r0, q + CN) * 0.5f;
        const float bot = (float)GLD(src, r1, q) * 0.5f + (float)GLD(src, r1, q + CN) * 0.5f;
        GST(dst, out, j, FROM_FN_SCALAR(top * 0.5f + bot * 0.5f));
    }
}

/* the vectors' last load: the one from q0 + 16 (+ CN for 3 channels) */
#if CN == 3
#define HFITS(e, v) (2 * (e) - (v) + 35 <= sw * CN)
#else
#define HFITS(e, v) (2 * (e) + 32 <= sw * CN)
#endif
/* the vector at e0 + 16 v has phase (e0 + 16 v) % CN: v for 3 channels
 * (e0 % 3 == 0 as HV is 48), else 0; v is a literal in each expansion */
#if !defined(DEPTH_F32) && !(defined(DEPTH_U8) && CN == 1)
/* integers: the two rows are added first (exact), so the 32 -> 16 lane
 * picks run once per vector instead of once per row (u8 x 3 at
 * 1920x1080 on PoCL: 0.52 -> 0.40 ms; u8 x 4 0.37 -> 0.31) */
#define HV2(e) (HLOAD(src, r0, (e)) + HLOAD(src, r1, (e)))
#if CN == 3
#define HALF_VEC(v)                                                                             \
    {                                                                                           \
        const int e = e0 + 16 * v, q0 = 2 * e - v;                                              \
        const HACC ta = HV2(q0) + HV2((q0) + CN), tb = HV2((q0) + 16) + HV2((q0) + 16 + CN);    \
        GVSTA(CAT(T, 16), dst, HOUT(CAT(HPICK, v)(ta, tb), (HACC)0), out + e);                  \
    }
#else
#define HALF_VEC(v)                                                                             \
    {                                                                                           \
        const int e = e0 + 16 * v, q0 = 2 * e - v;                                              \
        const HACC va = HV2(q0), vb = HV2((q0) + 16);                                           \
        GVSTA(CAT(T, 16), dst, HOUT(HPICK_A(va, vb), HPICK_B(va, vb)), out + e);                \
    }
#endif
#else
#define HALF_VEC(v)                                                                             \
    {                                                                                           \
        const int e = e0 + 16 * v, q0 = 2 * e - v;                                              \
        HACC top, bot;                                                                          \
        HALF_ROW(top, r0, q0, v)                                                                \
        HALF_ROW(bot, r1, q0, v)                                                                \
        GVSTA(CAT(T, 16), dst, HOUT(top, bot), out + e);                                        \
    }
#endif
/* a vector whose loads would leave the row (the row's last one or two)
 * takes the scalar path */
#define HALF_ANY(v)                                                                             \
    {                                                                                           \
        const int e = e0 + 16 * v;                                                              \
        if (e < n) {                                                                            \
            if (HFITS(e, v))                                                                    \
                HALF_VEC(v)                                                                     \
            else                                                                                \
                half_scalar(src CLV_DBG_PASS(src), r0, r1, dst CLV_DBG_PASS(dst), out, e,       \
                            min(e + 16, n));                                                    \
        }                                                                                       \
    }

__kernel void resize_half_vec(__global const T *src, int src_pitch, int sw, int sh,
                              __global T *dst, int dst_pitch, int dw, int dh CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    const int e0 = get_global_id(0) * HV;
    const int dy0 = get_global_id(1) * HROWS;
    const int n = dw * CN;
    if (e0 >= n || dy0 >= dh)
        return;
#pragma unroll
    for (int i = 0; i < HROWS; i++) {
        const int dy = dy0 + i;
        if (dy >= dh)
            break;
        __global const T *r0 = ROW(src, src_pitch, 2 * dy);
        __global const T *r1 = ROW(src, src_pitch, 2 * dy + 1);
        __global T *out = ROW(dst, dst_pitch, dy);
        if (HFITS(e0 + HV - 16, HV / 16 - 1)) {
            HALF_VEC(0)
#if CN == 3
            HALF_VEC(1)
            HALF_VEC(2)
#endif
        } else {
            HALF_ANY(0)
#if CN == 3
            HALF_ANY(1)
            HALF_ANY(2)
#endif
        }
    }
#undef HALF_ANY
#undef HALF_VEC
#undef HFITS
}

/* Any other size: a work-item makes 16 consecutive values of each of the
 * destination rows [dy0, dy0 + rows). The 16 lanes' source values and weights
 * come from the host table (flat value indices x0, x1 and the weight of x1,
 * padded to a multiple of 16 with index 0); each source row is interpolated
 * along x once and kept while the destination rows still need it, so an
 * upscale by s reads about 1/s new source rows per destination row. */
#define GATHER16(b, r, i)                                                                       \
    convert_float16((CAT(T, 16))(GLD(b, r, (i).s0), GLD(b, r, (i).s1), GLD(b, r, (i).s2),       \
                                 GLD(b, r, (i).s3), GLD(b, r, (i).s4), GLD(b, r, (i).s5),       \
                                 GLD(b, r, (i).s6), GLD(b, r, (i).s7), GLD(b, r, (i).s8),       \
                                 GLD(b, r, (i).s9), GLD(b, r, (i).sa), GLD(b, r, (i).sb),       \
                                 GLD(b, r, (i).sc), GLD(b, r, (i).sd), GLD(b, r, (i).se),       \
                                 GLD(b, r, (i).sf)))

static inline float16 strip_row(__global const T *src CLV_DBG_PARAM(src), __global const T *r,
                         int16 i0, int16 i1, float16 ax)
{
    return GATHER16(src, r, i0) * (1.0f - ax) + GATHER16(src, r, i1) * ax;
}

/* u8 on x86 (SSSE3's pshufb, through clang's builtin): where the 16 lanes'
 * source values of both columns lie within 16 bytes of the row (upscaling,
 * mild downscaling), one 16-byte load and two byte shuffles replace the 32
 * one-byte loads of the gathers (1920x1080 -> 2880x1620 on PoCL, device ms:
 * u8 x 3 9.4 -> 6.3, u8 x 1 2.9 -> 2.2). The host marks each 16-value
 * group's window start (-1: gather) and the lanes' byte offsets in it.
 * Other devices and types gather. */
#if defined(DEPTH_U8) && defined(__SSSE3__) && defined(__has_builtin)
#if __has_builtin(__builtin_ia32_pshufb128)
#define STRIP_WINDOWS
typedef char clv_v16qi __attribute__((__vector_size__(16)));
#define PSHUFB(w, m)                                                                            \
    __builtin_astype(__builtin_ia32_pshufb128(__builtin_astype((w), clv_v16qi),                 \
                                              __builtin_astype((m), clv_v16qi)),                \
                     uchar16)

static inline float16 strip_row_window(__global const T *src CLV_DBG_PARAM(src), __global const T *r,
                                int base, uchar16 m0, uchar16 m1, float16 ax)
{
    const uchar16 w = GVLD(16, src, 0, r + base);
    return convert_float16(PSHUFB(w, m0)) * (1.0f - ax) + convert_float16(PSHUFB(w, m1)) * ax;
}
#endif
#endif
/* f32 with AVX-512 (vpermps, through clang's builtin): the same windows of
 * 16 values, one 64-byte load and two lane permutes instead of 32 gathered
 * loads. */
#if defined(DEPTH_F32) && defined(__AVX512F__) && defined(__has_builtin)
#if __has_builtin(__builtin_ia32_permvarsf512)
#define STRIP_WINDOWS
typedef float clv_v16sf __attribute__((__vector_size__(64)));
typedef int clv_v16si __attribute__((__vector_size__(64)));
#define PERMPS(w, m)                                                                            \
    __builtin_astype(__builtin_ia32_permvarsf512(__builtin_astype((w), clv_v16sf),              \
                                                 __builtin_astype(convert_int16(m), clv_v16si)), \
                     float16)

static inline float16 strip_row_window(__global const T *src CLV_DBG_PARAM(src), __global const T *r,
                                int base, uchar16 m0, uchar16 m1, float16 ax)
{
    const float16 w = GVLD(16, src, 0, r + base);
    return PERMPS(w, m0) * (1.0f - ax) + PERMPS(w, m1) * ax;
}
#endif
#endif

#ifdef STRIP_WINDOWS
#define STRIP_ROW(r)                                                                            \
    (base >= 0 ? strip_row_window(src CLV_DBG_PASS(src), (r), base, m0, m1, ax)                 \
               : strip_row(src CLV_DBG_PASS(src), (r), i0, i1, ax))
#else
#define STRIP_ROW(r) strip_row(src CLV_DBG_PASS(src), (r), i0, i1, ax)
#endif

__kernel void resize_strip_vec(__global const T *src, int src_pitch, int sw, int sh,
                               __global T *dst, int dst_pitch, int dw, int dh,
                               __global const int *tab, int rows CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    CLV_DBG_BUF(tab, 8);
    const int e0 = get_global_id(0) * 16;
    const int dy0 = get_global_id(1) * rows;
    if (e0 >= dw * CN || dy0 >= dh)
        return;
    const int nx = (dw * CN + 15) / 16 * 16;
    const int16 i0 = GVLD(16, tab, 0, tab + e0);
    const int16 i1 = GVLD(16, tab, 0, tab + nx + e0);
    const float16 ax = as_float16(GVLD(16, tab, 0, tab + 2 * nx + e0));
    __global const int *ytab = tab + 3 * nx;
#ifdef STRIP_WINDOWS
    /* after y0[dh], ay[dh]: base[nx / 16], then the bytes m0[nx], m1[nx] */
    __global const int *wtab = ytab + 2 * dh;
    const int base = GLD(tab, wtab, e0 / 16);
    __global const uchar *mtab = (__global const uchar *)(wtab + nx / 16);
    const uchar16 m0 = GVLD(16, tab, 0, mtab + e0), m1 = GVLD(16, tab, 0, mtab + nx + e0);
#endif
    int cy = -2; /* source row held in h0 (h1 holds the next one) */
    float16 h0 = 0.0f, h1 = 0.0f;
    const int dy1 = min(dy0 + rows, dh);
    if (STRIP_PF > 0) {
        /* i0.s0: the lanes' leftmost source value (the table is monotonic) */
        const int ya = GLD(tab, ytab, dy0), yb = min(GLD(tab, ytab, dy1 - 1) + 1, sh - 1);
        for (int y = ya; y <= yb; y++)
            STRIP_PREFETCH(ROW(src, src_pitch, y) + i0.s0 + STRIP_PF_VALUES, 0);
        for (int dy = dy0; dy < dy1; dy++)
            STRIP_PREFETCH(ROW(dst, dst_pitch, dy) + e0 + STRIP_PF_VALUES, 1);
    }
    for (int dy = dy0; dy < dy1; dy++) {
        const int y0 = GLD(tab, ytab, dy);
        const float ay = as_float(GLD(tab, ytab, dh + dy));
        if (y0 != cy) {
            const int y1 = min(y0 + 1, sh - 1);
            h0 = y0 == cy + 1 ? h1 : STRIP_ROW(ROW(src, src_pitch, y0));
            h1 = STRIP_ROW(ROW(src, src_pitch, y1));
            cy = y0;
        }
        GVSTA(CAT(T, 16), dst, FROM_FV(h0 * (1.0f - ay) + h1 * ay), ROW(dst, dst_pitch, dy) + e0);
    }
}
#undef STRIP_ROW
#undef STRIP_PF_VALUES
#undef STRIP_PREFETCH
#endif

#if defined(RH_PY)
/* GPUs, exact 2x downscale (sw == 2 dw, sh == 2 dh): registers, as box_reg
 * in box.cl. A work-item makes 4 pixels of RH_PY rows: per row, CN aligned
 * 4-value stores from 2 CN aligned 4-value loads of each of two source rows
 * (pixel k, channel c from source values 2 k CN + c and that + CN of both
 * rows), so that a warp's accesses are whole runs of 4-byte (u8), 8-byte
 * (u16) or 16-byte (f32) vectors. u8 and u16 add the four values as
 * integers, the rows first, and round (s + 2) >> 2: the CPU kernel's and
 * resize_bilinear's round-half-up of s / 4 exactly. f32 keeps the rows apart
 * and blends as resize_bilinear and resize_half_vec do, each row's pair
 * first (every weight 1/2, each product exact). A last work-item of fewer
 * than 4 pixels goes value by value. The aligned accesses rely on rows
 * starting on 64-byte boundaries (image.c's PITCH_ALIGN). */
#if defined(DEPTH_F32)
#define RH_V float4
#define RH_S float
#define RH_GET(p) GVLDA(float4, src, p)
#define RH_PAIR(x, y) ((x) * 0.5f + (y) * 0.5f)
/* the rows apart: a (the upper row) and b */
#define RH_KEEP4(i, u, v)                                                                     \
    a[i] = (u).s0, a[(i) + 1] = (u).s1, a[(i) + 2] = (u).s2, a[(i) + 3] = (u).s3,             \
    b[i] = (v).s0, b[(i) + 1] = (v).s1, b[(i) + 2] = (v).s2, b[(i) + 3] = (v).s3
#define RH_OUT(q) RH_PAIR(RH_PAIR(a[q], a[(q) + CN]), RH_PAIR(b[q], b[(q) + CN]))
#define RH_OUT4(x, y, z, w) RH_PAIR(RH_PAIR(x, y), RH_PAIR(z, w))
#define RH_TO_T(v) (v)
#else
#if defined(DEPTH_U8)
#define RH_V int4
#define RH_S int
#define RH_GET(p) convert_int4(GVLDA(uchar4, src, p))
#else
#define RH_V uint4
#define RH_S uint
#define RH_GET(p) convert_uint4(GVLDA(ushort4, src, p))
#endif
/* the two rows' sum: a */
#define RH_KEEP4(i, u, v)                                                                     \
    const RH_V q_ = (u) + (v);                                                                \
    a[i] = q_.s0, a[(i) + 1] = q_.s1, a[(i) + 2] = q_.s2, a[(i) + 3] = q_.s3
#define RH_OUT(q) ((a[q] + a[(q) + CN] + (RH_S)2) >> 2)
#define RH_OUT4(x, y, z, w) (((x) + (y) + (z) + (w) + (RH_S)2) >> 2)
#define RH_TO_T(v) ((T)(v))
#endif
__kernel void resize_half_reg(__global const T *restrict src, int src_pitch, int sw, int sh,
                              __global T *restrict dst, int dst_pitch, int dw,
                              int dh CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    const int x0 = get_global_id(0) * 4, y0 = get_global_id(1) * RH_PY;
    if (x0 >= dw || y0 >= dh)
        return;
    for (int p = 0; p < RH_PY && y0 + p < dh; p++) {
        const int y = y0 + p;
        __global const T *r0 = ROW(src, src_pitch, 2 * y) + 2 * x0 * CN;
        __global const T *r1 = ROW(src, src_pitch, 2 * y + 1) + 2 * x0 * CN;
        __global T *out = ROW(dst, dst_pitch, y) + x0 * CN;
        if (x0 + 4 <= dw) {
            RH_S a[8 * CN];
#if defined(DEPTH_F32)
            RH_S b[8 * CN];
#endif
            CLV_UNROLL
            for (int w = 0; w < 2 * CN; w++) {
                RH_KEEP4(4 * w, RH_GET(r0 + 4 * w), RH_GET(r1 + 4 * w));
            }
            T o[4 * CN];
            CLV_UNROLL
            for (int k = 0; k < 4; k++)
                CLV_UNROLL
                for (int c = 0; c < CN; c++)
                    o[k * CN + c] = RH_TO_T(RH_OUT(2 * k * CN + c));
            CLV_UNROLL
            for (int w = 0; w < CN; w++)
                GVSTA(CAT(T, 4), dst, (CAT(T, 4))(o[4 * w], o[4 * w + 1], o[4 * w + 2], o[4 * w + 3]),
                      out + 4 * w);
        } else {
            for (int j = 0; j < (dw - x0) * CN; j++) {
                const int q = 2 * j - j % CN;
                GST(dst, out, j,
                    RH_TO_T(RH_OUT4((RH_S)GLD(src, r0, q), (RH_S)GLD(src, r0, q + CN),
                                    (RH_S)GLD(src, r1, q), (RH_S)GLD(src, r1, q + CN))));
            }
        }
    }
}
#undef RH_V
#undef RH_S
#undef RH_GET
#undef RH_PAIR
#undef RH_KEEP4
#undef RH_OUT
#undef RH_OUT4
#undef RH_TO_T
#endif

#if defined(DEPTH_U8) && !defined(VEC)
/* GPUs, u8, through the coordinate table (resize_bilinear's), for
 * upscaling: 4 pixels of `rows` rows per work-item. A source row's
 * horizontal blend (4 CN floats in registers) is made once and kept while
 * the next output rows blend the same source rows (upscaling by 1.5, 8 rows
 * read about 7 source rows instead of 16), and a row's 4 pixels leave as CN
 * aligned 4-byte stores (rows start on 64-byte boundaries, image.c's
 * PITCH_ALIGN). The arithmetic is resize_bilinear's, term for term. A last
 * work-item of fewer than 4 pixels stores value by value.
 *
 * One channel: where the 4 pixels' taps lie in the 8 bytes from the 4-byte
 * word holding the first (always when x is upscaled too: a pixel's source
 * position moves by at most 1 per pixel), a source row is two aligned 4-byte
 * loads and each tap a shift of the 8 bytes (RU_TAP), instead of 8 byte
 * loads each with its own 64-bit address: the kernel is bound by its
 * instructions, not by memory (Nsight Compute on the H100, 3840x2160 1.5x:
 * issue slots 62 % busy, DRAM 7 %). The blend needs no clamp: a weighted
 * mean of values in [0, 255] plus 0.5 stays inside [0, 256) after float
 * rounding, where the truncating conversion is exact. */
#define RU_HROW(h, r)                                                                           \
    CLV_UNROLL                                                                                  \
    for (int i = 0; i < 4; i++) {                                                               \
        __global const uchar *pa_ = (r) + xa[i], *pb_ = (r) + xb[i];                            \
        CLV_UNROLL                                                                              \
        for (int c = 0; c < CN; c++)                                                            \
            h[i * CN + c] = (float)GLD(src, pa_, c) * (1.0f - ax[i]) +                         \
                            (float)GLD(src, pb_, c) * ax[i];                                    \
    }
#define RU_TAP(q, sh) ((float)((uint)((q) >> (sh)) & 255u))
#if CN == 1
#ifndef __ENDIAN_LITTLE__
#error "resize_up_reg reads bytes out of words in little-endian order"
#endif
#define RU_ROW(h, r)                                                                            \
    if (words) {                                                                                \
        const ulong q_ = upsample(GVLDA(uint, src, (__global const uint *)((r) + wb + 4)),        \
                                  GVLDA(uint, src, (__global const uint *)((r) + wb)));         \
        CLV_UNROLL                                                                              \
        for (int i = 0; i < 4; i++)                                                             \
            h[i] = RU_TAP(q_, sa[i]) * (1.0f - ax[i]) + RU_TAP(q_, sb[i]) * ax[i];              \
    } else {                                                                                    \
        RU_HROW(h, r)                                                                           \
    }
#elif CN == 3
#ifndef __ENDIAN_LITTLE__
#error "resize_up_reg reads bytes out of words in little-endian order"
#endif
#define RU_ROW(h, r)                                                                            \
    if (words) {                                                                                \
        CLV_UNROLL                                                                              \
        for (int i = 0; i < 4; i++) {                                                           \
            __global const uint *p_ = (__global const uint *)((r) + wq[i]);                     \
            const uint w0_ = GVLDA(uint, src, p_), w1_ = GVLDA(uint, src, p_ + 1),              \
                       w2_ = GVLDA(uint, src, p_ + 2);                                          \
            const uint lo_ = (uint)(upsample(w1_, w0_) >> sq[i]),                               \
                       hi_ = (uint)(upsample(w2_, w1_) >> sq[i]);                               \
            h[3 * i] = (float)(lo_ & 255u) * (1.0f - ax[i]) + (float)(lo_ >> 24) * ax[i];       \
            h[3 * i + 1] = (float)((lo_ >> 8) & 255u) * (1.0f - ax[i]) +                        \
                           (float)(hi_ & 255u) * ax[i];                                         \
            h[3 * i + 2] = (float)((lo_ >> 16) & 255u) * (1.0f - ax[i]) +                       \
                           (float)((hi_ >> 8) & 255u) * ax[i];                                  \
        }                                                                                       \
    } else {                                                                                    \
        RU_HROW(h, r)                                                                           \
    }
#else
#define RU_ROW(h, r) RU_HROW(h, r)
#endif
__kernel void resize_up_reg(__global const uchar *restrict src, int src_pitch, int sw, int sh,
                            __global uchar *restrict dst, int dst_pitch, int dw, int dh,
                            __global const int *restrict tab, int rows CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    CLV_DBG_BUF(tab, 8);
    const int x0 = get_global_id(0) * 4, y0 = get_global_id(1) * rows;
    if (x0 >= dw || y0 >= dh)
        return;
    uint xa[4], xb[4]; /* unsigned: a 64-bit address is the row's plus a zero-extended offset */
    float ax[4];
    CLV_UNROLL
    for (int i = 0; i < 4; i++) { /* past the right edge: the last pixel's, not stored */
        const int d = min(x0 + i, dw - 1);
        const int s = GLD(tab, tab, d);
        xa[i] = (uint)(s * CN);
        xb[i] = (uint)(min(s + 1, sw - 1) * CN);
        ax[i] = as_float(GLD(tab, tab, dw + d));
    }
#if CN == 1
    /* the taps as bit offsets into the 8 bytes from wb, when they all lie
     * there and those bytes lie inside the row's pitch */
    const uint wb = xa[0] & ~3u;
    const int words = xb[3] < wb + 8 && wb + 8 <= (uint)src_pitch;
    uint sa[4], sb[4];
    CLV_UNROLL
    for (int i = 0; i < 4; i++) {
        sa[i] = (uint)(8 * (xa[i] - wb));
        sb[i] = (uint)(8 * (xb[i] - wb));
    }
#elif CN == 3
    /* per pixel, its 6 bytes (both taps) from the 3 aligned words holding
     * them, as the 8 bytes from bit sq in 2 words (lo_) and the next 4 (hi_),
     * when every pixel's second tap is the next pixel (all but the row's last)
     * and the words lie inside the row's pitch */
    uint wq[4], sq[4];
    int words = 1;
    CLV_UNROLL
    for (int i = 0; i < 4; i++) {
        wq[i] = xa[i] & ~3u;
        sq[i] = 8 * (xa[i] - wq[i]);
        words = words && xb[i] == xa[i] + 3 && wq[i] + 12 <= (uint)src_pitch;
    }
#endif
    float top[4 * CN], bot[4 * CN];
    int ytop = -1, ybot = -1; /* the source rows top and bot hold */
    const int yend = min(y0 + rows, dh);
    for (int y = y0; y < yend; y++) {
        const int ya = GLD(tab, tab, 2 * dw + y);
        const float ay = as_float(GLD(tab, tab, 2 * dw + dh + y));
        const int yb = min(ya + 1, sh - 1);
        if (ya != ytop) {
            if (ya == ybot) {
                CLV_UNROLL
                for (int k = 0; k < 4 * CN; k++)
                    top[k] = bot[k];
            } else {
                __global const uchar *r = ROW(src, src_pitch, ya);
                RU_ROW(top, r)
            }
            ytop = ya;
        }
        if (yb != ybot) {
            __global const uchar *r = ROW(src, src_pitch, yb);
            RU_ROW(bot, r)
            ybot = yb;
        }
        uchar o[4 * CN];
        CLV_UNROLL
        for (int k = 0; k < 4 * CN; k++)
            o[k] = convert_uchar(top[k] * (1.0f - ay) + bot[k] * ay + 0.5f);
        __global uchar *out = ROW(dst, dst_pitch, y) + x0 * CN;
        if (x0 + 4 <= dw) {
            CLV_UNROLL
            for (int w = 0; w < CN; w++)
                GVSTA(uchar4, dst, (uchar4)(o[4 * w], o[4 * w + 1], o[4 * w + 2], o[4 * w + 3]),
                      out + 4 * w);
        } else {
            CLV_UNROLL
            for (int k = 0; k < 4 * CN; k++) /* constant indices: o stays in registers */
                if (k < (dw - x0) * CN)
                    GST(dst, out, k, o[k]);
        }
    }
}
#undef RU_HROW
#undef RU_ROW
#undef RU_TAP
#endif
