/* clvision — OpenEXR files through OpenEXR 3's C API (OpenEXRCore).
 *
 * Reading: part 0 of the file, scanline or tiled (level 0 of a mip/rip-mapped
 * file), any compression the library decodes. Channels R, G, B (and A) become
 * an RGB(A) image; otherwise a channel named Y, or the only channel of a
 * one-channel file, becomes a gray image. HALF, FLOAT and UINT samples are
 * converted to f32 (UINT by value). The data window is returned; the display
 * window is ignored. Subsampled channels and deep data are refused.
 *
 * Only the library's I/O, header parsing, chunk tables and decompression are
 * used: the unpacking from the decompressed chunk (little-endian samples,
 * line after line, channel after channel in the file's alphabetical order)
 * into our interleaved f32 pixels is done here, with every chunk's size and
 * position checked against the image before a byte is written (the
 * library's specialised unpackers have had layout bugs upstream; ours is one
 * plain loop).
 *
 * Known gaps of OpenEXR 3.1.5's C decoder, checked against the C++ library
 * through OpenCV: DWAA/DWAB decompression is not implemented for any channel
 * type (reported as CLV_ERROR_UNSUPPORTED naming the compression), B44/B44A
 * with FLOAT or UINT channels comes out scrambled (refused up front), and a
 * chunk stored uncompressed in a compressed file (its size equal to its
 * pixels', as the C++ library writes when compressing does not pay) goes to
 * the B44 decoder anyway; such chunks are read and unpacked here.
 *
 * Writing: a single-part scanline file, ZIP compression (16 lines per chunk),
 * FLOAT channels (bit-exact, negative values, Inf and NaN included) named Y
 * for one channel and R, G, B[, A] for three or four.
 *
 * The library reports errors through a callback; it never prints. File access
 * goes through our callbacks (pread on the stream's descriptor when reading,
 * the temporary file of clv__io_write_atomic when writing), so the library
 * never opens or creates a file itself.
 *
 * Without OpenEXR (CLV_HAVE_OPENEXR undefined) every entry point returns
 * CLV_ERROR_UNSUPPORTED.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io_internal.h"

#ifndef CLV_HAVE_OPENEXR

static clv_status exr_missing(const char *verb, const char *path)
{
    return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                        "exr: cannot %s '%s': clvision was built without OpenEXR", verb,
                        path ? path : "(null)");
}

clv_status clv__exr_read_stream(FILE *fp, const char *path, clv_host_image *out)
{
    (void)fp;
    memset(out, 0, sizeof *out);
    return exr_missing("read", path);
}

CLV_API clv_status clv_exr_read(const char *path, clv_host_image *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!path || !out)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "exr: read: path and out must not be NULL");
    return exr_missing("read", path);
}

CLV_API clv_status clv_exr_write(const char *path, const clv_host_image *img)
{
    if (!path)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "exr: write: path must not be NULL");
    (void)img;
    return exr_missing("write", path);
}

#else /* CLV_HAVE_OPENEXR */

#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <openexr.h>

/* The library's message for the current call in this thread. The callback
 * runs on the thread that caused the error; the first message of a call is
 * kept (later ones only wrap it: "unable to decompress..."). */
static _Thread_local char exr_lib_msg[512];

static void exr_msg_reset(void)
{
    exr_lib_msg[0] = '\0';
}

static void on_exr_error(exr_const_context_t ctxt, exr_result_t code, const char *msg)
{
    (void)ctxt;
    if (exr_lib_msg[0] != '\0')
        return;
    /* Messages can quote bytes of a corrupt file: keep them printable. */
    clv__io_printable(exr_lib_msg, sizeof exr_lib_msg,
                      msg && *msg ? msg : exr_get_default_error_message(code));
}

/* The library's message, or the default text of the code. */
static const char *exr_message(exr_result_t rv)
{
    if (exr_lib_msg[0] == '\0')
        snprintf(exr_lib_msg, sizeof exr_lib_msg, "%s", exr_get_default_error_message(rv));
    return exr_lib_msg;
}

