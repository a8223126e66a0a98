/* bench/twin: what the CUDA and OpenCL hosts share: the image, the C
 * reference, the launch shapes and the report line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twin_util.h"

enum { TWIN_W = 3840, TWIN_H = 2160, TWIN_REPS = 41, TWIN_NK = 3 };
static const char *const twin_names[TWIN_NK] = {"copy16", "box5_naive", "box5_reg"};

/* Launch shape of kernel k: global size in work-items and the work-group
 * (the same numbers become a CUDA grid of blocks). */
static void twin_shape(int k, size_t g[2], size_t l[2])
{
    const size_t n16 = (size_t)TWIN_W * TWIN_H / 16;
    if (k == 0) {
        l[0] = 256, l[1] = 1;
        g[0] = (n16 + 255) / 256 * 256, g[1] = 1;
    } else if (k == 1) {
        l[0] = 32, l[1] = 8;
        g[0] = (TWIN_W + 31) / 32 * 32, g[1] = (TWIN_H + 7) / 8 * 8;
    } else {
        l[0] = 32, l[1] = 8;
        const size_t bands = (TWIN_H + 7) / 8; /* TWIN_PY rows per work-item */
        g[0] = (TWIN_W / 4 + 31) / 32 * 32, g[1] = (bands + 7) / 8 * 8;
    }
}

static int twin_clampi(int v, int a, int b) { return v < a ? a : v > b ? b : v; }

/* 5x5 mean, replicated border, (2 acc + 25) / 50: what box5_* must give. */
static void twin_ref_box5(const unsigned char *s, int w, int h, unsigned char *d)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int acc = 0;
            for (int j = -2; j <= 2; j++)
                for (int i = -2; i <= 2; i++)
                    acc += s[(size_t)twin_clampi(y + j, 0, h - 1) * w + twin_clampi(x + i, 0, w - 1)];
            d[(size_t)y * w + x] = (unsigned char)((acc * 2 + 25) / 50);
        }
}

/* The source (fixed pseudo-random bytes) and, per kernel, what it must give. */
static void twin_data(unsigned char *src, unsigned char *box)
{
    unsigned v = 1;
    for (size_t i = 0; i < (size_t)TWIN_W * TWIN_H; i++) {
        v = v * 1664525u + 1013904223u;
        src[i] = (unsigned char)(v >> 24);
    }
    twin_ref_box5(src, TWIN_W, TWIN_H, box);
}

static void twin_report(const char *api, const char *device, int k, float *us, const void *got,
                        const unsigned char *src, const unsigned char *box)
{
    const size_t n = (size_t)TWIN_W * TWIN_H;
    const int ok = memcmp(got, k == 0 ? src : box, n) == 0;
    printf("api=%s kernel=%s size=%dx%d dev_us_median=%.1f reps=%d result=%s device=\"%s\"\n", api,
           twin_names[k], TWIN_W, TWIN_H, twin_median(us, TWIN_REPS), TWIN_REPS,
           ok ? "ok" : "WRONG", device);
}
