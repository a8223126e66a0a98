/* clv sub-commands: devices, transpose, resize, box, gaussian. */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the operations, behind one signature ------------------------------ */

clv_status cli_op_transpose(clv_context *ctx, const clv_image *src, clv_image *dst,
                            const void *params)
{
    (void)params;
    return clv_transpose(ctx, src, dst);
}

clv_status cli_op_resize(clv_context *ctx, const clv_image *src, clv_image *dst, const void *params)
{
    (void)params;
    return clv_resize(ctx, src, dst);
}

clv_status cli_op_box(clv_context *ctx, const clv_image *src, clv_image *dst, const void *params)
{
    const cli_box_params *p = params;
    return clv_box_filter(ctx, src, dst, p->kx, p->ky, p->border);
}

clv_status cli_op_gaussian(clv_context *ctx, const clv_image *src, clv_image *dst,
                           const void *params)
{
    const cli_gaussian_params *p = params;
    return clv_gaussian_blur(ctx, src, dst, p->sigma_x, p->sigma_y, p->kx, p->ky, p->border);
}

/* ---- shared driver: file -> cli_run_job ---------------------------------- */

enum { SHAPE_SAME, SHAPE_TRANSPOSED, SHAPE_GIVEN };

typedef struct filter_job {
    const char *cmd;
    const char *what; /* for error lines: "transpose failed" */
    const char *in;
    const char *out;
    int shape;
    int width, height; /* SHAPE_GIVEN */
    cli_op_fn op;
    const void *params;
} filter_job;

static int run_filter(const cli_globals *g, const filter_job *job)
{
    clv_host_image host = {0};
    int rc = cli_read(job->cmd, job->in, &host);
    if (rc)
        return rc;
    cli_job run = {.cmd = job->cmd,
                   .what = job->what,
                   .src = &host,
                   .channels = host.channels,
                   .type = host.type,
                   .op = job->op,
                   .params = job->params,
                   .out = job->out};
    if (job->shape == SHAPE_TRANSPOSED) {
        run.width = host.height;
        run.height = host.width;
    } else if (job->shape == SHAPE_GIVEN) {
        run.width = job->width;
        run.height = job->height;
    }
    rc = cli_run_job(g, &run);
    clv_host_image_free(&host);
    return rc;
}

/* ---- devices ----------------------------------------------------------- */

int cli_cmd_devices(const cli_globals *g, int argc, char **argv)
{
    const char *cmd = "devices";
    cli_args a;
    const char *name = NULL, *p = NULL;
    int k;
    cli_args_init(&a, cmd, argc, argv);
    while ((k = cli_args_next(&a, &name, &p)) != 0) {
        if (k == 1 && cli_wants_help(name)) {
            printf("usage: clv devices\n"
                   "List OpenCL platforms and devices: index P:D (for --device), type, name,\n"
                   "driver version and OpenCL C version. The device --device, else\n"
                   "CLV_DEVICE, else the default would use is marked '(selected by ...)',\n"
                   "with how the spec matched when it was a name substring or several\n"
                   "devices fit.\n");
            return CLI_EXIT_OK;
        }
        if (k == 1)
            return cli_usage_error(cmd, "unknown option '%s'", name);
        return cli_usage_error(cmd, "unexpected argument '%s'", p);
    }

    char list[16384];
    clv_status s = clv_list_devices(list, sizeof list);
    if (s != CLV_OK) {
        cli_error(cmd, "%s: no OpenCL platform found (is an ICD installed?)", clv_status_string(s));
        return CLI_EXIT_RUNTIME;
    }
    /* Mark the device --device / CLV_DEVICE / the default selects; for a
     * name substring or several candidates, with the library's explanation. */
    clv_device_choice c;
    char mark[32];
    clv_status rs = clv_device_resolve(g->device, &c);
    int marked = rs == CLV_OK;
    snprintf(mark, sizeof mark, "%d:%d ", c.platform_index, c.device_index);
    for (char *line = list; *line;) {
        char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        fwrite(line, 1, len, stdout);
        if (marked && strncmp(line, mark, strlen(mark)) == 0) {
            if (g->device)
                printf("  (selected by --device %s", c.spec);
            else if (strcmp(c.source, "CLV_DEVICE") == 0)
                printf("  (selected by CLV_DEVICE=%s", c.spec);
            else
                printf("  (selected by default");
            if (c.by_name || c.matches > 1)
                printf(": %s", c.explanation);
            fputs(")", stdout);
            marked = 0;
        }
        fputc('\n', stdout);
        line += len + (end != NULL);
    }
    /* The list is still what was asked for; the commands that use the
     * spec will fail. */
    if (rs == CLV_ERROR_NO_DEVICE && c.spec[0]) {
        fflush(stdout);
        cli_error(cmd, "%s", c.explanation);
    }
    return CLI_EXIT_OK;
}

/* ---- transpose, resize ------------------------------------------------- */

int cli_cmd_resize(const cli_globals *g, int argc, char **argv)
{
    const char *cmd = "resize";
    const char *pos[CLI_MAX_POS];
    int npos = 0;
    int w = 0, h = 0;
    cli_args a;
    const char *name = NULL, *p = NULL;
    int k;
    cli_args_init(&a, cmd, argc, argv);
    while ((k = cli_args_next(&a, &name, &p)) != 0) {
        if (k == 2) {
            cli_keep_positional(&npos, pos, p);
        } else if (cli_wants_help(name)) {
            printf("usage: clv resize --size WxH IN OUT\n"
                   "Bilinear resize to W x H pixels (each 1..%d), OpenCV INTER_LINEAR\n"
                   "convention (pixel centres aligned).\n",
                   CLV_MAX_DIMENSION);
            return CLI_EXIT_OK;
        } else if (strcmp(name, "--size") == 0) {
            const char *v = cli_args_value(&a, name);
            if (!v)
                return CLI_EXIT_USAGE;
            if (cli_parse_size(v, 1, CLV_MAX_DIMENSION, &w, &h) != 0)
                return cli_usage_error(cmd, "bad --size '%s' (expected WxH, each 1..%d)", v,
                                       CLV_MAX_DIMENSION);
        } else {
            return cli_usage_error(cmd, "unknown option '%s'", name);
        }
    }
    filter_job job = {.cmd = cmd,
                      .what = "resize failed",
                      .shape = SHAPE_GIVEN,
                      .width = w,
                      .height = h,
                      .op = cli_op_resize};
    int rc = cli_two_paths(cmd, npos, pos, &job.in, &job.out);
    if (rc)
        return rc;
    if (w == 0)
        return cli_usage_error(cmd, "missing --size WxH");
    return run_filter(g, &job);
}
