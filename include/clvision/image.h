/* clvision — device images.
 *
 * A clv_image is width x height pixels of 1 to 4 interleaved channels of
 * one pixel type, stored row after row in an OpenCL buffer whose row pitch is
 * a multiple of 64 bytes. The image belongs to the context it was made in and
 * must be released before it; operations of another context on the same
 * OpenCL context may use it too (clvision/cl_interop.h, which also wraps an
 * application's cl_mem as an image). Same thread-safety rule as the context.
 */
#ifndef CLVISION_IMAGE_H
#define CLVISION_IMAGE_H

#include <stddef.h>

#include "context.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum clv_pixel_type {
    CLV_U8  = 1,
    CLV_U16 = 2,
    CLV_F32 = 3,
} clv_pixel_type;

typedef struct clv_image clv_image;

/* Largest width or height accepted (pixels). */
#define CLV_MAX_DIMENSION 65536

/* Alignment, in bytes, of the row pitch (and of the byte offset) of every
 * image: kernels start rows on this boundary and their vector loads and
 * stores may touch a row's bytes up to the next multiple of it. */
#define CLV_PITCH_ALIGN 64

/* Size in bytes of one channel value of the type (0 for an unknown type). */
CLV_API size_t clv_pixel_type_size(clv_pixel_type type);
/* "u8", "u16", "f32" (or "?"). */
CLV_API const char *clv_pixel_type_name(clv_pixel_type type);

/* Allocate an uninitialised image on the context's device.
 * width, height in 1..CLV_MAX_DIMENSION, channels 1 to 4 (2 holds flow
 * fields: u, v).
 * Returns CLV_ERROR_INVALID_ARGUMENT for bad sizes, channels or types (and a
 * NULL ctx or out), CLV_ERROR_UNSUPPORTED when the image is larger than the
 * device's largest allocation, CLV_ERROR_OPENCL when the device refuses the
 * allocation. On failure *out is NULL. */
CLV_API clv_status clv_image_create(clv_context *ctx, int width, int height, int channels,
                                    clv_pixel_type type, clv_image **out);

/* A placeholder: an image's shape (size, channels, type, and the pitch
 * clv_image_create would choose) with no memory, for clv_op_supported() to
 * ask whether an operation would run before anything is allocated. Same
 * checks as clv_image_create (a size above the device's largest allocation
 * is CLV_ERROR_UNSUPPORTED). The accessors work; operations, transfers,
 * views and maps refuse it (CLV_ERROR_INVALID_ARGUMENT, "... is a
 * placeholder"). Release it with clv_image_release. */
CLV_API clv_status clv_image_placeholder(clv_context *ctx, int width, int height, int channels,
                                         clv_pixel_type type, clv_image **out);

/* NULL is fine. */
CLV_API void clv_image_release(clv_image *img);

CLV_API int clv_image_width(const clv_image *img);
CLV_API int clv_image_height(const clv_image *img);
CLV_API int clv_image_channels(const clv_image *img);
CLV_API clv_pixel_type clv_image_type(const clv_image *img);
/* Bytes between the starts of two rows on the device (multiple of 64). */
CLV_API size_t clv_image_pitch(const clv_image *img);

/* Copy host pixels in. host_stride is the byte distance between host rows;
 * it must be at least width*channels*type size (0 means packed), the
 * last row's offset must fit in size_t, and the end of the last row
 * (host + offset + row bytes) must not wrap around the address space (the
 * same rules hold for clv_image_upload_async and clv_image_download). Bits are copied as they are (NaN
 * payloads included). Blocking: host memory may be reused on return.
 * CLV_ERROR_INVALID_ARGUMENT for a NULL image or host pointer or a bad
 * stride (no message without an image: it names the context). */
CLV_API clv_status clv_image_upload(clv_image *img, const void *host, size_t host_stride);

/* Start copying host pixels in and return at once: the copy runs on a second
 * queue of the context, so it overlaps kernels already running (e.g. the
 * next video frame uploads while this one is processed). It starts after the
 * operations already enqueued (they may use the image), and operations
 * enqueued later that use the image wait for it. The host memory must stay
 * valid and unchanged until clv_image_wait(img), clv_finish(ctx), a
 * download of the image, or its release returns. One upload per image is in
 * flight at a time (a second one waits for the first). */
CLV_API clv_status clv_image_upload_async(clv_image *img, const void *host, size_t host_stride);

/* Wait for an asynchronous upload into img, and for an operation of another
 * context on the same cl_context that used img last (no-op when there is
 * neither). */
CLV_API clv_status clv_image_wait(clv_image *img);

/* Copy pixels out to host memory with the given row stride (0 = packed).
 * Waits for the operations that write the image. */
CLV_API clv_status clv_image_download(const clv_image *img, void *host, size_t host_stride);

/* An image over the caller's memory (OpenCL CL_MEM_USE_HOST_PTR): pixel
 * (x, y) channel c is at host + y * pitch + (x * channels + c) * type size.
 * width, height, channels and type as for clv_image_create.
 *
 * Requirements (each refusal CLV_ERROR_INVALID_ARGUMENT naming it): host
 * not NULL and aligned to CLV_PITCH_ALIGN (64) bytes; pitch a multiple of
 * CLV_PITCH_ALIGN, at least a row, at most CLV_MAX_DIMENSION * 16; 0 means
 * the row rounded up to 64 bytes. The memory must hold
 * (height - 1) * pitch + the last row rounded up to 64 bytes, and stay
 * valid and unused by the caller until the image is released: operations
 * may write each row's bytes up to the next multiple of 64 (the padding
 * after the pixels, then undefined), nothing else.
 *
 * Zero-copy or not is the driver's: CPU devices (PoCL) and integrated GPUs
 * use the memory itself (Intel's GPUs want host and size aligned to 4096
 * bytes for that); a discrete GPU keeps a device copy and copies between it
 * and host at clv_image_map / clv_image_unmap (and may at other times). So
 * the caller reads or writes the memory only between clv_image_map() and
 * clv_image_unmap(), as OpenCL requires; outside them its contents are
 * undefined. Releasing the image never frees the memory.
 *
 * On failure *out is NULL. Returns CLV_OK, CLV_ERROR_INVALID_ARGUMENT (also
 * for a NULL ctx or out), CLV_ERROR_UNSUPPORTED (larger than the device's
 * largest allocation), CLV_ERROR_OPENCL (the device refused the buffer),
 * CLV_ERROR_OUT_OF_MEMORY. */
