/* clvision — image files on the host (no OpenCL involved).
 *
 * Channel order: colour images are read (and written) as R, G, B[, A], not
 * OpenCV's B, G, R (clv_convert_color in color.h converts).
 * PNG (libpng): 8/16-bit gray, gray+alpha, RGB, RGBA and palette images.
 * Gray+alpha is expanded to RGBA, palette to RGB (RGBA when it carries
 * transparency), bit depths below 8 to 8 bits; 16-bit stays u16.
 * JPEG (libjpeg-turbo): 8-bit gray and colour (YCbCr/RGB; CMYK is refused).
 * High dynamic range, all f32 linear light (see the HDR section below):
 * OpenEXR (optional, through the OpenEXR library), Radiance RGBE (.hdr) and
 * PFM. A 16-bit PNG can serve as linear input through
 * clv_host_image_to_f32().
 * The format is chosen from the file name's extension (.png, .jpg, .jpeg,
 * .exr, .hdr, .pfm, case-insensitive) when writing and from the file's magic
 * bytes when reading.
 *
 * Errors come back as statuses with a message in clv_io_last_error() (per
 * thread). A failed write leaves no file behind: data goes to a temporary
 * file "<path>.XXXXXX" in the same directory (created with O_EXCL, a fresh
 * name on a clash, so an old leftover is never reused) that is renamed into
 * place only on success. Replacing an existing file keeps its permission
 * bits (mode & 0777); because the replacement is an atomic rename, the
 * owner and group become the writer's, set-id bits, ACLs and extended
 * attributes are not carried over, and a hard link to the old file keeps
 * the old contents. A temporary is removed by clv_remove_temporaries() (for
 * SIGINT/SIGTERM handlers) while it exists.
 *
 * Readers take regular files only. Symbolic links are followed (an image
 * is often a link), but a FIFO, device (e.g. /dev/zero), socket or directory,
 * named directly or through a link, is refused at once with CLV_ERROR_IO
 * ("... it is a FIFO, not a regular file"): opening never blocks.
 *
 * All functions are thread-safe.
 *
 * Test hook: with the environment variable CLV_TEST_HOLD_WRITE set
 * non-empty, every write pauses for 30 s after creating its temporary file
 * and prints "clv-test: holding '<temporary>'" on stderr (the CLI's signal
 * test uses it). Do not set it otherwise.
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
    int channels;        /* 1, 3 or 4 (2 for flow fields: .flo files) */
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

/* Read a PNG, JPEG, OpenEXR, Radiance HDR or PFM file. On success *out owns
 * newly allocated pixels; on failure *out is zeroed. CLV_ERROR_IO (cannot
 * open/read), CLV_ERROR_FORMAT (none of these formats, corrupt, truncated),
 * CLV_ERROR_UNSUPPORTED (e.g. CMYK JPEG, EXR without OpenEXR),
 * CLV_ERROR_INVALID_ARGUMENT (too many pixels, NULL arguments). */
CLV_API clv_status clv_image_read(const char *path, clv_host_image *out);

/* Write by extension: .png takes u8/u16 with 1/3/4 channels; .jpg/.jpeg takes
 * u8 with 1 or 3 channels (quality 1..100, 0 means 92, ignored for the other
 * formats); .exr takes f32 with 1/3/4 channels, .hdr and .pfm f32 with 1 or 3.
 * Anything else is CLV_ERROR_UNSUPPORTED. A NULL path or image, a NULL data
 * pointer, a bad size, channel count or type, or a stride smaller than a
 * row or so large the last row's offset overflows is
 * CLV_ERROR_INVALID_ARGUMENT; nothing is written then. */
CLV_API clv_status clv_image_write(const char *path, const clv_host_image *img, int quality);

/* Per-format entry points (same contracts). */
CLV_API clv_status clv_png_read(const char *path, clv_host_image *out);
CLV_API clv_status clv_png_write(const char *path, const clv_host_image *img);
CLV_API clv_status clv_jpeg_read(const char *path, clv_host_image *out);
CLV_API clv_status clv_jpeg_write(const char *path, const clv_host_image *img, int quality);

/* Most scans a JPEG reader decodes (default CLV_JPEG_DEFAULT_MAX_SCANS;
 * progressive files from common encoders have about 10). Every scan costs a
 * pass over the image, so a file that repeats one scan thousands of times
 * takes minutes; a file with more scans than the limit is CLV_ERROR_FORMAT
 * ("has more than N scans"), found while decoding, before the cost. A caller
 * can raise or lower it (0 restores the default); per thread. */
#define CLV_JPEG_DEFAULT_MAX_SCANS 100u
CLV_API void clv_jpeg_set_max_scans(unsigned max_scans);
CLV_API unsigned clv_jpeg_max_scans(void);

/* Message for the last failed I/O call in this thread ("" if none). */
CLV_API const char *clv_io_last_error(void);

/* Remove every temporary file of a write still in progress, in any thread
 * (the writes then fail or their rename finds nothing; the final files are
 * untouched). Async-signal-safe: call it from an application's own SIGINT /
 * SIGTERM handler before re-raising the signal with its default action
 * (the clv CLI does so). Leaves errno as it was. */
