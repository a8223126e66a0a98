/* clvision — operations that describe themselves: introspection and calls by
 * name.
 *
 * Every operation of the library (clv_gaussian_blur, clv_farneback, ...) is
 * described once, in its own source file, by a descriptor: its name (the C
 * function's name without "clv_"), a one-line summary, and its parameters in
 * the order of the C prototype, each with a name (as in the prototype, or as
 * the field of the parameter struct), a type, a one-line doc, and for numbers
 * a default and a valid range. The typed C function and a call by name share
 * the descriptor's validation, so both refuse the same values with the same
 * message. The clv command line, its help, the bad-input tests and the Python
 * binding are generated from these descriptors.
 *
 *     const clv_op_desc *op = clv_op_find("gaussian_blur");
 *     clv_arg args[] = {CLV_ARG_IMAGE("src", src), CLV_ARG_IMAGE("dst", dst),
 *                       CLV_ARG_DOUBLE("sigma_x", 2.0)};
 *     clv_status s = clv_op_call(ctx, op, args, 3);   // the rest take their defaults
 *
 * Descriptors are static and immutable: everything here is thread-safe. */
#ifndef CLVISION_OP_H
#define CLVISION_OP_H

#include <stddef.h>
#include <stdint.h>

#include "context.h"
#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a parameter holds. The C type of its value is given per type. */
typedef enum clv_param_type {
    CLV_PARAM_IMAGE = 0,   /* clv_image * (inputs: const) */
    CLV_PARAM_INT = 1,     /* int */
    CLV_PARAM_DOUBLE = 2,  /* double */
    CLV_PARAM_BOOL = 3,    /* int, 0 or 1 */
    CLV_PARAM_ENUM = 4,    /* int, one of the parameter's enum values */
    CLV_PARAM_PYRAMID = 5, /* clv_pyramid * (inputs: const); see "Pyramids" below */
    CLV_PARAM_ARRAY = 6,   /* pointer to elem_size-byte elements (points, corners, ...);
                              its length is the INT parameter named by length_param;
                              see "Arrays" below */
    CLV_PARAM_STRUCT = 7,  /* pointer to one elem_size-byte value: a result struct
                              (clv_flow_stats), or an int * for a count written back
                              (CLV_PARAM_COUNT); see "Structs" below */
} clv_param_type;

/* How the non-image pointer types are validated (the same for the typed C
 * function and a call by name; messages name the parameter by its label, or
 * else its name):
 *
 * Pyramids. NULL is refused ("prev pyramid is NULL") unless the parameter is
 * CLV_PARAM_OPTIONAL. The pyramid must belong to the call's context ("...
 * belongs to another context"), its levels must be of the pixel types and
 * channel counts in `types` and `channels` (0: any). `like` may name an
 * IMAGE parameter (the pyramid is for images of that size, type and
 * channels: the like_flags say which must agree) or another PYRAMID
 * parameter (level 0 of both compared: CLV_LIKE_SIZE, _TYPE, _CHANNELS). An
 * OUTPUT pyramid (its levels are written) may not have one of its own levels
 * given as an input image. Rules on a pyramid's levels (how many, their
 * geometry) are the operation's check hook.
 *
 * Arrays. The caller's host memory of n elements, elem_size bytes each, n the
 * value of the INT parameter named length_param (its own range applies: an
 * out-of-range length is refused naming that parameter). NULL is accepted
 * when n is 0 or the parameter is CLV_PARAM_OPTIONAL (then the operation
 * neither reads nor writes it), refused otherwise ("out is NULL (capacity
 * 2)"). INPUT arrays are read, OUTPUT arrays written, both flags: read and
 * written (LK's pts_out with use_initial_flow). For an OUTPUT array the
 * length is its capacity: the operation writes at most that many elements
 * and tells how many it found through a CLV_PARAM_COUNT struct.
 *
 * Structs. One value of elem_size bytes (C type elem_type). NULL is refused
 * unless CLV_PARAM_OPTIONAL. An OUTPUT struct is zeroed before anything is
 * checked, so after any failure it reads 0 (all fields). */