CLV_API clv_status clv_image_create_host(clv_context *ctx, void *host, size_t pitch, int width,
                                         int height, int channels, clv_pixel_type type,
                                         clv_image **out);

/* Access flags of clv_image_map (or-ed). */
enum { CLV_MAP_READ = 1, CLV_MAP_WRITE = 2 };

/* Map img's pixels for host access: *ptr is pixel (0, 0), rows *pitch
 * (clv_image_pitch) bytes apart; only the image's pixels may be touched
 * (for a view: not its image's pixels around it). flags: CLV_MAP_READ,
 * CLV_MAP_WRITE or both.
 *
 * Blocking: returns once every operation enqueued on img's context before
 * it has finished (and any asynchronous upload into the image or another
 * context's operation on it), with the pixels readable. Zero-copy for host
 * images on devices that share memory (see clv_image_create_host) and on CPU
 * devices; otherwise the driver copies the region in (and back at unmap
 * for CLV_MAP_WRITE).
 *
 * One mapping at a time per image and its views: mapping an image that, or
 * a view or image of which, is mapped is CLV_ERROR_INVALID_ARGUMENT, and so
 * is any operation, upload or download on them until clv_image_unmap().
 * Releasing a mapped image unmaps it first.
 *
 * On failure *ptr is NULL and *pitch 0. Returns CLV_OK,
 * CLV_ERROR_INVALID_ARGUMENT (img, ptr or pitch NULL, no message without
 * img; flags 0 or unknown bits; already mapped), CLV_ERROR_OPENCL. */
CLV_API clv_status clv_image_map(clv_image *img, int flags, void **ptr, size_t *pitch);

/* End the mapping made by clv_image_map; ptr must be the pointer it gave.
 * Non-blocking: the unmap (the copy back, where there is one) is enqueued
 * on img's context, and operations enqueued after it see the host's writes.
 * Returns CLV_OK, CLV_ERROR_INVALID_ARGUMENT (img NULL; img not mapped; ptr
 * not its mapping), CLV_ERROR_OPENCL. */
CLV_API clv_status clv_image_unmap(clv_image *img, void *ptr);

/* A view: the width x height rectangle of src at pixel (x, y), as an image
 * that shares src's memory (no copy). Writing the view writes those pixels
 * of src, and nothing else of it.
 *
 * Rules:
 *   - x, y >= 0, width, height >= 1 and the rectangle inside src; src may
 *     itself be a view (the view is then of src's image, offsets added).
 *   - Every operation takes views as inputs and outputs, and every image
 *     function takes them (upload, download, wait, pitch, cl_interop.h's
 *     getters: a view's cl_mem is its image's buffer, its offset the byte
 *     offset of the view's pixel (0, 0), its pitch the image's).
 *   - Borders act at the view's edges: an operation on a view computes what
 *     it computes on a copy of the rectangle alone, never reading the pixels
 *     around it (OpenCV's BORDER_ISOLATED).
 *   - Overlap: views whose rectangles share a pixel (a view and its image,
 *     two views that intersect) are the same memory for the no-in-place
 *     rule of operations (CLV_ERROR_INVALID_ARGUMENT); disjoint views of one
 *     image are distinct images (one may be the source and the other the
 *     destination of an operation).
 *   - Cost: a view made of whole rows of its image (x 0 and width the
 *     image's) whose first byte the device can start a sub-buffer at
 *     (CL_DEVICE_MEM_BASE_ADDR_ALIGN) is passed to kernels as it is, a
 *     sub-buffer (or the image's own buffer for the whole image). Any other
 *     view is staged: each operation copies it to a packed image on the
 *     device first (inputs and outputs: an operation that leaves some
 *     output pixels alone leaves them as they were) and copies outputs
 *     back, a device-side rectangular copy each way, in the operation's
 *     queue order; nothing goes through host memory and nothing waits.
 *     (clvision's kernels address pixel (0, 0) at byte 0 and start rows on
 *     64-byte boundaries; an arbitrary origin breaks both.)
 *   - Lifetime: the view keeps src's memory alive. Views and their images
 *     may be released in any order, but all before their context.
 *   - A view of a CL_MEM_READ_ONLY wrap (cl_interop.h) is an input only, as
 *     the wrap is.
 *   - Ordering: a view's pending work is its image's: an asynchronous upload
 *     into the image is waited for by operations on its views and the other
 *     way round, and clv_image_wait() on either waits for both.
 * Thread-safety: as for the image (one thread at a time per context).
 *
 * On failure *out is NULL. Returns CLV_OK, CLV_ERROR_INVALID_ARGUMENT (src
 * or out NULL, no message without src; a rectangle that is empty, negative
 * or leaves src), CLV_ERROR_OPENCL (a device query or clCreateSubBuffer
 * failed), CLV_ERROR_OUT_OF_MEMORY. */
CLV_API clv_status clv_image_view(const clv_image *src, int x, int y, int width, int height,
                                  clv_image **out);

#ifdef __cplusplus
}
#endif

#endif
