/* clv_resize against the plain C reference (tests/ref). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"
#include "testutil.h"

static clv_context *ctx;
static int passed;
static uint64_t seed = 2000;

static const clv_pixel_type all_types[] = {CLV_U8, CLV_U16, CLV_F32};
static const int all_cn[] = {1, 3, 4};
#define N_TYPES 3
#define N_CN 3

/* Resizes src (packed host pixels, sw x sh) to dw x dh, compares with the
 * reference. */
static void run_resize(const void *src, int sw, int sh, int dw, int dh, int cn,
                       clv_pixel_type type, size_t pad, const char *tag)
{
    char label[256];
    snprintf(label, sizeof label, "resize %s%s %s c%d %dx%d -> %dx%d%s", tag,
             tag[0] ? "" : "random", clv_pixel_type_name(type), cn, sw, sh, dw, dh,
             pad ? " (padded host stride)" : "");
    clv_image *s = th_upload(ctx, src, sw, sh, cn, type, pad);
    clv_image *d = th_poisoned(ctx, dw, dh, cn, type);
    clv_status st = clv_resize(ctx, s, d);
    if (st != CLV_OK) {
        CHECK(0, "%s: %s: %s", label, clv_status_string(st), clv_last_error(ctx));
    } else {
        void *want = th_malloc(th_image_bytes(dw, dh, cn, type));
        ref_resize_bilinear(src, sw, sh, cn, type, want, dw, dh);
        passed += th_check_output(ctx, d, want, pad, REF_RESIZE, label);
        free(want);
    }
    clv_image_release(s);
    clv_image_release(d);
}

static void run_random(int sw, int sh, int dw, int dh, int cn, clv_pixel_type type, size_t pad)
{
    void *src = th_random_pixels(sw, sh, cn, type, seed++);
    run_resize(src, sw, sh, dw, dh, cn, type, pad, "");
    free(src);
}

static void photo(void)
{
    void *px = NULL;
    int w, h, cn;
    int r = th_load_photo("chelsea.png", CLV_U8, &px, &w, &h, &cn);
    CHECK(r >= 0, "chelsea.png exists but could not be read");
    if (r > 0) {
        run_resize(px, w, h, w * 2 / 5, h * 2 / 5, cn, CLV_U8, 0, "chelsea");
        run_resize(px, w, h, w * 7 / 3, h * 9 / 4, cn, CLV_U8, 13, "chelsea");
        free(px);
    }
    if (r <= 0)
        return;
    r = th_load_photo("chelsea.png", CLV_F32, &px, &w, &h, &cn);
    if (r > 0) {
        run_resize(px, w, h, w / 2, h / 2, cn, CLV_F32, 0, "chelsea");
        free(px);
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* keep result lines in order with stderr */
    ctx = test_context();
    printf("device: %s (%s)\n", clv_context_device_name(ctx), clv_context_platform_name(ctx));

    /* Small shapes, every type and channel count: identity, 1x1 -> NxM,
     * NxM -> 1x1, exact 2x up and down, non-integer ratios either way,
     * mixed (up in x, down in y), single rows and columns. */
    static const int small[][4] = {
        {1, 1, 1, 1},  {1, 1, 5, 3},    {1, 1, 1, 7},   {7, 3, 1, 1},    {7, 3, 14, 6},
        {7, 3, 13, 5}, {7, 3, 3, 2},    {3, 3, 7, 5},   {67, 45, 67, 45}, {67, 45, 100, 33},
        {64, 48, 32, 24}, {67, 45, 33, 22}, {5, 1, 17, 1}, {1, 5, 1, 3},  {9, 7, 2, 11},
    };
    for (int p = 0; p < (int)(sizeof small / sizeof small[0]); p++)
        for (int t = 0; t < N_TYPES; t++)
            for (int c = 0; c < N_CN; c++)
                run_random(small[p][0], small[p][1], small[p][2], small[p][3], all_cn[c],
                           all_types[t], 0);

    /* Exact halving (the CPU path's own kernel): every channel count incl. 2
     * (flow fields), rows whose last values take the scalar tail, widths
     * around the 16- and 48-value vector blocks. */
    static const int halves[][2] = {{2, 2}, {4, 6}, {34, 2}, {38, 10}, {64, 4}, {66, 6},
                                    {98, 6}, {130, 4}, {226, 8}};
    static const int cn4[] = {1, 2, 3, 4};
    for (int p = 0; p < (int)(sizeof halves / sizeof halves[0]); p++)
        for (int t = 0; t < N_TYPES; t++)
            for (int c = 0; c < 4; c++)
                run_random(halves[p][0], halves[p][1], halves[p][0] / 2, halves[p][1] / 2, cn4[c],
                           all_types[t], 0);

    /* Strips (the CPU path's other kernel): rows per work-item 16, so
     * heights around it; widths around 16 values; x up and y down. */
    static const int strips[][4] = {{5, 40, 8, 33}, {11, 7, 16, 17}, {23, 50, 17, 15},
                                    {40, 3, 61, 32}, {9, 9, 33, 49}};
    for (int p = 0; p < (int)(sizeof strips / sizeof strips[0]); p++)
        for (int t = 0; t < N_TYPES; t++)
            for (int c = 0; c < 4; c++)
                run_random(strips[p][0], strips[p][1], strips[p][2], strips[p][3], cn4[c],
                           all_types[t], 0);

    /* Upscaling (GPUs' u8 resize_up_reg: 4 pixels of 8 rows per work-item,
     * a source row's blend reused by the next rows): widths around 4 pixels,
     * heights around 8 rows, ratios 1.5, just over 1 and above 2, x down. */
    static const int ups[][4] = {{41, 23, 61, 35}, {8, 5, 12, 8}, {13, 11, 14, 17},
                                 {6, 3, 15, 9},    {30, 7, 19, 25}};
    for (int p = 0; p < (int)(sizeof ups / sizeof ups[0]); p++)
        for (int t = 0; t < N_TYPES; t++)
            for (int c = 0; c < 4; c++)
                run_random(ups[p][0], ups[p][1], ups[p][2], ups[p][3], cn4[c], all_types[t], 0);

    /* Padded host strides. */
    run_random(7, 3, 13, 5, 3, CLV_U16, 13);
    run_random(67, 45, 33, 22, 4, CLV_F32, 13);

    /* Larger: exact 2x down, non-integer down, HD down to VGA and back up. */
    for (int t = 0; t < N_TYPES; t++)
        for (int c = 0; c < N_CN; c++)
            run_random(640, 480, 320, 240, all_cn[c], all_types[t], 0);
    run_random(640, 480, 427, 301, 3, CLV_U8, 13);
    run_random(640, 480, 427, 301, 4, CLV_U16, 0);
    run_random(640, 480, 427, 301, 1, CLV_F32, 0);
    run_random(1920, 1080, 640, 480, 1, CLV_U8, 0);
    run_random(1920, 1080, 640, 480, 3, CLV_U8, 0);
    run_random(1920, 1080, 640, 480, 3, CLV_F32, 0);
    run_random(640, 480, 1920, 1080, 3, CLV_U8, 0);
    run_random(640, 480, 1920, 1080, 4, CLV_F32, 0);
    run_random(640, 480, 1920, 1080, 1, CLV_U16, 13);

    photo();

    clv_context_release(ctx);
    return test_finish("resize", passed);
}