/* ---- sample conversion ---- */

static uint32_t load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t man = h & 0x3FFu;
    uint32_t bits;
    if (exp == 0) {
        /* zero or subnormal: man * 2^-24, exact in float */
        float f = (float)man * (1.0f / 16777216.0f);
        return sign ? -f : f;
    }
    if (exp == 31)
        bits = sign | 0x7F800000u | (man << 13); /* Inf, NaN (payload kept) */
    else
        bits = sign | ((exp + 112u) << 23) | (man << 13);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static float sample_to_float(const uint8_t *p, int type)
{
    switch (type) {
    case EXR_PIXEL_HALF: return half_to_float((uint16_t)(p[0] | p[1] << 8));
    case EXR_PIXEL_UINT: return (float)load_le32(p);
    default: {
        uint32_t bits = load_le32(p);
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    }
}

/* ---- reading ---- */

typedef struct exr_read_job {
    int fd;
    const char *path;
    int io_err; /* errno of a failed pread, 0 if none */

    exr_context_t ctxt;
    exr_decode_pipeline_t dec;
    int dec_ready;

    int32_t x_min, y_min; /* data window origin */
    exr_compression_t compression;
    int *map; /* file channel -> output channel, -1 to skip */
    int num_file_channels;
    int chunk_x0, chunk_y0; /* position of the chunk being decoded, in the image */
    int bad_chunk;          /* a chunk did not fit the image */
    int decompressing;      /* the failure came from the library's decompressor */
    uint8_t *raw;           /* a stored (uncompressed) chunk of a compressed file */
    size_t raw_cap;

    clv_host_image img; /* owned until handed to the caller */
} exr_read_job;

static int64_t on_read(exr_const_context_t ctxt, void *user, void *buffer, uint64_t size,
                       uint64_t offset, exr_stream_error_func_ptr_t error_cb)
{
    exr_read_job *job = user;
    uint64_t done = 0;
    if (size > (uint64_t)INT64_MAX || offset > (uint64_t)INT64_MAX - size) {
        error_cb(ctxt, EXR_ERR_READ_IO, "read request beyond any file size");
        return -1;
    }
    while (done < size) {
        size_t want = size - done > ((size_t)1 << 30) ? (size_t)1 << 30 : (size_t)(size - done);
        ssize_t n = pread(job->fd, (char *)buffer + done, want, (off_t)(offset + done));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            job->io_err = errno ? errno : EIO;
            error_cb(ctxt, EXR_ERR_READ_IO, "read failed");
            return -1;
        }
        if (n == 0)
            break; /* end of file: the library reports the short read */
        done += (uint64_t)n;
    }
    return (int64_t)done;
}

static int64_t on_query_size(exr_const_context_t ctxt, void *user)
{
    (void)ctxt;
    exr_read_job *job = user;
    struct stat st;
    if (fstat(job->fd, &st) != 0 || !S_ISREG(st.st_mode))
        return -1; /* unknown: the library skips its size checks */
    return (int64_t)st.st_size;
}

/* unpack_and_convert_fn of the decode pipeline: the decompressed chunk is,
 * for each of its lines, each channel's samples of that line in the file's
 * channel order. Nothing is written before the chunk has been checked to lie
 * inside the image and to hold enough bytes. */
