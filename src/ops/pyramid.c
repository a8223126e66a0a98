/* clvision — Gaussian pyramids (flow.h).
 *
 * scale 0.5: OpenCV pyrDown per level (cl/pyramid.cl), level k from level
 * k-1. Other scales: OpenCV's Farneback pyramid, level k = resize(blur(level
 * 0)) through the library's own Gaussian and bilinear resize. Level images
 * (and, for the Farneback form, one full-size blur target) are allocated at
 * create time; a build only enqueues kernels. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/internal.h"

#define OP "pyramid"

struct clv_pyramid {
    int width, height, channels;
    clv_pixel_type type;
    double scale;
    int levels;
    clv_image *level[CLV_PYRAMID_MAX_LEVELS];
    /* Farneback form only */
    clv_image *blurred;
    double sigma[CLV_PYRAMID_MAX_LEVELS];
    int ksize[CLV_PYRAMID_MAX_LEVELS];
};

static int is_pyr_down(double scale) { return scale == 0.5; }

/* Level sizes; returns how many levels (<= wanted) are at least 2x2 (and,
 * for the Farneback form, need a Gaussian of at most 255 taps).
 * pyrDown: (w + 1) / 2 per step. Farneback: s = scale^k by repeated
 * multiplication and round-half-even of w s, as OpenCV (cvRound). */
static int plan(int w, int h, int wanted, double scale, int *ws, int *hs, double *sigma, int *ksize)
{
    int n = 0;
    double s = 1.0;
    for (int k = 0; k < wanted; k++) {
        int lw, lh;
        if (k == 0) {
            lw = w;
            lh = h;
        } else if (is_pyr_down(scale)) {
            lw = (ws[k - 1] + 1) / 2;
            lh = (hs[k - 1] + 1) / 2;
        } else {
            s *= scale;
            lw = (int)lrint((double)w * s);
            lh = (int)lrint((double)h * s);
        }
        const double sg = (1.0 / s - 1.0) * 0.5;
        int ks = (int)lrint(sg * 5.0) | 1;
        if (ks < 3)
            ks = 3;
        if (k > 0 && (lw < 2 || lh < 2 || ks > CLV_GAUSSIAN_MAX_KSIZE))
            break;
        ws[k] = lw;
        hs[k] = lh;
        sigma[k] = sg;
        ksize[k] = ks;
        n++;
    }
    return n;
}

CLV_API clv_status clv_pyramid_create(clv_context *ctx, int width, int height, int channels,
                                      clv_pixel_type type, int levels, double scale,
                                      clv_pyramid **out)
{
    clv_status status = CLV_OK;
    clv_pyramid *p = NULL;
    if (out)
        *out = NULL;
    if (!ctx)
        return CLV_ERROR_INVALID_ARGUMENT;
    clv__clear_error(ctx);
    if (!out)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "out is NULL");
    if (width < 1 || height < 1 || width > CLV_MAX_DIMENSION || height > CLV_MAX_DIMENSION)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                         "size %dx%d outside 1..%d in each dimension", width, height,
                         CLV_MAX_DIMENSION);
    if (channels < 1 || channels > 4)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "channels must be 1 to 4 (got %d)",
                         channels);
    if (type != CLV_U8 && type != CLV_U16 && type != CLV_F32)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "unknown pixel type %d", (int)type);
    if (levels < 1 || levels > CLV_PYRAMID_MAX_LEVELS)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "levels must be 1..%d (got %d)",
                         CLV_PYRAMID_MAX_LEVELS, levels);
    if (!(scale > 0.0 && scale < 1.0))
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "scale must be in (0, 1) (got %s)",
                         CLV_NUM(scale));

    p = calloc(1, sizeof *p);
    if (!p)
        return clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, OP, "out of host memory");
    p->width = width;
    p->height = height;
    p->channels = channels;
    p->type = type;
    p->scale = scale;
    int ws[CLV_PYRAMID_MAX_LEVELS], hs[CLV_PYRAMID_MAX_LEVELS];
    p->levels = plan(width, height, levels, scale, ws, hs, p->sigma, p->ksize);
    for (int k = 0; k < p->levels; k++)
        CLV_TRY(clv_image_create(ctx, ws[k], hs[k], channels, type, &p->level[k]));
    if (!is_pyr_down(scale) && p->levels > 1)
        CLV_TRY(clv_image_create(ctx, width, height, channels, type, &p->blurred));
    *out = p;
    p = NULL;
