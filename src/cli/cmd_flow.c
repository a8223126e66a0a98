/* clv sub-commands for optical flow: pyramid, corners, track (pyramidal
 * Lucas-Kanade), flow (Farneback), flow-eval, warp and flow-seq (Farneback
 * over a sequence of frames). Outputs are staged (cli_outputs): a failed run
 * writes nothing (flow-seq: nothing after the pairs already done). */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Most corners asked for (--max, --corners): the library keeps them all. */
#define MAX_CORNERS (1 << 20)

/* Largest LK window side and iteration count taken on the command line. */
#define MAX_LK_WIN 255
#define MAX_LK_ITER CLV_LK_MAX_ITERATIONS

/* Exactly n non-empty positionals, named in `missing` ("PREV, NEXT and
 * OUT.csv") for the message when there are fewer. */
static int take_paths(const char *cmd, int npos, const char **pos, int n, const char *missing,
                      const char **out)
{
    if (npos < n)
        return cli_usage_error(cmd, "missing %s", missing);
    if (npos > n)
        return cli_usage_error(cmd, "unexpected argument '%s'", pos[n]);
    for (int i = 0; i < n; i++) {
        if (!pos[i][0])
            return cli_usage_error(cmd, "empty file name");
        out[i] = pos[i];
    }
    return 0;
}

/* The value of the option just returned as an integer in lo..hi; `want`
 * describes the accepted values for the message. */
static int int_option(cli_args *a, const char *name, long lo, long hi, const char *want,
                      int *out)
{
    const char *v = cli_args_value(a, name);
    if (!v)
        return CLI_EXIT_USAGE;
    if (cli_parse_int(v, lo, hi, out) != 0)
        return cli_usage_error(a->cmd, "bad %s '%s' (expected %s)", name, v, want);
    return 0;
}

/* The value of the option just returned as a number strictly between lo
 * and hi. */
static int open_option(cli_args *a, const char *name, double lo, double hi, double *out)
{
    const char *v = cli_args_value(a, name);
    if (!v)
        return CLI_EXIT_USAGE;
    double d = 0.0;
    const int parsed = cli_parse_double(v, &d);
    if (parsed != 0 || !(d > lo && d < hi)) {
        const cli_num_text lo_text = cli_num(lo), hi_text = cli_num(hi);
        const int why = parsed == CLI_NUM_OVERFLOW || parsed == CLI_NUM_UNDERFLOW;
        return cli_usage_error(a->cmd, "bad %s '%s' (%s%sexpected a number > %s and < %s)", name,
                               v, why ? cli_number_problem(parsed) : "", why ? "; " : "",
                               lo_text.s, hi_text.s);
    }
    *out = d;
    return 0;
}

/* A file name option's value (non-empty). */
static int path_option(cli_args *a, const char *name, const char **out)
{
    const char *v = cli_args_value(a, name);
    if (!v)
        return CLI_EXIT_USAGE;
    if (!*v)
        return cli_usage_error(a->cmd, "empty %s file name", name);
    *out = v;
    return 0;
}

static const cli_range from_zero = {0.0, INFINITY, 0};
static const cli_range open_unit = {0.0, 1.0, 1}; /* (0, 1] */

/* The .flo check for an output, before any work (exit 1, as any output
 * format the library does not write). */
static int flo_output(const char *cmd, const char *path)
{
    if (cli_has_ext(path, ".flo"))
        return 0;
    cli_error(cmd, "cannot write '%s': flow fields are written as Middlebury .flo files (give a "
                   "name ending in .flo)",
              path);
    return CLI_EXIT_RUNTIME;
}

static int same_size(const char *cmd, const char *a_path, const clv_host_image *a,
                     const char *b_path, const clv_host_image *b)
{
    if (a->width == b->width && a->height == b->height)
        return 0;
    cli_error(cmd, "'%s' is %dx%d but '%s' is %dx%d (they must match)", a_path, a->width,
              a->height, b_path, b->width, b->height);
    return CLI_EXIT_RUNTIME;
}

/* Device time of the last library call, added to *sum (with timing only). */
static int add_device_time(const char *cmd, clv_context *ctx, double *sum)
{
    if (!sum)
        return 0;
    double ms = 0.0;
    clv_status s = clv_last_op_device_time(ctx, &ms);
    if (s != CLV_OK)
        return cli_fail_status(cmd, ctx, s, "cannot read the device time");
    *sum += ms;
    return 0;
}

/* The gray images of two inputs of one size, made on the device
 * (cli_gray_upload), in one type: u8 when both are u8, else f32 with full
 * scale at f32_full (an 8-bit image among them is scaled to match). */
static int gray_pair(const char *cmd, clv_context *ctx, const clv_host_image *const in[2],
                     double f32_full, cli_gray_weights weights, clv_image *out[2])
{
    const clv_pixel_type gt =
        in[0]->type == CLV_U8 && in[1]->type == CLV_U8 ? CLV_U8 : CLV_F32;
    for (int i = 0; i < 2; i++) {
        int rc = cli_gray_upload(cmd, ctx, in[i], gt, weights, f32_full, &out[i]);
        if (rc)
            return rc;
    }
    return 0;
}

/* The --gray option's help line. */
#define GRAY_HELP                                                                               \
    "--gray 601|709: colour input is turned into gray on the device with Rec. 601\n"            \
    "weights (0.299 R + 0.587 G + 0.114 B, OpenCV's COLOR_RGB2GRAY; the default) or\n"          \
    "Rec. 709 ones (0.2126 R + 0.7152 G + 0.0722 B); files are read as RGB, alpha is\n"         \
    "ignored.\n"

/* ---- pyramid ----------------------------------------------------------- */

/* Known image extensions a prefix may end in. */
static const char *const image_exts[] = {".png", ".jpg", ".jpeg", ".exr", ".hdr", ".pfm"};

/* PREFIX_<level><ext>: ext from the prefix when it ends in one of image_exts
 * (pyr.exr -> pyr_0.exr), else .png. */
