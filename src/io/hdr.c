/* clvision — Radiance RGBE files (.hdr, .pic), read and written here.
 *
 * Header: "#?RADIANCE" or "#?RGBE", then variable lines up to a blank line;
 * lines end in LF or CRLF (the '\r' is dropped from every header line).
 * FORMAT=32-bit_rle_rgbe is required when present (XYZE is refused). Other
 * variables are ignored; in particular EXPOSURE= is not applied: pixels come
 * back as stored (what stb_image and OpenCV return too), so a file whose
 * EXPOSURE is not 1 holds radiance times that exposure. The resolution line
 * must be "-Y <height> +X <width>" (rows top to bottom, pixels left to
 * right); the seven other orientations are refused as unsupported.
 *
 * Scanlines: new-style run-length encoding (2, 2, width/256, width%256, then
 * the four components one after the other, each as runs and literal
 * blocks) for widths 8..32767, otherwise flat pixels with old-style runs
 * (1, 1, 1, n repeats the previous pixel n << shift times). Every count is
 * checked against the room left in the scanline; a file that ends early or
 * whose runs overflow a scanline is CLV_ERROR_FORMAT.
 *
 * Pixels: mantissa * 2^(exponent - 136), exponent 0 meaning black (Greg
 * Ward's rgbe.c, stb_image and OpenCV decode the same way, without a half
 * step added). Output is 3-channel f32.
 *
 * Writing: f32 with 1 (replicated to R=G=B) or 3 channels, new-style RLE
 * (flat scanlines where the format requires them). Mantissas are rounded to
 * nearest, so each component is within 2^-8 (about 0.4%) of the pixel's
 * largest component, relative to that component: the format's own bound
 * (8 mantissa bits per component under one shared exponent). RGBE holds no negative
 * numbers: negative values and NaN are written as 0, values above about
 * 1.7e38 and +Inf as the largest RGBE value.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io_internal.h"

#define HDR_MAX_HEADER (64 * 1024) /* bytes before the resolution line */
#define HDR_MAX_LINE 4096
#define HDR_RLE_MIN_WIDTH 8
#define HDR_RLE_MAX_WIDTH 0x7FFF

/* ---- buffered input ---- */

typedef struct hdr_in {
    FILE *fp;
    const char *path;
    unsigned char buf[16384];
    size_t pos, len;
    int io_err; /* errno of a failed fread, 0 if none */
    int eof;
} hdr_in;

static int in_fill(hdr_in *in)
{
    if (in->eof || in->io_err)
        return 0;
    errno = 0;
    in->len = fread(in->buf, 1, sizeof in->buf, in->fp);
    in->pos = 0;
    if (in->len == 0) {
        if (ferror(in->fp))
            in->io_err = errno ? errno : EIO;
        else
            in->eof = 1;
        return 0;
    }
    return 1;
}

/* Next byte, or -1 at the end of the file or on a read error. */
static int in_byte(hdr_in *in)
{
    if (in->pos == in->len && !in_fill(in))
        return -1;
    return in->buf[in->pos++];
}

static int in_bytes(hdr_in *in, unsigned char *dst, size_t n)
{
    while (n > 0) {
        if (in->pos == in->len && !in_fill(in))
            return 0;
        size_t k = in->len - in->pos < n ? in->len - in->pos : n;
        memcpy(dst, in->buf + in->pos, k);
        in->pos += k;
        dst += k;
        n -= k;
    }
    return 1;
}

/* Status for input that ended early (or could not be read). */
static clv_status in_short(const hdr_in *in, const char *where)
{
    if (in->io_err)
        return clv__io_fail_errno(CLV_ERROR_IO, in->io_err, "hdr: cannot read '%s'", in->path);
    return clv__io_fail(CLV_ERROR_FORMAT, "hdr: '%s' is truncated (%s)", in->path, where);
}

/* One line without its '\n' (nor the '\r' of a CRLF ending) into line[cap].
 * Returns its length, -1 at the end of the input (nothing read or no '\n'),
 * -2 when longer than cap - 1. */
static long in_line(hdr_in *in, char *line, size_t cap, size_t *consumed)
{
    size_t n = 0;
    for (;;) {
        int c = in_byte(in);
        if (c < 0)
            return -1;
        (*consumed)++;
        if (c == '\n')
            break;
        if (n + 1 >= cap)
            return -2;
        line[n++] = (char)c;
    }
    if (n > 0 && line[n - 1] == '\r') /* CRLF line endings (Windows tools) */
        n--;
    line[n] = '\0';
    return (long)n;
}

