/* Plain C references for the clvision tests, plus the small device round-trip
 * helpers the op tests share.
 *
 * The references are written from the definitions, not for speed: they read
 * packed host images (rows of w*cn values, no padding), compute in double and
 * convert once at the end (u8/u16: round half up and saturate; f32: as is).
 * Border handling goes through ref_border_index() and nothing else.
 */
#ifndef CLV_TEST_REF_H
#define CLV_TEST_REF_H

#include <stddef.h>
#include <stdint.h>

#include <clvision/clvision.h>

/* ---- references --------------------------------------------------------- */

/* Index in [0, n) that position i (any integer, far outside too) reads under
 * border mode b, with OpenCV's meanings:
 *   REPLICATE   aaa|abcd|ddd      REFLECT   cba|abcd|dcb
 *   REFLECT101  dcb|abcd|cba      WRAP      bcd|abcd|abc
 *   CONSTANT    -1 outside, meaning the value 0.
 * REFLECT101 on n == 1 gives 0. Returns -1 for n < 1 or an unknown mode. */
int ref_border_index(int i, int n, clv_border b);

/* dst (h x w, cn channels) = src (w x h) transposed. */
void ref_transpose(const void *src, int w, int h, int cn, clv_pixel_type type, void *dst);

/* OpenCV INTER_LINEAR resize of src (sw x sh) into dst (dw x dh). */
void ref_resize_bilinear(const void *src, int sw, int sh, int cn, clv_pixel_type type, void *dst,
                         int dw, int dh);

/* Normalised box filter, window kx by ky, anchor k/2 (OpenCV's anchor -1):
 * dst(x) = mean of src(x - k/2 .. x - k/2 + k - 1). Separable, in double. */
void ref_box(const void *src, int w, int h, int cn, clv_pixel_type type, void *dst, int kx,
             int ky, clv_border border);

/* Kernel side used for ksize == 0: 2*ceil(3*sigma)+1. */
int ref_gaussian_default_ksize(double sigma);

/* Fills w[0..ksize) with exp(-(i-r)^2 / (2 sigma^2)), r = ksize/2, normalised
 * to sum 1. */
void ref_gaussian_kernel(double sigma, int ksize, double *w);

/* Separable Gaussian blur with the library's parameter rules: sigma_y <= 0
 * means sigma_x; a ksize of 0 means ref_gaussian_default_ksize(sigma). */
void ref_gaussian(const void *src, int w, int h, int cn, clv_pixel_type type, void *dst,
                  double sigma_x, double sigma_y, int ksize_x, int ksize_y, clv_border border);

/* Radius used for radius <= 0: ceil(3*sigma_space). */
int ref_bilateral_default_radius(double sigma_space);

/* Brute-force bilateral filter straight from the definition (edge.h):
 *   out(p) = sum_q w(p,q) I(q) / sum_q w(p,q) over |q-p|^2 <= radius^2,
 *   w(p,q) = exp(-|p-q|^2 / (2 ss^2) - ||I(p)-I(q)||^2 / (2 sr^2)),
 * ||.|| the sum of the cn channels' absolute differences (OpenCV's). q outside the image reads through
 * ref_border_index(); with CLV_BORDER_CONSTANT it is skipped (no weight).
 * radius <= 0 means ref_bilateral_default_radius(sigma_space). */
void ref_bilateral(const void *src, int w, int h, int cn, clv_pixel_type type, void *dst,
                   double sigma_space, double sigma_range, int radius, clv_border border);

/* ---- comparison ----------------------------------------------------------- */

typedef enum ref_tolerance {
    REF_EXACT,  /* every value bit-identical (pure data movement: transpose) */
    REF_FILTER, /* u8/u16: |got - want| <= 1 (rounding of a float computation);
                 * f32: |got - want| <= 1e-4 * max(1, |want|), NaN never matches */
    REF_RESIZE, /* u8/u16 as REF_FILTER; f32: |got - want| <= 5e-4 * max(1, |want|).
                 * A single-precision source coordinate near 1920 is off by up to
                 * about one ulp (1.2e-4), and the interpolation weight with it;
                 * times a neighbour difference of up to 3 (the random f32 data
                 * spans [-1, 2)) that is ~3.6e-4. OpenCV itself differs from the
                 * double reference by 9.5e-5 on 640->427. */
} ref_tolerance;

