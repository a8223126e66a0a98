/* clv_box_filter against the plain C reference (tests/ref). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ref/ref.h"
#include "testutil.h"

static clv_context *ctx;
static int passed;
static uint64_t seed = 1000;

static const clv_pixel_type all_types[] = {CLV_U8, CLV_U16, CLV_F32};
static const int all_cn[] = {1, 3, 4};
static const clv_border all_borders[] = {CLV_BORDER_REFLECT101, CLV_BORDER_REPLICATE,
                                         CLV_BORDER_REFLECT, CLV_BORDER_CONSTANT,
                                         CLV_BORDER_WRAP};
#define N_TYPES 3
#define N_CN 3
#define N_BORDERS 5

/* Runs the filter on src (packed host pixels), compares with ref_box. */
static void run_box(const void *src, int w, int h, int cn, clv_pixel_type type, int kx, int ky,
                    clv_border border, size_t pad, const char *tag)
{
    char label[256];
    snprintf(label, sizeof label, "box %s%s %s c%d %dx%d k=%dx%d %s%s", tag, tag[0] ? "" : "random",
             clv_pixel_type_name(type), cn, w, h, kx, ky, clv_border_name(border),
             pad ? " (padded host stride)" : "");
    clv_image *s = th_upload(ctx, src, w, h, cn, type, pad);
    clv_image *d = th_poisoned(ctx, w, h, cn, type);
    clv_status st = clv_box_filter(ctx, s, d, kx, ky, border);
    if (st != CLV_OK) {
        CHECK(0, "%s: %s: %s", label, clv_status_string(st), clv_last_error(ctx));
    } else {
        void *want = th_malloc(th_image_bytes(w, h, cn, type));
        ref_box(src, w, h, cn, type, want, kx, ky, border);
        passed += th_check_output(ctx, d, want, pad, REF_FILTER, label);
        free(want);
    }
    clv_image_release(s);
    clv_image_release(d);
}

static void run_random(int w, int h, int cn, clv_pixel_type type, int kx, int ky,
                       clv_border border, size_t pad)
{
    void *src = th_random_pixels(w, h, cn, type, seed++);
    run_box(src, w, h, cn, type, kx, ky, border, pad, "");
    free(src);
}

static void photo(void)
{
    void *px = NULL;
    int w, h, cn;
    int r = th_load_photo("chelsea.png", CLV_U8, &px, &w, &h, &cn);
    CHECK(r >= 0, "chelsea.png exists but could not be read");
    if (r > 0) {
        run_box(px, w, h, cn, CLV_U8, 5, 5, CLV_BORDER_REFLECT101, 0, "chelsea");
        run_box(px, w, h, cn, CLV_U8, 2, 9, CLV_BORDER_REPLICATE, 13, "chelsea");
        free(px);
    }
    if (r <= 0)
        return;
    r = th_load_photo("chelsea.png", CLV_F32, &px, &w, &h, &cn);
    if (r > 0) {
        run_box(px, w, h, cn, CLV_F32, 31, 31, CLV_BORDER_REFLECT, 0, "chelsea");
        free(px);
    }
}

/* Issue 13 #3: finite f32 values near FLT_MAX give finite means (a 3x3 sum
 * of 1e38 is beyond float), within 1e-4 of the double reference. Both
 * window paths (one pass for small windows, running sums for 31x31). */
static void large_values(void)
{
    static const int ks[] = {3, 31};
    for (int kind = 0; kind < TH_LARGE_KINDS; kind++)
        for (int cn = 1; cn <= 3; cn += 2)
            for (int k = 0; k < 2; k++) {
                float *src = th_large_pixels(67, 45, cn, kind);
                run_box(src, 67, 45, cn, CLV_F32, ks[k], ks[k], CLV_BORDER_REFLECT101, 0,
                        th_large_name(kind));
                if (cn == 1)
                    run_box(src, 67, 45, cn, CLV_F32, ks[k], ks[k] + 2, CLV_BORDER_CONSTANT, 0,
                            th_large_name(kind));
                free(src);
            }
}

/* ---- through the shared harness (tests/harness.h) ---- */

