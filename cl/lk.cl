/* Pyramidal Lucas-Kanade point tracking, one launch per pyramid level (coarse
 * to fine), OpenCV calcOpticalFlowPyrLK's algorithm in float:
 *
 *   prev point p = in / 2^L, guess q = (top level: in or the initial flow,
 *   / 2^L; below: 2 q of the level above); window top-left corners p - h,
 *   q - h with h = ((W-1)/2, (H-1)/2).
 *   Patch: I, Ix, Iy of prev sampled bilinearly at p - h + (x, y); I reads
 *   the image through reflect101, Ix/Iy are Scharr/32 on the image
 *   (reflect101 inside) and 0 outside it. Intensities in u8 units (ISCALE).
 *   G = sum [Ix Ix, Ix Iy; Ix Iy, Iy Iy]; lost when
 *   lambda_min(G) / (1024 W H) < min_eig or det(G) / 1024^2 < FLT_EPSILON
 *   (OpenCV's fixed-point scaling, so its thresholds carry over).
 *   Iterate: b = sum (J(q - h + (x, y)) - I) (Ix, Iy), J bilinear through
 *   reflect101; delta = -G^-1 b; stop when |delta|^2 <= eps^2, or when two
 *   successive updates cancel (|d_j + d_j-1| < 0.01 per axis: step back d/2).
 *   A window corner floor(.) outside [-W, cols) x [-H, rows) means lost.
 *   Status is decided at level 0 only (coarser failures skip that level).
 *   err (level 0) = mean |J - I| over the window, u8 units; 0 when lost.
 *
 * Per-point state between launches: state[i] = current guess (centre, this
 * level's coordinates), status[i], err[i].
 *
 * Needs DEPTH_*, CN=1. Variants: VEC (CPU: one work-item per point, rows
 * in float8 vectors) or generic (one work-group per point, pixels spread over
 * the work-items, sums through local memory); PATCH_GLOBAL keeps the
 * per-point scratch (the patch, 3 W H floats, plus the CPU variant's
 * staging tile) in a global buffer instead of local memory. */

#if !defined(CN) || CN != 1
#error "lk.cl needs CN == 1"
#endif

#if defined(DEPTH_U8)
#define ISCALE 1.0f
#elif defined(DEPTH_U16)
#define ISCALE (1.0f / 257.0f)
#else
#define ISCALE 255.0f
#endif

#ifdef PATCH_GLOBAL
#define PATCH_SPACE __global
#else
#define PATCH_SPACE __local
#endif

/* Accesses to the per-point scratch p (any pointer into it): with
 * PATCH_GLOBAL it is the buffer argument `patch` and goes through the
 * checked accessors; helpers touching it take PATCH_DBG_PARAM after their
 * last scratch pointer parameter and are called with PATCH_DBG_PASS. */
#ifdef PATCH_GLOBAL
#define PLD(p, i) GLD(patch, p, i)
#define PST(p, i, v) GST(patch, p, i, v)
#define PVLD8(p) GVLD(8, patch, 0, p)
#define PVST8(v, p) GVST(8, patch, v, 0, p)
#define PATCH_DBG_PARAM CLV_DBG_PARAM(patch)
#define PATCH_DBG_PASS CLV_DBG_PASS(patch)
#else
#define PLD(p, i) (p)[i]
#define PST(p, i, v) (p)[i] = (v)
#define PVLD8(p) vload8(0, (p))
#define PVST8(v, p) vstore8((v), 0, (p))
#define PATCH_DBG_PARAM
#define PATCH_DBG_PASS
#endif

#define LK_FLT_EPSILON 1.1920929e-7f

/* Image value at integer (x, y), reflect101 outside the image. */
static inline float lk_img(__global const T *img CLV_DBG_PARAM(img), int pitch, int cols, int rows,
                    int x, int y)
{
    x = clv_border_index(x, cols, BORDER_REFLECT101);
    y = clv_border_index(y, rows, BORDER_REFLECT101);
    return convert_float(GLD(img, ROW(img, pitch, y), x));
}

/* Raw Scharr derivative (32 x the gradient) at integer (x, y): reflect101
 * neighbours inside the image, 0 outside it. */
