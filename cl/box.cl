/* Box (mean) filter as two running-sum passes, so the cost per pixel does not
 * grow with the window:
 *   box_rows: src -> float sums over kx columns (scratch, CN floats/pixel).
 *     A work-group loads its row segment plus the window's halo into local
 *     memory once; each work-item then slides a running sum over `chunk`
 *     consecutive outputs.
 *   box_cols: sums over ky rows of the scratch, scaled, -> dst. Each
 *     work-item slides down `chunk` rows of one column (reads along rows are
 *     contiguous across work-items).
 * Needs DEPTH_*, CN, BORDER.
 *
 * f32: every value is scaled while it is loaded (box_rows by 1/kx, box_cols
 * by 1/ky, the one-pass kernels by 1/(kx ky)) instead of the sum at the end,
 * so every running sum is a mean of at most the largest |value| and finite
 * for any finite input (a 3x3 sum of 1e38 is beyond float). One multiply or
 * fma per load, as many as before. u8/u16 sums cannot overflow and keep the
 * scale at the end (their rounding to integers stays as it was). */
#ifndef BORDER
#error "BORDER must be defined"
#endif

#ifdef DEPTH_F32
#define BOX_PRE(v, k) ((v) * (k))
#define BOX_POST(s, k) (s)
#else
#define BOX_PRE(v, k) (v)
#define BOX_POST(s, k) ((s) * (k))
#endif

