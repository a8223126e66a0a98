/* clvision — geometric and linear filtering operations.
 *
 * All operations enqueue their kernels on the context's queue and return
 * without waiting; call clv_finish() (or download) to wait. Source and
 * destination must belong to the same context, have the same pixel type and
 * channel count, and must not be the same image. Pixel types u8, u16 and f32
 * with 1 to 4 channels, any size from 1x1. Failures return a status and
 * leave detail in clv_last_error(ctx).
 *
 * Non-finite f32 pixels (NaN, +-Inf) are not an error and never make an
 * operation fail, hang or access memory out of bounds; they propagate as
 * each operation says below. Finite input gives finite output, over the
 * whole f32 range (values up to FLT_MAX, e.g. a box mean of 1e38 or of
 * columns alternating +-3e38, within the f32 1e-4 relative tolerance).
 */
#ifndef CLVISION_FILTER_H
#define CLVISION_FILTER_H

#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Border modes, with OpenCV's meanings (| marks the image edge):
 *   REPLICATE   aaaaaa|abcdefgh|hhhhhhh
 *   REFLECT     fedcba|abcdefgh|hgfedcb
 *   REFLECT101  gfedcb|abcdefgh|gfedcba   (default)
 *   CONSTANT    000000|abcdefgh|0000000
 *   WRAP        cdefgh|abcdefgh|abcdefg
 * For a 1-pixel-wide image REFLECT101 repeats the single pixel. */
typedef enum clv_border {
    CLV_BORDER_REFLECT101 = 0,
    CLV_BORDER_REPLICATE  = 1,
    CLV_BORDER_REFLECT    = 2,
    CLV_BORDER_CONSTANT   = 3,
    CLV_BORDER_WRAP       = 4,
} clv_border;

/* Parse "replicate", "reflect", "reflect101", "constant", "wrap"
 * (case-insensitive). CLV_ERROR_INVALID_ARGUMENT for anything else. */
CLV_API clv_status clv_border_from_string(const char *name, clv_border *out);
/* Lower-case name of a border mode ("?" for an unknown value). */
CLV_API const char *clv_border_name(clv_border border);

/* dst(x, y) = src(y, x). dst must be height x width of src. Values are
 * copied bit for bit (NaN and Inf included). */
CLV_API clv_status clv_transpose(clv_context *ctx, const clv_image *src, clv_image *dst);

/* Bilinear resize of src to dst's size (any size, up or down), OpenCV
 * INTER_LINEAR convention: pixel centres are aligned, so source coordinate
 * sx = (dx + 0.5) * src_w / dst_w - 0.5, clamped to the image.
 * NaN/Inf: an output whose 2x2 source neighbourhood holds a non-finite value
 * is non-finite, even where that value's weight is 0 (so resizing to the same
 * size spreads one to the pixels left of and above it); others are unaffected. */
CLV_API clv_status clv_resize(clv_context *ctx, const clv_image *src, clv_image *dst);

/* Largest box kernel side. */
#define CLV_BOX_MAX_KSIZE 255

/* Normalised box (mean) filter with a ksize_x by ksize_y window (each 1..255)
 * anchored at its centre: the window spans offsets -k/2 .. k-1-k/2 (integer
 * division), as OpenCV's default anchor, so an even window reaches one pixel
 * further back than forward. Cost per pixel does not grow with the window
 * (on CPUs, windows that reach at most 8 values left and right, e.g. 5 wide
 * with 3 or 4 channels or 17 with one, add their columns directly; wider ones
 * use running sums both ways).
 * src and dst have the same shape.
 * NaN/Inf: the sums are running sums, so a non-finite value poisons every
 * output whose window holds it and, as the sums never recover, possibly the
 * outputs after it along its row and column (to the right and below; how far
 * depends on the device's kernel variant). Outputs above and to the left of
 * its window are unaffected. Give finite f32 data. f32 values are scaled by
 * 1/(ksize_x ksize_y) as they enter the sums, so the sums are means and
 * stay finite for any finite input (up to FLT_MAX). */
CLV_API clv_status clv_box_filter(clv_context *ctx, const clv_image *src, clv_image *dst,
                                  int ksize_x, int ksize_y, clv_border border);

/* Largest Gaussian kernel side. */
#define CLV_GAUSSIAN_MAX_KSIZE 255

/* Separable Gaussian blur. sigma_x > 0; sigma_y <= 0 means sigma_y = sigma_x.
 * ksize_x/ksize_y: odd kernel sides up to 255, or 0 to use 2*ceil(3*sigma)+1.
 * Weights are normalised to sum 1. sigma_x must be finite and > 0 and
 * sigma_y finite (CLV_ERROR_INVALID_ARGUMENT otherwise); a sigma so small its
 * kernel is [0, 1, 0] leaves the image unchanged.
 * NaN/Inf: exactly the outputs whose kx x ky window holds a non-finite value
 * are non-finite; the others are unaffected.
 * GPU-style kernels stage tiles in local memory, shrunk to the device's
 * limits; where even a one-work-item tile (a ky-row column for the vertical
 * pass) does not fit, CLV_ERROR_UNSUPPORTED ("needs N bytes of local
 * memory"). */
CLV_API clv_status clv_gaussian_blur(clv_context *ctx, const clv_image *src, clv_image *dst,
                                     double sigma_x, double sigma_y, int ksize_x, int ksize_y,
                                     clv_border border);

/* 3x3 Sobel derivative of order dx in x and dy in y (each 0..2, dx + dy >= 1),
 * times scale, as OpenCV's Sobel(src, CV_32F, dx, dy, 3, scale, 0, border):
 * taps [1 2 1] (order 0), [-1 0 1] (1), [1 -2 1] (2) along each axis. dst:
 * f32 with src's size and channels; src u8, u16 or f32. */
CLV_API clv_status clv_sobel(clv_context *ctx, const clv_image *src, clv_image *dst, int dx,
                             int dy, double scale, clv_border border);

#ifdef __cplusplus
}
#endif

#endif