out:
    clv_pyramid_release(p);
    return status;
}

CLV_API void clv_pyramid_release(clv_pyramid *pyr)
{
    if (!pyr)
        return;
    for (int k = 0; k < CLV_PYRAMID_MAX_LEVELS; k++)
        clv_image_release(pyr->level[k]);
    clv_image_release(pyr->blurred);
    free(pyr);
}

CLV_API int clv_pyramid_levels(const clv_pyramid *pyr) { return pyr ? pyr->levels : 0; }

CLV_API const clv_image *clv_pyramid_level(const clv_pyramid *pyr, int level)
{
    if (!pyr || level < 0 || level >= pyr->levels)
        return NULL;
    return pyr->level[level];
}

/* Work-group for pyr_down: (lx, ly) halved until the group and its staged
 * source footprint fit. */
static clv_status pyr_down_group(clv_context *ctx, cl_kernel k, int cn, size_t local[2],
                                 size_t *bytes)
{
    clv_status status = CLV_OK;
    size_t max_wg, local_free;
    CLV_TRY(clv__kernel_limits(ctx, OP, k, &max_wg, &local_free));
    const size_t budget = local_free < CLV_LOCAL_BUDGET_MAX ? local_free : CLV_LOCAL_BUDGET_MAX;
    size_t lx = 32, ly = 8;
    for (;;) {
        *bytes = (2 * lx + 3) * (2 * ly + 3) * (size_t)cn * sizeof(float);
        if (lx * ly <= max_wg && *bytes <= budget)
            break;
        if (ly > 1 && ly * 4 >= lx)
            ly /= 2;
        else if (lx > 1)
            lx /= 2;
        else
            return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                             "pyrDown needs %zu bytes of local memory, device offers %zu", *bytes,
                             budget);
    }
    local[0] = lx;
    local[1] = ly;
out:
    return status;
}

/* pyr_reg's rows per work-item (PR_PY): u8 gray on GPUs. H200, 4 levels of
 * 3840x2160, device us: 43 at 1 row, 48 at 2, 59 at 4, 82 at 8, 137 at 16
 * (each level's time grows with the rows a work-item walks, whatever the
 * level's size); pyr_down, the local-memory kernel, 57. */
enum { PYR_REG_PY = 1 };

/* pyr_reg2 and pyr_reg3 (two and three steps per launch, GPUs, u8 gray):
 * the last level's values a work-group makes (TX x TY; pyr_reg2's tile of
 * level k + 1 in local memory is (2 TY + 3) x (2 TX + 8) bytes, 4760 here;
 * pyr_reg3's two tiles (4 TY + 9) x (4 TX + 12) and (2 TY + 3) x (2 TX + 8),
 * 7108) and the work-group both ask for first (halved to the kernel's
 * limit; any size is correct). */
enum {
    PYR2_TX = 64,
    PYR2_TY = 16,
    PYR3_TX = 32,
    PYR3_TY = 8,
    PYRN_LX = 16,
    PYRN_LY = 16
};

/* pyr_down_band's steps per launch at most (the kernel's l1..l3). */
enum { PYR_BAND_STEPS = 3 };

/* Halo rows a pyr_down_band band makes of a level n steps above its launch's
 * last level (pyramid.cl's HALO_TOP(n) + HALO_BOT(n)): each step up doubles
 * the rows beyond its own that a band needs and adds the taps' reach, 2 rows
 * above and 1 below. */
static int pyr_halo_rows(int n) { return ((1 << (n + 1)) - 2) + ((1 << n) - 1); }

