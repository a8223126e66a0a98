/* clvision — PNG files through libpng's classic API.
 *
 * The simplified png_image API is not used: its 16-bit "linear" mode changes
 * sample values. libpng reports errors by longjmp; each setjmp lives in a
 * small *_run function whose own locals are never read after a jump. Every
 * resource it touches is kept in a png_job in the caller's frame, which the
 * caller releases on one path whatever happened. libpng never prints: errors
 * and warnings go to our callbacks, errors end up in clv_io_last_error().
 */
#include <errno.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "io/io_internal.h"

typedef struct png_job {
    FILE *fp;
    const char *path;
    png_structp png;
    png_infop info;
    int writing;

    /* reading */
    clv_host_image img; /* owned until handed to the caller */
    png_bytep *rows;

    /* writing */
    const clv_host_image *src;

    char msg[256]; /* libpng's error message */
    int io_err;    /* errno of a failed fread/fwrite/fflush, 0 if none */
} png_job;

/* ---- callbacks ---- */

static void on_error(png_structp png, png_const_charp msg)
{
    png_job *job = png_get_error_ptr(png);
    if (job)
        snprintf(job->msg, sizeof job->msg, "%s", msg ? msg : "unknown libpng error");
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png; /* warnings are not errors and are never printed */
    (void)msg;
}

static void on_read(png_structp png, png_bytep data, size_t len)
{
    png_job *job = png_get_io_ptr(png);
    errno = 0;
    if (fread(data, 1, len, job->fp) == len)
        return;
    if (ferror(job->fp)) {
        job->io_err = errno ? errno : EIO;
        png_error(png, "read failed");
    }
    png_error(png, "unexpected end of file (truncated)");
}

static void on_write(png_structp png, png_bytep data, size_t len)
{
    png_job *job = png_get_io_ptr(png);
    errno = 0;
    if (fwrite(data, 1, len, job->fp) == len)
        return;
    job->io_err = errno ? errno : EIO;
    png_error(png, "write failed");
}

static void on_flush(png_structp png)
{
    png_job *job = png_get_io_ptr(png);
    errno = 0;
    if (fflush(job->fp) == 0)
        return;
    job->io_err = errno ? errno : EIO;
    png_error(png, "flush failed");
}

/* Status and message for a libpng error that jumped back to a *_run. */
static clv_status png_failure(const png_job *job)
{
    const char *verb = job->writing ? "write" : "read";
    if (job->io_err)
        return clv__io_fail_errno(CLV_ERROR_IO, job->io_err, "png: cannot %s '%s'", verb,
                                  job->path);
    if (strstr(job->msg, "memory") || strstr(job->msg, "Memory"))
        return clv__io_fail(CLV_ERROR_OUT_OF_MEMORY, "png: cannot %s '%s': %s", verb, job->path,
                            job->msg);
    if (job->writing)
        return clv__io_fail(CLV_ERROR_IO, "png: cannot write '%s': libpng: %s", job->path,
                            job->msg);
    return clv__io_fail(CLV_ERROR_FORMAT, "png: '%s' is corrupt or truncated: %s", job->path,
                        job->msg);
}

/* ---- reading ---- */

