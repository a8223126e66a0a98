/* clvision — internal interface shared by the image file readers/writers.
 * Not installed. io knows nothing of OpenCL: do not include runtime headers
 * here. Every function returning a status must have it checked. */
#ifndef CLV_IO_INTERNAL_H
#define CLV_IO_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include <clvision/io.h>

#ifndef CLV_WUR
#define CLV_WUR __attribute__((warn_unused_result))
#endif
#ifndef CLV_PRINTF
#define CLV_PRINTF(a, b) __attribute__((format(printf, a, b)))
#endif

/* ---- errors (io.c) ---- */

/* Record the message as this thread's clv_io_last_error() and return status. */
clv_status clv__io_fail(clv_status status, const char *fmt, ...) CLV_PRINTF(2, 3) CLV_WUR;
/* Same, with ": <strerror(err)>" appended. */
clv_status clv__io_fail_errno(clv_status status, int err, const char *fmt, ...)
    CLV_PRINTF(3, 4) CLV_WUR;

/* ---- sizes and allocation (io.c) ---- */

/* Bytes per channel value: 1, 2, 4, or 0 for an unknown type. */
size_t clv__io_type_size(clv_pixel_type type);

/* A reader about to decode a width x height image: refuses sizes outside
 * 1..CLV_MAX_DIMENSION (UNSUPPORTED) and more pixels than
 * clv_io_max_pixels() (INVALID_ARGUMENT), then allocates *img packed.
 * fmt ("png") and path go into the messages. Call before any large
 * allocation. Sizes are taken as unsigned long so readers can pass the
 * file's fields unchecked. */
clv_status clv__io_alloc_for_read(clv_host_image *img, const char *fmt, const char *path,
                                  unsigned long width, unsigned long height, int channels,
                                  clv_pixel_type type) CLV_WUR;

/* The size checks of clv__io_alloc_for_read alone (for a reader that checks
 * more, e.g. the file's length, before allocating). */
clv_status clv__io_check_read_size(const char *fmt, const char *path, unsigned long width,
                                   unsigned long height) CLV_WUR;

/* 1 when height rows of stride bytes, the last one row_bytes long, fit in
 * the address space (the last row's offset does not wrap around). */
int clv__io_stride_fits(size_t stride, size_t row_bytes, int height);

/* A writer's input check: img and img->data non-NULL, sizes in range,
 * channels 1/3/4, known type, stride large enough and not so large that the
 * last row's offset overflows (INVALID_ARGUMENT).
 * *row_bytes receives width * channels * type size. */
clv_status clv__io_check_host_image(const clv_host_image *img, const char *fmt,
                                    const char *path, size_t *row_bytes) CLV_WUR;

/* ---- opening input files (io.c) ---- */

/* Opens path for reading as *out ("rb"), following symbolic links, and
 * refuses at once (CLV_ERROR_IO, "<fmt>: cannot read '<path>': it is a
 * FIFO, not a regular file") anything that is not a regular file: a FIFO
 * (opened with O_NONBLOCK, so it never hangs), a device, a directory, a
 * socket. Every reader opens its file through this. *out is NULL on
 * failure. */
clv_status clv__io_open_read(const char *fmt, const char *path, FILE **out) CLV_WUR;

/* ---- atomic file writing (io.c) ---- */

/* Writes the whole file to fp; fp is open for writing at offset 0. It must
 * not close fp. On failure it records the message itself. */
typedef clv_status (*clv__io_write_fn)(FILE *fp, const char *path, const void *user);

/* Create a temporary file next to path (O_EXCL, a fresh name on a clash;
 * tracked for clv_remove_temporaries() while it exists; the permission bits
 * of an existing path), run fn on it, flush, fsync and close it, then
 * rename() it onto path. On any failure the temporary file is removed and
 * path is left as it was. fmt ("png") is used in messages. */
clv_status clv__io_write_atomic(const char *path, const char *fmt, clv__io_write_fn fn,
                                const void *user) CLV_WUR;

/* ---- per-format readers on an open stream positioned at offset 0 ---- */

clv_status clv__png_read_stream(FILE *fp, const char *path, clv_host_image *out) CLV_WUR;
clv_status clv__jpeg_read_stream(FILE *fp, const char *path, clv_host_image *out) CLV_WUR;
clv_status clv__exr_read_stream(FILE *fp, const char *path, clv_host_image *out) CLV_WUR;
clv_status clv__hdr_read_stream(FILE *fp, const char *path, clv_host_image *out) CLV_WUR;
clv_status clv__pfm_read_stream(FILE *fp, const char *path, clv_host_image *out) CLV_WUR;

/* Copy text from a file or a library into dst[cap] for a message: bytes
 * outside printable ASCII become '?', the copy is cut to fit. */
void clv__io_printable(char *dst, size_t cap, const char *src);

/* Non-zero when the host stores the low byte of a uint16_t first. */
int clv__io_host_is_little_endian(void);

#endif