static exr_result_t unpack_from(exr_read_job *job, const exr_decode_pipeline_t *dec,
                                const uint8_t *src, uint64_t src_size)
{
    const clv_host_image *img = &job->img;
    int rows = dec->chunk.height, cols = dec->chunk.width;
    int x0 = job->chunk_x0, y0 = job->chunk_y0;

    if (!src || rows < 0 || cols < 0 || x0 < 0 || y0 < 0 || x0 > img->width - cols ||
        y0 > img->height - rows || dec->channel_count != job->num_file_channels)
        goto bad;
    uint64_t line_bytes = 0;
    for (int c = 0; c < dec->channel_count; c++) {
        const exr_coding_channel_info_t *ch = &dec->channels[c];
        if (ch->width != cols || ch->height != rows ||
            (ch->bytes_per_element != 2 && ch->bytes_per_element != 4))
            goto bad;
        line_bytes += (uint64_t)cols * (uint64_t)ch->bytes_per_element;
    }
    if (line_bytes * (uint64_t)rows > src_size)
        goto bad;

    int nc = img->channels;
    for (int y = 0; y < rows; y++) {
        float *row = (float *)((uint8_t *)img->data + (size_t)(y0 + y) * img->stride) +
                     (size_t)x0 * (size_t)nc;
        for (int c = 0; c < dec->channel_count; c++) {
            const exr_coding_channel_info_t *ch = &dec->channels[c];
            int bpe = ch->bytes_per_element;
            int oc = job->map[c];
            if (oc >= 0)
                for (int x = 0; x < cols; x++)
                    row[(size_t)x * (size_t)nc + (size_t)oc] =
                        sample_to_float(src + (size_t)x * (size_t)bpe, ch->data_type);
            src += (size_t)cols * (size_t)bpe;
        }
    }
    return EXR_ERR_SUCCESS;
bad:
    job->bad_chunk = 1;
    return EXR_ERR_CORRUPT_CHUNK;
}

static exr_result_t unpack_chunk(exr_decode_pipeline_t *dec)
{
    return unpack_from(dec->decoding_user_data, dec, dec->unpacked_buffer,
                       dec->chunk.unpacked_size);
}

/* Status and message for a failed library call while reading. */
static clv_status exr_read_failure(const exr_read_job *job, exr_result_t rv)
{
    if (job->io_err)
        return clv__io_fail_errno(CLV_ERROR_IO, job->io_err, "exr: cannot read '%s'", job->path);
    if (job->bad_chunk)
        return clv__io_fail(CLV_ERROR_FORMAT,
                            "exr: '%s' is corrupt: a chunk does not match the image layout",
                            job->path);
    /* OpenEXR 3.1.5's B44 decoder reports data it cannot decode as out of
     * memory ("Unable to decompress image data"). */
    if (rv == EXR_ERR_OUT_OF_MEMORY && job->decompressing &&
        (job->compression == EXR_COMPRESSION_B44 || job->compression == EXR_COMPRESSION_B44A))
        return clv__io_fail(CLV_ERROR_FORMAT, "exr: '%s' is corrupt: bad B44 data: %s",
                            job->path, exr_message(rv));
    switch (rv) {
    case EXR_ERR_OUT_OF_MEMORY:
        return clv__io_fail(CLV_ERROR_OUT_OF_MEMORY, "exr: reading '%s': %s", job->path,
                            exr_message(rv));
    case EXR_ERR_FEATURE_NOT_IMPLEMENTED:
        if (job->compression == EXR_COMPRESSION_DWAA || job->compression == EXR_COMPRESSION_DWAB)
            return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                                "exr: cannot read '%s': %s compression is not supported (OpenEXR "
                                "3.1's C decoder has none, for HALF and FLOAT channels alike; "
                                "OpenEXR: %s)",
                                job->path,
                                job->compression == EXR_COMPRESSION_DWAA ? "DWAA" : "DWAB",
                                exr_message(rv));
        return clv__io_fail(CLV_ERROR_UNSUPPORTED, "exr: cannot read '%s': OpenEXR: %s",
                            job->path, exr_message(rv));
    default:
        return clv__io_fail(CLV_ERROR_FORMAT, "exr: '%s' is corrupt or truncated: %s", job->path,
                            exr_message(rv));
    }
}

/* Decide which file channels make the output image: R,G,B[,A], else Y, else
 * the only channel. Fills job->map and returns the output channel count. */