static void box_ref(const harness_case *c, void *user)
{
    (void)user;
    const clv_host_image *s = harness_in(c, "src");
    ref_box(s->data, s->width, s->height, s->channels, s->type, harness_out(c, "dst")->data,
            harness_int(c, "ksize_x"), harness_int(c, "ksize_y"),
            (clv_border)harness_int(c, "border"));
}

/* The first window (5x7: non-square, odd, larger than the 1x1, 7x3 and 7x5
 * images) runs on every size, type, channel count and border; with 7x3 and
 * 67x45 added that is the former hand-written small-size loop, plus 2
 * channels and the harness's degenerate sizes. The other windows: identity,
 * the 3x5 of the issue, the 1-D 31x1 and 1x31, even 2x4 (anchor k/2), and
 * 255x3 (the largest width), each on every size and border. */
static void harness_cases(void)
{
    static const harness_args windows[] = {
        HARNESS_SET(HARNESS_INT("ksize_x", 5), HARNESS_INT("ksize_y", 7)),
        HARNESS_SET(HARNESS_INT("ksize_x", 1), HARNESS_INT("ksize_y", 1)),
        HARNESS_SET(HARNESS_INT("ksize_x", 3), HARNESS_INT("ksize_y", 5)),
        HARNESS_SET(HARNESS_INT("ksize_x", 31), HARNESS_INT("ksize_y", 1)),
        HARNESS_SET(HARNESS_INT("ksize_x", 1), HARNESS_INT("ksize_y", 31)),
        HARNESS_SET(HARNESS_INT("ksize_x", 2), HARNESS_INT("ksize_y", 4)),
        HARNESS_SET(HARNESS_INT("ksize_x", 255), HARNESS_INT("ksize_y", 3)),
    };
    static const harness_size former[] = {{7, 3}, {67, 45}};
    const harness_result r = harness_run(
        ctx, &(harness_spec){.op = "box_filter", .ref = box_ref, .sweep = windows,
                             .nsweep = HARNESS_COUNT(windows), .extra_sizes = former,
                             .nextra_sizes = HARNESS_COUNT(former)});
    CHECK(r.cases >= 700, "box_filter: only %d harness cases", r.cases);
    passed += r.cases - r.failures;
}

/* GPUs' u8 kernel with the window compiled in (box_reg; run with
 * CLV_TUNE=gpu on PoCL): a program per window, channel count and border, so
 * a compact set that still reaches every channel count and border, windows
 * from 1x1 to the largest (9x9), even ones (anchor k/2), windows whose reach
 * is not a whole number of 4-byte words, and sizes whose rows end inside a
 * word (widths * channels not a multiple of 4), whose rows are too short for
 * any aligned load (1x1, 7x3), and whose height is not a multiple of the
 * rows per work-item; then two large random images and the photo. */
/* A window case of the GPU kernels' compact sets, run on each of sizes[]
 * (the fourth size with a padded host stride). */
typedef struct window_case {
    int cn, kx, ky;
    clv_border border;
} window_case;

static void run_window_cases(const window_case *cases, int ncases, const int (*sizes)[2],
                             int nsizes, clv_pixel_type type)
{
    for (int c = 0; c < ncases; c++)
        for (int s = 0; s < nsizes; s++)
            run_random(sizes[s][0], sizes[s][1], cases[c].cn, type, cases[c].kx, cases[c].ky,
                       cases[c].border, s == 3 ? 13 : 0);
}

/* type: u8 (box_reg, CLV_TUNE=gpu) or f32 (box_regf, CLV_U8_REG=boxf: the
 * same window cases, values scaled as loaded and summed in float, within
 * the harness's f32 tolerance; and values near FLT_MAX) */
