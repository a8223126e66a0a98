/* clvision — edge-preserving filters: brute-force bilateral, bilateral grid
 * (Chen, Paris, Durand 2007) and local tone mapping on the grid (Durand and
 * Dorsey 2002).
 *
 * Like every operation these enqueue and return; clv_finish() waits. Images
 * belong to ctx; src and dst must be distinct. Failures return a status and
 * leave detail in clv_last_error(ctx).
 */
#ifndef CLVISION_EDGE_H
#define CLVISION_EDGE_H

#include "filter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest bilateral radius (window side 2*radius+1). */
#define CLV_BILATERAL_MAX_RADIUS 64

/* Brute-force bilateral filter, u8, u16 or f32 with 1 to 4 channels:
 *   out(p) = sum_q w(p,q) I(q) / sum_q w(p,q)
 *   w(p,q) = exp(-|p-q|^2 / (2 sigma_space^2) - ||I(p)-I(q)||^2 / (2 sigma_range^2))
 * over the disc |p-q|^2 <= radius^2 (OpenCV's bilateralFilter window); ||.||
 * is OpenCV's colour distance, the sum of the channels' absolute differences
 * (alpha included: OpenCV takes 1 or 3 channels). sigma_range is in
 * the image's units (0..255 for u8). radius <= 0 means ceil(3 sigma_space);
 * at most CLV_BILATERAL_MAX_RADIUS. Pixels outside the image follow the border
 * mode (CONSTANT: they are skipped, not treated as zeros). src and dst have
 * the same shape and type. sigma_space and sigma_range must be finite and
 * > 0 (CLV_ERROR_INVALID_ARGUMENT otherwise); any such sigma_range works
 * with any finite f32 data, values up to FLT_MAX included (the output stays
 * finite: values are scaled by a power of two before they are summed, and
 * the range term is computed as (d / sigma_range)^2). On CPU devices the
 * f32 kernels for 2 to 4 channels flush subnormal numbers to zero (for
 * speed), so there tiny data loses accuracy: below about 1e-32 in magnitude
 * the error can pass 1e-4 relative (products of small weights and scaled
 * values underflow), and data below about 1e-37 reads as 0.
 * NaN/Inf: exactly the outputs whose window holds a non-finite value (in any
 * channel) are non-finite; the others are unaffected. */
CLV_API clv_status clv_bilateral(clv_context *ctx, const clv_image *src, clv_image *dst,
                                 double sigma_space, double sigma_range, int radius,
                                 clv_border border);

/* Bilateral grid parameters. The grid has ceil((w-1)/s_s)+1 x ceil((h-1)/s_s)+1
 * x ceil(range/s_r)+1 cells (plus a margin for the blur), sized from the image
 * and these values at every call. */
typedef struct clv_grid_params {
    double s_s;        /* spatial sampling: pixels per cell, >= 1 (default 16) */
    double s_r;        /* range sampling: image units per cell, > 0 (default 25.5, i.e.
                          0.1 of the u8 range; for f32 images give it in their units) */
    double blur_sigma; /* Gaussian blur of the grid, in cells, along all three axes,
                          0..20 (default 1: close to a bilateral with sigma_space = s_s,
                          sigma_range = s_r); 0 disables the blur */
} clv_grid_params;

/* The defaults above. */
CLV_API clv_grid_params clv_grid_params_default(void);

/* Bilateral filter through the grid: splat (value, 1) into the downsampled
 * grid, blur it, slice with trilinear interpolation and divide. u8, u16 or
 * f32. 1 channel: the grid is built on the value itself. 3 or 4 channels: the
 * grid holds the colour channels plus a weight, and the range axis is the
 * pixel's luminance (Rec. 709 weights on the first three channels; a 4th
 * channel is filtered along). Channel order: R, G, B (OpenCV's BGR arrays:
 * swap them first with clv_convert_color(..., CLV_COLOR_RGB2BGR), color.h).
 * No border mode: nothing outside the image contributes. params NULL means defaults; out-of-range or non-finite
 * parameters are CLV_ERROR_INVALID_ARGUMENT.
 * NaN/Inf (f32): the range axis spans the edge values, so an image with an
 * infinite edge value (or none finite at all) is CLV_ERROR_INVALID_ARGUMENT.
 * A NaN value or edge is splatted into the lowest range cell of its grid
 * column: outputs up to about (3 blur_sigma + 2) s_s pixels from it may come
 * out NaN; farther ones are unaffected.
 * Finite f32 input gives finite output over the whole range (values and
 * edges up to +-FLT_MAX; f32 values are splatted times a power of two so no
 * cell sum overflows, and edges of -3e38 and 3e38 still fall in their own
 * cells). */
