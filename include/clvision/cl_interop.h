/* clvision — working inside an application's own OpenCL objects.
 *
 * Not included by clvision.h: a program that uses only the rest of the API
 * needs no OpenCL headers. Include this one (it includes <CL/cl.h>) to
 *   - create a clvision context on the application's cl_context, device and
 *     (optionally) command queue;
 *   - get the cl_context, device and queue of any clvision context, to run
 *     the application's kernels beside clvision's;
 *   - wrap an application cl_mem buffer as a clv_image without a copy, and
 *     get the cl_mem, byte offset and pitch of any image for the
 *     application's kernels.
 *
 * Ownership: clvision takes one reference (clRetain*) on every object it is
 * given and releases exactly that reference when the clvision object made on
 * it is released; the application's own references are never touched. The
 * getters return clvision's handles without a retain: they stay valid while
 * the clvision object they came from lives (retain them to keep them longer).
 *
 * Images and contexts: an image may be used by any clvision context on the
 * same cl_context as the context it was made in (for instance two contexts
 * with a queue each on one device); an image of another cl_context is
 * CLV_ERROR_INVALID_ARGUMENT. Work on the two queues is ordered for the
 * image by clvision: an operation on context B waits for the work enqueued
 * on the image's own context A before it, and A's later transfers and
 * operations on the image (and clv_image_wait) wait for B's operation. Work
 * of the application's own on any queue is the application's to order
 * (clv_finish(), or an in-order queue it shares with clvision).
 *
 * Same thread-safety rule as the rest of the library: a context and what is
 * made from it are used by one thread at a time.
 */
#ifndef CLVISION_CL_INTEROP_H
#define CLVISION_CL_INTEROP_H

#include <CL/cl.h> /* clvision uses the OpenCL 1.2 API */

