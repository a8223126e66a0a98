/* clvision — internal runtime interface shared by the runtime, images and ops.
 * Not installed. Every function returning a status must have it checked. */
#ifndef CLV_INTERNAL_H
#define CLV_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <CL/cl.h>

#include "runtime/clwrap.h"

#include <clvision/cl_interop.h>
#include <clvision/context.h>
#include <clvision/edge.h>
#include <clvision/flow.h>
#include <clvision/filter.h>
#include <clvision/image.h>
#include <clvision/op.h>

#define CLV_WUR __attribute__((warn_unused_result))
#define CLV_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Kernel source files, read at context creation: CLV__SRC_<ID> for each
 * CLV_SOURCE entry of src/ops/ops.def, the one registry (adding a family is
 * one line there). CLV__SRC_COMMON is the prelude prepended to every other
 * source. */
typedef enum clv__source_id {
#define CLV_SOURCE(id, file) CLV__SRC_##id,
#define CLV_OP(sym, file)
#define CLV_OP_FILE(file)
#include "ops/ops.def"
#undef CLV_SOURCE
#undef CLV_OP
#undef CLV_OP_FILE
    CLV__SRC_COUNT
} clv__source_id;

extern const char *const clv__source_names[CLV__SRC_COUNT];

/* Largest kernel source file read (bytes); see CLV_MAX_KERNEL_SOURCE_BYTES. */
#define CLV_MAX_KERNEL_SOURCE ((size_t)CLV_MAX_KERNEL_SOURCE_BYTES)

typedef struct clv__source {
    char *text;
    size_t len;
    char path[4096];
} clv__source;

#define CLV__MAX_KERNELS_PER_PROGRAM 16

/* Per-op workspaces: buffers an op keeps between calls (e.g. Farneback's
 * per-level images), freed with the context through ws_free. */
enum { CLV__WS_FARNEBACK = 0, CLV__WS_COUNT };
typedef void (*clv__ws_free_fn)(void *ws);

/* Scratch buffer slots (clv__scratch); an op may use several at once. */
#define CLV__SCRATCH_SLOTS 6
/* Launch-plan cache: slots, the largest key (with the op's tag) and plan. */
#define CLV__PLAN_SLOTS 64
#define CLV__PLAN_KEY_MAX 72
#define CLV__PLAN_MAX 256

/* Parameter buffer slots, one per user. */
enum {
    CLV__PARAM_RESIZE = 0,
    CLV__PARAM_GAUSS_X,
    CLV__PARAM_GAUSS_Y,
    CLV__PARAM_GRID_BLUR,
    CLV__PARAM_GRID_RANGE,
    CLV__PARAM_BILATERAL,
    CLV__PARAM_FB_G,
    CLV__PARAM_FB_XG,
    CLV__PARAM_FB_XXG,
    CLV__PARAM_FB_WIN,
    CLV__PARAM_SLOTS
};

typedef struct clv__program {
    struct clv__program *next;
    clv__source_id src;
    char *options; /* options as given by the op (the key) */
    cl_program program;
    int nkernels;
    char *kernel_names[CLV__MAX_KERNELS_PER_PROGRAM];
    cl_kernel kernels[CLV__MAX_KERNELS_PER_PROGRAM];
} clv__program;

typedef struct clv__device_info {
    cl_device_type type;
    char name[256];
    char vendor[256];
    char driver_version[256];
    char platform_name[256];
    char platform_version[256];
    char c_version[128];
    size_t max_work_group_size;
    size_t max_work_item_sizes[3];
    cl_ulong local_mem_size;
    cl_ulong max_mem_alloc_size;
    cl_uint compute_units;
    cl_ulong global_mem_size;
    cl_bool image_support;
    unsigned ext;       /* CLV_EXT_* bits (clvision/context.h) found in CL_DEVICE_EXTENSIONS */
    int p, d;           /* P:D as clv_list_devices prints them; -1 when unknown */
} clv__device_info;

/* The families of u8 register kernels that take a work-group shape from
 * the tuning (tune.reg_local). */
enum {
    CLV__SHAPE_FILTER,    /* box_reg, box_regf, gauss_reg, gauss_wh/wv, box_whf/wvf */
    CLV__SHAPE_BOXW,      /* box_wh/wv (the u8 box's wide passes) */
    CLV__SHAPE_TRANSPOSE, /* transpose_reg */
    CLV__SHAPE_HALF,      /* resize_half_reg */
    CLV__SHAPE_UP,        /* resize_up_reg */
    CLV__SHAPE_PYR,       /* pyr_reg */
    CLV__SHAPES
};

