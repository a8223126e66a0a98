/* High dynamic range files: OpenEXR, Radiance RGBE (.hdr) and PFM, and
 * clv_host_image_to_f32 (16-bit PNG as linear input).
 *
 * - The bundled studio_256.exr (HALF, ZIP, written by OpenEXR through
 *   OpenCV in tests/data/make_data.py): size, channels, finite, truly HDR
 *   (max > 1) and per-channel means against expected.txt, computed by the
 *   script from the array it encoded.
 * - EXR files built byte by byte here (uncompressed: an encoder independent
 *   of the one under test): HALF/FLOAT/UINT and mixed channels, scanline and
 *   tiled with partial edge tiles, data windows away from the origin,
 *   decreasing line order, Y-only, single odd channel; refused layouts.
 * - Round trips on odd sizes, 1/3(/4) channels, values 1e-4..1e4 plus zeros:
 *   EXR (FLOAT) and PFM bit-exact, specials (negatives, Inf, NaN,
 *   subnormals) included; RGBE within 2^-8 (0.4%) of each pixel's largest
 *   component (8 mantissa bits per component, one shared exponent,
 *   rounded to nearest: that is the format's exact bound).
 * - Hand-made RGBE files: flat pixels, old-style runs (with the shift
 *   rule), new-style runs and literals; runs/blocks overflowing the
 *   scanline, zero-length blocks, width mismatches, bad orientations and
 *   formats, header limits; CRLF headers read like LF ones; strides that
 *   are not a multiple of 4 write the same file as packed rows.
 * - Garbage, empty, wrong magic, files cut at many points, headers
 *   announcing 60000x60000 (refused with INVALID_ARGUMENT before any
 *   pixel memory is taken: the files hold no pixel data, so decoding would
 *   fail as truncated otherwise) and 70000 pixels wide (UNSUPPORTED).
 * - Writes: unknown extensions, wrong types/channels, malformed images,
 *   a missing directory, EFBIG half-way: no file or temporary left, old
 *   files intact.
 * - Two threads reading and writing at once.
 *
 * Built without OpenEXR (CLV_HAVE_OPENEXR undefined), every EXR call must
 * return CLV_ERROR_UNSUPPORTED saying so, and create no file.
 * No OpenCL device needed. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static int passed = 0;

/* CHECK that also counts the checks that pass. */
#define EXPECT(cond, ...)                                                                \
    do {                                                                                 \
        int before_ = test_failures;                                                     \
        CHECK(cond, __VA_ARGS__);                                                        \
        if (test_failures == before_)                                                    \
            passed++;                                                                    \
    } while (0)

/* A status must be exactly `want`; prints the I/O error otherwise. */
#define EXPECT_STATUS(expr, want)                                                        \
    do {                                                                                 \
        clv_status got_ = (expr);                                                        \
        EXPECT(got_ == (want), "%s -> %s (want %s): %s", #expr, clv_status_string(got_), \
               clv_status_string(want), clv_io_last_error());                            \
    } while (0)

/* ---- temporary directory and files ---- */

static char tmp_dir[64];

static const char *tmp_path(const char *name)
{
    static char ring[8][4096];
    static int next;
    char *buf = ring[next++ % 8];
    snprintf(buf, sizeof ring[0], "%s/%s", tmp_dir, name);
    return buf;
}

/* A struct full of junk, to see that failing readers zero it. */
static clv_host_image junk_image(void)
{
    clv_host_image img;
    memset(&img, 0xA5, sizeof img);
    return img;
}

static int is_zeroed(const clv_host_image *img)
{
    return img->width == 0 && img->height == 0 && img->channels == 0 && img->stride == 0 &&
           img->data == NULL;
}

/* ---- pixels ---- */

static float *px(const clv_host_image *img, int x, int y)
{
    return (float *)((unsigned char *)img->data + (size_t)y * img->stride) +
           (size_t)x * (size_t)img->channels;
}

/* Log-uniform magnitudes 1e-4..1e4, every seventh value zero. */
static void fill_hdr(clv_host_image *img, uint64_t seed)
{
    uint64_t st = seed * 0x9E3779B97F4A7C15ull + 7;
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < img->channels; c++) {
                uint64_t r = test_rand(&st);
                double u = (double)(r >> 11) / 9007199254740992.0;
                px(img, x, y)[c] = (r & 7) == 0 ? 0.0f : (float)pow(10.0, -4.0 + 8.0 * u);
            }
}

/* Specials on top of fill_hdr (for bit-exact formats). */
static void add_specials(clv_host_image *img)
{
    static const uint32_t bits[] = {
        0x80000000u, /* -0 */     0x7F800000u, /* +Inf */   0xFF800000u, /* -Inf */
        0x7FC00001u, /* NaN */    0xFFA00000u, /* -sNaN */  0x00000001u, /* subnormal */
        0x807FFFFFu, /* -subnormal */ 0x7F7FFFFFu, /* FLT_MAX */ 0xC2F6E979u, /* -123.456 */
    };
    size_t n = (size_t)img->width * (size_t)img->height * (size_t)img->channels;
    for (size_t i = 0; i < sizeof bits / sizeof bits[0] && i < n; i++) {
        size_t k = (i * 7919) % n;
        int c = (int)(k % (size_t)img->channels);
        size_t p = k / (size_t)img->channels;
        memcpy(&px(img, (int)(p % (size_t)img->width), (int)(p / (size_t)img->width))[c], &bits[i],
               4);
    }
}

static clv_host_image make_f32(int w, int h, int ch, uint64_t seed)
{
    clv_host_image img;
    REQUIRE(clv_host_image_alloc(&img, w, h, ch, CLV_F32) == CLV_OK, "alloc %dx%dx%d", w, h, ch);
    fill_hdr(&img, seed);
    return img;
}

/* Same size/channels/type and identical bits in every sample. */
static int same_bits(const clv_host_image *a, const clv_host_image *b)
{
    if (!a->data || !b->data || a->width != b->width || a->height != b->height ||
        a->channels != b->channels || a->type != b->type)
        return 0;
    size_t row = (size_t)a->width * (size_t)a->channels * 4;
    for (int y = 0; y < a->height; y++)
        if (memcmp((const char *)a->data + (size_t)y * a->stride,
                   (const char *)b->data + (size_t)y * b->stride, row) != 0)
            return 0;
    return 1;
}

static float clamp_rgbe(float v)
{
    const double top = 255.0 * ldexp(1.0, 119);
    if (!(v > 0.0f))
        return 0.0f;
    return (double)v > top ? (float)top : v;
}

/* RGBE check: back has 3 channels; every component within 2^-8 of the
 * pixel's largest (clamped) input component. Returns the worst ratio
 * error / largest component seen, or +Inf on a mismatch in shape. */
static double rgbe_error(const clv_host_image *src, const clv_host_image *back)
{
    if (!back->data || back->width != src->width || back->height != src->height ||
        back->channels != 3 || back->type != CLV_F32)
        return INFINITY;
    double worst = 0.0;
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            const float *s = px(src, x, y), *b = px(back, x, y);
            float in[3];
            for (int c = 0; c < 3; c++)
                in[c] = clamp_rgbe(s[src->channels == 1 ? 0 : c]);
            double mx = fmax(in[0], fmax(in[1], in[2]));
            for (int c = 0; c < 3; c++) {
                double err = fabs((double)b[c] - in[c]);
                if (mx == 0.0) {
                    if (b[c] != 0.0f)
                        return INFINITY;
                } else if (err / mx > worst) {
                    worst = err / mx;
                }
            }
        }
    return worst;
}

/* ---- reading helpers ---- */

typedef clv_status (*reader_fn)(const char *, clv_host_image *);

/* The generic and the per-format reader both fail with `want`, zero *out and
 * name the file. */
static void expect_read_fails(reader_fn fmt_reader, const char *path, clv_status want,
                              const char *what)
{
    reader_fn readers[2] = {clv_image_read, fmt_reader};
    for (int r = 0; r < 2; r++) {
        clv_host_image img = junk_image();
        clv_status s = readers[r](path, &img);
        EXPECT(s == want, "%s(%s) -> %s, want %s: %s", r ? "format reader" : "clv_image_read",
               what, clv_status_string(s), clv_status_string(want), clv_io_last_error());
        EXPECT(is_zeroed(&img), "%s: *out not zeroed on failure", what);
        EXPECT(strstr(clv_io_last_error(), path) != NULL, "%s: message should name the file: %s",
               what, clv_io_last_error());
        if (s == CLV_OK)
            clv_host_image_free(&img);
    }
}

/* Both readers succeed; returns the generic reader's image and checks the
 * per-format one gives the same bits. */
static clv_host_image read_both(reader_fn fmt_reader, const char *path, const char *what)
{
    clv_host_image a = junk_image(), b = junk_image();
    clv_status sa = clv_image_read(path, &a), sb = fmt_reader(path, &b);
    EXPECT(sa == CLV_OK && sb == CLV_OK, "%s: %s / %s: %s", what, clv_status_string(sa),
           clv_status_string(sb), clv_io_last_error());
    if (sa == CLV_OK && sb == CLV_OK) {
        EXPECT(same_bits(&a, &b), "%s: clv_image_read and the format reader differ", what);
        EXPECT(a.type == CLV_F32 && a.stride == (size_t)a.width * (size_t)a.channels * 4,
               "%s: reader output must be packed f32", what);
    }
    if (sb == CLV_OK)
        clv_host_image_free(&b);
    if (sa != CLV_OK)
        memset(&a, 0, sizeof a);
    return a;
}

/* Write the first n bytes of data and expect both readers to say FORMAT. */
static void expect_cut_fails(reader_fn fmt_reader, const unsigned char *data, size_t n,
                             const char *name)
{
    char what[96];
    snprintf(what, sizeof what, "%s cut to %zu bytes", name, n);
    const char *path = tmp_path("cut.bin");
    test_spit(path, data, n);
    expect_read_fails(fmt_reader, path, CLV_ERROR_FORMAT, what);
}

/* ---- byte buffers (hand-made files) ---- */

typedef struct bytes {
    unsigned char *p;
    size_t n, cap;
} bytes;

static void b_put(bytes *b, const void *src, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        REQUIRE(b->p, "out of memory");
        b->cap = cap;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

static void b_u8(bytes *b, unsigned v)
{
    unsigned char c = (unsigned char)v;
    b_put(b, &c, 1);
}

static void b_u32(bytes *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b_u8(b, (v >> (8 * i)) & 0xFF);
}

static void b_f32(bytes *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    b_u32(b, u);
}

static void b_text(bytes *b, const char *s)
{
    b_put(b, s, strlen(s));
}

#ifdef CLV_HAVE_OPENEXR

static void b_str(bytes *b, const char *s)
{
    b_put(b, s, strlen(s) + 1);
}

/* ---- expected.txt ---- */

typedef struct expectation {
    int width, height, channels;
    double mean[4];
} expectation;

static expectation lookup(const char *name)
{
    expectation e;
    memset(&e, 0, sizeof e);
    FILE *f = fopen(test_data_path("expected.txt"), "r");
    REQUIRE(f, "cannot open %s", test_data_path("expected.txt"));
    char line[512];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        char nm[128], type[8], kind[32];
        if (line[0] == '#' || sscanf(line, "%127s", nm) != 1 || strcmp(nm, name) != 0)
            continue;
        int n = sscanf(line, "%127s %d %d %d %7s %31s", nm, &e.width, &e.height, &e.channels,
                       type, kind);
        REQUIRE(n == 6 && strcmp(type, "f32") == 0 && strcmp(kind, "mean") == 0 &&
                    e.channels >= 1 && e.channels <= 4,
                "bad manifest line: %s", line);
        const char *p = strstr(line, " mean ") + 6;
        for (int c = 0; c < e.channels; c++) {
            char *end;
            e.mean[c] = strtod(p, &end);
            REQUIRE(end != p, "bad mean in: %s", line);
            p = end;
        }
        found = 1;
        break;
    }
    fclose(f);
    REQUIRE(found, "%s has no line in expected.txt", name);
    return e;
}

