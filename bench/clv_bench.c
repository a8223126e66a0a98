/* clv-bench — time clvision operations through the public API.
 *
 * For every case (size x op x pixel type x channel count) the program makes
 * the images once, uploads pseudo-random pixels, runs the op a few times to
 * warm up (this includes building the kernels), then times N repetitions.
 * Wall time brackets op + clv_finish() with CLOCK_MONOTONIC on a context
 * without profiling (as an application's and OpenCV's OpenCL queue run);
 * device time is clv_last_op_device_time() from a second context whose queue
 * profiles (each context warms up and times its own N). One line per case:
 *
 *   op=box31 size=1920x1080 type=u8 cn=3 wall_ms_median=... wall_ms_min=...
 *       dev_ms_median=... dev_ms_min=... reps=20
 *
 * preceded by '#' comment lines naming the device. Any failure prints the
 * status and clv_last_error() to stderr and exits 1: no case is skipped.
 *
 * --mode chain measures the host cost of one operation when many are queued:
 * N calls of the op back to back (same images, made before the timing), no
 * finish between them, one clv_finish() at the end, on a context without
 * profiling. host_us_per_op is (last enqueue returned - before the first) / N,
 * wall_us_per_op includes the finish. The same chain then runs on a profiling
 * context (prof_*); see run_chain for where dev_us_per_op comes from.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clvision/clvision.h"
#include "clvision/cl_interop.h"

#define MAX_LIST 16

typedef enum bench_op {
    OP_TRANSPOSE,
    OP_RESIZE,    /* down to half of each dimension */
    OP_RESIZE_UP, /* up by 1.5x */
    OP_BOX5,
    OP_BOX31,
    OP_GAUSSIAN,  /* sigma 2, ksize 0 -> 13x13 */
    OP_BILATERAL, /* brute force, sigma_space 3 (19x19), sigma_range 25 (0.1 for f32) */
    OP_BILATERAL16, /* brute force, sigma_space 16 (97x97): only when asked for */
    OP_GRID16,    /* bilateral grid, s_s 16, s_r 25 (0.1 for f32), blur 1 */
    OP_TONEMAP,   /* local tone mapping, f32 RGB in (HDR data), u8 RGB out */
    OP_FARNEBACK, /* dense flow, u8 gray pair, OpenCV's common call (0.5, 3, 15, 3, 5, 1.2) */
    OP_PYRAMID,   /* 4-level pyrDown pyramid of a u8 gray image */
    OP_CORNERS,   /* Shi-Tomasi, 2000 corners, quality 0.01, distance 10 */
    OP_LK,        /* pyramidal LK of 2000 corners, 21x21, 3 levels, both pyramids included */
    OP_COUNT,
    OP_DESCRIBED = 100 /* + k: cfg->described[k], any operation by its descriptor */
} bench_op;

/* Ops run when --ops is not given (bilateral16 takes seconds per call on a CPU). */
#define DEFAULT_OP_MASK (~(1u << OP_BILATERAL16))

static const char *const op_names[OP_COUNT] = {
    "transpose", "resize", "resize_up", "box5", "box31", "gaussian",
    "bilateral", "bilateral16", "grid16", "tonemap", "farneback", "pyramid", "corners", "lk",
};

/* The public call behind each op, for error messages. */
static const char *const op_calls[OP_COUNT] = {
    "clv_transpose", "clv_resize", "clv_resize", "clv_box_filter(5x5)",
    "clv_box_filter(31x31)", "clv_gaussian_blur(sigma 2)", "clv_bilateral(3, 25)",
    "clv_bilateral(16, 25)", "clv_bilateral_grid(16, 25)", "clv_tonemap_local",
    "clv_farneback", "clv_pyramid_build", "clv_corners_shi_tomasi", "clv_lk_track",
};

typedef struct bench_size {
    int w, h;
} bench_size;

typedef struct bench_config {
    const char *device;
    int reps;
    int warmup;
    int chain;     /* --mode chain */
    int chain_n;   /* --chain-length: ops per chain */
    int profiled_wall; /* --wall-context profiled: normal mode's wall on the profiling
                        * context, the method before 2026-12-07 */
    int reps_given;
    bench_op ops[MAX_LIST];
    int n_ops;
    bench_size sizes[MAX_LIST];
    int n_sizes;
    clv_pixel_type types[MAX_LIST];
    int n_types;
    int channels[MAX_LIST];
    int n_channels;
    int combos_given; /* --types or --channels given: use their product */
    /* --ops NAME[:param=value...] of a described operation (clvision/op.h)
     * other than the fixed ops above: run through clv_op_call, so a new
     * operation is benchmarked with no code here. */
    struct described {
        const clv_op_desc *op;
        const char *spec; /* as given, for the label */
        clv_arg args[32];
        int nargs;
    } described[MAX_LIST];
    int n_described;
} bench_config;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: clv-bench [--device SPEC] [--reps N] [--warmup N]\n"
            "                 [--mode normal|chain] [--chain-length N]\n"
            "                 [--wall-context unprofiled|profiled]\n"
            "                 [--ops transpose,resize,resize_up,box5,box31,gaussian,\n"
            "                        bilateral,bilateral16,grid16,tonemap,farneback,\n"
            "                        pyramid,corners,lk,\n"
            "                        OPERATION[:param=value...]]\n"
            "                 [--sizes 1280x720,1920x1080,3840x2160]\n"
            "                 [--types u8,u16,f32] [--channels 1,3,4] [--list-devices]\n"
            "\n"
            "Defaults: every op but bilateral16, all three sizes, u8 with 1 and 3 channels plus f32\n"
            "with 1 channel, --warmup 3, --reps 20. Giving --types or --channels runs\n"
            "their full product (missing one: u8,f32 or 1,3).\n"
            "resize halves each dimension, resize_up scales by 1.5; box5/box31 are\n"
            "5x5/31x31 mean filters, gaussian is sigma 2 (13x13); all reflect101.\n"
            "bilateral is sigma_space 3 (19x19 window), bilateral16 sigma_space 16\n"
            "(97x97, not run by default), grid16 the bilateral grid with s_s 16; their\n"
            "sigma_range is 25 (0.1 for f32). tonemap runs on f32 RGB HDR data only;\n"
            "farneback on a u8 gray pair with OpenCV's common parameters; pyramid is 4\n"
            "pyrDown levels, corners 2000 Shi-Tomasi corners, lk tracks 2000 corners\n"
            "(21x21, 3 levels) including both pyramid builds.\n"
            "Any other described operation (clv help lists them; its descriptor name or\n"
            "command name) runs through clv_op_call with the numbers given and defaults\n"
            "for the rest: --ops gaussian_blur:sigma_x=3:border=wrap.\n"
            "--mode chain: N (--chain-length, default 200) calls of each op back to\n"
            "back with one clv_finish at the end, profiling off: host and wall time per\n"
            "op, then the same on a profiling context. Ops transpose, resize, resize_up,\n"
            "box5, box31, gaussian, bilateral; defaults there: resize,transpose,box5,\n"
            "gaussian at 1920x1080, u8 with 1 channel, --reps 7 (chains). First, per\n"
            "size, op=raw_enqueue: a plain kernel with resize's 8 arguments enqueued\n"
            "straight on the queue, the driver's floor for the host figures; per size,\n"
            "type and channels, op=raw_copy: a plain copy of the image's bytes, the\n"
            "memory floor under the device figures. Before all, op=raw_empty: a kernel\n"
            "that does nothing, one work-item per compute unit, run alone (enqueue to\n"
            "clFinish): the wall and device floor of any one-launch op.\n"
            "Normal mode times wall (op + clv_finish) on a context without profiling\n"
            "and device time on a second, profiling one; --wall-context profiled times\n"
            "both on the profiling context (the method before 2026-12-07).\n"
            "SPEC: \"gpu\", \"cpu\", \"P:D\" or a name substring (as CLV_DEVICE).\n");
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("clv-bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static int parse_int(const char *s, const char *what, int min, int max)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
        die("%s: expected an integer in %d..%d, got '%s'", what, min, max, s);
    return (int)v;
}