/* Parameter flags. */
enum {
    CLV_PARAM_INPUT = 1 << 0,    /* read by the operation */
    CLV_PARAM_OUTPUT = 1 << 1,   /* written by the operation */
    CLV_PARAM_OPTIONAL = 1 << 2, /* may be left out of a call by name: numbers then take
                                    their default, images and arrays are NULL */
    CLV_PARAM_ODD = 1 << 3,      /* INT: must be odd (except `special`, if any) */
    CLV_PARAM_MIN_OPEN = 1 << 4, /* numbers: value must be > min (else >= min) */
    CLV_PARAM_MAX_OPEN = 1 << 5, /* numbers: value must be < max (else <= max) */
    CLV_PARAM_HAS_SPECIAL = 1 << 6, /* numbers: `special` is valid outside the range,
                                       with the meaning in special_doc */
    CLV_PARAM_SPECIAL_BELOW = 1 << 7, /* with HAS_SPECIAL: every value <= special is valid
                                         and means the same (sigma_y <= 0: sigma_x) */
    CLV_PARAM_FREE_SIZE = 1 << 8, /* output IMAGE: its width and height are the caller's
                                     choice (clv_resize's dst); clv_op_output_shape gives
                                     0 x 0 and the type and channels of its `like` */
    CLV_PARAM_COUNT = 1 << 9,     /* OUTPUT STRUCT of elem_type "int": the number of
                                     elements the operation found for the OUTPUT ARRAY
                                     named by `like` (may exceed that array's capacity;
                                     only min(count, capacity) are written) */
    CLV_PARAM_RGB = 1 << 10,      /* IMAGE: with 3 or 4 channels, they are read (or
                                     written) as R, G, B[, A]: the channel order matters
                                     (an OpenCV BGR array must be swapped; the Python
                                     binding's bgr=True does so). Images without it treat
                                     channels alike or take one channel */
};

/* Pixel types and channel counts an image parameter accepts: bit t of
 * `types` for clv_pixel_type t, bit n of `channels` for n channels. */
#define CLV_TYPES(t) (1u << (t))
#define CLV_TYPES_ALL (CLV_TYPES(CLV_U8) | CLV_TYPES(CLV_U16) | CLV_TYPES(CLV_F32))
#define CLV_CHANNELS(n) (1u << (n))
#define CLV_CHANNELS_1_4 (CLV_CHANNELS(1) | CLV_CHANNELS(2) | CLV_CHANNELS(3) | CLV_CHANNELS(4))

/* How an image parameter must relate to another image parameter
 * (`like`, by name): bits of `like_flags`. */
enum {
    CLV_LIKE_SIZE = 1 << 0,       /* same width and height */
    CLV_LIKE_TYPE = 1 << 1,       /* same pixel type */
    CLV_LIKE_CHANNELS = 1 << 2,   /* same channel count */
    CLV_LIKE_TRANSPOSED = 1 << 3, /* width and height swapped */
    CLV_LIKE_ALL = CLV_LIKE_SIZE | CLV_LIKE_TYPE | CLV_LIKE_CHANNELS,
};

