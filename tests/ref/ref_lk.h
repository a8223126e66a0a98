/* Plain C reference of pyramidal Lucas-Kanade (clv_lk_track), written from
 * OpenCV calcOpticalFlowPyrLK's algorithm in double precision (the steps are
 * listed in ref_lk.c). Images are packed 1-channel host levels. */
#ifndef CLV_REF_LK_H
#define CLV_REF_LK_H

#include <stdint.h>

#include <clvision/clvision.h>

/* One pyramid level: w x h packed values of `type` (rows of w values). */
typedef struct ref_lk_level {
    const void *data;
    int w, h;
    clv_pixel_type type;
} ref_lk_level;

/* Tracks count points over levels p->levels - 1 .. 0 of prev/next (arrays of
 * at least p->levels levels, level l being pyrDown of level l - 1). Same
 * outputs and conventions as clv_lk_track: pts_out (read first when
 * p->use_initial_flow), status, err (may be NULL). */
void ref_lk_track(const ref_lk_level *prev, const ref_lk_level *next, const clv_point *pts_in,
                  clv_point *pts_out, uint8_t *status, float *err, int count,
                  const clv_lk_params *p);

#endif