static int level_path(const char *prefix, int level, char *out, size_t size)
{
    size_t stem = strlen(prefix);
    const char *ext = ".png";
    for (size_t i = 0; i < sizeof image_exts / sizeof image_exts[0]; i++) {
        if (cli_has_ext(prefix, image_exts[i])) {
            stem -= strlen(image_exts[i]);
            ext = prefix + stem;
            break;
        }
    }
    int n = snprintf(out, size, "%.*s_%d%s", (int)stem, prefix, level, ext);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

int cli_cmd_pyramid(const cli_globals *g, int argc, char **argv)
{
    const char *cmd = "pyramid";
    const char *pos[CLI_MAX_POS];
    int npos = 0, levels = 0, rc;
    double scale = 0.5;
    cli_args a;
    const char *name = NULL, *p = NULL;
    int k;
    cli_args_init(&a, cmd, argc, argv);
    while ((k = cli_args_next(&a, &name, &p)) != 0) {
        if (k == 2) {
            cli_keep_positional(&npos, pos, p);
        } else if (cli_wants_help(name)) {
            printf("usage: clv pyramid --levels N [--scale S] IN OUT_PREFIX\n"
                   "Gaussian pyramid of N levels (1..%d), written as OUT_PREFIX_0.png (IN itself)\n"
                   "to OUT_PREFIX_<N-1>.png. S = 0.5 (the default): each level is OpenCV pyrDown of\n"
                   "the one before (5-tap Gaussian, (w+1)/2 x (h+1)/2). Other S in (0, 1), as\n"
                   "Farneback's pyramid: level k is IN blurred with sigma (1/s - 1)/2, s = S^k, and\n"
                   "resized to round(w s) x round(h s). Pixel type and channels are kept.\n"
                   "OUT_PREFIX may end in .png, .jpg, .exr, .hdr or .pfm to pick the format\n"
                   "(pyr.exr gives pyr_0.exr, ...). A level needs sides of at least 2 (and, for\n"
                   "S != 0.5, a blur of at most %d taps): when IN is too small for N levels\n"
                   "nothing is written.\n",
                   CLV_PYRAMID_MAX_LEVELS, CLV_GAUSSIAN_MAX_KSIZE);
            return CLI_EXIT_OK;
        } else if (strcmp(name, "--levels") == 0) {
            if ((rc = int_option(&a, name, 1, CLV_PYRAMID_MAX_LEVELS, "an integer 1..16",
                                 &levels)) != 0)
                return rc;
        } else if (strcmp(name, "--scale") == 0) {
            if ((rc = open_option(&a, name, 0.0, 1.0, &scale)) != 0)
                return rc;
        } else {
            return cli_usage_error(cmd, "unknown option '%s'", name);
        }
    }
    const char *paths[2] = {NULL};
    if ((rc = take_paths(cmd, npos, pos, 2, npos == 0 ? "IN and OUT_PREFIX" : "OUT_PREFIX",
                         paths)) != 0)
        return rc;
    if (levels == 0)
        return cli_usage_error(cmd, "missing --levels N");
    const char *in = paths[0], *prefix = paths[1];
    char path[4096];
    if (level_path(prefix, levels - 1, path, sizeof path) != 0)
        return cli_usage_error(cmd, "OUT_PREFIX too long");

    clv_host_image host = {0};
    clv_host_image level = {0};
    clv_context *ctx = NULL;
    clv_image *src = NULL;
    clv_pyramid *pyr = NULL;
    cli_outputs outs;
    cli_outputs_init(&outs);
    double wall_ms = 0.0, device_ms = 0.0;

    rc = cli_read(cmd, in, &host);
    if (rc)
        goto out;
    rc = cli_context(cmd, g, g->time, &ctx);
    if (rc)
        goto out;
    rc = cli_upload(cmd, ctx, &host, &src);
    if (rc)
        goto out;
    clv_status s = clv_pyramid_create(ctx, host.width, host.height, host.channels, host.type,
                                      levels, scale, &pyr);
    if (s != CLV_OK) {
        rc = cli_fail_status(cmd, ctx, s, "cannot create the pyramid");
        goto out;
    }
    const int made = clv_pyramid_levels(pyr);
    if (made < levels) {
        cli_error(cmd, "'%s' is %dx%d: only %d of the %d levels can be made (a level needs "
                       "sides of at least 2%s)",
                  in, host.width, host.height, made, levels,
                  scale == 0.5 ? "" : " and a blur of at most 255 taps");
        rc = CLI_EXIT_RUNTIME;
        goto out;
    }
    /* Once to build the kernels (and the result), once more timed. */
    for (int run = 0; run < (g->time ? 2 : 1); run++) {
        double t0 = cli_now_ms();
        s = clv_pyramid_build(ctx, pyr, src);
        if (s == CLV_OK)
            s = clv_finish(ctx);
        if (s != CLV_OK) {
            rc = cli_fail_status(cmd, ctx, s, "pyramid failed");
            goto out;
        }
        wall_ms = cli_now_ms() - t0;
    }
    if (g->time && (rc = add_device_time(cmd, ctx, &device_ms)) != 0)
        goto out;
    for (int i = 0; i < levels; i++) {
        rc = cli_download(cmd, ctx, clv_pyramid_level(pyr, i), &level);
        if (rc)
            goto out;
        if (level_path(prefix, i, path, sizeof path) != 0) {
            cli_error(cmd, "OUT_PREFIX too long");
            rc = CLI_EXIT_RUNTIME;
            goto out;
        }
        rc = cli_outputs_image(cmd, &outs, path, &level);
        if (rc)
            goto out;
        clv_host_image_free(&level);
    }
    rc = cli_outputs_commit(cmd, &outs);
    if (rc == 0 && g->time)
        cli_print_time(wall_ms, device_ms);

out:
    cli_outputs_free(&outs);
    clv_pyramid_release(pyr);
    clv_image_release(src);
    cli_context_release(g, ctx);
    clv_host_image_free(&level);
    clv_host_image_free(&host);
    return rc;
}

/* ---- corners ----------------------------------------------------------- */

/* Shi-Tomasi corners of the device image gray (1-channel u8 or f32):
 * *corners gets a malloc'ed array of *count. With timing, run twice and
 * time the second. */
int cli_find_corners(const char *cmd, clv_context *ctx, const clv_image *gray,
                        const clv_corner_params *cp, clv_corner **corners, int *count,
                        double *wall_ms, double *device_ms)
{
    *corners = malloc((size_t)cp->max_corners * sizeof **corners);
    *count = 0;
    if (!*corners) {
        cli_error(cmd, "out of memory for %d corners", cp->max_corners);
        return CLI_EXIT_RUNTIME;
    }
    for (int run = 0; run < (wall_ms ? 2 : 1); run++) {
        double t0 = cli_now_ms();
        clv_status s = clv_corners_shi_tomasi(ctx, gray, cp, *corners, count);
        if (s != CLV_OK)
            return cli_fail_status(cmd, ctx, s, "corner detection failed");
        if (wall_ms)
            *wall_ms = cli_now_ms() - t0;
    }
    return device_ms ? add_device_time(cmd, ctx, device_ms) : 0;
}

/* Full-scale value of a channel of the type. */
static double full_scale(clv_pixel_type t)
{
    return t == CLV_U8 ? 255.0 : t == CLV_U16 ? 65535.0 : 1.0;
}

static void put_value(clv_host_image *img, int x, int y, int c, double v)
{
    unsigned char *row = (unsigned char *)img->data + (size_t)y * img->stride;
    const size_t i = (size_t)x * (size_t)img->channels + (size_t)c;
    if (img->type == CLV_U8)
        row[i] = (unsigned char)v;
    else if (img->type == CLV_U16)
        ((uint16_t *)row)[i] = (uint16_t)v;
    else
        ((float *)row)[i] = (float)v;
}

/* New RGB image of in's type: gray replicated, alpha dropped. */
int cli_host_rgb(const char *cmd, const clv_host_image *in, clv_host_image *out)
{
    if (in->channels == 1)
        return cli_host_gray_to_rgb(cmd, in, out);
    clv_status s = clv_host_image_alloc(out, in->width, in->height, 3, in->type);
    if (s != CLV_OK) {
        cli_error(cmd, "cannot allocate a %dx%d RGB image: %s", in->width, in->height,
                  clv_status_string(s));
        return CLI_EXIT_RUNTIME;
    }
    const size_t es = clv_pixel_type_size(in->type);
    for (int y = 0; y < in->height; y++) {
        const unsigned char *row = (const unsigned char *)in->data + (size_t)y * in->stride;
        unsigned char *orow = (unsigned char *)out->data + (size_t)y * out->stride;
        for (int x = 0; x < in->width; x++)
            memcpy(orow + (size_t)x * 3 * es, row + (size_t)x * (size_t)in->channels * es,
                   3 * es);
    }
    return 0;
}

/* A red 3x3 cross (centre and its four neighbours) at each corner. */
void cli_draw_corners(clv_host_image *rgb, const clv_corner *c, int n)
{
    static const int dx[5] = {0, -1, 1, 0, 0}, dy[5] = {0, 0, 0, -1, 1};
    const double top = full_scale(rgb->type);
    for (int i = 0; i < n; i++) {
        const int cx = (int)lround(c[i].x), cy = (int)lround(c[i].y);
        for (int j = 0; j < 5; j++) {
            const int x = cx + dx[j], y = cy + dy[j];
            if (x < 0 || y < 0 || x >= rgb->width || y >= rgb->height)
                continue;
            put_value(rgb, x, y, 0, top);
            put_value(rgb, x, y, 1, 0.0);
            put_value(rgb, x, y, 2, 0.0);
        }
    }
}

int cli_corners_csv(const char *cmd, cli_outputs *outs, const char *path,
                       const clv_corner *c, int n)
{
    cli_text t = {0};
    cli_text_printf(&t, "x,y,response\n");
    for (int i = 0; i < n; i++)
        cli_text_printf(&t, "%.9g,%.9g,%.9g\n", c[i].x, c[i].y, c[i].response);
    int rc;
    if (t.failed) {
        cli_error(cmd, "out of memory for the CSV text");
        rc = CLI_EXIT_RUNTIME;
    } else {
        rc = cli_outputs_text(cmd, outs, path, t.data, t.len);
    }
    cli_text_free(&t);
    return rc;
}

int cli_cmd_corners(const cli_globals *g, int argc, char **argv)
{
    const char *cmd = "corners";
    const char *pos[CLI_MAX_POS];
    int npos = 0, rc;
    const char *draw = NULL;
    cli_gray_weights weights = CLI_GRAY_601;
    clv_corner_params cp = clv_corner_params_default();
    int have_max = 0, have_quality = 0, have_distance = 0;
    cli_args a;
    const char *name = NULL, *p = NULL;
    int k;
    cli_args_init(&a, cmd, argc, argv);
    while ((k = cli_args_next(&a, &name, &p)) != 0) {
        if (k == 2) {
            cli_keep_positional(&npos, pos, p);
        } else if (cli_wants_help(name)) {
            printf("usage: clv corners --max N --quality Q --min-distance D [--block-size B]\n"
                   "                   [--gray 601|709] IN OUT.csv [--draw OUT.png]\n"
                   "Shi-Tomasi corners (OpenCV goodFeaturesToTrack): the minimum eigenvalue of\n"
                   "the structure tensor over a B x B window (odd 1..31, default 3) of Sobel\n"
                   "gradients, kept where it is at least Q (0 < Q <= 1) times the largest, is a\n"
                   "3x3 local maximum and no stronger corner is within D pixels (>= 0); the N\n"
                   "strongest (1..%d). 16-bit and f32 input is taken as f32 (full scale 1).\n"
                   "OUT.csv: header x,y,response, then one corner a line, strongest first.\n"
                   "--draw OUT.png: IN as RGB (pixel type kept) with a red cross at each corner.\n"
                   GRAY_HELP,
                   MAX_CORNERS);
            return CLI_EXIT_OK;
        } else if (strcmp(name, "--max") == 0) {
            if ((rc = int_option(&a, name, 1, MAX_CORNERS, "an integer 1..1048576",
                                 &cp.max_corners)) != 0)
                return rc;
            have_max = 1;
        } else if (strcmp(name, "--quality") == 0) {
            if ((rc = cli_args_number(&a, name, open_unit, &cp.quality_level)) != 0)
                return rc;
            have_quality = 1;
        } else if (strcmp(name, "--min-distance") == 0) {
            if ((rc = cli_args_number(&a, name, from_zero, &cp.min_distance)) != 0)
                return rc;
            have_distance = 1;
        } else if (strcmp(name, "--block-size") == 0) {
            if ((rc = int_option(&a, name, 1, 31, "an odd integer 1..31", &cp.block_size)) != 0)
                return rc;
            if (cp.block_size % 2 == 0)
                return cli_usage_error(cmd, "bad --block-size '%d' (expected an odd integer "
                                            "1..31)",
                                       cp.block_size);
        } else if (strcmp(name, "--draw") == 0) {
            if ((rc = path_option(&a, name, &draw)) != 0)
                return rc;
        } else if (strcmp(name, "--gray") == 0) {
            if ((rc = cli_args_gray(&a, name, &weights)) != 0)
                return rc;
        } else {
            return cli_usage_error(cmd, "unknown option '%s'", name);
        }
    }
    const char *paths[2] = {NULL};
    if ((rc = take_paths(cmd, npos, pos, 2, npos == 0 ? "IN and OUT.csv" : "OUT.csv",
                         paths)) != 0)
        return rc;
    if (!have_max)
        return cli_usage_error(cmd, "missing --max N");
    if (!have_quality)
        return cli_usage_error(cmd, "missing --quality Q");
    if (!have_distance)
        return cli_usage_error(cmd, "missing --min-distance D");
    {
        const char *const outs_given[2] = {paths[1], draw};
        const char *const outs_what[2] = {"OUT.csv", "--draw"};
        if ((rc = cli_distinct_outputs(cmd, 2, outs_given, outs_what)) != 0)
            return rc;
    }

    clv_host_image host = {0}, rgb = {0};
    clv_context *ctx = NULL;
    clv_image *dev = NULL;
    clv_corner *corners = NULL;
    int count = 0;
    cli_outputs outs;
    cli_outputs_init(&outs);
    double wall_ms = 0.0, device_ms = 0.0;

    rc = cli_read(cmd, paths[0], &host);
    if (rc)
        goto out;
    rc = cli_context(cmd, g, g->time, &ctx);
    if (rc)
        goto out;
    rc = cli_gray_upload(cmd, ctx, &host, cli_gray_type(host.type), weights, 1.0, &dev);
    if (rc)
        goto out;
    rc = cli_find_corners(cmd, ctx, dev, &cp, &corners, &count, g->time ? &wall_ms : NULL,
                      g->time ? &device_ms : NULL);
    if (rc)
        goto out;
    rc = cli_corners_csv(cmd, &outs, paths[1], corners, count);
    if (rc)
        goto out;
    if (draw) {
        rc = cli_host_rgb(cmd, &host, &rgb);
        if (rc)
            goto out;
        cli_draw_corners(&rgb, corners, count);
        rc = cli_outputs_image(cmd, &outs, draw, &rgb);
        if (rc)
            goto out;
    }
    rc = cli_outputs_commit(cmd, &outs);
    if (rc == 0 && g->time)
        cli_print_time(wall_ms, device_ms);

out:
    cli_outputs_free(&outs);
    free(corners);
    clv_image_release(dev);
    cli_context_release(g, ctx);
    clv_host_image_free(&rgb);
    clv_host_image_free(&host);
    return rc;
}

/* ---- track ------------------------------------------------------------- */

/* Opens a CSV input without blocking (a FIFO with no writer, a device) and
 * refuses anything but a regular file of at most CLI_CSV_MAX_BYTES. */
static int open_csv(const char *cmd, const char *path, int *fd_out)
{
    *fd_out = -1;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        cli_error(cmd, "cannot read '%s': %s", path, strerror(errno));
        return CLI_EXIT_RUNTIME;
    }
    struct stat st;
    const char *kind = NULL;
    if (fstat(fd, &st) != 0) {
        cli_error(cmd, "cannot read '%s': %s", path, strerror(errno));
        close(fd);
        return CLI_EXIT_RUNTIME;
    }
    if (S_ISDIR(st.st_mode))
        kind = "a directory";
    else if (S_ISFIFO(st.st_mode))
        kind = "a FIFO";
    else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
        kind = "a device";
    else if (S_ISSOCK(st.st_mode))
        kind = "a socket";
    else if (!S_ISREG(st.st_mode))
        kind = "not a regular file";
    if (kind) {
        cli_error(cmd, "cannot read '%s': %s (a CSV input must be a regular file)", path, kind);
        close(fd);
        return CLI_EXIT_RUNTIME;
    }
    if (st.st_size > CLI_CSV_MAX_BYTES) {
        cli_error(cmd, "cannot read '%s': %lld bytes, above the limit of %ld for a CSV input",
                  path, (long long)st.st_size, (long)CLI_CSV_MAX_BYTES);
        close(fd);
        return CLI_EXIT_RUNTIME;
    }
    /* A regular file never blocks; plain reads from here on. */
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        cli_error(cmd, "cannot read '%s': %s", path, strerror(errno));
        close(fd);
        return CLI_EXIT_RUNTIME;
    }
    *fd_out = fd;
    return 0;
}

/* Line reader over a file descriptor with the CSV limits: lines of at most
 * CLI_CSV_MAX_LINE bytes (without "\n"), CLI_CSV_MAX_BYTES in all (checked
 * again while reading: a file may grow, or report a size of 0 as in /proc). */
typedef struct csv_reader {
    int fd;
    char buf[1 << 16];
    size_t start, end; /* unread bytes: buf[start..end) */
    long long total;   /* bytes read */
    int eof;
    char line[CLI_CSV_MAX_LINE + 2];
} csv_reader;

/* Next line into r->line (NUL-terminated, "\n" removed), its length in
 * *len. Returns 1 for a line, 0 at the end, -1 on a read error (errno),
 * -2 for a line too long, -3 for a file too large. */
