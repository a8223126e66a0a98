/* clvision — operation descriptors: the registry, calls by name and the one
 * validation every operation's arguments go through (see clvision/op.h). */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "runtime/internal.h"

/* ---- registry (one entry per described operation) ---- */

static const clv_op_desc *const registry[] = {
#define CLV_SOURCE(id, file)
#define CLV_OP(sym, file) &clv__op_##sym,
#define CLV_OP_FILE(file)
#include "ops/ops.def"
#undef CLV_SOURCE
#undef CLV_OP
#undef CLV_OP_FILE
};
enum { NOPS = (int)(sizeof registry / sizeof registry[0]) };

CLV_API int clv_op_count(void) { return NOPS; }

CLV_API const clv_op_desc *clv_op_get(int i)
{
    return i >= 0 && i < NOPS ? registry[i] : NULL;
}

CLV_API const clv_op_desc *clv_op_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < NOPS; i++)
        if (strcmp(registry[i]->name, name) == 0 ||
            (registry[i]->cli_name && strcmp(registry[i]->cli_name, name) == 0))
            return registry[i];
    return NULL;
}

CLV_API int clv_op_param_index(const clv_op_desc *op, const char *name)
{
    if (!op || !name)
        return -1;
    for (int i = 0; i < op->nparams; i++)
        if (strcmp(op->params[i].name, name) == 0)
            return i;
    return -1;
}

CLV_API clv_status clv_param_enum_value(const clv_param_desc *p, const char *name, int *value)
{
    if (!p || !name || !value || p->type != CLV_PARAM_ENUM)
        return CLV_ERROR_INVALID_ARGUMENT;
    for (int k = 0; k < p->n_enum; k++)
        if (strcasecmp(p->enum_names[k], name) == 0) {
            *value = p->enum_values[k];
            return CLV_OK;
        }
    return CLV_ERROR_INVALID_ARGUMENT;
}

CLV_API const char *clv_param_enum_name(const clv_param_desc *p, int value)
{
    if (!p || p->type != CLV_PARAM_ENUM)
        return NULL;
    for (int k = 0; k < p->n_enum; k++)
        if (p->enum_values[k] == value)
            return p->enum_names[k];
    return NULL;
}

static void accepted_text(const clv_param_desc *p, char *buf, size_t size);

/* ---- reporting: to a context, or to a caller's buffer ---- */

clv_status clv__report_fail(clv__report *r, clv_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (r->ctx) {
        status = clv__failv(r->ctx, status, r->op->name, fmt, ap);
    } else if (r->msg && r->msg_size > 0) {
        /* no prefix for one parameter's check (clv_param_check) */
        int n = r->op->name ? snprintf(r->msg, r->msg_size, "%s: ", r->op->name) : 0;
        if (n >= 0 && (size_t)n < r->msg_size)
            vsnprintf(r->msg + n, r->msg_size - (size_t)n, fmt, ap);
    }
    va_end(ap);
    return status;
}

/* "in 1..255", "> 0", "odd in 1..255", "0 or odd in 1..255", "finite". */
static void rule_text(const clv_param_desc *p, char *buf, size_t size)
{
    char lo[32], hi[32];
    const int is_int = p->type == CLV_PARAM_INT;
    snprintf(lo, sizeof lo, "%s", CLV_NUM(p->min));
    snprintf(hi, sizeof hi, "%s", CLV_NUM(p->max));
    const int has_lo = isfinite(p->min), has_hi = isfinite(p->max);
    const int lo_open = (p->flags & CLV_PARAM_MIN_OPEN) != 0;
    const int hi_open = (p->flags & CLV_PARAM_MAX_OPEN) != 0;
    char range[96];
    if (has_lo && has_hi && p->min == p->max && !lo_open && !hi_open) {
        snprintf(range, sizeof range, "%s", lo); /* one value: "must be 3" */
    } else if (has_lo && has_hi) {
        if (is_int || (!lo_open && !hi_open))
            snprintf(range, sizeof range, "in %s..%s", lo, hi);
        else
            snprintf(range, sizeof range, "in %c%s, %s%c", lo_open ? '(' : '[', lo, hi,
                     hi_open ? ')' : ']');
    } else if (has_lo) {
        snprintf(range, sizeof range, "%s %s", lo_open ? ">" : ">=", lo);
    } else if (has_hi) {
        snprintf(range, sizeof range, "%s %s", hi_open ? "<" : "<=", hi);
    } else {
        snprintf(range, sizeof range, "%s", is_int ? "an integer" : "finite");
    }
    const int below = (p->flags & CLV_PARAM_HAS_SPECIAL) && (p->flags & CLV_PARAM_SPECIAL_BELOW);
    if (below && p->min == p->special && !has_hi) {
        /* "<= 0 or >= 0": every number */
        snprintf(buf, size, "finite");
        return;
    }
    char special[48] = "";
    if (p->flags & CLV_PARAM_HAS_SPECIAL)
        snprintf(special, sizeof special, "%s%s or ",
                 (p->flags & CLV_PARAM_SPECIAL_BELOW) ? "<= " : "", CLV_NUM(p->special));
    snprintf(buf, size, "%s%s%s", special, (p->flags & CLV_PARAM_ODD) ? "odd " : "", range);
}

