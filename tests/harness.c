/* The op-test harness (harness.h): plan the cases from the descriptor, run
 * each through clv_op_call, run the reference on the same host pixels,
 * compare. */
#include "harness.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ref/ref.h"
#include "testutil.h"

static const harness_size standard_sizes[] = {{1, 1}, {1, 67}, {67, 1}, {7, 5}, {33, 17}, {257, 3}};
enum { N_STANDARD = 6, MAX_SIZES = 32, PHOTO_W = 131, PHOTO_H = 97, PHOTO_X = 160, PHOTO_Y = 100 };
enum { PAD = 13, MAX_SHOWN = 20 };

/* Everything one harness_run works with. */
typedef struct plan {
    clv_context *ctx;
    const harness_spec *spec;
    const clv_op_desc *op;
    harness_tol tol;
    int src;                        /* parameter index of the source image */
    clv_pixel_type types[3];        /* the (type, channels) pairs, in order */
    int pair_type[12], pair_cn[12]; /* index into types, channel count */
    int npairs;
    harness_size sizes[MAX_SIZES];
    int nsizes;
    int nsets; /* argument sets (1 when the spec has no sweep) */
    clv_host_image photo; /* the crop as u8, the file's channels; data NULL without */
    unsigned long long seed;
    int cases, failures, shown;
} plan;

/* ---- small helpers ------------------------------------------------------ */

static double get_value(const void *p, size_t i, clv_pixel_type type)
{
    switch (type) {
    case CLV_U8: return ((const uint8_t *)p)[i];
    case CLV_U16: return ((const uint16_t *)p)[i];
    case CLV_F32: return ((const float *)p)[i];
    }
    return 0.0;
}

static void put_value(void *p, size_t i, clv_pixel_type type, double v)
{
    switch (type) {
    case CLV_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case CLV_U16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case CLV_F32: ((float *)p)[i] = (float)v; break;
    }
}

/* A failure of the spec itself (not of a case): printed, counted once. */
static harness_result spec_failure(const char *op, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL harness %s: ", op ? op : "(no op)");
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
    test_failures++;
    return (harness_result){0, 1, 0.0};
}

static int is_scalar(clv_param_type t)
{
    return t == CLV_PARAM_INT || t == CLV_PARAM_DOUBLE || t == CLV_PARAM_BOOL ||
           t == CLV_PARAM_ENUM;
}

static int is_swept(clv_param_type t)
{
    return t == CLV_PARAM_ENUM || t == CLV_PARAM_BOOL;
}

static int n_values(const clv_param_desc *p)
{
    return p->type == CLV_PARAM_BOOL ? 2 : p->n_enum;
}

static int value_at(const clv_param_desc *p, int k)
{
    return p->type == CLV_PARAM_BOOL ? k : p->enum_values[k];
}

static const clv_arg *find_arg(const harness_args *s, const char *name)
{
    for (int k = 0; s && k < HARNESS_MAX_ARGS && s->a[k].name; k++)
        if (strcmp(s->a[k].name, name) == 0)
            return &s->a[k];
    return NULL;
}

static const harness_args *set_of(const plan *pl, int set)
{
    return pl->spec->sweep ? &pl->spec->sweep[set] : NULL;
}

/* Parameters swept for argument set `set`: ENUM and BOOL not named in fixed
 * or in the set. Returns how many combinations they make. */
static int combos(const plan *pl, int set, int *idx, int *nidx)
{
    int n = 0, total = 1;
    for (int i = 0; i < pl->op->nparams; i++) {
        const clv_param_desc *p = &pl->op->params[i];
        if (!is_swept(p->type) || find_arg(&pl->spec->fixed, p->name) ||
            find_arg(set_of(pl, set), p->name))
            continue;
        idx[n++] = i;
        total *= n_values(p);
    }
    *nidx = n;
    return total;
}

