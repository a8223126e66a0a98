/* Bad-input matrix (issue 5): every public function of the headers in
 * include/clvision/
 * called with NULL pointers, 0x0 and 1x1 images, sizes and strides that
 * overflow, mismatched shapes, types and channel counts, sigma/scale/
 * quality parameters that are <= 0, NaN or infinite, sizes beyond the
 * limits, unknown border modes, and files that are empty, truncated, of the
 * wrong format or whose headers lie.
 *
 * The matrix is the table `rows` below. A row names the public function it
 * covers, says what is wrong, and gives the arguments (image, pyramid and
 * host-image slots of the fixture, numbers, a file name or a parameter
 * field to change) and the exact result expected: a clv_status, or 1 for
 * the rows of functions that return no status (their handler returns 1 when
 * the value is right). For a failing status the row also says where the
 * message must be (clv_last_error(ctx), clv_io_last_error(),
 * clv_context_create_error(), or nowhere when no context is involved) and a
 * word it must contain. After every row:
 *   - the context is still usable: a transpose runs, its result is right
 *     and clv_last_error() is empty again;
 *   - after an I/O row a good file still reads;
 *   - a writer row that failed left no file behind (the scratch directory
 *     has as many entries as before and the target does not exist);
 *   - a reader that failed left *out zeroed; a create that failed set *out
 *     to NULL.
 *
 * Coverage, checked at run time:
 *   - the test reads the headers in include/clvision/ (next to CLV_TEST_DATA) and fails
 *     when a function declared CLV_API there has no entry in api[] (a new
 *     public function must get rows here);
 *   - it fails when an api[] entry has no row.
 * api[] calls every function by name, so a renamed or removed function does
 * not compile.
 *
 * NaN and Inf pixels (second table, `nan_checks`): what every operation does
 * with non-finite f32 pixels is documented next to it in the headers; each
 * check feeds such pixels and compares with that documentation, on the
 * device's own kernel family, on the generic (GPU-style) one, and in debug
 * mode (options.debug), where every global access of every kernel is
 * bounds-checked and an out-of-range index fails the operation with
 * CLV_ERROR_KERNEL_FAULT. So non-finite data is shown to terminate and to
 * stay in bounds (corners' top-K, LK's iterations, Farneback's solve, the
 * grid's binning). The hang of LK with max_iterations = INT_MAX and epsilon 0
 * is a row of the first table (now refused).
 *
 * Rows marked F_GAP would record behaviour known to lack a message (none
 * left). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <clvision/cl_interop.h>

#include "testutil.h"

static int passed = 0;
#define T(cond, ...)                                                                     \
    do {                                                                                 \
        int before_ = test_failures;                                                     \
        CHECK(cond, __VA_ARGS__);                                                        \
        if (test_failures == before_)                                                    \
            passed++;                                                                    \
    } while (0)

/* ---- fixture ---------------------------------------------------------- */

#define W 16
#define H 12

/* Device images. Slot 0 is always NULL. */
enum {
    I_NULL = 0,
    I_U8,    /* W x H u8, 1 channel, textured */
    I_U8B,   /* another one */
    I_U8T,   /* H x W u8 (transpose target) */
    I_U8S,   /* 8 x 6 u8 */
    I_U8C2,  /* W x H u8, 2 channels */
    I_U8C2B,
    I_U8C3,  /* W x H u8 RGB */
    I_U8C3S, /* 8 x 6 u8 RGB */
    I_U8C4,  /* W x H u8 RGBA */
    I_U16,   /* W x H u16 */
    I_U16B,
    I_F32,   /* W x H f32, values 0..1 */
    I_F32B,
    I_F32C3, /* W x H f32 RGB */
    I_F32C4,
    I_FLOW,  /* W x H f32, 2 channels */
    I_FLOWB,
    I_FLOWS, /* 8 x 6 flow */
    I_U8_1,  /* 1 x 1 images */
    I_U8_1B,
    I_F32_1,
    I_F32_1B,
    I_FLOW_1,
    I_F32C3_1,
    I_U8C3_1,
    I_F32INF, /* W x H f32 with one +Inf pixel */
    I_F32NAN, /* W x H f32, every pixel NaN */
    I_F32K,   /* W x H f32, every pixel 0.25 */
    I_OTHER,  /* W x H u8 of the second context */
    I_OTHER_T,
    I_COUNT
};

/* Pyramids (slot 0 NULL). */
enum {
    P_NULL = 0,
    P_U8,     /* W x H u8, 3 levels, scale 0.5 */
    P_U8B,
    P_F32,    /* W x H f32, 3 levels */
    P_U16,
    P_U8_07,  /* W x H u8, 3 levels, scale 0.7 (not for LK) */
    P_U8C3,   /* W x H u8 RGB */
    P_U8S,    /* 8 x 6 u8 */
    P_U8_1,   /* 1 x 1, one level */
    P_U8_1B,
    P_OTHER,  /* of the second context */
    P_COUNT
};

/* Host images (slot 0 NULL). */
enum {
    H_NULL = 0,
    H_U8,        /* W x H u8 gray */
    H_U8C3,
    H_U8C4,
    H_U16,
    H_F32,
    H_F32C3,
    H_F32C4,
    H_FLOW,      /* 2-channel f32 */
    H_FLOW_U8,   /* 2-channel u8 */
    H_FLOW_C3,   /* 3-channel f32 given as a flow */
    H_U8C2,      /* 2-channel u8 given to image writers */
    H_NODATA,    /* W x H u8 with data NULL */
    H_SHORT,     /* stride smaller than a row */
    H_HUGE,      /* stride SIZE_MAX / 2, 3 rows: the last row's offset overflows */
    H_HUGE_FLOW, /* same for a flow field */
    H_HUGE_F32,  /* same, f32 RGB */
    H_ZERO,      /* width 0 (data set) */
    H_WIDE,      /* width 70000 */
    H_BADTYPE,   /* type 99 */
    H_COUNT
};

typedef struct fixture {
    clv_context *ctx, *ctx2;
    clv_image *im[I_COUNT];
    clv_pyramid *py[P_COUNT];
    clv_host_image hi[H_COUNT];
    char dir[256];
    unsigned char u8[W * H];  /* contents of I_U8 */
    unsigned char tr[W * H];  /* its transpose, computed here */
    unsigned char *blob;      /* backing store of the odd host images */
} fixture;

static fixture F;

static const char *path_in(const char *name)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    if (!name)
        return NULL;
    if (strncmp(name, "data:", 5) == 0)
        snprintf(buf[k], sizeof buf[k], "%s", test_data_path(name + 5));
    else if (name[0] == '/')
        snprintf(buf[k], sizeof buf[k], "%s", name);
    else
        snprintf(buf[k], sizeof buf[k], "%s/%s", F.dir, name);
    return buf[k];
}

/* ---- rows --------------------------------------------------------------- */

enum { M_NONE, M_CTX, M_IO, M_CREATE };
enum {
    F_OUT = 1,   /* s names an output file: nothing may be left when the call fails */
    F_GAP = 2,   /* known gap in src/runtime (not ours): the message is not checked */
    F_NULLP = 4, /* pass NULL for the parameter struct / output pointer */
    F_IDENT = 8, /* the operation must leave the image unchanged (I_U8 -> I_U8B) */
    F_NOCTX = 16, /* pass a NULL context */
};

typedef struct row {
    const char *fn;     /* the public function covered */
    const char *what;   /* what is wrong */
    long want;          /* expected clv_status, or 1 for value checks */
    long alt;           /* another acceptable result, or NO_ALT */
    int msg;            /* where the message must be */
    const char *needle; /* a word the message must contain (any case) */
    int a, b, c;        /* slots */
    double d0, d1;
    int i0, i1, i2;
    const char *s;      /* file name, device spec or parameter field */
    double v;           /* value for the parameter field */
    int flags;
} row;

#define NO_ALT 12345
#define OK CLV_OK
#define E_ARG CLV_ERROR_INVALID_ARGUMENT
#define E_UNSUP CLV_ERROR_UNSUPPORTED
#define E_IO CLV_ERROR_IO
#define E_FMT CLV_ERROR_FORMAT
#define E_OOM CLV_ERROR_OUT_OF_MEMORY
#define E_DEV CLV_ERROR_NO_DEVICE
#define E_SRC CLV_ERROR_KERNEL_SOURCE
#define E_CL CLV_ERROR_OPENCL

/* Shorthands: a failing row with its message on the context / in the I/O
 * error / nowhere; a value row (want 1). */
#define CTXF(fn_, what_, st_, needle_, ...)                                              \
    {.fn = fn_, .what = what_, .want = st_, .alt = NO_ALT, .msg = M_CTX,                 \
     .needle = needle_, __VA_ARGS__}
#define IOF(fn_, what_, st_, needle_, ...)                                               \
    {.fn = fn_, .what = what_, .want = st_, .alt = NO_ALT, .msg = M_IO, .needle = needle_, \
     __VA_ARGS__}
#define CRF(fn_, what_, st_, needle_, ...)                                               \
    {.fn = fn_, .what = what_, .want = st_, .alt = NO_ALT, .msg = M_CREATE,              \
     .needle = needle_, __VA_ARGS__}
#define BARE(fn_, what_, st_, ...)                                                       \
    {.fn = fn_, .what = what_, .want = st_, .alt = NO_ALT, .msg = M_NONE, __VA_ARGS__}
#define GOOD(fn_, what_, ...)                                                            \
    {.fn = fn_, .what = what_, .want = OK, .alt = NO_ALT, .msg = M_NONE, __VA_ARGS__}
#define VAL(fn_, what_, ...)                                                             \
    {.fn = fn_, .what = what_, .want = 1, .alt = NO_ALT, .msg = M_NONE, __VA_ARGS__}