static clv_status png_read_run(png_job *job) CLV_WUR;
static clv_status png_read_run(png_job *job)
{
    if (setjmp(png_jmpbuf(job->png)))
        return png_failure(job);

    png_structp png = job->png;
    png_infop info = job->info;
    png_set_read_fn(png, job, on_read);
    png_set_sig_bytes(png, 8);
    /* Metadata chunks are skipped unread: clvision uses none of them, and
     * libpng 1.6.39 allocates the length a text or ICC chunk claims before
     * reading it (a few bytes claiming a 1 GB iTXt cost 1 GB; the fuzzer
     * found it). Only IHDR, PLTE, tRNS, IDAT and IEND are read. */
    static const png_byte skipped[] = {
        'b', 'K', 'G', 'D', '\0', 'c', 'H', 'R', 'M', '\0', 'e', 'X', 'I', 'f', '\0',
        'g', 'A', 'M', 'A', '\0', 'h', 'I', 'S', 'T', '\0', 'i', 'C', 'C', 'P', '\0',
        'i', 'T', 'X', 't', '\0', 'o', 'F', 'F', 's', '\0', 'p', 'C', 'A', 'L', '\0',
        'p', 'H', 'Y', 's', '\0', 's', 'B', 'I', 'T', '\0', 's', 'C', 'A', 'L', '\0',
        's', 'P', 'L', 'T', '\0', 's', 'R', 'G', 'B', '\0', 't', 'E', 'X', 't', '\0',
        't', 'I', 'M', 'E', '\0', 'z', 'T', 'X', 't', '\0',
    };
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, skipped, (int)(sizeof skipped / 5));
    /* libpng's own size limit (10^6 per side) fails IHDR with "Invalid IHDR
     * data"; take every size PNG allows (2^31 - 1) so that our size and
     * pixel checks below report the size the file claims. */
    png_set_user_limits(png, 0x7fffffffu, 0x7fffffffu);
    png_read_info(png, info);

    png_uint_32 width = png_get_image_width(png, info);
    png_uint_32 height = png_get_image_height(png, info);
    int depth = png_get_bit_depth(png, info);
    int color = png_get_color_type(png, info);
    int want;
    switch (color) {
    case PNG_COLOR_TYPE_GRAY:
        /* A tRNS colour key on gray/RGB images is ignored (no alpha added). */
        if (depth < 8)
            png_set_expand_gray_1_2_4_to_8(png);
        want = 1;
        break;
    case PNG_COLOR_TYPE_GRAY_ALPHA:
        png_set_gray_to_rgb(png);
        want = 4;
        break;
    case PNG_COLOR_TYPE_RGB:
        want = 3;
        break;
    case PNG_COLOR_TYPE_RGB_ALPHA:
        want = 4;
        break;
    case PNG_COLOR_TYPE_PALETTE:
        png_set_palette_to_rgb(png); /* also unpacks depths below 8 */
        if (png_get_valid(png, info, PNG_INFO_tRNS)) {
            png_set_tRNS_to_alpha(png);
            want = 4;
        } else {
            want = 3;
        }
        break;
    default:
        return clv__io_fail(CLV_ERROR_FORMAT, "png: '%s' has an invalid colour type %d",
                            job->path, color);
    }
    if (depth == 16 && clv__io_host_is_little_endian())
        png_set_swap(png); /* file is big-endian; we give host order */
    (void)png_set_interlace_handling(png);
    png_read_update_info(png, info);

    int channels = png_get_channels(png, info);
    int out_depth = png_get_bit_depth(png, info);
    if (channels != want || (out_depth != 8 && out_depth != 16))
        return clv__io_fail(CLV_ERROR_FORMAT,
                            "png: '%s': unexpected decoded layout (%d channels of %d bits)",
                            job->path, channels, out_depth);

    /* Checks the pixel limit before the one large allocation. */
    clv_status status = clv__io_alloc_for_read(&job->img, "png", job->path, width, height,
                                               channels, out_depth == 16 ? CLV_U16 : CLV_U8);
    if (status != CLV_OK)
        return status;
    if (png_get_rowbytes(png, info) != job->img.stride)
        return clv__io_fail(CLV_ERROR_FORMAT, "png: '%s': unexpected row size %zu (want %zu)",
                            job->path, (size_t)png_get_rowbytes(png, info), job->img.stride);

    job->rows = malloc((size_t)height * sizeof *job->rows);
    if (!job->rows)
        return clv__io_fail(CLV_ERROR_OUT_OF_MEMORY, "png: reading '%s': out of memory",
                            job->path);
    for (png_uint_32 y = 0; y < height; y++)
        job->rows[y] = (png_bytep)job->img.data + (size_t)y * job->img.stride;

    png_read_image(png, job->rows);
    png_read_end(png, NULL); /* reads up to IEND: a cut-off tail is an error */
    return CLV_OK;
}

