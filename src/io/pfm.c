/* clvision — PFM (portable float map) files, read and written here.
 *
 * Header: "PF" (RGB) or "Pf" (gray), whitespace, width, whitespace, height,
 * whitespace, scale, and exactly one whitespace character before the
 * samples. The sign of the scale gives the byte order of the 32-bit floats
 * (negative: little-endian, positive: big-endian); its magnitude is not
 * applied (pixels come back as stored). Rows are stored bottom to top; they
 * come back top to bottom. The scale is checked as a decimal number without
 * strtod, so the C locale of the process does not matter. Bytes after the
 * last row are ignored.
 *
 * Writing: f32 with 1 or 3 channels (PFM has no alpha: 4 is
 * CLV_ERROR_UNSUPPORTED), host byte order, every value bit-exact.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/io_internal.h"

#define PFM_MAX_TOKEN 64

static int is_space(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

typedef struct pfm_in {
    FILE *fp;
    const char *path;
    int io_err;
} pfm_in;

static int next_char(pfm_in *in)
{
    errno = 0;
    int c = getc(in->fp);
    if (c == EOF && ferror(in->fp))
        in->io_err = errno ? errno : EIO;
    return c;
}

static clv_status pfm_short(const pfm_in *in, const char *where)
{
    if (in->io_err)
        return clv__io_fail_errno(CLV_ERROR_IO, in->io_err, "pfm: cannot read '%s'", in->path);
    return clv__io_fail(CLV_ERROR_FORMAT, "pfm: '%s' is truncated (%s)", in->path, where);
}

/* Skip whitespace, then read a token up to (and consuming) the whitespace
 * character after it. Returns its length, 0 at the end of the file, -1 when
 * longer than PFM_MAX_TOKEN - 1. */
static int read_token(pfm_in *in, char tok[PFM_MAX_TOKEN])
{
    int c;
    do
        c = next_char(in);
    while (c != EOF && is_space(c));
    int n = 0;
    while (c != EOF && !is_space(c)) {
        if (n == PFM_MAX_TOKEN - 1)
            return -1;
        tok[n++] = (char)c;
        c = next_char(in);
    }
    tok[n] = '\0';
    if (c == EOF) /* the token must be followed by whitespace */
        return 0;
    return n;
}

/* Decimal digits only, saturating far above any size limit (the messages
 * about sizes quote the header's text, not this value). */
static int parse_size(const char *tok, unsigned long *v)
{
    if (!*tok)
        return 0;
    unsigned long x = 0;
    for (const char *p = tok; *p; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        x = x > 100000000ul ? 1000000000ul : x * 10 + (unsigned long)(*p - '0');
    }
    *v = x;
    return 1;
}

/* A decimal number [+-]digits[.digits][(e|E)[+-]digits]: 1 and its sign in
 * *negative when valid and non-zero, 0 otherwise. */
static int parse_scale(const char *tok, int *negative, int *zero)
{
    const char *p = tok;
    *negative = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    int digits = 0, nonzero = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++)
        nonzero |= *p != '0';
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, digits++)
            nonzero |= *p != '0';
    if (digits == 0)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '-' || *p == '+')
            p++;
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    *zero = !nonzero;
    return *p == '\0';
}

static void swap32(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++, p += 4) {
        unsigned char t = p[0];
        p[0] = p[3];
        p[3] = t;
        t = p[1];
        p[1] = p[2];
        p[2] = t;
    }
}