/* ---- header ---- */

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Digits of a resolution line into *v (saturating far above any limit) and,
 * as written, into text[HDR_COUNT_TEXT] (cut with "..." when longer), so a
 * size message quotes the file rather than the saturated value; returns the
 * position after them or NULL when there are none. */
#define HDR_COUNT_TEXT 24
static const char *parse_count(const char *p, unsigned long *v, char *text)
{
    if (*p < '0' || *p > '9')
        return NULL;
    unsigned long x = 0;
    size_t n = 0;
    for (; *p >= '0' && *p <= '9'; p++, n++) {
        x = x > 100000000ul ? 1000000000ul : x * 10 + (unsigned long)(*p - '0');
        if (n < HDR_COUNT_TEXT - 4)
            text[n] = *p;
    }
    if (n >= HDR_COUNT_TEXT - 4) {
        memcpy(text + HDR_COUNT_TEXT - 4, "...", 3);
        n = HDR_COUNT_TEXT - 1;
    }
    text[n] = '\0';
    *v = x;
    return p;
}

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

/* "-Y H +X W": 1 when it is that, 0 when it is another valid orientation
 * (written to *orient), -1 when it is not a resolution line at all. */
static int parse_resolution(const char *line, unsigned long *w, unsigned long *h, char *orient,
                            size_t orient_cap, char (*text)[HDR_COUNT_TEXT])
{
    char sign[2], axis[2];
    unsigned long n[2];
    const char *p = skip_blanks(line);
    for (int i = 0; i < 2; i++) {
        if ((p[0] != '-' && p[0] != '+') || (p[1] != 'X' && p[1] != 'Y') ||
            (p[2] != ' ' && p[2] != '\t'))
            return -1;
        sign[i] = p[0];
        axis[i] = p[1];
        p = parse_count(skip_blanks(p + 2), &n[i], text[i]);
        if (!p)
            return -1;
        p = skip_blanks(p);
    }
    if (*p != '\0' || axis[0] == axis[1])
        return -1;
    if (sign[0] == '-' && axis[0] == 'Y' && sign[1] == '+' && axis[1] == 'X') {
        *h = n[0];
        *w = n[1];
        /* text[] as width, height */
        char t[HDR_COUNT_TEXT];
        memcpy(t, text[0], sizeof t);
        memcpy(text[0], text[1], sizeof t);
        memcpy(text[1], t, sizeof t);
        return 1;
    }
    snprintf(orient, orient_cap, "%c%c %c%c", sign[0], axis[0], sign[1], axis[1]);
    return 0;
}

static clv_status read_header(hdr_in *in, unsigned long *width, unsigned long *height)
{
    char line[HDR_MAX_LINE];
    size_t consumed = 0;
    long n = in_line(in, line, sizeof line, &consumed);
    if (n == -1 && !in->io_err && consumed == 0)
        return clv__io_fail(CLV_ERROR_FORMAT, "hdr: '%s' is empty", in->path);
    if (n < 0 && in->io_err)
        return in_short(in, "header");
    if (n < 0 || (strcmp(line, "#?RADIANCE") != 0 && strcmp(line, "#?RGBE") != 0))
        return clv__io_fail(CLV_ERROR_FORMAT,
                            "hdr: '%s' is not a Radiance HDR file (no #?RADIANCE or #?RGBE "
                            "line)",
                            in->path);

    /* Variables up to the blank line. */
    for (;;) {
        n = in_line(in, line, sizeof line, &consumed);
        if (n == -1)
            return in_short(in, "header has no blank line");
        if (n == -2)
            return clv__io_fail(CLV_ERROR_FORMAT, "hdr: '%s': header line longer than %d bytes",
                                in->path, HDR_MAX_LINE - 1);
        if (consumed > HDR_MAX_HEADER)
            return clv__io_fail(CLV_ERROR_FORMAT, "hdr: '%s': header longer than %d bytes",
                                in->path, HDR_MAX_HEADER);
        if (n == 0)
            break;
        if (starts_with(line, "FORMAT=")) {
            char *v = line + 7;
            size_t len = strlen(v);
            while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t' || v[len - 1] == '\r'))
                v[--len] = '\0';
            if (strcmp(v, "32-bit_rle_rgbe") != 0) {
                char shown[65];
                clv__io_printable(shown, sizeof shown, v);
                return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                                    "hdr: cannot read '%s': pixel format '%s' (only "
                                    "32-bit_rle_rgbe is supported)",
                                    in->path, shown);
            }
        }
        /* EXPOSURE=, GAMMA=, PRIMARIES=, SOFTWARE=, comments...: ignored. */
    }

    n = in_line(in, line, 128, &consumed);
    if (n == -1)
        return in_short(in, "no resolution line");
    char orient[8];
    char text[2][HDR_COUNT_TEXT];
    int r = n < 0 ? -1 : parse_resolution(line, width, height, orient, sizeof orient, text);
    if (r < 0) {
        char shown[41];
        clv__io_printable(shown, sizeof shown, n < 0 ? "(too long)" : line);
        return clv__io_fail(CLV_ERROR_FORMAT, "hdr: '%s': bad resolution line '%s'", in->path,
                            shown);
    }
    if (r == 0)
        return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                            "hdr: cannot read '%s': orientation '%s' (only -Y +X, rows from "
                            "the top, is supported)",
                            in->path, orient);
    /* Too large a side as the file writes it (the parsed value saturates). */
    if (*width > CLV_MAX_DIMENSION || *height > CLV_MAX_DIMENSION)
        return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                            "hdr: '%s' is %sx%s pixels; clvision images are at most %d pixels "
                            "per side",
                            in->path, text[0], text[1], CLV_MAX_DIMENSION);
    return CLV_OK;
}

