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

/* Range cells of the base layer's grid: TM_MAX_STOPS at sigma_range stops
 * per cell. The one place that rule lives (the check and the body). */
static int tm_range_cells(double sigma_range)
{
    const double cells = ceil(TM_MAX_STOPS / sigma_range) + 1.0;
    return cells > CLV__GRID_MAX_GD ? -1 : (int)cells;
}

/* The grid's spatial sampling: sigma_space, or 0: 2 % of the image's larger
 * side; at least 1. */
static double tm_spatial(double sigma_space, int w, int h)
{
    const double larger = w > h ? w : h;
    const double s_s = sigma_space > 0.0 ? sigma_space : 0.02 * larger;
    return s_s < 1.0 ? 1.0 : s_s;
}

static clv_status tonemap_check(clv__report *r, const clv_arg *a)
{
    const double sigma_range = a[8].v.d;
    if (tm_range_cells(sigma_range) < 0)
        return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT,
                                "sigma_range %s needs %s range cells over the %g stops of the "
                                "base layer, above the limit of %d",
                                CLV_NUM(sigma_range),
                                CLV_NUM(ceil(TM_MAX_STOPS / sigma_range) + 1.0), TM_MAX_STOPS,
                                CLV__GRID_MAX_GD);
    return CLV_OK;
}

static clv_status tonemap_run(clv_context *ctx, const clv_arg *a)
{
    clv_status status = CLV_OK;
    const clv_image *hdr = a[0].v.p;
    clv_image *out = a[1].v.p;
    const clv_tonemap_params p = {.contrast = a[2].v.d,
                                  .exposure = a[3].v.d,
                                  .saturation = a[4].v.d,
                                  .gamma = a[5].v.d,
                                  .blend = a[6].v.d,
                                  .sigma_space = a[7].v.d,
                                  .sigma_range = a[8].v.d};
    const int w = hdr->width, h = hdr->height;
    const double s_s = tm_spatial(p.sigma_space, w, h), s_r = p.sigma_range;
    clv__grid g;
    CLV_TRY(clv__grid_plan(ctx, OP, w, h, 1, s_s, s_r, tm_range_cells(s_r), &g));

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

#define TM_P(nm, doc_, unit_, lo, hi, def_)                                               \
    CLV__P_DOUBLE(nm, doc_, unit_, lo, hi, CLV_PARAM_OPTIONAL, def_)

/* The clv_tonemap_params fields, flattened; their defaults are
 * clv_tonemap_params_default's. */
static const clv_param_desc tonemap_params[] = {
    CLV__P_IMAGE("hdr", "source", "linear-light f32 RGB or RGBA (alpha ignored)",
                 CLV_PARAM_INPUT | CLV_PARAM_RGB, CLV_TYPES(CLV_F32), CLV_CHANNELS(3) | CLV_CHANNELS(4),
                 NULL, 0),
    CLV__P_IMAGE("out", "destination", "u8 RGB of hdr's size", CLV_PARAM_OUTPUT | CLV_PARAM_RGB,
                 CLV_TYPES(CLV_U8), CLV_CHANNELS(3), "hdr", CLV_LIKE_SIZE),
    TM_P("contrast", "the range the base layer is compressed to", "stops", 0.1, 30.0, 5.0),
    TM_P("exposure", "added at the end", "stops", -30.0, 30.0, 0.0),
    TM_P("saturation", "colour saturation: 1 keeps the input's, 0 gives grey", NULL, 0.0, 4.0,
         1.0),
    {.name = "gamma", .type = CLV_PARAM_DOUBLE, .flags = CLV_PARAM_INPUT | CLV_PARAM_OPTIONAL,
     .doc = "output encoding x^(1/gamma)", .min = 0.0, .max = 10.0, .def = 0.0,
     .special_doc = "0: the sRGB curve"},
    TM_P("blend", "0: global compression of the whole log luminance, 1: full local (base "
         "compressed, detail kept)", NULL, 0.0, 1.0, 1.0),
    {.name = "sigma_space", .type = CLV_PARAM_DOUBLE,
     .flags = CLV_PARAM_INPUT | CLV_PARAM_OPTIONAL,
     .doc = "base layer spatial sigma (the grid's s_s, at least 1)", .unit = "px", .min = 0.0,
     .max = 4096.0, .def = 0.0, .special_doc = "0: 2% of the image's larger side"},
    TM_P("sigma_range", "base layer range sigma (the grid's s_r; 1.3 is about 0.4 in log10 "
         "units, as in Durand-Dorsey)", "stops", 0.01, 64.0, 1.3),
};

const clv_op_desc clv__op_tonemap_local = {
    .name = "tonemap_local",
    .summary = "local tone mapping (Durand-Dorsey on a bilateral grid) of linear HDR to u8 RGB",
    .doc = "Channels are R, G, B (luminance 0.2126 R + 0.7152 G + 0.0722 B, Rec. 709), in and "
           "out: swap an OpenCV BGR array to RGB first and the result back. A 4th input "
           "channel is ignored. The base layer comes from a bilateral grid over log2 "
           "luminance, which has no border mode: nothing outside the image contributes. NaN "
           "and negative inputs count as 0, +Inf as the largest float. No host "
           "synchronisation.",
    .cli_name = "tonemap",
    .nparams = 9,
    .params = tonemap_params,
    .run = tonemap_run,
    .check = tonemap_check,
};

CLV_API clv_tonemap_params clv_tonemap_params_default(void)
{
    clv_tonemap_params p;
    p.contrast = tonemap_params[2].def;
    p.exposure = tonemap_params[3].def;
    p.saturation = tonemap_params[4].def;
    p.gamma = tonemap_params[5].def;
    p.blend = tonemap_params[6].def;
    p.sigma_space = tonemap_params[7].def;
    p.sigma_range = tonemap_params[8].def;
    return p;
}

CLV_API clv_status clv_tonemap_local(clv_context *ctx, const clv_image *hdr, clv_image *out,
                                     const clv_tonemap_params *params)
{
    const clv_tonemap_params p = params ? *params : clv_tonemap_params_default();
    const clv_arg a[] = {CLV__IMG(hdr),          CLV__IMG(out),        CLV__DBL(p.contrast),
                         CLV__DBL(p.exposure),   CLV__DBL(p.saturation), CLV__DBL(p.gamma),
                         CLV__DBL(p.blend),      CLV__DBL(p.sigma_space),
                         CLV__DBL(p.sigma_range)};
    return clv__op_run(ctx, &clv__op_tonemap_local, a);
}
