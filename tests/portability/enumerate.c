/* clvision portability test, step 1: the list of kernel variants the host
 * code produces.
 *
 *   enumerate <list-file> generic|cpu [group...]
 *   enumerate --groups          (prints the group names)
 *
 * Runs every operation on small images across every pixel type and channel
 * count it accepts, every border mode, and the parameter classes that select
 * different kernels or -D options in the src/ops files (small/large windows,
 * up/down/halving resize, large transposes for the streaming CPU kernel,
 * plain/colour/cross bilateral grid with every edge type, Lucas-Kanade
 * windows whose patches fit in local memory and ones that do not, Farneback
 * box/Gaussian windows, poly_n 5/7 and level counts, pyramid scales, ...),
 * with CLV_TUNE=generic (the GPU-style variants every GPU gets), CLV_TUNE=gpu
 * (those plus what only GPU devices get: radii compiled into gauss_fused and
 * bil_fixed, box windows into box_reg, the u8 box's and Gaussian's wide
 * passes) or
 * CLV_TUNE=cpu (the flat VEC-wide CPU variants; CLV_TUNE=cpu selects them on
 * any device).
 * CLV_RECORD_BUILDS=<list-file> makes the library append
 * one line "<family>.cl<TAB><options>" per distinct program it builds
 * (src/runtime/program.c), so the list comes from the host code itself.
 * Every call must succeed: a rejected call would silently drop its variants.
 * Recording happens before the program cache is consulted, so a warm cache
 * only makes this faster. Exits 1 on any failure. tests/portability/xbuild.py
 * runs one process per tune mode and group in parallel, then compiles the
 * list. */
#include <clvision/clvision.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static int calls;

#define CHECK(ctx, expr, ...)                                                                  \
    do {                                                                                       \
        clv_status st_ = (expr);                                                               \
        calls++;                                                                               \
        if (st_ != CLV_OK) {                                                                   \
            failures++;                                                                        \
            fprintf(stderr, "enumerate: ");                                                    \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fprintf(stderr, ": %s: %s\n", clv_status_string(st_),                              \
                    (ctx) ? clv_last_error(ctx) : "");                                         \
        }                                                                                      \
    } while (0)

static const clv_pixel_type TYPES[] = {CLV_U8, CLV_U16, CLV_F32};
static const clv_border BORDERS[] = {CLV_BORDER_REFLECT101, CLV_BORDER_REPLICATE,
                                     CLV_BORDER_REFLECT, CLV_BORDER_CONSTANT, CLV_BORDER_WRAP};
#define NTYPES 3
#define NBORDERS 5