CLV_API void clv_remove_temporaries(void);

/* The table clv_remove_temporaries() empties, for an application's own
 * staged files (the clv CLI registers its ".clv-*" outputs): track returns a
 * slot for path (copied), or -1 when path is NULL, 4096 bytes or longer, or
 * the 64 slots are all in use (that file is then not removed on a signal);
 * untrack frees a slot (-1 is ignored) — call it after the file was renamed
 * or removed. Lock-free; both are async-signal-safe. */
CLV_API int clv_io_track_temporary(const char *path);
CLV_API void clv_io_untrack_temporary(int slot);

/* ==== High dynamic range files (f32, linear light) ====
 *
 * Same contracts as above: statuses with a message in clv_io_last_error(),
 * the pixel limit checked from the header before anything image-sized is
 * allocated, *out zeroed on failure, writes through a temporary file renamed
 * into place (a failed write leaves no file), thread-safe. Readers return
 * packed CLV_F32 images; writers take any stride. */

/* OpenEXR, through the OpenEXR library (an optional dependency: a library
 * built without it returns CLV_ERROR_UNSUPPORTED from both, saying so).
 * Reading takes part 0 of a scanline or tiled file (level 0 of mip/rip maps)
 * in any compression the library decodes: channels R,G,B[,A] give 3 or 4
 * channels; otherwise a channel Y, or the single channel of a one-channel
 * file, gives 1. HALF, FLOAT and UINT samples become f32. The data window is
 * returned (the display window is ignored). CLV_ERROR_UNSUPPORTED for deep
 * images, subsampled channels, no usable channel, and compressions the
 * library's C decoder cannot handle (OpenEXR 3.1: DWAA/DWAB, HALF and FLOAT
 * channels alike; B44/B44A with FLOAT or UINT channels, which it decodes
 * wrongly, are refused). Chunks stored uncompressed in a compressed file
 * (what writers do when compression does not pay, e.g. B44 or DWAA on a
 * small image) are read in every compression, DWAA/DWAB included. Corrupt
 * compressed data is CLV_ERROR_FORMAT.
 * Writing takes f32 with 1 (channel Y), 3 (R,G,B) or 4 (R,G,B,A) channels and
 * writes a ZIP-compressed scanline file of FLOAT channels: every value,
 * negatives, Inf and NaN included, reads back bit-exact. */
CLV_API clv_status clv_exr_read(const char *path, clv_host_image *out);
/* 1 when the library was built with OpenEXR (EXR files can be read and
 * written), 0 otherwise. */
CLV_API int clv_io_has_exr(void);
CLV_API clv_status clv_exr_write(const char *path, const clv_host_image *img);

/* Radiance RGBE (.hdr, .pic): "#?RADIANCE" or "#?RGBE" header (LF or CRLF
 * line endings),
 * FORMAT=32-bit_rle_rgbe (XYZE is CLV_ERROR_UNSUPPORTED), resolution
 * "-Y H +X W" only (other orientations are CLV_ERROR_UNSUPPORTED); flat,
 * old-style and new-style run-length encoded scanlines. EXPOSURE is not
 * applied: pixels come back as stored. Reading always gives 3 channels.
 * Writing takes f32 with 1 (written as R=G=B) or 3 channels, run-length
 * encoded; each component is kept to within 2^-8 (0.4%) of the pixel's
 * largest component (relative to it). Negative values and NaN are written
 * as 0, values above ~1.7e38 and +Inf as the largest RGBE value; 4 channels
 * is CLV_ERROR_UNSUPPORTED. */
CLV_API clv_status clv_hdr_read(const char *path, clv_host_image *out);
CLV_API clv_status clv_hdr_write(const char *path, const clv_host_image *img);

/* PFM: "PF" (3 channels) or "Pf" (1 channel); the sign of the scale gives the
 * byte order, its magnitude is not applied; rows bottom to top in the file,
 * top to bottom in memory. A regular file shorter than its header promises
 * is CLV_ERROR_FORMAT before anything is allocated. Writing takes f32 with 1 or 3 channels (4 is
 * CLV_ERROR_UNSUPPORTED) in host byte order; round trips are bit-exact. */
CLV_API clv_status clv_pfm_read(const char *path, clv_host_image *out);
CLV_API clv_status clv_pfm_write(const char *path, const clv_host_image *img);

/* Convert u8, u16 or f32 pixels (any stride, 1/3/4 channels) to a newly
 * allocated packed f32 image: out = value * scale, computed in double. For a
 * 16-bit PNG used as linear HDR input, scale = 1.0 / 65535. On failure *out
 * is zeroed. CLV_ERROR_INVALID_ARGUMENT for NULL or malformed arguments, a
 * scale that is not finite, or out == in; CLV_ERROR_OUT_OF_MEMORY. Free the
 * result with clv_host_image_free(). NaN and Inf in f32 input stay NaN and
 * Inf (times scale). Thread-safe. */
CLV_API clv_status clv_host_image_to_f32(const clv_host_image *in, clv_host_image *out,
                                         double scale);

/* ==== end of high dynamic range files ==== */

#ifdef __cplusplus
}
#endif

#endif
