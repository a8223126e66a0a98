/* Reference pyramidal Lucas-Kanade, double precision, straight from the
 * definition (OpenCV calcOpticalFlowPyrLK's steps; see cl/lk.cl):
 *
 * for level L = levels-1 .. 0 (coordinates / 2^L):
 *   p = in / 2^L; q = (top: in / 2^L, or the initial pts_out / 2^L) else 2 q
 *   h = ((W-1)/2, (H-1)/2); prev window corner c0 = p - h
 *   lost (decided at level 0 only; coarser levels just skip) when floor(c0)
 *   is outside [-W, cols) x [-H, rows)
 *   patch (x, y) in [0,W) x [0,H): bilinear at c0 + (x, y) of
 *     I   (image, reflect101 outside),
 *     Ix, Iy (Scharr / 32 at integer pixels, reflect101 neighbours, 0 for
 *             pixels outside the image),
 *   all in u8 units (u16 / 257, f32 x 255)
 *   G = sum (Ix^2, Ix Iy, Iy^2); lost when lambda_min(G)/(1024 W H) <
 *   min_eig or det(G)/1024^2 < FLT_EPSILON
 *   c = q - h; repeat max_iterations times:
 *     lost if floor(c) outside (as above); b = sum (J(c + (x,y)) - I) (Ix, Iy)
 *     d = (G12 b2 - G22 b1, G12 b1 - G11 b2) / det G; c += d; q = c + h
 *     stop if |d|^2 <= eps^2 (eps clamped to 10); stop if j > 0 and
 *     |d + d_prev| < 0.01 in both axes, after q -= d / 2
 *   level 0, still tracked: window at q - h must pass the rule, else lost;
 *   err = mean |J - I| over it. Lost points: err 0.
 */
#include "ref_lk.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

static double level_value(const ref_lk_level *l, int x, int y)
{
    const size_t i = (size_t)y * (size_t)l->w + (size_t)x;
    switch (l->type) {
    case CLV_U8:
        return ((const uint8_t *)l->data)[i];
    case CLV_U16:
        return ((const uint16_t *)l->data)[i] / 257.0;
    default:
        return ((const float *)l->data)[i] * 255.0;
    }
}

static int reflect101(int i, int n)
{
    if (n == 1)
        return 0;
    while (i < 0 || i >= n)
        i = i < 0 ? -i : 2 * (n - 1) - i;
    return i;
}

static double img_at(const ref_lk_level *l, int x, int y)
{
    return level_value(l, reflect101(x, l->w), reflect101(y, l->h));
}

/* Scharr / 32 at pixel (x, y): 0 outside the image. */
static void deriv_at(const ref_lk_level *l, int x, int y, double *gx, double *gy)
{
    *gx = *gy = 0.0;
    if (x < 0 || x >= l->w || y < 0 || y >= l->h)
        return;
    double a[3][3];
    for (int j = -1; j <= 1; j++)
        for (int i = -1; i <= 1; i++)
            a[j + 1][i + 1] = img_at(l, x + i, y + j);
    *gx = (3.0 * (a[0][2] - a[0][0]) + 10.0 * (a[1][2] - a[1][0]) + 3.0 * (a[2][2] - a[2][0])) /
          32.0;
    *gy = (3.0 * (a[2][0] - a[0][0]) + 10.0 * (a[2][1] - a[0][1]) + 3.0 * (a[2][2] - a[0][2])) /
          32.0;
}

static int window_inside(double cx, double cy, int ww, int wh, int cols, int rows)
{
    if (!isfinite(cx) || !isfinite(cy))
        return 0;
    const double fx = floor(cx), fy = floor(cy);
    return fx >= -ww && fx < cols && fy >= -wh && fy < rows;
}

/* Bilinear of the image at (x, y) (any real position). */
static double bilinear(const ref_lk_level *l, double x, double y)
{
    const double fx = floor(x), fy = floor(y), a = x - fx, b = y - fy;
    const int ix = (int)fx, iy = (int)fy;
    return (1 - a) * (1 - b) * img_at(l, ix, iy) + a * (1 - b) * img_at(l, ix + 1, iy) +
           (1 - a) * b * img_at(l, ix, iy + 1) + a * b * img_at(l, ix + 1, iy + 1);
}

