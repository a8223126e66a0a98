/* The op-test harness: one operation, by its descriptor, against its plain C
 * reference, over the standard sizes, pixel types, channel counts and enum
 * values (borders) the descriptor allows.
 *
 * An op test is a reference plus a harness call (tests/test_box.c has this one):
 *
 *   static void ref(const harness_case *c, void *user)   // on packed host images
 *   {
 *       (void)user;
 *       const clv_host_image *s = harness_in(c, "src");
 *       ref_box(s->data, s->width, s->height, s->channels, s->type, harness_out(c, "dst")->data,
 *               harness_int(c, "ksize_x"), harness_int(c, "ksize_y"),
 *               (clv_border)harness_int(c, "border")); // every border: swept by the harness
 *   }
 *   ...
 *   static const harness_args ks[] = {HARNESS_SET(HARNESS_INT("ksize_x", 3), HARNESS_INT("ksize_y", 5)),
 *                                     HARNESS_SET(HARNESS_INT("ksize_x", 31), HARNESS_INT("ksize_y", 1))};
 *   harness_result r = harness_run(ctx, &(harness_spec){.op = "box_filter", .ref = ref,
 *                                                       .sweep = ks, .nsweep = HARNESS_COUNT(ks)});
 *   return test_finish("box", r.cases - r.failures);     // exit 1 on any failure
 *
 * An op whose numbers all have defaults needs only .op and .ref; .fixed sets
 * values for every case (HARNESS_SET(HARNESS_DOUBLE("sigma", 1.0))).
 *
 * What it derives from the descriptor (clv_op_find(spec->op)):
 *   - the source: the first input image parameter; every pixel type and
 *     channel count it accepts (spec->types / spec->channels may narrow
 *     them, never widen). Other input images are made the source's size,
 *     with its type and channels where accepted, else their first accepted.
 *   - outputs: every output image, shaped by clv_op_output_shape, created
 *     with every byte 0xCD on the device (pixels the op never writes fail
 *     the comparison); the reference's host outputs start as 0xAB, so a
 *     reference that forgets a pixel fails too.
 *   - the numbers: every scalar parameter starts at its descriptor default,
 *     then takes spec->fixed, then the argument set of the case. Every ENUM
 *     (border) and BOOL parameter named in neither is swept over all its
 *     values. A name that is not a parameter of the op is a failure.
 * Sizes: 1x1, 1x67, 67x1, 7x5, 33x17, 257x3, then spec->extra_sizes, then a
 * 131x97 crop of tests/data/chelsea.png converted to each type and channel
 * count (gray = Rec.601 luma, 2 = R,G, 4 = RGB + a luma alpha; u16 = u8 *
 * 257, f32 = u8 / 255). Random content (test_fill_random): u8/u16 over the
 * full range, f32 in [-1, 2); deterministic per case (spec->seed).
 *
 * Which cases run (bounded for 2 CPU cores on PoCL):
 *   A. the first argument set (or spec->fixed alone): every size x type x
 *      channel count x enum combination;
 *   B. every further argument set: every size x enum combination, the (type,
 *      channels) pair rotating through all pairs;
 *   C. the photo crop: every (type, channels) pair once, argument set and
 *      enum combination rotating.
 * Every fourth case goes through padded host strides (13 bytes more per row)
 * on upload and download, and the download must leave the gap alone. More
 * than HARNESS_MAX_CASES planned cases is a failure (trim the sweep).
 *
 * Comparison (per output, by its type): u8/u16 |got - want| <= int_abs;
 * f32 |got - want| <= max(f32_abs, f32_rel * |want|), NaN never matches;
 * u8/u16 outputs of 1000+ values also fail when the mean signed error
 * exceeds max_bias (truncation instead of rounding passes +-1 but sits near
 * -0.5). exact: bit-identical values. On failure one line names the op, the
 * size, type, channels, every scalar argument, the output, the first bad
 * value (x, y, c), got, expected and the tolerance; every failure also
 * counts in test_failures (testutil), so test_finish() exits 1. A status
 * other than CLV_OK from the op is a failure with its clv_last_error().
 *
 * Views (clv_image_view) are not run here: test_op's views() runs every
 * described op on views against the same op on packed images, with a guard
 * band, from the descriptors alone. Not covered yet: outputs of
 * a size the caller picks (CLV_PARAM_FREE_SIZE: a failure, "not supported"),
 * PYRAMID / ARRAY / STRUCT parameters (required ones: a failure; optional
 * ones are passed as NULL). */
