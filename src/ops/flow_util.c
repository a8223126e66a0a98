/* clvision — flow-field utilities on the device: backward warping, the
 * Middlebury colour coding and evaluation against ground truth
 * (cl/flow_util.cl). The .flo files are in src/io/flo.c.
 *
 * clv_warp and clv_flow_to_color only enqueue. clv_flow_to_color with
 * max_magnitude <= 0 finds the largest known magnitude on the device (a
 * reduction into one word that the colouring kernel reads), so it does not
 * wait either. clv_flow_eval reads back one small block of per-work-group
 * partial sums (32 bytes per group of a few hundred to a few thousand
 * pixels) and adds them on the host in double; no double support is needed
 * on the device. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clvision/flow.h>

#include "runtime/internal.h"

/* Options of the flow-field kernels (no pixel format). */
static void flow_options(const clv_context *ctx, char *buf, size_t size)
{
    char vec[32] = "";
    if (ctx->tune.vec > 0)
        snprintf(vec, sizeof vec, "-DVEC=%d", ctx->tune.vec);
    snprintf(buf, size, "%s%s", vec, ctx->tune.poly_math ? " -DCLV_POLY_MATH" : "");
}

/* Pixels per work-item of the flow kernels along x. */
static size_t pixels_per_item(const clv_context *ctx)
{
    return ctx->tune.vec > 0 ? (size_t)ctx->tune.vec : 1;
}

static size_t floor_pow2(size_t v)
{
    size_t p = 1;
    while (p * 2 <= v)
        p *= 2;
    return p;
}

/* A power-of-two 2-D work-group for a reduction kernel over items[0] x
 * items[1] work-items that needs local_per_item bytes of local memory per
 * work-item: the device's preferred shape, no larger than the range, within
 * the kernel's work-group limit and the local memory it leaves free. */
static clv_status reduction_shape(clv_context *ctx, const char *op, cl_kernel k,
                                  const size_t items[2], size_t local_per_item, size_t local[2])
{
    clv_status status = CLV_OK;
    size_t max_wg = 0, local_free = 0;
    CLV_TRY(clv__kernel_limits(ctx, op, k, &max_wg, &local_free));
    size_t budget = local_free < CLV_LOCAL_BUDGET_MAX ? local_free : CLV_LOCAL_BUDGET_MAX;
    for (int d = 0; d < 2; d++) {
        size_t l = ctx->tune.local2d[d] ? ctx->tune.local2d[d] : 1;
        if (l > ctx->info.max_work_item_sizes[d])
            l = ctx->info.max_work_item_sizes[d];
        l = floor_pow2(l);
        while (l > 1 && l / 2 >= items[d])
            l /= 2;
        local[d] = l;
    }
    while (local[0] * local[1] > max_wg || local[0] * local[1] * local_per_item > budget) {
        if (local[1] > 1)
            local[1] /= 2;
        else if (local[0] > 1)
            local[0] /= 2;
        else
            break;
    }
    if (local_per_item > budget)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, op,
                         "the reduction needs %zu bytes of local memory per work-item; %s leaves "
                         "%zu",
                         local_per_item, ctx->info.name, local_free);
out:
    return status;
}

/* ---- warp ---- */

#define OP_WARP "warp"

/* Backward warp: flow and dst share a size; src has dst's type and channels
 * but may have any size (coordinates clamp to it). */

static clv_status warp_run(clv_context *ctx, const clv_arg *a)
{
    clv_status status = CLV_OK;
    const clv_image *src = a[0].v.p, *flow = a[1].v.p;
    clv_image *dst = a[2].v.p;

    char opts[160];
    clv__format_options(opts, sizeof opts, src->type, src->channels);
    if (ctx->tune.vec > 0) {
        size_t len = strlen(opts);
        snprintf(opts + len, sizeof opts - len, " -DVEC=%d", ctx->tune.vec);
    }
    cl_kernel k;
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_FLOW_UTIL, opts, "warp_bilinear", &k));

    const int sp = clv__pitch(src);
    const int fp = clv__pitch(flow);
    const int dp = clv__pitch(dst);
    const int w = dst->width, h = dst->height;
    const size_t ppi = pixels_per_item(ctx);
    const size_t global[2] = {((size_t)w + ppi - 1) / ppi, (size_t)h};
    CLV_TRY(CLV_LAUNCH(ctx, OP_WARP, k, 2, global, NULL, CLV_ARG(src->mem), CLV_ARG(sp),
                       CLV_ARG(src->width), CLV_ARG(src->height), CLV_ARG(flow->mem), CLV_ARG(fp),
                       CLV_ARG(dst->mem), CLV_ARG(dp), CLV_ARG(w), CLV_ARG(h)));
