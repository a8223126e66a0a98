/* clvision prelude: pixel formats, conversions, border arithmetic.
 * Prepended to every kernel family. OpenCL C 1.2.
 *
 * Pixel format macros (from clv__format_options):
 *   DEPTH_U8 | DEPTH_U16 | DEPTH_F32   channel type
 *   CN = 1 | 2 | 3 | 4                 interleaved channels (2: flow u, v)
 * give
 *   T      channel type (uchar, ushort, float)
 *   TN     pixel type (T, T3 or T4)
 *   FN     float pixel (float, float2, float3, float4)
 *   LOAD_PIX(row_ptr, x)     -> FN
 *   STORE_PIX(row_ptr, x, v) rounds to nearest and saturates for integers
 * Images are buffers with a row pitch in elements of T.
 */

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#if defined(DEPTH_U8)
#define T uchar
#define T_MAXF 255.0f
#elif defined(DEPTH_U16)
#define T ushort
#define T_MAXF 65535.0f
#elif defined(DEPTH_F32)
#define T float
#endif

#ifdef CN
#if CN == 1
#define TN T
#define FN float
#define VLOAD(x, p) ((p)[x])
#define VSTORE(v, x, p) ((p)[x] = (v))
#define FN_ZERO 0.0f
#elif CN == 2
#define TN CAT(T, 2)
#define FN float2
#define VLOAD(x, p) vload2((x), (p))
#define VSTORE(v, x, p) vstore2((v), (x), (p))
#define FN_ZERO ((float2)(0.0f))
#elif CN == 3
#define TN CAT(T, 3)
#define FN float3
#define VLOAD(x, p) vload3((x), (p))
#define VSTORE(v, x, p) vstore3((v), (x), (p))
#define FN_ZERO ((float3)(0.0f))
#elif CN == 4
#define TN CAT(T, 4)
#define FN float4
#define VLOAD(x, p) vload4((x), (p))
#define VSTORE(v, x, p) vstore4((v), (x), (p))
#define FN_ZERO ((float4)(0.0f))
#else
#error "CN must be 1 to 4"
#endif

#define TO_FN(v) CAT(convert_, FN)(v)
/* Round half up and saturate: clamp, then a plain (truncating) convert.
 * convert_*_sat_rte and even convert_*_sat are avoided on purpose: PoCL
 * lowers them to slow scalar code. NaN becomes 0 (clamp of NaN is
 * implementation-defined in value but stays in range). */
#if defined(DEPTH_F32)
#define FROM_FN(v) (v)
#else
#define FROM_FN(v) CAT(convert_, TN)(clamp((v) + 0.5f, 0.0f, T_MAXF))
#endif

/* One channel value, for scalar tails. */
#if defined(DEPTH_F32)
#define FROM_FN_SCALAR(v) (v)
#else
#define FROM_FN_SCALAR(v) CAT(convert_, T)(clamp((v) + 0.5f, 0.0f, T_MAXF))
#endif

#define LOAD_PIX(row, x) TO_FN(VLOAD((x), (row)))
#define STORE_PIX(row, x, v) VSTORE(FROM_FN(v), (x), (row))
/* Float pixels in scratch buffers (packed CN floats per pixel). */
#define LOAD_FPIX(row, x) VLOAD((x), (row))
#define STORE_FPIX(row, x, v) VSTORE((v), (x), (row))
#endif /* CN */

/* ---- CPU variants: VEC consecutive channel values per work-item ----
 * A row of width*CN values is processed as a flat array in VEC-wide vectors.
 * Image pitches are multiples of 64 bytes and scratch pitches multiples of
 * VEC floats, so a vector that starts inside a row never leaves the row's
 * pitch: tails need no special case (lanes past the row land in padding). */
#ifdef VEC
#define FV CAT(float, VEC)
#define VLOAD_AT(e, p) CAT(vload, VEC)(0, (p) + (e))
#define VSTORE_AT(v, e, p) CAT(vstore, VEC)((v), 0, (p) + (e))
#define TO_FV(v) CAT(convert_float, VEC)(v)
#if defined(DEPTH_F32)
#define FROM_FV(v) (v)
#else
#define FROM_FV(v) CAT(convert_, CAT(T, VEC))(clamp((v) + 0.5f, 0.0f, T_MAXF))
#endif
#endif

/* Pointer to row y of an image with pitch in elements. */
#define ROW(base, pitch, y) ((base) + (size_t)(y) * (size_t)(pitch))

/* ---- borders (values match enum clv_border) ---- */
#define BORDER_REFLECT101 0
#define BORDER_REPLICATE 1
#define BORDER_REFLECT 2
#define BORDER_CONSTANT 3
#define BORDER_WRAP 4

