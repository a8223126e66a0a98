/* Transpose through a local-memory tile: reads and writes both run along rows.
 * Needs DEPTH_*, CN and TILE (tile side). Work-group: (TILE, rows) with
 * rows dividing the tile; global: (ceil(w/TILE)*TILE, ceil(h/TILE)*rows). */
#ifndef TILE
#error "TILE must be defined"
#endif

__kernel void transpose(__global const T *src, int src_pitch, __global T *dst, int dst_pitch,
                        int width, int height CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 2);
    __local TN tile[TILE][TILE + 1];
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int rows = get_local_size(1);
    const int bx = get_group_id(0) * TILE;
    const int by = get_group_id(1) * TILE;

    for (int j = ly; j < TILE; j += rows) {
        const int x = bx + lx, y = by + j;
        if (x < width && y < height)
            tile[j][lx] = GVLOAD(src, x, ROW(src, src_pitch, y));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = ly; j < TILE; j += rows) {
        const int x = by + lx; /* column in dst = row in src */
        const int y = bx + j;  /* row in dst = column in src */
        if (x < height && y < width)
            GVSTORE(dst, tile[lx][j], x, ROW(dst, dst_pitch, y));
    }
}

#if defined(DEPTH_U8) && CN == 3 && defined(TR_RGB)
/* GPUs, u8 x 3: the tile above with every global store a whole word, so a
 * warp's store fills whole 32-byte sectors (the tile's byte stores, three
 * to a pixel, write each sector in thirds, and stores are not merged on
 * their way to L2). The tile holds a pixel per uint (its bytes low, top
 * byte 0). Loads: a work-item takes 4 pixels (3 words) of a source row;
 * loads pass through L1, so their partial sectors cost no extra traffic.
 * Stores: word w of a destination row's 96-byte run holds bytes of pixels
 * 4g + m and 4g + m + 1 (g = w / 3, m = w % 3). Tiles cut by the image's
 * edge go pixel by pixel. Rows start on 64-byte boundaries (image.c's
 * PITCH_ALIGN) and tiles on multiples of 32 pixels, so words are aligned. */