static int csv_next_line(csv_reader *r, size_t *len)
{
    size_t n = 0;
    for (;;) {
        if (r->start == r->end) {
            if (r->eof)
                break;
            ssize_t got = read(r->fd, r->buf, sizeof r->buf);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0)
                return -1;
            if (got == 0) {
                r->eof = 1;
                break;
            }
            r->total += got;
            if (r->total > CLI_CSV_MAX_BYTES)
                return -3;
            r->start = 0;
            r->end = (size_t)got;
        }
        const char *p = r->buf + r->start;
        const size_t avail = r->end - r->start;
        const char *nl = memchr(p, '\n', avail);
        const size_t take = nl ? (size_t)(nl - p) : avail;
        if (n + take > CLI_CSV_MAX_LINE + 1) /* + 1: room for a "\r" before the "\n" */
            return -2;
        memcpy(r->line + n, p, take);
        n += take;
        r->start += take + (nl ? 1 : 0);
        if (nl) {
            r->line[n] = '\0';
            *len = n;
            return 1;
        }
    }
    if (n == 0)
        return 0;
    r->line[n] = '\0'; /* the last line, without "\n" */
    *len = n;
    return 1;
}

/* Points from a CSV file: a header "x,y" or "x,y,response", then one point
 * a line with as many fields, each a finite decimal number (cli_parse_double),
 * x and y finite as floats. Every other line is an error naming the file and
 * the line. Limits: cli.h (CLI_CSV_MAX_BYTES, CLI_CSV_MAX_LINE). */
int cli_read_points(const char *cmd, const char *path, clv_point **pts, int *count)
{
    *pts = NULL;
    *count = 0;
    int fd = -1;
    int rc = open_csv(cmd, path, &fd);
    if (rc)
        return rc;
    csv_reader *r = calloc(1, sizeof *r);
    if (!r) {
        close(fd);
        cli_error(cmd, "out of memory reading '%s'", path);
        return CLI_EXIT_RUNTIME;
    }
    r->fd = fd;
    size_t cap = 0, n = 0;
    long lineno = 0;
    int fields = 0, got_line;
    while ((got_line = csv_next_line(r, &n)) == 1) {
        char *line = r->line;
        lineno++;
        if (n > 0 && line[n - 1] == '\r')
            line[--n] = '\0';
        if (n > CLI_CSV_MAX_LINE) {
            got_line = -2; /* reported below, as one the reader stopped at */
            lineno--;
            break;
        }
        if (strlen(line) != n) {
            cli_error(cmd, "'%s' line %ld: contains a NUL byte", path, lineno);
            rc = CLI_EXIT_RUNTIME;
            break;
        }
        if (lineno == 1) {
            fields = strcmp(line, "x,y") == 0 ? 2 : strcmp(line, "x,y,response") == 0 ? 3 : 0;
            if (!fields) {
                cli_error(cmd, "'%s' line 1: expected the header 'x,y' or 'x,y,response' (got "
                               "'%.60s')",
                          path, line);
                rc = CLI_EXIT_RUNTIME;
                break;
            }
            continue;
        }
        static const char *const names[3] = {"x", "y", "response"};
        double v[3];
        int got = 0;
        char *field = line;
        for (;;) {
            char *comma = strchr(field, ',');
            if (comma)
                *comma = '\0';
            if (got < fields) {
                const int parsed = cli_parse_double(field, &v[got]);
                if (parsed != 0) {
                    cli_error(cmd, "'%s' line %ld: bad %s '%.40s' (%s)", path, lineno,
                              names[got], field,
                              parsed == CLI_NUM_SYNTAX ? "expected a finite decimal number"
                                                       : cli_number_problem(parsed));
                    rc = CLI_EXIT_RUNTIME;
                    break;
                }
                /* Coordinates are floats: one beyond their range would become
                 * inf (and be written back as inf). */
                if (got < 2 && !isfinite((float)v[got])) {
                    cli_error(cmd, "'%s' line %ld: bad %s '%.40s' (beyond the float range: "
                                   "the magnitude must be at most about 3.4e38)",
                              path, lineno, names[got], field);
                    rc = CLI_EXIT_RUNTIME;
                    break;
                }
            }
            got++;
            if (!comma)
                break;
            field = comma + 1;
        }
        if (rc)
            break;
        if (got != fields) {
            cli_error(cmd, "'%s' line %ld: %d fields, expected %d (%s)", path, lineno, got, fields,
                      fields == 2 ? "x,y" : "x,y,response");
            rc = CLI_EXIT_RUNTIME;
            break;
        }
        if ((size_t)*count == cap) {
            if (cap >= MAX_CORNERS) {
                cli_error(cmd, "'%s': more than %d points", path, MAX_CORNERS);
                rc = CLI_EXIT_RUNTIME;
                break;
            }
            cap = cap ? cap * 2 : 256;
            clv_point *np = realloc(*pts, cap * sizeof *np);
            if (!np) {
                cli_error(cmd, "out of memory reading '%s'", path);
                rc = CLI_EXIT_RUNTIME;
                break;
            }
            *pts = np;
        }
        (*pts)[*count].x = (float)v[0];
        (*pts)[*count].y = (float)v[1];
        (*count)++;
    }
    if (!rc && got_line == -1) {
        cli_error(cmd, "cannot read '%s': %s", path, strerror(errno ? errno : EIO));
        rc = CLI_EXIT_RUNTIME;
    } else if (!rc && got_line == -2) {
        cli_error(cmd, "'%s' line %ld: longer than %d bytes, the limit for a CSV line", path,
                  lineno + 1, CLI_CSV_MAX_LINE);
        rc = CLI_EXIT_RUNTIME;
    } else if (!rc && got_line == -3) {
        cli_error(cmd, "cannot read '%s': more than %ld bytes, the limit for a CSV input", path,
                  (long)CLI_CSV_MAX_BYTES);
        rc = CLI_EXIT_RUNTIME;
    } else if (!rc && lineno == 0) {
        cli_error(cmd, "'%s' is empty (expected the header 'x,y' or 'x,y,response')", path);
        rc = CLI_EXIT_RUNTIME;
    }
    free(r);
    close(fd);
    if (rc) {
        free(*pts);
        *pts = NULL;
        *count = 0;
    }
    return rc;
}

int cli_track_points(const char *cmd, clv_context *ctx, clv_pyramid *p_prev, clv_pyramid *p_next,
                     const clv_image *prev, const clv_image *next, const clv_point *pts,
                     clv_point *moved, uint8_t *status, float *err, int count,
                     const clv_lk_params *lk, int timed, double *wall_ms, double *device_ms)
{
    int rc = 0;
    for (int run = 0; run < (timed ? 2 : 1); run++) {
        double *dev = run == 1 ? device_ms : NULL;
        double t0 = cli_now_ms();
        clv_status s = clv_pyramid_build(ctx, p_prev, prev);
        if (s == CLV_OK && (rc = add_device_time(cmd, ctx, dev)) != 0)
            return rc;
        if (s == CLV_OK)
            s = clv_pyramid_build(ctx, p_next, next);
        if (s == CLV_OK && (rc = add_device_time(cmd, ctx, dev)) != 0)
            return rc;
        if (s == CLV_OK)
            s = clv_lk_track(ctx, p_prev, p_next, pts, moved, status, err, count, lk);
        /* No points: no kernels, no device time. */
        if (s == CLV_OK && count > 0 && (rc = add_device_time(cmd, ctx, dev)) != 0)
            return rc;
        if (s == CLV_OK)
            s = clv_finish(ctx);
        if (s != CLV_OK)
            return cli_fail_status(cmd, ctx, s, "tracking failed");
        if (wall_ms)
            *wall_ms = cli_now_ms() - t0;
    }
    return 0;
}

int cli_track_csv(const char *cmd, cli_text *t, const clv_point *pts, const clv_point *moved,
                  const uint8_t *status, const float *err, int count)
{
    cli_text_printf(t, "x0,y0,x1,y1,status,error\n");
    for (int i = 0; i < count; i++)
        cli_text_printf(t, "%.9g,%.9g,%.9g,%.9g,%d,%.9g\n", pts[i].x, pts[i].y, moved[i].x,
                        moved[i].y, status[i] ? 1 : 0, err[i]);
    if (!t->failed)
        return 0;
    cli_error(cmd, "out of memory for the CSV text");
    return CLI_EXIT_RUNTIME;
}

typedef struct track_job {
    clv_lk_params lk;
    const char *points;  /* --points file, or NULL */
    int corners;         /* --corners N (0: not given) */
    const char *prev, *next, *out;
} track_job;

