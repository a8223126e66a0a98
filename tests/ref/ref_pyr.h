/* Plain C references for the pyramid and Shi-Tomasi corner tests.
 *
 * ref_pyr_down follows OpenCV's pyrDown arithmetic (integers for u8/u16, the
 * same float expression order for f32). The corner reference recomputes the
 * responses with the float operations, in the order, that cl/corners.cl
 * documents, so a device without FP contraction and with a correctly rounded
 * sqrt gives the same bits; the selection is a straightforward re-statement
 * of OpenCV's goodFeaturesToTrack (qsort, then its grid with cells of
 * round(min_distance)), independent of the device's algorithm. */
#ifndef CLV_TEST_REF_PYR_H
#define CLV_TEST_REF_PYR_H

#include <stdint.h>

#include <clvision/clvision.h>

/* OpenCV pyrDown of src (w x h, cn channels, packed) into dst of
 * ((w+1)/2) x ((h+1)/2): [1 4 6 4 1]/16 both ways, reflect101; u8/u16 as
 * (sum + 128) >> 8. */
void ref_pyr_down(const void *src, int w, int h, int cn, clv_pixel_type type, void *dst);

/* Shi-Tomasi response (minimum eigenvalue, OpenCV cornerMinEigenVal with
 * ksize 3 and reflect101) of a 1-channel u8 or f32 image into resp[w*h]. */
void ref_min_eigen(const void *src, int w, int h, clv_pixel_type type, int block_size,
                   float *resp);

/* Maximum number of candidates the device sorts (corners.c). */
#define REF_CORNERS_CAP (1 << 18)

/* goodFeaturesToTrack on a response image: max over mask (NULL: all),
 * thr = max * (float)quality, interior local maxima > thr (mask != 0), sorted by
 * (response, pixel index) descending, at most `cap` kept (those above the
 * (cap+1)-th response), greedy Euclidean min_distance, at most max_corners.
 * Writes out[0..n) and returns n. */
int ref_corners_from_response(const float *resp, int w, int h, const uint8_t *mask,
                              int max_corners, double quality, double min_distance, int cap,
                              clv_corner *out);

/* ref_min_eigen + ref_corners_from_response with cap REF_CORNERS_CAP. */
int ref_corners(const void *src, int w, int h, clv_pixel_type type, const uint8_t *mask,
                int max_corners, double quality, double min_distance, int block_size,
                clv_corner *out);

#endif
