/* clvision — separable Gaussian blur, local-memory tiled passes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/internal.h"

#define OP "gaussian_blur"

/* Normalised weights exp(-(i-r)^2 / 2 sigma^2), i = 0..2r. The distance is
 * divided by sigma first: with sigma^2 computed first, a sigma below ~1e-154
 * gave 0/0 = NaN at the centre and NaN weights everywhere. */
void clv__gaussian_weights(double sigma, int ksize, float *w)
{
    const int r = ksize / 2;
    double tmp[CLV_GAUSSIAN_MAX_KSIZE], sum = 0.0;
    for (int i = 0; i < ksize; i++) {
        const double u = (double)(i - r) / sigma;
        tmp[i] = exp(-0.5 * u * u);
        sum += tmp[i];
    }
    for (int i = 0; i < ksize; i++)
        w[i] = (float)(tmp[i] / sum);
}

/* Device buffer of the weights for (sigma, ksize), reused while unchanged. */
static clv_status weights_buffer(clv_context *ctx, int slot, double sigma, int ksize, cl_mem *out)
{
    struct {
        double sigma;
        int ksize;
    } key;
    memset(&key, 0, sizeof key);
    key.sigma = sigma;
    key.ksize = ksize;
    if (clv__param_lookup(ctx, slot, &key, sizeof key, out))
        return CLV_OK;
    float w[CLV_GAUSSIAN_MAX_KSIZE];
    clv__gaussian_weights(sigma, ksize, w);
    return clv__param_store(ctx, OP, slot, &key, sizeof key, w, (size_t)ksize * sizeof(float),
                            out);
}

/* gauss_band_u16's weights for (sigma, ksize <= 31), in 0.16 fixed point
 * (gaussian.cl): q[t], t < r, the doubled weight of taps t and 2r - t
 * (each below 0.5, so below 65536 doubled); q[r], the centre's, the rest of
 * 65536, at most 65535. Floored, so that the taps' sum stays within 16
 * bits. */
static void gauss_q16(double sigma, int ksize, cl_ushort16 *q)
{
    float w[CLV_GAUSSIAN_MAX_KSIZE];
    const int r = ksize / 2;
    clv__gaussian_weights(sigma, ksize, w);
    memset(q, 0, sizeof *q);
    unsigned sum = 0;
    for (int t = 0; t < r; t++) {
        const unsigned pair = 2u * (unsigned)floor((double)w[t] * 65536.0);
        q->s[t] = (cl_ushort)pair;
        sum += pair;
    }
    /* sum <= 65536 (1 - w[r]): the floors of weights that sum to 1 */
    q->s[r] = (cl_ushort)(65536u - sum > 65535u ? 65535u : 65536u - sum);
}

/* The kernel side for (sigma, ksize): ksize, or 2*ceil(3*sigma)+1 for 0,
 * which must be within CLV_GAUSSIAN_MAX_KSIZE. The one place that rule lives
 * (the descriptor's check and the body both use it). */
static int derived_ksize(double sigma, int ksize)
{
    if (ksize != 0)
        return ksize;
    const double k = 2.0 * ceil(3.0 * sigma) + 1.0;
    return k > CLV_GAUSSIAN_MAX_KSIZE ? -1 : (int)k;
}

static clv_status gaussian_check(clv__report *r, const clv_arg *a)
{
    const double sigma_x = a[2].v.d, sigma_y = a[3].v.d > 0.0 ? a[3].v.d : a[2].v.d;
    const double sig[2] = {sigma_x, sigma_y};
    const int ks[2] = {a[4].v.i, a[5].v.i};
    for (int i = 0; i < 2; i++)
        if (derived_ksize(sig[i], ks[i]) < 0)
            return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT,
                                    "sigma_%s %s needs a %s-tap kernel, above the limit of %d",
                                    i ? "y" : "x", CLV_NUM(sig[i]),
                                    CLV_NUM(2.0 * ceil(3.0 * sig[i]) + 1.0),
                                    CLV_GAUSSIAN_MAX_KSIZE);
    return CLV_OK;
}

/* Shrink a (lx, ly) work-group until its tile fits local memory and the
 * kernel's work-group limit. Stops at 1 x 1 even when that does not fit
 * either (a 1-item group with a tall halo): the caller then reports the
 * bytes needed. Neither side ever reaches 0. */
