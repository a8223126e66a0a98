/* clvision — Farneback dense optical flow, OpenCV's calcOpticalFlowFarneback
 * on the device. Per level k (coarse to fine, scale s = pyr_scale^k):
 *   I = resize(GaussianBlur(img, sigma = (1/s - 1)/2), round(w s) x round(h s))
 *   R = polynomial expansion of I (both images)
 *   flow = resize(flow of level k+1) / pyr_scale   (or 0 / the initial flow)
 *   M = matrices(R0, R1, flow); iterations x (flow = solve(blur(M)), M = ...)
 * Every buffer lives in a workspace kept by the context and reused while the
 * geometry stays the same, so a video loop allocates nothing per frame. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/internal.h"

#define OP "farneback"
#define FB_MAX_LEVELS 16
#define FB_MAX_WINSIZE 255    /* window_weights' table */
#define FB_MAX_ITERATIONS 100
#define FB_MAX_POLY_SIGMA 100.0
#define FB_MIN_SIZE 32 /* OpenCV's smallest pyramid level side */
/* Level 0: OpenCV blurs with its fixed 3x3 kernel [1 2 1]/4 (sigma 0 asks
 * getGaussianKernel for it); this sigma gives exactly those weights. */
#define FB_LEVEL0_SIGMA 0.84932180028801907

CLV_API clv_farneback_params clv_farneback_params_default(void)
{
    clv_farneback_params p;
    p.pyr_scale = 0.5;
    p.levels = 3;
    p.winsize = 15;
    p.iterations = 3;
    p.poly_n = 5;
    p.poly_sigma = 1.2;
    p.gaussian_window = 0;
    p.use_initial_flow = 0;
    return p;
}

typedef struct fb_level {
    int w, h;
    double scale, sigma;
    int ksize;
    clv_image *i0, *i1, *flow; /* f32 images of this level; flow 2 channels */
    cl_mem wt, tab; /* fused path: blur weights, resize table (k > 0) */
    cl_mem ftab;    /* fused path: resize table of the flow from level k+1 (k < n) */
} fb_level;

typedef struct fb_ws {
    int w, h, nlev;
    int fused; /* level images by fb_level_blur(_resize) (GPU path) */
    double pyr_scale;
    fb_level lv[FB_MAX_LEVELS + 1];
    clv_image *f0, *f1, *blur; /* full-size f32: converted inputs, blur target */
    cl_mem r0, r1, m, t;       /* 5 planes of pitch round_up(w, 16) at level 0 (t: temp) */
    cl_mem lt;                 /* fused path: fb_level_rows output, 2 frames x h x w1 float2 */
} fb_ws;

static void ws_free(void *p)
{
    fb_ws *ws = p;
    if (!ws)
        return;
    for (int k = 0; k <= FB_MAX_LEVELS; k++) {
        clv_image_release(ws->lv[k].i0);
        clv_image_release(ws->lv[k].i1);
        clv_image_release(ws->lv[k].flow);
        clv__release_mem(ws->lv[k].wt);
        clv__release_mem(ws->lv[k].tab);
        clv__release_mem(ws->lv[k].ftab);
    }
    clv_image_release(ws->f0);
    clv_image_release(ws->f1);
    clv_image_release(ws->blur);
    clv__release_mem(ws->r0);
    clv__release_mem(ws->r1);
    clv__release_mem(ws->m);
    clv__release_mem(ws->t);
    clv__release_mem(ws->lt);
    free(ws);
}

/* Pyramid geometry exactly as OpenCV computes it. */
static int plan_levels(int w, int h, int levels, double pyr_scale, fb_level *lv)
{
    int n = 0;
    double scale = 1.0;
    for (n = 0; n < levels; n++) {
        scale *= pyr_scale;
        if (w * scale < FB_MIN_SIZE || h * scale < FB_MIN_SIZE)
            break;
    }
    for (int k = 0; k <= n; k++) {
        double s = pow(pyr_scale, k);
        lv[k].scale = s;
        lv[k].w = (int)lrint(w * s);
        lv[k].h = (int)lrint(h * s);
        lv[k].sigma = (1.0 / s - 1.0) * 0.5;
        int ks = (int)lrint(lv[k].sigma * 5) | 1;
        /* the Gaussian op's limit: levels deeper than sigma ~51 (images above
         * 4K with 7+ levels) get a 255-tap blur where OpenCV uses more */
        lv[k].ksize = ks < 3 ? 3 : ks > CLV_GAUSSIAN_MAX_KSIZE ? CLV_GAUSSIAN_MAX_KSIZE : ks;
    }
    return n; /* levels used: k = n .. 0 */
}

