/* clv_farneback: accuracy on real photo pairs with known motion next to
 * OpenCV's calcOpticalFlowFarneback (tests/data/make_flow.py writes the
 * pairs, their ground truth and OpenCV's errors into flow_expected.txt), the
 * initial flow, zero and integer motion, odd and tiny sizes, argument
 * checks, the per-context workspace across sizes, and f32 input. Every flow
 * output is filled with NaN before a call (unless it holds the initial
 * flow), so a pixel left unwritten shows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"
#include "testutil.h"

static clv_context *ctx;
static int passed;

#define PASS_IF(cond, ...)                                                               \
    do {                                                                                 \
        int ok_ = (cond);                                                                \
        CHECK(ok_, __VA_ARGS__);                                                         \
        passed += ok_;                                                                   \
    } while (0)

/* "No worse than OpenCV": our AEE may exceed OpenCV's by this much (px),
 * float rounding in a different order. */
#define AEE_SLACK 0.005
/* The same for the angular error: 1 % + 0.01 degrees. */
#define AAE_SLACK_REL 0.01
#define AAE_SLACK_DEG 0.01

/* ---- host images ---- */

typedef struct gray {
    int w, h;
    uint8_t *px;
} gray;

typedef struct field {
    int w, h;
    float *f; /* packed u, v */
} field;

static gray load_gray(const char *name)
{
    gray g = {0, 0, NULL};
    void *data = NULL;
    int cn = 0;
    int r = th_load_photo(name, CLV_U8, &data, &g.w, &g.h, &cn);
    REQUIRE(r > 0, "cannot load %s", name);
    if (cn == 1) {
        g.px = data;
        return g;
    }
    /* RGB(A) photo: ITU-R BT.601 luma, rounded */
    g.px = th_malloc((size_t)g.w * g.h);
    const uint8_t *s = data;
    for (size_t i = 0; i < (size_t)g.w * g.h; i++) {
        const uint8_t *p = s + i * (size_t)cn;
        g.px[i] = (uint8_t)((299 * p[0] + 587 * p[1] + 114 * p[2] + 500) / 1000);
    }
    free(data);
    return g;
}

/* w x h window of g at (x0, y0), which must lie inside. */
static gray crop(const gray *g, int x0, int y0, int w, int h)
{
    REQUIRE(x0 >= 0 && y0 >= 0 && x0 + w <= g->w && y0 + h <= g->h, "crop outside");
    gray c = {w, h, th_malloc((size_t)w * h)};
    for (int y = 0; y < h; y++)
        memcpy(c.px + (size_t)y * w, g->px + (size_t)(y0 + y) * g->w + x0, (size_t)w);
    return c;
}

static field crop_field(const field *f, int x0, int y0, int w, int h)
{
    field c = {w, h, th_malloc((size_t)w * h * 2 * sizeof(float))};
    for (int y = 0; y < h; y++)
        memcpy(c.f + (size_t)y * w * 2, f->f + ((size_t)(y0 + y) * f->w + x0) * 2,
               (size_t)w * 2 * sizeof(float));
    return c;
}

static field load_flo(const char *name)
{
    clv_host_image hi;
    clv_status s = clv_flo_read(test_data_path(name), &hi);
    REQUIRE(s == CLV_OK, "reading %s: %s: %s", name, clv_status_string(s), clv_io_last_error());
    REQUIRE(hi.channels == 2 && hi.type == CLV_F32, "%s: not a flow field", name);
    field f = {hi.width, hi.height, th_malloc((size_t)hi.width * hi.height * 8)};
    for (int y = 0; y < hi.height; y++)
        memcpy(f.f + (size_t)y * hi.width * 2, (const char *)hi.data + (size_t)y * hi.stride,
               (size_t)hi.width * 8);
    clv_host_image_free(&hi);
    return f;
}

/* A device image of the gray pixels as u8, or as f32 holding 0..255. */
static clv_image *upload_gray(const gray *g, clv_pixel_type type)
{
    if (type == CLV_U8)
        return th_upload(ctx, g->px, g->w, g->h, 1, CLV_U8, 0);
    float *f = th_malloc((size_t)g->w * g->h * sizeof(float));
    for (size_t i = 0; i < (size_t)g->w * g->h; i++)
        f[i] = (float)g->px[i];
    clv_image *img = th_upload(ctx, f, g->w, g->h, 1, CLV_F32, 0);
    free(f);
    return img;
}

/* A w x h flow image on c: the given field, or NaN everywhere. */
static clv_image *flow_image(clv_context *c, int w, int h, const float *init)
{
    const size_t n = (size_t)w * h * 2;
    float *f = th_malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        f[i] = init ? init[i] : NAN;
    clv_image *img = th_upload(c, f, w, h, 2, CLV_F32, 0);
    free(f);
    return img;
}

/* Run clv_farneback on c (prev, next of c) into a NaN-filled flow (or one
 * holding init when p->use_initial_flow) and download it. NULL with a CHECK
 * failure when the call fails. */
static float *farneback_on(clv_context *c, const clv_image *prev, const clv_image *next,
                           const clv_farneback_params *p, const float *init, const char *label)
{
    const int w = clv_image_width(prev), h = clv_image_height(prev);
    clv_image *flow = flow_image(c, w, h, p && p->use_initial_flow ? init : NULL);
    clv_status s = clv_farneback(c, prev, next, flow, p);
    CHECK(s == CLV_OK, "%s: %s: %s", label, clv_status_string(s), clv_last_error(c));
    float *out = NULL;
    if (s == CLV_OK) {
        out = th_download(c, flow, 0, NULL);
        CHECK(out != NULL, "%s: download failed", label);
    }
    clv_image_release(flow);
    return out;
}

static float *farneback(const clv_image *prev, const clv_image *next,
                        const clv_farneback_params *p, const float *init, const char *label)
{
    return farneback_on(ctx, prev, next, p, init, label);
}

/* Flow values that are not finite (an unwritten NaN, or a blow-up). */
static size_t count_nonfinite(const float *f, int w, int h)
{
    size_t bad = 0;
    for (size_t i = 0; i < (size_t)w * h * 2; i++)
        bad += !isfinite(f[i]);
    return bad;
}

