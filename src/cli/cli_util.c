/* clv command-line tool: error lines, strict parsing, option scanning,
 * image files <-> device images, staged output files, timing. */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- errors ---------------------------------------------------------- */

const char *cli_one_line(const char *detail, char *buf, size_t size)
{
    size_t n = 0;
    size_t cap = size ? size - 1 : 0;
    int truncated = 0;

    if (size == 0)
        return buf;
    if (cap > CLI_DETAIL_MAX)
        cap = CLI_DETAIL_MAX;
    if (!detail)
        detail = "";
    /* Line by line: trim each, drop empty ones, join with "; ". */
    for (const char *line = detail; *line && !truncated;) {
        const char *end = line + strcspn(line, "\r\n");
        const char *next = end + strspn(end, "\r\n");
        while (line < end && isspace((unsigned char)*line))
            line++;
        while (end > line && isspace((unsigned char)end[-1]))
            end--;
        if (end > line && n > 0) {
            if (n + 2 > cap)
                truncated = 1;
            else {
                buf[n++] = ';';
                buf[n++] = ' ';
            }
        }
        for (const char *p = line; p < end && !truncated; p++) {
            if (n + 1 > cap) {
                truncated = 1;
                break;
            }
            unsigned char ch = (unsigned char)*p;
            buf[n++] = (ch < 0x20 || ch == 0x7f) ? ' ' : (char)ch;
        }
        line = next;
    }
    if (truncated && cap >= 3) {
        if (n > cap - 3)
            n = cap - 3;
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

/* Control characters become spaces: whatever was quoted, a line stays one. */
static void flatten(char *s)
{
    for (; *s; s++) {
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = ' ';
    }
}

/* 1 while a cli_status line is on the terminal without its newline. */
static int status_open;

void cli_status_end(void)
{
    if (!status_open)
        return;
    status_open = 0;
    fputc('\n', stderr);
    fflush(stderr);
}

void cli_status(const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    flatten(msg);
    fprintf(stderr, "\r%s\033[K", msg);
    fflush(stderr);
    status_open = 1;
}

/* This thread's cli_error_capture buffer, or NULL: messages go to stderr. */
static _Thread_local char *capture_buf;
static _Thread_local size_t capture_size;

void cli_error_capture(char *buf, size_t size)
{
    capture_buf = buf && size ? buf : NULL;
    capture_size = capture_buf ? size : 0;
    if (capture_buf)
        capture_buf[0] = '\0';
}

static void verror(const char *cmd, const char *fmt, va_list ap)
{
    char name[64];
    char msg[1024];
    snprintf(name, sizeof name, "%s", cmd ? cmd : "error");
    vsnprintf(msg, sizeof msg, fmt, ap);
    flatten(name);
    flatten(msg);
    if (capture_buf) {
        if (!capture_buf[0]) /* the first message says what went wrong */
            snprintf(capture_buf, capture_size, "clv: %s: %s", name, msg);
        return;
    }
    fflush(stdout);
    cli_status_end();
    fprintf(stderr, "clv: %s: %s\n", name, msg);
}

void cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(cmd, fmt, ap);
    va_end(ap);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (cmd)
        cli_error(cmd, "%s (see 'clv %s --help')", msg, cmd);
    else
        cli_error("usage", "%s (see 'clv --help')", msg);
    return CLI_EXIT_USAGE;
}

int cli_fail_status(const char *cmd, const clv_context *ctx, clv_status s, const char *what)
{
    char detail[CLI_DETAIL_MAX + 1];
    cli_one_line(ctx ? clv_last_error(ctx) : "", detail, sizeof detail);
    if (detail[0])
        cli_error(cmd, "%s: %s: %s", what, clv_status_string(s), detail);
    else
        cli_error(cmd, "%s: %s", what, clv_status_string(s));
    return CLI_EXIT_RUNTIME;
}

void cli_context_release(const cli_globals *g, clv_context *ctx)
{
    clv_context_stats st;
    if (ctx && g->stats && clv_context_get_stats(ctx, &st) == CLV_OK)
        fprintf(stderr,
                "stats: programs_built=%llu cache_hits=%llu cache_writes=%llu "
                "cache_rejected=%llu cache_write_failures=%llu\n",
                (unsigned long long)st.programs_built, (unsigned long long)st.cache_hits,
                (unsigned long long)st.cache_writes, (unsigned long long)st.cache_rejected,
                (unsigned long long)st.cache_write_failures);
    clv_context_release(ctx);
}

/* ---- strict parsing -------------------------------------------------- */

int cli_parse_int(const char *s, long min, long max, int *out)
{
    if (!s || !*s)
        return -1;
    const char *p = s;
    if (*p == '-' && min < 0)
        p++;
    if (!isdigit((unsigned char)*p))
        return -1;
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end != '\0' || v < min || v > max || v < INT_MIN || v > INT_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

int cli_parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return -1;
    /* Plain decimal only: strtod would also take blanks, hex, inf and nan. */
    const char *p = s;
    if (*p == '-' || *p == '+')
        p++;
    if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
        return -1;
    for (const char *q = p; *q; q++) {
        if (!isdigit((unsigned char)*q) && *q != '.' && *q != 'e' && *q != 'E' && *q != '-' &&
            *q != '+')
            return -1;
    }
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    const int range_error = errno == ERANGE;
    if (*end != '\0' || (errno && !range_error))
        return CLI_NUM_SYNTAX;
    /* ERANGE: overflow (+-HUGE_VAL), a subnormal result (taken: the value
     * is finite and non-zero) or non-zero digits rounded to 0. */
    if (!isfinite(v) || (range_error && fabs(v) == HUGE_VAL))
        return CLI_NUM_OVERFLOW;
    if (range_error && v == 0.0)
        return CLI_NUM_UNDERFLOW;
    *out = v;
    return 0;
}

const char *cli_number_problem(int code)
{
    switch (code) {
    case CLI_NUM_OVERFLOW: return "too large: beyond the largest double, about 1.8e308";
    case CLI_NUM_UNDERFLOW: return "too small: non-zero but rounds to 0 as a double";
    default: return "not a finite decimal number";
    }
}

cli_num_text cli_num(double v)
{
    cli_num_text t;
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(t.s, sizeof t.s, "%.*g", digits, v);
        if (!isfinite(v) || strtod(t.s, NULL) == v)
            break;
    }
    /* Whole numbers below 1e17 without an exponent: 20, not 2e+01. */
    const char *e = strchr(t.s, 'e');
    if (e) {
        long x = strtol(e + 1, NULL, 10);
        if (x >= 0 && x < 17)
            snprintf(t.s, sizeof t.s, "%.*g", (int)x + 1, v);
    }
    return t;
}