static clv_status get_ws(clv_context *ctx, int w, int h, const clv_farneback_params *p,
                         int fused, fb_ws **out)
{
    clv_status status = CLV_OK;
    fb_level plan[FB_MAX_LEVELS + 1];
    memset(plan, 0, sizeof plan);
    int n = plan_levels(w, h, p->levels, p->pyr_scale, plan);
    fb_ws *ws = ctx->ws[CLV__WS_FARNEBACK];
    if (ws && ws->w == w && ws->h == h && ws->nlev == n && ws->pyr_scale == p->pyr_scale &&
        ws->fused == fused) {
        *out = ws;
        return CLV_OK;
    }
    if (ws) {
        ws_free(ws);
        ctx->ws[CLV__WS_FARNEBACK] = NULL;
    }
    /* The largest buffers, checked before anything is allocated (the
     * images are smaller and checked by clv_image_create). */
    const size_t bytes = (size_t)((w + 15) / 16 * 16) * (size_t)h * 5 * sizeof(float);
    const size_t lt_bytes = n >= 1 ? (size_t)2 * (size_t)h * (size_t)plan[1].w * 2 * sizeof(float)
                                   : 0;
    if (bytes > ctx->info.max_mem_alloc_size || (fused && lt_bytes > ctx->info.max_mem_alloc_size))
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                         "a %dx%d flow needs working buffers of %zu bytes, more than the "
                         "device's maximum allocation (%llu bytes)",
                         w, h, bytes > lt_bytes ? bytes : lt_bytes,
                         (unsigned long long)ctx->info.max_mem_alloc_size);
    ws = calloc(1, sizeof *ws);
    if (!ws)
        return clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, OP, "out of host memory");
    ctx->ws[CLV__WS_FARNEBACK] = ws;
    ctx->ws_free[CLV__WS_FARNEBACK] = ws_free;
    ws->w = w;
    ws->h = h;
    ws->nlev = n;
    ws->fused = fused;
    ws->pyr_scale = p->pyr_scale;
    memcpy(ws->lv, plan, sizeof plan);
    for (int k = 0; k <= n; k++) {
        fb_level *l = &ws->lv[k];
        CLV_TRY(clv_image_create(ctx, l->w, l->h, 1, CLV_F32, &l->i0));
        CLV_TRY(clv_image_create(ctx, l->w, l->h, 1, CLV_F32, &l->i1));
        if (k > 0) /* level 0 writes into the caller's flow */
            CLV_TRY(clv_image_create(ctx, l->w, l->h, 2, CLV_F32, &l->flow));
    }
    if (fused) {
        for (int k = 0; k <= n; k++) {
            fb_level *l = &ws->lv[k];
            cl_int err;
            float wt[CLV_GAUSSIAN_MAX_KSIZE];
            clv__gaussian_weights(k == 0 ? FB_LEVEL0_SIGMA : l->sigma, l->ksize, wt);
            l->wt = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   (size_t)l->ksize * sizeof(float), wt, &err);
            CLV_CHECK_CL(ctx, err, OP, "clCreateBuffer(level blur weights)");
            if (k == 0)
                continue;
            int32_t *tab = clv__resize_table(w, h, l->w, l->h);
            if (!tab) {
                status = clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, OP, "out of host memory");
                goto out;
            }
            l->tab = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                    (size_t)(2 * l->w + 2 * l->h) * sizeof(int32_t), tab, &err);
            free(tab);
            CLV_CHECK_CL(ctx, err, OP, "clCreateBuffer(level resize table)");
        }
        if (n >= 1) {
            cl_int err;
            ws->lt = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, lt_bytes, NULL, &err);
            CLV_CHECK_CL(ctx, err, OP, "clCreateBuffer(level row sums)");
        }
        for (int k = 0; k < n; k++) {
            fb_level *l = &ws->lv[k];
            cl_int err;
            int32_t *tab = clv__resize_table(ws->lv[k + 1].w, ws->lv[k + 1].h, l->w, l->h);
            if (!tab) {
                status = clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, OP, "out of host memory");
                goto out;
            }
            l->ftab = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                     (size_t)(2 * l->w + 2 * l->h) * sizeof(int32_t), tab, &err);
            free(tab);
            CLV_CHECK_CL(ctx, err, OP, "clCreateBuffer(flow resize table)");
        }
    } else {
        CLV_TRY(clv_image_create(ctx, w, h, 1, CLV_F32, &ws->f0));
        CLV_TRY(clv_image_create(ctx, w, h, 1, CLV_F32, &ws->f1));
        CLV_TRY(clv_image_create(ctx, w, h, 1, CLV_F32, &ws->blur));
    }
    cl_mem *bufs[4] = {&ws->r0, &ws->r1, &ws->m, &ws->t};
    for (int i = 0; i < 4; i++) {
        cl_int err;
        *bufs[i] = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
        CLV_CHECK_CL(ctx, err, OP, "clCreateBuffer(farneback workspace)");
    }
    *out = ws;
out:
    if (status != CLV_OK) {
        ws_free(ctx->ws[CLV__WS_FARNEBACK]);
        ctx->ws[CLV__WS_FARNEBACK] = NULL;
    }
    return status;
}

/* OpenCV's FarnebackPrepareGaussian: the 1-D weights g, x g, x^2 g (stored as
 * float, as OpenCV does, and used as such for the inverse) and four entries
 * of the inverse of the 6x6 basis Gram matrix. */