#if TILE != 32
#error "transpose_rgb moves 32x32 tiles (-DTILE=32, from transpose.c)"
#endif
#ifndef __ENDIAN_LITTLE__
#error "transpose_rgb packs bytes into words in little-endian order"
#endif
__kernel void transpose_rgb(__global const uchar *restrict src, int src_pitch,
                            __global uchar *restrict dst, int dst_pitch, int width,
                            int height CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 2);
    __local uint tile[32][33]; /* tile[j][i]: source row by + j, pixel bx + i */
    const int lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    const int nl = get_local_size(0) * get_local_size(1);
    const int bx = get_group_id(0) * 32, by = get_group_id(1) * 32;
    const int full = bx + 32 <= width && by + 32 <= height;
    for (int t = lid; t < 32 * 8; t += nl) {
        const int j = t >> 3, q = t & 7; /* row j, pixels 4q .. 4q + 3 */
        __global const uchar *row = ROW(src, src_pitch, by + j) + 3 * (bx + 4 * q);
        if (full) {
            const uint3 v = GVLD(3, src, 0, (__global const uint *)row);
            tile[j][4 * q] = v.x & 0xffffffu;
            tile[j][4 * q + 1] = (v.x >> 24) | ((v.y & 0xffffu) << 8);
            tile[j][4 * q + 2] = (v.y >> 16) | ((v.z & 0xffu) << 16);
            tile[j][4 * q + 3] = v.z >> 8;
        } else {
            for (int k = 0; k < 4; k++) {
                uint u = 0;
                if (by + j < height && bx + 4 * q + k < width)
                    u = (uint)GLD(src, row, 3 * k) | (uint)GLD(src, row, 3 * k + 1) << 8 |
                        (uint)GLD(src, row, 3 * k + 2) << 16;
                tile[j][4 * q + k] = u;
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int t = lid; t < 32 * 24; t += nl) {
        const int r = t / 24, w = t - 24 * r; /* destination row bx + r, word w */
        __global uchar *row = ROW(dst, dst_pitch, bx + r) + 3 * by;
        if (full) {
            const int g = w / 3, m = w - 3 * g, pa = 4 * g + m;
            const uint a = tile[pa][r], b = tile[pa + 1][r];
            GVSTA(uint, dst, (a >> (8 * m)) | (b << (24 - 8 * m)), (__global uint *)(row + 4 * w));
        } else if (bx + r < width) {
            for (int k = 0; k < 4; k++) {
                const int e = 4 * w + k, p = e / 3;
                if (by + p < height)
                    GST(dst, row, e, (uchar)(tile[p][r] >> (8 * (e - 3 * p))));
            }
        }
    }
}
#endif

#if defined(DEPTH_U8) && defined(TR_REG)
/* GPUs, u8: blocks of 16x4 pixels in registers, no local memory and no
 * barrier (as box_reg in box.c). Work-item (j, i) reads pixels 16i .. 16i+15
 * of source rows 4j .. 4j+3 (CN aligned 16-byte loads per row) and writes
 * them as pixels 4j .. 4j+3 of destination rows 16i .. 16i+15 (CN aligned
 * 4-byte stores per row). Dimension 0 runs along j, so neighbouring
 * work-items store neighbouring words of a destination row; their loads hit
 * other rows, 16 bytes of each (4x4 blocks read 4 bytes of a row per load,
 * and took 1.7 times as long: transpose.c). Blocks cut by the image's right
 * or bottom edge go pixel by pixel. The aligned accesses rely on rows
 * starting on 64-byte boundaries (image.c's PITCH_ALIGN). TR_BX is the block
 * width transpose.c sizes the launch by. */
#if TR_BX != 16
#error "transpose_reg moves blocks 16 pixels wide (-DTR_BX=16, from transpose.c)"
#endif
/* A row's 16 CN bytes are kept as words: a uchar16 load, or a uint4 one
 * whose bytes are then read as uchars, compiles to four 4-byte loads on
 * NVPTX. Byte q of a row is its word's low byte first (little-endian
 * devices: every GPU and CPU OpenCL targets). */
#ifndef __ENDIAN_LITTLE__
#error "transpose_reg reads bytes out of words in little-endian order"
#endif
#define TR_BYTE(r, q) ((uchar)(wv[r][(q) >> 2] >> (8 * ((q)&3))))
__kernel void transpose_reg(__global const uchar *restrict src, int src_pitch,
                            __global uchar *restrict dst, int dst_pitch, int width,
                            int height CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 2);
    const int j = get_global_id(0), i = get_global_id(1);
    const int x0 = 16 * i, y0 = 4 * j;
    if (x0 >= width || y0 >= height)
        return;
    if (x0 + 16 <= width && y0 + 4 <= height) {
        uint wv[4][4 * CN]; /* byte k CN + c of wv[r]: source row y0 + r, pixel x0 + k */
        CLV_UNROLL
        for (int r = 0; r < 4; r++) {
            __global const uchar *row = ROW(src, src_pitch, y0 + r) + x0 * CN;
            CLV_UNROLL
            for (int w = 0; w < CN; w++)
                vstore4(GVLDA(uint4, src, (__global const uint *)(row + 16 * w)), 0, &wv[r][4 * w]);
        }
        CLV_UNROLL
        for (int k = 0; k < 16; k++) {
            uchar o[4 * CN]; /* destination row x0 + k: pixel y0 + r at r CN + c */
            CLV_UNROLL
            for (int r = 0; r < 4; r++)
                CLV_UNROLL
                for (int c = 0; c < CN; c++)
                    o[r * CN + c] = TR_BYTE(r, k * CN + c);
            __global uchar *row = ROW(dst, dst_pitch, x0 + k) + y0 * CN;
            CLV_UNROLL
            for (int w = 0; w < CN; w++)
                GVSTA(uchar4, dst, (uchar4)(o[4 * w], o[4 * w + 1], o[4 * w + 2], o[4 * w + 3]),
                      row + 4 * w);
        }
    } else {
        for (int y = y0; y < min(y0 + 4, height); y++)
            for (int x = x0; x < min(x0 + 16, width); x++)
                for (int c = 0; c < CN; c++)
                    GST(dst, ROW(dst, dst_pitch, x), y * CN + c,
                        GLD(src, ROW(src, src_pitch, y), x * CN + c));
    }
}
#undef TR_BYTE
#endif