/* ---- errors on the host, in double ---- */

/* AEE, AAE (degrees, Barron et al., the formula of flow.h), r1/r3/r5 and
 * the count over margin <= x < w - margin, margin <= y < h - margin, every
 * ground-truth vector there being known. */
static clv_flow_stats host_stats(const float *est, const float *gt, int w, int h, int margin)
{
    clv_flow_stats st;
    memset(&st, 0, sizeof st);
    double se = 0.0, sa = 0.0;
    int64_t n1 = 0, n3 = 0, n5 = 0;
    for (int y = margin; y < h - margin; y++)
        for (int x = margin; x < w - margin; x++) {
            const size_t i = ((size_t)y * w + x) * 2;
            const double ue = est[i], ve = est[i + 1], ug = gt[i], vg = gt[i + 1];
            const double epe = hypot(ue - ug, ve - vg);
            double c = (ue * ug + ve * vg + 1.0) /
                       sqrt((ue * ue + ve * ve + 1.0) * (ug * ug + vg * vg + 1.0));
            c = c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c;
            se += epe;
            sa += acos(c);
            n1 += epe > 1.0;
            n3 += epe > 3.0;
            n5 += epe > 5.0;
            st.valid++;
        }
    if (st.valid) {
        st.aee = se / (double)st.valid;
        st.aae = sa / (double)st.valid * (180.0 / 3.14159265358979323846);
        st.r1 = 100.0 * (double)n1 / (double)st.valid;
        st.r3 = 100.0 * (double)n3 / (double)st.valid;
        st.r5 = 100.0 * (double)n5 / (double)st.valid;
    }
    return st;
}

static double aee_interior(const float *est, const float *gt, int w, int h, int margin)
{
    return host_stats(est, gt, w, h, margin).aee;
}

/* The same figures from clv_flow_eval on the device, over the whole image or
 * (margin > 0) with the ground truth outside the interior marked unknown. */
static int device_stats(const float *est, const float *gt, int w, int h, int margin,
                        clv_flow_stats *out)
{
    float *g = th_malloc((size_t)w * h * 2 * sizeof(float));
    memcpy(g, gt, (size_t)w * h * 2 * sizeof(float));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if (x < margin || y < margin || x >= w - margin || y >= h - margin)
                g[((size_t)y * w + x) * 2] = 1e9f;
    clv_image *e = th_upload(ctx, est, w, h, 2, CLV_F32, 0);
    clv_image *gi = th_upload(ctx, g, w, h, 2, CLV_F32, 0);
    clv_status s = clv_flow_eval(ctx, e, gi, out);
    CHECK(s == CLV_OK, "flow_eval: %s: %s", clv_status_string(s), clv_last_error(ctx));
    clv_image_release(e);
    clv_image_release(gi);
    free(g);
    return s == CLV_OK;
}

/* Host and device figures agree: AEE and AAE to 1e-5 relative (the device
 * sums in its own order), the threshold percentages to one pixel's worth (an
 * endpoint error within rounding of 1, 3 or 5 px may count on one side only),
 * the count exactly. */
static int stats_agree(const clv_flow_stats *a, const clv_flow_stats *b)
{
    const double one = b->valid ? 100.0 / (double)b->valid * 1.0001 : 0.0;
    return a->valid == b->valid && fabs(a->aee - b->aee) <= 1e-5 * fmax(1e-3, b->aee) &&
           fabs(a->aae - b->aae) <= 1e-5 * fmax(1e-2, b->aae) && fabs(a->r1 - b->r1) <= one &&
           fabs(a->r3 - b->r3) <= one && fabs(a->r5 - b->r5) <= one;
}

static void compare_eval(const float *est, const float *gt, int w, int h, int margin,
                         const char *label)
{
    for (int pass = 0; pass < 2; pass++) {
        const int m = pass ? margin : 0;
        clv_flow_stats dev, host = host_stats(est, gt, w, h, m);
        if (!device_stats(est, gt, w, h, m, &dev))
            continue;
        int ok = stats_agree(&dev, &host);
        PASS_IF(ok,
                "%s: clv_flow_eval (%s) aee %.9g aae %.9g r1/3/5 %g/%g/%g n %lld, host aee %.9g "
                "aae %.9g r1/3/5 %g/%g/%g n %lld",
                label, m ? "interior" : "full image", dev.aee, dev.aae, dev.r1, dev.r3, dev.r5,
                (long long)dev.valid, host.aee, host.aae, host.r1, host.r3, host.r5,
                (long long)host.valid);
        if (!ok || pass == 0)
            printf("%s   clv_flow_eval on the %s: aee %.6f aae %.5f r1 %.3f%% (host: %.6f, "
                   "%.5f, %.3f%%)\n",
                   ok ? "ok  " : "FAIL", m ? "interior" : "full image", dev.aee, dev.aae, dev.r1,
                   host.aee, host.aae, host.r1);
    }
}

/* ---- the photo pairs against OpenCV ---- */

typedef struct fb_case {
    char name[64], prev[128], next[128], gt[128];
    int margin, levels, winsize, iterations, poly_n, gaussian, init;
    double pyr_scale, poly_sigma, aee_cv, aae_cv, aee_zero;
} fb_case;

#define MAX_CASES 32

static int load_cases(fb_case *c, int max)
{
    FILE *f = fopen(test_data_path("flow_expected.txt"), "r");
    if (!f)
        return -1;
    char line[1024];
    int n = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (n == max) {
            bad = 1;
            break;
        }
        fb_case *k = &c[n];
        int got = sscanf(line, "%63s %127s %127s %127s %d %lf %d %d %d %d %lf %d %d %lf %lf %lf",
                         k->name, k->prev, k->next, k->gt, &k->margin, &k->pyr_scale, &k->levels,
                         &k->winsize, &k->iterations, &k->poly_n, &k->poly_sigma, &k->gaussian,
                         &k->init, &k->aee_cv, &k->aae_cv, &k->aee_zero);
        if (got != 16) {
            fprintf(stderr, "flow_expected.txt: bad line: %s", line);
            bad = 1;
            break;
        }
        n++;
    }
    fclose(f);
    return bad ? -2 : n;
}