/* Split a comma-separated list in place into items (empty entries are dropped). */
static int split_list(char *s, char **items, int max, const char *what)
{
    int n = 0;
    for (char *tok = strtok(s, ","); tok != NULL; tok = strtok(NULL, ",")) {
        if (n == max)
            die("%s: at most %d entries", what, max);
        items[n++] = tok;
    }
    if (n == 0)
        die("%s: empty list", what);
    return n;
}

/* "gaussian_blur:sigma_x=3:border=wrap": a described operation and its
 * numbers (the rest take their defaults). */
static void parse_described(bench_config *cfg, char *item, bench_op *out)
{
    char *spec = strdup(item); /* kept for the label; freed at exit */
    if (!spec)
        die("out of memory");
    char *name = strtok(item, ":");
    const clv_op_desc *op = name ? clv_op_find(name) : NULL;
    if (!op)
        die("--ops: unknown op '%s' (neither a bench op nor a described operation)", spec);
    struct described *d = &cfg->described[cfg->n_described];
    d->op = op;
    d->spec = spec;
    for (char *kv = strtok(NULL, ":"); kv; kv = strtok(NULL, ":")) {
        char *eq = strchr(kv, '=');
        if (!eq || d->nargs == 32)
            die("--ops %s: expected param=value, got '%s'", spec, kv);
        *eq = '\0';
        const int i = clv_op_param_index(op, kv);
        if (i < 0)
            die("--ops %s: %s has no parameter '%s'", spec, op->name, kv);
        const clv_param_desc *p = &op->params[i];
        clv_arg *a = &d->args[d->nargs++];
        a->name = p->name;
        a->type = p->type;
        char *end = NULL;
        if (p->type == CLV_PARAM_ENUM && clv_param_enum_value(p, eq + 1, &a->v.i) == CLV_OK)
            continue;
        if (p->type == CLV_PARAM_DOUBLE) {
            a->v.d = strtod(eq + 1, &end);
        } else {
            a->type = CLV_PARAM_INT;
            a->v.i = (int)strtol(eq + 1, &end, 10);
        }
        if (!end || end == eq + 1 || *end)
            die("--ops %s: bad value '%s' for %s", spec, eq + 1, kv);
    }
    *out = (bench_op)(OP_DESCRIBED + cfg->n_described++);
}

static void parse_ops(bench_config *cfg, char *arg)
{
    char *items[MAX_LIST];
    int n = split_list(arg, items, MAX_LIST, "--ops");
    for (int i = 0; i < n; i++) {
        int found = -1;
        for (int k = 0; k < OP_COUNT; k++)
            if (strcmp(items[i], op_names[k]) == 0)
                found = k;
        if (found >= 0)
            cfg->ops[i] = (bench_op)found;
        else
            parse_described(cfg, items[i], &cfg->ops[i]);
    }
    cfg->n_ops = n;
}

static void parse_sizes(bench_config *cfg, char *arg)
{
    char *items[MAX_LIST];
    int n = split_list(arg, items, MAX_LIST, "--sizes");
    for (int i = 0; i < n; i++) {
        char *x = strchr(items[i], 'x');
        if (x == NULL)
            die("--sizes: expected WxH, got '%s'", items[i]);
        *x = '\0';
        cfg->sizes[i].w = parse_int(items[i], "--sizes width", 1, CLV_MAX_DIMENSION);
        cfg->sizes[i].h = parse_int(x + 1, "--sizes height", 1, CLV_MAX_DIMENSION);
    }
    cfg->n_sizes = n;
}

static void parse_types(bench_config *cfg, char *arg)
{
    char *items[MAX_LIST];
    int n = split_list(arg, items, MAX_LIST, "--types");
    for (int i = 0; i < n; i++) {
        if (strcmp(items[i], "u8") == 0)
            cfg->types[i] = CLV_U8;
        else if (strcmp(items[i], "u16") == 0)
            cfg->types[i] = CLV_U16;
        else if (strcmp(items[i], "f32") == 0)
            cfg->types[i] = CLV_F32;
        else
            die("--types: unknown type '%s' (u8, u16, f32)", items[i]);
    }
    cfg->n_types = n;
}

static void parse_channels(bench_config *cfg, char *arg)
{
    char *items[MAX_LIST];
    int n = split_list(arg, items, MAX_LIST, "--channels");
    for (int i = 0; i < n; i++) {
        cfg->channels[i] = parse_int(items[i], "--channels", 1, 4);
        if (cfg->channels[i] == 2)
            die("--channels: 1, 3 or 4");
    }
    cfg->n_channels = n;
}