static void b_u64_at(bytes *b, size_t at, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b->p[at + (size_t)i] = (unsigned char)(v >> (8 * i));
}

static void b_u16(bytes *b, uint32_t v)
{
    b_u8(b, v & 0xFF);
    b_u8(b, (v >> 8) & 0xFF);
}

/* ---- hand-made OpenEXR files (uncompressed) ---- */

enum { XUINT = 0, XHALF = 1, XFLOAT = 2 };

typedef struct exr_chan {
    const char *name;
    int type;
    int xs, ys;
} exr_chan;

typedef struct exr_spec {
    int x_min, y_min, w, h;
    const exr_chan *ch; /* sorted by name, as the format requires */
    int nch;
    int tiled, tw, th;
    int decreasing; /* lineOrder DECREASING_Y: chunks stored bottom-up */
    int no_data;    /* header only: no offset table, no chunks */
    uint32_t (*sample)(int c, int x, int y); /* raw bits (low 16 for HALF) */
    int compression; /* the header's compression; chunks are stored uncompressed */
    int lines;       /* scanlines per chunk (0: 1) */
    int short_by;    /* bytes cut from every chunk's data (and its size field) */
} exr_spec;

static void b_attr(bytes *b, const char *name, const char *type, uint32_t size)
{
    b_str(b, name);
    b_str(b, type);
    b_u32(b, size);
}

static void put_sample(bytes *b, int type, uint32_t v)
{
    if (type == XHALF)
        b_u16(b, v & 0xFFFF);
    else
        b_u32(b, v);
}

static int chan_bytes(const exr_spec *s)
{
    int n = 0;
    for (int c = 0; c < s->nch; c++)
        n += s->ch[c].type == XHALF ? 2 : 4;
    return n;
}

static bytes make_exr(const exr_spec *s)
{
    bytes b = {0};
    b_u32(&b, 20000630);                       /* magic 76 2f 31 01 */
    b_u32(&b, 2u | (s->tiled ? 0x200u : 0u)); /* version 2, single part */
    uint32_t chsize = 1;
    for (int c = 0; c < s->nch; c++)
        chsize += (uint32_t)strlen(s->ch[c].name) + 1 + 16;
    b_attr(&b, "channels", "chlist", chsize);
    for (int c = 0; c < s->nch; c++) {
        b_str(&b, s->ch[c].name);
        b_u32(&b, (uint32_t)s->ch[c].type);
        b_u32(&b, 0); /* pLinear + reserved */
        b_u32(&b, (uint32_t)s->ch[c].xs);
        b_u32(&b, (uint32_t)s->ch[c].ys);
    }
    b_u8(&b, 0);
    b_attr(&b, "compression", "compression", 1);
    b_u8(&b, (uint32_t)s->compression);
    for (int k = 0; k < 2; k++) {
        b_attr(&b, k ? "displayWindow" : "dataWindow", "box2i", 16);
        b_u32(&b, (uint32_t)s->x_min);
        b_u32(&b, (uint32_t)s->y_min);
        b_u32(&b, (uint32_t)(s->x_min + s->w - 1));
        b_u32(&b, (uint32_t)(s->y_min + s->h - 1));
    }
    b_attr(&b, "lineOrder", "lineOrder", 1);
    b_u8(&b, s->decreasing ? 1 : 0);
    b_attr(&b, "pixelAspectRatio", "float", 4);
    b_f32(&b, 1.0f);
    b_attr(&b, "screenWindowCenter", "v2f", 8);
    b_f32(&b, 0.0f);
    b_f32(&b, 0.0f);
    b_attr(&b, "screenWindowWidth", "float", 4);
    b_f32(&b, 1.0f);
    if (s->tiled) {
        b_attr(&b, "tiles", "tiledesc", 9);
        b_u32(&b, (uint32_t)s->tw);
        b_u32(&b, (uint32_t)s->th);
        b_u8(&b, 0); /* one level, round down */
    }
    b_u8(&b, 0); /* end of header */
    if (s->no_data)
        return b;

    int ntx = s->tiled ? (s->w + s->tw - 1) / s->tw : 1;
    int lines = s->lines > 0 ? s->lines : 1;
    int nty = s->tiled ? (s->h + s->th - 1) / s->th : (s->h + lines - 1) / lines;
    int chunks = ntx * nty;
    size_t table = b.n;
    for (int i = 0; i < chunks; i++)
        b_put(&b, "\0\0\0\0\0\0\0\0", 8);
    int bpp = chan_bytes(s);
    for (int k = 0; k < chunks; k++) {
        int i = s->decreasing ? chunks - 1 - k : k; /* chunk index */
        b_u64_at(&b, table + 8 * (size_t)i, b.n);
        if (!s->tiled) {
            int y0 = i * lines, rows = s->h - y0 < lines ? s->h - y0 : lines;
            b_u32(&b, (uint32_t)(s->y_min + y0));
            b_u32(&b, (uint32_t)(rows * s->w * bpp - s->short_by));
            for (int y = y0; y < y0 + rows; y++)
                for (int c = 0; c < s->nch; c++)
                    for (int x = 0; x < s->w; x++)
                        put_sample(&b, s->ch[c].type, s->sample(c, x, y));
            b.n -= (size_t)s->short_by;
        } else {
            int tx = i % ntx, ty = i / ntx;
            int x0 = tx * s->tw, y0 = ty * s->th;
            int cw = s->w - x0 < s->tw ? s->w - x0 : s->tw;
            int chh = s->h - y0 < s->th ? s->h - y0 : s->th;
            b_u32(&b, (uint32_t)tx);
            b_u32(&b, (uint32_t)ty);
            b_u32(&b, 0);
            b_u32(&b, 0);
            b_u32(&b, (uint32_t)(cw * chh * bpp));
            for (int y = 0; y < chh; y++)
                for (int c = 0; c < s->nch; c++)
                    for (int x = 0; x < cw; x++)
                        put_sample(&b, s->ch[c].type, s->sample(c, x0 + x, y0 + y));
        }
    }
    return b;
}

static uint32_t hash3(int c, int x, int y)
{
    uint64_t st = ((uint64_t)(uint32_t)c << 42) ^ ((uint64_t)(uint32_t)x << 21) ^
                  (uint64_t)(uint32_t)y ^ 0x51ED270B2706F4C3ull;
    test_rand(&st);
    return (uint32_t)(test_rand(&st) >> 17);
}

static uint32_t sample_random(int c, int x, int y)
{
    return hash3(c, x, y);
}

/* Half bits of a smooth positive pattern (no NaN: sums stay meaningful). */
static uint32_t sample_half_smooth(int c, int x, int y)
{
    return (uint32_t)(0x3000 + ((x * 37 + y * 101 + c * 1009) % 0x3000));
}

/* Reference value of half bits, by arithmetic rather than bit moves. */
static double ref_half(uint32_t h)
{
    int s = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 0)
        v = ldexp(m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexp(1024 + m, e - 25);
    return s ? -v : v;
}

/* Decoded value a sample of `type` with raw bits v must have. */
static int sample_matches(float got, int type, uint32_t v)
{
    if (type == XHALF) {
        double r = ref_half(v);
        return isnan(r) ? isnan(got) != 0 : got == (float)r && !signbit(got) == !signbit(r);
    }
    if (type == XUINT)
        return got == (float)v;
    uint32_t g;
    memcpy(&g, &got, 4);
    return g == v;
}

/* File channel index for each output channel of an expected layout. */
static int check_exr_pixels(const clv_host_image *img, const exr_spec *s, const int *chan_of,
                            int channels, const char *what)
{
    if (!img->data || img->width != s->w || img->height != s->h || img->channels != channels) {
        CHECK(0, "%s: got %dx%dx%d, want %dx%dx%d", what, img->width, img->height, img->channels,
              s->w, s->h, channels);
        return 0;
    }
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++)
            for (int k = 0; k < channels; k++) {
                int c = chan_of[k];
                uint32_t v = s->sample(c, x, y);
                if (!sample_matches(px(img, x, y)[k], s->ch[c].type, v)) {
                    CHECK(0, "%s: pixel (%d,%d) channel %d = %.9g, raw sample 0x%x", what, x, y,
                          k, (double)px(img, x, y)[k], v);
                    return 0;
                }
            }
    return 1;
}

#endif /* CLV_HAVE_OPENEXR */

/* ---- the bundled EXR ---- */

static void test_bundled_exr(void)
{
    const char *path = test_data_path("studio_256.exr");
    char *p = strdup(path);
    REQUIRE(p, "out of memory");
#ifdef CLV_HAVE_OPENEXR
    expectation e = lookup("studio_256.exr");
    clv_host_image img = read_both(clv_exr_read, p, "studio_256.exr");
    if (img.data) {
        EXPECT(img.width == e.width && img.height == e.height && img.channels == e.channels &&
                   (img.channels == 3 || img.channels == 4),
               "studio_256.exr: %dx%dx%d, expected %dx%dx%d", img.width, img.height,
               img.channels, e.width, e.height, e.channels);
        double sum[4] = {0, 0, 0, 0}, mx = -INFINITY;
        int finite = 1;
        for (int y = 0; y < img.height; y++)
            for (int x = 0; x < img.width; x++)
                for (int c = 0; c < img.channels; c++) {
                    float v = px(&img, x, y)[c];
                    finite &= isfinite(v) != 0;
                    sum[c] += v;
                    mx = fmax(mx, v);
                }
        EXPECT(finite, "studio_256.exr: all values must be finite");
        EXPECT(mx > 1.0, "studio_256.exr: max %.3f must exceed 1 (HDR content)", mx);
        for (int c = 0; c < img.channels && c < e.channels; c++) {
            double mean = sum[c] / ((double)img.width * img.height);
            EXPECT(fabs(mean - e.mean[c]) <= 1e-5 * fabs(e.mean[c]) + 1e-7,
                   "studio_256.exr channel %d mean %.7f, reference %.7f", c, mean, e.mean[c]);
        }
        clv_host_image_free(&img);
    }
#else
    for (int api = 0; api < 2; api++) {
        clv_host_image img = junk_image();
        clv_status s = api ? clv_exr_read(p, &img) : clv_image_read(p, &img);
        EXPECT(s == CLV_ERROR_UNSUPPORTED, "EXR read without OpenEXR -> %s: %s",
               clv_status_string(s), clv_io_last_error());
        EXPECT(is_zeroed(&img), "*out zeroed");
        EXPECT(strstr(clv_io_last_error(), "without OpenEXR") != NULL,
               "message should say the library lacks OpenEXR: %s", clv_io_last_error());
    }
#endif
    free(p);
}

/* ---- EXR round trips and hand-made files ---- */

#ifdef CLV_HAVE_OPENEXR

