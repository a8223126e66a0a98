/* Plain C references for pyramids and Shi-Tomasi corners (see ref_pyr.h). */
#include "ref_pyr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"

static float get_f(const void *p, size_t i, clv_pixel_type type)
{
    switch (type) {
    case CLV_U8: return (float)((const uint8_t *)p)[i];
    case CLV_U16: return (float)((const uint16_t *)p)[i];
    default: return ((const float *)p)[i];
    }
}

static int64_t get_i(const void *p, size_t i, clv_pixel_type type)
{
    return type == CLV_U8 ? ((const uint8_t *)p)[i] : ((const uint16_t *)p)[i];
}

static int b101(int i, int n) { return ref_border_index(i, n, CLV_BORDER_REFLECT101); }

void ref_pyr_down(const void *src, int w, int h, int cn, clv_pixel_type type, void *dst)
{
    const int dw = (w + 1) / 2, dh = (h + 1) / 2;
    static const int k[5] = {1, 4, 6, 4, 1};
    for (int y = 0; y < dh; y++) {
        int sy[5];
        for (int j = 0; j < 5; j++)
            sy[j] = b101(2 * y - 2 + j, h);
        for (int x = 0; x < dw; x++) {
            int sx[5];
            for (int i = 0; i < 5; i++)
                sx[i] = b101(2 * x - 2 + i, w);
            for (int c = 0; c < cn; c++) {
                const size_t o = ((size_t)y * dw + x) * cn + c;
                if (type == CLV_F32) {
                    /* OpenCV's order: c*6 + (b + d)*4 + a + e per row, then
                     * over the rows, times 1/256 */
                    float r[5];
                    for (int j = 0; j < 5; j++) {
                        float v[5];
                        for (int i = 0; i < 5; i++)
                            v[i] = get_f(src, ((size_t)sy[j] * w + sx[i]) * cn + c, type);
                        r[j] = v[2] * 6.0f + (v[1] + v[3]) * 4.0f + v[0] + v[4];
                    }
                    ((float *)dst)[o] =
                        (r[2] * 6.0f + (r[1] + r[3]) * 4.0f + r[0] + r[4]) * (1.0f / 256.0f);
                } else {
                    int64_t s = 0;
                    for (int j = 0; j < 5; j++)
                        for (int i = 0; i < 5; i++)
                            s += k[j] * k[i] *
                                 get_i(src, ((size_t)sy[j] * w + sx[i]) * cn + c, type);
                    const int64_t v = (s + 128) >> 8;
                    if (type == CLV_U8)
                        ((uint8_t *)dst)[o] = (uint8_t)v;
                    else
                        ((uint16_t *)dst)[o] = (uint16_t)v;
                }
            }
        }
    }
}

void ref_min_eigen(const void *src, int w, int h, clv_pixel_type type, int block_size,
                   float *resp)
{
    const double scale = 1.0 / (4.0 * block_size * (type == CLV_U8 ? 255.0 : 1.0));
    const float f1 = (float)scale, f0 = (float)(2.0 * scale);
    const int r = block_size / 2;
    const size_t n = (size_t)w * h;
    float *cov = malloc(n * 3 * sizeof *cov);
    float *hsum = malloc(n * 3 * sizeof *hsum);
    if (!cov || !hsum)
        abort();
    for (int y = 0; y < h; y++) {
        const int ym = b101(y - 1, h), yp = b101(y + 1, h);
        for (int x = 0; x < w; x++) {
            const int xm = b101(x - 1, w), xp = b101(x + 1, w);
#define PX(xx, yy) get_f(src, (size_t)(yy) * w + (xx), type)
            const float a0 = PX(xm, ym), b0 = PX(x, ym), c0 = PX(xp, ym);
            const float a1 = PX(xm, y), c1 = PX(xp, y);
            const float a2 = PX(xm, yp), b2 = PX(x, yp), c2 = PX(xp, yp);
#undef PX
            const float gx0 = c0 - a0, gx1 = c1 - a1, gx2 = c2 - a2;
            const float gy0 = (a0 + c0) + 2.0f * b0, gy2 = (a2 + c2) + 2.0f * b2;
            const float dx = (gx0 + gx2) * f1 + gx1 * f0;
            const float dy = (gy2 - gy0) * f1;
            float *cv = cov + ((size_t)y * w + x) * 3;
            cv[0] = dx * dx;
            cv[1] = dx * dy;
            cv[2] = dy * dy;
        }
    }
    /* unnormalised box sum, rows then columns, reflect101 on the products */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 3; c++) {
                float s = 0.0f;
                for (int i = -r; i <= r; i++)
                    s += cov[((size_t)y * w + b101(x + i, w)) * 3 + c];
                hsum[((size_t)y * w + x) * 3 + c] = s;
            }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float s[3];
            for (int c = 0; c < 3; c++) {
                s[c] = 0.0f;
                for (int j = -r; j <= r; j++)
                    s[c] += hsum[((size_t)b101(y + j, h) * w + x) * 3 + c];
            }
            const float a = s[0] * 0.5f, b = s[1], c = s[2] * 0.5f;
            resp[(size_t)y * w + x] = (a + c) - sqrtf((a - c) * (a - c) + b * b);
        }
    free(cov);
    free(hsum);
}