static double now_ms(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        die("clock_gettime(CLOCK_MONOTONIC) failed");
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v in place. */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Deterministic pixels: xorshift64*, so runs are repeatable. */
static void fill_random(void *buf, size_t count, clv_pixel_type type)
{
    uint64_t s = 0x9E3779B97F4A7C15u;
    for (size_t i = 0; i < count; i++) {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        uint64_t r = s * 0x2545F4914F6CDD1Du;
        switch (type) {
        case CLV_U8:
            ((uint8_t *)buf)[i] = (uint8_t)(r >> 56);
            break;
        case CLV_U16:
            ((uint16_t *)buf)[i] = (uint16_t)(r >> 48);
            break;
        case CLV_F32:
            ((float *)buf)[i] = (float)(r >> 40) * (1.0f / 16777216.0f);
            break;
        }
    }
}

static void dst_size(bench_op op, int w, int h, int *dw, int *dh)
{
    switch (op) {
    case OP_TRANSPOSE:
        *dw = h;
        *dh = w;
        break;
    case OP_RESIZE:
        *dw = w / 2 > 0 ? w / 2 : 1;
        *dh = h / 2 > 0 ? h / 2 : 1;
        break;
    case OP_RESIZE_UP:
        *dw = (int)((double)w * 1.5);
        *dh = (int)((double)h * 1.5);
        break;
    default:
        *dw = w;
        *dh = h;
        break;
    }
}

/* Second input of two-frame ops (the first shifted by a couple of pixels). */
static clv_image *second_frame;
/* Flow-op state made once per case: pyramids, corner buffers, points. */
static clv_pyramid *pyr_a, *pyr_b;
static clv_corner *corner_buf;
static clv_point *pts_in, *pts_out;
static uint8_t *pt_status;
static float *pt_err;
static int n_points;

static clv_status run_flow_op(clv_context *ctx, bench_op op, const clv_image *src)
{
    clv_status st;
    int count = 0;
    switch (op) {
    case OP_PYRAMID:
        return clv_pyramid_build(ctx, pyr_a, src);
    case OP_CORNERS: {
        clv_corner_params p = clv_corner_params_default();
        p.max_corners = 2000;
        return clv_corners_shi_tomasi(ctx, src, &p, corner_buf, &count);
    }
    case OP_LK:
        st = clv_pyramid_build(ctx, pyr_a, src);
        if (st == CLV_OK)
            st = clv_pyramid_build(ctx, pyr_b, second_frame);
        if (st == CLV_OK)
            st = clv_lk_track(ctx, pyr_a, pyr_b, pts_in, pts_out, pt_status, pt_err, n_points,
                              NULL);
        return st;
    default:
        return CLV_ERROR_INVALID_ARGUMENT;
    }
}

static clv_status run_op(clv_context *ctx, bench_op op, const clv_image *src, clv_image *dst)
{
    switch (op) {
    case OP_TRANSPOSE:
        return clv_transpose(ctx, src, dst);
    case OP_RESIZE:
    case OP_RESIZE_UP:
        return clv_resize(ctx, src, dst);
    case OP_BOX5:
        return clv_box_filter(ctx, src, dst, 5, 5, CLV_BORDER_REFLECT101);
    case OP_BOX31:
        return clv_box_filter(ctx, src, dst, 31, 31, CLV_BORDER_REFLECT101);
    case OP_GAUSSIAN:
        return clv_gaussian_blur(ctx, src, dst, 2.0, 0.0, 0, 0, CLV_BORDER_REFLECT101);
    case OP_BILATERAL:
    case OP_BILATERAL16: {
        const double sr = clv_image_type(src) == CLV_F32 ? 0.1 : 25.0;
        return clv_bilateral(ctx, src, dst, op == OP_BILATERAL ? 3.0 : 16.0, sr, 0,
                             CLV_BORDER_REFLECT101);
    }
    case OP_GRID16: {
        clv_grid_params p = clv_grid_params_default();
        p.s_s = 16.0;
        p.s_r = clv_image_type(src) == CLV_F32 ? 0.1 : 25.0;
        return clv_bilateral_grid(ctx, src, dst, &p);
    }
    case OP_TONEMAP:
        return clv_tonemap_local(ctx, src, dst, NULL);
    case OP_FARNEBACK:
        return clv_farneback(ctx, src, second_frame, dst, NULL);
    case OP_PYRAMID:
    case OP_CORNERS:
    case OP_LK:
        return run_flow_op(ctx, op, src);
    default:
        return CLV_ERROR_INVALID_ARGUMENT;
    }
}

/* Reports a failed call with the context's detail; returns the status. */
static clv_status report(clv_context *ctx, clv_status st, const char *what, const char *label)
{
    const char *detail = ctx ? clv_last_error(ctx) : "";
    fprintf(stderr, "clv-bench: %s: %s failed: %s (%d)%s%s\n", label, what,
            clv_status_string(st), (int)st, detail[0] ? ": " : "", detail);
    return st;
}

#define BENCH_CHECK(call, what)                                   \
    do {                                                          \
        st = (call);                                              \
        if (st != CLV_OK) {                                       \
            report(ctx, st, (what), label);                       \
            goto out;                                             \
        }                                                         \
    } while (0)

/* The result line of one case (sorts wall and dev: wall[0] is then the minimum). */
static void print_case(const char *label, double *wall, double *dev, int reps)
{
    const double wall_med = median(wall, reps), dev_med = median(dev, reps);
    printf("%s wall_ms_median=%.4f wall_ms_min=%.4f dev_ms_median=%.4f dev_ms_min=%.4f reps=%d\n",
           label, wall_med, wall[0], dev_med, dev[0], reps);
    fflush(stdout);
}

/* Times one case of a described operation: src (the first input image) of
 * the case's size, type and channels; other input images of the same size
 * in the first type and channel count they take; outputs shaped by
 * clv_op_output_shape (a FREE_SIZE output: src's size). */
static clv_status run_described(clv_context *ctx, const bench_config *cfg,
                                const struct described *d, bench_size size,
                                clv_pixel_type type, int cn, double *wall, double *dev,
                                char *label, size_t label_size)
{
    const clv_op_desc *op = d->op;
    clv_status st = CLV_OK;
    clv_image *img[32] = {NULL};
    clv_arg args[64];
    void *host = NULL;
    int nargs = 0, first_input = 1;
    snprintf(label, label_size, "op=%s size=%dx%d type=%s cn=%d", d->spec, size.w, size.h,
             clv_pixel_type_name(type), cn);
    if (op->nparams > 32) { /* img[] and args[] hold 32 parameters and 32 given numbers */
        fprintf(stderr, "clv-bench: %s: %d parameters; clv-bench handles at most 32\n", label,
                op->nparams);
        st = CLV_ERROR_UNSUPPORTED;
        goto out;
    }
    for (int i = 0; i < d->nargs; i++)
        args[nargs++] = d->args[i];
    for (int pass = 0; pass < 2; pass++) /* inputs, then outputs (their shapes need them) */
        for (int i = 0; i < op->nparams; i++) {
            const clv_param_desc *p = &op->params[i];
            if (p->type != CLV_PARAM_IMAGE || (p->flags & CLV_PARAM_OPTIONAL) ||
                ((p->flags & CLV_PARAM_OUTPUT) != 0) != pass)
                continue;
            int w = size.w, h = size.h, c = cn;
            clv_pixel_type t = type;
            /* the case's type and channels where the input takes them,
             * else the first it takes (a flow field: f32 x 2) */
            const unsigned tm = p->types ? p->types : CLV_TYPES_ALL;
            const unsigned cm = p->channels ? p->channels : CLV_CHANNELS_1_4;
            if (!pass && (!first_input || !(tm & CLV_TYPES(t))))
                for (t = CLV_U8; !(tm & CLV_TYPES(t)) && t < CLV_F32; t++)
                    ;
            if (!pass && (!first_input || !(cm & CLV_CHANNELS(c))))
                for (c = 1; !(cm & CLV_CHANNELS(c)) && c < 4; c++)
                    ;
            if (pass) {
                char msg[256];
                st = clv_op_output_shape(op, args, nargs, i, &w, &h, &c, &t, msg, sizeof msg);
                if (st != CLV_OK) {
                    fprintf(stderr, "clv-bench: %s: %s\n", label, msg);
                    goto out;
                }
                if (p->flags & CLV_PARAM_FREE_SIZE) {
                    w = size.w;
                    h = size.h;
                }
            }
            BENCH_CHECK(clv_image_create(ctx, w, h, c, t, &img[i]), "clv_image_create");
            if (!pass) {
                const size_t count = (size_t)w * (size_t)h * (size_t)c;
                free(host);
                host = malloc(count * clv_pixel_type_size(t));
                if (!host) {
                    st = report(ctx, CLV_ERROR_OUT_OF_MEMORY, "host allocation", label);
                    goto out;
                }
                fill_random(host, count, t);
                BENCH_CHECK(clv_image_upload(img[i], host, 0), "clv_image_upload");
                if (first_input) /* the label says what ran */
                    snprintf(label, label_size, "op=%s size=%dx%d type=%s cn=%d", d->spec,
                             size.w, size.h, clv_pixel_type_name(t), c);
                first_input = 0;
            }
            args[nargs++] = CLV_ARG_IMAGE(p->name, img[i]);
        }
    BENCH_CHECK(clv_finish(ctx), "clv_finish");
    for (int i = 0; i < cfg->warmup; i++) {
        BENCH_CHECK(clv_op_call(ctx, op, args, nargs), op->name);
        BENCH_CHECK(clv_finish(ctx), "clv_finish");
    }
    for (int i = 0; i < cfg->reps; i++) {
        double t0 = now_ms();
        BENCH_CHECK(clv_op_call(ctx, op, args, nargs), op->name);
        BENCH_CHECK(clv_finish(ctx), "clv_finish");
        if (wall)
            wall[i] = now_ms() - t0;
        if (dev)
            BENCH_CHECK(clv_last_op_device_time(ctx, &dev[i]), "clv_last_op_device_time");
    }
out:
    for (int i = 0; i < 32; i++)
        clv_image_release(img[i]);
    free(host);
    return st;
}

/* Times one case on ctx into wall (op + clv_finish, ms) and dev (device
 * ms: ctx must profile), either NULL to leave it out; label gets the case's
 * result-line label. */
static clv_status run_case_on(clv_context *ctx, const bench_config *cfg, bench_op op,
                              bench_size size, clv_pixel_type type, int cn, double *wall,
                              double *dev, char *label, size_t label_size)
{
    if (op >= OP_DESCRIBED)
        return run_described(ctx, cfg, &cfg->described[op - OP_DESCRIBED], size, type, cn,
                             wall, dev, label, label_size);
    clv_status st = CLV_OK;
    clv_image *src = NULL, *dst = NULL;
    void *host = NULL;
    int dw, dh;

    snprintf(label, label_size, "op=%s size=%dx%d type=%s cn=%d", op_names[op], size.w,
             size.h, clv_pixel_type_name(type), cn);
    dst_size(op, size.w, size.h, &dw, &dh);

    size_t count = (size_t)size.w * (size_t)size.h * (size_t)cn;
    host = malloc(count * clv_pixel_type_size(type));
    if (host == NULL) {
        st = report(ctx, CLV_ERROR_OUT_OF_MEMORY, "host allocation", label);
        goto out;
    }
    fill_random(host, count, type);
    if (op == OP_TONEMAP) {
        if (type != CLV_F32 || cn < 3) {
            st = report(ctx, CLV_ERROR_INVALID_ARGUMENT, "tonemap needs --types f32 --channels 3",
                        label);
            goto out;
        }
        /* HDR-like data: 2^(-10 .. +10) */
        float *f = host;
        for (size_t i = 0; i < count; i++)
            f[i] = exp2f(20.0f * (f[i] - floorf(f[i])) - 10.0f);
    }

    const int two_frame = op == OP_FARNEBACK || op == OP_LK;
    const int flow_family = two_frame || op == OP_PYRAMID || op == OP_CORNERS;
    if (flow_family) {
        if (type != CLV_U8 || cn != 1) {
            st = report(ctx, CLV_ERROR_INVALID_ARGUMENT, "flow ops need --types u8 --channels 1",
                        label);
            goto out;
        }
        /* a smooth random texture (box-averaged noise) and a copy shifted by
         * (2, 1) pixels, so the flow has something to find */
        uint8_t *g = host;
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 1; i + 1 < count; i++)
                g[i] = (uint8_t)((g[i - 1] + 2 * g[i] + g[i + 1]) / 4);
        uint8_t *shifted = malloc(count);
        if (!shifted) {
            st = report(ctx, CLV_ERROR_OUT_OF_MEMORY, "host allocation", label);
            goto out;
        }
        for (int y = 0; y < size.h; y++)
            for (int x = 0; x < size.w; x++) {
                int sx = x - 2 < 0 ? 0 : x - 2, sy = y - 1 < 0 ? 0 : y - 1;
                shifted[(size_t)y * size.w + x] = g[(size_t)sy * size.w + sx];
            }
        st = clv_image_create(ctx, size.w, size.h, 1, CLV_U8, &second_frame);
        if (st == CLV_OK)
            st = clv_image_upload(second_frame, shifted, 0);
        free(shifted);
        if (st != CLV_OK) {
            report(ctx, st, "second frame", label);
            goto out;
        }
    }

    BENCH_CHECK(clv_image_create(ctx, size.w, size.h, cn, type, &src), "clv_image_create(src)");
    if (flow_family) {
        BENCH_CHECK(clv_pyramid_create(ctx, size.w, size.h, 1, CLV_U8, op == OP_PYRAMID ? 4 : 3,
                                       0.5, &pyr_a),
                    "clv_pyramid_create");
        BENCH_CHECK(clv_pyramid_create(ctx, size.w, size.h, 1, CLV_U8, 3, 0.5, &pyr_b),
                    "clv_pyramid_create");
        corner_buf = calloc(2000, sizeof *corner_buf);
        pts_in = calloc(2000, sizeof *pts_in);
        pts_out = calloc(2000, sizeof *pts_out);
        pt_status = calloc(2000, 1);
        pt_err = calloc(2000, sizeof *pt_err);
        if (!corner_buf || !pts_in || !pts_out || !pt_status || !pt_err) {
            st = report(ctx, CLV_ERROR_OUT_OF_MEMORY, "host allocation", label);
            goto out;
        }
    }
    if (op == OP_FARNEBACK)
        BENCH_CHECK(clv_image_create(ctx, dw, dh, 2, CLV_F32, &dst), "clv_image_create(dst)");
    else if (op == OP_TONEMAP)
        BENCH_CHECK(clv_image_create(ctx, dw, dh, 3, CLV_U8, &dst), "clv_image_create(dst)");
    else
        BENCH_CHECK(clv_image_create(ctx, dw, dh, cn, type, &dst), "clv_image_create(dst)");
    BENCH_CHECK(clv_image_upload(src, host, 0), "clv_image_upload");
    BENCH_CHECK(clv_finish(ctx), "clv_finish");
    if (op == OP_LK) {
        /* the points: 2000 Shi-Tomasi corners of the first frame */
        clv_corner_params cp = clv_corner_params_default();
        cp.max_corners = 2000;
        BENCH_CHECK(clv_corners_shi_tomasi(ctx, src, &cp, corner_buf, &n_points),
                    "clv_corners_shi_tomasi");
        for (int i = 0; i < n_points; i++) {
            pts_in[i].x = corner_buf[i].x;
            pts_in[i].y = corner_buf[i].y;
        }
    }

    for (int i = 0; i < cfg->warmup; i++) {
        BENCH_CHECK(run_op(ctx, op, src, dst), op_calls[op]);
        BENCH_CHECK(clv_finish(ctx), "clv_finish");
    }

    for (int i = 0; i < cfg->reps; i++) {
        double t0 = now_ms();
        BENCH_CHECK(run_op(ctx, op, src, dst), op_calls[op]);
        BENCH_CHECK(clv_finish(ctx), "clv_finish");
        if (wall)
            wall[i] = now_ms() - t0;
        if (dev)
            BENCH_CHECK(clv_last_op_device_time(ctx, &dev[i]), "clv_last_op_device_time");
    }

out:
    clv_image_release(second_frame);
    second_frame = NULL;
    clv_pyramid_release(pyr_a);
    clv_pyramid_release(pyr_b);
    pyr_a = pyr_b = NULL;
    free(corner_buf);
    free(pts_in);
    free(pts_out);
    free(pt_status);
    free(pt_err);
    corner_buf = NULL;
    pts_in = pts_out = NULL;
    pt_status = NULL;
    pt_err = NULL;
    n_points = 0;
    clv_image_release(dst);
    clv_image_release(src);
    free(host);
    return st;
}

