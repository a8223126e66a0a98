/* Operation descriptors (clvision/op.h): the argument matrix generated from
 * every descriptor, calls by name against the typed functions, and the
 * introspection calls.
 *
 * For each described operation the test builds one good call (every input
 * image of the first type and channel count its parameter accepts, every
 * output shaped by clv_op_output_shape, numbers at their defaults or at a
 * valid value) and checks that it runs; then, one change at a time:
 *   - each number at both finite ends of its range runs (closed ends), and
 *     just outside (the next integer, or the next double) is
 *     CLV_ERROR_INVALID_ARGUMENT with the parameter named in the message;
 *     an odd-only integer (CLV_PARAM_ODD) is refused at the two even values
 *     after its smallest odd one (2 and 4 for 1..255);
 *   - NaN and +-Inf for every double; for every enum one past its largest
 *     value, 99 and -1; 2 and -1 for every bool are refused, naming the
 *     parameter;
 *   - every required image NULL, every image of a type or channel count its
 *     parameter does not take, and an output that is an input are refused;
 *   - an image against its `like` image (like_flags): every other type and
 *     channel count it takes, one column or one row more, and for
 *     CLV_LIKE_TRANSPOSED the like image's own shape and a transposed one a
 *     row taller, are refused naming it;
 *   - every image and pyramid of another context is refused ("another
 *     context"), and the call with a NULL context is
 *     CLV_ERROR_INVALID_ARGUMENT (the typed functions' NULL-context rows are
 *     test_badinput's);
 *   - every required pyramid, array (with a length > 0) and struct NULL is
 *     refused naming it; an array NULL with length 0 runs; a pyramid of a
 *     type, channel count or size it does not take, and an input image that
 *     is a level of an output pyramid, are refused; so is one of another
 *     type or channel count (among those it takes) than its `like` when
 *     like_flags say they must agree;
 *   - an output of free size (CLV_PARAM_FREE_SIZE) is made (2W+1) x (H-4);
 *   - after each refusal every OUTPUT struct (a count, flow statistics)
 *     reads 0, as op.h promises, and the context still runs the good call.
 * Pyramids are made (4 levels, scale 0.5) and built like the image or
 * pyramid they are `like`; arrays hold as many zeroed elements as their
 * length parameter says (range ends above that are not run).
 * A new operation is covered by its descriptor alone. With CLV_TEST_LIST=1
 * every case is printed with its status and message. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clvision/cl_interop.h"
#include "testutil.h"

enum { W = 13, H = 9 };

static clv_context *ctx, *ctx2; /* ctx2: for images and pyramids of another context */
static int list_cases;          /* CLV_TEST_LIST=1: print every generated case */
/* supported(): input images of this type where the parameter takes it (0:
 * the first type it takes) and of this size. */
static int force_type, in_w = W, in_h = H;

static int first_bit(unsigned mask, int lo)
{
    for (int b = lo; b < 31; b++)
        if (mask & (1u << b))
            return b;
    return -1;
}

typedef struct call {
    const clv_op_desc *op;
    clv_arg a[32];
    clv_image *own[32];
    clv_pyramid *pyr[32];
    void *mem[32];   /* arrays and structs */
    int alloc_n[32]; /* arrays: elements allocated */
} call;

/* A pyramid of 4 levels (scale 0.5) for w x h images of context cx, built
 * from zeros. */
static clv_pyramid *make_pyramid_in(clv_context *cx, int w, int h, int cn, clv_pixel_type t)
{
    clv_pyramid *p = NULL;
    clv_image *z = NULL;
    REQUIRE_OK(cx, clv_pyramid_create(cx, w, h, cn, t, 4, 0.5, &p));
    const size_t row = (size_t)w * (size_t)cn * clv_pixel_type_size(t);
    void *zeros = calloc((size_t)h, row);
    REQUIRE(zeros, "out of memory");
    REQUIRE_OK(cx, clv_image_create(cx, w, h, cn, t, &z));
    REQUIRE_OK(cx, clv_image_upload(z, zeros, row));
    free(zeros);
    REQUIRE_OK(cx, clv_pyramid_build(cx, p, z));
    REQUIRE_OK(cx, clv_finish(cx));
    clv_image_release(z);
    return p;
}

static clv_pyramid *make_pyramid(int w, int h, int cn, clv_pixel_type t)
{
    return make_pyramid_in(ctx, w, h, cn, t);
}

/* The geometry pyramid parameter i of c takes (from its `like`, else W x H
 * of its first type and channel count). */
static void pyramid_geometry(const call *c, int i, int *w, int *h, int *cn, clv_pixel_type *t)
{
    const clv_param_desc *p = &c->op->params[i];
    *w = W;
    *h = H;
    *cn = first_bit(p->channels ? p->channels : CLV_CHANNELS(1), 1);
    *t = (clv_pixel_type)first_bit(p->types ? p->types : CLV_TYPES_ALL, CLV_U8);
    const int j = p->like ? clv_op_param_index(c->op, p->like) : -1;
    const clv_image *ref = NULL;
    if (j >= 0 && c->op->params[j].type == CLV_PARAM_IMAGE)
        ref = c->a[j].v.p;
    else if (j >= 0 && c->op->params[j].type == CLV_PARAM_PYRAMID && c->a[j].v.p)
        ref = clv_pyramid_level(c->a[j].v.p, 0);
    if (ref) {
        *w = clv_image_width(ref);
        *h = clv_image_height(ref);
        *cn = clv_image_channels(ref);
        *t = clv_image_type(ref);
    }
}

/* 1 when INT parameter i is the length of an array of c allocated with
 * fewer than v elements. */
static int beyond_array(const call *c, int i, double v)
{
    for (int j = 0; j < c->op->nparams; j++) {
        const clv_param_desc *q = &c->op->params[j];
        if (q->type == CLV_PARAM_ARRAY && q->length_param &&
            strcmp(q->length_param, c->op->params[i].name) == 0 && v > c->alloc_n[j])
            return 1;
    }
    return 0;
}

static double valid_number(const clv_param_desc *p)
{
    if (p->flags & CLV_PARAM_OPTIONAL)
        return p->def;
    if (p->def >= p->min && p->def <= p->max && p->def != 0.0)
        return p->def;
    return isfinite(p->min) ? p->min + 1 : 1;
}


/* The k-th channel count (from 0) accepted by an image parameter, or the last
 * one when it accepts fewer. */
static int nth_channels(const clv_param_desc *p, int k)
{
    const unsigned mask = p->channels ? p->channels : CLV_CHANNELS(1);
    int cn = -1;
    for (int b = 1; b <= 4; b++)
        if (mask & CLV_CHANNELS(b)) {
            cn = b;
            if (k-- == 0)
                break;
        }
    return cn;
}

static void free_call(call *c);

/* One try at the good call with every input image of the k-th channel count
 * its parameter accepts, parameter `fix` (-1: none) set to fix_value. 1: made;
 * 0: the op takes something this test cannot make; -1: no output shape for
 * these channel counts (shape_msg says why). */
static int try_call(const clv_op_desc *op, call *c, int k, int fix, int fix_value,
                    char *shape_msg, size_t msg_size)
{
    memset(c, 0, sizeof *c);
    c->op = op;
    for (int i = 0; i < op->nparams; i++) {
        const clv_param_desc *p = &op->params[i];
        c->a[i].name = p->name;
        c->a[i].type = p->type;
        switch (p->type) {
        case CLV_PARAM_DOUBLE:
            c->a[i].v.d = valid_number(p);
            break;
        case CLV_PARAM_INT:
        case CLV_PARAM_BOOL:
        case CLV_PARAM_ENUM:
            c->a[i].v.i = i == fix ? fix_value : (int)valid_number(p);
            break;
        case CLV_PARAM_IMAGE:
            if (p->flags & CLV_PARAM_INPUT) {
                const unsigned types = p->types ? p->types : CLV_TYPES_ALL;
                const int t = force_type && (types & CLV_TYPES(force_type))
                                  ? force_type
                                  : first_bit(types, CLV_U8);
                const int cn = nth_channels(p, k);
                REQUIRE(t >= 0 && cn >= 1, "%s.%s accepts nothing", op->name, p->name);
                REQUIRE_OK(ctx, clv_image_create(ctx, in_w, in_h, cn, (clv_pixel_type)t,
                                                 &c->own[i]));
                c->a[i].v.p = c->own[i];
            }
            break;
        case CLV_PARAM_PYRAMID:
        case CLV_PARAM_ARRAY:
        case CLV_PARAM_STRUCT:
            break; /* below, once the images and numbers are set */
        default:
            return 0;
        }
    }
    for (int i = 0; i < op->nparams; i++) {
        const clv_param_desc *p = &op->params[i];
        if (p->type == CLV_PARAM_PYRAMID) {
            int w, h, cn;
            clv_pixel_type t;
            pyramid_geometry(c, i, &w, &h, &cn, &t);
            c->pyr[i] = make_pyramid(w, h, cn, t);
            c->a[i].v.p = c->pyr[i];
        } else if (p->type == CLV_PARAM_ARRAY) {
            const int j = clv_op_param_index(op, p->length_param);
            REQUIRE(j >= 0 && op->params[j].type == CLV_PARAM_INT, "%s.%s: no length", op->name,
                    p->name);
            const int n = c->a[j].v.i;
            REQUIRE(n >= 0 && n <= (1 << 20), "%s.%s: length %d", op->name, p->name, n);
            c->mem[i] = calloc((size_t)(n > 0 ? n : 1), p->elem_size);
            REQUIRE(c->mem[i], "out of memory");
            c->alloc_n[i] = n;
            c->a[i].v.p = c->mem[i];
        } else if (p->type == CLV_PARAM_STRUCT) {
            REQUIRE(p->elem_size > 0, "%s.%s: no size", op->name, p->name);
            c->mem[i] = calloc(1, p->elem_size);
            REQUIRE(c->mem[i], "out of memory");
            c->a[i].v.p = c->mem[i];
        }
    }
    for (int i = 0; i < op->nparams; i++) {
        const clv_param_desc *p = &op->params[i];
        if (p->type != CLV_PARAM_IMAGE || !(p->flags & CLV_PARAM_OUTPUT))
            continue;
        int w, h, cn;
        clv_pixel_type t;
        clv_status s =
            clv_op_output_shape(op, c->a, op->nparams, i, &w, &h, &cn, &t, shape_msg, msg_size);
        if (s != CLV_OK) {
            free_call(c);
            return -1;
        }
        if (p->flags & CLV_PARAM_FREE_SIZE) {
            /* the caller's choice: wider and shorter than the inputs */
            REQUIRE(w == 0 && h == 0, "%s: free-size %s given as %dx%d", op->name, p->name, w, h);
            w = 2 * W + 1;
            h = H - 4;
        }
        REQUIRE_OK(ctx, clv_image_create(ctx, w, h, cn, t, &c->own[i]));
        c->a[i].v.p = c->own[i];
    }
    return 1;
}