static void test_exr_roundtrip(void)
{
    static const int sizes[][2] = {{1, 1}, {7, 3}, {333, 17}, {64, 33}};
    uint64_t seed = 100;
    for (size_t si = 0; si < 4; si++)
        for (int ch = 1; ch <= 4; ch++) {
            if (ch == 2)
                continue;
            int w = sizes[si][0], h = sizes[si][1];
            clv_host_image src = make_f32(w, h, ch, seed++);
            add_specials(&src);
            const char *path = tmp_path(si % 2 ? "rt.EXR" : "rt.exr");
            EXPECT_STATUS(si % 2 ? clv_image_write(path, &src, 0) : clv_exr_write(path, &src),
                          CLV_OK);
            size_t n;
            unsigned char *b = test_slurp(path, &n);
            EXPECT(n > 4 && memcmp(b, "\x76\x2f\x31\x01", 4) == 0, "%s must be an EXR file",
                   path);
            free(b);
            char what[64];
            snprintf(what, sizeof what, "EXR round trip %dx%dx%d", w, h, ch);
            clv_host_image back = read_both(clv_exr_read, path, what);
            EXPECT(same_bits(&src, &back), "%s is not bit-exact", what);
            clv_host_image_free(&back);
            clv_host_image_free(&src);
        }

    /* A padded source stride: only the pixels are written. */
    clv_host_image src = make_f32(19, 21, 3, 5), padded = src;
    padded.stride = src.stride + 12;
    padded.data = calloc(padded.stride, 21);
    REQUIRE(padded.data, "out of memory");
    for (int y = 0; y < 21; y++)
        memcpy((char *)padded.data + (size_t)y * padded.stride,
               (char *)src.data + (size_t)y * src.stride, src.stride);
    EXPECT_STATUS(clv_exr_write(tmp_path("padded.exr"), &padded), CLV_OK);
    clv_host_image back = read_both(clv_exr_read, tmp_path("padded.exr"), "padded EXR");
    EXPECT(same_bits(&src, &back), "padded-stride EXR round trip");
    clv_host_image_free(&back);
    free(padded.data);
    clv_host_image_free(&src);
}

static void test_exr_handmade(void)
{
    /* Scanline HALF RGBA, odd size, data window away from the origin. */
    {
        static const exr_chan ch[] = {{"A", XHALF, 1, 1}, {"B", XHALF, 1, 1},
                                      {"G", XHALF, 1, 1}, {"R", XHALF, 1, 1}};
        exr_spec s = {-3, 5, 13, 7, ch, 4, 0, 0, 0, 0, 0, sample_random, 0, 0, 0};
        bytes b = make_exr(&s);
        test_spit(tmp_path("half_rgba.exr"), b.p, b.n);
        clv_host_image img = read_both(clv_exr_read, tmp_path("half_rgba.exr"), "HALF RGBA");
        static const int order[] = {3, 2, 1, 0}; /* R, G, B, A in the file's A,B,G,R */
        EXPECT(check_exr_pixels(&img, &s, order, 4, "HALF RGBA"), "HALF RGBA pixels");
        clv_host_image_free(&img);

        /* Cut at many places: header, offset table, inside chunks, last byte. */
        const size_t cuts[] = {3, 8, 40, 200, b.n / 2, b.n - 9, b.n - 1};
        for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
            expect_cut_fails(clv_exr_read, b.p, cuts[i], "half_rgba.exr");
        free(b.p);
    }
    /* Tiled FLOAT RGB, 37x21 in 16x8 tiles (partial tiles on both edges). */
    {
        static const exr_chan ch[] = {{"B", XFLOAT, 1, 1}, {"G", XFLOAT, 1, 1},
                                      {"R", XFLOAT, 1, 1}};
        exr_spec s = {0, 0, 37, 21, ch, 3, 1, 16, 8, 0, 0, sample_random, 0, 0, 0};
        bytes b = make_exr(&s);
        test_spit(tmp_path("tiled.exr"), b.p, b.n);
        clv_host_image img = read_both(clv_exr_read, tmp_path("tiled.exr"), "tiled FLOAT RGB");
        static const int order[] = {2, 1, 0};
        EXPECT(check_exr_pixels(&img, &s, order, 3, "tiled FLOAT RGB"), "tiled pixels");
        clv_host_image_free(&img);
        const size_t cuts[] = {100, b.n / 3, b.n - 5};
        for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
            expect_cut_fails(clv_exr_read, b.p, cuts[i], "tiled.exr");
        free(b.p);
    }
    /* Tiled, data window off the origin, one tile larger than the image. */
    {
        static const exr_chan ch[] = {{"Y", XHALF, 1, 1}};
        exr_spec s = {10, -20, 5, 3, ch, 1, 1, 8, 8, 0, 0, sample_half_smooth, 0, 0, 0};
        bytes b = make_exr(&s);
        test_spit(tmp_path("tiled_y.exr"), b.p, b.n);
        clv_host_image img = read_both(clv_exr_read, tmp_path("tiled_y.exr"), "tiled Y");
        static const int order[] = {0};
        EXPECT(check_exr_pixels(&img, &s, order, 1, "tiled Y"), "tiled Y pixels");
        clv_host_image_free(&img);
        free(b.p);
    }
    /* Mixed types (R half, G float, B uint), decreasing line order. */
    {
        static const exr_chan ch[] = {{"B", XUINT, 1, 1}, {"G", XFLOAT, 1, 1},
                                      {"R", XHALF, 1, 1}};
        exr_spec s = {0, 0, 9, 6, ch, 3, 0, 0, 0, 1, 0, sample_random, 0, 0, 0};
        bytes b = make_exr(&s);
        test_spit(tmp_path("mixed.exr"), b.p, b.n);
        clv_host_image img = read_both(clv_exr_read, tmp_path("mixed.exr"), "mixed types");
        static const int order[] = {2, 1, 0};
        EXPECT(check_exr_pixels(&img, &s, order, 3, "mixed types, decreasing Y"), "mixed pixels");
        clv_host_image_free(&img);
        free(b.p);
    }
    /* UINT Y plus other channels: only Y is kept. */
    {
        static const exr_chan ch[] = {{"A", XHALF, 1, 1}, {"Y", XUINT, 1, 1},
                                      {"Z", XFLOAT, 1, 1}};
        exr_spec s = {0, 0, 5, 4, ch, 3, 0, 0, 0, 0, 0, sample_random, 0, 0, 0};
        bytes b = make_exr(&s);
        test_spit(tmp_path("y_uint.exr"), b.p, b.n);
        clv_host_image img = read_both(clv_exr_read, tmp_path("y_uint.exr"), "UINT Y");
        static const int order[] = {1};
        EXPECT(check_exr_pixels(&img, &s, order, 1, "UINT Y"), "UINT Y pixels");
        clv_host_image_free(&img);
        free(b.p);
    }
    /* A single channel of any name is read as gray. */
    {
        static const exr_chan ch[] = {{"depth.Z", XFLOAT, 1, 1}};
        exr_spec s = {0, 0, 3, 2, ch, 1, 0, 0, 0, 0, 0, sample_random, 0, 0, 0};
        bytes b = make_exr(&s);
        test_spit(tmp_path("z.exr"), b.p, b.n);
        clv_host_image img = read_both(clv_exr_read, tmp_path("z.exr"), "single channel");
        static const int order[] = {0};
        EXPECT(check_exr_pixels(&img, &s, order, 1, "single channel"), "single channel pixels");
        clv_host_image_free(&img);
        free(b.p);
    }
    /* Refused layouts. */
    {
        static const exr_chan rg[] = {{"G", XHALF, 1, 1}, {"R", XHALF, 1, 1}};
        exr_spec s = {0, 0, 4, 4, rg, 2, 0, 0, 0, 0, 0, sample_random, 0, 0, 0};
        bytes b = make_exr(&s);
        test_spit(tmp_path("rg.exr"), b.p, b.n);
        free(b.p);
        expect_read_fails(clv_exr_read, tmp_path("rg.exr"), CLV_ERROR_UNSUPPORTED,
                          "R and G only");

        static const exr_chan sub[] = {{"B", XHALF, 1, 1}, {"G", XHALF, 1, 1},
                                       {"R", XHALF, 2, 2}};
        exr_spec s2 = {0, 0, 8, 4, sub, 3, 0, 0, 0, 0, 1, sample_random, 0, 0, 0};
        b = make_exr(&s2);
        test_spit(tmp_path("sub.exr"), b.p, b.n);
        free(b.p);
        expect_read_fails(clv_exr_read, tmp_path("sub.exr"), CLV_ERROR_UNSUPPORTED,
                          "subsampled channel");
    }
    /* Lying headers: no pixel data at all, refused from the header. */
    {
        static const exr_chan ch[] = {{"B", XFLOAT, 1, 1}, {"G", XFLOAT, 1, 1},
                                      {"R", XFLOAT, 1, 1}};
        exr_spec s = {0, 0, 60000, 60000, ch, 3, 0, 0, 0, 0, 1, sample_random, 0, 0, 0};
        bytes b = make_exr(&s);
        test_spit(tmp_path("huge.exr"), b.p, b.n);
        free(b.p);
        expect_read_fails(clv_exr_read, tmp_path("huge.exr"), CLV_ERROR_INVALID_ARGUMENT,
                          "EXR announcing 60000x60000");
        s.tiled = 1;
        s.tw = s.th = 64;
        b = make_exr(&s);
        test_spit(tmp_path("huge_tiled.exr"), b.p, b.n);
        free(b.p);
        expect_read_fails(clv_exr_read, tmp_path("huge_tiled.exr"), CLV_ERROR_INVALID_ARGUMENT,
                          "tiled EXR announcing 60000x60000");
        /* Too wide: the message carries the size the header states (issue 13 #13). */
        static const int wide[] = {70000, 200000000};
        for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++) {
            exr_spec s2 = {0, 0, wide[i], 1, ch, 3, 0, 0, 0, 0, 1, sample_random, 0, 0, 0};
            char what[64], size[32];
            snprintf(what, sizeof what, "EXR %d wide", wide[i]);
            snprintf(size, sizeof size, "%dx1", wide[i]);
            b = make_exr(&s2);
            test_spit(tmp_path("wide.exr"), b.p, b.n);
            free(b.p);
            expect_read_fails(clv_exr_read, tmp_path("wide.exr"), CLV_ERROR_UNSUPPORTED, what);
            EXPECT(strstr(clv_io_last_error(), size), "EXR size message: %s", clv_io_last_error());
        }
        exr_spec s3 = {0, 0, 64, 64, ch, 3, 0, 0, 0, 0, 1, sample_random, 0, 0, 0};
        b = make_exr(&s3);
        test_spit(tmp_path("nodata.exr"), b.p, b.n);
        free(b.p);
        expect_read_fails(clv_exr_read, tmp_path("nodata.exr"), CLV_ERROR_FORMAT,
                          "EXR 64x64 without data");
    }
    /* A chunk whose size field lies (larger than the file). */
    {
        static const exr_chan ch[] = {{"Y", XFLOAT, 1, 1}};
        exr_spec s = {0, 0, 6, 3, ch, 1, 0, 0, 0, 0, 0, sample_random, 0, 0, 0};
        bytes b = make_exr(&s);
        /* The last chunk starts 8 + 6*4 bytes before the end: its size field. */
        size_t size_at = b.n - 24 - 4;
        b.p[size_at + 3] = 0x7F;
        test_spit(tmp_path("liar_chunk.exr"), b.p, b.n);
        expect_read_fails(clv_exr_read, tmp_path("liar_chunk.exr"), CLV_ERROR_FORMAT,
                          "EXR chunk with a lying size");
        /* Smaller than an uncompressed line: must not leave pixels unset. */
        b.p[size_at + 3] = 0;
        b.p[size_at] = 20;
        test_spit(tmp_path("short_chunk.exr"), b.p, b.n);
        expect_read_fails(clv_exr_read, tmp_path("short_chunk.exr"), CLV_ERROR_FORMAT,
                          "uncompressed EXR chunk shorter than its line");
        free(b.p);
    }
}