/* One case's result line: wall time on ctx (no profiling, as an application
 * runs by default and as OpenCV's OpenCL queue does: on NVIDIA's driver a
 * profiling queue adds several microseconds of host time per launch), then
 * device time on pctx (profiling on), each after its own warm-up. */
static clv_status run_case(clv_context *ctx, clv_context *pctx, const bench_config *cfg,
                           bench_op op, bench_size size, clv_pixel_type type, int cn)
{
    clv_status st = CLV_ERROR_OUT_OF_MEMORY;
    double *wall = malloc(sizeof *wall * (size_t)cfg->reps);
    double *dev = malloc(sizeof *dev * (size_t)cfg->reps);
    char label[192] = "";
    if (!wall || !dev) {
        fprintf(stderr, "clv-bench: out of host memory\n");
        goto out;
    }
    if (cfg->profiled_wall) {
        st = run_case_on(pctx, cfg, op, size, type, cn, wall, dev, label, sizeof label);
    } else {
        st = run_case_on(ctx, cfg, op, size, type, cn, wall, NULL, label, sizeof label);
        if (st == CLV_OK)
            st = run_case_on(pctx, cfg, op, size, type, cn, NULL, dev, label, sizeof label);
    }
    if (st == CLV_OK)
        print_case(label, wall, dev, cfg->reps);
out:
    free(dev);
    free(wall);
    return st;
}

