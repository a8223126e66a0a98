/* clvision — normalised box filter, radius-independent running sums. */
#include <stdio.h>
#include <string.h>

#include "runtime/internal.h"

#define OP "box_filter"

/* box_small's tile, defined here only and passed to box.cl as -D (the place
 * a per-device tuning table would fill): work-groups of BS_LX x BS_LY items,
 * windows up to BS_MAXK x BS_MAXK, BS_PY rows per work-item. One channel
 * takes 8 rows per work-item: a one-byte pixel is too little work to pay for
 * a work-item, its barriers and its share of the halo (on an H200 at
 * 3840x2160, u8: 0.087 ms with one row each, 0.050 ms with 8; 4: 0.054).
 * More channels take 4 (u8 x 3: 0.119 ms with 1, 0.097 with 2, 0.085 with
 * 4, 0.113 with 8), fewer where the local arrays would not fit.
 * u8 takes box_reg instead (registers, no local memory) with reg_py rows per
 * work-item: the same design compiled by CUDA
 * ran the 5x5 u8 box at 3840x2160 on an H200 in 18.3-18.5 us against
 * box_small's 46.8 through OpenCL (bench/twin, 2026-12-04). */
typedef struct box_tile {
    int lx, ly; /* BS_LX, BS_LY */
    int maxk;   /* BS_MAXK */
    int py_c1;  /* BS_PY for one channel (see box.cl) */
    int py_cn;  /* BS_PY for more */
    int reg_py; /* box_reg's BR_PY */
    int wide_reach; /* box_wh: most values a window reaches on either side */
    int widef_reach; /* box_whf: the same */
    int wide_rows;  /* box_wv: rows per work-item */
    int regf_py;    /* box_regf's BR_PY */
    int widef_rows; /* box_wvf: rows per work-item */
} box_tile;
/* box_wh holds its 16 values and the window's reach in registers, whole
 * 16-byte vectors on each side: up to 64 values (4 vectors) a side, i.e.
 * windows up to 129 wide in one channel, 43 in three, 33 in four (48
 * values until 2026-12-06: box 31x31 u8 x 4 then took box_rows + box_cols,
 * 806 us at 3840x2160 on an H100 against 106 for three channels through
 * box_wh + box_wv); the f32 pair's first pass (box_whf) the same 64,
 * holding its span (12 vectors of 4 floats a side) up to 48 and streaming
 * it past that (box.cl). */
/* box_regf (f32) takes 4 rows per work-item: H100, 5x5 one channel,
 * device us, three interleaved rounds (2026-12-06, run_gpu.sh boxfw10),
 * 1920x1080 13.1-13.5 against 8 rows' 14.6-15.4, 3840x2160 36.1-36.8
 * against 38.6-38.8 (16 rows: 20.3, 42.6; 2: 13.2, 36.6). box_wvf takes 4
 * rows: H100, 31x31 f32, three rounds (run_gpu.sh f32b, f32c), 3840x2160
 * three channels 220-221 against 16 rows' 267-268 (8: 243, 2: 246), one
 * channel and 1920x1080 the same within 1 us. box_wv takes 8 rows (16 until
 * box_wh's values were packed): H100, 31x31 u8, device us, three interleaved
 * rounds (run_gpu.sh wv11, 2026-12-06), 8 against 16 rows: 3840x2160 three
 * channels 106.0-106.7 against 117.7-118.1, one 33.8-34.1 against
 * 33.3-33.9; 1920x1080 three 43.0-43.6 against 42.9-43.3, one 24.8-25.4
 * against 26.3-27.1; 1280x720 three 34.6-35.1 against 38.1-38.6, one
 * 23.0-24.1 against 26.7-27.2. */
static const box_tile box_tile_default = {32, 8, 9, 8, 4, 8, 64, 64, 8, 4, 4};

/* box_small's local memory (its tile and row sums, box.cl) with py rows per
 * work-item and cn channels. */
static cl_ulong box_small_bytes(const box_tile *t, int py, int cn)
{
    const cl_ulong rows = (cl_ulong)(t->ly * py + t->maxk - 1);
    return ((cl_ulong)(t->lx + t->maxk - 1) + (cl_ulong)t->lx) * rows * (cl_ulong)cn *
           sizeof(float);
}

