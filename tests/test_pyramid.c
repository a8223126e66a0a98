/* clv_pyramid: pyrDown levels against ref_pyr_down (bit-exact for u8/u16,
 * 1e-5 relative for f32), the Farneback form against ref_gaussian +
 * ref_resize_bilinear, level geometry, rebuilds and argument checks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"
#include "ref/ref_pyr.h"
#include "testutil.h"

static clv_context *ctx;
static int passed;
static uint64_t seed = 9100;

/* f32: |got - want| <= 1e-5 max(1, |want|); others exact. */
static size_t compare_level(const void *got, const void *want, int w, int h, int cn,
                            clv_pixel_type type, const char *label)
{
    if (type != CLV_F32)
        return ref_compare(got, want, w, h, cn, type, REF_EXACT, label);
    const float *g = got, *e = want;
    size_t bad = 0, first = 0;
    double maxerr = 0.0;
    const size_t n = (size_t)w * h * cn;
    for (size_t i = 0; i < n; i++) {
        const double err = fabs((double)g[i] - (double)e[i]);
        const double lim = 1e-5 * (fabs(e[i]) > 1.0 ? fabs(e[i]) : 1.0);
        if (err > maxerr || isnan(err))
            maxerr = isnan(err) ? INFINITY : err;
        if (!(err <= lim)) {
            if (!bad)
                first = i;
            bad++;
        }
    }
    printf("%s: max error %.3g%s\n", label, maxerr, bad ? " FAIL" : "");
    if (bad)
        fprintf(stderr, "  %zu bad values, first at %zu: got %.9g want %.9g\n", bad, first,
                g[first], e[first]);
    return bad;
}

/* Expected pyrDown level count for a w x h image when `wanted` are asked. */
static int expected_levels_half(int w, int h, int wanted)
{
    int n = 1;
    while (n < wanted) {
        w = (w + 1) / 2;
        h = (h + 1) / 2;
        if (w < 2 || h < 2)
            break;
        n++;
    }
    return n;
}

/* Builds a scale-0.5 pyramid of src and checks every level against the
 * reference chain. */
static void run_half(const void *src, int w, int h, int cn, clv_pixel_type type, int wanted,
                     const char *tag)
{
    char label[256];
    clv_pyramid *pyr = NULL;
    REQUIRE_OK(ctx, clv_pyramid_create(ctx, w, h, cn, type, wanted, 0.5, &pyr));
    const int nlev = clv_pyramid_levels(pyr);
    const int want_lev = expected_levels_half(w, h, wanted);
    CHECK(nlev == want_lev, "%s %dx%d: %d levels, expected %d", tag, w, h, nlev, want_lev);
    if (nlev == want_lev)
        passed++;
    CHECK(clv_pyramid_level(pyr, nlev) == NULL && clv_pyramid_level(pyr, -1) == NULL,
          "level out of range must be NULL");
    clv_image *s = th_upload(ctx, src, w, h, cn, type, 0);
    REQUIRE_OK(ctx, clv_pyramid_build(ctx, pyr, s));
    void *want = th_malloc(th_image_bytes(w, h, cn, type));
    memcpy(want, src, th_image_bytes(w, h, cn, type));
    int lw = w, lh = h;
    for (int k = 0; k < nlev; k++) {
        const clv_image *lev = clv_pyramid_level(pyr, k);
        if (k > 0) {
            const int nw = (lw + 1) / 2, nh = (lh + 1) / 2;
            void *next = th_malloc(th_image_bytes(nw, nh, cn, type));
            ref_pyr_down(want, lw, lh, cn, type, next);
            free(want);
            want = next;
            lw = nw;
            lh = nh;
        }
        snprintf(label, sizeof label, "pyrDown %s %s c%d %dx%d level %d (%dx%d)", tag,
                 clv_pixel_type_name(type), cn, w, h, k, lw, lh);
        CHECK(clv_image_width(lev) == lw && clv_image_height(lev) == lh &&
                  clv_image_channels(lev) == cn && clv_image_type(lev) == type,
              "%s: level is %dx%d c%d", label, clv_image_width(lev), clv_image_height(lev),
              clv_image_channels(lev));
        void *got = th_download(ctx, lev, 0, NULL);
        if (got && compare_level(got, want, lw, lh, cn, type, label) == 0)
            passed++;
        else
            test_failures++;
        free(got);
    }
    free(want);
    clv_image_release(s);
    clv_pyramid_release(pyr);
}

static void run_half_random(int w, int h, int cn, clv_pixel_type type, int wanted)
{
    void *src = th_random_pixels(w, h, cn, type, seed++);
    run_half(src, w, h, cn, type, wanted, "random");
    free(src);
}

