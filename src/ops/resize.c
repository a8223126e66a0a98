/* clvision — bilinear resize (OpenCV INTER_LINEAR convention). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/internal.h"

#define OP "resize"

/* Source index and weight for destination index d of dsize, from s pixels:
 * sx = (d + 0.5) * s / dsize - 0.5 = ((2d + 1) s - dsize) / (2 dsize),
 * floor and fraction taken exactly; outside the image the weight goes to the
 * edge pixel, as OpenCV does. */
static void coord(int d, int s, int dsize, int32_t *i0, float *a)
{
    const int64_t num = (int64_t)(2 * (int64_t)d + 1) * s - dsize;
    const int64_t den = 2 * (int64_t)dsize;
    int64_t q = num >= 0 ? num / den : -((-num + den - 1) / den);
    double frac = (double)(num - q * den) / (double)den;
    if (q < 0) {
        q = 0;
        frac = 0.0;
    }
    if (q >= s - 1) {
        q = s - 1;
        frac = 0.0;
    }
    *i0 = (int32_t)q;
    *a = (float)frac;
}

int32_t *clv__resize_table(int sw, int sh, int dw, int dh)
{
    const size_t n = 2 * ((size_t)dw + (size_t)dh);
    int32_t *tab = malloc(n * sizeof *tab);
    if (!tab)
        return NULL;
    for (int i = 0; i < dw; i++) {
        float a;
        coord(i, sw, dw, &tab[i], &a);
        memcpy(&tab[dw + i], &a, sizeof a);
    }
    for (int i = 0; i < dh; i++) {
        float a;
        coord(i, sh, dh, &tab[2 * dw + i], &a);
        memcpy(&tab[2 * dw + dh + i], &a, sizeof a);
    }
    return tab;
}

CLV_API clv_status clv_resize(clv_context *ctx, const clv_image *src, clv_image *dst)
{
    if (!ctx)
        return CLV_ERROR_INVALID_ARGUMENT;
    clv__op_begin(ctx);
    return clv__resize(ctx, src, dst);
}

clv_status clv__resize(clv_context *ctx, const clv_image *src, clv_image *dst)
{
    clv_status status = CLV_OK;
    int32_t *tab = NULL;
    CLV_TRY(clv__check_pair(ctx, OP, src, dst));
    char opts[160];
    clv__format_options(opts, sizeof opts, src->type, src->channels);
    const int vec = ctx->tune.vec;
    if (vec > 0) {
        size_t len = strlen(opts);
        snprintf(opts + len, sizeof opts - len, " -DVEC=%d", vec);
    }
    cl_kernel k;
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_RESIZE, opts,
                            vec > 0 ? "resize_bilinear_vec" : "resize_bilinear", &k));

    const int dw = dst->width, dh = dst->height;
    const int key[4] = {src->width, src->height, dw, dh};
    cl_mem tabmem;
    if (!clv__param_lookup(ctx, CLV__PARAM_RESIZE, key, sizeof key, &tabmem)) {
        tab = clv__resize_table(src->width, src->height, dw, dh);
        if (!tab)
            return clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, OP, "out of host memory");
        const size_t n = 2 * ((size_t)dw + (size_t)dh);
        CLV_TRY(clv__param_store(ctx, OP, CLV__PARAM_RESIZE, key, sizeof key, tab,
                                 n * sizeof *tab, &tabmem));
    }

    const int sp = clv__pitch(src), dp = clv__pitch(dst);
    const size_t per_item = vec > 0 ? (size_t)vec : 1;
    const size_t global[2] = {((size_t)dw + per_item - 1) / per_item, (size_t)dh};
    CLV_TRY(CLV_LAUNCH(ctx, OP, k, 2, global, NULL, CLV_ARG(src->mem), CLV_ARG(sp),
                       CLV_ARG(src->width), CLV_ARG(src->height), CLV_ARG(dst->mem), CLV_ARG(dp),
                       CLV_ARG(dw), CLV_ARG(dh), CLV_ARG(tabmem)));
out:
    free(tab);
    return status;
}