static clv_farneback_params case_params(const fb_case *k)
{
    clv_farneback_params p = clv_farneback_params_default();
    p.pyr_scale = k->pyr_scale;
    p.levels = k->levels;
    p.winsize = k->winsize;
    p.iterations = k->iterations;
    p.poly_n = k->poly_n;
    p.poly_sigma = k->poly_sigma;
    p.gaussian_window = k->gaussian;
    p.use_initial_flow = k->init;
    return p;
}

/* AEE of each case without the initial flow, for the cases with it. */
typedef struct plain_result {
    char key[64];
    double aee;
} plain_result;

static void photo_cases(void)
{
    static fb_case cases[MAX_CASES];
    const int n = load_cases(cases, MAX_CASES);
    CHECK(n != -2, "flow_expected.txt is malformed");
    if (n == -1) {
        fprintf(stderr, "SKIP (photo pairs): %s not found\n",
                test_data_path("flow_expected.txt"));
        return;
    }
    CHECK(n >= 4, "flow_expected.txt has only %d cases", n);
    plain_result plain[MAX_CASES];
    int nplain = 0;
    printf("known motion, interior AEE (px) / AAE (deg), ours vs OpenCV 4.6:\n");
    for (int i = 0; i < n; i++) {
        const fb_case *k = &cases[i];
        gray a = load_gray(k->prev), b = load_gray(k->next);
        field gt = load_flo(k->gt);
        REQUIRE(a.w == b.w && a.h == b.h && gt.w == a.w && gt.h == a.h,
                "%s: sizes of %s, %s, %s differ", k->name, k->prev, k->next, k->gt);
        const int w = a.w, h = a.h;
        clv_image *ia = upload_gray(&a, CLV_U8), *ib = upload_gray(&b, CLV_U8);
        const clv_farneback_params p = case_params(k);
        float *est = farneback(ia, ib, &p, gt.f, k->name);
        if (est) {
            const size_t nonfinite = count_nonfinite(est, w, h);
            PASS_IF(nonfinite == 0, "%s: %zu flow values not finite", k->name, nonfinite);
            const clv_flow_stats s = host_stats(est, gt.f, w, h, k->margin);
            float *zero = th_malloc((size_t)w * h * 2 * sizeof(float));
            memset(zero, 0, (size_t)w * h * 2 * sizeof(float));
            const double aee_zero = aee_interior(zero, gt.f, w, h, k->margin);
            free(zero);
            const int ok_cv = s.aee <= k->aee_cv + AEE_SLACK;
            const int ok_zero = s.aee < 0.5 * aee_zero;
            const int ok_aae = s.aae <= k->aae_cv * (1.0 + AAE_SLACK_REL) + AAE_SLACK_DEG;
            printf("%s %-16s %dx%d: AEE %.6f vs %.6f (%+.1e), AAE %.5f vs %.5f (%+.1e); "
                   "zero flow AEE %.4f\n",
                   ok_cv && ok_zero && ok_aae ? "ok  " : "FAIL", k->name, w, h, s.aee, k->aee_cv,
                   s.aee - k->aee_cv, s.aae, k->aae_cv, s.aae - k->aae_cv, aee_zero);
            PASS_IF(ok_cv, "%s: AEE %.6f is worse than OpenCV's %.6f by more than %g px", k->name,
                    s.aee, k->aee_cv, AEE_SLACK);
            PASS_IF(ok_aae, "%s: AAE %.5f deg is worse than OpenCV's %.5f by more than %g%% + %g "
                            "deg",
                    k->name, s.aae, k->aae_cv, 100.0 * AAE_SLACK_REL, AAE_SLACK_DEG);
            PASS_IF(ok_zero, "%s: AEE %.6f is not below half the zero-flow AEE %.6f", k->name,
                    s.aee, aee_zero);
            /* the data files agree with what the script computed */
            PASS_IF(fabs(aee_zero - k->aee_zero) <= 1e-5,
                    "%s: zero-flow AEE %.7f here, %.7f in flow_expected.txt", k->name, aee_zero,
                    k->aee_zero);
            compare_eval(est, gt.f, w, h, k->margin, k->name);

            /* the initial flow: the ground truth does no harm */
            char key[64];
            snprintf(key, sizeof key, "%s", k->name);
            char *suffix = strstr(key, "_init");
            if (!k->init && nplain < MAX_CASES) {
                snprintf(plain[nplain].key, sizeof plain[nplain].key, "%s", key);
                plain[nplain++].aee = s.aee;
            } else if (k->init && suffix) {
                *suffix = '\0';
                int found = 0;
                for (int j = 0; j < nplain; j++)
                    if (strcmp(plain[j].key, key) == 0) {
                        found = 1;
                        const int ok = s.aee <= plain[j].aee + 1e-4;
                        printf("%s   initial flow = ground truth: AEE %.6f, without %.6f\n",
                               ok ? "ok  " : "FAIL", s.aee, plain[j].aee);
                        PASS_IF(ok, "%s: AEE %.6f with the ground truth as the initial flow, "
                                    "%.6f without",
                                k->name, s.aee, plain[j].aee);
                    }
                CHECK(found, "%s: no case %s without the initial flow", k->name, key);
            }
            free(est);
        }
        clv_image_release(ia);
        clv_image_release(ib);
        free(a.px);
        free(b.px);
        free(gt.f);
    }
}

/* The initial flow where it matters: a pair small enough for one pyramid
 * level (or two) and one iteration, where starting from the truth is much
 * better than starting from zero; an all-zero initial flow is the same as
 * none, bit for bit. */
