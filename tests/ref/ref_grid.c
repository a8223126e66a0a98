/* Bilateral grid reference: nearest-cell splat of (value, 1), separable
 * Gaussian blur with zero outside the grid, trilinear slice, divide. */
#include "ref_grid.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static double get(const void *p, size_t i, clv_pixel_type t)
{
    switch (t) {
    case CLV_U8: return ((const uint8_t *)p)[i];
    case CLV_U16: return ((const uint16_t *)p)[i];
    case CLV_F32: return ((const float *)p)[i];
    }
    return 0.0;
}

static void put(void *p, size_t i, clv_pixel_type t, double v)
{
    if (t == CLV_F32) {
        ((float *)p)[i] = (float)v;
        return;
    }
    double hi = t == CLV_U8 ? 255.0 : 65535.0;
    double r = floor(v + 0.5);
    r = r < 0 ? 0 : r > hi ? hi : r;
    if (t == CLV_U8)
        ((uint8_t *)p)[i] = (uint8_t)r;
    else
        ((uint16_t *)p)[i] = (uint16_t)r;
}

/* The kernels place a coordinate with float arithmetic; mirror it. */
static int cell_of(float pos) { return (int)floorf(pos + 0.5f); }

/* (e - lo) * inv_sr in float as the kernels compute it (on halves, so edges
 * of -3e38 and 3e38 do not overflow; bit for bit the plain form otherwise). */
static float range_pos(float e, float lo, float inv_sr)
{
    return (0.5f * e - 0.5f * lo) * inv_sr * 2.0f;
}

static double edge_value(const void *src, int cn, clv_pixel_type type, const void *edge,
                         clv_pixel_type etype, size_t i)
{
    if (edge)
        return get(edge, i, etype);
    if (cn == 1)
        return get(src, i, type);
    return 0.2126 * get(src, i * cn, type) + 0.7152 * get(src, i * cn + 1, type) +
           0.0722 * get(src, i * cn + 2, type);
}

int ref_bilateral_grid(const void *src, int w, int h, int cn, clv_pixel_type type,
                       const void *edge, clv_pixel_type etype, void *dst, double s_s, double s_r,
                       double blur_sigma)
{
    const size_t n = (size_t)w * h;
    const clv_pixel_type et = edge ? etype : type;
    double lo, hi;
    if (et == CLV_U8 || et == CLV_U16) {
        lo = 0.0;
        hi = et == CLV_U8 ? 255.0 : 65535.0;
    } else {
        lo = INFINITY;
        hi = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            double e = edge_value(src, cn, type, edge, etype, i);
            if (isnan(e))
                continue;
            lo = fmin(lo, e);
            hi = fmax(hi, e);
        }
        if (!isfinite(lo) || !isfinite(hi))
            return -1;
    }
    const float lo_f = (float)lo; /* the kernels read the offset as a float */
    const double cells = ceil((hi - lo) / s_r) + 1.0;
    if (cells > 4096)
        return -1;
    const int gd = (int)cells;
    const int gw = (int)floor((double)(w - 1) / s_s + 0.5) + 2;
    const int gh = (int)floor((double)(h - 1) / s_s + 0.5) + 2;
    const int nc = cn + 1;
    const float inv_ss = (float)(1.0 / s_s), inv_sr = (float)(1.0 / s_r);
    const size_t ncell = (size_t)gw * gh * gd;
    double *g = calloc(ncell * nc, sizeof *g), *tmp = calloc(ncell * nc, sizeof *tmp);
    if (!g || !tmp) {
        free(g);
        free(tmp);
        return -1;
    }
#define CELL(gx, gy, gz) ((((size_t)(gz) * gh + (gy)) * gw + (gx)) * nc)
    /* splat */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            int gx = cell_of((float)x * inv_ss), gy = cell_of((float)y * inv_ss);
            float e = (float)edge_value(src, cn, type, edge, etype, i);
            int gz = cell_of(range_pos(e, lo_f, inv_sr));
            gz = gz < 0 ? 0 : gz > gd - 1 ? gd - 1 : gz;
            double *c = g + CELL(gx, gy, gz);
            for (int k = 0; k < cn; k++)
                c[k] += get(src, i * cn + k, type);
            c[cn] += 1.0;
        }
    /* blur: three axes, zero outside */
    if (blur_sigma > 0) {
        int r = (int)ceil(3.0 * blur_sigma);
        if (r > 60)
            r = 60;
        double wt[121], sum = 0;
        for (int t = -r; t <= r; t++)
            sum += wt[t + r] = exp(-(double)(t * t) / (2 * blur_sigma * blur_sigma));
        for (int t = 0; t <= 2 * r; t++)
            wt[t] /= sum;
        for (int axis = 0; axis < 3; axis++) {
            memset(tmp, 0, ncell * nc * sizeof *tmp);
            for (int gz = 0; gz < gd; gz++)
                for (int gy = 0; gy < gh; gy++)
                    for (int gx = 0; gx < gw; gx++)
                        for (int t = -r; t <= r; t++) {
                            int sx = gx + (axis == 0) * t, sy = gy + (axis == 1) * t,
                                sz = gz + (axis == 2) * t;
                            if (sx < 0 || sy < 0 || sz < 0 || sx >= gw || sy >= gh || sz >= gd)
                                continue;
                            for (int k = 0; k < nc; k++)
                                tmp[CELL(gx, gy, gz) + k] += wt[t + r] * g[CELL(sx, sy, sz) + k];
                        }
            double *sw = g;
            g = tmp;
            tmp = sw;
        }
    }
    /* slice */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            float e = (float)edge_value(src, cn, type, edge, etype, i);
            double f[3] = {(float)x * inv_ss, (float)y * inv_ss, range_pos(e, lo_f, inv_sr)};
            const int dims[3] = {gw, gh, gd};
            int i0[3], i1[3];
            double a[3];
            for (int d = 0; d < 3; d++) {
                double v = f[d] < 0 ? 0 : f[d] > dims[d] - 1 ? dims[d] - 1 : f[d];
                i0[d] = (int)v;
                if (i0[d] > dims[d] - 1)
                    i0[d] = dims[d] - 1;
                i1[d] = i0[d] + 1 > dims[d] - 1 ? dims[d] - 1 : i0[d] + 1;
                a[d] = v - i0[d];
            }
            double res[5] = {0, 0, 0, 0, 0};
            for (int corner = 0; corner < 8; corner++) {
                int cx = corner & 1 ? i1[0] : i0[0], cy = corner & 2 ? i1[1] : i0[1],
                    cz = corner & 4 ? i1[2] : i0[2];
                double wgt = (corner & 1 ? a[0] : 1 - a[0]) * (corner & 2 ? a[1] : 1 - a[1]) *
                             (corner & 4 ? a[2] : 1 - a[2]);
                for (int k = 0; k < nc; k++)
                    res[k] += wgt * g[CELL(cx, cy, cz) + k];
            }
            for (int k = 0; k < cn; k++)
                put(dst, i * cn + k, type,
                    res[cn] > 1e-6 ? res[k] / res[cn] : get(src, i * cn + k, type));
        }
#undef CELL
    free(g);
    free(tmp);
    return 0;
}

double ref_psnr_u8(const unsigned char *a, const unsigned char *b, size_t n)
{
    double mse = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)a[i] - b[i];
        mse += d * d;
    }
    mse /= (double)n;
    return mse == 0 ? 99.0 : 10.0 * log10(255.0 * 255.0 / mse);
}