/* B44/B44A and DWAA/DWAB files whose chunks are stored uncompressed (what
 * the C++ library writes when compressing would not make a chunk smaller:
 * small images; OpenCV reads them), corrupt B44 data, and compressed DWA
 * data, which OpenEXR 3.1's C decoder does not implement (issue 13 #7, #15). */
static void test_exr_stored_chunks(void)
{
    static const exr_chan ch[] = {{"B", XHALF, 1, 1}, {"G", XHALF, 1, 1}, {"R", XHALF, 1, 1}};
    static const int order[] = {2, 1, 0};
    static const struct {
        int w, h, compression, lines;
        const char *name;
    } cases[] = {
        {1, 4, 6, 32, "B44 1x4"},      {7, 1, 6, 32, "B44 7x1"},
        {2, 2, 6, 32, "B44 2x2"},      {1, 1000, 6, 32, "B44 1x1000"},
        {1, 1, 7, 32, "B44A 1x1"},     {2, 2, 7, 32, "B44A 2x2"},
        {3, 5, 8, 32, "DWAA HALF 3x5"}, {4, 300, 9, 256, "DWAB HALF 4x300"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        exr_spec s = {0, 0, cases[i].w, cases[i].h, ch, 3, 0, 0, 0, 0, 0, sample_random,
                      cases[i].compression, cases[i].lines, 0};
        bytes b = make_exr(&s);
        test_spit(tmp_path("stored.exr"), b.p, b.n);
        clv_host_image img = junk_image();
        clv_status st = clv_exr_read(tmp_path("stored.exr"), &img);
        EXPECT(st == CLV_OK, "%s: %s: %s", cases[i].name, clv_status_string(st),
               clv_io_last_error());
        if (st == CLV_OK)
            EXPECT(check_exr_pixels(&img, &s, order, 3, cases[i].name), "%s pixels",
                   cases[i].name);
        clv_host_image_free(&img);
        free(b.p);
    }
    /* A B44 chunk too short for its blocks (10 bytes for 8x8x3 HALF). */
    {
        exr_spec s = {0, 0, 8, 8, ch, 3, 0, 0, 0, 0, 0, sample_random, 6, 32, 8 * 8 * 6 - 10};
        bytes b = make_exr(&s);
        test_spit(tmp_path("bad_b44.exr"), b.p, b.n);
        expect_read_fails(clv_exr_read, tmp_path("bad_b44.exr"), CLV_ERROR_FORMAT,
                          "corrupt B44 data");
        EXPECT(strstr(clv_io_last_error(), "B44"), "corrupt B44 message: %s",
               clv_io_last_error());
        free(b.p);
    }
    for (int comp = 8; comp <= 9; comp++) {
        exr_spec s = {0, 0, 8, 8, ch, 3, 0, 0, 0, 0, 0, sample_random, comp, comp == 8 ? 32 : 256,
                      100};
        bytes b = make_exr(&s);
        test_spit(tmp_path("dwa.exr"), b.p, b.n);
        expect_read_fails(clv_exr_read, tmp_path("dwa.exr"), CLV_ERROR_UNSUPPORTED,
                          "compressed DWA HALF data");
        EXPECT(strstr(clv_io_last_error(), comp == 8 ? "DWAA" : "DWAB") &&
                   strstr(clv_io_last_error(), "HALF"),
               "DWA message: %s", clv_io_last_error());
        free(b.p);
    }
}
#endif /* CLV_HAVE_OPENEXR */

/* ---- Radiance HDR ---- */

static void test_hdr_roundtrip(void)
{
    static const int sizes[][2] = {{1, 1}, {7, 3}, {8, 2}, {333, 17}, {32767, 1}, {32768, 2}};
    uint64_t seed = 200;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (int ch = 1; ch <= 3; ch += 2) {
            int w = sizes[si][0], h = sizes[si][1];
            clv_host_image src = make_f32(w, h, ch, seed++);
            const char *path = tmp_path(si % 2 ? "rt.HDR" : "rt.hdr");
            EXPECT_STATUS(si % 2 ? clv_image_write(path, &src, 0) : clv_hdr_write(path, &src),
                          CLV_OK);
            char what[64];
            snprintf(what, sizeof what, "HDR round trip %dx%dx%d", w, h, ch);
            clv_host_image back = read_both(clv_hdr_read, path, what);
            double err = rgbe_error(&src, &back);
            EXPECT(err <= 1.0 / 256.0, "%s: error %.3g of the pixel's largest component "
                   "(tolerance 2^-8)", what, err);
            clv_host_image_free(&back);
            clv_host_image_free(&src);
        }

    /* The header we write, and run-length encoding at work: a flat image
     * of 300x50 RGBE pixels (60000 bytes raw) takes a few hundred. */
    clv_host_image flat;
    REQUIRE(clv_host_image_alloc(&flat, 300, 50, 3, CLV_F32) == CLV_OK, "alloc");
    for (int y = 0; y < 50; y++)
        for (int x = 0; x < 300; x++)
            for (int c = 0; c < 3; c++)
                px(&flat, x, y)[c] = x < 150 ? 0.25f : 1000.0f + 4.0f * (float)c;
    EXPECT_STATUS(clv_hdr_write(tmp_path("flat.hdr"), &flat), CLV_OK);
    size_t n;
    unsigned char *b = test_slurp(tmp_path("flat.hdr"), &n);
    EXPECT(n > 11 && memcmp(b, "#?RADIANCE\n", 11) == 0, "HDR header: %.20s", (char *)b);
    EXPECT(strstr((char *)b, "FORMAT=32-bit_rle_rgbe\n") != NULL, "FORMAT line");
    EXPECT(strstr((char *)b, "\n\n-Y 50 +X 300\n") != NULL, "resolution line");
    EXPECT(n < 2000, "flat 300x50 image takes %zu bytes: RLE not used?", n);
    free(b);
    clv_host_image back = read_both(clv_hdr_read, tmp_path("flat.hdr"), "flat HDR");
    EXPECT(rgbe_error(&flat, &back) <= 1.0 / 256.0, "flat HDR values");
    if (back.data)
        EXPECT(px(&back, 0, 0)[0] == 0.25f && px(&back, 299, 49)[2] == 1008.0f,
               "values exactly representable in RGBE must come back exactly (%g, %g)",
               (double)px(&back, 0, 0)[0], (double)px(&back, 299, 49)[2]);
    clv_host_image_free(&back);
    clv_host_image_free(&flat);

    /* What RGBE cannot hold: negatives and NaN become 0, +Inf and huge values
     * the largest RGBE value; tiny values 0. */
    clv_host_image sp;
    REQUIRE(clv_host_image_alloc(&sp, 5, 1, 3, CLV_F32) == CLV_OK, "alloc");
    const float vals[5][3] = {{-1.0f, 2.0f, 0.5f},
                              {NAN, 1.0f, 1.0f},
                              {INFINITY, 0.0f, 0.0f},
                              {3e38f, 3e38f, 3e38f},
                              {1e-40f, 0.0f, 0.0f}};
    memcpy(sp.data, vals, sizeof vals);
    EXPECT_STATUS(clv_hdr_write(tmp_path("special.hdr"), &sp), CLV_OK);
    back = read_both(clv_hdr_read, tmp_path("special.hdr"), "special values");
    if (back.data) {
        const float top = (float)(255.0 * ldexp(1.0, 119));
        EXPECT(px(&back, 0, 0)[0] == 0.0f && px(&back, 0, 0)[1] == 2.0f &&
                   px(&back, 0, 0)[2] == 0.5f,
               "negative -> 0");
        EXPECT(px(&back, 1, 0)[0] == 0.0f && px(&back, 1, 0)[1] == 1.0f, "NaN -> 0");
        EXPECT(px(&back, 2, 0)[0] == top && px(&back, 3, 0)[2] == top,
               "Inf and 3e38 -> largest RGBE value (%g, %g)", (double)px(&back, 2, 0)[0],
               (double)px(&back, 3, 0)[2]);
        EXPECT(px(&back, 4, 0)[0] == 0.0f, "1e-40 -> 0");
    }
    clv_host_image_free(&back);
    clv_host_image_free(&sp);
}

static const char hdr_head[] = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n";

static double rgbe_value(int m, int e)
{
    return e == 0 ? 0.0 : ldexp(m, e - 136);
}

static void expect_rgbe_pixel(const clv_host_image *img, int x, int y, const unsigned char *p,
                              const char *what)
{
    for (int c = 0; c < 3; c++) {
        float want = (float)rgbe_value(p[c], p[3]);
        EXPECT(px(img, x, y)[c] == want, "%s: pixel (%d,%d)[%d] = %g, want %g", what, x, y, c,
               (double)px(img, x, y)[c], (double)want);
    }
}

static void test_hdr_handmade(void)
{
    /* "#?RGBE", variables, comments, EXPOSURE (ignored), FORMAT with
     * trailing blanks, flat pixels (width 3 < 8). */
    {
        bytes b = {0};
        b_text(&b, "#?RGBE\n# a comment\nEXPOSURE=2.5\nGAMMA=1.0\n"
                   "FORMAT=32-bit_rle_rgbe  \nSOFTWARE=test\n\n-Y 2 +X 3\n");
        static const unsigned char p[6][4] = {{128, 64, 32, 129}, {0, 0, 0, 0},   {255, 1, 0, 1},
                                              {200, 100, 50, 255}, {9, 9, 9, 128}, {1, 2, 3, 0}};
        for (int i = 0; i < 6; i++)
            b_put(&b, p[i], 4);
        test_spit(tmp_path("flat.hdr"), b.p, b.n);
        clv_host_image img = read_both(clv_hdr_read, tmp_path("flat.hdr"), "flat RGBE");
        if (img.data && img.width == 3 && img.height == 2 && img.channels == 3)
            for (int i = 0; i < 6; i++)
                expect_rgbe_pixel(&img, i % 3, i / 3, p[i], "flat RGBE");
        else
            CHECK(0, "flat RGBE: got %dx%dx%d", img.width, img.height, img.channels);
        clv_host_image_free(&img);
        const size_t cuts[] = {2, 6, 7, 30, b.n - 24, b.n - 1};
        for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
            expect_cut_fails(clv_hdr_read, b.p, cuts[i], "flat RGBE");
        free(b.p);
    }
    /* Old-style runs: P, run 3, Q, run 5 (width 10); and the shift rule:
     * P, (1,1,1,43), (1,1,1,1) repeats P 43 + (1 << 8) = 299 times. */
    {
        bytes b = {0};
        b_text(&b, hdr_head);
        b_text(&b, "-Y 2 +X 10\n");
        static const unsigned char P[4] = {100, 50, 25, 130}, Q[4] = {7, 8, 9, 140};
        static const unsigned char run3[4] = {1, 1, 1, 3}, run5[4] = {1, 1, 1, 5};
        b_put(&b, P, 4);
        b_put(&b, run3, 4);
        b_put(&b, Q, 4);
        b_put(&b, run5, 4);
        /* row 1: ten plain pixels with a (1,1,1,0) no-op run in between */
        for (int i = 0; i < 10; i++) {
            unsigned char q[4] = {(unsigned char)(10 + i), 20, 30, 131};
            b_put(&b, q, 4);
            if (i == 4) {
                static const unsigned char nop[4] = {1, 1, 1, 0};
                b_put(&b, nop, 4);
            }
        }
        test_spit(tmp_path("old.hdr"), b.p, b.n);
        clv_host_image img = read_both(clv_hdr_read, tmp_path("old.hdr"), "old-style RLE");
        if (img.data && img.width == 10 && img.height == 2) {
            for (int x = 0; x < 10; x++)
                expect_rgbe_pixel(&img, x, 0, x < 4 ? P : Q, "old-style RLE");
            for (int x = 0; x < 10; x++) {
                unsigned char q[4] = {(unsigned char)(10 + x), 20, 30, 131};
                expect_rgbe_pixel(&img, x, 1, q, "old-style RLE row 1");
            }
        } else {
            CHECK(0, "old-style RLE: got %dx%d", img.width, img.height);
        }
        clv_host_image_free(&img);
        free(b.p);

        b = (bytes){0};
        b_text(&b, hdr_head);
        b_text(&b, "-Y 1 +X 300\n");
        static const unsigned char r43[4] = {1, 1, 1, 43}, r1[4] = {1, 1, 1, 1};
        b_put(&b, P, 4);
        b_put(&b, r43, 4);
        b_put(&b, r1, 4);
        test_spit(tmp_path("shift.hdr"), b.p, b.n);
        img = read_both(clv_hdr_read, tmp_path("shift.hdr"), "old-style shift");
        if (img.data && img.width == 300)
            expect_rgbe_pixel(&img, 299, 0, P, "old-style shift");
        clv_host_image_free(&img);
        /* One more repeat would overflow: 44 + 256 = 300 > 299 left. */
        b.p[b.n - 5] = 44;
        test_spit(tmp_path("shift_over.hdr"), b.p, b.n);
        expect_read_fails(clv_hdr_read, tmp_path("shift_over.hdr"), CLV_ERROR_FORMAT,
                          "old-style run overflowing the scanline");
        free(b.p);

        b = (bytes){0};
        b_text(&b, hdr_head);
        b_text(&b, "-Y 1 +X 3\n");
        b_put(&b, run3, 4);
        test_spit(tmp_path("run_first.hdr"), b.p, b.n);
        expect_read_fails(clv_hdr_read, tmp_path("run_first.hdr"), CLV_ERROR_FORMAT,
                          "old-style run with nothing before it");
        free(b.p);
    }
    /* New-style: runs and literal blocks per component (width 8). */
    {
        static const unsigned char rle[] = {
            2, 2, 0, 8,
            128 + 8, 100,                               /* R: run of 8 */
            3, 1, 2, 3, 128 + 5, 50,                    /* G: literal 3, run 5 */
            8, 10, 11, 12, 13, 14, 15, 16, 17,          /* B: literal 8 */
            128 + 4, 129, 4, 130, 131, 0, 128,          /* E: run 4, literal 4 */
        };
        bytes b = {0};
        b_text(&b, hdr_head);
        b_text(&b, "-Y 1 +X 8\n");
        b_put(&b, rle, sizeof rle);
        test_spit(tmp_path("new.hdr"), b.p, b.n);
        clv_host_image img = read_both(clv_hdr_read, tmp_path("new.hdr"), "new-style RLE");
        static const unsigned char g[8] = {1, 2, 3, 50, 50, 50, 50, 50};
        static const unsigned char e[8] = {129, 129, 129, 129, 130, 131, 0, 128};
        if (img.data && img.width == 8)
            for (int x = 0; x < 8; x++) {
                unsigned char p[4] = {100, g[x], (unsigned char)(10 + x), e[x]};
                expect_rgbe_pixel(&img, x, 0, p, "new-style RLE");
            }
        clv_host_image_free(&img);
        for (size_t cut = 1; cut < sizeof rle; cut += 3)
            expect_cut_fails(clv_hdr_read, b.p, b.n - cut, "new-style RLE");
        free(b.p);

        /* Broken variants of that scanline. */
        struct {
            size_t at;
            unsigned char v;
            const char *what;
        } bad[] = {
            {4, 128 + 9, "run of 9 in a scanline of 8"},
            {6, 9, "literal block of 9 (3 + 9 > 8)"},
            {6, 0, "zero-length block"},
            {3, 9, "scanline announcing width 9"},
            {10, 128 + 6, "second run overflowing (3 + 6 > 8)"},
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            unsigned char v[sizeof rle];
            memcpy(v, rle, sizeof rle);
            v[bad[i].at] = bad[i].v;
            bytes c = {0};
            b_text(&c, hdr_head);
            b_text(&c, "-Y 1 +X 8\n");
            b_put(&c, v, sizeof v);
            b_put(&c, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 20); /* room to overrun */
            test_spit(tmp_path("bad_rle.hdr"), c.p, c.n);
            expect_read_fails(clv_hdr_read, tmp_path("bad_rle.hdr"), CLV_ERROR_FORMAT, bad[i].what);
            free(c.p);
        }
    }
    /* Headers. */
    {
        struct {
            const char *text;
            clv_status want;
            const char *what;
        } cases[] = {
            {"#?RADIANCE\nFORMAT=32-bit_rle_xyze\n\n-Y 1 +X 1\nAAAA", CLV_ERROR_UNSUPPORTED,
             "XYZE"},
            {"#?RADIANCE\nFORMAT=png\n\n-Y 1 +X 1\nAAAA", CLV_ERROR_UNSUPPORTED, "unknown FORMAT"},
            {"#?RADIANCE\n\n+Y 1 +X 1\nAAAA", CLV_ERROR_UNSUPPORTED, "orientation +Y +X"},
            {"#?RADIANCE\n\n-Y 1 -X 1\nAAAA", CLV_ERROR_UNSUPPORTED, "orientation -Y -X"},
            {"#?RADIANCE\n\n+X 1 -Y 1\nAAAA", CLV_ERROR_UNSUPPORTED, "orientation +X -Y"},
            {"#?RADIANCE\n\n-Y 1 -Y 1\nAAAA", CLV_ERROR_FORMAT, "axis twice"},
            {"#?RADIANCE\n\n-Y one +X 1\nAAAA", CLV_ERROR_FORMAT, "size in words"},
            {"#?RADIANCE\n\n-Y 1 +X 1 extra\nAAAA", CLV_ERROR_FORMAT, "trailing junk"},
            {"#?RADIANCE\n\n-Y 0 +X 5\n", CLV_ERROR_FORMAT, "zero height"},
            {"#?RADIANCE\n\n-Y 1 +X 1", CLV_ERROR_FORMAT, "resolution line cut"},
            {"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n", CLV_ERROR_FORMAT, "no blank line"},
            {"#?RADIANCE\n\n-Y 60000 +X 60000\n", CLV_ERROR_INVALID_ARGUMENT,
             "announcing 60000x60000"},
            {"#?RADIANCE\n\n-Y 1 +X 70000\n", CLV_ERROR_UNSUPPORTED, "70000 wide"},
            {"#?RADIANCE\n\n-Y 99999999999999999999999 +X 5\n", CLV_ERROR_UNSUPPORTED,
             "absurd height"},
            {"#?RADIANCE\n\n-Y 64 +X 64\n", CLV_ERROR_FORMAT, "64x64 without data"},
            {"#?RADIANCE\n\n-Y 2 +X 2\n\x02\x02\x01\x02", CLV_ERROR_FORMAT, "data cut"},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            test_spit(tmp_path("head.hdr"), cases[i].text, strlen(cases[i].text));
            expect_read_fails(clv_hdr_read, tmp_path("head.hdr"), cases[i].want, cases[i].what);
        }
        /* A header line over 4 KiB, and a header over 64 KiB of short lines. */
        bytes b = {0};
        b_text(&b, "#?RADIANCE\nCOMMENT=");
        for (int i = 0; i < 5000; i++)
            b_u8(&b, 'x');
        b_text(&b, "\n\n-Y 1 +X 1\nAAAA");
        test_spit(tmp_path("long_line.hdr"), b.p, b.n);
        expect_read_fails(clv_hdr_read, tmp_path("long_line.hdr"), CLV_ERROR_FORMAT,
                          "header line over 4 KiB");
        b.n = 0;
        b_text(&b, "#?RADIANCE\n");
        for (int i = 0; i < 10000; i++)
            b_text(&b, "# comment\n");
        b_text(&b, "\n-Y 1 +X 1\nAAAA");
        test_spit(tmp_path("long_head.hdr"), b.p, b.n);
        expect_read_fails(clv_hdr_read, tmp_path("long_head.hdr"), CLV_ERROR_FORMAT,
                          "header over 64 KiB");
        free(b.p);
        /* The per-format reader refuses other magics; the generic one does
         * not recognise them. */
        test_spit(tmp_path("autopano.hdr"), "#?AUTOPANO\n\n-Y 1 +X 1\nAAAA", 26);
        expect_read_fails(clv_hdr_read, tmp_path("autopano.hdr"), CLV_ERROR_FORMAT,
                          "#?AUTOPANO");
    }
    /* Our writer's file cut at many places. */
    {
        clv_host_image src = make_f32(333, 17, 3, 77);
        EXPECT_STATUS(clv_hdr_write(tmp_path("cutme.hdr"), &src), CLV_OK);
        clv_host_image_free(&src);
        size_t n;
        unsigned char *b = test_slurp(tmp_path("cutme.hdr"), &n);
        size_t head = (size_t)(strstr((char *)b, "+X 333\n") - (char *)b) + 7;
        const size_t cuts[] = {1, 5, 11, 20, head - 1, head, head + 2, head + 4, n / 2, n - 1};
        for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
            expect_cut_fails(clv_hdr_read, b, cuts[i], "cutme.hdr");
        free(b);
    }
}

/* ---- PFM ---- */

/* A header with CRLF line endings reads like the LF one (issue 13 #9), and a
 * row stride that is not a multiple of 4 is written without misaligned float
 * loads (issue 13 #4: UBSan halts build-san on the old cast). */
static void test_hdr_crlf_and_stride(void)
{
    const int w = 21, h = 4;
    clv_host_image src = make_f32(w, h, 3, 901);
    EXPECT_STATUS(clv_hdr_write(tmp_path("crlf-src.hdr"), &src), CLV_OK);
    size_t n = 0;
    unsigned char *file = test_slurp(tmp_path("crlf-src.hdr"), &n);
    const char *res = strstr((const char *)file, "\n-Y 4 +X 21\n");
    REQUIRE(res, "resolution line of the written file");
    const size_t data_at = (size_t)(res - (const char *)file) + strlen("\n-Y 4 +X 21\n");

    static const char *const lines[] = {"#?RADIANCE", "# made by test_hdrio", "EXPOSURE=1.0",
                                        "FORMAT=32-bit_rle_rgbe", "", "-Y 4 +X 21"};
    const char *const magic[] = {"#?RADIANCE", "#?RGBE"};
    for (int m = 0; m < 2; m++) {
        bytes lf = {0}, crlf = {0};
        for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
            const char *line = i == 0 ? magic[m] : lines[i];
            b_text(&lf, line);
            b_text(&lf, "\n");
            b_text(&crlf, line);
            b_text(&crlf, "\r\n");
        }
        b_put(&lf, file + data_at, n - data_at);
        b_put(&crlf, file + data_at, n - data_at);
        test_spit(tmp_path("lf.hdr"), lf.p, lf.n);
        test_spit(tmp_path("crlf.hdr"), crlf.p, crlf.n);
        clv_host_image a = read_both(clv_hdr_read, tmp_path("lf.hdr"), "LF header");
        clv_host_image b = read_both(clv_hdr_read, tmp_path("crlf.hdr"), "CRLF header");
        EXPECT(a.data && b.data && a.width == w && a.height == h && b.width == w &&
                   b.height == h && b.channels == 3 &&
                   memcmp(a.data, b.data, (size_t)w * (size_t)h * 12) == 0,
               "%s: CRLF header reads %dx%dx%d, the same pixels as LF", magic[m], b.width,
               b.height, b.channels);
        clv_host_image_free(&a);
        clv_host_image_free(&b);
        free(lf.p);
        free(crlf.p);
    }
    /* CRLF cut inside the header: still a clean FORMAT error. */
    test_spit(tmp_path("crlf-cut.hdr"), "#?RADIANCE\r\nFORMAT=32-bit_rle_rgbe\r\n", 36);
    expect_read_fails(clv_hdr_read, tmp_path("crlf-cut.hdr"), CLV_ERROR_FORMAT, "CRLF cut");

    /* Odd strides: the same file as the packed image. */
    for (size_t extra = 1; extra <= 3; extra++) {
        clv_host_image odd = src;
        odd.stride = (size_t)w * 12 + extra;
        unsigned char *buf = malloc(odd.stride * (size_t)h + 1);
        REQUIRE(buf, "out of memory");
        odd.data = buf + 1; /* not even 4-aligned at row 0 */
        for (int y = 0; y < h; y++)
            memcpy((unsigned char *)odd.data + (size_t)y * odd.stride,
                   (unsigned char *)src.data + (size_t)y * src.stride, (size_t)w * 12);
        EXPECT_STATUS(clv_hdr_write(tmp_path("odd.hdr"), &odd), CLV_OK);
        EXPECT(test_same_file_content(tmp_path("odd.hdr"), file, n),
               "stride %zu writes the same file as the packed image", odd.stride);
        free(buf);
    }
    clv_host_image gray = make_f32(w, h, 1, 902);
    clv_host_image odd1 = gray;
    odd1.stride = (size_t)w * 4 + 1;
    unsigned char *buf = malloc(odd1.stride * (size_t)h);
    REQUIRE(buf, "out of memory");
    odd1.data = buf;
    for (int y = 0; y < h; y++)
        memcpy(buf + (size_t)y * odd1.stride, (unsigned char *)gray.data + (size_t)y * gray.stride,
               (size_t)w * 4);
    EXPECT_STATUS(clv_hdr_write(tmp_path("gray.hdr"), &gray), CLV_OK);
    EXPECT_STATUS(clv_hdr_write(tmp_path("odd1.hdr"), &odd1), CLV_OK);
    size_t gn = 0;
    unsigned char *g = test_slurp(tmp_path("gray.hdr"), &gn);
    EXPECT(test_same_file_content(tmp_path("odd1.hdr"), g, gn),
           "1 channel, stride %zu: same file as packed", odd1.stride);
    free(g);
    free(buf);
    clv_host_image_free(&gray);
    free(file);
    clv_host_image_free(&src);
}

