/* clvision — Shi-Tomasi corners (OpenCV goodFeaturesToTrack with the minimum
 * eigenvalue), every stage on the device; cl/corners.cl describes the
 * kernels. The host only chains them and reads three small things back: the
 * number of candidates (to size the sort), then the number of corners and the
 * corners themselves.
 *
 * Semantics, as OpenCV 4.x:
 *  - response: cornerMinEigenVal(img, block_size, 3) with reflect101 borders;
 *    gradients scaled by 1 / (4 block_size), times 1/255 more for u8 images;
 *  - max response over the mask (all pixels without one); threshold
 *    thr = max * quality_level in float, kept are responses > thr (strictly:
 *    quality_level 1 keeps nothing, as in OpenCV);
 *  - candidates: pixels with 1 <= x <= w-2 and 1 <= y <= h-2 (OpenCV skips
 *    the outer ring), mask != 0, response > thr and >= all 8 neighbours;
 *  - order: response descending, equal responses by larger y*w + x first
 *    (OpenCV's greaterThanPtr);
 *  - greedy: a candidate is kept unless a kept corner lies at a Euclidean
 *    distance < min_distance (OpenCV's grid test is this exact test for
 *    integer positions); min_distance <= 1 keeps every candidate; stop at
 *    max_corners.
 * Capacity: at most 2^18 candidates are sorted. Beyond that the strongest are
 * kept: the threshold is raised on the device (radix select) to the largest
 * value leaving at most 2^18 candidates above it (ties at the cut value go
 * too). This only matters when more than 2^18 local maxima pass the
 * threshold (noise-like images with a low quality_level).
 * Limits: block_size odd 1..31, gradient_size 3, 1-channel u8 or f32 images;
 * images narrower or shorter than 3 pixels have no candidates.
 * Defaults: max_corners 1000, quality_level 0.01, min_distance 10,
 * block_size 3, gradient_size 3, no mask. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/internal.h"

#define OP "corners"

#define CORNERS_CAP (1 << 18)
#define HIST_BINS 65536
#define MAX_BLOCK 31

/* params[] slots, as in corners.cl */
enum { P_MAX = 0, P_COUNT, P_CUT, P_HI, P_ABOVE, P_NOUT, P_INTS = 16 };

_Static_assert(sizeof(clv_corner) == 3 * sizeof(float), "clv_corner must be three packed floats");

CLV_API clv_corner_params clv_corner_params_default(void)
{
    clv_corner_params p;
    memset(&p, 0, sizeof p);
    p.max_corners = 1000;
    p.quality_level = 0.01;
    p.min_distance = 10.0;
    p.block_size = 3;
    p.gradient_size = 3;
    p.mask = NULL;
    return p;
}

static size_t pow2_ceil(size_t n)
{
    size_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

static size_t pow2_floor(size_t n)
{
    size_t p = 1;
    while (p * 2 <= n)
        p <<= 1;
    return p;
}

static clv_status check_args(clv_context *ctx, const clv_image *img, const clv_corner_params *p,
                             const clv_corner *out, const int *count)
{
    clv_status status = CLV_OK;
    if (!p)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "params is NULL");
    if (!count)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "count is NULL");
    CLV_TRY(clv__check_image(ctx, OP, "source", img));
    if (img->channels != 1 || (img->type != CLV_U8 && img->type != CLV_F32))
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                         "image must be 1-channel u8 or f32 (got %s with %d channels)",
                         clv_pixel_type_name(img->type), img->channels);
    if (p->max_corners <= 0)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "max_corners must be > 0 (got %d)",
                         p->max_corners);
    if (!out)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "out is NULL");
    if (!(p->quality_level > 0.0 && p->quality_level <= 1.0))
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                         "quality_level must be in (0, 1] (got %g)", p->quality_level);
    if (!(p->min_distance >= 0.0) || !isfinite(p->min_distance))
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                         "min_distance must be finite and >= 0 (got %g)", p->min_distance);
    if (p->block_size < 1 || p->block_size > MAX_BLOCK || p->block_size % 2 == 0)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                         "block_size must be odd in 1..%d (got %d)", MAX_BLOCK, p->block_size);
    if (p->gradient_size != 3)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                         "gradient_size must be 3 (Sobel 3x3; got %d)", p->gradient_size);
    if (p->mask) {
        CLV_TRY(clv__check_image(ctx, OP, "mask", p->mask));
        if (p->mask->type != CLV_U8 || p->mask->channels != 1)
            return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                             "mask must be 1-channel u8 (got %s with %d channels)",
                             clv_pixel_type_name(p->mask->type), p->mask->channels);
        if (p->mask->width != img->width || p->mask->height != img->height)
            return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                             "mask is %dx%d, image is %dx%d", p->mask->width, p->mask->height,
                             img->width, img->height);
    }
