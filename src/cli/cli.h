/* clv command-line tool: helpers shared by the sub-commands.
 *
 * The tool uses the public API only. Every failure prints exactly one line,
 * "clv: <command>: <message>", on stderr and maps to an exit status below
 * 128: CLI_EXIT_RUNTIME for failures while doing the work, CLI_EXIT_USAGE
 * for bad command lines.
 */
#ifndef CLV_CLI_H
#define CLV_CLI_H

#include <stddef.h>
#include <stdint.h>

#include <clvision/clvision.h>

/* On helpers whose result says whether to go on. */
#define CLI_MUST_USE __attribute__((warn_unused_result))

enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_RUNTIME = 1,
    CLI_EXIT_USAGE = 2,
};

/* Longest library detail (clv_last_error, clv_io_last_error) quoted in an
 * error line, in bytes. Build logs can be many kilobytes. */
#define CLI_DETAIL_MAX 400

/* Options given before the command. */
typedef struct cli_globals {
    const char *device; /* --device SPEC, NULL when not given */
    int time;           /* --time */
    int verbose;        /* --verbose: say on stderr which device was chosen and why */
    int stats;          /* --stats: the context's counters on stderr when it is released */
} cli_globals;

/* A sub-command: argv[0] is the command name. Returns the exit status. */
typedef int (*cli_command_fn)(const cli_globals *g, int argc, char **argv);

/* Sub-commands (cmd_devices.c, cmd_flow.c, cmd_demo.c). */
int cli_cmd_devices(const cli_globals *g, int argc, char **argv);
int cli_cmd_pyramid(const cli_globals *g, int argc, char **argv);
int cli_cmd_corners(const cli_globals *g, int argc, char **argv);
int cli_cmd_track(const cli_globals *g, int argc, char **argv);
int cli_cmd_flow(const cli_globals *g, int argc, char **argv);
int cli_cmd_flow_eval(const cli_globals *g, int argc, char **argv);
int cli_cmd_flow_seq(const cli_globals *g, int argc, char **argv);
int cli_cmd_demo(const cli_globals *g, int argc, char **argv);
int cli_cmd_cache(const cli_globals *g, int argc, char **argv); /* cmd_cache.c */

/* Any described operation the command line can drive (cmd_op.c): options,
 * positionals and help from its descriptor. argv[0] is the name typed. */
int cli_op_supported(const clv_op_desc *op);
int cli_cmd_op(const cli_globals *g, const clv_op_desc *op, int argc, char **argv);
int cli_op_help(const clv_op_desc *op, const char *cmd);
/* The operation a command line runs (operations may share a command name)
 * and the help of every operation of that name (cmd_op.c). */
const clv_op_desc *cli_op_pick(const char *name, int argc, char **argv);
int cli_op_help_all(const char *name);
/* 'clv help --params OP': the descriptor as tab-separated lines (cmd_op.c). */
int cli_op_params(const clv_op_desc *op, const char *cmd);

/* ---- errors ---------------------------------------------------------- */

/* Print "clv: <cmd>: <message>" as one line on stderr. Control characters
 * in the message are flattened (newlines become "; "). */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* From now on this thread's cli_error messages (and those of every helper
 * that prints through it) are kept in buf instead of printed: the first one,
 * as the line "clv: <cmd>: <message>" without its newline, "" while there
 * is none. For worker threads, whose failures the main thread reports in
 * order. buf NULL: print again. */
void cli_error_capture(char *buf, size_t size);

/* cli_error, then return CLI_EXIT_USAGE with a hint to --help. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Copy a library message into buf as one line: newline runs become "; ",
 * other control characters a space, surrounding blanks are trimmed and the
 * result is cut at CLI_DETAIL_MAX bytes (marked with "..."). Returns buf. */
const char *cli_one_line(const char *detail, char *buf, size_t size);

/* Report a failed library call on ctx: "<what>: <status>: <detail>".
 * Returns CLI_EXIT_RUNTIME. ctx may be NULL. */
CLI_MUST_USE int cli_fail_status(const char *cmd, const clv_context *ctx, clv_status s,
                                 const char *what);

/* ---- strict parsing (the whole string must be consumed) -------------- */

/* Decimal integer in [min, max]: digits only, an optional leading '-' when
 * min < 0. Returns 0 on success, -1 otherwise. */
CLI_MUST_USE int cli_parse_int(const char *s, long min, long max, int *out);

