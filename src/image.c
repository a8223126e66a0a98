/* clvision — device images: allocation, host transfers, argument checks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/internal.h"

#define PITCH_ALIGN 64

static clv_status settle(clv_image *img, const char *op);

CLV_API size_t clv_pixel_type_size(clv_pixel_type type)
{
    switch (type) {
    case CLV_U8: return 1;
    case CLV_U16: return 2;
    case CLV_F32: return 4;
    }
    return 0;
}

CLV_API const char *clv_pixel_type_name(clv_pixel_type type)
{
    switch (type) {
    case CLV_U8: return "u8";
    case CLV_U16: return "u16";
    case CLV_F32: return "f32";
    }
    return "?";
}

CLV_API clv_status clv_image_create(clv_context *ctx, int width, int height, int channels,
                                    clv_pixel_type type, clv_image **out)
{
    const char *op = "image_create";
    if (out)
        *out = NULL;
    if (!ctx || !out)
        return ctx ? clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op, "out is NULL")
                   : CLV_ERROR_INVALID_ARGUMENT;
    clv__clear_error(ctx);
    if (width < 1 || height < 1 || width > CLV_MAX_DIMENSION || height > CLV_MAX_DIMENSION)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "size %dx%d outside 1..%d in each dimension", width, height,
                         CLV_MAX_DIMENSION);
    if (channels < 1 || channels > 4)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op, "channels must be 1 to 4 (got %d)",
                         channels);
    size_t es = clv_pixel_type_size(type);
    if (es == 0)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op, "unknown pixel type %d", (int)type);
    /* width <= 65536, channels <= 4, es <= 4: row bytes < 2^21, no overflow;
     * the total is checked against SIZE_MAX and the device limit. */
    size_t row = (size_t)width * (size_t)channels * es;
    size_t pitch = (row + PITCH_ALIGN - 1) / PITCH_ALIGN * PITCH_ALIGN;
    if ((size_t)height > SIZE_MAX / pitch)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op, "image of %dx%d overflows size_t",
                         width, height);
    size_t bytes = pitch * (size_t)height;
    if (bytes > ctx->info.max_mem_alloc_size)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, op,
                         "a %dx%d image of %d %s channel(s) takes %zu bytes, more than the "
                         "device's maximum allocation (%llu bytes)",
                         width, height, channels, clv_pixel_type_name(type), bytes,
                         (unsigned long long)ctx->info.max_mem_alloc_size);
    clv_image *img = calloc(1, sizeof *img);
    if (!img)
        return clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, op, "out of host memory");
    cl_int err;
    img->mem = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        free(img);
        return clv__fail_cl(ctx, err, op, "clCreateBuffer");
    }
    img->ctx = ctx;
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->type = type;
    img->elem_size = es;
    img->row_bytes = row;
    img->pitch = pitch;
    *out = img;
    return CLV_OK;
}

CLV_API void clv_image_release(clv_image *img)
{
    if (!img)
        return;
    if (img->pending) {
        (void)clWaitForEvents(1, &img->pending); /* the caller's host memory is in use */
        clv__release_event(img->pending);
    }
    clv__release_mem(img->mem);
    free(img);
}

CLV_API int clv_image_width(const clv_image *img) { return img ? img->width : 0; }
CLV_API int clv_image_height(const clv_image *img) { return img ? img->height : 0; }
CLV_API int clv_image_channels(const clv_image *img) { return img ? img->channels : 0; }
CLV_API clv_pixel_type clv_image_type(const clv_image *img) { return img ? img->type : (clv_pixel_type)0; }
CLV_API size_t clv_image_pitch(const clv_image *img) { return img ? img->pitch : 0; }

/* The host side of a transfer: a pointer, and a stride (0: packed) of at
 * least a row whose last row still lies inside the address space: neither
 * the offset of the last row's end (a stride of SIZE_MAX / 2) nor the end
 * address host + offset (a pointer near the top) may wrap around. */
static clv_status check_host(const clv_image *img, const char *op, const void *host,
                             size_t *host_stride)
{
    if (!host)
        return clv__fail(img->ctx, CLV_ERROR_INVALID_ARGUMENT, op, "host pointer is NULL");
    if (*host_stride == 0)
        *host_stride = img->row_bytes;
    if (*host_stride < img->row_bytes)
        return clv__fail(img->ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "host stride %zu is smaller than a row (%zu bytes)", *host_stride,
                         img->row_bytes);
    const size_t rows = (size_t)img->height - 1;
    if (rows > 0 && *host_stride > (SIZE_MAX - img->row_bytes) / rows)
        return clv__fail(img->ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "host stride %zu over %d rows overflows the address space",
                         *host_stride, img->height);
    /* The offset fits in size_t; the end address must not wrap either. */
    const size_t span = rows * *host_stride + img->row_bytes;
    if ((uintptr_t)host > UINTPTR_MAX - span)
        return clv__fail(img->ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "host buffer at %p of %zu bytes (stride %zu, %d rows) wraps around "
                         "the address space",
                         host, span, *host_stride, img->height);
    return CLV_OK;
}