typedef struct cand {
    float v;
    uint32_t idx;
} cand;

static int cmp_cand(const void *pa, const void *pb)
{
    const cand *a = pa, *b = pb;
    if (a->v != b->v)
        return a->v > b->v ? -1 : 1;
    return a->idx > b->idx ? -1 : a->idx < b->idx ? 1 : 0;
}

int ref_corners_from_response(const float *resp, int w, int h, const uint8_t *mask,
                              int max_corners, double quality, double min_distance, int cap,
                              clv_corner *out)
{
    float maxv = 0.0f;
    for (size_t i = 0; i < (size_t)w * h; i++)
        if ((!mask || mask[i]) && resp[i] > maxv)
            maxv = resp[i];
    const float thr = maxv * (float)quality;
    cand *cs = NULL;
    size_t n = 0, ncap = 0;
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++) {
            const size_t i = (size_t)y * w + x;
            const float v = resp[i];
            if (!(v > thr) || (mask && !mask[i]))
                continue;
            int ok = 1;
            for (int dy = -1; dy <= 1 && ok; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    if (resp[(size_t)(y + dy) * w + (x + dx)] > v)
                        ok = 0;
            if (!ok)
                continue;
            if (n == ncap) {
                ncap = ncap ? ncap * 2 : 1024;
                cs = realloc(cs, ncap * sizeof *cs);
                if (!cs)
                    abort();
            }
            cs[n].v = v;
            cs[n].idx = (uint32_t)i;
            n++;
        }
    if (n > 0)
        qsort(cs, n, sizeof *cs, cmp_cand);
    if (n > (size_t)cap) {
        /* keep the responses strictly above the (cap+1)-th */
        const float cut = cs[cap].v;
        size_t m = 0;
        while (m < n && cs[m].v > cut)
            m++;
        n = m;
    }

    /* OpenCV's greedy grid: cells of round(min_distance), 3x3 neighbourhood */
    int found = 0;
    const int use_grid = min_distance >= 1.0;
    const int cell = use_grid ? (int)lrint(min_distance) : 1;
    const int gw = (w + cell - 1) / cell, gh = (h + cell - 1) / cell;
    int *head = NULL, *next = NULL;
    if (use_grid) {
        head = malloc((size_t)gw * gh * sizeof *head);
        next = malloc((size_t)(max_corners + 1) * sizeof *next);
        if (!head || !next)
            abort();
        for (size_t i = 0; i < (size_t)gw * gh; i++)
            head[i] = -1;
    }
    const double d2 = min_distance * min_distance;
    for (size_t i = 0; i < n && found < max_corners; i++) {
        const int x = (int)(cs[i].idx % (uint32_t)w), y = (int)(cs[i].idx / (uint32_t)w);
        int good = 1;
        if (use_grid) {
            const int cx = x / cell, cy = y / cell;
            for (int yy = cy - 1; yy <= cy + 1 && good; yy++)
                for (int xx = cx - 1; xx <= cx + 1 && good; xx++) {
                    if (yy < 0 || xx < 0 || yy >= gh || xx >= gw)
                        continue;
                    for (int e = head[yy * gw + xx]; e >= 0 && good; e = next[e]) {
                        const double dx = x - out[e].x, dy = y - out[e].y;
                        if (dx * dx + dy * dy < d2)
                            good = 0;
                    }
                }
        }
        if (!good)
            continue;
        out[found].x = (float)x;
        out[found].y = (float)y;
        out[found].response = cs[i].v;
        if (use_grid) {
            const int c = (y / cell) * gw + x / cell;
            next[found] = head[c];
            head[c] = found;
        }
        found++;
    }
    free(head);
    free(next);
    free(cs);
    return found;
}

int ref_corners(const void *src, int w, int h, clv_pixel_type type, const uint8_t *mask,
                int max_corners, double quality, double min_distance, int block_size,
                clv_corner *out)
{
    float *resp = malloc((size_t)w * h * sizeof *resp);
    if (!resp)
        abort();
    ref_min_eigen(src, w, h, type, block_size, resp);
    int n = ref_corners_from_response(resp, w, h, mask, max_corners, quality, min_distance,
                                      REF_CORNERS_CAP, out);
    free(resp);
    return n;
}