/* The work-group of pyr_reg2 or pyr_reg3 (k): the tuning's pyramid shape
 * where it has one (CLV_REG_LOCAL), else PYRN_LX x PYRN_LY, halved to k's
 * limit on the device. */
static clv_status pyrn_group(clv_context *ctx, cl_kernel k, size_t l[2])
{
    clv_status status = CLV_OK;
    size_t max_wg;
    CLV_TRY(clv__kernel_limits(ctx, OP, k, &max_wg, NULL));
    const size_t *shape = ctx->tune.reg_local[CLV__SHAPE_PYR];
    l[0] = shape[0] && shape[1] ? shape[0] : PYRN_LX;
    l[1] = shape[0] && shape[1] ? shape[1] : PYRN_LY;
    while (l[0] * l[1] > max_wg && l[1] > 1)
        l[1] /= 2;
    while (l[0] * l[1] > max_wg && l[0] > 1)
        l[0] /= 2;
out:
    return status;
}

typedef enum pyr_variant {
    PYR_DOWN_BAND,  /* CPU, one channel: bands of full rows, a ring of row sums, up to
                     * PYR_BAND_STEPS levels per launch */
    PYR_DOWN_REG,   /* GPUs, u8, one channel: 4 x PR_PY outputs per work-item in registers */
    PYR_DOWN_TILED, /* the source footprint staged in local memory */
} pyr_variant;

/* A variant and everything its launch needs. */
typedef struct pyr_plan {
    pyr_variant variant;
    cl_kernel k;
    size_t g[2], l[2]; /* l: PYR_DOWN_TILED only */
    cl_kernel k2, k3;  /* PYR_DOWN_REG: pyr_reg2 (CLV__REG_PYR2 or PYR3) and pyr_reg3
                        * (CLV__REG_PYR3), else NULL */
    size_t l2[2], l3[2]; /* their work-groups */
    size_t bytes;      /* PYR_DOWN_TILED: local memory */
    /* PYR_DOWN_BAND: steps, last-level rows per band, values per ring row,
     * a band's scratch and its ring's part (bytes), values per halo row of
     * the first two levels made */
    int nl, chunk, rpitch, band_bytes, ring_bytes, hp[2];
    cl_mem work;       /* PYR_DOWN_BAND: the bands' rings and halo rows (the context's scratch) */
    size_t work_bytes; /* PYR_DOWN_BAND: work's size (scratch slot 0) */
} pyr_plan;
_Static_assert(sizeof(pyr_plan) <= CLV__PLAN_MAX, "a pyrDown plan must fit the plan cache");

static size_t round64(size_t n) { return (n + 63) / 64 * 64; }

/* Pick pyr_down's variant for src -> dst[0] -> .. dst[nl - 1] on ctx's
 * device and size it; nl > 1 only where the variant is PYR_DOWN_BAND (the
 * caller asks with nl = 1 first). */
