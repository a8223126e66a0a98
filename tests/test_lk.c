/* clv_lk_track: against the double-precision reference (tests/ref/ref_lk.c)
 * on synthetic textures, known-motion accuracy on a real photo pair next to
 * OpenCV's calcOpticalFlowPyrLK (tests/data/make_lk.py), borders, flat
 * images and argument checks. Outputs are poisoned before every call. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"
#include "ref/ref_lk.h"
#include "testutil.h"

static clv_context *ctx;
static int passed;

#define POISON_POS 1.0e30f
#define POISON_ERR -7.0f
#define POISON_STATUS 0xCD

/* Tolerances against the reference: positions of tracked points (pixels),
 * and err (u8 units, also relative). */
#define TOL_POS 1e-3
#define TOL_ERR 2e-3

static void poison(clv_point *out, uint8_t *st, float *err, int n)
{
    for (int i = 0; i < n; i++) {
        out[i].x = out[i].y = POISON_POS;
        st[i] = POISON_STATUS;
        if (err)
            err[i] = POISON_ERR;
    }
}

/* ---- images and pyramids ---- */

/* Smooth random texture: 128 + sum a_k sin(f_k . p + phi_k), |sum a_k| <= 110. */
typedef struct texture {
    int n;
    double a[12], fx[12], fy[12], ph[12];
} texture;

static double urand(uint64_t *s)
{
    return (double)(test_rand(s) >> 11) * (1.0 / 9007199254740992.0);
}

static texture make_texture(uint64_t seed)
{
    texture t;
    uint64_t s = seed * 7919 + 17;
    t.n = 12;
    for (int k = 0; k < t.n; k++) {
        const double f = 0.06 + 0.6 * urand(&s), ang = 6.283185307179586 * urand(&s);
        t.fx[k] = f * cos(ang);
        t.fy[k] = f * sin(ang);
        t.ph[k] = 6.283185307179586 * urand(&s);
        t.a[k] = 110.0 / t.n * (0.4 + 0.6 * urand(&s));
    }
    return t;
}

static double tex_at(const texture *t, double x, double y)
{
    double v = 128.0;
    for (int k = 0; k < t->n; k++)
        v += t->a[k] * sin(t->fx[k] * x + t->fy[k] * y + t->ph[k]);
    return v;
}

/* Affine motion p -> A p: [a0 a1 a2; a3 a4 a5]. */
typedef struct affine {
    double m[6];
} affine;

static affine make_motion(double tx, double ty, double deg, double zoom, double cx, double cy)
{
    const double t = deg * 3.141592653589793 / 180.0;
    const double c = zoom * cos(t), s = zoom * sin(t);
    affine a = {{c, -s, cx - c * cx + s * cy + tx, s, c, cy - s * cx - c * cy + ty}};
    return a;
}

static void apply(const affine *a, double x, double y, double *ox, double *oy)
{
    *ox = a->m[0] * x + a->m[1] * y + a->m[2];
    *oy = a->m[3] * x + a->m[4] * y + a->m[5];
}

static void apply_inverse(const affine *a, double x, double y, double *ox, double *oy)
{
    const double det = a->m[0] * a->m[4] - a->m[1] * a->m[3];
    const double u = x - a->m[2], v = y - a->m[5];
    *ox = (a->m[4] * u - a->m[1] * v) / det;
    *oy = (-a->m[3] * u + a->m[0] * v) / det;
}

/* Packed w x h image of `type` from the texture seen through motion^-1
 * (motion NULL: the texture itself). */
static void *render(const texture *t, const affine *motion, int w, int h, clv_pixel_type type)
{
    void *px = th_malloc(th_image_bytes(w, h, 1, type));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double sx = x, sy = y;
            if (motion)
                apply_inverse(motion, x, y, &sx, &sy);
            const double v = tex_at(t, sx, sy);
            const size_t i = (size_t)y * w + x;
            if (type == CLV_U8)
                ((uint8_t *)px)[i] = (uint8_t)fmin(fmax(floor(v + 0.5), 0.0), 255.0);
            else if (type == CLV_U16)
                ((uint16_t *)px)[i] = (uint16_t)fmin(fmax(floor(v * 257.0 + 0.5), 0.0), 65535.0);
            else
                ((float *)px)[i] = (float)(v / 255.0);
        }
    return px;
}

