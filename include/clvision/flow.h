/* clvision — optical flow: Gaussian pyramids, Shi-Tomasi corners, pyramidal
 * Lucas-Kanade, Farneback dense flow, and flow utilities (.flo files, colour
 * coding, evaluation against ground truth, warping).
 *
 * Flow fields are 2-channel f32 images: channel 0 = u (x displacement),
 * channel 1 = v (y displacement), in pixels, from the first image to the
 * second: I1(x + u, y + v) ~ I0(x, y). Same threading and ownership rules as
 * the rest of the API. Pyramids, corners and flow take 1-channel images: make
 * gray of colour with clv_convert_color (color.h; CLV_COLOR_RGB2GRAY is
 * OpenCV's COLOR_RGB2GRAY) and f32 with clv_convert_type. clv_flow_to_color
 * writes R, G, B.
 */
#ifndef CLVISION_FLOW_H
#define CLVISION_FLOW_H

#include <stdint.h>

#include "filter.h"
#include "io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- pyramids ---- */

typedef struct clv_pyramid clv_pyramid;

#define CLV_PYRAMID_MAX_LEVELS 16

/* A pyramid of up to `levels` (1..16) images (level 0 = a copy of the
 * source) for width x height images of 1 to 4 `channels` of any pixel type,
 * allocated once at create time and rebuilt per frame without allocating.
 * scale = 0.5: each level is OpenCV pyrDown of the previous one (5-tap
 * [1 4 6 4 1]/16 Gaussian, reflect101, keep even pixels; size (w+1)/2 x
 * (h+1)/2); u8 and u16 levels are bit-exact with OpenCV ((sum + 128) >> 8).
 * Other scales in (0, 1) (Farneback's pyr_scale), as OpenCV's Farneback
 * builds its pyramid: level k >= 1 is level 0 blurred with a Gaussian of
 * sigma = (1/s - 1) / 2, s = scale^k (kernel side max(round(5 sigma) | 1, 3),
 * reflect101 border), then resized bilinearly to round(w s) x round(h s)
 * (u8/u16 round after the blur and after the resize). OpenCV's Farneback
 * also smooths its level 0 ([1 2 1]/4 both ways); this pyramid does not.
 * A level with a side below 2 (or, for other scales, a Gaussian above
 * CLV_GAUSSIAN_MAX_KSIZE taps: sigma > 51) is not made, nor any after it:
 * clv_pyramid_levels() tells how many exist (1 for a 1x1 or 5x1 image).
 * CLV_ERROR_INVALID_ARGUMENT for bad sizes, levels or scale (NaN included);
 * CLV_ERROR_UNSUPPORTED when a level is larger than the device allows.
 * NaN/Inf (f32): each level propagates them as its filter does: with scale
 * 0.5 exactly the outputs whose 5x5 footprint holds a non-finite value are
 * non-finite (clv_gaussian_blur and clv_resize describe the other scales). */
CLV_API clv_status clv_pyramid_create(clv_context *ctx, int width, int height, int channels,
                                      clv_pixel_type type, int levels, double scale,
                                      clv_pyramid **out);
CLV_API void clv_pyramid_release(clv_pyramid *pyr);
/* Fill every level from src (same size, channels and type as the pyramid,
 * a context on the same cl_context, not one of the pyramid's own levels). Enqueues and returns
 * without waiting. */
CLV_API clv_status clv_pyramid_build(clv_context *ctx, clv_pyramid *pyr, const clv_image *src);
CLV_API int clv_pyramid_levels(const clv_pyramid *pyr);
/* Level i (owned by the pyramid), NULL when out of range. */
CLV_API const clv_image *clv_pyramid_level(const clv_pyramid *pyr, int level);

/* ---- Shi-Tomasi corners ---- */

typedef struct clv_corner {
    float x, y;     /* pixel coordinates */
    float response; /* minimum eigenvalue of the structure tensor */
} clv_corner;

typedef struct clv_corner_params {
    int max_corners;      /* > 0, any size (INT_MAX: all there are) (default 1000) */
    double quality_level; /* (0, 1]: a corner's response must be strictly above
                             quality_level * max response (so 1.0 finds none, as in
                             OpenCV) (default 0.01) */
    double min_distance;  /* >= 0, Euclidean, in pixels (default 10) */
    int block_size;       /* odd window of the structure tensor, 1..31 (default 3) */
    int gradient_size;    /* 3 (Sobel), the only size supported (default 3) */
    const clv_image *mask;/* optional u8 1-channel, same size: corners only where != 0 */
} clv_corner_params;

/* The defaults above. Responses follow OpenCV's cornerMinEigenVal scaling;
 * like goodFeaturesToTrack, the outermost pixel ring is never a corner, a
 * corner must be at least its 8 neighbours, and ties keep the lower pixel
 * index first. Above 2^18 candidates the weakest are dropped before sorting. */