static clv_status pyr_down_choose(clv_context *ctx, const clv_image *src,
                                  clv_image *const *dst_all, int nl, pyr_plan *pl)
{
    const clv_image *dst = dst_all[0];
    clv_status status = CLV_OK;
    char opts[200];
    clv__format_options(opts, sizeof opts, src->type, src->channels);
    size_t len = strlen(opts);
    snprintf(opts + len, sizeof opts - len, " -DBORDER=%s",
             clv__border_macro(CLV_BORDER_REFLECT101));
    memset(pl, 0, sizeof *pl);
    if (ctx->tune.vec == 16 && src->channels == 1) {
        len = strlen(opts);
        snprintf(opts + len, sizeof opts - len, " -DVEC=16");
        pl->variant = PYR_DOWN_BAND;
        pl->nl = nl;
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_PYRAMID, opts, "pyr_down_band", &pl->k));
        /* ring values: u8 sums in 16 bits, others in float */
        const size_t acc = src->type == CLV_U8 ? sizeof(cl_ushort) : sizeof(float);
        const size_t es = src->elem_size;
        pl->rpitch = (dst->width + 15) / 16 * 16;
        size_t ring = round64(5 * (size_t)pl->rpitch * acc), halo = 0;
        for (int k = 0; k + 1 < nl; k++) {
            pl->hp[k] = (int)(round64((size_t)dst_all[k]->width * es) / es);
            halo += (size_t)pyr_halo_rows(nl - 1 - k) * (size_t)pl->hp[k] * es;
        }
        const size_t band = ring + round64(halo);
        if (band > INT_MAX)
            return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                             "a band's scratch of %zu bytes does not fit an int", band);
        pl->ring_bytes = (int)ring;
        pl->band_bytes = (int)band;
        size_t nb;
        /* a band forms 3 source rows before its first output row (1.5 rows'
         * work), and each level above the last a few halo rows */
        CLV_TRY(clv__band_plan(ctx, OP, dst_all[nl - 1]->height, 2 + 3 * (nl - 1),
                               band / sizeof(float), &pl->chunk, &nb, &pl->work));
        pl->work_bytes = nb * band;
        pl->g[0] = nb;
        pl->l[0] = 1;
        return CLV_OK;
    }
    /* pyr_reg's loads: 16 values of a source row (CLV__SPAN_FITS) */
    if (CLV__REG_ON(ctx, CLV__REG_PYR, src->channels) && src->type == CLV_U8 &&
        src->channels == 1 && CLV__SPAN_FITS(src->width, 16)) {
        const int py = CLV__REG_PY(ctx, PYR_REG_PY);
        len = strlen(opts);
        snprintf(opts + len, sizeof opts - len,
                 " -DPR_PY=%d -DP2_TX=%d -DP2_TY=%d -DP3_TX=%d -DP3_TY=%d", py, (int)PYR2_TX,
                 (int)PYR2_TY, (int)PYR3_TX, (int)PYR3_TY);
        pl->variant = PYR_DOWN_REG;
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_PYRAMID, opts, "pyr_reg", &pl->k));
        pl->g[0] = ((size_t)dst->width + 3) / 4;
        pl->g[1] = ((size_t)dst->height + (size_t)py - 1) / (size_t)py;
        const int three = CLV__REG_ON(ctx, CLV__REG_PYR3, 1);
        if (three || CLV__REG_ON(ctx, CLV__REG_PYR2, 1)) {
            CLV_TRY(clv__get_kernel(ctx, CLV__SRC_PYRAMID, opts, "pyr_reg2", &pl->k2));
            CLV_TRY(pyrn_group(ctx, pl->k2, pl->l2));
        }
        if (three) {
            CLV_TRY(clv__get_kernel(ctx, CLV__SRC_PYRAMID, opts, "pyr_reg3", &pl->k3));
            CLV_TRY(pyrn_group(ctx, pl->k3, pl->l3));
        }
        return CLV_OK; /* pyr_reg: the launch picks the groups */
    }
    pl->variant = PYR_DOWN_TILED;
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_PYRAMID, opts, "pyr_down", &pl->k));
    CLV_TRY(pyr_down_group(ctx, pl->k, src->channels, pl->l, &pl->bytes));
    pl->g[0] = (size_t)dst->width;
    pl->g[1] = (size_t)dst->height;
out:
    return status;
}

/* The plan for src -> dst[0] .. dst[nl - 1] on ctx (from the plan cache or
 * made and cached), with its scratch attached. */
static clv_status pyr_down_plan(clv_context *ctx, const clv_image *src, clv_image *const *dst,
                                int nl, pyr_plan *pl)
{
    clv_status status = CLV_OK;
    /* the choice depends on these alone (and the context's device); the
     * levels after dst[0] follow from it (pyrDown sizes) */
    const int key[7] = {(int)src->type, src->channels, src->width, src->height, dst[0]->width,
                        dst[0]->height, nl};
    if (clv__plan_get(ctx, OP, key, sizeof key, pl, sizeof *pl)) {
        if (pl->work_bytes)
            CLV_TRY(clv__scratch(ctx, OP, 0, pl->work_bytes, &pl->work));
    } else {
        CLV_TRY(pyr_down_choose(ctx, src, dst, nl, pl));
        pyr_plan keep = *pl;
        keep.work = NULL;
        clv__plan_put(ctx, OP, key, sizeof key, &keep, sizeof keep);
    }
out:
    return status;
}

