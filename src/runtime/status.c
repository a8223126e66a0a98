/* clvision — status strings, OpenCL error names, the context's last error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/internal.h"

#include <clvision/status.h>

CLV_API const char *clv_status_string(clv_status status)
{
    switch (status) {
    case CLV_OK: return "ok";
    case CLV_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case CLV_ERROR_OUT_OF_MEMORY: return "out of memory";
    case CLV_ERROR_NO_DEVICE: return "no OpenCL device";
    case CLV_ERROR_OPENCL: return "OpenCL error";
    case CLV_ERROR_BUILD: return "kernel build failed";
    case CLV_ERROR_KERNEL_SOURCE: return "kernel source not found";
    case CLV_ERROR_UNSUPPORTED: return "unsupported";
    case CLV_ERROR_IO: return "I/O error";
    case CLV_ERROR_FORMAT: return "bad file format";
    case CLV_ERROR_KERNEL_FAULT: return "kernel fault";
    }
    return "unknown status";
}

const char *clv__cl_error_name(cl_int err)
{
    switch (err) {
#define N(x) case x: return #x;
    N(CL_SUCCESS)
    N(CL_DEVICE_NOT_FOUND)
    N(CL_DEVICE_NOT_AVAILABLE)
    N(CL_COMPILER_NOT_AVAILABLE)
    N(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    N(CL_OUT_OF_RESOURCES)
    N(CL_OUT_OF_HOST_MEMORY)
    N(CL_PROFILING_INFO_NOT_AVAILABLE)
    N(CL_MEM_COPY_OVERLAP)
    N(CL_IMAGE_FORMAT_MISMATCH)
    N(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    N(CL_BUILD_PROGRAM_FAILURE)
    N(CL_MAP_FAILURE)
    N(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    N(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    N(CL_COMPILE_PROGRAM_FAILURE)
    N(CL_LINKER_NOT_AVAILABLE)
    N(CL_LINK_PROGRAM_FAILURE)
    N(CL_DEVICE_PARTITION_FAILED)
    N(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    N(CL_INVALID_VALUE)
    N(CL_INVALID_DEVICE_TYPE)
    N(CL_INVALID_PLATFORM)
    N(CL_INVALID_DEVICE)
    N(CL_INVALID_CONTEXT)
    N(CL_INVALID_QUEUE_PROPERTIES)
    N(CL_INVALID_COMMAND_QUEUE)
    N(CL_INVALID_HOST_PTR)
    N(CL_INVALID_MEM_OBJECT)
    N(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    N(CL_INVALID_IMAGE_SIZE)
    N(CL_INVALID_SAMPLER)
    N(CL_INVALID_BINARY)
    N(CL_INVALID_BUILD_OPTIONS)
    N(CL_INVALID_PROGRAM)
    N(CL_INVALID_PROGRAM_EXECUTABLE)
    N(CL_INVALID_KERNEL_NAME)
    N(CL_INVALID_KERNEL_DEFINITION)
    N(CL_INVALID_KERNEL)
    N(CL_INVALID_ARG_INDEX)
    N(CL_INVALID_ARG_VALUE)
    N(CL_INVALID_ARG_SIZE)
    N(CL_INVALID_KERNEL_ARGS)
    N(CL_INVALID_WORK_DIMENSION)
    N(CL_INVALID_WORK_GROUP_SIZE)
    N(CL_INVALID_WORK_ITEM_SIZE)
    N(CL_INVALID_GLOBAL_OFFSET)
    N(CL_INVALID_EVENT_WAIT_LIST)
    N(CL_INVALID_EVENT)
    N(CL_INVALID_OPERATION)
    N(CL_INVALID_GL_OBJECT)
    N(CL_INVALID_BUFFER_SIZE)
    N(CL_INVALID_MIP_LEVEL)
    N(CL_INVALID_GLOBAL_WORK_SIZE)
    N(CL_INVALID_PROPERTY)
    N(CL_INVALID_IMAGE_DESCRIPTOR)
    N(CL_INVALID_COMPILER_OPTIONS)
    N(CL_INVALID_LINKER_OPTIONS)
    N(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef N
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    }
    return "CL_UNKNOWN_ERROR";
}

static void set_error(clv_context *ctx, const char *text, size_t len)
{
    if (len + 1 > ctx->err_cap) {
        size_t cap = len + 1 < 256 ? 256 : len + 1;
        char *p = realloc(ctx->err, cap);
        if (!p) {
            /* Keep whatever fits; the status still tells the caller. */
            if (ctx->err && ctx->err_cap) {
                memcpy(ctx->err, text, ctx->err_cap - 1);
                ctx->err[ctx->err_cap - 1] = '\0';
            }
            return;
        }
        ctx->err = p;
        ctx->err_cap = cap;
    }
    memcpy(ctx->err, text, len);
    ctx->err[len] = '\0';
}

clv_status clv__failv(clv_context *ctx, clv_status status, const char *op, const char *fmt,
                      va_list ap)
{
    if (!ctx)
        return status;
    char buf[2048];
    int n = snprintf(buf, sizeof buf, "%s: ", op ? op : "clvision");
    if (n < 0)
        n = 0;
    if ((size_t)n < sizeof buf)
        vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    set_error(ctx, buf, strlen(buf));
    return status;
}

clv_status clv__fail(clv_context *ctx, clv_status status, const char *op, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    clv_status s = clv__failv(ctx, status, op, fmt, ap);
    va_end(ap);
    return s;
}

clv_status clv__fail_cl(clv_context *ctx, cl_int err, const char *op, const char *call)
{
    clv_status st = err == CL_OUT_OF_HOST_MEMORY ? CLV_ERROR_OUT_OF_MEMORY : CLV_ERROR_OPENCL;
    return clv__fail(ctx, st, op, "%s failed: %s (%d)", call, clv__cl_error_name(err), (int)err);
}

void clv__append_error(clv_context *ctx, const char *text)
{
    size_t old = ctx->err ? strlen(ctx->err) : 0;
    size_t add = strlen(text);
    char *joined = malloc(old + add + 1);
    if (!joined)
        return;
    if (old)
        memcpy(joined, ctx->err, old);
    memcpy(joined + old, text, add + 1);
    set_error(ctx, joined, old + add);
    free(joined);
}

void clv__clear_error(clv_context *ctx)
{
    if (ctx->err)
        ctx->err[0] = '\0';
}

void clv__release_mem(cl_mem m)
{
    if (m)
        (void)clReleaseMemObject(m); /* release of a valid object cannot fail usefully */
}

void clv__release_event(cl_event e)
{
    if (e)
        (void)clReleaseEvent(e);
}

const char *clv__num(char *buf, double v)
{
    /* whole numbers below 2^53 in full ("100", not %g's "1e+02") */
    if (isfinite(v) && v == floor(v) && fabs(v) < 9007199254740992.0) {
        snprintf(buf, 32, "%.0f", v);
        return buf;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, 32, "%.*g", prec, v);
        if (!isfinite(v) || strtod(buf, NULL) == v)
            break;
    }
    return buf;
}