static clv_status transfer(const clv_image *cimg, void *host, size_t host_stride, int upload)
{
    const char *op = upload ? "image_upload" : "image_download";
    if (!cimg)
        return CLV_ERROR_INVALID_ARGUMENT;
    clv_context *ctx = cimg->ctx;
    clv_status settled = settle((clv_image *)cimg, op);
    if (settled != CLV_OK)
        return settled;
    clv__clear_error(ctx); /* not an operation: the last op's timing stays readable */
    clv_status status = check_host(cimg, op, host, &host_stride);
    if (status != CLV_OK)
        return status;
    size_t origin[3] = {0, 0, 0};
    size_t region[3] = {cimg->row_bytes, (size_t)cimg->height, 1};
    cl_int err;
    if (upload)
        err = clEnqueueWriteBufferRect(ctx->queue, cimg->mem, CL_TRUE, origin, origin, region,
                                       cimg->pitch, 0, host_stride, 0, host, 0, NULL, NULL);
    else
        err = clEnqueueReadBufferRect(ctx->queue, cimg->mem, CL_TRUE, origin, origin, region,
                                      cimg->pitch, 0, host_stride, 0, host, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return clv__fail_cl(ctx, err, op,
                            upload ? "clEnqueueWriteBufferRect" : "clEnqueueReadBufferRect");
    return CLV_OK;
}

CLV_API clv_status clv_image_upload(clv_image *img, const void *host, size_t host_stride)
{
    return transfer(img, (void *)host, host_stride, 1);
}

CLV_API clv_status clv_image_download(const clv_image *img, void *host, size_t host_stride)
{
    return transfer(img, host, host_stride, 0);
}

void clv__format_options(char *buf, size_t size, clv_pixel_type type, int channels)
{
    const char *depth = type == CLV_U8 ? "DEPTH_U8" : type == CLV_U16 ? "DEPTH_U16" : "DEPTH_F32";
    snprintf(buf, size, "-D%s -DCN=%d", depth, channels);
}

clv_status clv__check_image(clv_context *ctx, const char *op, const char *name,
                            const clv_image *img)
{
    if (!img)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op, "%s image is NULL", name);
    if (img->ctx != ctx)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "%s image belongs to another context", name);
    if (img->pending) {
        if (ctx->nwaits == ctx->waits_cap) {
            size_t cap = ctx->waits_cap ? ctx->waits_cap * 2 : 4;
            cl_event *p = realloc(ctx->waits, cap * sizeof *p);
            if (!p)
                return clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, op, "out of host memory");
            ctx->waits = p;
            ctx->waits_cap = cap;
        }
        cl_int err = clRetainEvent(img->pending);
        if (err != CL_SUCCESS)
            return clv__fail_cl(ctx, err, op, "clRetainEvent(upload)");
        ctx->waits[ctx->nwaits++] = img->pending;
    }
    return CLV_OK;
}

/* Wait for an asynchronous upload into img, if any, and forget it. */
static clv_status settle(clv_image *img, const char *op)
{
    if (!img->pending)
        return CLV_OK;
    cl_int err = clWaitForEvents(1, &img->pending);
    clv__release_event(img->pending);
    img->pending = NULL;
    if (err != CL_SUCCESS)
        return clv__fail_cl(img->ctx, err, op, "clWaitForEvents(upload)");
    return CLV_OK;
}

CLV_API clv_status clv_image_wait(clv_image *img)
{
    if (!img)
        return CLV_ERROR_INVALID_ARGUMENT;
    return settle(img, "image_wait");
}

CLV_API clv_status clv_image_upload_async(clv_image *img, const void *host, size_t host_stride)
{
    const char *op = "image_upload_async";
    if (!img)
        return CLV_ERROR_INVALID_ARGUMENT;
    clv_context *ctx = img->ctx;
    clv__clear_error(ctx);
    clv_status status = check_host(img, op, host, &host_stride);
    if (status != CLV_OK)
        return status;
    status = settle(img, op); /* one upload in flight per image */
    if (status != CLV_OK)
        return status;
    cl_int err;
    if (!ctx->transfer) {
        ctx->transfer = clCreateCommandQueue(ctx->cl, ctx->device, 0, &err);
        if (err != CL_SUCCESS) {
            ctx->transfer = NULL;
            return clv__fail_cl(ctx, err, op, "clCreateCommandQueue(transfer)");
        }
    }
    /* Kernels already queued on the compute queue may still read or write the
     * image: the upload waits for all of them (a marker on that queue). */
    cl_event before = NULL;
    err = clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, &before);
    if (err != CL_SUCCESS)
        return clv__fail_cl(ctx, err, op, "clEnqueueMarkerWithWaitList");
    err = clFlush(ctx->queue);
    if (err != CL_SUCCESS) {
        clv__release_event(before);
        return clv__fail_cl(ctx, err, op, "clFlush");
    }
    size_t origin[3] = {0, 0, 0};
    size_t region[3] = {img->row_bytes, (size_t)img->height, 1};
    err = clEnqueueWriteBufferRect(ctx->transfer, img->mem, CL_FALSE, origin, origin, region,
                                   img->pitch, 0, host_stride, 0, host, 1, &before,
                                   &img->pending);
    clv__release_event(before);
    if (err != CL_SUCCESS) {
        img->pending = NULL;
        return clv__fail_cl(ctx, err, op, "clEnqueueWriteBufferRect(async)");
    }
    err = clFlush(ctx->transfer);
    if (err != CL_SUCCESS)
        return clv__fail_cl(ctx, err, op, "clFlush(transfer)");
    return CLV_OK;
}

clv_status clv__check_pair(clv_context *ctx, const char *op, const clv_image *src,
                           const clv_image *dst)
{
    clv_status status = CLV_OK;
    CLV_TRY(clv__check_image(ctx, op, "source", src));
    CLV_TRY(clv__check_image(ctx, op, "destination", dst));
    if (src == dst)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "source and destination are the same image (in-place is not supported)");
    if (src->type != dst->type)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "source is %s but destination is %s", clv_pixel_type_name(src->type),
                         clv_pixel_type_name(dst->type));
    if (src->channels != dst->channels)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "source has %d channels but destination has %d", src->channels,
                         dst->channels);
out:
    return status;
}