/* Per-device tuning, chosen once at context creation (see tuning_for()). */
typedef struct clv__tuning {
    int vec;          /* >0: use the flat VEC-wide CPU kernel variants */
    size_t local2d[2]; /* default 2-D work-group shape */
    int grid_zc;      /* bilateral grid: range cells per splat work-item */
    int grid_max_bands; /* bilateral grid: most row bands a cell's splat is split into */
    int poly_math;    /* use the prelude's polynomial log2/exp2 (-DCLV_POLY_MATH) */
    /* Largest filter radius compiled into a kernel (gauss_fused): a program
     * per radius pair, worth it where a build is cheap and the loops' fixed
     * trip counts pay (GPUs); 0: radii are arguments. */
    int fixed_radius;
    /* Largest bilateral radius compiled into bil_fixed (taps unrolled into
     * registers, a program per radius); 0: never (see bilateral.c). */
    int bil_fixed_radius;
    /* Which u8 register kernels run (CLV__REG_ON): box_reg and
     * gauss_reg (small windows compiled in, a program per window; else
     * box_small and gauss_fused), pyr_reg, resize_half_reg, transpose_reg
     * (else the local-memory kernels), and the u8 box's and Gaussian's two
     * wide passes through a u16 image (box_wh and box_wv, else box_small or
     * the float passes; gauss_wh and gauss_wv, else gauss_fused), and
     * resize_up_reg (else resize_bilinear), and pyr_reg2 and pyr_reg3 (two
     * and three pyramid steps per launch, else pyr_reg's one), and, not u8,
     * box_regf (the f32 box's small windows in registers, else box_small)
     * and the f32 box's wider windows as two passes through a float image
     * in 16-byte vectors (box_whf, box_wvf; else box_rows and
     * box_cols), and resize_half_reg for f32 and u16 (exact halving, else
     * resize_bilinear).
     * CLV_U8_REG overrides it. */
    int u8_reg;
    /* Rows per work-item of box_reg, gauss_reg, pyr_reg, resize_half_reg
     * and resize_up_reg; 0: each op's own (its tile table). CLV_REG_PY
     * overrides it, for timing the choice on a device. */
    int reg_py;
    /* Work-group shapes of the u8 register kernels and wide passes, per
     * family (clv__reg_local); 0: the driver's choice. From the device's
     * row of the tuning table; CLV_REG_LOCAL=WxH sets all of them, for
     * timing shapes on a device. */
    size_t reg_local[CLV__SHAPES][2];
    /* Farneback's averaging in one launch (fb_blur_solve) instead of two
     * (fb_blur_v, fb_blur_h_solve), GPU-style kernels only, and its
     * work-group before fitting (0: farneback.c's). From the device's row of
     * the tuning table; CLV_FB_BLUR=fused[:WxH]|two overrides them. */
    int fb_fused;
    size_t fb_local[2];
    /* pyr_reg2 / pyr_reg3 (two or three pyramid levels per launch, where
     * u8_reg has them) only for a level 0 of at most this many pixels; 0:
     * any. From the device's row (where one launch stops paying); none
     * under CLV_TUNE=gpu or a CLV_U8_REG that names the kernels. */
    size_t pyrn_max_pixels;
} clv__tuning;

/* u8 register kernels: each has a bit for one-channel images and the bit
 * above it for more channels. */
enum {
    CLV__REG_BOX = 1,
    CLV__REG_GAUSS = 4,
    CLV__REG_PYR = 16,
    CLV__REG_HALF = 64,
    CLV__REG_TRANSPOSE = 256,
    CLV__REG_BOXW = 1024,   /* box_wh + box_wv: not registers, two wide passes through u16 */
    CLV__REG_GAUSSW = 4096, /* gauss_wh + gauss_wv: the same for the Gaussian */
    CLV__REG_UP = 16384,    /* resize_up_reg: upscaling through the coordinate table */
    CLV__REG_PYR2 = 65536,  /* pyr_reg2: two pyramid steps per launch (one channel) */
    CLV__REG_PYR3 = 262144, /* pyr_reg3: three (and pyr_reg2 where two are left) */
    CLV__REG_BOXF = 1048576, /* box_regf: the f32 box's small windows in registers */
    CLV__REG_BOXFW = 4194304, /* box_regf + box_wvf: the f32 box's wider windows, two passes */
    CLV__REG_GAUSSFW = 16777216, /* gauss_whf + gauss_wvf: the f32 Gaussian in two passes */
    CLV__REG_HALFW = 67108864, /* resize_half_reg for f32 and u16 (4 pixels an item) */
    CLV__REG_ALL = 0xfffffff
};
#define CLV__REG_ANY(k) ((k) | (k) << 1)
/* 1 when register kernel k runs on images of cn channels on ctx. */
#define CLV__REG_ON(ctx, k, cn) (((ctx)->tune.u8_reg & ((cn) > 1 ? (k) << 1 : (k))) != 0)