static inline float2 lk_deriv(__global const T *img CLV_DBG_PARAM(img), int pitch, int cols, int rows,
                       int x, int y)
{
    if (x < 0 || x >= cols || y < 0 || y >= rows)
        return (float2)(0.0f);
    const int xm = clv_border_index(x - 1, cols, BORDER_REFLECT101);
    const int xp = clv_border_index(x + 1, cols, BORDER_REFLECT101);
    __global const T *r0 = ROW(img, pitch, clv_border_index(y - 1, rows, BORDER_REFLECT101));
    __global const T *r1 = ROW(img, pitch, y);
    __global const T *r2 = ROW(img, pitch, clv_border_index(y + 1, rows, BORDER_REFLECT101));
    const float a00 = convert_float(GLD(img, r0, xm)), a01 = convert_float(GLD(img, r0, x)),
                a02 = convert_float(GLD(img, r0, xp));
    const float a10 = convert_float(GLD(img, r1, xm)), a12 = convert_float(GLD(img, r1, xp));
    const float a20 = convert_float(GLD(img, r2, xm)), a21 = convert_float(GLD(img, r2, x)),
                a22 = convert_float(GLD(img, r2, xp));
    const float gx = 3.0f * (a02 - a00 + a22 - a20) + 10.0f * (a12 - a10);
    const float gy = 3.0f * (a20 - a00 + a22 - a02) + 10.0f * (a21 - a01);
    return (float2)(gx, gy);
}

/* Patch sample at window pixel (x, y) of the window whose top-left integer
 * corner is (ix, iy), with bilinear weights w = (w00, w01, w10, w11):
 * (I, Ix, Iy) in u8 units. Any position (border-aware). */
static inline float3 lk_patch_pixel(__global const T *img CLV_DBG_PARAM(img), int pitch, int cols,
                             int rows, int ix, int iy, float4 w)
{
    const float i00 = lk_img(img CLV_DBG_PASS(img), pitch, cols, rows, ix, iy);
    const float i01 = lk_img(img CLV_DBG_PASS(img), pitch, cols, rows, ix + 1, iy);
    const float i10 = lk_img(img CLV_DBG_PASS(img), pitch, cols, rows, ix, iy + 1);
    const float i11 = lk_img(img CLV_DBG_PASS(img), pitch, cols, rows, ix + 1, iy + 1);
    const float2 d00 = lk_deriv(img CLV_DBG_PASS(img), pitch, cols, rows, ix, iy);
    const float2 d01 = lk_deriv(img CLV_DBG_PASS(img), pitch, cols, rows, ix + 1, iy);
    const float2 d10 = lk_deriv(img CLV_DBG_PASS(img), pitch, cols, rows, ix, iy + 1);
    const float2 d11 = lk_deriv(img CLV_DBG_PASS(img), pitch, cols, rows, ix + 1, iy + 1);
    const float iv = w.s0 * i00 + w.s1 * i01 + w.s2 * i10 + w.s3 * i11;
    const float2 dv = w.s0 * d00 + w.s1 * d01 + w.s2 * d10 + w.s3 * d11;
    return (float3)(iv * ISCALE, dv * (ISCALE / 32.0f));
}

/* J bilinear at integer corner (x, y) with weights w, reflect101, u8 units. */
static inline float lk_sample(__global const T *img CLV_DBG_PARAM(img), int pitch, int cols, int rows,
                       int x, int y, float4 w)
{
    return (w.s0 * lk_img(img CLV_DBG_PASS(img), pitch, cols, rows, x, y) +
            w.s1 * lk_img(img CLV_DBG_PASS(img), pitch, cols, rows, x + 1, y) +
            w.s2 * lk_img(img CLV_DBG_PASS(img), pitch, cols, rows, x, y + 1) +
            w.s3 * lk_img(img CLV_DBG_PASS(img), pitch, cols, rows, x + 1, y + 1)) *
           ISCALE;
}

static inline float4 lk_weights(float a, float b)
{
    return (float4)((1.0f - a) * (1.0f - b), a * (1.0f - b), (1.0f - a) * b, a * b);
}

/* OpenCV's window rule: the top-left corner c (float) must satisfy
 * floor(c) in [-W, cols) x [-H, rows). NaN fails. */
static inline int lk_inside(float2 c, int ww, int wh, int cols, int rows)
{
    return c.x >= (float)-ww && c.x < (float)cols && c.y >= (float)-wh && c.y < (float)rows;
}

/* Start of a level for point i: the previous-image window corner and the
 * current guess (centre). Returns 0 when the prev window is outside. Reads
 * state only: lk_begin_write stores the level's starting values. */
static inline int lk_begin(__global const float2 *pts_in CLV_DBG_PARAM(pts_in),
                    __global const float2 *state CLV_DBG_PARAM(state), int i, int level, int top,
                    int use_init, float2 half_win, int ww, int wh, int cols, int rows,
                    float2 *prev_corner, float2 *guess)
{
    const float sc = 1.0f / (float)(1 << level);
    const float2 p = GLD(pts_in, pts_in, i) * sc;
    if (level == top)
        *guess = use_init ? GLD(state, state, i) * sc : p;
    else
        *guess = GLD(state, state, i) * 2.0f;
    *prev_corner = p - half_win;
    return lk_inside(*prev_corner, ww, wh, cols, rows);
}