/* Ops chain mode runs: image to image, no host read-back, one output. */
static int chain_op_ok(bench_op op)
{
    return op == OP_TRANSPOSE || op == OP_RESIZE || op == OP_RESIZE_UP || op == OP_BOX5 ||
           op == OP_BOX31 || op == OP_GAUSSIAN || op == OP_BILATERAL;
}

/* Per repetition of the chain, microseconds per op. */
typedef struct chain_times {
    double *host;     /* before the first call .. the last call returned, / n */
    double *wall;     /* .. + clv_finish, / n */
    double *dev_last; /* profiled: device time of the chain's last op */
    double *dev;      /* profiled: device time of the op run alone (op + clv_finish) */
} chain_times;

/* One context's part of a chain case: makes src and dst on ctx, uploads
 * host, warms up (cfg->warmup single calls, then one untimed chain), times
 * cfg->reps chains of cfg->chain_n calls. With profiled, also reads the last
 * op's device time after each chain and times cfg->reps single calls. */
static clv_status chain_pass(clv_context *ctx, const bench_config *cfg, bench_op op,
                             bench_size size, clv_pixel_type type, int cn, const void *host,
                             const char *label, int profiled, chain_times *t)
{
    clv_status st = CLV_OK;
    clv_image *src = NULL, *dst = NULL;
    const int n = cfg->chain_n;
    int dw, dh;
    dst_size(op, size.w, size.h, &dw, &dh);

    BENCH_CHECK(clv_image_create(ctx, size.w, size.h, cn, type, &src), "clv_image_create(src)");
    BENCH_CHECK(clv_image_create(ctx, dw, dh, cn, type, &dst), "clv_image_create(dst)");
    BENCH_CHECK(clv_image_upload(src, host, 0), "clv_image_upload");
    BENCH_CHECK(clv_finish(ctx), "clv_finish");
    for (int i = 0; i < cfg->warmup; i++) {
        BENCH_CHECK(run_op(ctx, op, src, dst), op_calls[op]);
        BENCH_CHECK(clv_finish(ctx), "clv_finish");
    }
    if (!profiled) {
        /* the host figures must come from a queue without profiling events */
        double ms = 0.0;
        st = clv_last_op_device_time(ctx, &ms);
        if (st == CLV_OK) {
            fprintf(stderr, "clv-bench: %s: profiling is on in the context meant to be without "
                            "it\n", label);
            st = CLV_ERROR_INVALID_ARGUMENT;
            goto out;
        }
        if (st != CLV_ERROR_UNSUPPORTED) {
            report(ctx, st, "clv_last_op_device_time", label);
            goto out;
        }
        st = CLV_OK;
    }
    for (int r = -1; r < cfg->reps; r++) { /* r = -1: untimed */
        const double t0 = now_ms();
        for (int i = 0; i < n; i++)
            BENCH_CHECK(run_op(ctx, op, src, dst), op_calls[op]);
        const double t1 = now_ms();
        BENCH_CHECK(clv_finish(ctx), "clv_finish");
        const double t2 = now_ms();
        if (r < 0)
            continue;
        t->host[r] = (t1 - t0) * 1e3 / n;
        t->wall[r] = (t2 - t0) * 1e3 / n;
        if (profiled) {
            double ms = 0.0;
            BENCH_CHECK(clv_last_op_device_time(ctx, &ms), "clv_last_op_device_time");
            t->dev_last[r] = ms * 1e3;
        }
    }
    if (profiled)
        for (int r = 0; r < cfg->reps; r++) {
            double ms = 0.0;
            BENCH_CHECK(run_op(ctx, op, src, dst), op_calls[op]);
            BENCH_CHECK(clv_finish(ctx), "clv_finish");
            BENCH_CHECK(clv_last_op_device_time(ctx, &ms), "clv_last_op_device_time");
            t->dev[r] = ms * 1e3;
        }
out:
    clv_image_release(dst);
    clv_image_release(src);
    return st;
}

/* A chain case: the host-cost pass on ctx (profiling off), then the same on
 * pctx (profiling on). clv_last_op_device_time() keeps only the last op's
 * events, so the device time of every op of a chain cannot be had:
 * dev_us_per_op is the op run alone on pctx (as the normal mode measures it)
 * and dev_last_us the chain's last op. */
static clv_status run_chain(clv_context *ctx, clv_context *pctx, const bench_config *cfg,
                            bench_op op, bench_size size, clv_pixel_type type, int cn)
{
    clv_status st = CLV_OK;
    char label[160];
    snprintf(label, sizeof label, "mode=chain op=%s size=%dx%d type=%s cn=%d n=%d", op_names[op],
             size.w, size.h, clv_pixel_type_name(type), cn, cfg->chain_n);
    const size_t count = (size_t)size.w * (size_t)size.h * (size_t)cn;
    const size_t reps = (size_t)cfg->reps;
    void *host = malloc(count * clv_pixel_type_size(type));
    double *v = malloc(sizeof *v * reps * 6);
    if (!host || !v) {
        st = report(ctx, CLV_ERROR_OUT_OF_MEMORY, "host allocation", label);
        goto out;
    }
    fill_random(host, count, type);
    chain_times plain = {v, v + reps, NULL, NULL};
    chain_times prof = {v + 2 * reps, v + 3 * reps, v + 4 * reps, v + 5 * reps};
    st = chain_pass(ctx, cfg, op, size, type, cn, host, label, 0, &plain);
    if (st == CLV_OK)
        st = chain_pass(pctx, cfg, op, size, type, cn, host, label, 1, &prof);
    if (st != CLV_OK)
        goto out;
    const int n = cfg->reps;
    /* median() sorts: each array's minimum is then its first element */
    const double host_med = median(plain.host, n), wall_med = median(plain.wall, n);
    const double dev_med = median(prof.dev, n), dev_last_med = median(prof.dev_last, n);
    const double phost_med = median(prof.host, n), pwall_med = median(prof.wall, n);
    printf("%s host_us_per_op_median=%.2f host_us_per_op_min=%.2f wall_us_per_op_median=%.2f "
           "wall_us_per_op_min=%.2f dev_us_per_op_median=%.2f dev_last_us_median=%.2f "
           "prof_host_us_per_op_median=%.2f prof_wall_us_per_op_median=%.2f reps=%d\n",
           label, host_med, plain.host[0], wall_med, plain.wall[0], dev_med, dev_last_med,
           phost_med, pwall_med, n);
    fflush(stdout);
out:
    free(v);
    free(host);
    return st;
}

/* The driver's floor under chain mode: a kernel with resize's eight
 * arguments (a halving copy of u8 gray), enqueued straight on ctx's queue
 * with its arguments set each time, as clvision does, cfg->chain_n times
 * and one clFinish; host microseconds per enqueue. What clvision adds to a
 * call is its own host_us_per_op minus this. */
static const char raw_source[] =
    "__kernel void raw_half(__global const uchar *src, int sp, int sw, int sh,\n"
    "                       __global uchar *dst, int dp, int dw, int dh)\n"
    "{\n"
    "    const int x = get_global_id(0), y = get_global_id(1);\n"
    "    if (x < dw && y < dh && 2 * x < sw && 2 * y < sh)\n"
    "        dst[y * dp + x] = src[2 * y * sp + 2 * x];\n"
    "}\n";