typedef struct fb_poly {
    float g[8], xg[8], xxg[8]; /* index 0..n */
    double ig11, ig03, ig33, ig55;
} fb_poly;

static void prepare_poly(int n, double sigma, fb_poly *pp)
{
    if (sigma < 1.1920928955078125e-07)
        sigma = n * 0.3;
    float gf[2 * 8 + 1];
    double s = 0.0;
    for (int x = -n; x <= n; x++) {
        gf[x + n] = (float)exp(-x * x / (2 * sigma * sigma));
        s += gf[x + n];
    }
    s = 1.0 / s;
    for (int x = -n; x <= n; x++)
        gf[x + n] = (float)(gf[x + n] * s);
    for (int x = 0; x <= n; x++) {
        pp->g[x] = gf[x + n];
        pp->xg[x] = (float)(x * gf[x + n]);
        pp->xxg[x] = (float)(x * x * gf[x + n]);
    }
    /* G = sum over the window of basis products; only these entries differ */
    double g00 = 0, g11 = 0, g33 = 0, g55 = 0;
    for (int y = -n; y <= n; y++)
        for (int x = -n; x <= n; x++) {
            double gy = gf[y + n], gx = gf[x + n];
            g00 += gy * gx;
            g11 += gy * gx * x * x;
            g33 += gy * gx * x * x * x * x;
            g55 += gy * gx * x * x * y * y;
        }
    /* G (order 1, x, y, x^2, y^2, xy):
     *   [g00 .   .   g11 g11 .  ]   [1,1]=[2,2]=g11, [3,3]=[4,4]=g33,
     *   [.   g11 .   .   .   .  ]   [3,4]=[4,3]=[5,5]=g55
     * Its inverse: the 1x1 blocks invert directly; the {0,3,4} block
     * [[g00, g11, g11], [g11, g33, g55], [g11, g55, g33]] is inverted by
     * cofactors (it is symmetric positive definite). */
    pp->ig11 = 1.0 / g11;
    pp->ig55 = 1.0 / g55;
    const double a = g00, b = g11, c = g33, d = g55;
    const double det = a * (c * c - d * d) - b * (b * c - b * d) + b * (b * d - c * b);
    pp->ig03 = (b * d - b * c) / det; /* cofactor(0,3) / det */
    pp->ig33 = (a * c - b * b) / det; /* cofactor(3,3) / det */
}

/* Averaging weights for the flow update: box (all 1/winsize) or OpenCV's
 * Gaussian (sigma = (winsize/2) * 0.3). */
static void window_weights(const clv_farneback_params *p, float *w, int *m)
{
    const int r = p->winsize / 2;
    *m = r;
    if (!p->gaussian_window) {
        for (int i = 0; i <= 2 * r; i++)
            w[i] = 1.0f / (float)p->winsize;
        return;
    }
    const double sigma = r * 0.3;
    double s = 1.0, k[128];
    k[0] = 1.0;
    for (int i = 1; i <= r; i++) {
        k[i] = (float)exp(-i * i / (2 * sigma * sigma));
        s += k[i] * 2;
    }
    for (int i = -r; i <= r; i++)
        w[i + r] = (float)(k[i < 0 ? -i : i] / s);
}

/* Tile and work-group sizes of the Farneback kernels, defined here only (the
 * place a per-device tuning table would fill) and passed to farneback.cl as
 * -D: fb_poly_fused's work-group starts at poly_pw x poly_ph and is fitted to
 * the device (FB_PW x FB_PH); its tile has a pn_max halo (FB_PN_MAX: at least
 * the largest poly_n, which check_params limits to 7); fb_blur_v and
 * fb_blur_solve make blur_rows rows per work-item (FB_ROWS); fb_blur_solve's
 * work-group starts at solve_lw x solve_lh and is fitted to the device and
 * the window (fit_solve_group). */
typedef struct fb_tile {
    size_t poly_pw, poly_ph;   /* FB_PW x FB_PH before fitting */
    int pn_max;                /* FB_PN_MAX */
    int blur_rows;             /* FB_ROWS */
    size_t solve_lw, solve_lh; /* fb_blur_solve's work-group before fitting */
} fb_tile;
static const fb_tile fb_tile_default = {32, 8, 7, 4, 32, 8};

/* Local memory of fb_blur_solve's vertical sums for an lw x lh work-group
 * and window half-width m (cl/farneback.cl: 5 planes of
 * lh * FB_ROWS x (lw + 2m) floats). */
static size_t solve_tile_bytes(size_t lw, size_t lh, int m)
{
    return 5 * lh * (size_t)fb_tile_default.blur_rows * (lw + 2 * (size_t)m) * sizeof(float);
}

/* fb_blur_solve's work-group: the tuning's (CLV_FB_BLUR=fused:WxH) or
 * solve_lw x solve_lh, rows halved and then columns until it fits the
 * kernel's work-group limit, the device's work-item sizes and the
 * local-memory budget; 0 when not even 1 x 1 fits (the two passes run
 * then). */
