/* libFuzzer target: the CLI's command-line parsing.
 *
 * The input is split at NUL bytes into argv[1..] (argv[0] is "clv") and
 * handed to clv.c's main(), compiled as clv_main (-Dmain=clv_main): the
 * global options (--device, --time, --help, --version, --) and the command
 * dispatch run as in the real program, and the generic command line of every
 * described operation (src/cli/cmd_op.c, built with CLV_CLI_PARSE_ONLY: it
 * parses and checks, then stops). The workflow commands would open OpenCL
 * devices and read and write files, so this harness links its own
 * cli_cmd_* functions instead of src/cli/cmd_*.c for them: each scans its
 * arguments with the shared option scanner of src/cli/cli_util.c
 * (cli_args_next/cli_args_value/cli_args_number,
 * cli_parse_int/cli_parse_size/cli_parse_double, cli_keep_positional,
 * cli_two_paths, cli_has_ext, cli_args_positionals) the way the real
 * commands do, and stops before any work. See README.md. */
#include "fuzz_common.h"

#include <math.h>

#include "cli/cli.h"

int clv_main(int argc, char **argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_ARGS 24

/* Options by the kind of value the real commands give them. */
static int scan_command(const char *cmd, int argc, char **argv)
{
    static const char *const ints[] = {"--levels", "--max", "--radius", "--corners", "--iterations",
                                       "--poly-n", "--win", "--max-level", "--every", NULL};
    static const char *const sizes[] = {"--size", "--ksize", "--window", NULL};
    cli_args a;
    const char *name = NULL, *p = NULL, *pos[CLI_MAX_POS];
    int npos = 0, k;
    cli_args_init(&a, cmd, argc, argv);
    while ((k = cli_args_next(&a, &name, &p)) != 0) {
        if (k == 2) {
            cli_keep_positional(&npos, pos, p);
            continue;
        }
        if (cli_wants_help(name))
            return CLI_EXIT_OK;
        int kind = 0;
        for (int i = 0; ints[i]; i++)
            if (strcmp(name, ints[i]) == 0)
                kind = 1;
        for (int i = 0; sizes[i]; i++)
            if (strcmp(name, sizes[i]) == 0)
                kind = 2;
        if (strcmp(name, "--border") == 0 || strcmp(name, "--edge") == 0)
            kind = 3;
        if (strcmp(name, "--draw") == 0 || strcmp(name, "--points") == 0 ||
            strcmp(name, "--color") == 0)
            kind = 4;
        if (strncmp(name, "--", 2) != 0)
            return cli_usage_error(cmd, "unknown option '%s'", name);
        int rc = 0;
        if (kind == 3) {
            /* an enum: the generic command takes it by clv_param_enum_value */
            const char *v = cli_args_value(&a, name);
            clv_border b;
            if (!v)
                rc = CLI_EXIT_USAGE;
            else if (clv_border_from_string(v, &b) != CLV_OK)
                rc = cli_usage_error(cmd, "bad %s '%s'", name, v);
        } else if (kind == 0) {
            double d;
            cli_range r = {0.0, INFINITY, 1};
            rc = cli_args_number(&a, name, r, &d);
        } else {
            const char *v = cli_args_value(&a, name);
            int i1, i2;
            if (!v)
                rc = CLI_EXIT_USAGE;
            else if (kind == 1 && cli_parse_int(v, 1, 100000, &i1) != 0)
                rc = cli_usage_error(cmd, "bad %s '%s'", name, v);
            else if (kind == 2 && cli_parse_size(v, 1, 16384, &i1, &i2) != 0)
                rc = cli_usage_error(cmd, "bad %s '%s'", name, v);
            else if (kind == 4 && !cli_has_ext(v, ".png") && !cli_has_ext(v, ".csv"))
                rc = cli_usage_error(cmd, "bad %s '%s'", name, v);
        }
        if (rc)
            return rc;
    }
    const char *in = NULL, *out = NULL;
    int rc = cli_two_paths(cmd, npos, pos, &in, &out);
    if (rc)
        return rc;
    if (!cli_has_ext(out, ".png") && !cli_has_ext(out, ".jpg") && !cli_has_ext(out, ".flo"))
        return CLI_EXIT_USAGE;
    return CLI_EXIT_OK;
}

static int positionals_only(const char *cmd, int argc, char **argv)
{
    const char *pos[CLI_MAX_POS];
    int npos = 0;
    return cli_args_positionals(cmd, argc, argv, "usage\n", pos, &npos);
}

#define SCAN(fn, name)                                                                             \
    int fn(const cli_globals *g, int argc, char **argv)                                            \
    {                                                                                              \
        (void)g;                                                                                   \
        return scan_command(name, argc, argv);                                                     \
    }
#define POSITIONAL(fn, name)                                                                       \
    int fn(const cli_globals *g, int argc, char **argv)                                            \
    {                                                                                              \
        (void)g;                                                                                   \
        return positionals_only(name, argc, argv);                                                 \
    }

POSITIONAL(cli_cmd_devices, "devices")
SCAN(cli_cmd_pyramid, "pyramid")
SCAN(cli_cmd_corners, "corners")
SCAN(cli_cmd_track, "track")
SCAN(cli_cmd_flow, "flow")
POSITIONAL(cli_cmd_flow_eval, "flow-eval")
SCAN(cli_cmd_flow_seq, "flow-seq")
POSITIONAL(cli_cmd_demo, "demo")
POSITIONAL(cli_cmd_cache, "cache")

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Own copy, NUL-terminated, so every piece is a C string. */
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[FUZZ_MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "clv";
    for (size_t i = 0; i <= size && argc <= FUZZ_MAX_ARGS;) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    argv[argc] = NULL;
    (void)clv_main(argc, argv);
    free(buf);
    return 0;
}
