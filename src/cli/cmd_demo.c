/* clv demo: every operation on the bundled images, u8 and f32, timed, with
 * the results written as PNG files; the edge-preserving filters and tone
 * mapping at the end. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEMO_PATH_MAX 4096

static const char *const demo_images[] = {"chelsea.png", "camera.png"};
#define N_IMAGES (sizeof demo_images / sizeof demo_images[0])

enum { DEMO_SAME, DEMO_TRANSPOSED, DEMO_SCALED };

typedef struct demo_op {
    const char *label;  /* printed */
    const char *suffix; /* in the output name */
    int shape;
    double scale; /* DEMO_SCALED */
    cli_op_fn fn;
    const void *params;
} demo_op;

static const cli_box_params box5 = {5, 5, CLV_BORDER_REFLECT101};
static const cli_box_params box31 = {31, 31, CLV_BORDER_REFLECT101};
static const cli_gaussian_params gauss2 = {2.0, 0.0, 0, 0, CLV_BORDER_REFLECT101};

static const demo_op demo_ops[] = {
    {"transpose", "transpose", DEMO_TRANSPOSED, 0.0, cli_op_transpose, NULL},
    {"resize x0.5", "resize_half", DEMO_SCALED, 0.5, cli_op_resize, NULL},
    {"resize x1.5", "resize_1.5x", DEMO_SCALED, 1.5, cli_op_resize, NULL},
    {"box 5x5", "box5", DEMO_SAME, 0.0, cli_op_box, &box5},
    {"box 31x31", "box31", DEMO_SAME, 0.0, cli_op_box, &box31},
    {"gaussian s=2", "gaussian2", DEMO_SAME, 0.0, cli_op_gaussian, &gauss2},
};
#define N_OPS (sizeof demo_ops / sizeof demo_ops[0])

/* ---- finding the data and making the output directory ------------------ */

static int has_images(const char *dir)
{
    char path[DEMO_PATH_MAX];
    for (size_t i = 0; i < N_IMAGES; i++) {
        int n = snprintf(path, sizeof path, "%s/%s", dir, demo_images[i]);
        if (n < 0 || (size_t)n >= sizeof path || access(path, R_OK) != 0)
            return 0;
    }
    return 1;
}

static int copy_path(char *out, size_t size, const char *s)
{
    size_t n = strlen(s);
    if (n >= size)
        return -1;
    memcpy(out, s, n + 1);
    return 0;
}

/* CLV_DATA_DIR when set (and then only it); else tests/data relative to the
 * executable (../ and ../../ of its directory, which covers build trees
 * inside the source tree), else ./tests/data. */
static int find_data_dir(const char *cmd, char *out, size_t size)
{
    const char *env = getenv("CLV_DATA_DIR");
    if (env && *env) {
        if (has_images(env) && copy_path(out, size, env) == 0)
            return 0;
        cli_error(cmd, "CLV_DATA_DIR='%s' does not hold %s and %s", env, demo_images[0],
                  demo_images[1]);
        return CLI_EXIT_RUNTIME;
    }

    char tried[3][DEMO_PATH_MAX];
    int ntried = 0;
    char exe[DEMO_PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(tried[ntried++], DEMO_PATH_MAX, "%.4000s/../tests/data", exe);
            snprintf(tried[ntried++], DEMO_PATH_MAX, "%.4000s/../../tests/data", exe);
        }
    }
    snprintf(tried[ntried++], DEMO_PATH_MAX, "./tests/data");

    for (int i = 0; i < ntried; i++) {
        if (has_images(tried[i]) && copy_path(out, size, tried[i]) == 0)
            return 0;
    }
    char list[3 * DEMO_PATH_MAX + 8];
    size_t len = 0;
    list[0] = '\0';
    for (int i = 0; i < ntried; i++) {
        int w = snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", tried[i]);
        if (w < 0 || (size_t)w >= sizeof list - len)
            break;
        len += (size_t)w;
    }
    cli_error(cmd, "cannot find %s and %s; tried %s (set CLV_DATA_DIR to the directory)",
              demo_images[0], demo_images[1], list);
    return CLI_EXIT_RUNTIME;
}