static clv_status choose_channels(exr_read_job *job, const exr_attr_chlist_t *chl, int *channels)
{
    static const char *const rgba[4] = {"R", "G", "B", "A"};
    int found[4] = {-1, -1, -1, -1}, y = -1;
    int n = chl->num_channels;
    if (n < 1)
        return clv__io_fail(CLV_ERROR_FORMAT, "exr: '%s' has no channels", job->path);
    for (int c = 0; c < n; c++) {
        const exr_attr_chlist_entry_t *e = &chl->entries[c];
        const char *name = e->name.str ? e->name.str : "";
        for (int k = 0; k < 4; k++)
            if (strcmp(name, rgba[k]) == 0)
                found[k] = c;
        if (strcmp(name, "Y") == 0)
            y = c;
        char shown[64];
        clv__io_printable(shown, sizeof shown, name);
        if (e->pixel_type != EXR_PIXEL_HALF && e->pixel_type != EXR_PIXEL_FLOAT &&
            e->pixel_type != EXR_PIXEL_UINT)
            return clv__io_fail(CLV_ERROR_FORMAT, "exr: '%s': channel '%s' has an invalid type %d",
                                job->path, shown, (int)e->pixel_type);
        if (e->x_sampling != 1 || e->y_sampling != 1)
            return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                                "exr: cannot read '%s': channel '%s' is subsampled (%dx%d); "
                                "clvision reads full-resolution channels only",
                                job->path, shown, e->x_sampling, e->y_sampling);
    }
    job->map = malloc((size_t)n * sizeof *job->map);
    if (!job->map)
        return clv__io_fail(CLV_ERROR_OUT_OF_MEMORY, "exr: reading '%s': out of memory", job->path);
    job->num_file_channels = n;
    for (int c = 0; c < n; c++)
        job->map[c] = -1;

    if (found[0] >= 0 && found[1] >= 0 && found[2] >= 0) {
        int nc = found[3] >= 0 ? 4 : 3;
        for (int k = 0; k < nc; k++)
            job->map[found[k]] = k;
        *channels = nc;
    } else if (y >= 0 || n == 1) {
        job->map[y >= 0 ? y : 0] = 0;
        *channels = 1;
    } else {
        char names[256] = "";
        size_t len = 0;
        for (int c = 0; c < n && len < sizeof names - 1; c++) {
            int k = snprintf(names + len, sizeof names - len, "%s%s", c ? ", " : "",
                             chl->entries[c].name.str ? chl->entries[c].name.str : "");
            if (k < 0)
                break;
            len += (size_t)k;
        }
        clv__io_printable(names, sizeof names, names);
        return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                            "exr: cannot read '%s': no R,G,B or Y channel among (%s)", job->path,
                            names);
    }
    return CLV_OK;
}