int cli_parse_size(const char *s, int min, int max, int *w, int *h)
{
    if (!s)
        return -1;
    const char *x = strchr(s, 'x');
    if (!x)
        x = strchr(s, 'X');
    if (!x || x == s)
        return -1;
    char left[32];
    size_t n = (size_t)(x - s);
    if (n >= sizeof left)
        return -1;
    memcpy(left, s, n);
    left[n] = '\0';
    int a, b;
    if (cli_parse_int(left, min, max, &a) != 0 || cli_parse_int(x + 1, min, max, &b) != 0)
        return -1;
    *w = a;
    *h = b;
    return 0;
}

/* ---- option scanning ------------------------------------------------- */

void cli_args_init(cli_args *a, const char *cmd, int argc, char **argv)
{
    a->argc = argc;
    a->argv = argv;
    a->i = 1; /* argv[0] is the command */
    a->only_positional = 0;
    a->cmd = cmd;
    a->inline_value = NULL;
    a->name[0] = '\0';
}

int cli_args_next(cli_args *a, const char **name, const char **positional)
{
    a->inline_value = NULL;
    while (a->i < a->argc) {
        const char *arg = a->argv[a->i++];
        if (!a->only_positional && strcmp(arg, "--") == 0) {
            a->only_positional = 1;
            continue;
        }
        if (!a->only_positional && arg[0] == '-' && arg[1] != '\0') {
            const char *eq = strchr(arg, '=');
            size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
            if (n >= sizeof a->name)
                n = sizeof a->name - 1;
            memcpy(a->name, arg, n);
            a->name[n] = '\0';
            a->inline_value = eq ? eq + 1 : NULL;
            *name = a->name;
            return 1;
        }
        *positional = arg;
        return 2;
    }
    return 0;
}

const char *cli_args_value(cli_args *a, const char *name)
{
    if (a->inline_value)
        return a->inline_value;
    if (a->i >= a->argc) {
        cli_usage_error(a->cmd, "option %s needs a value", name);
        return NULL;
    }
    return a->argv[a->i++];
}

static int in_range(double v, cli_range r)
{
    if (r.lo_open ? !(v > r.lo) : !(v >= r.lo))
        return 0;
    return v <= r.hi;
}

/* "a number > 0", "a number in 0..1", ... */
static void describe_range(cli_range r, char *buf, size_t size)
{
    const int has_lo = isfinite(r.lo), has_hi = isfinite(r.hi);
    const cli_num_text lo_text = cli_num(r.lo), hi_text = cli_num(r.hi);
    const char *lo = lo_text.s, *hi = hi_text.s;
    if (has_lo && has_hi && !r.lo_open)
        snprintf(buf, size, "a number in %s..%s", lo, hi);
    else if (has_lo && has_hi)
        snprintf(buf, size, "a number > %s and <= %s", lo, hi);
    else if (has_lo)
        snprintf(buf, size, "a number %s %s", r.lo_open ? ">" : ">=", lo);
    else if (has_hi)
        snprintf(buf, size, "a number <= %s", hi);
    else
        snprintf(buf, size, "a number");
}

