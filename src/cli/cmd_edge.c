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

/* ---- argument handling ------------------------------------------------- */

static const cli_range above_zero = {0.0, INFINITY, 1};

/* ---- grid -------------------------------------------------------------- */

int cli_cmd_grid(const cli_globals *g, int argc, char **argv)
{
    const char *cmd = "grid";
    const char *pos[CLI_MAX_POS];
    int npos = 0;
    const char *edge_path = NULL;
    cli_gray_weights edge_gray = CLI_GRAY_601;
    cli_grid_params gp = {clv_grid_params_default(), NULL};
    double sigma_space = 0.0, sigma_range = 0.0;
    const cli_range at_least_one = {1.0, INFINITY, 0};
    cli_args a;
    const char *name = NULL, *p = NULL;
    int k, rc;
    cli_args_init(&a, cmd, argc, argv);
    while ((k = cli_args_next(&a, &name, &p)) != 0) {
        if (k == 2) {
            cli_keep_positional(&npos, pos, p);
        } else if (cli_wants_help(name)) {
            printf("usage: clv grid --sigma-space S --sigma-range R [--blur B] [--edge EDGE]\n"
                   "                [--gray 601|709] IN OUT\n"
                   "Bilateral filter through a bilateral grid (Chen, Paris, Durand 2007), fast\n"
                   "at any sigma. S: grid cell size in pixels (>= 1, e.g. 16). R: range cell\n"
                   "size in the image's units (> 0): 0..255 for 8-bit images (e.g. 25.5),\n"
                   "0..65535 for 16-bit, linear values for f32. B: Gaussian blur of the grid\n"
                   "in cells (0..20, default %g; 0 = none). Gray images are filtered along\n"
                   "their value, RGB(A) along their Rec. 709 luminance; the pixel type is kept.\n"
                   "--edge EDGE: cross (joint) bilateral grid: values from IN, edges from the\n"
                   "image EDGE, of IN's size (RGB(A) is turned into gray on the device, keeping\n"
                   "its pixel type); R is then in EDGE's units.\n"
                   "--gray 601|709: the weights of EDGE's gray: Rec. 601 (0.299 R + 0.587 G +\n"
                   "0.114 B, OpenCV's COLOR_RGB2GRAY; the default) or Rec. 709 (0.2126 R +\n"
                   "0.7152 G + 0.0722 B, the luminance IN's own colour path uses).\n",
                   gp.grid.blur_sigma);
            return CLI_EXIT_OK;
        } else if (strcmp(name, "--sigma-space") == 0) {
            if ((rc = cli_args_number(&a, name, at_least_one, &sigma_space)) != 0)
                return rc;
        } else if (strcmp(name, "--sigma-range") == 0) {
            if ((rc = cli_args_number(&a, name, above_zero, &sigma_range)) != 0)
                return rc;
        } else if (strcmp(name, "--blur") == 0) {
            const cli_range blur_range = {0.0, 20.0, 0}; /* clv_grid_params.blur_sigma */
            if ((rc = cli_args_number(&a, name, blur_range, &gp.grid.blur_sigma)) != 0)
                return rc;
        } else if (strcmp(name, "--edge") == 0) {
            const char *v = cli_args_value(&a, name);
            if (!v)
                return CLI_EXIT_USAGE;
            if (!*v)
                return cli_usage_error(cmd, "empty --edge file name");
            edge_path = v;
        } else if (strcmp(name, "--gray") == 0) {
            if ((rc = cli_args_gray(&a, name, &edge_gray)) != 0)
                return rc;
        } else {
            return cli_usage_error(cmd, "unknown option '%s'", name);
        }
    }
    const char *in = NULL, *out = NULL;
    if ((rc = cli_two_paths(cmd, npos, pos, &in, &out)) != 0)
        return rc;
    if (sigma_space == 0.0)
        return cli_usage_error(cmd, "missing --sigma-space S");
    if (sigma_range == 0.0)
        return cli_usage_error(cmd, "missing --sigma-range R");
    gp.grid.s_s = sigma_space;
    gp.grid.s_r = sigma_range;

    clv_host_image host = {0};
    clv_host_image edge_file = {0};
    rc = cli_read(cmd, in, &host);
    if (rc)
        goto out;
    if (edge_path) {
        rc = cli_read(cmd, edge_path, &edge_file);
        if (rc)
            goto out;
        if (edge_file.width != host.width || edge_file.height != host.height) {
            cli_error(cmd, "edge image '%s' is %dx%d but '%s' is %dx%d (they must match)",
                      edge_path, edge_file.width, edge_file.height, in, host.width, host.height);
            rc = CLI_EXIT_RUNTIME;
            goto out;
        }
    }
    cli_job job = {.cmd = cmd,
                    .what = edge_path ? "cross bilateral grid failed" : "bilateral grid failed",
                    .src = &host,
                    .edge = edge_path ? &edge_file : NULL,
                    .edge_gray = edge_gray,
                    .edge_slot = edge_path ? &gp.edge : NULL,
                    .channels = host.channels,
                    .type = host.type,
                    .op = cli_op_grid,
                    .params = &gp,
                    .out = out};
    rc = cli_run_job(g, &job);

out:
    clv_host_image_free(&edge_file);
    clv_host_image_free(&host);
    return rc;
}