static inline void lk_begin_write(__global float2 *state CLV_DBG_PARAM(state),
                           __global uchar *status CLV_DBG_PARAM(status),
                           __global float *err CLV_DBG_PARAM(err), int i, int level, int top,
                           float2 guess, int ok)
{
    if (level == top || (level == 0 && !ok)) {
        GST(status, status, i, ok || level != 0);
        GST(err, err, i, 0.0f);
    }
    GST(state, state, i, guess);
}

/* Solve step shared by both variants: from G (a11, a12, a22) return 0 when
 * ill-conditioned, else 1 with the inverse determinant in *dinv. */
static inline int lk_condition(float a11, float a12, float a22, int ww, int wh, float min_eig,
                        float *dinv)
{
    /* Sums are in u8 units; OpenCV's are 1024 times larger (Scharr raw
     * values squared) and then scaled by 2^-20: net 1/1024. */
    a11 *= (1.0f / 1024.0f);
    a12 *= (1.0f / 1024.0f);
    a22 *= (1.0f / 1024.0f);
    const float d = a11 * a22 - a12 * a12;
    const float e =
        (a22 + a11 - sqrt((a11 - a22) * (a11 - a22) + 4.0f * a12 * a12)) / (2.0f * ww * wh);
    if (!(e >= min_eig) || !(d >= LK_FLT_EPSILON))
        return 0;
    *dinv = 1.0f / d;
    return 1;
}

#ifdef VEC
/* ---- CPU: one work-item per point, window rows in float8 vectors ----
 * Each work-item has a scratch of 3 W H floats (the patch) plus a tile of
 * (W+3) x (H+3) floats. The patch build always stages the source region it
 * reads into the tile (a plain vector copy inside the image, through the
 * reflect101 map at borders) and then works on the tile, masking the
 * derivative corners that lie outside the image. The residual reads J in
 * place when its window is inside, through a staged tile otherwise. */

#define V8 float8
/* 8 values of buffer argument b from p, as floats; LOADV_SRC: of the helper
 * parameter `src`. */
#define LOADV(b, p) convert_float8(GVLD(8, b, 0, (p)))
#define LOADV_SRC(p) LOADV(src, p)

/* Lane mask of the last (overlapping) chunk of a row of ww >= 8 pixels: the
 * chunk starts at ww - 8; lanes already covered by the full chunks are 0. */
static inline V8 lk_tail_mask(int ww)
{
    const int rem = ww & 7;
    const int dup = rem ? 8 - rem : 8;
    const V8 lane = (V8)(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f);
    return select((V8)(0.0f), (V8)(1.0f), isgreaterequal(lane, (V8)((float)dup)));
}

/* 1.0 in the lanes whose column x0 + lane lies in [0, cols), else 0. */
static inline V8 lk_col_mask(int x0, int cols)
{
    const V8 c = (V8)((float)x0) + (V8)(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f);
    return select((V8)(0.0f), (V8)(1.0f), isgreaterequal(c, (V8)(0.0f)) &
                                               isless(c, (V8)((float)cols)));
}

/* tile (tw x th, pitch tw) = image values at (x0 + i, y0 + j), reflect101
 * outside the image, as float (raw units). tw >= 8. */
static inline void lk_stage(__global const T *img CLV_DBG_PARAM(img), int pitch, int cols, int rows,
                     int x0, int y0, int tw, int th, PATCH_SPACE float *tile PATCH_DBG_PARAM)
{
    const int inside = x0 >= 0 && y0 >= 0 && x0 + tw <= cols && y0 + th <= rows;
    for (int j = 0; j < th; j++) {
        PATCH_SPACE float *t = tile + j * tw;
        if (inside) {
            __global const T *r = ROW(img, pitch, y0 + j) + x0;
            for (int i = 0; i < tw; i += 8) {
                const int k = i + 8 > tw ? tw - 8 : i;
                PVST8(LOADV(img, r + k), t + k);
            }
        } else {
            __global const T *r =
                ROW(img, pitch, clv_border_index(y0 + j, rows, BORDER_REFLECT101));
            for (int i = 0; i < tw; i++)
                PST(t, i,
                    convert_float(GLD(img, r, clv_border_index(x0 + i, cols, BORDER_REFLECT101))));
        }
    }
}

/* Builds the patch (3 planes of ww*wh floats, ww >= 8) from the staged tile
 * (image region from (ix - 1, iy - 1), pitch ww + 3) and returns G's sums.
 *
 * Everything is linear, so the bilinear blend of the Scharr derivatives is
 * done row by row. For each source row R, at window columns c:
 *   hI = wx0 R(c) + wx1 R(c+1)                        (blend)
 *   hD = wx0 (R(c+1) - R(c-1)) + wx1 (R(c+2) - R(c))    ([-1 0 1], blended)
 *   hS = wx0 [3 10 3] R around c + wx1 [3 10 3] R around c+1
 * and for the patch row between source rows r0 = iy + y and r1 = r0 + 1:
 *   I  = wy0 hI(r0) + wy1 hI(r1)
 *   Ix = wy0 [3 10 3] hD around r0 + wy1 [3 10 3] hD around r1
 *   Iy = wy0 (hS(r1) - hS(r0-1)) + wy1 (hS(r1+1) - hS(r0))
 * Derivative corners outside the image weigh 0: wx0/wx1 per lane (columns
 * c, c+1) in hD and hS, wy0/wy1 per row in Ix and Iy. Each column block of
 * 8 walks down the rows keeping the last four source rows' terms. */