int cli_args_number(cli_args *a, const char *name, cli_range range, double *out)
{
    const char *v = cli_args_value(a, name);
    if (!v)
        return CLI_EXIT_USAGE;
    double d = 0.0;
    const int parsed = cli_parse_double(v, &d);
    if (parsed != 0 || !in_range(d, range)) {
        char want[96];
        describe_range(range, want, sizeof want);
        if (parsed == CLI_NUM_OVERFLOW || parsed == CLI_NUM_UNDERFLOW)
            return cli_usage_error(a->cmd, "bad %s '%s' (%s; expected %s)", name, v,
                                   cli_number_problem(parsed), want);
        return cli_usage_error(a->cmd, "bad %s '%s' (expected %s)", name, v, want);
    }
    *out = d;
    return 0;
}

void cli_keep_positional(int *npos, const char **pos, const char *p)
{
    if (*npos < CLI_MAX_POS)
        pos[(*npos)++] = p;
}

int cli_args_positionals(const char *cmd, int argc, char **argv, const char *usage,
                         const char **pos, int *npos)
{
    cli_args a;
    const char *name = NULL, *p = NULL;
    int k;
    cli_args_init(&a, cmd, argc, argv);
    while ((k = cli_args_next(&a, &name, &p)) != 0) {
        if (k == 2) {
            cli_keep_positional(npos, pos, p);
        } else if (cli_wants_help(name)) {
            fputs(usage, stdout);
            return CLI_EXIT_OK;
        } else {
            return cli_usage_error(cmd, "unknown option '%s'", name);
        }
    }
    return -1;
}

int cli_wants_help(const char *name)
{
    return strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0;
}

int cli_two_paths(const char *cmd, int npos, const char *const *pos, const char **in,
                  const char **out)
{
    if (npos < 2)
        return cli_usage_error(cmd, "%s", npos == 0 ? "missing IN and OUT" : "missing OUT");
    if (npos > 2)
        return cli_usage_error(cmd, "unexpected argument '%s'", pos[2]);
    if (!pos[0][0] || !pos[1][0])
        return cli_usage_error(cmd, "empty file name");
    *in = pos[0];
    *out = pos[1];
    return 0;
}

/* What names a file for cli_distinct_outputs: its inode when it exists,
 * else its directory's inode plus its last component (the path as given
 * when the directory cannot be looked up: the write fails then anyway). */
typedef struct file_identity {
    const char *path;
    const char *base; /* last component, in path */
    int exists, dir_ok;
    dev_t dev, dir_dev;
    ino_t ino, dir_ino;
} file_identity;

static void file_identity_of(const char *path, file_identity *id)
{
    struct stat st;
    memset(id, 0, sizeof *id);
    id->path = path;
    if (stat(path, &st) == 0) {
        id->exists = 1;
        id->dev = st.st_dev;
        id->ino = st.st_ino;
    }
    const char *slash = strrchr(path, '/');
    id->base = slash ? slash + 1 : path;
    char dir[4096];
    const size_t dir_len = slash ? (slash == path ? 1 : (size_t)(slash - path)) : 1;
    if (!*id->base || dir_len >= sizeof dir)
        return;
    memcpy(dir, slash ? path : ".", dir_len);
    dir[dir_len] = '\0';
    if (stat(dir, &st) == 0) {
        id->dir_ok = 1;
        id->dir_dev = st.st_dev;
        id->dir_ino = st.st_ino;
    }
}

static int same_file(const file_identity *a, const file_identity *b)
{
    if (a->exists && b->exists)
        return a->dev == b->dev && a->ino == b->ino;
    if (a->dir_ok && b->dir_ok)
        return a->dir_dev == b->dir_dev && a->dir_ino == b->dir_ino &&
               strcmp(a->base, b->base) == 0;
    return strcmp(a->path, b->path) == 0;
}

int cli_distinct_outputs(const char *cmd, int n, const char *const *paths,
                         const char *const *what)
{
    for (int i = 0; i < n; i++) {
        if (!paths[i])
            continue;
        file_identity a;
        file_identity_of(paths[i], &a);
        for (int j = i + 1; j < n; j++) {
            if (!paths[j])
                continue;
            file_identity b;
            file_identity_of(paths[j], &b);
            if (same_file(&a, &b))
                return cli_usage_error(cmd,
                                       "%s '%s' and %s '%s' are the same file (each output "
                                       "needs its own)",
                                       what[i], paths[i], what[j], paths[j]);
        }
    }
    return 0;
}

/* ---- contexts and images --------------------------------------------- */