/* The good call (with parameter `fix` at fix_value, or fix -1): input images
 * of the first channel counts their parameters accept for which every
 * output has a shape (an enum such as convert_color's code decides which
 * channel counts its source takes); 0 when the op takes something this test
 * cannot make. */
static int make_call_with(const clv_op_desc *op, call *c, int fix, int fix_value)
{
    char m[256] = "";
    for (int k = 0; k < 4; k++) {
        const int r = try_call(op, c, k, fix, fix_value, m, sizeof m);
        if (r >= 0)
            return r;
    }
    REQUIRE(0, "%s: no output shape for any accepted channel count: %s", op->name, m);
    return 0;
}

static int make_call(const clv_op_desc *op, call *c) { return make_call_with(op, c, -1, 0); }

static void free_call(call *c)
{
    for (int i = 0; i < 32; i++) {
        clv_image_release(c->own[i]);
        clv_pyramid_release(c->pyr[i]);
        free(c->mem[i]);
    }
}

static void expect_refused(call *c, const char *what, const char *word)
{
    for (int j = 0; j < c->op->nparams; j++) {
        const clv_param_desc *q = &c->op->params[j];
        if (q->type == CLV_PARAM_STRUCT && (q->flags & CLV_PARAM_OUTPUT) && c->a[j].v.p)
            memset(c->a[j].v.p, 0x5a, q->elem_size);
    }
    clv_status s = clv_op_call(ctx, c->op, c->a, c->op->nparams);
    const char *m = clv_last_error(ctx);
    for (int j = 0; j < c->op->nparams; j++) {
        const clv_param_desc *q = &c->op->params[j];
        if (q->type != CLV_PARAM_STRUCT || !(q->flags & CLV_PARAM_OUTPUT) || !c->a[j].v.p)
            continue;
        const unsigned char *b = c->a[j].v.p;
        size_t nz = 0;
        for (size_t k = 0; k < q->elem_size; k++)
            nz += b[k] != 0;
        CHECK(nz == 0, "%s, %s: output %s not zeroed after the refusal (%zu bytes set)",
              c->op->name, what, q->name, nz);
    }
    CHECK(s == CLV_ERROR_INVALID_ARGUMENT, "%s, %s: got %s (%s)", c->op->name, what,
          clv_status_string(s), m);
    CHECK(strstr(m, word) != NULL, "%s, %s: message '%s' does not name '%s'", c->op->name, what,
          m, word);
    if (list_cases)
        printf("  %s: %s -> %s \"%s\"\n", c->op->name, what, clv_status_string(s), m);
}

static void expect_runs(call *c, const char *what)
{
    clv_status s = clv_op_call(ctx, c->op, c->a, c->op->nparams);
    CHECK(s == CLV_OK, "%s, %s: %s (%s)", c->op->name, what, clv_status_string(s),
          clv_last_error(ctx));
    if (list_cases)
        printf("  %s: %s -> %s\n", c->op->name, what, clv_status_string(s));
}

/* Image parameter i of c replaced by a w x h image of cn channels of type t
 * in context cx: refused with `word` in the message. Returns 1 (a row). */
static int refuse_image(call *c, int i, clv_context *cx, int w, int h, int cn, clv_pixel_type t,
                        const char *what, const char *word)
{
    const clv_arg keep = c->a[i];
    clv_image *x = NULL;
    REQUIRE_OK(cx, clv_image_create(cx, w, h, cn, t, &x));
    c->a[i].v.p = x;
    expect_refused(c, what, word);
    clv_image_release(x);
    c->a[i] = keep;
    return 1;
}

/* The rows of image parameter i against its `like` image, one per flag of
 * like_flags: every other type and channel count the parameter itself
 * accepts, one column and one row more, and (CLV_LIKE_TRANSPOSED) the like
 * image's own shape and a transposed one a row taller; then the image from
 * another context. Returns how many. */
static int image_relation_rows(call *c, int i)
{
    const clv_op_desc *op = c->op;
    const clv_param_desc *p = &op->params[i];
    const clv_image *k = c->a[i].v.p;
    if (!k)
        return 0;
    const char *word = p->label ? p->label : p->name;
    const int w = clv_image_width(k), h = clv_image_height(k), cn = clv_image_channels(k);
    const clv_pixel_type t = clv_image_type(k);
    const int j = p->like ? clv_op_param_index(op, p->like) : -1;
    const clv_image *ref =
        j >= 0 && op->params[j].type == CLV_PARAM_IMAGE ? c->a[j].v.p : NULL;
    const unsigned f = ref ? p->like_flags : 0;
    char what[128];
    int rows = 0;
    if (f & CLV_LIKE_TYPE)
        for (int u = CLV_U8; u <= CLV_F32; u++) {
            if (u == (int)t || (p->types && !(p->types & CLV_TYPES(u))))
                continue;
            snprintf(what, sizeof what, "%s of type %s, not %s's", p->name,
                     clv_pixel_type_name((clv_pixel_type)u), p->like);
            rows += refuse_image(c, i, ctx, w, h, cn, (clv_pixel_type)u, what, word);
        }
    if (f & CLV_LIKE_CHANNELS)
        for (int n = 1; n <= 4; n++) {
            if (n == cn || (p->channels && !(p->channels & CLV_CHANNELS(n))))
                continue;
            snprintf(what, sizeof what, "%s with %d channels, not %s's", p->name, n, p->like);
            rows += refuse_image(c, i, ctx, w, h, n, t, what, word);
        }
    if (f & CLV_LIKE_SIZE) {
        snprintf(what, sizeof what, "%s %dx%d, not %s's size", p->name, w + 1, h, p->like);
        rows += refuse_image(c, i, ctx, w + 1, h, cn, t, what, word);
        snprintf(what, sizeof what, "%s %dx%d, not %s's size", p->name, w, h + 1, p->like);
        rows += refuse_image(c, i, ctx, w, h + 1, cn, t, what, word);
    }
    if (f & CLV_LIKE_TRANSPOSED) {
        const int rw = clv_image_width(ref), rh = clv_image_height(ref);
        if (rw != rh) {
            snprintf(what, sizeof what, "%s %dx%d, %s's shape not transposed", p->name, rw, rh,
                     p->like);
            rows += refuse_image(c, i, ctx, rw, rh, cn, t, what, word);
        }
        snprintf(what, sizeof what, "%s %dx%d, not %s transposed", p->name, rh, rw + 1, p->like);
        rows += refuse_image(c, i, ctx, rh, rw + 1, cn, t, what, word);
    }
    snprintf(what, sizeof what, "%s of another context", p->name);
    rows += refuse_image(c, i, ctx2, w, h, cn, t, what, "another context");
    return rows;
}

/* The rows of pyramid parameter i: NULL, types, channels, size, levels
 * given as inputs. Returns how many. */
static int pyramid_rows(call *c, int i)
{
    const clv_op_desc *op = c->op;
    const clv_param_desc *p = &op->params[i];
    const char *word = p->label ? p->label : p->name;
    const clv_arg keep = c->a[i];
    char what[128];
    int rows = 0, w, h, cn;
    clv_pixel_type t;
    pyramid_geometry(c, i, &w, &h, &cn, &t);
    if (!(p->flags & CLV_PARAM_OPTIONAL)) {
        c->a[i].v.p = NULL;
        expect_refused(c, "NULL pyramid", word), rows++;
    }
    for (int k = CLV_U8; k <= CLV_F32 + 4; k++) {
        /* k <= CLV_F32: another type; above: channel count k - CLV_F32 */
        const int other_t = k <= CLV_F32;
        const int ncn = other_t ? cn : k - CLV_F32;
        const clv_pixel_type nt = other_t ? (clv_pixel_type)k : t;
        if (other_t ? !p->types || (p->types & CLV_TYPES(k))
                    : !p->channels || (p->channels & CLV_CHANNELS(ncn)))
            continue;
        clv_pyramid *x = make_pyramid(w, h, ncn, nt);
        c->a[i].v.p = x;
        snprintf(what, sizeof what, "%s of %s with %d channels", p->name,
                 clv_pixel_type_name(nt), ncn);
        expect_refused(c, what, word), rows++;
        clv_pyramid_release(x);
    }
    if (p->like && (p->like_flags & CLV_LIKE_SIZE)) {
        clv_pyramid *x = make_pyramid(w + 1, h, cn, t);
        c->a[i].v.p = x;
        snprintf(what, sizeof what, "%s not %s's size", p->name, p->like);
        expect_refused(c, what, word), rows++;
        clv_pyramid_release(x);
    }
    for (int u = CLV_U8; p->like && (p->like_flags & CLV_LIKE_TYPE) && u <= CLV_F32; u++) {
        if (u == (int)t || (p->types && !(p->types & CLV_TYPES(u))))
            continue;
        clv_pyramid *x = make_pyramid(w, h, cn, (clv_pixel_type)u);
        c->a[i].v.p = x;
        snprintf(what, sizeof what, "%s of %s, not %s's type", p->name,
                 clv_pixel_type_name((clv_pixel_type)u), p->like);
        expect_refused(c, what, word), rows++;
        clv_pyramid_release(x);
    }
    for (int n = 1; p->like && (p->like_flags & CLV_LIKE_CHANNELS) && n <= 4; n++) {
        if (n == cn || (p->channels && !(p->channels & CLV_CHANNELS(n))))
            continue;
        clv_pyramid *x = make_pyramid(w, h, n, t);
        c->a[i].v.p = x;
        snprintf(what, sizeof what, "%s with %d channels, not %s's", p->name, n, p->like);
        expect_refused(c, what, word), rows++;
        clv_pyramid_release(x);
    }
    {
        clv_pyramid *x = make_pyramid_in(ctx2, w, h, cn, t);
        c->a[i].v.p = x;
        snprintf(what, sizeof what, "%s of another context", p->name);
        expect_refused(c, what, "another context"), rows++;
        clv_pyramid_release(x);
    }
    c->a[i] = keep;
    if (p->flags & CLV_PARAM_OUTPUT)
        for (int j = 0; j < op->nparams; j++) {
            const clv_param_desc *q = &op->params[j];
            if (q->type != CLV_PARAM_IMAGE || !(q->flags & CLV_PARAM_INPUT))
                continue;
            const clv_arg kq = c->a[j];
            c->a[j].v.p = (void *)clv_pyramid_level(keep.v.p, 0);
            snprintf(what, sizeof what, "%s is level 0 of %s", q->name, p->name);
            expect_refused(c, what, "level"), rows++;
            c->a[j] = kq;
        }
    return rows;
}