static int fit_solve_group(const clv_context *ctx, size_t max_wg, size_t budget, int m,
                           size_t *lw, size_t *lh)
{
    const int own = ctx->tune.fb_local[0] > 0;
    *lw = own ? ctx->tune.fb_local[0] : fb_tile_default.solve_lw;
    *lh = own ? ctx->tune.fb_local[1] : fb_tile_default.solve_lh;
    while (*lw * *lh > max_wg || *lw > ctx->info.max_work_item_sizes[0] ||
           *lh > ctx->info.max_work_item_sizes[1] || solve_tile_bytes(*lw, *lh, m) > budget) {
        if (*lh > 1)
            *lh /= 2;
        else if (*lw > 1)
            *lw /= 2;
        else
            return 0;
    }
    return 1;
}

/* Local memory of fb_poly_fused's tile for FB_PW x FB_PH (cl/farneback.cl:
 * the staged tile with an FB_PN_MAX halo and the three row-sum planes). */
static size_t poly_tile_bytes(size_t pw, size_t ph)
{
    const size_t n = (size_t)fb_tile_default.pn_max;
    return ((ph + 2 * n) * (pw + 2 * n) + 3 * ph * (pw + 2 * n)) * sizeof(float);
}

/* Halve (*pw, *ph), rows first, until the group fits max_wg items and the
 * device's work-item sizes and the tile fits local memory; stops at 1 x 1. */
static clv_status fit_poly_tile(clv_context *ctx, size_t max_wg, size_t *pw, size_t *ph)
{
    while (*pw * *ph > max_wg || *pw > ctx->info.max_work_item_sizes[0] ||
           *ph > ctx->info.max_work_item_sizes[1] ||
           poly_tile_bytes(*pw, *ph) > ctx->info.local_mem_size) {
        if (*ph > 1)
            *ph /= 2;
        else if (*pw > 1)
            *pw /= 2;
        else
            break;
    }
    if (poly_tile_bytes(*pw, *ph) > ctx->info.local_mem_size)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                         "needs %zu bytes of local memory, device offers %llu",
                         poly_tile_bytes(*pw, *ph), (unsigned long long)ctx->info.local_mem_size);
    return CLV_OK;
}

/* The parameter struct from the descriptor's values a[3..10]. */
static clv_farneback_params params_of(const clv_arg *a)
{
    clv_farneback_params p;
    p.pyr_scale = a[3].v.d;
    p.levels = a[4].v.i;
    p.winsize = a[5].v.i;
    p.iterations = a[6].v.i;
    p.poly_n = a[7].v.i;
    p.poly_sigma = a[8].v.d;
    p.gaussian_window = a[9].v.i;
    p.use_initial_flow = a[10].v.i;
    return p;
}

