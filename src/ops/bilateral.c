/* clvision — brute-force bilateral filter (edge.h). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clvision/edge.h>

#include "runtime/internal.h"

#define OP "bilateral"

/* Smallest work-group worth tiling for: below 8x8 the halo dwarfs the tile
 * and the global-memory variant does as well. */
#define MIN_TILED_ITEMS 64

/* The forms of the spatial weights the kernels take. */
typedef enum space_form {
    SPACE_1D,      /* the 2r+1 factors ws[r + d] = exp(-d^2 / 2 sigma^2) (bil_tiled,
                      bil_global: a __constant table) */
    SPACE_1D_LOG2, /* those, then their 2r+1 log2 (bil_fixed) */
    SPACE_2D_LOG2, /* the (2r+1)^2 table of log2(ws[dx] ws[dy]) (bil_rows_vec) */
} space_form;

/* log2 of a spatial weight, finite (a zero weight gives -1000, far below
 * the exp2 floor of -125). */
static float space_log2(double l)
{
    return (float)(l < -1000.0 ? -1000.0 : l);
}

/* Device buffer of the spatial weights for (sigma, r) in the given form,
 * reused while they are unchanged. */
static clv_status space_weights(clv_context *ctx, double sigma, int r, space_form form,
                                cl_mem *out)
{
    struct {
        double sigma;
        int r, form;
    } key;
    memset(&key, 0, sizeof key);
    key.sigma = sigma;
    key.r = r;
    key.form = (int)form;
    if (clv__param_lookup(ctx, CLV__PARAM_BILATERAL, &key, sizeof key, out))
        return CLV_OK;
    const int side = 2 * r + 1;
    size_t n = form == SPACE_2D_LOG2 ? (size_t)side * (size_t)side
                                      : (size_t)side * (form == SPACE_1D_LOG2 ? 2 : 1);
    float *tab = malloc(n * sizeof *tab);
    if (!tab)
        return clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, OP, "out of host memory");
    if (form != SPACE_2D_LOG2) {
        for (int i = 0; i < side; i++) {
            const double u = (double)(i - r) / sigma; /* no 0/0 for tiny sigma */
            tab[i] = (float)exp(-0.5 * u * u);
            if (form == SPACE_1D_LOG2)
                tab[side + i] = space_log2(-0.5 * u * u * 1.4426950408889634);
        }
    } else {
        for (int j = 0; j < side; j++)
            for (int i = 0; i < side; i++) {
                const double u = (double)(i - r) / sigma, v = (double)(j - r) / sigma;
                tab[j * side + i] = space_log2(-0.5 * (u * u + v * v) * 1.4426950408889634);
            }
    }
    clv_status status = clv__param_store(ctx, OP, CLV__PARAM_BILATERAL, &key, sizeof key, tab,
                                         n * sizeof *tab, out);
    free(tab);
    return status;
}

/* GPU-style: a work-group (lx, ly), shrunk from 16x16 to the image, the
 * kernel's work-group limit and the local-memory budget; 0 when no group of
 * at least MIN_TILED_ITEMS items (or the whole image) has a tile that fits. */
static int fit_tile(size_t *lx, size_t *ly, int w, int h, int r, size_t max_wg, size_t budget,
                    size_t pix_bytes)
{
    *lx = 16;
    *ly = 16;
    while (*lx > 1 && *lx / 2 >= (size_t)w)
        *lx /= 2;
    while (*ly > 1 && *ly / 2 >= (size_t)h)
        *ly /= 2;
    const size_t want = *lx * *ly;
    for (;;) {
        const size_t bytes = (*lx + 2 * (size_t)r) * (*ly + 2 * (size_t)r) * pix_bytes;
        if (*lx * *ly <= max_wg && bytes <= budget)
            break;
        if (*lx * *ly <= 1)
            return 0;
        if (*ly >= *lx)
            *ly /= 2;
        else
            *lx /= 2;
    }
    return *lx * *ly >= MIN_TILED_ITEMS || *lx * *ly == want;
}

