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

/* The arguments clv_image_create and clv_image_wrap_buffer share: ctx and
 * out present (*out set to NULL), size, channels, type. */
static clv_status check_geometry(clv_context *ctx, const char *op, int width, int height,
                                 int channels, clv_pixel_type type, clv_image **out)
{
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
    return CLV_OK;
}

static clv_status create_image(clv_context *ctx, const char *op, int width, int height,
                               int channels, clv_pixel_type type, int placeholder,
                               clv_image **out)
{
    clv_status status = check_geometry(ctx, op, width, height, channels, type, out);
    if (status != CLV_OK)
        return status;
    size_t es = clv_pixel_type_size(type);
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
    cl_int err = CL_SUCCESS;
    if (!placeholder)
        img->mem = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        free(img);
        return clv__fail_cl(ctx, err, op, "clCreateBuffer");
    }
    img->placeholder = placeholder;
    img->ctx = ctx;
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->type = type;
    img->elem_size = es;
    img->row_bytes = row;
    img->pitch = pitch;
    img->root = img->mem;
    img->span = bytes;
    img->touch = pitch;
    *out = img;
    return CLV_OK;
}

CLV_API clv_status clv_image_create(clv_context *ctx, int width, int height, int channels,
                                    clv_pixel_type type, clv_image **out)
{
    return create_image(ctx, "image_create", width, height, channels, type, 0, out);
}

CLV_API clv_status clv_image_placeholder(clv_context *ctx, int width, int height, int channels,
                                         clv_pixel_type type, clv_image **out)
{
    return create_image(ctx, "image_placeholder", width, height, channels, type, 1, out);
}

clv_status clv__refuse_placeholder(const clv_image *img, const char *op, const char *what)
{
    if (!img || !img->placeholder)
        return CLV_OK;
    return clv__fail(img->ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                     "%s is a placeholder (clv_image_placeholder): it has no pixels; use it "
                     "with clv_op_supported only", what);
}

clv_status clv__image_like(clv_context *ctx, const char *op, const clv_image *like,
                           clv_image **out)
{
    return create_image(ctx, op, like->width, like->height, like->channels, like->type,
                        clv__dry_run(), out);
}

clv_status clv__copy_pixels(clv_context *ctx, const char *op, const clv_image *from,
                            const clv_image *to)
{
    /* Root buffers at byte offsets: PoCL 3.1 crashes in a rectangular copy
     * from or to a sub-buffer. The first command of the op takes the waits
     * a kernel launch would (the queue is in order for the rest). */
    const size_t forigin[3] = {from->root_off, 0, 0};
    const size_t torigin[3] = {to->root_off, 0, 0};
    const size_t region[3] = {from->row_bytes, (size_t)from->height, 1};
    cl_int err = clEnqueueCopyBufferRect(ctx->queue, from->root, to->root, forigin, torigin,
                                         region, from->pitch, 0, to->pitch, 0,
                                         (cl_uint)ctx->nwaits, ctx->nwaits ? ctx->waits : NULL,
                                         NULL);
    if (err != CL_SUCCESS)
        return clv__fail_cl(ctx, err, op, "clEnqueueCopyBufferRect(view)");
    for (size_t i = 0; i < ctx->nwaits; i++)
        clv__release_event(ctx->waits[i]);
    ctx->nwaits = 0;
    return CLV_OK;
}

/* Release's unmap: there is no status to return, and the memory goes. */
static void drop_mapping(clv_image *img)
{
    if (!img->map_ptr)
        return;
    (void)clEnqueueUnmapMemObject(img->ctx->queue, img->root, img->map_ptr, 0, NULL, NULL);
    (void)clFinish(img->ctx->queue);
    img->map_ptr = NULL;
    clv__owner(img)->mapped = 0;
}

static void free_image(clv_image *img)
{
    drop_mapping(img);
    if (img->pending) {
        (void)clWaitForEvents(1, &img->pending); /* the caller's host memory is in use */
        clv__release_event(img->pending);
    }
    clv__release_mem(img->mem);
    clv__release_mem(img->app_mem); /* clvision's retain only */
    free(img);
}

/* Images and views may be released in any order: an image whose views
 * still live is only marked, and freed with its last view. */