typedef enum box_variant {
    BOX_BAND_VEC, /* CPU: one pass by bands of rows (box_band_vec) */
    BOX_SMALL,    /* small windows: one pass through local memory (box_small) */
    BOX_REG,      /* small windows, GPUs: one pass in registers (u8 box_reg; f32, u16
                   * box_regf) */
    BOX_WIDE,     /* u8: sums along rows into a u16 image, then down (box_wh, box_wv) */
    BOX_WIDE_F32, /* f32, u16: sums along rows into a float image, then down (box_whf,
                   * box_wvf) */
    BOX_TWO_PASS, /* running sums along rows, then columns (box_rows, box_cols) */
} box_variant;

/* A variant and everything its launch needs. */
typedef struct box_plan {
    box_variant variant;
    cl_kernel k[2];     /* k[0]: the kernel, or box_rows; k[1]: box_cols */
    cl_mem work;        /* band: per-band scratch; two passes: the row sums */
    size_t g[2], l[2];  /* the (first) launch */
    size_t g2[2];       /* two passes: box_cols, local size left to the device */
    int bchunk, wpitch; /* band: rows per band, floats per scratch row; wide: values per row */
    int chunk_x;        /* two passes: outputs per box_rows work-item */
    int chunk_y;        /* two passes: rows per box_cols work-item; wide: box_wv's */
    size_t seg_bytes;   /* two passes: box_rows' local memory */
    size_t work_bytes;  /* work's size (the context's scratch slot 0), 0: none */
} box_plan;
_Static_assert(sizeof(box_plan) <= CLV__PLAN_MAX, "a box plan must fit the plan cache");

/* Pick the variant for (src, kx x ky) on ctx's device and size it; opts: the
 * filter's options (clv__filter_options), to which the tile's are added. */
static clv_status box_choose(clv_context *ctx, const clv_image *src, int ksize_x, int ksize_y,
                             const char *filter_opts, box_plan *pl) CLV_WUR;