static void initial_flow(void)
{
    gray a0 = load_gray("flow_chelsea0.png"), b0 = load_gray("flow_chelsea1.png");
    field gt0 = load_flo("flow_chelsea_gt.flo");
    static const struct {
        int x0, y0, w, h, levels, iterations;
    } cuts[] = {{60, 36, 60, 48, 3, 1}, {30, 20, 120, 80, 1, 1}, {40, 24, 100, 72, 2, 2}};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        const int w = cuts[c].w, h = cuts[c].h, x0 = cuts[c].x0, y0 = cuts[c].y0;
        gray a = crop(&a0, x0, y0, w, h), b = crop(&b0, x0, y0, w, h);
        field gt = crop_field(&gt0, x0, y0, w, h);
        clv_image *ia = upload_gray(&a, CLV_U8), *ib = upload_gray(&b, CLV_U8);
        clv_farneback_params p = clv_farneback_params_default();
        p.levels = cuts[c].levels;
        p.iterations = cuts[c].iterations;
        p.winsize = 11;
        char label[128];
        snprintf(label, sizeof label, "initial flow %dx%d levels %d iterations %d", w, h,
                 p.levels, p.iterations);
        float *none = farneback(ia, ib, &p, NULL, label);
        p.use_initial_flow = 1;
        float *truth = farneback(ia, ib, &p, gt.f, label);
        float *zeros = th_malloc((size_t)w * h * 2 * sizeof(float));
        memset(zeros, 0, (size_t)w * h * 2 * sizeof(float));
        float *from_zero = farneback(ia, ib, &p, zeros, label);
        if (none && truth && from_zero) {
            const int margin = 8;
            const double e_none = aee_interior(none, gt.f, w, h, margin),
                         e_truth = aee_interior(truth, gt.f, w, h, margin);
            const int same = memcmp(none, from_zero, (size_t)w * h * 2 * sizeof(float)) == 0;
            /* one level and one iteration: the truth must help a lot */
            const int single = c == 0;
            const int ok = single ? e_truth < 0.5 * e_none : e_truth <= e_none + 1e-4;
            printf("%s %s: interior AEE from the truth %.5f, from nothing %.5f; zero initial "
                   "flow %s\n",
                   ok && same ? "ok  " : "FAIL", label, e_truth, e_none,
                   same ? "bit-identical to none" : "DIFFERS from none");
            PASS_IF(ok, "%s: AEE %.6f from the ground truth, %.6f without", label, e_truth,
                    e_none);
            PASS_IF(same, "%s: an all-zero initial flow gives a different result", label);
            PASS_IF(count_nonfinite(truth, w, h) == 0, "%s: non-finite flow", label);
        }
        free(none);
        free(truth);
        free(from_zero);
        free(zeros);
        clv_image_release(ia);
        clv_image_release(ib);
        free(a.px);
        free(b.px);
        free(gt.f);
    }
    free(a0.px);
    free(b0.px);
    free(gt0.f);
}

/* ---- synthetic motions of real photos ---- */

/* Identical content in two distinct images: no motion anywhere inside. */
static void zero_motion(void)
{
    gray g = load_gray("flow_chelsea0.png");
    clv_image *a = upload_gray(&g, CLV_U8), *b = upload_gray(&g, CLV_U8);
    static const int pset[2][6] = {{3, 15, 3, 5, 0, 0}, {4, 21, 5, 7, 1, 0}};
    for (int k = 0; k < 2; k++) {
        clv_farneback_params p = clv_farneback_params_default();
        p.levels = pset[k][0];
        p.winsize = pset[k][1];
        p.iterations = pset[k][2];
        p.poly_n = pset[k][3];
        p.poly_sigma = p.poly_n == 7 ? 1.5 : 1.2;
        p.gaussian_window = pset[k][4];
        float *f = farneback(a, b, &p, NULL, "zero motion");
        if (!f)
            continue;
        const int margin = 16;
        double in_max = 0.0, all_max = 0.0;
        for (int y = 0; y < g.h; y++)
            for (int x = 0; x < g.w; x++) {
                const size_t i = ((size_t)y * g.w + x) * 2;
                const double m = hypot(f[i], f[i + 1]);
                all_max = isfinite(m) ? fmax(all_max, m) : INFINITY;
                if (x >= margin && y >= margin && x < g.w - margin && y < g.h - margin)
                    in_max = isfinite(m) ? fmax(in_max, m) : INFINITY;
            }
        const int ok = in_max < 0.01 && isfinite(all_max);
        printf("%s zero motion (same content, two images) %dx%d %s window: max |flow| %.3g "
               "inside, %.3g over the whole image\n",
               ok ? "ok  " : "FAIL", g.w, g.h, p.gaussian_window ? "Gaussian" : "box", in_max,
               all_max);
        PASS_IF(ok, "zero motion: max |flow| %g inside (must be < 0.01), %g overall", in_max,
                all_max);
        /* prev and next the very same image (issue 13 #19): a valid question
         * with the same answer as two images of equal content. */
        float *same = farneback(a, a, &p, NULL, "zero motion, prev == next");
        if (same) {
            PASS_IF(memcmp(same, f, (size_t)g.w * g.h * 2 * sizeof *f) == 0,
                    "prev == next differs from two equal images");
            free(same);
        }
        free(f);
    }
    clv_image_release(a);
    clv_image_release(b);
    free(g.px);
}

/* A pure integer translation of the full-size photo: next(x, y) =
 * prev(x - 3, y + 2), so every pixel moves by (3, -2). Both crops hold real
 * content, nothing comes in from a border. */
static void integer_translation(clv_pixel_type type)
{
    gray full = load_gray("chelsea.png");
    const int w = 203, h = 157, x0 = 120, y0 = 70, du = 3, dv = -2;
    gray a = crop(&full, x0, y0, w, h), b = crop(&full, x0 - du, y0 - dv, w, h);
    clv_image *ia = upload_gray(&a, type), *ib = upload_gray(&b, type);
    float *gt = th_malloc((size_t)w * h * 2 * sizeof(float));
    for (size_t i = 0; i < (size_t)w * h; i++) {
        gt[2 * i] = (float)du;
        gt[2 * i + 1] = (float)dv;
    }
    for (int k = 0; k < 2; k++) {
        clv_farneback_params p = clv_farneback_params_default();
        if (k) {
            p.levels = 4;
            p.winsize = 21;
            p.iterations = 5;
            p.poly_n = 7;
            p.poly_sigma = 1.5;
            p.gaussian_window = 1;
        }
        float *f = farneback(ia, ib, &p, NULL, "integer translation");
        if (!f)
            continue;
        const double e = aee_interior(f, gt, w, h, 16);
        const int ok = e < 0.1 && count_nonfinite(f, w, h) == 0;
        printf("%s translation (3, -2) of a photo, %s %dx%d, %s: interior AEE %.5f\n",
               ok ? "ok  " : "FAIL", clv_pixel_type_name(type), w, h, k ? "P2" : "defaults", e);
        PASS_IF(ok, "translation (3, -2) %s: interior AEE %g (must be < 0.1)",
                clv_pixel_type_name(type), e);
        free(f);
    }
    clv_image_release(ia);
    clv_image_release(ib);
    free(a.px);
    free(b.px);
    free(full.px);
    free(gt);
}

