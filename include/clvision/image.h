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

#ifdef __cplusplus
}
#endif

#endif