static void test_pfm_roundtrip(void)
{
    static const int sizes[][2] = {{1, 1}, {7, 3}, {333, 17}};
    uint64_t seed = 300;
    for (size_t si = 0; si < 3; si++)
        for (int ch = 1; ch <= 3; ch += 2) {
            int w = sizes[si][0], h = sizes[si][1];
            clv_host_image src = make_f32(w, h, ch, seed++);
            add_specials(&src);
            const char *path = tmp_path(si % 2 ? "rt.Pfm" : "rt.pfm");
            EXPECT_STATUS(si % 2 ? clv_image_write(path, &src, 0) : clv_pfm_write(path, &src),
                          CLV_OK);
            char what[64];
            snprintf(what, sizeof what, "PFM round trip %dx%dx%d", w, h, ch);
            clv_host_image back = read_both(clv_pfm_read, path, what);
            EXPECT(same_bits(&src, &back), "%s is not bit-exact", what);
            clv_host_image_free(&back);
            clv_host_image_free(&src);
        }

    /* Layout on disk: header, host order (-1.0 on little-endian hosts),
     * bottom row first. */
    clv_host_image two;
    REQUIRE(clv_host_image_alloc(&two, 1, 2, 1, CLV_F32) == CLV_OK, "alloc");
    px(&two, 0, 0)[0] = 1.0f; /* top */
    px(&two, 0, 1)[0] = 2.0f; /* bottom */
    EXPECT_STATUS(clv_pfm_write(tmp_path("two.pfm"), &two), CLV_OK);
    size_t n;
    unsigned char *b = test_slurp(tmp_path("two.pfm"), &n);
    uint16_t one = 1;
    int le = *(unsigned char *)&one == 1;
    const char *head = le ? "Pf\n1 2\n-1.0\n" : "Pf\n1 2\n1.0\n";
    size_t hl = strlen(head);
    float first = 0.0f;
    if (n == hl + 8)
        memcpy(&first, b + hl, 4);
    EXPECT(n == hl + 8 && memcmp(b, head, hl) == 0 && first == 2.0f,
           "PFM layout: %zu bytes, first value %g", n, (double)first);
    free(b);
    clv_host_image_free(&two);
}

