/* clv_corners_shi_tomasi against the plain C reference (tests/ref/ref_pyr.c:
 * same responses bit for bit, OpenCV's selection restated), and against
 * OpenCV's own goodFeaturesToTrack output (tests/data/corners_opencv.csv,
 * made by make_corners.py): at least 95% of OpenCV's corners must have one
 * of ours within 1 px. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"
#include "ref/ref_pyr.h"
#include "testutil.h"

static clv_context *ctx;
static int passed;
static uint64_t seed = 7700;

typedef struct cparams {
    int max_corners;
    double quality, min_distance;
    int block;
} cparams;

/* Device vs reference: the same corners in the same order with the same
 * responses. Ties are broken the same way on both sides (pixel index), and
 * the responses are the same floats, so nothing is left to chance; where a
 * device would differ in the last bit the first difference is printed. */
static int compare_corners(const clv_corner *got, int ngot, const clv_corner *want, int nwant,
                           const char *label)
{
    int bad = ngot != nwant;
    int first = -1;
    const int n = ngot < nwant ? ngot : nwant;
    for (int i = 0; i < n && first < 0; i++) {
        if (got[i].x != want[i].x || got[i].y != want[i].y ||
            got[i].response != want[i].response)
            first = i;
    }
    if (first >= 0)
        bad = 1;
    printf("%s: %d corners%s\n", label, ngot, bad ? " FAIL" : "");
    if (bad) {
        fprintf(stderr, "  %s: device %d corners, reference %d\n", label, ngot, nwant);
        if (first >= 0)
            fprintf(stderr, "  first difference at %d: device (%g, %g) %.9g, reference (%g, %g) %.9g\n",
                    first, got[first].x, got[first].y, got[first].response, want[first].x,
                    want[first].y, want[first].response);
    }
    return !bad;
}

/* Runs device and reference on a packed 1-channel image (mask may be NULL). */
static int run_case(const void *src, int w, int h, clv_pixel_type type, const uint8_t *mask,
                    cparams cp, const char *tag, clv_corner *got_out, int *ngot_out)
{
    char label[256];
    snprintf(label, sizeof label, "corners %s %s %dx%d max=%d q=%g d=%g block=%d%s", tag,
             clv_pixel_type_name(type), w, h, cp.max_corners, cp.quality, cp.min_distance,
             cp.block, mask ? " masked" : "");
    clv_image *img = th_upload(ctx, src, w, h, 1, type, 0);
    clv_image *m = mask ? th_upload(ctx, mask, w, h, 1, CLV_U8, 0) : NULL;
    clv_corner_params p = clv_corner_params_default();
    p.max_corners = cp.max_corners;
    p.quality_level = cp.quality;
    p.min_distance = cp.min_distance;
    p.block_size = cp.block;
    p.mask = m;
    clv_corner *got = th_malloc((size_t)cp.max_corners * sizeof *got);
    clv_corner *want = th_malloc((size_t)cp.max_corners * sizeof *want);
    int ngot = -1;
    int ok = 0;
    clv_status s = clv_corners_shi_tomasi(ctx, img, &p, got, &ngot);
    if (s != CLV_OK) {
        CHECK(0, "%s: %s: %s", label, clv_status_string(s), clv_last_error(ctx));
    } else {
        const int nwant = ref_corners(src, w, h, type, mask, cp.max_corners, cp.quality,
                                      cp.min_distance, cp.block, want);
        ok = compare_corners(got, ngot, want, nwant, label);
        if (ok)
            passed++;
        else
            test_failures++;
    }
    if (got_out && ngot > 0)
        memcpy(got_out, got, (size_t)ngot * sizeof *got);
    if (ngot_out)
        *ngot_out = ngot;
    free(got);
    free(want);
    clv_image_release(img);
    clv_image_release(m);
    return ok;
}