#ifndef CLV_TEST_HARNESS_H
#define CLV_TEST_HARNESS_H

#include <clvision/clvision.h>

#define HARNESS_MAX_ARGS 8    /* named values in one harness_args */
#define HARNESS_MAX_PARAMS 32 /* parameters of one op */
#define HARNESS_MAX_CASES 3000

/* Up to HARNESS_MAX_ARGS named scalar values; the first entry whose name is
 * NULL ends the list. */
typedef struct harness_args {
    clv_arg a[HARNESS_MAX_ARGS];
} harness_args;

/* Initialisers usable in static tables. INT also serves ENUM and BOOL
 * parameters (and DOUBLE ones, converted). */
#define HARNESS_INT(n, x) {(n), CLV_PARAM_INT, {.i = (x)}}
#define HARNESS_DOUBLE(n, x) {(n), CLV_PARAM_DOUBLE, {.d = (x)}}
#define HARNESS_SET(...) {{__VA_ARGS__}}
#define HARNESS_COUNT(arr) ((int)(sizeof(arr) / sizeof((arr)[0])))

typedef struct harness_size {
    int w, h;
} harness_size;

/* Tolerances; harness_spec.tol NULL means HARNESS_TOL_DEFAULT. */
typedef struct harness_tol {
    double int_abs;  /* u8/u16: largest |got - want| */
    double f32_rel;  /* f32: largest |got - want| / |want| ... */
    double f32_abs;  /* ... or this much, whichever is larger */
    double max_bias; /* u8/u16, 1000+ values: largest |mean signed error| */
    int exact;       /* 1: values bit-identical, the rest ignored */
} harness_tol;
#define HARNESS_TOL_DEFAULT ((harness_tol){1.0, 1e-4, 1e-4, 0.2, 0})

/* One case as the reference sees it. Images are packed (stride = width *
 * channels * type size); inputs hold the pixels the op got, outputs are
 * shaped like the op's and must be filled by the reference. */
typedef struct harness_case {
    const clv_op_desc *op;
    const clv_arg *args;                    /* op->nparams values, in descriptor order */
    clv_host_image img[HARNESS_MAX_PARAMS]; /* per parameter index; zero for non-images */
} harness_case;

/* The input / output image parameter `name`, or exit(1) naming the mistake. */
const clv_host_image *harness_in(const harness_case *c, const char *name);
clv_host_image *harness_out(const harness_case *c, const char *name);
/* The value of scalar parameter `name`: INT, ENUM or BOOL / DOUBLE (an INT
 * parameter is also given as a double). exit(1) when there is none. */
int harness_int(const harness_case *c, const char *name);
double harness_double(const harness_case *c, const char *name);

/* Computes every output of c from its inputs and arguments. */
typedef void (*harness_ref)(const harness_case *c, void *user);

typedef struct harness_spec {
    const char *op;            /* descriptor name or CLI name */
    harness_ref ref;           /* required */
    void *user;                /* passed to ref */
    harness_args fixed;        /* values every case gets */
    const harness_args *sweep; /* nsweep argument sets; NULL: spec->fixed alone */
    int nsweep;
    unsigned types, channels;  /* CLV_TYPES / CLV_CHANNELS masks; 0: all the source takes */
    const harness_size *extra_sizes; /* sizes run besides the standard ones */
    int nextra_sizes;
    int no_photo;              /* 1: leave out the photo crop */
    const harness_tol *tol;    /* NULL: HARNESS_TOL_DEFAULT */
    unsigned long long seed;   /* 0: from the op's name */
} harness_spec;

typedef struct harness_result {
    int cases;    /* cases run (each: one op call, compared) */
    int failures; /* cases that failed (also counted in test_failures) */
    double seconds;
} harness_result;

/* Runs every case of spec on ctx (see above), prints each failure and a
 * one-line summary "harness OP: N cases, F failed (...) in S s" to stdout.
 * A spec the harness cannot run (unknown op, bad names, unsupported
 * parameters, too many cases) counts as one failure. */
harness_result harness_run(clv_context *ctx, const harness_spec *spec);

#endif
