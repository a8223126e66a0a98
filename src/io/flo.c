/* clvision — Middlebury .flo optical flow files, read and written here.
 *
 * Layout (all little-endian): the float 202021.25, whose bytes spell "PIEH";
 * int32 width; int32 height; then height rows of width (u, v) float pairs.
 * Bytes are assembled and split with shifts, so the code is the same on
 * little- and big-endian hosts. Bytes after the last row are ignored.
 *
 * The images are 2-channel f32 (u, v), which the generic host-image helpers
 * (channels 1/3/4) do not take, so this file does its own size checks and
 * allocation, with the same rules and limit as the other readers: sides in
 * 1..CLV_MAX_DIMENSION, at most clv_io_max_pixels() pixels, checked from the
 * header (and, for regular files, against the file size) before anything
 * image-sized is allocated.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <clvision/flow.h>

#include "io/io_internal.h"

#define FLO "flo"
#define FLO_HEADER_BYTES 12u
#define FLO_PIXEL_BYTES 8u

static const unsigned char flo_tag[4] = {'P', 'I', 'E', 'H'}; /* 202021.25f, little-endian */

static uint32_t get_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* A read came up short: an I/O error (err: errno right after it) or the end
 * of the file. */
static clv_status flo_short(FILE *fp, int err, const char *path, const char *where)
{
    if (ferror(fp))
        return clv__io_fail_errno(CLV_ERROR_IO, err ? err : EIO, FLO ": cannot read '%s'", path);
    return clv__io_fail(CLV_ERROR_FORMAT, FLO ": '%s' is truncated (%s)", path, where);
}

/* Refuse sizes no reader accepts, before allocating (same rules and statuses
 * as clv__io_alloc_for_read). */
static clv_status check_size(const char *path, int32_t w, int32_t h)
{
    if (w < 1 || h < 1)
        return clv__io_fail(CLV_ERROR_FORMAT,
                            FLO ": '%s': bad size %ldx%ld in the header (not a flow file, or "
                            "corrupt)",
                            path, (long)w, (long)h);
    if (w > CLV_MAX_DIMENSION || h > CLV_MAX_DIMENSION)
        return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                            FLO ": '%s' is %ldx%ld pixels; clvision images are at most %d pixels "
                            "per side",
                            path, (long)w, (long)h, CLV_MAX_DIMENSION);
    uint64_t pixels = (uint64_t)w * (uint64_t)h;
    size_t limit = clv_io_max_pixels();
    if (pixels > (uint64_t)limit)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            FLO ": '%s' is %ldx%ld = %llu pixels, more than the limit of %zu "
                            "(raise it with clv_io_set_max_pixels())",
                            path, (long)w, (long)h, (unsigned long long)pixels, limit);
    return CLV_OK;
}

static clv_status flo_read_stream(FILE *fp, const char *path, clv_host_image *out)
{
    unsigned char hdr[FLO_HEADER_BYTES];
    errno = 0;
    size_t n = fread(hdr, 1, sizeof hdr, fp);
    if (n == 0 && !ferror(fp))
        return clv__io_fail(CLV_ERROR_FORMAT, FLO ": '%s' is empty", path);
    if (n >= sizeof flo_tag && memcmp(hdr, flo_tag, sizeof flo_tag) != 0)
        return clv__io_fail(CLV_ERROR_FORMAT,
                            FLO ": '%s' is not a Middlebury flow file (starts with %02x %02x "
                            "%02x %02x, not \"PIEH\")",
                            path, hdr[0], hdr[1], hdr[2], hdr[3]);
    if (n < sizeof hdr)
        return flo_short(fp, errno, path, "header");

    const int32_t w = (int32_t)get_le32(hdr + 4), h = (int32_t)get_le32(hdr + 8);
    clv_status status = check_size(path, w, h);
    if (status != CLV_OK)
        return status;
    const size_t row_bytes = (size_t)w * FLO_PIXEL_BYTES;
    const uint64_t need = FLO_HEADER_BYTES + (uint64_t)row_bytes * (uint64_t)h;

    /* A regular file too short for its header's size is refused before the
     * allocation (a 12-byte file claiming 16384 x 16384 costs nothing). */
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size < need)
        return clv__io_fail(CLV_ERROR_FORMAT,
                            FLO ": '%s' is truncated: %ldx%ld flow needs %llu bytes, the file "
                            "has %llu",
                            path, (long)w, (long)h, (unsigned long long)need,
                            (unsigned long long)st.st_size);

    float *data = malloc(row_bytes * (size_t)h);
    if (!data)
        return clv__io_fail(CLV_ERROR_OUT_OF_MEMORY,
                            FLO ": reading '%s': cannot allocate %zu bytes for %ldx%ld flow",
                            path, row_bytes * (size_t)h, (long)w, (long)h);
    unsigned char *bytes = (unsigned char *)data;
    const size_t values = (size_t)w * 2;
    for (int32_t y = 0; y < h; y++) {
        unsigned char *row = bytes + (size_t)y * row_bytes;
        errno = 0;
        if (fread(row, 1, row_bytes, fp) != row_bytes) {
            const int err = errno;
            char where[64];
            snprintf(where, sizeof where, "flow data ends in row %ld of %ld", (long)y, (long)h);
            status = flo_short(fp, err, path, where);
            free(data);
            return status;
        }
        /* In place: value i is read from bytes 4i..4i+3 before being stored there. */
        float *f = (float *)row;
        for (size_t i = 0; i < values; i++) {
            uint32_t bits = get_le32(row + 4 * i);
            memcpy(&f[i], &bits, sizeof bits);
        }
    }
    out->width = (int)w;
    out->height = (int)h;
    out->channels = 2;
    out->type = CLV_F32;
    out->stride = row_bytes;
    out->data = data;
    return CLV_OK;
}

