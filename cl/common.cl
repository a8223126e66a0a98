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
 *   LOAD_PIX(b, row_ptr, x)     -> FN
 *   STORE_PIX(b, row_ptr, x, v) rounds to nearest and saturates for integers
 * Images are buffers with a row pitch in elements of T.
 */

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* CLV_UNROLL before a loop with a fixed trip count: unrolled on GPUs
 * (program.c passes -DCLV_GPU=1 there), whose registers then hold the
 * loop's arrays (the u8 register kernels: box_reg, gauss_reg, pyr_reg,
 * resize_half_reg, transpose_reg); elsewhere the compiler decides. PoCL
 * took 8.8 s instead of 2.0 to build a 9x9 box_reg program with every loop
 * unrolled, and CPUs run those kernels only in tests. CLV_NO_UNROLL keeps a
 * loop a loop on GPUs: a register kernel's walk down its rows, one source
 * row per step with the window's rows carried in registers (H200, 4K u8
 * pyramid: 141 us with the rows unrolled, 82 as a loop). */
#if CLV_GPU
#define CLV_UNROLL _Pragma("unroll")
#define CLV_NO_UNROLL _Pragma("unroll 1")
#else
#define CLV_UNROLL
#define CLV_NO_UNROLL
#endif

/* ---- global buffer accessors; bounds checks under CLV_DEBUG ----
 * Every access to a __global or __constant buffer argument of a kernel goes
 * through these (__local and private memory are accessed directly). b names
 * the kernel's buffer argument that pointer p points into: p is b itself or
 * any pointer derived from it (a ROW, b + offset, ...). Normally each is the
 * plain expression on the right, so there is no cost at all:
 *   GLD(b, p, i)               p[i]
 *   GST(b, p, i, v)            p[i] = v
 *   GVLD(N, b, i, p)           vloadN(i, p)
 *   GVST(N, b, v, i, p)        vstoreN(v, i, p)
 *   GVSTA(VT, b, v, p)         *(__global VT *)p = v, p aligned to sizeof(VT):
 *                              one vector store (PoCL's vstoreN of char and
 *                              short vectors stores element by element)
 *   GATOMIC(op, b, p, i, v)    op(&p[i], v)      atomic_add, atomic_max, ...
 *   GATOMIC_CMPXCHG(b, p, i, c, v)  atomic_cmpxchg(&p[i], c, v)
 *   GATOMIC_INC(b, p, i)       atomic_inc(&p[i])
 * and in kernel and helper signatures:
 *   CLV_DBG_PARAMS        after a kernel's last parameter, no comma
 *   CLV_DBG_BUF(b, pos);  first in a kernel body, once per buffer argument b it
 *                         accesses, pos = b's 0-based argument position
 *   CLV_DBG_PARAM(b)      after a helper function's pointer parameter b, no
 *                         comma: the helper accesses b with the macros above
 *   CLV_DBG_PASS(b)       after the pointer argument in the call of such a
 *                         helper, no comma: b is the caller's buffer name
 *   CLV_DBG_PICK(b, c, b1, b0);  in a kernel, after CLV_DBG_BUF(b1) and (b0):
 *                         the name b stands for buffer b1 when c, else b0
 *                         (for a pointer chosen as c ? b1 : b0)
 * With -DCLV_DEBUG=1 (CLV_DEBUG=1 in the environment) the kernel takes two
 * more arguments, clv_dbg_sizes[pos] (byte size of argument pos when it is a
 * buffer, else 0) and clv_dbg_err (uint[8], zeroed before each launch), and
 * every accessor checks that all elements it touches lie inside b. An access
 * that does not loads 0 (the atomics return 0) or stores nothing, so memory
 * outside the buffers is never touched, and the first failing work-item
 * records: err[0] = 1, err[1..3] = its global id, err[4] = the index of the
 * access's first element relative to b, in units of *p (low 32 bits),
 * err[5] = pos, err[6] = __LINE__, err[7] = 0 load, 1 store or atomic,
 * 2 misaligned GVSTA store.
 * In debug mode the arguments may be evaluated twice (keep them free of side
 * effects) and GLD of a char or short gives an int of the same value. */