out:
    return status;
}

/* Halve a power-of-two (lx, ly) until it fits max_wg and, with bytes_of, the
 * local budget. */
static void fit2d(size_t *lx, size_t *ly, size_t max_wg, size_t budget,
                  size_t (*bytes_of)(size_t, size_t, int), int r)
{
    while ((*lx * *ly > max_wg || (bytes_of && bytes_of(*lx, *ly, r) > budget)) &&
           (*lx > 1 || *ly > 1)) {
        if (*ly > 1 && *ly * 4 >= *lx)
            *ly /= 2;
        else
            *lx /= 2;
    }
}

static size_t hsum_tile_bytes(size_t lx, size_t ly, int r)
{
    return (lx + 2 * (size_t)r) * ly * 3 * sizeof(float);
}

static clv_status fill(clv_context *ctx, cl_mem m, const void *pattern, size_t psize,
                       size_t offset, size_t bytes, const char *what)
{
    cl_int err =
        clEnqueueFillBuffer(ctx->queue, m, pattern, psize, offset, bytes, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return clv__fail_cl(ctx, err, OP, what);
    return CLV_OK;
}

static clv_status read_ints(clv_context *ctx, cl_mem m, size_t first, size_t n, void *dst)
{
    cl_int err = clEnqueueReadBuffer(ctx->queue, m, CL_TRUE, first * sizeof(cl_int),
                                     n * sizeof(cl_int), dst, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return clv__fail_cl(ctx, err, OP, "clEnqueueReadBuffer");
    return CLV_OK;
}

typedef struct kernels {
    cl_kernel hsum, eig, cand, cut, sort_a, sort_b, select;
    int sel_g, merge_sort; /* merge_sort: sort_a/b are msort_runs/merge, else bitonic */
} kernels;

static clv_status get_kernels(clv_context *ctx, const clv_image *img, kernels *k)
{
    clv_status status = CLV_OK;
    const int vec = ctx->tune.vec == 16;
    cl_device_fp_config fp = 0;
    CLV_CHECK_CL(ctx,
                 clGetDeviceInfo(ctx->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL),
                 OP, "clGetDeviceInfo(CL_DEVICE_SINGLE_FP_CONFIG)");
    size_t g = pow2_floor(ctx->info.max_work_group_size);
    const size_t want = vec ? 64 : 256;
    if (g > want)
        g = want;
    if (g < 32)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                         "needs work-groups of 32 items, the device allows %zu",
                         ctx->info.max_work_group_size);
    for (;;) {
        char fmt[64], opts[400];
        clv__format_options(fmt, sizeof fmt, img->type, 1);
        snprintf(opts, sizeof opts, "%s -DBORDER=%s -DSEL_G=%zu%s%s", fmt,
                 clv__border_macro(CLV_BORDER_REFLECT101), g,
                 vec ? " -DVEC=16" : "",
                 (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
                     ? " -cl-fp32-correctly-rounded-divide-sqrt"
                     : "");
        const clv__source_id s = CLV__SRC_CORNERS;
        CLV_TRY(clv__get_kernel(ctx, s, opts, vec ? "corners_hsum_vec" : "corners_hsum", &k->hsum));
        CLV_TRY(clv__get_kernel(ctx, s, opts, vec ? "corners_eig_vec" : "corners_eig", &k->eig));
        CLV_TRY(clv__get_kernel(ctx, s, opts, vec ? "corners_cand_vec" : "corners_cand", &k->cand));
        CLV_TRY(clv__get_kernel(ctx, s, opts, "corners_cut", &k->cut));
        CLV_TRY(clv__get_kernel(ctx, s, opts, vec ? "corners_msort_runs" : "corners_sort_block",
                                &k->sort_a));
        CLV_TRY(clv__get_kernel(ctx, s, opts, vec ? "corners_msort_merge" : "corners_sort_step",
                                &k->sort_b));
        CLV_TRY(clv__get_kernel(ctx, s, opts, "corners_select", &k->select));
        size_t max_wg;
        CLV_TRY(clv__kernel_limits(ctx, OP, k->select, &max_wg, NULL));
        if (max_wg >= g)
            break;
        if (g == 32)
            return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                             "the selection kernel needs 32 work-items, the device allows %zu",
                             max_wg);
        g /= 2; /* rebuild with a smaller selection group */
    }
    k->sel_g = (int)g;
    k->merge_sort = vec;
out:
    return status;
}

/* CPU merge sort of n keys, descending; *sorted = keys or tmp (>= n keys),
 * whichever holds the result. */
static clv_status merge_sort(clv_context *ctx, const kernels *k, cl_mem keys, cl_mem tmp, int n,
                             cl_mem *sorted)
{
    clv_status status = CLV_OK;
    int run = 16;
    const size_t g0 = ((size_t)n + (size_t)run - 1) / (size_t)run;
    CLV_TRY(CLV_LAUNCH(ctx, OP, k->sort_a, 1, &g0, NULL, CLV_ARG(keys), CLV_ARG(n), CLV_ARG(run)));
    cl_mem src = keys, dst = tmp;
    for (; run < n; run *= 2) {
        const int chunk = 2 * run < 256 ? 2 * run : 256;
        const size_t g = ((size_t)n + (size_t)chunk - 1) / (size_t)chunk;
        CLV_TRY(CLV_LAUNCH(ctx, OP, k->sort_b, 1, &g, NULL, CLV_ARG(src), CLV_ARG(dst), CLV_ARG(n),
                           CLV_ARG(run), CLV_ARG(chunk)));
        cl_mem t = src;
        src = dst;
        dst = t;
    }
    *sorted = src;
out:
    return status;
}

/* Bitonic sort of n2 (power of two) keys, descending. */
static clv_status bitonic_sort(clv_context *ctx, const kernels *k, cl_mem keys, size_t n2)
{
    clv_status status = CLV_OK;
    size_t max_wg, local_free;
    CLV_TRY(clv__kernel_limits(ctx, OP, k->sort_a, &max_wg, &local_free));
    size_t budget = local_free < CLV_LOCAL_BUDGET_MAX ? local_free : CLV_LOCAL_BUDGET_MAX;
    size_t b = n2 < 2048 ? n2 : 2048;
    while (b > 2 && b * sizeof(cl_ulong) > budget)
        b /= 2;
    size_t l = pow2_floor(max_wg);
    if (l > 256)
        l = 256;
    if (l > b / 2)
        l = b / 2;
    const int bi = (int)b, npairs = (int)(n2 / 2);
    const size_t gblock = n2 / b * l, gstep = n2 / 2;
    int kf = 2, kl = bi;
    CLV_TRY(CLV_LAUNCH(ctx, OP, k->sort_a, 1, &gblock, &l, CLV_ARG(keys), CLV_ARG(kf),
                       CLV_ARG(kl), CLV_ARG(bi), CLV_LOCAL(b * sizeof(cl_ulong))));
    for (size_t kk = 2 * b; kk <= n2; kk <<= 1) {
        const int ki = (int)kk;
        for (size_t j = kk / 2; j >= b; j >>= 1) {
            const int ji = (int)j;
            CLV_TRY(CLV_LAUNCH(ctx, OP, k->sort_b, 1, &gstep, NULL, CLV_ARG(keys),
                               CLV_ARG(ki), CLV_ARG(ji), CLV_ARG(npairs)));
        }
        CLV_TRY(CLV_LAUNCH(ctx, OP, k->sort_a, 1, &gblock, &l, CLV_ARG(keys), CLV_ARG(ki),
                           CLV_ARG(ki), CLV_ARG(bi), CLV_LOCAL(b * sizeof(cl_ulong))));
    }
out:
    return status;
}

CLV_API clv_status clv_corners_shi_tomasi(clv_context *ctx, const clv_image *img,
                                          const clv_corner_params *p, clv_corner *out,
                                          int *count)
{
    clv_status status = CLV_OK;
    if (count)
        *count = 0;
    if (!ctx)
        return CLV_ERROR_INVALID_ARGUMENT;
    clv__op_begin(ctx);
    CLV_TRY(check_args(ctx, img, p, out, count));
    const int w = img->width, h = img->height;
    if (w < 3 || h < 3)
        return CLV_OK; /* no interior pixels, no candidates */

    const int r = p->block_size / 2, has_mask = p->mask != NULL, vec = ctx->tune.vec == 16;
    kernels k;
    CLV_TRY(get_kernels(ctx, img, &k));

    /* Planes of floats with a pitch of round_up(w, 16) + 16 (the CPU
     * candidate kernel reads one value past a 16-wide block). */
    const int pitch = (w + 15) / 16 * 16 + 16;
    const cl_ulong plane = (cl_ulong)pitch * (cl_ulong)h;
    const size_t interior = (size_t)(w - 2) * (size_t)(h - 2);
    const size_t cap = interior < CORNERS_CAP ? pow2_ceil(interior < 2 ? 2 : interior)
                                               : (size_t)CORNERS_CAP;
    const int cap_i = (int)cap;

    double d = p->min_distance < 1e6 ? p->min_distance : 1e6;
    const int use_grid = d > 1.0;
    int cell = 1, gw = 1, gh = 1;
    cl_long lim = 0;
    if (use_grid) {
        const int big = w > h ? w : h;
        const double c = ceil(d) - 1.0;
        cell = c > (double)big ? big : (int)c;
        gw = (w + cell - 1) / cell;
        gh = (h + cell - 1) / cell;
        lim = (cl_long)ceil(d * d);
    }
    const size_t grid_bytes = (size_t)gw * (size_t)gh * 4 * sizeof(cl_int);
    size_t aux_bytes = use_grid ? grid_bytes : 16;
    if (interior > CORNERS_CAP && aux_bytes < HIST_BINS * sizeof(cl_int))
        aux_bytes = HIST_BINS * sizeof(cl_int); /* histogram of the capacity path */

    cl_mem hs, resp, keys, aux, params, outbuf;
    CLV_TRY(clv__scratch(ctx, OP, 0, (size_t)plane * 3 * sizeof(float), &hs));
    CLV_TRY(clv__scratch(ctx, OP, 1, (size_t)plane * sizeof(float), &resp));
    CLV_TRY(clv__scratch(ctx, OP, 2, cap * sizeof(cl_ulong), &keys));
    CLV_TRY(clv__scratch(ctx, OP, 3, aux_bytes, &aux));
    CLV_TRY(clv__scratch(ctx, OP, 4, P_INTS * sizeof(cl_int), &params));
    CLV_TRY(clv__scratch(ctx, OP, 5, (size_t)p->max_corners * sizeof(clv_corner), &outbuf));
    const cl_int zero = 0, minus1 = -1;
    const cl_ulong zero64 = 0;
    CLV_TRY(fill(ctx, params, &zero, sizeof zero, 0, P_INTS * sizeof(cl_int),
                 "clEnqueueFillBuffer(params)"));

    const int sp = (int)(img->pitch / img->elem_size);
    const float f1 = (float)(1.0 / (4.0 * p->block_size * (img->type == CLV_U8 ? 255.0 : 1.0)));
    const float f0 = (float)(2.0 / (4.0 * p->block_size * (img->type == CLV_U8 ? 255.0 : 1.0)));
    const float quality = (float)p->quality_level;
    cl_mem mask_mem = has_mask ? p->mask->mem : img->mem;
    const int mask_pitch = has_mask ? (int)p->mask->pitch : 0;

    /* 1-2: responses and their maximum */
    size_t max_wg, local_free;
    if (vec) {
        const size_t g[2] = {((size_t)w + 15) / 16, (size_t)h};
        CLV_TRY(CLV_LAUNCH(ctx, OP, k.hsum, 2, g, NULL, CLV_ARG(img->mem), CLV_ARG(sp), CLV_ARG(w),
                           CLV_ARG(h), CLV_ARG(r), CLV_ARG(f1), CLV_ARG(f0), CLV_ARG(hs),
                           CLV_ARG(plane), CLV_ARG(pitch)));
        CLV_TRY(clv__kernel_limits(ctx, OP, k.eig, &max_wg, NULL));
        size_t l[2] = {pow2_floor(max_wg < 256 ? max_wg : 256), 1};
        CLV_TRY(CLV_LAUNCH(ctx, OP, k.eig, 2, g, l, CLV_ARG(hs), CLV_ARG(plane), CLV_ARG(pitch),
                           CLV_ARG(w), CLV_ARG(h), CLV_ARG(r), CLV_ARG(resp), CLV_ARG(has_mask),
                           CLV_ARG(mask_mem), CLV_ARG(mask_pitch), CLV_ARG(params),
                           CLV_LOCAL(l[0] * sizeof(float))));
    } else {
        const size_t g[2] = {(size_t)w, (size_t)h};
        CLV_TRY(clv__kernel_limits(ctx, OP, k.hsum, &max_wg, &local_free));
        size_t budget = local_free < CLV_LOCAL_BUDGET_MAX ? local_free : CLV_LOCAL_BUDGET_MAX;
        size_t l1[2] = {32, 8};
        fit2d(&l1[0], &l1[1], max_wg, budget, hsum_tile_bytes, r);
        if (hsum_tile_bytes(l1[0], l1[1], r) > budget)
            return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                             "row sums need %zu bytes of local memory, device offers %zu",
                             hsum_tile_bytes(l1[0], l1[1], r), budget);
        CLV_TRY(CLV_LAUNCH(ctx, OP, k.hsum, 2, g, l1, CLV_ARG(img->mem), CLV_ARG(sp), CLV_ARG(w),
                           CLV_ARG(h), CLV_ARG(r), CLV_ARG(f1), CLV_ARG(f0), CLV_ARG(hs),
                           CLV_ARG(plane), CLV_ARG(pitch),
                           CLV_LOCAL(hsum_tile_bytes(l1[0], l1[1], r))));
        CLV_TRY(clv__kernel_limits(ctx, OP, k.eig, &max_wg, NULL));
        size_t l2[2] = {32, 8};
        fit2d(&l2[0], &l2[1], max_wg, 0, NULL, r);
        CLV_TRY(CLV_LAUNCH(ctx, OP, k.eig, 2, g, l2, CLV_ARG(hs), CLV_ARG(plane), CLV_ARG(pitch),
                           CLV_ARG(w), CLV_ARG(h), CLV_ARG(r), CLV_ARG(resp), CLV_ARG(has_mask),
                           CLV_ARG(mask_mem), CLV_ARG(mask_pitch), CLV_ARG(params),
                           CLV_LOCAL(l2[0] * l2[1] * sizeof(float))));
    }

    /* 3: candidates (and, past the capacity, the threshold raise) */
    const size_t gc[2] = {vec ? ((size_t)w + 15) / 16 : (size_t)w, (size_t)h};
#define LAUNCH_CAND(mode_)                                                                       \
    do {                                                                                         \
        const int mode_i_ = (mode_);                                                             \
        CLV_TRY(CLV_LAUNCH(ctx, OP, k.cand, 2, gc, NULL, CLV_ARG(resp), CLV_ARG(pitch),           \
                           CLV_ARG(w), CLV_ARG(h), CLV_ARG(has_mask), CLV_ARG(mask_mem),         \
                           CLV_ARG(mask_pitch),                                                  \
                           CLV_ARG(quality), CLV_ARG(params), CLV_ARG(keys), CLV_ARG(cap_i),      \
                           CLV_ARG(mode_i_), CLV_ARG(aux)));                                     \
    } while (0)
    LAUNCH_CAND(0);
    cl_int n = 0;
    CLV_TRY(read_ints(ctx, params, P_COUNT, 1, &n));
    if ((size_t)n > cap) {
        CLV_TRY(clv__kernel_limits(ctx, OP, k.cut, &max_wg, NULL));
        size_t lc = pow2_floor(max_wg < 256 ? max_wg : 256);
        for (int level = 1; level <= 2; level++) {
            CLV_TRY(fill(ctx, aux, &zero, sizeof zero, 0, HIST_BINS * sizeof(cl_int),
                         "clEnqueueFillBuffer(histogram)"));
            LAUNCH_CAND(level);
            CLV_TRY(CLV_LAUNCH(ctx, OP, k.cut, 1, &lc, &lc, CLV_ARG(aux), CLV_ARG(params),
                               CLV_ARG(cap_i), CLV_ARG(level), CLV_LOCAL(lc * sizeof(cl_int))));
        }
        CLV_TRY(fill(ctx, params, &zero, sizeof zero, P_COUNT * sizeof(cl_int), sizeof(cl_int),
                     "clEnqueueFillBuffer(count)"));
        LAUNCH_CAND(0);
        CLV_TRY(read_ints(ctx, params, P_COUNT, 1, &n));
        if ((size_t)n > cap)
            return clv__fail(ctx, CLV_ERROR_OPENCL, OP,
                             "%d candidates left after raising the threshold (capacity %zu)", n,
                             cap);
    }
#undef LAUNCH_CAND
    if (n == 0)
        goto out;

    /* 4: sort (the CPU merge sort ping-pongs with the row-sum buffer, free
     * by now and larger than the keys) */
    cl_mem sorted = keys;
    if (k.merge_sort) {
        CLV_TRY(merge_sort(ctx, &k, keys, hs, n, &sorted));
    } else {
        const size_t n2 = pow2_ceil(n < 2 ? 2 : (size_t)n);
        if (n2 > (size_t)n)
            CLV_TRY(fill(ctx, keys, &zero64, sizeof zero64, (size_t)n * sizeof(cl_ulong),
                         (n2 - (size_t)n) * sizeof(cl_ulong), "clEnqueueFillBuffer(keys)"));
        CLV_TRY(bitonic_sort(ctx, &k, keys, n2));
    }

    /* 5: greedy minimum distance, max_corners cut */
    if (use_grid)
        CLV_TRY(fill(ctx, aux, &minus1, sizeof minus1, 0, grid_bytes,
                     "clEnqueueFillBuffer(grid)"));
    const size_t gs = (size_t)k.sel_g;
    CLV_TRY(CLV_LAUNCH(ctx, OP, k.select, 1, &gs, &gs, CLV_ARG(sorted), CLV_ARG(n), CLV_ARG(w),
                       CLV_ARG(aux), CLV_ARG(gw), CLV_ARG(gh), CLV_ARG(cell), CLV_ARG(lim),
                       CLV_ARG(use_grid), CLV_ARG(p->max_corners), CLV_ARG(outbuf),
                       CLV_ARG(params)));
    cl_int found = 0;
    CLV_TRY(read_ints(ctx, params, P_NOUT, 1, &found));
    if (found < 0 || found > p->max_corners)
        return clv__fail(ctx, CLV_ERROR_OPENCL, OP, "selection returned %d corners", found);
    if (found > 0) {
        cl_int err = clEnqueueReadBuffer(ctx->queue, outbuf, CL_TRUE, 0,
                                         (size_t)found * sizeof(clv_corner), out, 0, NULL, NULL);
        CLV_CHECK_CL(ctx, err, OP, "clEnqueueReadBuffer(corners)");
    }
    *count = found;
out:
    return status;
}