static void fit_group(size_t *lx, size_t *ly, size_t max_wg, size_t budget, size_t pix_bytes,
                      int halo_x, int halo_y, int shrink_y_first)
{
    for (;;) {
        size_t bytes = (*lx + 2 * (size_t)halo_x) * (*ly + 2 * (size_t)halo_y) * pix_bytes;
        if (*lx * *ly <= max_wg && bytes <= budget)
            return;
        if (*lx <= 1 && *ly <= 1)
            return;
        if (*ly > 1 && (shrink_y_first || *lx <= 1))
            *ly /= 2;
        else
            *lx /= 2;
    }
}

/* Tile and work-group sizes of the Gaussian kernels, defined here only (the
 * place a per-device tuning table would fill). band_max_rows reaches
 * gaussian.cl as -DGR_MAX: it sizes gauss_band_vec's ring, so windows
 * taller than it take the two CPU passes. */
typedef struct gauss_tile {
    int band_max_rows;       /* GR_MAX: most rows in gauss_band_vec's ring */
    int band_ring_bytes;     /* gauss_band_vec's ring of one strip of columns */
    int cols_vec_chunk;      /* rows per gauss_cols_vec work-item */
    size_t rows_lx, rows_ly; /* gauss_rows' work-group before fitting */
    size_t cols_lx, cols_ly; /* gauss_cols' */
    size_t fused_lx, fused_ly; /* gauss_fused's work-group before fitting */
    int fused_rpi;             /* GF_RPI: its outputs per work-item down a column */
    int fused_cpi;             /* GF_CPI: its row-pass outputs per work-item along a row */
    int reg_py;                /* GG_PY: gauss_reg's rows per work-item */
    int wide_py;               /* GW_PY: gauss_wv's rows per work-item */
    int widef_py;              /* GWF_PY: gauss_wvf's rows per work-item */
} gauss_tile;
/* gauss_fused on an H200 at 3840x2160 u8, sigma 2 (13x13), device us: two
 * passes 150; one pass with the radii as arguments 97, compiled in 78 (radii
 * up to the device's tune.fixed_radius). */
/* gauss_band_vec's ring (ky rows of a strip of columns filtered along x, and
 * the padded source row) in 24 KB: a core's L1 data cache holds it (32-48 KB
 * on current x86 and Arm cores), where the ring of full rows sat in L2. PoCL,
 * 2 cores, 1920x1080 sigma 2 (13x13), device ms, three interleaved runs: u8
 * 1.14-1.18 full rows -> 1.04-1.07 in strips of 416 values, u8 x 3 3.66-3.72
 * -> 3.40-3.50 (strips of 256: 1.07-1.13, 3.68-4.54). */
/* gauss_reg (u8 on GPUs, radii up to tune.fixed_radius): box_reg's design
 * (box.c) with 8 rows per work-item. Off in the GPU rows: H100, 3840x2160
 * 13x13, device us (2026-12-05, run_gpu.sh reg3), 66 against gauss_wh +
 * gauss_wv's 40 in one channel, 430 against 110 in three. */
/* gauss_wv (u8, GPUs): 8 rows per work-item, each reading 8 + 2 ry source
 * rows. 13x13, device us, against 4 rows: H100 (2026-12-05, run_gpu.sh
 * wpy, two rounds) 3840x2160 one channel 35.6-35.8 against 38.2, three
 * 106.7-106.8 against 107.7-107.8, 1920x1080 three 37.4-37.6 against
 * 39.2-40.0; H200 (run_gpu.sh wide) 3840x2160 one channel 40.0 against
 * 43.5, three 120.2 against 119.9; 16 rows: 119 (H100, three channels),
 * 32 spills. */
/* gauss_wvf (f32, GPUs): 4 rows per work-item. H100, 13x13, device us, two
 * rounds (2026-12-06, run_gpu.sh gfw11), against 8 rows: 3840x2160 one
 * channel 61.2 against 62.7-63.3, three 152.9-153.2 against 156.3-156.9,
 * four 196.8-197.3 against 201.2-201.9; 1920x1080 one 21.7-21.8 against
 * 24.1-26.1, three 45.3-46.0 against 46.9-47.2; 16 rows: 150 registers,
 * no faster. */
static const gauss_tile gauss_tile_default = {32, 24576, 32, 64, 4, 32, 8, 32, 8, 8, 4, 8, 8, 4};