static int in_range(const clv_param_desc *p, double v)
{
    if (isnan(v) || isinf(v))
        return 0;
    if (p->flags & CLV_PARAM_HAS_SPECIAL) {
        if (v == p->special || ((p->flags & CLV_PARAM_SPECIAL_BELOW) && v <= p->special))
            return 1;
    }
    if (isfinite(p->min) && ((p->flags & CLV_PARAM_MIN_OPEN) ? !(v > p->min) : !(v >= p->min)))
        return 0;
    if (isfinite(p->max) && ((p->flags & CLV_PARAM_MAX_OPEN) ? !(v < p->max) : !(v <= p->max)))
        return 0;
    if ((p->flags & CLV_PARAM_ODD) && fmod(v, 2.0) == 0.0)
        return 0;
    return 1;
}

const char *clv__param_word(const clv_param_desc *p)
{
    return p->label ? p->label : p->name;
}

/* One value: numbers and enums. Images and the like are checked with a context. */
static clv_status check_scalar(clv__report *r, const clv_param_desc *p, const clv_arg *a)
{
    char rule[160];
    switch (p->type) {
    case CLV_PARAM_INT:
        if (!in_range(p, (double)a->v.i)) {
            rule_text(p, rule, sizeof rule);
            return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "%s must be %s (got %d)",
                                    p->name, rule, a->v.i);
        }
        return CLV_OK;
    case CLV_PARAM_DOUBLE:
        if (!in_range(p, a->v.d)) {
            rule_text(p, rule, sizeof rule);
            return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "%s must be %s (got %s)",
                                    p->name, rule, CLV_NUM(a->v.d));
        }
        return CLV_OK;
    case CLV_PARAM_BOOL:
        if (a->v.i != 0 && a->v.i != 1)
            return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "%s must be 0 or 1 (got %d)",
                                    p->name, a->v.i);
        return CLV_OK;
    case CLV_PARAM_ENUM:
        if (!clv_param_enum_name(p, a->v.i)) {
            char names[160] = "";
            size_t n = 0;
            for (int k = 0; k < p->n_enum && n < sizeof names; k++) {
                int w = snprintf(names + n, sizeof names - n, "%s%s", k ? ", " : "",
                                 p->enum_names[k]);
                if (w < 0)
                    break;
                n += (size_t)w;
            }
            return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT,
                                    "unknown %s %d (expected one of %s)", p->name, a->v.i, names);
        }
        return CLV_OK;
    default:
        return CLV_OK;
    }
}

CLV_API clv_status clv_param_check(const clv_param_desc *p, const clv_arg *value, char *msg,
                                   size_t msg_size)
{
    if (msg && msg_size)
        msg[0] = '\0';
    if (!p || !value)
        return CLV_ERROR_INVALID_ARGUMENT;
    static const clv_op_desc unnamed = {.name = NULL};
    clv__report r = {NULL, &unnamed, msg, msg_size};
    clv_arg v = *value;
    if (v.type != p->type) {
        /* as bind() takes them: integral doubles for INT, INT for BOOL and ENUM */
        const int int_like = p->type == CLV_PARAM_BOOL || p->type == CLV_PARAM_ENUM;
        if (p->type == CLV_PARAM_INT && v.type == CLV_PARAM_DOUBLE && v.v.d == floor(v.v.d) &&
            fabs(v.v.d) <= 2147483647.0)
            v.v.i = (int)v.v.d;
        else if (p->type == CLV_PARAM_DOUBLE && v.type == CLV_PARAM_INT)
            v.v.d = (double)v.v.i;
        else if (!(int_like && v.type == CLV_PARAM_INT))
            return clv__report_fail(&r, CLV_ERROR_INVALID_ARGUMENT, "%s: wrong value type",
                                    p->name);
    }
    return check_scalar(&r, p, &v);
}

