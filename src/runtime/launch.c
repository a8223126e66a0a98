/* clvision — the one place that sets kernel arguments, fits the NDRange to
 * the device and enqueues. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/internal.h"

clv_status clv__kernel_limits(clv_context *ctx, const char *op, cl_kernel k, size_t *max_wg,
                              size_t *local_mem_free)
{
    clv_status status = CLV_OK;
    for (int i = 0; i < ctx->nlimits; i++) {
        if (ctx->limits[i].k == k) {
            if (max_wg)
                *max_wg = ctx->limits[i].max_wg;
            if (local_mem_free)
                *local_mem_free = ctx->limits[i].local_free;
            return CLV_OK;
        }
    }
    size_t wg = 0;
    cl_ulong used = 0;
    cl_program prog = NULL;
    cl_kernel probe = NULL;
    char name[256];
    cl_int err;
    /* CL_KERNEL_LOCAL_MEM_SIZE counts the __local arguments set on the
     * kernel, so k, once launched, reports its last launch's tile as used
     * (and a tile fitted from that shrinks towards nothing, issue 13 #23).
     * A fresh kernel object of the same function has no arguments set: its
     * answer is the kernel's own local memory. */
    CLV_CHECK_CL(ctx, clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof prog, &prog, NULL), op,
                 "clGetKernelInfo(CL_KERNEL_PROGRAM)");
    CLV_CHECK_CL(ctx, clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL), op,
                 "clGetKernelInfo(CL_KERNEL_FUNCTION_NAME)");
    probe = clCreateKernel(prog, name, &err);
    CLV_CHECK_CL(ctx, err, op, "clCreateKernel(limits probe)");
    CLV_CHECK_CL(ctx, clGetKernelWorkGroupInfo(probe, ctx->device, CL_KERNEL_WORK_GROUP_SIZE,
                                               sizeof wg, &wg, NULL),
                 op, "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)");
    CLV_CHECK_CL(ctx, clGetKernelWorkGroupInfo(probe, ctx->device, CL_KERNEL_LOCAL_MEM_SIZE,
                                               sizeof used, &used, NULL),
                 op, "clGetKernelWorkGroupInfo(CL_KERNEL_LOCAL_MEM_SIZE)");
    if (wg > ctx->info.max_work_group_size)
        wg = ctx->info.max_work_group_size;
    size_t free_bytes =
        ctx->info.local_mem_size > used ? (size_t)(ctx->info.local_mem_size - used) : 0;
    if (max_wg)
        *max_wg = wg;
    if (local_mem_free)
        *local_mem_free = free_bytes;
    /* Kernels live as long as the context, so their handles stay valid keys. */
    int slot = ctx->nlimits < 32 ? ctx->nlimits++ : (int)(ctx->stats.kernels_launched % 32);
    ctx->limits[slot].k = k;
    ctx->limits[slot].max_wg = wg;
    ctx->limits[slot].local_free = free_bytes;
out:
    if (probe)
        (void)clReleaseKernel(probe); /* never launched: nothing to report */
    return status;
}

/* Default work-group shapes: wide in x so rows stay contiguous. */
static void pick_local(const clv_context *ctx, cl_uint dims, const size_t *global, size_t max_wg,
                       size_t *local)
{
    const size_t *pref2 = ctx->tune.local2d;
    if (dims == 1) {
        local[0] = max_wg < 256 ? max_wg : 256;
    } else {
        local[0] = pref2[0];
        local[1] = pref2[1];
        if (dims == 3)
            local[2] = 1;
        /* no larger than needed: a 7x3 image does not need a 256-wide group */
        for (cl_uint d = 0; d < 2; d++)
            while (local[d] > 1 && local[d] / 2 >= global[d])
                local[d] /= 2;
        while (local[0] * local[1] > max_wg && local[1] > 1)
            local[1] /= 2;
        while (local[0] * local[1] > max_wg && local[0] > 1)
            local[0] /= 2;
    }
    for (cl_uint d = 0; d < dims; d++)
        if (local[d] > ctx->info.max_work_item_sizes[d])
            local[d] = ctx->info.max_work_item_sizes[d];
}

/* ---- debug mode (CLV_DEBUG) ----
 * Kernels built with -DCLV_DEBUG=1 take two more arguments after their own:
 * the byte size of each of their buffer arguments (0 for the others) and a
 * uint[8] fault record (see cl/common.cl). Each launch is checked before
 * the next one is made. */
#define CLV__DBG_MAX_ARGS 64

