/* clvision — colour conversions (RGB/BGR <-> gray, channel order, alpha) and
 * pixel-type conversions (u8/u16/f32 with a scale), cl/color.cl. OpenCV's
 * cvtColor and convertTo arithmetic; clvision/color.h says exactly how. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <clvision/color.h>

#include "runtime/internal.h"

/* ---- the codes: what each takes and gives ---- */

typedef enum color_kind { K_TO_GRAY, K_FROM_GRAY, K_REORDER } color_kind;

typedef struct color_rule {
    const char *name; /* the descriptor's enum name */
    color_kind kind;
    int scn_a, scn_b; /* source channels accepted (scn_b 0: only scn_a) */
    int dcn;          /* destination channels; 0: the source's */
    int bidx;         /* TO_GRAY: 2 for R, G, B order, 0 for B, G, R */
    int w709;         /* TO_GRAY: Rec. 709 weights (else 601) */
    int swap;         /* REORDER: exchange channels 0 and 2 */
} color_rule;

/* Indexed by clv_color_code. */
static const color_rule rules[] = {
    [CLV_COLOR_RGB2GRAY] = {"rgb2gray", K_TO_GRAY, 3, 4, 1, 2, 0, 0},
    [CLV_COLOR_BGR2GRAY] = {"bgr2gray", K_TO_GRAY, 3, 4, 1, 0, 0, 0},
    [CLV_COLOR_RGB2GRAY_709] = {"rgb2gray_709", K_TO_GRAY, 3, 4, 1, 2, 1, 0},
    [CLV_COLOR_BGR2GRAY_709] = {"bgr2gray_709", K_TO_GRAY, 3, 4, 1, 0, 1, 0},
    [CLV_COLOR_GRAY2RGB] = {"gray2rgb", K_FROM_GRAY, 1, 0, 3, 0, 0, 0},
    [CLV_COLOR_GRAY2RGBA] = {"gray2rgba", K_FROM_GRAY, 1, 0, 4, 0, 0, 0},
    [CLV_COLOR_RGB2BGR] = {"rgb2bgr", K_REORDER, 3, 4, 0, 0, 0, 1},
    [CLV_COLOR_RGBA2RGB] = {"rgba2rgb", K_REORDER, 4, 0, 3, 0, 0, 0},
    [CLV_COLOR_RGB2RGBA] = {"rgb2rgba", K_REORDER, 3, 0, 4, 0, 0, 0},
};
enum { NCODES = (int)(sizeof rules / sizeof rules[0]) };

static const char *const code_names[NCODES] = {
    "rgb2gray", "bgr2gray", "rgb2gray_709", "bgr2gray_709", "gray2rgb",
    "gray2rgba", "rgb2bgr", "rgba2rgb", "rgb2rgba",
};
static const int code_values[NCODES] = {0, 1, 2, 3, 4, 5, 6, 7, 8};

/* "3 or 4 channels", "1 channel". */
static void channels_text(const color_rule *r, char *buf, size_t size)
{
    if (r->scn_b)
        snprintf(buf, size, "%d or %d channels", r->scn_a, r->scn_b);
    else
        snprintf(buf, size, "%d channel%s", r->scn_a, r->scn_a == 1 ? "" : "s");
}

/* The destination channels of code for a source of scn channels, or a
 * refusal naming both. The code is valid (the descriptor checked it). */
static clv_status color_dcn(clv__report *rep, int code, int scn, int *dcn)
{
    const color_rule *r = &rules[code];
    if (scn != r->scn_a && (r->scn_b == 0 || scn != r->scn_b)) {
        char want[32];
        channels_text(r, want, sizeof want);
        return clv__report_fail(rep, CLV_ERROR_INVALID_ARGUMENT,
                                "code %s takes a source of %s (got %d)", r->name, want, scn);
    }
    *dcn = r->dcn ? r->dcn : scn;
    return CLV_OK;
}

/* ---- clv_convert_color ---- */

/* -D word of a pixel type (valid: the descriptor checked it). */
static const char *type_word(clv_pixel_type t)
{
    return t == CLV_U8 ? "U8" : t == CLV_U16 ? "U16" : "F32";
}


#define OP_COLOR "convert_color"

