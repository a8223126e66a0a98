/* clvision — normalised box filter, radius-independent running sums. */
#include <stdio.h>

#include "runtime/internal.h"

#define OP "box_filter"

static clv_status box_run(clv_context *ctx, const clv_arg *a)
{
    clv_status status = CLV_OK;
    const clv_image *src = a[0].v.p;
    clv_image *dst = a[1].v.p;
    const int ksize_x = a[2].v.i, ksize_y = a[3].v.i;
    const clv_border border = (clv_border)a[4].v.i;
    char opts[256];
    CLV_TRY(clv__filter_options(ctx, OP, src, border, opts, sizeof opts));
    const int w = src->width, h = src->height, cn = src->channels;
    const int ax = ksize_x / 2, ay = ksize_y / 2;
    const int sp = clv__pitch(src), dp = clv__pitch(dst);
    const float scale = 1.0f / (float)(ksize_x * ksize_y);
    /* f32 scales each value as it is loaded (see box.cl), so the two-pass
     * variant splits the scale: 1/kx in box_rows, 1/ky in box_cols. */
    const int f32 = src->type == CLV_F32;
    const float scale_x = f32 ? 1.0f / (float)ksize_x : 1.0f;
    const float scale_cols = f32 ? 1.0f / (float)ksize_y : scale;
    /* Columns: each work-item slides down `chunk_y` rows. */
    const int chunk_y = ksize_y < 16 ? 16 : ksize_y > 64 ? 64 : ksize_y;

    if (ctx->tune.vec == 16) {
        /* CPU: one pass by bands of full rows (box_band_vec): vertical
         * running sums of one row, kept in cache, and horizontal running
         * sums as a strided prefix sum inside each vector; a band starts
         * with ky rows of loads. 1920x1080 on PoCL (2 cores), 31x31,
         * device ms against the former two passes through a float image:
         * u8 x 3 12.2 -> 5.0, u8 x 1 3.1 -> 1.5, f32 4.5 -> 2.3. It also
         * beat the former fused kernel for narrow windows (box_fused_vec,
         * removed), 5x5: u8 x 1 2.1 -> 1.3, u8 x 3 5.8 -> 3.5, f32 4.0 ->
         * 2.8; 3x3 and 640x480 alike. */
        char vopts[300];
        snprintf(vopts, sizeof vopts, "%s -DVEC=16", opts);
        cl_kernel kb;
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_BOX, vopts, "box_band_vec", &kb));
        const int wpitch = (w * cn + 15) / 16 * 16;
        int bchunk;
        size_t nb;
        cl_mem work;
        CLV_TRY(clv__band_plan(ctx, OP, h, ksize_y, (size_t)wpitch, &bchunk, &nb, &work));
        const size_t gb[1] = {nb}, lb[1] = {1};
        CLV_TRY(CLV_LAUNCH(ctx, OP, kb, 1, gb, lb, CLV_ARG(src->mem), CLV_ARG(sp), CLV_ARG(w),
                           CLV_ARG(h), CLV_ARG(dst->mem), CLV_ARG(dp), CLV_ARG(ksize_x),
                           CLV_ARG(ksize_y), CLV_ARG(ax), CLV_ARG(ay), CLV_ARG(scale),
                           CLV_ARG(bchunk), CLV_ARG(work), CLV_ARG(wpitch)));
        goto out;
    }

    if (ksize_x <= 9 && ksize_y <= 9) {
        /* small windows: one pass through local memory (box_small; its
         * BS_LX x BS_LY = 32 x 8 groups, BS_MAXK = 9, and BS_PY rows per
         * work-item: 8 for one channel, else 1) */
        enum { LX = 32, LY = 8 };
        const size_t rows = (size_t)LY * (cn == 1 ? 8 : 1);
        cl_kernel ks;
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_BOX, opts, "box_small", &ks));
        size_t max_wg, local_free;
        CLV_TRY(clv__kernel_limits(ctx, OP, ks, &max_wg, &local_free));
        if (max_wg >= LX * LY) {
            const size_t g[2] = {((size_t)w + LX - 1) / LX * LX,
                                 ((size_t)h + rows - 1) / rows * LY};
            const size_t l[2] = {LX, LY};
            CLV_TRY(CLV_LAUNCH(ctx, OP, ks, 2, g, l, CLV_ARG(src->mem), CLV_ARG(sp), CLV_ARG(w),
                               CLV_ARG(h), CLV_ARG(dst->mem), CLV_ARG(dp), CLV_ARG(ksize_x),
                               CLV_ARG(ksize_y), CLV_ARG(scale)));
            goto out;
        }
        /* a device with smaller groups takes the two running-sum passes */
    }

    cl_kernel krows, kcols;
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_BOX, opts, "box_rows", &krows));
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_BOX, opts, "box_cols", &kcols));
    cl_mem sums;
    CLV_TRY(clv__scratch(ctx, OP, 0, (size_t)w * (size_t)h * (size_t)cn * sizeof(float), &sums));

    /* Rows: each work-item slides over `chunk` outputs; the group stages
     * lx*chunk + kx - 1 pixels. Longer chunks for wider windows keep the
     * per-pixel cost near 2 adds + kx/chunk. */
    size_t max_wg, local_free;
    CLV_TRY(clv__kernel_limits(ctx, OP, krows, &max_wg, &local_free));
    size_t budget = local_free < CLV_LOCAL_BUDGET_MAX ? local_free : CLV_LOCAL_BUDGET_MAX;
    int chunk_x = ksize_x <= 16 ? 8 : (ksize_x + 1) / 2 > 64 ? 64 : (ksize_x + 1) / 2;
    size_t lx = 64;
    while (lx > 1 && (lx > max_wg ||
                      (lx * (size_t)chunk_x + (size_t)ksize_x - 1) * (size_t)cn * sizeof(float) > budget))
        lx /= 2;
    size_t seg_bytes = (lx * (size_t)chunk_x + (size_t)ksize_x - 1) * (size_t)cn * sizeof(float);
    if (seg_bytes > budget)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                         "needs %zu bytes of local memory, device offers %zu", seg_bytes, budget);
    const size_t seg = lx * (size_t)chunk_x;
    const size_t g_rows[2] = {((size_t)w + seg - 1) / seg * lx, (size_t)h};
    const size_t l_rows[2] = {lx, 1};
    CLV_TRY(CLV_LAUNCH(ctx, OP, krows, 2, g_rows, l_rows, CLV_ARG(src->mem), CLV_ARG(sp),
                       CLV_ARG(w), CLV_ARG(h), CLV_ARG(sums), CLV_ARG(ksize_x), CLV_ARG(ax),
                       CLV_ARG(chunk_x), CLV_ARG(scale_x), CLV_LOCAL(seg_bytes)));
    const size_t g_cols[2] = {(size_t)w, ((size_t)h + (size_t)chunk_y - 1) / (size_t)chunk_y};
    CLV_TRY(CLV_LAUNCH(ctx, OP, kcols, 2, g_cols, NULL, CLV_ARG(sums), CLV_ARG(w), CLV_ARG(h),
                       CLV_ARG(dst->mem), CLV_ARG(dp), CLV_ARG(ksize_y), CLV_ARG(ay),
                       CLV_ARG(chunk_y), CLV_ARG(scale_cols)));