static clv_status box_run(clv_context *ctx, const clv_arg *a)
{
    clv_status status = CLV_OK;
    const clv_image *src = a[0].v.p;
    clv_image *dst = a[1].v.p;
    const int ksize_x = a[2].v.i, ksize_y = a[3].v.i;
    const clv_border border = (clv_border)a[4].v.i;
    const int w = src->width, h = src->height;
    const int ax = ksize_x / 2, ay = ksize_y / 2;
    const int sp = clv__pitch(src), dp = clv__pitch(dst);
    const float scale = 1.0f / (float)(ksize_x * ksize_y);
    /* f32 scales each value as it is loaded (see box.cl), so the two-pass
     * variant splits the scale: 1/kx in box_rows, 1/ky in box_cols. */
    const int f32 = src->type == CLV_F32;
    const float scale_x = f32 ? 1.0f / (float)ksize_x : 1.0f;
    const float scale_cols = f32 ? 1.0f / (float)ksize_y : scale;

    /* the choice depends on these alone (and the context's device) */
    const int key[7] = {(int)src->type, src->channels, w, h, ksize_x, ksize_y, (int)border};
    box_plan pl;
    if (clv__plan_get(ctx, OP, key, sizeof key, &pl, sizeof pl)) {
        if (pl.work_bytes)
            CLV_TRY(clv__scratch(ctx, OP, 0, pl.work_bytes, &pl.work));
    } else {
        char opts[256];
        CLV_TRY(clv__filter_options(ctx, OP, src, border, opts, sizeof opts));
        CLV_TRY(box_choose(ctx, src, ksize_x, ksize_y, opts, &pl));
        box_plan keep = pl;
        keep.work = NULL;
        clv__plan_put(ctx, OP, key, sizeof key, &keep, sizeof keep);
    }
    switch (pl.variant) {
    case BOX_BAND_VEC:
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[0], 1, pl.g, pl.l, CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(w), CLV_ARG(h), CLV_ARG(dst->mem), CLV_ARG(dp),
                           CLV_ARG(ksize_x), CLV_ARG(ksize_y), CLV_ARG(ax), CLV_ARG(ay),
                           CLV_ARG(scale), CLV_ARG(pl.bchunk), CLV_ARG(pl.work),
                           CLV_ARG(pl.wpitch)));
        break;
    case BOX_REG:
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[0], 2, pl.g, clv__reg_local(ctx, CLV__SHAPE_FILTER, pl.g),
                           CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(w), CLV_ARG(h), CLV_ARG(dst->mem), CLV_ARG(dp),
                           CLV_ARG(scale)));
        break;
    case BOX_WIDE: {
        const int nvals = w * src->channels;
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[0], 2, pl.g, clv__reg_local(ctx, CLV__SHAPE_BOXW, pl.g),
                           CLV_ARG(src->mem), CLV_ARG(sp), CLV_ARG(w), CLV_ARG(h),
                           CLV_ARG(pl.work), CLV_ARG(pl.wpitch)));
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[1], 2, pl.g2, clv__reg_local(ctx, CLV__SHAPE_BOXW, pl.g2),
                           CLV_ARG(pl.work), CLV_ARG(pl.wpitch),
                           CLV_ARG(nvals), CLV_ARG(h), CLV_ARG(dst->mem), CLV_ARG(dp),
                           CLV_ARG(ksize_y), CLV_ARG(ay), CLV_ARG(pl.chunk_y), CLV_ARG(scale)));
        break;
    }
    case BOX_WIDE_F32: {
        const int nvals = w * src->channels;
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[0], 2, pl.g, clv__reg_local(ctx, CLV__SHAPE_FILTER, pl.g),
                           CLV_ARG(src->mem), CLV_ARG(sp), CLV_ARG(w), CLV_ARG(h),
                           CLV_ARG(pl.work), CLV_ARG(pl.wpitch), CLV_ARG(scale_x)));
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[1], 2, pl.g2, clv__reg_local(ctx, CLV__SHAPE_FILTER, pl.g2),
                           CLV_ARG(pl.work), CLV_ARG(pl.wpitch),
                           CLV_ARG(nvals), CLV_ARG(h), CLV_ARG(dst->mem), CLV_ARG(dp),
                           CLV_ARG(ksize_y), CLV_ARG(ay), CLV_ARG(pl.chunk_y), CLV_ARG(scale_cols)));
        break;
    }
    case BOX_SMALL:
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[0], 2, pl.g, pl.l, CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(w), CLV_ARG(h), CLV_ARG(dst->mem), CLV_ARG(dp),
                           CLV_ARG(ksize_x), CLV_ARG(ksize_y), CLV_ARG(scale)));
        break;
    case BOX_TWO_PASS:
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[0], 2, pl.g, pl.l, CLV_ARG(src->mem), CLV_ARG(sp),
                           CLV_ARG(w), CLV_ARG(h), CLV_ARG(pl.work), CLV_ARG(ksize_x),
                           CLV_ARG(ax), CLV_ARG(pl.chunk_x), CLV_ARG(scale_x),
                           CLV_LOCAL(pl.seg_bytes)));
        CLV_TRY(CLV_LAUNCH(ctx, OP, pl.k[1], 2, pl.g2, NULL, CLV_ARG(pl.work), CLV_ARG(w),
                           CLV_ARG(h), CLV_ARG(dst->mem), CLV_ARG(dp), CLV_ARG(ksize_y),
                           CLV_ARG(ay), CLV_ARG(pl.chunk_y), CLV_ARG(scale_cols)));
        break;
    }
out:
    return status;
}