/* Odd and tiny sizes, down to 1x1 (below OpenCV's 32-pixel pyramid minimum
 * only level 0 is used): no error, every value finite. A shift by (1, 1)
 * of the photo; where the image is big enough for an interior, the flow
 * there must also be about right. */
static void odd_sizes(void)
{
    gray full = load_gray("chelsea.png");
    static const int sizes[][2] = {{37, 29}, {1, 1}, {2, 1}, {1, 2}, {3, 3}, {5, 7}, {17, 1},
                                   {1, 33}, {9, 10}, {31, 31}, {63, 63}, {64, 64}, {65, 33},
                                   {129, 31}, {33, 200}, {250, 35}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const int w = sizes[i][0], h = sizes[i][1];
        gray a = crop(&full, 150, 60, w, h), b = crop(&full, 149, 59, w, h);
        clv_image *ia = upload_gray(&a, CLV_U8), *ib = upload_gray(&b, CLV_U8);
        float *gt = th_malloc((size_t)w * h * 2 * sizeof(float));
        for (size_t k = 0; k < (size_t)w * h * 2; k++)
            gt[k] = 1.0f;
        for (int g = 0; g < 2; g++) {
            clv_farneback_params p = clv_farneback_params_default();
            p.gaussian_window = g;
            p.poly_n = g ? 7 : 5;
            p.poly_sigma = g ? 1.5 : 1.1;
            p.winsize = g ? 9 : 15;
            char label[96];
            snprintf(label, sizeof label, "size %dx%d %s", w, h, g ? "Gaussian" : "box");
            float *f = farneback(ia, ib, &p, NULL, label);
            if (!f)
                continue;
            const size_t bad = count_nonfinite(f, w, h);
            const int margin = 8;
            const int inner = w > 2 * margin + 8 && h > 2 * margin + 8;
            const double e = inner ? aee_interior(f, gt, w, h, margin) : NAN;
            const int ok = bad == 0 && (!inner || e < 0.25);
            if (inner)
                printf("%s %s: all finite, interior AEE %.4f\n", ok ? "ok  " : "FAIL", label, e);
            else
                printf("%s %s: %s, flow(0, 0) = (%g, %g)\n", ok ? "ok  " : "FAIL", label,
                       bad ? "NOT all finite" : "all finite", f[0], f[1]);
            PASS_IF(bad == 0, "%s: %zu values not finite", label, bad);
            if (inner)
                PASS_IF(e < 0.25, "%s: interior AEE %g for a (1, 1) shift", label, e);
            free(f);
        }
        clv_image_release(ia);
        clv_image_release(ib);
        free(a.px);
        free(b.px);
        free(gt);
    }
    free(full.px);
}

/* ---- argument checks ---- */

static void expect_invalid(clv_status s, const char *what)
{
    passed += th_expect_invalid(ctx, s, what);
}

static void invalid_arguments(void)
{
    const int w = 40, h = 30;
    uint8_t *px = th_random_pixels(w, h, 1, CLV_U8, 11);
    clv_image *a = th_upload(ctx, px, w, h, 1, CLV_U8, 0);
    clv_image *b = th_upload(ctx, px, w, h, 1, CLV_U8, 0);
    clv_image *a32 = NULL, *a16 = NULL, *b16 = NULL, *small = NULL, *rgb = NULL, *rgb2 = NULL;
    clv_image *fl1 = NULL, *fl3 = NULL, *flu8 = NULL, *flw = NULL, *flh = NULL, *two = NULL;
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, 1, CLV_F32, &a32));
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, 1, CLV_U16, &a16));
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, 1, CLV_U16, &b16));
    REQUIRE_OK(ctx, clv_image_create(ctx, w - 1, h, 1, CLV_U8, &small));
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, 3, CLV_U8, &rgb));
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, 3, CLV_U8, &rgb2));
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, 1, CLV_F32, &fl1));
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, 3, CLV_F32, &fl3));
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, 2, CLV_U8, &flu8));
    REQUIRE_OK(ctx, clv_image_create(ctx, w + 1, h, 2, CLV_F32, &flw));
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h - 1, 2, CLV_F32, &flh));
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, 2, CLV_U16, &two));
    clv_image *flow = flow_image(ctx, w, h, NULL);
    const clv_farneback_params d = clv_farneback_params_default();
    clv_farneback_params p;

#define BAD_PARAM(field, value, what)                                                    \
    do {                                                                                 \
        p = d;                                                                           \
        p.field = (value);                                                               \
        expect_invalid(clv_farneback(ctx, a, b, flow, &p), what);                        \
    } while (0)
    BAD_PARAM(pyr_scale, 0.0, "pyr_scale 0");
    BAD_PARAM(pyr_scale, 1.0, "pyr_scale 1");
    BAD_PARAM(pyr_scale, -0.5, "pyr_scale -0.5");
    BAD_PARAM(pyr_scale, 1.5, "pyr_scale 1.5");
    BAD_PARAM(pyr_scale, NAN, "pyr_scale NaN");
    BAD_PARAM(pyr_scale, INFINITY, "pyr_scale Inf");
    BAD_PARAM(levels, -1, "levels -1");
    BAD_PARAM(levels, 17, "levels 17");
    BAD_PARAM(winsize, 14, "winsize 14 (even)");
    BAD_PARAM(winsize, 1, "winsize 1");
    BAD_PARAM(winsize, 0, "winsize 0");
    BAD_PARAM(winsize, -3, "winsize -3");
    BAD_PARAM(winsize, 257, "winsize 257");
    BAD_PARAM(iterations, 0, "iterations 0");
    BAD_PARAM(iterations, -2, "iterations -2");
    BAD_PARAM(poly_n, 3, "poly_n 3");
    BAD_PARAM(poly_n, 6, "poly_n 6");
    BAD_PARAM(poly_n, 9, "poly_n 9");
    BAD_PARAM(poly_sigma, 0.0, "poly_sigma 0");
    BAD_PARAM(poly_sigma, -1.2, "poly_sigma -1.2");
    BAD_PARAM(poly_sigma, NAN, "poly_sigma NaN");