/* An image with a deterministic pattern (finite, in each type's range). */
static clv_image *make(clv_context *ctx, int w, int h, int cn, clv_pixel_type t)
{
    clv_image *img = NULL;
    clv_status st = clv_image_create(ctx, w, h, cn, t, &img);
    if (st != CLV_OK) {
        failures++;
        fprintf(stderr, "enumerate: image %dx%d c%d %s: %s: %s\n", w, h, cn,
                clv_pixel_type_name(t), clv_status_string(st), clv_last_error(ctx));
        return NULL;
    }
    const size_t n = (size_t)w * (size_t)h * (size_t)cn;
    void *buf = malloc(n * clv_pixel_type_size(t));
    if (!buf) {
        fprintf(stderr, "enumerate: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++) {
        const size_t x = i / (size_t)cn % (size_t)w, y = i / (size_t)cn / (size_t)w;
        const double v = 0.5 + 0.5 * sin(0.37 * (double)x + 0.23 * (double)y + (double)(i % cn));
        if (t == CLV_U8)
            ((uint8_t *)buf)[i] = (uint8_t)(v * 255.0);
        else if (t == CLV_U16)
            ((uint16_t *)buf)[i] = (uint16_t)(v * 65535.0);
        else
            ((float *)buf)[i] = (float)v;
    }
    st = clv_image_upload(img, buf, 0);
    free(buf);
    if (st != CLV_OK) {
        failures++;
        fprintf(stderr, "enumerate: upload: %s: %s\n", clv_status_string(st), clv_last_error(ctx));
        clv_image_release(img);
        return NULL;
    }
    return img;
}

static void filters(clv_context *ctx, clv_pixel_type t)
{
    const int W = 37, H = 29;
    {
        const char *tn = clv_pixel_type_name(t);
        for (int cn = 1; cn <= 4; cn++) {
            clv_image *src = make(ctx, W, H, cn, t);
            clv_image *dst = make(ctx, W, H, cn, t);
            clv_image *tr = make(ctx, H, W, cn, t);
            if (!src || !dst || !tr)
                goto next;
            CHECK(ctx, clv_transpose(ctx, src, tr), "transpose %s c%d", tn, cn);
            /* up, down, exact halving, identity, one axis each way */
            const int sizes[][2] = {{W * 2 + 3, H + 11}, {W / 3, H / 2}, {W - 1, H - 1},
                                    {W, H}, {W * 2, H / 3}, {1, 1}};
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                clv_image *r = make(ctx, sizes[s][0], sizes[s][1], cn, t);
                if (r)
                    CHECK(ctx, clv_resize(ctx, src, r), "resize %s c%d to %dx%d", tn, cn,
                          sizes[s][0], sizes[s][1]);
                clv_image_release(r);
            }
            {   /* exact halving of an even image */
                clv_image *e = make(ctx, 2 * W, 2 * H, cn, t);
                if (e)
                    CHECK(ctx, clv_resize(ctx, e, src), "resize %s c%d halving", tn, cn);
                clv_image_release(e);
            }
            for (int b = 0; b < NBORDERS; b++) {
                const clv_border bd = BORDERS[b];
                const char *bn = clv_border_name(bd);
                const int box[][2] = {{3, 3}, {9, 9}, {1, 15}, {31, 5}, {101, 71}};
                for (size_t k = 0; k < sizeof box / sizeof box[0]; k++)
                    CHECK(ctx, clv_box_filter(ctx, src, dst, box[k][0], box[k][1], bd),
                          "box %s c%d %s %dx%d", tn, cn, bn, box[k][0], box[k][1]);
                const double sig[][2] = {{0.8, 0.0}, {2.0, 5.0}, {7.0, 1.0}, {15.0, 15.0}};
                for (size_t k = 0; k < sizeof sig / sizeof sig[0]; k++)
                    CHECK(ctx, clv_gaussian_blur(ctx, src, dst, sig[k][0], sig[k][1], 0, 0, bd),
                          "gaussian %s c%d %s sigma %g,%g", tn, cn, bn, sig[k][0], sig[k][1]);
                CHECK(ctx, clv_gaussian_blur(ctx, src, dst, 1.0, 1.0, 3, 41, bd),
                      "gaussian %s c%d %s 3x41", tn, cn, bn);
                const int radii[] = {1, 5, 30};
                for (size_t k = 0; k < sizeof radii / sizeof radii[0]; k++)
                    CHECK(ctx, clv_bilateral(ctx, src, dst, 3.0, 0.2 * (t == CLV_F32 ? 1 : 255),
                                             radii[k], bd),
                          "bilateral %s c%d %s r%d", tn, cn, bn, radii[k]);
            }
        next:
            clv_image_release(src);
            clv_image_release(dst);
            clv_image_release(tr);
        }
    }
}

/* Transposes with a destination of 4 MiB or more (the CPU kernels' streaming
 * stores switch on there). */
static void large_transposes(clv_context *ctx)
{
    const int S = 1200;
    for (int ti = 0; ti < NTYPES; ti++) {
        for (int cn = 1; cn <= 4; cn++) {
            clv_image *a = make(ctx, S, S - 16, cn, TYPES[ti]);
            clv_image *b = make(ctx, S - 16, S, cn, TYPES[ti]);
            if (a && b)
                CHECK(ctx, clv_transpose(ctx, a, b), "transpose %s c%d %dx%d",
                      clv_pixel_type_name(TYPES[ti]), cn, S, S - 16);
            clv_image_release(a);
            clv_image_release(b);
        }
    }
}

