/* clv — command-line front end of clvision: global options and dispatch. */
#include "cli.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cli_command {
    const char *name;
    cli_command_fn fn;
    const char *summary;
} cli_command;

/* Workflows: commands that are more than one operation (or need files the
 * generic command line cannot express yet). Every other command is a
 * described operation (clv_op_find: its CLI or descriptor name), run by
 * cli_cmd_op from its descriptor. */
static const cli_command commands[] = {
    {"devices", cli_cmd_devices, "list OpenCL platforms and devices"},
    {"pyramid", cli_cmd_pyramid, "--levels N [--scale S] IN OUT_PREFIX: Gaussian pyramid"},
    {"corners", cli_cmd_corners,
     "--max N --quality Q --min-distance D IN OUT.csv: Shi-Tomasi corners"},
    {"track", cli_cmd_track,
     "[--points F | --corners N] PREV NEXT OUT.csv: Lucas-Kanade tracking"},
    {"flow", cli_cmd_flow, "[options] PREV NEXT OUT.flo [--color OUT.png]: Farneback dense flow"},
    {"flow-eval", cli_cmd_flow_eval, "EST.flo GT.flo: endpoint and angular errors"},
    {"flow-seq", cli_cmd_flow_seq, "[options] FRAME_GLOB OUT_DIR: flow over a frame sequence"},
    {"demo", cli_cmd_demo, "[DIR]: run every operation on the bundled images, results into DIR"},
    {"cache", cli_cmd_cache, "warm [OP...] | info | clear: the program binary cache"},
};

static const cli_command *find_workflow(const char *name)
{
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++)
        if (strcmp(name, commands[c].name) == 0)
            return &commands[c];
    return NULL;
}

/* The described operation a command name runs, or NULL (workflows first). */
static const clv_op_desc *find_op(const char *name)
{
    if (find_workflow(name))
        return NULL;
    const clv_op_desc *op = clv_op_find(name);
    return op && cli_op_supported(op) ? op : NULL;
}

/* -h or --help among a command's arguments (before a "--"). */
static int help_asked(int argc, char **argv)
{
    for (int k = 1; k < argc && strcmp(argv[k], "--") != 0; k++)
        if (cli_wants_help(argv[k]))
            return 1;
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: clv [--device SPEC] [--time] [--stats] [--verbose] COMMAND [ARGS...]\n"
               "\n"
               "OpenCL computer vision on image files: PNG and JPEG, and f32 HDR files\n"
               "(OpenEXR, Radiance .hdr, PFM). The input's format is detected, the output's\n"
               "follows its file name's extension. The result keeps the input's pixel type\n"
               "(except tonemap, which writes 8-bit RGB). Flow fields are Middlebury .flo\n"
               "files; points and corners are CSV files with a header line.\n"
               "\n"
               "commands:\n");
    for (int i = 0; i < clv_op_count(); i++) {
        const clv_op_desc *op = clv_op_get(i);
        const char *name = op->cli_name ? op->cli_name : op->name;
        if (find_op(name) == op)
            fprintf(f, "  %-13s %s\n", name, op->summary);
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-13s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n"
               "options:\n"
               "  --device SPEC  OpenCL device: gpu, cpu, P:D (indices from 'clv devices') or a\n"
               "                 substring of the platform, vendor or device name (default:\n"
               "                 CLV_DEVICE, else the first GPU, else the first CPU)\n"
               "  --time         print 'time: wall X ms, device Y ms' for the operation alone\n"
               "                 (kernels built beforehand, no file I/O) on stderr\n"
               "  --stats        print the context's program and cache counters on stderr\n"
               "                 ('stats: programs_built=N cache_hits=N ...')\n"
               "  --verbose      say on stderr which device SPEC chose and why\n"
               "                 ('clv devices' marks it too)\n"
               "  --version      print the version\n"
               "  -h, --help     this text; 'clv help COMMAND' or 'clv COMMAND --help' for a\n"
               "                 command (its options, ranges and defaults)\n"
               "Global options may also follow the command name.\n"
               "\n"
               "borders (--border): reflect101 (default), replicate, reflect, constant, wrap\n"
               "exit status: 0 success, 1 failure, 2 bad command line\n");
}

/* SIGINT, SIGTERM, SIGHUP: remove the temporary files of writes in flight
 * (the library's and the staged outputs), then die of the signal with its
 * default action, so the exit status still shows it. Async-signal-safe. */
static void on_stop_signal(int sig)
{
    clv_remove_temporaries();
    signal(sig, SIG_DFL); /* SA_RESETHAND did it already; be explicit */
    raise(sig);           /* blocked while here: delivered on return */
}