static clv_status debug_set_args(clv_context *ctx, const char *op, cl_kernel k, size_t nargs,
                                 const clv__arg *args)
{
    clv_status status = CLV_OK;
    cl_int err;
    if (nargs > CLV__DBG_MAX_ARGS)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, op,
                         "debug mode handles at most %d kernel arguments, this kernel has %zu",
                         CLV__DBG_MAX_ARGS, nargs);
    if (!ctx->dbg_sizes) {
        ctx->dbg_sizes = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY,
                                        CLV__DBG_MAX_ARGS * sizeof(cl_ulong), NULL, &err);
        CLV_CHECK_CL(ctx, err, op, "clCreateBuffer(debug sizes)");
    }
    if (!ctx->dbg_err) {
        ctx->dbg_err = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, 8 * sizeof(cl_uint), NULL, &err);
        CLV_CHECK_CL(ctx, err, op, "clCreateBuffer(debug fault record)");
    }
    cl_ulong sizes[CLV__DBG_MAX_ARGS] = {0};
    for (size_t i = 0; i < nargs; i++) {
        cl_mem m = args[i].is_mem ? *(const cl_mem *)args[i].ptr : NULL;
        if (m) {
            size_t bytes = 0;
            CLV_CHECK_CL(ctx, clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof bytes, &bytes, NULL), op,
                         "clGetMemObjectInfo(CL_MEM_SIZE)");
            sizes[i] = bytes;
        }
    }
    cl_uint zero[8] = {0};
    CLV_CHECK_CL(ctx,
                 clEnqueueWriteBuffer(ctx->queue, ctx->dbg_sizes, CL_TRUE, 0,
                                      (nargs ? nargs : 1) * sizeof(cl_ulong), sizes, 0, NULL,
                                      NULL),
                 op, "clEnqueueWriteBuffer(debug sizes)");
    CLV_CHECK_CL(ctx,
                 clEnqueueWriteBuffer(ctx->queue, ctx->dbg_err, CL_TRUE, 0, sizeof zero, zero, 0,
                                      NULL, NULL),
                 op, "clEnqueueWriteBuffer(debug fault record)");
    CLV_CHECK_CL(ctx, clSetKernelArg(k, (cl_uint)nargs, sizeof(cl_mem), &ctx->dbg_sizes), op,
                 "clSetKernelArg(debug sizes; is CLV_DBG_PARAMS missing from the kernel?)");
    CLV_CHECK_CL(ctx, clSetKernelArg(k, (cl_uint)nargs + 1, sizeof(cl_mem), &ctx->dbg_err), op,
                 "clSetKernelArg(debug fault record)");
out:
    return status;
}

static clv_status debug_check(clv_context *ctx, const char *op, cl_kernel k, size_t nargs,
                              const clv__arg *args)
{
    clv_status status = CLV_OK;
    cl_uint rec[8] = {0};
    CLV_CHECK_CL(ctx,
                 clEnqueueReadBuffer(ctx->queue, ctx->dbg_err, CL_TRUE, 0, sizeof rec, rec, 0,
                                     NULL, NULL),
                 op, "clEnqueueReadBuffer(debug fault record)");
    if (rec[0] == 0)
        return CLV_OK;
    char name[128] = "?";
    cl_int e = clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name - 1, name, NULL);
    if (e != CL_SUCCESS)
        snprintf(name, sizeof name, "? (%s)", clv__cl_error_name(e));
    unsigned long long bytes = 0;
    if (rec[5] < nargs && args[rec[5]].is_mem) {
        cl_mem m = *(const cl_mem *)args[rec[5]].ptr;
        size_t b = 0;
        if (m && clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof b, &b, NULL) == CL_SUCCESS)
            bytes = b;
    }
    return clv__fail(ctx, CLV_ERROR_KERNEL_FAULT, op,
                     "kernel %s: %s of buffer argument %u (%llu bytes) at element "
                     "index %u, work-item (%u, %u, %u), source line %u",
                     name,
                     rec[7] == 2   ? "misaligned vector store"
                     : rec[7] != 0 ? "out-of-bounds store"
                                   : "out-of-bounds load",
                     rec[5], bytes, rec[4], rec[1], rec[2],
                     rec[3], rec[6]);
out:
    return status;
}