/* Stores one given value into a (descriptor order). 0 on a bad name or type. */
static int apply(const plan *pl, clv_arg *a, const clv_arg *v)
{
    const int i = clv_op_param_index(pl->op, v->name);
    if (i < 0 || !is_scalar(pl->op->params[i].type))
        return 0;
    const clv_param_type t = pl->op->params[i].type;
    if (t == CLV_PARAM_DOUBLE)
        a[i].v.d = v->type == CLV_PARAM_DOUBLE ? v->v.d : (double)v->v.i;
    else if (v->type == CLV_PARAM_DOUBLE)
        a[i].v.i = (int)v->v.d; /* the op's own binding refuses nothing here: checked below */
    else
        a[i].v.i = v->v.i;
    return v->type != CLV_PARAM_DOUBLE || t == CLV_PARAM_DOUBLE || v->v.d == floor(v->v.d);
}

/* The argument list of one case: defaults, fixed, the set, the combination. */
static void bind_case(const plan *pl, int set, int combo, clv_arg *a)
{
    const clv_op_desc *op = pl->op;
    for (int i = 0; i < op->nparams; i++) {
        const clv_param_desc *p = &op->params[i];
        a[i].name = p->name;
        a[i].type = p->type;
        if (p->type == CLV_PARAM_DOUBLE)
            a[i].v.d = p->def;
        else if (is_scalar(p->type))
            a[i].v.i = (int)p->def;
        else
            a[i].v.p = NULL;
    }
    for (int k = 0; k < HARNESS_MAX_ARGS && pl->spec->fixed.a[k].name; k++)
        apply(pl, a, &pl->spec->fixed.a[k]);
    const harness_args *s = set_of(pl, set);
    for (int k = 0; s && k < HARNESS_MAX_ARGS && s->a[k].name; k++)
        apply(pl, a, &s->a[k]);
    int idx[HARNESS_MAX_PARAMS], nidx;
    combos(pl, set, idx, &nidx);
    for (int j = 0; j < nidx; j++) {
        const clv_param_desc *p = &op->params[idx[j]];
        a[idx[j]].v.i = value_at(p, combo % n_values(p));
        combo /= n_values(p);
    }
}