static clv_status farneback_run(clv_context *ctx, const clv_arg *a)
{
    clv_status status = CLV_OK;
    const clv_image *prev = a[0].v.p, *next = a[1].v.p;
    clv_image *flow = a[2].v.p;
    const clv_farneback_params p = params_of(a);

    const int vec = ctx->tune.vec == 16; /* CPU: 16-wide averaging passes */
    fb_ws *ws = NULL;
    CLV_TRY(get_ws(ctx, prev->width, prev->height, &p, !vec, &ws));

    const fb_tile *t = &fb_tile_default;
    char fmt[64], opts[200];
    clv__format_options(fmt, sizeof fmt, prev->type, 1);
    cl_kernel kconv = NULL, klb = NULL, klbr = NULL, klrows = NULL, klcols = NULL, kfup = NULL,
              kpoly = NULL, kpv, kph, kmat, kbv, kbh, kscale;
    /* fb_poly_fused's work-group and tile, FB_PW x FB_PH (-D): poly_pw x
     * poly_ph fitted to the device's limits, then to the built kernel's
     * (issue 13 #22). The tile size does not change any pixel's arithmetic. */
    size_t pw = t->poly_pw, ph = t->poly_ph, wg_lim = ctx->info.max_work_group_size;
    for (;;) {
        CLV_TRY(fit_poly_tile(ctx, wg_lim, &pw, &ph));
        snprintf(opts, sizeof opts, "%s%s -DFB_PW=%zu -DFB_PH=%zu -DFB_PN_MAX=%d -DFB_ROWS=%d",
                 fmt, vec ? " -DVEC=16" : "", pw, ph, t->pn_max, t->blur_rows);
        if (!ws->fused)
            break;
        size_t kwg = 0;
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_FARNEBACK, opts, "fb_poly_fused", &kpoly));
        CLV_TRY(clv__kernel_limits(ctx, OP, kpoly, &kwg, NULL));
        if (kwg >= pw * ph)
            break;
        if (pw * ph == 1)
            return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                             "the polynomial kernel allows no work-group on %s", ctx->info.name);
        wg_lim = kwg; /* below pw * ph: the next fit is smaller */
    }
    if (ws->fused) {
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_FARNEBACK, opts, "fb_level_blur", &klb));
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_FARNEBACK, opts, "fb_level_blur_resize", &klbr));
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_FARNEBACK, opts, "fb_flow_up", &kfup));
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_FARNEBACK, opts, "fb_level_rows", &klrows));
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_FARNEBACK, opts, "fb_level_cols", &klcols));
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_FARNEBACK, opts, "fb_poly_fused", &kpoly));
    } else {
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_FARNEBACK, opts, "fb_convert", &kconv));
    }
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_FARNEBACK, opts, vec ? "fb_poly_v_vec" : "fb_poly_v",
                            &kpv));
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_FARNEBACK, opts, vec ? "fb_poly_h_vec" : "fb_poly_h",
                            &kph));
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_FARNEBACK, opts,
                            vec ? "fb_update_matrices_vec" : "fb_update_matrices", &kmat));
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_FARNEBACK, opts, vec ? "fb_blur_v_vec" : "fb_blur_v",
                            &kbv));
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_FARNEBACK, opts,
                            vec ? "fb_blur_h_solve_vec" : "fb_blur_h_solve", &kbh));
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_FARNEBACK, opts, "fb_scale_flow", &kscale));
    /* the averaging in one launch where the tuning asks for it and its tile
     * fits; else (and on CPUs) the two passes */
    cl_kernel ksolve = NULL;
    size_t slw = 0, slh = 0;
    float win[256];
    int m;
    window_weights(&p, win, &m);
    if (!vec && ctx->tune.fb_fused) {
        size_t kwg = 0, local_free = 0;
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_FARNEBACK, opts, "fb_blur_solve", &ksolve));
        CLV_TRY(clv__kernel_limits(ctx, OP, ksolve, &kwg, &local_free));
        const size_t budget = local_free < CLV_LOCAL_BUDGET_MAX ? local_free : CLV_LOCAL_BUDGET_MAX;
        if (!fit_solve_group(ctx, kwg, budget, m, &slw, &slh))
            ksolve = NULL;
    }

    /* polynomial basis weights and the averaging window, cached by value */
    fb_poly pp;
    memset(&pp, 0, sizeof pp);
    prepare_poly(p.poly_n, p.poly_sigma, &pp);
    cl_mem gbuf, xgbuf, xxgbuf, wbuf;
    CLV_TRY(clv__param_store_if_new(ctx, OP, CLV__PARAM_FB_G, pp.g, sizeof pp.g, &gbuf));
    CLV_TRY(clv__param_store_if_new(ctx, OP, CLV__PARAM_FB_XG, pp.xg, sizeof pp.xg, &xgbuf));
    CLV_TRY(clv__param_store_if_new(ctx, OP, CLV__PARAM_FB_XXG, pp.xxg, sizeof pp.xxg, &xxgbuf));
    const int win_key[2] = {p.winsize, p.gaussian_window};
    if (!clv__param_lookup(ctx, CLV__PARAM_FB_WIN, win_key, sizeof win_key, &wbuf))
        CLV_TRY(clv__param_store(ctx, OP, CLV__PARAM_FB_WIN, win_key, sizeof win_key, win,
                                 (size_t)(2 * m + 1) * sizeof(float), &wbuf));
    const int n = p.poly_n;
    const float ig11 = (float)pp.ig11, ig03 = (float)pp.ig03, ig33 = (float)pp.ig33,
                ig55 = (float)pp.ig55;

    /* inputs to f32 */
    const int W = prev->width, H = prev->height;
    const size_t gfull[2] = {(size_t)W, (size_t)H};
    const clv_image *in[2] = {prev, next};
    clv_image *fin[2] = {ws->f0, ws->f1};
    for (int i = 0; i < 2 && !ws->fused; i++) {
        const int sp = clv__pitch(in[i]);
        const int dp = clv__pitch(fin[i]);
        CLV_TRY(CLV_LAUNCH(ctx, OP, kconv, 2, gfull, NULL, CLV_ARG(in[i]->mem), CLV_ARG(sp),
                           CLV_ARG(W), CLV_ARG(H), CLV_ARG(fin[i]->mem), CLV_ARG(dp)));
    }

    const clv_image *prev_flow = NULL;
    for (int k = ws->nlev; k >= 0; k--) {
        fb_level *l = &ws->lv[k];
        clv_image *fl = k == 0 ? flow : l->flow;
        const int w = l->w, h = l->h;
        const size_t g[2] = {(size_t)w, (size_t)h};
        const size_t gpoly[2] = {vec ? ((size_t)w + 15) / 16 : (size_t)w, (size_t)h};
        const int fp = clv__pitch(fl);
        const int pp = (w + 15) / 16 * 16; /* planar pitch of this level */

        /* flow initialisation */
        if (prev_flow && ws->fused) {
            const float factor = (float)(1.0 / p.pyr_scale);
            const int sp = clv__pitch(prev_flow);
            const int sw = ws->lv[k + 1].w, sh = ws->lv[k + 1].h;
            CLV_TRY(CLV_LAUNCH(ctx, OP, kfup, 2, g, NULL, CLV_ARG(prev_flow->mem), CLV_ARG(sp),
                               CLV_ARG(sw), CLV_ARG(sh), CLV_ARG(fl->mem), CLV_ARG(fp), CLV_ARG(w),
                               CLV_ARG(h), CLV_ARG(l->ftab), CLV_ARG(factor)));
        } else if (prev_flow) {
            CLV_TRY(clv__resize(ctx, prev_flow, fl));
            const float factor = (float)(1.0 / p.pyr_scale);
            CLV_TRY(CLV_LAUNCH(ctx, OP, kscale, 2, g, NULL, CLV_ARG(fl->mem), CLV_ARG(fp),
                               CLV_ARG(w), CLV_ARG(h), CLV_ARG(factor)));
        } else if (p.use_initial_flow) {
            if (k > 0)
                CLV_TRY(clv__resize(ctx, flow, fl));
            const float factor = (float)l->scale;
            CLV_TRY(CLV_LAUNCH(ctx, OP, kscale, 2, g, NULL, CLV_ARG(fl->mem), CLV_ARG(fp),
                               CLV_ARG(w), CLV_ARG(h), CLV_ARG(factor)));
        } else {
            const float zero = 0.0f;
            CLV_CHECK_CL(ctx, clEnqueueFillBuffer(ctx->queue, fl->mem, &zero, sizeof zero, 0,
                                                  fl->pitch * (size_t)h, 0, NULL, NULL),
                         OP, "clEnqueueFillBuffer(flow)");
        }

        /* level images and their polynomial expansions */
        cl_mem rr[2] = {ws->r0, ws->r1};
        clv_image *li[2] = {l->i0, l->i1};
        if (ws->fused) {
            /* both frames' level images in one launch, from the inputs */
            const size_t g3[3] = {(size_t)w, (size_t)h, 2};
            const int sp = clv__pitch(prev), ip = clv__pitch(li[0]);
            const int r = l->ksize / 2;
            if (k == 0)
                CLV_TRY(CLV_LAUNCH(ctx, OP, klb, 3, g3, NULL, CLV_ARG(prev->mem),
                                   CLV_ARG(next->mem), CLV_ARG(sp), CLV_ARG(w), CLV_ARG(h),
                                   CLV_ARG(li[0]->mem), CLV_ARG(li[1]->mem), CLV_ARG(ip),
                                   CLV_ARG(l->wt), CLV_ARG(r)));
            else if (r >= 2) {
                /* wide blurs: two passes keep each work-item's loop short */
                const size_t g3r[3] = {(size_t)w, (size_t)H, 2};
                CLV_TRY(CLV_LAUNCH(ctx, OP, klrows, 3, g3r, NULL, CLV_ARG(prev->mem),
                                   CLV_ARG(next->mem), CLV_ARG(sp), CLV_ARG(W), CLV_ARG(H),
                                   CLV_ARG(ws->lt), CLV_ARG(w), CLV_ARG(l->tab), CLV_ARG(l->wt),
                                   CLV_ARG(r)));
                CLV_TRY(CLV_LAUNCH(ctx, OP, klcols, 3, g3, NULL, CLV_ARG(ws->lt), CLV_ARG(H),
                                   CLV_ARG(li[0]->mem), CLV_ARG(li[1]->mem), CLV_ARG(ip),
                                   CLV_ARG(w), CLV_ARG(h), CLV_ARG(l->tab), CLV_ARG(l->wt),
                                   CLV_ARG(r)));
            } else
                CLV_TRY(CLV_LAUNCH(ctx, OP, klbr, 3, g3, NULL, CLV_ARG(prev->mem),
                                   CLV_ARG(next->mem), CLV_ARG(sp), CLV_ARG(W), CLV_ARG(H),
                                   CLV_ARG(li[0]->mem), CLV_ARG(li[1]->mem), CLV_ARG(ip),
                                   CLV_ARG(w), CLV_ARG(h), CLV_ARG(l->tab), CLV_ARG(l->wt),
                                   CLV_ARG(r)));
        }
        for (int i = 0; i < 2; i++) {
            const double sig = k == 0 ? FB_LEVEL0_SIGMA : l->sigma;
            if (ws->fused) {
                /* made above */
            } else if (k == 0) {
                CLV_TRY(clv__gaussian_blur(ctx, fin[i], li[i], sig, sig, 3, 3,
                                           CLV_BORDER_REFLECT101));
            } else {
                CLV_TRY(clv__gaussian_blur(ctx, fin[i], ws->blur, sig, sig, l->ksize, l->ksize,
                                           CLV_BORDER_REFLECT101));
                CLV_TRY(clv__resize(ctx, ws->blur, li[i]));
            }
            if (ws->fused)
                continue; /* both frames' expansions below, in one launch */
            const int ip = clv__pitch(li[i]);
            CLV_TRY(CLV_LAUNCH(ctx, OP, kpv, 2, gpoly, NULL, CLV_ARG(li[i]->mem), CLV_ARG(ip),
                               CLV_ARG(w), CLV_ARG(h), CLV_ARG(gbuf), CLV_ARG(xgbuf),
                               CLV_ARG(xxgbuf), CLV_ARG(n), CLV_ARG(ws->t), CLV_ARG(pp)));
            CLV_TRY(CLV_LAUNCH(ctx, OP, kph, 2, gpoly, NULL, CLV_ARG(ws->t), CLV_ARG(w), CLV_ARG(h),
                               CLV_ARG(pp), CLV_ARG(gbuf), CLV_ARG(xgbuf), CLV_ARG(xxgbuf), CLV_ARG(n),
                               CLV_ARG(ig11), CLV_ARG(ig03), CLV_ARG(ig33), CLV_ARG(ig55),
                               CLV_ARG(rr[i])));
        }

        if (ws->fused) {
            /* work-group exactly FB_PW x FB_PH, as the kernel requires */
            const size_t lp[3] = {pw, ph, 1};
            const size_t gp[3] = {((size_t)w + pw - 1) / pw * pw, ((size_t)h + ph - 1) / ph * ph,
                                  2};
            const int ip = clv__pitch(li[0]);
            CLV_TRY(CLV_LAUNCH(ctx, OP, kpoly, 3, gp, lp, CLV_ARG(li[0]->mem), CLV_ARG(li[1]->mem),
                               CLV_ARG(ip), CLV_ARG(w), CLV_ARG(h), CLV_ARG(gbuf), CLV_ARG(xgbuf),
                               CLV_ARG(xxgbuf), CLV_ARG(n), CLV_ARG(ig11), CLV_ARG(ig03),
                               CLV_ARG(ig33), CLV_ARG(ig55), CLV_ARG(pp), CLV_ARG(ws->r0),
                               CLV_ARG(ws->r1)));
        }
        const size_t gm[2] = {vec ? ((size_t)w + 15) / 16 : (size_t)w, (size_t)h};
        CLV_TRY(CLV_LAUNCH(ctx, OP, kmat, 2, gm, NULL, CLV_ARG(ws->r0), CLV_ARG(ws->r1),
                           CLV_ARG(fl->mem), CLV_ARG(fp), CLV_ARG(w), CLV_ARG(h), CLV_ARG(pp),
                           CLV_ARG(ws->m)));
        const size_t gv[2] = {vec ? ((size_t)w + 15) / 16 : (size_t)w, (size_t)h};
        /* fb_blur_v: FB_ROWS rows per work-item */
        const size_t rows = (size_t)t->blur_rows;
        const size_t gbv[2] = {gv[0], vec ? (size_t)h : ((size_t)h + rows - 1) / rows};
        if (ksolve) {
            /* the system alternates between m and t: a work-group's next
             * system must not overwrite rows its neighbours still read */
            const size_t th = slh * rows;
            const size_t ls[2] = {slw, slh};
            const size_t gs[2] = {((size_t)w + slw - 1) / slw * slw,
                                  ((size_t)h + th - 1) / th * slh};
            for (int it = 0; it < p.iterations; it++) {
                const int update = it < p.iterations - 1;
                cl_mem from = it % 2 ? ws->t : ws->m, to = it % 2 ? ws->m : ws->t;
                CLV_TRY(CLV_LAUNCH(ctx, OP, ksolve, 2, gs, ls, CLV_ARG(from), CLV_ARG(w),
                                   CLV_ARG(h), CLV_ARG(pp), CLV_ARG(wbuf), CLV_ARG(m),
                                   CLV_ARG(fl->mem), CLV_ARG(fp), CLV_ARG(update),
                                   CLV_ARG(ws->r0), CLV_ARG(ws->r1), CLV_ARG(to),
                                   CLV_LOCAL(solve_tile_bytes(slw, slh, m))));
            }
        } else {
            for (int it = 0; it < p.iterations; it++) {
                const int update = it < p.iterations - 1;
                CLV_TRY(CLV_LAUNCH(ctx, OP, kbv, 2, gbv, NULL, CLV_ARG(ws->m), CLV_ARG(w),
                                   CLV_ARG(h), CLV_ARG(pp), CLV_ARG(wbuf), CLV_ARG(m),
                                   CLV_ARG(ws->t)));
                CLV_TRY(CLV_LAUNCH(ctx, OP, kbh, 2, gv, NULL, CLV_ARG(ws->t), CLV_ARG(w),
                                   CLV_ARG(h), CLV_ARG(pp), CLV_ARG(wbuf), CLV_ARG(m),
                                   CLV_ARG(fl->mem), CLV_ARG(fp), CLV_ARG(update),
                                   CLV_ARG(ws->r0), CLV_ARG(ws->r1), CLV_ARG(ws->m)));
            }
        }
        prev_flow = fl;
    }