static const row rows[] = {
    /* ---- op.h (the generated matrix over every descriptor is test_op.c) ---- */
    VAL("clv_op_count", "at least the described operations", .i0 = 3),
    VAL("clv_op_get", "-1 and count are NULL", .i0 = 0),
    VAL("clv_op_find", "NULL and unknown names are NULL", .i0 = 0),
    VAL("clv_op_param_index", "NULL op, NULL or unknown name: -1", .i0 = 0),
    VAL("clv_param_enum_value", "NULL, non-enum and unknown names refused", .i0 = 0),
    VAL("clv_param_enum_name", "NULL, non-enum and unknown values: NULL", .i0 = 0),
    VAL("clv_op_call", "NULL context, NULL op, NULL args with a count", .i0 = 0),
    VAL("clv_op_check", "NULL op; unknown, repeated, ill-typed names; msg filled", .i0 = 0),
    VAL("clv_op_output_shape", "NULL outputs, not an output, missing input", .i0 = 0),
    VAL("clv_param_check", "NULL p or value, NaN, wrong type, off-enum; msg filled", .i0 = 0),
    VAL("clv_param_rule", "NULL p or buffer, size 1: no crash, NUL-terminated", .i0 = 0),
    /* ---- status.h ---- */
    VAL("clv_status_string", "every pinned status has its own string", .i0 = 1),
    VAL("clv_status_string", "unknown value -99", .i0 = -99, .s = "unknown status"),
    VAL("clv_status_string", "unknown value INT_MAX", .i0 = INT_MAX, .s = "unknown status"),

    /* ---- context.h ---- */
    VAL("clv_context_options_default", "all fields NULL / 0"),
    CRF("clv_context_create", "out is NULL", E_ARG, "out", .i0 = 3),
    CRF("clv_context_create", "options.cache = 2", E_ARG, "cache", .i0 = 4),
    CRF("clv_context_create", "device spec matching nothing", E_DEV, "matches no device",
         .i0 = 1, .s = "no-such-device-xyz"),
    CRF("clv_context_create", "device index out of range", E_DEV, "9:9",
         .i0 = 1, .s = "9:9"),
    CRF("clv_context_create", "kernel directory that does not exist", E_SRC, "missing-cl-dir",
         .i0 = 2, .s = "missing-cl-dir"),
    CRF("clv_context_create", "kernel directory that is an empty file", E_SRC, "empty",
         .i0 = 2, .s = "empty"),
    VAL("clv_context_create_error", "names the failure after a NULL out"),
    VAL("clv_context_release", "NULL is fine"),
    BARE("clv_finish", "NULL context", E_ARG, .flags = F_NOCTX),
    GOOD("clv_finish", "after a failed call", .a = 1),
    VAL("clv_last_error", "NULL context gives \"\""),
    BARE("clv_last_op_device_time", "NULL context", E_ARG, .flags = F_NOCTX, .i0 = 0),
    CTXF("clv_last_op_device_time", "NULL ms", E_ARG, "ms is NULL", .i0 = 1),
    CTXF("clv_last_op_device_time", "profiling off", E_UNSUP, "profiling", .i0 = 2),
    BARE("clv_context_get_stats", "NULL context", E_ARG, .flags = F_NOCTX, .i0 = 0),
    BARE("clv_context_get_stats", "NULL stats (const context: no message)", E_ARG, .i0 = 1),
    VAL("clv_context_device_name", "NULL context gives \"\", a context a name"),
    VAL("clv_context_platform_name", "NULL context gives \"\", a context a name"),
    BARE("clv_list_devices", "NULL buffer", E_ARG, .i0 = 0),
    BARE("clv_list_devices", "size 0", E_ARG, .i0 = 1),
    GOOD("clv_list_devices", "size 1: truncated to \"\"", .i0 = 2),
    BARE("clv_cache_warm", "NULL context", E_ARG, .flags = F_NOCTX, .i0 = 0),
    CTXF("clv_cache_warm", "ops NULL with nops 1", E_ARG, "nops", .i0 = 1),
    CTXF("clv_cache_warm", "nops -1", E_ARG, "nops", .i0 = 2),
    CTXF("clv_cache_warm", "a NULL name", E_ARG, "ops[0] is NULL", .i0 = 3),
    CTXF("clv_cache_warm", "an unknown operation (named)", E_ARG, "no_such_op", .i0 = 4),
    BARE("clv_cache_info", "NULL out", E_ARG, .i0 = 0),
    BARE("clv_cache_info", "a regular file as the directory", E_IO, .i0 = 1),
    BARE("clv_cache_clear", "NULL out", E_ARG, .i0 = 0),
    BARE("clv_cache_clear", "a regular file as the directory", E_IO, .i0 = 1),
    CRF("clv_device_info_get", "NULL out", E_ARG, "out is NULL", .i0 = 0),
    CRF("clv_device_info_get", "a spec matching no device (explained)", E_DEV,
        "matches no device", .i0 = 1),
    GOOD("clv_device_info_get", "\"0:0\": the device clv_device_resolve names, limits > 0",
         .i0 = 2),
    BARE("clv_context_device_info", "NULL context", E_ARG, .i0 = 0),
    BARE("clv_context_device_info", "NULL out", E_ARG, .i0 = 1),
    GOOD("clv_context_device_info", "the context's device: its name, -1:-1 only for adopted",
         .i0 = 2),
    VAL("clv_extension_name", "each CLV_EXT_* bit named; 0, two bits, unknown bits NULL"),
    VAL("clv_pocl_affinity_note", "after an enumeration: one line about POCL_AFFINITY, never NULL"),
    BARE("clv_image_placeholder", "NULL context", E_ARG, .i0 = 0),
    CTXF("clv_image_placeholder", "0x0", E_ARG, "size", .i0 = 1),
    CTXF("clv_image_placeholder", "5 channels", E_ARG, "channels", .i0 = 2),
    CTXF("clv_image_placeholder", "beyond the device's largest allocation", E_UNSUP,
         "maximum allocation", .i0 = 3),
    CTXF("clv_image_placeholder", "NULL out", E_ARG, "out is NULL", .i0 = 4),
    GOOD("clv_image_placeholder", "5x4 u8: its shape, no cl_mem", .i0 = 5),
    BARE("clv_op_supported", "NULL context", E_ARG, .flags = F_NOCTX, .i0 = 0),
    CTXF("clv_op_supported", "NULL op", E_ARG, "op is NULL", .i0 = 1),
    CTXF("clv_op_supported", "an unknown parameter name", E_ARG, "no parameter named", .i0 = 2),
    CTXF("clv_op_supported", "a placeholder output of the wrong size", E_ARG, "is 6x4", .i0 = 3),
    CTXF("clv_op_supported", "sigma_x NaN (the call's own rule)", E_ARG, "sigma_x", .i0 = 4),
    GOOD("clv_op_supported", "a Gaussian on placeholders (msg NULL, size 0)", .i0 = 5),
    CTXF("clv_op_supported", "(then the call itself on those placeholders)", E_ARG,
         "placeholder", .i0 = 6),
    BARE("clv_device_resolve", "NULL out", E_ARG, .i0 = 0),
    BARE("clv_device_resolve", "a spec matching no device (explained)", E_DEV, .i0 = 1),
    GOOD("clv_device_resolve", "\"0:0\": the index, one match, not by name", .i0 = 2),
    VAL("clv_version", "a dotted version"),
    VAL("clv_debug_live_objects", "NULL out is ignored; counts are sane"),
    GOOD("clv_debug_fail_at", "0 turns injection off"),
    VAL("clv_debug_cl_calls", "counts calls (grows after an operation)"),
    VAL("clv_debug_injected_call", "never NULL"),
    BARE("clv_debug_run_test_kernel", "NULL context", E_ARG, .flags = F_NOCTX, .i0 = 0),
    CTXF("clv_debug_run_test_kernel", "NULL path", E_ARG, "cl_path", .i0 = 1),
    CTXF("clv_debug_run_test_kernel", "0 elements", E_ARG, "n_elems", .i0 = 2),
    CTXF("clv_debug_run_test_kernel", "kernel file that does not exist", E_SRC, "cannot read",
         .i0 = 3),
    BARE("clv_debug_limit_max_alloc", "NULL context", E_ARG, .flags = F_NOCTX, .i0 = 0),
    CTXF("clv_debug_limit_max_alloc", "0 bytes", E_ARG, "bytes", .i0 = 1),
    GOOD("clv_debug_limit_max_alloc", "UINT64_MAX never raises the limit", .i0 = 2),
    VAL("clv_debug_sha256", "FIPS 180-2 vector \"abc\""),

    /* ---- cl_interop.h ---- */
    CRF("clv_context_create_cl", "NULL cl_context", E_ARG, "cl_context", .i0 = 0),
    CRF("clv_context_create_cl", "NULL device", E_ARG, "device", .i0 = 1),
    CRF("clv_context_create_cl", "NULL out", E_ARG, "out", .i0 = 2),
    CRF("clv_context_create_cl", "options.device set", E_ARG, "options.device", .i0 = 3),
    CRF("clv_context_create_cl", "options.cache = 2", E_ARG, "cache", .i0 = 4),
    CRF("clv_context_create_cl", "profiling asked of a queue without it", E_ARG,
        "CL_QUEUE_PROFILING_ENABLE", .i0 = 5),
    CRF("clv_context_create_cl", "queue of another cl_context", E_ARG, "another cl_context",
        .i0 = 6),
    GOOD("clv_context_create_cl", "a context's own cl_context, device and queue", .i0 = 7),
    GOOD("clv_context_create_cl", "queue NULL: clvision makes one", .i0 = 8),
    VAL("clv_context_cl_context", "NULL for NULL, the context's otherwise"),
    VAL("clv_context_cl_device", "NULL for NULL, the context's otherwise"),
    VAL("clv_context_cl_queue", "NULL for NULL, the context's otherwise"),
    BARE("clv_image_wrap_buffer", "NULL context", E_ARG, .flags = F_NOCTX, .i0 = 0),
    CTXF("clv_image_wrap_buffer", "NULL out", E_ARG, "out", .i0 = 0, .flags = F_NULLP),
    CTXF("clv_image_wrap_buffer", "NULL buffer", E_ARG, "buffer is NULL", .i0 = 1),
    CTXF("clv_image_wrap_buffer", "buffer one row too small", E_ARG, "too small", .i0 = 2),
    CTXF("clv_image_wrap_buffer", "pitch shorter than a row", E_ARG, "shorter", .i0 = 3),
    CTXF("clv_image_wrap_buffer", "pitch 96", E_ARG, "multiple of 64", .i0 = 4),
    CTXF("clv_image_wrap_buffer", "pitch SIZE_MAX - 63", E_ARG, "CLV_MAX_PITCH", .i0 = 5),
    CTXF("clv_image_wrap_buffer", "offset 32", E_ARG, "misaligned", .i0 = 6),
    CTXF("clv_image_wrap_buffer", "offset SIZE_MAX - 63", E_ARG, "overflow", .i0 = 7),
    CTXF("clv_image_wrap_buffer", "buffer of another cl_context", E_ARG, "another cl_context",
         .i0 = 8),
    CTXF("clv_image_wrap_buffer", "0x0", E_ARG, "size", .i0 = 9),
    CTXF("clv_image_wrap_buffer", "pixel type 99", E_ARG, "type", .i0 = 10),
    GOOD("clv_image_wrap_buffer", "an image's own buffer, pitch 0", .i0 = 11),
    BARE("clv_enqueue_wait_events", "NULL context", E_ARG, .flags = F_NOCTX, .i0 = 0),
    CTXF("clv_enqueue_wait_events", "events NULL with n 1", E_ARG, "events is NULL", .i0 = 1),
    CTXF("clv_enqueue_wait_events", "a NULL event in the list", E_ARG, "event 1 of 2 is NULL",
         .i0 = 2),
    CTXF("clv_enqueue_wait_events", "an event of another cl_context", E_ARG,
         "another OpenCL context", .i0 = 3),
    GOOD("clv_enqueue_wait_events", "n 0, events NULL", .i0 = 4),
    GOOD("clv_enqueue_wait_events", "the context's own marker", .i0 = 5),
    BARE("clv_enqueue_marker", "NULL context", E_ARG, .flags = F_NOCTX, .i0 = 0),
    CTXF("clv_enqueue_marker", "NULL event", E_ARG, "event is NULL", .i0 = 1),
    GOOD("clv_enqueue_marker", "a marker after an operation completes", .i0 = 2),
    VAL("clv_image_cl_mem", "NULL for NULL, the buffer otherwise"),
    VAL("clv_image_offset", "0 for NULL and for clvision's images"),

    /* ---- image.h ---- */
    VAL("clv_pixel_type_size", "1, 2, 4; 0 for unknown types"),
    VAL("clv_pixel_type_name", "u8, u16, f32; ? for unknown types"),
    BARE("clv_image_create", "NULL context", E_ARG, .flags = F_NOCTX, .a = 0, .i0 = W, .i1 = H, .i2 = 1, .d0 = CLV_U8),
    CTXF("clv_image_create", "NULL out", E_ARG, "out", .a = 1, .i0 = W, .i1 = H, .i2 = 1,
         .d0 = CLV_U8, .flags = F_NULLP),
    CTXF("clv_image_create", "0x0", E_ARG, "size", .a = 1, .i0 = 0, .i1 = 0, .i2 = 1, .d0 = CLV_U8),
    CTXF("clv_image_create", "width 0", E_ARG, "size", .a = 1, .i0 = 0, .i1 = H, .i2 = 1, .d0 = CLV_U8),
    CTXF("clv_image_create", "height -1", E_ARG, "size", .a = 1, .i0 = W, .i1 = -1, .i2 = 1,
         .d0 = CLV_U8),
    CTXF("clv_image_create", "width INT_MIN", E_ARG, "size", .a = 1, .i0 = INT_MIN, .i1 = H,
         .i2 = 1, .d0 = CLV_U8),
    CTXF("clv_image_create", "width 65537", E_ARG, "size", .a = 1, .i0 = CLV_MAX_DIMENSION + 1,
         .i1 = 1, .i2 = 1, .d0 = CLV_U8),
    CTXF("clv_image_create", "height INT_MAX", E_ARG, "size", .a = 1, .i0 = 1, .i1 = INT_MAX,
         .i2 = 1, .d0 = CLV_U8),
    CTXF("clv_image_create", "0 channels", E_ARG, "channels", .a = 1, .i0 = W, .i1 = H, .i2 = 0,
         .d0 = CLV_U8),
    CTXF("clv_image_create", "5 channels", E_ARG, "channels", .a = 1, .i0 = W, .i1 = H, .i2 = 5,
         .d0 = CLV_U8),
    CTXF("clv_image_create", "pixel type 0", E_ARG, "type", .a = 1, .i0 = W, .i1 = H, .i2 = 1,
         .d0 = 0),
    CTXF("clv_image_create", "pixel type 99", E_ARG, "type", .a = 1, .i0 = W, .i1 = H, .i2 = 1,
         .d0 = 99),
    /* 65536 x 65536 x 4 f32 = 64 GiB: above any device's single allocation
     * here (UNSUPPORTED, checked before asking), or refused by the driver. */
    {.fn = "clv_image_create", .what = "65536x65536 RGBA f32 (64 GiB)", .want = E_UNSUP,
     .alt = E_CL, .msg = M_CTX, .needle = "65536", .a = 1, .i0 = CLV_MAX_DIMENSION,
     .i1 = CLV_MAX_DIMENSION, .i2 = 4, .d0 = CLV_F32},
    GOOD("clv_image_create", "1x1 is fine", .a = 1, .i0 = 1, .i1 = 1, .i2 = 1, .d0 = CLV_U8),
    VAL("clv_image_release", "NULL is fine"),
    VAL("clv_image_width", "0 for NULL, the width otherwise"),
    VAL("clv_image_height", "0 for NULL, the height otherwise"),
    VAL("clv_image_channels", "0 for NULL, the channels otherwise"),
    VAL("clv_image_type", "0 for NULL, the type otherwise"),
    VAL("clv_image_pitch", "0 for NULL, a multiple of 64 otherwise"),
    BARE("clv_image_upload", "NULL image", E_ARG, .a = I_NULL, .i0 = 0),
    CTXF("clv_image_upload", "NULL host pointer", E_ARG, "host", .a = I_U8, .i0 = 1),
    CTXF("clv_image_upload", "stride smaller than a row", E_ARG, "stride", .a = I_U8, .i0 = 2),
    CTXF("clv_image_upload", "stride whose last row overflows size_t", E_ARG, "stride",
         .a = I_U8, .i0 = 3),
    BARE("clv_image_upload_async", "NULL image", E_ARG, .a = I_NULL, .i0 = 0),
    CTXF("clv_image_upload_async", "NULL host pointer", E_ARG, "host", .a = I_U8, .i0 = 1),
    CTXF("clv_image_upload_async", "stride smaller than a row", E_ARG, "stride", .a = I_U8,
         .i0 = 2),
    CTXF("clv_image_upload_async", "stride whose last row overflows size_t", E_ARG, "stride",
         .a = I_U8, .i0 = 3),
    BARE("clv_image_view", "NULL image", E_ARG, .i0 = 0),
    CTXF("clv_image_view", "NULL out", E_ARG, "out", .i0 = 1),
    CTXF("clv_image_view", "origin (-1, 0)", E_ARG, "negative", .i0 = 2),
    CTXF("clv_image_view", "0x0", E_ARG, "empty", .i0 = 3),
    CTXF("clv_image_view", "one column past the right edge", E_ARG, "leaves", .i0 = 4),
    CTXF("clv_image_view", "width INT_MAX at x 1", E_ARG, "leaves", .i0 = 5),
    CTXF("clv_image_view", "height INT_MAX at y INT_MAX", E_ARG, "leaves", .i0 = 6),
    GOOD("clv_image_view", "5x3 at (3, 1): getters, download, release before the image", .i0 = 7),
    GOOD("clv_image_view", "whole rows 2..5, and a view of that view", .i0 = 8),
    BARE("clv_image_create_host", "NULL context", E_ARG, .flags = F_NOCTX, .i0 = 0),
    CTXF("clv_image_create_host", "NULL out", E_ARG, "out", .i0 = 0, .flags = F_NULLP),
    CTXF("clv_image_create_host", "NULL host memory", E_ARG, "NULL", .i0 = 1),
    CTXF("clv_image_create_host", "host memory 1 byte off 64", E_ARG, "misaligned", .i0 = 2),
    CTXF("clv_image_create_host", "pitch 96", E_ARG, "multiple of 64", .i0 = 3),
    CTXF("clv_image_create_host", "pitch shorter than a row", E_ARG, "shorter", .i0 = 4),
    CTXF("clv_image_create_host", "pitch SIZE_MAX - 63", E_ARG, "more than", .i0 = 5),
    CTXF("clv_image_create_host", "0x0", E_ARG, "size", .i0 = 6),
    CTXF("clv_image_create_host", "pixel type 99", E_ARG, "type", .i0 = 7),
    GOOD("clv_image_create_host", "64-byte aligned memory: a transpose reads it, map sees it",
         .i0 = 8),
    BARE("clv_image_map", "NULL image", E_ARG, .i0 = 0),
    CTXF("clv_image_map", "NULL ptr", E_ARG, "ptr", .i0 = 1),
    CTXF("clv_image_map", "NULL pitch", E_ARG, "pitch", .i0 = 2),
    CTXF("clv_image_map", "flags 0", E_ARG, "flags", .i0 = 3),
    CTXF("clv_image_map", "flags 4", E_ARG, "flags", .i0 = 4),
    CTXF("clv_image_map", "a view of a mapped image", E_ARG, "already mapped", .i0 = 5),
    CTXF("clv_image_map", "an operation on a mapped image", E_ARG, "mapped", .i0 = 6),
    CTXF("clv_image_map", "a download of a mapped view", E_ARG, "mapped", .i0 = 7),
    GOOD("clv_image_map", "read: the pixels, pitch 64", .i0 = 8),
    BARE("clv_image_unmap", "NULL image", E_ARG, .i0 = 0),
    CTXF("clv_image_unmap", "not mapped", E_ARG, "not mapped", .i0 = 1),
    CTXF("clv_image_unmap", "another pointer", E_ARG, "not the image's mapping", .i0 = 2),
    GOOD("clv_image_unmap", "write through a mapped view: the image sees it", .i0 = 3),
    BARE("clv_image_wait", "NULL image", E_ARG, .a = I_NULL),
    GOOD("clv_image_wait", "no upload in flight", .a = I_U8),
    BARE("clv_image_download", "NULL image", E_ARG, .a = I_NULL, .i0 = 0),
    CTXF("clv_image_download", "NULL host pointer", E_ARG, "host", .a = I_U8, .i0 = 1),
    CTXF("clv_image_download", "stride smaller than a row", E_ARG, "stride", .a = I_U8, .i0 = 2),
    CTXF("clv_image_download", "stride whose last row overflows size_t", E_ARG, "stride",
         .a = I_U8, .i0 = 3),

    /* ---- filter.h ---- */
    BARE("clv_border_from_string", "NULL name", E_ARG, .s = NULL, .i0 = 0),
    BARE("clv_border_from_string", "NULL out", E_ARG, .s = "wrap", .i0 = 1),
    BARE("clv_border_from_string", "empty name", E_ARG, .s = ""),
    BARE("clv_border_from_string", "unknown name", E_ARG, .s = "mirror"),
    BARE("clv_border_from_string", "prefix of a name", E_ARG, .s = "reflect1"),
    BARE("clv_border_from_string", "name with a trailing blank", E_ARG, .s = "wrap "),
    GOOD("clv_border_from_string", "upper case is fine", .s = "REFLECT101"),
    VAL("clv_border_name", "\"?\" for unknown values"),

    BARE("clv_transpose", "NULL context", E_ARG, .flags = F_NOCTX, .a = I_U8, .b = I_U8T),
    CTXF("clv_transpose", "NULL source", E_ARG, "source", .a = I_NULL, .b = I_U8T),
    CTXF("clv_transpose", "NULL destination", E_ARG, "destination", .a = I_U8, .b = I_NULL),
    CTXF("clv_transpose", "destination not transposed", E_ARG, "transposed", .a = I_U8, .b = I_U8B),
    CTXF("clv_transpose", "u8 -> u16", E_ARG, "u16", .a = I_U8, .b = I_U16),
    CTXF("clv_transpose", "1 -> 3 channels", E_ARG, "channels", .a = I_U8, .b = I_U8C3),
    CTXF("clv_transpose", "in place", E_ARG, "same image", .a = I_U8, .b = I_U8),
    CTXF("clv_transpose", "source of another context", E_ARG, "another context", .a = I_OTHER,
         .b = I_U8T),
    CTXF("clv_transpose", "destination of another context", E_ARG, "another context", .a = I_U8,
         .b = I_OTHER_T),
    GOOD("clv_transpose", "1x1", .a = I_U8_1, .b = I_U8_1B),

    BARE("clv_resize", "NULL context", E_ARG, .flags = F_NOCTX, .a = I_U8, .b = I_U8S),
    CTXF("clv_resize", "NULL source", E_ARG, "source", .a = I_NULL, .b = I_U8S),
    CTXF("clv_resize", "NULL destination", E_ARG, "destination", .a = I_U8, .b = I_NULL),
    CTXF("clv_resize", "u8 -> f32", E_ARG, "f32", .a = I_U8, .b = I_F32),
    CTXF("clv_resize", "1 -> 2 channels", E_ARG, "channels", .a = I_U8, .b = I_U8C2),
    CTXF("clv_resize", "in place", E_ARG, "same image", .a = I_U8, .b = I_U8),
    CTXF("clv_resize", "source of another context", E_ARG, "another context", .a = I_OTHER,
         .b = I_U8S),
    GOOD("clv_resize", "16x12 -> 1x1", .a = I_U8, .b = I_U8_1),
    GOOD("clv_resize", "1x1 -> 16x12", .a = I_U8_1, .b = I_U8B),

    BARE("clv_box_filter", "NULL context", E_ARG, .flags = F_NOCTX, .a = I_U8, .b = I_U8B, .i0 = 3, .i1 = 3),
    CTXF("clv_box_filter", "NULL source", E_ARG, "source", .a = I_NULL, .b = I_U8B, .i0 = 3, .i1 = 3),
    CTXF("clv_box_filter", "NULL destination", E_ARG, "destination", .a = I_U8, .b = I_NULL,
         .i0 = 3, .i1 = 3),
    CTXF("clv_box_filter", "destination of another size", E_ARG, "destination is", .a = I_U8,
         .b = I_U8S, .i0 = 3, .i1 = 3),
    CTXF("clv_box_filter", "u8 -> u16", E_ARG, "u16", .a = I_U8, .b = I_U16, .i0 = 3, .i1 = 3),
    CTXF("clv_box_filter", "in place", E_ARG, "same image", .a = I_U8, .b = I_U8, .i0 = 3, .i1 = 3),
    CTXF("clv_box_filter", "ksize 0x3", E_ARG, "must be in 1..255", .a = I_U8, .b = I_U8B, .i0 = 0, .i1 = 3),
    CTXF("clv_box_filter", "ksize 3x-1", E_ARG, "must be in 1..255", .a = I_U8, .b = I_U8B, .i0 = 3, .i1 = -1),
    CTXF("clv_box_filter", "ksize 256x3", E_ARG, "must be in 1..255", .a = I_U8, .b = I_U8B, .i0 = 256,
         .i1 = 3),
    CTXF("clv_box_filter", "ksize INT_MAX", E_ARG, "must be in 1..255", .a = I_U8, .b = I_U8B,
         .i0 = INT_MAX, .i1 = INT_MAX),
    CTXF("clv_box_filter", "border 5", E_ARG, "border", .a = I_U8, .b = I_U8B, .i0 = 3, .i1 = 3,
         .i2 = 5),
    CTXF("clv_box_filter", "border -1", E_ARG, "border", .a = I_U8, .b = I_U8B, .i0 = 3, .i1 = 3,
         .i2 = -1),
    GOOD("clv_box_filter", "1x1 with a 255x255 window", .a = I_U8_1, .b = I_U8_1B, .i0 = 255,
         .i1 = 255, .i2 = CLV_BORDER_WRAP),

    BARE("clv_gaussian_blur", "NULL context", E_ARG, .flags = F_NOCTX, .a = I_U8, .b = I_U8B, .d0 = 1),
    CTXF("clv_gaussian_blur", "NULL source", E_ARG, "source", .a = I_NULL, .b = I_U8B, .d0 = 1),
    CTXF("clv_gaussian_blur", "NULL destination", E_ARG, "destination", .a = I_U8, .b = I_NULL,
         .d0 = 1),
    CTXF("clv_gaussian_blur", "destination of another size", E_ARG, "destination is", .a = I_U8,
         .b = I_U8S, .d0 = 1),
    CTXF("clv_gaussian_blur", "3 -> 4 channels", E_ARG, "channels", .a = I_U8C3, .b = I_U8C4,
         .d0 = 1),
    CTXF("clv_gaussian_blur", "sigma_x 0", E_ARG, "sigma_x", .a = I_U8, .b = I_U8B, .d0 = 0),
    CTXF("clv_gaussian_blur", "sigma_x -1", E_ARG, "sigma_x", .a = I_U8, .b = I_U8B, .d0 = -1),
    CTXF("clv_gaussian_blur", "sigma_x -1e-320", E_ARG, "(got -1e-320)", .a = I_U8, .b = I_U8B,
         .d0 = -1e-320),
    CTXF("clv_gaussian_blur", "sigma_x NaN", E_ARG, "sigma_x", .a = I_U8, .b = I_U8B, .d0 = NAN),
    CTXF("clv_gaussian_blur", "sigma_x +Inf", E_ARG, "sigma_x", .a = I_U8, .b = I_U8B,
         .d0 = INFINITY),
    CTXF("clv_gaussian_blur", "sigma_y NaN", E_ARG, "sigma_y", .a = I_U8, .b = I_U8B, .d0 = 1,
         .d1 = NAN),
    CTXF("clv_gaussian_blur", "sigma_y -Inf", E_ARG, "sigma_y", .a = I_U8, .b = I_U8B, .d0 = 1,
         .d1 = -INFINITY),
    CTXF("clv_gaussian_blur", "sigma_x 100 needs 603 taps", E_ARG, "limit", .a = I_U8, .b = I_U8B,
         .d0 = 100),
    CTXF("clv_gaussian_blur", "even ksize", E_ARG, "ksize_x", .a = I_U8, .b = I_U8B, .d0 = 1,
         .i0 = 4),
    CTXF("clv_gaussian_blur", "ksize 257", E_ARG, "ksize_y", .a = I_U8, .b = I_U8B, .d0 = 1,
         .i0 = 3, .i1 = 257),
    CTXF("clv_gaussian_blur", "ksize -3", E_ARG, "ksize_x", .a = I_U8, .b = I_U8B, .d0 = 1,
         .i0 = -3),
    CTXF("clv_gaussian_blur", "border 99", E_ARG, "border", .a = I_U8, .b = I_U8B, .d0 = 1,
         .i2 = 99),
    /* sigma so small that sigma^2 underflows: weights [0, 1, 0], the image
     * comes back unchanged (it gave NaN weights and a black image). */
    GOOD("clv_gaussian_blur", "sigma_x 1e-300 is the identity", .a = I_U8, .b = I_U8B,
         .d0 = 1e-300, .flags = F_IDENT),
    GOOD("clv_gaussian_blur", "sigma_x 1e300 with a 3x3 kernel", .a = I_U8, .b = I_U8B,
         .d0 = 1e300, .i0 = 3, .i1 = 3),
    GOOD("clv_gaussian_blur", "1x1, sigma 40, wrap", .a = I_U8_1, .b = I_U8_1B, .d0 = 40,
         .i2 = CLV_BORDER_WRAP),

    /* ---- color.h ---- */
    BARE("clv_convert_color", "NULL context", E_ARG, .flags = F_NOCTX, .a = I_U8C3, .b = I_U8,
         .i0 = CLV_COLOR_RGB2GRAY),
    CTXF("clv_convert_color", "NULL source", E_ARG, "source", .a = I_NULL, .b = I_U8),
    CTXF("clv_convert_color", "NULL destination", E_ARG, "destination", .a = I_U8C3, .b = I_NULL),
    CTXF("clv_convert_color", "gray source to gray", E_ARG, "3 or 4 channels", .a = I_U8,
         .b = I_U8B, .i0 = CLV_COLOR_RGB2GRAY),
    CTXF("clv_convert_color", "RGBA destination of bgr2gray", E_ARG, "1 channel", .a = I_U8C3,
         .b = I_U8C4, .i0 = CLV_COLOR_BGR2GRAY),
    CTXF("clv_convert_color", "2-channel source", E_ARG, "source", .a = I_U8C2, .b = I_U8),
    CTXF("clv_convert_color", "u8 -> f32", E_ARG, "f32", .a = I_U8C3, .b = I_F32),
    CTXF("clv_convert_color", "destination of another size", E_ARG, "destination",
         .a = I_U8C3S, .b = I_U8),
    CTXF("clv_convert_color", "code 9", E_ARG, "code", .a = I_U8C3, .b = I_U8, .i0 = 9),
    CTXF("clv_convert_color", "code -1", E_ARG, "code", .a = I_U8C3, .b = I_U8, .i0 = -1),
    CTXF("clv_convert_color", "in place", E_ARG, "same image", .a = I_U8C3, .b = I_U8C3,
         .i0 = CLV_COLOR_RGB2BGR),
    CTXF("clv_convert_color", "source of another context", E_ARG, "another context",
         .a = I_OTHER, .b = I_U8C3, .i0 = CLV_COLOR_GRAY2RGB),
    GOOD("clv_convert_color", "rgb2gray", .a = I_U8C3, .b = I_U8B, .i0 = CLV_COLOR_RGB2GRAY),
    GOOD("clv_convert_color", "rgba2rgb", .a = I_U8C4, .b = I_U8C3,
         .i0 = CLV_COLOR_RGBA2RGB),
    GOOD("clv_convert_color", "1x1 gray2rgb", .a = I_U8_1, .b = I_U8C3_1,
         .i0 = CLV_COLOR_GRAY2RGB),
    BARE("clv_convert_type", "NULL context", E_ARG, .flags = F_NOCTX, .a = I_U8, .b = I_F32,
         .d0 = 1),
    CTXF("clv_convert_type", "NULL source", E_ARG, "source", .a = I_NULL, .b = I_F32, .d0 = 1),
    CTXF("clv_convert_type", "NULL destination", E_ARG, "destination", .a = I_U8, .b = I_NULL,
         .d0 = 1),
    CTXF("clv_convert_type", "1 -> 3 channels", E_ARG, "channels", .a = I_U8, .b = I_F32C3,
         .d0 = 1),
    CTXF("clv_convert_type", "destination of another size", E_ARG, "destination", .a = I_U8S,
         .b = I_F32, .d0 = 1),
    CTXF("clv_convert_type", "scale NaN", E_ARG, "scale", .a = I_U8, .b = I_F32, .d0 = NAN),
    CTXF("clv_convert_type", "scale +Inf", E_ARG, "scale", .a = I_U8, .b = I_F32, .d0 = INFINITY),
    CTXF("clv_convert_type", "scale 1e39 (beyond float)", E_ARG, "scale", .a = I_U8, .b = I_F32,
         .d0 = 1e39),
    CTXF("clv_convert_type", "in place", E_ARG, "same image", .a = I_U8, .b = I_U8, .d0 = 1),
    GOOD("clv_convert_type", "u8 -> f32 / 255", .a = I_U8, .b = I_F32B, .d0 = 1.0 / 255.0),
    GOOD("clv_convert_type", "f32 with NaN -> u16", .a = I_F32NAN, .b = I_U16B, .d0 = 1),
    GOOD("clv_convert_type", "scale 0", .a = I_U16, .b = I_U8B, .d0 = 0),
    GOOD("clv_convert_type", "1x1 f32 -> u8", .a = I_F32_1, .b = I_U8_1B, .d0 = 255),

    /* ---- edge.h ---- */
    BARE("clv_bilateral", "NULL context", E_ARG, .flags = F_NOCTX, .a = I_U8, .b = I_U8B, .d0 = 2, .d1 = 20),
    CTXF("clv_bilateral", "NULL source", E_ARG, "source", .a = I_NULL, .b = I_U8B, .d0 = 2, .d1 = 20),
    CTXF("clv_bilateral", "NULL destination", E_ARG, "destination", .a = I_U8, .b = I_NULL,
         .d0 = 2, .d1 = 20),
    CTXF("clv_bilateral", "destination of another size", E_ARG, "destination is", .a = I_U8,
         .b = I_U8S, .d0 = 2, .d1 = 20),
    CTXF("clv_bilateral", "u8 -> f32", E_ARG, "f32", .a = I_U8, .b = I_F32, .d0 = 2, .d1 = 20),
    CTXF("clv_bilateral", "in place", E_ARG, "same image", .a = I_U8, .b = I_U8, .d0 = 2, .d1 = 20),
    CTXF("clv_bilateral", "sigma_space 0", E_ARG, "sigma_space", .a = I_U8, .b = I_U8B, .d0 = 0,
         .d1 = 20),
    CTXF("clv_bilateral", "sigma_space NaN", E_ARG, "sigma_space", .a = I_U8, .b = I_U8B,
         .d0 = NAN, .d1 = 20),
    CTXF("clv_bilateral", "sigma_space +Inf", E_ARG, "sigma_space", .a = I_U8, .b = I_U8B,
         .d0 = INFINITY, .d1 = 20, .i0 = 3),
    CTXF("clv_bilateral", "sigma_range -1", E_ARG, "sigma_range", .a = I_U8, .b = I_U8B, .d0 = 2,
         .d1 = -1),
    CTXF("clv_bilateral", "sigma_range NaN", E_ARG, "sigma_range", .a = I_U8, .b = I_U8B, .d0 = 2,
         .d1 = NAN),
    CTXF("clv_bilateral", "sigma_range +Inf", E_ARG, "sigma_range", .a = I_U8, .b = I_U8B,
         .d0 = 2, .d1 = INFINITY),
    CTXF("clv_bilateral", "radius 65", E_ARG, "radius", .a = I_U8, .b = I_U8B, .d0 = 2, .d1 = 20,
         .i0 = CLV_BILATERAL_MAX_RADIUS + 1),
    CTXF("clv_bilateral", "radius INT_MAX", E_ARG, "radius", .a = I_U8, .b = I_U8B, .d0 = 2,
         .d1 = 20, .i0 = INT_MAX),
    CTXF("clv_bilateral", "sigma_space 30 with the default radius (90)", E_ARG, "radius",
         .a = I_U8, .b = I_U8B, .d0 = 30, .d1 = 20, .i0 = 0),
    CTXF("clv_bilateral", "border 7", E_ARG, "border", .a = I_U8, .b = I_U8B, .d0 = 2, .d1 = 20,
         .i2 = 7),
    GOOD("clv_bilateral", "sigma_space 1e-300 with radius 2", .a = I_U8, .b = I_U8B, .d0 = 1e-300,
         .d1 = 20, .i0 = 2),
    GOOD("clv_bilateral", "1x1, radius 64, constant", .a = I_U8_1, .b = I_U8_1B, .d0 = 2, .d1 = 20,
         .i0 = 64, .i2 = CLV_BORDER_CONSTANT),

    VAL("clv_grid_params_default", "defaults are accepted"),
    BARE("clv_bilateral_grid", "NULL context", E_ARG, .flags = F_NOCTX, .a = I_U8, .b = I_U8B),
    CTXF("clv_bilateral_grid", "NULL source", E_ARG, "source", .a = I_NULL, .b = I_U8B),
    CTXF("clv_bilateral_grid", "NULL destination", E_ARG, "destination", .a = I_U8, .b = I_NULL),
    CTXF("clv_bilateral_grid", "destination of another size", E_ARG, "destination is", .a = I_U8,
         .b = I_U8S),
    CTXF("clv_bilateral_grid", "u8 -> u16", E_ARG, "u16", .a = I_U8, .b = I_U16),
    CTXF("clv_bilateral_grid", "2 channels", E_ARG, "channels", .a = I_U8C2, .b = I_U8C2B),
    CTXF("clv_bilateral_grid", "in place", E_ARG, "same image", .a = I_U8, .b = I_U8),
    CTXF("clv_bilateral_grid", "s_s 0.5", E_ARG, "s_s", .a = I_U8, .b = I_U8B, .s = "s_s", .v = 0.5),
    CTXF("clv_bilateral_grid", "s_s NaN", E_ARG, "s_s", .a = I_U8, .b = I_U8B, .s = "s_s", .v = NAN),
    CTXF("clv_bilateral_grid", "s_s +Inf", E_ARG, "s_s", .a = I_U8, .b = I_U8B, .s = "s_s",
         .v = INFINITY),
    CTXF("clv_bilateral_grid", "s_r 0", E_ARG, "s_r", .a = I_U8, .b = I_U8B, .s = "s_r", .v = 0),
    CTXF("clv_bilateral_grid", "s_r -25", E_ARG, "s_r", .a = I_U8, .b = I_U8B, .s = "s_r", .v = -25),
    CTXF("clv_bilateral_grid", "s_r NaN", E_ARG, "s_r", .a = I_U8, .b = I_U8B, .s = "s_r", .v = NAN),
    CTXF("clv_bilateral_grid", "s_r +Inf", E_ARG, "s_r", .a = I_U8, .b = I_U8B, .s = "s_r",
         .v = INFINITY),
    CTXF("clv_bilateral_grid", "s_r 0.01 on u8: 25501 range cells", E_ARG, "range cells",
         .a = I_U8, .b = I_U8B, .s = "s_r", .v = 0.01),
    CTXF("clv_bilateral_grid", "blur_sigma -1", E_ARG, "blur", .a = I_U8, .b = I_U8B,
         .s = "blur_sigma", .v = -1),
    CTXF("clv_bilateral_grid", "blur_sigma 21", E_ARG, "blur", .a = I_U8, .b = I_U8B,
         .s = "blur_sigma", .v = 21),
    /* the value is quoted in full, not as %g's "20" (issue 13 #14) */
    CTXF("clv_bilateral_grid", "blur_sigma 20.0000001", E_ARG, "(got 20.0000001)", .a = I_U8,
         .b = I_U8B, .s = "blur_sigma", .v = 20.0000001),
    CTXF("clv_bilateral_grid", "blur_sigma NaN", E_ARG, "blur", .a = I_U8, .b = I_U8B,
         .s = "blur_sigma", .v = NAN),
    CTXF("clv_bilateral_grid", "f32 image with a +Inf pixel", E_ARG, "not finite", .a = I_F32INF,
         .b = I_F32B),
    CTXF("clv_bilateral_grid", "f32 image of NaN only", E_ARG, "not finite", .a = I_F32NAN,
         .b = I_F32B),
    /* a blur so narrow that sigma^2 underflows: weights [0, 1, 0] (they were
     * NaN) */
    GOOD("clv_bilateral_grid", "blur_sigma 1e-300", .a = I_U8, .b = I_U8B, .s = "blur_sigma",
         .v = 1e-300),
    /* constant f32 image: range 0, s_r so small that 1/s_r overflows float */
    GOOD("clv_bilateral_grid", "constant f32, s_r 1e-300", .a = I_F32K, .b = I_F32B, .s = "s_r",
         .v = 1e-300),
    GOOD("clv_bilateral_grid", "s_s 1e300", .a = I_U8, .b = I_U8B, .s = "s_s", .v = 1e300),
    GOOD("clv_bilateral_grid", "NULL params: defaults", .a = I_U8, .b = I_U8B, .flags = F_NULLP),
    GOOD("clv_bilateral_grid", "1x1 f32", .a = I_F32_1, .b = I_F32_1B),

    BARE("clv_bilateral_grid_cross", "NULL context", E_ARG, .flags = F_NOCTX, .a = I_U8, .b = I_U8B, .c = I_U8S),
    CTXF("clv_bilateral_grid_cross", "NULL edge", E_ARG, "edge", .a = I_U8, .b = I_NULL,
         .c = I_U8B),
    CTXF("clv_bilateral_grid_cross", "edge of 3 channels", E_ARG, "edge", .a = I_U8, .b = I_U8C3,
         .c = I_U8B),
    CTXF("clv_bilateral_grid_cross", "edge of another size", E_ARG, "edge", .a = I_U8, .b = I_U8S,
         .c = I_U8B),
    CTXF("clv_bilateral_grid_cross", "edge of another context", E_ARG, "another context",
         .a = I_U8, .b = I_OTHER, .c = I_U8B),
    CTXF("clv_bilateral_grid_cross", "edge is the destination", E_ARG, "same image", .a = I_U8,
         .b = I_U8B, .c = I_U8B),
    CTXF("clv_bilateral_grid_cross", "f32 edge with +Inf", E_ARG, "not finite", .a = I_U8,
         .b = I_F32INF, .c = I_U8B),
    CTXF("clv_bilateral_grid_cross", "s_r NaN", E_ARG, "s_r", .a = I_U8, .b = I_U16, .c = I_U8B,
         .s = "s_r", .v = NAN),
    GOOD("clv_bilateral_grid_cross", "u16 edge for u8 values", .a = I_U8, .b = I_U16, .c = I_U8B,
         .s = "s_r", .v = 6553.5),

    VAL("clv_tonemap_params_default", "defaults are accepted"),
    BARE("clv_tonemap_local", "NULL context", E_ARG, .flags = F_NOCTX, .a = I_F32C3, .b = I_U8C3),
    CTXF("clv_tonemap_local", "NULL source", E_ARG, "source", .a = I_NULL, .b = I_U8C3),
    CTXF("clv_tonemap_local", "NULL destination", E_ARG, "destination", .a = I_F32C3, .b = I_NULL),
    CTXF("clv_tonemap_local", "u8 source", E_ARG, "f32", .a = I_U8C3, .b = I_U8C3S),
    CTXF("clv_tonemap_local", "1-channel f32 source", E_ARG, "3..4 channels", .a = I_F32,
         .b = I_U8C3),
    CTXF("clv_tonemap_local", "u8 RGBA destination", E_ARG, "3-channel u8", .a = I_F32C3,
         .b = I_U8C4),
    CTXF("clv_tonemap_local", "destination of another size", E_ARG, "destination is", .a = I_F32C3,
         .b = I_U8C3S),
    CTXF("clv_tonemap_local", "source of another context", E_ARG, "another context",
         .a = I_OTHER, .b = I_U8C3),
    CTXF("clv_tonemap_local", "contrast 0", E_ARG, "contrast", .a = I_F32C3, .b = I_U8C3,
         .s = "contrast", .v = 0),
    CTXF("clv_tonemap_local", "contrast NaN", E_ARG, "contrast", .a = I_F32C3, .b = I_U8C3,
         .s = "contrast", .v = NAN),
    CTXF("clv_tonemap_local", "exposure +Inf", E_ARG, "exposure", .a = I_F32C3, .b = I_U8C3,
         .s = "exposure", .v = INFINITY),
    CTXF("clv_tonemap_local", "saturation -0.1", E_ARG, "saturation", .a = I_F32C3, .b = I_U8C3,
         .s = "saturation", .v = -0.1),
    CTXF("clv_tonemap_local", "gamma -1", E_ARG, "gamma", .a = I_F32C3, .b = I_U8C3,
         .s = "gamma", .v = -1),
    CTXF("clv_tonemap_local", "gamma NaN", E_ARG, "gamma", .a = I_F32C3, .b = I_U8C3,
         .s = "gamma", .v = NAN),
    CTXF("clv_tonemap_local", "blend 1.5", E_ARG, "blend", .a = I_F32C3, .b = I_U8C3,
         .s = "blend", .v = 1.5),
    CTXF("clv_tonemap_local", "sigma_space -1", E_ARG, "sigma_space", .a = I_F32C3, .b = I_U8C3,
         .s = "sigma_space", .v = -1),
    CTXF("clv_tonemap_local", "sigma_space 1e9", E_ARG, "sigma_space", .a = I_F32C3, .b = I_U8C3,
         .s = "sigma_space", .v = 1e9),
    CTXF("clv_tonemap_local", "sigma_range 0", E_ARG, "sigma_range", .a = I_F32C3, .b = I_U8C3,
         .s = "sigma_range", .v = 0),
    CTXF("clv_tonemap_local", "sigma_range NaN", E_ARG, "sigma_range", .a = I_F32C3, .b = I_U8C3,
         .s = "sigma_range", .v = NAN),
    GOOD("clv_tonemap_local", "NULL params: defaults", .a = I_F32C3, .b = I_U8C3, .flags = F_NULLP),
    GOOD("clv_tonemap_local", "1x1", .a = I_F32C3_1, .b = I_U8C3_1),

    /* ---- flow.h: pyramids ---- */
    BARE("clv_pyramid_create", "NULL context", E_ARG, .flags = F_NOCTX, .a = 0, .i0 = W, .i1 = H, .i2 = 3, .d0 = 0.5),
    CTXF("clv_pyramid_create", "NULL out", E_ARG, "out", .a = 1, .i0 = W, .i1 = H, .i2 = 3,
         .d0 = 0.5, .flags = F_NULLP),
    CTXF("clv_pyramid_create", "0x0", E_ARG, "size", .a = 1, .i0 = 0, .i1 = 0, .i2 = 3, .d0 = 0.5),
    CTXF("clv_pyramid_create", "width 65537", E_ARG, "size", .a = 1, .i0 = CLV_MAX_DIMENSION + 1,
         .i1 = 1, .i2 = 3, .d0 = 0.5),
    CTXF("clv_pyramid_create", "0 levels", E_ARG, "levels", .a = 1, .i0 = W, .i1 = H, .i2 = 0,
         .d0 = 0.5),
    CTXF("clv_pyramid_create", "17 levels", E_ARG, "levels", .a = 1, .i0 = W, .i1 = H, .i2 = 17,
         .d0 = 0.5),
    CTXF("clv_pyramid_create", "scale 0", E_ARG, "scale", .a = 1, .i0 = W, .i1 = H, .i2 = 3, .d0 = 0),
    CTXF("clv_pyramid_create", "scale 1", E_ARG, "scale", .a = 1, .i0 = W, .i1 = H, .i2 = 3, .d0 = 1),
    CTXF("clv_pyramid_create", "scale -0.5", E_ARG, "scale", .a = 1, .i0 = W, .i1 = H, .i2 = 3,
         .d0 = -0.5),
    CTXF("clv_pyramid_create", "scale NaN", E_ARG, "scale", .a = 1, .i0 = W, .i1 = H, .i2 = 3,
         .d0 = NAN),
    CTXF("clv_pyramid_create", "scale +Inf", E_ARG, "scale", .a = 1, .i0 = W, .i1 = H, .i2 = 3,
         .d0 = INFINITY),
    CTXF("clv_pyramid_create", "5 channels", E_ARG, "channels", .a = 1, .i0 = W, .i1 = H, .i2 = 3,
         .d0 = 0.5, .b = 5),
    CTXF("clv_pyramid_create", "pixel type 42", E_ARG, "type", .a = 1, .i0 = W, .i1 = H, .i2 = 3,
         .d0 = 0.5, .d1 = 42),
    {.fn = "clv_pyramid_create", .what = "65536x65536 RGBA f32 (64 GiB)", .want = E_UNSUP,
     .alt = E_CL, .msg = M_CTX, .needle = "65536", .i0 = CLV_MAX_DIMENSION,
     .i1 = CLV_MAX_DIMENSION, .i2 = 1, .b = 4, .d0 = 0.5, .d1 = CLV_F32},
    GOOD("clv_pyramid_create", "scale 1e-300: one level", .a = 1, .i0 = W, .i1 = H, .i2 = 3,
         .d0 = 1e-300),
    GOOD("clv_pyramid_create", "1x1 with 16 levels: one level", .a = 1, .i0 = 1, .i1 = 1,
         .i2 = 16, .d0 = 0.5),
    VAL("clv_pyramid_release", "NULL is fine"),
    VAL("clv_pyramid_levels", "0 for NULL"),
    VAL("clv_pyramid_level", "NULL for NULL, -1 and past the last level"),
    BARE("clv_pyramid_build", "NULL context", E_ARG, .flags = F_NOCTX, .a = P_U8, .b = I_U8),
    CTXF("clv_pyramid_build", "NULL pyramid", E_ARG, "pyramid", .a = P_NULL, .b = I_U8),
    CTXF("clv_pyramid_build", "NULL source", E_ARG, "source", .a = P_U8, .b = I_NULL),
    CTXF("clv_pyramid_build", "source of another size", E_ARG, "pyramid is for", .a = P_U8,
         .b = I_U8S),
    CTXF("clv_pyramid_build", "source of another type", E_ARG, "pyramid is for", .a = P_U8,
         .b = I_F32),
    CTXF("clv_pyramid_build", "source of other channels", E_ARG, "pyramid is for", .a = P_U8,
         .b = I_U8C3),
    CTXF("clv_pyramid_build", "source of another context", E_ARG, "another context", .a = P_U8,
         .b = I_OTHER),
    CTXF("clv_pyramid_build", "pyramid of another context", E_ARG, "another context",
         .a = P_OTHER, .b = I_U8),
    /* was CLV_ERROR_OPENCL (CL_MEM_COPY_OVERLAP) */
    CTXF("clv_pyramid_build", "source is the pyramid's own level 0", E_ARG, "level", .a = P_U8,
         .b = -1),
    GOOD("clv_pyramid_build", "1x1", .a = P_U8_1, .b = I_U8_1),

    /* ---- corners ---- */
    VAL("clv_corner_params_default", "defaults are accepted"),
    BARE("clv_corners_shi_tomasi", "NULL context", E_ARG, .flags = F_NOCTX, .a = I_U8),
    CTXF("clv_corners_shi_tomasi", "NULL image", E_ARG, "source", .a = I_NULL),
    CTXF("clv_corners_shi_tomasi", "NULL params", E_ARG, "params", .a = I_U8, .flags = F_NULLP),
    CTXF("clv_corners_shi_tomasi", "NULL out", E_ARG, "out", .a = I_U8, .i0 = 1),
    CTXF("clv_corners_shi_tomasi", "NULL count", E_ARG, "count", .a = I_U8, .i0 = 2),
    CTXF("clv_corners_shi_tomasi", "RGB image", E_ARG, "1-channel", .a = I_U8C3),
    CTXF("clv_corners_shi_tomasi", "u16 image", E_ARG, "1-channel", .a = I_U16),
    CTXF("clv_corners_shi_tomasi", "image of another context", E_ARG, "another context",
         .a = I_OTHER),
    CTXF("clv_corners_shi_tomasi", "max_corners 0", E_ARG, "max_corners", .a = I_U8,
         .s = "max_corners", .v = 0),
    CTXF("clv_corners_shi_tomasi", "max_corners -5", E_ARG, "max_corners", .a = I_U8,
         .s = "max_corners", .v = -5),
    CTXF("clv_corners_shi_tomasi", "quality_level 0", E_ARG, "quality_level", .a = I_U8,
         .s = "quality_level", .v = 0),
    CTXF("clv_corners_shi_tomasi", "quality_level 1.5", E_ARG, "quality_level", .a = I_U8,
         .s = "quality_level", .v = 1.5),
    CTXF("clv_corners_shi_tomasi", "quality_level NaN", E_ARG, "quality_level", .a = I_U8,
         .s = "quality_level", .v = NAN),
    CTXF("clv_corners_shi_tomasi", "quality_level -Inf", E_ARG, "quality_level", .a = I_U8,
         .s = "quality_level", .v = -INFINITY),
    CTXF("clv_corners_shi_tomasi", "min_distance -1", E_ARG, "min_distance", .a = I_U8,
         .s = "min_distance", .v = -1),
    CTXF("clv_corners_shi_tomasi", "min_distance NaN", E_ARG, "min_distance", .a = I_U8,
         .s = "min_distance", .v = NAN),
    CTXF("clv_corners_shi_tomasi", "min_distance +Inf", E_ARG, "min_distance", .a = I_U8,
         .s = "min_distance", .v = INFINITY),
    CTXF("clv_corners_shi_tomasi", "block_size 0", E_ARG, "block_size", .a = I_U8,
         .s = "block_size", .v = 0),
    CTXF("clv_corners_shi_tomasi", "block_size 4", E_ARG, "block_size", .a = I_U8,
         .s = "block_size", .v = 4),
    CTXF("clv_corners_shi_tomasi", "block_size 33", E_ARG, "block_size", .a = I_U8,
         .s = "block_size", .v = 33),
    CTXF("clv_corners_shi_tomasi", "gradient_size 5", E_ARG, "gradient_size", .a = I_U8,
         .s = "gradient_size", .v = 5),
    CTXF("clv_corners_shi_tomasi", "mask of another size", E_ARG, "mask", .a = I_U8,
         .s = "mask", .v = I_U8S),
    CTXF("clv_corners_shi_tomasi", "f32 mask", E_ARG, "mask", .a = I_U8, .s = "mask", .v = I_F32),
    CTXF("clv_corners_shi_tomasi", "mask of another context", E_ARG, "another context", .a = I_U8,
         .s = "mask", .v = I_OTHER),
    /* the output holds at most the image's candidates: asking for INT_MAX
     * must not try to allocate 24 GiB on the device (it was UNSUPPORTED) */
    GOOD("clv_corners_shi_tomasi", "max_corners INT_MAX", .a = I_U8, .s = "max_corners",
         .v = INT_MAX),
    GOOD("clv_corners_shi_tomasi", "1x1: no corner", .a = I_U8_1),
    BARE("clv_corners_shi_tomasi_n", "NULL context", E_ARG, .flags = F_NOCTX, .a = I_U8),
    CTXF("clv_corners_shi_tomasi_n", "capacity -1", E_ARG, "capacity", .a = I_U8, .i0 = 1),
    CTXF("clv_corners_shi_tomasi_n", "NULL out, capacity 2", E_ARG, "out", .a = I_U8, .i0 = 2),
    CTXF("clv_corners_shi_tomasi_n", "NULL count", E_ARG, "count", .a = I_U8, .i0 = 4),
    GOOD("clv_corners_shi_tomasi_n", "NULL out, capacity 0: only counts", .a = I_U8, .i0 = 3),
    GOOD("clv_corners_shi_tomasi_n", "max_corners INT_MAX, capacity 16", .a = I_U8,
         .s = "max_corners", .v = INT_MAX),
    GOOD("clv_corners_shi_tomasi", "min_distance 1e300", .a = I_U8, .s = "min_distance",
         .v = 1e300),

    /* ---- Lucas-Kanade ---- */
    VAL("clv_lk_params_default", "defaults are accepted"),
    BARE("clv_lk_track", "NULL context", E_ARG, .flags = F_NOCTX, .a = P_U8, .b = P_U8B, .i0 = 4),
    CTXF("clv_lk_track", "NULL prev pyramid", E_ARG, "prev", .a = P_NULL, .b = P_U8B, .i0 = 4),
    CTXF("clv_lk_track", "NULL next pyramid", E_ARG, "next", .a = P_U8, .b = P_NULL, .i0 = 4),
    CTXF("clv_lk_track", "NULL pts_in", E_ARG, "pts_in", .a = P_U8, .b = P_U8B, .i0 = 4, .i1 = 1),
    CTXF("clv_lk_track", "NULL pts_out", E_ARG, "pts_out", .a = P_U8, .b = P_U8B, .i0 = 4, .i1 = 2),
    CTXF("clv_lk_track", "NULL status", E_ARG, "status", .a = P_U8, .b = P_U8B, .i0 = 4, .i1 = 3),
    CTXF("clv_lk_track", "count -1", E_ARG, "count", .a = P_U8, .b = P_U8B, .i0 = -1),
    CTXF("clv_lk_track", "u8 and f32 pyramids", E_ARG, "but next pyramid is", .a = P_U8, .b = P_F32, .i0 = 4),
    CTXF("clv_lk_track", "RGB pyramids", E_ARG, "1-channel", .a = P_U8C3, .b = P_U8C3, .i0 = 4),
    CTXF("clv_lk_track", "pyramids of different sizes", E_ARG, "level 0", .a = P_U8, .b = P_U8S,
         .i0 = 4),
    CTXF("clv_lk_track", "pyramid of scale 0.7", E_ARG, "scale 0.5", .a = P_U8_07, .b = P_U8_07,
         .i0 = 4),
    CTXF("clv_lk_track", "pyramid of another context", E_ARG, "another context", .a = P_OTHER,
         .b = P_U8B, .i0 = 4),
    CTXF("clv_lk_track", "levels 4 of 3", E_ARG, "levels", .a = P_U8, .b = P_U8B, .i0 = 4,
         .s = "levels", .v = 4),
    CTXF("clv_lk_track", "levels 0", E_ARG, "levels", .a = P_U8, .b = P_U8B, .i0 = 4,
         .s = "levels", .v = 0),
    CTXF("clv_lk_track", "window 4 wide", E_ARG, "win_width", .a = P_U8, .b = P_U8B, .i0 = 4,
         .s = "win_width", .v = 4),
    CTXF("clv_lk_track", "window 1 high", E_ARG, "win_height", .a = P_U8, .b = P_U8B, .i0 = 4,
         .s = "win_height", .v = 1),
    CTXF("clv_lk_track", "window INT_MAX wide", E_ARG, "window", .a = P_U8, .b = P_U8B, .i0 = 4,
         .s = "win_width", .v = INT_MAX),
    CTXF("clv_lk_track", "max_iterations 0", E_ARG, "max_iterations", .a = P_U8, .b = P_U8B,
         .i0 = 4, .s = "max_iterations", .v = 0),
    /* with epsilon 0 this ran for minutes per point (no convergence test
     * can stop it): refused now, as the CLI's --iterations 1..1000 */
    CTXF("clv_lk_track", "max_iterations INT_MAX", E_ARG, "max_iterations", .a = P_U8,
         .b = P_U8B, .i0 = 4, .s = "max_iterations", .v = INT_MAX),
    CTXF("clv_lk_track", "epsilon -1", E_ARG, "epsilon", .a = P_U8, .b = P_U8B, .i0 = 4,
         .s = "epsilon", .v = -1),
    CTXF("clv_lk_track", "epsilon NaN", E_ARG, "epsilon", .a = P_U8, .b = P_U8B, .i0 = 4,
         .s = "epsilon", .v = NAN),
    CTXF("clv_lk_track", "epsilon +Inf", E_ARG, "epsilon", .a = P_U8, .b = P_U8B, .i0 = 4,
         .s = "epsilon", .v = INFINITY),
    CTXF("clv_lk_track", "min_eig_threshold NaN", E_ARG, "min_eig", .a = P_U8, .b = P_U8B,
         .i0 = 4, .s = "min_eig_threshold", .v = NAN),
    CTXF("clv_lk_track", "min_eig_threshold -1", E_ARG, "min_eig", .a = P_U8, .b = P_U8B,
         .i0 = 4, .s = "min_eig_threshold", .v = -1),
    CTXF("clv_lk_track", "use_initial_flow 2", E_ARG, "use_initial_flow", .a = P_U8, .b = P_U8B,
         .i0 = 4, .s = "use_initial_flow", .v = 2),
    GOOD("clv_lk_track", "count 0 with NULL arrays", .a = P_U8, .b = P_U8B, .i0 = 0, .i1 = 4),
    GOOD("clv_lk_track", "NULL params: defaults", .a = P_U8, .b = P_U8B, .i0 = 4,
         .flags = F_NULLP),
    GOOD("clv_lk_track", "1x1 pyramids, points inside and far outside", .a = P_U8_1, .b = P_U8_1B,
         .i0 = 4, .s = "levels", .v = 1),
    GOOD("clv_lk_track", "max_iterations 1000, epsilon 0", .a = P_U8, .b = P_U8B, .i0 = 4,
         .s = "max_iterations", .v = 1000),

    /* ---- Farneback ---- */
    VAL("clv_farneback_params_default", "defaults are accepted"),
    BARE("clv_farneback", "NULL context", E_ARG, .flags = F_NOCTX, .a = I_U8, .b = I_U8B, .c = I_FLOW),
    CTXF("clv_farneback", "NULL prev", E_ARG, "previous", .a = I_NULL, .b = I_U8B, .c = I_FLOW),
    CTXF("clv_farneback", "NULL next", E_ARG, "next", .a = I_U8, .b = I_NULL, .c = I_FLOW),
    CTXF("clv_farneback", "NULL flow", E_ARG, "flow", .a = I_U8, .b = I_U8B, .c = I_NULL),
    CTXF("clv_farneback", "u16 images", E_ARG, "u8 or f32", .a = I_U16, .b = I_U16B, .c = I_FLOW),
    CTXF("clv_farneback", "RGB images", E_ARG, "1-channel", .a = I_U8C3, .b = I_U8C3, .c = I_FLOW),
    CTXF("clv_farneback", "u8 and f32", E_ARG, "but next is", .a = I_U8, .b = I_F32, .c = I_FLOW),
    CTXF("clv_farneback", "images of two sizes", E_ARG, "next is", .a = I_U8, .b = I_U8S,
         .c = I_FLOW),
    CTXF("clv_farneback", "flow of another size", E_ARG, "flow", .a = I_U8, .b = I_U8B,
         .c = I_FLOWS),
    CTXF("clv_farneback", "flow of 1 channel", E_ARG, "flow", .a = I_U8, .b = I_U8B, .c = I_F32),
    GOOD("clv_farneback", "prev is next: zero motion", .a = I_U8, .b = I_U8, .c = I_FLOW),
    CTXF("clv_farneback", "flow of another context", E_ARG, "another context", .a = I_U8,
         .b = I_U8B, .c = I_OTHER),
    CTXF("clv_farneback", "pyr_scale 0", E_ARG, "pyr_scale", .a = I_U8, .b = I_U8B, .c = I_FLOW,
         .s = "pyr_scale", .v = 0),
    CTXF("clv_farneback", "pyr_scale 1", E_ARG, "pyr_scale", .a = I_U8, .b = I_U8B, .c = I_FLOW,
         .s = "pyr_scale", .v = 1),
    CTXF("clv_farneback", "pyr_scale NaN", E_ARG, "pyr_scale", .a = I_U8, .b = I_U8B, .c = I_FLOW,
         .s = "pyr_scale", .v = NAN),
    CTXF("clv_farneback", "levels -1", E_ARG, "levels", .a = I_U8, .b = I_U8B, .c = I_FLOW,
         .s = "levels", .v = -1),
    CTXF("clv_farneback", "levels 17", E_ARG, "levels", .a = I_U8, .b = I_U8B, .c = I_FLOW,
         .s = "levels", .v = 17),
    CTXF("clv_farneback", "winsize 4", E_ARG, "winsize", .a = I_U8, .b = I_U8B, .c = I_FLOW,
         .s = "winsize", .v = 4),
    CTXF("clv_farneback", "winsize 1", E_ARG, "winsize", .a = I_U8, .b = I_U8B, .c = I_FLOW,
         .s = "winsize", .v = 1),
    CTXF("clv_farneback", "winsize 257", E_ARG, "winsize", .a = I_U8, .b = I_U8B, .c = I_FLOW,
         .s = "winsize", .v = 257),
    CTXF("clv_farneback", "iterations 0", E_ARG, "iterations", .a = I_U8, .b = I_U8B, .c = I_FLOW,
         .s = "iterations", .v = 0),
    CTXF("clv_farneback", "iterations 101", E_ARG, "iterations", .a = I_U8, .b = I_U8B,
         .c = I_FLOW, .s = "iterations", .v = 101),
    CTXF("clv_farneback", "poly_n 6", E_ARG, "poly_n", .a = I_U8, .b = I_U8B, .c = I_FLOW,
         .s = "poly_n", .v = 6),
    CTXF("clv_farneback", "poly_sigma 0", E_ARG, "poly_sigma", .a = I_U8, .b = I_U8B, .c = I_FLOW,
         .s = "poly_sigma", .v = 0),
    CTXF("clv_farneback", "poly_sigma NaN", E_ARG, "poly_sigma", .a = I_U8, .b = I_U8B,
         .c = I_FLOW, .s = "poly_sigma", .v = NAN),
    CTXF("clv_farneback", "poly_sigma +Inf", E_ARG, "poly_sigma", .a = I_U8, .b = I_U8B,
         .c = I_FLOW, .s = "poly_sigma", .v = INFINITY),
    CTXF("clv_farneback", "gaussian_window 2", E_ARG, "gaussian_window", .a = I_U8, .b = I_U8B,
         .c = I_FLOW, .s = "gaussian_window", .v = 2),
    CTXF("clv_farneback", "use_initial_flow -1", E_ARG, "use_initial_flow", .a = I_U8, .b = I_U8B,
         .c = I_FLOW, .s = "use_initial_flow", .v = -1),
    GOOD("clv_farneback", "NULL params: defaults", .a = I_U8, .b = I_U8B, .c = I_FLOW,
         .flags = F_NULLP),
    GOOD("clv_farneback", "1x1", .a = I_U8_1, .b = I_U8_1B, .c = I_FLOW_1),

    /* ---- flow utilities ---- */
    BARE("clv_flow_to_color", "NULL context", E_ARG, .flags = F_NOCTX, .a = I_FLOW, .b = I_U8C3),
    CTXF("clv_flow_to_color", "NULL flow", E_ARG, "flow", .a = I_NULL, .b = I_U8C3),
    CTXF("clv_flow_to_color", "NULL destination", E_ARG, "destination", .a = I_FLOW, .b = I_NULL),
    CTXF("clv_flow_to_color", "flow of 1 channel", E_ARG, "2-channel", .a = I_F32, .b = I_U8C3),
    CTXF("clv_flow_to_color", "u8 2-channel flow", E_ARG, "2-channel", .a = I_U8C2, .b = I_U8C3),
    CTXF("clv_flow_to_color", "RGBA destination", E_ARG, "destination", .a = I_FLOW, .b = I_U8C4),
    CTXF("clv_flow_to_color", "destination of another size", E_ARG, "destination", .a = I_FLOW,
         .b = I_U8C3S),
    CTXF("clv_flow_to_color", "max_magnitude NaN", E_ARG, "max_magnitude", .a = I_FLOW,
         .b = I_U8C3, .d0 = NAN),
    CTXF("clv_flow_to_color", "max_magnitude +Inf", E_ARG, "max_magnitude", .a = I_FLOW,
         .b = I_U8C3, .d0 = INFINITY),
    GOOD("clv_flow_to_color", "max_magnitude 1e-300", .a = I_FLOW, .b = I_U8C3, .d0 = 1e-300),
    GOOD("clv_flow_to_color", "max_magnitude 1e300", .a = I_FLOW, .b = I_U8C3, .d0 = 1e300),
    GOOD("clv_flow_to_color", "max_magnitude -1: the field's largest", .a = I_FLOW, .b = I_U8C3,
         .d0 = -1),
    GOOD("clv_flow_to_color", "1x1", .a = I_FLOW_1, .b = I_U8C3_1),

    BARE("clv_flow_eval", "NULL context", E_ARG, .flags = F_NOCTX, .a = I_FLOW, .b = I_FLOWB),
    CTXF("clv_flow_eval", "NULL out", E_ARG, "out", .a = I_FLOW, .b = I_FLOWB, .flags = F_NULLP),
    CTXF("clv_flow_eval", "NULL estimate", E_ARG, "estimate", .a = I_NULL, .b = I_FLOWB),
    CTXF("clv_flow_eval", "NULL ground truth", E_ARG, "ground truth", .a = I_FLOW, .b = I_NULL),
    CTXF("clv_flow_eval", "estimate of 3 channels", E_ARG, "2-channel", .a = I_F32C3, .b = I_FLOWB),
    CTXF("clv_flow_eval", "sizes differ", E_ARG, "ground truth is", .a = I_FLOW, .b = I_FLOWS),
    CTXF("clv_flow_eval", "ground truth of another context", E_ARG, "another context",
         .a = I_FLOW, .b = I_OTHER),
    GOOD("clv_flow_eval", "estimate and ground truth the same image", .a = I_FLOW, .b = I_FLOW),
    GOOD("clv_flow_eval", "1x1", .a = I_FLOW_1, .b = I_FLOW_1),

    BARE("clv_warp", "NULL context", E_ARG, .flags = F_NOCTX, .a = I_U8, .b = I_FLOW, .c = I_U8B),
    CTXF("clv_warp", "NULL source", E_ARG, "source", .a = I_NULL, .b = I_FLOW, .c = I_U8B),
    CTXF("clv_warp", "NULL flow", E_ARG, "flow", .a = I_U8, .b = I_NULL, .c = I_U8B),
    CTXF("clv_warp", "NULL destination", E_ARG, "destination", .a = I_U8, .b = I_FLOW, .c = I_NULL),
    CTXF("clv_warp", "u8 -> f32", E_ARG, "f32", .a = I_U8, .b = I_FLOW, .c = I_F32),
    CTXF("clv_warp", "in place", E_ARG, "same image", .a = I_U8, .b = I_FLOW, .c = I_U8),
    CTXF("clv_warp", "flow of 1 channel", E_ARG, "2-channel", .a = I_U8, .b = I_F32, .c = I_U8B),
    CTXF("clv_warp", "flow of another size", E_ARG, "flow is", .a = I_U8, .b = I_FLOWS, .c = I_U8B),
    CTXF("clv_warp", "flow is the destination", E_ARG, "same image", .a = I_FLOWB, .b = I_FLOW,
         .c = I_FLOW),
    CTXF("clv_warp", "flow of another context", E_ARG, "another context", .a = I_U8,
         .b = I_OTHER, .c = I_U8B),
    GOOD("clv_warp", "small source, larger destination", .a = I_U8S, .b = I_FLOW, .c = I_U8B),
    GOOD("clv_warp", "1x1", .a = I_U8_1, .b = I_FLOW_1, .c = I_U8_1B),

    /* ---- io.h: host images ---- */
    VAL("clv_io_set_max_pixels", "a lowered limit refuses a good file before decoding"),
    VAL("clv_io_max_pixels", "default 2^28"),
    VAL("clv_jpeg_set_max_scans", "a limit of 1 still reads a baseline JPEG; 0 restores the default"),
    VAL("clv_jpeg_max_scans", "default CLV_JPEG_DEFAULT_MAX_SCANS"),
    IOF("clv_host_image_alloc", "NULL image", E_ARG, "NULL", .i0 = W, .i1 = H, .i2 = 1, .d0 = CLV_U8,
        .flags = F_NULLP),
    IOF("clv_host_image_alloc", "0x0", E_ARG, "size", .i0 = 0, .i1 = 0, .i2 = 1, .d0 = CLV_U8),
    IOF("clv_host_image_alloc", "height -1", E_ARG, "size", .i0 = W, .i1 = -1, .i2 = 1, .d0 = CLV_U8),
    IOF("clv_host_image_alloc", "width 65537", E_ARG, "size", .i0 = CLV_MAX_DIMENSION + 1, .i1 = 1,
        .i2 = 1, .d0 = CLV_U8),
    IOF("clv_host_image_alloc", "5 channels", E_ARG, "channels", .i0 = W, .i1 = H, .i2 = 5,
        .d0 = CLV_U8),
    IOF("clv_host_image_alloc", "type 7", E_ARG, "type", .i0 = W, .i1 = H, .i2 = 1, .d0 = 7),
    GOOD("clv_host_image_alloc", "1x1", .i0 = 1, .i1 = 1, .i2 = 4, .d0 = CLV_F32),
    VAL("clv_host_image_free", "NULL and a zeroed struct are fine"),

    IOF("clv_host_image_to_f32", "NULL out", E_ARG, "out", .a = H_U8, .flags = F_NULLP, .d0 = 1),
    IOF("clv_host_image_to_f32", "NULL input", E_ARG, "NULL", .a = H_NULL, .d0 = 1),
    IOF("clv_host_image_to_f32", "out is the input", E_ARG, "input", .a = H_U8, .i0 = 1, .d0 = 1),
    IOF("clv_host_image_to_f32", "input without data", E_ARG, "no data", .a = H_NODATA, .d0 = 1),
    IOF("clv_host_image_to_f32", "scale NaN", E_ARG, "scale", .a = H_U8, .d0 = NAN),
    IOF("clv_host_image_to_f32", "scale +Inf", E_ARG, "scale", .a = H_U8, .d0 = INFINITY),
    IOF("clv_host_image_to_f32", "2 channels", E_ARG, "malformed", .a = H_U8C2, .d0 = 1),
    IOF("clv_host_image_to_f32", "stride smaller than a row", E_ARG, "stride", .a = H_SHORT,
        .d0 = 1),
    IOF("clv_host_image_to_f32", "stride whose last row overflows size_t", E_ARG, "stride",
        .a = H_HUGE, .d0 = 1),
    IOF("clv_host_image_to_f32", "width 0", E_ARG, "malformed", .a = H_ZERO, .d0 = 1),
    IOF("clv_host_image_to_f32", "width 70000", E_ARG, "malformed", .a = H_WIDE, .d0 = 1),
    IOF("clv_host_image_to_f32", "type 99", E_ARG, "malformed", .a = H_BADTYPE, .d0 = 1),
    GOOD("clv_host_image_to_f32", "scale -2 is fine", .a = H_U16, .d0 = -2),

    /* ---- io.h: readers. Files are made by setup() in the scratch dir. ---- */
    IOF("clv_image_read", "NULL path", E_ARG, "NULL", .s = NULL),
    IOF("clv_image_read", "NULL out", E_ARG, "NULL", .s = "good.png", .flags = F_NULLP),
    IOF("clv_image_read", "file that does not exist", E_IO, "missing.png", .s = "missing.png"),
    IOF("clv_image_read", "a directory", E_IO, "adir", .s = "adir"),
    IOF("clv_image_read", "empty file", E_FMT, "empty", .s = "empty"),
    IOF("clv_image_read", "text file", E_FMT, "not a PNG", .s = "text.png"),
    IOF("clv_image_read", "one byte of a PNG", E_FMT, "not a PNG", .s = "png1"),
    IOF("clv_image_read", "truncated PNG", E_FMT, "truncated", .s = "trunc.png"),
    IOF("clv_image_read", "PNG with a bad CRC", E_FMT, "corrupt", .s = "crc.png"),
    IOF("clv_image_read", "PNG header 70000x10", E_UNSUP, "70000", .s = "huge.png"),
    IOF("clv_image_read", "PNG header 4096x4096 over a 2^20 limit", E_ARG, "limit",
        .s = "limit.png", .d0 = 1 << 20),
    IOF("clv_image_read", "PNG header 4096x4096 with no pixel data", E_FMT, "limit.png",
        .s = "limit.png"),
    IOF("clv_image_read", "truncated JPEG", E_FMT, "truncated", .s = "trunc.jpg"),
    IOF("clv_image_read", "JPEG header 60000x60000", E_ARG, "limit", .s = "huge.jpg"),
    IOF("clv_image_read", "CMYK JPEG", E_UNSUP, "CMYK", .s = "data:cmyk.jpg"),
    IOF("clv_image_read", "truncated PFM", E_FMT, "truncated", .s = "trunc.pfm"),
    IOF("clv_image_read", "PFM header 100000x10", E_UNSUP, "100000", .s = "huge.pfm"),
    IOF("clv_image_read", "PFM header 4096x4096 over a 2^20 limit", E_ARG, "limit",
        .s = "limit.pfm", .d0 = 1 << 20),
    IOF("clv_image_read", "PFM header 4096x4096, 40 bytes of data", E_FMT, "truncated",
        .s = "limit.pfm"),
    IOF("clv_image_read", "PFM scale nan", E_FMT, "scale", .s = "nanscale.pfm"),
    IOF("clv_image_read", "PFM scale 0", E_FMT, "scale", .s = "zeroscale.pfm"),
    IOF("clv_image_read", "PFM width -2", E_FMT, "size", .s = "negsize.pfm"),
    IOF("clv_image_read", "PFM width 99999999999999999999", E_UNSUP, "per side", .s = "bigsize.pfm"),
    IOF("clv_image_read", "truncated HDR", E_FMT, "truncated", .s = "trunc.hdr"),
    IOF("clv_image_read", "HDR header -Y 100000 +X 10", E_UNSUP, "100000", .s = "huge.hdr"),
    IOF("clv_image_read", "HDR header 4096x4096 over a 2^20 limit", E_ARG, "limit",
        .s = "limit.hdr", .d0 = 1 << 20),
    IOF("clv_image_read", "HDR in XYZE", E_UNSUP, "xyze", .s = "xyze.hdr"),
    IOF("clv_image_read", "HDR without the blank line", E_FMT, "blank line", .s = "noblank.hdr"),
    IOF("clv_image_read", "HDR run longer than the scanline", E_FMT, "overflows", .s = "run.hdr"),
    IOF("clv_image_read", "truncated EXR", E_FMT, "exr", .s = "trunc.exr"),
    IOF("clv_image_read", "EXR data window 100000 wide", E_UNSUP, "100000", .s = "huge.exr"),
    IOF("clv_image_read", "EXR data window 4096x4096 over a 2^20 limit", E_ARG, "limit",
        .s = "limit.exr", .d0 = 1 << 20),
    IOF("clv_png_read", "NULL path", E_ARG, "NULL", .s = NULL),
    IOF("clv_png_read", "NULL out", E_ARG, "NULL", .s = "good.png", .flags = F_NULLP),
    IOF("clv_png_read", "missing file", E_IO, "missing.png", .s = "missing.png"),
    IOF("clv_png_read", "empty file", E_FMT, "empty", .s = "empty"),
    IOF("clv_png_read", "a JPEG", E_FMT, "signature", .s = "good.jpg"),
    IOF("clv_png_read", "truncated", E_FMT, "truncated", .s = "trunc.png"),
    IOF("clv_png_read", "header 70000x10", E_UNSUP, "70000", .s = "huge.png"),
    IOF("clv_png_read", "header over the limit", E_ARG, "limit", .s = "limit.png", .d0 = 1 << 20),
    IOF("clv_jpeg_read", "NULL path", E_ARG, "NULL", .s = NULL),
    IOF("clv_jpeg_read", "missing file", E_IO, "missing.jpg", .s = "missing.jpg"),
    IOF("clv_jpeg_read", "empty file", E_FMT, "empty", .s = "empty"),
    IOF("clv_jpeg_read", "a PNG", E_FMT, "not a JPEG", .s = "good.png"),
    IOF("clv_jpeg_read", "truncated", E_FMT, "truncated", .s = "trunc.jpg"),
    IOF("clv_jpeg_read", "header 60000x60000", E_ARG, "limit", .s = "huge.jpg"),
    IOF("clv_jpeg_read", "CMYK", E_UNSUP, "CMYK", .s = "data:cmyk.jpg"),
    IOF("clv_exr_read", "NULL path", E_ARG, "NULL", .s = NULL),
    IOF("clv_exr_read", "missing file", E_IO, "missing.exr", .s = "missing.exr"),
    IOF("clv_exr_read", "empty file", E_FMT, "exr", .s = "empty"),
    IOF("clv_exr_read", "a PNG", E_FMT, "exr", .s = "good.png"),
    IOF("clv_exr_read", "truncated", E_FMT, "exr", .s = "trunc.exr"),
    IOF("clv_exr_read", "data window 100000 wide", E_UNSUP, "100000", .s = "huge.exr"),
    IOF("clv_exr_read", "over the limit", E_ARG, "limit", .s = "limit.exr", .d0 = 1 << 20),
    VAL("clv_io_has_exr", "0 or 1"),
    IOF("clv_hdr_read", "NULL out", E_ARG, "NULL", .s = "good.hdr", .flags = F_NULLP),
    IOF("clv_hdr_read", "missing file", E_IO, "missing.hdr", .s = "missing.hdr"),
    IOF("clv_hdr_read", "empty file", E_FMT, "empty", .s = "empty"),
    IOF("clv_hdr_read", "a PFM", E_FMT, "Radiance", .s = "good.pfm"),
    IOF("clv_hdr_read", "truncated", E_FMT, "truncated", .s = "trunc.hdr"),
    IOF("clv_hdr_read", "header -Y 100000 +X 10", E_UNSUP, "100000", .s = "huge.hdr"),
    IOF("clv_hdr_read", "header over the limit", E_ARG, "limit", .s = "limit.hdr", .d0 = 1 << 20),
    IOF("clv_hdr_read", "orientation +Y -X", E_UNSUP, "orientation", .s = "orient.hdr"),
    IOF("clv_pfm_read", "NULL path", E_ARG, "NULL", .s = NULL),
    IOF("clv_pfm_read", "missing file", E_IO, "missing.pfm", .s = "missing.pfm"),
    IOF("clv_pfm_read", "empty file", E_FMT, "empty", .s = "empty"),
    IOF("clv_pfm_read", "an HDR", E_FMT, "not a PFM", .s = "good.hdr"),
    IOF("clv_pfm_read", "truncated", E_FMT, "truncated", .s = "trunc.pfm"),
    IOF("clv_pfm_read", "header 100000x10", E_UNSUP, "100000", .s = "huge.pfm"),
    IOF("clv_pfm_read", "header over the limit", E_ARG, "limit", .s = "limit.pfm", .d0 = 1 << 20),
    IOF("clv_pfm_read", "header 4096x4096, 40 bytes of data", E_FMT, "truncated",
        .s = "limit.pfm"),
    IOF("clv_flo_read", "NULL path", E_ARG, "NULL", .s = NULL),
    IOF("clv_flo_read", "NULL out", E_ARG, "NULL", .s = "good.flo", .flags = F_NULLP),
    IOF("clv_flo_read", "missing file", E_IO, "missing.flo", .s = "missing.flo"),
    IOF("clv_flo_read", "empty file", E_FMT, "empty", .s = "empty"),
    IOF("clv_flo_read", "a PNG", E_FMT, "PIEH", .s = "good.png"),
    IOF("clv_flo_read", "8 bytes", E_FMT, "truncated", .s = "short.flo"),
    IOF("clv_flo_read", "width -5", E_FMT, "size", .s = "neg.flo"),
    IOF("clv_flo_read", "width 100000", E_UNSUP, "100000", .s = "huge.flo"),
    IOF("clv_flo_read", "4096x4096 over the limit", E_ARG, "limit", .s = "limit.flo",
        .d0 = 1 << 20),
    IOF("clv_flo_read", "4096x4096 header only", E_FMT, "truncated", .s = "limit.flo"),
    IOF("clv_flo_read", "truncated data", E_FMT, "truncated", .s = "trunc.flo"),

    /* ---- io.h: writers. Outputs go to the scratch dir; nothing may be left. ---- */
    IOF("clv_image_write", "NULL path", E_ARG, "NULL", .a = H_U8, .s = NULL),
    IOF("clv_image_write", "NULL image", E_ARG, "NULL", .a = H_NULL, .s = "w.png", .flags = F_OUT),
    IOF("clv_image_write", "unknown extension", E_UNSUP, "extension", .a = H_U8, .s = "w.txt",
        .flags = F_OUT),
    IOF("clv_image_write", "no extension", E_UNSUP, "extension", .a = H_U8, .s = "wnoext",
        .flags = F_OUT),
    IOF("clv_image_write", "only \".png\"", E_UNSUP, "extension", .a = H_U8, .s = ".png",
        .flags = F_OUT),
    IOF("clv_image_write", "f32 as JPEG", E_UNSUP, "u8", .a = H_F32, .s = "w.jpg", .flags = F_OUT),
    IOF("clv_image_write", "quality 101", E_ARG, "quality", .a = H_U8, .s = "w.jpg", .i0 = 101,
        .flags = F_OUT),
    IOF("clv_image_write", "into a missing directory", E_IO, "missing-dir", .a = H_U8,
        .s = "missing-dir/w.png", .flags = F_OUT),
    IOF("clv_image_write", "below a regular file", E_IO, "afile", .a = H_U8, .s = "afile/w.png",
        .flags = F_OUT),
    IOF("clv_image_write", "onto a directory", E_IO, "adir.png", .a = H_U8, .s = "adir.png",
        .flags = F_OUT),
    IOF("clv_image_write", "stride whose last row overflows size_t", E_ARG, "stride",
        .a = H_HUGE, .s = "w.png", .flags = F_OUT),
    IOF("clv_png_write", "NULL path", E_ARG, "NULL", .a = H_U8, .s = NULL),
    IOF("clv_png_write", "empty path", E_ARG, "empty", .a = H_U8, .s = "", .flags = F_OUT),
    IOF("clv_png_write", "NULL image", E_ARG, "NULL", .a = H_NULL, .s = "w.png", .flags = F_OUT),
    IOF("clv_png_write", "data NULL", E_ARG, "NULL", .a = H_NODATA, .s = "w.png", .flags = F_OUT),
    IOF("clv_png_write", "f32", E_UNSUP, "f32", .a = H_F32, .s = "w.png", .flags = F_OUT),
    IOF("clv_png_write", "2 channels", E_ARG, "channels", .a = H_U8C2, .s = "w.png", .flags = F_OUT),
    IOF("clv_png_write", "stride smaller than a row", E_ARG, "stride", .a = H_SHORT, .s = "w.png",
        .flags = F_OUT),
    IOF("clv_png_write", "stride whose last row overflows size_t", E_ARG, "stride", .a = H_HUGE,
        .s = "w.png", .flags = F_OUT),
    IOF("clv_png_write", "width 0", E_ARG, "size", .a = H_ZERO, .s = "w.png", .flags = F_OUT),
    IOF("clv_png_write", "width 70000", E_ARG, "size", .a = H_WIDE, .s = "w.png", .flags = F_OUT),
    IOF("clv_png_write", "type 99", E_ARG, "type", .a = H_BADTYPE, .s = "w.png", .flags = F_OUT),
    IOF("clv_png_write", "below a regular file", E_IO, "afile", .a = H_U8, .s = "afile/w.png",
        .flags = F_OUT),
    IOF("clv_png_write", "onto a directory", E_IO, "adir", .a = H_U8, .s = "adir", .flags = F_OUT),
    IOF("clv_jpeg_write", "NULL path", E_ARG, "NULL", .a = H_U8, .s = NULL),
    IOF("clv_jpeg_write", "u16", E_UNSUP, "u16", .a = H_U16, .s = "w.jpg", .flags = F_OUT),
    IOF("clv_jpeg_write", "RGBA", E_UNSUP, "channels", .a = H_U8C4, .s = "w.jpg", .flags = F_OUT),
    IOF("clv_jpeg_write", "quality -1", E_ARG, "quality", .a = H_U8, .s = "w.jpg", .i0 = -1,
        .flags = F_OUT),
    IOF("clv_jpeg_write", "quality 101", E_ARG, "quality", .a = H_U8, .s = "w.jpg", .i0 = 101,
        .flags = F_OUT),
    IOF("clv_jpeg_write", "stride whose last row overflows size_t", E_ARG, "stride",
        .a = H_HUGE, .s = "w.jpg", .flags = F_OUT),
    IOF("clv_jpeg_write", "into a missing directory", E_IO, "missing-dir", .a = H_U8,
        .s = "missing-dir/w.jpg", .flags = F_OUT),
    IOF("clv_exr_write", "NULL path", E_ARG, "NULL", .a = H_F32, .s = NULL),
    IOF("clv_exr_write", "u8", E_UNSUP, "u8", .a = H_U8, .s = "w.exr", .flags = F_OUT),
    IOF("clv_exr_write", "2-channel f32", E_ARG, "channels", .a = H_FLOW, .s = "w.exr",
        .flags = F_OUT),
    IOF("clv_exr_write", "stride whose last row overflows size_t", E_ARG, "stride",
        .a = H_HUGE_F32, .s = "w.exr", .flags = F_OUT),
    IOF("clv_exr_write", "into a missing directory", E_IO, "missing-dir", .a = H_F32,
        .s = "missing-dir/w.exr", .flags = F_OUT),
    IOF("clv_hdr_write", "NULL path", E_ARG, "NULL", .a = H_F32, .s = NULL),
    IOF("clv_hdr_write", "u16", E_UNSUP, "u16", .a = H_U16, .s = "w.hdr", .flags = F_OUT),
    IOF("clv_hdr_write", "RGBA", E_UNSUP, "alpha", .a = H_F32C4, .s = "w.hdr", .flags = F_OUT),
    IOF("clv_hdr_write", "stride whose last row overflows size_t", E_ARG, "stride",
        .a = H_HUGE_F32, .s = "w.hdr", .flags = F_OUT),
    IOF("clv_hdr_write", "into a missing directory", E_IO, "missing-dir", .a = H_F32,
        .s = "missing-dir/w.hdr", .flags = F_OUT),
    IOF("clv_pfm_write", "NULL path", E_ARG, "NULL", .a = H_F32, .s = NULL),
    IOF("clv_pfm_write", "u8", E_UNSUP, "u8", .a = H_U8, .s = "w.pfm", .flags = F_OUT),
    IOF("clv_pfm_write", "RGBA", E_UNSUP, "4", .a = H_F32C4, .s = "w.pfm", .flags = F_OUT),
    IOF("clv_pfm_write", "stride whose last row overflows size_t", E_ARG, "stride",
        .a = H_HUGE_F32, .s = "w.pfm", .flags = F_OUT),
    IOF("clv_pfm_write", "onto a directory", E_IO, "adir", .a = H_F32, .s = "adir",
        .flags = F_OUT),
    IOF("clv_flo_write", "NULL path", E_ARG, "NULL", .a = H_FLOW, .s = NULL),
    IOF("clv_flo_write", "NULL flow", E_ARG, "NULL", .a = H_NULL, .s = "w.flo", .flags = F_OUT),
    IOF("clv_flo_write", "data NULL", E_ARG, "NULL", .a = H_NODATA, .s = "w.flo", .flags = F_OUT),
    IOF("clv_flo_write", "3-channel f32", E_ARG, "2-channel", .a = H_FLOW_C3, .s = "w.flo",
        .flags = F_OUT),
    IOF("clv_flo_write", "2-channel u8", E_ARG, "2-channel", .a = H_FLOW_U8, .s = "w.flo",
        .flags = F_OUT),
    IOF("clv_flo_write", "stride whose last row overflows size_t", E_ARG, "stride",
        .a = H_HUGE_FLOW, .s = "w.flo", .flags = F_OUT),
    IOF("clv_flo_write", "below a regular file", E_IO, "afile", .a = H_FLOW, .s = "afile/w.flo",
        .flags = F_OUT),
    VAL("clv_io_last_error", "names the last failure, never NULL"),
    VAL("clv_io_track_temporary", "NULL and a 4096-byte path: -1; a path: a slot"),
    VAL("clv_io_untrack_temporary", "-1 and out-of-range slots are ignored"),
    VAL("clv_remove_temporaries", "removes tracked files only, keeps errno"),
};

