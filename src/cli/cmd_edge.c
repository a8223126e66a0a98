/* clv sub-commands for the edge-preserving filters: bilateral, grid
 * (bilateral grid, plain and cross) and tonemap (local tone mapping). */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the operations, behind one signature ------------------------------ */

clv_status cli_op_bilateral(clv_context *ctx, const clv_image *src, clv_image *dst,
                            const void *params)
{
    const cli_bilateral_params *p = params;
    return clv_bilateral(ctx, src, dst, p->sigma_space, p->sigma_range, p->radius, p->border);
}

clv_status cli_op_grid(clv_context *ctx, const clv_image *src, clv_image *dst, const void *params)
{
    const cli_grid_params *p = params;
    if (p->edge)
        return clv_bilateral_grid_cross(ctx, src, p->edge, dst, &p->grid);
    return clv_bilateral_grid(ctx, src, dst, &p->grid);
}

clv_status cli_op_tonemap(clv_context *ctx, const clv_image *src, clv_image *dst,
                          const void *params)
{
    return clv_tonemap_local(ctx, src, dst, params);
}

/* ---- host-side preparation --------------------------------------------- */

int cli_hdr_input(const char *cmd, const char *path, const clv_host_image *in,
                  clv_host_image *out)
{
    clv_host_image f = {0};
    double scale = 1.0;

    if (in->type == CLV_U8) {
        cli_error(cmd,
                  "'%s' is an 8-bit image, not HDR: give an OpenEXR, Radiance .hdr or PFM "
                  "file, or a 16-bit PNG holding linear values",
                  path);
        return CLI_EXIT_RUNTIME;
    }
    if (in->channels != 1 && in->channels != 3 && in->channels != 4) {
        cli_error(cmd, "'%s' has %d channels (expected gray, RGB or RGBA)", path, in->channels);
        return CLI_EXIT_RUNTIME;
    }
    if (in->type == CLV_U16)
        scale = 1.0 / 65535.0; /* linear values, full scale = 1 */
    clv_status s = clv_host_image_to_f32(in, &f, scale);
    if (s != CLV_OK) {
        char detail[CLI_DETAIL_MAX + 1];
        cli_one_line(clv_io_last_error(), detail, sizeof detail);
        cli_error(cmd, "cannot convert '%s' to f32: %s%s%s", path, clv_status_string(s),
                  detail[0] ? ": " : "", detail);
        return CLI_EXIT_RUNTIME;
    }
    if (f.channels != 1) {
        *out = f;
        return 0;
    }
    int rc = cli_host_gray_to_rgb(cmd, &f, out);
    clv_host_image_free(&f);
    return rc;
}