#ifdef VEC
/* ---- CPU variants: no barrier, no local memory, so PoCL runs them as plain
 * code. A work-item transposes an SB x SB super-block (SB a multiple of 16)
 * as blocks of 16x16 pixels, column of blocks by column, so with SB = 64 a
 * destination row gets 64 consecutive pixels (whole cache lines for u8) while
 * they are in cache. Blocks at the right and bottom edges go pixel by pixel.
 * Full blocks store whole destination rows of the block with aligned vector
 * stores (rows start at 64-byte boundaries, blocks at multiples of 16
 * pixels). ---- */
#ifndef SB
#error "SB must be defined"
#endif
#define TV CAT(T, 16)

/* The 16x16 block at (bx, by), partly or wholly outside the image. */
static inline void transpose_edge(__global const T *src CLV_DBG_PARAM(src), int src_pitch,
                           __global T *dst CLV_DBG_PARAM(dst), int dst_pitch, int width,
                           int height, int bx, int by)
{
    for (int y = by; y < min(by + 16, height); y++)
        for (int x = bx; x < min(bx + 16, width); x++)
            GVSTORE(dst, GVLOAD(src, x, ROW(src, src_pitch, y)), y, ROW(dst, dst_pitch, x));
}

#define TRANSPOSE_SUPER(BLOCK, EDGE)                                                            \
    {                                                                                           \
        const int x0 = get_global_id(0) * SB, y0 = get_global_id(1) * SB;                       \
        for (int bx = x0; bx < min(x0 + SB, width); bx += 16)                                   \
            for (int by = y0; by < min(y0 + SB, height); by += 16) {                            \
                if (bx + 16 > width || by + 16 > height)                                        \
                    EDGE(src CLV_DBG_PASS(src), src_pitch, dst CLV_DBG_PASS(dst), dst_pitch,    \
                         width, height, bx, by);                                                \
                else                                                                            \
                    BLOCK(src CLV_DBG_PASS(src), src_pitch, dst CLV_DBG_PASS(dst), dst_pitch,   \
                          bx, by);                                                              \
            }                                                                                   \
    }

/* Streaming (non-temporal) stores for the strip kernels below: the host
 * asks for them with -DSTREAM for large destinations on CPU devices. They
 * write whole cache lines without first reading them (a plain store reads
 * the line it writes into) and keep the destination from evicting the
 * source from the caches. They need clang's builtin and x86's sfence, which
 * orders them before the work-item ends; elsewhere the stores are plain
 * ones, with the same result. */
#if defined(STREAM) && defined(__has_builtin) && (defined(__x86_64__) || defined(__i386__))
#if __has_builtin(__builtin_nontemporal_store) && __has_builtin(__builtin_ia32_sfence)
#define STREAM_STORES
#endif
#endif
#ifdef STREAM_STORES
#ifdef CLV_DEBUG
#define GVSTA_STREAM(VT, b, v, p)                                                               \
    (clv_dbg_ok_aligned(b##_dbg, (ulong)(size_t)(p), (uint)sizeof(*(p)), (uint)vec_step(VT),     \
                        __LINE__, 1)                                                            \
         ? __builtin_nontemporal_store((v), (__global VT *)(p))                                 \
         : (void)0)
