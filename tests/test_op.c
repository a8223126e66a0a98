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
 *   - NaN and +-Inf for every double, a value off the enum for every enum,
 *     2 for every bool are refused, naming the parameter;
 *   - every required image NULL, every image of a type or channel count its
 *     parameter does not take, and an output that is an input are refused;
 *   - after each refusal the context still runs the good call.
 * A new operation is covered by its descriptor alone. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

enum { W = 13, H = 9 };

static clv_context *ctx;

typedef struct call {
    const clv_op_desc *op;
    clv_arg a[32];
    clv_image *own[32];
} call;

static double valid_number(const clv_param_desc *p)
{
    if (p->flags & CLV_PARAM_OPTIONAL)
        return p->def;
    if (p->def >= p->min && p->def <= p->max && p->def != 0.0)
        return p->def;
    return isfinite(p->min) ? p->min + 1 : 1;
}

static int first_bit(unsigned mask, int lo)
{
    for (int b = lo; b < 31; b++)
        if (mask & (1u << b))
            return b;
    return -1;
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
                const int t = first_bit(p->types ? p->types : CLV_TYPES_ALL, CLV_U8);
                const int cn = nth_channels(p, k);
                REQUIRE(t >= 0 && cn >= 1, "%s.%s accepts nothing", op->name, p->name);
                REQUIRE_OK(ctx, clv_image_create(ctx, W, H, cn, (clv_pixel_type)t, &c->own[i]));
                c->a[i].v.p = c->own[i];
            }
            break;
        default:
            return 0;
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
    for (int i = 0; i < 32; i++)
        clv_image_release(c->own[i]);
}

static void expect_refused(call *c, const char *what, const char *word)
{
    clv_status s = clv_op_call(ctx, c->op, c->a, c->op->nparams);
    const char *m = clv_last_error(ctx);
    CHECK(s == CLV_ERROR_INVALID_ARGUMENT, "%s, %s: got %s (%s)", c->op->name, what,
          clv_status_string(s), m);
    CHECK(strstr(m, word) != NULL, "%s, %s: message '%s' does not name '%s'", c->op->name, what,
          m, word);
}

static void expect_runs(call *c, const char *what)
{
    clv_status s = clv_op_call(ctx, c->op, c->a, c->op->nparams);
    CHECK(s == CLV_OK, "%s, %s: %s (%s)", c->op->name, what, clv_status_string(s),
          clv_last_error(ctx));
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
                    if (!op->check || clv_op_check(NULL, op, c.a, op->nparams, NULL, 0) == CLV_OK)
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
            if (!is_int) {
                const double bad[3] = {NAN, HUGE_VAL, -HUGE_VAL};
                for (int k = 0; k < 3; k++) {
                    c.a[i].v.d = bad[k];
                    snprintf(what, sizeof what, "%s = %g", p->name, bad[k]);
                    expect_refused(&c, what, p->name), rows++;
                }
            }
        } else if (p->type == CLV_PARAM_ENUM || p->type == CLV_PARAM_BOOL) {
            const int bad[2] = {p->type == CLV_PARAM_BOOL ? 2 : 99, -1};
            for (int k = 0; k < 2; k++) {
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
                expect_refused(&c, "NULL image", word), rows++;
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
        }
        c.a[i] = keep;
    }
    expect_runs(&c, "the good call again");
    printf("%-16s  %d generated cases\n", op->name, rows);
    free_call(&c);
}

/* A call by name gives the typed function's result, byte for byte. */
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

static void introspection(void)
{
    const int n = clv_op_count();
    CHECK(n >= 3, "%d operations", n);
    for (int i = 0; i < n; i++) {
        const clv_op_desc *op = clv_op_get(i);
        REQUIRE(op && op->name && op->summary && op->run, "operation %d incomplete", i);
        CHECK(clv_op_find(op->name) == op, "%s not found by name", op->name);
        if (op->cli_name)
            CHECK(clv_op_find(op->cli_name) == op, "%s not found by %s", op->name, op->cli_name);
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

int main(void)
{
    ctx = test_context();
    if (!ctx)
        return TEST_SKIP;
    introspection();
    by_name_equals_typed();
    for (int i = 0; i < clv_op_count(); i++)
        matrix(clv_op_get(i));
    clv_context_release(ctx);
    CHECK(test_no_live_objects("the end"), "objects left");
    return test_finish("op", 0);
}
