/* clv devices: the OpenCL platforms and devices, and which one is chosen. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

/* The indented block --verbose prints under device P:D. */
static int print_details(const char *cmd, int p, int d)
{
    char spec[32];
    clv_device_info in;
    snprintf(spec, sizeof spec, "%d:%d", p, d);
    clv_status s = clv_device_info_get(spec, &in);
    if (s != CLV_OK) {
        fflush(stdout);
        cli_error(cmd, "device %s: %s: %s", spec, clv_status_string(s),
                  clv_context_create_error());
        return CLI_EXIT_RUNTIME;
    }
    printf("    type:                %s\n", in.type);
    printf("    vendor:              %s\n", in.vendor);
    printf("    platform:            %s (%s)\n", in.platform_name, in.platform_version);
    printf("    driver:              %s\n", in.driver_version);
    printf("    OpenCL C:            %s\n", in.opencl_c_version);
    printf("    compute units:       %u\n", in.compute_units);
    printf("    max work-group size: %zu\n", in.max_work_group_size);
    printf("    max work-item sizes: %zu %zu %zu\n", in.max_work_item_sizes[0],
           in.max_work_item_sizes[1], in.max_work_item_sizes[2]);
    printf("    local memory:        %llu bytes\n", in.local_mem_size);
    printf("    global memory:       %llu bytes\n", in.global_mem_size);
    printf("    max allocation:      %llu bytes\n", in.max_mem_alloc_size);
    printf("    image support:       %s\n", in.image_support ? "yes" : "no");
    printf("    fp16:                %s\n", in.fp16 ? "yes" : "no");
    printf("    fp64:                %s\n", (in.extensions & CLV_EXT_FP64) ? "yes" : "no");
    printf("    extensions:         ");
    for (unsigned bit = 1; clv_extension_name(bit); bit <<= 1)
        if (bit != CLV_EXT_FP16 && bit != CLV_EXT_FP64)
            printf(" %s%s", clv_extension_name(bit), (in.extensions & bit) ? "" : " (missing)");
    printf("\n");
    return CLI_EXIT_OK;
}

int cli_cmd_devices(const cli_globals *g, int argc, char **argv)
{
    const char *cmd = "devices";
    cli_args a;
    const char *name = NULL, *p = NULL;
    int k;
    cli_args_init(&a, cmd, argc, argv);
    while ((k = cli_args_next(&a, &name, &p)) != 0) {
        if (k == 1 && cli_wants_help(name)) {
            printf("usage: clv devices [--verbose]\n"
                   "List OpenCL platforms and devices: index P:D (for --device), type, name,\n"
                   "driver version and OpenCL C version. The device --device, else\n"
                   "CLV_DEVICE, else the default would use is marked '(selected by ...)',\n"
                   "with how the spec matched when it was a name substring or several\n"
                   "devices fit. --verbose adds, under each device, what\n"
                   "clv_device_info_get() reports: vendor, platform, driver, OpenCL C\n"
                   "version, compute units, work-group and work-item limits, local and\n"
                   "global memory, largest allocation, image support, fp16/fp64 and the\n"
                   "extensions clvision's kernels use, and at the end what the library\n"
                   "decided about PoCL's CPU thread pinning (POCL_AFFINITY) before it\n"
                   "first touched OpenCL.\n");
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
        int p, d;
        if (g->verbose && sscanf(line, "%d:%d ", &p, &d) == 2) {
            int rc = print_details(cmd, p, d);
            if (rc != CLI_EXIT_OK)
                return rc;
        }
        line += len + (end != NULL);
    }
    if (g->verbose)
        printf("pocl affinity: %s\n", clv_pocl_affinity_note());
    /* The list is still what was asked for; the commands that use the
     * spec will fail. */
    if (rs == CLV_ERROR_NO_DEVICE && c.spec[0]) {
        fflush(stdout);
        cli_error(cmd, "%s", c.explanation);
    }
    return CLI_EXIT_OK;
}
