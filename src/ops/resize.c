/* clvision — bilinear resize (OpenCV INTER_LINEAR convention). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/internal.h"

#define OP "resize"

/* Source index and weight for destination index d of dsize, from s pixels:
 * sx = (d + 0.5) * s / dsize - 0.5 = ((2d + 1) s - dsize) / (2 dsize),
 * floor and fraction taken exactly; outside the image the weight goes to the
 * edge pixel, as OpenCV does. */
static void coord(int d, int s, int dsize, int32_t *i0, float *a)
{
    const int64_t num = (int64_t)(2 * (int64_t)d + 1) * s - dsize;
    const int64_t den = 2 * (int64_t)dsize;
    int64_t q = num >= 0 ? num / den : -((-num + den - 1) / den);
    double frac = (double)(num - q * den) / (double)den;
    if (q < 0) {
        q = 0;
        frac = 0.0;
    }
    if (q >= s - 1) {
        q = s - 1;
        frac = 0.0;
    }
    *i0 = (int32_t)q;
    *a = (float)frac;
}

int32_t *clv__resize_table(int sw, int sh, int dw, int dh)
{
    const size_t n = 2 * ((size_t)dw + (size_t)dh);
    int32_t *tab = malloc(n * sizeof *tab);
    if (!tab)
        return NULL;
    for (int i = 0; i < dw; i++) {
        float a;
        coord(i, sw, dw, &tab[i], &a);
        memcpy(&tab[dw + i], &a, sizeof a);
    }
    for (int i = 0; i < dh; i++) {
        float a;
        coord(i, sh, dh, &tab[2 * dw + i], &a);
        memcpy(&tab[2 * dw + dh + i], &a, sizeof a);
    }
    return tab;
}

/* The CPU strip kernel's table: flat value indices x0[nx], x1[nx] and x1's
 * weight[nx] (float bits) for the nx = dw*cn rounded up to 16 destination
 * values (padding repeats the last value, so indices never fall along a
 * row), then y0[dh], ay[dh]. For u8 and f32 (windows) then, per group of 16
 * values, the first value of a 16-value window of the row holding all their
 * x0 and x1 (-1 when none does), and the bytes m0[nx], m1[nx]: x0 and x1
 * minus it. (resize.cl uses them where it has the lane shuffles: SSSE3 for
 * u8, AVX-512 for f32; otherwise it gathers.) */
static int32_t *strip_table(int sw, int sh, int dw, int dh, int cn, int windows, size_t *count)
{
    const size_t n = (size_t)dw * (size_t)cn, nx = (n + 15) / 16 * 16;
    *count = 3 * nx + 2 * (size_t)dh + (windows ? nx / 16 + nx / 2 : 0);
    int32_t *tab = calloc(*count, sizeof *tab);
    int32_t *xy = clv__resize_table(sw, sh, dw, dh);
    if (!tab || !xy) {
        free(tab);
        free(xy);
        return NULL;
    }
    for (size_t j = 0; j < nx; j++) {
        const size_t jj = j < n ? j : n - 1;
        const int dx = (int)(jj / (size_t)cn), c = (int)(jj % (size_t)cn);
        const int x0 = xy[dx], x1 = x0 + 1 < sw ? x0 + 1 : sw - 1;
        tab[j] = x0 * cn + c;
        tab[nx + j] = x1 * cn + c;
        tab[2 * nx + j] = xy[dw + dx];
    }
    memcpy(tab + 3 * nx, xy + 2 * dw, 2 * (size_t)dh * sizeof *tab);
    free(xy);
    if (windows) {
        int32_t *base = tab + 3 * nx + 2 * (size_t)dh;
        unsigned char *m = (unsigned char *)(base + nx / 16);
        const int64_t row = (int64_t)sw * cn;
        for (size_t g = 0; g < nx / 16; g++) {
            int32_t lo = tab[16 * g], hi = tab[nx + 16 * g];
            for (size_t l = 1; l < 16; l++) {
                lo = tab[16 * g + l] < lo ? tab[16 * g + l] : lo;
                hi = tab[nx + 16 * g + l] > hi ? tab[nx + 16 * g + l] : hi;
            }
            const int64_t b = lo < row - 16 ? lo : row - 16;
            base[g] = row >= 16 && hi - b < 16 ? (int32_t)b : -1;
            for (size_t l = 0; l < 16; l++) {
                m[16 * g + l] = base[g] < 0 ? 0 : (unsigned char)(tab[16 * g + l] - b);
                m[nx + 16 * g + l] = base[g] < 0 ? 0 : (unsigned char)(tab[nx + 16 * g + l] - b);
            }
        }
    }
    return tab;
}