static inline float3 lk_build_patch_cpu(const PATCH_SPACE float *tile, int cols, int rows, int ix,
                                 int iy, float a, float b, int ww, int wh,
                                 PATCH_SPACE float *pI, PATCH_SPACE float *pX,
                                 PATCH_SPACE float *pY PATCH_DBG_PARAM)
{
    const int tp = ww + 3;
    const float wx0 = 1.0f - a, wx1 = a, wy0 = 1.0f - b, wy1 = b;
    const float gsc = ISCALE / 32.0f;
    const float i1 = wx0 * ISCALE, i2 = wx1 * ISCALE;
    const V8 tail = lk_tail_mask(ww);
    V8 s11 = (V8)(0.0f), s12 = (V8)(0.0f), s22 = (V8)(0.0f);
    for (int x0 = 0; x0 < ww; x0 += 8) {
        V8 m = (V8)(1.0f);
        int xs = x0;
        if (x0 + 8 > ww) {
            xs = ww - 8;
            m = tail;
        }
        const V8 e0 = wx0 * gsc * lk_col_mask(ix + xs, cols);
        const V8 e1 = wx1 * gsc * lk_col_mask(ix + xs + 1, cols);
        const V8 d0 = -e0, d1 = -e1, d2 = e0, d3 = e1;
        const V8 s0 = 3.0f * e0, s1 = 10.0f * e0 + 3.0f * e1, s2 = 3.0f * e0 + 10.0f * e1,
                 s3 = 3.0f * e1;
        const PATCH_SPACE float *src = tile + xs;
        V8 hI[4], hD[4], hS[4];
        /* source rows iy-1 .. iy+1 into slots 0..2 */
        for (int r = 0; r < 3; r++) {
            const V8 c0 = PVLD8(src), c1 = PVLD8(src + 1), c2 = PVLD8(src + 2),
                     c3 = PVLD8(src + 3);
            hI[r] = i1 * c1 + i2 * c2;
            hD[r] = d0 * c0 + d1 * c1 + d2 * c2 + d3 * c3;
            hS[r] = s0 * c0 + s1 * c1 + s2 * c2 + s3 * c3;
            src += tp;
        }
        PATCH_SPACE float *oi = pI + xs, *ox = pX + xs, *oy = pY + xs;
        for (int y = 0; y < wh; y++) {
            /* source row iy + y + 2 into slot 3 */
            const V8 c0 = PVLD8(src), c1 = PVLD8(src + 1), c2 = PVLD8(src + 2),
                     c3 = PVLD8(src + 3);
            hI[3] = i1 * c1 + i2 * c2;
            hD[3] = d0 * c0 + d1 * c1 + d2 * c2 + d3 * c3;
            hS[3] = s0 * c0 + s1 * c1 + s2 * c2 + s3 * c3;
            src += tp;
            const int r0 = iy + y;
            const float u0 = r0 >= 0 && r0 < rows ? wy0 : 0.0f;
            const float u1 = r0 + 1 >= 0 && r0 + 1 < rows ? wy1 : 0.0f;
            const V8 vi = wy0 * hI[1] + wy1 * hI[2];
            const V8 vx = (3.0f * u0) * hD[0] + (10.0f * u0 + 3.0f * u1) * hD[1] +
                          (3.0f * u0 + 10.0f * u1) * hD[2] + (3.0f * u1) * hD[3];
            const V8 vy = u0 * (hS[2] - hS[0]) + u1 * (hS[3] - hS[1]);
            PVST8(vi, oi);
            PVST8(vx, ox);
            PVST8(vy, oy);
            oi += ww;
            ox += ww;
            oy += ww;
            const V8 mx = vx * m, my = vy * m;
            s11 += mx * vx;
            s12 += mx * vy;
            s22 += my * vy;
            hI[0] = hI[1];
            hI[1] = hI[2];
            hI[2] = hI[3];
            hD[0] = hD[1];
            hD[1] = hD[2];
            hD[2] = hD[3];
            hS[0] = hS[1];
            hS[1] = hS[2];
            hS[2] = hS[3];
        }
    }
    const float4 h11 = s11.lo + s11.hi, h12 = s12.lo + s12.hi, h22 = s22.lo + s22.hi;
    return (float3)((h11.s0 + h11.s1) + (h11.s2 + h11.s3), (h12.s0 + h12.s1) + (h12.s2 + h12.s3),
                    (h22.s0 + h22.s1) + (h22.s2 + h22.s3));
}