/* Finite decimal number (no hex, inf, nan, leading blanks). Subnormal
 * results (1e-320) are taken, as the library takes them. Returns 0, or
 * CLI_NUM_SYNTAX (not such a number), CLI_NUM_OVERFLOW (beyond the largest
 * double, 1e999) or CLI_NUM_UNDERFLOW (non-zero digits that round to 0,
 * 1e-999); cli_number_problem says which in words. */
enum { CLI_NUM_SYNTAX = -1, CLI_NUM_OVERFLOW = -2, CLI_NUM_UNDERFLOW = -3 };
CLI_MUST_USE int cli_parse_double(const char *s, double *out);

/* "not a finite decimal number", "too large", ... for a cli_parse_double
 * result other than 0. */
const char *cli_number_problem(int code);

/* The shortest "%.<n>g" form of v that reads back as v (at most 17 digits),
 * for messages: a bound of 20 and a value of 20.0000001 never both print as
 * "20". Use as printf("%s", cli_num(v).s). */
typedef struct cli_num_text {
    char s[32];
} cli_num_text;
cli_num_text cli_num(double v);

/* "WxH" (or "WXH") with both sides integers in [min, max]. 0 or -1. */
CLI_MUST_USE int cli_parse_size(const char *s, int min, int max, int *w, int *h);

/* ---- option scanning ------------------------------------------------- */

/* Walks a sub-command's arguments: options ("--name value", "--name=value",
 * flags) in any order with positionals; "--" ends the options. */
typedef struct cli_args {
    int argc;
    char **argv;
    int i; /* next argument */
    int only_positional;
    const char *cmd;          /* command name, for messages */
    const char *inline_value; /* "=value" of the option just returned, or NULL */
    char name[64];            /* the option just returned, without "=value" */
} cli_args;

void cli_args_init(cli_args *a, const char *cmd, int argc, char **argv);

/* Next argument. Returns 1 and sets *name (the option, e.g. "--size", with
 * any "=value" stripped) for an option, 2 and sets *positional for a
 * positional, 0 at the end. */
CLI_MUST_USE int cli_args_next(cli_args *a, const char **name, const char **positional);

/* The value of the option just returned (the "=value" part or the next
 * argument). Prints a usage error and returns NULL when there is none. */
CLI_MUST_USE const char *cli_args_value(cli_args *a, const char *name);

/* Bounds for cli_args_number. */
typedef struct cli_range {
    double lo, hi; /* -INFINITY / INFINITY for none */
    int lo_open;   /* 1: the value must be > lo, 0: >= lo */
} cli_range;

/* The value of the option just returned as a finite decimal number within
 * range (cli_parse_double). Prints a usage error naming the option and the
 * bounds and returns CLI_EXIT_USAGE otherwise; 0 on success. */
CLI_MUST_USE int cli_args_number(cli_args *a, const char *name, cli_range range, double *out);

/* Room for the positionals a command keeps: one more than any command
 * takes, to name the extra one. */
#define CLI_MAX_POS 4

/* Keep positional p in pos (CLI_MAX_POS entries) while there is room; *npos
 * counts up to CLI_MAX_POS. */
void cli_keep_positional(int *npos, const char **pos, const char *p);

/* The whole argument scan of a command that takes no options: keeps the
 * positionals (cli_keep_positional) and prints usage (plain text, no format)
 * on stdout for -h/--help. Returns -1 to go on, CLI_EXIT_OK after the help,
 * CLI_EXIT_USAGE (with the error printed) for any other option. */
CLI_MUST_USE int cli_args_positionals(const char *cmd, int argc, char **argv, const char *usage,
                                      const char **pos, int *npos);

/* "-h" or "--help". */
int cli_wants_help(const char *name);

/* Refuses two outputs that are one file: the same name in other spellings
 * (a.png, ./a.png, d/../a.png: the directory's inode plus the name) or,
 * for files that exist, one inode (hard or symbolic links). A later rename
 * would otherwise silently replace the first output by the second. what[i]
 * names paths[i] in the message ("OUT.csv", "--draw"); NULL paths are
 * skipped. Returns 0, or CLI_EXIT_USAGE with the error printed. An output
 * may be one of the inputs: every input is read whole before any output is
 * renamed into place (the library writes images the same way). */
CLI_MUST_USE int cli_distinct_outputs(const char *cmd, int n, const char *const *paths,
                                      const char *const *what);

/* IN and OUT from the positionals seen (npos of them, the first
 * min(npos, 3) in pos): a usage error unless there are exactly two non-empty
 * ones. Returns 0 or CLI_EXIT_USAGE. */