/* Work per work-item of the resize kernels, defined here only (the place a
 * per-device tuning table would fill). The CPU programs get half_rows as
 * -DHROWS and the values of a resize_half_vec work-item as -DHV, which
 * resize.cl is written for exactly: one 16-value vector, three for 3
 * channels (so that the phases of the three are constants). */
typedef struct resize_tile {
    int half_vals;    /* HV, one channel count but 3 */
    int half_vals_c3; /* HV, 3 channels */
    int half_rows;    /* HROWS: destination rows per resize_half_vec work-item
                       * (u8 x 1 at 1920x1080 on PoCL: 0.092 ms with 1, 0.064
                       * with 4; u8 x 3 unchanged) */
    int strip_rows;   /* destination rows per resize_strip_vec work-item */
    int strip_prefetch; /* STRIP_PF: resize_strip_vec's prefetch distance in bytes, 0:
                         * none (see resize.cl). PoCL, 2 cores (AVX2 EPYC), 1920x1080
                         * x1.5, device ms, medians of 6 interleaved rounds, none / 64
                         * / 128 / 256 bytes: u8 2.35 / 1.97 / 2.15 / 1.84, u8 x 3
                         * 7.04 / 5.69 / 6.10 / 5.60, f32 4.45 / 3.45 / 3.16 / 4.31,
                         * f32 x 3 12.5 / 11.2 / 10.6 / 10.4 (bench/RESULTS.md,
                         * 2026-12-07: other sizes, and a 16-core Xeon where u8 ran
                         * 7-16 % slower with it and f32 x 3 8-21 % faster) */
    int up_rows;      /* GPU, upscaling: rows per resize_bilinear work-item */
    int half_reg_rows; /* RH_PY: GPUs, u8 exact halving: rows per resize_half_reg
                        * work-item (box_reg's design, box.c; not yet timed on a
                        * GPU: bench/run_gpu.sh twin does) */
    int half_wide_rows; /* RH_PY: the same for f32 and u16 (2026-12-07, H100,
                         * 3840x2160 f32, us: 1 row 15.2-16.8, 2 13.9-14.7,
                         * 4 13.7-15.5; 1920x1080 2 rows best) */
    int up_reg_rows;   /* GPUs, u8 upscaling: rows per resize_up_reg work-item
                        * (H200, 3840x2160 1.5x, us, u8 / u8 x 3: 2 rows 46 / 105,
                        * 4 37 / 82, 8 34 / 74, 16 34 / 70; 1920x1080 best at 4-8) */
} resize_tile;
static const resize_tile resize_tile_default = {16, 48, 4, 16, 128, 4, 4, 2, 8};

typedef enum resize_variant {
    RESIZE_HALF_VEC, /* CPU, exact 2x downscale: contiguous loads, no table */
    RESIZE_HALF_REG, /* GPUs, exact 2x downscale: 4 pixels per work-item, no table
                      * (resize_half_reg) */
    RESIZE_TABLE,    /* any size through the coordinate table: resize_strip_vec
                      * (CPU), resize_up_reg (GPUs, u8, upscaling) or
                      * resize_bilinear */
} resize_variant;

/* A variant and everything its launch needs. */
typedef struct resize_plan {
    resize_variant variant;
    cl_kernel k;
    cl_mem tab;  /* RESIZE_TABLE: the coordinate table */
    size_t g[2]; /* global size (local: the device's, or the tuning's shape for
                  * the register kernels, clv__reg_local) */
    int rows;    /* RESIZE_TABLE: destination rows per work-item */
    int up_reg;  /* RESIZE_TABLE: the kernel is resize_up_reg */
    int tab_key[6]; /* RESIZE_TABLE: the table's parameter-buffer key */
} resize_plan;
_Static_assert(sizeof(resize_plan) <= CLV__PLAN_MAX, "a resize plan must fit the plan cache");

