/* clv_gaussian_blur against the plain C reference (tests/ref). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ref/ref.h"
#include "testutil.h"

static clv_context *ctx;
static int passed;
static uint64_t seed = 3000;

static const clv_pixel_type all_types[] = {CLV_U8, CLV_U16, CLV_F32};
static const int all_cn[] = {1, 3, 4};
static const clv_border all_borders[] = {CLV_BORDER_REFLECT101, CLV_BORDER_REPLICATE,
                                         CLV_BORDER_REFLECT, CLV_BORDER_CONSTANT,
                                         CLV_BORDER_WRAP};
#define N_TYPES 3
#define N_CN 3
#define N_BORDERS 5

/* Blur parameters as passed to clv_gaussian_blur. */
typedef struct gparams {
    double sx, sy;
    int kx, ky;
} gparams;

/* Runs the blur on src (packed host pixels), compares with ref_gaussian. */
static void run_gauss(const void *src, int w, int h, int cn, clv_pixel_type type, gparams g,
                      clv_border border, size_t pad, const char *tag)
{
    char label[256];
    snprintf(label, sizeof label, "gaussian %s%s %s c%d %dx%d sigma=%g/%g k=%dx%d %s%s", tag,
             tag[0] ? "" : "random", clv_pixel_type_name(type), cn, w, h, g.sx, g.sy, g.kx, g.ky,
             clv_border_name(border), pad ? " (padded host stride)" : "");
    clv_image *s = th_upload(ctx, src, w, h, cn, type, pad);
    clv_image *d = th_poisoned(ctx, w, h, cn, type);
    clv_status st = clv_gaussian_blur(ctx, s, d, g.sx, g.sy, g.kx, g.ky, border);
    if (st != CLV_OK) {
        CHECK(0, "%s: %s: %s", label, clv_status_string(st), clv_last_error(ctx));
    } else {
        void *want = th_malloc(th_image_bytes(w, h, cn, type));
        ref_gaussian(src, w, h, cn, type, want, g.sx, g.sy, g.kx, g.ky, border);
        passed += th_check_output(ctx, d, want, pad, REF_FILTER, label);
        free(want);
    }
    clv_image_release(s);
    clv_image_release(d);
}

static void run_random(int w, int h, int cn, clv_pixel_type type, gparams g, clv_border border,
                       size_t pad)
{
    void *src = th_random_pixels(w, h, cn, type, seed++);
    run_gauss(src, w, h, cn, type, g, border, pad, "");
    free(src);
}

static void expect_invalid(clv_status s, const char *what)
{
    passed += th_expect_invalid(ctx, s, what);
}

/* The check hook's rule between sigma and ksize (the table cannot say it):
 * a derived kernel side over 255 taps is refused. The generated matrix
 * (test_op) has every single-parameter rule. */
static void derived_kernel_side(void)
{
    clv_image *a = NULL, *b = NULL;
    REQUIRE_OK(ctx, clv_image_create(ctx, 8, 6, 3, CLV_U8, &a));
    REQUIRE_OK(ctx, clv_image_create(ctx, 8, 6, 3, CLV_U8, &b));
    const clv_border r101 = CLV_BORDER_REFLECT101;

    expect_invalid(clv_gaussian_blur(ctx, a, b, 50.0, 0.0, 0, 3, r101),
                   "sigma_x 50 with ksize 0 (a 301-tap kernel)");

    clv_image_release(a);
    clv_image_release(b);
}

static void photo(void)
{
    void *px = NULL;
    int w, h, cn;
    int r = th_load_photo("chelsea.png", CLV_U8, &px, &w, &h, &cn);
    CHECK(r >= 0, "chelsea.png exists but could not be read");
    if (r > 0) {
        run_gauss(px, w, h, cn, CLV_U8, (gparams){1.2, 0.0, 0, 0}, CLV_BORDER_REFLECT101, 0,
                  "chelsea");
        run_gauss(px, w, h, cn, CLV_U8, (gparams){3.0, 1.5, 0, 0}, CLV_BORDER_REPLICATE, 13,
                  "chelsea");
        free(px);
    }
    if (r <= 0)
        return;
    r = th_load_photo("chelsea.png", CLV_F32, &px, &w, &h, &cn);
    if (r > 0) {
        run_gauss(px, w, h, cn, CLV_F32, (gparams){2.0, 0.0, 7, 3}, CLV_BORDER_REFLECT, 0,
                  "chelsea");
        free(px);
    }
}