/* pyrDown src -> dst[0] -> .. -> dst[nl - 1] in one launch (nl > 1 only
 * for a plan of PYR_DOWN_BAND). copy: NULL, or an image of src's size that
 * the launch also fills with src (the pyramid's level 0); only a plan of
 * PYR_DOWN_BAND or PYR_DOWN_REG takes one. */
static clv_status pyr_down(clv_context *ctx, const clv_image *src, clv_image *const *dst_all,
                           int nl, clv_image *copy)
{
    clv_status status = CLV_OK;
    clv_image *dst = dst_all[0];
    const int sp = clv__pitch(src), dp = clv__pitch(dst);
    pyr_plan pl;
    CLV_TRY(pyr_down_plan(ctx, src, dst_all, nl, &pl));
    const int copy_on = copy != NULL;
    const clv_image *c = copy ? copy : dst; /* unused without copy_on */
    const int cp = clv__pitch(c);
    switch (pl.variant) {
    case PYR_DOWN_BAND: {
        /* the levels past nl: any of them, unused */
        const clv_image *l2 = dst_all[nl >= 2 ? 1 : 0], *l3 = dst_all[nl >= 3 ? 2 : 0];
        const int p2 = clv__pitch(l2), p3 = clv__pitch(l3);
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k, 1, pl.g, pl.l, CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(src->width), CLV_ARG(src->height), CLV_ARG(dst->mem),
                           CLV_ARG(dp), CLV_ARG(dst->width), CLV_ARG(dst->height),
                           CLV_ARG(l2->mem), CLV_ARG(p2), CLV_ARG(l2->width),
                           CLV_ARG(l2->height), CLV_ARG(l3->mem), CLV_ARG(p3),
                           CLV_ARG(l3->width), CLV_ARG(l3->height), CLV_ARG(pl.nl),
                           CLV_ARG(pl.chunk), CLV_ARG(pl.work), CLV_ARG(pl.work),
                           CLV_ARG(pl.band_bytes), CLV_ARG(pl.ring_bytes), CLV_ARG(pl.rpitch),
                           CLV_ARG(pl.hp[0]), CLV_ARG(pl.hp[1]), CLV_ARG(c->mem), CLV_ARG(cp),
                           CLV_ARG(copy_on)));
        break;
    }
    case PYR_DOWN_REG:
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k, 2, pl.g, clv__reg_local(ctx, CLV__SHAPE_PYR, pl.g),
                           CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(src->width), CLV_ARG(src->height), CLV_ARG(dst->mem),
                           CLV_ARG(dp), CLV_ARG(dst->width), CLV_ARG(dst->height),
                           CLV_ARG(c->mem), CLV_ARG(cp), CLV_ARG(copy_on)));
        break;
    case PYR_DOWN_TILED:
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k, 2, pl.g, pl.l, CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(src->width), CLV_ARG(src->height), CLV_ARG(dst->mem),
                           CLV_ARG(dp), CLV_ARG(dst->width), CLV_ARG(dst->height),
                           CLV_LOCAL(pl.bytes)));
        break;
    }
out:
    return status;
}

/* n = 2 or 3 pyrDown steps src -> d[0] -> .. -> d[n - 1] in one launch of
 * pyr_reg2 or pyr_reg3 (pl: src -> d[0]'s PYR_DOWN_REG plan with k2 and
 * k3), with level 0 copied as pyr_down does. */