CLI_MUST_USE int cli_two_paths(const char *cmd, int npos, const char *const *pos,
                               const char **in, const char **out);

/* ---- images and contexts --------------------------------------------- */

/* Create a context honouring --device; profiling when asked. Prints the
 * error (with the device list when the spec matched nothing) on failure. */
CLI_MUST_USE int cli_context(const char *cmd, const cli_globals *g, int profiling,
                             clv_context **out);

/* Release a context of cli_context; with --stats first print its counters
 * as one line on stderr ("stats: programs_built=N cache_hits=N
 * cache_writes=N cache_rejected=N cache_write_failures=N"). NULL is fine. */
void cli_context_release(const cli_globals *g, clv_context *ctx);

/* Read an image file. Prints the error on failure. */
CLI_MUST_USE int cli_read(const char *cmd, const char *path, clv_host_image *out);

/* Write an image file (format from the extension). Prints the error. */
CLI_MUST_USE int cli_write(const char *cmd, const char *path, const clv_host_image *img);

/* New device image holding a copy of the host image. */
CLI_MUST_USE int cli_upload(const char *cmd, clv_context *ctx, const clv_host_image *host,
                            clv_image **out);

/* clv_host_image_alloc, also for 2 channels (flow fields), which it
 * refuses: those are allocated here, packed and zeroed, with malloc (what
 * clv_host_image_free frees, as for the .flo reader's images). Prints the
 * error. */
CLI_MUST_USE int cli_host_alloc(const char *cmd, int width, int height, int channels,
                                clv_pixel_type type, clv_host_image *out);

/* New packed host image holding a copy of the device image. */
CLI_MUST_USE int cli_download(const char *cmd, clv_context *ctx, const clv_image *img,
                              clv_host_image *out);

/* "gray", "gray+alpha"... name for a channel count. */
const char *cli_channels_name(int channels);

/* New packed 3-channel image of the same type with R = G = B = the value of
 * a 1-channel image. Prints the error. */
CLI_MUST_USE int cli_host_gray_to_rgb(const char *cmd, const clv_host_image *in,
                                      clv_host_image *out);

/* ---- colour to gray, on the device (clv_convert_color) ---------------- */

/* The weights of the commands' colour -> gray conversion (--gray 601|709).
 * Files are read as RGB(A); alpha is ignored.
 *   CLI_GRAY_601  Rec. 601 luma 0.299 R + 0.587 G + 0.114 B, the default:
 *                 OpenCV's cvtColor(COLOR_RGB2GRAY), bit for bit for 8 and
 *                 16 bits, so corners and flow match OpenCV on the same file
 *   CLI_GRAY_709  Rec. 709 0.2126 R + 0.7152 G + 0.0722 B (what clv used
 *                 before; the bilateral grid's colour luminance) */
typedef enum cli_gray_weights { CLI_GRAY_601 = 0, CLI_GRAY_709 = 1 } cli_gray_weights;

/* The value of the option just returned as 601 or 709. 0, or
 * CLI_EXIT_USAGE with the error printed. */
CLI_MUST_USE int cli_args_gray(cli_args *a, const char *name, cli_gray_weights *out);

/* The gray type the flow operations take for a file's type (they read u8
 * or f32): u8 stays u8, u16 and f32 become f32. */
clv_pixel_type cli_gray_type(clv_pixel_type type);

/* Turns frames of one shape (1, 3 or 4 channels) into 1-channel gray of
 * out_type (cli_gray_type of the frames', or f32 for an 8-bit frame among
 * others) on the device. Gray of 3 or 4 channels has the frame's type
 * (clv_convert_color, with the weights); f32 results have the frame type's
 * full scale (255, 65535, 1.0) at f32_full (clv_convert_type, after the
 * gray for u8 frames and before it for u16 and f32 ones). One converter
 * for a frame loop: nothing is allocated per frame. */
typedef struct cli_gray {
    clv_context *ctx;
    int width, height, channels;
    clv_pixel_type in_type, out_type;
    clv_color_code code;
    double scale;   /* to f32: of clv_convert_type */
    clv_image *mid; /* between the two steps, or NULL; owned */
} cli_gray;

/* shape: a frame's size, channels and type (its data is not read). Prints
 * the error (more than 4 or 2 channels too). */