static clv_status color_run(clv_context *ctx, const clv_arg *a)
{
    clv_status status = CLV_OK;
    const clv_image *src = a[0].v.p;
    clv_image *dst = a[1].v.p;
    const int code = a[2].v.i;
    const color_rule *r = &rules[code];
    clv__report rep = {ctx, &clv__op_convert_color, NULL, 0};
    int dcn = 0;
    CLV_TRY(color_dcn(&rep, code, src->channels, &dcn));
    if (dst->channels != dcn)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP_COLOR,
                         "code %s gives a destination of %d channel%s for this source (got %d)",
                         r->name, dcn, dcn == 1 ? "" : "s", dst->channels);

    char depth_opt[16], opts[192];
    snprintf(depth_opt, sizeof depth_opt, "-DDEPTH_%s", type_word(src->type));
    switch (r->kind) {
    case K_TO_GRAY:
        snprintf(opts, sizeof opts, "%s -DSCN=%d -DDCN=1 -DTO_GRAY -DBIDX=%d -DWEIGHTS_%s",
                 depth_opt, src->channels, r->bidx, r->w709 ? "709" : "601");
        break;
    case K_FROM_GRAY:
        snprintf(opts, sizeof opts, "%s -DSCN=1 -DDCN=%d -DFROM_GRAY", depth_opt, dcn);
        break;
    case K_REORDER:
        snprintf(opts, sizeof opts, "%s -DSCN=%d -DDCN=%d -DREORDER -DSWAP=%d", depth_opt,
                 src->channels, dcn, r->swap);
        break;
    }
    cl_kernel k;
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_COLOR, opts, "color_convert", &k));
    const int sp = clv__pitch(src), dp = clv__pitch(dst);
    const size_t global[2] = {(size_t)src->width, (size_t)src->height};
    CLV_TRY(CLV_LAUNCH(ctx, OP_COLOR, k, 2, global, NULL, CLV_ARG(src->mem), CLV_ARG(sp),
                       CLV_ARG(dst->mem), CLV_ARG(dp), CLV_ARG(src->width),
                       CLV_ARG(src->height)));
out:
    return status;
}

static clv_status color_shape(clv__report *r, const clv_arg *a, int index, int *width,
                              int *height, int *channels, clv_pixel_type *type)
{
    (void)index;
    const clv_image *src = a[0].v.p;
    if (!src)
        return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "dst's shape needs src");
    clv_status s = color_dcn(r, a[2].v.i, clv_image_channels(src), channels);
    if (s != CLV_OK)
        return s;
    *width = clv_image_width(src);
    *height = clv_image_height(src);
    *type = clv_image_type(src);
    return CLV_OK;
}

static const clv_param_desc color_params[] = {
    CLV__P_IMAGE("src", "source",
                 "the image, u8/u16/f32: 3 or 4 channels (R, G, B[, A], or B, G, R[, A] for "
                 "the bgr codes) to gray or to reorder, 1 channel from gray",
                 CLV_PARAM_INPUT, CLV_TYPES_ALL,
                 CLV_CHANNELS(1) | CLV_CHANNELS(3) | CLV_CHANNELS(4), NULL, 0),
    CLV__P_IMAGE("dst", "destination",
                 "the result: src's size and type, the channels the code gives",
                 CLV_PARAM_OUTPUT, CLV_TYPES_ALL,
                 CLV_CHANNELS(1) | CLV_CHANNELS(3) | CLV_CHANNELS(4), "src",
                 CLV_LIKE_SIZE | CLV_LIKE_TYPE),
    {.name = "code", .type = CLV_PARAM_ENUM, .flags = CLV_PARAM_INPUT,
     .doc = "the conversion, as OpenCV's COLOR_* codes: rgb2gray and bgr2gray (Rec. 601, "
            "OpenCV's), rgb2gray_709 and bgr2gray_709 (Rec. 709), gray2rgb, gray2rgba, "
            "rgb2bgr (= bgr2rgb, alpha kept), rgba2rgb (alpha dropped), rgb2rgba (alpha "
            "opaque)",
     .n_enum = NCODES, .enum_names = code_names, .enum_values = code_values},
};

