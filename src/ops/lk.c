/* clvision — pyramidal Lucas-Kanade point tracking (OpenCV's
 * calcOpticalFlowPyrLK on the device; the algorithm is spelled out at the
 * top of cl/lk.cl). One launch per pyramid level, coarse to fine; each point
 * is independent, so the only state between launches is per point: the
 * current guess, the status and the error, in scratch buffers.
 *
 * Units: intensities are taken in u8 units whatever the pixel type (u16
 * values / 257, f32 values x 255, i.e. f32 images are read as 0..1), so
 * err and min_eig_threshold mean the same for every type:
 *   err[i]  = mean |J - I| over the window at level 0 (0..255 units), the
 *             value OpenCV returns without OPTFLOW_LK_GET_MIN_EIGENVALS;
 *             0 for lost points;
 *   min eig = lambda_min(sum g g^T) / (1024 W H), g = Scharr gradient / 32
 *             (intensity units per pixel), exactly OpenCV's scaling.
 * params->levels counts levels: 3 uses levels 0..2 (OpenCV maxLevel = 2).
 * pts_out of lost points holds the last estimate (as in OpenCV).
 *
 * Variants: CPUs run one work-item per point with the window rows in float8
 * vectors (groups of LK_CPU_GROUP points); other devices run one work-group
 * per point, pixels spread over the work-items. Each keeps the point's
 * prev patch (I, Ix, Iy: 3 W H floats) in local memory when it fits, in a
 * global scratch buffer otherwise (points then go in batches that keep that
 * buffer under LK_PATCH_BYTES_MAX). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/internal.h"

#define OP "lk_track"
#define LK_CPU_GROUP 8                             /* points per work-group, CPU variant */
#define LK_CPU_LOCAL_MAX (1024 * 1024)             /* CPU: patches staged per group */
#define LK_PATCH_BYTES_MAX ((size_t)256 << 20)     /* global patch buffer cap per launch */
#define LK_MAX_AREA (1 << 24)                      /* window pixels (overflow guard only) */

CLV_API clv_lk_params clv_lk_params_default(void)
{
    clv_lk_params p;
    p.win_width = 21;
    p.win_height = 21;
    p.levels = 3;
    p.max_iterations = 30;
    p.epsilon = 0.01;
    p.min_eig_threshold = 1e-4;
    p.use_initial_flow = 0;
    return p;
}

/* Pixels of a ww x wh window, or 0 when above LK_MAX_AREA: the one place
 * that rule lives (the descriptor's check refuses 0, the plan sizes the
 * patches from it). */
static size_t window_area(int ww, int wh)
{
    const double area = (double)ww * (double)wh;
    return area > LK_MAX_AREA ? 0 : (size_t)area;
}

/* The rules between the pyramids and `levels` (each pyramid on its own and
 * level 0 of next against prev are the descriptor's): levels within the
 * levels both have, and those levels made with scale 0.5 (each (w + 1) / 2
 * of the one below), of one geometry in both. */
static clv_status check_pyramids(clv__report *r, const clv_pyramid *prev,
                                 const clv_pyramid *next, int levels)
{
    const int np = clv_pyramid_levels(prev), nn = clv_pyramid_levels(next);
    if (levels > np || levels > nn)
        return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT,
                                "levels must be in 1..%d (prev has %d levels, next %d; got %d)",
                                np < nn ? np : nn, np, nn, levels);
    for (int l = 1; l < levels; l++) {
        const clv_image *a = clv_pyramid_level(prev, l), *b = clv_pyramid_level(next, l);
        const clv_image *up = clv_pyramid_level(prev, l - 1);
        if (clv_image_width(a) != (clv_image_width(up) + 1) / 2 ||
            clv_image_height(a) != (clv_image_height(up) + 1) / 2)
            return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT,
                                    "pyramid level %d is %dx%d, not half of %dx%d: "
                                    "Lucas-Kanade needs pyramids built with scale 0.5",
                                    l, clv_image_width(a), clv_image_height(a),
                                    clv_image_width(up), clv_image_height(up));
        if (clv_image_width(a) != clv_image_width(b) ||
            clv_image_height(a) != clv_image_height(b))
            return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT,
                                    "pyramid level %d is %dx%d in prev but %dx%d in next", l,
                                    clv_image_width(a), clv_image_height(a),
                                    clv_image_width(b), clv_image_height(b));
    }
    return CLV_OK;
}