/* mkdir -p. */
static int make_dirs(const char *cmd, const char *dir)
{
    char path[DEMO_PATH_MAX];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        cli_error(cmd, "output directory name too long");
        return CLI_EXIT_RUNTIME;
    }
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            cli_error(cmd, "cannot create directory '%s': %s", path, strerror(errno));
            return CLI_EXIT_RUNTIME;
        }
        *p = c;
        if (c == '\0')
            break;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        cli_error(cmd, "'%s' is not a directory", path);
        return CLI_EXIT_RUNTIME;
    }
    return 0;
}

/* ---- u8/u16 <-> f32 on the host ---------------------------------------- */

static float type_max(clv_pixel_type t)
{
    return t == CLV_U16 ? 65535.0f : 255.0f;
}

static int to_f32(const char *cmd, const clv_host_image *src, clv_host_image *dst)
{
    clv_status s = clv_host_image_alloc(dst, src->width, src->height, src->channels, CLV_F32);
    if (s != CLV_OK) {
        cli_error(cmd, "cannot allocate an f32 image: %s", clv_status_string(s));
        return CLI_EXIT_RUNTIME;
    }
    const float scale = 1.0f / type_max(src->type);
    const size_t n = (size_t)src->width * (size_t)src->channels;
    for (int y = 0; y < src->height; y++) {
        const unsigned char *row = (const unsigned char *)src->data + (size_t)y * src->stride;
        float *out = (float *)((unsigned char *)dst->data + (size_t)y * dst->stride);
        for (size_t i = 0; i < n; i++)
            out[i] =
                (src->type == CLV_U16 ? (float)((const uint16_t *)row)[i] : (float)row[i]) * scale;
    }
    return 0;
}

/* Back to `type`, clamped to 0..1 and rounded. */
static int from_f32(const char *cmd, const clv_host_image *src, clv_pixel_type type,
                    clv_host_image *dst)
{
    clv_status s = clv_host_image_alloc(dst, src->width, src->height, src->channels, type);
    if (s != CLV_OK) {
        cli_error(cmd, "cannot allocate the result: %s", clv_status_string(s));
        return CLI_EXIT_RUNTIME;
    }
    const float max = type_max(type);
    const size_t n = (size_t)src->width * (size_t)src->channels;
    for (int y = 0; y < src->height; y++) {
        const float *in =
            (const float *)((const unsigned char *)src->data + (size_t)y * src->stride);
        unsigned char *row = (unsigned char *)dst->data + (size_t)y * dst->stride;
        for (size_t i = 0; i < n; i++) {
            float v = in[i];
            v = v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f; /* NaN -> 0 too */
            float q = floorf(v * max + 0.5f);
            if (type == CLV_U16)
                ((uint16_t *)row)[i] = (uint16_t)q;
            else
                row[i] = (unsigned char)q;
        }
    }
    return 0;
}

/* ---- one operation ----------------------------------------------------- */

typedef struct demo_state {
    const char *cmd;
    clv_context *ctx;
    const char *out_dir;
} demo_state;

/* out = DIR/name. */
static int demo_path(const demo_state *st, const char *name, char *out, size_t size)
{
    const size_t dir_len = strlen(st->out_dir);
    const char *sep = dir_len && st->out_dir[dir_len - 1] == '/' ? "" : "/";
    if (snprintf(out, size, "%s%s%s", st->out_dir, sep, name) >= (int)size) {
        cli_error(st->cmd, "output path too long");
        return CLI_EXIT_RUNTIME;
    }
    return 0;
}

/* Runs op on the device image src (the pixels of `file`) into a new w x h
 * image of `channels` and `type`, writes it to out_path (an f32 result
 * converted to save_type first) and prints the line. */
