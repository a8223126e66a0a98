/* clv_bilateral against the plain C reference (tests/ref). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"
#include "testutil.h"

static clv_context *ctx;
static int passed;
static uint64_t seed = 7000;

static const clv_pixel_type all_types[] = {CLV_U8, CLV_F32};
static const int all_cn[] = {1, 2, 3, 4}; /* 2: e.g. flow fields */
static const clv_border all_borders[] = {CLV_BORDER_REFLECT101, CLV_BORDER_REPLICATE,
                                         CLV_BORDER_REFLECT, CLV_BORDER_CONSTANT,
                                         CLV_BORDER_WRAP};
#define N_TYPES 2
#define N_CN 4
#define N_BORDERS 5

/* Filter parameters as passed to clv_bilateral; sigma_range is given for
 * u8-range data and scaled to the type (f32 data spans [-1, 2), u16 0..65535). */
typedef struct bparams {
    double ss, sr;
    int r;
} bparams;

static double range_scale(clv_pixel_type type)
{
    return type == CLV_F32 ? 1.0 / 255.0 : type == CLV_U16 ? 257.0 : 1.0;
}

/* Runs the filter on src (packed host pixels), compares with ref_bilateral. */
static void run_bil(const void *src, int w, int h, int cn, clv_pixel_type type, bparams b,
                    clv_border border, size_t pad, const char *tag)
{
    const double sr = b.sr * range_scale(type);
    char label[256];
    snprintf(label, sizeof label, "bilateral %s%s %s c%d %dx%d ss=%g sr=%g r=%d %s%s", tag,
             tag[0] ? "" : "random", clv_pixel_type_name(type), cn, w, h, b.ss, sr, b.r,
             clv_border_name(border), pad ? " (padded host stride)" : "");
    clv_image *s = th_upload(ctx, src, w, h, cn, type, pad);
    clv_image *d = th_poisoned(ctx, w, h, cn, type);
    clv_status st = clv_bilateral(ctx, s, d, b.ss, sr, b.r, border);
    if (st != CLV_OK) {
        CHECK(0, "%s: %s: %s", label, clv_status_string(st), clv_last_error(ctx));
    } else {
        void *want = th_malloc(th_image_bytes(w, h, cn, type));
        ref_bilateral(src, w, h, cn, type, want, b.ss, sr, b.r, border);
        passed += th_check_output(ctx, d, want, pad, REF_FILTER, label);
        free(want);
    }
    clv_image_release(s);
    clv_image_release(d);
}

static void run_random(int w, int h, int cn, clv_pixel_type type, bparams b, clv_border border,
                       size_t pad)
{
    void *src = th_random_pixels(w, h, cn, type, seed++);
    run_bil(src, w, h, cn, type, b, border, pad, "");
    free(src);
}

/* Random noise makes every range weight small; a piecewise-flat image with
 * mild noise exercises the edge-preserving regime (many weights near 1,
 * sharp steps between regions). */
static void *blocky_pixels(int w, int h, int cn, clv_pixel_type type, uint64_t s)
{
    void *noise = th_random_pixels(w, h, cn, type, s);
    void *out = th_malloc(th_image_bytes(w, h, cn, type));
    uint64_t st = s * 7919 + 1;
    double level[16][4];
    for (int i = 0; i < 16; i++)
        for (int c = 0; c < 4; c++)
            level[i][c] = (double)(test_rand(&st) % 1000) / 1000.0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < cn; c++) {
                const size_t i = ((size_t)y * w + x) * cn + c;
                const double lv = level[((x / 9) + 3 * (y / 7)) % 16][c];
                switch (type) {
                case CLV_U8:
                    ((unsigned char *)out)[i] =
                        (unsigned char)(lv * 230.0 + ((unsigned char *)noise)[i] % 24);
                    break;
                case CLV_U16:
                    ((unsigned short *)out)[i] =
                        (unsigned short)(lv * 60000.0 + ((unsigned short *)noise)[i] % 5000);
                    break;
                case CLV_F32:
                    ((float *)out)[i] = (float)(lv + 0.03 * ((float *)noise)[i]);
                    break;
                }
            }
    free(noise);
    return out;
}