out:
    return status;
}

/* ---- colour coding ---- */

#define OP_COLOR "flow_to_color"

static clv_status flow_to_color_run(clv_context *ctx, const clv_arg *a)
{
    clv_status status = CLV_OK;
    const clv_image *flow = a[0].v.p;
    clv_image *rgb = a[1].v.p;
    const double max_magnitude = a[2].v.d;
    /* A positive maximum below the smallest normal float would divide by 0. */
    float max_rad = 0.0f;
    if (max_magnitude > 0.0)
        max_rad = max_magnitude < FLT_MIN ? FLT_MIN
                  : max_magnitude > FLT_MAX ? FLT_MAX
                                            : (float)max_magnitude;

    char opts[64];
    flow_options(ctx, opts, sizeof opts);
    cl_kernel kcolor;
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_FLOW_UTIL, opts, "flow_to_color", &kcolor));

    const int w = flow->width, h = flow->height;
    const int fp = clv__pitch(flow);
    const int rp = (int)rgb->pitch;
    const size_t ppi = pixels_per_item(ctx);
    const size_t items[2] = {((size_t)w + ppi - 1) / ppi, (size_t)h};
    cl_mem max_bits = NULL; /* unused (NULL argument) with a given maximum */
    if (max_rad <= 0.0f) {
        cl_kernel kmax;
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_FLOW_UTIL, opts, "flow_max_sq", &kmax));
        size_t local[2];
        CLV_TRY(reduction_shape(ctx, OP_COLOR, kmax, items, sizeof(cl_float), local));
        CLV_TRY(clv__scratch(ctx, OP_COLOR, 0, sizeof(cl_uint), &max_bits));
        const cl_uint zero = 0;
        CLV_CHECK_CL(ctx, clEnqueueFillBuffer(ctx->queue, max_bits, &zero, sizeof zero, 0,
                                              sizeof zero, 0, NULL, NULL),
                     OP_COLOR, "clEnqueueFillBuffer(maximum)");
        CLV_TRY(CLV_LAUNCH(ctx, OP_COLOR, kmax, 2, items, local, CLV_ARG(flow->mem), CLV_ARG(fp),
                           CLV_ARG(w), CLV_ARG(h), CLV_ARG(max_bits),
                           CLV_LOCAL(local[0] * local[1] * sizeof(cl_float))));
    }
    CLV_TRY(CLV_LAUNCH(ctx, OP_COLOR, kcolor, 2, items, NULL, CLV_ARG(flow->mem), CLV_ARG(fp),
                       CLV_ARG(w), CLV_ARG(h), CLV_ARG(rgb->mem), CLV_ARG(rp), CLV_ARG(max_rad),
                       CLV_ARG(max_bits)));
out:
    return status;
}

/* ---- evaluation ---- */

#define OP_EVAL "flow_eval"
#define EVAL_WORDS 8 /* uints per group in the partial-sum buffer */