/* Decode one chunk whose info was just read into *cinfo. */
static exr_result_t decode_chunk(exr_read_job *job, const exr_chunk_info_t *cinfo)
{
    exr_result_t rv;
    /* The library takes an uncompressed chunk whose size field is smaller
     * than its pixels and leaves the rest of its buffer unset. */
    if (job->compression == EXR_COMPRESSION_NONE && cinfo->packed_size != cinfo->unpacked_size) {
        job->bad_chunk = 1;
        return EXR_ERR_CORRUPT_CHUNK;
    }
    if (!job->dec_ready) {
        rv = exr_decoding_initialize(job->ctxt, 0, cinfo, &job->dec);
        if (rv != EXR_ERR_SUCCESS)
            return rv;
        job->dec_ready = 1;
        /* No output pointers: the library picks its read and decompress
         * steps for this part; the unpacking is ours. */
        rv = exr_decoding_choose_default_routines(job->ctxt, 0, &job->dec);
        if (rv != EXR_ERR_SUCCESS)
            return rv;
    } else {
        rv = exr_decoding_update(job->ctxt, 0, cinfo, &job->dec);
        if (rv != EXR_ERR_SUCCESS)
            return rv;
    }
    /* A chunk that compression would not have made smaller is stored as is,
     * its size equal to its pixels' (the C++ library writes such chunks for
     * small images, e.g. B44 on a 2x2 image, and reads them raw). OpenEXR
     * 3.1.5's C decoder runs its B44 decoder on them anyway (failing as "out
     * of memory", or returning garbage), so such chunks are read and
     * unpacked here, for every compression. */
    if (job->compression != EXR_COMPRESSION_NONE && cinfo->packed_size == cinfo->unpacked_size) {
        if (cinfo->unpacked_size > SIZE_MAX) {
            job->bad_chunk = 1;
            return EXR_ERR_CORRUPT_CHUNK;
        }
        size_t n = (size_t)cinfo->unpacked_size;
        if (n > job->raw_cap) {
            uint8_t *p = realloc(job->raw, n);
            if (!p)
                return EXR_ERR_OUT_OF_MEMORY;
            job->raw = p;
            job->raw_cap = n;
        }
        rv = exr_read_chunk(job->ctxt, 0, cinfo, job->raw);
        if (rv != EXR_ERR_SUCCESS)
            return rv;
        return unpack_from(job, &job->dec, job->raw, n);
    }
    job->dec.decoding_user_data = job;
    job->dec.unpack_and_convert_fn = unpack_chunk;
    job->decompressing = 1;
    rv = exr_decoding_run(job->ctxt, 0, &job->dec);
    if (rv == EXR_ERR_SUCCESS)
        job->decompressing = 0;
    return rv;
}

static clv_status read_scanlines(exr_read_job *job)
{
    int32_t per_chunk = 0;
    exr_result_t rv = exr_get_scanlines_per_chunk(job->ctxt, 0, &per_chunk);
    if (rv != EXR_ERR_SUCCESS || per_chunk < 1)
        return exr_read_failure(job, rv != EXR_ERR_SUCCESS ? rv : EXR_ERR_INVALID_ATTR);
    for (int64_t y = 0; y < job->img.height; y += per_chunk) {
        exr_chunk_info_t cinfo;
        rv = exr_read_scanline_chunk_info(job->ctxt, 0, (int)(job->y_min + y), &cinfo);
        if (rv == EXR_ERR_SUCCESS) {
            job->chunk_x0 = 0;
            job->chunk_y0 = (int)((int64_t)cinfo.start_y - job->y_min);
            if (job->chunk_y0 != y) {
                job->bad_chunk = 1;
                rv = EXR_ERR_CORRUPT_CHUNK;
            }
        }
        if (rv == EXR_ERR_SUCCESS)
            rv = decode_chunk(job, &cinfo);
        if (rv != EXR_ERR_SUCCESS)
            return exr_read_failure(job, rv);
    }
    return CLV_OK;
}

static clv_status read_tiles(exr_read_job *job)
{
    int32_t tw = 0, th = 0;
    exr_result_t rv = exr_get_tile_sizes(job->ctxt, 0, 0, 0, &tw, &th);
    if (rv != EXR_ERR_SUCCESS || tw < 1 || th < 1)
        return exr_read_failure(job, rv != EXR_ERR_SUCCESS ? rv : EXR_ERR_INVALID_ATTR);
    int64_t ntx = (job->img.width + (int64_t)tw - 1) / tw;
    int64_t nty = (job->img.height + (int64_t)th - 1) / th;
    for (int64_t ty = 0; ty < nty; ty++)
        for (int64_t tx = 0; tx < ntx; tx++) {
            exr_chunk_info_t cinfo;
            rv = exr_read_tile_chunk_info(job->ctxt, 0, (int)tx, (int)ty, 0, 0, &cinfo);
            if (rv == EXR_ERR_SUCCESS) {
                job->chunk_x0 = (int)(tx * tw);
                job->chunk_y0 = (int)(ty * th);
                rv = decode_chunk(job, &cinfo);
            }
            if (rv != EXR_ERR_SUCCESS)
                return exr_read_failure(job, rv);
        }
    return CLV_OK;
}