#else
#define GVSTA_STREAM(VT, b, v, p) __builtin_nontemporal_store((v), (__global VT *)(p))
#endif
#define STREAM_FENCE() __builtin_ia32_sfence()
#else
#define GVSTA_STREAM(VT, b, v, p) GVSTA(VT, b, v, p)
#define STREAM_FENCE()
#endif

/* As TRANSPOSE_SUPER, by strips 16 source columns wide and SB rows tall:
 * STRIP(.., bx, y0, y1) takes the full 16-row blocks of the strip, so that
 * it can run each destination row of the strip from y0 to y1 in one go
 * (whole cache lines, few rows written at a time: what streaming stores
 * need). */
#define TRANSPOSE_SUPER_STRIP(STRIP, EDGE)                                                      \
    {                                                                                           \
        const int x0 = get_global_id(0) * SB, y0 = get_global_id(1) * SB;                       \
        const int y1 = min(y0 + SB, height), yf = y0 + (y1 - y0) / 16 * 16;                     \
        for (int bx = x0; bx < min(x0 + SB, width); bx += 16) {                                 \
            if (bx + 16 <= width)                                                               \
                STRIP(src CLV_DBG_PASS(src), src_pitch, dst CLV_DBG_PASS(dst), dst_pitch, bx,   \
                      y0, yf);                                                                  \
            for (int by = bx + 16 <= width ? yf : y0; by < y1; by += 16)                        \
                EDGE(src CLV_DBG_PASS(src), src_pitch, dst CLV_DBG_PASS(dst), dst_pitch, width, \
                     height, bx, by);                                                           \
        }                                                                                       \
        STREAM_FENCE();                                                                         \
    }

#if defined(WORD4)
/* Pixels of four bytes (u8 x 4, f32 x 1) move as uints; src_pitch and
 * dst_pitch count uints. A strip is 16x16 blocks, each loaded as 16 whole
 * 64-byte rows, transposed in registers and stored as 16 whole 64-byte
 * destination rows (one cache line each, what streaming stores want). */
static inline void transpose_edge_w4(__global const uint *src CLV_DBG_PARAM(src), int src_pitch,
                              __global uint *dst CLV_DBG_PARAM(dst), int dst_pitch, int width,
                              int height, int bx, int by)
{
    for (int y = by; y < min(by + 16, height); y++)
        for (int x = bx; x < min(bx + 16, width); x++)
            GST(dst, ROW(dst, dst_pitch, x), y, GLD(src, ROW(src, src_pitch, y), x));
}

/* One round of the 16x16 transpose: o[2j] and o[2j + 1] interleave the
 * first and the second halves of r[j] and r[j + 8]. Four rounds transpose
 * (each moves one bit of the column index into the row index): 64
 * two-source shuffles per block, 1/4 per pixel. */
#define TW_LO(a, b)                                                                             \
    (uint16)((a).s0, (b).s0, (a).s1, (b).s1, (a).s2, (b).s2, (a).s3, (b).s3, (a).s4, (b).s4,    \
             (a).s5, (b).s5, (a).s6, (b).s6, (a).s7, (b).s7)
#define TW_HI(a, b)                                                                             \
    (uint16)((a).s8, (b).s8, (a).s9, (b).s9, (a).sa, (b).sa, (a).sb, (b).sb, (a).sc, (b).sc,    \
             (a).sd, (b).sd, (a).se, (b).se, (a).sf, (b).sf)
#define TW_ROUND(r, o)                                                                          \
    for (int j = 0; j < 8; j++) {                                                               \
        o[2 * j] = TW_LO(r[j], r[j + 8]);                                                       \
        o[2 * j + 1] = TW_HI(r[j], r[j + 8]);                                                   \
    }

/* The full 16-row blocks of the strip of source columns bx .. bx + 15, rows
 * y0 .. y1 (rows start on 64 bytes and bx, y0 are multiples of 16 uints, so
 * every load and store is whole and aligned). */