out:
    return status;
}

static clv_status farneback_shape(clv__report *r, const clv_arg *a, int index, int *width,
                                  int *height, int *channels, clv_pixel_type *type)
{
    (void)index;
    const clv_image *prev = a[0].v.p;
    if (!prev)
        return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "flow's shape needs prev");
    *width = clv_image_width(prev);
    *height = clv_image_height(prev);
    *channels = 2;
    *type = CLV_F32;
    return CLV_OK;
}

static const clv_param_desc farneback_params[] = {
    CLV__P_IMAGE("prev", "previous",
                 "the first frame, gray: 1-channel u8 or f32 (f32 in 0..255 units, as OpenCV's "
                 "8-bit input; scale 0..1 data by 255)",
                 CLV_PARAM_INPUT, CLV_TYPES(CLV_U8) | CLV_TYPES(CLV_F32), CLV_CHANNELS(1), NULL,
                 0),
    CLV__P_IMAGE("next", "next", "the second frame, like prev (may be prev itself)",
                 CLV_PARAM_INPUT, CLV_TYPES(CLV_U8) | CLV_TYPES(CLV_F32), CLV_CHANNELS(1),
                 "prev", CLV_LIKE_ALL),
    CLV__P_IMAGE("flow", "flow",
                 "the flow from prev to next: f32, 2 channels (u, v) in px, prev's size; read "
                 "first as the initial estimate with use_initial_flow",
                 CLV_PARAM_OUTPUT, CLV_TYPES(CLV_F32), CLV_CHANNELS(2), "prev", CLV_LIKE_SIZE),
    CLV__P_DOUBLE("pyr_scale", "pyramid scale between levels", NULL, 0.0, 1.0,
                  CLV_PARAM_OPTIONAL | CLV_PARAM_MIN_OPEN | CLV_PARAM_MAX_OPEN, 0.5),
    CLV__P_INT("levels",
               "coarser pyramid levels: levels + 1 scales (1, s, .., s^levels), as OpenCV's "
               "code, while a side stays >= 32 px",
               NULL, 0, FB_MAX_LEVELS, CLV_PARAM_OPTIONAL, 3),
    CLV__P_INT("winsize", "averaging window side", "px", 3, FB_MAX_WINSIZE,
               CLV_PARAM_OPTIONAL | CLV_PARAM_ODD, 15),
    CLV__P_INT("iterations", "iterations per level", NULL, 1, FB_MAX_ITERATIONS,
               CLV_PARAM_OPTIONAL, 3),
    CLV__P_INT("poly_n", "neighbourhood of the polynomial expansion, 5 or 7", "px", 5, 7,
               CLV_PARAM_OPTIONAL | CLV_PARAM_ODD, 5),
    CLV__P_DOUBLE("poly_sigma",
                  "Gaussian sigma of the polynomial expansion (OpenCV advises 1.1 for poly_n 5, "
                  "1.5 for 7)",
                  "px", 0.0, FB_MAX_POLY_SIGMA,
                  CLV_PARAM_OPTIONAL | CLV_PARAM_MIN_OPEN | CLV_PARAM_MAX_OPEN, 1.2),
    {.name = "gaussian_window", .type = CLV_PARAM_BOOL,
     .flags = CLV_PARAM_INPUT | CLV_PARAM_OPTIONAL,
     .doc = "1: Gaussian averaging window (OPTFLOW_FARNEBACK_GAUSSIAN), 0: box", .max = 1,
     .def = 0, .cli_alias = "--gaussian"},
    CLV__P_BOOL("use_initial_flow", "1: flow holds the initial estimate", CLV_PARAM_OPTIONAL, 0),
};

