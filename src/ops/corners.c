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
#include <limits.h>
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

static clv_status read_ints(clv_context *ctx, cl_mem m, size_t first, size_t n, int *dst)
{
    cl_int err = clEnqueueReadBuffer(ctx->queue, m, CL_TRUE, first * sizeof(cl_int),
                                     n * sizeof(cl_int), dst, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return clv__fail_cl(ctx, err, OP, "clEnqueueReadBuffer");
    return CLV_OK;
}

typedef struct kernels {
    cl_kernel hsum, eig, cand, cut, sort_a, sort_b, select;
    int sel_g, radix_sort; /* radix_sort: sort_a/b are rs_hist/rs_scatter, else bitonic */
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
        /* CPUs: one kernel for both response stages (corners_resp_vec) */
        CLV_TRY(clv__get_kernel(ctx, s, opts, vec ? "corners_resp_vec" : "corners_hsum", &k->hsum));
        k->eig = NULL;
        if (!vec)
            CLV_TRY(clv__get_kernel(ctx, s, opts, "corners_eig", &k->eig));
        CLV_TRY(clv__get_kernel(ctx, s, opts, vec ? "corners_cand_vec" : "corners_cand", &k->cand));
        CLV_TRY(clv__get_kernel(ctx, s, opts, "corners_cut", &k->cut));
        CLV_TRY(clv__get_kernel(ctx, s, opts, vec ? "corners_rs_hist" : "corners_sort_block",
                                &k->sort_a));
        CLV_TRY(clv__get_kernel(ctx, s, opts, vec ? "corners_rs_scatter" : "corners_sort_step",
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
    k->radix_sort = vec;
out:
    return status;
}

/* The CPU radix sort's chunks: a few per compute unit, so that every
 * core gets work in each launch, and at most RS_MAX_CHUNKS (each scatter
 * work-item sums 256 x chunks counts; the counts live in aux). */
#define RS_MAX_CHUNKS 64
#define RS_BINS 256

/* CPU radix sort of n keys, descending (corners.cl): the bytes of the pixel
 * index that can be non-zero (below w h), then the response's four; *sorted
 * = keys or tmp (>= n keys), whichever holds the result. 1920x1080 on PoCL
 * (2 cores), ~100k candidates, device ms per call: merge sort (insertion
 * runs of 16, 13 merge passes) 4.8 -> 7 radix passes 1.4 (the op's wall
 * 12.4 -> 8.6). */
static clv_status radix_sort(clv_context *ctx, const kernels *k, cl_mem keys, cl_mem tmp,
                             cl_mem hist, int n, int npix, cl_mem *sorted)
{
    clv_status status = CLV_OK;
    size_t g = 4 * (size_t)ctx->info.compute_units;
    g = g < 4 ? 4 : g > RS_MAX_CHUNKS ? RS_MAX_CHUNKS : g;
    const int chunk = (int)(((size_t)n + g - 1) / g);
    int index_bytes = 1;
    while (index_bytes < 4 && ((unsigned)(npix - 1) >> (8 * index_bytes)) != 0)
        index_bytes++;
    /* one work-item per group: PoCL would otherwise run a group's chunks
     * as vector lanes of one loop */
    const size_t one = 1;
    cl_mem src = keys, dst = tmp;
    for (int b = 0; b < 8; b++) {
        if (b >= index_bytes && b < 4)
            continue;
        const int shift = 8 * b;
        CLV_TRY(CLV_LAUNCH(ctx, OP, k->sort_a, 1, &g, &one, CLV_ARG(src), CLV_ARG(n),
                           CLV_ARG(shift), CLV_ARG(chunk), CLV_ARG(hist)));
        CLV_TRY(CLV_LAUNCH(ctx, OP, k->sort_b, 1, &g, &one, CLV_ARG(src), CLV_ARG(dst), CLV_ARG(n),
                           CLV_ARG(shift), CLV_ARG(chunk), CLV_ARG(hist)));
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
    if (b * sizeof(cl_ulong) > budget)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                         "the sort needs %zu bytes of local memory, device offers %zu",
                         b * sizeof(cl_ulong), budget);
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

/* Everything one call works with. */
typedef struct job {
    clv_context *ctx;
    kernels k;
    const clv_image *img;
    int w, h, r, vec;
    int pitch;       /* of the float planes: round_up(w, 16) + 16 (the CPU
                      * candidate kernel reads one value past a 16-wide block) */
    cl_ulong plane;  /* pitch * h */
    int cap;         /* candidates sorted at most (power of two) */
    float f1, f0, quality;
    int has_mask, mask_pitch;
    cl_mem mask;     /* the image itself when there is no mask (never read) */
    cl_mem hs, resp, keys, aux, params, out;
} job;

/* Sizes of the response stages (j->k.hsum, then j->k.eig): corners_hsum
 * stages a tile of row sums; the CPU kernel (j->vec, corners_resp_vec: both
 * stages) takes a band of full rows per work-item (clv__band_plan: its
 * start-up is 2r rows) with a ring of row sums in j->hs. PoCL, 2 cores,
 * 1920x1080, block 3, device ms: the former two stages through a 3-plane
 * float image 2.25 + 2.0 -> 2.8 (the op's wall 8.6 -> 7.0); walking each
 * 16-pixel column strip down its band instead was slower (5.4: strided
 * rows defeat the prefetcher). */
typedef struct resp_plan {
    size_t gh[2], gh_l[2]; /* row sums (j->vec: both stages): global, local */
    size_t tile;           /* not j->vec: corners_hsum's local memory */
    size_t ge[2], ge_l[2]; /* eigenvalues (not j->vec): global, local */
    size_t eig_local;      /* their local memory (j->vec: corners_resp_vec's) */
    int band;              /* j->vec: rows per band */
} resp_plan;

/* The sizes for j on its device; fails when corners_hsum's tile fits no
 * group. */
static clv_status responses_plan(job *j, resp_plan *pl)
{
    clv_status status = CLV_OK;
    clv_context *ctx = j->ctx;
    size_t max_wg, local_free;
    memset(pl, 0, sizeof *pl);
    if (j->vec) {
        /* one work-item per group and band; the rings in scratch slot 0
         * (j->hs, which only grows: the sort's keys still fit after) */
        const size_t strips = ((size_t)j->w + 15) / 16;
        size_t nb;
        CLV_TRY(clv__band_plan(ctx, OP, j->h, 2 * j->r, (size_t)(2 * j->r + 1) * strips * 48,
                               &pl->band, &nb, &j->hs));
        pl->gh[0] = nb;
        pl->gh[1] = 1;
        pl->gh_l[0] = pl->gh_l[1] = 1;
        pl->eig_local = sizeof(float);
        return CLV_OK;
    }
    pl->gh[0] = pl->ge[0] = (size_t)j->w;
    pl->gh[1] = pl->ge[1] = (size_t)j->h;
    CLV_TRY(clv__kernel_limits(ctx, OP, j->k.hsum, &max_wg, &local_free));
    const size_t budget = local_free < CLV_LOCAL_BUDGET_MAX ? local_free : CLV_LOCAL_BUDGET_MAX;
    pl->gh_l[0] = 32;
    pl->gh_l[1] = 8;
    fit2d(&pl->gh_l[0], &pl->gh_l[1], max_wg, budget, hsum_tile_bytes, j->r);
    pl->tile = hsum_tile_bytes(pl->gh_l[0], pl->gh_l[1], j->r);
    if (pl->tile > budget)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                         "row sums need %zu bytes of local memory, device offers %zu", pl->tile,
                         budget);
    CLV_TRY(clv__kernel_limits(ctx, OP, j->k.eig, &max_wg, NULL));
    pl->ge_l[0] = 32;
    pl->ge_l[1] = 8;
    fit2d(&pl->ge_l[0], &pl->ge_l[1], max_wg, 0, NULL, j->r);
    pl->eig_local = pl->ge_l[0] * pl->ge_l[1] * sizeof(float);
out:
    return status;
}

/* Stages 1-2: responses into j->resp, their maximum into params[P_MAX]. */
static clv_status responses(job *j)
{
    clv_status status = CLV_OK;
    clv_context *ctx = j->ctx;
    const int sp = clv__pitch(j->img);
    resp_plan pl;
    CLV_TRY(responses_plan(j, &pl));
    if (j->vec)
        return CLV_LAUNCH(ctx, OP, j->k.hsum, 1, pl.gh, pl.gh_l, CLV_ARG(j->img->mem), CLV_ARG(sp),
                          CLV_ARG(j->w), CLV_ARG(j->h), CLV_ARG(j->r), CLV_ARG(j->f1),
                          CLV_ARG(j->f0), CLV_ARG(j->hs), CLV_ARG(pl.band), CLV_ARG(j->resp),
                          CLV_ARG(j->pitch), CLV_ARG(j->has_mask), CLV_ARG(j->mask),
                          CLV_ARG(j->mask_pitch), CLV_ARG(j->params),
                          CLV_LOCAL(pl.eig_local));
    CLV_TRY(CLV_LAUNCH(ctx, OP, j->k.hsum, 2, pl.gh, pl.gh_l, CLV_ARG(j->img->mem),
                           CLV_ARG(sp), CLV_ARG(j->w), CLV_ARG(j->h), CLV_ARG(j->r),
                           CLV_ARG(j->f1), CLV_ARG(j->f0), CLV_ARG(j->hs), CLV_ARG(j->plane),
                           CLV_ARG(j->pitch), CLV_LOCAL(pl.tile)));
    CLV_TRY(CLV_LAUNCH(ctx, OP, j->k.eig, 2, pl.ge, pl.ge_l, CLV_ARG(j->hs), CLV_ARG(j->plane),
                       CLV_ARG(j->pitch), CLV_ARG(j->w), CLV_ARG(j->h), CLV_ARG(j->r),
                       CLV_ARG(j->resp), CLV_ARG(j->has_mask), CLV_ARG(j->mask),
                       CLV_ARG(j->mask_pitch), CLV_ARG(j->params), CLV_LOCAL(pl.eig_local)));
out:
    return status;
}

/* One pass of the candidate kernel (mode as in corners.cl). */
static clv_status candidates_pass(job *j, int mode)
{
    const size_t g[2] = {j->vec ? ((size_t)j->w + 15) / 16 : (size_t)j->w, (size_t)j->h};
    return CLV_LAUNCH(j->ctx, OP, j->k.cand, 2, g, NULL, CLV_ARG(j->resp), CLV_ARG(j->pitch),
                      CLV_ARG(j->w), CLV_ARG(j->h), CLV_ARG(j->has_mask), CLV_ARG(j->mask),
                      CLV_ARG(j->mask_pitch), CLV_ARG(j->quality), CLV_ARG(j->params),
                      CLV_ARG(j->keys), CLV_ARG(j->cap), CLV_ARG(mode), CLV_ARG(j->aux));
}

/* Stage 3: candidate keys into j->keys, their number (<= cap) into *n. */
static clv_status candidates(job *j, int *n)
{
    clv_status status = CLV_OK;
    clv_context *ctx = j->ctx;
    const cl_int zero = 0;
    CLV_TRY(candidates_pass(j, 0));
    CLV_TRY(read_ints(ctx, j->params, P_COUNT, 1, n));
    if (*n <= j->cap)
        goto out;
    /* Over capacity: radix-select the cut value (histogram of the high 16
     * response bits, then of the low 16 in the bin found), then again. */
    size_t max_wg;
    CLV_TRY(clv__kernel_limits(ctx, OP, j->k.cut, &max_wg, NULL));
    const size_t lc = pow2_floor(max_wg < 256 ? max_wg : 256);
    for (int level = 1; level <= 2; level++) {
        CLV_TRY(fill(ctx, j->aux, &zero, sizeof zero, 0, HIST_BINS * sizeof(cl_int),
                     "clEnqueueFillBuffer(histogram)"));
        CLV_TRY(candidates_pass(j, level));
        CLV_TRY(CLV_LAUNCH(ctx, OP, j->k.cut, 1, &lc, &lc, CLV_ARG(j->aux), CLV_ARG(j->params),
                           CLV_ARG(j->cap), CLV_ARG(level), CLV_LOCAL(lc * sizeof(cl_int))));
    }
    CLV_TRY(fill(ctx, j->params, &zero, sizeof zero, P_COUNT * sizeof(cl_int), sizeof(cl_int),
                 "clEnqueueFillBuffer(count)"));
    CLV_TRY(candidates_pass(j, 0));
    CLV_TRY(read_ints(ctx, j->params, P_COUNT, 1, n));
    if (*n > j->cap)
        return clv__fail(ctx, CLV_ERROR_OPENCL, OP,
                         "%d candidates left after raising the threshold (capacity %d)", *n,
                         j->cap);
out:
    return status;
}

/* Stage 4: sort the n keys; *sorted is the buffer holding them. The CPU
 * radix sort ping-pongs with the row-sum buffer, free by now and larger
 * than the keys, and counts in aux (the grid's, filled after the sort). */
static clv_status sort_candidates(job *j, int n, cl_mem *sorted)
{
    clv_status status = CLV_OK;
    *sorted = j->keys;
    if (j->k.radix_sort)
        return radix_sort(j->ctx, &j->k, j->keys, j->hs, j->aux, n, j->w * j->h, sorted);
    const cl_ulong zero64 = 0;
    const size_t n2 = pow2_ceil(n < 2 ? 2 : (size_t)n);
    if (n2 > (size_t)n)
        CLV_TRY(fill(j->ctx, j->keys, &zero64, sizeof zero64, (size_t)n * sizeof(cl_ulong),
                     (n2 - (size_t)n) * sizeof(cl_ulong), "clEnqueueFillBuffer(keys)"));
    CLV_TRY(bitonic_sort(j->ctx, &j->k, j->keys, n2));
out:
    return status;
}

/* The selection's grid for min_distance d: cells of side ceil(d) - 1 (so a
 * conflicting corner is in the 3x3 cells around), lim = ceil(d^2) (integer
 * squared distances below it conflict). No grid for d <= 1: distinct pixels
 * never conflict. d is capped at 1e6, beyond any image. */
typedef struct grid_geom {
    int use, cell, gw, gh;
    cl_long lim;
    size_t bytes;
} grid_geom;

static grid_geom grid_for(int w, int h, double min_distance)
{
    grid_geom g = {0, 1, 1, 1, 0, 0};
    const double d = min_distance < 1e6 ? min_distance : 1e6;
    if (!(d > 1.0))
        return g;
    const int big = w > h ? w : h;
    const double c = ceil(d) - 1.0;
    g.use = 1;
    g.cell = c > (double)big ? big : (int)c;
    g.gw = (w + g.cell - 1) / g.cell;
    g.gh = (h + g.cell - 1) / g.cell;
    g.lim = (cl_long)ceil(d * d);
    g.bytes = (size_t)g.gw * (size_t)g.gh * 4 * sizeof(cl_int);
    return g;
}

/* Stage 5: greedy minimum distance over the n sorted keys, up to
 * max_corners, into j->out; their number into *found. */
static clv_status select_corners(job *j, cl_mem sorted, int n, const grid_geom *g,
                                 int max_corners, int *found)
{
    clv_status status = CLV_OK;
    clv_context *ctx = j->ctx;
    if (g->use) {
        const cl_int minus1 = -1;
        CLV_TRY(fill(ctx, j->aux, &minus1, sizeof minus1, 0, g->bytes,
                     "clEnqueueFillBuffer(grid)"));
    }
    const size_t gs = (size_t)j->k.sel_g;
    CLV_TRY(CLV_LAUNCH(ctx, OP, j->k.select, 1, &gs, &gs, CLV_ARG(sorted), CLV_ARG(n),
                       CLV_ARG(j->w), CLV_ARG(j->aux), CLV_ARG(g->gw), CLV_ARG(g->gh),
                       CLV_ARG(g->cell), CLV_ARG(g->lim), CLV_ARG(g->use), CLV_ARG(max_corners),
                       CLV_ARG(j->out), CLV_ARG(j->params)));
    CLV_TRY(read_ints(ctx, j->params, P_NOUT, 1, found));
    if (*found < 0 || *found > max_corners)
        return clv__fail(ctx, CLV_ERROR_OPENCL, OP, "selection returned %d corners", *found);
out:
    return status;
}

/* The parameter struct from the descriptor's values a[1..6]. */
static clv_corner_params params_of(const clv_arg *a)
{
    clv_corner_params p;
    memset(&p, 0, sizeof p);
    p.max_corners = a[1].v.i;
    p.quality_level = a[2].v.d;
    p.min_distance = a[3].v.d;
    p.block_size = a[4].v.i;
    p.gradient_size = a[5].v.i;
    p.mask = a[6].v.p;
    return p;
}

/* The body of both descriptors: arguments validated, *count already 0. */
static clv_status corners_body(clv_context *ctx, const clv_image *img,
                               const clv_corner_params *p, clv_corner *out, int capacity,
                               int *count)
{
    clv_status status = CLV_OK;
    if (img->width < 3 || img->height < 3)
        return CLV_OK; /* no interior pixels, no candidates */

    job j;
    memset(&j, 0, sizeof j);
    j.ctx = ctx;
    j.img = img;
    j.w = img->width;
    j.h = img->height;
    j.r = p->block_size / 2;
    j.vec = ctx->tune.vec == 16;
    CLV_TRY(get_kernels(ctx, img, &j.k));
    j.pitch = (j.w + 15) / 16 * 16 + 16;
    j.plane = (cl_ulong)j.pitch * (cl_ulong)j.h;
    const size_t interior = (size_t)(j.w - 2) * (size_t)(j.h - 2);
    j.cap = interior < CORNERS_CAP ? (int)pow2_ceil(interior < 2 ? 2 : interior) : CORNERS_CAP;
    const double scale = 1.0 / (4.0 * p->block_size * (img->type == CLV_U8 ? 255.0 : 1.0));
    j.f1 = (float)scale;
    j.f0 = 2.0f * j.f1;
    j.quality = (float)p->quality_level;
    j.has_mask = p->mask != NULL;
    j.mask = j.has_mask ? p->mask->mem : img->mem;
    j.mask_pitch = j.has_mask ? (int)p->mask->pitch : 0;

    const grid_geom grid = grid_for(j.w, j.h, p->min_distance);
    size_t aux_bytes = grid.bytes > 16 ? grid.bytes : 16;
    if (interior > CORNERS_CAP && aux_bytes < HIST_BINS * sizeof(cl_int))
        aux_bytes = HIST_BINS * sizeof(cl_int);
    if (ctx->tune.vec == 16 && aux_bytes < RS_BINS * RS_MAX_CHUNKS * sizeof(cl_int))
        aux_bytes = RS_BINS * RS_MAX_CHUNKS * sizeof(cl_int); /* radix_sort's counts */
    CLV_TRY(clv__scratch(ctx, OP, 0, (size_t)j.plane * 3 * sizeof(float), &j.hs));
    CLV_TRY(clv__scratch(ctx, OP, 1, (size_t)j.plane * sizeof(float), &j.resp));
    CLV_TRY(clv__scratch(ctx, OP, 2, (size_t)j.cap * sizeof(cl_ulong), &j.keys));
    CLV_TRY(clv__scratch(ctx, OP, 3, aux_bytes, &j.aux));
    CLV_TRY(clv__scratch(ctx, OP, 4, P_INTS * sizeof(cl_int), &j.params));
    /* At most j.cap candidates survive, so a larger max_corners (INT_MAX
     * means "all") needs no more room on the device than that. */
    const int max_out = p->max_corners < j.cap ? p->max_corners : j.cap;
    CLV_TRY(clv__scratch(ctx, OP, 5, (size_t)max_out * sizeof(clv_corner), &j.out));
    const cl_int zero = 0;
    CLV_TRY(fill(ctx, j.params, &zero, sizeof zero, 0, P_INTS * sizeof(cl_int),
                 "clEnqueueFillBuffer(params)"));

    CLV_TRY(responses(&j));
    int n = 0, found = 0;
    CLV_TRY(candidates(&j, &n));
    if (n == 0)
        goto out;
    cl_mem sorted;
    CLV_TRY(sort_candidates(&j, n, &sorted));
    CLV_TRY(select_corners(&j, sorted, n, &grid, max_out, &found));
    const int copy = found < capacity ? found : capacity; /* the strongest come first */
    if (copy > 0) {
        cl_int err = clEnqueueReadBuffer(ctx->queue, j.out, CL_TRUE, 0,
                                         (size_t)copy * sizeof(clv_corner), out, 0, NULL, NULL);
        CLV_CHECK_CL(ctx, err, OP, "clEnqueueReadBuffer(corners)");
    }
    *count = found;
out:
    return status;
}

/* clv_corners_shi_tomasi_n: a = img, max_corners .. mask, out, capacity, count. */
static clv_status corners_n_run(clv_context *ctx, const clv_arg *a)
{
    const clv_corner_params p = params_of(a);
    return corners_body(ctx, a[0].v.p, &p, a[7].v.p, a[8].v.i, a[9].v.p);
}

/* clv_corners_shi_tomasi: a = img, max_corners .. mask, out, count; the
 * capacity of out is max_corners. */
static clv_status corners_run(clv_context *ctx, const clv_arg *a)
{
    const clv_corner_params p = params_of(a);
    return corners_body(ctx, a[0].v.p, &p, a[7].v.p, p.max_corners, a[8].v.p);
}

/* The parameters both forms share: the image and clv_corner_params' fields. */
#define CORNERS_PARAMS                                                                        \
    CLV__P_IMAGE("img", "source",                                                             \
                 "the image, gray: 1-channel u8 (0..255) or f32 (any scale; responses follow "  \
                 "it)",                                                                       \
                 CLV_PARAM_INPUT, CLV_TYPES(CLV_U8) | CLV_TYPES(CLV_F32), CLV_CHANNELS(1),     \
                 NULL, 0),                                                                    \
        {.name = "max_corners", .type = CLV_PARAM_INT,                                       \
         .flags = CLV_PARAM_INPUT | CLV_PARAM_OPTIONAL,                                       \
         .doc = "the strongest corners kept (INT_MAX: all there are)", .min = 1,              \
         .max = HUGE_VAL, .def = 1000, .cli_alias = "--max"},                                 \
        {.name = "quality_level", .type = CLV_PARAM_DOUBLE,                                   \
         .flags = CLV_PARAM_INPUT | CLV_PARAM_OPTIONAL | CLV_PARAM_MIN_OPEN,                  \
         .doc = "a corner's response must be above quality_level x the largest (1: none, as " \
                "OpenCV)",                                                                    \
         .min = 0.0, .max = 1.0, .def = 0.01, .cli_alias = "--quality"},                      \
        CLV__P_DOUBLE("min_distance", "Euclidean distance kept between corners", "px", 0.0,   \
                      HUGE_VAL, CLV_PARAM_OPTIONAL, 10.0),                                    \
        CLV__P_INT("block_size", "window of the structure tensor", "px", 1, MAX_BLOCK,       \
                   CLV_PARAM_OPTIONAL | CLV_PARAM_ODD, 3),                                    \
        CLV__P_INT("gradient_size", "Sobel aperture (3 only)", "px", 3, 3, CLV_PARAM_OPTIONAL,  \
                   3),                                                                        \
        CLV__P_IMAGE("mask", "mask", "optional: corners only where != 0; 1-channel u8 of img's " \
                     "size",                                                                  \
                     CLV_PARAM_INPUT | CLV_PARAM_OPTIONAL, CLV_TYPES(CLV_U8), CLV_CHANNELS(1), \
                     "img", CLV_LIKE_SIZE)

#define CORNERS_DOC                                                                           \
    "OpenCV goodFeaturesToTrack with the minimum eigenvalue (cornerMinEigenVal scaling, "      \
    "reflect101): corners are 3x3 local maxima off the outermost pixel ring, sorted by "       \
    "decreasing response, x and y in pixels (the centre of pixel (0, 0) is 0, 0). Waits for "  \
    "the result."

static const clv_param_desc corners_n_params[] = {
    CORNERS_PARAMS,
    CLV__P_ARRAY("out", "the corners found, strongest first: x, y (px), response",
                 CLV_PARAM_OUTPUT, clv_corner, "capacity"),
    CLV__P_INT("capacity", "entries of out (0: only count; out may then be NULL)", NULL, 0,
               HUGE_VAL, 0, 0),
    CLV__P_COUNT("count", "corners found (up to max_corners, possibly more than capacity)",
                 "out"),
};

const clv_op_desc clv__op_corners_shi_tomasi_n = {
    .name = "corners_shi_tomasi_n",
    .summary = "Shi-Tomasi corners of a gray image into an array of a given capacity",
    .blocking = "reads the number of candidates, then the corners, back to host memory",
    .doc = CORNERS_DOC,
    .cli_name = "corners",
    .nparams = 10,
    .params = corners_n_params,
    .run = corners_n_run,
};

static const clv_param_desc corners_params[] = {
    CORNERS_PARAMS,
    CLV__P_ARRAY("out", "the corners found, strongest first: x, y (px), response",
                 CLV_PARAM_OUTPUT, clv_corner, "max_corners"),
    CLV__P_COUNT("count", "corners found", "out"),
};

const clv_op_desc clv__op_corners_shi_tomasi = {
    .name = "corners_shi_tomasi",
    .summary = "Shi-Tomasi corners of a gray image into an array of max_corners entries",
    .blocking = "reads the number of candidates, then the corners, back to host memory",
    .doc = CORNERS_DOC,
    .nparams = 9,
    .params = corners_params,
    .run = corners_run,
};

/* A NULL parameter struct cannot be flattened: the typed fronts' only
 * check of their own. */
static clv_status null_params(clv_context *ctx, const clv_op_desc *op, int *count)
{
    if (count)
        *count = 0;
    if (!ctx)
        return CLV_ERROR_INVALID_ARGUMENT;
    clv__op_begin(ctx);
    return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op->name, "params is NULL");
}

CLV_API clv_status clv_corners_shi_tomasi_n(clv_context *ctx, const clv_image *img,
                                            const clv_corner_params *p, clv_corner *out,
                                            int capacity, int *count)
{
    if (!p)
        return null_params(ctx, &clv__op_corners_shi_tomasi_n, count);
    const clv_arg a[] = {CLV__IMG(img),          CLV__INT(p->max_corners),
                         CLV__DBL(p->quality_level), CLV__DBL(p->min_distance),
                         CLV__INT(p->block_size), CLV__INT(p->gradient_size),
                         CLV__IMG(p->mask),      CLV__ARR(out),
                         CLV__INT(capacity),     CLV__STRUCT(count)};
    return clv__op_run(ctx, &clv__op_corners_shi_tomasi_n, a);
}

CLV_API clv_status clv_corners_shi_tomasi(clv_context *ctx, const clv_image *img,
                                          const clv_corner_params *p, clv_corner *out,
                                          int *count)
{
    if (!p)
        return null_params(ctx, &clv__op_corners_shi_tomasi, count);
    const clv_arg a[] = {CLV__IMG(img),          CLV__INT(p->max_corners),
                         CLV__DBL(p->quality_level), CLV__DBL(p->min_distance),
                         CLV__INT(p->block_size), CLV__INT(p->gradient_size),
                         CLV__IMG(p->mask),      CLV__ARR(out),
                         CLV__STRUCT(count)};
    return clv__op_run(ctx, &clv__op_corners_shi_tomasi, a);
}