static inline void transpose_strip_w4(__global const uint *src CLV_DBG_PARAM(src), int src_pitch,
                               __global uint *dst CLV_DBG_PARAM(dst), int dst_pitch, int bx,
                               int y0, int y1)
{
    for (int by = y0; by < y1; by += 16) {
        uint16 r[16], t[16];
        CLV_UNROLL
        for (int i = 0; i < 16; i++)
            r[i] = GVLDA(uint16, src, ROW(src, src_pitch, by + i) + bx);
        TW_ROUND(r, t)
        TW_ROUND(t, r)
        TW_ROUND(r, t)
        TW_ROUND(t, r)
        CLV_UNROLL
        for (int i = 0; i < 16; i++)
            GVSTA_STREAM(uint16, dst, r[i], ROW(dst, dst_pitch, bx + i) + by);
    }
}
#undef TW_ROUND
#undef TW_HI
#undef TW_LO

__kernel void transpose_w4(__global const uint *src, int src_pitch, __global uint *dst,
                           int dst_pitch, int width, int height CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 2);
    TRANSPOSE_SUPER_STRIP(transpose_strip_w4, transpose_edge_w4)
}
#elif CN == 1
/* One channel: the full 16x16 block in 16 vector registers. */
static inline void transpose_block1(__global const T *src CLV_DBG_PARAM(src), int src_pitch,
                             __global T *dst CLV_DBG_PARAM(dst), int dst_pitch, int bx, int by)
{
    const TV r0 = GVLD(16, src, 0, ROW(src, src_pitch, by + 0) + bx);
    const TV r1 = GVLD(16, src, 0, ROW(src, src_pitch, by + 1) + bx);
    const TV r2 = GVLD(16, src, 0, ROW(src, src_pitch, by + 2) + bx);
    const TV r3 = GVLD(16, src, 0, ROW(src, src_pitch, by + 3) + bx);
    const TV r4 = GVLD(16, src, 0, ROW(src, src_pitch, by + 4) + bx);
    const TV r5 = GVLD(16, src, 0, ROW(src, src_pitch, by + 5) + bx);
    const TV r6 = GVLD(16, src, 0, ROW(src, src_pitch, by + 6) + bx);
    const TV r7 = GVLD(16, src, 0, ROW(src, src_pitch, by + 7) + bx);
    const TV r8 = GVLD(16, src, 0, ROW(src, src_pitch, by + 8) + bx);
    const TV r9 = GVLD(16, src, 0, ROW(src, src_pitch, by + 9) + bx);
    const TV r10 = GVLD(16, src, 0, ROW(src, src_pitch, by + 10) + bx);
    const TV r11 = GVLD(16, src, 0, ROW(src, src_pitch, by + 11) + bx);
    const TV r12 = GVLD(16, src, 0, ROW(src, src_pitch, by + 12) + bx);
    const TV r13 = GVLD(16, src, 0, ROW(src, src_pitch, by + 13) + bx);
    const TV r14 = GVLD(16, src, 0, ROW(src, src_pitch, by + 14) + bx);
    const TV r15 = GVLD(16, src, 0, ROW(src, src_pitch, by + 15) + bx);
    GVSTA(TV, dst, (TV)(r0.s0, r1.s0, r2.s0, r3.s0, r4.s0, r5.s0, r6.s0, r7.s0, r8.s0, r9.s0, r10.s0, r11.s0, r12.s0, r13.s0, r14.s0, r15.s0), ROW(dst, dst_pitch, bx + 0) + by);
    GVSTA(TV, dst, (TV)(r0.s1, r1.s1, r2.s1, r3.s1, r4.s1, r5.s1, r6.s1, r7.s1, r8.s1, r9.s1, r10.s1, r11.s1, r12.s1, r13.s1, r14.s1, r15.s1), ROW(dst, dst_pitch, bx + 1) + by);
    GVSTA(TV, dst, (TV)(r0.s2, r1.s2, r2.s2, r3.s2, r4.s2, r5.s2, r6.s2, r7.s2, r8.s2, r9.s2, r10.s2, r11.s2, r12.s2, r13.s2, r14.s2, r15.s2), ROW(dst, dst_pitch, bx + 2) + by);
    GVSTA(TV, dst, (TV)(r0.s3, r1.s3, r2.s3, r3.s3, r4.s3, r5.s3, r6.s3, r7.s3, r8.s3, r9.s3, r10.s3, r11.s3, r12.s3, r13.s3, r14.s3, r15.s3), ROW(dst, dst_pitch, bx + 3) + by);
    GVSTA(TV, dst, (TV)(r0.s4, r1.s4, r2.s4, r3.s4, r4.s4, r5.s4, r6.s4, r7.s4, r8.s4, r9.s4, r10.s4, r11.s4, r12.s4, r13.s4, r14.s4, r15.s4), ROW(dst, dst_pitch, bx + 4) + by);
    GVSTA(TV, dst, (TV)(r0.s5, r1.s5, r2.s5, r3.s5, r4.s5, r5.s5, r6.s5, r7.s5, r8.s5, r9.s5, r10.s5, r11.s5, r12.s5, r13.s5, r14.s5, r15.s5), ROW(dst, dst_pitch, bx + 5) + by);
    GVSTA(TV, dst, (TV)(r0.s6, r1.s6, r2.s6, r3.s6, r4.s6, r5.s6, r6.s6, r7.s6, r8.s6, r9.s6, r10.s6, r11.s6, r12.s6, r13.s6, r14.s6, r15.s6), ROW(dst, dst_pitch, bx + 6) + by);
    GVSTA(TV, dst, (TV)(r0.s7, r1.s7, r2.s7, r3.s7, r4.s7, r5.s7, r6.s7, r7.s7, r8.s7, r9.s7, r10.s7, r11.s7, r12.s7, r13.s7, r14.s7, r15.s7), ROW(dst, dst_pitch, bx + 7) + by);
    GVSTA(TV, dst, (TV)(r0.s8, r1.s8, r2.s8, r3.s8, r4.s8, r5.s8, r6.s8, r7.s8, r8.s8, r9.s8, r10.s8, r11.s8, r12.s8, r13.s8, r14.s8, r15.s8), ROW(dst, dst_pitch, bx + 8) + by);
    GVSTA(TV, dst, (TV)(r0.s9, r1.s9, r2.s9, r3.s9, r4.s9, r5.s9, r6.s9, r7.s9, r8.s9, r9.s9, r10.s9, r11.s9, r12.s9, r13.s9, r14.s9, r15.s9), ROW(dst, dst_pitch, bx + 9) + by);
    GVSTA(TV, dst, (TV)(r0.sa, r1.sa, r2.sa, r3.sa, r4.sa, r5.sa, r6.sa, r7.sa, r8.sa, r9.sa, r10.sa, r11.sa, r12.sa, r13.sa, r14.sa, r15.sa), ROW(dst, dst_pitch, bx + 10) + by);
    GVSTA(TV, dst, (TV)(r0.sb, r1.sb, r2.sb, r3.sb, r4.sb, r5.sb, r6.sb, r7.sb, r8.sb, r9.sb, r10.sb, r11.sb, r12.sb, r13.sb, r14.sb, r15.sb), ROW(dst, dst_pitch, bx + 11) + by);
    GVSTA(TV, dst, (TV)(r0.sc, r1.sc, r2.sc, r3.sc, r4.sc, r5.sc, r6.sc, r7.sc, r8.sc, r9.sc, r10.sc, r11.sc, r12.sc, r13.sc, r14.sc, r15.sc), ROW(dst, dst_pitch, bx + 12) + by);
    GVSTA(TV, dst, (TV)(r0.sd, r1.sd, r2.sd, r3.sd, r4.sd, r5.sd, r6.sd, r7.sd, r8.sd, r9.sd, r10.sd, r11.sd, r12.sd, r13.sd, r14.sd, r15.sd), ROW(dst, dst_pitch, bx + 13) + by);
    GVSTA(TV, dst, (TV)(r0.se, r1.se, r2.se, r3.se, r4.se, r5.se, r6.se, r7.se, r8.se, r9.se, r10.se, r11.se, r12.se, r13.se, r14.se, r15.se), ROW(dst, dst_pitch, bx + 14) + by);
    GVSTA(TV, dst, (TV)(r0.sf, r1.sf, r2.sf, r3.sf, r4.sf, r5.sf, r6.sf, r7.sf, r8.sf, r9.sf, r10.sf, r11.sf, r12.sf, r13.sf, r14.sf, r15.sf), ROW(dst, dst_pitch, bx + 15) + by);
}