CLV_API void clv_param_rule(const clv_param_desc *p, char *buf, size_t size)
{
    if (!buf || !size)
        return;
    buf[0] = '\0';
    if (!p)
        return;
    switch (p->type) {
    case CLV_PARAM_INT:
    case CLV_PARAM_DOUBLE:
        rule_text(p, buf, size);
        break;
    case CLV_PARAM_BOOL:
        snprintf(buf, size, "0 or 1");
        break;
    case CLV_PARAM_ENUM: {
        size_t n = 0;
        for (int k = 0; k < p->n_enum && n + 1 < size; k++) {
            int w = snprintf(buf + n, size - n, "%s%s", k ? ", " : "", p->enum_names[k]);
            if (w < 0)
                break;
            n += (size_t)w;
        }
        break;
    }
    case CLV_PARAM_IMAGE:
        accepted_text(p, buf, size);
        break;
    default:
        break;
    }
}

static clv_status check_numbers(clv__report *r, const clv_arg *a)
{
    clv_status s;
    for (int i = 0; i < r->op->nparams; i++)
        if ((s = check_scalar(r, &r->op->params[i], &a[i])) != CLV_OK)
            return s;
    return r->op->check ? r->op->check(r, a) : CLV_OK;
}

/* "a 2-channel f32 image", "u8, u16 or f32 with 1..4 channels". */
static void accepted_text(const clv_param_desc *p, char *buf, size_t size)
{
    char types[32] = "", chans[48] = "";
    const unsigned tm = p->types ? p->types : CLV_TYPES_ALL;
    int nt = 0, k = 0;
    for (int t = CLV_U8; t <= CLV_F32; t++)
        nt += (tm & CLV_TYPES(t)) != 0;
    for (int t = CLV_U8; t <= CLV_F32; t++) {
        if (!(tm & CLV_TYPES(t)))
            continue;
        size_t n = strlen(types);
        snprintf(types + n, sizeof types - n, "%s%s", k == 0 ? "" : k == nt - 1 ? " or " : ", ",
                 clv_pixel_type_name((clv_pixel_type)t));
        k++;
    }
    const unsigned cm = p->channels ? p->channels : CLV_CHANNELS_1_4;
    int lo = 0, hi = 0, nc = 0;
    for (int c = 1; c <= 30; c++)
        if (cm & CLV_CHANNELS(c)) {
            if (!lo)
                lo = c;
            hi = c;
            nc++;
        }
    if (nc == 1)
        snprintf(buf, size, "a %d-channel %s image", lo, types);
    else {
        if (nc == hi - lo + 1)
            snprintf(chans, sizeof chans, "%d..%d", lo, hi);
        else
            for (int c = lo; c <= hi; c++)
                if (cm & CLV_CHANNELS(c)) {
                    size_t n = strlen(chans);
                    snprintf(chans + n, sizeof chans - n, "%s%d", n ? ", " : "", c);
                }
        snprintf(buf, size, "%s with %s channels", types, chans);
    }
}