/* "ksize_x=3 ksize_y=5 border=wrap" */
static void describe_args(const clv_op_desc *op, const clv_arg *a, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < op->nparams && n < size; i++) {
        const clv_param_desc *p = &op->params[i];
        int w = 0;
        if (p->type == CLV_PARAM_INT || p->type == CLV_PARAM_BOOL)
            w = snprintf(buf + n, size - n, " %s=%d", p->name, a[i].v.i);
        else if (p->type == CLV_PARAM_DOUBLE)
            w = snprintf(buf + n, size - n, " %s=%g", p->name, a[i].v.d);
        else if (p->type == CLV_PARAM_ENUM) {
            const char *e = clv_param_enum_name(p, a[i].v.i);
            w = e ? snprintf(buf + n, size - n, " %s=%s", p->name, e)
                  : snprintf(buf + n, size - n, " %s=%d", p->name, a[i].v.i);
        }
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

/* ---- reference-side accessors --------------------------------------------- */

static int param_or_die(const harness_case *c, const char *name, const char *what)
{
    const int i = clv_op_param_index(c->op, name);
    if (i < 0) {
        fprintf(stderr, "harness: %s has no parameter '%s' (%s)\n", c->op->name, name, what);
        exit(1);
    }
    return i;
}

const clv_host_image *harness_in(const harness_case *c, const char *name)
{
    const int i = param_or_die(c, name, "harness_in");
    if (c->op->params[i].type != CLV_PARAM_IMAGE || !(c->op->params[i].flags & CLV_PARAM_INPUT)) {
        fprintf(stderr, "harness: %s.%s is not an input image\n", c->op->name, name);
        exit(1);
    }
    return &c->img[i];
}

clv_host_image *harness_out(const harness_case *c, const char *name)
{
    const int i = param_or_die(c, name, "harness_out");
    if (c->op->params[i].type != CLV_PARAM_IMAGE || !(c->op->params[i].flags & CLV_PARAM_OUTPUT)) {
        fprintf(stderr, "harness: %s.%s is not an output image\n", c->op->name, name);
        exit(1);
    }
    return (clv_host_image *)&c->img[i]; /* the case is the harness's; outputs are the ref's */
}

int harness_int(const harness_case *c, const char *name)
{
    const int i = param_or_die(c, name, "harness_int");
    const clv_param_type t = c->op->params[i].type;
    if (t != CLV_PARAM_INT && t != CLV_PARAM_ENUM && t != CLV_PARAM_BOOL) {
        fprintf(stderr, "harness: %s.%s is not an int, enum or bool\n", c->op->name, name);
        exit(1);
    }
    return c->args[i].v.i;
}

double harness_double(const harness_case *c, const char *name)
{
    const int i = param_or_die(c, name, "harness_double");
    const clv_param_type t = c->op->params[i].type;
    if (t == CLV_PARAM_INT)
        return c->args[i].v.i;
    if (t != CLV_PARAM_DOUBLE) {
        fprintf(stderr, "harness: %s.%s is not a number\n", c->op->name, name);
        exit(1);
    }
    return c->args[i].v.d;
}

/* ---- content ---------------------------------------------------------------- */

/* The crop, as u8 with the file's channels; leaves pl->photo zeroed and
 * returns 0 (with the reason printed) when the file cannot be read. */
static int load_photo(plan *pl)
{
    const char *path = test_data_path("chelsea.png");
    clv_host_image hi;
    clv_status s = clv_image_read(path, &hi);
    if (s != CLV_OK) {
        printf("FAIL harness %s: reading %s: %s: %s\n", pl->op->name, path,
               clv_status_string(s), clv_io_last_error());
        return 0;
    }
    const int x0 = hi.width > PHOTO_X + PHOTO_W ? PHOTO_X : 0;
    const int y0 = hi.height > PHOTO_Y + PHOTO_H ? PHOTO_Y : 0;
    const int w = hi.width < PHOTO_W ? hi.width : PHOTO_W;
    const int h = hi.height < PHOTO_H ? hi.height : PHOTO_H;
    if (hi.type != CLV_U8 || clv_host_image_alloc(&pl->photo, w, h, hi.channels, CLV_U8) != CLV_OK) {
        printf("FAIL harness %s: %s is not an 8-bit image\n", pl->op->name, path);
        clv_host_image_free(&hi);
        return 0;
    }
    for (int y = 0; y < h; y++)
        memcpy((char *)pl->photo.data + (size_t)y * pl->photo.stride,
               (const char *)hi.data + (size_t)(y0 + y) * hi.stride + (size_t)x0 * hi.channels,
               (size_t)w * hi.channels);
    clv_host_image_free(&hi);
    return 1;
}

/* The crop as type x cn: 1 = luma, 2 = first two, 3 = RGB, 4 = RGB + luma. */
static void photo_pixels(const plan *pl, clv_host_image *dst)
{
    const clv_host_image *p = &pl->photo;
    const double scale = dst->type == CLV_U8 ? 1.0 : dst->type == CLV_U16 ? 257.0 : 1.0 / 255.0;
    for (int y = 0; y < dst->height; y++) {
        const uint8_t *row = (const uint8_t *)p->data + (size_t)y * p->stride;
        for (int x = 0; x < dst->width; x++) {
            const uint8_t *px = row + (size_t)x * p->channels;
            double rgb[3];
            for (int c = 0; c < 3; c++)
                rgb[c] = px[c < p->channels ? c : 0];
            const double luma = floor(0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] + 0.5);
            for (int c = 0; c < dst->channels; c++) {
                const double v = dst->channels == 1 || c == 3 ? luma : rgb[c];
                put_value((char *)dst->data + (size_t)y * dst->stride, (size_t)x * dst->channels + c,
                          dst->type, v * scale);
            }
        }
    }
}

/* ---- comparison --------------------------------------------------------------- */