static void grids(clv_context *ctx)
{
    const int W = 45, H = 33;
    for (int ti = 0; ti < NTYPES; ti++) {
        const clv_pixel_type t = TYPES[ti];
        const char *tn = clv_pixel_type_name(t);
        const double range = t == CLV_U8 ? 255.0 : t == CLV_U16 ? 65535.0 : 1.0;
        for (int cn = 1; cn <= 4; cn++) {
            if (cn == 2)
                continue; /* the grid takes 1, 3 or 4 channels */
            clv_image *src = make(ctx, W, H, cn, t);
            clv_image *dst = make(ctx, W, H, cn, t);
            if (!src || !dst)
                goto next;
            clv_grid_params p = clv_grid_params_default();
            p.s_r = range / 10.0;
            CHECK(ctx, clv_bilateral_grid(ctx, src, dst, &p), "grid %s c%d", tn, cn);
            p.s_s = 4.0;
            p.blur_sigma = 0.0;
            CHECK(ctx, clv_bilateral_grid(ctx, src, dst, &p), "grid %s c%d s_s 4 no blur", tn, cn);
            for (int ei = 0; ei < NTYPES; ei++) {
                clv_image *edge = make(ctx, W, H, 1, TYPES[ei]);
                const double er = TYPES[ei] == CLV_U8 ? 255.0 : TYPES[ei] == CLV_U16 ? 65535.0 : 1.0;
                clv_grid_params q = clv_grid_params_default();
                q.s_r = er / 10.0;
                if (edge)
                    CHECK(ctx, clv_bilateral_grid_cross(ctx, src, edge, dst, &q),
                          "grid cross %s c%d edge %s", tn, cn, clv_pixel_type_name(TYPES[ei]));
                clv_image_release(edge);
            }
        next:
            clv_image_release(src);
            clv_image_release(dst);
        }
    }
    for (int cn = 3; cn <= 4; cn++) {
        clv_image *hdr = make(ctx, W, H, cn, CLV_F32);
        clv_image *out = make(ctx, W, H, 3, CLV_U8);
        clv_tonemap_params p = clv_tonemap_params_default();
        if (hdr && out) {
            CHECK(ctx, clv_tonemap_local(ctx, hdr, out, &p), "tonemap c%d", cn);
            p.blend = 0.0;
            p.gamma = 2.2;
            p.sigma_space = 3.0;
            CHECK(ctx, clv_tonemap_local(ctx, hdr, out, &p), "tonemap c%d global", cn);
        }
        clv_image_release(hdr);
        clv_image_release(out);
    }
}

static void pyramids(clv_context *ctx)
{
    const int W = 61, H = 47;
    const double scales[] = {0.5, 0.7};
    for (int ti = 0; ti < NTYPES; ti++) {
        for (int cn = 1; cn <= 4; cn++) {
            clv_image *src = make(ctx, W, H, cn, TYPES[ti]);
            for (size_t s = 0; s < 2 && src; s++) {
                clv_pyramid *pyr = NULL;
                CHECK(ctx, clv_pyramid_create(ctx, W, H, cn, TYPES[ti], 4, scales[s], &pyr),
                      "pyramid create %s c%d", clv_pixel_type_name(TYPES[ti]), cn);
                if (pyr)
                    CHECK(ctx, clv_pyramid_build(ctx, pyr, src), "pyramid %s c%d scale %g",
                          clv_pixel_type_name(TYPES[ti]), cn, scales[s]);
                clv_pyramid_release(pyr);
            }
            clv_image_release(src);
        }
    }
}

static void corners(clv_context *ctx)
{
    const int W = 64, H = 48;
    const clv_pixel_type types[] = {CLV_U8, CLV_F32};
    clv_corner out[64];
    for (int ti = 0; ti < 2; ti++) {
        clv_image *img = make(ctx, W, H, 1, types[ti]);
        clv_image *mask = make(ctx, W, H, 1, CLV_U8);
        if (!img || !mask)
            goto next;
        const int blocks[] = {3, 7, 31};
        for (int m = 0; m < 2; m++) {
            for (size_t b = 0; b < 3; b++) {
                clv_corner_params p = clv_corner_params_default();
                p.max_corners = 64;
                p.block_size = blocks[b];
                p.min_distance = b == 1 ? 0.0 : 5.0;
                p.mask = m ? mask : NULL;
                int count = 0;
                CHECK(ctx, clv_corners_shi_tomasi(ctx, img, &p, out, &count),
                      "corners %s block %d mask %d", clv_pixel_type_name(types[ti]), blocks[b],
                      m);
            }
        }
    next:
        clv_image_release(img);
        clv_image_release(mask);
    }
}