/* Patch of a window narrower than a vector (ww < 8), pixel by pixel. */
static inline float3 lk_build_patch_narrow(__global const T *img CLV_DBG_PARAM(img), int pitch,
                                    int cols, int rows, int ix, int iy, float a, float b, int ww,
                                    int wh, PATCH_SPACE float *pI, PATCH_SPACE float *pX,
                                    PATCH_SPACE float *pY PATCH_DBG_PARAM)
{
    const float4 w = lk_weights(a, b);
    float a11 = 0.0f, a12 = 0.0f, a22 = 0.0f;
    for (int y = 0; y < wh; y++)
        for (int x = 0; x < ww; x++) {
            const float3 v =
                lk_patch_pixel(img CLV_DBG_PASS(img), pitch, cols, rows, ix + x, iy + y, w);
            const int k = y * ww + x;
            PST(pI, k, v.s0);
            PST(pX, k, v.s1);
            PST(pY, k, v.s2);
            a11 += v.s1 * v.s1;
            a12 += v.s1 * v.s2;
            a22 += v.s2 * v.s2;
        }
    return (float3)(a11, a12, a22);
}

/* sum (J - I) Ix, sum (J - I) Iy and, when want_abs, sum |J - I| over the
 * window, J read from src (pointing at the window's top-left corner, pitch
 * sp) and blended with sub-pixel (a, b): horizontally once per source row,
 * then between rows. ww >= 8. One body for J in place (global, type T) and
 * J staged in the tile (float). */
#define LK_RESIDUAL_BODY(SRC_SPACE, LOAD)                                                   \
    {                                                                                       \
        const float wx0 = (1.0f - a) * (ISCALE), wx1 = a * (ISCALE), wy0 = 1.0f - b,        \
                    wy1 = b;                                                                \
        const V8 tail = lk_tail_mask(ww);                                                   \
        V8 q1 = (V8)(0.0f), q2 = (V8)(0.0f), qe = (V8)(0.0f);                               \
        for (int x0 = 0; x0 < ww; x0 += 8) {                                                \
            V8 m = (V8)(1.0f);                                                              \
            int xs = x0;                                                                    \
            if (x0 + 8 > ww) {                                                              \
                xs = ww - 8;                                                                \
                m = tail;                                                                   \
            }                                                                               \
            SRC_SPACE *s = src + xs;                                                        \
            V8 h0 = wx0 * LOAD(s) + wx1 * LOAD(s + 1);                                      \
            const PATCH_SPACE float *ii = pI + xs, *ix = pX + xs, *iy = pY + xs;            \
            for (int y = 0; y < wh; y++) {                                                  \
                s += sp;                                                                    \
                const V8 h1 = wx0 * LOAD(s) + wx1 * LOAD(s + 1);                            \
                const V8 diff = (wy0 * h0 + wy1 * h1 - PVLD8(ii)) * m;                      \
                q1 += diff * PVLD8(ix);                                                     \
                q2 += diff * PVLD8(iy);                                                     \
                if (want_abs)                                                               \
                    qe += fabs(diff);                                                       \
                h0 = h1;                                                                    \
                ii += ww;                                                                   \
                ix += ww;                                                                   \
                iy += ww;                                                                   \
            }                                                                               \
        }                                                                                   \
        const float4 f1 = q1.lo + q1.hi, f2 = q2.lo + q2.hi, fe = qe.lo + qe.hi;            \
        return (float3)((f1.s0 + f1.s1) + (f1.s2 + f1.s3), (f2.s0 + f2.s1) + (f2.s2 + f2.s3), \
                        (fe.s0 + fe.s1) + (fe.s2 + fe.s3));                                 \
    }

static inline float3 lk_residual_global(__global const T *src CLV_DBG_PARAM(src), int sp, float a,
                                 float b, int ww, int wh, const PATCH_SPACE float *pI,
                                 const PATCH_SPACE float *pX,
                                 const PATCH_SPACE float *pY PATCH_DBG_PARAM, int want_abs)
LK_RESIDUAL_BODY(__global const T, LOADV_SRC)

static inline float3 lk_residual_tile(const PATCH_SPACE float *src, int sp, float a, float b, int ww,
                               int wh, const PATCH_SPACE float *pI, const PATCH_SPACE float *pX,
                               const PATCH_SPACE float *pY PATCH_DBG_PARAM, int want_abs)
LK_RESIDUAL_BODY(const PATCH_SPACE float, PVLD8)