typedef enum gauss_variant {
    GAUSS_BAND_VEC,     /* CPU: one pass by bands of rows (gauss_band_vec) */
    GAUSS_BAND_U16,     /* CPU, u8: the same in 16-bit fixed point (gauss_band_u16) */
    GAUSS_TWO_PASS_VEC, /* CPU, taller windows: gauss_cols_vec, gauss_rows_vec */
    GAUSS_REG,          /* GPUs, u8, small radii: one pass in registers (gauss_reg) */
    GAUSS_WIDE,         /* GPUs, u8, small radii: gauss_wh, gauss_wv through a u16 image */
    GAUSS_WIDE_F32,     /* GPUs, f32, small radii: gauss_whf, gauss_wvf through a float image */
    GAUSS_FUSED,        /* GPUs: one pass, both directions in local memory (gauss_fused) */
    GAUSS_TWO_PASS,     /* local-memory tiles: gauss_rows, gauss_cols (halos too tall for
                           gauss_fused's tile) */
} gauss_variant;

/* A variant and everything its launch needs. */
typedef struct gauss_plan {
    gauss_variant variant;
    cl_kernel k[2];       /* in launch order */
    cl_mem tmp;           /* band: the rings; two passes: the float image */
    size_t tmp_bytes;     /* tmp's size (the context's scratch slot 0), 0: none */
    size_t g[2], l[2];    /* first launch (l unused by GAUSS_TWO_PASS_VEC) */
    size_t g2[2], l2[2];  /* second launch (l2: GAUSS_TWO_PASS only) */
    int pitch;            /* band: floats per ring row; CPU passes: of tmp; wide: u16 (f32:
                           * floats) of tmp */
    int bchunk;           /* band: rows per band */
    int strip;            /* band: values per strip of columns */
    int nvals, chunk;     /* CPU passes: values per row, rows per work-item */
    size_t bytes, bytes2; /* GAUSS_TWO_PASS: local memory of each pass */
} gauss_plan;
_Static_assert(sizeof(gauss_plan) <= CLV__PLAN_MAX, "a gaussian plan must fit the plan cache");

/* Pick the variant for (src, kx x ky) on ctx's device and size it; opts: the
 * filter's options (clv__filter_options). */
static clv_status gauss_choose(clv_context *ctx, const clv_image *src, int kx, int ky,
                               const char *opts, gauss_plan *pl) CLV_WUR;

