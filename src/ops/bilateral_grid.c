/* clvision — bilateral grid: splat (gather), separable 3-D blur, trilinear
 * slice. Grid size follows the image and the sampling at every call. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/grid_internal.h"

void clv__grid_options(clv_context *ctx, const char *base, char *buf, size_t size)
{
    snprintf(buf, size, "%s -DZC=%d%s", base, ctx->tune.grid_zc,
             ctx->tune.poly_math ? " -DCLV_POLY_MATH" : "");
}

clv_status clv__grid_plan(clv_context *ctx, const char *op, int w, int h, int nv, double s_s,
                          double s_r, int gd, clv__grid *g)
{
    memset(g, 0, sizeof *g);
    g->s_s = (float)s_s;
    g->inv_ss = (float)(1.0 / s_s);
    /* finite even when 1 / s_r is beyond float (a tiny s_r over a zero
     * range): kernels scale (edge - lo) by it, and 0 * Inf would be NaN */
    g->inv_sr = 1.0 / s_r < FLT_MAX ? (float)(1.0 / s_r) : FLT_MAX;
    g->vk = 1.0f;
    g->ivk = 1.0f;
    /* the last pixel's nearest cell, plus one so trilinear reads stay inside */
    g->gw = (int)floor((double)(w - 1) / s_s + 0.5) + 2;
    g->gh = (int)floor((double)(h - 1) / s_s + 0.5) + 2;
    g->gd = gd;
    g->nc = nv == 1 ? 2 : nv == 3 ? 4 : 8; /* one vector per cell (see the kernel) */
    if (gd < 1 || gd > CLV__GRID_MAX_GD)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "range axis of %d cells (range / s_r) outside 1..%d: raise s_r", gd,
                         CLV__GRID_MAX_GD);
    double bytes = (double)g->gw * g->gh * gd * g->nc * sizeof(float);
    if (bytes > (double)ctx->info.max_mem_alloc_size || bytes > (double)SIZE_MAX / 2)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, op,
                         "grid of %dx%dx%d cells (%.0f bytes) exceeds the device's maximum "
                         "allocation; raise s_s or s_r",
                         g->gw, g->gh, gd, bytes);
    return CLV_OK;
}

/* Normalised Gaussian taps for the grid blur, cached by sigma. */
static clv_status blur_weights(clv_context *ctx, const char *op, double sigma, int *radius,
                               cl_mem *out)
{
    int r = (int)ceil(3.0 * sigma);
    if (r > 60)
        r = 60;
    *radius = r;
    if (clv__param_lookup(ctx, CLV__PARAM_GRID_BLUR, &sigma, sizeof sigma, out))
        return CLV_OK;
    float w[121];
    double sum = 0.0, tmp[121];
    for (int i = -r; i <= r; i++) {
        const double u = (double)i / sigma; /* no 0/0 when sigma^2 underflows */
        tmp[i + r] = exp(-0.5 * u * u);
        sum += tmp[i + r];
    }
    for (int i = 0; i <= 2 * r; i++)
        w[i] = (float)(tmp[i] / sum);
    return clv__param_store(ctx, op, CLV__PARAM_GRID_BLUR, &sigma, sizeof sigma, w,
                            (size_t)(2 * r + 1) * sizeof(float), out);
}