/* One parameter of an operation. Fields that do not apply to the type are 0. */
typedef struct clv_param_desc {
    const char *name;    /* as in the C prototype or parameter struct: "sigma_x" */
    const char *label;   /* images: the word messages use ("source"), else NULL */
    clv_param_type type;
    unsigned flags;      /* CLV_PARAM_* */
    const char *doc;     /* one line, lower case, no final period */
    const char *unit;    /* "px", "cells", "stops", or NULL */
    /* INT, DOUBLE: the valid range (flags say open or closed; +-HUGE_VAL for
     * none) and the default of an optional parameter. ENUM, BOOL: def is the
     * default value. */
    double min, max, def;
    double special;          /* with CLV_PARAM_HAS_SPECIAL */
    const char *special_doc; /* "0: 2*ceil(3*sigma)+1" */
    /* ENUM: n_enum names and their values. */
    int n_enum;
    const char *const *enum_names;
    const int *enum_values;
    /* IMAGE: accepted types and channel counts; a relation to another image. */
    unsigned types, channels;
    const char *like;
    unsigned like_flags;
    /* PYRAMID: `types`, `channels`, `like` and `like_flags` above apply to
     * its levels (see "Pyramids"). COUNT: `like` names the array counted.
     * ARRAY: element size in bytes, C element type name ("clv_point"), and
     * the INT parameter holding the number of elements (an output array's
     * capacity). STRUCT: elem_size and elem_type of the value. */
    size_t elem_size;
    const char *elem_type;
    const char *length_param;
    /* Command-line spellings besides --name-with-dashes, space-separated
     * ("--sigma"), or NULL. One spelling given to two consecutive INT
     * parameters takes one value "WxH" for both (ksize_x and ksize_y:
     * "--ksize 5x3"). The clv command line takes required images as
     * positionals (inputs, then outputs) and optional ones, and required
     * ones with a spelling here, as options naming a file (--edge FILE).
     * Operations may share a cli_name (bilateral_grid and
     * bilateral_grid_cross are both "grid"): the command runs the first
     * whose options cover those given (grid --edge FILE: the cross one). */
    const char *cli_alias;
} clv_param_desc;

struct clv_op_report; /* internal: where a check's message goes */
struct clv_arg;

/* An operation. */
typedef struct clv_op_desc {
    const char *name;      /* the C function's name without "clv_": "gaussian_blur" */
    const char *summary;   /* one line */
    const char *doc;       /* a paragraph (what borders mean, channel order...), or NULL */
    const char *cli_name;  /* the clv command's short name ("gaussian"), or NULL */
    /* NULL: the call enqueues its work and returns without waiting for the
     * device. Otherwise it waits before returning (see "Events" in
     * cl_interop.h), and this says when and why: "reads the corners back". */
    const char *blocking;
    int nparams;
    const clv_param_desc *params;
    /* Internal: the shared body behind the C function and clv_op_call; a
     * holds one value per parameter, in order, already validated. */
    clv_status (*run)(clv_context *ctx, const struct clv_arg *a);
    /* Internal: rules between parameters the table cannot express (e.g. a
     * derived kernel side within its limit), on the numbers only. NULL if
     * none. */
    clv_status (*check)(struct clv_op_report *r, const struct clv_arg *a);
    /* Internal: the shape of output image parameter `index`; NULL when every
     * output image takes all it lacks from its `like`. */
    clv_status (*shape)(struct clv_op_report *r, const struct clv_arg *a, int index, int *width,
                        int *height, int *channels, clv_pixel_type *type);
} clv_op_desc;

/* ---- introspection ---- */

/* Number of operations, and operation i (0..count-1), in a fixed order. */
CLV_API int clv_op_count(void);
CLV_API const clv_op_desc *clv_op_get(int i);
/* The operation named `name` (descriptor name, or the CLI short name; of
 * several sharing a CLI name, the first in clv_op_get's order), or NULL. */
CLV_API const clv_op_desc *clv_op_find(const char *name);
/* Index of parameter `name` of op, or -1. */
CLV_API int clv_op_param_index(const clv_op_desc *op, const char *name);
/* The value of enum parameter p named `name` (ASCII case ignored):
 * CLV_OK, or CLV_ERROR_INVALID_ARGUMENT. */
CLV_API clv_status clv_param_enum_value(const clv_param_desc *p, const char *name, int *value);
/* The name of enum value `value` of p, or NULL. */
CLV_API const char *clv_param_enum_name(const clv_param_desc *p, int value);

