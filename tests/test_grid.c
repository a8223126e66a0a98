/* Bilateral grid: against the plain C grid reference (tests/ref/ref_grid.c)
 * for every type and channel count, the cross variant, odd sizes; against
 * the brute-force bilateral (ref_bilateral) on real photos by PSNR; and
 * argument checks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"
#include "ref/ref_grid.h"
#include "testutil.h"

static int passed = 0;

/* Grid on src (and edge) on the device vs the reference. */
static void check_case(clv_context *ctx, int w, int h, int cn, clv_pixel_type type,
                       const void *edge, clv_pixel_type etype, double s_s, double s_r,
                       double blur, uint64_t seed, const void *given)
{
    char label[200];
    snprintf(label, sizeof label, "grid%s %dx%d cn=%d %s s_s=%g s_r=%g blur=%g",
             edge ? " cross" : "", w, h, cn, clv_pixel_type_name(type), s_s, s_r, blur);
    void *src = given ? (void *)given : th_random_pixels(w, h, cn, type, seed);
    void *want = th_malloc(th_image_bytes(w, h, cn, type));
    REQUIRE(ref_bilateral_grid(src, w, h, cn, type, edge, etype, want, s_s, s_r, blur) == 0,
            "reference failed for %s", label);
    clv_image *a = th_upload(ctx, src, w, h, cn, type, 0);
    clv_image *e = edge ? th_upload(ctx, edge, w, h, 1, etype, 0) : NULL;
    clv_image *d = th_poisoned(ctx, w, h, cn, type);
    clv_grid_params p = clv_grid_params_default();
    p.s_s = s_s;
    p.s_r = s_r;
    p.blur_sigma = blur;
    clv_status s = edge ? clv_bilateral_grid_cross(ctx, a, e, d, &p) : clv_bilateral_grid(ctx, a, d, &p);
    CHECK(s == CLV_OK, "%s: %s", label, clv_last_error(ctx));
    if (s == CLV_OK)
        passed += th_check_output(ctx, d, want, 0, REF_FILTER, label);
    clv_image_release(a);
    clv_image_release(e);
    clv_image_release(d);
    free(want);
    if (!given)
        free(src);
}

/* u8 gray photo: grid with s_s = sigma_s, s_r = sigma_r against the brute-force
 * bilateral with the same sigmas. */
static void check_psnr(clv_context *ctx, const char *name, const unsigned char *img, int w, int h,
                       double ss, double sr)
{
    unsigned char *bf = th_malloc((size_t)w * h), *got;
    ref_bilateral(img, w, h, 1, CLV_U8, bf, ss, sr, 0, CLV_BORDER_CONSTANT);
    clv_image *a = th_upload(ctx, img, w, h, 1, CLV_U8, 0);
    clv_image *d = th_poisoned(ctx, w, h, 1, CLV_U8);
    clv_grid_params p = clv_grid_params_default();
    p.s_s = ss;
    p.s_r = sr;
    REQUIRE_OK(ctx, clv_bilateral_grid(ctx, a, d, &p));
    got = th_download(ctx, d, 0, NULL);
    REQUIRE(got, "download");
    double psnr = ref_psnr_u8(got, bf, (size_t)w * h);
    printf("grid vs brute-force bilateral, %s %dx%d, sigma_s=s_s=%g sigma_r=s_r=%g: PSNR %.2f dB\n",
           name, w, h, ss, sr, psnr);
    CHECK(psnr >= 30.0, "%s: PSNR %.2f dB below 30", name, psnr);
    if (psnr >= 30.0)
        passed++;
    /* and it is a real filter: the output differs from the input */
    double in_psnr = ref_psnr_u8(got, img, (size_t)w * h);
    CHECK(in_psnr < 45.0, "%s: output too close to the input (%.1f dB)", name, in_psnr);
    if (in_psnr < 45.0)
        passed++;
    clv_image_release(a);
    clv_image_release(d);
    free(bf);
    free(got);
}