static void matrix(const clv_op_desc *op)
{
    call c;
    if (!make_call(op, &c)) {
        /* pyramids, arrays, results: covered by the op's own tests and badinput */
        printf("%-16s  (parameters the generated matrix cannot make; own tests)\n", op->name);
        free_call(&c);
        return;
    }
    int rows = 0;
    expect_runs(&c, "the good call");
    {
        const clv_status s = clv_op_call(NULL, op, c.a, op->nparams);
        CHECK(s == CLV_ERROR_INVALID_ARGUMENT, "%s, NULL context: got %s", op->name,
              clv_status_string(s));
        if (list_cases)
            printf("  %s: NULL context -> %s\n", op->name, clv_status_string(s));
        rows++;
    }
    for (int i = 0; i < op->nparams; i++) {
        const clv_param_desc *p = &op->params[i];
        const clv_arg keep = c.a[i];
        char what[128];
        if (p->type == CLV_PARAM_INT || p->type == CLV_PARAM_DOUBLE) {
            const int is_int = p->type == CLV_PARAM_INT;
            const double ends[2] = {p->min, p->max};
            for (int e = 0; e < 2; e++) {
                if (!isfinite(ends[e]))
                    continue;
                const int open = e ? (p->flags & CLV_PARAM_MAX_OPEN) : (p->flags & CLV_PARAM_MIN_OPEN);
                const double at = ends[e];
                double out = is_int ? at + (e ? 1 : -1) : nextafter(at, e ? HUGE_VAL : -HUGE_VAL);
                if (open)
                    out = at;
                if (!open && !((p->flags & CLV_PARAM_ODD) && fmod(at, 2.0) == 0.0)) {
                    if (is_int)
                        c.a[i].v.i = (int)at;
                    else
                        c.a[i].v.d = at;
                    snprintf(what, sizeof what, "%s = %g (range end)", p->name, at);
                    if (is_int && beyond_array(&c, i, at))
                        ; /* the arrays are shorter: refused rows only */
                    else if (!op->check ||
                             clv_op_check(NULL, op, c.a, op->nparams, NULL, 0) == CLV_OK)
                        expect_runs(&c, what), rows++;
                }
                if ((p->flags & CLV_PARAM_HAS_SPECIAL) &&
                    (out == p->special ||
                     ((p->flags & CLV_PARAM_SPECIAL_BELOW) && out <= p->special)))
                    out = e ? out : (is_int ? p->special - 1 : nextafter(p->special, -HUGE_VAL));
                if ((p->flags & CLV_PARAM_HAS_SPECIAL) && (p->flags & CLV_PARAM_SPECIAL_BELOW) &&
                    !e)
                    continue; /* everything below is valid */
                if (is_int && (out < -2147483648.0 || out > 2147483647.0))
                    continue;
                if (is_int)
                    c.a[i].v.i = (int)out;
                else
                    c.a[i].v.d = out;
                snprintf(what, sizeof what, "%s = %.17g (outside)", p->name, out);
                expect_refused(&c, what, p->name), rows++;
            }
            if (is_int && (p->flags & CLV_PARAM_ODD)) {
                /* the even values next to the smallest odd one in range */
                double odd = isfinite(p->min) ? p->min : 1;
                if (odd <= 0 || fmod(odd, 2.0) == 0.0)
                    odd = fmod(odd, 2.0) == 0.0 && odd > 0 ? odd + 1 : 1;
                for (int k = 0; k < 2; k++) {
                    const double even = odd + (k ? 3 : 1);
                    if (even > p->max || ((p->flags & CLV_PARAM_HAS_SPECIAL) && even == p->special))
                        continue;
                    c.a[i].v.i = (int)even;
                    snprintf(what, sizeof what, "%s = %g (even)", p->name, even);
                    expect_refused(&c, what, p->name), rows++;
                }
            }
            if (!is_int) {
                const double bad[3] = {NAN, HUGE_VAL, -HUGE_VAL};
                for (int k = 0; k < 3; k++) {
                    c.a[i].v.d = bad[k];
                    snprintf(what, sizeof what, "%s = %g", p->name, bad[k]);
                    expect_refused(&c, what, p->name), rows++;
                }
            }
        } else if (p->type == CLV_PARAM_ENUM || p->type == CLV_PARAM_BOOL) {
            /* one past the largest value, far off, below */
            int top = p->type == CLV_PARAM_BOOL ? 1 : 0;
            for (int k = 0; p->type == CLV_PARAM_ENUM && k < p->n_enum; k++)
                top = p->enum_values[k] > top ? p->enum_values[k] : top;
            const int bad[3] = {top + 1, 99, -1};
            for (int k = 0; k < 3; k++) {
                if (k == 1 && top + 1 == 99)
                    continue;
                c.a[i].v.i = bad[k];
                snprintf(what, sizeof what, "%s = %d", p->name, bad[k]);
                expect_refused(&c, what, p->name), rows++;
            }
            if (p->type == CLV_PARAM_ENUM)
                for (int k = 0; k < p->n_enum; k++) {
                    /* its own call: the value may change the images' shapes */
                    call e;
                    REQUIRE(make_call_with(op, &e, i, p->enum_values[k]), "%s", op->name);
                    snprintf(what, sizeof what, "%s = %s", p->name, p->enum_names[k]);
                    expect_runs(&e, what), rows++;
                    free_call(&e);
                }
        } else if (p->type == CLV_PARAM_IMAGE) {
            const char *word = p->label ? p->label : p->name;
            if (!(p->flags & CLV_PARAM_OPTIONAL)) {
                c.a[i].v.p = NULL;
                snprintf(what, sizeof what, "%s NULL", p->name);
                expect_refused(&c, what, word), rows++;
            }
            if (p->types) {
                for (int t = CLV_U8; t <= CLV_F32; t++) {
                    if (p->types & CLV_TYPES(t))
                        continue;
                    clv_image *x = NULL;
                    const clv_image *k = keep.v.p;
                    REQUIRE_OK(ctx, clv_image_create(ctx, clv_image_width(k), clv_image_height(k),
                                                     clv_image_channels(k), (clv_pixel_type)t, &x));
                    c.a[i].v.p = x;
                    snprintf(what, sizeof what, "%s of type %s", p->name,
                             clv_pixel_type_name((clv_pixel_type)t));
                    expect_refused(&c, what, word), rows++;
                    clv_image_release(x);
                }
            }
            if (p->channels) {
                for (int cn = 1; cn <= 4; cn++) {
                    if (p->channels & CLV_CHANNELS(cn))
                        continue;
                    clv_image *x = NULL;
                    const clv_image *k = keep.v.p;
                    REQUIRE_OK(ctx, clv_image_create(ctx, clv_image_width(k), clv_image_height(k),
                                                     cn, clv_image_type(k), &x));
                    c.a[i].v.p = x;
                    snprintf(what, sizeof what, "%s with %d channels", p->name, cn);
                    expect_refused(&c, what, word), rows++;
                    clv_image_release(x);
                }
            }
            if (p->flags & CLV_PARAM_OUTPUT) {
                for (int j = 0; j < op->nparams; j++) {
                    const clv_param_desc *q = &op->params[j];
                    if (q->type != CLV_PARAM_IMAGE || !(q->flags & CLV_PARAM_INPUT) || !c.a[j].v.p)
                        continue;
                    c.a[i].v.p = c.a[j].v.p;
                    snprintf(what, sizeof what, "%s is %s", p->name, q->name);
                    expect_refused(&c, what, "same image"), rows++;
                }
            }
            c.a[i] = keep;
            rows += image_relation_rows(&c, i);
        } else if (p->type == CLV_PARAM_PYRAMID) {
            rows += pyramid_rows(&c, i);
        } else if (p->type == CLV_PARAM_ARRAY) {
            const int j = clv_op_param_index(op, p->length_param);
            const clv_arg keep_n = c.a[j];
            c.a[i].v.p = NULL;
            if (!(p->flags & CLV_PARAM_OPTIONAL) && keep_n.v.i > 0) {
                snprintf(what, sizeof what, "%s NULL with %s %d", p->name, p->length_param,
                         keep_n.v.i);
                expect_refused(&c, what, p->name), rows++;
            }
            if (op->params[j].min <= 0.0) {
                c.a[j].v.i = 0;
                snprintf(what, sizeof what, "%s NULL with %s 0", p->name, p->length_param);
                expect_runs(&c, what), rows++;
            }
            c.a[j] = keep_n;
        } else if (p->type == CLV_PARAM_STRUCT && !(p->flags & CLV_PARAM_OPTIONAL)) {
            c.a[i].v.p = NULL;
            snprintf(what, sizeof what, "%s NULL", p->name);
            expect_refused(&c, what, p->name), rows++;
        }
        c.a[i] = keep;
    }
    expect_runs(&c, "the good call again");
    printf("%-16s  %d generated cases\n", op->name, rows);
    free_call(&c);
}