/* The u8 register kernels and wide passes load `span` consecutive values
 * of a row per work-item (box_reg, gauss_reg: 4 per word; pyr_reg: 16;
 * box_wh, gauss_wh: 16 per vector). Near a row's ends those go through one
 * reflection (common.cl's clv_border_value_near, no division), right for
 * values at most width - 1 pixels outside the row: a row of more than
 * `span` pixels guarantees it. The ops take these kernels only then. */
#define CLV__SPAN_FITS(width, span) ((long)(width) > (long)(span))

/* Rows per work-item of a u8 register kernel: CLV_REG_PY's, else the op's. */
#define CLV__REG_PY(ctx, own) ((ctx)->tune.reg_py ? (ctx)->tune.reg_py : (own))

struct clv_context {
    cl_platform_id platform;
    cl_device_id device;
    cl_context cl;             /* clvision's own, or the application's (retained) */
    cl_command_queue queue;    /* the same: clvision's, or the application's (retained) */
    int device_retained;       /* 1: device came from the application (clRetainDevice) */
    cl_command_queue transfer; /* second in-order queue for asynchronous uploads (lazy) */
    cl_event *waits;           /* uploads the next kernel launch must wait for */
    size_t nwaits, waits_cap;
    /* Images of another clvision context (same cl_context) that the running
     * operation uses: at its end each gets a marker of this queue as its
     * pending event (clv__op_end), so their own context waits for it. */
    clv_image **foreign;
    size_t nforeign, foreign_cap;
    clv__device_info info;
    clv__tuning tune;

    clv__source sources[CLV__SRC_COUNT];
    clv__program *programs;

    int cache_enabled;
    char cache_dir[4096];

    int profiling; /* 1: profiling queue; 2: also print each kernel's time (CLV_PROFILE=2) */
    cl_event *events; /* events of the last operation (profiling only) */
    cl_kernel *event_kernels; /* the kernel behind each event */
    size_t nevents, events_cap;
    int op_ran;

    /* Scratch buffers reused across operations (grow only). */
    cl_mem scratch[CLV__SCRATCH_SLOTS];
    size_t scratch_size[CLV__SCRATCH_SLOTS];

    /* Small read-only parameter buffers (weights, coordinate tables), kept
     * with a host copy so repeated calls with equal parameters upload nothing. */
    struct {
        cl_mem mem;
        unsigned char key[64];
        size_t key_len;
    } params[CLV__PARAM_SLOTS];

    /* Launch plans of recent calls (clv__plan_get / clv__plan_put). */
    struct {
        size_t key_len; /* 0: empty */
        unsigned char key[CLV__PLAN_KEY_MAX];
        unsigned char plan[CLV__PLAN_MAX];
    } plans[CLV__PLAN_SLOTS];

    /* Work-group limits of recently launched kernels (saves two driver
     * queries per launch). */
    struct {
        cl_kernel k;
        size_t max_wg;
        size_t local_free;
    } limits[32];
    int nlimits;

    void *ws[CLV__WS_COUNT];
    clv__ws_free_fn ws_free[CLV__WS_COUNT];

    int debug;        /* CLV_DEBUG: bounds-checked kernels, each launch checked */
    cl_mem dbg_sizes; /* debug mode: byte size of each buffer argument */
    cl_mem dbg_err;   /* debug mode: the first fault of a launch (uint[8]) */

    clv_context_stats stats;
    char *err;     /* last error message */
    size_t err_cap;
};