static void put_be_float(bytes *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    for (int i = 3; i >= 0; i--)
        b_u8(b, (u >> (8 * i)) & 0xFF);
}

static void test_pfm_handmade(void)
{
    /* Big-endian colour, 2x2, rows bottom to top. */
    {
        bytes b = {0};
        b_text(&b, "PF\n2 2\n1.0\n");
        const float rows[2][6] = {{1, 2, 3, 4, 5, 6}, {-7, 8.5f, 1e30f, 0, -0.0f, 1e-3f}};
        for (int r = 0; r < 2; r++)
            for (int i = 0; i < 6; i++)
                put_be_float(&b, rows[r][i]);
        test_spit(tmp_path("be.pfm"), b.p, b.n);
        clv_host_image img = read_both(clv_pfm_read, tmp_path("be.pfm"), "big-endian PFM");
        if (img.data && img.width == 2 && img.height == 2 && img.channels == 3)
            for (int r = 0; r < 2; r++)
                for (int i = 0; i < 6; i++)
                    EXPECT(px(&img, i / 3, 1 - r)[i % 3] == rows[r][i],
                           "big-endian PFM: file row %d value %d = %g, want %g", r, i,
                           (double)px(&img, i / 3, 1 - r)[i % 3], (double)rows[r][i]);
        else
            CHECK(0, "big-endian PFM: got %dx%dx%d", img.width, img.height, img.channels);
        clv_host_image_free(&img);
        for (size_t cut = 1; cut < 30; cut += 4)
            expect_cut_fails(clv_pfm_read, b.p, b.n - cut, "be.pfm");
        expect_cut_fails(clv_pfm_read, b.p, 3, "be.pfm");
        /* Bytes after the last row are ignored. */
        b_text(&b, "trailing");
        test_spit(tmp_path("trail.pfm"), b.p, b.n);
        img = read_both(clv_pfm_read, tmp_path("trail.pfm"), "PFM with trailing bytes");
        clv_host_image_free(&img);
        free(b.p);
    }
    /* Little-endian gray with spaces and odd scale spellings. */
    static const char *const scales[] = {"-1", "-0.5", "-.25", "-1e0", "-2.5E+3", "-0.001"};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        bytes b = {0};
        b_text(&b, "Pf 3 1 ");
        b_text(&b, scales[i]);
        b_u8(&b, ' ');
        for (int k = 0; k < 3; k++)
            b_f32(&b, (float)(k + 1) * 0.5f);
        test_spit(tmp_path("le.pfm"), b.p, b.n);
        clv_host_image img = read_both(clv_pfm_read, tmp_path("le.pfm"), scales[i]);
        EXPECT(img.data && img.channels == 1 && img.width == 3 && px(&img, 2, 0)[0] == 1.5f,
               "little-endian gray PFM with scale %s", scales[i]);
        clv_host_image_free(&img);
        free(b.p);
    }
    /* Bad headers. */
    struct {
        const char *text;
        clv_status want;
        const char *what;
    } cases[] = {
        {"PF\n2 2\n0\n", CLV_ERROR_FORMAT, "scale 0"},
        {"PF\n2 2\n-0.000\n", CLV_ERROR_FORMAT, "scale -0.000"},
        {"PF\n2 2\nabc\n", CLV_ERROR_FORMAT, "scale abc"},
        {"PF\n2 2\n1.0x\n", CLV_ERROR_FORMAT, "scale 1.0x"},
        {"PF\n2 2\n1e\n", CLV_ERROR_FORMAT, "scale 1e"},
        {"PF\n2x 2\n-1\n", CLV_ERROR_FORMAT, "width 2x"},
        {"PF\n-2 2\n-1\n", CLV_ERROR_FORMAT, "negative width"},
        {"PF\n# comment\n2 2\n-1\n", CLV_ERROR_FORMAT, "comment"},
        {"PF\n0 2\n-1\n", CLV_ERROR_FORMAT, "zero width"},
        {"PF\n2 2\n-1", CLV_ERROR_FORMAT, "no whitespace after the scale"},
        {"PF\n2 2", CLV_ERROR_FORMAT, "no scale"},
        {"PF\n60000 60000\n-1.0\n", CLV_ERROR_INVALID_ARGUMENT, "announcing 60000x60000"},
        {"Pf\n70000 1\n-1.0\n", CLV_ERROR_UNSUPPORTED, "70000 wide"},
        {"Pf\n1 99999999999999999999999999\n-1.0\n", CLV_ERROR_UNSUPPORTED, "absurd height"},
        {"PF\n64 64\n-1.0\n", CLV_ERROR_FORMAT, "64x64 without data"},
        {"PF\n2 2\n-1.0000000000000000000000000000000000000000000000000000000000000000000\n",
         CLV_ERROR_FORMAT, "scale token too long"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        test_spit(tmp_path("head.pfm"), cases[i].text, strlen(cases[i].text));
        expect_read_fails(clv_pfm_read, tmp_path("head.pfm"), cases[i].want, cases[i].what);
    }
    /* Not a PFM at all (the per-format reader; the generic one does not
     * sniff these as PFM). */
    test_spit(tmp_path("p6.pfm"), "P6\n1 1\n255\nabc", 14);
    expect_read_fails(clv_pfm_read, tmp_path("p6.pfm"), CLV_ERROR_FORMAT, "PPM P6");
    test_spit(tmp_path("pfx.pfm"), "PFX\n1 1\n-1\nabcd", strlen("PFX\n1 1\n-1\nabcd"));
    expect_read_fails(clv_pfm_read, tmp_path("pfx.pfm"), CLV_ERROR_FORMAT, "PFX");
}

/* ---- generic errors and dispatch ---- */