/* a = prev, next, pts_in, pts_out, status, err, count, then clv_lk_params'
 * fields. */
enum { A_PREV, A_NEXT, A_IN, A_OUT, A_STATUS, A_ERR, A_COUNT, A_WW, A_WH, A_LEVELS, A_ITER,
       A_EPS, A_MINEIG, A_INIT, A_N };

static clv_status lk_check(clv__report *r, const clv_arg *a)
{
    if (!window_area(a[A_WW].v.i, a[A_WH].v.i))
        return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT,
                                "window %dx%d has more than %d pixels", a[A_WW].v.i,
                                a[A_WH].v.i, LK_MAX_AREA);
    if (a[A_PREV].v.p && a[A_NEXT].v.p)
        return check_pyramids(r, a[A_PREV].v.p, a[A_NEXT].v.p, a[A_LEVELS].v.i);
    return CLV_OK;
}

static clv_status write_buffer(clv_context *ctx, cl_mem m, const void *host, size_t bytes,
                               const char *what)
{
    cl_int e = clEnqueueWriteBuffer(ctx->queue, m, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    return e == CL_SUCCESS ? CLV_OK : clv__fail_cl(ctx, e, OP, what);
}

static clv_status read_buffer(clv_context *ctx, cl_mem m, void *host, size_t bytes,
                              const char *what)
{
    cl_int e = clEnqueueReadBuffer(ctx->queue, m, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    return e == CL_SUCCESS ? CLV_OK : clv__fail_cl(ctx, e, OP, what);
}

/* The launch plan of one call: kernel, work-group, where the patches live. */
typedef struct lk_plan {
    cl_kernel k;
    int cpu;          /* 1: lk_level_cpu (one work-item per point) */
    size_t local;     /* work-items per group */
    size_t patch_local; /* bytes of __local patch per group; 0: global patches */
    size_t red_local; /* generic: __local reduction bytes */
    int batch;        /* points per launch */
    cl_mem patch;     /* global patches (patch_local == 0) */
} lk_plan;

static clv_status make_plan(clv_context *ctx, const char *fmt, int ww, int wh, int count,
                            lk_plan *pl)
{
    clv_status status = CLV_OK;
    char opts[256];
    size_t max_wg, local_free;
    memset(pl, 0, sizeof *pl);
    pl->cpu = ctx->tune.vec > 0;
    /* per point: the patch, and on CPUs the staging tile */
    const size_t area = window_area(ww, wh); /* > 0: checked */
    const size_t patch_bytes =
        (3 * area + (pl->cpu ? (size_t)(ww + 3) * (size_t)(wh + 3) : 0)) * sizeof(float);
    const char *name = pl->cpu ? "lk_level_cpu" : "lk_level";
    snprintf(opts, sizeof opts, "%s%s", fmt, pl->cpu ? " -DVEC=8" : "");
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_LK, opts, name, &pl->k));
    CLV_TRY(clv__kernel_limits(ctx, OP, pl->k, &max_wg, &local_free));

    if (pl->cpu) {
        size_t budget = local_free < LK_CPU_LOCAL_MAX ? local_free : LK_CPU_LOCAL_MAX;
        pl->local = LK_CPU_GROUP < max_wg ? LK_CPU_GROUP : max_wg;
        while (pl->local > 1 && pl->local * patch_bytes > budget)
            pl->local /= 2;
        if (pl->local * patch_bytes <= budget)
            pl->patch_local = pl->local * patch_bytes;
    } else {
        size_t budget = local_free < CLV_LOCAL_BUDGET_MAX ? local_free : CLV_LOCAL_BUDGET_MAX;
        size_t cap = 1;
        while (cap * 2 <= max_wg && cap * 2 <= 256)
            cap *= 2;
        pl->local = cap < 32 ? cap : 32;
        while (pl->local < cap && pl->local * 4 < area)
            pl->local *= 2;
        pl->red_local = pl->local * 4 * sizeof(float);
        if (pl->red_local > budget)
            return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                             "needs %zu bytes of local memory, device offers %zu",
                             pl->red_local, budget);
        if (pl->red_local + patch_bytes <= budget)
            pl->patch_local = patch_bytes;
    }

    pl->batch = count;
    if (pl->patch_local == 0) {
        /* Patches in a global buffer, one per point of the batch. */
        snprintf(opts, sizeof opts, "%s%s -DPATCH_GLOBAL", fmt, pl->cpu ? " -DVEC=8" : "");
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_LK, opts, name, &pl->k));
        CLV_TRY(clv__kernel_limits(ctx, OP, pl->k, &max_wg, &local_free));
        while (pl->local > max_wg) /* stays a power of two for the reduction */
            pl->local /= 2;
        pl->red_local = pl->cpu ? 0 : pl->local * 4 * sizeof(float);
        size_t cap = LK_PATCH_BYTES_MAX;
        if (cap > ctx->info.max_mem_alloc_size / 2)
            cap = (size_t)(ctx->info.max_mem_alloc_size / 2);
        size_t n = cap / patch_bytes;
        if (n < 1)
            return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                             "a %zu-pixel window needs %zu bytes per point, above this "
                             "device's limit",
                             area, patch_bytes);
        if ((size_t)pl->batch > n)
            pl->batch = (int)n;
        CLV_TRY(clv__scratch(ctx, OP, 4, (size_t)pl->batch * patch_bytes, &pl->patch));
    }
