/* clvision — image files on the host (no OpenCL involved).
 *
 * PNG (libpng): 8/16-bit gray, gray+alpha, RGB, RGBA and palette images.
 * Gray+alpha is expanded to RGBA, palette to RGB (RGBA when it carries
 * transparency), bit depths below 8 to 8 bits; 16-bit stays u16.
 * JPEG (libjpeg-turbo): 8-bit gray and colour (YCbCr/RGB; CMYK is refused).
 * The format is chosen from the file name's extension (.png, .jpg, .jpeg,
 * case-insensitive) when writing and from the file's magic bytes when
 * reading.
 *
 * Errors come back as statuses with a message in clv_io_last_error() (per
 * thread). A failed write leaves no file behind: data goes to a temporary
 * file in the same directory that is renamed into place only on success.
 * All functions are thread-safe.
 */
#ifndef CLVISION_IO_H
#define CLVISION_IO_H

#include <stddef.h>

#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pixels in host memory. Rows are `stride` bytes apart. */
typedef struct clv_host_image {
    int width;
    int height;
    int channels;        /* 1, 3 or 4 */
    clv_pixel_type type; /* CLV_U8, CLV_U16 or CLV_F32 */
    size_t stride;       /* bytes per row, >= width * channels * type size */
    void *data;          /* owned by the struct when filled by clvision */
} clv_host_image;

/* Largest number of pixels a reader accepts before allocating (default
 * 2^28, i.e. 16384 x 16384). A caller can raise or lower it; per thread. */
CLV_API void clv_io_set_max_pixels(size_t max_pixels);
CLV_API size_t clv_io_max_pixels(void);

/* Allocate a zeroed packed host image. Returns CLV_ERROR_INVALID_ARGUMENT
 * for bad sizes, CLV_ERROR_OUT_OF_MEMORY. Free with clv_host_image_free. */
CLV_API clv_status clv_host_image_alloc(clv_host_image *img, int width, int height, int channels,
                                        clv_pixel_type type);
/* Frees img->data and zeroes the struct. NULL is fine. */
CLV_API void clv_host_image_free(clv_host_image *img);

/* Read a PNG or JPEG file. On success *out owns newly allocated pixels; on
 * failure *out is zeroed. CLV_ERROR_IO (cannot open/read), CLV_ERROR_FORMAT
 * (not PNG/JPEG, corrupt, truncated), CLV_ERROR_UNSUPPORTED (e.g. CMYK JPEG),
 * CLV_ERROR_INVALID_ARGUMENT (too many pixels, NULL arguments). */
CLV_API clv_status clv_image_read(const char *path, clv_host_image *out);

/* Write by extension: .png takes u8/u16 with 1/3/4 channels; .jpg/.jpeg takes
 * u8 with 1 or 3 channels (quality 1..100, 0 means 92, ignored for PNG).
 * Anything else is CLV_ERROR_UNSUPPORTED. */
CLV_API clv_status clv_image_write(const char *path, const clv_host_image *img, int quality);

/* Per-format entry points (same contracts). */
CLV_API clv_status clv_png_read(const char *path, clv_host_image *out);
CLV_API clv_status clv_png_write(const char *path, const clv_host_image *img);
CLV_API clv_status clv_jpeg_read(const char *path, clv_host_image *out);
CLV_API clv_status clv_jpeg_write(const char *path, const clv_host_image *img, int quality);

/* Message for the last failed I/O call in this thread ("" if none). */
CLV_API const char *clv_io_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