static clv_status gaussian_run(clv_context *ctx, const clv_arg *a)
{
    clv_status status = CLV_OK;
    cl_mem wxbuf = NULL, wybuf = NULL;
    const clv_image *src = a[0].v.p;
    clv_image *dst = a[1].v.p;
    const double sigma_x = a[2].v.d, sigma_y = a[3].v.d > 0.0 ? a[3].v.d : a[2].v.d;
    const int kx = derived_ksize(sigma_x, a[4].v.i), ky = derived_ksize(sigma_y, a[5].v.i);
    const clv_border border = (clv_border)a[6].v.i;
    CLV_TRY(weights_buffer(ctx, CLV__PARAM_GAUSS_X, sigma_x, kx, &wxbuf));
    CLV_TRY(weights_buffer(ctx, CLV__PARAM_GAUSS_Y, sigma_y, ky, &wybuf));

    const int w = src->width, h = src->height;
    const int rx = kx / 2, ry = ky / 2;
    const int sp = clv__pitch(src), dp = clv__pitch(dst);

    /* the choice depends on these alone (and the context's device) */
    struct {
        int type, cn, w, h, kx, ky, border;
    } key;
    memset(&key, 0, sizeof key);
    key.type = (int)src->type;
    key.cn = src->channels;
    key.w = w;
    key.h = h;
    key.kx = kx;
    key.ky = ky;
    key.border = (int)border;
    gauss_plan pl;
    if (clv__plan_get(ctx, OP, &key, sizeof key, &pl, sizeof pl)) {
        if (pl.tmp_bytes)
            CLV_TRY(clv__scratch(ctx, OP, 0, pl.tmp_bytes, &pl.tmp));
    } else {
        char opts[256];
        CLV_TRY(clv__filter_options(ctx, OP, src, border, opts, sizeof opts));
        CLV_TRY(gauss_choose(ctx, src, kx, ky, opts, &pl));
        gauss_plan keep = pl;
        keep.tmp = NULL;
        clv__plan_put(ctx, OP, &key, sizeof key, &keep, sizeof keep);
    }
    switch (pl.variant) {
    case GAUSS_BAND_VEC: {
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[0], 1, pl.g, pl.l, CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(w), CLV_ARG(h), CLV_ARG(dst->mem), CLV_ARG(dp),
                           CLV_ARG(wxbuf), CLV_ARG(rx), CLV_ARG(wybuf), CLV_ARG(ry),
                           CLV_ARG(pl.bchunk), CLV_ARG(pl.tmp), CLV_ARG(pl.pitch),
                           CLV_ARG(pl.strip)));
        break;
    }
    case GAUSS_BAND_U16: {
        cl_ushort16 qx, qy;
        gauss_q16(sigma_x, kx, &qx);
        gauss_q16(sigma_y, ky, &qy);
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[0], 1, pl.g, pl.l, CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(w), CLV_ARG(h), CLV_ARG(dst->mem), CLV_ARG(dp), CLV_ARG(qx),
                           CLV_ARG(rx), CLV_ARG(qy), CLV_ARG(ry), CLV_ARG(pl.bchunk),
                           CLV_ARG(pl.tmp), CLV_ARG(pl.pitch), CLV_ARG(pl.strip)));
        break;
    }
    case GAUSS_TWO_PASS_VEC:
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[0], 2, pl.g, NULL, CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(pl.nvals), CLV_ARG(h), CLV_ARG(pl.tmp), CLV_ARG(pl.pitch),
                           CLV_ARG(wybuf), CLV_ARG(ry), CLV_ARG(pl.chunk)));
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[1], 2, pl.g2, NULL, CLV_ARG(pl.tmp), CLV_ARG(pl.pitch),
                           CLV_ARG(w), CLV_ARG(h), CLV_ARG(dst->mem), CLV_ARG(dp),
                           CLV_ARG(wxbuf), CLV_ARG(rx)));
        break;
    case GAUSS_REG:
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[0], 2, pl.g, clv__reg_local(ctx, CLV__SHAPE_FILTER, pl.g),
                           CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(w), CLV_ARG(h), CLV_ARG(dst->mem), CLV_ARG(dp),
                           CLV_ARG(wxbuf), CLV_ARG(wybuf)));
        break;
    case GAUSS_WIDE:
    case GAUSS_WIDE_F32: {
        const int nvals = w * src->channels;
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[0], 2, pl.g, clv__reg_local(ctx, CLV__SHAPE_FILTER, pl.g),
                           CLV_ARG(src->mem), CLV_ARG(sp), CLV_ARG(w), CLV_ARG(h),
                           CLV_ARG(pl.tmp), CLV_ARG(pl.pitch), CLV_ARG(wxbuf)));
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[1], 2, pl.g2, clv__reg_local(ctx, CLV__SHAPE_FILTER, pl.g2),
                           CLV_ARG(pl.tmp), CLV_ARG(pl.pitch),
                           CLV_ARG(nvals), CLV_ARG(h), CLV_ARG(dst->mem), CLV_ARG(dp),
                           CLV_ARG(wybuf)));
        break;
    }
    case GAUSS_FUSED:
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[0], 2, pl.g, pl.l, CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(w), CLV_ARG(h), CLV_ARG(dst->mem), CLV_ARG(dp),
                           CLV_ARG(wxbuf), CLV_ARG(rx), CLV_ARG(wybuf), CLV_ARG(ry),
                           CLV_LOCAL(pl.bytes), CLV_LOCAL(pl.bytes2)));
        break;
    case GAUSS_TWO_PASS:
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[0], 2, pl.g, pl.l, CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(w), CLV_ARG(h), CLV_ARG(pl.tmp), CLV_ARG(wxbuf), CLV_ARG(rx),
                           CLV_LOCAL(pl.bytes)));
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[1], 2, pl.g2, pl.l2, CLV_ARG(pl.tmp), CLV_ARG(w),
                           CLV_ARG(h), CLV_ARG(dst->mem), CLV_ARG(dp), CLV_ARG(wybuf),
                           CLV_ARG(ry), CLV_LOCAL(pl.bytes2)));
        break;
    }
out:
    return status;
}