out:
    return status;
}

static clv_status lk_run(clv_context *ctx, const clv_arg *a)
{
    clv_status status = CLV_OK;
    const clv_pyramid *prev = a[A_PREV].v.p, *next = a[A_NEXT].v.p;
    const clv_point *pts_in = a[A_IN].v.p;
    clv_point *pts_out = a[A_OUT].v.p;
    uint8_t *status_out = a[A_STATUS].v.p;
    float *err_out = a[A_ERR].v.p;
    const int count = a[A_COUNT].v.i;
    clv_lk_params p;
    p.win_width = a[A_WW].v.i;
    p.win_height = a[A_WH].v.i;
    p.levels = a[A_LEVELS].v.i;
    p.max_iterations = a[A_ITER].v.i;
    p.epsilon = a[A_EPS].v.d;
    p.min_eig_threshold = a[A_MINEIG].v.d;
    p.use_initial_flow = a[A_INIT].v.i;
    if (count == 0)
        return CLV_OK;

    const clv_image *l0 = clv_pyramid_level(prev, 0);
    char fmt[64];
    clv__format_options(fmt, sizeof fmt, l0->type, 1);
    lk_plan pl;
    CLV_TRY(make_plan(ctx, fmt, p.win_width, p.win_height, count, &pl));

    const size_t n = (size_t)count;
    cl_mem pts_buf, state_buf, status_buf, err_buf;
    CLV_TRY(clv__scratch(ctx, OP, 0, n * sizeof(clv_point), &pts_buf));
    CLV_TRY(clv__scratch(ctx, OP, 1, n * sizeof(clv_point), &state_buf));
    CLV_TRY(clv__scratch(ctx, OP, 2, n, &status_buf));
    CLV_TRY(clv__scratch(ctx, OP, 3, n * sizeof(float), &err_buf));
    CLV_TRY(write_buffer(ctx, pts_buf, pts_in, n * sizeof(clv_point), "clEnqueueWriteBuffer(pts_in)"));
    if (p.use_initial_flow)
        CLV_TRY(write_buffer(ctx, state_buf, pts_out, n * sizeof(clv_point),
                             "upload initial pts_out"));

    const int top = p.levels - 1, use_init = p.use_initial_flow;
    const int ww = p.win_width, wh = p.win_height, max_iter = p.max_iterations;
    const double eps = p.epsilon < 10.0 ? p.epsilon : 10.0; /* OpenCV's clamp */
    const float eps2 = (float)(eps * eps), min_eig = (float)p.min_eig_threshold;
    for (int level = top; level >= 0; level--) {
        const clv_image *a = clv_pyramid_level(prev, level), *b = clv_pyramid_level(next, level);
        const int ap = clv__pitch(a), bp = clv__pitch(b);
        const int cols = a->width, rows = a->height;
        for (int first = 0; first < count; first += pl.batch) {
            const int m = count - first < pl.batch ? count - first : pl.batch;
            const int end = first + m;
            const clv__arg patch_arg =
                pl.patch_local ? CLV_LOCAL(pl.patch_local) : CLV_ARG(pl.patch);
            if (pl.cpu) {
                const size_t g = (size_t)m, l = pl.local;
                CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k, 1, &g, &l, CLV_ARG(a->mem), CLV_ARG(ap),
                                   CLV_ARG(b->mem), CLV_ARG(bp), CLV_ARG(cols), CLV_ARG(rows),
                                   CLV_ARG(pts_buf), CLV_ARG(state_buf), CLV_ARG(status_buf),
                                   CLV_ARG(err_buf), CLV_ARG(end), CLV_ARG(first),
                                   CLV_ARG(level), CLV_ARG(top), CLV_ARG(use_init), CLV_ARG(ww),
                                   CLV_ARG(wh), CLV_ARG(max_iter), CLV_ARG(eps2),
                                   CLV_ARG(min_eig), patch_arg));
            } else {
                const size_t g = (size_t)m * pl.local, l = pl.local;
                CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k, 1, &g, &l, CLV_ARG(a->mem), CLV_ARG(ap),
                                   CLV_ARG(b->mem), CLV_ARG(bp), CLV_ARG(cols), CLV_ARG(rows),
                                   CLV_ARG(pts_buf), CLV_ARG(state_buf), CLV_ARG(status_buf),
                                   CLV_ARG(err_buf), CLV_ARG(end), CLV_ARG(first),
                                   CLV_ARG(level), CLV_ARG(top), CLV_ARG(use_init), CLV_ARG(ww),
                                   CLV_ARG(wh), CLV_ARG(max_iter), CLV_ARG(eps2),
                                   CLV_ARG(min_eig), patch_arg, CLV_LOCAL(pl.red_local)));
            }
        }
    }

    CLV_TRY(read_buffer(ctx, state_buf, pts_out, n * sizeof(clv_point), "clEnqueueReadBuffer(pts_out)"));
    CLV_TRY(read_buffer(ctx, status_buf, status_out, n, "clEnqueueReadBuffer(status)"));
    if (err_out)
        CLV_TRY(read_buffer(ctx, err_buf, err_out, n * sizeof(float), "clEnqueueReadBuffer(err)"));