/* bil_fixed's work-group (lx x ly) and outputs per work-item (BIL_PY) by
 * channel count, defined here only (the place a per-device table
 * would fill). Since its rows were unrolled (the disc's taps dropped at
 * compile time), every output adds its whole window's code: at 8 outputs
 * a work-item ran ~2300 unrolled taps. H100, 19x19 (sigma_space 3), u8,
 * device ms, two interleaved rounds (run_gpu.sh bil11, 2026-12-06):
 *   outputs           1      2      4      8      16
 *   4K, 1 channel     0.68   0.65   0.65   1.02   1.32
 *   4K, 3 channels    1.28   1.42   3.16   -      3.49
 *   1080p, 1 channel  0.18   0.17   0.18   0.29   0.47
 *   1080p, 3 channels 0.33   0.31   0.80   -      0.87
 *   4K, 4 channels    4.23   2.49   3.55   (run_gpu.sh bil4)
 * (ptxas: 56 registers for one channel at 2 outputs; 48 for three channels
 * at 1, 127 at 2; four channels 95 at 1, 127 at 2, 167 at 4. Two channels,
 * not timed, take one channel's 2.) Before the unrolling, on an H200: u8 0.94 with 4
 * outputs, 0.90 with 8; u8 x 3 1.69 with 1 or 2, 1.84 with 4. The group's
 * height (4, 8 or 16) made no difference there. */
typedef struct bil_fixed_tile {
    size_t lx, ly;
    int py[5]; /* by channel count (images have 1 to 4) */
} bil_fixed_tile;
static const bil_fixed_tile bil_fixed_tile_default = {32, 8, {0, 2, 2, 1, 2}};

typedef enum bil_variant {
    BIL_PLANES_VEC, /* CPU: padded float planes, then VEC pixels per work-item */
    BIL_FIXED,      /* GPUs: the radius compiled in, BIL_PY outputs per work-item */
    BIL_TILED,      /* a local-memory tile with its halo per work-group */
    BIL_GLOBAL,     /* radius too large for a useful tile: global memory */
} bil_variant;

/* A variant and everything its launch needs. */
typedef struct bil_plan {
    bil_variant variant;
    cl_kernel k[2];      /* in launch order (bil_planes_vec, bil_rows_vec) */
    size_t g[2], l[2];   /* first launch (l: BIL_TILED only) */
    size_t g2[2];        /* BIL_PLANES_VEC: bil_rows_vec */
    cl_mem planes;       /* BIL_PLANES_VEC: the planes scratch */
    int ppitch, plane;   /* BIL_PLANES_VEC: plane pitch and size, floats */
    size_t bytes;        /* BIL_TILED, BIL_FIXED: local memory */
    space_form form;     /* the spatial weights the kernel takes */
} bil_plan;

/* Pick the variant for src and radius r on ctx's device and size it; opts:
 * the filter's options (clv__filter_options). */
static clv_status bil_choose(clv_context *ctx, const clv_image *src, int r, clv_border border,
                             const char *opts, bil_plan *pl) CLV_WUR;

/* The radius: given, or ceil(3 sigma_space) for <= 0, which must be within
 * CLV_BILATERAL_MAX_RADIUS (-1 when it is not). The descriptor's check and
 * the body share it. */
static int derived_radius(double sigma_space, int radius)
{
    if (radius > 0)
        return radius;
    const double r = ceil(3.0 * sigma_space);
    return r > CLV_BILATERAL_MAX_RADIUS ? -1 : (int)r;
}

static clv_status bilateral_check(clv__report *rep, const clv_arg *a)
{
    if (derived_radius(a[2].v.d, a[4].v.i) < 0)
        return clv__report_fail(rep, CLV_ERROR_INVALID_ARGUMENT,
                                "sigma_space %s needs a default radius of %s, above the limit of "
                                "%d (pass a radius explicitly)",
                                CLV_NUM(a[2].v.d), CLV_NUM(ceil(3.0 * a[2].v.d)),
                                CLV_BILATERAL_MAX_RADIUS);
    return CLV_OK;
}