/* The u8 band in 16-bit fixed point (gauss_band_u16, CPU devices): its
 * products truncate, and the kernel adds their mean loss back before the
 * rounding. Without that the outputs sat 0.027 below the double reference
 * on noise, every value still within +-1 and far below the general 0.2
 * bias limit (ref.c); with it within 0.008. Here: 0.02 on noise at the
 * bench's 13x13, the band's largest 31x31 and a lopsided 3x17, one and
 * three channels. (On GPUs these run other kernels and stay unbiased too.) */
static void fixed_point_bias(void)
{
    static const gparams sets[] = {{2.0, 0.0, 0, 0}, {5.0, 5.0, 31, 31}, {0.8, 2.5, 3, 0}};
    const int w = 641, h = 359;
    for (int k = 0; k < (int)(sizeof sets / sizeof sets[0]); k++)
        for (int cn = 1; cn <= 3; cn += 2) {
            const gparams g = sets[k];
            unsigned char *src = th_random_pixels(w, h, cn, CLV_U8, seed++);
            unsigned char *want = th_malloc(th_image_bytes(w, h, cn, CLV_U8));
            ref_gaussian(src, w, h, cn, CLV_U8, want, g.sx, g.sy, g.kx, g.ky,
                         CLV_BORDER_REFLECT101);
            clv_image *s = th_upload(ctx, src, w, h, cn, CLV_U8, 0);
            clv_image *d = th_poisoned(ctx, w, h, cn, CLV_U8);
            const clv_status st = clv_gaussian_blur(ctx, s, d, g.sx, g.sy, g.kx, g.ky,
                                                    CLV_BORDER_REFLECT101);
            if (st != CLV_OK) {
                CHECK(0, "bias sigma %g/%g: %s: %s", g.sx, g.sy, clv_status_string(st),
                      clv_last_error(ctx));
            } else {
                unsigned char *got = th_download(ctx, d, 0, NULL);
                const size_t n = (size_t)w * h * cn;
                long sum = 0;
                int worst = 0;
                for (size_t i = 0; i < n; i++) {
                    const int e = (int)got[i] - (int)want[i];
                    sum += e;
                    worst = abs(e) > worst ? abs(e) : worst;
                }
                const double mean = (double)sum / (double)n;
                CHECK(worst <= 1 && fabs(mean) <= 0.02,
                      "gaussian bias u8 c%d %dx%d sigma=%g/%g k=%dx%d: max abs err %d, mean "
                      "signed err %.4f (allowed 1 and 0.02)",
                      cn, w, h, g.sx, g.sy, g.kx, g.ky, worst, mean);
                if (worst <= 1 && fabs(mean) <= 0.02)
                    passed++;
                free(got);
            }
            clv_image_release(s);
            clv_image_release(d);
            free(src);
            free(want);
        }
}

/* ---- through the shared harness (tests/harness.h) ---- */

static void gaussian_ref(const harness_case *c, void *user)
{
    (void)user;
    const clv_host_image *s = harness_in(c, "src");
    ref_gaussian(s->data, s->width, s->height, s->channels, s->type, harness_out(c, "dst")->data,
                 harness_double(c, "sigma_x"), harness_double(c, "sigma_y"),
                 harness_int(c, "ksize_x"), harness_int(c, "ksize_y"),
                 (clv_border)harness_int(c, "border"));
}

/* The first set (sigma 1.2, default 9-tap kernel: larger than the 1x1, 7x3
 * and 7x5 images) runs on every size, type, channel count and border; with
 * 7x3 and 67x45 added that is the former hand-written small-size loop, plus 2
 * channels and the harness's degenerate sizes. The others, each on every size
 * and border: small sigma, asymmetric sigmas, explicit non-square ksize,
 * explicit x with default y, identity (1x1), a 1-D 255x1 kernel. */