#define RAW_CHECK(e, what)                                                                      \
    do {                                                                                        \
        const cl_int e_ = (e);                                                                  \
        if (e_ != CL_SUCCESS) {                                                                 \
            fprintf(stderr, "clv-bench: %s: %s failed (%d)\n", RAW_WHO, (what), (int)e_);       \
            ok = 0;                                                                             \
            goto out;                                                                           \
        }                                                                                       \
    } while (0)


/* *us: the device microseconds of ev, a finished command on a profiling
 * queue. */
static cl_int raw_event_us(cl_event ev, double *us)
{
    cl_ulong a = 0, b = 0;
    cl_int err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL);
    if (err == CL_SUCCESS)
        err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL);
    *us = (double)(b - a) * 1e-3;
    return err;
}

/* A raw floor kernel (no clvision code) built on a clvision context's own
 * OpenCL context, with its source and destination buffers. */
typedef struct raw_kit {
    cl_program prog;
    cl_kernel k;
    cl_mem src, dst;
} raw_kit;

static void raw_kit_release(raw_kit *r)
{
    if (r->dst)
        (void)clReleaseMemObject(r->dst);
    if (r->src)
        (void)clReleaseMemObject(r->src);
    if (r->k)
        (void)clReleaseKernel(r->k);
    if (r->prog)
        (void)clReleaseProgram(r->prog);
    memset(r, 0, sizeof *r);
}

/* Builds kernel `name` of source on ctx's device, buffers of src_bytes and
 * dst_bytes. Returns 0 (with a message naming who and the call) on failure,
 * *r then holding what was made, for raw_kit_release. */
static int raw_kit_make(clv_context *ctx, const char *who, const char *source, const char *name,
                        size_t src_bytes, size_t dst_bytes, raw_kit *r)
{
#define RAW_WHO who
    int ok = 1;
    cl_int err;
    cl_context cl = clv_context_cl_context(ctx);
    cl_device_id dev = clv_context_cl_device(ctx);
    memset(r, 0, sizeof *r);
    r->prog = clCreateProgramWithSource(cl, 1, &source, NULL, &err);
    RAW_CHECK(err, "clCreateProgramWithSource");
    RAW_CHECK(clBuildProgram(r->prog, 1, &dev, "", NULL, NULL), "clBuildProgram");
    r->k = clCreateKernel(r->prog, name, &err);
    RAW_CHECK(err, "clCreateKernel");
    r->src = clCreateBuffer(cl, CL_MEM_READ_WRITE, src_bytes, NULL, &err);
    RAW_CHECK(err, "clCreateBuffer(src)");
    r->dst = clCreateBuffer(cl, CL_MEM_READ_WRITE, dst_bytes, NULL, &err);
    RAW_CHECK(err, "clCreateBuffer(dst)");
out:
    return ok;
#undef RAW_WHO
}

static int run_raw_chain(clv_context *ctx, const bench_config *cfg, bench_size size)
{
#define RAW_WHO "raw_enqueue"
    int ok = 1;
    raw_kit r;
    double *host = malloc(sizeof *host * (size_t)cfg->reps);
    cl_command_queue q = clv_context_cl_queue(ctx);
    const int sw = size.w, sh = size.h, dw = sw / 2 > 0 ? sw / 2 : 1, dh = sh / 2 > 0 ? sh / 2 : 1;
    if (!host) {
        fprintf(stderr, "clv-bench: raw_enqueue: out of memory\n");
        return 0;
    }
    if (!raw_kit_make(ctx, RAW_WHO, raw_source, "raw_half", (size_t)sw * (size_t)sh,
                      (size_t)dw * (size_t)dh, &r)) {
        ok = 0;
        goto out;
    }
    cl_kernel k = r.k;
    cl_mem src = r.src, dst = r.dst;
    const size_t g[2] = {((size_t)dw + 15) / 16 * 16, ((size_t)dh + 15) / 16 * 16};
    for (int r = -1; r < cfg->reps; r++) { /* r = -1: untimed */
        const double t0 = now_ms();
        for (int i = 0; i < cfg->chain_n; i++) {
            RAW_CHECK(clSetKernelArg(k, 0, sizeof src, &src), "clSetKernelArg");
            RAW_CHECK(clSetKernelArg(k, 1, sizeof sw, &sw), "clSetKernelArg");
            RAW_CHECK(clSetKernelArg(k, 2, sizeof sw, &sw), "clSetKernelArg");
            RAW_CHECK(clSetKernelArg(k, 3, sizeof sh, &sh), "clSetKernelArg");
            RAW_CHECK(clSetKernelArg(k, 4, sizeof dst, &dst), "clSetKernelArg");
            RAW_CHECK(clSetKernelArg(k, 5, sizeof dw, &dw), "clSetKernelArg");
            RAW_CHECK(clSetKernelArg(k, 6, sizeof dw, &dw), "clSetKernelArg");
            RAW_CHECK(clSetKernelArg(k, 7, sizeof dh, &dh), "clSetKernelArg");
            RAW_CHECK(clEnqueueNDRangeKernel(q, k, 2, NULL, g, NULL, 0, NULL, NULL),
                      "clEnqueueNDRangeKernel");
        }
        const double t1 = now_ms();
        RAW_CHECK(clFinish(q), "clFinish");
        if (r >= 0)
            host[r] = (t1 - t0) * 1e3 / cfg->chain_n;
    }
    const double med = median(host, cfg->reps);
    printf("mode=chain op=raw_enqueue size=%dx%d type=u8 cn=1 n=%d host_us_per_op_median=%.2f "
           "host_us_per_op_min=%.2f reps=%d\n",
           sw, sh, cfg->chain_n, med, host[0], cfg->reps);
    fflush(stdout);
out:
    raw_kit_release(&r);
    free(host);
    return ok;
#undef RAW_WHO
}

/* The memory floor beside chain mode: a plain copy of an image's bytes
 * (uint4 per work-item, no clvision code), so a filter's time reads against
 * what merely reading and writing its bytes once costs on this device
 * through this driver, on pctx (profiling on). wall: cfg->chain_n copies
 * back to back and one clFinish, per copy (the device kept busy); dev:
 * single copies, from their events. */
static const char raw_copy_source[] =
    "__kernel void raw_copy(__global const uint4 *restrict s, __global uint4 *restrict d,\n"
    "                       uint n)\n"
    "{\n"
    "    const uint i = (uint)get_global_id(0);\n"
    "    if (i < n)\n"
    "        d[i] = s[i];\n"
    "}\n";

/* The launch floor beside chain mode: a kernel that does nothing, one
 * work-item per compute unit (each its own work-group), enqueued and
 * finished alone on pctx (profiling on) as a single op is: wall from before
 * the enqueue to clFinish's return, dev from its event. No op that is one
 * launch can take less wall time on this device through this driver. */
static const char raw_empty_source[] =
    "__kernel void raw_empty(__global uint *d, uint n)\n"
    "{\n"
    "    if ((uint)get_global_id(0) >= n)\n"
    "        d[0] = 0u;\n"
    "}\n";