#ifdef CLV_DEBUG
typedef struct {
    ulong base;  /* address of the buffer argument's first byte */
    ulong bytes; /* its size */
    int arg;     /* its argument position */
    __global volatile uint *err;
} clv_dbg_buf;

#define CLV_DBG_PARAMS , __global const ulong *clv_dbg_sizes, __global volatile uint *clv_dbg_err
#define CLV_DBG_BUF(b, pos)                                                                     \
    const clv_dbg_buf b##_dbg = {(ulong)(size_t)(b), clv_dbg_sizes[pos], (pos), clv_dbg_err}
#define CLV_DBG_PARAM(b) , const clv_dbg_buf b##_dbg
#define CLV_DBG_PASS(b) , b##_dbg
#define CLV_DBG_PICK(b, c, b1, b0) const clv_dbg_buf b##_dbg = (c) ? b1##_dbg : b0##_dbg

/* Records a fault in b's record (the first one only): the element index off
 * (bytes from b's start, in units of esize), the source line and the kind
 * (0 load, 1 store or atomic, 2 misaligned vector store). */
static inline void clv_dbg_record(const clv_dbg_buf b, long off, uint esize, int line, uint kind)
{
    if (atomic_cmpxchg(&b.err[0], 0u, 1u) == 0u) {
        b.err[1] = (uint)get_global_id(0);
        b.err[2] = (uint)get_global_id(1);
        b.err[3] = (uint)get_global_id(2);
        b.err[4] = (uint)(off / (long)esize);
        b.err[5] = (uint)b.arg;
        b.err[6] = (uint)line;
        b.err[7] = kind;
    }
}

/* 1 when n elements of esize bytes from element i of the pointer at address
 * addr lie inside b; otherwise records the fault and is 0. */
