/* Image file I/O: bundled real images against expectations computed outside
 * clvision (tests/data/expected.txt, written by tests/data/make_data.py from
 * the arrays it encoded, each file cross-decoded there by OpenCV/Pillow),
 * bit-exact PNG round trips, JPEG round trips within a PSNR bound, format
 * dispatch, the pixel limit, and every error path (with the file system
 * checked afterwards: no file or temp file left, old files untouched).
 * Issue 13: every reader refuses a FIFO (without hanging), /dev/zero, a
 * directory and a link to a FIFO, and follows a link to an image; an
 * overwrite keeps the target's permission bits; the temporaries table
 * (clv_io_track_temporary, clv_remove_temporaries).
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
#include <time.h>
#include <unistd.h>

#include <jpeglib.h>

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

static char *data_path(const char *name)
{
    char *p = strdup(test_data_path(name));
    REQUIRE(p, "out of memory");
    return p;
}

/* ---- pixels ---- */

static size_t type_size(clv_pixel_type t)
{
    return t == CLV_U8 ? 1 : t == CLV_U16 ? 2 : 4;
}

/* FNV-1a 64 over the samples, rows packed, u16 as little-endian byte pairs
 * (the definition make_data.py uses). */
static uint64_t image_hash(const clv_host_image *img)
{
    uint64_t h = 0xCBF29CE484222325ull;
    size_t row = (size_t)img->width * (size_t)img->channels;
    for (int y = 0; y < img->height; y++) {
        const unsigned char *p = (const unsigned char *)img->data + (size_t)y * img->stride;
        for (size_t i = 0; i < row; i++) {
            if (img->type == CLV_U16) {
                uint16_t v;
                memcpy(&v, p + 2 * i, 2);
                h = (h ^ (v & 0xFFu)) * 0x100000001B3ull;
                h = (h ^ (v >> 8)) * 0x100000001B3ull;
            } else {
                h = (h ^ p[i]) * 0x100000001B3ull;
            }
        }
    }
    return h;
}

static int same_pixels(const clv_host_image *a, const clv_host_image *b)
{
    if (a->width != b->width || a->height != b->height || a->channels != b->channels ||
        a->type != b->type)
        return 0;
    size_t row = (size_t)a->width * (size_t)a->channels * type_size(a->type);
    for (int y = 0; y < a->height; y++)
        if (memcmp((const char *)a->data + (size_t)y * a->stride,
                   (const char *)b->data + (size_t)y * b->stride, row) != 0)
            return 0;
    return 1;
}

static double psnr_u8(const clv_host_image *a, const clv_host_image *b)
{
    double se = 0.0;
    size_t n = 0;
    for (int y = 0; y < a->height; y++) {
        const uint8_t *p = (const uint8_t *)a->data + (size_t)y * a->stride;
        const uint8_t *q = (const uint8_t *)b->data + (size_t)y * b->stride;
        for (int i = 0; i < a->width * a->channels; i++, n++)
            se += ((double)p[i] - q[i]) * ((double)p[i] - q[i]);
    }
    return se == 0.0 ? 99.0 : 10.0 * log10(255.0 * 255.0 / (se / (double)n));
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

/* ---- expected.txt ---- */

typedef struct expectation {
    int found;
    int width, height, channels;
    char type[8];
    int is_mean;
    uint64_t hash;
    double mean[4];
} expectation;

static expectation lookup(const char *name)
{
    expectation e;
    memset(&e, 0, sizeof e);
    FILE *f = fopen(test_data_path("expected.txt"), "r");
    REQUIRE(f, "cannot open %s", test_data_path("expected.txt"));
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char nm[128], kind[32];
        if (line[0] == '#' || sscanf(line, "%127s", nm) != 1 || strcmp(nm, name) != 0)
            continue;
        int n = sscanf(line, "%127s %d %d %d %7s %31s", nm, &e.width, &e.height, &e.channels,
                       e.type, kind);
        REQUIRE(n == 6, "bad manifest line: %s", line);
        if (strcmp(kind, "mean") == 0) {
            e.is_mean = 1;
            const char *p = strstr(line, " mean ") + 6;
            for (int c = 0; c < e.channels; c++) {
                char *end;
                e.mean[c] = strtod(p, &end);
                REQUIRE(end != p, "bad mean in: %s", line);
                p = end;
            }
        } else {
            e.hash = strtoull(kind, NULL, 16);
        }
        e.found = 1;
        break;
    }
    fclose(f);
    REQUIRE(e.found, "%s has no line in expected.txt", name);
    return e;
}

/* ---- host images ---- */

static void test_alloc(void)
{
    clv_host_image img = junk_image();
    EXPECT_STATUS(clv_host_image_alloc(&img, 7, 3, 3, CLV_U16), CLV_OK);
    EXPECT(img.width == 7 && img.height == 3 && img.channels == 3 && img.type == CLV_U16 &&
               img.stride == 7 * 3 * 2 && img.data != NULL,
           "alloc fields");
    int zero = 1;
    for (size_t i = 0; i < img.stride * 3; i++)
        zero &= ((unsigned char *)img.data)[i] == 0;
    EXPECT(zero, "alloc must zero the pixels");
    clv_host_image_free(&img);
    EXPECT(is_zeroed(&img), "free must zero the struct");
    clv_host_image_free(&img); /* twice is fine */
    clv_host_image_free(NULL);

    struct {
        int w, h, c;
        clv_pixel_type t;
    } bad[] = {
        {0, 5, 1, CLV_U8},       {5, 0, 1, CLV_U8},     {-1, 5, 1, CLV_U8},
        {CLV_MAX_DIMENSION + 1, 1, 1, CLV_U8},          {1, CLV_MAX_DIMENSION + 1, 1, CLV_U8},
        {5, 5, -2, CLV_U8},      {5, 5, 0, CLV_U8},     {5, 5, 5, CLV_U8},
        {5, 5, 1, (clv_pixel_type)0},                   {5, 5, 1, (clv_pixel_type)9},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        img = junk_image();
        EXPECT_STATUS(clv_host_image_alloc(&img, bad[i].w, bad[i].h, bad[i].c, bad[i].t),
                      CLV_ERROR_INVALID_ARGUMENT);
        EXPECT(is_zeroed(&img), "failed alloc %zu must leave a zeroed struct", i);
    }
    EXPECT_STATUS(clv_host_image_alloc(NULL, 1, 1, 1, CLV_U8), CLV_ERROR_INVALID_ARGUMENT);
    /* 2 channels (flow fields) are a valid host image */
    EXPECT_STATUS(clv_host_image_alloc(&img, 5, 3, 2, CLV_F32), CLV_OK);
    EXPECT(img.stride == 5 * 2 * sizeof(float) && img.data != NULL, "2-channel host image");
    clv_host_image_free(&img);

    /* The largest side is accepted. */
    EXPECT_STATUS(clv_host_image_alloc(&img, CLV_MAX_DIMENSION, 1, 1, CLV_U8), CLV_OK);
    clv_host_image_free(&img);
}

/* ---- bundled files ---- */

static const char *const bundled_png[] = {
    "chelsea.png",           "camera.png",  "camera_2bit.png", "rocket_rgba.png",
    "chelsea16.png",         "baboon_gray_alpha.png", "baboon_gray_alpha_rgba.png",
    "palette.png",           "palette_rgba.png",      "interlaced.png",
    "interlaced_plain.png",
};

static void test_bundled_png(void)
{
    for (size_t i = 0; i < sizeof bundled_png / sizeof bundled_png[0]; i++) {
        const char *name = bundled_png[i];
        expectation e = lookup(name);
        char *path = data_path(name);
        for (int api = 0; api < 2; api++) {
            clv_host_image img = junk_image();
            clv_status s = api ? clv_png_read(path, &img) : clv_image_read(path, &img);
            EXPECT(s == CLV_OK, "%s %s: %s: %s", api ? "clv_png_read" : "clv_image_read", name,
                   clv_status_string(s), clv_io_last_error());
            if (s != CLV_OK)
                continue;
            clv_pixel_type want_type = strcmp(e.type, "u16") == 0 ? CLV_U16 : CLV_U8;
            EXPECT(img.width == e.width && img.height == e.height && img.channels == e.channels &&
                       img.type == want_type,
                   "%s: got %dx%dx%d %s, expected %dx%dx%d %s", name, img.width, img.height,
                   img.channels, img.type == CLV_U16 ? "u16" : "u8", e.width, e.height,
                   e.channels, e.type);
            EXPECT(img.stride == (size_t)img.width * img.channels * type_size(img.type),
                   "%s: reader output must be packed", name);
            uint64_t h = image_hash(&img);
            EXPECT(h == e.hash, "%s: pixel hash %016llx, expected %016llx", name,
                   (unsigned long long)h, (unsigned long long)e.hash);
            clv_host_image_free(&img);
        }
        free(path);
    }
}