#undef BAD_PARAM
    /* levels 0 is OpenCV's "no pyramid": accepted, one scale */
    p = d;
    p.levels = 0;
    {
        clv_image *own = flow_image(ctx, w, h, NULL); /* `flow` must stay untouched */
        clv_status s0 = clv_farneback(ctx, a, b, own, &p);
        CHECK(s0 == CLV_OK, "levels 0 (single scale) refused: %s", clv_last_error(ctx));
        if (s0 == CLV_OK)
            passed++;
        REQUIRE_OK(ctx, clv_finish(ctx));
        clv_image_release(own);
    }

    expect_invalid(clv_farneback(ctx, NULL, b, flow, &d), "NULL prev");
    expect_invalid(clv_farneback(ctx, a, NULL, flow, &d), "NULL next");
    expect_invalid(clv_farneback(ctx, a, b, NULL, &d), "NULL flow");
    expect_invalid(clv_farneback(ctx, a, b, fl1, &d), "1-channel flow");
    expect_invalid(clv_farneback(ctx, a, b, fl3, &d), "3-channel flow");
    expect_invalid(clv_farneback(ctx, a, b, flu8, &d), "u8 flow");
    expect_invalid(clv_farneback(ctx, a, b, two, &d), "u16 flow");
    expect_invalid(clv_farneback(ctx, a, b, flw, &d), "flow one column wider");
    expect_invalid(clv_farneback(ctx, a, b, flh, &d), "flow one row shorter");
    expect_invalid(clv_farneback(ctx, a, a32, flow, &d), "prev u8, next f32");
    expect_invalid(clv_farneback(ctx, a32, a, flow, &d), "prev f32, next u8");
    expect_invalid(clv_farneback(ctx, a, small, flow, &d), "next narrower");
    expect_invalid(clv_farneback(ctx, small, a, flow, &d), "prev narrower");
    expect_invalid(clv_farneback(ctx, rgb, rgb2, flow, &d), "3-channel images");
    expect_invalid(clv_farneback(ctx, a, rgb, flow, &d), "next 3-channel");
    expect_invalid(clv_farneback(ctx, a16, b16, flow, &d), "u16 inputs");

    /* images of another context */
    clv_context *other = test_context();
    clv_image *oa = th_upload(other, px, w, h, 1, CLV_U8, 0);
    clv_image *oflow = flow_image(other, w, h, NULL);
    expect_invalid(clv_farneback(ctx, oa, b, flow, &d), "prev of another context");
    expect_invalid(clv_farneback(ctx, a, oa, flow, &d), "next of another context");
    expect_invalid(clv_farneback(ctx, a, b, oflow, &d), "flow of another context");
    clv_image_release(oa);
    clv_image_release(oflow);
    clv_context_release(other);

    clv_status s = clv_farneback(NULL, a, b, flow, &d);
    PASS_IF(s == CLV_ERROR_INVALID_ARGUMENT, "NULL context: %s", clv_status_string(s));

    /* nothing was written by the refused calls */
    float *left = th_download(ctx, flow, 0, NULL);
    size_t touched = 0;
    for (size_t i = 0; left && i < (size_t)w * h * 2; i++)
        touched += !isnan(left[i]);
    PASS_IF(left && touched == 0, "refused calls wrote %zu flow values", touched);
    printf("%s refused calls left the flow untouched\n", touched == 0 ? "ok  " : "FAIL");
    free(left);

    /* the limits themselves are accepted, and NULL params means the defaults */
    static const struct {
        double pyr_scale, poly_sigma;
        int levels, winsize, iterations, poly_n;
        const char *what;
    } edge[] = {{0.01, 1.2, 1, 3, 1, 5, "pyr_scale 0.01, winsize 3, 1 iteration"},
                {0.99, 1.5, 16, 255, 2, 7, "pyr_scale 0.99, 16 levels, winsize 255"}};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        p = d;
        p.pyr_scale = edge[i].pyr_scale;
        p.poly_sigma = edge[i].poly_sigma;
        p.levels = edge[i].levels;
        p.winsize = edge[i].winsize;
        p.iterations = edge[i].iterations;
        p.poly_n = edge[i].poly_n;
        float *f = farneback(a, b, &p, NULL, edge[i].what);
        const int ok = f && count_nonfinite(f, w, h) == 0;
        PASS_IF(ok, "%s: failed or non-finite flow", edge[i].what);
        printf("%s accepted: %s\n", ok ? "ok  " : "FAIL", edge[i].what);
        free(f);
    }
    gray g = {w, h, px};
    clv_image *n2 = upload_gray(&g, CLV_U8);
    uint8_t *px2 = th_random_pixels(w, h, 1, CLV_U8, 12);
    REQUIRE_OK(ctx, clv_image_upload(n2, px2, 0));
    float *f_null = farneback(a, n2, NULL, NULL, "NULL params");
    float *f_def = farneback(a, n2, &d, NULL, "default params");
    const int same = f_null && f_def && memcmp(f_null, f_def, (size_t)w * h * 8) == 0;
    PASS_IF(same, "NULL params differ from clv_farneback_params_default()");
    printf("%s NULL params = clv_farneback_params_default()\n", same ? "ok  " : "FAIL");
    free(f_null);
    free(f_def);
    free(px2);
    clv_image_release(n2);

    clv_image *all[] = {a, b, a32, a16, b16, small, rgb, rgb2, fl1, fl3, flu8, flw, flh, two, flow};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        clv_image_release(all[i]);
    free(px);
}

/* ---- workspace reuse ---- */

/* One context running a mix of sizes and parameters gives, call for call,
 * exactly what a fresh context gives. */
