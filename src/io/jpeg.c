/* clvision — JPEG files through libjpeg(-turbo).
 *
 * libjpeg's default error manager prints and calls exit(); ours formats the
 * message into a buffer and longjmps back into the *_run function that set
 * it up. Those functions never read their own locals after a jump; the
 * codec object, the pixels and the error state live in a job struct in the
 * caller's frame, which the caller releases on one path.
 *
 * libjpeg only warns when data is missing or damaged (a truncated file gets
 * a fake end-of-image marker and grey rows). Those warnings are errors here:
 * a truncated or corrupt file is CLV_ERROR_FORMAT, never a half-grey image.
 * Harmless warnings (extra bytes between markers, unknown JFIF revision...)
 * are ignored.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include <jerror.h> /* after jpeglib.h: it depends on JPEG_LIB_VERSION */

#include "io/io_internal.h"

#define CLV__JPEG_DEFAULT_QUALITY 92

/* Scan limit of the readers in this thread (clv_jpeg_set_max_scans). */
static _Thread_local unsigned clv__jpeg_max_scans = CLV_JPEG_DEFAULT_MAX_SCANS;

CLV_API void clv_jpeg_set_max_scans(unsigned max_scans)
{
    clv__jpeg_max_scans = max_scans == 0 ? CLV_JPEG_DEFAULT_MAX_SCANS : max_scans;
}

CLV_API unsigned clv_jpeg_max_scans(void)
{
    return clv__jpeg_max_scans;
}

typedef struct jpeg_err {
    struct jpeg_error_mgr pub; /* first: libjpeg sees only this */
    jmp_buf jump;
    char msg[JMSG_LENGTH_MAX];
    int code;      /* msg_code of the failure */
    int saved_err; /* errno when the failure was raised */
} jpeg_err;

/* ---- error manager ---- */

static void on_error_exit(j_common_ptr cinfo)
{
    jpeg_err *e = (jpeg_err *)cinfo->err;
    e->saved_err = errno;
    e->code = e->pub.msg_code;
    e->pub.format_message(cinfo, e->msg);
    longjmp(e->jump, 1);
}

/* Warnings that mean pixels are missing or wrong. */
static int warning_is_fatal(int code)
{
    switch (code) {
    case JWRN_JPEG_EOF:       /* premature end of file */
    case JWRN_HIT_MARKER:     /* premature end of a data segment */
    case JWRN_HUFF_BAD_CODE:  /* corrupt entropy-coded data */
#if JPEG_LIB_VERSION >= 70 || defined(C_ARITH_CODING_SUPPORTED) || \
    defined(D_ARITH_CODING_SUPPORTED)
    case JWRN_ARITH_BAD_CODE: /* same, arithmetic coding */
#endif
    case JWRN_MUST_RESYNC:    /* lost sync with restart markers */
        return 1;
    default:
        return 0;
    }
}

static void on_emit_message(j_common_ptr cinfo, int level)
{
    if (level >= 0)
        return; /* trace messages */
    cinfo->err->num_warnings++;
    if (warning_is_fatal(cinfo->err->msg_code))
        on_error_exit(cinfo); /* does not return */
}

static void on_output_message(j_common_ptr cinfo)
{
    (void)cinfo; /* never print */
}

static void install_error_manager(jpeg_err *e)
{
    jpeg_std_error(&e->pub);
    e->pub.error_exit = on_error_exit;
    e->pub.emit_message = on_emit_message;
    e->pub.output_message = on_output_message;
}

/* ---- reading ---- */

typedef struct jpeg_read_job {
    struct jpeg_decompress_struct cinfo; /* first: the progress monitor finds the job from it */
    jpeg_err err;
    struct jpeg_progress_mgr progress;
    unsigned max_scans;
    int too_many_scans; /* the scan limit stopped the decoder */
    FILE *fp;
    const char *path;
    clv_host_image img; /* owned until handed to the caller */
} jpeg_read_job;

/* libjpeg calls this while it consumes input (once per iMCU row of every
 * scan, and per output row): a file that repeats a scan thousands of times
 * is stopped here, before it costs a decode per scan. */
static void on_progress(j_common_ptr common)
{
    jpeg_read_job *job = (jpeg_read_job *)(void *)common; /* cinfo is the first member */
    if (job->cinfo.input_scan_number > 0 &&
        (unsigned)job->cinfo.input_scan_number > job->max_scans) {
        job->too_many_scans = 1;
        longjmp(job->err.jump, 1);
    }
}