static clv_status box_choose(clv_context *ctx, const clv_image *src, int ksize_x, int ksize_y,
                             const char *filter_opts, box_plan *pl)
{
    clv_status status = CLV_OK;
    const box_tile *t = &box_tile_default;
    const int w = src->width, h = src->height, cn = src->channels;
    /* box_small's local arrays are sized at compile time: fewer rows per
     * work-item where they would exceed the device's local memory */
    int py = cn == 1 ? t->py_c1 : t->py_cn;
    while (py > 1 && box_small_bytes(t, py, cn) > ctx->info.local_mem_size)
        py /= 2;
    char opts[320];
    snprintf(opts, sizeof opts, "%s -DBS_LX=%d -DBS_LY=%d -DBS_MAXK=%d -DBS_PY=%d", filter_opts,
             t->lx, t->ly, t->maxk, py);
    memset(pl, 0, sizeof *pl);

    if (ctx->tune.vec == 16) {
        /* CPU: one pass by bands of full rows (box_band_vec): vertical
         * running sums of one row, kept in cache, and horizontal running
         * sums as a strided prefix sum inside each vector; a band starts
         * with ky rows of loads. 1920x1080 on PoCL (2 cores), 31x31,
         * device ms against the former two passes through a float image:
         * u8 x 3 12.2 -> 5.0, u8 x 1 3.1 -> 1.5, f32 4.5 -> 2.3. It also
         * beat the former fused kernel for narrow windows (box_fused_vec,
         * removed), 5x5: u8 x 1 2.1 -> 1.3, u8 x 3 5.8 -> 3.5, f32 4.0 ->
         * 2.8; 3x3 and 640x480 alike. */
        char vopts[340];
        snprintf(vopts, sizeof vopts, "%s -DVEC=16", opts);
        pl->variant = BOX_BAND_VEC;
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_BOX, vopts, "box_band_vec", &pl->k[0]));
        pl->wpitch = (w * cn + 15) / 16 * 16;
        size_t nb;
        CLV_TRY(clv__band_plan(ctx, OP, h, ksize_y, (size_t)pl->wpitch, &pl->bchunk, &nb,
                               &pl->work));
        pl->work_bytes = nb * (size_t)pl->wpitch * sizeof(float);
        pl->g[0] = nb;
        pl->l[0] = 1;
        return CLV_OK;
    }

    /* box_reg's and box_regf's loads: BR_NW groups of 4 values a row
     * (box.cl), the values either side of its 4 reaching into the next
     * groups (CLV__SPAN_FITS) */
    const int ax = ksize_x / 2;
    const int reg_nw = (ax * cn + 3) / 4 + 1 + ((ksize_x - 1 - ax) * cn + 3) / 4;
    const int reg_u8 = src->type == CLV_U8 && CLV__REG_ON(ctx, CLV__REG_BOX, cn);
    /* box_regf, box_whf and box_wvf compute in float: f32, and u16 (its
     * values, their sums and 1 / (kx ky) in single precision, as box_small) */
    const int float_in = src->type == CLV_F32 || src->type == CLV_U16;
    const int reg_f32 = float_in && CLV__REG_ON(ctx, CLV__REG_BOXF, cn);
    if ((reg_u8 || reg_f32) && ksize_x <= t->maxk && ksize_y <= t->maxk &&
        CLV__SPAN_FITS(w, 4 * reg_nw)) {
        /* small windows, u8 or f32, GPUs: one pass in registers (box_reg,
         * box_regf), 4 values across and reg_py rows down per work-item, the
         * window compiled in (a program per window: cheap to build on a GPU,
         * and what lets every loop unroll); the launch picks the groups (any
         * shape works: the kernel checks its bounds) */
        const int py = CLV__REG_PY(ctx, reg_u8 ? t->reg_py : t->regf_py);
        char ropts[400];
        snprintf(ropts, sizeof ropts, "%s -DBR_KX=%d -DBR_KY=%d -DBR_PY=%d", opts, ksize_x,
                 ksize_y, py);
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_BOX, ropts, reg_u8 ? "box_reg" : "box_regf",
                                &pl->k[0]));
        pl->variant = BOX_REG;
        pl->g[0] = ((size_t)w * (size_t)cn + 3) / 4;
        pl->g[1] = ((size_t)h + (size_t)py - 1) / (size_t)py;
        return CLV_OK;
    }

    /* box_wh's loads: BW_NV 16-byte vectors a row (box.cl) */
    const int wide_nv = (ax * cn + 15) / 16 + 1 + ((ksize_x - 1 - ax) * cn + 15) / 16;
    if (CLV__REG_ON(ctx, CLV__REG_BOXW, cn) && src->type == CLV_U8 &&
        ax * cn <= t->wide_reach && (ksize_x - 1 - ax) * cn <= t->wide_reach &&
        CLV__SPAN_FITS(w, 16 * wide_nv)) {
        /* u8, GPUs: two passes through a u16 image of row sums (kx * 255
         * fits), each moving 16 bytes per work-item: box_wh sums 16 values
         * of a row over the window (kx compiled in), box_wv walks down
         * wide_rows rows of 8 values with running column sums (ky an
         * argument). Rows of sums padded to 16 values (32 bytes). */
        char wopts[400], vopts[400];
        snprintf(wopts, sizeof wopts, "%s -DBW_KX=%d", opts, ksize_x);
        /* box_wv reaches rows -ay .. h - 1 + ky - 1 - ay: one reflection
         * (common.cl's BORDER_ROW) while both reaches are under h */
        const int ay = ksize_y / 2, reach_y = ay > ksize_y - 1 - ay ? ay : ksize_y - 1 - ay;
        snprintf(vopts, sizeof vopts, "%s%s", opts, h > reach_y ? " -DROWS_NEAR" : "");
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_BOX, wopts, "box_wh", &pl->k[0]));
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_BOX, vopts, "box_wv", &pl->k[1]));
        const int rows = CLV__REG_PY(ctx, t->wide_rows);
        const size_t nv = (size_t)w * (size_t)cn;
        pl->variant = BOX_WIDE;
        pl->wpitch = (int)((nv + 15) / 16 * 16);
        pl->work_bytes = (size_t)pl->wpitch * (size_t)h * sizeof(cl_ushort);
        CLV_TRY(clv__scratch(ctx, OP, 0, pl->work_bytes, &pl->work));
        pl->chunk_y = rows;
        pl->g[0] = (nv + 15) / 16;
        pl->g[1] = (size_t)h;
        pl->g2[0] = (nv + 7) / 8;
        pl->g2[1] = ((size_t)h + (size_t)rows - 1) / (size_t)rows;
        return CLV_OK;
    }

    if (ksize_x <= t->maxk && ksize_y <= t->maxk) {
        /* small windows: one pass through local memory (box_small), in
         * groups of exactly lx x ly covering lx x (ly * py) outputs */
        const size_t lx = (size_t)t->lx, ly = (size_t)t->ly, rows = ly * (size_t)py;
        cl_kernel ks;
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_BOX, opts, "box_small", &ks));
        size_t max_wg, local_free;
        CLV_TRY(clv__kernel_limits(ctx, OP, ks, &max_wg, &local_free));
        if (max_wg >= lx * ly) {
            pl->variant = BOX_SMALL;
            pl->k[0] = ks;
            pl->g[0] = ((size_t)w + lx - 1) / lx * lx;
            pl->g[1] = ((size_t)h + rows - 1) / rows * ly;
            pl->l[0] = lx;
            pl->l[1] = ly;
            return CLV_OK;
        }
        /* a device with smaller groups takes the two running-sum passes */
    }

    /* box_whf's loads: 16-byte vectors of 4 values, its own 4 and the
     * window's reach on each side (box.cl's BF_NW) */
    const int whf_nw = reg_nw + 3;
    if (float_in && CLV__REG_ON(ctx, CLV__REG_BOXFW, cn) &&
        ax * cn <= t->widef_reach && (ksize_x - 1 - ax) * cn <= t->widef_reach &&
        CLV__SPAN_FITS(w, 4 * whf_nw)) {
        /* f32, GPUs: two passes through a float image of row sums, each
         * moving 16-byte vectors: box_whf sums 16 values of a row over the
         * window (kx compiled in, each value scaled by 1 / kx), box_wvf
         * walks down widef_rows rows of 4 values with running column sums (ky
         * an argument, each term scaled by 1 / ky). Rows of sums padded to
         * 16 values (64 bytes). */
        const int rows = CLV__REG_PY(ctx, t->widef_rows);
        char hopts[400], vopts[340];
        snprintf(hopts, sizeof hopts, "%s -DBF_KX=%d", opts, ksize_x);
        snprintf(vopts, sizeof vopts, "%s -DBF_COLS", opts);
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_BOX, hopts, "box_whf", &pl->k[0]));
        CLV_TRY(clv__get_kernel(ctx, CLV__SRC_BOX, vopts, "box_wvf", &pl->k[1]));
        const size_t nv = (size_t)w * (size_t)cn;
        pl->variant = BOX_WIDE_F32;
        pl->wpitch = (int)((nv + 15) / 16 * 16);
        pl->work_bytes = (size_t)pl->wpitch * (size_t)h * sizeof(cl_float);
        CLV_TRY(clv__scratch(ctx, OP, 0, pl->work_bytes, &pl->work));
        pl->chunk_y = rows;
        pl->g[0] = (nv + 15) / 16;
        pl->g[1] = (size_t)h;
        pl->g2[0] = (nv + 3) / 4;
        pl->g2[1] = ((size_t)h + (size_t)rows - 1) / (size_t)rows;
        return CLV_OK;
    }

    pl->variant = BOX_TWO_PASS;
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_BOX, opts, "box_rows", &pl->k[0]));
    CLV_TRY(clv__get_kernel(ctx, CLV__SRC_BOX, opts, "box_cols", &pl->k[1]));
    pl->work_bytes = (size_t)w * (size_t)h * (size_t)cn * sizeof(float);
    CLV_TRY(clv__scratch(ctx, OP, 0, pl->work_bytes, &pl->work));
    /* Rows: each work-item slides over `chunk` outputs; the group stages
     * lx*chunk + kx - 1 pixels. Longer chunks for wider windows keep the
     * per-pixel cost near 2 adds + kx/chunk. */
    size_t max_wg, local_free;
    CLV_TRY(clv__kernel_limits(ctx, OP, pl->k[0], &max_wg, &local_free));
    size_t budget = local_free < CLV_LOCAL_BUDGET_MAX ? local_free : CLV_LOCAL_BUDGET_MAX;
    const int chunk_x = ksize_x <= 16 ? 8 : (ksize_x + 1) / 2 > 64 ? 64 : (ksize_x + 1) / 2;
    size_t lx = 64;
    const size_t pix = (size_t)cn * sizeof(float);
    while (lx > 1 && (lx > max_wg || (lx * (size_t)chunk_x + (size_t)ksize_x - 1) * pix > budget))
        lx /= 2;
    const size_t seg_bytes = (lx * (size_t)chunk_x + (size_t)ksize_x - 1) * pix;
    if (seg_bytes > budget)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP,
                         "needs %zu bytes of local memory, device offers %zu", seg_bytes, budget);
    const size_t seg = lx * (size_t)chunk_x;
    /* Columns: each work-item slides down `chunk_y` rows. */
    const int chunk_y = ksize_y < 16 ? 16 : ksize_y > 64 ? 64 : ksize_y;
    pl->chunk_x = chunk_x;
    pl->chunk_y = chunk_y;
    pl->seg_bytes = seg_bytes;
    pl->g[0] = ((size_t)w + seg - 1) / seg * lx;
    pl->g[1] = (size_t)h;
    pl->l[0] = lx;
    pl->l[1] = 1;
    pl->g2[0] = (size_t)w;
    pl->g2[1] = ((size_t)h + (size_t)chunk_y - 1) / (size_t)chunk_y;