static clv_status check_image_param(clv__report *r, const clv_param_desc *p, const clv_arg *a)
{
    clv_context *ctx = r->ctx;
    const clv_op_desc *op = r->op;
    const clv_image *img = a[p - op->params].v.p;
    const char *word = clv__param_word(p);
    if (!img) {
        if (p->flags & CLV_PARAM_OPTIONAL)
            return CLV_OK;
        return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "%s image is NULL", word);
    }
    clv_status s = clv__check_image(ctx, op->name, word, img);
    if (s != CLV_OK)
        return s;
    /* an output may not be any other image argument (no in-place) */
    for (int j = 0; j < op->nparams; j++) {
        const clv_param_desc *q = &op->params[j];
        if (q == p || q->type != CLV_PARAM_IMAGE || !a[j].v.p ||
            !clv__images_overlap(a[j].v.p, img))
            continue;
        if ((p->flags & CLV_PARAM_OUTPUT) || (q->flags & CLV_PARAM_OUTPUT)) {
            const clv_param_desc *in = (p->flags & CLV_PARAM_OUTPUT) ? q : p;
            const clv_param_desc *outp = (p->flags & CLV_PARAM_OUTPUT) ? p : q;
            return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT,
                                    a[j].v.p == img
                                        ? "%s and %s are the same image (in-place is not "
                                          "supported)"
                                        : "%s and %s overlap in one buffer (in-place is not "
                                          "supported)",
                                    clv__param_word(in), clv__param_word(outp));
        }
    }
    if ((p->flags & CLV_PARAM_OUTPUT) && img->read_only)
        return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT,
                                "%s wraps a CL_MEM_READ_ONLY buffer and cannot be written", word);
    if ((p->types && !(p->types & CLV_TYPES(img->type))) ||
        (p->channels && (img->channels < 0 || img->channels > 30 ||
                         !(p->channels & CLV_CHANNELS(img->channels))))) {
        char want[96];
        accepted_text(p, want, sizeof want);
        return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT,
                                "%s must be %s (got %s with %d channel%s)", word, want,
                                clv_pixel_type_name(img->type), img->channels,
                                img->channels == 1 ? "" : "s");
    }
    if (p->like) {
        const int j = clv_op_param_index(op, p->like);
        const clv_image *ref = j >= 0 ? a[j].v.p : NULL;
        if (ref) {
            const char *rw = clv__param_word(&op->params[j]);
            if ((p->like_flags & CLV_LIKE_TYPE) && ref->type != img->type)
                return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "%s is %s but %s is %s", rw,
                                        clv_pixel_type_name(ref->type), word,
                                        clv_pixel_type_name(img->type));
            if ((p->like_flags & CLV_LIKE_CHANNELS) && ref->channels != img->channels)
                return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT,
                                        "%s has %d channels but %s has %d", rw, ref->channels,
                                        word, img->channels);
            if ((p->like_flags & CLV_LIKE_SIZE) &&
                (ref->width != img->width || ref->height != img->height))
                return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "%s is %dx%d, %s is %dx%d",
                                        word, img->width, img->height, rw, ref->width,
                                        ref->height);
            if ((p->like_flags & CLV_LIKE_TRANSPOSED) &&
                (ref->width != img->height || ref->height != img->width))
                return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT,
                                        "%s is %dx%d, must be %dx%d (%s transposed)", word,
                                        img->width, img->height, ref->height, ref->width, rw);
        }
    }
    return CLV_OK;
}

/* A pyramid on its own: present, of ctx, levels of accepted types and
 * channels. Relations come later (check_pyramid_relations). */
static clv_status check_pyramid_param(clv__report *r, const clv_param_desc *p, const clv_arg *a)
{
    const clv_op_desc *op = r->op;
    const clv_pyramid *pyr = a[p - op->params].v.p;
    const char *word = clv__param_word(p);
    if (!pyr)
        return (p->flags & CLV_PARAM_OPTIONAL)
                   ? CLV_OK
                   : clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "%s is NULL", word);
    const clv_image *l0 = clv_pyramid_level(pyr, 0);
    if (!l0)
        return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "%s has no levels", word);
    /* the same-context rule is clv__check_image's, applied to every level below */
    clv_status s;
    char lw[96];
    snprintf(lw, sizeof lw, "%s level", word);
    for (int k = 0; k < clv_pyramid_levels(pyr); k++) /* also waits for pending uploads */
        if ((s = clv__check_image(r->ctx, op->name, lw, clv_pyramid_level(pyr, k))) != CLV_OK)
            return s;
    if ((p->types && !(p->types & CLV_TYPES(l0->type))) ||
        (p->channels && (l0->channels < 0 || l0->channels > 30 ||
                         !(p->channels & CLV_CHANNELS(l0->channels))))) {
        char want[96];
        accepted_text(p, want, sizeof want);
        return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT,
                                "%s: each level must be %s (got %s with %d channel%s)", word, want,
                                clv_pixel_type_name(l0->type), l0->channels,
                                l0->channels == 1 ? "" : "s");
    }
    return CLV_OK;
}

/* A pyramid against its `like` (an image or a pyramid) and, for an output
 * pyramid, against the input images (none may be one of its levels). */