out:
    return status;
}

static const clv_param_desc lk_params[] = {
    CLV__P_PYRAMID("prev", "prev pyramid",
                   "the first frame's pyramid, built with scale 0.5 from a gray image: 1-channel "
                   "u8, u16 (read / 257) or f32 (read as 0..1, x 255)",
                   CLV_PARAM_INPUT, CLV_TYPES_ALL, CLV_CHANNELS(1), NULL, 0),
    CLV__P_PYRAMID("next", "next pyramid", "the second frame's pyramid, like prev",
                   CLV_PARAM_INPUT, CLV_TYPES_ALL, CLV_CHANNELS(1), "prev", CLV_LIKE_ALL),
    CLV__P_ARRAY("pts_in", "the points to track in prev: x, y (px)", CLV_PARAM_INPUT,
                 clv_point, "count"),
    CLV__P_ARRAY("pts_out",
                 "where they went in next: x, y (px); read first as initial estimates with "
                 "use_initial_flow; a lost point keeps its last estimate",
                 CLV_PARAM_INPUT | CLV_PARAM_OUTPUT, clv_point, "count"),
    CLV__P_ARRAY("status", "per point: 1 tracked, 0 lost", CLV_PARAM_OUTPUT, uint8_t, "count"),
    CLV__P_ARRAY("err",
                 "optional: per point the mean |next - prev| over the window at level 0, in "
                 "0..255 units; 0 for lost points",
                 CLV_PARAM_OUTPUT | CLV_PARAM_OPTIONAL, float, "count"),
    CLV__P_INT("count", "number of points (0: nothing to do)", NULL, 0, HUGE_VAL, 0, 0),
    {.name = "win_width", .type = CLV_PARAM_INT,
     .flags = CLV_PARAM_INPUT | CLV_PARAM_OPTIONAL | CLV_PARAM_ODD,
     .doc = "window width (width x height at most 2^24 pixels)", .unit = "px", .min = 3,
     .max = HUGE_VAL, .def = 21, .cli_alias = "--win"},
    {.name = "win_height", .type = CLV_PARAM_INT,
     .flags = CLV_PARAM_INPUT | CLV_PARAM_OPTIONAL | CLV_PARAM_ODD, .doc = "window height",
     .unit = "px", .min = 3, .max = HUGE_VAL, .def = 21, .cli_alias = "--win"},
    CLV__P_INT("levels",
               "pyramid levels used, at most those of both pyramids (3 = OpenCV's maxLevel 2)",
               NULL, 1, CLV_PYRAMID_MAX_LEVELS, CLV_PARAM_OPTIONAL, 3),
    {.name = "max_iterations", .type = CLV_PARAM_INT,
     .flags = CLV_PARAM_INPUT | CLV_PARAM_OPTIONAL, .doc = "most iterations per level",
     .min = 1, .max = CLV_LK_MAX_ITERATIONS, .def = 30, .cli_alias = "--iterations"},
    CLV__P_DOUBLE("epsilon", "a point stops when its update is below this (capped at 10)", "px",
                  0.0, HUGE_VAL, CLV_PARAM_OPTIONAL, 0.01),
    CLV__P_DOUBLE("min_eig_threshold",
                  "a point is lost when the window's minimum eigenvalue / area is below this "
                  "(OpenCV's scaling)",
                  NULL, 0.0, HUGE_VAL, CLV_PARAM_OPTIONAL, 1e-4),
    CLV__P_BOOL("use_initial_flow", "1: pts_out holds initial estimates", CLV_PARAM_OPTIONAL, 0),
};