#define NROWS (sizeof rows / sizeof rows[0])

/* ---- helpers ------------------------------------------------------------ */

static int ci_contains(const char *hay, const char *needle)
{
    if (!hay || !needle)
        return 0;
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return n == 0;
}

static clv_image *IM(int slot)
{
    REQUIRE(slot >= 0 && slot < I_COUNT, "image slot %d", slot);
    return F.im[slot];
}

static clv_pyramid *PY(int slot)
{
    REQUIRE(slot >= 0 && slot < P_COUNT, "pyramid slot %d", slot);
    return F.py[slot];
}

static clv_host_image *HI(int slot)
{
    REQUIRE(slot >= 0 && slot < H_COUNT, "host image slot %d", slot);
    return slot == H_NULL ? NULL : &F.hi[slot];
}

static clv_context *CTX(const row *r)
{
    return (r->flags & F_NOCTX) ? NULL : F.ctx;
}

static int nullp(const row *r)
{
    return (r->flags & F_NULLP) != 0;
}

static int is_zeroed(const clv_host_image *h)
{
    return h->width == 0 && h->height == 0 && h->channels == 0 && h->stride == 0 &&
           h->data == NULL && (int)h->type == 0;
}

/* Every value of an f32 device image finite (1 when the image is not f32). */
static int all_finite(clv_image *img)
{
    if (clv_image_type(img) != CLV_F32)
        return 1;
    size_t n = (size_t)clv_image_width(img) * (size_t)clv_image_height(img) *
               (size_t)clv_image_channels(img);
    float *buf = malloc(n * sizeof *buf);
    REQUIRE(buf, "malloc");
    REQUIRE_OK(F.ctx, clv_image_download(img, buf, 0));
    int ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= isfinite(buf[i]) != 0;
    free(buf);
    return ok;
}