static int run_raw_empty(clv_context *pctx, const bench_config *cfg)
{
#define RAW_WHO "raw_empty"
    int ok = 1;
    raw_kit r;
    cl_event ev = NULL;
    clv_device_info info;
    double *v = malloc(sizeof *v * 2 * (size_t)cfg->reps);
    cl_command_queue q = clv_context_cl_queue(pctx);
    if (!v) {
        fprintf(stderr, "clv-bench: raw_empty: out of memory\n");
        return 0;
    }
    memset(&r, 0, sizeof r);
    if (clv_context_device_info(pctx, &info) != CLV_OK) {
        fprintf(stderr, "clv-bench: raw_empty: %s\n", clv_last_error(pctx));
        ok = 0;
        goto out;
    }
    if (!raw_kit_make(pctx, RAW_WHO, raw_empty_source, "raw_empty", 16, 16, &r)) {
        ok = 0;
        goto out;
    }
    const size_t g = info.compute_units > 0 ? info.compute_units : 1, l = 1;
    const cl_uint n = (cl_uint)g;
    RAW_CHECK(clSetKernelArg(r.k, 0, sizeof r.dst, &r.dst), "clSetKernelArg");
    RAW_CHECK(clSetKernelArg(r.k, 1, sizeof n, &n), "clSetKernelArg");
    double *wall = v, *devt = v + cfg->reps;
    for (int i = -cfg->warmup; i < cfg->reps; i++) {
        const double t0 = now_ms();
        RAW_CHECK(clEnqueueNDRangeKernel(q, r.k, 1, NULL, &g, &l, 0, NULL, &ev),
                  "clEnqueueNDRangeKernel");
        RAW_CHECK(clFinish(q), "clFinish");
        const double t1 = now_ms();
        double us = 0.0;
        RAW_CHECK(raw_event_us(ev, &us), "clGetEventProfilingInfo");
        RAW_CHECK(clReleaseEvent(ev), "clReleaseEvent");
        ev = NULL;
        if (i >= 0) {
            wall[i] = (t1 - t0) * 1e3;
            devt[i] = us;
        }
    }
    const double wmed = median(wall, cfg->reps), dmed = median(devt, cfg->reps);
    printf("mode=chain op=raw_empty groups=%zu wall_us_median=%.2f wall_us_min=%.2f "
           "dev_us_median=%.2f reps=%d\n",
           g, wmed, wall[0], dmed, cfg->reps);
    fflush(stdout);
out:
    if (ev)
        (void)clReleaseEvent(ev);
    raw_kit_release(&r);
    free(v);
    return ok;
#undef RAW_WHO
}

static int run_raw_copy(clv_context *pctx, const bench_config *cfg, bench_size size,
                        clv_pixel_type type, int cn)
{
#define RAW_WHO "raw_copy"
    int ok = 1;
    raw_kit r;
    cl_event ev = NULL;
    double *v = malloc(sizeof *v * 2 * (size_t)cfg->reps);
    cl_command_queue q = clv_context_cl_queue(pctx);
    const size_t bytes = (size_t)size.w * (size_t)size.h * (size_t)cn * clv_pixel_type_size(type);
    const cl_uint n = (cl_uint)((bytes + 15) / 16);
    const size_t g = ((size_t)n + 255) / 256 * 256;
    if (!v) {
        fprintf(stderr, "clv-bench: raw_copy: out of memory\n");
        return 0;
    }
    if (!raw_kit_make(pctx, RAW_WHO, raw_copy_source, "raw_copy", (size_t)n * 16,
                      (size_t)n * 16, &r)) {
        ok = 0;
        goto out;
    }
    cl_kernel k = r.k;
    cl_mem src = r.src, dst = r.dst;
    RAW_CHECK(clSetKernelArg(k, 0, sizeof src, &src), "clSetKernelArg");
    RAW_CHECK(clSetKernelArg(k, 1, sizeof dst, &dst), "clSetKernelArg");
    RAW_CHECK(clSetKernelArg(k, 2, sizeof n, &n), "clSetKernelArg");
    double *wall = v, *devt = v + cfg->reps;
    for (int r = -1; r < cfg->reps; r++) { /* r = -1: untimed */
        const double t0 = now_ms();
        for (int i = 0; i < cfg->chain_n; i++)
            RAW_CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL),
                      "clEnqueueNDRangeKernel");
        RAW_CHECK(clFinish(q), "clFinish");
        if (r >= 0)
            wall[r] = (now_ms() - t0) * 1e3 / cfg->chain_n;
    }
    for (int r = -1; r < cfg->reps; r++) {
        RAW_CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, &ev),
                  "clEnqueueNDRangeKernel");
        RAW_CHECK(clWaitForEvents(1, &ev), "clWaitForEvents");
        double us = 0.0;
        RAW_CHECK(raw_event_us(ev, &us), "clGetEventProfilingInfo");
        RAW_CHECK(clReleaseEvent(ev), "clReleaseEvent");
        ev = NULL;
        if (r >= 0)
            devt[r] = us;
    }
    const double wmed = median(wall, cfg->reps), dmed = median(devt, cfg->reps);
    printf("mode=chain op=raw_copy size=%dx%d type=%s cn=%d bytes=%zu wall_us_per_op_median=%.2f "
           "dev_us_median=%.2f dev_gb_per_s=%.3f reps=%d\n",
           size.w, size.h, clv_pixel_type_name(type), cn, bytes, wmed, dmed,
           dmed > 0 ? 2.0 * (double)bytes / (dmed * 1e3) : 0.0, cfg->reps);
    fflush(stdout);
out:
    if (ev)
        (void)clReleaseEvent(ev);
    raw_kit_release(&r);
    free(v);
    return ok;
#undef RAW_WHO
}

/* Chain mode's context without profiling: opts->profiling is 0 and
 * CLV_PROFILE (which would switch it on) is unset around the creation. */
static clv_status create_unprofiled(clv_context_options opts, clv_context **out)
{
    opts.profiling = 0;
    const char *env = getenv("CLV_PROFILE");
    char *saved = env ? strdup(env) : NULL;
    if (env && !saved)
        return CLV_ERROR_OUT_OF_MEMORY;
    if (env && unsetenv("CLV_PROFILE") != 0) {
        free(saved);
        die("unsetenv(CLV_PROFILE) failed: %s", strerror(errno));
    }
    const clv_status st = clv_context_create(&opts, out);
    if (saved && setenv("CLV_PROFILE", saved, 1) != 0) {
        free(saved);
        die("setenv(CLV_PROFILE) failed: %s", strerror(errno));
    }
    free(saved);
    return st;
}