/* Random noise smoothed into blobs (plenty of corners), u8 or f32 in [0, 1). */
static void *blobs(int w, int h, clv_pixel_type type, double sigma)
{
    uint8_t *noise = th_random_pixels(w, h, 1, CLV_U8, seed++);
    uint8_t *sm = th_malloc((size_t)w * h);
    ref_gaussian(noise, w, h, 1, CLV_U8, sm, sigma, 0.0, 0, 0, CLV_BORDER_REFLECT101);
    free(noise);
    if (type == CLV_U8)
        return sm;
    float *f = th_malloc((size_t)w * h * sizeof *f);
    for (size_t i = 0; i < (size_t)w * h; i++)
        f[i] = sm[i] / 255.0f;
    free(sm);
    return f;
}

static void expect_invalid(clv_status s, const char *what)
{
    passed += th_expect_invalid(ctx, s, what);
}

/* A constant image has no corners; neither has any image of quality 1.0 (the
 * threshold is strict, as OpenCV's). */
static void empty_results(void)
{
    const int w = 64, h = 48;
    uint8_t *flat = th_malloc((size_t)w * h);
    memset(flat, 117, (size_t)w * h);
    clv_image *img = th_upload(ctx, flat, w, h, 1, CLV_U8, 0);
    clv_corner_params p = clv_corner_params_default();
    clv_corner *out = th_malloc((size_t)p.max_corners * sizeof *out);
    int n = -1;
    clv_status s = clv_corners_shi_tomasi(ctx, img, &p, out, &n);
    CHECK(s == CLV_OK && n == 0, "constant image: %s, %d corners", clv_status_string(s), n);
    passed += s == CLV_OK && n == 0;
    printf("constant image: %d corners\n", n);
    clv_image_release(img);
    free(flat);

    void *b = blobs(w, h, CLV_U8, 2.0);
    img = th_upload(ctx, b, w, h, 1, CLV_U8, 0);
    p.quality_level = 1.0;
    n = -1;
    s = clv_corners_shi_tomasi(ctx, img, &p, out, &n);
    CHECK(s == CLV_OK && n == 0, "quality 1.0: %s, %d corners", clv_status_string(s), n);
    passed += s == CLV_OK && n == 0;
    printf("quality 1.0: %d corners\n", n);
    clv_image_release(img);
    free(b);
    free(out);

    /* all-zero mask */
    b = blobs(w, h, CLV_U8, 2.0);
    uint8_t *zero = calloc((size_t)w * h, 1);
    run_case(b, w, h, CLV_U8, zero, (cparams){100, 0.01, 5, 3}, "zero mask", NULL, NULL);
    free(zero);
    free(b);
}

/* max_corners = 1 gives the strongest interior local maximum. */
static void single(void)
{
    const int w = 200, h = 150;
    void *b = blobs(w, h, CLV_F32, 3.0);
    clv_corner c;
    int n = 0;
    run_case(b, w, h, CLV_F32, NULL, (cparams){1, 0.01, 10, 3}, "single", &c, &n);
    CHECK(n == 1, "max_corners 1 gave %d", n);
    /* and with quality just below 1: exactly that corner */
    run_case(b, w, h, CLV_F32, NULL, (cparams){50, 0.999999, 0, 3}, "q~1", NULL, NULL);
    free(b);
}

static void masks(void)
{
    const int w = 320, h = 240;
    void *b = blobs(w, h, CLV_U8, 2.0);
    uint8_t *m = th_malloc((size_t)w * h);
    /* left half and a window on the right */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            m[(size_t)y * w + x] = (x < w / 2 || (x > 200 && x < 260 && y > 50 && y < 120)) ? 255 : 0;
    run_case(b, w, h, CLV_U8, m, (cparams){300, 0.01, 7, 3}, "mask", NULL, NULL);
    run_case(b, w, h, CLV_U8, m, (cparams){5000, 0.05, 0, 5}, "mask", NULL, NULL);
    /* a single allowed pixel */
    memset(m, 0, (size_t)w * h);
    m[(size_t)100 * w + 100] = 1;
    run_case(b, w, h, CLV_U8, m, (cparams){10, 0.01, 0, 3}, "one-pixel mask", NULL, NULL);
    free(m);
    free(b);
}