static clv_pyramid *make_pyramid(const void *px, int w, int h, clv_pixel_type type, int levels)
{
    clv_image *img = th_upload(ctx, px, w, h, 1, type, 0);
    clv_pyramid *p = NULL;
    REQUIRE_OK(ctx, clv_pyramid_create(ctx, w, h, 1, type, levels, 0.5, &p));
    REQUIRE_OK(ctx, clv_pyramid_build(ctx, p, img));
    clv_image_release(img);
    return p;
}

/* The device pyramid's levels as host images for the reference. */
static void download_levels(const clv_pyramid *p, int n, ref_lk_level *out)
{
    for (int l = 0; l < n; l++) {
        const clv_image *img = clv_pyramid_level(p, l);
        REQUIRE(img != NULL, "pyramid level %d missing", l);
        out[l].data = th_download(ctx, img, 0, NULL);
        REQUIRE(out[l].data != NULL, "download of level %d failed", l);
        out[l].w = clv_image_width(img);
        out[l].h = clv_image_height(img);
        out[l].type = clv_image_type(img);
    }
}

static void free_levels(ref_lk_level *lv, int n)
{
    for (int l = 0; l < n; l++)
        free((void *)lv[l].data);
}

/* Every output written: status 0/1, err finite >= 0 (0 when lost),
 * positions finite when tracked. Returns the number of bad entries. */
static int check_written(const clv_point *out, const uint8_t *st, const float *err, int n,
                         const char *label)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int ok = st[i] <= 1;
        if (err)
            ok = ok && isfinite(err[i]) && err[i] >= 0.0f && (st[i] || err[i] == 0.0f);
        if (st[i] == 1)
            ok = ok && isfinite(out[i].x) && isfinite(out[i].y) && out[i].x != POISON_POS;
        if (!ok && bad++ < 3)
            fprintf(stderr, "%s: point %d not written properly: status %d err %g out (%g, %g)\n",
                    label, i, st[i], err ? err[i] : 0.0, out[i].x, out[i].y);
    }
    CHECK(bad == 0, "%s: %d outputs not written properly", label, bad);
    return bad;
}

/* ---- against the reference ---- */

typedef struct lk_case {
    clv_pixel_type type;
    int w, h, levels, ww, wh, npts, use_init, max_iter;
    double eps;
    uint64_t seed;
    double deg, zoom; /* motion: translation (1.6, -2.2), rotation, zoom */
} lk_case;