static inline int clv_dbg_ok(const clv_dbg_buf b, ulong addr, long i, uint esize, uint n, int line,
                      int store)
{
    const long off = (long)(addr - b.base) + i * (long)esize; /* bytes from b's start */
    if (off >= 0 && (ulong)off <= b.bytes && (ulong)n * esize <= b.bytes - (ulong)off)
        return 1;
    clv_dbg_record(b, off, esize, line, (uint)store);
    return 0;
}
#define CLV_DBG_OK(b, p, i, n, store)                                                           \
    clv_dbg_ok(b##_dbg, (ulong)(size_t)(p), (long)(i), (uint)sizeof(*(p)), (n), __LINE__, (store))
/* As clv_dbg_ok for a whole-vector load or store of n elements at addr,
 * which must also be aligned to the vector's size: a misaligned one is
 * recorded as kind 2. */
static inline int clv_dbg_ok_aligned(const clv_dbg_buf b, ulong addr, uint esize, uint n, int line,
                                     int store)
{
    if (addr % ((ulong)esize * n) == 0)
        return clv_dbg_ok(b, addr, 0, esize, n, line, store);
    clv_dbg_record(b, (long)(addr - b.base), esize, line, 2u);
    return 0;
}

#define GLD(b, p, i) (CLV_DBG_OK(b, p, i, 1, 0) ? (p)[i] : 0)
#define GST(b, p, i, v) (CLV_DBG_OK(b, p, i, 1, 1) ? (void)((p)[i] = (v)) : (void)0)
#define GVLD(N, b, i, p)                                                                        \
    (CLV_DBG_OK(b, p, (long)(i) * (N), N, 0) ? CAT(vload, N)((i), (p)) : (char)0)
#define GVST(N, b, v, i, p)                                                                     \
    (CLV_DBG_OK(b, p, (long)(i) * (N), N, 1) ? CAT(vstore, N)((v), (i), (p)) : (void)0)
#define GVSTA(VT, b, v, p)                                                                      \
    (clv_dbg_ok_aligned(b##_dbg, (ulong)(size_t)(p), (uint)sizeof(*(p)), (uint)vec_step(VT),      \
                        __LINE__, 1)                                                            \
         ? (void)(*(__global VT *)(p) = (v))                                                    \
         : (void)0)
/* GVLDA: a whole-vector load of type VT from p, which must be aligned to the
 * vector's size (a misaligned one is recorded as kind 2, like GVSTA's) */
#define GVLDA(VT, b, p)                                                                         \
    (clv_dbg_ok_aligned(b##_dbg, (ulong)(size_t)(p), (uint)sizeof(*(p)), (uint)vec_step(VT),      \
                        __LINE__, 0)                                                            \
         ? *(__global const VT *)(p)                                                            \
         : (VT)0)
#define GATOMIC(op, b, p, i, v) (CLV_DBG_OK(b, p, i, 1, 1) ? op(&(p)[i], (v)) : 0)
#define GATOMIC_CMPXCHG(b, p, i, c, v)                                                          \
    (CLV_DBG_OK(b, p, i, 1, 1) ? atomic_cmpxchg(&(p)[i], (c), (v)) : 0)
#define GATOMIC_INC(b, p, i) (CLV_DBG_OK(b, p, i, 1, 1) ? atomic_inc(&(p)[i]) : 0)
#else
#define CLV_DBG_PARAMS
#define CLV_DBG_BUF(b, pos)
#define CLV_DBG_PARAM(b)
#define CLV_DBG_PASS(b)
#define CLV_DBG_PICK(b, c, b1, b0)
#define GLD(b, p, i) ((p)[i])
#define GST(b, p, i, v) ((p)[i] = (v))
#define GVLD(N, b, i, p) CAT(vload, N)((i), (p))
#define GVST(N, b, v, i, p) CAT(vstore, N)((v), (i), (p))
#define GVSTA(VT, b, v, p) (*(__global VT *)(p) = (v))
#define GVLDA(VT, b, p) (*(__global const VT *)(p))
/* (fixed arities: OpenCL C 1.2 has no variadic macros, and NVIDIA enforces it) */
#define GATOMIC(op, b, p, i, v) op(&(p)[i], (v))
#define GATOMIC_CMPXCHG(b, p, i, c, v) atomic_cmpxchg(&(p)[i], (c), (v))
#define GATOMIC_INC(b, p, i) atomic_inc(&(p)[i])
#endif

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
/* VLOAD/VSTORE: pixel x of a __local or private row; GVLOAD/GVSTORE: of a
 * row in buffer argument b (see the accessors above). */
#if CN == 1
#define TN T
#define FN float
#define VLOAD(x, p) ((p)[x])
#define VSTORE(v, x, p) ((p)[x] = (v))
#define GVLOAD(b, x, p) GLD(b, p, x)
#define GVSTORE(b, v, x, p) GST(b, p, x, v)
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
#if CN > 1
#define GVLOAD(b, x, p) GVLD(CN, b, (x), (p))
#define GVSTORE(b, v, x, p) GVST(CN, b, (v), (x), (p))
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

/* Pixel x of a row of buffer argument b. */
#define LOAD_PIX(b, row, x) TO_FN(GVLOAD(b, (x), (row)))
#define STORE_PIX(b, row, x, v) GVSTORE(b, FROM_FN(v), (x), (row))
/* Float pixels in scratch buffers (packed CN floats per pixel). */
#define LOAD_FPIX(b, row, x) GVLOAD(b, (x), (row))
#define STORE_FPIX(b, row, x, v) GVSTORE(b, (v), (x), (row))
#endif /* CN */

/* ---- CPU variants: VEC consecutive channel values per work-item ----
 * A row of width*CN values is processed as a flat array in VEC-wide vectors.
 * Image pitches are multiples of 64 bytes and scratch pitches multiples of
 * VEC floats, so a vector that starts inside a row never leaves the row's
 * pitch: tails need no special case (lanes past the row land in padding). */
#ifdef VEC
#define FV CAT(float, VEC)
/* VEC values from value e of a row of buffer argument b. */
#define VLOAD_AT(b, e, p) GVLD(VEC, b, 0, (p) + (e))
#define VSTORE_AT(b, v, e, p) GVST(VEC, b, (v), 0, (p) + (e))
/* VEC values of type T from value e of a T row; e % VEC == 0 (rows start at
 * 64-byte boundaries, so the store is aligned). */
#define VSTORET_AT(b, v, e, p) GVSTA(CAT(T, VEC), b, (v), (p) + (e))
/* VLOADF_AT / VSTOREF_AT: VEC floats at any float boundary, as VLOAD_AT
 * and VSTORE_AT on float rows; VLOADT_AT: VEC values of T at any T
 * boundary. Plain accesses through vector types aligned to their element:
 * PoCL 3.1 lowers vload16 / vstore16 to 8-byte pieces (vstore16 to three
 * stores) wherever the value is not folded into one arithmetic
 * instruction, where these are one unaligned vector access. */
#ifdef CLV_DEBUG
#define VLOADF_AT(b, e, p) VLOAD_AT(b, e, p)
#define VSTOREF_AT(b, v, e, p) VSTORE_AT(b, v, e, p)
#define VLOADT_AT(b, e, p) VLOAD_AT(b, e, p)
#else
typedef FV clv_fv_u __attribute__((aligned(4)));
#ifdef T
typedef CAT(T, VEC) clv_tv_u __attribute__((aligned(sizeof(T))));
#endif
#define VLOADF_AT(b, e, p) (*(__global const clv_fv_u *)((p) + (e)))
#define VSTOREF_AT(b, v, e, p) (*(__global clv_fv_u *)((p) + (e)) = (v))
#define VLOADT_AT(b, e, p) (*(__global const clv_tv_u *)((p) + (e)))
#endif
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

/* As clv_border_index for i at most n - 1 outside [0, n) (one reflection
 * or wrap reaches it, n >= 2): no division. For edge loads whose reach the
 * host has bounded (box_reg); beyond it the answer is wrong. */
static inline int clv_border_index_near(int i, int n, int mode)
{
    if (i >= 0 && i < n)
        return i;
    if (mode == BORDER_CONSTANT)
        return -1;
    if (mode == BORDER_REPLICATE)
        return clamp(i, 0, n - 1);
    if (mode == BORDER_WRAP)
        return i < 0 ? i + n : i - n;
    if (mode == BORDER_REFLECT)
        return i < 0 ? -i - 1 : 2 * n - 1 - i;
    /* REFLECT101 */
    return i < 0 ? -i : 2 * n - 2 - i;
}

/* Map coordinate i into [0, n) following the border mode; -1 means "outside,
 * use the constant 0". Works for any distance from the image: i is first
 * brought into one period of the mode's pattern (n for wrap, 2 n for
 * reflect, 2 n - 2 for reflect 101), from which one reflection reaches
 * [0, n). */
static inline int clv_border_index(int i, int n, int mode)
{
    /* inside, and the modes whose rule holds at any distance */
    if ((i >= 0 && i < n) || mode == BORDER_CONSTANT || mode == BORDER_REPLICATE)
        return clv_border_index_near(i, n, mode);
    if (n == 1)
        return 0;
    const int p = mode == BORDER_WRAP ? n : mode == BORDER_REFLECT ? 2 * n : 2 * n - 2;
    int m = i % p;
    if (m < 0)
        m += p;
    return clv_border_index_near(m, n, mode);
}

#ifdef BORDER
#define BORDER_INDEX(i, n) clv_border_index((i), (n), BORDER)
/* Row indices of the u8 wide passes' second halves (box_wv, gauss_wv): one
 * reflection where the host knows every row they reach lies within
 * n - 1 rows of the image (-DROWS_NEAR), else the general rule. The
 * general rule's division cost them 4-5 % at 3840x2160 on the H100
 * (2026-12-05, run_gpu.sh span2). */
#ifdef ROWS_NEAR
#define BORDER_ROW(i, n) clv_border_index_near((i), (n), BORDER)
#else
#define BORDER_ROW(i, n) BORDER_INDEX(i, n)
#endif
#ifdef CN
/* Value v (any integer) of a flattened row of `width` CN-channel pixels
 * through the border rule: the index of the value it maps to, or -1 for the
 * constant 0. */
static inline int clv_border_value(int v, int width)
{
    const int x = v >= 0 ? v / CN : -((-v + CN - 1) / CN); /* floor(v / CN) */
    const int sx = BORDER_INDEX(x, width);
    return sx < 0 ? -1 : sx * CN + (v - x * CN);
}

/* As clv_border_value through clv_border_index_near: for pixels at most
 * width - 1 outside the row (the u8 register kernels' edge loads, whose
 * reach their hosts bound); no division but the constant one by CN. */
static inline int clv_border_value_near(int v, int width)
{
    const int x = v >= 0 ? v / CN : -((-v + CN - 1) / CN); /* floor(v / CN) */
    const int sx = clv_border_index_near(x, width, BORDER);
    return sx < 0 ? -1 : sx * CN + (v - x * CN);
}

#ifdef DEPTH_U8
/* For the u8 register kernels (box_reg, gauss_reg, pyr_reg): values
 * e .. e + 4 nw - 1 of row sy (a BORDER_INDEX result; -1: the constant
 * border's zeros) of a flattened row of `width` CN-channel pixels, into
 * v[0 .. 4 nw). inside (the caller knows): e >= 0, e % 4 == 0 and
 * e + 4 nw <= width * CN, so nw aligned 4-byte loads (rows start on 64-byte
 * boundaries, image.c's PITCH_ALIGN); otherwise value by value through
 * clv_border_value_near: the host takes these kernels only for rows wide
 * enough that one reflection reaches every value (CLV__SPAN_FITS in
 * src/runtime/internal.h). The general rule there (a division per value)
 * made box_reg a third slower (H200, 3840x2160: 29.3-30.5 us against
 * 19.0-20.2 with a clamp, 2026-12-05, bench/variants/mk_box.py). nw is a
 * constant at every call: the loops unroll on GPUs and v stays in
 * registers. */
static inline void clv_u8_span(__global const uchar *src CLV_DBG_PARAM(src), int src_pitch,
                               int sy, int e, int nw, int inside, int width, int *v)
{
    if (sy < 0) {
        CLV_UNROLL
        for (int b = 0; b < 4 * nw; b++)
            v[b] = 0;
        return;
    }
    __global const uchar *row = ROW(src, src_pitch, sy);
    if (inside) {
        CLV_UNROLL
        for (int w = 0; w < nw; w++) {
            const int4 q = convert_int4(GVLDA(uchar4, src, row + e + 4 * w));
            v[4 * w] = q.s0;
            v[4 * w + 1] = q.s1;
            v[4 * w + 2] = q.s2;
            v[4 * w + 3] = q.s3;
        }
    } else {
        CLV_UNROLL
        for (int b = 0; b < 4 * nw; b++) {
            const int i = clv_border_value_near(e + b, width);
            v[b] = i < 0 ? 0 : (int)GLD(src, row, i);
        }
    }
}

/* A 16-vector's lanes into a[o .. o + 15] and back, lane by lane with
 * constant indices: a private array that only ever sees constant indices
 * stays in registers on GPU compilers, where vstore16/vload16 through a
 * private pointer may put it in memory. */
#define CLV_SPLIT16(a, o, x)                                                                    \
    do {                                                                                       \
        (a)[(o) + 0] = (x).s0;                                                                 \
        (a)[(o) + 1] = (x).s1;                                                                 \
        (a)[(o) + 2] = (x).s2;                                                                 \
        (a)[(o) + 3] = (x).s3;                                                                 \
        (a)[(o) + 4] = (x).s4;                                                                 \
        (a)[(o) + 5] = (x).s5;                                                                 \
        (a)[(o) + 6] = (x).s6;                                                                 \
        (a)[(o) + 7] = (x).s7;                                                                 \
        (a)[(o) + 8] = (x).s8;                                                                 \
        (a)[(o) + 9] = (x).s9;                                                                 \
        (a)[(o) + 10] = (x).sa;                                                                \
        (a)[(o) + 11] = (x).sb;                                                                \
        (a)[(o) + 12] = (x).sc;                                                                \
        (a)[(o) + 13] = (x).sd;                                                                \
        (a)[(o) + 14] = (x).se;                                                                \
        (a)[(o) + 15] = (x).sf;                                                                \
    } while (0)
#define CLV_JOIN16(VT, a)                                                                       \
    ((VT)((a)[0], (a)[1], (a)[2], (a)[3], (a)[4], (a)[5], (a)[6], (a)[7], (a)[8], (a)[9],      \
          (a)[10], (a)[11], (a)[12], (a)[13], (a)[14], (a)[15]))

/* Value e + l of the row at `row` through the border rule (0 past a
 * constant border), one reflection (clv_border_value_near). */
#define CLV_U8_AT(l)                                                                            \
    (i_ = clv_border_value_near(e + (l), width), i_ < 0 ? 0 : (int)GLD(src, row, i_))

/* Values e .. e + 15 of the row at `row` through the border rule, as one
 * vector built lane by lane (no private array: see CLV_SPLIT16); at most
 * width - 1 pixels outside the row (clv_u8_words16's hosts bound it). */
static inline int16 clv_u8_border16(__global const uchar *src CLV_DBG_PARAM(src),
                                    __global const uchar *row, int e, int width)
{
    int i_;
    int16 u;
    u.s0 = CLV_U8_AT(0);
    u.s1 = CLV_U8_AT(1);
    u.s2 = CLV_U8_AT(2);
    u.s3 = CLV_U8_AT(3);
    u.s4 = CLV_U8_AT(4);
    u.s5 = CLV_U8_AT(5);
    u.s6 = CLV_U8_AT(6);
    u.s7 = CLV_U8_AT(7);
    u.s8 = CLV_U8_AT(8);
    u.s9 = CLV_U8_AT(9);
    u.sa = CLV_U8_AT(10);
    u.sb = CLV_U8_AT(11);
    u.sc = CLV_U8_AT(12);
    u.sd = CLV_U8_AT(13);
    u.se = CLV_U8_AT(14);
    u.sf = CLV_U8_AT(15);
    return u;
}
#undef CLV_U8_AT

/* As clv_u8_span in whole 16-byte vectors, the values left packed 4 to a
 * word (box_wh, gauss_wh: a quarter of the registers of one int per value):
 * values e .. e + 16 nv - 1 of the row at `row` into the words
 * w[0 .. 4 nv), value i in byte i % 4 of w[i / 4] (CLV_U8_WORD); inside:
 * e >= 0, e % 16 == 0 and e + 16 nv <= width * CN, so nv aligned 16-byte
 * loads; otherwise value by value through one reflection (the same width
 * bound), packed the same way. w sees constant indices only (the loop
 * unrolls on GPUs), so it can stay in registers. */
static inline void clv_u8_words16(__global const uchar *src CLV_DBG_PARAM(src),
                                  __global const uchar *row, int e, int nv, int inside,
                                  int width, uint *w)
{
    CLV_UNROLL
    for (int q = 0; q < nv; q++) {
        uint4 u;
        if (inside) {
            u = as_uint4(GVLDA(uchar16, src, row + e + 16 * q));
        } else {
            const uint16 b =
                convert_uint16(clv_u8_border16(src CLV_DBG_PASS(src), row, e + 16 * q, width));
            u = b.s048c | b.s159d << 8 | b.s26ae << 16 | b.s37bf << 24;
        }
        w[4 * q] = u.s0;
        w[4 * q + 1] = u.s1;
        w[4 * q + 2] = u.s2;
        w[4 * q + 3] = u.s3;
    }
}
/* Value i of clv_u8_words16's words w (i a constant once unrolled). */
#define CLV_U8_WORD(w, i) (((w)[(i) >> 2] >> (((i) & 3) * 8)) & 0xffu)

/* 8 values at out (8-byte aligned), one aligned store, or the first n of
 * them (n < 8, a row's last values) one by one (box_wv, gauss_wv). */
static inline void clv_u8_store8(__global uchar *dst CLV_DBG_PARAM(dst), __global uchar *out,
                                 uchar8 o, int n)
{
    if (n >= 8) {
        GVSTA(uchar8, dst, o, out);
    } else {
        uchar a[8];
        vstore8(o, 0, a);
        for (int k = 0; k < n; k++)
            GST(dst, out, k, a[k]);
    }
}

/* Their output: 4 values at out (4-byte aligned), one aligned store, or
 * the first n of them (n < 4, a row's last values) one by one. */
static inline void clv_u8_store4(__global uchar *dst CLV_DBG_PARAM(dst), __global uchar *out,
                                 uchar4 o, int n)
{
    if (n >= 4) {
        GVSTA(uchar4, dst, o, out);
    } else {
        const uchar a[4] = {o.s0, o.s1, o.s2, o.s3};
        for (int k = 0; k < n; k++)
            GST(dst, out, k, a[k]);
    }
}
#endif /* DEPTH_U8 */

#if defined(DEPTH_F32) || defined(DEPTH_U16)
/* The f32 (and u16) register kernels' and wide passes' loads (box_regf,
 * box_whf, gauss_whf), as clv_u8_span: values e .. e + 4 nw - 1 of row sy
 * (a BORDER_INDEX result; -1: the constant border's zeros) as floats, each
 * times scale, into v[0 .. 4 nw). inside (the caller knows): e >= 0,
 * e % 4 == 0 and e + 4 nw <= width * CN, so nw aligned 4-value loads (rows
 * start on 64-byte boundaries); otherwise value by value through one
 * reflection (clv_border_value_near; the host takes these kernels only for
 * rows wide enough, CLV__SPAN_FITS). */
static inline void clv_f32_span4(__global const T *src CLV_DBG_PARAM(src), int src_pitch,
                                 int sy, int e, int nw, int inside, int width, float scale,
                                 float *v)
{
    if (sy < 0) {
        CLV_UNROLL
        for (int b = 0; b < 4 * nw; b++)
            v[b] = 0.0f;
        return;
    }
    __global const T *row = ROW(src, src_pitch, sy);
    if (inside) {
        CLV_UNROLL
        for (int w = 0; w < nw; w++) {
            const float4 q = convert_float4(GVLDA(CAT(T, 4), src, row + e + 4 * w)) * scale;
            v[4 * w] = q.s0;
            v[4 * w + 1] = q.s1;
            v[4 * w + 2] = q.s2;
            v[4 * w + 3] = q.s3;
        }
    } else {
        CLV_UNROLL
        for (int b = 0; b < 4 * nw; b++) {
            const int i = clv_border_value_near(e + b, width);
            v[b] = i < 0 ? 0.0f : (float)GLD(src, row, i) * scale;
        }
    }
}

/* 4 float results as 4 values of T (u16: rounded half up and saturated, as
 * FROM_FN) */
#if defined(DEPTH_F32)
#define CLV_F4_OUT(o) (o)
#else
#define CLV_F4_OUT(o) CAT(convert_, CAT(T, 4))(clamp((o) + 0.5f, 0.0f, T_MAXF))
#endif
/* The f32 (and u16) register kernels' and wide passes' output (box_regf,
 * box_wvf, gauss_wvf): 4 values at out (aligned to 4 values), one aligned
 * store, or the first n of them (n < 4, a row's last values) one by one. */
static inline void clv_f32_store4(__global T *dst CLV_DBG_PARAM(dst), __global T *out, float4 o,
                                  int n)
{
    if (n >= 4) {
        GVSTA(CAT(T, 4), dst, CLV_F4_OUT(o), out);
    } else {
        const float a[4] = {o.s0, o.s1, o.s2, o.s3};
        for (int k = 0; k < n; k++)
            GST(dst, out, k, FROM_FN_SCALAR(a[k]));
    }
}
#endif
#endif /* CN */
#endif /* BORDER */

/* 2^x for a filter weight (x <= 0 and the largest weight about 1): with
 * -DCLV_NV_PTX (NVIDIA's compiler, from the host) the bare hardware
 * instruction, ex2.approx.ftz, whose results below 2^-126 flush to 0:
 * native_exp2 there wraps the same instruction in three more that keep
 * denormal results, a third of a bilateral tap's work for weights that
 * small. Elsewhere native_exp2. */
static inline float clv_exp2_weight(float x)
{
#ifdef CLV_NV_PTX
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
#else
    return native_exp2(x);
#endif
}

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
    static inline FT clv_log2_##NAME(FT x)                                                      \
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
    static inline FT clv_exp2_##NAME(FT x)                                                      \
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
