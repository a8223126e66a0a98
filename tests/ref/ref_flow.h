/* Plain C references of the flow utilities (flow.h), written from the
 * definitions in double precision. Flow fields are packed w x h x 2 floats
 * (u, v); a vector is unknown when |u| or |v| >= 1e9 or either is NaN. */
#ifndef CLV_REF_FLOW_H
#define CLV_REF_FLOW_H

#include <stdint.h>

#include <clvision/clvision.h>

/* 1 when the flow vector is known. */
int ref_flow_known(float u, float v);

/* Middlebury colour wheel entry k (0..54) as 0..255 RGB, built as in
 * colorcode.cpp (RY=15, YG=6, GC=4, CB=11, BM=13, MR=6, integer steps). */
void ref_flow_wheel(int k, int rgb[3]);

/* Middlebury colour coding into packed u8 RGB: max_magnitude > 0 divides
 * every vector; otherwise the largest known magnitude does (1 when it is 0).
 * Hue from atan2(-v, -u) (-pi on the seam v = 0, u > 0, for either zero),
 * saturation rule 1 - r (1 - c) for r <= 1 + 1e-5 and 0.75 c beyond,
 * truncated to u8 like the original; unknown flow is black. */
void ref_flow_to_color(const float *flow, int w, int h, double max_magnitude, uint8_t *rgb);

/* Endpoint and angular errors over the pixels with known ground truth, in
 * double; the angle is acos of the formula in flow.h (argument clamped to
 * [-1, 1]). Counts use endpoint error > 1, 3, 5. Empty: zeros, valid 0. */
void ref_flow_eval(const float *est, const float *gt, int w, int h, clv_flow_stats *out);

/* dst (w x h, packed, cn channels of type) = src (sw x sh) sampled at
 * (x + u, y + v) with flow (w x h): the coordinate is rounded to float (as
 * the device computes it), clamped to the image with fmin/fmax (NaN reads 0),
 * then blended bilinearly in double; u8/u16 round half up and saturate. */
void ref_warp(const void *src, int sw, int sh, int cn, clv_pixel_type type, const float *flow,
              int w, int h, void *dst);

#endif