clv_status clv__png_read_stream(FILE *fp, const char *path, clv_host_image *out)
{
    memset(out, 0, sizeof *out);

    unsigned char sig[8];
    errno = 0;
    size_t n = fread(sig, 1, sizeof sig, fp);
    if (n < sizeof sig && ferror(fp))
        return clv__io_fail_errno(CLV_ERROR_IO, errno, "png: cannot read '%s'", path);
    if (n == 0)
        return clv__io_fail(CLV_ERROR_FORMAT, "png: '%s' is empty", path);
    if (n < sizeof sig || png_sig_cmp(sig, 0, sizeof sig) != 0)
        return clv__io_fail(CLV_ERROR_FORMAT, "png: '%s' is not a PNG file (bad signature)",
                            path);

    png_job job;
    memset(&job, 0, sizeof job);
    job.fp = fp;
    job.path = path;

    clv_status status;
    job.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &job, on_error, on_warning);
    if (job.png)
        job.info = png_create_info_struct(job.png);
    if (!job.png || !job.info)
        status = clv__io_fail(CLV_ERROR_OUT_OF_MEMORY, "png: reading '%s': cannot create the "
                              "libpng decoder", path);
    else
        status = png_read_run(&job);

    png_destroy_read_struct(&job.png, &job.info, NULL); /* NULL-safe */
    free(job.rows);
    if (status == CLV_OK)
        *out = job.img;
    else
        clv_host_image_free(&job.img);
    return status;
}

CLV_API clv_status clv_png_read(const char *path, clv_host_image *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!path || !out)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "png: read: path and out must not be NULL");
    FILE *fp;
    clv_status status = clv__io_open_read("png", path, &fp);
    if (status != CLV_OK)
        return status;
    status = clv__png_read_stream(fp, path, out);
    fclose(fp); /* read-only: nothing to lose */
    return status;
}

/* ---- writing ---- */

static clv_status png_write_run(png_job *job) CLV_WUR;
static clv_status png_write_run(png_job *job)
{
    if (setjmp(png_jmpbuf(job->png)))
        return png_failure(job);

    png_structp png = job->png;
    png_infop info = job->info;
    const clv_host_image *img = job->src;
    int depth = img->type == CLV_U16 ? 16 : 8;
    int color = img->channels == 1   ? PNG_COLOR_TYPE_GRAY
                : img->channels == 3 ? PNG_COLOR_TYPE_RGB
                                     : PNG_COLOR_TYPE_RGB_ALPHA;

    png_set_write_fn(png, job, on_write, on_flush);
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, depth, color,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    if (depth == 16 && clv__io_host_is_little_endian())
        png_set_swap(png); /* host order in, big-endian in the file */
    /* libpng copies each row before transforming it: the source is untouched. */
    for (int y = 0; y < img->height; y++)
        png_write_row(png, (png_const_bytep)img->data + (size_t)y * img->stride);
    png_write_end(png, NULL);
    return CLV_OK;
}

static clv_status png_write_file(FILE *fp, const char *path, const void *user) CLV_WUR;
static clv_status png_write_file(FILE *fp, const char *path, const void *user)
{
    png_job job;
    memset(&job, 0, sizeof job);
    job.fp = fp;
    job.path = path;
    job.writing = 1;
    job.src = user;

    clv_status status;
    job.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &job, on_error, on_warning);
    if (job.png)
        job.info = png_create_info_struct(job.png);
    if (!job.png || !job.info)
        status = clv__io_fail(CLV_ERROR_OUT_OF_MEMORY, "png: writing '%s': cannot create the "
                              "libpng encoder", path);
    else
        status = png_write_run(&job);
    png_destroy_write_struct(&job.png, &job.info); /* NULL-safe */
    return status;
}

CLV_API clv_status clv_png_write(const char *path, const clv_host_image *img)
{
    if (!path)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "png: write: path must not be NULL");
    size_t row_bytes = 0;
    clv_status status = clv__io_check_host_image(img, "png", path, &row_bytes);
    if (status != CLV_OK)
        return status;
    if (img->type != CLV_U8 && img->type != CLV_U16)
        return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                            "png: cannot write '%s': PNG holds u8 or u16 samples, not %s "
                            "(convert the image first)",
                            path, img->type == CLV_F32 ? "f32" : "this pixel type");
    return clv__io_write_atomic(path, "png", png_write_file, img);
}