int main(int argc, char **argv)
{
    bench_config cfg = {.device = NULL, .reps = 20, .warmup = 3, .chain_n = 200};

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--list-devices") == 0) {
            char buf[8192];
            clv_status st = clv_list_devices(buf, sizeof buf);
            if (st != CLV_OK)
                die("clv_list_devices failed: %s (%d)", clv_status_string(st), (int)st);
            fputs(buf, stdout);
            return 0;
        }
        if (i + 1 >= argc) {
            usage(stderr);
            die("unknown option or missing value: '%s'", a);
        }
        char *v = argv[++i];
        if (strcmp(a, "--device") == 0)
            cfg.device = v;
        else if (strcmp(a, "--reps") == 0) {
            cfg.reps = parse_int(v, "--reps", 1, 1000000);
            cfg.reps_given = 1;
        } else if (strcmp(a, "--mode") == 0) {
            if (strcmp(v, "chain") == 0)
                cfg.chain = 1;
            else if (strcmp(v, "normal") != 0)
                die("--mode: normal or chain, got '%s'", v);
        } else if (strcmp(a, "--wall-context") == 0) {
            if (strcmp(v, "profiled") == 0)
                cfg.profiled_wall = 1;
            else if (strcmp(v, "unprofiled") != 0)
                die("--wall-context: unprofiled or profiled, got '%s'", v);
        } else if (strcmp(a, "--chain-length") == 0)
            cfg.chain_n = parse_int(v, "--chain-length", 1, 1000000);
        else if (strcmp(a, "--warmup") == 0)
            cfg.warmup = parse_int(v, "--warmup", 0, 1000000);
        else if (strcmp(a, "--ops") == 0)
            parse_ops(&cfg, v);
        else if (strcmp(a, "--sizes") == 0)
            parse_sizes(&cfg, v);
        else if (strcmp(a, "--types") == 0) {
            parse_types(&cfg, v);
            cfg.combos_given = 1;
        } else if (strcmp(a, "--channels") == 0) {
            parse_channels(&cfg, v);
            cfg.combos_given = 1;
        } else {
            usage(stderr);
            die("unknown option '%s'", a);
        }
    }

    if (cfg.chain) {
        /* the case (a halving resize of 1920x1080 u8 gray) and three more */
        static const bench_op chain_ops[] = {OP_RESIZE, OP_TRANSPOSE, OP_BOX5, OP_GAUSSIAN};
        if (cfg.n_ops == 0)
            for (size_t k = 0; k < sizeof chain_ops / sizeof chain_ops[0]; k++)
                cfg.ops[cfg.n_ops++] = chain_ops[k];
        for (int k = 0; k < cfg.n_ops; k++)
            if (cfg.ops[k] >= OP_DESCRIBED || !chain_op_ok(cfg.ops[k]))
                die("--mode chain: op '%s' is not one of transpose, resize, resize_up, box5, "
                    "box31, gaussian, bilateral",
                    cfg.ops[k] >= OP_DESCRIBED ? cfg.described[cfg.ops[k] - OP_DESCRIBED].spec
                                               : op_names[cfg.ops[k]]);
        if (cfg.n_sizes == 0)
            cfg.sizes[cfg.n_sizes++] = (bench_size){1920, 1080};
        if (!cfg.combos_given) {
            cfg.types[cfg.n_types++] = CLV_U8;
            cfg.channels[cfg.n_channels++] = 1;
            cfg.combos_given = 1;
        }
        if (!cfg.reps_given)
            cfg.reps = 7;
    }
    if (cfg.n_ops == 0)
        for (int k = 0; k < OP_COUNT; k++)
            if (DEFAULT_OP_MASK & (1u << k))
                cfg.ops[cfg.n_ops++] = (bench_op)k;
    if (cfg.n_sizes == 0) {
        static const bench_size defaults[] = {{1280, 720}, {1920, 1080}, {3840, 2160}};
        for (size_t k = 0; k < sizeof defaults / sizeof defaults[0]; k++)
            cfg.sizes[cfg.n_sizes++] = defaults[k];
    }

    /* (type, channels) pairs to run. */
    clv_pixel_type combo_type[MAX_LIST * MAX_LIST];
    int combo_cn[MAX_LIST * MAX_LIST];
    int n_combos = 0;
    if (!cfg.combos_given) {
        static const clv_pixel_type dt[] = {CLV_U8, CLV_U8, CLV_F32};
        static const int dc[] = {1, 3, 1};
        for (n_combos = 0; n_combos < 3; n_combos++) {
            combo_type[n_combos] = dt[n_combos];
            combo_cn[n_combos] = dc[n_combos];
        }
    } else {
        if (cfg.n_types == 0) {
            cfg.types[cfg.n_types++] = CLV_U8;
            cfg.types[cfg.n_types++] = CLV_F32;
        }
        if (cfg.n_channels == 0) {
            cfg.channels[cfg.n_channels++] = 1;
            cfg.channels[cfg.n_channels++] = 3;
        }
        for (int t = 0; t < cfg.n_types; t++)
            for (int c = 0; c < cfg.n_channels; c++) {
                combo_type[n_combos] = cfg.types[t];
                combo_cn[n_combos] = cfg.channels[c];
                n_combos++;
            }
    }

    clv_context_options opts = clv_context_options_default();
    opts.device = cfg.device;
    opts.profiling = 1;
    clv_context *ctx = NULL, *pctx = NULL; /* ctx unprofiled, pctx profiled */
    clv_status st = clv_context_create(&opts, &pctx);
    if (st == CLV_OK)
        st = create_unprofiled(opts, &ctx);
    if (st != CLV_OK) {
        const char *detail = clv_context_create_error();
        clv_context_release(pctx);
        die("clv_context_create failed: %s (%d)%s%s", clv_status_string(st), (int)st,
            detail[0] ? ": " : "", detail);
    }

    printf("# clv-bench clvision %s device=\"%s\" platform=\"%s\"\n", clv_version(),
           clv_context_device_name(ctx), clv_context_platform_name(ctx));
    if (cfg.chain) {
        printf("# mode=chain n=%d reps=%d (chains) warmup=%d single calls + 1 untimed chain; "
               "n calls back to back on the same images, one clv_finish at the end\n",
               cfg.chain_n, cfg.reps, cfg.warmup);
        printf("# host_us_per_op=(last call returned - before the first)/n, "
               "wall_us_per_op=(+ clv_finish)/n, context with profiling off (option 0, "
               "CLV_PROFILE unset for it); prof_*: the same chain on a profiling context\n");
        printf("# dev_us_per_op=the op run alone (op + clv_finish, profiling on, as mode "
               "normal): clv_last_op_device_time keeps only the last op's events, so the "
               "device time of every op of a chain cannot be had; dev_last_us=the last op of "
               "a profiled chain\n");
    } else {
        printf("# warmup=%d reps=%d wall=op+clv_finish (CLOCK_MONOTONIC, context with profiling "
               "off) dev=kernel profiling events (a second context, profiling on)\n",
               cfg.warmup, cfg.reps);
    }
    fflush(stdout);

    if (cfg.chain && !run_raw_empty(pctx, &cfg))
        st = CLV_ERROR_OPENCL;
    for (int s = 0; s < cfg.n_sizes && st == CLV_OK && cfg.chain; s++) {
        if (!run_raw_chain(ctx, &cfg, cfg.sizes[s]))
            st = CLV_ERROR_OPENCL;
        for (int c = 0; c < n_combos && st == CLV_OK; c++)
            if (!run_raw_copy(pctx, &cfg, cfg.sizes[s], combo_type[c], combo_cn[c]))
                st = CLV_ERROR_OPENCL;
    }
    for (int s = 0; s < cfg.n_sizes && st == CLV_OK && cfg.chain; s++)
        for (int o = 0; o < cfg.n_ops && st == CLV_OK; o++)
            for (int c = 0; c < n_combos && st == CLV_OK; c++)
                st = run_chain(ctx, pctx, &cfg, cfg.ops[o], cfg.sizes[s], combo_type[c],
                               combo_cn[c]);

    for (int s = 0; s < cfg.n_sizes && st == CLV_OK && !cfg.chain; s++)
        for (int o = 0; o < cfg.n_ops && st == CLV_OK; o++)
            for (int c = 0; c < n_combos && st == CLV_OK; c++) {
                /* tone mapping (f32 RGB) and flow (u8 gray) have one input
                 * format: run them once */
                const bench_op op = cfg.ops[o];
                const int fixed = op == OP_TONEMAP || op == OP_FARNEBACK || op == OP_PYRAMID ||
                                  op == OP_CORNERS || op == OP_LK;
                if (fixed && c > 0 && !cfg.combos_given)
                    break;
                if (cfg.ops[o] == OP_TONEMAP && !cfg.combos_given)
                    st = run_case(ctx, pctx, &cfg, OP_TONEMAP, cfg.sizes[s], CLV_F32, 3);
                else if (fixed && !cfg.combos_given)
                    st = run_case(ctx, pctx, &cfg, op, cfg.sizes[s], CLV_U8, 1);
                else
                    st = run_case(ctx, pctx, &cfg, cfg.ops[o], cfg.sizes[s], combo_type[c],
                                  combo_cn[c]);
            }

    clv_context_release(ctx);
    clv_context_release(pctx);
    return st == CLV_OK ? 0 : 1;
}