/* A call by name gives the typed function's result, byte for byte. */
/* ---- views: every described op on views equals the op on packed images,
 * and leaves every pixel around its output views alone ----
 * From the good call alone: every image argument (inputs and outputs) gets
 * random content; the op runs on those packed images (the reference). Then,
 * for each layout, every image argument is replaced by a view of the same
 * size inside a larger image filled with a random guard pattern, holding
 * the same content, and the op runs again: each output view must hold the
 * reference's bytes exactly, every pixel of every larger image outside its
 * view must still be the guard, and output structs, arrays and pyramids
 * must equal the reference's. Layouts: odd origins (5, 3) (views staged
 * through packed copies), and whole rows at row 8 (sub-buffers, the
 * zero-copy path: 8 rows of a 64-byte multiple pitch start on any base
 * alignment up to 512 bytes). */
enum { VIEW_LAYOUTS = 2 };

typedef struct img_bytes {
    unsigned char *p;
    size_t row, n; /* packed row bytes, total bytes */
} img_bytes;

static img_bytes get_bytes(const clv_image *img)
{
    img_bytes b;
    b.row = (size_t)clv_image_width(img) * (size_t)clv_image_channels(img) *
            clv_pixel_type_size(clv_image_type(img));
    b.n = b.row * (size_t)clv_image_height(img);
    b.p = malloc(b.n);
    REQUIRE(b.p, "out of memory");
    REQUIRE_OK(ctx, clv_image_download(img, b.p, 0));
    return b;
}

static size_t image_bytes(const clv_image *img)
{
    return (size_t)clv_image_width(img) * (size_t)clv_image_channels(img) *
           clv_pixel_type_size(clv_image_type(img)) * (size_t)clv_image_height(img);
}

static size_t param_bytes(const call *c, int i)
{
    const clv_param_desc *p = &c->op->params[i];
    if (p->type == CLV_PARAM_ARRAY)
        return (size_t)(c->alloc_n[i] > 0 ? c->alloc_n[i] : 1) * p->elem_size;
    return p->type == CLV_PARAM_STRUCT ? p->elem_size : 0;
}

static void views(const clv_op_desc *op)
{
    call c;
    if (!make_call(op, &c)) {
        free_call(&c);
        return;
    }
    int nimg = 0;
    unsigned char *init[32] = {0}, *mem_init[32] = {0}, *mem_ref[32] = {0};
    img_bytes ref[32], lvl_ref[32][8];
    memset(ref, 0, sizeof ref);
    memset(lvl_ref, 0, sizeof lvl_ref);
    for (int i = 0; i < op->nparams; i++) {
        if (op->params[i].type == CLV_PARAM_IMAGE && c.a[i].v.p) {
            const size_t n = image_bytes(c.a[i].v.p);
            init[i] = malloc(n);
            REQUIRE(init[i], "out of memory");
            test_fill_random(init[i], n / clv_pixel_type_size(clv_image_type(c.a[i].v.p)),
                             clv_image_type(c.a[i].v.p), 4242u + (unsigned)i);
            REQUIRE_OK(ctx, clv_image_upload(c.a[i].v.p, init[i], 0));
            nimg++;
        }
        const size_t pb = param_bytes(&c, i);
        if (pb) {
            mem_init[i] = malloc(pb);
            REQUIRE(mem_init[i], "out of memory");
            memcpy(mem_init[i], c.mem[i], pb);
        }
    }
    if (nimg == 0) {
        printf("%-16s  views: no image parameters\n", op->name);
        goto done;
    }
    REQUIRE_OK(ctx, clv_op_call(ctx, op, c.a, op->nparams));
    for (int i = 0; i < op->nparams; i++) {
        const clv_param_desc *p = &op->params[i];
        if (!(p->flags & CLV_PARAM_OUTPUT) || !c.a[i].v.p)
            continue;
        if (p->type == CLV_PARAM_IMAGE)
            ref[i] = get_bytes(c.a[i].v.p);
        else if (p->type == CLV_PARAM_PYRAMID)
            for (int k = 0; k < clv_pyramid_levels(c.a[i].v.p) && k < 8; k++)
                lvl_ref[i][k] = get_bytes(clv_pyramid_level(c.a[i].v.p, k));
        else if (param_bytes(&c, i)) {
            mem_ref[i] = malloc(param_bytes(&c, i));
            REQUIRE(mem_ref[i], "out of memory");
            memcpy(mem_ref[i], c.mem[i], param_bytes(&c, i));
        }
    }
    for (int layout = 0; layout < VIEW_LAYOUTS; layout++) {
        clv_arg a[32];
        clv_image *parent[32] = {0}, *view[32] = {0};
        img_bytes guard[32];
        memset(guard, 0, sizeof guard);
        memcpy(a, c.a, sizeof a);
        const char *what = layout == 0 ? "views at (5, 3)" : "whole-row views at row 8";
        for (int i = 0; i < op->nparams; i++) {
            const clv_image *img = c.a[i].v.p;
            if (op->params[i].type != CLV_PARAM_IMAGE || !img)
                continue;
            const int w = clv_image_width(img), h = clv_image_height(img);
            const int vx = layout == 0 ? 5 : 0, vy = layout == 0 ? 3 : 8;
            const int pw = layout == 0 ? w + vx + 4 : w, ph = h + vy + 3;
            REQUIRE_OK(ctx, clv_image_create(ctx, pw, ph, clv_image_channels(img),
                                             clv_image_type(img), &parent[i]));
            const size_t n = image_bytes(parent[i]);
            unsigned char *g = malloc(n);
            REQUIRE(g, "out of memory");
            test_fill_random(g, n / clv_pixel_type_size(clv_image_type(img)),
                             clv_image_type(img), 777u + (unsigned)i);
            REQUIRE_OK(ctx, clv_image_upload(parent[i], g, 0));
            free(g);
            REQUIRE_OK(ctx, clv_image_view(parent[i], vx, vy, w, h, &view[i]));
            REQUIRE_OK(ctx, clv_image_upload(view[i], init[i], 0));
            guard[i] = get_bytes(parent[i]); /* the guard, with the view's content */
            a[i].v.p = view[i];
        }
        for (int i = 0; i < op->nparams; i++)
            if (mem_init[i])
                memcpy(c.mem[i], mem_init[i], param_bytes(&c, i));
        clv_status s = clv_op_call(ctx, op, a, op->nparams);
        CHECK(s == CLV_OK, "%s, %s: %s (%s)", op->name, what, clv_status_string(s),
              clv_last_error(ctx));
        for (int i = 0; s == CLV_OK && i < op->nparams; i++) {
            const clv_param_desc *p = &op->params[i];
            if (view[i] && (p->flags & CLV_PARAM_OUTPUT)) {
                img_bytes got = get_bytes(view[i]);
                CHECK(memcmp(got.p, ref[i].p, got.n) == 0,
                      "%s, %s: output %s differs from the op on a packed image", op->name, what,
                      p->name);
                free(got.p);
            }
            if (view[i]) {
                /* everything of the larger image but the view: as it was */
                img_bytes all = get_bytes(parent[i]);
                const size_t px = all.row / (size_t)clv_image_width(parent[i]);
                const int vx = layout == 0 ? 5 : 0, vy = layout == 0 ? 3 : 8;
                const int vw = clv_image_width(view[i]), vh = clv_image_height(view[i]);
                size_t bad = 0;
                for (int y = 0; y < clv_image_height(parent[i]); y++)
                    for (size_t b = 0; b < all.row; b++) {
                        const int x = (int)(b / px);
                        if (y >= vy && y < vy + vh && x >= vx && x < vx + vw)
                            continue;
                        bad += all.p[(size_t)y * all.row + b] != guard[i].p[(size_t)y * all.row + b];
                    }
                CHECK(bad == 0, "%s, %s: %zu bytes around the %s view changed", op->name, what,
                      bad, p->name);
                free(all.p);
            }
            if ((p->flags & CLV_PARAM_OUTPUT) && mem_ref[i])
                CHECK(memcmp(c.mem[i], mem_ref[i], param_bytes(&c, i)) == 0,
                      "%s, %s: output %s differs from the op on packed images", op->name, what,
                      p->name);
            if ((p->flags & CLV_PARAM_OUTPUT) && p->type == CLV_PARAM_PYRAMID)
                for (int k = 0; k < clv_pyramid_levels(c.a[i].v.p) && k < 8; k++) {
                    img_bytes got = get_bytes(clv_pyramid_level(c.a[i].v.p, k));
                    CHECK(memcmp(got.p, lvl_ref[i][k].p, got.n) == 0,
                          "%s, %s: level %d of %s differs", op->name, what, k, p->name);
                    free(got.p);
                }
        }
        if (list_cases)
            printf("  %s: %s -> %s\n", op->name, what, clv_status_string(s));
        /* release order free: views after their images */
        for (int i = 0; i < op->nparams; i++) {
            clv_image_release(parent[i]);
            clv_image_release(view[i]);
            free(guard[i].p);
        }
    }
    printf("%-16s  views: %d image parameter%s, %d layouts\n", op->name, nimg,
           nimg == 1 ? "" : "s", VIEW_LAYOUTS);
done:
    for (int i = 0; i < 32; i++) {
        free(init[i]);
        free(mem_init[i]);
        free(mem_ref[i]);
        free(ref[i].p);
        for (int k = 0; k < 8; k++)
            free(lvl_ref[i][k].p);
    }
    free_call(&c);
}

/* Events (cl_interop.h): an operation whose descriptor does not say it
 * blocks must return while its inputs are still being written by the
 * application behind a user event that is not set, and its result must be
 * the one on the written inputs. The application's writes go on its own
 * queue (clEnqueueWriteBufferRect waiting on the gate); clvision is told to
 * wait for them with clv_enqueue_wait_events, and the outputs are read
 * after a marker from clv_enqueue_marker. An operation that waits for the
 * device despite its descriptor hangs on the gate: SIGALRM after 60 s ends
 * the test naming it. */
static const char *gated_op;

static void gate_timeout(int sig)
{
    (void)sig;
    static const char msg[] = "FAIL: an operation blocked behind an unset user event "
                              "(its descriptor says it does not wait for the device): ";
    if (write(2, msg, sizeof msg - 1) < 0 || write(2, gated_op, strlen(gated_op)) < 0 ||
        write(2, "\n", 1) < 0)
        _exit(1);
    _exit(1);
}

