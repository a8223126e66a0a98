/* Plain C reference of the bilateral grid (same cell rules as the kernels,
 * arithmetic in double). */
#ifndef CLV_REF_GRID_H
#define CLV_REF_GRID_H

#include <clvision/clvision.h>

/* src: packed w x h x cn of `type`. edge: NULL (1 channel: the value itself;
 * 3/4 channels: Rec. 709 luminance of the first three) or a packed w x h
 * 1-channel image of `etype`. dst: packed like src. Returns 0, or -1 when the
 * edge values are not finite or the range needs more than 4096 cells. */
int ref_bilateral_grid(const void *src, int w, int h, int cn, clv_pixel_type type,
                       const void *edge, clv_pixel_type etype, void *dst, double s_s, double s_r,
                       double blur_sigma);

/* PSNR in dB of two packed 8-bit buffers of n values (99 when identical). */
double ref_psnr_u8(const unsigned char *a, const unsigned char *b, size_t n);

#endif