CLV_API clv_corner_params clv_corner_params_default(void);

/* Find up to p->max_corners corners of a 1-channel u8 or f32 image, entirely
 * on the device (response, threshold, 3x3 non-maximum suppression, minimum
 * distance, top-K), then copy them to out (capacity p->max_corners: for
 * max_corners = INT_MAX use clv_corners_shi_tomasi_n), sorted by decreasing
 * response; *count = number found (0 after a failure). Waits
 * for the result.
 * NaN/Inf (f32): a response computed over a non-finite pixel is NaN; such
 * pixels are never corners and do not count towards the maximum response, so
 * corners away from them (beyond the gradient and block windows) come out as
 * without them. A returned corner always has a finite, positive response. */
CLV_API clv_status clv_corners_shi_tomasi(clv_context *ctx, const clv_image *img,
                                          const clv_corner_params *p, clv_corner *out,
                                          int *count);

/* As clv_corners_shi_tomasi, with the capacity of out given separately, so
 * max_corners = INT_MAX ("all there are") needs no INT_MAX-entry array:
 * *count = number of corners found (up to p->max_corners, possibly more than
 * capacity); the strongest min(*count, capacity) of them are written to out.
 * out may be NULL when capacity is 0: a call that only counts, to size the
 * array for a second call with the same arguments (same result).
 * CLV_ERROR_INVALID_ARGUMENT for capacity < 0 or out NULL with capacity > 0. */
CLV_API clv_status clv_corners_shi_tomasi_n(clv_context *ctx, const clv_image *img,
                                            const clv_corner_params *p, clv_corner *out,
                                            int capacity, int *count);

/* ---- pyramidal Lucas-Kanade ---- */

typedef struct clv_point {
    float x, y;
} clv_point;

/* Most iterations per level clv_lk_track takes. */
#define CLV_LK_MAX_ITERATIONS 1000

typedef struct clv_lk_params {
    int win_width, win_height; /* odd window, any size >= 3 (default 21 x 21) */
    int levels;                /* pyramid levels to use, <= those built (default 3) */
    int max_iterations;        /* per level, 1..CLV_LK_MAX_ITERATIONS (default 30) */
    double epsilon;            /* stop when the update is below this, pixels (0.01) */
    double min_eig_threshold;  /* lost when the normalised min eigenvalue is below (1e-4) */
    int use_initial_flow;      /* 1: pts_out holds initial estimates */
} clv_lk_params;

CLV_API clv_lk_params clv_lk_params_default(void);

/* Track `count` points from prev to next (1-channel u8/u16/f32 pyramids of
 * the same geometry, built with scale 0.5), following OpenCV's
 * calcOpticalFlowPyrLK: `levels` counts levels (3 = OpenCV's maxLevel 2);
 * Scharr/32 gradients of the prev level; intensities in 0..255 units for
 * every type (u16 divided by 257, f32 read as 0..1 and multiplied by 255), so
 * min_eig_threshold means what it means in OpenCV (min eigenvalue of the
 * window's gradient matrix divided by the window area); a point is lost when
 * its window's corner leaves [-win, size) at some level, when that matrix is
 * singular or below the threshold at level 0, or when it is NaN/Inf.
 * status[i] = 1 tracked, 0 lost; err[i] = mean |next - prev| over the window
 * at level 0 in 0..255 units, 0 for lost points (err may be NULL); a lost
 * point's pts_out keeps the last estimate. count 0 is a no-op. params NULL
 * means defaults. Waits for the result.
 * NaN/Inf: a point given as NaN/Inf is lost, and so is a point whose window
 * meets a non-finite pixel at some level; a tracked point always has finite
 * coordinates and error. The iterations are bounded (max_iterations), so
 * every call ends whatever the data. */
CLV_API clv_status clv_lk_track(clv_context *ctx, const clv_pyramid *prev,
                                const clv_pyramid *next, const clv_point *pts_in,
                                clv_point *pts_out, uint8_t *status, float *err, int count,
                                const clv_lk_params *p);

/* ---- Farneback dense flow ---- */

typedef struct clv_farneback_params {
    double pyr_scale;    /* (0, 1), default 0.5 */
    int levels;          /* 0..16, default 3; as in OpenCV's code, levels + 1 scales are
                            used (1, s, .., s^levels) while a side stays >= 32 px */
    int winsize;         /* averaging window, odd 3..255, default 15 */
    int iterations;      /* per level, 1..100, default 3 */
    int poly_n;          /* 5 or 7, default 5 */
    double poly_sigma;   /* (0, 100), default 1.2 (1.1 for poly_n 5 and 1.5 for 7 are
                            OpenCV's advice) */
    int gaussian_window; /* 1: Gaussian averaging (OPTFLOW_FARNEBACK_GAUSSIAN), 0: box */
    int use_initial_flow;/* 1: flow holds the initial estimate */
} clv_farneback_params;