static void gated(const clv_op_desc *op)
{
    if (op->blocking) {
        printf("%-16s  events: blocks (%s)\n", op->name, op->blocking);
        return;
    }
    call c;
    if (!make_call(op, &c)) {
        free_call(&c);
        return;
    }
    unsigned char *data[32] = {0};
    img_bytes ref[32];
    memset(ref, 0, sizeof ref);
    int nin = 0;
    for (int i = 0; i < op->nparams; i++) {
        const clv_image *img = c.a[i].v.p;
        if (op->params[i].type != CLV_PARAM_IMAGE || !img ||
            !(op->params[i].flags & CLV_PARAM_INPUT))
            continue;
        const size_t n = image_bytes(img);
        data[i] = malloc(n);
        REQUIRE(data[i], "out of memory");
        test_fill_random(data[i], n / clv_pixel_type_size(clv_image_type(img)),
                         clv_image_type(img), 99u + (unsigned)i);
        REQUIRE_OK(ctx, clv_image_upload(c.a[i].v.p, data[i], 0));
        nin++;
    }
    if (nin == 0) {
        printf("%-16s  events: no input images\n", op->name);
        free_call(&c);
        return;
    }
    REQUIRE_OK(ctx, clv_op_call(ctx, op, c.a, op->nparams));
    for (int i = 0; i < op->nparams; i++)
        if (op->params[i].type == CLV_PARAM_IMAGE && c.a[i].v.p &&
            (op->params[i].flags & CLV_PARAM_OUTPUT))
            ref[i] = get_bytes(c.a[i].v.p);
    /* inputs and outputs now hold other bytes; the application's writes
     * bring the inputs back */
    for (int i = 0; i < op->nparams; i++) {
        clv_image *img = c.a[i].v.p;
        if (op->params[i].type != CLV_PARAM_IMAGE || !img)
            continue;
        const size_t n = image_bytes(img);
        unsigned char *junk = malloc(n);
        REQUIRE(junk, "out of memory");
        memset(junk, 0x5a, n);
        REQUIRE_OK(ctx, clv_image_upload(img, junk, 0));
        free(junk);
    }
    cl_int err;
    cl_context cl = clv_context_cl_context(ctx);
    cl_command_queue app = clCreateCommandQueue(cl, clv_context_cl_device(ctx), 0, &err);
    REQUIRE(err == CL_SUCCESS, "clCreateCommandQueue: %d", err);
    cl_event gate = clCreateUserEvent(cl, &err);
    REQUIRE(err == CL_SUCCESS, "clCreateUserEvent: %d", err);
    cl_event writes[32];
    cl_uint nw = 0;
    for (int i = 0; i < op->nparams; i++) {
        const clv_image *img = c.a[i].v.p;
        if (!data[i])
            continue;
        const size_t row = image_bytes(img) / (size_t)clv_image_height(img);
        const size_t borigin[3] = {clv_image_offset(img), 0, 0}, horigin[3] = {0, 0, 0};
        const size_t region[3] = {row, (size_t)clv_image_height(img), 1};
        err = clEnqueueWriteBufferRect(app, clv_image_cl_mem(img), CL_FALSE, borigin, horigin,
                                       region, clv_image_pitch(img), 0, row, 0, data[i], 1,
                                       &gate, &writes[nw]);
        REQUIRE(err == CL_SUCCESS, "clEnqueueWriteBufferRect: %d", err);
        nw++;
    }
    REQUIRE(clFlush(app) == CL_SUCCESS, "clFlush");
    REQUIRE_OK(ctx, clv_enqueue_wait_events(ctx, nw, writes));
    gated_op = op->name;
    signal(SIGALRM, gate_timeout);
    alarm(60);
    clv_status s = clv_op_call(ctx, op, c.a, op->nparams);
    cl_event done = NULL;
    clv_status sm = clv_enqueue_marker(ctx, &done);
    alarm(0);
    cl_int st = 0;
    REQUIRE(clGetEventInfo(writes[0], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL) ==
                CL_SUCCESS,
            "clGetEventInfo");
    CHECK(st != CL_COMPLETE, "%s, events: the application's write ran before its gate", op->name);
    REQUIRE(clSetUserEventStatus(gate, CL_COMPLETE) == CL_SUCCESS, "clSetUserEventStatus");
    CHECK(s == CLV_OK && sm == CLV_OK, "%s, events: %s / %s (%s)", op->name, clv_status_string(s),
          clv_status_string(sm), clv_last_error(ctx));
    if (done) {
        REQUIRE(clWaitForEvents(1, &done) == CL_SUCCESS, "clWaitForEvents(marker)");
        cl_int ds = 0;
        REQUIRE(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof ds, &ds, NULL) ==
                    CL_SUCCESS && ds == CL_COMPLETE,
                "marker not complete after clWaitForEvents");
    }
    for (int i = 0; s == CLV_OK && i < op->nparams; i++)
        if (ref[i].p) {
            img_bytes got = get_bytes(c.a[i].v.p);
            CHECK(memcmp(got.p, ref[i].p, got.n) == 0,
                  "%s, events: output %s is not the op on the application's writes", op->name,
                  op->params[i].name);
            free(got.p);
        }
    printf("%-16s  events: returned behind the gate, %u write%s waited for\n", op->name, nw,
           nw == 1 ? "" : "s");
    for (cl_uint k = 0; k < nw; k++)
        clReleaseEvent(writes[k]);
    if (done)
        clReleaseEvent(done);
    clReleaseEvent(gate);
    clReleaseCommandQueue(app);
    for (int i = 0; i < 32; i++) {
        free(data[i]);
        free(ref[i].p);
    }
    free_call(&c);
}

/* Overlap: views that share a pixel are one image for the no-in-place rule,
 * disjoint views of one image are two. */
static void view_overlap(void)
{
    clv_image *big = NULL, *a = NULL, *b = NULL, *o = NULL, *wide = NULL;
    REQUIRE_OK(ctx, clv_image_create(ctx, 40, 21, 1, CLV_U8, &big));
    unsigned char px[40 * 21];
    test_fill_random(px, sizeof px, CLV_U8, 5);
    REQUIRE_OK(ctx, clv_image_upload(big, px, 0));
    REQUIRE_OK(ctx, clv_image_view(big, 1, 1, 13, 9, &a));
    REQUIRE_OK(ctx, clv_image_view(big, 14, 1, 13, 9, &b));  /* right next to a */
    REQUIRE_OK(ctx, clv_image_view(big, 13, 9, 13, 9, &o));  /* shares pixel (13, 9) with a */
    REQUIRE_OK(ctx, clv_image_view(big, 0, 11, 40, 9, &wide)); /* rows below a */
    clv_status s = clv_box_filter(ctx, a, b, 3, 3, CLV_BORDER_REPLICATE);
    CHECK(s == CLV_OK, "disjoint views: %s (%s)", clv_status_string(s), clv_last_error(ctx));
    s = clv_box_filter(ctx, a, o, 3, 3, CLV_BORDER_REPLICATE);
    CHECK(s == CLV_ERROR_INVALID_ARGUMENT && strstr(clv_last_error(ctx), "overlap"),
          "overlapping views: %s (%s)", clv_status_string(s), clv_last_error(ctx));
    s = clv_box_filter(ctx, big, wide, 3, 3, CLV_BORDER_REPLICATE);
    CHECK(s == CLV_ERROR_INVALID_ARGUMENT && strstr(clv_last_error(ctx), "overlap"),
          "an image and its view: %s (%s)",
          clv_status_string(s), clv_last_error(ctx));
    clv_image *sub = NULL, *wv = NULL;
    REQUIRE_OK(ctx, clv_image_view(wide, 1, 1, 13, 9 - 1, &sub)); /* a view of a view */
    REQUIRE_OK(ctx, clv_image_view(big, 1, 1, 13, 9 - 1, &wv));
    s = clv_box_filter(ctx, wv, sub, 3, 3, CLV_BORDER_REPLICATE);
    CHECK(s == CLV_OK, "a view of a view below another view: %s (%s)", clv_status_string(s),
          clv_last_error(ctx));
    /* which path: a whole-row view at row 8 (512 bytes in) is a sub-buffer,
     * one at an odd origin makes no OpenCL object (staged) */
    clv_context_stats st0, st1, st2;
    clv_image *rows8 = NULL, *odd = NULL;
    REQUIRE_OK(ctx, clv_context_get_stats(ctx, &st0));
    REQUIRE_OK(ctx, clv_image_view(big, 0, 8, 40, 5, &rows8));
    REQUIRE_OK(ctx, clv_context_get_stats(ctx, &st1));
    REQUIRE_OK(ctx, clv_image_view(big, 3, 8, 37, 5, &odd));
    REQUIRE_OK(ctx, clv_context_get_stats(ctx, &st2));
    CHECK(st1.live_mem_objects == st0.live_mem_objects + 1, "whole-row view: no sub-buffer");
    CHECK(st2.live_mem_objects == st1.live_mem_objects, "odd view: an OpenCL object made");
    clv_image_release(rows8);
    clv_image_release(odd);
    clv_image_release(big); /* release order free */
    clv_image_release(sub);
    clv_image_release(wv);
    clv_image_release(a);
    clv_image_release(b);
    clv_image_release(o);
    clv_image_release(wide);
}