/* Files that must decode to the same pixels as their plain RGB(A) twins. */
static void test_png_counterparts(void)
{
    static const char *const pairs[][2] = {
        {"interlaced.png", "interlaced_plain.png"},
        {"baboon_gray_alpha.png", "baboon_gray_alpha_rgba.png"},
        {"palette.png", "palette_rgba.png"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        char *pa = data_path(pairs[i][0]), *pb = data_path(pairs[i][1]);
        clv_host_image a, b;
        clv_status sa = clv_image_read(pa, &a), sb = clv_image_read(pb, &b);
        EXPECT(sa == CLV_OK && sb == CLV_OK, "reading %s / %s: %s", pairs[i][0], pairs[i][1],
               clv_io_last_error());
        if (sa == CLV_OK && sb == CLV_OK)
            EXPECT(same_pixels(&a, &b), "%s and %s must decode to the same pixels", pairs[i][0],
                   pairs[i][1]);
        clv_host_image_free(&a);
        clv_host_image_free(&b);
        free(pa);
        free(pb);
    }
}

static void test_bundled_jpeg(void)
{
    expectation e = lookup("coffee.jpg");
    char *path = data_path("coffee.jpg");
    for (int api = 0; api < 2; api++) {
        clv_host_image img = junk_image();
        clv_status s = api ? clv_jpeg_read(path, &img) : clv_image_read(path, &img);
        EXPECT(s == CLV_OK, "coffee.jpg: %s: %s", clv_status_string(s), clv_io_last_error());
        if (s != CLV_OK)
            continue;
        EXPECT(img.width == e.width && img.height == e.height && img.channels == 3 &&
                   img.type == CLV_U8 && img.stride == (size_t)img.width * 3,
               "coffee.jpg: got %dx%dx%d", img.width, img.height, img.channels);
        double sum[3] = {0, 0, 0};
        for (int y = 0; y < img.height; y++)
            for (int x = 0; x < img.width; x++)
                for (int c = 0; c < 3; c++)
                    sum[c] += ((uint8_t *)img.data)[(size_t)y * img.stride + (size_t)x * 3 + c];
        for (int c = 0; c < 3; c++) {
            double mean = sum[c] / ((double)img.width * img.height);
            /* Decoders may differ by a rounding step here and there. */
            EXPECT(fabs(mean - e.mean[c]) < 0.5, "coffee.jpg channel %d mean %.3f, reference %.3f",
                   c, mean, e.mean[c]);
        }
        clv_host_image_free(&img);
    }
    free(path);

    char *cmyk = data_path("cmyk.jpg");
    clv_host_image img = junk_image();
    EXPECT_STATUS(clv_image_read(cmyk, &img), CLV_ERROR_UNSUPPORTED);
    EXPECT(is_zeroed(&img), "failed read must zero *out");
    EXPECT(strstr(clv_io_last_error(), "CMYK") != NULL, "message should say CMYK: %s",
           clv_io_last_error());
    free(cmyk);
}

/* ---- round trips ---- */

/* Bytes 24/25 of a PNG: IHDR bit depth and colour type. */
static void png_header(const char *path, int *depth, int *color)
{
    size_t n;
    unsigned char *b = test_slurp(path, &n);
    *depth = n > 25 ? b[24] : -1;
    *color = n > 25 ? b[25] : -1;
    free(b);
}

static void test_png_roundtrip(void)
{
    static const int sizes[][2] = {{1, 1}, {7, 3}, {333, 17}};
    static const clv_pixel_type types[] = {CLV_U8, CLV_U16};
    static const int chans[] = {1, 3, 4};
    uint64_t seed = 1;
    for (size_t si = 0; si < 3; si++)
        for (size_t ti = 0; ti < 2; ti++)
            for (size_t ci = 0; ci < 3; ci++) {
                int w = sizes[si][0], h = sizes[si][1], ch = chans[ci];
                clv_pixel_type t = types[ti];
                clv_host_image src, back;
                REQUIRE(clv_host_image_alloc(&src, w, h, ch, t) == CLV_OK, "alloc");
                test_fill_random(src.data, (size_t)w * h * ch, t, seed++);
                const char *path = tmp_path("rt.png");
                EXPECT_STATUS(clv_image_write(path, &src, 0), CLV_OK);
                int depth, color;
                png_header(path, &depth, &color);
                EXPECT(depth == (t == CLV_U16 ? 16 : 8) && color == (ch == 1 ? 0 : ch == 3 ? 2 : 6),
                       "%dx%dx%d: IHDR depth %d colour type %d", w, h, ch, depth, color);
                EXPECT_STATUS(clv_image_read(path, &back), CLV_OK);
                EXPECT(same_pixels(&src, &back), "PNG round trip %dx%dx%d %s not bit-exact", w,
                       h, ch, t == CLV_U16 ? "u16" : "u8");
                clv_host_image_free(&back);
                clv_host_image_free(&src);
            }

    /* A padded source stride: only the pixels are written. */
    clv_host_image padded, back;
    REQUIRE(clv_host_image_alloc(&padded, 19, 5, 3, CLV_U16) == CLV_OK, "alloc");
    size_t row = padded.stride;
    free(padded.data);
    padded.stride = row + 10;
    padded.data = malloc(padded.stride * 5);
    REQUIRE(padded.data, "out of memory");
    test_fill_random(padded.data, padded.stride * 5 / 2, CLV_U16, 99);
    EXPECT_STATUS(clv_png_write(tmp_path("padded.png"), &padded), CLV_OK);
    EXPECT_STATUS(clv_png_read(tmp_path("padded.png"), &back), CLV_OK);
    EXPECT(back.stride == row && same_pixels(&padded, &back), "padded-stride round trip");
    clv_host_image_free(&back);
    clv_host_image_free(&padded);

    /* 16-bit values come back in host order: 0x0102 is 258. */
    clv_host_image one;
    REQUIRE(clv_host_image_alloc(&one, 1, 1, 1, CLV_U16) == CLV_OK, "alloc");
    ((uint16_t *)one.data)[0] = 0x0102;
    EXPECT_STATUS(clv_png_write(tmp_path("one16.png"), &one), CLV_OK);
    EXPECT_STATUS(clv_png_read(tmp_path("one16.png"), &back), CLV_OK);
    EXPECT(back.type == CLV_U16 && ((uint16_t *)back.data)[0] == 258, "u16 host order");
    clv_host_image_free(&back);
    clv_host_image_free(&one);

    /* Writing leaves the source untouched (libpng byte-swaps a copy). */
    clv_host_image src, copy;
    REQUIRE(clv_host_image_alloc(&src, 33, 9, 4, CLV_U16) == CLV_OK, "alloc");
    REQUIRE(clv_host_image_alloc(&copy, 33, 9, 4, CLV_U16) == CLV_OK, "alloc");
    test_fill_random(src.data, 33 * 9 * 4, CLV_U16, 5);
    memcpy(copy.data, src.data, src.stride * 9);
    EXPECT_STATUS(clv_png_write(tmp_path("untouched.png"), &src), CLV_OK);
    EXPECT(same_pixels(&src, &copy), "clv_png_write modified its input");
    clv_host_image_free(&src);
    clv_host_image_free(&copy);

    /* Quality is ignored for PNG. */
    REQUIRE(clv_host_image_alloc(&src, 3, 3, 1, CLV_U8) == CLV_OK, "alloc");
    EXPECT_STATUS(clv_image_write(tmp_path("q.png"), &src, 500), CLV_OK);
    clv_host_image_free(&src);
}

/* Smooth test pattern (what JPEG is made for). */
static void fill_smooth(clv_host_image *img)
{
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < img->channels; c++) {
                double v = 128.0 + 60.0 * sin(x / 17.0 + c) + 50.0 * cos(y / 13.0 - 0.5 * c);
                ((uint8_t *)img->data)[(size_t)y * img->stride + (size_t)x * img->channels + c] =
                    (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5);
            }
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void test_jpeg_roundtrip(void)
{
    static const int sizes[][2] = {{1, 1}, {7, 3}, {333, 17}, {160, 120}};
    for (size_t si = 0; si < 4; si++)
        for (int ch = 1; ch <= 3; ch += 2) {
            int w = sizes[si][0], h = sizes[si][1];
            clv_host_image src, back;
            REQUIRE(clv_host_image_alloc(&src, w, h, ch, CLV_U8) == CLV_OK, "alloc");
            fill_smooth(&src);
            const char *path = tmp_path("rt.jpg");
            EXPECT_STATUS(clv_image_write(path, &src, 95), CLV_OK);
            back = junk_image();
            EXPECT_STATUS(clv_image_read(path, &back), CLV_OK);
            EXPECT(back.width == w && back.height == h && back.channels == ch &&
                       back.type == CLV_U8,
                   "JPEG %dx%dx%d came back as %dx%dx%d", w, h, ch, back.width, back.height,
                   back.channels);
            if (back.data && back.channels == ch) {
                double p = psnr_u8(&src, &back);
                EXPECT(p > 35.0, "JPEG q95 %dx%dx%d PSNR %.2f dB <= 35", w, h, ch, p);
            }
            clv_host_image_free(&back);
            clv_host_image_free(&src);
        }

    /* A gray photo stays 1 channel and close to the original. */
    char *cam = data_path("camera.png");
    clv_host_image gray, back;
    REQUIRE(clv_image_read(cam, &gray) == CLV_OK, "camera.png: %s", clv_io_last_error());
    EXPECT_STATUS(clv_jpeg_write(tmp_path("camera.jpeg"), &gray, 95), CLV_OK);
    EXPECT_STATUS(clv_jpeg_read(tmp_path("camera.jpeg"), &back), CLV_OK);
    EXPECT(back.channels == 1 && back.width == 256 && back.height == 256,
           "gray JPEG read as %d channels", back.channels);
    if (back.channels == 1)
        EXPECT(psnr_u8(&gray, &back) > 35.0, "camera q95 PSNR %.2f", psnr_u8(&gray, &back));
    clv_host_image_free(&back);

    /* Quality matters: q10 is smaller and worse than q95; 0 means 92. */
    EXPECT_STATUS(clv_jpeg_write(tmp_path("q10.jpg"), &gray, 10), CLV_OK);
    EXPECT_STATUS(clv_jpeg_write(tmp_path("q0.jpg"), &gray, 0), CLV_OK);
    EXPECT_STATUS(clv_jpeg_write(tmp_path("q92.jpg"), &gray, 92), CLV_OK);
    EXPECT(file_size(tmp_path("q10.jpg")) < file_size(tmp_path("camera.jpeg")),
           "q10 (%ld bytes) should be smaller than q95 (%ld)", file_size(tmp_path("q10.jpg")),
           file_size(tmp_path("camera.jpeg")));
    size_t n0, n92;
    unsigned char *b0 = test_slurp(tmp_path("q0.jpg"), &n0), *b92 = test_slurp(tmp_path("q92.jpg"), &n92);
    EXPECT(n0 == n92 && memcmp(b0, b92, n0) == 0, "quality 0 must mean 92");
    free(b0);
    free(b92);
    clv_host_image_free(&gray);
    free(cam);
}


/* ---- progressive JPEG scan limit (issue 13 #1) ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    int ok = fwrite(p, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* A progressive JPEG of img, written by libjpeg (jpeg_simple_progression). */
static unsigned char *progressive_jpeg(const clv_host_image *img, size_t *size)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr jerr;
    unsigned char *buf = NULL;
    unsigned long len = 0;
    c.err = jpeg_std_error(&jerr);
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &buf, &len);
    c.image_width = (JDIMENSION)img->width;
    c.image_height = (JDIMENSION)img->height;
    c.input_components = img->channels;
    c.in_color_space = img->channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 90, TRUE);
    jpeg_simple_progression(&c);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = (JSAMPROW)img->data + (size_t)c.next_scanline * img->stride;
        (void)jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    *size = len;
    return buf;
}