struct clv_image {
    clv_context *ctx;
    cl_mem mem;        /* what kernels get: pixel (0, 0) at byte 0 (owned or retained) */
    int width, height, channels;
    clv_pixel_type type;
    size_t elem_size;  /* bytes per channel value */
    size_t row_bytes;  /* width * channels * elem_size */
    size_t pitch;      /* bytes between rows, multiple of 64 */
    /* Work the image's next use must wait for, or NULL: an unfinished
     * asynchronous upload, or the end of an operation on another context of
     * the same cl_context that used the image. */
    cl_event pending;
    /* clv_image_wrap_buffer: the application's buffer (retained) and the
     * offset of pixel (0, 0) in it; mem is then app_mem itself (offset 0,
     * retained once more) or a sub-buffer clvision made. NULL for images
     * clvision allocated. */
    cl_mem app_mem;
    size_t offset;
    int read_only;     /* over a CL_MEM_READ_ONLY buffer: never an output */
    /* The buffer that is no sub-buffer under mem, pixel (0, 0)'s byte offset
     * root_off in it, and what an operation may touch there: the byte range
     * [root_off, root_off + span), and of each row `touch` bytes from its
     * start (the overlap test, clv__images_overlap). Transfers and the
     * copies of staged views address root directly. */
    cl_mem root;
    size_t root_off, span, touch;
    /* Views (clv_image_view): base is the image that owns the memory
     * (never itself a view; one reference of its `views` count), view_off
     * the bytes from base's pixel (0, 0) to the view's. A view's pending
     * work, foreign-context ordering and host transfers are base's. mem is
     * a sub-buffer (or base's mem retained) when the view can be addressed
     * from byte 0 like any image ("direct"), NULL when it is staged: every
     * operation runs on packed copies (clv__op_exec). */
    clv_image *base;
    size_t view_off;
    int staged;
    int views;    /* images: views alive on this one */
    void *map_ptr; /* clv_image_map's pointer while this image object is mapped */
    int mapped;    /* owners: 1 while it or one of its views is mapped */
    int released; /* images: clv_image_release was called while views lived */
    int placeholder; /* clv_image_placeholder: a shape with no memory (mem NULL) */
};

/* The image that owns img's memory, pending work and context ordering. */
static inline clv_image *clv__owner(const clv_image *img)
{
    return img->base ? img->base : (clv_image *)img;
}

/* 1 when a and b may touch the same bytes: the same image, or images over
 * one buffer whose row rectangles (same pitch) or, failing that, byte
 * ranges intersect. Disjoint views of one image are distinct. */
static inline int clv__images_overlap(const clv_image *a, const clv_image *b)
{
    if (a == b)
        return 1;
    if (a->root != b->root || !a->root) /* placeholders (no memory) are distinct */
        return 0;
    if (a->pitch == b->pitch) {
        const size_t p = a->pitch;
        const size_t ra = a->root_off / p, ca = a->root_off % p;
        const size_t rb = b->root_off / p, cb = b->root_off % p;
        if (ca + a->touch <= p && cb + b->touch <= p)
            return ra < rb + (size_t)b->height && rb < ra + (size_t)a->height &&
                   ca < cb + b->touch && cb < ca + a->touch;
    }
    return a->root_off < b->root_off + b->span && b->root_off < a->root_off + a->span;
}

/* ---- errors (status.c) ---- */

/* Name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or "CL_UNKNOWN_ERROR". */
const char *clv__cl_error_name(cl_int err);

/* v in the fewest significant digits that read back as v ("20.0000001", not
 * %g's "20"), for messages quoting a caller's number; buf holds 32 chars.
 * CLV_NUM(v) gives each use its own buffer (a compound literal that lives to
 * the end of the enclosing block). */
const char *clv__num(char *buf, double v);
#define CLV_NUM(v) clv__num((char[32]){0}, (v))

/* Before clvision first enumerates OpenCL platforms in the process: set
 * POCL_AFFINITY=1 when the user has not and pinning is sound (pocl_env.c
 * says when). Once per process; every enumeration calls it first. */
void clv__pocl_env_prepare(void);

/* Record "op: message" as the context's last error and return status. */
clv_status clv__fail(clv_context *ctx, clv_status status, const char *op, const char *fmt, ...)
    CLV_PRINTF(4, 5) CLV_WUR;
clv_status clv__failv(clv_context *ctx, clv_status status, const char *op, const char *fmt,
                      va_list ap) CLV_WUR;
/* Record "op: CALL failed: CL_NAME (code)" and return CLV_ERROR_OPENCL
 * (CLV_ERROR_OUT_OF_MEMORY for CL_OUT_OF_HOST_MEMORY). */
clv_status clv__fail_cl(clv_context *ctx, cl_int err, const char *op, const char *call) CLV_WUR;
/* Append text to the last error message (used for build logs). */
void clv__append_error(clv_context *ctx, const char *text);
void clv__clear_error(clv_context *ctx);

/* Inside a function with `clv_status status` and an `out:` label. */
#define CLV_CHECK_CL(ctx, err, op, call)                                                 \
    do {                                                                                 \
        cl_int e_ = (err);                                                               \
        if (e_ != CL_SUCCESS) {                                                          \
            status = clv__fail_cl((ctx), e_, (op), (call));                              \
            goto out;                                                                    \
        }                                                                                \
    } while (0)

#define CLV_TRY(expr)                                                                    \
    do {                                                                                 \
        status = (expr);                                                                 \
        if (status != CLV_OK)                                                            \
            goto out;                                                                    \
    } while (0)