static void by_name_equals_typed(void)
{
    const int w = 37, h = 23;
    unsigned char in[37 * 23], x[37 * 23], y[37 * 23];
    for (int i = 0; i < w * h; i++)
        in[i] = (unsigned char)((i * 7919) >> 3);
    clv_image *src, *d1, *d2;
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, 1, CLV_U8, &src));
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, 1, CLV_U8, &d1));
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, 1, CLV_U8, &d2));
    REQUIRE_OK(ctx, clv_image_upload(src, in, (size_t)w));
    REQUIRE_OK(ctx, clv_gaussian_blur(ctx, src, d1, 1.5, 0.0, 0, 5, CLV_BORDER_WRAP));
    const clv_arg a[] = {CLV_ARG_INT("border", CLV_BORDER_WRAP), CLV_ARG_IMAGE("dst", d2),
                         CLV_ARG_INT("ksize_y", 5), CLV_ARG_DOUBLE("sigma_x", 1.5),
                         CLV_ARG_IMAGE("src", src)};
    REQUIRE_OK(ctx, clv_op_call(ctx, clv_op_find("gaussian"), a, 5));
    REQUIRE_OK(ctx, clv_image_download(d1, x, (size_t)w));
    REQUIRE_OK(ctx, clv_image_download(d2, y, (size_t)w));
    CHECK(memcmp(x, y, sizeof x) == 0, "gaussian_blur by name differs from clv_gaussian_blur");
    /* the same refusal, the same message */
    clv_status s1 = clv_gaussian_blur(ctx, src, d1, 1.0, 0.0, 4, 0, CLV_BORDER_WRAP);
    char m1[512];
    snprintf(m1, sizeof m1, "%s", clv_last_error(ctx));
    const clv_arg b[] = {CLV_ARG_IMAGE("src", src), CLV_ARG_IMAGE("dst", d1),
                         CLV_ARG_DOUBLE("sigma_x", 1.0), CLV_ARG_INT("ksize_x", 4)};
    clv_status s2 = clv_op_call(ctx, clv_op_find("gaussian_blur"), b, 4);
    CHECK(s1 == CLV_ERROR_INVALID_ARGUMENT && s2 == s1, "even ksize: %d %d", s1, s2);
    CHECK(strcmp(m1, clv_last_error(ctx)) == 0, "messages differ: '%s' / '%s'", m1,
          clv_last_error(ctx));
    CHECK(strstr(m1, "ksize_x must be 0 or odd in 1..255 (got 4)") != NULL, "message '%s'", m1);
    /* a required parameter left out */
    const clv_arg c[] = {CLV_ARG_IMAGE("src", src), CLV_ARG_IMAGE("dst", d1)};
    CHECK(clv_op_call(ctx, clv_op_find("gaussian_blur"), c, 2) == CLV_ERROR_INVALID_ARGUMENT &&
              strstr(clv_last_error(ctx), "sigma_x is required"),
          "missing sigma_x: '%s'", clv_last_error(ctx));
    /* a check before any context: the derived kernel side */
    char m[256];
    const clv_arg d[] = {CLV_ARG_DOUBLE("sigma_x", 100.0)};
    CHECK(clv_op_check(NULL, clv_op_find("gaussian_blur"), d, 1, m, sizeof m) ==
                  CLV_ERROR_INVALID_ARGUMENT &&
              strstr(m, "601-tap"),
          "sigma 100 without a context: '%s'", m);
    clv_image_release(src);
    clv_image_release(d1);
    clv_image_release(d2);
}

/* A textured u8 frame, shifted by dx pixels. */
static clv_image *frame(int w, int h, int dx)
{
    unsigned char *px = malloc((size_t)w * (size_t)h);
    REQUIRE(px, "out of memory");
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const double u = (x - dx) * 0.35, v = y * 0.27;
            px[y * w + x] = (unsigned char)(127.5 + 60.0 * sin(u) * cos(v) +
                                            50.0 * sin(0.5 * u + 0.8 * v));
        }
    clv_image *img = NULL;
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, 1, CLV_U8, &img));
    REQUIRE_OK(ctx, clv_image_upload(img, px, (size_t)w));
    free(px);
    return img;
}

/* Farneback and corners by name (their structs flattened into parameters)
 * give the typed functions' results, byte for byte, and their refusals. */
static void by_name_struct_ops(void)
{
    const int w = 64, h = 48;
    clv_image *f0 = frame(w, h, 0), *f1 = frame(w, h, 2), *fl1 = NULL, *fl2 = NULL;
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, 2, CLV_F32, &fl1));
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, 2, CLV_F32, &fl2));
    clv_farneback_params fp = clv_farneback_params_default();
    fp.levels = 2;
    fp.winsize = 9;
    fp.iterations = 2;
    fp.poly_n = 7;
    fp.poly_sigma = 1.5;
    fp.gaussian_window = 1;
    REQUIRE_OK(ctx, clv_farneback(ctx, f0, f1, fl1, &fp));
    const clv_arg fa[] = {CLV_ARG_IMAGE("prev", f0),        CLV_ARG_IMAGE("next", f1),
                          CLV_ARG_IMAGE("flow", fl2),       CLV_ARG_INT("levels", 2),
                          CLV_ARG_INT("winsize", 9),        CLV_ARG_INT("iterations", 2),
                          CLV_ARG_INT("poly_n", 7),         CLV_ARG_DOUBLE("poly_sigma", 1.5),
                          CLV_ARG_INT("gaussian_window", 1)};
    REQUIRE_OK(ctx, clv_op_call(ctx, clv_op_find("flow"), fa, 9));
    float *x = malloc((size_t)w * h * 2 * sizeof(float)), *y = malloc((size_t)w * h * 2 * sizeof(float));
    REQUIRE(x && y, "out of memory");
    REQUIRE_OK(ctx, clv_image_download(fl1, x, (size_t)w * 2 * sizeof(float)));
    REQUIRE_OK(ctx, clv_image_download(fl2, y, (size_t)w * 2 * sizeof(float)));
    CHECK(memcmp(x, y, (size_t)w * h * 2 * sizeof(float)) == 0,
          "farneback by name differs from clv_farneback");
    CHECK(fabsf(x[(h / 2 * w + w / 2) * 2] - 2.0f) < 0.5f, "farneback: u = %g, not ~2",
          x[(h / 2 * w + w / 2) * 2]);
    free(x);
    free(y);
    fp.winsize = 4;
    clv_status s1 = clv_farneback(ctx, f0, f1, fl1, &fp);
    char m1[512];
    snprintf(m1, sizeof m1, "%s", clv_last_error(ctx));
    const clv_arg fb[] = {CLV_ARG_IMAGE("prev", f0), CLV_ARG_IMAGE("next", f1),
                          CLV_ARG_IMAGE("flow", fl1), CLV_ARG_INT("winsize", 4)};
    clv_status s2 = clv_op_call(ctx, clv_op_find("farneback"), fb, 4);
    CHECK(s1 == CLV_ERROR_INVALID_ARGUMENT && s2 == s1 && strcmp(m1, clv_last_error(ctx)) == 0,
          "winsize 4: '%s' / '%s'", m1, clv_last_error(ctx));

    /* corners: the typed forms against both descriptors */
    clv_corner_params cp = clv_corner_params_default();
    cp.max_corners = 40;
    cp.quality_level = 0.05;
    cp.min_distance = 3.0;
    cp.block_size = 5;
    clv_corner c1[40], c2[40], c3[40];
    memset(c1, 0, sizeof c1);
    memset(c2, 0, sizeof c2);
    memset(c3, 0, sizeof c3);
    int n1 = -1, n2 = -1, n3 = -1;
    REQUIRE_OK(ctx, clv_corners_shi_tomasi(ctx, f0, &cp, c1, &n1));
    const clv_arg ca[] = {CLV_ARG_IMAGE("img", f0),  CLV_ARG_INT("max_corners", 40),
                          CLV_ARG_DOUBLE("quality_level", 0.05),
                          CLV_ARG_DOUBLE("min_distance", 3.0), CLV_ARG_INT("block_size", 5),
                          CLV_ARG_PTR("out", CLV_PARAM_ARRAY, c2),
                          CLV_ARG_INT("capacity", 40),
                          CLV_ARG_PTR("count", CLV_PARAM_STRUCT, &n2)};
    REQUIRE_OK(ctx, clv_op_call(ctx, clv_op_find("corners"), ca, 8));
    const clv_arg cb[] = {CLV_ARG_IMAGE("img", f0),  CLV_ARG_INT("max_corners", 40),
                          CLV_ARG_DOUBLE("quality_level", 0.05),
                          CLV_ARG_DOUBLE("min_distance", 3.0), CLV_ARG_INT("block_size", 5),
                          CLV_ARG_PTR("out", CLV_PARAM_ARRAY, c3),
                          CLV_ARG_PTR("count", CLV_PARAM_STRUCT, &n3)};
    REQUIRE_OK(ctx, clv_op_call(ctx, clv_op_find("corners_shi_tomasi"), cb, 7));
    CHECK(n1 > 5 && n1 == n2 && n1 == n3, "corners: %d typed, %d and %d by name", n1, n2, n3);
    CHECK(memcmp(c1, c2, sizeof c1) == 0 && memcmp(c1, c3, sizeof c1) == 0,
          "corners by name differ from clv_corners_shi_tomasi");
    /* the same refusal, the same message; count 0 after it */
    cp.block_size = 4;
    s1 = clv_corners_shi_tomasi_n(ctx, f0, &cp, c1, 40, &n1);
    snprintf(m1, sizeof m1, "%s", clv_last_error(ctx));
    const clv_arg cc[] = {CLV_ARG_IMAGE("img", f0), CLV_ARG_INT("max_corners", 40),
                          CLV_ARG_DOUBLE("quality_level", 0.05),
                          CLV_ARG_DOUBLE("min_distance", 3.0), CLV_ARG_INT("block_size", 4),
                          CLV_ARG_PTR("out", CLV_PARAM_ARRAY, c2), CLV_ARG_INT("capacity", 40),
                          CLV_ARG_PTR("count", CLV_PARAM_STRUCT, &n2)};
    s2 = clv_op_call(ctx, clv_op_find("corners_shi_tomasi_n"), cc, 8);
    CHECK(s1 == CLV_ERROR_INVALID_ARGUMENT && s2 == s1 && strcmp(m1, clv_last_error(ctx)) == 0 &&
              n1 == 0 && n2 == 0,
          "block_size 4: '%s' / '%s', counts %d %d", m1, clv_last_error(ctx), n1, n2);
    CHECK(strstr(m1, "block_size must be odd in 1..31 (got 4)") != NULL, "message '%s'", m1);
    clv_image_release(f0);
    clv_image_release(f1);
    clv_image_release(fl1);
    clv_image_release(fl2);
}