/* Fields of the parameter structs, set by name from a row. */
typedef struct field {
    const char *name;
    size_t off;
    char kind; /* 'i' int, 'd' double, 'm' image slot (const clv_image *) */
} field;

#define FI(type, f) {#f, offsetof(type, f), 'i'}
#define FD(type, f) {#f, offsetof(type, f), 'd'}

static const field grid_fields[] = {FD(clv_grid_params, s_s), FD(clv_grid_params, s_r),
                                    FD(clv_grid_params, blur_sigma)};
static const field tm_fields[] = {
    FD(clv_tonemap_params, contrast), FD(clv_tonemap_params, exposure),
    FD(clv_tonemap_params, saturation), FD(clv_tonemap_params, gamma),
    FD(clv_tonemap_params, blend), FD(clv_tonemap_params, sigma_space),
    FD(clv_tonemap_params, sigma_range)};
static const field corner_fields[] = {
    FI(clv_corner_params, max_corners), FD(clv_corner_params, quality_level),
    FD(clv_corner_params, min_distance), FI(clv_corner_params, block_size),
    FI(clv_corner_params, gradient_size), {"mask", offsetof(clv_corner_params, mask), 'm'}};
static const field lk_fields[] = {
    FI(clv_lk_params, win_width), FI(clv_lk_params, win_height), FI(clv_lk_params, levels),
    FI(clv_lk_params, max_iterations), FD(clv_lk_params, epsilon),
    FD(clv_lk_params, min_eig_threshold), FI(clv_lk_params, use_initial_flow)};
static const field fb_fields[] = {
    FD(clv_farneback_params, pyr_scale), FI(clv_farneback_params, levels),
    FI(clv_farneback_params, winsize), FI(clv_farneback_params, iterations),
    FI(clv_farneback_params, poly_n), FD(clv_farneback_params, poly_sigma),
    FI(clv_farneback_params, gaussian_window), FI(clv_farneback_params, use_initial_flow)};

static void set_field(void *base, const field *fs, size_t n, const row *r)
{
    if (!r->s)
        return;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(fs[i].name, r->s) != 0)
            continue;
        unsigned char *p = (unsigned char *)base + fs[i].off;
        if (fs[i].kind == 'd') {
            double v = r->v;
            memcpy(p, &v, sizeof v);
        } else if (fs[i].kind == 'i') {
            int v = (int)r->v;
            memcpy(p, &v, sizeof v);
        } else {
            const clv_image *m = IM((int)r->v);
            memcpy(p, &m, sizeof m);
        }
        return;
    }
    REQUIRE(0, "row '%s': no parameter field '%s'", r->what, r->s);
}

#define SET(base, fields, r) set_field(&(base), fields, sizeof fields / sizeof fields[0], r)

/* ---- handlers: one per public function, each returns the result the row
 * checks (a clv_status, or 1 when a value came out right). ---- */

typedef long (*handler)(const row *r);

static long h_status_string(const row *r)
{
    if (r->s)
        return strcmp(clv_status_string((clv_status)r->i0), r->s) == 0;
    /* every pinned value: a string of its own, none NULL or "unknown status" */
    const char *seen[11];
    for (int v = 0; v >= -10; v--) {
        const char *t = clv_status_string((clv_status)v);
        if (!t || !*t || strcmp(t, "unknown status") == 0)
            return 0;
        for (int k = 0; k < -v; k++)
            if (strcmp(seen[k], t) == 0)
                return 0;
        seen[-v] = t;
    }
    return 1;
}

static long h_options_default(const row *r)
{
    (void)r;
    clv_context_options o = clv_context_options_default();
    return !o.device && !o.kernel_path && !o.cache_dir && o.cache == 0 && o.profiling == 0 &&
           o.debug == 0;
}

static long h_context_create(const row *r)
{
    clv_context_options o = clv_context_options_default();
    clv_context *c = F.ctx; /* must become NULL on failure */
    if (r->i0 == 1)
        o.device = r->s;
    if (r->i0 == 2)
        o.kernel_path = path_in(r->s);
    if (r->i0 == 4)
        o.cache = 2;
    clv_status s = clv_context_create(r->i0 ? &o : NULL, r->i0 == 3 ? NULL : &c);
    if (r->i0 != 3) {
        if (s != CLV_OK)
            T(c == NULL, "clv_context_create: *out not NULL after a failure");
        else
            clv_context_release(c);
    }
    return s;
}

static long h_create_error(const row *r)
{
    (void)r;
    clv_status s = clv_context_create(NULL, NULL);
    const char *m = clv_context_create_error();
    return s == CLV_ERROR_INVALID_ARGUMENT && m && ci_contains(m, "out");
}

static long h_context_release(const row *r)
{
    (void)r;
    clv_context_release(NULL);
    return 1;
}

static long h_finish(const row *r) { return clv_finish(CTX(r)); }

static long h_cache_warm(const row *r)
{
    static const char *const bad[] = {"transpose", "no_such_op"};
    static const char *const null_name[] = {NULL};
    clv_cache_warm_report rep;
    memset(&rep, 0x55, sizeof rep);
    clv_status s = r->i0 == 1   ? clv_cache_warm(CTX(r), NULL, 1, &rep)
                   : r->i0 == 2 ? clv_cache_warm(CTX(r), bad, -1, &rep)
                   : r->i0 == 3 ? clv_cache_warm(CTX(r), null_name, 1, &rep)
                                : clv_cache_warm(CTX(r), bad, 2, &rep);
    T(rep.ops == 0 && rep.calls == 0 && rep.programs_built == 0,
      "clv_cache_warm: a refused call must zero the report and run nothing");
    return s;
}

/* i0 0: NULL out; 1: a regular file (this test's own binary) as the directory. */
static long h_cache_dir(const row *r, int clear)
{
    clv_cache_dir_info info;
    if (r->i0 == 0)
        return clear ? clv_cache_clear("/tmp", NULL) : clv_cache_info("/tmp", NULL);
    clv_status s = clear ? clv_cache_clear("/proc/self/exe", &info)
                         : clv_cache_info("/proc/self/exe", &info);
    T(info.message[0] && !info.exists, "clv_cache_%s: a file as the directory: explained",
      clear ? "clear" : "info");
    return s;
}
static long h_cache_info(const row *r) { return h_cache_dir(r, 0); }
static long h_cache_clear(const row *r) { return h_cache_dir(r, 1); }

static long h_last_error(const row *r)
{
    (void)r;
    const char *m = clv_last_error(NULL);
    return m && m[0] == '\0';
}

static long h_device_time(const row *r)
{
    double ms = -1.0;
    return clv_last_op_device_time(CTX(r), r->i0 == 1 ? NULL : &ms);
}

static long h_get_stats(const row *r)
{
    clv_context_stats st;
    return clv_context_get_stats(CTX(r), r->i0 == 1 ? NULL : &st);
}

static long h_device_name(const row *r)
{
    (void)r;
    const char *a = clv_context_device_name(NULL), *b = clv_context_device_name(F.ctx);
    return a && !*a && b && *b;
}

static long h_platform_name(const row *r)
{
    (void)r;
    const char *a = clv_context_platform_name(NULL), *b = clv_context_platform_name(F.ctx);
    return a && !*a && b && *b;
}

static long h_list_devices(const row *r)
{
    char buf[8] = "xxxxxxx";
    clv_status s = clv_list_devices(r->i0 == 0 ? NULL : buf, r->i0 == 0 ? 8 : r->i0 == 1 ? 0 : 1);
    if (r->i0 == 1)
        T(buf[0] == 'x', "clv_list_devices: wrote into a buffer of size 0");
    if (r->i0 == 2 && s == CLV_OK)
        T(buf[0] == '\0' && buf[1] == 'x', "clv_list_devices: size 1 must give \"\"");
    return s;
}

static long h_device_resolve(const row *r)
{
    clv_device_choice c;
    if (r->i0 == 0)
        return clv_device_resolve("0:0", NULL);
    memset(&c, 0x55, sizeof c);
    clv_status s = clv_device_resolve(r->i0 == 1 ? "no-such-device-xyz" : "0:0", &c);
    if (r->i0 == 1)
        T(strstr(c.explanation, "'no-such-device-xyz' matches no device") && !c.device_name[0],
          "clv_device_resolve: no match must be explained, no device named: '%.200s'",
          c.explanation);
    if (r->i0 == 2 && s == CLV_OK)
        T(c.platform_index == 0 && c.device_index == 0 && c.matches == 1 && !c.by_name &&
              strcmp(c.source, "argument") == 0 && strcmp(c.spec, "0:0") == 0 &&
              c.device_name[0] && strstr(c.explanation, "'0:0' is device 0:0"),
          "clv_device_resolve(\"0:0\"): '%.200s'", c.explanation);
    return s;
}

static long h_device_info_get(const row *r)
{
    clv_device_info in;
    if (r->i0 == 0)
        return clv_device_info_get("0:0", NULL);
    memset(&in, 0x55, sizeof in);
    clv_status s = clv_device_info_get(r->i0 == 1 ? "no-such-device-xyz" : "0:0", &in);
    if (s != CLV_OK) {
        T(in.name[0] == '\0' && in.compute_units == 0, "clv_device_info_get: *out not zeroed");
        return s;
    }
    clv_device_choice c;
    T(clv_device_resolve("0:0", &c) == CLV_OK && strcmp(c.device_name, in.name) == 0 &&
          strcmp(c.type, in.type) == 0,
      "clv_device_info_get(\"0:0\"): %s, resolve names %s", in.name, c.device_name);
    T(in.platform_index == 0 && in.device_index == 0 && in.compute_units > 0 &&
          in.max_work_group_size > 0 && in.local_mem_size > 0 && in.max_mem_alloc_size > 0 &&
          in.global_mem_size >= in.max_mem_alloc_size && in.opencl_c_version[0] &&
          in.fp16 == ((in.extensions & CLV_EXT_FP16) != 0),
      "clv_device_info_get(\"0:0\"): implausible limits");
    return s;
}