/* NULL-safe releases. */
void clv__release_mem(cl_mem m);
void clv__release_event(cl_event e);

/* ---- programs (program.c) ---- */

/* Read every kernel source; fills ctx->sources. */
clv_status clv__load_sources(clv_context *ctx, const char *explicit_dir) CLV_WUR;
void clv__free_programs(clv_context *ctx);

/* Kernel `name` from source `src` built with `options` (-D variants). Built
 * (or loaded from the disk cache) on first use; the kernel is owned by the
 * context. */
clv_status clv__get_kernel(clv_context *ctx, clv__source_id src, const char *options,
                           const char *name, cl_kernel *out) CLV_WUR;

/* clBuildProgram for ctx's device with fd 2 captured (see program.c): the
 * compiler's own stderr output is returned in *chatter (malloc'd, or NULL)
 * when the build fails, and written back to fd 2 when it succeeds. */
cl_int clv__build_program(clv_context *ctx, cl_program prog, const char *options,
                          char **chatter) CLV_WUR;

/* ---- disk cache (cache.c) ---- */

uint64_t clv__hash64(const void *data, size_t len, uint64_t seed);

/* SHA-256 (FIPS 180-4), streaming; clv_debug_sha256 is the one-shot form. */
typedef struct clv__sha256_ctx {
    uint32_t h[8];
    uint64_t len;
    unsigned char buf[64];
    size_t used;
} clv__sha256_ctx;
void clv__sha256_init(clv__sha256_ctx *c);
void clv__sha256_update(clv__sha256_ctx *c, const void *data, size_t len);
void clv__sha256_final(clv__sha256_ctx *c, unsigned char out[32]);
/* Try to build `program` from a cached binary for the key material. Returns
 * a built program or NULL (counted as a miss or a rejected entry). */
cl_program clv__cache_load(clv_context *ctx, const char *key, size_t key_len,
                           const char *options);
/* Store the binary of a freshly built program. Failures only count. */
void clv__cache_store(clv_context *ctx, const char *key, size_t key_len, cl_program program);
/* The cache directory for an explicit choice (options.cache_dir; NULL or
 * "": none) into buf: it, else CLV_CACHE_DIR, else $XDG_CACHE_HOME/clvision,
 * else $HOME/.cache/clvision. The one place this rule lives (contexts and
 * clv_cache_info use it). Returns 0, or -1 when there is none (buf ""). */
int clv__cache_dir_resolve(const char *explicit_dir, char *buf, size_t size) CLV_WUR;

/* ---- launching (launch.c) ---- */

typedef struct clv__arg {
    size_t size;
    const void *ptr; /* NULL: __local buffer of `size` bytes */
    int is_mem;      /* the argument is a cl_mem (debug mode passes its size) */
} clv__arg;

#define CLV_ARG(x) ((clv__arg){sizeof(x), &(x), _Generic((x), cl_mem: 1, default: 0)})
#define CLV_LOCAL(bytes) ((clv__arg){(bytes), NULL, 0})

/* Start of an operation: clears the last error and the previous op's events. */
/* Release the waits gathered for a launch and forget the foreign images
 * (an op that enqueued nothing). */
void clv__drop_waits(clv_context *ctx);
void clv__op_begin(clv_context *ctx);
/* End of an operation begun with clv__op_begin: images of other contexts it
 * used wait for its work from now on (see foreign above). Returns status, or
 * the failure of doing that when status is CLV_OK. */
clv_status clv__op_end(clv_context *ctx, const char *op, clv_status status) CLV_WUR;
/* Before releasing a kernel the context did not build itself: drops the
 * events and cached limits that refer to it. */
void clv__forget_kernel(clv_context *ctx, cl_kernel k);

/* Set all arguments, fit the NDRange and enqueue.
 * global: work-items wanted per dimension (need not be a multiple of the
 * work-group: the range is rounded up and kernels check bounds).
 * local: work-group shape or NULL to let clvision pick one that fits the
 * kernel and device. An explicit shape that does not fit is
 * CLV_ERROR_UNSUPPORTED (ops size tiles from clv__kernel_limits first). */
clv_status clv__launch(clv_context *ctx, const char *op, cl_kernel k, cl_uint dims,
                       const size_t *global, const size_t *local, size_t nargs,
                       const clv__arg *args) CLV_WUR;

/* The local size for a 2-D launch of a u8 register kernel of a family
 * (CLV__SHAPE_*, tune.reg_local):
 * NULL (the driver's choice) unless set, else that shape, with global
 * rounded up to a multiple of it (the register kernels check their bounds). */
const size_t *clv__reg_local(const clv_context *ctx, int family, size_t global[2]);