static clv_status bilateral_run(clv_context *ctx, const clv_arg *a)
{
    clv_status status = CLV_OK;
    cl_mem wsbuf = NULL;
    const clv_image *src = a[0].v.p;
    clv_image *dst = a[1].v.p;
    const double sigma_space = a[2].v.d, sigma_range = a[3].v.d;
    const int radius = derived_radius(sigma_space, a[4].v.i);
    const clv_border border = (clv_border)a[5].v.i;
    char opts[256];
    CLV_TRY(clv__filter_options(ctx, OP, src, border, opts, sizeof opts));
    const int w = src->width, h = src->height, r = radius;
    const int sp = clv__pitch(src), dp = clv__pitch(dst);
    /* Value scale vk (see bilateral.cl): f32 values are read times a power
     * of two no larger than 1/2 or 1 / (sum of the spatial weights over the
     * square around the window, at least the disc's), so the
     * weighted sums and the differences stay finite up to FLT_MAX. u8/u16
     * cannot overflow: vk = 1. Range term 2^(-(d vk rk)^2) =
     * exp(-d^2 / 2 sigma_range^2); a sigma so small that rk overflows
     * still gives weight 0 to every non-zero distance. */
    double wsum1 = 0.0; /* sum of the 1-D spatial weights; the 2-D sum is its square */
    for (int i = -radius; i <= radius; i++) {
        const double u = (double)i / sigma_space;
        wsum1 += exp(-0.5 * u * u);
    }
    int e2 = 0; /* vk = 2^-e2 */
    if (src->type == CLV_F32) /* 2^(e2-1) <= max(2, sum) < 2^e2 */
        (void)frexp(wsum1 * wsum1 > 2.0 ? wsum1 * wsum1 : 2.0, &e2);
    float vk = (float)ldexp(1.0, -e2), ivk = (float)ldexp(1.0, e2);
    const double rkd = sqrt(0.5 * 1.4426950408889634) / (sigma_range * (double)vk);
    /* u8/u16 kernels take nkr = -min(rk^2, FLT_MAX) in its place (see
     * BIL_EXPO in bilateral.cl). */
    const float rk = src->type == CLV_F32 ? (rkd > FLT_MAX ? FLT_MAX : (float)rkd)
                                          : (rkd * rkd > FLT_MAX ? -FLT_MAX : (float)(-rkd * rkd));

    bil_plan pl;
    CLV_TRY(bil_choose(ctx, src, r, border, opts, &pl));
    if (pl.variant == BIL_FIXED && src->type != CLV_F32) {
        /* bil_fixed stages u8/u16 values times vk = the range factor, so a
         * tap's range term is -||d||^2 (bilateral.cl's BIL_EXPO_L), and
         * scales the result back by ivk. Kept within [2^-60, 2^40]: the
         * scaled values stay normal floats and ||d||^2 finite (4 channels
         * of 65535 times 2^40 square to below 2^117); beyond either end
         * every weight is already 1 or 0 to float precision. */
        const double a = rkd < 0x1p-60 ? 0x1p-60 : rkd > 0x1p40 ? 0x1p40 : rkd;
        vk = (float)a;
        ivk = (float)(1.0 / a);
    }
    CLV_TRY(space_weights(ctx, sigma_space, radius, pl.form, &wsbuf));
    switch (pl.variant) {
    case BIL_PLANES_VEC:
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[0], 2, pl.g, NULL, CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(w), CLV_ARG(h), CLV_ARG(r), CLV_ARG(pl.planes),
                           CLV_ARG(pl.ppitch), CLV_ARG(pl.plane), CLV_ARG(vk)));
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[1], 2, pl.g2, NULL, CLV_ARG(pl.planes),
                           CLV_ARG(pl.ppitch), CLV_ARG(pl.plane), CLV_ARG(w), CLV_ARG(h),
                           CLV_ARG(dst->mem), CLV_ARG(dp), CLV_ARG(wsbuf), CLV_ARG(r),
                           CLV_ARG(rk), CLV_ARG(ivk)));
        break;
    case BIL_FIXED:
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[0], 2, pl.g, pl.l, CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(w), CLV_ARG(h), CLV_ARG(dst->mem), CLV_ARG(dp),
                           CLV_ARG(wsbuf), CLV_ARG(rk), CLV_ARG(vk), CLV_ARG(ivk),
                           CLV_LOCAL(pl.bytes)));
        break;
    case BIL_TILED:
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[0], 2, pl.g, pl.l, CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(w), CLV_ARG(h), CLV_ARG(dst->mem), CLV_ARG(dp),
                           CLV_ARG(wsbuf), CLV_ARG(r), CLV_ARG(rk), CLV_ARG(vk), CLV_ARG(ivk),
                           CLV_LOCAL(pl.bytes)));
        break;
    case BIL_GLOBAL:
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[0], 2, pl.g, NULL, CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(w), CLV_ARG(h), CLV_ARG(dst->mem), CLV_ARG(dp),
                           CLV_ARG(wsbuf), CLV_ARG(r), CLV_ARG(rk), CLV_ARG(vk), CLV_ARG(ivk)));
        break;
    }