/* Gray chelsea with OpenCV's integer RGB -> gray. */
static uint8_t *gray_chelsea(int *w, int *h)
{
    void *px = NULL;
    int cn;
    int r = th_load_photo("chelsea.png", CLV_U8, &px, w, h, &cn);
    CHECK(r >= 0, "chelsea.png exists but could not be read");
    if (r <= 0)
        return NULL;
    uint8_t *g = th_malloc((size_t)*w * *h);
    const uint8_t *p = px;
    for (size_t i = 0; i < (size_t)*w * *h; i++) {
        const int R = p[i * cn], G = p[i * cn + 1], B = p[i * cn + 2];
        g[i] = (uint8_t)((4899 * R + 9617 * G + 1868 * B + 8192) >> 14);
    }
    free(px);
    return g;
}

/* Share of OpenCV's corners (from the CSV) with one of ours within 1 px. */
static void vs_opencv(const char *name, const uint8_t *img, int w, int h)
{
    const char *path = test_data_path("corners_opencv.csv");
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "%s missing (tests/data/make_corners.py makes it)", path);
    if (!f)
        return;
    clv_corner cv[1024];
    int ncv = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char img_name[128];
        float x, y, r;
        if (line[0] == '#' || strncmp(line, "image,", 6) == 0)
            continue;
        if (sscanf(line, "%127[^,],%f,%f,%f", img_name, &x, &y, &r) == 4 &&
            strcmp(img_name, name) == 0 && ncv < 1024)
            cv[ncv++] = (clv_corner){x, y, r};
    }
    fclose(f);
    CHECK(ncv > 0, "no OpenCV corners for %s in %s", name, path);
    clv_corner ours[200];
    int n = 0;
    run_case(img, w, h, CLV_U8, NULL, (cparams){200, 0.01, 10, 3}, name, ours, &n);
    int matched = 0;
    double max_rel = 0.0;
    for (int i = 0; i < ncv; i++) {
        int best = -1;
        double bd = 2.0;
        for (int j = 0; j < n; j++) {
            const double dx = ours[j].x - cv[i].x, dy = ours[j].y - cv[i].y;
            const double dd = sqrt(dx * dx + dy * dy);
            if (dd < bd) {
                bd = dd;
                best = j;
            }
        }
        if (best >= 0 && bd <= 1.0) {
            matched++;
            const double rel = fabs(ours[best].response - cv[i].response) / cv[i].response;
            if (rel > max_rel)
                max_rel = rel;
        }
    }
    const double pct = ncv ? 100.0 * matched / ncv : 0.0;
    printf("vs OpenCV %s: %d of %d OpenCV corners (%.1f%%) have one of our %d within 1 px; "
           "response max rel. diff %.2g\n",
           name, matched, ncv, pct, n, max_rel);
    CHECK(pct >= 95.0, "%s: only %.1f%% of OpenCV's corners matched", name, pct);
    CHECK(max_rel < 1e-4, "%s: responses differ from OpenCV's by %.2g", name, max_rel);
    passed += pct >= 95.0 && max_rel < 1e-4;
}