static void describe_tol(const harness_tol *t, clv_pixel_type type, char *buf, size_t size)
{
    if (t->exact)
        snprintf(buf, size, "exact");
    else if (type == CLV_F32)
        snprintf(buf, size, "max(%g, %g * |expected|)", t->f32_abs, t->f32_rel);
    else
        snprintf(buf, size, "+-%g", t->int_abs);
}

/* Number of bad values of got against want (packed, w x h x cn of type);
 * prints one FAIL line (prefixed by what) when there are any. */
static size_t compare(plan *pl, const void *got, const void *want, int w, int h, int cn,
                      clv_pixel_type type, const char *what)
{
    const harness_tol *t = &pl->tol;
    const size_t n = (size_t)w * h * cn, es = clv_pixel_type_size(type);
    size_t bad = 0, first = 0;
    double sum_signed = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double g = get_value(got, i, type), v = get_value(want, i, type);
        int ok;
        if (t->exact)
            ok = memcmp((const char *)got + i * es, (const char *)want + i * es, es) == 0;
        else if (type == CLV_F32)
            ok = fabs(g - v) <= fmax(t->f32_abs, t->f32_rel * fabs(v)); /* false for NaN */
        else
            ok = fabs(g - v) <= t->int_abs;
        if (type != CLV_F32)
            sum_signed += g - v;
        if (!ok && !bad++)
            first = i;
    }
    char tol[64];
    describe_tol(t, type, tol, sizeof tol);
    const double mean = n ? sum_signed / (double)n : 0.0;
    if (!bad && !t->exact && type != CLV_F32 && n >= 1000 && fabs(mean) > t->max_bias) {
        if (pl->shown < MAX_SHOWN)
            printf("FAIL %s: every value within %s but the mean signed error is %.3g (allowed "
                   "+-%g; truncating instead of rounding?)\n",
                   what, tol, mean, t->max_bias);
        return n;
    }
    if (bad && pl->shown < MAX_SHOWN) {
        const size_t px = first / (size_t)cn;
        printf("FAIL %s: %zu of %zu values off; first at (x=%d, y=%d, c=%d): got %.9g, "
               "expected %.9g, tolerance %s\n",
               what, bad, n, (int)(px % (size_t)w), (int)(px / (size_t)w), (int)(first % (size_t)cn),
               get_value(got, first, type), get_value(want, first, type), tol);
    }
    return bad;
}

/* ---- one case ------------------------------------------------------------------ */

/* Type and channels of input image i: the source's where accepted. */
static void input_shape(const clv_param_desc *p, clv_pixel_type t, int cn, clv_pixel_type *ot,
                        int *ocn)
{
    const unsigned tm = p->types ? p->types : CLV_TYPES_ALL;
    const unsigned cm = p->channels ? p->channels : CLV_CHANNELS_1_4;
    *ot = t;
    *ocn = cn;
    if (!(tm & CLV_TYPES(t)))
        for (int k = CLV_U8; k <= CLV_F32; k++)
            if (tm & CLV_TYPES(k)) {
                *ot = (clv_pixel_type)k;
                break;
            }
    if (!(cm & CLV_CHANNELS(cn)))
        for (int k = 1; k <= 4; k++)
            if (cm & CLV_CHANNELS(k)) {
                *ocn = k;
                break;
            }
}