__kernel void box_rows(__global const T *src, int src_pitch, int width, int height,
                       __global float *sums, int kx, int ax, int chunk, float scale_x,
                       __local float *seg CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(sums, 4);
    /* No early return: every work-item reaches the barrier (PoCL and some
     * GPU compilers mishandle returns around barriers). */
    const int y = get_global_id(1);
    const int lid = get_local_id(0);
    const int lsize = get_local_size(0);
    const int seg_len = lsize * chunk;          /* outputs of this group */
    const int x0 = get_group_id(0) * seg_len;   /* first output */
    const int n = seg_len + kx - 1;             /* inputs needed */
    const int valid_row = y < height;
    if (valid_row) {
        __global const T *row = ROW(src, src_pitch, y);
        for (int i = lid; i < n; i += lsize) {
            const int sx = BORDER_INDEX(x0 - ax + i, width);
            const FN v = sx < 0 ? FN_ZERO : LOAD_PIX(src, row, sx);
            VSTORE(BOX_PRE(v, scale_x), i, seg);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int first = lid * chunk;
    const int last = min(chunk, width - x0 - first);
    if (valid_row && last > 0) {
        FN s = FN_ZERO;
        for (int t = 0; t < kx; t++)
            s += VLOAD(first + t, seg);
        __global float *out = sums + (size_t)y * (size_t)width * CN;
        GVSTORE(sums, s, x0 + first, out);
        for (int j = 1; j < last; j++) {
            s += VLOAD(first + j + kx - 1, seg) - VLOAD(first + j - 1, seg);
            GVSTORE(sums, s, x0 + first + j, out);
        }
    }
}

__kernel void box_cols(__global const float *sums, int width, int height, __global T *dst,
                       int dst_pitch, int ky, int ay, int chunk,
                       float scale /* f32: 1/ky (box_rows took 1/kx), else 1/(kx ky) */
                       CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(sums, 0);
    CLV_DBG_BUF(dst, 3);
    const int x = get_global_id(0);
    const int y0 = get_global_id(1) * chunk;
    if (x >= width || y0 >= height)
        return;
    const size_t pitch = (size_t)width * CN;
    FN s = FN_ZERO;
    for (int t = 0; t < ky; t++) {
        const int sy = BORDER_INDEX(y0 - ay + t, height);
        if (sy >= 0)
            s += BOX_PRE(GVLOAD(sums, x, sums + (size_t)sy * pitch), scale);
    }
    STORE_PIX(dst, ROW(dst, dst_pitch, y0), x, BOX_POST(s, scale));
    const int last = min(chunk, height - y0);
    for (int j = 1; j < last; j++) {
        const int yin = BORDER_INDEX(y0 + j - ay + ky - 1, height);
        const int yout = BORDER_INDEX(y0 + j - 1 - ay, height);
        if (yin >= 0)
            s += BOX_PRE(GVLOAD(sums, x, sums + (size_t)yin * pitch), scale);
        if (yout >= 0)
            s -= BOX_PRE(GVLOAD(sums, x, sums + (size_t)yout * pitch), scale);
        STORE_PIX(dst, ROW(dst, dst_pitch, y0 + j), x, BOX_POST(s, scale));
    }
}

/* Small windows (kx, ky <= BS_MAXK) in one pass, GPU-style: a BS_LX x BS_LY
 * work-group covers BS_LX x (BS_LY * BS_PY) outputs. It stages that tile plus
 * the window's halo in local memory once, sums each tile row over kx
 * columns into a second local array, and each work-item then runs down its
 * BS_PY consecutive rows of those sums (ky adds for the first, one add and
 * one subtract for each next). One read of the source and one write of the
 * destination; no scratch image. The four sizes come from the host (-D, from
 * box.c's box_tile, which says why they are what they are); it launches
 * exactly (BS_LX, BS_LY) work-groups. */
#if !defined(BS_LX) || !defined(BS_LY) || !defined(BS_MAXK) || !defined(BS_PY)
#error "box.cl needs -DBS_LX, -DBS_LY, -DBS_MAXK and -DBS_PY (box_small's tile, from box.c)"
#endif
#define BS_TY (BS_LY * BS_PY)
__kernel void box_small(__global const T *src, int src_pitch, int width, int height,
                        __global T *dst, int dst_pitch, int kx, int ky,
                        float scale CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    __local float tile[(BS_LX + BS_MAXK - 1) * (BS_TY + BS_MAXK - 1) * CN];
    __local float rsum[BS_LX * (BS_TY + BS_MAXK - 1) * CN];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int x0 = get_group_id(0) * BS_LX, y0 = get_group_id(1) * BS_TY;
    const int tw = BS_LX + kx - 1, th = BS_TY + ky - 1;
    /* no early return: every work-item reaches both barriers */
    const int bx = x0 - kx / 2, by = y0 - ky / 2;
    if (bx >= 0 && by >= 0 && bx + tw <= width && by + th <= height) {
        /* the whole tile inside the image: no border rule */
        for (int ty = ly; ty < th; ty += BS_LY) {
            __global const T *row = ROW(src, src_pitch, by + ty);
            for (int tx = lx; tx < tw; tx += BS_LX)
                VSTORE(BOX_PRE(LOAD_PIX(src, row, bx + tx), scale), ty * tw + tx, tile);
        }
    } else {
        for (int ty = ly; ty < th; ty += BS_LY) {
            const int sy = BORDER_INDEX(by + ty, height);
            for (int tx = lx; tx < tw; tx += BS_LX) {
                const int sx = BORDER_INDEX(bx + tx, width);
                VSTORE((sy < 0 || sx < 0) ? FN_ZERO
                                          : BOX_PRE(LOAD_PIX(src, ROW(src, src_pitch, sy), sx), scale),
                       ty * tw + tx, tile);
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int ty = ly; ty < th; ty += BS_LY) {
        FN s = FN_ZERO;
        for (int t = 0; t < kx; t++)
            s += VLOAD(ty * tw + lx + t, tile);
        VSTORE(s, ty * BS_LX + lx, rsum);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = x0 + lx;
    const int r0 = ly * BS_PY;
    FN s = FN_ZERO;
    for (int t = 0; t < ky; t++)
        s += VLOAD((r0 + t) * BS_LX + lx, rsum);
    for (int p = 0; p < BS_PY; p++) {
        const int r = r0 + p, y = y0 + r;
        if (p > 0)
            s += VLOAD((r + ky - 1) * BS_LX + lx, rsum) - VLOAD((r - 1) * BS_LX + lx, rsum);
        if (x < width && y < height)
            STORE_PIX(dst, ROW(dst, dst_pitch, y), x, BOX_POST(s, scale));
    }
}

#ifdef BR_KX
/* box_reg's and box_regf's window (-DBR_KX, BR_KY, BR_PY from box.c): a
 * work-item's 4 output values read the groups of 4 values (u8: 4-byte
 * words, f32: 16-byte vectors) that hold them and the window's reach on
 * each side. */
#define BR_AX (BR_KX / 2)
#define BR_AY (BR_KY / 2)
#define BR_WL ((BR_AX * CN + 3) / 4)               /* groups left of the 4 values */
#define BR_WR (((BR_KX - 1 - BR_AX) * CN + 3) / 4) /* groups right of them */
#define BR_NW (BR_WL + 1 + BR_WR)
#define BR_OFF (BR_WL * 4 - BR_AX * CN) /* v[] index of output value 0's first term */
#endif

#if defined(DEPTH_U8) && defined(BR_KX)
/* u8 windows up to BS_MAXK in registers, GPU-style, no local memory and no
 * barrier: a work-item makes 4 consecutive output values (one aligned
 * 4-byte store) of BR_PY consecutive rows, walking down them with the last
 * ky source rows' sums along x in registers. Along a flattened row of
 * width * CN values, output value e is the sum of values e + t * CN for t in
 * [-ax, kx - 1 - ax], so each step reads one new source row as BR_NW
 * aligned 4-byte loads (the 4 values and the window's reach on each side,
 * rounded out to whole words), sums it along the row into 4 integers, and
 * adds the window's rows down. The window, its rows per work-item and the
 * channel count are compiled in (-DBR_KX, BR_KY, BR_PY from box.c). Near the
 * row ends and past the last row the loads go value by value through the
 * border rule. The aligned loads and stores rely on rows starting on
 * 64-byte boundaries (image.c's PITCH_ALIGN). The result is box_small's
 * exactly: the same float product and rounding of the same integer sum. */

/* Source row sy (-1: the constant border's zeros) summed along x at the
 * work-item's 4 values e0 .. e0 + 3 (clv_u8_span's loads). */
static inline int4 box_reg_row(__global const uchar *restrict src CLV_DBG_PARAM(src),
                               int src_pitch, int sy, int e0, int inside, int width)
{
    int v[BR_NW * 4];
    clv_u8_span(src CLV_DBG_PASS(src), src_pitch, sy, e0 - BR_WL * 4, BR_NW, inside, width, v);
    int hs[4];
    CLV_UNROLL
    for (int k = 0; k < 4; k++) {
        int s = 0;
        CLV_UNROLL
        for (int t = 0; t < BR_KX; t++)
            s += v[BR_OFF + k + t * CN];
        hs[k] = s;
    }
    return (int4)(hs[0], hs[1], hs[2], hs[3]);
}

/* The work-items whose rows and words all lie inside the image (nearly
 * all of them): the loop unrolled over the BR_PY rows and the ky - 1 above
 * them, each source row's words loaded straight (one pointer stepping down
 * by the pitch, no border rule), the sums in packed 16-bit lanes two values
 * to a word (SWAR): even = values 0 and 2 (low, high lane), odd = 1 and 3.
 * br_pair(w, d): values d and d + 2 of the words w (d relative to value 0,
 * a constant once unrolled) as two lanes. Down the rows each lane keeps
 * the window's sum (one row added, the row leaving it subtracted after the
 * store); kx (ky + 1) 255 < 2^16 (box.c keeps the window within BS_MAXK)
 * keeps every lane inside its 16 bits, so no carry crosses lanes. The
 * integer sums are the loop's below, so the result is the same. */
#ifndef __ENDIAN_LITTLE__
#error "box_reg reads bytes out of words in little-endian order"
#endif
#if BR_KX * (BR_KY + 1) * 255 > 65535
#error "box_reg's 16-bit lanes would overflow: kx (ky + 1) 255 must stay below 2^16"
#endif
static inline uint br_pair(const uint *w, int d)
{
    const int b = d + 4 * BR_WL, i = b >> 2;
    switch (b & 3) {
    case 0:
        return w[i] & 0x00ff00ffu;
    case 1:
        return (w[i] >> 8) & 0x00ff00ffu;
    case 2:
        return ((w[i] >> 16) & 0xffu) | ((w[i + 1] & 0xffu) << 16);
    default:
        return (w[i] >> 24) | (((w[i + 1] >> 8) & 0xffu) << 16);
    }
}

__kernel void box_reg(__global const uchar *restrict src, int src_pitch, int width, int height,
                      __global uchar *restrict dst, int dst_pitch, float scale CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    const int nvals = width * CN;
    const int xw = get_global_id(0), e0 = xw * 4, y0 = get_global_id(1) * BR_PY;
    if (e0 >= nvals || y0 >= height)
        return;
    /* every word this work-item loads lies inside the row's values */
    const int inside = xw >= BR_WL && e0 + 4 * (1 + BR_WR) <= nvals;
    if (inside && y0 >= BR_AY && y0 + BR_PY + BR_KY - 1 - BR_AY <= height) {
        __global const uchar *p = ROW(src, src_pitch, y0 - BR_AY) + e0 - 4 * BR_WL;
        __global uchar *q = ROW(dst, dst_pitch, y0) + e0;
        uint he[BR_KY], ho[BR_KY], se = 0, so = 0;
        CLV_UNROLL
        for (int j = 0; j < BR_PY + BR_KY - 1; j++) {
            uint w[BR_NW];
            CLV_UNROLL
            for (int i = 0; i < BR_NW; i++)
                w[i] = as_uint(GVLDA(uchar4, src, p + 4 * i));
            p += src_pitch;
            uint ev = 0, od = 0;
#if CN == 1
            CLV_UNROLL
            for (int t = 0; t < BR_KX; t++)
                ev += br_pair(w, t - BR_AX);
            od = ev - br_pair(w, -BR_AX) + br_pair(w, BR_KX - BR_AX);
#else
            CLV_UNROLL
            for (int t = 0; t < BR_KX; t++) {
                ev += br_pair(w, (t - BR_AX) * CN);
                od += br_pair(w, 1 + (t - BR_AX) * CN);
            }
#endif
            he[j % BR_KY] = ev;
            ho[j % BR_KY] = od;
            se += ev;
            so += od;
            if (j >= BR_KY - 1) {
                const int4 s = (int4)(se & 0xffffu, so & 0xffffu, se >> 16, so >> 16);
                /* no clamp: 0 <= s <= kx ky 255 and scale is 1 / (kx ky)
                 * (box.c), so the value lies in [0.5, 256) and truncates as
                 * the clamped one below does */
                GVSTA(uchar4, dst, convert_uchar4(convert_float4(s) * scale + 0.5f), q);
                q += dst_pitch;
                se -= he[(j + 1) % BR_KY];
                so -= ho[(j + 1) % BR_KY];
            }
        }
        return;
    }
    /* h[t]: source row y - ay + t along x, for the output row y in hand */
    int4 h[BR_KY];
    CLV_UNROLL
    for (int t = 1; t < BR_KY; t++)
        h[t] = box_reg_row(src CLV_DBG_PASS(src), src_pitch,
                           BORDER_INDEX(y0 - BR_AY + t - 1, height), e0, inside, width);
    const int rows = min(BR_PY, height - y0);
    CLV_NO_UNROLL
    for (int p = 0; p < rows; p++) {
        CLV_UNROLL
        for (int t = 0; t + 1 < BR_KY; t++)
            h[t] = h[t + 1];
        h[BR_KY - 1] = box_reg_row(src CLV_DBG_PASS(src), src_pitch,
                                   BORDER_INDEX(y0 + p - BR_AY + BR_KY - 1, height), e0, inside,
                                   width);
        int4 s = 0;
        CLV_UNROLL
        for (int t = 0; t < BR_KY; t++)
            s += h[t];
        clv_u8_store4(dst CLV_DBG_PASS(dst), ROW(dst, dst_pitch, y0 + p) + e0,
                      convert_uchar4(clamp(convert_float4(s) * scale + 0.5f, 0.0f, 255.0f)),
                      nvals - e0);
    }
}
#endif

#if (defined(DEPTH_F32) || defined(DEPTH_U16)) && defined(BR_KX)
/* f32 windows up to BS_MAXK in registers, GPUs (box_reg's design): a
 * work-item makes 4 consecutive values of a flattened row (one aligned
 * 16-byte store) of BR_PY consecutive rows, walking down them with the last
 * ky source rows' sums along x in registers. Each source row is read as
 * BR_NW aligned 16-byte vectors (the 4 values and the window's reach on
 * each side, rounded out to whole vectors), near the row ends value by
 * value through the border rule (clv_border_value_near: the host takes this
 * kernel only for rows wide enough, CLV__SPAN_FITS). Every value is scaled
 * as it is loaded, as in box_small (sums of values near FLT_MAX stay
 * finite), and each output is the sum of its window's ky row sums, not a
 * running sum: no drift down the rows, and a NaN or infinity leaves the
 * outputs whose windows hold it. Rows start on 64-byte boundaries
 * (image.c's PITCH_ALIGN). */

/* Source row sy (-1: the constant border's zeros), scaled, summed along x at
 * the work-item's 4 values e0 .. e0 + 3. */
static inline float4 box_regf_row(__global const T *src CLV_DBG_PARAM(src), int src_pitch,
                                  int sy, int e0, int inside, int width, float scale)
{
    float v[BR_NW * 4];
    clv_f32_span4(src CLV_DBG_PASS(src), src_pitch, sy, e0 - 4 * BR_WL, BR_NW, inside, width,
                  scale, v);
    float hs[4];
    CLV_UNROLL
    for (int k = 0; k < 4; k++) {
        float s = 0.0f;
        CLV_UNROLL
        for (int t = 0; t < BR_KX; t++)
            s += v[BR_OFF + k + t * CN];
        hs[k] = s;
    }
    return (float4)(hs[0], hs[1], hs[2], hs[3]);
}

__kernel void box_regf(__global const T *restrict src, int src_pitch, int width, int height,
                       __global T *restrict dst, int dst_pitch, float scale CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    const int nvals = width * CN;
    const int xw = get_global_id(0), e0 = xw * 4, y0 = get_global_id(1) * BR_PY;
    if (e0 >= nvals || y0 >= height)
        return;
    /* every vector this work-item loads lies inside the row's values */
    const int inside = xw >= BR_WL && e0 + 4 * (1 + BR_WR) <= nvals;
    /* every row it reads lies inside the image: no border rule per row */
    const int rows_in = y0 >= BR_AY && y0 + BR_PY + BR_KY - 1 - BR_AY <= height;
    __global T *q = ROW(dst, dst_pitch, y0) + e0;
    if (rows_in && inside && e0 + 4 <= nvals) {
        /* nearly all work-items: the rows unrolled, so all their loads can
         * be in flight at once (H100, 3840x2160 5x5: one channel 34.2-34.9
         * us against the loop's 36.7-38.0, three 86.5-87.0 against
         * 119.7-120.9) */
        float4 hr[BR_PY + BR_KY - 1];
        CLV_UNROLL
        for (int j = 0; j < BR_PY + BR_KY - 1; j++)
            hr[j] = box_regf_row(src CLV_DBG_PASS(src), src_pitch, y0 - BR_AY + j, e0, 1, width,
                                 scale);
        CLV_UNROLL
        for (int r = 0; r < BR_PY; r++) {
            float4 s = hr[r];
            CLV_UNROLL
            for (int t = 1; t < BR_KY; t++)
                s += hr[r + t];
            GVSTA(CAT(T, 4), dst, CLV_F4_OUT(s), q);
            q += dst_pitch;
        }
        return;
    }
    /* h[t]: source row y - ay + t along x, for the output row y in hand */
    float4 h[BR_KY];
    CLV_UNROLL
    for (int t = 1; t < BR_KY; t++) {
        const int y = y0 - BR_AY + t - 1;
        h[t] = box_regf_row(src CLV_DBG_PASS(src), src_pitch, rows_in ? y : BORDER_INDEX(y, height),
                            e0, inside, width, scale);
    }
    const int rows = min(BR_PY, height - y0);
    CLV_NO_UNROLL
    for (int p = 0; p < rows; p++) {
        CLV_UNROLL
        for (int t = 0; t + 1 < BR_KY; t++)
            h[t] = h[t + 1];
        const int y = y0 + p - BR_AY + BR_KY - 1;
        h[BR_KY - 1] = box_regf_row(src CLV_DBG_PASS(src), src_pitch,
                                    rows_in ? y : BORDER_INDEX(y, height), e0, inside, width,
                                    scale);
        float4 s = h[0];
        CLV_UNROLL
        for (int t = 1; t < BR_KY; t++)
            s += h[t];
        clv_f32_store4(dst CLV_DBG_PASS(dst), q, s, nvals - e0);
        q += dst_pitch;
    }
}
#endif

#ifdef DEPTH_U8
/* u8 windows of any height, GPUs, second of two passes through a u16 image
 * of row sums (box_wh makes it): a work-item makes 8 consecutive values of
 * a flattened row (one aligned 8-byte store) in `rows` consecutive rows,
 * walking down them with the window's column sums in registers: ky - 1
 * rows to start, then per row one 16-byte load added, the row leaving the
 * window subtracted (read again: ky rows back, in the cache). Sums stay
 * integers (ky * 255 * kx < 2^32), so the result is box_small's exactly:
 * the same float product and rounding of the same integer sum. Rows of the
 * sums start on 32-byte boundaries (box.c pads them to 16 values). */
__kernel void box_wv(__global const ushort *restrict sums, int sums_pitch, int nvals, int height,
                     __global uchar *restrict dst, int dst_pitch, int ky, int ay, int rows,
                     float scale CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(sums, 0);
    CLV_DBG_BUF(dst, 4);
    const int e0 = get_global_id(0) * 8, y0 = get_global_id(1) * rows;
    if (e0 >= nvals || y0 >= height)
        return;
    uint8 s = 0;
    if (y0 >= ay && y0 + rows - ay + ky - 1 <= height && e0 + 8 <= nvals) {
        /* every row it reaches lies inside the image and its 8 values
         * inside the row (nearly all work-items): pointers stepping down by
         * the pitch, no border rule, whole stores, no clamp (s <= kx ky 255
         * and scale = 1 / (kx ky), so the value lies in [0.5, 256)) */
        __global const ushort *pin = ROW(sums, sums_pitch, y0 - ay) + e0;
        __global const ushort *pout = pin;
        __global uchar *q = ROW(dst, dst_pitch, y0) + e0;
        for (int t = 0; t + 1 < ky; t++) {
            s += convert_uint8(GVLDA(ushort8, sums, pin));
            pin += sums_pitch;
        }
        for (int p = 0; p < rows; p++) {
            s += convert_uint8(GVLDA(ushort8, sums, pin));
            pin += sums_pitch;
            GVSTA(uchar8, dst, convert_uchar8(convert_float8(s) * scale + 0.5f), q);
            q += dst_pitch;
            s -= convert_uint8(GVLDA(ushort8, sums, pout));
            pout += sums_pitch;
        }
        return;
    }
    for (int t = 0; t + 1 < ky; t++) {
        const int sy = BORDER_ROW(y0 - ay + t, height);
        if (sy >= 0)
            s += convert_uint8(GVLDA(ushort8, sums, ROW(sums, sums_pitch, sy) + e0));
    }
    const int n = min(rows, height - y0);
    for (int p = 0; p < n; p++) {
        const int yin = BORDER_ROW(y0 + p - ay + ky - 1, height);
        if (yin >= 0)
            s += convert_uint8(GVLDA(ushort8, sums, ROW(sums, sums_pitch, yin) + e0));
        clv_u8_store8(dst CLV_DBG_PASS(dst), ROW(dst, dst_pitch, y0 + p) + e0,
                      convert_uchar8(clamp(convert_float8(s) * scale + 0.5f, 0.0f, 255.0f)),
                      nvals - e0);
        const int yout = BORDER_ROW(y0 + p - ay, height);
        if (yout >= 0)
            s -= convert_uint8(GVLDA(ushort8, sums, ROW(sums, sums_pitch, yout) + e0));
    }
}
#endif

#if (defined(DEPTH_F32) || defined(DEPTH_U16)) && defined(BF_KX)
/* f32 windows too wide for box_small, GPUs, first of two passes (box_wvf
 * is the second): a work-item sums 16 consecutive values of a flattened
 * source row over the window's BF_KX columns (compiled in, with CN), each
 * value scaled by 1 / kx as it is loaded, into four aligned 16-byte stores
 * of the float image of row sums (rows padded to 16 values: values past
 * the row's last land in the padding). Along the row, output value e is
 * the sum of values e + t * CN, t in [-ax, kx - 1 - ax], each summed
 * afresh (no running sum along the row). It loads whole aligned 16-byte
 * vectors: its own 4 and BF_WL / BF_WR more on each side for the window's
 * reach (box.c takes this pass only while they are few); near the row ends
 * value by value through the border rule. */
#define BF_AX (BF_KX / 2)
#define BF_WL ((BF_AX * CN + 3) / 4)               /* vectors left of the 16 values */
#define BF_WR (((BF_KX - 1 - BF_AX) * CN + 3) / 4) /* right of them */
#define BF_NW (BF_WL + 4 + BF_WR)
#define BF_OFF (BF_WL * 4 - BF_AX * CN) /* v[] index of output value 0's first term */
__kernel void box_whf(__global const T *restrict src, int src_pitch, int width, int height,
                      __global float *restrict sums, int sums_pitch, float scale CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(sums, 4);
    const int nvals = width * CN;
    const int xw = get_global_id(0), e0 = xw * 16, y = get_global_id(1);
    if (e0 >= nvals || y >= height)
        return;
    const int inside = 4 * xw >= BF_WL && e0 + 4 * (4 + BF_WR) <= nvals;
    __global float *out = ROW(sums, sums_pitch, y) + e0;
#if BF_WL > 12 || BF_WR > 12
    /* reaches past 48 values (box.c's widef_reach allows 64): the span
     * streamed, a vector at a time, each value added into the outputs whose
     * window holds it, in the same order as below (so the same sums), with
     * 16 sums and one vector in registers instead of the whole span */
    float o[16];
    CLV_UNROLL
    for (int k = 0; k < 16; k++)
        o[k] = 0.0f;
    CLV_UNROLL
    for (int w = 0; w < BF_NW; w++) {
        float v4[4];
        clv_f32_span4(src CLV_DBG_PASS(src), src_pitch, y, e0 - 4 * BF_WL + 4 * w, 1, inside,
                      width, scale, v4);
        CLV_UNROLL
        for (int j = 0; j < 4; j++) {
            CLV_UNROLL
            for (int k = 0; k < 16; k++) {
                const int d = 4 * w + j - BF_OFF - k; /* t * CN for output k's tap t */
                if (d >= 0 && d % CN == 0 && d / CN < BF_KX)
                    o[k] += v4[j];
            }
        }
    }
    CLV_UNROLL
    for (int q = 0; q < 4; q++)
        GVSTA(float4, sums, (float4)(o[4 * q], o[4 * q + 1], o[4 * q + 2], o[4 * q + 3]),
              out + 4 * q);
#else
    float v[BF_NW * 4];
    clv_f32_span4(src CLV_DBG_PASS(src), src_pitch, y, e0 - 4 * BF_WL, BF_NW, inside, width,
                  scale, v);
    CLV_UNROLL
    for (int q = 0; q < 4; q++) {
        float o[4];
        CLV_UNROLL
        for (int k = 0; k < 4; k++) {
            float s = 0.0f;
            CLV_UNROLL
            for (int t = 0; t < BF_KX; t++)
                s += v[BF_OFF + 4 * q + k + t * CN];
            o[k] = s;
        }
        GVSTA(float4, sums, (float4)(o[0], o[1], o[2], o[3]), out + 4 * q);
    }
#endif
}
#endif

#if (defined(DEPTH_F32) || defined(DEPTH_U16)) && defined(BF_COLS)
/* f32 windows too wide for box_small, GPUs, second of two passes through a
 * float image of row sums (box_whf makes it, each value scaled by 1 / kx):
 * a work-item makes 4 consecutive values of a flattened row
 * (one aligned 16-byte store) in `rows` consecutive rows, walking down them
 * with the window's column sums in registers, each term scaled by 1 / ky as
 * it is loaded (as box_cols: sums of values near FLT_MAX stay finite): ky - 1
 * rows to start, then per row one 16-byte load added and the row leaving the
 * window subtracted (read again: ky rows back, in the cache). Rows of the
 * sums start on 64-byte boundaries (box.c pads them to 16 values). */
__kernel void box_wvf(__global const float *restrict sums, int sums_pitch, int nvals, int height,
                      __global T *restrict dst, int dst_pitch, int ky, int ay, int rows,
                      float scale CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(sums, 0);
    CLV_DBG_BUF(dst, 4);
    const int e0 = get_global_id(0) * 4, y0 = get_global_id(1) * rows;
    if (e0 >= nvals || y0 >= height)
        return;
    /* every row it reaches lies inside the image (nearly all work-items):
     * no border rule per row */
    const int rows_in = y0 >= ay && y0 + rows - ay + ky - 1 <= height;
    float4 s = 0.0f;
    for (int t = 0; t + 1 < ky; t++) {
        const int sy = rows_in ? y0 - ay + t : BORDER_INDEX(y0 - ay + t, height);
        if (sy >= 0)
            s += GVLDA(float4, sums, ROW(sums, sums_pitch, sy) + e0) * scale;
    }
    const int n = min(rows, height - y0);
    __global T *q = ROW(dst, dst_pitch, y0) + e0;
    for (int p = 0; p < n; p++) {
        const int yin = y0 + p - ay + ky - 1, yout = y0 + p - ay;
        const int si = rows_in ? yin : BORDER_INDEX(yin, height);
        if (si >= 0)
            s += GVLDA(float4, sums, ROW(sums, sums_pitch, si) + e0) * scale;
        clv_f32_store4(dst CLV_DBG_PASS(dst), q, s, nvals - e0);
        q += dst_pitch;
        const int so = rows_in ? yout : BORDER_INDEX(yout, height);
        if (so >= 0)
            s -= GVLDA(float4, sums, ROW(sums, sums_pitch, so) + e0) * scale;
    }
}
#endif

#if defined(DEPTH_U8) && defined(BW_KX)
/* The first pass: a work-item sums 16 consecutive values of a flattened
 * source row over the window's BW_KX columns (compiled in, with CN) into
 * one aligned 16-value store of u16 (kx * 255 < 2^16). Along the row,
 * output value e is the sum of values e + t * CN, t in [-ax, kx - 1 - ax]:
 * the first CN outputs add their kx terms, each next one slides (one term
 * in, one out). It loads whole aligned 16-byte vectors: its own and
 * BW_WL / BW_WR more on each side for the window's reach (box.c takes this
 * pass only while they are few); near the row ends value by value through
 * the border rule. Values past the row's last land in the sums' padding. */
#define BW_AX (BW_KX / 2)
#define BW_WL ((BW_AX * CN + 15) / 16)               /* vectors left of the 16 values */
#define BW_WR (((BW_KX - 1 - BW_AX) * CN + 15) / 16) /* right of them */
#define BW_NV (BW_WL + 1 + BW_WR)
#define BW_OFF (BW_WL * 16 - BW_AX * CN) /* v[] index of output value 0's first term */
__kernel void box_wh(__global const uchar *restrict src, int src_pitch, int width, int height,
                     __global ushort *restrict sums, int sums_pitch CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(sums, 4);
    const int nvals = width * CN;
    const int xw = get_global_id(0), e0 = xw * 16, y = get_global_id(1);
    if (e0 >= nvals || y >= height)
        return;
    __global const uchar *row = ROW(src, src_pitch, y);
    /* the loaded values stay packed, 4 to a word (clv_u8_words16), each
     * taken out where it is used (H100, 31x31, 3840x2160, device us, three
     * interleaved rounds, run_gpu.sh bwh: three channels 115.6-117.9 against
     * 130.5-132.1 with an int per value, one channel 31.5-31.7 against
     * 32.9-33.9; 1920x1080 within 1 us) */
    uint wd[BW_NV * 4];
    clv_u8_words16(src CLV_DBG_PASS(src), row, e0 - 16 * BW_WL, BW_NV,
                   xw >= BW_WL && e0 + 16 * (1 + BW_WR) <= nvals, width, wd);
#define BW_V(i) ((int)CLV_U8_WORD(wd, i))
    int o[16];
    CLV_UNROLL
    for (int c = 0; c < CN; c++) {
        int s = 0;
        CLV_UNROLL
        for (int t = 0; t < BW_KX; t++)
            s += BW_V(BW_OFF + c + t * CN);
        o[c] = s;
    }
    CLV_UNROLL
    for (int k = CN; k < 16; k++)
        o[k] = o[k - CN] + BW_V(BW_OFF + k + (BW_KX - 1) * CN) - BW_V(BW_OFF + k - CN);
#undef BW_V
    GVSTA(ushort16, sums, convert_ushort16(CLV_JOIN16(int16, o)), ROW(sums, sums_pitch, y) + e0);
}
#endif

#ifdef VEC
/* Value v(x, c) of a row of sums at pixel x, channel c, through the border. */
static inline float box_value(__global const float *row CLV_DBG_PARAM(row), int x, int c, int width)
{
    const int sx = BORDER_INDEX(x, width);
    return sx < 0 ? 0.0f : GLD(row, row, sx * CN + c);
}

#if VEC != 16
#error "box_scan_row is written for VEC == 16"
#endif

/* Strided prefix sum inside a 16-lane vector: lane l gets the sum of lanes
 * l, l-CN, l-2CN, ...: log2(16 / CN) steps, each adding the vector moved up
 * k lanes (zeros below). The moves are vector literals of swizzles, which
 * the compiler itself turns into single permutes: PoCL 5 (LLVM 16) ran the
 * same moves written with the shuffle2() built-in six times slower than
 * PoCL 3 per thread (1920x1080 u8 5x5 on one Xeon thread: 16.3 ms; on this
 * machine's 2 cores 1.3). box_carry picks, for each lane, the last lane of
 * the vector holding the same channel. */
static inline float16 box_up1(float16 p)
{
    return p + (float16)(0.0f, p.s0, p.s12, p.s3456, p.s789abcde);
}
static inline float16 box_up2(float16 p)
{
    return p + (float16)((float2)(0.0f), p.s01, p.s2345, p.s6789abcd);
}
static inline float16 box_up3(float16 p)
{
    return p + (float16)((float3)(0.0f), p.s012, p.s3456789a, p.sbc);
}
static inline float16 box_up4(float16 p)
{
    return p + (float16)((float4)(0.0f), p.s01234567, p.s89ab);
}
static inline float16 box_up6(float16 p)
{
    return p + (float16)((float4)(0.0f), (float2)(0.0f), p.s01234567, p.s89);
}
static inline float16 box_up8(float16 p)
{
    return p + (float16)((float8)(0.0f), p.s01234567);
}
static inline float16 box_up12(float16 p)
{
    return p + (float16)((float8)(0.0f), (float4)(0.0f), p.s0123);
}
#if CN == 1
#define BOX_SCAN(p) box_up8(box_up4(box_up2(box_up1(p))))
#define BOX_CARRY(v) ((float16)((v).sf))
#elif CN == 2
#define BOX_SCAN(p) box_up8(box_up4(box_up2(p)))
#define BOX_CARRY(v) ((v).sefefefefefefefef)
#elif CN == 3
#define BOX_SCAN(p) box_up12(box_up6(box_up3(p)))
#define BOX_CARRY(v) ((v).sdefdefdefdefdefd)
#elif CN == 4
#define BOX_SCAN(p) box_up8(box_up4(p))
#define BOX_CARRY(v) ((v).scdefcdefcdefcdef)
#endif

/* Horizontal running sums of a row of vertical sums, scaled, -> the output
 * row. Values e and e - CN (same channel, previous pixel) are linked by
 *     S(e) = S(e - CN) + v(x - ax + kx, c) - v(x - ax - 1, c)  (x = e / CN)
 * Inside the row this runs 16 values at a time: the differences are two
 * unaligned vector loads, the recurrence within the vector is a prefix sum
 * with stride CN (log2(16 / CN) shuffles) plus the carry from the previous
 * vector. Near the row ends it runs value by value through the border rule.
 * The cost per value does not depend on kx. */
static inline void box_scan_row(__global const float *sums CLV_DBG_PARAM(sums),
                         __global const float *row, __global T *dst CLV_DBG_PARAM(dst),
                         __global T *out, int width, int kx, int ax, float scale)
{
    const int nvals = width * CN, s0 = 0, s1 = nvals;
    const int ahead = (kx - 1 - ax) * CN; /* value offset of the entering term */
    const int behind = (ax + 1) * CN;     /* value offset of the leaving term */

    float last[CN];
    /* The first pixel (or its first CN values) directly. */
    const int head_end = min(s0 + CN, s1);
    for (int e = s0; e < head_end; e++) {
        const int x = e / CN, c = e - x * CN;
        float acc = 0.0f;
        for (int t = 0; t < kx; t++)
            acc += box_value(row CLV_DBG_PASS(sums), x - ax + t, c, width);
        last[c] = acc;
        GST(dst, out, e, FROM_FN_SCALAR(BOX_POST(acc, scale)));
    }
    /* Vector blocks [v0, v1): multiples of 16 after the head, whose leaving
     * term is at or after the row start and whose entering term is inside. */
    int v0 = (max(head_end, behind) + 15) & ~15;
    int v1 = min(s1, nvals - ahead) & ~15;
    if (v1 <= v0) {
        v0 = s1; /* no vector block: the scalar loop does the row */
        v1 = s1;
    }
    for (int e = head_end; e < v0; e++) {
        const int x = e / CN, c = e - x * CN;
        last[c] += box_value(row CLV_DBG_PASS(sums), x - ax + kx - 1, c, width) -
                   box_value(row CLV_DBG_PASS(sums), x - ax - 1, c, width);
        GST(dst, out, e, FROM_FN_SCALAR(BOX_POST(last[c], scale)));
    }
    if (v1 > v0) {
        float16 carry;
        float cbuf[16];
        for (int l = 0; l < 16; l++)
            cbuf[l] = last[(v0 + l) % CN];
        carry = vload16(0, cbuf);
        for (int e = v0; e < v1; e += 16) {
            const float16 d = VLOADF_AT(sums, e + ahead, row) - VLOADF_AT(sums, e - behind, row);
            const float16 sv = BOX_SCAN(d) + carry;
            VSTORET_AT(dst, FROM_FV(BOX_POST(sv, scale)), e, out);
            carry = BOX_CARRY(sv);
        }
        vstore16(carry, 0, cbuf);
        for (int l = 0; l < CN; l++)
            last[(v1 + l) % CN] = cbuf[l];
    }
    for (int e = max(v1, head_end); e < s1; e++) {
        const int x = e / CN, c = e - x * CN;
        last[c] += box_value(row CLV_DBG_PASS(sums), x - ax + kx - 1, c, width) -
                   box_value(row CLV_DBG_PASS(sums), x - ax - 1, c, width);
        GST(dst, out, e, FROM_FN_SCALAR(BOX_POST(last[c], scale)));
    }
}

/* CPU variant, both passes in one, by bands of `chunk` output rows over the
 * whole width: a work-item keeps the vertical running sums of one row
 * (nvals floats, its row of `work`, wpitch >= nvals rounded up to 16) and
 * for each output row updates them (one row in, one out: two vector loads
 * and a store per vector, whatever ky) and runs box_scan_row over them. The
 * row of sums stays in the core's cache: no float image goes through memory
 * (the former two passes wrote and read one).
 * Launch one work-item per work-group. */
__kernel void box_band_vec(__global const T *src, int src_pitch, int width, int height,
                           __global T *dst, int dst_pitch, int kx, int ky, int ax, int ay,
                           float scale, int chunk, __global float *work,
                           int wpitch CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    CLV_DBG_BUF(work, 12);
    const int y0 = get_global_id(0) * chunk;
    if (y0 >= height)
        return;
    const int nvals = width * CN;
    __global float *cs = work + (size_t)get_global_id(0) * (size_t)wpitch;
    for (int e = 0; e < nvals; e += VEC)
        VSTOREF_AT(work, (FV)(0.0f), e, cs);
    for (int t = 0; t < ky; t++) { /* row by row: the loads run along rows */
        const int sy = BORDER_INDEX(y0 - ay + t, height);
        if (sy < 0)
            continue;
        __global const T *r = ROW(src, src_pitch, sy);
        for (int e = 0; e < nvals; e += VEC)
            VSTOREF_AT(work, VLOADF_AT(work, e, cs) + BOX_PRE(TO_FV(VLOADT_AT(src, e, r)), scale),
                       e, cs);
    }
    box_scan_row(work CLV_DBG_PASS(work), cs, dst CLV_DBG_PASS(dst), ROW(dst, dst_pitch, y0),
                 width, kx, ax, scale);
    const int last = min(chunk, height - y0);
    for (int j = 1; j < last; j++) {
        const int yin = BORDER_INDEX(y0 + j - ay + ky - 1, height);
        const int yout = BORDER_INDEX(y0 + j - 1 - ay, height);
        __global const T *rin = ROW(src, src_pitch, yin < 0 ? 0 : yin);
        __global const T *rout = ROW(src, src_pitch, yout < 0 ? 0 : yout);
        for (int e = 0; e < nvals; e += VEC) {
            FV s = VLOADF_AT(work, e, cs);
            if (yin >= 0)
                s += BOX_PRE(TO_FV(VLOADT_AT(src, e, rin)), scale);
            if (yout >= 0)
                s -= BOX_PRE(TO_FV(VLOADT_AT(src, e, rout)), scale);
            VSTOREF_AT(work, s, e, cs);
        }
        box_scan_row(work CLV_DBG_PASS(work), cs, dst CLV_DBG_PASS(dst),
                     ROW(dst, dst_pitch, y0 + j), width, kx, ax, scale);
    }
}
#endif