/* The file with a DHT + SOS (+ entropy data) segment repeated
 * `extra` more times before EOI: a "scan bomb". */
static unsigned char *scan_bomb(const unsigned char *jpg, size_t n, int extra, size_t *size)
{
    size_t pos = 2, seg_at = 0, seg_len = 0, eoi = 0, prev_marker_at = 0;
    int prev = 0;
    while (pos + 2 <= n) {
        REQUIRE(jpg[pos] == 0xFF, "marker expected at %zu", pos);
        int m = jpg[pos + 1];
        if (m == 0xD9) {
            eoi = pos;
            break;
        }
        REQUIRE(pos + 4 <= n, "truncated marker at %zu", pos);
        size_t len = (size_t)jpg[pos + 2] << 8 | jpg[pos + 3];
        size_t start = pos;
        pos += 2 + len;
        if (m == 0xDA) {
            /* the smallest first-pass AC scan (Ss > 0, Ah = 0) with its own DHT:
             * it decodes on its own, again and again */
            size_t ns = jpg[start + 4], p = start + 5 + 2 * ns;
            REQUIRE(p + 2 < n, "short SOS at %zu", start);
            int ss = jpg[p], ah = jpg[p + 2] >> 4;
            /* entropy data up to the next marker that is not a stuffed byte or RST */
            while (pos + 1 < n &&
                   !(jpg[pos] == 0xFF && jpg[pos + 1] != 0 &&
                     !(jpg[pos + 1] >= 0xD0 && jpg[pos + 1] <= 0xD7)))
                pos++;
            if (prev == 0xC4 && ss > 0 && ah == 0 && (!seg_len || pos - prev_marker_at < seg_len)) {
                seg_at = prev_marker_at;
                seg_len = pos - prev_marker_at;
            }
        }
        prev = m;
        prev_marker_at = start;
    }
    REQUIRE(eoi && seg_len, "no DHT+SOS segment of a first AC scan in the progressive JPEG");
    size_t seg = seg_len;
    *size = n + (size_t)extra * seg;
    unsigned char *out = malloc(*size);
    REQUIRE(out, "out of memory");
    memcpy(out, jpg, eoi);
    for (int k = 0; k < extra; k++)
        memcpy(out + eoi + (size_t)k * seg, jpg + seg_at, seg);
    memcpy(out + eoi + (size_t)extra * seg, jpg + eoi, n - eoi);
    return out;
}