clv_status clv__pfm_read_stream(FILE *fp, const char *path, clv_host_image *out)
{
    memset(out, 0, sizeof *out);
    pfm_in in = {fp, path, 0};

    int c0 = next_char(&in), c1 = next_char(&in), c2 = next_char(&in);
    if (c0 == EOF && !in.io_err)
        return clv__io_fail(CLV_ERROR_FORMAT, "pfm: '%s' is empty", path);
    if (in.io_err)
        return pfm_short(&in, "header");
    if (c0 != 'P' || (c1 != 'F' && c1 != 'f') || c2 == EOF || !is_space(c2))
        return clv__io_fail(CLV_ERROR_FORMAT, "pfm: '%s' is not a PFM file (no PF or Pf header)",
                            path);
    int channels = c1 == 'F' ? 3 : 1;

    char tok[3][PFM_MAX_TOKEN];
    static const char *const what[3] = {"width", "height", "scale"};
    for (int i = 0; i < 3; i++) {
        int n = read_token(&in, tok[i]);
        if (n == 0)
            return pfm_short(&in, "header");
        if (n < 0)
            return clv__io_fail(CLV_ERROR_FORMAT, "pfm: '%s': header %s is too long", path,
                                what[i]);
    }
    unsigned long w = 0, h = 0;
    int negative = 0, zero = 0;
    char shown[3][PFM_MAX_TOKEN];
    for (int i = 0; i < 3; i++)
        clv__io_printable(shown[i], sizeof shown[i], tok[i]);
    if (!parse_size(tok[0], &w) || !parse_size(tok[1], &h))
        return clv__io_fail(CLV_ERROR_FORMAT, "pfm: '%s': bad size '%s %s'", path, shown[0],
                            shown[1]);
    if (!parse_scale(tok[2], &negative, &zero) || zero)
        return clv__io_fail(CLV_ERROR_FORMAT, "pfm: '%s': bad scale '%s' (a non-zero number)",
                            path, shown[2]);

    /* Sizes and the pixel limit, then (for a regular file) the length the
     * header promises, all before the one large allocation: a 20-byte file
     * claiming 16384 x 16384 is refused without allocating 3 GiB. */
    /* Too large a side is reported as the header writes it: the parsed
     * value saturates. */
    if (w > CLV_MAX_DIMENSION || h > CLV_MAX_DIMENSION)
        return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                            "pfm: '%s' is %sx%s pixels; clvision images are at most %d pixels "
                            "per side",
                            path, shown[0], shown[1], CLV_MAX_DIMENSION);
    clv_status status = clv__io_check_read_size("pfm", path, w, h);
    if (status != CLV_OK)
        return status;
    const uint64_t need = (uint64_t)w * h * (uint64_t)channels * 4u;
    struct stat st;
    long here = ftell(fp);
    if (here >= 0 && fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) &&
        (uint64_t)st.st_size < (uint64_t)here + need)
        return clv__io_fail(CLV_ERROR_FORMAT,
                            "pfm: '%s' is truncated: %lux%lu %s needs %llu bytes of pixels, the "
                            "file has %llu after its header",
                            path, w, h, channels == 3 ? "RGB" : "gray",
                            (unsigned long long)need,
                            (unsigned long long)((uint64_t)st.st_size - (uint64_t)here));
    clv_host_image img;
    status = clv__io_alloc_for_read(&img, "pfm", path, w, h, channels, CLV_F32);
    if (status != CLV_OK)
        return status;

    int swap = negative != clv__io_host_is_little_endian();
    size_t row_values = (size_t)img.width * (size_t)channels;
    for (int i = 0; i < img.height; i++) {
        /* Row i of the file is row height-1-i of the image. */
        unsigned char *row = (unsigned char *)img.data + (size_t)(img.height - 1 - i) * img.stride;
        errno = 0;
        if (fread(row, 4, row_values, fp) != row_values) {
            if (ferror(fp))
                in.io_err = errno ? errno : EIO;
            char where[64];
            snprintf(where, sizeof where, "pixel data ends in row %d of %d", i, img.height);
            status = pfm_short(&in, where);
            clv_host_image_free(&img);
            return status;
        }
        if (swap)
            swap32(row, row_values);
    }
    *out = img;
    return CLV_OK;
}

CLV_API clv_status clv_pfm_read(const char *path, clv_host_image *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!path || !out)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "pfm: read: path and out must not be NULL");
    FILE *fp;
    clv_status status = clv__io_open_read("pfm", path, &fp);
    if (status != CLV_OK)
        return status;
    status = clv__pfm_read_stream(fp, path, out);
    fclose(fp); /* read-only: nothing to lose */
    return status;
}

/* ---- writing ---- */

static clv_status pfm_write_file(FILE *fp, const char *path, const void *user) CLV_WUR;
static clv_status pfm_write_file(FILE *fp, const char *path, const void *user)
{
    const clv_host_image *img = user;
    size_t row_values = (size_t)img->width * (size_t)img->channels;
    errno = 0;
    /* Host byte order: "-1.0" says little-endian, "1.0" big-endian. */
    if (fprintf(fp, "%s\n%d %d\n%s\n", img->channels == 3 ? "PF" : "Pf", img->width,
                img->height, clv__io_host_is_little_endian() ? "-1.0" : "1.0") < 0)
        return clv__io_fail_errno(CLV_ERROR_IO, errno, "pfm: cannot write '%s'", path);
    for (int y = img->height - 1; y >= 0; y--) {
        const unsigned char *row = (const unsigned char *)img->data + (size_t)y * img->stride;
        errno = 0;
        if (fwrite(row, 4, row_values, fp) != row_values)
            return clv__io_fail_errno(CLV_ERROR_IO, errno, "pfm: cannot write '%s'", path);
    }
    return CLV_OK;
}

CLV_API clv_status clv_pfm_write(const char *path, const clv_host_image *img)
{
    if (!path)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "pfm: write: path must not be NULL");
    size_t row_bytes = 0;
    clv_status status = clv__io_check_host_image(img, "pfm", path, &row_bytes);
    if (status != CLV_OK)
        return status;
    if (img->type != CLV_F32)
        return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                            "pfm: cannot write '%s': PFM holds f32 samples, not %s (convert with "
                            "clv_host_image_to_f32())",
                            path, img->type == CLV_U8 ? "u8" : "u16");
    if (img->channels == 4)
        return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                            "pfm: cannot write '%s': PFM has 1 or 3 channels, not 4", path);
    return clv__io_write_atomic(path, "pfm", pfm_write_file, img);
}