static void test_read_errors(void)
{
    reader_fn readers[3] = {clv_exr_read, clv_hdr_read, clv_pfm_read};
    const char *missing = tmp_path("does_not_exist.hdr");
    unsigned char garbage[3000];
    test_fill_random(garbage, sizeof garbage, CLV_U8, 9);
    garbage[0] = 0x42;
    test_spit(tmp_path("garbage.bin"), garbage, sizeof garbage);
    test_spit(tmp_path("empty.bin"), "", 0);
    for (int r = 0; r < 3; r++) {
#ifndef CLV_HAVE_OPENEXR
        if (r == 0)
            continue; /* checked in test_no_openexr */
#endif
        expect_read_fails(readers[r], missing, CLV_ERROR_IO, "missing file");
        expect_read_fails(readers[r], tmp_dir, CLV_ERROR_IO, "a directory");
        expect_read_fails(readers[r], tmp_path("empty.bin"), CLV_ERROR_FORMAT, "empty file");
        expect_read_fails(readers[r], tmp_path("garbage.bin"), CLV_ERROR_FORMAT, "garbage");
        clv_host_image img = junk_image();
        EXPECT_STATUS(readers[r](NULL, &img), CLV_ERROR_INVALID_ARGUMENT);
        EXPECT_STATUS(readers[r](missing, NULL), CLV_ERROR_INVALID_ARGUMENT);
    }
    /* The right magic followed by garbage. */
#ifdef CLV_HAVE_OPENEXR
    memcpy(garbage, "\x76\x2f\x31\x01", 4);
    test_spit(tmp_path("exr_garbage.exr"), garbage, sizeof garbage);
    expect_read_fails(clv_exr_read, tmp_path("exr_garbage.exr"), CLV_ERROR_FORMAT,
                      "EXR magic + garbage");
    memcpy(garbage, "\x76\x2f\x31\x01\x02\x00\x00\x00", 8);
    test_spit(tmp_path("exr_garbage2.exr"), garbage, sizeof garbage);
    expect_read_fails(clv_exr_read, tmp_path("exr_garbage2.exr"), CLV_ERROR_FORMAT,
                      "EXR magic + version + garbage");
#endif
    memcpy(garbage, "#?RADIANCE\n", 11);
    test_spit(tmp_path("hdr_garbage.hdr"), garbage, sizeof garbage);
    expect_read_fails(clv_hdr_read, tmp_path("hdr_garbage.hdr"), CLV_ERROR_FORMAT,
                      "HDR magic + garbage");
    memcpy(garbage, "PF\n", 3);
    test_spit(tmp_path("pfm_garbage.pfm"), garbage, sizeof garbage);
    expect_read_fails(clv_pfm_read, tmp_path("pfm_garbage.pfm"), CLV_ERROR_FORMAT,
                      "PFM magic + garbage");

    /* Each per-format reader refuses the others' files. */
    clv_host_image src = make_f32(4, 3, 3, 1);
    EXPECT_STATUS(clv_hdr_write(tmp_path("a.hdr"), &src), CLV_OK);
    EXPECT_STATUS(clv_pfm_write(tmp_path("a.pfm"), &src), CLV_OK);
    clv_host_image img = junk_image();
    EXPECT_STATUS(clv_hdr_read(tmp_path("a.pfm"), &img), CLV_ERROR_FORMAT);
    EXPECT_STATUS(clv_pfm_read(tmp_path("a.hdr"), &img), CLV_ERROR_FORMAT);
#ifdef CLV_HAVE_OPENEXR
    EXPECT_STATUS(clv_exr_write(tmp_path("a.exr"), &src), CLV_OK);
    EXPECT_STATUS(clv_exr_read(tmp_path("a.hdr"), &img), CLV_ERROR_FORMAT);
    EXPECT_STATUS(clv_hdr_read(tmp_path("a.exr"), &img), CLV_ERROR_FORMAT);
    EXPECT_STATUS(clv_pfm_read(tmp_path("a.exr"), &img), CLV_ERROR_FORMAT);
#endif
    EXPECT(is_zeroed(&img), "*out zeroed");
    clv_host_image_free(&src);
}

static void test_dispatch(void)
{
    clv_host_image src = make_f32(10, 6, 3, 3);
    /* Reading goes by content, not name. */
    EXPECT_STATUS(clv_pfm_write(tmp_path("really_pfm.hdr"), &src), CLV_OK);
    clv_host_image back = junk_image();
    EXPECT_STATUS(clv_image_read(tmp_path("really_pfm.hdr"), &back), CLV_OK);
    EXPECT(same_bits(&src, &back), "PFM named .hdr must read as PFM");
    clv_host_image_free(&back);
    EXPECT_STATUS(clv_hdr_write(tmp_path("really_hdr.exr"), &src), CLV_OK);
    EXPECT_STATUS(clv_image_read(tmp_path("really_hdr.exr"), &back), CLV_OK);
    EXPECT(rgbe_error(&src, &back) <= 1.0 / 256.0, "HDR named .exr must read as HDR");
    clv_host_image_free(&back);
#ifdef CLV_HAVE_OPENEXR
    EXPECT_STATUS(clv_exr_write(tmp_path("really_exr.pfm"), &src), CLV_OK);
    EXPECT_STATUS(clv_image_read(tmp_path("really_exr.pfm"), &back), CLV_OK);
    EXPECT(same_bits(&src, &back), "EXR named .pfm must read as EXR");
    clv_host_image_free(&back);
#endif

    /* Extensions are case-insensitive; quality is ignored. */
    static const char *const names[] = {"x.HDR", "y.Pfm", "z.hdr"};
    for (int i = 0; i < 3; i++) {
        EXPECT_STATUS(clv_image_write(tmp_path(names[i]), &src, 1000), CLV_OK);
        EXPECT_STATUS(clv_image_read(tmp_path(names[i]), &back), CLV_OK);
        clv_host_image_free(&back);
    }
    size_t n;
    unsigned char *b = test_slurp(tmp_path("x.HDR"), &n);
    EXPECT(n > 10 && memcmp(b, "#?RADIANCE", 10) == 0, "x.HDR must be Radiance");
    free(b);
    b = test_slurp(tmp_path("y.Pfm"), &n);
    EXPECT(n > 3 && memcmp(b, "PF\n", 3) == 0, "y.Pfm must be PFM");
    free(b);

    /* Unknown extensions: refused, nothing created. */
    int before = test_dir_entries(tmp_dir);
    static const char *const bad[] = {"x.exr.gz", "x.hdri", "x.pf", "x.exrx", "x.rgbe", "x."};
    for (int i = 0; i < 6; i++) {
        EXPECT_STATUS(clv_image_write(tmp_path(bad[i]), &src, 0), CLV_ERROR_UNSUPPORTED);
        EXPECT(!test_file_exists(tmp_path(bad[i])), "%s must not be created", bad[i]);
    }
    EXPECT(test_dir_entries(tmp_dir) == before, "refused writes left files behind");

    /* Magic bytes the generic reader must not take for ours. */
    static const struct {
        const char *data;
        size_t len;
    } near[] = {{"#?RADIANC", 9}, {"#?RGB\n", 6}, {"\x76\x2f\x31", 3}, {"PF", 2}, {"Pfx\n", 4}};
    for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
        test_spit(tmp_path("near.bin"), near[i].data, near[i].len);
        back = junk_image();
        EXPECT_STATUS(clv_image_read(tmp_path("near.bin"), &back), CLV_ERROR_FORMAT);
        EXPECT(is_zeroed(&back), "*out zeroed");
    }
    clv_host_image_free(&src);
}

/* ---- write errors ---- */

typedef clv_status (*writer_fn)(const char *, const clv_host_image *);