static void test_jpeg_scan_limit(void)
{
    EXPECT(clv_jpeg_max_scans() == CLV_JPEG_DEFAULT_MAX_SCANS && CLV_JPEG_DEFAULT_MAX_SCANS == 100,
           "default scan limit %u", clv_jpeg_max_scans());
    clv_host_image src, back;
    REQUIRE(clv_host_image_alloc(&src, 512, 512, 3, CLV_U8) == CLV_OK, "alloc");
    fill_smooth(&src);
    size_t n = 0, nb = 0;
    unsigned char *jpg = progressive_jpeg(&src, &n);
    const char *prog = tmp_path("progressive.jpg");
    REQUIRE(write_bytes(prog, jpg, n), "write %s", prog);

    /* A normal progressive JPEG reads, at the default limit. */
    back = junk_image();
    EXPECT_STATUS(clv_jpeg_read(prog, &back), CLV_OK);
    EXPECT(back.width == 512 && back.height == 512 && back.channels == 3 &&
               psnr_u8(&src, &back) > 35.0,
           "progressive JPEG read as %dx%dx%d", back.width, back.height, back.channels);
    clv_host_image_free(&back);

    /* 3000 more scans: stopped at scan 101 with one clear line. */
    unsigned char *bomb = scan_bomb(jpg, n, 3000, &nb);
    const char *bpath = tmp_path("scanbomb.jpg");
    REQUIRE(write_bytes(bpath, bomb, nb), "write %s", bpath);
    back = junk_image();
    double t0 = now_s();
    EXPECT_STATUS(clv_image_read(bpath, &back), CLV_ERROR_FORMAT);
    double t_limited = now_s() - t0;
    EXPECT(is_zeroed(&back), "failed read must zero *out");
    EXPECT(strstr(clv_io_last_error(), "more than 100 scans") &&
               strstr(clv_io_last_error(), "clv_jpeg_set_max_scans") &&
               !strchr(clv_io_last_error(), '\n'),
           "scan-limit message: %s", clv_io_last_error());
    EXPECT(t_limited < 5.0, "the scan limit took %.2f s to stop a 3000-scan file", t_limited);

    /* Raising the limit makes the same file read (slowly: every scan is decoded). */
    clv_jpeg_set_max_scans(4000);
    EXPECT(clv_jpeg_max_scans() == 4000, "limit not raised");
    back = junk_image();
    t0 = now_s();
    EXPECT_STATUS(clv_jpeg_read(bpath, &back), CLV_OK);
    double t_full = now_s() - t0;
    EXPECT(back.width == 512 && back.height == 512 && back.channels == 3,
           "bomb read as %dx%dx%d", back.width, back.height, back.channels);
    clv_host_image_free(&back);
    /* Exactly at the limit still reads; one below fails. */
    clv_jpeg_set_max_scans(10 + 3000);
    back = junk_image();
    EXPECT_STATUS(clv_jpeg_read(bpath, &back), CLV_OK);
    clv_host_image_free(&back);
    clv_jpeg_set_max_scans(10 + 3000 - 1);
    EXPECT_STATUS(clv_jpeg_read(bpath, &back), CLV_ERROR_FORMAT);
    clv_jpeg_set_max_scans(0); /* back to the default */
    EXPECT(clv_jpeg_max_scans() == CLV_JPEG_DEFAULT_MAX_SCANS, "0 must restore the default");
    printf("  jpeg scan bomb (%zu bytes, 3010 scans): %.3f s stopped, %.3f s decoded\n", nb,
           t_limited, t_full);

    free(bomb);
    free(jpg);
    clv_host_image_free(&src);
}


/* ---- absurd header sizes are reported as the file states them (issue 13 #13) ---- */

static void write_png_header_only(const char *path, uint32_t w, uint32_t h);

static void put_le32_at(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* The read fails with `want` and its message contains `needle`. */
static void expect_size_message(const char *path, clv_status want, const char *needle)
{
    clv_host_image img = junk_image();
    EXPECT_STATUS(clv_image_read(path, &img), want);
    EXPECT(is_zeroed(&img), "%s: failed read must zero *out", path);
    EXPECT(strstr(clv_io_last_error(), needle) != NULL, "%s: message lacks '%s': %s", path,
           needle, clv_io_last_error());
    clv_host_image_free(&img);
}

static void test_absurd_sizes(void)
{
    /* PNG: IHDR holds 31-bit sizes. */
    write_png_header_only(tmp_path("wide.png"), 2000000000u, 1);
    expect_size_message(tmp_path("wide.png"), CLV_ERROR_UNSUPPORTED, "2000000000x1");
    write_png_header_only(tmp_path("tall.png"), 3, 2147483647u);
    expect_size_message(tmp_path("tall.png"), CLV_ERROR_UNSUPPORTED, "3x2147483647");

    /* Text headers of any length: PFM ("W H"), Radiance HDR ("-Y H +X W",
     * cut with "..." past 20 digits). */
    static const struct {
        const char *file, *hdr, *needle;
    } text[] = {
        {"absurd.pfm", "PF\n4000000000 1\n-1.0\n", "4000000000x1"},
        {"absurd.pfm", "Pf\n1 1099511627776\n-1.0\n", "1x1099511627776"},
        {"absurd.pfm", "Pf\n99999999999999999999999 7\n1\n", "99999999999999999999999x7"},
        {"absurd.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 1 +X 4000000000\n", "4000000000x1"},
        {"absurd.hdr", "#?RADIANCE\n\n-Y 1099511627776 +X 3\n", "3x1099511627776"},
        {"absurd.hdr", "#?RGBE\n\n-Y 7 +X 99999999999999999999999999999\n",
         "99999999999999999999...x7"},
    };
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++) {
        const char *path = tmp_path(text[i].file);
        test_spit(path, text[i].hdr, strlen(text[i].hdr));
        expect_size_message(path, CLV_ERROR_UNSUPPORTED, text[i].needle);
    }

    /* JPEG: 16-bit sizes; libjpeg stops above 65500 with a message naming
     * only its own limit. */
    clv_host_image small;
    REQUIRE(clv_host_image_alloc(&small, 8, 8, 1, CLV_U8) == CLV_OK, "alloc");
    REQUIRE(clv_jpeg_write(tmp_path("big.jpg"), &small, 90) == CLV_OK, "%s", clv_io_last_error());
    clv_host_image_free(&small);
    size_t jn = 0;
    unsigned char *jb = test_slurp(tmp_path("big.jpg"), &jn);
    REQUIRE(jb, "read back big.jpg");
    size_t sof = 0;
    for (size_t i = 2; i + 9 < jn && !sof; i++)
        if (jb[i] == 0xFF && (jb[i + 1] == 0xC0 || jb[i + 1] == 0xC1 || jb[i + 1] == 0xC2))
            sof = i;
    REQUIRE(sof, "no SOF marker in big.jpg");
    jb[sof + 5] = jb[sof + 6] = jb[sof + 7] = jb[sof + 8] = 0xFF; /* height, width = 65535 */
    test_spit(tmp_path("big.jpg"), jb, jn);
    free(jb);
    expect_size_message(tmp_path("big.jpg"), CLV_ERROR_UNSUPPORTED, "65535x65535");

    /* .flo: int32 sizes. */
    unsigned char flo[12] = {'P', 'I', 'E', 'H'};
    put_le32_at(flo + 4, 2000000000u);
    put_le32_at(flo + 8, 1);
    test_spit(tmp_path("wide.flo"), flo, sizeof flo);
    clv_host_image f = junk_image();
    EXPECT(clv_flo_read(tmp_path("wide.flo"), &f) != CLV_OK, "absurd .flo read");
    EXPECT(strstr(clv_io_last_error(), "2000000000x1") != NULL, ".flo message: %s",
           clv_io_last_error());
    clv_host_image_free(&f);
}

/* ---- dispatch ---- */

static void test_dispatch(void)
{
    clv_host_image src, back;
    REQUIRE(clv_host_image_alloc(&src, 40, 30, 3, CLV_U8) == CLV_OK, "alloc");
    fill_smooth(&src);

    static const char *const png_names[] = {"a.PNG", "b.Png"};
    for (int i = 0; i < 2; i++) {
        EXPECT_STATUS(clv_image_write(tmp_path(png_names[i]), &src, 0), CLV_OK);
        int depth, color;
        png_header(tmp_path(png_names[i]), &depth, &color);
        EXPECT(depth == 8 && color == 2, "%s must be written as PNG", png_names[i]);
    }
    static const char *const jpg_names[] = {"c.JPG", "d.JpEg", "e.jpeg"};
    for (int i = 0; i < 3; i++) {
        EXPECT_STATUS(clv_image_write(tmp_path(jpg_names[i]), &src, 90), CLV_OK);
        size_t n;
        unsigned char *b = test_slurp(tmp_path(jpg_names[i]), &n);
        EXPECT(n > 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF, "%s must be a JPEG",
               jpg_names[i]);
        free(b);
    }

    /* Reading goes by content, not name. */
    EXPECT_STATUS(clv_png_write(tmp_path("really_png.jpg"), &src), CLV_OK);
    EXPECT_STATUS(clv_image_read(tmp_path("really_png.jpg"), &back), CLV_OK);
    EXPECT(same_pixels(&src, &back), "PNG named .jpg must read as PNG");
    clv_host_image_free(&back);
    EXPECT_STATUS(clv_jpeg_write(tmp_path("really_jpeg.png"), &src, 90), CLV_OK);
    EXPECT_STATUS(clv_image_read(tmp_path("really_jpeg.png"), &back), CLV_OK);
    EXPECT(back.channels == 3 && psnr_u8(&src, &back) > 30.0, "JPEG named .png must read as JPEG");
    clv_host_image_free(&back);

    /* Unknown or missing extensions: refused, nothing created. */
    int before = test_dir_entries(tmp_dir);
    static const char *const bad[] = {"x.bmp", "x.tif", "noext", "x.png.gz", "x.pn", "x."};
    for (int i = 0; i < 6; i++) {
        EXPECT_STATUS(clv_image_write(tmp_path(bad[i]), &src, 0), CLV_ERROR_UNSUPPORTED);
        EXPECT(!test_file_exists(tmp_path(bad[i])), "%s must not be created", bad[i]);
    }
    EXPECT(test_dir_entries(tmp_dir) == before, "refused writes left files behind");
    clv_host_image_free(&src);
}