/* Farneback form: level k = resize(gaussian(level 0, sigma_k)). */
static void run_scaled(int w, int h, int cn, clv_pixel_type type, int wanted, double scale)
{
    char label[256];
    void *src = th_random_pixels(w, h, cn, type, seed++);
    clv_pyramid *pyr = NULL;
    REQUIRE_OK(ctx, clv_pyramid_create(ctx, w, h, cn, type, wanted, scale, &pyr));
    clv_image *s = th_upload(ctx, src, w, h, cn, type, 0);
    REQUIRE_OK(ctx, clv_pyramid_build(ctx, pyr, s));
    const int nlev = clv_pyramid_levels(pyr);
    void *blur = th_malloc(th_image_bytes(w, h, cn, type));
    double sc = 1.0;
    int k = 0;
    for (; k < wanted; k++) {
        int lw = w, lh = h;
        double sigma = 0.0;
        int ks = 0;
        if (k > 0) {
            sc *= scale;
            lw = (int)lrint(w * sc);
            lh = (int)lrint(h * sc);
            sigma = (1.0 / sc - 1.0) * 0.5;
            ks = (int)lrint(sigma * 5.0) | 1;
            if (ks < 3)
                ks = 3;
            if (lw < 2 || lh < 2 || ks > CLV_GAUSSIAN_MAX_KSIZE)
                break;
        }
        if (k >= nlev) {
            CHECK(0, "scale %g %dx%d: level %d (%dx%d) missing", scale, w, h, k, lw, lh);
            break;
        }
        const clv_image *lev = clv_pyramid_level(pyr, k);
        snprintf(label, sizeof label, "scale %g %s c%d %dx%d level %d (%dx%d, sigma %.4g k%d)",
                 scale, clv_pixel_type_name(type), cn, w, h, k, lw, lh, sigma, ks);
        CHECK(clv_image_width(lev) == lw && clv_image_height(lev) == lh, "%s: level is %dx%d",
              label, clv_image_width(lev), clv_image_height(lev));
        void *want = th_malloc(th_image_bytes(lw, lh, cn, type));
        if (k == 0) {
            memcpy(want, src, th_image_bytes(w, h, cn, type));
        } else {
            ref_gaussian(src, w, h, cn, type, blur, sigma, sigma, ks, ks, CLV_BORDER_REFLECT101);
            ref_resize_bilinear(blur, w, h, cn, type, want, lw, lh);
        }
        void *got = th_download(ctx, lev, 0, NULL);
        if (got && ref_compare(got, want, lw, lh, cn, type, k == 0 ? REF_EXACT : REF_RESIZE,
                               label) == 0)
            passed++;
        else
            test_failures++;
        free(got);
        free(want);
    }
    CHECK(k == nlev, "scale %g %dx%d: %d levels, expected %d", scale, w, h, nlev, k);
    free(blur);
    free(src);
    clv_image_release(s);
    clv_pyramid_release(pyr);
}

/* A second build with other content must replace every level. */
static void rebuild(void)
{
    const int w = 97, h = 61;
    void *a = th_random_pixels(w, h, 1, CLV_U8, seed++);
    void *b = th_random_pixels(w, h, 1, CLV_U8, seed++);
    clv_pyramid *pyr = NULL;
    REQUIRE_OK(ctx, clv_pyramid_create(ctx, w, h, 1, CLV_U8, 4, 0.5, &pyr));
    clv_image *sa = th_upload(ctx, a, w, h, 1, CLV_U8, 0);
    clv_image *sb = th_upload(ctx, b, w, h, 1, CLV_U8, 0);
    REQUIRE_OK(ctx, clv_pyramid_build(ctx, pyr, sa));
    REQUIRE_OK(ctx, clv_pyramid_build(ctx, pyr, sb));
    void *want = th_malloc(th_image_bytes(w, h, 1, CLV_U8));
    memcpy(want, b, th_image_bytes(w, h, 1, CLV_U8));
    int lw = w, lh = h;
    for (int k = 0; k < clv_pyramid_levels(pyr); k++) {
        if (k > 0) {
            void *next = th_malloc(th_image_bytes((lw + 1) / 2, (lh + 1) / 2, 1, CLV_U8));
            ref_pyr_down(want, lw, lh, 1, CLV_U8, next);
            free(want);
            want = next;
            lw = (lw + 1) / 2;
            lh = (lh + 1) / 2;
        }
        char label[96];
        snprintf(label, sizeof label, "rebuild level %d", k);
        void *got = th_download(ctx, clv_pyramid_level(pyr, k), 0, NULL);
        if (got && ref_compare(got, want, lw, lh, 1, CLV_U8, REF_EXACT, label) == 0)
            passed++;
        else
            test_failures++;
        free(got);
    }
    free(want);
    free(a);
    free(b);
    clv_image_release(sa);
    clv_image_release(sb);
    clv_pyramid_release(pyr);
}

