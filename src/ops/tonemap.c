/* clvision — local tone mapping (Durand-Dorsey) on the bilateral grid.
 *
 * Kernels, all asynchronous (no host read-back):
 *   tm_luma   HDR RGB -> L = log2 luminance (sanitised), per-group min/max
 *   tm_hist   histogram of L between the global min and max
 *   tm_range  0.1 % / 99.9 % points -> rng = {lo, hi} on the device
 *   grid      splat L into a grid over [lo, lo + 64 stops], blur
 *   tm_apply  slice the base B, compress, restore colour, encode to u8 RGB */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/grid_internal.h"

#define OP "tonemap_local"

/* Headroom in stops between the brightest base value and display white, so
 * detail above the base is not clipped. */
#define TM_HEADROOM 0.5f
#define TM_MAX_STOPS 64.0

/* Sizes of the tone-mapping kernels, defined here only (the place a
 * per-device tuning table would fill). bins reaches bilateral_grid.cl as
 * -DTM_BINS, with TM_MAX_STOPS (the widest range the base layer may span) as
 * -DTM_MAX_STOPS; the work-groups are fitted to the device and kernel. */
typedef struct tm_tile {
    int bins;           /* TM_BINS: histogram bins of L over its 128 stops */
    size_t range_wg;    /* tm_range's work-group before fitting (TM_RANGE_WG) */
    size_t hist_wg;     /* tm_hist's work-group before fitting */
    size_t hist_groups; /* tm_hist's work-groups */
} tm_tile;
static const tm_tile tm_tile_default = {4096, 256, 256, 64};

CLV_API clv_tonemap_params clv_tonemap_params_default(void)
{
    clv_tonemap_params p;
    p.contrast = 5.0;
    p.exposure = 0.0;
    p.saturation = 1.0;
    p.gamma = 0.0;
    p.blend = 1.0;
    p.sigma_space = 0.0;
    p.sigma_range = 1.3;
    return p;
}

static clv_status check_params(clv_context *ctx, const clv_tonemap_params *p)
{
    const struct {
        const char *name;
        double v, lo, hi;
    } rules[] = {
        {"contrast", p->contrast, 0.1, 30.0},     {"exposure", p->exposure, -30.0, 30.0},
        {"saturation", p->saturation, 0.0, 4.0},  {"gamma", p->gamma, 0.0, 10.0},
        {"blend", p->blend, 0.0, 1.0},            {"sigma_space", p->sigma_space, 0.0, 4096.0},
        {"sigma_range", p->sigma_range, 0.01, 64.0},
    };
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (!(rules[i].v >= rules[i].lo && rules[i].v <= rules[i].hi))
            return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "%s must be in %g..%g (got %s)",
                             rules[i].name, rules[i].lo, rules[i].hi, CLV_NUM(rules[i].v));
    return CLV_OK;
}