static void run_ref_case(lk_case c)
{
    char label[256];
    snprintf(label, sizeof label,
             "lk vs ref %s %dx%d levels %d win %dx%d pts %d%s iter %d eps %g motion %g deg x%g",
             clv_pixel_type_name(c.type), c.w, c.h, c.levels, c.ww, c.wh, c.npts,
             c.use_init ? " initial-flow" : "", c.max_iter, c.eps, c.deg, c.zoom);
    const texture tex = make_texture(c.seed);
    const affine mot = make_motion(1.6, -2.2, c.deg, c.zoom, c.w * 0.5, c.h * 0.5);
    void *a = render(&tex, NULL, c.w, c.h, c.type), *b = render(&tex, &mot, c.w, c.h, c.type);
    /* odd seeds: pyramids with a level more than the tracking uses */
    const int built = c.levels + (int)(c.seed & 1);
    clv_pyramid *pa = make_pyramid(a, c.w, c.h, c.type, built);
    clv_pyramid *pb = make_pyramid(b, c.w, c.h, c.type, built);
    REQUIRE(clv_pyramid_levels(pa) >= c.levels, "%s: pyramid has %d levels", label,
            clv_pyramid_levels(pa));
    ref_lk_level la[CLV_PYRAMID_MAX_LEVELS], lb[CLV_PYRAMID_MAX_LEVELS];
    download_levels(pa, c.levels, la);
    download_levels(pb, c.levels, lb);

    /* Points: most inside, a band of them around and beyond the borders
     * (OpenCV's rule keeps a window that is less than its size outside). */
    const int n = c.npts;
    clv_point *in = th_malloc(n * sizeof *in), *got = th_malloc(n * sizeof *got),
              *want = th_malloc(n * sizeof *want), *init = th_malloc(n * sizeof *init);
    uint8_t *st = th_malloc(n), *wst = th_malloc(n);
    float *err = th_malloc(n * sizeof *err), *werr = th_malloc(n * sizeof *werr);
    uint64_t s = c.seed * 31 + 5;
    const double m = c.ww > c.wh ? c.ww : c.wh;
    for (int i = 0; i < n; i++) {
        if (i % 4 == 3) {
            in[i].x = (float)(-m + (c.w + 2 * m) * urand(&s));
            in[i].y = (float)(-m + (c.h + 2 * m) * urand(&s));
        } else {
            in[i].x = (float)(c.w * urand(&s));
            in[i].y = (float)(c.h * urand(&s));
        }
        double tx, ty;
        apply(&mot, in[i].x, in[i].y, &tx, &ty);
        init[i].x = (float)(tx + 0.7 * (urand(&s) - 0.5));
        init[i].y = (float)(ty + 0.7 * (urand(&s) - 0.5));
    }
    clv_lk_params p = clv_lk_params_default();
    p.levels = c.levels;
    p.win_width = c.ww;
    p.win_height = c.wh;
    p.use_initial_flow = c.use_init;
    p.max_iterations = c.max_iter;
    p.epsilon = c.eps;

    poison(got, st, err, n);
    if (c.use_init)
        memcpy(got, init, n * sizeof *got);
    clv_status r = clv_lk_track(ctx, pa, pb, in, got, st, err, n, &p);
    CHECK(r == CLV_OK, "%s: %s: %s", label, clv_status_string(r), clv_last_error(ctx));
    if (r == CLV_OK) {
        memcpy(want, init, n * sizeof *want);
        ref_lk_track(la, lb, in, want, wst, werr, n, &p);
        /* Compared: points whose prev window is outside (lost by rule, for
         * both), and points the reference tracks to within 0.3 px of the
         * true motion. The rest (tracks that wander off or end elsewhere
         * on small windows) are chaotic: float and double may part ways. */
        int bad = check_written(got, st, err, n, label), nst = 0, tracked = 0, outside = 0,
            skipped = 0;
        double maxd = 0.0, maxe = 0.0;
        const double hx = (c.ww - 1) * 0.5, hy = (c.wh - 1) * 0.5;
        for (int i = 0; i < n; i++) {
            const double fx = floor(in[i].x - hx), fy = floor(in[i].y - hy);
            const int prev_out = !(fx >= -c.ww && fx < c.w && fy >= -c.wh && fy < c.h);
            double gx, gy;
            apply(&mot, in[i].x, in[i].y, &gx, &gy);
            const int well = wst[i] && hypot(want[i].x - gx, want[i].y - gy) < 0.3;
            if (prev_out) {
                outside++;
                if ((st[i] != 0 || wst[i] != 0 || err[i] != 0.0f) && nst++ < 5)
                    fprintf(stderr, "%s: point %d (%g, %g) outside: status %d err %g\n", label,
                            i, in[i].x, in[i].y, st[i], err[i]);
                continue;
            }
            if (!well) {
                skipped++;
                continue;
            }
            if (st[i] != 1) {
                if (nst++ < 5)
                    fprintf(stderr, "%s: point %d (%g, %g): lost, reference tracked it\n", label,
                            i, in[i].x, in[i].y);
                continue;
            }
            tracked++;
            const double d = hypot(got[i].x - want[i].x, got[i].y - want[i].y);
            const double de = fabs(err[i] - werr[i]) / fmax(1.0, werr[i]);
            maxd = fmax(maxd, d);
            maxe = fmax(maxe, de);
            if ((d > TOL_POS || de > TOL_ERR) && bad++ < 5)
                fprintf(stderr, "%s: point %d (%g, %g): got (%.5f, %.5f) err %.5f, reference "
                                "(%.5f, %.5f) err %.5f\n",
                        label, i, in[i].x, in[i].y, got[i].x, got[i].y, err[i], want[i].x,
                        want[i].y, werr[i]);
        }
        const int enough = tracked >= n / 2;
        printf("%-4s %s: %d tracked and compared, %d outside, %d not compared; max |pos - ref| "
               "%.2e px, max err diff %.2e\n",
               bad || nst || !enough ? "FAIL" : "ok", label, tracked, outside, skipped, maxd,
               maxe);
        CHECK(nst == 0, "%s: %d status mismatches", label, nst);
        CHECK(bad == 0, "%s: %d points off", label, bad);
        CHECK(enough, "%s: only %d of %d compared", label, tracked, n);
        if (!bad && !nst && enough)
            passed++;
    }
    free_levels(la, c.levels);
    free_levels(lb, c.levels);
    clv_pyramid_release(pa);
    clv_pyramid_release(pb);
    free(a);
    free(b);
    free(in);
    free(got);
    free(want);
    free(init);
    free(st);
    free(wst);
    free(err);
    free(werr);
}