/* ---- read errors ---- */

static void expect_read_fails(const char *path, clv_status want, const char *what)
{
    clv_status (*readers[3])(const char *, clv_host_image *) = {clv_image_read, clv_png_read,
                                                                 clv_jpeg_read};
    static const char *const names[3] = {"clv_image_read", "clv_png_read", "clv_jpeg_read"};
    for (int r = 0; r < 3; r++) {
        clv_host_image img = junk_image();
        clv_status s = readers[r](path, &img);
        EXPECT(s == want, "%s(%s) -> %s, want %s: %s", names[r], what, clv_status_string(s),
               clv_status_string(want), clv_io_last_error());
        EXPECT(is_zeroed(&img), "%s(%s): *out not zeroed on failure", names[r], what);
        EXPECT(strstr(clv_io_last_error(), path) != NULL,
               "%s(%s): message should name the file: %s", names[r], what, clv_io_last_error());
    }
}

/* The first n bytes of a bundled file, as a file in the temp dir. */
static const char *truncated_copy(const char *name, size_t n, const char *out)
{
    size_t len;
    char *src = data_path(name);
    unsigned char *b = test_slurp(src, &len);
    REQUIRE(n <= len, "%s is shorter than %zu", name, n);
    const char *path = tmp_path(out);
    test_spit(path, b, n);
    free(b);
    free(src);
    return path;
}