/* Pick the kernel for src -> dst on ctx's device and size it. */
static clv_status resize_choose(clv_context *ctx, const clv_image *src, const clv_image *dst,
                                resize_plan *pl) CLV_WUR;

static clv_status resize_run(clv_context *ctx, const clv_arg *a)
{
    clv_status status = CLV_OK;
    const clv_image *src = a[0].v.p;
    clv_image *dst = a[1].v.p;
    const int sw = src->width, sh = src->height, dw = dst->width, dh = dst->height;
    const int sp = clv__pitch(src), dp = clv__pitch(dst);

    /* the choice depends on these alone (and the context's device) */
    const int key[6] = {(int)src->type, src->channels, sw, sh, dw, dh};
    resize_plan pl;
    if (!clv__plan_get(ctx, OP, key, sizeof key, &pl, sizeof pl) ||
        (pl.variant == RESIZE_TABLE &&
         !clv__param_lookup(ctx, CLV__PARAM_RESIZE, pl.tab_key, sizeof pl.tab_key, &pl.tab))) {
        CLV_TRY(resize_choose(ctx, src, dst, &pl));
        resize_plan keep = pl;
        keep.tab = NULL;
        clv__plan_put(ctx, OP, key, sizeof key, &keep, sizeof keep);
    }
    switch (pl.variant) {
    case RESIZE_HALF_VEC:
    case RESIZE_HALF_REG:
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k, 2, pl.g,
                           pl.variant == RESIZE_HALF_REG
                               ? clv__reg_local(ctx, CLV__SHAPE_HALF, pl.g)
                               : NULL,
                           CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(sw), CLV_ARG(sh), CLV_ARG(dst->mem), CLV_ARG(dp), CLV_ARG(dw),
                           CLV_ARG(dh)));
        break;
    case RESIZE_TABLE:
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k, 2, pl.g,
                           pl.up_reg ? clv__reg_local(ctx, CLV__SHAPE_UP, pl.g) : NULL,
                           CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(sw), CLV_ARG(sh), CLV_ARG(dst->mem), CLV_ARG(dp), CLV_ARG(dw),
                           CLV_ARG(dh), CLV_ARG(pl.tab), CLV_ARG(pl.rows)));
        break;
    }
out:
    return status;
}