static clv_status jpeg_read_failure(const jpeg_read_job *job)
{
    if (job->too_many_scans)
        return clv__io_fail(CLV_ERROR_FORMAT,
                            "jpeg: '%s' has more than %u scans (the limit; a scan-repeating "
                            "file would take a decode per scan: raise it with "
                            "clv_jpeg_set_max_scans())",
                            job->path, job->max_scans);
    if (ferror(job->fp))
        return clv__io_fail_errno(CLV_ERROR_IO, job->err.saved_err, "jpeg: cannot read '%s'",
                                  job->path);
    switch (job->err.code) {
    case JERR_OUT_OF_MEMORY:
        return clv__io_fail(CLV_ERROR_OUT_OF_MEMORY, "jpeg: reading '%s': %s", job->path,
                            job->err.msg);
    case JERR_BAD_PRECISION:
        return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                            "jpeg: '%s': %s (only 8-bit JPEGs are supported)", job->path,
                            job->err.msg);
    case JERR_IMAGE_TOO_BIG: /* libjpeg's message names its limit, not the file's size */
        return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                            "jpeg: '%s' is %lux%lu pixels; libjpeg reads at most %ld pixels per "
                            "side",
                            job->path, (unsigned long)job->cinfo.image_width,
                            (unsigned long)job->cinfo.image_height, (long)JPEG_MAX_DIMENSION);
    case JERR_INPUT_EMPTY:
        return clv__io_fail(CLV_ERROR_FORMAT, "jpeg: '%s' is empty", job->path);
    case JWRN_JPEG_EOF:
    case JERR_INPUT_EOF:
        return clv__io_fail(CLV_ERROR_FORMAT, "jpeg: '%s' is truncated: %s", job->path,
                            job->err.msg);
    default:
        return clv__io_fail(CLV_ERROR_FORMAT, "jpeg: '%s' is corrupt or not a JPEG: %s",
                            job->path, job->err.msg);
    }
}

static clv_status jpeg_read_run(jpeg_read_job *job) CLV_WUR;
static clv_status jpeg_read_run(jpeg_read_job *job)
{
    install_error_manager(&job->err);
    job->cinfo.err = &job->err.pub;
    if (setjmp(job->err.jump))
        return jpeg_read_failure(job);

    struct jpeg_decompress_struct *cinfo = &job->cinfo;
    jpeg_create_decompress(cinfo);
    job->max_scans = clv__jpeg_max_scans;
    job->progress.progress_monitor = on_progress;
    cinfo->progress = &job->progress;
    jpeg_stdio_src(cinfo, job->fp);
    (void)jpeg_read_header(cinfo, TRUE); /* TRUE: tables-only streams are errors */

    int channels;
    switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE:
        cinfo->out_color_space = JCS_GRAYSCALE;
        channels = 1;
        break;
    case JCS_YCbCr:
    case JCS_RGB:
        cinfo->out_color_space = JCS_RGB;
        channels = 3;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                            "jpeg: '%s' is a CMYK JPEG; only gray and colour (YCbCr/RGB) "
                            "JPEGs are supported",
                            job->path);
    default:
        return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                            "jpeg: '%s' has an unknown colour space (%d components); only "
                            "gray and colour (YCbCr/RGB) JPEGs are supported",
                            job->path, cinfo->num_components);
    }

    /* Checks the pixel limit before libjpeg or we allocate image-sized memory. */
    clv_status status = clv__io_alloc_for_read(&job->img, "jpeg", job->path, cinfo->image_width,
                                               cinfo->image_height, channels, CLV_U8);
    if (status != CLV_OK)
        return status;

    (void)jpeg_start_decompress(cinfo);
    if (cinfo->output_components != channels || cinfo->output_width != cinfo->image_width ||
        cinfo->output_height != cinfo->image_height)
        return clv__io_fail(CLV_ERROR_FORMAT,
                            "jpeg: '%s': unexpected decoded layout (%ux%u, %d components)",
                            job->path, (unsigned)cinfo->output_width,
                            (unsigned)cinfo->output_height, cinfo->output_components);

    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW row = (JSAMPROW)job->img.data + (size_t)cinfo->output_scanline * job->img.stride;
        if (jpeg_read_scanlines(cinfo, &row, 1) != 1)
            return clv__io_fail(CLV_ERROR_FORMAT, "jpeg: '%s': decoder stopped at row %u",
                                job->path, (unsigned)cinfo->output_scanline);
    }
    (void)jpeg_finish_decompress(cinfo); /* reads up to EOI: a cut-off tail is an error */
    /* finish_decompress reads the scans after the last row without calling
     * the monitor. */
    on_progress((j_common_ptr)cinfo);
    if (ferror(job->fp))
        return clv__io_fail(CLV_ERROR_IO, "jpeg: cannot read '%s'", job->path);
    return CLV_OK;
}