CLV_API void clv_image_release(clv_image *img)
{
    if (!img)
        return;
    if (img->base) {
        clv_image *base = img->base;
        drop_mapping(img);
        clv__release_mem(img->mem); /* the view's sub-buffer or retain, if any */
        free(img);
        if (--base->views == 0 && base->released)
            free_image(base);
        return;
    }
    if (img->views > 0) {
        /* the memory lives on, but the caller's host memory of an
         * asynchronous upload may go now: wait for it, as for any image */
        if (img->pending) {
            (void)clWaitForEvents(1, &img->pending);
            clv__release_event(img->pending);
            img->pending = NULL;
        }
        img->released = 1;
        return;
    }
    free_image(img);
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
    if (img->placeholder)
        return clv__refuse_placeholder(img, op, "the image");
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
    if (clv__owner(cimg)->mapped)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "the image is mapped for host access (clv_image_unmap first)");
    clv_status settled = settle(clv__owner(cimg), op);
    if (settled != CLV_OK)
        return settled;
    clv__clear_error(ctx); /* not an operation: the last op's timing stays readable */
    clv_status status = check_host(cimg, op, host, &host_stride);
    if (status != CLV_OK)
        return status;
    /* The root buffer at the image's byte offset: one path for images,
     * wraps and views (of any origin). */
    size_t borigin[3] = {cimg->root_off, 0, 0};
    size_t origin[3] = {0, 0, 0};
    size_t region[3] = {cimg->row_bytes, (size_t)cimg->height, 1};
    cl_int err;
    if (upload)
        err = clEnqueueWriteBufferRect(ctx->queue, cimg->root, CL_TRUE, borigin, origin, region,
                                       cimg->pitch, 0, host_stride, 0, host, 0, NULL, NULL);
    else
        err = clEnqueueReadBufferRect(ctx->queue, cimg->root, CL_TRUE, borigin, origin, region,
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

/* Add ev (retained by the caller for the list) to the events the op's next
 * launch waits for; releases ev when that fails. */
static clv_status add_wait(clv_context *ctx, const char *op, cl_event ev)
{
    if (ctx->nwaits == ctx->waits_cap) {
        size_t cap = ctx->waits_cap ? ctx->waits_cap * 2 : 4;
        cl_event *p = realloc(ctx->waits, cap * sizeof *p);
        if (!p) {
            clv__release_event(ev);
            return clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, op, "out of host memory");
        }
        ctx->waits = p;
        ctx->waits_cap = cap;
    }
    ctx->waits[ctx->nwaits++] = ev;
    return CLV_OK;
}

/* An image of another context on ctx's cl_context: the op waits for what
 * that context enqueued so far (a marker of its queue), and the image is
 * recorded so that clv__op_end makes the owner wait for this op. */
static clv_status adopt_foreign(clv_context *ctx, const char *op, const clv_image *view)
{
    const clv_image *img = clv__owner(view);
    for (size_t i = 0; i < ctx->nforeign; i++)
        if (ctx->foreign[i] == img)
            return CLV_OK;
    if (ctx->nforeign == ctx->foreign_cap) {
        size_t cap = ctx->foreign_cap ? ctx->foreign_cap * 2 : 4;
        clv_image **p = realloc(ctx->foreign, cap * sizeof *p);
        if (!p)
            return clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, op, "out of host memory");
        ctx->foreign = p;
        ctx->foreign_cap = cap;
    }
    cl_event before = NULL;
    cl_int err = clEnqueueMarkerWithWaitList(img->ctx->queue, 0, NULL, &before);
    if (err != CL_SUCCESS)
        return clv__fail_cl(ctx, err, op, "clEnqueueMarkerWithWaitList(image's context)");
    err = clFlush(img->ctx->queue); /* the marker must make progress while ctx waits on it */
    if (err != CL_SUCCESS) {
        clv__release_event(before);
        return clv__fail_cl(ctx, err, op, "clFlush(image's context)");
    }
    clv_status status = add_wait(ctx, op, before);
    if (status != CLV_OK)
        return status;
    ctx->foreign[ctx->nforeign++] = (clv_image *)img;
    return CLV_OK;
}

clv_status clv__check_image(clv_context *ctx, const char *op, const char *name,
                            const clv_image *img)
{
    if (!img)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op, "%s image is NULL", name);
    if (img->ctx != ctx && img->ctx->cl != ctx->cl)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "%s image belongs to another context (of another cl_context)", name);
    const clv_image *own = clv__owner(img);
    if (own->mapped)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "%s image is mapped for host access (clv_image_unmap first)", name);
    if (own->pending) {
        cl_int err = clRetainEvent(own->pending);
        if (err != CL_SUCCESS)
            return clv__fail_cl(ctx, err, op, "clRetainEvent(upload)");
        clv_status status = add_wait(ctx, op, own->pending);
        if (status != CLV_OK)
            return status;
    }
    if (img->ctx != ctx)
        return adopt_foreign(ctx, op, img);
    return CLV_OK;
}