/* ---- known motion on a photo, next to OpenCV ---- */

static double median(double *v, int n)
{
    for (int i = 1; i < n; i++) /* insertion sort: a few hundred values */
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    if (n == 0)
        return NAN;
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct ocv_data {
    affine a;
    int n;
    clv_point p0[1000], p1[1000];
    int st[1000];
    float err[1000];
} ocv_data;

static int load_opencv(ocv_data *d)
{
    FILE *f = fopen(test_data_path("lk_opencv.csv"), "r");
    if (!f)
        return 0;
    char line[512];
    int have_a = 0;
    d->n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            if (sscanf(line, "# A %lf %lf %lf %lf %lf %lf", &d->a.m[0], &d->a.m[1], &d->a.m[2],
                       &d->a.m[3], &d->a.m[4], &d->a.m[5]) == 6)
                have_a = 1;
            continue;
        }
        if (d->n < 1000 && sscanf(line, "%f,%f,%f,%f,%d,%f", &d->p0[d->n].x, &d->p0[d->n].y,
                                  &d->p1[d->n].x, &d->p1[d->n].y, &d->st[d->n],
                                  &d->err[d->n]) == 6)
            d->n++;
    }
    fclose(f);
    return have_a && d->n > 0 ? 1 : -1;
}

/* Median endpoint error of ours and OpenCV's on the points both track whose
 * windows stay inside both frames. */