int cli_context(const char *cmd, const cli_globals *g, int profiling, clv_context **out)
{
    clv_context_options opts = clv_context_options_default();
    opts.device = g->device;
    opts.profiling = profiling ? 1 : 0;
    *out = NULL;
    clv_status s = clv_context_create(&opts, out);
    if (s == CLV_OK) {
        clv_device_choice c;
        if (g->verbose && clv_device_resolve(g->device, &c) == CLV_OK)
            fprintf(stderr, "clv: device: %s\n", c.explanation);
        return 0;
    }

    char detail[CLI_DETAIL_MAX + 1];
    cli_one_line(clv_context_create_error(), detail, sizeof detail);
    /* When the spec matched nothing, say what exists (unless the library's
     * message already does). */
    char list[4096];
    char flat[CLI_DETAIL_MAX + 1];
    flat[0] = '\0';
    if (s == CLV_ERROR_NO_DEVICE && !strstr(detail, "available") &&
        clv_list_devices(list, sizeof list) == CLV_OK && list[0])
        cli_one_line(list, flat, sizeof flat);
    cli_error(cmd, "cannot create an OpenCL context: %s%s%s%s%s", clv_status_string(s),
              detail[0] ? ": " : "", detail, flat[0] ? "; available: " : "", flat);
    return CLI_EXIT_RUNTIME;
}

int cli_read(const char *cmd, const char *path, clv_host_image *out)
{
    clv_status s = clv_image_read(path, out);
    if (s == CLV_OK)
        return 0;
    char detail[CLI_DETAIL_MAX + 1];
    cli_one_line(clv_io_last_error(), detail, sizeof detail);
    cli_error(cmd, "cannot read '%s': %s%s%s", path, clv_status_string(s), detail[0] ? ": " : "",
              detail);
    return CLI_EXIT_RUNTIME;
}

int cli_write(const char *cmd, const char *path, const clv_host_image *img)
{
    clv_status s = clv_image_write(path, img, 0);
    if (s == CLV_OK)
        return 0;
    char detail[CLI_DETAIL_MAX + 1];
    cli_one_line(clv_io_last_error(), detail, sizeof detail);
    cli_error(cmd, "cannot write '%s': %s%s%s", path, clv_status_string(s), detail[0] ? ": " : "",
              detail);
    return CLI_EXIT_RUNTIME;
}

int cli_upload(const char *cmd, clv_context *ctx, const clv_host_image *host, clv_image **out)
{
    *out = NULL;
    clv_status s =
        clv_image_create(ctx, host->width, host->height, host->channels, host->type, out);
    if (s != CLV_OK)
        return cli_fail_status(cmd, ctx, s, "cannot create the device image");
    s = clv_image_upload(*out, host->data, host->stride);
    if (s != CLV_OK) {
        clv_image_release(*out);
        *out = NULL;
        return cli_fail_status(cmd, ctx, s, "cannot upload the image");
    }
    return 0;
}

int cli_host_alloc(const char *cmd, int width, int height, int channels, clv_pixel_type type,
                   clv_host_image *out)
{
    clv_status s = CLV_OK;
    if (channels != 2) {
        s = clv_host_image_alloc(out, width, height, channels, type);
    } else {
        memset(out, 0, sizeof *out);
        const size_t es = clv_pixel_type_size(type);
        if (width < 1 || width > CLV_MAX_DIMENSION || height < 1 ||
            height > CLV_MAX_DIMENSION || es == 0)
            s = CLV_ERROR_INVALID_ARGUMENT;
        else if (!(out->data = calloc((size_t)height, (size_t)width * 2 * es)))
            s = CLV_ERROR_OUT_OF_MEMORY;
        if (s == CLV_OK) {
            out->width = width;
            out->height = height;
            out->channels = 2;
            out->type = type;
            out->stride = (size_t)width * 2 * es;
        }
    }
    if (s == CLV_OK)
        return 0;
    cli_error(cmd, "cannot allocate a %dx%d %s image: %s", width, height,
              channels == 2 ? "flow" : cli_channels_name(channels), clv_status_string(s));
    return CLI_EXIT_RUNTIME;
}

int cli_download(const char *cmd, clv_context *ctx, const clv_image *img, clv_host_image *out)
{
    int rc = cli_host_alloc(cmd, clv_image_width(img), clv_image_height(img),
                            clv_image_channels(img), clv_image_type(img), out);
    if (rc)
        return rc;
    clv_status s = clv_image_download(img, out->data, out->stride);
    if (s != CLV_OK) {
        clv_host_image_free(out);
        return cli_fail_status(cmd, ctx, s, "cannot download the result");
    }
    return 0;
}

const char *cli_channels_name(int channels)
{
    switch (channels) {
    case 1: return "gray";
    case 2: return "gray+alpha";
    case 3: return "rgb";
    case 4: return "rgba";
    default: return "?";
    }
}