static int demo_run(const demo_state *st, const char *label, const char *file,
                    const clv_image *src, int w, int h, int channels, clv_pixel_type type,
                    cli_op_fn fn, const void *params, clv_pixel_type save_type,
                    const char *out_path)
{
    const char *cmd = st->cmd;
    clv_image *dst = NULL;
    clv_host_image result = {0};
    clv_host_image saved = {0};
    int rc = 0;

    char what[128];
    snprintf(what, sizeof what, "%s on %s %s failed", label, file,
             clv_pixel_type_name(clv_image_type(src)));

    clv_status s = clv_image_create(st->ctx, w, h, channels, type, &dst);
    if (s != CLV_OK) {
        rc = cli_fail_status(cmd, st->ctx, s, "cannot create the result image");
        goto out;
    }
    double wall_ms = 0.0, device_ms = 0.0;
    rc = cli_run_op(cmd, what, st->ctx, fn, src, dst, params, &wall_ms, &device_ms);
    if (rc)
        goto out;
    rc = cli_download(cmd, st->ctx, dst, &result);
    if (rc)
        goto out;
    const int is_f32 = type == CLV_F32;
    if (is_f32) {
        rc = from_f32(cmd, &result, save_type, &saved);
        if (rc)
            goto out;
    }
    rc = cli_write(cmd, out_path, is_f32 ? &saved : &result);
    if (rc)
        goto out;

    printf("%-14s %s %dx%d %s %-3s  wall %8.2f ms  device %8.2f ms  -> %s\n", label, file,
           clv_image_width(src), clv_image_height(src), cli_channels_name(clv_image_channels(src)),
           clv_pixel_type_name(clv_image_type(src)), wall_ms, device_ms, out_path);
    fflush(stdout);

out:
    clv_host_image_free(&saved);
    clv_host_image_free(&result);
    clv_image_release(dst);
    return rc;
}

/* "chelsea.png" -> "chelsea". */
static void file_stem(const char *file, char *stem, size_t size)
{
    snprintf(stem, size, "%s", file);
    char *dot = strrchr(stem, '.');
    if (dot)
        *dot = '\0';
}

/* Runs op on the device image src (a copy of the file `file`, whose pixel
 * type is file_type), writes <stem>_<suffix>[_f32].png. */
static int demo_one(const demo_state *st, const demo_op *op, const char *file,
                    clv_pixel_type file_type, const clv_image *src)
{
    int w = clv_image_width(src), h = clv_image_height(src);

    if (op->shape == DEMO_TRANSPOSED) {
        w = clv_image_height(src);
        h = clv_image_width(src);
    } else if (op->shape == DEMO_SCALED) {
        w = (int)lround(w * op->scale);
        h = (int)lround(h * op->scale);
        w = w < 1 ? 1 : w;
        h = h < 1 ? 1 : h;
    }

    const int is_f32 = clv_image_type(src) == CLV_F32;
    char stem[256], name[512], out_path[DEMO_PATH_MAX];
    file_stem(file, stem, sizeof stem);
    snprintf(name, sizeof name, "%s_%s%s.png", stem, op->suffix, is_f32 ? "_f32" : "");
    int rc = demo_path(st, name, out_path, sizeof out_path);
    if (rc)
        return rc;
    return demo_run(st, op->label, file, src, w, h, clv_image_channels(src), clv_image_type(src),
                    op->fn, op->params, file_type, out_path);
}

/* All operations on one file, first in its own type, then in f32. */
static int demo_image(const demo_state *st, const char *data_dir, const char *file)
{
    const char *cmd = st->cmd;
    char path[DEMO_PATH_MAX];
    clv_host_image host = {0};
    clv_host_image host_f32 = {0};
    clv_image *src = NULL;
    clv_image *src_f32 = NULL;
    int rc;

    if (snprintf(path, sizeof path, "%s/%s", data_dir, file) >= (int)sizeof path) {
        cli_error(cmd, "data path too long");
        return CLI_EXIT_RUNTIME;
    }
    rc = cli_read(cmd, path, &host);
    if (rc)
        goto out;
    rc = cli_upload(cmd, st->ctx, &host, &src);
    if (rc)
        goto out;
    for (size_t i = 0; i < N_OPS && !rc; i++)
        rc = demo_one(st, &demo_ops[i], file, host.type, src);
    if (rc)
        goto out;

    rc = to_f32(cmd, &host, &host_f32);
    if (rc)
        goto out;
    rc = cli_upload(cmd, st->ctx, &host_f32, &src_f32);
    if (rc)
        goto out;
    for (size_t i = 0; i < N_OPS && !rc; i++)
        rc = demo_one(st, &demo_ops[i], file, host.type, src_f32);

out:
    clv_image_release(src_f32);
    clv_image_release(src);
    clv_host_image_free(&host_f32);
    clv_host_image_free(&host);
    return rc;
}