/* ---- scanlines ---- */

/* One scanline of width RGBE pixels into line[4 * width]. */
static clv_status read_scanline(hdr_in *in, unsigned char *line, unsigned width, unsigned y)
{
    char where[64];
    snprintf(where, sizeof where, "in scanline %u", y);
    unsigned char px[4];
    if (!in_bytes(in, px, 4))
        return in_short(in, where);

    if (width >= HDR_RLE_MIN_WIDTH && width <= HDR_RLE_MAX_WIDTH && px[0] == 2 && px[1] == 2 &&
        !(px[2] & 0x80)) {
        /* New style: each component run-length encoded on its own. */
        unsigned len = (unsigned)px[2] << 8 | px[3];
        if (len != width)
            return clv__io_fail(CLV_ERROR_FORMAT,
                                "hdr: '%s': scanline %u announces width %u, image is %u",
                                in->path, y, len, width);
        for (unsigned c = 0; c < 4; c++) {
            unsigned x = 0;
            while (x < width) {
                int n = in_byte(in);
                if (n < 0)
                    return in_short(in, where);
                if (n > 128) {
                    unsigned run = (unsigned)n - 128;
                    int v = in_byte(in);
                    if (v < 0)
                        return in_short(in, where);
                    if (run > width - x)
                        return clv__io_fail(CLV_ERROR_FORMAT,
                                            "hdr: '%s': run of %u overflows scanline %u (%u "
                                            "pixels left)",
                                            in->path, run, y, width - x);
                    for (unsigned i = 0; i < run; i++)
                        line[4 * (x + i) + c] = (unsigned char)v;
                    x += run;
                } else {
                    unsigned count = (unsigned)n;
                    if (count == 0)
                        return clv__io_fail(CLV_ERROR_FORMAT,
                                            "hdr: '%s': zero-length block in scanline %u",
                                            in->path, y);
                    if (count > width - x)
                        return clv__io_fail(CLV_ERROR_FORMAT,
                                            "hdr: '%s': block of %u bytes overflows scanline %u "
                                            "(%u pixels left)",
                                            in->path, count, y, width - x);
                    for (unsigned i = 0; i < count; i++) {
                        int v = in_byte(in);
                        if (v < 0)
                            return in_short(in, where);
                        line[4 * (x + i) + c] = (unsigned char)v;
                    }
                    x += count;
                }
            }
        }
        return CLV_OK;
    }

    /* Flat pixels, with old-style runs. */
    unsigned x = 0, shift = 0;
    for (;;) {
        if (px[0] == 1 && px[1] == 1 && px[2] == 1) {
            if (x == 0)
                return clv__io_fail(CLV_ERROR_FORMAT,
                                    "hdr: '%s': scanline %u starts with a run (nothing to "
                                    "repeat)",
                                    in->path, y);
            uint64_t run = shift > 24 ? UINT64_MAX : (uint64_t)px[3] << shift;
            if (run > width - x)
                return clv__io_fail(CLV_ERROR_FORMAT,
                                    "hdr: '%s': old-style run overflows scanline %u (%u pixels "
                                    "left)",
                                    in->path, y, width - x);
            for (uint64_t i = 0; i < run; i++, x++)
                memcpy(line + 4 * x, line + 4 * (x - 1), 4);
            shift += 8;
        } else {
            memcpy(line + 4 * x, px, 4);
            x++;
            shift = 0;
        }
        if (x == width)
            return CLV_OK;
        if (!in_bytes(in, px, 4))
            return in_short(in, where);
    }
}