static void run_blocky(int w, int h, int cn, clv_pixel_type type, bparams b, clv_border border)
{
    void *src = blocky_pixels(w, h, cn, type, seed++);
    run_bil(src, w, h, cn, type, b, border, 0, "blocky ");
    free(src);
}

static void expect_invalid(clv_status s, const char *what)
{
    passed += th_expect_invalid(ctx, s, what);
}

/* The check hook's rule on the derived radius (0: 3 * sigma_space, the
 * table cannot say it): over CLV_BILATERAL_MAX_RADIUS is refused, the
 * largest that fits runs. The generated matrix (test_op) has every
 * single-parameter rule. */
static void derived_radius(void)
{
    clv_image *a = NULL, *b = NULL;
    REQUIRE_OK(ctx, clv_image_create(ctx, 8, 6, 3, CLV_U8, &a));
    REQUIRE_OK(ctx, clv_image_create(ctx, 8, 6, 3, CLV_U8, &b));
    const clv_border r101 = CLV_BORDER_REFLECT101;

    expect_invalid(clv_bilateral(ctx, a, b, 22.0, 25.0, 0, r101),
                   "sigma_space 22 with radius 0 (default radius 66)");

    /* The largest default radius is accepted: sigma_space 21.3 -> 64. */
    clv_status s = clv_bilateral(ctx, a, b, 21.3, 25.0, 0, r101);
    CHECK(s == CLV_OK, "sigma_space 21.3, radius 0: got %s: %s", clv_status_string(s),
          clv_last_error(ctx));
    if (s == CLV_OK)
        passed++;

    clv_image_release(a);
    clv_image_release(b);
}

static void photo(void)
{
    void *px = NULL;
    int w, h, cn;
    int r = th_load_photo("chelsea.png", CLV_U8, &px, &w, &h, &cn);
    CHECK(r >= 0, "chelsea.png exists but could not be read");
    if (r <= 0)
        return;
    run_bil(px, w, h, cn, CLV_U8, (bparams){3.0, 25.0, 0}, CLV_BORDER_REFLECT101, 0, "chelsea ");
    run_bil(px, w, h, cn, CLV_U8, (bparams){2.0, 10.0, 5}, CLV_BORDER_CONSTANT, 13, "chelsea ");
    free(px);
    r = th_load_photo("chelsea.png", CLV_F32, &px, &w, &h, &cn);
    if (r > 0) {
        run_bil(px, w, h, cn, CLV_F32, (bparams){2.0, 25.0, 0}, CLV_BORDER_REFLECT, 0,
                "chelsea ");
        free(px);
    }
}

/* Issue 13 #3: finite f32 values near FLT_MAX give finite weighted means
 * within 1e-4 of the double reference: sigma_range as large as the values
 * (range weights near 1: the weighted sums would overflow), beyond them
 * (1e300: every range weight 1) and small (1: neighbours of the other sign
 * get weight 0, where (d / sigma)^2 must not become Inf - Inf). bparams.sr
 * is in u8 units (run_bil scales f32 by 1/255). */
static void large_values(void)
{
    static const double srs[] = {1e38, 1e300, 1.0};
    for (int kind = 0; kind < TH_LARGE_KINDS; kind++)
        for (int cn = 1; cn <= 3; cn += 2)
            for (int i = 0; i < 3; i++) {
                float *src = th_large_pixels(37, 29, cn, kind);
                run_bil(src, 37, 29, cn, CLV_F32, (bparams){3.0, srs[i] * 255.0, 0},
                        CLV_BORDER_REFLECT101, 0, th_large_name(kind));
                if (i == 0)
                    run_bil(src, 37, 29, cn, CLV_F32, (bparams){1.0, srs[i] * 255.0, 2},
                            CLV_BORDER_CONSTANT, 0, th_large_name(kind));
                free(src);
            }
}

/* Tiny f32 data (1e-35, normal floats) with sigma_range to scale: one
 * channel must match the reference to 1e-4 of the data's scale, which a
 * kernel flushing subnormals to zero misses (9 % off); 2-4 channels flush
 * on CPU devices (edge.h), so they are checked at 1e-30, where they hold. */