/* dst of resize is the caller's size: clv_op_output_shape says 0x0 and
 * src's type and channels. */
static void resize_shape(void)
{
    clv_image *src;
    REQUIRE_OK(ctx, clv_image_create(ctx, 11, 7, 3, CLV_U16, &src));
    const clv_op_desc *op = clv_op_find("resize");
    REQUIRE(op != NULL, "resize not described");
    const int dst = clv_op_param_index(op, "dst");
    REQUIRE(dst >= 0 && (op->params[dst].flags & CLV_PARAM_FREE_SIZE), "resize.dst not free-size");
    const clv_arg a[] = {CLV_ARG_IMAGE("src", src)};
    int w = -1, h = -1, cn = -1;
    clv_pixel_type t = CLV_F32;
    char m[256];
    CHECK(clv_op_output_shape(op, a, 1, dst, &w, &h, &cn, &t, m, sizeof m) == CLV_OK, "%s", m);
    CHECK(w == 0 && h == 0 && cn == 3 && t == CLV_U16, "resize dst shape %dx%d, %d x %s", w, h,
          cn, clv_pixel_type_name(t));
    clv_image_release(src);
}

/* resize and tonemap_local by name, against the typed calls, byte for byte. */
static void by_name_resize_tonemap(void)
{
    enum { SW = 29, SH = 17, DW = 12, DH = 31 };
    unsigned char in[SW * SH * 3], x[DW * DH * 3], y[DW * DH * 3];
    for (int i = 0; i < SW * SH * 3; i++)
        in[i] = (unsigned char)((i * 7919) >> 3);
    clv_image *src, *d1, *d2;
    REQUIRE_OK(ctx, clv_image_create(ctx, SW, SH, 3, CLV_U8, &src));
    REQUIRE_OK(ctx, clv_image_create(ctx, DW, DH, 3, CLV_U8, &d1));
    REQUIRE_OK(ctx, clv_image_create(ctx, DW, DH, 3, CLV_U8, &d2));
    REQUIRE_OK(ctx, clv_image_upload(src, in, (size_t)SW * 3));
    REQUIRE_OK(ctx, clv_resize(ctx, src, d1));
    const clv_arg a[] = {CLV_ARG_IMAGE("dst", d2), CLV_ARG_IMAGE("src", src)};
    REQUIRE_OK(ctx, clv_op_call(ctx, clv_op_find("resize"), a, 2));
    REQUIRE_OK(ctx, clv_image_download(d1, x, (size_t)DW * 3));
    REQUIRE_OK(ctx, clv_image_download(d2, y, (size_t)DW * 3));
    CHECK(memcmp(x, y, sizeof x) == 0, "resize by name differs from clv_resize");
    clv_image_release(src);
    clv_image_release(d1);
    clv_image_release(d2);

    /* tonemap_local: HDR values over 12 stops, some parameters by name (in any
     * order), the rest at their defaults, against the typed call with the
     * same struct */
    enum { TW = 41, TH = 23 };
    static float hdr[TW * TH * 3];
    static unsigned char u[TW * TH * 3], v[TW * TH * 3];
    for (int i = 0; i < TW * TH; i++)
        for (int c = 0; c < 3; c++)
            hdr[3 * i + c] = (float)ldexp(1.0 + 0.25 * c, (i * 37 % 97) / 8 - 6);
    clv_image *h, *o1, *o2;
    REQUIRE_OK(ctx, clv_image_create(ctx, TW, TH, 3, CLV_F32, &h));
    REQUIRE_OK(ctx, clv_image_create(ctx, TW, TH, 3, CLV_U8, &o1));
    REQUIRE_OK(ctx, clv_image_create(ctx, TW, TH, 3, CLV_U8, &o2));
    REQUIRE_OK(ctx, clv_image_upload(h, hdr, (size_t)TW * 3 * sizeof(float)));
    clv_tonemap_params p = clv_tonemap_params_default();
    p.contrast = 4.0;
    p.gamma = 2.2;
    p.sigma_space = 3.0;
    p.blend = 0.75;
    REQUIRE_OK(ctx, clv_tonemap_local(ctx, h, o1, &p));
    const clv_arg b[] = {CLV_ARG_DOUBLE("blend", 0.75), CLV_ARG_IMAGE("out", o2),
                         CLV_ARG_DOUBLE("gamma", 2.2), CLV_ARG_INT("sigma_space", 3),
                         CLV_ARG_IMAGE("hdr", h), CLV_ARG_DOUBLE("contrast", 4.0)};
    REQUIRE_OK(ctx, clv_op_call(ctx, clv_op_find("tonemap"), b, 6));
    REQUIRE_OK(ctx, clv_image_download(o1, u, (size_t)TW * 3));
    REQUIRE_OK(ctx, clv_image_download(o2, v, (size_t)TW * 3));
    CHECK(memcmp(u, v, sizeof u) == 0, "tonemap_local by name differs from clv_tonemap_local");
    /* the same refusal, the same message: the derived range cells */
    p.sigma_range = 0.0125;
    clv_status s1 = clv_tonemap_local(ctx, h, o1, &p);
    char m1[512];
    snprintf(m1, sizeof m1, "%s", clv_last_error(ctx));
    const clv_arg c[] = {CLV_ARG_IMAGE("hdr", h), CLV_ARG_IMAGE("out", o2),
                         CLV_ARG_DOUBLE("sigma_range", 0.0125)};
    clv_status s2 = clv_op_call(ctx, clv_op_find("tonemap_local"), c, 3);
    CHECK(s1 == CLV_ERROR_INVALID_ARGUMENT && s2 == s1, "sigma_range 0.0125: %d %d", s1, s2);
    CHECK(strcmp(m1, clv_last_error(ctx)) == 0, "messages differ: '%s' / '%s'", m1,
          clv_last_error(ctx));
    CHECK(strstr(m1, "sigma_range 0.0125 needs 5121 range cells") != NULL, "message '%s'", m1);
    clv_image_release(h);
    clv_image_release(o1);
    clv_image_release(o2);
}

static void introspection(void)
{
    const int n = clv_op_count();
    CHECK(n >= 3, "%d operations", n);
    for (int i = 0; i < n; i++) {
        const clv_op_desc *op = clv_op_get(i);
        REQUIRE(op && op->name && op->summary && op->run, "operation %d incomplete", i);
        CHECK(clv_op_find(op->name) == op, "%s not found by name", op->name);
        if (op->cli_name) {
            /* a CLI name shared by several operations finds the first of them */
            const clv_op_desc *f = clv_op_find(op->cli_name);
            CHECK(f && f->cli_name && strcmp(f->cli_name, op->cli_name) == 0,
                  "%s not found by %s", op->name, op->cli_name);
        }
        for (int j = 0; j < op->nparams; j++) {
            const clv_param_desc *p = &op->params[j];
            CHECK(p->name && p->doc, "%s parameter %d without name or doc", op->name, j);
            CHECK(clv_op_param_index(op, p->name) == j, "%s.%s not unique", op->name, p->name);
            if (p->type == CLV_PARAM_INT || p->type == CLV_PARAM_DOUBLE)
                CHECK(!(p->flags & CLV_PARAM_OPTIONAL) || p->def != p->def ||
                          (p->def >= p->min && p->def <= p->max) ||
                          ((p->flags & CLV_PARAM_HAS_SPECIAL) && p->def == p->special),
                      "%s.%s default %g outside its range", op->name, p->name, p->def);
        }
    }
}

/* clv_op_supported (op.h) gives the call's own answer: for every operation,
 * input type, channel count and a few sizes (1x1, the matrix's 13x9, 301x7),
 * with one parameter pushed to its range's far end (so variants
 * and tiles change), the query with the real images, and with every image
 * replaced by a placeholder of its shape, returns the status and message
 * the call then returns. Under a lowered work-group limit
 * (POCL_MAX_WORK_GROUP_SIZE, the 'op-supported-limits' test) some answers
 * are CLV_ERROR_UNSUPPORTED; CLV_TEST_EXPECT_UNSUPPORTED=1 requires at least
 * one, so the device-limit checks are shown to reach the query. A
 * placeholder given to the call itself is refused. */
static int n_unsupported, n_supported_cases;

static void supported_case(call *c, const char *what)
{
    const clv_op_desc *op = c->op;
    char qmsg[1024], pmsg[1024], rmsg[1024];
    /* zeroed inputs: what the query assumes of data read back while a call
     * runs (the grid's f32 edge range, the number of corner candidates) */
    for (int i = 0; i < op->nparams; i++) {
        clv_image *img = c->a[i].v.p;
        if (op->params[i].type != CLV_PARAM_IMAGE || !img ||
            !(op->params[i].flags & CLV_PARAM_INPUT))
            continue;
        const size_t n = (size_t)clv_image_width(img) * (size_t)clv_image_height(img) *
                         (size_t)clv_image_channels(img) * clv_pixel_type_size(clv_image_type(img));
        void *zero = calloc(n, 1);
        REQUIRE(zero, "out of memory");
        REQUIRE_OK(ctx, clv_image_upload(img, zero, 0));
        free(zero);
    }
    clv_status q = clv_op_supported(ctx, op, c->a, op->nparams, qmsg, sizeof qmsg);
    CHECK(strcmp(qmsg, clv_last_error(ctx)) == 0, "%s, %s: msg '%s' is not clv_last_error '%s'",
          op->name, what, qmsg, clv_last_error(ctx));
    /* the same call on placeholders */
    clv_arg b[32];
    clv_image *ph[32] = {0};
    memcpy(b, c->a, (size_t)op->nparams * sizeof *b);
    for (int i = 0; i < op->nparams; i++) {
        const clv_image *img = c->a[i].v.p;
        if (op->params[i].type != CLV_PARAM_IMAGE || !img)
            continue;
        REQUIRE_OK(ctx, clv_image_placeholder(ctx, clv_image_width(img), clv_image_height(img),
                                              clv_image_channels(img), clv_image_type(img),
                                              &ph[i]));
        b[i].v.p = ph[i];
    }
    clv_status p = clv_op_supported(ctx, op, b, op->nparams, pmsg, sizeof pmsg);
    clv_status r = clv_op_call(ctx, op, c->a, op->nparams);
    snprintf(rmsg, sizeof rmsg, "%s", clv_last_error(ctx));
    CHECK(q == r && strcmp(qmsg, rmsg) == 0,
          "%s, %s: clv_op_supported says %s '%s', the call %s '%s'", op->name, what,
          clv_status_string(q), qmsg, clv_status_string(r), rmsg);
    CHECK(p == r && strcmp(pmsg, rmsg) == 0,
          "%s, %s: clv_op_supported on placeholders says %s '%s', the call %s '%s'", op->name,
          what, clv_status_string(p), pmsg, clv_status_string(r), rmsg);
    int have_ph = 0;
    for (int i = 0; i < op->nparams; i++)
        have_ph |= ph[i] != NULL;
    if (have_ph && r == CLV_OK) {
        clv_status x = clv_op_call(ctx, op, b, op->nparams);
        CHECK(x == CLV_ERROR_INVALID_ARGUMENT && strstr(clv_last_error(ctx), "placeholder"),
              "%s, %s: a call on placeholders: %s '%s'", op->name, what, clv_status_string(x),
              clv_last_error(ctx));
    }
    for (int i = 0; i < op->nparams; i++)
        clv_image_release(ph[i]);
    n_unsupported += r == CLV_ERROR_UNSUPPORTED;
    n_supported_cases++;
    if (list_cases)
        printf("  %s: supported, %s -> %s \"%s\"\n", op->name, what, clv_status_string(r), rmsg);
}