/* ---- tonemap ----------------------------------------------------------- */

int cli_cmd_tonemap(const cli_globals *g, int argc, char **argv)
{
    const char *cmd = "tonemap";
    const char *pos[CLI_MAX_POS];
    int npos = 0;
    clv_tonemap_params tp = clv_tonemap_params_default();
    const clv_tonemap_params def = tp;
    /* Bounds as documented in clvision/edge.h; the library checks again. */
    const struct {
        const char *option;
        cli_range range;
        double *value;
    } opts[] = {
        {"--contrast", {0.1, 30.0, 0}, &tp.contrast},
        {"--exposure", {-30.0, 30.0, 0}, &tp.exposure},
        {"--saturation", {0.0, 4.0, 0}, &tp.saturation},
        {"--gamma", {0.0, 10.0, 0}, &tp.gamma},
        {"--blend", {0.0, 1.0, 0}, &tp.blend},
        {"--sigma-space", {0.0, 4096.0, 0}, &tp.sigma_space},
        {"--sigma-range", {0.01, 64.0, 0}, &tp.sigma_range},
    };
    cli_args a;
    const char *name = NULL, *p = NULL;
    int k, rc;
    cli_args_init(&a, cmd, argc, argv);
    while ((k = cli_args_next(&a, &name, &p)) != 0) {
        if (k == 2) {
            cli_keep_positional(&npos, pos, p);
            continue;
        }
        if (cli_wants_help(name)) {
            printf("usage: clv tonemap [--contrast C] [--exposure E] [--saturation S] [--gamma G]\n"
                   "                   [--blend B] [--sigma-space S] [--sigma-range R] IN OUT\n"
                   "Local tone mapping (Durand-Dorsey on a bilateral grid) of a linear-light HDR\n"
                   "image to 8-bit RGB. IN: OpenEXR, Radiance .hdr or PFM (f32), or a 16-bit PNG\n"
                   "holding linear values (scaled by 1/65535); 8-bit images are refused (not\n"
                   "HDR). Gray input is replicated to RGB, alpha is ignored. OUT: .png or .jpg.\n"
                   "Luminance is handled in stops (log2 units):\n"
                   "  --contrast C     stops the base layer is compressed to, 0.1..30\n"
                   "                   (default %g)\n"
                   "  --exposure E     stops added at the end, -30..30 (default %g)\n"
                   "  --saturation S   colour saturation, 0..4; 1 keeps the input's (default %g)\n"
                   "  --gamma G        output curve: 0 = sRGB, else x^(1/G), G <= 10\n"
                   "                   (default %g)\n"
                   "  --blend B        0 = global compression, 1 = full local: base compressed,\n"
                   "                   detail kept; 0..1 (default %g)\n"
                   "  --sigma-space S  base layer spatial sigma in pixels, 0..4096; 0 = 2%% of\n"
                   "                   the larger side (default %g)\n"
                   "  --sigma-range R  base layer range sigma in stops, 0.01..64 (default %g)\n",
                   def.contrast, def.exposure, def.saturation, def.gamma, def.blend,
                   def.sigma_space, def.sigma_range);
            return CLI_EXIT_OK;
        }
        size_t i = 0;
        while (i < sizeof opts / sizeof opts[0] && strcmp(name, opts[i].option) != 0)
            i++;
        if (i == sizeof opts / sizeof opts[0])
            return cli_usage_error(cmd, "unknown option '%s'", name);
        if ((rc = cli_args_number(&a, name, opts[i].range, opts[i].value)) != 0)
            return rc;
    }
    const char *in = NULL, *out = NULL;
    if ((rc = cli_two_paths(cmd, npos, pos, &in, &out)) != 0)
        return rc;

    clv_host_image file = {0};
    clv_host_image hdr = {0};
    rc = cli_read(cmd, in, &file);
    if (rc)
        goto out;
    rc = cli_hdr_input(cmd, in, &file, &hdr);
    if (rc)
        goto out;
    cli_job job = {.cmd = cmd,
                    .what = "tone mapping failed",
                    .src = &hdr,
                    .channels = 3,
                    .type = CLV_U8,
                    .op = cli_op_tonemap,
                    .params = &tp,
                    .out = out};
    rc = cli_run_job(g, &job);

out:
    clv_host_image_free(&hdr);
    clv_host_image_free(&file);
    return rc;
}
