/* clvision — bilinear resize (OpenCV INTER_LINEAR convention). */
#include "runtime/internal.h"

#define OP "resize"

CLV_API clv_status clv_resize(clv_context *ctx, const clv_image *src, clv_image *dst)
{
    clv_status status = CLV_OK;
    if (!ctx)
        return CLV_ERROR_INVALID_ARGUMENT;
    clv__op_begin(ctx);
    CLV_TRY(clv__check_pair(ctx, OP, src, dst));
    char opts[128];
    clv__format_options(opts, sizeof opts, src->type, src->channels);
    cl_kernel k;
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_RESIZE, opts, "resize_bilinear", &k));
    const int sp = (int)(src->pitch / src->elem_size), dp = (int)(dst->pitch / dst->elem_size);
    const size_t global[2] = {(size_t)dst->width, (size_t)dst->height};
    CLV_TRY(CLV_LAUNCH(ctx, OP, k, 2, global, NULL, CLV_ARG(src->mem), CLV_ARG(sp),
                       CLV_ARG(src->width), CLV_ARG(src->height), CLV_ARG(dst->mem), CLV_ARG(dp),
                       CLV_ARG(dst->width), CLV_ARG(dst->height)));
out:
    return status;
}