clv_status clv__grid_build(clv_context *ctx, const char *op, const char *options, cl_mem vals,
                           int vpitch, cl_mem edge, int epitch, int w, int h, double blur_sigma,
                           clv__grid *g)
{
    clv_status status = CLV_OK;
    cl_kernel ksplat, kblur, kreduce;
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GRID, options, "grid_splat", &ksplat));
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GRID, options, "grid_blur", &kblur));
    const size_t cells = (size_t)g->gw * g->gh * g->gd;
    const size_t grid_bytes = cells * (size_t)g->nc * sizeof(float);
    cl_mem a, b;
    CLV_TRY(clv__scratch(ctx, op, 2, grid_bytes, &a));
    CLV_TRY(clv__scratch(ctx, op, 3, grid_bytes, &b));

    /* Bands: on GPUs a work-item visiting all s_s^2 pixels of its cell is a
     * long serial chain; splitting the rows over `bands` work-items that
     * write partial grids (summed in a fixed order) keeps each chain short. */
    int bands = 1;
    if (ctx->tune.grid_max_bands > 1) {
        const double per_item = (double)g->s_s * g->s_s;
        bands = (int)ceil(per_item / 64.0);
        bands = bands < 1 ? 1 : bands > ctx->tune.grid_max_bands ? ctx->tune.grid_max_bands : bands;
    }
    cl_mem target = a;
    if (bands > 1)
        CLV_TRY(clv__scratch(ctx, op, 1, grid_bytes * (size_t)bands, &target));
    const size_t gs[3] = {(size_t)g->gw, (size_t)g->gh * (size_t)bands,
                          ((size_t)g->gd + (size_t)ctx->tune.grid_zc - 1) /
                              (size_t)ctx->tune.grid_zc};
    CLV_TRY(CLV_LAUNCH(ctx, op, ksplat, 3, gs, NULL, CLV_ARG(vals), CLV_ARG(vpitch), CLV_ARG(edge),
                       CLV_ARG(epitch), CLV_ARG(w), CLV_ARG(h), CLV_ARG(g->s_s),
                       CLV_ARG(g->inv_ss), CLV_ARG(g->inv_sr), CLV_ARG(g->rng), CLV_ARG(target),
                       CLV_ARG(g->gw), CLV_ARG(g->gh), CLV_ARG(g->gd), CLV_ARG(bands),
                       CLV_ARG(g->vk)));
    if (bands > 1) {
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GRID, options, "grid_reduce", &kreduce));
        const int n = (int)(cells * (size_t)g->nc);
        const size_t gr[1] = {(size_t)n};
        CLV_TRY(CLV_LAUNCH(ctx, op, kreduce, 1, gr, NULL, CLV_ARG(target), CLV_ARG(a), CLV_ARG(n),
                           CLV_ARG(bands)));
    }
    g->grid = a;
    if (blur_sigma > 0.0) {
        int r;
        cl_mem wbuf;
        CLV_TRY(blur_weights(ctx, op, blur_sigma, &r, &wbuf));
        const size_t gb[3] = {(size_t)g->gw, (size_t)g->gh, (size_t)g->gd};
        cl_mem in = a, outb = b;
        for (int axis = 0; axis < 3; axis++) {
            CLV_TRY(CLV_LAUNCH(ctx, op, kblur, 3, gb, NULL, CLV_ARG(in), CLV_ARG(outb),
                               CLV_ARG(g->gw), CLV_ARG(g->gh), CLV_ARG(g->gd), CLV_ARG(axis),
                               CLV_ARG(wbuf), CLV_ARG(r)));
            cl_mem t = in;
            in = outb;
            outb = t;
        }
        g->grid = in;
    }
out:
    return status;
}

static const char *depth_macro(clv_pixel_type t)
{
    return t == CLV_U8 ? "U8" : t == CLV_U16 ? "U16" : "F32";
}

/* Range of the edge values: fixed for integer types, measured for f32 (a
 * small reduction and an 8-byte read, the one synchronisation of the op). */
