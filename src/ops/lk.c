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

/* The two pyramids: valid, 1-channel, one type, one geometry, and built with
 * scale 0.5 (each level (w + 1) / 2 of the one below) for the levels used. */
static clv_status check_pyramids(clv_context *ctx, const clv_pyramid *prev,
                                 const clv_pyramid *next, int levels)
{
    clv_status status = CLV_OK;
    if (!prev || !next)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "%s pyramid is NULL",
                         prev ? "next" : "prev");
    const int np = clv_pyramid_levels(prev), nn = clv_pyramid_levels(next);
    if (levels < 1 || levels > np || levels > nn)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                         "levels must be in 1..%d (prev has %d levels, next %d; got %d)",
                         np < nn ? np : nn, np, nn, levels);
    for (int l = 0; l < levels; l++) {
        const clv_image *a = clv_pyramid_level(prev, l), *b = clv_pyramid_level(next, l);
        CLV_TRY(clv__check_image(ctx, OP, "prev pyramid level", a));
        CLV_TRY(clv__check_image(ctx, OP, "next pyramid level", b));
        if (a->channels != 1 || b->channels != 1 || a->type != b->type)
            return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                             "pyramids must be 1-channel and of one type (got %s/%d and %s/%d)",
                             clv_pixel_type_name(a->type), a->channels,
                             clv_pixel_type_name(b->type), b->channels);
        if (a->width != b->width || a->height != b->height)
            return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                             "pyramid level %d is %dx%d in prev but %dx%d in next", l, a->width,
                             a->height, b->width, b->height);
        if (l > 0) {
            const clv_image *up = clv_pyramid_level(prev, l - 1);
            if (a->width != (up->width + 1) / 2 || a->height != (up->height + 1) / 2)
                return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                                 "pyramid level %d is %dx%d, not half of %dx%d: "
                                 "Lucas-Kanade needs pyramids built with scale 0.5",
                                 l, a->width, a->height, up->width, up->height);
        }
    }
out:
    return status;
}

static clv_status check_params(clv_context *ctx, const clv_lk_params *p)
{
    if (p->win_width < 3 || p->win_height < 3 || p->win_width % 2 == 0 ||
        p->win_height % 2 == 0)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                         "window must be odd and at least 3x3 (got %dx%d)", p->win_width,
                         p->win_height);
    if ((double)p->win_width * p->win_height > LK_MAX_AREA)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                         "window %dx%d has more than %d pixels", p->win_width, p->win_height,
                         LK_MAX_AREA);
    /* Bounded: with epsilon 0 nothing else stops a point that never settles
     * (INT_MAX iterations ran for hours). OpenCV caps it at 100. */
    if (p->max_iterations < 1 || p->max_iterations > CLV_LK_MAX_ITERATIONS)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                         "max_iterations must be in 1..%d (got %d)", CLV_LK_MAX_ITERATIONS,
                         p->max_iterations);
    if (!(p->epsilon >= 0.0) || !isfinite(p->epsilon))
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                         "epsilon must be finite and >= 0 (got %s)", CLV_NUM(p->epsilon));
    if (!(p->min_eig_threshold >= 0.0) || !isfinite(p->min_eig_threshold))
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                         "min_eig_threshold must be finite and >= 0 (got %s)",
                         CLV_NUM(p->min_eig_threshold));
    if (p->use_initial_flow != 0 && p->use_initial_flow != 1)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                         "use_initial_flow must be 0 or 1 (got %d)", p->use_initial_flow);
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
    const size_t area = (size_t)ww * (size_t)wh;
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

CLV_API clv_status clv_lk_track(clv_context *ctx, const clv_pyramid *prev, const clv_pyramid *next,
                                const clv_point *pts_in, clv_point *pts_out, uint8_t *status_out,
                                float *err_out, int count, const clv_lk_params *params)
{
    clv_status status = CLV_OK;
    if (!ctx)
        return CLV_ERROR_INVALID_ARGUMENT;
    clv__op_begin(ctx);
    const clv_lk_params p = params ? *params : clv_lk_params_default();
    CLV_TRY(check_params(ctx, &p));
    CLV_TRY(check_pyramids(ctx, prev, next, p.levels));
    if (count < 0)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "count must be >= 0 (got %d)",
                         count);
    if (count == 0)
        return CLV_OK;
    if (!pts_in || !pts_out || !status_out)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "%s is NULL",
                         !pts_in ? "pts_in" : !pts_out ? "pts_out" : "status");

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