static int alloc_like(const char *cmd, const clv_host_image *in, int channels,
                      clv_host_image *out)
{
    clv_status s = clv_host_image_alloc(out, in->width, in->height, channels, in->type);
    if (s != CLV_OK) {
        cli_error(cmd, "cannot allocate a %dx%d %s image: %s", in->width, in->height,
                  cli_channels_name(channels), clv_status_string(s));
        return CLI_EXIT_RUNTIME;
    }
    return 0;
}

int cli_host_gray_to_rgb(const char *cmd, const clv_host_image *in, clv_host_image *out)
{
    if (in->channels != 1) {
        cli_error(cmd, "expected a 1-channel image (got %d channels)", in->channels);
        return CLI_EXIT_RUNTIME;
    }
    int rc = alloc_like(cmd, in, 3, out);
    if (rc)
        return rc;
    const size_t es = clv_pixel_type_size(in->type);
    for (int y = 0; y < in->height; y++) {
        const unsigned char *row = (const unsigned char *)in->data + (size_t)y * in->stride;
        unsigned char *orow = (unsigned char *)out->data + (size_t)y * out->stride;
        for (int x = 0; x < in->width; x++)
            for (int c = 0; c < 3; c++)
                memcpy(orow + ((size_t)x * 3 + (size_t)c) * es, row + (size_t)x * es, es);
    }
    return 0;
}

clv_pixel_type cli_gray_type(clv_pixel_type type)
{
    return type == CLV_U8 ? CLV_U8 : CLV_F32;
}

int cli_args_gray(cli_args *a, const char *name, cli_gray_weights *out)
{
    const char *v = cli_args_value(a, name);
    if (!v)
        return CLI_EXIT_USAGE;
    if (strcmp(v, "601") == 0)
        *out = CLI_GRAY_601;
    else if (strcmp(v, "709") == 0)
        *out = CLI_GRAY_709;
    else
        return cli_usage_error(a->cmd, "bad %s '%s' (expected 601 or 709)", name, v);
    return 0;
}

static int gray_fail(const char *cmd, clv_context *ctx, clv_status s)
{
    return cli_fail_status(cmd, ctx, s, "cannot convert to gray");
}

int cli_gray_init(const char *cmd, clv_context *ctx, const clv_host_image *shape,
                  clv_pixel_type out_type, cli_gray_weights weights, double f32_full,
                  cli_gray *gc)
{
    memset(gc, 0, sizeof *gc);
    const int cn = shape->channels;
    if (cn != 1 && cn != 3 && cn != 4) {
        cli_error(cmd, "cannot make a gray image from %d channels", cn);
        return CLI_EXIT_RUNTIME;
    }
    if (out_type != shape->type && out_type != CLV_F32) {
        cli_error(cmd, "internal error: gray of %s as %s", clv_pixel_type_name(shape->type),
                  clv_pixel_type_name(out_type));
        return CLI_EXIT_RUNTIME;
    }
    gc->ctx = ctx;
    gc->width = shape->width;
    gc->height = shape->height;
    gc->channels = cn;
    gc->in_type = shape->type;
    gc->out_type = out_type;
    gc->code = weights == CLI_GRAY_709 ? CLV_COLOR_RGB2GRAY_709 : CLV_COLOR_RGB2GRAY;
    /* f32 results: the type's full scale (255, 65535, 1.0) at f32_full */
    gc->scale = shape->type == CLV_U8 ? f32_full / 255.0
                : shape->type == CLV_U16 ? f32_full / 65535.0
                                         : f32_full;
    /* Gray in the frame's type, or two steps: u8 colour -> u8 gray -> f32
     * (gray rounded first, as an 8-bit gray file would be); u16/f32 colour ->
     * scaled f32 colour -> f32 gray. */
    clv_status st = CLV_OK;
    const int same = out_type == shape->type && (out_type != CLV_F32 || gc->scale == 1.0);
    if (cn > 1 && !same && shape->type == CLV_U8)
        st = clv_image_create(ctx, gc->width, gc->height, 1, CLV_U8, &gc->mid);
    else if (cn > 1 && !same)
        st = clv_image_create(ctx, gc->width, gc->height, cn, CLV_F32, &gc->mid);
    if (st != CLV_OK)
        return cli_fail_status(cmd, ctx, st, "cannot create a device image");
    return 0;
}

int cli_gray_identity(const cli_gray *gc)
{
    return gc->channels == 1 && gc->in_type == gc->out_type &&
           (gc->out_type != CLV_F32 || gc->scale == 1.0);
}