static clv_status gauss_choose(clv_context *ctx, const clv_image *src, int kx, int ky,
                               const char *opts, gauss_plan *pl)
{
    clv_status status = CLV_OK;
    const gauss_tile *t = &gauss_tile_default;
    const int w = src->width, h = src->height, cn = src->channels;
    const int rx = kx / 2, ry = ky / 2;
    const size_t pix = (size_t)cn * sizeof(float);
    memset(pl, 0, sizeof *pl);

    if (ctx->tune.vec > 0) {
        /* CPU: VEC-wide vectors of the flattened rows. */
        const int vec = ctx->tune.vec;
        char vopts[320];
        snprintf(vopts, sizeof vopts, "%s -DVEC=%d -DGR_MAX=%d", opts, vec, t->band_max_rows);
        if (src->type == CLV_U8 && vec == 16 && kx <= 31 && ky <= 31 &&
            ky <= t->band_max_rows) {
            /* u8: the band in 16-bit fixed point, 16 lanes an AVX2
             * register where floats fill 8 (gaussian.cl), the ring in the
             * same 24 KB (strips twice as wide). PoCL, 2 cores of an AVX2
             * EPYC, 1920x1080 13x13, wall ms (best of 30), four
             * interleaved rounds beside OpenCV's CPU GaussianBlur: u8 x 3
             * 2.31-2.87 against the float band's 3.42-3.89 and OpenCV's
             * 3.17-3.52; u8 0.72-1.41 against 1.09-1.64 and 1.15-2.55.
             * Rings of 12, 48 and 96 KB measured within the noise. */
            pl->variant = GAUSS_BAND_U16;
            CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GAUSSIAN, vopts, "gauss_band_u16", &pl->k[0]));
            const int nv = w * cn;
            int strip = (int)((size_t)t->band_ring_bytes / ((size_t)(ky + 2) * sizeof(cl_ushort)));
            strip = strip > 8 * rx * cn ? strip : 8 * rx * cn;
            strip = strip / 32 * 32;
            pl->strip = strip < 32 ? 32 : strip;
            if (pl->strip > nv)
                pl->strip = nv;
            pl->pitch = (pl->strip + 15) / 16 * 16 + (2 * rx * cn + 15) / 16 * 16;
            const size_t per_band = (size_t)(ky + 2) * (size_t)pl->pitch;
            size_t nb;
            CLV_TRY(clv__band_plan(ctx, OP, h, (ky - 1) / 2, (per_band + 1) / 2, &pl->bchunk,
                                   &nb, &pl->tmp));
            pl->tmp_bytes = nb * per_band * sizeof(cl_ushort);
            pl->g[0] = nb;
            pl->l[0] = 1;
            return CLV_OK;
        }
        if (ky <= t->band_max_rows) {
            /* One pass by bands of full rows: each band keeps a ring of ky
             * rows filtered along x in `work`, which stays in cache, so no
             * float image goes through memory. 1920x1080 u8 x 3 on PoCL (2
             * cores), device ms: 10.7 two passes -> 6.5. A band starts by
             * filtering ky - 1 rows along x, about half an output row's work
             * each. */
            pl->variant = GAUSS_BAND_VEC;
            CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GAUSSIAN, vopts, "gauss_band_vec", &pl->k[0]));
            const int nv = w * cn;
            /* strips of the row that keep the ring in band_ring_bytes, a
             * multiple of 2 vec (the kernel's stores are aligned, two vectors
             * a step), but at least 8 halos wide: a strip filters 2 rx cn
             * values more along x than it keeps */
            int strip = (int)((size_t)t->band_ring_bytes / ((size_t)(ky + 2) * sizeof(float)));
            strip = strip > 8 * rx * cn ? strip : 8 * rx * cn;
            strip = strip / (2 * vec) * (2 * vec);
            pl->strip = strip < 2 * vec ? 2 * vec : strip;
            if (pl->strip > nv)
                pl->strip = nv;
            pl->pitch = (pl->strip + vec - 1) / vec * vec + (2 * rx * cn + vec - 1) / vec * vec;
            size_t nb;
            /* per band: ky + 1 ring rows (output rows are made two at a
             * time) and the padded source row */
            CLV_TRY(clv__band_plan(ctx, OP, h, (ky - 1) / 2, (size_t)(ky + 2) * (size_t)pl->pitch,
                                   &pl->bchunk, &nb, &pl->tmp));
            pl->tmp_bytes = nb * (size_t)(ky + 2) * (size_t)pl->pitch * sizeof(float);
            pl->g[0] = nb;
            pl->l[0] = 1;
            return CLV_OK;
        }
        /* taller windows: two passes through a float image; in the column
         * pass a work-item slides down `chunk` rows */
        pl->variant = GAUSS_TWO_PASS_VEC;
        pl->chunk = t->cols_vec_chunk;
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GAUSSIAN, vopts, "gauss_cols_vec", &pl->k[0]));
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GAUSSIAN, vopts, "gauss_rows_vec", &pl->k[1]));
        pl->nvals = w * cn;
        pl->pitch = (pl->nvals + vec - 1) / vec * vec;
        pl->tmp_bytes = (size_t)pl->pitch * (size_t)h * sizeof(float);
        CLV_TRY(clv__scratch(ctx, OP, 0, pl->tmp_bytes, &pl->tmp));
        pl->g2[0] = (size_t)(pl->nvals + vec - 1) / (size_t)vec;
        pl->g2[1] = (size_t)h;
        pl->g[0] = pl->g2[0];
        pl->g[1] = ((size_t)h + (size_t)pl->chunk - 1) / (size_t)pl->chunk;
        return CLV_OK;
    }

    size_t max_wg, local_free, budget;
    /* gauss_reg's loads: GG_NW 4-byte words a row, gauss_wh's GW_NV 16-byte
     * vectors (gaussian.cl; CLV__SPAN_FITS) */
    const int reg_nw = 2 * ((rx * cn + 3) / 4) + 1, wide_nv = 2 * ((rx * cn + 15) / 16) + 1;
    if (CLV__REG_ON(ctx, CLV__REG_GAUSS, src->channels) && src->type == CLV_U8 &&
        rx <= ctx->tune.fixed_radius && ry <= ctx->tune.fixed_radius &&
        CLV__SPAN_FITS(w, 4 * reg_nw)) {
        /* u8, small radii: one pass in registers (gauss_reg), 4 values
         * across and reg_py rows down per work-item, the radii compiled in;
         * the launch picks the groups (any shape works: the kernel checks
         * its bounds) */
        const int py = CLV__REG_PY(ctx, t->reg_py);
        char ropts[360];
        snprintf(ropts, sizeof ropts, "%s -DGG_RX=%d -DGG_RY=%d -DGG_PY=%d", opts, rx, ry, py);
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GAUSSIAN, ropts, "gauss_reg", &pl->k[0]));
        pl->variant = GAUSS_REG;
        pl->g[0] = ((size_t)w * (size_t)cn + 3) / 4;
        pl->g[1] = ((size_t)h + (size_t)py - 1) / (size_t)py;
        return CLV_OK;
    }
    if (CLV__REG_ON(ctx, CLV__REG_GAUSSW, src->channels) && src->type == CLV_U8 &&
        rx <= ctx->tune.fixed_radius && ry <= ctx->tune.fixed_radius &&
        CLV__SPAN_FITS(w, 16 * wide_nv)) {
        /* u8, small radii: two passes through a u16 image (gaussian.cl,
         * gauss_wh and gauss_wv), 16 values per work-item along the rows,
         * then 8 values of wide_py rows; the radii compiled in. Rows of the
         * image padded to 16 values (32 bytes). */
        const int py = CLV__REG_PY(ctx, t->wide_py);
        char hopts[360], vopts[360];
        snprintf(hopts, sizeof hopts, "%s -DGW_RX=%d", opts, rx);
        /* gauss_wv reaches rows -ry .. h - 1 + py - 1 + ry (whole groups
         * of py rows): one reflection (common.cl's BORDER_ROW) while that
         * reach is under h */
        snprintf(vopts, sizeof vopts, "%s -DGW_RY=%d -DGW_PY=%d%s", opts, ry, py,
                 h > ry + py - 1 ? " -DROWS_NEAR" : "");
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GAUSSIAN, hopts, "gauss_wh", &pl->k[0]));
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GAUSSIAN, vopts, "gauss_wv", &pl->k[1]));
        const size_t nv = (size_t)w * (size_t)cn;
        pl->variant = GAUSS_WIDE;
        pl->pitch = (int)((nv + 15) / 16 * 16);
        pl->tmp_bytes = (size_t)pl->pitch * (size_t)h * sizeof(cl_ushort);
        CLV_TRY(clv__scratch(ctx, OP, 0, pl->tmp_bytes, &pl->tmp));
        pl->g[0] = (nv + 15) / 16;
        pl->g[1] = (size_t)h;
        pl->g2[0] = (nv + 7) / 8;
        pl->g2[1] = ((size_t)h + (size_t)py - 1) / (size_t)py;
        return CLV_OK;
    }
    /* gauss_whf's loads: its own 4 16-byte vectors and GWF_WS on each side
     * (gaussian.cl) */
    const int widef_nw = 2 * ((rx * cn + 3) / 4) + 4;
    if (CLV__REG_ON(ctx, CLV__REG_GAUSSFW, src->channels) &&
        (src->type == CLV_F32 || src->type == CLV_U16) &&
        rx <= ctx->tune.fixed_radius && ry <= ctx->tune.fixed_radius &&
        CLV__SPAN_FITS(w, 4 * widef_nw)) {
        /* f32 and u16, small radii: gauss_wh and gauss_wv's design through a float
         * image (gauss_whf, gauss_wvf), 16 values per work-item along the
         * rows, then 4 values of widef_py rows; the radii compiled in. Rows
         * of the image padded to 16 values (64 bytes). */
        const int py = CLV__REG_PY(ctx, t->widef_py);
        char hopts[360], vopts[360];
        snprintf(hopts, sizeof hopts, "%s -DGWF_RX=%d", opts, rx);
        /* gauss_wvf's reach, as gauss_wv's */
        snprintf(vopts, sizeof vopts, "%s -DGWF_RY=%d -DGWF_PY=%d%s", opts, ry, py,
                 h > ry + py - 1 ? " -DROWS_NEAR" : "");
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GAUSSIAN, hopts, "gauss_whf", &pl->k[0]));
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GAUSSIAN, vopts, "gauss_wvf", &pl->k[1]));
        const size_t nv = (size_t)w * (size_t)cn;
        pl->variant = GAUSS_WIDE_F32;
        pl->pitch = (int)((nv + 15) / 16 * 16);
        pl->tmp_bytes = (size_t)pl->pitch * (size_t)h * sizeof(cl_float);
        CLV_TRY(clv__scratch(ctx, OP, 0, pl->tmp_bytes, &pl->tmp));
        pl->g[0] = (nv + 15) / 16;
        pl->g[1] = (size_t)h;
        pl->g2[0] = (nv + 3) / 4;
        pl->g2[1] = ((size_t)h + (size_t)py - 1) / (size_t)py;
        return CLV_OK;
    }
    {
        /* One pass when the block with its halo fits local memory and the
         * halo rows are at most the block's own (past that the two passes
         * move less). The outputs per work-item are fixed (compiled in);
         * shrink the group's height, then its width. */
        char fopts[360];
        int n = snprintf(fopts, sizeof fopts, "%s -DGF_RPI=%d -DGF_CPI=%d", opts, t->fused_rpi,
                         t->fused_cpi);
        if (rx <= ctx->tune.fixed_radius && ry <= ctx->tune.fixed_radius && n > 0 &&
            (size_t)n < sizeof fopts)
            snprintf(fopts + n, sizeof fopts - (size_t)n, " -DGF_RX=%d -DGF_RY=%d", rx, ry);
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GAUSSIAN, fopts, "gauss_fused", &pl->k[0]));
        CLV_TRY(clv__kernel_limits(ctx, OP, pl->k[0], &max_wg, &local_free));
        budget = local_free < CLV_LOCAL_BUDGET_MAX ? local_free : CLV_LOCAL_BUDGET_MAX;
        const size_t rpi = (size_t)t->fused_rpi;
        size_t lx = t->fused_lx, ly = t->fused_ly;
        for (;;) {
            const size_t bh = ly * rpi, ny = bh + 2 * (size_t)ry;
            const size_t in_bytes = ((lx + 2 * (size_t)rx) * ny + (size_t)t->fused_cpi) *
                                    (size_t)cn * clv_pixel_type_size(src->type);
            const size_t h_bytes = lx * ny * pix;
            if (lx * ly <= max_wg && in_bytes + h_bytes <= budget) {
                if ((size_t)ry > bh)
                    break;
                pl->variant = GAUSS_FUSED;
                pl->bytes = in_bytes;
                pl->bytes2 = h_bytes;
                pl->l[0] = lx;
                pl->l[1] = ly;
                pl->g[0] = ((size_t)w + lx - 1) / lx * lx;
                pl->g[1] = ((size_t)h + bh - 1) / bh * ly;
                return CLV_OK;
            }
            if (ly > 1)
                ly /= 2;
            else if (lx > 1)
                lx /= 2;
            else
                break;
        }
    }

    pl->variant = GAUSS_TWO_PASS;
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GAUSSIAN, opts, "gauss_rows", &pl->k[0]));
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GAUSSIAN, opts, "gauss_cols", &pl->k[1]));
    pl->tmp_bytes = (size_t)w * (size_t)h * pix;
    CLV_TRY(clv__scratch(ctx, OP, 0, pl->tmp_bytes, &pl->tmp));

    CLV_TRY(clv__kernel_limits(ctx, OP, pl->k[0], &max_wg, &local_free));
    budget = local_free < CLV_LOCAL_BUDGET_MAX ? local_free : CLV_LOCAL_BUDGET_MAX;
    size_t lx = t->rows_lx, ly = t->rows_ly;
    fit_group(&lx, &ly, max_wg, budget, pix, rx, 0, 1);
    pl->bytes = (lx + 2 * (size_t)rx) * ly * pix;
    if (pl->bytes > budget)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                         "row pass needs %zu bytes of local memory, device offers %zu",
                         pl->bytes, budget);
    pl->g[0] = pl->g2[0] = (size_t)w;
    pl->g[1] = pl->g2[1] = (size_t)h;
    pl->l[0] = lx;
    pl->l[1] = ly;

    CLV_TRY(clv__kernel_limits(ctx, OP, pl->k[1], &max_wg, &local_free));
    budget = local_free < CLV_LOCAL_BUDGET_MAX ? local_free : CLV_LOCAL_BUDGET_MAX;
    lx = t->cols_lx;
    ly = t->cols_ly;
    fit_group(&lx, &ly, max_wg, budget, pix, 0, ry, 0);
    pl->bytes2 = lx * (ly + 2 * (size_t)ry) * pix;
    if (pl->bytes2 > budget)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                         "column pass needs %zu bytes of local memory, device offers %zu",
                         pl->bytes2, budget);
    pl->l2[0] = lx;
    pl->l2[1] = ly;