int cli_cmd_track(const cli_globals *g, int argc, char **argv)
{
    const char *cmd = "track";
    const char *pos[CLI_MAX_POS];
    int npos = 0, rc, win = 0;
    track_job job = {clv_lk_params_default(), NULL, 0, NULL, NULL, NULL};
    cli_gray_weights weights = CLI_GRAY_601;
    cli_args a;
    const char *name = NULL, *p = NULL;
    int k;
    cli_args_init(&a, cmd, argc, argv);
    while ((k = cli_args_next(&a, &name, &p)) != 0) {
        if (k == 2) {
            cli_keep_positional(&npos, pos, p);
        } else if (cli_wants_help(name)) {
            printf("usage: clv track [--win W] [--levels L] [--iterations I] [--gray 601|709]\n"
                   "                 [--points IN.csv | --corners N] PREV NEXT OUT.csv\n"
                   "Pyramidal Lucas-Kanade (OpenCV calcOpticalFlowPyrLK) of points from PREV into\n"
                   "NEXT (images of one size).\n"
                   "W: odd window side 3..%d (default %d); L: pyramid levels (scale 0.5) 1..%d\n"
                   "(default %d; fewer when the images are too small, as OpenCV); I: iterations\n"
                   "per level 1..%d (default %d; stop below %g px).\n"
                   "--points IN.csv: header x,y or x,y,response, then one point a line (corners'\n"
                   "output works; a regular file of at most %ld MiB, lines of at most %d\n"
                   "bytes); --corners N: the N strongest Shi-Tomasi corners of PREV\n"
                   "(quality 0.01, minimum distance 10); default --corners 500.\n"
                   "OUT.csv: header x0,y0,x1,y1,status,error, one point a line in input order;\n"
                   "status 1 tracked, 0 lost; error = mean absolute difference over the window\n"
                   "(0..255 units). --time measures the pyramids and the tracking.\n" GRAY_HELP,
                   MAX_LK_WIN, job.lk.win_width, CLV_PYRAMID_MAX_LEVELS, job.lk.levels,
                   MAX_LK_ITER, job.lk.max_iterations, job.lk.epsilon, CLI_CSV_MAX_BYTES >> 20,
                   CLI_CSV_MAX_LINE);
            return CLI_EXIT_OK;
        } else if (strcmp(name, "--win") == 0) {
            if ((rc = int_option(&a, name, 3, MAX_LK_WIN, "an odd integer 3..255", &win)) != 0)
                return rc;
            if (win % 2 == 0)
                return cli_usage_error(cmd, "bad --win '%d' (expected an odd integer 3..255)",
                                       win);
            job.lk.win_width = job.lk.win_height = win;
        } else if (strcmp(name, "--levels") == 0) {
            if ((rc = int_option(&a, name, 1, CLV_PYRAMID_MAX_LEVELS, "an integer 1..16",
                                 &job.lk.levels)) != 0)
                return rc;
        } else if (strcmp(name, "--iterations") == 0) {
            if ((rc = int_option(&a, name, 1, MAX_LK_ITER, "an integer 1..1000",
                                 &job.lk.max_iterations)) != 0)
                return rc;
        } else if (strcmp(name, "--points") == 0) {
            if ((rc = path_option(&a, name, &job.points)) != 0)
                return rc;
        } else if (strcmp(name, "--corners") == 0) {
            if ((rc = int_option(&a, name, 1, MAX_CORNERS, "an integer 1..1048576",
                                 &job.corners)) != 0)
                return rc;
        } else if (strcmp(name, "--gray") == 0) {
            if ((rc = cli_args_gray(&a, name, &weights)) != 0)
                return rc;
        } else {
            return cli_usage_error(cmd, "unknown option '%s'", name);
        }
    }
    const char *paths[3] = {NULL};
    if ((rc = take_paths(cmd, npos, pos, 3,
                         npos == 0   ? "PREV, NEXT and OUT.csv"
                         : npos == 1 ? "NEXT and OUT.csv"
                                     : "OUT.csv",
                         paths)) != 0)
        return rc;
    if (job.points && job.corners)
        return cli_usage_error(cmd, "give --points or --corners, not both");
    if (!job.points && !job.corners)
        job.corners = 500;
    job.prev = paths[0];
    job.next = paths[1];
    job.out = paths[2];

    clv_host_image h_prev = {0}, h_next = {0};
    clv_context *ctx = NULL;
    clv_image *d_prev = NULL, *d_next = NULL;
    clv_pyramid *p_prev = NULL, *p_next = NULL;
    clv_point *pts = NULL, *moved = NULL;
    clv_corner *corners = NULL;
    uint8_t *status = NULL;
    float *err = NULL;
    int count = 0;
    cli_text t = {0};
    cli_outputs outs;
    cli_outputs_init(&outs);
    double wall_ms = 0.0, device_ms = 0.0;

    if (job.points && (rc = cli_read_points(cmd, job.points, &pts, &count)) != 0)
        goto out;
    if ((rc = cli_read(cmd, job.prev, &h_prev)) != 0 ||
        (rc = cli_read(cmd, job.next, &h_next)) != 0 ||
        (rc = same_size(cmd, job.prev, &h_prev, job.next, &h_next)) != 0)
        goto out;
    if ((rc = cli_context(cmd, g, g->time, &ctx)) != 0)
        goto out;
    {
        const clv_host_image *const in[2] = {&h_prev, &h_next};
        clv_image *gray[2] = {NULL, NULL};
        rc = gray_pair(cmd, ctx, in, 1.0, weights, gray);
        d_prev = gray[0];
        d_next = gray[1];
        if (rc)
            goto out;
    }
    const clv_pixel_type gtype = clv_image_type(d_prev);
    clv_status s = clv_pyramid_create(ctx, h_prev.width, h_prev.height, 1, gtype,
                                      job.lk.levels, 0.5, &p_prev);
    if (s == CLV_OK)
        s = clv_pyramid_create(ctx, h_prev.width, h_prev.height, 1, gtype, job.lk.levels,
                               0.5, &p_next);
    if (s != CLV_OK) {
        rc = cli_fail_status(cmd, ctx, s, "cannot create the pyramids");
        goto out;
    }
    /* As OpenCV: no more levels than the image allows. */
    if (job.lk.levels > clv_pyramid_levels(p_prev))
        job.lk.levels = clv_pyramid_levels(p_prev);

    if (job.corners) {
        clv_corner_params cp = clv_corner_params_default();
        cp.max_corners = job.corners;
        cp.quality_level = 0.01;
        cp.min_distance = 10.0;
        if ((rc = cli_find_corners(cmd, ctx, d_prev, &cp, &corners, &count, NULL, NULL)) != 0)
            goto out;
        pts = malloc((size_t)(count > 0 ? count : 1) * sizeof *pts);
        if (!pts) {
            cli_error(cmd, "out of memory");
            rc = CLI_EXIT_RUNTIME;
            goto out;
        }
        for (int i = 0; i < count; i++) {
            pts[i].x = corners[i].x;
            pts[i].y = corners[i].y;
        }
    }
    const size_t n = (size_t)(count > 0 ? count : 1);
    moved = malloc(n * sizeof *moved);
    status = malloc(n);
    err = malloc(n * sizeof *err);
    if (!moved || !status || !err) {
        cli_error(cmd, "out of memory for %d points", count);
        rc = CLI_EXIT_RUNTIME;
        goto out;
    }

    if ((rc = cli_track_points(cmd, ctx, p_prev, p_next, d_prev, d_next, pts, moved, status, err,
                               count, &job.lk, g->time, &wall_ms, &device_ms)) != 0)
        goto out;
    if ((rc = cli_track_csv(cmd, &t, pts, moved, status, err, count)) != 0)
        goto out;
    if ((rc = cli_outputs_text(cmd, &outs, job.out, t.data, t.len)) != 0 ||
        (rc = cli_outputs_commit(cmd, &outs)) != 0)
        goto out;
    if (g->time)
        cli_print_time(wall_ms, device_ms);

out:
    cli_outputs_free(&outs);
    cli_text_free(&t);
    free(err);
    free(status);
    free(moved);
    free(corners);
    free(pts);
    clv_pyramid_release(p_next);
    clv_pyramid_release(p_prev);
    clv_image_release(d_next);
    clv_image_release(d_prev);
    cli_context_release(g, ctx);
    clv_host_image_free(&h_next);
    clv_host_image_free(&h_prev);
    return rc;
}

/* ---- Farneback options (flow, flow-seq) -------------------------------- */

/* Farneback's inputs in u8 units, as OpenCV (which takes 8-bit images)
 * sees them: u16 / 257, f32 x 255. */
#define FLOW_F32_FULL 255.0

/* Takes the option just returned when it is a Farneback one: 1 taken, 0 not
 * one of them, CLI_EXIT_USAGE (negated) on a bad value. Bounds as
 * clv_farneback checks them. */
static int farneback_option(cli_args *a, const char *name, clv_farneback_params *fp)
{
    int rc = 0;
    if (strcmp(name, "--pyr-scale") == 0) {
        rc = open_option(a, name, 0.0, 1.0, &fp->pyr_scale);
    } else if (strcmp(name, "--levels") == 0) {
        rc = int_option(a, name, 0, 16, "an integer 0..16", &fp->levels);
    } else if (strcmp(name, "--winsize") == 0) {
        rc = int_option(a, name, 3, 255, "an odd integer 3..255", &fp->winsize);
        if (!rc && fp->winsize % 2 == 0)
            rc = cli_usage_error(a->cmd, "bad --winsize '%d' (expected an odd integer 3..255)",
                                 fp->winsize);
    } else if (strcmp(name, "--iterations") == 0) {
        rc = int_option(a, name, 1, 100, "an integer 1..100", &fp->iterations);
    } else if (strcmp(name, "--poly-n") == 0) {
        rc = int_option(a, name, 5, 7, "5 or 7", &fp->poly_n);
        if (!rc && fp->poly_n == 6)
            rc = cli_usage_error(a->cmd, "bad --poly-n '6' (expected 5 or 7)");
    } else if (strcmp(name, "--poly-sigma") == 0) {
        rc = open_option(a, name, 0.0, 100.0, &fp->poly_sigma);
    } else if (strcmp(name, "--gaussian") == 0) {
        if (a->inline_value)
            rc = cli_usage_error(a->cmd, "option --gaussian takes no value");
        fp->gaussian_window = 1;
    } else {
        return 0;
    }
    return rc ? -rc : 1;
}

#define FARNEBACK_HELP                                                                          \
    "Farneback dense optical flow (OpenCV calcOpticalFlowFarneback); defaults as in\n"         \
    "its common call:\n"                                                                        \
    "  --pyr-scale S   pyramid scale, 0 < S < 1 (default 0.5)\n"                                \
    "  --levels N      coarser pyramid levels, 0..16 (default 3): N + 1 scales, as in\n"       \
    "                  OpenCV's code, while a side stays >= 32 px\n"                             \
    "  --winsize W     averaging window, odd 3..255 (default 15)\n"                             \
    "  --iterations I  per level, 1..100 (default 3)\n"                                         \
    "  --poly-n N      polynomial expansion neighbourhood, 5 or 7 (default 5)\n"                \
    "  --poly-sigma S  its Gaussian sigma, 0 < S < 100 (default 1.2)\n"                         \
    "  --gaussian      Gaussian instead of box averaging window\n"                              \
    "16-bit and f32 images are scaled to 8-bit units (f32 0..1 -> 0..255) as OpenCV's\n"      \
    "8-bit input.\n" GRAY_HELP

/* ---- flow -------------------------------------------------------------- */

/* Flow (and, when rgb is not NULL, its colour coding) of one pair of device
 * images into host images. */
int cli_flow_pair(const char *cmd, clv_context *ctx, const clv_image *prev,
                     const clv_image *next, clv_image *flow, clv_image *rgb,
                     const clv_farneback_params *fp, clv_host_image *h_flow,
                     clv_host_image *h_rgb, double *wall_ms, double *device_ms)
{
    double t0 = cli_now_ms();
    clv_status s = clv_farneback(ctx, prev, next, flow, fp);
    if (s == CLV_OK)
        s = clv_finish(ctx);
    if (s != CLV_OK)
        return cli_fail_status(cmd, ctx, s, "flow failed");
    if (wall_ms)
        *wall_ms += cli_now_ms() - t0;
    int rc = add_device_time(cmd, ctx, device_ms);
    if (rc)
        return rc;
    s = clv_image_download(flow, h_flow->data, h_flow->stride);
    if (s != CLV_OK)
        return cli_fail_status(cmd, ctx, s, "cannot download the flow");
    if (!rgb)
        return 0;
    s = clv_flow_to_color(ctx, flow, rgb, 0.0);
    if (s == CLV_OK)
        s = clv_image_download(rgb, h_rgb->data, h_rgb->stride);
    if (s != CLV_OK)
        return cli_fail_status(cmd, ctx, s, "colour coding failed");
    return 0;
}

static int create_image(const char *cmd, clv_context *ctx, int w, int h, int channels,
                        clv_pixel_type type, clv_image **out)
{
    clv_status s = clv_image_create(ctx, w, h, channels, type, out);
    if (s == CLV_OK)
        return 0;
    return cli_fail_status(cmd, ctx, s, "cannot create a device image");
}