__kernel void transpose_vec(__global const T *src, int src_pitch, __global T *dst, int dst_pitch,
                            int width, int height CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 2);
    TRANSPOSE_SUPER(transpose_block1, transpose_edge)
}
#elif CN == 3 && defined(DEPTH_U8)
/* Three bytes per pixel: pixels travel as the low three bytes of a uint, so
 * the transpose itself is on 4x4 blocks of uints in registers. A source
 * window is 4 pixels (12 bytes) of a 16-byte load; a destination row of the
 * block is packed back from 16 uints into three aligned 16-byte stores. */
/* The fourth byte of each uint is never stored; it takes the bytes of the
 * load that are not pixels of the window, so that every byte of the load is
 * used (with zeros there LLVM narrows the vector load to six 2-byte inserts). */
static inline uint4 rgb_unpack(uchar16 v) /* bytes 0..11 */
{
    return as_uint4((uchar16)(v.s0, v.s1, v.s2, v.sc, v.s3, v.s4, v.s5, v.sd, v.s6, v.s7, v.s8,
                              v.se, v.s9, v.sa, v.sb, v.sf));
}

static inline uint4 rgb_unpack_hi(uchar16 v) /* bytes 4..15 */
{
    return as_uint4((uchar16)(v.s4, v.s5, v.s6, v.s0, v.s7, v.s8, v.s9, v.s1, v.sa, v.sb, v.sc,
                              v.s2, v.sd, v.se, v.sf, v.s3));
}