int cli_gray_convert(const char *cmd, cli_gray *gc, const clv_image *frame, clv_image *out)
{
    clv_status s;
    if (gc->channels == 1)
        s = clv_convert_type(gc->ctx, frame, out, gc->out_type == CLV_F32 ? gc->scale : 1.0);
    else if (!gc->mid)
        s = clv_convert_color(gc->ctx, frame, out, gc->code);
    else if (gc->in_type == CLV_U8) {
        s = clv_convert_color(gc->ctx, frame, gc->mid, gc->code);
        if (s == CLV_OK)
            s = clv_convert_type(gc->ctx, gc->mid, out, gc->scale);
    } else {
        s = clv_convert_type(gc->ctx, frame, gc->mid, gc->scale);
        if (s == CLV_OK)
            s = clv_convert_color(gc->ctx, gc->mid, out, gc->code);
    }
    return s == CLV_OK ? 0 : gray_fail(cmd, gc->ctx, s);
}

void cli_gray_free(cli_gray *gc)
{
    clv_image_release(gc->mid);
    gc->mid = NULL;
}

int cli_gray_upload(const char *cmd, clv_context *ctx, const clv_host_image *in,
                    clv_pixel_type out_type, cli_gray_weights weights, double f32_full,
                    clv_image **out)
{
    *out = NULL;
    cli_gray gc;
    clv_image *frame = NULL;
    int rc = cli_gray_init(cmd, ctx, in, out_type, weights, f32_full, &gc);
    if (rc)
        return rc;
    rc = cli_upload(cmd, ctx, in, &frame);
    if (rc == 0 && cli_gray_identity(&gc)) {
        *out = frame; /* already the gray image wanted */
        frame = NULL;
    } else if (rc == 0) {
        clv_status s = clv_image_create(ctx, in->width, in->height, 1, out_type, out);
        if (s != CLV_OK)
            rc = cli_fail_status(cmd, ctx, s, "cannot create a device image");
        else
            rc = cli_gray_convert(cmd, &gc, frame, *out);
        if (rc) {
            clv_image_release(*out);
            *out = NULL;
        }
    }
    clv_image_release(frame); /* kernels still queued keep what they use */
    cli_gray_free(&gc);
    return rc;
}

int cli_read_flo(const char *cmd, const char *path, clv_host_image *out)
{
    clv_status s = clv_flo_read(path, out);
    if (s == CLV_OK)
        return 0;
    char detail[CLI_DETAIL_MAX + 1];
    cli_one_line(clv_io_last_error(), detail, sizeof detail);
    cli_error(cmd, "cannot read '%s': %s%s%s", path, clv_status_string(s), detail[0] ? ": " : "",
              detail);
    return CLI_EXIT_RUNTIME;
}

int cli_has_ext(const char *path, const char *ext)
{
    const size_t n = strlen(path), e = strlen(ext);
    if (n <= e)
        return 0;
    for (size_t i = 0; i < e; i++) {
        if (tolower((unsigned char)path[n - e + i]) != tolower((unsigned char)ext[i]))
            return 0;
    }
    return path[n - e - 1] != '/';
}

/* ---- files ----------------------------------------------------------- */