static void photo_pair(clv_pixel_type type)
{
    const char *tname = clv_pixel_type_name(type);
    static ocv_data d;
    int r = load_opencv(&d);
    CHECK(r >= 0, "lk_opencv.csv is malformed");
    if (r <= 0) {
        if (r == 0)
            fprintf(stderr, "SKIP (photo pair): lk_opencv.csv not found\n");
        return;
    }
    void *pa = NULL, *pb = NULL;
    int w, h, cn, w2, h2, cn2;
    int ra = th_load_photo("lk_prev.png", type, &pa, &w, &h, &cn);
    int rb = th_load_photo("lk_next.png", type, &pb, &w2, &h2, &cn2);
    CHECK(ra >= 0 && rb >= 0, "lk_prev.png / lk_next.png could not be read");
    if (ra <= 0 || rb <= 0) {
        free(pa);
        free(pb);
        return;
    }
    REQUIRE(cn == 1 && cn2 == 1 && w == w2 && h == h2, "photo pair: unexpected format");
    clv_pyramid *ya = make_pyramid(pa, w, h, type, 3), *yb = make_pyramid(pb, w, h, type, 3);

    const int n = d.n;
    clv_point got[1000];
    uint8_t st[1000];
    float err[1000];
    poison(got, st, err, n);
    const clv_lk_params p = clv_lk_params_default(); /* 21x21, 3 levels: as the script */
    clv_status s = clv_lk_track(ctx, ya, yb, d.p0, got, st, err, n, &p);
    CHECK(s == CLV_OK, "photo pair %s: %s: %s", tname, clv_status_string(s), clv_last_error(ctx));
    if (s == CLV_OK) {
        check_written(got, st, err, n, "photo pair");
        double eo[1000], ec[1000], de[1000];
        int k = 0, ours = 0, theirs = 0, agree = 0;
        const double margin = 11.0; /* half window + 1 */
        for (int i = 0; i < n; i++) {
            ours += st[i];
            theirs += d.st[i] == 1;
            agree += st[i] == (d.st[i] == 1);
            double gx, gy;
            apply(&d.a, d.p0[i].x, d.p0[i].y, &gx, &gy);
            const int inside = d.p0[i].x >= margin && d.p0[i].y >= margin &&
                               d.p0[i].x <= w - 1 - margin && d.p0[i].y <= h - 1 - margin &&
                               gx >= margin && gy >= margin && gx <= w - 1 - margin &&
                               gy <= h - 1 - margin;
            if (!st[i] || d.st[i] != 1 || !inside)
                continue;
            eo[k] = hypot(got[i].x - gx, got[i].y - gy);
            ec[k] = hypot(d.p1[i].x - gx, d.p1[i].y - gy);
            de[k] = fabs(err[i] - d.err[i]);
            k++;
        }
        const double mo = median(eo, k), mc = median(ec, k), md = median(de, k);
        printf("%-4s photo pair %s (%dx%d, translation + 0.5 deg + 1%% zoom): tracked %d/%d "
               "(OpenCV %d, status agrees on %d); on %d interior points median endpoint error "
               "%.4f px (OpenCV %.4f px), median |err - OpenCV err| %.3f\n",
               mo < 0.05 && mo <= mc + 0.01 ? "ok" : "FAIL", tname, w, h, ours, n, theirs, agree,
               k, mo, mc, md);
        CHECK(k >= n / 2, "photo pair: only %d comparable points of %d", k, n);
        CHECK(mo < 0.05, "photo pair %s: median endpoint error %.4f px >= 0.05", tname, mo);
        CHECK(mo <= mc + 0.01,
              "photo pair %s: median endpoint error %.4f px > OpenCV's %.4f + 0.01", tname, mo,
              mc);
        CHECK(agree >= n * 95 / 100, "photo pair: status agrees with OpenCV on %d of %d", agree, n);
        if (k >= n / 2 && mo < 0.05 && mo <= mc + 0.01 && agree >= n * 95 / 100)
            passed++;

        /* Our own Shi-Tomasi corners on the same frame, when available. */
        if (type == CLV_U8) {
            clv_image *img = th_upload(ctx, pa, w, h, 1, type, 0);
            clv_corner_params cp = clv_corner_params_default();
            cp.max_corners = 300;
            cp.quality_level = 0.01;
            cp.min_distance = 5.0;
            clv_corner corners[300];
            int nc = 0;
            clv_status cs = clv_corners_shi_tomasi(ctx, img, &cp, corners, &nc);
            clv_image_release(img);
            if (cs != CLV_OK || nc <= 0) {
                printf("note: Shi-Tomasi corners unavailable (%s), skipping that part\n",
                       clv_status_string(cs));
            } else {
                clv_point cin[300], cout[300];
                uint8_t cst[300];
                float cerr[300];
                for (int i = 0; i < nc; i++) {
                    cin[i].x = corners[i].x;
                    cin[i].y = corners[i].y;
                }
                poison(cout, cst, cerr, nc);
                s = clv_lk_track(ctx, ya, yb, cin, cout, cst, cerr, nc, &p);
                CHECK(s == CLV_OK, "photo corners: %s", clv_last_error(ctx));
                int kk = 0, tr = 0;
                for (int i = 0; s == CLV_OK && i < nc; i++) {
                    double gx, gy;
                    apply(&d.a, cin[i].x, cin[i].y, &gx, &gy);
                    tr += cst[i];
                    if (cst[i] && cin[i].x >= margin && cin[i].y >= margin &&
                        cin[i].x <= w - 1 - margin && cin[i].y <= h - 1 - margin &&
                        gx >= margin && gy >= margin && gx <= w - 1 - margin &&
                        gy <= h - 1 - margin)
                        eo[kk++] = hypot(cout[i].x - gx, cout[i].y - gy);
                }
                const double mk = median(eo, kk);
                printf("%-4s photo pair, clvision Shi-Tomasi corners: %d found, %d tracked, "
                       "median endpoint error %.4f px on %d interior ones\n",
                       mk < 0.05 ? "ok" : "FAIL", nc, tr, mk, kk);
                CHECK(kk >= nc / 2 && mk < 0.05, "photo corners: median %.4f px on %d", mk, kk);
                if (kk >= nc / 2 && mk < 0.05)
                    passed++;
            }
        }
    }
    clv_pyramid_release(ya);
    clv_pyramid_release(yb);
    free(pa);
    free(pb);
}