static clv_status pyr_down_n(clv_context *ctx, const pyr_plan *pl, const clv_image *src,
                             clv_image *const *d, int n, clv_image *copy)
{
    clv_status status = CLV_OK;
    const int copy_on = copy != NULL;
    const clv_image *c = copy ? copy : d[0]; /* unused without copy_on */
    const clv_image *last = d[n - 1];
    const size_t tx = n == 3 ? PYR3_TX : PYR2_TX, ty = n == 3 ? PYR3_TY : PYR2_TY;
    const size_t *l = n == 3 ? pl->l3 : pl->l2;
    const size_t g[2] = {((size_t)last->width + tx - 1) / tx * l[0],
                         ((size_t)last->height + ty - 1) / ty * l[1]};
    const int sp = clv__pitch(src), cp = clv__pitch(c);
    const int p1 = clv__pitch(d[0]), p2 = clv__pitch(d[1]), p3 = clv__pitch(last);
    if (n == 3)
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl->k3, 2, g, l, CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(src->width), CLV_ARG(src->height), CLV_ARG(d[0]->mem),
                           CLV_ARG(p1), CLV_ARG(d[0]->width), CLV_ARG(d[0]->height),
                           CLV_ARG(d[1]->mem), CLV_ARG(p2), CLV_ARG(d[1]->width),
                           CLV_ARG(d[1]->height), CLV_ARG(last->mem), CLV_ARG(p3),
                           CLV_ARG(last->width), CLV_ARG(last->height), CLV_ARG(c->mem),
                           CLV_ARG(cp), CLV_ARG(copy_on)));
    else
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl->k2, 2, g, l, CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(src->width), CLV_ARG(src->height), CLV_ARG(d[0]->mem),
                           CLV_ARG(p1), CLV_ARG(d[0]->width), CLV_ARG(d[0]->height),
                           CLV_ARG(d[1]->mem), CLV_ARG(p2), CLV_ARG(d[1]->width),
                           CLV_ARG(d[1]->height), CLV_ARG(c->mem), CLV_ARG(cp),
                           CLV_ARG(copy_on)));
out:
    return status;
}

static clv_status pyramid_build_run(clv_context *ctx, const clv_arg *a)
{
    clv_status status = CLV_OK;
    clv_pyramid *pyr = a[0].v.p;
    const clv_image *src = a[1].v.p;
    /* Level 0: the source itself. Same geometry, so the same pitch unless
     * src wraps an application buffer with a pitch of its own. The op's
     * first command (the copy, or the launch below that makes level 0)
     * takes the waits (an asynchronous upload into src, another context's
     * work on it). */
    clv_image *l0 = pyr->level[0];
    if (is_pyr_down(pyr->scale) && pyr->levels > 1) {
        /* the CPU's band kernel and the GPUs' pyr_reg copy level 0 as they
         * read src for level 1: one pass over src and one command fewer
         * (PoCL: 50-160 µs for a 1920x1080 u8 copy on 2 cores); any pitch,
         * any wrap offset */
        pyr_plan pl;
        CLV_TRY(pyr_down_plan(ctx, src, &pyr->level[1], 1, &pl));
        if (pl.variant == PYR_DOWN_BAND || pl.variant == PYR_DOWN_REG) {
            /* the band kernel makes up to PYR_BAND_STEPS levels per launch,
             * pyr_reg3 three, pyr_reg2 two (where two are left), those
             * two up to the tuning's frame size */
            const size_t maxpx = ctx->tune.pyrn_max_pixels;
            const int fused = !maxpx || (size_t)src->width * (size_t)src->height <= maxpx;
            const int per = pl.variant == PYR_DOWN_BAND ? PYR_BAND_STEPS
                            : fused && pl.k3             ? 3
                            : fused && pl.k2             ? 2
                                                         : 1;
            for (int k = 1; k < pyr->levels;) {
                int n = pyr->levels - k < per ? pyr->levels - k : per;
                const clv_image *from = k == 1 ? src : pyr->level[k - 1];
                pyr_plan pn;
                if (pl.variant == PYR_DOWN_REG && n > 1)
                    CLV_TRY(pyr_down_plan(ctx, from, &pyr->level[k], 1, &pn));
                if (pl.variant == PYR_DOWN_REG && n > 1 && pn.variant == PYR_DOWN_REG) {
                    CLV_TRY(pyr_down_n(ctx, &pn, from, &pyr->level[k], n, k == 1 ? l0 : NULL));
                } else {
                    /* one step where pyr_reg's rows are too narrow (then
                     * pyr_down, level by level) */
                    if (pl.variant == PYR_DOWN_REG)
                        n = 1;
                    CLV_TRY(pyr_down(ctx, from, &pyr->level[k], n, k == 1 ? l0 : NULL));
                }
                k += n;
            }
            goto out;
        }
    }
    cl_int err;
    if (src->pitch == l0->pitch) {
        err = clEnqueueCopyBuffer(ctx->queue, src->mem, l0->mem, 0, 0,
                                  l0->pitch * (size_t)l0->height, (cl_uint)ctx->nwaits,
                                  ctx->nwaits ? ctx->waits : NULL, NULL);
    } else {
        /* From src's root buffer at its byte offset, not from the sub-buffer
         * a wrap with an offset uses: PoCL 3.1 crashes in a rectangular copy
         * from or to a sub-buffer. */
        const size_t src_origin[3] = {src->root_off, 0, 0};
        const size_t origin[3] = {0, 0, 0};
        const size_t region[3] = {l0->row_bytes, (size_t)l0->height, 1};
        err = clEnqueueCopyBufferRect(ctx->queue, src->root, l0->mem, src_origin, origin, region,
                                      src->pitch, 0, l0->pitch, 0, (cl_uint)ctx->nwaits,
                                      ctx->nwaits ? ctx->waits : NULL, NULL);
    }
    CLV_CHECK_CL(ctx, err, OP,
                 src->pitch == l0->pitch ? "clEnqueueCopyBuffer(level 0)"
                                         : "clEnqueueCopyBufferRect(level 0)");
    for (size_t i = 0; i < ctx->nwaits; i++)
        clv__release_event(ctx->waits[i]);
    ctx->nwaits = 0;
    for (int k = 1; k < pyr->levels; k++) {
        if (is_pyr_down(pyr->scale)) {
            CLV_TRY(pyr_down(ctx, pyr->level[k - 1], &pyr->level[k], 1, NULL));
        } else {
            CLV_TRY(clv__gaussian_blur(ctx, l0, pyr->blurred, pyr->sigma[k], pyr->sigma[k],
                                       pyr->ksize[k], pyr->ksize[k], CLV_BORDER_REFLECT101));
            CLV_TRY(clv__resize(ctx, pyr->blurred, pyr->level[k]));
        }
    }
out:
    return status;
}

