/* clv cache: warm, inspect and clear the program binary cache. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
    "usage: clv [--device SPEC] cache warm [OP...]\n"
    "       clv cache info\n"
    "       clv cache clear\n"
    "The program binary cache (CLV_CACHE_DIR, else $XDG_CACHE_HOME/clvision, else\n"
    "~/.cache/clvision).\n"
    "  warm   build the programs of the operations named (descriptor or command names;\n"
    "         none: every operation) for the device, for every pixel type and channel\n"
    "         count of each one's first input, with default parameters, and store them;\n"
    "         prints 'warmed N operations (C calls): B built, H already cached, W written'.\n"
    "         Variants of other border modes, colour codes or large sizes are built on\n"
    "         first use (see clv_cache_warm in clvision/op.h).\n"
    "  info   the directory, whether it is trusted, clvision's entries and their bytes\n"
    "  clear  remove clvision's entries (nothing else in the directory)\n";

static int cache_info(const char *cmd, int clear)
{
    clv_cache_dir_info info;
    clv_status s = clear ? clv_cache_clear(NULL, &info) : clv_cache_info(NULL, &info);
    if (s != CLV_OK) {
        cli_error(cmd, "%s: %s: %s", info.dir[0] ? info.dir : "cache", clv_status_string(s),
                  info.message);
        return CLI_EXIT_RUNTIME;
    }
    if (clear) {
        printf("removed %llu entries (%llu bytes) from %s\n", (unsigned long long)info.entries,
               (unsigned long long)info.bytes, info.dir);
        return CLI_EXIT_OK;
    }
    printf("directory: %s\n", info.dir);
    printf("exists: %s\n", info.exists ? "yes" : "no");
    if (info.exists)
        printf("trusted: %s\n", info.trusted ? "yes"
                                             : "no (not owned by you, or writable by others: "
                                               "entries are neither loaded nor stored)");
    printf("entries: %llu\n", (unsigned long long)info.entries);
    printf("bytes: %llu\n", (unsigned long long)info.bytes);
    return CLI_EXIT_OK;
}

int cli_cmd_cache(const cli_globals *g, int argc, char **argv)
{
    const char *cmd = "cache";
    if (argc < 2)
        return cli_usage_error(cmd, "give a sub-command: warm, info or clear");
    if (cli_wants_help(argv[1])) {
        fputs(USAGE, stdout);
        return CLI_EXIT_OK;
    }
    const char *sub = argv[1];
    const int warm = strcmp(sub, "warm") == 0;
    if (!warm && strcmp(sub, "info") != 0 && strcmp(sub, "clear") != 0)
        return cli_usage_error(cmd, "unknown sub-command '%s' (warm, info or clear)", sub);
    /* the operation names (warm only) */
    const char **ops = malloc(sizeof *ops * (size_t)argc);
    if (!ops) {
        cli_error(cmd, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    int nops = 0, rc = CLI_EXIT_OK;
    cli_args a;
    const char *name = NULL, *p = NULL;
    int k;
    cli_args_init(&a, cmd, argc - 1, argv + 1);
    while ((k = cli_args_next(&a, &name, &p)) != 0) {
        if (k == 1 && cli_wants_help(name)) {
            fputs(USAGE, stdout);
            free(ops);
            return CLI_EXIT_OK;
        }
        if (k == 1) {
            free(ops);
            return cli_usage_error(cmd, "%s: unknown option '%s'", sub, name);
        }
        if (!warm) {
            free(ops);
            return cli_usage_error(cmd, "%s takes no arguments (got '%s')", sub, p);
        }
        if (!clv_op_find(p)) {
            free(ops);
            return cli_usage_error(cmd, "warm: unknown operation '%s'", p);
        }
        ops[nops++] = p;
    }
    if (!warm) {
        free(ops);
        return cache_info(cmd, strcmp(sub, "clear") == 0);
    }
    clv_context *ctx = NULL;
    if (cli_context(cmd, g, 0, &ctx) != 0) {
        free(ops);
        return CLI_EXIT_RUNTIME;
    }
    clv_cache_warm_report r;
    const double t0 = cli_now_ms();
    clv_status s = clv_cache_warm(ctx, nops ? ops : NULL, nops, &r);
    const double ms = cli_now_ms() - t0;
    if (s != CLV_OK) {
        rc = cli_fail_status(cmd, ctx, s, "warm");
    } else {
        clv_context_stats st;
        if (clv_context_get_stats(ctx, &st) == CLV_OK && st.cache_write_failures > 0)
            fprintf(stderr, "clv: cache: warning: %llu entries could not be written\n",
                    (unsigned long long)st.cache_write_failures);
        printf("warmed %d operations (%d calls, %d skipped) on %s in %.0f ms: %llu built, "
               "%llu already cached, %llu written\n",
               r.ops, r.calls, r.skipped, clv_context_device_name(ctx), ms,
               (unsigned long long)r.programs_built, (unsigned long long)r.cache_hits,
               (unsigned long long)r.cache_writes);
    }
    cli_context_release(g, ctx);
    free(ops);
    return rc;
}