clv_status clv__op_end(clv_context *ctx, const char *op, clv_status status)
{
    /* Each foreign image's next use waits for everything this op enqueued:
     * a marker at the end of ctx's in-order queue replaces its pending event
     * (this op waited for the old one). */
    for (size_t i = 0; i < ctx->nforeign; i++) {
        clv_image *img = ctx->foreign[i];
        cl_event after = NULL;
        const char *call = "clEnqueueMarkerWithWaitList(end of op)";
        cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, &after);
        if (err == CL_SUCCESS) {
            call = "clFlush(end of op)";
            err = clFlush(ctx->queue);
            if (err != CL_SUCCESS)
                clv__release_event(after);
        }
        if (err != CL_SUCCESS) {
            /* the image's owner would not wait for this op: say so */
            ctx->nforeign = 0;
            return status != CLV_OK ? status : clv__fail_cl(ctx, err, op, call);
        }
        clv__release_event(img->pending);
        img->pending = after;
    }
    ctx->nforeign = 0;
    return status;
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
    return settle(clv__owner(img), "image_wait");
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
    clv_image *own = clv__owner(img); /* a view's upload is its image's pending work */
    if (own->mapped)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "the image is mapped for host access (clv_image_unmap first)");
    status = settle(own, op); /* one upload in flight per image */
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
    size_t borigin[3] = {img->root_off, 0, 0};
    size_t origin[3] = {0, 0, 0};
    size_t region[3] = {img->row_bytes, (size_t)img->height, 1};
    err = clEnqueueWriteBufferRect(ctx->transfer, img->root, CL_FALSE, borigin, origin, region,
                                   img->pitch, 0, host_stride, 0, host, 1, &before,
                                   &own->pending);
    clv__release_event(before);
    if (err != CL_SUCCESS) {
        own->pending = NULL;
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
    if (clv__images_overlap(src, dst))
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         src == dst ? "source and destination are the same image (in-place is "
                                      "not supported)"
                                    : "source and destination overlap in one buffer (in-place "
                                      "is not supported)");
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

/* ---- images over the application's buffers (cl_interop.h) ---- */

CLV_API clv_status clv_image_wrap_buffer(clv_context *ctx, cl_mem buffer, size_t offset,
                                         int width, int height, int channels,
                                         clv_pixel_type type, size_t pitch, clv_image **out)
{
    const char *op = "image_wrap_buffer";
    clv_status status = check_geometry(ctx, op, width, height, channels, type, out);
    if (status != CLV_OK)
        return status;
    if (!buffer)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op, "buffer is NULL");
    const size_t es = clv_pixel_type_size(type);
    const size_t row = (size_t)width * (size_t)channels * es; /* < 2^21 */
    const size_t row_padded = (row + PITCH_ALIGN - 1) / PITCH_ALIGN * PITCH_ALIGN;
    if (pitch == 0)
        pitch = row_padded;
    if (pitch < row)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "pitch %zu is shorter than a row (%zu bytes)", pitch, row);
    if (pitch % PITCH_ALIGN != 0)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "pitch %zu is not a multiple of %d bytes (kernels start rows on that "
                         "boundary)",
                         pitch, PITCH_ALIGN);
    if (pitch > CLV_MAX_PITCH)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "pitch %zu is more than CLV_MAX_PITCH (%zu bytes)", pitch, CLV_MAX_PITCH);
    if (offset % PITCH_ALIGN != 0)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "offset %zu is misaligned: not a multiple of %d bytes", offset,
                         PITCH_ALIGN);
    /* pitch <= 2^20 and height <= 2^16: no overflow below 2^37 on 64-bit
     * size_t; the sum with offset is checked. */
    if ((size_t)height - 1 > (SIZE_MAX - row_padded) / pitch)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op, "image of %dx%d overflows size_t",
                         width, height);
    const size_t span = ((size_t)height - 1) * pitch + row_padded;
    if (offset > SIZE_MAX - span)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "offset %zu + %zu bytes of image overflows size_t", offset, span);

    cl_mem_object_type mtype = 0;
    cl_context mctx = NULL;
    size_t msize = 0, moff = 0;
    cl_mem_flags mflags = 0;
    cl_mem parent = NULL;
    cl_int err;