#define CLV_LAUNCH(ctx, op, k, dims, global, local, ...)                                 \
    clv__launch((ctx), (op), (k), (dims), (global), (local),                             \
                sizeof((clv__arg[]){__VA_ARGS__}) / sizeof(clv__arg),                    \
                (clv__arg[]){__VA_ARGS__})

/* Largest work-group for this kernel on this device, and local memory left
 * for __local arguments (device local memory minus what the kernel uses). */
clv_status clv__kernel_limits(clv_context *ctx, const char *op, cl_kernel k, size_t *max_wg,
                              size_t *local_mem_free) CLV_WUR;

/* Everything a band kernel's launch needs (gauss_band_vec, box_band_vec:
 * bands of whole rows): the band height, the number of bands, and scratch
 * slot 0 sized for `floats_per_band` floats of working rows per band (as
 * clv__scratch, too large is CLV_ERROR_UNSUPPORTED). The kernel is launched
 * 1-D over *bands with one work-item per work-group. A band of c rows costs c rows of work plus
 * `overhead` rows to start (the window above it), and the bands run
 * ceil(bands / compute units) rounds; the height is the c in 8..CLV_BAND_ROWS_MAX (launch.c) of least
 * estimated time, the smallest (most bands) on a tie. */
clv_status clv__band_plan(clv_context *ctx, const char *op, int height, int overhead,
                          size_t floats_per_band, int *rows, size_t *bands,
                          cl_mem *work) CLV_WUR;

/* A context-owned device buffer of at least `bytes`, slot 0..CLV__SCRATCH_SLOTS-1. */
clv_status clv__scratch(clv_context *ctx, const char *op, int slot, size_t bytes,
                        cl_mem *out) CLV_WUR;

/* Launch plans: what an op chose for a call (variant, kernels, NDRange,
 * tile and band sizes), kept per context under a key of everything the choice
 * depends on, so that a repeated call builds no option string, looks up no
 * program or kernel by name and asks the driver nothing. A plan holds kernels
 * (they live as long as the context) and numbers, never a buffer: scratch
 * and parameter buffers are fetched on every call (another op may have
 * replaced them). op: the op's name (its address is part of the key); the
 * key must have no uninitialised padding (memset it). clv__plan_get: 1 and
 * *plan filled on a hit. clv__plan_put: keep it (direct-mapped; a collision
 * replaces the older plan). Sizes beyond CLV__PLAN_KEY_MAX / CLV__PLAN_MAX
 * are never cached. */
int clv__plan_get(clv_context *ctx, const char *op, const void *key, size_t key_len, void *plan,
                  size_t plan_len);
void clv__plan_put(clv_context *ctx, const char *op, const void *key, size_t key_len,
                   const void *plan, size_t plan_len);

/* Small read-only parameter buffers (weights, coordinate tables) keyed by
 * what they were computed from (at most 64 key bytes), so repeated calls with
 * the same parameters neither recompute nor upload.
 * clv__param_lookup: 1 and *out set when slot `slot` holds the buffer for key.
 * clv__param_store: make a new buffer from data for key (kernels still queued
 * on the old one keep it alive). Buffers are owned by ctx. */
int clv__param_lookup(clv_context *ctx, int slot, const void *key, size_t key_len, cl_mem *out);
clv_status clv__param_store(clv_context *ctx, const char *op, int slot, const void *key,
                            size_t key_len, const void *data, size_t bytes, cl_mem *out) CLV_WUR;
/* Small data (<= 64 bytes) that is its own key: reuse or store. */
clv_status clv__param_store_if_new(clv_context *ctx, const char *op, int slot, const void *data,
                                   size_t bytes, cl_mem *out) CLV_WUR;

/* The Gaussian op's normalised weights for (sigma, ksize), ksize <= CLV_GAUSSIAN_MAX_KSIZE. */
void clv__gaussian_weights(double sigma, int ksize, float *w);

/* ---- ops reused inside other ops (no clv__op_begin: the caller's timing
 * and error context stay) ---- */
clv_status clv__gaussian_blur(clv_context *ctx, const clv_image *src, clv_image *dst,
                              double sigma_x, double sigma_y, int ksize_x, int ksize_y,
                              clv_border border) CLV_WUR;
clv_status clv__resize(clv_context *ctx, const clv_image *src, clv_image *dst) CLV_WUR;
/* Host table of the bilinear resize from sw x sh to dw x dh (OpenCV
 * INTER_LINEAR): x0[dw], ax[dw] (float bits), y0[dh], ay[dh]. malloc'd; NULL
 * when out of memory. */
int32_t *clv__resize_table(int sw, int sh, int dw, int dh);