static void harness_cases(void)
{
    static const harness_args sets[] = {
        HARNESS_SET(HARNESS_DOUBLE("sigma_x", 1.2)),
        HARNESS_SET(HARNESS_DOUBLE("sigma_x", 0.5)),
        HARNESS_SET(HARNESS_DOUBLE("sigma_x", 3.0), HARNESS_DOUBLE("sigma_y", 1.5)),
        HARNESS_SET(HARNESS_DOUBLE("sigma_x", 2.0), HARNESS_INT("ksize_x", 7),
                    HARNESS_INT("ksize_y", 3)),
        HARNESS_SET(HARNESS_DOUBLE("sigma_x", 1.5), HARNESS_INT("ksize_x", 7)),
        HARNESS_SET(HARNESS_DOUBLE("sigma_x", 1.0), HARNESS_INT("ksize_x", 1),
                    HARNESS_INT("ksize_y", 1)),
        HARNESS_SET(HARNESS_DOUBLE("sigma_x", 30.0), HARNESS_INT("ksize_x", 255),
                    HARNESS_INT("ksize_y", 1)),
    };
    static const harness_size former[] = {{7, 3}, {67, 45}};
    const harness_result r = harness_run(
        ctx, &(harness_spec){.op = "gaussian_blur", .ref = gaussian_ref, .sweep = sets,
                             .nsweep = HARNESS_COUNT(sets), .extra_sizes = former,
                             .nextra_sizes = HARNESS_COUNT(former)});
    CHECK(r.cases >= 700, "gaussian_blur: only %d harness cases", r.cases);
    passed += r.cases - r.failures;
}

/* GPUs' u8 kernel with the radii compiled in (gauss_reg; run with
 * CLV_TUNE=gpu on PoCL; test_gaussian_fixed.py runs it on photos through the
 * CLI), the u8 and f32 wide passes (gauss_wh + gauss_wv, CLV_U8_REG=gaussw;
 * gauss_whf + gauss_wvf, CLV_U8_REG=gaussfw, type f32, then values near
 * FLT_MAX too): a program per radius pair, channel count and border, so a compact
 * set that reaches 2 channels (the CLI makes gray+alpha RGBA), every border,
 * radii 0 to 8 on each axis, reaches that are not whole 4-byte words, rows
 * that end inside a word, rows too short for any aligned load and heights
 * that are not a multiple of the rows per work-item. */