/* ---- borders, flat images, identity ---- */

static void special_cases(void)
{
    const int w = 120, h = 90;
    const texture tex = make_texture(99);
    const affine mot = make_motion(1.3, 0.8, 0.0, 1.0, 0.0, 0.0);
    void *a = render(&tex, NULL, w, h, CLV_U8), *b = render(&tex, &mot, w, h, CLV_U8);
    clv_pyramid *pa = make_pyramid(a, w, h, CLV_U8, 3), *pb = make_pyramid(b, w, h, CLV_U8, 3);
    clv_lk_params p = clv_lk_params_default();
    clv_point in[10], out[10];
    uint8_t st[10];
    float err[10];

    /* Far outside (window corner floor beyond -W or cols), NaN and infinity:
     * lost, err 0. */
    const float far[10][2] = {{-40, 45},     {w + 40, 45}, {60, -40},     {60, h + 40},
                              {-1e30f, 3},   {NAN, 40},    {40, NAN},     {INFINITY, 40},
                              {-30, -30},    {w + 11, h + 11}};
    for (int i = 0; i < 10; i++) {
        in[i].x = far[i][0];
        in[i].y = far[i][1];
    }
    poison(out, st, err, 10);
    clv_status s = clv_lk_track(ctx, pa, pb, in, out, st, err, 10, &p);
    CHECK(s == CLV_OK, "outside points: %s", clv_last_error(ctx));
    int bad = 0;
    for (int i = 0; s == CLV_OK && i < 10; i++)
        if (st[i] != 0 || err[i] != 0.0f) {
            bad++;
            fprintf(stderr, "outside point %d (%g, %g): status %d err %g\n", i, in[i].x, in[i].y,
                    st[i], err[i]);
        }
    printf("%-4s points far outside / NaN / inf are lost (status 0, err 0)\n", bad ? "FAIL" : "ok");
    CHECK(bad == 0, "%d outside points not lost", bad);
    if (s == CLV_OK && !bad)
        passed++;

    /* The same points without err (NULL is allowed). */
    poison(out, st, NULL, 10);
    s = clv_lk_track(ctx, pa, pb, in, out, st, NULL, 10, &p);
    CHECK(s == CLV_OK && st[0] == 0 && st[9] == 0, "err NULL: %s", clv_last_error(ctx));
    if (s == CLV_OK && st[0] == 0 && st[9] == 0)
        passed++;

    /* Identity: a pyramid against itself tracks every interior point to
     * itself with err 0. */
    for (int i = 0; i < 10; i++) {
        in[i].x = 15.0f + 9.3f * i;
        in[i].y = 12.0f + 6.1f * i;
    }
    poison(out, st, err, 10);
    s = clv_lk_track(ctx, pa, pa, in, out, st, err, 10, &p);
    double maxd = 0.0, maxe = 0.0;
    int lost = 0;
    for (int i = 0; s == CLV_OK && i < 10; i++) {
        lost += !st[i];
        maxd = fmax(maxd, hypot(out[i].x - in[i].x, out[i].y - in[i].y));
        maxe = fmax(maxe, err[i]);
    }
    const int id_ok = s == CLV_OK && !lost && maxd < 1e-4 && maxe < 1e-4;
    printf("%-4s identity: %d lost, max displacement %.2e px, max err %.2e\n",
           id_ok ? "ok" : "FAIL", lost, maxd, maxe);
    CHECK(id_ok, "identity tracking");
    passed += id_ok;

    /* Flat images: the structure matrix is 0 -> every point lost, err 0. */
    void *flat = th_malloc((size_t)w * h);
    memset(flat, 77, (size_t)w * h);
    clv_pyramid *pf = make_pyramid(flat, w, h, CLV_U8, 3);
    poison(out, st, err, 10);
    s = clv_lk_track(ctx, pf, pf, in, out, st, err, 10, &p);
    bad = s != CLV_OK;
    for (int i = 0; s == CLV_OK && i < 10; i++)
        bad += st[i] != 0 || err[i] != 0.0f || out[i].x != in[i].x || out[i].y != in[i].y;
    printf("%-4s flat image: all lost, positions left at the input\n", bad ? "FAIL" : "ok");
    CHECK(!bad, "flat image");
    passed += !bad;

    /* A large shift to the right: points near the right edge move out of the
     * image and are lost; the others are tracked to the shift. */
    const affine big = make_motion(25.0, 0.0, 0.0, 1.0, 0.0, 0.0);
    void *c = render(&tex, &big, w, h, CLV_U8);
    clv_pyramid *pc = make_pyramid(c, w, h, CLV_U8, 3);
    for (int i = 0; i < 10; i++) {
        in[i].x = i < 5 ? 30.0f + 8.0f * i : (float)(w - 1) - (i - 5) * 0.5f;
        in[i].y = 45.0f;
    }
    poison(out, st, err, 10);
    s = clv_lk_track(ctx, pa, pc, in, out, st, err, 10, &p);
    bad = s != CLV_OK;
    for (int i = 0; s == CLV_OK && i < 10; i++) {
        if (i < 5 && (!st[i] || fabs(out[i].x - in[i].x - 25.0) > 0.05 ||
                      fabs(out[i].y - in[i].y) > 0.05))
            bad++;
        if (i >= 5 && st[i])
            bad++;
    }
    printf("%-4s shift by 25 px: interior points tracked, points leaving the image lost\n",
           bad ? "FAIL" : "ok");
    CHECK(!bad, "large shift");
    passed += !bad;

    clv_pyramid_release(pc);
    clv_pyramid_release(pf);
    clv_pyramid_release(pa);
    clv_pyramid_release(pb);
    free(flat);
    free(a);
    free(b);
    free(c);
}