const clv_op_desc clv__op_convert_color = {
    .name = "convert_color",
    .summary = "colour conversion as OpenCV's cvtColor: RGB/BGR to gray (Rec. 601 or 709), "
               "gray to RGB(A), R and B swapped, alpha added or dropped",
    .doc = "Channel order: clvision reads image files as RGB(A); OpenCV arrays are BGR(A). "
           "u8/u16 Rec. 601 gray is OpenCV's 15-bit fixed point, so results equal "
           "cv::cvtColor bit for bit.",
    .nparams = 3,
    .params = color_params,
    .run = color_run,
    .shape = color_shape,
};

CLV_API clv_status clv_convert_color(clv_context *ctx, const clv_image *src, clv_image *dst,
                                     clv_color_code code)
{
    const clv_arg a[] = {CLV__IMG(src), CLV__IMG(dst), CLV__INT((int)code)};
    return clv__op_run(ctx, &clv__op_convert_color, a);
}

/* ---- clv_convert_type ---- */

#define OP_TYPE "convert_type"

static clv_status type_run(clv_context *ctx, const clv_arg *a)
{
    clv_status status = CLV_OK;
    const clv_image *src = a[0].v.p;
    clv_image *dst = a[1].v.p;
    const double scale = a[2].v.d;
    /* the product is taken in single precision, as OpenCV's (the
     * descriptor keeps scale within the float range) */
    const float fscale = (float)scale;
    char opts[64];
    snprintf(opts, sizeof opts, "-DSRC_%s -DDST_%s", type_word(src->type),
             type_word(dst->type));
    cl_kernel k;
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_COLOR, opts, "convert_type", &k));
    const int sp = clv__pitch(src), dp = clv__pitch(dst);
    const int nvals = src->width * src->channels;
    const size_t global[2] = {(size_t)nvals, (size_t)src->height};
    CLV_TRY(CLV_LAUNCH(ctx, OP_TYPE, k, 2, global, NULL, CLV_ARG(src->mem), CLV_ARG(sp),
                       CLV_ARG(dst->mem), CLV_ARG(dp), CLV_ARG(nvals), CLV_ARG(src->height),
                       CLV_ARG(fscale)));
out:
    return status;
}

static const clv_param_desc type_params[] = {
    CLV__P_IMAGE("src", "source", "the image, u8/u16/f32 with 1..4 channels", CLV_PARAM_INPUT,
                 CLV_TYPES_ALL, CLV_CHANNELS_1_4, NULL, 0),
    CLV__P_IMAGE("dst", "destination",
                 "the result: src's size and channels, any type (its own picks the conversion)",
                 CLV_PARAM_OUTPUT, CLV_TYPES_ALL, CLV_CHANNELS_1_4, "src",
                 CLV_LIKE_SIZE | CLV_LIKE_CHANNELS),
    CLV__P_DOUBLE("scale", "factor applied before rounding: dst = saturate(src * scale)", NULL,
                  -(double)FLT_MAX, (double)FLT_MAX, CLV_PARAM_OPTIONAL, 1.0),
};

/* The destination's type is the caller's choice; as OpenCV's convertTo with
 * a negative rtype, the shape given here keeps src's. */
static clv_status type_shape(clv__report *r, const clv_arg *a, int index, int *width,
                             int *height, int *channels, clv_pixel_type *type)
{
    (void)index;
    const clv_image *src = a[0].v.p;
    if (!src)
        return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "dst's shape needs src");
    *width = clv_image_width(src);
    *height = clv_image_height(src);
    *channels = clv_image_channels(src);
    *type = clv_image_type(src);
    return CLV_OK;
}

const clv_op_desc clv__op_convert_type = {
    .name = "convert_type",
    .summary = "pixel type conversion as OpenCV's convertTo: dst = saturate(src * scale), "
               "ties to even",
    .doc = "dst's own type (u8, u16 or f32) picks the conversion; the shape clv_op_output_shape "
           "gives keeps src's type, as convertTo with a negative rtype.",
    .nparams = 3,
    .params = type_params,
    .run = type_run,
    .shape = type_shape,
};

CLV_API clv_status clv_convert_type(clv_context *ctx, const clv_image *src, clv_image *dst,
                                    double scale)
{
    const clv_arg a[] = {CLV__IMG(src), CLV__IMG(dst), CLV__DBL(scale)};
    return clv__op_run(ctx, &clv__op_convert_type, a);
}