static clv_status exr_read_run(exr_read_job *job) CLV_WUR;
static clv_status exr_read_run(exr_read_job *job)
{
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.error_handler_fn = on_exr_error;
    init.user_data = job;
    init.read_fn = on_read;
    init.size_fn = on_query_size;

    exr_result_t rv = exr_start_read(&job->ctxt, job->path, &init);
    if (rv != EXR_ERR_SUCCESS) {
        if (job->io_err)
            return exr_read_failure(job, rv);
        return clv__io_fail(rv == EXR_ERR_OUT_OF_MEMORY ? CLV_ERROR_OUT_OF_MEMORY
                                                        : CLV_ERROR_FORMAT,
                            "exr: '%s' is not a readable OpenEXR file: %s", job->path,
                            exr_message(rv));
    }

    exr_storage_t storage;
    exr_attr_box2i_t dw;
    const exr_attr_chlist_t *chl = NULL;
    rv = exr_get_storage(job->ctxt, 0, &storage);
    if (rv == EXR_ERR_SUCCESS)
        rv = exr_get_data_window(job->ctxt, 0, &dw);
    if (rv == EXR_ERR_SUCCESS)
        rv = exr_get_channels(job->ctxt, 0, &chl);
    if (rv == EXR_ERR_SUCCESS && !chl)
        rv = EXR_ERR_MISSING_REQ_ATTR;
    if (rv != EXR_ERR_SUCCESS)
        return exr_read_failure(job, rv);
    if (storage != EXR_STORAGE_SCANLINE && storage != EXR_STORAGE_TILED)
        return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                            "exr: cannot read '%s': deep images are not supported", job->path);

    int channels = 0;
    clv_status status = choose_channels(job, chl, &channels);
    if (status != CLV_OK)
        return status;

    /* OpenEXR 3.1.5's C decoder returns scrambled pixels for B44/B44A parts
     * holding FLOAT or UINT channels (B44 only compresses HALF; checked
     * against the C++ library). Refuse rather than return wrong data; lift
     * this once a newer library has been checked. */
    rv = exr_get_compression(job->ctxt, 0, &job->compression);
    if (rv != EXR_ERR_SUCCESS)
        return exr_read_failure(job, rv);
    if (job->compression == EXR_COMPRESSION_B44 || job->compression == EXR_COMPRESSION_B44A)
        for (int c = 0; c < chl->num_channels; c++)
            if (chl->entries[c].pixel_type != EXR_PIXEL_HALF)
                return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                                    "exr: cannot read '%s': B44 compression with non-HALF "
                                    "channels is not supported (OpenEXR's C decoder gets them "
                                    "wrong)",
                                    job->path);

    int64_t w = (int64_t)dw.max.x - dw.min.x + 1, h = (int64_t)dw.max.y - dw.min.y + 1;
    if (w < 1 || h < 1)
        return clv__io_fail(CLV_ERROR_FORMAT, "exr: '%s' has an empty data window (%lldx%lld)",
                            job->path, (long long)w, (long long)h);
    job->x_min = dw.min.x;
    job->y_min = dw.min.y;
    /* Checks the pixel limit before the one large allocation. */
    status = clv__io_alloc_for_read(&job->img, "exr", job->path, (unsigned long)w,
                                    (unsigned long)h, channels, CLV_F32);
    if (status != CLV_OK)
        return status;
    return storage == EXR_STORAGE_TILED ? read_tiles(job) : read_scanlines(job);
}

clv_status clv__exr_read_stream(FILE *fp, const char *path, clv_host_image *out)
{
    memset(out, 0, sizeof *out);
    exr_read_job job;
    memset(&job, 0, sizeof job);
    job.fd = fileno(fp);
    job.path = path;
    if (job.fd < 0)
        return clv__io_fail_errno(CLV_ERROR_IO, errno, "exr: cannot read '%s'", path);

    exr_msg_reset();
    clv_status status = exr_read_run(&job);

    if (job.dec_ready)
        (void)exr_decoding_destroy(job.ctxt, &job.dec);
    if (job.ctxt)
        (void)exr_finish(&job.ctxt); /* read-only: nothing to lose */
    free(job.map);
    free(job.raw);
    if (status == CLV_OK)
        *out = job.img;
    else
        clv_host_image_free(&job.img);
    return status;
}