#define MQ(what, var)                                                                          \
    do {                                                                                       \
        err = clGetMemObjectInfo(buffer, what, sizeof(var), &(var), NULL);                     \
        if (err != CL_SUCCESS)                                                                 \
            return clv__fail_cl(ctx, err, op, "clGetMemObjectInfo(" #what ")");                \
    } while (0)
    MQ(CL_MEM_TYPE, mtype);
    if (mtype != CL_MEM_OBJECT_BUFFER)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "buffer is not a buffer object (CL_MEM_TYPE 0x%x)", (unsigned)mtype);
    MQ(CL_MEM_CONTEXT, mctx);
    if (mctx != ctx->cl)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "buffer belongs to another cl_context than the clvision context's");
    MQ(CL_MEM_SIZE, msize);
    if (offset + span > msize)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "buffer is too small: %zu bytes, the %dx%d image at offset %zu with "
                         "pitch %zu needs %zu",
                         msize, width, height, offset, pitch, offset + span);
    MQ(CL_MEM_FLAGS, mflags);
    if (mflags & CL_MEM_WRITE_ONLY)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "buffer is CL_MEM_WRITE_ONLY (clvision's kernels read their images)");
    MQ(CL_MEM_ASSOCIATED_MEMOBJECT, parent);
    if (parent)
        MQ(CL_MEM_OFFSET, moff); /* buffer is a sub-buffer of parent at moff */
#undef MQ
    if (offset != 0) {
        cl_uint align_bits = 0;
        err = clGetDeviceInfo(ctx->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits,
                              &align_bits, NULL);
        if (err != CL_SUCCESS)
            return clv__fail_cl(ctx, err, op, "clGetDeviceInfo(CL_DEVICE_MEM_BASE_ADDR_ALIGN)");
        const size_t align = align_bits / 8 ? align_bits / 8 : 1;
        if ((moff + offset) % align != 0)
            return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                             "offset %zu%s is misaligned for a sub-buffer: not a multiple of "
                             "the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN (%zu bytes)",
                             moff + offset, parent ? " (with the sub-buffer's own offset)" : "",
                             align);
    }

    clv_image *img = calloc(1, sizeof *img);
    if (!img)
        return clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, op, "out of host memory");
    img->ctx = ctx;
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->type = type;
    img->elem_size = es;
    img->row_bytes = row;
    img->pitch = pitch;
    img->offset = offset;
    img->read_only = (mflags & CL_MEM_READ_ONLY) != 0;
    img->root = parent ? parent : buffer;
    img->root_off = moff + offset;
    img->span = span;
    img->touch = row_padded;
    err = clRetainMemObject(buffer);
    if (err != CL_SUCCESS) {
        status = clv__fail_cl(ctx, err, op, "clRetainMemObject");
        goto out;
    }
    img->app_mem = buffer;
    if (offset == 0) {
        err = clRetainMemObject(buffer);
        if (err != CL_SUCCESS) {
            status = clv__fail_cl(ctx, err, op, "clRetainMemObject");
            goto out;
        }
        img->mem = buffer;
    } else {
        /* Kernels index from byte 0 of their buffer: a sub-buffer starts
         * there (of the parent, as sub-buffers of sub-buffers do not exist).
         * Flags 0: the access flags are the parent's. */
        cl_buffer_region region = {moff + offset, span};
        img->mem = clCreateSubBuffer(parent ? parent : buffer, 0, CL_BUFFER_CREATE_TYPE_REGION,
                                     &region, &err);
        if (err != CL_SUCCESS) {
            img->mem = NULL;
            status = clv__fail_cl(ctx, err, op, "clCreateSubBuffer");
            goto out;
        }
    }
    *out = img;
    img = NULL;
out:
    clv_image_release(img);
    return status;
}

CLV_API cl_mem clv_image_cl_mem(const clv_image *img)
{
    if (!img)
        return NULL;
    const clv_image *own = clv__owner(img);
    return own->app_mem ? own->app_mem : own->mem;
}

CLV_API size_t clv_image_offset(const clv_image *img)
{
    return img ? clv__owner(img)->offset + img->view_off : 0;
}

/* ---- views ---- */

