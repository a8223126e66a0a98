/* clv devices: the OpenCL platforms and devices, and which one is chosen. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

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