static void expect_invalid(clv_status s, const char *what)
{
    passed += th_expect_invalid(ctx, s, what);
}

/* clv_pyramid_create is not a described operation: the rows test_badinput
 * lacks (it has 0x0, width 65537, 5 channels, type 42, levels 0 and 17, the
 * scales, NULL out and context, *out NULL after each failure). The build's
 * arguments are test_op's generated cases. */
static void create_arguments(void)
{
    clv_pyramid *pyr = (clv_pyramid *)&pyr; /* must be reset to NULL on failure */
    expect_invalid(clv_pyramid_create(ctx, 0, 5, 1, CLV_U8, 3, 0.5, &pyr), "width 0");
    CHECK(pyr == NULL, "out not reset on failure");
    expect_invalid(clv_pyramid_create(ctx, 5, -1, 1, CLV_U8, 3, 0.5, &pyr), "height -1");
    expect_invalid(clv_pyramid_create(ctx, 5, 5, 0, CLV_U8, 3, 0.5, &pyr), "channels 0");
}

static void photo(void)
{
    void *px = NULL;
    int w, h, cn;
    int r = th_load_photo("chelsea.png", CLV_U8, &px, &w, &h, &cn);
    CHECK(r >= 0, "chelsea.png exists but could not be read");
    if (r > 0) {
        run_half(px, w, h, cn, CLV_U8, 5, "chelsea");
        free(px);
    }
    r = th_load_photo("camera.png", CLV_F32, &px, &w, &h, &cn);
    if (r > 0) {
        run_half(px, w, h, cn, CLV_F32, 16, "camera");
        free(px);
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    ctx = test_context();
    printf("device: %s (%s)\n", clv_context_device_name(ctx), clv_context_platform_name(ctx));

    create_arguments();

    static const clv_pixel_type types[] = {CLV_U8, CLV_U16, CLV_F32};
    static const int sizes[][2] = {{1, 1},  {7, 3},  {5, 1},  {1, 6},   {2, 2},  {3, 2},
                                   {4, 4},  {5, 5},  {33, 2}, {67, 45}, {35, 70}, {641, 479}};
    for (int si = 0; si < (int)(sizeof sizes / sizeof sizes[0]); si++)
        for (int t = 0; t < 3; t++)
            for (int cn = 1; cn <= 4; cn++)
                run_half_random(sizes[si][0], sizes[si][1], cn, types[t], CLV_PYRAMID_MAX_LEVELS);
    /* u8 gray widths either side of the narrowest rows pyr_reg takes (17
     * pixels: more than its 16 loaded values), at level 0 and 1 */
    for (int w = 14; w <= 19; w++) {
        run_half_random(w, 9, 1, CLV_U8, CLV_PYRAMID_MAX_LEVELS);
        run_half_random(2 * w, 5, 1, CLV_U8, CLV_PYRAMID_MAX_LEVELS);
    }
    /* fewer levels than possible; a large frame */
    run_half_random(641, 479, 1, CLV_U8, 3);
    run_half_random(1920, 1080, 1, CLV_U8, 5);
    run_half_random(1920, 1080, 1, CLV_F32, 5);
    run_half_random(1280, 720, 3, CLV_U8, 4);
    /* tall frames: on CPUs many bands per launch of up to three levels, each
     * band making its neighbours' rows above and below it once more (the
     * launches of levels 1-3, 4-6, ...; and of 2 and 1 levels) */
    run_half_random(37, 3001, 1, CLV_U8, CLV_PYRAMID_MAX_LEVELS);
    run_half_random(37, 3001, 1, CLV_U16, 8);
    run_half_random(70, 2047, 1, CLV_F32, 3);
    run_half_random(101, 1537, 1, CLV_U8, 2);
    run_half_random(100, 778, 1, CLV_U8, 5);

    /* Farneback form */
    static const double scales[] = {0.8, 0.75, 0.6, 0.3};
    for (int i = 0; i < 4; i++) {
        run_scaled(641, 479, 1, CLV_F32, 6, scales[i]);
        run_scaled(641, 479, 1, CLV_U8, 6, scales[i]);
        run_scaled(67, 45, 3, CLV_F32, 16, scales[i]);
        run_scaled(7, 3, 1, CLV_F32, 16, scales[i]);
        run_scaled(1, 1, 1, CLV_U8, 16, scales[i]);
    }
    run_scaled(5, 1, 2, CLV_U16, 4, 0.5 + 1e-9);

    rebuild();
    photo();

    clv_context_release(ctx);
    return test_finish("pyramid", passed);
}