CLV_API clv_status clv_image_view(const clv_image *src, int x, int y, int width, int height,
                                  clv_image **out)
{
    const char *op = "image_view";
    if (out)
        *out = NULL;
    if (!src)
        return CLV_ERROR_INVALID_ARGUMENT; /* no context to hold a message */
    clv_context *ctx = src->ctx;
    if (!out)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op, "out is NULL");
    if (src->placeholder)
        return clv__refuse_placeholder(src, op, "the image");
    if (x < 0 || y < 0)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op, "origin (%d, %d) is negative", x,
                         y);
    if (width < 1 || height < 1)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op, "size %dx%d is empty", width,
                         height);
    /* all four are ints in [0, INT_MAX]: the sums fit in long long */
    if ((long long)x + width > src->width || (long long)y + height > src->height)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "rectangle %dx%d at (%d, %d) leaves the %dx%d image", width, height, x,
                         y, src->width, src->height);
    clv_image *base = clv__owner(src);
    const size_t px = (size_t)src->channels * src->elem_size;
    clv_image *v = calloc(1, sizeof *v);
    if (!v)
        return clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, op, "out of host memory");
    v->ctx = base->ctx;
    v->width = width;
    v->height = height;
    v->channels = src->channels;
    v->type = src->type;
    v->elem_size = src->elem_size;
    v->row_bytes = (size_t)width * px;
    v->pitch = src->pitch;
    v->read_only = src->read_only;
    v->base = base;
    v->view_off = src->view_off + (size_t)y * src->pitch + (size_t)x * px;
    v->root = base->root;
    v->root_off = base->root_off + v->view_off;
    v->span = ((size_t)height - 1) * v->pitch + v->row_bytes;
    v->touch = v->row_bytes;

    clv_status status = CLV_OK;
    /* Direct when kernels can address the view from byte 0 of a buffer and
     * its rows end where base's do (every base row byte up to the 64-byte
     * boundary is then the view's, as vector kernels need): whole rows of
     * base at an offset the device can start a sub-buffer at. Otherwise
     * staged (mem NULL). */
    /* Rows of a view start y * pitch (a multiple of 64) after base's, so a
     * direct view's rows keep base's 64-byte alignment, which the CPU vector
     * kernels' aligned stores need; a staged view's packed copy starts at 0. */
    int direct = v->view_off % v->pitch == 0 && width == base->width;
    cl_int err;
    if (direct && v->root_off != 0) {
        cl_uint align_bits = 0;
        err = clGetDeviceInfo(ctx->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits,
                              &align_bits, NULL);
        if (err != CL_SUCCESS) {
            status = clv__fail_cl(ctx, err, op, "clGetDeviceInfo(CL_DEVICE_MEM_BASE_ADDR_ALIGN)");
            goto out;
        }
        const size_t align = align_bits / 8 ? align_bits / 8 : 1;
        direct = v->root_off % align == 0;
    }
    if (direct) {
        v->touch = base->touch;
        v->span = ((size_t)height - 1) * v->pitch + base->touch;
        if (v->view_off == 0 && height == base->height) {
            err = clRetainMemObject(base->mem);
            if (err != CL_SUCCESS) {
                status = clv__fail_cl(ctx, err, op, "clRetainMemObject");
                goto out;
            }
            v->mem = base->mem;
        } else {
            cl_buffer_region region = {v->root_off, v->span};
            v->mem = clCreateSubBuffer(v->root, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
            if (err != CL_SUCCESS) {
                v->mem = NULL;
                status = clv__fail_cl(ctx, err, op, "clCreateSubBuffer");
                goto out;
            }
        }
    } else {
        v->staged = 1;
    }
    base->views++;
    *out = v;
    v = NULL;
out:
    if (v) {
        clv__release_mem(v->mem);
        free(v);
    }
    return status;
}

/* ---- host memory and mapping ---- */