static clv_status check_pyramid_relations(clv__report *r, const clv_param_desc *p,
                                          const clv_arg *a)
{
    const clv_op_desc *op = r->op;
    const clv_pyramid *pyr = a[p - op->params].v.p;
    if (!pyr)
        return CLV_OK;
    const char *word = clv__param_word(p);
    const clv_image *l0 = clv_pyramid_level(pyr, 0);
    const int j = p->like ? clv_op_param_index(op, p->like) : -1;
    if (j >= 0 && a[j].v.p) {
        const clv_param_desc *q = &op->params[j];
        const char *rw = clv__param_word(q);
        const unsigned f = p->like_flags;
        if (q->type == CLV_PARAM_IMAGE) {
            const clv_image *ref = a[j].v.p;
            if (((f & CLV_LIKE_SIZE) &&
                 (ref->width != l0->width || ref->height != l0->height)) ||
                ((f & CLV_LIKE_TYPE) && ref->type != l0->type) ||
                ((f & CLV_LIKE_CHANNELS) && ref->channels != l0->channels))
                return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT,
                                        "%s is %dx%d %s c%d, the %s is for %dx%d %s c%d", rw,
                                        ref->width, ref->height, clv_pixel_type_name(ref->type),
                                        ref->channels, word, l0->width, l0->height,
                                        clv_pixel_type_name(l0->type), l0->channels);
        } else if (q->type == CLV_PARAM_PYRAMID) {
            const clv_image *m0 = clv_pyramid_level(a[j].v.p, 0);
            if ((f & CLV_LIKE_TYPE) && m0->type != l0->type)
                return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "%s is %s but %s is %s",
                                        rw, clv_pixel_type_name(m0->type), word,
                                        clv_pixel_type_name(l0->type));
            if ((f & CLV_LIKE_CHANNELS) && m0->channels != l0->channels)
                return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT,
                                        "%s has %d channels but %s has %d", rw, m0->channels,
                                        word, l0->channels);
            if ((f & CLV_LIKE_SIZE) && (m0->width != l0->width || m0->height != l0->height))
                return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT,
                                        "%s is %dx%d at level 0, %s is %dx%d", word, l0->width,
                                        l0->height, rw, m0->width, m0->height);
        }
    }
    if (!(p->flags & CLV_PARAM_OUTPUT))
        return CLV_OK;
    for (int i = 0; i < op->nparams; i++) {
        if (op->params[i].type != CLV_PARAM_IMAGE || !a[i].v.p)
            continue;
        for (int k = 0; k < clv_pyramid_levels(pyr); k++)
            if (clv__images_overlap(a[i].v.p, clv_pyramid_level(pyr, k)))
                return clv__report_fail(
                    r, CLV_ERROR_INVALID_ARGUMENT,
                    a[i].v.p == clv_pyramid_level(pyr, k)
                        ? "the %s is level %d of the %s itself (in-place is not supported)"
                        : "the %s overlaps level %d of the %s (in-place is not supported)",
                    clv__param_word(&op->params[i]), k, word);
    }
    return CLV_OK;
}

/* The INT parameter holding array p's length, or NULL (a descriptor bug). */
static const clv_param_desc *length_of(const clv_op_desc *op, const clv_param_desc *p, int *j)
{
    *j = p->length_param ? clv_op_param_index(op, p->length_param) : -1;
    return *j >= 0 && op->params[*j].type == CLV_PARAM_INT ? &op->params[*j] : NULL;
}

static clv_status check_array_param(clv__report *r, const clv_param_desc *p, const clv_arg *a)
{
    const clv_op_desc *op = r->op;
    int j;
    const clv_param_desc *len = length_of(op, p, &j);
    if (!len || p->elem_size == 0)
        return clv__report_fail(r, CLV_ERROR_UNSUPPORTED,
                                "descriptor: array %s has no INT length parameter or no "
                                "element size",
                                p->name);
    const int n = a[j].v.i; /* its range is checked with the numbers */
    if (!a[p - op->params].v.p && n > 0 && !(p->flags & CLV_PARAM_OPTIONAL))
        return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "%s is NULL (%s %d)",
                                clv__param_word(p), len->name, n);
    if (n > 0 && (size_t)n > SIZE_MAX / p->elem_size)
        return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT,
                                "%s: %d elements of %zu bytes do not fit in memory",
                                clv__param_word(p), n, p->elem_size);
    return CLV_OK;
}

/* Output structs read 0 after any failure (op.h, "Structs"). */
static void zero_output_structs(const clv_op_desc *op, const clv_arg *a)
{
    for (int i = 0; i < op->nparams; i++) {
        const clv_param_desc *p = &op->params[i];
        if (p->type == CLV_PARAM_STRUCT && (p->flags & CLV_PARAM_OUTPUT) && a[i].v.p &&
            p->elem_size > 0)
            memset(a[i].v.p, 0, p->elem_size);
    }
}