static void rgbe_to_float(const unsigned char *p, float *out)
{
    if (p[3] == 0) {
        out[0] = out[1] = out[2] = 0.0f;
        return;
    }
    float f = ldexpf(1.0f, (int)p[3] - 136);
    out[0] = (float)p[0] * f;
    out[1] = (float)p[1] * f;
    out[2] = (float)p[2] * f;
}

clv_status clv__hdr_read_stream(FILE *fp, const char *path, clv_host_image *out)
{
    memset(out, 0, sizeof *out);
    hdr_in *in = malloc(sizeof *in);
    if (!in)
        return clv__io_fail(CLV_ERROR_OUT_OF_MEMORY, "hdr: reading '%s': out of memory", path);
    memset(in, 0, sizeof *in);
    in->fp = fp;
    in->path = path;

    clv_host_image img;
    memset(&img, 0, sizeof img);
    unsigned char *line = NULL;
    unsigned long w = 0, h = 0;
    clv_status status = read_header(in, &w, &h);
    /* Checks the pixel limit before the large allocations. */
    if (status == CLV_OK)
        status = clv__io_alloc_for_read(&img, "hdr", path, w, h, 3, CLV_F32);
    if (status == CLV_OK) {
        line = malloc(4 * (size_t)img.width);
        if (!line)
            status = clv__io_fail(CLV_ERROR_OUT_OF_MEMORY, "hdr: reading '%s': out of memory",
                                  path);
    }
    for (int y = 0; status == CLV_OK && y < img.height; y++) {
        status = read_scanline(in, line, (unsigned)img.width, (unsigned)y);
        if (status != CLV_OK)
            break;
        float *row = (float *)((unsigned char *)img.data + (size_t)y * img.stride);
        for (int x = 0; x < img.width; x++)
            rgbe_to_float(line + 4 * (size_t)x, row + 3 * (size_t)x);
    }

    free(line);
    free(in);
    if (status == CLV_OK)
        *out = img;
    else
        clv_host_image_free(&img);
    return status;
}

CLV_API clv_status clv_hdr_read(const char *path, clv_host_image *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!path || !out)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "hdr: read: path and out must not be NULL");
    FILE *fp;
    clv_status status = clv__io_open_read("hdr", path, &fp);
    if (status != CLV_OK)
        return status;
    status = clv__hdr_read_stream(fp, path, out);
    fclose(fp); /* read-only: nothing to lose */
    return status;
}

/* ---- writing ---- */

/* Largest value RGBE holds: 255 * 2^(255 - 136). */
#define HDR_MAX_VALUE (255.0 * 0x1p119)

static double sanitize(float v)
{
    if (!(v > 0.0f)) /* negative, zero, NaN */
        return 0.0;
    return (double)v > HDR_MAX_VALUE ? HDR_MAX_VALUE : (double)v;
}

static void float_to_rgbe(float r, float g, float b, unsigned char *p)
{
    double c[3] = {sanitize(r), sanitize(g), sanitize(b)};
    double mx = c[0] > c[1] ? c[0] : c[1];
    mx = mx > c[2] ? mx : c[2];
    int e;
    (void)frexp(mx, &e); /* mx = f * 2^e, f in [0.5, 1) */
    if (mx == 0.0 || e + 128 < 1) {
        p[0] = p[1] = p[2] = p[3] = 0;
        return;
    }
    double scale = ldexp(1.0, 8 - e); /* mx * scale in [128, 256) */
    if (floor(mx * scale + 0.5) > 255.0) {
        e++; /* rounds up to 256: one more exponent step */
        scale = ldexp(1.0, 8 - e);
    }
    if (e + 128 > 255) { /* only reachable through rounding at the top */
        p[0] = p[1] = p[2] = 255;
        p[3] = 255;
        return;
    }
    for (int k = 0; k < 3; k++) {
        double m = floor(c[k] * scale + 0.5);
        p[k] = (unsigned char)(m > 255.0 ? 255.0 : m);
    }
    p[3] = (unsigned char)(e + 128);
}

/* Run-length encode n bytes (runs of 4..127 equal bytes, literal blocks of
 * up to 128) into out; returns the encoded size (at most n + n/128 + 1). */