/* The rule a value of p must follow, as the messages say it: "odd in 1..255",
 * "0 or odd in 1..255", "> 0", "reflect101, replicate, ..." (enums), "u8, u16
 * or f32 with 1..4 channels" (images); "" for other types. For help texts. */
CLV_API void clv_param_rule(const clv_param_desc *p, char *buf, size_t size);

/* ---- calls by name ---- */

/* One named argument of a call by name. */
typedef struct clv_arg {
    const char *name;
    clv_param_type type; /* must be the parameter's type (INT values may be given as
                            DOUBLE when integral, BOOL and ENUM as INT) */
    union {
        int i;
        double d;
        void *p; /* IMAGE, PYRAMID, ARRAY, STRUCT */
    } v;
} clv_arg;

#define CLV_ARG_IMAGE(n, img) ((clv_arg){(n), CLV_PARAM_IMAGE, {.p = (void *)(img)}})
#define CLV_ARG_INT(n, x) ((clv_arg){(n), CLV_PARAM_INT, {.i = (x)}})
#define CLV_ARG_DOUBLE(n, x) ((clv_arg){(n), CLV_PARAM_DOUBLE, {.d = (x)}})
#define CLV_ARG_PTR(n, t, x) ((clv_arg){(n), (t), {.p = (void *)(x)}})

/* Run op on ctx with named arguments (any order). Parameters not given take
 * their defaults; a required parameter left out, an unknown name, a repeated
 * name or a value of the wrong type is CLV_ERROR_INVALID_ARGUMENT. The
 * arguments are validated exactly as the typed C function validates them
 * (same statuses, same messages in clv_last_error). */
CLV_API clv_status clv_op_call(clv_context *ctx, const clv_op_desc *op, const clv_arg *args,
                               int nargs);

/* One value against p's own rule (range, odd, special value, enum, bool),
 * before a call: CLV_OK, or CLV_ERROR_INVALID_ARGUMENT with the reason in
 * msg ("ksize_x must be in 1..255 (got 0)"). Values are taken as
 * clv_op_call takes them. Rules between parameters need clv_op_check. */
CLV_API clv_status clv_param_check(const clv_param_desc *p, const clv_arg *value, char *msg,
                                   size_t msg_size);
/* The parameter checks alone, without running: what clv_op_call would
 * refuse about the numbers and enums (images, pyramids and arrays are not
 * validated and may be NULL; a check hook's rule that also involves a
 * pyramid, such as LK's levels against the levels built, applies only when
 * the pyramid is given). ctx may be NULL; then the message goes to msg
 * (msg_size bytes, may be 0) instead of clv_last_error. */
CLV_API clv_status clv_op_check(clv_context *ctx, const clv_op_desc *op, const clv_arg *args,
                                int nargs, char *msg, size_t msg_size);

/* Can ctx's device run op with these arguments? Answers without running:
 * the call goes through the operation's own code (the same validation,
 * variant choice, work-group and local-memory fitting and allocation-size
 * checks as clv_op_call) with nothing enqueued, so the answer is the one a
 * call would give, derived from the same rules:
 *   CLV_OK                      the call would run;
 *   CLV_ERROR_UNSUPPORTED       this device cannot (the reason in msg: "row
 *                               pass needs N bytes of local memory, device
 *                               offers M", "needs work-groups of 32 items,
 *                               the device allows 16", ...);
 *   CLV_ERROR_INVALID_ARGUMENT  the arguments are wrong on any device (the
 *                               message clv_op_call would leave);
 *   CLV_ERROR_OPENCL, CLV_ERROR_KERNEL_SOURCE, CLV_ERROR_BUILD,
 *   CLV_ERROR_OUT_OF_MEMORY     as for the call.
 * Images may be real or placeholders (clv_image_placeholder: a shape with no
 * memory), so a size can be asked about before anything is allocated.
 * What it does do: builds the operation's programs for the device if they
 * are not built yet (cached as for a call, so the first real call is then
 * quicker) and may allocate and keep the scratch buffers a call would; it
 * enqueues nothing, reads nothing back and waits for nothing, and
 * clv_last_op_device_time() still answers for the last operation that ran.
 * Limits that depend on data a call reads back from the device while it
 * runs (corner detection's number of candidates) are checked as if that
 * data were empty. Output structs are zeroed as by a call; output arrays
 * are not written. The message goes to msg (msg_size bytes, may be 0) and
 * to clv_last_error(ctx). ctx or op NULL: CLV_ERROR_INVALID_ARGUMENT. */