static void install_stop_handlers(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++)
        sigaddset(&sa.sa_mask, sigs[k]);
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        struct sigaction old;
        /* A signal ignored by the parent (nohup, a shell's background job)
         * stays ignored. */
        if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            (void)sigaction(sigs[k], &sa, NULL); /* failure: only no cleanup */
    }
}

int main(int argc, char **argv)
{
    cli_globals g = {NULL, 0, 0, 0};
    int i = 1;

    install_stop_handlers();

    for (; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || strcmp(arg, "-") == 0)
            break;
        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if (strcmp(arg, "--version") == 0) {
            printf("clv %s\n", clv_version());
            return CLI_EXIT_OK;
        }
        if (strcmp(arg, "--time") == 0) {
            g.time = 1;
        } else if (strcmp(arg, "--stats") == 0) {
            g.stats = 1;
        } else if (strcmp(arg, "--verbose") == 0) {
            g.verbose = 1;
        } else if (strcmp(arg, "--device") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error(NULL, "option --device needs a value");
            g.device = argv[++i];
        } else if (strncmp(arg, "--device=", 9) == 0) {
            g.device = arg + 9;
        } else {
            return cli_usage_error(NULL, "unknown option '%s'", arg);
        }
    }
    if (g.device && !*g.device)
        return cli_usage_error(NULL, "--device needs a non-empty SPEC");

    if (i >= argc) {
        usage(stdout);
        cli_error("usage", "no command given");
        return CLI_EXIT_USAGE;
    }

    const char *name = argv[i];
    if (strcmp(name, "help") == 0) {
        if (i + 1 >= argc) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        const int params = strcmp(argv[i + 1], "--params") == 0;
        if (i + 2 + params != argc)
            return cli_usage_error("help", "give one command name (help [--params] COMMAND)");
        const char *topic = argv[i + 1 + params];
        if (params) {
            if (find_op(topic)) {
                /* each operation of that name: a "# name" line, then its lines */
                for (int k = 0; k < clv_op_count(); k++) {
                    const clv_op_desc *op = clv_op_get(k);
                    if (cli_op_supported(op) &&
                        (strcmp(op->name, topic) == 0 ||
                         (op->cli_name && strcmp(op->cli_name, topic) == 0))) {
                        printf("# %s\n", op->name);
                        if (cli_op_params(op, topic) != CLI_EXIT_OK)
                            return CLI_EXIT_RUNTIME;
                    }
                }
                return CLI_EXIT_OK;
            }
            cli_error(topic, "not an operation (only described operations have --params)");
            return CLI_EXIT_USAGE;
        }
        if (find_op(topic) && cli_op_help_all(topic))
            return CLI_EXIT_OK;
        const cli_command *w = find_workflow(topic);
        if (w) {
            char *help_argv[] = {(char *)w->name, (char *)"--help", NULL};
            return w->fn(&g, 2, help_argv);
        }
        cli_error(topic, "unknown command (see 'clv --help')");
        return CLI_EXIT_USAGE;
    }
    const cli_command *w = find_workflow(name);
    const clv_op_desc *op = w ? NULL : find_op(name);
    if (!w && !op) {
        cli_error(name, "unknown command (see 'clv --help')");
        return CLI_EXIT_USAGE;
    }
    /* Global options after the command name: taken out of its arguments
     * (up to a "--", after which everything is the command's). */
    char **args = malloc(sizeof *args * (size_t)(argc - i + 1));
    if (!args) {
        cli_error(name, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    int n = 0, rest = 0;
    args[n++] = argv[i];
    for (int j = i + 1; j < argc; j++) {
        const char *arg = argv[j];
        if (!rest && strcmp(arg, "--") == 0)
            rest = 1;
        if (rest) {
            args[n++] = argv[j];
        } else if (strcmp(arg, "--time") == 0) {
            g.time = 1;
        } else if (strcmp(arg, "--stats") == 0) {
            g.stats = 1;
        } else if (strcmp(arg, "--verbose") == 0) {
            g.verbose = 1;
        } else if (strcmp(arg, "--device") == 0) {
            if (j + 1 >= argc) {
                free(args);
                return cli_usage_error(name, "option --device needs a value");
            }
            g.device = argv[++j];
        } else if (strncmp(arg, "--device=", 9) == 0) {
            g.device = arg + 9;
        } else {
            args[n++] = argv[j];
        }
    }
    args[n] = NULL;
    int rc;
    if (g.device && !*g.device)
        rc = cli_usage_error(name, "--device needs a non-empty SPEC");
    else if (w)
        rc = w->fn(&g, n, args);
    else if (help_asked(n, args))
        rc = cli_op_help_all(name) ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    else
        rc = cli_cmd_op(&g, cli_op_pick(name, n, args), n, args);
    free(args);
    return rc;
}