static inline void rgb_store_row(__global uchar *dst CLV_DBG_PARAM(dst), __global uchar *q, uint4 d0,
                          uint4 d1, uint4 d2, uint4 d3)
{
    const uchar16 e0 = as_uchar16(d0), e1 = as_uchar16(d1), e2 = as_uchar16(d2),
                  e3 = as_uchar16(d3);
    GVSTA_STREAM(uchar16, dst,
          (uchar16)(e0.s0, e0.s1, e0.s2, e0.s4, e0.s5, e0.s6, e0.s8, e0.s9, e0.sa, e0.sc, e0.sd,
                    e0.se, e1.s0, e1.s1, e1.s2, e1.s4),
          q);
    GVSTA_STREAM(uchar16, dst,
          (uchar16)(e1.s5, e1.s6, e1.s8, e1.s9, e1.sa, e1.sc, e1.sd, e1.se, e2.s0, e2.s1, e2.s2,
                    e2.s4, e2.s5, e2.s6, e2.s8, e2.s9),
          q + 16);
    GVSTA_STREAM(uchar16, dst,
          (uchar16)(e2.sa, e2.sc, e2.sd, e2.se, e3.s0, e3.s1, e3.s2, e3.s4, e3.s5, e3.s6, e3.s8,
                    e3.s9, e3.sa, e3.sc, e3.sd, e3.se),
          q + 32);
}

