/* clvision — warming the program cache: every operation run once per pixel
 * type and channel count of its first input, on small zeroed images, through
 * clv_op_call. The operations build their own options (op.h: which variants
 * this leaves to first use), so no rule of theirs is written twice. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clvision/flow.h>
#include <clvision/op.h>

#include "runtime/internal.h"

enum { WARM_W = 16, WARM_H = 12, WARM_MAX = 32 };

static const char OP[] = "cache_warm";

typedef struct warm_call {
    clv_arg a[WARM_MAX];
    clv_image *img[WARM_MAX];
    clv_pyramid *pyr[WARM_MAX];
    void *mem[WARM_MAX];
} warm_call;

static void warm_free(warm_call *c)
{
    for (int i = 0; i < WARM_MAX; i++) {
        clv_image_release(c->img[i]);
        clv_pyramid_release(c->pyr[i]);
        free(c->mem[i]);
    }
    memset(c, 0, sizeof *c);
}

static int first_bit(unsigned mask, int lo)
{
    for (int b = lo; b < 31; b++)
        if (mask & (1u << b))
            return b;
    return -1;
}

/* A number the parameter takes: its default when optional or valid, else
 * just above its minimum. */
static double valid_number(const clv_param_desc *p)
{
    if (p->flags & CLV_PARAM_OPTIONAL)
        return p->def;
    if (p->def >= p->min && p->def <= p->max && p->def != 0.0)
        return p->def;
    return isfinite(p->min) ? p->min + 1 : 1;
}

/* The type and channels of input image/pyramid i: (t, cn) for the first
 * input; like it where `like` names it with the flag; else the first
 * accepted. */
static void input_format(const clv_op_desc *op, int i, int first, clv_pixel_type t, int cn,
                         clv_pixel_type *ot, int *ocn)
{
    const clv_param_desc *p = &op->params[i];
    *ot = (clv_pixel_type)first_bit(p->types ? p->types : CLV_TYPES_ALL, CLV_U8);
    *ocn = first_bit(p->channels ? p->channels : CLV_CHANNELS(1), 1);
    const int j = p->like ? clv_op_param_index(op, p->like) : -1;
    if (i == first || j == first) {
        if (i == first || (p->like_flags & CLV_LIKE_TYPE))
            *ot = t;
        if (i == first || (p->like_flags & CLV_LIKE_CHANNELS))
            *ocn = cn;
    }
}

static clv_status zero_image(clv_context *ctx, int w, int h, int cn, clv_pixel_type t,
                             clv_image **out)
{
    clv_status status = clv_image_create(ctx, w, h, cn, t, out);
    if (status != CLV_OK)
        return status;
    const size_t row = (size_t)w * (size_t)cn * clv_pixel_type_size(t);
    void *zeros = calloc((size_t)h, row);
    if (!zeros)
        return clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, OP, "out of host memory");
    status = clv_image_upload(*out, zeros, row);
    free(zeros);
    return status;
}

/* The call for input format (t, cn): 1 made, 0 no output shape at these
 * arguments (skipped), < 0 the status of a failure. */