#include "context.h"
#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Create a clvision context on the application's OpenCL context cl and its
 * device `device` (one of cl's devices).
 *
 * queue: the application's command queue on cl and device, or NULL to have
 * clvision create one on cl (as clv_context_create does: profiling when
 * opts->profiling or CLV_PROFILE=1|2 asks for it). A given queue must be in
 * order: one with CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE is
 * CLV_ERROR_UNSUPPORTED (clvision orders its kernels by queue order and
 * would otherwise need events it does not keep yet). Its
 * CL_QUEUE_PROFILING_ENABLE property decides whether
 * clv_last_op_device_time() works (CLV_PROFILE=2 still prints kernel times
 * when it does); opts->profiling set with a queue lacking the property is
 * CLV_ERROR_INVALID_ARGUMENT. clvision's kernels then run on the
 * application's queue in the order they are enqueued among the
 * application's own commands, and clv_finish() and clv_context_release()
 * wait for everything on that queue, the application's commands included.
 * Asynchronous uploads use a second queue clvision makes on cl.
 *
 * opts as for clv_context_create() (may be NULL) except that opts->device
 * must be NULL or "" (the device is given; CLV_DEVICE is not read).
 *
 * clvision retains cl, device (clRetainDevice: a no-op for a root device)
 * and queue; clv_context_release() releases those retains (and what
 * clvision made itself) and nothing else, so the application's objects keep
 * working and their reference counts return to what they were.
 *
 * On failure *out is NULL and clv_context_create_error() explains. Returns
 * CLV_OK, CLV_ERROR_INVALID_ARGUMENT (out, cl or device NULL; options.cache
 * out of range; options.device set; device not of cl; queue of another
 * context or device; profiling asked of a queue without it),
 * CLV_ERROR_UNSUPPORTED (out-of-order queue), CLV_ERROR_KERNEL_SOURCE,
 * CLV_ERROR_OPENCL (a query or retain failed, e.g. an invalid handle: the
 * message names the call), CLV_ERROR_OUT_OF_MEMORY. */
CLV_API clv_status clv_context_create_cl(cl_context cl, cl_device_id device,
                                         cl_command_queue queue, const clv_context_options *opts,
                                         clv_context **out);

/* The OpenCL context, device and command queue (the one clvision's kernels
 * and blocking transfers use) of ctx, whether clvision made them or was
 * given them. No retain: valid while ctx lives. NULL for a NULL ctx. */
CLV_API cl_context clv_context_cl_context(const clv_context *ctx);
CLV_API cl_device_id clv_context_cl_device(const clv_context *ctx);
CLV_API cl_command_queue clv_context_cl_queue(const clv_context *ctx);

/* ---- Events: ordering with the application's work, no host wait ----
 *
 * Operations enqueue their work and return; nothing waits for the device
 * except the calls listed below. An application orders its own commands
 * with clvision's through events:
 *
 *     clEnqueueNDRangeKernel(app_q, produce, ..., 0, NULL, &produced);
 *     clv_enqueue_wait_events(ctx, 1, &produced);   // clvision's next work waits
 *     clv_gaussian_blur(ctx, view, out, 2.0, 0, 0, 0, CLV_BORDER_REFLECT101);
 *     clv_enqueue_marker(ctx, &blurred);             // done when the blur is
 *     clEnqueueNDRangeKernel(app_q, consume, ..., 1, &blurred, &consumed);
 *
 * app_q may be an out-of-order queue; clvision's own queue is in order.
 *
 * Calls that wait for the device before returning (each also waits for
 * everything enqueued before it on the context's queue, events given to
 * clv_enqueue_wait_events included):
 *   - results that go to host memory: clv_corners_shi_tomasi(_n) (the
 *     number of candidates, then the corners), clv_lk_track (the points and
 *     their status), clv_flow_eval (the statistics);
 *   - clv_bilateral_grid and clv_bilateral_grid_cross with an f32 edge
 *     image: the edge range (8 bytes) sizes the grid;
 *   - transfers: clv_image_upload (not clv_image_upload_async),
 *     clv_image_download, clv_image_map, clv_image_wait;
 *   - clv_finish, clv_last_op_device_time, clv_image_release of an image
 *     with an upload in flight, clv_context_release;
 *   - every launch in debug mode (CLV_DEBUG=1).
 * clv_op_desc.blocking names the operations of the first two groups and
 * why (tests/test_op.c checks that every other operation returns while its
 * inputs are still behind an unfinished event).
 */

/* Make the next work clvision enqueues on ctx's queue (operations,
 * transfers) wait until the n events have completed. The events are the
 * application's, of ctx's cl_context (any queue of it, or user events);
 * clvision does not retain them past the call (the barrier it enqueues
 * holds what it needs). n 0 is a no-op. Returns CLV_OK,
 * CLV_ERROR_INVALID_ARGUMENT (ctx NULL; events NULL with n > 0; a NULL
 * event; an event of another cl_context), CLV_ERROR_OPENCL. */
CLV_API clv_status clv_enqueue_wait_events(clv_context *ctx, cl_uint n, const cl_event *events);

/* *event: a new event that completes when everything enqueued on ctx so far
 * has finished (its queue's operations and transfers, and asynchronous
 * uploads in flight). It is the caller's: release it with clReleaseEvent.
 * The work before it is flushed to the device, so the application may wait
 * for it from another queue or the host. On failure *event is NULL.
 * Returns CLV_OK, CLV_ERROR_INVALID_ARGUMENT (ctx or event NULL),
 * CLV_ERROR_OPENCL. */
CLV_API clv_status clv_enqueue_marker(clv_context *ctx, cl_event *event);

/* CLV_PITCH_ALIGN (image.h): the alignment of every row pitch and offset. */

/* Largest row pitch of a wrapped image, in bytes: the widest row
 * clv_image_create makes (CLV_MAX_DIMENSION pixels of 4 f32 channels). */
#define CLV_MAX_PITCH ((size_t)CLV_MAX_DIMENSION * 16u)

/* Make an image over the application's buffer, without a copy: pixel (x, y)
 * channel c is at byte offset + y * pitch + (x * channels + c) * type size
 * of buffer. width, height, channels and type as for clv_image_create.
 *
 * Requirements (each refusal is CLV_ERROR_INVALID_ARGUMENT with a message
 * naming it):
 *   - buffer is a buffer (CL_MEM_OBJECT_BUFFER) of ctx's cl_context;
 *   - pitch is a multiple of CLV_PITCH_ALIGN, at least a row
 *     (width * channels * type size) and at most CLV_MAX_PITCH; 0 means the
 *     pitch clv_image_create would choose (the row rounded up to 64 bytes);
 *   - offset is a multiple of CLV_PITCH_ALIGN, and when it is not 0 also of
 *     the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN (in bytes: 128 on PoCL):
 *     kernels take no offset, so a non-zero offset becomes a sub-buffer
 *     (clCreateSubBuffer; of the parent when buffer is itself a sub-buffer,
 *     with the offsets added, and the sum must be aligned);
 *   - the buffer holds the image: offset + (height - 1) * pitch + the last
 *     row rounded up to CLV_PITCH_ALIGN <= CL_MEM_SIZE;
 *   - the buffer is not CL_MEM_WRITE_ONLY (kernels read their images). A
 *     CL_MEM_READ_ONLY buffer makes an image that operations take only as
 *     an input (as an output: CLV_ERROR_INVALID_ARGUMENT).
 * Memory clvision may write as an operation's output: each row's bytes from
 * its start up to the next multiple of CLV_PITCH_ALIGN (the pixels, and the
 * padding after them up to that boundary, whose contents are then
 * undefined); nothing else of the buffer. Host transfers
 * (clv_image_upload/download) touch the pixels only, and fail with
 * CLV_ERROR_OPENCL when the buffer's CL_MEM_HOST_* flags forbid them.
 *
 * clvision retains buffer (and owns the sub-buffer it may make);
 * clv_image_release() releases only those, never the application's own
 * reference. The image belongs to ctx (release it before ctx) and may be
 * used by any context on the same cl_context (see above). The application
 * must not use the buffer's bytes under the image concurrently with
 * clvision's work on it: order its own commands with clvision's (the same
 * in-order queue, or clv_finish()).
 *
 * Two images over overlapping bytes of one buffer count as the same image
 * for the no-in-place rule of operations (with the same pitch, overlapping
 * row rectangles: side-by-side views or wraps are distinct).
 *
 * On failure *out is NULL. Returns CLV_OK, CLV_ERROR_INVALID_ARGUMENT (also
 * for NULL ctx, buffer or out), CLV_ERROR_OPENCL (a query, retain or
 * clCreateSubBuffer failed), CLV_ERROR_OUT_OF_MEMORY. */
CLV_API clv_status clv_image_wrap_buffer(clv_context *ctx, cl_mem buffer, size_t offset,
                                         int width, int height, int channels,
                                         clv_pixel_type type, size_t pitch, clv_image **out);

/* The buffer holding img's pixels, for the application's kernels: the buffer
 * given to clv_image_wrap_buffer, or the one clvision allocated (for a view,
 * its image's). Pixel (0, 0) is at clv_image_offset(img) bytes into it, rows
 * clv_image_pitch(img) bytes apart. No retain: valid while img lives. NULL
 * for a NULL img. */
CLV_API cl_mem clv_image_cl_mem(const clv_image *img);

/* Byte offset of pixel (0, 0) in clv_image_cl_mem(img): the offset given to
 * clv_image_wrap_buffer, 0 for an image clvision allocated or a NULL img;
 * for a view, its image's offset + y * pitch + x * pixel size (any value:
 * views have no alignment). */
CLV_API size_t clv_image_offset(const clv_image *img);

#ifdef __cplusplus
}
#endif

#endif