static long h_context_device_info(const row *r)
{
    clv_device_info in;
    memset(&in, 0x55, sizeof in);
    if (r->i0 == 0)
        return clv_context_device_info(NULL, &in);
    if (r->i0 == 1)
        return clv_context_device_info(F.ctx, NULL);
    clv_status s = clv_context_device_info(F.ctx, &in);
    if (s == CLV_OK)
        T(strcmp(in.name, clv_context_device_name(F.ctx)) == 0 &&
              strcmp(in.platform_name, clv_context_platform_name(F.ctx)) == 0 &&
              in.platform_index >= 0 && in.device_index >= 0 && in.max_work_group_size > 0,
          "clv_context_device_info: '%s' at %d:%d", in.name, in.platform_index,
          in.device_index);
    return s;
}

static long h_extension_name(const row *r)
{
    (void)r;
    int ok = clv_extension_name(0) == NULL && clv_extension_name(3) == NULL &&
             clv_extension_name(1u << 7) == NULL && clv_extension_name(1u << 31) == NULL;
    ok = ok && clv_extension_name(CLV_EXT_FP16) && strcmp(clv_extension_name(CLV_EXT_FP16), "cl_khr_fp16") == 0;
    ok = ok && clv_extension_name(CLV_EXT_BYTE_ADDRESSABLE_STORE) &&
         strcmp(clv_extension_name(CLV_EXT_BYTE_ADDRESSABLE_STORE),
                "cl_khr_byte_addressable_store") == 0;
    for (unsigned b = 0; b < 7; b++)
        ok = ok && clv_extension_name(1u << b) && strncmp(clv_extension_name(1u << b), "cl_khr_", 7) == 0;
    return ok;
}

static long h_pocl_affinity_note(const row *r)
{
    (void)r;
    char list[4096];
    if (clv_list_devices(list, sizeof list) != CLV_OK) /* the first enumeration decides */
        return 0;
    const char *n = clv_pocl_affinity_note();
    return n && strncmp(n, "POCL_AFFINITY", 13) == 0 && !strchr(n, '\n') &&
           clv_pocl_affinity_note() == n;
}

static long h_image_placeholder(const row *r)
{
    clv_image *img = (clv_image *)&img; /* must become NULL on failure */
    clv_status s;
    switch (r->i0) {
    case 0: s = clv_image_placeholder(NULL, 5, 4, 1, CLV_U8, &img); break;
    case 1: s = clv_image_placeholder(F.ctx, 0, 0, 1, CLV_U8, &img); break;
    case 2: s = clv_image_placeholder(F.ctx, 5, 4, 5, CLV_U8, &img); break;
    case 3:
        s = clv_image_placeholder(F.ctx, CLV_MAX_DIMENSION, CLV_MAX_DIMENSION, 4, CLV_F32, &img);
        break;
    case 4: return clv_image_placeholder(F.ctx, 5, 4, 1, CLV_U8, NULL);
    default: s = clv_image_placeholder(F.ctx, 5, 4, 1, CLV_U8, &img); break;
    }
    if (s != CLV_OK) {
        T(img == NULL, "clv_image_placeholder: *out not NULL after a failure");
        return s;
    }
    T(clv_image_width(img) == 5 && clv_image_height(img) == 4 && clv_image_channels(img) == 1 &&
          clv_image_pitch(img) == 64 && clv_image_cl_mem(img) == NULL,
      "clv_image_placeholder: shape or memory");
    clv_image_release(img);
    return s;
}

static long h_op_supported(const row *r)
{
    const clv_op_desc *g = clv_op_find("gaussian_blur");
    clv_image *a = NULL, *b = NULL;
    char m[256];
    clv_status s;
    if (r->i0 == 0)
        return clv_op_supported(NULL, g, NULL, 0, m, sizeof m);
    if (r->i0 == 1)
        return clv_op_supported(F.ctx, NULL, NULL, 0, m, sizeof m);
    REQUIRE_OK(F.ctx, clv_image_placeholder(F.ctx, 5, 4, 1, CLV_U8, &a));
    REQUIRE_OK(F.ctx, clv_image_placeholder(F.ctx, r->i0 == 3 ? 6 : 5, 4, 1, CLV_U8, &b));
    clv_arg args[] = {CLV_ARG_IMAGE("src", a), CLV_ARG_IMAGE("dst", b),
                      CLV_ARG_DOUBLE(r->i0 == 2 ? "sigma" : "sigma_x", r->i0 == 4 ? NAN : 1.5)};
    if (r->i0 == 5) {
        s = clv_op_supported(F.ctx, g, args, 3, NULL, 0);
    } else if (r->i0 == 6) {
        s = clv_op_call(F.ctx, g, args, 3);
    } else {
        s = clv_op_supported(F.ctx, g, args, 3, m, sizeof m);
        T(strcmp(m, clv_last_error(F.ctx)) == 0, "clv_op_supported: msg '%s' is not the error",
          m);
    }
    clv_image_release(a);
    clv_image_release(b);
    return s;
}

static long h_version(const row *r)
{
    (void)r;
    const char *v = clv_version();
    return v && isdigit((unsigned char)v[0]) && strchr(v, '.') != NULL;
}

static long h_live_objects(const row *r)
{
    (void)r;
    clv_debug_live_objects(NULL);
    clv_live_objects lo;
    memset(&lo, 0xFF, sizeof lo);
    clv_debug_live_objects(&lo);
    /* two contexts with their queues and (at least) the fixture's images */
    return lo.contexts >= 2 && lo.queues >= 2 && lo.mem_objects >= I_COUNT - 1 &&
           lo.mem_objects < 100000;
}

static long h_fail_at(const row *r)
{
    (void)r;
    return clv_debug_fail_at(0);
}

static long h_cl_calls(const row *r)
{
    (void)r;
    uint64_t a = clv_debug_cl_calls();
    if (clv_transpose(F.ctx, F.im[I_U8], F.im[I_U8T]) != CLV_OK || clv_finish(F.ctx) != CLV_OK)
        return 0;
    return clv_debug_cl_calls() > a;
}

static long h_injected(const row *r)
{
    (void)r;
    return clv_debug_injected_call() != NULL;
}

static long h_run_test_kernel(const row *r)
{
    const char *path = r->i0 == 1 ? NULL : r->i0 == 3 ? path_in("missing.cl") : path_in("empty");
    return clv_debug_run_test_kernel(CTX(r), path, "k", 1, r->i0 == 2 ? 0 : 1);
}

static long h_type_size(const row *r)
{
    (void)r;
    return clv_pixel_type_size(CLV_U8) == 1 && clv_pixel_type_size(CLV_U16) == 2 &&
           clv_pixel_type_size(CLV_F32) == 4 && clv_pixel_type_size((clv_pixel_type)0) == 0 &&
           clv_pixel_type_size((clv_pixel_type)99) == 0;
}

static long h_type_name(const row *r)
{
    (void)r;
    return !strcmp(clv_pixel_type_name(CLV_U8), "u8") &&
           !strcmp(clv_pixel_type_name(CLV_U16), "u16") &&
           !strcmp(clv_pixel_type_name(CLV_F32), "f32") &&
           !strcmp(clv_pixel_type_name((clv_pixel_type)0), "?") &&
           !strcmp(clv_pixel_type_name((clv_pixel_type)-3), "?");
}

static long h_image_create(const row *r)
{
    clv_image *img = F.im[I_U8]; /* must become NULL on failure */
    clv_status s = clv_image_create(CTX(r), r->i0, r->i1, r->i2, (clv_pixel_type)(int)r->d0,
                                    nullp(r) ? NULL : &img);
    if (!nullp(r)) {
        if (s != CLV_OK)
            T(img == NULL, "clv_image_create: *out not NULL after a failure");
        else
            clv_image_release(img);
    }
    return s;
}

static long h_image_release(const row *r)
{
    (void)r;
    clv_image_release(NULL);
    return 1;
}

static long h_width(const row *r)
{
    (void)r;
    return clv_image_width(NULL) == 0 && clv_image_width(F.im[I_U8T]) == H;
}

static long h_height(const row *r)
{
    (void)r;
    return clv_image_height(NULL) == 0 && clv_image_height(F.im[I_U8T]) == W;
}

static long h_channels(const row *r)
{
    (void)r;
    return clv_image_channels(NULL) == 0 && clv_image_channels(F.im[I_U8C3]) == 3;
}

static long h_type(const row *r)
{
    (void)r;
    return (int)clv_image_type(NULL) == 0 && clv_image_type(F.im[I_U16]) == CLV_U16;
}

static long h_pitch(const row *r)
{
    (void)r;
    size_t p = clv_image_pitch(F.im[I_F32C3]);
    return clv_image_pitch(NULL) == 0 && p % 64 == 0 && p >= W * 3 * sizeof(float);
}

/* kind 0 upload, 1 asynchronous upload, 2 download. i0: 0 NULL image, 1 NULL
 * host pointer, 2 stride one byte short of a row, 3 stride SIZE_MAX / 2. */
static long transfer(const row *r, int kind)
{
    static unsigned char buf[W * H * 16];
    clv_image *img = IM(r->a);
    void *host = r->i0 == 1 ? NULL : buf;
    size_t row_bytes = img ? (size_t)clv_image_width(img) * (size_t)clv_image_channels(img) *
                                 clv_pixel_type_size(clv_image_type(img))
                           : 0;
    size_t stride = r->i0 == 2 ? row_bytes - 1 : r->i0 == 3 ? SIZE_MAX / 2 : 0;
    clv_status s = kind == 0   ? clv_image_upload(img, host, stride)
                   : kind == 1 ? clv_image_upload_async(img, host, stride)
                               : clv_image_download(img, host, stride);
    if (kind == 1 && s == CLV_OK)
        REQUIRE_OK(F.ctx, clv_image_wait(img));
    return s;
}

static long h_upload(const row *r) { return transfer(r, 0); }
static long h_upload_async(const row *r) { return transfer(r, 1); }
static long h_download(const row *r) { return transfer(r, 2); }
static long h_image_wait(const row *r) { return clv_image_wait(IM(r->a)); }

static long h_border_from_string(const row *r)
{
    clv_border b = (clv_border)77;
    clv_status s = clv_border_from_string(r->s, r->i0 == 1 ? NULL : &b);
    if (s == CLV_OK)
        T(b == CLV_BORDER_REFLECT101, "'%s' parsed as %d", r->s, (int)b);
    else if (r->i0 != 1)
        T((int)b == 77, "clv_border_from_string: *out written on failure");
    return s;
}

static long h_border_name(const row *r)
{
    (void)r;
    return !strcmp(clv_border_name((clv_border)5), "?") &&
           !strcmp(clv_border_name((clv_border)-1), "?") &&
           !strcmp(clv_border_name(CLV_BORDER_WRAP), "wrap");
}

static long h_transpose(const row *r) { return clv_transpose(CTX(r), IM(r->a), IM(r->b)); }
static long h_resize(const row *r) { return clv_resize(CTX(r), IM(r->a), IM(r->b)); }

static long h_box(const row *r)
{
    return clv_box_filter(CTX(r), IM(r->a), IM(r->b), r->i0, r->i1, (clv_border)r->i2);
}

static long h_gaussian(const row *r)
{
    clv_status s = clv_gaussian_blur(CTX(r), IM(r->a), IM(r->b), r->d0, r->d1, r->i0, r->i1,
                                     (clv_border)r->i2);
    if (s == CLV_OK && (r->flags & F_IDENT)) {
        unsigned char out[W * H];
        REQUIRE_OK(F.ctx, clv_image_download(IM(r->b), out, 0));
        T(memcmp(out, F.u8, sizeof out) == 0, "%s: the image changed", r->what);
    }
    return s;
}

static long h_bilateral(const row *r)
{
    return clv_bilateral(CTX(r), IM(r->a), IM(r->b), r->d0, r->d1, r->i0, (clv_border)r->i2);
}

static long h_grid_default(const row *r)
{
    (void)r;
    clv_grid_params p = clv_grid_params_default();
    return p.s_s == 16.0 && p.s_r == 25.5 && p.blur_sigma == 1.0 &&
           clv_bilateral_grid(F.ctx, F.im[I_U8], F.im[I_U8B], &p) == CLV_OK &&
           clv_finish(F.ctx) == CLV_OK;
}

static long h_grid(const row *r)
{
    clv_grid_params p = clv_grid_params_default();
    SET(p, grid_fields, r);
    clv_status s = clv_bilateral_grid(CTX(r), IM(r->a), IM(r->b), nullp(r) ? NULL : &p);
    if (s == CLV_OK) {
        REQUIRE_OK(F.ctx, clv_finish(F.ctx));
        T(all_finite(IM(r->b)), "%s: non-finite output from finite input", r->what);
    }
    return s;
}

static long h_grid_cross(const row *r)
{
    clv_grid_params p = clv_grid_params_default();
    SET(p, grid_fields, r);
    return clv_bilateral_grid_cross(CTX(r), IM(r->a), IM(r->b), IM(r->c), &p);
}

static long h_tonemap_default(const row *r)
{
    (void)r;
    clv_tonemap_params p = clv_tonemap_params_default();
    return p.contrast == 5.0 && p.exposure == 0.0 && p.saturation == 1.0 && p.gamma == 0.0 &&
           p.blend == 1.0 && p.sigma_space == 0.0 && p.sigma_range == 1.3 &&
           clv_tonemap_local(F.ctx, F.im[I_F32C3], F.im[I_U8C3], &p) == CLV_OK &&
           clv_finish(F.ctx) == CLV_OK;
}

static long h_tonemap(const row *r)
{
    clv_tonemap_params p = clv_tonemap_params_default();
    SET(p, tm_fields, r);
    return clv_tonemap_local(CTX(r), IM(r->a), IM(r->b), nullp(r) ? NULL : &p);
}

static long h_pyramid_create(const row *r)
{
    clv_pyramid *p = F.py[P_U8]; /* must become NULL on failure */
    clv_status s = clv_pyramid_create(CTX(r), r->i0, r->i1, r->b ? r->b : 1,
                                      r->d1 != 0.0 ? (clv_pixel_type)(int)r->d1 : CLV_U8, r->i2,
                                      r->d0, nullp(r) ? NULL : &p);
    if (!nullp(r)) {
        if (s != CLV_OK) {
            T(p == NULL, "clv_pyramid_create: *out not NULL after a failure");
        } else {
            int n = clv_pyramid_levels(p);
            T(n >= 1 && n <= r->i2, "%s: %d levels", r->what, n);
            if (r->d0 < 1e-100 || r->i0 == 1)
                T(n == 1, "%s: %d levels, expected 1", r->what, n);
            clv_pyramid_release(p);
        }
    }
    return s;
}

static long h_pyramid_release(const row *r)
{
    (void)r;
    clv_pyramid_release(NULL);
    return 1;
}

static long h_pyramid_levels(const row *r)
{
    (void)r;
    return clv_pyramid_levels(NULL) == 0 && clv_pyramid_levels(F.py[P_U8]) == 3;
}

static long h_pyramid_level(const row *r)
{
    (void)r;
    const clv_pyramid *p = F.py[P_U8];
    return clv_pyramid_level(NULL, 0) == NULL && clv_pyramid_level(p, -1) == NULL &&
           clv_pyramid_level(p, 3) == NULL && clv_pyramid_level(p, INT_MAX) == NULL &&
           clv_pyramid_level(p, INT_MIN) == NULL && clv_pyramid_level(p, 2) != NULL;
}

static long h_pyramid_build(const row *r)
{
    const clv_image *src = r->b == -1 ? clv_pyramid_level(PY(r->a), 0) : IM(r->b);
    return clv_pyramid_build(CTX(r), PY(r->a), src);
}

static long h_corner_default(const row *r)
{
    (void)r;
    clv_corner_params p = clv_corner_params_default();
    clv_corner out[1000];
    int n = -1;
    return p.max_corners == 1000 && p.quality_level == 0.01 && p.min_distance == 10.0 &&
           p.block_size == 3 && p.gradient_size == 3 && p.mask == NULL &&
           clv_corners_shi_tomasi(F.ctx, F.im[I_U8], &p, out, &n) == CLV_OK && n >= 0;
}

static long h_corners(const row *r)
{
    static clv_corner out[4096];
    clv_corner_params p = clv_corner_params_default();
    SET(p, corner_fields, r);
    int count = -7;
    clv_status s = clv_corners_shi_tomasi(CTX(r), IM(r->a), nullp(r) ? NULL : &p,
                                          r->i0 == 1 ? NULL : out, r->i0 == 2 ? NULL : &count);
    if (r->i0 != 2 && s != CLV_OK)
        T(count == 0, "%s: *count = %d after a failure", r->what, count);
    if (s == CLV_OK) {
        const clv_image *img = IM(r->a);
        int w = clv_image_width(img), h = clv_image_height(img);
        T(count >= 0 && count <= (w - 2 > 0 ? (w - 2) * (h - 2) : 0) && count <= p.max_corners,
          "%s: %d corners", r->what, count);
        for (int i = 0; i < count && i < 4096; i++)
            T(out[i].x >= 1 && out[i].x <= w - 2 && out[i].y >= 1 && out[i].y <= h - 2 &&
                  isfinite(out[i].response),
              "%s: corner %d at %g,%g", r->what, i, out[i].x, out[i].y);
    }
    return s;
}

static long h_corners_n(const row *r)
{
    clv_corner out[16];
    clv_corner_params p = clv_corner_params_default();
    SET(p, corner_fields, r);
    int count = -7;
    const int cap = r->i0 == 1 ? -1 : r->i0 == 2 ? 2 : r->i0 == 3 ? 0 : 16;
    clv_status s = clv_corners_shi_tomasi_n(CTX(r), IM(r->a), &p, r->i0 >= 2 && r->i0 <= 3 ? NULL : out,
                                            cap, r->i0 == 4 ? NULL : &count);
    if (r->i0 != 4 && s != CLV_OK)
        T(count == 0, "%s: *count = %d after a failure", r->what, count);
    if (s == CLV_OK)
        T(count >= 0 && count <= p.max_corners, "%s: %d corners", r->what, count);
    return s;
}

static long h_limit_max_alloc(const row *r)
{
    return clv_debug_limit_max_alloc(CTX(r), r->i0 == 1 ? 0 : UINT64_MAX);
}

static long h_sha256(const row *r)
{
    (void)r;
    static const unsigned char want[32] = {
        0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22,
        0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00,
        0x15, 0xad};
    unsigned char d[32];
    clv_debug_sha256("abc", 3, d);
    return memcmp(d, want, 32) == 0;
}

static long h_lk_default(const row *r)
{
    (void)r;
    clv_lk_params p = clv_lk_params_default();
    clv_point in = {8, 6}, out;
    uint8_t st;
    return p.win_width == 21 && p.win_height == 21 && p.levels == 3 && p.max_iterations == 30 &&
           p.epsilon == 0.01 && p.min_eig_threshold == 1e-4 && p.use_initial_flow == 0 &&
           clv_lk_track(F.ctx, F.py[P_U8], F.py[P_U8B], &in, &out, &st, NULL, 1, &p) == CLV_OK;
}

static long h_lk(const row *r)
{
    clv_lk_params p = clv_lk_params_default();
    SET(p, lk_fields, r);
    if (r->s && !strcmp(r->s, "max_iterations") && r->v == 1000)
        p.epsilon = 0.0;
    clv_point in[4] = {{3, 4}, {8.5f, 6.25f}, {-100, 5}, {1e6f, -1e6f}}, out[4];
    uint8_t st[4] = {7, 7, 7, 7};
    float err[4];
    clv_status s = clv_lk_track(CTX(r), PY(r->a), PY(r->b), r->i1 == 1 || r->i1 == 4 ? NULL : in,
                                r->i1 == 2 || r->i1 == 4 ? NULL : out,
                                r->i1 == 3 || r->i1 == 4 ? NULL : st, r->i1 == 4 ? NULL : err,
                                r->i0, nullp(r) ? NULL : &p);
    if (s == CLV_OK && r->i0 > 0) {
        for (int i = 0; i < r->i0; i++) {
            T(st[i] == 0 || st[i] == 1, "%s: status %d", r->what, st[i]);
            if (st[i])
                T(isfinite(out[i].x) && isfinite(out[i].y) && isfinite(err[i]) && err[i] >= 0,
                  "%s: tracked point %d at %g,%g err %g", r->what, i, out[i].x, out[i].y, err[i]);
        }
        T(st[2] == 0 && st[3] == 0, "%s: points far outside tracked", r->what);
    }
    return s;
}

static long h_fb_default(const row *r)
{
    (void)r;
    clv_farneback_params p = clv_farneback_params_default();
    return p.pyr_scale == 0.5 && p.levels == 3 && p.winsize == 15 && p.iterations == 3 &&
           p.poly_n == 5 && p.poly_sigma == 1.2 && p.gaussian_window == 0 &&
           p.use_initial_flow == 0 &&
           clv_farneback(F.ctx, F.im[I_U8], F.im[I_U8B], F.im[I_FLOW], &p) == CLV_OK &&
           clv_finish(F.ctx) == CLV_OK;
}

static long h_farneback(const row *r)
{
    clv_farneback_params p = clv_farneback_params_default();
    SET(p, fb_fields, r);
    clv_status s = clv_farneback(CTX(r), IM(r->a), IM(r->b), IM(r->c), nullp(r) ? NULL : &p);
    if (s == CLV_OK) {
        REQUIRE_OK(F.ctx, clv_finish(F.ctx));
        T(all_finite(IM(r->c)), "%s: non-finite flow from finite input", r->what);
    }
    return s;
}

static long h_flow_to_color(const row *r)
{
    return clv_flow_to_color(CTX(r), IM(r->a), IM(r->b), r->d0);
}

static long h_flow_eval(const row *r)
{
    clv_flow_stats st;
    memset(&st, 0x7F, sizeof st);
    clv_status s = clv_flow_eval(CTX(r), IM(r->a), IM(r->b), nullp(r) ? NULL : &st);
    if (s == CLV_OK) {
        int n = clv_image_width(IM(r->a)) * clv_image_height(IM(r->a));
        T(st.valid == n && st.aee == 0.0 && st.aae == 0.0 && st.r1 == 0.0,
          "%s: valid %lld aee %g aae %g", r->what, (long long)st.valid, st.aee, st.aae);
    }
    return s;
}

static long h_warp(const row *r) { return clv_warp(CTX(r), IM(r->a), IM(r->b), IM(r->c)); }

static long h_convert_color(const row *r)
{
    return clv_convert_color(CTX(r), IM(r->a), IM(r->b), (clv_color_code)r->i0);
}

static long h_convert_type(const row *r) { return clv_convert_type(CTX(r), IM(r->a), IM(r->b), r->d0); }

static long h_set_max_pixels(const row *r)
{
    (void)r;
    size_t old = clv_io_max_pixels();
    clv_host_image out;
    clv_io_set_max_pixels(W * H - 1);
    clv_status s = clv_image_read(path_in("good.png"), &out);
    int refused = s == CLV_ERROR_INVALID_ARGUMENT && ci_contains(clv_io_last_error(), "limit") &&
                  is_zeroed(&out);
    clv_io_set_max_pixels(W * H);
    s = clv_image_read(path_in("good.png"), &out);
    int read = s == CLV_OK;
    clv_host_image_free(&out);
    clv_io_set_max_pixels(old);
    return refused && read && clv_io_max_pixels() == old;
}

static long h_max_pixels(const row *r)
{
    (void)r;
    return clv_io_max_pixels() == (size_t)1 << 28;
}

static long h_set_max_scans(const row *r)
{
    (void)r;
    unsigned old = clv_jpeg_max_scans();
    clv_host_image out;
    clv_jpeg_set_max_scans(1);
    int one = clv_jpeg_max_scans() == 1;
    clv_status s = clv_image_read(path_in("good.jpg"), &out); /* baseline: one scan */
    int read = s == CLV_OK;
    if (read)
        clv_host_image_free(&out);
    clv_jpeg_set_max_scans(0);
    int dflt = clv_jpeg_max_scans() == CLV_JPEG_DEFAULT_MAX_SCANS;
    clv_jpeg_set_max_scans(old);
    return one && read && dflt && clv_jpeg_max_scans() == old;
}

static long h_max_scans(const row *r)
{
    (void)r;
    return clv_jpeg_max_scans() == CLV_JPEG_DEFAULT_MAX_SCANS;
}

static long h_host_alloc(const row *r)
{
    clv_host_image img;
    memset(&img, 0xAB, sizeof img);
    clv_status s = clv_host_image_alloc(nullp(r) ? NULL : &img, r->i0, r->i1, r->i2,
                                        (clv_pixel_type)(int)r->d0);
    if (!nullp(r)) {
        if (s != CLV_OK)
            T(is_zeroed(&img), "clv_host_image_alloc: image not zeroed after a failure");
        else
            clv_host_image_free(&img);
    }
    return s;
}

static long h_host_free(const row *r)
{
    (void)r;
    clv_host_image_free(NULL);
    clv_host_image z;
    memset(&z, 0, sizeof z);
    clv_host_image_free(&z);
    return is_zeroed(&z);
}

static long h_to_f32(const row *r)
{
    clv_host_image out;
    memset(&out, 0xAB, sizeof out);
    clv_host_image *o = nullp(r) ? NULL : r->i0 == 1 ? HI(r->a) : &out;
    clv_status s = clv_host_image_to_f32(HI(r->a), o, r->d0);
    if (o == &out) {
        if (s != CLV_OK) {
            T(is_zeroed(&out), "clv_host_image_to_f32: *out not zeroed after a failure");
        } else {
            const uint16_t *in = HI(r->a)->data;
            T(((const float *)out.data)[5] == (float)(in[5] * r->d0), "%s: wrong value",
              r->what);
            clv_host_image_free(&out);
        }
    }
    return s;
}

/* Readers: *out must be zeroed after a failure. d0 > 0: pixel limit for the
 * call. */
static long read_with(clv_status (*fn)(const char *, clv_host_image *), const row *r)
{
    size_t old = clv_io_max_pixels();
    if (r->d0 > 0)
        clv_io_set_max_pixels((size_t)r->d0);
    clv_host_image out;
    memset(&out, 0xAB, sizeof out);
    clv_status s = fn(path_in(r->s), nullp(r) ? NULL : &out);
    clv_io_set_max_pixels(old);
    if (!nullp(r)) {
        if (s != CLV_OK)
            T(is_zeroed(&out), "%s: *out not zeroed after a failure", r->what);
        else
            clv_host_image_free(&out);
    }
    return s;
}

static long h_image_read(const row *r) { return read_with(clv_image_read, r); }
static long h_png_read(const row *r) { return read_with(clv_png_read, r); }
static long h_jpeg_read(const row *r) { return read_with(clv_jpeg_read, r); }
static long h_exr_read(const row *r) { return read_with(clv_exr_read, r); }
static long h_hdr_read(const row *r) { return read_with(clv_hdr_read, r); }
static long h_pfm_read(const row *r) { return read_with(clv_pfm_read, r); }
static long h_flo_read(const row *r) { return read_with(clv_flo_read, r); }

static long h_has_exr(const row *r)
{
    (void)r;
#ifdef CLV_HAVE_OPENEXR
    return clv_io_has_exr() == 1;
#else
    return clv_io_has_exr() == 0;
#endif
}

static long h_track_temporary(const row *r)
{
    (void)r;
    char *lng = malloc(4097);
    if (!lng)
        return 0;
    memset(lng, 'a', 4096);
    lng[4096] = '\0';
    int bad = clv_io_track_temporary(NULL) == -1 && clv_io_track_temporary(lng) == -1;
    free(lng);
    int slot = clv_io_track_temporary(path_in("never-created.tmp"));
    clv_io_untrack_temporary(slot);
    return bad && slot >= 0;
}

static long h_untrack_temporary(const row *r)
{
    (void)r;
    clv_io_untrack_temporary(-1);
    clv_io_untrack_temporary(1 << 20);
    clv_io_untrack_temporary(INT_MIN);
    return 1;
}