static void test_write_errors(void)
{
    static const char *const ext[3] = {"exr", "hdr", "pfm"};
    writer_fn writers[3] = {clv_exr_write, clv_hdr_write, clv_pfm_write};
    clv_host_image u8, u16, f4, f3;
    REQUIRE(clv_host_image_alloc(&u8, 16, 16, 3, CLV_U8) == CLV_OK, "alloc");
    REQUIRE(clv_host_image_alloc(&u16, 16, 16, 3, CLV_U16) == CLV_OK, "alloc");
    f4 = make_f32(16, 16, 4, 1);
    f3 = make_f32(16, 16, 3, 2);
    int entries = test_dir_entries(tmp_dir);
    char name[64];

    for (int f = 0; f < 3; f++) {
#ifndef CLV_HAVE_OPENEXR
        if (f == 0)
            continue;
#endif
        snprintf(name, sizeof name, "no/such/dir/out.%s", ext[f]);
        EXPECT_STATUS(writers[f](tmp_path(name), &f3), CLV_ERROR_IO);
        EXPECT_STATUS(clv_image_write(tmp_path(name), &f3, 0), CLV_ERROR_IO);
        EXPECT(strstr(clv_io_last_error(), "out.") != NULL, "message should name the file: %s",
               clv_io_last_error());

        snprintf(name, sizeof name, "typed.%s", ext[f]);
        EXPECT_STATUS(writers[f](tmp_path(name), &u8), CLV_ERROR_UNSUPPORTED);
        EXPECT(strstr(clv_io_last_error(), "u8") != NULL, "message should name u8: %s",
               clv_io_last_error());
        EXPECT_STATUS(clv_image_write(tmp_path(name), &u16, 0), CLV_ERROR_UNSUPPORTED);
        EXPECT(strstr(clv_io_last_error(), "clv_host_image_to_f32") != NULL,
               "message should point at clv_host_image_to_f32: %s", clv_io_last_error());
        if (f > 0) {
            EXPECT_STATUS(writers[f](tmp_path(name), &f4), CLV_ERROR_UNSUPPORTED);
            EXPECT_STATUS(clv_image_write(tmp_path(name), &f4, 0), CLV_ERROR_UNSUPPORTED);
        }

        clv_host_image bad = f3;
        bad.data = NULL;
        EXPECT_STATUS(writers[f](tmp_path(name), &bad), CLV_ERROR_INVALID_ARGUMENT);
        bad = f3;
        bad.channels = 2;
        EXPECT_STATUS(writers[f](tmp_path(name), &bad), CLV_ERROR_INVALID_ARGUMENT);
        bad = f3;
        bad.stride = 16 * 3 * 4 - 1;
        EXPECT_STATUS(writers[f](tmp_path(name), &bad), CLV_ERROR_INVALID_ARGUMENT);
        bad = f3;
        bad.height = 0;
        EXPECT_STATUS(writers[f](tmp_path(name), &bad), CLV_ERROR_INVALID_ARGUMENT);
        EXPECT_STATUS(writers[f](tmp_path(name), NULL), CLV_ERROR_INVALID_ARGUMENT);
        EXPECT_STATUS(writers[f](NULL, &f3), CLV_ERROR_INVALID_ARGUMENT);
    }
    EXPECT(!test_file_exists(tmp_path("no")), "nothing may be created");
    EXPECT(test_dir_entries(tmp_dir) == entries, "refused writes left %d new files behind",
           test_dir_entries(tmp_dir) - entries);

    /* A refused write over an existing file leaves it alone; a write that
     * fails half-way (the file size limit makes write() fail with EFBIG)
     * is CLV_ERROR_IO, leaves the old file intact and no temporary. */
    clv_host_image big = make_f32(300, 200, 3, 11);
    for (int f = 0; f < 3; f++) {
#ifndef CLV_HAVE_OPENEXR
        if (f == 0)
            continue;
#endif
        snprintf(name, sizeof name, "keep.%s", ext[f]);
        const char *keep = tmp_path(name);
        EXPECT_STATUS(writers[f](keep, &f3), CLV_OK);
        size_t old_len;
        unsigned char *old = test_slurp(keep, &old_len);
        EXPECT_STATUS(writers[f](keep, &u8), CLV_ERROR_UNSUPPORTED);
        EXPECT(test_same_file_content(keep, old, old_len), "refused %s write changed the old file",
               ext[f]);
        int before = test_dir_entries(tmp_dir);

        struct rlimit saved, lim;
        REQUIRE(getrlimit(RLIMIT_FSIZE, &saved) == 0, "getrlimit");
        void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
        lim = saved;
        lim.rlim_cur = 4096;
        REQUIRE(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit: %s", strerror(errno));
        clv_status s = clv_image_write(keep, &big, 0);
        char msg[512];
        snprintf(msg, sizeof msg, "%s", clv_io_last_error());
        REQUIRE(setrlimit(RLIMIT_FSIZE, &saved) == 0, "restoring the file size limit");
        signal(SIGXFSZ, old_handler);

        EXPECT(s == CLV_ERROR_IO, "%s write hitting EFBIG -> %s: %s", ext[f],
               clv_status_string(s), msg);
        EXPECT(test_same_file_content(keep, old, old_len), "failed %s write changed the old file",
               ext[f]);
        EXPECT(test_dir_entries(tmp_dir) == before, "failed %s write left a temporary file", ext[f]);
        free(old);

        /* Without the limit the same write replaces the file. */
        EXPECT_STATUS(clv_image_write(keep, &big, 0), CLV_OK);
        EXPECT(test_dir_entries(tmp_dir) == before, "successful %s write left a temporary file",
               ext[f]);

        /* The target is a directory: rename fails, the directory survives. */
        snprintf(name, sizeof name, "adir.%s", ext[f]);
        const char *dir = tmp_path(name);
        REQUIRE(mkdir(dir, 0700) == 0, "mkdir");
        before = test_dir_entries(tmp_dir);
        EXPECT_STATUS(writers[f](dir, &f3), CLV_ERROR_IO);
        struct stat st;
        EXPECT(stat(dir, &st) == 0 && S_ISDIR(st.st_mode), "directory target destroyed");
        EXPECT(test_dir_entries(tmp_dir) == before, "failed rename left a temporary file");
    }
    clv_host_image_free(&big);
    clv_host_image_free(&u8);
    clv_host_image_free(&u16);
    clv_host_image_free(&f4);
    clv_host_image_free(&f3);
}

#ifndef CLV_HAVE_OPENEXR
static void test_no_openexr(void)
{
    clv_host_image src = make_f32(8, 8, 3, 4);
    int before = test_dir_entries(tmp_dir);
    EXPECT_STATUS(clv_exr_write(tmp_path("none.exr"), &src), CLV_ERROR_UNSUPPORTED);
    EXPECT(strstr(clv_io_last_error(), "without OpenEXR") != NULL, "message: %s",
           clv_io_last_error());
    EXPECT_STATUS(clv_image_write(tmp_path("none.EXR"), &src, 0), CLV_ERROR_UNSUPPORTED);
    EXPECT(test_dir_entries(tmp_dir) == before, "a refused EXR write created a file");
    clv_host_image img = junk_image();
    EXPECT_STATUS(clv_exr_read(tmp_path("missing.exr"), &img), CLV_ERROR_UNSUPPORTED);
    EXPECT(is_zeroed(&img), "*out zeroed");
    clv_host_image_free(&src);
}
#endif

/* ---- clv_host_image_to_f32 ---- */

static void test_to_f32(void)
{
    /* A 16-bit PNG as linear input. */
    char *p = strdup(test_data_path("chelsea16.png"));
    REQUIRE(p, "out of memory");
    clv_host_image png, f = junk_image();
    REQUIRE(clv_image_read(p, &png) == CLV_OK, "chelsea16.png: %s", clv_io_last_error());
    REQUIRE(png.type == CLV_U16, "chelsea16.png must read as u16");
    EXPECT_STATUS(clv_host_image_to_f32(&png, &f, 1.0 / 65535.0), CLV_OK);
    EXPECT(f.type == CLV_F32 && f.width == png.width && f.height == png.height &&
               f.channels == png.channels && f.stride == (size_t)f.width * f.channels * 4,
           "to_f32 layout");
    int exact = 1;
    float lo = 1.0f, hi = 0.0f;
    for (int y = 0; y < png.height && f.data; y++)
        for (int i = 0; i < png.width * png.channels; i++) {
            uint16_t v = ((uint16_t *)((char *)png.data + (size_t)y * png.stride))[i];
            float got = ((float *)((char *)f.data + (size_t)y * f.stride))[i];
            exact &= fabs((double)got - v / 65535.0) <= 0.5e-7 + 1e-7 * v / 65535.0;
            lo = fminf(lo, got);
            hi = fmaxf(hi, got);
        }
    EXPECT(exact, "u16 * (1/65535) values");
    EXPECT(lo >= 0.0f && hi <= 1.0f && hi > 0.5f, "u16 range maps into [0,1] (%g..%g)",
           (double)lo, (double)hi);
    /* ... and round-trips through PFM. */
    EXPECT_STATUS(clv_image_write(tmp_path("chelsea16.pfm"), &f, 0), CLV_OK);
    clv_host_image back = read_both(clv_pfm_read, tmp_path("chelsea16.pfm"), "chelsea16 PFM");
    EXPECT(same_bits(&f, &back), "16-bit PNG -> f32 -> PFM round trip");
    clv_host_image_free(&back);
    clv_host_image_free(&f);

    /* u8 with a padded stride, f32 scaled by -2. */
    clv_host_image u8;
    REQUIRE(clv_host_image_alloc(&u8, 5, 3, 4, CLV_U8) == CLV_OK, "alloc");
    free(u8.data);
    u8.stride = 5 * 4 + 3;
    u8.data = malloc(u8.stride * 3);
    REQUIRE(u8.data, "out of memory");
    for (size_t i = 0; i < u8.stride * 3; i++)
        ((unsigned char *)u8.data)[i] = (unsigned char)(i * 13);
    EXPECT_STATUS(clv_host_image_to_f32(&u8, &f, 1.0 / 255.0), CLV_OK);
    int ok = f.data != NULL;
    for (int y = 0; y < 3 && ok; y++)
        for (int i = 0; i < 20; i++)
            ok &= fabs(((float *)f.data)[y * 20 + i] -
                       ((unsigned char *)u8.data)[(size_t)y * u8.stride + (size_t)i] / 255.0) <=
                  1e-7;
    EXPECT(ok, "u8 with padded stride");
    clv_host_image g = junk_image();
    EXPECT_STATUS(clv_host_image_to_f32(&f, &g, -2.0), CLV_OK);
    ok = g.data != NULL;
    for (int i = 0; i < 60 && ok; i++)
        ok &= ((float *)g.data)[i] == -2.0f * ((float *)f.data)[i];
    EXPECT(ok, "f32 * -2");
    clv_host_image_free(&g);

    /* Errors leave *out zeroed. */
    clv_host_image bad = u8;
    g = junk_image();
    EXPECT_STATUS(clv_host_image_to_f32(NULL, &g, 1.0), CLV_ERROR_INVALID_ARGUMENT);
    EXPECT(is_zeroed(&g), "*out zeroed");
    EXPECT_STATUS(clv_host_image_to_f32(&u8, NULL, 1.0), CLV_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(clv_host_image_to_f32(&f, &f, 1.0), CLV_ERROR_INVALID_ARGUMENT);
    EXPECT(f.data != NULL, "out == in must not touch the image");
    g = junk_image();
    EXPECT_STATUS(clv_host_image_to_f32(&u8, &g, NAN), CLV_ERROR_INVALID_ARGUMENT);
    EXPECT(is_zeroed(&g), "*out zeroed");
    EXPECT_STATUS(clv_host_image_to_f32(&u8, &g, INFINITY), CLV_ERROR_INVALID_ARGUMENT);
    bad.type = (clv_pixel_type)7;
    EXPECT_STATUS(clv_host_image_to_f32(&bad, &g, 1.0), CLV_ERROR_INVALID_ARGUMENT);
    bad = u8;
    bad.channels = 2;
    EXPECT_STATUS(clv_host_image_to_f32(&bad, &g, 1.0), CLV_ERROR_INVALID_ARGUMENT);
    bad = u8;
    bad.stride = 19;
    EXPECT_STATUS(clv_host_image_to_f32(&bad, &g, 1.0), CLV_ERROR_INVALID_ARGUMENT);
    bad = u8;
    bad.data = NULL;
    EXPECT_STATUS(clv_host_image_to_f32(&bad, &g, 1.0), CLV_ERROR_INVALID_ARGUMENT);
    EXPECT(is_zeroed(&g), "*out zeroed");

    clv_host_image_free(&f);
    clv_host_image_free(&u8);
    clv_host_image_free(&png);
    free(p);
}

/* ---- threads ---- */

typedef struct thread_arg {
    int id;
    int failures;
} thread_arg;

static void *thread_main(void *p)
{
    thread_arg *a = p;
    static const char *const ext[3] = {"exr", "hdr", "pfm"};
    for (int i = 0; i < 12; i++) {
        int f = i % 3;
#ifndef CLV_HAVE_OPENEXR
        if (f == 0)
            continue;
#endif
        clv_host_image src, back;
        if (clv_host_image_alloc(&src, 41 + i, 23, 3, CLV_F32) != CLV_OK) {
            a->failures++;
            continue;
        }
        fill_hdr(&src, (uint64_t)(a->id * 100 + i));
        char path[4096];
        snprintf(path, sizeof path, "%s/t%d_%d.%s", tmp_dir, a->id, i, ext[f]);
        if (clv_image_write(path, &src, 0) != CLV_OK || clv_image_read(path, &back) != CLV_OK)
            a->failures++;
        else if (f == 1 ? rgbe_error(&src, &back) > 1.0 / 256.0 : !same_bits(&src, &back))
            a->failures++;
        clv_host_image_free(&back);
        clv_host_image_free(&src);
        /* Failures in this thread must not show in the other's message. */
        snprintf(path, sizeof path, "%s/garbage.bin", tmp_dir);
        if (clv_image_read(path, &back) != CLV_ERROR_FORMAT)
            a->failures++;
        snprintf(path, sizeof path, "%s/t%d_%d.%s", tmp_dir, a->id, i, ext[f]);
        unlink(path);
    }
    return NULL;
}

static void test_threads(void)
{
    clv_host_image img;
    EXPECT_STATUS(clv_hdr_read(tmp_path("main_thread_missing.hdr"), &img), CLV_ERROR_IO);
    char mine[512];
    snprintf(mine, sizeof mine, "%s", clv_io_last_error());
    pthread_t th[2];
    thread_arg args[2] = {{0, 0}, {1, 0}};
    for (int i = 0; i < 2; i++)
        REQUIRE(pthread_create(&th[i], NULL, thread_main, &args[i]) == 0, "pthread_create");
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 2; i++)
        EXPECT(args[i].failures == 0, "thread %d: %d failures", i, args[i].failures);
    EXPECT(strcmp(clv_io_last_error(), mine) == 0, "another thread changed this thread's error");
}

int main(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/clv-test-hdrio-XXXXXX");
    REQUIRE(mkdtemp(tmp_dir), "mkdtemp: %s", strerror(errno));

    test_bundled_exr();
#ifdef CLV_HAVE_OPENEXR
    test_exr_roundtrip();
    test_exr_handmade();
    test_exr_stored_chunks();
#else
    test_no_openexr();
#endif
    test_hdr_roundtrip();
    test_hdr_handmade();
    test_hdr_crlf_and_stride();
    test_pfm_roundtrip();
    test_pfm_handmade();
    test_read_errors();
    test_dispatch();
    test_write_errors();
    test_to_f32();
    test_threads();

    test_remove_tree(tmp_dir);
    return test_finish("hdrio", passed);
}