/* ---- edge-preserving filters and tone mapping --------------------------- */

/* The bundled HDR photograph, tone mapped when the library reads OpenEXR. */
#define DEMO_HDR "studio_256.exr"

static const cli_bilateral_params demo_bilateral = {3.0, 25.0, 0, CLV_BORDER_REFLECT101};
static const cli_grid_params demo_grid = {{16.0, 25.5, 1.0}, NULL};

static int read_upload(const demo_state *st, const char *data_dir, const char *file,
                       clv_host_image *host, clv_image **dev)
{
    char path[DEMO_PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", data_dir, file) >= (int)sizeof path) {
        cli_error(st->cmd, "data path too long");
        return CLI_EXIT_RUNTIME;
    }
    int rc = cli_read(st->cmd, path, host);
    return rc ? rc : cli_upload(st->cmd, st->ctx, host, dev);
}

/* Same size, channels and type as src, written as <stem>_<suffix>.png. */
static int demo_same(const demo_state *st, const char *label, const char *file,
                     const char *suffix, const clv_image *src, cli_op_fn fn, const void *params)
{
    char stem[256], name[512], out_path[DEMO_PATH_MAX];
    file_stem(file, stem, sizeof stem);
    snprintf(name, sizeof name, "%s_%s.png", stem, suffix);
    int rc = demo_path(st, name, out_path, sizeof out_path);
    if (rc)
        return rc;
    return demo_run(st, label, file, src, clv_image_width(src), clv_image_height(src),
                    clv_image_channels(src), clv_image_type(src), fn, params,
                    clv_image_type(src), out_path);
}

/* Tone maps the host HDR image (f32 RGB(A), named `file` on the line) to
 * <stem>_tonemap.png with the default parameters. */
static int demo_tonemap(const demo_state *st, const char *file, const clv_host_image *hdr)
{
    const clv_tonemap_params tp = clv_tonemap_params_default();
    clv_image *src = NULL;
    char stem[256], name[512], out_path[DEMO_PATH_MAX];
    file_stem(file, stem, sizeof stem);
    snprintf(name, sizeof name, "%s_tonemap.png", stem);
    int rc = demo_path(st, name, out_path, sizeof out_path);
    if (rc)
        return rc;
    rc = cli_upload(st->cmd, st->ctx, hdr, &src);
    if (rc)
        return rc;
    rc = demo_run(st, "tonemap", file, src, hdr->width, hdr->height, 3, CLV_U8, cli_op_tonemap,
                  &tp, CLV_U8, out_path);
    clv_image_release(src);
    return rc;
}

/* A linear-light HDR image from an 8-bit one: (v/255)^2.2, times
 * 2^(-6 + 16 x/(w-1)), i.e. 16 stops of exposure from left to right. */