static clv_status edge_range(clv_context *ctx, const char *op, const char *options,
                             const clv_image *vals, const clv_image *edge, clv_pixel_type etype,
                             double *lo, double *hi)
{
    clv_status status = CLV_OK;
    if (etype == CLV_U8 || etype == CLV_U16) {
        *lo = 0.0;
        *hi = etype == CLV_U8 ? 255.0 : 65535.0;
        return CLV_OK;
    }
    enum { GROUPS = 256, LOCAL = 64 }; /* enough groups to fill a GPU; the host folds them */
    cl_kernel k;
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GRID, options, "grid_minmax", &k));
    cl_mem pairs;
    CLV_TRY(clv__scratch(ctx, op, 1, GROUPS * 2 * sizeof(float), &pairs));
    const int vp = clv__pitch(vals);
    const int ep = clv__pitch(edge);
    const size_t g[1] = {GROUPS * LOCAL}, l[1] = {LOCAL};
    CLV_TRY(CLV_LAUNCH(ctx, op, k, 1, g, l, CLV_ARG(vals->mem), CLV_ARG(vp), CLV_ARG(edge->mem),
                       CLV_ARG(ep), CLV_ARG(vals->width), CLV_ARG(vals->height), CLV_ARG(pairs),
                       CLV_LOCAL(2 * LOCAL * sizeof(float))));
    float host[GROUPS * 2];
    CLV_CHECK_CL(ctx, clEnqueueReadBuffer(ctx->queue, pairs, CL_TRUE, 0, sizeof host, host, 0, NULL,
                                          NULL),
                 op, "clEnqueueReadBuffer(range)");
    double mn = INFINITY, mx = -INFINITY;
    for (int i = 0; i < GROUPS; i++) {
        mn = fmin(mn, host[2 * i]);
        mx = fmax(mx, host[2 * i + 1]);
    }
    if (!isfinite(mn) || !isfinite(mx))
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "edge values are not finite (range %g..%g): NaN-only or infinite input",
                         mn, mx);
    *lo = mn;
    *hi = mx;
out:
    return status;
}

/* Range cells of the grid over edge values lo..hi at s_r units per cell. */
static double range_cells(double lo, double hi, double s_r)
{
    return ceil((hi - lo) / s_r) + 1.0;
}

/* The filter; edge NULL: the range axis comes from src itself. Arguments
 * already validated by the descriptor; op: the name messages go under. */
static clv_status grid_apply(clv_context *ctx, const char *op, const clv_image *src,
                             const clv_image *edge, clv_image *dst, double s_s, double s_r,
                             double blur_sigma)
{
    clv_status status = CLV_OK;
    char fmt[64], base[128], options[256];
    clv__format_options(fmt, sizeof fmt, src->type, src->channels);
    const clv_pixel_type etype = edge ? edge->type : src->type;
    if (edge)
        snprintf(base, sizeof base, "%s -DEDGE_%s", fmt, depth_macro(edge->type));
    else
        snprintf(base, sizeof base, "%s -D%s", fmt,
                 src->channels == 1 ? "EDGE_SELF" : "EDGE_LUMA");
    clv__grid_options(ctx, base, options, sizeof options);
    const clv_image *e = edge ? edge : src;

    double lo = 0.0, hi = 0.0;
    CLV_TRY(edge_range(ctx, op, options, src, e, etype, &lo, &hi));
    const double cells = range_cells(lo, hi, s_r);
    if (cells > CLV__GRID_MAX_GD)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "range %g..%g with s_r %s needs %.0f range cells (max %d): raise s_r",
                         lo, hi, CLV_NUM(s_r), cells, CLV__GRID_MAX_GD);
    clv__grid g;
    CLV_TRY(clv__grid_plan(ctx, op, src->width, src->height, src->channels, s_s, s_r,
                           (int)cells, &g));
    if (src->type == CLV_F32) {
        /* A cell gathers at most (floor(s_s) + 2)^2 pixels (and at most the
         * image): splat vk times each value, vk = 2^-e with 2^e above that
         * count, so no cell sum of finite values overflows (exact scaling:
         * the result is unchanged unless values are within that factor of
         * the subnormal range). */
        const double side = floor(s_s) + 2.0, npix = (double)src->width * src->height;
        const double most = side * side < npix ? side * side : npix;
        int e2;
        (void)frexp(most, &e2);
        g.vk = (float)ldexp(1.0, -e2);
        g.ivk = (float)ldexp(1.0, e2);
    }
    const float rng_host[2] = {(float)lo, (float)hi};
    CLV_TRY(clv__param_store_if_new(ctx, op, CLV__PARAM_GRID_RANGE, rng_host, sizeof rng_host,
                                    &g.rng));

    const int vp = clv__pitch(src);
    const int ep = clv__pitch(e);
    const int dp = clv__pitch(dst);
    CLV_TRY(clv__grid_build(ctx, op, options, src->mem, vp, e->mem, ep, src->width, src->height,
                            blur_sigma, &g));
    cl_kernel kslice;
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_GRID, options, "grid_slice", &kslice));
    const size_t gs[2] = {(size_t)src->width, (size_t)src->height};
    CLV_TRY(CLV_LAUNCH(ctx, op, kslice, 2, gs, NULL, CLV_ARG(src->mem), CLV_ARG(vp),
                       CLV_ARG(e->mem), CLV_ARG(ep), CLV_ARG(dst->mem), CLV_ARG(dp),
                       CLV_ARG(src->width), CLV_ARG(src->height), CLV_ARG(g.inv_ss),
                       CLV_ARG(g.inv_sr), CLV_ARG(g.rng), CLV_ARG(g.grid), CLV_ARG(g.gw),
                       CLV_ARG(g.gh), CLV_ARG(g.gd), CLV_ARG(g.ivk)));