static long h_remove_temporaries(const row *r)
{
    (void)r;
    const char *kept = path_in("kept.tmp"), *gone = path_in("gone.tmp");
    FILE *a = fopen(kept, "wb"), *b = fopen(gone, "wb");
    if (a)
        fclose(a);
    if (b)
        fclose(b);
    int slot = clv_io_track_temporary(gone);
    errno = 77;
    clv_remove_temporaries();
    int ok = errno == 77 && access(gone, F_OK) != 0 && access(kept, F_OK) == 0;
    clv_io_untrack_temporary(slot);
    unlink(kept);
    return ok && slot >= 0;
}

static long h_io_last_error(const row *r)
{
    (void)r;
    clv_host_image out;
    clv_status s = clv_pfm_read(path_in("missing.pfm"), &out);
    const char *m = clv_io_last_error();
    return s == CLV_ERROR_IO && m && ci_contains(m, "missing.pfm") && ci_contains(m, "pfm");
}

/* Writers: fn 0 image_write (quality i0), 1 png, 2 jpeg (quality i0), 3 exr,
 * 4 hdr, 5 pfm, 6 flo. */
static long write_with(int fn, const row *r)
{
    const char *path = r->s == NULL ? NULL : r->s[0] == '\0' ? "" : path_in(r->s);
    const clv_host_image *img = HI(r->a);
    int before = test_dir_entries(F.dir);
    struct stat st0;
    int existed = path && *path && stat(path, &st0) == 0;
    clv_status s;
    switch (fn) {
    case 0: s = clv_image_write(path, img, r->i0); break;
    case 1: s = clv_png_write(path, img); break;
    case 2: s = clv_jpeg_write(path, img, r->i0); break;
    case 3: s = clv_exr_write(path, img); break;
    case 4: s = clv_hdr_write(path, img); break;
    case 5: s = clv_pfm_write(path, img); break;
    default: s = clv_flo_write(path, img); break;
    }
    if ((r->flags & F_OUT) && s != CLV_OK) {
        T(test_dir_entries(F.dir) == before, "%s: %d entries in the scratch dir, %d before",
          r->what, test_dir_entries(F.dir), before);
        struct stat st1;
        int exists = path && *path && stat(path, &st1) == 0;
        T(exists == existed, "%s: '%s' %s", r->what, path, exists ? "was left behind" : "vanished");
        if (existed && exists)
            T(S_ISDIR(st1.st_mode) == S_ISDIR(st0.st_mode), "%s: '%s' changed kind", r->what, path);
    }
    if (s == CLV_OK && path)
        unlink(path);
    return s;
}

static long h_image_write(const row *r) { return write_with(0, r); }
static long h_png_write(const row *r) { return write_with(1, r); }
static long h_jpeg_write(const row *r) { return write_with(2, r); }
static long h_exr_write(const row *r) { return write_with(3, r); }
static long h_hdr_write(const row *r) { return write_with(4, r); }
static long h_pfm_write(const row *r) { return write_with(5, r); }
static long h_flo_write(const row *r) { return write_with(6, r); }

/* op.h: each handler returns 1 when every case is right. */
static long h_op_count(const row *r) { return clv_op_count() >= r->i0; }
static long h_op_get(const row *r)
{
    (void)r;
    return clv_op_get(-1) == NULL && clv_op_get(clv_op_count()) == NULL && clv_op_get(0) != NULL;
}
static long h_op_find(const row *r)
{
    (void)r;
    return clv_op_find(NULL) == NULL && clv_op_find("no_such_op") == NULL &&
           clv_op_find("") == NULL && clv_op_find("gaussian") == clv_op_find("gaussian_blur");
}
static long h_op_param_index(const row *r)
{
    (void)r;
    const clv_op_desc *g = clv_op_find("gaussian_blur");
    return clv_op_param_index(NULL, "src") == -1 && clv_op_param_index(g, NULL) == -1 &&
           clv_op_param_index(g, "sigma") == -1 && clv_op_param_index(g, "sigma_x") == 2;
}
static long h_param_enum_value(const row *r)
{
    (void)r;
    const clv_op_desc *g = clv_op_find("gaussian_blur");
    const clv_param_desc *b = &g->params[clv_op_param_index(g, "border")];
    int v = 77;
    return clv_param_enum_value(NULL, "wrap", &v) == E_ARG &&
           clv_param_enum_value(b, NULL, &v) == E_ARG &&
           clv_param_enum_value(b, "wrap", NULL) == E_ARG &&
           clv_param_enum_value(&g->params[2], "wrap", &v) == E_ARG &&
           clv_param_enum_value(b, "wrapx", &v) == E_ARG && v == 77 &&
           clv_param_enum_value(b, "WRAP", &v) == OK && v == CLV_BORDER_WRAP;
}
static long h_param_enum_name(const row *r)
{
    (void)r;
    const clv_op_desc *g = clv_op_find("gaussian_blur");
    const clv_param_desc *b = &g->params[clv_op_param_index(g, "border")];
    return clv_param_enum_name(NULL, 0) == NULL && clv_param_enum_name(&g->params[2], 0) == NULL &&
           clv_param_enum_name(b, 99) == NULL &&
           strcmp(clv_param_enum_name(b, CLV_BORDER_REFLECT), "reflect") == 0;
}
static long h_op_call(const row *r)
{
    (void)r;
    const clv_op_desc *g = clv_op_find("gaussian_blur");
    const clv_arg a[] = {CLV_ARG_DOUBLE("sigma_x", 1.0)};
    return clv_op_call(NULL, g, a, 1) == E_ARG && clv_op_call(F.ctx, NULL, a, 1) == E_ARG &&
           clv_op_call(F.ctx, g, NULL, 2) == E_ARG && clv_op_call(F.ctx, g, a, -1) == E_ARG;
}
static long h_op_check(const row *r)
{
    (void)r;
    const clv_op_desc *g = clv_op_find("gaussian_blur");
    char m[256];
    const clv_arg unknown[] = {CLV_ARG_DOUBLE("sigma", 1.0)};
    const clv_arg twice[] = {CLV_ARG_DOUBLE("sigma_x", 1.0), CLV_ARG_DOUBLE("sigma_x", 2.0)};
    const clv_arg typed[] = {CLV_ARG_PTR("sigma_x", CLV_PARAM_IMAGE, NULL)};
    const clv_arg frac[] = {CLV_ARG_DOUBLE("sigma_x", 1.0), CLV_ARG_DOUBLE("ksize_x", 2.5)};
    const clv_arg good[] = {CLV_ARG_DOUBLE("sigma_x", 1.0), CLV_ARG_DOUBLE("ksize_x", 5)};
    return clv_op_check(NULL, NULL, good, 1, m, sizeof m) == E_ARG &&
           clv_op_check(NULL, g, unknown, 1, m, sizeof m) == E_ARG && strstr(m, "'sigma'") &&
           clv_op_check(NULL, g, twice, 2, m, sizeof m) == E_ARG && strstr(m, "twice") &&
           clv_op_check(NULL, g, typed, 1, m, sizeof m) == E_ARG && strstr(m, "type") &&
           clv_op_check(NULL, g, frac, 2, m, sizeof m) == E_ARG && strstr(m, "integer") &&
           clv_op_check(NULL, g, unknown, 1, NULL, 0) == E_ARG &&
           clv_op_check(NULL, g, good, 2, m, sizeof m) == OK && m[0] == '\0';
}
static long h_op_output_shape(const row *r)
{
    (void)r;
    const clv_op_desc *t = clv_op_find("transpose");
    int w = 0, h = 0, c = 0;
    clv_pixel_type ty = CLV_U8;
    char m[256];
    const clv_arg none[] = {CLV_ARG_IMAGE("dst", NULL)};
    return clv_op_output_shape(NULL, none, 0, 1, &w, &h, &c, &ty, m, sizeof m) == E_ARG &&
           clv_op_output_shape(t, none, 0, 1, NULL, &h, &c, &ty, m, sizeof m) == E_ARG &&
           clv_op_output_shape(t, none, 0, 0, &w, &h, &c, &ty, m, sizeof m) == E_ARG &&
           clv_op_output_shape(t, none, 0, 1, &w, &h, &c, &ty, m, sizeof m) == E_ARG &&
           strstr(m, "src") != NULL;
}

static long h_param_check(const row *r)
{
    (void)r;
    const clv_op_desc *g = clv_op_find("gaussian_blur");
    const clv_param_desc *sx = &g->params[clv_op_param_index(g, "sigma_x")];
    const clv_param_desc *kx = &g->params[clv_op_param_index(g, "ksize_x")];
    const clv_param_desc *b = &g->params[clv_op_param_index(g, "border")];
    char m[256];
    const clv_arg nan_v = CLV_ARG_DOUBLE("sigma_x", NAN), img = CLV_ARG_PTR("x", CLV_PARAM_IMAGE, NULL);
    const clv_arg even = CLV_ARG_INT("ksize_x", 4), zero = CLV_ARG_INT("ksize_x", 0);
    const clv_arg off = CLV_ARG_INT("border", 99), frac = CLV_ARG_DOUBLE("ksize_x", 2.5);
    return clv_param_check(NULL, &even, m, sizeof m) == E_ARG &&
           clv_param_check(kx, NULL, m, sizeof m) == E_ARG &&
           clv_param_check(sx, &nan_v, m, sizeof m) == E_ARG && strstr(m, "sigma_x") &&
           clv_param_check(sx, &img, m, sizeof m) == E_ARG && strstr(m, "type") &&
           clv_param_check(kx, &even, m, sizeof m) == E_ARG && strstr(m, "odd") &&
           clv_param_check(kx, &frac, m, sizeof m) == E_ARG &&
           clv_param_check(b, &off, NULL, 0) == E_ARG &&
           clv_param_check(kx, &zero, m, sizeof m) == OK && m[0] == '\0';
}
static long h_param_rule(const row *r)
{
    (void)r;
    const clv_op_desc *g = clv_op_find("gaussian_blur");
    char m[64] = "x", one[1] = {'x'};
    clv_param_rule(NULL, m, sizeof m);
    if (m[0] != '\0')
        return 0;
    clv_param_rule(&g->params[0], NULL, 0);
    clv_param_rule(&g->params[clv_op_param_index(g, "border")], one, sizeof one);
    clv_param_rule(&g->params[clv_op_param_index(g, "ksize_x")], m, sizeof m);
    return one[0] == '\0' && strcmp(m, "0 or odd in 1..255") == 0;
}

static long h_context_create_cl(const row *r)
{
    clv_context_options o = clv_context_options_default();
    cl_context cl = clv_context_cl_context(F.ctx);
    cl_device_id dev = clv_context_cl_device(F.ctx);
    cl_command_queue q = r->i0 == 8 ? NULL : clv_context_cl_queue(F.ctx);
    if (r->i0 == 0)
        cl = NULL;
    if (r->i0 == 1)
        dev = NULL;
    if (r->i0 == 3)
        o.device = "cpu";
    if (r->i0 == 4)
        o.cache = 2;
    if (r->i0 == 5)
        o.profiling = 1; /* the fixture's queue has no profiling */
    if (r->i0 == 6)
        q = clv_context_cl_queue(F.ctx2);
    clv_context *c = F.ctx; /* must become NULL on failure */
    clv_status s = clv_context_create_cl(cl, dev, q, &o, r->i0 == 2 ? NULL : &c);
    if (r->i0 != 2) {
        if (s != CLV_OK)
            T(c == NULL, "clv_context_create_cl: *out not NULL after a failure");
        else
            clv_context_release(c);
    }
    return s;
}

static long h_cl_context(const row *r)
{
    (void)r;
    return clv_context_cl_context(NULL) == NULL && clv_context_cl_context(F.ctx) != NULL &&
           clv_context_cl_context(F.ctx) != clv_context_cl_context(F.ctx2);
}

static long h_cl_device(const row *r)
{
    (void)r;
    return clv_context_cl_device(NULL) == NULL && clv_context_cl_device(F.ctx) != NULL;
}

static long h_cl_queue(const row *r)
{
    (void)r;
    return clv_context_cl_queue(NULL) == NULL && clv_context_cl_queue(F.ctx) != NULL;
}

/* Over I_U8's buffer (W x H u8, pitch 64: 64 * H bytes). */
static long h_wrap_buffer(const row *r)
{
    cl_mem m = clv_image_cl_mem(F.im[I_U8]);
    size_t offset = 0, pitch = 64;
    int w = W, h = H, cn = 1, type = CLV_U8;
    switch (r->i0) {
    case 1: m = NULL; break;
    case 2: h = H + 1; break;
    case 3: w = 40; cn = 2; break;
    case 4: pitch = 96; break;
    case 5: pitch = SIZE_MAX - 63; break;
    case 6: offset = 32; break;
    case 7: offset = SIZE_MAX - 63; break;
    case 8: m = clv_image_cl_mem(F.im[I_OTHER]); break;
    case 9: w = h = 0; break;
    case 10: type = 99; break;
    case 11: pitch = 0; break;
    }
    clv_image *img = F.im[I_U8]; /* must become NULL on failure */
    clv_status s = clv_image_wrap_buffer(CTX(r), m, offset, w, h, cn, (clv_pixel_type)type, pitch,
                                         nullp(r) ? NULL : &img);
    if (!nullp(r)) {
        if (s != CLV_OK)
            T(img == NULL, "clv_image_wrap_buffer: *out not NULL after a failure");
        else {
            T(clv_image_cl_mem(img) == m && clv_image_pitch(img) == 64 &&
                  clv_image_offset(img) == 0,
              "clv_image_wrap_buffer: getters of the wrap");
            clv_image_release(img);
        }
    }
    return s;
}

/* Events: markers of F.ctx and of F.ctx2 (another cl_context). */
static long h_wait_events(const row *r)
{
    cl_event ev[2] = {NULL, NULL};
    if (r->i0 == 2 || r->i0 == 5)
        REQUIRE_OK(F.ctx, clv_enqueue_marker(F.ctx, &ev[0]));
    if (r->i0 == 3)
        REQUIRE_OK(F.ctx2, clv_enqueue_marker(F.ctx2, &ev[0]));
    const cl_uint n = r->i0 == 4 ? 0 : r->i0 == 2 ? 2 : 1;
    clv_status s = clv_enqueue_wait_events(CTX(r), n, r->i0 == 1 || r->i0 == 4 ? NULL : ev);
    if (ev[0])
        T(clReleaseEvent(ev[0]) == CL_SUCCESS, "clReleaseEvent(marker)");
    return s;
}

static long h_marker(const row *r)
{
    cl_event ev = (cl_event)&ev; /* must become NULL on failure */
    clv_image *tmp = NULL;
    if (r->i0 == 2) {
        REQUIRE_OK(F.ctx, clv_image_create(F.ctx, W, H, 1, CLV_U8, &tmp));
        REQUIRE_OK(F.ctx, clv_box_filter(F.ctx, F.im[I_U8], tmp, 3, 3, CLV_BORDER_REPLICATE));
    }
    clv_status s = clv_enqueue_marker(CTX(r), r->i0 == 1 ? NULL : &ev);
    clv_image_release(tmp);
    if (r->i0 == 1)
        return s;
    if (s != CLV_OK) {
        T(ev == NULL, "clv_enqueue_marker: *event not NULL after a failure");
        return s;
    }
    cl_int st = -1;
    T(clWaitForEvents(1, &ev) == CL_SUCCESS &&
          clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL) ==
              CL_SUCCESS &&
          st == CL_COMPLETE,
      "clv_enqueue_marker: the marker does not complete");
    T(clReleaseEvent(ev) == CL_SUCCESS, "clReleaseEvent(marker)");
    return s;
}

static long h_cl_mem(const row *r)
{
    (void)r;
    return clv_image_cl_mem(NULL) == NULL && clv_image_cl_mem(F.im[I_U8]) != NULL &&
           clv_image_cl_mem(F.im[I_U8]) != clv_image_cl_mem(F.im[I_U8B]);
}

static long h_offset(const row *r)
{
    (void)r;
    return clv_image_offset(NULL) == 0 && clv_image_offset(F.im[I_U8]) == 0;
}

/* Views of I_U8 (W x H u8, pitch 64, contents F.u8). */
static long h_image_view(const row *r)
{
    clv_image *src = r->i0 == 0 ? NULL : F.im[I_U8];
    int x = 3, y = 1, w = 5, h = 3;
    switch (r->i0) {
    case 2: x = -1; y = 0; break;
    case 3: w = h = 0; break;
    case 4: x = W - 4; break;
    case 5: x = 1; w = INT_MAX; break;
    case 6: y = INT_MAX; h = INT_MAX; break;
    case 8: x = 0; y = 2; w = W; h = 4; break;
    }
    clv_image *v = F.im[I_U8B]; /* must become NULL on failure */
    clv_status s = clv_image_view(src, x, y, w, h, r->i0 == 1 ? NULL : &v);
    if (r->i0 == 1)
        return s;
    if (s != CLV_OK) {
        T(v == NULL, "clv_image_view: *out not NULL after a failure");
        return s;
    }
    unsigned char got[W * H];
    T(clv_image_width(v) == w && clv_image_height(v) == h && clv_image_pitch(v) == 64 &&
          clv_image_cl_mem(v) == clv_image_cl_mem(F.im[I_U8]) &&
          clv_image_offset(v) == (size_t)y * 64 + (size_t)x,
      "clv_image_view: getters");
    clv_image *vv = NULL;
    if (r->i0 == 8) { /* a view of the view: (1, 1) of it is (1, 3) of the image */
        REQUIRE_OK(F.ctx, clv_image_view(v, 1, 1, 3, 2, &vv));
        T(clv_image_offset(vv) == 3 * 64 + 1, "clv_image_view: a view of a view's offset");
        clv_image_release(v);
        v = vv;
        x = 1, y = 3, w = 3, h = 2;
    }
    REQUIRE_OK(F.ctx, clv_image_download(v, got, 0));
    int same = 1;
    for (int j = 0; j < h; j++)
        same &= memcmp(got + j * w, F.u8 + (size_t)(y + j) * W + x, (size_t)w) == 0;
    T(same, "clv_image_view: the view's pixels are the image's");
    clv_image_release(v);
    return s;
}

static long h_create_host(const row *r)
{
    static _Alignas(64) unsigned char mem[64 * (H + 1) + 64];
    unsigned char *host = mem;
    size_t pitch = 64;
    int w = W, h = H, type = CLV_U8;
    switch (r->i0) {
    case 1: host = NULL; break;
    case 2: host = mem + 1; break;
    case 3: pitch = 96; break;
    case 4: pitch = 64; w = 65; break;
    case 5: pitch = SIZE_MAX - 63; break;
    case 6: w = h = 0; break;
    case 7: type = 99; break;
    }
    clv_image *img = F.im[I_U8]; /* must become NULL on failure */
    clv_status s = clv_image_create_host(CTX(r), host, pitch, w, h, 1, (clv_pixel_type)type,
                                         nullp(r) ? NULL : &img);
    if (nullp(r))
        return s;
    if (s != CLV_OK) {
        T(img == NULL, "clv_image_create_host: *out not NULL after a failure");
        return s;
    }
    /* the caller writes its memory inside a mapping, an operation reads it */
    void *p = NULL;
    size_t pp = 0;
    REQUIRE_OK(F.ctx, clv_image_map(img, CLV_MAP_WRITE, &p, &pp));
    for (int y = 0; y < H; y++)
        memcpy((unsigned char *)p + (size_t)y * pp, F.u8 + (size_t)y * W, W);
    REQUIRE_OK(F.ctx, clv_image_unmap(img, p));
    REQUIRE_OK(F.ctx, clv_transpose(F.ctx, img, F.im[I_U8T]));
    unsigned char got[W * H];
    REQUIRE_OK(F.ctx, clv_image_download(F.im[I_U8T], got, 0));
    T(memcmp(got, F.tr, sizeof got) == 0, "clv_image_create_host: a transpose of host memory");
    clv_image_release(img);
    return s;
}

static long h_image_map(const row *r)
{
    clv_image *img = r->i0 == 0 ? NULL : F.im[I_U8];
    void *p = &F; /* must become NULL on failure */
    size_t pitch = 7;
    int flags = r->i0 == 3 ? 0 : r->i0 == 4 ? 4 : CLV_MAP_READ;
    /* 5..7: a scratch image x and a view of it, one of them mapped; releasing
     * them unmaps (and leaves the refusal's message alone) */
    clv_image *x = NULL, *v = NULL;
    void *q = NULL;
    size_t qp = 0;
    if (r->i0 >= 5 && r->i0 <= 7) {
        REQUIRE_OK(F.ctx, clv_image_create(F.ctx, W, H, 1, CLV_U8, &x));
        REQUIRE_OK(F.ctx, clv_image_view(x, 1, 1, 4, 4, &v));
        REQUIRE_OK(F.ctx, clv_image_map(r->i0 == 7 ? v : x, CLV_MAP_READ, &q, &qp));
    }
    clv_status s;
    if (r->i0 == 6) {
        s = clv_transpose(F.ctx, x, F.im[I_U8T]);
    } else if (r->i0 == 7) {
        unsigned char got[16];
        s = clv_image_download(v, got, 0);
    } else {
        s = clv_image_map(r->i0 == 5 ? v : img, flags, r->i0 == 1 ? NULL : &p,
                          r->i0 == 2 ? NULL : &pitch);
        if (r->i0 != 1 && r->i0 != 2 && s != CLV_OK)
            T(p == NULL && pitch == 0, "clv_image_map: *ptr, *pitch not cleared on failure");
    }
    clv_image_release(x); /* release order free */
    clv_image_release(v);
    if (r->i0 == 8 && s == CLV_OK) {
        int same = pitch == 64;
        for (int y = 0; y < H; y++)
            same &= memcmp((unsigned char *)p + (size_t)y * pitch, F.u8 + (size_t)y * W, W) == 0;
        T(same, "clv_image_map: the pixels at pitch 64");
        REQUIRE_OK(F.ctx, clv_image_unmap(img, p));
    }
    return s;
}

static long h_image_unmap(const row *r)
{
    if (r->i0 == 0)
        return clv_image_unmap(NULL, NULL);
    if (r->i0 == 1)
        return clv_image_unmap(F.im[I_U8], &F);
    clv_image *v = NULL;
    void *p = NULL;
    size_t pitch = 0;
    clv_status s;
    if (r->i0 == 2) {
        clv_image *x = NULL;
        REQUIRE_OK(F.ctx, clv_image_create(F.ctx, W, H, 1, CLV_U8, &x));
        REQUIRE_OK(F.ctx, clv_image_map(x, CLV_MAP_READ, &p, &pitch));
        s = clv_image_unmap(x, (unsigned char *)p + 1);
        clv_image_release(x); /* unmaps, the message stays */
        return s;
    }
    /* write pixel (1, 1) of the view (2, 3) of I_U8B through a mapping */
    unsigned char before[W * H], after[W * H];
    REQUIRE_OK(F.ctx, clv_image_download(F.im[I_U8B], before, 0));
    REQUIRE_OK(F.ctx, clv_image_view(F.im[I_U8B], 2, 3, 4, 4, &v));
    REQUIRE_OK(F.ctx, clv_image_map(v, CLV_MAP_READ | CLV_MAP_WRITE, &p, &pitch));
    ((unsigned char *)p)[pitch + 1] ^= 0xFF;
    s = clv_image_unmap(v, p);
    clv_image_release(v);
    REQUIRE_OK(F.ctx, clv_image_download(F.im[I_U8B], after, 0));
    before[4 * W + 3] ^= 0xFF;
    T(memcmp(before, after, sizeof after) == 0, "clv_image_unmap: the write, and only it");
    before[4 * W + 3] ^= 0xFF;
    REQUIRE_OK(F.ctx, clv_image_upload(F.im[I_U8B], before, 0));
    return s;
}

/* Every public function: name and handler. The handler calls it, so a
 * function that disappears or changes its signature breaks the build. */
static const struct api {
    const char *name;
    handler fn;
} api[] = {
    {"clv_op_count", h_op_count},
    {"clv_op_get", h_op_get},
    {"clv_op_find", h_op_find},
    {"clv_op_param_index", h_op_param_index},
    {"clv_param_enum_value", h_param_enum_value},
    {"clv_param_enum_name", h_param_enum_name},
    {"clv_op_call", h_op_call},
    {"clv_op_check", h_op_check},
    {"clv_op_output_shape", h_op_output_shape},
    {"clv_param_check", h_param_check},
    {"clv_param_rule", h_param_rule},
    {"clv_status_string", h_status_string},
    {"clv_context_options_default", h_options_default},
    {"clv_context_create", h_context_create},
    {"clv_context_create_error", h_create_error},
    {"clv_context_release", h_context_release},
    {"clv_finish", h_finish},
    {"clv_cache_warm", h_cache_warm},
    {"clv_cache_info", h_cache_info},
    {"clv_cache_clear", h_cache_clear},
    {"clv_last_error", h_last_error},
    {"clv_last_op_device_time", h_device_time},
    {"clv_context_get_stats", h_get_stats},
    {"clv_context_device_name", h_device_name},
    {"clv_context_platform_name", h_platform_name},
    {"clv_list_devices", h_list_devices},
    {"clv_device_resolve", h_device_resolve},
    {"clv_device_info_get", h_device_info_get},
    {"clv_context_device_info", h_context_device_info},
    {"clv_extension_name", h_extension_name},
    {"clv_pocl_affinity_note", h_pocl_affinity_note},
    {"clv_image_placeholder", h_image_placeholder},
    {"clv_op_supported", h_op_supported},
    {"clv_version", h_version},
    {"clv_debug_live_objects", h_live_objects},
    {"clv_debug_fail_at", h_fail_at},
    {"clv_debug_cl_calls", h_cl_calls},
    {"clv_debug_injected_call", h_injected},
    {"clv_debug_run_test_kernel", h_run_test_kernel},
    {"clv_debug_limit_max_alloc", h_limit_max_alloc},
    {"clv_debug_sha256", h_sha256},
    {"clv_context_create_cl", h_context_create_cl},
    {"clv_context_cl_context", h_cl_context},
    {"clv_context_cl_device", h_cl_device},
    {"clv_context_cl_queue", h_cl_queue},
    {"clv_image_wrap_buffer", h_wrap_buffer},
    {"clv_enqueue_wait_events", h_wait_events},
    {"clv_enqueue_marker", h_marker},
    {"clv_image_cl_mem", h_cl_mem},
    {"clv_image_offset", h_offset},
    {"clv_pixel_type_size", h_type_size},
    {"clv_pixel_type_name", h_type_name},
    {"clv_image_create", h_image_create},
    {"clv_image_release", h_image_release},
    {"clv_image_width", h_width},
    {"clv_image_height", h_height},
    {"clv_image_channels", h_channels},
    {"clv_image_type", h_type},
    {"clv_image_pitch", h_pitch},
    {"clv_image_upload", h_upload},
    {"clv_image_upload_async", h_upload_async},
    {"clv_image_wait", h_image_wait},
    {"clv_image_view", h_image_view},
    {"clv_image_create_host", h_create_host},
    {"clv_image_map", h_image_map},
    {"clv_image_unmap", h_image_unmap},
    {"clv_image_download", h_download},
    {"clv_border_from_string", h_border_from_string},
    {"clv_border_name", h_border_name},
    {"clv_transpose", h_transpose},
    {"clv_resize", h_resize},
    {"clv_box_filter", h_box},
    {"clv_gaussian_blur", h_gaussian},
    {"clv_bilateral", h_bilateral},
    {"clv_grid_params_default", h_grid_default},
    {"clv_bilateral_grid", h_grid},
    {"clv_bilateral_grid_cross", h_grid_cross},
    {"clv_tonemap_params_default", h_tonemap_default},
    {"clv_tonemap_local", h_tonemap},
    {"clv_pyramid_create", h_pyramid_create},
    {"clv_pyramid_release", h_pyramid_release},
    {"clv_pyramid_levels", h_pyramid_levels},
    {"clv_pyramid_level", h_pyramid_level},
    {"clv_pyramid_build", h_pyramid_build},
    {"clv_corner_params_default", h_corner_default},
    {"clv_corners_shi_tomasi", h_corners},
    {"clv_corners_shi_tomasi_n", h_corners_n},
    {"clv_lk_params_default", h_lk_default},
    {"clv_lk_track", h_lk},
    {"clv_farneback_params_default", h_fb_default},
    {"clv_farneback", h_farneback},
    {"clv_flow_to_color", h_flow_to_color},
    {"clv_flow_eval", h_flow_eval},
    {"clv_warp", h_warp},
    {"clv_convert_color", h_convert_color},
    {"clv_convert_type", h_convert_type},
    {"clv_io_set_max_pixels", h_set_max_pixels},
    {"clv_io_max_pixels", h_max_pixels},
    {"clv_jpeg_set_max_scans", h_set_max_scans},
    {"clv_jpeg_max_scans", h_max_scans},
    {"clv_host_image_alloc", h_host_alloc},
    {"clv_host_image_free", h_host_free},
    {"clv_host_image_to_f32", h_to_f32},
    {"clv_image_read", h_image_read},
    {"clv_png_read", h_png_read},
    {"clv_jpeg_read", h_jpeg_read},
    {"clv_exr_read", h_exr_read},
    {"clv_hdr_read", h_hdr_read},
    {"clv_pfm_read", h_pfm_read},
    {"clv_flo_read", h_flo_read},
    {"clv_io_has_exr", h_has_exr},
    {"clv_io_last_error", h_io_last_error},
    {"clv_io_track_temporary", h_track_temporary},
    {"clv_io_untrack_temporary", h_untrack_temporary},
    {"clv_remove_temporaries", h_remove_temporaries},
    {"clv_image_write", h_image_write},
    {"clv_png_write", h_png_write},
    {"clv_jpeg_write", h_jpeg_write},
    {"clv_exr_write", h_exr_write},
    {"clv_hdr_write", h_hdr_write},
    {"clv_pfm_write", h_pfm_write},
    {"clv_flo_write", h_flo_write},
};