static const clv_param_desc build_params[] = {
    CLV__P_PYRAMID("pyr", "pyramid",
                   "the pyramid to fill (clv_pyramid_create: its size, type, channels, levels "
                   "and scale); level 0 becomes a copy of src",
                   CLV_PARAM_OUTPUT, CLV_TYPES_ALL, CLV_CHANNELS_1_4, "src", CLV_LIKE_ALL),
    CLV__P_IMAGE("src", "source",
                 "the image, u8/u16/f32 with 1..4 channels, of the pyramid's size, type and "
                 "channels",
                 CLV_PARAM_INPUT, CLV_TYPES_ALL, CLV_CHANNELS_1_4, NULL, 0),
};

const clv_op_desc clv__op_pyramid_build = {
    .name = "pyramid_build",
    .summary = "fill a Gaussian pyramid from an image (scale 0.5: OpenCV pyrDown per level)",
    .doc = "Every level keeps src's pixel type and channels. scale 0.5: level k is pyrDown of "
           "level k-1 (5-tap [1 4 6 4 1]/16, reflect101, (w+1)/2 x (h+1)/2). Other scales: "
           "level k is src blurred with sigma (1/s - 1)/2, s = scale^k, resized to round(w s) "
           "x round(h s). Enqueues without waiting.",
    .cli_name = "pyramid",
    .nparams = 2,
    .params = build_params,
    .run = pyramid_build_run,
};

CLV_API clv_status clv_pyramid_build(clv_context *ctx, clv_pyramid *pyr, const clv_image *src)
{
    const clv_arg a[] = {CLV__PYR(pyr), CLV__IMG(src)};
    return clv__op_run(ctx, &clv__op_pyramid_build, a);
}