out:
    return status;
}

static const clv_param_desc gaussian_params[] = {
    CLV__P_SRC_ANY,
    CLV__P_DST_LIKE_SRC,
    {.name = "sigma_x", .type = CLV_PARAM_DOUBLE, .flags = CLV_PARAM_INPUT | CLV_PARAM_MIN_OPEN,
     .doc = "horizontal standard deviation", .unit = "px", .min = 0.0, .max = HUGE_VAL,
     .def = 1.0, .cli_alias = "--sigma"},
    {.name = "sigma_y", .type = CLV_PARAM_DOUBLE,
     .flags = CLV_PARAM_INPUT | CLV_PARAM_OPTIONAL | CLV_PARAM_HAS_SPECIAL |
              CLV_PARAM_SPECIAL_BELOW,
     .doc = "vertical standard deviation", .unit = "px", .min = 0.0, .max = HUGE_VAL,
     .def = 0.0, .special = 0.0, .special_doc = "<= 0: sigma_x"},
    {.name = "ksize_x", .type = CLV_PARAM_INT,
     .flags = CLV_PARAM_INPUT | CLV_PARAM_OPTIONAL | CLV_PARAM_ODD | CLV_PARAM_HAS_SPECIAL,
     .doc = "kernel width", .unit = "px", .min = 1, .max = CLV_GAUSSIAN_MAX_KSIZE, .def = 0,
     .special = 0, .special_doc = "0: 2*ceil(3*sigma_x)+1", .cli_alias = "--ksize"},
    {.name = "ksize_y", .type = CLV_PARAM_INT,
     .flags = CLV_PARAM_INPUT | CLV_PARAM_OPTIONAL | CLV_PARAM_ODD | CLV_PARAM_HAS_SPECIAL,
     .doc = "kernel height", .unit = "px", .min = 1, .max = CLV_GAUSSIAN_MAX_KSIZE, .def = 0,
     .special = 0, .special_doc = "0: 2*ceil(3*sigma_y)+1", .cli_alias = "--ksize"},
    CLV__P_BORDER,
};

