/* Flow utility references: colour wheel, evaluation, warping. */
#include "ref_flow.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define REF_PI 3.14159265358979323846

static double get(const void *p, size_t i, clv_pixel_type t)
{
    switch (t) {
    case CLV_U8: return ((const uint8_t *)p)[i];
    case CLV_U16: return ((const uint16_t *)p)[i];
    case CLV_F32: return ((const float *)p)[i];
    }
    return 0.0;
}

/* u8/u16: round half up and saturate; f32: nearest float. */
static void put(void *p, size_t i, clv_pixel_type t, double v)
{
    if (t == CLV_F32) {
        ((float *)p)[i] = (float)v;
        return;
    }
    double maxv = t == CLV_U8 ? 255.0 : 65535.0;
    double r = floor(v + 0.5);
    if (!(r >= 0.0))
        r = 0.0;
    if (r > maxv)
        r = maxv;
    if (t == CLV_U8)
        ((uint8_t *)p)[i] = (uint8_t)r;
    else
        ((uint16_t *)p)[i] = (uint16_t)r;
}

int ref_flow_known(float u, float v)
{
    return !(isnan(u) || isnan(v) || fabs((double)u) >= 1e9 || fabs((double)v) >= 1e9);
}

/* ---- colour wheel ---- */

void ref_flow_wheel(int k, int rgb[3])
{
    static int table[55][3];
    static int made;
    if (!made) {
        const int RY = 15, YG = 6, GC = 4, CB = 11, BM = 13, MR = 6;
        int n = 0;
        for (int i = 0; i < RY; i++, n++) {
            table[n][0] = 255; table[n][1] = 255 * i / RY; table[n][2] = 0;
        }
        for (int i = 0; i < YG; i++, n++) {
            table[n][0] = 255 - 255 * i / YG; table[n][1] = 255; table[n][2] = 0;
        }
        for (int i = 0; i < GC; i++, n++) {
            table[n][0] = 0; table[n][1] = 255; table[n][2] = 255 * i / GC;
        }
        for (int i = 0; i < CB; i++, n++) {
            table[n][0] = 0; table[n][1] = 255 - 255 * i / CB; table[n][2] = 255;
        }
        for (int i = 0; i < BM; i++, n++) {
            table[n][0] = 255 * i / BM; table[n][1] = 0; table[n][2] = 255;
        }
        for (int i = 0; i < MR; i++, n++) {
            table[n][0] = 255; table[n][1] = 0; table[n][2] = 255 - 255 * i / MR;
        }
        made = 1;
    }
    for (int c = 0; c < 3; c++)
        rgb[c] = table[k][c];
}

static void color(double fx, double fy, uint8_t *pix)
{
    const int ncols = 55;
    double rad = sqrt(fx * fx + fy * fy);
    /* The library's two rounding-proof rules (cl/flow_util.cl): the seam
     * v = 0, u > 0 is -pi for either zero, and r <= 1 + 1e-5 is inside. */
    double a = fy == 0 && fx > 0 ? -1.0 : atan2(-fy, -fx) / REF_PI;
    double fk = (a + 1.0) / 2.0 * (ncols - 1);
    int k0 = (int)fk;
    if (k0 < 0)
        k0 = 0;
    if (k0 > ncols - 1)
        k0 = ncols - 1;
    int k1 = (k0 + 1) % ncols;
    double f = fk - k0;
    int c0[3], c1[3];
    ref_flow_wheel(k0, c0);
    ref_flow_wheel(k1, c1);
    for (int b = 0; b < 3; b++) {
        double col = (1 - f) * c0[b] / 255.0 + f * c1[b] / 255.0;
        if (rad <= 1 + 1e-5)
            col = 1 - rad * (1 - col);
        else
            col *= 0.75;
        double v = 255.0 * col;
        pix[b] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : (int)v);
    }
}

void ref_flow_to_color(const float *flow, int w, int h, double max_magnitude, uint8_t *rgb)
{
    size_t n = (size_t)w * h;
    double maxrad = max_magnitude;
    if (!(maxrad > 0)) {
        maxrad = 0;
        for (size_t i = 0; i < n; i++) {
            float u = flow[2 * i], v = flow[2 * i + 1];
            if (ref_flow_known(u, v)) {
                double r = sqrt((double)u * u + (double)v * v);
                if (r > maxrad)
                    maxrad = r;
            }
        }
        if (maxrad == 0)
            maxrad = 1;
    }
    for (size_t i = 0; i < n; i++) {
        float u = flow[2 * i], v = flow[2 * i + 1];
        if (ref_flow_known(u, v))
            color(u / maxrad, v / maxrad, rgb + 3 * i);
        else
            memset(rgb + 3 * i, 0, 3);
    }
}

/* ---- evaluation ---- */

void ref_flow_eval(const float *est, const float *gt, int w, int h, clv_flow_stats *out)
{
    double s_epe = 0, s_ae = 0;
    int64_t valid = 0, n1 = 0, n3 = 0, n5 = 0;
    size_t n = (size_t)w * h;
    for (size_t i = 0; i < n; i++) {
        double ug = gt[2 * i], vg = gt[2 * i + 1];
        if (!ref_flow_known(gt[2 * i], gt[2 * i + 1]))
            continue;
        double ue = est[2 * i], ve = est[2 * i + 1];
        double epe = sqrt((ue - ug) * (ue - ug) + (ve - vg) * (ve - vg));
        double c = (ue * ug + ve * vg + 1.0) /
                   sqrt((ue * ue + ve * ve + 1.0) * (ug * ug + vg * vg + 1.0));
        if (c > 1)
            c = 1;
        if (c < -1)
            c = -1;
        s_epe += epe;
        s_ae += acos(c);
        valid++;
        n1 += epe > 1;
        n3 += epe > 3;
        n5 += epe > 5;
    }
    memset(out, 0, sizeof *out);
    out->valid = valid;
    if (valid) {
        out->aee = s_epe / valid;
        out->aae = s_ae / valid * 180.0 / REF_PI;
        out->r1 = 100.0 * n1 / valid;
        out->r3 = 100.0 * n3 / valid;
        out->r5 = 100.0 * n5 / valid;
    }
}

/* ---- warping ---- */

void ref_warp(const void *src, int sw, int sh, int cn, clv_pixel_type type, const float *flow,
              int w, int h, void *dst)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            float fx = (float)((double)x + flow[2 * i]);
            float fy = (float)((double)y + flow[2 * i + 1]);
            double sx = fmin(fmax(fx, 0.0), sw - 1.0);
            double sy = fmin(fmax(fy, 0.0), sh - 1.0);
            int x0 = (int)floor(sx), y0 = (int)floor(sy);
            double ax = sx - x0, ay = sy - y0;
            int x1 = x0 + 1 < sw ? x0 + 1 : sw - 1;
            int y1 = y0 + 1 < sh ? y0 + 1 : sh - 1;
            for (int c = 0; c < cn; c++) {
                double p00 = get(src, ((size_t)y0 * sw + x0) * cn + c, type);
                double p01 = get(src, ((size_t)y0 * sw + x1) * cn + c, type);
                double p10 = get(src, ((size_t)y1 * sw + x0) * cn + c, type);
                double p11 = get(src, ((size_t)y1 * sw + x1) * cn + c, type);
                double top = p00 * (1 - ax) + p01 * ax;
                double bot = p10 * (1 - ax) + p11 * ax;
                put(dst, i * cn + c, type, top * (1 - ay) + bot * ay);
            }
        }
}