CLI_MUST_USE int cli_gray_init(const char *cmd, clv_context *ctx, const clv_host_image *shape,
                               clv_pixel_type out_type, cli_gray_weights weights,
                               double f32_full, cli_gray *gc);
/* 1 when the frame is its own gray (1 channel, out_type, no scaling). */
int cli_gray_identity(const cli_gray *gc);
/* Enqueue the conversion of the device image frame (the converter's shape)
 * into out (1 channel of out_type, same size). Prints the error. */
CLI_MUST_USE int cli_gray_convert(const char *cmd, cli_gray *gc, const clv_image *frame,
                                  clv_image *out);
void cli_gray_free(cli_gray *gc);
/* Upload the host image and make its gray in a new device image *out
 * (the upload itself when it is its own gray). Prints the error. */
CLI_MUST_USE int cli_gray_upload(const char *cmd, clv_context *ctx, const clv_host_image *in,
                                 clv_pixel_type out_type, cli_gray_weights weights,
                                 double f32_full, clv_image **out);
/* The uploaded image *img (the pixels of the file `path`, named in
 * messages) as image parameter p takes it, converted on the device
 * (clv_convert_color, clv_convert_type; cmd_op.c): colour to gray with the
 * `gray` weights when p takes only one channel, gray to RGB or RGBA to RGB
 * when it takes three, then u16 to f32 (full scale 1.0) when it takes f32
 * and not u16. *img is replaced by the converted image; on failure it is
 * still the caller's to release. Anything else p does not take is an error
 * naming the file. Prints the error. */
CLI_MUST_USE int cli_to_accepted(const char *cmd, clv_context *ctx, const clv_param_desc *p,
                                 cli_gray_weights gray, const char *path, clv_image **img);

/* Read a Middlebury .flo file (2-channel f32). Prints the error. */
CLI_MUST_USE int cli_read_flo(const char *cmd, const char *path, clv_host_image *out);

/* 1 when path ends in ext (".flo"; ASCII case ignored). */
int cli_has_ext(const char *path, const char *ext);

/* ---- files ------------------------------------------------------------ */

/* mkdir -p. When first_created is not NULL it receives NULL, or a malloc'ed
 * copy of the topmost directory this call created (for
 * cli_remove_created_dirs). Prints the error. */
CLI_MUST_USE int cli_make_dirs(const char *cmd, const char *dir, char **first_created);

/* Undo cli_make_dirs after a failure: rmdir dir and its parents up to and
 * including first_created (only empty ones go). NULL first_created: none. */
void cli_remove_created_dirs(const char *dir, const char *first_created);

/* Outputs of a command that writes several files (or a file next to other
 * work that may still fail): each is written to a temporary file in its
 * final directory (".clv-<pid>-<n>-<name>", same extension, so the same
 * format; created with O_EXCL under a fresh n, with the permission bits of
 * the file it replaces, and tracked so SIGINT/SIGTERM remove it) and all
 * are renamed into place by cli_outputs_commit, so a failed run writes
 * nothing and leaves existing files alone. Error messages name the final
 * paths. */
typedef struct cli_outputs {
    int count, cap;
    char **final; /* malloc'ed */
    char **temp;  /* malloc'ed; NULL once renamed */
    int *slot;    /* clv_io_track_temporary() slot of each temp (-1: none) */
} cli_outputs;

void cli_outputs_init(cli_outputs *o);
/* Write an image (format from path's extension, as cli_write). */
CLI_MUST_USE int cli_outputs_image(const char *cmd, cli_outputs *o, const char *path,
                                   const clv_host_image *img);
/* Write a 2-channel f32 flow field as Middlebury .flo. */
CLI_MUST_USE int cli_outputs_flo(const char *cmd, cli_outputs *o, const char *path,
                                 const clv_host_image *flow);
/* Write len bytes of text. */
CLI_MUST_USE int cli_outputs_text(const char *cmd, cli_outputs *o, const char *path,
                                  const char *data, size_t len);
/* Rename every temporary file into place. Prints the error. */
CLI_MUST_USE int cli_outputs_commit(const char *cmd, cli_outputs *o);
/* Remove the temporary files not renamed yet and free everything; also
 * after a successful commit. */
void cli_outputs_free(cli_outputs *o);

/* Growing text buffer for CSV output. */
typedef struct cli_text {
    char *data;
    size_t len, cap;
    int failed; /* out of memory at some point */
} cli_text;