static void flows(clv_context *ctx)
{
    const int W = 96, H = 80;
    /* Lucas-Kanade: windows whose patches fit in local memory, and ones that
     * do not (global patches: 71x71 on GPUs, 301x301 on CPUs) */
    for (int ti = 0; ti < NTYPES; ti++) {
        const clv_pixel_type t = TYPES[ti];
        clv_image *a = make(ctx, W, H, 1, t), *b = make(ctx, W, H, 1, t);
        clv_pyramid *pa = NULL, *pb = NULL;
        if (!a || !b)
            goto next_lk;
        CHECK(ctx, clv_pyramid_create(ctx, W, H, 1, t, 3, 0.5, &pa), "lk pyramid");
        CHECK(ctx, clv_pyramid_create(ctx, W, H, 1, t, 3, 0.5, &pb), "lk pyramid");
        if (!pa || !pb)
            goto next_lk;
        CHECK(ctx, clv_pyramid_build(ctx, pa, a), "lk pyramid build");
        CHECK(ctx, clv_pyramid_build(ctx, pb, b), "lk pyramid build");
        const int wins[][2] = {{3, 3}, {21, 21}, {9, 31}, {71, 71}, {301, 301}};
        for (size_t k = 0; k < sizeof wins / sizeof wins[0]; k++) {
            for (int init = 0; init < 2; init++) {
                clv_point in[5] = {{20, 20}, {48, 40}, {70.5f, 60.25f}, {1, 1}, {95, 79}};
                clv_point outp[5];
                memcpy(outp, in, sizeof in);
                uint8_t status[5];
                float err[5];
                clv_lk_params p = clv_lk_params_default();
                p.win_width = wins[k][0];
                p.win_height = wins[k][1];
                p.max_iterations = 3;
                p.levels = init ? 1 : 3;
                p.use_initial_flow = init;
                CHECK(ctx, clv_lk_track(ctx, pa, pb, in, outp, status, err, 5, &p),
                      "lk %s win %dx%d init %d", clv_pixel_type_name(t), wins[k][0], wins[k][1],
                      init);
            }
        }
    next_lk:
        clv_pyramid_release(pa);
        clv_pyramid_release(pb);
        clv_image_release(a);
        clv_image_release(b);
    }

    /* Farneback: u8 and f32, box and Gaussian windows, poly_n 5 and 7,
     * single and several levels, other pyramid scales */
    const clv_pixel_type fbt[] = {CLV_U8, CLV_F32};
    for (int ti = 0; ti < 2; ti++) {
        clv_image *a = make(ctx, W, H, 1, fbt[ti]), *b = make(ctx, W, H, 1, fbt[ti]);
        clv_image *flow = make(ctx, W, H, 2, CLV_F32);
        if (!a || !b || !flow)
            goto next_fb;
        for (int v = 0; v < 8; v++) {
            clv_farneback_params p = clv_farneback_params_default();
            p.gaussian_window = v & 1;
            p.poly_n = v & 2 ? 7 : 5;
            p.poly_sigma = v & 2 ? 1.5 : 1.1;
            p.levels = v & 4 ? 0 : 3;
            p.iterations = 2;
            p.winsize = v & 4 ? 31 : 9;
            p.use_initial_flow = v == 3;
            if (v == 5)
                p.pyr_scale = 0.7;
            CHECK(ctx, clv_farneback(ctx, a, b, flow, &p), "farneback %s variant %d",
                  clv_pixel_type_name(fbt[ti]), v);
        }
    next_fb:
        clv_image_release(a);
        clv_image_release(b);
        clv_image_release(flow);
    }

    /* flow utilities */
    clv_image *flow = make(ctx, W, H, 2, CLV_F32), *gt = make(ctx, W, H, 2, CLV_F32);
    clv_image *rgb = make(ctx, W, H, 3, CLV_U8);
    if (flow && gt && rgb) {
        CHECK(ctx, clv_flow_to_color(ctx, flow, rgb, 0.0), "flow_to_color auto");
        CHECK(ctx, clv_flow_to_color(ctx, flow, rgb, 3.0), "flow_to_color 3");
        clv_flow_stats stats;
        CHECK(ctx, clv_flow_eval(ctx, flow, gt, &stats), "flow_eval");
        for (int ti = 0; ti < NTYPES; ti++) {
            for (int cn = 1; cn <= 4; cn++) {
                clv_image *s = make(ctx, W + 7, H - 5, cn, TYPES[ti]);
                clv_image *d = make(ctx, W, H, cn, TYPES[ti]);
                if (s && d)
                    CHECK(ctx, clv_warp(ctx, s, flow, d), "warp %s c%d",
                          clv_pixel_type_name(TYPES[ti]), cn);
                clv_image_release(s);
                clv_image_release(d);
            }
        }
    }
    clv_image_release(flow);
    clv_image_release(gt);
    clv_image_release(rgb);
}

/* The u8 Gaussian's two wide passes (gauss_wh, gauss_wv), which GPU devices
 * run only when CLV_U8_REG names them (gauss_reg comes first under
 * CLV_TUNE=gpu): a context of their own, gpu mode only. The box's (box_wh)
 * are in filters-u8 already: CLV_TUNE=gpu gives them the windows box_reg
 * does not take. */
