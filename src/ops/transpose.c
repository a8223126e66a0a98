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
    /* CPU: blocks of 16x16 without local memory (PoCL runs barriers as
     * loops), in registers for one channel, in private memory for more; one
     * work-item takes sb x sb pixels. 64x64 fills whole destination cache
     * lines for u8 and u16; f32 rows are a cache line per 16 pixels already,
     * and taller blocks cost more than they save (measured on PoCL, like the
     * local-memory kernel winning for f32 with several channels). */
    const int cpu_kernel =
        ctx->tune.vec > 0 && (src->channels == 1 || src->type != CLV_F32);
    if (cpu_kernel) {
        const int sb = src->type == CLV_F32 ? 16 : 64;
        snprintf(opts, sizeof opts, "%s -DTILE=%d -DVEC=%d -DSB=%d", fmt, TILE, ctx->tune.vec,
                 sb);
        cl_kernel kv;
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_TRANSPOSE, opts,
                                src->channels == 1 ? "transpose_vec" : "transpose_vecn", &kv));
        const size_t g[2] = {((size_t)src->width + sb - 1) / sb,
                             ((size_t)src->height + sb - 1) / sb};
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
