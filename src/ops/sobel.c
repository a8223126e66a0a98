/* clvision — 3x3 Sobel derivatives, as OpenCV's Sobel with ksize 3. */
#include <math.h>

#include "runtime/internal.h"

#define OP "sobel"

/* The 3 taps of a derivative of order 0 (smoothing), 1 or 2 along one axis. */
static const float taps[3][3] = {{1, 2, 1}, {-1, 0, 1}, {1, -2, 1}};

static clv_status sobel_check(clv__report *r, const clv_arg *a)
{
    if (a[2].v.i + a[3].v.i < 1)
        return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "dx + dy must be at least 1");
    return CLV_OK;
}

static clv_status sobel_run(clv_context *ctx, const clv_arg *a)
{
    clv_status status = CLV_OK;
    const clv_image *src = a[0].v.p;
    clv_image *dst = a[1].v.p;
    const float *kx = taps[a[2].v.i], *ky = taps[a[3].v.i];
    const float scale = (float)a[4].v.d;
    const int border = a[5].v.i;
    char opts[64];
    clv__format_options(opts, sizeof opts, src->type, src->channels);
    cl_kernel k;
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_SOBEL, opts, "sobel3", &k));
    const int sp = clv__pitch(src), dp = clv__pitch(dst);
    const size_t g[2] = {(size_t)src->width, (size_t)src->height};
    CLV_TRY(CLV_LAUNCH(ctx, OP, k, 2, g, NULL, CLV_ARG(src->mem), CLV_ARG(sp),
                       CLV_ARG(src->width), CLV_ARG(src->height), CLV_ARG(dst->mem),
                       CLV_ARG(dp), CLV_ARG(kx[0]), CLV_ARG(kx[1]),
                       CLV_ARG(kx[2]), CLV_ARG(ky[0]), CLV_ARG(ky[1]), CLV_ARG(ky[2]),
                       CLV_ARG(scale), CLV_ARG(border)));
out:
    return status;
}

static const clv_param_desc sobel_params[] = {
    CLV__P_IMAGE("src", "source", "the image", CLV_PARAM_INPUT, CLV_TYPES_ALL, CLV_CHANNELS_1_4,
                 NULL, 0),
    CLV__P_IMAGE("dst", "destination", "the derivative: src's size and channels, f32",
                 CLV_PARAM_OUTPUT, CLV_TYPES(CLV_F32), 0, "src",
                 CLV_LIKE_SIZE | CLV_LIKE_CHANNELS),
    CLV__P_INT("dx", "order of the derivative in x", NULL, 0, 2, CLV_PARAM_OPTIONAL, 1),
    CLV__P_INT("dy", "order of the derivative in y", NULL, 0, 2, CLV_PARAM_OPTIONAL, 0),
    CLV__P_DOUBLE("scale", "factor applied to the result", NULL, -HUGE_VAL, HUGE_VAL,
                  CLV_PARAM_OPTIONAL, 1.0),
    CLV__P_BORDER,
};

const clv_op_desc clv__op_sobel = {
    .name = "sobel",
    .summary = "3x3 Sobel derivative of order dx, dy (OpenCV's Sobel, ksize 3) as f32",
    .nparams = 6,
    .params = sobel_params,
    .run = sobel_run,
    .check = sobel_check,
};

CLV_API clv_status clv_sobel(clv_context *ctx, const clv_image *src, clv_image *dst, int dx,
                             int dy, double scale, clv_border border)
{
    const clv_arg a[] = {CLV__IMG(src), CLV__IMG(dst), CLV__INT(dx),
                         CLV__INT(dy),  CLV__DBL(scale), CLV__INT((int)border)};
    return clv__op_run(ctx, &clv__op_sobel, a);
}
