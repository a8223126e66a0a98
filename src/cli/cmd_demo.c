/* clv demo: every operation on the bundled images, u8 and f32, timed, with
 * the results written as PNG files; the edge-preserving filters and tone
 * mapping at the end. */
#include "cli.h"

#include <errno.h>
#include <glob.h>
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

/* One step of the demo as data: an operation by its descriptor name and the
 * numbers it is given by name (clv_op_call; the others take their
 * defaults). The images are bound when it runs (demo_call): the source to
 * the operation's first input image, any other input by name, and a new
 * output shaped by clv_op_output_shape. */
#define DEMO_MAX_ARGS 4
typedef struct demo_step {
    const char *label;  /* printed */
    const char *suffix; /* in the output name */
    const char *op;     /* descriptor name */
    double scale;       /* an output of the caller's size (resize's): src's size times this */
    clv_arg args[DEMO_MAX_ARGS]; /* up to the first without a name */
} demo_step;

/* On each bundled image, in its own type and in f32. */
static const demo_step demo_steps[] = {
    {"transpose", "transpose", "transpose", 0.0, {{0}}},
    {"resize x0.5", "resize_half", "resize", 0.5, {{0}}},
    {"resize x1.5", "resize_1.5x", "resize", 1.5, {{0}}},
    {"box 5x5", "box5", "box_filter", 0.0,
     {CLV_ARG_INT("ksize_x", 5), CLV_ARG_INT("ksize_y", 5)}},
    {"box 31x31", "box31", "box_filter", 0.0,
     {CLV_ARG_INT("ksize_x", 31), CLV_ARG_INT("ksize_y", 31)}},
    {"gaussian s=2", "gaussian2", "gaussian_blur", 0.0, {CLV_ARG_DOUBLE("sigma_x", 2.0)}},
};
#define N_STEPS (sizeof demo_steps / sizeof demo_steps[0])

/* The edge-preserving filters, tone mapping and the warp. */
static const demo_step demo_bilateral = {
    "bilateral 3/25", "bilateral", "bilateral", 0.0,
    {CLV_ARG_DOUBLE("sigma_space", 3.0), CLV_ARG_DOUBLE("sigma_range", 25.0)}};
static const demo_step demo_grid = {
    "grid 16/25.5", "grid", "bilateral_grid", 0.0,
    {CLV_ARG_DOUBLE("s_s", 16.0), CLV_ARG_DOUBLE("s_r", 25.5)}};
static const demo_step demo_grid_cross = {
    "grid cross", "grid_cross", "bilateral_grid_cross", 0.0,
    {CLV_ARG_DOUBLE("s_s", 16.0), CLV_ARG_DOUBLE("s_r", 25.5)}};
static const demo_step demo_tonemap_step = {"tonemap", "tonemap", "tonemap_local", 0.0, {{0}}};
static const demo_step demo_warp_step = {"warp", NULL /* lk_next_warped.png */, "warp", 0.0,
                                         {{0}}};

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

/* CLV_DATA_DIR when set (and then only it); else the installed
 * <datadir>/clvision/demo relative to the executable (CLV_DEMO_RELDIR, so a
 * moved install works), tests/data relative to it (../ and ../../ of its
 * directory, which covers build trees inside the source tree), the configured
 * <datadir>/clvision/demo (CLV_DEMO_DATADIR), else ./tests/data. */
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

    char tried[5][DEMO_PATH_MAX];
    int ntried = 0;
    char exe[DEMO_PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
#ifdef CLV_DEMO_RELDIR
            snprintf(tried[ntried++], DEMO_PATH_MAX, "%.3000s/%.900s", exe, CLV_DEMO_RELDIR);
#endif
            snprintf(tried[ntried++], DEMO_PATH_MAX, "%.4000s/../tests/data", exe);
            snprintf(tried[ntried++], DEMO_PATH_MAX, "%.4000s/../../tests/data", exe);
        }
    }
#ifdef CLV_DEMO_DATADIR
    snprintf(tried[ntried++], DEMO_PATH_MAX, "%.4000s", CLV_DEMO_DATADIR);
#endif
    snprintf(tried[ntried++], DEMO_PATH_MAX, "./tests/data");

    for (int i = 0; i < ntried; i++) {
        if (has_images(tried[i]) && copy_path(out, size, tried[i]) == 0)
            return 0;
    }
    char list[5 * DEMO_PATH_MAX + 8];
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
    cli_outputs *outs; /* every result, renamed into place only when all succeeded */
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