static void track_one(const ref_lk_level *prev, const ref_lk_level *next, const clv_point *in,
                      clv_point *out, uint8_t *status, float *err, const clv_lk_params *p,
                      double *pi, double *px, double *py)
{
    const int ww = p->win_width, wh = p->win_height, top = p->levels - 1;
    const double hx = (ww - 1) * 0.5, hy = (wh - 1) * 0.5;
    const double eps = p->epsilon < 10.0 ? p->epsilon : 10.0;
    double qx = 0.0, qy = 0.0;
    *status = 1;
    if (err)
        *err = 0.0f;
    for (int L = top; L >= 0; L--) {
        const ref_lk_level *I = &prev[L], *J = &next[L];
        const double sc = ldexp(1.0, -L);
        const double px0 = in->x * sc, py0 = in->y * sc;
        if (L == top) {
            qx = p->use_initial_flow ? out->x * sc : px0;
            qy = p->use_initial_flow ? out->y * sc : py0;
        } else {
            qx *= 2.0;
            qy *= 2.0;
        }
        const double cx0 = px0 - hx, cy0 = py0 - hy;
        if (!window_inside(cx0, cy0, ww, wh, I->w, I->h)) {
            if (L == 0) {
                *status = 0;
                if (err)
                    *err = 0.0f;
            }
            continue;
        }
        /* patch */
        const double fx = floor(cx0), fy = floor(cy0), a = cx0 - fx, b = cy0 - fy;
        const int ix = (int)fx, iy = (int)fy;
        double g11 = 0, g12 = 0, g22 = 0;
        for (int y = 0; y < wh; y++)
            for (int x = 0; x < ww; x++) {
                double d[4][2];
                deriv_at(I, ix + x, iy + y, &d[0][0], &d[0][1]);
                deriv_at(I, ix + x + 1, iy + y, &d[1][0], &d[1][1]);
                deriv_at(I, ix + x, iy + y + 1, &d[2][0], &d[2][1]);
                deriv_at(I, ix + x + 1, iy + y + 1, &d[3][0], &d[3][1]);
                const double w[4] = {(1 - a) * (1 - b), a * (1 - b), (1 - a) * b, a * b};
                const int k = y * ww + x;
                pi[k] = w[0] * img_at(I, ix + x, iy + y) + w[1] * img_at(I, ix + x + 1, iy + y) +
                        w[2] * img_at(I, ix + x, iy + y + 1) +
                        w[3] * img_at(I, ix + x + 1, iy + y + 1);
                px[k] = w[0] * d[0][0] + w[1] * d[1][0] + w[2] * d[2][0] + w[3] * d[3][0];
                py[k] = w[0] * d[0][1] + w[1] * d[1][1] + w[2] * d[2][1] + w[3] * d[3][1];
                g11 += px[k] * px[k];
                g12 += px[k] * py[k];
                g22 += py[k] * py[k];
            }
        const double det = g11 * g22 - g12 * g12;
        const double min_eig =
            (g22 + g11 - sqrt((g11 - g22) * (g11 - g22) + 4.0 * g12 * g12)) / (2.0 * ww * wh) /
            1024.0;
        if (min_eig < p->min_eig_threshold || det / (1024.0 * 1024.0) < FLT_EPSILON) {
            if (L == 0)
                *status = 0;
            continue;
        }
        double cx = qx - hx, cy = qy - hy, pdx = 0.0, pdy = 0.0;
        for (int j = 0; j < p->max_iterations; j++) {
            if (!window_inside(cx, cy, ww, wh, J->w, J->h)) {
                if (L == 0)
                    *status = 0;
                break;
            }
            double b1 = 0.0, b2 = 0.0;
            for (int y = 0; y < wh; y++)
                for (int x = 0; x < ww; x++) {
                    const int k = y * ww + x;
                    const double diff = bilinear(J, cx + x, cy + y) - pi[k];
                    b1 += diff * px[k];
                    b2 += diff * py[k];
                }
            const double dx = (g12 * b2 - g22 * b1) / det, dy = (g12 * b1 - g11 * b2) / det;
            cx += dx;
            cy += dy;
            qx = cx + hx;
            qy = cy + hy;
            if (dx * dx + dy * dy <= eps * eps)
                break;
            if (j > 0 && fabs(dx + pdx) < 0.01 && fabs(dy + pdy) < 0.01) {
                qx -= dx * 0.5;
                qy -= dy * 0.5;
                break;
            }
            pdx = dx;
            pdy = dy;
        }
        if (L == 0 && *status) {
            const double ex = qx - hx, ey = qy - hy;
            if (!window_inside(ex, ey, ww, wh, J->w, J->h)) {
                *status = 0;
            } else if (err) {
                double s = 0.0;
                for (int y = 0; y < wh; y++)
                    for (int x = 0; x < ww; x++)
                        s += fabs(bilinear(J, ex + x, ey + y) - pi[y * ww + x]);
                *err = (float)(s / (ww * wh));
            }
        }
    }
    out->x = (float)qx;
    out->y = (float)qy;
}

void ref_lk_track(const ref_lk_level *prev, const ref_lk_level *next, const clv_point *pts_in,
                  clv_point *pts_out, uint8_t *status, float *err, int count,
                  const clv_lk_params *p)
{
    const size_t area = (size_t)p->win_width * (size_t)p->win_height;
    double *buf = malloc(3 * area * sizeof(double));
    if (!buf)
        abort();
    for (int i = 0; i < count; i++)
        track_one(prev, next, &pts_in[i], &pts_out[i], &status[i], err ? &err[i] : NULL, p, buf,
                  buf + area, buf + 2 * area);
    free(buf);
}