static void tiny_values(void)
{
    for (int cn = 1; cn <= 3; cn += 2) {
        const double scale = cn == 1 ? 1e-35 : 1e-30;
        const int w = 45, h = 23;
        const size_t n = (size_t)w * h * cn;
        float *src = th_random_pixels(w, h, cn, CLV_F32, seed++);
        for (size_t i = 0; i < n; i++)
            src[i] = (float)(src[i] * scale);
        float *want = th_malloc(n * sizeof(float)), *got = th_malloc(n * sizeof(float));
        ref_bilateral(src, w, h, cn, CLV_F32, want, 3.0, 0.1 * scale, 0, CLV_BORDER_REFLECT101);
        clv_image *s = th_upload(ctx, src, w, h, cn, CLV_F32, 0);
        clv_image *d = th_poisoned(ctx, w, h, cn, CLV_F32);
        clv_status st = clv_bilateral(ctx, s, d, 3.0, 0.1 * scale, 0, CLV_BORDER_REFLECT101);
        if (st == CLV_OK)
            st = clv_image_download(d, got, 0);
        double worst = 0.0;
        for (size_t i = 0; st == CLV_OK && i < n; i++) {
            const double e = fabs((double)got[i] - (double)want[i]) / scale;
            worst = e > worst || e != e ? e : worst;
        }
        CHECK(st == CLV_OK && worst <= 1e-4,
              "bilateral f32 c%d data of %g: worst error %g of the data's scale (%s)", cn, scale,
              worst, clv_status_string(st));
        if (st == CLV_OK && worst <= 1e-4)
            passed++;
        clv_image_release(s);
        clv_image_release(d);
        free(src);
        free(want);
        free(got);
    }
}

/* The GPU kernel with the radius compiled in (bil_fixed; run with
 * CLV_TUNE=gpu on PoCL): a program per radius, type, channel count and
 * border, so a compact set that still reaches every depth, channel count,
 * border it takes, odd sizes, several outputs per work-item past the image's
 * last row, its largest radius and the extreme sigmas. */