const clv_op_desc clv__op_gaussian_blur = {
    .name = "gaussian_blur",
    .summary = "separable Gaussian blur",
    .cli_name = "gaussian",
    .nparams = 7,
    .params = gaussian_params,
    .run = gaussian_run,
    .check = gaussian_check,
};

/* The positional arguments of the typed fronts, in gaussian_params' order. */
static void gaussian_pack(clv_arg a[7], const clv_image *src, clv_image *dst, double sigma_x,
                          double sigma_y, int ksize_x, int ksize_y, clv_border border)
{
    a[0] = CLV__IMG(src);
    a[1] = CLV__IMG(dst);
    a[2] = CLV__DBL(sigma_x);
    a[3] = CLV__DBL(sigma_y);
    a[4] = CLV__INT(ksize_x);
    a[5] = CLV__INT(ksize_y);
    a[6] = CLV__INT((int)border);
}

CLV_API clv_status clv_gaussian_blur(clv_context *ctx, const clv_image *src, clv_image *dst,
                                     double sigma_x, double sigma_y, int ksize_x, int ksize_y,
                                     clv_border border)
{
    clv_arg a[7];
    gaussian_pack(a, src, dst, sigma_x, sigma_y, ksize_x, ksize_y, border);
    return clv__op_run(ctx, &clv__op_gaussian_blur, a);
}

clv_status clv__gaussian_blur(clv_context *ctx, const clv_image *src, clv_image *dst,
                              double sigma_x, double sigma_y, int ksize_x, int ksize_y,
                              clv_border border)
{
    clv_arg a[7];
    gaussian_pack(a, src, dst, sigma_x, sigma_y, ksize_x, ksize_y, border);
    return clv__op_exec(ctx, &clv__op_gaussian_blur, a);
}