static clv_status flow_eval_run(clv_context *ctx, const clv_arg *a)
{
    clv_status status = CLV_OK;
    cl_uint *part = NULL;
    const clv_image *estimate = a[0].v.p, *ground_truth = a[1].v.p;
    clv_flow_stats *out = a[2].v.p; /* zeroed by the validation */

    char opts[64];
    flow_options(ctx, opts, sizeof opts);
    cl_kernel k;
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_FLOW_UTIL, opts, "flow_eval_partial", &k));

    const int w = estimate->width, h = estimate->height;
    const int ep = clv__pitch(estimate);
    const int gp = clv__pitch(ground_truth);
    const size_t ppi = pixels_per_item(ctx);
    const size_t items[2] = {((size_t)w + ppi - 1) / ppi, (size_t)h};
    const size_t sums_bytes = 2 * sizeof(cl_float), counts_bytes = 4 * sizeof(cl_uint);
    size_t local[2];
    CLV_TRY(reduction_shape(ctx, OP_EVAL, k, items, sums_bytes + counts_bytes, local));
    const size_t gx = (items[0] + local[0] - 1) / local[0];
    const size_t gy = (items[1] + local[1] - 1) / local[1];
    const size_t groups = gx * gy;
    const size_t part_bytes = groups * EVAL_WORDS * sizeof(cl_uint);
    const size_t global[2] = {gx * local[0], gy * local[1]};
    const size_t lsize = local[0] * local[1];

    cl_mem part_mem;
    CLV_TRY(clv__scratch(ctx, OP_EVAL, 0, part_bytes, &part_mem));
    CLV_TRY(CLV_LAUNCH(ctx, OP_EVAL, k, 2, global, local, CLV_ARG(estimate->mem), CLV_ARG(ep),
                       CLV_ARG(ground_truth->mem), CLV_ARG(gp), CLV_ARG(w), CLV_ARG(h),
                       CLV_ARG(part_mem), CLV_LOCAL(lsize * sums_bytes),
                       CLV_LOCAL(lsize * counts_bytes)));
    part = malloc(part_bytes);
    if (!part) {
        status = clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, OP_EVAL, "out of host memory");
        goto out;
    }
    CLV_CHECK_CL(ctx, clEnqueueReadBuffer(ctx->queue, part_mem, CL_TRUE, 0, part_bytes, part, 0,
                                          NULL, NULL),
                 OP_EVAL, "clEnqueueReadBuffer(partial sums)");

    double s_epe = 0.0, s_ae = 0.0;
    int64_t valid = 0, n1 = 0, n3 = 0, n5 = 0;
    for (size_t g = 0; g < groups; g++) {
        const cl_uint *p = part + g * EVAL_WORDS;
        float f;
        memcpy(&f, &p[0], sizeof f);
        s_epe += f;
        memcpy(&f, &p[1], sizeof f);
        s_ae += f;
        valid += p[2];
        n1 += p[3];
        n3 += p[4];
        n5 += p[5];
    }
    /* No known ground truth: every statistic 0 with valid == 0. */
    if (valid > 0) {
        const double n = (double)valid;
        out->aee = s_epe / n;
        out->aae = s_ae / n * (180.0 / 3.14159265358979323846);
        out->r1 = 100.0 * (double)n1 / n;
        out->r3 = 100.0 * (double)n3 / n;
        out->r5 = 100.0 * (double)n5 / n;
    }
    out->valid = valid;
out:
    free(part);
    return status;
}

/* ---- descriptors ---- */

static clv_status warp_shape(clv__report *r, const clv_arg *a, int index, int *width,
                             int *height, int *channels, clv_pixel_type *type)
{
    (void)index;
    const clv_image *src = a[0].v.p, *flow = a[1].v.p;
    if (!src || !flow)
        return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "dst's shape needs src and flow");
    *width = clv_image_width(flow);
    *height = clv_image_height(flow);
    *channels = clv_image_channels(src);
    *type = clv_image_type(src);
    return CLV_OK;
}

static const clv_param_desc warp_params[] = {
    CLV__P_IMAGE("src", "source", "the image, u8/u16/f32 with 1..4 channels", CLV_PARAM_INPUT,
                 CLV_TYPES_ALL, CLV_CHANNELS_1_4, NULL, 0),
    CLV__P_IMAGE("flow", "flow", "the flow field (u, v) per destination pixel, f32, 2 channels",
                 CLV_PARAM_INPUT, CLV_TYPES(CLV_F32), CLV_CHANNELS(2), "dst", CLV_LIKE_SIZE),
    CLV__P_IMAGE("dst", "destination", "the result: flow's size, src's type and channels",
                 CLV_PARAM_OUTPUT, 0, 0, "src", CLV_LIKE_TYPE | CLV_LIKE_CHANNELS),
};

const clv_op_desc clv__op_warp = {
    .name = "warp",
    .summary = "dst(x, y) = src(x + u, y + v): bilinear, border replicate",
    .nparams = 3,
    .params = warp_params,
    .run = warp_run,
    .shape = warp_shape,
};

