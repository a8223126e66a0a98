/* Colour and pixel-type conversions (src/ops/color.c, clvision/color.h).
 *
 * color_convert: one pixel per work-item, 2-D range over width x height.
 *   Needs DEPTH_* (source and destination type), SCN and DCN (channel
 *   counts) and one of
 *     TO_GRAY     with BIDX (0: B, G, R order; 2: R, G, B) and WEIGHTS_601
 *                 or WEIGHTS_709
 *     FROM_GRAY   value copied to the first three channels (alpha opaque)
 *     REORDER     with SWAP (0 or 1: exchange channels 0 and 2); DCN 4 from
 *                 SCN 3 adds an opaque alpha, SCN 4 to DCN 3 drops it
 * convert_type: one value per work-item, 2-D range over (width * channels)
 *   x height. Needs SRC_U8|SRC_U16|SRC_F32 and DST_U8|DST_U16|DST_F32.
 *
 * The arithmetic is OpenCV's exactly (the header says how); contraction is
 * off so that the only fused operations are the explicit fma() calls. */
#pragma OPENCL FP_CONTRACT OFF

#if defined(TO_GRAY) || defined(FROM_GRAY) || defined(REORDER)
#if !defined(DEPTH_U8) && !defined(DEPTH_U16) && !defined(DEPTH_F32)
#error "color_convert needs -DDEPTH_U8, -DDEPTH_U16 or -DDEPTH_F32"
#endif
#if !defined(SCN) || !defined(DCN)
#error "color_convert needs -DSCN and -DDCN"
#endif

#if defined(DEPTH_F32)
#define ALPHA_MAX 1.0f
#elif defined(DEPTH_U16)
#define ALPHA_MAX ((ushort)65535)
#else
#define ALPHA_MAX ((uchar)255)
#endif

#ifdef TO_GRAY
#if !defined(BIDX) || (BIDX != 0 && BIDX != 2)
#error "TO_GRAY needs -DBIDX=0 or 2"
#endif
#if defined(WEIGHTS_601)
#define W_R 0.299f
#define W_G 0.587f
#define W_B 0.114f
#elif defined(WEIGHTS_709)
#define W_R 0.2126f
#define W_G 0.7152f
#define W_B 0.0722f
#else
#error "TO_GRAY needs -DWEIGHTS_601 or -DWEIGHTS_709"
#endif

static inline T gray_of(T r, T g, T b)
{
#if defined(DEPTH_F32)
    return fma(b, W_B, fma(g, W_G, r * W_R));
#elif defined(WEIGHTS_601)
    /* OpenCV's 15-bit fixed point (u8 and u16 alike; fits in 32 bits) */
    return (T)(((uint)r * 9798u + (uint)g * 19235u + (uint)b * 3735u + 16384u) >> 15);
#else
    /* exact: the weights have four decimals */
    return (T)(((uint)r * 2126u + (uint)g * 7152u + (uint)b * 722u + 5000u) / 10000u);
#endif
}
#endif /* TO_GRAY */

__kernel void color_convert(__global const T *src, int src_pitch, __global T *dst, int dst_pitch,
                            int width, int height CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 2);
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    __global const T *s = ROW(src, src_pitch, y) + (size_t)x * SCN;
    __global T *d = ROW(dst, dst_pitch, y) + (size_t)x * DCN;
#if defined(TO_GRAY)
    const T c0 = GLD(src, s, 0), c1 = GLD(src, s, 1), c2 = GLD(src, s, 2);
#if BIDX == 2
    GST(dst, d, 0, gray_of(c0, c1, c2));
#else
    GST(dst, d, 0, gray_of(c2, c1, c0));
#endif
#elif defined(FROM_GRAY)
    const T v = GLD(src, s, 0);
    GST(dst, d, 0, v);
    GST(dst, d, 1, v);
    GST(dst, d, 2, v);
#if DCN == 4
    GST(dst, d, 3, ALPHA_MAX);
#endif
#else /* REORDER */
#if !defined(SWAP)
#error "REORDER needs -DSWAP=0 or 1"
#endif
    const T c0 = GLD(src, s, 0), c1 = GLD(src, s, 1), c2 = GLD(src, s, 2);
    GST(dst, d, 0, SWAP ? c2 : c0);
    GST(dst, d, 1, c1);
    GST(dst, d, 2, SWAP ? c0 : c2);
#if DCN == 4 && SCN == 4
    GST(dst, d, 3, GLD(src, s, 3));
#elif DCN == 4
    GST(dst, d, 3, ALPHA_MAX);
#endif
#endif
}
#endif /* color_convert */

#if defined(SRC_U8) || defined(SRC_U16) || defined(SRC_F32)
#if defined(SRC_U8)
#define ST uchar
#elif defined(SRC_U16)
#define ST ushort
#else
#define ST float
#endif
#if defined(DST_U8)
#define DT uchar
#define DT_MAXF 255.0f
#elif defined(DST_U16)
#define DT ushort
#define DT_MAXF 65535.0f
#elif defined(DST_F32)
#define DT float
#else
#error "convert_type needs -DDST_U8, -DDST_U16 or -DDST_F32"
#endif

/* float(src) * scale, then (integer destinations) ties-to-even rounding and
 * saturation as cv::saturate_cast; NaN -> 0. rint and clamp instead of
 * convert_*_sat_rte, which PoCL lowers to slow scalar code (see common.cl);
 * the plain conversion of an integral in-range float is exact. */
static inline DT convert_value(float v)
{
#if defined(DST_F32)
    return v;
#else
    return CAT(convert_, DT)(isnan(v) ? 0.0f : clamp(rint(v), 0.0f, DT_MAXF));
#endif
}

__kernel void convert_type(__global const ST *src, int src_pitch, __global DT *dst,
                           int dst_pitch, int nvals, int height, float scale CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 2);
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= nvals || y >= height)
        return;
    const float v = convert_float(GLD(src, ROW(src, src_pitch, y), x)) * scale;
    GST(dst, ROW(dst, dst_pitch, y), x, convert_value(v));
}
#endif /* convert_type */

#if !defined(TO_GRAY) && !defined(FROM_GRAY) && !defined(REORDER) && !defined(SRC_U8) &&       \
    !defined(SRC_U16) && !defined(SRC_F32)
#error "color.cl needs TO_GRAY, FROM_GRAY or REORDER (color_convert) or SRC_* (convert_type)"
#endif