static void test_read_errors(void)
{
    const char *missing = tmp_path("does_not_exist.png");
    expect_read_fails(missing, CLV_ERROR_IO, "missing file");
    expect_read_fails(tmp_dir, CLV_ERROR_IO, "a directory");

    const char *empty = tmp_path("empty.png");
    test_spit(empty, "", 0);
    expect_read_fails(empty, CLV_ERROR_FORMAT, "empty file");

    unsigned char garbage[3000];
    test_fill_random(garbage, sizeof garbage, CLV_U8, 7);
    garbage[0] = 0x42; /* neither magic */
    test_spit(tmp_path("garbage.png"), garbage, sizeof garbage);
    expect_read_fails(tmp_path("garbage.png"), CLV_ERROR_FORMAT, "garbage");

    static const char gif[] = "GIF89a\x01\x00\x01\x00\x00\x00\x00;";
    test_spit(tmp_path("image.gif"), gif, sizeof gif - 1);
    expect_read_fails(tmp_path("image.gif"), CLV_ERROR_FORMAT, "GIF");
    test_spit(tmp_path("short.png"), "\x89PN", 3);
    expect_read_fails(tmp_path("short.png"), CLV_ERROR_FORMAT, "3 bytes of a PNG signature");

    /* Right magic, garbage after it. */
    memcpy(garbage, "\x89PNG\r\n\x1a\n", 8);
    test_spit(tmp_path("sig_garbage.png"), garbage, sizeof garbage);
    expect_read_fails(tmp_path("sig_garbage.png"), CLV_ERROR_FORMAT, "PNG magic + garbage");
    memcpy(garbage, "\xFF\xD8\xFF\xE0", 4);
    test_spit(tmp_path("soi_garbage.jpg"), garbage, sizeof garbage);
    expect_read_fails(tmp_path("soi_garbage.jpg"), CLV_ERROR_FORMAT, "JPEG magic + garbage");

    /* Truncated PNGs and JPEGs, cut at many places (header, inside the
     * data, just before the end marker). */
    size_t png_len, jpg_len;
    char *p = data_path("chelsea.png");
    free(test_slurp(p, &png_len));
    free(p);
    p = data_path("coffee.jpg");
    free(test_slurp(p, &jpg_len));
    free(p);
    const size_t png_cuts[] = {8, 20, 33, 100, 5000, png_len / 2, png_len - 13, png_len - 1};
    for (size_t i = 0; i < sizeof png_cuts / sizeof png_cuts[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "chelsea.png cut to %zu bytes", png_cuts[i]);
        expect_read_fails(truncated_copy("chelsea.png", png_cuts[i], "cut.png"), CLV_ERROR_FORMAT,
                          what);
    }
    const size_t jpg_cuts[] = {3, 20, 200, 700, jpg_len / 2, jpg_len - 100, jpg_len - 2};
    for (size_t i = 0; i < sizeof jpg_cuts / sizeof jpg_cuts[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "coffee.jpg cut to %zu bytes", jpg_cuts[i]);
        expect_read_fails(truncated_copy("coffee.jpg", jpg_cuts[i], "cut.jpg"), CLV_ERROR_FORMAT,
                          what);
    }

    /* A flipped byte inside the PNG image data: CRC error. */
    p = data_path("interlaced_plain.png");
    size_t n;
    unsigned char *b = test_slurp(p, &n);
    b[n / 2] ^= 0x40;
    test_spit(tmp_path("crc.png"), b, n);
    free(b);
    free(p);
    expect_read_fails(tmp_path("crc.png"), CLV_ERROR_FORMAT, "PNG with a bad CRC");

    /* Corrupt JPEG entropy data: a stray marker cuts the scan short (libjpeg
     * only warns and fills the rest with grey). Random bit flips that the
     * Huffman decoder swallows are not detectable and not tested. */
    p = data_path("coffee.jpg");
    b = test_slurp(p, &n);
    b[n / 2] = 0xFF;
    b[n / 2 + 1] = 0xD9;
    test_spit(tmp_path("corrupt.jpg"), b, n);
    free(b);
    free(p);
    {
        clv_host_image img = junk_image();
        EXPECT_STATUS(clv_image_read(tmp_path("corrupt.jpg"), &img), CLV_ERROR_FORMAT);
        EXPECT(is_zeroed(&img), "corrupt JPEG: *out not zeroed");
    }

    /* The per-format readers refuse the other format. */
    char *png = data_path("camera.png"), *jpg = data_path("coffee.jpg");
    clv_host_image img = junk_image();
    EXPECT_STATUS(clv_png_read(jpg, &img), CLV_ERROR_FORMAT);
    EXPECT(is_zeroed(&img), "png_read(jpeg): *out not zeroed");
    EXPECT_STATUS(clv_jpeg_read(png, &img), CLV_ERROR_FORMAT);
    EXPECT(is_zeroed(&img), "jpeg_read(png): *out not zeroed");
    free(png);
    free(jpg);

    /* NULL arguments. */
    EXPECT_STATUS(clv_image_read(NULL, &img), CLV_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(clv_image_read(missing, NULL), CLV_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(clv_png_read(NULL, &img), CLV_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(clv_jpeg_read(NULL, &img), CLV_ERROR_INVALID_ARGUMENT);
}

/* ---- write errors ---- */

static void test_write_errors(void)
{
    clv_host_image u8, f32, u16, rgba;
    REQUIRE(clv_host_image_alloc(&u8, 16, 16, 3, CLV_U8) == CLV_OK, "alloc");
    REQUIRE(clv_host_image_alloc(&f32, 16, 16, 3, CLV_F32) == CLV_OK, "alloc");
    REQUIRE(clv_host_image_alloc(&u16, 16, 16, 3, CLV_U16) == CLV_OK, "alloc");
    REQUIRE(clv_host_image_alloc(&rgba, 16, 16, 4, CLV_U8) == CLV_OK, "alloc");
    fill_smooth(&u8);
    fill_smooth(&rgba);
    int entries = test_dir_entries(tmp_dir);

    /* A directory that does not exist. */
    const char *nodir = tmp_path("no/such/dir/out.png");
    EXPECT_STATUS(clv_image_write(nodir, &u8, 0), CLV_ERROR_IO);
    EXPECT(strstr(clv_io_last_error(), "out.png") != NULL, "message should name the file: %s",
           clv_io_last_error());
    EXPECT_STATUS(clv_image_write(tmp_path("no/such/dir/out.jpg"), &u8, 0), CLV_ERROR_IO);
    EXPECT(!test_file_exists(tmp_path("no")), "nothing may be created");

    /* Pixel types and channel counts the format cannot hold. */
    EXPECT_STATUS(clv_image_write(tmp_path("f32.png"), &f32, 0), CLV_ERROR_UNSUPPORTED);
    EXPECT(strstr(clv_io_last_error(), "f32") != NULL, "message should name f32: %s",
           clv_io_last_error());
    EXPECT_STATUS(clv_png_write(tmp_path("f32.png"), &f32), CLV_ERROR_UNSUPPORTED);
    EXPECT(!test_file_exists(tmp_path("f32.png")), "f32.png must not be created");
    EXPECT_STATUS(clv_image_write(tmp_path("u16.jpg"), &u16, 90), CLV_ERROR_UNSUPPORTED);
    EXPECT_STATUS(clv_image_write(tmp_path("f32.jpg"), &f32, 90), CLV_ERROR_UNSUPPORTED);
    EXPECT_STATUS(clv_image_write(tmp_path("rgba.jpg"), &rgba, 90), CLV_ERROR_UNSUPPORTED);
    EXPECT_STATUS(clv_image_write(tmp_path("q.jpg"), &u8, 101), CLV_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(clv_image_write(tmp_path("q.jpg"), &u8, -1), CLV_ERROR_INVALID_ARGUMENT);

    /* Malformed host images. */
    clv_host_image bad = u8;
    bad.data = NULL;
    EXPECT_STATUS(clv_image_write(tmp_path("bad.png"), &bad, 0), CLV_ERROR_INVALID_ARGUMENT);
    bad = u8;
    bad.channels = 2;
    EXPECT_STATUS(clv_image_write(tmp_path("bad.png"), &bad, 0), CLV_ERROR_INVALID_ARGUMENT);
    bad = u8;
    bad.stride = 16 * 3 - 1;
    EXPECT_STATUS(clv_image_write(tmp_path("bad.jpg"), &bad, 0), CLV_ERROR_INVALID_ARGUMENT);
    bad = u8;
    bad.width = 0;
    EXPECT_STATUS(clv_image_write(tmp_path("bad.png"), &bad, 0), CLV_ERROR_INVALID_ARGUMENT);
    bad = u8;
    bad.type = (clv_pixel_type)42;
    EXPECT_STATUS(clv_image_write(tmp_path("bad.png"), &bad, 0), CLV_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(clv_image_write(NULL, &u8, 0), CLV_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(clv_image_write(tmp_path("null.png"), NULL, 0), CLV_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(clv_png_write(tmp_path("null.png"), NULL), CLV_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(clv_jpeg_write(tmp_path("null.jpg"), NULL, 0), CLV_ERROR_INVALID_ARGUMENT);
    EXPECT(test_dir_entries(tmp_dir) == entries, "refused writes left %d new files behind",
           test_dir_entries(tmp_dir) - entries);

    /* A refused write over an existing file leaves it alone. */
    const char *keep = tmp_path("keep.png");
    EXPECT_STATUS(clv_image_write(keep, &u8, 0), CLV_OK);
    size_t old_len;
    unsigned char *old = test_slurp(keep, &old_len);
    EXPECT_STATUS(clv_image_write(keep, &f32, 0), CLV_ERROR_UNSUPPORTED);
    EXPECT(test_same_file_content(keep, old, old_len), "refused write changed the old file");
    free(old);
    entries = test_dir_entries(tmp_dir);

    /* A write that fails half-way (the file size limit makes write() fail
     * with EFBIG): CLV_ERROR_IO, the old file intact, no temporary left. */
    clv_host_image big;
    REQUIRE(clv_host_image_alloc(&big, 300, 200, 3, CLV_U8) == CLV_OK, "alloc");
    test_fill_random(big.data, 300 * 200 * 3, CLV_U8, 11);
    const char *keep_jpg = tmp_path("keep.jpg");
    EXPECT_STATUS(clv_image_write(keep_jpg, &u8, 90), CLV_OK);
    size_t old_jpg_len;
    unsigned char *old_jpg = test_slurp(keep_jpg, &old_jpg_len);
    old = test_slurp(keep, &old_len);
    entries = test_dir_entries(tmp_dir);

    struct rlimit saved, lim;
    REQUIRE(getrlimit(RLIMIT_FSIZE, &saved) == 0, "getrlimit");
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    lim = saved;
    lim.rlim_cur = 4096;
    REQUIRE(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit: %s", strerror(errno));
    clv_status s_png = clv_image_write(keep, &big, 0);
    char msg_png[512];
    snprintf(msg_png, sizeof msg_png, "%s", clv_io_last_error());
    clv_status s_jpg = clv_image_write(keep_jpg, &big, 100);
    char msg_jpg[512];
    snprintf(msg_jpg, sizeof msg_jpg, "%s", clv_io_last_error());
    REQUIRE(setrlimit(RLIMIT_FSIZE, &saved) == 0, "restoring the file size limit");
    signal(SIGXFSZ, old_handler);

    EXPECT(s_png == CLV_ERROR_IO, "PNG write hitting EFBIG -> %s: %s", clv_status_string(s_png),
           msg_png);
    EXPECT(s_jpg == CLV_ERROR_IO, "JPEG write hitting EFBIG -> %s: %s", clv_status_string(s_jpg),
           msg_jpg);
    EXPECT(test_same_file_content(keep, old, old_len), "failed PNG write changed the old file");
    EXPECT(test_same_file_content(keep_jpg, old_jpg, old_jpg_len),
           "failed JPEG write changed the old file");
    EXPECT(test_dir_entries(tmp_dir) == entries, "failed writes left a temporary file behind");
    free(old);
    free(old_jpg);

    /* Without the limit the same writes replace the files. */
    EXPECT_STATUS(clv_image_write(keep, &big, 0), CLV_OK);
    clv_host_image back;
    EXPECT_STATUS(clv_image_read(keep, &back), CLV_OK);
    EXPECT(same_pixels(&big, &back), "replacing an existing file");
    clv_host_image_free(&back);
    EXPECT(test_dir_entries(tmp_dir) == entries, "successful writes left a temporary file behind");

    /* The target is a directory: rename fails, the directory survives. */
    const char *dir_png = tmp_path("adir.png");
    REQUIRE(mkdir(dir_png, 0700) == 0, "mkdir");
    entries = test_dir_entries(tmp_dir);
    EXPECT_STATUS(clv_image_write(dir_png, &u8, 0), CLV_ERROR_IO);
    struct stat st;
    EXPECT(stat(dir_png, &st) == 0 && S_ISDIR(st.st_mode), "directory target destroyed");
    EXPECT(test_dir_entries(tmp_dir) == entries, "failed rename left a temporary file behind");

    /* New files get the usual permissions (not mkstemp's 0600). */
    mode_t um = umask(022);
    EXPECT_STATUS(clv_image_write(tmp_path("mode.png"), &u8, 0), CLV_OK);
    umask(um);
    EXPECT(stat(tmp_path("mode.png"), &st) == 0 && (st.st_mode & 0777) == 0644,
           "mode %o, expected 644", (unsigned)(st.st_mode & 0777));

    clv_host_image_free(&big);
    clv_host_image_free(&u8);
    clv_host_image_free(&f32);
    clv_host_image_free(&u16);
    clv_host_image_free(&rgba);
}

/* ---- pixel limit ---- */

static uint32_t crc32_bytes(const unsigned char *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return c ^ 0xFFFFFFFFu;
}

static size_t put_chunk(unsigned char *out, const char *type, const unsigned char *data,
                        uint32_t len)
{
    out[0] = (unsigned char)(len >> 24);
    out[1] = (unsigned char)(len >> 16);
    out[2] = (unsigned char)(len >> 8);
    out[3] = (unsigned char)len;
    memcpy(out + 4, type, 4);
    if (len)
        memcpy(out + 8, data, len);
    uint32_t crc = crc32_bytes(out + 4, 4 + (size_t)len);
    out[8 + len] = (unsigned char)(crc >> 24);
    out[9 + len] = (unsigned char)(crc >> 16);
    out[10 + len] = (unsigned char)(crc >> 8);
    out[11 + len] = (unsigned char)crc;
    return 12 + (size_t)len;
}

/* A valid-looking PNG header for a huge RGB image, then a tiny IDAT. */
static void write_png_header_only(const char *path, uint32_t w, uint32_t h)
{
    unsigned char buf[128];
    size_t n = 0;
    memcpy(buf, "\x89PNG\r\n\x1a\n", 8);
    n = 8;
    unsigned char ihdr[13] = {(unsigned char)(w >> 24), (unsigned char)(w >> 16),
                              (unsigned char)(w >> 8),  (unsigned char)w,
                              (unsigned char)(h >> 24), (unsigned char)(h >> 16),
                              (unsigned char)(h >> 8),  (unsigned char)h,
                              8, 2, 0, 0, 0};
    n += put_chunk(buf + n, "IHDR", ihdr, 13);
    static const unsigned char idat[] = {0x78, 0x9c, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01};
    n += put_chunk(buf + n, "IDAT", idat, sizeof idat);
    n += put_chunk(buf + n, "IEND", NULL, 0);
    test_spit(path, buf, n);
}

static void test_max_pixels(void)
{
    EXPECT(clv_io_max_pixels() == ((size_t)1 << 28), "default limit %zu", clv_io_max_pixels());
    char *chelsea = data_path("chelsea.png"), *coffee = data_path("coffee.jpg");
    clv_host_image img;

    clv_io_set_max_pixels(100);
    EXPECT(clv_io_max_pixels() == 100, "set/get");
    img = junk_image();
    EXPECT_STATUS(clv_image_read(chelsea, &img), CLV_ERROR_INVALID_ARGUMENT);
    EXPECT(is_zeroed(&img), "refused read must zero *out");
    EXPECT(strstr(clv_io_last_error(), "clv_io_set_max_pixels") != NULL,
           "message should say how to raise the limit: %s", clv_io_last_error());
    EXPECT(strstr(clv_io_last_error(), "chelsea.png") != NULL, "message should name the file");
    EXPECT_STATUS(clv_image_read(coffee, &img), CLV_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(clv_jpeg_read(coffee, &img), CLV_ERROR_INVALID_ARGUMENT);

    /* The limit is inclusive. */
    clv_io_set_max_pixels(451 * 300);
    EXPECT_STATUS(clv_image_read(chelsea, &img), CLV_OK);
    clv_host_image_free(&img);
    clv_io_set_max_pixels(451 * 300 - 1);
    EXPECT_STATUS(clv_image_read(chelsea, &img), CLV_ERROR_INVALID_ARGUMENT);
    clv_io_set_max_pixels(300 * 200);
    EXPECT_STATUS(clv_image_read(coffee, &img), CLV_OK);
    clv_host_image_free(&img);
    clv_io_set_max_pixels((size_t)1 << 28);

    /* Headers announcing huge images are refused from the header alone,
     * before anything image-sized is allocated (60000^2 RGB would be 10 GB;
     * the file itself has no pixel data, so decoding would fail as
     * truncated: INVALID_ARGUMENT proves the check came first). */
    write_png_header_only(tmp_path("huge.png"), 60000, 60000);
    img = junk_image();
    EXPECT_STATUS(clv_image_read(tmp_path("huge.png"), &img), CLV_ERROR_INVALID_ARGUMENT);
    EXPECT(is_zeroed(&img), "*out zeroed");
    /* Wider than any clvision image. */
    write_png_header_only(tmp_path("wide.png"), 70000, 1);
    EXPECT_STATUS(clv_image_read(tmp_path("wide.png"), &img), CLV_ERROR_UNSUPPORTED);
    /* A sane header with the same lack of data is simply truncated. */
    write_png_header_only(tmp_path("small.png"), 64, 64);
    EXPECT_STATUS(clv_image_read(tmp_path("small.png"), &img), CLV_ERROR_FORMAT);

    /* Same for JPEG: patch the SOF0 frame size of coffee.jpg to 65000^2. */
    size_t n;
    unsigned char *b = test_slurp(coffee, &n);
    size_t sof = 0;
    for (size_t i = 2; i + 9 < n; i++)
        if (b[i] == 0xFF && (b[i + 1] == 0xC0 || b[i + 1] == 0xC2)) {
            sof = i;
            break;
        }
    REQUIRE(sof, "no SOF marker in coffee.jpg");
    b[sof + 5] = 0xFD; /* height 65000 = 0xFDE8 */
    b[sof + 6] = 0xE8;
    b[sof + 7] = 0xFD; /* width */
    b[sof + 8] = 0xE8;
    test_spit(tmp_path("huge.jpg"), b, n);
    free(b);
    EXPECT_STATUS(clv_image_read(tmp_path("huge.jpg"), &img), CLV_ERROR_INVALID_ARGUMENT);
    EXPECT(is_zeroed(&img), "*out zeroed");

    free(chelsea);
    free(coffee);
}

/* ---- threads ---- */

typedef struct thread_arg {
    int id;
    int failures;
    size_t limit_seen;
    int error_was_empty;
} thread_arg;

static void *thread_main(void *p)
{
    thread_arg *a = p;
    /* Fresh thread: default limit, no error yet. */
    a->limit_seen = clv_io_max_pixels();
    a->error_was_empty = clv_io_last_error()[0] == '\0';
    clv_io_set_max_pixels(10); /* must not leak into other threads */

    clv_host_image src, back;
    if (clv_host_image_alloc(&src, 57, 31, 3, CLV_U8) != CLV_OK)
        return NULL;
    for (int i = 0; i < 20; i++) {
        char path[4096]; /* tmp_path()'s buffers are not for threads */
        test_fill_random(src.data, 57 * 31 * 3, CLV_U8, (uint64_t)(a->id * 1000 + i));
        snprintf(path, sizeof path, "%s/t%d_%d.%s", tmp_dir, a->id, i, i % 2 ? "png" : "jpg");
        if (clv_image_write(path, &src, 90) != CLV_OK)
            a->failures++;
        /* 57*31 pixels exceed this thread's limit of 10. */
        if (clv_image_read(path, &back) != CLV_ERROR_INVALID_ARGUMENT)
            a->failures++;
        clv_io_set_max_pixels(100000);
        if (clv_image_read(path, &back) != CLV_OK)
            a->failures++;
        else if (i % 2 && !same_pixels(&src, &back))
            a->failures++;
        clv_host_image_free(&back);
        clv_io_set_max_pixels(10);
        unlink(path);
    }
    clv_host_image_free(&src);
    return NULL;
}

static void test_threads(void)
{
    /* Leave a known error in this thread; threads must not overwrite it. */
    clv_host_image img;
    EXPECT_STATUS(clv_image_read(tmp_path("main_thread_missing.png"), &img), CLV_ERROR_IO);
    char mine[512];
    snprintf(mine, sizeof mine, "%s", clv_io_last_error());
    clv_io_set_max_pixels(12345);

    pthread_t th[2];
    thread_arg args[2] = {{0, 0, 0, 0}, {1, 0, 0, 0}};
    for (int i = 0; i < 2; i++)
        REQUIRE(pthread_create(&th[i], NULL, thread_main, &args[i]) == 0, "pthread_create");
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 2; i++) {
        EXPECT(args[i].failures == 0, "thread %d: %d failures", i, args[i].failures);
        EXPECT(args[i].limit_seen == ((size_t)1 << 28), "thread %d saw limit %zu", i,
               args[i].limit_seen);
        EXPECT(args[i].error_was_empty, "thread %d started with an error message", i);
    }
    EXPECT(clv_io_max_pixels() == 12345, "another thread changed this thread's limit");
    EXPECT(strcmp(clv_io_last_error(), mine) == 0, "another thread changed this thread's error");
    clv_io_set_max_pixels((size_t)1 << 28);
}

/* ---- issue 13: non-regular inputs, temporaries, modes ---- */

typedef clv_status (*read_fn)(const char *, clv_host_image *);

/* Every reader refuses a FIFO (at once: no writer exists, so a blocking
 * open would hang; SIGALRM ends the test then), a device, a directory and a
 * link to a FIFO with CLV_ERROR_IO naming the kind; a link to a real image
 * is followed. */
static void test_non_regular_inputs(void)
{
    static const struct {
        const char *name;
        read_fn fn;
    } readers[] = {{"image", clv_image_read}, {"png", clv_png_read}, {"jpeg", clv_jpeg_read},
                   {"exr", clv_exr_read},     {"hdr", clv_hdr_read}, {"pfm", clv_pfm_read},
                   {"flo", clv_flo_read}};
    const char *fifo = tmp_path("input.fifo");
    REQUIRE(mkfifo(fifo, 0600) == 0, "mkfifo: %s", strerror(errno));
    char fifo_link[4096], png_link[4096];
    snprintf(fifo_link, sizeof fifo_link, "%s", tmp_path("fifo-link.png"));
    snprintf(png_link, sizeof png_link, "%s", tmp_path("png-link.png"));
    REQUIRE(symlink(fifo, fifo_link) == 0, "symlink: %s", strerror(errno));
    char *real_png = malloc(8192), cwd[4096];
    REQUIRE(real_png && getcwd(cwd, sizeof cwd), "getcwd: %s", strerror(errno));
    const char *data = test_data_path("camera.png");
    snprintf(real_png, 8192, "%s%s%s", data[0] == '/' ? "" : cwd, data[0] == '/' ? "" : "/",
             data);
    REQUIRE(symlink(real_png, png_link) == 0, "symlink: %s", strerror(errno));
    const struct {
        const char *path, *kind;
    } cases[] = {{fifo, "a FIFO"},
                 {fifo_link, "a FIFO"},
                 {"/dev/zero", "a character device"},
                 {tmp_dir, "a directory"}};
    alarm(20); /* a reader that blocks in open() is killed: the test fails */
    for (size_t r = 0; r < sizeof readers / sizeof readers[0]; r++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            clv_host_image img;
            memset(&img, 0xA5, sizeof img);
            clv_status st = readers[r].fn(cases[c].path, &img);
            char want[128];
            snprintf(want, sizeof want, "it is %s, not a regular file", cases[c].kind);
#ifndef CLV_HAVE_OPENEXR
            if (strcmp(readers[r].name, "exr") == 0) {
                /* built without OpenEXR (the GPU machine): that is the answer */
                EXPECT(st == CLV_ERROR_UNSUPPORTED &&
                           strstr(clv_io_last_error(), "without OpenEXR") && img.data == NULL,
                       "exr reader without OpenEXR on '%s': %s: %s", cases[c].path,
                       clv_status_string(st), clv_io_last_error());
                continue;
            }
#endif
            EXPECT(st == CLV_ERROR_IO && strstr(clv_io_last_error(), want) &&
                       strstr(clv_io_last_error(), cases[c].path) &&
                       !strchr(clv_io_last_error(), '\n') && img.data == NULL && img.width == 0,
                   "%s reader on '%s': %s: %s (want IO error saying '%s')", readers[r].name,
                   cases[c].path, clv_status_string(st), clv_io_last_error(), want);
        }
    alarm(0);
    clv_host_image img, direct;
    EXPECT_STATUS(clv_image_read(png_link, &img), CLV_OK);
    EXPECT_STATUS(clv_image_read(real_png, &direct), CLV_OK);
    EXPECT(img.data && direct.data && img.width == direct.width &&
               img.height == direct.height && img.stride == direct.stride &&
               memcmp(img.data, direct.data, img.stride * (size_t)img.height) == 0,
           "read through a symlink: %dx%d", img.width, img.height);
    clv_host_image_free(&img);
    clv_host_image_free(&direct);
    EXPECT_STATUS(clv_png_read(png_link, &img), CLV_OK);
    clv_host_image_free(&img);
    free(real_png);
    unlink(fifo_link);
    unlink(png_link);
    unlink(fifo);
}

static mode_t file_mode(const char *path)
{
    struct stat st;
    REQUIRE(stat(path, &st) == 0, "stat %s: %s", path, strerror(errno));
    return st.st_mode & 07777;
}

/* Overwriting keeps the permission bits (0600 stays 0600); a new file gets
 * 0666 minus the umask; clv_remove_temporaries() removes tracked files. */
static void test_temporaries_and_modes(void)
{
    const int entries = test_dir_entries(tmp_dir);
    clv_host_image img;
    REQUIRE(clv_host_image_alloc(&img, 5, 4, 3, CLV_U8) == CLV_OK, "alloc");
    const char *path = tmp_path("perm-keep.png");
    mode_t mask = umask(022);
    EXPECT_STATUS(clv_png_write(path, &img), CLV_OK);
    EXPECT(file_mode(path) == 0644, "new file: mode %o, want 644 (umask 022)",
           (unsigned)file_mode(path));
    static const mode_t modes[] = {0600, 0640, 0604, 0666};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        REQUIRE(chmod(path, modes[i]) == 0, "chmod");
        EXPECT_STATUS(i % 2 ? clv_image_write(path, &img, 0) : clv_png_write(path, &img), CLV_OK);
        EXPECT(file_mode(path) == modes[i], "overwrite of a %o file left mode %o",
               (unsigned)modes[i], (unsigned)file_mode(path));
    }
    const char *jpg = tmp_path("perm-keep.jpg");
    EXPECT_STATUS(clv_jpeg_write(jpg, &img, 90), CLV_OK);
    REQUIRE(chmod(jpg, 0600) == 0, "chmod");
    EXPECT_STATUS(clv_jpeg_write(jpg, &img, 90), CLV_OK);
    EXPECT(file_mode(jpg) == 0600, "jpeg overwrite: mode %o", (unsigned)file_mode(jpg));
    umask(mask);
    unlink(path);
    unlink(jpg);
    clv_host_image_free(&img);

    /* The registry: tracked files go, untracked ones stay. */
    const char *a = tmp_path("tracked.tmp"), *b = tmp_path("untracked.tmp");
    test_spit(a, "x", 1);
    test_spit(b, "y", 1);
    int slot = clv_io_track_temporary(a);
    EXPECT(slot >= 0, "track: slot %d", slot);
    errno = 1234;
    clv_remove_temporaries();
    EXPECT(errno == 1234, "clv_remove_temporaries changed errno to %d", errno);
    EXPECT(!test_file_exists(a) && test_file_exists(b), "tracked file removed, other kept");
    clv_remove_temporaries(); /* twice is harmless */
    clv_io_untrack_temporary(slot);
    clv_io_untrack_temporary(-1);
    EXPECT(clv_io_track_temporary(NULL) == -1, "track(NULL)");
    int slots[80], n = 0;
    while (n < 80 && (slots[n] = clv_io_track_temporary(b)) >= 0)
        n++;
    EXPECT(n == 64, "%d slots, want 64", n);
    for (int i = 0; i < n; i++)
        clv_io_untrack_temporary(slots[i]);
    clv_remove_temporaries();
    EXPECT(test_file_exists(b), "untracked file removed");
    unlink(b);
    EXPECT(test_dir_entries(tmp_dir) == entries, "files left in %s: %d, before %d", tmp_dir,
           test_dir_entries(tmp_dir), entries);
}

int main(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/clv-test-io-XXXXXX");
    REQUIRE(mkdtemp(tmp_dir), "mkdtemp: %s", strerror(errno));

    test_alloc();
    test_bundled_png();
    test_png_counterparts();
    test_bundled_jpeg();
    test_png_roundtrip();
    test_jpeg_roundtrip();
    test_jpeg_scan_limit();
    test_absurd_sizes();
    test_dispatch();
    test_read_errors();
    test_write_errors();
    test_max_pixels();
    test_threads();
    test_non_regular_inputs();
    test_temporaries_and_modes();

    test_remove_tree(tmp_dir);
    return test_finish("io", passed);
}
