/* libFuzzer target: the CLI's CSV point reader, cli_read_points()
 * (src/cli/cmd_flow.c, used by 'clv track --points'). See README.md. */
#include "fuzz_common.h"

#include "cli/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_file(data, size, ".csv");
    if (!path)
        return 0;
    clv_point *pts = NULL;
    int count = -1;
    int rc = cli_read_points("track", path, &pts, &count);
    if (rc == 0) {
        if (count < 0 || (count > 0 && !pts))
            abort();
        volatile float sink = 0.0f;
        for (int i = 0; i < count; i++)
            sink += pts[i].x + pts[i].y;
        (void)sink;
    } else if (pts || count != 0) {
        abort(); /* on failure nothing is handed back */
    }
    free(pts);
    return 0;
}