out:
    return status;
}

static clv_status grid_run(clv_context *ctx, const clv_arg *a)
{
    return grid_apply(ctx, clv__op_bilateral_grid.name, a[0].v.p, NULL, a[1].v.p, a[2].v.d,
                      a[3].v.d, a[4].v.d);
}

static clv_status grid_cross_run(clv_context *ctx, const clv_arg *a)
{
    return grid_apply(ctx, clv__op_bilateral_grid_cross.name, a[0].v.p, a[1].v.p, a[2].v.p,
                      a[3].v.d, a[4].v.d, a[5].v.d);
}

/* The clv_grid_params fields, flattened; both ops take them after their
 * images. Their defaults are clv_grid_params_default's. */
#define GRID_P_S_S                                                                        \
    {.name = "s_s", .type = CLV_PARAM_DOUBLE, .flags = CLV_PARAM_INPUT | CLV_PARAM_OPTIONAL, \
     .doc = "spatial sampling: pixels per grid cell (about the spatial sigma)", .unit = "px", \
     .min = 1.0, .max = HUGE_VAL, .def = 16.0, .cli_alias = "--sigma-space"}
#define GRID_P_S_R                                                                        \
    {.name = "s_r", .type = CLV_PARAM_DOUBLE,                                             \
     .flags = CLV_PARAM_INPUT | CLV_PARAM_OPTIONAL | CLV_PARAM_MIN_OPEN,                  \
     .doc = "range sampling: units of the range axis (the image's, or edge's) per cell, "  \
            "about the range sigma; 25.5 is 0.1 of the u8 range",                          \
     .min = 0.0, .max = HUGE_VAL, .def = 25.5, .cli_alias = "--sigma-range"}
#define GRID_P_BLUR                                                                       \
    {.name = "blur_sigma", .type = CLV_PARAM_DOUBLE,                                      \
     .flags = CLV_PARAM_INPUT | CLV_PARAM_OPTIONAL,                                       \
     .doc = "Gaussian blur of the grid along all three axes (1: close to a bilateral with " \
            "sigma_space = s_s, sigma_range = s_r)",                                      \
     .unit = "cells", .min = 0.0, .max = 20.0, .def = 1.0, .special_doc = "0: no blur",    \
     .cli_alias = "--blur"}

static const clv_param_desc grid_params[] = {
    CLV__P_IMAGE("src", "source", "the image, u8/u16/f32 with 1, 3 or 4 channels (RGB, RGBA)",
                 CLV_PARAM_INPUT | CLV_PARAM_RGB, CLV_TYPES_ALL,
                 CLV_CHANNELS(1) | CLV_CHANNELS(3) | CLV_CHANNELS(4), NULL, 0),
    CLV__P_IMAGE("dst", "destination", "the result, like src", CLV_PARAM_OUTPUT | CLV_PARAM_RGB,
                 0, 0, "src", CLV_LIKE_ALL),
    GRID_P_S_S,
    GRID_P_S_R,
    GRID_P_BLUR,
};