out:
    return status;
}

static clv_status bil_choose(clv_context *ctx, const clv_image *src, int r, clv_border border,
                             const char *opts, bil_plan *pl)
{
    clv_status status = CLV_OK;
    const int w = src->width, h = src->height, cn = src->channels;
    memset(pl, 0, sizeof *pl);

    if (ctx->tune.vec > 0) {
        /* CPU: pad and split the channels into float planes once, then VEC
         * pixels per work-item with branch-free vector taps. */
        const int vec = ctx->tune.vec;
        char vopts[300];
        /* f32 with 2-4 channels: -cl-denorms-are-zero, and PoCL runs the
         * kernels with the CPU's flush-to-zero. There the summed colour
         * distance sends many taps of a noisy image to the weight floor
         * 2^-125, whose products with the scaled values are subnormal, each
         * a microcode assist (f32 x 3 at 1920x1080, random data: 554 -> 85
         * ms). Tiny data loses accuracy (edge.h). u8/u16 products of the
         * floor stay normal (values 0 or >= 1), and one f32 channel has no
         * more such taps than before: both keep IEEE subnormals. */
        const int ftz = src->type == CLV_F32 && cn > 1;
        snprintf(vopts, sizeof vopts, "%s -DVEC=%d%s", opts, vec,
                 ftz ? " -cl-denorms-are-zero" : "");
        pl->variant = BIL_PLANES_VEC;
        pl->form = SPACE_2D_LOG2;
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_BILATERAL, vopts, "bil_planes_vec", &pl->k[0]));
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_BILATERAL, vopts, "bil_rows_vec", &pl->k[1]));
        /* Work-item x0 reads padded columns x0 .. x0 + 2r + VEC - 1. */
        const size_t wv = ((size_t)w + (size_t)vec - 1) / (size_t)vec;
        const size_t ppitch = (wv * (size_t)vec + 2 * (size_t)r + (size_t)vec - 1) / (size_t)vec *
                              (size_t)vec;
        const size_t prows = (size_t)h + 2 * (size_t)r;
        const size_t plane = ppitch * prows;
        if (plane * (size_t)(cn + 1) > (size_t)INT32_MAX)
            return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                             "image of %dx%d with radius %d is too large for the CPU variant", w,
                             h, r);
        CLV_TRY(clv__scratch(ctx, OP, 0, (plane * (size_t)cn + ppitch) * sizeof(float),
                             &pl->planes));
        pl->ppitch = (int)ppitch;
        pl->plane = (int)plane;
        pl->g[0] = ppitch / (size_t)vec;
        pl->g[1] = prows;
        pl->g2[0] = wv;
        pl->g2[1] = (size_t)h;
        return CLV_OK;
    }

    const size_t pix = (size_t)cn * sizeof(float);
    size_t max_wg, local_free, budget;
    pl->form = SPACE_1D;
    if (r <= ctx->tune.bil_fixed_radius && border != CLV_BORDER_CONSTANT) {
        /* bil_fixed: groups of bil_fixed_tile.lx x ly (ly halved to fit the
         * device's limits) making lx x (ly py) outputs; else bil_tiled */
        const bil_fixed_tile *t = &bil_fixed_tile_default;
        const int py = CLV__REG_PY(ctx, t->py[cn]);
        char fopts[320];
        snprintf(fopts, sizeof fopts, "%s -DBIL_R=%d -DBIL_PY=%d", opts, r, py);
        cl_kernel kf;
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_BILATERAL, fopts, "bil_fixed", &kf));
        CLV_TRY(clv__kernel_limits(ctx, OP, kf, &max_wg, &local_free));
        budget = local_free < CLV_LOCAL_BUDGET_MAX ? local_free : CLV_LOCAL_BUDGET_MAX;
        const size_t lx = t->lx;
        for (size_t ly = t->ly; ly >= 1; ly /= 2) {
            const size_t bytes =
                (lx + 2 * (size_t)r) * (ly * (size_t)py + 2 * (size_t)r) * pix;
            if (lx * ly <= max_wg && bytes <= budget) {
                pl->variant = BIL_FIXED;
                pl->form = SPACE_1D_LOG2;
                pl->k[0] = kf;
                pl->bytes = bytes;
                pl->l[0] = lx;
                pl->l[1] = ly;
                pl->g[0] = ((size_t)w + lx - 1) / lx * lx;
                pl->g[1] = ((size_t)h + ly * (size_t)py - 1) / (ly * (size_t)py) * ly;
                return CLV_OK;
            }
        }
    }
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_BILATERAL, opts, "bil_tiled", &pl->k[0]));
    CLV_TRY(clv__kernel_limits(ctx, OP, pl->k[0], &max_wg, &local_free));
    budget = local_free < CLV_LOCAL_BUDGET_MAX ? local_free : CLV_LOCAL_BUDGET_MAX;
    pl->g[0] = (size_t)w;
    pl->g[1] = (size_t)h;
    if (fit_tile(&pl->l[0], &pl->l[1], w, h, r, max_wg, budget, pix)) {
        pl->variant = BIL_TILED;
        pl->bytes = (pl->l[0] + 2 * (size_t)r) * (pl->l[1] + 2 * (size_t)r) * pix;
        return CLV_OK;
    }
    /* Radius too large for a useful tile in the local-memory budget
     * (e.g. r > 22 with 3 channels in 32 KiB): read global memory. */
    pl->variant = BIL_GLOBAL;
    pl->l[0] = pl->l[1] = 0;
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_BILATERAL, opts, "bil_global", &pl->k[0]));
out:
    return status;
}