/* The operation a step names and the index of its first input image (the
 * step's source) and of its output image. Prints the error. */
static int step_op(const demo_state *st, const demo_step *step, const clv_op_desc **op, int *in_p,
                   int *out_p)
{
    *in_p = *out_p = -1;
    *op = clv_op_find(step->op);
    for (int i = 0; *op && i < (*op)->nparams; i++) {
        const clv_param_desc *p = &(*op)->params[i];
        int *slot = p->flags & CLV_PARAM_OUTPUT ? out_p : in_p;
        if (p->type == CLV_PARAM_IMAGE && *slot < 0)
            *slot = i;
    }
    if (*in_p < 0 || *out_p < 0) {
        cli_error(st->cmd, "the library has no operation '%s' from an image to an image",
                  step->op);
        return CLI_EXIT_RUNTIME;
    }
    return 0;
}

/* Runs step on the device image src (the pixels of `file`; the operation's
 * first input image) and `extra` (another input image by name, or one
 * without a name for none) into a new output image shaped by
 * clv_op_output_shape, writes it to out_path (an f32 result converted to
 * save_type first) and prints the line. */
static int demo_call(const demo_state *st, const demo_step *step, const char *file,
                     const clv_image *src, clv_arg extra, clv_pixel_type save_type,
                     const char *out_path)
{
    const char *cmd = st->cmd;
    const clv_op_desc *op = NULL;
    clv_arg args[DEMO_MAX_ARGS + 3];
    clv_image *dst = NULL;
    clv_host_image result = {0};
    clv_host_image saved = {0};
    int n = 0, in_p, out_p;

    int rc = step_op(st, step, &op, &in_p, &out_p);
    if (rc)
        return rc;
    while (n < DEMO_MAX_ARGS && step->args[n].name) {
        args[n] = step->args[n];
        n++;
    }
    if (extra.name)
        args[n++] = extra;
    args[n++] = CLV_ARG_IMAGE(op->params[in_p].name, src);

    char what[128], msg[300];
    snprintf(what, sizeof what, "%s on %s %s failed", step->label, file,
             clv_pixel_type_name(clv_image_type(src)));
    int w = 0, h = 0, channels = 0;
    clv_pixel_type type = CLV_U8;
    if (clv_op_output_shape(op, args, n, out_p, &w, &h, &channels, &type, msg, sizeof msg) !=
        CLV_OK) {
        cli_error(cmd, "%s: %s", what, msg);
        return CLI_EXIT_RUNTIME;
    }
    if (op->params[out_p].flags & CLV_PARAM_FREE_SIZE) {
        w = (int)lround(clv_image_width(src) * step->scale);
        h = (int)lround(clv_image_height(src) * step->scale);
        w = w < 1 ? 1 : w;
        h = h < 1 ? 1 : h;
    }
    clv_status s = clv_image_create(st->ctx, w, h, channels, type, &dst);
    if (s != CLV_OK) {
        rc = cli_fail_status(cmd, st->ctx, s, "cannot create the result image");
        goto out;
    }
    args[n++] = CLV_ARG_IMAGE(op->params[out_p].name, dst);
    double wall_ms = 0.0, device_ms = 0.0;
    rc = cli_run_op(cmd, what, st->ctx, op, args, n, &wall_ms, &device_ms);
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
    rc = cli_outputs_image(cmd, st->outs, out_path, is_f32 ? &saved : &result);
    if (rc)
        goto out;

    printf("%-14s %s %dx%d %s %-3s  wall %8.2f ms  device %8.2f ms  -> %s\n", step->label, file,
           clv_image_width(src), clv_image_height(src), cli_channels_name(clv_image_channels(src)),
           clv_pixel_type_name(clv_image_type(src)), wall_ms, device_ms, out_path);
    fflush(stdout);

out:
    clv_host_image_free(&saved);
    clv_host_image_free(&result);
    clv_image_release(dst);
    return rc;
}

static const clv_arg no_extra = {0};

/* "chelsea.png" -> "chelsea". */
static void file_stem(const char *file, char *stem, size_t size)
{
    snprintf(stem, size, "%s", file);
    char *dot = strrchr(stem, '.');
    if (dot)
        *dot = '\0';
}

/* Runs step on the device image src (a copy of the file `file`, whose pixel
 * type is file_type), writes <stem>_<suffix>[_f32].png. */