/* Compares w x h x cn packed values. Prints one line for `label`: the maximum
 * absolute error and, on failure, the number of bad values and the first bad
 * position (x, y, c) with both values. For u8/u16 under a non-exact
 * tolerance it also fails images of 1000+ values whose mean signed error
 * exceeds 0.2 (truncation passes +-1 but sits near -0.5). Returns the number
 * of bad values (0: pass). */
size_t ref_compare(const void *got, const void *want, int w, int h, int cn, clv_pixel_type type,
                   ref_tolerance tol, const char *label);

/* ---- device round trips (shared by the op tests) -------------------------- */

/* Bytes in one packed row / in the whole packed image. */
size_t th_row_bytes(int w, int cn, clv_pixel_type type);
size_t th_image_bytes(int w, int h, int cn, clv_pixel_type type);

/* malloc or exit(1). */
void *th_malloc(size_t n);

/* New device image holding the packed host pixels. With stride_pad > 0 the
 * upload goes through a copy whose rows are stride_pad bytes longer than
 * packed (the gap filled with junk). Exits on failure. */
clv_image *th_upload(clv_context *ctx, const void *host, int w, int h, int cn,
                     clv_pixel_type type, size_t stride_pad);

/* New device image with every byte 0xCD, so pixels an op does not write are
 * caught (as 205 in u8, 52685 in u16, -4.3e8 in f32). Exits on failure. */
clv_image *th_poisoned(clv_context *ctx, int w, int h, int cn, clv_pixel_type type);

/* Download into a new packed buffer (free() it). With stride_pad > 0 the
 * download goes through a buffer with rows stride_pad bytes longer, and
 * *gap_ok (may be NULL) is set to 0 if a byte of the gap was written.
 * Returns NULL (with the error printed) if the download fails. */
void *th_download(clv_context *ctx, const clv_image *img, size_t stride_pad, int *gap_ok);

/* New packed buffer of random pixels (test_fill_random with `seed`). */
void *th_random_pixels(int w, int h, int cn, clv_pixel_type type, uint64_t seed);

/* Checks that s is CLV_ERROR_INVALID_ARGUMENT and clv_last_error(ctx) is not
 * empty; prints the message. Counts a CHECK failure and returns 0 otherwise,
 * returns 1 when both hold. */
int th_expect_invalid(clv_context *ctx, clv_status s, const char *what);

/* Downloads dst (through a padded host stride when stride_pad > 0) and
 * compares it with want (packed) under tol. Returns the number of checks that
 * passed (the comparison, plus the untouched stride gap when padded); each
 * failure is counted through CHECK. */
int th_check_output(clv_context *ctx, const clv_image *dst, const void *want, size_t stride_pad,
                    ref_tolerance tol, const char *label);

/* Load a bundled test image (test_data_path(name)) as packed pixels of `type`
 * (u8 source values scaled: u16 by 257, f32 by 1/255). Returns 0 with a SKIP
 * note on stderr when the file does not exist, -1 on a read error, 1 when
 * loaded (*data to free()). */
int th_load_photo(const char *name, clv_pixel_type type, void **data, int *w, int *h, int *cn);

/* Large finite f32 pixels (issue 13 #3), w x h x cn packed, to free():
 * kind 0: constant 1e36, 1: constant 1e38, 2: columns alternating +3e38
 * (even x) and -3e38 (odd x). TH_LARGE_KINDS kinds; th_large_name(kind)
 * names one for labels. */
#define TH_LARGE_KINDS 3
float *th_large_pixels(int w, int h, int cn, int kind);
const char *th_large_name(int kind);

#endif