static void filters_wide(clv_context *ctx)
{
    (void)ctx;
    const char *tune = getenv("CLV_TUNE");
    if (!tune || strcmp(tune, "gpu") != 0)
        return;
    if (setenv("CLV_U8_REG", "gaussw", 1) != 0) {
        failures++;
        return;
    }
    clv_context *wctx = NULL;
    CHECK(NULL, clv_context_create(NULL, &wctx), "context with CLV_U8_REG=gaussw");
    if (wctx) {
        const int W = 37, H = 29;
        for (int cn = 1; cn <= 4; cn++) {
            clv_image *src = make(wctx, W, H, cn, CLV_U8);
            clv_image *dst = make(wctx, W, H, cn, CLV_U8);
            for (int b = 0; src && dst && b < NBORDERS; b++) {
                const clv_border bd = BORDERS[b];
                /* radius 6 in every border, radii 2 and 8 (the largest) in one */
                CHECK(wctx, clv_gaussian_blur(wctx, src, dst, 2.0, 0.0, 0, 0, bd),
                      "gaussian wide u8 c%d %s sigma 2", cn, clv_border_name(bd));
                if (b == 0)
                    CHECK(wctx, clv_gaussian_blur(wctx, src, dst, 0.8, 2.6, 5, 17, bd),
                          "gaussian wide u8 c%d %s 5x17", cn, clv_border_name(bd));
            }
            clv_image_release(src);
            clv_image_release(dst);
        }
        CHECK(wctx, clv_finish(wctx), "finish");
        clv_context_release(wctx);
    }
    unsetenv("CLV_U8_REG");
}

static void filters_u8(clv_context *ctx) { filters(ctx, CLV_U8); }
static void filters_u16(clv_context *ctx) { filters(ctx, CLV_U16); }
static void filters_f32(clv_context *ctx) { filters(ctx, CLV_F32); }

static const struct {
    const char *name;
    void (*run)(clv_context *);
} GROUPS[] = {
    {"filters-u8", filters_u8}, {"filters-u16", filters_u16}, {"filters-f32", filters_f32},
    {"filters-wide", filters_wide}, {"transposes", large_transposes}, {"grids", grids},
    {"pyramids", pyramids}, {"corners", corners}, {"flows", flows},
};
#define NGROUPS (sizeof GROUPS / sizeof GROUPS[0])

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--groups") == 0) {
        for (size_t g = 0; g < NGROUPS; g++)
            printf("%s\n", GROUPS[g].name);
        return 0;
    }
    if (argc < 3 || (strcmp(argv[2], "generic") != 0 && strcmp(argv[2], "cpu") != 0 &&
                     strcmp(argv[2], "gpu") != 0)) {
        fprintf(stderr, "usage: enumerate <list-file> generic|gpu|cpu [group...]\ngroups:");
        for (size_t g = 0; g < NGROUPS; g++)
            fprintf(stderr, " %s", GROUPS[g].name);
        fprintf(stderr, " (default: all)\n");
        return 2;
    }
    for (int a = 3; a < argc; a++) {
        size_t g = 0;
        while (g < NGROUPS && strcmp(argv[a], GROUPS[g].name) != 0)
            g++;
        if (g == NGROUPS) {
            fprintf(stderr, "enumerate: unknown group %s\n", argv[a]);
            return 2;
        }
    }
    /* The library appends to the list (O_APPEND): several of these processes
     * may fill one list at once. */
    if (setenv("CLV_RECORD_BUILDS", argv[1], 1) != 0 || setenv("CLV_TUNE", argv[2], 1) != 0)
        return 1;
    clv_context *ctx = NULL;
    const clv_status st = clv_context_create(NULL, &ctx);
    if (st != CLV_OK) {
        const char *req = getenv("CLV_REQUIRE_DEVICE");
        fprintf(stderr, "enumerate: %s\n", clv_context_create_error());
        /* no device at all: a skip, as in the other tests, unless required */
        return st == CLV_ERROR_NO_DEVICE && !(req && strcmp(req, "1") == 0) &&
                       !getenv("CLV_DEVICE")
                   ? 77
                   : 1;
    }
    for (size_t g = 0; g < NGROUPS; g++) {
        int want = argc == 3;
        for (int a = 3; a < argc && !want; a++)
            want = strcmp(argv[a], GROUPS[g].name) == 0;
        if (want)
            GROUPS[g].run(ctx);
    }
    CHECK(ctx, clv_finish(ctx), "finish");
    clv_context_release(ctx);
    printf("enumerate %s:", argv[2]);
    for (int a = 3; a < argc; a++)
        printf(" %s", argv[a]);
    printf(" %d calls, %d failed\n", calls, failures);
    return failures ? 1 : 0;
}