/* The residual for the window with top-left corner c in J. */
static inline float3 lk_residual_cpu(__global const T *img CLV_DBG_PARAM(img), int pitch, int cols,
                              int rows, float2 c, int ww, int wh, const PATCH_SPACE float *pI,
                              const PATCH_SPACE float *pX, const PATCH_SPACE float *pY,
                              PATCH_SPACE float *tile PATCH_DBG_PARAM, int want_abs)
{
    const float2 cf = floor(c);
    const int jx = convert_int(cf.x), jy = convert_int(cf.y);
    const float a = c.x - cf.x, b = c.y - cf.y;
    if (ww < 8) {
        const float4 w = lk_weights(a, b);
        float b1 = 0.0f, b2 = 0.0f, ae = 0.0f;
        for (int y = 0; y < wh; y++)
            for (int x = 0; x < ww; x++) {
                const int k = y * ww + x;
                const float diff =
                    lk_sample(img CLV_DBG_PASS(img), pitch, cols, rows, jx + x, jy + y, w) -
                    PLD(pI, k);
                b1 += diff * PLD(pX, k);
                b2 += diff * PLD(pY, k);
                ae += fabs(diff);
            }
        return (float3)(b1, b2, ae);
    }
    if (jx >= 0 && jy >= 0 && jx + ww < cols && jy + wh < rows)
        return lk_residual_global(ROW(img, pitch, jy) + jx CLV_DBG_PASS(img), pitch, a, b, ww,
                                  wh, pI, pX, pY PATCH_DBG_PASS, want_abs);
    lk_stage(img CLV_DBG_PASS(img), pitch, cols, rows, jx, jy, ww + 1, wh + 1,
             tile PATCH_DBG_PASS);
    return lk_residual_tile(tile, ww + 1, a, b, ww, wh, pI, pX, pY PATCH_DBG_PASS, want_abs);
}

/* One level for points first + get_global_id(0) (< count). Scratch per
 * work-item: 3 W H + (W+3)(H+3) floats (local: this work-item's slice of
 * the group's buffer; global: this point's slice, relative to `first`). */
__kernel void lk_level_cpu(__global const T *prev, int prev_pitch, __global const T *next,
                           int next_pitch, int cols, int rows, __global const float2 *pts_in,
                           __global float2 *state, __global uchar *status, __global float *err,
                           int count, int first, int level, int top, int use_init, int ww,
                           int wh, int max_iter, float eps2, float min_eig,
                           PATCH_SPACE float *patch CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(prev, 0);
    CLV_DBG_BUF(next, 2);
    CLV_DBG_BUF(pts_in, 6);
    CLV_DBG_BUF(state, 7);
    CLV_DBG_BUF(status, 8);
    CLV_DBG_BUF(err, 9);
#ifdef PATCH_GLOBAL
    CLV_DBG_BUF(patch, 20);
#endif
    const int i = first + get_global_id(0);
    if (i >= count)
        return;
    const size_t area = (size_t)ww * (size_t)wh;
    const size_t per_item = 3 * area + (size_t)(ww + 3) * (size_t)(wh + 3);
#ifdef PATCH_GLOBAL
    PATCH_SPACE float *pI = patch + (size_t)get_global_id(0) * per_item;
#else
    PATCH_SPACE float *pI = patch + (size_t)get_local_id(0) * per_item;
#endif
    PATCH_SPACE float *pX = pI + area;
    PATCH_SPACE float *pY = pX + area;
    PATCH_SPACE float *tile = pY + area;
    const float2 half_win = (float2)((float)(ww - 1) * 0.5f, (float)(wh - 1) * 0.5f);

    float2 pc, q;
    const int ok = lk_begin(pts_in CLV_DBG_PASS(pts_in), state CLV_DBG_PASS(state), i, level, top,
                            use_init, half_win, ww, wh, cols, rows, &pc, &q);
    lk_begin_write(state CLV_DBG_PASS(state), status CLV_DBG_PASS(status), err CLV_DBG_PASS(err),
                   i, level, top, q, ok);
    if (!ok)
        return;
    const float2 pf = floor(pc);
    const int ix = convert_int(pf.x), iy = convert_int(pf.y);
    float3 g;
    if (ww >= 8) {
        lk_stage(prev CLV_DBG_PASS(prev), prev_pitch, cols, rows, ix - 1, iy - 1, ww + 3, wh + 3,
                 tile PATCH_DBG_PASS);
        g = lk_build_patch_cpu(tile, cols, rows, ix, iy, pc.x - pf.x, pc.y - pf.y, ww, wh, pI,
                               pX, pY PATCH_DBG_PASS);
    } else {
        g = lk_build_patch_narrow(prev CLV_DBG_PASS(prev), prev_pitch, cols, rows, ix, iy,
                                  pc.x - pf.x, pc.y - pf.y, ww, wh, pI, pX, pY PATCH_DBG_PASS);
    }
    float dinv;
    if (!lk_condition(g.s0, g.s1, g.s2, ww, wh, min_eig, &dinv)) {
        if (level == 0)
            GST(status, status, i, 0);
        return;
    }
    /* OpenCV's solve in its scaling: delta = (A12 b2 - A22 b1, A12 b1 - A11 b2) / D
     * with A, b 1024 times smaller than ours and D 1024^2 times: net 1. */
    const float a11 = g.s0, a12 = g.s1, a22 = g.s2;
    const float det_inv = dinv * (1.0f / (1024.0f * 1024.0f));
    float2 c = q - half_win;
    float2 prev_delta = (float2)(0.0f);
    float2 out = q;
    int lost = 0;
    for (int j = 0; j < max_iter; j++) {
        if (!lk_inside(c, ww, wh, cols, rows)) {
            lost = 1;
            break;
        }
        const float3 r = lk_residual_cpu(next CLV_DBG_PASS(next), next_pitch, cols, rows, c, ww,
                                         wh, pI, pX, pY, tile PATCH_DBG_PASS, 0);
        const float2 delta = (float2)((a12 * r.s1 - a22 * r.s0) * det_inv,
                                      (a12 * r.s0 - a11 * r.s1) * det_inv);
        c += delta;
        out = c + half_win;
        if (delta.x * delta.x + delta.y * delta.y <= eps2)
            break;
        if (j > 0 && fabs(delta.x + prev_delta.x) < 0.01f &&
            fabs(delta.y + prev_delta.y) < 0.01f) {
            out -= delta * 0.5f;
            break;
        }
        prev_delta = delta;
    }
    GST(state, state, i, out);
    if (level != 0)
        return;
    const float2 e = out - half_win;
    if (lost || !lk_inside(e, ww, wh, cols, rows)) {
        GST(status, status, i, 0);
        return;
    }
    const float3 r = lk_residual_cpu(next CLV_DBG_PASS(next), next_pitch, cols, rows, e, ww, wh,
                                     pI, pX, pY, tile PATCH_DBG_PASS, 1);
    GST(err, err, i, r.s2 / (float)(ww * wh));
}
#else
/* ---- generic: one work-group per point ---- */