static void workspace_reuse(void)
{
    gray ca = load_gray("flow_chelsea0.png"), cb = load_gray("flow_chelsea1.png");
    gray ma = load_gray("flow_camera0.png"), mb = load_gray("flow_camera1.png");
    gray sa = crop(&ca, 20, 30, 37, 29), sb = crop(&cb, 20, 30, 37, 29);
    gray ta = crop(&ca, 90, 60, 1, 1), tb = crop(&cb, 90, 60, 1, 1);
    gray *pairs[4][2] = {{&ca, &cb}, {&ma, &mb}, {&sa, &sb}, {&ta, &tb}};
    clv_farneback_params ps[3];
    ps[0] = clv_farneback_params_default();
    ps[1] = ps[0];
    ps[1].levels = 4;
    ps[1].winsize = 21;
    ps[1].iterations = 5;
    ps[1].poly_n = 7;
    ps[1].poly_sigma = 1.5;
    ps[1].gaussian_window = 1;
    ps[2] = ps[0];
    ps[2].pyr_scale = 0.75;
    ps[2].levels = 6;
    ps[2].winsize = 9;
    /* (pair, parameter set) */
    static const int seq[][2] = {{0, 0}, {1, 0}, {2, 0}, {0, 1}, {0, 2}, {1, 1}, {3, 0},
                                 {0, 0}, {1, 2}, {2, 1}, {0, 0}};
    const int nseq = (int)(sizeof seq / sizeof seq[0]);
    float *fresh[sizeof seq / sizeof seq[0]];
    for (int i = 0; i < nseq; i++) {
        clv_context *c = test_context();
        const gray *a = pairs[seq[i][0]][0], *b = pairs[seq[i][0]][1];
        clv_image *ia = th_upload(c, a->px, a->w, a->h, 1, CLV_U8, 0);
        clv_image *ib = th_upload(c, b->px, b->w, b->h, 1, CLV_U8, 0);
        fresh[i] = farneback_on(c, ia, ib, &ps[seq[i][1]], NULL, "fresh context");
        clv_image_release(ia);
        clv_image_release(ib);
        clv_context_release(c);
    }
    clv_context *c = test_context();
    int all_same = 1;
    for (int i = 0; i < nseq; i++) {
        const gray *a = pairs[seq[i][0]][0], *b = pairs[seq[i][0]][1];
        clv_image *ia = th_upload(c, a->px, a->w, a->h, 1, CLV_U8, 0);
        clv_image *ib = th_upload(c, b->px, b->w, b->h, 1, CLV_U8, 0);
        float *f = farneback_on(c, ia, ib, &ps[seq[i][1]], NULL, "shared context");
        int same = f && fresh[i] && memcmp(f, fresh[i], (size_t)a->w * a->h * 8) == 0;
        if (!same && f && fresh[i]) {
            double md = 0.0;
            for (size_t k = 0; k < (size_t)a->w * a->h * 2; k++)
                md = fmax(md, fabs((double)f[k] - fresh[i][k]));
            fprintf(stderr, "call %d (%dx%d, set %d): max difference %g\n", i, a->w, a->h,
                    seq[i][1], md);
        }
        PASS_IF(same, "workspace reuse: call %d (%dx%d, parameter set %d) differs from a fresh "
                      "context",
                i, a->w, a->h, seq[i][1]);
        all_same &= same;
        free(f);
        clv_image_release(ia);
        clv_image_release(ib);
    }
    clv_context_release(c);
    printf("%s %d calls of mixed sizes (180x120, 160x160, 37x29, 1x1) and parameters in one "
           "context: bit-identical to fresh contexts\n",
           all_same ? "ok  " : "FAIL", nseq);
    for (int i = 0; i < nseq; i++)
        free(fresh[i]);
    gray *gs[] = {&ca, &cb, &ma, &mb, &sa, &sb, &ta, &tb};
    for (size_t i = 0; i < sizeof gs / sizeof gs[0]; i++)
        free(gs[i]->px);
}

/* ---- the averaging in one launch ---- */

/* fb_blur_solve (the averaging in one launch, CLV_FB_BLUR=fused or
 * CLV_TUNE=gpu: the test's own context) against fb_blur_v + fb_blur_h_solve
 * (a context made with CLV_FB_BLUR=two): the same sums in the same order, so
 * the flows must be the same bits, pixel for pixel, on sizes around its
 * 32 x 32 tile and below it, windows from 3 to 255 (the tile shrinks to fit
 * local memory), box and Gaussian, 1 to 4 iterations (the system alternates
 * between two buffers), with and without pyramid levels. */
static void fused_vs_two(void)
{
    REQUIRE(setenv("CLV_FB_BLUR", "two", 1) == 0, "setenv failed");
    clv_context *two = test_context();
    gray fa = load_gray("flow_chelsea0.png"), fb = load_gray("flow_chelsea1.png");
    static const int sizes[][2] = {{1, 1}, {2, 1}, {1, 2}, {3, 3}, {5, 7}, {17, 1}, {1, 33},
                                   {31, 31}, {32, 32}, {33, 33}, {37, 29}, {63, 65},
                                   {129, 31}, {33, 120}, {180, 35}, {180, 120}};
    /* winsize, Gaussian window, iterations, levels */
    static const int sets[][4] = {{15, 0, 3, 3}, {3, 0, 1, 0}, {9, 1, 2, 1}, {31, 1, 4, 2},
                                  {65, 0, 3, 0}, {255, 1, 2, 1}};
    double worst = 0.0;
    const int failed_before = test_failures;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const int w = sizes[i][0], h = sizes[i][1];
        gray a = crop(&fa, 0, 0, w, h), b = crop(&fb, 0, 0, w, h);
        clv_image *ia = upload_gray(&a, CLV_U8), *ib = upload_gray(&b, CLV_U8);
        clv_image *ja = th_upload(two, a.px, w, h, 1, CLV_U8, 0);
        clv_image *jb = th_upload(two, b.px, w, h, 1, CLV_U8, 0);
        for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
            clv_farneback_params p = clv_farneback_params_default();
            p.winsize = sets[k][0];
            p.gaussian_window = sets[k][1];
            p.iterations = sets[k][2];
            p.levels = sets[k][3];
            char label[96];
            snprintf(label, sizeof label, "%dx%d winsize %d %s, %d iterations, %d levels", w, h,
                     p.winsize, p.gaussian_window ? "Gaussian" : "box", p.iterations, p.levels);
            float *f1 = farneback(ia, ib, &p, NULL, label);
            float *f2 = farneback_on(two, ja, jb, &p, NULL, label);
            if (f1 && f2) {
                double md = 0.0;
                size_t at = 0, bad = 0;
                for (size_t q = 0; q < (size_t)w * h * 2; q++) {
                    const double d = fabs((double)f1[q] - f2[q]);
                    if (memcmp(&f1[q], &f2[q], sizeof f1[q]) != 0)
                        bad++;
                    if (!(d <= md)) {
                        md = d;
                        at = q;
                    }
                }
                PASS_IF(bad == 0,
                        "%s: %zu flow values differ between one launch and two, the largest "
                        "by %g at (%zu, %zu)",
                        label, bad, md, at / 2 % (size_t)w, at / 2 / (size_t)w);
                worst = fmax(worst, md);
            }
            free(f1);
            free(f2);
        }
        clv_image_release(ia);
        clv_image_release(ib);
        clv_image_release(ja);
        clv_image_release(jb);
        free(a.px);
        free(b.px);
    }
    printf("%s averaging in one launch against two: %zu sizes x %zu parameter sets, largest "
           "difference %g px\n",
           test_failures == failed_before ? "ok  " : "FAIL", sizeof sizes / sizeof sizes[0],
           sizeof sets / sizeof sets[0], worst);
    clv_context_release(two);
    free(fa.px);
    free(fb.px);
}