/* ---- arguments ---- */

static void expect_invalid(clv_status s, const char *what)
{
    passed += th_expect_invalid(ctx, s, what);
}

/* What the descriptor cannot state (test_op generates every single-parameter,
 * pyramid and array rule; test_badinput has levels 4 of 3 built and the
 * scale): levels against a next pyramid built with fewer; count 0 writing
 * nothing; NULL params tracking with the defaults. */
static void argument_rules(void)
{
    const int w = 64, h = 48;
    void *px = th_random_pixels(w, h, 1, CLV_U8, 4242);
    clv_pyramid *a = make_pyramid(px, w, h, CLV_U8, 3), *b = make_pyramid(px, w, h, CLV_U8, 3);
    clv_pyramid *two = make_pyramid(px, w, h, CLV_U8, 2);

    clv_point in[2] = {{20, 20}, {30, 25}}, out[2];
    uint8_t st[2];
    float err[2];
    const clv_lk_params d = clv_lk_params_default();

    expect_invalid(clv_lk_track(ctx, a, two, in, out, st, err, 2, &d),
                   "levels 3 with a 2-level next pyramid");

    /* count 0: OK, nothing written (NULL arrays allowed). */
    poison(out, st, err, 2);
    clv_status s = clv_lk_track(ctx, a, b, in, out, st, err, 0, &d);
    int untouched = out[0].x == POISON_POS && st[0] == POISON_STATUS && err[0] == POISON_ERR;
    CHECK(s == CLV_OK && untouched, "count 0: %s, outputs %s", clv_status_string(s),
          untouched ? "untouched" : "written");
    s = clv_lk_track(ctx, a, b, NULL, NULL, NULL, NULL, 0, &d);
    CHECK(s == CLV_OK, "count 0 with NULL arrays: %s", clv_status_string(s));
    passed += s == CLV_OK && untouched;
    /* NULL params: the defaults. */
    poison(out, st, err, 2);
    s = clv_lk_track(ctx, a, b, in, out, st, err, 2, NULL);
    CHECK(s == CLV_OK && st[0] == 1 && fabs(out[0].x - 20.0f) < 1e-3,
          "NULL params (defaults): %s, status %d, out (%g, %g)", clv_status_string(s), st[0],
          out[0].x, out[0].y);
    passed += s == CLV_OK;
    printf("ok   argument checks\n");

    clv_pyramid_release(a);
    clv_pyramid_release(b);
    clv_pyramid_release(two);
    free(px);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    ctx = test_context();
    printf("device: %s (%s)\n", clv_context_device_name(ctx), clv_context_platform_name(ctx));

    argument_rules();
    special_cases();

    /* Most cases stop at epsilon 1e-4: with 0.01 a slowly converging window
     * (small, at a border) can stop one iteration earlier in float than in
     * double, which moves it by up to ~0.01 px; three keep the default. */
    static const lk_case cases[] = {
        /* type, w, h, levels, win, npts, init, iter, eps, seed, motion */
        {CLV_U8, 160, 120, 3, 21, 21, 300, 0, 30, 0.01, 1, 1.0, 1.005},
        {CLV_U8, 97, 61, 2, 7, 5, 200, 0, 30, 1e-4, 2, 1.0, 1.005}, /* narrower than a vector */
        {CLV_U8, 131, 77, 3, 9, 15, 200, 0, 30, 1e-4, 3, 1.0, 1.005},
        {CLV_F32, 160, 120, 3, 15, 9, 200, 0, 30, 1e-4, 4, 1.0, 1.005},
        {CLV_U16, 131, 77, 3, 9, 9, 200, 0, 30, 1e-4, 5, 1.0, 1.005},
        {CLV_U8, 200, 150, 4, 31, 31, 150, 0, 30, 0.01, 6, 1.0, 1.005},
        {CLV_U8, 160, 120, 1, 3, 3, 200, 0, 30, 1e-4, 7, 1.0, 1.005}, /* smallest window */
        {CLV_U8, 160, 120, 3, 21, 21, 200, 1, 30, 1e-4, 8, 1.0, 1.005}, /* initial flow */
        {CLV_U8, 160, 120, 2, 11, 13, 200, 0, 10, 0.0, 9, 1.0, 1.005}, /* fixed iterations */
        {CLV_U8, 240, 180, 2, 61, 61, 60, 0, 30, 0.01, 10, 1.0, 1.005}, /* big window */
        {CLV_F32, 240, 180, 3, 45, 29, 60, 1, 30, 1e-4, 11, 1.0, 1.005},
        /* a window too big for local memory on any device (global patches) */
        {CLV_U8, 400, 300, 1, 301, 295, 4, 0, 30, 1e-4, 12, 0.0, 1.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_ref_case(cases[i]);

    photo_pair(CLV_U8);
    photo_pair(CLV_F32);

    clv_context_release(ctx);
    return test_finish("lk", passed);
}