static int demo_one(const demo_state *st, const demo_step *step, const char *file,
                    clv_pixel_type file_type, const clv_image *src)
{
    const int is_f32 = clv_image_type(src) == CLV_F32;
    char stem[256], name[512], out_path[DEMO_PATH_MAX];
    file_stem(file, stem, sizeof stem);
    snprintf(name, sizeof name, "%s_%s%s.png", stem, step->suffix, is_f32 ? "_f32" : "");
    int rc = demo_path(st, name, out_path, sizeof out_path);
    if (rc)
        return rc;
    return demo_call(st, step, file, src, no_extra, file_type, out_path);
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
    for (size_t i = 0; i < N_STEPS && !rc; i++)
        rc = demo_one(st, &demo_steps[i], file, host.type, src);
    if (rc)
        goto out;

    rc = to_f32(cmd, &host, &host_f32);
    if (rc)
        goto out;
    rc = cli_upload(cmd, st->ctx, &host_f32, &src_f32);
    if (rc)
        goto out;
    for (size_t i = 0; i < N_STEPS && !rc; i++)
        rc = demo_one(st, &demo_steps[i], file, host.type, src_f32);

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

static int read_data(const demo_state *st, const char *data_dir, const char *file,
                     clv_host_image *host)
{
    char path[DEMO_PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", data_dir, file) >= (int)sizeof path) {
        cli_error(st->cmd, "data path too long");
        return CLI_EXIT_RUNTIME;
    }
    return cli_read(st->cmd, path, host);
}

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

/* Runs step on src (the pixels of `file`; extra: see demo_call), written as
 * <stem>_<suffix>.png. */
static int demo_same(const demo_state *st, const demo_step *step, const char *file,
                     const clv_image *src, clv_arg extra)
{
    char stem[256], name[512], out_path[DEMO_PATH_MAX];
    file_stem(file, stem, sizeof stem);
    snprintf(name, sizeof name, "%s_%s.png", stem, step->suffix);
    int rc = demo_path(st, name, out_path, sizeof out_path);
    if (rc)
        return rc;
    return demo_call(st, step, file, src, extra, clv_image_type(src), out_path);
}

/* Tone maps the host image hdr (read from `path`, named `file` on the line)
 * with the default parameters to <stem>_tonemap.png; uploaded and turned on
 * the device into what the operation takes, as 'clv tonemap' does. */
static int demo_tonemap(const demo_state *st, const char *file, const char *path,
                        const clv_host_image *hdr)
{
    const clv_op_desc *op = NULL;
    clv_image *src = NULL;
    int in_p, out_p;
    int rc = step_op(st, &demo_tonemap_step, &op, &in_p, &out_p);
    if (!rc)
        rc = cli_upload(st->cmd, st->ctx, hdr, &src);
    if (!rc)
        rc = cli_to_accepted(st->cmd, st->ctx, &op->params[in_p], CLI_GRAY_601, path, &src);
    if (!rc)
        rc = demo_same(st, &demo_tonemap_step, file, src, no_extra);
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
    clv_host_image c_host = {0}, k_host = {0}, hdr = {0}, exr = {0};
    clv_image *c_dev = NULL, *k_dev = NULL, *luma_dev = NULL;
    char path[DEMO_PATH_MAX];
    int rc;

    rc = read_upload(st, data_dir, chelsea, &c_host, &c_dev);
    if (rc)
        goto out;
    rc = read_upload(st, data_dir, camera, &k_host, &k_dev);
    if (rc)
        goto out;
    rc = demo_same(st, &demo_bilateral, chelsea, c_dev, no_extra);
    if (rc)
        goto out;
    rc = demo_same(st, &demo_grid, chelsea, c_dev, no_extra);
    if (rc)
        goto out;
    rc = demo_same(st, &demo_grid, camera, k_dev, no_extra);
    if (rc)
        goto out;

    /* Cross: chelsea's values, its own luminance as the edge image (Rec. 709,
     * the grid's own colour luminance), made on the device. */
    {
        clv_status s = clv_image_create(st->ctx, c_host.width, c_host.height, 1, c_host.type,
                                        &luma_dev);
        if (s == CLV_OK)
            s = clv_convert_color(st->ctx, c_dev, luma_dev, CLV_COLOR_RGB2GRAY_709);
        if (s != CLV_OK) {
            rc = cli_fail_status(cmd, st->ctx, s, "cannot make the edge image");
            goto out;
        }
    }
    rc = demo_same(st, &demo_grid_cross, chelsea, c_dev, CLV_ARG_IMAGE("edge", luma_dev));
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
    rc = cli_outputs_image(cmd, st->outs, path, &hdr);
    if (rc)
        goto out;
    rc = demo_tonemap(st, name, path, &hdr);
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
    rc = demo_tonemap(st, DEMO_HDR, path, &exr);

out:
    clv_image_release(luma_dev);
    clv_image_release(k_dev);
    clv_image_release(c_dev);
    clv_host_image_free(&exr);
    clv_host_image_free(&hdr);
    clv_host_image_free(&k_host);
    clv_host_image_free(&c_host);
    return rc;
}

/* ---- optical flow -------------------------------------------------------- */

/* The bundled pair: DEMO_NEXT is DEMO_PREV moved by a known affine motion
 * (tests/data/make_lk.py): p -> c + s R(theta) (p - c) + t, c the centre. */
#define DEMO_PREV "lk_prev.png"
#define DEMO_NEXT "lk_next.png"
#define LK_ZOOM 1.01
#define LK_THETA_DEG 0.5
#define LK_SHIFT_X 2.3
#define LK_SHIFT_Y -1.7

/* a: A(p) = [a0 a1; a3 a4] p + (a2, a5). */
static void lk_motion(int w, int h, double a[6])
{
    const double cx = (w - 1) / 2.0, cy = (h - 1) / 2.0;
    const double t = LK_THETA_DEG * 3.14159265358979323846 / 180.0;
    const double c = LK_ZOOM * cos(t), s = LK_ZOOM * sin(t);
    a[0] = c;
    a[1] = -s;
    a[3] = s;
    a[4] = c;
    a[2] = cx - (c * cx - s * cy) + LK_SHIFT_X;
    a[5] = cy - (s * cx + c * cy) + LK_SHIFT_Y;
}

static void flow_line(const char *label, const char *file, const clv_host_image *img,
                      double wall_ms, double device_ms, const char *outs)
{
    printf("%-14s %s %dx%d %s %-3s  wall %8.2f ms  device %8.2f ms  -> %s\n", label, file,
           img->width, img->height, cli_channels_name(img->channels),
           clv_pixel_type_name(img->type), wall_ms, device_ms, outs);
    fflush(stdout);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Shi-Tomasi corners of camera.png: CSV and a drawing. */
static int demo_corners(const demo_state *st, const char *data_dir)
{
    const char *cmd = st->cmd, *file = demo_images[1];
    clv_host_image host = {0}, rgb = {0};
    clv_image *dev = NULL;
    clv_corner *corners = NULL;
    int count = 0;
    char csv[DEMO_PATH_MAX], png[DEMO_PATH_MAX], list[2 * DEMO_PATH_MAX + 64];
    double wall_ms = 0.0, device_ms = 0.0;
    clv_corner_params cp = clv_corner_params_default();
    cp.max_corners = 500;

    int rc = read_data(st, data_dir, file, &host);
    if (rc ||
        (rc = cli_gray_upload(cmd, st->ctx, &host, cli_gray_type(host.type), CLI_GRAY_601, 1.0,
                              &dev)) != 0 ||
        (rc = cli_find_corners(cmd, st->ctx, dev, &cp, &corners, &count, &wall_ms,
                               &device_ms)) != 0 ||
        (rc = demo_path(st, "camera_corners.csv", csv, sizeof csv)) != 0 ||
        (rc = demo_path(st, "camera_corners.png", png, sizeof png)) != 0 ||
        (rc = cli_corners_csv(cmd, st->outs, csv, corners, count)) != 0 ||
        (rc = cli_host_rgb(cmd, &host, &rgb)) != 0)
        goto out;
    cli_draw_corners(&rgb, corners, count);
    if ((rc = cli_outputs_image(cmd, st->outs, png, &rgb)) != 0)
        goto out;
    snprintf(list, sizeof list, "%s, %s (%d corners)", csv, png, count);
    flow_line("corners", file, &host, wall_ms, device_ms, list);

out:
    free(corners);
    clv_image_release(dev);
    clv_host_image_free(&rgb);
    clv_host_image_free(&host);
    return rc;
}

/* Lucas-Kanade tracking of DEMO_PREV's corners into DEMO_NEXT, checked
 * against the known motion. prev/next: device gray images (u8). */
static int demo_track(const demo_state *st, const clv_host_image *h_prev, clv_image *prev,
                      clv_image *next)
{
    const char *cmd = st->cmd;
    clv_pyramid *p_prev = NULL, *p_next = NULL;
    clv_corner *corners = NULL;
    clv_point *pts = NULL, *moved = NULL;
    uint8_t *status = NULL;
    float *err = NULL;
    double *epe = NULL;
    int count = 0;
    cli_text t = {0};
    char csv[DEMO_PATH_MAX], list[DEMO_PATH_MAX + 128];
    double wall_ms = 0.0, device_ms = 0.0;
    clv_corner_params cp = clv_corner_params_default();
    cp.max_corners = 500;
    const clv_lk_params lk = clv_lk_params_default();
    const int w = h_prev->width, h = h_prev->height;

    int rc = cli_find_corners(cmd, st->ctx, prev, &cp, &corners, &count, NULL, NULL);
    if (rc)
        goto out;
    clv_status s = clv_pyramid_create(st->ctx, w, h, 1, h_prev->type, lk.levels, 0.5, &p_prev);
    if (s == CLV_OK)
        s = clv_pyramid_create(st->ctx, w, h, 1, h_prev->type, lk.levels, 0.5, &p_next);
    if (s != CLV_OK) {
        rc = cli_fail_status(cmd, st->ctx, s, "cannot create the pyramids");
        goto out;
    }
    const size_t n = (size_t)(count > 0 ? count : 1);
    pts = malloc(n * sizeof *pts);
    moved = malloc(n * sizeof *moved);
    status = malloc(n);
    err = malloc(n * sizeof *err);
    epe = malloc(n * sizeof *epe);
    if (!pts || !moved || !status || !err || !epe) {
        cli_error(cmd, "out of memory");
        rc = CLI_EXIT_RUNTIME;
        goto out;
    }
    for (int i = 0; i < count; i++) {
        pts[i].x = corners[i].x;
        pts[i].y = corners[i].y;
    }
    if ((rc = cli_track_points(cmd, st->ctx, p_prev, p_next, prev, next, pts, moved, status, err,
                               count, &lk, 1, &wall_ms, &device_ms)) != 0 ||
        (rc = cli_track_csv(cmd, &t, pts, moved, status, err, count)) != 0 ||
        (rc = demo_path(st, "lk_track.csv", csv, sizeof csv)) != 0 ||
        (rc = cli_outputs_text(cmd, st->outs, csv, t.data, t.len)) != 0)
        goto out;

    /* Endpoint errors of the tracked points against the known motion. */
    double a[6];
    lk_motion(w, h, a);
    int tracked = 0;
    for (int i = 0; i < count; i++) {
        if (!status[i])
            continue;
        const double x = pts[i].x, y = pts[i].y;
        epe[tracked++] = hypot(moved[i].x - (a[0] * x + a[1] * y + a[2]),
                               moved[i].y - (a[3] * x + a[4] * y + a[5]));
    }
    qsort(epe, (size_t)tracked, sizeof *epe, cmp_double);
    const double median = tracked == 0 ? 0.0
                          : tracked % 2 ? epe[tracked / 2]
                                        : 0.5 * (epe[tracked / 2 - 1] + epe[tracked / 2]);
    snprintf(list, sizeof list,
             "%s (%d of %d corners tracked into %s, median error %.3f px vs the known motion)",
             csv, tracked, count, DEMO_NEXT, median);
    flow_line("track LK", DEMO_PREV, h_prev, wall_ms, device_ms, list);

out:
    cli_text_free(&t);
    free(epe);
    free(err);
    free(status);
    free(moved);
    free(pts);
    free(corners);
    clv_pyramid_release(p_next);
    clv_pyramid_release(p_prev);
    return rc;
}

/* Prints "flow-eval  EST vs GT  AEE=... AAE=... R1=... R3=... R5=...", the
 * line 'clv flow-eval EST GT' reproduces. */
static int demo_eval(const demo_state *st, const clv_image *est, const char *est_path,
                     const clv_host_image *gt, const char *gt_path)
{
    clv_image *d_gt = NULL;
    clv_flow_stats fs;
    int rc = cli_upload(st->cmd, st->ctx, gt, &d_gt);
    if (rc)
        return rc;
    clv_status s = clv_flow_eval(st->ctx, est, d_gt, &fs);
    clv_image_release(d_gt);
    if (s != CLV_OK)
        return cli_fail_status(st->cmd, st->ctx, s, "flow evaluation failed");
    printf("%-14s %s vs %s  AEE=%.4f AAE=%.4f R1=%.4f R3=%.4f R5=%.4f\n", "flow-eval", est_path,
           gt_path, fs.aee, fs.aae, fs.r1, fs.r3, fs.r5);
    fflush(stdout);
    return 0;
}

/* Farneback (default parameters) of a pair of device gray u8 images into
 * <stem>.flo and its colour coding <stem>.png; flow keeps the field. */
static int demo_farneback(const demo_state *st, const char *file, const clv_host_image *h_prev,
                          const clv_image *prev, const clv_image *next, const char *stem,
                          clv_image *flow, char *flo_path, size_t flo_size)
{
    const char *cmd = st->cmd;
    const int w = h_prev->width, h = h_prev->height;
    const clv_farneback_params fp = clv_farneback_params_default();
    clv_host_image h_flow = {0}, h_rgb = {0};
    clv_image *rgb = NULL;
    char name[512], png[DEMO_PATH_MAX], list[2 * DEMO_PATH_MAX + 8];
    double wall_ms = 0.0, device_ms = 0.0;
    int rc;

    snprintf(name, sizeof name, "%s.flo", stem);
    if ((rc = demo_path(st, name, flo_path, flo_size)) != 0)
        return rc;
    snprintf(name, sizeof name, "%s.png", stem);
    if ((rc = demo_path(st, name, png, sizeof png)) != 0)
        return rc;
    clv_status s = clv_image_create(st->ctx, w, h, 3, CLV_U8, &rgb);
    if (s != CLV_OK) {
        rc = cli_fail_status(cmd, st->ctx, s, "cannot create the colour image");
        goto out;
    }
    /* Untimed first run: builds the kernels and the workspace. */
    s = clv_farneback(st->ctx, prev, next, flow, &fp);
    if (s == CLV_OK)
        s = clv_finish(st->ctx);
    if (s != CLV_OK) {
        rc = cli_fail_status(cmd, st->ctx, s, "flow failed");
        goto out;
    }
    if ((rc = cli_host_alloc(cmd, w, h, 2, CLV_F32, &h_flow)) != 0 ||
        (rc = cli_host_alloc(cmd, w, h, 3, CLV_U8, &h_rgb)) != 0 ||
        (rc = cli_flow_pair(cmd, st->ctx, prev, next, flow, rgb, &fp, &h_flow, &h_rgb, &wall_ms,
                            &device_ms)) != 0 ||
        (rc = cli_outputs_flo(cmd, st->outs, flo_path, &h_flow)) != 0 ||
        (rc = cli_outputs_image(cmd, st->outs, png, &h_rgb)) != 0)
        goto out;
    snprintf(list, sizeof list, "%s, %s", flo_path, png);
    flow_line("farneback", file, h_prev, wall_ms, device_ms, list);

out:
    clv_image_release(rgb);
    clv_host_image_free(&h_rgb);
    clv_host_image_free(&h_flow);
    return rc;
}

/* Reads and uploads the gray (u8 stays u8) of two frames of one size. */
static int demo_pair(const demo_state *st, const char *data_dir, const char *f0, const char *f1,
                     clv_host_image *h0, clv_host_image *h1, clv_image **d0, clv_image **d1)
{
    int rc = read_data(st, data_dir, f0, h0);
    if (!rc)
        rc = read_data(st, data_dir, f1, h1);
    if (!rc && (h0->width != h1->width || h0->height != h1->height)) {
        cli_error(st->cmd, "%s is %dx%d but %s is %dx%d (they must match)", f0, h0->width,
                  h0->height, f1, h1->width, h1->height);
        rc = CLI_EXIT_RUNTIME;
    }
    if (!rc && (h0->type != CLV_U8 || h1->type != CLV_U8)) {
        cli_error(st->cmd, "%s and %s must be 8-bit images", f0, f1);
        rc = CLI_EXIT_RUNTIME;
    }
    if (!rc)
        rc = cli_gray_upload(st->cmd, st->ctx, h0, CLV_U8, CLI_GRAY_601, 1.0, d0);
    if (!rc)
        rc = cli_gray_upload(st->cmd, st->ctx, h1, CLV_U8, CLI_GRAY_601, 1.0, d1);
    return rc;
}

/* Warps DEMO_NEXT by the flow from DEMO_PREV (which it then resembles). */
static int demo_warp(const demo_state *st, const clv_host_image *h_next, const clv_image *flow)
{
    clv_image *src = NULL;
    char path[DEMO_PATH_MAX];
    int rc = demo_path(st, "lk_next_warped.png", path, sizeof path);
    if (!rc)
        rc = cli_upload(st->cmd, st->ctx, h_next, &src);
    if (!rc)
        rc = demo_call(st, &demo_warp_step, DEMO_NEXT, src, CLV_ARG_IMAGE("flow", flow),
                       h_next->type, path);
    clv_image_release(src);
    return rc;
}

/* The known motion of the bundled pair as a flow field (A(p) - p at every
 * pixel of DEMO_PREV), saved as lk_gt.flo for 'clv flow-eval'. */
static int demo_lk_truth(const demo_state *st, int w, int h, clv_host_image *gt, char *path,
                         size_t size)
{
    int rc = demo_path(st, "lk_gt.flo", path, size);
    if (rc || (rc = cli_host_alloc(st->cmd, w, h, 2, CLV_F32, gt)) != 0)
        return rc;
    double a[6];
    lk_motion(w, h, a);
    for (int y = 0; y < h; y++) {
        float *row = (float *)((unsigned char *)gt->data + (size_t)y * gt->stride);
        for (int x = 0; x < w; x++) {
            row[2 * x] = (float)(a[0] * x + a[1] * y + a[2] - x);
            row[2 * x + 1] = (float)(a[3] * x + a[4] * y + a[5] - y);
        }
    }
    return cli_outputs_flo(st->cmd, st->outs, path, gt);
}

/* Farneback on a ground-truth pair of the data directory:
 * flow_<name>0.png, flow_<name>1.png and flow_<name>_gt.flo. */
static int demo_truth_pair(const demo_state *st, const char *data_dir, const char *gt_path)
{
    const char *base = strrchr(gt_path, '/');
    base = base ? base + 1 : gt_path;
    const size_t len = strlen(base) - strlen("flow_") - strlen("_gt.flo");
    char name[256], f0[300], f1[300], stem[300];
    snprintf(name, sizeof name, "%.*s", (int)(len < 200 ? len : 200), base + strlen("flow_"));
    snprintf(f0, sizeof f0, "flow_%s0.png", name);
    snprintf(f1, sizeof f1, "flow_%s1.png", name);
    snprintf(stem, sizeof stem, "flow_%s", name);
    clv_host_image h0 = {0}, h1 = {0}, gt = {0};
    clv_image *d0 = NULL, *d1 = NULL, *flow = NULL;
    char flo[DEMO_PATH_MAX];
    int rc = demo_pair(st, data_dir, f0, f1, &h0, &h1, &d0, &d1);
    if (!rc)
        rc = cli_read_flo(st->cmd, gt_path, &gt);
    if (!rc && (gt.width != h0.width || gt.height != h0.height)) {
        cli_error(st->cmd, "%s is %dx%d but %s is %dx%d (they must match)", gt_path, gt.width,
                  gt.height, f0, h0.width, h0.height);
        rc = CLI_EXIT_RUNTIME;
    }
    if (!rc) {
        clv_status s = clv_image_create(st->ctx, h0.width, h0.height, 2, CLV_F32, &flow);
        if (s != CLV_OK)
            rc = cli_fail_status(st->cmd, st->ctx, s, "cannot create the flow image");
    }
    if (!rc)
        rc = demo_farneback(st, f0, &h0, d0, d1, stem, flow, flo, sizeof flo);
    if (!rc)
        rc = demo_eval(st, flow, flo, &gt, gt_path);
    clv_image_release(flow);
    clv_image_release(d1);
    clv_image_release(d0);
    clv_host_image_free(&gt);
    clv_host_image_free(&h1);
    clv_host_image_free(&h0);
    return rc;
}

/* Corners of camera.png; tracking, dense flow, warp and evaluation on the
 * bundled pair; dense flow and evaluation on each ground-truth pair. */
static int demo_flow(const demo_state *st, const char *data_dir)
{
    clv_host_image h_prev = {0}, h_next = {0}, gt = {0};
    clv_image *prev = NULL, *next = NULL, *flow = NULL;
    char flo[DEMO_PATH_MAX], gt_path[DEMO_PATH_MAX], pattern[DEMO_PATH_MAX];
    glob_t gl;
    memset(&gl, 0, sizeof gl);

    int rc = demo_corners(st, data_dir);
    if (!rc)
        rc = demo_pair(st, data_dir, DEMO_PREV, DEMO_NEXT, &h_prev, &h_next, &prev, &next);
    if (!rc)
        rc = demo_track(st, &h_prev, prev, next);
    if (!rc) {
        clv_status s =
            clv_image_create(st->ctx, h_prev.width, h_prev.height, 2, CLV_F32, &flow);
        if (s != CLV_OK)
            rc = cli_fail_status(st->cmd, st->ctx, s, "cannot create the flow image");
    }
    if (!rc)
        rc = demo_farneback(st, DEMO_PREV, &h_prev, prev, next, "lk_flow", flow, flo, sizeof flo);
    if (!rc)
        rc = demo_warp(st, &h_next, flow);
    if (!rc)
        rc = demo_lk_truth(st, h_prev.width, h_prev.height, &gt, gt_path, sizeof gt_path);
    if (!rc)
        rc = demo_eval(st, flow, flo, &gt, gt_path);
    if (rc)
        goto out;

    /* Ground-truth pairs (tests/data/make_flow.py), when there are any. */
    snprintf(pattern, sizeof pattern, "%.4000s/flow_*_gt.flo", data_dir);
    int gr = glob(pattern, 0, NULL, &gl);
    for (size_t i = 0; gr == 0 && i < gl.gl_pathc && !rc; i++)
        rc = demo_truth_pair(st, data_dir, gl.gl_pathv[i]);

out:
    globfree(&gl);
    clv_image_release(flow);
    clv_image_release(next);
    clv_image_release(prev);
    clv_host_image_free(&gt);
    clv_host_image_free(&h_next);
    clv_host_image_free(&h_prev);
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
                   "'clv tonemap' can be rerun on it. Then optical flow: Shi-Tomasi corners of\n"
                   "%s (camera_corners.csv and a drawing); Lucas-Kanade tracking of the\n"
                   "corners of %s into %s (the same photo moved by a known\n"
                   "motion; the median error against it is printed), Farneback flow of that pair\n"
                   "(lk_flow.flo and its colour wheel picture), %s warped back by it and\n"
                   "flow-eval against the known motion (saved as lk_gt.flo); and Farneback flow\n"
                   "and flow-eval for each ground-truth pair flow_<name>0.png, flow_<name>1.png,\n"
                   "flow_<name>_gt.flo of the data directory. A flow-eval line is what\n"
                   "'clv flow-eval EST GT' prints for its two files.\n"
                   "The results go into DIR (default ./clv-demo, created if missing), all at\n"
                   "the end: a run that fails writes none of them.\n"
                   "Each line gives the time of a second run (the first builds the kernels):\n"
                   "wall = enqueue to finish, device = kernel execution from profiling.\n"
                   "The images are found in CLV_DATA_DIR, else in the installed\n"
                   "<datadir>/clvision/demo (found relative to the executable first), else\n"
                   "in tests/data next to the executable or the current directory.\n",
                   demo_images[0], demo_images[1], demo_images[0], demo_images[0], DEMO_HDR,
                   demo_images[0], demo_images[1], DEMO_PREV, DEMO_NEXT, DEMO_NEXT);
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
    /* So do the flow pair. */
    const char *const pair[2] = {DEMO_PREV, DEMO_NEXT};
    for (int i = 0; i < 2; i++) {
        char pair_path[DEMO_PATH_MAX];
        snprintf(pair_path, sizeof pair_path, "%.4000s/%s", data_dir, pair[i]);
        if (access(pair_path, R_OK) != 0) {
            cli_error(cmd, "cannot read the bundled frame '%s': %s", pair_path, strerror(errno));
            return CLI_EXIT_RUNTIME;
        }
    }
    /* All or nothing: the results are staged next to their final names and
     * renamed into place at the end; a failure removes them, and DIR when
     * this run created it. */
    char *first_created = NULL;
    rc = cli_make_dirs(cmd, out_dir, &first_created);
    if (rc)
        return rc;

    cli_outputs outs;
    cli_outputs_init(&outs);
    demo_state st = {cmd, NULL, out_dir, &outs};
    rc = cli_context(cmd, g, 1, &st.ctx);
    for (size_t i = 0; i < N_IMAGES && !rc; i++)
        rc = demo_image(&st, data_dir, demo_images[i]);
    if (!rc)
        rc = demo_edge(&st, data_dir);
    if (!rc)
        rc = demo_flow(&st, data_dir);
    if (!rc)
        rc = cli_outputs_commit(cmd, &outs);
    cli_outputs_free(&outs);
    cli_context_release(g, st.ctx);
    if (rc)
        cli_remove_created_dirs(out_dir, first_created);
    free(first_created);
    return rc;
}