clv_status clv__op_validate(clv_context *ctx, const clv_op_desc *op, const clv_arg *a)
{
    clv__report r = {ctx, op, NULL, 0};
    clv_status s;
    zero_output_structs(op, a);
    for (int i = 0; i < op->nparams; i++) {
        const clv_param_desc *p = &op->params[i];
        if (p->type == CLV_PARAM_IMAGE) {
            if ((s = check_image_param(&r, p, a)) != CLV_OK)
                return s;
        } else if (p->type == CLV_PARAM_PYRAMID) {
            if ((s = check_pyramid_param(&r, p, a)) != CLV_OK)
                return s;
        } else if (p->type == CLV_PARAM_STRUCT && !a[i].v.p && !(p->flags & CLV_PARAM_OPTIONAL)) {
            return clv__report_fail(&r, CLV_ERROR_INVALID_ARGUMENT, "%s is NULL",
                                    clv__param_word(p));
        } else if (p->type == CLV_PARAM_ARRAY) {
            if ((s = check_array_param(&r, p, a)) != CLV_OK)
                return s;
        }
    }
    /* relations, once every pyramid and image is known to be valid */
    for (int i = 0; i < op->nparams; i++)
        if (op->params[i].type == CLV_PARAM_PYRAMID &&
            (s = check_pyramid_relations(&r, &op->params[i], a)) != CLV_OK)
            return s;
    return check_numbers(&r, a);
}

/* The op on packed copies of its staged views (clv_image_view): every
 * staged image argument is copied to a new packed image (outputs too, so
 * pixels an op leaves alone stay what they were), the op runs on those, and
 * its outputs are copied back into the views. Device copies in queue order;
 * the copies are released at once (OpenCL keeps them while commands use
 * them). Validation and the overlap rule have seen the views themselves. */
static clv_status run_staged(clv_context *ctx, const clv_op_desc *op, const clv_arg *a)
{
    clv_status status = CLV_OK;
    clv_arg b[CLV__MAX_PARAMS];
    clv_image *tmp[CLV__MAX_PARAMS] = {0};
    memcpy(b, a, (size_t)op->nparams * sizeof *b);
    for (int i = 0; i < op->nparams; i++) {
        const clv_image *v = a[i].v.p;
        if (op->params[i].type != CLV_PARAM_IMAGE || !v || !v->staged)
            continue;
        CLV_TRY(clv__image_like(ctx, op->name, v, &tmp[i]));
        CLV_TRY(clv__copy_pixels(ctx, op->name, v, tmp[i]));
        b[i].v.p = tmp[i];
    }
    CLV_TRY(op->run(ctx, b));
    for (int i = 0; i < op->nparams; i++)
        if (tmp[i] && (op->params[i].flags & CLV_PARAM_OUTPUT))
            CLV_TRY(clv__copy_pixels(ctx, op->name, tmp[i], a[i].v.p));
out:
    for (int i = 0; i < op->nparams; i++)
        clv_image_release(tmp[i]);
    return status;
}

clv_status clv__op_exec(clv_context *ctx, const clv_op_desc *op, const clv_arg *a)
{
    clv_status s = clv__op_validate(ctx, op, a);
    if (s != CLV_OK)
        return s;
    if (!clv__dry_run())
        for (int i = 0; i < op->nparams; i++)
            if (op->params[i].type == CLV_PARAM_IMAGE && a[i].v.p &&
                (s = clv__refuse_placeholder(a[i].v.p, op->name,
                                             clv__param_word(&op->params[i]))) != CLV_OK)
                return s;
    for (int i = 0; i < op->nparams; i++)
        if (op->params[i].type == CLV_PARAM_IMAGE && a[i].v.p &&
            ((const clv_image *)a[i].v.p)->staged)
            return run_staged(ctx, op, a);
    return op->run(ctx, a);
}

clv_status clv__op_run(clv_context *ctx, const clv_op_desc *op, const clv_arg *a)
{
    if (!ctx) {
        zero_output_structs(op, a);
        return CLV_ERROR_INVALID_ARGUMENT;
    }
    clv__op_begin(ctx);
    return clv__op_end(ctx, op->name, clv__op_exec(ctx, op, a));
}

/* ---- calls by name ---- */