CLV_API clv_status clv_flo_read(const char *path, clv_host_image *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!path || !out)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, FLO ": read: path and out must not be "
                                                        "NULL");
    FILE *fp;
    clv_status status = clv__io_open_read(FLO, path, &fp);
    if (status != CLV_OK)
        return status;
    status = flo_read_stream(fp, path, out);
    fclose(fp); /* read-only: nothing to lose */
    return status;
}

/* ---- writing ---- */

static clv_status flo_write_file(FILE *fp, const char *path, const void *user) CLV_WUR;
static clv_status flo_write_file(FILE *fp, const char *path, const void *user)
{
    const clv_host_image *img = user;
    unsigned char hdr[FLO_HEADER_BYTES];
    memcpy(hdr, flo_tag, sizeof flo_tag);
    put_le32(hdr + 4, (uint32_t)img->width);
    put_le32(hdr + 8, (uint32_t)img->height);
    errno = 0;
    if (fwrite(hdr, 1, sizeof hdr, fp) != sizeof hdr)
        return clv__io_fail_errno(CLV_ERROR_IO, errno, FLO ": cannot write '%s'", path);

    const size_t values = (size_t)img->width * 2, row_bytes = values * 4;
    unsigned char *buf = malloc(row_bytes);
    if (!buf)
        return clv__io_fail(CLV_ERROR_OUT_OF_MEMORY, FLO ": writing '%s': out of memory", path);
    clv_status status = CLV_OK;
    for (int y = 0; y < img->height && status == CLV_OK; y++) {
        const unsigned char *row = (const unsigned char *)img->data + (size_t)y * img->stride;
        for (size_t i = 0; i < values; i++) {
            float f;
            uint32_t bits;
            memcpy(&f, row + 4 * i, sizeof f);
            memcpy(&bits, &f, sizeof bits);
            put_le32(buf + 4 * i, bits);
        }
        errno = 0;
        if (fwrite(buf, 1, row_bytes, fp) != row_bytes)
            status = clv__io_fail_errno(CLV_ERROR_IO, errno, FLO ": cannot write '%s'", path);
    }
    free(buf);
    return status;
}

CLV_API clv_status clv_flo_write(const char *path, const clv_host_image *flow)
{
    if (!path)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, FLO ": write: path must not be NULL");
    if (!flow)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, FLO ": writing '%s': flow is NULL", path);
    if (!flow->data)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, FLO ": writing '%s': flow data is NULL",
                            path);
    if (flow->channels != 2 || flow->type != CLV_F32)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            FLO ": writing '%s': a flow field is 2-channel f32 (u, v), not %d "
                            "channel(s) of type %d",
                            path, flow->channels, (int)flow->type);
    if (flow->width < 1 || flow->width > CLV_MAX_DIMENSION || flow->height < 1 ||
        flow->height > CLV_MAX_DIMENSION)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            FLO ": writing '%s': size %dx%d is outside 1..%d per side", path,
                            flow->width, flow->height, CLV_MAX_DIMENSION);
    const size_t row_bytes = (size_t)flow->width * FLO_PIXEL_BYTES;
    if (flow->stride < row_bytes)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            FLO ": writing '%s': stride %zu is smaller than a row (%zu bytes)",
                            path, flow->stride, row_bytes);
    if (!clv__io_stride_fits(flow->stride, row_bytes, flow->height))
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            FLO ": writing '%s': stride %zu over %d rows overflows the address "
                            "space",
                            path, flow->stride, flow->height);
    return clv__io_write_atomic(path, FLO, flo_write_file, flow);
}