CLV_API clv_status clv_exr_read(const char *path, clv_host_image *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!path || !out)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "exr: read: path and out must not be NULL");
    FILE *fp;
    clv_status status = clv__io_open_read("exr", path, &fp);
    if (status != CLV_OK)
        return status;
    status = clv__exr_read_stream(fp, path, out);
    fclose(fp); /* read-only: nothing to lose */
    return status;
}

/* ---- writing ---- */

typedef struct exr_write_job {
    FILE *fp;
    const char *path;
    int io_err; /* errno of a failed seek/write, 0 if none */
} exr_write_job;

static int64_t on_write(exr_const_context_t ctxt, void *user, const void *buffer, uint64_t size,
                        uint64_t offset, exr_stream_error_func_ptr_t error_cb)
{
    exr_write_job *job = user;
    errno = 0;
    if (size > (uint64_t)INT64_MAX || offset > (uint64_t)INT64_MAX - size ||
        fseeko(job->fp, (off_t)offset, SEEK_SET) != 0 ||
        fwrite(buffer, 1, (size_t)size, job->fp) != size) {
        job->io_err = errno ? errno : EIO;
        error_cb(ctxt, EXR_ERR_WRITE_IO, "write failed");
        return -1;
    }
    return (int64_t)size;
}

static const char *const channel_names[5][4] = {
    {NULL}, {"Y"}, {NULL}, {"R", "G", "B"}, {"R", "G", "B", "A"},
};

/* Output channel index of a channel named by the library, -1 if unknown. */
static int channel_index(const char *name, int channels)
{
    for (int k = 0; k < channels; k++)
        if (name && strcmp(name, channel_names[channels][k]) == 0)
            return k;
    return -1;
}

static exr_result_t exr_write_chunks(exr_context_t ctxt, const clv_host_image *img,
                                     exr_encode_pipeline_t *enc, int *enc_ready)
{
    int part = 0;
    exr_result_t rv = exr_add_part(ctxt, NULL, EXR_STORAGE_SCANLINE, &part);
    if (rv == EXR_ERR_SUCCESS)
        rv = exr_initialize_required_attr_simple(ctxt, part, img->width, img->height,
                                                  EXR_COMPRESSION_ZIP);
    for (int k = 0; k < img->channels && rv == EXR_ERR_SUCCESS; k++)
        rv = exr_add_channel(ctxt, part, channel_names[img->channels][k], EXR_PIXEL_FLOAT,
                             EXR_PERCEPTUALLY_LOGARITHMIC, 1, 1);
    if (rv == EXR_ERR_SUCCESS)
        rv = exr_write_header(ctxt);
    int32_t per_chunk = 0;
    if (rv == EXR_ERR_SUCCESS)
        rv = exr_get_scanlines_per_chunk(ctxt, part, &per_chunk);
    if (rv == EXR_ERR_SUCCESS && per_chunk < 1)
        rv = EXR_ERR_INVALID_ATTR;

    for (int y = 0; y < img->height && rv == EXR_ERR_SUCCESS; y += per_chunk) {
        exr_chunk_info_t cinfo;
        rv = exr_write_scanline_chunk_info(ctxt, part, y, &cinfo);
        if (rv != EXR_ERR_SUCCESS)
            break;
        if (cinfo.start_y != y || cinfo.height < 1 || cinfo.height > img->height - y)
            return EXR_ERR_INVALID_ARGUMENT;
        if (!*enc_ready) {
            rv = exr_encoding_initialize(ctxt, part, &cinfo, enc);
            if (rv != EXR_ERR_SUCCESS)
                break;
            *enc_ready = 1;
        } else {
            rv = exr_encoding_update(ctxt, part, &cinfo, enc);
            if (rv != EXR_ERR_SUCCESS)
                break;
        }
        /* One pointer per channel into the interleaved rows. */
        const uint8_t *rows = (const uint8_t *)img->data + (size_t)y * img->stride;
        for (int c = 0; c < enc->channel_count; c++) {
            exr_coding_channel_info_t *ch = &enc->channels[c];
            int k = channel_index(ch->channel_name, img->channels);
            if (k < 0)
                return EXR_ERR_INVALID_ARGUMENT;
            ch->encode_from_ptr = rows + (size_t)k * sizeof(float);
            ch->user_pixel_stride = img->channels * (int32_t)sizeof(float);
            ch->user_line_stride = (int32_t)img->stride;
            ch->user_bytes_per_element = (int16_t)sizeof(float);
            ch->user_data_type = EXR_PIXEL_FLOAT;
        }
        if (y == 0)
            rv = exr_encoding_choose_default_routines(ctxt, part, enc);
        if (rv == EXR_ERR_SUCCESS)
            rv = exr_encoding_run(ctxt, part, enc);
    }
    return rv;
}