CLV_API clv_status clv_tonemap_local(clv_context *ctx, const clv_image *hdr, clv_image *out,
                                     const clv_tonemap_params *params)
{
    clv_status status = CLV_OK;
    if (!ctx)
        return CLV_ERROR_INVALID_ARGUMENT;
    clv__op_begin(ctx);
    clv_tonemap_params p = params ? *params : clv_tonemap_params_default();
    CLV_TRY(clv__check_image(ctx, OP, "source", hdr));
    CLV_TRY(clv__check_image(ctx, OP, "destination", out));
    if (hdr->type != CLV_F32 || (hdr->channels != 3 && hdr->channels != 4))
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                         "source must be f32 RGB or RGBA (got %s with %d channels)",
                         clv_pixel_type_name(hdr->type), hdr->channels);
    if (out->type != CLV_U8 || out->channels != 3 || out->width != hdr->width ||
        out->height != hdr->height)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                         "destination must be u8 RGB of %dx%d (got %s, %d channels, %dx%d)",
                         hdr->width, hdr->height, clv_pixel_type_name(out->type), out->channels,
                         out->width, out->height);
    CLV_TRY(check_params(ctx, &p));

    const int w = hdr->width, h = hdr->height;
    const double larger = w > h ? w : h;
    double s_s = p.sigma_space > 0.0 ? p.sigma_space : 0.02 * larger;
    if (s_s < 1.0)
        s_s = 1.0;
    const double s_r = p.sigma_range;
    CLV_TRY(clv__grid_check_params(ctx, OP, s_s, s_r, 1.0));
    clv__grid g;
    CLV_TRY(clv__grid_plan(ctx, OP, w, h, 1, s_s, s_r, (int)ceil(TM_MAX_STOPS / s_r) + 1, &g));

    /* Work-groups from the limits (issue 13 #22): tm_range is built for
     * TM_RANGE_WG items, a power of two up to range_wg within the device's
     * limit, halved until the built kernel allows it too; tm_hist takes any
     * size. Both results are exact integer counts, the same for every size. */
    const tm_tile *t = &tm_tile_default;
    size_t range_wg = t->range_wg, hist_wg = t->hist_wg, kwg = 0;
    while (range_wg > 1 && (range_wg > ctx->info.max_work_group_size ||
                            range_wg > ctx->info.max_work_item_sizes[0]))
        range_wg /= 2;
    char base[200], options[328];
    cl_kernel kluma, khist, krange, kapply;
    for (;;) {
        /* %#.9g: a decimal point always, and every digit a float keeps */
        snprintf(base, sizeof base,
                 "-DDEPTH_F32 -DCN=1 -DEDGE_SELF -DHDR_CN=%d -DTM_RANGE_WG=%zu -DTM_BINS=%d "
                 "-DTM_MAX_STOPS=%#.9gf",
                 hdr->channels, range_wg, t->bins, TM_MAX_STOPS);
        clv__grid_options(ctx, base, options, sizeof options);
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GRID, options, "tm_range", &krange));
        CLV_TRY(clv__kernel_limits(ctx, OP, krange, &kwg, NULL));
        if (kwg >= range_wg)
            break;
        if (range_wg == 1)
            return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                             "the range kernel allows no work-group on %s", ctx->info.name);
        range_wg /= 2;
    }
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GRID, options, "tm_luma", &kluma));
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GRID, options, "tm_hist", &khist));
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GRID, options, "tm_apply", &kapply));
    CLV_TRY(clv__kernel_limits(ctx, OP, khist, &kwg, NULL));
    while (hist_wg > 1 && (hist_wg > kwg || hist_wg > ctx->info.max_work_item_sizes[0]))
        hist_wg /= 2;

    /* scratch 0: L image, 2-3: grid, 4: histogram, 5: {lo, hi} */
    const size_t npix = (size_t)w * (size_t)h;
    const size_t hist_bytes = (size_t)t->bins * sizeof(cl_uint);
    cl_mem lum, hist, rng;
    CLV_TRY(clv__scratch(ctx, OP, 0, npix * sizeof(float), &lum));
    CLV_TRY(clv__scratch(ctx, OP, 4, hist_bytes, &hist));
    CLV_TRY(clv__scratch(ctx, OP, 5, 4 * sizeof(float), &rng));

    const int hp = clv__pitch(hdr);
    const int op_ = (int)out->pitch;
    const int n = (int)npix;
    const size_t g_img[2] = {(size_t)w, (size_t)h};
    CLV_TRY(CLV_LAUNCH(ctx, OP, kluma, 2, g_img, NULL, CLV_ARG(hdr->mem), CLV_ARG(hp), CLV_ARG(w),
                       CLV_ARG(h), CLV_ARG(lum)));
    const cl_uint zero = 0;
    CLV_CHECK_CL(ctx, clEnqueueFillBuffer(ctx->queue, hist, &zero, sizeof zero, 0, hist_bytes, 0,
                                          NULL, NULL),
                 OP, "clEnqueueFillBuffer(histogram)");
    const size_t g2[1] = {t->hist_groups * hist_wg}, l2[1] = {hist_wg};
    CLV_TRY(CLV_LAUNCH(ctx, OP, khist, 1, g2, l2, CLV_ARG(lum), CLV_ARG(n), CLV_ARG(hist)));
    const size_t g3[1] = {range_wg}, l3[1] = {range_wg}; /* one group of TM_RANGE_WG */
    CLV_TRY(CLV_LAUNCH(ctx, OP, krange, 1, g3, l3, CLV_ARG(hist), CLV_ARG(n), CLV_ARG(rng)));

    g.rng = rng;
    const int lp = w;
    CLV_TRY(clv__grid_build(ctx, OP, options, lum, lp, lum, lp, w, h, 1.0, &g));

    const float contrast = (float)p.contrast, exposure = (float)p.exposure;
    const float saturation = (float)p.saturation, gamma = (float)p.gamma;
    const float blend = (float)p.blend, headroom = TM_HEADROOM;
    CLV_TRY(CLV_LAUNCH(ctx, OP, kapply, 2, g_img, NULL, CLV_ARG(hdr->mem), CLV_ARG(hp), CLV_ARG(lum),
                       CLV_ARG(out->mem), CLV_ARG(op_), CLV_ARG(w), CLV_ARG(h), CLV_ARG(g.inv_ss),
                       CLV_ARG(g.inv_sr), CLV_ARG(g.rng), CLV_ARG(g.grid), CLV_ARG(g.gw),
                       CLV_ARG(g.gh), CLV_ARG(g.gd), CLV_ARG(contrast), CLV_ARG(exposure),
                       CLV_ARG(saturation), CLV_ARG(gamma), CLV_ARG(blend), CLV_ARG(headroom)));
out:
    return status;
}