clv_status clv__jpeg_read_stream(FILE *fp, const char *path, clv_host_image *out)
{
    memset(out, 0, sizeof *out);
    jpeg_read_job job;
    memset(&job, 0, sizeof job);
    job.fp = fp;
    job.path = path;

    clv_status status = jpeg_read_run(&job);

    jpeg_destroy_decompress(&job.cinfo); /* fine on a zeroed or half-made object */
    if (status == CLV_OK)
        *out = job.img;
    else
        clv_host_image_free(&job.img);
    return status;
}

CLV_API clv_status clv_jpeg_read(const char *path, clv_host_image *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!path || !out)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            "jpeg: read: path and out must not be NULL");
    FILE *fp;
    clv_status status = clv__io_open_read("jpeg", path, &fp);
    if (status != CLV_OK)
        return status;
    status = clv__jpeg_read_stream(fp, path, out);
    fclose(fp); /* read-only: nothing to lose */
    return status;
}

/* ---- writing ---- */

typedef struct jpeg_write_params {
    const clv_host_image *img;
    int quality;
} jpeg_write_params;

typedef struct jpeg_write_job {
    struct jpeg_compress_struct cinfo;
    jpeg_err err;
    FILE *fp;
    const char *path;
    const jpeg_write_params *params;
} jpeg_write_job;

static clv_status jpeg_write_failure(const jpeg_write_job *job)
{
    switch (job->err.code) {
    case JERR_FILE_WRITE:
        return clv__io_fail_errno(CLV_ERROR_IO, job->err.saved_err, "jpeg: cannot write '%s'",
                                  job->path);
    case JERR_OUT_OF_MEMORY:
        return clv__io_fail(CLV_ERROR_OUT_OF_MEMORY, "jpeg: writing '%s': %s", job->path,
                            job->err.msg);
    default:
        return clv__io_fail(CLV_ERROR_IO, "jpeg: cannot write '%s': libjpeg: %s", job->path,
                            job->err.msg);
    }
}

static clv_status jpeg_write_run(jpeg_write_job *job) CLV_WUR;
static clv_status jpeg_write_run(jpeg_write_job *job)
{
    install_error_manager(&job->err);
    job->cinfo.err = &job->err.pub;
    if (setjmp(job->err.jump))
        return jpeg_write_failure(job);

    struct jpeg_compress_struct *cinfo = &job->cinfo;
    const clv_host_image *img = job->params->img;
    jpeg_create_compress(cinfo);
    jpeg_stdio_dest(cinfo, job->fp);
    cinfo->image_width = (JDIMENSION)img->width;
    cinfo->image_height = (JDIMENSION)img->height;
    cinfo->input_components = img->channels;
    cinfo->in_color_space = img->channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, job->params->quality, TRUE);
    cinfo->optimize_coding = TRUE; /* smaller files, same pixels */
    jpeg_start_compress(cinfo, TRUE);
    while (cinfo->next_scanline < cinfo->image_height) {
        /* libjpeg takes non-const rows but only reads them. */
        JSAMPROW row = (JSAMPROW)img->data + (size_t)cinfo->next_scanline * img->stride;
        (void)jpeg_write_scanlines(cinfo, &row, 1);
    }
    jpeg_finish_compress(cinfo); /* flushes; a failed write is JERR_FILE_WRITE */
    return CLV_OK;
}

static clv_status jpeg_write_file(FILE *fp, const char *path, const void *user) CLV_WUR;
static clv_status jpeg_write_file(FILE *fp, const char *path, const void *user)
{
    jpeg_write_job job;
    memset(&job, 0, sizeof job);
    job.fp = fp;
    job.path = path;
    job.params = user;
    clv_status status = jpeg_write_run(&job);
    jpeg_destroy_compress(&job.cinfo); /* fine on a zeroed or half-made object */
    return status;
}

CLV_API clv_status clv_jpeg_write(const char *path, const clv_host_image *img, int quality)
{
    if (!path)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "jpeg: write: path must not be NULL");
    size_t row_bytes = 0;
    clv_status status = clv__io_check_host_image(img, "jpeg", path, &row_bytes);
    if (status != CLV_OK)
        return status;
    if (img->type != CLV_U8)
        return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                            "jpeg: cannot write '%s': JPEG holds u8 samples, not %s (convert "
                            "the image first, or write PNG for u16)",
                            path, img->type == CLV_U16 ? "u16" : "f32");
    if (img->channels != 1 && img->channels != 3)
        return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                            "jpeg: cannot write '%s': JPEG holds 1 or 3 channels, not %d (drop "
                            "the alpha channel or write PNG)",
                            path, img->channels);
    if (quality < 0 || quality > 100)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            "jpeg: writing '%s': quality must be 1..100, or 0 for the default "
                            "(got %d)",
                            path, quality);
    jpeg_write_params params = {img, quality == 0 ? CLV__JPEG_DEFAULT_QUALITY : quality};
    return clv__io_write_atomic(path, "jpeg", jpeg_write_file, &params);
}