#define NAPI (sizeof api / sizeof api[0])

/* ---- setup -------------------------------------------------------------- */

static void make_image(int slot, clv_context *ctx, int w, int h, int cn, clv_pixel_type type,
                       int pattern)
{
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, cn, type, &F.im[slot]));
    size_t n = (size_t)w * (size_t)h * (size_t)cn;
    void *buf = malloc(n * 4 + 4);
    REQUIRE(buf, "malloc");
    for (size_t i = 0; i < n; i++) {
        unsigned v = (unsigned)((i * 37u) ^ (i >> 3) ^ (unsigned)pattern * 91u) & 255u;
        if (type == CLV_U8)
            ((uint8_t *)buf)[i] = (uint8_t)v;
        else if (type == CLV_U16)
            ((uint16_t *)buf)[i] = (uint16_t)(v * 257u);
        else if (cn == 2)
            ((float *)buf)[i] = (float)((int)(i % 5) - 2) * 0.3f;
        else
            ((float *)buf)[i] = (float)v / 255.0f;
    }
    REQUIRE_OK(ctx, clv_image_upload(F.im[slot], buf, 0));
    if (slot == I_U8)
        memcpy(F.u8, buf, sizeof F.u8);
    free(buf);
}

static void upload_f32(int slot, const float *data) { REQUIRE_OK(F.ctx, clv_image_upload(F.im[slot], data, 0)); }

static void make_pyramid(int slot, clv_context *ctx, int src, int levels, double scale)
{
    const clv_image *img = F.im[src];
    REQUIRE_OK(ctx, clv_pyramid_create(ctx, clv_image_width(img), clv_image_height(img),
                                       clv_image_channels(img), clv_image_type(img), levels, scale,
                                       &F.py[slot]));
    REQUIRE_OK(ctx, clv_pyramid_build(ctx, F.py[slot], img));
}

static void host_alloc(int slot, int w, int h, int cn, clv_pixel_type type)
{
    clv_host_image *hi = &F.hi[slot];
    REQUIRE(clv_host_image_alloc(hi, w, h, cn, type) == CLV_OK, "host alloc: %s",
            clv_io_last_error());
    size_t n = (size_t)w * (size_t)h * (size_t)cn;
    for (size_t i = 0; i < n; i++) {
        unsigned v = (unsigned)((i * 29u) ^ (i >> 2)) & 255u;
        if (type == CLV_U8)
            ((uint8_t *)hi->data)[i] = (uint8_t)v;
        else if (type == CLV_U16)
            ((uint16_t *)hi->data)[i] = (uint16_t)(v * 257u);
        else
            ((float *)hi->data)[i] = (float)v / 64.0f;
    }
}

static void spit_text(const char *name, const char *text) { test_spit(path_in(name), text, strlen(text)); }

static uint32_t crc32_of(const unsigned char *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void put_le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* A PNG of IHDR (w x h, 8-bit gray), an empty IDAT and IEND, CRCs right:
 * libpng reads the header up to IDAT, then the size is checked. */
static void png_header_only(const char *name, uint32_t w, uint32_t h)
{
    unsigned char f[8 + 25 + 12 + 12];
    memcpy(f, "\x89PNG\r\n\x1a\n", 8);
    put_be32(f + 8, 13);
    memcpy(f + 12, "IHDR", 4);
    put_be32(f + 16, w);
    put_be32(f + 20, h);
    f[24] = 8;
    f[25] = 0;
    f[26] = f[27] = f[28] = 0;
    put_be32(f + 29, crc32_of(f + 12, 17));
    put_be32(f + 33, 0);
    memcpy(f + 37, "IDAT", 4);
    put_be32(f + 41, crc32_of(f + 37, 4));
    put_be32(f + 45, 0);
    memcpy(f + 49, "IEND", 4);
    put_be32(f + 53, crc32_of(f + 49, 4));
    test_spit(path_in(name), f, sizeof f);
}

/* First half of a file. */
static void truncated_copy(const char *from, const char *to)
{
    size_t n;
    unsigned char *d = test_slurp(path_in(from), &n);
    test_spit(path_in(to), d, n / 2);
    free(d);
}

/* A copy with `len` bytes at `at` replaced. */
static void patched_copy(const char *from, const char *to, size_t at, const void *bytes, size_t len)
{
    size_t n;
    unsigned char *d = test_slurp(path_in(from), &n);
    REQUIRE(at + len <= n, "patch outside %s", from);
    memcpy(d + at, bytes, len);
    test_spit(path_in(to), d, n);
    free(d);
}

static size_t find_bytes(const char *name, const void *what, size_t len)
{
    size_t n;
    unsigned char *d = test_slurp(path_in(name), &n);
    size_t at = SIZE_MAX;
    for (size_t i = 0; i + len <= n && at == SIZE_MAX; i++)
        if (memcmp(d + i, what, len) == 0)
            at = i;
    free(d);
    REQUIRE(at != SIZE_MAX, "pattern not found in %s", name);
    return at;
}

static void make_files(void)
{
    char tmpl[] = "/tmp/clv-badinput-XXXXXX";
    REQUIRE(mkdtemp(tmpl), "mkdtemp: %s", strerror(errno));
    snprintf(F.dir, sizeof F.dir, "%s", tmpl);
    REQUIRE(mkdir(path_in("adir"), 0777) == 0, "mkdir adir");
    REQUIRE(mkdir(path_in("adir.png"), 0777) == 0, "mkdir adir.png");
    spit_text("afile", "a regular file\n");
    spit_text("empty", "");
    spit_text("text.png", "hello, world\n");
    test_spit(path_in("png1"), "\x89", 1);

    REQUIRE(clv_png_write(path_in("good.png"), &F.hi[H_U8]) == CLV_OK, "%s", clv_io_last_error());
    truncated_copy("good.png", "trunc.png");
    const unsigned char bad_crc[1] = {0x5A};
    patched_copy("good.png", "crc.png", 30, bad_crc, 1);
    png_header_only("huge.png", 70000, 10);
    png_header_only("limit.png", 4096, 4096);

    REQUIRE(clv_jpeg_write(path_in("good.jpg"), &F.hi[H_U8C3], 90) == CLV_OK, "%s",
            clv_io_last_error());
    truncated_copy("good.jpg", "trunc.jpg");
    size_t sof = find_bytes("good.jpg", "\xff\xc0", 2);
    const unsigned char dims[4] = {0xEA, 0x60, 0xEA, 0x60}; /* 60000 x 60000 */
    patched_copy("good.jpg", "huge.jpg", sof + 5, dims, 4);

    REQUIRE(clv_pfm_write(path_in("good.pfm"), &F.hi[H_F32]) == CLV_OK, "%s", clv_io_last_error());
    truncated_copy("good.pfm", "trunc.pfm");
    spit_text("huge.pfm", "PF\n100000 10\n-1.0\n0123456789abcdef");
    spit_text("limit.pfm", "PF\n4096 4096\n-1.0\n0123456789012345678901234567890123456789");
    spit_text("nanscale.pfm", "Pf\n2 2\nnan\n0123456789abcdef");
    spit_text("zeroscale.pfm", "Pf\n2 2\n0.0\n0123456789abcdef");
    spit_text("negsize.pfm", "Pf\n-2 2\n-1.0\n0123456789abcdef");
    spit_text("bigsize.pfm", "Pf\n99999999999999999999 2\n-1.0\n0123456789abcdef");

    REQUIRE(clv_hdr_write(path_in("good.hdr"), &F.hi[H_F32C3]) == CLV_OK, "%s",
            clv_io_last_error());
    truncated_copy("good.hdr", "trunc.hdr");
    spit_text("huge.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 100000 +X 10\n");
    spit_text("limit.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 4096 +X 4096\n");
    spit_text("xyze.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_xyze\n\n-Y 2 +X 2\n");
    spit_text("noblank.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n");
    spit_text("orient.hdr", "#?RADIANCE\n\n+Y 4 -X 4\n");
    const char run_hdr[] = "#?RADIANCE\n\n-Y 1 +X 8\n\x02\x02\x00\x08\x89\x05";
    test_spit(path_in("run.hdr"), run_hdr, sizeof run_hdr - 1);

    if (clv_io_has_exr()) {
        REQUIRE(clv_exr_write(path_in("good.exr"), &F.hi[H_F32C3]) == CLV_OK, "%s",
                clv_io_last_error());
        truncated_copy("good.exr", "trunc.exr");
        size_t at = find_bytes("good.exr", "dataWindow\0box2i\0", 17) + 17 + 4;
        unsigned char box[16];
        put_le32(box, 0);
        put_le32(box + 4, 0);
        put_le32(box + 8, 99999);
        put_le32(box + 12, H - 1);
        patched_copy("good.exr", "huge.exr", at, box, sizeof box);
        put_le32(box + 8, 4095);
        put_le32(box + 12, 4095);
        patched_copy("good.exr", "limit.exr", at, box, sizeof box);
    }

    REQUIRE(clv_flo_write(path_in("good.flo"), &F.hi[H_FLOW]) == CLV_OK, "%s",
            clv_io_last_error());
    truncated_copy("good.flo", "trunc.flo");
    unsigned char flo[12 + 80];
    memset(flo, 0, sizeof flo);
    memcpy(flo, "PIEH", 4);
    test_spit(path_in("short.flo"), flo, 8);
    put_le32(flo + 4, (uint32_t)-5);
    put_le32(flo + 8, 2);
    test_spit(path_in("neg.flo"), flo, sizeof flo);
    put_le32(flo + 4, 100000);
    put_le32(flo + 8, 1);
    test_spit(path_in("huge.flo"), flo, sizeof flo);
    put_le32(flo + 4, 4096);
    put_le32(flo + 8, 4096);
    test_spit(path_in("limit.flo"), flo, 12);
}

static void setup(void)
{
    F.ctx = test_context();
    REQUIRE(clv_context_create(NULL, &F.ctx2) == CLV_OK, "second context: %s",
            clv_context_create_error());
    clv_context *c = F.ctx;
    make_image(I_U8, c, W, H, 1, CLV_U8, 0);
    make_image(I_U8B, c, W, H, 1, CLV_U8, 1);
    make_image(I_U8T, c, H, W, 1, CLV_U8, 2);
    make_image(I_U8S, c, 8, 6, 1, CLV_U8, 3);
    make_image(I_U8C2, c, W, H, 2, CLV_U8, 4);
    make_image(I_U8C2B, c, W, H, 2, CLV_U8, 4);
    make_image(I_U8C3, c, W, H, 3, CLV_U8, 5);
    make_image(I_U8C3S, c, 8, 6, 3, CLV_U8, 6);
    make_image(I_U8C4, c, W, H, 4, CLV_U8, 7);
    make_image(I_U16, c, W, H, 1, CLV_U16, 8);
    make_image(I_U16B, c, W, H, 1, CLV_U16, 9);
    make_image(I_F32, c, W, H, 1, CLV_F32, 10);
    make_image(I_F32B, c, W, H, 1, CLV_F32, 11);
    make_image(I_F32C3, c, W, H, 3, CLV_F32, 12);
    make_image(I_F32C4, c, W, H, 4, CLV_F32, 13);
    make_image(I_FLOW, c, W, H, 2, CLV_F32, 14);
    make_image(I_FLOWB, c, W, H, 2, CLV_F32, 15);
    make_image(I_FLOWS, c, 8, 6, 2, CLV_F32, 16);
    make_image(I_U8_1, c, 1, 1, 1, CLV_U8, 17);
    make_image(I_U8_1B, c, 1, 1, 1, CLV_U8, 18);
    make_image(I_F32_1, c, 1, 1, 1, CLV_F32, 19);
    make_image(I_F32_1B, c, 1, 1, 1, CLV_F32, 20);
    make_image(I_FLOW_1, c, 1, 1, 2, CLV_F32, 21);
    make_image(I_F32C3_1, c, 1, 1, 3, CLV_F32, 22);
    make_image(I_U8C3_1, c, 1, 1, 3, CLV_U8, 23);
    make_image(I_F32INF, c, W, H, 1, CLV_F32, 24);
    make_image(I_F32NAN, c, W, H, 1, CLV_F32, 25);
    make_image(I_F32K, c, W, H, 1, CLV_F32, 26);
    make_image(I_OTHER, F.ctx2, W, H, 1, CLV_U8, 27);
    make_image(I_OTHER_T, F.ctx2, H, W, 1, CLV_U8, 28);
    float buf[W * H];
    for (int i = 0; i < W * H; i++)
        buf[i] = 0.25f;
    upload_f32(I_F32K, buf);
    buf[40] = INFINITY;
    upload_f32(I_F32INF, buf);
    for (int i = 0; i < W * H; i++)
        buf[i] = NAN;
    upload_f32(I_F32NAN, buf);
    for (int y = 0; y < W; y++)
        for (int x = 0; x < H; x++)
            F.tr[y * H + x] = F.u8[x * W + y];

    make_pyramid(P_U8, c, I_U8, 3, 0.5);
    make_pyramid(P_U8B, c, I_U8B, 3, 0.5);
    make_pyramid(P_F32, c, I_F32, 3, 0.5);
    make_pyramid(P_U8_07, c, I_U8, 3, 0.7);
    make_pyramid(P_U8C3, c, I_U8C3, 3, 0.5);
    make_pyramid(P_U8S, c, I_U8S, 3, 0.5);
    make_pyramid(P_U8_1, c, I_U8_1, 1, 0.5);
    make_pyramid(P_U8_1B, c, I_U8_1B, 1, 0.5);
    make_pyramid(P_OTHER, F.ctx2, I_OTHER, 3, 0.5);
    REQUIRE_OK(c, clv_finish(c));
    REQUIRE_OK(F.ctx2, clv_finish(F.ctx2));

    host_alloc(H_U8, W, H, 1, CLV_U8);
    host_alloc(H_U8C3, W, H, 3, CLV_U8);
    host_alloc(H_U8C4, W, H, 4, CLV_U8);
    host_alloc(H_U16, W, H, 1, CLV_U16);
    host_alloc(H_F32, W, H, 1, CLV_F32);
    host_alloc(H_F32C3, W, H, 3, CLV_F32);
    host_alloc(H_F32C4, W, H, 4, CLV_F32);
    F.blob = calloc(1, 70000 * 4);
    REQUIRE(F.blob, "calloc");
    /* not owned by clv_host_image_alloc: built by hand */
    F.hi[H_FLOW] = (clv_host_image){W, H, 2, CLV_F32, W * 8, F.blob};
    F.hi[H_FLOW_U8] = (clv_host_image){W, H, 2, CLV_U8, W * 2, F.blob};
    F.hi[H_FLOW_C3] = F.hi[H_F32C3];
    F.hi[H_U8C2] = (clv_host_image){W, H, 2, CLV_U8, W * 2, F.blob};
    F.hi[H_NODATA] = (clv_host_image){W, H, 1, CLV_U8, W, NULL};
    F.hi[H_SHORT] = (clv_host_image){W, H, 1, CLV_U8, W - 1, F.blob};
    F.hi[H_HUGE] = (clv_host_image){W, 3, 1, CLV_U8, SIZE_MAX / 2, F.blob};
    F.hi[H_HUGE_FLOW] = (clv_host_image){W, 3, 2, CLV_F32, SIZE_MAX / 2, F.blob};
    F.hi[H_HUGE_F32] = (clv_host_image){W, 3, 3, CLV_F32, SIZE_MAX / 2, F.blob};
    F.hi[H_ZERO] = (clv_host_image){0, H, 1, CLV_U8, W, F.blob};
    F.hi[H_WIDE] = (clv_host_image){70000, 1, 1, CLV_U8, 70000, F.blob};
    F.hi[H_BADTYPE] = (clv_host_image){W, H, 1, (clv_pixel_type)99, W * 4, F.blob};
    for (int i = 0; i < W * H * 2; i++)
        ((float *)F.blob)[i] = (float)(i % 7) - 3.0f;
    make_files();
}

static void teardown(void)
{
    const int owned[] = {H_U8, H_U8C3, H_U8C4, H_U16, H_F32, H_F32C3, H_F32C4};
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++)
        clv_host_image_free(&F.hi[owned[i]]);
    free(F.blob);
    for (int i = 0; i < P_COUNT; i++)
        clv_pyramid_release(F.py[i]);
    for (int i = 0; i < I_COUNT; i++)
        clv_image_release(F.im[i]);
    clv_context_release(F.ctx2);
    clv_context_release(F.ctx);
    test_remove_tree(F.dir);
}

/* ---- NaN and Inf pixels --------------------------------------------------
 * Each check runs on ctx (the device's own kernel family) and again on a
 * context with CLV_TUNE=generic (the GPU-style family), feeds non-finite
 * pixels and compares with what the header documents for the operation.
 * Non-finite data must also never make an operation crash, hang or read or
 * write out of bounds: the checks run on sizes that are not multiples of
 * the vector widths and work-group sizes. */

#define NW 37
#define NH 23

static clv_image *nimg(clv_context *ctx, int w, int h, int cn, clv_pixel_type t, const void *data)
{
    clv_image *img = NULL;
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, cn, t, &img));
    if (data)
        REQUIRE_OK(ctx, clv_image_upload(img, data, 0));
    return img;
}

static float *ndown(clv_context *ctx, clv_image *img)
{
    size_t n = (size_t)clv_image_width(img) * (size_t)clv_image_height(img) *
               (size_t)clv_image_channels(img);
    float *buf = malloc(n * sizeof *buf);
    REQUIRE(buf, "malloc");
    REQUIRE_OK(ctx, clv_image_download(img, buf, 0));
    return buf;
}

/* A smooth f32 test image with one special value at (px, py). */
static void nfill(float *buf, int w, int h, int cn, int px, int py, float special)
{
    for (int i = 0; i < w * h * cn; i++)
        buf[i] = 0.5f + 0.3f * sinf((float)i * 0.37f);
    if (px >= 0)
        for (int c = 0; c < cn; c++)
            buf[((size_t)py * w + px) * cn + c] = special;
}

/* Outputs non-finite exactly where inside(x, y) says (when exact) or at
 * least at (px, py) and nowhere outside (when not exact). */
typedef int (*region_fn)(int x, int y, const int *k);

static void expect_region(const char *what, const float *out, int w, int h, int cn,
                          region_fn inside, const int *k, int exact)
{
    int bad_out = 0, bad_in = 0, fx = -1, fy = -1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int nonfinite = 0;
            for (int c = 0; c < cn; c++)
                nonfinite |= !isfinite(out[((size_t)y * w + x) * cn + c]);
            if (inside(x, y, k)) {
                if (!nonfinite && exact) {
                    bad_in++;
                    fx = x;
                    fy = y;
                }
            } else if (nonfinite) {
                bad_out++;
                fx = x;
                fy = y;
            }
        }
    T(bad_out == 0 && bad_in == 0,
      "%s: %d non-finite outputs outside the documented region, %d finite inside (e.g. %d,%d)",
      what, bad_out, bad_in, fx, fy);
}

/* k = {x0, x1, y0, y1}: the rectangle x0..x1 x y0..y1. */
static int in_rect(int x, int y, const int *k) { return x >= k[0] && x <= k[1] && y >= k[2] && y <= k[3]; }
/* k = {px, py, r}: the disc of radius r around (px, py) (the bilateral's window) */
static int in_disc(int x, int y, const int *k)
{
    return (x - k[0]) * (x - k[0]) + (y - k[1]) * (y - k[1]) <= k[2] * k[2];
}
/* k = {px, py, ky_after, kx_after}: before the window rows and columns is finite */
static int box_reach(int x, int y, const int *k) { return !(y < k[1] - k[2] || x < k[0] - k[3]); }

static const float specials[2] = {NAN, INFINITY};
static const char *const special_names[2] = {"NaN", "+Inf"};

static void nan_transpose(clv_context *ctx)
{
    float in[NW * NH], out[NW * NH];
    nfill(in, NW, NH, 1, 5, 3, NAN);
    in[7] = INFINITY;
    in[8] = -INFINITY;
    clv_image *a = nimg(ctx, NW, NH, 1, CLV_F32, in), *b = nimg(ctx, NH, NW, 1, CLV_F32, NULL);
    REQUIRE_OK(ctx, clv_transpose(ctx, a, b));
    REQUIRE_OK(ctx, clv_image_download(b, out, 0));
    int same = 1;
    for (int y = 0; y < NH; y++)
        for (int x = 0; x < NW; x++)
            same &= memcmp(&out[x * NH + y], &in[y * NW + x], sizeof(float)) == 0;
    T(same, "transpose: NaN/Inf pixels must be copied bit for bit");
    clv_image_release(a);
    clv_image_release(b);
}

static void nan_resize(clv_context *ctx)
{
    for (int s = 0; s < 2; s++) {
        float in[NW * NH];
        nfill(in, NW, NH, 1, 10, 7, specials[s]);
        clv_image *a = nimg(ctx, NW, NH, 1, CLV_F32, in), *b = nimg(ctx, NW, NH, 1, CLV_F32, NULL);
        REQUIRE_OK(ctx, clv_resize(ctx, a, b));
        float *out = ndown(ctx, b);
        /* same size: output (x, y) interpolates (x..x+1, y..y+1) */
        const int k[4] = {9, 10, 6, 7};
        char what[64];
        snprintf(what, sizeof what, "resize (same size), %s", special_names[s]);
        expect_region(what, out, NW, NH, 1, in_rect, k, 0);
        T(!isfinite(out[7 * NW + 10]), "%s: the pixel itself must stay non-finite", what);
        free(out);
        clv_image_release(b);
        /* 2x up: source x = (dx + 0.5) / 2 - 0.5; the pixel reaches dx 19..22 */
        b = nimg(ctx, 2 * NW, 2 * NH, 1, CLV_F32, NULL);
        REQUIRE_OK(ctx, clv_resize(ctx, a, b));
        out = ndown(ctx, b);
        const int k2[4] = {19, 22, 13, 16};
        snprintf(what, sizeof what, "resize (2x up), %s", special_names[s]);
        expect_region(what, out, 2 * NW, 2 * NH, 1, in_rect, k2, 0);
        T(!isfinite(out[14 * 2 * NW + 20]), "%s: the pixel's own outputs must be non-finite", what);
        free(out);
        clv_image_release(a);
        clv_image_release(b);
    }
}

static void nan_box(clv_context *ctx)
{
    for (int s = 0; s < 2; s++) {
        float in[NW * NH * 3];
        nfill(in, NW, NH, 3, 12, 9, specials[s]);
        clv_image *a = nimg(ctx, NW, NH, 3, CLV_F32, in), *b = nimg(ctx, NW, NH, 3, CLV_F32, NULL);
        REQUIRE_OK(ctx, clv_box_filter(ctx, a, b, 5, 4, CLV_BORDER_REFLECT101));
        float *out = ndown(ctx, b);
        /* window of output y spans y - 2 .. y + 1: rows y < 9 - 1 never see
         * row 9; columns x < 12 - 2 never see column 12 */
        const int k[4] = {12, 9, 1, 2};
        char what[64];
        snprintf(what, sizeof what, "box filter, %s", special_names[s]);
        expect_region(what, out, NW, NH, 3, box_reach, k, 0);
        T(!isfinite(out[(9 * NW + 12) * 3]), "%s: the pixel itself must be non-finite", what);
        free(out);
        clv_image_release(a);
        clv_image_release(b);
    }
}

static void nan_gaussian(clv_context *ctx)
{
    for (int s = 0; s < 2; s++) {
        float in[NW * NH];
        nfill(in, NW, NH, 1, 12, 9, specials[s]);
        clv_image *a = nimg(ctx, NW, NH, 1, CLV_F32, in), *b = nimg(ctx, NW, NH, 1, CLV_F32, NULL);
        REQUIRE_OK(ctx, clv_gaussian_blur(ctx, a, b, 1.0, 0.0, 0, 5, CLV_BORDER_REFLECT101));
        float *out = ndown(ctx, b);
        const int k[4] = {12 - 3, 12 + 3, 9 - 2, 9 + 2}; /* 7 x 5 taps */
        char what[64];
        snprintf(what, sizeof what, "gaussian, %s", special_names[s]);
        expect_region(what, out, NW, NH, 1, in_rect, k, 1);
        free(out);
        clv_image_release(a);
        clv_image_release(b);
    }
}

static void nan_bilateral(clv_context *ctx)
{
    for (int s = 0; s < 2; s++) {
        float in[NW * NH * 3];
        nfill(in, NW, NH, 3, 12, 9, specials[s]);
        clv_image *a = nimg(ctx, NW, NH, 3, CLV_F32, in), *b = nimg(ctx, NW, NH, 3, CLV_F32, NULL);
        REQUIRE_OK(ctx, clv_bilateral(ctx, a, b, 2.0, 0.3, 2, CLV_BORDER_REPLICATE));
        float *out = ndown(ctx, b);
        const int k[3] = {12, 9, 2}; /* radius 2 around the special pixel */
        char what[64];
        snprintf(what, sizeof what, "bilateral, %s", special_names[s]);
        expect_region(what, out, NW, NH, 3, in_disc, k, 1);
        free(out);
        clv_image_release(a);
        clv_image_release(b);
    }
}

static void nan_grid(clv_context *ctx)
{
    /* s_s 4, blur 1 (radius 3 cells): a NaN at x = 2 reaches cells up to
     * 1 + 3, i.e. pixels x < 20; everything from x = 24 on is unaffected. */
    enum { GW = 96, GH = 16 };
    for (int cn = 1; cn <= 3; cn += 2) {
        float *in = malloc(sizeof(float) * GW * GH * 3);
        REQUIRE(in, "malloc");
        nfill(in, GW, GH, cn, 2, 8, NAN);
        clv_image *a = nimg(ctx, GW, GH, cn, CLV_F32, in), *b = nimg(ctx, GW, GH, cn, CLV_F32, NULL);
        clv_grid_params p = {4.0, 0.1, 1.0};
        REQUIRE_OK(ctx, clv_bilateral_grid(ctx, a, b, &p));
        float *out = ndown(ctx, b);
        const int k[4] = {0, 23, 0, GH - 1};
        char what[64];
        snprintf(what, sizeof what, "bilateral grid, %d channel(s), NaN", cn);
        expect_region(what, out, GW, GH, cn, in_rect, k, 0);
        free(out);
        /* +Inf is refused (the range axis would be infinite) */
        nfill(in, GW, GH, cn, 2, 8, INFINITY);
        REQUIRE_OK(ctx, clv_image_upload(a, in, 0));
        clv_status st = clv_bilateral_grid(ctx, a, b, &p);
        T(st == CLV_ERROR_INVALID_ARGUMENT && ci_contains(clv_last_error(ctx), "not finite"),
          "bilateral grid, %d channel(s), +Inf: got %s (%s)", cn, clv_status_string(st),
          clv_last_error(ctx));
        free(in);
        clv_image_release(a);
        clv_image_release(b);
    }
}