clv_status clv__launch(clv_context *ctx, const char *op, cl_kernel k, cl_uint dims,
                       const size_t *global, const size_t *local, size_t nargs,
                       const clv__arg *args)
{
    clv_status status = CLV_OK;
    size_t loc[3] = {1, 1, 1}, glob[3] = {1, 1, 1};
    cl_event ev = NULL;

    if (dims < 1 || dims > 3)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op, "bad NDRange dimension %u", dims);
    for (size_t i = 0; i < nargs; i++) {
        cl_int err = clSetKernelArg(k, (cl_uint)i, args[i].size, args[i].ptr);
        if (err != CL_SUCCESS) {
            char call[64];
            snprintf(call, sizeof call, "clSetKernelArg(%zu)", i);
            return clv__fail_cl(ctx, err, op, call);
        }
    }
    if (ctx->debug)
        CLV_TRY(debug_set_args(ctx, op, k, nargs, args));
    size_t max_wg = 0;
    CLV_TRY(clv__kernel_limits(ctx, op, k, &max_wg, NULL));
    if (local) {
        size_t total = 1;
        for (cl_uint d = 0; d < dims; d++) {
            loc[d] = local[d];
            total *= local[d];
            if (local[d] == 0 || local[d] > ctx->info.max_work_item_sizes[d])
                return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, op,
                                 "work-group size %zu in dimension %u exceeds the device limit %zu",
                                 local[d], d, ctx->info.max_work_item_sizes[d]);
        }
        if (total > max_wg)
            return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, op,
                             "work-group of %zu items exceeds this kernel's limit of %zu on %s",
                             total, max_wg, ctx->info.name);
    } else {
        pick_local(ctx, dims, global, max_wg, loc);
    }
    for (cl_uint d = 0; d < dims; d++) {
        if (global[d] == 0)
            return CLV_OK; /* nothing to do */
        glob[d] = (global[d] + loc[d] - 1) / loc[d] * loc[d];
    }
    /* The first launch after images with uploads in flight waits for them; the
     * in-order queue orders everything after it. */
    cl_int err = clEnqueueNDRangeKernel(ctx->queue, k, dims, NULL, glob, loc, (cl_uint)ctx->nwaits,
                                        ctx->nwaits ? ctx->waits : NULL,
                                        ctx->profiling ? &ev : NULL);
    CLV_CHECK_CL(ctx, err, op, "clEnqueueNDRangeKernel");
    for (size_t i = 0; i < ctx->nwaits; i++)
        clv__release_event(ctx->waits[i]);
    ctx->nwaits = 0;
    if (!clv__dry_run())
        ctx->stats.kernels_launched++;
    if (ev) {
        if (ctx->nevents == ctx->events_cap) {
            size_t cap = ctx->events_cap ? ctx->events_cap * 2 : 8;
            cl_event *p = realloc(ctx->events, cap * sizeof *p);
            if (p)
                ctx->events = p;
            cl_kernel *q = p ? realloc(ctx->event_kernels, cap * sizeof *q) : NULL;
            if (q)
                ctx->event_kernels = q;
            if (!p || !q) {
                status = clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, op, "out of host memory");
                goto out;
            }
            ctx->events_cap = cap;
        }
        ctx->event_kernels[ctx->nevents] = k;
        ctx->events[ctx->nevents++] = ev;
        ev = NULL;
    }
    if (ctx->debug)
        status = debug_check(ctx, op, k, nargs, args);
out:
    clv__release_event(ev);
    return status;
}

const size_t *clv__reg_local(const clv_context *ctx, int family, size_t global[2])
{
    const size_t *l = ctx->tune.reg_local[family];
    if (!l[0] || !l[1])
        return NULL;
    for (int d = 0; d < 2; d++)
        global[d] = (global[d] + l[d] - 1) / l[d] * l[d];
    return l;
}

/* Tallest band clv__band_plan considers. It was 64, which on 2 cores made
 * 17-18 bands of 1080 rows, each paying its start-up rows: 13x13 Gaussian
 * bands start with 12 rows filtered along x, 31x31 box bands with 31 rows.
 * PoCL 3.1, 2 cores (AMD EPYC, Zen 4), 1920x1080, device ms, two runs each,
 * 64 -> 540: Gaussian u8 1.00-1.06 -> 0.92, u8 x 3 3.55-3.83 -> 3.10-3.12,
 * box 31x31 u8 0.75-0.92 -> 0.71, u8 x 3 2.11 -> 2.01; box 5x5, pyramid,
 * corners unchanged. Many compute units still get short bands (the cost
 * below counts rounds over them). */
#define CLV_BAND_ROWS_MAX 1024