static void run_case(plan *pl, int size, int pair, int set, int combo)
{
    const clv_op_desc *op = pl->op;
    const int photo = size < 0;
    const int w = photo ? pl->photo.width : pl->sizes[size].w;
    const int h = photo ? pl->photo.height : pl->sizes[size].h;
    const clv_pixel_type type = pl->types[pl->pair_type[pair]];
    const int cn = pl->pair_cn[pair];
    const size_t pad = pl->cases % 4 == 3 ? PAD : 0;
    const unsigned long long seed = pl->seed + (unsigned long long)pl->cases * 7919u;

    clv_arg a[HARNESS_MAX_PARAMS];
    bind_case(pl, set, combo, a);
    harness_case hc;
    memset(&hc, 0, sizeof hc);
    hc.op = op;
    hc.args = a;
    clv_image *dev[HARNESS_MAX_PARAMS] = {0};
    char args[512], label[768];
    describe_args(op, a, args, sizeof args);
    snprintf(label, sizeof label, "%s %dx%d%s %s c%d%s%s", op->name, w, h, photo ? " (photo)" : "",
             clv_pixel_type_name(type), cn, args, pad ? " (padded host strides)" : "");
    pl->cases++;
    int failed = 0;

    /* inputs: host pixels, then device copies */
    for (int i = 0; i < op->nparams; i++) {
        const clv_param_desc *p = &op->params[i];
        if (p->type != CLV_PARAM_IMAGE || !(p->flags & CLV_PARAM_INPUT))
            continue;
        clv_pixel_type it;
        int icn;
        input_shape(p, type, cn, &it, &icn);
        REQUIRE(clv_host_image_alloc(&hc.img[i], w, h, icn, it) == CLV_OK, "%s: host image",
                label);
        if (photo && i == pl->src)
            photo_pixels(pl, &hc.img[i]);
        else
            test_fill_random(hc.img[i].data, (size_t)w * h * icn, it, seed + (unsigned)i);
        dev[i] = th_upload(pl->ctx, hc.img[i].data, w, h, icn, it, pad);
        a[i].v.p = dev[i];
    }
    /* outputs: shaped by the descriptor, poisoned */
    for (int i = 0; i < op->nparams; i++) {
        const clv_param_desc *p = &op->params[i];
        if (p->type != CLV_PARAM_IMAGE || !(p->flags & CLV_PARAM_OUTPUT))
            continue;
        int ow, oh, ocn;
        clv_pixel_type ot;
        char m[256];
        clv_status s = clv_op_output_shape(op, a, op->nparams, i, &ow, &oh, &ocn, &ot, m, sizeof m);
        if (s != CLV_OK || ow < 1 || oh < 1) {
            if (pl->shown < MAX_SHOWN)
                printf("FAIL %s: output %s: %s\n", label, p->name,
                       s != CLV_OK ? m : "a size the caller picks: not supported by the harness");
            failed = 1;
            goto out;
        }
        REQUIRE(clv_host_image_alloc(&hc.img[i], ow, oh, ocn, ot) == CLV_OK, "%s: host image",
                label);
        memset(hc.img[i].data, 0xAB, hc.img[i].stride * (size_t)oh);
        dev[i] = th_poisoned(pl->ctx, ow, oh, ocn, ot);
        a[i].v.p = dev[i];
    }

    clv_status s = clv_op_call(pl->ctx, op, a, op->nparams);
    if (s != CLV_OK) {
        if (pl->shown < MAX_SHOWN)
            printf("FAIL %s: %s: %s\n", label, clv_status_string(s), clv_last_error(pl->ctx));
        failed = 1;
        goto out;
    }
    pl->spec->ref(&hc, pl->spec->user);

    for (int i = 0; i < op->nparams; i++) {
        const clv_param_desc *p = &op->params[i];
        if (p->type != CLV_PARAM_IMAGE || !(p->flags & CLV_PARAM_OUTPUT))
            continue;
        const clv_host_image *want = &hc.img[i];
        int gap_ok = 1;
        void *got = th_download(pl->ctx, dev[i], pad, &gap_ok);
        char what[1024];
        snprintf(what, sizeof what, "%s, %s", label, p->name);
        if (!got) {
            failed = 1;
            continue;
        }
        if (compare(pl, got, want->data, want->width, want->height, want->channels, want->type,
                    what))
            failed = 1;
        if (!gap_ok) {
            if (pl->shown < MAX_SHOWN)
                printf("FAIL %s: the download wrote into the gap between host rows\n", what);
            failed = 1;
        }
        free(got);
    }
out:
    for (int i = 0; i < op->nparams; i++) {
        clv_image_release(dev[i]);
        clv_host_image_free(&hc.img[i]);
    }
    if (failed) {
        pl->failures++;
        test_failures++;
        if (++pl->shown == MAX_SHOWN)
            printf("(harness %s: further failures counted, not shown)\n", op->name);
    }
}