/* What both grid ops' docs say about borders and cost. */
#define GRID_DOC_BORDERS                                                                  \
    "No border mode: nothing outside the image is splatted and each output is divided by " \
    "the weight gathered, so near an edge the average is over the pixels inside. The "    \
    "grid is sized from the image and s_s, s_r at every call."

const clv_op_desc clv__op_bilateral_grid = {
    .name = "bilateral_grid",
    .summary = "bilateral filter through a bilateral grid (Chen, Paris, Durand 2007)",
    .blocking = "with an f32 image: reads its value range (8 bytes) back to size the grid",
    .doc = "1 channel: the range axis is the value itself. 3 or 4 channels: the range axis is "
           "the luminance 0.2126 c0 + 0.7152 c1 + 0.0722 c2 (Rec. 709), so the channels are "
           "taken as R, G, B: swap an OpenCV BGR array to RGB first, or the weights fall on the "
           "wrong channels; a 4th channel (alpha) is filtered along. " GRID_DOC_BORDERS,
    .cli_name = "grid",
    .nparams = 5,
    .params = grid_params,
    .run = grid_run,
};

static const clv_param_desc grid_cross_params[] = {
    CLV__P_IMAGE("src", "source", "the values, u8/u16/f32 with 1, 3 or 4 channels",
                 CLV_PARAM_INPUT, CLV_TYPES_ALL,
                 CLV_CHANNELS(1) | CLV_CHANNELS(3) | CLV_CHANNELS(4), NULL, 0),
    {.name = "edge", .label = "edge", .type = CLV_PARAM_IMAGE, .flags = CLV_PARAM_INPUT,
     .doc = "the range axis: 1 channel of src's size, any pixel type (s_r is in its units)",
     .types = CLV_TYPES_ALL, .channels = CLV_CHANNELS(1), .like = "src",
     .like_flags = CLV_LIKE_SIZE, .cli_alias = "--edge"},
    CLV__P_DST_LIKE_SRC,
    GRID_P_S_S,
    GRID_P_S_R,
    GRID_P_BLUR,
};

const clv_op_desc clv__op_bilateral_grid_cross = {
    .name = "bilateral_grid_cross",
    .summary = "cross (joint) bilateral grid: values from src, edges from edge",
    .blocking = "with an f32 edge image: reads its value range (8 bytes) back to size the grid",
    .doc = "Every channel of src is averaged with weights from the one-channel edge image, so "
           "src's channel order is kept as it is (RGB or BGR alike); make edge from colour as "
           "luminance of R, G, B. " GRID_DOC_BORDERS,
    .cli_name = "grid", /* clv grid --edge FILE */
    .nparams = 6,
    .params = grid_cross_params,
    .run = grid_cross_run,
};

CLV_API clv_grid_params clv_grid_params_default(void)
{
    clv_grid_params p;
    p.s_s = grid_params[2].def;
    p.s_r = grid_params[3].def;
    p.blur_sigma = grid_params[4].def;
    return p;
}

CLV_API clv_status clv_bilateral_grid(clv_context *ctx, const clv_image *src, clv_image *dst,
                                      const clv_grid_params *params)
{
    const clv_grid_params p = params ? *params : clv_grid_params_default();
    const clv_arg a[] = {CLV__IMG(src),   CLV__IMG(dst),   CLV__DBL(p.s_s),
                         CLV__DBL(p.s_r), CLV__DBL(p.blur_sigma)};
    return clv__op_run(ctx, &clv__op_bilateral_grid, a);
}

CLV_API clv_status clv_bilateral_grid_cross(clv_context *ctx, const clv_image *src,
                                            const clv_image *edge, clv_image *dst,
                                            const clv_grid_params *params)
{
    const clv_grid_params p = params ? *params : clv_grid_params_default();
    const clv_arg a[] = {CLV__IMG(src),   CLV__IMG(edge),  CLV__IMG(dst),
                         CLV__DBL(p.s_s), CLV__DBL(p.s_r), CLV__DBL(p.blur_sigma)};
    return clv__op_run(ctx, &clv__op_bilateral_grid_cross, a);
}
