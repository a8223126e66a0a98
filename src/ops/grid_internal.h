/* clvision — bilateral grid pieces shared by the grid filter and tone mapping. */
#ifndef CLV_GRID_INTERNAL_H
#define CLV_GRID_INTERNAL_H

#include "runtime/internal.h"

/* Largest range axis accepted. */
#define CLV__GRID_MAX_GD 4096

typedef struct clv__grid {
    int gw, gh, gd;      /* cells along x, y, range */
    int nc;              /* floats per cell: value channels + weight, padded to 2/4/8 */
    float s_s, inv_ss;   /* spatial sampling and its inverse */
    float inv_sr;        /* 1 / range sampling */
    float vk, ivk;       /* splat value scale (a power of two) and its inverse: 1 unless
                            set after clv__grid_plan (f32 values, see grid_splat) */
    cl_mem rng;          /* rng[0] = range offset (device) */
    cl_mem grid;         /* the blurred grid (context scratch) */
} clv__grid;

/* Fill g's geometry for a w x h image, nv value channels and gd range cells;
 * checks the grid fits the device. */
clv_status clv__grid_plan(clv_context *ctx, const char *op, int w, int h, int nv, double s_s,
                          double s_r, int gd, clv__grid *g) CLV_WUR;

/* Program options shared by the grid kernels: the caller's format and edge
 * macros plus the per-device ones (-DZC=..., -DCLV_POLY_MATH). */
void clv__grid_options(clv_context *ctx, const char *base, char *buf, size_t size);

/* Splat vals (and edges) into the grid and blur it by blur_sigma cells.
 * `options` come from clv__grid_options; g->rng must be set.
 * Uses scratch slots 2 and 3. */
clv_status clv__grid_build(clv_context *ctx, const char *op, const char *options, cl_mem vals,
                           int vpitch, cl_mem edge, int epitch, int w, int h, double blur_sigma,
                           clv__grid *g) CLV_WUR;

#endif