int cli_make_dirs(const char *cmd, const char *dir, char **first_created)
{
    char path[4096];
    if (first_created)
        *first_created = NULL;
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        cli_error(cmd, "output directory name too long");
        return CLI_EXIT_RUNTIME;
    }
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(path, 0777) == 0) {
            if (first_created && !*first_created)
                *first_created = strdup(path); /* NULL: nothing removed on failure */
        } else if (errno != EEXIST) {
            cli_error(cmd, "cannot create directory '%s': %s", path, strerror(errno));
            if (first_created && *first_created) {
                char *slash = strrchr(path, '/'); /* the parent was made here */
                if (slash)
                    *slash = '\0';
                cli_remove_created_dirs(path, *first_created);
                free(*first_created);
                *first_created = NULL;
            }
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

void cli_remove_created_dirs(const char *dir, const char *first_created)
{
    char path[4096];
    if (!first_created || snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return;
    for (;;) {
        size_t n = strlen(path);
        while (n > 1 && path[n - 1] == '/')
            path[--n] = '\0';
        if (rmdir(path) != 0 || strcmp(path, first_created) == 0)
            return;
        char *slash = strrchr(path, '/');
        if (!slash || slash == path)
            return;
        *slash = '\0';
    }
}

void cli_outputs_init(cli_outputs *o)
{
    memset(o, 0, sizeof *o);
}

/* A temporary name next to path: "<dir>/.clv-<pid>-<n>-<name>", n counting
 * every name this process tried. Its extension is path's, so the library
 * picks the same format; a name without one in the library's sense (no dot,
 * or only a leading one as in ".png") gets its dots replaced, so the
 * temporary name has none either and the write fails as a direct one
 * would. */
static char *temp_name(const char *path)
{
    static unsigned long seq;
    const char *slash = strrchr(path, '/');
    const size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dir_len;
    const char *dot = strrchr(base, '.');
    const size_t size = strlen(path) + 64;
    char *t = malloc(size);
    if (!t)
        return NULL;
    int n = snprintf(t, size, "%.*s.clv-%ld-%lu-", (int)dir_len, path, (long)getpid(), seq++);
    if (n < 0 || (size_t)n >= size) {
        free(t);
        return NULL;
    }
    snprintf(t + n, size - (size_t)n, "%s", base);
    if (!dot || dot == base)
        for (char *p = t + n; *p; p++)
            if (*p == '.')
                *p = '_';
    return t;
}

/* Creates the staged file for path under a fresh name with O_EXCL (a
 * leftover of an old run, e.g. one with the same pid, is skipped, never
 * reused), with the permission bits of an existing path (0666 minus the
 * umask otherwise), tracked for clv_remove_temporaries() from the moment
 * it exists (SIGINT/SIGTERM are blocked in between). Returns the open fd
 * (*temp, *slot filled) or -1 with errno set. */
static int stage_create(const char *path, char **temp, int *slot)
{
    struct stat st;
    const int perm = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (int)(st.st_mode & 0777) : -1;
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    for (int attempt = 0; attempt < 100; attempt++) {
        char *t = temp_name(path);
        if (!t) {
            errno = ENOMEM;
            return -1;
        }
        pthread_sigmask(SIG_BLOCK, &set, &old);
        int fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        int err = errno;
        if (fd >= 0 && perm >= 0 && fchmod(fd, (mode_t)perm) != 0) {
            err = errno;
            close(fd);
            unlink(t);
            fd = -1;
        }
        if (fd >= 0)
            *slot = clv_io_track_temporary(t);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (fd >= 0) {
            *temp = t;
            return fd;
        }
        free(t);
        if (err != EEXIST) {
            errno = err;
            return -1;
        }
    }
    errno = EEXIST;
    return -1;
}

/* Removes a staged file not committed and forgets it. */
static void stage_drop(char *temp, int slot)
{
    unlink(temp);
    clv_io_untrack_temporary(slot);
    free(temp);
}

/* Writes "s" with every "from" replaced by "to" into buf (cut to size). */
static void replace_all(const char *s, const char *from, const char *to, char *buf, size_t size)
{
    size_t n = 0;
    const size_t fl = strlen(from), tl = strlen(to);
    if (size == 0)
        return;
    while (*s && n + 1 < size) {
        if (fl && strncmp(s, from, fl) == 0) {
            size_t k = tl < size - 1 - n ? tl : size - 1 - n;
            memcpy(buf + n, to, k);
            n += k;
            s += fl;
        } else {
            buf[n++] = *s++;
        }
    }
    buf[n] = '\0';
}

/* The staged file for path (created, open as *fd), refusing a path that is
 * a directory. */
static int outputs_begin(const char *cmd, cli_outputs *o, const char *path, char **temp,
                         int *slot, int *fd)
{
    struct stat st;
    *temp = NULL;
    *slot = -1;
    *fd = -1;
    if (!*path) {
        cli_error(cmd, "empty output file name");
        return CLI_EXIT_RUNTIME;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error(cmd, "cannot write '%s': it is a directory", path);
        return CLI_EXIT_RUNTIME;
    }
    if (o->count == o->cap) {
        int cap = o->cap ? o->cap * 2 : 8;
        char **f = realloc(o->final, (size_t)cap * sizeof *f);
        if (f)
            o->final = f;
        char **t = f ? realloc(o->temp, (size_t)cap * sizeof *t) : NULL;
        if (t)
            o->temp = t;
        int *sl = t ? realloc(o->slot, (size_t)cap * sizeof *sl) : NULL;
        if (sl)
            o->slot = sl;
        if (!f || !t || !sl) {
            cli_error(cmd, "out of memory");
            return CLI_EXIT_RUNTIME;
        }
        o->cap = cap;
    }
    *fd = stage_create(path, temp, slot);
    if (*fd < 0) {
        cli_error(cmd, "cannot write '%s': cannot create a temporary file next to it: %s", path,
                  strerror(errno));
        return CLI_EXIT_RUNTIME;
    }
    return 0;
}

/* Keeps the written temporary file for the commit. */
static int outputs_keep(const char *cmd, cli_outputs *o, const char *path, char *temp, int slot)
{
    char *f = strdup(path);
    if (!f) {
        stage_drop(temp, slot);
        cli_error(cmd, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    o->final[o->count] = f;
    o->temp[o->count] = temp;
    o->slot[o->count] = slot;
    o->count++;
    return 0;
}

/* The library's message about the temporary file, naming the final one. */
static int outputs_io_error(const char *cmd, const char *path, const char *temp, clv_status s)
{
    char fixed[2 * CLI_DETAIL_MAX + 1], detail[CLI_DETAIL_MAX + 1];
    replace_all(clv_io_last_error(), temp, path, fixed, sizeof fixed);
    cli_one_line(fixed, detail, sizeof detail);
    cli_error(cmd, "cannot write '%s': %s%s%s", path, clv_status_string(s), detail[0] ? ": " : "",
              detail);
    return CLI_EXIT_RUNTIME;
}

/* The library writes over the staged file (its own temporary, then a
 * rename onto it: the staged file's mode is kept). */
static int outputs_library(const char *cmd, cli_outputs *o, const char *path,
                           const clv_host_image *img, int flo)
{
    char *temp;
    int slot, fd;
    int rc = outputs_begin(cmd, o, path, &temp, &slot, &fd);
    if (rc)
        return rc;
    close(fd); /* empty: nothing to lose */
    clv_status s = flo ? clv_flo_write(temp, img) : clv_image_write(temp, img, 0);
    if (s != CLV_OK) {
        rc = outputs_io_error(cmd, path, temp, s);
        stage_drop(temp, slot);
        return rc;
    }
    return outputs_keep(cmd, o, path, temp, slot);
}

int cli_outputs_image(const char *cmd, cli_outputs *o, const char *path,
                      const clv_host_image *img)
{
    return outputs_library(cmd, o, path, img, 0);
}

int cli_outputs_flo(const char *cmd, cli_outputs *o, const char *path, const clv_host_image *flow)
{
    return outputs_library(cmd, o, path, flow, 1);
}

int cli_outputs_text(const char *cmd, cli_outputs *o, const char *path, const char *data,
                     size_t len)
{
    char *temp;
    int slot, fd;
    int rc = outputs_begin(cmd, o, path, &temp, &slot, &fd);
    if (rc)
        return rc;
    int err = 0;
    for (size_t done = 0; !err && done < len;) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            err = w < 0 ? errno : EIO;
        else
            done += (size_t)w;
    }
    if (close(fd) != 0 && !err)
        err = errno;
    if (err) {
        stage_drop(temp, slot);
        cli_error(cmd, "cannot write '%s': %s", path, strerror(err));
        return CLI_EXIT_RUNTIME;
    }
    return outputs_keep(cmd, o, path, temp, slot);
}

int cli_outputs_commit(const char *cmd, cli_outputs *o)
{
    for (int i = 0; i < o->count; i++) {
        if (!o->temp[i])
            continue;
        if (rename(o->temp[i], o->final[i]) != 0) {
            cli_error(cmd, "cannot write '%s': %s", o->final[i], strerror(errno));
            return CLI_EXIT_RUNTIME;
        }
        clv_io_untrack_temporary(o->slot[i]); /* after the rename: no window */
        free(o->temp[i]);
        o->temp[i] = NULL;
    }
    return 0;
}

void cli_outputs_free(cli_outputs *o)
{
    for (int i = 0; i < o->count; i++) {
        if (o->temp[i])
            stage_drop(o->temp[i], o->slot[i]);
        free(o->final[i]);
    }
    free(o->temp);
    free(o->final);
    free(o->slot);
    memset(o, 0, sizeof *o);
}

void cli_text_printf(cli_text *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = t->cap - t->len;
        int n = vsnprintf(t->data ? t->data + t->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if ((size_t)n < room) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap * 2 : 4096;
        while (cap - t->len <= (size_t)n)
            cap *= 2;
        char *d = realloc(t->data, cap);
        if (!d) {
            t->failed = 1;
            return;
        }
        t->data = d;
        t->cap = cap;
    }
}

void cli_text_free(cli_text *t)
{
    free(t->data);
    memset(t, 0, sizeof *t);
}

/* ---- timing ---------------------------------------------------------- */

void cli_print_time(double wall_ms, double device_ms)
{
    fflush(stdout);
    cli_status_end();
    fprintf(stderr, "time: wall %.3f ms, device %.3f ms\n", wall_ms, device_ms);
}

double cli_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int cli_run_op(const char *cmd, const char *what, clv_context *ctx, const clv_op_desc *op,
               const clv_arg *args, int nargs, double *wall_ms, double *device_ms)
{
    clv_status s = clv_op_call(ctx, op, args, nargs);
    if (s == CLV_OK)
        s = clv_finish(ctx);
    if (s != CLV_OK)
        return cli_fail_status(cmd, ctx, s, what);
    if (!wall_ms)
        return 0;

    /* Kernels are built now; this run measures the operation alone. */
    double t0 = cli_now_ms();
    s = clv_op_call(ctx, op, args, nargs);
    if (s == CLV_OK)
        s = clv_finish(ctx);
    double t1 = cli_now_ms();
    if (s != CLV_OK)
        return cli_fail_status(cmd, ctx, s, what);
    *wall_ms = t1 - t0;
    if (device_ms) {
        s = clv_last_op_device_time(ctx, device_ms);
        if (s != CLV_OK)
            return cli_fail_status(cmd, ctx, s, "cannot read the device time");
    }
    return 0;
}