/* Sum of v over the work-group (power-of-two size), returned to every
 * work-item. red: one float4 per work-item. */
static inline float4 lk_group_sum(__local float4 *red, float4 v)
{
    const int lid = get_local_id(0), ls = get_local_size(0);
    red[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = ls >> 1; s > 0; s >>= 1) {
        if (lid < s)
            red[lid] += red[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float4 r = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

/* Partial sums of (J - I) Ix, (J - I) Iy, |J - I| over this work-item's
 * pixels of the window with top-left corner c in J. */
static inline float4 lk_residual_part(__global const T *img CLV_DBG_PARAM(img), int pitch, int cols,
                               int rows, float2 c, int ww, int wh, const PATCH_SPACE float *pI,
                               const PATCH_SPACE float *pX,
                               const PATCH_SPACE float *pY PATCH_DBG_PARAM)
{
    const int lid = get_local_id(0), ls = get_local_size(0);
    const float2 cf = floor(c);
    const int jx = convert_int(cf.x), jy = convert_int(cf.y);
    const float4 w = lk_weights(c.x - cf.x, c.y - cf.y);
    const int fast = jx >= 0 && jy >= 0 && jx + ww < cols && jy + wh < rows;
    const float4 ws = w * ISCALE;
    float4 acc = (float4)(0.0f);
    for (int k = lid; k < ww * wh; k += ls) {
        const int y = k / ww, x = k - y * ww;
        float jv;
        if (fast) {
            __global const T *r0 = ROW(img, pitch, jy + y) + jx + x;
            __global const T *r1 = r0 + pitch;
            jv = ws.s0 * convert_float(GLD(img, r0, 0)) + ws.s1 * convert_float(GLD(img, r0, 1)) +
                 ws.s2 * convert_float(GLD(img, r1, 0)) + ws.s3 * convert_float(GLD(img, r1, 1));
        } else {
            jv = lk_sample(img CLV_DBG_PASS(img), pitch, cols, rows, jx + x, jy + y, w);
        }
        const float diff = jv - PLD(pI, k);
        acc += (float4)(diff * PLD(pX, k), diff * PLD(pY, k), fabs(diff), 0.0f);
    }
    return acc;
}

/* One level for point first + get_group_id(0). Every work-item follows the
 * same control flow (all decisions use group-wide sums), so the barriers in
 * lk_group_sum are reached uniformly. */
__kernel void lk_level(__global const T *prev, int prev_pitch, __global const T *next,
                       int next_pitch, int cols, int rows, __global const float2 *pts_in,
                       __global float2 *state, __global uchar *status, __global float *err,
                       int count, int first, int level, int top, int use_init, int ww, int wh,
                       int max_iter, float eps2, float min_eig, PATCH_SPACE float *patch,
                       __local float4 *red CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(prev, 0);
    CLV_DBG_BUF(next, 2);
    CLV_DBG_BUF(pts_in, 6);
    CLV_DBG_BUF(state, 7);
    CLV_DBG_BUF(status, 8);
    CLV_DBG_BUF(err, 9);
#ifdef PATCH_GLOBAL
    CLV_DBG_BUF(patch, 20);
#endif
    const int lid = get_local_id(0), ls = get_local_size(0);
    const int i = first + get_group_id(0);
    const int area = ww * wh;
#ifdef PATCH_GLOBAL
    PATCH_SPACE float *pI = patch + (size_t)get_group_id(0) * 3 * (size_t)area;
#else
    PATCH_SPACE float *pI = patch;
#endif
    PATCH_SPACE float *pX = pI + area;
    PATCH_SPACE float *pY = pX + area;
    const float2 half_win = (float2)((float)(ww - 1) * 0.5f, (float)(wh - 1) * 0.5f);

    float2 pc = (float2)(0.0f), q = (float2)(0.0f);
    int active = 0;
    const int valid = i < count;
    if (valid)
        active = lk_begin(pts_in CLV_DBG_PASS(pts_in), state CLV_DBG_PASS(state), i, level, top,
                          use_init, half_win, ww, wh, cols, rows, &pc, &q);

    /* patch and G */
    float4 gp = (float4)(0.0f);
    if (active) {
        const float2 pf = floor(pc);
        const int ix = convert_int(pf.x), iy = convert_int(pf.y);
        const float4 w = lk_weights(pc.x - pf.x, pc.y - pf.y);
        for (int k = lid; k < area; k += ls) {
            const int y = k / ww, x = k - y * ww;
            const float3 v = lk_patch_pixel(prev CLV_DBG_PASS(prev), prev_pitch, cols, rows, ix + x,
                                            iy + y, w);
            PST(pI, k, v.s0);
            PST(pX, k, v.s1);
            PST(pY, k, v.s2);
            gp += (float4)(v.s1 * v.s1, v.s1 * v.s2, v.s2 * v.s2, 0.0f);
        }
    }
    /* The sum's barriers order the local patch writes; a global fence
     * orders every work-item's read of state[i] (lk_begin) before work-item
     * 0 overwrites it, and global patch writes (PATCH_GLOBAL) before the
     * other work-items read them (OpenCL 1.2: a local fence does not). */
    const float4 g = lk_group_sum(red, gp);
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (valid && lid == 0)
        lk_begin_write(state CLV_DBG_PASS(state), status CLV_DBG_PASS(status),
                       err CLV_DBG_PASS(err), i, level, top, q, active);
    float dinv = 0.0f;
    if (active && !lk_condition(g.s0, g.s1, g.s2, ww, wh, min_eig, &dinv)) {
        active = 0;
        if (level == 0 && lid == 0)
            GST(status, status, i, 0);
    }

    const float det_inv = dinv * (1.0f / (1024.0f * 1024.0f));
    float2 c = q - half_win;
    float2 prev_delta = (float2)(0.0f);
    float2 out = q;
    int lost = 0;
    int running = active;
    for (int j = 0; j < max_iter && running; j++) {
        /* uniform: c is the same in every work-item */
        if (!lk_inside(c, ww, wh, cols, rows)) {
            lost = 1;
            break;
        }
        const float4 r = lk_group_sum(red, lk_residual_part(next CLV_DBG_PASS(next), next_pitch,
                                                            cols, rows, c, ww, wh, pI, pX,
                                                            pY PATCH_DBG_PASS));
        const float2 delta = (float2)((g.s1 * r.s1 - g.s2 * r.s0) * det_inv,
                                      (g.s1 * r.s0 - g.s0 * r.s1) * det_inv);
        c += delta;
        out = c + half_win;
        if (delta.x * delta.x + delta.y * delta.y <= eps2) {
            running = 0;
        } else if (j > 0 && fabs(delta.x + prev_delta.x) < 0.01f &&
                   fabs(delta.y + prev_delta.y) < 0.01f) {
            out -= delta * 0.5f;
            running = 0;
        }
        prev_delta = delta;
    }
    if (active && lid == 0)
        GST(state, state, i, out);

    /* level 0: the residual at the final position */
    const float2 e = out - half_win;
    const int want_err = active && level == 0 && !lost && lk_inside(e, ww, wh, cols, rows);
    float4 ep = (float4)(0.0f);
    if (want_err)
        ep = lk_residual_part(next CLV_DBG_PASS(next), next_pitch, cols, rows, e, ww, wh, pI, pX,
                              pY PATCH_DBG_PASS);
    const float4 es = lk_group_sum(red, ep);
    if (active && level == 0 && lid == 0) {
        if (want_err)
            GST(err, err, i, es.s2 / (float)area);
        else
            GST(status, status, i, 0);
    }
}
#endif