/* ---- f32 input ---- */

static void f32_input(void)
{
    gray a = load_gray("flow_chelsea0.png"), b = load_gray("flow_chelsea1.png");
    clv_image *ua = upload_gray(&a, CLV_U8), *ub = upload_gray(&b, CLV_U8);
    clv_image *fa = upload_gray(&a, CLV_F32), *fb = upload_gray(&b, CLV_F32);
    for (int k = 0; k < 2; k++) {
        clv_farneback_params p = clv_farneback_params_default();
        if (k) {
            p.levels = 4;
            p.winsize = 21;
            p.iterations = 5;
            p.poly_n = 7;
            p.poly_sigma = 1.5;
            p.gaussian_window = 1;
        }
        float *fu = farneback(ua, ub, &p, NULL, "u8 input");
        float *ff = farneback(fa, fb, &p, NULL, "f32 input");
        if (fu && ff) {
            double md = 0.0;
            for (size_t i = 0; i < (size_t)a.w * a.h * 2; i++)
                md = fmax(md, isfinite(ff[i]) ? fabs((double)ff[i] - fu[i]) : INFINITY);
            const int ok = md <= 1e-3;
            printf("%s f32 input (0..255) vs u8, %s: max |difference| %.3g px\n",
                   ok ? "ok  " : "FAIL", k ? "P2" : "defaults", md);
            PASS_IF(ok, "f32 vs u8 input: flows differ by up to %g px", md);
        }
        free(fu);
        free(ff);
    }
    clv_image_release(ua);
    clv_image_release(ub);
    clv_image_release(fa);
    clv_image_release(fb);
    free(a.px);
    free(b.px);
}

/* Too large for the device (issue 13 #20): with the device's largest
 * allocation lowered below Farneback's working buffers (20 bytes a pixel)
 * but above every image, the answer is CLV_ERROR_UNSUPPORTED with a
 * message, before anything is allocated; the same context then works at a
 * size that fits. */
static void too_large(void)
{
    clv_context *c = test_context();
    const int w = 64, h = 48;
    uint8_t *px = th_random_pixels(w, h, 1, CLV_U8, 77);
    clv_image *a = th_upload(c, px, w, h, 1, CLV_U8, 0);
    clv_image *b = th_upload(c, px, w, h, 1, CLV_U8, 0);
    clv_image *flow = NULL;
    REQUIRE_OK(c, clv_image_create(c, w, h, 2, CLV_F32, &flow));
    REQUIRE_OK(c, clv_debug_limit_max_alloc(c, 32768)); /* flow: 24 KiB, workspace: 60 KiB */
    clv_context_stats before, after;
    REQUIRE_OK(c, clv_context_get_stats(c, &before));
    clv_status s = clv_farneback(c, a, b, flow, NULL);
    REQUIRE_OK(c, clv_context_get_stats(c, &after));
    PASS_IF(s == CLV_ERROR_UNSUPPORTED && strstr(clv_last_error(c), "maximum allocation"),
            "too large: %s: %s", clv_status_string(s), clv_last_error(c));
    PASS_IF(after.live_mem_objects == before.live_mem_objects,
            "buffers allocated before refusing: %llu -> %llu",
            (unsigned long long)before.live_mem_objects,
            (unsigned long long)after.live_mem_objects);
    clv_image *a2 = th_upload(c, px, 16, 12, 1, CLV_U8, 0);
    clv_image *f2 = NULL;
    REQUIRE_OK(c, clv_image_create(c, 16, 12, 2, CLV_F32, &f2));
    s = clv_farneback(c, a2, a2, f2, NULL);
    PASS_IF(s == CLV_OK, "16x12 under the lowered limit: %s", clv_last_error(c));
    PASS_IF(clv_debug_limit_max_alloc(c, 0) == CLV_ERROR_INVALID_ARGUMENT, "limit 0 refused");
    clv_image_release(a);
    clv_image_release(b);
    clv_image_release(flow);
    clv_image_release(a2);
    clv_image_release(f2);
    clv_context_release(c);
    free(px);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    ctx = test_context();
    printf("device: %s (%s)\n", clv_context_device_name(ctx), clv_context_platform_name(ctx));
    if (argc > 1 && strcmp(argv[1], "fused") == 0) {
        fused_vs_two();
        clv_context_release(ctx);
        return test_finish("farneback fused", passed);
    }

    invalid_arguments();
    photo_cases();
    initial_flow();
    zero_motion();
    integer_translation(CLV_U8);
    integer_translation(CLV_F32);
    odd_sizes();
    f32_input();
    workspace_reuse();
    too_large();

    clv_context_release(ctx);
    return test_finish("farneback", passed);
}