CLV_API clv_farneback_params clv_farneback_params_default(void);

/* Dense flow from prev to next (1-channel u8 or f32, same size) into flow
 * (2-channel f32 of the same size), with OpenCV's calcOpticalFlowFarneback
 * parameter meanings and algorithm (results agree to about 1e-5 px). f32
 * values are used as given, as OpenCV does: the solver's regularisation
 * (1e-3) assumes 0..255 intensities, so scale 0..1 data by 255 first.
 * Known differences: the initial flow is shrunk bilinearly (OpenCV: area);
 * level blurs are capped at 255 taps (only matters above 4K with 7+
 * levels); on images with a side under 10 px every border pixel gets
 * OpenCV's border weight (OpenCV's unsigned test skips some there).
 * Parameters outside the ranges above (NaN included; gaussian_window and
 * use_initial_flow 0 or 1) are CLV_ERROR_INVALID_ARGUMENT. prev and next may
 * be the same image (zero motion, as with two images of equal content; LK
 * and clv_flow_eval accept identical inputs too). Too large for the device
 * (its working buffers, 20 bytes a pixel, over the device's largest
 * allocation) is CLV_ERROR_UNSUPPORTED, checked before allocating.
 * NaN/Inf (f32): propagated. The flow at a non-finite pixel is non-finite,
 * and through the polynomial expansion, the window averages and the pyramid
 * it may spread over much or all of the field. Give finite data. */
CLV_API clv_status clv_farneback(clv_context *ctx, const clv_image *prev, const clv_image *next,
                                 clv_image *flow, const clv_farneback_params *p);

/* ---- utilities ---- */

/* Middlebury .flo: "PIEH" tag, width, height, then u, v floats per pixel.
 * read gives a 2-channel f32 host image; write takes one (temp file +
 * rename, like every writer). Same statuses and messages
 * (clv_io_last_error()) as the image readers and writers: sizes outside
 * 1..CLV_MAX_DIMENSION are CLV_ERROR_UNSUPPORTED, more pixels than
 * clv_io_max_pixels() CLV_ERROR_INVALID_ARGUMENT, and a regular file shorter
 * than its header promises CLV_ERROR_FORMAT, all before allocating; writing
 * anything but 2-channel f32 with a sane stride is CLV_ERROR_INVALID_ARGUMENT.
 * Values are kept bit for bit (NaN and Inf included). */
CLV_API clv_status clv_flo_read(const char *path, clv_host_image *out);
CLV_API clv_status clv_flo_write(const char *path, const clv_host_image *flow);

/* Middlebury colour wheel coding of a flow field into u8 RGB (3 channels, same
 * size). max_magnitude > 0 sets the magnitude shown at full saturation;
 * <= 0 uses the field's largest finite magnitude. Unknown flow (|u| or |v| >=
 * 1e9, NaN) is black. */
CLV_API clv_status clv_flow_to_color(clv_context *ctx, const clv_image *flow, clv_image *rgb,
                                     double max_magnitude);

typedef struct clv_flow_stats {
    double aee;       /* average endpoint error, pixels */
    double aae;       /* average angular error, degrees (Barron et al.) */
    double r1, r3, r5;/* percent of pixels with endpoint error above 1, 3, 5 px */
    int64_t valid;    /* pixels counted (ground truth known) */
} clv_flow_stats;

/* Compare an estimated flow with ground truth on the device; pixels whose
 * ground truth has |u| or |v| >= 1e9 (or NaN) are ignored. AAE uses
 * acos((u_e u_g + v_e v_g + 1) / sqrt((u_e^2 + v_e^2 + 1)(u_g^2 + v_g^2 + 1))).
 * With no known ground-truth pixel every figure is 0 and valid is 0.
 * A non-finite estimate at a pixel whose ground truth is known is counted
 * and makes aee and aae non-finite. Waits for the result. */
CLV_API clv_status clv_flow_eval(clv_context *ctx, const clv_image *estimate,
                                 const clv_image *ground_truth, clv_flow_stats *out);

/* dst(x, y) = src(x + u(x, y), y + v(x, y)), bilinear, border replicate;
 * src any format and size (same type and channels as dst), flow 2-channel
 * f32 of dst's size. A NaN displacement reads column (row) 0, +-Inf and huge
 * ones the border they point to. A non-finite source pixel makes the outputs
 * that interpolate next to it non-finite (as clv_resize). */
CLV_API clv_status clv_warp(clv_context *ctx, const clv_image *src, const clv_image *flow,
                            clv_image *dst);

#ifdef __cplusplus
}
#endif

#endif