static clv_status exr_write_file(FILE *fp, const char *path, const void *user) CLV_WUR;
static clv_status exr_write_file(FILE *fp, const char *path, const void *user)
{
    const clv_host_image *img = user;
    exr_write_job job = {fp, path, 0};
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.error_handler_fn = on_exr_error;
    init.user_data = &job;
    init.write_fn = on_write;

    exr_msg_reset();
    exr_context_t ctxt = NULL;
    exr_encode_pipeline_t enc = EXR_ENCODE_PIPELINE_INITIALIZER;
    int enc_ready = 0;
    /* With our write function the library creates no file of its own. */
    exr_result_t rv = exr_start_write(&ctxt, path, EXR_WRITE_FILE_DIRECTLY, &init);
    if (rv == EXR_ERR_SUCCESS)
        rv = exr_write_chunks(ctxt, img, &enc, &enc_ready);
    if (enc_ready)
        (void)exr_encoding_destroy(ctxt, &enc);
    if (ctxt) {
        /* Writes the chunk offset table: its result counts. */
        exr_result_t frv = exr_finish(&ctxt);
        if (rv == EXR_ERR_SUCCESS)
            rv = frv;
    }
    if (rv == EXR_ERR_SUCCESS)
        return CLV_OK;
    if (job.io_err)
        return clv__io_fail_errno(CLV_ERROR_IO, job.io_err, "exr: cannot write '%s'", path);
    if (rv == EXR_ERR_OUT_OF_MEMORY)
        return clv__io_fail(CLV_ERROR_OUT_OF_MEMORY, "exr: writing '%s': %s", path,
                            exr_message(rv));
    return clv__io_fail(CLV_ERROR_IO, "exr: cannot write '%s': OpenEXR: %s", path,
                        exr_message(rv));
}

CLV_API clv_status clv_exr_write(const char *path, const clv_host_image *img)
{
    if (!path)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "exr: write: path must not be NULL");
    size_t row_bytes = 0;
    clv_status status = clv__io_check_host_image(img, "exr", path, &row_bytes);
    if (status != CLV_OK)
        return status;
    if (img->type != CLV_F32)
        return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                            "exr: cannot write '%s': clvision writes f32 EXR files, not %s "
                            "(convert with clv_host_image_to_f32())",
                            path, img->type == CLV_U8 ? "u8" : "u16");
    if (img->stride > INT32_MAX)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            "exr: writing '%s': stride %zu is too large for OpenEXR", path,
                            img->stride);
    return clv__io_write_atomic(path, "exr", exr_write_file, img);
}

#endif /* CLV_HAVE_OPENEXR */

CLV_API int clv_io_has_exr(void)
{
#ifdef CLV_HAVE_OPENEXR
    return 1;
#else
    return 0;
#endif
}