/* ---- planning ------------------------------------------------------------------- */

/* Checks the spec against the descriptor; NULL when fine, else the reason. */
static const char *check_spec(plan *pl, char *buf, size_t size)
{
    const harness_spec *sp = pl->spec;
    const clv_op_desc *op = pl->op;
    if (!sp->ref)
        return "no reference function";
    if (op->nparams > HARNESS_MAX_PARAMS)
        return "too many parameters";
    if (sp->nsweep < 0 || (sp->nsweep > 0) != (sp->sweep != NULL))
        return "sweep and nsweep disagree";
    if (sp->nextra_sizes < 0 || sp->nextra_sizes > MAX_SIZES - N_STANDARD ||
        (sp->nextra_sizes > 0 && !sp->extra_sizes))
        return "bad extra_sizes / nextra_sizes";
    for (int k = 0; k < sp->nextra_sizes; k++)
        if (sp->extra_sizes[k].w < 1 || sp->extra_sizes[k].h < 1)
            return "an extra size below 1x1";
    pl->src = -1;
    for (int i = 0; i < op->nparams; i++) {
        const clv_param_desc *p = &op->params[i];
        if (p->type == CLV_PARAM_IMAGE && (p->flags & CLV_PARAM_INPUT) && pl->src < 0)
            pl->src = i;
        if ((p->type == CLV_PARAM_PYRAMID || p->type == CLV_PARAM_ARRAY ||
             p->type == CLV_PARAM_STRUCT) &&
            !(p->flags & CLV_PARAM_OPTIONAL)) {
            snprintf(buf, size, "parameter %s: pyramids, arrays and structs are not supported",
                     p->name);
            return buf;
        }
    }
    if (pl->src < 0)
        return "no input image";
    /* every name given must be a scalar parameter of the op */
    for (int s = -1; s < sp->nsweep; s++) {
        const harness_args *set = s < 0 ? &sp->fixed : &sp->sweep[s];
        for (int k = 0; k < HARNESS_MAX_ARGS && set->a[k].name; k++) {
            clv_arg scratch[HARNESS_MAX_PARAMS];
            const int i = clv_op_param_index(op, set->a[k].name);
            if (i < 0 || !is_scalar(op->params[i].type) || !apply(pl, scratch, &set->a[k])) {
                snprintf(buf, size, "%s %d: '%s' is not a number parameter of the op (or not "
                         "an integer where one is needed)",
                         s < 0 ? "fixed" : "argument set", s, set->a[k].name);
                return buf;
            }
        }
    }
    /* types and channels: the source's, narrowed by the spec */
    const clv_param_desc *src = &op->params[pl->src];
    const unsigned tm = src->types ? src->types : CLV_TYPES_ALL;
    const unsigned cm = src->channels ? src->channels : CLV_CHANNELS_1_4;
    if ((sp->types & ~tm) || (sp->channels & ~cm))
        return "types / channels outside what the source accepts";
    const unsigned want_t = sp->types ? sp->types : tm, want_c = sp->channels ? sp->channels : cm;
    int nt = 0;
    pl->npairs = 0;
    for (int t = CLV_U8; t <= CLV_F32; t++) {
        if (!(want_t & CLV_TYPES(t)))
            continue;
        pl->types[nt] = (clv_pixel_type)t;
        for (int c = 1; c <= 4; c++)
            if (want_c & CLV_CHANNELS(c)) {
                pl->pair_type[pl->npairs] = nt;
                pl->pair_cn[pl->npairs] = c;
                pl->npairs++;
            }
        nt++;
    }
    if (!pl->npairs)
        return "no type and channel count to run";
    return NULL;
}

static int planned_cases(const plan *pl)
{
    int idx[HARNESS_MAX_PARAMS], nidx;
    long total = (long)pl->nsizes * pl->npairs * combos(pl, 0, idx, &nidx);
    for (int s = 1; s < pl->nsets; s++)
        total += (long)pl->nsizes * combos(pl, s, idx, &nidx);
    if (!pl->spec->no_photo)
        total += pl->npairs;
    return total > 1000000 ? 1000000 : (int)total;
}