_Static_assert(sizeof lk_params / sizeof lk_params[0] == A_N, "one value per parameter");

const clv_op_desc clv__op_lk_track = {
    .name = "lk_track",
    .summary = "pyramidal Lucas-Kanade point tracking (OpenCV calcOpticalFlowPyrLK)",
    .blocking = "writes the points from and reads the tracks and their status back to host memory",
    .cli_name = "track",
    .doc = "Points are tracked from prev into next, coarse to fine, with Scharr/32 gradients "
           "of prev; intensities in 0..255 units for every type. Waits for the result.",
    .nparams = A_N,
    .params = lk_params,
    .run = lk_run,
    .check = lk_check,
};

CLV_API clv_status clv_lk_track(clv_context *ctx, const clv_pyramid *prev, const clv_pyramid *next,
                                const clv_point *pts_in, clv_point *pts_out, uint8_t *status,
                                float *err, int count, const clv_lk_params *params)
{
    const clv_lk_params p = params ? *params : clv_lk_params_default();
    const clv_arg a[] = {CLV__PYR(prev),          CLV__PYR(next),
                         CLV__ARR(pts_in),        CLV__ARR(pts_out),
                         CLV__ARR(status),        CLV__ARR(err),
                         CLV__INT(count),         CLV__INT(p.win_width),
                         CLV__INT(p.win_height),  CLV__INT(p.levels),
                         CLV__INT(p.max_iterations), CLV__DBL(p.epsilon),
                         CLV__DBL(p.min_eig_threshold), CLV__INT(p.use_initial_flow)};
    return clv__op_run(ctx, &clv__op_lk_track, a);
}