static void nan_tonemap(clv_context *ctx)
{
    enum { TW = 40, TH = 30 };
    float in[TW * TH * 3];
    for (int i = 0; i < TW * TH * 3; i++)
        in[i] = 0.01f + (float)(i % 97) * 0.5f;
    for (int c = 0; c < 3; c++) {
        in[(5 * TW + 5) * 3 + c] = NAN;
        in[(6 * TW + 20) * 3 + c] = INFINITY;
        in[(7 * TW + 30) * 3 + c] = -1.0f;
    }
    clv_image *a = nimg(ctx, TW, TH, 3, CLV_F32, in), *b = nimg(ctx, TW, TH, 3, CLV_U8, NULL);
    REQUIRE_OK(ctx, clv_tonemap_local(ctx, a, b, NULL));
    unsigned char out[TW * TH * 3];
    REQUIRE_OK(ctx, clv_image_download(b, out, 0));
    const unsigned char *nan_px = out + (5 * TW + 5) * 3, *inf_px = out + (6 * TW + 20) * 3,
                        *neg_px = out + (7 * TW + 30) * 3;
    T(nan_px[0] == 0 && nan_px[1] == 0 && nan_px[2] == 0, "tonemap: NaN pixel is %d,%d,%d, not black",
      nan_px[0], nan_px[1], nan_px[2]);
    T(inf_px[0] == 255 && inf_px[1] == 255 && inf_px[2] == 255,
      "tonemap: +Inf pixel is %d,%d,%d, not white", inf_px[0], inf_px[1], inf_px[2]);
    T(neg_px[0] == 0 && neg_px[1] == 0 && neg_px[2] == 0,
      "tonemap: negative pixel is %d,%d,%d, not black", neg_px[0], neg_px[1], neg_px[2]);
    int lit = 0;
    for (int i = 0; i < TW * TH * 3; i++)
        lit += out[i] > 0 && out[i] < 255;
    T(lit > TW * TH, "tonemap: only %d mid-tone values around non-finite pixels", lit);
    clv_image_release(a);
    clv_image_release(b);
}

static void nan_pyramid(clv_context *ctx)
{
    for (int s = 0; s < 2; s++) {
        float in[NW * NH];
        nfill(in, NW, NH, 1, 10, 8, specials[s]);
        clv_image *a = nimg(ctx, NW, NH, 1, CLV_F32, in);
        clv_pyramid *p = NULL;
        REQUIRE_OK(ctx, clv_pyramid_create(ctx, NW, NH, 1, CLV_F32, 2, 0.5, &p));
        REQUIRE_OK(ctx, clv_pyramid_build(ctx, p, a));
        clv_image *l1 = (clv_image *)clv_pyramid_level(p, 1);
        float *out = ndown(ctx, l1);
        /* level 1 (x, y) reads level 0 columns 2x-2..2x+2, rows 2y-2..2y+2 */
        const int k[4] = {4, 6, 3, 5};
        char what[64];
        snprintf(what, sizeof what, "pyramid level 1, %s", special_names[s]);
        expect_region(what, out, (NW + 1) / 2, (NH + 1) / 2, 1, in_rect, k, 1);
        free(out);
        clv_pyramid_release(p);
        clv_image_release(a);
    }
}

/* A 64x48 f32 image with bright squares (corners) on a dark background. */
static void corner_image(float *img)
{
    for (int y = 0; y < 48; y++)
        for (int x = 0; x < 64; x++)
            img[y * 64 + x] = ((x >= 8 && x < 20 && y >= 8 && y < 20) ||
                               (x >= 30 && x < 44 && y >= 24 && y < 40))
                                  ? 0.9f
                                  : 0.1f;
}

static void nan_corners(clv_context *ctx)
{
    float img[64 * 48];
    clv_corner ref[64], got[64];
    int nref = 0, ngot = 0;
    clv_corner_params p = clv_corner_params_default();
    p.max_corners = 64;
    p.min_distance = 3.0;
    corner_image(img);
    clv_image *a = nimg(ctx, 64, 48, 1, CLV_F32, img);
    REQUIRE_OK(ctx, clv_corners_shi_tomasi(ctx, a, &p, ref, &nref));
    T(nref >= 8, "corners: only %d corners on the reference image", nref);
    for (int s = 0; s < 2; s++) {
        /* far from every corner: the result must not change */
        img[44 * 64 + 56] = specials[s];
        REQUIRE_OK(ctx, clv_image_upload(a, img, 0));
        REQUIRE_OK(ctx, clv_corners_shi_tomasi(ctx, a, &p, got, &ngot));
        int same = ngot == nref;
        for (int i = 0; same && i < ngot; i++)
            same = got[i].x == ref[i].x && got[i].y == ref[i].y &&
                   got[i].response == ref[i].response;
        T(same, "corners, %s far away: %d corners, %d without it", special_names[s], ngot, nref);
        /* on the corner (8, 8): corners near it go, no corner is non-finite */
        img[44 * 64 + 56] = 0.1f;
        img[8 * 64 + 8] = specials[s];
        REQUIRE_OK(ctx, clv_image_upload(a, img, 0));
        REQUIRE_OK(ctx, clv_corners_shi_tomasi(ctx, a, &p, got, &ngot));
        int near = 0, bad = 0;
        for (int i = 0; i < ngot; i++) {
            near += fabsf(got[i].x - 8) <= 2 && fabsf(got[i].y - 8) <= 2;
            bad += !isfinite(got[i].response) || !(got[i].response > 0);
        }
        T(ngot > 0 && near == 0 && bad == 0,
          "corners, %s on a corner: %d corners, %d next to it, %d non-finite", special_names[s],
          ngot, near, bad);
        img[8 * 64 + 8] = 0.9f;
    }
    clv_image_release(a);
}

static void nan_lk(clv_context *ctx)
{
    float clean[64 * 48], bad[64 * 48];
    for (int y = 0; y < 48; y++)
        for (int x = 0; x < 64; x++)
            clean[y * 64 + x] = 0.5f + 0.2f * sinf((float)x * 0.5f) * cosf((float)y * 0.4f);
    clv_pyramid *p0 = NULL, *p1 = NULL;
    REQUIRE_OK(ctx, clv_pyramid_create(ctx, 64, 48, 1, CLV_F32, 2, 0.5, &p0));
    REQUIRE_OK(ctx, clv_pyramid_create(ctx, 64, 48, 1, CLV_F32, 2, 0.5, &p1));
    clv_image *a = nimg(ctx, 64, 48, 1, CLV_F32, clean), *b = nimg(ctx, 64, 48, 1, CLV_F32, NULL);
    clv_lk_params lp = clv_lk_params_default();
    lp.win_width = lp.win_height = 7;
    lp.levels = 2;
    lp.max_iterations = CLV_LK_MAX_ITERATIONS;
    lp.epsilon = 0.0;
    /* the special pixel in prev, in next, in both */
    for (int k = 0; k < 6; k++) {
        const int where = k % 3;
        memcpy(bad, clean, sizeof bad);
        bad[20 * 64 + 20] = specials[k / 3];
        REQUIRE_OK(ctx, clv_image_upload(a, where != 1 ? bad : clean, 0));
        REQUIRE_OK(ctx, clv_image_upload(b, where != 0 ? bad : clean, 0));
        REQUIRE_OK(ctx, clv_pyramid_build(ctx, p0, a));
        REQUIRE_OK(ctx, clv_pyramid_build(ctx, p1, b));
        clv_point in[5] = {{20, 20}, {45, 30}, {NAN, 10}, {10, INFINITY}, {21.5f, 18.5f}}, out[5];
        uint8_t st[5];
        float err[5];
        REQUIRE_OK(ctx, clv_lk_track(ctx, p0, p1, in, out, st, err, 5, &lp));
        const char *names[3] = {"prev", "next", "both"};
        T(st[0] == 0 && st[4] == 0, "lk: %s pixel in %s: points whose window holds it tracked (%d, %d)",
          special_names[k / 3], names[where], st[0], st[4]);
        T(st[1] == 1 && fabsf(out[1].x - 45) < 0.01f && fabsf(out[1].y - 30) < 0.01f,
          "lk: %s pixel in %s: a point far from it: status %d at %g,%g", special_names[k / 3],
          names[where], st[1], out[1].x, out[1].y);
        T(st[2] == 0 && st[3] == 0, "lk: non-finite points tracked (%d, %d)", st[2], st[3]);
        for (int i = 0; i < 5; i++)
            if (st[i])
                T(isfinite(out[i].x) && isfinite(out[i].y) && isfinite(err[i]),
                  "lk: tracked point %d is not finite", i);
    }
    clv_pyramid_release(p0);
    clv_pyramid_release(p1);
    clv_image_release(a);
    clv_image_release(b);
}

static void nan_farneback(clv_context *ctx)
{
    enum { FW = 48, FH = 40 };
    float img[FW * FH];
    for (int y = 0; y < FH; y++)
        for (int x = 0; x < FW; x++)
            img[y * FW + x] = 128.0f + 60.0f * sinf((float)x * 0.4f) * cosf((float)y * 0.3f);
    clv_image *b = nimg(ctx, FW, FH, 1, CLV_F32, img);
    img[20 * FW + 24] = NAN;
    clv_image *a = nimg(ctx, FW, FH, 1, CLV_F32, img);
    clv_image *fl = nimg(ctx, FW, FH, 2, CLV_F32, NULL);
    clv_farneback_params fp = clv_farneback_params_default();
    REQUIRE_OK(ctx, clv_farneback(ctx, a, b, fl, &fp));
    float *out = ndown(ctx, fl);
    const float *at = out + (20 * FW + 24) * 2;
    T(!isfinite(at[0]) || !isfinite(at[1]), "farneback: flow at the NaN pixel is finite (%g, %g)",
      at[0], at[1]);
    free(out);
    clv_image_release(fl);
    clv_image_release(a);
    clv_image_release(b);
}

static void nan_flow_util(clv_context *ctx)
{
    float fl[NW * NH * 2], gt[NW * NH * 2];
    for (int i = 0; i < NW * NH * 2; i++)
        fl[i] = gt[i] = (float)(i % 9) * 0.5f - 2.0f;
    fl[(3 * NW + 4) * 2] = NAN;
    fl[(3 * NW + 5) * 2 + 1] = INFINITY;
    fl[(3 * NW + 6) * 2] = 2e9f;
    clv_image *f = nimg(ctx, NW, NH, 2, CLV_F32, fl), *g = nimg(ctx, NW, NH, 2, CLV_F32, gt);
    clv_image *rgb = nimg(ctx, NW, NH, 3, CLV_U8, NULL);
    for (int m = 0; m < 2; m++) {
        REQUIRE_OK(ctx, clv_flow_to_color(ctx, f, rgb, m ? 5.0 : 0.0));
        unsigned char out[NW * NH * 3];
        REQUIRE_OK(ctx, clv_image_download(rgb, out, 0));
        for (int x = 4; x <= 6; x++) {
            const unsigned char *p = out + (3 * NW + x) * 3;
            T(p[0] == 0 && p[1] == 0 && p[2] == 0, "flow_to_color (max %d): unknown flow at %d is %d,%d,%d",
              m * 5, x, p[0], p[1], p[2]);
        }
        int lit = 0;
        for (int i = 0; i < NW * NH * 3; i++)
            lit += out[i] != 0;
        T(lit > NW * NH, "flow_to_color (max %d): the known flow is black", m * 5);
    }
    /* unknown ground truth is left out; a non-finite estimate where the
     * ground truth is known makes AEE and AAE non-finite */
    clv_flow_stats st;
    REQUIRE_OK(ctx, clv_flow_eval(ctx, g, f, &st));
    T(st.valid == NW * NH - 3 && st.aee == 0.0 && st.aae == 0.0,
      "flow_eval: unknown ground truth: valid %lld, aee %g", (long long)st.valid, st.aee);
    REQUIRE_OK(ctx, clv_flow_eval(ctx, f, g, &st));
    T(st.valid == NW * NH && !isfinite(st.aee) && !isfinite(st.aae),
      "flow_eval: non-finite estimate: valid %lld, aee %g, aae %g", (long long)st.valid, st.aee,
      st.aae);

    /* warp: a NaN displacement reads column (row) 0; a non-finite source
     * pixel reaches the outputs that interpolate next to it */
    float src[NW * NH], zero[NW * NH * 2];
    nfill(src, NW, NH, 1, -1, -1, 0.0f);
    memset(zero, 0, sizeof zero);
    zero[(5 * NW + 9) * 2] = NAN; /* u NaN, v 0 at (9, 5) */
    clv_image *s = nimg(ctx, NW, NH, 1, CLV_F32, src), *z = nimg(ctx, NW, NH, 2, CLV_F32, zero);
    clv_image *d = nimg(ctx, NW, NH, 1, CLV_F32, NULL);
    REQUIRE_OK(ctx, clv_warp(ctx, s, z, d));
    float *out = ndown(ctx, d);
    T(out[5 * NW + 9] == src[5 * NW + 0], "warp: NaN u at (9,5) gave %g, not column 0 (%g)",
      out[5 * NW + 9], src[5 * NW]);
    free(out);
    /* infinite displacements clamp to the border like any other */
    zero[(5 * NW + 9) * 2] = INFINITY;
    zero[(6 * NW + 9) * 2] = -INFINITY;
    zero[(7 * NW + 9) * 2 + 1] = 1e30f;
    REQUIRE_OK(ctx, clv_image_upload(z, zero, 0));
    REQUIRE_OK(ctx, clv_warp(ctx, s, z, d));
    out = ndown(ctx, d);
    T(out[5 * NW + 9] == src[5 * NW + NW - 1] && out[6 * NW + 9] == src[6 * NW] &&
          out[7 * NW + 9] == src[(NH - 1) * NW + 9],
      "warp: +Inf/-Inf/1e30 displacements gave %g %g %g, not the border pixels %g %g %g",
      out[5 * NW + 9], out[6 * NW + 9], out[7 * NW + 9], src[5 * NW + NW - 1], src[6 * NW],
      src[(NH - 1) * NW + 9]);
    free(out);
    zero[(6 * NW + 9) * 2] = 0.0f;
    zero[(7 * NW + 9) * 2 + 1] = 0.0f;
    for (int k = 0; k < 2; k++) {
        zero[(5 * NW + 9) * 2] = 0.0f;
        REQUIRE_OK(ctx, clv_image_upload(z, zero, 0));
        nfill(src, NW, NH, 1, 12, 9, specials[k]);
        REQUIRE_OK(ctx, clv_image_upload(s, src, 0));
        REQUIRE_OK(ctx, clv_warp(ctx, s, z, d));
        out = ndown(ctx, d);
        const int kr[4] = {11, 12, 8, 9};
        char what[64];
        snprintf(what, sizeof what, "warp (zero flow), %s source pixel", special_names[k]);
        expect_region(what, out, NW, NH, 1, in_rect, kr, 0);
        T(!isfinite(out[9 * NW + 12]), "%s: the pixel itself must stay non-finite", what);
        free(out);
    }
    clv_image_release(s);
    clv_image_release(z);
    clv_image_release(d);
    clv_image_release(rgb);
    clv_image_release(f);
    clv_image_release(g);
}

/* Host side: transfers keep the bits; PFM and EXR keep NaN and Inf, Radiance
 * HDR writes NaN and negatives as 0 and +Inf as its largest value. */
static void nan_host(clv_context *ctx)
{
    float v[W * H];
    nfill(v, W, H, 1, 1, 0, NAN);
    v[2] = INFINITY;
    v[3] = -INFINITY;
    uint32_t payload = 0x7FC12345u;
    memcpy(&v[4], &payload, sizeof payload);
    clv_image *a = nimg(ctx, W, H, 1, CLV_F32, v);
    float back[W * H];
    REQUIRE_OK(ctx, clv_image_download(a, back, 0));
    T(memcmp(v, back, sizeof v) == 0, "upload/download: NaN/Inf bits changed");
    clv_image_release(a);

    clv_host_image h = {W, H, 1, CLV_F32, W * sizeof(float), v}, r;
    REQUIRE(clv_pfm_write(path_in("nan.pfm"), &h) == CLV_OK, "%s", clv_io_last_error());
    REQUIRE(clv_pfm_read(path_in("nan.pfm"), &r) == CLV_OK, "%s", clv_io_last_error());
    T(memcmp(r.data, v, sizeof v) == 0, "pfm: NaN/Inf not kept bit for bit");
    clv_host_image_free(&r);
    if (clv_io_has_exr()) {
        REQUIRE(clv_exr_write(path_in("nan.exr"), &h) == CLV_OK, "%s", clv_io_last_error());
        REQUIRE(clv_exr_read(path_in("nan.exr"), &r) == CLV_OK, "%s", clv_io_last_error());
        T(memcmp(r.data, v, sizeof v) == 0, "exr: NaN/Inf not kept bit for bit");
        clv_host_image_free(&r);
    }
    REQUIRE(clv_hdr_write(path_in("nan.hdr"), &h) == CLV_OK, "%s", clv_io_last_error());
    REQUIRE(clv_hdr_read(path_in("nan.hdr"), &r) == CLV_OK, "%s", clv_io_last_error());
    const float *p = r.data;
    T(p[3] == 0.0f && p[9] == 0.0f && p[6] > 1e38f && isfinite(p[6]),
      "hdr: NaN -> %g, -Inf -> %g, +Inf -> %g (want 0, 0, the largest value)", p[3], p[9], p[6]);
    clv_host_image_free(&r);
    clv_host_image f;
    REQUIRE(clv_host_image_to_f32(&h, &f, 2.0) == CLV_OK, "%s", clv_io_last_error());
    const float *q = f.data;
    T(isnan(q[1]) && q[2] == INFINITY && q[3] == -INFINITY, "to_f32: NaN/Inf not propagated");
    clv_host_image_free(&f);
    unlink(path_in("nan.pfm"));
    unlink(path_in("nan.exr"));
    unlink(path_in("nan.hdr"));
}

/* convert_type: NaN -> 0 and +-Inf saturated for integers, propagated to
 * f32; convert_color's gray: per pixel; its channel moves: bit for bit. */
static void nan_convert(clv_context *ctx)
{
    float in[NW * NH * 3], f[NW * NH * 3], g[NW * NH];
    uint8_t u[NW * NH * 3];
    for (int i = 0; i < NW * NH * 3; i++)
        in[i] = (float)(i % 7) * 0.25f;
    in[4] = NAN;
    in[10] = INFINITY;
    in[11] = -INFINITY;
    clv_image *a = nimg(ctx, NW, NH, 3, CLV_F32, in), *b = nimg(ctx, NW, NH, 3, CLV_U8, NULL);
    clv_image *c = nimg(ctx, NW, NH, 3, CLV_F32, NULL), *d = nimg(ctx, NW, NH, 1, CLV_F32, NULL);
    REQUIRE_OK(ctx, clv_convert_type(ctx, a, b, 4.0));
    REQUIRE_OK(ctx, clv_image_download(b, u, 0));
    T(u[4] == 0 && u[10] == 255 && u[11] == 0 && u[5] == 5,
      "convert_type f32 -> u8: NaN %d, +Inf %d, -Inf %d (want 0, 255, 0)", u[4], u[10], u[11]);
    REQUIRE_OK(ctx, clv_convert_color(ctx, a, c, CLV_COLOR_RGB2BGR));
    REQUIRE_OK(ctx, clv_image_download(c, f, 0));
    T(isnan(f[4]) && f[10] == INFINITY && f[9] == -INFINITY, "convert_color rgb2bgr: NaN/Inf moved");
    REQUIRE_OK(ctx, clv_convert_color(ctx, a, d, CLV_COLOR_RGB2GRAY));
    REQUIRE_OK(ctx, clv_image_download(d, g, 0));
    int others = 1;
    for (int i = 4; i < NW * NH; i++)
        others &= isfinite(g[i]);
    T(isnan(g[1]) && !isfinite(g[3]) && others, "convert_color rgb2gray: NaN/Inf beyond their pixels");
    clv_image_release(a);
    clv_image_release(b);
    clv_image_release(c);
    clv_image_release(d);
}

static const struct nan_check {
    const char *fn;
    void (*check)(clv_context *ctx);
} nan_checks[] = {
    {"clv_transpose", nan_transpose},     {"clv_resize", nan_resize},
    {"clv_box_filter", nan_box},          {"clv_gaussian_blur", nan_gaussian},
    {"clv_bilateral", nan_bilateral},     {"clv_bilateral_grid", nan_grid},
    {"clv_tonemap_local", nan_tonemap},   {"clv_pyramid_build", nan_pyramid},
    {"clv_corners_shi_tomasi", nan_corners}, {"clv_lk_track", nan_lk},
    {"clv_farneback", nan_farneback},     {"clv_flow_to_color", nan_flow_util},
    {"clv_image_upload", nan_host},       {"clv_convert_type", nan_convert},
};

/* ---- coverage: the public functions named in the headers ---------------- */

/* Names of the functions declared CLV_API in include/clvision/ (found next
 * to CLV_TEST_DATA, i.e. tests/data/../../include/clvision). */
static int header_functions(char names[][64], int cap)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/../../include/clvision", test_data_path(""));
    DIR *d = opendir(dir);
    REQUIRE(d, "cannot open the headers at %s: %s", dir, strerror(errno));
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 3 || strcmp(e->d_name + len - 2, ".h") != 0)
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t size;
        char *text = (char *)test_slurp(path, &size);
        for (char *p = strstr(text, "CLV_API"); p; p = strstr(p + 7, "CLV_API")) {
            /* skip the macro's own definition and mentions in comments */
            const char *line = p;
            while (line > text && line[-1] != '\n')
                line--;
            while (*line == ' ')
                line++;
            if (line != p)
                continue;
            char *paren = strchr(p, '(');
            char *semi = strchr(p, ';');
            if (!paren || (semi && semi < paren))
                continue;
            char *end = paren;
            while (end > p && isspace((unsigned char)end[-1]))
                end--;
            char *start = end;
            while (start > p && (isalnum((unsigned char)start[-1]) || start[-1] == '_'))
                start--;
            if (end - start <= 0 || end - start >= 64)
                continue;
            REQUIRE(n < cap, "too many public functions");
            memcpy(names[n], start, (size_t)(end - start));
            names[n][end - start] = '\0';
            n++;
        }
        free(text);
    }
    closedir(d);
    return n;
}

/* ---- the run -------------------------------------------------------------- */

static const char *msg_of(int kind)
{
    switch (kind) {
    case M_CTX: return clv_last_error(F.ctx);
    case M_IO: return clv_io_last_error();
    case M_CREATE: return clv_context_create_error();
    }
    return "";
}

/* A good call after every row: the context still works and its last error
 * is cleared; after I/O rows a good file still reads. */
static void good_calls(const row *r, int io)
{
    clv_status s = clv_transpose(F.ctx, F.im[I_U8], F.im[I_U8T]);
    if (s == CLV_OK)
        s = clv_finish(F.ctx);
    unsigned char out[W * H];
    if (s == CLV_OK)
        s = clv_image_download(F.im[I_U8T], out, 0);
    T(s == CLV_OK && clv_last_error(F.ctx)[0] == '\0' && memcmp(out, F.tr, sizeof out) == 0,
      "after '%s: %s' the context is not usable: %s %s", r->fn, r->what, clv_status_string(s),
      clv_last_error(F.ctx));
    if (io) {
        clv_host_image h;
        s = clv_image_read(path_in("good.png"), &h);
        T(s == CLV_OK && h.width == W && h.height == H &&
              memcmp(h.data, F.hi[H_U8].data, W * H) == 0,
          "after '%s: %s' a good PNG does not read: %s", r->fn, r->what, clv_io_last_error());
        clv_host_image_free(&h);
    }
}

static int needs_exr(const row *r)
{
    return (r->s && strstr(r->s, ".exr")) || (!strncmp(r->fn, "clv_exr_", 8) && r->s);
}

int main(void)
{
    setup();
    setvbuf(stdout, NULL, _IOLBF, 0);

    /* every public function has an api[] entry, except the typed front of a
     * described operation (clv_<descriptor name>) without one: test_op's
     * matrix, generated from its descriptor, covers it */
    static char names[256][64];
    int nnames = header_functions(names, 256);
    T(nnames >= 70, "only %d public functions found in the headers", nnames);
    int generated = 0;
    for (int i = 0; i < nnames; i++) {
        size_t k = 0;
        while (k < NAPI && strcmp(api[k].name, names[i]) != 0)
            k++;
        const clv_op_desc *op = clv_op_find(names[i] + 4);
        if (k == NAPI && op && strcmp(op->name, names[i] + 4) == 0) {
            generated++;
            continue;
        }
        T(k < NAPI, "public function %s has no entry (and no rows) in the bad-input matrix",
          names[i]);
    }
    printf("%d public functions; %d covered by test_op's generated matrix alone\n", nnames,
           generated);

    int rows_per_api[NAPI];
    memset(rows_per_api, 0, sizeof rows_per_api);
    int skipped = 0;
    for (size_t i = 0; i < NROWS; i++) {
        const row *r = &rows[i];
        size_t k = 0;
        while (k < NAPI && strcmp(api[k].name, r->fn) != 0)
            k++;
        REQUIRE(k < NAPI, "row '%s': unknown function %s", r->what, r->fn);
        rows_per_api[k]++;
        if (!clv_io_has_exr() && needs_exr(r)) {
            skipped++;
            continue;
        }
        /* a message no row produces, to see that the row set its own */
        clv_host_image scratch;
        (void)clv_image_read("", &scratch);
        char marker[256];
        snprintf(marker, sizeof marker, "%s", clv_io_last_error());

        long got = api[k].fn(r);
        int ok = got == r->want || (r->alt != NO_ALT && got == r->alt);
        const int is_status = r->want <= 0;
        const char *m = r->msg != M_NONE ? msg_of(r->msg) : "";
        printf("%3zu %-28s %-50s -> %s%s%s\n", i, r->fn, r->what,
               is_status ? clv_status_string((clv_status)got) : got ? "right" : "WRONG",
               m[0] && got != CLV_OK ? ": " : "", got != CLV_OK ? m : "");
        T(ok, "%s: %s: got %ld (%s), want %ld (%s)", r->fn, r->what, got,
          is_status ? clv_status_string((clv_status)got) : "value", r->want,
          is_status ? clv_status_string((clv_status)r->want) : "value");
        if (is_status && got != CLV_OK && r->msg != M_NONE && !(r->flags & F_GAP)) {
            T(m[0] != '\0', "%s: %s: no message", r->fn, r->what);
            if (r->msg == M_IO)
                T(strcmp(m, marker) != 0, "%s: %s: the I/O message was not set", r->fn, r->what);
            if (r->needle)
                T(ci_contains(m, r->needle), "%s: %s: message '%s' does not mention '%s'", r->fn,
                  r->what, m, r->needle);
            T(strchr(m, '\n') == NULL, "%s: %s: message of several lines", r->fn, r->what);
        }
        good_calls(r, r->msg == M_IO || !strncmp(r->fn, "clv_io", 6));
    }
    for (size_t k = 0; k < NAPI; k++)
        T(rows_per_api[k] > 0, "%s has no row in the bad-input matrix", api[k].name);

    /* NaN / Inf pixels, on the device's own kernels and on the generic ones */
    clv_context *generic = NULL;
    const char *old_tune = getenv("CLV_TUNE");
    char saved[64] = "";
    if (old_tune)
        snprintf(saved, sizeof saved, "%s", old_tune);
    setenv("CLV_TUNE", "generic", 1);
    REQUIRE(clv_context_create(NULL, &generic) == CLV_OK, "generic context: %s",
            clv_context_create_error());
    if (old_tune)
        setenv("CLV_TUNE", saved, 1);
    else
        unsetenv("CLV_TUNE");
    /* and in debug mode, where every global access of every kernel is
     * bounds-checked: non-finite data must not send an index out of range
     * (a fault fails the REQUIRE_OK of the operation) */
    clv_context *debug = NULL;
    clv_context_options dopt = clv_context_options_default();
    dopt.debug = 1;
    REQUIRE(clv_context_create(&dopt, &debug) == CLV_OK, "debug context: %s",
            clv_context_create_error());
    static const char *const pass_names[3] = {"default", "generic", "debug"};
    for (int pass = 0; pass < 3; pass++) {
        clv_context *ctx = pass == 0 ? F.ctx : pass == 1 ? generic : debug;
        for (size_t i = 0; i < sizeof nan_checks / sizeof nan_checks[0]; i++) {
            int before = test_failures;
            nan_checks[i].check(ctx);
            printf("nan/inf %-8s %-24s %s\n", pass_names[pass], nan_checks[i].fn,
                   test_failures == before ? "as documented" : "NOT AS DOCUMENTED");
        }
    }
    clv_context_release(debug);
    clv_context_release(generic);

    printf("badinput: %zu rows (%d skipped without OpenEXR) over %zu public functions "
           "(%d declared in the headers)\n",
           NROWS, skipped, NAPI, nnames);
    teardown();
    return test_finish("badinput", passed);
}