static void fixed_window(clv_pixel_type type)
{
    static const int sizes[][2] = {{67, 45}, {7, 3}, {1, 1}, {130, 37}, {16, 9}, {21, 14}};
    static const window_case cases[] = {
        {1, 5, 5, CLV_BORDER_REFLECT101}, {2, 5, 5, CLV_BORDER_REFLECT101},
        {3, 5, 5, CLV_BORDER_REFLECT101}, {4, 5, 5, CLV_BORDER_REFLECT101},
        {3, 3, 5, CLV_BORDER_REPLICATE},  {3, 3, 5, CLV_BORDER_REFLECT},
        {3, 3, 5, CLV_BORDER_CONSTANT},   {3, 3, 5, CLV_BORDER_WRAP},
        {1, 1, 1, CLV_BORDER_CONSTANT},   {2, 2, 4, CLV_BORDER_WRAP},
        {1, 9, 9, CLV_BORDER_REFLECT},    {4, 9, 9, CLV_BORDER_CONSTANT},
        {3, 9, 1, CLV_BORDER_REPLICATE},  {1, 1, 9, CLV_BORDER_REFLECT101},
        {3, 4, 6, CLV_BORDER_REFLECT101}, {4, 7, 3, CLV_BORDER_WRAP},
        {1, 3, 3, CLV_BORDER_REPLICATE},  {1, 6, 2, CLV_BORDER_CONSTANT},
    };
    run_window_cases(cases, (int)(sizeof cases / sizeof cases[0]), sizes,
                     (int)(sizeof sizes / sizeof sizes[0]), type);
    /* widths either side of the narrowest row box_reg takes (more pixels
     * than a work-item's loaded values: 13, 21 and 37 here), where one
     * reflection at the row ends must reach every value */
    for (int w = 9; w <= 40; w++) {
        run_random(w, 5, 1, type, 5, 5, CLV_BORDER_REFLECT101, 0);
        run_random(w, 4, 3, type, 5, 5, CLV_BORDER_REFLECT, 0);
        run_random(w, 3, 4, type, 9, 9, CLV_BORDER_WRAP, 0);
    }
    run_random(1920, 1080, 1, type, 5, 5, CLV_BORDER_REFLECT101, 0);
    run_random(640, 480, 3, type, 5, 5, CLV_BORDER_REFLECT101, 0);
    if (type == CLV_F32)
        large_values();
    void *px = NULL;
    int w, h, cn;
    const int r = th_load_photo("chelsea.png", type, &px, &w, &h, &cn);
    CHECK(r > 0, "chelsea.png did not load");
    if (r > 0) {
        run_box(px, w, h, cn, type, 5, 5, CLV_BORDER_REFLECT101, 0, "chelsea");
        run_box(px, w, h, cn, type, 9, 9, CLV_BORDER_CONSTANT, 0, "chelsea");
        free(px);
    }
}

/* GPUs' u8 box as two wide passes through a u16 image of row sums
 * (box_wh with the window's width compiled in, box_wv; run with
 * CLV_TUNE=gpu CLV_U8_REG=boxw on PoCL), and type f32 the same through a
 * float image (box_whf, box_wvf; CLV_U8_REG=boxfw): every
 * channel count and border,
 * windows from 1x1 to the widest box_wh takes (a reach of 64 values a
 * side: 129 wide in one channel, 65 in two, 43 in three, 33 in four) and
 * one past it per channel count (box_rows + box_cols take those), the same
 * for box_whf (48 values: 97, 49, 33, 25), even windows,
 * windows taller and wider than the image, rows whose values are not a
 * multiple of 16 or 8 (the passes' vectors) and heights not a multiple of
 * box_wv's rows per work-item; then a large image and the photo. */