static unsigned char *to_gray(const unsigned char *rgb, int w, int h, int cn)
{
    unsigned char *g = th_malloc((size_t)w * h);
    for (size_t i = 0; i < (size_t)w * h; i++)
        g[i] = cn == 1 ? rgb[i]
                       : (unsigned char)floor(0.2126 * rgb[i * cn] + 0.7152 * rgb[i * cn + 1] +
                                              0.0722 * rgb[i * cn + 2] + 0.5);
    return g;
}

/* Issue 13 #3: finite f32 values near FLT_MAX: the cell sums of 1e37 over
 * a 16x16 cell overflowed, and edges of -3e38 and 3e38 (6e38 apart) put the
 * negative columns in the wrong cell. Against the double reference, 1e-4. */
static void large_values(clv_context *ctx)
{
    static const double s_r[] = {1e37, 1e38, 1e38};
    for (int kind = 0; kind < TH_LARGE_KINDS; kind++)
        for (int cn = 1; cn <= 3; cn += 2) {
            float *src = th_large_pixels(61, 37, cn, kind);
            check_case(ctx, 61, 37, cn, CLV_F32, NULL, 0, 16, s_r[kind], 1.0, 0, src);
            check_case(ctx, 61, 37, cn, CLV_F32, NULL, 0, 4, s_r[kind], 0.0, 0, src);
            free(src);
        }
    /* cross: f32 values that large, u8 edges (constant values: alternating
     * ones under random edges average to near 0, a cancellation no float
     * sum resolves to 1e-4 of the result) */
    float *src = th_large_pixels(61, 37, 1, 1);
    unsigned char *e = th_random_pixels(61, 37, 1, CLV_U8, 31);
    check_case(ctx, 61, 37, 1, CLV_F32, e, CLV_U8, 8, 30, 1.0, 0, src);
    free(e);
    free(src);
}

