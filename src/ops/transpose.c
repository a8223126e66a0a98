/* clvision — transpose through local-memory tiles. */
#include <stdio.h>

#include "runtime/internal.h"

#define OP "transpose"

static clv_status transpose_run(clv_context *ctx, const clv_arg *a)
{
    clv_status status = CLV_OK;
    const clv_image *src = a[0].v.p;
    clv_image *dst = a[1].v.p;

    /* 32x32 tiles of up to float4 take 17 KiB of local memory: every
     * OpenCL 1.2 device has 32 KiB. Rows per group shrink to fit the kernel. */
    enum { TILE = 32 };
    char opts[256], fmt[64];
    clv__format_options(fmt, sizeof fmt, src->type, src->channels);
    const int sp = clv__pitch(src), dp = clv__pitch(dst);
    /* CPU: blocks of 16x16 without local memory (PoCL runs barriers as
     * loops); one work-item takes sb x sb pixels, block column by block
     * column. Pixels of 4 bytes (u8 x 4, f32 x 1) move as uints in 4x4
     * register transposes, u8 x 3 as uints unpacked from 12-byte windows;
     * one channel of u8/u16 uses 16 vector registers, u16 with channels
     * goes through private memory. 64x64 fills whole destination cache lines
     * for 1- and 3-byte pixels; for 4-byte pixels 32x32 measured a little
     * better (the 64x64 working set is all of L1). f32 with several
     * channels: the local-memory kernel measured faster on PoCL. */
    const int cpu_kernel =
        ctx->tune.vec > 0 && (src->channels == 1 || src->type != CLV_F32);
    if (cpu_kernel) {
        const int w4 = src->channels * src->elem_size == 4;
        const int sb = w4 ? 32 : 64;
        const char *name =
            w4 ? "transpose_w4" : src->channels == 1 ? "transpose_vec" : "transpose_vecn";
        /* Streaming stores (strip kernels: w4 and u8 x 3) from 4 MiB of
         * destination on; measured on PoCL (2-core EPYC, 32 MiB L3), device
         * ms plain -> streaming: f32 1920x1080 1.89 -> 0.83, 3840x2160 8.97
         * -> 5.42; u8 x 3 1920x1080 1.68 -> 0.96; but 640x480 f32 0.108 ->
         * 0.133 (small destinations stay in cache for whatever reads them
         * next), and 1280x720 mixed. */
        const int stream = (w4 || src->channels == 3) &&
                           (size_t)dst->pitch * (size_t)dst->height >= ((size_t)4 << 20);
        snprintf(opts, sizeof opts, "%s -DTILE=%d -DVEC=%d -DSB=%d%s%s", fmt, TILE, ctx->tune.vec,
                 sb, w4 ? " -DWORD4" : "", stream ? " -DSTREAM" : "");
        cl_kernel kv;
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_TRANSPOSE, opts, name, &kv));
        /* pitches in the kernel's element type (uint for w4) */
        const int ksp = w4 ? (int)(src->pitch / 4) : sp, kdp = w4 ? (int)(dst->pitch / 4) : dp;
        const size_t g[2] = {((size_t)src->width + sb - 1) / sb,
                             ((size_t)src->height + sb - 1) / sb};
        CLV_TRY(CLV_LAUNCH(ctx, OP, kv, 2, g, NULL, CLV_ARG(src->mem), CLV_ARG(ksp),
                           CLV_ARG(dst->mem), CLV_ARG(kdp), CLV_ARG(src->width),
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

static const clv_param_desc transpose_params[] = {
    CLV__P_IMAGE("src", "source", "the image, u8/u16/f32 with 1..4 channels", CLV_PARAM_INPUT,
                 CLV_TYPES_ALL, CLV_CHANNELS_1_4, NULL, 0),
    CLV__P_IMAGE("dst", "destination", "height x width of src, same type and channels",
                 CLV_PARAM_OUTPUT, 0, 0, "src",
                 CLV_LIKE_TYPE | CLV_LIKE_CHANNELS | CLV_LIKE_TRANSPOSED),
};

const clv_op_desc clv__op_transpose = {
    .name = "transpose",
    .summary = "swap rows and columns: dst(x, y) = src(y, x)",
    .nparams = 2,
    .params = transpose_params,
    .run = transpose_run,
};

CLV_API clv_status clv_transpose(clv_context *ctx, const clv_image *src, clv_image *dst)
{
    const clv_arg a[] = {CLV__IMG(src), CLV__IMG(dst)};
    return clv__op_run(ctx, &clv__op_transpose, a);
}