static clv_status bind(clv__report *r, const clv_arg *args, int nargs, clv_arg *a)
{
    const clv_op_desc *op = r->op;
    if (op->nparams > CLV__MAX_PARAMS)
        return clv__report_fail(r, CLV_ERROR_UNSUPPORTED, "too many parameters");
    if (nargs < 0 || (nargs > 0 && !args))
        return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "no arguments (%d given)", nargs);
    int given[CLV__MAX_PARAMS] = {0};
    for (int i = 0; i < op->nparams; i++) {
        const clv_param_desc *p = &op->params[i];
        a[i].name = p->name;
        a[i].type = p->type;
        if (p->type == CLV_PARAM_DOUBLE)
            a[i].v.d = p->def;
        else if (p->type == CLV_PARAM_INT || p->type == CLV_PARAM_BOOL ||
                 p->type == CLV_PARAM_ENUM)
            a[i].v.i = (int)p->def;
        else
            a[i].v.p = NULL;
    }
    for (int k = 0; k < nargs; k++) {
        const int i = clv_op_param_index(op, args[k].name);
        if (i < 0)
            return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "no parameter named '%s'",
                                    args[k].name ? args[k].name : "(NULL)");
        if (given[i])
            return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "%s given twice",
                                    args[k].name);
        given[i] = 1;
        const clv_param_desc *p = &op->params[i];
        const clv_param_type t = args[k].type;
        int ok = t == p->type;
        if (p->type == CLV_PARAM_INT || p->type == CLV_PARAM_BOOL || p->type == CLV_PARAM_ENUM) {
            if (t == CLV_PARAM_INT || t == CLV_PARAM_BOOL || t == CLV_PARAM_ENUM) {
                ok = 1;
                a[i].v.i = args[k].v.i;
            } else if (t == CLV_PARAM_DOUBLE) {
                const double d = args[k].v.d;
                ok = d == floor(d) && d >= -2147483648.0 && d <= 2147483647.0;
                if (!ok)
                    return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT,
                                            "%s must be an integer (got %s)", p->name,
                                            CLV_NUM(d));
                a[i].v.i = (int)d;
            }
        } else if (p->type == CLV_PARAM_DOUBLE) {
            if (t == CLV_PARAM_INT) {
                ok = 1;
                a[i].v.d = args[k].v.i;
            } else if (ok) {
                a[i].v.d = args[k].v.d;
            }
        } else if (ok) {
            a[i].v.p = args[k].v.p;
        }
        if (!ok)
            return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "%s given as the wrong type",
                                    p->name);
    }
    for (int i = 0; i < op->nparams; i++)
        if (!given[i] && !(op->params[i].flags & CLV_PARAM_OPTIONAL))
            return clv__report_fail(r, CLV_ERROR_INVALID_ARGUMENT, "%s is required",
                                    op->params[i].name);
    return CLV_OK;
}

CLV_API clv_status clv_op_call(clv_context *ctx, const clv_op_desc *op, const clv_arg *args,
                               int nargs)
{
    if (!ctx || !op)
        return CLV_ERROR_INVALID_ARGUMENT;
    clv__op_begin(ctx);
    clv_arg a[CLV__MAX_PARAMS];
    clv__report r = {ctx, op, NULL, 0};
    clv_status s = bind(&r, args, nargs, a);
    return clv__op_end(ctx, op->name, s != CLV_OK ? s : clv__op_exec(ctx, op, a));
}

CLV_API clv_status clv_op_check(clv_context *ctx, const clv_op_desc *op, const clv_arg *args,
                                int nargs, char *msg, size_t msg_size)
{
    if (msg && msg_size)
        msg[0] = '\0';
    if (!op)
        return CLV_ERROR_INVALID_ARGUMENT;
    if (ctx)
        clv__clear_error(ctx);
    clv_arg a[CLV__MAX_PARAMS];
    clv__report r = {ctx, op, msg, msg_size};
    clv_status s = bind(&r, args, nargs, a);
    /* a check before the images exist: required images may be missing */
    if (s != CLV_OK) {
        for (int i = 0; i < op->nparams; i++)
            if (op->params[i].type != CLV_PARAM_INT && op->params[i].type != CLV_PARAM_DOUBLE &&
                op->params[i].type != CLV_PARAM_BOOL && op->params[i].type != CLV_PARAM_ENUM)
                goto numbers_only;
        return s;
    }
    return check_numbers(&r, a);
numbers_only:;
    /* bind again with every non-number optional */
    clv_op_desc relaxed = *op;
    clv_param_desc params[CLV__MAX_PARAMS];
    for (int i = 0; i < op->nparams; i++) {
        params[i] = op->params[i];
        if (params[i].type != CLV_PARAM_INT && params[i].type != CLV_PARAM_DOUBLE &&
            params[i].type != CLV_PARAM_BOOL && params[i].type != CLV_PARAM_ENUM)
            params[i].flags |= CLV_PARAM_OPTIONAL;
    }
    relaxed.params = params;
    r.op = &relaxed;
    if (msg && msg_size)
        msg[0] = '\0';
    if (ctx)
        clv__clear_error(ctx);
    s = bind(&r, args, nargs, a);
    if (s == CLV_OK)
        s = check_numbers(&r, a);
    r.op = op;
    return s;
}