int main(void)
{
    clv_context *ctx = test_context();
    const clv_pixel_type types[] = {CLV_U8, CLV_U16, CLV_F32};
    const int cns[] = {1, 3, 4};

    large_values(ctx);

    /* every type and channel count, small and odd sizes */
    const int sizes[][2] = {{1, 1}, {7, 3}, {37, 29}};
    for (int t = 0; t < 3; t++)
        for (int c = 0; c < 3; c++)
            for (int s = 0; s < 3; s++) {
                double sr = types[t] == CLV_U8 ? 25.5 : types[t] == CLV_U16 ? 6553.5 : 0.3;
                check_case(ctx, sizes[s][0], sizes[s][1], cns[c], types[t], NULL, 0, 4, sr, 1.0,
                           (uint64_t)(t * 9 + c * 3 + s), NULL);
            }
    /* sampling and blur variations, larger images */
    check_case(ctx, 640, 480, 1, CLV_U8, NULL, 0, 16, 25.5, 1.0, 11, NULL);
    check_case(ctx, 640, 480, 3, CLV_U8, NULL, 0, 8, 20, 2.0, 12, NULL);
    check_case(ctx, 333, 217, 1, CLV_F32, NULL, 0, 5, 0.1, 0.0, 13, NULL);
    check_case(ctx, 101, 77, 4, CLV_F32, NULL, 0, 3, 0.25, 1.5, 14, NULL);
    check_case(ctx, 64, 48, 1, CLV_U8, NULL, 0, 1, 10, 1.0, 15, NULL);   /* s_s = 1 */
    check_case(ctx, 30, 20, 3, CLV_U8, NULL, 0, 64, 255, 1.0, 16, NULL); /* grid smaller than 2x2x2 */

    /* cross: values from one image, edges from another of any type */
    {
        int w = 97, h = 61;
        unsigned char *eu8 = th_random_pixels(w, h, 1, CLV_U8, 21);
        float *ef = th_random_pixels(w, h, 1, CLV_F32, 22);
        check_case(ctx, w, h, 3, CLV_U8, eu8, CLV_U8, 6, 30, 1.0, 23, NULL);
        check_case(ctx, w, h, 1, CLV_F32, eu8, CLV_U8, 6, 30, 1.0, 24, NULL);
        check_case(ctx, w, h, 3, CLV_U8, ef, CLV_F32, 6, 0.2, 1.0, 25, NULL);
        free(eu8);
        free(ef);
    }

    /* real photos: reference grid and the PSNR against brute force */
    void *cam = NULL, *cat = NULL;
    int cw, chh, ccn, tw, th, tcn;
    if (th_load_photo("camera.png", CLV_U8, &cam, &cw, &chh, &ccn) == 1) {
        unsigned char *g = to_gray(cam, cw, chh, ccn);
        check_case(ctx, cw, chh, 1, CLV_U8, NULL, 0, 8, 30, 1.0, 0, g);
        check_psnr(ctx, "camera.png", g, cw, chh, 4, 20);
        check_psnr(ctx, "camera.png", g, cw, chh, 8, 30);
        check_psnr(ctx, "camera.png", g, cw, chh, 16, 25.5);
        free(g);
        free(cam);
    }
    if (th_load_photo("chelsea.png", CLV_U8, &cat, &tw, &th, &tcn) == 1) {
        check_case(ctx, tw, th, tcn, CLV_U8, NULL, 0, 8, 25, 1.0, 0, cat);
        unsigned char *g = to_gray(cat, tw, th, tcn);
        check_psnr(ctx, "chelsea.png (gray)", g, tw, th, 4, 20);
        check_psnr(ctx, "chelsea.png (gray)", g, tw, th, 8, 30);
        free(g);
        free(cat);
    }

    /* a constant image stays constant; a strong step survives */
    {
        int w = 64, h = 40;
        unsigned char *img = th_malloc((size_t)w * h), *got;
        for (int i = 0; i < w * h; i++)
            img[i] = (unsigned char)((i % w) < 31 ? 20 : 230);
        clv_image *a = th_upload(ctx, img, w, h, 1, CLV_U8, 0);
        clv_image *d = th_poisoned(ctx, w, h, 1, CLV_U8);
        clv_grid_params p = clv_grid_params_default();
        p.s_s = 8;
        p.s_r = 20;
        REQUIRE_OK(ctx, clv_bilateral_grid(ctx, a, d, &p));
        got = th_download(ctx, d, 0, NULL);
        int worst = 0;
        for (int i = 0; i < w * h; i++) {
            int diff = abs((int)got[i] - (int)img[i]);
            worst = diff > worst ? diff : worst;
        }
        CHECK(worst <= 1, "step edge blurred across: worst change %d", worst);
        if (worst <= 1)
            passed++;
        free(got);
        free(img);
        clv_image_release(a);
        clv_image_release(d);
    }

    /* Rules the descriptor cannot state (the generated matrix, test_op, has
     * every single-parameter and image rule): the derived range-cell count,
     * and f32 sources with non-finite values. */
    {
        clv_image *a = NULL, *d = NULL, *inf = NULL;
        REQUIRE_OK(ctx, clv_image_create(ctx, 16, 16, 1, CLV_U8, &a));
        REQUIRE_OK(ctx, clv_image_create(ctx, 16, 16, 1, CLV_U8, &d));
        float f[16 * 16];
        for (int i = 0; i < 256; i++)
            f[i] = (float)i;
        f[7] = INFINITY;
        REQUIRE_OK(ctx, clv_image_create(ctx, 16, 16, 1, CLV_F32, &inf));
        REQUIRE_OK(ctx, clv_image_upload(inf, f, 0));
        clv_image *fout = NULL;
        REQUIRE_OK(ctx, clv_image_create(ctx, 16, 16, 1, CLV_F32, &fout));
        clv_grid_params p = clv_grid_params_default();
        p.s_r = 0.01; /* on u8: 25501 range cells, over the limit */
        passed += th_expect_invalid(ctx, clv_bilateral_grid(ctx, a, d, &p), "s_r 0.01 on u8");
        passed += th_expect_invalid(ctx, clv_bilateral_grid(ctx, inf, fout, NULL), "Inf edge values");
        clv_image_release(a);
        clv_image_release(d);
        clv_image_release(inf);
        clv_image_release(fout);
    }
    clv_context_release(ctx);
    return test_finish("grid", passed);
}