int cli_cmd_flow(const cli_globals *g, int argc, char **argv)
{
    const char *cmd = "flow";
    const char *pos[CLI_MAX_POS];
    int npos = 0, rc;
    const char *color = NULL;
    cli_gray_weights weights = CLI_GRAY_601;
    clv_farneback_params fp = clv_farneback_params_default();
    cli_args a;
    const char *name = NULL, *p = NULL;
    int k;
    cli_args_init(&a, cmd, argc, argv);
    while ((k = cli_args_next(&a, &name, &p)) != 0) {
        if (k == 2) {
            cli_keep_positional(&npos, pos, p);
            continue;
        }
        if (cli_wants_help(name)) {
            printf("usage: clv flow [--pyr-scale S] [--levels N] [--winsize W] [--iterations I]\n"
                   "                [--poly-n N] [--poly-sigma S] [--gaussian] [--gray 601|709]\n"
                   "                PREV NEXT OUT.flo [--color OUT.png]\n"
                   "Flow from PREV to NEXT (images of one size): NEXT(x + u, y + v) ~ PREV(x, y),\n"
                   "written as a Middlebury .flo file.\n" FARNEBACK_HELP
                   "--color OUT.png: the flow in the Middlebury colour wheel (hue = direction,\n"
                   "saturation = magnitude, full at the field's largest).\n");
            return CLI_EXIT_OK;
        }
        if (strcmp(name, "--color") == 0) {
            if ((rc = path_option(&a, name, &color)) != 0)
                return rc;
            continue;
        }
        if (strcmp(name, "--gray") == 0) {
            if ((rc = cli_args_gray(&a, name, &weights)) != 0)
                return rc;
            continue;
        }
        rc = farneback_option(&a, name, &fp);
        if (rc < 0)
            return -rc;
        if (rc == 0)
            return cli_usage_error(cmd, "unknown option '%s'", name);
    }
    const char *paths[3] = {NULL};
    if ((rc = take_paths(cmd, npos, pos, 3,
                         npos == 0   ? "PREV, NEXT and OUT.flo"
                         : npos == 1 ? "NEXT and OUT.flo"
                                     : "OUT.flo",
                         paths)) != 0)
        return rc;
    if ((rc = flo_output(cmd, paths[2])) != 0)
        return rc;
    {
        const char *const outs_given[2] = {paths[2], color};
        const char *const outs_what[2] = {"OUT.flo", "--color"};
        if ((rc = cli_distinct_outputs(cmd, 2, outs_given, outs_what)) != 0)
            return rc;
    }

    clv_host_image h_prev = {0}, h_next = {0};
    clv_host_image h_flow = {0}, h_rgb = {0};
    clv_context *ctx = NULL;
    clv_image *d_prev = NULL, *d_next = NULL, *d_flow = NULL, *d_rgb = NULL;
    cli_outputs outs;
    cli_outputs_init(&outs);
    double wall_ms = 0.0, device_ms = 0.0;

    if ((rc = cli_read(cmd, paths[0], &h_prev)) != 0 ||
        (rc = cli_read(cmd, paths[1], &h_next)) != 0 ||
        (rc = same_size(cmd, paths[0], &h_prev, paths[1], &h_next)) != 0)
        goto out;
    const int w = h_prev.width, h = h_prev.height;
    if ((rc = cli_host_alloc(cmd, w, h, 2, CLV_F32, &h_flow)) != 0 ||
        (color && (rc = cli_host_alloc(cmd, w, h, 3, CLV_U8, &h_rgb)) != 0))
        goto out;
    if ((rc = cli_context(cmd, g, g->time, &ctx)) != 0)
        goto out;
    {
        const clv_host_image *const in[2] = {&h_prev, &h_next};
        clv_image *gray[2] = {NULL, NULL};
        rc = gray_pair(cmd, ctx, in, FLOW_F32_FULL, weights, gray);
        d_prev = gray[0];
        d_next = gray[1];
        if (rc)
            goto out;
    }
    if ((rc = create_image(cmd, ctx, w, h, 2, CLV_F32, &d_flow)) != 0 ||
        (color && (rc = create_image(cmd, ctx, w, h, 3, CLV_U8, &d_rgb)) != 0))
        goto out;
    if (g->time) {
        /* Untimed first run: builds the kernels and the workspace. */
        clv_status s = clv_farneback(ctx, d_prev, d_next, d_flow, &fp);
        if (s == CLV_OK)
            s = clv_finish(ctx);
        if (s != CLV_OK) {
            rc = cli_fail_status(cmd, ctx, s, "flow failed");
            goto out;
        }
    }
    if ((rc = cli_flow_pair(cmd, ctx, d_prev, d_next, d_flow, d_rgb, &fp, &h_flow, &h_rgb,
                        g->time ? &wall_ms : NULL, g->time ? &device_ms : NULL)) != 0)
        goto out;
    if ((rc = cli_outputs_flo(cmd, &outs, paths[2], &h_flow)) != 0 ||
        (color && (rc = cli_outputs_image(cmd, &outs, color, &h_rgb)) != 0) ||
        (rc = cli_outputs_commit(cmd, &outs)) != 0)
        goto out;
    if (g->time)
        cli_print_time(wall_ms, device_ms);

out:
    cli_outputs_free(&outs);
    clv_image_release(d_rgb);
    clv_image_release(d_flow);
    clv_image_release(d_next);
    clv_image_release(d_prev);
    cli_context_release(g, ctx);
    clv_host_image_free(&h_rgb);
    clv_host_image_free(&h_flow);
    clv_host_image_free(&h_next);
    clv_host_image_free(&h_prev);
    return rc;
}

/* ---- flow-eval --------------------------------------------------------- */

int cli_cmd_flow_eval(const cli_globals *g, int argc, char **argv)
{
    const char *cmd = "flow-eval";
    const char *pos[CLI_MAX_POS];
    int npos = 0, rc;
    const char *usage =
        "usage: clv flow-eval EST.flo GT.flo\n"
        "Compares an estimated flow with ground truth of the same size and prints\n"
        "  AEE=<px> AAE=<degrees> R1=<%> R3=<%> R5=<%>\n"
        "AEE: average endpoint error; AAE: average angular error (Barron et al.);\n"
        "Rn: percent of pixels with an endpoint error above n pixels. Pixels whose\n"
        "ground truth is unknown (|u| or |v| >= 1e9, NaN) are left out; with none\n"
        "known every figure is 0.\n";
    if ((rc = cli_args_positionals(cmd, argc, argv, usage, pos, &npos)) >= 0)
        return rc;
    const char *paths[2] = {NULL};
    if ((rc = take_paths(cmd, npos, pos, 2, npos == 0 ? "EST.flo and GT.flo" : "GT.flo",
                         paths)) != 0)
        return rc;

    clv_host_image est = {0}, gt = {0};
    clv_context *ctx = NULL;
    clv_image *d_est = NULL, *d_gt = NULL;
    clv_flow_stats st;
    double wall_ms = 0.0, device_ms = 0.0;
    if ((rc = cli_read_flo(cmd, paths[0], &est)) != 0 ||
        (rc = cli_read_flo(cmd, paths[1], &gt)) != 0 ||
        (rc = same_size(cmd, paths[0], &est, paths[1], &gt)) != 0 ||
        (rc = cli_context(cmd, g, g->time, &ctx)) != 0 ||
        (rc = cli_upload(cmd, ctx, &est, &d_est)) != 0 ||
        (rc = cli_upload(cmd, ctx, &gt, &d_gt)) != 0)
        goto out;
    for (int run = 0; run < (g->time ? 2 : 1); run++) {
        double t0 = cli_now_ms();
        clv_status s = clv_flow_eval(ctx, d_est, d_gt, &st);
        if (s != CLV_OK) {
            rc = cli_fail_status(cmd, ctx, s, "evaluation failed");
            goto out;
        }
        wall_ms = cli_now_ms() - t0;
    }
    if (g->time && (rc = add_device_time(cmd, ctx, &device_ms)) != 0)
        goto out;
    printf("AEE=%.4f AAE=%.4f R1=%.4f R3=%.4f R5=%.4f\n", st.aee, st.aae, st.r1, st.r3, st.r5);
    if (g->time)
        cli_print_time(wall_ms, device_ms);

out:
    clv_image_release(d_gt);
    clv_image_release(d_est);
    cli_context_release(g, ctx);
    clv_host_image_free(&gt);
    clv_host_image_free(&est);
    return rc;
}

/* ---- flow-seq ---------------------------------------------------------- */

/* Pairs between the plain progress lines written when stderr is not a
 * terminal. */
#define SEQ_PROGRESS_EVERY 10

/* Natural order of frame names: a run of digits compares by its value
 * (f_2 < f_10 < f_100; leading zeros do not count), anything else byte by
 * byte. */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0')
                a++;
            while (*b == '0')
                b++;
            size_t na = 0, nb = 0;
            while (isdigit((unsigned char)a[na]))
                na++;
            while (isdigit((unsigned char)b[nb]))
                nb++;
            if (na != nb)
                return na < nb ? -1 : 1;
            const int c = memcmp(a, b, na);
            if (c)
                return c;
            a += na;
            b += nb;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

/* qsort order of glob's paths: natural, then (f_01 and f_1) plain bytes. */
static int frame_order(const void *x, const void *y)
{
    const char *a = *(const char *const *)x, *b = *(const char *const *)y;
    const int c = natural_cmp(a, b);
    return c ? c : strcmp(a, b);
}

/* Frame k (read into frame) against frame 0. */
static int seq_same_frame(const char *cmd, char **files, int k, const clv_host_image *frame,
                          const clv_host_image *first)
{
    if (frame->width == first->width && frame->height == first->height &&
        frame->type == first->type)
        return 0;
    cli_error(cmd,
              "frame '%s' is %dx%d %s but '%s' is %dx%d %s (frames must share size and pixel "
              "type)",
              files[k], frame->width, frame->height, clv_pixel_type_name(frame->type), files[0],
              first->width, first->height, clv_pixel_type_name(first->type));
    return CLI_EXIT_RUNTIME;
}

/* Reads every frame once before any work, so that a sequence with a frame
 * of another size or type, or one that cannot be read, is refused before
 * anything is computed or written. Frame 0 stays in *first. */
static int seq_check_frames(const char *cmd, char **files, int n, int show,
                            clv_host_image *first)
{
    int rc = cli_read(cmd, files[0], first);
    for (int k = 1; !rc && k < n; k++) {
        clv_host_image frame = {0};
        if (show)
            cli_status("clv: flow-seq: reading frame %d/%d", k + 1, n);
        rc = cli_read(cmd, files[k], &frame);
        if (!rc)
            rc = seq_same_frame(cmd, files, k, &frame, first);
        clv_host_image_free(&frame);
    }
    return rc; /* the pairs' progress line replaces the reading one */
}

/* The largest known motion of a flow field as clv_flow_to_color finds it
 * (float squares; |u|, |v| >= 1e9 and NaN left out), 1 for a field without
 * any, as there: the scale of a sequence's colour frames. */
static double seq_largest_motion(const clv_host_image *flow)
{
    float m = 0.0f;
    for (int y = 0; y < flow->height; y++) {
        const float *row = (const float *)((const char *)flow->data + (size_t)y * flow->stride);
        for (int x = 0; x < flow->width; x++) {
            const float u = row[2 * x], v = row[2 * x + 1];
            if (fabsf(u) < 1e9f && fabsf(v) < 1e9f && u * u + v * v > m)
                m = u * u + v * v;
        }
    }
    return m > 0.0f ? (double)sqrtf(m) : 1.0;
}

/* Colour coding of the flow on the device with full colour at scale
 * pixels, downloaded into h_rgb. */
static int seq_color(const char *cmd, clv_context *ctx, const clv_image *flow, clv_image *rgb,
                     double scale, clv_host_image *h_rgb)
{
    clv_status s = clv_flow_to_color(ctx, flow, rgb, scale);
    if (s == CLV_OK)
        s = clv_image_download(rgb, h_rgb->data, h_rgb->stride);
    if (s != CLV_OK)
        return cli_fail_status(cmd, ctx, s, "colour coding failed");
    return 0;
}

/* The stop signals, and what their handler says: the pairs in place so
 * far (set with the signals blocked, right after a pair's renames), of how
 * many. */
static const int seq_signals[3] = {SIGINT, SIGTERM, SIGHUP};
static struct {
    volatile sig_atomic_t done;
    int pairs, tty;
    int installed[3];
    struct sigaction old[3];
} seq_note;

static size_t seq_put(char *buf, size_t n, size_t size, const char *s)
{
    while (*s && n + 1 < size)
        buf[n++] = *s++;
    return n;
}

/* v >= 0 in decimal, zero-padded to width digits. */
static size_t seq_put_int(char *buf, size_t n, size_t size, long v, int width)
{
    char d[24];
    int k = 0;
    do {
        d[k++] = (char)('0' + v % 10);
        v /= 10;
    } while ((v > 0 || k < width) && k < (int)sizeof d);
    while (k > 0 && n + 1 < size)
        buf[n++] = d[--k];
    return n;
}

/* "clv: flow-seq: interrupted after N of M pairs ..." on stderr, then the
 * previous disposition takes the signal (clv.c's: remove the temporary
 * files, die of the signal). Async-signal-safe. */
static void seq_on_signal(int sig)
{
    const int saved = errno;
    const long done = seq_note.done;
    char msg[160];
    size_t n = 0;
    if (seq_note.tty)
        n = seq_put(msg, n, sizeof msg, "\n"); /* after the progress line */
    n = seq_put(msg, n, sizeof msg, "clv: flow-seq: interrupted after ");
    n = seq_put_int(msg, n, sizeof msg, done, 1);
    n = seq_put(msg, n, sizeof msg, " of ");
    n = seq_put_int(msg, n, sizeof msg, seq_note.pairs, 1);
    n = seq_put(msg, n, sizeof msg, " pairs");
    if (done > 0) {
        n = seq_put(msg, n, sizeof msg, ": flow_0000");
        if (done > 1) {
            n = seq_put(msg, n, sizeof msg, " to flow_");
            n = seq_put_int(msg, n, sizeof msg, done - 1, 4);
        }
        n = seq_put(msg, n, sizeof msg, " written");
    }
    n = seq_put(msg, n, sizeof msg, "\n");
    ssize_t w = write(STDERR_FILENO, msg, n);
    (void)w;
    clv_remove_temporaries(); /* also when nobody else does */
    for (int k = 0; k < 3; k++)
        if (seq_signals[k] == sig && seq_note.installed[k])
            (void)sigaction(sig, &seq_note.old[k], NULL);
    raise(sig); /* blocked while here: the restored disposition takes it on return */
    errno = saved;
}