CLV_API clv_status clv_bilateral_grid(clv_context *ctx, const clv_image *src, clv_image *dst,
                                      const clv_grid_params *params);

/* Cross (joint) bilateral grid: values come from src, edges (the range axis)
 * from `edge`, a 1-channel image of the same size and any pixel type (its
 * units set s_r). */
CLV_API clv_status clv_bilateral_grid_cross(clv_context *ctx, const clv_image *src,
                                            const clv_image *edge, clv_image *dst,
                                            const clv_grid_params *params);

/* Local tone mapping parameters (Durand-Dorsey on the grid). Luminance is in
 * log2 units (stops). */
typedef struct clv_tonemap_params {
    double contrast;    /* stops the base layer's range is compressed to (0.1..30,
                           default 5) */
    double exposure;    /* stops added at the end (-30..30, default 0) */
    double saturation;  /* colour saturation, 1 keeps the input's (0..4, default 1) */
    double gamma;       /* output encoding: 0 = sRGB curve (default), else x^(1/gamma),
                           gamma in (0, 10] */
    double blend;       /* 0 = global compression of the whole log luminance,
                           1 = full local: base compressed, detail kept (default 1) */
    double sigma_space; /* base layer spatial sigma in pixels (grid s_s), 0..4096; 0 = 2%
                           of the image's larger side (default 0) */
    double sigma_range; /* base layer range sigma in stops (grid s_r), 0.01..64 (default
                           1.3, about 0.4 in log10 units as in Durand-Dorsey); below
                           64/4095 the grid would need over 4096 range cells: refused */
} clv_tonemap_params;

CLV_API clv_tonemap_params clv_tonemap_params_default(void);

/* Tone map a linear-light f32 RGB (3 or 4 channels; alpha ignored) HDR image
 * to u8 RGB (3 channels) of the same size, entirely on the device (no host
 * synchronisation). Channel order R, G, B in and out (BGR data: color.h).
 *   lum = 0.2126 R + 0.7152 G + 0.0722 B,  L = log2(max(lum, 2^-32))
 *   lo, hi = the 0.1 % and 99.9 % points of L (from a 1/32-stop histogram;
 *            hi - lo capped at 64 stops), a = contrast / (hi - lo)
 *   B = bilateral_grid(L) with s_s = sigma_space, s_r = sigma_range, blur 1,
 *       clamped to [lo, hi];  D = L - B
 *   L' = blend (a (B - hi) + D) + (1 - blend) (a (Lc - hi) + L - Lc)
 *        + exposure - 0.5,   Lc = clamp(L, lo, hi)
 *   out = encode(clamp(2^L' (rgb / lum)^saturation, 0, 1))
 * The brightest base maps half a stop below white, leaving room for detail.
 * Flat image (its 0.1 % and 99.9 % points in one 1/32-stop histogram bin,
 * e.g. a constant image): a would stretch that bin to `contrast` stops, so
 * instead the base maps to the middle of the compressed range,
 *   L' = -contrast / 2 + D + exposure - 0.5     (blend has no effect),
 * the same output for every value: a constant grey of any brightness gives
 * encode(2^(exposure - 0.5 - contrast / 2)), 99 with the defaults, and a
 * constant colour keeps its ratios to that luminance.
 * Input NaN and negative values are treated as 0 and +Inf as the largest
 * float, so every output pixel is defined (a NaN pixel comes out black, +Inf
 * white). params NULL means defaults; out-of-range parameters are
 * CLV_ERROR_INVALID_ARGUMENT. */
CLV_API clv_status clv_tonemap_local(clv_context *ctx, const clv_image *hdr, clv_image *out,
                                     const clv_tonemap_params *params);

#ifdef __cplusplus
}
#endif

#endif