out:
    return status;
}

static const clv_param_desc box_params[] = {
    CLV__P_IMAGE("src", "source", "the image, u8/u16/f32 with 1..4 channels", CLV_PARAM_INPUT,
                 CLV_TYPES_ALL, CLV_CHANNELS_1_4, NULL, 0),
    CLV__P_IMAGE("dst", "destination", "the result, like src", CLV_PARAM_OUTPUT, 0, 0, "src",
                 CLV_LIKE_ALL),
    CLV__P_INT("ksize_x", "window width", "px", 1, CLV_BOX_MAX_KSIZE, 0, 3),
    CLV__P_INT("ksize_y", "window height", "px", 1, CLV_BOX_MAX_KSIZE, 0, 3),
    CLV__P_BORDER,
};

const clv_op_desc clv__op_box_filter = {
    .name = "box_filter",
    .summary = "normalised box (mean) filter over a ksize_x x ksize_y window at its centre",
    .cli_name = "box",
    .nparams = 5,
    .params = box_params,
    .run = box_run,
};

CLV_API clv_status clv_box_filter(clv_context *ctx, const clv_image *src, clv_image *dst,
                                  int ksize_x, int ksize_y, clv_border border)
{
    const clv_arg a[] = {CLV__IMG(src), CLV__IMG(dst), CLV__INT(ksize_x), CLV__INT(ksize_y),
                         CLV__INT((int)border)};
    return clv__op_run(ctx, &clv__op_box_filter, a);
}
