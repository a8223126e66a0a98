/* clvision — transpose through local-memory tiles. */
#include <stdio.h>

#include "runtime/internal.h"

#define OP "transpose"

CLV_API clv_status clv_transpose(clv_context *ctx, const clv_image *src, clv_image *dst)
{
    clv_status status = CLV_OK;
    if (!ctx)
        return CLV_ERROR_INVALID_ARGUMENT;
    clv__op_begin(ctx);
    CLV_TRY(clv__check_pair(ctx, OP, src, dst));
    if (dst->width != src->height || dst->height != src->width)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                         "destination is %dx%d, expected %dx%d", dst->width, dst->height,
                         src->height, src->width);

    /* 32x32 tiles of up to float4 take 17 KiB of local memory: every
     * OpenCL 1.2 device has 32 KiB. Rows per group shrink to fit the kernel. */
    enum { TILE = 32 };
    char opts[256], fmt[64];
    clv__format_options(fmt, sizeof fmt, src->type, src->channels);
    const int sp = clv__pitch(src), dp = clv__pitch(dst);
    if (ctx->tune.vec > 0 && src->channels == 1) {
        /* CPU, one channel: 16x16 register blocks */
        snprintf(opts, sizeof opts, "%s -DTILE=%d -DVEC=%d", fmt, TILE, ctx->tune.vec);
        cl_kernel kv;
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_TRANSPOSE, opts, "transpose_vec", &kv));
        const size_t g[2] = {((size_t)src->width + 15) / 16, ((size_t)src->height + 15) / 16};
        CLV_TRY(CLV_LAUNCH(ctx, OP, kv, 2, g, NULL, CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(dst->mem), CLV_ARG(dp), CLV_ARG(src->width),
                           CLV_ARG(src->height)));
        goto out;
    }
    snprintf(opts, sizeof opts, "%s -DTILE=%d", fmt, TILE);
    cl_kernel k;
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_TRANSPOSE, opts, "transpose", &k));
    size_t max_wg;
    CLV_TRY(clv__kernel_limits(ctx, OP, k, &max_wg, NULL));
    size_t rows = 8;
    while (rows > 1 && TILE * rows > max_wg)
        rows /= 2;
    if (TILE * rows > max_wg)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                         "device allows only %zu work-items per group for this kernel", max_wg);
    const size_t global[2] = {((size_t)src->width + TILE - 1) / TILE * TILE,
                              ((size_t)src->height + TILE - 1) / TILE * rows};
    const size_t local[2] = {TILE, rows};
    CLV_TRY(CLV_LAUNCH(ctx, OP, k, 2, global, local, CLV_ARG(src->mem), CLV_ARG(sp),
                       CLV_ARG(dst->mem), CLV_ARG(dp), CLV_ARG(src->width),
                       CLV_ARG(src->height)));
out:
    return status;
}