/* Puts seq_on_signal in front of the stop signals' handlers (not of an
 * ignored signal: nohup, a background job). */
static void seq_signals_install(int pairs, int tty)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = seq_on_signal;
    sigemptyset(&sa.sa_mask);
    for (int k = 0; k < 3; k++)
        sigaddset(&sa.sa_mask, seq_signals[k]);
    seq_note.done = 0;
    seq_note.pairs = pairs;
    seq_note.tty = tty;
    for (int k = 0; k < 3; k++) {
        struct sigaction *old = &seq_note.old[k];
        seq_note.installed[k] = 0;
        if (sigaction(seq_signals[k], NULL, old) != 0 ||
            (!(old->sa_flags & SA_SIGINFO) && old->sa_handler == SIG_IGN))
            continue;
        seq_note.installed[k] = sigaction(seq_signals[k], &sa, NULL) == 0;
    }
}

static void seq_signals_restore(void)
{
    for (int k = 0; k < 3; k++) {
        if (seq_note.installed[k])
            (void)sigaction(seq_signals[k], &seq_note.old[k], NULL);
        seq_note.installed[k] = 0;
    }
}

/* "flow_0000" or "flow_0000 to flow_NNNN" for the first done pairs. */
static void seq_range(int done, char *buf, size_t size)
{
    if (done > 1)
        snprintf(buf, size, "flow_0000 to flow_%04d", done - 1);
    else
        snprintf(buf, size, "flow_0000");
}

/* Pair k's files, flow_NNNN.flo and (rgb not NULL) flow_NNNN.png, each
 * staged and renamed into place now. The renames and the count run with
 * the stop signals blocked, so a signal finds the pair whole or not there
 * and the handler's count right. */