static int synthetic_hdr(const char *cmd, const clv_host_image *in, clv_host_image *out)
{
    if (in->type != CLV_U8 || (in->channels != 1 && in->channels != 3)) {
        cli_error(cmd, "the synthetic HDR image needs an 8-bit gray or RGB input (got %s, %d "
                       "channels)",
                  clv_pixel_type_name(in->type), in->channels);
        return CLI_EXIT_RUNTIME;
    }
    clv_status s = clv_host_image_alloc(out, in->width, in->height, in->channels, CLV_F32);
    if (s != CLV_OK) {
        cli_error(cmd, "cannot allocate the synthetic HDR image: %s", clv_status_string(s));
        return CLI_EXIT_RUNTIME;
    }
    float lin[256];
    for (int v = 0; v < 256; v++)
        lin[v] = (float)pow(v / 255.0, 2.2);
    const int cn = in->channels;
    for (int y = 0; y < in->height; y++) {
        const unsigned char *row = (const unsigned char *)in->data + (size_t)y * in->stride;
        float *o = (float *)((unsigned char *)out->data + (size_t)y * out->stride);
        for (int x = 0; x < in->width; x++) {
            const double t = in->width > 1 ? (double)x / (in->width - 1) : 0.0;
            const float gain = (float)exp2(-6.0 + 16.0 * t);
            for (int c = 0; c < cn; c++)
                o[x * cn + c] = lin[row[x * cn + c]] * gain;
        }
    }
    return 0;
}

/* Bilateral and grid filters on the bundled images, tone mapping of a
 * synthetic HDR version of the first one and of DEMO_HDR. */
static int demo_edge(const demo_state *st, const char *data_dir)
{
    const char *cmd = st->cmd;
    const char *chelsea = demo_images[0], *camera = demo_images[1];
    clv_host_image c_host = {0}, k_host = {0}, luma = {0}, hdr = {0}, exr = {0}, exr_rgb = {0};
    clv_image *c_dev = NULL, *k_dev = NULL, *luma_dev = NULL;
    char path[DEMO_PATH_MAX];
    int rc;

    rc = read_upload(st, data_dir, chelsea, &c_host, &c_dev);
    if (rc)
        goto out;
    rc = read_upload(st, data_dir, camera, &k_host, &k_dev);
    if (rc)
        goto out;
    rc = demo_same(st, "bilateral 3/25", chelsea, "bilateral", c_dev, cli_op_bilateral,
                   &demo_bilateral);
    if (rc)
        goto out;
    rc = demo_same(st, "grid 16/25.5", chelsea, "grid", c_dev, cli_op_grid, &demo_grid);
    if (rc)
        goto out;
    rc = demo_same(st, "grid 16/25.5", camera, "grid", k_dev, cli_op_grid, &demo_grid);
    if (rc)
        goto out;

    /* Cross: chelsea's values, its own luma as the edge image. */
    rc = cli_host_luma(cmd, &c_host, &luma);
    if (rc)
        goto out;
    rc = cli_upload(cmd, st->ctx, &luma, &luma_dev);
    if (rc)
        goto out;
    cli_grid_params cross = demo_grid;
    cross.edge = luma_dev;
    rc = demo_same(st, "grid cross", chelsea, "grid_cross", c_dev, cli_op_grid, &cross);
    if (rc)
        goto out;

    /* A synthetic HDR image, saved as PFM so 'clv tonemap' can be rerun on it. */
    char stem[256], name[512];
    file_stem(chelsea, stem, sizeof stem);
    snprintf(name, sizeof name, "%s_hdr.pfm", stem);
    rc = synthetic_hdr(cmd, &c_host, &hdr);
    if (rc)
        goto out;
    rc = demo_path(st, name, path, sizeof path);
    if (rc)
        goto out;
    rc = cli_write(cmd, path, &hdr);
    if (rc)
        goto out;
    rc = demo_tonemap(st, name, &hdr);
    if (rc)
        goto out;

    /* The bundled HDR photograph. A library without OpenEXR is the one
     * reason to skip it; a missing or unreadable file is an error. */
    if (snprintf(path, sizeof path, "%s/%s", data_dir, DEMO_HDR) >= (int)sizeof path) {
        cli_error(cmd, "data path too long");
        rc = CLI_EXIT_RUNTIME;
        goto out;
    }
    if (!clv_io_has_exr()) {
        printf("tonemap  skipped: %s: built without OpenEXR\n", DEMO_HDR);
        fflush(stdout);
        goto out;
    }
    clv_status s = clv_image_read(path, &exr);
    if (s != CLV_OK) {
        char detail[CLI_DETAIL_MAX + 1];
        cli_one_line(clv_io_last_error(), detail, sizeof detail);
        cli_error(cmd, "cannot read '%s': %s%s%s", path, clv_status_string(s),
                  detail[0] ? ": " : "", detail);
        rc = CLI_EXIT_RUNTIME;
        goto out;
    }
    rc = cli_hdr_input(cmd, path, &exr, &exr_rgb);
    if (rc)
        goto out;
    rc = demo_tonemap(st, DEMO_HDR, &exr_rgb);

out:
    clv_image_release(luma_dev);
    clv_image_release(k_dev);
    clv_image_release(c_dev);
    clv_host_image_free(&exr_rgb);
    clv_host_image_free(&exr);
    clv_host_image_free(&hdr);
    clv_host_image_free(&luma);
    clv_host_image_free(&k_host);
    clv_host_image_free(&c_host);
    return rc;
}