static void fixed_radii(clv_pixel_type type)
{
    static const int sizes[][2] = {{67, 45}, {7, 3}, {1, 1}, {130, 37}, {21, 14}};
    static const struct {
        int cn;
        gparams g;
        clv_border border;
    } cases[] = {
        {2, {2.0, 0.0, 13, 13}, CLV_BORDER_REFLECT101}, {2, {1.0, 0.0, 3, 5}, CLV_BORDER_WRAP},
        {1, {1.0, 1.0, 1, 17}, CLV_BORDER_CONSTANT},    {4, {2.5, 0.0, 17, 1}, CLV_BORDER_REFLECT},
        {3, {1.2, 0.7, 0, 0}, CLV_BORDER_REPLICATE},    {4, {0.8, 0.0, 5, 5}, CLV_BORDER_CONSTANT},
        {1, {3.0, 0.0, 17, 17}, CLV_BORDER_WRAP},       {3, {1.5, 0.0, 7, 9}, CLV_BORDER_REFLECT},
    };
    for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++)
        for (int s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); s++)
            run_random(sizes[s][0], sizes[s][1], cases[c].cn, type, cases[c].g, cases[c].border,
                       s == 3 ? 13 : 0);
    /* widths either side of the narrowest rows gauss_reg (29 and 21 pixels
     * here) and gauss_wh (49) take: more pixels than a work-item's loaded
     * values, so one reflection at the row ends reaches every value */
    for (int w = 18; w <= 52; w++) {
        run_random(w, 4, 2, type, (gparams){2.0, 0.0, 13, 13}, CLV_BORDER_REFLECT101, 0);
        run_random(w, 3, 1, type, (gparams){3.0, 0.0, 17, 3}, CLV_BORDER_WRAP, 0);
    }
    /* heights either side of the shortest image whose rows gauss_wv takes
     * through one reflection (more rows than its row groups reach) */
    for (int h = 1; h <= 12; h++) {
        run_random(53, h, 1, type, (gparams){1.0, 0.0, 3, 3}, CLV_BORDER_REFLECT101, 0);
        run_random(50, h, 3, type, (gparams){1.5, 0.0, 9, 11}, CLV_BORDER_REFLECT, 0);
    }
    run_random(1920, 1080, 1, type, (gparams){2.0, 0.0, 13, 13}, CLV_BORDER_REFLECT101, 0);
    if (type != CLV_F32)
        return;
    /* values near FLT_MAX (tests/testutil's kinds): weights that sum to 1
     * keep every sum finite */
    for (int kind = 0; kind < TH_LARGE_KINDS; kind++)
        for (int cn = 1; cn <= 4; cn += 3) {
            float *src = th_large_pixels(67, 45, cn, kind);
            run_gauss(src, 67, 45, cn, CLV_F32, (gparams){2.0, 0.0, 13, 13},
                      CLV_BORDER_REFLECT101, 0, th_large_name(kind));
            run_gauss(src, 67, 45, cn, CLV_F32, (gparams){1.0, 0.0, 3, 9}, CLV_BORDER_CONSTANT,
                      0, th_large_name(kind));
            free(src);
        }
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* keep result lines in order with stderr */
    ctx = test_context();
    printf("device: %s (%s)\n", clv_context_device_name(ctx), clv_context_platform_name(ctx));
    if (argc > 1 && strcmp(argv[1], "fixed") == 0) {
        fixed_radii(CLV_U8);
        clv_context_release(ctx);
        return test_finish("gaussian (radii compiled in)", passed);
    }
    if (argc > 1 && strcmp(argv[1], "fixed-u16") == 0) {
        fixed_radii(CLV_U16);
        clv_context_release(ctx);
        return test_finish("gaussian u16 (radii compiled in)", passed);
    }
    if (argc > 1 && strcmp(argv[1], "fixed-f32") == 0) {
        fixed_radii(CLV_F32);
        clv_context_release(ctx);
        return test_finish("gaussian f32 (radii compiled in)", passed);
    }

    derived_kernel_side();

    /* Every type, channel count and border at tiny, degenerate and small odd
     * sizes, and a sweep of blur parameters: the harness. */
    harness_cases();
    const gparams g12 = {1.2, 0.0, 0, 0};

    /* Parameter sweep, every border: small sigma, asymmetric sigmas, explicit
     * non-square ksize, explicit x with default y, identity (1x1), a 241-tap
     * default kernel and the largest explicit one. */
    static const gparams sweep[] = {
        {0.5, 0.0, 0, 0}, {3.0, 1.5, 0, 0}, {2.0, 0.0, 7, 3}, {1.5, 0.0, 7, 0},
        {1.0, 0.0, 1, 1}, {0.8, 2.5, 3, 0}, {40.0, 0.0, 0, 0}, {30.0, 0.0, 255, 1},
        {42.0, 0.0, 0, 5}, /* 253 taps: the largest default kernel */
        /* CPU path limits: 31 rows in the one-pass band ring (33 not), edge blocks
         * of the two-pass path gathering up to 48 values each side (3 channels:
         * 33 taps, 35 not) */
        {6.0, 6.0, 33, 31}, {6.0, 6.0, 35, 33},
    };
    for (int k = 0; k < (int)(sizeof sweep / sizeof sweep[0]); k++)
        for (int b = 0; b < N_BORDERS; b++) {
            run_random(67, 45, 1, CLV_U8, sweep[k], all_borders[b], 0);
            run_random(67, 45, 3, CLV_F32, sweep[k], all_borders[b], 0);
            run_random(1, 1, 4, CLV_U16, sweep[k], all_borders[b], 0);
            run_random(7, 3, 1, CLV_F32, sweep[k], all_borders[b], 0);
        }

    /* Padded host strides. */
    run_random(7, 3, 3, CLV_U16, (gparams){0.5, 0.0, 0, 0}, CLV_BORDER_REFLECT, 13);
    run_random(67, 45, 4, CLV_F32, (gparams){3.0, 1.5, 0, 0}, CLV_BORDER_WRAP, 13);

    /* 640x480: every type and channel count, two borders. */
    for (int t = 0; t < N_TYPES; t++)
        for (int c = 0; c < N_CN; c++) {
            run_random(640, 480, all_cn[c], all_types[t], g12, CLV_BORDER_REFLECT101,
                       all_cn[c] == 3 ? 13 : 0);
            run_random(640, 480, all_cn[c], all_types[t], (gparams){3.0, 1.5, 0, 0},
                       CLV_BORDER_REFLECT, 0);
        }

    /* 1920x1080: a few. */
    run_random(1920, 1080, 3, CLV_U8, (gparams){3.0, 0.0, 0, 0}, CLV_BORDER_REFLECT101, 0);
    run_random(1920, 1080, 1, CLV_F32, (gparams){0.5, 0.0, 0, 0}, CLV_BORDER_CONSTANT, 0);
    run_random(1920, 1080, 4, CLV_U16, (gparams){2.0, 1.0, 0, 0}, CLV_BORDER_WRAP, 13);

    photo();
    fixed_point_bias();

    clv_context_release(ctx);
    return test_finish("gaussian", passed);
}