static size_t rle_encode(const unsigned char *data, size_t n, unsigned char *out)
{
    size_t o = 0, x = 0;
    while (x < n) {
        size_t run = 1;
        while (x + run < n && run < 127 && data[x + run] == data[x])
            run++;
        if (run >= 4) {
            out[o++] = (unsigned char)(128 + run);
            out[o++] = data[x];
            x += run;
            continue;
        }
        size_t start = x, len = 0;
        while (x < n && len < 128) {
            size_t r = 1;
            while (x + r < n && r < 4 && data[x + r] == data[x])
                r++;
            if (r >= 4)
                break;
            x++;
            len++;
        }
        out[o++] = (unsigned char)len;
        memcpy(out + o, data + start, len);
        o += len;
    }
    return o;
}

static clv_status hdr_write_file(FILE *fp, const char *path, const void *user) CLV_WUR;
static clv_status hdr_write_file(FILE *fp, const char *path, const void *user)
{
    const clv_host_image *img = user;
    size_t w = (size_t)img->width;
    int rle = img->width >= HDR_RLE_MIN_WIDTH && img->width <= HDR_RLE_MAX_WIDTH;
    /* One RGBE scanline, one component, and the encoded scanline. */
    unsigned char *px = malloc(4 * w);
    unsigned char *comp = malloc(w);
    unsigned char *enc = malloc(4 + 4 * (w + w / 128 + 1));
    clv_status status = CLV_OK;
    if (!px || !comp || !enc) {
        status = clv__io_fail(CLV_ERROR_OUT_OF_MEMORY, "hdr: writing '%s': out of memory", path);
        goto out;
    }

    errno = 0;
    if (fprintf(fp, "#?RADIANCE\n# written by clvision\nFORMAT=32-bit_rle_rgbe\n\n-Y %d +X %d\n",
                img->height, img->width) < 0)
        goto write_error;

    for (int y = 0; y < img->height; y++) {
        /* Any stride is allowed: rows need not be float-aligned, so read
         * through memcpy rather than a float pointer. */
        const unsigned char *row = (const unsigned char *)img->data + (size_t)y * img->stride;
        for (size_t x = 0; x < w; x++) {
            float s[3];
            memcpy(s, row + x * (size_t)img->channels * sizeof(float),
                   (size_t)img->channels * sizeof(float));
            if (img->channels == 1)
                float_to_rgbe(s[0], s[0], s[0], px + 4 * x);
            else
                float_to_rgbe(s[0], s[1], s[2], px + 4 * x);
        }
        size_t n = 0;
        if (rle) {
            enc[0] = 2;
            enc[1] = 2;
            enc[2] = (unsigned char)(w >> 8);
            enc[3] = (unsigned char)(w & 0xFF);
            n = 4;
            for (int c = 0; c < 4; c++) {
                for (size_t x = 0; x < w; x++)
                    comp[x] = px[4 * x + (size_t)c];
                n += rle_encode(comp, w, enc + n);
            }
        } else {
            /* Flat: (1,1,1,e) would read as an old-style run; (2,2,2,e-1)
             * is the same value. */
            for (size_t x = 0; x < w; x++) {
                unsigned char *q = px + 4 * x;
                if (q[0] == 1 && q[1] == 1 && q[2] == 1) {
                    int e = q[3];
                    q[0] = q[1] = q[2] = e > 1 ? 2 : 0;
                    q[3] = (unsigned char)(e > 1 ? e - 1 : 0);
                }
            }
            memcpy(enc, px, 4 * w);
            n = 4 * w;
        }
        errno = 0;
        if (fwrite(enc, 1, n, fp) != n)
            goto write_error;
    }
    goto out;

write_error:
    status = clv__io_fail_errno(CLV_ERROR_IO, errno, "hdr: cannot write '%s'", path);
out:
    free(px);
    free(comp);
    free(enc);
    return status;
}

CLV_API clv_status clv_hdr_write(const char *path, const clv_host_image *img)
{
    if (!path)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "hdr: write: path must not be NULL");
    size_t row_bytes = 0;
    clv_status status = clv__io_check_host_image(img, "hdr", path, &row_bytes);
    if (status != CLV_OK)
        return status;
    if (img->type != CLV_F32)
        return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                            "hdr: cannot write '%s': Radiance HDR takes f32 pixels, not %s "
                            "(convert with clv_host_image_to_f32())",
                            path, img->type == CLV_U8 ? "u8" : "u16");
    if (img->channels == 4)
        return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                            "hdr: cannot write '%s': Radiance HDR has no alpha channel (1 or 3 "
                            "channels)",
                            path);
    return clv__io_write_atomic(path, "hdr", hdr_write_file, img);
}