static int warm_make(clv_context *ctx, const clv_op_desc *op, int first, clv_pixel_type t,
                     int cn, warm_call *c, clv_status *st)
{
    *st = CLV_OK;
    if (op->nparams > WARM_MAX) {
        *st = clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP, "%s: more than %d parameters", op->name,
                        WARM_MAX);
        return -1;
    }
    for (int i = 0; i < op->nparams; i++) {
        const clv_param_desc *p = &op->params[i];
        c->a[i].name = p->name;
        c->a[i].type = p->type;
        if (p->type == CLV_PARAM_DOUBLE)
            c->a[i].v.d = valid_number(p);
        else if (p->type == CLV_PARAM_INT || p->type == CLV_PARAM_BOOL ||
                 p->type == CLV_PARAM_ENUM)
            c->a[i].v.i = (int)valid_number(p);
        else if (p->type == CLV_PARAM_IMAGE && (p->flags & CLV_PARAM_INPUT) &&
                 !(p->flags & CLV_PARAM_OPTIONAL)) {
            clv_pixel_type it;
            int icn;
            input_format(op, i, first, t, cn, &it, &icn);
            if ((*st = zero_image(ctx, WARM_W, WARM_H, icn, it, &c->img[i])) != CLV_OK)
                return -1;
            c->a[i].v.p = c->img[i];
        }
    }
    for (int i = 0; i < op->nparams; i++) {
        const clv_param_desc *p = &op->params[i];
        if (p->type == CLV_PARAM_PYRAMID) {
            clv_pixel_type pt;
            int pcn;
            input_format(op, i, first, t, cn, &pt, &pcn);
            const int j = p->like ? clv_op_param_index(op, p->like) : -1;
            if (j >= 0 && op->params[j].type == CLV_PARAM_IMAGE && c->img[j]) {
                pt = clv_image_type(c->img[j]);
                pcn = clv_image_channels(c->img[j]);
            }
            if ((*st = clv_pyramid_create(ctx, WARM_W, WARM_H, pcn, pt, 3, 0.5, &c->pyr[i])) !=
                CLV_OK)
                return -1;
            if (p->flags & CLV_PARAM_INPUT) {
                clv_image *z = NULL;
                if ((*st = zero_image(ctx, WARM_W, WARM_H, pcn, pt, &z)) == CLV_OK)
                    *st = clv_pyramid_build(ctx, c->pyr[i], z);
                clv_image_release(z);
                if (*st != CLV_OK)
                    return -1;
            }
            c->a[i].v.p = c->pyr[i];
        } else if (p->type == CLV_PARAM_ARRAY || p->type == CLV_PARAM_STRUCT) {
            size_t n = 1;
            if (p->type == CLV_PARAM_ARRAY) {
                const int j = clv_op_param_index(op, p->length_param);
                if (j >= 0 && op->params[j].type == CLV_PARAM_INT && c->a[j].v.i > 1)
                    n = (size_t)c->a[j].v.i;
            }
            c->mem[i] = calloc(n, p->elem_size ? p->elem_size : 1);
            if (!c->mem[i]) {
                *st = clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, OP, "out of host memory");
                return -1;
            }
            c->a[i].v.p = c->mem[i];
        }
    }
    for (int i = 0; i < op->nparams; i++) {
        const clv_param_desc *p = &op->params[i];
        if (p->type != CLV_PARAM_IMAGE || !(p->flags & CLV_PARAM_OUTPUT))
            continue;
        int w, h, ocn;
        clv_pixel_type ot;
        char msg[256];
        if (clv_op_output_shape(op, c->a, op->nparams, i, &w, &h, &ocn, &ot, msg, sizeof msg) !=
            CLV_OK)
            return 0; /* these inputs have no output at the defaults */
        if (p->flags & CLV_PARAM_FREE_SIZE) {
            w = WARM_W / 2;
            h = WARM_H / 2;
        }
        if ((*st = clv_image_create(ctx, w, h, ocn, ot, &c->img[i])) != CLV_OK)
            return -1;
        c->a[i].v.p = c->img[i];
    }
    return 1;
}

static clv_status warm_op(clv_context *ctx, const clv_op_desc *op, clv_cache_warm_report *r)
{
    int first = -1;
    for (int i = 0; i < op->nparams && first < 0; i++)
        if ((op->params[i].type == CLV_PARAM_IMAGE || op->params[i].type == CLV_PARAM_PYRAMID) &&
            (op->params[i].flags & CLV_PARAM_INPUT))
            first = i;
    if (first < 0)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, OP, "%s: no input image", op->name);
    const clv_param_desc *fp = &op->params[first];
    const unsigned types = fp->types ? fp->types : CLV_TYPES_ALL;
    const unsigned chans = fp->channels ? fp->channels : CLV_CHANNELS(1);
    for (int t = CLV_U8; t <= CLV_F32; t++) {
        if (!(types & CLV_TYPES(t)))
            continue;
        for (int cn = 1; cn <= 4; cn++) {
            if (!(chans & CLV_CHANNELS(cn)))
                continue;
            warm_call c;
            memset(&c, 0, sizeof c);
            clv_status st;
            const int made = warm_make(ctx, op, first, (clv_pixel_type)t, cn, &c, &st);
            if (made > 0) {
                st = clv_op_call(ctx, op, c.a, op->nparams);
                if (st == CLV_OK)
                    st = clv_finish(ctx);
                r->calls++;
            } else if (made == 0) {
                r->skipped++;
            }
            warm_free(&c);
            if (st != CLV_OK) {
                char detail[1024];
                snprintf(detail, sizeof detail, "%s", clv_last_error(ctx));
                return clv__fail(ctx, st, OP, "%s: %s", op->name, detail);
            }
        }
    }
    r->ops++;
    return CLV_OK;
}

CLV_API clv_status clv_cache_warm(clv_context *ctx, const char *const *ops, int nops,
                                  clv_cache_warm_report *report)
{
    clv_cache_warm_report r;
    memset(&r, 0, sizeof r);
    if (report)
        *report = r;
    if (!ctx)
        return CLV_ERROR_INVALID_ARGUMENT;
    if (nops < 0 || (!ops && nops > 0))
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "nops %d with ops %s", nops,
                         ops ? "given" : "NULL");
    for (int k = 0; k < nops; k++) {
        if (!ops[k])
            return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "ops[%d] is NULL", k);
        if (!clv_op_find(ops[k]))
            return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "unknown operation '%s'",
                             ops[k]);
    }
    const clv_context_stats before = ctx->stats;
    clv_status status = CLV_OK;
    const int n = nops > 0 ? nops : clv_op_count();
    for (int k = 0; k < n && status == CLV_OK; k++)
        status = warm_op(ctx, nops > 0 ? clv_op_find(ops[k]) : clv_op_get(k), &r);
    r.programs_built = ctx->stats.programs_built - before.programs_built;
    r.cache_hits = ctx->stats.cache_hits - before.cache_hits;
    r.cache_writes = ctx->stats.cache_writes - before.cache_writes;
    if (report)
        *report = r;
    return status;
}