static void photos(void)
{
    void *px = NULL;
    int w, h, cn;
    int r = th_load_photo("camera.png", CLV_U8, &px, &w, &h, &cn);
    CHECK(r >= 0, "camera.png exists but could not be read");
    if (r > 0 && cn == 1) {
        vs_opencv("camera.png", px, w, h);
        run_case(px, w, h, CLV_U8, NULL, (cparams){1000, 0.001, 0, 3}, "camera", NULL, NULL);
        run_case(px, w, h, CLV_U8, NULL, (cparams){500, 0.01, 4.5, 5}, "camera", NULL, NULL);
        float *f = th_malloc((size_t)w * h * sizeof *f);
        for (size_t i = 0; i < (size_t)w * h; i++)
            f[i] = ((uint8_t *)px)[i] / 255.0f;
        run_case(f, w, h, CLV_F32, NULL, (cparams){200, 0.01, 10, 3}, "camera", NULL, NULL);
        free(f);
    }
    free(px);
    uint8_t *g = gray_chelsea(&w, &h);
    if (g) {
        vs_opencv("chelsea.png", g, w, h);
        run_case(g, w, h, CLV_U8, NULL, (cparams){2000, 0.005, 3, 3}, "chelsea", NULL, NULL);
        run_case(g, w, h, CLV_U8, NULL, (cparams){100, 0.05, 25.5, 7}, "chelsea", NULL, NULL);
        free(g);
    }
}

/* max_corners = INT_MAX ("all there are") with a capacity (issue 13 #20):
 * count first with no array, then fetch all or only the strongest few. */