/* ---- images / argument checks (image.c) ---- */

/* Row pitch in elements of the image's channel type, as kernels take it
 * (pitches are multiples of 64 bytes, so the division is exact). */
static inline int clv__pitch(const clv_image *img) { return (int)(img->pitch / img->elem_size); }

/* -D options describing an image's pixel format: "-DDEPTH_U8 -DCN=3". */
void clv__format_options(char *buf, size_t size, clv_pixel_type type, int channels);

/* Check that img is a valid image for ctx ("name" used in messages): made in
 * ctx or in another context on the same cl_context. An image with pending
 * work (an asynchronous upload, another context's operation) is added to the
 * events the op's next kernel launch waits for; so is, for an image of
 * another context, a marker of everything enqueued on that context's queue
 * so far, and the image is recorded for clv__op_end. */
/* CLV_OK unless img is a placeholder (clv_image_placeholder): then
 * CLV_ERROR_INVALID_ARGUMENT, "WHAT is a placeholder ...", on img's context. */
clv_status clv__refuse_placeholder(const clv_image *img, const char *op, const char *what);
clv_status clv__check_image(clv_context *ctx, const char *op, const char *name,
                            const clv_image *img) CLV_WUR;
/* A new packed image of ctx with like's size, channels and type (errors
 * under op's name). */
clv_status clv__image_like(clv_context *ctx, const char *op, const clv_image *like,
                           clv_image **out) CLV_WUR;
/* Enqueue a device copy of from's pixels into to (same size, channels and
 * type; any pitches, views included) on ctx's queue; it takes the events the
 * op's next launch would wait for. */
clv_status clv__copy_pixels(clv_context *ctx, const char *op, const clv_image *from,
                            const clv_image *to) CLV_WUR;
/* src and dst valid, of ctx, distinct, same type and channels. */
clv_status clv__check_pair(clv_context *ctx, const char *op, const clv_image *src,
                           const clv_image *dst) CLV_WUR;

/* Border mode -D option value for the prelude ("BORDER_REFLECT101"...). */
const char *clv__border_macro(clv_border border);

/* -D options for a filter over src with a border mode ("-DDEPTH_U8 -DCN=3
 * -DBORDER=BORDER_WRAP"); CLV_ERROR_INVALID_ARGUMENT for an unknown mode. */
clv_status clv__filter_options(clv_context *ctx, const char *op, const clv_image *src,
                               clv_border border, char *buf, size_t size) CLV_WUR;

/* Local memory an op may stage per work-group: what the kernel leaves free,
 * capped so tiles stay cache-friendly and fit every vendor's limits. */
#define CLV_LOCAL_BUDGET_MAX (32 * 1024)

/* ---- operation descriptors (op.c; see clvision/op.h) ---- */

/* Most parameters an operation has. */
#define CLV__MAX_PARAMS 32

/* Where a check's message goes: the context's last error, or (ctx NULL) a
 * caller's buffer. */
typedef struct clv_op_report {
    clv_context *ctx;
    const clv_op_desc *op;
    char *msg;
    size_t msg_size;
} clv__report;

clv_status clv__report_fail(clv__report *r, clv_status status, const char *fmt, ...)
    CLV_PRINTF(3, 4) CLV_WUR;
/* The word messages use for a parameter (its label, else its name). */
const char *clv__param_word(const clv_param_desc *p);

/* Every check of op's descriptor on positional arguments a (one per
 * parameter, in order), then op->check. */
clv_status clv__op_validate(clv_context *ctx, const clv_op_desc *op, const clv_arg *a) CLV_WUR;
/* Validate and run; clv__op_run also starts the operation (clv__op_begin):
 * the typed public functions call it, ops reused inside others call
 * clv__op_exec. */
clv_status clv__op_exec(clv_context *ctx, const clv_op_desc *op, const clv_arg *a) CLV_WUR;
clv_status clv__op_run(clv_context *ctx, const clv_op_desc *op, const clv_arg *a) CLV_WUR;

/* Positional values for the typed fronts. */
#define CLV__IMG(x) ((clv_arg){NULL, CLV_PARAM_IMAGE, {.p = (void *)(x)}})
#define CLV__INT(x) ((clv_arg){NULL, CLV_PARAM_INT, {.i = (x)}})
#define CLV__DBL(x) ((clv_arg){NULL, CLV_PARAM_DOUBLE, {.d = (x)}})
#define CLV__PTR(t, x) ((clv_arg){NULL, (t), {.p = (void *)(x)}})