static void wide(clv_pixel_type type)
{
    static const int sizes[][2] = {{67, 45}, {7, 3}, {1, 1}, {130, 37}, {33, 70}};
    static const window_case cases[] = {
        {1, 5, 5, CLV_BORDER_REFLECT101},   {3, 5, 5, CLV_BORDER_REFLECT101},
        {1, 31, 31, CLV_BORDER_REFLECT101}, {3, 31, 31, CLV_BORDER_REPLICATE},
        {2, 49, 3, CLV_BORDER_REFLECT},     {4, 25, 40, CLV_BORDER_CONSTANT},
        {1, 97, 2, CLV_BORDER_WRAP},        {1, 98, 5, CLV_BORDER_REFLECT101},
        {3, 33, 17, CLV_BORDER_WRAP},       {3, 34, 9, CLV_BORDER_CONSTANT},
        {4, 26, 1, CLV_BORDER_REPLICATE},   {1, 1, 1, CLV_BORDER_CONSTANT},
        {3, 16, 1, CLV_BORDER_REFLECT},     {1, 1, 255, CLV_BORDER_REFLECT101},
    };
    run_window_cases(cases, (int)(sizeof cases / sizeof cases[0]), sizes,
                     (int)(sizeof sizes / sizeof sizes[0]), type);
    /* box_wh's widest reach (64 values a side) and one past it, on rows
     * wider than the 144 values a work-item then loads (the pass needs more
     * pixels than that), one of them with a padded host stride */
    static const window_case reach64[] = {
        {1, 129, 3, CLV_BORDER_REFLECT101}, {1, 130, 2, CLV_BORDER_WRAP},
        {2, 65, 4, CLV_BORDER_REPLICATE},   {3, 43, 5, CLV_BORDER_REFLECT},
        {3, 44, 3, CLV_BORDER_REFLECT101},  {4, 33, 9, CLV_BORDER_WRAP},
        {4, 34, 2, CLV_BORDER_CONSTANT},    {4, 31, 31, CLV_BORDER_REFLECT101},
    };
    for (size_t c = 0; c < sizeof reach64 / sizeof reach64[0]; c++) {
        const window_case *k = &reach64[c];
        run_random(147, 21, k->cn, type, k->kx, k->ky, k->border, 0);
        run_random(163, 6, k->cn, type, k->kx, k->ky, k->border, 13);
    }
    /* widths either side of the narrowest row the first pass takes (more
     * pixels than its loaded values, box_wh's and box_whf's alike: 49 in one
     * channel, 113 for 31 wide in three), where one reflection at the row
     * ends must reach every value */
    for (int w = 45; w <= 52; w++) {
        run_random(w, 5, 1, type, 5, 5, CLV_BORDER_REFLECT101, 0);
        run_random(w, 4, 1, type, 31, 3, CLV_BORDER_WRAP, 0);
        run_random(w + 64, 3, 3, type, 31, 5, CLV_BORDER_REFLECT, 0);
    }
    /* heights either side of the shortest image whose rows box_wv takes
     * through one reflection (more rows than the window reaches: 5 and 4
     * here) */
    for (int h = 1; h <= 6; h++) {
        run_random(53, h, 1, type, 5, 9, CLV_BORDER_REFLECT101, 0);
        run_random(50, h, 2, type, 3, 8, CLV_BORDER_WRAP, 0);
    }
    run_random(1920, 1080, 1, type, 31, 31, CLV_BORDER_REFLECT101, 0);
    if (type == CLV_F32)
        large_values();
    void *px = NULL;
    int w, h, cn;
    const int r = th_load_photo("chelsea.png", type, &px, &w, &h, &cn);
    CHECK(r > 0, "chelsea.png did not load");
    if (r > 0) {
        run_box(px, w, h, cn, type, 31, 31, CLV_BORDER_REFLECT101, 0, "chelsea");
        run_box(px, w, h, cn, type, 5, 5, CLV_BORDER_REFLECT101, 0, "chelsea");
        free(px);
    }
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* keep result lines in order with stderr */
    ctx = test_context();
    printf("device: %s (%s)\n", clv_context_device_name(ctx), clv_context_platform_name(ctx));
    if (argc > 1 && strcmp(argv[1], "fixed") == 0) {
        fixed_window(CLV_U8);
        clv_context_release(ctx);
        return test_finish("box (window compiled in)", passed);
    }
    if (argc > 1 && strcmp(argv[1], "fixed-f32") == 0) {
        fixed_window(CLV_F32);
        clv_context_release(ctx);
        return test_finish("box (f32, window compiled in)", passed);
    }
    if (argc > 1 && strcmp(argv[1], "fixed-u16") == 0) {
        fixed_window(CLV_U16);
        clv_context_release(ctx);
        return test_finish("box (u16 through the f32 kernel, window compiled in)", passed);
    }
    if (argc > 1 && strcmp(argv[1], "wide-u16") == 0) {
        wide(CLV_U16);
        clv_context_release(ctx);
        return test_finish("box (u16 through the wide f32 passes)", passed);
    }
    if (argc > 1 && strcmp(argv[1], "wide-f32") == 0) {
        wide(CLV_F32);
        clv_context_release(ctx);
        return test_finish("box (wide f32 passes)", passed);
    }
    if (argc > 1 && strcmp(argv[1], "wide") == 0) {
        wide(CLV_U8);
        clv_context_release(ctx);
        return test_finish("box (wide u8 passes)", passed);
    }

    large_values();

    /* Every type, channel count and border at tiny, degenerate and small odd
     * sizes, and a sweep of windows: the harness. */
    harness_cases();

    /* The CPU path's one-pass kernel for narrow windows (reach left and
     * right at most 8 values): both sides of its limit per channel count,
     * every border, widths around its 256-value blocks. */
    static const int fused[][4] = {{1, 17, 300, 20}, {1, 16, 256, 9}, {1, 18, 257, 9},
                                   {3, 5, 90, 20},   {3, 6, 86, 9},   {3, 7, 85, 9},
                                   {4, 5, 64, 17},   {4, 4, 65, 5},   {4, 6, 63, 5}};
    for (int f = 0; f < (int)(sizeof fused / sizeof fused[0]); f++)
        for (int b = 0; b < N_BORDERS; b++)
            for (int t = 0; t < N_TYPES; t++)
                run_random(fused[f][2], fused[f][3], fused[f][0], all_types[t], fused[f][1], 3,
                           all_borders[b], 0);

    /* Window shapes, every border: identity, square, even (anchor k/2),
     * even non-square, large, the extreme 1-D windows. */
    static const int ks[][2] = {{1, 1},  {3, 3},  {2, 2},   {4, 6},  {31, 31},
                                {48, 3}, {49, 2}, {1, 255}, {255, 1}};
    for (int k = 0; k < (int)(sizeof ks / sizeof ks[0]); k++)
        for (int b = 0; b < N_BORDERS; b++) {
            run_random(67, 45, 1, CLV_U8, ks[k][0], ks[k][1], all_borders[b], 0);
            run_random(67, 45, 3, CLV_F32, ks[k][0], ks[k][1], all_borders[b], 0);
        }
    /* Windows far larger than the image: radius 127 around a single pixel. */
    static const int big[][2] = {{255, 255}, {1, 255}, {255, 1}, {2, 2}, {31, 31}};
    for (int k = 0; k < 5; k++)
        for (int b = 0; b < N_BORDERS; b++) {
            run_random(1, 1, 1, CLV_U8, big[k][0], big[k][1], all_borders[b], 0);
            run_random(7, 3, 4, CLV_F32, big[k][0], big[k][1], all_borders[b], 0);
        }

    /* Padded host strides. */
    run_random(7, 3, 3, CLV_U16, 3, 3, CLV_BORDER_REFLECT, 13);
    run_random(67, 45, 4, CLV_F32, 2, 2, CLV_BORDER_WRAP, 13);

    /* 640x480: every type and channel count, two borders. */
    for (int t = 0; t < N_TYPES; t++)
        for (int c = 0; c < N_CN; c++) {
            run_random(640, 480, all_cn[c], all_types[t], 5, 7, CLV_BORDER_REFLECT101,
                       all_cn[c] == 3 ? 13 : 0);
            run_random(640, 480, all_cn[c], all_types[t], 5, 7, CLV_BORDER_CONSTANT, 0);
        }
    run_random(640, 480, 3, CLV_U8, 31, 31, CLV_BORDER_REPLICATE, 0);
    run_random(640, 480, 1, CLV_F32, 2, 2, CLV_BORDER_WRAP, 0);
    run_random(640, 480, 3, CLV_U16, 255, 3, CLV_BORDER_REFLECT101, 0);

    /* 1920x1080: a few. */
    run_random(1920, 1080, 1, CLV_U8, 3, 3, CLV_BORDER_REFLECT101, 0);
    run_random(1920, 1080, 4, CLV_F32, 31, 31, CLV_BORDER_WRAP, 0);
    run_random(1920, 1080, 3, CLV_U16, 5, 7, CLV_BORDER_REFLECT, 13);
    run_random(1920, 1080, 1, CLV_U8, 1, 255, CLV_BORDER_CONSTANT, 0);
    run_random(1920, 1080, 4, CLV_U8, 63, 5, CLV_BORDER_WRAP, 0);

    photo();

    clv_context_release(ctx);
    return test_finish("box", passed);
}