/* Pixels 4 kb .. 4 kb + 3 of source row y, block column bx. */
#define RGB_WIN(y, kb)                                                                          \
    ((kb) < 3 ? rgb_unpack(GVLD(16, src, 0, ROW(src, src_pitch, y) + 3 * bx + 12 * (kb)))        \
              : rgb_unpack_hi(GVLD(16, src, 0, ROW(src, src_pitch, y) + 3 * bx + 32)))

static inline void transpose_strip3(__global const uchar *src CLV_DBG_PARAM(src), int src_pitch,
                             __global uchar *dst CLV_DBG_PARAM(dst), int dst_pitch, int bx,
                             int y0, int y1)
{
    for (int kb = 0; kb < 4; kb++)             /* destination rows bx + 4 kb .. bx + 4 kb + 3 */
        for (int by = y0; by < y1; by += 16) { /* their pixels by .. by + 15 */
            uint4 d[4][4]; /* d[i][jb]: row bx + 4 kb + i, pixels by + 4 jb .. + 3 */
            for (int jb = 0; jb < 4; jb++) {
                const int y = by + 4 * jb;
                const uint4 r0 = RGB_WIN(y, kb), r1 = RGB_WIN(y + 1, kb),
                            r2 = RGB_WIN(y + 2, kb), r3 = RGB_WIN(y + 3, kb);
                d[0][jb] = (uint4)(r0.s0, r1.s0, r2.s0, r3.s0);
                d[1][jb] = (uint4)(r0.s1, r1.s1, r2.s1, r3.s1);
                d[2][jb] = (uint4)(r0.s2, r1.s2, r2.s2, r3.s2);
                d[3][jb] = (uint4)(r0.s3, r1.s3, r2.s3, r3.s3);
            }
            for (int i = 0; i < 4; i++)
                rgb_store_row(dst CLV_DBG_PASS(dst),
                              ROW(dst, dst_pitch, bx + 4 * kb + i) + 3 * by, d[i][0], d[i][1],
                              d[i][2], d[i][3]);
        }
}
#undef RGB_WIN

__kernel void transpose_vecn(__global const T *src, int src_pitch, __global T *dst, int dst_pitch,
                             int width, int height CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 2);
    TRANSPOSE_SUPER_STRIP(transpose_strip3, transpose_edge)
}
#else

/* 2 to 4 channels: each source row of the block arrives in CN vector
 * loads, is rearranged in private memory, and each destination row leaves in
 * CN aligned vector stores. */
static inline void transpose_blockn(__global const T *src CLV_DBG_PARAM(src), int src_pitch,
                             __global T *dst CLV_DBG_PARAM(dst), int dst_pitch, int bx, int by)
{
    TV t[16 * CN]; /* t[CN j .. CN j + CN - 1] = source row by + j, pixels bx .. bx + 15 */
    for (int j = 0; j < 16; j++) {
        __global const T *p = ROW(src, src_pitch, by + j) + CN * bx;
        for (int v = 0; v < CN; v++)
            t[CN * j + v] = GVLD(16, src, 0, p + 16 * v);
    }
    const T *ts = (const T *)t;
    for (int k = 0; k < 16; k++) {
        TV o[CN]; /* destination row bx + k: pixel k of every source row */
        T *os = (T *)o;
        for (int j = 0; j < 16; j++)
            for (int c = 0; c < CN; c++)
                os[CN * j + c] = ts[16 * CN * j + CN * k + c];
        __global T *q = ROW(dst, dst_pitch, bx + k) + CN * by;
        for (int v = 0; v < CN; v++)
            GVSTA(TV, dst, o[v], q + 16 * v);
    }
}

__kernel void transpose_vecn(__global const T *src, int src_pitch, __global T *dst, int dst_pitch,
                             int width, int height CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 2);
    TRANSPOSE_SUPER(transpose_blockn, transpose_edge)
}
#endif /* CN */
#undef TV
#endif /* VEC */