void cli_text_printf(cli_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_text_free(cli_text *t);

/* ---- timing ---------------------------------------------------------- */

/* "time: wall X ms, device Y ms" on stderr (stdout flushed first). */
void cli_print_time(double wall_ms, double device_ms);

/* A progress line on stderr (for terminals only: the caller checks isatty),
 * rewritten in place; cli_error, cli_print_time or cli_status_end first end
 * it with a newline, so no message lands on it. */
void cli_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_status_end(void);

/* Monotonic clock in milliseconds. */
double cli_now_ms(void);

/* Runs op with the named arguments (clv_op_call). With timing (wall_ms
 * non-NULL) the op runs once untimed to build its kernels, then once more
 * timed: wall = enqueue + clv_finish, device = clv_last_op_device_time
 * (needs a profiling context). Without timing it runs once and waits.
 * Prints "<what>: <status>: <detail>" and returns non-zero on failure. */
CLI_MUST_USE int cli_run_op(const char *cmd, const char *what, clv_context *ctx,
                            const clv_op_desc *op, const clv_arg *args, int nargs,
                            double *wall_ms, double *device_ms);

/* ---- optical flow (cmd_flow.c), also used by the demo ---------------- */

/* Shi-Tomasi corners of the device image gray (1-channel u8 or f32) into a
 * new malloc'ed array (*corners, *count of them). wall_ms non-NULL: a
 * second, timed run (device_ms too, with a profiling context). */
CLI_MUST_USE int cli_find_corners(const char *cmd, clv_context *ctx, const clv_image *gray,
                                  const clv_corner_params *cp, clv_corner **corners,
                                  int *count, double *wall_ms, double *device_ms);
/* New RGB image of in's type: gray replicated, alpha dropped. */
CLI_MUST_USE int cli_host_rgb(const char *cmd, const clv_host_image *in, clv_host_image *out);
/* A red 3x3 cross (centre and four neighbours) at each corner of an RGB image. */
void cli_draw_corners(clv_host_image *rgb, const clv_corner *corners, int count);
/* "x,y,response" CSV of the corners, staged in outs. */
CLI_MUST_USE int cli_corners_csv(const char *cmd, cli_outputs *outs, const char *path,
                                 const clv_corner *corners, int count);
/* Limits on the files the CLI reads itself (CSV point lists); images,
 * .flo files and kernels are read by the library. A CSV input must be a
 * regular file (a FIFO, device or directory is refused at once, without
 * reading from it) of at most CLI_CSV_MAX_BYTES bytes, no line longer than
 * CLI_CSV_MAX_LINE bytes (its line end not counted). */
#define CLI_CSV_MAX_BYTES (64L << 20)
#define CLI_CSV_MAX_LINE 1024

/* Points from a CSV file (header x,y or x,y,response): *pts malloc'ed (NULL
 * when there are none). Errors name the file and line. Within the limits
 * above; x and y must also stay finite as floats (magnitude up to about 3.4e38),
 * every field be a decimal number as cli_parse_double takes it. */
CLI_MUST_USE int cli_read_points(const char *cmd, const char *path, clv_point **pts, int *count);
/* Builds both pyramids (scale 0.5) from prev and next and tracks the points
 * (clv_lk_track). timed: once untimed, then again with *wall_ms and
 * *device_ms (summed over the three calls) measured. */
CLI_MUST_USE int cli_track_points(const char *cmd, clv_context *ctx, clv_pyramid *p_prev,
                                  clv_pyramid *p_next, const clv_image *prev,
                                  const clv_image *next, const clv_point *pts, clv_point *moved,
                                  uint8_t *status, float *err, int count,
                                  const clv_lk_params *lk, int timed, double *wall_ms,
                                  double *device_ms);
/* "x0,y0,x1,y1,status,error" CSV text of a tracking. */
CLI_MUST_USE int cli_track_csv(const char *cmd, cli_text *t, const clv_point *pts,
                               const clv_point *moved, const uint8_t *status, const float *err,
                               int count);
/* Farneback flow of prev -> next into flow and, downloaded, h_flow; with rgb
 * its colour coding (largest magnitude = full saturation) into rgb and
 * h_rgb. wall_ms/device_ms non-NULL: the flow's times are added to them. */
CLI_MUST_USE int cli_flow_pair(const char *cmd, clv_context *ctx, const clv_image *prev,
                               const clv_image *next, clv_image *flow, clv_image *rgb,
                               const clv_farneback_params *fp, clv_host_image *h_flow,
                               clv_host_image *h_rgb, double *wall_ms, double *device_ms);

#endif