static clv_status resize_choose(clv_context *ctx, const clv_image *src, const clv_image *dst,
                                resize_plan *pl)
{
    clv_status status = CLV_OK;
    int32_t *tab = NULL;
    const resize_tile *t = &resize_tile_default;
    const int sw = src->width, sh = src->height, dw = dst->width, dh = dst->height;
    const int cn = src->channels;
    const int cpu = ctx->tune.vec > 0;
    const int half_vals = cn == 3 ? t->half_vals_c3 : t->half_vals;
    char opts[192];
    clv__format_options(opts, sizeof opts, src->type, src->channels);
    if (cpu) {
        size_t len = strlen(opts);
        snprintf(opts + len, sizeof opts - len, " -DVEC=16 -DHV=%d -DHROWS=%d -DSTRIP_PF=%d",
                 half_vals, t->half_rows, t->strip_prefetch);
    }
    memset(pl, 0, sizeof *pl);

    if (cpu && sw == 2 * dw && sh == 2 * dh) {
        pl->variant = RESIZE_HALF_VEC;
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_RESIZE, opts, "resize_half_vec", &pl->k));
        const size_t per_item = (size_t)half_vals, rows_per_item = (size_t)t->half_rows;
        pl->g[0] = ((size_t)dw * (size_t)cn + per_item - 1) / per_item;
        pl->g[1] = ((size_t)dh + rows_per_item - 1) / rows_per_item;
        return CLV_OK;
    }

    const int half_u8 = src->type == CLV_U8 && CLV__REG_ON(ctx, CLV__REG_HALF, cn);
    const int half_wide = src->type != CLV_U8 && CLV__REG_ON(ctx, CLV__REG_HALFW, cn);
    if ((half_u8 || half_wide) && sw == 2 * dw && sh == 2 * dh) {
        const int py = CLV__REG_PY(ctx, half_u8 ? t->half_reg_rows : t->half_wide_rows);
        size_t len = strlen(opts);
        snprintf(opts + len, sizeof opts - len, " -DRH_PY=%d", py);
        pl->variant = RESIZE_HALF_REG;
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_RESIZE, opts, "resize_half_reg", &pl->k));
        pl->g[0] = ((size_t)dw + 3) / 4;
        pl->g[1] = ((size_t)dh + (size_t)py - 1) / (size_t)py;
        return CLV_OK;
    }

    pl->variant = RESIZE_TABLE;
    const int up_reg = !cpu && src->type == CLV_U8 && dh > sh && CLV__REG_ON(ctx, CLV__REG_UP, cn);
    pl->up_reg = up_reg;
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_RESIZE, opts,
                            cpu      ? "resize_strip_vec"
                            : up_reg ? "resize_up_reg"
                                     : "resize_bilinear",
                            &pl->k));
    /* the two kernels' tables differ: the CPU one is per channel count and
     * has the windows of u8 and f32 */
    const int windows = cpu && (src->type == CLV_U8 || src->type == CLV_F32);
    const int key[6] = {sw, sh, dw, dh, cpu ? cn : 0, windows};
    memcpy(pl->tab_key, key, sizeof key);
    if (!clv__param_lookup(ctx, CLV__PARAM_RESIZE, key, sizeof key, &pl->tab)) {
        size_t n = 2 * ((size_t)dw + (size_t)dh);
        tab = cpu ? strip_table(sw, sh, dw, dh, cn, windows, &n)
                  : clv__resize_table(sw, sh, dw, dh);
        if (!tab)
            return clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, OP, "out of host memory");
        CLV_TRY(clv__param_store(ctx, OP, CLV__PARAM_RESIZE, key, sizeof key, tab,
                                 n * sizeof *tab, &pl->tab));
    }

    /* CPU: 16 values of strip_rows rows per work-item. GPU: one pixel,
     * and when upscaling up_rows destination rows, which reuse the
     * work-item's x table entries and, mostly, its source rows (an H200 at
     * 3840x2160 x1.5, f32, 4 rows: 0.089 -> 0.054 ms); downscaling gained
     * nothing. resize_bilinear has a fast path for exactly 4 rows (all
     * their loads first). */
    pl->rows = cpu      ? t->strip_rows
               : up_reg ? CLV__REG_PY(ctx, t->up_reg_rows)
               : dh > sh ? t->up_rows
                         : 1;
    pl->g[0] = cpu ? ((size_t)dw * (size_t)cn + 15) / 16 : up_reg ? ((size_t)dw + 3) / 4 : (size_t)dw;
    pl->g[1] = ((size_t)dh + (size_t)pl->rows - 1) / (size_t)pl->rows;
out:
    free(tab);
    return status;
}

static const clv_param_desc resize_params[] = {
    CLV__P_SRC_ANY,
    {.name = "dst", .label = "destination", .type = CLV_PARAM_IMAGE,
     .flags = CLV_PARAM_OUTPUT | CLV_PARAM_FREE_SIZE,
     .doc = "the result: any size from 1x1 (the caller's choice), src's type and channels",
     .like = "src", .like_flags = CLV_LIKE_TYPE | CLV_LIKE_CHANNELS},
};

const clv_op_desc clv__op_resize = {
    .name = "resize",
    .summary = "bilinear resize to dst's size (OpenCV INTER_LINEAR)",
    .doc = "sx = (dx + 0.5) * sw / dw - 0.5, computed exactly on the host, and likewise for y; "
           "a sample beyond the edge takes the edge pixel (border replicate). Channels are "
           "resampled independently: any channel order (RGB or OpenCV's BGR) comes out as it "
           "went in.",
    .nparams = 2,
    .params = resize_params,
    .run = resize_run,
};

CLV_API clv_status clv_resize(clv_context *ctx, const clv_image *src, clv_image *dst)
{
    const clv_arg a[] = {CLV__IMG(src), CLV__IMG(dst)};
    return clv__op_run(ctx, &clv__op_resize, a);
}

clv_status clv__resize(clv_context *ctx, const clv_image *src, clv_image *dst)
{
    const clv_arg a[] = {CLV__IMG(src), CLV__IMG(dst)};
    return clv__op_exec(ctx, &clv__op_resize, a);
}