static void capacity(void)
{
    const int w = 200, h = 150;
    uint8_t *b = blobs(w, h, CLV_U8, 2.0);
    clv_image *img = NULL;
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, 1, CLV_U8, &img));
    REQUIRE_OK(ctx, clv_image_upload(img, b, 0));
    clv_corner_params p = clv_corner_params_default();
    p.max_corners = INT_MAX;
    p.min_distance = 3;
    int n = -1;
    REQUIRE_OK(ctx, clv_corners_shi_tomasi_n(ctx, img, &p, NULL, 0, &n));
    CHECK(n > 10, "count-only call found %d corners", n);
    if (n > 10) {
        clv_corner *all = th_malloc((size_t)n * sizeof *all);
        clv_corner *ref = th_malloc((size_t)n * sizeof *ref);
        int n2 = -1, n3 = -1;
        REQUIRE_OK(ctx, clv_corners_shi_tomasi_n(ctx, img, &p, all, n, &n2));
        CHECK(n2 == n, "second call found %d, count said %d", n2, n);
        clv_corner_params q = p;
        q.max_corners = n;
        REQUIRE_OK(ctx, clv_corners_shi_tomasi(ctx, img, &q, ref, &n3));
        CHECK(n3 == n && memcmp(all, ref, (size_t)n * sizeof *all) == 0,
              "INT_MAX with capacity %d differs from max_corners %d (%d)", n, n, n3);
        /* capacity 3: the three strongest, nothing written past them */
        clv_corner few[4];
        memset(few, 0x5A, sizeof few);
        unsigned char guard[sizeof few[3]];
        memcpy(guard, &few[3], sizeof guard);
        REQUIRE_OK(ctx, clv_corners_shi_tomasi_n(ctx, img, &p, few, 3, &n2));
        CHECK(n2 == n && memcmp(few, all, 3 * sizeof *few) == 0 &&
                  memcmp(&few[3], guard, sizeof guard) == 0,
              "capacity 3: count %d (want %d), strongest three and nothing more", n2, n);
        passed++;
        free(all);
        free(ref);
    }
    clv_corner one;
    int c = 7;
    expect_invalid(clv_corners_shi_tomasi_n(ctx, img, &p, &one, -1, &c), "capacity -1");
    CHECK(strstr(clv_last_error(ctx), "capacity") != NULL, "message: %s", clv_last_error(ctx));
    expect_invalid(clv_corners_shi_tomasi_n(ctx, img, &p, NULL, 2, &c), "NULL out, capacity 2");
    CHECK(c == 0, "count %d after a failure", c);
    clv_image_release(img);
    free(b);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    ctx = test_context();
    printf("device: %s (%s)\n", clv_context_device_name(ctx), clv_context_platform_name(ctx));

    empty_results();
    single();
    capacity();
    masks();

    /* tiny and odd sizes: borders everywhere, few or no interior pixels */
    static const int tiny[][2] = {{1, 1}, {2, 2}, {3, 3}, {7, 3}, {3, 7}, {16, 16}, {33, 17}, {5, 40}};
    for (int i = 0; i < (int)(sizeof tiny / sizeof tiny[0]); i++) {
        const int w = tiny[i][0], h = tiny[i][1];
        void *u = th_random_pixels(w, h, 1, CLV_U8, seed++);
        run_case(u, w, h, CLV_U8, NULL, (cparams){100, 0.01, 0, 3}, "tiny", NULL, NULL);
        run_case(u, w, h, CLV_U8, NULL, (cparams){100, 0.01, 2, 5}, "tiny", NULL, NULL);
        free(u);
        void *f = th_random_pixels(w, h, 1, CLV_F32, seed++);
        run_case(f, w, h, CLV_F32, NULL, (cparams){100, 0.1, 1.5, 1}, "tiny", NULL, NULL);
        free(f);
    }

    /* parameter sweep on blob images */
    static const cparams sweep[] = {
        {1000, 0.01, 10, 3}, {1000, 0.01, 0, 3},   {1000, 0.01, 1, 3},   {1000, 0.01, 1.5, 3},
        {1000, 0.01, 2, 3},  {1000, 0.01, 2.5, 3}, {500, 0.1, 30.7, 3},  {10, 0.01, 1e9, 3},
        {100000, 0.001, 0, 1}, {300, 0.02, 5, 5},  {300, 0.02, 5, 7},    {300, 0.02, 8, 31},
        {37, 0.3, 4, 3},
    };
    for (int i = 0; i < (int)(sizeof sweep / sizeof sweep[0]); i++) {
        void *u = blobs(640, 480, CLV_U8, 2.0);
        run_case(u, 640, 480, CLV_U8, NULL, sweep[i], "blobs", NULL, NULL);
        free(u);
        void *f = blobs(67, 45, CLV_F32, 1.0);
        run_case(f, 67, 45, CLV_F32, NULL, sweep[i], "blobs", NULL, NULL);
        free(f);
    }
    /* raw noise (dense candidates, many equal neighbours in u8) */
    void *noise = th_random_pixels(640, 480, 1, CLV_U8, seed++);
    run_case(noise, 640, 480, CLV_U8, NULL, (cparams){100000, 0.001, 0, 3}, "noise", NULL, NULL);
    run_case(noise, 640, 480, CLV_U8, NULL, (cparams){5000, 0.01, 3, 3}, "noise", NULL, NULL);
    free(noise);
    /* a plateau image: equal responses everywhere inside squares (ties) */
    {
        const int w = 128, h = 96;
        uint8_t *sq = th_malloc((size_t)w * h);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                sq[(size_t)y * w + x] = ((x / 8 + y / 8) % 2) ? 200 : 30;
        run_case(sq, w, h, CLV_U8, NULL, (cparams){1000, 0.01, 0, 3}, "checker", NULL, NULL);
        run_case(sq, w, h, CLV_U8, NULL, (cparams){1000, 0.01, 3, 3}, "checker", NULL, NULL);
        free(sq);
    }
    /* 1920x1080 */
    void *big = blobs(1920, 1080, CLV_U8, 2.0);
    run_case(big, 1920, 1080, CLV_U8, NULL, (cparams){2000, 0.01, 10, 3}, "blobs", NULL, NULL);
    free(big);
    /* more than 2^18 candidates: the threshold is raised on the device */
    void *dense = th_random_pixels(2000, 2000, 1, CLV_U8, seed++);
    run_case(dense, 2000, 2000, CLV_U8, NULL, (cparams){3000, 1e-6, 2, 1}, "over capacity",
             NULL, NULL);
    run_case(dense, 2000, 2000, CLV_U8, NULL, (cparams){300000, 1e-6, 0, 1}, "over capacity",
             NULL, NULL);
    free(dense);

    photos();

    clv_context_release(ctx);
    return test_finish("corners", passed);
}