static void fixed_radius(void)
{
    const bparams b15 = {1.5, 30.0, 0}; /* radius 5 */
    static const clv_pixel_type types3[] = {CLV_U8, CLV_U16, CLV_F32};
    for (int t = 0; t < 3; t++)
        for (int cn = 1; cn <= 4; cn++)
            if (cn == 1 || cn == 3 || types3[t] == CLV_F32) {
                run_random(37, 29, cn, types3[t], b15, CLV_BORDER_REFLECT101, 0);
                run_blocky(23, 17, cn, types3[t], b15, CLV_BORDER_REFLECT101);
            }
    for (int bd = 0; bd < N_BORDERS; bd++) {
        run_blocky(37, 29, 3, CLV_U8, b15, all_borders[bd]);
        run_random(7, 3, 3, CLV_U8, b15, all_borders[bd], 0);
    }
    static const bparams sweep[] = {
        {1e-30, 25.0, 5}, {2.0, 1e-30, 5}, {2.0, 1e30, 5}, {1.0, 20.0, 1}, {3.0, 25.0, 9},
        {6.0, 25.0, 16}, {6.0, 25.0, 17},
    };
    for (int k = 0; k < (int)(sizeof sweep / sizeof sweep[0]); k++) {
        run_blocky(53, 41, 1, CLV_U8, sweep[k], CLV_BORDER_REFLECT101);
        run_random(33, 70, 1, CLV_U8, sweep[k], CLV_BORDER_REFLECT101, 0);
    }
    run_random(7, 3, 3, CLV_U8, b15, CLV_BORDER_REFLECT, 13);
    /* the largest radius with 4 float channels: no tile of bil_fixed's fits
     * the local-memory budget, bil_tiled takes it */
    run_blocky(23, 17, 4, CLV_F32, (bparams){6.0, 25.0, 16}, CLV_BORDER_REFLECT101);
    run_random(640, 480, 1, CLV_U8, (bparams){3.0, 25.0, 9}, CLV_BORDER_REFLECT101, 0);
    run_blocky(640, 480, 3, CLV_U8, (bparams){3.0, 25.0, 9}, CLV_BORDER_REFLECT101);
    photo();
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* keep result lines in order with stderr */
    ctx = test_context();
    printf("device: %s (%s)\n", clv_context_device_name(ctx), clv_context_platform_name(ctx));
    if (argc > 1 && strcmp(argv[1], "fixed") == 0) {
        fixed_radius();
        clv_context_release(ctx);
        return test_finish("bilateral (radius compiled in)", passed);
    }

    large_values();
    tiny_values();
    derived_radius();

    /* Every type, channel count and border at tiny and small odd sizes
     * (sigma_space 1.5: default radius 5, larger than 1x1 and 7x3). */
    const bparams b15 = {1.5, 30.0, 0};
    static const int small[][2] = {{1, 1}, {7, 3}, {37, 29}};
    for (int si = 0; si < 3; si++)
        for (int t = 0; t < N_TYPES; t++)
            for (int c = 0; c < N_CN; c++)
                for (int b = 0; b < N_BORDERS; b++) {
                    run_random(small[si][0], small[si][1], all_cn[c], all_types[t], b15,
                               all_borders[b], 0);
                    if (si == 2)
                        run_blocky(small[si][0], small[si][1], all_cn[c], all_types[t], b15,
                                   all_borders[b]);
                }

    /* Parameter sweep, every border: radius 1, explicit 5, a wide range sigma
     * (close to a Gaussian), a narrow one (close to identity), a tiny
     * sigma_space, the largest radius on a small image (beyond the tile
     * budget of the GPU-style kernel: its global-memory variant), a radius
     * between (tiled for 1 channel, global for 3 and 4) and extreme sigmas. */
    static const bparams sweep[] = {
        {1.0, 20.0, 1},  {2.0, 40.0, 5},   {3.0, 1000.0, 0}, {2.0, 2.0, 0},
        {0.3, 50.0, 0},  {40.0, 30.0, CLV_BILATERAL_MAX_RADIUS}, {8.0, 25.0, 24},
        /* extremes: only the centre counts / only equal neighbours count /
         * no range term at all (a Gaussian) */
        {1e-30, 25.0, 3}, {2.0, 1e-30, 0}, {2.0, 1e30, 0},
    };
    for (int k = 0; k < (int)(sizeof sweep / sizeof sweep[0]); k++)
        for (int bd = 0; bd < N_BORDERS; bd++) {
            run_blocky(37, 29, 3, CLV_U8, sweep[k], all_borders[bd]);
            run_random(37, 29, 1, CLV_F32, sweep[k], all_borders[bd], 0);
            run_blocky(23, 17, 4, CLV_F32, sweep[k], all_borders[bd]);
            run_random(19, 11, 2, CLV_F32, sweep[k], all_borders[bd], 0);
            run_random(7, 3, 1, CLV_U8, sweep[k], all_borders[bd], 0);
        }

    /* u16 comes with the same kernels. */
    for (int c = 0; c < N_CN; c++) {
        run_random(37, 29, all_cn[c], CLV_U16, b15, CLV_BORDER_REFLECT101, 0);
        run_blocky(37, 29, all_cn[c], CLV_U16, (bparams){2.0, 20.0, 0}, CLV_BORDER_CONSTANT);
    }

    /* Padded host strides. */
    run_random(7, 3, 3, CLV_U8, b15, CLV_BORDER_REFLECT, 13);
    run_blocky(37, 29, 4, CLV_F32, (bparams){2.0, 20.0, 3}, CLV_BORDER_WRAP);

    /* 640x480: every type and channel count (2 channels: f32 only). */
    for (int t = 0; t < N_TYPES; t++)
        for (int c = 0; c < N_CN; c++)
            if (all_cn[c] != 2 || all_types[t] == CLV_F32)
                run_blocky(640, 480, all_cn[c], all_types[t], (bparams){2.0, 25.0, 0},
                           t == 0 ? CLV_BORDER_REFLECT101 : CLV_BORDER_CONSTANT);
    run_random(640, 480, 3, CLV_U8, (bparams){1.0, 60.0, 0}, CLV_BORDER_WRAP, 13);

    /* 1920x1080: one. */
    run_blocky(1920, 1080, 3, CLV_U8, (bparams){1.0, 25.0, 0}, CLV_BORDER_REFLECT101);

    photo();

    clv_context_release(ctx);
    return test_finish("bilateral", passed);
}