CLV_API clv_status clv_op_supported(clv_context *ctx, const clv_op_desc *op, const clv_arg *args,
                                    int nargs, char *msg, size_t msg_size);

/* The width, height, channels and type output image parameter `index`
 * would need, given the arguments (its inputs and numbers): from its
 * `like` image, or the one type or channel count it accepts (an f32
 * result of a u8 input), or the operation's shape rule. For an
 * application (or the CLI) that creates outputs before a call by name.
 * CLV_ERROR_INVALID_ARGUMENT (message in msg) when the inputs needed are
 * missing or the parameter is not an output image. */
CLV_API clv_status clv_op_output_shape(const clv_op_desc *op, const clv_arg *args, int nargs,
                                       int index, int *width, int *height, int *channels,
                                       clv_pixel_type *type, char *msg, size_t msg_size);


/* ---- warming the program cache ---- */

/* What clv_cache_warm did: the change of the context's counters over the
 * call (clv_context_stats), and the calls made. */
typedef struct clv_cache_warm_report {
    int ops;                 /* operations warmed */
    int calls;               /* calls made (one per pixel type and channel count) */
    int skipped;             /* combinations with no output shape at the defaults
                                (convert_color's default code takes 3 channels only) */
    uint64_t programs_built; /* programs compiled from source */
    uint64_t cache_hits;     /* programs already in the disk cache */
    uint64_t cache_writes;   /* entries written to the disk cache */
} clv_cache_warm_report;

/* Build ahead of time the programs operations need, so that later
 * processes load them from the disk cache (context.h: cache_dir) instead of
 * compiling. ops: nops operation names (descriptor or CLI names, as
 * clv_op_find takes them); ops NULL and nops 0: every operation. Each
 * operation runs once through clv_op_call on small zeroed images (16 x 12)
 * for every pixel type and channel count its first input accepts, with
 * every number at its default (required ones at a valid value, lengths of
 * arrays at 1), other inputs like the first where their descriptor says
 * so, pyramids built with clv_pyramid_build. Programs that depend on other
 * parameter values or on the image size are built on first use instead:
 * the border modes other than reflect101 (box_filter, gaussian_blur,
 * bilateral), convert_color's other codes (and the channel counts they
 * take), convert_type's other destination types, bilateral_grid_cross with
 * an edge image of another type than u8, transpose's streaming-store
 * variant (destinations of 4 MiB or more, CPU kernels) and lk_track's
 * global-memory patches (windows too large for local memory). Debug mode
 * and CLV_TUNE change every program's options: warm with the settings the
 * later runs use. report may
 * be NULL; it is zeroed first. With the cache off (options.cache,
 * CLV_CACHE=0) this only builds the programs in memory. Every name is
 * checked before anything runs. Returns CLV_OK; CLV_ERROR_INVALID_ARGUMENT
 * for a NULL ctx, ops NULL with nops > 0, nops < 0, a NULL name or an
 * unknown operation (named in clv_last_error); otherwise the first failing
 * call's status, with "cache_warm: <op>: " before its message. Same
 * threading rules as other calls on ctx. */
CLV_API clv_status clv_cache_warm(clv_context *ctx, const char *const *ops, int nops,
                                  clv_cache_warm_report *report);

#ifdef __cplusplus
}
#endif

#endif
