/* clvision — transpose through local-memory tiles. */
#include <stdio.h>
#include <string.h>

#include "runtime/internal.h"

#define OP "transpose"

/* Tile and block sizes of the transpose kernels, defined here only (the
 * place a per-device tuning table would fill); tile and sb reach
 * transpose.cl as -DTILE and -DSB. 32x32 tiles of up to float4 take 17 KiB
 * of local memory: every OpenCL 1.2 device has 32 KiB. Rows per group shrink
 * from tile_rows to fit the kernel. CPU blocks (see tr_choose): 64x64 fills
 * whole destination cache lines for 1- and 3-byte pixels, and for 4-byte
 * pixels, whose 16x16 blocks transpose in registers (f32, PoCL on 2 cores,
 * device ms, 1920x1080 / 3840x2160: 16 1.39-1.43 / 5.28-5.41, 32 0.66-0.71 /
 * 2.53-2.56, 64 0.59-0.64 / 2.29-2.36, 128 0.60-0.74 / 2.52-2.60). */
typedef struct tr_tile {
    int tile;              /* TILE */
    size_t tile_rows;      /* work-item rows of a tile's group before fitting */
    int sb, sb_w4;         /* SB: CPU block side; for 4-byte pixels */
    int reg_bx;            /* TR_BX: transpose_reg's block width (16: the
                            * kernel's only one) */
    size_t stream_bytes;   /* CPU strip kernels: streaming stores from this
                            * destination size on */
} tr_tile;
static const tr_tile tr_tile_default = {32, 8, 64, 64, 16, (size_t)4 << 20};

typedef enum tr_variant {
    TR_BLOCKS_VEC, /* CPU: sb x sb blocks per work-item, no local memory */
    TR_REG,        /* GPUs, u8: 16x4-pixel blocks in registers (transpose_reg) */
    TR_TILED,      /* local-memory tiles */
} tr_variant;

/* A variant and everything its launch needs. */
typedef struct tr_plan {
    tr_variant variant;
    cl_kernel k;
    size_t g[2], l[2];        /* l: TR_TILED only (the others take the default shape) */
    int src_pitch, dst_pitch; /* in the kernel's element type */
} tr_plan;
_Static_assert(sizeof(tr_plan) <= CLV__PLAN_MAX, "a transpose plan must fit the plan cache");

/* Pick the variant for src -> dst on ctx's device and size it. */
static clv_status tr_choose(clv_context *ctx, const clv_image *src, const clv_image *dst,
                            tr_plan *pl) CLV_WUR;

static clv_status transpose_run(clv_context *ctx, const clv_arg *a)
{
    clv_status status = CLV_OK;
    const clv_image *src = a[0].v.p;
    clv_image *dst = a[1].v.p;

    /* the choice depends on these alone (and the context's device) */
    const long long key[6] = {(long long)src->type, src->channels, src->width, src->height,
                              (long long)src->pitch, (long long)dst->pitch};
    tr_plan pl;
    if (!clv__plan_get(ctx, OP, key, sizeof key, &pl, sizeof pl)) {
        CLV_TRY(tr_choose(ctx, src, dst, &pl));
        clv__plan_put(ctx, OP, key, sizeof key, &pl, sizeof pl);
    }
    const size_t *l = pl.variant == TR_TILED ? pl.l
                      : pl.variant == TR_REG   ? clv__reg_local(ctx, CLV__SHAPE_TRANSPOSE, pl.g)
                                               : NULL;
    CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k, 2, pl.g, l,
                       CLV_ARG(src->mem), CLV_ARG(pl.src_pitch), CLV_ARG(dst->mem),
                       CLV_ARG(pl.dst_pitch), CLV_ARG(src->width), CLV_ARG(src->height)));
out:
    return status;
}

/* A local-memory tile kernel (transpose, transpose_rgb) built with opts,
 * its work-group TILE x rows with rows shrunk from tile_rows to fit. */
static clv_status tr_tiled(clv_context *ctx, const tr_tile *t, const clv_image *src,
                           const char *opts, const char *name, int sp, int dp, tr_plan *pl)
{
    clv_status status = CLV_OK;
    const size_t tile = (size_t)t->tile;
    pl->variant = TR_TILED;
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_TRANSPOSE, opts, name, &pl->k));
    size_t max_wg;
    CLV_TRY(clv__kernel_limits(ctx, OP, pl->k, &max_wg, NULL));
    size_t rows = t->tile_rows;
    while (rows > 1 && tile * rows > max_wg)
        rows /= 2;
    if (tile * rows > max_wg)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                         "device allows only %zu work-items per group for this kernel", max_wg);
    pl->src_pitch = sp;
    pl->dst_pitch = dp;
    pl->g[0] = ((size_t)src->width + tile - 1) / tile * tile;
    pl->g[1] = ((size_t)src->height + tile - 1) / tile * rows;
    pl->l[0] = tile;
    pl->l[1] = rows;
out:
    return status;
}