static const clv_param_desc bilateral_params[] = {
    CLV__P_SRC_ANY,
    CLV__P_DST_LIKE_SRC,
    CLV__P_DOUBLE("sigma_space", "spatial standard deviation", "px", 0.0, HUGE_VAL,
                  CLV_PARAM_MIN_OPEN, 3.0),
    CLV__P_DOUBLE("sigma_range", "range standard deviation, in the image's units", NULL, 0.0,
                  HUGE_VAL, CLV_PARAM_MIN_OPEN, 25.0),
    {.name = "radius", .type = CLV_PARAM_INT,
     .flags = CLV_PARAM_INPUT | CLV_PARAM_OPTIONAL | CLV_PARAM_HAS_SPECIAL |
              CLV_PARAM_SPECIAL_BELOW,
     .doc = "window radius (side 2*radius+1)", .unit = "px", .min = 1,
     .max = CLV_BILATERAL_MAX_RADIUS, .def = 0, .special = 0,
     .special_doc = "<= 0: ceil(3*sigma_space)"},
    CLV__P_BORDER,
};

const clv_op_desc clv__op_bilateral = {
    .name = "bilateral",
    .summary = "brute-force bilateral filter (OpenCV bilateralFilter weights)",
    .nparams = 6,
    .params = bilateral_params,
    .run = bilateral_run,
    .check = bilateral_check,
};

CLV_API clv_status clv_bilateral(clv_context *ctx, const clv_image *src, clv_image *dst,
                                 double sigma_space, double sigma_range, int radius,
                                 clv_border border)
{
    const clv_arg a[] = {CLV__IMG(src),         CLV__IMG(dst),    CLV__DBL(sigma_space),
                         CLV__DBL(sigma_range), CLV__INT(radius), CLV__INT((int)border)};
    return clv__op_run(ctx, &clv__op_bilateral, a);
}
