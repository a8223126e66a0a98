/* clvision — colour and pixel-type conversions on the device.
 *
 * Channel order: clvision's image files are read as RGB(A) (clv_image_read
 * gives R, G, B[, A] in that order), and the operations that give colour a
 * meaning (the bilateral grid's colour path, tone mapping) take RGB. OpenCV
 * arrays (cv::imread, cv::Mat from a camera) are BGR: convert them with
 * CLV_COLOR_RGB2BGR first, or use the BGR codes below.
 *
 * Both operations enqueue and return (clv_finish or a download waits), take
 * any size from 1x1, refuse in-place calls, and leave detail in
 * clv_last_error(ctx) on failure (CLV_ERROR_INVALID_ARGUMENT for images of
 * the wrong shape for the code or of another context). Same thread-safety
 * rule as the context. */
#ifndef CLVISION_COLOR_H
#define CLVISION_COLOR_H

#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What clv_convert_color does; values pinned. Names follow OpenCV's
 * cv::COLOR_* codes, and the results are OpenCV's (see clv_convert_color).
 * Gray means one channel; "RGB" codes take R, G, B in that order, "BGR"
 * codes B, G, R. */
typedef enum clv_color_code {
    /* RGB(A) -> gray, Rec. 601 luma 0.299 R + 0.587 G + 0.114 B: source 3
     * or 4 channels (alpha ignored), destination 1 channel. OpenCV's
     * COLOR_RGB2GRAY and COLOR_RGBA2GRAY. */
    CLV_COLOR_RGB2GRAY = 0,
    /* The same from B, G, R[, A]: OpenCV's COLOR_BGR2GRAY and BGRA2GRAY. */
    CLV_COLOR_BGR2GRAY = 1,
    /* RGB(A) -> gray with Rec. 709 weights 0.2126 R + 0.7152 G + 0.0722 B
     * (the luminance of linear sRGB primaries; no OpenCV code). */
    CLV_COLOR_RGB2GRAY_709 = 2,
    CLV_COLOR_BGR2GRAY_709 = 3,
    /* gray -> R = G = B = the value: source 1 channel, destination 3.
     * OpenCV's COLOR_GRAY2RGB (= GRAY2BGR). */
    CLV_COLOR_GRAY2RGB = 4,
    /* gray -> RGBA with an opaque alpha (255, 65535 or 1.0): destination 4
     * channels. OpenCV's COLOR_GRAY2RGBA (= GRAY2BGRA). */
    CLV_COLOR_GRAY2RGBA = 5,
    /* Swap the first and third channels: 3 -> 3 channels, or 4 -> 4 with the
     * alpha kept. OpenCV's COLOR_RGB2BGR, BGR2RGB, RGBA2BGRA, BGRA2RGBA. */
    CLV_COLOR_RGB2BGR = 6,
    /* Drop the alpha channel: 4 -> 3 channels, order kept. OpenCV's
     * COLOR_RGBA2RGB (= BGRA2BGR). */
    CLV_COLOR_RGBA2RGB = 7,
    /* Add an opaque alpha: 3 -> 4 channels, order kept. OpenCV's
     * COLOR_RGB2RGBA (= BGR2BGRA). */
    CLV_COLOR_RGB2RGBA = 8,

    /* Aliases: the same conversion under OpenCV's other names. */
    CLV_COLOR_BGR2RGB = CLV_COLOR_RGB2BGR,
    CLV_COLOR_GRAY2BGR = CLV_COLOR_GRAY2RGB,
    CLV_COLOR_GRAY2BGRA = CLV_COLOR_GRAY2RGBA,
    CLV_COLOR_BGRA2BGR = CLV_COLOR_RGBA2RGB,
    CLV_COLOR_BGR2BGRA = CLV_COLOR_RGB2RGBA,
} clv_color_code;

/* Convert src's colours into dst by `code`. dst has src's size and pixel
 * type (u8, u16 or f32) and the channel count the code gives (above);
 * clv_op_output_shape("convert_color", ...) says it for a source. Source
 * channels the code does not take (1 for a *2GRAY code, 3 for RGBA2RGB,
 * ...) are CLV_ERROR_INVALID_ARGUMENT.
 *
 * Results equal OpenCV's cv::cvtColor (4.x) bit for bit, f32 gray to about
 * an ulp:
 *   - u8 and u16 gray, Rec. 601: OpenCV's fixed point,
 *     (9798 R + 19235 G + 3735 B + 16384) >> 15;
 *   - f32 gray, Rec. 601: fma(B, 0.114f, fma(G, 0.587f, R * 0.299f)) in
 *     single precision, OpenCV's vector loop on x86-64 with FMA. OpenCV
 *     itself is not the same everywhere: the last (width % vector width)
 *     pixels of each row take its scalar loop, which sums in another order,
 *     and CPUs without FMA round each step; those differ from this by about
 *     an ulp of the largest channel value;
 *   - Rec. 709 (no OpenCV code): u8 and u16 exactly rounded half up,
 *     (2126 R + 7152 G + 722 B + 5000) / 10000 in integers; f32
 *     fma(B, 0.0722f, fma(G, 0.7152f, R * 0.2126f));
 *   - the channel moves copy values bit for bit (NaN and Inf included).
 * NaN/Inf in f32 gray conversions propagate to that pixel only. */
CLV_API clv_status clv_convert_color(clv_context *ctx, const clv_image *src, clv_image *dst,
                                     clv_color_code code);

/* Convert src's pixel type into dst's: dst = saturate(src * scale), value by
 * value, as OpenCV's src.convertTo(dst, dst_type, scale): the product is
 * taken in single precision (float(src) * float(scale)); to an integer type
 * it is rounded to nearest with ties to even (cv::saturate_cast) and
 * clamped to 0..255 or 0..65535. dst has src's size and channel count (1 to
 * 4) and any of u8, u16, f32 (the same type too: a scaled copy). scale must
 * be finite (0 is allowed: all zeros); u8 -> f32 with scale 1/255 maps
 * 0..255 to 0..1, f32 -> u8 with 255 back.
 * NaN/Inf: to f32 they propagate (x * scale); to an integer type NaN gives
 * 0, +Inf the largest value and -Inf 0. Unlike OpenCV, whose int conversion
 * turns values beyond +-2^31 (and +-Inf) into 0, large finite values
 * saturate too (1e10 -> 255). */
CLV_API clv_status clv_convert_type(clv_context *ctx, const clv_image *src, clv_image *dst,
                                    double scale);

#ifdef __cplusplus
}
#endif

#endif