static void supported(const clv_op_desc *op)
{
    static const int sizes[][2] = {{1, 1}, {W, H}, {301, 7}};
    static const clv_pixel_type types[] = {CLV_U8, CLV_U16, CLV_F32};
    const clv_param_desc *first = NULL; /* the first input image: its types and channels */
    for (int i = 0; i < op->nparams && !first; i++)
        if (op->params[i].type == CLV_PARAM_IMAGE && (op->params[i].flags & CLV_PARAM_INPUT))
            first = &op->params[i];
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t ti = 0; ti < 3; ti++)
            for (int k = 0; k < 4; k++) {
                if (first && ((first->types && !(first->types & CLV_TYPES(types[ti]))) ||
                              (k > 0 && nth_channels(first, k) == nth_channels(first, k - 1))))
                    continue; /* the same case again */
                if (!first && (ti > 0 || k > 0))
                    continue;
                in_w = sizes[si][0];
                in_h = sizes[si][1];
                force_type = (int)types[ti];
                call c;
                char m[256];
                /* the good call, then its first number at its far end */
                for (int fix = -1; fix < op->nparams; fix++) {
                    const clv_param_desc *p = fix >= 0 ? &op->params[fix] : NULL;
                    if (p && p->type != CLV_PARAM_INT)
                        continue;
                    const int v = p ? (int)(p->max < 1e6 ? p->max : p->min) : 0;
                    const int made = try_call(op, &c, k, fix, v, m, sizeof m);
                    if (made == 1) {
                        char what[128];
                        snprintf(what, sizeof what, "%s %dx%d, channels #%d%s%s=%d",
                                 clv_pixel_type_name(force_type), in_w, in_h, k, p ? ", " : "",
                                 p ? p->name : "", v);
                        supported_case(&c, p ? what : what);
                        free_call(&c);
                    }
                    if (p)
                        break; /* one number pushed per case */
                }
            }
    force_type = 0;
    in_w = W;
    in_h = H;
}

static void supported_edges(void)
{
    char msg[256];
    const clv_op_desc *op = clv_op_find("gaussian_blur");
    REQUIRE(op, "no gaussian_blur");
    CHECK(clv_op_supported(NULL, op, NULL, 0, msg, sizeof msg) == CLV_ERROR_INVALID_ARGUMENT &&
              strstr(msg, "ctx"),
          "clv_op_supported(NULL ctx): '%s'", msg);
    CHECK(clv_op_supported(ctx, NULL, NULL, 0, msg, sizeof msg) == CLV_ERROR_INVALID_ARGUMENT &&
              strstr(msg, "op"),
          "clv_op_supported(NULL op): '%s'", msg);
    /* a placeholder larger than the device's largest allocation is what
     * clv_image_create says of that size */
    clv_image *a = NULL, *b = NULL;
    clv_status s1 = clv_image_placeholder(ctx, CLV_MAX_DIMENSION, CLV_MAX_DIMENSION, 4, CLV_F32, &a);
    char m1[512];
    snprintf(m1, sizeof m1, "%s", clv_last_error(ctx));
    clv_status s2 = clv_image_create(ctx, CLV_MAX_DIMENSION, CLV_MAX_DIMENSION, 4, CLV_F32, &b);
    CHECK(s1 == CLV_ERROR_UNSUPPORTED && s2 == s1 && !a && !b,
          "a 65536x65536 f32x4 placeholder: %s '%s', clv_image_create %s '%s'",
          clv_status_string(s1), m1, clv_status_string(s2), clv_last_error(ctx));
    CHECK(strstr(m1, "maximum allocation") != NULL, "placeholder refusal names the limit: '%s'", m1);
    clv_image_release(a);
    clv_image_release(b);
    /* a placeholder refuses transfers, views and maps */
    REQUIRE_OK(ctx, clv_image_placeholder(ctx, 5, 4, 1, CLV_U8, &a));
    unsigned char host[64];
    void *ptr = NULL;
    size_t pitch = 0;
    CHECK(clv_image_width(a) == 5 && clv_image_height(a) == 4 && clv_image_pitch(a) == 64 &&
              clv_image_cl_mem(a) == NULL,
          "placeholder accessors");
    CHECK(clv_image_upload(a, host, 0) == CLV_ERROR_INVALID_ARGUMENT &&
              strstr(clv_last_error(ctx), "placeholder"),
          "upload into a placeholder: '%s'", clv_last_error(ctx));
    CHECK(clv_image_download(a, host, 0) == CLV_ERROR_INVALID_ARGUMENT, "download of a placeholder");
    CHECK(clv_image_upload_async(a, host, 0) == CLV_ERROR_INVALID_ARGUMENT,
          "async upload into a placeholder");
    CHECK(clv_image_view(a, 1, 1, 2, 2, &b) == CLV_ERROR_INVALID_ARGUMENT && !b,
          "view of a placeholder");
    CHECK(clv_image_map(a, CLV_MAP_READ, &ptr, &pitch) == CLV_ERROR_INVALID_ARGUMENT && !ptr,
          "map of a placeholder");
    clv_image_release(a);
    /* the query leaves the last operation's device time readable */
    clv_context_options o = clv_context_options_default();
    o.profiling = 1;
    clv_context *pc = NULL;
    REQUIRE_OK(pc, clv_context_create(&o, &pc));
    REQUIRE_OK(pc, clv_image_create(pc, 64, 32, 1, CLV_U8, &a));
    REQUIRE_OK(pc, clv_image_create(pc, 64, 32, 1, CLV_U8, &b));
    REQUIRE_OK(pc, clv_box_filter(pc, a, b, 3, 3, CLV_BORDER_REFLECT101));
    clv_arg args[] = {CLV_ARG_IMAGE("src", a), CLV_ARG_IMAGE("dst", b), CLV_ARG_INT("ksize_x", 5),
                      CLV_ARG_INT("ksize_y", 5)};
    REQUIRE_OK(pc, clv_op_supported(pc, clv_op_find("box_filter"), args, 4, NULL, 0));
    double ms = -1.0;
    CHECK(clv_last_op_device_time(pc, &ms) == CLV_OK && ms >= 0.0,
          "device time of the box filter after a query: %s", clv_last_error(pc));
    clv_context_stats st0, st1;
    REQUIRE_OK(pc, clv_context_get_stats(pc, &st0));
    REQUIRE_OK(pc, clv_op_supported(pc, clv_op_find("box_filter"), args, 4, NULL, 0));
    REQUIRE_OK(pc, clv_context_get_stats(pc, &st1));
    CHECK(st1.kernels_launched == st0.kernels_launched, "a query launched %llu kernels",
          (unsigned long long)(st1.kernels_launched - st0.kernels_launched));
    clv_image_release(a);
    clv_image_release(b);
    clv_context_release(pc);
}

int main(void)
{
    ctx = test_context();
    if (!ctx)
        return TEST_SKIP;
    REQUIRE_OK(ctx2, clv_context_create(NULL, &ctx2));
    list_cases = getenv("CLV_TEST_LIST") && strcmp(getenv("CLV_TEST_LIST"), "1") == 0;
    const char *only = getenv("CLV_TEST_OP_ONLY"); /* "views": the view cases alone */
    if (only && strcmp(only, "supported") == 0) { /* the capability query alone */
        supported_edges();
        for (int i = 0; i < clv_op_count(); i++)
            supported(clv_op_get(i));
        const char *want = getenv("CLV_TEST_EXPECT_UNSUPPORTED");
        printf("op: clv_op_supported: %d cases, %d unsupported on this device\n",
               n_supported_cases, n_unsupported);
        CHECK(n_supported_cases > 100, "only %d capability cases", n_supported_cases);
        if (want && strcmp(want, "1") == 0)
            CHECK(n_unsupported > 0, "no case was CLV_ERROR_UNSUPPORTED under the lowered limits");
        clv_context_release(ctx2);
        clv_context_release(ctx);
        CHECK(test_no_live_objects("the end"), "objects left");
        return test_finish("op", 0);
    }
    if (!(getenv("CLV_TEST_OP_ONLY") && strcmp(getenv("CLV_TEST_OP_ONLY"), "views") == 0)) {
        introspection();
        by_name_equals_typed();
        by_name_struct_ops();
        resize_shape();
        by_name_resize_tonemap();
    }
    const int views_only = only && strcmp(only, "views") == 0;
    view_overlap();
    for (int i = 0; i < clv_op_count(); i++) {
        if (!views_only)
            matrix(clv_op_get(i));
        views(clv_op_get(i));
        if (!views_only)
            gated(clv_op_get(i));
    }
    clv_context_release(ctx2);
    clv_context_release(ctx);
    CHECK(test_no_live_objects("the end"), "objects left");
    return test_finish("op", 0);
}