static clv_status tr_choose(clv_context *ctx, const clv_image *src, const clv_image *dst,
                            tr_plan *pl)
{
    clv_status status = CLV_OK;
    const tr_tile *t = &tr_tile_default;
    char opts[256], fmt[64];
    clv__format_options(fmt, sizeof fmt, src->type, src->channels);
    const int sp = clv__pitch(src), dp = clv__pitch(dst);
    memset(pl, 0, sizeof *pl);
    /* CPU: blocks of 16x16 without local memory (PoCL runs barriers as
     * loops); one work-item takes sb x sb pixels, block column by block
     * column. Pixels of 4 bytes (u8 x 4, f32 x 1) move as uints in 4x4
     * register transposes, u8 x 3 as uints unpacked from 12-byte windows;
     * one channel of u8/u16 uses 16 vector registers, u16 with channels
     * goes through private memory. f32 with several channels: the
     * local-memory kernel measured faster on PoCL. */
    const int cpu_kernel =
        ctx->tune.vec > 0 && (src->channels == 1 || src->type != CLV_F32);
    if (cpu_kernel) {
        const int w4 = src->channels * src->elem_size == 4;
        const int sb = w4 ? t->sb_w4 : t->sb;
        const char *name =
            w4 ? "transpose_w4" : src->channels == 1 ? "transpose_vec" : "transpose_vecn";
        /* Streaming stores (strip kernels: w4 and u8 x 3) from 4 MiB of
         * destination on; measured on PoCL (2-core EPYC, 32 MiB L3), device
         * ms plain -> streaming: f32 1920x1080 1.89 -> 0.83, 3840x2160 8.97
         * -> 5.42; u8 x 3 1920x1080 1.68 -> 0.96; but 640x480 f32 0.108 ->
         * 0.133 (small destinations stay in cache for whatever reads them
         * next), and 1280x720 mixed. */
        const int stream = (w4 || src->channels == 3) &&
                           (size_t)dst->pitch * (size_t)dst->height >= t->stream_bytes;
        snprintf(opts, sizeof opts, "%s -DTILE=%d -DVEC=%d -DSB=%d%s%s", fmt, t->tile,
                 ctx->tune.vec, sb, w4 ? " -DWORD4" : "", stream ? " -DSTREAM" : "");
        pl->variant = TR_BLOCKS_VEC;
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_TRANSPOSE, opts, name, &pl->k));
        /* pitches in the kernel's element type (uint for w4) */
        pl->src_pitch = w4 ? (int)(src->pitch / 4) : sp;
        pl->dst_pitch = w4 ? (int)(dst->pitch / 4) : dp;
        pl->g[0] = ((size_t)src->width + sb - 1) / sb;
        pl->g[1] = ((size_t)src->height + sb - 1) / sb;
        return CLV_OK;
    }
    if (CLV__REG_ON(ctx, CLV__REG_TRANSPOSE, src->channels) && src->type == CLV_U8) {
        /* GPUs, u8: blocks of reg_bx x 4 pixels in registers (box_reg's
         * design, box.c); dimension 0 runs down the source's blocks, groups
         * from the tuning table's 2-D shape. 16x4 against 4x4 blocks (H100,
         * 2026-12-05, device us, one channel): 3840x2160 8.6-8.9 against
         * 14.5-14.6, 1920x1080 6.4-6.7 against 7.6 */
        if (src->channels == 3) {
            /* u8 x 3: the tile with whole-word stores (transpose_rgb) */
            snprintf(opts, sizeof opts, "%s -DTILE=%d -DTR_RGB", fmt, t->tile);
            return tr_tiled(ctx, t, src, opts, "transpose_rgb", sp, dp, pl);
        }
        const int bx = t->reg_bx;
        snprintf(opts, sizeof opts, "%s -DTILE=%d -DTR_REG -DTR_BX=%d", fmt, t->tile, bx);
        pl->variant = TR_REG;
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_TRANSPOSE, opts, "transpose_reg", &pl->k));
        pl->src_pitch = sp;
        pl->dst_pitch = dp;
        pl->g[0] = ((size_t)src->height + 3) / 4;
        pl->g[1] = ((size_t)src->width + (size_t)bx - 1) / (size_t)bx;
        return CLV_OK;
    }
    snprintf(opts, sizeof opts, "%s -DTILE=%d", fmt, t->tile);
    return tr_tiled(ctx, t, src, opts, "transpose", sp, dp, pl);
out:
    return status;
}

static const clv_param_desc transpose_params[] = {
    CLV__P_SRC_ANY,
    CLV__P_IMAGE("dst", "destination", "height x width of src, same type and channels",
                 CLV_PARAM_OUTPUT, 0, 0, "src",
                 CLV_LIKE_TYPE | CLV_LIKE_CHANNELS | CLV_LIKE_TRANSPOSED),
};

const clv_op_desc clv__op_transpose = {
    .name = "transpose",
    .summary = "swap rows and columns: dst(x, y) = src(y, x)",
    .nparams = 2,
    .params = transpose_params,
    .run = transpose_run,
};

CLV_API clv_status clv_transpose(clv_context *ctx, const clv_image *src, clv_image *dst)
{
    const clv_arg a[] = {CLV__IMG(src), CLV__IMG(dst)};
    return clv__op_run(ctx, &clv__op_transpose, a);
}