/* Map coordinate i into [0, n) following the border mode; -1 means "outside,
 * use the constant 0". Works for any distance from the image. */
inline int clv_border_index(int i, int n, int mode)
{
    if (i >= 0 && i < n)
        return i;
    if (mode == BORDER_CONSTANT)
        return -1;
    if (mode == BORDER_REPLICATE)
        return clamp(i, 0, n - 1);
    if (mode == BORDER_WRAP) {
        int m = i % n;
        return m < 0 ? m + n : m;
    }
    if (n == 1)
        return 0;
    if (mode == BORDER_REFLECT) {
        int p = 2 * n;
        int m = i % p;
        if (m < 0)
            m += p;
        return m < n ? m : p - 1 - m;
    }
    /* REFLECT101 */
    int p = 2 * n - 2;
    int m = i % p;
    if (m < 0)
        m += p;
    return m < n ? m : p - m;
}

#ifdef BORDER
#define BORDER_INDEX(i, n) clv_border_index((i), (n), BORDER)
#endif

/* ---- log2 / exp2 ----
 * CLV_LOG2F / CLV_EXP2F (float) and CLV_LOG2F3 / CLV_EXP2F3 (float3) are the
 * built-ins, except with -DCLV_POLY_MATH (chosen for CPU devices): PoCL's
 * built-ins are scalar library calls that block vectorisation (about 7 ns
 * each on this Xeon), while these are plain arithmetic. log2: mantissa folded
 * into [sqrt(1/2), sqrt(2)), 2 atanh(s)/ln 2 series to s^11 (truncation below
 * 1e-9 absolute); exp2: 2^round(x) times the Taylor series of 2^f on
 * [-1/2, 1/2] to f^7 (below 1e-8 relative). Inputs: log2 of positive normal
 * floats; exp2 clamped to [-126, 127]. */
#ifdef CLV_POLY_MATH
#define CLV_POLY_DEFINE(NAME, FT, IT, CONV_I, CONV_F)                                           \
    inline FT clv_log2_##NAME(FT x)                                                             \
    {                                                                                           \
        const IT bits = as_##IT(x);                                                             \
        IT e = ((bits >> 23) & 0xff) - 127;                                                     \
        FT m = as_##FT((bits & 0x007fffff) | 0x3f800000); /* [1, 2) */                          \
        const IT big = m > (FT)(1.41421356f) ? (IT)(-1) : (IT)(0);                             \
        m = select(m, m * 0.5f, big);                                                           \
        e = e - big;                                                                            \
        const FT s = (m - 1.0f) / (m + 1.0f);                                                   \
        const FT s2 = s * s;                                                                    \
        FT p = 0.26230819f;                                                                     \
        p = p * s2 + 0.32059890f;                                                               \
        p = p * s2 + 0.41219858f;                                                               \
        p = p * s2 + 0.57707802f;                                                               \
        p = p * s2 + 0.96179669f;                                                               \
        p = p * s2 + 2.88539008f;                                                               \
        return CONV_F(e) + s * p;                                                               \
    }                                                                                           \
    inline FT clv_exp2_##NAME(FT x)                                                             \
    {                                                                                           \
        x = clamp(x, -126.0f, 127.0f);                                                          \
        const FT r = floor(x + 0.5f);                                                           \
        const FT f = x - r; /* [-1/2, 1/2] */                                                   \
        FT p = 1.5252734e-5f;                                                                   \
        p = p * f + 1.5403530e-4f;                                                              \
        p = p * f + 1.3333558e-3f;                                                              \
        p = p * f + 9.6181291e-3f;                                                              \
        p = p * f + 5.5504109e-2f;                                                              \
        p = p * f + 2.4022651e-1f;                                                              \
        p = p * f + 6.9314718e-1f;                                                              \
        p = p * f + 1.0f;                                                                       \
        return p * as_##FT((CONV_I(r) + 127) << 23);                                            \
    }
CLV_POLY_DEFINE(f, float, int, convert_int, convert_float)
CLV_POLY_DEFINE(f3, float3, int3, convert_int3, convert_float3)
#define CLV_LOG2F(x) clv_log2_f(x)
#define CLV_EXP2F(x) clv_exp2_f(x)
#define CLV_LOG2F3(x) clv_log2_f3(x)
#define CLV_EXP2F3(x) clv_exp2_f3(x)
#else
#define CLV_LOG2F(x) log2(x)
#define CLV_EXP2F(x) exp2(x)
#define CLV_LOG2F3(x) log2(x)
#define CLV_EXP2F3(x) exp2(x)
#endif