int cli_cmd_demo(const cli_globals *g, int argc, char **argv)
{
    const char *cmd = "demo";
    const char *out_dir = NULL;
    cli_args a;
    const char *name = NULL, *p = NULL;
    int k;
    cli_args_init(&a, cmd, argc, argv);
    while ((k = cli_args_next(&a, &name, &p)) != 0) {
        if (k == 1 && (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)) {
            printf("usage: clv demo [DIR]\n"
                   "Runs transpose, resize (x0.5, x1.5), box 5x5 and 31x31 and gaussian sigma 2\n"
                   "on %s and %s, in their own pixel type and in f32; then a bilateral\n"
                   "filter (sigma-space 3, sigma-range 25) on %s, the bilateral grid\n"
                   "(16/25.5) on both and, cross, on %s with its own luma as the edge\n"
                   "image; and tone mapping of %s (skipped when the library was built\n"
                   "without OpenEXR) and of a synthetic HDR made from %s (16 stops of\n"
                   "exposure across the width), which is also saved as <stem>_hdr.pfm so\n"
                   "'clv tonemap' can be rerun on it. The results go as PNG files into DIR\n"
                   "(default ./clv-demo, created if missing).\n"
                   "Each line gives the time of a second run (the first builds the kernels):\n"
                   "wall = enqueue to finish, device = kernel execution from profiling.\n"
                   "The images are found in CLV_DATA_DIR, else in tests/data next to the\n"
                   "executable or the current directory.\n",
                   demo_images[0], demo_images[1], demo_images[0], demo_images[0], DEMO_HDR,
                   demo_images[0]);
            return CLI_EXIT_OK;
        }
        if (k == 1)
            return cli_usage_error(cmd, "unknown option '%s'", name);
        if (out_dir)
            return cli_usage_error(cmd, "unexpected argument '%s'", p);
        if (!*p)
            return cli_usage_error(cmd, "empty directory name");
        out_dir = p;
    }
    if (!out_dir)
        out_dir = "clv-demo";

    char data_dir[DEMO_PATH_MAX];
    int rc = find_data_dir(cmd, data_dir, sizeof data_dir);
    if (rc)
        return rc;
    /* The bundled HDR image has to be there (whether it can be read depends
     * on the library); find out before doing any work. */
    char hdr_path[DEMO_PATH_MAX];
    snprintf(hdr_path, sizeof hdr_path, "%.4000s/%s", data_dir, DEMO_HDR);
    if (access(hdr_path, R_OK) != 0) {
        cli_error(cmd, "cannot read the bundled HDR image '%s': %s", hdr_path, strerror(errno));
        return CLI_EXIT_RUNTIME;
    }
    rc = make_dirs(cmd, out_dir);
    if (rc)
        return rc;

    demo_state st = {cmd, NULL, out_dir};
    rc = cli_context(cmd, g, 1, &st.ctx);
    if (rc)
        return rc;
    for (size_t i = 0; i < N_IMAGES && !rc; i++)
        rc = demo_image(&st, data_dir, demo_images[i]);
    if (!rc)
        rc = demo_edge(&st, data_dir);
    clv_context_release(st.ctx);
    return rc;
}