static int seq_write_pair(const char *cmd, const char *out_dir, int k,
                          const clv_host_image *flow, const clv_host_image *rgb)
{
    char path[4096];
    const size_t dir_len = strlen(out_dir);
    const char *sep = out_dir[dir_len - 1] == '/' ? "" : "/";
    if (snprintf(path, sizeof path, "%s%sflow_%04d.flo", out_dir, sep, k) >=
        (int)sizeof path - 4) {
        cli_error(cmd, "output path too long");
        return CLI_EXIT_RUNTIME;
    }
    cli_outputs outs;
    cli_outputs_init(&outs);
    int rc = cli_outputs_flo(cmd, &outs, path, flow);
    if (!rc && rgb) {
        memcpy(path + strlen(path) - 4, ".png", 4);
        rc = cli_outputs_image(cmd, &outs, path, rgb);
    }
    if (!rc) {
        sigset_t set, old;
        sigemptyset(&set);
        for (int i = 0; i < 3; i++)
            sigaddset(&set, seq_signals[i]);
        pthread_sigmask(SIG_BLOCK, &set, &old);
        rc = cli_outputs_commit(cmd, &outs);
        if (!rc)
            seq_note.done = k + 1;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    cli_outputs_free(&outs);
    return rc;
}

/* The progress after done of pairs: the line in place on a terminal; else
 * a plain line every SEQ_PROGRESS_EVERY pairs and after the last (of a
 * sequence that long: a short run stays quiet). */
static void seq_progress(int tty, int done, int pairs)
{
    if (tty) {
        cli_status("clv: flow-seq: %d/%d pairs", done, pairs);
    } else if (done > 0 && (done % SEQ_PROGRESS_EVERY == 0 ||
                            (done == pairs && pairs >= SEQ_PROGRESS_EVERY))) {
        fprintf(stderr, "clv: flow-seq: %d/%d pairs\n", done, pairs);
        fflush(stderr);
    }
}

/* The end of a flow-seq run, from one device or several: the progress line
 * closed, the signals restored, and after a failure (rc) either the line
 * saying which pairs are in place or the directories this run created
 * removed. Frees first_created. */
static void seq_end(const char *cmd, int rc, int signals_set, int made_dir, int pairs,
                    const char *out_dir, char *first_created)
{
    cli_status_end();
    if (signals_set)
        seq_signals_restore();
    if (rc && seq_note.done > 0) {
        char range[64];
        seq_range(seq_note.done, range, sizeof range);
        cli_error(cmd, "wrote %d of %d pairs into '%s' (%s) before the failure", (int)seq_note.done,
                  pairs, out_dir, range);
    } else if (rc && made_dir) {
        cli_remove_created_dirs(out_dir, first_created);
    }
    free(first_created);
}

/* Test hook (tests/test_flow_seq_devices.py): CLV_TEST_SEQ_FAIL_PAIR=N makes
 * the flow of pair N fail, as a device failure would, so that the failure
 * paths of one and of several devices can be compared. -1 when unset. */
static int seq_test_fail_pair(void)
{
    const char *v = getenv("CLV_TEST_SEQ_FAIL_PAIR");
    int k = -1;
    if (v && *v && cli_parse_int(v, 0, INT_MAX, &k) != 0)
        k = -1;
    return k;
}

static int seq_test_fail(const char *cmd, int fail_pair, int k)
{
    if (k != fail_pair)
        return 0;
    cli_error(cmd, "flow failed: test failure of pair %d (CLV_TEST_SEQ_FAIL_PAIR)", k);
    return CLI_EXIT_RUNTIME;
}

/* ---- flow-seq over several devices -------------------------------------
 *
 * One context per device, each driven by its own thread; the main thread
 * writes the pairs in order. A device takes SEQ_BLOCK_PAIRS consecutive
 * pairs at a time (it reads one frame more than it has pairs), computes them
 * exactly as one device does (the same gray, flow and colour calls on its own
 * images) and leaves each in a slot; pair k waits in slot k % nslots until
 * it is written. A device takes block b only once the pairs of block
 * b - workers (the same slots) are written, so at most workers *
 * SEQ_BLOCK_PAIRS finished pairs wait in memory. The colour scale is pair
 * 0's largest motion (unless --max-flow): the colour of any pair waits for
 * it. A failure of pair f (on a device, or writing it) stops everything
 * after f; the pairs before f are still finished and written, so that a
 * sequence ends as it would on one device. */

/* Pairs a device takes at a time. */
#define SEQ_BLOCK_PAIRS 4
/* Most devices of --devices. */
#define SEQ_MAX_DEVICES 16
#define SEQ_STR(x) #x
#define SEQ_XSTR(x) SEQ_STR(x) /* a number macro's value in help text */

typedef struct seq_slot {
    clv_host_image flow, rgb; /* rgb only with --color */
    int ready;                /* computed and not yet written (under mu) */
} seq_slot;

typedef struct seq_multi {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* Set before the workers start, read-only after. */
    const char *cmd;
    char **files;
    const clv_host_image *shape;
    const clv_farneback_params *fp;
    int pairs, blocks, workers, color, timed, test_fail;
    seq_slot *slots;
    int nslots;
    /* Under mu. */
    int next_block; /* the block the next free device takes */
    int written;    /* pairs written, in order */
    int running;    /* workers that have not finished */
    int stop_pair;  /* nothing from this pair on is computed or written */
    double scale;   /* of the colour frames; 0 until pair 0 sets it */
    int fail_pair;  /* the lowest pair that failed on a device, or -1 */
    char fail_msg[1200];
} seq_multi;

typedef struct seq_worker {
    seq_multi *m;
    const char *spec;
    clv_context *ctx;
    cli_gray gc;
    int gc_made, started, warmed;
    clv_image *col, *gray[2], *flow, *rgb;
    clv_host_image frame;
    double wall_ms, device_ms;
    pthread_t thread;
} seq_worker;

/* The device's context, gray converter and images (in the main thread:
 * errors are printed). */
static int seq_worker_init(const char *cmd, const cli_globals *g, const clv_host_image *shape,
                           cli_gray_weights weights, int color, seq_worker *w)
{
    cli_globals gd = *g;
    gd.device = w->spec;
    int rc = cli_context(cmd, &gd, g->time, &w->ctx);
    if (rc)
        return rc;
    rc = cli_gray_init(cmd, w->ctx, shape, cli_gray_type(shape->type), weights, FLOW_F32_FULL,
                       &w->gc);
    if (rc)
        return rc;
    w->gc_made = 1;
    const int wd = shape->width, ht = shape->height;
    if ((rc = create_image(cmd, w->ctx, wd, ht, 1, w->gc.out_type, &w->gray[0])) != 0 ||
        (rc = create_image(cmd, w->ctx, wd, ht, 1, w->gc.out_type, &w->gray[1])) != 0 ||
        (!cli_gray_identity(&w->gc) &&
         (rc = create_image(cmd, w->ctx, wd, ht, shape->channels, shape->type, &w->col)) != 0) ||
        (rc = create_image(cmd, w->ctx, wd, ht, 2, CLV_F32, &w->flow)) != 0 ||
        (color && (rc = create_image(cmd, w->ctx, wd, ht, 3, CLV_U8, &w->rgb)) != 0))
        return rc;
    return 0;
}

static void seq_worker_free(const cli_globals *g, seq_worker *w)
{
    clv_image_release(w->rgb);
    clv_image_release(w->flow);
    clv_image_release(w->col);
    clv_image_release(w->gray[1]);
    clv_image_release(w->gray[0]);
    if (w->gc_made)
        cli_gray_free(&w->gc);
    cli_context_release(g, w->ctx);
    clv_host_image_free(&w->frame);
}

/* Frame k read, uploaded and turned into gray in gray[k % 2]. */
static int seq_worker_load(seq_worker *w, int k)
{
    const seq_multi *m = w->m;
    clv_host_image_free(&w->frame);
    int rc = cli_read(m->cmd, m->files[k], &w->frame);
    if (!rc)
        rc = seq_same_frame(m->cmd, m->files, k, &w->frame, m->shape);
    if (rc)
        return rc;
    clv_image *target = w->col ? w->col : w->gray[k % 2];
    clv_status s = clv_image_upload(target, w->frame.data, w->frame.stride);
    if (s != CLV_OK)
        return cli_fail_status(m->cmd, w->ctx, s, "cannot upload a frame");
    return w->col ? cli_gray_convert(m->cmd, &w->gc, w->col, w->gray[k % 2]) : 0;
}

/* 1 when pair k is not to be computed any more. */
static int seq_stopped(seq_multi *m, int k)
{
    pthread_mutex_lock(&m->mu);
    const int stop = k >= m->stop_pair;
    pthread_mutex_unlock(&m->mu);
    return stop;
}

/* The colour scale for pair k (its flow in h_flow): pair 0 sets it, the
 * others wait for it. 0 when pair 0 will not set it (it failed). */
static double seq_scale(seq_multi *m, int k, const clv_host_image *h_flow)
{
    pthread_mutex_lock(&m->mu);
    if (k == 0 && m->scale <= 0.0) {
        m->scale = seq_largest_motion(h_flow);
        pthread_cond_broadcast(&m->cv);
    }
    while (m->scale <= 0.0 && m->stop_pair > 0)
        pthread_cond_wait(&m->cv, &m->mu);
    const double scale = m->scale;
    pthread_mutex_unlock(&m->mu);
    return scale;
}

/* The pairs of block b into their slots. Returns -1, or the pair that
 * failed (its message captured). */
static int seq_worker_block(seq_worker *w, int b)
{
    seq_multi *m = w->m;
    const char *cmd = m->cmd;
    const int first = b * SEQ_BLOCK_PAIRS;
    const int end = m->pairs - first < SEQ_BLOCK_PAIRS ? m->pairs : first + SEQ_BLOCK_PAIRS;
    if (seq_worker_load(w, first) != 0)
        return first;
    for (int k = first; k < end; k++) {
        seq_slot *slot = &m->slots[k % m->nslots];
        if (seq_stopped(m, k))
            return -1;
        if (seq_worker_load(w, k + 1) != 0)
            return k;
        clv_image *prev = w->gray[k % 2], *next = w->gray[(k + 1) % 2];
        if (m->timed && !w->warmed) {
            /* Untimed first run on this device: builds the kernels and the
             * workspace. */
            clv_status s = clv_farneback(w->ctx, prev, next, w->flow, m->fp);
            if (s == CLV_OK)
                s = clv_finish(w->ctx);
            if (s != CLV_OK) {
                const int rc = cli_fail_status(cmd, w->ctx, s, "flow failed");
                (void)rc; /* the message is what the caller reports */
                return k;
            }
            w->warmed = 1;
        }
        if (seq_test_fail(cmd, m->test_fail, k) != 0 ||
            cli_flow_pair(cmd, w->ctx, prev, next, w->flow, NULL, m->fp, &slot->flow, NULL,
                          m->timed ? &w->wall_ms : NULL, m->timed ? &w->device_ms : NULL) != 0)
            return k;
        if (m->color) {
            const double scale = seq_scale(m, k, &slot->flow);
            if (scale <= 0.0)
                return -1; /* pair 0 failed: nothing after it is written */
            if (seq_color(cmd, w->ctx, w->flow, w->rgb, scale, &slot->rgb) != 0)
                return k;
        }
        pthread_mutex_lock(&m->mu);
        slot->ready = 1;
        pthread_cond_broadcast(&m->cv);
        pthread_mutex_unlock(&m->mu);
    }
    return -1;
}

static void *seq_worker_main(void *arg)
{
    seq_worker *w = arg;
    seq_multi *m = w->m;
    char msg[sizeof m->fail_msg];
    int failed = -1;
    cli_error_capture(msg, sizeof msg);
    for (;;) {
        pthread_mutex_lock(&m->mu);
        /* Block b reuses the slots of block b - workers: wait until they
         * are written. */
        while (m->next_block < m->blocks && m->next_block * SEQ_BLOCK_PAIRS < m->stop_pair &&
               (m->next_block + 1 - m->workers) * SEQ_BLOCK_PAIRS > m->written)
            pthread_cond_wait(&m->cv, &m->mu);
        int b = -1;
        if (m->next_block < m->blocks && m->next_block * SEQ_BLOCK_PAIRS < m->stop_pair)
            b = m->next_block++;
        pthread_mutex_unlock(&m->mu);
        if (b < 0 || (failed = seq_worker_block(w, b)) >= 0)
            break;
    }
    cli_error_capture(NULL, 0);
    pthread_mutex_lock(&m->mu);
    if (failed >= 0) {
        if (failed < m->stop_pair)
            m->stop_pair = failed;
        if (m->fail_pair < 0 || failed < m->fail_pair) {
            m->fail_pair = failed;
            if (msg[0])
                snprintf(m->fail_msg, sizeof m->fail_msg, "%s", msg);
            else
                snprintf(m->fail_msg, sizeof m->fail_msg, "clv: %s: pair %d failed on '%s'",
                         m->cmd, failed, w->spec);
        }
    }
    m->running--;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

/* The main thread's part: each pair written as soon as it and all before it
 * are done. Returns 0, or the exit status of a write failure (printed). */
static int seq_multi_write(seq_multi *m, const char *out_dir, int show)
{
    int rc = 0;
    for (int k = 0; k < m->pairs; k++) {
        seq_slot *slot = &m->slots[k % m->nslots];
        pthread_mutex_lock(&m->mu);
        while (!slot->ready && k < m->stop_pair && m->running > 0)
            pthread_cond_wait(&m->cv, &m->mu);
        const int ready = slot->ready && k < m->stop_pair;
        pthread_mutex_unlock(&m->mu);
        if (!ready)
            break; /* a device failed: the failure is reported by the caller */
        rc = seq_write_pair(m->cmd, out_dir, k, &slot->flow, m->color ? &slot->rgb : NULL);
        pthread_mutex_lock(&m->mu);
        slot->ready = 0;
        if (rc) {
            if (k < m->stop_pair)
                m->stop_pair = k;
        } else {
            m->written = k + 1;
        }
        pthread_cond_broadcast(&m->cv);
        pthread_mutex_unlock(&m->mu);
        if (rc)
            break;
        seq_progress(show, k + 1, m->pairs);
    }
    return rc;
}

/* flow-seq with one context per spec (ndev >= 2): the same files as one
 * device gives. */
static int seq_run_devices(const cli_globals *g, const char *cmd, char **files, int frames,
                           const char *out_dir, const clv_farneback_params *fp, int color,
                           double max_flow, cli_gray_weights weights, char *const *specs,
                           int ndev)
{
    const int pairs = frames - 1, show = isatty(STDERR_FILENO);
    seq_multi m;
    seq_worker w[SEQ_MAX_DEVICES];
    clv_host_image first = {0};
    char *first_created = NULL;
    int made_dir = 0, signals_set = 0, sync_made = 0, rc;
    memset(&m, 0, sizeof m);
    memset(w, 0, sizeof w);
    m.cmd = cmd;
    m.files = files;
    m.fp = fp;
    m.pairs = pairs;
    m.blocks = (pairs + SEQ_BLOCK_PAIRS - 1) / SEQ_BLOCK_PAIRS;
    m.workers = ndev < m.blocks ? ndev : m.blocks; /* a device without a block has nothing to do */
    m.color = color;
    m.timed = g->time;
    m.test_fail = seq_test_fail_pair();
    m.stop_pair = pairs;
    m.fail_pair = -1;
    m.scale = max_flow;

    if ((rc = seq_check_frames(cmd, files, frames, show, &first)) != 0)
        goto out;
    const clv_host_image shape = {.width = first.width, .height = first.height,
                                  .channels = first.channels, .type = first.type};
    m.shape = &shape;
    m.nslots = m.workers * SEQ_BLOCK_PAIRS;
    m.slots = calloc((size_t)m.nslots, sizeof *m.slots);
    if (!m.slots) {
        cli_error(cmd, "out of memory");
        rc = CLI_EXIT_RUNTIME;
        goto out;
    }
    for (int i = 0; i < m.nslots; i++)
        if ((rc = cli_host_alloc(cmd, shape.width, shape.height, 2, CLV_F32,
                                 &m.slots[i].flow)) != 0 ||
            (color && (rc = cli_host_alloc(cmd, shape.width, shape.height, 3, CLV_U8,
                                           &m.slots[i].rgb)) != 0))
            goto out;
    seq_signals_install(pairs, show);
    signals_set = 1;
    if ((rc = cli_make_dirs(cmd, out_dir, &first_created)) != 0)
        goto out;
    made_dir = 1;
    /* Every device is set up, also one that gets no block: a spec that
     * does not work is an error whatever the length of the sequence. */
    for (int i = 0; i < ndev; i++) {
        w[i].m = &m;
        w[i].spec = specs[i];
        if ((rc = seq_worker_init(cmd, g, &shape, weights, color, &w[i])) != 0)
            goto out;
    }
    if (pthread_mutex_init(&m.mu, NULL) != 0) {
        cli_error(cmd, "cannot create a mutex");
        rc = CLI_EXIT_RUNTIME;
        goto out;
    }
    if (pthread_cond_init(&m.cv, NULL) != 0) {
        pthread_mutex_destroy(&m.mu);
        cli_error(cmd, "cannot create a condition variable");
        rc = CLI_EXIT_RUNTIME;
        goto out;
    }
    sync_made = 1;
    seq_progress(show, 0, pairs);
    /* The workers start with the stop signals blocked: only this thread,
     * which writes the files, takes them (the handler's count is right). */
    sigset_t set, old;
    sigemptyset(&set);
    for (int i = 0; i < 3; i++)
        sigaddset(&set, seq_signals[i]);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    m.running = m.workers;
    for (int i = 0; i < m.workers; i++) {
        const int e = pthread_create(&w[i].thread, NULL, seq_worker_main, &w[i]);
        if (e == 0) {
            w[i].started = 1;
            continue;
        }
        pthread_mutex_lock(&m.mu);
        m.running -= m.workers - i;
        m.stop_pair = 0;
        pthread_cond_broadcast(&m.cv);
        pthread_mutex_unlock(&m.mu);
        cli_error(cmd, "cannot start a thread for device '%s': %s", w[i].spec, strerror(e));
        rc = CLI_EXIT_RUNTIME;
        break;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!rc)
        rc = seq_multi_write(&m, out_dir, show);
    for (int i = 0; i < m.workers; i++)
        if (w[i].started)
            pthread_join(w[i].thread, NULL);
    if (!rc && m.fail_pair >= 0) {
        /* The writes stopped at the device's failure: its message now, after
         * the pairs before it are in place. */
        cli_status_end();
        fprintf(stderr, "%s\n", m.fail_msg);
        rc = CLI_EXIT_RUNTIME;
    }
    if (!rc) {
        cli_status_end();
        if (g->time) {
            double wall_ms = 0.0, device_ms = 0.0;
            for (int i = 0; i < m.workers; i++) {
                wall_ms += w[i].wall_ms;
                device_ms += w[i].device_ms;
            }
            cli_print_time(wall_ms, device_ms);
        }
    }

out:
    seq_end(cmd, rc, signals_set, made_dir, pairs, out_dir, first_created);
    for (int i = 0; i < ndev; i++)
        seq_worker_free(g, &w[i]);
    if (sync_made) {
        pthread_cond_destroy(&m.cv);
        pthread_mutex_destroy(&m.mu);
    }
    for (int i = 0; m.slots && i < m.nslots; i++) {
        clv_host_image_free(&m.slots[i].rgb);
        clv_host_image_free(&m.slots[i].flow);
    }
    free(m.slots);
    clv_host_image_free(&first);
    return rc;
}

/* --devices SPEC[,SPEC...] split into specs (pointing into buf): 1 to
 * SEQ_MAX_DEVICES non-empty specs, not with --device. */
static int seq_parse_devices(const char *cmd, const cli_globals *g, const char *list, char *buf,
                             size_t size, char **specs, int *n)
{
    *n = 0;
    if (g->device)
        return cli_usage_error(cmd, "--device and --devices do not go together (--devices "
                                    "SPEC,SPEC names every device)");
    if (strlen(list) >= size)
        return cli_usage_error(cmd, "--devices list longer than %zu characters", size - 1);
    memcpy(buf, list, strlen(list) + 1);
    for (char *p = buf;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (!*p)
            return cli_usage_error(cmd, "empty device in --devices '%s' (expected "
                                        "SPEC[,SPEC...], as for --device)", list);
        if (*n == SEQ_MAX_DEVICES)
            return cli_usage_error(cmd, "--devices names more than %d devices", SEQ_MAX_DEVICES);
        specs[(*n)++] = p;
        if (!comma)
            return 0;
        p = comma + 1;
    }
}

int cli_cmd_flow_seq(const cli_globals *g, int argc, char **argv)
{
    const char *cmd = "flow-seq";
    const char *pos[CLI_MAX_POS];
    int npos = 0, rc, color = 0;
    double max_flow = 0.0; /* 0: the first pair's largest motion */
    cli_gray_weights weights = CLI_GRAY_601;
    clv_farneback_params fp = clv_farneback_params_default();
    const char *devices = NULL; /* --devices SPEC[,SPEC...] */
    cli_args a;
    const char *name = NULL, *p = NULL;
    int k;
    cli_args_init(&a, cmd, argc, argv);
    while ((k = cli_args_next(&a, &name, &p)) != 0) {
        if (k == 2) {
            cli_keep_positional(&npos, pos, p);
            continue;
        }
        if (cli_wants_help(name)) {
            printf("usage: clv flow-seq [--pyr-scale S] [--levels N] [--winsize W]\n"
                   "                    [--iterations I] [--poly-n N] [--poly-sigma S]\n"
                   "                    [--gaussian] [--gray 601|709] [--color [--max-flow M]]\n"
                   "                    [--devices SPEC[,SPEC...]] FRAME_GLOB OUT_DIR\n"
                   "Flow between consecutive frames: FRAME_GLOB (quote it) is expanded and put in\n"
                   "natural order (digit runs by value: f_2 before f_10); OUT_DIR/flow_NNNN.flo\n"
                   "is the flow from frame NNNN to frame NNNN+1 (from 0). At least 2 frames, all\n"
                   "of one size and pixel type: every frame is read once before any flow is\n"
                   "computed, and a sequence with a frame of another size, or one that cannot be\n"
                   "read, is refused with nothing written. OUT_DIR is created if missing.\n"
                   "--color: also OUT_DIR/flow_NNNN.png, the flow in the Middlebury colour wheel\n"
                   "(hue = direction, saturation = magnitude), every frame on one scale so that a\n"
                   "video of them does not flicker: full colour at --max-flow M pixels (M > 0),\n"
                   "by default at the first pair's largest motion (1 if it has none); larger\n"
                   "motions are darker.\n"
                   "Each pair's files are renamed into place as soon as the pair is done: after a\n"
                   "failure, or SIGINT/SIGTERM/SIGHUP, the pairs done so far stay, whole, with no\n"
                   "temporary files, and a line says how many (\"wrote 3 of 99 pairs ...\",\n"
                   "\"interrupted after 3 of 99 pairs ...\"). Progress: a line rewritten in place\n"
                   "when stderr is a terminal; otherwise (logs, CI) a plain line\n"
                   "\"clv: flow-seq: N/M pairs\" every 10 pairs and after the last of a run of 10\n"
                   "or more. --time gives the flow computations summed over the pairs.\n"
                   "--devices SPEC,SPEC...: spread the pairs over several devices (each SPEC as\n"
                   "for --device; a device may be named twice, for two queues on it; at most "
                   SEQ_XSTR(SEQ_MAX_DEVICES) "):\n"
                   "each takes " SEQ_XSTR(SEQ_BLOCK_PAIRS) " consecutive pairs at a time, the files are written in order, the\n"
                   "same as with one device. Not with --device.\n"
                   FARNEBACK_HELP);
            return CLI_EXIT_OK;
        }
        if (strcmp(name, "--color") == 0) {
            if (a.inline_value)
                return cli_usage_error(cmd, "option --color takes no value");
            color = 1;
            continue;
        }
        if (strcmp(name, "--max-flow") == 0) {
            const cli_range positive = {0.0, INFINITY, 1};
            if ((rc = cli_args_number(&a, name, positive, &max_flow)) != 0)
                return rc;
            continue;
        }
        if (strcmp(name, "--gray") == 0) {
            if ((rc = cli_args_gray(&a, name, &weights)) != 0)
                return rc;
            continue;
        }
        if (strcmp(name, "--devices") == 0) {
            if (!(devices = cli_args_value(&a, name)))
                return CLI_EXIT_USAGE;
            continue;
        }
        rc = farneback_option(&a, name, &fp);
        if (rc < 0)
            return -rc;
        if (rc == 0)
            return cli_usage_error(cmd, "unknown option '%s'", name);
    }
    const char *paths[2] = {NULL};
    if ((rc = take_paths(cmd, npos, pos, 2, npos == 0 ? "FRAME_GLOB and OUT_DIR" : "OUT_DIR",
                         paths)) != 0)
        return rc;
    if (max_flow > 0.0 && !color)
        return cli_usage_error(cmd, "--max-flow sets the scale of the --color images; give "
                                    "--color too");
    char spec_buf[1024];
    char *specs[SEQ_MAX_DEVICES];
    int ndev = 0;
    if (devices && (rc = seq_parse_devices(cmd, g, devices, spec_buf, sizeof spec_buf, specs,
                                           &ndev)) != 0)
        return rc;
    cli_globals g_one = *g; /* one device: --device, or --devices with one spec */
    if (ndev == 1)
        g_one.device = specs[0];
    g = &g_one;
    const char *pattern = paths[0], *out_dir = paths[1];

    glob_t gl;
    memset(&gl, 0, sizeof gl);
    int gr = glob(pattern, GLOB_ERR | GLOB_NOSORT, NULL, &gl);
    if (gr != 0 && gr != GLOB_NOMATCH) {
        cli_error(cmd, "cannot expand '%s': %s", pattern,
                  gr == GLOB_NOSPACE ? "out of memory" : "a directory could not be read");
        globfree(&gl);
        return CLI_EXIT_RUNTIME;
    }
    const int frames = gr == GLOB_NOMATCH ? 0 : (int)gl.gl_pathc;
    if (frames < 2) {
        cli_error(cmd, "'%s' matches %d file%s: flow needs at least 2 frames", pattern, frames,
                  frames == 1 ? "" : "s");
        globfree(&gl);
        return CLI_EXIT_RUNTIME;
    }
    char **files = gl.gl_pathv;
    qsort(files, (size_t)frames, sizeof *files, frame_order);
    if (ndev >= 2) {
        rc = seq_run_devices(g, cmd, files, frames, out_dir, &fp, color, max_flow, weights, specs,
                             ndev);
        globfree(&gl);
        return rc;
    }
    const int pairs = frames - 1;
    const int test_fail = seq_test_fail_pair();

    clv_host_image hf[2] = {{0}, {0}}, h_flow = {0}, h_rgb = {0};
    clv_context *ctx = NULL;
    clv_image *dev[3] = {NULL, NULL, NULL}, *col[2] = {NULL, NULL}, *d_flow = NULL, *d_rgb = NULL;
    cli_gray gc = {0};
    char *first_created = NULL;
    int made_dir = 0, signals_set = 0;
    const int show = isatty(STDERR_FILENO);
    double wall_ms = 0.0, device_ms = 0.0;
    double scale = max_flow; /* of the colour frames; 0 until the first pair sets it */
    clv_status s;

    if ((rc = seq_check_frames(cmd, files, frames, show, &hf[0])) != 0)
        goto out;
    const int w = hf[0].width, h = hf[0].height, cn = hf[0].channels;
    const clv_pixel_type type = hf[0].type;
    const clv_host_image shape = {.width = w, .height = h, .channels = cn, .type = type};
    if ((rc = cli_host_alloc(cmd, w, h, 2, CLV_F32, &h_flow)) != 0 ||
        (color && (rc = cli_host_alloc(cmd, w, h, 3, CLV_U8, &h_rgb)) != 0))
        goto out;
    seq_signals_install(pairs, show);
    signals_set = 1;
    if ((rc = cli_make_dirs(cmd, out_dir, &first_created)) != 0)
        goto out;
    made_dir = 1;
    /* Everything the loop needs, made once: the files' frames upload
     * asynchronously, on the context's transfer queue, while the pair
     * before is computed (two host frames and, unless a frame is its own
     * gray, two device frames, in rings), each is turned into gray on the
     * device after that pair (three gray images in a ring), the flow and its
     * colour. Nothing is allocated per frame. */
    if ((rc = cli_context(cmd, g, g->time, &ctx)) != 0 ||
        (rc = cli_gray_init(cmd, ctx, &shape, cli_gray_type(type), weights, FLOW_F32_FULL,
                            &gc)) != 0)
        goto out;
    const int direct = cli_gray_identity(&gc); /* frames upload into dev[] */
    if ((rc = create_image(cmd, ctx, w, h, 1, gc.out_type, &dev[0])) != 0 ||
        (rc = create_image(cmd, ctx, w, h, 1, gc.out_type, &dev[1])) != 0 ||
        (rc = create_image(cmd, ctx, w, h, 1, gc.out_type, &dev[2])) != 0 ||
        (!direct && (rc = create_image(cmd, ctx, w, h, cn, type, &col[0])) != 0) ||
        (!direct && (rc = create_image(cmd, ctx, w, h, cn, type, &col[1])) != 0) ||
        (rc = create_image(cmd, ctx, w, h, 2, CLV_F32, &d_flow)) != 0 ||
        (color && (rc = create_image(cmd, ctx, w, h, 3, CLV_U8, &d_rgb)) != 0))
        goto out;
    seq_progress(show, 0, pairs);
    /* The upload of frame k from host frame hf[k % 2] goes into: */
#define UPLOAD_TARGET(k) (direct ? dev[(k) % 3] : col[(k) % 2])
    /* Start the upload of frame k (frame 0 is in hf[0] already); the frames
     * were checked, but a file can change since. */
#define LOAD_FRAME(k)                                                                            \
    do {                                                                                         \
        clv_host_image *hk = &hf[(k) % 2];                                                       \
        if ((k) > 0) {                                                                           \
            /* the host frame's previous upload (frame k-2) must be done before reuse */         \
            s = clv_image_wait(direct ? dev[((k) + 1) % 3] : col[(k) % 2]);                      \
            if (s != CLV_OK) {                                                                   \
                rc = cli_fail_status(cmd, ctx, s, "cannot upload a frame");                     \
                goto out;                                                                        \
            }                                                                                    \
            clv_host_image_free(hk);                                                             \
            if ((rc = cli_read(cmd, files[k], hk)) != 0)                                         \
                goto out;                                                                        \
            if ((rc = seq_same_frame(cmd, files, k, hk, &shape)) != 0)                           \
                goto out;                                                                        \
        }                                                                                        \
        s = clv_image_upload_async(UPLOAD_TARGET(k), hk->data, hk->stride);                      \
        if (s != CLV_OK) {                                                                       \
            rc = cli_fail_status(cmd, ctx, s, "cannot upload a frame");                         \
            goto out;                                                                            \
        }                                                                                        \
    } while (0)
    /* Enqueue frame k's gray into dev[k % 3] (it waits for the upload). */
#define GRAY_FRAME(k)                                                                            \
    do {                                                                                         \
        if (!direct && (rc = cli_gray_convert(cmd, &gc, col[(k) % 2], dev[(k) % 3])) != 0)       \
            goto out;                                                                            \
    } while (0)
    LOAD_FRAME(0);
    GRAY_FRAME(0);
    LOAD_FRAME(1);
    GRAY_FRAME(1);
    for (int i = 1; i < frames; i++) {
        clv_image *prev = dev[(i - 1) % 3], *next = dev[i % 3];
        if (i + 1 < frames)
            LOAD_FRAME(i + 1); /* overlaps the flow of (i-1, i) below */
        if (g->time && i == 1) {
            /* Untimed first run: builds the kernels and the workspace. */
            s = clv_farneback(ctx, prev, next, d_flow, &fp);
            if (s == CLV_OK)
                s = clv_finish(ctx);
            if (s != CLV_OK) {
                rc = cli_fail_status(cmd, ctx, s, "flow failed");
                goto out;
            }
        }
        if ((rc = seq_test_fail(cmd, test_fail, i - 1)) != 0 ||
            (rc = cli_flow_pair(cmd, ctx, prev, next, d_flow, NULL, &fp, &h_flow, NULL,
                                g->time ? &wall_ms : NULL, g->time ? &device_ms : NULL)) != 0)
            goto out;
        if (i + 1 < frames)
            GRAY_FRAME(i + 1); /* after the flow: its upload had the flow's time */
        if (color) {
            if (scale <= 0.0)
                scale = seq_largest_motion(&h_flow); /* one scale for the whole sequence */
            if ((rc = seq_color(cmd, ctx, d_flow, d_rgb, scale, &h_rgb)) != 0)
                goto out;
        }
        if ((rc = seq_write_pair(cmd, out_dir, i - 1, &h_flow, color ? &h_rgb : NULL)) != 0)
            goto out;
        seq_progress(show, i, pairs);
    }
#undef GRAY_FRAME
#undef UPLOAD_TARGET
#undef LOAD_FRAME
    cli_status_end();
    if (g->time)
        cli_print_time(wall_ms, device_ms);

out:
    seq_end(cmd, rc, signals_set, made_dir, pairs, out_dir, first_created);
    clv_image_release(d_rgb);
    clv_image_release(d_flow);
    clv_image_release(col[1]); /* releasing waits for an upload still in flight */
    clv_image_release(col[0]);
    clv_image_release(dev[2]);
    clv_image_release(dev[1]);
    clv_image_release(dev[0]);
    cli_gray_free(&gc);
    cli_context_release(g, ctx);
    clv_host_image_free(&h_rgb);
    clv_host_image_free(&h_flow);
    clv_host_image_free(&hf[0]);
    clv_host_image_free(&hf[1]);
    globfree(&gl);
    return rc;
}