static unsigned long long name_seed(const char *s)
{
    unsigned long long h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

harness_result harness_run(clv_context *ctx, const harness_spec *spec)
{
    if (!ctx || !spec || !spec->op)
        return spec_failure(spec ? spec->op : NULL, "no context, spec or op name");
    plan pl;
    memset(&pl, 0, sizeof pl);
    pl.ctx = ctx;
    pl.spec = spec;
    pl.op = clv_op_find(spec->op);
    if (!pl.op)
        return spec_failure(spec->op, "no operation of that name (clv_op_find)");
    char buf[256];
    const char *why = check_spec(&pl, buf, sizeof buf);
    if (why)
        return spec_failure(pl.op->name, "%s", why);
    pl.tol = spec->tol ? *spec->tol : HARNESS_TOL_DEFAULT;
    pl.seed = spec->seed ? spec->seed : name_seed(pl.op->name);
    pl.nsets = spec->nsweep > 0 ? spec->nsweep : 1;
    for (int k = 0; k < N_STANDARD; k++)
        pl.sizes[pl.nsizes++] = standard_sizes[k];
    for (int k = 0; k < spec->nextra_sizes; k++)
        pl.sizes[pl.nsizes++] = spec->extra_sizes[k];
    const int planned = planned_cases(&pl);
    if (planned > HARNESS_MAX_CASES)
        return spec_failure(pl.op->name, "%d cases planned, more than %d: trim the sweep",
                            planned, HARNESS_MAX_CASES);

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int idx[HARNESS_MAX_PARAMS], nidx, rot = 0;
    /* A: the first set, everything */
    const int nc0 = combos(&pl, 0, idx, &nidx);
    for (int si = 0; si < pl.nsizes; si++)
        for (int p = 0; p < pl.npairs; p++)
            for (int e = 0; e < nc0; e++)
                run_case(&pl, si, p, 0, e);
    /* B: the other sets, (type, channels) rotating */
    for (int s = 1; s < pl.nsets; s++) {
        const int nc = combos(&pl, s, idx, &nidx);
        for (int si = 0; si < pl.nsizes; si++)
            for (int e = 0; e < nc; e++)
                run_case(&pl, si, rot++ % pl.npairs, s, e);
    }
    /* C: the photo, every pair once */
    if (!spec->no_photo) {
        if (load_photo(&pl)) {
            for (int p = 0; p < pl.npairs; p++) {
                const int s = p % pl.nsets;
                run_case(&pl, -1, p, s, p % combos(&pl, s, idx, &nidx));
            }
        } else {
            pl.failures++;
            test_failures++;
        }
        clv_host_image_free(&pl.photo);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);

    /* the summary */
    char types[32] = "", chans[16] = "", swept[160] = "";
    for (int t = 0, n = 0; t < 3 && pl.types[t]; t++)
        n += snprintf(types + n, sizeof types - (size_t)n, "%s%s", t ? "/" : "",
                      clv_pixel_type_name(pl.types[t]));
    for (int p = 0, n = 0; p < pl.npairs; p++)
        if (pl.pair_type[p] == 0)
            n += snprintf(chans + n, sizeof chans - (size_t)n, "%s%d", n ? "," : "", pl.pair_cn[p]);
    combos(&pl, 0, idx, &nidx);
    for (int j = 0, n = 0; j < nidx; j++)
        n += snprintf(swept + n, sizeof swept - (size_t)n, ", %s x%d", pl.op->params[idx[j]].name,
                      n_values(&pl.op->params[idx[j]]));
    printf("harness %s: %d cases, %d failed (%d sizes%s; %s x %s channels; %d argument set%s%s) "
           "in %.2f s\n",
           pl.op->name, pl.cases, pl.failures, pl.nsizes, spec->no_photo ? "" : " + photo crop",
           types, chans, pl.nsets, pl.nsets == 1 ? "" : "s", swept, secs);
    return (harness_result){pl.cases, pl.failures, secs};
}