CLV_API clv_status clv_image_create_host(clv_context *ctx, void *host, size_t pitch, int width,
                                         int height, int channels, clv_pixel_type type,
                                         clv_image **out)
{
    const char *op = "image_create_host";
    clv_status status = check_geometry(ctx, op, width, height, channels, type, out);
    if (status != CLV_OK)
        return status;
    if (!host)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op, "host memory is NULL");
    if ((uintptr_t)host % PITCH_ALIGN != 0)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "host memory %p is misaligned: not a multiple of %d bytes", host,
                         PITCH_ALIGN);
    const size_t es = clv_pixel_type_size(type);
    const size_t row = (size_t)width * (size_t)channels * es; /* < 2^21 */
    const size_t row_padded = (row + PITCH_ALIGN - 1) / PITCH_ALIGN * PITCH_ALIGN;
    if (pitch == 0)
        pitch = row_padded;
    if (pitch < row)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "pitch %zu is shorter than a row (%zu bytes)", pitch, row);
    if (pitch % PITCH_ALIGN != 0)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "pitch %zu is not a multiple of %d bytes", pitch, PITCH_ALIGN);
    if (pitch > (size_t)CLV_MAX_DIMENSION * 16u)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "pitch %zu is more than %zu bytes", pitch,
                         (size_t)CLV_MAX_DIMENSION * 16u);
    /* pitch <= 2^20, height <= 2^16: below 2^37 */
    const size_t span = ((size_t)height - 1) * pitch + row_padded;
    if ((uintptr_t)host > UINTPTR_MAX - span)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "host memory at %p of %zu bytes wraps around the address space", host,
                         span);
    if (span > ctx->info.max_mem_alloc_size)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, op,
                         "%zu bytes, more than the device's maximum allocation (%llu bytes)",
                         span, (unsigned long long)ctx->info.max_mem_alloc_size);
    clv_image *img = calloc(1, sizeof *img);
    if (!img)
        return clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, op, "out of host memory");
    cl_int err;
    img->mem = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, span, host, &err);
    if (err != CL_SUCCESS) {
        free(img);
        return clv__fail_cl(ctx, err, op, "clCreateBuffer(CL_MEM_USE_HOST_PTR)");
    }
    img->ctx = ctx;
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->type = type;
    img->elem_size = es;
    img->row_bytes = row;
    img->pitch = pitch;
    img->root = img->mem;
    img->span = span;
    img->touch = row_padded;
    *out = img;
    return CLV_OK;
}

CLV_API clv_status clv_image_map(clv_image *img, int flags, void **ptr, size_t *pitch)
{
    const char *op = "image_map";
    if (ptr)
        *ptr = NULL;
    if (pitch)
        *pitch = 0;
    if (!img)
        return CLV_ERROR_INVALID_ARGUMENT;
    clv_context *ctx = img->ctx;
    clv__clear_error(ctx);
    if (!ptr || !pitch)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op, "%s is NULL",
                         !ptr ? "ptr" : "pitch");
    if (img->placeholder)
        return clv__refuse_placeholder(img, op, "the image");
    if (flags == 0 || (flags & ~(CLV_MAP_READ | CLV_MAP_WRITE)))
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "flags %d: CLV_MAP_READ, CLV_MAP_WRITE or both", flags);
    clv_image *own = clv__owner(img);
    if (own->mapped)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "the image (or a view of its memory) is already mapped");
    if (img->read_only && (flags & CLV_MAP_WRITE))
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "CLV_MAP_WRITE of an image over a CL_MEM_READ_ONLY buffer");
    clv_status status = settle(own, op);
    if (status != CLV_OK)
        return status;
    const cl_map_flags mf = ((flags & CLV_MAP_READ) ? CL_MAP_READ : 0) |
                            ((flags & CLV_MAP_WRITE) ? CL_MAP_WRITE : 0);
    cl_int err;
    void *p = clEnqueueMapBuffer(ctx->queue, img->root, CL_TRUE, mf, img->root_off, img->span, 0,
                                 NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return clv__fail_cl(ctx, err, op, "clEnqueueMapBuffer");
    img->map_ptr = p;
    own->mapped = 1;
    *ptr = p;
    *pitch = img->pitch;
    return CLV_OK;
}

CLV_API clv_status clv_image_unmap(clv_image *img, void *ptr)
{
    const char *op = "image_unmap";
    if (!img)
        return CLV_ERROR_INVALID_ARGUMENT;
    clv_context *ctx = img->ctx;
    clv__clear_error(ctx);
    if (!img->map_ptr)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op, "the image is not mapped");
    if (ptr != img->map_ptr)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op,
                         "%p is not the image's mapping (%p)", ptr, img->map_ptr);
    cl_int err = clEnqueueUnmapMemObject(ctx->queue, img->root, ptr, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return clv__fail_cl(ctx, err, op, "clEnqueueUnmapMemObject");
    /* the command is queued: operations after it see the host's writes */
    img->map_ptr = NULL;
    clv__owner(img)->mapped = 0;
    err = clFlush(ctx->queue);
    if (err != CL_SUCCESS)
        return clv__fail_cl(ctx, err, op, "clFlush");
    return CLV_OK;
}