CLV_API clv_status clv_op_supported(clv_context *ctx, const clv_op_desc *op, const clv_arg *args,
                                    int nargs, char *msg, size_t msg_size)
{
    if (msg && msg_size)
        msg[0] = '\0';
    if (!ctx || !op) {
        clv_status s = ctx ? clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, "op_supported",
                                       "op is NULL")
                           : CLV_ERROR_INVALID_ARGUMENT;
        if (msg && msg_size)
            snprintf(msg, msg_size, "%s", ctx ? clv_last_error(ctx) : "ctx is NULL");
        return s;
    }
    /* As clv__op_begin, except that the last operation's profiling events
     * stay (clv_last_op_device_time still answers for it). */
    clv__clear_error(ctx);
    clv__drop_waits(ctx);
    clv_arg a[CLV__MAX_PARAMS];
    clv__report r = {ctx, op, NULL, 0};
    clv_status s = bind(&r, args, nargs, a);
    if (s == CLV_OK) {
        clv__set_dry_run(1);
        s = clv__op_exec(ctx, op, a);
        clv__set_dry_run(0);
    }
    /* nothing was enqueued: the waits gathered and the foreign images seen
     * belong to no command */
    clv__drop_waits(ctx);
    if (msg && msg_size)
        snprintf(msg, msg_size, "%s", clv_last_error(ctx));
    return s;
}

CLV_API clv_status clv_op_output_shape(const clv_op_desc *op, const clv_arg *args, int nargs,
                                       int index, int *width, int *height, int *channels,
                                       clv_pixel_type *type, char *msg, size_t msg_size)
{
    if (msg && msg_size)
        msg[0] = '\0';
    if (!op || !width || !height || !channels || !type)
        return CLV_ERROR_INVALID_ARGUMENT;
    clv__report r = {NULL, op, msg, msg_size};
    if (index < 0 || index >= op->nparams || op->params[index].type != CLV_PARAM_IMAGE ||
        !(op->params[index].flags & CLV_PARAM_OUTPUT))
        return clv__report_fail(&r, CLV_ERROR_INVALID_ARGUMENT,
                                "parameter %d is not an output image", index);
    /* bind with the outputs optional: they do not exist yet */
    clv_op_desc relaxed = *op;
    clv_param_desc params[CLV__MAX_PARAMS];
    if (op->nparams > CLV__MAX_PARAMS)
        return CLV_ERROR_UNSUPPORTED;
    for (int i = 0; i < op->nparams; i++) {
        params[i] = op->params[i];
        if (params[i].flags & CLV_PARAM_OUTPUT)
            params[i].flags |= CLV_PARAM_OPTIONAL;
    }
    relaxed.params = params;
    r.op = &relaxed;
    clv_arg a[CLV__MAX_PARAMS];
    clv_status s = bind(&r, args, nargs, a);
    if (s == CLV_OK)
        s = check_numbers(&r, a);
    if (s != CLV_OK)
        return s;
    r.op = op;
    const clv_param_desc *p = &op->params[index];
    if (op->shape)
        return op->shape(&r, a, index, width, height, channels, type);
    const int j = p->like ? clv_op_param_index(op, p->like) : -1;
    const clv_image *ref = j >= 0 ? a[j].v.p : NULL;
    const int free_size = (p->flags & CLV_PARAM_FREE_SIZE) != 0;
    /* type and channels: its like's, or the one it accepts (an f32 result) */
    int one_type = -1, one_cn = -1;
    for (int t = CLV_U8; t <= CLV_F32; t++)
        if (p->types == CLV_TYPES(t))
            one_type = t;
    for (int c = 1; c <= 4; c++)
        if (p->channels == CLV_CHANNELS(c))
            one_cn = c;
    const int like_type = (p->like_flags & CLV_LIKE_TYPE) != 0;
    const int like_cn = (p->like_flags & CLV_LIKE_CHANNELS) != 0;
    if (!ref || (!like_type && one_type < 0) || (!like_cn && one_cn < 0) ||
        (!free_size && !(p->like_flags & (CLV_LIKE_SIZE | CLV_LIKE_TRANSPOSED))))
        return clv__report_fail(&r, CLV_ERROR_INVALID_ARGUMENT, "the shape of %s needs %s",
                                p->name, p->like ? p->like : "its inputs");
    const int t = (p->like_flags & CLV_LIKE_TRANSPOSED) != 0;
    *width = free_size ? 0 : t ? clv_image_height(ref) : clv_image_width(ref);
    *height = free_size ? 0 : t ? clv_image_width(ref) : clv_image_height(ref);
    *channels = like_cn ? clv_image_channels(ref) : one_cn;
    *type = like_type ? clv_image_type(ref) : (clv_pixel_type)one_type;
    return CLV_OK;
}