const clv_op_desc clv__op_farneback = {
    .name = "farneback",
    .summary = "Farneback dense optical flow (OpenCV calcOpticalFlowFarneback)",
    .doc = "flow(x, y) = (u, v) with next(x + u, y + v) ~ prev(x, y), channel 0 = u, 1 = v, in "
           "pixels. Gray input only: convert colour first (the clv command line uses Rec. 709 "
           "luma). Results agree with OpenCV to about 1e-5 px.",
    .cli_name = "flow",
    .nparams = 11,
    .params = farneback_params,
    .run = farneback_run,
    .shape = farneback_shape,
};

CLV_API clv_status clv_farneback(clv_context *ctx, const clv_image *prev, const clv_image *next,
                                 clv_image *flow, const clv_farneback_params *params)
{
    const clv_farneback_params p = params ? *params : clv_farneback_params_default();
    const clv_arg a[] = {CLV__IMG(prev),          CLV__IMG(next),
                         CLV__IMG(flow),          CLV__DBL(p.pyr_scale),
                         CLV__INT(p.levels),      CLV__INT(p.winsize),
                         CLV__INT(p.iterations),  CLV__INT(p.poly_n),
                         CLV__DBL(p.poly_sigma),  CLV__INT(p.gaussian_window),
                         CLV__INT(p.use_initial_flow)};
    return clv__op_run(ctx, &clv__op_farneback, a);
}