CLV_API clv_status clv_warp(clv_context *ctx, const clv_image *src, const clv_image *flow,
                            clv_image *dst)
{
    const clv_arg a[] = {CLV__IMG(src), CLV__IMG(flow), CLV__IMG(dst)};
    return clv__op_run(ctx, &clv__op_warp, a);
}

static clv_status color_shape(clv__report *r, const clv_arg *a, int index, int *width,
                              int *height, int *channels, clv_pixel_type *type)
{
    (void)index;
    const clv_image *flow = a[0].v.p;
    if (!flow)
        return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "rgb's shape needs flow");
    *width = clv_image_width(flow);
    *height = clv_image_height(flow);
    *channels = 3;
    *type = CLV_U8;
    return CLV_OK;
}

static const clv_param_desc color_params[] = {
    CLV__P_IMAGE("flow", "flow", "the flow field, f32, 2 channels", CLV_PARAM_INPUT,
                 CLV_TYPES(CLV_F32), CLV_CHANNELS(2), NULL, 0),
    CLV__P_IMAGE("rgb", "destination", "u8 RGB of flow's size", CLV_PARAM_OUTPUT | CLV_PARAM_RGB,
                 CLV_TYPES(CLV_U8), CLV_CHANNELS(3), "flow", CLV_LIKE_SIZE),
    {.name = "max_magnitude", .type = CLV_PARAM_DOUBLE,
     .flags = CLV_PARAM_INPUT | CLV_PARAM_OPTIONAL, .doc = "motion coded at full saturation",
     .unit = "px", .min = -HUGE_VAL, .max = HUGE_VAL, .def = 0.0,
     .special_doc = "<= 0: the field's largest"},
};

const clv_op_desc clv__op_flow_to_color = {
    .name = "flow_to_color",
    .summary = "Middlebury colour-wheel coding of a flow field into u8 RGB",
    .nparams = 3,
    .params = color_params,
    .run = flow_to_color_run,
    .shape = color_shape,
};

CLV_API clv_status clv_flow_to_color(clv_context *ctx, const clv_image *flow, clv_image *rgb,
                                     double max_magnitude)
{
    const clv_arg a[] = {CLV__IMG(flow), CLV__IMG(rgb), CLV__DBL(max_magnitude)};
    return clv__op_run(ctx, &clv__op_flow_to_color, a);
}

static const clv_param_desc eval_params[] = {
    CLV__P_IMAGE("estimate", "estimate", "the estimated flow (u, v), f32, 2 channels",
                 CLV_PARAM_INPUT, CLV_TYPES(CLV_F32), CLV_CHANNELS(2), NULL, 0),
    CLV__P_IMAGE("ground_truth", "ground truth",
                 "the true flow, f32, 2 channels, estimate's size; |u| or |v| >= 1e9 or NaN: "
                 "unknown, left out",
                 CLV_PARAM_INPUT, CLV_TYPES(CLV_F32), CLV_CHANNELS(2), "estimate",
                 CLV_LIKE_SIZE),
    CLV__P_STRUCT("out",
                  "the figures: aee (px), aae (degrees), r1, r3, r5 (percent of pixels with "
                  "an endpoint error above 1, 3, 5 px), valid (pixels counted)",
                  CLV_PARAM_OUTPUT, clv_flow_stats),
};

const clv_op_desc clv__op_flow_eval = {
    .name = "flow_eval",
    .summary = "average endpoint and angular errors of a flow against ground truth",
    .blocking = "reads the statistics back to host memory",
    .doc = "Pixels whose ground truth is unknown are left out; with none known every figure "
           "is 0. Waits for the result.",
    .cli_name = "flow-eval",
    .nparams = 3,
    .params = eval_params,
    .run = flow_eval_run,
};

CLV_API clv_status clv_flow_eval(clv_context *ctx, const clv_image *estimate,
                                 const clv_image *ground_truth, clv_flow_stats *out)
{
    const clv_arg a[] = {CLV__IMG(estimate), CLV__IMG(ground_truth), CLV__STRUCT(out)};
    return clv__op_run(ctx, &clv__op_flow_eval, a);
}