/* Number parameters. */
#define CLV__P_DOUBLE(nm, doc_, unit_, lo, hi, fl, def_) \
    {.name = (nm), .type = CLV_PARAM_DOUBLE, .flags = CLV_PARAM_INPUT | (fl), .doc = (doc_), \
     .unit = (unit_), .min = (lo), .max = (hi), .def = (def_)}
#define CLV__P_INT(nm, doc_, unit_, lo, hi, fl, def_) \
    {.name = (nm), .type = CLV_PARAM_INT, .flags = CLV_PARAM_INPUT | (fl), .doc = (doc_), \
     .unit = (unit_), .min = (lo), .max = (hi), .def = (def_)}
#define CLV__P_IMAGE(nm, lbl, doc_, fl, types_, chans, like_, likefl) \
    {.name = (nm), .label = (lbl), .type = CLV_PARAM_IMAGE, .flags = (fl), .doc = (doc_), \
     .types = (types_), .channels = (chans), .like = (like_), .like_flags = (likefl)}
/* The source image most filters take, and their destination of the same
 * size, type and channels. */
#define CLV__P_SRC_ANY                                                                    \
    CLV__P_IMAGE("src", "source", "the image, u8/u16/f32 with 1..4 channels",             \
                 CLV_PARAM_INPUT, CLV_TYPES_ALL, CLV_CHANNELS_1_4, NULL, 0)
#define CLV__P_DST_LIKE_SRC                                                               \
    CLV__P_IMAGE("dst", "destination", "the result, like src", CLV_PARAM_OUTPUT, 0, 0,     \
                 "src", CLV_LIKE_ALL)
/* The border parameter every filter shares (names and values: border.c). */
extern const char *const clv__border_names[5];
extern const int clv__border_values[5];
#define CLV__P_BORDER                                                                     \
    {.name = "border", .type = CLV_PARAM_ENUM, .flags = CLV_PARAM_INPUT | CLV_PARAM_OPTIONAL, \
     .doc = "pixels beyond the edges, as OpenCV's: reflect101 gfedcb|abcdefgh|gfedcba, "   \
            "replicate aaa|abc|ccc, reflect cba|abc|cba, constant 000|abc|000, wrap "      \
            "fgh|abcdefgh|abc",                                                            \
     .def = CLV_BORDER_REFLECT101, .n_enum = 5, .enum_names = clv__border_names,           \
     .enum_values = clv__border_values}

/* Descriptor entries for booleans and the pointer types (pyramids, arrays,
 * structs; their validation: clvision/op.h), and their positional values. */
#define CLV__P_BOOL(nm, doc_, fl, def_) \
    {.name = (nm), .type = CLV_PARAM_BOOL, .flags = CLV_PARAM_INPUT | (fl), .doc = (doc_), \
     .min = 0, .max = 1, .def = (def_)}
#define CLV__P_PYRAMID(nm, lbl, doc_, fl, types_, chans, like_, likefl) \
    {.name = (nm), .label = (lbl), .type = CLV_PARAM_PYRAMID, .flags = (fl), .doc = (doc_), \
     .types = (types_), .channels = (chans), .like = (like_), .like_flags = (likefl)}
#define CLV__P_ARRAY(nm, doc_, fl, ctype, len) \
    {.name = (nm), .type = CLV_PARAM_ARRAY, .flags = (fl), .doc = (doc_), \
     .elem_size = sizeof(ctype), .elem_type = #ctype, .length_param = (len)}
#define CLV__P_STRUCT(nm, doc_, fl, ctype) \
    {.name = (nm), .type = CLV_PARAM_STRUCT, .flags = (fl), .doc = (doc_), \
     .elem_size = sizeof(ctype), .elem_type = #ctype}
/* An int * count of the elements found for output array `array`. */
#define CLV__P_COUNT(nm, doc_, array) \
    {.name = (nm), .type = CLV_PARAM_STRUCT, .flags = CLV_PARAM_OUTPUT | CLV_PARAM_COUNT, \
     .doc = (doc_), .elem_size = sizeof(int), .elem_type = "int", .like = (array)}
#define CLV__PYR(x) CLV__PTR(CLV_PARAM_PYRAMID, (x))
#define CLV__ARR(x) CLV__PTR(CLV_PARAM_ARRAY, (x))
#define CLV__STRUCT(x) CLV__PTR(CLV_PARAM_STRUCT, (x))

/* Every described operation (one list: src/ops/ops.def). */
#define CLV_SOURCE(id, file)
#define CLV_OP(sym, file) extern const clv_op_desc clv__op_##sym;
#define CLV_OP_FILE(file)
#include "ops/ops.def"
#undef CLV_SOURCE
#undef CLV_OP
#undef CLV_OP_FILE

#endif