out:
    return status;
}

static const clv_param_desc box_params[] = {
    CLV__P_SRC_ANY,
    CLV__P_DST_LIKE_SRC,
    {.name = "ksize_x", .type = CLV_PARAM_INT, .flags = CLV_PARAM_INPUT, .doc = "window width",
     .unit = "px", .min = 1, .max = CLV_BOX_MAX_KSIZE, .def = 3, .cli_alias = "--ksize"},
    {.name = "ksize_y", .type = CLV_PARAM_INT, .flags = CLV_PARAM_INPUT, .doc = "window height",
     .unit = "px", .min = 1, .max = CLV_BOX_MAX_KSIZE, .def = 3, .cli_alias = "--ksize"},
    CLV__P_BORDER,
};

const clv_op_desc clv__op_box_filter = {
    .name = "box_filter",
    .summary = "normalised box (mean) filter over a ksize_x x ksize_y window at its centre",
    .cli_name = "box",
    .nparams = 5,
    .params = box_params,
    .run = box_run,
};

CLV_API clv_status clv_box_filter(clv_context *ctx, const clv_image *src, clv_image *dst,
                                  int ksize_x, int ksize_y, clv_border border)
{
    const clv_arg a[] = {CLV__IMG(src), CLV__IMG(dst), CLV__INT(ksize_x), CLV__INT(ksize_y),
                         CLV__INT((int)border)};
    return clv__op_run(ctx, &clv__op_box_filter, a);
}
