/* clv_transpose against the plain C reference (tests/ref); exact match. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"
#include "testutil.h"

static clv_context *ctx;
static int passed;
static uint64_t seed = 4000;

static const clv_pixel_type all_types[] = {CLV_U8, CLV_U16, CLV_F32};
static const int all_cn[] = {1, 3, 4};
#define N_TYPES 3
#define N_CN 3

/* Transposes src (packed host pixels, w x h), compares with the reference. */
static void run_transpose(const void *src, int w, int h, int cn, clv_pixel_type type, size_t pad,
                          const char *tag)
{
    char label[256];
    snprintf(label, sizeof label, "transpose %s%s %s c%d %dx%d%s", tag, tag[0] ? "" : "random",
             clv_pixel_type_name(type), cn, w, h, pad ? " (padded host stride)" : "");
    clv_image *s = th_upload(ctx, src, w, h, cn, type, pad);
    clv_image *d = th_poisoned(ctx, h, w, cn, type);
    clv_status st = clv_transpose(ctx, s, d);
    if (st != CLV_OK) {
        CHECK(0, "%s: %s: %s", label, clv_status_string(st), clv_last_error(ctx));
    } else {
        void *want = th_malloc(th_image_bytes(h, w, cn, type));
        ref_transpose(src, w, h, cn, type, want);
        passed += th_check_output(ctx, d, want, pad, REF_EXACT, label);
        free(want);
    }
    clv_image_release(s);
    clv_image_release(d);
}

static void run_random(int w, int h, int cn, clv_pixel_type type, size_t pad)
{
    void *src = th_random_pixels(w, h, cn, type, seed++);
    run_transpose(src, w, h, cn, type, pad, "");
    free(src);
}

static void photo(void)
{
    void *px = NULL;
    int w, h, cn;
    int r = th_load_photo("chelsea.png", CLV_U8, &px, &w, &h, &cn);
    CHECK(r >= 0, "chelsea.png exists but could not be read");
    if (r > 0) {
        run_transpose(px, w, h, cn, CLV_U8, 0, "chelsea");
        run_transpose(px, w, h, cn, CLV_U8, 13, "chelsea");
        free(px);
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* keep result lines in order with stderr */
    ctx = test_context();
    printf("device: %s (%s)\n", clv_context_device_name(ctx), clv_context_platform_name(ctx));

    /* Every type and channel count: 1x1, thin rows and columns, odd
     * non-square, non-multiples of any tile size, exact tile multiples, and
     * around the CPU kernels' 16-pixel blocks and 64-pixel super-blocks. */
    static const int small[][2] = {{1, 1},   {7, 3},   {3, 7},  {1, 9},   {9, 1},  {67, 45},
                                   {64, 64}, {17, 33}, {16, 16}, {48, 80}, {130, 70}, {65, 129}};
    for (int si = 0; si < (int)(sizeof small / sizeof small[0]); si++)
        for (int t = 0; t < N_TYPES; t++)
            for (int c = 0; c < N_CN; c++)
                run_random(small[si][0], small[si][1], all_cn[c], all_types[t], 0);

    /* Padded host strides. */
    run_random(7, 3, 3, CLV_U16, 13);
    run_random(67, 45, 4, CLV_F32, 13);

    /* 640x480: every type and channel count. */
    for (int t = 0; t < N_TYPES; t++)
        for (int c = 0; c < N_CN; c++)
            run_random(640, 480, all_cn[c], all_types[t], all_cn[c] == 3 ? 13 : 0);

    /* 1920x1080 and its transpose's shape. */
    run_random(1920, 1080, 1, CLV_U8, 0);
    run_random(1920, 1080, 3, CLV_U8, 0);
    run_random(1920, 1080, 4, CLV_F32, 0);
    run_random(1080, 1920, 3, CLV_U16, 13);
    run_random(1920, 1080, 1, CLV_F32, 0);
    /* Destinations of 4 MiB and more take streaming stores on CPU devices
     * (u8 x 3, 4-byte pixels): odd sizes, with partial strips at the right
     * and bottom edges. */
    run_random(1931, 1087, 3, CLV_U8, 0);
    run_random(1931, 1087, 1, CLV_F32, 13);
    run_random(1087, 1931, 4, CLV_U8, 0);

    photo();

    clv_context_release(ctx);
    return test_finish("transpose", passed);
}