static int band_rows(const clv_context *ctx, int height, int overhead)
{
    const long cu = ctx->info.compute_units > 0 ? (long)ctx->info.compute_units : 1;
    const int cmax = height < CLV_BAND_ROWS_MAX ? (height > 8 ? height : 8) : CLV_BAND_ROWS_MAX;
    int best = 8;
    long best_cost = -1;
    for (int c = 8; c <= cmax; c++) {
        const long bands = ((long)height + c - 1) / c;
        const long cost = (bands + cu - 1) / cu * ((long)c + (long)overhead);
        if (best_cost < 0 || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

clv_status clv__band_plan(clv_context *ctx, const char *op, int height, int overhead,
                          size_t floats_per_band, int *rows, size_t *bands, cl_mem *work)
{
    *rows = band_rows(ctx, height, overhead);
    *bands = ((size_t)height + (size_t)*rows - 1) / (size_t)*rows;
    if (floats_per_band > SIZE_MAX / sizeof(float) / *bands)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, op,
                         "band scratch of %zu x %zu floats does not fit size_t", *bands,
                         floats_per_band);
    return clv__scratch(ctx, op, 0, *bands * floats_per_band * sizeof(float), work);
}

clv_status clv__scratch(clv_context *ctx, const char *op, int slot, size_t bytes, cl_mem *out)
{
    if (slot < 0 || slot >= CLV__SCRATCH_SLOTS)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op, "bad scratch slot %d", slot);
    if (bytes == 0)
        bytes = 1;
    if (ctx->scratch[slot] && ctx->scratch_size[slot] >= bytes) {
        *out = ctx->scratch[slot];
        return CLV_OK;
    }
    if (bytes > ctx->info.max_mem_alloc_size)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, op,
                         "needs a %zu-byte temporary buffer, above the device's maximum "
                         "allocation of %llu bytes",
                         bytes, (unsigned long long)ctx->info.max_mem_alloc_size);
    /* The old buffer may still be in use by queued kernels; releasing it is
     * safe (OpenCL keeps it alive until they finish). */
    clv__release_mem(ctx->scratch[slot]);
    ctx->scratch[slot] = NULL;
    ctx->scratch_size[slot] = 0;
    cl_int err;
    cl_mem m = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS)
        return clv__fail_cl(ctx, err, op, "clCreateBuffer(scratch)");
    ctx->scratch[slot] = m;
    ctx->scratch_size[slot] = bytes;
    *out = m;
    return CLV_OK;
}

int clv__param_lookup(clv_context *ctx, int slot, const void *key, size_t key_len, cl_mem *out)
{
    if (slot < 0 || slot >= CLV__PARAM_SLOTS || key_len > sizeof ctx->params[0].key)
        return 0;
    if (!ctx->params[slot].mem || ctx->params[slot].key_len != key_len ||
        memcmp(ctx->params[slot].key, key, key_len) != 0)
        return 0;
    *out = ctx->params[slot].mem;
    return 1;
}

clv_status clv__param_store(clv_context *ctx, const char *op, int slot, const void *key,
                            size_t key_len, const void *data, size_t bytes, cl_mem *out)
{
    if (slot < 0 || slot >= CLV__PARAM_SLOTS || bytes == 0 ||
        key_len > sizeof ctx->params[0].key)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op, "bad parameter buffer request");
    cl_int err;
    cl_mem m = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                              (void *)data, &err);
    if (err != CL_SUCCESS)
        return clv__fail_cl(ctx, err, op, "clCreateBuffer(parameters)");
    clv__release_mem(ctx->params[slot].mem);
    ctx->params[slot].mem = m;
    memcpy(ctx->params[slot].key, key, key_len);
    ctx->params[slot].key_len = key_len;
    *out = m;
    return CLV_OK;
}

clv_status clv__param_store_if_new(clv_context *ctx, const char *op, int slot, const void *data,
                                   size_t bytes, cl_mem *out)
{
    if (clv__param_lookup(ctx, slot, data, bytes, out))
        return CLV_OK;
    return clv__param_store(ctx, op, slot, data, bytes, data, bytes, out);
}

/* The plan cache's slot and full key (op's address, then the key's bytes). */
static size_t plan_key(const char *op, const void *key, size_t key_len,
                       unsigned char full[CLV__PLAN_KEY_MAX], size_t *slot)
{
    const size_t n = sizeof op + key_len;
    if (n > CLV__PLAN_KEY_MAX)
        return 0;
    memcpy(full, &op, sizeof op);
    memcpy(full + sizeof op, key, key_len);
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ full[i]) * 16777619u;
    *slot = h % CLV__PLAN_SLOTS;
    return n;
}

int clv__plan_get(clv_context *ctx, const char *op, const void *key, size_t key_len, void *plan,
                  size_t plan_len)
{
    unsigned char full[CLV__PLAN_KEY_MAX];
    size_t slot;
    const size_t n = plan_key(op, key, key_len, full, &slot);
    if (n == 0 || plan_len > CLV__PLAN_MAX || ctx->plans[slot].key_len != n ||
        memcmp(ctx->plans[slot].key, full, n) != 0)
        return 0;
    memcpy(plan, ctx->plans[slot].plan, plan_len);
    return 1;
}

void clv__plan_put(clv_context *ctx, const char *op, const void *key, size_t key_len,
                   const void *plan, size_t plan_len)
{
    unsigned char full[CLV__PLAN_KEY_MAX];
    size_t slot;
    const size_t n = plan_key(op, key, key_len, full, &slot);
    if (n == 0 || plan_len > CLV__PLAN_MAX)
        return;
    ctx->plans[slot].key_len = n;
    memcpy(ctx->plans[slot].key, full, n);
    memcpy(ctx->plans[slot].plan, plan, plan_len);
}
